//! Robustness (issue 6): keep-going recovery, resource limits, text edge
//! cases, and regression tests of the findings (see FUZZING.md).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use agui_alloc::client::{Client, ClientError, Limits};
use agui_alloc::reduce::{Limit, Reducer, ReducerLimits};
use agui_core::error::{Code, Stage};
use agui_core::frame::Format;
use agui_core::pipeline::{DefaultPipeline, Mode, Output};
use common::{ndjson, Rng};
use serde_json::{json, Value};

/// Runs a client over `bytes`; (messages, state, accepted, errors).
fn run(client: Client, bytes: &[u8]) -> (Value, Value, u32, Vec<ClientError>) {
    let mut client = client;
    let fed = client.feed(bytes).and_then(|()| client.finish());
    let mut errors = client.errors().to_vec();
    if let Err(e) = fed {
        errors = vec![e];
    }
    (
        serde_json::to_value(client.messages()).unwrap(),
        client.state().clone(),
        client.accepted(),
        errors,
    )
}

fn keep_going(bytes: &[u8]) -> (Value, Value, u32, Vec<ClientError>) {
    run(
        Client::with_format(Some(Format::Ndjson)).keep_going(),
        bytes,
    )
}

fn lines(events: &[Value]) -> Vec<Vec<u8>> {
    events
        .iter()
        .map(|e| {
            let mut l = common::type_first(e).into_bytes();
            l.push(b'\n');
            l
        })
        .collect()
}

const START: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;

// ---------------------------------------------------------------- keep-going

/// One corrupted byte loses only the frame that holds it: for valid
/// vectors, replacing one byte of frame k by 0x01 (never valid in JSON) gives
/// the same messages and state as the stream without frame k, and the
/// skipped frames are k plus those the shorter stream skips (shifted).
#[test]
fn one_corrupted_byte_loses_only_its_frame() {
    let mut rng = Rng::new(6);
    let mut checked = 0;
    for v in common::all()
        .iter()
        .filter(|v| v.expect["error"].is_null())
        .step_by(3)
    {
        let frames = lines(&v.events);
        let k = rng.below(frames.len());
        let mut corrupted = frames.clone();
        let at = rng.below(frames[k].len() - 1); // not the line end
        corrupted[k][at] = 0x01;
        let mut without = frames.clone();
        without.remove(k);

        let got = keep_going(&corrupted.concat());
        let want = keep_going(&without.concat());
        assert_eq!(got.0, want.0, "{}: messages differ", v.name);
        assert_eq!(got.1, want.1, "{}: state differs", v.name);
        assert_eq!(got.2, want.2, "{}: accepted differs", v.name);
        let mut want_skipped: Vec<u32> = want
            .3
            .iter()
            .map(|e| {
                if e.frame >= k as u32 {
                    e.frame + 1
                } else {
                    e.frame
                }
            })
            .collect();
        want_skipped.push(k as u32);
        want_skipped.sort_unstable();
        let got_skipped: Vec<u32> = got.3.iter().map(|e| e.frame).collect();
        assert_eq!(got_skipped, want_skipped, "{}: skipped frames", v.name);
        assert_eq!(
            got.3.iter().find(|e| e.frame == k as u32).unwrap().stage,
            Stage::Decode
        );
        checked += 1;
    }
    assert!(checked > 100);
}

