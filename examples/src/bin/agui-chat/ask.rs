//! Asking a person: a run's interrupts shown, and answered at the
//! terminal or by `--interrupt approve|deny`.

use std::io::{self, BufRead, Write};

use agui_alloc::conversation::{PendingInterrupt, Resolution};
use agui_alloc::model::Interrupt;
pub(crate) use agui_examples::interrupts::{describe, describe_answer, wants_payload};
use agui_examples::transcript::Peer;
use serde_json::{Map, Value};

/// Deepest schema the payload check follows (an agent's schema is not
/// trusted; deeper levels are not checked).
const SCHEMA_DEPTH: usize = 32;

/// `--interrupt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Decision {
    /// Approve every interrupt (resolved with `{"approved": true}`).
    Approve,
    /// Deny every interrupt (resolved with `{"approved": false}`).
    Deny,
}

/// The answer `--interrupt` gives.
pub(crate) fn decided(decision: Decision) -> Resolution {
    Resolution::approved(decision == Decision::Approve)
}

/// Asks the person at the terminal for `pending`: y/n/c, or a JSON payload
/// checked against its `responseSchema` when it asks for more; a wrong
/// answer gets a one-line reason and the question again. The end of
/// input cancels.
pub(crate) fn ask(
    pending: &PendingInterrupt,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> io::Result<Resolution> {
    let interrupt = &pending.interrupt;
    let payload = wants_payload(interrupt);
    loop {
        if payload {
            write!(
                out,
                "answer as JSON (schema {}), or empty to cancel: ",
                Peer(&schema_text(interrupt))
            )?;
        } else {
            write!(out, "approve? [y]es, [n]o, [c]ancel: ")?;
        }
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(Resolution::Cancelled);
        }
        let line = line.trim();
        let answer = if payload {
            parse_payload(line, interrupt)
        } else {
            parse_choice(line)
        };
        match answer {
            Ok(resolution) => return Ok(resolution),
            Err(why) => writeln!(out, "agui-chat: {why}")?,
        }
    }
}

fn schema_text(interrupt: &Interrupt) -> String {
    interrupt
        .response_schema
        .as_ref()
        .map(|s| Value::Object(s.clone()).to_string())
        .unwrap_or_default()
}

/// y / n / c (or the words).
fn parse_choice(line: &str) -> Result<Resolution, String> {
    match line.to_ascii_lowercase().as_str() {
        "y" | "yes" | "approve" => Ok(Resolution::approved(true)),
        "n" | "no" | "deny" => Ok(Resolution::approved(false)),
        "c" | "cancel" => Ok(Resolution::Cancelled),
        _ => Err("answer y (approve), n (deny) or c (cancel)".to_owned()),
    }
}

/// A JSON payload checked against the interrupt's schema; empty cancels.
fn parse_payload(line: &str, interrupt: &Interrupt) -> Result<Resolution, String> {
    if line.is_empty() {
        return Ok(Resolution::Cancelled);
    }
    let value: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    if let Some(schema) = &interrupt.response_schema {
        check(&value, schema, "payload", SCHEMA_DEPTH)?;
    }
    Ok(Resolution::Resolved {
        payload: Some(value),
    })
}

/// Checks `value` against the types and required keys of `schema`
/// (`type`, `required`, `properties`, `items`; other keywords are the
/// agent's to check). The error names the path.
pub(crate) fn check(
    value: &Value,
    schema: &Map<String, Value>,
    path: &str,
    depth: usize,
) -> Result<(), String> {
    if depth == 0 {
        return Ok(());
    }
    if let Some(types) = schema.get("type") {
        let allowed: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::Object(_) => Vec::new(),
        };
        if !allowed.is_empty() && !allowed.iter().any(|t| is_type(value, t)) {
            return Err(format!(
                "{path} must be {}, not {}",
                allowed.join(" or "),
                type_name(value)
            ));
        }
    }
    if let Value::Object(fields) = value {
        for key in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !fields.contains_key(key) {
                return Err(format!("{path} needs the key \"{}\"", Peer(key)));
            }
        }
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (key, field) in fields {
                if let Some(sub) = properties.get(key).and_then(Value::as_object) {
                    check(field, sub, &format!("{path}.{key}"), depth - 1)?;
                }
            }
        }
    }
    if let (Value::Array(items), Some(sub)) =
        (value, schema.get("items").and_then(Value::as_object))
    {
        for (n, item) in items.iter().enumerate() {
            check(item, sub, &format!("{path}[{n}]"), depth - 1)?;
        }
    }
    Ok(())
}

/// JSON Schema's type names.
fn is_type(value: &Value, name: &str) -> bool {
    match value {
        Value::Null => name == "null",
        Value::Bool(_) => name == "boolean",
        Value::Number(n) => name == "number" || (name == "integer" && is_integer(n)),
        Value::String(_) => name == "string",
        Value::Array(_) => name == "array",
        Value::Object(_) => name == "object",
    }
}

