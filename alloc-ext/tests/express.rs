//! The client's express lane for runs of bare delta frames (issue 27) is
//! invisible: a stream fed whole (a frame whole in one `feed` call may
//! take the lane) gives exactly what the same bytes fed one at a time
//! (never the lane: a frame must lie whole in one call) give — messages,
//! state, accepted frames, every error and its frame, the reader's kept
//! bytes (when no frame was refused) and open items — in strict and keep-going mode, with the message
//! and frame limits crossed in the middle of a run.
//!
//! The streams are runs of delta frames of one template (the same type,
//! id and key order, the delta last or not), whose deltas are plain,
//! escaped, empty, non-ASCII, a raw control byte or bytes that are not
//! UTF-8, between the frames that open, close and break the items.
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unwrap_used
)]

use agui_alloc::client::{Client, ClientError, Limits};
use agui_core::error::Code;
use proptest::prelude::*;
use serde_json::Value;

/// The head of a delta frame, before its delta value: a template of a
/// run. `{id}` stands for the id.
const TEMPLATES: &[&str] = &[
    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"{id}","delta":""#,
    r#"{"messageId":"{id}","type":"TEXT_MESSAGE_CONTENT","delta":""#,
    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"{id}","delta":"x","delta":""#,
    r#"{"type":"TEXT_MESSAGE_CONTENT","delta":"x","messageId":"{id}","delta":""#,
    r#"{"type": "TEXT_MESSAGE_CONTENT","messageId":"{id}","delta":""#,
    r#"{"type":"TOOL_CALL_ARGS","toolCallId":"{id}","delta":""#,
    r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"{id}","delta":""#,
    r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"{id}","delta":""#,
];

/// What follows a delta value: the end of the frame, mostly.
const ENDS: &[&str] = &[r#""}"#, r#""}"#, r#""}"#, r#"","extra":"y"}"#, r#"" }"#];

fn delta() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => prop::sample::select(vec![" the", "héllo", "{\\\"a\\\":", "1,", "[", "]}", "日本"])
            .prop_map(|s| s.as_bytes().to_vec()),
        1 => prop::sample::select(vec!["", "\\n", "a\\\"b", "\\u00e9", "\\\\", "\u{1}", "a\"b"])
            .prop_map(|s| s.as_bytes().to_vec()),
        1 => Just(b"\xff\xfe".to_vec()),
        1 => prop::collection::vec(b' '..=b'~', 0..40).prop_map(|v| {
            v.into_iter().filter(|b| !matches!(b, b'"' | b'\\')).collect()
        }),
    ]
}

fn id() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["a", "b", "c"])
}