/// A frame that expands into a Close END and a failing event is
/// all-or-nothing in keep-going mode (core and client), and keeps the
/// strict behaviour (the END is applied) in strict mode.
#[test]
fn keep_going_frames_are_atomic() {
    let stream = format!(
        "{START}\n\
         {{\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m\",\"delta\":\"a\"}}\n\
         {{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"nope\",\"delta\":\"x\"}}\n\
         {{\"type\":\"TEXT_MESSAGE_CHUNK\",\"delta\":\"b\"}}\n"
    );
    // Core, keep-going: frame 2 hands out nothing, m stays open, and the
    // id-less chunk of frame 3 continues it.
    let mut p = DefaultPipeline::new();
    p.set_mode(Mode::KeepGoing);
    let mut seen = Vec::new();
    p.feed(stream.as_bytes(), |o| match o {
        Output::Event(ev) => seen.push(format!("{}:{}:{}", ev.frame, ev.kind.as_str(), ev.id)),
        Output::Error(e) => seen.push(format!("{}:error:{}", e.frame, e.code.as_str())),
        Output::Part(_) => {}
    })
    .unwrap();
    assert_eq!(
        seen,
        [
            "0:RUN_STARTED:",
            "1:TEXT_MESSAGE_START:m",
            "1:TEXT_MESSAGE_CONTENT:m",
            "2:error:message_not_active",
            "3:TEXT_MESSAGE_CONTENT:m",
        ]
    );
    assert_eq!(p.accepted(), 3);
    assert!(p.reader().verifier().open_messages().contains("m"));

    // Client, keep-going.
    let (messages, _, accepted, errors) = keep_going(stream.as_bytes());
    assert_eq!(messages[0]["content"], "ab");
    assert_eq!(accepted, 3);
    assert_eq!(errors.len(), 1);
    assert_eq!(
        (errors[0].frame, errors[0].code),
        (2, Code::MessageNotActive)
    );

    // Strict: the END made by the failing frame was verified and applied.
    let mut p = DefaultPipeline::new();
    let mut kinds = Vec::new();
    let err = p
        .feed(stream.as_bytes(), |o| {
            if let Output::Event(ev) = o {
                kinds.push(ev.kind.as_str());
            }
        })
        .unwrap_err();
    assert_eq!(err.frame, 2);
    assert_eq!(kinds.last(), Some(&"TEXT_MESSAGE_END"));
    assert!(p.reader().verifier().open_messages().is_empty());
}

/// A chunk that switches items (END old, START new) and fails on the START
/// restores the old open item and the verifier's table order.
#[test]
fn keep_going_restores_a_switched_chunk() {
    let stream = format!(
        "{START}\n\
         {{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"x\"}}\n\
         {{\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m\",\"delta\":\"a\"}}\n\
         {{\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"x\",\"delta\":\"!\"}}\n\
         {{\"type\":\"TEXT_MESSAGE_CHUNK\",\"delta\":\"b\"}}\n"
    );
    let mut p = DefaultPipeline::new();
    p.set_mode(Mode::KeepGoing);
    let mut errors = Vec::new();
    p.feed(stream.as_bytes(), |o| {
        if let Output::Error(e) = o {
            errors.push((e.frame, e.code));
        }
    })
    .unwrap();
    // Frame 3 would close m and start x, which is already open.
    assert_eq!(errors, [(3, Code::MessageActive)]);
    let open: Vec<&str> = p.reader().verifier().open_messages().iter().collect();
    assert_eq!(open, ["x", "m"]);
    assert_eq!(p.accepted(), 4);
    assert_eq!(
        p.reader().chunker().open_item().map(|(_, id)| id),
        Some("m")
    );
}

#[test]
fn keep_going_skips_bad_frames_of_every_stage() {
    let stream = format!(
        "{START}\n\
         not json\n\
         {{\"type\":\"NOPE\"}}\n\
         {{\"type\":\"TEXT_MESSAGE_CHUNK\",\"delta\":\"orphan\"}}\n\
         {{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"q\"}}\n\
         {{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}}\n\
         {{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"ok\"}}\n"
    );
    let (messages, _, accepted, errors) = keep_going(stream.as_bytes());
    let got: Vec<(u32, &str, &str)> = errors
        .iter()
        .map(|e| (e.frame, e.stage.as_str(), e.code.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (1, "decode", "decode"),
            (2, "decode", "decode"),
            (3, "transform", "chunk_missing_id"),
            (4, "verify", "message_not_active"),
        ]
    );
    assert_eq!(accepted, 3);
    assert_eq!(messages[0]["content"], "ok");
}

