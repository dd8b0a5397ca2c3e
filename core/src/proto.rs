//! AG-UI's binary encoding (`application/vnd.ag-ui.event+proto`), read with
//! no heap: each frame is a 4-byte big-endian length and one protobuf
//! `Event` envelope of `@ag-ui/proto` 1.0.0 (SPEC "The protobuf transport").
//!
//! [`ProtoFramer`] reads the stream a byte range at a time, in any split,
//! and writes each frame as the JSON text of the event the reference's
//! decoder (`@ag-ui/proto`'s `decode`) makes of it, while it reads: strings
//! stream through (escaped as `JSON.stringify` escapes them), `Struct` and
//! `Value` become the JSON values they stand for, absent proto3 strings and
//! repeated fields their defaults. That text goes into the same decoder,
//! chunker and verifier as an NDJSON or SSE frame, so one set of rules
//! serves both encodings, and a frame larger than any buffer works where
//! the JSON path works. Its own state is a fixed stack of `NEST` open
//! messages ([`ProtoFramer`]'s parameter).
//!
//! What the schema cannot stream is an error, not a guess: a singular field
//! twice, a repeated field split by another field, a `Value` or content part
//! with no kind, an outcome's parts around another field (SPEC lists them).
//! Unknown fields are skipped.
//!
//! ```
//! use agui_core::pipeline::{DefaultPipeline, Output};
//! use agui_core::proto::ProtoFramer;
//!
//! // RUN_STARTED { threadId "t", runId "r" }: envelope field 12.
//! let event = [0x62, 0x0a, 0x0a, 0x02, 0x08, 0x0b, 0x12, 0x01, b't', 0x1a, 0x01, b'r'];
//! let mut bytes = vec![0, 0, 0, event.len() as u8];
//! bytes.extend_from_slice(&event);
//! let mut pipeline = DefaultPipeline::new();
//! let mut framer: ProtoFramer = ProtoFramer::new();
//! let mut events = 0;
//! framer
//!     .feed(&mut pipeline, &bytes, |o| events += usize::from(matches!(o, Output::Event(_))))
//!     .unwrap();
//! framer.finish(&mut pipeline, |_| {}).unwrap();
//! assert_eq!(events, 1);
//! ```

pub mod schema;
mod shortest;
mod text;

pub use text::{Small, SMALL};

use crate::decode::Ext;
use crate::error::{Code, Detail, Error, ProtoFault, Stage};
use crate::frame::FrameEvent;
use crate::pipeline::{Output, Pipeline};
use crate::warn::Warning;
use schema::{Def, Msg, MsgShape, Ty, F, TYPE_NUMBERS};

/// The media type of the encoding.
pub const MEDIA_TYPE: &str = "application/vnd.ag-ui.event+proto";

/// What [`ProtoFramer::next`] found: the same frame events as the text
/// framer's, plus text of the framer's own and a failed frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProtoPiece<'a> {
    /// A frame begins; its index is [`ProtoFramer::frames`]` - 1`.
    Start,
    /// JSON text of the open frame: a slice of the input (string bytes) or
    /// static punctuation.
    Data(&'a [u8]),
    /// JSON text the framer wrote (keys, punctuation, numbers, a string's
    /// escapes).
    Text(Small),
    /// The open frame is complete.
    End,
    /// The open frame is not a well-formed event (a decode error naming
    /// the frame); the rest of it is skipped, the next frame read.
    Fail(Error),
}

/// A piece as the reader makes it: [`ProtoPiece`] with the text of the
/// framer's own in [`ProtoFramer`]'s `out`, not in the piece, so that it is
/// written once, not copied up every call that hands it on (64 bytes each
/// time, and the code to copy them in a firmware image).
#[derive(Debug, Clone, Copy)]
enum Got<'a> {
    Start,
    Data(&'a [u8]),
    /// The text is in `out`.
    Text,
    End,
    Fail(Error),
}

/// Level flags.
const MEMBERS: u8 = 1;
const OUTCOME_OPEN: u8 = 2;
const OUTCOME_DONE: u8 = 4;
const HAS_KIND: u8 = 8;
const KEY: u8 = 16;
const DEFAULTS_DONE: u8 = 32;

/// One open message.
#[derive(Debug, Clone, Copy)]
struct Level {
    msg: Msg,
    /// Bytes of it still to read.
    left: u32,
    /// Fields seen, by number (1 to 31).
    seen: u32,
    /// The repeated field whose JSON array is open (0: none).
    array: u8,
    flags: u8,
    /// `BaseEvent.type` as read.
    aux: u8,
}

impl Level {
    const fn new(msg: Msg, left: u32) -> Self {
        Level {
            msg,
            left,
            seen: 0,
            array: 0,
            flags: 0,
            aux: 0,
        }
    }

    fn has(&self, number: u8) -> bool {
        number < 32 && self.seen & (1 << number) != 0
    }

    fn mark(&mut self, number: u8) {
        if number < 32 {
            self.seen |= 1 << number;
        }
    }
}

