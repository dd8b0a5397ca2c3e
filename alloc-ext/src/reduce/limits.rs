//! The reducer's resource limits, checked before an event is applied, and
//! the sizes kept up to date that they are checked against.

use serde_json::Value;

use super::rules;
use super::Reducer;
use crate::event::Event;
use crate::model::Object;
use crate::patch::{patch_size, Growth, OpName, Refused};
use crate::size::{json_size, object_size, Size, MESSAGE_OVERHEAD};

/// Resource limits of the [`Reducer`]. Each one is checked *before* an
/// event is applied, so a refused event changes nothing.
///
/// ```
/// use agui_alloc::reduce::ReducerLimits;
/// let limits = ReducerLimits { max_messages: 100, ..ReducerLimits::default() };
/// assert_eq!(limits.max_state_bytes, 16 << 20);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReducerLimits {
    /// Most messages in the list (default 10 000).
    pub max_messages: usize,
    /// Most bytes the messages hold (default 64 MiB), as
    /// [`crate::size::message_bytes`] counts them: every string they keep
    /// (ids, names, text, tool-call ids, names and arguments, encrypted
    /// values, `activityType`, ...) and `metadata` and activity `content` as
    /// compact JSON. Kept exact as events apply.
    pub max_message_bytes: usize,
    /// Largest state, as the length of its compact JSON text as serialized
    /// (default 16 MiB; see [`crate::size`]). Also the limit of each
    /// activity message's `content`.
    pub max_state_bytes: usize,
    /// Deepest nesting of arrays and objects in the state or in an
    /// activity's content (default: the reader's nesting limit,
    /// [`crate::client::DEPTH`]: 512 on a host, 64 without the feature
    /// `grow`). JSON Patch can nest a value deeper
    /// with every delta; this keeps every later walk of it bounded (the
    /// recursive ones, serde_json's clone, compare, drop and write, use
    /// some hundreds of bytes of stack per level: a limit of many thousands
    /// needs a thread with a larger stack).
    pub max_state_depth: usize,
}

impl Default for ReducerLimits {
    fn default() -> Self {
        ReducerLimits {
            max_messages: 10_000,
            max_message_bytes: 64 << 20,
            max_state_bytes: 16 << 20,
            max_state_depth: crate::readers::DEPTH,
        }
    }
}

impl ReducerLimits {
    pub(super) fn within_state(&self, Size { bytes, depth }: Size) -> Result<(), LimitError> {
        if bytes > self.max_state_bytes {
            return Err(LimitError::new(
                Limit::StateBytes,
                self.max_state_bytes,
                bytes,
            ));
        }
        if depth > self.max_state_depth {
            return Err(LimitError::new(
                Limit::StateDepth,
                self.max_state_depth,
                depth,
            ));
        }
        Ok(())
    }
}

/// Which of the [`ReducerLimits`] an event would pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// [`ReducerLimits::max_messages`]
    Messages,
    /// [`ReducerLimits::max_message_bytes`]
    MessageBytes,
    /// [`ReducerLimits::max_state_bytes`]
    StateBytes,
    /// [`ReducerLimits::max_state_depth`]
    StateDepth,
    /// [`Limits::max_reader_bytes`](crate::client::Limits::max_reader_bytes):
    /// the bytes the client's core reader keeps for the items it tracks
    /// (checked by the client, not the reducer).
    ReaderBytes,
    /// The client's JSON nesting ([`DEPTH`](crate::client::DEPTH)) in a
    /// tool call's arguments: a `TOOL_CALL_ARGS` delta that would nest them
    /// deeper (checked by the reducer; the reference has no such limit).
    ArgumentsDepth,
}