#[test]
fn keep_going_bounds_the_error_list() {
    let mut stream = String::from(START);
    stream.push('\n');
    for _ in 0..50 {
        stream.push_str("garbage\n");
    }
    let limits = Limits {
        max_errors: 10,
        ..Limits::default()
    };
    let mut client = Client::new().keep_going().with_limits(limits);
    client.feed(stream.as_bytes()).unwrap();
    client.finish().unwrap();
    assert_eq!(client.errors().len(), 10);
    assert_eq!(client.error_count(), 50);
    assert_eq!(client.error().unwrap().frame, 1);
}

// -------------------------------------------------------------------- limits

fn strict_error(limits: Limits, stream: &str) -> ClientError {
    let mut client = Client::new().with_limits(limits);
    client
        .feed(stream.as_bytes())
        .and_then(|()| client.finish())
        .unwrap_err()
}

#[test]
fn frame_size_limit() {
    let limits = Limits {
        max_frame_bytes: 100,
        ..Limits::default()
    };
    let long = format!(
        "{START}\n{{\"type\":\"CUSTOM\",\"name\":\"{}\"}}\n",
        "x".repeat(200)
    );
    let e = strict_error(limits, &long);
    assert_eq!(
        (e.frame, e.stage, e.code),
        (1, Stage::Decode, Code::Capacity)
    );
    assert!(e.message.contains("max_frame_bytes"), "{e}");
    // Keep-going skips it, and the next frame is read normally.
    let next = format!("{long}{{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}}\n");
    let (messages, _, accepted, errors) = run(
        Client::new().keep_going().with_limits(limits),
        next.as_bytes(),
    );
    assert_eq!((accepted, errors.len()), (2, 1));
    assert_eq!(messages[0]["id"], "m");
}

#[test]
fn message_count_limit() {
    let limits = Limits {
        max_messages: 2,
        ..Limits::default()
    };
    let mut stream = format!("{START}\n");
    for id in ["a", "b", "c"] {
        stream.push_str(&format!(
            "{{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"{id}\"}}\n"
        ));
    }
    let e = strict_error(limits, &stream);
    assert_eq!(
        (e.frame, e.stage, e.code),
        (3, Stage::Verify, Code::Capacity)
    );
    assert!(e.message.contains("max_messages"), "{e}");
    // Keep-going: the refused START is taken back in the verifier too, so
    // a CONTENT for "c" is a verify error, not a silent no-op.
    stream.push_str("{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"c\",\"delta\":\"x\"}\n");
    let (messages, _, _, errors) = run(
        Client::new().keep_going().with_limits(limits),
        stream.as_bytes(),
    );
    assert_eq!(messages.as_array().unwrap().len(), 2);
    let codes: Vec<&str> = errors.iter().map(|e| e.code.as_str()).collect();
    assert_eq!(codes, ["capacity", "message_not_active"]);
}

#[test]
fn message_bytes_limit_refuses_a_chunk_frame_whole() {
    // Room for message `m` (its id twice, the index's copy, and 8 bytes of
    // text), not for a second message.
    let limits = Limits {
        max_message_bytes: agui_alloc::size::MESSAGE_OVERHEAD + 10,
        ..Limits::default()
    };
    let stream = format!(
        "{START}\n\
         {{\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m\",\"delta\":\"12345\"}}\n\
         {{\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"n\",\"delta\":\"1234567\"}}\n\
         {{\"type\":\"TEXT_MESSAGE_CHUNK\",\"delta\":\"678\"}}\n"
    );
    let e = strict_error(limits, &stream);
    assert_eq!((e.frame, e.code), (2, Code::Capacity));
    assert!(e.message.contains("max_message_bytes"), "{e}");
    // Keep-going: frame 2 (END m, START n, CONTENT n) is refused whole:
    // no message n, m still open, and the next id-less chunk extends m.
    let (messages, _, _, errors) = run(
        Client::new().keep_going().with_limits(limits),
        stream.as_bytes(),
    );
    assert_eq!(errors.len(), 1);
    assert_eq!(messages.as_array().unwrap().len(), 1);
    assert_eq!(messages[0]["content"], "12345678");
}

