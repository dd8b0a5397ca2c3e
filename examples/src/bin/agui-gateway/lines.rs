//! The device's lines, decoded (docs/SPEC.md, "Device to gateway").

use agui_alloc::model::{Message, Tool, ToolMessage, UserContent};
use serde_json::{json, Value};

/// A device line, decoded.
pub enum DeviceLine {
    Tool(Tool),
    User(Message),
    ToolResult(ToolMessage),
    Run,
    Done,
    Blank,
}

/// A bad device line: a stable code (SPEC) and what is wrong.
pub struct LineError {
    pub code: &'static str,
    pub message: String,
}

pub fn bad(code: &'static str, message: impl Into<String>) -> LineError {
    LineError {
        code,
        message: message.into(),
    }
}

/// Decodes one line (without its line end).
pub fn parse_line(bytes: &[u8]) -> Result<DeviceLine, LineError> {
    let text =
        std::str::from_utf8(bytes).map_err(|e| bad("not_utf8", format!("not UTF-8: {e}")))?;
    if text.trim().is_empty() {
        return Ok(DeviceLine::Blank);
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| bad("not_json", format!("not JSON: {e}")))?;
    if !value.is_object() {
        return Err(bad("not_json", "not a JSON object"));
    }
    match value.get("type") {
        Some(Value::String(kind)) => parse_typed(kind, &value),
        Some(_) => Err(bad("bad_field", "`type` must be a string")),
        None if value.get("role").and_then(Value::as_str) == Some("user") => {
            Message::from_json(&value)
                .map(DeviceLine::User)
                .map_err(|e| bad("bad_field", format!("user message: {e}")))
        }
        None => Err(bad(
            "unknown_line",
            "an object with neither `type` nor `\"role\":\"user\"`",
        )),
    }
}

/// The lines with a `type`.
fn parse_typed(kind: &str, value: &Value) -> Result<DeviceLine, LineError> {
    match kind {
        "TOOL" => parse_tool(value).map(DeviceLine::Tool),
        "TOOL_CALL_RESULT" => parse_result(value).map(DeviceLine::ToolResult),
        "RUN" => Ok(DeviceLine::Run),
        "DONE" => Ok(DeviceLine::Done),
        other => Err(bad("unknown_line", format!("unknown line type '{other}'"))),
    }
}

/// A string field, required.
fn string_field(value: &Value, what: &str, key: &str) -> Result<String, LineError> {
    match value.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(bad(
            "bad_field",
            format!("{what}: `{key}` must be a string"),
        )),
        None => Err(bad("bad_field", format!("{what}: `{key}` is required"))),
    }
}

/// `{"type":"TOOL","name","description"?,"parameters"?}`.
fn parse_tool(value: &Value) -> Result<Tool, LineError> {
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
fn parse_result(value: &Value) -> Result<ToolMessage, LineError> {
    let what = "TOOL_CALL_RESULT";
    if let Some(role) = value.get("role") {
        if role.as_str() != Some("tool") {
            return Err(bad("bad_field", format!("{what}: `role` must be \"tool\"")));
        }
    }
    Ok(ToolMessage {
        id: string_field(value, what, "messageId")?,
        content: UserContent::Text(string_field(value, what, "content")?),
        tool_call_id: string_field(value, what, "toolCallId")?,
        ..ToolMessage::default()
    })
}
