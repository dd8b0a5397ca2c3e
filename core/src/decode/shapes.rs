//! The nested values AG-UI 1.0 describes (SPEC 9.4, 9.5), checked as
//! their tokens stream past, with nothing of the frame held.
//!
//! The shapes are data: a [`Shape`] per position, a [`Union`] per object
//! kind (a plain record is a union with one variant and no tag). A union's
//! tag may come after its other keys, so an object is judged when it
//! closes: every member is checked as it streams against the one shape its
//! key has in any variant, and the verdict waits for the tag. Then:
//!
//! - an unknown or missing tag removes the object (an array element is
//!   stripped, an optional field becomes absent), and whatever was found
//!   wrong inside it is withdrawn;
//! - a known tag: the variant's required members must be there, members
//!   the variant does not describe are stripped, and the first malformed
//!   member is the frame's `decode` error, with its path
//!   (`delta.0.path`);
//! - a removed value in a required member removes its object in turn
//!   (the cascade).
//!
//! Numbers are judged as JavaScript reads them: the literal as an IEEE
//! double, rounded to nearest, then integer and range checks.

use super::{Field, Kind};
use crate::error::{error_text, ErrorText};
use crate::json::Token;

/// What a value must be.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Shape {
    /// Anything, `null` included; not inspected.
    Any,
    /// Anything but `null`.
    NotNull,
    /// Anything; `null` is a legacy null, made absent by the
    /// compatibility boundary (SPEC 9.3), with a warning.
    Legacy,
    /// A string.
    Str,
    /// A string from the list.
    OneOf(&'static [&'static str]),
    /// An object, not inspected.
    Obj,
    /// A string that is a JSON Pointer (`^(/([^/~]|~[01])*)*$`).
    Pointer,
    /// An integer in [0, 2^53-1].
    Count,
    /// An integer in [-(2^53-1), 2^53-1].
    Int,
    /// An array of values of a shape.
    List(&'static Shape),
    /// An array of at least one value of a shape.
    NonEmpty(&'static Shape),
    /// A string, an array of the shape, or an object: which one a message
    /// variant allows is its [`Union::content`] entry.
    Content(&'static Shape),
    /// An object of a union (or record).
    Union(&'static Union),
}

/// One member of a union's objects.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Member {
    key: &'static str,
    shape: Shape,
    /// Variants that describe it (bit per variant).
    allowed: u16,
    /// Variants that require it.
    required: u16,
}

/// Objects told apart by a tag member (a record: no tag, one variant).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Union {
    /// The tag's key (`type`, `op`, `role`), or `None` for a record.
    tag: Option<&'static str>,
    /// The tag values, one per variant.
    variants: &'static [&'static str],
    members: &'static [Member],
    /// Unknown keys are kept silently (JSON Patch operations).
    keeps_unknown: bool,
    /// For [`Shape::Content`]: the JSON kinds each variant's `content`
    /// may have (a [`kinds`] mask).
    content: &'static [u8],
    /// A retired variant the compatibility boundary upgrades (SPEC 9.3:
    /// the `binary` part), and the members of which one must be there for
    /// it to convert; without them it is stripped.
    legacy: Option<(u8, u16)>,
}

const ALL: u16 = u16::MAX;

const fn m(key: &'static str, shape: Shape, allowed: u16, required: u16) -> Member {
    Member {
        key,
        shape,
        allowed,
        required,
    }
}

const fn rec(members: &'static [Member]) -> Union {
    Union {
        tag: None,
        variants: &[""],
        members,
        keeps_unknown: false,
        content: &[],
        legacy: None,
    }
}

/// JSON kind bits for [`Union::content`].
mod kinds {
    pub(super) const STR: u8 = 1;
    pub(super) const ARR: u8 = 2;
    pub(super) const OBJ: u8 = 4;
}

// ---- the 1.0 shapes (SPEC 9.5) ----

static SOURCE: Union = Union {
    tag: Some("type"),
    variants: &["data", "url", "file"],
    members: &[
        m("value", Shape::Str, ALL, ALL),
        m("mimeType", Shape::Str, ALL, 0b001),
        m("provider", Shape::Str, 0b100, 0),
    ],
    keeps_unknown: false,
    content: &[],
    legacy: None,
};

static PART: Union = Union {
    tag: Some("type"),
    variants: &["text", "image", "audio", "video", "document"],
    members: &[
        m("text", Shape::Str, 0b00001, 0b00001),
        m("source", Shape::Union(&SOURCE), 0b11110, 0b11110),
        m("id", Shape::Str, ALL, 0),
        m("metadata", Shape::NotNull, ALL, 0),
    ],
    keeps_unknown: false,
    content: &[],
    legacy: None,
};
static PART_SHAPE: Shape = Shape::Union(&PART);

