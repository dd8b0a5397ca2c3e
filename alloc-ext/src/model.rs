//! Typed wire models: messages, tool calls, run input and interrupts.
//!
//! Everything serializes with the wire's camelCase names and omits absent
//! optional fields. Decoding goes through [`Message::from_json`] and friends,
//! which read a [`serde_json::Value`] and report a bad nested value with its
//! path (`messages.0.role: ...`); the `Deserialize` impls use the same
//! decoders, so both ways accept exactly the same input. Unknown keys are
//! dropped.
//!
//! `null` and absent are different: an optional string or object field that
//! is `null` is rejected (as the reference's schema does), while fields typed
//! "any JSON" (`state`, `forwardedProps`, `payload`, `parameters`, an input
//! part's `metadata`) keep an explicit `null` as `Some(Value::Null)`.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// A JSON object, as used for `metadata` and activity content.
pub type Object = Map<String, Value>;

/// The wire name of AG-UI 1.0's owner tag (SPEC 9.5).
pub(crate) const SUBAGENT_RUN_ID: &str = "subagentRunId";

/// Which protocol's shapes a decoder reads (SPEC section 9.5 lists what
/// AG-UI 1.0 adds): the client sets it from the stream's protocol.
///
/// In [`Dialect::Current`] a key that 1.0 added (`subagentRunId` on a
/// message, a part's `id`) is an unknown key and is dropped, as the
/// current reference drops it; in [`Dialect::V1`] it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dialect {
    /// The protocol as of August 2026 (SPEC sections 0-8).
    #[default]
    Current,
    /// AG-UI 1.0 (SPEC section 9).
    V1,
}

// ---------------------------------------------------------------------------
// Decode errors and field readers
// ---------------------------------------------------------------------------

/// A value that does not match the schema, with the path to the bad part.
///
/// Displays as `path: reason`, e.g.
/// `messages.0.role: Invalid discriminator value. Expected 'developer' | ...`.
///
/// ```
/// use agui_alloc::model::Message;
/// let bad = serde_json::json!({"id": "x", "role": "wizard"});
/// let err = Message::from_json(&bad).unwrap_err();
/// assert!(err.to_string().starts_with("role: Invalid discriminator value"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    path: String,
    reason: String,
}

impl DecodeError {
    /// An error at the current position (empty path).
    pub fn new(reason: impl Into<String>) -> Self {
        DecodeError {
            path: String::new(),
            reason: reason.into(),
        }
    }

    /// The dotted path to the bad value (`""` for the value itself).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What is wrong, without the path.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The same error one level down: `segment` is prepended to the path.
    /// Only runs when decoding fails, so the copying does not matter.
    pub fn within(mut self, segment: &str) -> Self {
        self.path = if self.path.is_empty() {
            segment.to_owned()
        } else {
            format!("{segment}.{}", self.path)
        };
        self
    }

    /// [`DecodeError::within`] for an array index.
    pub fn within_index(self, index: usize) -> Self {
        self.within(&index.to_string())
    }

    pub(crate) fn required(key: &str) -> Self {
        DecodeError::new("Required").within(key)
    }

    pub(crate) fn expected(what: &str, got: &Value) -> Self {
        DecodeError::new(format!("Expected {what}, received {}", kind_name(got)))
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.reason)
        } else {
            write!(f, "{}: {}", self.path, self.reason)
        }
    }
}

/// The schema's name for the JSON kind of `v` (as in "received number").
fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Reads the fields of one JSON object; every error names the field.
#[derive(Clone, Copy)]
pub(crate) struct Fields<'a>(&'a Object, Dialect);

impl<'a> Fields<'a> {
    /// `v` must be an object (read in the current dialect).
    pub(crate) fn of(v: &'a Value) -> Result<Self, DecodeError> {
        Self::of_in(v, Dialect::Current)
    }

    /// `v` must be an object, read in `dialect`.
    pub(crate) fn of_in(v: &'a Value, dialect: Dialect) -> Result<Self, DecodeError> {
        match v {
            Value::Object(map) => Ok(Fields(map, dialect)),
            other @ (Value::Null
            | Value::Bool(_)
            | Value::Number(_)
            | Value::String(_)
            | Value::Array(_)) => Err(DecodeError::expected("object", other)),
        }
    }

    /// The dialect the object is read in.
    pub(crate) fn dialect(self) -> Dialect {
        self.1
    }

    /// An optional string that only AG-UI 1.0 describes: read in
    /// [`Dialect::V1`] (`null` is a type error), an unknown key (dropped)
    /// in the current dialect.
    pub(crate) fn v1_opt_string(self, key: &str) -> Result<Option<String>, DecodeError> {
        match self.1 {
            Dialect::V1 => self.opt_string(key),
            Dialect::Current => Ok(None),
        }
    }

