#![allow(
    clippy::panic,
    clippy::wildcard_enum_match_arm,
    clippy::indexing_slicing,
    clippy::unwrap_used
)]
extern crate std;

use super::*;
use serde_json::{json, Value as Json};
use std::string::String;
use std::vec;
use std::vec::Vec;

// A tiny protobuf writer for the tests.
fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}
fn tag(n: u32, wire: u8, out: &mut Vec<u8>) {
    varint(u64::from(n) << 3 | u64::from(wire), out);
}
fn ld(n: u32, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    tag(n, 2, &mut out);
    varint(body.len() as u64, &mut out);
    out.extend_from_slice(body);
    out
}
fn vi(n: u32, v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    tag(n, 0, &mut out);
    varint(v, &mut out);
    out
}
fn cat(parts: &[Vec<u8>]) -> Vec<u8> {
    parts.concat()
}
/// An event of envelope arm `arm` (base type `ty`) with `fields`.
fn event(arm: u32, ty: u64, fields: &[Vec<u8>]) -> Vec<u8> {
    let base = ld(1, &vi(1, ty));
    let mut body = base;
    for f in fields {
        body.extend_from_slice(f);
    }
    ld(arm, &body)
}
fn frame(msg: &[u8]) -> Vec<u8> {
    let mut out = (msg.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(msg);
    out
}

/// The frames' JSON texts (or the error), feeding `bytes` in pieces of `step`.
fn texts(bytes: &[u8], step: usize) -> Vec<Result<Json, ProtoFault>> {
    let mut r: ProtoFramer = ProtoFramer::new();
    let mut out = Vec::new();
    let mut cur: Vec<u8> = Vec::new();
    let mut take = |piece: ProtoPiece<'_>, out: &mut Vec<Result<Json, ProtoFault>>| match piece {
        ProtoPiece::Start => cur.clear(),
        ProtoPiece::Data(d) => cur.extend_from_slice(d),
        ProtoPiece::Text(t) => cur.extend_from_slice(t.as_bytes()),
        ProtoPiece::End => out.push(Ok(serde_json::from_slice(&cur)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&cur))))),
        ProtoPiece::Fail(e) => match e.detail {
            Detail::Proto { fault, .. } => out.push(Err(fault)),
            _ => panic!("{e:?}"),
        },
    };
    for chunk in bytes.chunks(step.max(1)) {
        let mut input = chunk;
        loop {
            let (used, piece) = r.next(input);
            input = &input[used..];
            match piece {
                Some(p) => take(p, &mut out),
                None if used == 0 => break,
                None => {}
            }
        }
    }
    if let Some(p) = r.end() {
        take(p, &mut out);
    }
    out
}

fn all_splits(bytes: &[u8]) -> Vec<Result<Json, ProtoFault>> {
    let whole = texts(bytes, bytes.len());
    for step in [1, 2, 3, 7] {
        assert_eq!(texts(bytes, step), whole, "step {step}");
    }
    whole
}

fn s(n: u32, v: &str) -> Vec<u8> {
    ld(n, v.as_bytes())
}

#[test]
fn simple_events_with_defaults() {
    let start = event(1, 0, &[s(2, "m1"), s(3, "assistant")]);
    let content = event(2, 1, &[s(2, "m1"), s(3, "he said \"hi\"\n\u{1}é")]);
    let end = event(3, 2, &[]);
    let bytes = cat(&[frame(&start), frame(&content), frame(&end)]);
    let got = all_splits(&bytes);
    assert_eq!(
        got,
        vec![
            Ok(json!({"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"})),
            Ok(
                json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"he said \"hi\"\n\u{1}é"})
            ),
            Ok(json!({"type":"TEXT_MESSAGE_END","messageId":""})),
        ]
    );
}

fn value_str(v: &str) -> Vec<u8> {
    s(3, v)
}
fn entry(k: &str, v: &[u8]) -> Vec<u8> {
    ld(1, &cat(&[s(1, k), ld(2, v)]))
}

