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
use crate::decode::{Decoder, Ext, Header, Part, V1};
use crate::error::Error;
use crate::event::{EventRef, EventType, Origin, Role};
use crate::frame::{Format, FrameEvent, Framer};
use crate::protocol::{Protocol, Select};
use crate::store::{Fixed, Store};
use crate::verify::v1::{Facts, Journal, Owners};
use crate::verify::{Reversal, Verifier};
use crate::warn::Warning;

/// What the pipeline hands to its callback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output<'a> {
    /// A fragment of a field of the frame being decoded (provisional until
    /// the frame's events arrive: the frame may still fail).
    Part(Part<'a>),
    /// A verified event.
    Event(EventRef<'a>),
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
pub struct Checkpoint<const ID: usize = 64, const AGENTS: usize = 0, S: Store = Fixed> {
    chunker: Chunker<ID, AGENTS, S>,
    /// Made for a 1.0 frame (which `rollback` cannot take back).
    v1: bool,
    undo: heapless::Vec<Reversal<ID, S>, 3>,
}

/// Decoding, chunk expansion and verification of frames whose text the
/// caller delivers (`begin_frame`, `feed`, `end_frame`, `expand`).
///
/// `OWNERS` and `AGENTS` are the 1.0 tables' capacities (SPEC 9.7): owner
/// entries per owner table (and open steps), and sub-agents per run (and
/// chunk lanes); `X` is the decoder's 1.0 part ([`Ext`]: `()` or [`V1`]).
/// With the defaults (0, 0, `()`) the reader runs the current protocol
/// only; see [`V1Pipeline`] for one that runs 1.0.
#[derive(Debug, Clone, Default)]
pub struct EventReader<
    const ID: usize = 64,
    const MSGS: usize = 8,
    const TOOLS: usize = 8,
    const STEPS: usize = 8,
    const DEPTH: usize = 32,
    const OWNERS: usize = 0,
    const AGENTS: usize = 0,
    X: Ext<ID, S> = (),
    S: Store = Fixed,
> {
    decoder: Decoder<ID, DEPTH, X, S>,
    chunker: Chunker<ID, AGENTS, S>,
    verifier: Verifier<ID, MSGS, TOOLS, STEPS, S>,
    frame: u32,
    header: Option<Header>,
    select: Select,
    /// The stream's protocol, once its first frame decided it.
    protocol: Option<Protocol>,
    owners: Owners<ID, OWNERS, AGENTS, S>,
}

impl<
        const ID: usize,
        const MSGS: usize,
        const TOOLS: usize,
        const STEPS: usize,
        const DEPTH: usize,
        const OWNERS: usize,
        const AGENTS: usize,
        X: Ext<ID, S>,
        S: Store,
    > EventReader<ID, MSGS, TOOLS, STEPS, DEPTH, OWNERS, AGENTS, X, S>
{
    /// A reader before the first frame (the current protocol).
    pub fn new() -> Self {
        EventReader {
            decoder: Decoder::new(),
            chunker: Chunker::new(),
            verifier: Verifier::new(),
            frame: 0,
            header: None,
            select: Select::Fixed(Protocol::Current),
            protocol: None,
            owners: Owners::new(),
        }
    }

    /// Whether the reader can run 1.0: its decoder has the 1.0 part
    /// (`X` is [`V1`]; see [`V1Pipeline`]). Without it the reader runs the
    /// current protocol only, and none of the 1.0 code is linked (the
    /// firmware's flash and RAM budgets depend on it).
    pub const RUNS_V1: bool = X::ON;

    /// Chooses the protocol (SPEC 9.1); takes effect at the stream's first
    /// frame (after [`reset`](Self::reset), the choice is kept). Returns
    /// false, and keeps the current protocol, when the reader cannot run
    /// 1.0 ([`RUNS_V1`](Self::RUNS_V1)) and 1.0 or `Auto` was asked for.
    pub fn set_protocol(&mut self, select: Select) -> bool {
        if Self::RUNS_V1 {
            self.select = select;
            return true;
        }
        self.select = Select::Fixed(Protocol::Current);
        select == self.select
    }

    /// The stream's protocol: decided at its first frame (before it, what
    /// a fixed choice says, or `None` for [`Select::Auto`]).
    pub fn protocol(&self) -> Option<Protocol> {
        match (self.protocol, self.select) {
            (Some(p), _) | (None, Select::Fixed(p)) => Some(p),
            (None, Select::Auto) => None,
        }
    }

    fn is_v1(&self) -> bool {
        Self::RUNS_V1 && self.protocol == Some(Protocol::V1)
    }

    /// Starts frame number `index`.
    pub fn begin_frame(&mut self, index: u32) {
        self.frame = index;
        self.header = None;
        // 1.0 checks while the protocol may still be 1.0.
        let checks = Self::RUNS_V1 && self.protocol() != Some(Protocol::Current);
        self.decoder.set_v1_checks(checks);
        self.decoder.begin_frame();
        if checks {
            self.owners.discard_seeds();
            self.decoder.reset_seeder();
        }
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
        let seeds = Self::RUNS_V1 && self.protocol() != Some(Protocol::Current);
        // A whole bare delta frame in one step (feature `fast`); 1.0's
        // seeding reads the decoder between parts, so not while it runs.
        if crate::FAST && !seeds && self.decoder.feed_whole(text, f) {
            return Ok(());
        }
        while !text.is_empty() {
            let (used, part) = self.decoder.feed(text).map_err(|e| e.at(self.frame))?;
            text = text.get(used..).unwrap_or_default();
            if let Some(part) = part {
                if seeds {
                    self.decoder.seed(&part, &mut self.owners);
                }
                f(part);
            }
        }
        Ok(())
    }

    /// Ends the frame's text and checks its schema.
    ///
    /// This is the current protocol's view: in 1.0 a frame of an unknown
    /// type is dropped, which [`finish_frame`](Self::finish_frame) reports
    /// as `None`; here it is the decode error it is in the current protocol.
    ///
    /// # Errors
    /// A decode error (incomplete JSON, schema, id too long).
    pub fn end_frame(&mut self) -> Result<Header, Error> {
        let mut dropped = crate::error::ErrorText::new();
        let head = self.finish_frame(&mut |w| {
            if w.code == crate::warn::WarnCode::UnknownEvent {
                dropped = w.text;
            }
        })?;
        match head {
            Some(head) => Ok(head),
            None => Err(Error::new(
                crate::error::Stage::Decode,
                crate::error::Code::Decode,
                None,
                crate::error::Detail::UnknownType(dropped),
            )
            .at(self.frame)),
        }
    }

    /// Ends the frame's text and checks it under the stream's protocol,
    /// deciding the protocol at the first frame: `None` when 1.0 drops the
    /// frame (an unknown type). Warnings (1.0) go to `warn`.
    ///
    /// # Errors
    /// A decode error (incomplete JSON, schema, id too long).
    pub fn finish_frame(
        &mut self,
        warn: &mut impl FnMut(&Warning),
    ) -> Result<Option<Header>, Error> {
        if self.protocol.is_none() {
            self.protocol = Some(match self.select {
                Select::Fixed(p) => p,
                Select::Auto if Self::RUNS_V1 => self.decoder.first_frame_protocol().0,
                Select::Auto => Protocol::Current,
            });
        }
        let head = if self.is_v1() {
            self.finish_frame_v1(warn)?
        } else {
            Some(self.decoder.end_frame().map_err(|e| e.at(self.frame))?)
        };
        self.header = head;
        Ok(head)
    }

    /// [`finish_frame`](Self::finish_frame) under the 1.0 rules (out of
    /// line: the current protocol's path stays as short as it was).
    #[inline(never)]
    fn finish_frame_v1(&mut self, warn: &mut dyn FnMut(&Warning)) -> Result<Option<Header>, Error> {
        let frame = self.frame;
        let mut report = |mut w: Warning| {
            w.frame = frame;
            warn(&w);
        };
        let head = self
            .decoder
            .end_frame_v1(&mut report)
            .map_err(|e| e.at(frame))?;
        if let Some(w) = self.decoder.take_dropped_warning() {
            report(w);
        }
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
    pub fn expand(&mut self, f: &mut impl FnMut(&EventRef<'_>)) -> Result<(), Error> {
        if self.is_v1() {
            return self.expand_v1(&mut |ev| f(ev));
        }
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

    /// [`expand`](Self::expand) under the 1.0 rules: lanes in chunk
    /// expansion (SPEC 9.6), the 1.0 verifier (SPEC 9.7).
    #[inline(never)]
    fn expand_v1(&mut self, f: &mut dyn FnMut(&EventRef<'_>)) -> Result<(), Error> {
        self.expand_v1_with(Check::Plain, f)
    }

    /// The 1.0 expansion, verified (its changes to the 1.0 tables noted
    /// in a journal, or not) or (a replay of an expansion already
    /// verified) not.
    fn expand_v1_with(
        &mut self,
        mut check: Check<'_, ID, S>,
        f: &mut dyn FnMut(&EventRef<'_>),
    ) -> Result<(), Error> {
        let Some(head) = self.header.take() else {
            return Ok(());
        };
        let plan = self
            .chunker
            .plan_v1(&head, &self.decoder)
            .map_err(|e| e.at(self.frame))?;
        for step in plan.iter() {
            self.chunker.advance_v1(&step, &self.decoder);
            let mut ev = planned(
                &step.planned,
                self.frame,
                &head,
                &self.chunker,
                &self.decoder,
            );
            ev.id = self.chunker.id_v1(&step, &self.decoder);
            ev.subagent = self.chunker.owner_v1(&step, &self.decoder);
            let facts = match step.planned.origin {
                Origin::Frame | Origin::Chunk if Facts::needed(ev.kind) => facts(&self.decoder),
                Origin::Close | Origin::Frame | Origin::Chunk => Facts::default(),
            };
            match check {
                Check::Skip => {}
                Check::Plain => self.owners.check(&mut self.verifier, &ev, &facts)?,
                Check::Noted(ref mut journal) => {
                    self.owners
                        .check_noted(&mut self.verifier, &ev, &facts, journal)?;
                }
            }
            f(&ev);
        }
        Ok(())
    }

    /// [`expand_atomic`](Self::expand_atomic) under the 1.0 rules: the
    /// frame is verified first, on the real state, with the state before it
    /// kept aside (a copy of the chunk lanes, at most 9, and a [`Journal`]
    /// of what the frame changes in the 1.0 tables and the verifier: a cost
    /// in proportion to the frame, not to the ids the tables hold or to
    /// their capacities); if an event fails, the copy comes back and the
    /// journal is undone. Else the expansion is replayed from the lanes
    /// before the frame to hand the events out.
    #[inline(never)]
    fn expand_atomic_v1(
        &mut self,
        f: &mut dyn FnMut(&EventRef<'_>),
    ) -> Result<Checkpoint<ID, AGENTS, S>, Error> {
        let checkpoint = Checkpoint {
            chunker: self.chunker.clone(),
            undo: heapless::Vec::new(),
            v1: true,
        };
        let mut journal = self.owners.journal(&self.verifier);
        let header = self.header;
        if let Err(err) = self.expand_v1_with(Check::Noted(&mut journal), &mut |_| {}) {
            self.chunker = checkpoint.chunker.clone();
            // Complete: what a journal cannot take back (a new run, a
            // snapshot's owners) is the last event of its frame, which
            // cannot fail after it.
            let _ = self.owners.undo(&mut self.verifier, journal);
            self.decoder.restore_compat();
            return Err(err);
        }
        let verified = core::mem::replace(&mut self.chunker, checkpoint.chunker.clone());
        self.header = header;
        // Verified already: the replay cannot fail.
        let _ = self.expand_v1_with(Check::Skip, f);
        self.chunker = verified;
        Ok(checkpoint)
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
        f: &mut impl FnMut(&EventRef<'_>),
    ) -> Result<Checkpoint<ID, AGENTS, S>, Error> {
        if self.is_v1() {
            return self.expand_atomic_v1(&mut |ev| f(ev));
        }
        let mut checkpoint = Checkpoint {
            chunker: self.chunker.clone(),
            undo: heapless::Vec::new(),
            v1: false,
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
    ///
    /// Not for a 1.0 frame, which it leaves in place (a frame that fails
    /// its own verification is taken back by `expand_atomic` itself,
    /// through a [`Journal`] that does not outlive the frame).
    pub fn rollback(&mut self, checkpoint: Checkpoint<ID, AGENTS, S>) {
        if checkpoint.v1 {
            return;
        }
        for undo in checkpoint.undo.into_iter().rev() {
            self.verifier.undo(undo);
        }
        self.chunker = checkpoint.chunker;
    }

    /// The decoder (for the ids of the last frame).
    pub fn decoder(&self) -> &Decoder<ID, DEPTH, X, S> {
        &self.decoder
    }

    /// The 1.0 verifier's tables (owners, sub-agents, reasoning, steps).
    pub fn owners(&self) -> &Owners<ID, OWNERS, AGENTS, S> {
        &self.owners
    }

    /// The verifier's state.
    pub fn verifier(&self) -> &Verifier<ID, MSGS, TOOLS, STEPS, S> {
        &self.verifier
    }

    /// The chunk expander's state.
    pub fn chunker(&self) -> &Chunker<ID, AGENTS, S> {
        &self.chunker
    }

    /// The bytes the reader keeps beside its own size: none in the fixed
    /// store; in a growable one (`agui_alloc::store::Grow`) its id slots,
    /// open ids, chunk lanes, 1.0 tables (entries, indexes, ids) and JSON
    /// depth stacks. A sum over a fixed number of tables, each counted as
    /// it changes, so reading it costs the same whatever they hold (the
    /// 1.0 sub-agents, at most `AGENTS`, are walked).
    pub fn kept_bytes(&self) -> usize {
        self.decoder
            .heap_bytes()
            .saturating_add(self.chunker.heap_bytes())
            .saturating_add(self.verifier.heap_bytes())
            .saturating_add(self.owners.heap_bytes())
    }

    /// Back to the state before the first frame, keeping the protocol
    /// choice (a [`Select::Auto`] decides again at the next first frame).
    pub fn reset(&mut self) {
        let select = self.select;
        *self = Self::new();
        self.select = select;
    }
}

/// How a 1.0 expansion checks its events.
enum Check<'j, const ID: usize, S: Store> {
    /// Not at all: a replay of an expansion already verified.
    Skip,
    /// Under the 1.0 rules.
    Plain,
    /// Under the 1.0 rules, noting the changes to the 1.0 tables.
    Noted(&'j mut Journal<ID, S>),
}

/// The 1.0 facts of the decoded frame that the verifier reads.
fn facts<const ID: usize, const DEPTH: usize, X: Ext<ID, S>, S: Store>(
    dec: &Decoder<ID, DEPTH, X, S>,
) -> Facts<'_> {
    Facts {
        parent_message: dec.parent_message_id(),
        parent_subagent: dec.parent_subagent(),
        message_id: dec.message_id(),
        keep: dec.replace_false(),
        tool_call_subtype: dec.subtype_is_tool_call(),
        entity: dec.entity_id(),
    }
}

/// The event of one planned step, its id read from `chunker`. The tool
/// name and the role belong to the START that the frame opens (its own, or
/// the one a chunk expands to), not to a close of the previous item.
fn planned<
    's,
    const ID: usize,
    const AGENTS: usize,
    const DEPTH: usize,
    X: Ext<ID, S>,
    S: Store,
>(
    step: &Planned,
    frame: u32,
    head: &Header,
    chunker: &'s Chunker<ID, AGENTS, S>,
    decoder: &'s Decoder<ID, DEPTH, X, S>,
) -> EventRef<'s> {
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
    EventRef {
        kind: step.kind,
        origin: step.origin,
        frame,
        id: chunker.id(step, decoder),
        name,
        role,
        subagent: None,
    }
}

/// The warning sink of [`Pipeline::feed`] and [`Pipeline::finish`]: one
/// function item (not a closure per call site), so that both share one
/// instantiation of the pipeline's frame path (two would double it in a
/// firmware image).
fn ignore_warning(_: &Warning) {}

/// The full pipeline over a byte stream. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct Pipeline<
    const ID: usize = 64,
    const MSGS: usize = 8,
    const TOOLS: usize = 8,
    const STEPS: usize = 8,
    const DEPTH: usize = 32,
    const OWNERS: usize = 0,
    const AGENTS: usize = 0,
    X: Ext<ID, S> = (),
    S: Store = Fixed,
> {
    framer: Framer,
    reader: EventReader<ID, MSGS, TOOLS, STEPS, DEPTH, OWNERS, AGENTS, X, S>,
    mode: Mode,
    /// The first error, in strict mode.
    failed: Option<Error>,
    /// Skipping the rest of a failed frame, in keep-going mode.
    skipping: bool,
    accepted: u32,
}

/// The pipeline with the default capacities: 64-byte ids, 8 open messages,
/// 8 open tool calls, 8 open steps, JSON nested 32 deep; no 1.0 tables
/// (the current protocol).
pub type DefaultPipeline = Pipeline;

/// A pipeline that can run AG-UI 1.0 (SPEC section 9): the default
/// capacities, the decoder's 1.0 part ([`V1`]), 16 entries per 1.0 owner
/// table (message, tool call, reasoning, activity; also the open steps) and
/// 4 sub-agents per run (and chunk lanes). 11,352 bytes (the default
/// pipeline: 2,776). Select 1.0 with [`Pipeline::set_protocol`].
pub type V1Pipeline = Pipeline<64, 8, 8, 8, 32, 16, 4, V1<64>>;

impl<
        const ID: usize,
        const MSGS: usize,
        const TOOLS: usize,
        const STEPS: usize,
        const DEPTH: usize,
        const OWNERS: usize,
        const AGENTS: usize,
        X: Ext<ID, S>,
        S: Store,
    > Default for Pipeline<ID, MSGS, TOOLS, STEPS, DEPTH, OWNERS, AGENTS, X, S>
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
        const OWNERS: usize,
        const AGENTS: usize,
        X: Ext<ID, S>,
        S: Store,
    > Pipeline<ID, MSGS, TOOLS, STEPS, DEPTH, OWNERS, AGENTS, X, S>
{
    /// A strict pipeline that detects SSE or NDJSON from the first byte.
    pub fn new() -> Self {
        Self::with_format(None)
    }

    /// A strict pipeline for a known format (`None`: detect).
    pub fn with_format(format: Option<Format>) -> Self {
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
    ///
    /// In 1.0 mode a failed frame is taken back as in the current protocol
    /// (its events are verified before any is handed out): the 1.0 tables
    /// through a journal of what the frame changed in them (its cost is
    /// the frame's, not the tables'), the verifier and the chunk lanes
    /// through copies (small fixed tables); an accepted 1.0 frame cannot
    /// be rolled back later.
    ///
    /// Needs the feature `keep-going` (on by default): without it a
    /// pipeline is strict, and its image carries no frame rollback (1.9 KB
    /// of a Cortex-M3 image).
    #[cfg(feature = "keep-going")]
    pub fn set_mode(&mut self, mode: Mode) {
        self.mode = mode;
    }

    /// The mode in force: always [`Mode::Strict`] without the feature
    /// `keep-going` (a constant, so the keep-going paths are not linked).
    fn mode(&self) -> Mode {
        if cfg!(feature = "keep-going") {
            self.mode
        } else {
            Mode::Strict
        }
    }

    /// Chooses the protocol (SPEC 9.1): the current one (the default),
    /// 1.0, or [`Select::Auto`] (1.0 when the first frame is a
    /// `RUN_STARTED` announcing it). Call before the first frame; kept by
    /// [`reset`](Self::reset). False (and the current protocol) for a
    /// pipeline without 1.0 tables, such as [`DefaultPipeline`]: see
    /// [`EventReader::RUNS_V1`].
    ///
    /// ```
    /// use agui_core::pipeline::{Output, V1Pipeline};
    /// use agui_core::protocol::{Protocol, Select};
    ///
    /// let mut p = V1Pipeline::new();
    /// assert!(p.set_protocol(Select::Auto));
    /// let mut kinds = Vec::new();
    /// let mut warnings = Vec::new();
    /// let stream = b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\",\"protocolVersion\":\"1.0\"}\n\
    ///                {\"type\":\"FUTURE_EVENT\"}\n\
    ///                {\"type\":\"THINKING_START\"}\n";
    /// p.feed_reporting(stream, |out| if let Output::Event(ev) = out {
    ///     kinds.push(ev.kind.as_str());
    /// }, |w| warnings.push(w.code.as_str())).unwrap();
    /// assert_eq!(p.reader().protocol(), Some(Protocol::V1));
    /// assert_eq!(kinds, ["RUN_STARTED", "REASONING_START"]);
    /// assert_eq!(warnings, ["unknown_event", "converted"]);
    /// ```
    pub fn set_protocol(&mut self, select: Select) -> bool {
        self.reader.set_protocol(select)
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
    pub fn reader(&self) -> &EventReader<ID, MSGS, TOOLS, STEPS, DEPTH, OWNERS, AGENTS, X, S> {
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
    pub fn feed(&mut self, input: &[u8], f: impl FnMut(Output<'_>)) -> Result<(), Error> {
        self.feed_reporting(input, f, ignore_warning)
    }

    /// [`feed`](Self::feed), with the warnings of 1.0 mode (dropped
    /// events, stripped material, translations; SPEC 9.10) handed to `w`.
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn feed_reporting(
        &mut self,
        mut input: &[u8],
        mut f: impl FnMut(Output<'_>),
        mut w: impl FnMut(&Warning),
    ) -> Result<(), Error> {
        while !input.is_empty() {
            if let Some(err) = &self.failed {
                return Err(*err);
            }
            let (used, event) = self.framer.next(input);
            input = input.get(used..).unwrap_or_default();
            if let Some(event) = event {
                self.on_frame_event(event, &mut f, &mut w)?;
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
    pub fn finish(&mut self, f: impl FnMut(Output<'_>)) -> Result<(), Error> {
        self.finish_reporting(f, ignore_warning)
    }

    /// [`finish`](Self::finish), with 1.0 warnings handed to `w`.
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn finish_reporting(
        &mut self,
        mut f: impl FnMut(Output<'_>),
        mut w: impl FnMut(&Warning),
    ) -> Result<(), Error> {
        if let Some(err) = &self.failed {
            return Err(*err);
        }
        // The framer may have more than one event left (a last bare
        // `data` line: its Start or joiner, then End).
        while let Some(event) = self.framer.finish() {
            self.on_frame_event(event, &mut f, &mut w)?;
        }
        Ok(())
    }

    /// Ends a stream fed only through [`feed_event`](Self::feed_event) (the
    /// protobuf reader's): [`finish`](Self::finish) without its own text
    /// framer's end, which has nothing then, and without that framer's code
    /// in an image that does not read text.
    ///
    /// # Errors
    /// As [`finish`](Self::finish): the error that stopped the stream.
    pub fn finish_events(&self) -> Result<(), Error> {
        match &self.failed {
            Some(err) => Err(*err),
            None => Ok(()),
        }
    }

    /// Feeds one framing event of a framer of the caller's (the protobuf
    /// reader, [`crate::proto::ProtoFramer`]) instead of bytes for the
    /// pipeline's own text framer: a frame's `Start`, its JSON text, its
    /// `End`, or the error that failed it (`index`: the frame's number).
    /// Errors go as in [`feed`](Self::feed).
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn feed_event(
        &mut self,
        index: u32,
        event: Result<FrameEvent<'_>, Error>,
        mut f: impl FnMut(Output<'_>),
        mut w: impl FnMut(&Warning),
    ) -> Result<(), Error> {
        if let Some(err) = &self.failed {
            return Err(*err);
        }
        match event {
            Ok(event) => self.on_frame_event_at(event, index, &mut f, &mut w),
            // In keep-going mode the frame's text may have failed already
            // (a string that is not UTF-8) before its framing fails: the
            // frame is skipped, and has its one error, the first.
            Err(_) if self.skipping && self.reader.frame == index => Ok(()),
            Err(err) => self.on_error(err.at(index), &mut f),
        }
    }

    fn on_frame_event<'b>(
        &mut self,
        event: FrameEvent<'b>,
        f: &mut impl FnMut(Output<'_>),
        w: &mut impl FnMut(&Warning),
    ) -> Result<(), Error> {
        let index = self.framer.frames().saturating_sub(1);
        self.on_frame_event_at(event, index, f, w)
    }

    fn on_frame_event_at<'b>(
        &mut self,
        event: FrameEvent<'b>,
        index: u32,
        f: &mut impl FnMut(Output<'_>),
        w: &mut impl FnMut(&Warning),
    ) -> Result<(), Error> {
        let result = match event {
            FrameEvent::Start => {
                self.skipping = false;
                self.reader.begin_frame(index);
                Ok(())
            }
            FrameEvent::Data(_) if self.skipping => Ok(()),
            FrameEvent::Data(text) => self.reader.feed(text, &mut |part| f(Output::Part(part))),
            FrameEvent::End if self.skipping => Ok(()),
            FrameEvent::End => self.end_frame(f, w),
        };
        result.or_else(|err| self.on_error(err, f))
    }

    fn end_frame(
        &mut self,
        f: &mut impl FnMut(Output<'_>),
        w: &mut impl FnMut(&Warning),
    ) -> Result<(), Error> {
        self.reader.finish_frame(w)?;
        let mut out = |ev: &EventRef<'_>| f(Output::Event(*ev));
        match self.mode() {
            Mode::Strict => self.reader.expand(&mut out)?,
            Mode::KeepGoing => drop(self.reader.expand_atomic(&mut out)?),
        }
        self.accepted = self.accepted.saturating_add(1);
        Ok(())
    }

    fn on_error(&mut self, err: Error, f: &mut impl FnMut(Output<'_>)) -> Result<(), Error> {
        match self.mode() {
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
