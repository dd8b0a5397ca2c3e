//! The reducer's unit tests: the index, the sizes kept and the fast paths
//! against plain algorithms (proptest), and the 1.0 fold rules.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::*;
use crate::event::{
    ActivityAuthority, ActivityDelta, ActivitySnapshot, EncryptedSubtype, MessageContent,
    MessagesSnapshot, Outcome, ReasoningEncryptedValue, RunStarted, StateDelta, TextMessageStart,
    ToolCallArgs, ToolCallEnd, ToolCallResult, ToolCallStart,
};
use crate::index::{CallPos, Class};
use crate::model::{MessageRole, ToolMessage};
use agui_core::event::Role;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::vec;
use proptest::prelude::*;
use serde_json::json;

/// A snapshot is measured once, by its check, and the fold keeps that
/// size; a check whose fold did not run (a hook stopped it) leaves no
/// size behind for the next fold.
#[test]
fn state_snapshot_size_is_the_checked_one() {
    use crate::event::StateSnapshot;
    use crate::hooks::{Flow, HookView, Subscriber};
    struct StopAll;
    impl Subscriber for StopAll {
        fn on_event(&mut self, _: &Event, _: &mut HookView<'_>) -> Flow {
            Flow::Stop
        }
    }
    let snap = |v: Value| Event::StateSnapshot(StateSnapshot { snapshot: Some(v) });
    let mut r = Reducer::new();
    r.try_apply_with(&snap(json!({"a": [1, 2, "three"]})), &mut ())
        .unwrap();
    assert_eq!(r.state_size, json_size(&r.state));
    r.try_apply_with(&snap(json!({"big": "x".repeat(100)})), &mut StopAll)
        .unwrap();
    assert_eq!(r.state, json!({"a": [1, 2, "three"]}));
    assert_eq!(r.state_size, json_size(&r.state));
    let mut e = snap(json!([{"b": null}]));
    r.try_apply_owned(&mut e, None).unwrap();
    assert_eq!(r.state, json!([{"b": null}]));
    assert_eq!(r.state_size, json_size(&r.state));
}

/// An event of a frame, read as AG-UI 1.0 reads it.
fn v1(frame: Value) -> Event {
    let kind = agui_core::event::EventType::from_wire(frame["type"].as_str().unwrap()).unwrap();
    let origin = agui_core::event::Origin::Frame;
    Event::from_core_in(kind, origin, "", &frame, crate::model::Dialect::V1).unwrap()
}

/// SPEC 9.8: a message created by a sub-agent's event carries its
/// `subagentRunId`; an existing parent keeps its own; a replaced
/// activity takes the event's owner or loses its own.
#[test]
fn v1_created_messages_carry_their_owner() {
    let mut r = Reducer::new();
    r.apply(&v1(
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": "s1"}),
    ));
    r.apply(&v1(json!({"type": "REASONING_MESSAGE_START", "messageId": "r", "role": "reasoning", "subagentRunId": "s2"})));
    r.apply(&v1(json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "subagentRunId": "s3"})));
    r.apply(&v1(json!({"type": "TOOL_CALL_START", "toolCallId": "d", "toolCallName": "g", "parentMessageId": "m", "subagentRunId": "s4"})));
    r.apply(&v1(
        json!({"type": "TOOL_CALL_RESULT", "messageId": "t", "toolCallId": "c",
        "content": [{"type": "text", "text": "done"}], "subagentRunId": "s3"}),
    ));
    r.apply(&v1(json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "plan", "content": {}, "subagentRunId": "s5"})));
    let owners: Vec<(&str, Option<&str>)> = r
        .messages()
        .iter()
        .map(|m| (m.id(), m.subagent_run_id()))
        .collect();
    assert_eq!(
        owners,
        [
            ("m", Some("s1")),
            ("r", Some("s2")),
            ("c", Some("s3")),
            ("t", Some("s3")),
            ("a", Some("s5"))
        ]
    );
    let tool = serde_json::to_value(&r.messages()[3]).unwrap();
    assert_eq!(tool["content"], json!([{"type": "text", "text": "done"}]));
    // Replaced without an owner: the activity loses its own.
    r.apply(&v1(json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "plan", "content": {"x": 1}})));
    assert_eq!(r.messages()[4].subagent_run_id(), None);
    // The bytes counted against the limits follow the owners.
    assert_eq!(
        r.message_bytes(),
        r.messages().iter().map(message_bytes).sum::<usize>()
    );
}

fn v1_reducer(messages: Vec<Value>) -> Reducer {
    let mut r = Reducer::with_initial(
        messages
            .into_iter()
            .map(|m| Message::from_json_in(&m, crate::model::Dialect::V1).unwrap())
            .collect(),
        json!({}),
    );
    r.set_dialect(crate::model::Dialect::V1);
    r
}

