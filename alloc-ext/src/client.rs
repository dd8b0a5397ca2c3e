//! The whole client: bytes in, `{ messages, state }` out.
//!
//! [`Client`] runs the core's framing, decoding, chunk expansion and
//! verification, then folds every verified event into the [`Reducer`]. It
//! keeps each frame's text (up to [`Limits::max_frame_bytes`]) so that the
//! reducer gets whole values: the frame is decoded once more with
//! `serde_json`, and nested messages (`MESSAGES_SNAPSHOT`,
//! `RUN_STARTED.input`) are checked *before* the frame's events are
//! verified, so a bad one is a `decode` error for its frame.
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

use agui_core::error::{Code, Stage};
use agui_core::event::{EventType, Origin};
use agui_core::frame::{Format, FrameEvent, Framer};
use agui_core::pipeline::EventReader;
use serde_json::Value;

use crate::event::Event;
use crate::hooks::Subscriber;
use crate::model::Message;
use crate::reduce::{Changed, Reducer};

/// Id capacity of the client's verifier, in bytes.
pub const ID_CAPACITY: usize = 128;
/// How many text messages may be open at once.
pub const OPEN_MESSAGES: usize = 64;
/// How many tool calls may be open at once.
pub const OPEN_TOOL_CALLS: usize = 64;
/// How many steps may be open at once.
pub const OPEN_STEPS: usize = 32;
/// JSON nesting limit.
pub const DEPTH: usize = 64;

type Reader = EventReader<ID_CAPACITY, OPEN_MESSAGES, OPEN_TOOL_CALLS, OPEN_STEPS, DEPTH>;

/// Resource limits of the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Longest frame text kept for the reducer (default 16 MiB).
    pub max_frame_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_frame_bytes: 16 << 20,
        }
    }
}

/// A rejected frame: where, which stage, the stable code, and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientError {
    /// Index of the frame (from 0).
    pub frame: u32,
    /// The stage that rejected it.
    pub stage: Stage,
    /// The stable code (SPEC section 4).
    pub code: Code,
    /// What went wrong, for a person.
    pub message: String,
}

impl ClientError {
    fn from_core(e: &agui_core::Error) -> Self {
        let text = e.to_string();
        // The core's Display starts with "frame N: stage error [code]: ".
        let message = text
            .split_once("]: ")
            .map_or(text.as_str(), |(_, m)| m)
            .to_owned();
        ClientError {
            frame: e.frame,
            stage: e.stage,
            code: e.code,
            message,
        }
    }

