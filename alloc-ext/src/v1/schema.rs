//! The AG-UI 1.0 schema as tables (SPEC section 9.5).
//!
//! Every object the protocol describes is one [`Object`]: the list of its
//! keys, each a [`Field`] saying whether the key is required and what
//! [`Shape`] its value has. The positions that hold free JSON are the shapes
//! [`Shape::Json`], [`Shape::JsonNotNull`] and [`Shape::JsonObject`];
//! discriminated unions are [`Union`]s, whose members are objects whose tag
//! field is a [`Shape::Literal`]. The event types are [`EVENTS`], one row
//! per type.
//!
//! The stripper and the validator of [`Inbound`](super::Inbound) read only these
//! tables: adding a key to the protocol is adding a row here.
//!
//! The order of the fields is the schema's own order: the validator reports
//! its issues in that order, as the reference does.

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
    Object(&'static Object),
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
pub struct Field {
    /// The key, as on the wire.
    pub name: &'static str,
    /// What its value must be.
    pub shape: Shape,
    /// Whether it must be present.
    pub presence: Presence,
}

/// An object the protocol describes.
#[derive(Debug, Clone, Copy)]
pub struct Object {
    /// Its name in the schema (for diagnostics).
    pub name: &'static str,
    /// Its keys, in groups read one after another (events share the base
    /// group), in the schema's order.
    pub groups: &'static [&'static [Field]],
    /// Whether keys it does not describe are kept (`true` only for JSON
    /// Patch operations, which RFC 6902 leaves open) or stripped.
    pub open: bool,
}

impl Object {
    /// The field named `key`, if the object describes it.
    pub fn field(&self, key: &str) -> Option<&'static Field> {
        let groups: &'static [&'static [Field]] = self.groups;
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
    pub fn fields(&self) -> impl Iterator<Item = &'static Field> {
        let groups: &'static [&'static [Field]] = self.groups;
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
    pub members: &'static [&'static Object],
}

impl Union {
    /// The member whose tag is `value`, if any.
    pub fn member(&self, value: &str) -> Option<&'static Object> {
        let members: &'static [&'static Object] = self.members;
        members
            .iter()
            .copied()
            .find(|m| m.literal(self.tag) == Some(value))
    }
}

const fn req(name: &'static str, shape: Shape) -> Field {
    Field {
        name,
        shape,
        presence: Presence::Required,
    }
}

const fn opt(name: &'static str, shape: Shape) -> Field {
    Field {
        name,
        shape,
        presence: Presence::Optional,
    }
}

