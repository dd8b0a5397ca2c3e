//! The `kiosk` firmware on the QEMU board's OLED (`examples/qemu/kiosk.sh`):
//! the screenshot after the sample conversation matches the golden image
//! and shows the end of the last message; streams that outgrow the heap
//! end with a clear error on UART0, never a fault. And live, behind
//! agui-gateway against the pydantic-ai backend (`examples/qemu/kiosk-live.sh`):
//! the screenshot after the agent's answer, and the same picture again after
//! the board is restarted mid-conversation (`--reconnect`).
//!
//! Needs `qemu-system-arm` and the `thumbv7m-none-eabi` target (`.ci/run`
//! installs both); the scripts build the firmware. The live test also needs
//! the backends' venv (`examples/agents/setup.sh`, or `$AGUI_PYTHON`).

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Output, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

mod backend;
mod scratch;

use agui_alloc::client::Client;
use backend::Backend;

use agui_kiosk::framebuffer::Framebuffer;
use embedded_graphics::mono_font::{iso_8859_1::FONT_5X8, MonoTextStyle};
use embedded_graphics::pixelcolor::BinaryColor;
use embedded_graphics::prelude::*;
use embedded_graphics::text::{Baseline, Text};

/// QEMU shows each OLED pixel as a 4x4 block.
const MAGNIFY: usize = 4;
const WIDTH: usize = 128;
const HEIGHT: usize = 64;

fn examples_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh directory for one test's files.
fn work_dir(name: &str) -> scratch::Scratch {
    scratch::Scratch::new("agui-oled", name)
}

/// Runs kiosk.sh on `stream`.
fn kiosk_sh(stream: &Path, png: &Path) -> Output {
    script(
        Command::new("bash")
            .arg(examples_dir().join("qemu/kiosk.sh"))
            .arg(stream)
            .arg(png),
    )
}

/// Runs one of the QEMU scripts; fails clearly if QEMU is missing, and
/// with everything it said if it fails.
fn script(cmd: &mut Command) -> Output {
    let found = Command::new("qemu-system-arm").arg("--version").output();
    assert!(
        found.is_ok_and(|o| o.status.success()),
        "qemu-system-arm is needed for the OLED tests (apt-get install qemu-system-arm; .ci/run installs it)"
    );
    let out = cmd.output().expect("bash runs the script");
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Whether at most 0.5 % of the pixels differ by more than a quarter of the
/// grey range from the golden image `name` (a scaler or a QEMU palette
/// change may move a few).
fn matches_golden(shot: &Path, name: &str) -> Vec<u8> {
    let (w, h, got) = read_gray(shot);
    let (gw, gh, golden) = read_gray(&examples_dir().join("tests/golden").join(name));
    assert_eq!(
        (w, h),
        (WIDTH * MAGNIFY, HEIGHT * MAGNIFY),
        "screendump size"
    );
    assert_eq!((w, h), (gw, gh), "golden size");
    let differ = got
        .iter()
        .zip(&golden)
        .filter(|(a, b)| a.abs_diff(**b) > 64)
        .count();
    assert!(
        differ * 200 < got.len(),
        "{differ} of {} pixels differ from examples/tests/golden/{name} (new screenshot: {})",
        got.len(),
        shot.display()
    );
    got
}

/// A grey PNG's size and pixels.
fn read_gray(path: &Path) -> (usize, usize, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(
        info.color_type,
        png::ColorType::Grayscale,
        "{}",
        path.display()
    );
    buf.truncate(info.buffer_size());
    (info.width as usize, info.height as usize, buf)
}

/// The 128x64 panel behind a screendump: lit where the 4x4 block is bright.
fn panel_bits(pixels: &[u8]) -> Vec<bool> {
    let mut bits = Vec::with_capacity(WIDTH * HEIGHT);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let centre = (y * MAGNIFY + 1) * WIDTH * MAGNIFY + x * MAGNIFY + 1;
            bits.push(pixels[centre] >= 128);
        }
    }
    bits
}

/// `text` in the kiosk's OLED font, lit on dark, as rows of bits.
fn glyphs(text: &str) -> (usize, usize, Vec<bool>) {
    let size = Size::new(5 * text.chars().count() as u32, 8);
    let mut fb = Framebuffer::new(size, BinaryColor::Off);
    Text::with_baseline(
        text,
        Point::zero(),
        MonoTextStyle::new(&FONT_5X8, BinaryColor::On),
        Baseline::Top,
    )
    .draw(&mut fb)
    .unwrap();
    let bits = fb.pixels().iter().map(|c| c.is_on()).collect();
    (size.width as usize, size.height as usize, bits)
}

/// Whether the `w`x`h` bitmap `needle` appears anywhere in the panel.
fn contains(panel: &[bool], (w, h, needle): &(usize, usize, Vec<bool>)) -> bool {
    (0..=HEIGHT - h).any(|y| {
        (0..=WIDTH - w).any(|x| {
            (0..*h)
                .all(|dy| (0..*w).all(|dx| panel[(y + dy) * WIDTH + x + dx] == needle[dy * w + dx]))
        })
    })
}

