//! The client's reading of AG-UI's protobuf encoding. The core's
//! [`ProtoFramer`] writes each `Event` message as the JSON text of the
//! event, in many small pieces (a key, a string, a number). Handed to the
//! text path one by one, each piece would cost a decoder step of its own;
//! so they are gathered, and the frame goes to the text path at its end
//! as one slice, which takes the decoder's fast paths and the client's
//! express lane as a frame of SSE or NDJSON does. Whatever the text path
//! would say of the pieces it says of the whole: the decoder's verdicts do
//! not depend on the split, the frame limit is judged before the gathered
//! text could pass it, and a framing fault is reported after the text
//! gathered before it, as it was read before it.

use alloc::vec::Vec;

use agui_core::frame::FrameEvent;
use agui_core::proto::{ProtoFramer, ProtoPiece};

use super::{Client, ClientError};
use crate::hooks::Subscriber;

/// The protobuf reader of a client and the frame text it has gathered.
#[derive(Debug, Default)]
pub(super) struct ProtoReading {
    framer: ProtoFramer,
    /// The current frame's text not yet handed to the text path.
    staged: Vec<u8>,
    /// The current frame has begun, and the text path has not been told.
    pending: bool,
}

impl ProtoReading {
    /// Frames started so far.
    pub(super) fn frames(&self) -> u32 {
        self.framer.frames()
    }
}

impl Client {
    /// [`feed_with`](Self::feed_with) for the protobuf encoding.
    pub(super) fn feed_proto(
        &mut self,
        mut bytes: &[u8],
        subscriber: &mut dyn Subscriber,
    ) -> Result<(), ClientError> {
        loop {
            if let Some(e) = &self.failed {
                return Err(e.clone());
            }
            let Some(reading) = self.proto.as_mut() else {
                return Ok(());
            };
            let (used, piece) = reading.framer.next(bytes);
            bytes = bytes.get(used..).unwrap_or_default();
            match piece {
                Some(piece) => self.on_piece(piece, subscriber)?,
                // No progress: the bytes are used up.
                None if used == 0 => return Ok(()),
                None => {}
            }
        }
    }

    /// [`finish_with`](Self::finish_with) for the protobuf encoding: a
    /// frame cut short is a framing fault.
    pub(super) fn finish_proto(
        &mut self,
        subscriber: &mut dyn Subscriber,
    ) -> Result<(), ClientError> {
        match self.proto.as_mut().and_then(|r| r.framer.end()) {
            Some(piece) => self.on_piece(piece, subscriber),
            None => Ok(()),
        }
    }

    /// One piece of the protobuf reader: the frame events of the text
    /// path, or the fault of a malformed frame.
    fn on_piece(
        &mut self,
        piece: ProtoPiece<'_>,
        subscriber: &mut dyn Subscriber,
    ) -> Result<(), ClientError> {
        match piece {
            ProtoPiece::Start => {
                if let Some(reading) = self.proto.as_mut() {
                    reading.pending = true;
                    reading.staged.clear();
                }
                Ok(())
            }
            ProtoPiece::Data(text) => self.stage(text, subscriber),
            ProtoPiece::Text(text) => self.stage(text.as_bytes(), subscriber),
            ProtoPiece::End => self.end_proto_frame(subscriber),
            ProtoPiece::Fail(mut e) => {
                // What was read before the fault is judged first.
                self.flush(subscriber)?;
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

    /// Gathers a piece of the frame's text; the text path judges it now
    /// if the frame would pass its limit with it (the gathered text stays
    /// within it, as the frame buffer does).
    fn stage(&mut self, text: &[u8], subscriber: &mut dyn Subscriber) -> Result<(), ClientError> {
        let Some(reading) = self.proto.as_mut() else {
            return Ok(());
        };
        let after = self
            .frame
            .len()
            .saturating_add(reading.staged.len())
            .saturating_add(text.len());
        if after <= self.limits.max_frame_bytes {
            reading.staged.extend_from_slice(text);
            return Ok(());
        }
        self.flush(subscriber)?;
        self.on_frame_event(FrameEvent::Data(text), subscriber)
    }

    /// Hands the text path what it has not been told of the frame: its
    /// start, and the text gathered so far.
    fn flush(&mut self, subscriber: &mut dyn Subscriber) -> Result<(), ClientError> {
        let Some(reading) = self.proto.as_mut() else {
            return Ok(());
        };
        let pending = core::mem::replace(&mut reading.pending, false);
        let staged = core::mem::take(&mut reading.staged);
        let mut result = Ok(());
        if pending {
            result = self.on_frame_event(FrameEvent::Start, subscriber);
        }
        if result.is_ok() && !staged.is_empty() {
            result = self.on_frame_event(FrameEvent::Data(&staged), subscriber);
        }
        self.give_back(staged);
        result
    }

    /// The frame's end: a frame gathered whole goes to the express lane or
    /// to the text path as one slice.
    fn end_proto_frame(&mut self, subscriber: &mut dyn Subscriber) -> Result<(), ClientError> {
        let Some(reading) = self.proto.as_mut() else {
            return Ok(());
        };
        if !reading.pending {
            self.flush(subscriber)?;
            return self.on_frame_event(FrameEvent::End, subscriber);
        }
        reading.pending = false;
        let staged = core::mem::take(&mut reading.staged);
        let result = match self.express_frame(&staged, subscriber) {
            Some(result) => result,
            None => self.whole_frame(&staged, subscriber),
        };
        self.give_back(staged);
        result
    }

    /// The gathering buffer back in its place, empty, its capacity kept.
    fn give_back(&mut self, mut staged: Vec<u8>) {
        if let Some(reading) = self.proto.as_mut() {
            staged.clear();
            reading.staged = staged;
        }
    }
}
