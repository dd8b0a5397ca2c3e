//! The whole client: bytes in, `{ messages, state }` out.
//!
//! [`Client`] runs the core's framing, decoding, chunk expansion and
//! verification, then folds every verified event into the [`Reducer`]. It
//! keeps each frame's text (up to [`Limits::max_frame_bytes`]) so that the
//! reducer gets whole values: the frame's value is built from the core
//! tokenizer's tokens (so both layers read the same text the same way: a
//! lone UTF-16 surrogate escape is U+FFFD in both), and nested messages
//! (`MESSAGES_SNAPSHOT`, `RUN_STARTED.input`) are checked *before* the
//! frame's events are verified, so a bad one is a `decode` error for its
//! frame.
//!
//! # Strict and keep-going
//!
//! By default (strict, as the reference client) the first rejected frame
//! stops the stream. With [`Client::keep_going`] a rejected frame is
//! recorded in [`Client::errors`] and skipped as a whole: none of its
//! events reaches the reducer, the verifier and the chunk expander are as
//! before it, and the stream goes on with the next frame.
//!
//! # Limits
//!
//! Every resource is bounded by [`Limits`]: a frame longer than
//! `max_frame_bytes` is a `decode` error with code `capacity`; an event that
//! would pass a reducer limit (messages, the bytes the messages hold, state
//! size or depth) is a `verify` error with code `capacity`, for the whole
//! frame, and nothing of that frame is applied. The limits count everything
//! the client keeps (see [`ReducerLimits`] and [`Limits::max_trace_bytes`]),
//! exactly and incrementally, so memory stays near them. The core's rules
//! run over the host's growable store ([`crate::store`], feature `grow`,
//! on with `std`): open messages, tool calls and steps and ids of any
//! length are taken ([`UNBOUNDED`]), and JSON may nest [`DEPTH`] (512)
//! levels deep. Without `grow` (a microcontroller) the reader keeps fixed
//! capacities ([`OPEN_MESSAGES`], [`ID_CAPACITY`] and the rest).
//!
//! ```
//! use agui_alloc::client::Client;
//!
//! let stream = br#"data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}
//!
//! data: {"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"Hello"}
//!
//! data: {"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":", world"}
//!
//! "#;
//! let mut client = Client::new();
//! for piece in stream.chunks(7) {
//!     client.feed(piece).unwrap();
//! }
//! client.finish().unwrap();
//! assert_eq!(client.messages()[0].text(), Some("Hello, world"));
//! assert_eq!(client.accepted(), 3);
//! ```

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use agui_core::chunk::{ChunkPart, Item};
use agui_core::decode::{Field, Header, PartKind};
use agui_core::error::{Code, Stage};
use agui_core::event::{EventType, Origin};
use agui_core::frame::{Format, FrameEvent, Framer};
#[cfg(feature = "proto")]
use agui_core::proto::{ProtoFramer, ProtoPiece};

use agui_core::pipeline::Mode;
use agui_core::protocol::{Protocol, Select};
use serde_json::{Map, Value};

use crate::event::{content_event, Event};
use crate::hooks::Subscriber;
use crate::model::{DecodeError, Dialect, Message};
use crate::readers::Readers;
use crate::reduce::{Changed, Limit, LimitError, Reducer, ReducerLimits};
use crate::size::{json_size, Size};
#[cfg(feature = "v1")]
use crate::v1;
use crate::value::frame_value_sized;

pub use crate::readers::{OpenItems, V1_AGENTS, V1_OWNERS};
pub use crate::readers::{
    DEPTH, ID_CAPACITY, OPEN_MESSAGES, OPEN_STEPS, OPEN_TOOL_CALLS, UNBOUNDED,
};

/// Resource limits of the client. Each has a default that a desktop or a
/// kiosk can live with; a small device lowers them.
///
/// ```
/// use agui_alloc::client::{Client, Limits};
/// let limits = Limits { max_frame_bytes: 64 << 10, max_messages: 200, ..Limits::default() };
/// let mut client = Client::new().with_limits(limits);
/// let long = format!("{{\"type\":\"RAW\",\"event\":\"{}\"}}\n", "x".repeat(70_000));
/// let err = client.feed(long.as_bytes()).unwrap_err();
/// assert_eq!(err.code.as_str(), "capacity");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Longest frame text kept for the reducer (default 16 MiB). A longer
    /// frame is a `decode` error with code `capacity`.
    pub max_frame_bytes: usize,
    /// Most messages (default 10 000): [`ReducerLimits::max_messages`].
    pub max_messages: usize,
    /// Most bytes the messages hold, ids, names and metadata included
    /// (default 64 MiB): [`ReducerLimits::max_message_bytes`].
    pub max_message_bytes: usize,
    /// Largest state as compact JSON, and largest activity content
    /// (default 16 MiB): [`ReducerLimits::max_state_bytes`].
    pub max_state_bytes: usize,
    /// Deepest state or activity content (default 512 levels):
    /// [`ReducerLimits::max_state_depth`].
    pub max_state_depth: usize,
    /// Most errors kept by [`Client::errors`] in keep-going mode (default
    /// 10 000); later ones are only counted ([`Client::error_count`]).
    pub max_errors: usize,
    /// Most bytes the core reader keeps for the items it tracks: the ids
    /// of the open messages, tool calls and steps, and in AG-UI 1.0 its
    /// owner tables (default 16 MiB). A frame that would pass it is a
    /// `verify` error with code `capacity` naming `max_reader_bytes`, and
    /// nothing of it is applied.
    pub max_reader_bytes: usize,
    /// Largest trace ([`Client::with_trace`]), counting each entry as 16
    /// bytes plus the compact JSON of its arguments value (default 256 MiB).
    /// A trace that would pass it stops the stream, in keep-going mode too,
    /// with a `verify` error of code `capacity`: the trace cannot be
    /// completed, and it is never cut.
    pub max_trace_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        let reducer = ReducerLimits::default();
        Limits {
            max_frame_bytes: 16 << 20,
            max_messages: reducer.max_messages,
            max_message_bytes: reducer.max_message_bytes,
            max_state_bytes: reducer.max_state_bytes,
            max_state_depth: reducer.max_state_depth,
            max_reader_bytes: 16 << 20,
            max_errors: 10_000,
            max_trace_bytes: 256 << 20,
        }
    }
}

impl Limits {
    /// The reducer's share of the limits.
    pub fn reducer(&self) -> ReducerLimits {
        ReducerLimits {
            max_messages: self.max_messages,
            max_message_bytes: self.max_message_bytes,
            max_state_bytes: self.max_state_bytes,
            max_state_depth: self.max_state_depth,
        }
    }
}