    /// The raw value of `key`, `null` included.
    pub(crate) fn get(self, key: &str) -> Option<&'a Value> {
        self.0.get(key)
    }

    /// The names of the object's keys.
    pub(crate) fn keys(self) -> impl Iterator<Item = &'a String> {
        self.0.keys()
    }

    /// A required string.
    pub(crate) fn str(self, key: &str) -> Result<&'a str, DecodeError> {
        match self.0.get(key) {
            None => Err(DecodeError::required(key)),
            Some(Value::String(s)) => Ok(s),
            Some(other) => Err(DecodeError::expected("string", other).within(key)),
        }
    }

    /// A required string, owned.
    pub(crate) fn string(self, key: &str) -> Result<String, DecodeError> {
        self.str(key).map(ToOwned::to_owned)
    }

    /// An optional string; `null` is a type error.
    pub(crate) fn opt_str(self, key: &str) -> Result<Option<&'a str>, DecodeError> {
        match self.0.get(key) {
            None => Ok(None),
            Some(_) => self.str(key).map(Some),
        }
    }

    /// An optional string, owned; `null` is a type error.
    pub(crate) fn opt_string(self, key: &str) -> Result<Option<String>, DecodeError> {
        Ok(self.opt_str(key)?.map(ToOwned::to_owned))
    }

    /// An optional string where `null` means absent.
    pub(crate) fn nullable_string(self, key: &str) -> Result<Option<String>, DecodeError> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(_) => self.string(key).map(Some),
        }
    }

    /// An optional boolean; `null` is a type error.
    pub(crate) fn opt_bool(self, key: &str) -> Result<Option<bool>, DecodeError> {
        match self.0.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(DecodeError::expected("boolean", other).within(key)),
        }
    }

    /// An optional value of any JSON type; an explicit `null` is kept.
    pub(crate) fn opt_any(self, key: &str) -> Option<Value> {
        self.0.get(key).cloned()
    }

    /// A required object.
    pub(crate) fn object(self, key: &str) -> Result<&'a Object, DecodeError> {
        match self.0.get(key) {
            None => Err(DecodeError::required(key)),
            Some(Value::Object(map)) => Ok(map),
            Some(other) => Err(DecodeError::expected("object", other).within(key)),
        }
    }

    /// An optional object (`metadata`, `responseSchema`); `null` is a type error.
    pub(crate) fn opt_object(self, key: &str) -> Result<Option<Object>, DecodeError> {
        match self.0.get(key) {
            None => Ok(None),
            Some(_) => self.object(key).map(|m| Some(m.clone())),
        }
    }

    /// A required array.
    pub(crate) fn array(self, key: &str) -> Result<&'a [Value], DecodeError> {
        match self.0.get(key) {
            None => Err(DecodeError::required(key)),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(DecodeError::expected("array", other).within(key)),
        }
    }

    /// A required array decoded item by item; errors name `key.index`.
    pub(crate) fn list<T>(
        self,
        key: &str,
        decode: impl Fn(&Value) -> Result<T, DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        decode_list(self.array(key)?, decode).map_err(|e| e.within(key))
    }

    /// An optional array decoded item by item; `null` is a type error.
    pub(crate) fn opt_list<T>(
        self,
        key: &str,
        decode: impl Fn(&Value) -> Result<T, DecodeError>,
    ) -> Result<Option<Vec<T>>, DecodeError> {
        match self.0.get(key) {
            None => Ok(None),
            Some(_) => self.list(key, decode).map(Some),
        }
    }

    /// A required string that must be one of `allowed`.
    pub(crate) fn one_of(self, key: &str, allowed: &[&str]) -> Result<&'a str, DecodeError> {
        let value = self.str(key)?;
        if allowed.contains(&value) {
            Ok(value)
        } else {
            Err(DecodeError::new(format!(
                "Invalid enum value. Expected {}, received '{value}'",
                quoted_alternatives(allowed)
            ))
            .within(key))
        }
    }

    /// A required string literal (`type: "function"`).
    pub(crate) fn literal(self, key: &str, expected: &str) -> Result<(), DecodeError> {
        match self.0.get(key) {
            Some(Value::String(s)) if s == expected => Ok(()),
            _ => Err(
                DecodeError::new(format!("Invalid literal value, expected \"{expected}\""))
                    .within(key),
            ),
        }
    }

    /// Fails if the object has a key outside `allowed` (a *strict* schema).
    pub(crate) fn strict(self, allowed: &[&str]) -> Result<(), DecodeError> {
        let unknown: Vec<&str> = self
            .keys()
            .map(String::as_str)
            .filter(|k| !allowed.contains(k))
            .collect();
        if unknown.is_empty() {
            return Ok(());
        }
        let names: Vec<String> = unknown.iter().map(|k| format!("'{k}'")).collect();
        Err(DecodeError::new(format!(
            "Unrecognized key(s) in object: {}",
            names.join(", ")
        )))
    }
}

/// Decodes every item of `items`; an error names the item's index.
pub(crate) fn decode_list<T>(
    items: &[Value],
    decode: impl Fn(&Value) -> Result<T, DecodeError>,
) -> Result<Vec<T>, DecodeError> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| decode(item).map_err(|e| e.within_index(i)))
        .collect()
}

/// `'a' | 'b' | 'c'`, as the schema words its alternatives.
fn quoted_alternatives(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    quoted.join(" | ")
}

/// The discriminator error for an object's `type` or `role`.
fn bad_discriminator(key: &str, allowed: &[&str]) -> DecodeError {
    DecodeError::new(format!(
        "Invalid discriminator value. Expected {}",
        quoted_alternatives(allowed)
    ))
    .within(key)
}

/// Reads the discriminator `key` of `f`, which must be one of `allowed`.
fn discriminator<'a>(f: Fields<'a>, key: &str, allowed: &[&str]) -> Result<&'a str, DecodeError> {
    match f.get(key) {
        Some(Value::String(s)) if allowed.contains(&s.as_str()) => Ok(s),
        _ => Err(bad_discriminator(key, allowed)),
    }
}

/// Implements `Deserialize` through the type's path-reporting decoder, so
/// serde users get the same validation and error texts.
macro_rules! deserialize_via_json {
    ($($ty:ty),* $(,)?) => {$(
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = Value::deserialize(deserializer)?;
                <$ty>::from_json(&value).map_err(serde::de::Error::custom)
            }
        }
    )*};
}

// ---------------------------------------------------------------------------
// Tool calls
// ---------------------------------------------------------------------------

/// The `type` of a tool call; the protocol only knows `"function"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum ToolCallType {
    /// `"function"`
    #[default]
    #[serde(rename = "function")]
    Function,
}

/// The function a tool call invokes: its name and its JSON arguments as text.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct FunctionCall {
    /// The tool's name.
    pub name: String,
    /// The arguments as streamed: JSON text, possibly incomplete.
    pub arguments: String,
}

/// One tool call of an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The tool call's id.
    pub id: String,
    /// Always `"function"`.
    #[serde(rename = "type")]
    pub call_type: ToolCallType,
    /// Name and arguments.
    pub function: FunctionCall,
    /// Set by `REASONING_ENCRYPTED_VALUE` with subtype `tool-call`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Object>,
}

impl ToolCall {
    /// A new call with empty arguments, as `TOOL_CALL_START` creates it.
    ///
    /// ```
    /// let call = agui_alloc::model::ToolCall::new("tc1", "search");
    /// assert_eq!(
    ///     serde_json::to_value(&call).unwrap(),
    ///     serde_json::json!({"id": "tc1", "type": "function",
    ///                        "function": {"name": "search", "arguments": ""}})
    /// );
    /// ```
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> Self {
        ToolCall {
            id: id.into(),
            call_type: ToolCallType::Function,
            function: FunctionCall {
                name: name.into(),
                arguments: String::new(),
            },
            encrypted_value: None,
            metadata: None,
        }
    }

