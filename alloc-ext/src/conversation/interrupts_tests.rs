//! Interrupts through a whole conversation: gathered from a run's end,
//! answered, sent with the next run.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use serde_json::{json, Value};

use super::super::{Conversation, RunStatus, StartError};
use super::{AnswerError, InterruptSource, Resolution, TooManyInterrupts};

fn ndjson(events: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for ev in events {
        out.extend_from_slice(serde_json::to_string(ev).unwrap().as_bytes());
        out.push(b'\n');
    }
    out
}

fn started(run: &str) -> Value {
    json!({"type": "RUN_STARTED", "threadId": "t", "runId": run})
}

fn finished_with(run: &str, interrupts: Value) -> Value {
    json!({"type": "RUN_FINISHED", "threadId": "t", "runId": run,
        "outcome": {"type": "interrupt", "interrupts": interrupts}})
}

fn finished(run: &str) -> Value {
    json!({"type": "RUN_FINISHED", "threadId": "t", "runId": run})
}

fn on_interrupt(value: Value) -> Value {
    json!({"type": "CUSTOM", "name": "on_interrupt", "value": value})
}

/// Starts a run, feeds `events` (RUN_STARTED first, with the run's id).
fn run(conv: &mut Conversation, events: &[Value]) -> (Value, RunStatus) {
    let request = conv.start_run().unwrap();
    let body: Value = serde_json::from_str(&request.body).unwrap();
    let mut all = vec![started(&request.run_id)];
    all.extend(events.iter().map(|e| {
        let mut e = e.clone();
        if e.get("runId").is_some() {
            e["runId"] = json!(request.run_id);
        }
        e
    }));
    conv.feed(&ndjson(&all)).unwrap();
    (body, conv.end_run().unwrap().status)
}

fn approval(id: &str) -> Value {
    json!({"id": id, "reason": "tool_call", "message": "Approve unlock_door({\"door\":\"front\"})?",
        "toolCallId": "c1", "responseSchema": {"type": "object", "required": ["approved"]}})
}

fn ids(conv: &Conversation) -> Vec<String> {
    conv.pending_interrupts()
        .iter()
        .map(|p| p.interrupt.id.clone())
        .collect()
}

/// The outcome's interrupts become pending, typed; the next run cannot
/// start until each is answered; then it carries `resume[]` in the
/// interrupts' order, as the reference's `buildResumeArray` builds it.
#[test]
fn outcome_interrupts_are_answered_by_resume() {
    let mut conv = Conversation::new("t");
    conv.add_user_message("open the door").unwrap();
    let (_, status) = run(
        &mut conv,
        &[finished_with(
            "r",
            json!([approval("i1"), {"id": "i2", "reason": "confirm"}, {"id": "i3", "reason": "ask"}]),
        )],
    );
    assert!(status.is_finished());
    assert_eq!(ids(&conv), ["i1", "i2", "i3"]);
    let first = &conv.pending_interrupts()[0];
    assert_eq!(first.source, InterruptSource::Outcome);
    assert_eq!(first.interrupt.tool_call_id.as_deref(), Some("c1"));
    assert!(first.interrupt.response_schema.is_some());

    conv.answer("i3", Resolution::Cancelled).unwrap();
    assert_eq!(
        conv.answer("nope", Resolution::Cancelled),
        Err(AnswerError::Unknown("nope".to_string()))
    );
    conv.answer("i1", Resolution::approved(false)).unwrap();
    let refused = conv.start_run().unwrap_err();
    assert_eq!(refused, StartError::Unanswered(vec!["i2".to_string()]));
    assert!(refused.to_string().contains("'i2'"), "{refused}");
    conv.answer("i1", Resolution::approved(true)).unwrap(); // a changed mind
    conv.answer("i2", Resolution::Resolved { payload: None })
        .unwrap();

    let (body, _) = run(&mut conv, &[finished("r")]);
    assert_eq!(
        body["resume"],
        json!([
            {"interruptId": "i1", "status": "resolved", "payload": {"approved": true}},
            {"interruptId": "i2", "status": "resolved"},
            {"interruptId": "i3", "status": "cancelled"},
        ])
    );
    assert_eq!(body["forwardedProps"], json!({}));
    // That run finished without interrupts: nothing pending, no resume.
    assert!(conv.pending_interrupts().is_empty());
    assert!(conv.run_input("x").find("resume").is_none());
}

