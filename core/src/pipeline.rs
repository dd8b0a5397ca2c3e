//! The whole core pipeline: bytes in, verified events out.
//!
//! ```text
//! bytes -> Framer -> Decoder -> Chunker -> Verifier -> your callback
//! ```
//!
//! [`Pipeline`] takes bytes in any pieces, exactly as they come off a serial
//! line, and calls you back with an [`Output`] for every field fragment and
//! every verified event. It holds no frame in memory and allocates nothing:
//! its size is fixed by its const parameters (see [`DefaultPipeline`]).
//!
//! [`EventReader`] is the same without the framer, for callers that frame
//! (and perhaps buffer) the text themselves.
//!
//! ```
//! use agui_core::pipeline::{DefaultPipeline, Output};
//! use agui_core::event::EventType;
//!
//! let stream = b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\
//!                {\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m\",\"delta\":\"Hi\"}\n";
//! let mut p = DefaultPipeline::new();
//! let mut kinds = heapless::Vec::<EventType, 8>::new();
//! for piece in stream.chunks(5) {
//!     p.feed(piece, |out| {
//!         if let Output::Event(ev) = out {
//!             kinds.push(ev.kind).unwrap();
//!         }
//!     })
//!     .unwrap();
//! }
//! p.finish(|_| {}).unwrap();
//! assert_eq!(kinds, [EventType::RunStarted, EventType::TextMessageStart, EventType::TextMessageContent]);
//! assert_eq!(p.accepted(), 2);
//! ```

use crate::chunk::{Chunker, Plan, Planned};
use crate::decode::{Decoder, Header, Part};
use crate::error::Error;
use crate::event::{Event, EventType, Role};
use crate::frame::{Format, FrameEvent, Framer};
use crate::verify::{Reversal, Verifier};