/// What the field whose tag was just read is.
#[derive(Debug, Clone, Copy)]
enum Want {
    /// A field of the schema.
    Field(&'static F),
    /// An envelope arm (an event).
    Arm(u8),
    /// A `Value` kind (1 null, 2 number, 3 string, 4 bool, 5 struct, 6 list).
    Kind(u8),
    /// A `Struct` entry.
    Entry,
    /// An entry's key.
    EntryKey,
    /// An entry's value.
    EntryValue,
    /// A `ListValue` element.
    Item,
    /// A field the schema does not have: skipped.
    Unknown,
}

/// The reader's position.
#[derive(Debug, Clone, Copy)]
enum St {
    /// Reading a frame's 4-byte length.
    Prefix { got: u8, len: u32 },
    /// The frame's `Start` is due.
    Begin,
    /// Reading a tag (or closing the top message when it is all read).
    Tag,
    /// Reading a length-delimited field's length.
    Len(Want),
    /// Reading a varint value.
    Var(Want),
    /// Reading a 64-bit double (`Value.number_value`).
    Fixed { got: u8 },
    /// Streaming string bytes; then `close` (a quote, or `":` for a key).
    Str {
        left: u32,
        close: &'static [u8],
        capture: bool,
    },
    /// Skipping bytes of an unknown field.
    Skip { left: u32 },
    /// Closing the top message, one piece at a time.
    Close,
    /// Skipping the rest of a failed frame.
    Drop,
}

/// The protobuf stream reader: see the [module docs](self).
///
/// `NEST` is how many protobuf messages may be open at once (the envelope,
/// the event, and two per level of JSON nesting inside a `Struct`): past it
/// a frame fails with code `capacity`. Its state is `NEST` times 16 bytes
/// plus about 140 (528 bytes for `NEST` = 24 on x86-64).
#[derive(Debug, Clone)]
pub struct ProtoFramer<const NEST: usize = 40> {
    st: St,
    stack: [Level; NEST],
    depth: usize,
    /// The varint being read, and its shift.
    var: u64,
    shift: u8,
    /// The double being read.
    fixed: [u8; 8],
    /// The frame's length and what is left of it.
    frame_len: u32,
    frame_left: u32,
    frames: u32,
    /// The start of a role or outcome string, to decide on it at the end.
    word: [u8; 10],
    word_len: u8,
    /// Bytes the current call read whole before a fault: a fault names
    /// its byte's offset, whatever the split of the input.
    step_used: u32,
    /// The text of the last [`Got::Text`].
    out: Small,
}

impl<const NEST: usize> Default for ProtoFramer<NEST> {
    fn default() -> Self {
        Self::new()
    }
}

/// A decode-stage error of this reader.
fn fault(fault: ProtoFault, offset: u32) -> Error {
    let code = match fault {
        ProtoFault::TooDeep => Code::Capacity,
        ProtoFault::Truncated
        | ProtoFault::Varint
        | ProtoFault::WireType
        | ProtoFault::Group
        | ProtoFault::Length
        | ProtoFault::NoEvent
        | ProtoFault::TwoEvents
        | ProtoFault::TypeMismatch
        | ProtoFault::NoBase
        | ProtoFault::Duplicate
        | ProtoFault::Split
        | ProtoFault::EmptyValue
        | ProtoFault::EmptyUnion
        | ProtoFault::EntryOrder
        | ProtoFault::Unsafe
        | ProtoFault::TwoContents
        | ProtoFault::ContentForRole
        | ProtoFault::OutcomeOrder => Code::Decode,
    };
    Error::new(
        Stage::Decode,
        code,
        None,
        Detail::Proto {
            fault,
            offset: u64::from(offset),
        },
    )
}

impl<const NEST: usize> ProtoFramer<NEST> {
    /// A reader at the start of a stream.
    pub const fn new() -> Self {
        ProtoFramer {
            st: St::Prefix { got: 0, len: 0 },
            stack: [Level::new(Msg::Envelope, 0); NEST],
            depth: 0,
            var: 0,
            shift: 0,
            fixed: [0; 8],
            frame_len: 0,
            frame_left: 0,
            frames: 0,
            word: [0; 10],
            word_len: 0,
            step_used: 0,
            out: Small::new(),
        }
    }

    /// Back to the start of a stream.
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    /// Frames started so far (saturating).
    pub fn frames(&self) -> u32 {
        self.frames
    }

    /// Consumes bytes of `input` up to the next piece: `(used, piece)`,
    /// `(input.len(), None)` when the input ran out first. Every call
    /// consumes a byte or returns a piece, so the usual loop ends.
    pub fn next<'a>(&mut self, input: &'a [u8]) -> (usize, Option<ProtoPiece<'a>>) {
        let (used, got) = self.advance(input);
        let piece = got.map(|got| match got {
            Got::Start => ProtoPiece::Start,
            Got::Data(text) => ProtoPiece::Data(text),
            Got::Text => ProtoPiece::Text(self.out),
            Got::End => ProtoPiece::End,
            Got::Fail(err) => ProtoPiece::Fail(err),
        });
        (used, piece)
    }

