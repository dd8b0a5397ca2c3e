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
mod tests {
    extern crate std;

    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;
    use std::{format, vec};

    const AUTO: Option<Format> = None;
    const NDJSON: Option<Format> = Some(Format::Ndjson);
    const SSE: Option<Format> = Some(Format::Sse);

    /// Assembles frames from events, checking their grammar on the way.
    #[derive(Default)]
    struct Collector {
        frames: Vec<Vec<u8>>,
        open: Option<Vec<u8>>,
    }

    impl Collector {
        fn push(&mut self, event: FrameEvent<'_>) {
            match event {
                FrameEvent::Start => {
                    assert!(self.open.is_none(), "Start inside a frame");
                    self.open = Some(Vec::new());
                }
                FrameEvent::Data(bytes) => {
                    assert!(!bytes.is_empty(), "empty Data");
                    self.open
                        .as_mut()
                        .expect("Data outside a frame")
                        .extend_from_slice(bytes);
                }
                FrameEvent::End => {
                    let frame = self.open.take().expect("End outside a frame");
                    self.frames.push(frame);
                }
            }
        }
    }

    /// Runs `framer` over `slices` then `finish`, checking the `next`
    /// contract on every call, and returns the frames.
    fn run(framer: &mut Framer, slices: &[&[u8]]) -> Vec<Vec<u8>> {
        let mut out = Collector::default();
        for slice in slices {
            let mut buf = *slice;
            // Each call consumes a byte or emits an event; at most a few
            // events consume nothing in a row.
            let mut budget = 4 * buf.len() + 4;
            while !buf.is_empty() {
                budget -= 1;
                assert!(budget > 0, "no progress");
                let (used, event) = framer.next(buf);
                assert!(used <= buf.len());
                assert!(used > 0 || event.is_some(), "no progress");
                match event {
                    Some(event) => out.push(event),
                    None => assert_eq!(used, buf.len(), "None before the input ran out"),
                }
                buf = &buf[used..];
            }
        }
        let mut calls = 0;
        while let Some(event) = framer.finish() {
            calls += 1;
            assert!(calls <= 3, "finish does not stop");
            out.push(event);
        }
        assert!(out.open.is_none(), "frame left open after finish");
        assert_eq!(framer.frames() as usize, out.frames.len());
        out.frames
    }

    fn frames_of(format: Option<Format>, slices: &[&[u8]]) -> Vec<Vec<u8>> {
        run(&mut Framer::new(format), slices)
    }

    fn frames(format: Option<Format>, input: &[u8]) -> Vec<Vec<u8>> {
        frames_of(format, &[input])
    }