/// A rejected frame: where, which stage, the stable code, what exactly
/// (as types), and a message for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientError {
    /// Index of the frame (from 0).
    pub frame: u32,
    /// The stage that rejected it.
    pub stage: Stage,
    /// The stable code (SPEC section 4).
    pub code: Code,
    /// The event type concerned, when known.
    pub event: Option<EventType>,
    /// What exactly went wrong; read this, never the message's text.
    pub detail: ClientDetail,
    /// What went wrong, for a person (made from `detail`).
    pub message: String,
}

/// What exactly went wrong in a [`ClientError`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientDetail {
    /// The core refused the frame: decoding, chunk expansion or an
    /// ordering rule, with the core's own detail.
    Core(Box<agui_core::Error>),
    /// A value this layer checks (nested messages, run input, outcome),
    /// with its path inside the event.
    Decode(DecodeError),
    /// Applying the frame would pass a reducer limit.
    Limit(LimitError),
    /// The frame is longer than [`Limits::max_frame_bytes`].
    FrameTooLong {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The trace would pass [`Limits::max_trace_bytes`].
    TraceTooLong {
        /// The bytes the trace would need.
        needed: usize,
        /// The limit, in bytes.
        limit: usize,
    },
}

impl ClientError {
    fn from_core(e: &agui_core::Error) -> Self {
        ClientError {
            frame: e.frame,
            stage: e.stage,
            code: e.code,
            event: e.event,
            message: e.message().to_string(),
            detail: ClientDetail::Core(Box::new(*e)),
        }
    }

    fn limit(frame: u32, kind: EventType, e: &LimitError) -> Self {
        ClientError {
            frame,
            stage: Stage::Verify,
            code: Code::Capacity,
            event: Some(kind),
            message: format!("cannot apply '{kind}': {e}"),
            detail: ClientDetail::Limit(e.clone()),
        }
    }

    fn decode(frame: u32, kind: Option<EventType>, e: DecodeError) -> Self {
        let message = match kind {
            Some(kind) => format!("{kind}: {e}"),
            None => e.to_string(),
        };
        ClientError {
            frame,
            stage: Stage::Decode,
            code: Code::Decode,
            event: kind,
            message,
            detail: ClientDetail::Decode(e),
        }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "frame {}: {} error [{}]: {}",
            self.frame,
            self.stage.as_str(),
            self.code.as_str(),
            self.message
        )
    }
}

impl core::error::Error for ClientError {}

/// One verified event as the replay trace shows it (SPEC section 7).
#[derive(Debug, Clone, PartialEq)]
pub struct TraceEntry {
    /// The event's type.
    pub kind: EventType,
    /// What it changed.
    pub changed: Changed,
    /// `partialArgs` (TOOL_CALL_ARGS) or `args` (TOOL_CALL_END), when the
    /// tool call exists in the messages.
    pub args: Option<(&'static str, Value)>,
}

impl TraceEntry {
    /// The entry as the replay tool prints it:
    /// `{"type", "changed", "partialArgs"? | "args"?}`.
    ///
    /// ```
    /// use agui_alloc::client::Client;
    /// let mut client = Client::new().with_trace();
    /// client.feed(br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#).unwrap();
    /// client.finish().unwrap();
    /// let entry = client.trace()[0].to_json();
    /// assert_eq!(entry, serde_json::json!({"type": "RUN_STARTED", "changed": ""}));
    /// ```
    pub fn to_json(&self) -> Value {
        let mut entry = Map::new();
        entry.insert("type".to_owned(), self.kind.as_str().into());
        entry.insert("changed".to_owned(), self.changed.as_str().into());
        if let Some((key, value)) = &self.args {
            entry.insert((*key).to_owned(), value.clone());
        }
        Value::Object(entry)
    }
}

/// The frame's own event, from the parsed frame, which it may take values
/// out of: a `STATE_SNAPSHOT`'s `snapshot` is moved into the event, not
/// copied (the frame is dropped once its own event is built).
fn own_event(
    kind: EventType,
    id: &str,
    frame: &mut Value,
    dialect: Dialect,
) -> Result<Event, DecodeError> {
    let mut snapshot = None;
    if kind == EventType::StateSnapshot {
        if let Value::Object(members) = frame {
            snapshot = members.remove(Field::Snapshot.as_str());
        }
    }
    // Decoding reads `snapshot` as an optional value of any kind: without
    // it the event is the same but for the snapshot, put back here.
    let mut event = Event::from_core_in(kind, Origin::Frame, id, frame, dialect)?;
    if let (Event::StateSnapshot(e), Some(snapshot)) = (&mut event, snapshot) {
        e.snapshot = Some(snapshot);
    }
    Ok(event)
}

/// The client's AG-UI 1.0 part (feature `v1`), in one value.
#[cfg(feature = "v1")]
#[derive(Default)]
struct V1State {
    /// How the protocol is chosen (SPEC 9.1).
    select: Select,
    /// The inbound processing of each frame's value (the compatibility
    /// boundary and enforcement, SPEC 9.3, 9.4), once the stream speaks 1.0.
    inbound: Option<v1::Inbound>,
    /// The warnings so far (the first `max_errors`).
    warnings: Vec<v1::InboundWarning>,
    /// How many warnings there were in all.
    warning_count: u64,
}

/// The AG-UI client: see the [module docs](self).
pub struct Client {
    framer: Framer,
    /// The protobuf reader, for a client made with [`Client::proto`]
    /// (the text framer then goes unused).
    #[cfg(feature = "proto")]
    proto: Option<Box<ProtoFramer>>,
    reader: Readers,
    /// The protocol whose shapes and fold rules apply, once the first
    /// frame decided it.
    dialect: Dialect,
    /// AG-UI 1.0: how the protocol is chosen, the inbound processing and
    /// its warnings.
    #[cfg(feature = "v1")]
    v1: V1State,
    frame: Vec<u8>,
    /// Keep-going: the rest of the current frame is skipped.
    skipping: bool,
    /// The current frame's string `delta`, as the core hands it out: the
    /// whole event of a plain text or argument delta (see `delta_event`).
    delta: String,
    /// Buffers kept from frame to frame, so that a frame allocates nothing
    /// once they have grown (see [`Scratch`]).
    scratch: Scratch,
    /// Set while [`feed`](Self::feed) or [`finish`](Self::finish) runs:
    /// there is no subscriber, so the reducer skips the hook steps.
    unobserved: bool,
    /// Frame index of the current frame.
    index: u32,
    reducer: Reducer,
    limits: Limits,
    mode: Mode,
    accepted: u32,
    /// Strict: the error that stopped the stream.
    failed: Option<ClientError>,
    /// Keep-going: the skipped frames' errors (the first `max_errors`).
    errors: Vec<ClientError>,
    error_count: u64,
    trace: Option<Vec<TraceEntry>>,
    /// Bytes of the trace, as [`Limits::max_trace_bytes`] counts them.
    trace_bytes: usize,
}

/// Applies one event of frame `frame`, which the client gives up to the
/// reducer; without a subscriber (`unobserved`) the hook steps are skipped.
/// A free function, so that the event may be the client's spare while the
/// reducer is borrowed.
// Inlined: it runs for every delta frame (out of line it cost 0.3 M
// instructions on the 20k chat).
#[inline(always)]
fn apply_one(
    reducer: &mut Reducer,
    unobserved: bool,
    frame: u32,
    ev: &mut Event,
    subscriber: &mut dyn Subscriber,
) -> Result<Changed, ClientError> {
    let applied = if unobserved {
        reducer.try_apply_owned(ev, None)
    } else {
        reducer.try_apply_owned(ev, Some(subscriber))
    };
    applied.map_err(|e| ClientError::limit(frame, ev.kind(), &e))
}

/// The frame's own event, once built: the client's spare content event
/// (a bare delta frame, filled in place), or one decoded from the frame.
enum Own {
    Spare,
    Event(Event),
}

/// The verified steps of one frame: type, origin and id, the ids kept in
/// one string.
#[derive(Debug, Default)]
struct Steps {
    ids: String,
    list: Vec<(EventType, Origin, usize, usize)>,
}

impl Steps {
    fn clear(&mut self) {
        self.ids.clear();
        self.list.clear();
    }

