//! The 1.0 mode's own rules beyond the vectors: protocol selection, the
//! warnings as values, the fixed tables at and past their capacity (owner
//! tables, sub-agents, lanes, seeding), and no panic and no split
//! dependence on damaged 1.0 streams.

use agui_core::decode::{Ext, V1};
use agui_core::error::{Code, Detail, Stage, Table};
use agui_core::pipeline::{Output, Pipeline, V1Pipeline};
use agui_core::protocol::{Protocol, Select};
use agui_core::{DefaultPipeline, EventType, Warning};

const START: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;
const FINISH: &str = r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#;

fn ndjson(frames: &[&str]) -> Vec<u8> {
    frames
        .iter()
        .flat_map(|f| f.bytes().chain(*b"\n"))
        .collect()
}

type Outcome = (
    Vec<EventType>,
    Vec<(u32, &'static str, String)>,
    Result<(), (u32, Stage, Code)>,
);

/// Feeds `bytes` in `piece`-byte pieces: event types, warnings (frame,
/// code, text) and the outcome.
fn feed<
    const I: usize,
    const M: usize,
    const T: usize,
    const S: usize,
    const D: usize,
    const O: usize,
    const A: usize,
    X: Ext<I>,
>(
    p: &mut Pipeline<I, M, T, S, D, O, A, X>,
    bytes: &[u8],
    piece: usize,
) -> Outcome {
    let mut kinds = Vec::new();
    let mut warnings = Vec::new();
    let mut result = Ok(());
    for chunk in bytes.chunks(piece.max(1)) {
        result = p.feed_reporting(
            chunk,
            |out| {
                if let Output::Event(ev) = out {
                    kinds.push(ev.kind);
                }
            },
            |w: &Warning| warnings.push((w.frame, w.code.as_str(), w.text.to_string())),
        );
        if result.is_err() {
            break;
        }
    }
    if result.is_ok() {
        result = p.finish(|_| {});
    }
    (
        kinds,
        warnings,
        result.map_err(|e| (e.frame, e.stage, e.code)),
    )
}

fn v1(frames: &[&str]) -> Outcome {
    let mut p = V1Pipeline::new();
    p.set_protocol(Select::Fixed(Protocol::V1));
    feed(&mut p, &ndjson(frames), usize::MAX)
}

#[test]
fn a_pipeline_without_the_v1_part_cannot_select_it() {
    let mut p = DefaultPipeline::new();
    assert!(!p.set_protocol(Select::Fixed(Protocol::V1)));
    assert!(!p.set_protocol(Select::Auto));
    assert!(p.set_protocol(Select::Fixed(Protocol::Current)));
    assert_eq!(p.reader().protocol(), Some(Protocol::Current));
}

#[test]
fn default_stays_current_whatever_the_stream_announces() {
    let frames = [
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.0"}"#,
        r#"{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n"}"#,
    ];
    let mut p = DefaultPipeline::new();
    let (_, _, result) = feed(&mut p, &ndjson(&frames), usize::MAX);
    // An unknown type in the current protocol.
    assert_eq!(result, Err((1, Stage::Decode, Code::Decode)));
    assert_eq!(p.reader().protocol(), Some(Protocol::Current));
}

#[test]
fn auto_selects_from_the_first_frame() {
    let cases = [
        (
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.0"}"#,
            Protocol::V1,
        ),
        (
            r#"{"protocolVersion":"2.5","threadId":"t","runId":"r","type":"RUN_STARTED"}"#,
            Protocol::V1,
        ),
        (
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.0.0"}"#,
            Protocol::V1,
        ),
        (
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"0.9"}"#,
            Protocol::Current,
        ),
        (
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":5}"#,
            Protocol::Current,
        ),
        (START, Protocol::Current),
        (
            r#"{"type":"RUN_ERROR","message":"m","protocolVersion":"1.0"}"#,
            Protocol::Current,
        ),
    ];
    for (first, want) in cases {
        let mut p = V1Pipeline::new();
        p.set_protocol(Select::Auto);
        let _ = feed(&mut p, &ndjson(&[first, START]), 3);
        assert_eq!(p.reader().protocol(), Some(want), "{first}");
        // The choice holds for the stream, and is made again after reset.
        p.reset();
        assert_eq!(p.reader().protocol(), None);
    }
}

#[test]
fn warnings_are_values_with_frame_and_path() {
    let (kinds, warnings, result) = v1(&[
        r#"{"type":"FUTURE_EVENT","x":1}"#,
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.7","subagentRunId":"s"}"#,
        r#"{"type":"THINKING_START","title":"plan","extra":true}"#,
        r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"x"}"#,
    ]);
    assert_eq!(kinds, [EventType::RunStarted, EventType::ReasoningStart]);
    // The content continues no message: the reasoning rules refuse it by
    // the id the boundary minted for it.
    assert_eq!(
        result,
        Err((3, Stage::Verify, Code::ReasoningMessageNotActive))
    );
    let got: Vec<(u32, &str, &str)> = warnings
        .iter()
        .map(|(f, c, t)| (*f, *c, t.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (0, "unknown_event", "FUTURE_EVENT"),
            (1, "stripped", "/subagentRunId"),
            (1, "protocol_newer", "1.7"),
            (2, "converted", "THINKING_START"),
            (2, "dropped_title", "/title"),
            (2, "stripped", "/extra"),
            (3, "minted_id", "00000000-0000-4000-8000-000000000002"),
            (3, "converted", "THINKING_TEXT_MESSAGE_CONTENT"),
        ]
    );
}

