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
//! In AG-UI 1.0 mode (a decoder with the [`V1`] part, see [`Ext`]), the end
//! of a frame follows SPEC 9.2-9.5 instead ([`Decoder::end_frame_v1`]): the
//! compatibility boundary, then enforcement, with the nested values 1.0
//! describes checked as they stream (`decode/shapes.rs`).
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
use crate::store::{Fixed, IdText as _, Store};

pub mod nested;
mod schema;
pub mod seed;
pub(crate) mod shapes;
mod v1;

pub use crate::spec::{Expect, Field, Kind, Need, Schema};
pub use v1::{Ext, V1};

const FIELD_COUNT: usize = Field::ALL.len();
const _: () = assert!(FIELD_COUNT <= 64, "the seen-field set is a u64");

impl Field {
    const fn bit(self) -> u64 {
        1u64 << (self as u32)
    }
}

impl Kind {
    fn of(token: &Token<'_>) -> Option<Kind> {
        Some(match token {
            Token::ObjectStart => Kind::Object,
            Token::ArrayStart => Kind::Array,
            Token::StrStart => Kind::String,
            Token::Number(_) => Kind::Number,
            Token::True | Token::False => Kind::Bool,
            Token::Null => Kind::Null,
            Token::ObjectEnd
            | Token::ArrayEnd
            | Token::KeyStart
            | Token::KeyEnd
            | Token::StrEnd
            | Token::Text(_)
            | Token::Char(_)
            | Token::NumberEnd => return None,
        })
    }
}

/// A piece of text handed out by the decoder: a slice of the input, or one
/// decoded character (an escape, or a UTF-8 sequence that was split across
/// two input slices).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text<'a> {
    /// Text straight from the input (for a `type` value naming a known
    /// event type: that type's static name, the same text).
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
    SubagentRunId,
    ParentMessageId,
    ParentSubagentRunId,
    EntityId,
    ProtocolVersion,
    Name,
}

/// Longest event type name ("THINKING_TEXT_MESSAGE_CONTENT") and then some.
const TYPE_LEN: usize = 32;
/// Longest enum value we compare (`"tool-call"`, `"assistant"`, ...).
const ENUM_LEN: usize = 16;
/// Longest key we look up (`parentSubagentRunId`); longer keys are
/// unknown fields anyway.
const KEY_LEN: usize = 24;
/// Longest `protocolVersion` we read; a longer one reads as outside the
/// `<digits>.<digits>` grammar (SPEC 9.1), which selects 1.0 like a newer one.
pub(crate) const VERSION_LEN: usize = 16;

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
            Field::SubagentRunId => Slot::SubagentRunId,
            Field::ParentMessageId => Slot::ParentMessageId,
            Field::ParentSubagentRunId => Slot::ParentSubagentRunId,
            Field::EntityId => Slot::EntityId,
            Field::ProtocolVersion => Slot::ProtocolVersion,
            Field::Name => Slot::Name,
            // Values the rules never read: handed out as parts only.
            Field::Timestamp
            | Field::RawEvent
            | Field::Metadata
            | Field::ThreadId
            | Field::RunId
            | Field::ParentRunId
            | Field::Input
            | Field::Result
            | Field::Outcome
            | Field::Usage
            | Field::Message
            | Field::Code
            | Field::Delta
            | Field::Content
            | Field::Title
            | Field::EncryptedValue
            | Field::Snapshot
            | Field::Messages
            | Field::ActivityType
            | Field::Replace
            | Field::Patch
            | Field::Event
            | Field::Source
            | Field::Value
            | Field::Description
            | Field::ParentToolCallId => return None,
        })
    }

    const fn bit(self) -> u16 {
        1u16 << (self as u16)
    }
}

/// The streaming event decoder: `ID` is the byte capacity of each id slot,
/// `DEPTH` the JSON nesting limit.
///
/// Feed it one frame's text with [`feed`](Self::feed) in any pieces, then
/// call [`end_frame`](Self::end_frame). Then [`begin_frame`](Self::begin_frame)
/// (or the first `feed` after `end_frame`) starts the next.
#[derive(Debug, Clone)]
pub struct Decoder<
    const ID: usize = 64,
    const DEPTH: usize = 32,
    X: Ext<ID, S> = (),
    S: Store = Fixed,
> {
    json: Tokenizer<DEPTH, S>,
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
    overflow: u16,
    /// Slots whose value was a string (the others are stale).
    filled: u16,
    ty: heapless::String<TYPE_LEN>,
    role: heapless::String<ENUM_LEN>,
    subtype: heapless::String<ENUM_LEN>,
    message_id: S::Str<ID>,
    tool_call_id: S::Str<ID>,
    tool_call_name: S::Str<ID>,
    step_name: S::Str<ID>,
    nested: nested::Checker,
    kind: Option<EventType>,
    ended: bool,
    /// Known fields of this frame whose value is a string.
    strings: u64,
    /// The event type the last `type` value of this frame spelled, when
    /// the fast path recognised it.
    type_hint: Option<EventType>,
    /// The type of the last frame that named one: consecutive frames
    /// mostly share it, and a compare is cheaper than a lookup.
    last_type: Option<EventType>,
    /// The first bytes of a raw value's character cut by the end of the
    /// last slice.
    raw_tail: heapless::Vec<u8, 4>,
    /// 1.0 mode: strip unknown keys, check the values 1.0 describes.
    v1: bool,
    /// The 1.0 part: its slots and checks (nothing for `()`).
    ext: X,
    /// The last frame type and field set that passed the schema check
    /// while all its fields were strings (and none an enum or a nested
    /// value): the same type and fields pass again.
    checked: Option<(EventType, u64)>,
}