    fn push(&mut self, kind: EventType, origin: Origin, id: &str) {
        let start = self.ids.len();
        // A frame's own event is built from the frame, which names its id.
        if origin != Origin::Frame {
            self.ids.push_str(id);
        }
        self.list.push((kind, origin, start, self.ids.len()));
    }

    /// Whether the frame made one event, its own.
    fn only_own(&self) -> bool {
        matches!(self.list.as_slice(), [(_, Origin::Frame, _, _)])
    }

    fn iter(&self) -> impl Iterator<Item = (EventType, Origin, &str)> + '_ {
        let id = |start: usize, end: usize| self.ids.get(start..end).unwrap_or_default();
        self.list
            .iter()
            .map(move |&(kind, origin, start, end)| (kind, origin, id(start, end)))
    }
}

/// Buffers the client keeps from frame to frame: a text or argument delta,
/// the bulk of a stream, then costs no allocation once they have grown.
#[derive(Debug, Default)]
struct Scratch {
    steps: Steps,
    /// The frame's events (emptied after each frame, its capacity kept).
    events: Vec<Event>,
    /// A content event already applied, whose strings the next one reuses.
    spare: Option<Event>,
}

impl Scratch {
    /// Makes the spare the CONTENT / ARGS event of `item` for message or
    /// call `id`, with the text in `delta` (swapped for the spare's old
    /// buffer, which the caller clears), reusing the spare's strings when it
    /// is of the same type.
    fn fill_content(&mut self, item: Item, id: &str, delta: &mut String) {
        fn refill(own_id: &mut String, own_delta: &mut String, id: &str, delta: &mut String) {
            own_id.clear();
            own_id.push_str(id);
            core::mem::swap(own_delta, delta);
        }
        let reused = match (item, &mut self.spare) {
            (Item::Text, Some(Event::TextMessageContent(c)))
            | (Item::Reasoning, Some(Event::ReasoningMessageContent(c))) => {
                refill(&mut c.message_id, &mut c.delta, id, delta);
                c.metadata = None;
                true
            }
            (Item::ToolCall, Some(Event::ToolCallArgs(a))) => {
                refill(&mut a.tool_call_id, &mut a.delta, id, delta);
                a.metadata = None;
                true
            }
            _ => false,
        };
        if !reused {
            self.spare = Some(content_event(item, id.into(), core::mem::take(delta), None));
        }
    }

    /// Empties `events`, keeping a content event's strings for the next one.
    fn recycle(&mut self, events: &mut Vec<Event>) {
        for ev in events.drain(..) {
            self.keep_spare(ev);
        }
    }

    /// Keeps `ev` as the spare if it is a content event; drops it if not.
    fn keep_spare(&mut self, ev: Event) {
        if matches!(
            ev,
            Event::TextMessageContent(_)
                | Event::ReasoningMessageContent(_)
                | Event::ToolCallArgs(_)
        ) {
            self.spare = Some(ev);
        }
    }
}

impl Default for Client {
    fn default() -> Self {
        Self::new()
    }
}

impl Client {
    /// A client that detects SSE or NDJSON, with empty messages and `{}` state.
    pub fn new() -> Self {
        Self::with_format(None)
    }

    /// A client for AG-UI's protobuf encoding
    /// (`application/vnd.ag-ui.event+proto`: length-prefixed `Event`
    /// messages of `@ag-ui/proto` 1.0.0), read by the core's
    /// [`ProtoFramer`] into the same pipeline as SSE and NDJSON (SPEC "The
    /// protobuf transport").
    ///
    /// ```
    /// use agui_alloc::Client;
    /// // RUN_STARTED { threadId "t", runId "r" }, with its length.
    /// let frame = [0, 0, 0, 12, 0x62, 0x0a, 0x0a, 0x02, 0x08, 0x0b, 0x12, 0x01, b't', 0x1a, 0x01, b'r'];
    /// let mut client = Client::proto();
    /// client.feed(&frame).unwrap();
    /// client.finish().unwrap();
    /// assert_eq!(client.accepted(), 1);
    /// ```
    #[cfg(feature = "proto")]
    pub fn proto() -> Self {
        Client {
            proto: Some(Box::new(ProtoFramer::new())),
            ..Self::with_format(None)
        }
    }

    /// Reads AG-UI's protobuf encoding from now on, as [`Client::proto`]
    /// does, keeping everything else this client was built with (limits,
    /// initial messages and state, protocol, mode): for a transport that
    /// learns the encoding after it made the client, from an HTTP
    /// response's `Content-Type`. Call it before the first bytes: bytes
    /// the text framer already holds are not re-read. A client already
    /// reading protobuf is left as it is.
    #[cfg(feature = "proto")]
    pub fn set_proto(&mut self) {
        if self.proto.is_none() {
            self.proto = Some(Box::new(ProtoFramer::new()));
        }
    }

