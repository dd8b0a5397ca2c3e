//! Enforcement (SPEC 9.4) for 1.0 mode: the decoder's end of frame under
//! the 1.0 rules, and the streaming checks of the values 1.0 describes
//! more strictly than the current protocol.
//!
//! The order is the reference's: the frame check (an object with a
//! non-empty string `type`), the compatibility boundary (retired types
//! translated, legacy nulls made absent: [`crate::compat`]), then
//! enforcement: an unknown type drops the frame, unknown keys are stripped
//! (each a warning), and what is left must match the type's 1.0 schema
//! ([`EventType::schema_v1`]) or the frame is a `decode` error.

use super::{schema, Decoder, Field, Kind, Slot};
use crate::compat::{successor, Compat};
use crate::error::{error_text, Code, Detail, Error};
use crate::event::EventType;
use crate::json::Token;
use crate::protocol::{announces_v1, Protocol, Version};
use crate::spec::{Expect, Need, Schema};
use crate::store::{Fixed, IdText as _, Store};
use crate::warn::{WarnCode, Warning};

use super::seed::{Seeder, Seeds};
use super::shapes::{Shapes, Verdict};
use super::Header;

/// Fields every 1.0 event may carry (`subagentRunId` only if the type is
/// [`tagged`](EventType::tagged)).
const COMMON_V1: Schema = &[
    (Field::Timestamp, Need::Opt, Expect::Int),
    (Field::RawEvent, Need::Opt, Expect::Any),
    (Field::Metadata, Need::Opt, Expect::Obj),
];

/// `subagentRunId`, for tagged types.
const TAG: Schema = &[(Field::SubagentRunId, Need::Opt, Expect::Str)];

/// Legacy nulls the boundary turns into absent fields (SPEC 9.3): the
/// field, and the types on which it does so (`None`: every type).
const LEGACY_NULLS: &[(Field, Option<&[EventType]>)] = &[
    (Field::RawEvent, None),
    (
        Field::Result,
        Some(&[EventType::RunFinished, EventType::SubagentFinished]),
    ),
    (
        Field::ParentMessageId,
        Some(&[EventType::ToolCallStart, EventType::ToolCallChunk]),
    ),
    (Field::Outcome, Some(&[EventType::RunFinished])),
];

/// How many unknown keys of one frame are named in warnings; more are
/// reported as one warning saying so.
pub(super) const UNKNOWN_KEYS: usize = 2;

/// The decoder's 1.0 part, chosen by type: `()` for a decoder of the
/// current protocol only (no memory, and none of the 1.0 code is linked:
/// the firmware's flash and RAM budgets depend on it), [`V1`] for one that
/// can decode 1.0.
pub trait Ext<const ID: usize, S: Store = Fixed>: Clone + core::fmt::Debug {
    /// Whether this part decodes 1.0.
    const ON: bool;
    /// The part before the first frame.
    fn new() -> Self;
    /// The 1.0 state, if any.
    fn get(&self) -> Option<&V1<ID, S>>;
    /// The same, to change.
    fn get_mut(&mut self) -> Option<&mut V1<ID, S>>;
    /// The bytes the part keeps beside its own size (0 in the fixed
    /// store).
    fn heap_bytes(&self) -> usize;
}

impl<const ID: usize, S: Store> Ext<ID, S> for () {
    const ON: bool = false;
    #[inline(always)]
    fn new() -> Self {}
    #[inline(always)]
    fn get(&self) -> Option<&V1<ID, S>> {
        None
    }
    #[inline(always)]
    fn get_mut(&mut self) -> Option<&mut V1<ID, S>> {
        None
    }
    #[inline(always)]
    fn heap_bytes(&self) -> usize {
        0
    }
}

