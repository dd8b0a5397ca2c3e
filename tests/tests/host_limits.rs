//! Issue 22's first "done when": on a host, streams past the
//! microcontroller's fixed capacities (sub-agents one after another and 40
//! at once, a 120-run thread whose snapshots pass 512 messages, a snapshot
//! of 3,000 messages, 300 open tool calls and text messages, 200 open
//! steps, 2,000-byte ids, JSON nested 300 and 500 deep in a state snapshot,
//! a patch and tool arguments) fold, in both protocols, exactly as
//! `@ag-ui/client` 1.0.0 folds them: the vectors of `tests/vectors/host/`
//! (made by `tools/vectors/host.sh`) through the whole client, fed whole as
//! NDJSON and as SSE, comparing the error (frame, stage, code), the
//! messages, the state and the trace.
//!
//! Beyond the host's own limits the reference still folds; there this
//! client stops with the error `KNOWN` names, and what it folded before
//! equals the reference's fold of the frames before the error (the vector's
//! `NAME/before-K`).

mod common;

use agui_alloc::client::Client;
use agui_alloc::patch::json_eq;
use agui_core::protocol::{Protocol, Select};
use common::v1::{expected_code, ndjson, raw_events, sse};
use serde::Deserialize;
use serde_json::Value;

/// An intended difference from the reference: past a limit of this client's,
/// stated in docs/SPEC.md, the stream stops with this error at a frame from
/// the first one past the limit on, keeping everything folded before it.
struct Known {
    name: &'static str,
    stage: &'static str,
    code: &'static str,
    /// The limit, as SPEC states it.
    why: &'static str,
}

const KNOWN: &[Known] = &[
    Known {
        name: "state-snapshot-nested-600-past-limit",
        stage: "decode",
        code: "capacity",
        why: "frames nested deeper than the host's depth limit (512) are refused",
    },
    Known {
        name: "state-delta-nested-600-past-limit",
        stage: "decode",
        code: "capacity",
        why: "frames nested deeper than the host's depth limit (512) are refused",
    },
    Known {
        name: "tool-args-nested-600-past-limit",
        stage: "verify",
        code: "capacity",
        why: "tool-call arguments nested deeper than the state depth limit (512) are refused",
    },
];

/// One host-limit vector.
struct HostVector {
    file: &'static str,
    name: String,
    protocol: Protocol,
    /// Each event's JSON text, as written in the file.
    events: Vec<String>,
    expect: Value,
}

/// Parses JSON nested deeper than serde_json's default 128 levels (the
/// vectors hold values 600 deep).
fn parse_deep(text: &str) -> Value {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    Value::deserialize(&mut de).expect("a vector line is JSON")
}

fn load(file: &'static str) -> Vec<HostVector> {
    let dir = env!("CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string(format!("{dir}/vectors/host/{file}"))
        .expect("the host-limit vectors (tools/vectors/host.sh regen)");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v = parse_deep(line);
            let protocol = match v["protocol"].as_str() {
                Some("1.0") => Protocol::V1,
                Some("current") => Protocol::Current,
                other => panic!("{file}: unknown protocol {other:?}"),
            };
            let events = raw_events(line);
            assert_eq!(events.len(), v["events"].as_array().unwrap().len());
            HostVector {
                file,
                name: v["name"].as_str().unwrap().to_owned(),
                protocol,
                events,
                expect: v["expect"].clone(),
            }
        })
        .collect()
}

/// The reference's result as this client reports it: the error's text
/// mapped to its code, and for the current protocol no `RUN_FINISHED`
/// outcome in the trace (the current protocol has none; 0.0.58's result,
/// kept in the file where it differs, never does).
fn expected(v: &HostVector, expect: &Value) -> Value {
    let mut want = expect.clone();
    if let Some(e) = want["error"].as_object_mut() {
        let kind = e["kind"].as_str().unwrap().to_owned();
        let message = e.remove("message").unwrap();
        let code = expected_code(&kind, message.as_str().unwrap());
        e.insert("code".into(), code.into());
    }
    if v.protocol == Protocol::Current {
        for entry in want["trace"].as_array_mut().unwrap() {
            entry.as_object_mut().unwrap().remove("outcome");
        }
    }
    want
}