/// A content part inside a message (of a snapshot or a run input): as
/// [`PART`], plus the retired `binary` part, which the boundary upgrades
/// when it has `data` or `url` (and strips, warned, when it has only an
/// `id`), and a media part's `metadata: null` is a legacy null.
static MESSAGE_PART: Union = Union {
    tag: Some("type"),
    variants: &["text", "image", "audio", "video", "document", "binary"],
    members: &[
        m("text", Shape::Str, 0b000001, 0b000001),
        m("source", Shape::Union(&SOURCE), 0b011110, 0b011110),
        m("id", Shape::Str, ALL, 0),
        m("metadata", Shape::Legacy, 0b011111, 0),
        m("mimeType", Shape::Str, 0b100000, 0b100000),
        m("url", Shape::Str, 0b100000, 0),
        m("data", Shape::Str, 0b100000, 0),
        m("filename", Shape::Str, 0b100000, 0),
    ],
    keeps_unknown: false,
    content: &[],
    // `url` and `data`: members 5 and 6.
    legacy: Some((5, 0b110_0000)),
};
static MESSAGE_PART_SHAPE: Shape = Shape::Union(&MESSAGE_PART);

static OP: Union = Union {
    tag: Some("op"),
    variants: &["add", "remove", "replace", "move", "copy", "test"],
    members: &[
        m("path", Shape::Pointer, ALL, ALL),
        m("from", Shape::Pointer, 0b011000, 0b011000),
        m("value", Shape::Any, 0b100101, 0b100101),
    ],
    keeps_unknown: true,
    content: &[],
    legacy: None,
};
static OP_SHAPE: Shape = Shape::Union(&OP);

static USAGE: Union = rec(&[
    m("provider", Shape::Str, ALL, 0),
    m("model", Shape::Str, ALL, 0),
    m("inputTokens", Shape::Count, ALL, 0),
    m("outputTokens", Shape::Count, ALL, 0),
    m("totalTokens", Shape::Count, ALL, 0),
    m("reasoningTokens", Shape::Count, ALL, 0),
    m("cachedInputTokens", Shape::Count, ALL, 0),
    m("cacheWriteInputTokens", Shape::Count, ALL, 0),
]);
static USAGE_SHAPE: Shape = Shape::Union(&USAGE);

static INTERRUPT: Union = rec(&[
    m("id", Shape::Str, ALL, ALL),
    m("reason", Shape::Str, ALL, ALL),
    m("message", Shape::Str, ALL, 0),
    m("toolCallId", Shape::Str, ALL, 0),
    m("expiresAt", Shape::Str, ALL, 0),
    m("responseSchema", Shape::Obj, ALL, 0),
    m("metadata", Shape::Obj, ALL, 0),
    m("subagentRunId", Shape::Str, ALL, 0),
]);
static INTERRUPT_SHAPE: Shape = Shape::Union(&INTERRUPT);
static STR_SHAPE: Shape = Shape::Str;

/// `outcome` of RUN_FINISHED (success, interrupt, cancelled) and of
/// SUBAGENT_FINISHED (success, suspended) in one: which variants count is
/// decided by the event type ([`Outcome::for_type`]).
static OUTCOME: Union = Union {
    tag: Some("type"),
    variants: &["success", "interrupt", "cancelled", "suspended"],
    members: &[
        m("pendingToolCallIds", Shape::List(&STR_SHAPE), 0b0001, 0),
        m(
            "interrupts",
            Shape::NonEmpty(&INTERRUPT_SHAPE),
            0b0010,
            0b0010,
        ),
        m("interruptIds", Shape::List(&STR_SHAPE), 0b1000, 0),
    ],
    keeps_unknown: false,
    content: &[],
    legacy: None,
};

static FUNCTION: Union = rec(&[
    m("name", Shape::Str, ALL, ALL),
    m("arguments", Shape::Str, ALL, ALL),
]);
static TOOL_CALL: Union = rec(&[
    m("id", Shape::Str, ALL, ALL),
    m("type", Shape::OneOf(&["function"]), ALL, ALL),
    m("function", Shape::Union(&FUNCTION), ALL, ALL),
    m("encryptedValue", Shape::Str, ALL, 0),
    m("metadata", Shape::Obj, ALL, 0),
]);
static TOOL_CALL_SHAPE: Shape = Shape::Union(&TOOL_CALL);

// Variants: developer, system, assistant, user, tool, activity, reasoning.
static MESSAGE: Union = Union {
    tag: Some("role"),
    variants: &[
        "developer",
        "system",
        "assistant",
        "user",
        "tool",
        "activity",
        "reasoning",
    ],
    members: &[
        m("id", Shape::Str, ALL, ALL),
        m(
            "content",
            Shape::Content(&MESSAGE_PART_SHAPE),
            ALL,
            0b1111011,
        ),
        m("name", Shape::Str, 0b0001111, 0),
        m("encryptedValue", Shape::Str, 0b1011111, 0),
        m("metadata", Shape::Obj, ALL, 0),
        m("subagentRunId", Shape::Str, ALL, 0),
        m("toolCalls", Shape::List(&TOOL_CALL_SHAPE), 0b0000100, 0),
        m("toolCallId", Shape::Str, 0b0010000, 0b0010000),
        m("error", Shape::Str, 0b0010000, 0),
        m("activityType", Shape::Str, 0b0100000, 0b0100000),
    ],
    keeps_unknown: false,
    content: &[
        kinds::STR,
        kinds::STR,
        kinds::STR,
        kinds::STR | kinds::ARR,
        kinds::STR | kinds::ARR,
        kinds::OBJ,
        kinds::STR,
    ],
    legacy: None,
};
static MESSAGE_SHAPE: Shape = Shape::Union(&MESSAGE);