    /// [`next`](Self::next), the text kept in `out`.
    fn advance<'a>(&mut self, input: &'a [u8]) -> (usize, Option<Got<'a>>) {
        let in_frame = !matches!(self.st, St::Prefix { .. } | St::Begin);
        self.step_used = 0;
        let (used, piece) = match self.step(input) {
            Ok(found) => found,
            Err(f) => {
                let at = self
                    .frame_len
                    .saturating_sub(self.frame_left)
                    .saturating_add(self.step_used);
                let err = fault(f, at);
                self.st = St::Drop;
                (0, Some(Got::Fail(err)))
            }
        };
        if in_frame {
            self.frame_left = self
                .frame_left
                .saturating_sub(u32::try_from(used).unwrap_or(u32::MAX));
        }
        (used, piece)
    }

    /// Ends the stream: an error if it stopped inside a frame (whose
    /// `Start` was handed out). Call after the last [`next`](Self::next)
    /// returned no piece.
    pub fn end(&mut self) -> Option<ProtoPiece<'static>> {
        match self.st {
            St::Prefix { got: 0, .. } | St::Drop if self.frame_left == 0 => None,
            St::Prefix { .. } | St::Begin => {
                self.st = St::Prefix { got: 0, len: 0 };
                // A cut length prefix: the frame never started; report it
                // as the next frame.
                self.frames = self.frames.saturating_add(1);
                Some(ProtoPiece::Fail(fault(ProtoFault::Truncated, 0)))
            }
            St::Drop => {
                self.st = St::Prefix { got: 0, len: 0 };
                self.frame_left = 0;
                None
            }
            St::Tag
            | St::Len(_)
            | St::Var(_)
            | St::Fixed { .. }
            | St::Str { .. }
            | St::Skip { .. }
            | St::Close => {
                let at = self.frame_len.saturating_sub(self.frame_left);
                self.st = St::Prefix { got: 0, len: 0 };
                self.frame_left = 0;
                Some(ProtoPiece::Fail(fault(ProtoFault::Truncated, at)))
            }
        }
    }

    fn top_left(&self) -> u32 {
        let at = self.depth.saturating_sub(1);
        self.stack.get(at).map_or(u32::MAX, |l| l.left)
    }

    fn top(&mut self) -> Result<&mut Level, ProtoFault> {
        let at = self.depth.checked_sub(1).ok_or(ProtoFault::Truncated)?;
        self.stack.get_mut(at).ok_or(ProtoFault::TooDeep)
    }

    fn step<'a>(&mut self, input: &'a [u8]) -> Result<(usize, Option<Got<'a>>), ProtoFault> {
        match self.st {
            St::Prefix { got, len } => Ok(self.prefix(input, got, len)),
            St::Begin => {
                self.frames = self.frames.saturating_add(1);
                self.depth = 0;
                // A frame that failed inside a varint (or a captured word)
                // left its partial value behind: none of it is this frame's.
                self.var = 0;
                self.shift = 0;
                self.word_len = 0;
                self.push(Level::new(Msg::Envelope, self.frame_len))?;
                self.st = St::Tag;
                Ok((0, Some(Got::Start)))
            }
            St::Tag | St::Close => {
                // A tag cut by the end of its message (its varint read in
                // earlier calls) is a truncated message, not a closed one.
                if self.shift != 0 && self.top_left() == 0 {
                    return Err(ProtoFault::Truncated);
                }
                if self.top_left() == 0 || matches!(self.st, St::Close) {
                    self.st = St::Close;
                    if let Some(piece) = self.closing()? {
                        return Ok((0, Some(piece)));
                    }
                    // Closed with nothing to write: the parent goes on.
                }
                self.var_then(input, None)
            }
            St::Len(want) => self.var_then(input, Some((want, true))),
            St::Var(want) => self.var_then(input, Some((want, false))),
            St::Fixed { got } => self.fixed(input, got),
            St::Str {
                left,
                close,
                capture,
            } => Ok(self.string(input, left, close, capture)),
            // An empty unknown field (or one skipped to its end): the
            // next tag, read now; returning no piece and no byte would
            // tell the caller the input is used up.
            St::Skip { left: 0 } => {
                self.st = St::Tag;
                self.step(input)
            }
            St::Skip { left } => {
                let n = input.len().min(usize::try_from(left).unwrap_or(usize::MAX));
                let left = left.saturating_sub(u32::try_from(n).unwrap_or(u32::MAX));
                self.st = if left == 0 {
                    St::Tag
                } else {
                    St::Skip { left }
                };
                Ok((n, None))
            }
            St::Drop if self.frame_left == 0 => Ok(self.prefix(input, 0, 0)),
            St::Drop => {
                let n = input
                    .len()
                    .min(usize::try_from(self.frame_left).unwrap_or(usize::MAX));
                if n == self.frame_left as usize {
                    self.st = St::Prefix { got: 0, len: 0 };
                }
                Ok((n, None))
            }
        }
    }

    fn prefix<'a>(&mut self, input: &'a [u8], got: u8, len: u32) -> (usize, Option<Got<'a>>) {
        let Some(&b) = input.first() else {
            return (0, None);
        };
        let len = len << 8 | u32::from(b);
        if got == 3 {
            self.frame_len = len;
            self.frame_left = len;
            self.st = St::Begin;
        } else {
            self.st = St::Prefix {
                got: got.saturating_add(1),
                len,
            };
        }
        (1, None)
    }

    fn push(&mut self, level: Level) -> Result<(), ProtoFault> {
        let slot = self.stack.get_mut(self.depth).ok_or(ProtoFault::TooDeep)?;
        *slot = level;
        self.depth = self.depth.saturating_add(1);
        Ok(())
    }

    /// Takes one byte of the top message.
    // Inlined: a call costs more flash than its few instructions.
    #[inline(always)]
    fn take(&mut self) -> Result<(), ProtoFault> {
        let top = self.top()?;
        top.left = top.left.checked_sub(1).ok_or(ProtoFault::Truncated)?;
        Ok(())
    }

    /// Reads varint bytes of a tag (`of` is `None`), of a field's length
    /// (`Some((want, true))`) or of its value, then acts on the value.
    /// One function for the three, not a generic one: each instance would
    /// be a copy of the loop in a firmware image.
    fn var_then<'a>(
        &mut self,
        input: &'a [u8],
        of: Option<(Want, bool)>,
    ) -> Result<(usize, Option<Got<'a>>), ProtoFault> {
        let (used, v) = self.varint(input)?;
        let Some(v) = v else {
            return Ok((used, None));
        };
        let piece = match of {
            None => self.on_tag(v)?,
            Some((want, true)) => self.on_len(want, v)?,
            Some((want, false)) => self.on_var(want, v)?,
        };
        Ok((used, piece))
    }

    /// Reads varint bytes: the bytes used and, once its last byte is read,
    /// the value.
    fn varint(&mut self, input: &[u8]) -> Result<(usize, Option<u64>), ProtoFault> {
        let mut used: usize = 0;
        for &b in input {
            used = used.saturating_add(1);
            self.take()?;
            if self.shift >= 64 || (self.shift == 63 && b > 1) {
                return Err(ProtoFault::Varint);
            }
            self.var |= u64::from(b & 0x7f) << self.shift;
            self.shift = self.shift.saturating_add(7);
            if b & 0x80 == 0 {
                let v = self.var;
                self.var = 0;
                self.shift = 0;
                return Ok((used, Some(v)));
            }
            self.step_used = self.step_used.saturating_add(1);
        }
        Ok((used, None))
    }

    fn fixed<'a>(
        &mut self,
        input: &'a [u8],
        mut got: u8,
    ) -> Result<(usize, Option<Got<'a>>), ProtoFault> {
        let mut used: usize = 0;
        for &b in input {
            used = used.saturating_add(1);
            self.take()?;
            self.step_used = self.step_used.saturating_add(1);
            if let Some(slot) = self.fixed.get_mut(usize::from(got)) {
                *slot = b;
            }
            got = got.saturating_add(1);
            if got == 8 {
                let v = f64::from_le_bytes(self.fixed);
                self.out.clear();
                self.out.double(v);
                self.st = St::Tag;
                return Ok((used, Some(Got::Text)));
            }
        }
        self.st = St::Fixed { got };
        Ok((used, None))
    }

    fn string<'a>(
        &mut self,
        input: &'a [u8],
        left: u32,
        close: &'static [u8],
        capture: bool,
    ) -> (usize, Option<Got<'a>>) {
        if left == 0 {
            self.st = St::Tag;
            return (0, Some(Got::Data(close)));
        }
        let avail = input.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let chunk = input.get(..avail).unwrap_or_default();
        let run = chunk.iter().position(|&b| !text::plain(b));
        let (n, piece) = match run {
            Some(0) => {
                self.out.clear();
                text::escape(chunk.first().copied().unwrap_or_default(), &mut self.out);
                (1, Got::Text)
            }
            Some(k) => (k, Got::Data(chunk.get(..k).unwrap_or_default())),
            None => (avail, Got::Data(chunk)),
        };
        if capture {
            for &b in chunk.get(..n).unwrap_or_default() {
                if let Some(slot) = self.word.get_mut(usize::from(self.word_len)) {
                    *slot = b;
                }
                self.word_len = self.word_len.saturating_add(1);
            }
        }
        let left = left.saturating_sub(u32::try_from(n).unwrap_or(u32::MAX));
        self.st = St::Str {
            left,
            close,
            capture,
        };
        if n == 0 {
            return (0, None);
        }
        (n, Some(piece))
    }

    fn on_tag<'a>(&mut self, tag: u64) -> Result<Option<Got<'a>>, ProtoFault> {
        let number = u32::try_from(tag >> 3).map_err(|_| ProtoFault::Varint)?;
        let wire = (tag & 7) as u8;
        if number == 0 {
            return Err(ProtoFault::WireType);
        }
        let want = self.want(number)?;
        match (wire, want) {
            (3 | 4, _) => Err(ProtoFault::Group),
            (6 | 7, _) => Err(ProtoFault::WireType),
            (0, Want::Unknown) => {
                self.st = St::Var(Want::Unknown);
                Ok(None)
            }
            (1, Want::Unknown) => {
                self.st = St::Skip { left: 8 };
                self.take_n(8)
            }
            (5, Want::Unknown) => {
                self.st = St::Skip { left: 4 };
                self.take_n(4)
            }
            (2, want) => {
                if !is_len(want) {
                    return Err(ProtoFault::WireType);
                }
                self.st = St::Len(want);
                Ok(None)
            }
            (0, want) => {
                if !is_varint(want) {
                    return Err(ProtoFault::WireType);
                }
                self.st = St::Var(want);
                Ok(None)
            }
            (1, Want::Kind(2)) => {
                self.open_value()?;
                self.st = St::Fixed { got: 0 };
                Ok(None)
            }
            _ => Err(ProtoFault::WireType),
        }
    }

    /// Charges `n` bytes of an unknown fixed field to the top message.
    fn take_n<'a>(&mut self, n: u32) -> Result<Option<Got<'a>>, ProtoFault> {
        let top = self.top()?;
        top.left = top.left.checked_sub(n).ok_or(ProtoFault::Truncated)?;
        Ok(None)
    }

    /// What field `number` of the top message is.
    fn want(&mut self, number: u32) -> Result<Want, ProtoFault> {
        let msg = self.top()?.msg;
        Ok(match msg.shape() {
            MsgShape::Envelope if matches!(number, 1..=31) => Want::Arm(number as u8),
            MsgShape::Envelope => Want::Unknown,
            MsgShape::Value if matches!(number, 1..=6) => Want::Kind(number as u8),
            MsgShape::Struct if number == 1 => Want::Entry,
            MsgShape::Entry if number == 1 => Want::EntryKey,
            MsgShape::Entry if number == 2 => Want::EntryValue,
            MsgShape::List if number == 1 => Want::Item,
            MsgShape::Value | MsgShape::Struct | MsgShape::Entry | MsgShape::List => Want::Unknown,
            MsgShape::Object | MsgShape::Flat | MsgShape::Union => {
                msg.field(number).map_or(Want::Unknown, Want::Field)
            }
        })
    }

    /// A `Value` kind begins: at most one per value.
    // Inlined: a call costs more flash than its few instructions.
    #[inline(always)]
    fn open_value(&mut self) -> Result<(), ProtoFault> {
        let top = self.top()?;
        if top.flags & HAS_KIND != 0 {
            return Err(ProtoFault::Duplicate);
        }
        top.flags |= HAS_KIND;
        Ok(())
    }

    /// The top message and the piece's text, borrowed together.
    fn top_out(&mut self) -> Result<(&mut Level, &mut Small), ProtoFault> {
        let at = self.depth.checked_sub(1).ok_or(ProtoFault::Truncated)?;
        let top = self.stack.get_mut(at).ok_or(ProtoFault::TooDeep)?;
        Ok((top, &mut self.out))
    }

    /// The comma before a new member of the top object or array.
    // Inlined: a call costs more flash than its few instructions.
    #[inline(always)]
    fn sep(&mut self) -> Result<&'static [u8], ProtoFault> {
        let top = self.top()?;
        let first = top.flags & MEMBERS == 0;
        top.flags |= MEMBERS;
        Ok(if first { b"" } else { b"," })
    }

    /// The text before field `f`'s value, appended to `out`: closes what
    /// it ends (an array, the outcome), then its key, or the comma of the
    /// next element.
    fn open_field(&mut self, f: &F) -> Result<(), ProtoFault> {
        let (word, word_len) = (self.word, usize::from(self.word_len));
        let (top, out) = self.top_out()?;
        let is_finished = matches!(top.msg, Msg::Event(13));
        if top.array != 0 && top.array != f.number() {
            out.push(b"]");
            top.array = 0;
        }
        if top.flags & OUTCOME_OPEN != 0 && !f.in_outcome() {
            close_outcome(top, out, is_finished, word.get(..word_len));
        }
        if f.in_outcome() && top.flags & OUTCOME_DONE != 0 {
            return Err(ProtoFault::OutcomeOrder);
        }
        if matches!(f.ty(), Ty::Outcome)
            && top
                .msg
                .fields()
                .iter()
                .any(|g| g.in_outcome() && top.has(g.number()))
        {
            return Err(ProtoFault::OutcomeOrder);
        }
        if f.content()
            && top
                .msg
                .fields()
                .iter()
                .any(|g| g.content() && g.number() != f.number() && top.has(g.number()))
        {
            return Err(ProtoFault::TwoContents);
        }
        if top.msg.shape() == MsgShape::Union && top.flags & HAS_KIND != 0 {
            return Err(ProtoFault::Duplicate);
        }
        if f.repeated() && top.array == f.number() {
            out.push(b",");
            return Ok(());
        }
        if top.has(f.number()) {
            return Err(if f.repeated() {
                ProtoFault::Split
            } else {
                ProtoFault::Duplicate
            });
        }
        top.mark(f.number());
        if top.msg.shape() == MsgShape::Union {
            // The arm: the union's `{` is written, the type comes first.
            out.push(b"\"type\":\"");
            out.push(f.key().as_bytes());
            out.push(b"\"");
            return Ok(());
        }
        if matches!(f.ty(), Ty::Type | Ty::Msg(Msg::Base)) {
            return Ok(());
        }
        out.push(if top.flags & MEMBERS == 0 { b"" } else { b"," });
        top.flags |= MEMBERS;
        out.key(f.key());
        if f.repeated() {
            out.push(b"[");
            top.array = f.number();
        }
        Ok(())
    }

    fn on_len<'a>(&mut self, want: Want, len: u64) -> Result<Option<Got<'a>>, ProtoFault> {
        let len = u32::try_from(len).map_err(|_| ProtoFault::Length)?;
        {
            let top = self.top()?;
            top.left = top.left.checked_sub(len).ok_or(ProtoFault::Length)?;
        }
        self.st = St::Tag;
        self.out.clear();
        match want {
            Want::Unknown => self.st = St::Skip { left: len },
            Want::Arm(n) => {
                let top = self.top()?;
                if top.seen != 0 {
                    return Err(ProtoFault::TwoEvents);
                }
                top.mark(n);
                let name = schema::arm_name(n).unwrap_or_default();
                self.out.push(b"{\"type\":\"");
                self.out.push(name.as_bytes());
                self.out.push(b"\"");
                let mut level = Level::new(Msg::Event(n), len);
                level.flags = MEMBERS;
                self.push(level)?;
            }
            Want::Field(f) if matches!(f.ty(), Ty::Outcome) && len == 0 => {
                // The reference reads an empty outcome as none.
                let top = self.top()?;
                if top.has(f.number()) {
                    return Err(ProtoFault::Duplicate);
                }
                top.mark(f.number());
            }
            Want::Field(f) => {
                self.open_field(f)?;
                self.open_len_value(f, len)?;
            }
            Want::Kind(k) => {
                self.open_value()?;
                match k {
                    3 => self.start_str(len, b"\"", false),
                    5 => {
                        self.out.push(b"{");
                        self.push(Level::new(Msg::Struct, len))?;
                    }
                    _ => {
                        self.out.push(b"[");
                        self.push(Level::new(Msg::List, len))?;
                    }
                }
            }
            Want::Entry => {
                let sep = self.sep()?;
                self.out.push(sep);
                self.push(Level::new(Msg::Entry, len))?;
            }
            Want::EntryKey => {
                let top = self.top()?;
                if top.flags & (KEY | HAS_KIND) != 0 {
                    return Err(ProtoFault::EntryOrder);
                }
                top.flags |= KEY;
                self.start_str(len, b"\":", false);
            }
            Want::EntryValue => {
                let top = self.top()?;
                if top.flags & HAS_KIND != 0 {
                    return Err(ProtoFault::Duplicate);
                }
                let keyed = top.flags & KEY != 0;
                top.flags |= KEY | HAS_KIND;
                if !keyed {
                    self.out.push(b"\"\":");
                }
                self.push(Level::new(Msg::Value, len))?;
            }
            Want::Item => {
                let sep = self.sep()?;
                self.out.push(sep);
                self.push(Level::new(Msg::Value, len))?;
            }
        }
        Ok(if self.out.is_empty() {
            None
        } else {
            Some(Got::Text)
        })
    }

    fn start_str(&mut self, len: u32, close: &'static [u8], capture: bool) {
        self.out.push(b"\"");
        if capture {
            self.word_len = 0;
        }
        self.st = St::Str {
            left: len,
            close,
            capture,
        };
    }

    /// The value of a length-delimited field of the schema begins.
    fn open_len_value(&mut self, f: &F, len: u32) -> Result<(), ProtoFault> {
        match f.ty() {
            Ty::Str => {
                // `Message.role` (field 2): kept to check the message's content.
                let capture = f.number() == 2 && self.top()?.msg == Msg::Message;
                self.start_str(len, b"\"", capture);
            }
            Ty::Outcome => {
                self.out.push(b"{\"type\":");
                self.top()?.flags |= OUTCOME_OPEN;
                self.start_str(len, b"\"", true);
            }
            Ty::Value => self.push(Level::new(Msg::Value, len))?,
            Ty::Struct => {
                self.out.push(b"{");
                self.push(Level::new(Msg::Struct, len))?;
            }
            Ty::Msg(m) => {
                let mut level = Level::new(m, len);
                match m.shape() {
                    MsgShape::Flat => level.flags = MEMBERS,
                    MsgShape::Object | MsgShape::Union => self.out.push(b"{"),
                    MsgShape::Envelope
                    | MsgShape::Value
                    | MsgShape::Struct
                    | MsgShape::Entry
                    | MsgShape::List => {}
                }
                if m == Msg::Message {
                    self.word_len = 0;
                }
                let union = self.top()?.msg.shape() == MsgShape::Union;
                if union {
                    self.top()?.flags |= HAS_KIND;
                }
                self.push(level)?;
            }
            Ty::Bool | Ty::Int64 | Ty::Op | Ty::Type => return Err(ProtoFault::WireType),
        }
        Ok(())
    }

    fn on_var<'a>(&mut self, want: Want, v: u64) -> Result<Option<Got<'a>>, ProtoFault> {
        self.st = St::Tag;
        self.out.clear();
        match want {
            Want::Unknown => return Ok(None),
            Want::Kind(k) => {
                self.open_value()?;
                self.out.push(match (k, v) {
                    (1, _) => b"null",
                    (_, 0) => b"false",
                    _ => b"true",
                });
            }
            Want::Field(f) => {
                if matches!(f.ty(), Ty::Type) {
                    let top = self.top()?;
                    if top.has(f.number()) {
                        return Err(ProtoFault::Duplicate);
                    }
                    top.mark(f.number());
                    top.aux = u8::try_from(v).unwrap_or(u8::MAX);
                    return Ok(None);
                }
                self.open_field(f)?;
                match f.ty() {
                    Ty::Bool => self.out.push(if v == 0 { b"false" } else { b"true" }),
                    Ty::Int64 => {
                        // int64 as two's complement; the reference refuses
                        // what a JavaScript number cannot hold exactly.
                        let n = v as i64;
                        if n.unsigned_abs() > (1 << 53) - 1 {
                            return Err(ProtoFault::Unsafe);
                        }
                        self.out.int(n);
                    }
                    Ty::Op => match crate::decode::shapes::patch_op(
                        usize::try_from(v).unwrap_or(usize::MAX),
                    ) {
                        Some(name) => {
                            self.out.push(b"\"");
                            self.out.push(name.as_bytes());
                            self.out.push(b"\"");
                        }
                        None => {
                            // An unknown operation: its number, as a string
                            // (the reference's `String(op)`).
                            self.out.push(b"\"");
                            self.out.int(v as i32 as i64);
                            self.out.push(b"\"");
                        }
                    },
                    Ty::Str | Ty::Outcome | Ty::Type | Ty::Value | Ty::Struct | Ty::Msg(_) => {
                        return Err(ProtoFault::WireType)
                    }
                }
            }
            Want::Arm(_) | Want::Entry | Want::EntryKey | Want::EntryValue | Want::Item => {
                return Err(ProtoFault::WireType)
            }
        }
        Ok(Some(Got::Text))
    }

    /// Closes messages until one has text to hand out (a message may end
    /// its parent too, with nothing written).
    fn closing<'a>(&mut self) -> Result<Option<Got<'a>>, ProtoFault> {
        loop {
            if let Some(piece) = self.close()? {
                return Ok(Some(piece));
            }
            match self.st {
                St::Tag if self.depth > 0 && self.top_left() == 0 => self.st = St::Close,
                St::Close => {}
                St::Prefix { .. }
                | St::Begin
                | St::Tag
                | St::Len(_)
                | St::Var(_)
                | St::Fixed { .. }
                | St::Str { .. }
                | St::Skip { .. }
                | St::Drop => return Ok(None),
            }
        }
    }

    /// One step of closing the top message.
    fn close<'a>(&mut self) -> Result<Option<Got<'a>>, ProtoFault> {
        let word_len = usize::from(self.word_len);
        let word = self.word;
        let word = word.get(..word_len);
        let (top, out) = self.top_out()?;
        let msg = top.msg;
        out.clear();
        if top.array != 0 {
            out.push(b"]");
            top.array = 0;
            return Ok(Some(Got::Text));
        }
        if top.flags & OUTCOME_OPEN != 0 {
            close_outcome(top, out, msg == Msg::Event(13), word);
            return Ok(Some(Got::Text));
        }
        if top.flags & DEFAULTS_DONE == 0 {
            if let Some(f) = msg
                .fields()
                .iter()
                .find(|f| f.def() != Def::Absent && !top.has(f.number()))
            {
                top.mark(f.number());
                out.push(if top.flags & MEMBERS == 0 { b"" } else { b"," });
                top.flags |= MEMBERS;
                out.key(f.key());
                out.push(match f.def() {
                    Def::Empty => b"\"\"",
                    Def::List => b"[]",
                    Def::Add => b"\"add\"",
                    Def::Absent => b"",
                });
                return Ok(Some(Got::Text));
            }
            top.flags |= DEFAULTS_DONE;
            self.check_close(msg, word)?;
            if !self.out.is_empty() {
                return Ok(Some(Got::Text));
            }
        }
        self.pop(msg)
    }

    /// The checks at the end of a message, and the `content` a user or
    /// tool message without one gets.
    fn check_close(&mut self, msg: Msg, word: Option<&[u8]>) -> Result<(), ProtoFault> {
        let depth = self.depth;
        let top = self.top()?;
        let (seen, flags, aux) = (top.seen, top.flags, top.aux);
        let has = |n: u8| seen & (1 << n) != 0;
        match msg.shape() {
            MsgShape::Value | MsgShape::Union if flags & HAS_KIND == 0 => {
                return Err(if msg == Msg::Value {
                    ProtoFault::EmptyValue
                } else {
                    ProtoFault::EmptyUnion
                })
            }
            MsgShape::Entry if flags & HAS_KIND == 0 => return Err(ProtoFault::EmptyValue),
            MsgShape::Envelope if seen == 0 => return Err(ProtoFault::NoEvent),
            MsgShape::Envelope | MsgShape::Value | MsgShape::Union | MsgShape::Entry => {}
            MsgShape::Object | MsgShape::Flat | MsgShape::Struct | MsgShape::List => {}
        }
        match msg {
            Msg::Event(n) => {
                if !has(1) {
                    return Err(ProtoFault::NoBase);
                }
                // TOOL_CALL_RESULT without content: `[]`, as the reference.
                if n == 22 && !has(5) && !has(7) {
                    self.out.push(b",\"content\":[]");
                }
            }
            Msg::Base => {
                let parent = depth.checked_sub(2).and_then(|i| self.stack.get(i));
                let arm = if let Some(Msg::Event(n)) = parent.map(|l| l.msg) {
                    n
                } else {
                    0
                };
                let want = TYPE_NUMBERS.get(usize::from(arm).wrapping_sub(1)).copied();
                if want != Some(aux) {
                    return Err(ProtoFault::TypeMismatch);
                }
            }
            Msg::Message => {
                // The roles of the JSON path's message schema, looked up
                // in its table (one list of them in flash).
                use crate::decode::shapes::{message_role, ROLE_ACTIVITY, ROLE_TOOL, ROLE_USER};
                let role = message_role(word.unwrap_or_default());
                let known = role.is_some();
                let parts_role = matches!(role, Some(ROLE_USER | ROLE_TOOL));
                let activity = role == Some(ROLE_ACTIVITY);
                if known && (has(8) && !parts_role || has(13) && !activity || has(3) && activity) {
                    return Err(ProtoFault::ContentForRole);
                }
                if parts_role && !has(3) && !has(8) {
                    self.out.push(b",\"content\":[]");
                }
            }
            Msg::Envelope | Msg::Value | Msg::Struct | Msg::Entry | Msg::List => {}
            Msg::ToolCall | Msg::Function | Msg::Tool | Msg::Context | Msg::Resume => {}
            Msg::Input | Msg::Interrupt | Msg::Usage | Msg::Patch | Msg::Content => {}
            Msg::TextPart | Msg::MediaPart | Msg::Source | Msg::DataSource => {}
            Msg::UrlSource | Msg::FileSource => {}
        }
        Ok(())
    }

    fn pop<'a>(&mut self, msg: Msg) -> Result<Option<Got<'a>>, ProtoFault> {
        self.depth = self.depth.saturating_sub(1);
        self.st = St::Tag;
        let close: &'static [u8] = match msg.shape() {
            MsgShape::Envelope => {
                self.st = St::Prefix { got: 0, len: 0 };
                return Ok(Some(Got::End));
            }
            MsgShape::Object | MsgShape::Union | MsgShape::Struct => b"}",
            MsgShape::List => b"]",
            MsgShape::Flat | MsgShape::Value | MsgShape::Entry => b"",
        };
        Ok(if close.is_empty() {
            None
        } else {
            Some(Got::Data(close))
        })
    }
}

