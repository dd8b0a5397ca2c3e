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

use agui_alloc::v1::schema::{Object, Shape, EVENTS};
use agui_alloc::v1::Inbound;
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

fn collect_object(object: &Object, words: &mut BTreeSet<&'static str>) {
    for f in object.fields() {
        words.insert(f.name);
        collect_shape(&f.shape, words);
    }
}

/// Keys and strings: the schema's, the retired ones, a few unknown ones.
fn vocabulary() -> Vec<&'static str> {
    let mut words = BTreeSet::new();
    for e in EVENTS {
        words.insert(e.name);
        collect_object(&e.object, &mut words);
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
