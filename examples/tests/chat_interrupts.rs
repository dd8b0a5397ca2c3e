//! `agui-chat` and a person in the loop: a run that ends with interrupts,
//! answered by `--interrupt approve|deny` (or cancelled when nobody can
//! answer), and the resuming run. Against the real backends of
//! `examples/agents/` (pydantic-ai's tool approval; LangGraph's
//! `interrupt()` through ag-ui-langgraph, with the interrupt outcome and in
//! the legacy `on_interrupt` mode), in both protocols; and against hostile
//! agents (10,000 questions, an expired one).
//!
//! The backends need the venv of `examples/agents/setup.sh` (or Python in
//! `$AGUI_PYTHON`); without it these tests fail and say so.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod backend;
mod hostile_agent;

use std::process::{Command, Output};

use backend::Backend;
use hostile_agent::server::{send, Server};
use hostile_agent::{run_started, stream};
use serde_json::{json, Value};

fn chat(args: &[&str], stdin: &str) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agui-chat"));
    cmd.args(args);
    hostile_agent::run_guarded(cmd, stdin)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// One user message to `url` with `--interrupt decision`, in `protocol`:
/// the transcript, checked to end well.
fn answered(url: &str, protocol: &str, decision: &str) -> String {
    let out = chat(
        &[url, "--protocol", protocol, "--interrupt", decision],
        "Please open the front door\n",
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.lines().last().unwrap().starts_with("ok: 2 runs, "),
        "{stdout}"
    );
    stdout
}

/// `expected` are lines of `text`, in this order.
fn assert_lines_in_order(text: &str, expected: &[&str]) {
    let mut lines = text.lines();
    for want in expected {
        assert!(
            lines.any(|line| line == *want),
            "missing {want:?} (or out of order) in:\n{text}"
        );
    }
}

/// pydantic-ai: `unlock_door` needs approval. Approved, the tool runs and
/// the agent quotes its result; denied, the agent quotes the denial.
#[test]
fn pydantic_ai_tool_approval_approved_and_denied() {
    let backend = Backend::start("pydantic_server.py");
    let url = format!("{}approval", backend.url);
    let question = r#"[interrupt int-call_unlock_door_1] tool_call: Approve unlock_door({"door":"front"})? (tool call call_unlock_door_1)"#;
    for protocol in ["current", "1.0"] {
        let approved = answered(&url, protocol, "approve");
        assert_lines_in_order(
            &approved,
            &[
                "[user] Please open the front door",
                r#"[tool call call_unlock_door_1 unlock_door] {"door": "front"}"#,
                question,
                "[answer int-call_unlock_door_1] approved",
                "[tool result for call_unlock_door_1] the front door is unlocked",
                r#"[assistant] unlock_door says: "the front door is unlocked"."#,
            ],
        );
        let denied = answered(&url, protocol, "deny");
        assert_lines_in_order(
            &denied,
            &[
                question,
                "[answer int-call_unlock_door_1] denied",
                "[tool result for call_unlock_door_1] The tool call was denied.",
                r#"[assistant] unlock_door says: "The tool call was denied."."#,
            ],
        );
        assert!(!denied.contains("is unlocked"), "{denied}");
    }
}

