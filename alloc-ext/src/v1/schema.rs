//! The AG-UI 1.0 schema as the alloc layer walks it (SPEC section 9.5).
//!
//! The event types and their top-level fields are the core's: an event's
//! [`ObjectShape`] is made by [`event_fields`] from
//! [`EventType::schema_v1`] (the `v1:` column of the core's event table),
//! with keys from [`Field::as_str`], after the fields every event may
//! carry ([`BASE`]) and, for a [tagged](EventType::tagged) type,
//! `subagentRunId`. A type is known in 1.0 when
//! [`EventType::is_in`]`(Protocol::V1)`.
//!
//! The nested objects (run input, messages, content parts, JSON Patch
//! operations, outcomes, token usage) are tables here, in the reference
//! schema's key order: the validator reports its issues in that order, as
//! the reference does, and words them as the reference does. The core
//! checks the same objects as their tokens stream past, in tables shaped for
//! that (`agui_core::decode`'s shapes); that the two agree is tested over
//! every [`EventType::ALL`] (`alloc-ext/tests/v1_agreement.rs`).
//!
//! Every object is one [`ObjectShape`]: the list of its keys, each a
//! [`FieldShape`] saying whether the key is required and what [`Shape`] its
//! value has. The positions that hold free JSON are the shapes
//! [`Shape::Json`], [`Shape::JsonNotNull`] and [`Shape::JsonObject`];
//! discriminated unions are [`Union`]s, whose members are objects whose tag
//! field is a [`Shape::Literal`].

use alloc::vec::Vec;

use agui_core::decode::{Expect, Field, Need};
use agui_core::event::EventType;
use agui_core::protocol::Protocol;

/// The kind of value a described position holds.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// A string.
    String,
    /// A string that is an RFC 6901 JSON Pointer: `""` or `/`-separated
    /// segments in which `~` is always followed by `0` or `1`.
    Pointer,
    /// Exactly this string.
    Literal(&'static str),
    /// One of these strings (a closed enumeration, not a union: another
    /// value is a decode error, never stripped).
    OneOf(&'static [&'static str]),
    /// `true` or `false`.
    Boolean,
    /// An integer (a number whose double value is integral) in this range.
    Integer(Range),
    /// Free JSON, `null` included: never stripped inside.
    Json,
    /// Free JSON except `null`: never stripped inside.
    JsonNotNull,
    /// A free JSON object (any keys, any values): never stripped inside.
    JsonObject,
    /// A described object.
    Object(&'static ObjectShape<'static>),
    /// An array of elements of one shape, with at least `min` elements.
    Array {
        /// The shape of every element.
        of: &'static Shape,
        /// The fewest elements allowed.
        min: usize,
    },
    /// A discriminated union: an object whose tag names its member.
    Union(&'static Union),
    /// A string, or an array of elements of this shape (a structural union:
    /// its tag is the JSON kind).
    StringOr(&'static Shape),
}

/// The range of an [`Shape::Integer`], both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Range {
    /// `[-(2^53-1), 2^53-1]`: timestamps.
    Signed,
    /// `[0, 2^53-1]`: token counts.
    Count,
}

/// `2^53 - 1`, the largest integer a double holds exactly with its neighbours.
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

impl Range {
    /// The smallest value allowed.
    pub fn min(self) -> f64 {
        match self {
            Range::Signed => -MAX_SAFE_INTEGER,
            Range::Count => 0.0,
        }
    }
}

/// Whether a key must be present.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// Absent is a decode error. A value removed from a required field by
    /// stripping removes the containing object (the cascade of SPEC 9.4).
    Required,
    /// Absent is fine; a removed value simply leaves the key absent.
    Optional,
    /// Absent means an empty array, and the validated event says so: the
    /// key is added as `[]` (`RunAgentInput.tools` and `.context`).
    EmptyIfAbsent,
    /// Absent is fine, and `null` means absent: the validated event loses
    /// the key (`RunAgentInput.state`).
    NullIsAbsent,
}

/// One key of a described object.
#[derive(Debug, Clone, Copy)]
pub struct FieldShape {
    /// The key, as on the wire.
    pub name: &'static str,
    /// What its value must be.
    pub shape: Shape,
    /// Whether it must be present.
    pub presence: Presence,
}

/// An object the protocol describes (`'s`: where its keys are held;
/// `'static` but for an event's, made by [`event_fields`]).
#[derive(Debug, Clone, Copy)]
pub struct ObjectShape<'s> {
    /// Its name in the schema (for diagnostics).
    pub name: &'static str,
    /// Its keys, in groups read one after another, in the schema's order.
    pub groups: &'s [&'s [FieldShape]],
    /// Whether keys it does not describe are kept (`true` only for JSON
    /// Patch operations, which RFC 6902 leaves open) or stripped.
    pub open: bool,
}

