//! `agui_alloc::v1::Inbound` on arbitrary input: it never panics, and what
//! it passes on is a fixed point (processing it again changes nothing and
//! warns about nothing).
//!
//! The values are built from the schema's own vocabulary (every key, tag
//! and enumeration value of `agui_alloc::v1::schema`, the retired
//! `THINKING_*` types, `binary` parts, pointers, integers at the edges of
//! the safe range) so that the walks reach deep described positions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

use agui_alloc::v1::schema::{event_fields, event_type, ObjectShape, Shape};
use agui_alloc::v1::Inbound;
use agui_core::event::EventType;
use proptest::prelude::*;
use serde_json::{Map, Value};

fn collect_shape(shape: &Shape, words: &mut BTreeSet<&'static str>) {
    match shape {
        Shape::Literal(v) => {
            words.insert(v);
        }
        Shape::OneOf(vs) => words.extend(vs.iter().copied()),
        Shape::Object(o) => collect_object(o, words),
        Shape::Array { of, .. } | Shape::StringOr(of) => collect_shape(of, words),
        Shape::Union(u) => {
            for m in u.members {
                collect_object(m, words);
            }
        }
        Shape::String
        | Shape::Pointer
        | Shape::Boolean
        | Shape::Integer(_)
        | Shape::Json
        | Shape::JsonNotNull
        | Shape::JsonObject => {}
    }
}

fn collect_object(object: &ObjectShape<'_>, words: &mut BTreeSet<&'static str>) {
    for f in object.fields() {
        words.insert(f.name);
        collect_shape(&f.shape, words);
    }
}

/// Keys and strings: the schema's, the retired ones, a few unknown ones.
fn vocabulary() -> Vec<&'static str> {
    let mut words = BTreeSet::new();
    let mut fields = Vec::new();
    for kind in EventType::ALL {
        if event_type(kind.as_str()).is_some() {
            words.insert(kind.as_str());
            event_fields(*kind, &mut fields);
            for f in &fields {
                words.insert(f.name);
                collect_shape(&f.shape, &mut words);
            }
        }
    }
    words.extend([
        "THINKING_START",
        "THINKING_END",
        "THINKING_TEXT_MESSAGE_START",
        "THINKING_TEXT_MESSAGE_CONTENT",
        "THINKING_TEXT_MESSAGE_END",
        "title",
        "binary",
        "data",
        "url",
        "filename",
        "image/png",
        "text/plain",
        "/a",
        "/a~2",
        "",
        "toString",
        "future",
        "0",
    ]);
    words.into_iter().collect()
}

fn word() -> impl Strategy<Value = String> {
    let words = vocabulary();
    prop::sample::select(words).prop_map(String::from)
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        prop_oneof![
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            Just(Value::from(9_007_199_254_740_991u64)),
            Just(Value::from(9_007_199_254_740_992u64)),
            Just(Value::from(-9_007_199_254_740_992i64)),
            Just(Value::from(1.5)),
            Just(Value::from(1e300)),
            Just(Value::from(-0.0)),
        ],
        word().prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(6, 96, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((word(), inner), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A frame: usually an object with a known (or retired, or unknown) type.
fn frame() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => value(),
        6 => (word(), prop::collection::vec((word(), value()), 0..8)).prop_map(|(ty, kv)| {
            let mut map: Map<String, Value> = kv.into_iter().collect();
            map.insert("type".into(), Value::String(ty));
            Value::Object(map)
        }),
    ]
}

/// One frame of a vector (the valid material the mutations start from).
fn vector_frames() -> Vec<Value> {
    let mut frames = Vec::new();
    for text in [
        include_str!("../vectors/v1/handmade.jsonl"),
        include_str!("../vectors/v1/python-sdk.jsonl"),
    ] {
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(line).unwrap();
            frames.extend(v["events"].as_array().unwrap().iter().cloned());
        }
    }
    frames
}

/// Walks down `v` choosing children by `steps`, then puts `new` there: as
/// a new or replaced key of an object, or in place of an array element or
/// a leaf.
fn mutate(v: &mut Value, steps: &[usize], key: &str, new: Value) {
    match v {
        Value::Object(map) if !map.is_empty() && !steps.is_empty() => {
            let k = map.keys().nth(steps[0] % map.len()).unwrap().clone();
            mutate(map.get_mut(&k).unwrap(), &steps[1..], key, new);
        }
        Value::Object(map) => {
            map.insert(key.to_owned(), new);
        }
        Value::Array(items) if !items.is_empty() && !steps.is_empty() => {
            let n = items.len();
            mutate(&mut items[steps[0] % n], &steps[1..], key, new);
        }
        other => *other = new,
    }
}