/// LangGraph's `interrupt()`: ag-ui-langgraph with the interrupt outcome
/// (answered by `resume[]`) and in its default legacy mode (`CUSTOM
/// on_interrupt`, answered by `forwardedProps.command.resume`).
#[test]
fn langgraph_interrupt_approved_and_denied_in_both_modes() {
    let backend = Backend::start("langgraph_server.py");
    for path in ["interrupt", "interrupt-legacy"] {
        let url = format!("{}{path}", backend.url);
        for protocol in ["current", "1.0"] {
            let approved = answered(&url, protocol, "approve");
            let denied = answered(&url, protocol, "deny");
            for (out, answer, said) in [
                (
                    &approved,
                    "approved",
                    "[assistant] Approved: the front door is unlocked.",
                ),
                (
                    &denied,
                    "denied",
                    "[assistant] Denied: the front door stays locked.",
                ),
            ] {
                let asked = out
                    .lines()
                    .find(|l| l.starts_with("[interrupt "))
                    .unwrap_or_else(|| panic!("no interrupt shown in:\n{out}"));
                assert!(
                    asked.ends_with("] approval: Unlock the front door?"),
                    "{out}"
                );
                let id = asked
                    .strip_prefix("[interrupt ")
                    .and_then(|l| l.split(']').next())
                    .unwrap();
                // The legacy events carry no id: the client numbers them.
                assert_eq!(id == "on_interrupt-1", path == "interrupt-legacy", "{out}");
                let answer_line = format!("[answer {id}] {answer}");
                assert_lines_in_order(out, &[asked, &answer_line, said]);
            }
        }
    }
}

/// Without `--interrupt`, stdin not a terminal: nobody can answer, so each
/// interrupt is cancelled (said on stderr), and the agent hears so.
#[test]
fn without_a_terminal_interrupts_are_cancelled() {
    let backend = Backend::start("langgraph_server.py");
    let url = format!("{}interrupt-legacy", backend.url);
    let out = chat(&[&url], "Please open the front door\n");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert_lines_in_order(
        &stdout,
        &[
            "[answer on_interrupt-1] cancelled",
            "[assistant] Nobody answered: the front door stays locked.",
        ],
    );
    assert!(
        stderr.contains(
            "the agent asks 1 question(s) and stdin is not a terminal: each is cancelled \
             (--interrupt approve|deny answers them)"
        ),
        "{stderr}"
    );
}

/// An agent whose first run ends with `interrupts` (the outcome) preceded
/// by `before`; its second run says what `resume` it got.
fn asking_agent(before: Vec<Value>, interrupts: Value) -> Server {
    Server::start(move |req, conn, _stop| {
        let body: Value = serde_json::from_str(&req.body).unwrap();
        let mut finished =
            json!({"type": "RUN_FINISHED", "threadId": body["threadId"], "runId": body["runId"]});
        let mut events = vec![run_started(req)];
        if body.get("resume").is_none() && body["forwardedProps"].get("command").is_none() {
            events.extend(before.iter().cloned());
            if interrupts.as_array().is_some_and(|list| !list.is_empty()) {
                finished["outcome"] = json!({"type": "interrupt", "interrupts": interrupts});
            }
        } else {
            let said = format!("resume {} props {}", body["resume"], body["forwardedProps"]);
            events.extend([
                json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
                json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": said}),
                json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}),
            ]);
        }
        events.push(finished);
        send(conn, stream(&events).as_bytes());
    })
}

/// A hostile agent asks 10,000 questions (in one outcome, or as 10,000
/// legacy events): not one is asked or shown, the run fails with one
/// line, and the client holds at most its cap (16) of them meanwhile.
#[test]
fn ten_thousand_interrupts_are_refused() {
    let many: Vec<Value> = (0..10_000)
        .map(|n| json!({"id": format!("i{n}"), "reason": "spam", "message": "Approve?"}))
        .collect();
    let legacy: Vec<Value> = (0..10_000)
        .map(|_| json!({"type": "CUSTOM", "name": "on_interrupt", "value": "{\"message\": \"Approve?\"}"}))
        .collect();
    for (before, interrupts) in [(vec![], Value::Array(many)), (legacy, json!([]))] {
        let agent = asking_agent(before, interrupts);
        let out = chat(&[&agent.url(), "--interrupt", "approve"], "hi\n");
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
        assert!(!stdout.contains("[interrupt "), "{stdout}");
        assert_eq!(
            stderr,
            "agui-chat: the agent asked 10000 questions in one run, more than the 16 this client \
             answers: none is answered (raise the limit, or ask the agent for fewer)\n"
        );
        assert_eq!(agent.requests().len(), 1, "no resuming run");
    }
}

