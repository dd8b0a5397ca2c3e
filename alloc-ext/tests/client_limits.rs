//! The client's limits: limits that bound everything the client
//! keeps, state sizes as real compact JSON bytes, numbers beyond the double
//! range, capacity errors that name the id. (The cost findings are covered
//! by `examples/tests/cost_bound.rs`, in instructions, and by the reducer's
//! property test that compares the fast paths with the plain algorithms.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use agui_alloc::client::{Client, ClientError, Limits};
use agui_alloc::size::{json_size, message_bytes, MESSAGE_OVERHEAD};
use agui_core::error::{Code, Stage};
use serde_json::{json, Value};

const START: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;

/// 1 KiB for every limit on what the client keeps (for the messages, 1 KiB
/// beyond the fixed charge of one message).
fn tight() -> Limits {
    Limits {
        max_message_bytes: MESSAGE_OVERHEAD + 1024,
        max_state_bytes: 1024,
        max_trace_bytes: 1024,
        ..Limits::default()
    }
}

fn run(limits: Limits, keep_going: bool, frames: &[String]) -> Client {
    let mut client = Client::new().with_limits(limits);
    if keep_going {
        client = client.keep_going();
    }
    let stream: String = frames.iter().map(|f| format!("{f}\n")).collect();
    let _ = client.feed(stream.as_bytes());
    let _ = client.finish();
    client
}

fn first_error(client: &Client) -> &ClientError {
    client.error().expect("the stream was refused")
}

fn held(client: &Client) -> usize {
    client.messages().iter().map(message_bytes).sum()
}

/// Finding 2: every kind of retained text counts, so a stream of small
/// frames with large keys, ids, names or values is refused, frame by frame,
/// and what is kept stays under the limit.
#[test]
fn everything_the_messages_hold_is_counted() {
    let big = "k".repeat(2000);
    let open = r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#.to_owned();
    let cases: Vec<(&str, Vec<String>)> = vec![
        (
            "metadata key",
            vec![
                open.clone(),
                format!(
                    r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","metadata":{{"{big}":1}}}}"#
                ),
            ],
        ),
        (
            "tool result message id",
            vec![format!(
                r#"{{"type":"TOOL_CALL_RESULT","messageId":"{big}","toolCallId":"c","content":"r"}}"#
            )],
        ),
        (
            "encrypted value",
            vec![
                open.clone(),
                format!(
                    r#"{{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"m","encryptedValue":"{big}"}}"#
                ),
            ],
        ),
        (
            "activity type",
            vec![format!(
                r#"{{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"{big}","content":{{}}}}"#
            )],
        ),
        (
            "message name",
            vec![format!(
                r#"{{"type":"TEXT_MESSAGE_START","messageId":"n","role":"assistant","name":"{big}"}}"#
            )],
        ),
        (
            "snapshot messages",
            vec![format!(
                r#"{{"type":"MESSAGES_SNAPSHOT","messages":[{{"id":"u","role":"user","content":"hi","metadata":{{"x":"{big}"}}}}]}}"#
            )],
        ),
    ];
    for (what, frames) in cases {
        let mut all = vec![START.to_owned()];
        all.extend(frames);
        let client = run(tight(), false, &all);
        let e = first_error(&client);
        assert_eq!(
            (e.stage, e.code),
            (Stage::Verify, Code::Capacity),
            "{what}: {e}"
        );
        assert!(e.message.contains("max_message_bytes"), "{what}: {e}");
        assert!(held(&client) <= MESSAGE_OVERHEAD + 1024, "{what}");
    }
}

/// Finding 2: in keep-going mode every such frame is skipped, and the
/// reducer's count of held bytes is the real one.
#[test]
fn keep_going_with_distinct_keys_keeps_nothing_of_them() {
    let mut frames = vec![
        START.to_owned(),
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#.to_owned(),
    ];
    for i in 0..50 {
        frames.push(format!(
            r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","metadata":{{"{i:04}{}":1}}}}"#,
            "k".repeat(600)
        ));
    }
    let client = run(tight(), true, &frames);
    // The first content event fits (about 620 bytes), the second does not.
    assert_eq!(client.error_count(), 49);
    assert_eq!(client.reducer().message_bytes(), held(&client));
    assert!(held(&client) <= MESSAGE_OVERHEAD + 1024);
}