    /// Decodes a tool call; errors name the path inside it.
    pub fn from_json(v: &Value) -> Result<Self, DecodeError> {
        let f = Fields::of(v)?;
        f.literal("type", "function")?;
        let function = {
            let g = Fields::of(
                f.get("function")
                    .ok_or_else(|| DecodeError::required("function"))?,
            )
            .map_err(|e| e.within("function"))?;
            FunctionCall {
                name: g.string("name").map_err(|e| e.within("function"))?,
                arguments: g.string("arguments").map_err(|e| e.within("function"))?,
            }
        };
        Ok(ToolCall {
            id: f.string("id")?,
            call_type: ToolCallType::Function,
            function,
            encrypted_value: f.opt_string("encryptedValue")?,
            metadata: f.opt_object("metadata")?,
        })
    }
}

// ---------------------------------------------------------------------------
// User content
// ---------------------------------------------------------------------------

/// Where an image / audio / video / document part's bytes are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum InputSource {
    /// Inline data (e.g. base64).
    Data {
        /// The data.
        value: String,
        /// Its MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A URL to fetch.
    Url {
        /// The URL.
        value: String,
        /// Its MIME type, if known.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
    },
    /// AG-UI 1.0: a handle a model provider issued for an uploaded file;
    /// opaque, never fetched or parsed.
    File {
        /// The handle.
        value: String,
        /// Who issued it.
        #[serde(skip_serializing_if = "Option::is_none")]
        provider: Option<String>,
        /// Its MIME type, if known.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
    },
}

impl InputSource {
    fn from_json_in(v: &Value, dialect: Dialect) -> Result<Self, DecodeError> {
        let f = Fields::of_in(v, dialect)?;
        let types: &[&str] = match dialect {
            Dialect::Current => &["data", "url"],
            Dialect::V1 => &["data", "url", "file"],
        };
        match discriminator(f, "type", types)? {
            "data" => Ok(InputSource::Data {
                value: f.string("value")?,
                mime_type: f.string("mimeType")?,
            }),
            "url" => Ok(InputSource::Url {
                value: f.string("value")?,
                mime_type: f.opt_string("mimeType")?,
            }),
            // "file": `discriminator` lets only the listed names through.
            _ => Ok(InputSource::File {
                value: f.string("value")?,
                provider: f.opt_string("provider")?,
                mime_type: f.opt_string("mimeType")?,
            }),
        }
    }
}

/// A media part (image, audio, video or document) of user content.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MediaPart {
    /// AG-UI 1.0: the part's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Where the bytes are.
    pub source: InputSource,
    /// Free-form; any JSON, an explicit `null` kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

impl MediaPart {
    fn from_fields(f: Fields<'_>) -> Result<Self, DecodeError> {
        let source = f
            .get("source")
            .ok_or_else(|| DecodeError::required("source"))?;
        Ok(MediaPart {
            id: f.v1_opt_string("id")?,
            source: InputSource::from_json_in(source, f.dialect())
                .map_err(|e| e.within("source"))?,
            metadata: f.opt_any("metadata"),
        })
    }
}

/// The legacy `binary` part of user content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BinaryPart {
    /// MIME type of the data.
    pub mime_type: String,
    /// An id the server knows the data by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// A URL to fetch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Inline data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    /// A file name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
}

impl BinaryPart {
    fn from_fields(f: Fields<'_>) -> Result<Self, DecodeError> {
        let part = BinaryPart {
            mime_type: f.string("mimeType")?,
            id: f.opt_string("id")?,
            url: f.opt_string("url")?,
            data: f.opt_string("data")?,
            filename: f.opt_string("filename")?,
        };
        // An empty string counts as missing, as in the reference.
        let given = |s: &Option<String>| s.as_deref().is_some_and(|s| !s.is_empty());
        if given(&part.id) || given(&part.url) || given(&part.data) {
            Ok(part)
        } else {
            Err(
                DecodeError::new("BinaryInputContent requires at least one of id, url, or data.")
                    .within("id"),
            )
        }
    }
}

/// One part of a user message's array content.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum InputPart {
    /// `{type:"text", text, id?, metadata?}` (`id` and `metadata` are
    /// AG-UI 1.0's)
    Text {
        /// The text.
        text: String,
        /// AG-UI 1.0: the part's id.
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// AG-UI 1.0: free-form; any JSON.
        #[serde(skip_serializing_if = "Option::is_none")]
        metadata: Option<Value>,
    },
    /// `{type:"image", source, metadata?}`
    Image(MediaPart),
    /// `{type:"audio", source, metadata?}`
    Audio(MediaPart),
    /// `{type:"video", source, metadata?}`
    Video(MediaPart),
    /// `{type:"document", source, metadata?}`
    Document(MediaPart),
    /// Legacy `{type:"binary", mimeType, id?, url?, data?, filename?}`
    /// (gone in AG-UI 1.0, whose client upgrades it to a media part)
    Binary(BinaryPart),
}

impl InputPart {
    const TYPES: &'static [&'static str] =
        &["text", "image", "audio", "video", "document", "binary"];
    const TYPES_V1: &'static [&'static str] = &["text", "image", "audio", "video", "document"];

    /// Decodes one input part; errors name the path inside it.
    pub fn from_json(v: &Value) -> Result<Self, DecodeError> {
        Self::from_json_in(v, Dialect::Current)
    }

    /// [`InputPart::from_json`] in `dialect`.
    pub fn from_json_in(v: &Value, dialect: Dialect) -> Result<Self, DecodeError> {
        let f = Fields::of_in(v, dialect)?;
        let types = match dialect {
            Dialect::Current => Self::TYPES,
            Dialect::V1 => Self::TYPES_V1,
        };
        Ok(match discriminator(f, "type", types)? {
            "text" => InputPart::Text {
                text: f.string("text")?,
                id: f.v1_opt_string("id")?,
                metadata: match dialect {
                    Dialect::V1 => f.opt_any("metadata"),
                    Dialect::Current => None,
                },
            },
            "image" => InputPart::Image(MediaPart::from_fields(f)?),
            "audio" => InputPart::Audio(MediaPart::from_fields(f)?),
            "video" => InputPart::Video(MediaPart::from_fields(f)?),
            "document" => InputPart::Document(MediaPart::from_fields(f)?),
            _ => InputPart::Binary(BinaryPart::from_fields(f)?),
        })
    }
}