/// An interrupt whose `expiresAt` is past is answered `cancelled`, even
/// with `--interrupt approve`; the others as decided. The resume entries
/// come in the interrupts' order, as the reference builds them.
#[test]
fn an_expired_interrupt_is_cancelled() {
    let agent = asking_agent(
        vec![],
        json!([
            {"id": "late", "reason": "confirm", "message": "Too late?", "expiresAt": "2020-01-01T00:00:00Z"},
            {"id": "now", "reason": "confirm", "message": "In time?", "expiresAt": "2999-01-01T00:00:00Z"},
        ]),
    );
    let out = chat(&[&agent.url(), "--interrupt", "approve"], "hi\n");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert_lines_in_order(
        &stdout,
        &[
            "[interrupt late] confirm: Too late? (expired 2020-01-01T00:00:00Z)",
            "[answer late] cancelled",
            "[interrupt now] confirm: In time? (expires 2999-01-01T00:00:00Z)",
            "[answer now] approved",
            r#"[assistant] resume [{"interruptId":"late","status":"cancelled"},{"interruptId":"now","payload":{"approved":true},"status":"resolved"}] props {}"#,
        ],
    );
}

/// At a terminal (a pseudo-terminal made by util-linux `script`, as a
/// person's would be), the person is asked: a wrong answer gets a reason
/// and the question again, `n` denies, and the agent says so.
#[test]
fn at_a_terminal_the_person_is_asked() {
    use std::io::Write;
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    let backend = Backend::start("pydantic_server.py");
    let command = format!(
        "'{}' '{}approval'",
        env!("CARGO_BIN_EXE_agui-chat"),
        backend.url
    );
    let mut child = Command::new("script")
        .args(["-qfec", &command, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("util-linux `script` (Debian: bsdutils) makes the terminal");
    let stdout = agui_examples::tool_command::drain(child.stdout.take());
    // Typed ahead: the terminal hands the tool one line per read. Ctrl-D
    // at the last prompt ends the session. Stdin stays open until then.
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"open the front door\nmaybe\nn\n\x04")
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > hostile_agent::WATCHDOG {
            let _ = child.kill();
            panic!("agui-chat at a terminal hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(stdin);
    let out = text(&stdout.join().unwrap()).replace('\r', "");
    assert!(status.success(), "{out}");
    let expected = [
        "[interrupt int-call_unlock_door_1] tool_call: Approve unlock_door({\"door\":\"front\"})? (tool call call_unlock_door_1)\n",
        "approve? [y]es, [n]o, [c]ancel: ",
        "agui-chat: answer y (approve), n (deny) or c (cancel)\n",
        "approve? [y]es, [n]o, [c]ancel: ",
        "[answer int-call_unlock_door_1] denied\n",
        "[assistant] unlock_door says: \"The tool call was denied.\".",
    ];
    let mut rest = out.as_str();
    for want in expected {
        let at = rest
            .find(want)
            .unwrap_or_else(|| panic!("missing {want:?} (or out of order) in:\n{out}"));
        rest = &rest[at + want.len()..];
    }
}

/// Everything an interrupt carries is the agent's text: escaped when
/// shown (ids, reason, message, tool call, expiry), as all agent text.
#[test]
fn interrupt_text_is_escaped() {
    let hostile = hostile_agent::HOSTILE;
    let agent = asking_agent(
        vec![],
        json!([{"id": hostile, "reason": hostile, "message": hostile, "toolCallId": hostile, "expiresAt": hostile}]),
    );
    for output in ["transcript", "live"] {
        let out = chat(
            &[&agent.url(), "--interrupt", "deny", "--output", output],
            "hi\n",
        );
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
        assert!(stdout.contains("[interrupt hi\\u{1b}]0;pwned"), "{stdout}");
        assert!(stdout.contains("[answer hi\\u{1b}]0;pwned"), "{stdout}");
        hostile_agent::assert_inert(&stdout, "stdout");
        hostile_agent::assert_inert(&stderr, "stderr");
    }
}
