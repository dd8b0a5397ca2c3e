//! Incremental JSON tokenizer (RFC 8259), resumable at any byte.
//!
//! [`Tokenizer`] turns a JSON document that arrives in arbitrary slices
//! (bytes from a UART, chunks of an HTTP body, ...) into a flat sequence of
//! [`Token`]s, with no heap and a fixed, tiny memory footprint. It never looks
//! at a byte twice across calls: the total work is linear in the document
//! size, however it is split.
//!
//! # How to drive it
//!
//! Feed every slice to [`Tokenizer::next`] in a loop until it returns
//! `Ok((_, None))`; each call returns how many bytes it consumed and at most
//! one token. `None` means the slice is used up and the tokenizer is waiting
//! for the next one. When the whole document has been fed, call
//! [`Tokenizer::finish`] (repeatedly, until `Ok(None)`): a top-level number
//! such as `42` only ends there.
//!
//! ```
//! use agui_core::json::{Token, Tokenizer};
//!
//! let mut tz: Tokenizer = Tokenizer::new();
//! let mut seen = 0;
//! for mut slice in [&b"{\"a\": [tr"[..], &b"ue, 12"[..], &b"]}"[..]] {
//!     loop {
//!         let (used, tok) = tz.next(slice).unwrap();
//!         slice = &slice[used..];
//!         match tok {
//!             Some(_) => seen += 1,
//!             None => break, // slice used up: wait for more bytes
//!         }
//!     }
//! }
//! assert_eq!(tz.finish(), Ok(None));
//! assert!(tz.is_done());
//! // ObjectStart KeyStart Text("a") KeyEnd ArrayStart True
//! // Number("12") NumberEnd ArrayEnd ObjectEnd
//! assert_eq!(seen, 10);
//! ```
//!
//! # Token stream
//!
//! * Separators are not tokens: `,` and whitespace are skipped, and a key's
//!   `:` is consumed together with [`Token::KeyEnd`].
//! * Strings and keys come as `StrStart`/`KeyStart`, zero or more text
//!   pieces, then `StrEnd`/`KeyEnd`. The pieces are [`Token::Text`], runs
//!   of unescaped text as zero-copy slices of the input (never empty), and
//!   [`Token::Char`], one decoded character: an escape, or a UTF-8
//!   character whose bytes were split across two slices. Tokens never
//!   borrow the tokenizer, only the input.
//! * Numbers come as [`Token::Number`] fragments of the text as written
//!   (already validated), then [`Token::NumberEnd`], which consumes no byte:
//!   a number's end is only known at the next delimiter, or at `finish`.
//! * The tokens are the same for every way of splitting the document; only
//!   the boundaries of `Text` and `Number` fragments differ.
//!
//! # Validation
//!
//! The whole of RFC 8259 is checked: structure, exactly one top-level value
//! (surrounding whitespace allowed, anything else after it is
//! [`JsonErrorKind::TrailingData`]), number grammar (`01`, `1.`, `-`, `1e`,
//! `+1` and `.5` are rejected), escapes, raw control characters in strings,
//! and UTF-8 (overlong forms and encoded surrogates included). Nesting is
//! bounded by `DEPTH`. After an error the tokenizer keeps returning the same
//! error until [`Tokenizer::reset`].
//!
//! **Lone surrogates.** `\uD83D\uDE80` is combined into one character. A
//! high surrogate escape not followed by a low one, or a low surrogate escape
//! on its own, is decoded as U+FFFD: a Rust `str` cannot hold a lone
//! surrogate (JavaScript's `JSON.parse` would keep it).
//!
//! **Error offsets.** [`JsonError::offset`] is the offset, counted from
//! `reset`, of the offending byte; for invalid UTF-8 it is the first byte of
//! the invalid sequence, so it too is the same for every split.

use crate::store::{Bits, Fixed, Level, Store};
use core::str::from_utf8;

mod plain;
pub(crate) use plain::{plain_members, Member};
mod skip;
// A host client's fast path (feature `fast`): kept out of the firmware,
// whose images it would grow (it instantiates a tokenizer of its own).
#[cfg(feature = "fast")]
mod tail;
#[cfg(feature = "fast")]
pub use tail::{last_string_member, plain_string_tail, string_tail};

/// One JSON token. String and number text arrives in fragments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Token<'a> {
    /// `{`
    ObjectStart,
    /// `}`
    ObjectEnd,
    /// `[`
    ArrayStart,
    /// `]`
    ArrayEnd,
    /// The opening quote of an object key.
    KeyStart,
    /// The closing quote of a key and its `:`.
    KeyEnd,
    /// The opening quote of a string value.
    StrStart,
    /// The closing quote of a string value.
    StrEnd,
    /// A fragment of the current key or string, straight from the input
    /// (valid UTF-8, never empty, no escapes in it).
    Text(&'a str),
    /// One decoded character of the current key or string: an escape, or a
    /// UTF-8 sequence whose bytes arrived split across two input slices.
    /// Carried by value, so no token ever borrows the tokenizer.
    Char(char),
    /// A fragment of the current number's text (as written, validated).
    Number(&'a str),
    /// The end of the current number.
    NumberEnd,
    /// `true`
    True,
    /// `false`
    False,
    /// `null`
    Null,
}

/// A literal whose bytes have only partly arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Literal {
    /// `t`, `tr` or `tru` so far.
    True,
    /// `f` up to `fals` so far.
    False,
    /// `n` up to `nul` so far.
    Null,
}

