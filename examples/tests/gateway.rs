//! `agui-gateway` against real and misbehaving agents, with the test (or
//! the `agent` firmware in QEMU) as the device: the device line protocol
//! of docs/SPEC.md, bad device lines, a device that disconnects, and the
//! whole loop — firmware, gateway, pydantic-ai — end to end.
//!
//! The pydantic-ai backend needs the venv of `examples/agents/setup.sh`
//! (or `$AGUI_PYTHON`); the QEMU test needs `qemu-system-arm` and the
//! `thumbv7m-none-eabi` target. `.ci/run` installs all three; a test that
//! misses one fails saying which.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "../../alloc-ext/tests/support/server.rs"]
mod server;

mod backend;
use backend::Backend;

mod hostile_device;
use hostile_device::{text, wait_output, Device, Guard, GATEWAY, STEP};

const DECLARE: &str = r#"{"type":"TOOL","name":"set_led","description":"Set the LED","parameters":{"type":"object","properties":{"color":{"type":"string"},"on":{"type":"boolean"}},"required":["color","on"]}}"#;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The pydantic-ai AG-UI server of `examples/agents`, on a free port.
fn pydantic_backend() -> Backend {
    backend("pydantic_server.py")
}

/// One of the servers of `examples/agents`, started with `--port 0`.
fn backend(script: &str) -> Backend {
    Backend::start(script)
}

/// The same with more arguments for the script (e.g. `--certfile`).
fn backend_with(script: &str, args: &[&str]) -> Backend {
    Backend::start_with(script, args)
}

fn kinds(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

// ---------------------------------------------------------------------------
// Against the real pydantic-ai backend
// ---------------------------------------------------------------------------

/// The protocol's happy path, with the test as the device: the tool call
/// comes as verified NDJSON lines, the result goes back, the agent answers.
#[test]
fn device_lines_drive_two_runs_against_pydantic_ai() {
    let stderr = two_runs(&pydantic_backend());
    assert!(stderr.contains("5 messages in the thread"), "{stderr}");
}

/// The same with the LangGraph backend (`ag-ui-langgraph`).
#[test]
fn device_lines_drive_two_runs_against_langgraph() {
    two_runs(&backend("langgraph_server.py"));
}

/// The pydantic-ai sample over https, its self-signed certificate (made
/// by the test) trusted with `--ca-cert`.
#[test]
fn device_lines_drive_two_runs_over_https() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gateway-https");
    std::fs::create_dir_all(&dir).unwrap();
    let made = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert, made.cert.pem()).unwrap();
    std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
    let (cert, key) = (cert.to_str().unwrap(), key.to_str().unwrap());
    let backend = backend_with(
        "pydantic_server.py",
        &["--certfile", cert, "--keyfile", key],
    );
    assert!(backend.url.starts_with("https://"), "{}", backend.url);
    two_runs_on(Device::start_with(&backend.url, &["--ca-cert", cert]));

    // Untrusted: the run fails, the device gets a RUN_ERROR that says why.
    let mut device = Device::start(&backend.url);
    device.send(r#"{"id":"u1","role":"user","content":"Make the LED red"}"#);
    device.send(r#"{"type":"RUN"}"#);
    let error = device.event();
    assert_eq!(error["type"], "RUN_ERROR");
    assert_eq!(error["code"], "gateway_transport");
    assert_eq!(
        error["message"],
        format!(
            "TLS: the certificate of '{}' is not trusted (UnknownIssuer)",
            backend.url
        )
    );
    let out = device.finish(true);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "agui-gateway: run failed: TLS: the certificate of '{}' is not trusted (UnknownIssuer) \
             (--ca-cert FILE trusts a private CA or a self-signed certificate)\n",
            backend.url
        )),
        "{stderr}"
    );
}

/// Declare, ask, get the call, answer, get the answer, DONE; the
/// gateway's stderr.
fn two_runs(backend: &Backend) -> String {
    two_runs_on(Device::start(&backend.url))
}

