//! The AG-UI event types and the decoded event the rest of the pipeline sees.

macro_rules! event_types {
    ($($(#[$doc:meta])* $variant:ident = $wire:literal,)*) => {
        /// The `type` of an AG-UI event, as named on the wire.
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
                match name {
                    $($wire => Some(EventType::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

event_types! {
    /// A run begins.
    RunStarted = "RUN_STARTED",
    /// A run ends normally.
    RunFinished = "RUN_FINISHED",
    /// A run ends with an error.
    RunError = "RUN_ERROR",
    /// A named step begins.
    StepStarted = "STEP_STARTED",
    /// A named step ends.
    StepFinished = "STEP_FINISHED",
    /// A text message begins.
    TextMessageStart = "TEXT_MESSAGE_START",
    /// A piece of a text message.
    TextMessageContent = "TEXT_MESSAGE_CONTENT",
    /// A text message ends.
    TextMessageEnd = "TEXT_MESSAGE_END",
    /// Shorthand for start/content/end of a text message.
    TextMessageChunk = "TEXT_MESSAGE_CHUNK",
    /// A tool call begins.
    ToolCallStart = "TOOL_CALL_START",
    /// A piece of a tool call's JSON arguments.
    ToolCallArgs = "TOOL_CALL_ARGS",
    /// A tool call's arguments are complete.
    ToolCallEnd = "TOOL_CALL_END",
    /// Shorthand for start/args/end of a tool call.
    ToolCallChunk = "TOOL_CALL_CHUNK",
    /// The result of a tool call.
    ToolCallResult = "TOOL_CALL_RESULT",
    /// A thinking step begins.
    ThinkingStart = "THINKING_START",
    /// A thinking step ends.
    ThinkingEnd = "THINKING_END",
    /// A thinking message begins.
    ThinkingTextMessageStart = "THINKING_TEXT_MESSAGE_START",
    /// A piece of a thinking message.
    ThinkingTextMessageContent = "THINKING_TEXT_MESSAGE_CONTENT",
    /// A thinking message ends.
    ThinkingTextMessageEnd = "THINKING_TEXT_MESSAGE_END",
    /// A reasoning phase begins.
    ReasoningStart = "REASONING_START",
    /// A reasoning phase ends.
    ReasoningEnd = "REASONING_END",
    /// A reasoning message begins.
    ReasoningMessageStart = "REASONING_MESSAGE_START",
    /// A piece of a reasoning message.
    ReasoningMessageContent = "REASONING_MESSAGE_CONTENT",
    /// A reasoning message ends.
    ReasoningMessageEnd = "REASONING_MESSAGE_END",
    /// Shorthand for start/content/end of a reasoning message.
    ReasoningMessageChunk = "REASONING_MESSAGE_CHUNK",
    /// An encrypted value for a tool call or message.
    ReasoningEncryptedValue = "REASONING_ENCRYPTED_VALUE",
    /// The whole shared state.
    StateSnapshot = "STATE_SNAPSHOT",
    /// A JSON Patch to the shared state.
    StateDelta = "STATE_DELTA",
    /// The whole message list.
    MessagesSnapshot = "MESSAGES_SNAPSHOT",
    /// The content of an activity message.
    ActivitySnapshot = "ACTIVITY_SNAPSHOT",
    /// A JSON Patch to an activity message's content.
    ActivityDelta = "ACTIVITY_DELTA",
    /// A pass-through event from another system.
    Raw = "RAW",
    /// An application-defined event.
    Custom = "CUSTOM",
}

impl EventType {
    /// True for the three `*_CHUNK` shorthand events, which chunk expansion
    /// turns into START / CONTENT / END events before verification.
    pub const fn is_chunk(self) -> bool {
        matches!(
            self,
            EventType::TextMessageChunk
                | EventType::ToolCallChunk
                | EventType::ReasoningMessageChunk
        )
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
/// the frame was decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Event<'a> {
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
}
