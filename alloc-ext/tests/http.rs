//! The HTTP transport against small misbehaving servers: each bad condition
//! is one clear error, and the conversation keeps what was folded before.
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unwrap_used
)]

#[path = "support/server.rs"]
mod server;

use std::net::TcpListener;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use agui_alloc::conversation::{Conversation, RunStatus};
use agui_alloc::event::MessageContent;
use agui_alloc::hooks::{Flow, HookView, Subscriber};
use agui_alloc::http::{Encoding, HttpAgent, HttpErrorKind, RunObserver};
use agui_alloc::model::Tool;
use serde_json::{json, Value};
use server::{answer_with, frame, pb_event, send, sse_head, Server};

fn started() -> Value {
    json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
}

fn finished() -> Value {
    json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})
}

fn chunk(delta: &str) -> Value {
    json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "assistant", "delta": delta})
}

/// A conversation with one user message, ready to run.
fn conversation() -> Conversation {
    let mut conv = Conversation::new("t");
    conv.add_user_message("hello").unwrap();
    conv
}

/// Text of the assistant message `m1`, if any.
fn answer(conv: &Conversation) -> Option<String> {
    conv.messages()
        .iter()
        .find(|m| m.id() == "m1")
        .and_then(|m| m.text().map(str::to_owned))
}

/// Records what the transport and the fold showed, when.
#[derive(Default)]
struct Seen {
    deltas: Vec<String>,
    byte_reads: usize,
    waits: usize,
    status: Option<u16>,
    on_delta: Option<mpsc::Sender<()>>,
}

impl Subscriber for Seen {
    fn on_text_message_content(
        &mut self,
        event: &MessageContent,
        _buffer: &str,
        _view: &mut HookView<'_>,
    ) -> Flow {
        self.deltas.push(event.delta.clone());
        if let Some(tx) = &self.on_delta {
            let _ = tx.send(());
        }
        Flow::Continue
    }
}

impl RunObserver for Seen {
    fn on_response(&mut self, status: u16) {
        self.status = Some(status);
    }
    fn on_bytes(&mut self, _bytes: &[u8]) {
        self.byte_reads += 1;
    }
    fn on_wait(&mut self) {
        self.waits += 1;
    }
}

#[test]
fn posts_the_run_input_and_folds_the_stream_live() {
    // The server sends the first delta, then waits until the client has
    // shown it before it sends the rest: the fold is live, not at the end.
    let (shown_tx, shown_rx) = mpsc::channel::<()>();
    let shown_rx = std::sync::Mutex::new(shown_rx);
    let server = Server::start(move |_req, conn, _stop| {
        let first = sse_head("text/event-stream") + &frame(&started()) + &frame(&chunk("Hel"));
        send(conn, first.as_bytes());
        let live = shown_rx
            .lock()
            .unwrap()
            .recv_timeout(Duration::from_secs(10))
            .is_ok();
        let rest = frame(&chunk(if live { "lo" } else { "lo (not live)" })) + &frame(&finished());
        send(conn, rest.as_bytes());
    });
    let mut conv = conversation();
    conv.declare_tool(Tool {
        name: "set_led".into(),
        description: "LED".into(),
        parameters: Some(json!({"type": "object"})),
        metadata: None,
    });
    let agent = HttpAgent::new(server.url()).header("Authorization", "Bearer k");
    let mut seen = Seen {
        on_delta: Some(shown_tx),
        ..Seen::default()
    };
    let report = agent.run(&mut conv, &mut seen).unwrap();
    assert!(report.status.is_finished(), "{}", report.status);
    assert_eq!(answer(&conv).as_deref(), Some("Hello"));
    assert_eq!(seen.deltas, ["Hel", "lo"]);
    assert_eq!(seen.status, Some(200));

    let requests = server.requests();
    let req = &requests[0];
    assert!(
        req.request_line.starts_with("POST / HTTP/1.1"),
        "{}",
        req.request_line
    );
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.header("accept"), Some("text/event-stream"));
    assert_eq!(req.header("authorization"), Some("Bearer k"));
    let body: Value = serde_json::from_str(&req.body).unwrap();
    assert_eq!(body["threadId"], "t");
    assert_eq!(body["runId"], report.run_id.as_str());
    assert_eq!(body["tools"][0]["name"], "set_led");
    assert_eq!(body["messages"][0]["content"], "hello");
    assert_eq!(body["state"], json!({}));
}

