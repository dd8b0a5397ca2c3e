//! The protobuf schema of AG-UI's binary encoding (`events.proto`,
//! `types.proto`, `patch.proto` of `@ag-ui/proto` 1.0.0, and the
//! well-known `google.protobuf.Struct` / `Value` / `ListValue`), as data:
//! for every message, its fields by number, the JSON key each becomes and
//! how its value is written. One table per message; the reader in
//! `proto.rs` interprets them; host-side encoders (the gateway's
//! `--device-encoding proto`) read the same tables, so that what they write
//! is what the reader reads.

use crate::event::EventType;

/// A protobuf message type the reader knows. `Event(n)` is the event
/// message carried by envelope field `n` (see [`ARMS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Msg {
    /// The top-level `Event` envelope: a oneof of the event messages.
    Envelope,
    /// The event message of envelope field `n` (1 to 31).
    Event(u8),
    /// `BaseEvent`: its fields are written into the event's object.
    Base,
    /// `google.protobuf.Value`: exactly one of its kinds.
    Value,
    /// `google.protobuf.Struct`: a JSON object.
    Struct,
    /// One `Struct.fields` map entry (`key` 1, `value` 2).
    Entry,
    /// `google.protobuf.ListValue`: a JSON array.
    List,
    /// `Message` (a message of a snapshot or of the run input).
    Message,
    /// `ToolCall`.
    ToolCall,
    /// `ToolCall.Function`.
    Function,
    /// `Tool`.
    Tool,
    /// `Context`.
    Context,
    /// `ResumeEntry`.
    Resume,
    /// `RunAgentInput`.
    Input,
    /// `Interrupt`.
    Interrupt,
    /// `Usage`.
    Usage,
    /// `JsonPatchOperation`.
    Patch,
    /// `InputContent`: a oneof of content parts, written as
    /// `{"type": arm, ...arm's fields}`.
    Content,
    /// `TextInputPart` (flattened into its `Content`).
    TextPart,
    /// `ImageInputPart`, `AudioInputPart`, `VideoInputPart`,
    /// `DocumentInputPart` (the same fields; flattened).
    MediaPart,
    /// `InputContentSource`: a oneof, written as `{"type": arm, ...}`.
    Source,
    /// `InputContentDataSource` (flattened into its `Source`).
    DataSource,
    /// `InputContentUrlSource` (flattened).
    UrlSource,
    /// `InputContentFileSource` (flattened).
    FileSource,
}

/// How a message is written as JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MsgShape {
    /// Not written itself: its one event is.
    Envelope,
    /// A JSON object `{...}` of its fields.
    Object,
    /// Its fields go into the enclosing object (no braces of its own).
    Flat,
    /// A oneof written as `{"type": arm name, ...the arm's fields}`.
    Union,
    /// A `google.protobuf.Value`.
    Value,
    /// A `google.protobuf.Struct`.
    Struct,
    /// A map entry of a `Struct`.
    Entry,
    /// A `google.protobuf.ListValue`.
    List,
}

impl Msg {
    /// How the message is written.
    pub const fn shape(self) -> MsgShape {
        match self {
            Msg::Envelope => MsgShape::Envelope,
            Msg::Base | Msg::TextPart | Msg::MediaPart => MsgShape::Flat,
            Msg::DataSource | Msg::UrlSource | Msg::FileSource => MsgShape::Flat,
            Msg::Content | Msg::Source => MsgShape::Union,
            Msg::Value => MsgShape::Value,
            Msg::Struct => MsgShape::Struct,
            Msg::Entry => MsgShape::Entry,
            Msg::List => MsgShape::List,
            Msg::Event(_) | Msg::Message | Msg::ToolCall | Msg::Function | Msg::Tool => {
                MsgShape::Object
            }
            Msg::Context | Msg::Resume | Msg::Input | Msg::Interrupt | Msg::Usage => {
                MsgShape::Object
            }
            Msg::Patch => MsgShape::Object,
        }
    }

