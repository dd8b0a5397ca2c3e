//! `agui-gateway --device-encoding proto`: the test is a device that reads
//! protobuf. Each relayed event, the closing RUN_ERROR and the gateway's
//! own `!error` lines must reach it as SPEC section 11 says: events as
//! length-prefixed `Event` frames that the core's reader reads back as the
//! agent's events, `!` lines as text, and an event with no protobuf form
//! ending the device's run with RUN_ERROR gateway_device_protocol.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, Read};

use agui_core::proto::{ProtoFramer, ProtoPiece};
use serde_json::{json, Value};

#[path = "../../alloc-ext/tests/support/server.rs"]
mod server;

mod hostile_device;
use hostile_device::{text, Device};

/// What the device reads next: a protobuf frame (first byte 0x00: no frame
/// is 16 MiB) as the core's reader reads it, or a gateway `!` line.
enum FromGateway {
    Event(Value),
    Line(String),
}

fn next(device: &mut Device) -> FromGateway {
    let first = device.reader.fill_buf().unwrap()[0];
    if first == b'!' {
        return FromGateway::Line(device.line());
    }
    assert_eq!(first, 0, "neither a frame nor a gateway line");
    let mut len = [0u8; 4];
    device.reader.read_exact(&mut len).unwrap();
    let mut frame = len.to_vec();
    frame.resize(4 + u32::from_be_bytes(len) as usize, 0);
    device.reader.read_exact(&mut frame[4..]).unwrap();
    let mut framer: ProtoFramer = ProtoFramer::new();
    let (mut text, mut input) = (Vec::new(), &frame[..]);
    loop {
        let (used, piece) = framer.next(input);
        input = &input[used..];
        match piece {
            Some(ProtoPiece::Start) | None => {}
            Some(ProtoPiece::Data(d)) => text.extend_from_slice(d),
            Some(ProtoPiece::Text(t)) => text.extend_from_slice(t.as_bytes()),
            Some(ProtoPiece::End) => break,
            Some(ProtoPiece::Fail(e)) => panic!("the device cannot read the frame: {e}"),
        }
    }
    assert!(input.is_empty(), "bytes after the frame's end");
    FromGateway::Event(serde_json::from_slice(&text).unwrap())
}

fn run_events(device: &mut Device) -> Vec<Value> {
    let mut events = Vec::new();
    loop {
        let FromGateway::Event(event) = next(device) else {
            panic!("a gateway line in the middle of a run");
        };
        let kind = event["type"].as_str().unwrap().to_owned();
        events.push(event);
        if kind == "RUN_FINISHED" || kind == "RUN_ERROR" {
            return events;
        }
    }
}

/// An SSE agent's run reaches the device as protobuf frames that read as
/// the agent's events (with the reader's defaults); a bad device line is
/// still answered with a text `!error` line, told apart by its first byte.
#[test]
fn events_reach_the_device_as_protobuf_frames() {
    let agent = server::Server::start(server::answer_with(vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hé \"x\"\n"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1.5, "list": [true, null, "s"]}}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ]));
    let mut device = Device::start_with(&agent.url(), &["--device-encoding", "proto"]);
    device.send(r#"{"id":"u1","role":"user","content":"hi"}"#);
    device.send(r#"{"type":"RUN"}"#);
    let events = run_events(&mut device);
    assert_eq!(
        events,
        [
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hé \"x\"\n"}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"}),
            json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1.5, "list": [true, null, "s"]}}),
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
        ]
    );
    device.send("not json");
    let FromGateway::Line(line) = next(&mut device) else {
        panic!("an event where the gateway's !error line was due");
    };
    assert!(line.starts_with("!error not_json "), "{line}");
    let out = device.finish(true);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// Hostile agent: an event the protobuf schema has no place for
/// (THINKING_START, of the current protocol) is not sent; the device's run
/// ends there with a RUN_ERROR frame naming it.
#[test]
fn an_event_without_a_protobuf_form_ends_the_devices_run() {
    let agent = server::Server::start(server::answer_with(vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "THINKING_START"}),
        json!({"type": "THINKING_END"}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ]));
    let mut device = Device::start_with(&agent.url(), &["--device-encoding", "proto"]);
    device.send(r#"{"id":"u1","role":"user","content":"hi"}"#);
    device.send(r#"{"type":"RUN"}"#);
    let events = run_events(&mut device);
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[1]["type"], "RUN_ERROR");
    assert_eq!(events[1]["code"], "gateway_device_protocol");
    let message = events[1]["message"].as_str().unwrap();
    assert!(
        message.starts_with("frame 1: ") && message.contains("THINKING_START"),
        "{message}"
    );
    let out = device.finish(true);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
}
