//! agui-kiosk: replays an AG-UI stream onto an in-memory panel with the
//! kiosk renderer and writes PNG screenshots, or shows a live conversation
//! with an agent in a window.
//!
//! ```text
//! agui-kiosk [FILE|-] [--out DIR] [--name NAME] [--size WxH] [--mono]
//!            [--every N] [--scale K]
//! agui-kiosk --url URL --message TEXT [--fullscreen] [--tool NAME=COMMAND]...
//!            [--size WxH] [--mono] [--scale K] [--max-runs N]
//! ```
//!
//! With `--url`, the message starts a run against the agent over HTTP and
//! the conversation is drawn in an X11 window at the panel size (times
//! `--scale`), updated after every event as it arrives. `--fullscreen`
//! makes it a borderless window on top that fills the screen: the scale is
//! `--scale` or the largest whole factor at which the default panel
//! (320x240, 128x64 with `--mono`) fits, and the conversation is laid out
//! at the screen's size over that scale (an 800x480 screen: 400x240 at 2x;
//! 1920x1080: 480x270 at 4x). With `--size`, that panel is enlarged by the
//! scale and centred instead. Frontend tools are declared and
//! answered as in agui-chat. When the agent asks a person (interrupts),
//! each question shows in a prompt panel: the Y or N key, or a click on
//! its row of answers, approves or denies it and the resuming run starts.
//! The window stays until closed (or Escape).
//!
//! The stream (SSE or NDJSON, detected) is fed line by line, as it would
//! arrive, and the panel is brought up to date after every event, so the
//! pictures come from the same incremental redraw a device runs. It writes
//! `DIR/NAME.png` (the final frame; NAME defaults to `kiosk`) and, with
//! `--every N`, `DIR/NAME-NNNN.png` after every N-th event (NNNN counts the
//! stream's events). `--scale K` enlarges the PNGs K times (nearest
//! neighbour) for documents; the panel itself is unchanged. Colour panels are Rgb565
//! (320x240 by default); `--mono` draws a BinaryColor panel, 128x64 by
//! default, like a small OLED. With no FILE and a terminal on stdin it
//! replays the bundled sample conversation.
//!
//! Exit status: 0, 1 if the stream was rejected (the pictures show the
//! error on the status line), 2 for bad arguments or I/O errors.

use std::fs;
use std::io::{self, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use agui_alloc::client::{Client, Limits};
use agui_examples::flags::{self, EncodingArg, LimitFlags};
use agui_examples::headers;
use agui_examples::tool_command::{MAX_TOOL_CALLS, TOOL_TIMEOUT};
use agui_kiosk::framebuffer::Framebuffer;
use agui_kiosk::{Config, Kiosk, Theme};
use clap::Parser;

mod live;
use embedded_graphics::pixelcolor::{Gray8, Rgb565, Rgb888};
use embedded_graphics::prelude::{OriginDimensions, PixelColor, Size};

/// The conversation replayed when no input is given.
const SAMPLE: &[u8] = include_bytes!("../../../samples/chat.ndjson");

/// Replays an AG-UI stream onto a simulated panel and writes PNG
/// screenshots, or shows a live conversation with an agent in a window
/// (--url).
#[derive(Parser, Debug)]
#[command(name = "agui-kiosk", version)]
struct Args {
    /// The stream (SSE or NDJSON); `-` for stdin. Without it: stdin, or the
    /// bundled sample if stdin is a terminal.
    file: Option<PathBuf>,
    /// Where to write the PNG files.
    #[arg(long, default_value = ".")]
    out: PathBuf,
    /// File name of the screenshots, without `.png`.
    #[arg(long, default_value = "kiosk")]
    name: String,
    /// Panel size in pixels, WIDTHxHEIGHT [default: 320x240, or 128x64 with --mono].
    #[arg(long, value_parser = parse_size)]
    size: Option<Size>,
    /// A monochrome (BinaryColor) panel, like an SSD1306/SSD0323 OLED.
    #[arg(long)]
    mono: bool,
    /// Also write a frame after every N-th event.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    every: Option<u32>,
    /// Enlarge the PNGs (or the window) K times (pixels stay square and
    /// sharp) [default: 1; with --fullscreen, the largest that fits 320x240,
    /// or 128x64 with --mono, on the screen].
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=16))]
    scale: Option<u32>,
    /// Talk to the agent at URL and show the conversation live in a window.
    #[arg(long, value_name = "URL", conflicts_with_all = ["file", "every", "out", "name"], requires = "message")]
    url: Option<String>,
    /// The first user message (with --url).
    #[arg(long, value_name = "TEXT", requires = "url")]
    message: Option<String>,
    /// A borderless window on top, filling the screen (with --url): the
    /// conversation is laid out at the screen's size over the scale (with
    /// --size, that panel is enlarged and centred).
    #[arg(long, requires = "url")]
    fullscreen: bool,
    /// A frontend tool (with --url): when the agent calls NAME, run COMMAND
    /// under `sh -c` with the arguments on stdin; its trimmed stdout is the
    /// result.
    #[arg(long = "tool", value_name = "NAME=COMMAND", requires = "url")]
    tools: Vec<String>,
    /// Most runs for the message, tool follow-ups included (with --url).
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..))]
    max_runs: u32,
    /// Most calls to declared tools run in one run (with --url); the calls
    /// beyond get an error result.
    #[arg(long, value_name = "N", default_value_t = MAX_TOOL_CALLS, value_parser = clap::value_parser!(u32).range(1..), requires = "url")]
    max_tool_calls: u32,
    /// Seconds a tool's command may run (with --url); then it is killed and
    /// the call gets an error result.
    #[arg(long, value_name = "SECS", default_value_t = TOOL_TIMEOUT.as_secs_f64(), requires = "url")]
    tool_timeout: f64,
    /// Seconds a run may take in all (with --url; default: no limit).
    #[arg(long, value_name = "SECS", requires = "url")]
    max_run_time: Option<f64>,
    /// An HTTP header for every request (with --url): `'Name: value'`, or
    /// `@FILE` for a file of such lines; `$AGUI_HEADERS` likewise. Checked
    /// at start-up; a value is never shown.
    #[arg(long = "header", value_name = "HEADER", requires = "url")]
    headers: Vec<String>,
    /// Most messages the conversation keeps; the event that would make one
    /// more is refused.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_messages)]
    max_messages: usize,
    #[command(flatten)]
    limits: LimitFlags,
    /// The encoding to ask the agent for (with --url); the response's
    /// Content-Type decides how it is read.
    #[arg(long, value_enum, default_value_t = EncodingArg::Sse, requires = "url")]
    encoding: EncodingArg,
}

