//! The event table's column types: what the rows of
//! `event_types!` (in [`event`](crate::event)) name, one enum per column
//! (fields and their schemas, chunking, ordering rules, protocols).
//!
//! A leaf: it imports nothing from the pipeline's stages, so that the
//! table, the errors and every stage import from it and not from each
//! other (the module graph runs spec, event, error, decode, chunk,
//! verify, pipeline, with no loop). The stages re-export
//! the types where they are used ([`crate::decode::Field`],
//! [`crate::chunk::Chunking`], [`crate::verify::Rule`], ...) and keep the
//! behaviour that needs them (schema checks, chunk expansion, the rules).

use core::fmt;

// ---- fields and schemas (the `id`, `name`, `fields` and `v1` columns) ----

macro_rules! fields {
    ($($(#[$doc:meta])* $variant:ident = $wire:literal,)*) => {
        /// A top-level field of an event that the schema knows.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        pub enum Field {
            $($(#[$doc])* $variant,)*
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
                Self::from_wire_bytes(name.as_bytes())
            }

            /// Looks up a wire name given as bytes (a key as the
            /// tokenizer's fast path hands it out, not yet a `str`).
            // Always inlined: every key of every frame comes here.
            #[inline(always)]
            pub(crate) fn from_wire_bytes(name: &[u8]) -> Option<Field> {
                // The keys of nearly every streamed event first: four
                // compares of a word or two, cheaper than the hash (a fast
                // path: 470 bytes of a Cortex-M image).
                if !crate::FAST {
                    return Self::from_wire_any(name);
                }
                match name {
                    b"type" => Some(Field::Type),
                    b"messageId" => Some(Field::MessageId),
                    b"delta" => Some(Field::Delta),
                    b"toolCallId" => Some(Field::ToolCallId),
                    _ => Self::from_wire_any(name),
                }
            }

            /// [`from_wire_bytes`](Self::from_wire_bytes) for any name.
            fn from_wire_any(name: &[u8]) -> Option<Field> {
                let i = FIELD_INDEX.find(FIELD_NAMES, name)?;
                Field::ALL.get(i).copied()
            }
        }

        /// The wire names, in the order of [`Field::ALL`].
        pub(crate) const FIELD_NAMES: &[&str] = &[$($wire,)*];

        /// Their perfect hash, found at compile time.
        static FIELD_INDEX: crate::names::NameIndex<128> =
            crate::names::NameIndex::new(FIELD_NAMES);
    };
}

fields! {
    /// `type`: the event type's wire name (every event).
    Type = "type",
    /// `timestamp`: when the event was made (any event, optional).
    Timestamp = "timestamp",
    /// `rawEvent`: the event as another system sent it (any event, optional).
    RawEvent = "rawEvent",
    /// `metadata`: free-form object (any event, optional).
    Metadata = "metadata",
    /// `threadId`: the conversation thread (RUN_STARTED, RUN_FINISHED).
    ThreadId = "threadId",
    /// `runId`: the run (RUN_STARTED, RUN_FINISHED).
    RunId = "runId",
    /// `parentRunId`: the run this one branches from (RUN_STARTED).
    ParentRunId = "parentRunId",
    /// `input`: the run's input (RUN_STARTED).
    Input = "input",
    /// `result`: the run's result value (RUN_FINISHED).
    Result = "result",
    /// `outcome`: success, or the interrupts the run paused on (RUN_FINISHED).
    Outcome = "outcome",
    /// `usage`: token-usage records (RUN_FINISHED, RUN_ERROR).
    Usage = "usage",
    /// `message`: the error text (RUN_ERROR).
    Message = "message",
    /// `code`: the error code (RUN_ERROR).
    Code = "code",
    /// `stepName`: a step's name, its id for the rules (STEP_*).
    StepName = "stepName",
    /// `messageId`: a message's id (text, reasoning, activity and tool-result events).
    MessageId = "messageId",
    /// `role`: who speaks (TEXT_MESSAGE_START / _CHUNK, TOOL_CALL_RESULT, REASONING_MESSAGE_START).
    Role = "role",
    /// `name`: a speaker's name, or a CUSTOM event's name.
    Name = "name",
    /// `delta`: a piece of text or arguments, or STATE_DELTA's JSON Patch.
    Delta = "delta",
    /// `toolCallId`: a tool call's id (TOOL_CALL_*).
    ToolCallId = "toolCallId",
    /// `toolCallName`: the tool called (TOOL_CALL_START / _CHUNK).
    ToolCallName = "toolCallName",
    /// `parentMessageId`: the message a tool call belongs to.
    ParentMessageId = "parentMessageId",
    /// `content`: a tool result's text, or an activity's content object.
    Content = "content",
    /// `title`: a thinking step's title (THINKING_START).
    Title = "title",
    /// `subtype`: what an encrypted value is for: `tool-call` or `message`.
    Subtype = "subtype",
    /// `entityId`: the tool call or message an encrypted value is for.
    EntityId = "entityId",
    /// `encryptedValue`: the encrypted reasoning (REASONING_ENCRYPTED_VALUE).
    EncryptedValue = "encryptedValue",
    /// `snapshot`: the whole shared state (STATE_SNAPSHOT).
    Snapshot = "snapshot",
    /// `messages`: the whole message list (MESSAGES_SNAPSHOT).
    Messages = "messages",
    /// `activityType`: the kind of activity (ACTIVITY_*).
    ActivityType = "activityType",
    /// `replace`: whether an activity snapshot replaces an existing one.
    Replace = "replace",
    /// `patch`: a JSON Patch to an activity's content (ACTIVITY_DELTA).
    Patch = "patch",
    /// `event`: the passed-through event (RAW).
    Event = "event",
    /// `source`: where a RAW event came from.
    Source = "source",
    /// `value`: a CUSTOM event's value.
    Value = "value",
    /// 1.0 `protocolVersion`: the version the producer speaks (RUN_STARTED).
    ProtocolVersion = "protocolVersion",
    /// 1.0 `subagentRunId`: the sub-agent invocation that produced the
    /// event (absent: the parent agent), or the one a SUBAGENT_* event is about.
    SubagentRunId = "subagentRunId",
    /// 1.0 `description`: what a sub-agent does (SUBAGENT_STARTED).
    Description = "description",
    /// 1.0 `parentSubagentRunId`: the sub-agent that started this one.
    ParentSubagentRunId = "parentSubagentRunId",
    /// 1.0 `parentToolCallId`: the tool call that started a sub-agent.
    ParentToolCallId = "parentToolCallId",
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
}

/// What a field's value must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Expect {
    /// A string.
    Str,
    /// A string, or `null` meaning absent.
    StrOrNull,
    /// A number.
    Num,
    /// `true` or `false`.
    Bool,
    /// An object.
    Obj,
    /// An array.
    Arr,
    /// Anything, `null` included.
    Any,
    /// One of the strings of `values`.
    OneOf {
        /// The allowed strings.
        values: &'static [&'static str],
    },
    /// The strict RUN_FINISHED outcome object, or `null` meaning absent.
    Outcome,
    /// An array of token-usage records.
    Usage,
    /// 1.0: any JSON value, `null` included, that must be there when
    /// required (unlike [`Any`](Expect::Any), which a required field may lack).
    Json,
    /// 1.0 `timestamp`: an integer in [-(2^53-1), 2^53-1] as JavaScript
    /// reads the literal.
    Int,
    /// 1.0 TOOL_CALL_RESULT `content`: a string or an array of content parts.
    Parts,
    /// 1.0: a JSON Patch, each operation checked when decoded.
    Patch,
    /// 1.0 `RUN_STARTED.input`: a RunAgentInput object.
    Input,
    /// 1.0 RUN_FINISHED outcome: success (with `pendingToolCallIds`),
    /// interrupt or cancelled; an unknown one is stripped.
    OutcomeV1,
    /// 1.0 token-usage records (counts bounded by 2^53-1).
    UsageV1,
    /// 1.0 SUBAGENT_FINISHED outcome: success or suspended.
    SubagentOutcome,
}

