//! Shared helpers for the conformance tests: loading the vectors, encoding
//! streams as NDJSON / SSE, splitting them into pieces.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use agui_alloc::client::Client;
use serde_json::{json, Value};

pub mod host;
pub mod v1;

/// One conformance vector.
pub struct Vector {
    pub file: &'static str,
    pub name: String,
    pub events: Vec<Value>,
    pub expect: Value,
}

const STREAMS: &str = include_str!("../../vectors/streams.jsonl");
const HANDMADE: &str = include_str!("../../vectors/handmade.jsonl");

fn parse(file: &'static str, text: &str) -> Vec<Vector> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("vector line is JSON");
            Vector {
                file,
                name: v["name"].as_str().unwrap().to_owned(),
                events: v["events"].as_array().unwrap().clone(),
                expect: v["expect"].clone(),
            }
        })
        .collect()
}

/// The 700 generated streams.
pub fn streams() -> Vec<Vector> {
    parse("streams.jsonl", STREAMS)
}

/// The 45 hand-written streams.
pub fn handmade() -> Vec<Vector> {
    parse("handmade.jsonl", HANDMADE)
}

/// Both files.
pub fn all() -> Vec<Vector> {
    let mut v = streams();
    v.extend(handmade());
    v
}

/// One event as compact JSON with `type` first and the other keys after
/// it, sorted (serde_json's map order).
pub fn type_first(ev: &Value) -> String {
    let map = ev.as_object().unwrap();
    let mut out = String::from("{");
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort_by_key(|k| (k.as_str() != "type", (*k).clone()));
    for (i, k) in keys.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(k).unwrap());
        out.push(':');
        out.push_str(&serde_json::to_string(&map[k.as_str()]).unwrap());
    }
    out.push('}');
    out
}

/// The stream as NDJSON, `type` first.
pub fn ndjson(events: &[Value]) -> Vec<u8> {
    let mut out = String::new();
    for ev in events {
        out.push_str(&type_first(ev));
        out.push('\n');
    }
    out.into_bytes()
}

/// The stream as NDJSON with CRLF line ends, keys sorted (so `type` is
/// usually not first), and blank lines between events.
pub fn ndjson_sorted_crlf(events: &[Value]) -> Vec<u8> {
    let mut out = String::new();
    for ev in events {
        out.push_str(&serde_json::to_string(ev).unwrap());
        out.push_str("\r\n \t\r\n");
    }
    out.into_bytes()
}

/// The stream as SSE, one `data:` line per event.
pub fn sse(events: &[Value]) -> Vec<u8> {
    let mut out = String::new();
    for ev in events {
        out.push_str("data: ");
        out.push_str(&type_first(ev));
        out.push_str("\n\n");
    }
    out.into_bytes()
}

/// The stream as SSE with pretty-printed JSON over many `data:` lines,
/// comments, ignored fields and CRLF / CR line ends.
pub fn sse_multiline(events: &[Value]) -> Vec<u8> {
    let mut out = String::from("\u{feff}: a comment\r\n");
    for (i, ev) in events.iter().enumerate() {
        let eol = if i % 2 == 0 { "\r\n" } else { "\r" };
        out.push_str("event: agui");
        out.push_str(eol);
        out.push_str(&format!("id: {i}"));
        out.push_str(eol);
        for line in serde_json::to_string_pretty(ev).unwrap().lines() {
            out.push_str("data:");
            out.push_str(line);
            out.push_str(eol);
        }
        out.push_str(eol);
    }
    out.into_bytes()
}

/// A small deterministic generator (xorshift), so failures reproduce.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Splits `bytes` into pieces of 1 to `max` bytes.
pub fn random_pieces<'a>(bytes: &'a [u8], max: usize, rng: &mut Rng) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = 1 + rng.below(max.min(rest.len()));
        let (a, b) = rest.split_at(n);
        out.push(a);
        rest = b;
    }
    out
}

/// Maps the reference client's error text to our stable code (SPEC section
/// 4: "map them to the codes by their wording").
pub fn expected_code(kind: &str, message: &str) -> &'static str {
    match kind {
        "decode" => "decode",
        "transform" if message.contains("toolCallName") => "chunk_missing_name",
        "transform" => "chunk_missing_id",
        _ => verify_code(message),
    }
}

fn verify_code(m: &str) -> &'static str {
    let table: &[(&str, &str)] = &[
        ("First event must be", "first_event"),
        ("has already errored", "run_errored"),
        ("has already finished", "run_finished"),
        ("while a run is still active", "run_active"),
        ("A text message with ID", "message_active"),
        ("No active text message", "message_not_active"),
        ("A tool call with ID", "tool_call_active"),
        ("No active tool call", "tool_call_not_active"),
        ("is already active for", "step_active"),
        ("that was not started", "step_not_active"),
        ("while steps are still active", "unclosed_steps"),
        ("while text messages are still active", "unclosed_messages"),
        ("while tool calls are still active", "unclosed_tool_calls"),
        ("A thinking step is already in progress", "thinking_active"),
        ("A thinking step is not in progress", "thinking_not_active"),
        ("No active thinking step", "thinking_not_active"),
        (
            "A thinking message is already in progress",
            "thinking_message_active",
        ),
        ("No active thinking message", "thinking_message_not_active"),
    ];
    table
        .iter()
        .find(|(needle, _)| m.contains(needle))
        .map(|(_, code)| *code)
        .unwrap_or_else(|| panic!("no code for reference message {m:?}"))
}

/// A client's result on a stream fed in `pieces`, in the shape of a
/// vector's `expect`: error (index, stage as `kind`, code), trace,
/// messages, state.
pub fn client_outcome(mut client: Client, pieces: &[&[u8]]) -> Value {
    let mut result = Ok(());
    for piece in pieces {
        result = client.feed(piece);
        if result.is_err() {
            break;
        }
    }
    if result.is_ok() {
        result = client.finish();
    }
    let error = match result {
        Ok(()) => Value::Null,
        Err(e) => json!({"index": e.frame, "kind": e.stage.as_str(), "code": e.code.as_str()}),
    };
    let trace: Vec<Value> = client.trace().iter().map(|t| t.to_json()).collect();
    json!({
        "error": error,
        "trace": trace,
        "messages": serde_json::to_value(client.messages()).unwrap(),
        "state": client.state(),
    })
}