impl<'s> ObjectShape<'s> {
    /// The field named `key`, if the object describes it.
    pub fn field(&self, key: &str) -> Option<&'s FieldShape> {
        let groups: &'s [&'s [FieldShape]] = self.groups;
        for group in groups {
            for f in group.iter() {
                if f.name == key {
                    return Some(f);
                }
            }
        }
        None
    }

    /// Every field, in the schema's order.
    pub fn fields(&self) -> impl Iterator<Item = &'s FieldShape> + use<'s> {
        let groups: &'s [&'s [FieldShape]] = self.groups;
        groups.iter().flat_map(|g| g.iter())
    }

    /// The value of the literal field `key` (a union member's tag).
    pub fn literal(&self, key: &str) -> Option<&'static str> {
        match self.field(key).map(|f| f.shape) {
            Some(Shape::Literal(v)) => Some(v),
            _ => None,
        }
    }
}

/// A discriminated union: which member an object is depends on its `tag`.
#[derive(Debug, Clone, Copy)]
pub struct Union {
    /// Its name in the schema (for diagnostics).
    pub name: &'static str,
    /// The key whose value picks the member.
    pub tag: &'static str,
    /// The members; each has a [`Shape::Literal`] field named `tag`.
    pub members: &'static [&'static ObjectShape<'static>],
}

impl Union {
    /// The member whose tag is `value`, if any.
    pub fn member(&self, value: &str) -> Option<&'static ObjectShape<'static>> {
        let members: &'static [&'static ObjectShape<'static>] = self.members;
        members
            .iter()
            .copied()
            .find(|m| m.literal(self.tag) == Some(value))
    }
}

const fn req(name: &'static str, shape: Shape) -> FieldShape {
    FieldShape {
        name,
        shape,
        presence: Presence::Required,
    }
}

const fn opt(name: &'static str, shape: Shape) -> FieldShape {
    FieldShape {
        name,
        shape,
        presence: Presence::Optional,
    }
}

const fn object(
    name: &'static str,
    groups: &'static [&'static [FieldShape]],
) -> ObjectShape<'static> {
    ObjectShape {
        name,
        groups,
        open: false,
    }
}

const fn array(of: &'static Shape) -> Shape {
    Shape::Array { of, min: 0 }
}

// ---------------------------------------------------------------- content

const TEXT_PART: ObjectShape = object(
    "TextPart",
    &[&[
        req("type", Shape::Literal("text")),
        opt("id", Shape::String),
        req("text", Shape::String),
        opt("metadata", Shape::JsonNotNull),
    ]],
);

const DATA_SOURCE: ObjectShape = object(
    "DataSource",
    &[&[
        req("type", Shape::Literal("data")),
        req("value", Shape::String),
        req("mimeType", Shape::String),
    ]],
);

const URL_SOURCE: ObjectShape = object(
    "UrlSource",
    &[&[
        req("type", Shape::Literal("url")),
        req("value", Shape::String),
        opt("mimeType", Shape::String),
    ]],
);

const FILE_SOURCE: ObjectShape = object(
    "FileSource",
    &[&[
        req("type", Shape::Literal("file")),
        req("value", Shape::String),
        opt("provider", Shape::String),
        opt("mimeType", Shape::String),
    ]],
);

/// Where a media part's bytes come from.
pub const SOURCE: Union = Union {
    name: "Source",
    tag: "type",
    members: &[&DATA_SOURCE, &URL_SOURCE, &FILE_SOURCE],
};

const MEDIA_TAIL: &[FieldShape] = &[
    opt("id", Shape::String),
    req("source", Shape::Union(&SOURCE)),
    opt("metadata", Shape::JsonNotNull),
];

const IMAGE_PART: ObjectShape = object(
    "ImagePart",
    &[&[req("type", Shape::Literal("image"))], MEDIA_TAIL],
);
const AUDIO_PART: ObjectShape = object(
    "AudioPart",
    &[&[req("type", Shape::Literal("audio"))], MEDIA_TAIL],
);
const VIDEO_PART: ObjectShape = object(
    "VideoPart",
    &[&[req("type", Shape::Literal("video"))], MEDIA_TAIL],
);
const DOCUMENT_PART: ObjectShape = object(
    "DocumentPart",
    &[&[req("type", Shape::Literal("document"))], MEDIA_TAIL],
);