/// The variant of a message's `role` (its index in [`MESSAGE`]'s
/// variants: `ROLE_USER`, `ROLE_TOOL`, `ROLE_ACTIVITY` below), `None` for a role the
/// schema does not know. The protobuf reader decides on the same list.
pub(crate) fn message_role(role: &[u8]) -> Option<usize> {
    MESSAGE.variants.iter().position(|v| v.as_bytes() == role)
}

/// The name of JSON Patch operation `i` (`JsonPatchOperationType` numbers
/// them in [`OP`]'s order: `add` 0 to `test` 5).
pub(crate) fn patch_op(i: usize) -> Option<&'static str> {
    OP.variants.get(i).copied()
}

/// [`message_role`] of `user`, `tool` and `activity`.
pub(crate) const ROLE_USER: usize = 3;
/// See [`ROLE_USER`].
pub(crate) const ROLE_TOOL: usize = 4;
/// See [`ROLE_USER`].
pub(crate) const ROLE_ACTIVITY: usize = 5;

static TOOL: Union = rec(&[
    m("name", Shape::Str, ALL, ALL),
    m("description", Shape::Str, ALL, ALL),
    m("parameters", Shape::Legacy, ALL, 0),
    m("metadata", Shape::Obj, ALL, 0),
]);
static TOOL_SHAPE: Shape = Shape::Union(&TOOL);
static CONTEXT: Union = rec(&[
    m("description", Shape::Str, ALL, ALL),
    m("value", Shape::Str, ALL, ALL),
]);
static CONTEXT_SHAPE: Shape = Shape::Union(&CONTEXT);
static RESUME: Union = rec(&[
    m("interruptId", Shape::Str, ALL, ALL),
    m("status", Shape::OneOf(&["resolved", "cancelled"]), ALL, ALL),
    m("payload", Shape::Legacy, ALL, 0),
    m("metadata", Shape::Obj, ALL, 0),
]);
static RESUME_SHAPE: Shape = Shape::Union(&RESUME);

static INPUT: Union = rec(&[
    m("threadId", Shape::Str, ALL, ALL),
    m("runId", Shape::Str, ALL, ALL),
    m("protocolVersion", Shape::Str, ALL, 0),
    m("parentRunId", Shape::Str, ALL, 0),
    m("state", Shape::Any, ALL, 0),
    m("messages", Shape::List(&MESSAGE_SHAPE), ALL, ALL),
    m("tools", Shape::List(&TOOL_SHAPE), ALL, 0),
    m("context", Shape::List(&CONTEXT_SHAPE), ALL, 0),
    m("forwardedProps", Shape::Legacy, ALL, 0),
    m("resume", Shape::List(&RESUME_SHAPE), ALL, 0),
]);

/// The top-level values 1.0 checks nested: the field, the JSON kind its
/// value starts with, and its shape (a `delta` or `content` of another
/// kind, such as a text delta, needs nothing beyond the schema's kind).
const ROOTS: [(Field, Kind, Shape); 8] = [
    (Field::Timestamp, Kind::Number, Shape::Int),
    (Field::Usage, Kind::Array, Shape::List(&USAGE_SHAPE)),
    (Field::Outcome, Kind::Object, Shape::Union(&OUTCOME)),
    (Field::Content, Kind::Array, Shape::List(&PART_SHAPE)),
    (Field::Delta, Kind::Array, Shape::List(&OP_SHAPE)),
    (Field::Patch, Kind::Array, Shape::List(&OP_SHAPE)),
    (Field::Input, Kind::Object, Shape::Union(&INPUT)),
    (Field::Messages, Kind::Array, Shape::List(&MESSAGE_SHAPE)),
];

/// The shape a top-level field's value is checked against in 1.0
/// (`None`: nothing beyond its kind).
fn root(field: Field, kind: Kind) -> Option<Shape> {
    ROOTS
        .iter()
        .find(|(f, k, _)| *f == field && *k == kind)
        .map(|(_, _, shape)| *shape)
}

/// Fields whose values are checked: a verdict is kept for each.
const CHECKED: [Field; 8] = [
    Field::Timestamp,
    Field::Usage,
    Field::Outcome,
    Field::Content,
    Field::Delta,
    Field::Patch,
    Field::Input,
    Field::Messages,
];

/// [`CHECKED`] as a mask of field bits.
const CHECKED_MASK: u64 = mask(&CHECKED);

const fn mask(fields: &[Field]) -> u64 {
    match fields {
        [first, rest @ ..] => first.bit() | mask(rest),
        [] => 0,
    }
}