/// A user message's content: a string or an array of input parts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum UserContent {
    /// Plain text.
    Text(String),
    /// Multimodal parts.
    Parts(Vec<InputPart>),
}

impl UserContent {
    fn from_json_in(v: &Value, dialect: Dialect) -> Result<Self, DecodeError> {
        match v {
            Value::String(s) => Ok(UserContent::Text(s.clone())),
            Value::Array(items) => {
                decode_list(items, |p| InputPart::from_json_in(p, dialect)).map(UserContent::Parts)
            }
            other @ (Value::Null | Value::Bool(_) | Value::Number(_) | Value::Object(_)) => {
                Err(DecodeError::expected("string or array", other))
            }
        }
    }
}

/// The text for a person: the text itself, or the parts' texts with a tag
/// such as `[image]` for each media part, separated by spaces.
impl fmt::Display for UserContent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts = match self {
            UserContent::Text(text) => return f.write_str(text),
            UserContent::Parts(parts) => parts,
        };
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            match part {
                InputPart::Text { text, .. } => f.write_str(text)?,
                InputPart::Image(_) => f.write_str("[image]")?,
                InputPart::Audio(_) => f.write_str("[audio]")?,
                InputPart::Video(_) => f.write_str("[video]")?,
                InputPart::Document(_) => f.write_str("[document]")?,
                InputPart::Binary(_) => f.write_str("[binary]")?,
            }
        }
        Ok(())
    }
}

impl From<&str> for UserContent {
    fn from(text: &str) -> Self {
        UserContent::Text(text.to_owned())
    }
}

impl From<String> for UserContent {
    fn from(text: String) -> Self {
        UserContent::Text(text)
    }
}

/// A tool message's content: text, or (AG-UI 1.0) content parts, the same
/// shapes as a user message's.
pub type ToolContent = UserContent;

impl Default for UserContent {
    fn default() -> Self {
        UserContent::Text(String::new())
    }
}

// ---------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------

/// A `developer` or `system` message (both have the same fields).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstructionMessage {
    /// The message id.
    pub id: String,
    /// The text.
    pub content: String,
    /// The author's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Opaque provider data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Object>,
    /// AG-UI 1.0: the sub-agent invocation that produced the message
    /// (absent: the parent agent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}

/// An `assistant` message.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessage {
    /// The message id.
    pub id: String,
    /// The text, absent for a message that only holds tool calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The author's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The tool calls this message makes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCall>>,
    /// Opaque provider data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Object>,
    /// AG-UI 1.0: the sub-agent invocation that produced the message
    /// (absent: the parent agent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}

/// A `user` message.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UserMessage {
    /// The message id.
    pub id: String,
    /// Text or multimodal parts.
    pub content: UserContent,
    /// The author's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Opaque provider data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Object>,
    /// AG-UI 1.0: the sub-agent invocation that produced the message
    /// (absent: the parent agent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}

/// A `tool` message: the result of a tool call.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolMessage {
    /// The message id.
    pub id: String,
    /// The result: text, or (AG-UI 1.0) content parts.
    pub content: ToolContent,
    /// The tool call this answers.
    pub tool_call_id: String,
    /// An error text, if the tool failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Opaque provider data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Object>,
    /// AG-UI 1.0: the sub-agent invocation that produced the message
    /// (absent: the parent agent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}

/// An `activity` message: structured UI content patched over time.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActivityMessage {
    /// The message id.
    pub id: String,
    /// What kind of activity this is.
    pub activity_type: String,
    /// An object on the wire. Kept as a [`Value`] because text content
    /// events may turn it into a string, as the reference does.
    pub content: Value,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Object>,
    /// AG-UI 1.0: the sub-agent invocation that produced the message
    /// (absent: the parent agent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}

/// A `reasoning` message.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningMessage {
    /// The message id.
    pub id: String,
    /// The reasoning text.
    pub content: String,
    /// Opaque provider data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Object>,
    /// AG-UI 1.0: the sub-agent invocation that produced the message
    /// (absent: the parent agent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}

/// A message of the conversation, tagged by `role` on the wire.
///
/// ```
/// use agui_alloc::model::{Message, MessageRole};
/// let m = Message::from_json(&serde_json::json!(
///     {"id": "u1", "role": "user", "content": "hi", "extra": 1}
/// )).unwrap();
/// assert_eq!((m.id(), m.role()), ("u1", MessageRole::User));
/// // The unknown key was dropped.
/// assert_eq!(serde_json::to_string(&m).unwrap(), r#"{"role":"user","id":"u1","content":"hi"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    /// `developer`
    Developer(InstructionMessage),
    /// `system`
    System(InstructionMessage),
    /// `assistant`
    Assistant(AssistantMessage),
    /// `user`
    User(UserMessage),
    /// `tool`
    Tool(ToolMessage),
    /// `activity`
    Activity(ActivityMessage),
    /// `reasoning`
    Reasoning(ReasoningMessage),
}

/// The `role` of a [`Message`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MessageRole {
    /// `developer`
    Developer,
    /// `system`
    System,
    /// `assistant`
    Assistant,
    /// `user`
    User,
    /// `tool`
    Tool,
    /// `activity`
    Activity,
    /// `reasoning`
    Reasoning,
}

impl MessageRole {
    /// Every role, in the wire's order.
    pub const ALL: &'static [MessageRole] = &[
        MessageRole::Developer,
        MessageRole::System,
        MessageRole::Assistant,
        MessageRole::User,
        MessageRole::Tool,
        MessageRole::Activity,
        MessageRole::Reasoning,
    ];

    const NAMES: &'static [&'static str] = &[
        "developer",
        "system",
        "assistant",
        "user",
        "tool",
        "activity",
        "reasoning",
    ];

    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            MessageRole::Developer => "developer",
            MessageRole::System => "system",
            MessageRole::Assistant => "assistant",
            MessageRole::User => "user",
            MessageRole::Tool => "tool",
            MessageRole::Activity => "activity",
            MessageRole::Reasoning => "reasoning",
        }
    }

    /// Looks up a wire name.
    pub fn from_wire(name: &str) -> Option<Self> {
        MessageRole::ALL
            .iter()
            .copied()
            .find(|r| r.as_str() == name)
    }
}