    /// The events of one `next` loop over `input`, without `finish`.
    fn events(format: Option<Format>, input: &[u8]) -> Vec<FrameEvent<'_>> {
        let mut framer = Framer::new(format);
        let mut buf = input;
        let mut out = Vec::new();
        while !buf.is_empty() {
            let (used, event) = framer.next(buf);
            out.extend(event);
            buf = &buf[used..];
        }
        out
    }

    fn texts(frames: &[&str]) -> Vec<Vec<u8>> {
        frames.iter().map(|f| f.as_bytes().to_vec()).collect()
    }

    /// The frames of `input` with every single cut, every pair of cuts
    /// (short inputs), one byte at a time and with empty slices mixed in:
    /// all must agree with the unsplit result, which is returned.
    fn split_invariant(format: Option<Format>, input: &[u8]) -> Vec<Vec<u8>> {
        let whole = frames(format, input);
        for at in 0..=input.len() {
            let (a, b) = input.split_at(at);
            assert_eq!(
                frames_of(format, &[a, b]),
                whole,
                "{format:?} cut at {at}: {input:?}"
            );
            assert_eq!(frames_of(format, &[a, b"", b]), whole);
            if input.len() <= 40 {
                for at2 in at..=b.len() + at {
                    let (b1, b2) = input[at..].split_at(at2 - at);
                    assert_eq!(frames_of(format, &[a, b1, b2]), whole, "cuts {at},{at2}");
                }
            }
        }
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(
            frames_of(format, &bytes),
            whole,
            "{format:?} byte at a time: {input:?}"
        );
        whole
    }

    // ----- reference framers: simple, whole-input, obviously right -----

    fn strip_bom(input: &[u8]) -> &[u8] {
        input.strip_prefix(BOM.as_slice()).unwrap_or(input)
    }

    fn ndjson_oracle(input: &[u8]) -> Vec<Vec<u8>> {
        strip_bom(input)
            .split(|&b| b == b'\n')
            .filter_map(|line| {
                let start = line.iter().position(|b| !b" \t\r".contains(b))?;
                let text = &line[start..];
                Some(text.strip_suffix(b"\r").unwrap_or(text).to_vec())
            })
            .collect()
    }

    /// Lines split at LF, CR LF or CR; an unterminated last line included.
    fn sse_lines(input: &[u8]) -> Vec<&[u8]> {
        let mut lines = Vec::new();
        let (mut start, mut i) = (0, 0);
        while i < input.len() {
            match input[i] {
                b'\r' | b'\n' => {
                    lines.push(&input[start..i]);
                    i += if input[i..].starts_with(b"\r\n") {
                        2
                    } else {
                        1
                    };
                    start = i;
                }
                _ => i += 1,
            }
        }
        if start < input.len() {
            lines.push(&input[start..]);
        }
        lines
    }

    fn sse_oracle(input: &[u8]) -> Vec<Vec<u8>> {
        let mut frames = Vec::new();
        let mut data: Option<Vec<u8>> = None;
        for line in sse_lines(strip_bom(input)) {
            if line.is_empty() {
                frames.extend(data.take());
                continue;
            }
            if line[0] == b':' {
                continue;
            }
            let (name, value) = match line.iter().position(|&b| b == b':') {
                Some(colon) => {
                    let value = &line[colon + 1..];
                    (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
                }
                None => (line, &b""[..]),
            };
            if name == b"data" {
                match &mut data {
                    Some(d) => {
                        d.push(b'\n');
                        d.extend_from_slice(value);
                    }
                    None => data = Some(value.to_vec()),
                }
            }
        }
        frames.extend(data);
        frames
    }

    /// The detected format and frames.
    fn oracle(format: Option<Format>, input: &[u8]) -> (Option<Format>, Vec<Vec<u8>>) {
        let format = format.or_else(|| {
            let decider = strip_bom(input).iter().find(|b| !b" \t\r\n".contains(b))?;
            Some(if *decider == b'{' {
                Format::Ndjson
            } else {
                Format::Sse
            })
        });
        match format {
            None => (None, Vec::new()),
            Some(Format::Ndjson) => (format, ndjson_oracle(input)),
            Some(Format::Sse) => (format, sse_oracle(input)),
        }
    }

    // ----- NDJSON -----

    #[test]
    fn ndjson_one_frame_per_line() {
        let input = b"{\"a\":1}\n{\"b\":2}\n";
        assert_eq!(frames(NDJSON, input), texts(&["{\"a\":1}", "{\"b\":2}"]));
        assert_eq!(
            events(NDJSON, b"{}\n"),
            [FrameEvent::Start, FrameEvent::Data(b"{}"), FrameEvent::End]
        );
    }

    #[test]
    fn ndjson_cr_before_lf_is_not_payload() {
        assert_eq!(frames(NDJSON, b"{}\r\n{ }\r\n"), texts(&["{}", "{ }"]));
        assert_eq!(frames_of(NDJSON, &[b"{}\r", b"\n{}"]), texts(&["{}", "{}"]));
        // Only the one CR right before the LF.
        assert_eq!(frames(NDJSON, b"{}\r\r\n"), texts(&["{}\r"]));
    }

    #[test]
    fn ndjson_other_cr_is_payload() {
        assert_eq!(frames(NDJSON, b"{\"a\":\r1}\n"), texts(&["{\"a\":\r1}"]));
        // A lone CR does not end an NDJSON line.
        assert_eq!(frames(NDJSON, b"{}\r{}\n"), texts(&["{}\r{}"]));
        // Held back at a slice end, then released as a static `\r`.
        let mut framer = Framer::new(NDJSON);
        assert_eq!(framer.next(b"{\r"), (0, Some(FrameEvent::Start)));
        assert_eq!(framer.next(b"{\r"), (2, Some(FrameEvent::Data(b"{"))));
        assert_eq!(framer.next(b"}\n"), (0, Some(FrameEvent::Data(b"\r"))));
        assert_eq!(framer.next(b"}\n"), (1, Some(FrameEvent::Data(b"}"))));
        assert_eq!(framer.next(b"\n"), (1, Some(FrameEvent::End)));
    }

    #[test]
    fn ndjson_only_lf_ends_a_line() {
        // U+2028 and U+2029 (E2 80 A8 / E2 80 A9) are ordinary bytes.
        let input = "{\"a\":\"x\u{2028}y\u{2029}z\"}\n{}\n".as_bytes();
        assert_eq!(
            frames(NDJSON, input),
            texts(&["{\"a\":\"x\u{2028}y\u{2029}z\"}", "{}"])
        );
    }

    #[test]
    fn ndjson_blank_lines_are_skipped_and_not_counted() {
        let mut framer = Framer::new(NDJSON);
        let input = b"\n \t \n\r\n\t\r \n{\"a\":1}\n   \n\n{\"b\":2}\n \n";
        assert_eq!(
            run(&mut framer, &[input]),
            texts(&["{\"a\":1}", "{\"b\":2}"])
        );
        assert_eq!(framer.frames(), 2);
        assert_eq!(frames(NDJSON, b" \t\r\n\n"), texts(&[]));
    }

    #[test]
    fn ndjson_leading_whitespace_is_dropped() {
        assert_eq!(frames(NDJSON, b"  \t{}\n\r {}\n"), texts(&["{}", "{}"]));
        // Trailing whitespace is payload (JSON ignores it too).
        assert_eq!(frames(NDJSON, b"{} \t\n"), texts(&["{} \t"]));
    }

    #[test]
    fn ndjson_unterminated_final_line() {
        let mut framer = Framer::new(NDJSON);
        assert_eq!(framer.next(b"{}\n{\"a\""), (0, Some(FrameEvent::Start)));
        assert_eq!(
            framer.next(b"{}\n{\"a\""),
            (2, Some(FrameEvent::Data(b"{}")))
        );
        assert_eq!(framer.next(b"\n{\"a\""), (1, Some(FrameEvent::End)));
        assert_eq!(framer.next(b"{\"a\""), (0, Some(FrameEvent::Start)));
        assert_eq!(
            framer.next(b"{\"a\""),
            (4, Some(FrameEvent::Data(b"{\"a\"")))
        );
        assert_eq!(framer.finish(), Some(FrameEvent::End));
        assert_eq!(framer.finish(), None);
        assert_eq!(framer.frames(), 2);
        // A CR at the very end is dropped; blank tails are nothing.
        assert_eq!(frames(NDJSON, b"{}\r"), texts(&["{}"]));
        assert_eq!(frames(NDJSON, b"{}\n  \t"), texts(&["{}"]));
    }

    #[test]
    fn ndjson_bom_is_skipped() {
        assert_eq!(frames(NDJSON, b"\xEF\xBB\xBF{}\n"), texts(&["{}"]));
        assert_eq!(
            frames_of(NDJSON, &[b"\xEF", b"\xBB", b"\xBF{}\n"]),
            texts(&["{}"])
        );
        // Only at the very start.
        assert_eq!(
            frames(NDJSON, b"{}\n\xEF\xBB\xBF{}\n"),
            [b"{}".to_vec(), b"\xEF\xBB\xBF{}".to_vec()]
        );
    }

    #[test]
    fn ndjson_broken_bom_is_payload() {
        assert_eq!(frames(NDJSON, b"\xEF\xBB{}\n"), [b"\xEF\xBB{}".to_vec()]);
        assert_eq!(frames_of(NDJSON, &[b"\xEF", b"\n"]), [b"\xEF".to_vec()]);
        // Cut off at the end of the stream: finish delivers the whole frame.
        let mut framer = Framer::new(NDJSON);
        assert_eq!(framer.next(b"\xEF\xBB"), (2, None));
        assert_eq!(framer.finish(), Some(FrameEvent::Start));
        assert_eq!(framer.finish(), Some(FrameEvent::Data(b"\xEF\xBB")));
        assert_eq!(framer.finish(), Some(FrameEvent::End));
        assert_eq!(framer.finish(), None);
    }

    // ----- SSE -----

    #[test]
    fn sse_single_event() {
        assert_eq!(
            events(SSE, b"data: {}\n\n"),
            [FrameEvent::Start, FrameEvent::Data(b"{}"), FrameEvent::End]
        );
    }

    #[test]
    fn sse_line_ends_lf_crlf_cr() {
        let expected = texts(&["a\nb", "c"]);
        assert_eq!(frames(SSE, b"data: a\ndata: b\n\ndata: c\n\n"), expected);
        assert_eq!(
            frames(SSE, b"data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n"),
            expected
        );
        assert_eq!(frames(SSE, b"data: a\rdata: b\r\rdata: c\r\r"), expected);
        // Mixed, including CR followed by CR LF (two line ends).
        assert_eq!(frames(SSE, b"data: a\rdata: b\r\r\ndata: c\n\r"), expected);
        assert_eq!(
            frames(SSE, b"data: a\r\ndata: b\n\rdata: c\r\n\n"),
            expected
        );
    }

    #[test]
    fn sse_crlf_split_across_slices_is_one_line_end() {
        // Were the LF a second line end, it would dispatch `a` alone.
        let input = b"data: a\r\ndata: b\r\n\r\n";
        assert_eq!(
            frames_of(SSE, &[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]),
            texts(&["a\nb"])
        );
        assert_eq!(split_invariant(SSE, input), texts(&["a\nb"]));
    }

    #[test]
    fn sse_blank_line_dispatches() {
        let mut framer = Framer::new(SSE);
        assert_eq!(framer.next(b"data:1\n"), (5, Some(FrameEvent::Start)));
        assert_eq!(framer.frames(), 1);
        assert_eq!(framer.next(b"1\n"), (1, Some(FrameEvent::Data(b"1"))));
        assert_eq!(framer.next(b"\n"), (1, None));
        assert_eq!(framer.next(b"\n"), (1, Some(FrameEvent::End)));
        assert_eq!(framer.finish(), None);
    }

    #[test]
    fn sse_one_leading_space_is_dropped() {
        assert_eq!(frames(SSE, b"data:x\n\n"), texts(&["x"]));
        assert_eq!(frames(SSE, b"data: x\n\n"), texts(&["x"]));
        assert_eq!(frames(SSE, b"data:  x \n\n"), texts(&[" x "]));
        assert_eq!(frames(SSE, b"data:\tx\n\n"), texts(&["\tx"]));
        // Colons in the value are kept.
        assert_eq!(
            frames(SSE, b"data: {\"a\":\"b:c\"}\n\n"),
            texts(&["{\"a\":\"b:c\"}"])
        );
    }

    #[test]
    fn sse_data_lines_are_joined_with_lf() {
        assert_eq!(
            frames(SSE, b"data: {\"a\":\ndata: 1}\n\n"),
            texts(&["{\"a\":\n1}"])
        );
        assert_eq!(
            frames(SSE, b"data: a\ndata:\ndata: b\n\n"),
            texts(&["a\n\nb"])
        );
        assert_eq!(
            events(SSE, b"data:a\ndata:b\n\n"),
            [
                FrameEvent::Start,
                FrameEvent::Data(b"a"),
                FrameEvent::Data(b"\n"),
                FrameEvent::Data(b"b"),
                FrameEvent::End,
            ]
        );
        // Ignored lines between data lines do not break the event.
        assert_eq!(
            frames(SSE, b"data: a\n: c\nid: 1\ndata: b\n\n"),
            texts(&["a\nb"])
        );
    }

    #[test]
    fn sse_data_without_colon_is_an_empty_data_line() {
        assert_eq!(frames(SSE, b"data\n\n"), texts(&[""]));
        assert_eq!(frames(SSE, b"data\r\ndata: x\r\n\r\n"), texts(&["\nx"]));
        assert_eq!(
            frames(SSE, b"data: a\ndata\ndata: b\n\n"),
            texts(&["a\n\nb"])
        );
    }

    #[test]
    fn sse_empty_data_is_a_frame() {
        let mut framer = Framer::new(SSE);
        assert_eq!(run(&mut framer, &[b"data:\n\n"]), texts(&[""]));
        assert_eq!(framer.frames(), 1);
        assert_eq!(
            events(SSE, b"data: \n\n"),
            [FrameEvent::Start, FrameEvent::End]
        );
    }

    #[test]
    fn sse_comments_are_ignored() {
        assert_eq!(frames(SSE, b": hello\n\n:\n\n:data: x\n\n"), texts(&[]));
        assert_eq!(
            frames(SSE, b":keep-alive\r\ndata: x\r\n:\r\n\r\n"),
            texts(&["x"])
        );
    }

    #[test]
    fn sse_other_fields_are_ignored() {
        let mut framer = Framer::new(SSE);
        let input = b"event: message\nid: 7\nretry: 100\nfoo: bar\nevent\n\ndata: x\nevent: y\n\n";
        assert_eq!(run(&mut framer, &[input]), texts(&["x"]));
        assert_eq!(framer.frames(), 1);
    }

    #[test]
    fn sse_names_like_data_are_not_data() {
        let input = b"dataX: 1\ndat: 2\nd: 3\ndatum: 4\ndata_:5\nDATA: 6\n data: 7\ndat\nd\n\n";
        assert_eq!(frames(SSE, input), texts(&[]));
        assert_eq!(frames(SSE, b"datadata: x\n\ndata: y\n\n"), texts(&["y"]));
    }

    #[test]
    fn sse_event_without_data_is_no_frame() {
        let mut framer = Framer::new(SSE);
        let input =
            b"\n\nevent: a\n\n: c\n\nid: 1\n\ndata: first\n\nretry: 9\n\ndata: second\n\n\n\n";
        assert_eq!(run(&mut framer, &[input]), texts(&["first", "second"]));
        assert_eq!(framer.frames(), 2);
    }

    #[test]
    fn sse_frame_index_counts_only_frames() {
        let mut framer = Framer::new(SSE);
        let mut buf: &[u8] = b": c\n\nevent: e\n\ndata: 0\n\nid: 1\n\ndata: 1\n\n";
        let mut indexes = Vec::new();
        while !buf.is_empty() {
            let (used, event) = framer.next(buf);
            if event == Some(FrameEvent::Start) {
                indexes.push(framer.frames() - 1);
            }
            buf = &buf[used..];
        }
        assert_eq!(indexes, [0, 1]);
    }

    #[test]
    fn sse_unterminated_final_event() {
        assert_eq!(frames(SSE, b"data: x"), texts(&["x"]));
        assert_eq!(frames(SSE, b"data: x\n"), texts(&["x"]));
        assert_eq!(frames(SSE, b"data: x\r"), texts(&["x"]));
        assert_eq!(frames(SSE, b"data: a\nid: 1"), texts(&["a"]));
        assert_eq!(frames(SSE, b"data:"), texts(&[""]));
        assert_eq!(frames(SSE, b"dat"), texts(&[]));
        assert_eq!(frames(SSE, b"id: 1\n"), texts(&[]));
        // A last line `data` without line end is an empty data line.
        assert_eq!(frames(SSE, b"data"), texts(&[""]));
        let mut framer = Framer::new(SSE);
        assert_eq!(framer.next(b"data: a\ndata"), (5, Some(FrameEvent::Start)));
        assert_eq!(framer.next(b" a\ndata"), (2, Some(FrameEvent::Data(b"a"))));
        assert_eq!(framer.next(b"\ndata"), (5, None));
        assert_eq!(framer.finish(), Some(FrameEvent::Data(b"\n")));
        assert_eq!(framer.finish(), Some(FrameEvent::End));
        assert_eq!(framer.finish(), None);
    }

    #[test]
    fn sse_bom_is_skipped() {
        assert_eq!(frames(SSE, b"\xEF\xBB\xBFdata: x\n\n"), texts(&["x"]));
        assert_eq!(
            frames_of(SSE, &[b"\xEF", b"\xBB", b"\xBFdata: x\n\n"]),
            texts(&["x"])
        );
        assert_eq!(
            frames_of(SSE, &[b"\xEF\xBB", b"\xBF", b"data: x\n\n"]),
            texts(&["x"])
        );
        // Only one, only at the very start: elsewhere it is part of a name.
        assert_eq!(
            frames(SSE, b"\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\n"),
            texts(&[])
        );
        assert_eq!(
            frames(SSE, b"data: x\n\n\xEF\xBB\xBFdata: y\n\n"),
            texts(&["x"])
        );
    }

    #[test]
    fn sse_broken_bom_is_part_of_the_first_line() {
        assert_eq!(
            frames(SSE, b"\xEF\xBBdata: x\n\ndata: y\n\n"),
            texts(&["y"])
        );
        assert_eq!(frames(SSE, b"\xEF\ndata: y\n\n"), texts(&["y"]));
        assert_eq!(frames(SSE, b"\xEF\xBB"), texts(&[]));
    }

    #[test]
    fn sse_hot_path_is_one_zero_copy_slice() {
        let mut input = b"data: ".to_vec();
        input.extend(core::iter::repeat_n(b'x', 4000));
        input.extend(b"\r\n\r\n");
        let got = events(SSE, &input);
        assert_eq!(got.len(), 3);
        let FrameEvent::Data(run) = got[1] else {
            panic!("{got:?}")
        };
        assert_eq!(run.len(), 4000);
        assert!(core::ptr::eq(run.as_ptr(), input[6..].as_ptr()));
    }

    #[test]
    fn ndjson_hot_path_is_one_zero_copy_slice() {
        let mut input = b"{\"a\":\"".to_vec();
        input.extend(core::iter::repeat_n(b'x', 4000));
        input.extend(b"\"}\r\n");
        let got = events(NDJSON, &input);
        assert_eq!(got.len(), 3);
        let FrameEvent::Data(run) = got[1] else {
            panic!("{got:?}")
        };
        assert_eq!(run, &input[..input.len() - 2]);
        assert!(core::ptr::eq(run.as_ptr(), input.as_ptr()));
    }

    /// The word-at-a-time line-end search agrees with a byte loop, for
    /// every length and position, with tabs and other low bytes about.
    #[test]
    fn line_end_search_is_exact() {
        let fill = [b'a', b'\t', 0x0B, 0x0C, 0x0E, 0xFF, b'"'];
        for len in 0..40 {
            for at in 0..=len {
                for &filler in &fill {
                    for end in [b'\n', b'\r'] {
                        let mut bytes = vec![b'x'; len];
                        for (i, b) in bytes.iter_mut().enumerate() {
                            if i % 3 == 1 {
                                *b = filler;
                            }
                        }
                        if at < len {
                            bytes[at] = end;
                        }
                        let naive = bytes.iter().position(|&b| b == b'\n' || b == b'\r');
                        assert_eq!(find_line_end(&bytes), naive, "{bytes:?}");
                        let naive_lf = bytes.iter().position(|&b| b == b'\n');
                        assert_eq!(find_lf(&bytes), naive_lf, "{bytes:?}");
                    }
                }
            }
        }
    }

    // ----- auto-detection -----

    #[test]
    fn auto_detects_ndjson() {
        let mut framer = Framer::new(AUTO);
        assert_eq!(framer.next(b"\xEF\xBB\xBF \r\n\t"), (7, None));
        assert_eq!(framer.format(), None);
        assert_eq!(
            run(&mut framer, &[b"\n{\"a\":1}\n{}"]),
            texts(&["{\"a\":1}", "{}"])
        );
        assert_eq!(framer.format(), Some(Format::Ndjson));
    }

    #[test]
    fn auto_detects_sse() {
        for input in [
            &b"\n\r\ndata: {}\n\n"[..],
            b": hi\ndata: {}\n\n",
            b"event: x\ndata: {}\n\n",
        ] {
            let mut framer = Framer::new(AUTO);
            assert_eq!(run(&mut framer, &[input]), texts(&["{}"]), "{input:?}");
            assert_eq!(framer.format(), Some(Format::Sse));
        }
        // Any other deciding byte too, even one that makes no sense.
        let mut framer = Framer::new(AUTO);
        assert_eq!(run(&mut framer, &[b"[1]\n"]), texts(&[]));
        assert_eq!(framer.format(), Some(Format::Sse));
    }

    #[test]
    fn auto_undecided_on_whitespace_only() {
        let mut framer = Framer::new(AUTO);
        assert_eq!(run(&mut framer, &[b"\xEF\xBB\xBF \t\r\n\n"]), texts(&[]));
        assert_eq!(framer.format(), None);
    }

    #[test]
    fn auto_frames_like_the_explicit_format() {
        // An indented first line is a field ` data`, as with an explicit SSE.
        for input in [
            &b"  data: x\n\ndata: y\n\n"[..],
            b"\n\t data: x\n\ndata: y\n\n",
        ] {
            assert_eq!(frames(AUTO, input), texts(&["y"]));
            assert_eq!(frames(SSE, input), texts(&["y"]));
        }
        assert_eq!(frames(AUTO, b" \n data"), frames(SSE, b" \n data"));
        assert_eq!(frames(AUTO, b" \r\ndata"), texts(&[""]));
    }

    #[test]
    fn auto_broken_bom_decides_sse() {
        let mut framer = Framer::new(AUTO);
        assert_eq!(
            run(&mut framer, &[b"\xEF\xBB{}\ndata: y\n\n"]),
            texts(&["y"])
        );
        assert_eq!(framer.format(), Some(Format::Sse));
        let mut framer = Framer::new(AUTO);
        assert_eq!(run(&mut framer, &[b"\xEF"]), texts(&[]));
        assert_eq!(framer.format(), Some(Format::Sse));
    }

    #[test]
    fn auto_bom_split_across_slices() {
        let mut framer = Framer::new(AUTO);
        assert_eq!(
            run(&mut framer, &[b"\xEF", b"\xBB", b"\xBF", b"{}\n"]),
            texts(&["{}"])
        );
        assert_eq!(framer.format(), Some(Format::Ndjson));
    }

    // ----- the framer as a whole -----

    #[test]
    fn empty_input_is_no_event() {
        let mut framer = Framer::new(SSE);
        assert_eq!(framer.next(b""), (0, None));
        assert_eq!(framer.finish(), None);
        assert_eq!(frames(AUTO, b""), texts(&[]));
    }

    #[test]
    fn reset_restores_new() {
        let mut framer = Framer::new(AUTO);
        assert_eq!(run(&mut framer, &[b"{}\n{}"]), texts(&["{}", "{}"]));
        framer.reset();
        assert_eq!(framer.format(), None);
        assert_eq!(framer.frames(), 0);
        // Detects again, and skips a BOM again.
        assert_eq!(
            run(&mut framer, &[b"\xEF\xBB\xBFdata: x\n\n"]),
            texts(&["x"])
        );
        assert_eq!(framer.format(), Some(Format::Sse));
        // Mid-frame too.
        let mut framer = Framer::new(NDJSON);
        let _ = framer.next(b"{\"a\r");
        framer.reset();
        assert_eq!(run(&mut framer, &[b"\n{}\n"]), texts(&["{}"]));
        assert_eq!(framer.format(), Some(Format::Ndjson));
        assert_eq!(Framer::default().format(), None);
    }

    #[test]
    fn frame_counter_saturates() {
        let mut framer = Framer::new(NDJSON);
        framer.frames = u32::MAX - 1;
        let mut starts = 0;
        let mut buf: &[u8] = b"{}\n{}\n{}\n";
        while !buf.is_empty() {
            let (used, event) = framer.next(buf);
            starts += usize::from(event == Some(FrameEvent::Start));
            buf = &buf[used..];
        }
        assert_eq!(starts, 3);
        assert_eq!(framer.frames(), u32::MAX);
    }

    #[test]
    fn finish_then_nothing() {
        let mut framer = Framer::new(SSE);
        let _ = framer.next(b"data: x");
        assert_eq!(framer.finish(), Some(FrameEvent::End));
        assert_eq!(framer.finish(), None);
        assert_eq!(framer.frames(), 1);
    }

    /// Inputs exercising every rule, for the split tests.
    const CORPUS: &[&[u8]] = &[
        b"data: {\"a\":1}\n\n",
        b"data: a\r\ndata: b\r\n\r\ndata: c\rdata:d\r\r",
        b"\xEF\xBB\xBF: c\r\nevent: x\r\nid: 1\r\ndata\r\ndata:  z\r\n\r\ndata:",
        b"dataX: 1\ndat\ndata\n\n\r\n\rdata: tail",
        b"\xEF\xBBdata: x\n\ndata: y\r\n\r\n",
        b"\xEF\xBB\xBF\r\n \t\n{\"a\":\"\r\"}\r\n  \n\t{}\r\r\n{\"u\":\"\xE2\x80\xA8\"}",
        b"{}\n\n\r\n{\"x\":\r1}\r",
        b"\xEF\xBB{}\n\xEF\n",
        b"\n  data: x\n\ndata: y\n\n",
        b" \r\n",
        b"data",
        b"\xEF\xBB",
    ];

    #[test]
    fn every_split_gives_the_same_frames() {
        for input in CORPUS {
            for format in [AUTO, NDJSON, SSE] {
                let whole = split_invariant(format, input);
                assert_eq!(whole, oracle(format, input).1, "{format:?} {input:?}");
            }
        }
    }

    #[test]
    fn detection_is_split_invariant() {
        for input in CORPUS {
            let expected = oracle(AUTO, input).0;
            for at in 0..=input.len() {
                let mut framer = Framer::new(AUTO);
                let _ = run(&mut framer, &[&input[..at], &input[at..]]);
                assert_eq!(framer.format(), expected, "cut at {at}: {input:?}");
            }
        }
    }

    // ----- property tests -----

    /// One SSE line as a generator builds it, with what it adds to the event.
    #[derive(Debug, Clone)]
    enum SseItem {
        /// `data:` + raw value (a first space is dropped).
        Data(std::string::String),
        /// `data` alone.
        BareData,
        /// A comment or an ignored field, as written.
        Other(std::string::String),
    }

    fn sse_item() -> impl Strategy<Value = SseItem> {
        prop_oneof![
            4 => "[ ]{0,2}[a-z{}\":, \t\u{e9}\u{2028}]{0,12}".prop_map(SseItem::Data),
            1 => Just(SseItem::BareData),
            2 => (
                prop::sample::select(vec![":", ": ", "event:", "id: ", "retry:", "dataX:", "dat:", "datum", " data:", "x"]),
                "[a-z :]{0,6}"
            )
                .prop_map(|(name, value)| SseItem::Other(format!("{name}{value}"))),
        ]
    }

    const SSE_ENDS: [&str; 3] = ["\n", "\r\n", "\r"];

    /// An SSE stream built from random events, with its expected frames.
    fn sse_document() -> impl Strategy<Value = (Vec<u8>, Vec<Vec<u8>>)> {
        let event = prop::collection::vec((sse_item(), 0..3usize), 0..4);
        (
            any::<bool>(),
            prop::collection::vec((event, 0..3usize), 0..5),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(bom, events, dispatch_last, end_last_line)| {
                let mut doc = Vec::new();
                let mut expected = Vec::new();
                if bom {
                    doc.extend_from_slice(BOM);
                }
                let mut last_end = "";
                let count = events.len();
                for (i, (lines, blank_end)) in events.into_iter().enumerate() {
                    let last_event = i + 1 == count;
                    let mut data: Option<Vec<u8>> = None;
                    let line_count = lines.len();
                    for (j, (item, end)) in lines.into_iter().enumerate() {
                        let value = match item {
                            SseItem::Data(value) => {
                                doc.extend_from_slice(b"data:");
                                doc.extend_from_slice(value.as_bytes());
                                Some(
                                    value
                                        .strip_prefix(' ')
                                        .unwrap_or(&value)
                                        .as_bytes()
                                        .to_vec(),
                                )
                            }
                            SseItem::BareData => {
                                doc.extend_from_slice(b"data");
                                Some(Vec::new())
                            }
                            SseItem::Other(line) => {
                                doc.extend_from_slice(line.as_bytes());
                                None
                            }
                        };
                        if let Some(value) = value {
                            match &mut data {
                                Some(d) => {
                                    d.push(b'\n');
                                    d.extend(value);
                                }
                                None => data = Some(value),
                            }
                        }
                        let unterminated =
                            last_event && !dispatch_last && !end_last_line && j + 1 == line_count;
                        last_end = if unterminated { "" } else { SSE_ENDS[end] };
                        doc.extend_from_slice(last_end.as_bytes());
                    }
                    if !last_event || dispatch_last {
                        // A blank line LF right after a lone CR would merge
                        // into one CR LF line end.
                        let end = match SSE_ENDS[blank_end] {
                            "\n" if last_end == "\r" => "\r\n",
                            end => end,
                        };
                        doc.extend_from_slice(end.as_bytes());
                        last_end = end;
                    }
                    expected.extend(data);
                }
                (doc, expected)
            })
    }

    /// An NDJSON stream of random lines, with its expected frames.
    fn ndjson_document() -> impl Strategy<Value = (Vec<u8>, Vec<Vec<u8>>)> {
        let line = prop_oneof![
            3 => ("[ \t]{0,2}", "[a-z{}\":, \t\r\u{e9}\u{2028}\u{2029}]{0,16}")
                .prop_map(|(indent, body)| (indent, Some(format!("{{{body}}}")))),
            1 => "[ \t\r]{0,4}".prop_map(|blank| (blank, None)),
        ];
        (
            any::<bool>(),
            prop::collection::vec((line, any::<bool>()), 0..6),
            any::<bool>(),
        )
            .prop_map(|(bom, lines, end_last)| {
                let mut doc = Vec::new();
                let mut expected = Vec::new();
                if bom {
                    doc.extend_from_slice(BOM);
                }
                let count = lines.len();
                for (i, ((indent, payload), crlf)) in lines.into_iter().enumerate() {
                    doc.extend_from_slice(indent.as_bytes());
                    if let Some(payload) = payload {
                        doc.extend_from_slice(payload.as_bytes());
                        expected.push(payload.into_bytes());
                    }
                    if i + 1 < count || end_last {
                        doc.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
                    } else if matches!(doc.last(), Some(b'\r')) {
                        // A bare CR at the end of the stream is no payload.
                        doc.push(b' ');
                    }
                }
                (doc, expected)
            })
    }

    /// Cuts `doc` at the given (unsorted, possibly repeated) points.
    fn cut<'a>(doc: &'a [u8], points: &[prop::sample::Index]) -> Vec<&'a [u8]> {
        let mut points: Vec<usize> = points.iter().map(|p| p.index(doc.len() + 1)).collect();
        points.sort_unstable();
        let mut slices = Vec::new();
        let mut from = 0;
        for at in points {
            slices.push(&doc[from..at]);
            from = at;
        }
        slices.push(&doc[from..]);
        slices
    }

    /// Random streams from pieces of both grammars, CR LF pairs and BOM
    /// fragments included, for comparing with the reference framers.
    fn byte_soup() -> impl Strategy<Value = Vec<u8>> {
        let pieces: Vec<&[u8]> = vec![
            b"data", b"data:", b"data: ", b"dat", b"id:", b":", b" ", b"\t", b"\r", b"\n", b"\r\n",
            b"\n\n", b"x", b"{", b"}", b"\xEF", b"\xBB", b"\xBF", BOM,
        ];
        prop::collection::vec(prop::sample::select(pieces), 0..24)
            .prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #[test]
        fn sse_documents_survive_any_split(
            (doc, expected) in sse_document(),
            points in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
        ) {
            prop_assert_eq!(&frames(SSE, &doc), &expected);
            prop_assert_eq!(&frames_of(SSE, &cut(&doc, &points)), &expected);
            let bytes: Vec<&[u8]> = doc.chunks(1).collect();
            prop_assert_eq!(&frames_of(SSE, &bytes), &expected);
            // Detection must land on SSE (no line starts with `{`), or
            // find nothing at all in an all-blank stream.
            prop_assert_eq!(&frames_of(AUTO, &cut(&doc, &points)), &expected);
        }

        #[test]
        fn ndjson_documents_survive_any_split(
            (doc, expected) in ndjson_document(),
            points in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
        ) {
            prop_assert_eq!(&frames(NDJSON, &doc), &expected);
            prop_assert_eq!(&frames_of(NDJSON, &cut(&doc, &points)), &expected);
            let bytes: Vec<&[u8]> = doc.chunks(1).collect();
            prop_assert_eq!(&frames_of(NDJSON, &bytes), &expected);
            prop_assert_eq!(&frames_of(AUTO, &cut(&doc, &points)), &expected);
        }

        #[test]
        fn any_bytes_frame_like_the_reference(
            soup in byte_soup(),
            format in prop::sample::select(vec![AUTO, NDJSON, SSE]),
            points in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
        ) {
            let (detected, expected) = oracle(format, &soup);
            let mut framer = Framer::new(format);
            prop_assert_eq!(&run(&mut framer, &cut(&soup, &points)), &expected);
            prop_assert_eq!(framer.format(), detected);
            let bytes: Vec<&[u8]> = soup.chunks(1).collect();
            prop_assert_eq!(&frames_of(format, &bytes), &expected);
        }
    }
}