impl<const ID: usize, const DEPTH: usize, X: Ext<ID, S>, S: Store> Default
    for Decoder<ID, DEPTH, X, S>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const ID: usize, const DEPTH: usize, X: Ext<ID, S>, S: Store> Decoder<ID, DEPTH, X, S> {
    /// A decoder ready for its first frame.
    pub fn new() -> Self {
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
            message_id: Default::default(),
            tool_call_id: Default::default(),
            tool_call_name: Default::default(),
            step_name: Default::default(),
            nested: nested::Checker::new(),
            kind: None,
            ended: false,
            strings: 0,
            type_hint: None,
            last_type: None,
            raw_tail: heapless::Vec::new(),
            v1: false,
            ext: X::new(),
            checked: None,
        }
    }

    /// Forgets the current frame and gets ready for a new one.
    pub fn begin_frame(&mut self) {
        self.json.reset();
        self.pos = Pos::Start;
        self.field = None;
        self.seen = 0;
        self.strings = 0;
        self.type_hint = None;
        self.overflow = 0;
        self.filled = 0;
        self.kind = None;
        self.ended = false;
        self.raw_tail.clear();
        self.nested = nested::Checker::new();
        if let Some(e) = self.enforce() {
            e.reset();
        }
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
        // A character of a raw value cut by the previous slice: complete it
        // first, as a part of its own.
        if self.pos == Pos::Raw && !self.raw_tail.is_empty() {
            return self.complete_raw_char(input);
        }
        // A raw value is handed out as one part per call: the run of input
        // between `raw_from` and where the value (or the input) ends.
        let mut raw_from = (self.pos == Pos::Raw).then_some(0usize);
        let mut pos = 0usize;
        while let Some(rest) = input.get(pos..).filter(|r| !r.is_empty()) {
            // Fast paths for the common shapes, each the same as the tokens
            // it stands for: a whole plain key, a whole plain string value,
            // and a raw value's tokens in one loop (feature `fast`).
            if crate::FAST {
                match self.pos {
                    Pos::Start => {
                        if let Some(used) = self.json.plain_object_start(rest) {
                            pos = pos.saturating_add(used);
                            self.pos = Pos::Members;
                            continue;
                        }
                    }
                    Pos::Members => {
                        if let Some((used, key)) = self.json.plain_key(rest) {
                            pos = pos.saturating_add(used);
                            self.on_plain_key(key);
                            continue;
                        }
                    }
                    Pos::Value => {
                        if let Some((used, text, hint)) = self.plain_value(input, pos) {
                            self.json.take_plain_string(used);
                            pos = pos.saturating_add(used);
                            if self.field == Some(Field::Type) {
                                self.type_hint = hint;
                            }
                            let Some(part) = self.on_plain_string(text) else {
                                continue;
                            };
                            // The frame's closing brace, when it follows, in
                            // the same call: one round trip less per frame.
                            if let Some(used) = self.json.plain_object_end(input, pos) {
                                pos = pos.saturating_add(used);
                                self.pos = Pos::Done;
                            }
                            return Ok((pos, Some(part)));
                        }
                    }
                    Pos::Raw if !self.nested.is_active() && !self.checking() => {
                        let (used, closed) =
                            self.json.skip_to_depth(rest, 1).map_err(Error::json)?;
                        let start = pos;
                        pos = pos.saturating_add(used);
                        if closed {
                            self.pos = Pos::Members;
                            let from = raw_from.take().unwrap_or(start);
                            if let Some(part) = self.raw_part(input, from, pos) {
                                return Ok((pos, Some(part)));
                            }
                        }
                        continue;
                    }
                    Pos::Key | Pos::Str | Pos::Raw | Pos::Done => {}
                }
            }
            let (used, token) = self.json.next(rest).map_err(Error::json)?;
            let start = pos;
            pos = pos.saturating_add(used);
            let Some(token) = token else { break };
            match self.on_token(token)? {
                Action::Nothing => {}
                Action::RawBegin => raw_from = Some(start),
                Action::RawMore => {}
                Action::RawEnd => {
                    let from = raw_from.take().unwrap_or(start);
                    // Nothing left to hand out (a number that ended at the
                    // start of this slice): go on with the rest.
                    if let Some(part) = self.raw_part(input, from, pos) {
                        return Ok((pos, Some(part)));
                    }
                }
                Action::Text(text) => return Ok((pos, self.text_part(text))),
                Action::Literal(text) => {
                    let part = self.field.map(|field| Part {
                        field,
                        kind: PartKind::Raw,
                        text: Text::Slice(text),
                        first: core::mem::replace(&mut self.first, false),
                    });
                    return Ok((pos, part));
                }
            }
        }
        let part = raw_from.and_then(|from| self.raw_part(input, from, pos));
        Ok((pos, part))
    }

    /// The plain string value at `pos` if the tokenizer's fast path
    /// applies and its text is valid UTF-8: bytes it takes, its text, and
    /// for a `type` value the event type it names. A known type's name is
    /// its static text, which saves the UTF-8 check.
    #[inline(always)]
    fn plain_value<'a>(
        &self,
        input: &'a [u8],
        pos: usize,
    ) -> Option<(usize, &'a str, Option<EventType>)> {
        let (used, run) = self.json.peek_plain_string(input, pos)?;
        let hint = if self.field == Some(Field::Type) {
            type_name(run, self.last_type)
        } else {
            None
        };
        let text = match hint {
            Some(kind) => kind.as_str(),
            None => core::str::from_utf8(run).ok()?,
        };
        Some((used, text, hint))
    }

    /// A whole frame in one step (a fast path, feature `fast`): `input`
    /// is all of a compact object of three plain string members, as a
    /// bare delta frame (`type`, its id, `delta`) is sent, whose `type`
    /// names a known event type and whose other values are valid UTF-8.
    /// Hands `f` the parts [`feed`](Self::feed) would hand out, in their
    /// order, and leaves the state `feed` would; returns false, having
    /// changed nothing, for anything else (`feed` then takes it).
    pub(crate) fn feed_whole<'a>(&mut self, input: &'a [u8], f: &mut impl FnMut(Part<'a>)) -> bool {
        if !crate::FAST || (self.pos != Pos::Start && !self.ended) {
            return false;
        }
        let Some(members) = crate::json::plain_members::<3>(input) else {
            return false;
        };
        let Some(texts) = self.whole_texts(input, &members) else {
            return false;
        };
        if self.ended {
            self.begin_frame();
        }
        if !self.json.plain_whole_object(input.len()) {
            return false;
        }
        for (m, (text, hint)) in members.iter().zip(texts) {
            self.on_plain_key(input.get(m.key.0..m.key.1).unwrap_or_default());
            if self.field == Some(Field::Type) {
                self.type_hint = hint;
            }
            if let Some(part) = self.on_plain_string(text) {
                f(part);
            }
        }
        self.pos = Pos::Done;
        true
    }

    /// The texts of a whole frame's values (see [`feed_whole`](Self::feed_whole)),
    /// each `type` value's with the event type it names: the others are
    /// checked as UTF-8 in one run from the first to the last, cheaper
    /// than one check each.
    #[inline(always)]
    fn whole_texts<'a>(
        &self,
        input: &'a [u8],
        members: &[crate::json::Member; 3],
    ) -> Option<[(&'a str, Option<EventType>); 3]> {
        let is_type =
            |m: &crate::json::Member| input.get(m.key.0..m.key.1) == Some(b"type".as_slice());
        let (mut lo, mut hi) = (usize::MAX, 0usize);
        for m in members.iter().filter(|m| !is_type(m)) {
            lo = lo.min(m.value.0);
            hi = hi.max(m.value.1);
        }
        let run = core::str::from_utf8(input.get(lo.min(hi)..hi)?).ok()?;
        let mut texts = [("", None); 3];
        for (m, t) in members.iter().zip(&mut texts) {
            *t = if is_type(m) {
                let kind = type_name(input.get(m.value.0..m.value.1)?, self.last_type)?;
                (kind.as_str(), Some(kind))
            } else {
                let from = m.value.0.wrapping_sub(lo);
                (run.get(from..m.value.1.wrapping_sub(lo))?, None)
            };
        }
        Some(texts)
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
        self.check_schema(kind)?;
        self.check_slots(kind)?;
        Ok(Header {
            kind,
            role: self.text_role(),
            fields: self.seen,
        })
    }

    /// The schema check of SPEC section 2, skipped when the last frame of
    /// the same type had the same fields, all strings: the outcome depends
    /// only on which fields are there and their JSON kinds (enum values
    /// and nested records excepted, hence never cached).
    fn check_schema(&mut self, kind: EventType) -> Result<(), Error> {
        const UNCACHED: u64 =
            Field::Role.bit() | Field::Subtype.bit() | Field::Outcome.bit() | Field::Usage.bit();
        // The cache is a fast path (feature `fast`).
        let cacheable = crate::FAST && self.seen & !self.strings == 0 && self.seen & UNCACHED == 0;
        if cacheable && self.checked == Some((kind, self.seen)) {
            return Ok(());
        }
        schema::check(self, kind).map_err(|d| self.decode_error(Code::Decode, d))?;
        if cacheable {
            self.checked = Some((kind, self.seen));
        }
        Ok(())
    }

    /// The id of the decoded event that the rules look at: `messageId`,
    /// `toolCallId` or `stepName` by type (see [`crate::event::EventRef::id`]);
    /// empty if the event has none.
    #[inline]
    pub fn id(&self) -> &str {
        self.kind
            .and_then(EventType::id_field)
            .and_then(Slot::of)
            .map_or("", |slot| self.slot(slot))
    }

    /// `toolCallName` of a TOOL_CALL_START or TOOL_CALL_CHUNK ("" if absent).
    pub fn heap_bytes(&self) -> usize {
        [
            &self.message_id,
            &self.tool_call_id,
            &self.tool_call_name,
            &self.step_name,
        ]
        .iter()
        .fold(self.json.heap_bytes(), |n, s| {
            n.saturating_add(s.heap_bytes())
        })
        .saturating_add(self.ext.heap_bytes())
    }

    /// The frame's tool call name.
    pub fn tool_call_name(&self) -> &str {
        self.slot(Slot::ToolCallName)
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

    /// A slot's text: empty unless this frame's value was a string that fit.
    fn slot(&self, slot: Slot) -> &str {
        if self.filled & slot.bit() != 0 && self.overflow & slot.bit() == 0 {
            self.buffer(slot)
        } else {
            ""
        }
    }

    /// A slot's buffer, whatever it holds.
    fn buffer(&self, slot: Slot) -> &str {
        match slot {
            Slot::Type => &self.ty,
            Slot::Role => &self.role,
            Slot::Subtype => &self.subtype,
            Slot::MessageId => &self.message_id,
            Slot::ToolCallId => &self.tool_call_id,
            Slot::ToolCallName => &self.tool_call_name,
            Slot::StepName => &self.step_name,
            Slot::SubagentRunId
            | Slot::ParentMessageId
            | Slot::ParentSubagentRunId
            | Slot::EntityId
            | Slot::ProtocolVersion
            | Slot::Name => self.ext.get().map_or("", |v| v.slot(slot)),
        }
    }

    fn on_token<'t>(&mut self, token: Token<'t>) -> Result<Action<'t>, Error> {
        match self.pos {
            Pos::Start => self.on_start(&token),
            Pos::Members => self.on_member(&token),
            Pos::Key => self.on_key(token),
            Pos::Value => self.on_value(token),
            Pos::Str => Ok(self.on_string(token)),
            Pos::Raw => self.on_raw(&token),
            // The tokenizer rejects anything after the top-level value.
            Pos::Done => Ok(Action::Nothing),
        }
    }

    /// A whole key from the tokenizer's fast path: as `KeyStart`,
    /// `Text(key)`, `KeyEnd`. Keys longer than `KEY_LEN` name no known
    /// field, as on the general path.
    // Always inlined: three calls per whole frame (`feed_whole`).
    #[inline(always)]
    fn on_plain_key(&mut self, key: &[u8]) {
        self.field = if key.len() > KEY_LEN {
            None
        } else {
            Field::from_wire_bytes(key)
        };
        if self.field.is_none() {
            if let Some(e) = self.enforce() {
                e.unknown_key(key);
            }
        }
        self.pos = Pos::Value;
    }

    /// A whole string value from the tokenizer's fast path: the same as
    /// `StrStart`, `Text(text)` (none if empty), `StrEnd` through
    /// [`on_value`](Self::on_value) and [`on_string`](Self::on_string),
    /// in one step. Returns the value's part if the field is known.
    // Always inlined: three calls per whole frame (`feed_whole`).
    #[inline(always)]
    fn on_plain_string<'t>(&mut self, text: &'t str) -> Option<Part<'t>> {
        self.nested.begin(self.field);
        let field = self.field;
        if let Some(e) = self.enforce() {
            e.begin(field, Kind::String);
        }
        self.pos = Pos::Members;
        let field = self.field?;
        self.seen |= field.bit();
        self.strings |= field.bit();
        if let Some(k) = self.kinds.get_mut(field as usize) {
            *k = Kind::String;
        }
        if let Some(slot) = Slot::of(field) {
            self.overflow &= !slot.bit();
            self.filled |= slot.bit();
            self.clear_slot(slot);
            if !self.push_slot(slot, text) {
                self.overflow |= slot.bit();
            }
        }
        if text.is_empty() {
            return None;
        }
        self.first = false;
        Some(Part {
            field,
            kind: PartKind::Text,
            text: Text::Slice(text),
            first: true,
        })
    }

    fn on_start(&mut self, token: &Token<'_>) -> Result<Action<'static>, Error> {
        match Kind::of(token) {
            Some(Kind::Object) => {
                self.pos = Pos::Members;
                Ok(Action::Nothing)
            }
            Some(kind) => Err(self.decode_error(Code::Decode, Detail::NotAnObject(kind))),
            None => Ok(Action::Nothing),
        }
    }

    fn on_member(&mut self, token: &Token<'_>) -> Result<Action<'static>, Error> {
        match token {
            Token::KeyStart => {
                self.key.clear();
                self.key_too_long = false;
                self.pos = Pos::Key;
            }
            Token::ObjectEnd => self.pos = Pos::Done,
            Token::ObjectStart
            | Token::ArrayStart
            | Token::ArrayEnd
            | Token::KeyEnd
            | Token::StrStart
            | Token::StrEnd
            | Token::Text(_)
            | Token::Char(_)
            | Token::Number(_)
            | Token::NumberEnd
            | Token::True
            | Token::False
            | Token::Null => {}
        }
        Ok(Action::Nothing)
    }

    fn on_key(&mut self, token: Token<'_>) -> Result<Action<'static>, Error> {
        match token {
            Token::Text(t) => self.push_key(t),
            Token::Char(c) => self.push_key(c.encode_utf8(&mut [0u8; 4])),
            Token::KeyEnd => {
                self.field = if self.key_too_long {
                    None
                } else {
                    Field::from_wire(&self.key)
                };
                if self.field.is_none() {
                    let key = self.key.clone();
                    if let Some(e) = self.enforce() {
                        e.unknown_key(key.as_bytes());
                    }
                }
                self.pos = Pos::Value;
            }
            Token::ObjectStart
            | Token::ObjectEnd
            | Token::ArrayStart
            | Token::ArrayEnd
            | Token::KeyStart
            | Token::StrStart
            | Token::StrEnd
            | Token::Number(_)
            | Token::NumberEnd
            | Token::True
            | Token::False
            | Token::Null => {}
        }
        Ok(Action::Nothing)
    }

    fn push_key(&mut self, text: &str) {
        if self.key.push_str(text).is_err() {
            self.key_too_long = true;
        }
    }

    fn on_value<'t>(&mut self, token: Token<'t>) -> Result<Action<'t>, Error> {
        let Some(kind) = Kind::of(&token) else {
            return Ok(Action::Nothing);
        };
        self.first = true;
        if self.field == Some(Field::Type) {
            self.type_hint = None;
        }
        if let Some(field) = self.field {
            self.seen |= field.bit();
            if kind == Kind::String {
                self.strings |= field.bit();
            } else {
                self.strings &= !field.bit();
            }
            if let Some(k) = self.kinds.get_mut(field as usize) {
                *k = kind;
            }
            self.start_slot(field, kind);
        }
        self.nested.begin(self.field);
        let field = self.field;
        if let Some(e) = self.enforce() {
            e.begin(field, kind);
            e.token(&token);
            if field == Some(Field::Replace) {
                e.replace_false = token == Token::False;
            }
        }
        match kind {
            Kind::String => {
                self.pos = Pos::Str;
                Ok(Action::Nothing)
            }
            Kind::Object | Kind::Array => {
                self.pos = Pos::Raw;
                self.nested.token(&token);
                Ok(Action::RawBegin)
            }
            Kind::Number => {
                self.pos = Pos::Raw;
                self.nested.token(&token);
                Ok(Action::RawBegin)
            }
            Kind::Bool | Kind::Null => {
                self.pos = Pos::Members;
                self.nested.token(&token);
                // The whole literal, even when its first bytes came in an
                // earlier slice.
                Ok(Action::Literal(match token {
                    Token::True => "true",
                    Token::False => "false",
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
                    | Token::Null => "null",
                }))
            }
        }
    }

    fn on_string<'t>(&mut self, token: Token<'t>) -> Action<'t> {
        match token {
            Token::Text(t) => {
                self.fill_slot(t);
                Action::Text(Text::Slice(t))
            }
            Token::Char(c) => {
                self.fill_slot(c.encode_utf8(&mut [0u8; 4]));
                Action::Text(Text::Char(CharBuf::new(c)))
            }
            Token::StrEnd => {
                self.pos = Pos::Members;
                Action::Nothing
            }
            Token::ObjectStart
            | Token::ObjectEnd
            | Token::ArrayStart
            | Token::ArrayEnd
            | Token::KeyStart
            | Token::KeyEnd
            | Token::StrStart
            | Token::Number(_)
            | Token::NumberEnd
            | Token::True
            | Token::False
            | Token::Null => Action::Nothing,
        }
    }

    fn on_raw(&mut self, token: &Token<'_>) -> Result<Action<'static>, Error> {
        self.nested.token(token);
        if let Some(e) = self.enforce() {
            e.token(token);
        }
        let done = match token {
            Token::NumberEnd | Token::ObjectEnd | Token::ArrayEnd => self.json.depth() == 1,
            Token::ObjectStart
            | Token::ArrayStart
            | Token::KeyStart
            | Token::KeyEnd
            | Token::StrStart
            | Token::StrEnd
            | Token::Text(_)
            | Token::Char(_)
            | Token::Number(_)
            | Token::True
            | Token::False
            | Token::Null => false,
        };
        if done {
            self.pos = Pos::Members;
            Ok(Action::RawEnd)
        } else {
            Ok(Action::RawMore)
        }
    }

    fn start_slot(&mut self, field: Field, kind: Kind) {
        let Some(slot) = Slot::of(field) else { return };
        self.overflow &= !slot.bit();
        self.filled &= !slot.bit();
        if kind == Kind::String {
            self.filled |= slot.bit();
            self.clear_slot(slot);
        }
    }

    fn fill_slot(&mut self, text: &str) {
        let Some(slot) = self.field.and_then(Slot::of) else {
            return;
        };
        if self.overflow & slot.bit() != 0 {
            return;
        }
        if !self.push_slot(slot, text) {
            self.overflow |= slot.bit();
        }
    }

    /// Empties a slot's buffer.
    #[inline]
    fn clear_slot(&mut self, slot: Slot) {
        match slot {
            Slot::Type => self.ty.clear(),
            Slot::Role => self.role.clear(),
            Slot::Subtype => self.subtype.clear(),
            Slot::MessageId => self.message_id.clear(),
            Slot::ToolCallId => self.tool_call_id.clear(),
            Slot::ToolCallName => self.tool_call_name.clear(),
            Slot::StepName => self.step_name.clear(),
            Slot::SubagentRunId
            | Slot::ParentMessageId
            | Slot::ParentSubagentRunId
            | Slot::EntityId
            | Slot::ProtocolVersion
            | Slot::Name => {
                if let Some(v) = self.ext.get_mut() {
                    v.clear(slot);
                }
            }
        }
    }

    /// Appends to a slot's buffer; false if it does not fit.
    #[inline(always)]
    fn push_slot(&mut self, slot: Slot, text: &str) -> bool {
        match slot {
            Slot::Type => self.ty.push_str(text).is_ok(),
            Slot::Role => self.role.push_str(text).is_ok(),
            Slot::Subtype => self.subtype.push_str(text).is_ok(),
            Slot::MessageId => self.message_id.push_str(text).is_ok(),
            Slot::ToolCallId => self.tool_call_id.push_str(text).is_ok(),
            Slot::ToolCallName => self.tool_call_name.push_str(text).is_ok(),
            Slot::StepName => self.step_name.push_str(text).is_ok(),
            // Without a 1.0 part these fields are not kept (nothing reads
            // them), which is not an overflow.
            Slot::SubagentRunId
            | Slot::ParentMessageId
            | Slot::ParentSubagentRunId
            | Slot::EntityId
            | Slot::ProtocolVersion
            | Slot::Name => self.ext.get_mut().is_none_or(|v| v.push(slot, text)),
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
        // validated by the tokenizer; only the end of a slice can cut a
        // character, whose first bytes wait for the next slice (see
        // `complete_raw_char`).
        let text = match core::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => self.stash_cut(bytes, e)?,
        };
        // Whitespace before the value (not inside it: a later slice may
        // begin inside a string).
        let text = if self.first {
            text.trim_start_matches([' ', '\t', '\r', '\n'])
        } else {
            text
        };
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

    /// A raw part whose slice ends inside a character: its complete text,
    /// the cut character's first bytes kept for the next slice.
    #[cold]
    #[inline(never)]
    fn stash_cut<'a>(&mut self, bytes: &'a [u8], e: core::str::Utf8Error) -> Option<&'a str> {
        if e.error_len().is_some() {
            return None;
        }
        let (valid, cut) = bytes.split_at(e.valid_up_to());
        self.raw_tail.clear();
        let _ = self.raw_tail.extend_from_slice(cut);
        core::str::from_utf8(valid).ok()
    }

    /// The rest of a character of a raw value that the previous slice cut:
    /// its bytes go through the tokenizer as any others, and the whole
    /// character is handed out as one part.
    #[cold]
    #[inline(never)]
    fn complete_raw_char<'a>(
        &mut self,
        input: &'a [u8],
    ) -> Result<(usize, Option<Part<'a>>), Error> {
        let want = self.raw_tail.first().map_or(1, |&b| utf8_len(b));
        let need = want.saturating_sub(self.raw_tail.len());
        let bytes = input.get(..need.min(input.len())).unwrap_or_default();
        // The skipping loop is a fast path (feature `fast`): without it the
        // tokens go one by one, as everywhere else.
        if !crate::FAST || self.nested.is_active() || self.checking() {
            let mut rest = bytes;
            while !rest.is_empty() {
                let (used, token) = self.json.next(rest).map_err(Error::json)?;
                rest = rest.get(used..).unwrap_or_default();
                // Inside a string of the raw value: its checkers see it.
                if let Some(token) = token {
                    self.on_raw(&token)?;
                }
            }
        } else {
            self.json.skip_to_depth(bytes, 1).map_err(Error::json)?;
        }
        let _ = self.raw_tail.extend_from_slice(bytes);
        if self.raw_tail.len() < want {
            return Ok((bytes.len(), None));
        }
        let text = core::str::from_utf8(&self.raw_tail)
            .ok()
            .and_then(|t| t.chars().next());
        self.raw_tail.clear();
        let part = text.zip(self.field).map(|(c, field)| Part {
            field,
            kind: PartKind::Raw,
            text: Text::Char(CharBuf::new(c)),
            first: core::mem::replace(&mut self.first, false),
        });
        Ok((bytes.len(), part))
    }

    fn event_type(&mut self) -> Result<EventType, Error> {
        let is_string = self.seen & Field::Type.bit() != 0
            && self.kinds.get(Field::Type as usize) == Some(&Kind::String);
        if !is_string {
            return Err(self.decode_error(Code::Decode, Detail::MissingType));
        }
        // `last_type` only ever holds a type of the current protocol.
        // The hint comes from the fast path (feature `fast`) only.
        if let Some(kind) = self.type_hint.filter(|_| crate::FAST) {
            if self.last_type != Some(kind) {
                self.current_type(kind)?;
                self.last_type = Some(kind);
            }
            return Ok(kind);
        }
        let name = self.slot(Slot::Type);
        // Consecutive frames mostly share their type: one compare (a fast
        // path, feature `fast`).
        if let Some(last) = self.last_type.filter(|t| crate::FAST && t.as_str() == name) {
            return Ok(last);
        }
        if let Some(kind) = EventType::from_wire(name) {
            self.current_type(kind)?;
            if crate::FAST {
                self.last_type = Some(kind);
            }
            return Ok(kind);
        }
        let shown = if self.overflow & Slot::Type.bit() != 0 {
            "(a long name)"
        } else {
            self.slot(Slot::Type)
        };
        Err(self.decode_error(Code::Decode, Detail::UnknownType(error_text(shown))))
    }

    /// A 1.0 type (SUBAGENT_*) is unknown to the current protocol.
    fn current_type(&self, kind: EventType) -> Result<(), Error> {
        if kind.is_in(crate::protocol::Protocol::Current) {
            return Ok(());
        }
        let detail = Detail::UnknownType(error_text(kind.as_str()));
        Err(Error::new(Stage::Decode, Code::Decode, None, detail))
    }

    /// The JSON kind of field `f` in this frame, if present.
    pub(crate) fn kind_of(&self, f: Field) -> Option<Kind> {
        if self.seen & f.bit() == 0 {
            return None;
        }
        self.kinds.get(f as usize).copied()
    }

    /// The text of a field with a slot (an enum value: `role`,
    /// `subtype`), if it was a string that fit.
    pub(crate) fn enum_text(&self, f: Field) -> Option<&str> {
        let slot = Slot::of(f)?;
        if self.filled & slot.bit() == 0 || self.overflow & slot.bit() != 0 {
            return None;
        }
        Some(self.buffer(slot))
    }

    fn text_role(&self) -> Role {
        self.enum_text(Field::Role)
            .and_then(Role::from_wire)
            .unwrap_or_default()
    }

    /// Id slots whose value did not fit are an error where the rules read them.
    #[inline]
    fn check_slots(&self, kind: EventType) -> Result<(), Error> {
        let needed = [kind.id_field(), kind.name_field()];
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
                        id: crate::error::ErrorText::new(),
                    },
                ));
            }
        }
        Ok(())
    }

    fn decode_error(&self, code: Code, detail: Detail) -> Error {
        let event = self
            .kind
            .or_else(|| EventType::from_wire(self.slot(Slot::Type)));
        Error::new(Stage::Decode, code, event, detail)
    }
}

