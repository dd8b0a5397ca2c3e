//! Interrupts shown to a person and answered, as agui-chat and agui-kiosk
//! show them: one line per question and per answer, and whether a question
//! wants more than an approval.

use agui_alloc::conversation::Resolution;
use agui_alloc::model::Interrupt;
use serde_json::Value;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::transcript::Peer;

/// One line describing `interrupt`: id, reason, message, tool call, expiry.
pub fn describe(interrupt: &Interrupt, expired: bool) -> String {
    let mut line = format!(
        "[interrupt {}] {}",
        Peer(&interrupt.id),
        Peer(&interrupt.reason)
    );
    if let Some(message) = &interrupt.message {
        line.push_str(&format!(": {}", Peer(message)));
    }
    let mut notes = Vec::new();
    if let Some(call) = &interrupt.tool_call_id {
        notes.push(format!("tool call {}", Peer(call)));
    }
    if let Some(at) = &interrupt.expires_at {
        let state = if expired { "expired" } else { "expires" };
        notes.push(format!("{state} {}", Peer(at)));
    }
    if !notes.is_empty() {
        line.push_str(&format!(" ({})", notes.join("; ")));
    }
    line
}

/// One line saying how interrupt `id` was answered.
pub fn describe_answer(id: &str, answer: &Resolution) -> String {
    let what = match answer {
        Resolution::Cancelled => "cancelled".to_owned(),
        Resolution::Resolved { payload: None } => "resolved".to_owned(),
        Resolution::Resolved {
            payload: Some(payload),
        } => match payload.get("approved").and_then(Value::as_bool) {
            Some(true) if payload.as_object().is_some_and(|o| o.len() == 1) => {
                "approved".to_owned()
            }
            Some(false) if payload.as_object().is_some_and(|o| o.len() == 1) => "denied".to_owned(),
            Some(_) | None => format!("resolved {}", Peer(&payload.to_string())),
        },
    };
    format!("[answer {}] {what}", Peer(id))
}

/// True when the interrupt's `responseSchema` asks for more than an
/// approval: it is not an object schema whose only required key is
/// `approved` (no schema: an approval).
pub fn wants_payload(interrupt: &Interrupt) -> bool {
    let Some(schema) = &interrupt.response_schema else {
        return false;
    };
    let object = schema.get("type").is_none_or(|t| t == "object");
    let required_only_approved = schema
        .get("required")
        .and_then(Value::as_array)
        .is_none_or(|keys| keys.iter().all(|k| k == "approved"));
    let names_more = schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.contains_key("approved"));
    !(object && required_only_approved && !names_more)
}

/// Milliseconds since 1970-01-01 UTC (0 if the clock is before it), for
/// [`agui_alloc::conversation::is_expired`].
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