#[test]
fn values_and_structs_become_json() {
    let mut num = Vec::new();
    tag(2, 1, &mut num);
    num.extend_from_slice(&1.5f64.to_le_bytes());
    let list = ld(6, &cat(&[ld(1, &num), ld(1, &vi(1, 0)), ld(1, &vi(4, 1))]));
    let inner = ld(5, &entry("deep", &value_str("x")));
    let snapshot = ld(
        5,
        &cat(&[entry("n", &num), entry("l", &list), entry("o", &inner)]),
    );
    let ev = event(7, 6, &[ld(2, &snapshot)]);
    let got = all_splits(&frame(&ev));
    assert_eq!(
        got,
        vec![Ok(
            json!({"type":"STATE_SNAPSHOT","snapshot":{"n":1.5,"l":[1.5,null,true],"o":{"deep":"x"}}})
        )]
    );
}

#[test]
fn patches_messages_and_outcomes() {
    let op = ld(2, &cat(&[vi(1, 2), s(2, "/a"), ld(4, &value_str("v"))]));
    let op0 = ld(2, &s(2, "/b"));
    let delta = event(8, 7, &[op, op0]);
    let user = ld(2, &cat(&[s(1, "u1"), s(2, "user")]));
    let tool_call = ld(
        5,
        &cat(&[
            s(1, "tc"),
            s(2, "function"),
            ld(3, &cat(&[s(1, "f"), s(2, "{}")])),
        ]),
    );
    let asst = ld(
        2,
        &cat(&[s(1, "a1"), s(2, "assistant"), s(3, "hi"), tool_call]),
    );
    let snap = event(9, 8, &[user, asst]);
    let fin = event(
        13,
        12,
        &[
            s(2, "t"),
            s(3, "r"),
            s(5, "success"),
            s(8, "p1"),
            s(8, "p2"),
        ],
    );
    let got = all_splits(&cat(&[frame(&delta), frame(&snap), frame(&fin)]));
    assert_eq!(
        got,
        vec![
            Ok(
                json!({"type":"STATE_DELTA","delta":[{"op":"replace","path":"/a","value":"v"},{"path":"/b","op":"add"}]})
            ),
            Ok(json!({"type":"MESSAGES_SNAPSHOT","messages":[
                {"id":"u1","role":"user","content":[]},
                {"id":"a1","role":"assistant","content":"hi","toolCalls":[{"id":"tc","type":"function","function":{"name":"f","arguments":"{}"}}]}
            ]})),
            Ok(
                json!({"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success","pendingToolCallIds":["p1","p2"]}})
            ),
        ]
    );
}

#[test]
fn unknown_fields_are_skipped() {
    let mut fixed = Vec::new();
    tag(40, 1, &mut fixed);
    fixed.extend_from_slice(&[0; 8]);
    let ev = event(
        2,
        1,
        &[vi(99, 300), s(77, "zz"), fixed, s(2, "m"), s(3, "d")],
    );
    let frame_bytes = frame(&cat(&[ev, vi(50, 1)]));
    assert_eq!(
        all_splits(&frame_bytes),
        vec![Ok(
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d"})
        )]
    );
}

#[test]
fn malformed_frames_fail_and_the_next_frame_is_read() {
    let good = frame(&event(3, 2, &[s(2, "m")]));
    let cases: Vec<(Vec<u8>, ProtoFault)> = vec![
        (event(2, 5, &[]), ProtoFault::TypeMismatch),
        (ld(2, &s(2, "m")), ProtoFault::NoBase),
        (
            cat(&[event(3, 2, &[]), event(3, 2, &[])]),
            ProtoFault::TwoEvents,
        ),
        (event(2, 1, &[s(2, "a"), s(2, "b")]), ProtoFault::Duplicate),
        (vec![0x12, 0x05, 0x0a], ProtoFault::Length),
        (vec![0x13], ProtoFault::Group),
        (vec![0x0f], ProtoFault::WireType),
        (vec![], ProtoFault::NoEvent),
        (event(7, 6, &[ld(2, &[])]), ProtoFault::EmptyValue),
        (event(2, 1, &[vi(2, 1)]), ProtoFault::WireType),
        (
            event(8, 7, &[ld(2, &s(2, "/a")), s(3, "x"), ld(2, &s(2, "/b"))]),
            ProtoFault::Split,
        ),
    ];
    for (msg, fault) in cases {
        let bytes = cat(&[frame(&msg), good.clone()]);
        let got = all_splits(&bytes);
        assert_eq!(
            got,
            vec![
                Err(fault),
                Ok(json!({"type":"TEXT_MESSAGE_END","messageId":"m"}))
            ],
            "{msg:?}"
        );
    }
    // A stream cut inside a frame, and inside a length prefix.
    let cut = &good[..good.len() - 1];
    assert_eq!(all_splits(cut), vec![Err(ProtoFault::Truncated)]);
    assert_eq!(all_splits(&good[..2]), vec![Err(ProtoFault::Truncated)]);
}

