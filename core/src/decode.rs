//! Decoding: one frame's JSON text to a typed, schema-checked event header.
//!
//! The decoder sits on the [tokenizer](crate::json) and reads the frame's
//! top-level object field by field. It never holds the frame: ids and names
//! that the ordering rules need are copied into fixed slots of `ID` bytes;
//! every field's value is also handed to the caller as it streams past, as
//! [`Part`]s — string values as decoded text fragments, every other value as
//! raw JSON fragments. So a 64 KiB `delta` passes through without a 64 KiB
//! buffer, and a `STATE_SNAPSHOT` can be forwarded or skipped.
//!
//! Field order is free in JSON, and `type` need not come first: the decoder
//! records the JSON kind of every known field as it goes and checks the
//! schema of the event's type (SPEC section 2) when the object closes.
//! Parts therefore arrive before the frame is known to be valid: treat them
//! as provisional until [`Decoder::end_frame`] succeeds.
//!
//! ```
//! use agui_core::decode::{Decoder, Field};
//! use agui_core::event::EventType;
//!
//! let mut dec: Decoder = Decoder::new();
//! let mut text = heapless::String::<32>::new();
//! let mut input: &[u8] = br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi \u263A"}"#;
//! while !input.is_empty() {
//!     let (used, part) = dec.feed(input).unwrap();
//!     input = &input[used..];
//!     if let Some(part) = part {
//!         if part.field == Field::Delta {
//!             text.push_str(part.text.as_str()).unwrap();
//!         }
//!     }
//! }
//! let head = dec.end_frame().unwrap();
//! assert_eq!(head.kind, EventType::TextMessageContent);
//! assert_eq!(dec.id(), "m1");
//! assert_eq!(text, "Hi ☺");
//! ```

use crate::error::{error_text, Code, Detail, Error, Stage, Table};
use crate::event::{EventType, Role};
use crate::json::{Token, Tokenizer};

mod nested;
mod schema;

pub use schema::Expect;

macro_rules! fields {
    ($($variant:ident = $wire:literal,)*) => {
        /// A top-level field of an event that the schema knows.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        #[allow(missing_docs)]
        pub enum Field {
            $($variant,)*
        }

        impl Field {
            /// All known fields.
            pub const ALL: &'static [Field] = &[$(Field::$variant,)*];

            /// The wire name (camelCase).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Field::$variant => $wire,)*
                }
            }

            /// Looks up a wire name.
            pub fn from_wire(name: &str) -> Option<Field> {
                match name {
                    $($wire => Some(Field::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

fields! {
    Type = "type",
    Timestamp = "timestamp",
    RawEvent = "rawEvent",
    Metadata = "metadata",
    ThreadId = "threadId",
    RunId = "runId",
    ParentRunId = "parentRunId",
    Input = "input",
    Result = "result",
    Outcome = "outcome",
    Usage = "usage",
    Message = "message",
    Code = "code",
    StepName = "stepName",
    MessageId = "messageId",
    Role = "role",
    Name = "name",
    Delta = "delta",
    ToolCallId = "toolCallId",
    ToolCallName = "toolCallName",
    ParentMessageId = "parentMessageId",
    Content = "content",
    Title = "title",
    Subtype = "subtype",
    EntityId = "entityId",
    EncryptedValue = "encryptedValue",
    Snapshot = "snapshot",
    Messages = "messages",
    ActivityType = "activityType",
    Replace = "replace",
    Patch = "patch",
    Event = "event",
    Source = "source",
    Value = "value",
}

const FIELD_COUNT: usize = Field::ALL.len();
const _: () = assert!(FIELD_COUNT <= 64, "the seen-field set is a u64");

impl Field {
    const fn bit(self) -> u64 {
        1u64 << (self as u32)
    }
}

/// The JSON kind of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Kind {
    /// `null`
    Null,
    /// `true` / `false`
    Bool,
    /// a number
    Number,
    /// a string
    String,
    /// an array
    Array,
    /// an object
    Object,
}

impl Kind {
    /// A name for messages.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool => "a boolean",
            Kind::Number => "a number",
            Kind::String => "a string",
            Kind::Array => "an array",
            Kind::Object => "an object",
        }
    }

    fn of(token: &Token<'_>) -> Option<Kind> {
        Some(match token {
            Token::ObjectStart => Kind::Object,
            Token::ArrayStart => Kind::Array,
            Token::StrStart => Kind::String,
            Token::Number(_) => Kind::Number,
            Token::True | Token::False => Kind::Bool,
            Token::Null => Kind::Null,
            _ => return None,
        })
    }
}

/// A piece of text handed out by the decoder: a slice of the input, or one
/// decoded character (an escape, or a UTF-8 sequence that was split across
/// two input slices).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text<'a> {
    /// Text straight from the input.
    Slice(&'a str),
    /// One character.
    Char(CharBuf),
}

/// One character, UTF-8 encoded, as a `&str` on demand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CharBuf {
    bytes: [u8; 4],
    len: u8,
}

impl CharBuf {
    fn new(c: char) -> Self {
        let mut bytes = [0u8; 4];
        let len = c.encode_utf8(&mut bytes).len();
        CharBuf {
            bytes,
            len: len as u8,
        }
    }

    /// The character as text.
    pub fn as_str(&self) -> &str {
        let bytes = self.bytes.get(..usize::from(self.len)).unwrap_or_default();
        core::str::from_utf8(bytes).unwrap_or_default()
    }
}

impl<'a> Text<'a> {
    /// The text.
    pub fn as_str(&self) -> &str {
        match self {
            Text::Slice(s) => s,
            Text::Char(c) => c.as_str(),
        }
    }
}

/// How a [`Part`]'s text is to be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PartKind {
    /// A fragment of a string value, escapes decoded.
    Text,
    /// A fragment of a non-string value's JSON text, as written.
    Raw,
}