impl From<agui_core::event::Role> for MessageRole {
    fn from(role: agui_core::event::Role) -> Self {
        use agui_core::event::Role;
        match role {
            Role::Developer => MessageRole::Developer,
            Role::System => MessageRole::System,
            Role::Assistant => MessageRole::Assistant,
            Role::User => MessageRole::User,
        }
    }
}

impl Message {
    /// Decodes a message; an error names the path inside it
    /// (`role: ...`, `toolCalls.0.function.name: Required`, ...).
    pub fn from_json(v: &Value) -> Result<Self, DecodeError> {
        Self::from_json_in(v, Dialect::Current)
    }

    /// [`Message::from_json`] in `dialect`: AG-UI 1.0 adds
    /// `subagentRunId` on every role and content parts on tool messages.
    pub fn from_json_in(v: &Value, dialect: Dialect) -> Result<Self, DecodeError> {
        let f = Fields::of_in(v, dialect)?;
        Ok(match discriminator(f, "role", MessageRole::NAMES)? {
            "developer" => Message::Developer(instruction(f)?),
            "system" => Message::System(instruction(f)?),
            "assistant" => Message::Assistant(AssistantMessage {
                id: f.string("id")?,
                content: f.opt_string("content")?,
                name: f.opt_string("name")?,
                tool_calls: f.opt_list("toolCalls", ToolCall::from_json)?,
                encrypted_value: f.opt_string("encryptedValue")?,
                metadata: f.opt_object("metadata")?,
                subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
            }),
            "user" => Message::User(UserMessage {
                id: f.string("id")?,
                content: content(f, dialect)?,
                name: f.opt_string("name")?,
                encrypted_value: f.opt_string("encryptedValue")?,
                metadata: f.opt_object("metadata")?,
                subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
            }),
            "tool" => Message::Tool(ToolMessage {
                id: f.string("id")?,
                content: match dialect {
                    Dialect::Current => UserContent::Text(f.string("content")?),
                    Dialect::V1 => content(f, dialect)?,
                },
                tool_call_id: f.string("toolCallId")?,
                error: f.opt_string("error")?,
                encrypted_value: f.opt_string("encryptedValue")?,
                metadata: f.opt_object("metadata")?,
                subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
            }),
            "activity" => Message::Activity(ActivityMessage {
                id: f.string("id")?,
                activity_type: f.string("activityType")?,
                content: Value::Object(f.object("content")?.clone()),
                metadata: f.opt_object("metadata")?,
                subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
            }),
            // "reasoning": `discriminator` lets only the seven names through.
            _ => Message::Reasoning(ReasoningMessage {
                id: f.string("id")?,
                content: f.string("content")?,
                encrypted_value: f.opt_string("encryptedValue")?,
                metadata: f.opt_object("metadata")?,
                subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
            }),
        })
    }

    /// AG-UI 1.0: the sub-agent invocation that produced the message.
    pub fn subagent_run_id(&self) -> Option<&str> {
        self.subagent_slot_ref().as_deref()
    }

    /// The `subagentRunId` slot, for editing.
    pub fn subagent_run_id_mut(&mut self) -> &mut Option<String> {
        match self {
            Message::Developer(m) | Message::System(m) => &mut m.subagent_run_id,
            Message::Assistant(m) => &mut m.subagent_run_id,
            Message::User(m) => &mut m.subagent_run_id,
            Message::Tool(m) => &mut m.subagent_run_id,
            Message::Activity(m) => &mut m.subagent_run_id,
            Message::Reasoning(m) => &mut m.subagent_run_id,
        }
    }

    fn subagent_slot_ref(&self) -> &Option<String> {
        match self {
            Message::Developer(m) | Message::System(m) => &m.subagent_run_id,
            Message::Assistant(m) => &m.subagent_run_id,
            Message::User(m) => &m.subagent_run_id,
            Message::Tool(m) => &m.subagent_run_id,
            Message::Activity(m) => &m.subagent_run_id,
            Message::Reasoning(m) => &m.subagent_run_id,
        }
    }

    /// A new empty text message, as `TEXT_MESSAGE_START` creates it:
    /// `{id, role, content: "", name?}`. Roles without text content
    /// (tool, activity) are not made by that event; they get their
    /// natural empty form.
    pub fn new_text(id: impl Into<String>, role: MessageRole, name: Option<String>) -> Self {
        let id = id.into();
        match role {
            MessageRole::Developer => Message::Developer(InstructionMessage {
                id,
                name,
                ..Default::default()
            }),
            MessageRole::System => Message::System(InstructionMessage {
                id,
                name,
                ..Default::default()
            }),
            MessageRole::Assistant => Message::Assistant(AssistantMessage {
                id,
                content: Some(String::new()),
                name,
                ..Default::default()
            }),
            MessageRole::User => Message::User(UserMessage {
                id,
                name,
                ..Default::default()
            }),
            MessageRole::Tool => Message::Tool(ToolMessage {
                id,
                ..Default::default()
            }),
            MessageRole::Activity => Message::Activity(ActivityMessage {
                id,
                content: Value::Object(Object::new()),
                ..Default::default()
            }),
            MessageRole::Reasoning => Message::Reasoning(ReasoningMessage {
                id,
                ..Default::default()
            }),
        }
    }

    /// The message id.
    pub fn id(&self) -> &str {
        match self {
            Message::Developer(m) | Message::System(m) => &m.id,
            Message::Assistant(m) => &m.id,
            Message::User(m) => &m.id,
            Message::Tool(m) => &m.id,
            Message::Activity(m) => &m.id,
            Message::Reasoning(m) => &m.id,
        }
    }

    /// The role.
    pub fn role(&self) -> MessageRole {
        match self {
            Message::Developer(_) => MessageRole::Developer,
            Message::System(_) => MessageRole::System,
            Message::Assistant(_) => MessageRole::Assistant,
            Message::User(_) => MessageRole::User,
            Message::Tool(_) => MessageRole::Tool,
            Message::Activity(_) => MessageRole::Activity,
            Message::Reasoning(_) => MessageRole::Reasoning,
        }
    }

