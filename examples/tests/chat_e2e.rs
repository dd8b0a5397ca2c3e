//! `agui-chat` end to end: against the real AG-UI backends of
//! `examples/agents/` (pydantic-ai's AG-UI adapter, LangGraph through
//! ag-ui-langgraph), started on free ports by the tests and stopped when
//! each test ends; and against small misbehaving servers for the exit
//! statuses and their one-line reasons.
//!
//! The backends need the venv of `examples/agents/setup.sh` (or Python in
//! `$AGUI_PYTHON`); without it these tests fail and say so.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod backend;
mod cli;
mod hostile_agent;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use backend::Backend;
use hostile_agent::server::{frame, send, sse_head, Server};
use hostile_agent::{run_finished, run_started, runs, stream};
use serde_json::{json, Value};

fn chat(args: &[&str], stdin: &str) -> Output {
    chat_env(args, stdin, &[])
}

fn chat_env(args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agui-chat"));
    cmd.args(args).envs(env.iter().copied());
    hostile_agent::run_guarded(cmd, stdin)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A scratch directory for this test, removed first.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One user message, the tool command records its stdin and answers; the
/// transcript is agui-replay's format, the follow-up run is automatic.
fn set_led_transcript(script: &str, expected_reasoning: &str) {
    set_led_transcript_with(script, expected_reasoning, &[]);
}

/// [`set_led_transcript`] with more arguments for agui-chat.
fn set_led_transcript_with(script: &str, expected_reasoning: &str, extra: &[&str]) {
    let backend = Backend::start(script);
    let dir = scratch(&format!("transcript-{script}-{}", extra.join("-")));
    let args_file = dir.join("args.json");
    let tool = format!(
        "set_led=cat > '{}'; echo 'LED is green'",
        args_file.display()
    );
    let mut args = vec![backend.url.as_str(), "--tool", &tool];
    args.extend_from_slice(extra);
    let out = chat(&args, "Please turn the LED green\n");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "[user] Please turn the LED green", "{stdout}");
    for expected in [
        expected_reasoning,
        r#"[tool call call_set_led_1 set_led] {"color": "green", "on": true}"#,
        "[tool result for call_set_led_1] LED is green",
        r#"[assistant] The LED is set: the device answered "LED is green"."#,
    ] {
        assert!(
            lines.contains(&expected),
            "missing {expected:?} in:\n{stdout}"
        );
    }
    assert!(
        lines.last().unwrap().starts_with("ok: 2 runs, "),
        "{stdout}"
    );
    // The command got the call's arguments as JSON on stdin.
    let args: Value = serde_json::from_str(&std::fs::read_to_string(&args_file).unwrap()).unwrap();
    assert_eq!(args, json!({"color": "green", "on": true}));
}

#[test]
fn pydantic_ai_backend_with_a_tool() {
    set_led_transcript(
        "pydantic_server.py",
        "[reasoning] The user wants the LED lit. I will call set_led with green.",
    );
}

/// The client declares AG-UI 1.0 in its run input: pydantic-ai then answers
/// in 1.0 (its `RUN_FINISHED` carries `outcome: {type: "success",
/// pendingToolCallIds: [...]}`, which the current protocol rejects as an
/// unknown outcome key), and the conversation reads it as 1.0.
#[test]
fn pydantic_ai_backend_speaking_1_0() {
    set_led_transcript_with(
        "pydantic_server.py",
        "[reasoning] The user wants the LED lit. I will call set_led with green.",
        &["--protocol", "1.0"],
    );
}

