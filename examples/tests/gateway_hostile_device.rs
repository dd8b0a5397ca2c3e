//! `agui-gateway` against a hostile device (issue 23, the gateway's device
//! side): the device is untrusted, like the agent. Each test plays one
//! attack with the fixture of `hostile_device/` and fails without its fix:
//! a flood of lines during a run (bounded queue, `!error busy`), tools and
//! messages past every limit (`!error over_limit`, nothing taken), a
//! device that stops reading (write timeout), one that goes away mid-run
//! (said as such), control characters for the terminal (escaped), and a
//! run that never ends (`--max-run-time`). The agent's side of the
//! gateway is played too, with `hostile_agent/`: a redirect to another
//! origin, a password in the URL.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

mod hostile_agent;
use hostile_agent::server;

mod hostile_device;
use hostile_device::{serial_device, text, Device, GATEWAY};

/// A line with no effect but a known answer: it marks the end of a burst.
const MARK: &str = r#"{"type":"MARK"}"#;
const MARK_ANSWER: &str = "!error unknown_line unknown line type 'MARK'";

fn user(id: &str, content: &str) -> String {
    json!({"id": id, "role": "user", "content": content}).to_string()
}

fn tool(name: &str) -> String {
    json!({"type": "TOOL", "name": name}).to_string()
}

/// An agent that starts a run, holds it open until `release` is set, then
/// finishes it.
fn held_run(release: Arc<AtomicBool>) -> server::Server {
    server::Server::start(move |_req, conn, stop| {
        let mut out = server::sse_head("text/event-stream");
        out.push_str(&server::frame(
            &json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        ));
        server::send(conn, out.as_bytes());
        while !release.load(Ordering::Relaxed) && stop.sleep(Duration::from_millis(10)) {}
        server::send(
            conn,
            server::frame(&json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}))
                .as_bytes(),
        );
    })
}

/// M4: lines sent during a run wait in a bounded queue. With room for 4,
/// the 6 lines beyond it are dropped and answered `!error busy` at once
/// (unbounded, 10,000 lines of 60 KB took 639 MB); the 4 are taken after
/// the run.
#[test]
fn lines_sent_during_a_run_wait_in_a_bounded_queue() {
    let release = Arc::new(AtomicBool::new(false));
    let agent = held_run(Arc::clone(&release));
    let mut device = Device::start_with(&agent.url(), &["--max-queued-lines", "4"]);
    device.send(&user("u1", "hi"));
    device.send(r#"{"type":"RUN"}"#);
    assert_eq!(device.event()["type"], "RUN_STARTED");
    for n in 2..12 {
        device.send(&user(&format!("u{n}"), &"x".repeat(60_000)));
    }
    let busy: Vec<String> = (0..6).map(|_| device.line()).collect();
    for answer in &busy {
        assert_eq!(
            answer,
            "!error busy 4 lines already wait for the run to end; dropped, send it again later"
        );
    }
    release.store(true, Ordering::Relaxed);
    assert_eq!(device.event()["type"], "RUN_FINISHED");
    // As a device should: a line answered busy is sent again.
    loop {
        device.send(MARK);
        let answer = device.line();
        if !answer.starts_with("!error busy ") {
            assert_eq!(answer, MARK_ANSWER);
            break;
        }
    }
    let out = device.finish(true);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("device line 7: 4 lines already wait for the run to end; dropped, send it again later [busy]"),
        "{stderr}"
    );
    // u1 and the 4 that waited; none of the dropped ones.
    assert!(
        stderr.contains("the device is done (5 messages in the thread)"),
        "{stderr}"
    );
}

/// Between runs a full queue only means the gateway is behind: the
/// reader waits for room (the device waits on the serial line or socket),
/// and no line is refused.
#[test]
fn lines_between_runs_wait_for_room_and_are_all_taken() {
    let agent = server::Server::start(server::answer_with(vec![]));
    let mut device = Device::start_with(&agent.url(), &["--max-queued-lines", "1"]);
    for n in 0..300 {
        device.send(&user(&format!("u{n}"), &"x".repeat(1_000)));
    }
    device.send(MARK);
    assert_eq!(device.answers_until(MARK_ANSWER), [MARK_ANSWER]);
    let out = device.finish(true);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("the device is done (300 messages in the thread)"),
        "{stderr}"
    );
}

