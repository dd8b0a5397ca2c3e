//! `agui-replay`: replay an AG-UI event stream through agui-embedded's core
//! pipeline and reducer, and print the conversation it produces.
//!
//! ```text
//! agui-replay                      # the bundled sample conversation
//! agui-replay stream.ndjson        # a file (SSE, NDJSON or protobuf, detected)
//! agui-replay run.bin --format proto   # length-prefixed protobuf events
//! agui-replay - --json --trace     # stdin, machine-readable (SPEC section 7)
//! agui-replay noisy.sse --keep-going --json   # skip damaged frames, list them
//! agui-replay new.sse --protocol 1.0 --json   # AG-UI 1.0, with its warnings
//! ```
//!
//! With `--keep-going` a frame that fails decoding or verification is
//! skipped (nothing of it is applied) and the stream goes on; `--json` then
//! lists every skipped frame in `errors` (`[{"index", "stage", "code",
//! "message"}, ...]`), and `error` stays the first of them (or `null`), so
//! a reader of the strict output keeps working. In strict mode `errors` is
//! `[]` or holds the one error that stopped the stream.
//!
//! An empty or blank input is a stream without events (SPEC section 12):
//! the transcript says `empty input: no frames`, `--json` has `ok: true,
//! accepted: 0`, and the exit status is 0, so that a pipe from an agent
//! that sent nothing is not an error; an input with content but no frame is
//! a usage error.
//!
//! Exit status: 0 for an accepted stream (an empty one included), 1 for a
//! rejected one (in keep-going mode: one with a skipped frame), 2 for usage
//! or I/O errors.

use std::fs::File;
use std::io::{self, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use agui_alloc::client::{Client, ClientError, Limits, TraceEntry};
use agui_alloc::v1::{InboundWarning, InboundWarningKind};
use agui_core::frame::Format;
use agui_core::protocol::{Protocol, Select};
use agui_examples::flags::{parse_bytes, LimitFlags};
use agui_examples::json_out;
use agui_examples::transcript::{write_message, write_state, Printable};
use clap::{Parser, ValueEnum};
use serde_json::{json, Value};

/// The sample conversation replayed when no file is given on a terminal.
const SAMPLE: &[u8] = include_bytes!("../../samples/chat.ndjson");

/// Replay an AG-UI event stream (SSE, NDJSON or protobuf) and print the conversation.
#[derive(Parser, Debug)]
#[command(name = "agui-replay", version)]
struct Args {
    /// The stream to read; `-` for stdin. Without it, stdin is read, or the
    /// bundled sample conversation is replayed when stdin is a terminal.
    file: Option<PathBuf>,

    /// The stream's framing.
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    format: FormatArg,

    /// Print one JSON object: ok, accepted, error, messages, state.
    #[arg(long)]
    json: bool,

    /// With --json, add the per-event trace (type, changed, partialArgs, args).
    #[arg(long, requires = "json")]
    trace: bool,

    /// Skip a frame that fails decoding or verification and go on; `--json`
    /// lists the skipped frames in `errors`.
    #[arg(long)]
    keep_going: bool,

    /// Most messages kept; the event that would make one more is refused.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_messages)]
    max_messages: usize,

    #[command(flatten)]
    limits: LimitFlags,

    /// Largest --trace, counting each entry as 16 bytes plus its arguments
    /// as compact JSON; a trace that would pass it stops the stream.
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes, default_value = "256MiB")]
    max_trace_bytes: usize,

    /// With --keep-going, most skipped frames listed (later ones are only
    /// counted).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_errors)]
    max_errors: usize,

    /// The protocol to read the stream in: the current one, AG-UI 1.0
    /// (SPEC section 9), or auto (1.0 when the first frame is a
    /// RUN_STARTED announcing it). With 1.0, `--json` adds `warnings`.
    #[arg(long, value_enum, default_value_t = ProtocolArg::Current)]
    protocol: ProtocolArg,

    /// Read the input this many bytes at a time (the result must not depend on it).
    #[arg(long, default_value_t = 8192, value_parser = clap::value_parser!(u64).range(1..=(1 << 30)))]
    read_size: u64,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ProtocolArg {
    /// The protocol as of August 2026 (SPEC sections 0-8).
    Current,
    /// AG-UI 1.0 (SPEC section 9).
    #[value(name = "1.0")]
    V1,
    /// 1.0 when the first frame is a RUN_STARTED announcing it.
    Auto,
}

