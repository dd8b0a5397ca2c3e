//! The AG-UI event types and the decoded event the rest of the pipeline sees.

use crate::spec::{Chunking, Expect, Field, Item, Need, Protocol, Rule, Schema, TableOp, Tracked};

/// `None`, or `Some(Field::$f)`: an optional field column of the table.
macro_rules! field_opt {
    () => {
        None
    };
    ($f:ident) => {
        Some(Field::$f)
    };
}

/// The 1.0 schema column: `same` repeats the row's `fields`.
macro_rules! v1_schema {
    (same, [$($field:ident: $need:ident $expect:expr),*]) => {
        &[$((Field::$field, Need::$need, $expect),)*]
    };
    ([$($field:ident: $need:ident $expect:expr),* $(,)?], [$($_f:ident: $_n:ident $_e:expr),*]) => {
        &[$((Field::$field, Need::$need, $expect),)*]
    };
}

/// The event table: one row per event type states everything the core
/// decides per type (see ARCHITECTURE.md). Each column becomes one
/// exhaustive `match`, so a new row must fill every column.
macro_rules! event_types {
    ($(
        $(#[$doc:meta])*
        $variant:ident = $wire:literal {
            id: [$($id:ident)?] $(name: [$name:ident])?,
            chunk: $chunk:expr,
            verify: $verify:expr,
            in: $era:ident,
            fields: [$($field:ident: $need:ident $expect:expr),* $(,)?],
            v1: $v1:tt $(,)?
        }
    )*) => {
        /// The `type` of an AG-UI event, as named on the wire.
        ///
        /// Deliberately exhaustive (not `#[non_exhaustive]`): every layer
        /// that decides per event type (the alloc layer's event model and
        /// reducer) matches it without a wildcard, so a new type is a
        /// compile error wherever it needs a decision. A new type is a
        /// breaking change anyway.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        pub enum EventType {
            $($(#[$doc])* $variant,)*
        }

        impl EventType {
            /// Every event type, in the order of the specification's table.
            pub const ALL: &'static [EventType] = &[$(EventType::$variant,)*];

            /// The wire name, e.g. `"TEXT_MESSAGE_START"`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(EventType::$variant => $wire,)*
                }
            }

            /// Looks up a wire name; `None` for an unknown type.
            ///
            /// ```
            /// use agui_core::event::EventType;
            /// assert_eq!(EventType::from_wire("RUN_STARTED"), Some(EventType::RunStarted));
            /// assert_eq!(EventType::from_wire("run_started"), None);
            /// ```
            pub fn from_wire(name: &str) -> Option<EventType> {
                let i = TYPE_INDEX.find(TYPE_NAMES, name.as_bytes())?;
                EventType::ALL.get(i).copied()
            }

            /// The field holding the id the ordering rules and chunk
            /// expansion read (`messageId`, `toolCallId`, `stepName`), if any.
            pub const fn id_field(self) -> Option<Field> {
                match self {
                    $(EventType::$variant => field_opt!($($id)?),)*
                }
            }

            /// The field holding a name the pipeline hands on with the
            /// event (`toolCallName`), if any.
            pub const fn name_field(self) -> Option<Field> {
                match self {
                    $(EventType::$variant => field_opt!($($name)?),)*
                }
            }

            /// What the event does to an open chunked item (SPEC section 3).
            pub const fn chunking(self) -> Chunking {
                match self {
                    $(EventType::$variant => $chunk,)*
                }
            }

            /// The ordering rule the verifier applies to the event.
            pub const fn rule(self) -> Rule {
                match self {
                    $(EventType::$variant => $verify,)*
                }
            }

            /// The event's own fields (SPEC section 2); every event may
            /// also carry `timestamp`, `rawEvent` and `metadata`.
            pub const fn schema(self) -> Schema {
                match self {
                    $(EventType::$variant => &[$((Field::$field, Need::$need, $expect),)*],)*
                }
            }

            /// The event's own fields in AG-UI 1.0 (SPEC section 9.5): the
            /// row's `v1` column, or its `fields` where it says `same`.
            /// Every event may also carry `timestamp`, `rawEvent`,
            /// `metadata` and, if [`tagged`](Self::tagged), `subagentRunId`.
            pub const fn schema_v1(self) -> Schema {
                match self {
                    $(EventType::$variant => v1_schema!($v1, [$($field: $need $expect),*]),)*
                }
            }

            /// Which protocols have the event type (SPEC section 9.5).
            pub const fn era(self) -> Era {
                match self {
                    $(EventType::$variant => Era::$era,)*
                }
            }
        }

        /// The wire names, in the order of [`EventType::ALL`].
        pub(crate) const TYPE_NAMES: &[&str] = &[$($wire,)*];

        /// Their perfect hash, found at compile time.
        static TYPE_INDEX: crate::names::NameIndex<128> =
            crate::names::NameIndex::new(TYPE_NAMES);
    };
}