/// M5: tools and messages past `--max-tools`, `--max-messages` and
/// `--max-input-bytes` are refused with `!error over_limit` and not taken:
/// the run's request holds only what was accepted (unchecked, 5,000 tools
/// of 60 KB took 599 MB and made a 300 MB POST).
#[test]
fn tools_and_messages_past_the_limits_are_refused_and_not_taken() {
    let agent = server::Server::start(server::answer_with(vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ]));
    let limits = [
        "--max-tools",
        "2",
        "--max-messages",
        "3",
        "--max-input-bytes",
        "100000",
    ];
    let mut device = Device::start_with(&agent.url(), &limits);
    let big = "x".repeat(60_000);
    for line in [
        tool("t1"),
        tool("t2"),
        tool("t3"),
        tool("t1"), // declared again: replaces, not a third tool
        user("u1", &big),
        user("u2", &big),
        user("u3", "small"),
        user("u4", "small"),
        user("u5", "small"),
        MARK.to_owned(),
    ] {
        device.send(&line);
    }
    let answers = device.answers_until(MARK_ANSWER);
    assert_eq!(answers.len(), 4, "{answers:#?}");
    assert_eq!(
        answers[0],
        "!error over_limit tool 't3': the device declared 2 tools already (--max-tools)"
    );
    assert!(
        answers[1].starts_with("!error over_limit 600")
            && answers[1].ends_with("bytes, over 100000 (--max-input-bytes)"),
        "{}",
        answers[1]
    );
    assert_eq!(
        answers[2],
        "!error over_limit the thread holds 3 messages already (--max-messages)"
    );
    device.send(r#"{"type":"RUN"}"#);
    assert_eq!(device.run_events().len(), 2);
    let out = device.finish(true);
    assert!(out.status.success(), "{}", text(&out.stderr));

    let request = &agent.requests()[0];
    assert!(request.body.len() <= 100_000, "{}", request.body.len());
    let input: Value = serde_json::from_str(&request.body).unwrap();
    let names: Vec<&str> = input["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["t1", "t2"]);
    let ids: Vec<&str> = input["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["u1", "u3", "u4"]);
}

/// L1: a device that stops reading in the middle of a run (here the
/// master side of a pseudo-terminal that nobody reads) no longer holds
/// the gateway forever: after `--write-timeout` the run is cancelled, the
/// gateway says why, and it still answers the device's lines.
#[test]
fn a_device_that_stops_reading_is_given_up() {
    let agent = server::Server::start(|_req, conn, stop| {
        let mut out = server::sse_head("text/event-stream");
        out.push_str(&server::frame(
            &json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        ));
        out.push_str(&server::frame(
            &json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
        ));
        server::send(conn, out.as_bytes());
        let delta = server::frame(
            &json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "y".repeat(1000)}),
        );
        // Far more than the pseudo-terminal holds; then silence.
        for _ in 0..2_000 {
            if !server::send(conn, delta.as_bytes()) {
                return;
            }
        }
        stop.sleep(Duration::from_secs(60));
    });
    let script = r#"
send('{"id":"u1","role":"user","content":"hi"}')
send('{"type":"RUN"}')
said = stderr_until("run cancelled")
send('{"type":"DONE"}')
said += gw.stderr.read().decode()
print(said)
sys.exit(gw.wait(timeout=30))
"#;
    let out = serial_device(&agent.url(), &["--write-timeout", "1"], script);
    let said = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}\n{}", text(&out.stderr));
    assert!(
        said.contains(
            "agui-gateway: run cancelled: the device stopped taking lines: \
             the device took no byte for 1 s (--write-timeout)"
        ),
        "{said}"
    );
    assert!(said.contains("the device is done"), "{said}");
}

/// H2: what the device and the agent say reaches the terminal with its
/// control characters escaped: the device's `#` log lines (stdout), a
/// tool name and an unknown line type (stderr), the agent's RUN_ERROR
/// message (stderr). ESC, C1 (U+009B, an 8-bit CSI) and bidi overrides
/// (U+202E) are written as `\u{..}`.
#[test]
fn peer_text_reaches_the_terminal_escaped() {
    let agent = server::Server::start(server::answer_with(vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "RUN_ERROR", "message": "\u{1b}]0;pwned\u{7}\u{1b}[2J"}),
    ]));
    let mut device = Device::start(&agent.url());
    device.send_bytes("#log \u{1b}]52;c;Y2xpcA==\u{7} \u{9b}31m \u{202e}txt.exe\n".as_bytes());
    device.send(&tool("set_led\u{1b}]0;title\u{7}"));
    device.send("{\"type\":\"\u{9b}2J\u{202e}\"}");
    assert!(device.line().starts_with("!error unknown_line "));
    device.send(&user("u1", "hi"));
    device.send(r#"{"type":"RUN"}"#);
    assert_eq!(device.run_events().len(), 2);
    let out = device.finish(true);
    for (name, stream) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let shown = text(stream);
        assert!(
            !shown.contains(['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}']),
            "{name}: {shown:?}"
        );
    }
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(
        stdout,
        "log \\u{1b}]52;c;Y2xpcA==\\u{7} \\u{9b}31m \\u{202e}txt.exe\n"
    );
    assert!(
        stderr.contains("device declares tool set_led\\u{1b}]0;title\\u{7}\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("unknown line type '\\u{9b}2J\\u{202e}' [unknown_line]"),
        "{stderr}"
    );
    assert!(
        stderr.contains("\\u{1b}]0;pwned\\u{7}\\u{1b}[2J"),
        "{stderr}"
    );
}

