//! The device's lines, decoded (docs/SPEC.md, "Device to gateway").

use agui_alloc::conversation::Resolution;
use agui_alloc::model::{Message, Tool, ToolMessage, UserContent};
use agui_core::device::{self, LineCode};
use serde_json::{json, Value};

/// A device line, decoded.
pub enum Decoded {
    Tool(Tool),
    User(Message),
    ToolResult(ToolMessage),
    /// An answer to the interrupt with this id.
    Resume(String, Resolution),
    Run,
    Done,
    /// The device (re)started: send it the conversation so far.
    Hello,
    Blank,
}

/// A bad device line: a stable code (SPEC) and what is wrong.
pub struct Refusal {
    pub code: LineCode,
    pub message: String,
}

pub fn bad(code: LineCode, message: impl Into<String>) -> Refusal {
    Refusal {
        code,
        message: message.into(),
    }
}

/// Decodes one line (without its line end): sorted by the core's
/// [`device::classify`], then the fields of the line read here.
pub fn parse_line(bytes: &[u8]) -> Result<Decoded, Refusal> {
    let kind = device::classify(bytes).map_err(|e| bad(e.code(), e.to_string()))?;
    // The core checked the JSON; serde_json can still refuse what Rust
    // strings cannot hold (a lone surrogate escape).
    let value = || {
        serde_json::from_slice::<Value>(bytes)
            .map_err(|e| bad(LineCode::NotJson, format!("not JSON: {e}")))
    };
    match kind {
        device::DeviceLine::Blank | device::DeviceLine::Log(_) => Ok(Decoded::Blank),
        device::DeviceLine::Run => Ok(Decoded::Run),
        device::DeviceLine::Done => Ok(Decoded::Done),
        device::DeviceLine::Hello => Ok(Decoded::Hello),
        device::DeviceLine::Tool => parse_tool(&value()?).map(Decoded::Tool),
        device::DeviceLine::ToolResult => parse_result(&value()?).map(Decoded::ToolResult),
        device::DeviceLine::Resume => {
            parse_resume(value()?).map(|(id, answer)| Decoded::Resume(id, answer))
        }
        device::DeviceLine::User => Message::from_json(&value()?)
            .map(Decoded::User)
            .map_err(|e| bad(LineCode::BadField, format!("user message: {e}"))),
    }
}

/// A string field, required.
fn string_field(value: &Value, what: &str, key: &str) -> Result<String, Refusal> {
    match value.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(bad(
            LineCode::BadField,
            format!("{what}: `{key}` must be a string"),
        )),
        None => Err(bad(
            LineCode::BadField,
            format!("{what}: `{key}` is required"),
        )),
    }
}

/// `{"type":"TOOL","name","description"?,"parameters"?}`.
fn parse_tool(value: &Value) -> Result<Tool, Refusal> {
    let name = string_field(value, "TOOL", "name")?;
    let description = match value.get("description") {
        None => String::new(),
        Some(_) => string_field(value, "TOOL", "description")?,
    };
    let parameters = value
        .get("parameters")
        .cloned()
        .unwrap_or_else(|| json!({"type": "object"}));
    Ok(Tool {
        name,
        description,
        parameters: Some(parameters),
        metadata: None,
    })
}

/// `{"type":"TOOL_CALL_RESULT","messageId","toolCallId","content","role"?}`.
fn parse_result(value: &Value) -> Result<ToolMessage, Refusal> {
    let what = "TOOL_CALL_RESULT";
    if let Some(role) = value.get("role") {
        if role.as_str() != Some("tool") {
            return Err(bad(
                LineCode::BadField,
                format!("{what}: `role` must be \"tool\""),
            ));
        }
    }
    Ok(ToolMessage {
        id: string_field(value, what, "messageId")?,
        content: UserContent::Text(string_field(value, what, "content")?),
        tool_call_id: string_field(value, what, "toolCallId")?,
        ..ToolMessage::default()
    })
}

/// `{"type":"RESUME","interruptId","status":"resolved"|"cancelled","payload"?}`;
/// a payload only with `resolved`.
fn parse_resume(mut value: Value) -> Result<(String, Resolution), Refusal> {
    let what = "RESUME";
    let id = string_field(&value, what, "interruptId")?;
    let payload = value.get_mut("payload").map(Value::take);
    let resolution = match (string_field(&value, what, "status")?.as_str(), payload) {
        ("resolved", payload) => Resolution::Resolved { payload },
        ("cancelled", None) => Resolution::Cancelled,
        ("cancelled", Some(_)) => {
            return Err(bad(
                LineCode::BadField,
                format!("{what}: a cancelled answer has no `payload`"),
            ))
        }
        (_, _) => {
            return Err(bad(
                LineCode::BadField,
                format!("{what}: `status` must be \"resolved\" or \"cancelled\""),
            ))
        }
    };
    Ok((id, resolution))
}
