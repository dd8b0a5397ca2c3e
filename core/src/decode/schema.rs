//! The top-level schema of every event type (SPEC section 2), as data.

use super::{Decoder, Field, Kind};
use crate::error::Detail;
use crate::event::EventType;

/// What a field's value must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// A string from `values`; `text` lists them for messages.
    OneOf {
        /// The allowed strings.
        values: &'static [&'static str],
        /// How a message names them.
        text: &'static str,
    },
    /// The strict RUN_FINISHED outcome object, or `null` meaning absent.
    Outcome,
    /// An array of token-usage records.
    Usage,
}

impl Expect {
    fn name(self) -> &'static str {
        match self {
            Expect::Str | Expect::StrOrNull => "a string",
            Expect::Num => "a number",
            Expect::Bool => "a boolean",
            Expect::Obj | Expect::Outcome => "an object",
            Expect::Arr | Expect::Usage => "an array",
            Expect::Any => "any value",
            Expect::OneOf { text, .. } => text,
        }
    }

    fn admits(self, kind: Kind) -> bool {
        match self {
            Expect::Str | Expect::OneOf { .. } => kind == Kind::String,
            Expect::StrOrNull => matches!(kind, Kind::String | Kind::Null),
            Expect::Num => kind == Kind::Number,
            Expect::Bool => kind == Kind::Bool,
            Expect::Obj => kind == Kind::Object,
            Expect::Arr | Expect::Usage => kind == Kind::Array,
            Expect::Any => true,
            Expect::Outcome => matches!(kind, Kind::Object | Kind::Null),
        }
    }
}

/// Required or optional.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    Req,
    Opt,
}

use Expect::*;
use Need::*;

type Spec = &'static [(Field, Need, Expect)];

const TEXT_ROLE: Expect = OneOf {
    values: &["developer", "system", "assistant", "user"],
    text: "one of \"developer\", \"system\", \"assistant\", \"user\"",
};
const TOOL_ROLE: Expect = OneOf {
    values: &["tool"],
    text: "\"tool\"",
};
const REASONING_ROLE: Expect = OneOf {
    values: &["reasoning"],
    text: "\"reasoning\"",
};
const SUBTYPE: Expect = OneOf {
    values: &["tool-call", "message"],
    text: "\"tool-call\" or \"message\"",
};

/// Fields every event may carry.
const COMMON: Spec = &[
    (Field::Timestamp, Opt, Num),
    (Field::RawEvent, Opt, Any),
    (Field::Metadata, Opt, Obj),
];

