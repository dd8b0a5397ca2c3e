//! Throughput of each stage on the generated workloads, at N and 4N.
//!
//! ```text
//! cargo bench -p agui-tests --bench pipeline            # everything, ~3 minutes
//! cargo bench -p agui-tests --bench pipeline -- core/   # one group
//! ```
//!
//! Groups (see BENCHMARKS.md for the table and how to read it):
//! - `tokenizer/<workload>/<n>`: the JSON tokenizer alone, over the NDJSON
//!   lines of the workload (bytes/s).
//! - `core/<workload>/<n>`: the no-heap pipeline over the SSE stream:
//!   framing, decoding, chunk expansion, verification (bytes/s; events/s is
//!   events / time).
//! - `client/<workload>/<n>`: the whole client, core plus reducer, in 4 KiB
//!   reads, with a subscriber that reads the partial tool arguments after
//!   every `TOOL_CALL_ARGS`, as a UI would (events/s).
//! - `side_by_side/<what>/<workload>/<n>`: on the same NDJSON lines, the
//!   core pipeline (`core`: framing, decoding, chunks, verification, no
//!   allocation) against `serde_json::from_slice::<Value>` on each line
//!   (`serde_value`: parsing only, into allocated values), and the whole
//!   client (`client`); bytes/s. The reference client's figure on the same
//!   workload is in BENCHMARKS.md ("Against the reference client").
//! - `hostile/<workload>/<n>`: the whole client on the hostile workloads of
//!   issue 11 (bytes/s); `cargo bench -p agui-tests --bench pipeline -- hostile/`.
//!
//! Each workload is measured at N and 4N so that the growth ratio
//! t(4N)/t(N) shows whether the cost per event stays flat (4.0 is linear).

use std::hint::black_box;
use std::time::Duration;

use agui_alloc::client::Client;
use agui_alloc::event::ToolCallArgs;
use agui_alloc::hooks::{Flow, HookView, Subscriber, ToolCallProgress};
use agui_core::json::Tokenizer;
use agui_core::pipeline::{DefaultPipeline, Output};
use agui_tests::workloads::{
    activity_deltas, chat, documents, many_snapshots, parallel_results, snapshots, state_copies,
    state_removals, tool_args, Encoding, Workload,
};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::Value;

/// A workload generator.
type Generator = fn(usize, Encoding) -> Workload;

/// The workloads at N and 4N: (name, generator, N).
const SIZES: &[(&str, Generator, usize)] = &[
    ("chat", chat, 20_000),
    ("tool_args", tool_args, 20_000),
    ("snapshots", snapshots, 2_000),
];

/// The hostile workloads (issue 11) at N and 4N: small events after a
/// history that grows with N (N = 2000 keeps 4N under the default
/// 10 000-message limit).
const HOSTILE: &[(&str, Generator, usize)] = &[
    ("many_snapshots", many_snapshots, 2_000),
    ("state_copies", state_copies, 2_000),
    ("activity_deltas", activity_deltas, 2_000),
    ("parallel_results", parallel_results, 2_000),
    ("state_removals", state_removals, 2_000),
];

fn each_workload(encoding: Encoding, mut run: impl FnMut(&str, usize, &Workload)) {
    for &(name, make, n) in SIZES {
        for n in [n, 4 * n] {
            run(name, n, &make(n, encoding));
        }
    }
}

fn tokenizer(c: &mut Criterion) {
    let mut group = c.benchmark_group("tokenizer");
    each_workload(Encoding::Ndjson, |name, n, w| {
        let docs: Vec<&[u8]> = documents(&w.bytes).collect();
        group.throughput(Throughput::Bytes(w.bytes.len() as u64));
        group.bench_with_input(BenchmarkId::new(name, n), &docs, |b, docs| {
            b.iter(|| tokenize(docs))
        });
    });
    group.finish();
}

/// Every token of every document; the count keeps the work observable.
fn tokenize(docs: &[&[u8]]) -> usize {
    let mut tz: Tokenizer = Tokenizer::new();
    let mut tokens = 0;
    for doc in docs {
        tz.reset();
        let mut rest = *doc;
        while let Ok((used, Some(token))) = tz.next(rest) {
            black_box(token);
            rest = &rest[used..];
            tokens += 1;
        }
    }
    tokens
}