#[test]
fn minted_ids_need_room_for_36_bytes() {
    let mut p: Pipeline<16, 8, 8, 8, 32, 4, 2, V1<16>> = Pipeline::new();
    p.set_protocol(Select::Fixed(Protocol::V1));
    let (_, _, result) = feed(&mut p, &ndjson(&[START, r#"{"type":"THINKING_START"}"#]), 7);
    assert_eq!(result, Err((1, Stage::Decode, Code::Capacity)));
}

/// Owner tables of 2 entries, 2 sub-agents (and lanes).
type Tiny = Pipeline<64, 8, 8, 8, 32, 2, 2, V1>;

fn tiny(frames: &[&str]) -> Result<Vec<EventType>, (u32, Stage, Code, Option<Table>)> {
    let mut p = Tiny::new();
    p.set_protocol(Select::Fixed(Protocol::V1));
    let bytes = ndjson(frames);
    let mut kinds = Vec::new();
    let result = p
        .feed(&bytes, |out| {
            if let Output::Event(ev) = out {
                kinds.push(ev.kind);
            }
        })
        .and_then(|()| p.finish(|_| {}));
    result.map(|()| kinds).map_err(|e| {
        let table = match e.detail {
            Detail::Capacity { table, .. } => Some(table),
            _ => None,
        };
        (e.frame, e.stage, e.code, table)
    })
}

#[test]
fn owner_tables_hold_their_capacity_and_refuse_one_more() {
    let at = [
        START,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"a"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"a"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"b","subagentRunId":"s"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"b"}"#,
    ];
    assert!(tiny(&at).is_ok());
    // Owners are kept for the run: a third id does not fit, though the
    // first two are closed.
    let mut past = at.to_vec();
    past.push(r#"{"type":"TEXT_MESSAGE_START","messageId":"c"}"#);
    assert_eq!(
        tiny(&past),
        Err((5, Stage::Verify, Code::Capacity, Some(Table::MessageOwners)))
    );
    // A new run empties them.
    let mut again = at.to_vec();
    again.extend([
        FINISH,
        START,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"c"}"#,
    ]);
    assert!(tiny(&again).is_ok());
}

#[test]
fn the_subagent_table_holds_its_capacity() {
    let frames = [
        START,
        r#"{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"n"}"#,
        r#"{"type":"SUBAGENT_STARTED","subagentRunId":"s2","name":"n"}"#,
        r#"{"type":"SUBAGENT_STARTED","subagentRunId":"s3","name":"n"}"#,
    ];
    assert_eq!(
        tiny(&frames),
        Err((3, Stage::Verify, Code::Capacity, Some(Table::Subagents)))
    );
}

#[test]
fn chunk_lanes_hold_their_capacity() {
    let frames = [
        START,
        r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"a","delta":"x","subagentRunId":"s1"}"#,
        r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"b","toolCallName":"f","subagentRunId":"s2"}"#,
        r#"{"type":"REASONING_MESSAGE_CHUNK","messageId":"c","subagentRunId":"s3"}"#,
    ];
    assert_eq!(
        tiny(&frames),
        Err((3, Stage::Transform, Code::Capacity, Some(Table::Lanes)))
    );
}

/// Owner tables of 3 entries.
type Three = Pipeline<64, 8, 8, 8, 32, 3, 2, V1>;

fn three(frames: &[&str]) -> Result<(), (u32, Code, Option<Table>)> {
    let mut p = Three::new();
    p.set_protocol(Select::Fixed(Protocol::V1));
    p.feed(&ndjson(frames), |_| {})
        .and_then(|()| p.finish(|_| {}))
        .map_err(|e| {
            let table = match e.detail {
                Detail::Capacity { table, .. } => Some(table),
                _ => None,
            };
            (e.frame, e.code, table)
        })
}

/// A snapshot that repeats known ids marks their entries: reading it
/// needs one free entry per table (for the id being read), not one per id.
#[test]
fn a_snapshot_repeating_known_ids_needs_no_room_for_them() {
    let snapshot = r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"user","content":"x"},{"id":"b","role":"assistant","subagentRunId":"s","toolCalls":[{"id":"t","type":"function","function":{"name":"f","arguments":"{}"}}]}]}"#;
    let frames = [
        START,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"a"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"a"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"b","subagentRunId":"s"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"b"}"#,
        snapshot,
        snapshot,
        // Seeded: tool call t belongs to s.
        r#"{"type":"TOOL_CALL_START","toolCallId":"t","toolCallName":"f","subagentRunId":"other"}"#,
    ];
    assert_eq!(three(&frames), Err((7, Code::OwnerMismatch, None)));
    // Four new ids do not fit three entries: the snapshot's capacity error.
    let four = r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"w","role":"user","content":"w"},{"id":"x","role":"user","content":"x"},{"id":"y","role":"user","content":"y"},{"id":"z","role":"user","content":"z"}]}"#;
    assert_eq!(
        three(&[START, four]),
        Err((1, Code::Capacity, Some(Table::MessageOwners)))
    );
    // A snapshot overwrites the owner it seeds; a run input does not.
    let reseed = r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"user","content":"x","subagentRunId":"s"}]}"#;
    let a_by_s = r#"{"type":"TEXT_MESSAGE_START","messageId":"a","subagentRunId":"s"}"#;
    assert_eq!(
        three(&[
            START,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"a"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"a"}"#,
            reseed,
            a_by_s
        ]),
        Ok(())
    );
}