fn texts(r: &Reducer) -> Vec<(&str, Option<&str>)> {
    r.messages().iter().map(|m| (m.id(), m.text())).collect()
}

/// SPEC 9.8: text and reasoning events on an activity id change
/// nothing in 1.0 (a warning); the current protocol appends.
#[test]
fn v1_text_on_an_activity_is_ignored() {
    let activity = json!({"id": "a", "role": "activity", "activityType": "plan", "content": {}});
    let content = json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "a", "delta": "x"});
    let mut r = v1_reducer(vec![activity.clone()]);
    assert_eq!(r.apply(&v1(content.clone())), Changed::NONE);
    assert!(matches!(
        r.last_warning().map(|w| &w.kind),
        Some(FoldWarningKind::ActivityText { message_id }) if message_id == "a"
    ));
    assert_eq!(serde_json::to_value(&r.messages()[0]).unwrap(), activity);
    let mut r = Reducer::with_initial(vec![msg(activity)], json!({}));
    r.apply(&v1(content));
    assert_eq!(r.messages()[0].text(), Some("x"));
}

/// SPEC 9.8: a client-only message with a same-id snapshot entry is
/// replaced by it in 1.0 (kept unchanged before); the activity
/// messages the snapshot speaks for follow its metadata.
#[test]
fn v1_snapshot_replaces_client_only_messages() {
    let local = vec![
        json!({"id": "r", "role": "reasoning", "content": "old"}),
        json!({"id": "a1", "role": "activity", "activityType": "plan", "content": {}}),
        json!({"id": "a2", "role": "activity", "activityType": "map", "content": {}}),
        json!({"id": "u", "role": "user", "content": "hi"}),
    ];
    let snapshot = |metadata: Value| {
        let mut frame = json!({"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "u", "role": "user", "content": "hi"},
            {"id": "r", "role": "assistant", "content": "new"}
        ]});
        if !metadata.is_null() {
            frame["metadata"] = metadata;
        }
        v1(frame)
    };
    // No authority stated: reasoning and activity are client-only (the
    // snapshot has neither); "r" is replaced by its same-id entry.
    let mut r = v1_reducer(local.clone());
    r.apply(&snapshot(Value::Null));
    assert_eq!(
        texts(&r),
        [
            ("r", Some("new")),
            ("a1", None),
            ("a2", None),
            ("u", Some("hi"))
        ]
    );
    // Authoritative for "plan": a1 goes, a2 (map) stays.
    let mut r = v1_reducer(local.clone());
    r.apply(&snapshot(
        json!({"@ag-ui/client": {"authoritativeActivityTypes": ["plan"]}}),
    ));
    assert_eq!(
        texts(&r),
        [("r", Some("new")), ("a2", None), ("u", Some("hi"))]
    );
    // null: authoritative for every activity.
    let mut r = v1_reducer(local.clone());
    r.apply(&snapshot(
        json!({"@ag-ui/client": {"authoritativeActivityTypes": null}}),
    ));
    assert_eq!(texts(&r), [("r", Some("new")), ("u", Some("hi"))]);
    // The current protocol keeps the client-only "r" unchanged.
    let mut r = Reducer::with_initial(local.into_iter().map(msg).collect(), json!({}));
    r.apply(&snapshot(Value::Null));
    assert_eq!(texts(&r)[0], ("r", Some("old")));
}