/// The tool round trip against a real TypeScript server on
/// `@ag-ui/encoder` (examples/agents/proto_server.mjs) in AG-UI's protobuf
/// encoding: at `/proto-only` it refuses (406) a request that does not
/// accept protobuf, so the transcript proves both runs came as protobuf.
#[test]
fn typescript_proto_backend_with_a_tool() {
    let backend = Backend::start("proto_server.mjs");
    let url = format!("{}proto-only", backend.url);
    let dir = scratch("transcript-proto-server");
    let args_file = dir.join("args.json");
    let tool = format!(
        "set_led=cat > '{}'; echo 'LED is green'",
        args_file.display()
    );
    let out = chat(
        &[&url, "--encoding", "proto", "--tool", &tool],
        "Please turn the LED green\n",
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[..lines.len() - 1],
        [
            "[user] Please turn the LED green",
            "[reasoning] The user wants the LED lit. I will call set_led with green.",
            r#"[tool call call_set_led_1 set_led] {"color": "green", "on": true}"#,
            "[tool result for call_set_led_1] LED is green",
            r#"[assistant] The LED is set: the device answered "LED is green"."#,
        ],
        "{stdout}"
    );
    assert!(
        lines.last().unwrap().starts_with("ok: 2 runs, "),
        "{stdout}"
    );
    let args: Value = serde_json::from_str(&std::fs::read_to_string(&args_file).unwrap()).unwrap();
    assert_eq!(args, json!({"color": "green", "on": true}));

    // Without --encoding proto the request asks for SSE: refused there.
    let out = chat(&[&url], "hi\n");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("406"), "{}", text(&out.stderr));
    // And at `/` the same server answers it in SSE: the same transcript.
    set_led_transcript(
        "proto_server.mjs",
        "[reasoning] The user wants the LED lit. I will call set_led with green.",
    );
}

#[test]
fn langgraph_backend_with_a_tool() {
    set_led_transcript(
        "langgraph_server.py",
        "[reasoning] The user wants the LED lit. I will call set_led with green.",
    );
}

#[test]
fn pydantic_ai_backend_live_view() {
    let backend = Backend::start("pydantic_server.py");
    let out = chat_env(
        &[
            &backend.url,
            "--output",
            "live",
            "--tool",
            "set_led=echo done",
        ],
        "make it blue\n",
        &[("AGUI_CHAT_TIMING", "1")],
    );
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert_eq!(
        stdout,
        "[reasoning] The user wants the LED lit. I will call set_led with blue.\n\
         [tool call call_set_led_1 set_led] {\"color\": \"blue\", \"on\": true}\n\
         [tool result for call_set_led_1] done\n\
         [assistant] The LED is set: the device answered \"done\".\n"
    );
    // One timing line per run, for the measurements of the README.
    assert_eq!(
        stderr
            .matches("agui-chat: timing: first byte to first delta printed: ")
            .count(),
        2,
        "{stderr}"
    );
}

/// Each of `expected` is a line of `text`, in this order (other lines may
/// come between).
fn assert_lines_in_order(text: &str, expected: &[&str]) {
    let mut lines = text.lines();
    for want in expected {
        assert!(
            lines.any(|line| line == *want),
            "missing {want:?} (or out of order) in:\n{text}"
        );
    }
}

