//! The readable transcript of a conversation, as `agui-replay` prints it
//! and `agui-chat` prints it when its input is not a terminal: one line
//! per message, `[role] text`, tool calls as `[tool call ID NAME] ARGS`,
//! tool results as `[tool result for ID] CONTENT`. Every string from the
//! stream is written through [`Peer`]: no control reaches the terminal,
//! and the lines inside a message start with [`CONTINUATION`].

use std::fmt;
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
            UserContent::Text(text) => writeln!(out, "[{role}] {}", Peer(text)),
            UserContent::Parts(parts) => writeln!(out, "[{role}] ({} content parts)", parts.len()),
        },
        Message::Tool(tool) => match &tool.content {
            UserContent::Text(text) => {
                writeln!(
                    out,
                    "[tool result for {}] {}",
                    Peer(&tool.tool_call_id),
                    Peer(text)
                )
            }
            UserContent::Parts(parts) => writeln!(
                out,
                "[tool result for {}] ({} content parts)",
                Peer(&tool.tool_call_id),
                parts.len()
            ),
        },
        Message::Activity(activity) => {
            writeln!(
                out,
                "[activity {}] {}",
                Peer(&activity.activity_type),
                activity.content
            )
        }
        Message::Developer(_)
        | Message::System(_)
        | Message::Assistant(_)
        | Message::Reasoning(_) => {
            if let Some(text) = message.text().filter(|t| !t.is_empty()) {
                writeln!(out, "[{role}] {}", Peer(text))?;
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
        Peer(&call.id),
        Peer(&call.function.name),
        Peer(&call.function.arguments)
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

/// What starts each line of a peer's text after its first (see [`Peer`]):
/// the tool's own lines never start with it, so an agent cannot print a
/// line that passes for the tool's (a fake `you>` prompt, a fake
/// `[tool result ...]`).
pub const CONTINUATION: &str = "  | ";

/// Whether a terminal would act on `c` instead of showing it: C0 controls
/// other than newline and tab, DEL, C1 controls (U+0080-U+009F: 8-bit
/// CSI, OSC, ...), and the bidi controls that reorder what is shown
/// (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069).
pub const fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}'
        | '\u{b}'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}')
}

/// A string from a peer (agent, device, recorded file), shown safely: the
/// one escaper for every such string, on every stream. Each character of
/// [`is_unsafe`] is written as `\u{..}`, and each newline is followed by
/// [`CONTINUATION`].
///
/// ```
/// use agui_examples::transcript::Peer;
/// assert_eq!(Peer("a\x1b]0;x\x07\nyou> b").to_string(), "a\\u{1b}]0;x\\u{7}\n  | you> b");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Peer<'a>(pub &'a str);

impl fmt::Display for Peer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(|c: char| c == '\n' || is_unsafe(c)) {
            let (clean, tail) = rest.split_at(at);
            f.write_str(clean)?;
            let mut chars = tail.chars();
            match chars.next() {
                Some('\n') => {
                    f.write_str("\n")?;
                    f.write_str(CONTINUATION)?;
                }
                Some(c) => write!(f, "\\u{{{:x}}}", u32::from(c))?,
                None => {}
            }
            rest = chars.as_str();
        }
        f.write_str(rest)
    }
}

/// A writer that shows the characters of [`is_unsafe`] as `\u{..}`
/// escapes (newlines and tabs pass): the net under everything a tool
/// prints, so that no text from the stream can drive the terminal
/// (retitle it, recolour it, write the clipboard, ...). Text from a peer
/// goes through [`Peer`] as well, which also marks its inner lines.
pub struct Printable<'w>(pub &'w mut dyn Write);

impl Write for Printable<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) => {
                let mut rest = text;
                while let Some(at) = rest.find(is_unsafe) {
                    let (clean, tail) = rest.split_at(at);
                    self.0.write_all(clean.as_bytes())?;
                    let mut chars = tail.chars();
                    if let Some(c) = chars.next() {
                        write!(self.0, "\\u{{{:x}}}", u32::from(c))?;
                    }
                    rest = chars.as_str();
                }
                self.0.write_all(rest.as_bytes())?;
            }
            // Not UTF-8 (a character cut between two writes): byte by
            // byte, 7-bit controls escaped and the rest passed on.
            Err(_) => {
                for &b in buf {
                    if (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f {
                        write!(self.0, "\\u{{{b:x}}}")?;
                    } else {
                        self.0.write_all(&[b])?;
                    }
                }
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printable(text: &str) -> String {
        let mut out = Vec::new();
        Printable(&mut out).write_all(text.as_bytes()).unwrap_or(());
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn c0_c1_and_bidi_controls_are_escaped() {
        let hostile =
            "\x1b[2J\u{9b}31m\u{9d}52;c;eA==\u{9c}\u{202e}abc\u{2066}\u{200f}\u{61c}\r\x7f";
        let expected = "\\u{1b}[2J\\u{9b}31m\\u{9d}52;c;eA==\\u{9c}\\u{202e}abc\\u{2066}\\u{200f}\\u{61c}\\u{d}\\u{7f}";
        assert_eq!(Peer(hostile).to_string(), expected);
        assert_eq!(printable(hostile), expected);
        assert_eq!(printable("a\tb\nc é ✓"), "a\tb\nc é ✓");
    }

    #[test]
    fn inner_lines_of_a_peer_text_are_continuation_lines() {
        let fake = "ok\nyou> rm -rf\n[tool result for x] done";
        let shown = Peer(fake).to_string();
        for line in shown.lines().skip(1) {
            assert!(line.starts_with(CONTINUATION), "{line:?}");
        }
        assert_eq!(shown.lines().count(), 3);
    }
}
