//! The owned event the reducer consumes, and its bridge from the core.
//!
//! The core decodes, expands chunks and verifies without a heap; for each
//! verified event it names the type, the origin and the id. [`Event::from_core`]
//! turns that plus the frame's JSON object into an [`Event`] that owns the
//! fields the reducer and the hooks need, validating the nested structures
//! the core leaves to this layer (messages, run input, outcome, metadata).

use alloc::string::String;
use alloc::vec::Vec;

use agui_core::chunk::{ChunkPart, Item};
use agui_core::decode::Field as F;
use agui_core::event::{EventType, Origin, Role};
use serde_json::Value;

pub use crate::model::DecodeError;
use crate::model::{Fields, Interrupt, Message, Object, RunAgentInput};

/// `RUN_STARTED`
#[derive(Debug, Clone, PartialEq)]
pub struct RunStarted {
    /// The conversation thread.
    pub thread_id: String,
    /// The run.
    pub run_id: String,
    /// The run this one continues.
    pub parent_run_id: Option<String>,
    /// The run's input, if the agent echoes it.
    pub input: Option<RunAgentInput>,
}

/// How a run ended (`RUN_FINISHED.outcome`).
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// `{type: "success"}`
    Success,
    /// `{type: "interrupt", interrupts}`: at least one interrupt.
    Interrupt(Vec<Interrupt>),
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
    /// The result text.
    pub content: String,
    /// Given to the new tool message.
    pub metadata: Option<Object>,
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

/// One verified event, owning what the reducer and the hooks need.
///
/// There is no variant for the `*_CHUNK` types: chunk expansion turns them
/// into START / CONTENT / END events before they get here.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// `RUN_STARTED`: a run begins.
    RunStarted(RunStarted),
    /// `RUN_FINISHED`: a run ends normally.
    RunFinished(RunFinished),
    /// `RUN_ERROR`: a run ends with an error.
    RunError(RunError),
    /// `STEP_STARTED`: a named step begins.
    StepStarted(Step),
    /// `STEP_FINISHED`: a named step ends.
    StepFinished(Step),
    /// `TEXT_MESSAGE_START`: a text message begins.
    TextMessageStart(TextMessageStart),
    /// `TEXT_MESSAGE_CONTENT`: a piece of a text message.
    TextMessageContent(MessageContent),
    /// `TEXT_MESSAGE_END`: a text message ends.
    TextMessageEnd(MessageEnd),
    /// `TOOL_CALL_START`: a tool call begins.
    ToolCallStart(ToolCallStart),
    /// `TOOL_CALL_ARGS`: a piece of a tool call's JSON arguments.
    ToolCallArgs(ToolCallArgs),
    /// `TOOL_CALL_END`: a tool call's arguments are complete.
    ToolCallEnd(ToolCallEnd),
    /// `TOOL_CALL_RESULT`: the result of a tool call.
    ToolCallResult(ToolCallResult),
    /// `THINKING_START`: a thinking step begins.
    ThinkingStart(ThinkingStart),
    /// `THINKING_END`: a thinking step ends.
    ThinkingEnd,
    /// `THINKING_TEXT_MESSAGE_START`: a thinking message begins.
    ThinkingTextMessageStart,
    /// `THINKING_TEXT_MESSAGE_CONTENT`: a piece of a thinking message.
    ThinkingTextMessageContent(ThinkingContent),
    /// `THINKING_TEXT_MESSAGE_END`: a thinking message ends.
    ThinkingTextMessageEnd,
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
    ActivitySnapshot(ActivitySnapshot),
    /// `ACTIVITY_DELTA`: a JSON Patch to an activity message's content.
    ActivityDelta(ActivityDelta),
    /// `RAW`: a pass-through event from another system.
    Raw(Raw),
    /// `CUSTOM`: an application-defined event.
    Custom(Custom),
}