/// The fields of one event type.
fn spec(kind: EventType) -> Spec {
    use EventType as T;
    match kind {
        T::RunStarted => &[
            (Field::ThreadId, Req, Str),
            (Field::RunId, Req, Str),
            (Field::ParentRunId, Opt, Str),
            (Field::Input, Opt, Obj),
        ],
        T::RunFinished => &[
            (Field::ThreadId, Req, Str),
            (Field::RunId, Req, Str),
            (Field::Result, Opt, Any),
            (Field::Outcome, Opt, Outcome),
            (Field::Usage, Opt, Usage),
        ],
        T::RunError => &[
            (Field::Message, Req, Str),
            (Field::Code, Opt, Str),
            (Field::Usage, Opt, Usage),
        ],
        T::StepStarted | T::StepFinished => &[(Field::StepName, Req, Str)],
        T::TextMessageStart => &[
            (Field::MessageId, Req, Str),
            (Field::Role, Opt, TEXT_ROLE),
            (Field::Name, Opt, Str),
        ],
        T::TextMessageContent => &[(Field::MessageId, Req, Str), (Field::Delta, Req, Str)],
        T::TextMessageEnd | T::ReasoningStart | T::ReasoningEnd | T::ReasoningMessageEnd => {
            &[(Field::MessageId, Req, Str)]
        }
        T::TextMessageChunk => &[
            (Field::MessageId, Opt, Str),
            (Field::Delta, Opt, Str),
            (Field::Name, Opt, Str),
            (Field::Role, Opt, TEXT_ROLE),
        ],
        T::ToolCallStart => &[
            (Field::ToolCallId, Req, Str),
            (Field::ToolCallName, Req, Str),
            (Field::ParentMessageId, Opt, StrOrNull),
        ],
        T::ToolCallArgs => &[(Field::ToolCallId, Req, Str), (Field::Delta, Req, Str)],
        T::ToolCallEnd => &[(Field::ToolCallId, Req, Str)],
        T::ToolCallChunk => &[
            (Field::ToolCallId, Opt, Str),
            (Field::ToolCallName, Opt, Str),
            (Field::Delta, Opt, Str),
            (Field::ParentMessageId, Opt, StrOrNull),
        ],
        T::ToolCallResult => &[
            (Field::MessageId, Req, Str),
            (Field::ToolCallId, Req, Str),
            (Field::Content, Req, Str),
            (Field::Role, Opt, TOOL_ROLE),
        ],
        T::ThinkingStart => &[(Field::Title, Opt, Str)],
        T::ThinkingEnd | T::ThinkingTextMessageStart | T::ThinkingTextMessageEnd => &[],
        T::ThinkingTextMessageContent => &[(Field::Delta, Req, Str)],
        T::ReasoningMessageStart => &[
            (Field::MessageId, Req, Str),
            (Field::Role, Req, REASONING_ROLE),
        ],
        T::ReasoningMessageContent => &[(Field::MessageId, Req, Str), (Field::Delta, Req, Str)],
        T::ReasoningMessageChunk => &[(Field::MessageId, Opt, Str), (Field::Delta, Opt, Str)],
        T::ReasoningEncryptedValue => &[
            (Field::Subtype, Req, SUBTYPE),
            (Field::EntityId, Req, Str),
            (Field::EncryptedValue, Req, Str),
        ],
        T::StateSnapshot => &[(Field::Snapshot, Opt, Any)],
        T::StateDelta => &[(Field::Delta, Req, Arr)],
        T::MessagesSnapshot => &[(Field::Messages, Req, Arr)],
        T::ActivitySnapshot => &[
            (Field::MessageId, Req, Str),
            (Field::ActivityType, Req, Str),
            (Field::Content, Req, Obj),
            (Field::Replace, Opt, Bool),
        ],
        T::ActivityDelta => &[
            (Field::MessageId, Req, Str),
            (Field::ActivityType, Req, Str),
            (Field::Patch, Req, Arr),
        ],
        T::Raw => &[(Field::Event, Opt, Any), (Field::Source, Opt, Str)],
        T::Custom => &[(Field::Name, Req, Str), (Field::Value, Opt, Any)],
    }
}

/// The field holding the id the ordering rules and chunk expansion read.
pub(crate) fn id_field(kind: EventType) -> Option<Field> {
    use EventType as T;
    match kind {
        T::TextMessageStart
        | T::TextMessageContent
        | T::TextMessageEnd
        | T::TextMessageChunk
        | T::ReasoningStart
        | T::ReasoningEnd
        | T::ReasoningMessageStart
        | T::ReasoningMessageContent
        | T::ReasoningMessageEnd
        | T::ReasoningMessageChunk => Some(Field::MessageId),
        T::ToolCallStart | T::ToolCallArgs | T::ToolCallEnd | T::ToolCallChunk => {
            Some(Field::ToolCallId)
        }
        T::StepStarted | T::StepFinished => Some(Field::StepName),
        _ => None,
    }
}

/// The field holding a name the pipeline hands on (`toolCallName`).
pub(crate) fn name_field(kind: EventType) -> Option<Field> {
    matches!(kind, EventType::ToolCallStart | EventType::ToolCallChunk)
        .then_some(Field::ToolCallName)
}

/// Checks the decoded frame against the schema of `kind`.
pub(crate) fn check<const ID: usize, const DEPTH: usize>(
    dec: &Decoder<ID, DEPTH>,
    kind: EventType,
) -> Result<(), Detail> {
    for &(field, need, expect) in spec(kind).iter().chain(COMMON) {
        check_field(dec, field, need, expect)?;
    }
    Ok(())
}

fn check_field<const ID: usize, const DEPTH: usize>(
    dec: &Decoder<ID, DEPTH>,
    field: Field,
    need: Need,
    expect: Expect,
) -> Result<(), Detail> {
    let Some(found) = dec.kind_of(field) else {
        return match need {
            Req if expect != Any => Err(Detail::Missing(field)),
            _ => Ok(()),
        };
    };
    if !expect.admits(found) {
        return Err(Detail::WrongType {
            field,
            expected: expect.name(),
            found,
        });
    }
    if let OneOf { values, .. } = expect {
        let text = dec.enum_text(field).unwrap_or("(a long value)");
        if !values.contains(&text) {
            return Err(Detail::BadValue {
                field,
                expected: expect.name(),
                found: crate::error::error_text(text),
            });
        }
    }
    if matches!(expect, Outcome | Usage) {
        if let Some(what) = dec.nested.error(field) {
            return Err(Detail::Nested { field, what });
        }
    }
    Ok(())
}