    /// The role's wire name.
    pub fn role_name(&self) -> &'static str {
        self.role().as_str()
    }

    /// The content if it is text (`None` for an assistant without content,
    /// user parts and object activity content).
    pub fn text(&self) -> Option<&str> {
        match self {
            Message::Developer(m) | Message::System(m) => Some(&m.content),
            Message::Assistant(m) => m.content.as_deref(),
            Message::User(m) => match &m.content {
                UserContent::Text(s) => Some(s),
                UserContent::Parts(_) => None,
            },
            Message::Tool(m) => match &m.content {
                UserContent::Text(s) => Some(s),
                UserContent::Parts(_) => None,
            },
            Message::Activity(m) => m.content.as_str(),
            Message::Reasoning(m) => Some(&m.content),
        }
    }

    /// Appends `delta` to the text content, in place. Content that is not a
    /// string (absent, user parts, activity object) is replaced by `delta`,
    /// as the reference's `(string ? content : "") + delta` does.
    pub fn append_text(&mut self, delta: &str) {
        match self {
            Message::Developer(m) | Message::System(m) => m.content.push_str(delta),
            Message::Assistant(m) => m.content.get_or_insert_with(String::new).push_str(delta),
            Message::User(m) => match &mut m.content {
                UserContent::Text(s) => s.push_str(delta),
                parts @ UserContent::Parts(_) => *parts = UserContent::Text(delta.to_owned()),
            },
            Message::Tool(m) => match &mut m.content {
                UserContent::Text(s) => s.push_str(delta),
                parts @ UserContent::Parts(_) => *parts = UserContent::Text(delta.to_owned()),
            },
            Message::Activity(m) => match &mut m.content {
                Value::String(s) => s.push_str(delta),
                other @ (Value::Null
                | Value::Bool(_)
                | Value::Number(_)
                | Value::Array(_)
                | Value::Object(_)) => *other = Value::String(delta.to_owned()),
            },
            Message::Reasoning(m) => m.content.push_str(delta),
        }
    }

    /// The metadata, if any.
    pub fn metadata(&self) -> Option<&Object> {
        self.metadata_slot_ref().as_ref()
    }

    /// The metadata slot, for editing.
    pub fn metadata_mut(&mut self) -> &mut Option<Object> {
        match self {
            Message::Developer(m) | Message::System(m) => &mut m.metadata,
            Message::Assistant(m) => &mut m.metadata,
            Message::User(m) => &mut m.metadata,
            Message::Tool(m) => &mut m.metadata,
            Message::Activity(m) => &mut m.metadata,
            Message::Reasoning(m) => &mut m.metadata,
        }
    }

    fn metadata_slot_ref(&self) -> &Option<Object> {
        match self {
            Message::Developer(m) | Message::System(m) => &m.metadata,
            Message::Assistant(m) => &m.metadata,
            Message::User(m) => &m.metadata,
            Message::Tool(m) => &m.metadata,
            Message::Activity(m) => &m.metadata,
            Message::Reasoning(m) => &m.metadata,
        }
    }

    /// The `encryptedValue` slot; `None` for activity messages, which have none.
    pub fn encrypted_value_mut(&mut self) -> Option<&mut Option<String>> {
        match self {
            Message::Developer(m) | Message::System(m) => Some(&mut m.encrypted_value),
            Message::Assistant(m) => Some(&mut m.encrypted_value),
            Message::User(m) => Some(&mut m.encrypted_value),
            Message::Tool(m) => Some(&mut m.encrypted_value),
            Message::Activity(_) => None,
            Message::Reasoning(m) => Some(&mut m.encrypted_value),
        }
    }

    /// The tool calls (empty unless an assistant message holds some).
    pub fn tool_calls(&self) -> &[ToolCall] {
        match self {
            Message::Assistant(m) => m.tool_calls.as_deref().unwrap_or_default(),
            Message::Developer(_)
            | Message::System(_)
            | Message::User(_)
            | Message::Tool(_)
            | Message::Activity(_)
            | Message::Reasoning(_) => &[],
        }
    }

    /// The tool calls, for editing; `None` unless this is an assistant
    /// message that has a `toolCalls` list.
    pub fn tool_calls_mut(&mut self) -> Option<&mut Vec<ToolCall>> {
        match self {
            Message::Assistant(m) => m.tool_calls.as_mut(),
            Message::Developer(_)
            | Message::System(_)
            | Message::User(_)
            | Message::Tool(_)
            | Message::Activity(_)
            | Message::Reasoning(_) => None,
        }
    }
}

/// Developer and system messages share their fields.
fn instruction(f: Fields<'_>) -> Result<InstructionMessage, DecodeError> {
    Ok(InstructionMessage {
        id: f.string("id")?,
        content: f.string("content")?,
        name: f.opt_string("name")?,
        encrypted_value: f.opt_string("encryptedValue")?,
        metadata: f.opt_object("metadata")?,
        subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
    })
}

/// A user (or, in 1.0, tool) message's required `content`: text or parts.
pub(crate) fn content(f: Fields<'_>, dialect: Dialect) -> Result<UserContent, DecodeError> {
    let content = f
        .get("content")
        .ok_or_else(|| DecodeError::required("content"))?;
    UserContent::from_json_in(content, dialect).map_err(|e| e.within("content"))
}

// ---------------------------------------------------------------------------
// Run input and interrupts
// ---------------------------------------------------------------------------

/// A tool the client offers the agent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tool {
    /// The tool's name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON Schema of its parameters; any JSON, `null` kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Object>,
}

impl Tool {
    fn from_json(v: &Value) -> Result<Self, DecodeError> {
        let f = Fields::of(v)?;
        Ok(Tool {
            name: f.string("name")?,
            description: f.string("description")?,
            parameters: f.opt_any("parameters"),
            metadata: f.opt_object("metadata")?,
        })
    }
}

/// A piece of context the client gives the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Context {
    /// What the value is.
    pub description: String,
    /// The value.
    pub value: String,
}

impl Context {
    fn from_json(v: &Value) -> Result<Self, DecodeError> {
        let f = Fields::of(v)?;
        Ok(Context {
            description: f.string("description")?,
            value: f.string("value")?,
        })
    }
}

