//! Shared helpers: replaying streams, golden images, synthetic streams.
#![allow(dead_code)] // each test file uses its own subset

use std::fs;
use std::path::{Path, PathBuf};

use agui_alloc::client::Client;
use agui_kiosk::framebuffer::Framebuffer;
use agui_kiosk::{Config, DrawStats, Kiosk, Theme};
use embedded_graphics::pixelcolor::{BinaryColor, Gray8, Rgb565, Rgb888};
use embedded_graphics::prelude::*;
use serde_json::{json, Value};

/// Most pixels that may differ from a golden image: 0.5%.
pub const TOLERANCE: f64 = 0.005;

pub const COLOR: Size = Size::new(320, 240);
pub const MONO: Size = Size::new(128, 64);

pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The bundled sample conversation.
pub fn sample() -> Vec<u8> {
    fs::read(manifest_dir().join("../examples/samples/chat.ndjson")).unwrap()
}

/// What one input line cost.
#[derive(Debug, Clone)]
pub struct Step {
    /// The frame's `type`, if the line was a JSON object.
    pub kind: String,
    /// Pixels sent to the panel by the draw after it.
    pub pixels: u64,
    pub stats: DrawStats,
}

/// A replay: the kiosk, the client and the panel after the last event.
pub struct Replay<C> {
    pub kiosk: Kiosk<C>,
    pub client: Client,
    pub panel: Framebuffer<C>,
    pub steps: Vec<Step>,
}

/// Feeds `input` line by line and draws after each line that completed an
/// event (as agui-kiosk does). Stream errors are shown, not fatal.
pub fn replay<C: PixelColor>(input: &[u8], size: Size, theme: Theme<C>) -> Replay<C> {
    let mut panel = Framebuffer::new(size, theme.background);
    let mut kiosk = Kiosk::new(Config::new(size), theme);
    let mut client = Client::new();
    let mut steps = Vec::new();
    let mut seen = 0;
    for line in input.split_inclusive(|&b| b == b'\n') {
        let fed = client.feed_with(line, &mut kiosk);
        if client.accepted() == seen && fed.is_ok() {
            continue;
        }
        seen = client.accepted();
        if let Err(e) = &fed {
            kiosk.set_stream_error(&e.to_string());
        }
        panel.reset_written();
        let stats = kiosk
            .draw(client.messages(), client.state(), &mut panel)
            .unwrap();
        let kind = serde_json::from_slice::<Value>(line)
            .ok()
            .and_then(|v| v["type"].as_str().map(str::to_owned))
            .unwrap_or_default();
        steps.push(Step {
            kind,
            pixels: panel.written(),
            stats,
        });
        if fed.is_err() {
            break;
        }
    }
    if client.error().is_none() {
        if let Err(e) = client.finish_with(&mut kiosk) {
            kiosk.set_stream_error(&e.to_string());
        }
    }
    kiosk
        .draw(client.messages(), client.state(), &mut panel)
        .unwrap();
    Replay {
        kiosk,
        client,
        panel,
        steps,
    }
}

/// Feeds all of `input` first and draws once: the reference the
/// incremental replay must match exactly.
pub fn render_once<C: PixelColor>(input: &[u8], size: Size, theme: Theme<C>) -> Framebuffer<C> {
    render_once_replay(input, size, theme).panel
}

/// [`render_once`], keeping the kiosk and the client.
pub fn render_once_replay<C: PixelColor>(input: &[u8], size: Size, theme: Theme<C>) -> Replay<C> {
    let mut panel = Framebuffer::new(size, theme.background);
    let mut kiosk = Kiosk::new(Config::new(size), theme);
    let mut client = Client::new();
    let mut failed = false;
    for line in input.split_inclusive(|&b| b == b'\n') {
        if let Err(e) = client.feed_with(line, &mut kiosk) {
            kiosk.set_stream_error(&e.to_string());
            failed = true;
            break;
        }
    }
    if !failed {
        if let Err(e) = client.finish_with(&mut kiosk) {
            kiosk.set_stream_error(&e.to_string());
        }
    }
    kiosk
        .draw(client.messages(), client.state(), &mut panel)
        .unwrap();
    Replay {
        kiosk,
        client,
        panel,
        steps: Vec::new(),
    }
}

/// Asserts that an incremental replay and a one-shot render show the same
/// picture; on failure shows both as text.
pub fn assert_same_replay<C: PixelColor>(name: &str, a: &Replay<C>, b: &Replay<C>) {
    let differing = a
        .panel
        .pixels()
        .iter()
        .zip(b.panel.pixels())
        .filter(|(x, y)| x != y)
        .count();
    if differing > 0 {
        let rows: Vec<String> = a
            .kiosk
            .text_rows()
            .iter()
            .zip(b.kiosk.text_rows())
            .map(|(x, y)| format!("{x:40} | {y}"))
            .collect();
        panic!(
            "{name}: {differing} pixels differ between drawing after each event and once\n{}",
            rows.join("\n")
        );
    }
}

pub fn colour(input: &[u8]) -> Replay<Rgb565> {
    replay(input, COLOR, Theme::default())
}

pub fn mono(input: &[u8]) -> Replay<BinaryColor> {
    replay(input, MONO, Theme::mono())
}

/// Asserts that two panels hold the same picture, saying how many pixels
/// differ if not.
pub fn assert_same<C: PixelColor>(a: &Framebuffer<C>, b: &Framebuffer<C>) {
    assert_eq!(a.size(), b.size());
    let differing = a
        .pixels()
        .iter()
        .zip(b.pixels())
        .filter(|(x, y)| x != y)
        .count();
    assert_eq!(differing, 0, "{differing} pixels differ");
}