/// The static name of the event type spelled by `run`, if it is one
/// (`last`, the type of the previous frame, is tried first): a `type`
/// value's part can then be that name, with no UTF-8 check of the input.
fn type_name(run: &[u8], last: Option<EventType>) -> Option<EventType> {
    if let Some(last) = last.filter(|t| t.as_str().as_bytes() == run) {
        return Some(last);
    }
    EventType::ALL
        .iter()
        .copied()
        .find(|t| t.as_str().as_bytes() == run)
}

/// The length of a UTF-8 sequence from its first byte.
const fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        0x00..=0xBF => 1,
    }
}

/// What one token did, as [`Decoder::feed`] needs to know.
enum Action<'t> {
    Nothing,
    RawBegin,
    RawMore,
    RawEnd,
    /// A `true`, `false` or `null` value, whole.
    Literal(&'static str),
    Text(Text<'t>),
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic
)]
mod tests {
    extern crate std;

    use super::*;
    use std::string::String;
    use std::vec::Vec;

    /// Parts merged per field value, the header (or error) and the ids.
    type Outcome = (
        Vec<(Field, PartKind, String)>,
        Result<(Header, String, String), Error>,
    );

    /// Decodes one frame fed in `pieces`.
    fn decode(pieces: &[&[u8]]) -> Outcome {
        let mut dec: Decoder = Decoder::new();
        let mut parts: Vec<(Field, PartKind, String)> = Vec::new();
        for piece in pieces {
            let mut rest = *piece;
            while !rest.is_empty() {
                let (used, part) = match dec.feed(rest) {
                    Ok(x) => x,
                    Err(e) => return (parts, Err(e)),
                };
                assert!(used > 0 || part.is_some(), "no progress");
                rest = &rest[used..];
                if let Some(part) = part {
                    match parts.last_mut() {
                        Some((f, k, text))
                            if !part.first && *f == part.field && *k == part.kind =>
                        {
                            text.push_str(part.text.as_str())
                        }
                        _ => {
                            assert!(part.first, "a value's first part is marked");
                            parts.push((part.field, part.kind, part.text.as_str().into()));
                        }
                    }
                }
            }
        }
        let head = dec
            .end_frame()
            .map(|h| (h, dec.id().into(), dec.tool_call_name().into()));
        (parts, head)
    }