fn two_runs_on(mut device: Device) -> String {
    device.send(DECLARE);
    device.send(r#"{"id":"u1","role":"user","content":"Make the LED red"}"#);
    device.send(r#"{"type":"RUN"}"#);
    let first = device.run_events();
    assert_eq!(first[0]["type"], "RUN_STARTED");
    assert_eq!(*kinds(&first).last().unwrap(), "RUN_FINISHED");
    let args: String = first
        .iter()
        .filter(|e| e["type"] == "TOOL_CALL_ARGS")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert!(
        first
            .iter()
            .filter(|e| e["type"] == "TOOL_CALL_ARGS")
            .count()
            > 1,
        "arguments streamed in pieces"
    );
    assert_eq!(
        serde_json::from_str::<Value>(&args).unwrap(),
        json!({"color": "red", "on": true})
    );
    let call = first
        .iter()
        .find(|e| e["type"] == "TOOL_CALL_START")
        .unwrap();
    assert_eq!(call["toolCallName"], "set_led");

    let result = json!({"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": call["toolCallId"], "content": "red and shining", "role": "tool"});
    device.send(&result.to_string());
    device.send(r#"{"type":"RUN"}"#);
    let second = device.run_events();
    let answer: String = second
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(
        answer,
        r#"The LED is set: the device answered "red and shining"."#
    );

    let out = device.finish(true);
    assert!(out.status.success(), "gateway: {}", text(&out.stderr));
    text(&out.stderr)
}

/// Each kind of bad device line gets its `!error` answer (and a line on
/// stderr); none of them changes the conversation, which then runs normally.
#[test]
fn bad_device_lines_are_reported_and_nothing_is_lost() {
    let backend = pydantic_backend();
    let mut device = Device::start(&backend.url);
    device.send(DECLARE);
    device.send(r#"{"id":"u1","role":"user","content":"Make the LED green"}"#);
    let cases: [(&str, &str); 8] = [
        ("this is not json", "!error not_json "),
        ("[1, 2]", "!error not_json not a JSON object"),
        (
            r#"{"type":"DANCE"}"#,
            "!error unknown_line unknown line type 'DANCE'",
        ),
        (r#"{"hello":"world"}"#, "!error unknown_line "),
        (
            r#"{"type":"TOOL","description":"no name"}"#,
            "!error bad_field TOOL: `name` is required",
        ),
        (
            r#"{"id":"u2","role":"user"}"#,
            "!error bad_field user message: ",
        ),
        (
            r#"{"type":"TOOL_CALL_RESULT","messageId":"r9","toolCallId":"nobody","content":"x"}"#,
            "!error not_awaited no call 'nobody' awaits a result",
        ),
        (r#"{"type":7}"#, "!error bad_field `type` must be a string"),
    ];
    for (line, answer) in cases {
        device.send(line);
        let got = device.line();
        assert!(
            got.starts_with(answer),
            "{line}: got {got:?}, want {answer:?}..."
        );
    }
    let long = format!(
        r#"{{"id":"u3","role":"user","content":"{}"}}"#,
        "x".repeat(70_000)
    );
    device.send(&long);
    assert_eq!(
        device.line(),
        "!error line_too_long longer than 65536 bytes; dropped"
    );
    device.writer.write_all(b"\xff\xfe\n").unwrap();
    assert!(device.line().starts_with("!error not_utf8 "));

    // The conversation is intact: one user message, one tool; the run works.
    device.send(r#"{"type":"RUN"}"#);
    let events = device.run_events();
    assert_eq!(*kinds(&events).last().unwrap(), "RUN_FINISHED");
    assert!(events
        .iter()
        .any(|e| e["type"] == "TOOL_CALL_START" && e["toolCallName"] == "set_led"));

    let out = device.finish(true);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("agui-gateway: device line 3: not JSON: "),
        "{stderr}"
    );
    assert!(
        stderr.contains("device line 11: longer than 65536 bytes; dropped [line_too_long]"),
        "{stderr}"
    );
    // user, reasoning, assistant (the call) after the one run: no bad line added anything.
    assert!(
        stderr.contains("the device is done (3 messages in the thread)"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

// ---------------------------------------------------------------------------
// Against misbehaving local servers
// ---------------------------------------------------------------------------

/// A device that goes away in the middle of a run: the run is cancelled,
/// the gateway says why and exits 1, no panic.
#[test]
fn device_disconnects_mid_run() {
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
    let out = device.finish(false);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the gateway took {:?} to notice",
        started.elapsed()
    );
    assert!(
        stderr.contains("the device disconnected (end of stream)"),
        "{stderr}"
    );
    // Said as what happened (it was "cancelled by the user").
    assert!(
        stderr.contains("agui-gateway: run cancelled: the device disconnected\n"),
        "{stderr}"
    );
    assert!(!stderr.contains("by the user"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A device that disconnects between runs, without DONE: exit 1, said.
#[test]
fn device_disconnects_between_runs() {
    let agent = server::Server::start(server::answer_with(vec![]));
    let mut device = Device::start(&agent.url());
    device.send(DECLARE);
    let out = device.finish(false);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "agui-gateway: the device disconnected (end of stream); the thread held 0 messages"
        ),
        "{stderr}"
    );
}

/// A frame the gateway rejects is not relayed; the run is closed for the
/// device with a RUN_ERROR naming the rule, and the device can run again.
#[test]
fn rejected_frame_is_not_relayed() {
    let agent = server::Server::start(server::answer_with(vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "nobody", "delta": "x"}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ]));
    let mut device = Device::start(&agent.url());
    device.send(r#"{"id":"u1","role":"user","content":"hi"}"#);
    device.send(r#"{"type":"RUN"}"#);
    let events = device.run_events();
    assert_eq!(kinds(&events), ["RUN_STARTED", "RUN_ERROR"]);
    assert_eq!(events[1]["code"], "gateway_protocol");
    let message = events[1]["message"].as_str().unwrap();
    assert!(
        message.starts_with("frame 1: verify error [message_not_active]"),
        "{message}"
    );
    // The same conversation runs again.
    device.send(r#"{"type":"RUN"}"#);
    assert_eq!(kinds(&device.run_events()), ["RUN_STARTED", "RUN_ERROR"]);
    let out = device.finish(true);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the last run failed: {}",
        text(&out.stderr)
    );
    assert_eq!(agent.requests().len(), 2);
}

/// No agent at the URL: the device gets a RUN_ERROR from the gateway.
#[test]
fn server_down_is_a_run_error_for_the_device() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut device = Device::start(&format!("http://127.0.0.1:{port}/"));
    device.send(r#"{"id":"u1","role":"user","content":"hi"}"#);
    device.send(r#"{"type":"RUN"}"#);
    let event = device.event();
    assert_eq!(event["type"], "RUN_ERROR");
    assert_eq!(event["code"], "gateway_transport");
    device.finish_failed_run();
}

/// SSE data split over several lines becomes one NDJSON line: the line
/// breaks (whitespace between JSON tokens) turn into spaces.
#[test]
fn multi_line_sse_data_becomes_one_line() {
    let agent = server::Server::start(|_req, conn, _stop| {
        let mut out = server::sse_head("text/event-stream");
        out.push_str(
            "data: {\"type\":\"RUN_STARTED\",\ndata: \"threadId\":\"t\",\"runId\":\"r\"}\n\n",
        );
        out.push_str(": a comment\n\n");
        out.push_str("data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n");
        server::send(conn, out.as_bytes());
    });
    let mut device = Device::start(&agent.url());
    device.send(r#"{"id":"u1","role":"user","content":"hi"}"#);
    device.send(r#"{"type":"RUN"}"#);
    assert_eq!(
        device.line(),
        r#"{"type":"RUN_STARTED", "threadId":"t","runId":"r"}"#
    );
    assert_eq!(
        device.line(),
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#
    );
    let out = device.finish(true);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// `--encoding proto` asks the agent for protobuf; the frames it sends
/// reach the device as the same NDJSON lines SSE would give, and an agent
/// that answers SSE anyway still works.
#[test]
fn proto_encoding_is_asked_for_and_relayed_as_ndjson() {
    use server::pb_event;
    let agent = server::Server::start(|req, conn, _stop| {
        let accept = req.header("accept").unwrap_or("");
        if accept.starts_with("application/vnd.ag-ui.event+proto") {
            let mut out = server::sse_head("application/vnd.ag-ui.event+proto").into_bytes();
            for frame in [
                pb_event(12, 11, &["t", "r"]),
                pb_event(1, 0, &["m1", "assistant"]),
                pb_event(2, 1, &["m1", "hi"]),
                pb_event(3, 2, &["m1"]),
                pb_event(13, 12, &["t", "r"]),
            ] {
                out.extend(frame);
            }
            server::send(conn, &out);
        } else {
            server::answer_with(vec![
                json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
                json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
            ])(req, conn, _stop);
        }
    });
    let mut device = Device::start_with(&agent.url(), &["--encoding", "proto"]);
    device.send(r#"{"id":"u1","role":"user","content":"hi"}"#);
    device.send(r#"{"type":"RUN"}"#);
    let events = device.run_events();
    assert_eq!(
        kinds(&events),
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED"
        ]
    );
    assert_eq!(events[2]["delta"], "hi");
    assert_eq!(events[1]["role"], "assistant");
    let out = device.finish(true);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        agent.requests()[0].header("accept"),
        Some("application/vnd.ag-ui.event+proto, text/event-stream;q=0.9")
    );

    // Without the flag, SSE is asked for (and this agent answers SSE).
    let mut device = Device::start(&agent.url());
    device.send(r#"{"id":"u1","role":"user","content":"hi"}"#);
    device.send(r#"{"type":"RUN"}"#);
    assert_eq!(kinds(&device.run_events()), ["RUN_STARTED", "RUN_FINISHED"]);
    let out = device.finish(true);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        agent.requests()[1].header("accept"),
        Some("text/event-stream")
    );
}

/// A malformed protobuf frame (field 0, which no message has) is not
/// relayed: the device gets the frames before it and a RUN_ERROR naming
/// the frame, as for a rejected JSON frame.
#[test]
fn malformed_proto_frame_is_not_relayed() {
    let agent = server::Server::start(|_req, conn, _stop| {
        let mut out = server::sse_head("application/vnd.ag-ui.event+proto").into_bytes();
        out.extend(server::pb_event(12, 11, &["t", "r"]));
        out.extend([0, 0, 0, 2, 0x00, 0x00]);
        out.extend(server::pb_event(13, 12, &["t", "r"]));
        server::send(conn, &out);
    });
    let mut device = Device::start_with(&agent.url(), &["--encoding", "proto"]);
    device.send(r#"{"id":"u1","role":"user","content":"hi"}"#);
    device.send(r#"{"type":"RUN"}"#);
    let events = device.run_events();
    assert_eq!(kinds(&events), ["RUN_STARTED", "RUN_ERROR"]);
    assert_eq!(events[1]["code"], "gateway_protocol");
    let message = events[1]["message"].as_str().unwrap();
    assert!(message.starts_with("frame 1: decode error"), "{message}");
    let out = device.finish(true);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
}

/// Usage errors exit 2 with one line.
#[test]
fn usage_errors_exit_2() {
    let out = Command::new(GATEWAY)
        .args(["http://127.0.0.1:1/"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(GATEWAY)
        .args(["ftp://x/", "--tcp", "127.0.0.1:1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "agui-gateway: bad URL: 'ftp://x/': expected an http:// or https:// URL\n"
    );
    let out = Command::new(GATEWAY)
        .args(["https://127.0.0.1:1/", "--tcp", "127.0.0.1:1"])
        .args(["--ca-cert", "Cargo.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "agui-gateway: --ca-cert Cargo.toml: TLS: no certificate (-----BEGIN CERTIFICATE-----) in the root certificates\n"
    );
    let out = Command::new(GATEWAY)
        .args(["http://127.0.0.1:1/", "--serial", "/dev/agui-no-such-port"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("agui-gateway: --serial /dev/agui-no-such-port: "));
}

// ---------------------------------------------------------------------------
// The firmware in QEMU, end to end
// ---------------------------------------------------------------------------

/// `examples/qemu/agent.sh` against the pydantic-ai backend: the agent
/// firmware declares set_led, gets the call, answers, and prints the answer.
#[test]
fn firmware_in_qemu_talks_to_pydantic_ai_through_the_gateway() {
    let found = Command::new("sh")
        .args(["-c", "command -v qemu-system-arm"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        found,
        "qemu-system-arm is not installed (Debian: apt-get install -y qemu-system-arm)"
    );
    let backend = pydantic_backend();
    let script = repo().join("examples/qemu/agent.sh");
    let run = Guard(
        Command::new("bash")
            .arg(&script)
            .arg(&backend.url)
            .env("AGUI_GATEWAY", GATEWAY)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    // The first run builds the firmware, on a shared machine.
    let out = wait_output(run, Duration::from_secs(600));
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "agent.sh failed:\n{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "set_led: color=blue on=true",
            r#"assistant: The LED is set: the device answered "LED blue on"."#,
        ],
        "{stderr}"
    );
    assert!(stderr.contains("run device-run-2: finished"), "{stderr}");
}

// ---------------------------------------------------------------------------
// The firmware in QEMU, with the test as the gateway
// ---------------------------------------------------------------------------

/// Fails with a clear message when QEMU is missing.
fn require_qemu() {
    let found = Command::new("sh")
        .args(["-c", "command -v qemu-system-arm"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        found,
        "qemu-system-arm is not installed (Debian: apt-get install -y qemu-system-arm)"
    );
}

/// The `agent` firmware, built once (release, its own workspace).
fn agent_elf() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let fw = repo().join("examples/firmware");
            let status = Command::new("cargo")
                .args(["build", "--release", "--quiet", "--bin", "agent"])
                .current_dir(&fw)
                .env_remove("CARGO_TARGET_DIR")
                .status()
                .unwrap();
            assert!(
                status.success(),
                "cannot build the agent firmware (rustup target add thumbv7m-none-eabi?)"
            );
            fw.join("target/thumbv7m-none-eabi/release/agent")
        })
        .clone()
}

/// The firmware in QEMU with UART0 on a TCP socket that the test holds.
struct Board {
    qemu: Guard,
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Board {
    fn boot() -> Board {
        require_qemu();
        let elf = agent_elf();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let qemu = Guard(
            Command::new("qemu-system-arm")
                .args(["-cpu", "cortex-m3", "-machine", "lm3s6965evb"])
                .args(["-display", "none", "-monitor", "none"])
                .arg("-serial")
                .arg(format!("tcp:127.0.0.1:{port},server=on,wait=on"))
                .args(["-semihosting-config", "enable=on,target=native", "-kernel"])
                .arg(&elf)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        let started = Instant::now();
        let stream = loop {
            match TcpStream::connect(("127.0.0.1", port)) {
                Ok(stream) => break stream,
                Err(_) if started.elapsed() < STEP => thread::sleep(Duration::from_millis(20)),
                Err(e) => panic!("QEMU's UART0 socket: {e}"),
            }
        };
        stream.set_read_timeout(Some(STEP)).unwrap();
        let mut board = Board {
            qemu,
            reader: BufReader::new(stream.try_clone().unwrap()),
            writer: stream,
        };
        // The boot lines: the declaration, the user message, RUN.
        assert!(board
            .line()
            .starts_with(r#"{"type":"TOOL","name":"set_led""#));
        assert_eq!(
            board.line(),
            r#"{"id":"u1","role":"user","content":"Please turn the LED blue."}"#
        );
        assert_eq!(board.line(), r#"{"type":"RUN"}"#);
        board
    }

    fn send(&mut self, text: &str) {
        self.writer.write_all(text.as_bytes()).unwrap();
    }

    fn line(&mut self) -> String {
        let mut line = String::new();
        let n = self.reader.read_line(&mut line).unwrap();
        assert!(n > 0, "the firmware closed the line");
        line.trim_end_matches('\n').to_owned()
    }

    /// The lines up to DONE, and the firmware's exit status.
    fn until_done(mut self) -> (Vec<String>, Option<i32>) {
        let mut lines = Vec::new();
        loop {
            let line = self.line();
            if line == r#"{"type":"DONE"}"# {
                break;
            }
            lines.push(line);
        }
        let out = wait_output(self.qemu, STEP);
        (lines, out.status.code())
    }
}

const RUN_STARTED: &str = "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n";

/// A `!error` line from the gateway is a fault for this firmware (its own
/// lines are well-formed): it logs it, says DONE and exits 1.
#[test]
fn firmware_stops_on_a_gateway_error_line() {
    let mut board = Board::boot();
    board.send("!error not_json not JSON: expected value\n");
    let (lines, status) = board.until_done();
    assert_eq!(
        lines,
        ["#agent: gateway says: error not_json not JSON: expected value"]
    );
    assert_eq!(status, Some(1));
}

/// The firmware verifies what it gets: an event for a message that was
/// never started is rejected by its own pipeline.
#[test]
fn firmware_rejects_a_stream_that_breaks_the_rules() {
    let mut board = Board::boot();
    board.send(RUN_STARTED);
    board.send("{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"ghost\",\"delta\":\"boo\"}\n");
    let (lines, status) = board.until_done();
    assert_eq!(
        lines,
        ["#agent: stream rejected at frame 1: verify message_not_active"]
    );
    assert_eq!(status, Some(1));
}

/// A RUN_ERROR (here the gateway's own) ends the run for the firmware: it
/// logs the code and asks again, with a fresh pipeline (so a bare
/// RUN_ERROR, as the gateway sends when the agent cannot be reached, is
/// understood too); the third failed run ends it: exit 1.
#[test]
fn firmware_asks_again_after_run_error_then_gives_up() {
    let mut board = Board::boot();
    let error =
        "{\"type\":\"RUN_ERROR\",\"message\":\"cannot connect\",\"code\":\"gateway_transport\"}\n";
    board.send(RUN_STARTED);
    board.send(error);
    for _ in 0..2 {
        assert_eq!(
            board.line(),
            "#agent: the run failed (RUN_ERROR gateway_transport); asking again"
        );
        assert_eq!(board.line(), r#"{"type":"RUN"}"#);
        board.send(error);
    }
    let (lines, status) = board.until_done();
    assert_eq!(
        lines,
        ["#agent: the run failed (RUN_ERROR gateway_transport); giving up"]
    );
    assert_eq!(status, Some(1));
}

/// Event lines fed a byte at a time, chunk events (the message they open
/// is closed by the next START, as chunk expansion does), and an assistant
/// text longer than the device's 512-byte buffer: an error line, never a
/// cut text.
#[test]
fn firmware_collects_text_across_pieces_and_refuses_to_cut_it() {
    let mut board = Board::boot();
    let short = "{\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m1\",\"delta\":\"Hello, \"}\n\
                 {\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m1\",\"delta\":\"device\\n!\"}\n";
    board.send(RUN_STARTED);
    for b in short.bytes() {
        board.writer.write_all(&[b]).unwrap();
    }
    let long = "x".repeat(600);
    board.send(&format!(
        "{{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m2\",\"role\":\"assistant\"}}\n\
         {{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m2\",\"delta\":\"{long}\"}}\n\
         {{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m2\"}}\n\
         {{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}}\n"
    ));
    let (lines, status) = board.until_done();
    assert_eq!(
        lines,
        [
            r"#assistant: Hello, device\n!",
            "#agent: assistant text longer than the device's buffer",
        ]
    );
    assert_eq!(status, Some(1));
}

// ---------------------------------------------------------------------------
// A real serial port: a pseudo-terminal
// ---------------------------------------------------------------------------

/// The device played on the master side of a pseudo-terminal (Python's
/// `pty`, stdlib): the gateway opens the slave with `--serial`, through the
/// serialport crate and termios like any USB serial adapter. The device
/// sends a bad line and gets `!error`, runs once against a local agent,
/// then says DONE.
#[test]
fn serial_port_on_a_pseudo_terminal() {
    let events = vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "over serial"}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ];
    // The device gets the server's JSON text unchanged, one line each.
    let want: Vec<String> = events.iter().map(Value::to_string).collect();
    let agent = server::Server::start(server::answer_with(events));
    let script = r#"
send("nonsense")
print(line())
send('{"id":"u1","role":"user","content":"hi"}')
send('{"type":"RUN"}')
while True:
    got = line()
    print(got)
    if "RUN_FINISHED" in got:
        break
send('{"type":"DONE"}')
sys.stderr.write(gw.stderr.read().decode())
sys.exit(gw.wait(timeout=30))
"#;
    let out = hostile_device::serial_device(&agent.url(), &["--baud", "57600"], script);
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("!error not_json "), "{stdout}");
    assert_eq!(lines[1..], want, "{stdout}");
    assert!(stderr.contains("at 57600 baud"), "{stderr}");
}

/// RUN with nothing in the thread is refused (no request is made); a
/// blank line is ignored; the device can then go on normally.
#[test]
fn run_with_no_message_is_refused() {
    let agent = server::Server::start(server::answer_with(vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ]));
    let mut device = Device::start(&agent.url());
    device.send("   ");
    device.send(r#"{"type":"RUN"}"#);
    assert_eq!(
        device.line(),
        "!error no_message RUN with no message in the thread"
    );
    assert!(agent.requests().is_empty());
    device.send(r#"{"id":"u1","role":"user","content":"hi"}"#);
    device.send(r#"{"type":"RUN"}"#);
    assert_eq!(kinds(&device.run_events()), ["RUN_STARTED", "RUN_FINISHED"]);
    let out = device.finish(true);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("device line 2: RUN with no message in the thread [no_message]")
    );
}
