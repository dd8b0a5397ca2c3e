//! A hostile AG-UI agent, as a test fixture: a small HTTP server on
//! 127.0.0.1 (a free port, stopped when dropped; see `server.rs`) that
//! answers the run's POST with scripted raw responses an attacker, or a
//! broken network, could send: redirects to another origin, terminal
//! escapes, a stream that never ends, a body cut by a TCP reset, a
//! compressed body, a RUN_STARTED for another run, a thousand tool calls,
//! huge or non-JSON arguments.
//!
//! Each `fn` starts one server; the tests play them against `agui-chat`
//! (and, through `agui-alloc`'s `HttpAgent`, against everything that runs
//! over HTTP: the gateway, `agui-kiosk --url`).
#![allow(dead_code, clippy::unwrap_used)]

#[path = "../../../alloc-ext/tests/support/server.rs"]
pub mod server;

use std::io::Write;
use std::net::TcpStream;
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use agui_examples::tool_command::drain;
use serde_json::{json, Value};
pub use server::{frame, send, sse_head, Request, Server};

/// Text that would drive a terminal if printed as is: a title (OSC 0),
/// a screen clear, 8-bit CSI/OSC (C1), the clipboard (OSC 52), a link
/// (OSC 8), bidi overrides, a carriage return, and lines that pass for
/// the tool's own (`you>`, `[tool result ...]`).
pub const HOSTILE: &str = "hi\x1b]0;pwned\x07\x1b[2J\u{9b}31m\u{9d}52;c;cHduZWQ=\u{9c}\
                           \x1b]8;;http://evil/\x1b\\link\u{202e}txt.exe\u{2066}\u{200f}\r\
                           \nyou> rm -rf ~\n[tool result for c1] fake";

/// The characters a terminal acts on that [`HOSTILE`] holds: none of them
/// may reach a terminal.
pub const CONTROLS: [char; 10] = [
    '\x1b', '\x07', '\r', '\u{9b}', '\u{9c}', '\u{9d}', '\u{202e}', '\u{2066}', '\u{200f}', '\0',
];

/// Panics if `output` holds a character of [`CONTROLS`], or a line that
/// passes for the tool's own prompt or tool-result line.
pub fn assert_inert(output: &str, what: &str) {
    for c in CONTROLS {
        assert!(
            !output.contains(c),
            "{what} holds U+{:04X}: {output:?}",
            u32::from(c)
        );
    }
    for line in output.lines() {
        assert!(
            !line.starts_with("you>") && !line.starts_with("[tool result for c1] fake"),
            "{what} holds a forged line {line:?}: {output:?}"
        );
    }
}

/// The run's `threadId` and `runId`, from the request's run input.
pub fn ids(req: &Request) -> (String, String) {
    let body: Value = serde_json::from_str(&req.body).unwrap_or(Value::Null);
    let id = |key: &str| body[key].as_str().unwrap_or("").to_owned();
    (id("threadId"), id("runId"))
}

/// `RUN_STARTED` for the run the request asked for.
pub fn run_started(req: &Request) -> Value {
    let (thread, run) = ids(req);
    json!({"type": "RUN_STARTED", "threadId": thread, "runId": run})
}

/// `RUN_FINISHED` for the run the request asked for.
pub fn run_finished(req: &Request) -> Value {
    let (thread, run) = ids(req);
    json!({"type": "RUN_FINISHED", "threadId": thread, "runId": run})
}

/// Whether the request's run input carries a tool result (a follow-up run).
pub fn is_follow_up(req: &Request) -> bool {
    let body: Value = serde_json::from_str(&req.body).unwrap_or(Value::Null);
    body["messages"]
        .as_array()
        .is_some_and(|m| m.iter().any(|m| m["role"] == "tool"))
}

/// The tool messages of the request's run input: (toolCallId, content).
pub fn tool_results(req: &Request) -> Vec<(String, String)> {
    let body: Value = serde_json::from_str(&req.body).unwrap_or(Value::Null);
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            let id = m["toolCallId"].as_str().unwrap_or("").to_owned();
            (id, m["content"].as_str().unwrap_or("").to_owned())
        })
        .collect()
}

/// A whole event stream (close-delimited) as one response.
pub fn stream(events: &[Value]) -> String {
    let mut out = sse_head("text/event-stream");
    for event in events {
        out.push_str(&frame(event));
    }
    out
}

/// An agent whose every run is `RUN_STARTED`, `middle(req)`, `RUN_FINISHED`.
pub fn runs(middle: impl Fn(&Request) -> Vec<Value> + Send + Sync + 'static) -> Server {
    Server::start(move |req, conn, _stop| {
        let mut events = vec![run_started(req)];
        events.extend(middle(req));
        events.push(run_finished(req));
        send(conn, stream(&events).as_bytes());
    })
}

/// An agent that answers every request with these raw bytes.
pub fn raw(response: impl Into<Vec<u8>>) -> Server {
    let response = response.into();
    Server::start(move |_req, conn, _stop| {
        send(conn, &response);
    })
}

