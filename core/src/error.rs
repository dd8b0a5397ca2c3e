//! Errors: one type for every stage, with a stable machine-readable code.
//!
//! Every error names the frame it happened in, the stage that rejected it
//! (decode, transform = chunk expansion, verify) and a [`Code`] from the
//! specification's list. The [`Display`](core::fmt::Display) text is meant
//! for a person: it says what was wrong and what the producer should have
//! sent instead.
//!
//! ```
//! use agui_core::error::{Code, Stage};
//! assert_eq!(Code::MessageNotActive.as_str(), "message_not_active");
//! assert_eq!(Stage::Verify.as_str(), "verify");
//! ```

use core::fmt;

use crate::event::EventType;
use crate::json::{JsonError, JsonErrorKind};
use crate::spec::{Expect, Field, Kind};

/// Longest id or name text an error keeps for its message. Longer ids are
/// shown cut, with `…`; the code and frame index are always exact.
pub const ERROR_TEXT: usize = 64;

/// Text kept inside an error for its message: up to `N` bytes of UTF-8,
/// inline ([`ERROR_TEXT`] by default, [`ShortText`] for the short ones).
///
/// `Copy` (unlike `heapless::String`), so that [`Error`] is `Copy` too: an
/// error is moved and returned through every stage, and a bitwise copy is
/// the least code for it (288 bytes less of a Cortex-M image than a
/// field-by-field clone). `N` is at most 255.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ErrorText<const N: usize = ERROR_TEXT> {
    len: u8,
    bytes: [u8; N],
}

impl<const N: usize> ErrorText<N> {
    /// An empty text.
    pub const fn new() -> Self {
        ErrorText {
            len: 0,
            bytes: [0; N],
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        let bytes = self.bytes.get(..usize::from(self.len)).unwrap_or_default();
        // Only whole `str`s and chars are ever pushed: always valid.
        core::str::from_utf8(bytes).unwrap_or_default()
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The most bytes it holds: `N`.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Appends `text` whole, or nothing if it does not fit.
    ///
    /// # Errors
    /// `Err(())` when `text` does not fit; the text is unchanged.
    #[allow(clippy::result_unit_err)]
    pub fn push_str(&mut self, text: &str) -> Result<(), ()> {
        let at = usize::from(self.len);
        let end = at.checked_add(text.len()).ok_or(())?;
        let len = u8::try_from(end).map_err(|_| ())?;
        let room = self.bytes.get_mut(at..end).ok_or(())?;
        room.copy_from_slice(text.as_bytes());
        self.len = len;
        Ok(())
    }

    /// Appends one char, or nothing if it does not fit.
    ///
    /// # Errors
    /// `Err(())` when it does not fit; the text is unchanged.
    #[allow(clippy::result_unit_err)]
    pub fn push(&mut self, c: char) -> Result<(), ()> {
        self.push_str(c.encode_utf8(&mut [0; 4]))
    }
}

impl<const N: usize> Default for ErrorText<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> core::ops::Deref for ErrorText<N> {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl<const N: usize> fmt::Display for ErrorText<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<const N: usize> fmt::Debug for ErrorText<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(feature = "defmt")]
impl<const N: usize> defmt::Format for ErrorText<N> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(f, "{=str}", self.as_str());
    }
}

/// Longest owner or field value a [`Detail::Mismatch`] keeps (cut with `…`).
pub const SHORT_TEXT: usize = 24;

/// A short text inside an error (an owner, a field's value).
pub type ShortText = ErrorText<SHORT_TEXT>;

/// The pipeline stage that rejected a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Stage {
    /// Framing or JSON or schema: the frame is not a well-formed event.
    Decode,
    /// Chunk expansion: a `*_CHUNK` event that cannot be expanded.
    Transform,
    /// The protocol's ordering rules.
    Verify,
}

impl Stage {
    /// The stage's name in machine-readable output.
    pub const fn as_str(self) -> &'static str {
        match self {
            Stage::Decode => "decode",
            Stage::Transform => "transform",
            Stage::Verify => "verify",
        }
    }
}

macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident = $text:literal,)*) => {
        /// The stable error codes of the specification (section 4).
        ///
        /// Non-exhaustive: new rules bring new codes; match the ones you
        /// handle and treat the rest by [`Stage`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        #[non_exhaustive]
        pub enum Code {
            $($(#[$doc])* $variant,)*
        }

        impl Code {
            /// The code as written in machine-readable output.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $text,)*
                }
            }
        }
    };
}