#[test]
fn state_size_limit_on_snapshot_and_delta() {
    let limits = Limits {
        max_state_bytes: 1000,
        ..Limits::default()
    };
    let big = format!(
        "{START}\n{{\"type\":\"STATE_SNAPSHOT\",\"snapshot\":{{\"a\":\"{}\"}}}}\n",
        "x".repeat(2000)
    );
    let e = strict_error(limits, &big);
    assert_eq!((e.frame, e.code), (1, Code::Capacity));
    assert!(e.message.contains("max_state_bytes"), "{e}");

    let add = format!(
        "{START}\n{{\"type\":\"STATE_DELTA\",\"delta\":[{{\"op\":\"add\",\"path\":\"/a\",\"value\":\"{}\"}}]}}\n",
        "x".repeat(2000)
    );
    let e = strict_error(limits, &add);
    assert_eq!((e.frame, e.code), (1, Code::Capacity));
}

/// Found while writing the reducer fuzz target (review, before its first
/// run): `copy` doubles the state with every operation, so a 1 KiB frame
/// could ask for 2^40 bytes. The copy is now measured before it runs and
/// the patch refused at the limit, quickly.
#[test]
fn regression_copy_doubling_patch_is_refused() {
    let mut ops = vec![json!({"op": "add", "path": "/a", "value": "0123456789abcdef"})];
    for i in 0..40 {
        ops.push(json!({"op": "copy", "from": "", "path": format!("/c{i}")}));
    }
    let delta = json!({"type": "STATE_DELTA", "delta": ops});
    let stream = format!("{START}\n{}\n", delta);
    let e = strict_error(Limits::default(), &stream);
    assert_eq!((e.frame, e.code), (1, Code::Capacity));
    assert!(e.message.contains("max_state_bytes"), "{e}");
    // The state is untouched, and keep-going goes on.
    let (_, state, accepted, errors) = keep_going(stream.as_bytes());
    assert_eq!(state, json!({}));
    assert_eq!((accepted, errors.len()), (1, 1));
}

/// Each STATE_DELTA may nest the state deeper (a path of 60 levels plus a
/// value of 60 levels); without a limit a long stream grows it without end
/// and every recursive walk (serialization, drop) overflows the stack.
#[test]
fn state_depth_limit() {
    let mut reducer = Reducer::new().with_limits(ReducerLimits {
        max_state_depth: 20,
        ..ReducerLimits::default()
    });
    let mut path = String::new();
    let mut refused = None;
    for step in 0..10 {
        let delta = json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": format!("{path}/a"), "value": {"b": {"c": {}}}}]});
        let ev = agui_alloc::event::Event::from_core(
            agui_core::event::EventType::StateDelta,
            agui_core::event::Origin::Frame,
            "",
            &delta,
        )
        .unwrap();
        match reducer.try_apply_with(&ev, &mut ()) {
            Ok(_) => path.push_str("/a/b/c"),
            Err(e) => {
                refused = Some((step, e.limit));
                break;
            }
        }
    }
    assert_eq!(refused.map(|r| r.1), Some(Limit::StateDepth));
    serde_json::to_string(reducer.state()).unwrap();
}

