//! One set of rules, two storages (issue 22): the core's reader over the
//! host's growable store (`agui_alloc::store::Grow`) gives the verdicts of
//! the reader over the core's fixed store (`agui_core::store::Fixed`):
//!
//! - always, when the growable one is bounded by the fixed capacities
//!   (the same events, the same errors: stage, code, table, detail);
//! - unbounded (the client's reader), up to the first frame the fixed one
//!   has no room for (a `capacity` error, or JSON deeper than its depth).
//!
//! Random streams of both protocols, in keep-going mode so that every
//! frame's verdict counts, fed in random pieces.

#![cfg(all(feature = "v1", feature = "grow"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use agui_alloc::client::{DEPTH, UNBOUNDED};
use agui_alloc::store::Grow;
use agui_core::decode::{Ext, V1};
use agui_core::error::{Code, Detail};
use agui_core::json::JsonErrorKind;
use agui_core::pipeline::{Mode, Output, Pipeline};
use agui_core::protocol::{Protocol, Select};
use agui_core::store::{Fixed, Store};
use proptest::prelude::*;

/// One verdict: an event handed out, or a frame refused.
#[derive(Debug, Clone, PartialEq)]
enum Verdict {
    Event(u32, String, String),
    Error(String, bool),
}

/// Every verdict of `p` on `bytes` fed in `piece`-byte pieces.
fn verdicts<
    const I: usize,
    const M: usize,
    const T: usize,
    const S: usize,
    const D: usize,
    const O: usize,
    const A: usize,
    X: Ext<I, St>,
    St: Store,
>(
    mut p: Pipeline<I, M, T, S, D, O, A, X, St>,
    v1: bool,
    bytes: &[u8],
    piece: usize,
) -> Vec<Verdict> {
    if v1 {
        assert!(p.set_protocol(Select::Fixed(Protocol::V1)));
    }
    p.set_mode(Mode::KeepGoing);
    let mut out = Vec::new();
    let mut on = |o: Output<'_>| match o {
        Output::Event(ev) => out.push(Verdict::Event(
            ev.frame,
            ev.kind.as_str().to_owned(),
            ev.id.to_owned(),
        )),
        Output::Error(e) => {
            let no_room = e.code == Code::Capacity
                || matches!(
                    e.detail,
                    Detail::Json {
                        kind: JsonErrorKind::TooDeep,
                        ..
                    }
                );
            out.push(Verdict::Error(format!("{e:?}"), no_room));
        }
        Output::Part(_) => {}
    };
    for chunk in bytes.chunks(piece.max(1)) {
        let _ = p.feed(chunk, &mut on);
    }
    let _ = p.finish(&mut on);
    out
}

// The device-sized reader: tiny capacities, so that random streams reach
// them. ID 8 bytes, 3 messages, 3 tool calls, 2 steps, depth 6; in 1.0, 6
// owner entries and 2 sub-agents.
type Small<X, St> = Pipeline<8, 3, 3, 2, 6, 6, 2, X, St>;
type Host<X> = Pipeline<UNBOUNDED, UNBOUNDED, UNBOUNDED, UNBOUNDED, DEPTH, 65_534, 255, X, Grow>;

fn id() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["a", "b", "c", "d", "e", "a-long-id-x"])
}

fn tag() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "",
        r#","subagentRunId":"s1""#,
        r#","subagentRunId":"s2""#,
        r#","subagentRunId":"s3""#,
    ])
    .prop_map(str::to_owned)
}

