//! The `kiosk` firmware on the QEMU board's OLED (`examples/qemu/kiosk.sh`):
//! the screenshot after the sample conversation matches the golden image
//! and shows the end of the last message; streams that outgrow the heap
//! end with a clear error on UART0, never a fault. And live, behind
//! agui-gateway against the pydantic-ai backend (`examples/qemu/kiosk-live.sh`):
//! the screenshot after the agent's answer.
//!
//! Needs `qemu-system-arm` and the `thumbv7m-none-eabi` target (`.ci/run`
//! installs both); the scripts build the firmware. The live test also needs
//! the backends' venv (`examples/agents/setup.sh`, or `$AGUI_PYTHON`).

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

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