/// L3: an agent that keeps a run busy forever (a frame every 20 ms, so the
/// idle timeout never fires) is stopped by `--max-run-time`; the device
/// gets a RUN_ERROR that says so.
#[test]
fn max_run_time_ends_a_run_that_never_ends() {
    let agent = server::Server::start(|_req, conn, stop| {
        let mut out = server::sse_head("text/event-stream");
        out.push_str(&server::frame(
            &json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        ));
        out.push_str(&server::frame(
            &json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
        ));
        server::send(conn, out.as_bytes());
        let delta =
            server::frame(&json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "."}));
        while stop.sleep(Duration::from_millis(20)) && server::send(conn, delta.as_bytes()) {}
    });
    let mut device = Device::start_with(&agent.url(), &["--max-run-time", "1"]);
    device.send(&user("u1", "hi"));
    device.send(r#"{"type":"RUN"}"#);
    // A frame every 20 ms: a run cut at 1 s has some 50; one that is not
    // cut is given up here, not read forever.
    let mut last = device.event();
    for _ in 0..1_000 {
        if last["type"] == "RUN_ERROR" {
            break;
        }
        last = device.event();
    }
    assert_eq!(last["type"], "RUN_ERROR");
    assert_eq!(last["code"], "gateway_transport");
    device.finish_failed_run();
}

/// L7: a zero timeout is a usage error (exit 2), as in agui-chat, not a
/// gateway whose every run fails.
#[test]
fn zero_timeouts_are_usage_errors() {
    for flag in ["--idle-timeout", "--write-timeout", "--max-run-time"] {
        let out = Command::new(GATEWAY)
            .args(["http://127.0.0.1:1/", "--tcp", "127.0.0.1:1", flag, "0"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("must be a positive number of seconds"),
            "{flag}: {stderr}"
        );
    }
}

// ---------------------------------------------------------------------------
// The agent's side, at the gateway (the HTTP layer is tested with agui-chat)
// ---------------------------------------------------------------------------

/// H1: a redirect is not followed: neither the run nor the user's headers
/// reach the other origin, and the device's RUN_ERROR names the redirect.
#[test]
fn a_redirect_is_not_followed_and_no_header_reaches_the_other_origin() {
    let elsewhere = hostile_agent::runs(|_| vec![]);
    let agent = hostile_agent::redirect(302, &elsewhere.url());
    let headers = [
        "--header",
        "X-Api-Key: SECRET-KEY",
        "--header",
        "Proxy-Authorization: Basic SECRET",
    ];
    let mut device = Device::start_with(&agent.url(), &headers);
    device.send(&user("u1", "hi"));
    device.send(r#"{"type":"RUN"}"#);
    let error = device.event();
    assert_eq!(error["type"], "RUN_ERROR");
    assert_eq!(error["code"], "gateway_transport");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("HTTP 302 -> {}", elsewhere.url())),
        "{message}"
    );
    let out = device.finish(true);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("SECRET"), "{stderr}");
    assert!(
        elsewhere.requests().is_empty(),
        "the other origin got: {:?}",
        elsewhere.requests()
    );
}

/// M6: a password in the agent's URL shows nowhere: not on stderr, not in
/// the RUN_ERROR line sent to the device (here nothing listens at the URL).
#[test]
fn the_url_password_shows_nowhere() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://user:URL-PASSWORD@127.0.0.1:{port}/");
    let mut device = Device::start(&url);
    device.send(&user("u1", "hi"));
    device.send(r#"{"type":"RUN"}"#);
    let line = device.line();
    assert!(line.contains("http://***@127.0.0.1"), "{line}");
    assert!(!line.contains("URL-PASSWORD"), "{line}");
    let stderr = device.finish_failed_run();
    assert!(!stderr.contains("URL-PASSWORD"), "{stderr}");
}

/// M6: a bad `--header` is a usage error that does not show its text (it
/// may be a key), checked at start-up.
#[test]
fn a_bad_header_is_refused_at_start_up_without_its_value() {
    let out = Command::new(GATEWAY)
        .args(["http://127.0.0.1:1/", "--tcp", "127.0.0.1:1"])
        .args(["--header", "SECRET-WITHOUT-A-COLON"])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("agui-gateway: --header: "), "{stderr}");
    assert!(!stderr.contains("SECRET"), "{stderr}");
}