/// Closes the open outcome object: an `interrupt` outcome of RUN_FINISHED
/// without interrupts gets `interrupts: []`, as the reference writes it.
fn close_outcome(top: &mut Level, out: &mut Small, finished: bool, word: Option<&[u8]>) {
    if finished && word == Some(b"interrupt") && !top.has(6) {
        out.push(b",\"interrupts\":[]");
    }
    out.push(b"}");
    top.flags = (top.flags & !OUTCOME_OPEN) | OUTCOME_DONE;
}

/// The warnings of a proto frame's text, dropped as `Pipeline::feed`
/// drops them. A function, not a closure per caller: [`ProtoFramer::feed`]
/// and [`ProtoFramer::finish`] then reach the same copy of the pipeline's
/// code.
fn no_warning(_: &Warning) {}

fn is_len(want: Want) -> bool {
    match want {
        Want::Field(f) => matches!(
            f.ty(),
            Ty::Str | Ty::Outcome | Ty::Value | Ty::Struct | Ty::Msg(_)
        ),
        Want::Kind(k) => matches!(k, 3 | 5 | 6),
        Want::Arm(_) | Want::Entry | Want::EntryKey | Want::EntryValue | Want::Item => true,
        Want::Unknown => true,
    }
}

fn is_varint(want: Want) -> bool {
    match want {
        Want::Field(f) => matches!(f.ty(), Ty::Bool | Ty::Int64 | Ty::Op | Ty::Type),
        Want::Kind(k) => matches!(k, 1 | 4),
        Want::Arm(_) | Want::Entry | Want::EntryKey | Want::EntryValue | Want::Item => false,
        Want::Unknown => true,
    }
}