/// Finding 2: the trace is bounded too, and a trace that cannot be
/// completed stops the stream, also in keep-going mode.
#[test]
fn the_trace_is_bounded() {
    let mut frames = vec![START.to_owned()];
    for i in 0..200 {
        frames.push(format!(r#"{{"type":"CUSTOM","name":"n{i}","value":1}}"#));
    }
    for keep_going in [false, true] {
        let mut client = Client::new().with_limits(tight()).with_trace();
        if keep_going {
            client = client.keep_going();
        }
        let stream: String = frames.iter().map(|f| format!("{f}\n")).collect();
        let err = client.feed(stream.as_bytes()).unwrap_err();
        assert_eq!(err.code, Code::Capacity);
        assert!(err.message.contains("max_trace_bytes"), "{err}");
        assert_eq!(client.trace().len(), 1024 / 16);
        assert!(client.feed(b"\n").is_err(), "the stream stays stopped");
    }
}

/// Finding 3: the state limit counts the compact JSON text, numbers and
/// escapes as serialized.
#[test]
fn state_bytes_are_compact_json_bytes() {
    let limits = |max| Limits {
        max_state_bytes: max,
        ..Limits::default()
    };
    let snapshot = |value: &Value| {
        vec![
            START.to_owned(),
            json!({"type": "STATE_SNAPSHOT", "snapshot": value}).to_string(),
        ]
    };
    // 28 bytes: accepted at 28, refused at 27.
    let numbers = json!({"a": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]});
    assert!(run(limits(28), false, &snapshot(&numbers))
        .error()
        .is_none());
    assert!(run(limits(27), false, &snapshot(&numbers))
        .error()
        .is_some());
    // 60 control characters are 362 bytes of JSON.
    let controls = Value::String("\u{1}".repeat(60));
    assert!(run(limits(361), false, &snapshot(&controls))
        .error()
        .is_some());
    assert!(run(limits(362), false, &snapshot(&controls))
        .error()
        .is_none());
    // A patch is counted as exactly: 1,000,000 small integers fit in 6.9 MB.
    let mut frames = vec![
        START.to_owned(),
        r#"{"type":"STATE_SNAPSHOT","snapshot":{"n":[]}}"#.to_owned(),
    ];
    let items: Vec<String> = (0..1_000_000).map(|i| (i % 1000).to_string()).collect();
    frames.push(format!(
        r#"{{"type":"STATE_DELTA","delta":[{{"op":"add","path":"/n/-","value":[{}]}}]}}"#,
        items.join(",")
    ));
    let client = run(Limits::default(), false, &frames);
    assert!(client.error().is_none(), "{:?}", client.error());
    let text = serde_json::to_string(client.state()).unwrap();
    assert!(text.len() < 4 << 20, "{}", text.len());
}

/// Finding 3: replacing a value many times does not grow the count (it was
/// an upper bound that only grew), and removals count back.
#[test]
fn state_bytes_follow_replacements_and_removals() {
    let limits = Limits {
        max_state_bytes: 200,
        ..Limits::default()
    };
    let mut frames = vec![START.to_owned()];
    for i in 0..500 {
        frames.push(format!(
            r#"{{"type":"STATE_DELTA","delta":[{{"op":"add","path":"/v{}","value":"{}"}},{{"op":"replace","path":"/w","value":{i}}},{{"op":"remove","path":"/v{}"}}]}}"#,
            i,
            "x".repeat(100),
            i
        ));
    }
    frames.insert(
        1,
        r#"{"type":"STATE_SNAPSHOT","snapshot":{"w":0}}"#.to_owned(),
    );
    let client = run(limits, false, &frames);
    assert!(client.error().is_none(), "{:?}", client.error());
    assert_eq!(client.state(), &json!({"w": 499}));
    assert_eq!(json_size(client.state()).bytes, 9);
}

/// Finding 3: a `copy` that doubles the state stops at the limit, sized
/// exactly (the old upper bound refused earlier).
#[test]
fn copies_are_sized_exactly() {
    let limits = Limits {
        max_state_bytes: 100,
        ..Limits::default()
    };
    let frames = [
        START.to_owned(),
        r#"{"type":"STATE_SNAPSHOT","snapshot":{"a":[1,2,3]}}"#.to_owned(),
        // {"a":[1,2,3],"b":[1,2,3],"c":[1,2,3],"d":[1,2,3]} is 49 bytes.
        r#"{"type":"STATE_DELTA","delta":[{"op":"copy","from":"/a","path":"/b"},{"op":"copy","from":"/a","path":"/c"},{"op":"copy","from":"/a","path":"/d"}]}"#.to_owned(),
        r#"{"type":"STATE_DELTA","delta":[{"op":"copy","from":"","path":"/e"}]}"#.to_owned(),
    ];
    let client = run(limits, false, &frames);
    let e = first_error(&client);
    assert_eq!((e.frame, e.code), (3, Code::Capacity));
    assert!(e.message.contains("would need 103 bytes"), "{e}");
    assert_eq!(serde_json::to_string(client.state()).unwrap().len(), 49);
}

/// Finding 4: numbers beyond the double range are accepted where the
/// reference's `JSON.parse` accepts them, and are `null` where kept.
#[test]
fn numbers_beyond_the_double_range_are_accepted() {
    let frames = [
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","timestamp":1e999}"#.to_owned(),
        r#"{"type":"RAW","event":{"x":[1e999,-1e999,1e-999]},"extra":1e400}"#.to_owned(),
        r#"{"type":"STATE_SNAPSHOT","snapshot":{"inf":1e999,"big":123456789012345678901234567890}}"#
            .to_owned(),
        r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}"#.to_owned(),
        r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"n\":1e999}"}"#.to_owned(),
        r#"{"type":"TOOL_CALL_END","toolCallId":"c"}"#.to_owned(),
        r#"{"type":"STATE_DELTA","delta":[{"op":"test","path":"/inf","value":null}]}"#.to_owned(),
    ];
    for keep_going in [false, true] {
        let client = run(Limits::default(), keep_going, &frames);
        assert!(client.error().is_none(), "{:?}", client.error());
        assert_eq!(client.accepted(), 7);
        assert_eq!(client.state()["inf"], Value::Null);
        assert_eq!(client.state()["big"], json!(1.2345678901234568e29));
        assert_eq!(
            client.reducer().final_args("c").as_deref(),
            Some(&json!({"n": null}))
        );
        assert!(client.reducer().last_warning().is_none());
    }
}