/// The client's result on the whole input, in the shape of `expect`.
fn outcome(v: &HostVector, bytes: &[u8]) -> Value {
    let client = Client::new()
        .with_protocol(Select::Fixed(v.protocol))
        .with_trace();
    common::client_outcome(client, &[bytes])
}

/// What differs between `got` and `want` on `keys`, for a person.
fn differences(got: &Value, want: &Value, keys: &[&str]) -> Option<String> {
    let differing: Vec<String> = keys
        .iter()
        .filter(|k| !json_eq(&got[**k], &want[**k]))
        .map(|k| {
            let cut = |x: &Value| x.to_string().chars().take(160).collect::<String>();
            format!("{k}: got {} / want {}", cut(&got[*k]), cut(&want[*k]))
        })
        .collect();
    (!differing.is_empty()).then(|| differing.join("; "))
}

fn check(v: &HostVector, all: &[HostVector], label: &str, bytes: &[u8]) -> Result<(), String> {
    let got = outcome(v, bytes);
    let at = format!("{}: {} [{label}]", v.file, v.name);
    let Some(known) = KNOWN.iter().find(|k| k.name == v.name) else {
        let want = expected(v, &v.expect);
        return match differences(&got, &want, &["error", "messages", "state", "trace"]) {
            None => Ok(()),
            Some(d) => Err(format!("{at}: {d}")),
        };
    };
    // A known, intended difference: our error, and the reference's fold of
    // the frames before it.
    let error = &got["error"];
    let frame = error["index"].as_u64().unwrap_or(u64::MAX);
    if error["kind"] != known.stage || error["code"] != known.code {
        return Err(format!(
            "{at}: should stop with {}/{} ({}), got error {error}",
            known.stage, known.code, known.why
        ));
    }
    let before = format!("{}/before-{frame}", v.name);
    let Some(prefix) = all.iter().find(|p| p.name == before) else {
        return Err(format!(
            "{at}: stopped at frame {frame}, which is not past the limit ({})",
            known.why
        ));
    };
    let want = expected(v, &prefix.expect);
    match differences(&got, &want, &["messages", "state", "trace"]) {
        None => Ok(()),
        Some(d) => Err(format!("{at}: what was folded before frame {frame}: {d}")),
    }
}

/// Runs every vector of `file` (its `/before-K` prefixes serve as
/// expectations only) and reports every one that differs.
fn check_file(file: &'static str, count: usize) {
    let vectors = load(file);
    assert_eq!(vectors.len(), count, "{file}");
    let mut failures = Vec::new();
    for v in vectors.iter().filter(|v| !v.name.contains("/before-")) {
        for (label, bytes) in [("ndjson", ndjson(&v.events)), ("sse", sse(&v.events))] {
            if let Err(e) = check(v, &vectors, label, &bytes) {
                failures.push(e);
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of the host-limit vectors of {file} differ from @ag-ui/client 1.0.0:\n{}",
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
    with_main_stack(|| check_file("v1.jsonl", 28));
}

#[test]
fn v1_thread_of_120_runs_folds_as_the_reference() {
    with_main_stack(|| check_file("v1-thread.jsonl", 1));
}

#[test]
fn current_streams_fold_as_the_reference() {
    with_main_stack(|| check_file("current.jsonl", 24));
}

/// Every stream past a limit has its `KNOWN` row and every row its stream,
/// in both protocols, so the table cannot rot.
#[test]
fn every_past_limit_stream_is_known() {
    with_main_stack(|| {
        for file in ["v1.jsonl", "current.jsonl"] {
            let vectors = load(file);
            let past: Vec<&str> = vectors
                .iter()
                .map(|v| v.name.as_str())
                .filter(|n| n.ends_with("-past-limit"))
                .collect();
            let known: Vec<&str> = KNOWN.iter().map(|k| k.name).collect();
            assert_eq!(past, known, "{file}");
            for name in past {
                assert!(
                    vectors
                        .iter()
                        .any(|v| v.name.starts_with(&format!("{name}/before-"))),
                    "{file}: {name} has no prefixes"
                );
            }
        }
    });
}
