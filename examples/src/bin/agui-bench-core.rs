//! agui-bench-core: runs one stage of the client over a generated workload,
//! for instruction counts under callgrind (see BENCHMARKS.md) and quick
//! timings.
//!
//! ```text
//! agui-bench-core run <stage> <workload> <n> [sse|ndjson] [repeat]
//! agui-bench-core gen <workload> <n> [sse|ndjson] > stream.txt
//! ```
//!
//! `stage` is `framer` (SSE / NDJSON framing alone), `tokenizer` (the JSON
//! tokenizer alone, over the NDJSON lines),
//! `core` (the no-heap pipeline: framing, decoding, chunks, verification),
//! `core-v1` (the same in AG-UI 1.0 mode),
//! `client` (the core plus the reducer), `client-v1` (the same in AG-UI 1.0
//! mode), `client-v1-keep-going` (the same in keep-going mode, where every
//! frame is taken as a whole or not at all) or `client-watch` (the client with a subscriber that reads the
//! partial tool arguments after every delta, as a UI would). `workload` is
//! a generator of `tests/src/workloads.rs` (`chat`, `tool_args`,
//! `snapshots`, the hostile ones) or `file:PATH`, a recorded stream (SSE or
//! NDJSON; `n` is then ignored). The measured work is the function
//! `agui_bench_core::measure`, so that
//! `valgrind --tool=callgrind --toggle-collect='*measure*'` counts it alone,
//! without the generation of the workload.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use agui_alloc::client::Client;
use agui_alloc::event::ToolCallArgs;
use agui_alloc::hooks::{Flow, HookView, Subscriber, ToolCallProgress};
use agui_core::frame::{FrameEvent, Framer};
use agui_core::json::Tokenizer;
use agui_core::pipeline::{DefaultPipeline, Output};
use agui_core::{Protocol, Select};
use serde_json::Value;

#[path = "../../../tests/src/workloads.rs"]
#[allow(dead_code)]
mod workloads;

use workloads::Encoding;

/// The stage to run.
#[derive(Clone, Copy)]
enum Stage {
    Framer,
    Tokenizer,
    Core,
    CoreV1,
    Client,
    ClientV1,
    ClientV1KeepGoing,
    ClientWatch,
}

/// What a run saw, so that the work cannot be optimised away.
#[derive(Default, Debug)]
struct Seen {
    bytes: usize,
    events: usize,
    tokens: usize,
    rows: usize,
}

const ABOUT: &str = "Run one stage of the AG-UI client over a generated workload, \
for instruction counts under callgrind (BENCHMARKS.md)";