/// Two user messages in one session, each making the agent call the tool:
/// each call has its own id, runs the command, and is answered. In the
/// transcript and in the live view.
fn two_messages_in_one_session(script: &str) {
    let backend = Backend::start(script);
    let dir = scratch(&format!("two-messages-{script}"));
    let calls = dir.join("calls");
    let tool = format!(
        "set_led=read -r args; echo \"$args\" >> '{}'; echo \"lit with $args\"",
        calls.display()
    );
    let input = "Please turn the LED green\nNow make it red\n";
    let expected = |color: &str, n: u32| {
        let args = format!(r#"{{"color": "{color}", "on": true}}"#);
        [
            format!("[tool call call_set_led_{n} set_led] {args}"),
            format!("[tool result for call_set_led_{n}] lit with {args}"),
            format!("[assistant] The LED is set: the device answered \"lit with {args}\"."),
        ]
    };
    let [green, red] = [expected("green", 1), expected("red", 2)];

    let out = chat(&[&backend.url, "--tool", &tool], input);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    let mut order = vec!["[user] Please turn the LED green"];
    order.extend(green.iter().map(String::as_str));
    order.push("[user] Now make it red");
    order.extend(red.iter().map(String::as_str));
    assert_lines_in_order(&stdout, &order);
    assert!(
        stdout.lines().last().unwrap().starts_with("ok: 4 runs, "),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read_to_string(&calls).unwrap(),
        "{\"color\": \"green\", \"on\": true}\n{\"color\": \"red\", \"on\": true}\n"
    );

    let out = chat(&[&backend.url, "--output", "live", "--tool", &tool], input);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    let order: Vec<&str> = green.iter().chain(&red).map(String::as_str).collect();
    assert_lines_in_order(&stdout, &order);
}

#[test]
fn pydantic_ai_backend_two_messages_in_one_session() {
    two_messages_in_one_session("pydantic_server.py");
}

#[test]
fn langgraph_backend_two_messages_in_one_session() {
    two_messages_in_one_session("langgraph_server.py");
}

/// A self-signed certificate for 127.0.0.1 and localhost, written to
/// `dir` as `cert.pem` and `key.pem`.
fn self_signed(dir: &Path) -> (PathBuf, PathBuf) {
    let names = vec!["127.0.0.1".to_owned(), "localhost".to_owned()];
    let made = rcgen::generate_simple_self_signed(names).unwrap();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert, made.cert.pem()).unwrap();
    std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
    (cert, key)
}

/// The pydantic-ai sample served over https with a certificate the test
/// made: untrusted, a one-line TLS error (exit 2) that says how to trust
/// it; with `--ca-cert`, the whole exchange as over http.
#[test]
fn pydantic_ai_backend_over_https() {
    let dir = scratch("https");
    let (cert, key) = self_signed(&dir);
    let (cert, key) = (cert.to_str().unwrap(), key.to_str().unwrap());
    let backend = Backend::start_with(
        "pydantic_server.py",
        &["--certfile", cert, "--keyfile", key],
    );
    assert!(
        backend.url.starts_with("https://127.0.0.1:"),
        "{}",
        backend.url
    );

    let out = chat(&[&backend.url, "--tool", "set_led=echo lit"], "hi\n");
    assert_fails(
        &out,
        2,
        &format!(
            "TLS: the certificate of '{}' is not trusted (UnknownIssuer) \
             (--ca-cert FILE trusts a private CA or a self-signed certificate)",
            backend.url
        ),
    );

    let out = chat(
        &[
            &backend.url,
            "--ca-cert",
            cert,
            "--tool",
            "set_led=echo lit",
        ],
        "turn the LED blue\n",
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert_lines_in_order(
        &stdout,
        &[
            "[user] turn the LED blue",
            r#"[tool call call_set_led_1 set_led] {"color": "blue", "on": true}"#,
            "[tool result for call_set_led_1] lit",
            r#"[assistant] The LED is set: the device answered "lit"."#,
        ],
    );
    assert!(stdout.contains("\nok: 2 runs, "), "{stdout}");
}

#[test]
fn pydantic_ai_backend_with_a_failing_tool() {
    let backend = Backend::start("pydantic_server.py");
    let out = chat(
        &[
            &backend.url,
            "--tool",
            "set_led=echo 'no LED on this board' >&2; exit 3",
        ],
        "turn the LED red\n",
    );
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    // The agent got the error as the tool's result and answered: the runs
    // finished.
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert_eq!(
        stderr,
        "agui-chat: tool set_led failed: exit status 3: no LED on this board\n"
    );
    assert!(
        stdout.contains("[tool result for call_set_led_1] exit status 3: no LED on this board\n"),
        "{stdout}"
    );
    let answer = stdout
        .lines()
        .find(|l| l.starts_with("[assistant] "))
        .unwrap_or_else(|| panic!("no answer in:\n{stdout}"));
    assert!(
        answer.contains("exit status 3: no LED on this board"),
        "{answer}"
    );
}

// ---------------------------------------------------------------------------
// Exit statuses and their reasons, against misbehaving servers
// ---------------------------------------------------------------------------

/// An agent whose every run is its own `RUN_STARTED` then `events`.
fn answer_with(events: Vec<Value>) -> Server {
    Server::start(move |req, conn, _stop| {
        let mut all = vec![run_started(req)];
        all.extend(events.iter().cloned());
        send(conn, stream(&all).as_bytes());
    })
}

fn assert_fails(out: &Output, code: i32, reason: &str) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("agui-chat: "), "{stderr}");
    assert!(stderr.contains(reason), "{reason:?} not in {stderr}");
}