    fn decode(frame: u32, kind: Option<EventType>, message: impl fmt::Display) -> Self {
        let message = match kind {
            Some(kind) => format!("{kind}: {message}"),
            None => message.to_string(),
        };
        ClientError {
            frame,
            stage: Stage::Decode,
            code: Code::Decode,
            message,
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

/// The AG-UI client: see the [module docs](self).
pub struct Client {
    framer: Framer,
    reader: Box<Reader>,
    frame: Vec<u8>,
    frame_too_long: bool,
    /// Frame index of the current frame.
    index: u32,
    reducer: Reducer,
    limits: Limits,
    accepted: u32,
    failed: Option<ClientError>,
    trace: Option<Vec<TraceEntry>>,
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

    /// A client for a known format (`None`: detect from the first byte).
    pub fn with_format(format: Option<Format>) -> Self {
        Client {
            framer: Framer::new(format),
            reader: Box::default(),
            frame: Vec::new(),
            frame_too_long: false,
            index: 0,
            reducer: Reducer::new(),
            limits: Limits::default(),
            accepted: 0,
            failed: None,
            trace: None,
        }
    }

    /// Starts from these messages and state instead of `[]` and `{}`.
    pub fn with_initial(mut self, messages: Vec<Message>, state: Value) -> Self {
        self.reducer = Reducer::with_initial(messages, state);
        self
    }

    /// Sets the resource limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
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

    /// The error that stopped the stream, if any.
    pub fn error(&self) -> Option<&ClientError> {
        self.failed.as_ref()
    }

    /// The trace, if enabled with [`with_trace`](Self::with_trace).
    pub fn trace(&self) -> &[TraceEntry] {
        self.trace.as_deref().unwrap_or_default()
    }

    /// Feeds bytes in any pieces.
    ///
    /// # Errors
    /// The first rejected frame; the stream stops there (strict mode) and
    /// every later call returns the same error.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        self.feed_with(bytes, &mut ())
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
        while !bytes.is_empty() {
            if let Some(e) = &self.failed {
                return Err(e.clone());
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
        self.finish_with(&mut ())
    }

    /// [`finish`](Self::finish) with hooks.
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn finish_with(&mut self, subscriber: &mut dyn Subscriber) -> Result<(), ClientError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        while let Some(event) = self.framer.finish() {
            self.on_frame_event(event, subscriber)?;
        }
        Ok(())
    }

    fn on_frame_event(
        &mut self,
        event: FrameEvent<'_>,
        subscriber: &mut dyn Subscriber,
    ) -> Result<(), ClientError> {
        let result = match event {
            FrameEvent::Start => {
                self.index = self.framer.frames().saturating_sub(1);
                self.frame.clear();
                self.frame_too_long = false;
                self.reader.begin_frame(self.index);
                Ok(())
            }
            FrameEvent::Data(text) => self.on_data(text),
            FrameEvent::End => self.end_frame(subscriber),
        };
        result.inspect_err(|e| self.failed = Some(e.clone()))
    }

    fn on_data(&mut self, text: &[u8]) -> Result<(), ClientError> {
        if self.frame.len().saturating_add(text.len()) > self.limits.max_frame_bytes {
            self.frame_too_long = true;
            return Err(ClientError {
                frame: self.index,
                stage: Stage::Decode,
                code: Code::Capacity,
                message: format!(
                    "the frame is longer than the {}-byte limit (Limits::max_frame_bytes)",
                    self.limits.max_frame_bytes
                ),
            });
        }
        self.frame.extend_from_slice(text);
        self.reader
            .feed(text, &mut |_| {})
            .map_err(|e| ClientError::from_core(&e))
    }

    fn end_frame(&mut self, subscriber: &mut dyn Subscriber) -> Result<(), ClientError> {
        let head = self
            .reader
            .end_frame()
            .map_err(|e| ClientError::from_core(&e))?;
        let value: Value = serde_json::from_slice(&self.frame)
            .map_err(|e| ClientError::decode(self.index, Some(head.kind), e))?;
        // The frame's own event is built (and its nested values checked)
        // before verification, so a bad frame changes no state.
        let mut own = if head.kind.is_chunk() {
            None
        } else {
            let id = self.reader.decoder().id();
            let ev = Event::from_core(head.kind, Origin::Frame, id, &value)
                .map_err(|e| ClientError::decode(self.index, Some(head.kind), e))?;
            Some(ev)
        };
        let mut steps: Vec<(EventType, Origin, String)> = Vec::new();
        let verdict = self
            .reader
            .expand(&mut |ev| steps.push((ev.kind, ev.origin, ev.id.to_owned())));
        for (kind, origin, id) in steps {
            let ev = match origin {
                Origin::Frame => own.take(),
                _ => None,
            };
            let ev = match ev {
                Some(ev) => ev,
                None => Event::from_core(kind, origin, &id, &value)
                    .map_err(|e| ClientError::decode(self.index, Some(kind), e))?,
            };
            self.apply(&ev, subscriber);
        }
        verdict.map_err(|e| ClientError::from_core(&e))?;
        self.accepted = self.accepted.saturating_add(1);
        Ok(())
    }

    fn apply(&mut self, ev: &Event, subscriber: &mut dyn Subscriber) {
        let changed = self.reducer.apply_with(ev, subscriber);
        if let Some(trace) = &mut self.trace {
            let args = self.reducer.trace_args(ev).map(|(key, v)| (key, v.clone()));
            trace.push(TraceEntry {
                kind: ev.kind(),
                changed,
                args,
            });
        }
    }
}
