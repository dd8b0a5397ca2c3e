//! Issue 22: on a host the client's core reader grows its tables
//! (`agui_alloc::store::Grow`), so streams past a microcontroller's fixed
//! capacities fold, in both protocols: 300 open tool calls, 300 open text
//! messages, 200 open steps, a 2,000-byte id, a state nested 300 deep, a
//! snapshot of 3,000 messages; in AG-UI 1.0 also 40 sub-agents open at
//! once, sub-agents one after another past 8, and a thread of 120 runs
//! each ending with a snapshot of the whole history (past 512 messages).
//! The reference's folds of such streams are the vectors of
//! `tests/vectors/host/` (`tests/tests/host_limits.rs`); here each case is
//! checked on its own, with what it must hold.

#![cfg(all(feature = "v1", feature = "grow"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use agui_alloc::client::Client;
use agui_core::protocol::{Protocol, Select};
use serde_json::{json, Value};

const START: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;
const FINISH: &str = r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#;

fn line(v: Value) -> String {
    v.to_string()
}

/// The client after `frames` (one run around them), fed as NDJSON.
fn fold(protocol: Protocol, frames: &[String]) -> Client {
    let mut client = Client::new().with_protocol(Select::Fixed(protocol));
    let mut text = format!("{START}\n");
    for f in frames {
        text.push_str(f);
        text.push('\n');
    }
    text.push_str(FINISH);
    text.push('\n');
    let _ = client.feed(text.as_bytes());
    let _ = client.finish();
    client
}

/// Folds `frames` in both protocols (1.0 only where the client has it)
/// and checks each fold with `check`.
fn both(frames: &[String], check: impl Fn(&Client)) {
    for protocol in [Protocol::Current, Protocol::V1] {
        let client = fold(protocol, frames);
        assert!(
            client.error().is_none(),
            "{protocol:?}: {:?}",
            client.error()
        );
        check(&client);
    }
}

fn opened_and_closed(open: impl Fn(usize) -> Value, close: impl Fn(usize) -> Value) -> Vec<String> {
    let n = 300;
    (0..n)
        .map(|i| line(open(i)))
        .chain((0..n).map(|i| line(close(i))))
        .collect()
}

#[test]
fn three_hundred_tool_calls_open_at_once() {
    let frames = opened_and_closed(
        |i| json!({"type": "TOOL_CALL_START", "toolCallId": format!("c{i}"), "toolCallName": "f"}),
        |i| json!({"type": "TOOL_CALL_END", "toolCallId": format!("c{i}")}),
    );
    both(&frames, |c| assert_eq!(c.messages().len(), 300));
}

#[test]
fn three_hundred_text_messages_open_at_once() {
    let frames = opened_and_closed(
        |i| json!({"type": "TEXT_MESSAGE_START", "messageId": format!("m{i}"), "role": "assistant"}),
        |i| json!({"type": "TEXT_MESSAGE_END", "messageId": format!("m{i}")}),
    );
    both(&frames, |c| assert_eq!(c.messages().len(), 300));
}

#[test]
fn two_hundred_steps_open_at_once() {
    let frames: Vec<String> = (0..200)
        .map(|i| line(json!({"type": "STEP_STARTED", "stepName": format!("s{i}")})))
        .chain(
            (0..200).map(|i| line(json!({"type": "STEP_FINISHED", "stepName": format!("s{i}")}))),
        )
        .collect();
    both(&frames, |_| {});
}