#[test]
fn server_down_exits_2() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let out = chat(&[&format!("http://127.0.0.1:{port}/")], "hi\n");
    assert_fails(&out, 2, "cannot connect: connection refused");
    // The transcript still shows what was said, and why it stopped.
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("[user] hi\n"), "{stdout}");
    assert!(
        stdout.contains("\nstopped: cannot connect: connection refused by 'http://127.0.0.1:"),
        "{stdout}"
    );
}

#[test]
fn http_500_exits_2_with_the_body() {
    let server = Server::start(|_req, conn, _stop| {
        let body = r#"{"error": "model unavailable"}"#;
        let head = format!(
            "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        send(conn, (head + body).as_bytes());
    });
    let out = chat(&[&server.url()], "hi\n");
    assert_fails(
        &out,
        2,
        r#"the agent answered HTTP 500: {"error": "model unavailable"}"#,
    );
}

#[test]
fn not_an_event_stream_exits_2() {
    let server = Server::start(|_req, conn, _stop| {
        send(conn, (sse_head("application/json") + "{}").as_bytes());
    });
    let out = chat(&[&server.url()], "hi\n");
    assert_fails(&out, 2, "'application/json', not an event stream");
}

#[test]
fn idle_timeout_exits_2_and_keeps_the_partial_answer() {
    let server = Server::start(|req, conn, stop| {
        let chunk =
            json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "Thinking about"});
        send(
            conn,
            (sse_head("text/event-stream") + &frame(&run_started(req)) + &frame(&chunk)).as_bytes(),
        );
        stop.sleep(Duration::from_secs(60));
    });
    let out = chat(&[&server.url(), "--idle-timeout", "0.5"], "hi\n");
    assert_fails(&out, 2, "idle timeout: the agent sent nothing for 500 ms");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("[assistant] Thinking about\n"), "{stdout}");
}

/// An agent that reuses a tool-call id (the fault the sample servers had):
/// the second call looks answered already, so it is not run; agui-chat
/// says so on stderr instead of leaving the user waiting in silence.
#[test]
fn a_reused_tool_call_id_is_reported() {
    let runs = std::sync::atomic::AtomicUsize::new(0);
    let server = Server::start(move |req, conn, _stop| {
        let n = runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let finished = run_finished(req);
        let middle = if n == 1 {
            json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "a1", "role": "assistant", "delta": "done"})
        } else {
            json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "set_led", "parentMessageId": format!("p{n}"), "delta": "{}"})
        };
        let events = frame(&run_started(req)) + &frame(&middle) + &frame(&finished);
        send(conn, (sse_head("text/event-stream") + &events).as_bytes());
    });
    let dir = scratch("reused-id");
    let count = dir.join("count");
    let tool = format!("set_led=echo x >> '{}'; echo lit", count.display());
    let out = chat(&[&server.url(), "--tool", &tool], "first\nsecond\n");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stderr,
        "agui-chat: the agent called set_led under the id 'c1', which already has a result: \
         not run again (the agent must give each call an id of its own)\n"
    );
    assert_eq!(std::fs::read_to_string(&count).unwrap(), "x\n");
    assert_eq!(server.requests().len(), 3);
}