fn parse_size(s: &str) -> Result<Size, String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected WIDTHxHEIGHT, got {s:?}"))?;
    let w: u32 = w.trim().parse().map_err(|e| format!("width: {e}"))?;
    let h: u32 = h.trim().parse().map_err(|e| format!("height: {e}"))?;
    if w == 0 || h == 0 || w > 4096 || h > 4096 {
        return Err(format!("size must be 1..=4096 on each side, got {w}x{h}"));
    }
    Ok(Size::new(w, h))
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let (Some(url), Some(message)) = (&args.url, &args.message) {
        return live_main(&args, url, message);
    }
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("agui-kiosk: {e}");
            ExitCode::from(2)
        }
    }
}

/// `--url`: the live window. Exit status as for a replay.
fn live_main(args: &Args, url: &str, message: &str) -> ExitCode {
    let live = live::Live {
        url,
        message,
        fullscreen: args.fullscreen,
        size: args.size,
        mono: args.mono,
        scale: args.scale,
        tools: &args.tools,
        max_runs: args.max_runs,
        max_tool_calls: args.max_tool_calls,
        limits: args.limits.limits(args.max_messages),
        tool_timeout: match seconds(args.tool_timeout, "tool-timeout") {
            Ok(d) => d,
            Err(e) => return usage(&e),
        },
        max_run_time: match args
            .max_run_time
            .map(|s| seconds(s, "max-run-time"))
            .transpose()
        {
            Ok(d) => d,
            Err(e) => return usage(&e),
        },
        headers: match headers::collect(&args.headers) {
            Ok(h) => h,
            Err(e) => return usage(&e),
        },
        encoding: args.encoding.encoding(),
    };
    match live::run(&live) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("agui-kiosk: {e}");
            ExitCode::from(2)
        }
    }
}

/// A positive number of seconds, or a usage error naming the flag.
fn seconds(s: f64, flag: &str) -> Result<Duration, String> {
    flags::seconds(s).map_err(|e| format!("--{flag} {e}"))
}

fn usage(reason: &str) -> ExitCode {
    eprintln!("agui-kiosk: {reason}");
    ExitCode::from(2)
}

/// Replays the input; `Ok(false)` if the stream was rejected.
fn run(args: &Args) -> io::Result<bool> {
    let input = read_input(args.file.as_deref())?;
    fs::create_dir_all(&args.out)?;
    if args.mono {
        let size = args.size.unwrap_or(Size::new(128, 64));
        replay(&input, size, Theme::mono(), args, write_gray)
    } else {
        let size = args.size.unwrap_or(Size::new(320, 240));
        replay::<Rgb565>(&input, size, Theme::default(), args, write_rgb)
    }
}