codes! {
    /// The frame is not a valid event (JSON, UTF-8, schema).
    Decode = "decode",
    /// The first `*_CHUNK` of an item has no id.
    ChunkMissingId = "chunk_missing_id",
    /// The first `TOOL_CALL_CHUNK` of a tool call has no `toolCallName`.
    ChunkMissingName = "chunk_missing_name",
    /// The stream does not begin with RUN_STARTED or RUN_ERROR.
    FirstEvent = "first_event",
    /// An event after RUN_ERROR other than a new RUN_STARTED.
    RunErrored = "run_errored",
    /// An event after RUN_FINISHED other than RUN_STARTED or RUN_ERROR.
    RunFinished = "run_finished",
    /// RUN_STARTED while a run is still going.
    RunActive = "run_active",
    /// TEXT_MESSAGE_START for an id that is already open.
    MessageActive = "message_active",
    /// TEXT_MESSAGE_CONTENT / _END for an id that is not open.
    MessageNotActive = "message_not_active",
    /// TOOL_CALL_START for an id that is already open.
    ToolCallActive = "tool_call_active",
    /// TOOL_CALL_ARGS / _END for an id that is not open.
    ToolCallNotActive = "tool_call_not_active",
    /// STEP_STARTED for a step that is already open.
    StepActive = "step_active",
    /// STEP_FINISHED for a step that is not open.
    StepNotActive = "step_not_active",
    /// RUN_FINISHED while steps are open.
    UnclosedSteps = "unclosed_steps",
    /// RUN_FINISHED while text messages are open.
    UnclosedMessages = "unclosed_messages",
    /// RUN_FINISHED while tool calls are open.
    UnclosedToolCalls = "unclosed_tool_calls",
    /// THINKING_START while thinking.
    ThinkingActive = "thinking_active",
    /// THINKING_END or a thinking message without THINKING_START.
    ThinkingNotActive = "thinking_not_active",
    /// THINKING_TEXT_MESSAGE_START while a thinking message is open.
    ThinkingMessageActive = "thinking_message_active",
    /// Thinking message content or end without its start.
    ThinkingMessageNotActive = "thinking_message_not_active",
    /// A fixed-size table or buffer of ours is full or too short.
    Capacity = "capacity",
    /// 1.0: an event's `subagentRunId` differs from the owner recorded for
    /// its id (the sub-agent that opened the message, tool call, reasoning
    /// id or activity).
    OwnerMismatch = "owner_mismatch",
    /// 1.0: a TOOL_CALL_START whose owner differs from its parent message's.
    ToolParentOwnerMismatch = "tool_parent_owner_mismatch",
    /// 1.0: STEP_FINISHED for a step that is open under another owner.
    StepOwnerMismatch = "step_owner_mismatch",
    /// 1.0: REASONING_START for a span id that is already open.
    ReasoningSpanActive = "reasoning_span_active",
    /// 1.0: REASONING_END for a span id that is not open.
    ReasoningSpanNotActive = "reasoning_span_not_active",
    /// 1.0: REASONING_MESSAGE_START for an id that is already open.
    ReasoningMessageActive = "reasoning_message_active",
    /// 1.0: reasoning message content or end for an id that is not open.
    ReasoningMessageNotActive = "reasoning_message_not_active",
    /// 1.0: RUN_FINISHED while reasoning messages are open.
    UnclosedReasoningMessages = "unclosed_reasoning_messages",
    /// 1.0: RUN_FINISHED while reasoning spans are open.
    UnclosedReasoningSpans = "unclosed_reasoning_spans",
    /// 1.0: RUN_FINISHED while sub-agents are active.
    UnclosedSubagents = "unclosed_subagents",
    /// 1.0: SUBAGENT_STARTED for a sub-agent that is already active.
    SubagentActive = "subagent_active",
    /// 1.0: SUBAGENT_STARTED for a sub-agent id that already finished in this run.
    SubagentReused = "subagent_reused",
    /// 1.0: SUBAGENT_STARTED naming a parent sub-agent never started in this run.
    SubagentParentUnknown = "subagent_parent_unknown",
    /// 1.0: SUBAGENT_FINISHED / SUBAGENT_ERROR for a sub-agent that is not active.
    SubagentNotActive = "subagent_not_active",
    /// 1.0: a chunk names an open item of another sub-agent's lane.
    ChunkOwnerMismatch = "chunk_owner_mismatch",
    /// 1.0: a chunk continuing an item repeats an opener's field
    /// (role, name, toolCallName, parentMessageId) with another value.
    ChunkFieldMismatch = "chunk_field_mismatch",
    /// 1.0: a chunk with neither id nor `subagentRunId` while several lanes
    /// have an item of its kind open.
    ChunkAmbiguous = "chunk_ambiguous",
}