/// Compares `panel` with `tests/golden/NAME.png`, or writes it when
/// `UPDATE_GOLDEN=1` is set.
pub fn check_golden<C: PixelColor>(name: &str, panel: &Framebuffer<C>)
where
    Rgb888: From<C>,
    Gray8: From<C>,
{
    let path = manifest_dir()
        .join("tests/golden")
        .join(format!("{name}.png"));
    let size = panel.size();
    // Grayscale for the monochrome panels keeps their files tiny.
    let gray = panel.pixels().iter().all(|&c| {
        let c = Rgb888::from(c);
        c.r() == c.g() && c.g() == c.b()
    });
    let (data, color) = if gray {
        (panel.to_gray8(), png::ColorType::Grayscale)
    } else {
        (panel.to_rgb8(), png::ColorType::Rgb)
    };
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        write_png(&path, size, color, &data);
        return;
    }
    let Some((golden_size, golden)) = read_png_rgb(&path) else {
        panic!(
            "no golden image {}: run `UPDATE_GOLDEN=1 cargo test -p agui-kiosk` and check the picture",
            path.display()
        );
    };
    assert_eq!(golden_size, size, "{name}: golden image size");
    let ours = panel.to_rgb8();
    let differing = ours
        .chunks(3)
        .zip(golden.chunks(3))
        .filter(|(a, b)| a != b)
        .count();
    let total = (size.width * size.height) as usize;
    let share = differing as f64 / total as f64;
    if share > TOLERANCE {
        let actual = std::env::temp_dir().join(format!("agui-kiosk-{name}-actual.png"));
        write_png(&actual, size, png::ColorType::Rgb, &ours);
        panic!(
            "{name}: {differing} of {total} pixels ({:.2}%) differ from {} (tolerance {:.1}%); this run's picture is {}",
            share * 100.0,
            path.display(),
            TOLERANCE * 100.0,
            actual.display()
        );
    }
}

pub fn write_png(path: &Path, size: Size, color: png::ColorType, data: &[u8]) {
    let file = std::io::BufWriter::new(fs::File::create(path).unwrap());
    let mut encoder = png::Encoder::new(file, size.width, size.height);
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::High);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(data).unwrap();
    writer.finish().unwrap();
}

/// A PNG as 8-bit RGB, whatever its colour type.
pub fn read_png_rgb(path: &Path) -> Option<(Size, Vec<u8>)> {
    let file = fs::File::open(path).ok()?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    let size = Size::new(info.width, info.height);
    let rgb = match info.color_type {
        png::ColorType::Rgb => buf,
        png::ColorType::Rgba => buf.chunks(4).flat_map(|p| [p[0], p[1], p[2]]).collect(),
        png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g]).collect(),
        png::ColorType::GrayscaleAlpha => buf.chunks(2).flat_map(|p| [p[0], p[0], p[0]]).collect(),
        png::ColorType::Indexed => unreachable!("EXPAND turns palettes into RGB"),
    };
    Some((size, rgb))
}

/// NDJSON for a list of event objects.
pub fn ndjson(events: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for e in events {
        out.extend_from_slice(serde_json::to_string(e).unwrap().as_bytes());
        out.push(b'\n');
    }
    out
}

/// A long assistant reply streamed in small deltas, after a user question.
/// Deterministic: the deltas are cut by a fixed linear congruential
/// sequence, 2 to 8 bytes each (at character boundaries).
pub fn long_reply() -> Vec<u8> {
    let mut events = vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "long",
               "input": {"threadId": "t", "runId": "long", "state": {}, "tools": [], "context": [],
                         "forwardedProps": {},
                         "messages": [{"id": "u1", "role": "user",
                                       "content": "Tell me about the terrace sensors, in detail."}]}}),
        json!({"type": "STEP_STARTED", "stepName": "answer"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "a1", "role": "assistant"}),
    ];
    let mut seed: u32 = 7;
    let text = LONG_TEXT;
    let mut at = 0;
    while at < text.len() {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let mut end = (at + 2 + (seed >> 16) as usize % 7).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        events.push(
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": &text[at..end]}),
        );
        at = end;
    }
    events.push(json!({"type": "TEXT_MESSAGE_END", "messageId": "a1"}));
    events.push(json!({"type": "STEP_FINISHED", "stepName": "answer"}));
    events.push(json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "long"}));
    ndjson(&events)
}

/// About 1.7 KB: plain prose, a line break, a long unbroken word, Latin-1,
/// emoji and CJK.
pub const LONG_TEXT: &str = "The terrace has four sensors. The first one, by the door, \
measures temperature and humidity every thirty seconds and reports them over the local \
bus; it has been stable for months. The second one watches the wind: above forty km/h \
the awning folds itself and the kiosk shows a warning. The third one is a rain gauge \
with a small heater, so that it also works in winter. The fourth one counts people \
walking in and out, which the café uses to plan its staff.\n\
Firmware versions are listed at \
https://example.invalid/terrace/sensors/firmware/releases/latest-stable-build-2024 \
and every sensor checks for an update at night. Readings right now: 23 °C, 41 % \
humidity, wind 9 km/h from the north-west, no rain ☀️🌤 and 12 guests seated. \
(Tokyo office note: 東京オフィスのセンサーも同じ設定です。) If any value looks wrong, \
the sensor can be restarted from the maintenance page; it takes about a minute and the \
readings resume on their own. Nothing else needs your attention today: the system is \
healthy, the batteries are above eighty percent, and the next scheduled service is in \
three weeks. Would you like me to open the awning, change the light colour, or send \
the daily report to the manager? I can also show the last seven days as a small chart \
on this screen, or keep watching the wind and tell you if it picks up. Have a nice day.";
