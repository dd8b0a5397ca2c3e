//! `agui-gateway --protocol 1.0`: every run input declares
//! `protocolVersion: "1.0"` and the agent's answer is verified as 1.0
//! (SPEC section 9) before it is relayed; a stream the current protocol
//! refuses (an unknown event, which 1.0 drops) then reaches the device:
//! as sent with `--device-protocol 1.0`, as the 1.0 inbound processing
//! (compatibility boundary and enforcement) makes it for a device that
//! reads the current protocol (the default). The test is the device,
//! against scripted agents and pydantic-ai's `/approval` in 1.0.
//!
//! Needs the venv of `examples/agents/setup.sh` (or `$AGUI_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::process::Command;

use agui_alloc::client::Client;
use agui_alloc::v1::Inbound;
use serde_json::{json, Value};

#[path = "../../alloc-ext/tests/support/server.rs"]
mod server;

mod backend;
use backend::Backend;

mod hostile_device;
use hostile_device::{text, Device, GATEWAY};

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
    let mut device = Device::start_with(
        &agent.url(),
        &["--protocol", "1.0", "--device-protocol", "1.0"],
    );
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

/// An agent that answers every run with `events`.
fn scripted(events: Vec<Value>) -> server::Server {
    server::Server::start(server::answer_with(events))
}

/// What the 1.0 client's own inbound processing (compatibility boundary
/// and enforcement, SPEC 9.3 and 9.4) makes of `events`, one stream.
fn boundary(events: &[Value]) -> Vec<Value> {
    let mut inbound = Inbound::new();
    let mut warnings = Vec::new();
    events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| inbound.process(i, e.clone(), &mut warnings).unwrap())
        .collect()
}