const USAGE: &str = "\
usage: agui-bench-core run <framer|tokenizer|core|core-v1|client|client-v1|client-v1-keep-going|client-watch> <chat|tool_args|snapshots|...|file:PATH> <n> [sse|ndjson] [repeat]
       agui-bench-core gen <chat|tool_args|snapshots> <n> [sse|ndjson]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if matches!(args.first().map(String::as_str), Some("-h" | "--help")) {
        println!("{ABOUT}\n\n{USAGE}");
        return ExitCode::SUCCESS;
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agui-bench-core: {e}");
            eprintln!("{USAGE}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let arg = |i: usize| args.get(i).map(String::as_str);
    match arg(0) {
        Some("gen") => {
            let w = workload(arg(1), arg(2), arg(3))?;
            std::io::stdout()
                .write_all(&w.bytes)
                .map_err(|e| e.to_string())
        }
        Some("run") => {
            let stage = match arg(1) {
                Some("framer") => Stage::Framer,
                Some("tokenizer") => Stage::Tokenizer,
                Some("core") => Stage::Core,
                Some("core-v1") => Stage::CoreV1,
                Some("client") => Stage::Client,
                Some("client-v1") => Stage::ClientV1,
                Some("client-v1-keep-going") => Stage::ClientV1KeepGoing,
                Some("client-watch") => Stage::ClientWatch,
                other => return Err(format!("unknown stage {other:?}")),
            };
            let encoding = match stage {
                Stage::Tokenizer => Some("ndjson"),
                _ => arg(4),
            };
            let w = workload(arg(2), arg(3), encoding)?;
            let repeat: usize = arg(5)
                .map_or(Ok(1), str::parse)
                .map_err(|e| format!("{e}"))?;
            // The tokenizer reads the documents one by one, as split here.
            let docs: Vec<&[u8]> = match stage {
                Stage::Tokenizer => workloads::documents(&w.bytes).collect(),
                _ => Vec::new(),
            };
            let start = Instant::now();
            let cpu_start = cpu_ns();
            let seen = measure(stage, &w.bytes, &docs, repeat)?;
            let cpu = cpu_ns()
                .zip(cpu_start)
                .map(|(end, start)| end.saturating_sub(start));
            let secs = start.elapsed().as_secs_f64();
            let total = w.bytes.len() * repeat;
            println!(
                "{} {}: {} bytes, {} events, {} tokens, {} rows watched, x{repeat}: {:.3} ms, {:.1} MB/s, {:.0} events/s",
                w.name,
                arg(1).unwrap_or_default(),
                w.bytes.len(),
                w.events,
                seen.tokens / repeat,
                seen.rows / repeat,
                secs * 1e3 / repeat as f64,
                total as f64 / secs / 1e6,
                (w.events * repeat) as f64 / secs,
            );
            if let Some(cpu) = cpu {
                // On a shared machine the thread's own CPU time is steadier
                // than the wall clock (it leaves out the time spent waiting).
                println!("cpu: {:.3} ms per run", cpu as f64 / 1e6 / repeat as f64);
            }
            if seen.bytes != total {
                return Err(format!("saw {} bytes of {total}", seen.bytes));
            }
            Ok(())
        }
        other => Err(format!("unknown command {other:?}")),
    }
}

fn workload(
    name: Option<&str>,
    n: Option<&str>,
    encoding: Option<&str>,
) -> Result<workloads::Workload, String> {
    let n: usize = n
        .ok_or("missing n")?
        .parse()
        .map_err(|e| format!("n: {e}"))?;
    let encoding = match encoding {
        None | Some("sse") => Encoding::Sse,
        Some("ndjson") => Encoding::Ndjson,
        Some(other) => return Err(format!("unknown encoding {other:?}")),
    };
    let name = name.ok_or("missing workload")?;
    if let Some(path) = name.strip_prefix("file:") {
        // A recorded stream (n and the encoding are not used: the framer
        // finds the encoding itself).
        let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        return Ok(workloads::Workload {
            name: path.to_string(),
            events: 0,
            bytes,
        });
    }
    workloads::by_name(name, n, encoding).ok_or_else(|| format!("unknown workload {name:?}"))
}

/// The CPU time this thread has run, in nanoseconds (Linux
/// `/proc/thread-self/schedstat`); `None` elsewhere.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// The measured work: `repeat` runs of `stage` over `bytes` (the
/// tokenizer: over `docs`, the lines of `bytes`).
#[inline(never)]
fn measure(stage: Stage, bytes: &[u8], docs: &[&[u8]], repeat: usize) -> Result<Seen, String> {
    let mut seen = Seen::default();
    for _ in 0..repeat {
        match stage {
            Stage::Framer => frame(bytes, &mut seen),
            Stage::Tokenizer => tokenize(docs, &mut seen)?,
            Stage::Core => core(bytes, &mut seen)?,
            Stage::CoreV1 => core_v1(bytes, &mut seen)?,
            Stage::Client => client(Client::new(), bytes, None, &mut seen)?,
            Stage::ClientV1 => {
                let v1 = Client::new().with_protocol(Select::Fixed(Protocol::V1));
                client(v1, bytes, None, &mut seen)?;
            }
            Stage::ClientV1KeepGoing => {
                let v1 = Client::new()
                    .with_protocol(Select::Fixed(Protocol::V1))
                    .keep_going();
                client(v1, bytes, None, &mut seen)?;
            }
            Stage::ClientWatch => {
                let mut ui = Watcher::default();
                client(Client::new(), bytes, Some(&mut ui), &mut seen)?;
                seen.rows += ui.rows;
            }
        }
    }
    Ok(seen)
}

/// The framer alone, counting frames and payload bytes.
fn frame(bytes: &[u8], seen: &mut Seen) {
    let mut framer = Framer::new(None);
    let mut rest = bytes;
    let on = |event: FrameEvent<'_>, seen: &mut Seen| match event {
        FrameEvent::Start => seen.events += 1,
        FrameEvent::Data(d) => seen.tokens += d.len(),
        FrameEvent::End => {}
    };
    while !rest.is_empty() {
        let (used, event) = framer.next(rest);
        rest = rest.get(used..).unwrap_or_default();
        if let Some(event) = event {
            on(event, seen);
        }
    }
    while let Some(event) = framer.finish() {
        on(event, seen);
    }
    seen.bytes += bytes.len();
}

