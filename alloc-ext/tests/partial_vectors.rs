//! Conformance of `PartialArgs` with the reference traces: for every
//! TOOL_CALL_ARGS in `tests/vectors/*.jsonl`, the value after the delta is the
//! trace's `partialArgs`, and at TOOL_CALL_END `finish()` is its `args`.
//!
//! The trace lists the expanded, verified events; without chunk events the
//! expansion is the identity, so events and trace entries are matched by
//! walking both lists in order (an event whose type differs from the next
//! entry is one that was not applied). Streams with `*_CHUNK` events are
//! skipped.
//!
//! The reference reads the buffer from the tool call in `messages`, so the
//! test follows which tool calls exist: a TOOL_CALL_START for an existing one
//! keeps its buffer; a new one (or one a MESSAGES_SNAPSHOT or RUN_STARTED
//! input brought) restarts the buffer. The last good value is kept per
//! tool-call id for the whole stream, as the reference does.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use agui_alloc::partial::PartialArgs;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// JSON equality with numbers compared as doubles (as JavaScript does).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The tool calls, with their arguments, of the assistant messages in `messages`.
fn tool_calls(messages: &[Value]) -> impl Iterator<Item = (&str, &str)> {
    messages
        .iter()
        .filter(|m| text(m, "role") == "assistant")
        .flat_map(|m| {
            m.get("toolCalls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .map(|tc| {
            let args = tc.pointer("/function/arguments").and_then(Value::as_str);
            (text(tc, "id"), args.unwrap_or_default())
        })
}

/// What the test knows about one stream's tool calls.
#[derive(Default)]
struct Calls {
    /// Tool-call ids present in messages.
    exists: HashSet<String>,
    /// Message ids present (for RUN_STARTED input, which only adds new ones).
    messages: HashSet<String>,
    /// One `PartialArgs` per tool-call id, for the whole stream.
    args: HashMap<String, PartialArgs>,
}

impl Calls {
    /// A tool call now exists with `arguments` as its buffer.
    fn bring(&mut self, id: &str, arguments: &str) {
        if self.exists.insert(id.to_string()) {
            self.args
                .entry(id.to_string())
                .or_default()
                .restart(arguments);
        }
    }

    fn snapshot(&mut self, messages: &[Value]) {
        self.exists.clear();
        self.messages = messages.iter().map(|m| text(m, "id").to_string()).collect();
        for (id, arguments) in tool_calls(messages) {
            self.bring(id, arguments);
        }
    }

    fn run_input(&mut self, messages: &[Value]) {
        let new: Vec<Value> = messages
            .iter()
            .filter(|m| self.messages.insert(text(m, "id").to_string()))
            .cloned()
            .collect();
        for (id, arguments) in tool_calls(&new) {
            self.bring(id, arguments);
        }
    }
}

#[test]
fn partial_args_match_the_reference_traces() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no vectors in {}", dir.display());
    let (mut partials, mut finals, mut failures) = (0, 0, Vec::new());
    for file in &files {
        for line in std::fs::read_to_string(file).unwrap().lines() {
            if line.trim().is_empty() {
                continue;
            }
            let stream: Value = serde_json::from_str(line).unwrap();
            let name = text(&stream, "name");
            let events = stream["events"].as_array().unwrap();
            if events.iter().any(|e| text(e, "type").ends_with("_CHUNK")) {
                continue;
            }
            let trace = stream["expect"]["trace"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let mut calls = Calls::default();
            let mut next = trace.iter().peekable();
            for event in events {
                let kind = text(event, "type");
                let Some(entry) = next.next_if(|t| text(t, "type") == kind) else {
                    continue;
                };
                let id = text(event, "toolCallId");
                match kind {
                    // A replayed start keeps the buffer of an existing call.
                    "TOOL_CALL_START" if calls.exists.insert(id.to_string()) => {
                        calls.args.entry(id.to_string()).or_default().restart("");
                    }
                    "TOOL_CALL_ARGS" => {
                        let Some(want) = entry.get("partialArgs") else {
                            continue;
                        };
                        let args = calls.args.entry(id.to_string()).or_default();
                        let got = args.push(text(event, "delta"));
                        partials += 1;
                        if !same(got, want) {
                            failures.push(format!("{name}: ARGS {id}: got {got}, want {want}"));
                        }
                    }
                    "TOOL_CALL_END" => {
                        let Some(want) = entry.get("args") else {
                            continue;
                        };
                        let got = calls.args.entry(id.to_string()).or_default().finish();
                        finals += 1;
                        if !same(&got, want) {
                            failures.push(format!("{name}: END {id}: got {got}, want {want}"));
                        }
                    }
                    "MESSAGES_SNAPSHOT" => {
                        calls.snapshot(event["messages"].as_array().unwrap());
                    }
                    "RUN_STARTED" => {
                        if let Some(messages) = event.pointer("/input/messages") {
                            calls.run_input(messages.as_array().unwrap());
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Guard against a vacuous pass (the vectors hold 1771 and 489).
    assert!(
        partials > 1500 && finals > 400,
        "{partials} partial, {finals} final values checked"
    );
}
