//! Sizes of JSON values as the client counts them against its limits.
//!
//! A value's size is the length of its compact JSON text, exactly as
//! `serde_json::to_string` writes it: numbers in their serialized form
//! (`1`, `-0.5`, `1e300`), strings with their quotes and escapes (`\n` is
//! two bytes, a control character without a short escape is six). The
//! depth is the nesting of arrays and objects (a scalar is 0, `[]` is 1).
//! Both are computed without allocating text, with an explicit stack, so a
//! value of any depth is safe.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write};

use serde_json::{Number, Value};

use crate::model::{InputPart, InputSource, MediaPart, Message, Object, ToolCall, UserContent};

/// The compact JSON length of a value, and its nesting depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Size {
    /// Bytes of the compact JSON text.
    pub bytes: usize,
    /// Nesting depth of arrays and objects.
    pub depth: usize,
}

/// Length of `s` as a JSON string, quotes and escapes included.
///
/// ```
/// use agui_alloc::size::string_bytes;
/// assert_eq!(string_bytes("a\"b"), 6);
/// assert_eq!(string_bytes("\u{1}"), 8);
/// assert_eq!(string_bytes("é"), 4);
/// ```
pub fn string_bytes(s: &str) -> usize {
    let escapes: usize = s
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
            0..=0x1f => 5,
            _ => 0,
        })
        .sum();
    s.len().saturating_add(escapes).saturating_add(2)
}

/// Counts what is written to it.
struct Count(usize);

impl Write for Count {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 = self.0.saturating_add(s.len());
        Ok(())
    }
}

/// Length of a number as serde_json writes it (its `Display` is that text).
pub fn number_bytes(n: &Number) -> usize {
    let mut count = Count(0);
    // Writing into a counter cannot fail.
    let _ = write!(count, "{n}");
    count.0
}

/// Compact JSON length of a scalar (0 for an array or object).
pub(crate) fn scalar_bytes(v: &Value) -> usize {
    match v {
        Value::Null => 4,
        Value::Bool(b) => 5 - usize::from(*b),
        Value::Number(n) => number_bytes(n),
        Value::String(s) => string_bytes(s),
        Value::Array(_) | Value::Object(_) => 0,
    }
}

/// Compact JSON length and depth of `value`.
///
/// ```
/// use agui_alloc::size::json_size;
/// use serde_json::json;
/// let v = json!({"a": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]});
/// assert_eq!(json_size(&v).bytes, serde_json::to_string(&v).unwrap().len());
/// assert_eq!(json_size(&v).depth, 2);
/// ```
pub fn json_size(value: &Value) -> Size {
    let mut stack: Vec<(&Value, usize)> = alloc::vec![(value, 1)];
    let mut size = Size::default();
    while let Some((v, level)) = stack.pop() {
        let here = match v {
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => scalar_bytes(v),
            Value::Array(items) => {
                size.depth = size.depth.max(level);
                stack.extend(items.iter().map(|i| (i, level.saturating_add(1))));
                // Brackets and the commas between items.
                items.len().max(1).saturating_add(1)
            }
            Value::Object(map) => {
                size.depth = size.depth.max(level);
                for (k, v) in map {
                    // Key, colon, and the comma before every member but one.
                    size.bytes = size.bytes.saturating_add(string_bytes(k).saturating_add(2));
                    stack.push((v, level.saturating_add(1)));
                }
                // Braces, less the comma the first member does not have.
                if map.is_empty() {
                    2
                } else {
                    1
                }
            }
        };
        size.bytes = size.bytes.saturating_add(here);
    }
    size
}

/// Compact JSON length of an object's members, as `json_size` of the object.
pub fn object_size(object: &serde_json::Map<String, Value>) -> Size {
    let mut size = Size {
        bytes: if object.is_empty() { 2 } else { 1 },
        depth: 1,
    };
    for (k, v) in object {
        let inner = json_size(v);
        size.bytes = size
            .bytes
            .saturating_add(string_bytes(k).saturating_add(2))
            .saturating_add(inner.bytes);
        size.depth = size.depth.max(inner.depth.saturating_add(1));
    }
    size
}

/// What an object member adds to its object besides its value: its key,
/// colon, and a comma when the object has other members (`others`).
pub fn member_overhead(key: &str, others: usize) -> usize {
    string_bytes(key)
        .saturating_add(1)
        .saturating_add(usize::from(others > 0))
}

