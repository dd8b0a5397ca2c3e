//! The 1.0 rules are held twice: the core checks a frame's nested values
//! as their tokens stream past (its shape tables), and `agui_alloc::v1`
//! walks the parsed value against its own tables, to word its issues as
//! the reference does (the event types and their top-level fields are the
//! core's table for both). This test proves that the two agree, over every
//! event type of [`EventType::ALL`] that 1.0 knows: for a full event of each
//! type (every key of every described object, each union member in turn)
//! and for every change of one position of it (removed, replaced by a value
//! of every JSON kind, an unknown key added), the core's decoder and
//! `Inbound::process` accept, drop or reject alike, and strip the same
//! paths. A key, a requirement or a member changed on one side only fails
//! it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use agui_alloc::v1::schema::{event_fields, event_type, FieldShape, ObjectShape, Shape};
use agui_alloc::v1::{Inbound, InboundWarningKind};
use agui_core::decode::{Decoder, V1};
use agui_core::event::EventType;
use agui_core::warn::WarnCode;
use serde_json::{json, Map, Value};

/// What one side made of a frame: accepted, dropped or rejected, and the
/// paths it stripped (sorted).
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    verdict: &'static str,
    stripped: Vec<String>,
}

fn core_outcome(frame: &[u8]) -> Outcome {
    let mut dec: Box<Decoder<64, 32, V1<64>>> = Box::default();
    dec.set_v1_checks(true);
    dec.begin_frame();
    let mut input = frame;
    while !input.is_empty() {
        match dec.feed(input) {
            Ok((used, _)) => input = &input[used..],
            Err(_) => return outcome("rejected", Vec::new()),
        }
    }
    let mut stripped = Vec::new();
    let result = dec.end_frame_v1(&mut |w| {
        if w.code == WarnCode::Stripped {
            stripped.push(String::from(w.text.as_str()));
        }
    });
    match result {
        Ok(Some(_)) => outcome("accepted", stripped),
        Ok(None) => outcome("dropped", stripped),
        Err(_) => outcome("rejected", Vec::new()),
    }
}

fn alloc_outcome(value: Value) -> Outcome {
    let mut warnings = Vec::new();
    let result = Inbound::new().process(0, value, &mut warnings);
    let stripped = warnings
        .into_iter()
        .filter_map(|w| match w.kind {
            InboundWarningKind::Stripped { path, .. } => Some(path),
            InboundWarningKind::Converted { .. }
            | InboundWarningKind::DroppedTitle
            | InboundWarningKind::MintedId { .. }
            | InboundWarningKind::BinaryUnconvertible
            | InboundWarningKind::UnknownEvent { .. } => None,
        })
        .collect();
    match result {
        Ok(Some(_)) => outcome("accepted", stripped),
        Ok(None) => outcome("dropped", stripped),
        Err(_) => outcome("rejected", Vec::new()),
    }
}

fn outcome(verdict: &'static str, mut stripped: Vec<String>) -> Outcome {
    stripped.sort();
    Outcome { verdict, stripped }
}

/// A valid value of `shape` with every key its objects describe; `choice`
/// picks the member of a union met outside an array (inside one, an
/// element per member).
fn sample(shape: &Shape, choice: usize) -> Value {
    match shape {
        Shape::String => json!("s"),
        Shape::Pointer => json!("/a"),
        Shape::Literal(v) => json!(v),
        Shape::OneOf(values) => json!(values[choice % values.len()]),
        Shape::Boolean => json!(true),
        Shape::Integer(_) => json!(1),
        Shape::Json | Shape::JsonNotNull | Shape::JsonObject => json!({"j": 1}),
        Shape::Object(o) => object(o, choice),
        Shape::Array {
            of: Shape::Union(u),
            ..
        } => Value::Array(u.members.iter().map(|m| object(m, choice)).collect()),
        Shape::Array { of, .. } => json!([sample(of, choice)]),
        Shape::Union(u) => object(u.members[choice % u.members.len()], choice),
        Shape::StringOr(of) => sample(&Shape::Array { of, min: 0 }, choice),
    }
}