/// A fragment of one top-level field's value, as it streams past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part<'a> {
    /// The field (unknown fields are not handed out).
    pub field: Field,
    /// Decoded string text or raw JSON.
    pub kind: PartKind,
    /// The fragment.
    pub text: Text<'a>,
    /// True for the first fragment of this field's value.
    pub first: bool,
}

/// The result of a successfully decoded frame (the ids are read with
/// [`Decoder::id`], [`Decoder::tool_call_name`] and friends).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Header {
    /// The event's type.
    pub kind: EventType,
    /// `role` of a TEXT_MESSAGE_START or TEXT_MESSAGE_CHUNK (assistant if absent).
    pub role: Role,
    /// Which known fields were present (bit `Field as u32`).
    pub fields: u64,
}

impl Header {
    /// True if the frame had field `f` (with any value, `null` included).
    pub const fn has(&self, f: Field) -> bool {
        self.fields & f.bit() != 0
    }
}

/// Where the decoder is inside the frame's top-level object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pos {
    /// Before the object.
    Start,
    /// Inside the object, expecting a key or `}`.
    Members,
    /// Reading a key.
    Key,
    /// After a key, expecting its value.
    Value,
    /// Inside a string value.
    Str,
    /// Inside a non-string value, handed out raw.
    Raw,
    /// After the object.
    Done,
}

/// Slots for the values the ordering rules and chunk expansion read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Type,
    Role,
    Subtype,
    MessageId,
    ToolCallId,
    ToolCallName,
    StepName,
}

/// Longest event type name ("THINKING_TEXT_MESSAGE_CONTENT") and then some.
const TYPE_LEN: usize = 32;
/// Longest enum value we compare (`"tool-call"`, `"assistant"`, ...).
const ENUM_LEN: usize = 16;
/// Longest key we look up; longer keys are unknown fields anyway.
const KEY_LEN: usize = 16;

impl Slot {
    fn of(field: Field) -> Option<Slot> {
        Some(match field {
            Field::Type => Slot::Type,
            Field::Role => Slot::Role,
            Field::Subtype => Slot::Subtype,
            Field::MessageId => Slot::MessageId,
            Field::ToolCallId => Slot::ToolCallId,
            Field::ToolCallName => Slot::ToolCallName,
            Field::StepName => Slot::StepName,
            _ => return None,
        })
    }

    const fn bit(self) -> u8 {
        1u8 << (self as u8)
    }
}