/// How a message names what the schema wants ("a string", "one of ...").
///
/// Written when shown, not stored: an image that never shows an error's
/// text (the serial firmware) carries none of it.
impl fmt::Display for Expect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Expect::Str | Expect::StrOrNull => "a string",
            Expect::Num => "a number",
            Expect::Bool => "a boolean",
            Expect::Obj | Expect::Outcome | Expect::OutcomeV1 | Expect::SubagentOutcome => {
                "an object"
            }
            Expect::Input => "an object",
            Expect::Arr | Expect::Usage | Expect::UsageV1 | Expect::Patch => "an array",
            Expect::Any | Expect::Json => "any value",
            Expect::Int => "an integer",
            Expect::Parts => "a string or an array of content parts",
            Expect::OneOf { values } => return one_of(f, values),
        };
        f.write_str(name)
    }
}

/// `"a"`, `"a" or "b"`, or `one of "a", "b", "c"`.
fn one_of(f: &mut fmt::Formatter<'_>, values: &[&str]) -> fmt::Result {
    match values {
        [one] => write!(f, "\"{one}\""),
        [a, b] => write!(f, "\"{a}\" or \"{b}\""),
        _ => {
            f.write_str("one of ")?;
            for (i, v) in values.iter().enumerate() {
                let sep = if i == 0 { "" } else { ", " };
                write!(f, "{sep}\"{v}\"")?;
            }
            Ok(())
        }
    }
}