/// A fixed-capacity table or buffer that can overflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Table {
    /// The verifier's table of open text messages.
    Messages,
    /// The verifier's table of open tool calls.
    ToolCalls,
    /// The verifier's table of open steps.
    Steps,
    /// One id or name slot (the `ID` capacity).
    IdSlot,
    /// 1.0: the owner table of message ids (`OWNERS` entries per run).
    MessageOwners,
    /// 1.0: the owner table of tool-call ids.
    ToolCallOwners,
    /// 1.0: the owner table of reasoning ids (spans and reasoning
    /// messages; its entries also hold which of them are open).
    ReasoningOwners,
    /// 1.0: the owner table of activity message ids.
    ActivityOwners,
    /// 1.0: the sub-agents a run names (`AGENTS` entries: active,
    /// finished, or only named by a `subagentRunId`).
    Subagents,
    /// 1.0: the chunk lanes of sub-agents with an open chunked item.
    Lanes,
}

impl Table {
    /// A short name for messages.
    pub const fn as_str(self) -> &'static str {
        match self {
            Table::Messages => "active messages",
            Table::ToolCalls => "active tool calls",
            Table::Steps => "active steps",
            Table::IdSlot => "id slot",
            Table::MessageOwners => "message owner entries",
            Table::ToolCallOwners => "tool-call owner entries",
            Table::ReasoningOwners => "reasoning owner entries",
            Table::ActivityOwners => "activity owner entries",
            Table::Subagents => "sub-agent entries",
            Table::Lanes => "sub-agent chunk lanes",
        }
    }
}

/// The rule of a nested schema (`RUN_FINISHED.outcome`, `usage`) that a
/// value breaks: [`Detail::Nested`]'s `what`.
///
/// A small enum, not a text, so that an image that never shows an error's
/// text (the serial firmware prints codes) carries none of these
/// sentences: they live in [`Broken::as_str`], linked only when used.
///
/// Non-exhaustive: new nested schemas bring new rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Broken {
    /// The outcome object has a key other than `type` and `interrupts`.
    OutcomeKey,
    /// The outcome's `type` is absent.
    OutcomeTypeMissing,
    /// The outcome's `type` is not `"success"` or `"interrupt"`.
    OutcomeType,
    /// A success outcome carries `interrupts`.
    SuccessInterrupts,
    /// An interrupt outcome lacks `interrupts`.
    InterruptNeedsInterrupts,
    /// `interrupts` is not an array.
    InterruptsArray,
    /// `interrupts` is empty.
    NoInterrupts,
    /// An element of `interrupts` is not an object.
    InterruptShape,
    /// An interrupt lacks a string `id` or `reason`.
    InterruptIdReason,
    /// An interrupt's `responseSchema` or `metadata` is not an object.
    InterruptObjects,
    /// A member that must be a string is not.
    NotString,
    /// An element of `usage` is not an object.
    UsageRecord,
    /// A token count is not a non-negative integer.
    TokenCount,
}

impl Broken {
    /// What is wrong, for a person, with the path inside the field.
    pub const fn as_str(self) -> &'static str {
        match self {
            Broken::OutcomeKey => {
                "unknown key in the outcome object (it allows only `type` and `interrupts`)"
            }
            Broken::OutcomeTypeMissing => "`type` is required",
            Broken::OutcomeType => "`type` must be \"success\" or \"interrupt\"",
            Broken::SuccessInterrupts => "a \"success\" outcome has no `interrupts`",
            Broken::InterruptNeedsInterrupts => "an \"interrupt\" outcome needs `interrupts`",
            Broken::InterruptsArray => "`interrupts` must be an array",
            Broken::NoInterrupts => "`interrupts` must hold at least one interrupt",
            Broken::InterruptShape => "`interrupts`: each interrupt must be an object",
            Broken::InterruptIdReason => {
                "`interrupts`: an interrupt needs string `id` and `reason`"
            }
            Broken::InterruptObjects => {
                "an interrupt's `responseSchema` and `metadata` must be objects"
            }
            Broken::NotString => "a string was expected",
            Broken::UsageRecord => "each usage record must be an object",
            Broken::TokenCount => "token counts must be non-negative integers",
        }
    }
}