    /// Whether this client reads the protobuf encoding ([`Client::proto`]).
    pub fn is_proto(&self) -> bool {
        #[cfg(feature = "proto")]
        return self.proto.is_some();
        #[cfg(not(feature = "proto"))]
        false
    }

    /// A client for a known format (`None`: detect from the first byte).
    pub fn with_format(format: Option<Format>) -> Self {
        Client {
            framer: Framer::new(format),
            #[cfg(feature = "proto")]
            proto: None,
            reader: Readers::new(Select::default()),
            dialect: Dialect::Current,
            #[cfg(feature = "v1")]
            v1: V1State::default(),
            frame: Vec::new(),
            delta: String::new(),
            scratch: Scratch::default(),
            unobserved: false,
            skipping: false,
            index: 0,
            reducer: Reducer::new(),
            limits: Limits::default(),
            mode: Mode::Strict,
            accepted: 0,
            failed: None,
            errors: Vec::new(),
            error_count: 0,
            trace: None,
            trace_bytes: 0,
        }
    }

    /// Keep-going mode: a rejected frame is recorded in
    /// [`errors`](Self::errors) and skipped, and the stream goes on (see
    /// the [module docs](self)).
    ///
    /// ```
    /// use agui_alloc::client::Client;
    ///
    /// let stream = b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\
    ///                {\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m\",\"delta\":\"Hel\"}\n\
    ///                {\"type\":\"TEXT_MESSAGE_CHUNK\",\"mess\x01geId\":\"m\",\"delta\":\"??\"}\n\
    ///                {\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m\",\"delta\":\"lo\"}\n";
    /// let mut client = Client::new().keep_going();
    /// client.feed(stream).unwrap();
    /// client.finish().unwrap();
    /// assert_eq!(client.messages()[0].text(), Some("Hello"));
    /// assert_eq!(client.errors().len(), 1);
    /// assert_eq!(client.errors()[0].frame, 2);
    /// assert_eq!(client.accepted(), 3);
    /// ```
    pub fn keep_going(self) -> Self {
        self.with_mode(Mode::KeepGoing)
    }

    /// Which protocol the client speaks (SPEC 9.1): the current one (the
    /// default), AG-UI 1.0, or [`Select::Auto`]: 1.0 when the stream's
    /// first frame is a `RUN_STARTED` announcing it. A client that may
    /// speak 1.0 holds its fixed owner tables (see [`V1_OWNERS`]).
    ///
    /// ```
    /// use agui_alloc::client::Client;
    /// use agui_core::protocol::{Protocol, Select};
    ///
    /// let mut client = Client::new().with_protocol(Select::Fixed(Protocol::V1));
    /// client.feed(br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}
    /// {"type":"FUTURE_EVENT","x":1}
    /// {"type":"STEP_STARTED","stepName":"s","vendorExtra":1}
    /// "#).unwrap();
    /// // 1.0 drops an unknown event and strips an unknown key, with warnings.
    /// assert_eq!(client.accepted(), 3);
    /// assert_eq!(client.warnings().len(), 2);
    /// ```
    #[cfg(feature = "v1")]
    pub fn with_protocol(mut self, select: Select) -> Self {
        self.v1.select = select;
        self.reader = Readers::new(select);
        self
    }

    /// The protocol the stream is read in, once its first frame decided
    /// it (`None` before).
    pub fn protocol(&self) -> Option<Protocol> {
        self.reader.protocol()
    }

    /// AG-UI 1.0: the warnings so far (the first
    /// [`Limits::max_errors`]; [`warning_count`](Self::warning_count) counts
    /// them all): dropped events, stripped material, translations.
    #[cfg(feature = "v1")]
    pub fn warnings(&self) -> &[v1::InboundWarning] {
        &self.v1.warnings
    }

    /// How many warnings there were in all.
    #[cfg(feature = "v1")]
    pub fn warning_count(&self) -> u64 {
        self.v1.warning_count
    }

    /// Strict (the default) or keep-going.
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Starts from these messages and state instead of `[]` and `{}`.
    pub fn with_initial(mut self, messages: Vec<Message>, state: Value) -> Self {
        self.reducer = Reducer::with_initial(messages, state).with_limits(self.limits.reducer());
        self
    }

