//! Partial tool-call arguments: a value for the `TOOL_CALL_ARGS` buffer
//! before its JSON is complete (SPEC section 5, "Partial tool arguments").
//!
//! A UI wants to show `{"city": "Par` as `{"city": "Par"}` while the model is
//! still typing. [`PartialArgs`] takes the deltas one by one and after each
//! one exposes the current value as a [`serde_json::Value`]:
//!
//! * open strings, arrays and objects are closed: `{"a": ["x` reads as
//!   `{"a": ["x"]}`;
//! * a cut literal is finished: `[fal` is `[false]`, `{"a":n` is
//!   `{"a":null}`;
//! * a cut number is finished with a `0` where it needs a digit: `1.` is
//!   `1.0`, `1e` is `1e0` (so `1.0`), `-` is `-0` (`-0.0`);
//! * what cannot be completed yet is dropped: a dangling key (`{"a"`,
//!   `{"a":`), a trailing comma (`[1,` is `[1]`), a cut escape (`"ab\u12`
//!   and a trailing `\` read as `"ab"`), a high-surrogate escape whose low
//!   half has not arrived;
//! * when the text so far has no value (only whitespace), or once it can no
//!   longer be JSON (a bad byte, a second value), the value is the *last
//!   good* one, initially `{}`, and it stays so for this buffer.
//!
//! These are the rules of the npm `untruncate-json` package followed by
//! `JSON.parse`, as the reference client applies them, restated for valid
//! prefixes. Numbers are what `serde_json` makes of the completed text
//! (integers as `i64`/`u64` when they fit, else `f64`), and `null` beyond the
//! range of a double, as `JSON.parse`'s Infinity prints (see
//! [`crate::value::number_value`]).
//!
//! The work per delta is proportional to the delta: the value tree is built
//! in place from [`agui_core::json::Tokenizer`] tokens, a string grows by its
//! new fragments, and only the open number (if any) is re-read from its own
//! text. The whole buffer is never parsed again, except once to recover the
//! last good value when the text turns out not to be JSON.
//!
//! ```
//! use agui_alloc::partial::PartialArgs;
//! use serde_json::json;
//!
//! let mut args = PartialArgs::new();
//! assert_eq!(args.push("{\"city\": \"Par"), &json!({"city": "Par"}));
//! assert_eq!(args.push("is\", \"days\": [1, 2"), &json!({"city": "Paris", "days": [1, 2]}));
//! assert_eq!(args.push(", tr"), &json!({"city": "Paris", "days": [1, 2, true]}));
//! assert_eq!(args.push("ue]}"), &json!({"city": "Paris", "days": [1, 2, true]}));
//! assert_eq!(args.finish(), json!({"city": "Paris", "days": [1, 2, true]}));
//! ```
//!
//! # Deviations from the reference
//!
//! * A lone surrogate escape (a high half followed by anything but its low
//!   half, or a lone low half) reads as U+FFFD: a Rust string cannot hold
//!   it, where `JSON.parse` would keep it.
//! * `untruncate-json` takes the character right after a `\uXXXX` escape as
//!   part of the escape, so the reference reports the last good value at a
//!   few cut points just after such an escape (a cut right after a closing
//!   quote, or inside a second escape). We apply the rules above there too.
//! * Nesting deeper than 64 levels counts as invalid. (A number out of the
//!   `f64` range, `1e400`, is `null`: `JSON.parse` reads it as `Infinity`,
//!   which prints as `null`; this is the reference's reading, not a
//!   difference.)
//! * A number still open after more than [`MAX_NUMBER_TEXT`] characters
//!   keeps its last tentative value until it ends (then it is read once):
//!   re-reading it at every delta would cost its whole text per delta.

use agui_core::json::{JsonErrorKind, Literal, Token, Tokenizer};

/// Longest number text the partial arguments accept (far beyond the 17
/// significant digits an `f64` holds).
pub const MAX_NUMBER_TEXT: usize = 1024;
use alloc::string::String;
use alloc::vec::Vec;
use serde_json::{Map, Value};

use crate::value::number_value;

use crate::readers::HostStore;
use crate::readers::DEPTH;

/// One segment of the path from a container to the open value.
#[derive(Debug, Clone)]
enum Segment {
    /// An array element (always the last one when it was opened).
    Index(usize),
    /// An object member.
    Key(String),
}