impl<const ID: usize, S: Store> Ext<ID, S> for V1<ID, S> {
    const ON: bool = true;
    #[inline(always)]
    fn new() -> Self {
        V1::new()
    }
    #[inline(always)]
    fn get(&self) -> Option<&V1<ID, S>> {
        Some(self)
    }
    #[inline(always)]
    fn get_mut(&mut self) -> Option<&mut V1<ID, S>> {
        Some(self)
    }
    fn heap_bytes(&self) -> usize {
        [
            &self.subagent,
            &self.parent_message,
            &self.parent_subagent,
            &self.entity,
            &self.name,
        ]
        .iter()
        .fold(self.seeder.heap_bytes(), |n, s| {
            n.saturating_add(s.heap_bytes())
        })
    }
}

/// The decoder's 1.0 state: the slots the 1.0 rules read (`subagentRunId`,
/// the parent ids, `entityId`, `protocolVersion`, a chunk's `name`), the
/// enforcement of the frame being read, the compatibility boundary's
/// memory, and the seeder that reads a snapshot's owners from the parts the
/// decoder hands out (its tokenizer allows 64 levels, any decoder's most).
#[derive(Debug, Clone)]
pub struct V1<const ID: usize = 64, S: Store = Fixed> {
    subagent: S::Str<ID>,
    parent_message: S::Str<ID>,
    parent_subagent: S::Str<ID>,
    entity: S::Str<ID>,
    version: heapless::String<{ super::VERSION_LEN }>,
    name: S::Str<ID>,
    enforce: Enforce,
    /// The last 1.0 schema pass of a frame of plain strings: its type and
    /// fields (see `check_v1`).
    checked: Option<(EventType, u64)>,
    /// The unknown-type warning of a frame enforcement dropped.
    dropped: Option<Warning>,
    /// The compatibility boundary's memory (SPEC 9.3), and a copy from
    /// before the frame being read.
    compat: Compat<ID>,
    compat_before: Compat<ID>,
    /// The owner seeds of a snapshot's or run input's messages, read from
    /// the parts this decoder hands out.
    seeder: Seeder<64, S>,
}

impl<const ID: usize, S: Store> Default for V1<ID, S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const ID: usize, S: Store> V1<ID, S> {
    /// Empty slots.
    pub fn new() -> Self {
        V1 {
            subagent: Default::default(),
            parent_message: Default::default(),
            parent_subagent: Default::default(),
            entity: Default::default(),
            version: heapless::String::new(),
            name: Default::default(),
            enforce: Enforce::new(),
            checked: None,
            dropped: None,
            compat: Compat::new(),
            compat_before: Compat::new(),
            seeder: Seeder::new(),
        }
    }

    /// A 1.0 slot's text ("" for the others, which the decoder keeps).
    pub(super) fn slot(&self, slot: Slot) -> &str {
        match slot {
            Slot::SubagentRunId => &self.subagent,
            Slot::ParentMessageId => &self.parent_message,
            Slot::ParentSubagentRunId => &self.parent_subagent,
            Slot::EntityId => &self.entity,
            Slot::ProtocolVersion => &self.version,
            Slot::Name => &self.name,
            Slot::Type
            | Slot::Role
            | Slot::Subtype
            | Slot::MessageId
            | Slot::ToolCallId
            | Slot::ToolCallName
            | Slot::StepName => "",
        }
    }

    pub(super) fn clear(&mut self, slot: Slot) {
        match slot {
            Slot::SubagentRunId => self.subagent.clear(),
            Slot::ParentMessageId => self.parent_message.clear(),
            Slot::ParentSubagentRunId => self.parent_subagent.clear(),
            Slot::EntityId => self.entity.clear(),
            Slot::ProtocolVersion => self.version.clear(),
            Slot::Name => self.name.clear(),
            Slot::Type
            | Slot::Role
            | Slot::Subtype
            | Slot::MessageId
            | Slot::ToolCallId
            | Slot::ToolCallName
            | Slot::StepName => {}
        }
    }

    /// Appends to a 1.0 slot; false if it does not fit.
    pub(super) fn push(&mut self, slot: Slot, text: &str) -> bool {
        match slot {
            Slot::SubagentRunId => self.subagent.push_str(text).is_ok(),
            Slot::ParentMessageId => self.parent_message.push_str(text).is_ok(),
            Slot::ParentSubagentRunId => self.parent_subagent.push_str(text).is_ok(),
            Slot::EntityId => self.entity.push_str(text).is_ok(),
            Slot::ProtocolVersion => self.version.push_str(text).is_ok(),
            Slot::Name => self.name.push_str(text).is_ok(),
            Slot::Type
            | Slot::Role
            | Slot::Subtype
            | Slot::MessageId
            | Slot::ToolCallId
            | Slot::ToolCallName
            | Slot::StepName => true,
        }
    }
}

