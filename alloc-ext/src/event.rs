//! The owned event the reducer consumes, and its bridge from the core.
//!
//! The core decodes, expands chunks and verifies without a heap; for each
//! verified event it names the type, the origin and the id. [`Event::from_core`]
//! turns that plus the frame's JSON object into an [`Event`] that owns the
//! fields the reducer and the hooks need, validating the nested structures
//! the core leaves to this layer (messages, run input, outcome, metadata).
//!
//! This module names no `Rules`: [`Event::from_core`] and [`Event::effect`],
//! which ask each event type's `Rules`, are written in `reduce/rules.rs`
//! beside that dispatch, so that the module graph runs reduce -> event and
//! never back (issue 26).

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use agui_core::chunk::{ChunkPart, Item};
use agui_core::decode::Field as F;
use agui_core::event::{EventType, Role};
use serde_json::Value;

pub use crate::model::DecodeError;
use crate::model::{
    Dialect, Fields, Interrupt, Message, Object, RunAgentInput, ToolContent, SUBAGENT_RUN_ID,
};

/// `RUN_STARTED`
#[derive(Debug, Clone, PartialEq)]
pub struct RunStarted {
    /// The conversation thread.
    pub thread_id: String,
    /// The run.
    pub run_id: String,
    /// The run this one continues.
    pub parent_run_id: Option<String>,
    /// The run's input, if the agent echoes it (boxed: it is large, and
    /// every [`Event`] is as large as its largest variant).
    pub input: Option<Box<RunAgentInput>>,
}

/// How a run ended (`RUN_FINISHED.outcome`).
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// `{type: "success"}`; AG-UI 1.0 may list the tool calls the client
    /// is expected to answer (`pendingToolCallIds`).
    Success {
        /// AG-UI 1.0's `pendingToolCallIds`, as sent.
        pending_tool_call_ids: Option<Vec<String>>,
    },
    /// `{type: "interrupt", interrupts}`: at least one interrupt.
    Interrupt(Vec<Interrupt>),
    /// AG-UI 1.0: `{type: "cancelled"}`.
    Cancelled,
}

/// `RUN_FINISHED`
#[derive(Debug, Clone, PartialEq)]
pub struct RunFinished {
    /// The conversation thread.
    pub thread_id: String,
    /// The run.
    pub run_id: String,
    /// The run's result; any JSON, `null` kept.
    pub result: Option<Value>,
    /// How it ended (`null` on the wire counts as absent).
    pub outcome: Option<Outcome>,
}

/// `RUN_ERROR`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunError {
    /// What went wrong.
    pub message: String,
    /// A machine-readable code.
    pub code: Option<String>,
}

/// `STEP_STARTED` and `STEP_FINISHED`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The step's name.
    pub step_name: String,
}

/// `TEXT_MESSAGE_START`
#[derive(Debug, Clone, PartialEq)]
pub struct TextMessageStart {
    /// The message id.
    pub message_id: String,
    /// The role of a message this creates.
    pub role: Role,
    /// The author's name for a message this creates.
    pub name: Option<String>,
    /// Merged into the message.
    pub metadata: Option<Object>,
    /// AG-UI 1.0: the sub-agent invocation that produced it (absent: the
    /// parent agent); given to the message it creates.
    pub subagent_run_id: Option<String>,
}

/// `TEXT_MESSAGE_CONTENT` and `REASONING_MESSAGE_CONTENT`
#[derive(Debug, Clone, PartialEq)]
pub struct MessageContent {
    /// The message id.
    pub message_id: String,
    /// Text to append (may be empty).
    pub delta: String,
    /// Merged into the message.
    pub metadata: Option<Object>,
}

/// `TEXT_MESSAGE_END` and `REASONING_MESSAGE_END`
#[derive(Debug, Clone, PartialEq)]
pub struct MessageEnd {
    /// The message id.
    pub message_id: String,
    /// Merged into the message.
    pub metadata: Option<Object>,
}