/// How the client answered an interrupt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ResumeStatus {
    /// `resolved`
    Resolved,
    /// `cancelled`
    Cancelled,
}

/// The client's answer to one interrupt, sent back in `RunAgentInput.resume`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumeEntry {
    /// The interrupt answered.
    pub interrupt_id: String,
    /// Resolved or cancelled.
    pub status: ResumeStatus,
    /// The answer; any JSON, `null` kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<Value>,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Object>,
}

impl ResumeEntry {
    fn from_json(v: &Value) -> Result<Self, DecodeError> {
        let f = Fields::of(v)?;
        let status = match f.one_of("status", &["resolved", "cancelled"])? {
            "resolved" => ResumeStatus::Resolved,
            _ => ResumeStatus::Cancelled,
        };
        Ok(ResumeEntry {
            interrupt_id: f.string("interruptId")?,
            status,
            payload: f.opt_any("payload"),
            metadata: f.opt_object("metadata")?,
        })
    }
}

/// The input of a run, echoed by `RUN_STARTED.input`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunAgentInput {
    /// The conversation thread.
    pub thread_id: String,
    /// This run.
    pub run_id: String,
    /// The run this one continues.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_run_id: Option<String>,
    /// AG-UI 1.0: the protocol version the client speaks (`"1.0"`); the
    /// agent may answer in it (pydantic-ai then sends 1.0's outcomes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The shared state; any JSON, `null` kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<Value>,
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// Tools offered.
    pub tools: Vec<Tool>,
    /// Context given.
    pub context: Vec<Context>,
    /// Anything else; any JSON, `null` kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forwarded_props: Option<Value>,
    /// Answers to the previous run's interrupts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resume: Option<Vec<ResumeEntry>>,
}

impl RunAgentInput {
    /// Decodes a run input; errors name the path inside it
    /// (`messages.2.content: Required`, ...).
    pub fn from_json(v: &Value) -> Result<Self, DecodeError> {
        Self::from_json_in(v, Dialect::Current)
    }

    /// [`RunAgentInput::from_json`] in `dialect`: AG-UI 1.0 adds
    /// `protocolVersion` and makes `tools` and `context` optional (absent
    /// reads as empty).
    pub fn from_json_in(v: &Value, dialect: Dialect) -> Result<Self, DecodeError> {
        let f = Fields::of_in(v, dialect)?;
        let list_or_empty = |key: &str| match (dialect, f.get(key)) {
            (Dialect::V1, None) => false,
            (Dialect::V1 | Dialect::Current, _) => true,
        };
        Ok(RunAgentInput {
            thread_id: f.string("threadId")?,
            run_id: f.string("runId")?,
            parent_run_id: f.opt_string("parentRunId")?,
            protocol_version: f.v1_opt_string("protocolVersion")?,
            state: f.opt_any("state"),
            messages: f.list("messages", |m| Message::from_json_in(m, dialect))?,
            tools: if list_or_empty("tools") {
                f.list("tools", Tool::from_json)?
            } else {
                Vec::new()
            },
            context: if list_or_empty("context") {
                f.list("context", Context::from_json)?
            } else {
                Vec::new()
            },
            forwarded_props: f.opt_any("forwardedProps"),
            resume: f.opt_list("resume", ResumeEntry::from_json)?,
        })
    }
}

/// A reason the agent paused a run and waits for the client.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Interrupt {
    /// The interrupt's id, answered by a [`ResumeEntry`].
    pub id: String,
    /// Why the run paused.
    pub reason: String,
    /// A text for the user.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The tool call it concerns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// When it lapses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// JSON Schema of the expected answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_schema: Option<Object>,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Object>,
    /// AG-UI 1.0: the sub-agent invocation that raised it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}

impl Interrupt {
    /// Decodes an interrupt; errors name the field.
    pub fn from_json(v: &Value) -> Result<Self, DecodeError> {
        Self::from_json_in(v, Dialect::Current)
    }

    /// [`Interrupt::from_json`] in `dialect` (1.0 adds `subagentRunId`).
    pub fn from_json_in(v: &Value, dialect: Dialect) -> Result<Self, DecodeError> {
        let f = Fields::of_in(v, dialect)?;
        Ok(Interrupt {
            subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
            id: f.string("id")?,
            reason: f.string("reason")?,
            message: f.opt_string("message")?,
            tool_call_id: f.opt_string("toolCallId")?,
            expires_at: f.opt_string("expiresAt")?,
            response_schema: f.opt_object("responseSchema")?,
            metadata: f.opt_object("metadata")?,
        })
    }
}

