//! `agui-kiosk --url`: the live conversation with the pydantic-ai test
//! backend (`examples/agents/`) in a window on a virtual X display (Xvfb),
//! screenshot with ImageMagick's `import` and compared with a golden image;
//! `--fullscreen` on larger screens (800x480, 1920x1080) fills them. A
//! person in the loop: pydantic-ai's `/approval` asks to unlock the door,
//! the prompt panel shows the question (golden image), and a key (Y) or a
//! click (on "no") typed into the display with the XTEST extension answers
//! it; the resuming run's answer is checked on the screen.
//!
//! Needs `Xvfb`, `import` (`apt-get install xvfb imagemagick`) and the
//! backends' venv (`examples/agents/setup.sh`, or `$AGUI_PYTHON`); `cargo
//! xtask setup` installs them. Without them the test fails and says so.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

mod backend;
use backend::{repo, Backend};

const WIDTH: usize = 320;
const HEIGHT: usize = 240;

fn need(program: &str, package: &str) {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "{program} is needed for the window test (apt-get install {package}; \
         `cargo xtask setup` installs it)"
    );
}

/// A child process killed when dropped, even when the test fails.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Lines of a child's stdout, read on a thread.
fn lines(stdout: ChildStdout) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    rx
}

fn next_line(rx: &Receiver<String>, what: &str) -> String {
    rx.recv_timeout(Duration::from_secs(120))
        .unwrap_or_else(|_| panic!("no line from {what} within 120 s"))
}

