//! A device that restarts keeps its conversation (docs/SPEC.md section
//! 11, "A device that comes back"): `HELLO` is answered with a
//! resynchronising run (RUN_STARTED, MESSAGES_SNAPSHOT, STATE_SNAPSHOT,
//! RUN_FINISHED) of the conversation so far, and with `--reconnect` a
//! device that drops its TCP connection and listens again gets that run
//! unasked. The test is the device, against pydantic-ai (the LED agent and
//! `/approval`); a device repeating `HELLO` gets one run, not one per line.
//!
//! Needs the venv of `examples/agents/setup.sh` (or `$AGUI_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::io::BufReader;
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "../../alloc-ext/tests/support/server.rs"]
mod server;

mod backend;
use backend::Backend;

mod hostile_device;
use hostile_device::{text, Device, Guard, GATEWAY, STEP};

const DECLARE: &str = r#"{"type":"TOOL","name":"set_led","description":"Set the LED","parameters":{"type":"object","properties":{"color":{"type":"string"},"on":{"type":"boolean"}},"required":["color","on"]}}"#;
const HELLO: &str = r#"{"type":"HELLO"}"#;

fn kinds(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

/// The gateway's connection on `listener`, or a failure after [`STEP`].
fn accept(listener: &TcpListener) -> TcpStream {
    listener.set_nonblocking(true).unwrap();
    let started = Instant::now();
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false).unwrap();
                stream.set_read_timeout(Some(STEP)).unwrap();
                return stream;
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                assert!(started.elapsed() < STEP, "the gateway did not connect");
                thread::sleep(Duration::from_millis(10));
            }
            Err(e) => panic!("accept: {e}"),
        }
    }
}

/// The test as the device on a connection the gateway made.
fn device_on(gateway: Guard, stream: TcpStream) -> Device {
    Device {
        gateway,
        reader: BufReader::new(stream.try_clone().unwrap()),
        writer: stream,
    }
}

/// A resynchronising run: four events, checked; the snapshot's messages.
fn resync(device: &mut Device, run_id: &str) -> (Vec<Value>, Value) {
    let events = device.run_events();
    assert_eq!(
        kinds(&events),
        [
            "RUN_STARTED",
            "MESSAGES_SNAPSHOT",
            "STATE_SNAPSHOT",
            "RUN_FINISHED"
        ],
        "{events:#?}"
    );
    assert_eq!(events[0]["runId"], run_id);
    assert_eq!(events[0]["threadId"], "device");
    assert_eq!(events[3]["runId"], run_id);
    let messages = events[1]["messages"].as_array().unwrap().clone();
    (messages, events[3].clone())
}