impl Event {
    /// Builds the reducer's event for one verified core event of a frame.
    ///
    /// `frame` is the whole frame's JSON object. `kind`, `origin` and `id`
    /// come from the core's expanded event:
    /// - [`Origin::Frame`]: the frame's own event; every field is read from
    ///   `frame` (whose `type` must be `kind`).
    /// - [`Origin::Chunk`]: a START, CONTENT or ARGS made from the frame's
    ///   `*_CHUNK` event; `id` is the item's id (for a CONTENT, the open
    ///   item's, which the frame may not name). A START takes the chunk's
    ///   role (default assistant), name, toolCallName and parentMessageId;
    ///   a CONTENT / ARGS takes its `delta` (absent = `""`, the
    ///   metadata-only chunk). Both carry the chunk's metadata.
    /// - [`Origin::Close`]: an END closing the open chunked item: only `id`.
    ///
    /// ```
    /// use agui_alloc::event::Event;
    /// use agui_core::event::{EventType, Origin};
    /// let frame = serde_json::json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "hi"});
    /// let ev = Event::from_core(EventType::TextMessageContent, Origin::Chunk, "m", &frame).unwrap();
    /// assert_eq!(ev.kind(), EventType::TextMessageContent);
    ///
    /// let bad = serde_json::json!({"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "x", "role": "wizard"}]});
    /// let err = Event::from_core(EventType::MessagesSnapshot, Origin::Frame, "", &bad).unwrap_err();
    /// assert!(err.to_string().starts_with("messages.0.role: "));
    /// ```
    pub fn from_core(
        kind: EventType,
        origin: Origin,
        id: &str,
        frame: &Value,
    ) -> Result<Event, DecodeError> {
        let f = Fields::of(frame)?;
        check_timestamp(f)?;
        match origin {
            Origin::Frame => {
                f.literal("type", kind.as_str())?;
                from_frame(kind, f)
            }
            Origin::Chunk => from_chunk(kind, id, f),
            Origin::Close => close(kind, id),
        }
    }

    /// The event's type.
    pub fn kind(&self) -> EventType {
        match self {
            Event::RunStarted(_) => EventType::RunStarted,
            Event::RunFinished(_) => EventType::RunFinished,
            Event::RunError(_) => EventType::RunError,
            Event::StepStarted(_) => EventType::StepStarted,
            Event::StepFinished(_) => EventType::StepFinished,
            Event::TextMessageStart(_) => EventType::TextMessageStart,
            Event::TextMessageContent(_) => EventType::TextMessageContent,
            Event::TextMessageEnd(_) => EventType::TextMessageEnd,
            Event::ToolCallStart(_) => EventType::ToolCallStart,
            Event::ToolCallArgs(_) => EventType::ToolCallArgs,
            Event::ToolCallEnd(_) => EventType::ToolCallEnd,
            Event::ToolCallResult(_) => EventType::ToolCallResult,
            Event::ThinkingStart(_) => EventType::ThinkingStart,
            Event::ThinkingEnd => EventType::ThinkingEnd,
            Event::ThinkingTextMessageStart => EventType::ThinkingTextMessageStart,
            Event::ThinkingTextMessageContent(_) => EventType::ThinkingTextMessageContent,
            Event::ThinkingTextMessageEnd => EventType::ThinkingTextMessageEnd,
            Event::ReasoningStart(_) => EventType::ReasoningStart,
            Event::ReasoningEnd(_) => EventType::ReasoningEnd,
            Event::ReasoningMessageStart(_) => EventType::ReasoningMessageStart,
            Event::ReasoningMessageContent(_) => EventType::ReasoningMessageContent,
            Event::ReasoningMessageEnd(_) => EventType::ReasoningMessageEnd,
            Event::ReasoningEncryptedValue(_) => EventType::ReasoningEncryptedValue,
            Event::StateSnapshot(_) => EventType::StateSnapshot,
            Event::StateDelta(_) => EventType::StateDelta,
            Event::MessagesSnapshot(_) => EventType::MessagesSnapshot,
            Event::ActivitySnapshot(_) => EventType::ActivitySnapshot,
            Event::ActivityDelta(_) => EventType::ActivityDelta,
            Event::Raw(_) => EventType::Raw,
            Event::Custom(_) => EventType::Custom,
        }
    }
}