/// What the pipeline hands to its callback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output<'a> {
    /// A fragment of a field of the frame being decoded (provisional until
    /// the frame's events arrive: the frame may still fail).
    Part(Part<'a>),
    /// A verified event.
    Event(Event<'a>),
    /// A rejected frame, in keep-going mode (in strict mode the error is
    /// returned by [`Pipeline::feed`] instead).
    Error(&'a Error),
}

/// What to do after a frame fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Stop at the first error (the reference's behaviour): later input is
    /// ignored until [`Pipeline::reset`].
    #[default]
    Strict,
    /// Report the error, skip the failed frame, and go on.
    ///
    /// A frame is all-or-nothing here: when one of the events a frame
    /// expands into fails, none of them is handed out and the chunk
    /// expander and the verifier are left as they were before the frame.
    /// So a stream with one damaged frame loses that frame only.
    KeepGoing,
}

/// How to take a whole frame back: what [`EventReader::expand_atomic`]
/// returns, for [`EventReader::rollback`]. Dropping it keeps the frame.
#[derive(Debug, Clone)]
pub struct Checkpoint<const ID: usize = 64> {
    chunker: Chunker<ID>,
    undo: heapless::Vec<Reversal<ID>, 3>,
}

/// Decoding, chunk expansion and verification of frames whose text the
/// caller delivers (`begin_frame`, `feed`, `end_frame`, `expand`).
#[derive(Debug, Clone, Default)]
pub struct EventReader<
    const ID: usize = 64,
    const MSGS: usize = 8,
    const TOOLS: usize = 8,
    const STEPS: usize = 8,
    const DEPTH: usize = 32,
> {
    decoder: Decoder<ID, DEPTH>,
    chunker: Chunker<ID>,
    verifier: Verifier<ID, MSGS, TOOLS, STEPS>,
    frame: u32,
    header: Option<Header>,
}

impl<
        const ID: usize,
        const MSGS: usize,
        const TOOLS: usize,
        const STEPS: usize,
        const DEPTH: usize,
    > EventReader<ID, MSGS, TOOLS, STEPS, DEPTH>
{
    /// A reader before the first frame.
    pub const fn new() -> Self {
        EventReader {
            decoder: Decoder::new(),
            chunker: Chunker::new(),
            verifier: Verifier::new(),
            frame: 0,
            header: None,
        }
    }

    /// Starts frame number `index`.
    pub fn begin_frame(&mut self, index: u32) {
        self.frame = index;
        self.header = None;
        self.decoder.begin_frame();
    }

    /// Feeds text of the current frame, calling `f` for each field fragment.
    ///
    /// # Errors
    /// A decode error (invalid JSON, not an object).
    pub fn feed<'b>(
        &mut self,
        mut text: &'b [u8],
        f: &mut impl FnMut(Part<'b>),
    ) -> Result<(), Error> {
        while !text.is_empty() {
            let (used, part) = self.decoder.feed(text).map_err(|e| e.at(self.frame))?;
            text = text.get(used..).unwrap_or_default();
            if let Some(part) = part {
                f(part);
            }
        }
        Ok(())
    }

    /// Ends the frame's text and checks its schema.
    ///
    /// # Errors
    /// A decode error (incomplete JSON, schema, id too long).
    pub fn end_frame(&mut self) -> Result<Header, Error> {
        let head = self.decoder.end_frame().map_err(|e| e.at(self.frame))?;
        self.header = Some(head);
        Ok(head)
    }

    /// The decoded frame's header and its expansion plan (`None` if no
    /// frame is waiting to be expanded).
    fn take_plan(&mut self) -> Result<Option<(Header, Plan)>, Error> {
        let Some(head) = self.header.take() else {
            return Ok(None);
        };
        let plan = self
            .chunker
            .plan(&head, &self.decoder)
            .map_err(|e| e.at(self.frame))?;
        Ok(Some((head, plan)))
    }

    /// Expands the decoded frame and verifies its events, calling `f` for
    /// each verified one. The events before a failing one were verified
    /// and handed out.
    ///
    /// # Errors
    /// A transform (chunk) or verify error.
    pub fn expand(&mut self, f: &mut impl FnMut(&Event<'_>)) -> Result<(), Error> {
        let Some((head, plan)) = self.take_plan()? else {
            return Ok(());
        };
        for step in &plan {
            self.chunker.advance(step, &self.decoder);
            let ev = planned(step, self.frame, &head, &self.chunker, &self.decoder);
            self.verifier.check(&ev)?;
            f(&ev);
        }
        Ok(())
    }

    /// Expands and verifies the decoded frame as one unit: either all of
    /// its events are verified and handed to `f`, or none is handed out and
    /// the chunk expander and the verifier are as before the frame (this is
    /// keep-going mode; [`expand`](Self::expand) is strict mode).
    ///
    /// The returned [`Checkpoint`] takes the accepted frame back with
    /// [`rollback`](Self::rollback), for a caller whose own later stage
    /// refuses it (a reducer limit); drop it to keep the frame.
    ///
    /// ```
    /// use agui_core::pipeline::EventReader;
    ///
    /// let mut reader: EventReader = EventReader::new();
    /// let mut frame = |r: &mut EventReader, i, text: &[u8]| {
    ///     r.begin_frame(i);
    ///     r.feed(text, &mut |_| {}).unwrap();
    ///     r.end_frame().unwrap();
    ///     let mut kinds = Vec::new();
    ///     let out = r.expand_atomic(&mut |ev| kinds.push(ev.kind.as_str()));
    ///     (out.is_ok(), kinds)
    /// };
    /// frame(&mut reader, 0, br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#);
    /// frame(&mut reader, 1, br#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"a"}"#);
    /// // Closes chunked "m", then fails (no message "x"): all or nothing.
    /// let (ok, kinds) = frame(&mut reader, 2, br#"{"type":"TEXT_MESSAGE_END","messageId":"x"}"#);
    /// assert!(!ok && kinds.is_empty());
    /// assert!(reader.verifier().open_messages().contains("m"));
    /// assert!(reader.chunker().open_item().is_some());
    /// ```
    ///
    /// # Errors
    /// A transform (chunk) or verify error; nothing of the frame is kept.
    pub fn expand_atomic(
        &mut self,
        f: &mut impl FnMut(&Event<'_>),
    ) -> Result<Checkpoint<ID>, Error> {
        let mut checkpoint = Checkpoint {
            chunker: self.chunker.clone(),
            undo: heapless::Vec::new(),
        };
        let Some((head, plan)) = self.take_plan()? else {
            return Ok(checkpoint);
        };
        // First pass: verify every step, keeping how to undo it.
        for step in &plan {
            self.chunker.advance(step, &self.decoder);
            let ev = planned(step, self.frame, &head, &self.chunker, &self.decoder);
            match self.verifier.check_undoable(&ev) {
                // At most three steps: the Vec has room.
                Ok(undo) => drop(checkpoint.undo.push(undo)),
                Err(err) => {
                    self.rollback(checkpoint);
                    return Err(err);
                }
            }
        }
        // Second pass: hand the events out, replaying the expander from
        // its state before the frame for the ids.
        let mut replay = checkpoint.chunker.clone();
        for step in &plan {
            replay.advance(step, &self.decoder);
            f(&planned(step, self.frame, &head, &replay, &self.decoder));
        }
        Ok(checkpoint)
    }

    /// Takes back a frame accepted by [`expand_atomic`](Self::expand_atomic);
    /// only valid before the next frame is expanded.
    pub fn rollback(&mut self, checkpoint: Checkpoint<ID>) {
        for undo in checkpoint.undo.into_iter().rev() {
            self.verifier.undo(undo);
        }
        self.chunker = checkpoint.chunker;
    }

    /// The decoder (for the ids of the last frame).
    pub fn decoder(&self) -> &Decoder<ID, DEPTH> {
        &self.decoder
    }

    /// The verifier's state.
    pub fn verifier(&self) -> &Verifier<ID, MSGS, TOOLS, STEPS> {
        &self.verifier
    }

    /// The chunk expander's state.
    pub fn chunker(&self) -> &Chunker<ID> {
        &self.chunker
    }

    /// Back to the state before the first frame.
    pub fn reset(&mut self) {
        *self = Self::new();
    }
}

/// The event of one planned step, its id read from `chunker`. The tool
/// name and the role belong to the START that the frame opens (its own, or
/// the one a chunk expands to), not to a close of the previous item.
fn planned<'s, const ID: usize, const DEPTH: usize>(
    step: &Planned,
    frame: u32,
    head: &Header,
    chunker: &'s Chunker<ID>,
    decoder: &'s Decoder<ID, DEPTH>,
) -> Event<'s> {
    // Expanded events are never chunks: only a TOOL_CALL_START has a name.
    let name = step
        .kind
        .name_field()
        .map_or("", |_| decoder.tool_call_name());
    let role = if step.kind == EventType::TextMessageStart {
        head.role
    } else {
        Role::default()
    };
    Event {
        kind: step.kind,
        origin: step.origin,
        frame,
        id: chunker.id(step, decoder),
        name,
        role,
    }
}

/// The full pipeline over a byte stream. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct Pipeline<
    const ID: usize = 64,
    const MSGS: usize = 8,
    const TOOLS: usize = 8,
    const STEPS: usize = 8,
    const DEPTH: usize = 32,
> {
    framer: Framer,
    reader: EventReader<ID, MSGS, TOOLS, STEPS, DEPTH>,
    mode: Mode,
    /// The first error, in strict mode.
    failed: Option<Error>,
    /// Skipping the rest of a failed frame, in keep-going mode.
    skipping: bool,
    accepted: u32,
}

/// The pipeline with the default capacities: 64-byte ids, 8 open messages,
/// 8 open tool calls, 8 open steps, JSON nested 32 deep.
pub type DefaultPipeline = Pipeline;

impl<
        const ID: usize,
        const MSGS: usize,
        const TOOLS: usize,
        const STEPS: usize,
        const DEPTH: usize,
    > Default for Pipeline<ID, MSGS, TOOLS, STEPS, DEPTH>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<
        const ID: usize,
        const MSGS: usize,
        const TOOLS: usize,
        const STEPS: usize,
        const DEPTH: usize,
    > Pipeline<ID, MSGS, TOOLS, STEPS, DEPTH>
{
    /// A strict pipeline that detects SSE or NDJSON from the first byte.
    pub const fn new() -> Self {
        Self::with_format(None)
    }

    /// A strict pipeline for a known format (`None`: detect).
    pub const fn with_format(format: Option<Format>) -> Self {
        Pipeline {
            framer: Framer::new(format),
            reader: EventReader::new(),
            mode: Mode::Strict,
            failed: None,
            skipping: false,
            accepted: 0,
        }
    }

    /// Sets what happens after an error.
    pub fn set_mode(&mut self, mode: Mode) {
        self.mode = mode;
    }

    /// Frames accepted so far (decoded, expanded and verified).
    pub fn accepted(&self) -> u32 {
        self.accepted
    }

    /// The error that stopped a strict pipeline.
    pub fn error(&self) -> Option<&Error> {
        self.failed.as_ref()
    }

    /// The stage behind the framer.
    pub fn reader(&self) -> &EventReader<ID, MSGS, TOOLS, STEPS, DEPTH> {
        &self.reader
    }

    /// The framer (format, frame count).
    pub fn framer(&self) -> &Framer {
        &self.framer
    }

    /// Back to the state of [`new`](Self::new), keeping the mode and format choice.
    pub fn reset(&mut self) {
        self.framer.reset();
        self.reader.reset();
        self.failed = None;
        self.skipping = false;
        self.accepted = 0;
    }

    /// Feeds bytes, in any pieces; calls `f` for every output.
    ///
    /// # Errors
    /// In strict mode, the first error (and the same error on every later
    /// call until [`reset`](Self::reset)).
    pub fn feed(&mut self, mut input: &[u8], mut f: impl FnMut(Output<'_>)) -> Result<(), Error> {
        while !input.is_empty() {
            if let Some(err) = &self.failed {
                return Err(*err);
            }
            let (used, event) = self.framer.next(input);
            input = input.get(used..).unwrap_or_default();
            if let Some(event) = event {
                self.on_frame_event(event, &mut f)?;
            }
        }
        Ok(())
    }

    /// Ends the input: a final frame that was not terminated is processed.
    /// An open chunked item stays open. Call [`reset`](Self::reset) before
    /// feeding another stream: frame numbers, open items and the detected
    /// format otherwise carry over.
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn finish(&mut self, mut f: impl FnMut(Output<'_>)) -> Result<(), Error> {
        if let Some(err) = &self.failed {
            return Err(*err);
        }
        // The framer may have more than one event left (a last bare
        // `data` line: its Start or joiner, then End).
        while let Some(event) = self.framer.finish() {
            self.on_frame_event(event, &mut f)?;
        }
        Ok(())
    }

    fn on_frame_event<'b>(
        &mut self,
        event: FrameEvent<'b>,
        f: &mut impl FnMut(Output<'_>),
    ) -> Result<(), Error> {
        let result = match event {
            FrameEvent::Start => {
                self.skipping = false;
                let index = self.framer.frames().saturating_sub(1);
                self.reader.begin_frame(index);
                Ok(())
            }
            FrameEvent::Data(_) if self.skipping => Ok(()),
            FrameEvent::Data(text) => self.reader.feed(text, &mut |part| f(Output::Part(part))),
            FrameEvent::End if self.skipping => Ok(()),
            FrameEvent::End => self.end_frame(f),
        };
        result.or_else(|err| self.on_error(err, f))
    }

    fn end_frame(&mut self, f: &mut impl FnMut(Output<'_>)) -> Result<(), Error> {
        self.reader.end_frame()?;
        let mut out = |ev: &Event<'_>| f(Output::Event(*ev));
        match self.mode {
            Mode::Strict => self.reader.expand(&mut out)?,
            Mode::KeepGoing => drop(self.reader.expand_atomic(&mut out)?),
        }
        self.accepted = self.accepted.saturating_add(1);
        Ok(())
    }

    fn on_error(&mut self, err: Error, f: &mut impl FnMut(Output<'_>)) -> Result<(), Error> {
        match self.mode {
            Mode::Strict => {
                self.failed = Some(err);
                Err(err)
            }
            Mode::KeepGoing => {
                self.skipping = true;
                f(Output::Error(&err));
                Ok(())
            }
        }
    }
}