#[test]
fn nesting_past_the_stack_is_a_capacity_error() {
    let mut v = value_str("x");
    for _ in 0..30 {
        v = ld(6, &ld(1, &v));
    }
    let ev = frame(&event(7, 6, &[ld(2, &v)]));
    let mut r: ProtoFramer<8> = ProtoFramer::new();
    let mut input: &[u8] = &ev;
    let mut failed = None;
    while failed.is_none() {
        let (used, piece) = r.next(input);
        input = &input[used..];
        if let Some(ProtoPiece::Fail(e)) = piece {
            failed = Some(e);
        }
        assert!(used > 0 || piece.is_some(), "stuck");
    }
    let e = failed.unwrap();
    assert_eq!(e.code, Code::Capacity);
    assert!(matches!(
        e.detail,
        Detail::Proto {
            fault: ProtoFault::TooDeep,
            ..
        }
    ));
}

#[test]
fn the_pipeline_verifies_proto_frames_like_json_ones() {
    use crate::pipeline::DefaultPipeline;
    let run = event(12, 11, &[s(2, "t"), s(3, "r")]);
    let end = event(3, 2, &[s(2, "m")]);
    let bytes = cat(&[frame(&run), frame(&end)]);
    let mut p = DefaultPipeline::new();
    let mut r: ProtoFramer = ProtoFramer::new();
    let mut events = 0;
    let err = r
        .feed(&mut p, &bytes, |o| {
            events += usize::from(matches!(o, Output::Event(_)))
        })
        .unwrap_err();
    assert_eq!(events, 1);
    assert_eq!(err.frame, 1);
    assert_eq!(err.code, Code::MessageNotActive);
    // `finish` (through `Pipeline::finish_events`) answers the same error,
    // as `Pipeline::finish` does after a strict stream failed.
    assert_eq!(r.finish(&mut p, |_| {}), Err(err));

    // A stream cut inside a frame: `finish` fails it, as truncated.
    let mut p = DefaultPipeline::new();
    let mut r: ProtoFramer = ProtoFramer::new();
    r.feed(&mut p, &frame(&run), |_| {}).unwrap();
    r.feed(&mut p, &frame(&end)[..6], |_| {}).unwrap();
    let err = r.finish(&mut p, |_| {}).unwrap_err();
    assert_eq!((err.frame, err.code), (1, Code::Decode));
    assert_eq!(p.finish_events(), Err(err));

    // A whole stream: `finish` is fine, and the events were accepted.
    let mut p = DefaultPipeline::new();
    let mut r: ProtoFramer = ProtoFramer::new();
    r.feed(&mut p, &frame(&run), |_| {}).unwrap();
    assert_eq!(r.finish(&mut p, |_| {}), Ok(()));
    assert_eq!(p.accepted(), 1);
}

/// Fuzzing found it (proto_pipeline): a string that is not UTF-8 fails the
/// frame's text, then the frame's framing fails too (a bad tag after it).
/// In keep-going mode the frame has one error, the first, whatever the
/// split; the next frame is read and reported on its own.
#[test]
#[cfg(feature = "keep-going")]
fn a_frame_failing_twice_has_one_error() {
    use crate::pipeline::{DefaultPipeline, Mode};
    let mut bytes = vec![0, 0, 0, 23, 0x62, 21, 0x0a, 2, 0x08, 11, 0x12, 8];
    bytes.extend_from_slice(b"threa");
    bytes.extend_from_slice(&[0xff; 3 + 7 + 38]);
    bytes.extend_from_slice(b"d-1\x1a\x05run-0");
    for step in [bytes.len(), 1, 3, 7] {
        let mut p = DefaultPipeline::new();
        p.set_mode(Mode::KeepGoing);
        let mut r: ProtoFramer = ProtoFramer::new();
        let mut errors = Vec::new();
        for piece in bytes.chunks(step) {
            r.feed(&mut p, piece, |o| {
                if let Output::Error(e) = o {
                    errors.push(e.frame);
                }
            })
            .unwrap();
        }
        r.finish(&mut p, |o| {
            if let Output::Error(e) = o {
                errors.push(e.frame);
            }
        })
        .unwrap();
        assert_eq!(errors, [0, 1], "step {step}");
        assert_eq!(p.accepted(), 0);
    }
}

