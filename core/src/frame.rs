//! Framing: cutting a byte stream into frames, one JSON document each.
//!
//! An AG-UI agent sends its events over a byte stream in one of two
//! encodings. Both are line based, and both carry exactly one JSON object
//! per *frame*; the framer's only job is to find where each frame's JSON text
//! begins and ends. It does so incrementally (bytes may arrive one at a time,
//! or in slices of any size, cut anywhere) and without copying: payload
//! bytes are handed out as slices of the caller's input.
//!
//! # NDJSON (newline-delimited JSON)
//!
//! ```text
//! {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n     frame 0
//! \n                                                      blank: skipped
//! {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\r\n  frame 1
//! ```
//!
//! - One frame per line. Only LF (`\n`) ends a line; a CR right before the
//!   LF belongs to the line end, not to the payload.
//! - A line holding only spaces, tabs or CRs is blank: it is skipped and is
//!   not a frame. The framer therefore opens a frame only at the first byte
//!   that is none of those, and drops the whitespace before it (JSON ignores
//!   it anyway).
//! - Any other CR, and the JSON line separators U+2028 / U+2029, are
//!   ordinary payload bytes.
//!
//! # SSE (server-sent events, WHATWG `text/event-stream`)
//!
//! ```text
//! : keep-alive\n                comment: ignored
//! event: message\r\n           other field: ignored
//! data: {"type":"RUN_STARTED",\r  frame 0 starts: `{"type":"RUN_STARTED",`
//! data:"threadId":"t",\n          joined: `\n"threadId":"t",`
//! data: "runId":"r"}\n            joined: `\n"runId":"r"}`
//! \n                              blank line: event dispatched, frame 0 ends
//! id: 7\n                         an event without data ...
//! \n                              ... is no frame
//! ```
//!
//! - A line ends at LF, at CR LF or at a lone CR. A CR LF pair counts as one
//!   line end even when the CR and the LF arrive in different slices, so the
//!   framer remembers a CR that ended a line until it has seen the next byte.
//! - A line is `field:value`, or just `field` (empty value). One space after
//!   the colon is not part of the value. A line starting with `:` is a
//!   comment.
//! - Only the `data` field matters here: its values are the frame payload,
//!   joined with `\n` when an event has several data lines. `event`, `id`,
//!   `retry` and any unknown field (`dataX`, `dat`, ...) are ignored.
//! - A blank line ends the event. An event with at least one data line is a
//!   frame, even when all its data is empty (`data:` alone gives a frame with
//!   empty text, which the decoder then rejects). An event without data lines
//!   is not a frame. This is what the WHATWG rules do too: each `data` line
//!   appends its value and a LF to the data buffer, so `data:` alone leaves
//!   `"\n"`, and the event is dispatched with empty data once the last LF is
//!   cut; only an event with no `data` line at all (an empty buffer) is not
//!   dispatched.
//! - A UTF-8 byte-order mark (`EF BB BF`) at the very start of the stream is
//!   skipped.
//!
//! The framer never buffers a field name: it follows the name byte by byte
//! against `data` and gives up at the first mismatch, so longer names cost
//! no memory. The frame starts when the first data line's name is complete
//! (at its colon, or at its line end for a bare `data`).
//!
//! # End of input
//!
//! A last frame without its terminator (an NDJSON line without `\n`, an SSE
//! event without its blank line, even a last data line without its line end)
//! is still a frame: [`Framer::finish`] closes it. (`finish` hands out what
//! is left one event per call; it is nearly always a single `End`.)
//!
//! # Auto-detection
//!
//! With [`Framer::new(None)`](Framer::new) the framer looks at the first byte
//! that is not part of the stream's byte-order mark and not a space, tab, CR
//! or LF: `{` means NDJSON, anything else means SSE. The bytes before it
//! produce no frame in either format, so detection loses nothing. After
//! detection the stream is framed exactly as if its format had been given.
//!
//! The byte-order mark is skipped at the very start of the stream in both
//! formats (an explicit NDJSON stream too), so the same bytes frame the same
//! way whether the format was given or detected.
//!
//! # Frame index
//!
//! Frames are numbered from 0 in arrival order: the frame announced by a
//! [`FrameEvent::Start`] has index [`Framer::frames`]` - 1`. Blank lines,
//! comments and data-less SSE events have no index.
//!
//! # Example
//!
//! ```
//! use agui_core::frame::{Format, FrameEvent, Framer};
//!
//! let mut framer = Framer::new(None);
//! // One SSE event with two data lines, cut in the middle of its CR LF.
//! let slices: [&[u8]; 2] = [b"data: {\"a\":\r", b"\ndata: 1}\r\n\r\n"];
//! let mut payload = [0u8; 16];
//! let mut len = 0;
//! for slice in slices {
//!     let mut buf = slice;
//!     while !buf.is_empty() {
//!         let (used, event) = framer.next(buf);
//!         buf = &buf[used..];
//!         if let Some(FrameEvent::Data(bytes)) = event {
//!             payload[len..len + bytes.len()].copy_from_slice(bytes);
//!             len += bytes.len();
//!         }
//!     }
//! }
//! assert_eq!(framer.finish(), None); // the event was terminated
//! assert_eq!(&payload[..len], b"{\"a\":\n1}");
//! assert_eq!(framer.format(), Some(Format::Sse));
//! assert_eq!(framer.frames(), 1);
//! ```