/// One part of a user or tool message body, or of a tool result.
pub const CONTENT_PART: Union = Union {
    name: "ContentPart",
    tag: "type",
    members: &[
        &TEXT_PART,
        &IMAGE_PART,
        &AUDIO_PART,
        &VIDEO_PART,
        &DOCUMENT_PART,
    ],
};

const PARTS: Shape = Shape::Union(&CONTENT_PART);

// ------------------------------------------------------------------ patch

const POINTER_PATH: FieldShape = req("path", Shape::Pointer);
const POINTER_FROM: FieldShape = req("from", Shape::Pointer);
const PATCH_VALUE: FieldShape = req("value", Shape::Json);

const fn patch_op(
    name: &'static str,
    fields: &'static [&'static [FieldShape]],
) -> ObjectShape<'static> {
    ObjectShape {
        name,
        groups: fields,
        open: true,
    }
}

const ADD_OP: ObjectShape = patch_op(
    "AddOperation",
    &[&[req("op", Shape::Literal("add")), POINTER_PATH, PATCH_VALUE]],
);
const REMOVE_OP: ObjectShape = patch_op(
    "RemoveOperation",
    &[&[req("op", Shape::Literal("remove")), POINTER_PATH]],
);
const REPLACE_OP: ObjectShape = patch_op(
    "ReplaceOperation",
    &[&[
        req("op", Shape::Literal("replace")),
        POINTER_PATH,
        PATCH_VALUE,
    ]],
);
const MOVE_OP: ObjectShape = patch_op(
    "MoveOperation",
    &[&[
        req("op", Shape::Literal("move")),
        POINTER_FROM,
        POINTER_PATH,
    ]],
);
const COPY_OP: ObjectShape = patch_op(
    "CopyOperation",
    &[&[
        req("op", Shape::Literal("copy")),
        POINTER_FROM,
        POINTER_PATH,
    ]],
);
const TEST_OP: ObjectShape = patch_op(
    "TestOperation",
    &[&[req("op", Shape::Literal("test")), POINTER_PATH, PATCH_VALUE]],
);

/// One RFC 6902 operation (open: unknown keys are kept).
pub const PATCH_OP: Union = Union {
    name: "JsonPatchOperation",
    tag: "op",
    members: &[
        &ADD_OP,
        &REMOVE_OP,
        &REPLACE_OP,
        &MOVE_OP,
        &COPY_OP,
        &TEST_OP,
    ],
};

const PATCH: Shape = array(&Shape::Union(&PATCH_OP));

// --------------------------------------------------------------- messages

const OWNER: FieldShape = opt("subagentRunId", Shape::String);

const FUNCTION_CALL: ObjectShape = object(
    "FunctionCall",
    &[&[req("name", Shape::String), req("arguments", Shape::String)]],
);

const TOOL_CALL: ObjectShape = object(
    "ToolCall",
    &[&[
        req("id", Shape::String),
        req("type", Shape::Literal("function")),
        req("function", Shape::Object(&FUNCTION_CALL)),
        opt("encryptedValue", Shape::String),
        opt("metadata", Shape::JsonObject),
    ]],
);

/// The keys the developer, system, assistant and user messages share, in
/// order, after their role.
const NAMED_MESSAGE: &[FieldShape] = &[
    opt("name", Shape::String),
    opt("encryptedValue", Shape::String),
    opt("metadata", Shape::JsonObject),
];

const DEVELOPER_MESSAGE: ObjectShape = object(
    "DeveloperMessage",
    &[
        &[
            OWNER,
            req("id", Shape::String),
            req("role", Shape::Literal("developer")),
        ],
        NAMED_MESSAGE,
        &[req("content", Shape::String)],
    ],
);

const SYSTEM_MESSAGE: ObjectShape = object(
    "SystemMessage",
    &[
        &[
            OWNER,
            req("id", Shape::String),
            req("role", Shape::Literal("system")),
        ],
        NAMED_MESSAGE,
        &[req("content", Shape::String)],
    ],
);

const ASSISTANT_MESSAGE: ObjectShape = object(
    "AssistantMessage",
    &[
        &[
            OWNER,
            req("id", Shape::String),
            req("role", Shape::Literal("assistant")),
        ],
        NAMED_MESSAGE,
        &[
            opt("content", Shape::String),
            opt("toolCalls", array(&Shape::Object(&TOOL_CALL))),
        ],
    ],
);

const USER_MESSAGE: ObjectShape = object(
    "UserMessage",
    &[
        &[
            OWNER,
            req("id", Shape::String),
            req("role", Shape::Literal("user")),
        ],
        NAMED_MESSAGE,
        &[req("content", Shape::StringOr(&PARTS))],
    ],
);