/// Whether an event must carry a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// The field must be present (`null` counts as present only for
    /// [`Expect::Any`] and the `*OrNull` kinds).
    Req,
    /// The field may be absent.
    Opt,
}

/// An event type's fields: name, need, and what the value must be.
pub type Schema = &'static [(Field, Need, Expect)];

// ---- the `chunk` column ----

/// The kind of the open chunked item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Item {
    /// A text message (`TEXT_MESSAGE_CHUNK`).
    Text,
    /// A tool call (`TOOL_CALL_CHUNK`).
    ToolCall,
    /// A reasoning message (`REASONING_MESSAGE_CHUNK`).
    Reasoning,
}

/// What an event does to the open chunked item: its column of the event
/// table ([`EventType::chunking`](crate::event::EventType::chunking)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Chunking {
    /// Closes the open item first (most events; in 1.0 the open item of
    /// the event's own lane).
    Ends,
    /// Closes the open item first, in 1.0 every lane's (the run-level
    /// events and `MESSAGES_SNAPSHOT`, which carry no `subagentRunId`).
    EndsAll,
    /// Passes through and keeps the item open (`RAW`, `ACTIVITY_*`,
    /// `REASONING_ENCRYPTED_VALUE`).
    Keeps,
    /// A `*_CHUNK` shorthand for an item of this kind.
    Expands(Item),
}

// ---- the `verify` column ----

/// One of the verifier's three id tables: what it tracks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Tracked {
    /// Open text messages (`messageId`).
    Messages,
    /// Open tool calls (`toolCallId`).
    ToolCalls,
    /// Open steps (`stepName`).
    Steps,
}

/// What an event does to its id in one of the verifier's tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TableOp {
    /// Adds the id; it must not be open (a START).
    Opens,
    /// The id must be open (a CONTENT / ARGS).
    NeedsOpen,
    /// Removes the id; it must be open (an END).
    Closes,
}

/// The ordering rule of an event type: its column of the event table
/// ([`EventType::rule`](crate::event::EventType::rule)). Every event also obeys the run's life cycle
/// (rules 1 to 3 of the [verifier's docs](crate::verify)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Rule {
    /// Nothing beyond the run's life cycle.
    Free,
    /// An id table edit.
    Table(TableOp, Tracked),
    /// `RUN_STARTED`: a run begins.
    RunStart,
    /// `RUN_FINISHED`: nothing may be open.
    RunFinish,
    /// `RUN_ERROR`: the run ends in error.
    RunError,
    /// A thinking step begins.
    ThinkingStart,
    /// A thinking step ends.
    ThinkingEnd,
    /// A thinking message begins, inside a thinking step.
    ThinkingMessageStart,
    /// A thinking message's content: the message must be open.
    ThinkingMessageContent,
    /// A thinking message ends.
    ThinkingMessageEnd,
}

// ---- the `in` column's protocols ----

/// A protocol the pipeline can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Protocol {
    /// The protocol as of August 2026 (SPEC sections 0-8): the default.
    #[default]
    Current,
    /// AG-UI 1.0 (SPEC section 9): the compatibility boundary, forward
    /// compatibility (unknown types dropped, unknown keys stripped),
    /// sub-agents, chunk lanes and owner tables.
    V1,
}

impl Protocol {
    /// A name for output (`"current"`, `"1.0"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Protocol::Current => "current",
            Protocol::V1 => "1.0",
        }
    }
}