/// The decoder's 1.0 state for one frame.
#[derive(Debug, Clone)]
pub(crate) struct Enforce {
    /// Unknown keys seen (cut to the key buffer).
    pub(super) unknown: heapless::Vec<heapless::String<{ super::KEY_LEN }>, UNKNOWN_KEYS>,
    /// More unknown keys than `unknown` holds.
    pub(super) more: bool,
    /// `replace` was `false` (ACTIVITY_SNAPSHOT).
    pub(super) replace_false: bool,
    /// The nested value checks.
    pub(super) shapes: Shapes,
}

impl Enforce {
    pub(crate) const fn new() -> Self {
        Enforce {
            unknown: heapless::Vec::new(),
            more: false,
            replace_false: false,
            shapes: Shapes::new(),
        }
    }

    /// Forgets the previous frame (see [`Shapes::reset`]).
    pub(crate) fn reset(&mut self) {
        self.unknown.clear();
        self.more = false;
        self.replace_false = false;
        self.shapes.reset();
    }

    /// Records an unknown key (1.0 strips it at the end of the frame).
    pub(super) fn unknown_key(&mut self, key: &[u8]) {
        let mut name = heapless::String::new();
        for c in core::str::from_utf8(key).unwrap_or("?").chars() {
            if name.push(c).is_err() {
                break;
            }
        }
        if self.unknown.contains(&name) {
            return;
        }
        if self.unknown.push(name).is_err() {
            self.more = true;
        }
    }

    /// A top-level value begins (`kind` of its first token).
    pub(super) fn begin(&mut self, field: Option<Field>, kind: Kind) {
        self.shapes.begin(field, kind);
    }

    /// One token of the current top-level value.
    pub(super) fn token(&mut self, token: &Token<'_>) {
        self.shapes.token(token);
    }

    /// Whether the current value's tokens are needed one by one.
    pub(super) fn is_active(&self) -> bool {
        self.shapes.is_active()
    }
}

impl<const ID: usize, const DEPTH: usize, X: Ext<ID, S>, S: Store> Decoder<ID, DEPTH, X, S> {
    /// Turns the 1.0 streaming checks on or off for the next frames (off:
    /// the current protocol, with no cost for them). A decoder without a
    /// 1.0 part ([`Ext`] `()`) has none.
    pub fn set_v1_checks(&mut self, on: bool) {
        self.v1 = on && X::ON;
    }

    /// The enforcement of the frame, in 1.0 mode.
    #[inline(always)]
    pub(super) fn enforce(&mut self) -> Option<&mut Enforce> {
        if !self.v1 {
            return None;
        }
        self.ext.get_mut().map(|v| &mut v.enforce)
    }

    /// The same, to read.
    fn enforcing(&self) -> Option<&Enforce> {
        if !self.v1 {
            return None;
        }
        self.ext.get().map(|v| &v.enforce)
    }

    /// Whether a nested 1.0 value is being checked (its tokens are needed).
    #[inline(always)]
    pub(super) fn checking(&self) -> bool {
        self.v1 && self.ext.get().is_some_and(|v| v.enforce.is_active())
    }

    /// The verdict on a checked field and its issue (`Fine` off 1.0).
    pub(super) fn verdict(&self, field: Field) -> (Verdict, Option<super::shapes::Issue>) {
        match self.enforcing() {
            Some(e) => {
                let v = e.shapes.verdict(field);
                let issue = (v == Verdict::Bad).then(|| e.shapes.issue(field));
                (v, issue)
            }
            None => (Verdict::Fine { variant: None }, None),
        }
    }