/// The streaming event decoder: `ID` is the byte capacity of each id slot,
/// `DEPTH` the JSON nesting limit.
///
/// Feed it one frame's text with [`feed`](Self::feed) in any pieces, then
/// call [`end_frame`](Self::end_frame). Then [`begin_frame`](Self::begin_frame)
/// (or the first `feed` after `end_frame`) starts the next.
#[derive(Debug, Clone)]
pub struct Decoder<const ID: usize = 64, const DEPTH: usize = 32> {
    json: Tokenizer<DEPTH>,
    pos: Pos,
    /// The field whose value is being read (`None`: an unknown field).
    field: Option<Field>,
    /// True until the current field's first part is handed out.
    first: bool,
    key: heapless::String<KEY_LEN>,
    key_too_long: bool,
    /// Known fields seen, and which of them held which kind.
    seen: u64,
    kinds: [Kind; FIELD_COUNT],
    /// Slots whose value did not fit.
    overflow: u8,
    /// Slots whose value was a string (the others are stale).
    filled: u8,
    ty: heapless::String<TYPE_LEN>,
    role: heapless::String<ENUM_LEN>,
    subtype: heapless::String<ENUM_LEN>,
    message_id: heapless::String<ID>,
    tool_call_id: heapless::String<ID>,
    tool_call_name: heapless::String<ID>,
    step_name: heapless::String<ID>,
    nested: nested::Checker,
    kind: Option<EventType>,
    ended: bool,
}

impl<const ID: usize, const DEPTH: usize> Default for Decoder<ID, DEPTH> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const ID: usize, const DEPTH: usize> Decoder<ID, DEPTH> {
    /// A decoder ready for its first frame.
    pub const fn new() -> Self {
        Decoder {
            json: Tokenizer::new(),
            pos: Pos::Start,
            field: None,
            first: false,
            key: heapless::String::new(),
            key_too_long: false,
            seen: 0,
            kinds: [Kind::Null; FIELD_COUNT],
            overflow: 0,
            filled: 0,
            ty: heapless::String::new(),
            role: heapless::String::new(),
            subtype: heapless::String::new(),
            message_id: heapless::String::new(),
            tool_call_id: heapless::String::new(),
            tool_call_name: heapless::String::new(),
            step_name: heapless::String::new(),
            nested: nested::Checker::new(),
            kind: None,
            ended: false,
        }
    }

    /// Forgets the current frame and gets ready for a new one.
    pub fn begin_frame(&mut self) {
        self.json.reset();
        self.pos = Pos::Start;
        self.field = None;
        self.seen = 0;
        self.overflow = 0;
        self.filled = 0;
        self.kind = None;
        self.ended = false;
        self.nested = nested::Checker::new();
    }