/// What the check of a top-level value found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Nothing wrong (`variant`: the tag's index, for a union value).
    Fine {
        /// The variant of a union root.
        variant: Option<u8>,
    },
    /// An unrecognised union member: the field is to be removed.
    Removed,
    /// Malformed: see [`Shapes::issue`].
    Bad,
}

/// The first malformed value of the frame, until a removal withdraws it:
/// where it sits (the container depth and member it is charged to).
#[derive(Debug, Clone)]
struct Pending {
    field: Field,
    depth: u8,
    member: u8,
    issue: Issue,
}

/// A malformed value: its path (`delta.0.path`) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Issue {
    pub(crate) path: ErrorText,
    pub(crate) what: &'static str,
}

/// One open container.
#[derive(Debug, Clone)]
struct Level {
    /// The union of an object; `None` for an array.
    union: Option<&'static Union>,
    /// An array's element shape, and whether it must be non-empty.
    element: Option<(&'static Shape, bool)>,
    /// Members seen (bit per member index).
    seen: u16,
    /// The current member (`None`: an unknown key, or an array).
    member: Option<u8>,
    /// The member a removed value sat in, when it was required somewhere.
    lost: u16,
    /// Array: elements so far.
    index: u32,
    /// The variant the tag named (`None`: no tag yet, or an unknown one).
    variant: Option<u8>,
    /// The JSON kind bits of `content`, for [`Shape::Content`].
    content: u8,
    /// Strip warnings recorded before this level opened (to withdraw).
    strips_before: u8,
}

/// How many containers deep a checked value may go: the deepest 1.0
/// shape is 6 (`input.messages.N.content.N.source`, and
/// `input.messages.N.toolCalls.N.function`); a deeper value is taken as
/// it is.
const LEVELS: usize = 6;
/// Strip warnings kept per frame (more are reported as one).
const STRIPS: usize = 1;

/// The streaming checker of 1.0's nested values for one frame.
#[derive(Debug, Clone)]
pub(crate) struct Shapes {
    field: Option<Field>,
    stack: heapless::Vec<Level, LEVELS>,
    /// Depth of an uninspected container being skipped, inside `stack`.
    skip: u32,
    /// The scalar being read: its shape, and its text so far.
    scalar: Option<Shape>,
    text: heapless::String<48>,
    text_long: bool,
    /// A JSON Pointer's state: after `~`, or broken.
    ptr_tilde: bool,
    ptr_bad: bool,
    /// Reading a key.
    in_key: bool,
    key: heapless::String<24>,
    key_long: bool,
    verdicts: [Option<Verdict>; CHECKED.len()],
    /// The first malformed value (one per frame: the first is the error).
    pending: Option<Pending>,
    /// Strip warnings (paths) inside the checked values (the first ones:
    /// more are counted, see `extra_strips`).
    pub(crate) strips: heapless::Vec<ErrorText, STRIPS>,
    /// Strip warnings so far, stored or not.
    strip_count: u8,
    /// Legacy nulls made absent, and whether a `binary` part was upgraded
    /// or left to be stripped (SPEC 9.3), for the boundary's warnings.
    pub(crate) legacy_nulls: u8,
    pub(crate) binary_converted: bool,
    pub(crate) binary_unconvertible: u8,
}

impl Shapes {
    pub(crate) const fn new() -> Self {
        Shapes {
            field: None,
            stack: heapless::Vec::new(),
            skip: 0,
            scalar: None,
            text: heapless::String::new(),
            text_long: false,
            ptr_tilde: false,
            ptr_bad: false,
            in_key: false,
            key: heapless::String::new(),
            key_long: false,
            verdicts: [None, None, None, None, None, None, None, None],
            pending: None,
            strips: heapless::Vec::new(),
            strip_count: 0,
            legacy_nulls: 0,
            binary_converted: false,
            binary_unconvertible: 0,
        }
    }

    /// Forgets the previous frame, field by field: the buffers are only
    /// emptied, not rewritten (this runs for every 1.0 frame).
    pub(crate) fn reset(&mut self) {
        self.field = None;
        self.stack.clear();
        self.skip = 0;
        self.scalar = None;
        self.in_key = false;
        self.verdicts = [None; CHECKED.len()];
        self.pending = None;
        self.strips.clear();
        self.strip_count = 0;
        self.legacy_nulls = 0;
        self.binary_converted = false;
        self.binary_unconvertible = 0;
    }

    /// A top-level value of `field` begins with a token of `kind`.
    pub(crate) fn begin(&mut self, field: Option<Field>, kind: Kind) {
        self.stack.clear();
        self.skip = 0;
        self.scalar = None;
        self.field = None;
        let Some(field) = field else { return };
        // Most values (ids, text deltas) are of fields never checked.
        if CHECKED_MASK & field.bit() == 0 {
            return;
        }
        if let Some(at) = CHECKED.iter().position(|f| *f == field) {
            // A repeated key: JSON keeps the last value, so do we.
            if let Some(v) = self.verdicts.get_mut(at) {
                *v = None;
            }
        }
        if root(field, kind).is_some() {
            self.field = Some(field);
        }
    }

    /// Whether a value is being checked.
    pub(crate) fn is_active(&self) -> bool {
        self.field.is_some()
    }