/// A 1.0 stream with what only 1.0 has or says differently: a declared
/// version, an unknown event (dropped), an unknown key (stripped), a
/// retired `THINKING_*` span and message (now reasoning, with minted ids,
/// the title dropped), legacy nulls (made absent), a sub-agent tag.
fn v1_only() -> Vec<Value> {
    vec![
        json!({"type": "RUN_STARTED", "threadId": "device", "runId": "r1", "protocolVersion": "1.0", "rawEvent": null}),
        json!({"type": "FUTURE_EVENT", "x": 1}),
        json!({"type": "THINKING_START", "title": "plan"}),
        json!({"type": "THINKING_TEXT_MESSAGE_START"}),
        json!({"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "think"}),
        json!({"type": "THINKING_TEXT_MESSAGE_END"}),
        json!({"type": "THINKING_END"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant", "vendorExtra": 1, "subagentRunId": "helper"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hello"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}),
        json!({"type": "RUN_FINISHED", "threadId": "device", "runId": "r1", "result": null, "outcome": null}),
    ]
}

/// Issue 24 item 5: a device that reads only the current protocol (the
/// default `--device-protocol`) gets each frame as the 1.0 client's
/// inbound processing gives it, which a current reader takes whole.
#[test]
fn a_current_device_gets_what_the_boundary_gives() {
    let agent = scripted(v1_only());
    let mut device = Device::start_with(&agent.url(), &["--protocol", "1.0"]);
    let events = one_run(&mut device);
    let want = boundary(&v1_only());
    assert_eq!(events, want);
    // Not the stream as sent: dropped, translated, stripped.
    assert_eq!(
        kinds(&events),
        [
            "RUN_STARTED",
            "REASONING_START",
            "REASONING_MESSAGE_START",
            "REASONING_MESSAGE_CONTENT",
            "REASONING_MESSAGE_END",
            "REASONING_END",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED"
        ]
    );
    assert_eq!(
        events[1]["messageId"],
        "00000000-0000-4000-8000-000000000001"
    );
    assert!(events[0].get("rawEvent").is_none(), "{}", events[0]);
    assert!(events[6].get("vendorExtra").is_none(), "{}", events[6]);
    assert!(events[9].get("outcome").is_none(), "{}", events[9]);
    // The device's reader, current protocol, takes every line.
    let mut reader = Client::new();
    for event in &events {
        reader.feed(format!("{event}\n").as_bytes()).unwrap();
    }
    let out = device.finish(true);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// A frame the 1.0 client accepts but a current reader cannot read even
/// after the boundary (a sub-agent's events, a `cancelled` outcome) is not
/// relayed: the device's run ends there with RUN_ERROR
/// `gateway_device_protocol` naming the frame, and DONE says it did not
/// finish.
#[test]
fn a_frame_the_current_device_cannot_read_ends_its_run() {
    let start = json!({"type": "RUN_STARTED", "threadId": "device", "runId": "r1"});
    let finish = json!({"type": "RUN_FINISHED", "threadId": "device", "runId": "r1"});
    // Each stream, the frame the device cannot read, and why.
    let cases = [
        (
            vec![
                start.clone(),
                json!({"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "helper"}),
                json!({"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"}),
                finish.clone(),
            ],
            1,
            "unknown event type 'SUBAGENT_STARTED'",
        ),
        (
            vec![
                start.clone(),
                json!({"type": "RUN_FINISHED", "threadId": "device", "runId": "r1", "outcome": {"type": "cancelled"}}),
            ],
            1,
            "RUN_FINISHED: field `outcome`: `type` must be \"success\" or \"interrupt\"",
        ),
        (
            vec![
                start.clone(),
                json!({"type": "RUN_FINISHED", "threadId": "device", "runId": "r1", "outcome": {"type": "success", "pendingToolCallIds": ["c1"]}}),
            ],
            1,
            "RUN_FINISHED: field `outcome`: unknown key in the outcome object",
        ),
        (
            vec![
                start.clone(),
                json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f"}),
                json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
                json!({"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": [{"type": "text", "text": "x"}]}),
                finish.clone(),
            ],
            3,
            "TOOL_CALL_RESULT",
        ),
    ];
    for (stream, frame, why) in cases {
        let agent = scripted(stream.clone());
        let mut device = Device::start_with(&agent.url(), &["--protocol", "1.0"]);
        let events = one_run(&mut device);
        // The frames before it as they were, then the gateway's RUN_ERROR.
        assert_eq!(events[..frame], stream[..frame], "{events:#?}");
        assert_eq!(events.len(), frame + 1, "{events:#?}");
        let error = &events[frame];
        assert_eq!(error["type"], "RUN_ERROR", "{error}");
        assert_eq!(error["code"], "gateway_device_protocol", "{error}");
        let message = error["message"].as_str().unwrap();
        let said = format!(
            "frame {frame}: the device reads the current protocol, which refuses it: decode error [decode]: "
        );
        assert!(message.starts_with(&said), "{message}");
        assert!(message.contains(why), "{message}");
        let out = device.finish(true);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    }
}

/// A frame the boundary refuses (a malformed known field) is refused by
/// the relay's 1.0 client first: RUN_ERROR `gateway_protocol`, not junk.
#[test]
fn a_frame_the_boundary_refuses_is_not_relayed() {
    let agent = scripted(vec![
        json!({"type": "RUN_STARTED", "threadId": "device", "runId": "r1"}),
        json!({"type": "STEP_STARTED", "stepName": 5}),
        json!({"type": "RUN_FINISHED", "threadId": "device", "runId": "r1"}),
    ]);
    let mut device = Device::start_with(&agent.url(), &["--protocol", "1.0"]);
    let events = one_run(&mut device);
    assert_eq!(kinds(&events), ["RUN_STARTED", "RUN_ERROR"], "{events:#?}");
    assert_eq!(events[1]["code"], "gateway_protocol", "{}", events[1]);
    let message = events[1]["message"].as_str().unwrap();
    assert!(message.starts_with("frame 1: decode error"), "{message}");
    device.finish(true);
}

/// `--device-capacity` judges the converted line: the minted reasoning id
/// (36 bytes) is past a device that holds 32-byte ids, though the
/// `THINKING_START` the agent sent has no id at all.
#[test]
fn the_device_capacity_applies_to_the_converted_line() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("gateway-v1-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("small-ids.cap");
    std::fs::write(
        &file,
        "msgs = 8\ntools = 8\nsteps = 8\nid = 32\ndepth = 32\n",
    )
    .unwrap();
    let agent = scripted(v1_only());
    let mut device = Device::start_with(
        &agent.url(),
        &[
            "--protocol",
            "1.0",
            "--device-capacity",
            file.to_str().unwrap(),
        ],
    );
    let events = one_run(&mut device);
    assert_eq!(kinds(&events), ["RUN_STARTED", "RUN_ERROR"], "{events:#?}");
    assert_eq!(events[1]["code"], "gateway_capacity", "{}", events[1]);
    assert_eq!(
        events[1]["message"],
        "frame 2: messageId of 36 bytes; the device holds ids of 32 bytes (id)"
    );
    device.finish(true);
}

/// A current stream cannot be written as 1.0: `--device-protocol 1.0`
/// needs `--protocol 1.0` (usage error, exit 2).
#[test]
fn device_protocol_1_0_needs_protocol_1_0() {
    let out = Command::new(GATEWAY)
        .args(["http://127.0.0.1:1/", "--tcp", "127.0.0.1:1"])
        .args(["--device-protocol", "1.0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "agui-gateway: --device-protocol 1.0 needs --protocol 1.0\n"
    );
}