impl fmt::Display for Broken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What exactly went wrong; the [`Code`] says which rule.
///
/// Non-exhaustive: new checks bring new specifics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Detail {
    /// The frame is not JSON.
    Json {
        /// The tokenizer's reason.
        kind: JsonErrorKind,
        /// Byte offset inside the frame's text.
        offset: u64,
    },
    /// The frame's JSON is not an object.
    NotAnObject(Kind),
    /// No `type` field, or it is not a string.
    MissingType,
    /// `type` names no known event.
    UnknownType(ErrorText),
    /// A required field is absent.
    Missing(Field),
    /// A field has the wrong JSON type.
    WrongType {
        /// The field.
        field: Field,
        /// What the schema wants.
        expected: Expect,
        /// What the frame has.
        found: Kind,
    },
    /// A field has a value outside its allowed set.
    BadValue {
        /// The field.
        field: Field,
        /// What the schema allows.
        expected: Expect,
        /// The value found (cut if long).
        found: ErrorText,
    },
    /// A nested value (outcome, usage) breaks its schema.
    Nested {
        /// The top-level field that holds it.
        field: Field,
        /// Which rule of the nested schema it breaks.
        what: Broken,
    },
    /// 1.0: a malformed value inside a field, at a path such as
    /// `delta.0.path`.
    Invalid {
        /// The top-level field.
        field: Field,
        /// Where inside the event (dotted, array indexes as numbers).
        path: ErrorText,
        /// What is wrong.
        what: &'static str,
    },
    /// A rule about one id or name (message, tool call, step).
    Id(ErrorText),
    /// Items still open at RUN_FINISHED, comma-separated in insertion order
    /// (cut with `…` if long), and how many there are.
    Open {
        /// The ids or names.
        list: ErrorText,
        /// Their number.
        count: usize,
    },
    /// A table or slot is full.
    Capacity {
        /// Which one.
        table: Table,
        /// Its limit (entries, or bytes for a slot).
        limit: usize,
        /// The field whose value did not fit, for slots.
        field: Option<Field>,
        /// The id the event tried to open when a table was full (cut with
        /// `…` if long; empty for a slot, whose value did not fit at all).
        id: ErrorText,
    },
    /// 1.0: an id whose owner (or opener's field) differs from what the
    /// event says.
    Mismatch {
        /// The id (message, tool call, step, reasoning, activity), cut
        /// with `…` past [`SHORT_TEXT`] bytes (an error stays small).
        id: ShortText,
        /// What the event says (its `subagentRunId`, role, name, ...;
        /// `(the parent agent)` for none).
        found: ShortText,
        /// What was recorded (the opener's owner or field).
        recorded: ShortText,
    },
    /// The protobuf encoding: a frame that is not a well-formed event
    /// (SPEC "The protobuf transport").
    Proto {
        /// What is wrong.
        fault: ProtoFault,
        /// Byte offset inside the frame's message (after its length).
        offset: u64,
    },
    /// Nothing more to say than the code.
    None,
}

/// What is wrong with a protobuf frame ([`Detail::Proto`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ProtoFault {
    /// The stream or a field ends inside a value.
    Truncated,
    /// A varint longer than 10 bytes or past 64 bits.
    Varint,
    /// A field number 0, a wire type 6 or 7, or a wire type the field's
    /// schema does not allow.
    WireType,
    /// A group (wire types 3 and 4): not part of this schema, not read.
    Group,
    /// A length past the end of the enclosing message.
    Length,
    /// The envelope carries no event this schema knows.
    NoEvent,
    /// The envelope carries more than one event.
    TwoEvents,
    /// `BaseEvent.type` differs from the envelope's event.
    TypeMismatch,
    /// An event without its `BaseEvent`.
    NoBase,
    /// A singular field (or a oneof) twice in one message.
    Duplicate,
    /// A repeated field interrupted by another field.
    Split,
    /// A `google.protobuf.Value` (or map entry) with no value.
    EmptyValue,
    /// A content part or source with none of its kinds.
    EmptyUnion,
    /// A map entry's key after its value.
    EntryOrder,
    /// An integer beyond 2^53 (JavaScript cannot hold it exactly).
    Unsafe,
    /// A message with more than one content form.
    TwoContents,
    /// Content parts or an activity map for a role that has none.
    ContentForRole,
    /// An outcome's parts (`interrupts`, `pendingToolCallIds`,
    /// `interruptIds`) not right after the outcome.
    OutcomeOrder,
    /// More messages nested than the reader's `NEST`.
    TooDeep,
}