/// The open scalar at the end of the path, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    /// None: the innermost open value is a container (or nothing).
    Nothing,
    /// A string growing by its fragments.
    Str,
    /// A number whose value is re-read from `Builder::number`.
    Number,
    /// A cut literal, already in the tree as its completed value.
    Literal,
}

/// The value tree under construction and the path to its open end.
///
/// A scalar (string or number) is put into the tree once it is complete,
/// with one walk down the path; one still open at the end of a delta is
/// placed there with its text so far (and updated at the end of each later
/// delta and when it ends). So a string or number that starts and ends
/// within one delta costs one walk, not one per token.
#[derive(Debug, Clone)]
struct Builder {
    /// The top-level value, once it has started.
    root: Option<Value>,
    /// From the root to the innermost open container (empty: the root
    /// itself). An open scalar in the tree is not on it: it is the
    /// container's member named `key`, or its last element.
    path: Vec<Segment>,
    /// The key being read, or read and waiting for its value.
    key: String,
    /// Whether `Text` belongs to a key.
    in_key: bool,
    /// The text of the open number.
    number: String,
    /// The text of the open string.
    text: String,
    /// The open scalar.
    open: Open,
    /// Whether the open string or number is in the tree (placed at the end
    /// of an earlier delta).
    placed: bool,
    /// How much of `text` the placed string holds.
    shown: usize,
}

/// The text could not be JSON (or holds a number out of range).
struct Invalid;

impl Builder {
    const fn new() -> Self {
        Builder {
            root: None,
            path: Vec::new(),
            key: String::new(),
            in_key: false,
            number: String::new(),
            text: String::new(),
            open: Open::Nothing,
            placed: false,
            shown: 0,
        }
    }

    /// Applies one token to the tree.
    fn token(&mut self, token: Token<'_>) -> Result<(), Invalid> {
        match token {
            Token::ObjectStart => self.place(Value::Object(Map::new())),
            Token::ArrayStart => self.place(Value::Array(Vec::new())),
            // Closing the root pops nothing: the path is empty then.
            Token::ObjectEnd | Token::ArrayEnd => {
                self.path.pop();
            }
            Token::KeyStart => {
                self.key.clear();
                self.in_key = true;
            }
            Token::KeyEnd => self.in_key = false,
            Token::StrStart => {
                self.text.clear();
                self.shown = 0;
                self.placed = false;
                self.open = Open::Str;
            }
            Token::Text(text) if self.in_key => self.key.push_str(text),
            Token::Char(c) if self.in_key => self.key.push(c),
            Token::Text(text) => self.text.push_str(text),
            Token::Char(c) => self.text.push(c),
            Token::StrEnd => {
                if self.placed {
                    self.show_text();
                } else {
                    self.put(Value::String(self.text.clone()));
                }
                self.open = Open::Nothing;
                self.placed = false;
            }
            Token::Number(text) => {
                if self.open != Open::Number {
                    self.number.clear();
                    self.placed = false;
                    self.open = Open::Number;
                }
                self.number.push_str(text);
            }
            Token::NumberEnd => {
                let number = self.number_value()?;
                if self.placed {
                    if let Some(slot) = self.open_scalar() {
                        *slot = number;
                    }
                } else {
                    self.put(number);
                }
                self.open = Open::Nothing;
                self.placed = false;
            }
            Token::True | Token::False | Token::Null => {
                let value = match token {
                    Token::True => Value::Bool(true),
                    Token::False => Value::Bool(false),
                    Token::ObjectStart
                    | Token::ObjectEnd
                    | Token::ArrayStart
                    | Token::ArrayEnd
                    | Token::KeyStart
                    | Token::KeyEnd
                    | Token::StrStart
                    | Token::StrEnd
                    | Token::Text(_)
                    | Token::Char(_)
                    | Token::Number(_)
                    | Token::NumberEnd
                    | Token::Null => Value::Null,
                };
                // A cut literal is already in place with this very value.
                if self.open != Open::Literal {
                    self.put(value);
                }
                self.open = Open::Nothing;
            }
        }
        Ok(())
    }

