//! JSON values built from the core tokenizer's tokens, and numbers as the
//! reference reads them.
//!
//! The client reads every frame, and the reducer every tool call's
//! arguments, with the core's tokenizer, so that both layers read the same
//! text the same way. Numbers follow JavaScript's `JSON.parse`, which the
//! reference uses: any number the grammar allows is accepted; one beyond
//! the range of a double (`1e999`, `-1e400`) is read as an infinity, and an
//! infinity is written as `null` by `JSON.stringify`, so it is kept as
//! `null` wherever it is kept (state, messages, metadata, arguments) and
//! `--json` prints `null` (SPEC section "Numbers beyond the double range").

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use agui_core::json::{Token, Tokenizer};
use serde_json::{Map, Number, Value};

use crate::readers::HostStore;
use crate::readers::DEPTH;
use crate::size::{scalar_bytes, string_bytes, Size};

/// The value of a number's text (already checked by the tokenizer's
/// grammar): the nearest double, an integer when it fits, or `null` for a
/// number beyond the range of a double (the reference's infinities).
///
/// ```
/// use agui_alloc::value::number_value;
/// use serde_json::json;
/// assert_eq!(number_value("12"), json!(12));
/// assert_eq!(number_value("1e999"), json!(null));
/// assert_eq!(number_value("-1e999"), json!(null));
/// assert_eq!(number_value("1e-999"), json!(0.0));
/// ```
pub fn number_value(text: &str) -> Value {
    // The grammar was checked, so the only failure left is the range.
    serde_json::from_str::<Number>(text).map_or(Value::Null, Value::Number)
}

/// A JSON text's value, read by the core tokenizer; numbers as
/// [`number_value`]. Later duplicate keys win, as in `JSON.parse`.
///
/// ```
/// use agui_alloc::value::parse;
/// use serde_json::json;
/// assert_eq!(parse(br#"{"a":[1e999,2]}"#).unwrap(), json!({"a": [null, 2]}));
/// assert!(parse(b"{").is_err());
/// ```
///
/// # Errors
/// The tokenizer's error, with its byte offset, if the text is not one
/// JSON value.
pub fn parse(text: &[u8]) -> Result<Value, String> {
    frame_value(text)
}

/// Builds the frame's value from the core tokenizer's tokens, so that the
/// reducer reads the text exactly as the decoder did (a lone surrogate
/// escape is U+FFFD in both; serde_json would reject the frame). Numbers
/// are [`number_value`]s. Later duplicate keys win.
pub(crate) fn frame_value(text: &[u8]) -> Result<Value, String> {
    frame_value_sized(text, None).map(|(value, _)| value)
}

/// [`frame_value`], and the [`json_size`](crate::size::json_size) of the
/// top-level member `measure` (if named, present and without duplicate keys
/// inside), counted while it is built: a large snapshot is measured while
/// its values are at hand, not by a second walk of the tree.
pub(crate) fn frame_value_sized(
    text: &[u8],
    measure: Option<&str>,
) -> Result<(Value, Option<Size>), String> {
    let mut tz: Tokenizer<DEPTH, HostStore> = Tokenizer::new();
    let mut builder = Builder {
        measure,
        ..Builder::default()
    };
    let mut rest = text;
    loop {
        let (used, token) = tz.next(rest).map_err(|e| json_error(&e))?;
        rest = rest.get(used..).unwrap_or_default();
        match token {
            Some(token) => builder.token(token)?,
            None => break,
        }
    }
    while let Some(token) = tz.finish().map_err(|e| json_error(&e))? {
        builder.token(token)?;
    }
    let measured = builder.measured;
    builder
        .done
        .map(|value| (value, measured))
        .ok_or_else(|| "the frame holds no JSON value".to_string())
}

fn json_error(e: &agui_core::json::JsonError) -> String {
    format!("invalid JSON at byte {} of the frame: {}", e.offset, e.kind)
}

/// An array or object being built, with the key of its pending member, and
/// the size of its members so far when it is measured (`None`: not
/// measured, or not exactly: a duplicate key replaced a member).
enum Open {
    Array(Vec<Value>, Option<Size>),
    Object(Map<String, Value>, String, Option<Size>),
}

#[derive(Default)]
struct Builder<'m> {
    open: Vec<Open>,
    text: String,
    number: String,
    done: Option<Value>,
    /// The top-level member to measure.
    measure: Option<&'m str>,
    /// Its size, once complete.
    measured: Option<Size>,
}