/// Every event may carry `timestamp`, which must be a number.
fn check_timestamp(f: Fields<'_>) -> Result<(), DecodeError> {
    match f.get(F::Timestamp.as_str()) {
        None | Some(Value::Number(_)) => Ok(()),
        Some(other) => Err(DecodeError::expected("number", other).within(F::Timestamp.as_str())),
    }
}

/// `metadata` must be an object where present (null is a decode error).
fn metadata(f: Fields<'_>) -> Result<Option<Object>, DecodeError> {
    f.opt_object(F::Metadata.as_str())
}

/// The same check for events whose metadata the reducer ignores: no copy.
fn check_metadata(f: Fields<'_>) -> Result<(), DecodeError> {
    match f.get(F::Metadata.as_str()) {
        None | Some(Value::Object(_)) => Ok(()),
        Some(other) => Err(DecodeError::expected("object", other).within(F::Metadata.as_str())),
    }
}

/// A JSON Patch field: it must be an array (its operations are checked when applied).
fn patch(f: Fields<'_>, key: &str) -> Result<Value, DecodeError> {
    f.array(key).map(|ops| Value::Array(ops.to_vec()))
}

/// `TEXT_MESSAGE_START.role`: one of the four text roles, assistant when absent.
fn text_role(f: Fields<'_>) -> Result<Role, DecodeError> {
    match f.get(F::Role.as_str()) {
        None => Ok(Role::Assistant),
        Some(Value::String(name)) => Role::from_wire(name)
            .ok_or_else(|| DecodeError::new("Invalid input").within(F::Role.as_str())),
        Some(_) => Err(DecodeError::new("Invalid input").within(F::Role.as_str())),
    }
}

