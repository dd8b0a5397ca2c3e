//! The device's side of a tool call: collect the arguments, decode them into
//! your own type, and serialise a result to send back.
//!
//! A firmware tool is typically a small struct (`set_led { color, on }`).
//! [`ToolArgs`] gathers one tool call's streamed arguments into a fixed
//! buffer as the pipeline's [`Output`]s go by — only fragments of frames that
//! turn out to be that call's `TOOL_CALL_ARGS` are kept — and
//! [`ToolArgs::parse`] decodes them with `serde-json-core`. [`tool_result`]
//! and [`user_message`] write JSON into a buffer you supply.
//!
//! Interrupts: [`OutcomeText`] keeps the outcome a run ends with and reads
//! its [`Question`]s; [`resume`] writes the line that answers one.
//!
//! ```
//! use agui_core::pipeline::DefaultPipeline;
//! use agui_core::reply::ToolArgs;
//! use serde::Deserialize;
//!
//! #[derive(Deserialize, Debug, PartialEq)]
//! struct SetLed<'a> {
//!     color: &'a str,
//!     on: bool,
//! }
//!
//! let stream = br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}
//! {"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"set_led"}
//! {"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"color\":\"red\","}
//! {"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"\"on\":true}"}
//! {"type":"TOOL_CALL_END","toolCallId":"c1"}
//! "#;
//! let mut pipeline = DefaultPipeline::new();
//! let mut args = ToolArgs::<128>::new();
//! let mut done = false;
//! pipeline.feed(stream, |out| done |= args.on_output(&out).unwrap()).unwrap();
//! assert!(done);
//! assert_eq!(args.name(), "set_led");
//! let mut scratch = [0u8; 32];
//! let led: SetLed = args.parse(&mut scratch).unwrap();
//! assert_eq!(led, SetLed { color: "red", on: true });
//! ```

use core::fmt;

use serde::{Deserialize, Serialize};

use crate::decode::{Field, PartKind};
use crate::event::{EventRef, EventType, Origin};
use crate::pipeline::Output;

mod interrupt;

pub use interrupt::{resume, Answer, OutcomeError, OutcomeText, Question, APPROVED, DENIED};

/// Longest tool name and id [`ToolArgs`] keeps.
pub const TOOL_ID: usize = 64;

/// Why collecting or decoding tool arguments failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ArgsError {
    /// The arguments are longer than the buffer (`N` bytes).
    TooLong {
        /// The buffer's size.
        limit: usize,
    },
    /// The tool call's id or name is longer than [`TOOL_ID`] bytes.
    IdTooLong,
    /// The arguments do not decode into the requested type.
    Decode(serde_json_core::de::Error),
}

impl fmt::Display for ArgsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgsError::TooLong { limit } => {
                write!(
                    f,
                    "tool arguments are longer than the {limit}-byte buffer; use a larger ToolArgs"
                )
            }
            ArgsError::IdTooLong => {
                write!(f, "tool call id or name is longer than {TOOL_ID} bytes")
            }
            ArgsError::Decode(e) => write!(f, "tool arguments do not match the expected type: {e}"),
        }
    }
}

impl core::error::Error for ArgsError {}

/// Where a [`ToolArgs`] collector is in its tool call's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No tool call seen yet.
    Idle,
    /// Between TOOL_CALL_START and TOOL_CALL_END.
    Open,
    /// TOOL_CALL_END seen: the arguments are complete.
    Done,
}

/// Collects the arguments of one tool call at a time into `N` bytes: the
/// first TOOL_CALL_START after the previous tracked call ended (a call that
/// starts while the tracked one is open is not tracked).
///
/// Feed it every [`Output`] with [`on_output`](Self::on_output). Fragments of
/// a frame's `delta` are held as *pending* until the frame's event says what
/// they were: kept for this call's `TOOL_CALL_ARGS`, dropped otherwise.
#[derive(Debug, Clone)]
pub struct ToolArgs<const N: usize> {
    buf: [u8; N],
    /// Bytes of committed arguments.
    committed: usize,
    /// Committed plus pending bytes.
    len: usize,
    overflow: bool,
    /// A fragment of the tracked call did not fit.
    truncated: bool,
    id: heapless::String<TOOL_ID>,
    name: heapless::String<TOOL_ID>,
    phase: Phase,
}

impl<const N: usize> Default for ToolArgs<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> ToolArgs<N> {
    /// An empty collector.
    pub const fn new() -> Self {
        ToolArgs {
            buf: [0; N],
            committed: 0,
            len: 0,
            overflow: false,
            truncated: false,
            id: heapless::String::new(),
            name: heapless::String::new(),
            phase: Phase::Idle,
        }
    }

    /// Takes one pipeline output; returns `true` when this output completed
    /// the tracked tool call's arguments (its TOOL_CALL_END). Act on them
    /// then, before the next output: a new TOOL_CALL_START replaces them.
    ///
    /// # Errors
    /// [`ArgsError::TooLong`] when an argument fragment does not fit: for
    /// that fragment, for every later one of the call, and at its END (which
    /// then does not report the call complete — nothing is cut silently);
    /// [`ArgsError::IdTooLong`].
    pub fn on_output(&mut self, out: &Output<'_>) -> Result<bool, ArgsError> {
        match out {
            Output::Part(part) if part.field == Field::Delta && part.kind == PartKind::Text => {
                self.push_pending(part.text.as_str().as_bytes());
                Ok(false)
            }
            Output::Event(ev) => self.on_event(ev),
            Output::Error(_) => {
                self.drop_pending();
                Ok(false)
            }
            Output::Part(_) => Ok(false),
        }
    }

