//! The reducer on arbitrary event sequences. The input is NDJSON: every line
//! that is an event object is applied, in order, with no verification (the
//! reducer must not depend on the verifier for its own safety).
//! - no panic, and the result always serializes;
//! - the id index agrees with a scan: `message(id)` is the first message
//!   with that id, `tool_call(id)` the first tool call;
//! - the sizes kept incrementally (bytes the messages hold, the state's
//!   compact JSON length) equal a full walk after every event;
//! - the same bytes through the whole `Client` (keep-going) give the same
//!   messages and state for two different splits.
#![no_main]

use agui_alloc::client::Client;
use agui_alloc::event::Event;
use agui_alloc::reduce::Reducer;
use agui_alloc::size::message_bytes;
use agui_core::event::{EventType, Origin};
use agui_core::frame::Format;
use agui_fuzz::{seed_and_rest, split};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let (seed, input) = seed_and_rest(data);
    let mut reducer = Reducer::new();
    for line in input.split(|b| *b == b'\n').take(64) {
        let Ok(frame) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let Some(kind) = frame.get("type").and_then(Value::as_str).and_then(EventType::from_wire) else {
            continue;
        };
        if kind.is_chunk() {
            continue;
        }
        let id = ["messageId", "toolCallId", "stepName"]
            .iter()
            .find_map(|k| frame.get(*k).and_then(Value::as_str))
            .unwrap_or("");
        let Ok(ev) = Event::from_core(kind, Origin::Frame, id, &frame) else {
            continue;
        };
        reducer.apply(&ev);
        check_index(&reducer);
        check_sizes(&reducer);
    }
    serde_json::to_string(reducer.messages()).expect("messages serialize");
    serde_json::to_string(reducer.state()).expect("state serializes");

    let run = |pieces: &[&[u8]]| {
        let mut client = Client::with_format(Some(Format::Ndjson)).keep_going();
        for piece in pieces {
            client.feed(piece).expect("keep-going never fails");
        }
        client.finish().expect("keep-going never fails");
        (
            serde_json::to_value(client.messages()).unwrap(),
            client.state().clone(),
            client.accepted(),
            client.errors().len(),
        )
    };
    assert_eq!(run(&[input]), run(&split(input, seed)), "split changed the client's result");
});

/// The sizes the reducer keeps up to date (issue 11) equal a full walk.
fn check_sizes(reducer: &Reducer) {
    let held: usize = reducer.messages().iter().map(message_bytes).sum();
    assert_eq!(reducer.message_bytes(), held, "message bytes drifted");
    let state = serde_json::to_string(reducer.state()).expect("state serializes");
    assert_eq!(reducer.state_bytes(), state.len(), "state bytes drifted");
}

fn check_index(reducer: &Reducer) {
    let messages = reducer.messages();
    for (at, m) in messages.iter().enumerate().take(32) {
        let first = messages.iter().position(|x| x.id() == m.id()).unwrap();
        let found = reducer.message(m.id()).expect("indexed message missing");
        assert!(std::ptr::eq(found, &messages[first]), "index points past the first message {}", m.id());
        let _ = at;
        for call in m.tool_calls() {
            let first = messages
                .iter()
                .flat_map(|x| x.tool_calls())
                .find(|c| c.id == call.id)
                .unwrap();
            let found = reducer.tool_call(&call.id).expect("indexed tool call missing");
            assert!(std::ptr::eq(found, first), "tool-call index is not the first {}", call.id);
        }
    }
}