    /// Completes the cut end of the tree after the last token of a delta:
    /// the open string or number is shown with its text so far, a cut
    /// literal with its full value.
    fn settle(&mut self, pending: Option<Literal>) -> Result<(), Invalid> {
        match self.open {
            Open::Str => {
                if self.placed {
                    self.show_text();
                } else {
                    self.put(Value::String(self.text.clone()));
                    self.shown = self.text.len();
                    self.placed = true;
                }
            }
            // The open number is re-read at every delta; past
            // MAX_NUMBER_TEXT it keeps its last tentative value until it
            // ends, so that a number streamed digit by digit does not cost
            // its whole text per delta.
            Open::Number => {
                let number = if self.number.len() <= MAX_NUMBER_TEXT {
                    Some(self.number_value()?)
                } else {
                    None
                };
                match (number, self.placed) {
                    (Some(number), true) => {
                        if let Some(slot) = self.open_scalar() {
                            *slot = number;
                        }
                    }
                    (number, false) => {
                        self.put(number.unwrap_or(Value::Null));
                        self.placed = true;
                    }
                    (None, true) => {}
                }
            }
            Open::Nothing => {
                if let Some(lit) = pending {
                    self.put(match lit {
                        Literal::True => Value::Bool(true),
                        Literal::False => Value::Bool(false),
                        Literal::Null => Value::Null,
                    });
                    self.open = Open::Literal;
                }
            }
            Open::Literal => {}
        }
        Ok(())
    }

    /// Brings the placed open string up to `text`.
    fn show_text(&mut self) {
        let Some(new) = self.text.get(self.shown..) else {
            return;
        };
        if new.is_empty() {
            return;
        }
        let Some(root) = self.root.as_mut() else {
            return;
        };
        if let Some(Value::String(s)) = open_scalar(root, &self.path, &self.key) {
            s.push_str(new);
        }
        self.shown = self.text.len();
    }

    /// The open number's value from its text, completed with a `0` if it
    /// stops where a digit must follow (`-`, `1.`, `1e`, `1e+`).
    fn number_value(&self) -> Result<Value, Invalid> {
        let needs_digit = matches!(
            self.number.as_bytes().last(),
            Some(b'-' | b'+' | b'.' | b'e' | b'E')
        );
        // Beyond the double range the value is `null`, the reference's
        // Infinity as it prints (see `crate::value`).
        Ok(if needs_digit {
            let mut text = String::with_capacity(self.number.len().saturating_add(1));
            text.push_str(&self.number);
            text.push('0');
            number_value(&text)
        } else {
            number_value(&self.number)
        })
    }

    /// Puts a new value where the next value goes (the root, the end of the
    /// open array, or the member named by `key`) and makes it the end of
    /// the path.
    fn place(&mut self, value: Value) {
        let Some(root) = self.root.as_mut() else {
            self.root = Some(value);
            return;
        };
        match at_mut(root, &self.path) {
            Some(Value::Array(items)) => {
                items.push(value);
                self.path
                    .push(Segment::Index(items.len().saturating_sub(1)));
            }
            Some(Value::Object(members)) => {
                let key = core::mem::take(&mut self.key);
                members.insert(key.clone(), value);
                self.path.push(Segment::Key(key));
            }
            // The tokenizer only opens a value inside a container.
            _ => {}
        }
    }

    /// Puts a scalar where the next value goes, leaving the path as it is
    /// (the key stays until the next key starts: an open scalar is found
    /// again by it, see [`Builder::open_scalar`]).
    fn put(&mut self, value: Value) {
        let Some(root) = self.root.as_mut() else {
            self.root = Some(value);
            return;
        };
        match at_mut(root, &self.path) {
            Some(Value::Array(items)) => items.push(value),
            Some(Value::Object(members)) => {
                members.insert(self.key.clone(), value);
            }
            // The tokenizer only opens a value inside a container.
            _ => {}
        }
    }

    /// The open scalar [`put`](Self::put) in the tree: the member `key` of
    /// the innermost open container, its last element, or the root.
    fn open_scalar(&mut self) -> Option<&mut Value> {
        open_scalar(self.root.as_mut()?, &self.path, &self.key)
    }
}

/// See [`Builder::open_scalar`] (a free function, so that the builder's
/// other fields stay free to borrow).
fn open_scalar<'v>(root: &'v mut Value, path: &[Segment], key: &str) -> Option<&'v mut Value> {
    match at_mut(root, path)? {
        Value::Array(items) => items.last_mut(),
        Value::Object(members) => members.get_mut(key),
        scalar @ (Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_)) => {
            Some(scalar)
        }
    }
}