/// Fuzzing found it (proto_pipeline): a frame cut inside a varint (its
/// last tag runs past the frame's end) fails as truncated, and the next
/// frame is read from a clean start, not with the cut varint's bits.
#[test]
fn a_frame_cut_inside_a_varint_leaves_nothing_to_the_next() {
    let mut bytes = vec![0, 0, 0, 23, 0x62, 21, 0x0a, 2, 0x08, 11, 0x12, 8];
    bytes.extend_from_slice(b"threadId");
    bytes.extend_from_slice(&[0xff; 7]);
    let run = event(12, 11, &[s(2, "t"), s(3, "r")]);
    bytes.extend(frame(&run));
    assert_eq!(
        all_splits(&bytes),
        [
            Err(ProtoFault::Truncated),
            Ok(json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}))
        ]
    );
}

/// Fuzzing found it (proto_pipeline): an empty unknown field made the
/// reader hand out neither a piece nor a byte, which its callers take as
/// "the input is used up": the rest of that piece of input was lost, so
/// a whole stream lost its later frames and a split one went out of step.
#[test]
fn an_empty_unknown_field_loses_nothing() {
    let run = event(12, 11, &[s(2, "t"), ld(15, b""), s(3, "r")]);
    let end = event(3, 2, &[ld(9, b""), s(2, "m")]);
    let bytes = cat(&[frame(&run), frame(&end)]);
    assert_eq!(
        all_splits(&bytes),
        [
            Ok(json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})),
            Ok(json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}))
        ]
    );
}

/// Fuzzing found it (proto_framer): a fault's offset depended on how the
/// input was split (the bytes of a value read in the failing call were not
/// counted). It names the byte where the fault was found, for any split.
#[test]
fn a_fault_names_the_same_offset_for_every_split() {
    // RUN_STARTED, then a tag varint of 11 bytes (past 64 bits); then a
    // double (Value.number_value) cut by its message's end.
    let mut long = event(12, 11, &[s(2, "t")]);
    long.extend_from_slice(&[0xff; 10]);
    long.push(0x01);
    // STATE_SNAPSHOT (arm 7, type 6) whose snapshot Value's double has 3
    // of its 8 bytes.
    let cut = event(7, 6, &[ld(2, &[0x11, 1, 2, 3])]);
    for msg in [long, cut] {
        let bytes = frame(&msg);
        let offsets = |step: usize| {
            let mut r: ProtoFramer = ProtoFramer::new();
            let mut out = Vec::new();
            for chunk in bytes.chunks(step) {
                let mut input = chunk;
                loop {
                    let (used, piece) = r.next(input);
                    input = &input[used..];
                    match piece {
                        Some(ProtoPiece::Fail(e)) => out.push(e.detail),
                        Some(_) => {}
                        None if used == 0 => break,
                        None => {}
                    }
                }
            }
            if let Some(ProtoPiece::Fail(e)) = r.end() {
                out.push(e.detail);
            }
            out
        };
        let whole = offsets(bytes.len());
        assert_eq!(whole.len(), 1, "{whole:?}");
        for step in [1, 2, 3, 5] {
            assert_eq!(offsets(step), whole, "step {step}");
        }
    }
}

