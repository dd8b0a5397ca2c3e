//! The full client (core pipeline + reducer) against the public vectors:
//! error (frame, stage, code), messages, state and the per-event trace
//! (type, changed, partialArgs, args) equal the reference's, compared as
//! JSON (key order free, numbers by value), for NDJSON and SSE input in
//! random pieces.

mod common;

use agui_alloc::client::Client;
use agui_alloc::patch::json_eq;
use common::{Rng, Vector};
use serde_json::Value;

/// The client's result in the shape of a vector's `expect`.
fn outcome(pieces: &[&[u8]]) -> Value {
    common::client_outcome(Client::new().with_trace(), pieces)
}

fn expected(v: &Vector) -> Value {
    let mut want = v.expect.clone();
    if let Some(e) = want["error"].as_object_mut() {
        let kind = e["kind"].as_str().unwrap().to_owned();
        let message = e.remove("message").unwrap();
        e.insert(
            "code".into(),
            common::expected_code(&kind, message.as_str().unwrap()).into(),
        );
    }
    let want = want.as_object_mut().unwrap();
    want.remove("applyFailure");
    Value::Object(want.clone())
}

fn check(v: &Vector, label: &str, pieces: &[&[u8]]) -> Result<(), String> {
    let got = outcome(pieces);
    let want = expected(v);
    for key in ["error", "messages", "state", "trace"] {
        if !json_eq(&got[key], &want[key]) {
            return Err(format!(
                "{} ({}) [{label}]: {key} differs\n  got:  {}\n  want: {}",
                v.name, v.file, got[key], want[key]
            ));
        }
    }
    Ok(())
}

fn check_all(vectors: &[Vector]) {
    let mut rng = Rng::new(11);
    let mut failures = Vec::new();
    for v in vectors {
        let encodings = [
            ("ndjson", common::ndjson(&v.events)),
            ("sse", common::sse_multiline(&v.events)),
        ];
        for (label, bytes) in &encodings {
            let pieces = common::random_pieces(bytes, 23, &mut rng);
            if let Err(e) = check(v, label, &pieces) {
                failures.push(e);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn streams_jsonl_full_match() {
    let vectors = common::streams();
    assert_eq!(vectors.len(), 700);
    check_all(&vectors);
}

#[test]
fn handmade_jsonl_full_match() {
    let vectors = common::handmade();
    assert_eq!(vectors.len(), 45);
    check_all(&vectors);
}

#[test]
fn one_byte_reads_give_the_same_result() {
    for v in common::all().iter().step_by(7) {
        let bytes = common::ndjson(&v.events);
        let pieces: Vec<&[u8]> = bytes.chunks(1).collect();
        check(v, "byte by byte", &pieces).unwrap();
    }
}

/// Without a trace, every stream fed whole: runs of delta frames take the
/// client's express lane (`alloc-ext/src/client/express.rs`), which must
/// give the reference's error, messages and state as the general path
/// does.
#[test]
fn whole_streams_without_a_trace_match() {
    let mut failures = Vec::new();
    for v in common::all() {
        let encodings = [
            ("ndjson", common::ndjson(&v.events)),
            ("sse", common::sse_multiline(&v.events)),
        ];
        for (label, bytes) in &encodings {
            let got = common::client_outcome(Client::new(), &[bytes]);
            let want = expected(&v);
            for key in ["error", "messages", "state"] {
                if !json_eq(&got[key], &want[key]) {
                    failures.push(format!(
                        "{} ({}) [{label}, whole, no trace]: {key} differs\n  got:  {}\n  want: {}",
                        v.name, v.file, got[key], want[key]
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