impl ProtocolArg {
    fn select(self) -> Select {
        match self {
            ProtocolArg::Current => Select::Fixed(Protocol::Current),
            ProtocolArg::V1 => Select::Fixed(Protocol::V1),
            ProtocolArg::Auto => Select::Auto,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    /// Detect from the first byte: a zero byte (the top of a 4-byte
    /// length, which neither text format can start with) is protobuf, `{`
    /// NDJSON, anything else SSE.
    Auto,
    /// Server-Sent Events.
    Sse,
    /// Newline-delimited JSON.
    Ndjson,
    /// AG-UI's protobuf encoding (`application/vnd.ag-ui.event+proto`):
    /// each event a 4-byte big-endian length and an `Event` message.
    Proto,
}

impl FormatArg {
    fn format(self) -> Option<Format> {
        match self {
            FormatArg::Auto | FormatArg::Proto => None,
            FormatArg::Sse => Some(Format::Sse),
            FormatArg::Ndjson => Some(Format::Ndjson),
        }
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("agui-replay: {message}");
            ExitCode::from(2)
        }
    }
}

/// Replays the input; `Ok(accepted)`, or `Err` for usage and I/O problems.
fn run(args: &Args) -> Result<bool, String> {
    let mut input = open(args)?;
    let limits = Limits {
        max_trace_bytes: args.max_trace_bytes,
        max_errors: args.max_errors,
        ..args.limits.limits(args.max_messages)
    };
    let build = |proto: bool| {
        let client = if proto {
            Client::proto()
        } else {
            Client::with_format(args.format.format())
        };
        let mut client = client
            .with_limits(limits)
            .with_protocol(args.protocol.select());
        if args.keep_going {
            client = client.keep_going();
        }
        if args.json && args.trace {
            client = client.with_trace();
        }
        client
    };
    let mut client = build(args.format == FormatArg::Proto);
    let detect = (args.format == FormatArg::Auto).then_some(&build as &dyn Fn(bool) -> Client);
    let Replayed { result, empty } = replay(&mut input, &mut client, args.read_size, detect)?;
    // Keep-going never stops the stream; its verdict is the first skip.
    let result = result.and_then(|()| client.error().cloned().map_or(Ok(()), Err));
    let stdout = io::stdout();
    // One buffered writer: the report is written straight into it, not
    // formatted through `Display` first.
    let mut out = io::BufWriter::with_capacity(64 * 1024, stdout.lock());
    let written = if args.json {
        let value = report(&client, result.as_ref().err());
        let written = write_report(&mut out, &value, args.trace.then(|| client.trace()))
            .and_then(|()| out.write_all(b"\n"));
        // The process ends after this: the system takes the memory back at
        // once, where dropping the report frees it one allocation at a time.
        std::mem::forget(value);
        written
    } else {
        transcript(
            &mut Printable(&mut out),
            &client,
            result.as_ref().err(),
            empty,
        )
    };
    written
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write the output: {e}"))?;
    // The same for the conversation the client holds.
    std::mem::forget(client);
    Ok(result.is_ok())
}

/// The input named on the command line, stdin, or the bundled sample.
fn open(args: &Args) -> Result<Box<dyn Read>, String> {
    match &args.file {
        Some(path) if path.as_os_str() != "-" => {
            let file =
                File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
            Ok(Box::new(file))
        }
        Some(_) => Ok(Box::new(io::stdin())),
        None if io::stdin().is_terminal() => Ok(Box::new(SAMPLE)),
        None => {
            eprintln!("agui-replay: reading the stream from stdin (no FILE given)");
            Ok(Box::new(io::stdin()))
        }
    }
}

/// What a replay found.
struct Replayed {
    /// The stream's verdict.
    result: Result<(), ClientError>,
    /// The input was empty or blank.
    empty: bool,
}

/// Feeds the input to the client `read_size` bytes at a time; with
/// `detect`, a stream whose first byte is zero goes to the protobuf client
/// `detect(true)` makes instead.
fn replay(
    input: &mut dyn Read,
    client: &mut Client,
    read_size: u64,
    mut detect: Option<&dyn Fn(bool) -> Client>,
) -> Result<Replayed, String> {
    let mut buf = vec![0u8; usize::try_from(read_size).unwrap_or(8192)];
    // The first bytes that are not white space, to judge an input in
    // which no frame was found.
    let mut head: Vec<u8> = Vec::new();
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => {
                let result = client.finish();
                no_frames(client, &head)?;
                let empty = head.is_empty();
                return Ok(Replayed { result, empty });
            }
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("cannot read the input: {e}")),
        };
        if let Some(build) = detect.take() {
            if buf.first() == Some(&0) {
                *client = build(true);
            }
        }
        if head.len() < HEAD {
            let start = if head.is_empty() {
                buf[..n].iter().position(|b| !b.is_ascii_whitespace())
            } else {
                Some(0)
            };
            if let Some(start) = start {
                let end = n.min(start + HEAD - head.len());
                head.extend_from_slice(&buf[start..end]);
            }
        }
        if let Err(e) = client.feed(&buf[..n]) {
            let empty = false;
            return Ok(Replayed {
                result: Err(e),
                empty,
            });
        }
    }
}