/// `TOOL_CALL_START`
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallStart {
    /// The tool call id.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool_call_name: String,
    /// The message that should own the call (`null` on the wire = absent).
    pub parent_message_id: Option<String>,
    /// Merged into the tool call.
    pub metadata: Option<Object>,
    /// AG-UI 1.0: the sub-agent invocation that produced it (absent: the
    /// parent agent); given to the message it creates.
    pub subagent_run_id: Option<String>,
}

/// `TOOL_CALL_ARGS`
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallArgs {
    /// The tool call id.
    pub tool_call_id: String,
    /// A piece of the JSON arguments text.
    pub delta: String,
    /// Merged into the tool call.
    pub metadata: Option<Object>,
}

/// `TOOL_CALL_END`
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallEnd {
    /// The tool call id.
    pub tool_call_id: String,
    /// Merged into the tool call.
    pub metadata: Option<Object>,
}

/// `TOOL_CALL_RESULT`
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallResult {
    /// The id of the tool message this creates.
    pub message_id: String,
    /// The tool call answered.
    pub tool_call_id: String,
    /// The result: text, or (AG-UI 1.0) content parts.
    pub content: ToolContent,
    /// Given to the new tool message.
    pub metadata: Option<Object>,
    /// AG-UI 1.0: the sub-agent invocation that produced it (absent: the
    /// parent agent); given to the message it creates.
    pub subagent_run_id: Option<String>,
}

/// `THINKING_START`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThinkingStart {
    /// A title for the thinking step.
    pub title: Option<String>,
}

/// `THINKING_TEXT_MESSAGE_CONTENT`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThinkingContent {
    /// A piece of thinking text.
    pub delta: String,
}

/// `REASONING_START` and `REASONING_END`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReasoningPhase {
    /// The reasoning phase's id.
    pub message_id: String,
}

/// `REASONING_MESSAGE_START`
#[derive(Debug, Clone, PartialEq)]
pub struct ReasoningMessageStart {
    /// The message id.
    pub message_id: String,
    /// Merged into the message.
    pub metadata: Option<Object>,
    /// AG-UI 1.0: the sub-agent invocation that produced it (absent: the
    /// parent agent); given to the message it creates.
    pub subagent_run_id: Option<String>,
}

/// What a `REASONING_ENCRYPTED_VALUE` attaches to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncryptedSubtype {
    /// `tool-call`: a tool call of an assistant message.
    ToolCall,
    /// `message`: a message (activity messages excepted).
    Message,
}

/// `REASONING_ENCRYPTED_VALUE`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReasoningEncryptedValue {
    /// What the value attaches to.
    pub subtype: EncryptedSubtype,
    /// The tool call or message id.
    pub entity_id: String,
    /// The opaque value.
    pub encrypted_value: String,
}

/// `STATE_SNAPSHOT`
#[derive(Debug, Clone, PartialEq)]
pub struct StateSnapshot {
    /// The new state; `None` when the event has no `snapshot`.
    pub snapshot: Option<Value>,
}

/// `STATE_DELTA`
#[derive(Debug, Clone, PartialEq)]
pub struct StateDelta {
    /// The JSON Patch: an array of operations.
    pub delta: Value,
}

/// `MESSAGES_SNAPSHOT`
#[derive(Debug, Clone, PartialEq)]
pub struct MessagesSnapshot {
    /// The server's view of the conversation.
    pub messages: Vec<Message>,
    /// AG-UI 1.0: which local activity messages the snapshot speaks for
    /// (its `metadata["@ag-ui/client"].authoritativeActivityTypes`).
    pub activity_authority: ActivityAuthority,
}

/// AG-UI 1.0 (SPEC 9.8): which local activity messages a
/// `MESSAGES_SNAPSHOT` speaks for; the others are client-only and kept.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ActivityAuthority {
    /// Not stated (and always so in the current protocol): the snapshot
    /// speaks for activity messages only if it holds one.
    #[default]
    Unstated,
    /// `null`: it speaks for every activity message.
    All,
    /// A list: it speaks for the activity messages of these types (a value
    /// that is not a list of strings reads as the empty list).
    Types(Vec<String>),
}