/// What an array item adds besides its value: a comma when the array has
/// other items.
pub fn item_overhead(others: usize) -> usize {
    usize::from(others > 0)
}

/// What the client keeps for one message besides its strings: the message
/// itself as a value in the list, its entries in the reducer's index (by
/// id, by role class, by position) and the allocator's share of each. The
/// message's id is counted a second time too: the index holds a copy.
///
/// Measured, not guessed: BENCHMARKS.md ("Memory per kept item") compares
/// the peak memory of a million kept items with what these charges count.
pub const MESSAGE_OVERHEAD: usize = core::mem::size_of::<Message>() + 256;

/// The same for one tool call: the call as a value in its message's list,
/// its entry in the index by tool-call id and the allocator's share of its
/// strings (its id is counted twice as well: the index holds a copy).
pub const TOOL_CALL_OVERHEAD: usize = core::mem::size_of::<ToolCall>() + 256;

/// Bytes a message holds, as [`crate::reduce::ReducerLimits::max_message_bytes`]
/// counts them: every string it keeps (id, name, text or parts, tool-call
/// ids, names and arguments, encrypted values, `toolCallId`, `error`,
/// `activityType`, AG-UI 1.0's `subagentRunId` and part ids) as its UTF-8
/// bytes, plus `metadata` and activity `content` as compact JSON, plus
/// what the client keeps to hold and find the message and each of its tool
/// calls ([`MESSAGE_OVERHEAD`], [`TOOL_CALL_OVERHEAD`], each with a second
/// copy of the id, which the index keeps).
///
/// ```
/// use agui_alloc::model::{Message, MessageRole};
/// use agui_alloc::size::{message_bytes, MESSAGE_OVERHEAD};
/// let mut m = Message::new_text("m1", MessageRole::Assistant, None);
/// m.append_text("hello");
/// assert_eq!(message_bytes(&m), MESSAGE_OVERHEAD + 2 + 2 + 5);
/// ```
pub fn message_bytes(message: &Message) -> usize {
    message_strings(message)
        .saturating_add(MESSAGE_OVERHEAD)
        .saturating_add(message.id().len())
}

/// [`message_bytes`] without the per-message charge: the strings alone.
fn message_strings(message: &Message) -> usize {
    let metadata = |m: &Option<Object>| m.as_ref().map_or(0, |m| object_size(m).bytes);
    let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    let sum = |parts: &[usize]| parts.iter().fold(0usize, |a, b| a.saturating_add(*b));
    match message {
        Message::Developer(m) | Message::System(m) => sum(&[
            m.id.len(),
            m.content.len(),
            opt(&m.name),
            opt(&m.encrypted_value),
            metadata(&m.metadata),
            opt(&m.subagent_run_id),
        ]),
        Message::Assistant(m) => {
            let calls = m.tool_calls.as_deref().unwrap_or_default();
            let calls = calls
                .iter()
                .map(tool_call_bytes)
                .fold(0usize, usize::saturating_add);
            sum(&[
                m.id.len(),
                opt(&m.content),
                opt(&m.name),
                calls,
                opt(&m.encrypted_value),
                metadata(&m.metadata),
                opt(&m.subagent_run_id),
            ])
        }
        Message::User(m) => sum(&[
            m.id.len(),
            user_content_bytes(&m.content),
            opt(&m.name),
            opt(&m.encrypted_value),
            metadata(&m.metadata),
            opt(&m.subagent_run_id),
        ]),
        Message::Tool(m) => sum(&[
            m.id.len(),
            user_content_bytes(&m.content),
            m.tool_call_id.len(),
            opt(&m.error),
            opt(&m.encrypted_value),
            metadata(&m.metadata),
            opt(&m.subagent_run_id),
        ]),
        Message::Activity(m) => sum(&[
            m.id.len(),
            m.activity_type.len(),
            json_size(&m.content).bytes,
            metadata(&m.metadata),
            opt(&m.subagent_run_id),
        ]),
        Message::Reasoning(m) => sum(&[
            m.id.len(),
            m.content.len(),
            opt(&m.encrypted_value),
            metadata(&m.metadata),
            opt(&m.subagent_run_id),
        ]),
    }
}

