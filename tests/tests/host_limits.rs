//! Issue 22's first "done when": on a host, streams past the
//! microcontroller's fixed capacities (sub-agents one after another and 40
//! at once, a 120-run thread whose snapshots pass 512 messages, a snapshot
//! of 3,000 messages, 300 open tool calls and text messages, 200 open
//! steps, 2,000-byte ids, JSON nested 300 and 500 deep in a state snapshot,
//! a patch and tool arguments, 600 finished items then one of them used
//! again) fold, in both protocols, exactly as
//! `@ag-ui/client` 1.0.0 folds them: the vectors of `tests/vectors/host/`
//! (made by `tools/vectors/host.sh`) through the whole client, fed whole as
//! NDJSON and as SSE, comparing the error (frame, stage, code), the
//! messages, the state and the trace.
//!
//! Beyond the host's own depth limit the reference still folds; there this
//! client stops with the error `common::host::KNOWN` names, and what it
//! folded before equals the reference's fold of the frames before the error
//! (the vector's `NAME/before-K`).

mod common;

use agui_alloc::client::Client;
use agui_core::protocol::{Protocol, Select};
use common::host::{judge, load, HostVector, KNOWN};
use common::v1::{ndjson, sse};

/// The client's result on the whole input, in the shape of `expect`.
fn outcome(protocol: Protocol, bytes: &[u8]) -> serde_json::Value {
    let client = Client::new()
        .with_protocol(Select::Fixed(protocol))
        .with_trace();
    common::client_outcome(client, &[bytes])
}

/// Runs every vector of `file` (its `/before-K` prefixes serve as
/// expectations only) and reports every one that differs.
fn check_file(file: &'static str) {
    let vectors = load(file);
    let mut failures = Vec::new();
    for v in vectors.iter().filter(|v| !v.is_prefix()) {
        for (label, bytes) in [("ndjson", ndjson(&v.events)), ("sse", sse(&v.events))] {
            let got = outcome(v.protocol, &bytes);
            if let Err(e) = judge(v, &vectors, label, &got) {
                failures.push(e);
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of the host-limit streams of {file} differ from @ag-ui/client 1.0.0:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Runs `f` on a thread with the stack of a host tool's main thread
/// (8 MiB on Linux): the vectors hold values 600 deep.
fn with_main_stack(f: fn()) {
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
}

#[test]
fn v1_streams_fold_as_the_reference() {
    with_main_stack(|| check_file("v1.jsonl"));
}

#[test]
fn v1_thread_of_120_runs_folds_as_the_reference() {
    with_main_stack(|| check_file("v1-thread.jsonl"));
}

/// What the reference keeps of finished items, with 600 of them: a finished
/// id may be reopened (a sub-agent's may not, until the next run), a late
/// continuation is refused, a finished item's owner is kept for the run.
#[test]
fn v1_finished_items_as_the_reference() {
    with_main_stack(|| check_file("v1-finished.jsonl"));
}

#[test]
fn current_streams_fold_as_the_reference() {
    with_main_stack(|| check_file("current.jsonl"));
}

/// Every stream past a limit has its `KNOWN` row and every row its stream,
/// in both protocols, with prefixes, so the table cannot rot.
#[test]
fn every_past_limit_stream_is_known() {
    with_main_stack(|| {
        for file in ["v1.jsonl", "current.jsonl"] {
            let vectors = load(file);
            // The streams past a limit: by name, or by having prefixes.
            let mut past: Vec<&str> = vectors
                .iter()
                .map(|v| v.name.as_str())
                .filter(|n| !n.contains('/'))
                .filter(|n| {
                    let prefix = format!("{n}/before-");
                    n.ends_with("-past-limit")
                        || vectors.iter().any(|v| v.name.starts_with(&prefix))
                })
                .collect();
            let mut known: Vec<&str> = KNOWN
                .iter()
                .map(|k| k.name)
                .filter(|k| vectors.iter().any(|v| v.name == *k))
                .collect();
            past.sort_unstable();
            known.sort_unstable();
            assert_eq!(past, known, "{file}");
            for name in past {
                let prefix = format!("{name}/before-");
                let has = |v: &HostVector| v.name.starts_with(&prefix);
                assert!(vectors.iter().any(has), "{file}: {name} has no prefixes");
            }
        }
    });
}

/// The judge of a known difference passes a client that stops where and as
/// `KNOWN` says with the reference's fold of the frames before, and fails
/// one that stops before the limit, with another code, or with other
/// content: checked on made-up results, so that it holds before the host
/// storage exists.
#[test]
fn the_known_difference_is_judged_both_ways() {
    with_main_stack(|| {
        let vectors = load("current.jsonl");
        let name = "state-snapshot-nested-600-past-limit";
        let v = vectors.iter().find(|v| v.name == name).unwrap();
        let prefix = vectors
            .iter()
            .find(|v| v.name == format!("{name}/before-1"));
        let mut good = prefix.unwrap().expect.clone();
        good["error"] = serde_json::json!({"index": 1, "kind": "decode", "code": "decode"});
        assert_eq!(judge(v, &vectors, "made up", &good), Ok(()));

        let mut early = good.clone();
        early["error"]["index"] = 0.into();
        let mut other_code = good.clone();
        other_code["error"]["code"] = "capacity".into();
        let mut other_state = good.clone();
        other_state["state"] = serde_json::json!({"root": 1});
        let mut folded = v.expect.clone();
        folded["error"] = serde_json::Value::Null;
        for bad in [early, other_code, other_state, folded] {
            assert!(judge(v, &vectors, "made up", &bad).is_err(), "{bad}");
        }
    });
}