fn object(o: &ObjectShape<'_>, choice: usize) -> Value {
    Value::Object(fields(o.fields(), choice))
}

fn fields<'a>(fields: impl Iterator<Item = &'a FieldShape>, choice: usize) -> Map<String, Value> {
    fields
        .map(|f| (String::from(f.name), sample(&f.shape, choice)))
        .collect()
}

/// Values of every JSON kind, and the edges 1.0 judges.
fn probes() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(9_007_199_254_740_993u64),
        json!(""),
        json!("s"),
        json!("/a~2"),
        json!([]),
        json!([1]),
        json!({}),
        json!({"zz": 1}),
    ]
}

/// Every variant of `event` with one position changed, with what changed.
fn variants(event: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut pointers = Vec::new();
    positions(event, String::new(), &mut pointers);
    for pointer in pointers {
        if pointer.is_empty() {
            continue;
        }
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        let mut removed = event.clone();
        match removed.pointer_mut(parent).unwrap() {
            Value::Object(map) => {
                map.remove(key);
            }
            Value::Array(items) => {
                items.remove(key.parse::<usize>().unwrap());
            }
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => unreachable!(),
        }
        out.push((format!("{pointer} removed"), removed));
        for probe in probes() {
            let mut changed = event.clone();
            let label = format!("{pointer} = {probe}");
            *changed.pointer_mut(&pointer).unwrap() = probe;
            out.push((label, changed));
        }
    }
    // An unknown key in every object.
    let mut objects = Vec::new();
    positions(event, String::new(), &mut objects);
    for pointer in objects {
        let mut added = event.clone();
        if let Some(Value::Object(map)) = added.pointer_mut(&pointer) {
            map.insert(String::from("zz"), json!(1));
            out.push((format!("{pointer}/zz added"), added));
        }
    }
    out
}

/// The JSON Pointer of every value inside `value`, itself included.
fn positions(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                positions(v, format!("{at}/{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                positions(v, format!("{at}/{i}"), out);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
    out.push(at);
}

#[test]
fn the_core_and_the_alloc_layer_judge_every_1_0_event_alike() {
    let mut shapes = Vec::new();
    let mut checked = 0usize;
    let mut disagreements = Vec::new();
    for kind in EventType::ALL {
        if event_type(kind.as_str()).is_none() {
            continue;
        }
        event_fields(*kind, &mut shapes);
        let mut events: Vec<Value> = Vec::new();
        for choice in 0..3 {
            let mut event = Value::Object(fields(shapes.iter(), choice));
            event["type"] = json!(kind.as_str());
            if !events.contains(&event) {
                events.push(event);
            }
        }
        for event in events {
            let mut frames = variants(&event);
            frames.push((String::from("as made"), event));
            for (label, frame) in frames {
                let text = serde_json::to_vec(&frame).unwrap();
                let core = core_outcome(&text);
                let alloc = alloc_outcome(frame);
                checked += 1;
                if core != alloc {
                    disagreements.push(format!("{kind} {label}: core {core:?}, alloc {alloc:?}"));
                }
            }
        }
    }
    // Known: a text part's `metadata: null` inside messages. SPEC 9.3
    // makes it absent on media parts only (9.5: "any JSON except null"),
    // as this crate does; the core's shapes hold one shape per key of a
    // union, so its text parts take the media parts' legacy null. Listed
    // so that a fix on either side shows here.
    let known = |d: &String| d.contains("/content/0/metadata = null: core");
    let known_count = disagreements.iter().filter(|d| known(d)).count();
    assert!(
        known_count > 0,
        "the known case is gone: take it out of this test"
    );
    disagreements.retain(|d| !known(d));
    assert!(checked > 10_000, "{checked}");
    assert!(
        disagreements.is_empty(),
        "{} of {checked} frames judged differently, e.g.:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}