impl fmt::Display for ProtoFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProtoFault::Truncated => "the data ends inside a value",
            ProtoFault::Varint => "a varint is longer than 64 bits",
            ProtoFault::WireType => {
                "a field has a number 0 or a wire type its schema does not allow"
            }
            ProtoFault::Group => "groups (wire types 3 and 4) are not part of the schema",
            ProtoFault::Length => "a length runs past the end of its message",
            ProtoFault::NoEvent => "the envelope carries no known event",
            ProtoFault::TwoEvents => "the envelope carries more than one event",
            ProtoFault::TypeMismatch => "the base event's type differs from the envelope's event",
            ProtoFault::NoBase => "the event has no base event",
            ProtoFault::Duplicate => "a singular field or a oneof appears twice",
            ProtoFault::Split => "a repeated field is split by another field",
            ProtoFault::EmptyValue => "a google.protobuf.Value (or map entry) has no value",
            ProtoFault::EmptyUnion => "a content part or source has none of its kinds",
            ProtoFault::EntryOrder => "a map entry's key comes after its value",
            ProtoFault::Unsafe => "an integer is beyond 2^53",
            ProtoFault::TwoContents => "a message has more than one content form",
            ProtoFault::ContentForRole => {
                "content parts or an activity map for a role that has none"
            }
            ProtoFault::OutcomeOrder => {
                "an outcome's interrupts or pending tool calls are not right after it"
            }
            ProtoFault::TooDeep => "messages nest deeper than the reader's NEST; raise it",
        })
    }
}

/// An error of any stage, for one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Error {
    /// Index of the frame that failed (frames count from 0).
    pub frame: u32,
    /// The stage that rejected it.
    pub stage: Stage,
    /// The stable code.
    pub code: Code,
    /// The event type concerned, when known.
    pub event: Option<EventType>,
    /// The specifics.
    pub detail: Detail,
}

impl Error {
    /// An error with no frame index yet (the pipeline fills it in).
    pub(crate) const fn new(
        stage: Stage,
        code: Code,
        event: Option<EventType>,
        detail: Detail,
    ) -> Self {
        Error {
            frame: 0,
            stage,
            code,
            event,
            detail,
        }
    }

    /// A decode-stage error for a JSON fault.
    pub(crate) fn json(err: JsonError) -> Self {
        Error::new(
            Stage::Decode,
            Code::Decode,
            None,
            Detail::Json {
                kind: err.kind,
                offset: err.offset,
            },
        )
    }

    /// The same error, placed at frame `frame`.
    pub(crate) fn at(mut self, frame: u32) -> Self {
        self.frame = frame;
        self
    }

    /// The offending id or name, for rules about one item and for a full
    /// table (the id that did not fit): a copy for the message, cut with
    /// `…` past [`ERROR_TEXT`] bytes when `ID` is larger.
    pub fn id(&self) -> Option<&str> {
        match &self.detail {
            Detail::Id(id) => Some(id.as_str()),
            Detail::Mismatch { id, .. } => Some(id.as_str()),
            Detail::Capacity { id, .. } if !id.is_empty() => Some(id.as_str()),
            Detail::Json { .. }
            | Detail::NotAnObject(_)
            | Detail::MissingType
            | Detail::UnknownType(_)
            | Detail::Missing(_)
            | Detail::WrongType { .. }
            | Detail::BadValue { .. }
            | Detail::Nested { .. }
            | Detail::Invalid { .. }
            | Detail::Open { .. }
            | Detail::Capacity { .. }
            | Detail::Proto { .. }
            | Detail::None => None,
        }
    }
}

/// Copies `text` into an [`ErrorText`], cutting it at a char boundary with
/// `…` if it does not fit (error messages only; data is never cut).
pub(crate) fn error_text(text: &str) -> ErrorText {
    cut_text(text)
}

/// [`error_text`] for any length of text.
pub(crate) fn cut_text<const N: usize>(text: &str) -> ErrorText<N> {
    let mut out = ErrorText::new();
    if out.push_str(text).is_ok() {
        return out;
    }
    for c in text.chars() {
        if out.len().saturating_add(c.len_utf8()).saturating_add(3) > N {
            break;
        }
        let _ = out.push(c);
    }
    let _ = out.push('…');
    out
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "frame {}: {} error [{}]: {}",
            self.frame,
            self.stage.as_str(),
            self.code.as_str(),
            self.message()
        )
    }
}

/// The part of an [`Error`]'s text that says what was wrong, without the
/// `frame N: stage error [code]: ` prefix: see [`Error::message`].
#[derive(Debug, Clone, Copy)]
pub struct Explanation<'a>(&'a Error);

impl fmt::Display for Explanation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.0;
        let ty = e.event.map_or("event", EventType::as_str);
        match e.stage {
            Stage::Decode => e.fmt_decode(f, ty),
            Stage::Transform => e.fmt_transform(f, ty),
            Stage::Verify => e.fmt_verify(f, ty),
        }
    }
}