    /// Every part of a frame as handed out (not merged), the header or
    /// error, the id and the tokenizer's offset; by `feed_whole` if
    /// `whole` and it takes the frame (which the flag reports).
    #[allow(clippy::type_complexity)]
    fn parts_of(
        dec: &mut Decoder,
        frame: &[u8],
        whole: bool,
    ) -> (
        bool,
        Vec<(Field, PartKind, String, bool)>,
        Result<(Header, String), Error>,
        u64,
    ) {
        let mut parts = Vec::new();
        let mut push = |p: Part<'_>| parts.push((p.field, p.kind, p.text.as_str().into(), p.first));
        let took = whole && dec.feed_whole(frame, &mut push);
        let mut rest = frame;
        while !took && !rest.is_empty() {
            match dec.feed(rest) {
                Ok((used, part)) => {
                    rest = &rest[used..];
                    part.into_iter().for_each(&mut push);
                }
                Err(e) => return (took, parts, Err(e), dec.json.offset()),
            }
        }
        let head = dec.end_frame().map(|h| (h, dec.id().into()));
        (took, parts, head, dec.json.offset())
    }

    /// A whole bare delta frame in one step hands out the same parts and
    /// leaves the same state as `feed` does; any other shape is declined
    /// with nothing changed. Two frames in a row: the second starts from
    /// the first's ended state.
    #[test]
    fn a_whole_frame_in_one_step_is_feed_in_one_call() {
        let taken: &[&str] = &[
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi é"}"#,
            r#"{"delta":"x","type":"TOOL_CALL_ARGS","toolCallId":"t"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":""}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","type":"TEXT_MESSAGE_CONTENT","delta":"d"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","other":"o"}"#,
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
        ];
        let declined: &[&str] = &[
            r#"{"type":"TEXT_MESSAGE_CONTENT", "messageId":"m1","delta":"d"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a\nb"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"d"} "#,
            r#"{"type":"NOT_A_TYPE","messageId":"m1","delta":"d"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"d","x":"y"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":1,"delta":"d"}"#,
        ];
        let frames = taken.iter().map(|f| (f.as_bytes().to_vec(), true));
        let frames = frames.chain(declined.iter().map(|f| (f.as_bytes().to_vec(), false)));
        // Invalid UTF-8 in the delta: declined, and `feed` reports it.
        let mut bad = br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"?"}"#.to_vec();
        let at = bad.len() - 3;
        bad[at] = 0xFF;
        for (frame, takes) in frames.chain([(bad, false)]) {
            let (mut fast, mut slow): (Decoder, Decoder) = (Decoder::new(), Decoder::new());
            for _ in 0..2 {
                let (took, parts, head, offset) = parts_of(&mut fast, &frame, true);
                // Without the feature `fast` it takes none.
                assert_eq!(
                    took,
                    takes && crate::FAST,
                    "{}",
                    String::from_utf8_lossy(&frame)
                );
                let (_, want_parts, want_head, want_offset) = parts_of(&mut slow, &frame, false);
                assert_eq!((parts, head, offset), (want_parts, want_head, want_offset));
            }
        }
    }

    /// Parts are provisional: before an error, how many were handed out
    /// depends on where the slices end. So for a failing frame only the
    /// error counts.
    fn settled(outcome: Outcome) -> Outcome {
        match outcome {
            (_, Err(e)) => (Vec::new(), Err(e)),
            ok => ok,
        }
    }

    /// The fast paths (whole keys, whole strings, raw values in one loop)
    /// only run when a token is whole in one slice: feeding a frame whole,
    /// cut anywhere, or a byte at a time must give the same parts, header
    /// and errors.
    fn assert_split_invariant(frame: &str) {
        let bytes = frame.as_bytes();
        let whole = settled(decode(&[bytes]));
        for i in 0..=bytes.len() {
            let (a, b) = bytes.split_at(i);
            assert_eq!(settled(decode(&[a, b])), whole, "{frame} cut at {i}");
        }
        let one: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(settled(decode(&one)), whole, "{frame} byte at a time");
    }

    const FRAMES: &[&str] = &[
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello"}"#,
        r#" { "type" : "TEXT_MESSAGE_CONTENT" , "messageId" : "m1" , "delta" : "" } "#,
        r#"{"delta":"a\"b\\c\nd\u00e9\ud83d\ude80 caf\u00e9 é","messageId":"m","type":"TEXT_MESSAGE_CONTENT"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m2","role":"user","name":"n"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m2","role":"robot"}"#,
        r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"search","parentMessageId":null}"#,
        r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"q\":\"x\",\"n\":1}"}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":{"b":[1,2.5e3,-0,true,null]}}],"timestamp":12}"#,
        r#"{"type":"STATE_SNAPSHOT","snapshot":{"k\u00e9y":"v","n":[[],{}],"s":"\u0041\t"}}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success"},"usage":[{"inputTokens":3}]}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[]}}"#,
        r#"{"type":"RUN_ERROR","message":"m","usage":[{"inputTokens":1.5}]}"#,
        r#"{"type":"CUSTOM","name":"x","value":7,"aVeryLongUnknownKeyName":"ignored","metadata":{"a":1}}"#,
        r#"{"type":"CUSTOM","name":"x","name":"y","metadata":null}"#,
        r#"{"messageId":"m","type":"TEXT_MESSAGE_CONTENT"}"#,
        r#"{"type":"NOPE"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x""#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"} x"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a	b"}"#,
        r#"{"type":"STATE_DELTA","delta":[1,]}"#,
        r#"[1]"#,
        r#"{"type":"STEP_STARTED","stepName":"0123456789012345678901234567890123456789012345678901234567890123456789"}"#,
        // Raw values cut inside a string: spaces and multi-byte characters
        // at a cut are kept (a later slice may begin inside a string).
        r#"{"type":"STATE_SNAPSHOT","snapshot":{"k":"a  b ","é":"ü😀 x","n":[1, 2,  {"a" : " c"}]}}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","result":{"t":"  é ☺"},"usage":[{"model":"  ü"}]}"#,
    ];

    #[test]
    fn fast_paths_are_split_invariant() {
        for frame in FRAMES {
            assert_split_invariant(frame);
        }
    }

    #[test]
    fn plain_frames_take_one_part_per_value() {
        let (parts, head) = decode(&[FRAMES[0].as_bytes()]);
        let (head, id, _) = head.unwrap();
        assert_eq!(head.kind, EventType::TextMessageContent);
        assert_eq!(id, "m1");
        assert_eq!(
            parts,
            [
                (Field::Type, PartKind::Text, "TEXT_MESSAGE_CONTENT".into()),
                (Field::MessageId, PartKind::Text, "m1".into()),
                (Field::Delta, PartKind::Text, "Hello".into()),
            ]
        );
        let (parts, _) = decode(&[FRAMES[7].as_bytes()]);
        assert_eq!(parts[1].0, Field::Delta);
        assert_eq!(parts[1].1, PartKind::Raw);
        assert!(parts[1].2.starts_with("[{\"op\"") && parts[1].2.ends_with("null]}}]"));
    }

    /// A frame that passed the schema check is not trusted blindly by the
    /// next one of the same type: different fields are checked again.
    #[test]
    fn the_schema_cache_keys_on_the_fields() {
        let mut dec: Decoder = Decoder::new();
        let mut run = |frame: &str| {
            let mut rest = frame.as_bytes();
            while !rest.is_empty() {
                let (used, _) = dec.feed(rest).unwrap();
                rest = &rest[used..];
            }
            dec.end_frame()
        };
        let ok = r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"}"#;
        assert!(run(ok).is_ok());
        assert!(run(ok).is_ok());
        let missing = run(r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m"}"#);
        assert_eq!(missing.unwrap_err().code, Code::Decode);
        let wrong = run(r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":1}"#);
        assert_eq!(wrong.unwrap_err().code, Code::Decode);
        assert!(run(ok).is_ok());
    }
}