// The rows' short names: a chunk column, a verify column, a schema type.
use Chunking::{Ends, EndsAll, Expands, Keeps};
use Expect::{Any, Arr, Bool, Json, Obj, Str, StrOrNull};
use Item::{Reasoning, Text, ToolCall};
use Rule::{
    Free, RunError, RunFinish, RunStart, ThinkingEnd, ThinkingMessageContent, ThinkingMessageEnd,
    ThinkingMessageStart, ThinkingStart,
};
use TableOp::{Closes, NeedsOpen, Opens};
use Tracked::{Messages, Steps, ToolCalls};

const TEXT_ROLE: Expect = Expect::OneOf {
    values: &["developer", "system", "assistant", "user"],
};
const TOOL_ROLE: Expect = Expect::OneOf { values: &["tool"] };
const REASONING_ROLE: Expect = Expect::OneOf {
    values: &["reasoning"],
};
const SUBTYPE: Expect = Expect::OneOf {
    values: &["tool-call", "message"],
};

event_types! {
    /// A run begins.
    RunStarted = "RUN_STARTED" {
        id: [], chunk: EndsAll, verify: RunStart, in: Both,
        fields: [ThreadId: Req Str, RunId: Req Str, ParentRunId: Opt Str, Input: Opt Obj],
        v1: [
            ThreadId: Req Str, RunId: Req Str, ProtocolVersion: Opt Str,
            ParentRunId: Opt Str, Input: Opt Expect::Input,
        ],
    }
    /// A run ends normally.
    RunFinished = "RUN_FINISHED" {
        id: [], chunk: EndsAll, verify: RunFinish, in: Both,
        fields: [
            ThreadId: Req Str, RunId: Req Str, Result: Opt Any,
            Outcome: Opt Expect::Outcome, Usage: Opt Expect::Usage,
        ],
        v1: [
            ThreadId: Req Str, RunId: Req Str, Result: Opt Any,
            Outcome: Opt Expect::OutcomeV1, Usage: Opt Expect::UsageV1,
        ],
    }
    /// A run ends with an error.
    RunError = "RUN_ERROR" {
        id: [], chunk: EndsAll, verify: RunError, in: Both,
        fields: [Message: Req Str, Code: Opt Str, Usage: Opt Expect::Usage],
        v1: [Message: Req Str, Code: Opt Str, Usage: Opt Expect::UsageV1],
    }
    /// A named step begins.
    StepStarted = "STEP_STARTED" {
        id: [StepName], chunk: Ends, verify: Rule::Table(Opens, Steps), in: Both,
        fields: [StepName: Req Str], v1: same,
    }
    /// A named step ends.
    StepFinished = "STEP_FINISHED" {
        id: [StepName], chunk: Ends, verify: Rule::Table(Closes, Steps), in: Both,
        fields: [StepName: Req Str], v1: same,
    }
    /// A text message begins.
    TextMessageStart = "TEXT_MESSAGE_START" {
        id: [MessageId], chunk: Ends, verify: Rule::Table(Opens, Messages), in: Both,
        fields: [MessageId: Req Str, Role: Opt TEXT_ROLE, Name: Opt Str], v1: same,
    }
    /// A piece of a text message.
    TextMessageContent = "TEXT_MESSAGE_CONTENT" {
        id: [MessageId], chunk: Ends, verify: Rule::Table(NeedsOpen, Messages), in: Both,
        fields: [MessageId: Req Str, Delta: Req Str], v1: same,
    }
    /// A text message ends.
    TextMessageEnd = "TEXT_MESSAGE_END" {
        id: [MessageId], chunk: Ends, verify: Rule::Table(Closes, Messages), in: Both,
        fields: [MessageId: Req Str], v1: same,
    }
    /// Shorthand for start/content/end of a text message.
    TextMessageChunk = "TEXT_MESSAGE_CHUNK" {
        id: [MessageId], chunk: Expands(Text), verify: Free, in: Both,
        fields: [MessageId: Opt Str, Delta: Opt Str, Name: Opt Str, Role: Opt TEXT_ROLE],
        // In the reference schema's order (agui-alloc reports issues in it).
        v1: [MessageId: Opt Str, Role: Opt TEXT_ROLE, Delta: Opt Str, Name: Opt Str],
    }
    /// A tool call begins.
    ToolCallStart = "TOOL_CALL_START" {
        id: [ToolCallId] name: [ToolCallName], chunk: Ends,
        verify: Rule::Table(Opens, ToolCalls), in: Both,
        fields: [ToolCallId: Req Str, ToolCallName: Req Str, ParentMessageId: Opt StrOrNull],
        // `null` was made absent by the compatibility boundary.
        v1: [ToolCallId: Req Str, ToolCallName: Req Str, ParentMessageId: Opt Str],
    }
    /// A piece of a tool call's JSON arguments.
    ToolCallArgs = "TOOL_CALL_ARGS" {
        id: [ToolCallId], chunk: Ends, verify: Rule::Table(NeedsOpen, ToolCalls), in: Both,
        fields: [ToolCallId: Req Str, Delta: Req Str], v1: same,
    }
    /// A tool call's arguments are complete.
    ToolCallEnd = "TOOL_CALL_END" {
        id: [ToolCallId], chunk: Ends, verify: Rule::Table(Closes, ToolCalls), in: Both,
        fields: [ToolCallId: Req Str], v1: same,
    }
    /// Shorthand for start/args/end of a tool call.
    ToolCallChunk = "TOOL_CALL_CHUNK" {
        id: [ToolCallId] name: [ToolCallName], chunk: Expands(ToolCall), verify: Free, in: Both,
        fields: [
            ToolCallId: Opt Str, ToolCallName: Opt Str, Delta: Opt Str,
            ParentMessageId: Opt StrOrNull,
        ],
        v1: [ToolCallId: Opt Str, ToolCallName: Opt Str, ParentMessageId: Opt Str, Delta: Opt Str],
    }
    /// The result of a tool call.
    ToolCallResult = "TOOL_CALL_RESULT" {
        id: [], chunk: Ends, verify: Free, in: Both,
        fields: [MessageId: Req Str, ToolCallId: Req Str, Content: Req Str, Role: Opt TOOL_ROLE],
        v1: [
            MessageId: Req Str, ToolCallId: Req Str, Content: Req Expect::Parts,
            Role: Opt TOOL_ROLE,
        ],
    }
    /// A thinking step begins (retired in 1.0: translated to REASONING_START).
    ThinkingStart = "THINKING_START" {
        id: [], chunk: Ends, verify: ThinkingStart, in: Current,
        fields: [Title: Opt Str], v1: same,
    }
    /// A thinking step ends (retired in 1.0: translated to REASONING_END).
    ThinkingEnd = "THINKING_END" {
        id: [], chunk: Ends, verify: ThinkingEnd, in: Current,
        fields: [], v1: same,
    }
    /// A thinking message begins (retired in 1.0).
    ThinkingTextMessageStart = "THINKING_TEXT_MESSAGE_START" {
        id: [], chunk: Ends, verify: ThinkingMessageStart, in: Current,
        fields: [], v1: same,
    }
    /// A piece of a thinking message (retired in 1.0).
    ThinkingTextMessageContent = "THINKING_TEXT_MESSAGE_CONTENT" {
        id: [], chunk: Ends, verify: ThinkingMessageContent, in: Current,
        fields: [Delta: Req Str], v1: same,
    }
    /// A thinking message ends (retired in 1.0).
    ThinkingTextMessageEnd = "THINKING_TEXT_MESSAGE_END" {
        id: [], chunk: Ends, verify: ThinkingMessageEnd, in: Current,
        fields: [], v1: same,
    }
    /// A reasoning phase begins.
    ReasoningStart = "REASONING_START" {
        id: [MessageId], chunk: Ends, verify: Free, in: Both,
        fields: [MessageId: Req Str], v1: same,
    }
    /// A reasoning phase ends.
    ReasoningEnd = "REASONING_END" {
        id: [MessageId], chunk: Ends, verify: Free, in: Both,
        fields: [MessageId: Req Str], v1: same,
    }
    /// A reasoning message begins.
    ReasoningMessageStart = "REASONING_MESSAGE_START" {
        id: [MessageId], chunk: Ends, verify: Free, in: Both,
        fields: [MessageId: Req Str, Role: Req REASONING_ROLE], v1: same,
    }
    /// A piece of a reasoning message.
    ReasoningMessageContent = "REASONING_MESSAGE_CONTENT" {
        id: [MessageId], chunk: Ends, verify: Free, in: Both,
        fields: [MessageId: Req Str, Delta: Req Str], v1: same,
    }
    /// A reasoning message ends.
    ReasoningMessageEnd = "REASONING_MESSAGE_END" {
        id: [MessageId], chunk: Ends, verify: Free, in: Both,
        fields: [MessageId: Req Str], v1: same,
    }
    /// Shorthand for start/content/end of a reasoning message.
    ReasoningMessageChunk = "REASONING_MESSAGE_CHUNK" {
        id: [MessageId], chunk: Expands(Reasoning), verify: Free, in: Both,
        fields: [MessageId: Opt Str, Delta: Opt Str], v1: same,
    }
    /// An encrypted value for a tool call or message.
    ReasoningEncryptedValue = "REASONING_ENCRYPTED_VALUE" {
        id: [], chunk: Keeps, verify: Free, in: Both,
        fields: [Subtype: Req SUBTYPE, EntityId: Req Str, EncryptedValue: Req Str], v1: same,
    }
    /// The whole shared state.
    StateSnapshot = "STATE_SNAPSHOT" {
        id: [], chunk: Ends, verify: Free, in: Both,
        fields: [Snapshot: Opt Any],
        v1: [Snapshot: Req Json],
    }
    /// A JSON Patch to the shared state.
    StateDelta = "STATE_DELTA" {
        id: [], chunk: Ends, verify: Free, in: Both,
        fields: [Delta: Req Arr],
        v1: [Delta: Req Expect::Patch],
    }
    /// The whole message list.
    MessagesSnapshot = "MESSAGES_SNAPSHOT" {
        id: [], chunk: EndsAll, verify: Free, in: Both,
        fields: [Messages: Req Arr], v1: same,
    }
    /// The content of an activity message.
    ActivitySnapshot = "ACTIVITY_SNAPSHOT" {
        id: [], chunk: Keeps, verify: Free, in: Both,
        fields: [MessageId: Req Str, ActivityType: Req Str, Content: Req Obj, Replace: Opt Bool],
        v1: same,
    }
    /// A JSON Patch to an activity message's content.
    ActivityDelta = "ACTIVITY_DELTA" {
        id: [], chunk: Keeps, verify: Free, in: Both,
        fields: [MessageId: Req Str, ActivityType: Req Str, Patch: Req Arr],
        v1: [MessageId: Req Str, ActivityType: Req Str, Patch: Req Expect::Patch],
    }
    /// A pass-through event from another system.
    Raw = "RAW" {
        id: [], chunk: Keeps, verify: Free, in: Both,
        fields: [Event: Opt Any, Source: Opt Str],
        v1: [Event: Req Json, Source: Opt Str],
    }
    /// An application-defined event.
    Custom = "CUSTOM" {
        id: [], chunk: Ends, verify: Free, in: Both,
        fields: [Name: Req Str, Value: Opt Any],
        v1: [Name: Req Str, Value: Req Json],
    }
    /// 1.0: a sub-agent invocation begins (its `subagentRunId` names it).
    SubagentStarted = "SUBAGENT_STARTED" {
        id: [SubagentRunId], chunk: Keeps, verify: Free, in: V1,
        fields: [
            SubagentRunId: Req Str, Name: Req Str, Description: Opt Str,
            ParentSubagentRunId: Opt Str, ParentToolCallId: Opt Str, ParentMessageId: Opt Str,
        ],
        v1: same,
    }
    /// 1.0: a sub-agent invocation ends normally.
    SubagentFinished = "SUBAGENT_FINISHED" {
        id: [SubagentRunId], chunk: Ends, verify: Free, in: V1,
        fields: [SubagentRunId: Req Str, Result: Opt Any, Outcome: Opt Expect::SubagentOutcome],
        v1: same,
    }
    /// 1.0: a sub-agent invocation ends with an error.
    SubagentError = "SUBAGENT_ERROR" {
        id: [SubagentRunId], chunk: Ends, verify: Free, in: V1,
        fields: [SubagentRunId: Req Str, Message: Req Str, Code: Opt Str],
        v1: same,
    }
}

