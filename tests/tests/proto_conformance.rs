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
    let all = ["error", "messages", "state", "trace"];
    check_with(
        v,
        label,
        Client::proto().with_trace(),
        &all,
        pieces,
        failures,
    );
    // Without a trace, runs of delta frames take the client's express lane.
    let label = format!("{label}, no trace");
    check_with(v, &label, Client::proto(), &all[..3], pieces, failures);
}

fn check_with(
    v: &Vector,
    label: &str,
    client: Client,
    keys: &[&str],
    pieces: &[&[u8]],
    failures: &mut Vec<String>,
) {
    let got = common::client_outcome(client, pieces);
    let want = expected(v);
    for &key in keys {
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

/// A frame that fails twice in keep-going mode (over the frame limit, then
/// a bad tag; or a string that is not UTF-8, then a bad tag: fuzzing found
/// it) has one error, the first, whatever the split; the next frame is read.
#[test]
fn keep_going_reports_a_frame_failing_twice_once() {
    use agui_alloc::client::Limits;
    // RUN_STARTED whose threadId (70 bytes) ends in bytes that are not
    // UTF-8, then a tag cut by the frame's end.
    let mut bytes = vec![0, 0, 0, 85, 0x62, 83, 0x0a, 2, 0x08, 11, 0x12, 70];
    bytes.extend_from_slice(&[b'a'; 67]);
    bytes.extend_from_slice(&[0xff; 3 + 7]);
    // A valid RUN_STARTED after it: accepted.
    bytes.extend_from_slice(&[
        0, 0, 0, 12, 0x62, 0x0a, 0x0a, 0x02, 0x08, 0x0b, 0x12, 0x01, b't', 0x1a, 0x01, b'r',
    ]);
    for limit in [64, 1 << 20] {
        for step in [bytes.len(), 1, 5] {
            let mut client = Client::proto()
                .with_limits(Limits {
                    max_frame_bytes: limit,
                    ..Limits::default()
                })
                .keep_going();
            for piece in bytes.chunks(step) {
                client.feed(piece).unwrap();
            }
            client.finish().unwrap();
            let frames: Vec<u32> = client.errors().iter().map(|e| e.frame).collect();
            assert_eq!(
                frames,
                [0],
                "limit {limit}, step {step}: {:?}",
                client.errors()
            );
            assert_eq!(client.accepted(), 1, "limit {limit}, step {step}");
        }
    }
}
