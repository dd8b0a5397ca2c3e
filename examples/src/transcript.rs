//! The readable transcript of a conversation, as `agui-replay` prints it
//! and `agui-chat` prints it when its input is not a terminal: one line
//! per message, `[role] text`, tool calls as `[tool call ID NAME] ARGS`,
//! tool results as `[tool result for ID] CONTENT`.

use std::io::{self, Write};

use agui_alloc::model::{Message, ToolCall, UserContent};
use serde_json::Value;

/// Writes one message's transcript line(s).
///
/// # Errors
/// The writer's.
pub fn write_message(out: &mut dyn Write, message: &Message) -> io::Result<()> {
    let role = message.role_name();
    match message {
        Message::User(user) => match &user.content {
            UserContent::Text(text) => writeln!(out, "[{role}] {text}"),
            UserContent::Parts(parts) => writeln!(out, "[{role}] ({} content parts)", parts.len()),
        },
        Message::Tool(tool) => match &tool.content {
            UserContent::Text(text) => {
                writeln!(out, "[tool result for {}] {text}", tool.tool_call_id)
            }
            UserContent::Parts(parts) => writeln!(
                out,
                "[tool result for {}] ({} content parts)",
                tool.tool_call_id,
                parts.len()
            ),
        },
        Message::Activity(activity) => {
            writeln!(
                out,
                "[activity {}] {}",
                activity.activity_type, activity.content
            )
        }
        Message::Developer(_)
        | Message::System(_)
        | Message::Assistant(_)
        | Message::Reasoning(_) => {
            if let Some(text) = message.text().filter(|t| !t.is_empty()) {
                writeln!(out, "[{role}] {text}")?;
            }
            for call in message.tool_calls() {
                write_tool_call(out, call)?;
            }
            Ok(())
        }
    }
}

/// Writes a tool call's line.
///
/// # Errors
/// The writer's.
pub fn write_tool_call(out: &mut dyn Write, call: &ToolCall) -> io::Result<()> {
    writeln!(
        out,
        "[tool call {} {}] {}",
        call.id, call.function.name, call.function.arguments
    )
}

/// Writes the state, pretty-printed, unless it is `{}`.
///
/// # Errors
/// The writer's.
pub fn write_state(out: &mut dyn Write, state: &Value) -> io::Result<()> {
    if state.as_object().is_some_and(|m| m.is_empty()) {
        return Ok(());
    }
    let state = serde_json::to_string_pretty(state).unwrap_or_default();
    writeln!(out, "state: {state}")
}

/// A writer that shows control characters (other than newline and tab) as
/// `\u{..}` escapes: the transcript prints text from the stream, which must
/// not be able to drive the terminal (retitle it, recolour it, ...).
pub struct Printable<'w>(pub &'w mut dyn Write);

impl Write for Printable<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut start = 0;
        for (i, &b) in buf.iter().enumerate() {
            if (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f {
                self.0.write_all(buf.get(start..i).unwrap_or_default())?;
                write!(self.0, "\\u{{{b:x}}}")?;
                start = i + 1;
            }
        }
        self.0.write_all(buf.get(start..).unwrap_or_default())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}