    /// The `delta` fragments of a frame arrive before its events; they are
    /// kept for this call's ARGS and dropped by the frame's other events.
    /// A close made by chunk expansion comes first in its frame and so
    /// never touches them.
    fn on_event(&mut self, ev: &EventRef<'_>) -> Result<bool, ArgsError> {
        let ours = self.phase == Phase::Open && ev.id == self.id.as_str();
        match (ev.kind, ev.origin) {
            (EventType::ToolCallEnd, _) if ours => self.end(),
            (_, Origin::Close) => Ok(false),
            (EventType::ToolCallStart, origin) if self.phase != Phase::Open => {
                if origin == Origin::Frame {
                    self.drop_pending();
                }
                self.begin(ev.id, ev.name)?;
                Ok(false)
            }
            // Another call while ours is open is not tracked; the ARGS of
            // its chunk drop the frame's fragments.
            (EventType::ToolCallStart, Origin::Chunk) => Ok(false),
            (EventType::ToolCallArgs, _) if ours => {
                self.commit()?;
                Ok(false)
            }
            _ => {
                self.drop_pending();
                Ok(false)
            }
        }
    }

    /// The tracked call's END: complete, unless a fragment did not fit.
    fn end(&mut self) -> Result<bool, ArgsError> {
        if self.truncated {
            self.phase = Phase::Idle;
            self.committed = 0;
            self.len = 0;
            return Err(ArgsError::TooLong { limit: N });
        }
        self.phase = Phase::Done;
        Ok(true)
    }

    /// A new tool call: committed arguments are dropped, pending ones (of a
    /// TOOL_CALL_CHUNK that opens the call) kept.
    fn begin(&mut self, id: &str, name: &str) -> Result<(), ArgsError> {
        let pending = self.len.saturating_sub(self.committed);
        self.buf.copy_within(self.committed..self.len, 0);
        self.committed = 0;
        self.len = pending;
        self.id.clear();
        self.name.clear();
        self.id.push_str(id).map_err(|_| ArgsError::IdTooLong)?;
        self.name.push_str(name).map_err(|_| ArgsError::IdTooLong)?;
        self.truncated = false;
        self.phase = Phase::Open;
        Ok(())
    }

    fn push_pending(&mut self, bytes: &[u8]) {
        let end = self.len.saturating_add(bytes.len());
        match self.buf.get_mut(self.len..end) {
            Some(dst) => {
                dst.copy_from_slice(bytes);
                self.len = end;
            }
            None => self.overflow = true,
        }
    }

    fn commit(&mut self) -> Result<(), ArgsError> {
        if self.overflow || self.truncated {
            // Once a fragment is lost the call's arguments are unusable:
            // keep failing until its END rather than glue the rest together.
            self.truncated = true;
            self.drop_pending();
            return Err(ArgsError::TooLong { limit: N });
        }
        self.committed = self.len;
        Ok(())
    }

    fn drop_pending(&mut self) {
        self.len = self.committed;
        self.overflow = false;
    }

    /// True once the tool call's TOOL_CALL_END has been seen.
    pub fn is_complete(&self) -> bool {
        self.phase == Phase::Done
    }

    /// The tool call's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The arguments' JSON text so far.
    pub fn text(&self) -> &str {
        let bytes = self.buf.get(..self.committed).unwrap_or_default();
        // Fragments are whole UTF-8 text, so any committed prefix is too.
        core::str::from_utf8(bytes).unwrap_or_default()
    }

    /// Decodes the arguments into `T`. `&str` fields borrow from the text,
    /// so they must hold no escape; owned string fields (such as
    /// `heapless::String<N>`) take escaped text, unescaped through `scratch`.
    ///
    /// # Errors
    /// [`ArgsError::Decode`] if the text does not match `T`.
    pub fn parse<'de, T: Deserialize<'de>>(&'de self, scratch: &mut [u8]) -> Result<T, ArgsError> {
        serde_json_core::from_str_escaped(self.text(), scratch)
            .map(|(value, _)| value)
            .map_err(ArgsError::Decode)
    }
}

#[derive(Serialize)]
struct ToolResultEvent<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(rename = "messageId")]
    message_id: &'a str,
    #[serde(rename = "toolCallId")]
    tool_call_id: &'a str,
    content: &'a str,
    role: &'a str,
}

#[derive(Serialize)]
struct UserMessage<'a> {
    id: &'a str,
    role: &'a str,
    content: &'a str,
}

/// Writes a `TOOL_CALL_RESULT` event into `buf`; returns its length.
///
/// ```
/// let mut buf = [0u8; 128];
/// let n = agui_core::reply::tool_result(&mut buf, "r1", "c1", "LED is red").unwrap();
/// assert_eq!(
///     core::str::from_utf8(&buf[..n]).unwrap(),
///     r#"{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"c1","content":"LED is red","role":"tool"}"#
/// );
/// ```
///
/// # Errors
/// `BufferFull` if `buf` is too small.
pub fn tool_result(
    buf: &mut [u8],
    message_id: &str,
    tool_call_id: &str,
    content: &str,
) -> Result<usize, serde_json_core::ser::Error> {
    let event = ToolResultEvent {
        kind: EventType::ToolCallResult.as_str(),
        message_id,
        tool_call_id,
        content,
        role: "tool",
    };
    serde_json_core::to_slice(&event, buf)
}

/// Writes a user message `{"id","role":"user","content"}` into `buf`.
///
/// # Errors
/// `BufferFull` if `buf` is too small.
pub fn user_message(
    buf: &mut [u8],
    id: &str,
    content: &str,
) -> Result<usize, serde_json_core::ser::Error> {
    serde_json_core::to_slice(
        &UserMessage {
            id,
            role: "user",
            content,
        },
        buf,
    )
}