    /// Feeds frame text; returns how many bytes were used and at most one
    /// part. Call again with the rest until the slice is used up.
    ///
    /// # Errors
    /// A decode-stage [`Error`] (frame index 0: the pipeline places it) for
    /// text that is not JSON, not an object, or breaks a nested schema.
    pub fn feed<'a>(&mut self, input: &'a [u8]) -> Result<(usize, Option<Part<'a>>), Error> {
        if self.ended {
            self.begin_frame();
        }
        // A raw value is handed out as one part per call: the run of input
        // between `raw_from` and where the value (or the input) ends.
        let mut raw_from = (self.pos == Pos::Raw).then_some(0usize);
        let mut pos = 0usize;
        while let Some(rest) = input.get(pos..).filter(|r| !r.is_empty()) {
            let (used, token) = self.json.next(rest).map_err(Error::json)?;
            let start = pos;
            pos = pos.saturating_add(used);
            let Some(token) = token else { break };
            match self.on_token(token)? {
                Step::Nothing => {}
                Step::RawBegin => raw_from = Some(start),
                Step::RawMore => {}
                Step::RawEnd => {
                    let from = raw_from.take().unwrap_or(start);
                    return Ok((pos, self.raw_part(input, from, pos)));
                }
                Step::Text(text) => return Ok((pos, self.text_part(text))),
            }
        }
        let part = raw_from.and_then(|from| self.raw_part(input, from, pos));
        Ok((pos, part))
    }

    /// Ends the frame: checks that the JSON is complete and that the event
    /// matches its type's schema.
    ///
    /// # Errors
    /// A decode-stage [`Error`] (frame index 0: the pipeline places it), or a
    /// `capacity` error for an id longer than `ID` where the rules need it.
    pub fn end_frame(&mut self) -> Result<Header, Error> {
        self.ended = true;
        self.json.finish().map_err(Error::json)?;
        if self.pos != Pos::Done {
            // finish() accepted: only possible if the frame held no value.
            return Err(Error::json(crate::json::JsonError {
                kind: crate::json::JsonErrorKind::UnexpectedEnd,
                offset: self.json.offset(),
            }));
        }
        let kind = self.event_type()?;
        self.kind = Some(kind);
        schema::check(self, kind).map_err(|d| self.decode_error(Code::Decode, d))?;
        self.check_slots(kind)?;
        Ok(Header {
            kind,
            role: self.text_role(),
            fields: self.seen,
        })
    }

    /// The id of the decoded event that the rules look at: `messageId`,
    /// `toolCallId` or `stepName` by type (see [`crate::event::Event::id`]);
    /// empty if the event has none.
    pub fn id(&self) -> &str {
        match self.kind.and_then(schema::id_field) {
            Some(Field::MessageId) => self.slot(Slot::MessageId, &self.message_id),
            Some(Field::ToolCallId) => self.slot(Slot::ToolCallId, &self.tool_call_id),
            Some(Field::StepName) => self.slot(Slot::StepName, &self.step_name),
            _ => "",
        }
    }

    /// `toolCallName` of a TOOL_CALL_START or TOOL_CALL_CHUNK ("" if absent).
    pub fn tool_call_name(&self) -> &str {
        self.slot(Slot::ToolCallName, &self.tool_call_name)
    }

    /// True if the frame had field `f` as a string that fit its slot (for
    /// the chunk rules: a chunk "has a messageId").
    pub fn has_text(&self, f: Field) -> bool {
        Slot::of(f).is_some_and(|s| self.filled & s.bit() != 0 && self.overflow & s.bit() == 0)
    }

    /// The type of the last decoded frame, once known.
    pub fn event_type_known(&self) -> Option<EventType> {
        self.kind
    }

    fn slot<'s>(&'s self, slot: Slot, text: &'s str) -> &'s str {
        if self.filled & slot.bit() != 0 && self.overflow & slot.bit() == 0 {
            text
        } else {
            ""
        }
    }

    fn on_token<'t>(&mut self, token: Token<'t>) -> Result<Step<'t>, Error> {
        match self.pos {
            Pos::Start => self.on_start(&token),
            Pos::Members => self.on_member(&token),
            Pos::Key => self.on_key(token),
            Pos::Value => self.on_value(token),
            Pos::Str => Ok(self.on_string(token)),
            Pos::Raw => self.on_raw(&token),
            // The tokenizer rejects anything after the top-level value.
            Pos::Done => Ok(Step::Nothing),
        }
    }

    fn on_start(&mut self, token: &Token<'_>) -> Result<Step<'static>, Error> {
        match Kind::of(token) {
            Some(Kind::Object) => {
                self.pos = Pos::Members;
                Ok(Step::Nothing)
            }
            Some(kind) => Err(self.decode_error(Code::Decode, Detail::NotAnObject(kind))),
            None => Ok(Step::Nothing),
        }
    }

    fn on_member(&mut self, token: &Token<'_>) -> Result<Step<'static>, Error> {
        match token {
            Token::KeyStart => {
                self.key.clear();
                self.key_too_long = false;
                self.pos = Pos::Key;
            }
            Token::ObjectEnd => self.pos = Pos::Done,
            _ => {}
        }
        Ok(Step::Nothing)
    }

    fn on_key(&mut self, token: Token<'_>) -> Result<Step<'static>, Error> {
        match token {
            Token::Text(t) => self.push_key(t),
            Token::Char(c) => self.push_key(c.encode_utf8(&mut [0u8; 4])),
            Token::KeyEnd => {
                self.field = if self.key_too_long {
                    None
                } else {
                    Field::from_wire(&self.key)
                };
                self.pos = Pos::Value;
            }
            _ => {}
        }
        Ok(Step::Nothing)
    }

    fn push_key(&mut self, text: &str) {
        if self.key.push_str(text).is_err() {
            self.key_too_long = true;
        }
    }

    fn on_value<'t>(&mut self, token: Token<'t>) -> Result<Step<'t>, Error> {
        let Some(kind) = Kind::of(&token) else {
            return Ok(Step::Nothing);
        };
        self.first = true;
        if let Some(field) = self.field {
            self.seen |= field.bit();
            if let Some(k) = self.kinds.get_mut(field as usize) {
                *k = kind;
            }
            self.start_slot(field, kind);
        }
        self.nested.begin(self.field);
        match kind {
            Kind::String => {
                self.pos = Pos::Str;
                Ok(Step::Nothing)
            }
            Kind::Object | Kind::Array => {
                self.pos = Pos::Raw;
                self.nested.token(&token);
                Ok(Step::RawBegin)
            }
            Kind::Number => {
                self.pos = Pos::Raw;
                self.nested.token(&token);
                Ok(Step::RawBegin)
            }
            Kind::Bool | Kind::Null => {
                self.pos = Pos::Members;
                self.nested.token(&token);
                Ok(Step::RawEnd)
            }
        }
    }

    fn on_string<'t>(&mut self, token: Token<'t>) -> Step<'t> {
        match token {
            Token::Text(t) => {
                self.fill_slot(t);
                Step::Text(Text::Slice(t))
            }
            Token::Char(c) => {
                self.fill_slot(c.encode_utf8(&mut [0u8; 4]));
                Step::Text(Text::Char(CharBuf::new(c)))
            }
            Token::StrEnd => {
                self.pos = Pos::Members;
                Step::Nothing
            }
            _ => Step::Nothing,
        }
    }

    fn on_raw(&mut self, token: &Token<'_>) -> Result<Step<'static>, Error> {
        self.nested.token(token);
        let done = match token {
            Token::NumberEnd | Token::ObjectEnd | Token::ArrayEnd => self.json.depth() == 1,
            _ => false,
        };
        if done {
            self.pos = Pos::Members;
            Ok(Step::RawEnd)
        } else {
            Ok(Step::RawMore)
        }
    }

    fn start_slot(&mut self, field: Field, kind: Kind) {
        let Some(slot) = Slot::of(field) else { return };
        self.overflow &= !slot.bit();
        self.filled &= !slot.bit();
        if kind == Kind::String {
            self.filled |= slot.bit();
            self.slot_text(slot).clear_all();
        }
    }

    fn fill_slot(&mut self, text: &str) {
        let Some(slot) = self.field.and_then(Slot::of) else {
            return;
        };
        if self.overflow & slot.bit() != 0 {
            return;
        }
        if !self.slot_text(slot).push(text) {
            self.overflow |= slot.bit();
        }
    }

    fn slot_text(&mut self, slot: Slot) -> SlotRef<'_> {
        match slot {
            Slot::Type => SlotRef::Short(&mut self.ty),
            Slot::Role => SlotRef::Enum(&mut self.role),
            Slot::Subtype => SlotRef::Enum(&mut self.subtype),
            Slot::MessageId => SlotRef::Id(&mut self.message_id),
            Slot::ToolCallId => SlotRef::Id(&mut self.tool_call_id),
            Slot::ToolCallName => SlotRef::Id(&mut self.tool_call_name),
            Slot::StepName => SlotRef::Id(&mut self.step_name),
        }
    }

    fn text_part<'a>(&mut self, text: Text<'a>) -> Option<Part<'a>> {
        let field = self.field?;
        let first = core::mem::replace(&mut self.first, false);
        Some(Part {
            field,
            kind: PartKind::Text,
            text,
            first,
        })
    }

    fn raw_part<'a>(&mut self, input: &'a [u8], from: usize, to: usize) -> Option<Part<'a>> {
        let field = self.field?;
        let bytes = input.get(from..to)?;
        // Raw JSON outside strings is ASCII, and strings inside it were
        // validated by the tokenizer; a cut multi-byte char cannot occur at
        // a token boundary.
        let text = core::str::from_utf8(bytes).ok()?;
        let text = text.trim_start_matches([' ', '\t', '\r', '\n']);
        if text.is_empty() {
            return None;
        }
        let first = core::mem::replace(&mut self.first, false);
        Some(Part {
            field,
            kind: PartKind::Raw,
            text: Text::Slice(text),
            first,
        })
    }

    fn event_type(&self) -> Result<EventType, Error> {
        let is_string = self.seen & Field::Type.bit() != 0
            && self.kinds.get(Field::Type as usize) == Some(&Kind::String);
        if !is_string {
            return Err(self.decode_error(Code::Decode, Detail::MissingType));
        }
        let name = self.slot(Slot::Type, &self.ty);
        EventType::from_wire(name).ok_or_else(|| {
            let shown = if self.overflow & Slot::Type.bit() != 0 {
                "(a long name)"
            } else {
                name
            };
            self.decode_error(Code::Decode, Detail::UnknownType(error_text(shown)))
        })
    }

    /// The JSON kind of field `f` in this frame, if present.
    pub(crate) fn kind_of(&self, f: Field) -> Option<Kind> {
        if self.seen & f.bit() == 0 {
            return None;
        }
        self.kinds.get(f as usize).copied()
    }

    /// The text of an enum-valued field (`role`, `subtype`), if it fit.
    pub(crate) fn enum_text(&self, f: Field) -> Option<&str> {
        let slot = Slot::of(f)?;
        if self.filled & slot.bit() == 0 || self.overflow & slot.bit() != 0 {
            return None;
        }
        Some(match slot {
            Slot::Role => &self.role,
            Slot::Subtype => &self.subtype,
            _ => return None,
        })
    }

    fn text_role(&self) -> Role {
        self.enum_text(Field::Role)
            .and_then(Role::from_wire)
            .unwrap_or_default()
    }

    /// Id slots whose value did not fit are an error where the rules read them.
    fn check_slots(&self, kind: EventType) -> Result<(), Error> {
        let needed = [schema::id_field(kind), schema::name_field(kind)];
        for field in needed.into_iter().flatten() {
            let Some(slot) = Slot::of(field) else {
                continue;
            };
            if self.overflow & slot.bit() != 0 && self.filled & slot.bit() != 0 {
                return Err(Error::new(
                    Stage::Decode,
                    Code::Capacity,
                    Some(kind),
                    Detail::Capacity {
                        table: Table::IdSlot,
                        limit: ID,
                        field: Some(field),
                    },
                ));
            }
        }
        Ok(())
    }

    fn decode_error(&self, code: Code, detail: Detail) -> Error {
        let event = self
            .kind
            .or_else(|| EventType::from_wire(self.slot(Slot::Type, &self.ty)));
        Error::new(Stage::Decode, code, event, detail)
    }
}