/// Follows `path` down from `value`.
fn at_mut<'v>(mut value: &'v mut Value, path: &[Segment]) -> Option<&'v mut Value> {
    for step in path {
        value = match (value, step) {
            (Value::Array(items), Segment::Index(i)) => items.get_mut(*i)?,
            (Value::Object(members), Segment::Key(key)) => members.get_mut(key.as_str())?,
            _ => return None,
        };
    }
    Some(value)
}

/// A value as it is shown when it is the last good one: the reference shows
/// `{}` instead of a last good `null` (it falls back with `??`).
fn as_last_good(value: Value) -> Value {
    match value {
        Value::Null => empty(),
        value @ (Value::Bool(_)
        | Value::Number(_)
        | Value::String(_)
        | Value::Array(_)
        | Value::Object(_)) => value,
    }
}

/// `{}`.
fn empty() -> Value {
    Value::Object(Map::new())
}

/// The arguments of one tool call as they stream in.
///
/// Keep one per tool call for as long as the tool call exists, feed it every
/// `TOOL_CALL_ARGS` delta with [`push`](Self::push), and read
/// [`finish`](Self::finish) at `TOOL_CALL_END`. A replayed
/// `TOOL_CALL_START` for a tool call that still exists keeps appending to
/// the same buffer, as the reference does; when the buffer is replaced (a
/// new tool call under an id seen before, or arguments from a snapshot) call
/// [`restart`](Self::restart), which keeps the last good value.
#[derive(Debug, Clone)]
pub struct PartialArgs {
    /// Tokenizes the buffer, delta by delta.
    tokenizer: Tokenizer<DEPTH, HostStore>,
    /// The text since the last restart (kept to recover the last good
    /// value, once, if the text turns out not to be JSON).
    buffer: String,
    /// The tree and its open end.
    builder: Builder,
    /// The buffer length at the end of the last delta that gave a value.
    good_len: Option<usize>,
    /// Shown when the buffer gives no value.
    last_good: Value,
    /// The buffer can no longer be JSON.
    failed: bool,
}

impl Default for PartialArgs {
    fn default() -> Self {
        Self::new()
    }
}

impl PartialArgs {
    /// An empty buffer; its value is `{}` until a value starts.
    pub fn new() -> Self {
        PartialArgs {
            tokenizer: Tokenizer::new(),
            buffer: String::new(),
            builder: Builder::new(),
            good_len: None,
            last_good: empty(),
            failed: false,
        }
    }

    /// A buffer that already holds `prefix` (for example arguments that came
    /// in a snapshot); the value shown until the first
    /// [`push`](Self::push) is `{}`.
    pub fn with_prefix(prefix: &str) -> Self {
        let mut args = Self::new();
        args.restart(prefix);
        args
    }

    /// Appends one `TOOL_CALL_ARGS` delta and returns the partial value.
    ///
    /// ```
    /// use agui_alloc::partial::PartialArgs;
    /// use serde_json::json;
    ///
    /// let mut args = PartialArgs::new();
    /// assert_eq!(args.push("  "), &json!({}));          // no value yet
    /// assert_eq!(args.push("[1, -"), &json!([1, -0.0]));
    /// assert_eq!(args.push("2]"), &json!([1, -2]));
    /// assert_eq!(args.push(" x"), &json!([1, -2]));     // `x`: not JSON any more,
    /// assert_eq!(args.push("\n"), &json!([1, -2]));     // ... for good
    /// assert_eq!(args.finish(), json!({}));
    /// ```
    pub fn push(&mut self, delta: &str) -> &Value {
        if !self.failed {
            let start = self.buffer.len();
            self.buffer.push_str(delta);
            match self.feed(start) {
                Ok(()) => {
                    if self.builder.root.is_some() {
                        self.good_len = Some(self.buffer.len());
                    }
                }
                Err(Invalid) => self.fail(),
            }
        }
        self.value()
    }