/// Xvfb on a display it picks itself (`-displayfd`), one screen of
/// `width`x`height` with a black root window (`-br`: what the kiosk does not
/// cover stays black); returns the guard and `:N`.
fn xvfb(width: usize, height: usize) -> (Guard, String) {
    let mut child = Command::new("Xvfb")
        .args(["-displayfd", "1", "-nolisten", "tcp", "-br", "-screen", "0"])
        .arg(format!("{width}x{height}x24"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("Xvfb starts");
    let rx = lines(child.stdout.take().unwrap());
    let guard = Guard(child);
    let display = format!(":{}", next_line(&rx, "Xvfb").trim());
    (guard, display)
}

/// `agui-kiosk --url ... --fullscreen` on `display`, asking the pydantic-ai
/// backend to turn the LED green, once it shows the finished conversation.
/// Kill the guard to close it.
fn fullscreen_kiosk(display: &str) -> (Backend, Guard) {
    let backend = Backend::start("pydantic_server.py");
    let mut child = Command::new(env!("CARGO_BIN_EXE_agui-kiosk"))
        .args([
            "--url",
            &backend.url,
            "--message",
            "Please turn the LED green",
        ])
        .args(["--tool", "set_led=echo LED is green", "--fullscreen"])
        .env("DISPLAY", display)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("agui-kiosk starts");
    let rx = lines(child.stdout.take().unwrap());
    let kiosk = Guard(child);
    let mut said = Vec::new();
    loop {
        let line = next_line(&rx, "agui-kiosk");
        let done = line.starts_with("agui-kiosk: showing the conversation");
        said.push(line);
        if done {
            break;
        }
    }
    let finished = said.iter().filter(|l| l.ends_with(": finished")).count();
    assert_eq!(
        finished, 2,
        "two finished runs (the tool call, the answer): {said:#?}"
    );
    (backend, kiosk)
}

/// A screenshot of the whole screen with `import`, as `NAME.png` in the
/// test's directory: its path, size and pixels.
fn screenshot(display: &str, name: &str) -> (PathBuf, usize, usize, Vec<u8>) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kiosk-window");
    std::fs::create_dir_all(&dir).unwrap();
    let shot = dir.join(format!("{name}.png"));
    let status = Command::new("import")
        .args(["-display", display, "-window", "root", "-depth", "8"])
        .arg(format!("PNG24:{}", shot.display()))
        .status()
        .expect("import runs");
    assert!(status.success(), "import failed: {status}");
    let (w, h, rgb) = read_rgb(&shot);
    (shot, w, h, rgb)
}

/// An 8-bit RGB PNG's pixels.
fn read_rgb(path: &Path) -> (usize, usize, Vec<u8>) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut decoder = png::Decoder::new(BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    let (w, h) = (info.width as usize, info.height as usize);
    let channels = buf.len() / (w * h);
    let rgb = buf
        .chunks(channels)
        .flat_map(|px| match channels {
            1 | 2 => [px[0], px[0], px[0]],
            _ => [px[0], px[1], px[2]],
        })
        .collect();
    (w, h, rgb)
}

#[test]
fn the_live_conversation_in_an_xvfb_window_matches_the_golden_image() {
    need("Xvfb", "xvfb");
    need("import", "imagemagick");
    let (_xvfb, display) = xvfb(WIDTH, HEIGHT);
    let _kiosk = fullscreen_kiosk(&display);
    let (shot, w, h, got) = screenshot(&display, "window");
    let (gw, gh, golden) = read_rgb(&repo().join("examples/tests/golden/window-pydantic.png"));
    assert_eq!((w, h), (WIDTH, HEIGHT), "screenshot size");
    assert_eq!((gw, gh), (WIDTH, HEIGHT), "golden size");
    // Small tolerance: under 0.5 % of the pixels may differ by more than
    // 48 levels in a channel.
    let differ = got
        .chunks(3)
        .zip(golden.chunks(3))
        .filter(|(a, b)| a.iter().zip(*b).any(|(x, y)| x.abs_diff(*y) > 48))
        .count();
    assert!(
        differ * 200 < w * h,
        "{differ} of {} pixels differ from examples/tests/golden/window-pydantic.png \
         (new screenshot: {})",
        w * h,
        shot.display()
    );
}

/// On a screen larger than the panel, `--fullscreen` covers at least 90 %
/// of the screen's width and height (the columns and rows with any pixel
/// that is not the black root), with text rows at least 16 pixels high: the
/// status line, a band of one colour across the conversation, measured at
/// three quarters of the covered width.
fn fills_the_screen(width: usize, height: usize) {
    need("Xvfb", "xvfb");
    need("import", "imagemagick");
    let (_xvfb, display) = xvfb(width, height);
    let _kiosk = fullscreen_kiosk(&display);
    let (shot, w, h, rgb) = screenshot(&display, &format!("fullscreen-{width}x{height}"));
    assert_eq!((w, h), (width, height), "screenshot size");
    let px = |x: usize, y: usize| &rgb[(y * w + x) * 3..][..3];
    let lit = |x: usize, y: usize| px(x, y) != [0, 0, 0];
    let columns = (0..w).filter(|&x| (0..h).any(|y| lit(x, y))).count();
    let rows = (0..h).filter(|&y| (0..w).any(|x| lit(x, y))).count();
    let shot = shot.display();
    assert!(
        columns * 10 >= w * 9,
        "the conversation covers {columns} of {w} columns ({shot})"
    );
    assert!(
        rows * 10 >= h * 9,
        "the conversation covers {rows} of {h} rows ({shot})"
    );
    let x = columns * 3 / 4;
    let band = (0..h).take_while(|&y| px(x, y) == px(x, 0)).count();
    assert!(
        band >= 16,
        "the status line is {band} pixels high at x={x}, text rows should be 16 or more ({shot})"
    );
}

/// The differing pixels of `got` against the golden image `golden` (in
/// `examples/tests/golden/`) stay under 0.5 % (a channel more than 48
/// levels off counts). `UPDATE_GOLDEN=1` writes the screenshot as the
/// golden image instead (check the picture).
fn matches_golden(shot: &Path, w: usize, h: usize, got: &[u8], golden: &str) {
    let path = repo().join("examples/tests/golden").join(golden);
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::copy(shot, &path).unwrap();
        return;
    }
    let (gw, gh, want) = read_rgb(&path);
    assert_eq!(
        (w, h),
        (gw, gh),
        "size of {} against {golden}",
        shot.display()
    );
    let differ = got
        .chunks(3)
        .zip(want.chunks(3))
        .filter(|(a, b)| a.iter().zip(*b).any(|(x, y)| x.abs_diff(*y) > 48))
        .count();
    assert!(
        differ * 200 < w * h,
        "{differ} of {} pixels differ from examples/tests/golden/{golden} (new screenshot: {})",
        w * h,
        shot.display()
    );
}

/// Input typed into an X display with the XTEST extension, as a person's
/// keyboard and mouse would. (x11-dl names its libXtst binding
/// `Xf86vmode`.)
struct Person {
    xlib: x11_dl::xlib::Xlib,
    xtest: x11_dl::xtest::Xf86vmode,
    display: *mut x11_dl::xlib::Display,
}

impl Person {
    fn at(display: &str) -> Self {
        let xlib = x11_dl::xlib::Xlib::open().expect("libX11");
        let xtest = x11_dl::xtest::Xf86vmode::open().expect("libXtst");
        let name = std::ffi::CString::new(display).unwrap();
        // SAFETY: libX11 was just loaded; the name is a C string.
        let display = unsafe { (xlib.XOpenDisplay)(name.as_ptr()) };
        assert!(!display.is_null(), "cannot open {name:?}");
        Person {
            xlib,
            xtest,
            display,
        }
    }

    /// Holds long enough for the kiosk's 20 ms polls to see it.
    fn hold(&self) {
        // SAFETY: the display is open until dropped.
        unsafe { (self.xlib.XFlush)(self.display) };
        std::thread::sleep(Duration::from_millis(150));
    }