/// The packed schema reads back what its tables were written with: every
/// arm's name is its event type's, every key is a camelCase name of the
/// core's field list or the nested keys, and the packed flags are kept.
#[test]
fn the_packed_schema_reads_back() {
    use super::schema::{arm_name, Msg, ARMS};
    for (i, t) in ARMS.iter().enumerate() {
        let n = u8::try_from(i + 1).unwrap();
        assert_eq!(arm_name(n), Some(t.as_str()), "arm {n}");
    }
    assert_eq!(arm_name(0), None);
    assert_eq!(arm_name(32), None);
    let keys: Vec<(u8, &str)> = Msg::Event(2)
        .fields()
        .iter()
        .map(|f| (f.number(), f.key()))
        .collect();
    assert_eq!(keys, [(2, "messageId"), (3, "delta"), (4, "subagentRunId")]);
    for n in 1..=31 {
        assert_eq!(Msg::Event(n).field(1), Some(&super::schema::BASE_FIELD));
    }
    assert_eq!(Msg::Message.field(1).unwrap().key(), "id");
    let usage = Msg::Usage.field(8).unwrap();
    assert_eq!(usage.key(), "cacheWriteInputTokens");
    assert_eq!(Msg::Patch.field(3).unwrap().key(), "from");
    assert_eq!(Msg::FileSource.field(3).unwrap().key(), "mimeType");
    let interrupts = Msg::Event(13).field(6).unwrap();
    assert!(interrupts.repeated() && interrupts.in_outcome() && !interrupts.content());
    assert_eq!(interrupts.def(), Def::Absent);
    assert_eq!(Msg::Patch.field(1).unwrap().def(), Def::Add);
    assert!(Msg::Message.field(13).unwrap().content());
    let msgs = [
        Msg::Base,
        Msg::Message,
        Msg::ToolCall,
        Msg::Function,
        Msg::Tool,
        Msg::Context,
        Msg::Resume,
        Msg::Input,
        Msg::Interrupt,
        Msg::Usage,
        Msg::Patch,
        Msg::Content,
        Msg::TextPart,
        Msg::MediaPart,
        Msg::Source,
        Msg::DataSource,
        Msg::UrlSource,
        Msg::FileSource,
    ];
    let all = msgs.into_iter().chain((1..=31).map(Msg::Event));
    for m in all {
        let base = m.field(1).filter(|f| f.key().is_empty());
        for f in m.fields().iter().chain(base) {
            let key = f.key();
            let base = f.ty() == super::schema::Ty::Msg(Msg::Base);
            assert_eq!(key.is_empty(), base, "{m:?} field {}", f.number());
            assert!(key.bytes().all(|b| b.is_ascii_alphabetic()), "{key:?}");
            assert!(
                key.bytes().next().is_none_or(|b| b.is_ascii_lowercase()),
                "{key:?}"
            );
        }
    }
}

/// Every byte a string may hold is written as `JSON.stringify` writes it
/// (serde_json escapes the same way: the short forms, then `\u00XX` in
/// lower case), byte for byte, whatever the split.
#[test]
fn strings_are_escaped_as_json_stringify_escapes_them() {
    let delta: String = (0u8..0x80)
        .map(char::from)
        .chain("é\u{2028}".chars())
        .collect();
    let bytes = frame(&event(2, 1, &[s(2, "m"), s(3, &delta)]));
    let want = std::format!(
        "{{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":{}}}",
        serde_json::to_string(&delta).unwrap()
    );
    for step in [1, 2, 5, bytes.len()] {
        let mut r: ProtoFramer = ProtoFramer::new();
        let mut text = Vec::new();
        for chunk in bytes.chunks(step) {
            let mut input = chunk;
            loop {
                let (used, piece) = r.next(input);
                input = &input[used..];
                match piece {
                    Some(ProtoPiece::Data(d)) => text.extend_from_slice(d),
                    Some(ProtoPiece::Text(t)) => text.extend_from_slice(t.as_bytes()),
                    Some(ProtoPiece::Start | ProtoPiece::End) => {}
                    Some(ProtoPiece::Fail(e)) => panic!("{e:?}"),
                    None if used == 0 => break,
                    None => {}
                }
            }
        }
        assert_eq!(String::from_utf8_lossy(&text), want, "step {step}");
    }
}

/// The roles the reader decides a message's content on are the JSON
/// schema's, at the indices it names.
#[test]
fn message_roles_are_the_json_schemas() {
    use crate::decode::shapes::{message_role, ROLE_ACTIVITY, ROLE_TOOL, ROLE_USER};
    assert_eq!(message_role(b"user"), Some(ROLE_USER));
    assert_eq!(message_role(b"tool"), Some(ROLE_TOOL));
    assert_eq!(message_role(b"activity"), Some(ROLE_ACTIVITY));
    for role in ["developer", "system", "assistant", "reasoning"] {
        let i = message_role(role.as_bytes()).unwrap();
        assert!(
            ![ROLE_USER, ROLE_TOOL, ROLE_ACTIVITY].contains(&i),
            "{role}"
        );
    }
    assert_eq!(message_role(b"users"), None);
    assert_eq!(message_role(b""), None);
}

/// The reader names patch operations from the JSON schema's list, which is
/// `JsonPatchOperationType`'s order.
#[test]
fn patch_ops_are_the_enums() {
    for (i, name) in super::schema::OPS.iter().enumerate() {
        assert_eq!(crate::decode::shapes::patch_op(i), Some(*name));
    }
    assert_eq!(crate::decode::shapes::patch_op(6), None);
}