    /// The message's fields (empty for the shapes the reader handles by
    /// hand: envelope, value, struct, entry, list). An event's are without
    /// its field 1, the [`BASE_FIELD`] every event has.
    pub fn fields(self) -> &'static [F] {
        let table = match self {
            Msg::Envelope | Msg::Value | Msg::Struct | Msg::Entry | Msg::List => return &[],
            Msg::Event(n) => match event_table(n) {
                Some(t) => t,
                None => return &[],
            },
            Msg::Base => Table::BASE as usize,
            Msg::Message => Table::MESSAGE as usize,
            Msg::ToolCall => Table::TOOL_CALL as usize,
            Msg::Function => Table::FUNCTION as usize,
            Msg::Tool => Table::TOOL as usize,
            Msg::Context => Table::CONTEXT as usize,
            Msg::Resume => Table::RESUME as usize,
            Msg::Input => Table::INPUT as usize,
            Msg::Interrupt => Table::INTERRUPT as usize,
            Msg::Usage => Table::USAGE as usize,
            Msg::Patch => Table::PATCH as usize,
            Msg::Content => Table::CONTENT as usize,
            Msg::TextPart => Table::TEXT_PART as usize,
            Msg::MediaPart => Table::MEDIA_PART as usize,
            Msg::Source => Table::SOURCE as usize,
            Msg::DataSource => Table::DATA_SOURCE as usize,
            Msg::UrlSource => Table::URL_SOURCE as usize,
            Msg::FileSource => Table::FILE_SOURCE as usize,
        };
        let end = ENDS.get(table).copied().unwrap_or(0);
        let start = table
            .checked_sub(1)
            .and_then(|t| ENDS.get(t))
            .copied()
            .unwrap_or(0);
        FIELDS
            .get(usize::from(start)..usize::from(end))
            .unwrap_or_default()
    }

    /// The field numbered `number`, if the schema has it.
    pub fn field(self, number: u32) -> Option<&'static F> {
        if number == 1 && matches!(self, Msg::Event(_)) {
            return Some(&BASE_FIELD);
        }
        self.fields()
            .iter()
            .find(|f| u32::from(f.number()) == number)
    }
}

/// How a field's value is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// A string (wire type 2), written as a JSON string.
    Str,
    /// A string that opens the event's `outcome` object:
    /// `"outcome":{"type":"...` (RUN_FINISHED, SUBAGENT_FINISHED).
    Outcome,
    /// A bool (varint).
    Bool,
    /// An int64 (varint), written as a JSON number; beyond 2^53 it is an
    /// error, as in the reference's decoder.
    Int64,
    /// `JsonPatchOperationType` (varint), written as its lower-case name.
    Op,
    /// `BaseEvent.type` (varint): checked against the envelope's arm, not
    /// written.
    Type,
    /// A `google.protobuf.Value`.
    Value,
    /// A `google.protobuf.Struct`.
    Struct,
    /// A message of our schema (its shape says how it is written).
    Msg(Msg),
}

/// What a field is when the message does not carry it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Def {
    /// Absent: no key.
    Absent,
    /// A proto3 string without presence: `""`.
    Empty,
    /// A repeated field that the reference hands on empty: `[]`.
    List,
    /// `JsonPatchOperation.op`: the enum's zero, `"add"`.
    Add,
}

/// One field of a message, packed into 4 bytes (the firmware reading
/// protobuf keeps its 220 fields in flash: as `&str` keys and `bool`s they
/// took 16 bytes each). Read it through its methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct F {
    /// The field number (1 to 15) in the low four bits, then
    /// [`REPEATED`], [`IN_OUTCOME`], [`CONTENT_FORM`].
    bits: u8,
    /// The key: an index into the core's event field names
    /// ([`crate::spec::Field`]'s, already in every image), then into
    /// [`NESTED_KEYS`].
    key: u8,
    /// [`Ty`] as its index in [`TYS`] (low six bits), and the [`Def`]
    /// (high two).
    ty_def: u8,
}

const REPEATED: u8 = 0x10;
const IN_OUTCOME: u8 = 0x20;
const CONTENT_FORM: u8 = 0x40;

impl F {
    /// The field number.
    pub const fn number(&self) -> u8 {
        self.bits & 15
    }