    /// The verdict on `field`'s value (`Fine` when it was not checked).
    pub(crate) fn verdict(&self, field: Field) -> Verdict {
        CHECKED
            .iter()
            .position(|f| *f == field)
            .and_then(|at| self.verdicts.get(at).copied().flatten())
            .unwrap_or(Verdict::Fine { variant: None })
    }

    /// What is wrong with `field`'s value, when it is [`Verdict::Bad`]
    /// (a generic text when the frame's first issue was another field's).
    pub(crate) fn issue(&self, field: Field) -> Issue {
        match &self.pending {
            Some(p) if p.field == field => p.issue.clone(),
            Some(_) | None => Issue {
                path: error_text(field.as_str()),
                what: "malformed",
            },
        }
    }

    /// One token of the current top-level value, from its first.
    pub(crate) fn token(&mut self, token: &Token<'_>) {
        let Some(field) = self.field else { return };
        if self.skip > 0 {
            match token {
                Token::ObjectStart | Token::ArrayStart => self.skip = self.skip.saturating_add(1),
                Token::ObjectEnd | Token::ArrayEnd => self.skip = self.skip.saturating_sub(1),
                Token::KeyStart
                | Token::KeyEnd
                | Token::StrStart
                | Token::StrEnd
                | Token::Text(_)
                | Token::Char(_)
                | Token::Number(_)
                | Token::NumberEnd
                | Token::True
                | Token::False
                | Token::Null => {}
            }
            return;
        }
        match token {
            Token::KeyStart => {
                self.in_key = true;
                self.key.clear();
                self.key_long = false;
            }
            Token::KeyEnd => {
                self.in_key = false;
                self.on_key();
            }
            Token::Text(t) => self.on_text(t),
            Token::Char(c) => self.on_text(c.encode_utf8(&mut [0u8; 4])),
            Token::StrEnd => self.end_scalar(Kind::String),
            Token::Number(t) => {
                if self.scalar.is_none() {
                    self.start_value(field, Kind::Number);
                }
                self.on_text(t);
            }
            Token::NumberEnd => self.end_scalar(Kind::Number),
            Token::ObjectStart => self.start_value(field, Kind::Object),
            Token::ArrayStart => self.start_value(field, Kind::Array),
            Token::StrStart => self.start_value(field, Kind::String),
            Token::True | Token::False => {
                self.start_value(field, Kind::Bool);
                self.end_scalar(Kind::Bool);
            }
            Token::Null => {
                self.start_value(field, Kind::Null);
                self.end_scalar(Kind::Null);
            }
            Token::ObjectEnd | Token::ArrayEnd => self.close(),
        }
    }

    fn on_text(&mut self, t: &str) {
        if self.in_key {
            if self.key.push_str(t).is_err() {
                self.key_long = true;
            }
            return;
        }
        if let Some(Shape::Pointer) = self.scalar {
            self.pointer_text(t);
        }
        if self.text.push_str(t).is_err() {
            self.text_long = true;
        }
    }

    /// The JSON Pointer grammar, a character at a time.
    fn pointer_text(&mut self, t: &str) {
        for (i, c) in t.chars().enumerate() {
            let first = i == 0 && self.text.is_empty() && !self.text_long;
            if first && c != '/' {
                self.ptr_bad = true;
            }
            if self.ptr_tilde {
                if c != '0' && c != '1' {
                    self.ptr_bad = true;
                }
                self.ptr_tilde = false;
            } else if c == '~' {
                self.ptr_tilde = true;
            }
        }
    }

    /// The shape expected at the current position.
    fn expected(&self, field: Field, kind: Kind) -> Option<Shape> {
        let Some(level) = self.stack.last() else {
            return root(field, kind);
        };
        match (level.union, level.element) {
            (_, Some((shape, _))) => Some(*shape),
            (Some(u), None) => level
                .member
                .and_then(|i| u.members.get(usize::from(i)))
                .map(|mm| mm.shape),
            (None, None) => None,
        }
    }

    fn start_value(&mut self, field: Field, kind: Kind) {
        // The tag member of a union: read as text.
        let at_tag = self.at_tag();
        if let Some(level) = self.stack.last_mut() {
            if level.element.is_some() {
                level.index = level.index.saturating_add(1);
            }
        }
        if at_tag {
            if kind == Kind::String {
                self.scalar = Some(Shape::Str);
                self.text.clear();
                self.text_long = false;
            } else if matches!(kind, Kind::Object | Kind::Array) {
                self.skip = 1;
            }
            return;
        }
        let Some(shape) = self.expected(field, kind) else {
            // Unknown key's value (stripped or kept): not inspected.
            if matches!(kind, Kind::Object | Kind::Array) {
                self.skip = 1;
            }
            return;
        };
        self.note_content(kind);
        if !matches!(kind, Kind::Object | Kind::Array) {
            // A scalar: judged at its end (`end_scalar`).
            self.scalar = Some(shape);
            self.text.clear();
            self.text_long = false;
            self.ptr_tilde = false;
            self.ptr_bad = false;
            return;
        }
        let object = kind == Kind::Object;
        match shape {
            Shape::Union(u) if object => self.push(Some(u), None),
            Shape::List(s) | Shape::Content(s) if !object => self.push(None, Some((s, false))),
            Shape::NonEmpty(s) if !object => self.push(None, Some((s, true))),
            Shape::Obj | Shape::Content(_) if object => self.skip = 1,
            Shape::Any | Shape::Legacy | Shape::NotNull => self.skip = 1,
            Shape::Str
            | Shape::OneOf(_)
            | Shape::Pointer
            | Shape::Count
            | Shape::Int
            | Shape::Obj
            | Shape::List(_)
            | Shape::NonEmpty(_)
            | Shape::Content(_)
            | Shape::Union(_) => {
                self.fail(wrong(shape));
                self.skip = 1;
            }
        }
    }

