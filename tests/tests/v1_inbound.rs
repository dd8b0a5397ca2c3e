//! `agui_alloc::v1::Inbound` against the AG-UI 1.0 vectors
//! (`tests/vectors/v1/*.jsonl`, made by the 1.0 reference client).
//!
//! Every frame of every vector goes through one `Inbound` per stream, in
//! order, up to the vector's error frame (the reference processes nothing
//! after it). Checked per vector:
//!
//! 1. warnings: every `compat` and `enforce` warning of the vector is
//!    produced at the same frame with the same code and fields
//!    (`from`/`to`, `type`, `path`), and no others (per frame, as a
//!    multiset: serde_json's objects are sorted by key, the reference walks
//!    keys in insertion order, so two removals of one frame may come in
//!    another order; the exact-order count is reported too);
//! 2. a `decode` error at frame i: processing frame i fails;
//! 3. otherwise no frame fails (frames up to a `transform` or `verify`
//!    error frame included: they passed decoding in the reference).
//!
//! The reference's decode texts are compared too, and reported (not
//! required).
//!
//! Numbers: the reference reads every literal correctly rounded
//! (JavaScript); serde_json's default parser (without its `float_roundtrip`
//! feature) does not always (`9007199254740991.4` becomes 2^53). A vector
//! that fails only because of such a literal is run again with the literal
//! read correctly rounded, and listed as MISREAD when it then passes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use agui_alloc::v1::{Inbound, InboundWarning, InboundWarningKind};
use serde_json::{json, Value};

const FILES: &[(&str, &str)] = &[
    (
        "generated.jsonl",
        include_str!("../vectors/v1/generated.jsonl"),
    ),
    (
        "handmade.jsonl",
        include_str!("../vectors/v1/handmade.jsonl"),
    ),
    (
        "python-sdk.jsonl",
        include_str!("../vectors/v1/python-sdk.jsonl"),
    ),
    // Edge cases the vectors do not reach (own-name keys, cascades, patch
    // ops, binary duplicates, nulls where the boundary throws, issue lists):
    // the streams are `v1_edge/gen.py`'s, the expectations the 1.0 reference
    // client's (`node tools/oracle/run.mjs --protocol 1.0`).
    (
        "v1_edge/expected.jsonl",
        include_str!("v1_edge/expected.jsonl"),
    ),
];

/// A warning as the vectors record it (stage, code and the code's fields).
fn record(w: &InboundWarning) -> Value {
    let mut r = json!({"index": w.frame, "stage": w.stage().as_str(), "code": w.code()});
    let extra = match &w.kind {
        InboundWarningKind::Converted { from, to } => json!({"from": from, "to": to}),
        InboundWarningKind::UnknownEvent { event_type } => json!({"type": event_type}),
        InboundWarningKind::Stripped { event_type, path } => {
            json!({"type": event_type, "path": path})
        }
        InboundWarningKind::DroppedTitle
        | InboundWarningKind::MintedId { .. }
        | InboundWarningKind::BinaryUnconvertible => json!({}),
    };
    for (k, v) in extra.as_object().unwrap() {
        r[k] = v.clone();
    }
    r
}

/// The expected record: the vector's warning with only the compared keys.
fn expected_record(w: &Value) -> Value {
    let mut r = json!({});
    for key in ["index", "stage", "code", "from", "to", "type", "path"] {
        if let Some(v) = w.get(key) {
            r[key] = v.clone();
        }
    }
    r
}

fn by_frame(records: &[Value]) -> BTreeMap<u64, Vec<String>> {
    let mut map: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for r in records {
        map.entry(r["index"].as_u64().unwrap())
            .or_default()
            .push(r.to_string());
    }
    for v in map.values_mut() {
        v.sort();
    }
    map
}