impl ActivityAuthority {
    /// Reads it from a `MESSAGES_SNAPSHOT`'s metadata (1.0 only).
    pub(crate) fn from_metadata(metadata: Option<&Value>) -> Self {
        let stated = metadata
            .and_then(|m| m.get("@ag-ui/client"))
            .and_then(|c| c.as_object())
            .and_then(|c| c.get("authoritativeActivityTypes"));
        match stated {
            None => ActivityAuthority::Unstated,
            Some(Value::Null) => ActivityAuthority::All,
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
                ActivityAuthority::Types(
                    items
                        .iter()
                        .filter_map(Value::as_str)
                        .map(String::from)
                        .collect(),
                )
            }
            Some(_) => ActivityAuthority::Types(Vec::new()),
        }
    }
}

/// `ACTIVITY_SNAPSHOT`
#[derive(Debug, Clone, PartialEq)]
pub struct ActivitySnapshot {
    /// The activity message's id.
    pub message_id: String,
    /// The kind of activity.
    pub activity_type: String,
    /// The content.
    pub content: Object,
    /// Whether an existing message's content is replaced (default true).
    pub replace: bool,
    /// Merged into (or given to) the activity message.
    pub metadata: Option<Object>,
    /// AG-UI 1.0: the sub-agent invocation that produced it (absent: the
    /// parent agent); given to the message it creates.
    pub subagent_run_id: Option<String>,
}

/// `ACTIVITY_DELTA`
#[derive(Debug, Clone, PartialEq)]
pub struct ActivityDelta {
    /// The activity message's id.
    pub message_id: String,
    /// The kind of activity, set when the patch applies.
    pub activity_type: String,
    /// The JSON Patch: an array of operations.
    pub patch: Value,
    /// Merged into the activity message.
    pub metadata: Option<Object>,
}

/// `RAW`
#[derive(Debug, Clone, PartialEq)]
pub struct Raw {
    /// The foreign event; any JSON, `null` kept.
    pub event: Option<Value>,
    /// Where it came from.
    pub source: Option<String>,
}

/// `CUSTOM`
#[derive(Debug, Clone, PartialEq)]
pub struct Custom {
    /// The application's name for the event.
    pub name: String,
    /// Its value; any JSON, `null` kept.
    pub value: Option<Value>,
}

/// AG-UI 1.0 `SUBAGENT_STARTED`: an invocation of a sub-agent begins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubagentStarted {
    /// The invocation's id (unique in its run).
    pub subagent_run_id: String,
    /// The sub-agent's name.
    pub name: String,
    /// What it does.
    pub description: Option<String>,
    /// The invocation that started it (absent: the parent agent).
    pub parent_subagent_run_id: Option<String>,
    /// The tool call that started it.
    pub parent_tool_call_id: Option<String>,
    /// The message that started it.
    pub parent_message_id: Option<String>,
}

/// How a sub-agent invocation ended (`SUBAGENT_FINISHED.outcome`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubagentOutcome {
    /// `{type: "success"}`
    Success,
    /// `{type: "suspended", interruptIds?}`: it waits on these interrupts.
    Suspended(Vec<String>),
}

/// AG-UI 1.0 `SUBAGENT_FINISHED`: an invocation ends.
#[derive(Debug, Clone, PartialEq)]
pub struct SubagentFinished {
    /// The invocation's id.
    pub subagent_run_id: String,
    /// Its result; any JSON but `null`.
    pub result: Option<Value>,
    /// How it ended.
    pub outcome: Option<SubagentOutcome>,
}

/// AG-UI 1.0 `SUBAGENT_ERROR`: an invocation fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubagentError {
    /// The invocation's id.
    pub subagent_run_id: String,
    /// What went wrong.
    pub message: String,
    /// A machine-readable code.
    pub code: Option<String>,
}