/// Which protocols have an event type: the table's `in` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Era {
    /// The current protocol and 1.0.
    Both,
    /// Only the current protocol: retired in 1.0, whose compatibility
    /// boundary translates it (the `THINKING_*` events).
    Current,
    /// Only 1.0 (the `SUBAGENT_*` events); an unknown type in the current
    /// protocol.
    V1,
}

impl EventType {
    /// True if the type exists in `protocol` (its [`era`](Self::era)).
    pub const fn is_in(self, protocol: Protocol) -> bool {
        matches!(
            (self.era(), protocol),
            (Era::Both, _) | (Era::Current, Protocol::Current) | (Era::V1, Protocol::V1)
        )
    }

    /// In 1.0: whether the event may carry `subagentRunId` (an owner).
    /// The run-level events and `MESSAGES_SNAPSHOT` do not: they are the
    /// events that close every chunk lane ([`Chunking::EndsAll`]).
    pub const fn tagged(self) -> bool {
        !matches!(self.chunking(), Chunking::EndsAll)
    }

    /// True for the three `*_CHUNK` shorthand events, which chunk expansion
    /// turns into START / CONTENT / END events before verification.
    pub const fn is_chunk(self) -> bool {
        matches!(self.chunking(), Chunking::Expands(_))
    }

    /// What the event does to the verifier's id tables, if anything: the
    /// table part of its [`rule`](Self::rule).
    pub const fn table_op(self) -> Option<(TableOp, Tracked)> {
        match self.rule() {
            Rule::Table(op, table) => Some((op, table)),
            Free
            | RunStart
            | RunFinish
            | RunError
            | ThinkingStart
            | ThinkingEnd
            | ThinkingMessageStart
            | ThinkingMessageContent
            | ThinkingMessageEnd => None,
        }
    }
}

