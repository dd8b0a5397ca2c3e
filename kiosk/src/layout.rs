//! The wrapped layout of the conversation: one block per message, one
//! paragraph per piece of a message (header, text, tool call, ...), lines
//! as byte ranges into the paragraph's text.
//!
//! Lines do not copy the text: a paragraph names where its text lives in
//! the message ([`Source`]), so the layout costs a few words per line and
//! the messages stay the only copy of the conversation. Each line carries a
//! revision number that changes whenever what the line shows may have
//! changed; the screen compares revisions before it compares cells.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write as _};

use agui_alloc::model::{InputPart, Message, MessageRole, UserContent};
use serde_json::Value;

use crate::wrap::{wrap, Span};

/// Longest JSON text shown for an activity's content, in bytes.
const ACTIVITY_JSON_LIMIT: usize = 2048;

/// What a row looks like; the theme turns it into colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// A row below the conversation.
    Empty,
    /// The status line, by run state.
    Status(crate::status::RunState),
    /// A state row.
    State,
    /// A message's header bar.
    Header(MessageRole),
    /// A message's text.
    Body(MessageRole),
    /// A tool call's name.
    ToolName,
    /// A tool call's arguments.
    ToolArgs,
    /// A tool result's error.
    Error,
    /// The prompt panel's question.
    Prompt,
    /// The prompt panel's answers.
    PromptAnswers,
}

/// Hands out line revisions. 0 is never handed out: it marks rows that show
/// nothing.
#[derive(Debug, Default)]
pub(crate) struct Revs(u32);

impl Revs {
    pub(crate) fn next(&mut self) -> u32 {
        // After 2^32 line changes a revision repeats; a row could then keep
        // a stale line until its next change. Far beyond any session.
        self.0 = self.0.wrapping_add(1).max(1);
        self.0
    }
}

/// A laid-out line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line {
    pub(crate) span: Span,
    pub(crate) rev: u32,
}

/// Where a paragraph's text is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// The message's text content (grows with content events).
    Text,
    /// Tool call `n`'s arguments (grow with `TOOL_CALL_ARGS`).
    Args(usize),
    /// Tool call `n`'s name line: `"> " + name`.
    Name(usize, String),
    /// Text made at layout time (labels, JSON, summaries).
    Owned(String),
}

/// A wrapped piece of a message.
#[derive(Debug, Clone)]
pub(crate) struct Para {
    pub(crate) style: Style,
    pub(crate) source: Source,
    /// Bytes of the text that are laid out.
    pub(crate) len: usize,
    pub(crate) lines: Vec<Line>,
}

impl Para {
    pub(crate) fn new(style: Style, source: Source) -> Self {
        Para {
            style,
            source,
            len: 0,
            lines: Vec::new(),
        }
    }

    /// The paragraph's text in `msg`.
    pub(crate) fn text<'a>(&'a self, msg: Option<&'a Message>) -> &'a str {
        source_text(&self.source, msg)
    }

    /// Wraps the whole text; every line gets a new revision.
    pub(crate) fn wrap_all(&mut self, msg: Option<&Message>, cols: usize, revs: &mut Revs) {
        let text = source_text(&self.source, msg);
        self.lines.clear();
        wrap(text, 0, cols, &mut |span| {
            self.lines.push(Line {
                span,
                rev: revs.next(),
            });
        });
        self.len = text.len();
    }

    /// Wraps again from the start of the last line, after text was appended
    /// (see [`crate::wrap`] for why the other lines cannot change). Lines
    /// that come out the same keep their revision.
    pub(crate) fn wrap_tail(&mut self, msg: Option<&Message>, cols: usize, revs: &mut Revs) {
        let text = source_text(&self.source, msg);
        let last = match self.lines.pop() {
            // Not an append after all if the line no longer starts a
            // character: start over.
            Some(last) if text.is_char_boundary(last.span.start) => last,
            _ => return self.wrap_all(msg, cols, revs),
        };
        wrap(text, last.span.start, cols, &mut |span| {
            let rev = if span == last.span {
                last.rev
            } else {
                revs.next()
            };
            self.lines.push(Line { span, rev });
        });
        self.len = text.len();
    }
}

/// Where `source` is in `msg`.
fn source_text<'a>(source: &'a Source, msg: Option<&'a Message>) -> &'a str {
    match (source, msg) {
        (Source::Owned(s) | Source::Name(_, s), _) => s,
        (Source::Text, Some(m)) => m.text().unwrap_or_default(),
        (Source::Args(n), Some(m)) => m
            .tool_calls()
            .get(*n)
            .map_or("", |c| c.function.arguments.as_str()),
        (_, None) => "",
    }
}