/// The frame's own event.
fn from_frame(kind: EventType, f: Fields<'_>) -> Result<Event, DecodeError> {
    use EventType as T;
    let ev = match kind {
        T::RunStarted => {
            check_metadata(f)?;
            Event::RunStarted(RunStarted {
                thread_id: f.string(F::ThreadId.as_str())?,
                run_id: f.string(F::RunId.as_str())?,
                parent_run_id: f.opt_string(F::ParentRunId.as_str())?,
                input: match f.get(F::Input.as_str()) {
                    None => None,
                    Some(v) => {
                        Some(RunAgentInput::from_json(v).map_err(|e| e.within(F::Input.as_str()))?)
                    }
                },
            })
        }
        T::RunFinished => {
            check_metadata(f)?;
            Event::RunFinished(RunFinished {
                thread_id: f.string(F::ThreadId.as_str())?,
                run_id: f.string(F::RunId.as_str())?,
                result: f.opt_any(F::Result.as_str()),
                outcome: match f.get(F::Outcome.as_str()) {
                    None | Some(Value::Null) => None,
                    Some(v) => Some(outcome(v).map_err(|e| e.within(F::Outcome.as_str()))?),
                },
            })
        }
        T::RunError => {
            check_metadata(f)?;
            Event::RunError(RunError {
                message: f.string(F::Message.as_str())?,
                code: f.opt_string(F::Code.as_str())?,
            })
        }
        T::StepStarted | T::StepFinished => {
            check_metadata(f)?;
            let step = Step {
                step_name: f.string(F::StepName.as_str())?,
            };
            if kind == T::StepStarted {
                Event::StepStarted(step)
            } else {
                Event::StepFinished(step)
            }
        }
        T::TextMessageStart => Event::TextMessageStart(TextMessageStart {
            message_id: f.string(F::MessageId.as_str())?,
            role: text_role(f)?,
            name: f.opt_string(F::Name.as_str())?,
            metadata: metadata(f)?,
        }),
        T::TextMessageContent => Event::TextMessageContent(content(f)?),
        T::TextMessageEnd => Event::TextMessageEnd(end(f)?),
        T::ToolCallStart => Event::ToolCallStart(ToolCallStart {
            tool_call_id: f.string(F::ToolCallId.as_str())?,
            tool_call_name: f.string(F::ToolCallName.as_str())?,
            parent_message_id: f.nullable_string(F::ParentMessageId.as_str())?,
            metadata: metadata(f)?,
        }),
        T::ToolCallArgs => Event::ToolCallArgs(ToolCallArgs {
            tool_call_id: f.string(F::ToolCallId.as_str())?,
            delta: f.string(F::Delta.as_str())?,
            metadata: metadata(f)?,
        }),
        T::ToolCallEnd => Event::ToolCallEnd(ToolCallEnd {
            tool_call_id: f.string(F::ToolCallId.as_str())?,
            metadata: metadata(f)?,
        }),
        T::ToolCallResult => {
            if f.get(F::Role.as_str()).is_some() {
                f.literal(F::Role.as_str(), "tool")?;
            }
            Event::ToolCallResult(ToolCallResult {
                message_id: f.string(F::MessageId.as_str())?,
                tool_call_id: f.string(F::ToolCallId.as_str())?,
                content: f.string(F::Content.as_str())?,
                metadata: metadata(f)?,
            })
        }
        T::ThinkingStart => {
            check_metadata(f)?;
            Event::ThinkingStart(ThinkingStart {
                title: f.opt_string(F::Title.as_str())?,
            })
        }
        T::ThinkingTextMessageContent => {
            check_metadata(f)?;
            Event::ThinkingTextMessageContent(ThinkingContent {
                delta: f.string(F::Delta.as_str())?,
            })
        }
        T::ThinkingEnd => {
            check_metadata(f)?;
            Event::ThinkingEnd
        }
        T::ThinkingTextMessageStart => {
            check_metadata(f)?;
            Event::ThinkingTextMessageStart
        }
        T::ThinkingTextMessageEnd => {
            check_metadata(f)?;
            Event::ThinkingTextMessageEnd
        }
        T::ReasoningStart | T::ReasoningEnd => {
            check_metadata(f)?;
            let phase = ReasoningPhase {
                message_id: f.string(F::MessageId.as_str())?,
            };
            if kind == T::ReasoningStart {
                Event::ReasoningStart(phase)
            } else {
                Event::ReasoningEnd(phase)
            }
        }
        T::ReasoningMessageStart => {
            f.literal(F::Role.as_str(), "reasoning")?;
            Event::ReasoningMessageStart(ReasoningMessageStart {
                message_id: f.string(F::MessageId.as_str())?,
                metadata: metadata(f)?,
            })
        }
        T::ReasoningMessageContent => Event::ReasoningMessageContent(content(f)?),
        T::ReasoningMessageEnd => Event::ReasoningMessageEnd(end(f)?),
        T::ReasoningEncryptedValue => {
            check_metadata(f)?;
            Event::ReasoningEncryptedValue(ReasoningEncryptedValue {
                subtype: match f.one_of(F::Subtype.as_str(), &["tool-call", "message"])? {
                    "tool-call" => EncryptedSubtype::ToolCall,
                    _ => EncryptedSubtype::Message,
                },
                entity_id: f.string(F::EntityId.as_str())?,
                encrypted_value: f.string(F::EncryptedValue.as_str())?,
            })
        }
        T::StateSnapshot => {
            check_metadata(f)?;
            Event::StateSnapshot(StateSnapshot {
                snapshot: f.opt_any(F::Snapshot.as_str()),
            })
        }
        T::StateDelta => {
            check_metadata(f)?;
            Event::StateDelta(StateDelta {
                delta: patch(f, F::Delta.as_str())?,
            })
        }
        T::MessagesSnapshot => {
            check_metadata(f)?;
            Event::MessagesSnapshot(MessagesSnapshot {
                messages: f.list(F::Messages.as_str(), Message::from_json)?,
            })
        }
        T::ActivitySnapshot => Event::ActivitySnapshot(ActivitySnapshot {
            message_id: f.string(F::MessageId.as_str())?,
            activity_type: f.string(F::ActivityType.as_str())?,
            content: f.object(F::Content.as_str())?.clone(),
            replace: f.opt_bool(F::Replace.as_str())?.unwrap_or(true),
            metadata: metadata(f)?,
        }),
        T::ActivityDelta => Event::ActivityDelta(ActivityDelta {
            message_id: f.string(F::MessageId.as_str())?,
            activity_type: f.string(F::ActivityType.as_str())?,
            patch: patch(f, F::Patch.as_str())?,
            metadata: metadata(f)?,
        }),
        T::Raw => {
            check_metadata(f)?;
            Event::Raw(Raw {
                event: f.opt_any(F::Event.as_str()),
                source: f.opt_string(F::Source.as_str())?,
            })
        }
        T::Custom => {
            check_metadata(f)?;
            Event::Custom(Custom {
                name: f.string(F::Name.as_str())?,
                value: f.opt_any(F::Value.as_str()),
            })
        }
        T::TextMessageChunk | T::ToolCallChunk | T::ReasoningMessageChunk => {
            return Err(not_expanded(kind));
        }
    };
    Ok(ev)
}