/// The last word of the last message of `stream`, as the host folds it.
fn last_word(stream: &[u8]) -> String {
    let mut client = Client::new();
    client.feed(stream).unwrap();
    client.finish().unwrap();
    let text = client.messages().last().unwrap().text().unwrap().to_owned();
    text.split_whitespace().last().unwrap().to_owned()
}

#[test]
fn the_sample_conversation_on_the_oled_matches_the_golden_image() {
    let dir = work_dir("sample");
    let stream = examples_dir().join("samples/chat.ndjson");
    let shot = dir.join("oled.png");
    let out = kiosk_sh(&stream, &shot);
    let uart = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        uart.trim_end(),
        "kiosk: done accepted=31",
        "UART0 said:\n{uart}"
    );

    let got = matches_golden(&shot, "oled-chat.png");

    let word = last_word(&fs::read(&stream).unwrap());
    assert_eq!(word, "green.", "the sample's last message ends so");
    assert!(
        contains(&panel_bits(&got), &glyphs(&word)),
        "the last message's last word {word:?} is not on the OLED ({})",
        shot.display()
    );
}

/// Writes NDJSON frames to `path`.
fn write_stream(path: &Path, frames: &[serde_json::Value]) {
    let text: String = frames.iter().map(|f| format!("{f}\n")).collect();
    fs::write(path, text).unwrap();
}

fn run_started() -> serde_json::Value {
    serde_json::json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
}