#[test]
fn seeds_of_a_frame_that_is_not_a_snapshot_are_dropped() {
    // `messages` on a CUSTOM event is stripped: it seeds nothing.
    let frames = [
        START,
        r#"{"type":"CUSTOM","name":"n","value":1,"messages":[{"id":"m","role":"user","content":"x","subagentRunId":"s"}]}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"t"}"#,
    ];
    assert!(tiny(&frames).is_ok());
}

/// Damaged 1.0 streams: bytes flipped, cut or repeated. Whatever happens,
/// no panic, and the outcome does not depend on how the bytes are split.
#[test]
fn damaged_streams_do_not_panic_and_do_not_depend_on_splits() {
    let text = [
        include_str!("../vectors/v1/handmade.jsonl"),
        include_str!("../vectors/v1/generated.jsonl"),
        include_str!("../vectors/v1/python-sdk.jsonl"),
    ]
    .concat();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let streams: Vec<Vec<u8>> = text
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            v["events"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|e| format!("{e}\n").into_bytes())
                .collect()
        })
        .collect();
    for round in 0..2 {
        for stream in &streams {
            let mut bytes = stream.clone();
            let n = bytes.len().max(1);
            for _ in 0..(1 + round) {
                let at = (next() as usize) % n;
                match next() % 3 {
                    0 => {
                        let i = at.min(bytes.len() - 1);
                        bytes[i] = (next() % 256) as u8;
                    }
                    1 => bytes.truncate(at),
                    _ => {
                        let piece = bytes[..at.min(bytes.len())].to_vec();
                        bytes.extend(piece);
                    }
                }
                if bytes.is_empty() {
                    break;
                }
            }
            let run = |piece: usize| {
                let mut p = V1Pipeline::new();
                p.set_protocol(Select::Fixed(Protocol::V1));
                let (kinds, _, result) = feed(&mut p, &bytes, piece);
                (kinds, result)
            };
            let whole = run(usize::MAX);
            assert_eq!(run(1), whole);
            assert_eq!(run(5), whole);
        }
    }
}

/// Keep-going mode takes a rejected frame back whole, the compatibility
/// boundary's memory included: the id a rejected THINKING_START minted is
/// minted again by the next one.
#[test]
fn a_rejected_frame_mints_nothing() {
    let frames = [
        START,
        r#"{"type":"THINKING_START","timestamp":1.5}"#,
        r#"{"type":"THINKING_START"}"#,
        r#"{"type":"THINKING_END"}"#,
        FINISH,
    ];
    let mut p = V1Pipeline::new();
    p.set_protocol(Select::Fixed(Protocol::V1));
    p.set_mode(agui_core::Mode::KeepGoing);
    let mut seen = Vec::new();
    let mut errors = Vec::new();
    p.feed(&ndjson(&frames), |out| match out {
        Output::Event(ev) => seen.push((ev.frame, ev.kind, ev.id.to_owned())),
        Output::Error(e) => errors.push((e.frame, e.code)),
        Output::Part(_) => {}
    })
    .unwrap();
    assert_eq!(errors, [(1, Code::Decode)]);
    let span = "00000000-0000-4000-8000-000000000001".to_owned();
    assert_eq!(
        seen,
        [
            (0, EventType::RunStarted, String::new()),
            (2, EventType::ReasoningStart, span.clone()),
            (3, EventType::ReasoningEnd, span),
            (4, EventType::RunFinished, String::new()),
        ]
    );
}

/// `MESSAGES_SNAPSHOT.messages` are checked against the 1.0 Message schema
/// (as `RUN_STARTED.input.messages` are), and an activity message needs
/// its `content` (SPEC 9.5). Found by `alloc-ext/tests/v1_agreement.rs`.
#[test]
fn snapshot_messages_are_checked_in_1_0() {
    let bad = [
        r#"{"type":"MESSAGES_SNAPSHOT","messages":[null]}"#,
        r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m","role":"user","content":5}]}"#,
        r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m","role":"activity","activityType":"a"}]}"#,
    ];
    for frame in bad {
        let (_, _, result) = v1(&[START, frame]);
        assert_eq!(result, Err((1, Stage::Decode, Code::Decode)), "{frame}");
    }
    let good = r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m","role":"activity","activityType":"a","content":{}}]}"#;
    let (_, _, result) = v1(&[START, good]);
    assert_eq!(result, Ok(()));
}