#[test]
fn mutated_vector_frames() {
    use proptest::test_runner::{Config, TestRunner};
    let frames = vector_frames();
    let n = frames.len();
    let strategy = (
        0..n,
        prop::collection::vec(any::<usize>(), 0..7),
        word(),
        prop_oneof![leaf(), value()],
    );
    let mut runner = TestRunner::new(Config {
        cases: 3000,
        failure_persistence: None,
        ..Config::default()
    });
    let passed = std::cell::Cell::new(0usize);
    runner
        .run(&strategy, |(i, steps, key, new)| {
            let mut f = frames[i].clone();
            mutate(&mut f, &steps, &key, new);
            let mut warnings = Vec::new();
            if let Ok(Some(event)) = Inbound::new().process(0, f, &mut warnings) {
                passed.set(passed.get() + 1);
                let mut again = Vec::new();
                let second = Inbound::new().process(0, event.clone(), &mut again);
                prop_assert_eq!(second, Ok(Some(event)));
                prop_assert!(again.is_empty(), "second pass warned: {:?}", again);
            }
            Ok(())
        })
        .unwrap();
    eprintln!("mutated frames passed on: {} of 3000", passed.get());
    assert!(
        passed.get() > 300,
        "too few mutations survive to test the fixed point"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_and_passes_on_a_fixed_point(frames in prop::collection::vec(frame(), 1..6)) {
        let mut inbound = Inbound::new();
        for (i, f) in frames.into_iter().enumerate() {
            let mut warnings = Vec::new();
            let Ok(out) = inbound.process(i, f, &mut warnings) else { break };
            if let Some(event) = out {
                let mut again = Vec::new();
                let second = Inbound::new().process(0, event.clone(), &mut again);
                prop_assert_eq!(second, Ok(Some(event)));
                prop_assert!(again.is_empty(), "second pass warned: {:?}", again);
            }
        }
    }
}

/// A snapshot of `n` messages, each with an unknown key, a part whose
/// source has an unknown type (a cascade), a legacy binary part and its
/// modern twin (a duplicate), and an unknown role every fourth message.
fn big_snapshot(n: usize) -> Value {
    let messages: Vec<Value> = (0..n)
        .map(|i| {
            serde_json::json!({
                "id": format!("m{i}"),
                "role": if i % 4 == 3 { "wizard" } else { "user" },
                "extra": i,
                "content": [
                    {"type": "text", "text": "hello", "x": 1},
                    {"type": "image", "source": {"type": "future", "value": "v"}},
                    {"type": "binary", "mimeType": "image/png", "data": format!("d{i}")},
                    {"type": "image", "source": {"type": "data", "value": format!("d{i}"), "mimeType": "image/png"}},
                ],
            })
        })
        .collect();
    serde_json::json!({"type": "MESSAGES_SNAPSHOT", "messages": messages})
}

/// One user message with `n` legacy binary parts and their `n` modern twins
/// (the duplicate check of SPEC 9.3 within one message).
fn big_message(n: usize) -> Value {
    let mut parts: Vec<Value> = (0..n)
        .map(|i| serde_json::json!({"type": "binary", "mimeType": "audio/wav", "url": format!("u{i}"), "filename": "f"}))
        .collect();
    parts.extend((0..n).map(|i| {
        serde_json::json!({"type": "audio", "source": {"type": "url", "value": format!("u{i}"), "mimeType": "audio/wav"}, "metadata": {"filename": "f"}})
    }));
    serde_json::json!({"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "m", "role": "user", "content": parts}]})
}

/// A frame of size `n`, and how many warnings it must produce.
type Scenario = (fn(usize) -> Value, fn(usize) -> usize);

/// Cost against size: the time for 4n messages over the time for n (about
/// 4 when the cost is linear). Timing, so ignored by default:
/// `cargo test -p agui-tests --release --test v1_robustness -- --ignored --nocapture`.
#[test]
#[ignore]
fn cost_grows_linearly() {
    use std::time::Instant;
    let time = |n: usize, make: fn(usize) -> Value, warned: fn(usize) -> usize| {
        let frame = make(n);
        let mut best = f64::MAX;
        for _ in 0..5 {
            let f = frame.clone();
            let mut warnings = Vec::new();
            let start = Instant::now();
            let out = Inbound::new().process(0, f, &mut warnings);
            best = best.min(start.elapsed().as_secs_f64());
            assert!(out.is_ok());
            assert_eq!(warnings.len(), warned(n));
        }
        best
    };
    let snapshot: Scenario = (big_snapshot, |n| n + n / 4 + (n - n / 4) * 3);
    let message: Scenario = (big_message, |_| 1);
    for (what, (make, warned)) in [("messages", snapshot), ("binary parts", message)] {
        for n in [2_000, 8_000, 32_000] {
            let (t1, t4) = (time(n, make, warned), time(4 * n, make, warned));
            eprintln!(
                "{n} {what}: {:.2} ms, {}: {:.2} ms, ratio {:.2}",
                t1 * 1e3,
                4 * n,
                t4 * 1e3,
                t4 / t1
            );
        }
    }
}

/// Throughput on the generated vectors' frames (parsing excluded), for the
/// record. Timing, so ignored by default:
/// `cargo test -p agui-tests --release --test v1_robustness throughput -- --ignored --nocapture`.
#[test]
#[ignore]
fn throughput() {
    use std::time::Instant;
    let text = include_str!("../vectors/v1/generated.jsonl");
    let streams: Vec<Vec<Value>> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["events"].as_array().unwrap().clone()
        })
        .collect();
    let frames: usize = streams.iter().map(Vec::len).sum();
    let bytes: usize = streams.iter().flatten().map(|e| e.to_string().len()).sum();
    let run = |process: bool| {
        let mut best = f64::MAX;
        for _ in 0..7 {
            let copy = streams.clone();
            let start = Instant::now();
            for stream in copy {
                let mut inbound = Inbound::new();
                let mut warnings = Vec::new();
                for (i, e) in stream.into_iter().enumerate() {
                    // A consumer handles a frame's warnings with the frame.
                    warnings.clear();
                    if !process {
                        drop(e);
                    } else if inbound.process(i, e, &mut warnings).is_err() {
                        break;
                    }
                }
            }
            best = best.min(start.elapsed().as_secs_f64());
        }
        best
    };
    let (all, drop_only) = (run(true), run(false));
    let own = all - drop_only;
    eprintln!(
        "{frames} frames, {bytes} bytes of JSON: {:.1} ms ({:.1} ms of it dropping the values), \
         Inbound's own {:.0} ns/frame, {:.1} ns/byte",
        all * 1e3,
        drop_only * 1e3,
        own * 1e9 / frames as f64,
        own * 1e9 / bytes as f64
    );
}
