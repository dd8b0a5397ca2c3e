//! The client's express lane for runs of bare delta frames (a fast path
//! of the client, beside the general one in `client.rs`; the differential
//! test `alloc-ext/tests/express.rs` holds them equal).

use alloc::string::String;
use alloc::vec::Vec;

use agui_core::chunk::{ChunkPart, Item};
use agui_core::event::EventType;
use agui_core::protocol::Protocol;

use super::{Client, ClientError};
#[cfg(feature = "fast")]
use agui_core::json::{last_string_member, string_tail};

// Without the core's fast paths (the kiosk firmware) the lane never opens.
#[cfg(not(feature = "fast"))]
fn last_string_member(_: &[u8], _: &[u8]) -> Option<usize> {
    None
}
#[cfg(not(feature = "fast"))]
fn string_tail(_: &[u8], _: &mut impl FnMut(&str)) -> bool {
    false
}
use crate::hooks::Subscriber;
use crate::model::Dialect;

/// The express lane for a run of bare delta frames, the bulk of a
/// stream. Once a bare delta frame (its type, its id and a string `delta`,
/// nothing else) has been accepted in the current protocol, the next frame
/// whose text repeats it up to the delta's opening quote, then holds a
/// string that is not empty, its closing quote and `}`, is the same event
/// with another delta: the core reader would decide it exactly as it
/// decided the last one, and would end where it is now (such an event
/// inside an active run, for an open item, changes neither the verifier's
/// life cycle nor its tables, opens no chunk lane, and leaves the decoder's
/// end state — type, id slot, header — as the last frame left it). So only
/// the reducer's step is taken, through the same function as on the
/// general path; the core reader is skipped. Any other frame takes the
/// general path, which closes the lane until a bare delta frame opens it
/// again. `alloc-ext/tests/express.rs` feeds generated runs whole (the
/// lane) and a byte at a time (never the lane) and compares all a caller
/// sees; the conformance vectors run fed whole without a trace too.
#[derive(Debug, Default)]
pub(super) struct Express {
    /// The item the deltas are for (`None`: the lane is closed).
    pub(super) item: Option<Item>,
    /// The last frame's text up to and including its delta's opening quote.
    prefix: Vec<u8>,
    /// The message's or call's id.
    id: String,
}

impl Client {
    /// A frame through the [`Express`] lane: `None` if the lane is closed
    /// or the frame is not the next of its run (the general path takes
    /// it), else the frame's outcome.
    #[inline(always)]
    pub(super) fn express_frame(
        &mut self,
        text: &[u8],
        subscriber: &mut dyn Subscriber,
    ) -> Option<Result<(), ClientError>> {
        // A fast path, left out with the core's (the kiosk firmware's flash).
        if !cfg!(feature = "fast") {
            return None;
        }
        let item = self.express.item?;
        let prefix = self.express.prefix.as_slice();
        // A frame over the limit is refused by the general path.
        if !text.starts_with(prefix) || text.len() > self.limits.max_frame_bytes {
            return None;
        }
        // The prefix ends with the delta's opening quote.
        let from_quote = text.get(prefix.len().checked_sub(1)?..)?;
        let delta = &mut self.delta;
        delta.clear();
        if !string_tail(from_quote, &mut |s| delta.push_str(s)) {
            return None;
        }
        self.index = self.frame_count().saturating_sub(1);
        self.scratch
            .fill_content(item, &self.express.id, &mut self.delta);
        match self.apply_spare(subscriber) {
            Ok(()) => {
                self.accepted = self.accepted.saturating_add(1);
                Some(Ok(()))
            }
            Err(e) => {
                self.express.item = None;
                Some(self.on_error(e))
            }
        }
    }

    /// Opens the [`Express`] lane after an accepted bare delta frame of
    /// `item` in the current protocol with no trace, if its delta is the
    /// frame's last member (SSE, NDJSON, or the text the protobuf reader
    /// wrote).
    pub(super) fn open_express(&mut self, kind: EventType) {
        if !cfg!(feature = "fast") {
            return;
        }
        let Some((item, ChunkPart::Content)) = Item::part_of(kind) else {
            return;
        };
        if self.dialect != Dialect::Current
            || self.reader.protocol() != Some(Protocol::Current)
            || self.trace.is_some()
        {
            return;
        }
        let Some(start) = last_string_member(&self.frame, b"delta") else {
            return;
        };
        let Some(prefix) = self.frame.get(..start) else {
            return;
        };
        self.express.prefix.clear();
        self.express.prefix.extend_from_slice(prefix);
        self.express.id.clear();
        self.express.id.push_str(self.reader.id());
        self.express.item = Some(item);
    }
}
