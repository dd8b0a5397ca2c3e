//! The gateway's protobuf encoder (`agui_examples::proto_encode`) against
//! the reference's encodings: every event of the public conformance streams
//! that `@ag-ui/proto` 1.0.0 encoded (tests/vectors/proto/) is encoded with
//! ours and read back with the core's reader (`ProtoFramer`); it must read
//! as the same JSON value as the reference's bytes for it do, in as many
//! bytes. The bytes themselves differ only where a `Struct` has two or more
//! keys (the reference writes them in the object's order, serde_json
//! sorted): the count of byte-identical frames is printed.

use agui_core::proto::{ProtoFramer, ProtoPiece};
use agui_examples::proto_encode::{encode_frame, EncodeError};
use serde_json::Value;
use std::collections::HashMap;

const PROTO_STREAMS: &str = include_str!("../../tests/vectors/proto/streams.jsonl");
const TEXT_STREAMS: &str = include_str!("../../tests/vectors/streams.jsonl");

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// The frames of a length-prefixed stream (with their prefixes).
fn frames(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 4 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let end = (at + 4 + len).min(bytes.len());
        out.push(&bytes[at..end]);
        at = end;
    }
    out
}

/// What the core's reader makes of one frame: its JSON value, or why not.
fn read(frame: &[u8]) -> Result<Value, String> {
    let mut framer: ProtoFramer = ProtoFramer::new();
    let mut text = Vec::new();
    let mut input = frame;
    loop {
        let (used, piece) = framer.next(input);
        input = &input[used..];
        match piece {
            Some(ProtoPiece::Start) => {}
            Some(ProtoPiece::Data(d)) => text.extend_from_slice(d),
            Some(ProtoPiece::Text(t)) => text.extend_from_slice(t.as_bytes()),
            Some(ProtoPiece::End) => break,
            Some(ProtoPiece::Fail(e)) => return Err(format!("{e}")),
            None if used == 0 => return Err("frame cut short".into()),
            None => {}
        }
    }
    serde_json::from_slice(&text).map_err(|e| format!("{e}: {}", String::from_utf8_lossy(&text)))
}

/// `v` with every string `"undefined"` made `""`: the reference's encoder
/// writes a missing proto3 string as JavaScript's `String(undefined)`
/// (e.g. a `remove` patch without `path`), ours leaves it out, which reads
/// as `""`.
fn js_undefined_as_empty(v: &mut Value) -> bool {
    match v {
        Value::String(s) if s == "undefined" => {
            s.clear();
            true
        }
        Value::Object(m) => m
            .values_mut()
            .fold(false, |any, x| js_undefined_as_empty(x) | any),
        Value::Array(a) => a
            .iter_mut()
            .fold(false, |any, x| js_undefined_as_empty(x) | any),
        _ => false,
    }
}

#[test]
fn our_encoding_reads_as_the_references() {
    let text: HashMap<String, Value> = TEXT_STREAMS
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["name"].as_str().unwrap().to_owned(), v)
        })
        .collect();
    let (mut events, mut same_bytes, mut comparable, mut no_arm, mut js_fixed) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for line in PROTO_STREAMS.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        let name = v["name"].as_str().unwrap();
        let reference = hex(v["proto"].as_str().unwrap());
        let json_events = text[name]["events"].as_array().unwrap();
        let ref_frames = frames(&reference);
        // Only the events the reference accepted: the gateway relays no
        // other (a schema-breaking event is encoded by the reference with
        // JavaScript's "undefined" strings, not something to compare with).
        let accepted = text[name]["expect"]["error"]["index"]
            .as_u64()
            .map_or(json_events.len(), |i| i as usize);
        for (i, event) in json_events.iter().enumerate().take(accepted) {
            let ours = match encode_frame(event) {
                Ok(ours) => ours,
                Err(EncodeError::NoArm(_)) => {
                    // Only past the reference's own cut (it cannot encode it either).
                    if i < ref_frames.len() {
                        failures.push(format!(
                            "{name} event {i}: no arm, but the reference encoded it"
                        ));
                    }
                    no_arm += 1;
                    break;
                }
                Err(e) => {
                    if i < ref_frames.len() {
                        failures.push(format!("{name} event {i}: {e}"));
                    }
                    break;
                }
            };
            let Some(theirs) = ref_frames.get(i) else {
                break;
            };
            events += 1;
            let mut want = read(theirs);
            let got = read(&ours);
            let mut undefined = false;
            if let (Ok(w), false) = (&mut want, event.to_string().contains("undefined")) {
                undefined = js_undefined_as_empty(w);
            }
            js_fixed += usize::from(undefined);
            match (&want, &got) {
                (Ok(w), Ok(g)) if w == g => {}
                // A frame the reader refuses from the reference's bytes
                // (a decode-error vector) is not compared.
                (Err(_), _) => continue,
                _ => failures.push(format!(
                    "{name} event {i}:\n  ours:   {got:?}\n  theirs: {want:?}"
                )),
            }
            if !undefined {
                comparable += 1;
                if ours == *theirs {
                    same_bytes += 1;
                } else if ours.len() != theirs.len() {
                    failures.push(format!(
                        "{name} event {i}: sizes differ\n  ours:   {}\n  theirs: {}",
                        ours.iter().map(|b| format!("{b:02x}")).collect::<String>(),
                        theirs
                            .iter()
                            .map(|b| format!("{b:02x}"))
                            .collect::<String>()
                    ));
                }
            }
        }
    }
    println!(
        "{events} events compared ({js_fixed} with the reference's \"undefined\" strings read as \"\"); \
         {same_bytes} of {comparable} others byte-identical, the rest of the same size; \
         {no_arm} streams stop at an event with no arm"
    );
    assert!(events > 5_000, "only {events} events compared");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(12)].join("\n")
    );
}

/// Events the schema has no place for are refused, not guessed.
#[test]
fn events_without_a_proto_form_are_refused() {
    use serde_json::json;
    let refused = [
        (json!({"type": "THINKING_START"}), "no_proto_arm"),
        (json!([1, 2]), "not_an_event"),
        (
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": 5, "delta": "x"}),
            "bad_value",
        ),
        (
            json!({"type": "STATE_DELTA", "delta": [{"op": "frobnicate", "path": "/a"}]}),
            "bad_op",
        ),
    ];
    for (event, code) in refused {
        assert_eq!(encode_frame(&event).unwrap_err().code(), code, "{event}");
    }
}