impl Literal {
    /// The literal's full spelling.
    const fn text(self) -> &'static [u8] {
        match self {
            Literal::True => b"true",
            Literal::False => b"false",
            Literal::Null => b"null",
        }
    }

    /// The token of the complete literal.
    const fn token(self) -> Token<'static> {
        match self {
            Literal::True => Token::True,
            Literal::False => Token::False,
            Literal::Null => Token::Null,
        }
    }
}

/// What went wrong, with the byte offset from the document start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct JsonError {
    /// The cause.
    pub kind: JsonErrorKind,
    /// Byte offset (since `reset`) of the offending byte.
    pub offset: u64,
}

/// The cause of a [`JsonError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum JsonErrorKind {
    /// A byte that cannot start or continue a token here.
    UnexpectedByte(u8),
    /// The document ended inside a value, or no value at all.
    UnexpectedEnd,
    /// Bytes that are not UTF-8.
    InvalidUtf8,
    /// A control character (< 0x20) inside a string.
    ControlCharacter,
    /// A bad `\` escape.
    InvalidEscape,
    /// A malformed number (`01`, `1.`, `-`, `1e`).
    InvalidNumber,
    /// More nested containers than `DEPTH`.
    TooDeep,
    /// A second value after the top-level one.
    TrailingData,
}

/// Where we are inside a number (RFC 8259 section 6 grammar).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Num {
    /// Nothing read yet: the next byte is `-` or a digit.
    Start,
    /// `-`
    Minus,
    /// A leading `0`: no more integer digits allowed.
    Zero,
    /// Integer digits.
    Int,
    /// `.`, a digit must follow.
    Dot,
    /// Fraction digits.
    Frac,
    /// `e` or `E`.
    Exp,
    /// The exponent's sign.
    ExpSign,
    /// Exponent digits.
    ExpDigits,
}

impl Num {
    /// Advances over the number bytes at the start of `rest`: the state
    /// after them and how many there were (the next byte, if any, is not
    /// part of the number).
    #[inline(always)]
    fn scan(mut self, rest: &[u8]) -> (Num, usize) {
        let mut len: usize = 0;
        for &b in rest {
            match self.advance(b) {
                Some(next) => self = next,
                None => break,
            }
            len = len.wrapping_add(1);
        }
        (self, len)
    }

    /// The state after `b`, or `None` if `b` cannot continue the number.
    const fn advance(self, b: u8) -> Option<Num> {
        match (self, b) {
            (Num::Start, b'-') => Some(Num::Minus),
            (Num::Start | Num::Minus, b'0') => Some(Num::Zero),
            (Num::Start | Num::Minus, b'1'..=b'9') => Some(Num::Int),
            (Num::Int, b'0'..=b'9') => Some(Num::Int),
            (Num::Zero | Num::Int, b'.') => Some(Num::Dot),
            (Num::Dot | Num::Frac, b'0'..=b'9') => Some(Num::Frac),
            (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Some(Num::Exp),
            (Num::Exp, b'+' | b'-') => Some(Num::ExpSign),
            (Num::Exp | Num::ExpSign | Num::ExpDigits, b'0'..=b'9') => Some(Num::ExpDigits),
            _ => None,
        }
    }

    /// Whether the text so far is a complete number.
    const fn is_complete(self) -> bool {
        matches!(self, Num::Zero | Num::Int | Num::Frac | Num::ExpDigits)
    }
}

/// The parser state between bytes. It carries no data (the data of the
/// string, number and literal states lives in `Tokenizer` fields) so that
/// dispatching on it is one table jump.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Inside a string or key.
    Str,
    /// A value must come (document start, after `:`, after `,` in an array).
    Value,
    /// Just after `[`: a value or `]`.
    FirstItem,
    /// Just after `{`: a key or `}`.
    FirstKey,
    /// After `,` in an object: a key.
    Key,
    /// After a key's closing quote: `:`.
    Colon,
    /// After a value inside a container: `,` or the closing bracket.
    Next,
    /// The top-level value is complete: only whitespace may follow.
    Done,
    /// Inside a number (`Tokenizer::num`).
    Num,
    /// Inside a literal (`Tokenizer::lit`, `Tokenizer::matched`).
    Lit,
    /// After `\`.
    Esc,
    /// Inside `\uXXXX` (`Tokenizer::unit`, `left`, `high`).
    Hex,
    /// After a high surrogate escape (`Tokenizer::high`): a `\` may start
    /// its low half.
    LowEsc,
    /// After a high surrogate escape and `\`: a `u` continues the pair.
    LowU,
    /// A decoded code unit (`Tokenizer::unit`) still to be looked at; it
    /// consumes no byte.
    Unit,
    /// An error happened (in `Tokenizer::error`); it sticks until reset.
    Failed,
}