/// The result of comparing a block with its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sync {
    /// Nothing to do.
    Same,
    /// Text was appended and wrapped.
    Grew,
    /// The message no longer matches the block's shape: build it again.
    Rebuild,
}

/// One message, laid out.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    pub(crate) id_hash: u32,
    pub(crate) role: MessageRole,
    /// Whether the message had text content when laid out.
    pub(crate) has_text: bool,
    /// How many tool calls it had.
    pub(crate) calls: usize,
    pub(crate) paras: Vec<Para>,
    /// Total lines.
    pub(crate) rows: usize,
}

impl Block {
    /// Lays out message `index` of `messages`.
    pub(crate) fn build(messages: &[Message], index: usize, cols: usize, revs: &mut Revs) -> Self {
        let Some(msg) = messages.get(index) else {
            return Block::empty();
        };
        let role = msg.role();
        let mut paras = Vec::new();
        paras.push(Para::new(
            Style::Header(role),
            Source::Owned(header(messages, index, msg)),
        ));
        body(msg, &mut paras);
        let mut block = Block {
            id_hash: id_hash(msg.id()),
            role,
            has_text: msg.text().is_some(),
            calls: msg.tool_calls().len(),
            paras,
            rows: 0,
        };
        for para in &mut block.paras {
            para.wrap_all(Some(msg), cols, revs);
        }
        block.count_rows();
        block
    }

    fn empty() -> Self {
        Block {
            id_hash: 0,
            role: MessageRole::Assistant,
            has_text: false,
            calls: 0,
            paras: Vec::new(),
            rows: 0,
        }
    }

    fn count_rows(&mut self) {
        self.rows = self.paras.iter().map(|p| p.lines.len()).sum();
    }

    /// Lays the header out again if its text changed (a tool result names
    /// its call, which a replayed `TOOL_CALL_START` may rename).
    pub(crate) fn refresh_header(
        &mut self,
        messages: &[Message],
        index: usize,
        cols: usize,
        revs: &mut Revs,
    ) {
        let (Some(msg), Some(para)) = (messages.get(index), self.paras.first_mut()) else {
            return;
        };
        let text = header(messages, index, msg);
        if para.text(None) != text {
            para.source = Source::Owned(text);
            para.wrap_all(None, cols, revs);
            self.count_rows();
        }
    }

    /// Whether the block was laid out from a message with this id.
    pub(crate) fn is_for(&self, msg: &Message) -> bool {
        self.id_hash == id_hash(msg.id()) && self.role == msg.role()
    }

    /// Brings the block up to date with `msg` if only text was appended
    /// (content and tool-call argument deltas, the streaming case); says
    /// [`Sync::Rebuild`] for any other difference it can see. It compares
    /// lengths and names, not whole texts: a same-length edit of the text is
    /// only seen through [`crate::Kiosk::invalidate`] (the kiosk's
    /// subscriber does it for the events that can do that).
    pub(crate) fn sync(&mut self, msg: &Message, cols: usize, revs: &mut Revs) -> Sync {
        if self.role != msg.role()
            || self.has_text != msg.text().is_some()
            || self.calls != msg.tool_calls().len()
        {
            return Sync::Rebuild;
        }
        let mut result = Sync::Same;
        for para in &mut self.paras {
            match &para.source {
                Source::Name(n, shown) => {
                    let name = msg.tool_calls().get(*n).map(|c| c.function.name.as_str());
                    if shown.get(2..) != name {
                        return Sync::Rebuild;
                    }
                }
                Source::Text | Source::Args(_) => match para.text(Some(msg)).len().cmp(&para.len) {
                    core::cmp::Ordering::Less => return Sync::Rebuild,
                    core::cmp::Ordering::Equal => {}
                    core::cmp::Ordering::Greater => {
                        para.wrap_tail(Some(msg), cols, revs);
                        result = Sync::Grew;
                    }
                },
                Source::Owned(_) => {}
            }
        }
        if result == Sync::Grew {
            self.count_rows();
        }
        result
    }
}