#[test]
fn server_down() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut conv = conversation();
    let err = HttpAgent::new(format!("http://127.0.0.1:{port}/"))
        .run(&mut conv, &mut ())
        .unwrap_err();
    assert_eq!(err.kind, HttpErrorKind::Connect, "{err}");
    assert_eq!(
        err.to_string(),
        format!("cannot connect: connection refused by 'http://127.0.0.1:{port}/' (is the agent running?)")
    );
    // Nothing lost, and the run is over.
    assert!(!conv.is_running());
    assert_eq!(conv.messages().len(), 1);
    assert!(matches!(
        conv.last_run().unwrap().status,
        RunStatus::Aborted(_)
    ));
}

#[test]
fn connection_cut_mid_stream() {
    // A chunked body cut in the middle of a chunk: the connection broke.
    let server = Server::start(|_req, conn, _stop| {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
        let events = frame(&started()) + &frame(&chunk("kept"));
        let body = format!("{:x}\r\n{events}\r\n", events.len());
        send(
            conn,
            (head.to_owned() + &body + "400\r\ndata: {\"type\":").as_bytes(),
        );
        let _ = conn.shutdown(std::net::Shutdown::Both);
    });
    let mut conv = conversation();
    let err = HttpAgent::new(server.url())
        .run(&mut conv, &mut ())
        .unwrap_err();
    assert_eq!(err.kind, HttpErrorKind::Transport, "{err}");
    assert!(
        err.to_string()
            .starts_with("connection lost: the response broke off after "),
        "{err}"
    );
    assert!(!err.to_string().contains('\n'));
    assert_eq!(answer(&conv).as_deref(), Some("kept"));
    assert!(!conv.is_running());
}

#[test]
fn connection_closed_before_run_finished() {
    // A close-delimited body that stops early reads as a clean end: the
    // run is incomplete, and what came is kept.
    let server = Server::start(answer_with(vec![started(), chunk("half")]));
    let mut conv = conversation();
    let report = HttpAgent::new(server.url())
        .run(&mut conv, &mut ())
        .unwrap();
    assert_eq!(report.status, RunStatus::Incomplete);
    assert_eq!(answer(&conv).as_deref(), Some("half"));
}