    /// The protocol a stream's first frame selects (SPEC 9.1), with the
    /// warning its `protocolVersion` deserves; call after the frame's text.
    pub fn first_frame_protocol(&self) -> (Protocol, Option<Warning>) {
        let run_started = self.type_hint == Some(EventType::RunStarted)
            || self.slot(Slot::Type) == EventType::RunStarted.as_str();
        let version = self.version_text();
        match version {
            Some(v) if run_started && announces_v1(v) => (Protocol::V1, None),
            Some(_) | None => (Protocol::Current, None),
        }
    }

    /// `protocolVersion` as a string, if it was one (a value too long for
    /// its slot reads as `"(long)"`, outside the grammar).
    fn version_text(&self) -> Option<&str> {
        if self.kind_of(Field::ProtocolVersion) != Some(Kind::String) {
            return None;
        }
        if self.overflow & Slot::ProtocolVersion.bit() != 0 {
            return Some("(long)");
        }
        Some(self.buffer(Slot::ProtocolVersion))
    }

    /// `subagentRunId` of the decoded 1.0 event: its owner (`None`: the
    /// parent agent, or a type that has no owner).
    pub fn tag(&self) -> Option<&str> {
        self.present_text(Field::SubagentRunId)
    }

    /// `parentMessageId` (TOOL_CALL_START / _CHUNK, SUBAGENT_STARTED).
    pub fn parent_message_id(&self) -> Option<&str> {
        self.present_text(Field::ParentMessageId)
    }

    /// `parentSubagentRunId` (SUBAGENT_STARTED).
    pub fn parent_subagent(&self) -> Option<&str> {
        self.present_text(Field::ParentSubagentRunId)
    }

    /// `entityId` (REASONING_ENCRYPTED_VALUE).
    pub fn entity_id(&self) -> &str {
        self.present_text(Field::EntityId).unwrap_or("")
    }

    /// `messageId` whatever the type (activity and tool-result events name
    /// a message without it being their rule id).
    pub fn message_id(&self) -> &str {
        self.present_text(Field::MessageId).unwrap_or("")
    }

    /// `name` (TEXT_MESSAGE_CHUNK's speaker), if present and it fit.
    pub fn name(&self) -> Option<&str> {
        self.present_text(Field::Name)
    }

    /// `role` as written, if present (TEXT_MESSAGE_CHUNK).
    pub fn role_text(&self) -> Option<&str> {
        self.present_text(Field::Role)
    }

    /// `toolCallName`, if present.
    pub fn tool_call_name_text(&self) -> Option<&str> {
        self.present_text(Field::ToolCallName)
    }

    /// True if the frame has `field` as a string (not stripped), whatever
    /// its length: a chunk "names an id", the empty string included.
    pub fn names(&self, field: Field) -> bool {
        self.seen & field.bit() != 0 && self.kind_of(field) == Some(Kind::String)
    }

    /// `replace: false` on an ACTIVITY_SNAPSHOT.
    pub fn replace_false(&self) -> bool {
        self.seen & Field::Replace.bit() != 0 && self.enforcing().is_some_and(|e| e.replace_false)
    }

    /// `subtype` is `"tool-call"` (REASONING_ENCRYPTED_VALUE).
    pub fn subtype_is_tool_call(&self) -> bool {
        self.enum_text(Field::Subtype) == Some("tool-call")
    }

    /// A field's string value if the field is present (not stripped) and
    /// its value fit its slot.
    fn present_text(&self, field: Field) -> Option<&str> {
        if self.seen & field.bit() == 0 {
            return None;
        }
        let slot = Slot::of(field)?;
        (self.filled & slot.bit() != 0 && self.overflow & slot.bit() == 0)
            .then(|| self.buffer(slot))
    }

    /// Ends the frame under the 1.0 rules: `None` when enforcement drops
    /// it (an unknown type); warnings go to `warn`. Retired types come out
    /// translated, their ids from `compat`.
    ///
    /// # Errors
    /// A `decode` error: not JSON, not an object, no type, a malformed
    /// known field; or `capacity` for an id longer than `ID`.
    pub fn end_frame_v1(&mut self, warn: &mut dyn FnMut(Warning)) -> Result<Option<Header>, Error> {
        // The boundary's memory before the frame, for `restore_compat`.
        if let Some(v) = self.ext.get_mut() {
            v.compat_before = v.compat.clone();
        }
        let result = self.end_frame_v1_inner(warn);
        if result.is_err() {
            // A rejected frame translated nothing.
            self.restore_compat();
        }
        result
    }