    /// Whether the current key is the tag of the innermost union.
    fn at_tag(&self) -> bool {
        self.stack.last().is_some_and(|l| {
            l.element.is_none()
                && l.member.is_none()
                && l.union.and_then(|u| u.tag).is_some_and(|t| t == self.key)
        })
    }

    /// Records the JSON kind of a message's `content` for its variant check.
    fn note_content(&mut self, kind: Kind) {
        let Some(level) = self.stack.last_mut() else {
            return;
        };
        let member = level
            .union
            .zip(level.member)
            .and_then(|(u, i)| u.members.get(usize::from(i)));
        let is_content = matches!(member.map(|mm| mm.shape), Some(Shape::Content(_)));
        if is_content {
            level.content = match kind {
                Kind::String => kinds::STR,
                Kind::Array => kinds::ARR,
                Kind::Object => kinds::OBJ,
                Kind::Null | Kind::Bool | Kind::Number => 0x80,
            };
        }
    }

    fn push(&mut self, union: Option<&'static Union>, element: Option<(&'static Shape, bool)>) {
        let level = Level {
            union,
            element,
            seen: 0,
            member: None,
            lost: 0,
            index: 0,
            variant: None,
            content: 0,
            strips_before: self.strip_count,
        };
        if self.stack.push(level).is_err() {
            // Deeper than any 1.0 shape: judged as it is, not inspected.
            self.skip = 1;
        }
    }

    fn on_key(&mut self) {
        let key_long = self.key_long;
        let key = self.key.clone();
        let Some(level) = self.stack.last_mut() else {
            return;
        };
        let Some(u) = level.union else { return };
        level.member = None;
        if u.tag.is_some_and(|t| t == key.as_str()) {
            return;
        }
        let found = if key_long {
            None
        } else {
            u.members.iter().position(|mm| mm.key == key.as_str())
        };
        match found {
            Some(i) => {
                let i = i as u8;
                level.member = Some(i);
                level.seen |= 1u16 << i;
            }
            None if u.keeps_unknown => {}
            None => {
                let path = self.path_with(&key);
                self.strip(path);
            }
        }
    }

    fn end_scalar(&mut self, kind: Kind) {
        let Some(shape) = self.scalar.take() else {
            return;
        };
        if self.at_tag() {
            let long = self.text_long;
            if let Some(level) = self.stack.last_mut() {
                let named = level.union.and_then(|u| {
                    u.variants
                        .iter()
                        .position(|v| !long && *v == self.text.as_str())
                });
                level.variant = named.map(|i| i as u8);
            }
            return;
        }
        let ok = self.admits(shape, kind);
        if !ok {
            self.fail(failure(shape, kind));
        }
        if self.stack.is_empty() {
            self.settle(if ok {
                Verdict::Fine { variant: None }
            } else {
                Verdict::Bad
            });
        }
    }

    /// Whether a scalar of `kind` (its text read) is what `shape` wants.
    fn admits(&mut self, shape: Shape, kind: Kind) -> bool {
        let string = kind == Kind::String;
        let number = kind == Kind::Number;
        match shape {
            Shape::Any => true,
            Shape::Legacy => {
                if kind == Kind::Null {
                    self.legacy_nulls = self.legacy_nulls.saturating_add(1);
                }
                true
            }
            Shape::NotNull => kind != Kind::Null,
            Shape::Str | Shape::Content(_) => string,
            Shape::OneOf(values) => {
                string && !self.text_long && values.contains(&self.text.as_str())
            }
            Shape::Pointer => string && !self.ptr_bad && !self.ptr_tilde,
            Shape::Count => number && judge(&self.text, self.text_long, false),
            Shape::Int => number && judge(&self.text, self.text_long, true),
            Shape::Obj | Shape::List(_) | Shape::NonEmpty(_) | Shape::Union(_) => false,
        }
    }

    /// A malformed value at the current position (kept if it is the
    /// frame's first).
    fn fail(&mut self, what: &'static str) {
        let path = self.path_with("");
        let member = self.stack.last().and_then(|l| l.member).unwrap_or(u8::MAX);
        self.charge(path, what, self.stack.len() as u8, member);
    }

