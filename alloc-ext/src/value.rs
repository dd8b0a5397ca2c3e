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

use crate::client::DEPTH;

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
    let mut tz: Tokenizer<DEPTH> = Tokenizer::new();
    let mut builder = Builder::default();
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
    builder
        .done
        .ok_or_else(|| "the frame holds no JSON value".to_string())
}

fn json_error(e: &agui_core::json::JsonError) -> String {
    format!("invalid JSON at byte {} of the frame: {}", e.offset, e.kind)
}

/// An array or object being built, with the key of its pending member.
enum Open {
    Array(Vec<Value>),
    Object(Map<String, Value>, String),
}

#[derive(Default)]
struct Builder {
    open: Vec<Open>,
    text: String,
    number: String,
    done: Option<Value>,
}

impl Builder {
    fn token(&mut self, token: Token<'_>) -> Result<(), String> {
        match token {
            Token::ObjectStart => self.open.push(Open::Object(Map::new(), String::new())),
            Token::ArrayStart => self.open.push(Open::Array(Vec::new())),
            Token::ObjectEnd | Token::ArrayEnd => {
                let value = match self.open.pop() {
                    Some(Open::Array(items)) => Value::Array(items),
                    Some(Open::Object(map, _)) => Value::Object(map),
                    None => return Err("unbalanced JSON".to_string()),
                };
                self.value(value);
            }
            Token::KeyStart | Token::StrStart => self.text.clear(),
            Token::Text(s) => self.text.push_str(s),
            Token::Char(c) => self.text.push(c),
            Token::KeyEnd => {
                if let Some(Open::Object(_, key)) = self.open.last_mut() {
                    core::mem::swap(key, &mut self.text);
                }
            }
            Token::StrEnd => {
                let text = core::mem::take(&mut self.text);
                self.value(Value::String(text));
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
                self.value(number);
            }
            Token::True => self.value(Value::Bool(true)),
            Token::False => self.value(Value::Bool(false)),
            Token::Null => self.value(Value::Null),
        }
        Ok(())
    }

    /// Whether the value being read is the member `key` of the frame's
    /// top-level object.
    fn at_top_level_key(&self, key: &str) -> bool {
        matches!(self.open.as_slice(), [Open::Object(_, k)] if k == key)
    }

    fn value(&mut self, value: Value) {
        match self.open.last_mut() {
            Some(Open::Array(items)) => items.push(value),
            Some(Open::Object(map, key)) => {
                map.insert(core::mem::take(key), value);
            }
            None => self.done = Some(value),
        }
    }
}
