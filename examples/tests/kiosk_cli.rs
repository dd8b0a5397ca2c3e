//! `agui-kiosk` writes its screenshots: the final frame, one per N events,
//! colour and monochrome, at a scale; exit codes for rejected streams and
//! bad arguments.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

mod cli;
mod scratch;

fn kiosk(args: &[&str], stdin: &[u8]) -> Output {
    cli::run(env!("CARGO_BIN_EXE_agui-kiosk"), args, stdin)
}

/// A fresh empty directory for one test's pictures.
fn out_dir(name: &str) -> scratch::Scratch {
    scratch::Scratch::new("agui-kiosk-cli", name)
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/chat.ndjson")
}

/// Width, height and colour type of a PNG.
fn png_info(path: &Path) -> (u32, u32, png::ColorType) {
    let decoder = png::Decoder::new(std::io::BufReader::new(fs::File::open(path).unwrap()));
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    (info.width, info.height, info.color_type)
}

fn pngs(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn writes_the_final_frame_in_colour_by_default() {
    let dir = out_dir("colour");
    let out = kiosk(
        &[sample().to_str().unwrap(), "--out", dir.to_str().unwrap()],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(pngs(&dir), ["kiosk.png"]);
    assert_eq!(
        png_info(&dir.join("kiosk.png")),
        (320, 240, png::ColorType::Rgb)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("wrote ") && stdout.contains("31 events"),
        "{stdout}"
    );
}

#[test]
fn every_n_events_mono_and_scale() {
    let dir = out_dir("mono");
    let args = [
        "-",
        "--out",
        dir.to_str().unwrap(),
        "--mono",
        "--every",
        "10",
        "--name",
        "oled",
        "--scale",
        "2",
    ];
    let out = kiosk(&args, &fs::read(sample()).unwrap());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        pngs(&dir),
        [
            "oled-0010.png",
            "oled-0020.png",
            "oled-0030.png",
            "oled.png"
        ]
    );
    for name in pngs(&dir) {
        assert_eq!(
            png_info(&dir.join(name)),
            (256, 128, png::ColorType::Grayscale)
        );
    }
}

#[test]
fn a_chosen_size_and_sse_input() {
    let dir = out_dir("size");
    let sse = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/chat.sse");
    let out = kiosk(
        &[
            sse.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
            "--size",
            "240x160",
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        png_info(&dir.join("kiosk.png")),
        (240, 160, png::ColorType::Rgb)
    );
}

#[test]
fn a_rejected_stream_still_writes_its_picture_and_exits_1() {
    let dir = out_dir("rejected");
    let stream = concat!(
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
        "\n",
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"nope","delta":"x"}"#,
        "\n"
    );
    let out = kiosk(&["-", "--out", dir.to_str().unwrap()], stream.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("agui-kiosk: frame 1"));
    assert_eq!(pngs(&dir), ["kiosk.png"]);
}

#[test]
fn bad_arguments_exit_2() {
    for args in [
        &["--size", "320"][..],
        &["--size", "0x10"][..],
        &["--every", "0"][..],
        &["/no/such/file.ndjson"][..],
    ] {
        let out = kiosk(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}