const TOOL_MESSAGE: ObjectShape = object(
    "ToolMessage",
    &[&[
        OWNER,
        req("id", Shape::String),
        req("role", Shape::Literal("tool")),
        req("content", Shape::StringOr(&PARTS)),
        req("toolCallId", Shape::String),
        opt("error", Shape::String),
        opt("encryptedValue", Shape::String),
        opt("metadata", Shape::JsonObject),
    ]],
);

const ACTIVITY_MESSAGE: ObjectShape = object(
    "ActivityMessage",
    &[&[
        OWNER,
        req("id", Shape::String),
        req("role", Shape::Literal("activity")),
        req("activityType", Shape::String),
        req("content", Shape::JsonObject),
        opt("metadata", Shape::JsonObject),
    ]],
);

const REASONING_MESSAGE: ObjectShape = object(
    "ReasoningMessage",
    &[&[
        OWNER,
        req("id", Shape::String),
        req("role", Shape::Literal("reasoning")),
        req("content", Shape::String),
        opt("encryptedValue", Shape::String),
        opt("metadata", Shape::JsonObject),
    ]],
);

/// A message of a conversation, by role.
pub const MESSAGE: Union = Union {
    name: "Message",
    tag: "role",
    members: &[
        &DEVELOPER_MESSAGE,
        &SYSTEM_MESSAGE,
        &ASSISTANT_MESSAGE,
        &USER_MESSAGE,
        &TOOL_MESSAGE,
        &ACTIVITY_MESSAGE,
        &REASONING_MESSAGE,
    ],
};

const MESSAGES: Shape = array(&Shape::Union(&MESSAGE));

// -------------------------------------------------------------- run input

const TOOL: ObjectShape = object(
    "Tool",
    &[&[
        req("name", Shape::String),
        req("description", Shape::String),
        opt("parameters", Shape::JsonNotNull),
        opt("metadata", Shape::JsonObject),
    ]],
);

const CONTEXT: ObjectShape = object(
    "Context",
    &[&[
        req("description", Shape::String),
        req("value", Shape::String),
    ]],
);

const RESUME_ENTRY: ObjectShape = object(
    "ResumeEntry",
    &[&[
        req("interruptId", Shape::String),
        req("status", Shape::OneOf(&["resolved", "cancelled"])),
        opt("payload", Shape::JsonNotNull),
        opt("metadata", Shape::JsonObject),
    ]],
);

/// The run input (`RUN_STARTED.input`).
pub const RUN_AGENT_INPUT: ObjectShape = object(
    "RunAgentInput",
    &[&[
        req("threadId", Shape::String),
        req("runId", Shape::String),
        opt("protocolVersion", Shape::String),
        opt("parentRunId", Shape::String),
        FieldShape {
            name: "state",
            shape: Shape::Json,
            presence: Presence::NullIsAbsent,
        },
        req("messages", MESSAGES),
        FieldShape {
            name: "tools",
            shape: array(&Shape::Object(&TOOL)),
            presence: Presence::EmptyIfAbsent,
        },
        FieldShape {
            name: "context",
            shape: array(&Shape::Object(&CONTEXT)),
            presence: Presence::EmptyIfAbsent,
        },
        opt("forwardedProps", Shape::JsonNotNull),
        opt("resume", array(&Shape::Object(&RESUME_ENTRY))),
    ]],
);

// ---------------------------------------------------------------- outcome

const INTERRUPT: ObjectShape = object(
    "Interrupt",
    &[&[
        OWNER,
        req("id", Shape::String),
        req("reason", Shape::String),
        opt("message", Shape::String),
        opt("toolCallId", Shape::String),
        opt("responseSchema", Shape::JsonObject),
        opt("expiresAt", Shape::String),
        opt("metadata", Shape::JsonObject),
    ]],
);

const STRINGS: Shape = array(&Shape::String);

const RUN_SUCCESS: ObjectShape = object(
    "RunFinishedSuccessOutcome",
    &[&[
        req("type", Shape::Literal("success")),
        opt("pendingToolCallIds", STRINGS),
    ]],
);

const RUN_INTERRUPT: ObjectShape = object(
    "RunFinishedInterruptOutcome",
    &[&[
        req("type", Shape::Literal("interrupt")),
        req(
            "interrupts",
            Shape::Array {
                of: &Shape::Object(&INTERRUPT),
                min: 1,
            },
        ),
    ]],
);

const RUN_CANCELLED: ObjectShape = object(
    "RunFinishedCancelledOutcome",
    &[&[req("type", Shape::Literal("cancelled"))]],
);