    /// Takes the compatibility boundary back to before the last frame
    /// (keep-going mode, for a frame whose events were refused).
    pub fn restore_compat(&mut self) {
        if let Some(v) = self.ext.get_mut() {
            v.compat = v.compat_before.clone();
        }
    }

    /// Reads a part this decoder handed out for the owner seeds of a
    /// snapshot's or run input's messages (see [`seed`](super::seed)) into
    /// `owners` (the verifier's 1.0 tables).
    pub fn seed(&mut self, part: &super::Part<'_>, owners: &mut impl Seeds) {
        let relevant = matches!(part.field, Field::Messages | Field::Input)
            && part.kind == super::PartKind::Raw;
        let Some(v) = self.ext.get_mut().filter(|_| relevant) else {
            return;
        };
        if part.first {
            v.seeder.begin(part.field);
        }
        v.seeder.feed(part.text.as_str().as_bytes(), owners);
    }

    /// Forgets the seeds being read (a new frame begins).
    pub(crate) fn reset_seeder(&mut self) {
        if let Some(v) = self.ext.get_mut() {
            v.seeder = Seeder::new();
        }
    }

    fn end_frame_v1_inner(
        &mut self,
        warn: &mut dyn FnMut(Warning),
    ) -> Result<Option<Header>, Error> {
        self.ended = true;
        self.json.finish().map_err(Error::json)?;
        if self.pos != Pos::Done {
            return Err(Error::json(crate::json::JsonError {
                kind: crate::json::JsonErrorKind::UnexpectedEnd,
                offset: self.json.offset(),
            }));
        }
        let Some(wire) = self.wire_type()? else {
            return Ok(None);
        };
        let kind = match successor(wire) {
            Some((next, thread, using)) => {
                let mut compat = self.ext.get_mut().map(|v| core::mem::take(&mut v.compat));
                let id = compat
                    .as_mut()
                    .map(|c| c.id_for::<S>(wire, thread, using, warn));
                if let (Some(v), Some(c)) = (self.ext.get_mut(), compat) {
                    v.compat = c;
                }
                match id {
                    Some(id) => self.translate(wire, next, id?, warn),
                    // Without a 1.0 part nothing is translated (never
                    // reached: such a decoder is not asked for 1.0).
                    None => return Ok(None),
                }
                next
            }
            None => wire,
        };
        self.kind = Some(kind);
        self.legacy_nulls(kind, warn);
        self.strip(kind, warn);
        self.check_v1(kind)
            .map_err(|d| self.decode_error(Code::Decode, d))?;
        self.check_slots(kind)?;
        if kind == EventType::RunStarted {
            if let Some(w) = self
                .version_text()
                .and_then(|v| Version::parse(v).warning())
            {
                warn(Warning::new(
                    w,
                    Some(kind),
                    self.version_text().unwrap_or(""),
                ));
            }
        }
        Ok(Some(Header {
            kind,
            role: self.text_role(),
            fields: self.seen,
        }))
    }

    /// The frame check and the type's lookup: `None` (with its warning)
    /// for a type 1.0 does not know.
    fn wire_type(&mut self) -> Result<Option<EventType>, Error> {
        let is_string = self.kind_of(Field::Type) == Some(Kind::String);
        if !is_string
            || (self.filled & Slot::Type.bit() != 0
                && self.slot(Slot::Type).is_empty()
                && self.type_hint.is_none())
        {
            return Err(self.decode_error(Code::Decode, Detail::MissingType));
        }
        let kind = self
            .type_hint
            .or_else(|| EventType::from_wire(self.slot(Slot::Type)));
        match kind {
            Some(kind) if kind.is_in(Protocol::V1) || successor(kind).is_some() => Ok(Some(kind)),
            Some(_) | None => {
                let shown = if self.overflow & Slot::Type.bit() != 0 {
                    "(a long name)"
                } else {
                    self.slot(Slot::Type)
                };
                let mut w = Warning::new(WarnCode::UnknownEvent, None, shown);
                w.text = error_text(shown);
                self.kind = None;
                if let Some(e) = self.enforce() {
                    e.unknown.clear();
                }
                self.pending_warning(w);
                Ok(None)
            }
        }
    }