impl Builder<'_> {
    fn token(&mut self, token: Token<'_>) -> Result<(), String> {
        match token {
            Token::ObjectStart => {
                let acc = self.sizing().then(Size::default);
                self.open.push(Open::Object(Map::new(), String::new(), acc));
            }
            Token::ArrayStart => {
                let acc = self.sizing().then(Size::default);
                self.open.push(Open::Array(Vec::new(), acc));
            }
            Token::ObjectEnd | Token::ArrayEnd => {
                let (value, size) = match self.open.pop() {
                    Some(Open::Array(items, acc)) => {
                        // Brackets and the commas between items.
                        let size = acc.map(|a| Size {
                            bytes: a.bytes.saturating_add(items.len().max(1)).saturating_add(1),
                            depth: a.depth.saturating_add(1),
                        });
                        (Value::Array(items), size)
                    }
                    Some(Open::Object(map, _, acc)) => {
                        // Braces, less the comma the first member lacks.
                        let size = acc.map(|a| Size {
                            bytes: a.bytes.saturating_add(if map.is_empty() { 2 } else { 1 }),
                            depth: a.depth.saturating_add(1),
                        });
                        (Value::Object(map), size)
                    }
                    None => return Err("unbalanced JSON".to_string()),
                };
                self.value(value, size);
            }
            Token::KeyStart | Token::StrStart => self.text.clear(),
            Token::Text(s) => self.text.push_str(s),
            Token::Char(c) => self.text.push(c),
            Token::KeyEnd => {
                if let Some(Open::Object(_, key, _)) = self.open.last_mut() {
                    core::mem::swap(key, &mut self.text);
                }
            }
            Token::StrEnd => {
                let text = core::mem::take(&mut self.text);
                self.scalar(Value::String(text));
            }
            Token::Number(s) => self.number.push_str(s),
            Token::NumberEnd => {
                let mut number = number_value(&self.number);
                if number.is_null() && self.at_top_level_key("timestamp") {
                    // Only checked to be a number, never kept: the largest
                    // double stands for the reference's Infinity.
                    number = Value::from(f64::MAX);
                }
                self.number.clear();
                self.scalar(number);
            }
            Token::True => self.scalar(Value::Bool(true)),
            Token::False => self.scalar(Value::Bool(false)),
            Token::Null => self.scalar(Value::Null),
        }
        Ok(())
    }

    /// Whether the value being read is the member `key` of the frame's
    /// top-level object.
    fn at_top_level_key(&self, key: &str) -> bool {
        matches!(self.open.as_slice(), [Open::Object(_, k, _)] if k == key)
    }

    /// Whether the value that starts now is measured: the member to
    /// measure, or inside it.
    fn sizing(&self) -> bool {
        match self.open.last() {
            Some(Open::Array(_, Some(_)) | Open::Object(_, _, Some(_))) => true,
            Some(Open::Array(_, None) | Open::Object(_, _, None)) | None => {
                self.measure.is_some_and(|m| self.at_top_level_key(m))
            }
        }
    }

    fn scalar(&mut self, value: Value) {
        let size = self.sizing().then(|| Size {
            bytes: scalar_bytes(&value),
            depth: 0,
        });
        self.value(value, size);
    }

    fn value(&mut self, value: Value, size: Option<Size>) {
        if let (Some(m), [Open::Object(_, key, _)]) = (self.measure, self.open.as_slice()) {
            if key == m {
                // A later duplicate wins, as its value does.
                self.measured = size;
            }
        }
        match self.open.last_mut() {
            Some(Open::Array(items, acc)) => {
                add(acc, size, 0);
                items.push(value);
            }
            Some(Open::Object(map, key, acc)) => {
                // Key, colon, and the comma before every member but one.
                let overhead = string_bytes(key).saturating_add(2);
                add(acc, size, overhead);
                if map.insert(core::mem::take(key), value).is_some() {
                    *acc = None;
                }
            }
            None => self.done = Some(value),
        }
    }
}

/// Adds a member of `size` (and `overhead` bytes) to a container's size;
/// an unmeasured member leaves the container unmeasured.
fn add(acc: &mut Option<Size>, size: Option<Size>, overhead: usize) {
    if let Some(a) = acc {
        match size {
            Some(s) => {
                a.bytes = a.bytes.saturating_add(overhead).saturating_add(s.bytes);
                a.depth = a.depth.max(s.depth);
            }
            None => *acc = None,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::size::json_size;

    /// The member measured while it is read has the size `json_size` gives
    /// it afterwards; duplicate keys inside make it unmeasured.
    #[test]
    fn sized_member_has_its_json_size() {
        let members = [
            r#"{"a":[1,2.5,-0.0,1e300,1e999,"x\"\n\u0001é😀"],"b":{},"c":[],"d":[[],{}],"e":null,"f":true,"g":false}"#,
            r#"[]"#,
            r#"{}"#,
            r#""just a string \\ with escapes\t""#,
            r#"12345678901234567890123"#,
            r#"-1.5e-7"#,
            r#"null"#,
            r#"{"items":[{"id":"item-1","tags":["t1","t2"],"n":{"deep":[[[[1]]]]}}]}"#,
        ];
        for member in members {
            let frame = format!(r#"{{"type":"STATE_SNAPSHOT","snapshot":{member},"x":[1]}}"#);
            let (value, size) = frame_value_sized(frame.as_bytes(), Some("snapshot")).unwrap();
            assert_eq!(size, Some(json_size(&value["snapshot"])), "{member}");
            // Spaces in the text do not count.
            let spaced = format!(r#"{{ "snapshot" : {} }}"#, member.replace(',', " , "));
            let (value, size) = frame_value_sized(spaced.as_bytes(), Some("snapshot")).unwrap();
            assert_eq!(size, Some(json_size(&value["snapshot"])), "{spaced}");
        }
        // A later duplicate member wins, and its size.
        let (value, size) = frame_value_sized(
            br#"{"snapshot":[1,2,3],"snapshot":{"k":"v"}}"#,
            Some("snapshot"),
        )
        .unwrap();
        assert_eq!(size, Some(json_size(&value["snapshot"])));
        // A duplicate key inside: not measured.
        let (_, size) =
            frame_value_sized(br#"{"snapshot":{"a":{"k":1,"k":22}}}"#, Some("snapshot")).unwrap();
        assert_eq!(size, None);
        // Absent, or not asked for.
        let (_, size) = frame_value_sized(br#"{"state":[1]}"#, Some("snapshot")).unwrap();
        assert_eq!(size, None);
        let (_, size) = frame_value_sized(br#"{"snapshot":[1]}"#, None).unwrap();
        assert_eq!(size, None);
        // Only the top-level member.
        let (_, size) = frame_value_sized(br#"{"x":{"snapshot":[1]}}"#, Some("snapshot")).unwrap();
        assert_eq!(size, None);
    }
}