/// The non-integer number literals of `line` that serde_json's default
/// parser (without its `float_roundtrip` feature) does not round correctly:
/// `(literal, serde_json's value, the correctly rounded value)`. The
/// reference reads every literal correctly rounded (JavaScript), so a frame
/// holding one of these is not the same input for the two.
fn misrounded(line: &str) -> Vec<(String, f64, f64)> {
    let bytes = line.as_bytes();
    let mut found = Vec::new();
    let mut prev = b' ';
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if (b.is_ascii_digit() || b == b'-') && matches!(prev, b':' | b',' | b'[') {
            let start = i;
            while i < bytes.len()
                && matches!(bytes[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
            {
                i += 1;
            }
            let lit = &line[start..i];
            if lit.contains(['.', 'e', 'E']) {
                if let (Ok(ours), Ok(exact)) =
                    (serde_json::from_str::<f64>(lit), lit.parse::<f64>())
                {
                    if ours != exact {
                        found.push((lit.to_owned(), ours, exact));
                    }
                }
            }
            prev = b'0';
            continue;
        }
        if !b.is_ascii_whitespace() {
            prev = b;
        }
        i += 1;
    }
    found
}

/// `v` with every number equal to a misrounded reading replaced by the
/// correctly rounded one (what the reference's parser read).
fn read_correctly_rounded(v: &mut Value, fixes: &[(String, f64, f64)]) {
    match v {
        Value::Number(n) => {
            if let Some((_, _, exact)) = fixes.iter().find(|(_, ours, _)| n.as_f64() == Some(*ours))
            {
                *v = Value::from(*exact);
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|i| read_correctly_rounded(i, fixes)),
        Value::Object(map) => map
            .values_mut()
            .for_each(|i| read_correctly_rounded(i, fixes)),
        Value::Null | Value::Bool(_) | Value::String(_) => {}
    }
}

#[derive(Default)]
struct Tally {
    vectors: usize,
    warnings_ok: usize,
    warnings_exact_order: usize,
    decode_errors: usize,
    decode_errors_ok: usize,
    decode_texts_same: usize,
    clean: usize,
    clean_ok: usize,
    failures: Vec<String>,
    /// Vectors that fail only because serde_json's default float parser
    /// reads a literal differently from the reference, and pass once the
    /// literal is read correctly rounded.
    misread: Vec<String>,
}

/// What one vector gave.
#[derive(Default)]
struct Outcome {
    problems: Vec<String>,
    warnings_ok: bool,
    warnings_exact_order: bool,
    /// The expected decode error's frame failed.
    decode_ok: Option<bool>,
    decode_text_same: bool,
}

#[test]
fn v1_inbound_matches_the_reference() {
    let mut failures = 0;
    for (file, text) in FILES {
        let t = run_file(file, text);
        for f in &t.failures {
            eprintln!("FAIL {f}");
        }
        for s in &t.misread {
            eprintln!("MISREAD {s}");
        }
        eprintln!(
            "{file}: {} vectors; warnings {}/{} (same order {}); decode errors {}/{} (same text {}); \
             no decode error {}/{}; {} of them only after reading a literal correctly rounded (listed)",
            t.vectors,
            t.warnings_ok,
            t.vectors,
            t.warnings_exact_order,
            t.decode_errors_ok,
            t.decode_errors,
            t.decode_texts_same,
            t.clean_ok,
            t.clean,
            t.misread.len()
        );
        failures += t.failures.len();
    }
    assert_eq!(failures, 0, "{failures} vectors differ");
}

/// Runs the frames of one vector through a fresh [`Inbound`] up to its
/// error frame and compares with its expectations.
fn run_vector(name: &str, events: &[Value], expect: &Value) -> Outcome {
    let mut o = Outcome::default();
    let error = &expect["error"];
    let (stop, decode_at) = match error.get("index").and_then(Value::as_u64) {
        Some(i) => (
            i as usize,
            (error["kind"] == "decode").then_some(i as usize),
        ),
        None => (events.len().saturating_sub(1), None),
    };
    let mut inbound = Inbound::new();
    let mut warnings = Vec::new();
    let mut failed_at = None;
    for (i, ev) in events.iter().enumerate().take(stop + 1) {
        match inbound.process(i, ev.clone(), &mut warnings) {
            Ok(_) => {
                if decode_at == Some(i) {
                    o.problems.push(format!(
                        "frame {i}: accepted, the reference failed: {}",
                        error["message"]
                    ));
                }
            }
            Err(e) => {
                failed_at = Some(i);
                if decode_at == Some(i) {
                    o.decode_text_same = e.to_string() == error["message"].as_str().unwrap_or("");
                    if !o.decode_text_same {
                        eprintln!(
                            "text differs {name}: ours {:?}, reference {}",
                            e.to_string(),
                            error["message"]
                        );
                    }
                } else {
                    o.problems
                        .push(format!("frame {i}: failed ({e}), the reference did not"));
                }
                break;
            }
        }
    }
    o.decode_ok = decode_at.map(|at| failed_at == Some(at));

    let ours: Vec<Value> = warnings.iter().map(record).collect();
    let theirs: Vec<Value> = expect["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["stage"] == "compat" || w["stage"] == "enforce")
        .map(expected_record)
        .collect();
    o.warnings_ok = by_frame(&ours) == by_frame(&theirs);
    o.warnings_exact_order = ours == theirs;
    if !o.warnings_ok {
        o.problems.push(format!(
            "warnings differ:\n    ours   {}\n    theirs {}",
            Value::from(ours),
            Value::from(theirs)
        ));
    }
    o
}

fn run_file(file: &str, text: &str) -> Tally {
    let mut t = Tally::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).expect("vector line is JSON");
        let name = format!("{file}:{}", v["name"].as_str().unwrap());
        let events = v["events"].as_array().unwrap();
        let mut o = run_vector(&name, events, &v["expect"]);
        if !o.problems.is_empty() {
            let bad = misrounded(line);
            if !bad.is_empty() {
                // The value serde_json handed over is not the one the
                // reference judged: read the literal as the reference does
                // and try again.
                let mut fixed = events.clone();
                fixed
                    .iter_mut()
                    .for_each(|e| read_correctly_rounded(e, &bad));
                let again = run_vector(&name, &fixed, &v["expect"]);
                if again.problems.is_empty() {
                    t.misread.push(format!(
                        "{name}: serde_json's default float parsing reads {}; with the \
                         correctly rounded value it passes (default parse: {})",
                        bad.iter()
                            .map(|(lit, ours, exact)| format!("{lit} as {ours:?}, not {exact:?}"))
                            .collect::<Vec<_>>()
                            .join(", "),
                        o.problems.join("; ")
                    ));
                    o = again;
                }
            }
        }
        t.vectors += 1;
        t.warnings_ok += usize::from(o.warnings_ok);
        t.warnings_exact_order += usize::from(o.warnings_ok && o.warnings_exact_order);
        match o.decode_ok {
            Some(ok) => {
                t.decode_errors += 1;
                t.decode_errors_ok += usize::from(ok);
                t.decode_texts_same += usize::from(o.decode_text_same);
            }
            None => {
                t.clean += 1;
                t.clean_ok += usize::from(!o.problems.iter().any(|p| p.starts_with("frame")));
            }
        }
        if !o.problems.is_empty() {
            t.failures
                .push(format!("{name}: {}", o.problems.join("; ")));
        }
    }
    t
}

/// JSON equality with numbers compared by value (`1` and `1.0` are equal,
/// as in JavaScript).
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_eq(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Differential check against the reference on any streams: the file named
/// by `AGUI_V1_REF` is the output of `v1_edge/enforced.mjs` (the reference's
/// frame check, compatibility boundary and enforcement, with the events it
/// passes on per frame). For every stream: the warnings, the decode error
/// (frame and text) and every frame's events must be the reference's.
/// Ignored by default (it needs the reference bundle and a stream file);
/// `v1_edge/mutate.py` makes mutated streams from the vectors.
#[test]
#[ignore]
fn differential() {
    let Ok(source) = std::env::var("AGUI_V1_REF") else {
        eprintln!("AGUI_V1_REF not set: nothing to compare");
        return;
    };
    let text = std::fs::read_to_string(source).unwrap();
    let (mut streams, mut same, mut texts, mut misread) = (0, 0, 0, 0);
    let mut differ = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        let name = v["name"].as_str().unwrap().to_owned();
        streams += 1;
        let bad = misrounded(line);
        let mut events = v["events"].as_array().unwrap().clone();
        if !bad.is_empty() {
            misread += 1;
            events
                .iter_mut()
                .for_each(|e| read_correctly_rounded(e, &bad));
        }
        let o = run_vector(&name, &events, &v["expect"]);
        let mut problems = o.problems;
        if o.decode_ok == Some(true) && !o.decode_text_same {
            problems.push("decode text differs".into());
        }
        texts += usize::from(o.decode_text_same);
        // The events passed on, frame by frame.
        let mut inbound = Inbound::new();
        for (i, want) in v["frames"].as_array().unwrap().iter().enumerate() {
            let got = match inbound.process(i, events[i].clone(), &mut Vec::new()) {
                Ok(e) => Value::from(e.into_iter().collect::<Vec<_>>()),
                Err(_) => break,
            };
            if !json_eq(&got, want) {
                problems.push(format!(
                    "frame {i}: events differ:\n    ours   {got}\n    theirs {want}"
                ));
                break;
            }
        }
        if problems.is_empty() {
            same += 1;
        } else {
            differ.push(format!("{name}: {}", problems.join("; ")));
        }
    }
    for d in &differ {
        eprintln!("DIFF {d}");
    }
    eprintln!(
        "differential: {same}/{streams} streams agree (warnings, errors, events); \
         decode texts identical {texts}; {misread} streams with a literal read correctly rounded"
    );
    assert!(differ.is_empty());
}