/// The UTF-8 byte-order mark, skipped at the very start of a stream.
const BOM: &[u8; 3] = b"\xEF\xBB\xBF";

/// The only SSE field name that carries payload.
const DATA: &[u8; 4] = b"data";

/// What joins two SSE data lines of one event.
const LF: &[u8] = b"\n";

/// An NDJSON CR that turned out not to end the line.
const CR: &[u8] = b"\r";

/// How a stream encodes its frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Format {
    /// Newline-delimited JSON: one JSON object per `\n`-terminated line.
    Ndjson,
    /// Server-sent events: one JSON object per event, in its `data` lines.
    Sse,
}

/// What [`Framer::next`] found in the input.
///
/// For every frame the events are `Start`, any number of `Data`, then `End`.
/// Concatenating the `Data` bytes gives the frame's JSON text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FrameEvent<'a> {
    /// A frame begins; its index is [`Framer::frames`]` - 1`.
    Start,
    /// The next payload bytes of the open frame; never empty.
    ///
    /// A slice of the input given to [`Framer::next`], or a static `b"\n"`
    /// (the separator between SSE data lines) or `b"\r"` (an NDJSON CR held
    /// back at the end of a slice, until the next byte showed it was not the
    /// line end).
    Data(&'a [u8]),
    /// The open frame is complete.
    End,
}

/// The framer's position in the stream's grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Auto-detecting: only spaces, tabs, CRs and LFs seen so far.
    /// `indented` is set when a space or tab came after the last line end:
    /// an SSE line starting with one names a field that is not `data`.
    Detect { indented: bool },
    /// NDJSON. Whether a line's payload has begun is `Framer::open`.
    Ndjson,
    /// SSE, at this point of the current line.
    Sse(SseLine),
}

/// Where the framer is within an SSE line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SseLine {
    /// Nothing of the line seen yet: a line end here makes it blank.
    Start,
    /// The line so far is this many bytes of `data` (1 to 4).
    Name(u8),
    /// A comment or a field other than `data`: skip to the line end.
    Ignored,
    /// Just after `data:`, where one space is dropped.
    ValueStart,
    /// Inside a data value: payload up to the line end.
    Value,
}