    /// Sets the resource limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        let reducer = core::mem::take(&mut self.reducer);
        self.reducer = reducer.with_limits(limits.reducer());
        self
    }

    /// Records a [`TraceEntry`] for every verified event.
    pub fn with_trace(mut self) -> Self {
        self.trace = Some(Vec::new());
        self
    }

    /// The messages so far.
    pub fn messages(&self) -> &[Message] {
        self.reducer.messages()
    }

    /// The bytes the core reader keeps on the heap for the rules (issue
    /// 22): open ids, id slots, chunk lanes, the 1.0 owner and sub-agent
    /// tables and the JSON depth stacks, as the host's growable store
    /// counts them while they change ([`crate::store`]); 0 without the
    /// feature `grow`. Reading it costs the same whatever the tables hold.
    ///
    /// ```
    /// use agui_alloc::Client;
    ///
    /// let mut client = Client::new();
    /// let before = client.kept_bytes();
    /// let open = format!(
    ///     "{{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}}\n{{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"{}\",\"role\":\"assistant\"}}\n",
    ///     "m".repeat(1000)
    /// );
    /// client.feed(open.as_bytes()).unwrap();
    /// assert!(client.kept_bytes() >= before + 1000);
    /// ```
    pub fn kept_bytes(&self) -> usize {
        self.reader.kept_bytes()
    }

    /// The shared state so far.
    pub fn state(&self) -> &Value {
        self.reducer.state()
    }

    /// The reducer (tool-call arguments, interrupts, warnings).
    pub fn reducer(&self) -> &Reducer {
        &self.reducer
    }

    /// Frames accepted so far.
    pub fn accepted(&self) -> u32 {
        self.accepted
    }

    /// The error that stopped the stream (strict), or the first skipped
    /// frame's error (keep-going); `None` if every frame was accepted.
    pub fn error(&self) -> Option<&ClientError> {
        self.failed.as_ref().or(self.errors.first())
    }

    /// Keep-going: the errors of the skipped frames, in stream order (the
    /// first [`Limits::max_errors`] of them). Strict: empty.
    pub fn errors(&self) -> &[ClientError] {
        &self.errors
    }

    /// Keep-going: how many frames were skipped (kept or not in
    /// [`errors`](Self::errors)).
    pub fn error_count(&self) -> u64 {
        self.error_count
    }

    /// Appends a message that no event brought, between runs: one the
    /// client's own side sent (its user message, a tool result), so that
    /// [`messages`](Self::messages) is the whole conversation, as a device
    /// that folds only the agent's events shows it. Not checked against the
    /// limits (it is the caller's own); the verifier is not involved.
    ///
    /// ```
    /// use agui_alloc::client::Client;
    /// use agui_alloc::model::Message;
    ///
    /// let mut client = Client::new();
    /// let asked = serde_json::json!({"id": "u1", "role": "user", "content": "Hi"});
    /// client.add_message(Message::from_json(&asked).unwrap());
    /// client.feed(b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n").unwrap();
    /// assert_eq!(client.messages().len(), 1);
    /// ```
    pub fn add_message(&mut self, message: Message) {
        self.reducer.add_message(message);
    }

    /// Gives back the messages and the state (e.g. to keep them after a
    /// run, for the next one), without copying them.
    pub fn into_parts(self) -> (Vec<Message>, Value) {
        self.reducer.into_parts()
    }

    /// The trace, if enabled with [`with_trace`](Self::with_trace).
    pub fn trace(&self) -> &[TraceEntry] {
        self.trace.as_deref().unwrap_or_default()
    }

    /// How many text messages, tool calls and steps the stream holds open
    /// now, as the verifier counts them (the events of a rejected frame
    /// are not counted in keep-going mode; in strict mode the events
    /// before the failing one are).
    ///
    /// ```
    /// use agui_alloc::client::{Client, OpenItems};
    ///
    /// let mut client = Client::new();
    /// client.feed(concat!(
    ///     "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n",
    ///     "{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m1\",\"role\":\"assistant\"}\n",
    ///     "{\"type\":\"TOOL_CALL_CHUNK\",\"toolCallId\":\"c1\",\"toolCallName\":\"f\"}\n",
    ///     "{\"type\":\"STEP_STARTED\",\"stepName\":\"s\"}\n",
    /// ).as_bytes()).unwrap();
    /// // The step's frame closed the chunked tool call.
    /// let open = OpenItems { messages: 1, tool_calls: 0, steps: 1 };
    /// assert_eq!(client.open_items(), open);
    /// ```
    pub fn open_items(&self) -> OpenItems {
        self.reader.open_items()
    }

    /// Feeds bytes in any pieces.
    ///
    /// # Errors
    /// The first rejected frame; the stream stops there (strict mode) and
    /// every later call returns the same error.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        // No subscriber: the reducer skips the hook steps altogether.
        self.unobserved = true;
        let result = self.feed_with(bytes, &mut ());
        self.unobserved = false;
        result
    }

    /// [`feed`](Self::feed), running `subscriber`'s hooks on every event.
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn feed_with(
        &mut self,
        mut bytes: &[u8],
        subscriber: &mut dyn Subscriber,
    ) -> Result<(), ClientError> {
        #[cfg(feature = "proto")]
        if self.proto.is_some() {
            return self.feed_proto(bytes, subscriber);
        }
        while !bytes.is_empty() {
            if let Some(e) = &self.failed {
                return Err(e.clone());
            }
            // An ordinary frame whole in `bytes` (the usual case): its
            // three events from one framer call.
            if let Some((used, text)) = self.framer.next_frame(bytes) {
                bytes = bytes.get(used..).unwrap_or_default();
                self.on_frame_event(FrameEvent::Start, subscriber)?;
                self.on_frame_event(FrameEvent::Data(text), subscriber)?;
                self.on_frame_event(FrameEvent::End, subscriber)?;
                continue;
            }
            let (used, event) = self.framer.next(bytes);
            bytes = bytes.get(used..).unwrap_or_default();
            if let Some(event) = event {
                self.on_frame_event(event, subscriber)?;
            }
        }
        Ok(())
    }

    /// Ends the input: a last frame without its terminator is processed.
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn finish(&mut self) -> Result<(), ClientError> {
        self.unobserved = true;
        let result = self.finish_with(&mut ());
        self.unobserved = false;
        result
    }

    /// [`finish`](Self::finish) with hooks.
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn finish_with(&mut self, subscriber: &mut dyn Subscriber) -> Result<(), ClientError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        #[cfg(feature = "proto")]
        if let Some(piece) = self.proto.as_mut().and_then(|p| p.end()) {
            return self.on_piece(piece, subscriber);
        }
        while let Some(event) = self.framer.finish() {
            self.on_frame_event(event, subscriber)?;
        }
        Ok(())
    }

    /// [`feed_with`](Self::feed_with) for the protobuf encoding.
    #[cfg(feature = "proto")]
    fn feed_proto(
        &mut self,
        mut bytes: &[u8],
        subscriber: &mut dyn Subscriber,
    ) -> Result<(), ClientError> {
        loop {
            if let Some(e) = &self.failed {
                return Err(e.clone());
            }
            let Some(proto) = self.proto.as_mut() else {
                return Ok(());
            };
            let (used, piece) = proto.next(bytes);
            bytes = bytes.get(used..).unwrap_or_default();
            match piece {
                Some(piece) => self.on_piece(piece, subscriber)?,
                // No progress: the bytes are used up.
                None if used == 0 => return Ok(()),
                None => {}
            }
        }
    }

    /// One piece of the protobuf reader: the frame events of the text
    /// path, or the error of a malformed frame.
    #[cfg(feature = "proto")]
    fn on_piece(
        &mut self,
        piece: ProtoPiece<'_>,
        subscriber: &mut dyn Subscriber,
    ) -> Result<(), ClientError> {
        match piece {
            ProtoPiece::Start => self.on_frame_event(FrameEvent::Start, subscriber),
            ProtoPiece::Data(text) => self.on_frame_event(FrameEvent::Data(text), subscriber),
            ProtoPiece::Text(text) => {
                self.on_frame_event(FrameEvent::Data(text.as_bytes()), subscriber)
            }
            ProtoPiece::End => self.on_frame_event(FrameEvent::End, subscriber),
            ProtoPiece::Fail(mut e) => {
                e.frame = self.frame_count().saturating_sub(1);
                // In keep-going mode the frame may have failed already (its
                // text over a limit) before its framing fails: it is
                // skipped, and has its one error, the first.
                if self.skipping && self.index == e.frame {
                    return Ok(());
                }
                self.index = e.frame;
                self.skipping = true;
                self.on_error(ClientError::from_core(&e))
            }
        }
    }

    /// Frames started so far, by whichever framer reads the stream.
    fn frame_count(&self) -> u32 {
        #[cfg(feature = "proto")]
        if let Some(p) = &self.proto {
            return p.frames();
        }
        self.framer.frames()
    }

    #[inline(always)]
    fn on_frame_event(
        &mut self,
        event: FrameEvent<'_>,
        subscriber: &mut dyn Subscriber,
    ) -> Result<(), ClientError> {
        let result = match event {
            FrameEvent::Start => {
                self.index = self.frame_count().saturating_sub(1);
                self.frame.clear();
                self.delta.clear();
                self.skipping = false;
                self.reader.begin_frame(self.index);
                Ok(())
            }
            FrameEvent::Data(_) | FrameEvent::End if self.skipping => Ok(()),
            FrameEvent::Data(text) => self.on_data(text),
            FrameEvent::End => self.end_frame(subscriber),
        };
        result.or_else(|e| self.on_error(e))
    }

    fn on_error(&mut self, e: ClientError) -> Result<(), ClientError> {
        match self.mode {
            Mode::Strict => {
                self.failed = Some(e.clone());
                Err(e)
            }
            // A full trace stops the stream whatever the mode.
            Mode::KeepGoing if self.failed.is_some() => Err(e),
            Mode::KeepGoing => {
                self.skipping = true;
                self.error_count = self.error_count.saturating_add(1);
                if self.errors.len() < self.limits.max_errors {
                    self.errors.push(e);
                }
                Ok(())
            }
        }
    }

    fn on_data(&mut self, text: &[u8]) -> Result<(), ClientError> {
        if self.frame.len().saturating_add(text.len()) > self.limits.max_frame_bytes {
            return Err(ClientError {
                frame: self.index,
                stage: Stage::Decode,
                code: Code::Capacity,
                event: None,
                message: format!(
                    "the frame is longer than the {}-byte limit (Limits::max_frame_bytes)",
                    self.limits.max_frame_bytes
                ),
                detail: ClientDetail::FrameTooLong {
                    limit: self.limits.max_frame_bytes,
                },
            });
        }
        self.frame.extend_from_slice(text);
        let delta = &mut self.delta;
        self.reader
            .feed(text, &mut |part| {
                if part.field == Field::Delta && part.kind == PartKind::Text {
                    // A repeated key: the last value wins, as in JSON.parse.
                    if part.first {
                        delta.clear();
                    }
                    delta.push_str(part.text.as_str());
                }
            })
            .map_err(|e| ClientError::from_core(&e))
    }

    /// The event of a frame that is a bare text, reasoning or argument delta
    /// (`type`, its id and a string `delta`, nothing else): the bulk of a
    /// stream. The core has checked all of it, so the event is built from
    /// the id and the delta fragments it handed out, without decoding the
    /// frame's text a second time.
    fn delta_event(&mut self, head: &Header, warned: bool) -> bool {
        // 1.0 takes a frame through its inbound processing unless the core
        // found nothing to say about it: a frame with only these three
        // keys (the core strips any other with a warning) that no
        // compatibility rule touched (a translation warns too) is left as
        // it is by that processing, so the same event is built here.
        if self.dialect == Dialect::V1 && warned {
            return false;
        }
        let bits = |fields: &[Field]| fields.iter().fold(0u64, |b, f| b | 1u64 << (*f as u32));
        // A CONTENT / ARGS with only its id and delta: the event a chunk's
        // content part would make, built the same way.
        let Some((item, ChunkPart::Content)) = Item::part_of(head.kind) else {
            return false;
        };
        let Some(id_field) = item.start().id_field() else {
            return false;
        };
        if head.fields != bits(&[Field::Type, id_field, Field::Delta]) {
            return false;
        }
        let id = self.reader.id();
        self.scratch.fill_content(item, id, &mut self.delta);
        true
    }

    fn end_frame(&mut self, subscriber: &mut dyn Subscriber) -> Result<(), ClientError> {
        let mut warned = false;
        let head = self.reader.finish_frame(&mut |_| warned = true);
        if self.dialect == Dialect::Current && self.reader.protocol() == Some(Protocol::V1) {
            self.speak_v1();
        }
        let head = match head {
            Ok(head) => head,
            Err(e) => {
                // 1.0 warns about what the boundary translated in a frame
                // that enforcement then rejects: those warnings are kept.
                if self.dialect == Dialect::V1 {
                    if let Ok(value) = crate::value::frame_value(&self.frame) {
                        let _ = self.inbound_value(Some((value, EventType::Raw)));
                    }
                }
                return Err(ClientError::from_core(&e));
            }
        };
        let Some(head) = head else {
            // 1.0 dropped the frame (an unknown type): it counts, and its
            // warning is the inbound processing's.
            self.inbound_value(None)?;
            self.accepted = self.accepted.saturating_add(1);
            return Ok(());
        };
        let fast = self.delta_event(&head, warned);
        // A bare delta frame is not parsed again (nor is an empty object
        // made and dropped for it): a close of a chunked item before its
        // event needs no frame field.
        // A STATE_SNAPSHOT's snapshot is measured as it is read, for its
        // limit check.
        let measure = (head.kind == EventType::StateSnapshot).then_some(Field::Snapshot.as_str());
        let (mut value, state_size) = if fast {
            (None, None)
        } else {
            let (value, size) = frame_value_sized(&self.frame, measure).map_err(|e| {
                ClientError::decode(self.index, Some(head.kind), DecodeError::new(e))
            })?;
            match self.inbound_value(Some((value, head.kind)))? {
                Some(value) => (Some(value), size),
                // Enforcement drops what the core kept: nothing to apply.
                None => return Ok(()),
            }
        };
        // The frame's own event is built (and its nested values checked)
        // before verification, so a bad frame changes no state.
        let own = match (fast, &mut value) {
            (true, _) => Some(Own::Spare),
            (false, Some(frame)) if !head.kind.is_chunk() => {
                let id = self.reader.id();
                let ev = own_event(head.kind, id, frame, self.dialect)
                    .map_err(|e| ClientError::decode(self.index, Some(head.kind), e))?;
                Some(Own::Event(ev))
            }
            (false, _) => None,
        };
        // Once the frame's own event is built, the rest of the frame (a
        // close of a chunked item before it) needs no field of it: the
        // parsed frame goes now, so that a large snapshot is not held
        // three times (parsed, as the event, in the reducer) at once.
        let value = value.filter(|_| own.is_none());
        let steps = &mut self.scratch.steps;
        steps.clear();
        let mut collect = |ev: &agui_core::EventRef<'_>| steps.push(ev.kind, ev.origin, ev.id);
        match self.mode {
            Mode::Strict => {
                // The events before a failing one are applied (SPEC section 0).
                let verdict = self.reader.expand(&mut collect);
                self.within_reader_unless_delta(fast, head.kind)?;
                self.apply_sized(state_size, own, value.as_ref(), subscriber)?;
                verdict.map_err(|e| ClientError::from_core(&e))?;
            }
            Mode::KeepGoing => {
                let checkpoint = self
                    .reader
                    .expand_atomic(&mut collect)
                    .map_err(|e| ClientError::from_core(&e))?;
                let applied = self
                    .within_reader_unless_delta(fast, head.kind)
                    .and_then(|()| self.apply_sized(state_size, own, value.as_ref(), subscriber));
                if let Err(e) = applied {
                    // The frame is refused as a whole: the verifier and
                    // the chunk expander go back to before it.
                    self.reader.rollback(checkpoint);
                    return Err(e);
                }
            }
        }
        self.accepted = self.accepted.saturating_add(1);
        Ok(())
    }

    /// [`within_reader`](Self::within_reader), except for a bare delta
    /// frame (`fast`: its type, its id and its delta, nothing else): such a
    /// frame opens nothing, nests nothing and names no sub-agent, so the
    /// reader's tables keep what they held, and its id is that of an item
    /// the same id slot held at its start (or the frame is refused anyway).
    /// Summing the tables costs about 300 instructions, a tenth of a
    /// token-sized delta's whole cost.
    #[inline(always)]
    fn within_reader_unless_delta(&self, fast: bool, kind: EventType) -> Result<(), ClientError> {
        if fast {
            return Ok(());
        }
        self.within_reader(kind)
    }

    /// Whether the core reader, having verified the frame, stays within
    /// [`Limits::max_reader_bytes`] (a count kept by the reader: no walk).
    fn within_reader(&self, kind: EventType) -> Result<(), ClientError> {
        let kept = self.reader.kept_bytes();
        let max = self.limits.max_reader_bytes;
        if kept > max {
            let e = LimitError::new(Limit::ReaderBytes, max, kept);
            return Err(ClientError::limit(self.index, kind, &e));
        }
        Ok(())
    }

    /// The stream turned out to speak AG-UI 1.0 (its first frame decided):
    /// its values go through the inbound processing and the reducer folds
    /// by 1.0's rules from now on.
    fn speak_v1(&mut self) {
        self.dialect = Dialect::V1;
        self.reducer.set_dialect(Dialect::V1);
        #[cfg(feature = "v1")]
        {
            self.v1.inbound = Some(v1::Inbound::new());
        }
    }

    /// AG-UI 1.0: the frame's value after the compatibility boundary and
    /// enforcement (SPEC 9.3, 9.4), their warnings kept; `None` when the
    /// event is dropped. `value` is `None` for a frame the core dropped,
    /// which is parsed here for its warning. In the current protocol the
    /// value is passed on as it is.
    #[cfg(feature = "v1")]
    fn inbound_value(
        &mut self,
        value: Option<(Value, EventType)>,
    ) -> Result<Option<Value>, ClientError> {
        let Some(inbound) = self.v1.inbound.as_mut() else {
            return Ok(value.map(|(v, _)| v));
        };
        let (value, kind) = match value {
            Some((value, kind)) => (value, Some(kind)),
            None => match crate::value::frame_value(&self.frame) {
                Ok(value) => (value, None),
                // The core read it as JSON; nothing more to say.
                Err(_) => return Ok(None),
            },
        };
        let mut warnings = Vec::new();
        let frame = usize::try_from(self.index).unwrap_or(usize::MAX);
        let processed = inbound.process(frame, value, &mut warnings);
        for w in warnings {
            self.v1.warning_count = self.v1.warning_count.saturating_add(1);
            if self.v1.warnings.len() < self.limits.max_errors {
                self.v1.warnings.push(w);
            }
        }
        processed.map_err(|e| ClientError::decode(self.index, kind, e.into()))
    }

    /// Without the feature `v1` the client reads the current protocol
    /// only: a frame's value is passed on as it is.
    #[cfg(not(feature = "v1"))]
    #[allow(clippy::unnecessary_wraps)]
    fn inbound_value(
        &mut self,
        value: Option<(Value, EventType)>,
    ) -> Result<Option<Value>, ClientError> {
        Ok(value.map(|(v, _)| v))
    }

    /// [`apply_steps`](Self::apply_steps), the reducer knowing the size of
    /// the frame's state snapshot if it was measured.
    fn apply_sized(
        &mut self,
        state_size: Option<Size>,
        own: Option<Own>,
        value: Option<&Value>,
        subscriber: &mut dyn Subscriber,
    ) -> Result<(), ClientError> {
        if state_size.is_none() {
            return self.apply_steps(own, value, subscriber);
        }
        self.reducer.expect_state_size(state_size);
        let applied = self.apply_steps(own, value, subscriber);
        self.reducer.expect_state_size(None);
        applied
    }

    /// Applies the verified steps of the frame: the frame's own event
    /// alone (the bulk of a stream) directly, else through the lists.
    /// Applies the verified steps of the frame (in the scratch step list):
    /// the frame's own event alone (the bulk of a stream) directly, else
    /// through the lists.
    fn apply_steps(
        &mut self,
        own: Option<Own>,
        value: Option<&Value>,
        subscriber: &mut dyn Subscriber,
    ) -> Result<(), ClientError> {
        match (self.scratch.steps.only_own(), own) {
            (true, Some(Own::Spare)) if self.trace.is_none() => self.apply_spare(subscriber),
            (true, Some(Own::Event(mut ev))) => {
                let result = self.apply_each(core::slice::from_mut(&mut ev), subscriber);
                self.scratch.keep_spare(ev);
                result
            }
            (_, own) => {
                let own = match own {
                    Some(Own::Spare) => self.scratch.spare.take(),
                    Some(Own::Event(ev)) => Some(ev),
                    None => None,
                };
                let steps = core::mem::take(&mut self.scratch.steps);
                let result = self
                    .events(&steps, own, value)
                    .and_then(|events| self.apply_all(events, subscriber));
                self.scratch.steps = steps;
                result
            }
        }
    }

    /// Applies the spare content event where it is (a delta frame, the
    /// bulk of a stream, moves no event around); what `apply_each` does
    /// for one event when there is no trace to record.
    fn apply_spare(&mut self, subscriber: &mut dyn Subscriber) -> Result<(), ClientError> {
        let Some(ev) = self.scratch.spare.as_mut() else {
            return Ok(());
        };
        let unobserved = self.unobserved;
        apply_one(&mut self.reducer, unobserved, self.index, ev, subscriber).map(drop)
    }

    /// The reducer's events for the verified steps of the frame, in the
    /// scratch list (taken out of `self`: give it back with `apply_all`).
    fn events(
        &mut self,
        steps: &Steps,
        mut own: Option<Event>,
        value: Option<&Value>,
    ) -> Result<Vec<Event>, ClientError> {
        let empty = Value::Object(Map::new());
        let value = value.unwrap_or(&empty);
        let mut events = core::mem::take(&mut self.scratch.events);
        events.clear();
        for (kind, origin, id) in steps.iter() {
            let ev = match (origin, own.take()) {
                (Origin::Frame, Some(ev)) => ev,
                (_, keep) => {
                    own = keep;
                    match Event::from_core_in(kind, origin, id, value, self.dialect) {
                        Ok(ev) => ev,
                        Err(e) => {
                            self.scratch.recycle(&mut events);
                            return Err(ClientError::decode(self.index, Some(kind), e));
                        }
                    }
                }
            };
            events.push(ev);
        }
        Ok(events)
    }

    /// Applies the frame's events, or none if they would pass a limit.
    /// Only the frame's last event can be refused after others of the
    /// frame were applied, and those are then END events that close a
    /// chunked item, which change no message.
    fn apply_all(
        &mut self,
        mut events: Vec<Event>,
        subscriber: &mut dyn Subscriber,
    ) -> Result<(), ClientError> {
        let result = self.apply_each(&mut events, subscriber);
        self.scratch.recycle(&mut events);
        self.scratch.events = events;
        result
    }

    /// Applies the frame's events, which the client gives up to the
    /// reducer (a snapshot is moved into it, not copied).
    fn apply_each(
        &mut self,
        events: &mut [Event],
        subscriber: &mut dyn Subscriber,
    ) -> Result<(), ClientError> {
        // (One event: `try_apply_with` checks the same growth.)
        if events.len() > 1 {
            if let Err(e) = self.reducer.check_frame(events) {
                let last = events.last().map_or(EventType::Raw, Event::kind);
                return Err(ClientError::limit(self.index, last, &e));
            }
        }
        for ev in events {
            let unobserved = self.unobserved;
            let changed = apply_one(&mut self.reducer, unobserved, self.index, ev, subscriber)?;
            self.record(ev, changed)?;
        }
        Ok(())
    }

    fn record(&mut self, ev: &Event, changed: Changed) -> Result<(), ClientError> {
        let Some(trace) = &mut self.trace else {
            return Ok(());
        };
        let args = self.reducer.trace_args(ev);
        // Measuring the value costs what cloning it does.
        let entry = args
            .map_or(0, |(_, v)| json_size(v).bytes)
            .saturating_add(16);
        let needed = self.trace_bytes.saturating_add(entry);
        if needed > self.limits.max_trace_bytes {
            let e = ClientError {
                frame: self.index,
                stage: Stage::Verify,
                code: Code::Capacity,
                event: Some(ev.kind()),
                detail: ClientDetail::TraceTooLong {
                    needed,
                    limit: self.limits.max_trace_bytes,
                },
                message: format!(
                    "cannot trace '{}': the trace would need {needed} bytes, over the limit of {} \
                     (Limits::max_trace_bytes); the stream stops here",
                    ev.kind(),
                    self.limits.max_trace_bytes
                ),
            };
            self.failed = Some(e.clone());
            return Err(e);
        }
        self.trace_bytes = needed;
        trace.push(TraceEntry {
            kind: ev.kind(),
            changed,
            args: args.map(|(key, v)| (key, v.clone())),
        });
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    fn first_error(limits: Limits, stream: &[u8]) -> ClientError {
        let mut client = Client::new().with_limits(limits);
        client.feed(stream).unwrap_err()
    }

    /// The error's kind and detail are types; the message is made from
    /// them, and the core's part of it is the core's own message.
    #[test]
    fn errors_carry_their_detail_as_types() {
        let e = first_error(
            Limits::default(),
            b"{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n",
        );
        let ClientDetail::Core(core) = &e.detail else {
            panic!("{e:?}")
        };
        assert_eq!(
            (e.code, core.code, e.event),
            (
                Code::FirstEvent,
                Code::FirstEvent,
                Some(EventType::TextMessageEnd)
            )
        );
        assert_eq!(e.message, core.message().to_string());
        assert_eq!(e.to_string(), core.to_string());

        let limits = Limits {
            max_frame_bytes: 10,
            ..Limits::default()
        };
        let e = first_error(
            limits,
            b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n",
        );
        assert_eq!(e.detail, ClientDetail::FrameTooLong { limit: 10 });
        assert_eq!((e.stage, e.code), (Stage::Decode, Code::Capacity));

        let stream = b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\
            {\"type\":\"MESSAGES_SNAPSHOT\",\"messages\":[{\"id\":\"a\",\"role\":\"robot\"}]}\n";
        let e = first_error(Limits::default(), stream);
        let ClientDetail::Decode(d) = &e.detail else {
            panic!("{e:?}")
        };
        assert_eq!(d.path(), "messages.0.role");
        assert_eq!(e.event, Some(EventType::MessagesSnapshot));
    }

    /// AG-UI 1.0: a plain delta frame takes the short path, and a delta
    /// frame with an unknown key, or a retired shape, does not: its key is
    /// stripped with a warning, its shape translated with one.
    #[cfg(feature = "v1")]
    #[test]
    fn v1_delta_frames_keep_their_warnings() {
        use crate::v1::InboundWarningKind;
        let mut client = Client::new().with_protocol(Select::Fixed(Protocol::V1));
        let stream = b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\
            {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\n\
            {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"a\"}\n\
            {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"b\",\"x\":1}\n\
            {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\
            {\"type\":\"THINKING_TEXT_MESSAGE_START\"}\n\
            {\"type\":\"THINKING_TEXT_MESSAGE_CONTENT\",\"delta\":\"c\"}\n\
            {\"type\":\"THINKING_TEXT_MESSAGE_END\"}\n";
        client.feed(stream).unwrap();
        client.finish().unwrap();
        let kinds: Vec<(usize, &InboundWarningKind)> = client
            .warnings()
            .iter()
            .map(|w| (w.frame, &w.kind))
            .collect();
        assert!(
            matches!(kinds.as_slice(), [
                (3, InboundWarningKind::Stripped { event_type, path }),
                (5, InboundWarningKind::Converted { .. }),
                (6, InboundWarningKind::Converted { .. }),
                (7, InboundWarningKind::Converted { .. }),
            ] if event_type == "TEXT_MESSAGE_CONTENT" && path == "/x"),
            "{kinds:?}"
        );
        let text: Vec<String> = client
            .messages()
            .iter()
            .map(|m| serde_json::to_string(m).unwrap())
            .collect();
        assert!(text[0].contains("\"ab\""), "{text:?}");
        assert!(
            text[1].contains("\"reasoning\"") && text[1].contains("\"c\""),
            "{text:?}"
        );
    }
}