    fn charge(&mut self, path: ErrorText, what: &'static str, depth: u8, member: u8) {
        let Some(field) = self.field else { return };
        if self.pending.is_none() {
            self.pending = Some(Pending {
                field,
                depth,
                member,
                issue: Issue { path, what },
            });
        }
    }

    /// Whether the pending issue sits at `depth` (or deeper).
    fn pending_at(&self, depth: u8) -> Option<&Pending> {
        self.pending
            .as_ref()
            .filter(|p| p.depth >= depth && Some(p.field) == self.field)
    }

    /// Strip warnings beyond the stored paths.
    pub(crate) fn extra_strips(&self) -> u8 {
        self.strip_count.saturating_sub(self.strips.len() as u8)
    }

    fn strip(&mut self, path: ErrorText) {
        self.strip_count = self.strip_count.saturating_add(1);
        let _ = self.strips.push(path);
    }

    /// The path of the current position, plus `key` if not empty:
    /// `field.0.key`.
    fn path_with(&self, key: &str) -> ErrorText {
        let mut path = ErrorText::new();
        let mut put = |s: &str| {
            if path.push_str(s).is_err() {
                path = error_text(path.as_str());
            }
        };
        put(self.field.map_or("", Field::as_str));
        for level in &self.stack {
            match (level.union, level.element) {
                (_, Some(_)) => {
                    put(".");
                    let mut n = heapless::String::<10>::new();
                    let _ =
                        core::fmt::write(&mut n, format_args!("{}", level.index.saturating_sub(1)));
                    put(&n);
                }
                (Some(u), None) => {
                    if let Some(mm) = level.member.and_then(|i| u.members.get(usize::from(i))) {
                        put(".");
                        put(mm.key);
                    }
                }
                (None, None) => {}
            }
        }
        if !key.is_empty() {
            put(".");
            put(key);
        }
        path
    }

    fn close(&mut self) {
        let depth = self.stack.len() as u8;
        let Some(level) = self.stack.pop() else {
            return;
        };
        let verdict = match level.union {
            Some(u) => self.judge_object(u, &level, depth),
            None => self.judge_list(&level, depth),
        };
        if matches!(verdict, Verdict::Removed) {
            // What was stripped or wrong inside is withdrawn with it.
            self.strip_count = level.strips_before;
            self.strips.truncate(usize::from(level.strips_before));
            if self.pending_at(depth).is_some() {
                self.pending = None;
            }
        }
        if verdict == Verdict::Bad {
            // Charged to the member of the parent that holds this value.
            let member = self.stack.last().and_then(|l| l.member).unwrap_or(u8::MAX);
            if let Some(p) = self.pending.as_mut() {
                p.depth = depth.saturating_sub(1);
                p.member = member;
            }
        }
        if self.stack.is_empty() {
            self.settle(verdict);
            return;
        }
        if verdict == Verdict::Removed {
            self.removed_child();
        }
    }

    /// A child value was removed: an array drops the element, an object
    /// loses the member (and cascades if the member was required).
    fn removed_child(&mut self) {
        let path = self.path_with("");
        let Some(parent) = self.stack.last_mut() else {
            return;
        };
        match parent.member {
            Some(i) if parent.element.is_none() => {
                parent.seen &= !(1u16 << i);
                parent.lost |= 1u16 << i;
            }
            Some(_) | None => {}
        }
        self.strip(path);
    }

    fn judge_object(&mut self, u: &'static Union, level: &Level, depth: u8) -> Verdict {
        let variant = match u.tag {
            None => Some(0usize),
            Some(_) => level.variant.map(usize::from),
        };
        let Some(variant) = variant else {
            return Verdict::Removed;
        };
        if let Some((_, needs)) = u.legacy.filter(|(v, _)| usize::from(*v) == variant) {
            // The boundary translates the message's parts (one warning),
            // and names each part it cannot upgrade.
            self.binary_converted = true;
            if level.seen & needs == 0 {
                self.binary_unconvertible = self.binary_unconvertible.saturating_add(1);
                return Verdict::Removed;
            }
        }
        let bit = 1u16 << variant;
        for (i, mm) in u.members.iter().enumerate() {
            let here = 1u16 << i;
            if mm.required & bit != 0 && level.lost & here != 0 {
                return Verdict::Removed;
            }
        }
        if let Some(p) = self.pending_at(depth) {
            let counts = u
                .members
                .get(usize::from(p.member))
                .is_none_or(|mm| mm.allowed & bit != 0 || u.keeps_unknown);
            if counts {
                return Verdict::Bad;
            }
            // A member this variant does not describe is stripped, and
            // what was wrong with it goes with it.
            self.pending = None;
        }
        for mm in u.members {
            let i = u.members.iter().position(|x| x.key == mm.key).unwrap_or(0);
            if mm.required & bit != 0 && level.seen & (1u16 << i) == 0 {
                let path = self.path_with(mm.key);
                self.charge(path, "required", depth, u8::MAX);
                return Verdict::Bad;
            }
            if let Shape::Content(_) = mm.shape {
                let allowed = u.content.get(variant).copied().unwrap_or(0xff);
                if level.seen & (1u16 << i) != 0 && level.content & allowed == 0 {
                    let path = self.path_with("content");
                    self.charge(path, "wrong kind of content for this role", depth, u8::MAX);
                    return Verdict::Bad;
                }
            }
        }
        Verdict::Fine {
            variant: Some(variant as u8),
        }
    }