/// Why a run ended.
pub const RUN_OUTCOME: Union = Union {
    name: "RunFinishedOutcome",
    tag: "type",
    members: &[&RUN_SUCCESS, &RUN_INTERRUPT, &RUN_CANCELLED],
};

const SUBAGENT_SUCCESS: ObjectShape = object(
    "SubagentFinishedSuccessOutcome",
    &[&[req("type", Shape::Literal("success"))]],
);

const SUBAGENT_SUSPENDED: ObjectShape = object(
    "SubagentFinishedSuspendedOutcome",
    &[&[
        req("type", Shape::Literal("suspended")),
        opt("interruptIds", STRINGS),
    ]],
);

/// Why a sub-agent's segment of a run ended.
pub const SUBAGENT_OUTCOME: Union = Union {
    name: "SubagentFinishedOutcome",
    tag: "type",
    members: &[&SUBAGENT_SUCCESS, &SUBAGENT_SUSPENDED],
};

const COUNT: Shape = Shape::Integer(Range::Count);

const TOKEN_USAGE: ObjectShape = object(
    "TokenUsage",
    &[&[
        opt("provider", Shape::String),
        opt("model", Shape::String),
        opt("inputTokens", COUNT),
        opt("outputTokens", COUNT),
        opt("totalTokens", COUNT),
        opt("reasoningTokens", COUNT),
        opt("cachedInputTokens", COUNT),
        opt("cacheWriteInputTokens", COUNT),
    ]],
);

const USAGE: Shape = array(&Shape::Object(&TOKEN_USAGE));

// ----------------------------------------------------------------- events

/// The keys every 1.0 event has, first, in the reference's order (the
/// core's are `type` and its `COMMON_V1` row; `rawEvent: null` is a legacy
/// null the boundary made absent).
pub const BASE: &[FieldShape] = &[
    req("type", Shape::String),
    opt("timestamp", Shape::Integer(Range::Signed)),
    opt("rawEvent", Shape::JsonNotNull),
    opt("metadata", Shape::JsonObject),
];

/// Attribution: the events of a sub-agent's work may carry its id.
const OWNER_FIELD: FieldShape = OWNER;

/// The 1.0 event type named `name`: `None` for a type 1.0 does not know
/// (an unknown name, or a type retired in 1.0).
pub fn event_type(name: &str) -> Option<EventType> {
    EventType::from_wire(name).filter(|kind| kind.is_in(Protocol::V1))
}

/// Every key of a 1.0 event of type `kind`, in the schema's order:
/// [`BASE`], `subagentRunId` if the type is [tagged](EventType::tagged)
/// (optional, unless the type's own fields require it), then the type's
/// own fields, the core's [`EventType::schema_v1`].
pub fn event_fields(kind: EventType, out: &mut Vec<FieldShape>) {
    out.clear();
    out.extend_from_slice(BASE);
    let own = kind.schema_v1();
    if kind.tagged() && !own.iter().any(|(f, _, _)| *f == Field::SubagentRunId) {
        out.push(OWNER_FIELD);
    }
    out.extend(own.iter().map(|&(field, need, expect)| FieldShape {
        name: field.as_str(),
        shape: shape_of(field, expect),
        presence: match need {
            Need::Req => Presence::Required,
            Need::Opt => Presence::Optional,
        },
    }));
}

/// The shape the core's `expect` means for a top-level `field` in 1.0: the
/// kinds map one to one, the nested ones to the tables above.
fn shape_of(field: Field, expect: Expect) -> Shape {
    match expect {
        Expect::Str | Expect::StrOrNull => Shape::String,
        Expect::OneOf { values: [one] } => Shape::Literal(one),
        Expect::OneOf { values } => Shape::OneOf(values),
        Expect::Bool => Shape::Boolean,
        Expect::Obj => Shape::JsonObject,
        Expect::Arr if field == Field::Messages => MESSAGES,
        Expect::Arr => array(&Shape::Json),
        // A legacy `null` of the field was made absent by the boundary.
        Expect::Any => Shape::JsonNotNull,
        Expect::Json => Shape::Json,
        Expect::Num | Expect::Int => Shape::Integer(Range::Signed),
        Expect::Parts => Shape::StringOr(&PARTS),
        Expect::Patch => PATCH,
        Expect::Input => Shape::Object(&RUN_AGENT_INPUT),
        Expect::Outcome | Expect::OutcomeV1 => Shape::Union(&RUN_OUTCOME),
        Expect::Usage | Expect::UsageV1 => USAGE,
        Expect::SubagentOutcome => Shape::Union(&SUBAGENT_OUTCOME),
    }
}

#[cfg(test)]
mod tests;