const fn object(name: &'static str, groups: &'static [&'static [Field]]) -> Object {
    Object {
        name,
        groups,
        open: false,
    }
}

const fn array(of: &'static Shape) -> Shape {
    Shape::Array { of, min: 0 }
}

// ---------------------------------------------------------------- content

const TEXT_PART: Object = object(
    "TextPart",
    &[&[
        req("type", Shape::Literal("text")),
        opt("id", Shape::String),
        req("text", Shape::String),
        opt("metadata", Shape::JsonNotNull),
    ]],
);

const DATA_SOURCE: Object = object(
    "DataSource",
    &[&[
        req("type", Shape::Literal("data")),
        req("value", Shape::String),
        req("mimeType", Shape::String),
    ]],
);

const URL_SOURCE: Object = object(
    "UrlSource",
    &[&[
        req("type", Shape::Literal("url")),
        req("value", Shape::String),
        opt("mimeType", Shape::String),
    ]],
);

const FILE_SOURCE: Object = object(
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

const MEDIA_TAIL: &[Field] = &[
    opt("id", Shape::String),
    req("source", Shape::Union(&SOURCE)),
    opt("metadata", Shape::JsonNotNull),
];

const IMAGE_PART: Object = object(
    "ImagePart",
    &[&[req("type", Shape::Literal("image"))], MEDIA_TAIL],
);
const AUDIO_PART: Object = object(
    "AudioPart",
    &[&[req("type", Shape::Literal("audio"))], MEDIA_TAIL],
);
const VIDEO_PART: Object = object(
    "VideoPart",
    &[&[req("type", Shape::Literal("video"))], MEDIA_TAIL],
);
const DOCUMENT_PART: Object = object(
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

const POINTER_PATH: Field = req("path", Shape::Pointer);
const POINTER_FROM: Field = req("from", Shape::Pointer);
const PATCH_VALUE: Field = req("value", Shape::Json);

const fn patch_op(name: &'static str, fields: &'static [&'static [Field]]) -> Object {
    Object {
        name,
        groups: fields,
        open: true,
    }
}

const ADD_OP: Object = patch_op(
    "AddOperation",
    &[&[req("op", Shape::Literal("add")), POINTER_PATH, PATCH_VALUE]],
);
const REMOVE_OP: Object = patch_op(
    "RemoveOperation",
    &[&[req("op", Shape::Literal("remove")), POINTER_PATH]],
);
const REPLACE_OP: Object = patch_op(
    "ReplaceOperation",
    &[&[
        req("op", Shape::Literal("replace")),
        POINTER_PATH,
        PATCH_VALUE,
    ]],
);
const MOVE_OP: Object = patch_op(
    "MoveOperation",
    &[&[
        req("op", Shape::Literal("move")),
        POINTER_FROM,
        POINTER_PATH,
    ]],
);
const COPY_OP: Object = patch_op(
    "CopyOperation",
    &[&[
        req("op", Shape::Literal("copy")),
        POINTER_FROM,
        POINTER_PATH,
    ]],
);
const TEST_OP: Object = patch_op(
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

const OWNER: Field = opt("subagentRunId", Shape::String);

const FUNCTION_CALL: Object = object(
    "FunctionCall",
    &[&[req("name", Shape::String), req("arguments", Shape::String)]],
);

const TOOL_CALL: Object = object(
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
const NAMED_MESSAGE: &[Field] = &[
    opt("name", Shape::String),
    opt("encryptedValue", Shape::String),
    opt("metadata", Shape::JsonObject),
];

const DEVELOPER_MESSAGE: Object = object(
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

const SYSTEM_MESSAGE: Object = object(
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

const ASSISTANT_MESSAGE: Object = object(
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

const USER_MESSAGE: Object = object(
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

const TOOL_MESSAGE: Object = object(
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

const ACTIVITY_MESSAGE: Object = object(
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

const REASONING_MESSAGE: Object = object(
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

const TOOL: Object = object(
    "Tool",
    &[&[
        req("name", Shape::String),
        req("description", Shape::String),
        opt("parameters", Shape::JsonNotNull),
        opt("metadata", Shape::JsonObject),
    ]],
);

const CONTEXT: Object = object(
    "Context",
    &[&[
        req("description", Shape::String),
        req("value", Shape::String),
    ]],
);

const RESUME_ENTRY: Object = object(
    "ResumeEntry",
    &[&[
        req("interruptId", Shape::String),
        req("status", Shape::OneOf(&["resolved", "cancelled"])),
        opt("payload", Shape::JsonNotNull),
        opt("metadata", Shape::JsonObject),
    ]],
);

/// The run input (`RUN_STARTED.input`).
pub const RUN_AGENT_INPUT: Object = object(
    "RunAgentInput",
    &[&[
        req("threadId", Shape::String),
        req("runId", Shape::String),
        opt("protocolVersion", Shape::String),
        opt("parentRunId", Shape::String),
        Field {
            name: "state",
            shape: Shape::Json,
            presence: Presence::NullIsAbsent,
        },
        req("messages", MESSAGES),
        Field {
            name: "tools",
            shape: array(&Shape::Object(&TOOL)),
            presence: Presence::EmptyIfAbsent,
        },
        Field {
            name: "context",
            shape: array(&Shape::Object(&CONTEXT)),
            presence: Presence::EmptyIfAbsent,
        },
        opt("forwardedProps", Shape::JsonNotNull),
        opt("resume", array(&Shape::Object(&RESUME_ENTRY))),
    ]],
);

// ---------------------------------------------------------------- outcome

const INTERRUPT: Object = object(
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

const RUN_SUCCESS: Object = object(
    "RunFinishedSuccessOutcome",
    &[&[
        req("type", Shape::Literal("success")),
        opt("pendingToolCallIds", STRINGS),
    ]],
);

const RUN_INTERRUPT: Object = object(
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

const RUN_CANCELLED: Object = object(
    "RunFinishedCancelledOutcome",
    &[&[req("type", Shape::Literal("cancelled"))]],
);

/// Why a run ended.
pub const RUN_OUTCOME: Union = Union {
    name: "RunFinishedOutcome",
    tag: "type",
    members: &[&RUN_SUCCESS, &RUN_INTERRUPT, &RUN_CANCELLED],
};

const SUBAGENT_SUCCESS: Object = object(
    "SubagentFinishedSuccessOutcome",
    &[&[req("type", Shape::Literal("success"))]],
);

const SUBAGENT_SUSPENDED: Object = object(
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

const TOKEN_USAGE: Object = object(
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

/// The keys every event has, first, in order.
const BASE: &[Field] = &[
    req("type", Shape::String),
    opt("timestamp", Shape::Integer(Range::Signed)),
    opt("rawEvent", Shape::JsonNotNull),
    opt("metadata", Shape::JsonObject),
];

/// Attribution: the events of a sub-agent's work may carry its id.
const ATTRIBUTED: &[Field] = &[OWNER];

/// The `SUBAGENT_*` events name their invocation: required.
const INVOCATION: &[Field] = &[req("subagentRunId", Shape::String)];

/// How an event type relates to `subagentRunId`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attribution {
    /// Run-scoped (`RUN_*`, `MESSAGES_SNAPSHOT`): the key is not described.
    RunScoped,
    /// Optional: the sub-agent the event belongs to, absent = the parent.
    Attributable,
    /// Required: the event names a sub-agent invocation (`SUBAGENT_*`).
    Invocation,
}

impl Attribution {
    const fn group(self) -> &'static [Field] {
        match self {
            Attribution::RunScoped => &[],
            Attribution::Attributable => ATTRIBUTED,
            Attribution::Invocation => INVOCATION,
        }
    }
}

/// One event type of AG-UI 1.0.
#[derive(Debug, Clone, Copy)]
pub struct EventSchema {
    /// Its `type`.
    pub name: &'static str,
    /// Its relation to `subagentRunId`.
    pub attribution: Attribution,
    /// The whole object: base keys, attribution, then its own keys.
    pub object: Object,
}

const fn event(
    name: &'static str,
    attribution: Attribution,
    groups: &'static [&'static [Field]],
) -> EventSchema {
    EventSchema {
        name,
        attribution,
        object: object(name, groups),
    }
}

use Attribution::{Attributable as A, Invocation as I, RunScoped as R};

const TEXT_ROLE: Shape = Shape::OneOf(&["developer", "system", "assistant", "user"]);
const MESSAGE_ID: Field = req("messageId", Shape::String);
const TOOL_CALL_ID: Field = req("toolCallId", Shape::String);
const DELTA: Field = req("delta", Shape::String);

/// Every event type of AG-UI 1.0 (SPEC 9.5); a type not here is unknown.
pub const EVENTS: &[EventSchema] = &[
    event(
        "TEXT_MESSAGE_START",
        A,
        &[
            BASE,
            A.group(),
            &[
                MESSAGE_ID,
                opt("role", TEXT_ROLE),
                opt("name", Shape::String),
            ],
        ],
    ),
    event(
        "TEXT_MESSAGE_CONTENT",
        A,
        &[BASE, A.group(), &[MESSAGE_ID, DELTA]],
    ),
    event("TEXT_MESSAGE_END", A, &[BASE, A.group(), &[MESSAGE_ID]]),
    event(
        "TEXT_MESSAGE_CHUNK",
        A,
        &[
            BASE,
            A.group(),
            &[
                opt("messageId", Shape::String),
                opt("role", TEXT_ROLE),
                opt("delta", Shape::String),
                opt("name", Shape::String),
            ],
        ],
    ),
    event(
        "TOOL_CALL_START",
        A,
        &[
            BASE,
            A.group(),
            &[
                TOOL_CALL_ID,
                req("toolCallName", Shape::String),
                opt("parentMessageId", Shape::String),
            ],
        ],
    ),
    event(
        "TOOL_CALL_ARGS",
        A,
        &[BASE, A.group(), &[TOOL_CALL_ID, DELTA]],
    ),
    event("TOOL_CALL_END", A, &[BASE, A.group(), &[TOOL_CALL_ID]]),
    event(
        "TOOL_CALL_CHUNK",
        A,
        &[
            BASE,
            A.group(),
            &[
                opt("toolCallId", Shape::String),
                opt("toolCallName", Shape::String),
                opt("parentMessageId", Shape::String),
                opt("delta", Shape::String),
            ],
        ],
    ),
    event(
        "TOOL_CALL_RESULT",
        A,
        &[
            BASE,
            A.group(),
            &[
                MESSAGE_ID,
                TOOL_CALL_ID,
                req("content", Shape::StringOr(&PARTS)),
                opt("role", Shape::Literal("tool")),
            ],
        ],
    ),
    event(
        "STATE_SNAPSHOT",
        A,
        &[BASE, A.group(), &[req("snapshot", Shape::Json)]],
    ),
    event("STATE_DELTA", A, &[BASE, A.group(), &[req("delta", PATCH)]]),
    event(
        "MESSAGES_SNAPSHOT",
        R,
        &[BASE, R.group(), &[req("messages", MESSAGES)]],
    ),
    event(
        "ACTIVITY_SNAPSHOT",
        A,
        &[
            BASE,
            A.group(),
            &[
                MESSAGE_ID,
                req("activityType", Shape::String),
                req("content", Shape::JsonObject),
                opt("replace", Shape::Boolean),
            ],
        ],
    ),
    event(
        "ACTIVITY_DELTA",
        A,
        &[
            BASE,
            A.group(),
            &[
                MESSAGE_ID,
                req("activityType", Shape::String),
                req("patch", PATCH),
            ],
        ],
    ),
    event(
        "RAW",
        A,
        &[
            BASE,
            A.group(),
            &[req("event", Shape::Json), opt("source", Shape::String)],
        ],
    ),
    event(
        "CUSTOM",
        A,
        &[
            BASE,
            A.group(),
            &[req("name", Shape::String), req("value", Shape::Json)],
        ],
    ),
    event(
        "RUN_STARTED",
        R,
        &[
            BASE,
            R.group(),
            &[
                req("threadId", Shape::String),
                req("runId", Shape::String),
                opt("protocolVersion", Shape::String),
                opt("parentRunId", Shape::String),
                opt("input", Shape::Object(&RUN_AGENT_INPUT)),
            ],
        ],
    ),
    event(
        "RUN_FINISHED",
        R,
        &[
            BASE,
            R.group(),
            &[
                req("threadId", Shape::String),
                req("runId", Shape::String),
                opt("result", Shape::JsonNotNull),
                opt("outcome", Shape::Union(&RUN_OUTCOME)),
                opt("usage", USAGE),
            ],
        ],
    ),
    event(
        "RUN_ERROR",
        R,
        &[
            BASE,
            R.group(),
            &[
                req("message", Shape::String),
                opt("code", Shape::String),
                opt("usage", USAGE),
            ],
        ],
    ),
    event(
        "STEP_STARTED",
        A,
        &[BASE, A.group(), &[req("stepName", Shape::String)]],
    ),
    event(
        "STEP_FINISHED",
        A,
        &[BASE, A.group(), &[req("stepName", Shape::String)]],
    ),
    event("REASONING_START", A, &[BASE, A.group(), &[MESSAGE_ID]]),
    event(
        "REASONING_MESSAGE_START",
        A,
        &[
            BASE,
            A.group(),
            &[MESSAGE_ID, req("role", Shape::Literal("reasoning"))],
        ],
    ),
    event(
        "REASONING_MESSAGE_CONTENT",
        A,
        &[BASE, A.group(), &[MESSAGE_ID, DELTA]],
    ),
    event(
        "REASONING_MESSAGE_END",
        A,
        &[BASE, A.group(), &[MESSAGE_ID]],
    ),
    event(
        "REASONING_MESSAGE_CHUNK",
        A,
        &[
            BASE,
            A.group(),
            &[opt("messageId", Shape::String), opt("delta", Shape::String)],
        ],
    ),
    event("REASONING_END", A, &[BASE, A.group(), &[MESSAGE_ID]]),
    event(
        "REASONING_ENCRYPTED_VALUE",
        A,
        &[
            BASE,
            A.group(),
            &[
                req("subtype", Shape::OneOf(&["tool-call", "message"])),
                req("entityId", Shape::String),
                req("encryptedValue", Shape::String),
            ],
        ],
    ),
    event(
        "SUBAGENT_STARTED",
        I,
        &[
            BASE,
            I.group(),
            &[
                req("name", Shape::String),
                opt("description", Shape::String),
                opt("parentSubagentRunId", Shape::String),
                opt("parentToolCallId", Shape::String),
                opt("parentMessageId", Shape::String),
            ],
        ],
    ),
    event(
        "SUBAGENT_FINISHED",
        I,
        &[
            BASE,
            I.group(),
            &[
                opt("result", Shape::JsonNotNull),
                opt("outcome", Shape::Union(&SUBAGENT_OUTCOME)),
            ],
        ],
    ),
    event(
        "SUBAGENT_ERROR",
        I,
        &[
            BASE,
            I.group(),
            &[req("message", Shape::String), opt("code", Shape::String)],
        ],
    ),
];

/// The schema of the event type `name`, if 1.0 knows it.
pub fn event_schema(name: &str) -> Option<&'static EventSchema> {
    EVENTS.iter().find(|e| e.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn objects_of(shape: &Shape, out: &mut Vec<&'static Object>) {
        match shape {
            Shape::Object(o) => {
                out.push(o);
                for f in o.fields() {
                    objects_of(&f.shape, out);
                }
            }
            Shape::Array { of, .. } | Shape::StringOr(of) => objects_of(of, out),
            Shape::Union(u) => {
                for m in u.members {
                    objects_of(&Shape::Object(m), out);
                }
            }
            Shape::String
            | Shape::Pointer
            | Shape::Literal(_)
            | Shape::OneOf(_)
            | Shape::Boolean
            | Shape::Integer(_)
            | Shape::Json
            | Shape::JsonNotNull
            | Shape::JsonObject => {}
        }
    }

    fn unions_of(shape: &Shape, out: &mut Vec<&'static Union>) {
        match shape {
            Shape::Object(o) => {
                for f in o.fields() {
                    unions_of(&f.shape, out);
                }
            }
            Shape::Array { of, .. } | Shape::StringOr(of) => unions_of(of, out),
            Shape::Union(u) => {
                out.push(u);
                for m in u.members {
                    unions_of(&Shape::Object(m), out);
                }
            }
            Shape::String
            | Shape::Pointer
            | Shape::Literal(_)
            | Shape::OneOf(_)
            | Shape::Boolean
            | Shape::Integer(_)
            | Shape::Json
            | Shape::JsonNotNull
            | Shape::JsonObject => {}
        }
    }

    #[test]
    fn the_tables_are_consistent() {
        let mut objects = Vec::new();
        let mut unions = Vec::new();
        for (i, e) in EVENTS.iter().enumerate() {
            // One row per type, `type` first, the attribution as declared.
            assert!(EVENTS[..i].iter().all(|o| o.name != e.name), "{}", e.name);
            assert_eq!(e.object.fields().next().map(|f| f.name), Some("type"));
            let owner = e.object.field("subagentRunId").map(|f| f.presence);
            let expected = match e.attribution {
                Attribution::RunScoped => None,
                Attribution::Attributable => Some(Presence::Optional),
                Attribution::Invocation => Some(Presence::Required),
            };
            assert_eq!(owner, expected, "{}", e.name);
            objects_of(&Shape::Object(&e.object), &mut objects);
            unions_of(&Shape::Object(&e.object), &mut unions);
        }
        // No object names a key twice.
        for o in &objects {
            let names: Vec<&str> = o.fields().map(|f| f.name).collect();
            for (i, n) in names.iter().enumerate() {
                assert!(!names[..i].contains(n), "{}.{n}", o.name);
            }
        }
        // Every union member has a literal tag, and no two share one.
        for u in &unions {
            let tags: Vec<&str> = u.members.iter().filter_map(|m| m.literal(u.tag)).collect();
            assert_eq!(tags.len(), u.members.len(), "{}", u.name);
            for (i, t) in tags.iter().enumerate() {
                assert!(!tags[..i].contains(t), "{}: {t}", u.name);
                assert!(u.member(t).is_some());
            }
        }
        assert_eq!(EVENTS.len(), 31);
        assert!(event_schema("THINKING_START").is_none());
    }
}