fn core(c: &mut Criterion) {
    let mut group = c.benchmark_group("core");
    each_workload(Encoding::Sse, |name, n, w| {
        group.throughput(Throughput::Bytes(w.bytes.len() as u64));
        group.bench_with_input(BenchmarkId::new(name, n), w, |b, w| {
            b.iter(|| run_core(&w.bytes))
        });
    });
    group.finish();
}

/// The core pipeline over the whole stream, counting events.
fn run_core(bytes: &[u8]) -> usize {
    let mut p = DefaultPipeline::new();
    let mut events = 0;
    let mut on = |out: Output<'_>| {
        if let Output::Event(ev) = black_box(out) {
            black_box(ev.id);
            events += 1;
        }
    };
    p.feed(bytes, &mut on).expect("the workload is valid");
    p.finish(&mut on).expect("the workload is valid");
    events
}

fn side_by_side(c: &mut Criterion) {
    let mut group = c.benchmark_group("side_by_side");
    each_workload(Encoding::Ndjson, |name, n, w| {
        let lines: Vec<&[u8]> = documents(&w.bytes).collect();
        group.throughput(Throughput::Bytes(w.bytes.len() as u64));
        let id = |what: &str| BenchmarkId::new(format!("{what}/{name}"), n);
        group.bench_with_input(id("core"), w, |b, w| b.iter(|| run_core(&w.bytes)));
        group.bench_with_input(id("serde_value"), &lines, |b, lines| {
            b.iter(|| parse_values(lines))
        });
        group.bench_with_input(id("client"), w, |b, w| b.iter(|| run_client(&w.bytes)));
    });
    group.finish();
}

/// Each NDJSON line parsed into a `serde_json::Value`, as a client built on
/// serde_json would start.
fn parse_values(lines: &[&[u8]]) -> usize {
    lines
        .iter()
        .map(|line| {
            let value: Value = serde_json::from_slice(line).expect("the workload is valid JSON");
            black_box(value).as_object().map_or(0, serde_json::Map::len)
        })
        .sum()
}

fn client(c: &mut Criterion) {
    let mut group = c.benchmark_group("client");
    each_workload(Encoding::Sse, |name, n, w| {
        group.throughput(Throughput::Elements(w.events as u64));
        group.bench_with_input(BenchmarkId::new(name, n), w, |b, w| {
            b.iter(|| run_client(&w.bytes))
        });
    });
    group.finish();
}

/// `hostile/<workload>/<n>`: the whole client on the hostile workloads.
fn hostile(c: &mut Criterion) {
    let mut group = c.benchmark_group("hostile");
    for &(name, make, n) in HOSTILE {
        for n in [n, 4 * n] {
            let w = make(n, Encoding::Sse);
            group.throughput(Throughput::Bytes(w.bytes.len() as u64));
            group.bench_with_input(BenchmarkId::new(name, n), &w, |b, w| {
                b.iter(|| run_client(&w.bytes))
            });
        }
    }
    group.finish();
}

/// The whole client in 4 KiB reads, watched by a [`Watcher`].
fn run_client(bytes: &[u8]) -> usize {
    let mut client = Client::new();
    let mut ui = Watcher::default();
    for piece in bytes.chunks(4096) {
        client
            .feed_with(piece, &mut ui)
            .expect("the workload is valid");
    }
    client.finish_with(&mut ui).expect("the workload is valid");
    black_box(client.messages().len()) + ui.rows
}

/// What a UI does with a tool call in progress: after every delta it looks
/// at the partial arguments, counts the rows and reads the last one.
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
            black_box(rows.last().and_then(|row| row.get("name")));
        }
        Flow::Continue
    }
}

fn config() -> Criterion {
    // Short runs: the whole suite takes a few minutes on two shared cores.
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = benches;
    config = config();
    targets = tokenizer, core, side_by_side, client, hostile
}
criterion_main!(benches);