    /// The JSON key it becomes (for a union arm: the arm's `type` name).
    pub fn key(&self) -> &'static str {
        key_name(self.key)
    }

    /// How its value is written.
    pub fn ty(&self) -> Ty {
        TYS.get(usize::from(self.ty_def & 63))
            .copied()
            .unwrap_or(Ty::Str)
    }

    /// Repeated: written as a JSON array.
    pub const fn repeated(&self) -> bool {
        self.bits & REPEATED != 0
    }

    /// Its value when absent.
    pub const fn def(&self) -> Def {
        match self.ty_def >> 6 {
            0 => Def::Absent,
            1 => Def::Empty,
            2 => Def::List,
            _ => Def::Add,
        }
    }

    /// Written inside the event's `outcome` object once that is open
    /// (RUN_FINISHED `interrupts`, `pendingToolCallIds`; SUBAGENT_FINISHED
    /// `interruptIds`).
    pub const fn in_outcome(&self) -> bool {
        self.bits & IN_OUTCOME != 0
    }

    /// One of a message's alternative `content` forms (string, parts,
    /// activity map).
    pub const fn content(&self) -> bool {
        self.bits & CONTENT_FORM != 0
    }
}

/// The keys of nested messages that are not event fields, each followed
/// by a space (one string: an offset each instead of a `&str`).
const NESTED_KEYS: &str = "id toolCalls error function arguments tools parameters context \
    interruptId status payload state forwardedProps resume interrupts pendingToolCallIds \
    interruptIds reason responseSchema expiresAt provider model inputTokens outputTokens \
    totalTokens reasoningTokens cachedInputTokens cacheWriteInputTokens op path from text \
    image audio video document data url file mimeType ";

/// How many names [`NESTED_KEYS`] holds.
// Compile time only (a `const` or `static` item's value): an index out of
// range or a panic here is a build error, not a failure at run time.
#[allow(
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]
const NESTED: usize = {
    let b = NESTED_KEYS.as_bytes();
    let (mut i, mut n) = (0, 0);
    while i < b.len() {
        if b[i] == b' ' {
            n += 1;
        }
        i += 1;
    }
    n
};

/// Where each name of [`NESTED_KEYS`] starts, and where the string ends.
// Compile time only (a `const` or `static` item's value): an index out of
// range or a panic here is a build error, not a failure at run time.
#[allow(
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]
const NESTED_AT: [u16; NESTED + 1] = {
    let b = NESTED_KEYS.as_bytes();
    let mut at = [0u16; NESTED + 1];
    let (mut i, mut n) = (0, 0);
    while i < b.len() {
        if b[i] == b' ' {
            n += 1;
            at[n] = (i + 1) as u16;
        }
        i += 1;
    }
    at
};

/// The key numbered `k` (see [`F::key`]).
fn key_name(k: u8) -> &'static str {
    let k = usize::from(k);
    let fields = crate::spec::FIELD_NAMES;
    if let Some(name) = fields.get(k) {
        return name;
    }
    // The i-th name of NESTED_KEYS, found by counting spaces: a nested
    // key is written once per field of a nested message, and a table of
    // where each starts would take more flash than the scan's code.
    let i = k.wrapping_sub(fields.len());
    let (mut start, mut n) = (0, 0);
    for (j, &b) in NESTED_KEYS.as_bytes().iter().enumerate() {
        if b == b' ' {
            if n == i {
                return NESTED_KEYS.get(start..j).unwrap_or_default();
            }
            n = n.wrapping_add(1);
            start = j.wrapping_add(1);
        }
    }
    ""
}

/// Equal byte strings, at compile time.
// Compile time only (a `const` or `static` item's value): an index out of
// range or a panic here is a build error, not a failure at run time.
#[allow(
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]
const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The number of key `name`; a name in neither list does not compile.
/// The empty key (the `BaseEvent` field, never written) is `u8::MAX`.
// Compile time only (a `const` or `static` item's value): an index out of
// range or a panic here is a build error, not a failure at run time.
#[allow(
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]
const fn key_of(name: &str) -> u8 {
    let name = name.as_bytes();
    if name.is_empty() {
        return u8::MAX;
    }
    let fields = crate::spec::FIELD_NAMES;
    let mut i = 0;
    while i < fields.len() {
        if same(fields[i].as_bytes(), name) {
            return i as u8;
        }
        i += 1;
    }
    let b = NESTED_KEYS.as_bytes();
    let mut j = 0;
    while j < NESTED {
        let (from, to) = (NESTED_AT[j] as usize, NESTED_AT[j + 1] as usize - 1);
        let mut k = 0;
        let mut eq = to - from == name.len();
        while eq && k < name.len() {
            eq = b[from + k] == name[k];
            k += 1;
        }
        if eq {
            assert!(fields.len() + j < 255, "schema: too many keys for a u8");
            return (fields.len() + j) as u8;
        }
        j += 1;
    }
    panic!("schema: a key in neither spec::FIELD_NAMES nor NESTED_KEYS");
}