/// The tokenizer over every line of an NDJSON stream.
fn tokenize(docs: &[&[u8]], seen: &mut Seen) -> Result<(), String> {
    let mut tz: Tokenizer = Tokenizer::new();
    for &line in docs {
        tz.reset();
        let mut rest = line;
        loop {
            let (used, token) = tz.next(rest).map_err(|e| format!("{e:?}"))?;
            rest = rest.get(used..).unwrap_or_default();
            if token.is_none() {
                break;
            }
            seen.tokens += 1;
        }
        tz.finish().map_err(|e| format!("{e:?}"))?;
        seen.events += 1;
        // The line and its `\n`.
        seen.bytes += line.len() + 1;
    }
    Ok(())
}

/// The no-heap pipeline, counting events and field fragments.
fn core(bytes: &[u8], seen: &mut Seen) -> Result<(), String> {
    let mut p = DefaultPipeline::new();
    let mut parts = 0usize;
    let mut events = 0usize;
    let mut on = |out: Output<'_>| match out {
        Output::Part(_) => parts += 1,
        Output::Event(_) => events += 1,
        Output::Error(_) => {}
    };
    p.feed(bytes, &mut on).map_err(|e| e.to_string())?;
    p.finish(&mut on).map_err(|e| e.to_string())?;
    seen.tokens += parts;
    seen.events += events;
    seen.bytes += bytes.len();
    Ok(())
}

/// The no-heap pipeline in AG-UI 1.0 mode, with owner tables large
/// enough for a whole workload's run (its ids stay recorded for the run).
fn core_v1(bytes: &[u8], seen: &mut Seen) -> Result<(), String> {
    type Core = agui_core::Pipeline<64, 8, 8, 8, 32, 256, 4, agui_core::decode::V1>;
    let mut p = Box::new(Core::new());
    p.set_protocol(agui_core::Select::Fixed(agui_core::Protocol::V1));
    let mut parts = 0usize;
    let mut events = 0usize;
    let mut on = |out: Output<'_>| match out {
        Output::Part(_) => parts += 1,
        Output::Event(_) => events += 1,
        Output::Error(_) => {}
    };
    p.feed(bytes, &mut on).map_err(|e| e.to_string())?;
    p.finish(&mut on).map_err(|e| e.to_string())?;
    seen.tokens += parts;
    seen.events += events;
    seen.bytes += bytes.len();
    Ok(())
}

/// The whole client in 4 KiB reads: `feed` without a subscriber (as
/// `agui-replay` runs it), `feed_with` with one.
fn client(
    mut client: Client,
    bytes: &[u8],
    subscriber: Option<&mut dyn Subscriber>,
    seen: &mut Seen,
) -> Result<(), String> {
    match subscriber {
        Some(subscriber) => {
            for piece in bytes.chunks(4096) {
                client
                    .feed_with(piece, subscriber)
                    .map_err(|e| e.to_string())?;
            }
            client.finish_with(subscriber).map_err(|e| e.to_string())?;
        }
        None => {
            for piece in bytes.chunks(4096) {
                client.feed(piece).map_err(|e| e.to_string())?;
            }
            client.finish().map_err(|e| e.to_string())?;
        }
    }
    seen.events += client.accepted() as usize;
    seen.bytes += bytes.len();
    Ok(())
}

/// A UI's view of the arguments: after every delta it looks at the
/// partial value and shows how many rows there are and the last one.
#[derive(Default)]
struct Watcher {
    rows: usize,
}

impl Subscriber for Watcher {
    fn on_tool_call_args(
        &mut self,
        _event: &ToolCallArgs,
        call: &ToolCallProgress<'_>,
        _view: &mut HookView<'_>,
    ) -> Flow {
        if let Some(rows) = call.args.get("rows").and_then(Value::as_array) {
            self.rows = rows.len();
            if let Some(last) = rows.last() {
                std::hint::black_box(last.get("name"));
            }
        }
        Flow::Continue
    }
}