/// The one-byte tokens, as a byte-sized value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Punct {
    StrStart,
    KeyStart,
    KeyEnd,
    ObjectStart,
    ObjectEnd,
    ArrayStart,
    ArrayEnd,
}

impl Punct {
    /// The token.
    #[inline(always)]
    const fn token(self) -> Token<'static> {
        match self {
            Punct::StrStart => Token::StrStart,
            Punct::KeyStart => Token::KeyStart,
            Punct::KeyEnd => Token::KeyEnd,
            Punct::ObjectStart => Token::ObjectStart,
            Punct::ObjectEnd => Token::ObjectEnd,
            Punct::ArrayStart => Token::ArrayStart,
            Punct::ArrayEnd => Token::ArrayEnd,
        }
    }
}

/// What a byte between tokens did (see [`Tokenizer::transition`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Move {
    /// A one-byte token, taken.
    Token(Punct),
    /// A `,` between members or items, taken: no token.
    Comma,
    /// The first byte of a number (not taken).
    Number,
    /// The first byte of `true`, `false` or `null` (not taken).
    Literal(Literal),
}

/// JSON's four whitespace bytes.
const fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The position of the first byte at or after `pos` that is not whitespace
/// (`input.len()` if none).
#[inline(always)]
fn skip_ws(input: &[u8], mut pos: usize) -> usize {
    // Compact JSON has none: one compare settles that (every whitespace
    // byte is at most a space).
    if input.get(pos).is_some_and(|&b| b > b' ') {
        return pos;
    }
    while let Some(&b) = input.get(pos) {
        if !is_ws(b) {
            break;
        }
        pos = pos.wrapping_add(1);
    }
    pos
}