/// What an event means for a display of the conversation, beyond what a
/// look at the messages shows: the run's lifecycle (a status line), and the
/// changes a display cannot see from the message list's lengths alone.
/// Each event type has exactly one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Effect<'e> {
    /// `RUN_STARTED`: a run begins.
    RunStarted,
    /// `RUN_FINISHED`: the run ended normally (or with an interrupt).
    RunFinished(&'e RunFinished),
    /// `RUN_ERROR`: the run ended with an error.
    RunError(&'e RunError),
    /// A named step begins.
    StepStarted(&'e str),
    /// A named step ends.
    StepFinished(&'e str),
    /// A reasoning (or thinking) phase begins.
    ReasoningStarted,
    /// A reasoning (or thinking) phase ends.
    ReasoningEnded,
    /// The state changed, or may have.
    State,
    /// The message list may have been replaced as a whole.
    MessagesReplaced,
    /// A tool call with this id starts: it may rename an existing call.
    ToolCallStarted(&'e str),
    /// A tool message went after its call (later messages moved).
    ToolResult,
    /// The activity message with this id may have changed in place.
    Activity(&'e str),
    /// Nothing beyond messages appended to or grown at the end.
    Plain,
}

/// The event table of the alloc layer: one row per event type, naming its
/// payload. From it come [`Event`], [`Event::kind`], one marker type per
/// row (in [`kind`]) and `for_each_event!`, which hands the rows to
/// `reduce/rules.rs` for the dispatch to each type's `Rules` and for
/// `from_frame`, whose `match` on the core's [`EventType`] is exhaustive: a
/// row added to the core's table is a compile error there until it has a
/// row below, and a row here is a compile error until its marker
/// implements `Rules`, whose methods have no defaults.
macro_rules! events {
    (
        with_fields { $( $(#[$doc:meta])* $name:ident($payload:ty), )* }
        without_fields { $( $(#[$udoc:meta])* $unit:ident, )* }
        expanded_before_apply { $( $chunk:ident, )* }
    ) => {
        /// One verified event, owning what the reducer and the hooks need.
        ///
        /// There is no variant for the `*_CHUNK` types: chunk expansion turns them
        /// into START / CONTENT / END events before they get here.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Event {
            $( $(#[$doc])* $name($payload), )*
            $( $(#[$udoc])* $unit, )*
        }

        /// One uninhabited marker type per event type: the types that
        /// implement `Rules` (in `reduce/`).
        pub(crate) mod kind {
            $(
                #[doc = concat!("`", stringify!($name), "`")]
                pub(crate) enum $name {}
            )*
            $(
                #[doc = concat!("`", stringify!($unit), "`")]
                pub(crate) enum $unit {}
            )*
        }

        impl Event {
            /// The event's type.
            pub fn kind(&self) -> EventType {
                match self {
                    $( Event::$name(_) => EventType::$name, )*
                    $( Event::$unit => EventType::$unit, )*
                }
            }
        }

        /// Hands the table's rows to the macro `$then`, which writes what
        /// needs each type's `Rules` (`dispatch!` in `reduce/rules.rs`):
        /// there, not here, so that this module names no rules and the
        /// module graph runs reduce -> event only.
        macro_rules! for_each_event {
            ($then:ident) => {
                $then! {
                    with_fields { $( $name, )* }
                    without_fields { $( $unit, )* }
                    expanded_before_apply { $( $chunk, )* }
                }
            };
        }
        pub(crate) use for_each_event;
    };
}

events! {
    with_fields {
        /// `RUN_STARTED`: a run begins.
        RunStarted(RunStarted),
        /// `RUN_FINISHED`: a run ends normally.
        RunFinished(Box<RunFinished>),
        /// `RUN_ERROR`: a run ends with an error.
        RunError(RunError),
        /// `STEP_STARTED`: a named step begins.
        StepStarted(Step),
        /// `STEP_FINISHED`: a named step ends.
        StepFinished(Step),
        /// `TEXT_MESSAGE_START`: a text message begins.
        TextMessageStart(Box<TextMessageStart>),
        /// `TEXT_MESSAGE_CONTENT`: a piece of a text message.
        TextMessageContent(MessageContent),
        /// `TEXT_MESSAGE_END`: a text message ends.
        TextMessageEnd(MessageEnd),
        /// `TOOL_CALL_START`: a tool call begins.
        ToolCallStart(Box<ToolCallStart>),
        /// `TOOL_CALL_ARGS`: a piece of a tool call's JSON arguments.
        ToolCallArgs(ToolCallArgs),
        /// `TOOL_CALL_END`: a tool call's arguments are complete.
        ToolCallEnd(ToolCallEnd),
        /// `TOOL_CALL_RESULT`: the result of a tool call.
        ToolCallResult(Box<ToolCallResult>),
        /// `THINKING_START`: a thinking step begins.
        ThinkingStart(ThinkingStart),
        /// `THINKING_TEXT_MESSAGE_CONTENT`: a piece of a thinking message.
        ThinkingTextMessageContent(ThinkingContent),
        /// `REASONING_START`: a reasoning phase begins.
        ReasoningStart(ReasoningPhase),
        /// `REASONING_END`: a reasoning phase ends.
        ReasoningEnd(ReasoningPhase),
        /// `REASONING_MESSAGE_START`: a reasoning message begins.
        ReasoningMessageStart(ReasoningMessageStart),
        /// `REASONING_MESSAGE_CONTENT`: a piece of a reasoning message.
        ReasoningMessageContent(MessageContent),
        /// `REASONING_MESSAGE_END`: a reasoning message ends.
        ReasoningMessageEnd(MessageEnd),
        /// `REASONING_ENCRYPTED_VALUE`: an encrypted value for a tool call or message.
        ReasoningEncryptedValue(ReasoningEncryptedValue),
        /// `STATE_SNAPSHOT`: the whole shared state.
        StateSnapshot(StateSnapshot),
        /// `STATE_DELTA`: a JSON Patch to the shared state.
        StateDelta(StateDelta),
        /// `MESSAGES_SNAPSHOT`: the whole message list.
        MessagesSnapshot(MessagesSnapshot),
        /// `ACTIVITY_SNAPSHOT`: the content of an activity message.
        ActivitySnapshot(Box<ActivitySnapshot>),
        /// `ACTIVITY_DELTA`: a JSON Patch to an activity message's content.
        ActivityDelta(Box<ActivityDelta>),
        /// `RAW`: a pass-through event from another system.
        Raw(Raw),
        /// `CUSTOM`: an application-defined event.
        Custom(Custom),
        /// `SUBAGENT_STARTED` (AG-UI 1.0): a sub-agent invocation begins.
        SubagentStarted(Box<SubagentStarted>),
        /// `SUBAGENT_FINISHED` (AG-UI 1.0): a sub-agent invocation ends.
        SubagentFinished(SubagentFinished),
        /// `SUBAGENT_ERROR` (AG-UI 1.0): a sub-agent invocation fails.
        SubagentError(SubagentError),
    }
    without_fields {
        /// `THINKING_END`: a thinking step ends.
        ThinkingEnd,
        /// `THINKING_TEXT_MESSAGE_START`: a thinking message begins.
        ThinkingTextMessageStart,
        /// `THINKING_TEXT_MESSAGE_END`: a thinking message ends.
        ThinkingTextMessageEnd,
    }
    expanded_before_apply {
        TextMessageChunk,
        ToolCallChunk,
        ReasoningMessageChunk,
    }
}

/// Every event may carry `timestamp`, which must be a number.
pub(crate) fn check_timestamp(f: Fields<'_>) -> Result<(), DecodeError> {
    match f.get(F::Timestamp.as_str()) {
        None | Some(Value::Number(_)) => Ok(()),
        Some(other) => Err(DecodeError::expected("number", other).within(F::Timestamp.as_str())),
    }
}

/// `metadata` must be an object where present (null is a decode error).
pub(crate) fn metadata(f: Fields<'_>) -> Result<Option<Object>, DecodeError> {
    f.opt_object(F::Metadata.as_str())
}

/// The same check for events whose metadata the reducer ignores: no copy.
pub(crate) fn check_metadata(f: Fields<'_>) -> Result<(), DecodeError> {
    match f.get(F::Metadata.as_str()) {
        None | Some(Value::Object(_)) => Ok(()),
        Some(other) => Err(DecodeError::expected("object", other).within(F::Metadata.as_str())),
    }
}

/// A JSON Patch field: it must be an array (its operations are checked when applied).
pub(crate) fn patch(f: Fields<'_>, key: &str) -> Result<Value, DecodeError> {
    f.array(key).map(|ops| Value::Array(ops.to_vec()))
}

/// `TEXT_MESSAGE_START.role`: one of the four text roles, assistant when absent.
pub(crate) fn text_role(f: Fields<'_>) -> Result<Role, DecodeError> {
    match f.get(F::Role.as_str()) {
        None => Ok(Role::Assistant),
        Some(Value::String(name)) => Role::from_wire(name)
            .ok_or_else(|| DecodeError::new("Invalid input").within(F::Role.as_str())),
        Some(_) => Err(DecodeError::new("Invalid input").within(F::Role.as_str())),
    }
}

/// `TEXT_MESSAGE_CONTENT` / `REASONING_MESSAGE_CONTENT` of a frame.
pub(crate) fn content(f: Fields<'_>) -> Result<MessageContent, DecodeError> {
    Ok(MessageContent {
        message_id: f.string(F::MessageId.as_str())?,
        delta: f.string(F::Delta.as_str())?,
        metadata: metadata(f)?,
    })
}

/// `TEXT_MESSAGE_END` / `REASONING_MESSAGE_END` of a frame.
pub(crate) fn end(f: Fields<'_>) -> Result<MessageEnd, DecodeError> {
    Ok(MessageEnd {
        message_id: f.string(F::MessageId.as_str())?,
        metadata: metadata(f)?,
    })
}

/// `RUN_FINISHED.outcome`. Current: strict, so any key beyond the
/// schema's is an error. AG-UI 1.0: `cancelled` and `pendingToolCallIds`
/// are known, and unknown keys were stripped before (SPEC 9.4).
pub(crate) fn outcome(v: &Value, dialect: Dialect) -> Result<Outcome, DecodeError> {
    let f = Fields::of_in(v, dialect)?;
    let strict = |allowed: &[&str]| match dialect {
        Dialect::Current => f.strict(allowed),
        Dialect::V1 => Ok(()),
    };
    match f.get("type") {
        Some(Value::String(t)) if t == "success" => {
            strict(&["type"])?;
            let pending = match dialect {
                Dialect::V1 => f.opt_list("pendingToolCallIds", string_item)?,
                Dialect::Current => None,
            };
            Ok(Outcome::Success {
                pending_tool_call_ids: pending,
            })
        }
        Some(Value::String(t)) if t == "cancelled" && dialect == Dialect::V1 => {
            Ok(Outcome::Cancelled)
        }
        Some(Value::String(t)) if t == "interrupt" => {
            strict(&["type", "interrupts"])?;
            let interrupts = f.list("interrupts", |i| Interrupt::from_json_in(i, dialect))?;
            if interrupts.is_empty() {
                return Err(DecodeError::new("Array must contain at least 1 element(s)")
                    .within("interrupts"));
            }
            Ok(Outcome::Interrupt(interrupts))
        }
        _ => Err(DecodeError::new(match dialect {
            Dialect::Current => "Invalid discriminator value. Expected 'success' | 'interrupt'",
            Dialect::V1 => {
                "Invalid discriminator value. Expected 'success' | 'interrupt' | 'cancelled'"
            }
        })
        .within("type")),
    }
}

/// One string of a string array.
pub(crate) fn string_item(v: &Value) -> Result<String, DecodeError> {
    match v {
        Value::String(s) => Ok(s.clone()),
        other @ (Value::Null
        | Value::Bool(_)
        | Value::Number(_)
        | Value::Array(_)
        | Value::Object(_)) => Err(DecodeError::expected("string", other)),
    }
}

/// A START, CONTENT or ARGS made from the frame's `*_CHUNK` event.
pub(crate) fn from_chunk(kind: EventType, id: &str, f: Fields<'_>) -> Result<Event, DecodeError> {
    let Some((item, part)) = Item::part_of(kind) else {
        return Err(not_from_chunk(kind));
    };
    f.literal(F::Type.as_str(), item.chunk().as_str())?;
    let delta = || -> Result<String, DecodeError> {
        // The metadata-only chunk emits a CONTENT with an empty delta.
        Ok(f.opt_string(F::Delta.as_str())?.unwrap_or_default())
    };
    Ok(match (item, part) {
        (Item::Text, ChunkPart::Start) => Event::TextMessageStart(Box::new(TextMessageStart {
            subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
            message_id: id.into(),
            role: text_role(f)?,
            name: f.opt_string(F::Name.as_str())?,
            metadata: metadata(f)?,
        })),
        (item, ChunkPart::Content) => content_event(item, id.into(), delta()?, metadata(f)?),
        (Item::ToolCall, ChunkPart::Start) => Event::ToolCallStart(Box::new(ToolCallStart {
            subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
            tool_call_id: id.into(),
            tool_call_name: f.string(F::ToolCallName.as_str())?,
            parent_message_id: f.nullable_string(F::ParentMessageId.as_str())?,
            metadata: metadata(f)?,
        })),
        (Item::Reasoning, ChunkPart::Start) => {
            Event::ReasoningMessageStart(ReasoningMessageStart {
                subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
                message_id: id.into(),
                metadata: metadata(f)?,
            })
        }
    })
}

/// The CONTENT / ARGS event of a chunked item: what a chunk's content part
/// makes, and what the client's fast path makes of a bare delta frame.
pub(crate) fn content_event(
    item: Item,
    id: String,
    delta: String,
    metadata: Option<Object>,
) -> Event {
    match item {
        Item::Text => Event::TextMessageContent(MessageContent {
            message_id: id,
            delta,
            metadata,
        }),
        Item::ToolCall => Event::ToolCallArgs(ToolCallArgs {
            tool_call_id: id,
            delta,
            metadata,
        }),
        Item::Reasoning => Event::ReasoningMessageContent(MessageContent {
            message_id: id,
            delta,
            metadata,
        }),
    }
}

/// The END that closes an open chunked item before the frame's event.
pub(crate) fn close(kind: EventType, id: &str) -> Result<Event, DecodeError> {
    let Some(item) = Item::ended_by(kind) else {
        return Err(not_from_chunk(kind));
    };
    Ok(match item {
        Item::Text => Event::TextMessageEnd(MessageEnd {
            message_id: id.into(),
            metadata: None,
        }),
        Item::ToolCall => Event::ToolCallEnd(ToolCallEnd {
            tool_call_id: id.into(),
            metadata: None,
        }),
        Item::Reasoning => Event::ReasoningMessageEnd(MessageEnd {
            message_id: id.into(),
            metadata: None,
        }),
    })
}

pub(crate) fn not_expanded(kind: EventType) -> DecodeError {
    DecodeError::new(alloc::format!(
        "{kind} must be expanded before it is applied"
    ))
    .within(F::Type.as_str())
}

fn not_from_chunk(kind: EventType) -> DecodeError {
    DecodeError::new(alloc::format!(
        "chunk expansion does not make {kind} events"
    ))
    .within(F::Type.as_str())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use agui_core::event::Origin;
    use alloc::string::ToString;
    use serde_json::json;

    /// The core checks an interrupt's members as they stream past
    /// (`agui_core::decode::nested::INTERRUPT`); the model reads the same
    /// members: every one of them round-trips, a required one is required.
    #[test]
    fn interrupts_have_the_cores_members() {
        use agui_core::decode::nested::{Member, INTERRUPT};
        use agui_core::decode::Need;
        let value = |m: Member| match m {
            Member::Str => json!("x"),
            Member::Obj => json!({}),
            Member::Count => json!(1),
        };
        let full: serde_json::Map<String, Value> = INTERRUPT
            .iter()
            .map(|&(name, _, m)| (name.to_string(), value(m)))
            .collect();
        let decoded = Interrupt::from_json(&Value::Object(full.clone())).unwrap();
        assert_eq!(
            serde_json::to_value(&decoded).unwrap(),
            Value::Object(full.clone())
        );
        for &(name, need, _) in INTERRUPT {
            let mut less = full.clone();
            less.remove(name);
            let ok = Interrupt::from_json(&Value::Object(less)).is_ok();
            assert_eq!(ok, need == Need::Opt, "{name}");
        }
    }

    fn frame(kind: EventType, v: Value) -> Result<Event, DecodeError> {
        Event::from_core(kind, Origin::Frame, "", &v)
    }

    #[test]
    fn reads_frame_fields() {
        let ev = frame(
            EventType::ToolCallStart,
            json!({"type": "TOOL_CALL_START", "toolCallId": "t", "toolCallName": "f",
                   "parentMessageId": null, "metadata": {"a": 1}}),
        )
        .unwrap();
        let Event::ToolCallStart(start) = ev else {
            panic!("{ev:?}")
        };
        assert_eq!(start.parent_message_id, None);
        assert_eq!(
            start.metadata,
            Some(json!({"a": 1}).as_object().unwrap().clone())
        );
    }

    #[test]
    fn rejects_bad_nested_values() {
        let e = frame(
            EventType::RunStarted,
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r",
                   "input": {"threadId": "t", "runId": "r", "tools": [], "context": [],
                             "messages": [{"id": "a", "role": "wizard"}]}}),
        )
        .unwrap_err();
        assert!(e
            .to_string()
            .starts_with("input.messages.0.role: Invalid discriminator"));
        let e = frame(
            EventType::Custom,
            json!({"type": "CUSTOM", "name": "n", "metadata": null}),
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "metadata: Expected object, received null");
        let e = frame(
            EventType::RunFinished,
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
                   "outcome": {"type": "interrupt", "interrupts": []}}),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "outcome.interrupts: Array must contain at least 1 element(s)"
        );
        let e = frame(
            EventType::RunFinished,
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
                   "outcome": {"type": "success", "extra": 1}}),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "outcome: Unrecognized key(s) in object: 'extra'"
        );
        let e = frame(
            EventType::TextMessageStart,
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "tool"}),
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "role: Invalid input");
        let e = frame(
            EventType::TextMessageEnd,
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m"}),
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("type: "));
    }

    #[test]
    fn chunk_and_close_events() {
        let chunk = json!({"type": "TEXT_MESSAGE_CHUNK", "metadata": {"k": true}});
        let ev =
            Event::from_core(EventType::TextMessageContent, Origin::Chunk, "open", &chunk).unwrap();
        let Event::TextMessageContent(c) = ev else {
            panic!("{ev:?}")
        };
        assert_eq!((c.message_id.as_str(), c.delta.as_str()), ("open", ""));
        assert!(c.metadata.is_some());

        let chunk = json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "t", "toolCallName": "f", "parentMessageId": "p"});
        let ev = Event::from_core(EventType::ToolCallStart, Origin::Chunk, "t", &chunk).unwrap();
        let Event::ToolCallStart(s) = ev else {
            panic!("{ev:?}")
        };
        assert_eq!(s.parent_message_id.as_deref(), Some("p"));

        let next = json!({"type": "CUSTOM", "name": "x", "metadata": {"not": "mine"}});
        let ev = Event::from_core(EventType::ToolCallEnd, Origin::Close, "t", &next).unwrap();
        assert_eq!(
            ev,
            Event::ToolCallEnd(ToolCallEnd {
                tool_call_id: "t".into(),
                metadata: None
            })
        );
        assert!(Event::from_core(EventType::Custom, Origin::Close, "t", &next).is_err());
    }
}