/// Incremental, zero-copy framer for NDJSON and SSE streams.
///
/// Feed it slices with [`next`](Framer::next) in a loop, then call
/// [`finish`](Framer::finish) at the end of the stream. It holds no buffer:
/// its whole state is a few bytes, fixed at compile time.
#[derive(Debug, Clone)]
pub struct Framer {
    /// The format given to `new`, restored by `reset`.
    choice: Option<Format>,
    /// The grammar position; says the format once it is known.
    state: State,
    /// `Some(n)` while the first `n` bytes of the stream match the BOM and
    /// the rest is still to come; `None` once skipped or ruled out.
    bom: Option<u8>,
    /// The last byte consumed was a CR whose meaning depends on the next
    /// byte. SSE: the line already ended, a following LF is part of the same
    /// line end. NDJSON: the CR is dropped if an LF follows, else it is
    /// payload.
    cr: bool,
    /// NDJSON only: the start of a BOM that turned out to be payload, still
    /// to be emitted (static, so it costs no copy).
    replay: &'static [u8],
    /// A frame is open: `Start` was emitted and `End` not yet.
    open: bool,
    /// Frames started so far; saturates at `u32::MAX`.
    frames: u32,
}

impl Default for Framer {
    /// An auto-detecting framer, as [`Framer::new(None)`](Framer::new).
    fn default() -> Self {
        Self::new(None)
    }
}

impl Framer {
    /// A framer for a new stream in `format`, or auto-detecting it if `None`.
    ///
    /// ```
    /// use agui_core::frame::{Format, Framer};
    /// static SSE: Framer = Framer::new(Some(Format::Sse));
    /// assert_eq!(SSE.format(), Some(Format::Sse));
    /// assert_eq!(Framer::new(None).format(), None);
    /// ```
    pub const fn new(format: Option<Format>) -> Self {
        let state = match format {
            None => State::Detect { indented: false },
            Some(Format::Ndjson) => State::Ndjson,
            Some(Format::Sse) => State::Sse(SseLine::Start),
        };
        Self {
            choice: format,
            state,
            bom: Some(0),
            cr: false,
            replay: &[],
            open: false,
            frames: 0,
        }
    }

    /// Gets ready for a new stream: the state of `new`, with the same format
    /// choice (so an auto-detecting framer detects again).
    pub fn reset(&mut self) {
        *self = Self::new(self.choice);
    }

    /// The stream's format: the one given to `new`, or the detected one;
    /// `None` while still detecting.
    pub fn format(&self) -> Option<Format> {
        match self.state {
            State::Detect { .. } => None,
            State::Ndjson => Some(Format::Ndjson),
            State::Sse(_) => Some(Format::Sse),
        }
    }

    /// How many frames have started ([`FrameEvent::Start`] events) since
    /// `new` or `reset`.
    ///
    /// The count saturates at `u32::MAX`: a stream of more than four billion
    /// frames keeps being framed, but its later frames share the last index.
    pub fn frames(&self) -> u32 {
        self.frames
    }