/// `TEXT_MESSAGE_CONTENT` / `REASONING_MESSAGE_CONTENT` of a frame.
fn content(f: Fields<'_>) -> Result<MessageContent, DecodeError> {
    Ok(MessageContent {
        message_id: f.string(F::MessageId.as_str())?,
        delta: f.string(F::Delta.as_str())?,
        metadata: metadata(f)?,
    })
}

/// `TEXT_MESSAGE_END` / `REASONING_MESSAGE_END` of a frame.
fn end(f: Fields<'_>) -> Result<MessageEnd, DecodeError> {
    Ok(MessageEnd {
        message_id: f.string(F::MessageId.as_str())?,
        metadata: metadata(f)?,
    })
}

/// `RUN_FINISHED.outcome`: strict, so any key beyond the schema's is an error.
fn outcome(v: &Value) -> Result<Outcome, DecodeError> {
    let f = Fields::of(v)?;
    match f.get("type") {
        Some(Value::String(t)) if t == "success" => {
            f.strict(&["type"])?;
            Ok(Outcome::Success)
        }
        Some(Value::String(t)) if t == "interrupt" => {
            f.strict(&["type", "interrupts"])?;
            let interrupts = f.list("interrupts", Interrupt::from_json)?;
            if interrupts.is_empty() {
                return Err(DecodeError::new("Array must contain at least 1 element(s)")
                    .within("interrupts"));
            }
            Ok(Outcome::Interrupt(interrupts))
        }
        _ => Err(
            DecodeError::new("Invalid discriminator value. Expected 'success' | 'interrupt'")
                .within("type"),
        ),
    }
}

/// A START, CONTENT or ARGS made from the frame's `*_CHUNK` event.
fn from_chunk(kind: EventType, id: &str, f: Fields<'_>) -> Result<Event, DecodeError> {
    let Some((item, part)) = Item::part_of(kind) else {
        return Err(not_from_chunk(kind));
    };
    f.literal(F::Type.as_str(), item.chunk().as_str())?;
    let delta = || -> Result<String, DecodeError> {
        // The metadata-only chunk emits a CONTENT with an empty delta.
        Ok(f.opt_string(F::Delta.as_str())?.unwrap_or_default())
    };
    Ok(match (item, part) {
        (Item::Text, ChunkPart::Start) => Event::TextMessageStart(TextMessageStart {
            message_id: id.into(),
            role: text_role(f)?,
            name: f.opt_string(F::Name.as_str())?,
            metadata: metadata(f)?,
        }),
        (item, ChunkPart::Content) => content_event(item, id.into(), delta()?, metadata(f)?),
        (Item::ToolCall, ChunkPart::Start) => Event::ToolCallStart(ToolCallStart {
            tool_call_id: id.into(),
            tool_call_name: f.string(F::ToolCallName.as_str())?,
            parent_message_id: f.nullable_string(F::ParentMessageId.as_str())?,
            metadata: metadata(f)?,
        }),
        (Item::Reasoning, ChunkPart::Start) => {
            Event::ReasoningMessageStart(ReasoningMessageStart {
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
fn close(kind: EventType, id: &str) -> Result<Event, DecodeError> {
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

fn not_expanded(kind: EventType) -> DecodeError {
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