/// At a terminal the session goes on after a failed run. A run that broke
/// off in the middle of a tool call's arguments leaves that call in the
/// thread: it is not run (its arguments are cut), but it gets an error
/// result, so the next run's input answers every call and still carries
/// everything folded before the failure.
#[test]
fn at_a_terminal_the_next_run_after_a_failure_carries_everything() {
    let runs = std::sync::atomic::AtomicUsize::new(0);
    let server = Server::start(move |req, conn, _stop| {
        if runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
            let call = json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "set_led", "parentMessageId": "a1", "delta": "{\"color\": \"gr"});
            let events = frame(&run_started(req)) + &frame(&call);
            let body = format!("{:x}\r\n{events}\r\n", events.len());
            send(
                conn,
                (head.to_owned() + &body + "400\r\ndata: {").as_bytes(),
            );
            let _ = conn.shutdown(std::net::Shutdown::Both);
        } else {
            let text = json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "a2", "role": "assistant", "delta": "sorry"});
            let finished = run_finished(req);
            let events = frame(&run_started(req)) + &frame(&text) + &frame(&finished);
            send(conn, (sse_head("text/event-stream") + &events).as_bytes());
        }
    });
    let dir = scratch("terminal-after-failure");
    let ran = dir.join("ran");
    let tool = format!("set_led=cat > '{}'", ran.display());
    // stdin is a pseudo-terminal (the interactive mode), stdout a pipe.
    let script = r#"
import os, pty, subprocess, sys
master, slave = pty.openpty()
chat = subprocess.Popen(sys.argv[1:], stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
os.close(slave)
os.write(master, b"turn it green\nare you there?\n\x04")
out, err = chat.communicate(timeout=60)
sys.stdout.write(out.decode())
sys.stderr.write(err.decode())
sys.exit(chat.returncode)
"#;
    let chat = env!("CARGO_BIN_EXE_agui-chat");
    let out = Command::new("python3")
        .args(["-c", script, chat, &server.url(), "--tool", &tool])
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    // The worst run failed on the transport: 2, after the whole session.
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stderr.starts_with("agui-chat: connection lost: the response broke off after "),
        "{stderr}"
    );
    assert!(stdout.contains("[assistant] sorry\n"), "{stdout}");
    assert!(!ran.exists(), "the cut call was run");

    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{stdout}{stderr}");
    let body: Value = serde_json::from_str(&requests[1].body).unwrap();
    let messages = body["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "user"], "{body}");
    assert_eq!(messages[0]["content"], "turn it green");
    assert_eq!(messages[1]["toolCalls"][0]["id"], "c1");
    assert_eq!(
        messages[1]["toolCalls"][0]["function"]["arguments"],
        "{\"color\": \"gr"
    );
    assert_eq!(messages[2]["toolCallId"], "c1");
    let error = messages[2]["content"].as_str().unwrap();
    assert!(
        error.starts_with("not run: the run that made this call failed (connection lost: "),
        "{error}"
    );
    assert_eq!(messages[3]["content"], "are you there?");
}

/// The spinner turns while the agent is silent, on a terminal only: with
/// stdout a pseudo-terminal it shows and is wiped before the answer; with
/// stdout a pipe (stdin still a terminal) it never shows.
#[test]
fn the_spinner_shows_on_a_terminal_only() {
    let server = Server::start(|req, conn, stop| {
        // Silent for several polls before the first byte.
        stop.sleep(Duration::from_millis(800));
        let text = json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "a1", "role": "assistant", "delta": "here"});
        let finished = run_finished(req);
        let events = frame(&run_started(req)) + &frame(&text) + &frame(&finished);
        send(conn, (sse_head("text/event-stream") + &events).as_bytes());
    });
    let script = r#"
import os, pty, subprocess, sys
stdout_tty = sys.argv[1] == "tty"
master, slave = pty.openpty()
out = slave if stdout_tty else subprocess.PIPE
chat = subprocess.Popen(sys.argv[2:], stdin=slave, stdout=out, stderr=subprocess.PIPE)
os.close(slave)
os.write(master, b"hello\n\x04")
seen = b""
if stdout_tty:
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        seen += data
chat.wait(timeout=60)
if not stdout_tty:
    seen = chat.stdout.read()
