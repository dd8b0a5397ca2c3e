//! `agui-replay --json --trace` on the protobuf encodings of the public
//! streams (tests/vectors/proto/, encoded by `@ag-ui/proto` 1.0.0): error
//! (frame, stage, code), messages, state and trace equal the reference's
//! fold of the same bytes, with `--format proto` and with the format
//! detected, at several read sizes; plus the protobuf-specific CLI cases
//! (an empty or truncated input, a text format forced onto protobuf bytes).

#[path = "../../tests/tests/common/mod.rs"]
mod common;

use std::process::Output;

use agui_alloc::patch::json_eq;
use serde_json::Value;

mod cli;

const STREAMS: &str = include_str!("../../tests/vectors/proto/streams.jsonl");
const HANDMADE: &str = include_str!("../../tests/vectors/proto/handmade.jsonl");

fn replay(args: &[&str], stdin: &[u8]) -> Output {
    cli::run(env!("CARGO_BIN_EXE_agui-replay"), args, stdin)
}

/// One vector: its name, where its expectation comes from, the protobuf
/// bytes, and the reference's fold.
struct Vector {
    name: String,
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

/// How many length-prefixed frames `bytes` holds (a valid stream's
/// accepted count).
fn frames(mut bytes: &[u8]) -> usize {
    let mut n = 0;
    while bytes.len() >= 4 {
        let len = u32::from_be_bytes(bytes[..4].try_into().unwrap()) as usize;
        bytes = &bytes[(4 + len).min(bytes.len())..];
        n += 1;
    }
    n
}

/// The reference's error as the CLI writes it, without its message.
fn expected_error(v: &Vector) -> Value {
    match v.expect["error"].as_object() {
        None => Value::Null,
        Some(e) => {
            let kind = e["kind"].as_str().unwrap();
            serde_json::json!({
                "index": e["index"],
                "stage": kind,
                "code": common::expected_code(kind, e["message"].as_str().unwrap()),
            })
        }
    }
}

#[test]
fn every_proto_vector_through_the_cli() {
    let read_sizes = ["8192", "1", "7", "64"];
    let mut vectors = load(STREAMS);
    vectors.extend(load(HANDMADE));
    assert_eq!(vectors.len(), 745);
    let mut failures = Vec::new();
    let mut checked = 0;
    for (i, v) in vectors.iter().enumerate() {
        // No trustworthy expectation (tests/tests/proto_conformance.rs).
        if v.from == "oracle-unproven" {
            continue;
        }
        checked += 1;
        // Half named, half detected from the zero first byte.
        let format = if i % 2 == 0 { "proto" } else { "auto" };
        let read_size = read_sizes[i % read_sizes.len()];
        let out = replay(
            &[
                "--json",
                "--trace",
                "--read-size",
                read_size,
                "--format",
                format,
            ],
            &v.bytes,
        );
        let what = format!("{} (--format {format}, read size {read_size})", v.name);
        let Ok(got) = serde_json::from_slice::<Value>(&out.stdout) else {
            failures.push(format!(
                "{what}: no JSON on stdout; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
            continue;
        };
        let want_error = expected_error(v);
        let code = out.status.code().unwrap();
        let mut error = got["error"].clone();
        if let Some(e) = error.as_object_mut() {
            if !e.remove("message").is_some_and(|m| m.is_string()) {
                failures.push(format!("{what}: the error has no message"));
            }
        }
        let frames = frames(&v.bytes);
        let checks = [
            ("ok", got["ok"] == Value::Bool(want_error.is_null())),
            (
                "exit code",
                code == if want_error.is_null() { 0 } else { 1 },
            ),
            (
                "accepted",
                got["accepted"] == want_error.get("index").cloned().unwrap_or(frames.into()),
            ),
            ("error", json_eq(&error, &want_error)),
            ("messages", json_eq(&got["messages"], &v.expect["messages"])),
            ("state", json_eq(&got["state"], &v.expect["state"])),
            ("trace", json_eq(&got["trace"], &v.expect["trace"])),
        ];
        for (name, ok) in checks {
            if !ok {
                failures.push(format!("{what}: {name} differs"));
            }
        }
    }
    // 745 less the 15 without a trustworthy expectation.
    assert_eq!(checked, 730);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

/// The transcript of a protobuf stream is the transcript of the same
/// stream as NDJSON: the encodings differ, the conversation does not.
#[test]
fn proto_transcript_matches_the_ndjson_one() {
    let v = &load(STREAMS)[0];
    assert!(v.expect["error"].is_null(), "{}: a valid stream", v.name);
    let json = common::all()
        .into_iter()
        .find(|j| j.name == v.name)
        .expect("the JSON vector of the same name");
    let ndjson = replay(&["--format", "ndjson"], &common::ndjson(&json.events));
    let proto = replay(&["--format", "proto"], &v.bytes);
    let detected = replay(&[], &v.bytes);
    assert_eq!(proto.status.code(), Some(0), "{proto:?}");
    let text = String::from_utf8(proto.stdout).unwrap();
    assert!(text.contains("ok: "), "{text}");
    assert_eq!(text, String::from_utf8(ndjson.stdout).unwrap());
    assert_eq!(text, String::from_utf8(detected.stdout).unwrap());
}

/// An empty input is a stream with no events in every format; a truncated
/// protobuf frame is a decode error naming the frame, exit 1; protobuf
/// bytes read as SSE or NDJSON do not pass as a success.
#[test]
fn proto_edge_inputs() {
    let out = replay(&["--format", "proto", "--json"], b"");
    assert_eq!(out.status.code(), Some(0));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["ok"], true);
    assert_eq!(got["accepted"], 0);

    let v = &load(STREAMS)[0];
    // The first frame whole, and 3 bytes of the second.
    let first = u32::from_be_bytes(v.bytes[..4].try_into().unwrap()) as usize + 4;
    let cut = &v.bytes[..first + 3];
    for format in ["proto", "auto"] {
        let out = replay(&["--format", format, "--json"], cut);
        assert_eq!(out.status.code(), Some(1), "{format}: {out:?}");
        let got: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(got["accepted"], 1, "{format}: {got}");
        assert_eq!(got["error"]["index"], 1, "{format}: {got}");
        assert_eq!(got["error"]["stage"], "decode", "{format}: {got}");
    }

    for format in ["sse", "ndjson"] {
        let out = replay(&["--format", format, "--json"], &v.bytes);
        assert_ne!(out.status.code(), Some(0), "{format}: {out:?}");
    }
}