/// Finding 5 (issue 22): on a host the id tables grow, so the 65th open
/// text message and a chunk after 64 open tool calls are folded, where
/// the fixed tables of a device refuse them (that error names the id: the
/// core's `tests/tests/core_rules.rs`).
#[test]
fn the_host_tables_grow_past_the_device_capacities() {
    let mut frames = vec![START.to_owned()];
    for i in 0..64 {
        frames.push(format!(
            r#"{{"type":"TEXT_MESSAGE_START","messageId":"m{i}","role":"assistant"}}"#
        ));
    }
    frames.push(
        r#"{"type":"TEXT_MESSAGE_START","messageId":"one-more","role":"assistant"}"#.to_owned(),
    );
    let client = run(Limits::default(), false, &frames);
    assert!(client.error().is_none(), "{:?}", client.error());
    assert_eq!(client.messages().len(), 65);
    let mut frames = vec![START.to_owned()];
    for i in 0..64 {
        frames.push(format!(
            r#"{{"type":"TOOL_CALL_START","toolCallId":"c{i}","toolCallName":"f"}}"#
        ));
    }
    frames.push(
        r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"late","toolCallName":"f","delta":"{}"}"#
            .to_owned(),
    );
    let client = run(Limits::default(), false, &frames);
    assert!(client.error().is_none(), "{:?}", client.error());
    assert_eq!(client.messages().len(), 65);
}

/// What the core reader keeps for the items it tracks is bounded in bytes
/// too: the frame that would pass `max_reader_bytes` is refused whole
/// (strict: the stream stops there, everything before it kept; keep-going:
/// the reader is as before the frame, so closing an item makes room).
#[test]
fn the_reader_limit_refuses_a_frame_whole() {
    use agui_alloc::client::ClientDetail;
    use agui_alloc::reduce::Limit;
    let limits = Limits {
        max_reader_bytes: 1024,
        ..Limits::default()
    };
    let open = |i: usize| {
        format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"m{i}","role":"assistant"}}"#)
    };
    let mut frames = vec![START.to_owned()];
    frames.extend((0..40).map(open));
    let client = run(limits, false, &frames);
    let e = first_error(&client);
    assert_eq!((e.stage, e.code), (Stage::Verify, Code::Capacity), "{e}");
    let ClientDetail::Limit(l) = &e.detail else {
        panic!("{:?}", e.detail)
    };
    assert_eq!((l.limit, l.max), (Limit::ReaderBytes, 1024));
    assert!(e.message.contains("Limits::max_reader_bytes"), "{e}");
    let refused = e.frame as usize;
    assert_eq!(client.messages().len(), refused - 1);

    // Keep-going: the refused open is not half-applied; after a close, the
    // same open is accepted.
    let mut frames: Vec<String> = vec![START.to_owned()];
    frames.extend((0..refused).map(open));
    frames.push(r#"{"type":"TEXT_MESSAGE_END","messageId":"m0"}"#.to_owned());
    frames.push(open(refused - 1));
    let client = run(limits, true, &frames);
    assert_eq!(client.error_count(), 1);
    assert_eq!(client.errors()[0].frame as usize, refused);
    assert_eq!(client.messages().len(), refused);
}