/// Regression (review): `move` into a fresh child nests the state one
/// level deeper each round; the depth estimate must follow it.
#[test]
fn state_depth_limit_holds_through_moves() {
    let mut reducer = Reducer::new().with_limits(ReducerLimits {
        max_state_depth: 20,
        ..ReducerLimits::default()
    });
    let apply = |reducer: &mut Reducer, frame: serde_json::Value| {
        let kind = agui_core::event::EventType::from_wire(frame["type"].as_str().unwrap()).unwrap();
        let ev =
            agui_alloc::event::Event::from_core(kind, agui_core::event::Origin::Frame, "", &frame)
                .unwrap();
        reducer.try_apply_with(&ev, &mut ())
    };
    apply(
        &mut reducer,
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"s": {}}}),
    )
    .unwrap();
    let round = json!({"type": "STATE_DELTA", "delta": [
        {"op": "add", "path": "/t", "value": {}},
        {"op": "move", "from": "/s", "path": "/t/s"},
        {"op": "move", "from": "/t", "path": "/s"},
    ]});
    let mut refused = None;
    for step in 0..100 {
        if let Err(e) = apply(&mut reducer, round.clone()) {
            refused = Some((step, e.limit));
            break;
        }
    }
    assert!(
        matches!(refused, Some((_, Limit::StateDepth))),
        "{refused:?}"
    );
    let depth = |mut v: &serde_json::Value| {
        let mut d = 0;
        while let Some(inner) = v.get("s") {
            v = inner;
            d += 1;
        }
        d
    };
    assert!(depth(reducer.state()) <= 20, "{}", depth(reducer.state()));
}

/// Regression (review): failed patches must not count against the state
/// size: the state is unchanged.
#[test]
fn failed_patches_do_not_grow_the_state_estimate() {
    let mut reducer = Reducer::new().with_limits(ReducerLimits {
        max_state_bytes: 1000,
        ..ReducerLimits::default()
    });
    let big = "x".repeat(600);
    for _ in 0..10 {
        let frame = json!({"type": "STATE_DELTA", "delta": [
            {"op": "add", "path": "/v", "value": big},
            {"op": "test", "path": "/v", "value": "not it"},
        ]});
        let ev = agui_alloc::event::Event::from_core(
            agui_core::event::EventType::StateDelta,
            agui_core::event::Origin::Frame,
            "",
            &frame,
        )
        .unwrap();
        reducer.try_apply_with(&ev, &mut ()).unwrap();
    }
    assert_eq!(reducer.state(), &json!({}));
}

#[test]
fn id_length_is_bounded_by_reader_bytes_and_nesting_by_depth() {
    // On a host an id has no fixed capacity: a 2,000-byte one folds, and
    // the reader's byte limit bounds what the open ids keep.
    let long_id = "i".repeat(2_000);
    let stream =
        format!("{START}\n{{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"{long_id}\"}}\n");
    let mut client = Client::new();
    client.feed(stream.as_bytes()).unwrap();
    let limits = Limits {
        max_reader_bytes: 1_000,
        ..Limits::default()
    };
    let e = strict_error(limits, &stream);
    assert_eq!((e.frame, e.code), (1, Code::Capacity));
    assert!(e.message.contains("max_reader_bytes"), "{e}");

    // JSON nests 512 deep on a host; deeper is a decode error naming the
    // depth.
    let nested = |n: usize| {
        format!(
            "{START}\n{{\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":{}1{}}}\n",
            "[".repeat(n),
            "]".repeat(n)
        )
    };
    let mut client = Client::new();
    client.feed(nested(500).as_bytes()).unwrap();
    let e = strict_error(Limits::default(), &nested(600));
    assert_eq!((e.frame, e.stage, e.code), (1, Stage::Decode, Code::Decode));
    assert!(e.message.contains("depth"), "{e}");
}

// ---------------------------------------------------------------- text edges

#[test]
fn invalid_utf8_is_a_decode_error_with_its_offset() {
    let mut bytes = format!("{START}\n").into_bytes();
    bytes.extend_from_slice(b"{\"type\":\"CUSTOM\",\"name\":\"ab\xff\"}\n");
    let mut client = Client::new();
    let e = client.feed(&bytes).unwrap_err();
    assert_eq!((e.frame, e.code), (1, Code::Decode));
    assert!(e.message.contains("byte 27"), "{e}");
    assert!(e.message.contains("UTF-8"), "{e}");
}