impl<const NEST: usize> ProtoFramer<NEST> {
    /// Feeds bytes of a proto stream, in any pieces, into `pipeline` (its
    /// own text framer is not used); calls `f` for every output, as
    /// [`Pipeline::feed`].
    ///
    /// # Errors
    /// As [`Pipeline::feed`]: in strict mode the first error.
    pub fn feed<
        const ID: usize,
        const MSGS: usize,
        const TOOLS: usize,
        const STEPS: usize,
        const DEPTH: usize,
        const OWNERS: usize,
        const AGENTS: usize,
        X: Ext<ID>,
    >(
        &mut self,
        pipeline: &mut Pipeline<ID, MSGS, TOOLS, STEPS, DEPTH, OWNERS, AGENTS, X>,
        mut input: &[u8],
        mut f: impl FnMut(Output<'_>),
    ) -> Result<(), Error> {
        let mut w = no_warning;
        loop {
            let (used, piece) = self.advance(input);
            input = input.get(used..).unwrap_or_default();
            match piece {
                Some(piece) => self.hand(pipeline, piece, &mut f, &mut w)?,
                // No progress: the input is used up.
                None if used == 0 => return Ok(()),
                None => {}
            }
        }
    }

    /// Ends the stream (a frame cut short is an error), as
    /// [`Pipeline::finish`].
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn finish<
        const ID: usize,
        const MSGS: usize,
        const TOOLS: usize,
        const STEPS: usize,
        const DEPTH: usize,
        const OWNERS: usize,
        const AGENTS: usize,
        X: Ext<ID>,
    >(
        &mut self,
        pipeline: &mut Pipeline<ID, MSGS, TOOLS, STEPS, DEPTH, OWNERS, AGENTS, X>,
        mut f: impl FnMut(Output<'_>),
    ) -> Result<(), Error> {
        let mut w = no_warning;
        if let Some(ProtoPiece::Fail(err)) = self.end() {
            self.hand(pipeline, Got::Fail(err), &mut f, &mut w)?;
        }
        pipeline.finish_events()
    }

    fn hand<
        const ID: usize,
        const MSGS: usize,
        const TOOLS: usize,
        const STEPS: usize,
        const DEPTH: usize,
        const OWNERS: usize,
        const AGENTS: usize,
        X: Ext<ID>,
    >(
        &mut self,
        pipeline: &mut Pipeline<ID, MSGS, TOOLS, STEPS, DEPTH, OWNERS, AGENTS, X>,
        piece: Got<'_>,
        f: &mut impl FnMut(Output<'_>),
        w: &mut impl FnMut(&Warning),
    ) -> Result<(), Error> {
        let index = self.frames.saturating_sub(1);
        let event = match piece {
            Got::Start => Ok(FrameEvent::Start),
            Got::Data(text) => Ok(FrameEvent::Data(text)),
            Got::Text => Ok(FrameEvent::Data(self.out.as_bytes())),
            Got::End => Ok(FrameEvent::End),
            Got::Fail(err) => Err(err),
        };
        pipeline.feed_event(index, event, f, w)
    }
}

#[cfg(test)]
mod tests;