/// How many leading bytes are kept to judge an input without frames.
const HEAD: usize = 8;

/// An input without a single frame (SPEC section "Inputs without frames"):
/// empty, blank, or SSE with only comments or fields other than `data` is a
/// stream with no events (accepted, with a note when it had content);
/// anything else is the wrong format or not a stream at all (a JSON array
/// of events, a binary file) and is a usage error, exit 2, so that a
/// mistake does not pass as an empty success.
fn no_frames(client: &Client, head: &[u8]) -> Result<(), String> {
    if head.is_empty() || client.accepted() > 0 || client.error().is_some() || client.is_proto() {
        return Ok(());
    }
    let sse_line = [&b":"[..], b"data", b"event", b"id", b"retry"]
        .iter()
        .any(|field| head.starts_with(field));
    if sse_line {
        eprintln!("agui-replay: note: the SSE input holds no `data:` line, so no event");
        return Ok(());
    }
    let byte = head[0];
    let shown = if byte.is_ascii_graphic() {
        format!("'{}'", char::from(byte))
    } else {
        format!("byte 0x{byte:02x}")
    };
    Err(format!(
        "no frames found in a non-empty input (it starts with {shown}): is it a stream, \
         and is --format right? NDJSON needs one event object per line, SSE needs `data:` lines"
    ))
}

fn error_json(e: &ClientError) -> Value {
    json!({"index": e.frame, "stage": e.stage.as_str(), "code": e.code.as_str(), "message": e.message})
}

/// Writes the report with the trace, when asked for, in its place (after
/// `state`, before `warnings`: the order serde_json's sorted map gives).
/// The trace is written straight from the client's entries: building it as
/// a JSON value first made and freed three maps per event (a third of the
/// process's instructions on a long chat).
fn write_report(
    out: &mut impl Write,
    report: &Value,
    trace: Option<&[TraceEntry]>,
) -> io::Result<()> {
    let (Value::Object(members), Some(trace)) = (report, trace) else {
        return json_out::write_value(out, report);
    };
    out.write_all(b"{")?;
    let (before, after): (Vec<_>, Vec<_>) = members.iter().partition(|(k, _)| *k != "warnings");
    for (i, (key, value)) in before.into_iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        write_member(out, key, value)?;
    }
    out.write_all(b",\"trace\":[")?;
    for (i, entry) in trace.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        write_trace_entry(out, entry)?;
    }
    out.write_all(b"]")?;
    for (key, value) in after {
        out.write_all(b",")?;
        write_member(out, key, value)?;
    }
    out.write_all(b"}")
}