/// A frame of a small alphabet: every table-changing type, chunks,
/// snapshots, sub-agents, nested state.
fn frame() -> impl Strategy<Value = String> {
    (0..19u8, id(), tag(), 0..9usize).prop_map(|(k, id, tag, depth)| match k {
        0 => r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_owned(),
        1 => r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#.to_owned(),
        2 => format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"{id}","role":"assistant"{tag}}}"#),
        3 => format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"{id}","delta":"x"{tag}}}"#),
        4 => format!(r#"{{"type":"TEXT_MESSAGE_END","messageId":"{id}"{tag}}}"#),
        5 => format!(r#"{{"type":"TEXT_MESSAGE_CHUNK","messageId":"{id}","delta":"y"{tag}}}"#),
        6 => format!(r#"{{"type":"TOOL_CALL_START","toolCallId":"{id}","toolCallName":"f"{tag}}}"#),
        7 => format!(r#"{{"type":"TOOL_CALL_ARGS","toolCallId":"{id}","delta":"{{}}"{tag}}}"#),
        8 => format!(r#"{{"type":"TOOL_CALL_END","toolCallId":"{id}"{tag}}}"#),
        9 => format!(r#"{{"type":"TOOL_CALL_CHUNK","toolCallId":"{id}","toolCallName":"f","delta":"1"{tag}}}"#),
        10 => format!(r#"{{"type":"STEP_STARTED","stepName":"{id}"{tag}}}"#),
        11 => format!(r#"{{"type":"STEP_FINISHED","stepName":"{id}"{tag}}}"#),
        12 => format!(
            r#"{{"type":"STATE_SNAPSHOT","snapshot":{}0{}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        ),
        13 => format!(
            r#"{{"type":"MESSAGES_SNAPSHOT","messages":[{{"id":"{id}","role":"user","content":"u"}},{{"id":"z{depth}","role":"assistant","content":"v"}}]}}"#
        ),
        14 => format!(r#"{{"type":"SUBAGENT_STARTED","subagentRunId":"s{}","name":"n"}}"#, depth % 4),
        15 => format!(r#"{{"type":"SUBAGENT_FINISHED","subagentRunId":"s{}"}}"#, depth % 4),
        16 => format!(r#"{{"type":"TOOL_CALL_RESULT","messageId":"r{id}","toolCallId":"{id}","content":"ok"}}"#),
        17 => format!(r#"{{"type":"REASONING_START","messageId":"{id}"{tag}}}"#),
        _ => format!(r#"{{"type":"REASONING_END","messageId":"{id}"{tag}}}"#),
    })
}

fn stream() -> impl Strategy<Value = (Vec<String>, usize)> {
    (prop::collection::vec(frame(), 1..60), 1..64usize)
}

fn bytes(frames: &[String]) -> Vec<u8> {
    let mut out = b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n".to_vec();
    for f in frames {
        out.extend_from_slice(f.as_bytes());
        out.push(b'\n');
    }
    out
}

/// The verdicts before the first one the fixed reader had no room for.
fn with_room(fixed: &[Verdict]) -> usize {
    fixed
        .iter()
        .position(|v| matches!(v, Verdict::Error(_, true)))
        .unwrap_or(fixed.len())
}

fn agree(fixed: &[Verdict], capped: &[Verdict], host: &[Verdict]) -> Result<(), TestCaseError> {
    prop_assert_eq!(fixed, capped, "growable capped at the fixed capacities");
    let n = with_room(fixed);
    prop_assert_eq!(
        &fixed[..n],
        &host[..n.min(host.len())],
        "unbounded, while the fixed has room"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn current_protocol((frames, piece) in stream()) {
        let b = bytes(&frames);
        let fixed = verdicts(Small::<(), Fixed>::new(), false, &b, piece);
        let capped = verdicts(Small::<(), Grow>::new(), false, &b, piece);
        let host = verdicts(Host::<()>::new(), false, &b, piece);
        agree(&fixed, &capped, &host)?;
    }

    #[test]
    fn v1_protocol((frames, piece) in stream()) {
        let b = bytes(&frames);
        let fixed = verdicts(Small::<V1<8>, Fixed>::new(), true, &b, piece);
        let capped = verdicts(Small::<V1<8, Grow>, Grow>::new(), true, &b, piece);
        let host = verdicts(Host::<V1<UNBOUNDED, Grow>>::new(), true, &b, piece);
        agree(&fixed, &capped, &host)?;
    }
}
