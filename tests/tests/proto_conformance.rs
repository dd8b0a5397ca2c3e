//! The protobuf transport against the reference: every public stream
//! encoded by `@ag-ui/proto` 1.0.0's encoder (tests/vectors/proto/, made by
//! tools/vectors/proto.sh), folded by `Client::proto` whole, in random
//! pieces and a byte at a time, must give the error (frame, stage, code),
//! trace, messages and state the reference client gives on what the
//! reference's decoder makes of the same bytes.

mod common;

use agui_alloc::client::Client;
use agui_alloc::patch::json_eq;
use common::Rng;
use serde_json::Value;

const STREAMS: &str = include_str!("../vectors/proto/streams.jsonl");
const HANDMADE: &str = include_str!("../vectors/proto/handmade.jsonl");

struct Vector {
    name: String,
    /// Where the expectation comes from (tools/oracle/proto-merge.mjs).
    from: String,
    bytes: Vec<u8>,
    expect: Value,
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

fn load(text: &str) -> Vec<Vector> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            Vector {
                name: v["name"].as_str().unwrap().to_owned(),
                from: v["from"].as_str().unwrap().to_owned(),
                bytes: hex(v["proto"].as_str().unwrap()),
                expect: v["expect"].clone(),
            }
        })
        .collect()
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
    want
}

fn check(v: &Vector, label: &str, pieces: &[&[u8]], failures: &mut Vec<String>) {
    let got = common::client_outcome(Client::proto().with_trace(), pieces);
    let want = expected(v);
    for key in ["error", "messages", "state", "trace"] {
        if !json_eq(&got[key], &want[key]) {
            failures.push(format!(
                "{} [{label}]: {key} differs\n  got:  {}\n  want: {}",
                v.name, got[key], want[key]
            ));
            return;
        }
    }
}

fn check_all(vectors: &[Vector], bytewise: bool) {
    let mut rng = Rng::new(25);
    let mut failures = Vec::new();
    for v in vectors {
        // The oracle's release differs from the vectors' reference on the
        // JSON stream itself: no trustworthy expectation (counted below).
        if v.from == "oracle-unproven" {
            continue;
        }
        check(v, "whole", &[&v.bytes], &mut failures);
        let pieces = common::random_pieces(&v.bytes, 23, &mut rng);
        check(v, "pieces", &pieces, &mut failures);
        if bytewise {
            let bytes: Vec<&[u8]> = v.bytes.chunks(1).collect();
            check(v, "bytes", &bytes, &mut failures);
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
}

#[test]
fn proto_streams_fold_as_the_reference() {
    let vectors = load(STREAMS);
    assert_eq!(vectors.len(), 700);
    let unproven = vectors
        .iter()
        .filter(|v| v.from == "oracle-unproven")
        .count();
    assert!(
        unproven <= 16,
        "{unproven} vectors without a trustworthy expectation"
    );
    check_all(&vectors, true);
}

#[test]
fn proto_handmade_fold_as_the_reference() {
    let vectors = load(HANDMADE);
    assert_eq!(vectors.len(), 45);
    check_all(&vectors, true);
}