fn is_integer(n: &serde_json::Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use agui_alloc::conversation::InterruptSource;
    use serde_json::json;

    fn pending(schema: Option<Value>) -> PendingInterrupt {
        let mut i = json!({"id": "i1", "reason": "tool_call", "message": "Unlock?"});
        if let Some(schema) = schema {
            i["responseSchema"] = schema;
        }
        PendingInterrupt {
            interrupt: Interrupt::from_json(&i).unwrap(),
            source: InterruptSource::Outcome,
            answer: None,
        }
    }

    fn asked(p: &PendingInterrupt, typed: &str) -> (Resolution, String) {
        let mut out = Vec::new();
        let answer = ask(p, &mut typed.as_bytes(), &mut out).unwrap();
        (answer, String::from_utf8(out).unwrap())
    }

    const APPROVAL: &str = r#"{"type":"object","properties":{"approved":{"type":"boolean"},"editedArgs":{"type":"object"},"reason":{"type":"string"}},"required":["approved"]}"#;

    #[test]
    fn an_approval_is_y_n_or_c() {
        let p = pending(Some(serde_json::from_str(APPROVAL).unwrap()));
        assert!(!wants_payload(&p.interrupt));
        let (answer, out) = asked(&p, "maybe\nY\n");
        assert_eq!(answer, Resolution::approved(true));
        assert_eq!(
            out,
            "approve? [y]es, [n]o, [c]ancel: agui-chat: answer y (approve), n (deny) or c (cancel)\n\
             approve? [y]es, [n]o, [c]ancel: "
        );
        assert_eq!(asked(&p, "no\n").0, Resolution::approved(false));
        assert_eq!(asked(&p, "c\n").0, Resolution::Cancelled);
        assert_eq!(asked(&p, "").0, Resolution::Cancelled); // end of input
        assert_eq!(asked(&pending(None), "y\n").0, Resolution::approved(true));
    }

    #[test]
    fn a_schema_asking_for_more_takes_checked_json() {
        let schema = json!({"type": "object", "required": ["pin"],
            "properties": {"pin": {"type": "string"}, "tries": {"type": "integer"},
                "rooms": {"type": "array", "items": {"type": "string"}}}});
        let p = pending(Some(schema));
        assert!(wants_payload(&p.interrupt));
        let typed = "{\"pin\": \n{\"tries\": 1}\n{\"pin\": 1234}\n{\"pin\": \"1\", \"tries\": 1.5}\n\
                     {\"pin\": \"1\", \"rooms\": [\"a\", 2]}\n[1]\n{\"pin\": \"1234\", \"tries\": 3}\n";
        let (answer, out) = asked(&p, typed);
        assert_eq!(
            answer,
            Resolution::Resolved {
                payload: Some(json!({"pin": "1234", "tries": 3}))
            }
        );
        let errors: Vec<&str> = out
            .lines()
            .filter_map(|l| l.split("agui-chat: ").nth(1))
            .collect();
        assert_eq!(errors.len(), 6, "{out}");
        assert!(errors[0].starts_with("not JSON: "), "{out}");
        assert_eq!(
            &errors[1..],
            [
                "payload needs the key \"pin\"",
                "payload.pin must be string, not number",
                "payload.tries must be integer, not number",
                "payload.rooms[1] must be string, not number",
                "payload must be object, not array",
            ]
        );
        assert_eq!(asked(&p, "\n").0, Resolution::Cancelled);
        // A schema of another type, and a union of types.
        let p = pending(Some(json!({"type": ["string", "null"]})));
        assert!(wants_payload(&p.interrupt));
        assert_eq!(
            asked(&p, "true\nnull\n").0,
            Resolution::Resolved {
                payload: Some(Value::Null)
            }
        );
    }

    #[test]
    fn lines_show_the_interrupt_and_the_answer() {
        let i = Interrupt::from_json(&json!({"id": "i\u{1b}1", "reason": "tool_call",
            "message": "Unlock\nnow?", "toolCallId": "c1", "expiresAt": "2026-01-01T00:00:00Z"}))
        .unwrap();
        assert_eq!(
            describe(&i, true),
            "[interrupt i\\u{1b}1] tool_call: Unlock\n  | now? (tool call c1; expired 2026-01-01T00:00:00Z)"
        );
        assert_eq!(
            describe_answer("i", &Resolution::approved(false)),
            "[answer i] denied"
        );
        assert_eq!(
            describe_answer("i", &Resolution::Cancelled),
            "[answer i] cancelled"
        );
        assert_eq!(
            describe_answer(
                "i",
                &Resolution::Resolved {
                    payload: Some(json!({"pin": "1"}))
                }
            ),
            r#"[answer i] resolved {"pin":"1"}"#
        );
    }
}