/// Many messages: the client's message-byte limit, which counts what each
/// message keeps (its strings and a fixed charge for its value and index
/// entries), refuses the stream before the 44 KB heap runs out (before
/// the limit counted those charges, the heap ran out first, and the
/// panic handler's `heap_exhausted` line was the only word of it).
#[test]
fn many_messages_stop_at_the_message_byte_limit_before_the_heap_runs_out() {
    let dir = work_dir("many");
    let mut frames = vec![run_started()];
    for i in 0..60 {
        let id = format!("m{i}");
        frames.push(
            serde_json::json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"}),
        );
        let delta = format!("word{i} ").repeat(25);
        frames.push(
            serde_json::json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": delta}),
        );
        frames.push(serde_json::json!({"type": "TEXT_MESSAGE_END", "messageId": id}));
    }
    let stream = dir.join("many.ndjson");
    write_stream(&stream, &frames);
    let out = kiosk_sh(&stream, &dir.join("oled.png"));
    let uart = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = uart.lines().collect();
    assert_eq!(lines.len(), 2, "UART0 said:\n{uart}");
    assert!(
        lines[0].starts_with("kiosk: error capacity: ") && lines[0].contains("max_message_bytes"),
        "UART0 said:\n{uart}"
    );
    assert!(
        lines[1].starts_with("kiosk: done accepted="),
        "UART0 said:\n{uart}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("heap: peak "), "{stderr}");
}

#[test]
fn one_message_over_its_limit_is_a_capacity_error_on_the_uart() {
    let dir = work_dir("long");
    let mut frames = vec![
        run_started(),
        serde_json::json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
    ];
    for i in 0..400 {
        let delta = format!("piece {i:03} ").repeat(2);
        frames.push(
            serde_json::json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": delta}),
        );
    }
    let stream = dir.join("long.ndjson");
    write_stream(&stream, &frames);
    let out = kiosk_sh(&stream, &dir.join("oled.png"));
    let uart = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = uart.lines().collect();
    assert_eq!(lines.len(), 2, "UART0 said:\n{uart}");
    assert!(
        lines[0].starts_with("kiosk: error capacity: ") && lines[0].contains("max_message_bytes"),
        "UART0 said:\n{uart}"
    );
    assert!(
        lines[1].starts_with("kiosk: done accepted="),
        "UART0 said:\n{uart}"
    );
}

#[test]
fn live_behind_the_gateway_the_answer_is_on_the_oled() {
    let backend = Backend::start("pydantic_server.py");
    let url = backend.url.clone();
    let dir = work_dir("live");
    let shot = dir.join("oled.png");
    let out = script(
        Command::new("bash")
            .arg(examples_dir().join("qemu/kiosk-live.sh"))
            .arg(&url)
            .arg(&shot)
            .env("AGUI_GATEWAY", env!("CARGO_BIN_EXE_agui-gateway")),
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.lines()
            .any(|l| l.trim_start().starts_with("kiosk: done accepted=")),
        "the gateway printed:\n{said}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.matches(": finished (").count(),
        2,
        "two finished runs (the tool call, the answer):\n{stderr}"
    );
    let got = matches_golden(&shot, "oled-live.png");
    // The scripted answer quotes the firmware's tool result, "LED green on".
    assert!(
        contains(&panel_bits(&got), &glyphs("green"))
            && contains(&panel_bits(&got), &glyphs("on\".")),
        "the agent's answer is not on the OLED ({})",
        shot.display()
    );
}

/// A board that restarts mid-conversation redraws it (docs/SPEC.md
/// section 11, "A device that comes back"): the live kiosk (`stay`: no
/// DONE after the answer) behind `agui-gateway --reconnect`; once the
/// answer is shown the OLED is dumped and QEMU quits (the board is gone),
/// a new QEMU starts the firmware again on the same port, the gateway
/// reconnects and sends the conversation so far, and the OLED then shows
/// the same picture, pixel for pixel, without a run at the agent.
#[test]
fn a_restarted_kiosk_redraws_the_same_conversation() {
    let backend = Backend::start("pydantic_server.py");
    let dir = work_dir("restart");
    let elf = kiosk_elf();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let board = |n: u32| {
        let monitor = dir.join(format!("monitor-{n}"));
        let qemu = Guard(
            Command::new("qemu-system-arm")
                .args([
                    "-cpu",
                    "cortex-m3",
                    "-machine",
                    "lm3s6965evb",
                    "-display",
                    "none",
                ])
                .arg("-monitor")
                .arg(format!("unix:{},server=on,wait=off", monitor.display()))
                .arg("-serial")
                .arg(format!("tcp:127.0.0.1:{port},server=on,wait=on"))
                .args([
                    "-semihosting-config",
                    "enable=on,target=native,arg=kiosk,arg=live,arg=stay",
                    "-kernel",
                ])
                .arg(&elf)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("qemu-system-arm runs"),
        );
        let started = Instant::now();
        while !monitor.exists() {
            assert!(started.elapsed() < WAIT, "QEMU's monitor socket");
            std::thread::sleep(Duration::from_millis(20));
        }
        (qemu, monitor)
    };
    // QEMU quits after the dump: the board is gone.
    let dump = |monitor: &Path, name: &str| {
        let shot = dir.join(format!("{name}.png"));
        let status = Command::new("python3")
            .arg(examples_dir().join("qemu/screendump.py"))
            .arg(monitor)
            .arg(dir.join(format!("{name}.ppm")))
            .arg(&shot)
            .status()
            .unwrap();
        assert!(status.success(), "screendump.py");
        shot
    };

    let (qemu, monitor) = board(1);
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_agui-gateway"))
        .arg(&backend.url)
        .args(["--tcp", &format!("127.0.0.1:{port}"), "--reconnect", "60"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let said = lines(gateway.stdout.take().unwrap());
    let gateway = Guard(gateway);
    let until = |prefix: &str| loop {
        let line = said
            .recv_timeout(WAIT)
            .unwrap_or_else(|_| panic!("no {prefix:?} from the kiosk within {WAIT:?}"));
        if let Some(rest) = line.trim_start().strip_prefix(prefix) {
            return rest.to_owned();
        }
    };
    let messages = until("kiosk: showing messages=");
    let before = dump(&monitor, "before");
    drop(qemu);

    let (_qemu, monitor) = board(2);
    // The kiosk holds what the gateway holds: its own lines too.
    assert_eq!(messages, "5", "user, reasoning, tool call, result, answer");
    assert_eq!(until("kiosk: resumed messages="), messages);
    assert_eq!(until("kiosk: showing messages="), messages);
    let after = dump(&monitor, "after");
    let (_, _, then) = read_gray(&before);
    let (_, _, now) = read_gray(&after);
    assert!(
        then == now,
        "the restarted kiosk shows another picture: {} then, {} now",
        before.display(),
        after.display()
    );
    let got = matches_golden(&after, "oled-live.png");
    assert!(
        contains(&panel_bits(&got), &glyphs("green")),
        "the agent's answer is not on the OLED ({})",
        after.display()
    );
    let out = {
        let mut gateway = gateway;
        let _ = gateway.0.kill();
        gateway.0.wait_with_output_taken()
    };
    for line in [
        "agui-gateway: the device is back on tcp ",
        "agui-gateway: the device came back: resynchronising run resync-2 (",
    ] {
        assert!(out.contains(line), "{line:?} in\n{out}");
    }
    assert_eq!(
        out.matches(": finished (").count(),
        2,
        "no run for the restart:\n{out}"
    );
}

/// Seconds a step of the restart test may take.
const WAIT: Duration = Duration::from_secs(120);

/// The `kiosk` firmware, built once (release, its own workspace).
fn kiosk_elf() -> std::path::PathBuf {
    let fw = examples_dir().join("firmware");
    let status = Command::new("cargo")
        .args([
            "build",
            "--release",
            "--quiet",
            "--features",
            "kiosk",
            "--bin",
            "kiosk",
        ])
        .current_dir(&fw)
        .env_remove("CARGO_TARGET_DIR")
        .status()
        .unwrap();
    assert!(status.success(), "cannot build the kiosk firmware");
    fw.join("target/thumbv7m-none-eabi/release/kiosk")
}

/// A child process killed when dropped, even when the test fails.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

trait StderrText {
    /// Waits for the (killed) child and returns its stderr as text.
    fn wait_with_output_taken(&mut self) -> String;
}

impl StderrText for Child {
    fn wait_with_output_taken(&mut self) -> String {
        let mut text = String::new();
        if let Some(mut stderr) = self.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        }
        let _ = self.wait();
        text
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