impl Limit {
    /// The field's name in [`ReducerLimits`] or [`Limits`](crate::client::Limits), or for
    /// [`Limit::ArgumentsDepth`] the constant's name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Limit::Messages => "max_messages",
            Limit::MessageBytes => "max_message_bytes",
            Limit::StateBytes => "max_state_bytes",
            Limit::StateDepth => "max_state_depth",
            Limit::ReaderBytes => "max_reader_bytes",
            Limit::ArgumentsDepth => "DEPTH",
        }
    }

    /// The struct the limit is a field of.
    const fn owner(self) -> &'static str {
        match self {
            Limit::Messages | Limit::MessageBytes | Limit::StateBytes | Limit::StateDepth => {
                "ReducerLimits"
            }
            Limit::ReaderBytes => "Limits",
            Limit::ArgumentsDepth => "client",
        }
    }

    const fn unit(self) -> &'static str {
        match self {
            Limit::Messages => "messages",
            Limit::MessageBytes | Limit::StateBytes | Limit::ReaderBytes => "bytes",
            Limit::StateDepth | Limit::ArgumentsDepth => "levels of nesting",
        }
    }
}

/// An event the reducer refused: applying it would pass a limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitError {
    /// The limit.
    pub limit: Limit,
    /// Its value.
    pub max: usize,
    /// What the event would have needed (at least this much).
    pub needed: usize,
}

impl LimitError {
    pub(crate) const fn new(limit: Limit, max: usize, needed: usize) -> Self {
        LimitError { limit, max, needed }
    }
}

impl core::fmt::Display for LimitError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "the event would need {} {}, over the limit of {} ({}::{})",
            self.needed,
            self.limit.unit(),
            self.max,
            self.limit.owner(),
            self.limit.as_str()
        )
    }
}

impl core::error::Error for LimitError {}

impl Reducer {
    /// Checks that the events of one frame, applied in order, stay within
    /// the message limits (counting what each adds, as an upper bound), so
    /// that a caller can refuse the frame as a whole before applying any.
    ///
    /// # Errors
    /// The first limit the frame would pass.
    pub fn check_frame(&self, events: &[Event]) -> Result<(), LimitError> {
        let (mut added, mut text) = (0usize, 0usize);
        for event in events {
            let (a, t) = self.growth(event);
            added = added.saturating_add(a);
            text = text.saturating_add(t);
        }
        self.within_messages(added, text)
    }

    pub(crate) fn within_messages(&self, added: usize, text: usize) -> Result<(), LimitError> {
        let count = self.messages.len().saturating_add(added);
        if added > 0 && count > self.limits.max_messages {
            return Err(LimitError::new(
                Limit::Messages,
                self.limits.max_messages,
                count,
            ));
        }
        // Each new message brings its fixed charge (its strings are in
        // `text`).
        let text = text.saturating_add(added.saturating_mul(MESSAGE_OVERHEAD));
        let bytes = self.kept_bytes().saturating_add(text);
        if text > 0 && bytes > self.limits.max_message_bytes {
            return Err(LimitError::new(
                Limit::MessageBytes,
                self.limits.max_message_bytes,
                bytes,
            ));
        }
        Ok(())
    }

    /// Everything counted against [`ReducerLimits::max_message_bytes`]:
    /// the messages ([`crate::size::message_bytes`]), the arguments slots
    /// of the tool calls still streaming, and AG-UI 1.0's list of the run's
    /// tool calls. Kept up to date by every change, never recounted.
    pub(crate) fn kept_bytes(&self) -> usize {
        self.text_bytes
            .saturating_add(self.run_calls.bytes)
            .saturating_add(self.args.bytes())
    }

    /// Messages and bytes an event adds (upper bounds, in time proportional
    /// to the event; `MESSAGES_SNAPSHOT` and the content an `ACTIVITY_DELTA`
    /// patch adds are checked exactly by `check`).
    fn growth(&self, event: &Event) -> (usize, usize) {
        event.visit(rules::Growth(self))
    }

    /// Whether `event` stays within the limits. A patch is sized from its
    /// own values when that is enough to know it fits, else by a dry run on
    /// the document (applied, measured, rolled back: the cost of applying it).
    pub(super) fn check(&mut self, event: &Event) -> Result<(), LimitError> {
        self.checked_state = None;
        // Growth, then the type's own check, in one dispatch.
        event.visit(rules::Check(self))
    }