#[test]
fn a_device_that_comes_back_gets_its_conversation() {
    let backend = Backend::start("pydantic_server.py");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let gateway = Guard(
        Command::new(GATEWAY)
            .args([&backend.url, "--tcp", &addr, "--reconnect", "30"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut device = device_on(gateway, accept(&listener));

    // At boot: nothing yet.
    device.send(HELLO);
    let (messages, finished) = resync(&mut device, "resync-1");
    assert_eq!(messages, Vec::<Value>::new());
    assert!(finished.get("outcome").is_none(), "{finished}");

    // The conversation: the call, the result, the answer.
    device.send(DECLARE);
    device.send(r#"{"id":"u1","role":"user","content":"Make the LED red"}"#);
    device.send(r#"{"type":"RUN"}"#);
    let first = device.run_events();
    let call = first
        .iter()
        .find(|e| e["type"] == "TOOL_CALL_START")
        .unwrap()["toolCallId"]
        .clone();
    let result = json!({"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": call, "content": "red and shining", "role": "tool"});
    device.send(&result.to_string());
    device.send(r#"{"type":"RUN"}"#);
    assert_eq!(*kinds(&device.run_events()).last().unwrap(), "RUN_FINISHED");

    // A line is handled once the run has ended at the gateway too.
    device.send(r#"{"type":"NOPE"}"#);
    assert!(device.line().starts_with("!error unknown_line "));

    // The board restarts: its connection drops, it listens again.
    let Device {
        gateway, writer, ..
    } = device;
    writer.shutdown(std::net::Shutdown::Both).unwrap();
    drop(writer);
    let mut device = device_on(gateway, accept(&listener));
    let (messages, _) = resync(&mut device, "resync-2");
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["user", "reasoning", "assistant", "tool", "assistant"],
        "{messages:#?}"
    );
    assert_eq!(messages[0]["content"], "Make the LED red");
    assert_eq!(messages[2]["toolCalls"][0]["id"], call);
    assert_eq!(messages[3]["content"], "red and shining");
    assert_eq!(
        messages[4]["content"],
        r#"The LED is set: the device answered "red and shining"."#
    );

    // Its HELLO after that is answered already: the next line is the
    // answer to a bad line, no second run. A HELLO after that is a new
    // start, and so is one right after it (a device may restart twice).
    device.send(HELLO);
    device.send(r#"{"type":"NOPE"}"#);
    let next = device.line();
    assert!(next.starts_with("!error unknown_line "), "{next}");
    device.send(r#"{"id":"u2","role":"user","content":"Thanks"}"#);
    device.send(HELLO);
    device.send(HELLO);
    let (messages, _) = resync(&mut device, "resync-3");
    assert_eq!(messages.len(), 6);
    resync(&mut device, "resync-4");

    let out = device.finish(true);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    for said in [
        "agui-gateway: the device said HELLO: resynchronising run resync-1 (0 messages, ",
        "; waiting up to 30 s for it (--reconnect)\n",
        &format!("agui-gateway: the device is back on tcp {addr}\n"),
        "agui-gateway: the device came back: resynchronising run resync-2 (5 messages, ",
    ] {
        assert!(stderr.contains(said), "{said:?} in {stderr}");
    }
}

/// The last run's questions come back with it: the resynchronising
/// RUN_FINISHED carries them as its interrupt outcome, and the device
/// answers as after the run itself.
#[test]
fn a_device_that_restarts_is_asked_again() {
    let backend = Backend::start("pydantic_server.py");
    let mut device = Device::start(&format!("{}approval", backend.url));
    device.send(r#"{"id":"u1","role":"user","content":"Open the front door"}"#);
    device.send(r#"{"type":"RUN"}"#);
    let asked = device.run_events();
    let outcome = asked.last().unwrap()["outcome"].clone();
    assert_eq!(outcome["type"], "interrupt", "{asked:#?}");
    device.send(HELLO);
    let (messages, finished) = resync(&mut device, "resync-1");
    assert_eq!(messages.len(), 2, "{messages:#?}");
    assert_eq!(finished["outcome"]["type"], "interrupt");
    let questions = finished["outcome"]["interrupts"].as_array().unwrap();
    assert_eq!(questions.len(), 1);
    assert_eq!(questions[0]["id"], "int-call_unlock_door_1");
    assert_eq!(
        questions[0]["message"],
        r#"Approve unlock_door({"door":"front"})?"#
    );
    device.send(r#"{"type":"RESUME","interruptId":"int-call_unlock_door_1","status":"resolved","payload":{"approved":true}}"#);
    device.send(r#"{"type":"RUN"}"#);
    let answer: String = device
        .run_events()
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(answer, r#"unlock_door says: "the front door is unlocked"."#);
    // Answered: a HELLO now has no question in it.
    device.send(HELLO);
    let (_, finished) = resync(&mut device, "resync-2");
    assert!(finished.get("outcome").is_none(), "{finished}");
    let out = device.finish(true);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// Without `--reconnect` a device that drops its connection ends the
/// gateway as before (exit 1); `--reconnect` needs `--tcp`.
#[test]
fn without_reconnect_a_lost_device_ends_the_gateway() {
    let mut device = Device::start("http://127.0.0.1:9/");
    device.send(HELLO);
    resync(&mut device, "resync-1");
    let out = device.finish(false);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let out = Command::new(GATEWAY)
        .args([
            "http://127.0.0.1:9/",
            "--serial",
            "/dev/null",
            "--reconnect",
            "5",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--tcp"), "{}", text(&out.stderr));
}

/// A device that says HELLO during a run has restarted: the run is
/// cancelled at once (nobody reads it), no closing RUN_ERROR is sent, and
/// the next lines the device gets are its resynchronising run, which holds
/// what the cancelled run had folded.
#[test]
fn hello_during_a_run_cancels_it_without_a_run_error() {
    let agent = server::Server::start(|_req, conn, stop| {
        let mut out = server::sse_head("text/event-stream");
        out.push_str(&server::frame(
            &json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        ));
        out.push_str(&server::frame(
            &json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
        ));
        server::send(conn, out.as_bytes());
        // Never ends by itself.
        stop.sleep(Duration::from_secs(30));
    });
    let mut device = Device::start(&agent.url());
    device.send(r#"{"id":"u1","role":"user","content":"hi"}"#);
    device.send(r#"{"type":"RUN"}"#);
    assert_eq!(device.event()["type"], "RUN_STARTED");
    assert_eq!(device.event()["type"], "TEXT_MESSAGE_START");
    let started = Instant::now();
    device.send(HELLO);
    let (messages, _) = resync(&mut device, "resync-1");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the run went on for {:?}",
        started.elapsed()
    );
    assert_eq!(messages[0]["content"], "hi", "{messages:#?}");
    let out = device.finish(true);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("agui-gateway: run cancelled: the device restarted (HELLO)\n"),
        "{stderr}"
    );
    // The cancelled run did not finish: DONE after it exits 1.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
}