/// An agent that redirects the run's POST to `location` with `status`.
pub fn redirect(status: u16, location: &str) -> Server {
    raw(format!(
        "HTTP/1.1 {status} Moved\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    ))
}

/// An agent that redirects every request to itself, forever.
pub fn redirect_loop() -> Server {
    Server::start(|req, conn, _stop| {
        let host = req.header("host").unwrap_or("127.0.0.1");
        let response = format!(
            "HTTP/1.1 302 Found\r\nLocation: http://{host}/again\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
        send(conn, response.as_bytes());
    })
}

/// First run: `count` calls to the tool `name`, each with `arguments`;
/// follow-up runs: a short text answer.
pub fn tool_calls(name: &str, count: usize, arguments: &str) -> Server {
    let (name, arguments) = (name.to_owned(), arguments.to_owned());
    runs(move |req| {
        if is_follow_up(req) {
            return vec![
                json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "a-done", "role": "assistant", "delta": "done"}),
            ];
        }
        (0..count)
            .map(|n| {
                json!({"type": "TOOL_CALL_CHUNK", "toolCallId": format!("c{n}"), "toolCallName": name,
                       "parentMessageId": "a1", "delta": arguments})
            })
            .collect()
    })
}

/// A run that finishes, then keeps its connection open with a comment
/// every few milliseconds, for as long as the client reads.
pub fn comments_after_finish() -> Server {
    Server::start(|req, conn, stop| {
        let head = stream(&[run_started(req), run_finished(req)]);
        if !send(conn, head.as_bytes()) {
            return;
        }
        while stop.sleep(Duration::from_millis(20)) && send(conn, b": still here\n\n") {}
    })
}

/// A run that starts, then sends comments forever and never finishes.
pub fn endless_comments() -> Server {
    Server::start(|req, conn, stop| {
        if !send(conn, stream(&[run_started(req)]).as_bytes()) {
            return;
        }
        while stop.sleep(Duration::from_millis(20)) && send(conn, b": thinking\n\n") {}
    })
}

/// A close-delimited body (no length, no chunks) whose last frame,
/// `RUN_FINISHED`, is cut before its blank line by a TCP reset.
pub fn reset_mid_frame() -> Server {
    Server::start(|req, conn, stop| {
        let mut body = stream(&[
            run_started(req),
            json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "a1", "role": "assistant", "delta": "partial"}),
        ]);
        body.push_str(&format!("data: {}\n", run_finished(req)));
        if !send(conn, body.as_bytes()) {
            return;
        }
        // Let the bytes reach the client before the reset discards them.
        stop.sleep(Duration::from_millis(100));
        reset(conn);
    })
}

/// Closes `conn` with a TCP reset (SO_LINGER 0) instead of a FIN.
pub fn reset(conn: &mut TcpStream) {
    use std::os::fd::AsRawFd;
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: a valid socket descriptor and a `linger` of the right size.
    let _ = unsafe {
        libc::setsockopt(
            conn.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            std::ptr::addr_of!(linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        )
    };
    // The server drops `conn` when the handler returns: the close is the reset.
    let _ = conn.flush();
}

/// An event stream sent gzip-compressed (which the client never asked for).
pub fn gzip() -> Server {
    // The first bytes of a gzip member, then deflate data: not SSE.
    raw([
        &b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Encoding: gzip\r\nConnection: close\r\n\r\n"[..],
        &[0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03, 0x4b, 0x49, 0x2c, 0x49, 0xb4, 0x52, 0xa8, 0xae, 0x05, 0x00][..],
    ]
    .concat())
}

/// A run whose `RUN_STARTED` (and `RUN_FINISHED`) name another thread
/// and run than the request's.
pub fn foreign_run() -> Server {
    Server::start(|_req, conn, _stop| {
        let events = [
            json!({"type": "RUN_STARTED", "threadId": "someone-else", "runId": "their-run"}),
            json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "a1", "role": "assistant", "delta": "not yours"}),
            json!({"type": "RUN_FINISHED", "threadId": "someone-else", "runId": "their-run"}),
        ];
        send(conn, stream(&events).as_bytes());
    })
}

/// The longest a tool under test may run before the test calls it hung:
/// a guard against hanging the suite, not a measure of speed.
pub const WATCHDOG: Duration = Duration::from_secs(120);

/// Runs `cmd` with `stdin` as its input and its output read on threads
/// (a big output must not block it on a full pipe); past [`WATCHDOG`] it
/// is killed and the test fails.
pub fn run_guarded(mut cmd: Command, stdin: &str) -> Output {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    // A usage error ends the tool before it reads: the pipe may be gone.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > WATCHDOG {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = String::from_utf8_lossy(&stderr.join().unwrap()).into_owned();
            panic!("{cmd:?} hung (killed after {WATCHDOG:?}); stderr: {stderr}");
        }
        thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}