/// SPEC 9.9: a success outcome lists the calls of the run that got no
/// result, unless the outcome lists its own; a new run starts over.
#[test]
fn v1_run_outcome_lists_pending_calls() {
    let mut r = v1_reducer(vec![]);
    let run = |r: &mut Reducer, outcome: Value| {
        r.apply(&v1(
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        ));
        for id in ["a", "b", "a", "c"] {
            r.apply(&v1(
                json!({"type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": "f"}),
            ));
        }
        r.apply(&v1(json!({"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "b", "content": "ok"})));
        let mut finished =
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "result": 7});
        if !outcome.is_null() {
            finished["outcome"] = outcome;
        }
        r.apply(&v1(finished));
        r.run_outcome().unwrap().to_json()
    };
    assert_eq!(
        run(&mut r, Value::Null),
        json!({"type": "success", "pendingToolCallIds": ["a", "c"]})
    );
    assert!(matches!(
        r.run_outcome(),
        Some(RunOutcome::Success { result: Some(v), .. }) if *v == json!(7)
    ));
    assert_eq!(
        run(
            &mut r,
            json!({"type": "success", "pendingToolCallIds": ["z"]})
        ),
        json!({"type": "success", "pendingToolCallIds": ["z"]})
    );
    assert_eq!(
        run(&mut r, json!({"type": "cancelled"})),
        json!({"type": "cancelled"})
    );
    // The current protocol has no such outcome.
    assert!(Reducer::new().run_outcome().is_none());
}

/// The same frames read in the current protocol carry no owner.
#[test]
fn current_reads_no_owner() {
    let mut r = Reducer::new();
    let frame = json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": "s1"});
    let kind = agui_core::event::EventType::TextMessageStart;
    let ev = Event::from_core(kind, agui_core::event::Origin::Frame, "", &frame).unwrap();
    r.apply(&ev);
    assert_eq!(r.messages()[0].subagent_run_id(), None);
}

/// SPEC 9.5, 9.9: 1.0's outcomes; `cancelled` empties the interrupts.
#[test]
fn v1_outcomes() {
    let finished = |outcome: Value| {
        v1(json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": outcome}))
    };
    let Event::RunFinished(f) = finished(json!({"type": "success", "pendingToolCallIds": ["c1"]}))
    else {
        panic!()
    };
    assert_eq!(
        f.outcome,
        Some(Outcome::Success {
            pending_tool_call_ids: Some(vec!["c1".into()])
        })
    );
    let Event::RunFinished(f) = finished(json!({"type": "cancelled"})) else {
        panic!()
    };
    assert_eq!(f.outcome, Some(Outcome::Cancelled));
    // Not in the current protocol.
    let frame = json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": {"type": "cancelled"}});
    let kind = agui_core::event::EventType::RunFinished;
    assert!(Event::from_core(kind, agui_core::event::Origin::Frame, "", &frame).is_err());
}

fn msg(v: Value) -> Message {
    Message::from_json(&v).unwrap()
}

fn start(id: &str, name: &str, parent: Option<&str>) -> Event {
    Event::ToolCallStart(alloc::boxed::Box::new(ToolCallStart {
        subagent_run_id: None,
        tool_call_id: id.into(),
        tool_call_name: name.into(),
        parent_message_id: parent.map(Into::into),
        metadata: None,
    }))
}

fn args(id: &str, delta: &str) -> Event {
    Event::ToolCallArgs(ToolCallArgs {
        tool_call_id: id.into(),
        delta: delta.into(),
        metadata: None,
    })
}

fn result(message_id: &str, tool_call_id: &str) -> Event {
    Event::ToolCallResult(alloc::boxed::Box::new(ToolCallResult {
        subagent_run_id: None,
        message_id: message_id.into(),
        tool_call_id: tool_call_id.into(),
        content: "r".into(),
        metadata: None,
    }))
}

fn text_start(id: &str, role: Role) -> Event {
    Event::TextMessageStart(alloc::boxed::Box::new(TextMessageStart {
        subagent_run_id: None,
        message_id: id.into(),
        role,
        name: None,
        metadata: None,
    }))
}

fn ids(r: &Reducer) -> Vec<&str> {
    r.messages().iter().map(Message::id).collect()
}

/// The index must say what a scan in list order says.
fn assert_index_matches_scan(r: &Reducer) {
    for (pos, m) in r.messages.iter().enumerate() {
        let first = r.messages.iter().position(|x| x.id() == m.id()).unwrap();
        assert_eq!(
            r.index.message(m.id()),
            Some(first),
            "message {:?} at {pos}",
            m.id()
        );
        for call in m.tool_calls() {
            let first = r
                .messages
                .iter()
                .enumerate()
                .find_map(|(i, x)| {
                    let c = x.tool_calls().iter().position(|c| c.id == call.id)?;
                    Some(CallPos {
                        message: i,
                        call: c,
                    })
                })
                .unwrap();
            assert_eq!(
                r.index.tool_call(&call.id),
                Some(first),
                "tool call {:?}",
                call.id
            );
        }
    }
    let ids = r.messages.iter().map(Message::id).collect::<BTreeSet<_>>();
    let calls: BTreeSet<&str> = r
        .messages
        .iter()
        .flat_map(|m| m.tool_calls().iter().map(|c| c.id.as_str()))
        .collect();
    assert_eq!(r.index.id_counts(), (ids.len(), calls.len()));
    for class in [Class::Activity, Class::Reasoning, Class::Other] {
        let mut held: Vec<usize> = r.index.positions_of(class).collect();
        held.sort_unstable();
        let scan: Vec<usize> = (0..r.messages.len())
            .filter(|&i| Class::of(&r.messages[i]) == class)
            .collect();
        assert_eq!(held, scan, "{class:?}");
    }
    for activity_type in ["A", "B"] {
        let mut held: Vec<usize> = r.index.positions_of_activity_type(activity_type).collect();
        held.sort_unstable();
        let scan: Vec<usize> = (0..r.messages.len())
            .filter(|&i| {
                matches!(&r.messages[i], Message::Activity(a) if a.activity_type == activity_type)
            })
            .collect();
        assert_eq!(held, scan, "activities of type {activity_type}");
    }
    // The slots' bytes are what each counts for, kept up to date.
    let charged: usize = r.args.iter().map(|(_, slot)| slot.charged).sum();
    let records: usize = r.args.records().map(|(id, e)| e.charge(id)).sum();
    assert_eq!(r.args.bytes(), charged + records);
    for (id, slot) in r.args.iter() {
        assert_eq!(slot.charged, slot.charge(id), "slot of {id:?}");
    }
    // Slots are kept only for ids that some tool call has.
    for id in r
        .args
        .iter()
        .map(|(id, _)| id)
        .chain(r.args.records().map(|(id, _)| id))
    {
        assert!(
            calls.contains(id.as_str()),
            "slot of {id:?} outlived its calls"
        );
    }
    // Without hooks, a slot has read all of its call's text, or none of
    // it (rewound: the text was replaced).
    for (id, slot) in r.args.iter() {
        if let Some(call) = r.tool_call(id) {
            let len = call.function.arguments.len();
            assert!(slot.consumed == len || slot.consumed == 0, "slot of {id:?}");
        }
    }
}

#[test]
fn results_go_after_their_call_and_keep_the_index_right() {
    let initial = vec![
        msg(json!({"id": "a", "role": "assistant", "toolCalls": [
            {"id": "t1", "type": "function", "function": {"name": "f", "arguments": ""}}]})),
        msg(json!({"id": "b", "role": "assistant", "content": "x"})),
        msg(json!({"id": "b", "role": "user", "content": "dup"})),
        msg(json!({"id": "c", "role": "assistant", "toolCalls": [
            {"id": "t2", "type": "function", "function": {"name": "g", "arguments": ""}},
            {"id": "t1", "type": "function", "function": {"name": "dup", "arguments": ""}}]})),
    ];
    let mut r = Reducer::with_initial(initial, json!({}));
    assert_eq!(r.apply(&result("r1", "t1")), Changed::MESSAGES);
    assert_eq!(r.apply(&result("b", "t1")), Changed::MESSAGES);
    assert_eq!(r.apply(&result("r2", "t2")), Changed::MESSAGES);
    assert_eq!(ids(&r), ["a", "r1", "b", "b", "b", "c", "r2"]);
    assert_index_matches_scan(&r);
    // The second "b" (the inserted tool message) is now the first "b".
    assert_eq!(r.message("b").unwrap().role(), MessageRole::Tool);
    assert_eq!(r.tool_call("t1").unwrap().function.name, "f");
}

#[test]
fn tool_call_owner_rules() {
    let mut r = Reducer::with_initial(
        vec![msg(json!({"id": "u", "role": "user", "content": "q"}))],
        json!({}),
    );
    r.apply(&start("t1", "f", Some("u"))); // parent is a user message
    r.apply(&start("t2", "g", Some("p"))); // no such parent
    r.apply(&start("t3", "h", Some("p"))); // the new assistant "p"
    r.apply(&start("t4", "i", Some(""))); // empty = absent
    assert_eq!(ids(&r), ["u", "t1", "p", "t4"]);
    assert_eq!(r.messages()[2].tool_calls().len(), 2);
    // A replayed start renames without a new entry; same name: no change.
    assert_eq!(r.apply(&start("t3", "h2", None)), Changed::MESSAGES);
    assert_eq!(r.apply(&start("t3", "h2", None)), Changed::NONE);
    assert_eq!(r.tool_call("t3").unwrap().function.name, "h2");
    assert_index_matches_scan(&r);
}

#[test]
fn args_follow_a_snapshot_that_rewrote_the_text() {
    let mut r = Reducer::new();
    r.apply(&start("t", "f", None));
    r.apply(&args("t", "{\"a\":"));
    let snapshot = vec![msg(json!({"id": "t", "role": "assistant", "toolCalls": [
        {"id": "t", "type": "function", "function": {"name": "f", "arguments": "{\"b\":"}}]}))];
    r.apply(&Event::MessagesSnapshot(MessagesSnapshot {
        messages: snapshot,
        activity_authority: Default::default(),
    }));
    r.apply(&args("t", "2}"));
    assert_eq!(r.tool_call("t").unwrap().function.arguments, "{\"b\":2}");
    assert_eq!(r.partial_args("t").as_deref(), Some(&json!({"b": 2})));
    r.apply(&Event::ToolCallEnd(ToolCallEnd {
        tool_call_id: "t".into(),
        metadata: None,
    }));
    assert_eq!(r.final_args("t").as_deref(), Some(&json!({"b": 2})));
}

fn end(id: &str) -> Event {
    Event::ToolCallEnd(ToolCallEnd {
        tool_call_id: id.into(),
        metadata: None,
    })
}

#[test]
fn finished_calls_keep_no_slot() {
    let mut r = Reducer::new();
    r.apply(&text_start("a", Role::Assistant));
    for i in 0..100 {
        let id = format!("c{i}");
        r.apply(&start(&id, "f", Some("a")));
        r.apply(&args(&id, "{\"n\":"));
        r.apply(&args(&id, &format!("{i}}}")));
        r.apply(&end(&id));
        // The END's trace still reads the slot.
        assert_eq!(r.trace_args(&end(&id)).unwrap().1, &json!({"n": i}));
    }
    // A call without arguments, then the next event frees its slot too.
    r.apply(&start("bare", "f", Some("a")));
    r.apply(&end("bare"));
    r.apply(&text_start("b", Role::Assistant));
    // Only the texts are left: no slot.
    assert_eq!(r.args.iter().count(), 0);
    assert_eq!(r.args.records().count(), 101);
    let texts: usize = r.args.records().map(|(id, e)| e.charge(id)).sum();
    assert_eq!(r.args.bytes(), texts);
    assert!(texts < 101 * 200, "{texts}");
    assert_eq!(r.final_args("c7").as_deref(), Some(&json!({"n": 7})));
    assert_eq!(r.partial_args("c7").as_deref(), Some(&json!({"n": 7})));
    assert_eq!(r.final_args("bare").as_deref(), Some(&json!({})));
    assert_eq!(r.partial_args("bare"), None);
    // Reopened, a call reads on from its text: its value is the last good
    // one once the text stops being JSON, as if the slot had stayed.
    r.apply(&start("c7", "f", Some("a")));
    r.apply(&args("c7", " x"));
    assert_eq!(r.partial_args("c7").as_deref(), Some(&json!({"n": 7})));
    r.apply(&end("c7"));
    assert_eq!(r.final_args("c7").as_deref(), Some(&json!({})));
    assert_index_matches_scan(&r);
}

#[test]
fn a_call_ended_mid_document_keeps_its_slot() {
    let mut r = Reducer::new();
    r.apply(&start("t", "f", None));
    r.apply(&args("t", "{\"a\":[1"));
    r.apply(&end("t"));
    r.apply(&text_start("b", Role::Assistant));
    // Its partial state cannot be made again from the text alone cheaply:
    // kept, and counted.
    assert_eq!(r.args.iter().count(), 1);
    assert!(r.args.bytes() >= super::tools::SLOT_OVERHEAD);
    r.apply(&start("t", "f", None));
    r.apply(&args("t", "]}"));
    assert_eq!(r.partial_args("t").as_deref(), Some(&json!({"a": [1]})));
}

/// `1` inside `n` arrays: a value `n` levels deep.
fn nested(n: usize) -> Value {
    (0..n).fold(json!(1), |inner, _| Value::Array(vec![inner]))
}

#[test]
fn state_nests_to_the_host_depth_by_default() {
    let max = ReducerLimits::default().max_state_depth;
    assert_eq!(max, 512);
    let snapshot =
        |v: Value| Event::StateSnapshot(crate::event::StateSnapshot { snapshot: Some(v) });
    let mut r = Reducer::new();
    // `{"a": ...}` adds a level: the state is `max` deep, then one more.
    r.try_apply_with(&snapshot(json!({ "a": nested(max - 1) })), &mut ())
        .unwrap();
    let e = r
        .try_apply_with(&snapshot(json!({ "a": nested(max) })), &mut ())
        .unwrap_err();
    assert_eq!(
        (e.limit, e.max, e.needed),
        (Limit::StateDepth, max, max + 1)
    );
    assert!(
        format!("{e}").contains("ReducerLimits::max_state_depth"),
        "{e}"
    );
    // A patch reaches the limit, and one level more is refused whole.
    r.try_apply_with(&snapshot(json!({})), &mut ()).unwrap();
    let add = |path: String, value: Value| {
        Event::StateDelta(StateDelta {
            delta: json!([{"op": "add", "path": path, "value": value}]),
        })
    };
    r.try_apply_with(&add("/a".into(), nested(max - 2)), &mut ())
        .unwrap();
    // The state is `max - 1` deep; `/a/0/.../0` names its innermost
    // array, where `[]` makes it `max` deep and `[[]]` one more.
    let innermost = format!("/a{}/-", "/0".repeat(max - 3));
    r.try_apply_with(&add(innermost.clone(), json!([])), &mut ())
        .unwrap();
    assert_eq!(r.state_size.depth, max);
    let e = r
        .try_apply_with(&add(innermost, json!([[]])), &mut ())
        .unwrap_err();
    assert_eq!((e.limit, e.needed), (Limit::StateDepth, max + 1));
    assert_eq!(r.state_size.depth, max);
}

#[test]
fn failed_state_patch_is_a_warning() {
    let mut r = Reducer::new();
    let bad = Event::StateDelta(StateDelta {
        delta: json!([{"op": "add", "path": "/a", "value": 1}, {"op": "remove", "path": "/nope"}]),
    });
    assert_eq!(r.apply(&bad), Changed::NONE);
    assert_eq!(r.state(), &json!({}));
    assert_eq!(r.last_warning().unwrap().event, EventType::StateDelta);
    let good = Event::StateDelta(StateDelta { delta: json!([]) });
    assert_eq!(r.apply(&good), Changed::STATE);
    assert!(r.last_warning().is_none());
}

#[test]
fn activity_overwriting_an_assistant_drops_its_tool_calls() {
    let mut r = Reducer::new();
    r.apply(&start("t", "f", Some("a")));
    r.apply(&start("t2", "g", None));
    let act = Event::ActivitySnapshot(alloc::boxed::Box::new(ActivitySnapshot {
        subagent_run_id: None,
        message_id: "a".into(),
        activity_type: "P".into(),
        content: Object::new(),
        replace: true,
        metadata: None,
    }));
    assert_eq!(r.apply(&act), Changed::MESSAGES);
    assert!(r.tool_call("t").is_none());
    assert!(r.tool_call("t2").is_some());
    assert_index_matches_scan(&r);
}

/// An activity that changes its type in place moves in the index, so
/// that a 1.0 snapshot authoritative for the new type removes it and
/// one for the old type keeps it.
#[test]
fn retyped_activity_follows_its_type() {
    let snapshot = |t: &str| {
        Event::ActivitySnapshot(alloc::boxed::Box::new(ActivitySnapshot {
            subagent_run_id: None,
            message_id: "a".into(),
            activity_type: t.into(),
            content: Object::new(),
            replace: true,
            metadata: None,
        }))
    };
    let delta = |t: &str| {
        Event::ActivityDelta(alloc::boxed::Box::new(ActivityDelta {
            message_id: "a".into(),
            activity_type: t.into(),
            patch: serde_json::from_str(PATCHES[0]).unwrap(),
            metadata: None,
        }))
    };
    let authoritative = |t: &str| {
        Event::MessagesSnapshot(MessagesSnapshot {
            messages: Vec::new(),
            activity_authority: ActivityAuthority::Types(vec![t.into()]),
        })
    };
    for (retype, kept) in [(snapshot("B"), "A"), (delta("B"), "A"), (delta("A"), "B")] {
        let mut r = Reducer::new();
        r.set_dialect(Dialect::V1);
        r.apply(&snapshot("A"));
        r.apply(&retype);
        assert_index_matches_scan(&r);
        r.apply(&authoritative(kept));
        assert_eq!(r.messages.len(), 1, "{retype:?} then authority over {kept}");
        r.apply(&authoritative(if kept == "A" { "B" } else { "A" }));
        assert!(r.messages.is_empty(), "{retype:?}");
    }
}

/// Small alphabets, so that ids collide often.
fn any_event() -> impl Strategy<Value = Event> {
    let id = || prop::sample::select(vec!["a", "b", "c", "t1", "t2"]);
    let piece = prop::sample::select(vec!["{", "\"k\"", ":", "1", ",", "}", "[", "\"é\\u00", ""]);
    let role = prop::sample::select(vec![Role::Assistant, Role::User, Role::System]);
    let snapshot_msg = (id(), 0..4u8).prop_map(|(id, kind)| match kind {
        0 => msg(json!({"id": id, "role": "user", "content": "s"})),
        1 => msg(json!({"id": id, "role": "reasoning", "content": "s"})),
        2 => msg(json!({"id": id, "role": "activity", "activityType": "A", "content": {}})),
        _ => msg(json!({"id": id, "role": "assistant", "toolCalls": [
            {"id": "t1", "type": "function", "function": {"name": "s", "arguments": "{\"s\":"}}]})),
    });
    prop_oneof![
        (id(), role).prop_map(|(id, role)| text_start(id, role)),
        (id(), piece.clone()).prop_map(|(id, d)| Event::TextMessageContent(MessageContent {
            message_id: id.into(),
            delta: d.into(),
            metadata: None
        })),
        (id(), prop::option::of(id())).prop_map(|(id, parent)| start(id, "n", parent)),
        (id(), piece).prop_map(|(id, d)| args(id, d)),
        id().prop_map(|id| Event::ToolCallEnd(ToolCallEnd {
            tool_call_id: id.into(),
            metadata: None
        })),
        (id(), id()).prop_map(|(m, t)| result(m, t)),
        (prop::collection::vec(snapshot_msg.clone(), 0..4), 0..5u8).prop_map(
            |(messages, authority)| Event::MessagesSnapshot(MessagesSnapshot {
                messages,
                // Authority is read in 1.0 only (the current protocol
                // always has `Unstated`).
                activity_authority: match authority {
                    0 | 1 => ActivityAuthority::Unstated,
                    2 => ActivityAuthority::All,
                    3 => ActivityAuthority::Types(vec!["A".into()]),
                    _ => ActivityAuthority::Types(vec!["B".into(), "B".into()]),
                },
            })
        ),
        (id(), any::<bool>()).prop_map(|(id, replace)| Event::ActivitySnapshot(
            alloc::boxed::Box::new(ActivitySnapshot {
                subagent_run_id: None,
                message_id: id.into(),
                activity_type: "A".into(),
                content: Object::new(),
                replace,
                metadata: None,
            })
        )),
        (id(), prop::option::of(id())).prop_map(|(id, key)| {
            Event::TextMessageContent(MessageContent {
                message_id: id.into(),
                delta: "x\n".into(),
                metadata: key.map(|k| {
                    let mut m = Object::new();
                    m.insert(k.into(), json!([k, 1.5]));
                    m
                }),
            })
        }),
        (id(), 0..PATCHES.len()).prop_map(|(id, p)| Event::ActivityDelta(alloc::boxed::Box::new(
            ActivityDelta {
                message_id: id.into(),
                activity_type: "B".into(),
                patch: serde_json::from_str(PATCHES[p]).unwrap(),
                metadata: None,
            }
        ))),
        (0..PATCHES.len()).prop_map(|p| Event::StateDelta(StateDelta {
            delta: serde_json::from_str(PATCHES[p]).unwrap(),
        })),
        (id(), any::<bool>()).prop_map(|(id, call)| {
            Event::ReasoningEncryptedValue(ReasoningEncryptedValue {
                subtype: if call {
                    EncryptedSubtype::ToolCall
                } else {
                    EncryptedSubtype::Message
                },
                entity_id: id.into(),
                encrypted_value: "secret".into(),
            })
        }),
        prop::collection::vec(snapshot_msg, 0..3).prop_map(|messages| {
            Event::RunStarted(RunStarted {
                thread_id: "t".into(),
                run_id: "r".into(),
                parent_run_id: None,
                input: Some(alloc::boxed::Box::new(crate::model::RunAgentInput {
                    thread_id: "t".into(),
                    run_id: "r".into(),
                    parent_run_id: None,
                    protocol_version: None,
                    state: None,
                    messages,
                    tools: Vec::new(),
                    context: Vec::new(),
                    forwarded_props: None,
                    resume: None,
                })),
            })
        }),
    ]
}

/// Patches for the generated deltas: every op, nested values, escapes,
/// failures.
const PATCHES: &[&str] = &[
    r#"[{"op":"add","path":"/x","value":[1,"\n",{"k":null}]}]"#,
    r#"[{"op":"add","path":"/x/-","value":-2.5e-7}]"#,
    r#"[{"op":"copy","from":"/x","path":"/y"}]"#,
    r#"[{"op":"copy","from":"","path":"/whole"}]"#,
    r#"[{"op":"remove","path":"/x"}]"#,
    r#"[{"op":"remove","path":"/x/0"}]"#,
    r#"[{"op":"move","from":"/x","path":"/z"}]"#,
    r#"[{"op":"move","from":"/y","path":"/x/0"}]"#,
    r#"[{"op":"replace","path":"","value":{"q":1e300}}]"#,
    r#"[{"op":"replace","path":"/q","value":"\u0001"}]"#,
    r#"[{"op":"remove","path":""}]"#,
    r#"[{"op":"add","path":"/n","value":1},{"op":"test","path":"/n","value":2}]"#,
];

/// The counts the reducer keeps equal what a walk of everything finds.
fn assert_sizes_match_a_walk(r: &Reducer) {
    let held: usize = r.messages.iter().map(message_bytes).sum();
    assert_eq!(r.message_bytes(), held, "{:?}", r.messages);
    let state = serde_json::to_string(&r.state).unwrap();
    assert_eq!(r.state_size.bytes, state.len(), "{state}");
    assert!(r.state_size.depth >= json_size(&r.state).depth);
    for (id, size) in &r.activity_sizes {
        if let Some(Message::Activity(a)) = r.message(id) {
            assert_eq!(size.bytes, json_size(&a.content).bytes, "{id}");
        }
    }
}

/// The list after `event` as the plain algorithms of SPEC section 5 make
/// it (a scan for the owner and past its results; the merge by maps),
/// for the events whose fast paths are tested here.
fn expected_after(messages: &[Message], event: &Event, dialect: Dialect) -> Option<Vec<Message>> {
    match event {
        Event::MessagesSnapshot(e) => {
            let has = |role| e.messages.iter().any(|m: &Message| m.role() == role);
            let (act, rea) = (has(MessageRole::Activity), has(MessageRole::Reasoning));
            let last: BTreeMap<&str, &Message> = e.messages.iter().map(|m| (m.id(), m)).collect();
            let mut merged = Vec::new();
            for local in messages {
                let client_only = match (local, &e.activity_authority, dialect) {
                    (Message::Activity(_), _, Dialect::Current)
                    | (Message::Activity(_), ActivityAuthority::Unstated, Dialect::V1) => !act,
                    (Message::Activity(_), ActivityAuthority::All, Dialect::V1) => false,
                    (Message::Activity(a), ActivityAuthority::Types(types), Dialect::V1) => {
                        !types.contains(&a.activity_type)
                    }
                    (Message::Reasoning(_), _, _) => !rea,
                    (
                        Message::Developer(_)
                        | Message::System(_)
                        | Message::Assistant(_)
                        | Message::User(_)
                        | Message::Tool(_),
                        _,
                        _,
                    ) => false,
                };
                // In 1.0 a client-only message that an entry names is
                // replaced by it (SPEC 9.8); in the current protocol
                // it is kept as it is.
                let server = last.get(local.id());
                match (client_only, server, dialect) {
                    (true, Some(server), Dialect::V1) => merged.push((*server).clone()),
                    (true, _, _) => merged.push(local.clone()),
                    (false, Some(server), _) => merged.push((*server).clone()),
                    (false, None, _) => {}
                }
            }
            let kept: BTreeSet<&str> = merged.iter().map(Message::id).collect();
            let added: Vec<Message> = e
                .messages
                .iter()
                .filter(|m| !kept.contains(m.id()))
                .cloned()
                .collect();
            merged.extend(added);
            Some(merged)
        }
        Event::ToolCallResult(e) => {
            let mut list = messages.to_vec();
            let message = Message::Tool(ToolMessage {
                id: e.message_id.clone(),
                content: e.content.clone(),
                tool_call_id: e.tool_call_id.clone(),
                metadata: e.metadata.clone(),
                ..Default::default()
            });
            let owner = list
                .iter()
                .position(|m| m.tool_calls().iter().any(|c| c.id == e.tool_call_id));
            match owner {
                None => list.push(message),
                Some(owner) => {
                    let mut pos = owner + 1;
                    while list.get(pos).map(Message::role) == Some(MessageRole::Tool) {
                        pos += 1;
                    }
                    list.insert(pos, message);
                }
            }
            Some(list)
        }
        Event::RunStarted(_)
        | Event::RunFinished(_)
        | Event::RunError(_)
        | Event::StepStarted(_)
        | Event::StepFinished(_)
        | Event::TextMessageStart(_)
        | Event::TextMessageContent(_)
        | Event::TextMessageEnd(_)
        | Event::ToolCallStart(_)
        | Event::ToolCallArgs(_)
        | Event::ToolCallEnd(_)
        | Event::ThinkingStart(_)
        | Event::ThinkingEnd
        | Event::ThinkingTextMessageStart
        | Event::ThinkingTextMessageContent(_)
        | Event::ThinkingTextMessageEnd
        | Event::ReasoningStart(_)
        | Event::ReasoningEnd(_)
        | Event::ReasoningMessageStart(_)
        | Event::ReasoningMessageContent(_)
        | Event::ReasoningMessageEnd(_)
        | Event::ReasoningEncryptedValue(_)
        | Event::StateSnapshot(_)
        | Event::StateDelta(_)
        | Event::ActivitySnapshot(_)
        | Event::ActivityDelta(_)
        | Event::Raw(_)
        | Event::Custom(_)
        | Event::SubagentStarted(_)
        | Event::SubagentFinished(_)
        | Event::SubagentError(_) => None,
    }
}

proptest! {
    #[test]
    fn index_always_matches_a_scan(
        events in prop::collection::vec(any_event(), 0..40),
        v1 in any::<bool>(),
    ) {
        let mut r = Reducer::new();
        let dialect = if v1 { Dialect::V1 } else { Dialect::Current };
        r.set_dialect(dialect);
        for event in &events {
            // The current protocol reads no authority.
            let mut event = event.clone();
            if let (Event::MessagesSnapshot(e), Dialect::Current) = (&mut event, dialect) {
                e.activity_authority = ActivityAuthority::Unstated;
            }
            let event = &event;
            let expected = expected_after(&r.messages, event, dialect);
            r.apply(event);
            if let Some(expected) = expected {
                assert_eq!(r.messages, expected, "{event:?}");
            }
            assert_index_matches_scan(&r);
            assert_sizes_match_a_walk(&r);
        }
    }
}