    /// Consumes bytes from `input` up to the next event.
    ///
    /// Returns how many bytes were consumed and the event found, if any:
    /// `(input.len(), None)` when the input ran out first. The state carries
    /// over to the next call, so the rest of the stream may be cut anywhere.
    /// Every call either consumes at least one byte or returns an event (an
    /// event may consume nothing), so the usual loop always ends:
    ///
    /// ```
    /// use agui_core::frame::{Format, FrameEvent, Framer};
    ///
    /// let mut framer = Framer::new(Some(Format::Ndjson));
    /// let mut buf: &[u8] = b"{\"a\":1}\r\n  \n{\"b\":";
    /// let mut events = 0;
    /// while !buf.is_empty() {
    ///     let (used, event) = framer.next(buf);
    ///     buf = &buf[used..];
    ///     events += usize::from(event.is_some());
    /// }
    /// // Start, Data, End for the first line; Start, Data for the open one.
    /// assert_eq!(events, 5);
    /// assert_eq!(framer.finish(), Some(FrameEvent::End));
    /// assert_eq!(framer.frames(), 2);
    /// ```
    pub fn next<'a>(&mut self, input: &'a [u8]) -> (usize, Option<FrameEvent<'a>>) {
        if crate::FAST {
            if let Some(found) = self.fast_path(input) {
                return found;
            }
        }
        self.steps(input)
    }

    /// A whole ordinary frame at the start of `input`, in one call: SSE
    /// `data:` (one space dropped), a value without CR or LF, and the LF
    /// LF that ends the event; NDJSON a line that starts with no
    /// whitespace, ends with LF and holds no other. Returns the bytes taken
    /// and the frame's text: what [`next`](Self::next) would report as
    /// `Start`, `Data(text)` and `End` over the same bytes, leaving the
    /// framer in the same state. `None`, with nothing changed, for
    /// anything else (then call `next`), and always without the feature
    /// `fast`.
    #[inline]
    pub fn next_frame<'a>(&mut self, input: &'a [u8]) -> Option<(usize, &'a [u8])> {
        if !crate::FAST || self.open || self.bom.is_some() || self.cr {
            return None;
        }
        let (used, text) = match self.state {
            State::Sse(SseLine::Start) => {
                let name = DATA.len().saturating_add(1);
                let value = input.get(name..).filter(|_| starts_with_data(input))?;
                let space = usize::from(value.first() == Some(&b' '));
                let value = value.get(space..)?;
                let at = find_line_end(value)?;
                // The value, then LF LF (a CR would end the line another
                // way: CR LF is one line end).
                if at == 0 || value.get(at..at.saturating_add(2)) != Some(b"\n\n") {
                    return None;
                }
                let used = name.saturating_add(space).saturating_add(at);
                (used.saturating_add(2), value.get(..at)?)
            }
            State::Ndjson if self.replay.is_empty() => {
                let &first = input.first()?;
                if matches!(first, b' ' | b'\t' | b'\r' | b'\n') {
                    return None;
                }
                let at = find_lf(input)?;
                let line = input.get(..at)?;
                (at.saturating_add(1), line.strip_suffix(CR).unwrap_or(line))
            }
            State::Detect { .. } | State::Ndjson | State::Sse(_) => return None,
        };
        // `Start` then `End`: the frame is counted, and closed again.
        self.frames = self.frames.saturating_add(1);
        Some((used, text))
    }

    /// The moves of an ordinary event (SSE: `data:`, its value, the blank
    /// line; NDJSON: the line's start, its text, its LF), when they report
    /// an event: the same moves as [`step`](Self::step) makes, without its
    /// general dispatch. `None`, with nothing changed, for everything else.
    #[inline(always)]
    fn fast_path<'a>(&mut self, input: &'a [u8]) -> Option<(usize, Option<FrameEvent<'a>>)> {
        if self.bom.is_some() || self.cr {
            return None;
        }
        let &byte = input.first()?;
        let found = match self.state {
            State::Sse(SseLine::Start) if starts_with_data(input) => {
                self.state = State::Sse(SseLine::ValueStart);
                (DATA.len().saturating_add(1), Some(self.begin_data_line()))
            }
            State::Sse(SseLine::ValueStart) => {
                let space = usize::from(byte == b' ');
                let rest = input.get(space..)?;
                let &first = rest.first()?;
                if first == b'\n' || first == b'\r' {
                    return None;
                }
                self.state = State::Sse(SseLine::Value);
                let (used, event) = self.sse_value(first, rest);
                (used.saturating_add(space), event)
            }
            State::Sse(SseLine::Value)
                if self.open && byte == b'\n' && input.get(1) == Some(&b'\n') =>
            {
                self.state = State::Sse(SseLine::Start);
                (2, self.close_frame())
            }
            State::Ndjson if !self.replay.is_empty() => return None,
            // Between lines: the first byte of the next one opens a frame.
            State::Ndjson if !self.open && !matches!(byte, b' ' | b'\t' | b'\r' | b'\n') => {
                (0, Some(self.start_frame()))
            }
            State::Ndjson if self.open && byte == b'\n' => (1, Some(self.end_frame())),
            State::Ndjson if self.open => {
                let at = find_lf(input)?;
                let run = input.get(..at)?;
                (
                    at,
                    Some(FrameEvent::Data(nonempty(
                        run.strip_suffix(CR).unwrap_or(run),
                    )?)),
                )
            }
            State::Detect { .. } | State::Ndjson | State::Sse(_) => return None,
        };
        // Every move above reports an event; nothing else was changed.
        Some(found)
    }

    /// [`next`](Self::next) the general way: one [`step`](Self::step)
    /// after another until one reports an event or the input is used up.
    #[inline(never)]
    fn steps<'a>(&mut self, input: &'a [u8]) -> (usize, Option<FrameEvent<'a>>) {
        let mut rest = input;
        // Steps that find nothing to report are chained here, so the caller
        // sees `None` only when the whole input is used.
        while !rest.is_empty() {
            let (used, event) = self.step(rest);
            rest = rest.get(used..).unwrap_or_default();
            if event.is_some() {
                return (input.len().saturating_sub(rest.len()), event);
            }
        }
        (input.len(), None)
    }

    /// Ends the stream, delivering what the last, unterminated frame still
    /// needs. Returns one event per call; call it until it returns `None`.
    ///
    /// Almost always that is a single [`FrameEvent::End`] if a frame was
    /// open. Only a stream ending in the middle of its first bytes or its last
    /// SSE line can need more: the last line `data` (no colon, no line end)
    /// is an empty data line, so it first yields `Start` (or the `b"\n"` that
    /// joins it to earlier data lines); an NDJSON stream of just `EF` or
    /// `EF BB` is a frame holding those bytes (`Start`, `Data`, `End`).
    /// All these events are `'static`.
    ///
    /// ```
    /// use agui_core::frame::{Format, FrameEvent, Framer};
    ///
    /// let mut framer = Framer::new(Some(Format::Sse));
    /// assert_eq!(framer.next(b"data: {}"), (5, Some(FrameEvent::Start)));
    /// assert_eq!(framer.next(b" {}"), (3, Some(FrameEvent::Data(b"{}"))));
    /// assert_eq!(framer.finish(), Some(FrameEvent::End));
    /// assert_eq!(framer.finish(), None);
    /// ```
    ///
    /// Afterwards the framer is between frames; use [`reset`](Self::reset)
    /// before framing another stream.
    pub fn finish(&mut self) -> Option<FrameEvent<'static>> {
        if let Some(matched) = self.bom.take() {
            if let Some(event) = self.bom_was_payload(matched) {
                return Some(event);
            }
        }
        match self.state {
            State::Detect { .. } => None,
            State::Ndjson => {
                if !self.replay.is_empty() {
                    return Some(FrameEvent::Data(core::mem::take(&mut self.replay)));
                }
                // A CR at the very end is line-end debris (and JSON
                // whitespace anyway), not payload.
                self.cr = false;
                self.close_frame()
            }
            State::Sse(line) => {
                self.state = State::Sse(SseLine::Start);
                self.cr = false;
                if line == SseLine::Name(DATA_LEN) {
                    return Some(self.begin_data_line());
                }
                self.close_frame()
            }
        }
    }

    /// One move through the grammar on non-empty `input`. Either consumes
    /// a byte, returns an event, or moves one way between states that do
    /// (BOM resolved, format decided, SSE value begun), so `next` always
    /// progresses.
    fn step<'a>(&mut self, input: &'a [u8]) -> (usize, Option<FrameEvent<'a>>) {
        let Some(&byte) = input.first() else {
            return (0, None);
        };
        if let Some(matched) = self.bom {
            return self.skip_bom(matched, byte);
        }
        match self.state {
            State::Detect { indented } => self.detect(indented, input),
            State::Ndjson if self.open => self.ndjson_payload(input),
            State::Ndjson => self.ndjson_blank(input),
            State::Sse(line) => {
                // The LF of a CR LF pair: the line already ended at the CR.
                if core::mem::take(&mut self.cr) && byte == b'\n' {
                    return (1, None);
                }
                self.sse(line, byte, input)
            }
        }
    }

    /// Follows the stream's first bytes against the BOM.
    fn skip_bom(&mut self, matched: u8, byte: u8) -> (usize, Option<FrameEvent<'static>>) {
        if BOM.get(usize::from(matched)) == Some(&byte) {
            let matched = matched.saturating_add(1);
            self.bom = (usize::from(matched) < BOM.len()).then_some(matched);
            (1, None)
        } else {
            self.bom = None;
            (0, self.bom_was_payload(matched))
        }
    }

    /// The stream began with the first `matched` bytes of a BOM and then
    /// broke off: those bytes are ordinary stream bytes after all. They are
    /// the static BOM's prefix, so nothing needs to have been kept.
    fn bom_was_payload(&mut self, matched: u8) -> Option<FrameEvent<'static>> {
        let prefix = BOM.get(..usize::from(matched)).unwrap_or_default();
        if prefix.is_empty() {
            return None;
        }
        match self.state {
            // `EF` is not `{`, so it decides SSE; as a field name it is not
            // `data`, so its line is ignored.
            State::Detect { .. } | State::Sse(_) => {
                self.state = State::Sse(SseLine::Ignored);
                None
            }
            // Not blank, so a frame starts with those bytes.
            State::Ndjson => {
                self.replay = prefix;
                Some(self.start_frame())
            }
        }
    }

    /// Skips the whitespace before the deciding byte and picks the format.
    /// The deciding byte itself is left for the chosen format.
    fn detect(&mut self, mut indented: bool, input: &[u8]) -> (usize, Option<FrameEvent<'static>>) {
        for (at, &byte) in input.iter().enumerate() {
            self.state = match byte {
                b' ' | b'\t' => {
                    indented = true;
                    continue;
                }
                b'\r' | b'\n' => {
                    indented = false;
                    continue;
                }
                b'{' => State::Ndjson,
                _ if indented => State::Sse(SseLine::Ignored),
                _ => State::Sse(SseLine::Start),
            };
            return (at, None);
        }
        self.state = State::Detect { indented };
        (input.len(), None)
    }

    /// NDJSON between frames: skips blank lines and leading whitespace, and
    /// opens a frame at the first other byte.
    fn ndjson_blank(&mut self, input: &[u8]) -> (usize, Option<FrameEvent<'static>>) {
        match input
            .iter()
            .position(|&byte| !matches!(byte, b' ' | b'\t' | b'\r' | b'\n'))
        {
            Some(at) => (at, Some(self.start_frame())),
            None => (input.len(), None),
        }
    }

    /// NDJSON inside a frame: the payload runs to the next LF.
    fn ndjson_payload<'a>(&mut self, input: &'a [u8]) -> (usize, Option<FrameEvent<'a>>) {
        if !self.replay.is_empty() {
            return (0, Some(FrameEvent::Data(core::mem::take(&mut self.replay))));
        }
        if core::mem::take(&mut self.cr) {
            // The CR held back from the previous slice: line end or payload.
            return match input.first() {
                Some(b'\n') => (1, Some(self.end_frame())),
                _ => (0, Some(FrameEvent::Data(CR))),
            };
        }
        match find_lf(input) {
            Some(0) => (1, Some(self.end_frame())),
            // The run is consumed, the LF is left for the next step. A CR
            // just before the LF is consumed but not payload.
            Some(at) => {
                let run = input.get(..at).unwrap_or_default();
                (at, data(run.strip_suffix(CR).unwrap_or(run)))
            }
            // No line end in sight: a trailing CR may still be one, so it is
            // held back until the next byte arrives.
            None => {
                let run = match input.strip_suffix(CR) {
                    Some(run) => {
                        self.cr = true;
                        run
                    }
                    None => input,
                };
                (input.len(), data(run))
            }
        }
    }

    /// SSE: one move within the current line.
    fn sse<'a>(
        &mut self,
        line: SseLine,
        byte: u8,
        input: &'a [u8],
    ) -> (usize, Option<FrameEvent<'a>>) {
        match line {
            // The usual line start, `data:`, in one move.
            SseLine::Start if starts_with_data(input) => {
                self.state = State::Sse(SseLine::ValueStart);
                (DATA.len().saturating_add(1), Some(self.begin_data_line()))
            }
            SseLine::Start => self.sse_line_start(byte),
            SseLine::Name(matched) => self.sse_name(matched, byte),
            SseLine::Ignored => match find_line_end(input) {
                Some(0) => self.end_line(byte),
                Some(at) => (at, None),
                None => (input.len(), None),
            },
            // The one dropped space, and the value in the same move (as
            // two moves would: the value's state is entered either way).
            SseLine::ValueStart => {
                self.state = State::Sse(SseLine::Value);
                let space = usize::from(byte == b' ');
                match input.get(space..) {
                    Some(rest @ [first, ..]) => {
                        let (used, event) = self.sse_value(*first, rest);
                        (used.saturating_add(space), event)
                    }
                    _ => (space, None),
                }
            }
            SseLine::Value => self.sse_value(byte, input),
        }
    }

    /// SSE inside a data value (`byte` is `input[0]`). The hot path: a
    /// whole run of payload in one slice.
    #[inline(always)]
    fn sse_value<'a>(&mut self, byte: u8, input: &'a [u8]) -> (usize, Option<FrameEvent<'a>>) {
        match find_line_end(input) {
            // An LF that ends the line, then an LF that ends the event:
            // the usual end of an event, as two moves would take it.
            Some(0) if byte == b'\n' && input.get(1) == Some(&b'\n') => {
                self.cr = false;
                self.state = State::Sse(SseLine::Start);
                (2, self.close_frame())
            }
            Some(0) => self.end_line(byte),
            Some(at) => (at, data(input.get(..at).unwrap_or_default())),
            None => (input.len(), data(input)),
        }
    }

    /// SSE: the first byte of a line says blank line, maybe `data`, or
    /// something to ignore (a `:` comment or another field).
    fn sse_line_start(&mut self, byte: u8) -> (usize, Option<FrameEvent<'static>>) {
        match byte {
            // A blank line dispatches the event: it is a frame if it had data.
            b'\r' | b'\n' => {
                self.cr = byte == b'\r';
                (1, self.close_frame())
            }
            _ => {
                self.state = State::Sse(if DATA.first() == Some(&byte) {
                    SseLine::Name(1)
                } else {
                    SseLine::Ignored
                });
                (1, None)
            }
        }
    }

    /// SSE: the line so far is the first `matched` bytes of `data`.
    fn sse_name(&mut self, matched: u8, byte: u8) -> (usize, Option<FrameEvent<'static>>) {
        let is_data = matched == DATA_LEN;
        match byte {
            b':' if is_data => {
                self.state = State::Sse(SseLine::ValueStart);
                (1, Some(self.begin_data_line()))
            }
            // `data` alone on its line is an empty data line.
            b'\r' | b'\n' if is_data => {
                let event = self.begin_data_line();
                self.end_line(byte);
                (1, Some(event))
            }
            b'\r' | b'\n' => self.end_line(byte),
            _ if DATA.get(usize::from(matched)) == Some(&byte) => {
                self.state = State::Sse(SseLine::Name(matched.saturating_add(1)));
                (1, None)
            }
            _ => {
                self.state = State::Sse(SseLine::Ignored);
                (1, None)
            }
        }
    }

    /// SSE: consumes the line end `byte`; a CR may be the first half of CR LF.
    fn end_line(&mut self, byte: u8) -> (usize, Option<FrameEvent<'static>>) {
        self.cr = byte == b'\r';
        self.state = State::Sse(SseLine::Start);
        (1, None)
    }

    /// SSE: a data line begins. The first of an event opens the frame, the
    /// next ones continue it after a `\n`.
    fn begin_data_line(&mut self) -> FrameEvent<'static> {
        if self.open {
            FrameEvent::Data(LF)
        } else {
            self.start_frame()
        }
    }

    /// Opens a frame and counts it.
    fn start_frame(&mut self) -> FrameEvent<'static> {
        self.open = true;
        self.frames = self.frames.saturating_add(1);
        FrameEvent::Start
    }

    /// Closes the open frame.
    fn end_frame(&mut self) -> FrameEvent<'static> {
        self.open = false;
        FrameEvent::End
    }

    /// Closes the frame if one is open.
    fn close_frame(&mut self) -> Option<FrameEvent<'static>> {
        self.open.then(|| self.end_frame())
    }
}

