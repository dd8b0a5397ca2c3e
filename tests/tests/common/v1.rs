//! The AG-UI 1.0 vectors (`tests/vectors/v1/`), read at run time, and
//! what their texts mean.

use serde_json::Value;

/// The files, read at run time (not embedded in every test binary).
const FILES: [&str; 3] = ["generated.jsonl", "handmade.jsonl", "python-sdk.jsonl"];

/// One 1.0 vector.
pub struct V1Vector {
    /// `file: name`.
    pub name: String,
    /// Each event's JSON text, as written in the file.
    pub events: Vec<String>,
    /// The reference's results.
    pub expect: Value,
}

/// The elements of the line's `events` array, as text: the array is the
/// line's last member (README: "events is last").
pub fn raw_events(line: &str) -> Vec<String> {
    let start = line.find("\"events\":").expect("events") + "\"events\":".len();
    let mut out = Vec::new();
    let (mut depth, mut in_str, mut esc) = (0usize, false, false);
    let mut from: Option<usize> = None;
    for (i, b) in line.bytes().enumerate().skip(start) {
        if in_str {
            match (esc, b) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' | b'[' | b'{' => {
                if depth == 1 && from.is_none() {
                    from = Some(i);
                }
                if b == b'"' {
                    in_str = true;
                } else {
                    depth += 1;
                }
            }
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    if let Some(s) = from.take() {
                        out.push(line[s..i].trim().to_owned());
                    }
                    break;
                }
            }
            b',' if depth == 1 => {
                if let Some(s) = from.take() {
                    out.push(line[s..i].trim().to_owned());
                }
            }
            c if depth == 1 && !c.is_ascii_whitespace() && from.is_none() => from = Some(i),
            _ => {}
        }
    }
    out
}

pub fn vectors() -> Vec<V1Vector> {
    let mut all = Vec::new();
    for file in FILES {
        // From the tests crate, or from another crate of the workspace.
        let dir = env!("CARGO_MANIFEST_DIR");
        let text = std::fs::read_to_string(format!("{dir}/vectors/v1/{file}"))
            .or_else(|_| std::fs::read_to_string(format!("{dir}/../tests/vectors/v1/{file}")))
            .expect("the v1 vectors");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(line).unwrap();
            let events = raw_events(line);
            assert_eq!(
                events.len(),
                v["events"].as_array().unwrap().len(),
                "{file}: {}",
                v["name"]
            );
            all.push(V1Vector {
                name: format!("{file}: {}", v["name"].as_str().unwrap()),
                events,
                expect: v["expect"].clone(),
            });
        }
    }
    all
}

/// The code a reference text maps to (tests/vectors/v1/README.md).
pub fn expected_code(kind: &str, message: &str) -> &'static str {
    const TABLE: &[(&str, &str)] = &[
        ("must have a toolCallName", "chunk_missing_name"),
        ("must have a ", "chunk_missing_id"),
        (
            "does not match the open stream's subagent",
            "chunk_owner_mismatch",
        ),
        ("does not match the open stream's", "chunk_field_mismatch"),
        ("Ambiguous", "chunk_ambiguous"),
        ("First event must be", "first_event"),
        ("has already errored", "run_errored"),
        ("has already finished with 'RUN_FINISHED'", "run_finished"),
        ("while a run is still active", "run_active"),
        ("A text message with ID", "message_active"),
        ("No active text message", "message_not_active"),
        ("A tool call with ID", "tool_call_active"),
        ("No active tool call", "tool_call_not_active"),
        ("A reasoning span with ID", "reasoning_span_active"),
        ("No active reasoning span", "reasoning_span_not_active"),
        ("A reasoning message with ID", "reasoning_message_active"),
        (
            "No active reasoning message",
            "reasoning_message_not_active",
        ),
        ("is already active for 'STEP_STARTED'", "step_active"),
        ("that was not started", "step_not_active"),
        ("that step is open under", "step_owner_mismatch"),
        ("its parent message", "tool_parent_owner_mismatch"),
        ("but its parent message", "tool_parent_owner_mismatch"),
        ("opener's subagent", "owner_mismatch"),
        ("is already active", "subagent_active"),
        ("has already finished in this run", "subagent_reused"),
        (
            "has not been started in this run",
            "subagent_parent_unknown",
        ),
        ("no active subagent found", "subagent_not_active"),
        ("while steps are still active", "unclosed_steps"),
        ("while text messages are still active", "unclosed_messages"),
        (
            "while reasoning messages are still active",
            "unclosed_reasoning_messages",
        ),
        (
            "while reasoning spans are still active",
            "unclosed_reasoning_spans",
        ),
        ("while tool calls are still active", "unclosed_tool_calls"),
        ("while subagents are still active", "unclosed_subagents"),
    ];
    if kind == "decode" {
        return "decode";
    }
    TABLE
        .iter()
        .find(|(text, _)| message.contains(text))
        .map_or("?", |(_, code)| code)
}

pub fn sse(events: &[String]) -> Vec<u8> {
    events
        .iter()
        .flat_map(|e| format!("data: {e}\n\n").into_bytes())
        .collect()
}

pub fn ndjson(events: &[String]) -> Vec<u8> {
    events
        .iter()
        .flat_map(|e| format!("{e}\n").into_bytes())
        .collect()
}
