//! Property: the result does not depend on how the bytes are split, for
//! generated streams (valid and broken events, NDJSON and SSE), in the core
//! pipeline and in the client, strict and keep-going.
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unwrap_used
)]

use agui_alloc::client::Client;
use agui_core::pipeline::{DefaultPipeline, Mode, Output};
use proptest::prelude::*;
use serde_json::Value;

/// One line of a stream: mostly events, sometimes damage.
fn line() -> impl Strategy<Value = String> {
    let id = prop::sample::select(vec!["a", "b"]);
    let text = prop::sample::select(vec!["hi", "", "\\ud83d", "\\ude80!", "é\\n", "\u{2028}"]);
    prop_oneof![
        Just(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_owned()),
        Just(r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#.to_owned()),
        id.clone().prop_map(|id| format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"{id}"}}"#)),
        (id.clone(), text.clone()).prop_map(|(id, d)| format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"{id}","delta":"{d}"}}"#)),
        id.clone().prop_map(|id| format!(r#"{{"type":"TEXT_MESSAGE_END","messageId":"{id}"}}"#)),
        (id.clone(), text).prop_map(|(id, d)| format!(r#"{{"type":"TEXT_MESSAGE_CHUNK","messageId":"{id}","delta":"{d}"}}"#)),
        id.clone().prop_map(|id| format!(r#"{{"type":"TOOL_CALL_CHUNK","toolCallId":"{id}","toolCallName":"f","delta":"{{\"x\":"}}"#)),
        Just(r#"{"type":"TOOL_CALL_CHUNK","delta":"1}"}"#.to_owned()),
        Just(r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/n","value":[1,{"k":null}]}]}"#.to_owned()),
        Just(r#"{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/missing"}]}"#.to_owned()),
        Just(r#"{"type":"STEP_STARTED","stepName":"s"}"#.to_owned()),
        Just(r#"{"type":"STEP_FINISHED","stepName":"s"}"#.to_owned()),
        Just(r#"{"type":"NOPE"}"#.to_owned()),
        Just(r#"{"type":"CUSTOM","name":"#.to_owned()),
        Just("\u{1}".to_owned()),
    ]
}

fn stream() -> impl Strategy<Value = (Vec<u8>, Vec<usize>)> {
    (prop::collection::vec(line(), 1..14), any::<bool>()).prop_flat_map(|(lines, sse)| {
        let text: String = if sse {
            lines.iter().map(|l| format!("data: {l}\n\n")).collect()
        } else {
            lines.iter().map(|l| format!("{l}\n")).collect()
        };
        let bytes = text.into_bytes();
        let n = bytes.len();
        (Just(bytes), prop::collection::vec(0..=n, 0..8))
    })
}

fn pieces<'a>(bytes: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut cuts = cuts.to_vec();
    cuts.push(0);
    cuts.push(bytes.len());
    cuts.sort_unstable();
    cuts.windows(2).map(|w| &bytes[w[0]..w[1]]).collect()
}

fn client(pieces: &[&[u8]], keep_going: bool) -> (Value, Value, u32, Vec<String>) {
    let mut c = Client::new().with_trace();
    if keep_going {
        c = c.keep_going();
    }
    let mut result = Ok(());
    for p in pieces {
        result = c.feed(p);
        if result.is_err() {
            break;
        }
    }
    if result.is_ok() {
        result = c.finish();
    }
    let mut errors: Vec<String> = c.errors().iter().map(ToString::to_string).collect();
    errors.extend(result.err().map(|e| e.to_string()));
    let trace: Vec<String> = c.trace().iter().map(|t| format!("{:?}", t)).collect();
    (
        serde_json::to_value(c.messages()).unwrap(),
        Value::from(trace),
        c.accepted(),
        errors,
    )
}

fn core(pieces: &[&[u8]], mode: Mode) -> (Vec<String>, String, u32) {
    let mut p = DefaultPipeline::new();
    p.set_mode(mode);
    let mut out = Vec::new();
    let mut parts = String::new();
    let mut record = |o: Output<'_>| match o {
        Output::Event(ev) => out.push(format!("{} {} {}", ev.frame, ev.kind.as_str(), ev.id)),
        Output::Error(e) => out.push(e.to_string()),
        Output::Part(part) => parts.push_str(part.text.as_str()),
    };
    let mut result = Ok(());
    for piece in pieces {
        result = p.feed(piece, &mut record);
        if result.is_err() {
            break;
        }
    }
    if result.is_ok() {
        result = p.finish(&mut record);
    }
    out.extend(result.err().map(|e| e.to_string()));
    (out, parts, p.accepted())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn client_is_split_invariant((bytes, cuts) in stream()) {
        let split = pieces(&bytes, &cuts);
        for keep_going in [false, true] {
            prop_assert_eq!(client(&[&bytes], keep_going), client(&split, keep_going));
        }
    }

    #[test]
    fn core_is_split_invariant((bytes, cuts) in stream()) {
        let split = pieces(&bytes, &cuts);
        for mode in [Mode::Strict, Mode::KeepGoing] {
            prop_assert_eq!(core(&[&bytes], mode), core(&split, mode));
        }
    }

    /// Keep-going accounts for every frame, and agrees with strict mode on
    /// everything before strict mode's error.
    #[test]
    fn keep_going_extends_strict((bytes, _) in stream()) {
        let strict = client(&[&bytes], false);
        let going = client(&[&bytes], true);
        if strict.3.is_empty() {
            prop_assert_eq!(&strict, &going);
        } else {
            prop_assert_eq!(&strict.3[0], &going.3[0]);
            prop_assert!(going.2 >= strict.2);
        }
    }
}