/// Every [`Ty`] the tables use, by its six bits in [`F`].
const TYS: [Ty; 26] = [
    Ty::Str,
    Ty::Outcome,
    Ty::Bool,
    Ty::Int64,
    Ty::Op,
    Ty::Type,
    Ty::Value,
    Ty::Struct,
    Ty::Msg(Msg::Base),
    Ty::Msg(Msg::Message),
    Ty::Msg(Msg::ToolCall),
    Ty::Msg(Msg::Function),
    Ty::Msg(Msg::Tool),
    Ty::Msg(Msg::Context),
    Ty::Msg(Msg::Resume),
    Ty::Msg(Msg::Input),
    Ty::Msg(Msg::Interrupt),
    Ty::Msg(Msg::Usage),
    Ty::Msg(Msg::Patch),
    Ty::Msg(Msg::Content),
    Ty::Msg(Msg::TextPart),
    Ty::Msg(Msg::MediaPart),
    Ty::Msg(Msg::Source),
    Ty::Msg(Msg::DataSource),
    Ty::Msg(Msg::UrlSource),
    Ty::Msg(Msg::FileSource),
];

/// The byte of `ty` in [`TYS`] (a test checks the two agree); a type
/// not there does not compile.
// Compile time only (a `const` or `static` item's value): an index out of
// range or a panic here is a build error, not a failure at run time.
#[allow(
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]
const fn ty_code(ty: Ty) -> u8 {
    match ty {
        Ty::Str => 0,
        Ty::Outcome => 1,
        Ty::Bool => 2,
        Ty::Int64 => 3,
        Ty::Op => 4,
        Ty::Type => 5,
        Ty::Value => 6,
        Ty::Struct => 7,
        Ty::Msg(m) => match m {
            Msg::Base => 8,
            Msg::Message => 9,
            Msg::ToolCall => 10,
            Msg::Function => 11,
            Msg::Tool => 12,
            Msg::Context => 13,
            Msg::Resume => 14,
            Msg::Input => 15,
            Msg::Interrupt => 16,
            Msg::Usage => 17,
            Msg::Patch => 18,
            Msg::Content => 19,
            Msg::TextPart => 20,
            Msg::MediaPart => 21,
            Msg::Source => 22,
            Msg::DataSource => 23,
            Msg::UrlSource => 24,
            Msg::FileSource => 25,
            Msg::Envelope | Msg::Event(_) | Msg::Value | Msg::Struct | Msg::Entry | Msg::List => {
                panic!("schema: a message no field holds")
            }
        },
    }
}

#[cfg(test)]
#[test]
fn every_type_code_is_its_index() {
    for (i, ty) in TYS.iter().enumerate() {
        assert_eq!(usize::from(ty_code(*ty)), i, "{ty:?}");
    }
}

/// A singular field.
// Compile time only: see `NESTED`.
#[allow(clippy::panic)]
const fn one(number: u8, key: &'static str, ty: Ty, def: Def) -> F {
    if number == 0 || number > 15 {
        panic!("schema: a field number outside 1 to 15 does not fit F");
    }
    let def = match def {
        Def::Absent => 0,
        Def::Empty => 1,
        Def::List => 2,
        Def::Add => 3,
    };
    F {
        bits: number,
        key: key_of(key),
        ty_def: ty_code(ty) | def << 6,
    }
}

/// An optional string (absent: no key).
const fn opt(number: u8, key: &'static str) -> F {
    one(number, key, Ty::Str, Def::Absent)
}