sys.stdout.write(seen.decode(errors="replace"))
sys.exit(chat.returncode)
"#;
    let chat = env!("CARGO_BIN_EXE_agui-chat");
    let run = |stdout: &str| {
        let out = Command::new("python3")
            .args(["-c", script, stdout, chat, &server.url()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let on_tty = run("tty");
    let spun = on_tty
        .find(" waiting for the agent…")
        .unwrap_or_else(|| panic!("{on_tty:?}"));
    let wiped = on_tty
        .find("\r\x1b[K")
        .unwrap_or_else(|| panic!("{on_tty:?}"));
    let answer = on_tty
        .find("[assistant] here")
        .unwrap_or_else(|| panic!("{on_tty:?}"));
    assert!(spun < wiped && wiped < answer, "{on_tty:?}");

    let piped = run("pipe");
    assert!(piped.contains("[assistant] here\n"), "{piped:?}");
    assert!(!piped.contains("waiting for the agent"), "{piped:?}");
    assert!(!piped.contains('\x1b'), "{piped:?}");
}

/// At a terminal, Ctrl-C during a run cancels that run only: the session
/// goes on with the next message, whose run carries what the cancelled one
/// folded; Ctrl-C at the prompt quits (status 130).
#[test]
fn ctrl_c_at_a_terminal_cancels_the_run_and_quits_at_the_prompt() {
    let runs = std::sync::atomic::AtomicUsize::new(0);
    let server = Server::start(move |req, conn, stop| {
        let first = runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0;
        let (id, delta) = if first {
            ("a1", "A long answer")
        } else {
            ("a2", "done")
        };
        let text = json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": id, "role": "assistant", "delta": delta});
        let mut events = frame(&run_started(req)) + &frame(&text);
        if !first {
            events += &frame(&run_finished(req));
        }
        send(conn, (sse_head("text/event-stream") + &events).as_bytes());
        if first {
            stop.sleep(Duration::from_secs(60));
        }
    });
    let script = r#"
import os, pty, signal, subprocess, sys, time
master, slave = pty.openpty()
chat = subprocess.Popen(sys.argv[1:], stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
os.close(slave)
seen = b""
def until(text):
    global seen
    deadline = time.time() + 30
    while text not in seen:
        if time.time() > deadline:
            sys.exit("timed out waiting for %r in %r" % (text, seen))
        seen += os.read(chat.stdout.fileno(), 4096)
os.write(master, b"tell me a story\n")
until(b"A long answer")
time.sleep(0.3)
chat.send_signal(signal.SIGINT)          # during the run: cancels it
until(b"you> ")
os.write(master, b"go on\n")
until(b"[assistant] done\n")
until(b"you> ")
time.sleep(0.3)
chat.send_signal(signal.SIGINT)          # at the prompt: quits
chat.wait(timeout=30)
sys.stdout.write(seen.decode())
sys.stderr.write(chat.stderr.read().decode())
sys.exit(chat.returncode)
"#;
    let chat = env!("CARGO_BIN_EXE_agui-chat");
    let out = Command::new("python3")
        .args(["-c", script, chat, &server.url()])
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(130), "{stdout}{stderr}");
    assert_eq!(
        stderr, "agui-chat: cancelled: the run was cancelled by the user\n\n",
        "{stdout}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let body: Value = serde_json::from_str(&requests[1].body).unwrap();
    let sent: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(sent, ["tell me a story", "A long answer", "go on"]);
}

#[test]
fn run_error_exits_1() {
    let error = json!({"type": "RUN_ERROR", "message": "rate limited", "code": "429"});
    let server = answer_with(vec![error]);
    let out = chat(&[&server.url()], "hi\n");
    assert_fails(&out, 1, "the agent reported an error [429]: rate limited");
}

#[test]
fn protocol_error_exits_1() {
    let bad = json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "ghost", "delta": "x"});
    let server = answer_with(vec![bad]);
    let out = chat(&[&server.url()], "hi\n");
    assert_fails(&out, 1, "protocol error: frame 1: verify error");
}

#[test]
fn the_headers_and_the_tool_schema_reach_the_agent() {
    let server = runs(|_| vec![]);
    let dir = scratch("schema");
    let schema = dir.join("set_led.json");
    std::fs::write(
        &schema,
        r#"{"type":"object","properties":{"on":{"type":"boolean"}}}"#,
    )
    .unwrap();
    let params = format!("set_led={}", schema.display());
    let out = chat(
        &[
            &server.url(),
            "--header",
            "Authorization: Bearer k1",
            "--thread",
            "kitchen",
            "--tool",
            "set_led=true",
            "--tool-params",
            &params,
            "--tool",
            "beep=true",
        ],
        "hi\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let req = &server.requests()[0];
    assert_eq!(req.header("authorization"), Some("Bearer k1"));
    let body: Value = serde_json::from_str(&req.body).unwrap();
    assert_eq!(body["threadId"], "kitchen");
    assert_eq!(
        body["tools"][0]["parameters"],
        json!({"type": "object", "properties": {"on": {"type": "boolean"}}})
    );
    assert_eq!(body["tools"][1]["name"], "beep");
    assert_eq!(body["tools"][1]["parameters"], json!({"type": "object"}));
}

#[test]
fn usage_errors_exit_2() {
    for (args, reason) in [
        (
            vec!["http://127.0.0.1:9/", "--tool", "set_led"],
            "--tool 'set_led': expected NAME=COMMAND",
        ),
        (
            vec!["http://127.0.0.1:9/", "--header", "nocolon"],
            "--header: expected 'Name: value' (no ':' found",
        ),
        (
            vec!["127.0.0.1:9"],
            "bad URL: '127.0.0.1:9': expected an http:// or https:// URL",
        ),
        (
            vec!["https://127.0.0.1:9/", "--ca-cert", "/nonexistent.pem"],
            "--ca-cert /nonexistent.pem: cannot read: ",
        ),
        (
            vec!["https://127.0.0.1:9/", "--ca-cert", "Cargo.toml"],
            "--ca-cert Cargo.toml: TLS: no certificate (-----BEGIN CERTIFICATE-----) in the root certificates",
        ),
        (
            vec![
                "http://127.0.0.1:9/",
                "--tool",
                "a=true",
                "--tool-params",
                "b=x.json",
            ],
            "--tool-params b=x.json: no --tool named 'b'",
        ),
        (
            vec![
                "http://127.0.0.1:9/",
                "--tool",
                "a=true",
                "--tool-params",
                "a=/nonexistent.json",
            ],
            "--tool-params a=/nonexistent.json: cannot read",
        ),
    ] {
        let out = cli::run(env!("CARGO_BIN_EXE_agui-chat"), &args, b"");
        assert_fails(&out, 2, reason);
    }
}

#[test]
fn ctrl_c_ends_the_run_cleanly() {
    let server = Server::start(|req, conn, stop| {
        let chunk =
            json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "A long answer"});
        send(
            conn,
            (sse_head("text/event-stream") + &frame(&run_started(req)) + &frame(&chunk)).as_bytes(),
        );
        stop.sleep(Duration::from_secs(60));
    });
    let mut child = Command::new(env!("CARGO_BIN_EXE_agui-chat"))
        .arg(server.url())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut input = child.stdin.take().unwrap();
        input.write_all(b"tell me a story\n").unwrap();
    }
    // Wait until the run is in progress, then press Ctrl-C.
    let t0 = std::time::Instant::now();
    while server.requests().is_empty() {
        assert!(t0.elapsed() < Duration::from_secs(20), "no request came");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert_fails(&out, 2, "cancelled: the run was cancelled by the user");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("[assistant] A long answer\n"), "{stdout}");
    assert!(
        stdout.ends_with("stopped: cancelled: the run was cancelled by the user\n"),
        "{stdout}"
    );
}