/// One trace entry, as [`TraceEntry::to_json`] would be written: its keys
/// in sorted order (`args` < `changed` < `partialArgs` < `type`).
fn write_trace_entry(out: &mut impl Write, entry: &TraceEntry) -> io::Result<()> {
    let (early, late) = match &entry.args {
        Some((key, value)) if *key < "changed" => (Some((*key, value)), None),
        Some((key, value)) => (None, Some((*key, value))),
        None => (None, None),
    };
    out.write_all(b"{")?;
    if let Some((key, value)) = early {
        write_member(out, key, value)?;
        out.write_all(b",")?;
    }
    json_out::write_str(out, "changed")?;
    out.write_all(b":")?;
    json_out::write_str(out, entry.changed.as_str())?;
    if let Some((key, value)) = late {
        out.write_all(b",")?;
        write_member(out, key, value)?;
    }
    out.write_all(b",\"type\":")?;
    json_out::write_str(out, entry.kind.as_str())?;
    out.write_all(b"}")
}

/// `"key":value`.
fn write_member(out: &mut impl Write, key: &str, value: &Value) -> io::Result<()> {
    json_out::write_str(out, key)?;
    out.write_all(b":")?;
    json_out::write_value(out, value)
}

/// The machine-readable result (SPEC section 7), plus `errors` (the trace,
/// when asked for, is written by [`write_report`]).
fn report(client: &Client, error: Option<&ClientError>) -> Value {
    let errors: Vec<Value> = if client.errors().is_empty() {
        error.map(error_json).into_iter().collect()
    } else {
        client.errors().iter().map(error_json).collect()
    };
    let error = error.map_or(Value::Null, error_json);
    let mut out = json!({
        "ok": error.is_null(),
        "accepted": client.accepted(),
        "error": error,
        "errors": errors,
        "messages": client.messages(),
        "state": client.state(),
    });
    // Only a 1.0 stream has warnings: the current output stays as it was.
    if client.protocol() == Some(Protocol::V1) {
        let warnings: Vec<Value> = client.warnings().iter().map(warning_json).collect();
        out["warnings"] = Value::Array(warnings);
    }
    out
}

/// A 1.0 warning as the 1.0 vectors write it (`tests/vectors/v1/README.md`).
fn warning_json(w: &InboundWarning) -> Value {
    let mut out = json!({"index": w.frame, "stage": w.stage().as_str(), "code": w.code()});
    match &w.kind {
        InboundWarningKind::Converted { from, to } => {
            out["from"] = json!(from);
            out["to"] = json!(to);
        }
        InboundWarningKind::UnknownEvent { event_type } => out["type"] = json!(event_type),
        InboundWarningKind::Stripped { event_type, path } => {
            out["type"] = json!(event_type);
            out["path"] = json!(path);
        }
        // The vectors do not name the minted id (the transcript does).
        InboundWarningKind::DroppedTitle
        | InboundWarningKind::MintedId { .. }
        | InboundWarningKind::BinaryUnconvertible => {}
    }
    out
}

/// The readable transcript: every message with its role, tool calls with
/// their arguments, tool results, then the state and the verdict.
fn transcript(
    out: &mut dyn Write,
    client: &Client,
    error: Option<&ClientError>,
    empty: bool,
) -> io::Result<()> {
    if empty {
        return writeln!(out, "empty input: no frames");
    }
    for message in client.messages() {
        write_message(out, message)?;
    }
    write_state(out, client.state())?;
    for w in client.warnings() {
        writeln!(out, "warning {w}")?;
    }
    if !client.errors().is_empty() {
        for e in client.errors() {
            writeln!(out, "skipped {e}")?;
        }
        let skipped = client.error_count();
        return writeln!(
            out,
            "{} frames accepted, {skipped} skipped",
            client.accepted()
        );
    }
    match error {
        None => writeln!(out, "ok: {} frames accepted", client.accepted()),
        Some(e) => writeln!(out, "rejected after {} frames: {e}", client.accepted()),
    }
}