/// What one token did, as [`Decoder::feed`] needs to know.
enum Step<'t> {
    Nothing,
    RawBegin,
    RawMore,
    RawEnd,
    Text(Text<'t>),
}

/// A slot's buffer, whatever its capacity.
enum SlotRef<'s> {
    Short(&'s mut heapless::String<TYPE_LEN>),
    Enum(&'s mut heapless::String<ENUM_LEN>),
    Id(&'s mut dyn IdBuf),
}

trait IdBuf {
    fn clear_buf(&mut self);
    fn push_buf(&mut self, text: &str) -> bool;
}

impl<const N: usize> IdBuf for heapless::String<N> {
    fn clear_buf(&mut self) {
        self.clear();
    }
    fn push_buf(&mut self, text: &str) -> bool {
        self.push_str(text).is_ok()
    }
}

impl SlotRef<'_> {
    fn clear_all(self) {
        match self {
            SlotRef::Short(s) => s.clear(),
            SlotRef::Enum(s) => s.clear(),
            SlotRef::Id(s) => s.clear_buf(),
        }
    }

    fn push(self, text: &str) -> bool {
        match self {
            SlotRef::Short(s) => s.push_str(text).is_ok(),
            SlotRef::Enum(s) => s.push_str(text).is_ok(),
            SlotRef::Id(s) => s.push_buf(text),
        }
    }
}