/// A JavaScript backend that cuts a string in the middle of an emoji sends
/// `\ud83d` at the end of one delta and `\ude80` at the start of the next.
/// Each delta is its own JSON string, so each lone half becomes U+FFFD, in
/// the core's parts and in the client's messages alike (never invalid
/// UTF-8, never a rejected frame). A pair inside one string is the emoji.
#[test]
fn split_surrogate_pair_becomes_two_replacement_characters() {
    let stream = format!(
        "{START}\n\
         {{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}}\n\
         {{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"go \\ud83d\"}}\n\
         {{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"\\ude80!\"}}\n\
         {{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\" \\ud83d\\ude80\"}}\n"
    );
    let want = "go \u{FFFD}\u{FFFD}! \u{1F680}";
    for pieces in [1, 3, 7] {
        let mut client = Client::new();
        for piece in stream.as_bytes().chunks(pieces) {
            client.feed(piece).unwrap();
        }
        client.finish().unwrap();
        assert_eq!(client.messages()[0].text(), Some(want));
    }
    // The core hands out the same text in its parts.
    let mut p = DefaultPipeline::new();
    let mut text = String::new();
    p.feed(stream.as_bytes(), |o| {
        if let Output::Part(part) = o {
            if part.field == agui_core::decode::Field::Delta {
                text.push_str(part.text.as_str());
            }
        }
    })
    .unwrap();
    assert_eq!(text, want);
}

/// Regression: the client used to re-parse each frame with serde_json,
/// which rejects lone surrogates that the core accepts; both layers now
/// read the frame through the core tokenizer.
#[test]
fn regression_lone_surrogate_in_nested_values() {
    let stream = format!(
        "{START}\n{{\"type\":\"STATE_SNAPSHOT\",\"snapshot\":{{\"k\\udc00\":[\"\\ud800x\"]}}}}\n"
    );
    let (_, state, accepted, errors) = keep_going(stream.as_bytes());
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(accepted, 2);
    assert_eq!(state, json!({"k\u{FFFD}": ["\u{FFFD}x"]}));
}

#[test]
fn line_separators_inside_ndjson_strings_are_not_line_breaks() {
    let stream = format!(
        "{START}\n{{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}}\n\
         {{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"a\u{2028}b\u{2029}c\"}}\n"
    );
    let (messages, _, accepted, errors) = keep_going(stream.as_bytes());
    assert!(errors.is_empty());
    assert_eq!(accepted, 3);
    assert_eq!(messages[0]["content"], "a\u{2028}b\u{2029}c");
}

/// Duplicate keys: the last one wins, as serde_json did before.
#[test]
fn frame_value_keeps_serde_json_semantics() {
    let stream = format!(
        "{START}\n{{\"type\":\"STATE_SNAPSHOT\",\"snapshot\":{{\"a\":1,\"a\":2.5,\"b\":-0,\"c\":1e2,\"d\":18446744073709551615}}}}\n"
    );
    let (_, state, _, errors) = keep_going(stream.as_bytes());
    assert!(errors.is_empty());
    let want: Value =
        serde_json::from_str(r#"{"a":2.5,"b":-0,"c":1e2,"d":18446744073709551615}"#).unwrap();
    assert_eq!(state, want);
    let _ = ndjson(&[]);
}

/// Regression (review): a number streamed digit by digit is not re-read in
/// full at every delta past `MAX_NUMBER_TEXT`, and still ends right.
#[test]
fn a_long_streamed_number_keeps_a_value_and_ends_right() {
    use agui_alloc::partial::{PartialArgs, MAX_NUMBER_TEXT};
    let mut args = PartialArgs::new();
    args.push("[12.");
    for _ in 0..(2 * MAX_NUMBER_TEXT) {
        args.push("5");
    }
    assert!(args.value()[0]
        .as_f64()
        .is_some_and(|x| (x - 12.5).abs() < 0.5));
    args.push("]");
    assert!(args.finish()[0]
        .as_f64()
        .is_some_and(|x| (x - 12.555).abs() < 0.01));
}