/// A proto3 string without presence (absent: `""`).
const fn req(number: u8, key: &'static str) -> F {
    one(number, key, Ty::Str, Def::Empty)
}

/// A repeated field.
const fn many(number: u8, key: &'static str, ty: Ty, def: Def) -> F {
    let f = one(number, key, ty, def);
    F {
        bits: f.bits | REPEATED,
        ..f
    }
}

/// A field written inside the outcome object.
const fn outcome_part(f: F) -> F {
    F {
        bits: f.bits | IN_OUTCOME,
        ..f
    }
}

/// A `content` form of a message.
const fn content(f: F) -> F {
    F {
        bits: f.bits | CONTENT_FORM,
        ..f
    }
}

/// Every event message starts with its `BaseEvent` (field 1): not in the
/// events' tables (29 copies), [`Msg::field`] hands it out.
pub const BASE_FIELD: F = one(1, "", Ty::Msg(Msg::Base), Def::Absent);

/// The envelope's arms: field number `n` carries the event type
/// `ARMS[n - 1]`, whose `BaseEvent.type` must be `TYPE_NUMBERS[n - 1]`.
/// Its wire name is [`arm_name`]'s.
pub const ARMS: [EventType; 31] = [
    EventType::TextMessageStart,
    EventType::TextMessageContent,
    EventType::TextMessageEnd,
    EventType::ToolCallStart,
    EventType::ToolCallArgs,
    EventType::ToolCallEnd,
    EventType::StateSnapshot,
    EventType::StateDelta,
    EventType::MessagesSnapshot,
    EventType::Raw,
    EventType::Custom,
    EventType::RunStarted,
    EventType::RunFinished,
    EventType::RunError,
    EventType::StepStarted,
    EventType::StepFinished,
    EventType::TextMessageChunk,
    EventType::ToolCallChunk,
    EventType::SubagentStarted,
    EventType::SubagentFinished,
    EventType::SubagentError,
    EventType::ToolCallResult,
    EventType::ActivitySnapshot,
    EventType::ActivityDelta,
    EventType::ReasoningStart,
    EventType::ReasoningMessageStart,
    EventType::ReasoningMessageContent,
    EventType::ReasoningMessageEnd,
    EventType::ReasoningMessageChunk,
    EventType::ReasoningEnd,
    EventType::ReasoningEncryptedValue,
];

/// The wire name of envelope arm `n` (1 to 31), from the core's own table
/// of event type names (no second copy of the names in flash).
pub fn arm_name(n: u8) -> Option<&'static str> {
    let t = ARMS.get(usize::from(n).wrapping_sub(1))?;
    crate::event::TYPE_NAMES.get(*t as usize).copied()
}

/// `EventType` of `events.proto`, in envelope-arm order (the enum numbers
/// the types differently from the envelope's field numbers).
pub const TYPE_NUMBERS: [u8; 31] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 19, 20, 16, 17, 18, 21, 22, 23, 24, 25,
    26, 27, 28, 29, 30,
];

/// `JsonPatchOperationType`, by number.
pub const OPS: [&str; 6] = ["add", "remove", "replace", "move", "copy", "test"];

/// The table of the event message of envelope arm `n`.
fn event_table(n: u8) -> Option<usize> {
    EVENT_TABLES
        .get(usize::from(n).wrapping_sub(1))
        .map(|&t| usize::from(t))
}

/// The table of each envelope arm's event, in arm order: a byte each
/// (a `match` compiles to a word each).
static EVENT_TABLES: [u8; 31] = [
    Table::TEXT_MESSAGE_START as u8,
    Table::TEXT_MESSAGE_CONTENT as u8,
    Table::ID_END_MESSAGE as u8,
    Table::TOOL_CALL_START as u8,
    Table::TOOL_CALL_ARGS as u8,
    Table::ID_END_TOOL as u8,
    Table::STATE_SNAPSHOT as u8,
    Table::STATE_DELTA as u8,
    Table::MESSAGES_SNAPSHOT as u8,
    Table::RAW as u8,
    Table::CUSTOM as u8,
    Table::RUN_STARTED as u8,
    Table::RUN_FINISHED as u8,
    Table::RUN_ERROR as u8,
    Table::STEP as u8,
    Table::STEP as u8,
    Table::TEXT_MESSAGE_CHUNK as u8,
    Table::TOOL_CALL_CHUNK as u8,
    Table::SUBAGENT_STARTED as u8,
    Table::SUBAGENT_FINISHED as u8,
    Table::SUBAGENT_ERROR as u8,
    Table::TOOL_CALL_RESULT as u8,
    Table::ACTIVITY_SNAPSHOT as u8,
    Table::ACTIVITY_DELTA as u8,
    Table::REASONING_ID as u8,
    Table::REASONING_MESSAGE_START as u8,
    Table::REASONING_MESSAGE_CONTENT as u8,
    Table::REASONING_ID as u8,
    Table::REASONING_MESSAGE_CHUNK as u8,
    Table::REASONING_ID as u8,
    Table::REASONING_ENCRYPTED_VALUE as u8,
];