#[test]
fn a_message_id_of_2000_bytes() {
    let id = "i".repeat(2000);
    let frames = vec![
        line(json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"})),
        line(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": "hi"})),
        line(json!({"type": "TEXT_MESSAGE_END", "messageId": id})),
    ];
    both(&frames, |c| {
        assert_eq!(c.messages()[0].id(), id);
        assert_eq!(c.messages()[0].text(), Some("hi"));
    });
}

/// `depth` nested arrays around 0, as text (serde_json's own reader and
/// writer stop at 128 levels).
fn nested(depth: usize) -> String {
    format!("{}0{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn a_state_nested_300_deep() {
    let frames = vec![format!(
        r#"{{"type":"STATE_SNAPSHOT","snapshot":{{"deep":{}}}}}"#,
        nested(299)
    )];
    let depth = |mut v: &Value| {
        let mut n = 0;
        while let Some(inner) = v.get(0) {
            v = inner;
            n += 1;
        }
        n
    };
    // Deep values are dropped recursively: a main thread's stack.
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || both(&frames, |c| assert_eq!(depth(&c.state()["deep"]), 299)))
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_snapshot_of_3000_messages() {
    let messages: Vec<Value> = (0..3000)
        .map(|i| json!({"id": format!("m{i}"), "role": "user", "content": "x"}))
        .collect();
    let frames = vec![line(
        json!({"type": "MESSAGES_SNAPSHOT", "messages": messages}),
    )];
    both(&frames, |c| assert_eq!(c.messages().len(), 3000));
}

mod v1 {
    use super::*;

    fn sub_started(i: usize) -> String {
        line(
            json!({"type": "SUBAGENT_STARTED", "subagentRunId": format!("s{i}"), "name": "helper"}),
        )
    }

    fn sub_finished(i: usize) -> String {
        line(json!({"type": "SUBAGENT_FINISHED", "subagentRunId": format!("s{i}")}))
    }

    fn sub_text(i: usize) -> [String; 3] {
        let id = format!("s{i}-m");
        let sub = format!("s{i}");
        [
            line(
                json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant", "subagentRunId": sub}),
            ),
            line(
                json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": "a", "subagentRunId": sub}),
            ),
            line(json!({"type": "TEXT_MESSAGE_END", "messageId": id, "subagentRunId": sub})),
        ]
    }

    fn v1_fold(frames: &[String]) -> Client {
        let client = fold(Protocol::V1, frames);
        assert!(client.error().is_none(), "{:?}", client.error());
        client
    }

    #[test]
    fn forty_sub_agents_open_at_once() {
        let mut frames: Vec<String> = (0..40).map(sub_started).collect();
        frames.extend((0..40).flat_map(sub_text));
        frames.extend((0..40).map(sub_finished));
        assert_eq!(v1_fold(&frames).messages().len(), 40);
    }

    #[test]
    fn sub_agents_one_after_another_past_eight() {
        let frames: Vec<String> = (0..30)
            .flat_map(|i| {
                let mut f = vec![sub_started(i)];
                f.extend(sub_text(i));
                f.push(sub_finished(i));
                f
            })
            .collect();
        assert_eq!(v1_fold(&frames).messages().len(), 30);
    }

    /// 120 runs of 5 messages, each run ending with a snapshot of the whole
    /// history (as ag-ui-langgraph, Strands and agent-framework do): the
    /// last ones hold 600 messages, past the former 512 owner entries.
    #[test]
    fn a_thread_of_120_runs_ending_with_snapshots() {
        let mut client = Client::new().with_protocol(Select::Fixed(Protocol::V1));
        let mut history: Vec<Value> = Vec::new();
        let mut text = String::new();
        for run in 0..120 {
            let r = format!("r{run}");
            text.push_str(&line(
                json!({"type": "RUN_STARTED", "threadId": "t", "runId": r}),
            ));
            text.push('\n');
            for k in 0..5 {
                let id = format!("m{run}-{k}");
                for f in [
                    json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"}),
                    json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": "x"}),
                    json!({"type": "TEXT_MESSAGE_END", "messageId": id}),
                ] {
                    text.push_str(&line(f));
                    text.push('\n');
                }
                history.push(json!({"id": id, "role": "assistant", "content": "x"}));
            }
            text.push_str(&line(
                json!({"type": "MESSAGES_SNAPSHOT", "messages": history}),
            ));
            text.push('\n');
            text.push_str(&line(
                json!({"type": "RUN_FINISHED", "threadId": "t", "runId": r}),
            ));
            text.push('\n');
        }
        client.feed(text.as_bytes()).unwrap();
        client.finish().unwrap();
        assert!(client.error().is_none(), "{:?}", client.error());
        assert_eq!(client.messages().len(), 600);
    }
}