/// Bytes of a message's content alone (see [`message_bytes`]): the part
/// that text deltas append to, or replace when it is not text.
pub fn content_bytes(message: &Message) -> usize {
    match message {
        Message::Developer(m) | Message::System(m) => m.content.len(),
        Message::Assistant(m) => m.content.as_ref().map_or(0, String::len),
        Message::User(m) => user_content_bytes(&m.content),
        Message::Tool(m) => user_content_bytes(&m.content),
        Message::Activity(m) => json_size(&m.content).bytes,
        Message::Reasoning(m) => m.content.len(),
    }
}

/// Bytes of one tool call (see [`message_bytes`]): its strings, a second
/// copy of its id (the index's) and [`TOOL_CALL_OVERHEAD`].
pub fn tool_call_bytes(call: &ToolCall) -> usize {
    let metadata = call.metadata.as_ref().map_or(0, |m| object_size(m).bytes);
    call.id
        .len()
        .saturating_mul(2)
        .saturating_add(TOOL_CALL_OVERHEAD)
        .saturating_add(call.function.name.len())
        .saturating_add(call.function.arguments.len())
        .saturating_add(call.encrypted_value.as_ref().map_or(0, String::len))
        .saturating_add(metadata)
}

pub(crate) fn user_content_bytes(content: &UserContent) -> usize {
    let parts = match content {
        UserContent::Text(text) => return text.len(),
        UserContent::Parts(parts) => parts,
    };
    let media = |m: &MediaPart| {
        let source = match &m.source {
            InputSource::Data { value, mime_type } => value.len().saturating_add(mime_type.len()),
            InputSource::Url { value, mime_type } => value
                .len()
                .saturating_add(mime_type.as_ref().map_or(0, String::len)),
            InputSource::File {
                value,
                provider,
                mime_type,
            } => value
                .len()
                .saturating_add(provider.as_ref().map_or(0, String::len))
                .saturating_add(mime_type.as_ref().map_or(0, String::len)),
        };
        source
            .saturating_add(m.id.as_ref().map_or(0, String::len))
            .saturating_add(m.metadata.as_ref().map_or(0, |v| json_size(v).bytes))
    };
    let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    let any = |v: &Option<Value>| v.as_ref().map_or(0, |v| json_size(v).bytes);
    parts
        .iter()
        .map(|part| match part {
            InputPart::Text { text, id, metadata } => text
                .len()
                .saturating_add(opt(id))
                .saturating_add(any(metadata)),
            InputPart::Image(m)
            | InputPart::Audio(m)
            | InputPart::Video(m)
            | InputPart::Document(m) => media(m),
            InputPart::Binary(b) => b
                .mime_type
                .len()
                .saturating_add(opt(&b.id))
                .saturating_add(opt(&b.url))
                .saturating_add(opt(&b.data))
                .saturating_add(opt(&b.filename)),
        })
        .fold(0usize, usize::saturating_add)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sizes_are_the_compact_text() {
        let samples = [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(-12345678901234_i64),
            json!(u64::MAX),
            json!(0.1),
            json!(1e300),
            json!(-2.5e-7),
            json!(""),
            json!("\u{0}\u{1f}\"\\\n\r\t\u{8}\u{c}/é\u{2028}\u{7f}"),
            json!([]),
            json!({}),
            json!([1]),
            json!({"a": {}}),
            json!({"k\"ey": [1, [2, [3, {}]], "x"], "": null, "b": {"c": [true]}}),
        ];
        for v in samples {
            let text = serde_json::to_string(&v).unwrap();
            assert_eq!(json_size(&v).bytes, text.len(), "{text}");
            if let Value::Object(map) = &v {
                assert_eq!(object_size(map).bytes, text.len(), "{text}");
            }
        }
        assert_eq!(json_size(&json!([[[]]])).depth, 3);
        assert_eq!(json_size(&json!(1)).depth, 0);
    }

    #[test]
    fn the_issue_examples() {
        // Issue 11: 28 bytes, not 257; control characters count escaped.
        let v = json!({"a": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]});
        assert_eq!(json_size(&v).bytes, 28);
        let controls = Value::String("\u{1}".repeat(60));
        assert_eq!(json_size(&controls).bytes, 362);
    }
}