impl Error {
    /// What was wrong, for a person: the error's text without its
    /// `frame N: stage error [code]: ` prefix (a layer that adds its own
    /// frame and code, such as the alloc client, shows this).
    ///
    /// ```
    /// use agui_core::pipeline::DefaultPipeline;
    ///
    /// let mut p = DefaultPipeline::new();
    /// let err = p.feed(b"{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n", |_| {}).unwrap_err();
    /// let text = err.to_string();
    /// assert_eq!(text, format!("frame 0: verify error [first_event]: {}", err.message()));
    /// ```
    pub fn message(&self) -> Explanation<'_> {
        Explanation(self)
    }
}

impl Error {
    fn fmt_decode(&self, f: &mut fmt::Formatter<'_>, ty: &str) -> fmt::Result {
        match &self.detail {
            Detail::Json { kind, offset } => {
                write!(f, "invalid JSON at byte {offset} of the frame: {kind}")
            }
            Detail::Proto { fault, offset } => {
                write!(f, "invalid protobuf at byte {offset} of the frame: {fault}")
            }
            Detail::NotAnObject(kind) => {
                write!(f, "an event must be a JSON object, found {}", kind.as_str())
            }
            Detail::MissingType => f.write_str("the event has no string `type` field"),
            Detail::UnknownType(t) => write!(f, "unknown event type '{t}'"),
            Detail::Missing(field) => {
                write!(f, "{ty}: required field `{}` is missing", field.as_str())
            }
            Detail::WrongType {
                field,
                expected,
                found,
            } => write!(
                f,
                "{ty}: field `{}` must be {expected}, found {}",
                field.as_str(),
                found.as_str()
            ),
            Detail::BadValue {
                field,
                expected,
                found,
            } => {
                write!(
                    f,
                    "{ty}: field `{}` must be {expected}, found \"{found}\"",
                    field.as_str()
                )
            }
            Detail::Nested { field, what } => write!(f, "{ty}: field `{}`: {what}", field.as_str()),
            Detail::Invalid { path, what, .. } => write!(f, "{ty}: `{path}`: {what}"),
            Detail::Capacity {
                table,
                limit,
                field,
                ..
            } => {
                let name = field.map_or("a value", Field::as_str);
                write!(
                    f,
                    "{ty}: `{name}` is longer than the {limit}-byte {}; raise the ID capacity",
                    table.as_str()
                )
            }
            Detail::Id(_) | Detail::Open { .. } | Detail::Mismatch { .. } | Detail::None => {
                f.write_str("invalid event")
            }
        }
    }

    fn fmt_transform(&self, f: &mut fmt::Formatter<'_>, ty: &str) -> fmt::Result {
        match self.code {
            Code::ChunkMissingName => {
                write!(f, "the first {ty} of a tool call must have a toolCallName")
            }
            Code::ChunkOwnerMismatch => {
                let (id, found, recorded) = self.mismatch();
                write!(f, "cannot continue '{id}' with {ty}: the chunk's subagentRunId '{found}' does not match the open item's sub-agent '{recorded}'; send the chunk with the same subagentRunId or end the item first")
            }
            Code::ChunkFieldMismatch => {
                let (id, found, recorded) = self.mismatch();
                write!(f, "cannot continue '{id}' with {ty}: the chunk says {found} but the item was opened with {recorded}; repeat the opener's value or leave the field out")
            }
            Code::ChunkAmbiguous => write!(f, "{ty} carries neither an id nor a subagentRunId, but several sub-agent lanes have an item of its kind open; attribute the chunk with its id or subagentRunId"),
            Code::Decode
            | Code::ChunkMissingId
            | Code::FirstEvent
            | Code::RunErrored
            | Code::RunFinished
            | Code::RunActive
            | Code::MessageActive
            | Code::MessageNotActive
            | Code::ToolCallActive
            | Code::ToolCallNotActive
            | Code::StepActive
            | Code::StepNotActive
            | Code::UnclosedSteps
            | Code::UnclosedMessages
            | Code::UnclosedToolCalls
            | Code::ThinkingActive
            | Code::ThinkingNotActive
            | Code::ThinkingMessageActive
            | Code::ThinkingMessageNotActive
            | Code::OwnerMismatch
            | Code::ToolParentOwnerMismatch
            | Code::StepOwnerMismatch
            | Code::ReasoningSpanActive
            | Code::ReasoningSpanNotActive
            | Code::ReasoningMessageActive
            | Code::ReasoningMessageNotActive
            | Code::UnclosedReasoningMessages
            | Code::UnclosedReasoningSpans
            | Code::UnclosedSubagents
            | Code::SubagentActive
            | Code::SubagentReused
            | Code::SubagentParentUnknown
            | Code::SubagentNotActive
            | Code::Capacity => {
                let field = if ty == "TOOL_CALL_CHUNK" {
                    "toolCallId"
                } else {
                    "messageId"
                };
                write!(f, "the first {ty} of an item must have a {field}")
            }
        }
    }