fn read_input(file: Option<&Path>) -> io::Result<Vec<u8>> {
    let from_stdin = || {
        let mut buf = Vec::new();
        io::stdin().lock().read_to_end(&mut buf)?;
        Ok(buf)
    };
    match file {
        Some(p) if p == Path::new("-") => from_stdin(),
        Some(p) => {
            fs::read(p).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", p.display())))
        }
        None if io::stdin().is_terminal() => Ok(SAMPLE.to_vec()),
        None => from_stdin(),
    }
}

/// Feeds the stream line by line (at most one frame ends per line, in SSE
/// and NDJSON alike), redrawing after each event.
fn replay<C: PixelColor>(
    input: &[u8],
    size: Size,
    theme: Theme<C>,
    args: &Args,
    write: Writer<C>,
) -> io::Result<bool> {
    let mut panel = Framebuffer::new(size, theme.background);
    let mut kiosk = Kiosk::new(Config::new(size), theme);
    let mut client = Client::new().with_limits(args.limits.limits(args.max_messages));
    let mut ok = true;
    let mut shown = 0;
    for line in input.split_inclusive(|&b| b == b'\n') {
        let fed = client.feed_with(line, &mut kiosk);
        if client.accepted() == shown && fed.is_ok() {
            continue;
        }
        shown = client.accepted();
        if let Err(e) = fed {
            eprintln!("agui-kiosk: {e}");
            kiosk.set_stream_error(&e.to_string());
            ok = false;
        }
        draw(&mut kiosk, &client, &mut panel);
        if let Some(n) = args.every {
            if ok && shown % n == 0 {
                let path = args.out.join(format!("{}-{shown:04}.png", args.name));
                save(&panel, &path, args.scale.unwrap_or(1), write)?;
            }
        }
        if !ok {
            break;
        }
    }
    if ok {
        if let Err(e) = client.finish_with(&mut kiosk) {
            eprintln!("agui-kiosk: {e}");
            kiosk.set_stream_error(&e.to_string());
            ok = false;
        }
    }
    draw(&mut kiosk, &client, &mut panel);
    let path = args.out.join(format!("{}.png", args.name));
    save(&panel, &path, args.scale.unwrap_or(1), write)?;
    let full = u64::from(size.width) * u64::from(size.height);
    println!(
        "{} events, {} pixels drawn in all ({:.1} full panels)",
        client.accepted(),
        panel.written(),
        panel.written() as f64 / full as f64
    );
    Ok(ok)
}

fn draw<C: PixelColor>(kiosk: &mut Kiosk<C>, client: &Client, panel: &mut Framebuffer<C>) {
    match kiosk.draw(client.messages(), client.state(), panel) {
        Ok(_) => {}
        Err(never) => match never {},
    }
}

fn save<C>(panel: &Framebuffer<C>, path: &Path, scale: u32, write: Writer<C>) -> io::Result<()> {
    write(panel, path, scale)?;
    println!("wrote {}", path.display());
    Ok(())
}

/// Writes a panel as PNG at a scale.
type Writer<C> = fn(&Framebuffer<C>, &Path, u32) -> io::Result<()>;

fn write_rgb<C: PixelColor>(panel: &Framebuffer<C>, path: &Path, scale: u32) -> io::Result<()>
where
    Rgb888: From<C>,
{
    let size = panel.size();
    let data = enlarge(&panel.to_rgb8(), size, 3, scale);
    write_png(path, size * scale, png::ColorType::Rgb, &data)
}

fn write_gray<C: PixelColor>(panel: &Framebuffer<C>, path: &Path, scale: u32) -> io::Result<()>
where
    Gray8: From<C>,
{
    let size = panel.size();
    let data = enlarge(&panel.to_gray8(), size, 1, scale);
    write_png(path, size * scale, png::ColorType::Grayscale, &data)
}

/// Nearest-neighbour enlargement of `bytes` pixels of `size`.
fn enlarge(data: &[u8], size: Size, bytes: usize, scale: u32) -> Vec<u8> {
    if scale == 1 {
        return data.to_vec();
    }
    let (k, row) = (scale as usize, size.width as usize * bytes);
    let mut out = Vec::with_capacity(data.len() * k * k);
    for line in data.chunks(row) {
        let wide: Vec<u8> = line
            .chunks(bytes)
            .flat_map(|px| std::iter::repeat_n(px, k).flatten().copied())
            .collect();
        for _ in 0..k {
            out.extend_from_slice(&wide);
        }
    }
    out
}

fn write_png(path: &Path, size: Size, color: png::ColorType, data: &[u8]) -> io::Result<()> {
    let file = io::BufWriter::new(fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, size.width, size.height);
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::High);
    let mut writer = encoder.write_header().map_err(io::Error::other)?;
    writer.write_image_data(data).map_err(io::Error::other)?;
    writer.finish().map_err(io::Error::other)
}