    /// 1 if no message has this id: a message it would make is new.
    pub(super) fn absent(&self, id: &str) -> usize {
        usize::from(self.index.message(id).is_none())
    }

    /// Adds to or takes from the bytes the messages hold.
    pub(super) fn held(&mut self, delta: Delta) {
        self.text_bytes = self
            .text_bytes
            .saturating_add(delta.plus)
            .saturating_sub(delta.minus);
    }
}

/// The size of `null`.
pub(super) const NULL_SIZE: Size = Size { bytes: 4, depth: 0 };

/// No limit: for patches already checked.
pub(super) const UNBOUNDED: Size = Size {
    bytes: usize::MAX,
    depth: usize::MAX,
};

/// Whether `patch` keeps `doc` (of size `now`) within the state limits.
///
/// Without `copy`, a patch can add at most its own values plus a key and a
/// comma per operation, so when that bound fits, nothing more is needed
/// (time proportional to the patch). Otherwise the patch is run on `doc`,
/// measured operation by operation (a `copy` is measured before it is
/// made, so doubling copies stop at the limit), and rolled back. A patch
/// that fails is not refused here: the reducer reports its failure.
pub(super) fn fits(
    doc: &mut Value,
    now: Size,
    patch: &Value,
    limits: &ReducerLimits,
) -> Result<Size, LimitError> {
    let Some(ops) = patch.as_array() else {
        return Ok(now);
    };
    fn field<'v>(op: &'v Value, name: &str) -> &'v str {
        op.get(name).and_then(Value::as_str).unwrap_or("")
    }
    let mut bound = now;
    let mut simple = true;
    for op in ops {
        let levels = field(op, "path").matches('/').count();
        let value = match OpName::from_wire(field(op, "op")).map(OpName::growth) {
            Some(Growth::ByValue) => op.get("value").map(json_size),
            Some(Growth::None) => None,
            // Unknown ops fail when the patch runs: measure it running.
            Some(Growth::Measure) | None => {
                simple = false;
                None
            }
        };
        if let Some(size) = value {
            // The value, and at most its key (no longer than the path) with
            // quotes, colon and comma.
            let key = field(op, "path").len().saturating_mul(6).saturating_add(4);
            bound.bytes = bound.bytes.saturating_add(size.bytes).saturating_add(key);
            bound.depth = bound.depth.max(levels.saturating_add(size.depth));
        }
    }
    if simple && limits.within_state(bound).is_ok() {
        return Ok(bound);
    }
    let max = Size {
        bytes: limits.max_state_bytes,
        depth: limits.max_state_depth,
    };
    match patch_size(doc, patch, now, max) {
        Ok(size) => Ok(size),
        Err(Refused::Patch(_)) => Ok(now),
        Err(Refused::Over(size)) => limits.within_state(size).map(|()| size),
    }
}

/// Bytes added to and taken from what the messages hold by one change.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Delta {
    pub(super) plus: usize,
    pub(super) minus: usize,
}

impl Delta {
    pub(super) const fn plus(bytes: usize) -> Self {
        Delta {
            plus: bytes,
            minus: 0,
        }
    }
}

impl core::ops::AddAssign for Delta {
    fn add_assign(&mut self, rhs: Delta) {
        self.plus = self.plus.saturating_add(rhs.plus);
        self.minus = self.minus.saturating_add(rhs.minus);
    }
}

/// The bytes of a `metadata` object (0 when absent).
pub(super) fn meta_bytes(metadata: &Option<Object>) -> usize {
    metadata.as_ref().map_or(0, |m| object_size(m).bytes)
}

/// A sum that saturates instead of overflowing.
pub(super) fn sum(parts: &[usize]) -> usize {
    parts.iter().fold(0usize, |a, b| a.saturating_add(*b))
}