/// Declares the message tables: every message's fields go into one array,
/// [`FIELDS`], message after message, and [`Table`] names each message's
/// run of it (its end in [`ENDS`]): a byte per message instead of an
/// 8-byte slice, and one lookup instead of a jump per message.
macro_rules! tables {
    ($($(#[$doc:meta])* $name:ident: [$($f:expr),+ $(,)?];)*) => {
        /// A message table of [`FIELDS`].
        #[derive(Debug, Clone, Copy)]
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        enum Table {
            $($(#[$doc])* $name,)*
        }

        /// Every table's fields, in [`Table`]'s order.
        static FIELDS: [F; 0 $(+ [$($f),+].len())*] = [$($($f,)+)*];

        /// Where each table ends in [`FIELDS`] (it starts where the one
        /// before ends).
        // Compile time only: see `NESTED`.
        #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
        static ENDS: [u8; [$([$($f),+].len()),*].len()] = {
            let lens = [$([$($f),+].len()),*];
            let mut ends = [0u8; [$([$($f),+].len()),*].len()];
            let (mut i, mut sum) = (0, 0);
            while i < lens.len() {
                sum += lens[i];
                assert!(sum < 256, "schema: more fields than a u8 indexes");
                ends[i] = sum as u8;
                i += 1;
            }
            ends
        };
    };
}

tables! {
    BASE: [
        one(1, "type", Ty::Type, Def::Absent),
        one(2, "timestamp", Ty::Int64, Def::Absent),
        one(3, "rawEvent", Ty::Value, Def::Absent),
        one(4, "metadata", Ty::Struct, Def::Absent),
    ];
    TEXT_MESSAGE_START: [
        req(2, "messageId"),
        opt(3, "role"),
        opt(4, "name"),
        opt(5, "subagentRunId"),
    ];
    TEXT_MESSAGE_CONTENT: [
        req(2, "messageId"),
        req(3, "delta"),
        opt(4, "subagentRunId"),
    ];
    ID_END_MESSAGE: [req(2, "messageId"), opt(3, "subagentRunId")];
    ID_END_TOOL: [req(2, "toolCallId"), opt(3, "subagentRunId")];
    TEXT_MESSAGE_CHUNK: [
        opt(2, "messageId"),
        opt(3, "role"),
        opt(4, "delta"),
        opt(5, "name"),
        opt(6, "subagentRunId"),
    ];
    TOOL_CALL_START: [
        req(2, "toolCallId"),
        req(3, "toolCallName"),
        opt(4, "parentMessageId"),
        opt(5, "subagentRunId"),
    ];
    TOOL_CALL_ARGS: [
        req(2, "toolCallId"),
        req(3, "delta"),
        opt(4, "subagentRunId"),
    ];
    TOOL_CALL_CHUNK: [
        opt(2, "toolCallId"),
        opt(3, "toolCallName"),
        opt(4, "parentMessageId"),
        opt(5, "delta"),
        opt(6, "subagentRunId"),
    ];
    TOOL_CALL_RESULT: [
        opt(2, "subagentRunId"),
        req(3, "messageId"),
        req(4, "toolCallId"),
        content(opt(5, "content")),
        opt(6, "role"),
        content(many(7, "content", Ty::Msg(Msg::Content), Def::Absent)),
    ];
    STATE_SNAPSHOT: [
        one(2, "snapshot", Ty::Value, Def::Absent),
        opt(3, "subagentRunId"),
    ];
    STATE_DELTA: [
        many(2, "delta", Ty::Msg(Msg::Patch), Def::List),
        opt(3, "subagentRunId"),
    ];
    MESSAGES_SNAPSHOT: [
        many(2, "messages", Ty::Msg(Msg::Message), Def::List),
    ];
    ACTIVITY_SNAPSHOT: [
        opt(2, "subagentRunId"),
        req(3, "messageId"),
        req(4, "activityType"),
        one(5, "content", Ty::Struct, Def::Absent),
        one(6, "replace", Ty::Bool, Def::Absent),
    ];
    ACTIVITY_DELTA: [
        opt(2, "subagentRunId"),
        req(3, "messageId"),
        req(4, "activityType"),
        many(5, "patch", Ty::Msg(Msg::Patch), Def::List),
    ];
    RAW: [
        one(2, "event", Ty::Value, Def::Absent),
        opt(3, "source"),
        opt(4, "subagentRunId"),
    ];
    CUSTOM: [
        req(2, "name"),
        one(3, "value", Ty::Value, Def::Absent),
        opt(4, "subagentRunId"),
    ];
    RUN_STARTED: [
        req(2, "threadId"),
        req(3, "runId"),
        opt(4, "parentRunId"),
        one(5, "input", Ty::Msg(Msg::Input), Def::Absent),
        opt(6, "protocolVersion"),
    ];
    RUN_FINISHED: [
        req(2, "threadId"),
        req(3, "runId"),
        one(4, "result", Ty::Value, Def::Absent),
        one(5, "outcome", Ty::Outcome, Def::Absent),
        outcome_part(many(6, "interrupts", Ty::Msg(Msg::Interrupt), Def::Absent)),
        many(7, "usage", Ty::Msg(Msg::Usage), Def::Absent),
        outcome_part(many(8, "pendingToolCallIds", Ty::Str, Def::Absent)),
    ];
    RUN_ERROR: [
        opt(2, "code"),
        req(3, "message"),
        many(4, "usage", Ty::Msg(Msg::Usage), Def::Absent),
    ];
    /// STEP_STARTED, STEP_FINISHED.
    STEP: [req(2, "stepName"), opt(3, "subagentRunId")];
    /// REASONING_START, REASONING_MESSAGE_END, REASONING_END.
    REASONING_ID: [opt(2, "subagentRunId"), req(3, "messageId")];
    REASONING_MESSAGE_START: [
        opt(2, "subagentRunId"),
        req(3, "messageId"),
        req(4, "role"),
    ];
    REASONING_MESSAGE_CONTENT: [
        opt(2, "subagentRunId"),
        req(3, "messageId"),
        req(4, "delta"),
    ];
    REASONING_MESSAGE_CHUNK: [
        opt(2, "subagentRunId"),
        opt(3, "messageId"),
        opt(4, "delta"),
    ];
    REASONING_ENCRYPTED_VALUE: [
        opt(2, "subagentRunId"),
        req(3, "subtype"),
        req(4, "entityId"),
        req(5, "encryptedValue"),
    ];
    SUBAGENT_STARTED: [
        req(2, "subagentRunId"),
        req(3, "name"),
        opt(4, "description"),
        opt(5, "parentSubagentRunId"),
        opt(6, "parentToolCallId"),
        opt(7, "parentMessageId"),
    ];
    SUBAGENT_FINISHED: [
        req(2, "subagentRunId"),
        one(3, "result", Ty::Value, Def::Absent),
        one(4, "outcome", Ty::Outcome, Def::Absent),
        outcome_part(many(5, "interruptIds", Ty::Str, Def::Absent)),
    ];
    SUBAGENT_ERROR: [
        req(2, "subagentRunId"),
        req(3, "message"),
        opt(4, "code"),
    ];
    MESSAGE: [
        req(1, "id"),
        req(2, "role"),
        content(opt(3, "content")),
        opt(4, "name"),
        many(5, "toolCalls", Ty::Msg(Msg::ToolCall), Def::Absent),
        opt(6, "toolCallId"),
        opt(7, "error"),
        content(many(8, "content", Ty::Msg(Msg::Content), Def::Absent)),
        one(9, "metadata", Ty::Struct, Def::Absent),
        opt(10, "subagentRunId"),
        opt(11, "encryptedValue"),
        opt(12, "activityType"),
        content(one(13, "content", Ty::Struct, Def::Absent)),
    ];
    TOOL_CALL: [
        req(1, "id"),
        req(2, "type"),
        one(3, "function", Ty::Msg(Msg::Function), Def::Absent),
        one(4, "metadata", Ty::Struct, Def::Absent),
        opt(5, "encryptedValue"),
    ];
    FUNCTION: [req(1, "name"), req(2, "arguments")];
    TOOL: [
        req(1, "name"),
        req(2, "description"),
        one(3, "parameters", Ty::Value, Def::Absent),
        one(4, "metadata", Ty::Struct, Def::Absent),
    ];
    CONTEXT: [req(1, "description"), req(2, "value")];
    RESUME: [
        req(1, "interruptId"),
        req(2, "status"),
        one(3, "payload", Ty::Value, Def::Absent),
        one(4, "metadata", Ty::Struct, Def::Absent),
    ];
    INPUT: [
        req(1, "threadId"),
        req(2, "runId"),
        opt(3, "parentRunId"),
        one(4, "state", Ty::Value, Def::Absent),
        many(5, "messages", Ty::Msg(Msg::Message), Def::List),
        many(6, "tools", Ty::Msg(Msg::Tool), Def::List),
        many(7, "context", Ty::Msg(Msg::Context), Def::List),
        one(8, "forwardedProps", Ty::Value, Def::Absent),
        many(9, "resume", Ty::Msg(Msg::Resume), Def::List),
        opt(10, "protocolVersion"),
    ];
    INTERRUPT: [
        req(1, "id"),
        req(2, "reason"),
        opt(3, "message"),
        opt(4, "toolCallId"),
        one(5, "responseSchema", Ty::Value, Def::Absent),
        opt(6, "expiresAt"),
        one(7, "metadata", Ty::Value, Def::Absent),
        opt(8, "subagentRunId"),
    ];
    USAGE: [
        opt(1, "provider"),
        opt(2, "model"),
        one(3, "inputTokens", Ty::Int64, Def::Absent),
        one(4, "outputTokens", Ty::Int64, Def::Absent),
        one(5, "totalTokens", Ty::Int64, Def::Absent),
        one(6, "reasoningTokens", Ty::Int64, Def::Absent),
        one(7, "cachedInputTokens", Ty::Int64, Def::Absent),
        one(8, "cacheWriteInputTokens", Ty::Int64, Def::Absent),
    ];
    PATCH: [
        one(1, "op", Ty::Op, Def::Add),
        req(2, "path"),
        opt(3, "from"),
        one(4, "value", Ty::Value, Def::Absent),
    ];
    CONTENT: [
        one(1, "text", Ty::Msg(Msg::TextPart), Def::Absent),
        one(2, "image", Ty::Msg(Msg::MediaPart), Def::Absent),
        one(3, "audio", Ty::Msg(Msg::MediaPart), Def::Absent),
        one(4, "video", Ty::Msg(Msg::MediaPart), Def::Absent),
        one(5, "document", Ty::Msg(Msg::MediaPart), Def::Absent),
    ];
    TEXT_PART: [
        req(1, "text"),
        opt(2, "id"),
        one(3, "metadata", Ty::Value, Def::Absent),
    ];
    MEDIA_PART: [
        one(1, "source", Ty::Msg(Msg::Source), Def::Absent),
        one(2, "metadata", Ty::Value, Def::Absent),
        opt(3, "id"),
    ];
    SOURCE: [
        one(1, "data", Ty::Msg(Msg::DataSource), Def::Absent),
        one(2, "url", Ty::Msg(Msg::UrlSource), Def::Absent),
        one(3, "file", Ty::Msg(Msg::FileSource), Def::Absent),
    ];
    DATA_SOURCE: [req(1, "value"), req(2, "mimeType")];
    URL_SOURCE: [req(1, "value"), opt(2, "mimeType")];
    FILE_SOURCE: [req(1, "value"), opt(2, "provider"), opt(3, "mimeType")];
}