    fn settle(&mut self, verdict: Verdict) {
        if let Some(field) = self.field.take() {
            if let Some(at) = CHECKED.iter().position(|f| *f == field) {
                if let Some(v) = self.verdicts.get_mut(at) {
                    *v = Some(verdict);
                }
            }
        }
    }
}

impl Shapes {
    fn judge_list(&mut self, level: &Level, depth: u8) -> Verdict {
        if self.pending_at(depth).is_some() {
            return Verdict::Bad;
        }
        match level.element {
            Some((_, true)) if level.index == 0 => {
                let path = self.path_with("");
                self.charge(path, "must hold at least one element", depth, u8::MAX);
                Verdict::Bad
            }
            Some(_) | None => Verdict::Fine { variant: None },
        }
    }
}

/// What is wrong with a scalar `shape` refused.
fn failure(shape: Shape, kind: Kind) -> &'static str {
    let string = kind == Kind::String;
    let number = kind == Kind::Number;
    match shape {
        Shape::Pointer if string => "invalid JSON Pointer (must match ^(/([^/~]|~[01])*)*$)",
        Shape::OneOf(_) if string => "not one of the allowed values",
        Shape::Count | Shape::Int if number => {
            "not an integer within ±(2^53-1) (counts: within [0, 2^53-1])"
        }
        Shape::Any
        | Shape::NotNull
        | Shape::Legacy
        | Shape::Str
        | Shape::OneOf(_)
        | Shape::Obj
        | Shape::Pointer
        | Shape::Count
        | Shape::Int
        | Shape::List(_)
        | Shape::NonEmpty(_)
        | Shape::Content(_)
        | Shape::Union(_) => wrong(shape),
    }
}

/// What a value of the wrong JSON kind should have been.
fn wrong(shape: Shape) -> &'static str {
    match shape {
        Shape::Any | Shape::Legacy => "any value",
        Shape::NotNull => "a value other than null",
        Shape::Str | Shape::OneOf(_) | Shape::Pointer => "expected a string",
        Shape::Obj | Shape::Union(_) => "expected an object",
        Shape::Count | Shape::Int => "expected an integer",
        Shape::List(_) | Shape::NonEmpty(_) => "expected an array",
        Shape::Content(_) => "expected a string, an array or an object",
    }
}

/// 2^53 - 1, the largest integer a double holds exactly.
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// A JSON number literal read as JavaScript reads it (the nearest double)
/// is an integer within ±(2^53-1) (`signed`) or [0, 2^53-1]. A literal
/// longer than the buffer cannot be read and is refused.
fn judge(text: &str, long: bool, signed: bool) -> bool {
    if long {
        return false;
    }
    let Ok(x) = text.parse::<f64>() else {
        return false;
    };
    let magnitude = if x < 0.0 { -x } else { x };
    let in_range = matches!(
        magnitude.partial_cmp(&MAX_SAFE),
        Some(core::cmp::Ordering::Less | core::cmp::Ordering::Equal)
    );
    if !in_range || (!signed && x < 0.0) {
        return false;
    }
    // Within ±2^53 the cast is exact for integers, and drops a fraction.
    (x as i64) as f64 == x
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;

    /// SPEC 9.5: the literal read as the nearest double, then judged.
    #[test]
    fn numbers_are_judged_as_javascript_reads_them() {
        let int = |t: &str| judge(t, false, true);
        let count = |t: &str| judge(t, false, false);
        for ok in [
            "0",
            "-0",
            "1.0",
            "1e3",
            "1.5e1",
            "9007199254740991",
            "9007199254740991.4",
            "-9007199254740991",
        ] {
            assert!(int(ok), "{ok}");
        }
        for bad in [
            "1.5",
            "9007199254740992",
            "1e400",
            "-9007199254740992",
            "0.1",
        ] {
            assert!(!int(bad), "{bad}");
        }
        assert!(count("0") && count("12") && !count("-1") && !count("1.5"));
        // A literal longer than the buffer is refused, never cut.
        assert!(!judge("1", true, true));
    }

    fn pointer(text: &str) -> bool {
        let mut s = Shapes::new();
        s.scalar = Some(Shape::Pointer);
        for c in text.chars() {
            s.on_text(c.encode_utf8(&mut [0u8; 4]));
        }
        !s.ptr_bad && !s.ptr_tilde
    }

    /// `^(/([^/~]|~[01])*)*$`, a character at a time.
    #[test]
    fn json_pointers_follow_the_grammar() {
        for ok in ["", "/", "/a", "/a/b", "/~0", "/~1x", "//", "/a~1b~0"] {
            assert!(pointer(ok), "{ok}");
        }
        for bad in ["a", "/a~2", "/~", "/a~", "x/a"] {
            assert!(!pointer(bad), "{bad}");
        }
    }
}
