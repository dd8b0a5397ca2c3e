//! `agui-kiosk --url`: the live conversation with the pydantic-ai test
//! backend (`examples/agents/`) in a window on a virtual X display (Xvfb),
//! screenshot with ImageMagick's `import` and compared with a golden image;
//! `--fullscreen` on larger screens (800x480, 1920x1080) fills them.
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

#[test]
fn fullscreen_fills_an_800x480_panel() {
    fills_the_screen(800, 480);
}

#[test]
fn fullscreen_fills_a_1920x1080_screen() {
    fills_the_screen(1920, 1080);
}