    fn fmt_verify(&self, f: &mut fmt::Formatter<'_>, ty: &str) -> fmt::Result {
        let id = self.id().unwrap_or("");
        match self.code {
            Code::FirstEvent => write!(f, "the first event must be 'RUN_STARTED' (or 'RUN_ERROR'), not '{ty}'"),
            Code::RunErrored => write!(f, "cannot send '{ty}': the run has already errored with 'RUN_ERROR'; only a new 'RUN_STARTED' may follow"),
            Code::RunFinished => write!(f, "cannot send '{ty}': the run has already finished with 'RUN_FINISHED'; start a new run with 'RUN_STARTED'"),
            Code::RunActive => f.write_str("cannot send 'RUN_STARTED' while a run is still active; finish it with 'RUN_FINISHED' first"),
            Code::MessageActive => write!(f, "cannot send '{ty}': a text message with id '{id}' is already in progress; complete it with 'TEXT_MESSAGE_END' first"),
            Code::MessageNotActive => write!(f, "cannot send '{ty}': no active text message with id '{id}'; start it with 'TEXT_MESSAGE_START' first"),
            Code::ToolCallActive => write!(f, "cannot send '{ty}': a tool call with id '{id}' is already in progress; complete it with 'TOOL_CALL_END' first"),
            Code::ToolCallNotActive => write!(f, "cannot send '{ty}': no active tool call with id '{id}'; start it with 'TOOL_CALL_START' first"),
            Code::StepActive => write!(f, "step \"{id}\" is already active for '{ty}'"),
            Code::StepNotActive => write!(f, "cannot send '{ty}' for step \"{id}\" that was not started"),
            Code::UnclosedSteps => self.fmt_open(f, "steps"),
            Code::UnclosedMessages => self.fmt_open(f, "text messages"),
            Code::UnclosedToolCalls => self.fmt_open(f, "tool calls"),
            Code::ThinkingActive => write!(f, "cannot send '{ty}': a thinking step is already in progress; end it with 'THINKING_END' first"),
            Code::ThinkingNotActive => write!(f, "cannot send '{ty}': no thinking step is in progress; send 'THINKING_START' first"),
            Code::ThinkingMessageActive => write!(f, "cannot send '{ty}': a thinking message is already in progress; complete it with 'THINKING_TEXT_MESSAGE_END' first"),
            Code::ThinkingMessageNotActive => write!(f, "cannot send '{ty}': no active thinking message; start one with 'THINKING_TEXT_MESSAGE_START' first"),
            Code::OwnerMismatch => {
                let (id, found, recorded) = self.mismatch();
                write!(f, "cannot send '{ty}': subagentRunId '{found}' does not match the sub-agent '{recorded}' that opened '{id}'; send it with the opener's subagentRunId (or none)")
            }
            Code::ToolParentOwnerMismatch => {
                let (id, found, recorded) = self.mismatch();
                write!(f, "cannot send '{ty}' for tool call '{id}': its owner '{found}' does not match its parent message's owner '{recorded}'; a tool call belongs to the sub-agent of its parent message")
            }
            Code::StepOwnerMismatch => {
                let (id, found, recorded) = self.mismatch();
                write!(f, "cannot send '{ty}' for step \"{id}\" attributed to '{found}': that step is open under '{recorded}'; a step must be finished by whoever started it")
            }
            Code::ReasoningSpanActive => write!(f, "cannot send '{ty}': a reasoning span with id '{id}' is already in progress; end it with 'REASONING_END' first"),
            Code::ReasoningSpanNotActive => write!(f, "cannot send '{ty}': no active reasoning span with id '{id}'; start it with 'REASONING_START' first"),
            Code::ReasoningMessageActive => write!(f, "cannot send '{ty}': a reasoning message with id '{id}' is already in progress; complete it with 'REASONING_MESSAGE_END' first"),
            Code::ReasoningMessageNotActive => write!(f, "cannot send '{ty}': no active reasoning message with id '{id}'; start it with 'REASONING_MESSAGE_START' first"),
            Code::UnclosedReasoningMessages => self.fmt_open(f, "reasoning messages"),
            Code::UnclosedReasoningSpans => self.fmt_open(f, "reasoning spans"),
            Code::UnclosedSubagents => self.fmt_open(f, "sub-agents"),
            Code::SubagentActive => write!(f, "cannot send '{ty}': sub-agent '{id}' is already active; finish it with 'SUBAGENT_FINISHED' or 'SUBAGENT_ERROR' first"),
            Code::SubagentReused => write!(f, "cannot send '{ty}': sub-agent '{id}' has already finished in this run; a subagentRunId names one invocation, use a new one"),
            Code::SubagentParentUnknown => write!(f, "cannot send '{ty}': parentSubagentRunId '{id}' has not been started in this run; start the parent with 'SUBAGENT_STARTED' first"),
            Code::SubagentNotActive => write!(f, "cannot send '{ty}': no active sub-agent with id '{id}'; start it with 'SUBAGENT_STARTED' first"),
            Code::Capacity => match &self.detail {
                Detail::Capacity { table, limit, .. } => write!(
                    f,
                    "cannot send '{ty}' for '{id}': all {limit} {} are in use; raise the capacity or close some first",
                    table.as_str()
                ),
                Detail::Json { .. }
                | Detail::NotAnObject(_)
                | Detail::MissingType
                | Detail::UnknownType(_)
                | Detail::Missing(_)
                | Detail::WrongType { .. }
                | Detail::BadValue { .. }
                | Detail::Nested { .. }
            | Detail::Invalid { .. }
                | Detail::Id(_)
                | Detail::Open { .. }
                | Detail::Mismatch { .. }
                | Detail::Proto { .. }
                | Detail::None => write!(f, "cannot send '{ty}': capacity exceeded"),
            },
            // Not verify-stage codes: an error built by hand.
            Code::Decode
            | Code::ChunkMissingId
            | Code::ChunkMissingName
            | Code::ChunkOwnerMismatch
            | Code::ChunkFieldMismatch
            | Code::ChunkAmbiguous => {
                write!(f, "'{ty}' breaks the protocol's ordering rules")
            }
        }
    }