deserialize_via_json!(Message, ToolCall, InputPart, RunAgentInput, Interrupt);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    /// AG-UI 1.0's additions are read in the 1.0 dialect and are unknown
    /// keys (dropped) in the current one.
    #[test]
    fn v1_dialect_reads_what_1_0_added() {
        let m = json!({"id": "m", "role": "assistant", "content": "x", "subagentRunId": "s1"});
        let cur = Message::from_json(&m).unwrap();
        assert_eq!(cur.subagent_run_id(), None);
        assert!(!serde_json::to_string(&cur)
            .unwrap()
            .contains("subagentRunId"));
        let v1 = Message::from_json_in(&m, Dialect::V1).unwrap();
        assert_eq!(v1.subagent_run_id(), Some("s1"));
        assert_eq!(serde_json::to_value(&v1).unwrap(), m);
        // null is not absent: "omit it entirely".
        let null = json!({"id": "m", "role": "user", "content": "x", "subagentRunId": null});
        assert!(Message::from_json_in(&null, Dialect::V1).is_err());
        assert!(Message::from_json(&null).is_ok());
    }

    #[test]
    fn v1_tool_content_may_be_parts() {
        let m = json!({"id": "t", "role": "tool", "toolCallId": "c", "content": [
            {"type": "text", "text": "see", "id": "p1"},
            {"type": "image", "id": "p2", "source": {"type": "file", "value": "file-9", "provider": "openai"}}
        ]});
        assert_eq!(err(m.clone()), "content: Expected string, received array");
        let v1 = Message::from_json_in(&m, Dialect::V1).unwrap();
        assert_eq!(serde_json::to_value(&v1).unwrap(), m);
        assert_eq!(v1.text(), None);
    }

    #[test]
    fn v1_sources_and_parts() {
        let file = json!({"type": "document", "source": {"type": "file", "value": "h"}});
        assert!(InputPart::from_json(&file).is_err());
        assert!(InputPart::from_json_in(&file, Dialect::V1).is_ok());
        // The legacy binary part is gone in 1.0 (the client upgrades it).
        let binary = json!({"type": "binary", "mimeType": "image/png", "url": "u"});
        assert!(InputPart::from_json(&binary).is_ok());
        assert!(InputPart::from_json_in(&binary, Dialect::V1).is_err());
        // A text part's id and metadata are 1.0's.
        let text = json!({"type": "text", "text": "t", "id": "p", "metadata": {"k": 1}});
        let cur = serde_json::to_value(InputPart::from_json(&text).unwrap()).unwrap();
        assert_eq!(cur, json!({"type": "text", "text": "t"}));
        let v1 =
            serde_json::to_value(InputPart::from_json_in(&text, Dialect::V1).unwrap()).unwrap();
        assert_eq!(v1, text);
    }

    #[test]
    fn v1_run_input_tools_and_context_are_optional() {
        let input =
            json!({"threadId": "t", "runId": "r", "messages": [], "protocolVersion": "1.0"});
        assert_eq!(
            RunAgentInput::from_json(&input).unwrap_err().to_string(),
            "tools: Required"
        );
        let v1 = RunAgentInput::from_json_in(&input, Dialect::V1).unwrap();
        assert!(v1.tools.is_empty() && v1.context.is_empty());
        assert_eq!(v1.protocol_version.as_deref(), Some("1.0"));
    }

    fn err(v: Value) -> String {
        Message::from_json(&v).unwrap_err().to_string()
    }

    #[test]
    fn round_trips_every_role() {
        let all = json!([
            {"id": "d", "role": "developer", "content": "x", "name": "n"},
            {"id": "s", "role": "system", "content": "x", "encryptedValue": "e"},
            {"id": "a", "role": "assistant", "toolCalls": [
                {"id": "t", "type": "function", "function": {"name": "f", "arguments": "{}"},
                 "metadata": {"k": 1}, "encryptedValue": "z"}]},
            {"id": "u", "role": "user", "content": [
                {"type": "text", "text": "look"},
                {"type": "image", "source": {"type": "url", "value": "http://x"}, "metadata": null},
                {"type": "document", "source": {"type": "data", "value": "AA", "mimeType": "a/b"}},
                {"type": "binary", "mimeType": "a/b", "url": "u"}]},
            {"id": "t", "role": "tool", "content": "r", "toolCallId": "t", "error": "bad"},
            {"id": "act", "role": "activity", "activityType": "P", "content": {"a": [1]}},
            {"id": "r", "role": "reasoning", "content": "hm", "metadata": {}}
        ]);
        let Value::Array(items) = &all else {
            unreachable!()
        };
        for item in items {
            let m = Message::from_json(item).unwrap();
            assert_eq!(&serde_json::to_value(&m).unwrap(), item);
        }
    }

    #[test]
    fn errors_name_the_path() {
        assert_eq!(
            err(json!({"id": "x", "role": "wizard"})),
            "role: Invalid discriminator value. Expected 'developer' | 'system' | 'assistant' | 'user' | 'tool' | 'activity' | 'reasoning'"
        );
        assert_eq!(err(json!({"role": "user", "content": "x"})), "id: Required");
        assert_eq!(
            err(
                json!({"id": "a", "role": "assistant", "toolCalls": [{"id": "t", "type": "function", "function": {"name": 1, "arguments": ""}}]})
            ),
            "toolCalls.0.function.name: Expected string, received number"
        );
        assert_eq!(
            err(
                json!({"id": "u", "role": "user", "content": [{"type": "binary", "mimeType": "a", "id": ""}]})
            ),
            "content.0.id: BinaryInputContent requires at least one of id, url, or data."
        );
        assert_eq!(
            err(json!({"id": "a", "role": "assistant", "name": null})),
            "name: Expected string, received null"
        );
        assert_eq!(
            err(json!({"id": "a", "role": "activity", "activityType": "t", "content": []})),
            "content: Expected object, received array"
        );
        let input = json!({"threadId": "t", "runId": "r", "tools": [], "context": [],
                           "messages": [{"id": "a", "role": "tool", "content": "c"}]});
        assert_eq!(
            RunAgentInput::from_json(&input).unwrap_err().to_string(),
            "messages.0.toolCallId: Required"
        );
    }

    #[test]
    fn deserialize_uses_the_same_decoder() {
        let m: Message = serde_json::from_str(r#"{"id":"a","role":"assistant","x":1}"#).unwrap();
        assert_eq!(m.role(), MessageRole::Assistant);
        let e = serde_json::from_str::<Message>(r#"{"id":"a","role":"nope"}"#).unwrap_err();
        assert!(e.to_string().starts_with("role: Invalid discriminator"));
    }

    #[test]
    fn run_input_keeps_null_any_fields() {
        let input = json!({"threadId": "t", "runId": "r", "state": null, "messages": [],
                           "tools": [{"name": "n", "description": "d", "parameters": null}],
                           "context": [{"description": "d", "value": "v"}],
                           "resume": [{"interruptId": "i", "status": "resolved", "payload": null}]});
        let parsed = RunAgentInput::from_json(&input).unwrap();
        assert_eq!(parsed.state, Some(Value::Null));
        assert_eq!(serde_json::to_value(&parsed).unwrap(), input);
    }

    #[test]
    fn append_text_turns_non_text_into_text() {
        let mut m = Message::from_json(
            &json!({"id": "u", "role": "user", "content": [{"type": "text", "text": "x"}]}),
        )
        .unwrap();
        m.append_text("y");
        assert_eq!(m.text(), Some("y"));
        m.append_text("z");
        assert_eq!(m.text(), Some("yz"));
        let mut a = Message::new_text("a", MessageRole::Activity, None);
        a.append_text("t");
        assert_eq!(
            serde_json::to_value(&a).unwrap(),
            json!({"id": "a", "role": "activity", "activityType": "", "content": "t"})
        );
    }
}
