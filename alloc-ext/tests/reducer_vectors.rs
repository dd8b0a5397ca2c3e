//! Replays the conformance vectors that have no `*_CHUNK` events straight
//! into the reducer (chunk expansion and verification are the core's job)
//! and compares messages, state and the trace with the reference's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use agui_alloc::event::Event;
use agui_alloc::patch::json_eq;
use agui_alloc::reduce::Reducer;
use agui_core::event::{EventType, Origin};
use serde_json::{json, Map, Value};

fn load(file: &str) -> Vec<Value> {
    let path = format!("{}/../tests/vectors/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{path}: {e}")))
        .collect()
}

fn has_chunk(stream: &Value) -> bool {
    stream["events"].as_array().into_iter().flatten().any(|e| {
        e.get("type")
            .and_then(Value::as_str)
            .and_then(EventType::from_wire)
            .is_some_and(EventType::is_chunk)
    })
}

/// The id the core hands out: messageId / toolCallId / stepName.
fn core_id(kind: EventType, frame: &Value) -> String {
    // The core's event table says which field holds the id.
    kind.id_field()
        .and_then(|field| frame[field.as_str()].as_str())
        .unwrap_or_default()
        .to_owned()
}

/// One trace entry as the replay tool prints it.
fn trace_entry(reducer: &Reducer, event: &Event, changed: &str) -> Value {
    let mut entry = Map::new();
    entry.insert("type".into(), json!(event.kind().as_str()));
    entry.insert("changed".into(), json!(changed));
    if let Some((key, value)) = reducer.trace_args(event) {
        entry.insert(key.into(), value.clone());
    }
    Value::Object(entry)
}

fn compare(what: &str, got: &Value, want: &Value) -> Result<(), String> {
    if json_eq(got, want) {
        Ok(())
    } else {
        Err(format!("{what} differ\n    got:  {got}\n    want: {want}"))
    }
}

/// Replays one stream; `Err` describes the first mismatch.
fn replay(stream: &Value) -> Result<(), String> {
    let events = stream["events"].as_array().ok_or("no events")?;
    let expect = &stream["expect"];
    let error = &expect["error"];
    let stop = error["index"].as_u64().map_or(events.len(), |i| i as usize);
    let mut reducer = Reducer::new();
    let mut trace = Vec::new();
    for (i, frame) in events.iter().take(stop).enumerate() {
        let name = frame["type"].as_str().unwrap_or_default();
        let kind = EventType::from_wire(name).ok_or_else(|| format!("frame {i}: type {name:?}"))?;
        let id = core_id(kind, frame);
        let event = Event::from_core(kind, Origin::Frame, &id, frame)
            .map_err(|e| format!("frame {i} ({name}) rejected: {e}"))?;
        let changed = reducer.apply(&event);
        trace.push(trace_entry(&reducer, &event, changed.as_str()));
    }
    check_decode_error(events, error)?;
    let want_trace = expect["trace"].as_array().ok_or("no trace")?;
    for (i, (got, want)) in trace.iter().zip(want_trace).enumerate() {
        compare(&format!("trace[{i}]"), got, want)?;
    }
    if trace.len() != want_trace.len() {
        return Err(format!(
            "trace has {} entries, want {}",
            trace.len(),
            want_trace.len()
        ));
    }
    let messages = serde_json::to_value(reducer.messages()).map_err(|e| e.to_string())?;
    compare("messages", &messages, &expect["messages"])?;
    compare("state", reducer.state(), &expect["state"])
}

/// A decode error at a frame whose type is known: `from_core` validates the
/// fields it reads (nested messages, run input, outcome included), so it
/// must reject the frame with the reference's own text.
fn check_decode_error(events: &[Value], error: &Value) -> Result<(), String> {
    if error["kind"] != "decode" {
        return Ok(());
    }
    let message = error["message"].as_str().unwrap_or_default();
    let index = error["index"].as_u64().unwrap_or_default() as usize;
    let frame = &events[index];
    let Some(kind) = frame
        .get("type")
        .and_then(Value::as_str)
        .and_then(EventType::from_wire)
    else {
        return Ok(()); // not JSON, or an unknown type: the core's to reject
    };
    match Event::from_core(kind, Origin::Frame, &core_id(kind, frame), frame) {
        Ok(_) => Err(format!(
            "frame {index} accepted, want decode error {message:?}"
        )),
        Err(e) if e.to_string() == message => Ok(()),
        Err(e) => Err(format!(
            "frame {index}: got {:?}, want {message:?}",
            e.to_string()
        )),
    }
}

fn run_file(file: &str) -> (usize, usize) {
    let mut applicable = 0;
    let mut failures = Vec::new();
    for stream in load(file) {
        if has_chunk(&stream) {
            continue;
        }
        applicable += 1;
        if let Err(why) = replay(&stream) {
            failures.push(format!("{}: {why}", stream["name"].as_str().unwrap_or("?")));
        }
    }
    for failure in &failures {
        eprintln!("MISMATCH {file} {failure}");
    }
    eprintln!(
        "{file}: {} of {applicable} chunk-free streams match",
        applicable - failures.len()
    );
    (applicable, failures.len())
}

#[test]
fn streams_vectors_match_the_reference() {
    let (applicable, failed) = run_file("streams.jsonl");
    assert!(applicable > 400, "only {applicable} applicable streams");
    assert_eq!(
        failed, 0,
        "{failed} of {applicable} streams differ (see MISMATCH lines)"
    );
}

#[test]
fn handmade_vectors_match_the_reference() {
    let (applicable, failed) = run_file("handmade.jsonl");
    assert!(applicable > 30, "only {applicable} applicable streams");
    assert_eq!(
        failed, 0,
        "{failed} of {applicable} streams differ (see MISMATCH lines)"
    );
}

#[test]
fn nested_message_error_is_found_here() {
    let stream = load("handmade.jsonl")
        .into_iter()
        .find(|s| s["name"] == "hand-schema-snapshot-bad-message")
        .expect("vector present");
    let frame = &stream["events"][1];
    let err = Event::from_core(EventType::MessagesSnapshot, Origin::Frame, "", frame).unwrap_err();
    assert_eq!(
        err.to_string(),
        stream["expect"]["error"]["message"].as_str().unwrap()
    );
}