    /// The three texts of a [`Detail::Mismatch`] (empty for another detail).
    fn mismatch(&self) -> (&str, &str, &str) {
        match &self.detail {
            Detail::Mismatch {
                id,
                found,
                recorded,
            } => (id, found, recorded),
            Detail::Json { .. }
            | Detail::NotAnObject(_)
            | Detail::MissingType
            | Detail::UnknownType(_)
            | Detail::Missing(_)
            | Detail::WrongType { .. }
            | Detail::BadValue { .. }
            | Detail::Nested { .. }
            | Detail::Invalid { .. }
            | Detail::Id(_)
            | Detail::Open { .. }
            | Detail::Capacity { .. }
            | Detail::Proto { .. }
            | Detail::None => ("", "", ""),
        }
    }

    fn fmt_open(&self, f: &mut fmt::Formatter<'_>, what: &str) -> fmt::Result {
        match &self.detail {
            Detail::Open { list, count } => {
                write!(
                    f,
                    "cannot send 'RUN_FINISHED' while {count} {what} are still active: {list}"
                )
            }
            Detail::Json { .. }
            | Detail::NotAnObject(_)
            | Detail::MissingType
            | Detail::UnknownType(_)
            | Detail::Missing(_)
            | Detail::WrongType { .. }
            | Detail::BadValue { .. }
            | Detail::Nested { .. }
            | Detail::Invalid { .. }
            | Detail::Id(_)
            | Detail::Capacity { .. }
            | Detail::Mismatch { .. }
            | Detail::Proto { .. }
            | Detail::None => write!(
                f,
                "cannot send 'RUN_FINISHED' while {what} are still active"
            ),
        }
    }
}

// `core::error::Error` (Rust 1.81, below our MSRV): error reporting works
// the same with and without `std`.
impl core::error::Error for Error {}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid JSON at byte {}: {}", self.offset, self.kind)
    }
}

impl core::error::Error for JsonError {}

impl fmt::Display for JsonErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonErrorKind::UnexpectedByte(b) if b.is_ascii_graphic() => {
                write!(f, "unexpected '{}'", char::from(*b))
            }
            JsonErrorKind::UnexpectedByte(b) => write!(f, "unexpected byte 0x{b:02x}"),
            JsonErrorKind::UnexpectedEnd => {
                f.write_str("the text ended inside a value (or held no value)")
            }
            JsonErrorKind::InvalidUtf8 => f.write_str("invalid UTF-8"),
            JsonErrorKind::ControlCharacter => {
                f.write_str("a control character inside a string must be escaped")
            }
            JsonErrorKind::InvalidEscape => f.write_str("invalid escape sequence"),
            JsonErrorKind::InvalidNumber => f.write_str("malformed number"),
            JsonErrorKind::TooDeep => f.write_str("nested deeper than the tokenizer's depth limit"),
            JsonErrorKind::TrailingData => f.write_str("more data after the end of the JSON value"),
        }
    }
}