/// Whether `input` starts with a whole `data:` field name (the same
/// outcome as following `d`, `a`, `t`, `a` and `:` byte by byte).
fn starts_with_data(input: &[u8]) -> bool {
    input.starts_with(b"data:")
}

/// `data`'s length, as an SSE name match count (`SseLine::Name`).
const DATA_LEN: u8 = DATA.len() as u8;

/// `run` if it is not empty.
fn nonempty(run: &[u8]) -> Option<&[u8]> {
    (!run.is_empty()).then_some(run)
}

/// A `Data` event for a non-empty run.
fn data(run: &[u8]) -> Option<FrameEvent<'_>> {
    (!run.is_empty()).then_some(FrameEvent::Data(run))
}

/// Where the next SSE line end (CR or LF) is.
#[inline]
fn find_line_end(input: &[u8]) -> Option<usize> {
    find(input, |b| b == b'\n' || b == b'\r')
}

/// Where the next LF is.
#[inline]
fn find_lf(input: &[u8]) -> Option<usize> {
    find(input, |b| b == b'\n')
}

/// The first byte of `input` that `matches`, where only bytes below 0x0E
/// (CR) can match.
///
/// Payload lines are long and line ends rare, so this is the framer's hot
/// loop: sixteen bytes at a time it looks for any byte below 0x0E, with the
/// word trick `(x - 0x0E..) & !x & 0x80..`, which flags every such byte (a
/// borrow can only flag a byte *above* a true one, so the lowest flag is
/// exact), and only then looks at that byte. In JSON text a byte below
/// 0x0E that is not a line end is a tab between tokens, which merely costs
/// a look.
#[inline(always)]
fn find(input: &[u8], matches: impl Fn(u8) -> bool) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const BELOW: u64 = ONES.wrapping_mul(0x0E);
    let low = |x: u64| x.wrapping_sub(BELOW) & !x & HIGH;
    let mut from: usize = 0;
    loop {
        let rest = input.get(from..)?;
        let mut blocks = rest.chunks_exact(16);
        let mut done = from;
        let mut hit = None;
        for block in &mut blocks {
            let (Some(a), Some(b)) = (block.get(..8), block.get(8..)) else {
                break;
            };
            let (Ok(a), Ok(b)) = (<[u8; 8]>::try_from(a), <[u8; 8]>::try_from(b)) else {
                break;
            };
            let (a, b) = (low(u64::from_le_bytes(a)), low(u64::from_le_bytes(b)));
            if a | b != 0 {
                let in_block = if a != 0 {
                    a.trailing_zeros() / 8
                } else {
                    (b.trailing_zeros() / 8).wrapping_add(8)
                };
                hit = Some(done.wrapping_add(in_block as usize));
                break;
            }
            done = done.wrapping_add(16);
        }
        let at = match hit {
            Some(at) => at,
            // Fewer than 16 bytes left: one at a time.
            None => {
                let tail = blocks.remainder().iter().position(|&b| b < 0x0E)?;
                done.wrapping_add(tail)
            }
        };
        if input.get(at).is_some_and(|&b| matches(b)) {
            return Some(at);
        }
        from = at.wrapping_add(1);
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
mod tests;