impl core::fmt::Display for EventType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where an event handed to the verifier (and the reducer) came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Origin {
    /// The frame's own event, as decoded.
    Frame,
    /// Made by chunk expansion from the frame's `*_CHUNK` event: a START
    /// (with the chunk's role, name, tool-call name and parent id), or a
    /// CONTENT / ARGS carrying the chunk's `delta`. Carries the chunk's metadata.
    Chunk,
    /// An END made by chunk expansion to close the open chunked item before
    /// the frame's event. It has only the item's id, and no metadata.
    Close,
}

/// The role of a text message (`TEXT_MESSAGE_START.role`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Role {
    /// `developer`
    Developer,
    /// `system`
    System,
    /// `assistant` (the default)
    #[default]
    Assistant,
    /// `user`
    User,
}

impl Role {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::Developer => "developer",
            Role::System => "system",
            Role::Assistant => "assistant",
            Role::User => "user",
        }
    }

    /// Looks up a wire name.
    pub fn from_wire(name: &str) -> Option<Role> {
        match name {
            "developer" => Some(Role::Developer),
            "system" => Some(Role::System),
            "assistant" => Some(Role::Assistant),
            "user" => Some(Role::User),
            _ => None,
        }
    }
}

/// An event after decoding and chunk expansion: what the verifier checks.
///
/// Only the fields the ordering rules need are here; everything else of the
/// frame (deltas, snapshots, metadata, ...) was handed out as fragments while
/// the frame was decoded. Its strings borrow from the pipeline's id slots
/// (hence `Ref`); the alloc layer's owned, typed event is
/// `agui_alloc::event::Event`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventRef<'a> {
    /// The event's type (never a `*_CHUNK` type after expansion).
    pub kind: EventType,
    /// Whether it is the frame's own event or made by chunk expansion.
    pub origin: Origin,
    /// Index of the frame it came from.
    pub frame: u32,
    /// The id the ordering rules look at: `messageId` for text and reasoning
    /// message events, `toolCallId` for tool-call events, `stepName` for
    /// steps; empty for the others.
    pub id: &'a str,
    /// `toolCallName` of a TOOL_CALL_START; empty otherwise.
    pub name: &'a str,
    /// `role` of a TEXT_MESSAGE_START (assistant when absent); assistant
    /// for the other events.
    pub role: Role,
    /// 1.0: the event's owner, its `subagentRunId` (`None`: the parent
    /// agent; always `None` in the current protocol). An END made to close
    /// a chunked item carries the item's owner.
    pub subagent: Option<&'a str>,
}