#[test]
fn http_500_with_a_json_body() {
    let server = Server::start(|_req, conn, _stop| {
        let body = "{\"detail\": \"agent crashed:\\n KeyError 'x'\"}";
        let head = format!(
            "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        send(conn, (head + body).as_bytes());
    });
    let mut conv = conversation();
    let err = HttpAgent::new(server.url())
        .run(&mut conv, &mut ())
        .unwrap_err();
    assert_eq!(err.kind, HttpErrorKind::Status);
    assert_eq!(err.status, Some(500));
    assert_eq!(
        err.to_string(),
        "the agent answered HTTP 500: {\"detail\": \"agent crashed:\\n KeyError 'x'\"}"
    );
    assert_eq!(conv.messages().len(), 1);
    assert!(!conv.is_running());
}

#[test]
fn a_long_error_body_is_cut() {
    let server = Server::start(|_req, conn, _stop| {
        let body = "x".repeat(100_000);
        let head = format!(
            "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        send(conn, (head + &body).as_bytes());
    });
    let err = HttpAgent::new(server.url())
        .run(&mut conversation(), &mut ())
        .unwrap_err();
    assert_eq!(err.status, Some(502));
    assert!(err.to_string().len() < 600, "{}", err.to_string().len());
    assert!(err.to_string().ends_with('…'));
}

#[test]
fn not_an_event_stream() {
    let server = Server::start(|_req, conn, _stop| {
        send(
            conn,
            (sse_head("text/html; charset=utf-8") + "<html>hi</html>").as_bytes(),
        );
    });
    let mut conv = conversation();
    let err = HttpAgent::new(server.url())
        .run(&mut conv, &mut ())
        .unwrap_err();
    assert_eq!(err.kind, HttpErrorKind::ContentType);
    assert_eq!(
        err.to_string(),
        "the agent's response is 'text/html; charset=utf-8', not an event stream (text/event-stream): is the URL an AG-UI endpoint?"
    );
    assert_eq!(conv.messages().len(), 1);
}

/// RUN_STARTED, a text message "Hello" in two deltas, RUN_FINISHED, in
/// AG-UI's protobuf encoding (the field numbers of `events.proto`).
fn proto_run() -> Vec<u8> {
    [
        pb_event(12, 11, &["t", "r"]),
        pb_event(1, 0, &["m1", "assistant"]),
        pb_event(2, 1, &["m1", "Hel"]),
        pb_event(2, 1, &["m1", "lo"]),
        pb_event(3, 2, &["m1"]),
        pb_event(13, 12, &["t", "r"]),
    ]
    .concat()
}

/// A server that answers protobuf when the request's `Accept` names it
/// (and SSE otherwise), as `@ag-ui/encoder` does.
fn negotiating_server() -> Server {
    Server::start(|req, conn, _stop| {
        let accept = req.header("accept").unwrap_or("");
        if accept.contains("application/vnd.ag-ui.event+proto") {
            let mut out = sse_head("application/vnd.ag-ui.event+proto").into_bytes();
            out.extend(proto_run());
            send(conn, &out);
        } else {
            let body = sse_head("text/event-stream")
                + &frame(&started())
                + &frame(&chunk("Hel"))
                + &frame(&chunk("lo"))
                + &frame(&finished());
            send(conn, body.as_bytes());
        }
    })
}

#[test]
fn asks_for_protobuf_and_folds_it() {
    let server = negotiating_server();
    let mut conv = conversation();
    let mut seen = Seen::default();
    let report = HttpAgent::new(server.url())
        .encoding(Encoding::Proto)
        .run(&mut conv, &mut seen)
        .unwrap();
    assert!(report.status.is_finished(), "{}", report.status);
    assert_eq!(report.accepted, 6);
    assert_eq!(answer(&conv).as_deref(), Some("Hello"));
    assert_eq!(seen.deltas, ["Hel", "lo"]);
    assert_eq!(seen.status, Some(200));
    assert_eq!(
        server.requests()[0].header("accept"),
        Some("application/vnd.ag-ui.event+proto, text/event-stream;q=0.9")
    );
}

#[test]
fn sse_is_asked_for_by_default() {
    let server = negotiating_server();
    let mut conv = conversation();
    let report = HttpAgent::new(server.url())
        .run(&mut conv, &mut ())
        .unwrap();
    assert!(report.status.is_finished(), "{}", report.status);
    assert_eq!(answer(&conv).as_deref(), Some("Hello"));
    assert_eq!(
        server.requests()[0].header("accept"),
        Some("text/event-stream")
    );
}

/// The response's Content-Type chooses the decoder, whatever was asked:
/// a server that ignores the request and sends SSE works, and so does
/// one that sends protobuf to a client that asked for SSE (as the
/// reference's HttpAgent reads it).
#[test]
fn the_content_type_chooses_the_decoder() {
    let sse_only = Server::start(|_req, conn, _stop| {
        let body = sse_head("text/event-stream")
            + &frame(&started())
            + &frame(&chunk("Hello"))
            + &frame(&finished());
        send(conn, body.as_bytes());
    });
    let mut conv = conversation();
    let report = HttpAgent::new(sse_only.url())
        .encoding(Encoding::Proto)
        .run(&mut conv, &mut ())
        .unwrap();
    assert!(report.status.is_finished(), "{}", report.status);
    assert_eq!(answer(&conv).as_deref(), Some("Hello"));

    let proto_only = Server::start(|_req, conn, _stop| {
        let mut out = sse_head("Application/Vnd.AG-UI.Event+Proto; v=1").into_bytes();
        out.extend(proto_run());
        send(conn, &out);
    });
    let mut conv = conversation();
    let report = HttpAgent::new(proto_only.url())
        .run(&mut conv, &mut ())
        .unwrap();
    assert!(report.status.is_finished(), "{}", report.status);
    assert_eq!(answer(&conv).as_deref(), Some("Hello"));
}

/// A hostile protobuf body: a frame cut short, then one whose length is
/// past the limit, then a bad tag. Each run ends with the protocol error
/// naming its frame, and keeps what was folded before it.
#[test]
fn a_bad_protobuf_body_is_a_protocol_error_naming_the_frame() {
    let good = proto_run();
    let first = pb_event(12, 11, &["t", "r"]).len();
    let second = first + pb_event(1, 0, &["m1", "assistant"]).len();
    let cut = good[..second + 5].to_vec();
    let mut huge = good[..second].to_vec();
    huge.extend([0x7f, 0xff, 0xff, 0xff, 0x12]);
    let mut bad_tag = good[..second].to_vec();
    // Field 0 is no field: a decode error, not an unknown field.
    bad_tag.extend([0, 0, 0, 2, 0x00, 0x00]);
    for (name, body) in [("cut", cut), ("huge", huge), ("bad tag", bad_tag)] {
        let server = Server::start(move |_req, conn, _stop| {
            let mut out = sse_head("application/vnd.ag-ui.event+proto").into_bytes();
            out.extend(&body);
            send(conn, &out);
        });
        let mut conv = conversation();
        let report = HttpAgent::new(server.url())
            .encoding(Encoding::Proto)
            .run(&mut conv, &mut ())
            .unwrap();
        let RunStatus::Protocol(e) = &report.status else {
            panic!("{name}: {}", report.status);
        };
        assert_eq!(e.frame, 2, "{name}: {e}");
        assert_eq!(report.accepted, 2, "{name}");
        assert!(
            conv.messages().iter().any(|m| m.id() == "m1"),
            "{name}: the message started before is kept"
        );
    }
}

#[test]
fn a_server_that_drips_one_byte_per_100ms_works() {
    let server = Server::start(|_req, conn, stop| {
        let quick = sse_head("text/event-stream") + &frame(&started()) + &frame(&chunk("ok"));
        send(conn, quick.as_bytes());
        // Short, so the test stays short: 57 bytes, about 6 s.
        for byte in frame(&finished()).bytes() {
            if !stop.sleep(Duration::from_millis(100)) || !send(conn, &[byte]) {
                return;
            }
        }
    });
    let mut conv = conversation();
    let mut seen = Seen::default();
    // Far longer than a byte's gap, far shorter than the whole stream.
    let agent = HttpAgent::new(server.url()).idle_timeout(Duration::from_secs(2));
    let report = agent.run(&mut conv, &mut seen).unwrap();
    assert!(report.status.is_finished(), "{}", report.status);
    assert_eq!(answer(&conv).as_deref(), Some("ok"));
    // Every byte was folded as it came, not gathered first.
    assert!(seen.byte_reads > 50, "{} reads", seen.byte_reads);
    assert!(seen.waits > 0);
}

#[test]
fn a_run_that_never_ends_hits_the_idle_timeout() {
    let server = Server::start(|_req, conn, stop| {
        let head = sse_head("text/event-stream") + &frame(&started()) + &frame(&chunk("so far"));
        send(conn, head.as_bytes());
        stop.sleep(Duration::from_secs(60));
    });
    let mut conv = conversation();
    let t0 = Instant::now();
    let err = HttpAgent::new(server.url())
        .idle_timeout(Duration::from_millis(500))
        .run(&mut conv, &mut ())
        .unwrap_err();
    assert_eq!(err.kind, HttpErrorKind::IdleTimeout, "{err}");
    assert_eq!(
        err.to_string(),
        "idle timeout: the agent sent nothing for 500 ms; the run was stopped"
    );
    assert!(t0.elapsed() < Duration::from_secs(10));
    assert_eq!(answer(&conv).as_deref(), Some("so far"));
    assert!(!conv.is_running());
    // The conversation goes on.
    conv.add_user_message("still there?").unwrap();
    assert_eq!(conv.messages().len(), 3);
}

#[test]
fn a_server_that_never_answers_hits_the_idle_timeout() {
    let server = Server::start(|_req, _conn, stop| {
        stop.sleep(Duration::from_secs(60));
    });
    let err = HttpAgent::new(server.url())
        .idle_timeout(Duration::from_millis(300))
        .run(&mut conversation(), &mut ())
        .unwrap_err();
    assert_eq!(err.kind, HttpErrorKind::IdleTimeout, "{err}");
}

#[test]
fn cancel_ends_the_run_at_once() {
    let server = Server::start(|_req, conn, stop| {
        let head = sse_head("text/event-stream") + &frame(&started()) + &frame(&chunk("before"));
        send(conn, head.as_bytes());
        stop.sleep(Duration::from_secs(60));
    });
    let agent = HttpAgent::new(server.url());
    let flag = agent.cancel_flag().clone();
    let t0 = Instant::now();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        flag.store(true, Ordering::Relaxed);
    });
    let mut conv = conversation();
    let err = agent.run(&mut conv, &mut ()).unwrap_err();
    canceller.join().unwrap();
    assert_eq!(err.kind, HttpErrorKind::Cancelled);
    assert!(t0.elapsed() < Duration::from_secs(5));
    assert_eq!(answer(&conv).as_deref(), Some("before"));
    assert_eq!(
        conv.last_run().unwrap().status,
        RunStatus::Aborted("cancelled: the run was cancelled by the user".into())
    );
}