    /// Whether appending `delta` would nest the arguments deeper than the
    /// client's JSON depth ([`DEPTH`]). The reference has no depth limit,
    /// so such text would fold there while this buffer could only give up
    /// on it: the reducer refuses the event instead of silently keeping a
    /// stale value. A buffer that is no longer JSON cannot get deeper.
    /// Reads the delta once, on a copy of the tokenizer (a few words).
    pub fn too_deep_after(&self, delta: &str) -> bool {
        if self.failed {
            return false;
        }
        let mut tokenizer = self.tokenizer.clone();
        let mut rest = delta.as_bytes();
        loop {
            match tokenizer.next(rest) {
                Ok((used, Some(_))) => rest = rest.get(used..).unwrap_or_default(),
                Ok((_, None)) => return false,
                Err(e) => return e.kind == JsonErrorKind::TooDeep,
            }
        }
    }

    /// The value after the last delta (see the module documentation).
    pub fn value(&self) -> &Value {
        match (&self.builder.root, self.good_len) {
            (Some(value), Some(_)) if !self.failed => value,
            _ => &self.last_good,
        }
    }

    /// The arguments at `TOOL_CALL_END`: the buffer as JSON if it is one
    /// complete, valid document (surrounding whitespace allowed), else `{}`.
    pub fn finish(&self) -> Value {
        self.finished().cloned().unwrap_or_else(empty)
    }

    /// The buffer's value if it is one complete, valid JSON document, by
    /// reference (`None` where [`finish`](Self::finish) gives `{}`).
    pub fn finished(&self) -> Option<&Value> {
        if self.failed {
            return None;
        }
        let mut tokenizer = self.tokenizer.clone();
        match (tokenizer.finish(), &self.builder.root) {
            (Ok(_), Some(value)) => Some(value),
            _ => None,
        }
    }

    /// Whether the buffer is one complete JSON document (then
    /// [`finish`](Self::finish) is its value).
    pub fn is_complete(&self) -> bool {
        !self.failed && self.tokenizer.clone().finish().is_ok()
    }

    /// Whether nothing was read since [`new`](Self::new): no text, and
    /// the last good value is still the first `{}` (so the buffer is
    /// exactly a new one, as far as any later text can tell).
    pub fn is_fresh(&self) -> bool {
        !self.failed
            && self.buffer.is_empty()
            && self.good_len.is_none()
            && self.builder.root.is_none()
            && matches!(&self.last_good, Value::Object(m) if m.is_empty())
    }

    /// Replaces the buffer by `prefix`, keeping the last good value (the one
    /// shown when the new text gives no value). The value shown is the last
    /// good one until the next [`push`](Self::push).
    pub fn restart(&mut self, prefix: &str) {
        if !self.failed && self.good_len.is_some() {
            if let Some(value) = self.builder.root.take() {
                self.last_good = as_last_good(value);
            }
        }
        self.tokenizer.reset();
        self.builder = Builder::new();
        self.buffer.clear();
        self.buffer.push_str(prefix);
        self.good_len = None;
        self.failed = false;
        if self.feed(0).is_err() {
            self.failed = true;
            self.drop_text();
        }
    }

    /// Tokenizes `buffer[start..]` into the tree, then completes its cut end.
    fn feed(&mut self, start: usize) -> Result<(), Invalid> {
        let mut rest = self.buffer.as_bytes().get(start..).unwrap_or_default();
        loop {
            match self.tokenizer.next(rest) {
                Ok((used, Some(token))) => {
                    self.builder.token(token)?;
                    rest = rest.get(used..).unwrap_or_default();
                }
                Ok((_, None)) => break,
                Err(_) => return Err(Invalid),
            }
        }
        self.builder.settle(self.tokenizer.pending_literal())
    }

    /// The buffer can no longer be JSON: from now on the value is the one
    /// of the last delta that gave a value (rebuilt once from its text,
    /// since the tree may already hold part of this delta).
    fn fail(&mut self) {
        self.failed = true;
        let good = self.good_len.and_then(|len| self.buffer.get(..len));
        if let Some(value) = good.and_then(build) {
            self.last_good = as_last_good(value);
        }
        self.drop_text();
    }

    /// Frees what a failed buffer no longer needs.
    fn drop_text(&mut self) {
        self.buffer = String::new();
        self.builder = Builder::new();
    }
}

/// The partial value of `text` in one go (`None` if it has none).
fn build(text: &str) -> Option<Value> {
    let mut args = PartialArgs::new();
    args.buffer.push_str(text);
    args.feed(0).ok()?;
    args.builder.root
}

#[cfg(test)]
mod tests;