/// A resuming run that fails keeps the interrupts and their answers: the
/// next run sends them again. One that finishes replaces them.
#[test]
fn a_failed_resuming_run_keeps_the_answers() {
    let mut conv = Conversation::new("t");
    run(&mut conv, &[finished_with("r", json!([approval("i1")]))]);
    conv.answer("i1", Resolution::approved(true)).unwrap();
    let request = conv.start_run().unwrap();
    assert!(request.body.contains(r#""resume":[{"interruptId":"i1""#));
    conv.abort_run("connection lost");
    assert_eq!(ids(&conv), ["i1"]);
    let (body, _) = run(&mut conv, &[finished_with("r", json!([approval("i9")]))]);
    assert_eq!(body["resume"][0]["interruptId"], "i1");
    assert_eq!(ids(&conv), ["i9"]);
    assert_eq!(conv.pending_interrupts()[0].answer, None);
}

/// ag-ui-langgraph's default: `CUSTOM on_interrupt` events (the value is
/// the `interrupt()` value as JSON text), then a plain finish; answered in
/// `forwardedProps.command.resume`, the user's props kept.
#[test]
fn legacy_on_interrupt_is_answered_by_command_resume() {
    let mut conv = Conversation::new("t");
    conv.set_forwarded_props(json!({"stream_subgraphs": false}));
    let question = r#"{"reason": "approval", "message": "Unlock the front door?", "responseSchema": {"type": "object"}}"#;
    let (_, status) = run(&mut conv, &[on_interrupt(json!(question)), finished("r")]);
    assert_eq!(status.to_string(), "finished");
    assert_eq!(ids(&conv), ["on_interrupt-1"]);
    let pending = &conv.pending_interrupts()[0];
    assert_eq!(pending.source, InterruptSource::LegacyEvent);
    assert_eq!(pending.interrupt.reason, "approval");
    assert_eq!(
        pending.interrupt.message.as_deref(),
        Some("Unlock the front door?")
    );
    assert!(conv.start_run().is_err());
    conv.answer("on_interrupt-1", Resolution::approved(false))
        .unwrap();
    let (body, _) = run(&mut conv, &[finished("r")]);
    assert_eq!(
        body["forwardedProps"],
        json!({"stream_subgraphs": false, "command": {"resume": {"approved": false}}})
    );
    assert!(body.get("resume").is_none());
    // Once answered, the props are the user's again.
    assert_eq!(
        serde_json::from_str::<Value>(&conv.run_input("x")).unwrap()["forwardedProps"],
        json!({"stream_subgraphs": false})
    );
}

/// ag-ui-langgraph with `emit_interrupt_outcome=True` sends both: the
/// outcome wins (its interrupts have the real ids).
#[test]
fn the_outcome_wins_over_legacy_events() {
    let mut conv = Conversation::new("t");
    run(
        &mut conv,
        &[
            on_interrupt(json!("{\"message\": \"Unlock?\"}")),
            finished_with("r", json!([approval("lg-1")])),
        ],
    );
    assert_eq!(ids(&conv), ["lg-1"]);
    assert_eq!(
        conv.pending_interrupts()[0].source,
        InterruptSource::Outcome
    );
}

/// A hostile agent asking 10,000 questions, in one outcome or as 10,000
/// legacy events: none is kept (the legacy ones cost a counter each), the
/// overflow is reported, and the next run can start.
#[test]
fn ten_thousand_interrupts_are_refused_whole() {
    let many: Vec<Value> = (0..10_000)
        .map(|n| json!({"id": format!("i{n}"), "reason": "r"}))
        .collect();
    let mut conv = Conversation::new("t");
    run(&mut conv, &[finished_with("r", Value::Array(many))]);
    assert!(conv.pending_interrupts().is_empty());
    let overflow = TooManyInterrupts {
        count: 10_000,
        max: 16,
    };
    assert_eq!(conv.interrupt_overflow(), Some(overflow));
    assert!(
        overflow.to_string().contains("10000 questions"),
        "{overflow}"
    );

    let mut events: Vec<Value> = (0..10_000)
        .map(|_| on_interrupt(json!("{\"message\": \"?\"}")))
        .collect();
    events.push(finished("r"));
    let (_, status) = run(&mut conv, &events);
    assert!(status.is_finished());
    assert_eq!(conv.interrupt_overflow(), Some(overflow));
    assert!(conv.pending_interrupts().is_empty());
    assert!(conv.start_run().is_ok());

    // At the limit, all are kept.
    let mut conv = Conversation::new("t").with_max_interrupts(3);
    let three: Vec<Value> = (0..3)
        .map(|n| json!({"id": format!("i{n}"), "reason": "r"}))
        .collect();
    run(&mut conv, &[finished_with("r", Value::Array(three))]);
    assert_eq!(conv.pending_interrupts().len(), 3);
    assert_eq!(conv.interrupt_overflow(), None);
}

/// An interrupt past its `expiresAt` is cancelled, even if answered.
#[test]
fn expired_interrupts_are_cancelled() {
    let mut conv = Conversation::new("t");
    run(
        &mut conv,
        &[finished_with(
            "r",
            json!([
                {"id": "old", "reason": "r", "expiresAt": "2026-12-05T06:00:00Z"},
                {"id": "new", "reason": "r", "expiresAt": "2026-12-05T09:00:00.000+01:00"},
                {"id": "never", "reason": "r", "expiresAt": "whenever"},
            ]),
        )],
    );
    conv.answer("old", Resolution::approved(true)).unwrap();
    let now = super::expiry_ms("2026-12-05T07:30:00Z").unwrap();
    assert_eq!(conv.cancel_expired(now), 1);
    assert_eq!(conv.cancel_expired(now), 0);
    let answers: Vec<Option<Resolution>> = conv
        .pending_interrupts()
        .iter()
        .map(|p| p.answer.clone())
        .collect();
    assert_eq!(answers, [Some(Resolution::Cancelled), None, None]);
    let later = super::expiry_ms("2026-12-05T08:00:00Z").unwrap();
    assert_eq!(conv.cancel_expired(later), 1);
}