/// FNV-1a of the id: tells blocks apart when messages are inserted.
pub(crate) fn id_hash(id: &str) -> u32 {
    id.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// The header bar's text.
fn header(messages: &[Message], index: usize, msg: &Message) -> String {
    match msg {
        Message::User(m) => match &m.name {
            Some(name) => format!("user ({name})"),
            None => String::from("user"),
        },
        Message::Assistant(m) => match &m.name {
            Some(name) => format!("assistant ({name})"),
            None => String::from("assistant"),
        },
        Message::Tool(m) => {
            // The call is usually just above its result.
            let before = messages.get(..index).unwrap_or_default();
            let name = before
                .iter()
                .rev()
                .flat_map(|m| m.tool_calls())
                .find(|c| c.id == m.tool_call_id)
                .map(|c| c.function.name.as_str());
            match name {
                Some(name) => format!("tool result: {name}"),
                None => String::from("tool result"),
            }
        }
        Message::Activity(m) => format!("activity: {}", m.activity_type),
        Message::Reasoning(_) => String::from("reasoning"),
        Message::System(_) => String::from("system"),
        Message::Developer(_) => String::from("developer"),
    }
}

/// The paragraphs after the header.
fn body(msg: &Message, paras: &mut Vec<Para>) {
    let role = msg.role();
    if msg.text().is_some() {
        paras.push(Para::new(Style::Body(role), Source::Text));
    }
    match msg {
        Message::User(m) => {
            if let UserContent::Parts(parts) = &m.content {
                paras.push(Para::new(
                    Style::Body(role),
                    Source::Owned(parts_summary(parts)),
                ));
            }
        }
        Message::Assistant(_) => {
            for (n, call) in msg.tool_calls().iter().enumerate() {
                let name = format!("> {}", call.function.name);
                paras.push(Para::new(Style::ToolName, Source::Name(n, name)));
                paras.push(Para::new(Style::ToolArgs, Source::Args(n)));
            }
        }
        Message::Tool(m) => {
            // AG-UI 1.0: a result may be content parts.
            if let UserContent::Parts(parts) = &m.content {
                paras.push(Para::new(
                    Style::Body(role),
                    Source::Owned(parts_summary(parts)),
                ));
            }
            if let Some(error) = &m.error {
                paras.push(Para::new(
                    Style::Error,
                    Source::Owned(format!("error: {error}")),
                ));
            }
        }
        Message::Activity(m) if msg.text().is_none() => {
            let (json, _) = bounded_json(&m.content, ACTIVITY_JSON_LIMIT);
            paras.push(Para::new(Style::Body(role), Source::Owned(json)));
        }
        Message::Developer(_)
        | Message::System(_)
        | Message::Activity(_)
        | Message::Reasoning(_) => {}
    }
}

/// A user message's (or a tool result's) parts as one line of text: the text parts, and a tag
/// for each media part.
fn parts_summary(parts: &[InputPart]) -> String {
    let mut out = String::new();
    for part in parts {
        if !out.is_empty() {
            out.push(' ');
        }
        match part {
            InputPart::Text { text, .. } => out.push_str(text),
            InputPart::Image(_) => out.push_str("[image]"),
            InputPart::Audio(_) => out.push_str("[audio]"),
            InputPart::Video(_) => out.push_str("[video]"),
            InputPart::Document(_) => out.push_str("[document]"),
            InputPart::Binary(b) => {
                let _ = write!(out, "[{}]", b.mime_type);
            }
        }
    }
    out
}

/// A `fmt::Write` that stops (with an error) after `limit` bytes.
struct Bounded {
    out: String,
    limit: usize,
    cut: bool,
}

impl fmt::Write for Bounded {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = self.limit.saturating_sub(self.out.len());
        if s.len() <= room {
            self.out.push_str(s);
            return Ok(());
        }
        let mut end = room;
        while !s.is_char_boundary(end) {
            end = end.saturating_sub(1);
        }
        self.out.push_str(s.get(..end).unwrap_or_default());
        self.cut = true;
        Err(fmt::Error)
    }
}

/// `value` as compact JSON, cut after `limit` bytes; the flag says whether
/// it was cut. Stops serializing at the limit, so a huge value costs only
/// `limit` bytes of work.
pub(crate) fn bounded_json(value: &Value, limit: usize) -> (String, bool) {
    let mut w = Bounded {
        out: String::new(),
        limit,
        cut: false,
    };
    let _ = write!(w, "{value}");
    (w.out, w.cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_json_stops_at_the_limit() {
        let v = serde_json::json!({"a": "é".repeat(100)});
        let (s, cut) = bounded_json(&v, 11);
        assert!(cut);
        assert!(s.len() <= 11);
        assert!(s.starts_with("{\"a\":\"é"));
        let (s, cut) = bounded_json(&serde_json::json!([1, 2]), 100);
        assert_eq!((s.as_str(), cut), ("[1,2]", false));
    }
}