    /// Moves the pointer to screen pixel (x, y).
    fn point(&self, x: i32, y: i32) {
        // SAFETY: the display is open; screen -1 is the pointer's screen.
        unsafe { (self.xtest.XTestFakeMotionEvent)(self.display, -1, x, y, 0) };
        self.hold();
    }

    /// Presses and releases the key of `keysym` (e.g. `XK_y`).
    fn key(&self, keysym: u32) {
        // SAFETY: the display is open.
        let code = unsafe { (self.xlib.XKeysymToKeycode)(self.display, keysym.into()) };
        assert_ne!(code, 0, "no key for keysym {keysym:#x}");
        for down in [1, 0] {
            // SAFETY: the display is open.
            unsafe { (self.xtest.XTestFakeKeyEvent)(self.display, code.into(), down, 0) };
            self.hold();
        }
    }

    /// Clicks the left button at screen pixel (x, y).
    fn click(&self, x: i32, y: i32) {
        self.point(x, y);
        for down in [1, 0] {
            // SAFETY: the display is open.
            unsafe { (self.xtest.XTestFakeButtonEvent)(self.display, 1, down, 0) };
            self.hold();
        }
    }
}

impl Drop for Person {
    fn drop(&mut self) {
        // SAFETY: opened in `at`, closed only here.
        unsafe { (self.xlib.XCloseDisplay)(self.display) };
    }
}

/// The kiosk asks for `/approval`'s door on a 320x240 screen: the question
/// is shown (golden image), `answer` is given, and the conversation then
/// shown is screenshot as `NAME.png` and compared with its golden image.
/// Returns what the kiosk printed.
fn approval(answer: impl FnOnce(&Person), name: &str) -> Vec<String> {
    need("Xvfb", "xvfb");
    need("import", "imagemagick");
    let (_xvfb, display) = xvfb(WIDTH, HEIGHT);
    let backend = Backend::start("pydantic_server.py");
    let mut child = Command::new(env!("CARGO_BIN_EXE_agui-kiosk"))
        .arg("--url")
        .arg(format!("{}approval", backend.url))
        .args(["--message", "Please open the front door", "--fullscreen"])
        .env("DISPLAY", &display)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("agui-kiosk starts");
    let rx = lines(child.stdout.take().unwrap());
    let _kiosk = Guard(child);
    let mut said = Vec::new();
    let mut until = |prefix: &str| loop {
        let line = next_line(&rx, "agui-kiosk");
        let done = line.starts_with(prefix);
        said.push(line);
        if done {
            break;
        }
    };
    until("agui-kiosk: asking:");
    let (shot, w, h, got) = screenshot(&display, &format!("{name}-asked"));
    matches_golden(&shot, w, h, &got, "window-approval-asked.png");
    let person = Person::at(&display);
    // The pointer over the window: with no window manager, the keyboard
    // goes to the window under it.
    person.point(WIDTH as i32 / 2, HEIGHT as i32 / 3);
    answer(&person);
    until("agui-kiosk: showing the conversation");
    let (shot, w, h, got) = screenshot(&display, name);
    matches_golden(&shot, w, h, &got, &format!("{name}.png"));
    said
}

/// `expected` are lines of `said`, in this order.
fn in_order(said: &[String], expected: &[&str]) {
    let mut lines = said.iter();
    for want in expected {
        assert!(
            lines.any(|line| line == want),
            "missing {want:?} (or out of order) in {said:#?}"
        );
    }
}

const ASKED: &str = r#"[interrupt int-call_unlock_door_1] tool_call: Approve unlock_door({"door":"front"})? (tool call call_unlock_door_1)"#;

#[test]
fn a_question_in_the_window_answered_with_the_y_key() {
    const XK_Y: u32 = 0x79;
    let said = approval(|p| p.key(XK_Y), "window-approval-approved");
    in_order(
        &said,
        &[
            ASKED,
            "agui-kiosk: asking: press Y or N, or click the answer",
            "[answer int-call_unlock_door_1] approved",
        ],
    );
}

#[test]
fn a_question_in_the_window_answered_with_a_click_on_no() {
    // The answers are the panel's last row (10 pixels): "no" is its right
    // side.
    let said = approval(
        |p| p.click(WIDTH as i32 * 3 / 4, HEIGHT as i32 - 5),
        "window-approval-denied",
    );
    in_order(&said, &[ASKED, "[answer int-call_unlock_door_1] denied"]);
}

#[test]
fn fullscreen_fills_an_800x480_panel() {
    fills_the_screen(800, 480);
}

#[test]
fn fullscreen_fills_a_1920x1080_screen() {
    fills_the_screen(1920, 1080);
}