/// One item of a stream: a run of delta frames, or another event.
fn item() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let frame = |s: String| vec![s.into_bytes()];
    prop_oneof![
        6 => (
            prop::sample::select(TEMPLATES),
            id(),
            prop::collection::vec((delta(), prop::sample::select(ENDS), 0..8u8), 1..12),
        )
            .prop_map(|(template, id, deltas)| {
                deltas
                    .into_iter()
                    .map(|(d, end, odd)| {
                        // Now and then a frame of another end in the run.
                        let end = if odd == 0 { ENDS[3] } else { end };
                        let mut f = template.replace("{id}", id).into_bytes();
                        f.extend_from_slice(&d);
                        f.extend_from_slice(end.as_bytes());
                        f
                    })
                    .collect()
            }),
        1 => id().prop_map(move |id| frame(format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"{id}","role":"assistant"}}"#))),
        1 => id().prop_map(move |id| frame(format!(r#"{{"type":"TEXT_MESSAGE_END","messageId":"{id}"}}"#))),
        1 => id().prop_map(move |id| frame(format!(r#"{{"type":"TOOL_CALL_START","toolCallId":"{id}","toolCallName":"f"}}"#))),
        1 => id().prop_map(move |id| frame(format!(r#"{{"type":"TOOL_CALL_END","toolCallId":"{id}"}}"#))),
        1 => id().prop_map(move |id| frame(format!(r#"{{"type":"REASONING_MESSAGE_START","messageId":"{id}","role":"assistant"}}"#))),
        1 => Just(frame(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_owned())),
        1 => Just(frame(r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#.to_owned())),
        1 => Just(frame(r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/n","value":1}]}"#.to_owned())),
    ]
}

/// A stream: a run start, then items; SSE or NDJSON.
fn stream() -> impl Strategy<Value = Vec<u8>> {
    (prop::collection::vec(item(), 1..16), any::<bool>()).prop_map(|(items, sse)| {
        let mut frames = vec![br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_vec()];
        frames.extend(items.into_iter().flatten());
        let mut out = Vec::new();
        for f in frames {
            if sse {
                out.extend_from_slice(b"data: ");
                out.extend_from_slice(&f);
                out.extend_from_slice(b"\n\n");
            } else {
                out.extend_from_slice(&f);
                out.push(b'\n');
            }
        }
        out
    })
}

/// Everything a caller can see of the client after the stream.
fn outcome(bytes: &[u8], piece: usize, limits: Limits, keep_going: bool) -> Value {
    let mut c = Client::new().with_limits(limits);
    if keep_going {
        c = c.keep_going();
    }
    let mut last = Ok(());
    for chunk in bytes.chunks(piece) {
        last = c.feed(chunk);
        if last.is_err() {
            break;
        }
    }
    if last.is_ok() {
        last = c.finish();
    }
    let errors: Vec<Value> = c.errors().iter().map(debug).collect();
    serde_json::json!({
        "messages": serde_json::to_value(c.messages()).unwrap(),
        "state": c.state(),
        "accepted": c.accepted(),
        "last": last.err().as_ref().map(debug),
        "error": c.error().map(debug),
        "errors": errors,
        "error_count": c.error_count(),
        // After a refused frame the reader may keep what it had read of
        // it, which depends on how the frame was cut (not on the lane).
        "kept_bytes": (c.error_count() == 0 && c.error().is_none()).then(|| c.kept_bytes()),
        "open_items": format!("{:?}", c.open_items()),
    })
}

/// An error as a value to compare: all of it (frame, stage, code, event,
/// detail, message).
fn debug(e: &ClientError) -> Value {
    Value::String(format!("{e:?}"))
}

fn limits(message_bytes: usize, frame_bytes: usize) -> Limits {
    Limits {
        max_message_bytes: message_bytes,
        max_frame_bytes: frame_bytes,
        ..Limits::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn the_express_lane_changes_nothing(
        bytes in stream(),
        message_bytes in prop::sample::select(vec![usize::MAX, 600, 2_000]),
        frame_bytes in prop::sample::select(vec![usize::MAX, 90]),
        keep_going in any::<bool>(),
    ) {
        let limits = limits(message_bytes, frame_bytes);
        let whole = outcome(&bytes, bytes.len().max(1), limits, keep_going);
        let byte_by_byte = outcome(&bytes, 1, limits, keep_going);
        prop_assert_eq!(whole, byte_by_byte);
    }
}

/// A long run of token-sized deltas, as a model streams them, with the
/// message limit crossed in its middle: the same whole and byte by byte,
/// and the refused delta named at its frame.
#[test]
fn a_long_run_stops_at_the_same_frame() {
    let mut text = String::from(
        "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\
         {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\n",
    );
    for i in 0..2_000 {
        let d = if i % 97 == 0 { "\\n" } else { " word" };
        text.push_str(&format!(
            "{{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"{d}\"}}\n"
        ));
    }
    for keep_going in [false, true] {
        let limits = limits(4_000, usize::MAX);
        let whole = outcome(text.as_bytes(), text.len(), limits, keep_going);
        let bytes = outcome(text.as_bytes(), 1, limits, keep_going);
        assert_eq!(whole, bytes);
        let mut c = Client::new().with_limits(limits);
        if keep_going {
            c = c.keep_going();
        }
        let _ = c.feed(text.as_bytes());
        let first = c.errors().first().or(c.error()).expect("an error");
        assert_eq!(first.code, Code::Capacity, "{first}");
        assert!(first.frame > 100, "{first}");
    }
}
