//! Collects the text of assistant messages as the pipeline verifies them,
//! in a fixed buffer, so that the firmware can act on (print) each message
//! once it is complete.
//!
//! The pipeline hands out a frame's `delta` fragments *before* the frame's
//! events (the frame may still fail), so fragments are held as pending and
//! kept only when the frame's event turns out to be a TEXT_MESSAGE_CONTENT
//! of the tracked message; any other event of the frame drops them.

use agui_core::decode::{Field, PartKind};
use agui_core::event::{EventType, Origin, Role};
use agui_core::{EventRef, Output};

/// Longest message id kept.
const ID: usize = 64;

/// Why a message could not be collected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextError {
    /// The message's text is longer than the buffer (`limit` bytes); the
    /// message is dropped whole at its END, never cut.
    TooLong {
        /// The buffer's size.
        limit: usize,
    },
    /// The message id is longer than 64 bytes.
    IdTooLong,
}

impl TextError {
    /// A short description for a log line.
    pub const fn as_str(self) -> &'static str {
        match self {
            TextError::TooLong { .. } => "assistant text longer than the device's buffer",
            TextError::IdTooLong => "assistant message id longer than 64 bytes",
        }
    }
}

/// Collects one assistant text message at a time (the first
/// TEXT_MESSAGE_START with role assistant after the previous one ended).
#[derive(Debug)]
pub struct AssistantText<const N: usize> {
    buf: [u8; N],
    /// Bytes of committed text.
    committed: usize,
    /// Committed plus pending bytes.
    len: usize,
    /// A pending fragment did not fit.
    overflow: bool,
    /// A fragment of the tracked message was lost: fail at its END.
    truncated: bool,
    id: [u8; ID],
    id_len: usize,
    open: bool,
}

impl<const N: usize> Default for AssistantText<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> AssistantText<N> {
    /// An empty collector.
    pub const fn new() -> Self {
        AssistantText {
            buf: [0; N],
            committed: 0,
            len: 0,
            overflow: false,
            truncated: false,
            id: [0; ID],
            id_len: 0,
            open: false,
        }
    }

    /// Takes one pipeline output; `Ok(true)` when it completed the tracked
    /// message (its TEXT_MESSAGE_END): read it with [`text`](Self::text)
    /// before the next output.
    ///
    /// # Errors
    /// [`TextError::TooLong`] at the END of a message that did not fit,
    /// [`TextError::IdTooLong`] at a START whose id does not fit.
    pub fn on_output(&mut self, out: &Output<'_>) -> Result<bool, TextError> {
        match out {
            Output::Part(part) if part.field == Field::Delta && part.kind == PartKind::Text => {
                self.push_pending(part.text.as_str().as_bytes());
                Ok(false)
            }
            Output::Event(ev) => self.on_event(ev),
            Output::Error(_) => {
                self.len = self.committed;
                self.overflow = false;
                Ok(false)
            }
            Output::Part(_) => Ok(false),
        }
    }

    fn on_event(&mut self, ev: &EventRef<'_>) -> Result<bool, TextError> {
        let ours = self.open && ev.id.as_bytes() == self.id();
        let is = |kind: EventType| ev.kind == kind;
        if ours && is(EventType::TextMessageEnd) {
            return self.end();
        }
        if ev.origin == Origin::Close {
            // A close made by chunk expansion comes first in its frame and
            // so never touches the frame's fragments.
            return Ok(false);
        }
        if is(EventType::TextMessageStart) && !self.open && ev.role == Role::Assistant {
            self.begin(ev.id, ev.origin == Origin::Chunk)?;
        } else if ours && is(EventType::TextMessageContent) {
            self.commit();
        } else if !(is(EventType::TextMessageStart) && ev.origin == Origin::Chunk) {
            // Any other event of the frame says its fragments were not our
            // text; the START made from a chunk keeps them for its CONTENT.
            self.drop_pending();
        }
        Ok(false)
    }

    fn begin(&mut self, id: &str, keep_pending: bool) -> Result<(), TextError> {
        let pending = if keep_pending {
            self.len.saturating_sub(self.committed)
        } else {
            0
        };
        self.buf
            .copy_within(self.committed..self.committed + pending, 0);
        self.committed = 0;
        self.len = pending;
        if !keep_pending {
            self.overflow = false;
        }
        self.truncated = false;
        let slot = self.id.get_mut(..id.len()).ok_or(TextError::IdTooLong)?;
        slot.copy_from_slice(id.as_bytes());
        self.id_len = id.len();
        self.open = true;
        Ok(())
    }

    fn end(&mut self) -> Result<bool, TextError> {
        self.open = false;
        if self.truncated || self.overflow {
            self.committed = 0;
            self.len = 0;
            self.overflow = false;
            return Err(TextError::TooLong { limit: N });
        }
        self.len = self.committed;
        Ok(true)
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

    fn commit(&mut self) {
        if self.overflow {
            self.truncated = true;
        }
        self.overflow = false;
        self.committed = self.len;
    }

    fn drop_pending(&mut self) {
        self.len = self.committed;
        self.overflow = false;
    }

    fn id(&self) -> &[u8] {
        self.id.get(..self.id_len).unwrap_or_default()
    }

    /// The text of the last completed message (or the committed text of
    /// the open one).
    pub fn text(&self) -> &str {
        let bytes = self.buf.get(..self.committed).unwrap_or_default();
        // Fragments are whole UTF-8 text, so the committed prefix is too.
        core::str::from_utf8(bytes).unwrap_or_default()
    }
}