#[test]
fn a_protocol_error_ends_the_run_and_keeps_the_rest() {
    let bad = json!({"type": "TEXT_MESSAGE_END", "messageId": "nope"});
    let server = Server::start(answer_with(vec![
        started(),
        chunk("good"),
        bad,
        chunk("never"),
    ]));
    let mut conv = conversation();
    let report = HttpAgent::new(server.url())
        .run(&mut conv, &mut ())
        .unwrap();
    let RunStatus::Protocol(e) = &report.status else {
        panic!("{}", report.status)
    };
    assert_eq!(e.frame, 2);
    assert_eq!(answer(&conv).as_deref(), Some("good"));
}

#[test]
fn run_error_is_a_report_not_a_transport_error() {
    let error = json!({"type": "RUN_ERROR", "message": "quota exceeded"});
    let server = Server::start(answer_with(vec![started(), chunk("partial"), error]));
    let mut conv = conversation();
    let report = HttpAgent::new(server.url())
        .run(&mut conv, &mut ())
        .unwrap();
    assert_eq!(
        report.status.to_string(),
        "the agent reported an error: quota exceeded"
    );
    assert_eq!(answer(&conv).as_deref(), Some("partial"));
}

/// Runs a first run answered by `fail` (which fails after the partial
/// answer "The answer is"), then a second with a new user message: the
/// second run's input must carry every message folded before the failure.
fn next_input_after(fail: impl Fn(&mut std::net::TcpStream) + Send + Sync + 'static) {
    let runs = std::sync::atomic::AtomicUsize::new(0);
    let server = Server::start(move |_req, conn, _stop| {
        if runs.fetch_add(1, Ordering::SeqCst) == 0 {
            fail(conn);
        } else {
            let answer = json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m2", "role": "assistant", "delta": "42"});
            let events = frame(&started()) + &frame(&answer) + &frame(&finished());
            send(conn, (sse_head("text/event-stream") + &events).as_bytes());
        }
    });
    let agent = HttpAgent::new(server.url());
    let mut conv = conversation();
    let failed = agent.run(&mut conv, &mut ());
    assert!(
        failed.as_ref().map_or(true, |r| !r.status.is_finished()),
        "{failed:?}"
    );
    conv.add_user_message("and then?").unwrap();
    let report = agent.run(&mut conv, &mut ()).unwrap();
    assert!(report.status.is_finished(), "{}", report.status);

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let body: Value = serde_json::from_str(&requests[1].body).unwrap();
    let sent: Vec<(&str, &str)> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
        .collect();
    assert_eq!(
        sent,
        [
            ("user", "hello"),
            ("assistant", "The answer is"),
            ("user", "and then?")
        ]
    );
    assert_eq!(body["messages"][1]["id"], "m1");
    // The conversation now holds the new answer after all of it.
    let texts: Vec<&str> = conv.messages().iter().filter_map(|m| m.text()).collect();
    assert_eq!(texts, ["hello", "The answer is", "and then?", "42"]);
}

#[test]
fn after_a_broken_connection_the_next_input_carries_everything_folded() {
    next_input_after(|conn| {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
        let events = frame(&started()) + &frame(&chunk("The answer is"));
        let body = format!("{:x}\r\n{events}\r\n", events.len());
        send(
            conn,
            (head.to_owned() + &body + "400\r\ndata: {").as_bytes(),
        );
        let _ = conn.shutdown(std::net::Shutdown::Both);
    });
}

#[test]
fn after_run_error_the_next_input_carries_everything_folded() {
    next_input_after(|conn| {
        let error = json!({"type": "RUN_ERROR", "message": "overloaded"});
        let events = frame(&started()) + &frame(&chunk("The answer is")) + &frame(&error);
        send(conn, (sse_head("text/event-stream") + &events).as_bytes());
    });
}

#[test]
fn after_a_protocol_error_the_next_input_carries_everything_folded() {
    next_input_after(|conn| {
        let bad = json!({"type": "TEXT_MESSAGE_END", "messageId": "nope"});
        let events = frame(&started()) + &frame(&chunk("The answer is")) + &frame(&bad);
        send(conn, (sse_head("text/event-stream") + &events).as_bytes());
    });
}