    /// Holds the unknown-type warning until the caller's channel is at hand.
    fn pending_warning(&mut self, w: Warning) {
        if let Some(v) = self.ext.get_mut() {
            v.dropped = Some(w);
        }
    }

    /// The warning of a dropped frame, once.
    pub fn take_dropped_warning(&mut self) -> Option<Warning> {
        self.ext.get_mut().and_then(|v| v.dropped.take())
    }

    /// A retired event becomes its successor: the id it carries, the role
    /// a reasoning message needs, and the warnings of the translation.
    fn translate(
        &mut self,
        wire: EventType,
        next: EventType,
        id: S::Str<ID>,
        warn: &mut dyn FnMut(Warning),
    ) {
        warn(Warning::new(WarnCode::Converted, Some(next), wire.as_str()));
        if self.seen & Field::Title.bit() != 0 {
            self.seen &= !Field::Title.bit();
            warn(Warning::new(WarnCode::DroppedTitle, Some(next), "/title"));
        }
        self.provide(Field::MessageId, &id);
        if next == EventType::ReasoningMessageStart {
            self.provide(Field::Role, "reasoning");
        }
    }

    /// Sets a field as if the frame had it as this string.
    fn provide(&mut self, field: Field, text: &str) {
        self.seen |= field.bit();
        self.strings |= field.bit();
        if let Some(k) = self.kinds.get_mut(field as usize) {
            *k = Kind::String;
        }
        if let Some(slot) = Slot::of(field) {
            self.clear_slot(slot);
            self.filled |= slot.bit();
            self.overflow &= !slot.bit();
            if !self.push_slot(slot, text) {
                self.overflow |= slot.bit();
            }
        }
    }

    /// SPEC 9.3's legacy nulls: absent from now on, with a warning; and
    /// the nested ones and `binary` parts of the messages of a run input or
    /// a snapshot.
    fn legacy_nulls(&mut self, kind: EventType, warn: &mut dyn FnMut(Warning)) {
        for &(field, types) in LEGACY_NULLS {
            let applies = types.is_none_or(|t| t.contains(&kind));
            if applies && self.kind_of(field) == Some(Kind::Null) {
                self.seen &= !field.bit();
                warn(Warning::new(
                    WarnCode::Converted,
                    Some(kind),
                    field.as_str(),
                ));
            }
        }
        let nested = if kind == EventType::RunStarted {
            Field::Input
        } else if kind == EventType::MessagesSnapshot {
            Field::Messages
        } else {
            return;
        };
        if self.seen & nested.bit() == 0 {
            return;
        }
        let Some(e) = self.enforcing() else { return };
        let shapes = &e.shapes;
        for _ in 0..shapes.legacy_nulls {
            warn(Warning::new(
                WarnCode::Converted,
                Some(kind),
                "null (now absent)",
            ));
        }
        for _ in 0..shapes.binary_unconvertible {
            warn(Warning::new(
                WarnCode::BinaryUnconvertible,
                Some(kind),
                "binary",
            ));
        }
        if shapes.binary_converted {
            warn(Warning::new(
                WarnCode::Converted,
                Some(kind),
                "binary content parts",
            ));
        }
    }

