//! `agui-gateway --protocol 1.0`: every run input declares
//! `protocolVersion: "1.0"` and the agent's answer is verified as 1.0
//! (SPEC section 9) before it is relayed; a stream the current protocol
//! refuses (an unknown event, which 1.0 drops) then reaches the device.
//! The test is the device, against a scripted agent and pydantic-ai's
//! `/approval` in 1.0.
//!
//! Needs the venv of `examples/agents/setup.sh` (or `$AGUI_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use serde_json::{json, Value};

#[path = "../../alloc-ext/tests/support/server.rs"]
mod server;

mod backend;
use backend::Backend;

mod hostile_device;
use hostile_device::{text, Device};

fn kinds(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

/// An agent that answers with a 1.0 stream: an event type the current
/// protocol does not know, a key it does not know, then a text.
fn agent() -> server::Server {
    server::Server::start(|_req, conn, _stop| {
        let mut out = server::sse_head("text/event-stream");
        for event in [
            json!({"type": "RUN_STARTED", "threadId": "device", "runId": "r1"}),
            json!({"type": "FUTURE_EVENT", "x": 1}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant", "vendorExtra": 1}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hello"}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}),
            json!({"type": "RUN_FINISHED", "threadId": "device", "runId": "r1"}),
        ] {
            out.push_str(&server::frame(&event));
        }
        server::send(conn, out.as_bytes());
    })
}

/// One run of `agent()` with the test as the device; its events.
fn one_run(device: &mut Device) -> Vec<Value> {
    device.send(r#"{"id":"u1","role":"user","content":"hi"}"#);
    device.send(r#"{"type":"RUN"}"#);
    device.run_events()
}

#[test]
fn protocol_1_0_is_declared_and_the_answer_read_as_1_0() {
    let agent = agent();
    let mut device = Device::start_with(&agent.url(), &["--protocol", "1.0"]);
    let events = one_run(&mut device);
    assert_eq!(
        *kinds(&events).last().unwrap(),
        "RUN_FINISHED",
        "{events:#?}"
    );
    // Relayed as the agent sent it: a device with the 1.0 reader drops
    // the unknown event and strips the unknown key itself.
    assert_eq!(
        kinds(&events),
        [
            "RUN_STARTED",
            "FUTURE_EVENT",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED"
        ]
    );
    assert_eq!(events[2]["vendorExtra"], 1);
    let said: String = events
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(said, "hello");
    let out = device.finish(true);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let body: Value = serde_json::from_str(&agent.requests()[0].body).unwrap();
    assert_eq!(body["protocolVersion"], "1.0", "{body}");

    // The current protocol refuses the unknown event: the device gets the
    // gateway's RUN_ERROR, and the input declares no version.
    let agent = self::agent();
    let mut device = Device::start(&agent.url());
    let events = one_run(&mut device);
    let last = events.last().unwrap();
    assert_eq!(last["type"], "RUN_ERROR", "{events:#?}");
    assert_eq!(last["code"], "gateway_protocol");
    let out = device.finish(true);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let body: Value = serde_json::from_str(&agent.requests()[0].body).unwrap();
    assert!(body.get("protocolVersion").is_none(), "{body}");
}

/// pydantic-ai's approval in 1.0: the question, the answer, the door.
#[test]
fn protocol_1_0_against_pydantic_ai_approval() {
    let backend = Backend::start("pydantic_server.py");
    let url = format!("{}approval", backend.url);
    let mut device = Device::start_with(&url, &["--protocol", "1.0"]);
    device.send(r#"{"id":"u1","role":"user","content":"Open the front door"}"#);
    device.send(r#"{"type":"RUN"}"#);
    let asked = device.run_events();
    let finished = asked.last().unwrap();
    assert_eq!(finished["outcome"]["type"], "interrupt", "{asked:#?}");
    device.send(r#"{"type":"RESUME","interruptId":"int-call_unlock_door_1","status":"resolved","payload":{"approved":false}}"#);
    device.send(r#"{"type":"RUN"}"#);
    let answer: String = device
        .run_events()
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(answer, r#"unlock_door says: "The tool call was denied."."#);
    let out = device.finish(true);
    assert!(out.status.success(), "{}", text(&out.stderr));
}