/// Whether a string byte needs a look of its own: the closing quote, an
/// escape or a (forbidden) control character.
const fn is_special(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// The length of the run of plain string bytes at the start of `bytes`
/// (up to the first [`is_special`] byte).
///
/// Eight bytes at a time: for a word `x`, `(x - 0x01..) & !x & 0x80..` flags
/// the zero bytes, so XOR with a repeated `"` or `\` finds those bytes, and
/// `(x - 0x20..) & !x & 0x80..` flags the bytes below 0x20. A borrow can
/// only flag a byte *above* a true match, so the lowest flag is exact.
#[inline(always)]
fn plain_len(bytes: &[u8]) -> usize {
    plain_run::<false>(bytes)
}

/// [`plain_len`], also stopping at the first byte that is not ASCII when
/// `ASCII` is set (such a byte's own high bit flags it, exactly).
#[inline(always)]
fn plain_run<const ASCII: bool>(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const QUOTES: u64 = 0x2222_2222_2222_2222;
    const BACKSLASHES: u64 = 0x5C5C_5C5C_5C5C_5C5C;
    const SPACES: u64 = 0x2020_2020_2020_2020;
    let mut chunks = bytes.chunks_exact(8);
    let mut done: usize = 0;
    for chunk in &mut chunks {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let x = u64::from_le_bytes(word);
        let quote = x ^ QUOTES;
        let backslash = x ^ BACKSLASHES;
        let mut flags = (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (x.wrapping_sub(SPACES) & !x);
        if ASCII {
            flags |= x;
        }
        let flags = flags & HIGH;
        if flags != 0 {
            return done.wrapping_add((flags.trailing_zeros() / 8) as usize);
        }
        done = done.wrapping_add(8);
    }
    let tail = chunks.remainder();
    let in_tail = tail
        .iter()
        .position(|&b| is_special(b) || (ASCII && !b.is_ascii()))
        .unwrap_or(tail.len());
    done.wrapping_add(in_tail)
}

/// The value of a hex digit.
const fn hex_value(b: u8) -> Option<u16> {
    match b {
        b'0'..=b'9' => Some(b.wrapping_sub(b'0') as u16),
        b'a'..=b'f' => Some(b.wrapping_sub(b'a').wrapping_add(10) as u16),
        b'A'..=b'F' => Some(b.wrapping_sub(b'A').wrapping_add(10) as u16),
        _ => None,
    }
}

/// Incremental, resumable JSON tokenizer for one document at a time.
///
/// `DEPTH` (default 32, at most 64, checked at compile time) bounds the
/// nesting of arrays and objects; one level deeper is
/// [`JsonErrorKind::TooDeep`]. The whole state is a few dozen bytes, with
/// no heap. See the [module documentation](self) for the token stream, the
/// feeding loop and the validation rules.
///
/// ```compile_fail
/// // A 65-level bit stack does not fit in a u64: rejected at compile time.
/// let tz = agui_core::json::Tokenizer::<65>::new();
/// ```
#[derive(Debug, Clone)]
pub struct Tokenizer<const DEPTH: usize = 32, S: Store = Fixed> {
    /// Where we are.
    state: State,
    /// Whether the open string is an object key.
    in_key: bool,
    /// The number state, in `State::Num`.
    num: Num,
    /// The literal being read, in `State::Lit`.
    lit: Literal,
    /// Bytes of `lit` read so far.
    matched: u8,
    /// The `\u` code unit so far (`State::Hex`) or to look at (`State::Unit`).
    unit: u16,
    /// Hex digits still to come in `State::Hex`.
    left: u8,
    /// A high surrogate waiting for its low half, or 0.
    high: u16,
    /// Open containers.
    depth: S::Level,
    /// One bit per open container, bit `i` for level `i + 1`: 1 = object.
    stack: S::Bits<DEPTH>,
    /// Bytes consumed since reset.
    offset: u64,
    /// The sticky error, meaningful in `State::Failed`.
    error: JsonError,
    /// The first bytes of a UTF-8 character cut by the end of a slice.
    utf8: [u8; 4],
    /// How many bytes of `utf8` are in use.
    utf8_len: u8,
    /// The document offset of `utf8[0]`, for error reports.
    utf8_start: u64,
}

impl<const DEPTH: usize, S: Store> Default for Tokenizer<DEPTH, S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const DEPTH: usize, S: Store> Tokenizer<DEPTH, S> {
    /// A tokenizer ready for a document.
    ///
    /// Fails to compile, in the [`Fixed`] store, if `DEPTH` exceeds 64,
    /// the width of its bit stack.
    pub fn new() -> Self {
        Tokenizer {
            state: State::Value,
            in_key: false,
            num: Num::Start,
            lit: Literal::Null,
            matched: 0,
            unit: 0,
            left: 0,
            high: 0,
            depth: S::Level::default(),
            stack: S::bits::<DEPTH>(),
            offset: 0,
            error: JsonError {
                kind: JsonErrorKind::UnexpectedEnd,
                offset: 0,
            },
            utf8: [0; 4],
            utf8_len: 0,
            utf8_start: 0,
        }
    }

    /// The bytes the container stack keeps beside its own size (0 in the
    /// fixed store).
    pub fn heap_bytes(&self) -> usize {
        self.stack.heap_bytes()
    }

    /// Forgets everything (error included): ready for a new document.
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    /// Open containers right now.
    pub fn depth(&self) -> usize {
        self.depth.get()
    }

    /// Whether one complete top-level value has been seen. A top-level
    /// number only completes at a following whitespace byte or at
    /// [`finish`](Self::finish).
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// The literal being read, if the input stopped inside one
    /// (`tr` gives `Some(Literal::True)`), for completing partial documents.
    pub fn pending_literal(&self) -> Option<Literal> {
        (self.state == State::Lit).then_some(self.lit)
    }

    /// Whether the open string (if any) is an object key.
    pub fn in_key(&self) -> bool {
        self.in_key && self.in_string()
    }

    /// Whether the input stopped inside a string or key (after its opening
    /// quote, before its closing one).
    pub fn in_string(&self) -> bool {
        matches!(
            self.state,
            State::Str | State::Esc | State::Hex | State::LowEsc | State::LowU | State::Unit
        )
    }

    /// Bytes consumed since [`new`](Self::new) or [`reset`](Self::reset).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The sticky error, if one happened since the last reset.
    pub fn error(&self) -> Option<JsonError> {
        (self.state == State::Failed).then_some(self.error)
    }

    /// Consumes bytes of `input` up to and including the end of the next
    /// token and returns `(consumed, Some(token))`; returns
    /// `(input.len(), None)` when the input runs out first (the state is kept
    /// for the next slice). Call it again with `&input[consumed..]` until it
    /// returns `None`, even when `consumed == input.len()`: a token may still
    /// be due (a decoded character that needs no further byte).
    ///
    /// # Errors
    ///
    /// Any violation of RFC 8259 or of `DEPTH`; the error sticks until
    /// [`reset`](Self::reset). `Text` already returned before an error stays
    /// valid text.
    pub fn next<'a>(&mut self, input: &'a [u8]) -> Result<(usize, Option<Token<'a>>), JsonError> {
        self.resume(input, 0)
    }

    /// Marks the end of the document. Returns `Ok(Some(NumberEnd))` if a
    /// top-level number was open (then `Ok(None)` on the next call), and
    /// `Ok(None)` once the document is complete.
    ///
    /// # Errors
    ///
    /// [`JsonErrorKind::InvalidNumber`] if the document ends inside an
    /// unfinished top-level number (`1.`), [`JsonErrorKind::UnexpectedEnd`]
    /// for any other incomplete document (no value, open container, string
    /// or literal); the sticky error if one happened before.
    pub fn finish(&mut self) -> Result<Option<Token<'static>>, JsonError> {
        match self.state {
            State::Done => Ok(None),
            State::Failed => Err(self.error),
            State::Num if self.depth.get() == 0 && self.num.is_complete() => {
                self.state = State::Done;
                Ok(Some(Token::NumberEnd))
            }
            State::Num if self.depth.get() == 0 => Err(self.fail(JsonErrorKind::InvalidNumber, 0)),
            State::Str
            | State::Value
            | State::FirstItem
            | State::FirstKey
            | State::Key
            | State::Colon
            | State::Next
            | State::Num
            | State::Lit
            | State::Esc
            | State::Hex
            | State::LowEsc
            | State::LowU
            | State::Unit => Err(self.fail(JsonErrorKind::UnexpectedEnd, 0)),
        }
    }

    /// Counts `used` bytes as consumed and returns the answer of `next`.
    #[inline(always)]
    fn emit<'a>(&mut self, used: usize, token: Option<Token<'a>>) -> (usize, Option<Token<'a>>) {
        self.offset = self.offset.wrapping_add(used as u64);
        (used, token)
    }

    /// Records and returns the sticky error for the byte at `pos` of the
    /// current slice (for invalid UTF-8 cut across slices: its first byte).
    #[cold]
    #[inline(never)]
    fn fail(&mut self, kind: JsonErrorKind, pos: usize) -> JsonError {
        // A bad UTF-8 sequence is reported where it began.
        let offset = if kind == JsonErrorKind::InvalidUtf8 && self.utf8_len > 0 {
            self.utf8_start
        } else {
            self.offset.wrapping_add(pos as u64)
        };
        self.error = JsonError { kind, offset };
        self.state = State::Failed;
        self.error
    }

    /// Continues at `pos` in whatever state we are in. Each state has its
    /// own small handler (tail calls, so each keeps its registers to itself).
    #[inline(always)]
    fn resume<'a>(
        &mut self,
        input: &'a [u8],
        pos: usize,
    ) -> Result<(usize, Option<Token<'a>>), JsonError> {
        match self.state {
            State::Str => self.string(input, pos),
            State::Num => self.number(input, pos),
            State::Lit => self.literal(input, pos),
            State::Failed => Err(self.error),
            State::Esc | State::Hex | State::LowEsc | State::LowU | State::Unit => {
                self.escape(input, pos)
            }
            State::Value
            | State::FirstItem
            | State::FirstKey
            | State::Key
            | State::Colon
            | State::Next
            | State::Done => self.structure(input, pos),
        }
    }

    /// The tokenizer's one transition function for a byte `b` (at `pos`)
    /// between tokens, shared by the token loop ([`structure`](Self::structure))
    /// and the raw-skip fast path: a one-byte token or a comma is taken
    /// (its state change made); a number's or literal's first byte is
    /// only named. `Ok(None)`: the byte is an error here, nothing changed.
    /// The state checks come after the dispatch on the byte: one
    /// comparison each, and the container kind is only looked up where it
    /// matters.
    ///
    /// # Errors
    /// [`JsonErrorKind::TooDeep`] for a container past `DEPTH`.
    #[inline(always)]
    fn transition(&mut self, b: u8, pos: usize) -> Result<Option<Move>, JsonError> {
        let value = matches!(self.state, State::Value | State::FirstItem);
        let token = match b {
            b'"' if value => {
                self.in_key = false;
                self.state = State::Str;
                Punct::StrStart
            }
            b'"' if matches!(self.state, State::FirstKey | State::Key) => {
                self.in_key = true;
                self.state = State::Str;
                Punct::KeyStart
            }
            b':' if self.state == State::Colon => {
                self.state = State::Value;
                Punct::KeyEnd
            }
            b',' if self.state == State::Next => {
                self.state = if self.in_object() {
                    State::Key
                } else {
                    State::Value
                };
                return Ok(Some(Move::Comma));
            }
            b'}' if self.state == State::FirstKey
                || (self.state == State::Next && self.in_object()) =>
            {
                self.pop();
                Punct::ObjectEnd
            }
            b']' if self.state == State::FirstItem
                || (self.state == State::Next && !self.in_object()) =>
            {
                self.pop();
                Punct::ArrayEnd
            }
            b'{' if value => {
                self.push(true, pos)?;
                self.state = State::FirstKey;
                Punct::ObjectStart
            }
            b'[' if value => {
                self.push(false, pos)?;
                self.state = State::FirstItem;
                Punct::ArrayStart
            }
            b'-' | b'0'..=b'9' if value => return Ok(Some(Move::Number)),
            b't' if value => return Ok(Some(Move::Literal(Literal::True))),
            b'f' if value => return Ok(Some(Move::Literal(Literal::False))),
            b'n' if value => return Ok(Some(Move::Literal(Literal::Null))),
            _ => return Ok(None),
        };
        Ok(Some(Move::Token(token)))
    }

    /// Between tokens: skips whitespace and commas, then handles one
    /// structural byte (or starts the number or literal it begins).
    #[inline(never)]
    fn structure<'a>(
        &mut self,
        input: &'a [u8],
        mut pos: usize,
    ) -> Result<(usize, Option<Token<'a>>), JsonError> {
        loop {
            let b = loop {
                match input.get(pos) {
                    None => return Ok(self.emit(pos, None)),
                    Some(&b) if is_ws(b) => pos = pos.wrapping_add(1),
                    Some(&b) => break b,
                }
            };
            let token = match self.transition(b, pos)? {
                Some(Move::Token(punct)) => punct.token(),
                Some(Move::Comma) => {
                    pos = pos.wrapping_add(1);
                    continue;
                }
                // Numbers and literals are scanned from their first byte,
                // so that a number's fragment includes it.
                Some(Move::Number) => {
                    self.state = State::Num;
                    self.num = Num::Start;
                    return self.number(input, pos);
                }
                Some(Move::Literal(lit)) => {
                    self.lit = lit;
                    self.state = State::Lit;
                    self.matched = 0;
                    return self.literal(input, pos);
                }
                None if self.state == State::Done => {
                    return Err(self.fail(JsonErrorKind::TrailingData, pos))
                }
                None => return Err(self.fail(JsonErrorKind::UnexpectedByte(b), pos)),
            };
            return Ok(self.emit(pos.wrapping_add(1), Some(token)));
        }
    }

    /// Inside a string: a run of plain text, or the byte that ends it.
    #[inline(never)]
    fn string<'a>(
        &mut self,
        input: &'a [u8],
        mut pos: usize,
    ) -> Result<(usize, Option<Token<'a>>), JsonError> {
        if self.utf8_len > 0 {
            return self.escape(input, pos);
        }
        let rest = input.get(pos..).unwrap_or_default();
        let Some(&first) = rest.first() else {
            return Ok(self.emit(input.len(), None));
        };
        if !is_special(first) {
            // The hot path: find the end of the plain run in one pass;
            // `text_run` checks its UTF-8 in one more.
            return self.text_run(rest, plain_len(rest), pos);
        }
        pos = pos.wrapping_add(1);
        match first {
            b'"' if self.in_key => {
                self.state = State::Colon;
                self.structure(input, pos)
            }
            b'"' => {
                self.state = self.after_value();
                Ok(self.emit(pos, Some(Token::StrEnd)))
            }
            b'\\' => {
                // A one-letter escape in this slice (`\"`, `\n`, ...): no
                // trip through the rare states.
                if let Some(c) = input.get(pos).copied().and_then(escape_char) {
                    return Ok(self.emit(pos.wrapping_add(1), Some(Token::Char(c))));
                }
                self.state = State::Esc;
                self.escape(input, pos)
            }
            _ => Err(self.fail(JsonErrorKind::ControlCharacter, pos.wrapping_sub(1))),
        }
    }

    /// The rare string states: escapes, surrogate pairs, and a UTF-8
    /// character whose first bytes came in an earlier slice.
    #[cold]
    #[inline(never)]
    fn escape<'a>(
        &mut self,
        input: &'a [u8],
        mut pos: usize,
    ) -> Result<(usize, Option<Token<'a>>), JsonError> {
        // Only a decoded character leaves the loop.
        let c = loop {
            match self.state {
                State::Str if self.utf8_len > 0 => match self.complete_char(input, pos)? {
                    (used, Some(c)) => {
                        pos = used;
                        break c;
                    }
                    (used, None) => return Ok(self.emit(used, None)),
                },
                State::Esc => {
                    let Some(&b) = input.get(pos) else {
                        return Ok(self.emit(pos, None));
                    };
                    if let Some(c) = escape_char(b) {
                        self.state = State::Str;
                        pos = pos.wrapping_add(1);
                        break c;
                    }
                    if b != b'u' {
                        return Err(self.fail(JsonErrorKind::InvalidEscape, pos));
                    }
                    pos = pos.wrapping_add(1);
                    self.start_hex(0);
                }
                State::Hex => match self.hex(input, pos)? {
                    Escaped::More => return Ok(self.emit(input.len(), None)),
                    Escaped::Char(used, c) => {
                        pos = used;
                        break c;
                    }
                    Escaped::Go(used) => pos = used,
                },
                State::Unit => {
                    if let Some(c) = self.unit() {
                        break c;
                    }
                }
                State::LowEsc => match input.get(pos) {
                    None => return Ok(self.emit(pos, None)),
                    Some(b'\\') => {
                        pos = pos.wrapping_add(1);
                        self.state = State::LowU;
                    }
                    // No low half follows: the high half alone is U+FFFD.
                    Some(_) => {
                        self.state = State::Str;
                        break char::REPLACEMENT_CHARACTER;
                    }
                },
                State::LowU => match input.get(pos) {
                    None => return Ok(self.emit(pos, None)),
                    Some(b'u') => {
                        pos = pos.wrapping_add(1);
                        self.start_hex(self.high);
                    }
                    // Another escape follows: it is read from `Esc` again.
                    Some(_) => {
                        self.state = State::Esc;
                        break char::REPLACEMENT_CHARACTER;
                    }
                },
                State::Str
                | State::Value
                | State::FirstItem
                | State::FirstKey
                | State::Key
                | State::Colon
                | State::Next
                | State::Done
                | State::Num
                | State::Lit
                | State::Failed => return self.resume(input, pos),
            }
        };
        self.offset = self.offset.wrapping_add(pos as u64);
        Ok((pos, Some(Token::Char(c))))
    }

    /// Whether the innermost open container is an object.
    #[inline(always)]
    fn in_object(&self) -> bool {
        let level = self.depth.get();
        level > 0 && self.stack.object(level.wrapping_sub(1))
    }

    /// Opens a container (the byte at `pos`).
    #[inline(always)]
    fn push(&mut self, object: bool, pos: usize) -> Result<(), JsonError> {
        if self.depth.get() >= DEPTH {
            return Err(self.fail(JsonErrorKind::TooDeep, pos));
        }
        self.stack.set(self.depth.get(), object);
        self.depth = self.depth.up();
        Ok(())
    }

    /// Closes the innermost container (the caller checked its kind).
    #[inline(always)]
    fn pop(&mut self) {
        self.depth = self.depth.down();
        self.state = self.after_value();
    }

    /// The state once a value is complete.
    #[inline(always)]
    fn after_value(&self) -> State {
        if self.depth.get() == 0 {
            State::Done
        } else {
            State::Next
        }
    }

    /// Returns the valid UTF-8 of the first `run_len` bytes of `rest` (at
    /// `pos` in the input). A character cut by the end of the input goes to
    /// the small buffer; other invalid bytes are an error once the valid
    /// text before them has been returned.
    #[inline(always)]
    fn text_run<'a>(
        &mut self,
        rest: &'a [u8],
        run_len: usize,
        pos: usize,
    ) -> Result<(usize, Option<Token<'a>>), JsonError> {
        let (run, _) = rest.split_at_checked(run_len).unwrap_or((rest, &[]));
        match from_utf8(run) {
            Ok(text) => Ok(self.emit(pos.wrapping_add(run_len), Some(Token::Text(text)))),
            Err(e) => self.text_run_error(run, rest.len(), e, pos),
        }
    }

    /// The slow path of [`text_run`](Self::text_run): the run is not all
    /// valid UTF-8.
    #[cold]
    fn text_run_error<'a>(
        &mut self,
        run: &'a [u8],
        rest_len: usize,
        e: core::str::Utf8Error,
        pos: usize,
    ) -> Result<(usize, Option<Token<'a>>), JsonError> {
        let (valid, tail) = run.split_at_checked(e.valid_up_to()).unwrap_or((run, &[]));
        let cut_at_end = e.error_len().is_none() && run.len() == rest_len;
        let used = if cut_at_end {
            self.stash(tail, pos.wrapping_add(valid.len()));
            run.len()
        } else {
            valid.len()
        };
        let used_total = pos.wrapping_add(used);
        match from_utf8(valid) {
            Ok(text) if !text.is_empty() => Ok(self.emit(used_total, Some(Token::Text(text)))),
            _ if cut_at_end => Ok(self.emit(used_total, None)),
            _ => Err(self.fail(JsonErrorKind::InvalidUtf8, pos)),
        }
    }

    /// Keeps the start of a cut UTF-8 character (at most 3 bytes).
    fn stash(&mut self, bytes: &[u8], pos: usize) {
        self.utf8_start = self.offset.wrapping_add(pos as u64);
        for (slot, &b) in self.utf8.iter_mut().zip(bytes) {
            *slot = b;
        }
        self.utf8_len = bytes.len().min(4) as u8;
    }

    /// Completes a UTF-8 character whose first bytes were in an earlier
    /// slice: `(consumed, Some(char))`, or `(input.len(), None)` if it is
    /// still incomplete.
    #[cold]
    fn complete_char(
        &mut self,
        input: &[u8],
        mut pos: usize,
    ) -> Result<(usize, Option<char>), JsonError> {
        loop {
            let Some(&b) = input.get(pos) else {
                return Ok((input.len(), None));
            };
            let len = usize::from(self.utf8_len);
            if let Some(slot) = self.utf8.get_mut(len) {
                *slot = b;
            }
            self.utf8_len = self.utf8_len.saturating_add(1);
            pos = pos.wrapping_add(1);
            let bytes = self.utf8.get(..=len).unwrap_or_default();
            match from_utf8(bytes) {
                Ok(s) => {
                    let c = s.chars().next().unwrap_or(char::REPLACEMENT_CHARACTER);
                    self.utf8_len = 0;
                    return Ok((pos, Some(c)));
                }
                Err(e) if e.error_len().is_some() || len >= 3 => {
                    return Err(self.fail(JsonErrorKind::InvalidUtf8, pos));
                }
                Err(_) => {}
            }
        }
    }

    /// Enters `\uXXXX`, completing `high` (0: none).
    fn start_hex(&mut self, high: u16) {
        self.state = State::Hex;
        self.unit = 0;
        self.left = 4;
        self.high = high;
    }

    /// Inside `\uXXXX`: reads the hex digits, then decides what the code
    /// unit means.
    #[cold]
    fn hex(&mut self, input: &[u8], mut pos: usize) -> Result<Escaped, JsonError> {
        while self.left > 0 {
            let Some(&b) = input.get(pos) else {
                return Ok(Escaped::More);
            };
            let Some(digit) = hex_value(b) else {
                return Err(self.fail(JsonErrorKind::InvalidEscape, pos));
            };
            self.unit = self.unit.wrapping_shl(4) | digit;
            self.left = self.left.saturating_sub(1);
            pos = pos.wrapping_add(1);
        }
        let (high, unit) = (self.high, self.unit);
        self.high = 0;
        if high == 0 {
            return Ok(match self.unit() {
                Some(c) => Escaped::Char(pos, c),
                None => Escaped::Go(pos),
            });
        }
        if (0xDC00..=0xDFFF).contains(&unit) {
            let bits = u32::from(high & 0x3FF).wrapping_shl(10) | u32::from(unit & 0x3FF);
            let c = char::from_u32(bits.wrapping_add(0x1_0000));
            self.state = State::Str;
            return Ok(Escaped::Char(pos, c.unwrap_or(char::REPLACEMENT_CHARACTER)));
        }
        // The high half had no low half: it becomes U+FFFD and this unit is
        // looked at on its own by the next call.
        self.state = State::Unit;
        Ok(Escaped::Char(pos, char::REPLACEMENT_CHARACTER))
    }

    /// Looks at the decoded code unit `self.unit`, no high surrogate
    /// waiting: its character, or `None` for a high surrogate (now waiting
    /// for its low half). A lone low surrogate is U+FFFD.
    #[cold]
    fn unit(&mut self) -> Option<char> {
        let unit = self.unit;
        if (0xD800..=0xDBFF).contains(&unit) {
            self.state = State::LowEsc;
            self.high = unit;
            return None;
        }
        self.state = State::Str;
        Some(char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER))
    }

    /// Inside a number: returns the fragment up to the end of the input or
    /// of the number; at the delimiter with nothing left, `NumberEnd`.
    #[inline(never)]
    fn number<'a>(
        &mut self,
        input: &'a [u8],
        pos: usize,
    ) -> Result<(usize, Option<Token<'a>>), JsonError> {
        let rest = input.get(pos..).unwrap_or_default();
        let (num, len) = self.num.scan(rest);
        self.num = num;
        let end = pos.wrapping_add(len);
        if len > 0 {
            // Return what we have; the delimiter (or the bad byte) is looked
            // at again by the next call, so every split gives the same result.
            let (text, _) = rest.split_at_checked(len).unwrap_or_default();
            return match from_utf8(text) {
                Ok(text) => Ok(self.emit(end, Some(Token::Number(text)))),
                Err(_) => Err(self.fail(JsonErrorKind::InvalidNumber, pos)),
            };
        }
        let Some(&b) = input.get(end) else {
            return Ok(self.emit(input.len(), None));
        };
        // `01`, `1.2.3`, `1e5e` or `1-`: number bytes that cannot continue
        // a complete number make it malformed, rather than a bad delimiter.
        if !num.is_complete() || matches!(b, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') {
            return Err(self.fail(JsonErrorKind::InvalidNumber, end));
        }
        self.state = self.after_value();
        Ok(self.emit(end, Some(Token::NumberEnd)))
    }

    /// Inside `true`, `false` or `null`.
    #[inline(never)]
    fn literal<'a>(
        &mut self,
        input: &'a [u8],
        mut pos: usize,
    ) -> Result<(usize, Option<Token<'a>>), JsonError> {
        let (lit, mut matched) = (self.lit, self.matched);
        let text = lit.text();
        while let Some(&want) = text.get(usize::from(matched)) {
            let Some(&b) = input.get(pos) else {
                self.matched = matched;
                return Ok(self.emit(input.len(), None));
            };
            if b != want {
                return Err(self.fail(JsonErrorKind::UnexpectedByte(b), pos));
            }
            matched = matched.wrapping_add(1);
            pos = pos.wrapping_add(1);
        }
        self.state = self.after_value();
        Ok(self.emit(pos, Some(lit.token())))
    }
}

/// What the end of a `\uXXXX` escape produced.
enum Escaped {
    /// The input ran out inside the escape.
    More,
    /// A character, after `usize` bytes of the slice.
    Char(usize, char),
    /// A state change only (a high surrogate), continue at `usize`.
    Go(usize),
}

/// The character of a one-letter escape (`\n` ...), `None` for `u` and
/// invalid escapes.
const fn escape_char(b: u8) -> Option<char> {
    Some(match b {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        _ => return None,
    })
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic
)]
mod tests;