    /// Known fields the type does not describe, and unknown keys: removed,
    /// each with a warning naming its path.
    fn strip(&mut self, kind: EventType, warn: &mut dyn FnMut(Warning)) {
        // Most frames have nothing to strip: only their stray bits are walked.
        let mut stray = self.seen & !described(kind) & !Field::Type.bit();
        while stray != 0 {
            let at = stray.trailing_zeros();
            stray &= stray.wrapping_sub(1);
            let Some(&field) = Field::ALL.get(at as usize) else {
                continue;
            };
            self.seen &= !field.bit();
            let mut path = heapless::String::<32>::new();
            let _ = path.push('/');
            let _ = path.push_str(field.as_str());
            warn(Warning::new(WarnCode::Stripped, Some(kind), &path));
        }
        let Some(e) = self.enforcing() else { return };
        for key in &e.unknown {
            let mut path = heapless::String::<32>::new();
            let _ = path.push('/');
            let _ = path.push_str(key);
            warn(Warning::new(WarnCode::Stripped, Some(kind), &path));
        }
        if e.more {
            warn(Warning::new(
                WarnCode::Stripped,
                Some(kind),
                "(more unknown keys)",
            ));
        }
        self.strip_outcome(kind, warn);
        let Some(e) = self.enforcing() else { return };
        for path in &e.shapes.strips {
            warn(Warning::new(WarnCode::Stripped, Some(kind), &slashed(path)));
        }
        for _ in 0..e.shapes.extra_strips() {
            warn(Warning::new(
                WarnCode::Stripped,
                Some(kind),
                "(more unknown material)",
            ));
        }
    }

    /// An outcome whose `type` the event does not know (or none) is
    /// removed: the field is optional (SPEC 9.4).
    fn strip_outcome(&mut self, kind: EventType, warn: &mut dyn FnMut(Warning)) {
        if self.seen & Field::Outcome.bit() == 0
            || self.kind_of(Field::Outcome) != Some(Kind::Object)
        {
            return;
        }
        let known = match self.verdict(Field::Outcome).0 {
            Verdict::Fine { variant: Some(v) } => outcome_known(kind, v),
            Verdict::Fine { variant: None } | Verdict::Bad => true,
            Verdict::Removed => false,
        };
        if !known {
            self.seen &= !Field::Outcome.bit();
            warn(Warning::new(WarnCode::Stripped, Some(kind), "/outcome"));
        }
    }

    /// The 1.0 schema of `kind` (SPEC 9.5) over what is left.
    fn check_v1(&mut self, kind: EventType) -> Result<(), Detail> {
        // As in the current protocol: the outcome depends only on the
        // fields there and their kinds when all are plain strings (no enum,
        // no nested value), so the last such frame's pass is reused.
        const UNCACHED: u64 = Field::Role.bit() | Field::Subtype.bit();
        let cacheable = self.seen & !self.strings == 0 && self.seen & UNCACHED == 0;
        let key = (kind, self.seen);
        if cacheable && self.ext.get().is_some_and(|v| v.checked == Some(key)) {
            return Ok(());
        }
        let tag: Schema = if kind.tagged() { TAG } else { &[] };
        for &(field, need, expect) in kind.schema_v1().iter().chain(COMMON_V1).chain(tag) {
            schema::check_field_v1(self, field, need, expect)?;
        }
        if let (true, Some(v)) = (cacheable, self.ext.get_mut()) {
            v.checked = Some(key);
        }
        Ok(())
    }
}

/// Whether an outcome variant (the order of the shapes' outcome union:
/// success, interrupt, cancelled, suspended) belongs to `kind`'s outcome.
fn outcome_known(kind: EventType, variant: u8) -> bool {
    if kind == EventType::SubagentFinished {
        matches!(variant, 0 | 3)
    } else {
        matches!(variant, 0..=2)
    }
}

/// A dotted path (`content.2`) as the warnings write it (`/content/2`).
fn slashed(path: &str) -> heapless::String<72> {
    let mut out = heapless::String::new();
    let _ = out.push('/');
    for c in path.chars() {
        let _ = out.push(if c == '.' { '/' } else { c });
    }
    out
}

/// The fields 1.0 describes on `kind`, as a seen-set mask.
fn described(kind: EventType) -> u64 {
    let tag = if kind.tagged() {
        Field::SubagentRunId.bit()
    } else {
        0
    };
    kind.schema_v1()
        .iter()
        .chain(COMMON_V1)
        .fold(tag, |mask, (f, _, _)| mask | f.bit())
}

use super::Pos;
