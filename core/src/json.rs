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

use core::str::from_utf8;

mod plain;
mod skip;

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
pub struct Tokenizer<const DEPTH: usize = 32> {
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
    depth: u8,
    /// One bit per open container, bit `i` for level `i + 1`: 1 = object.
    stack: u64,
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

impl<const DEPTH: usize> Default for Tokenizer<DEPTH> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const DEPTH: usize> Tokenizer<DEPTH> {
    /// A tokenizer ready for a document.
    ///
    /// Fails to compile if `DEPTH` exceeds 64, the width of the bit stack.
    pub const fn new() -> Self {
        const { assert!(DEPTH <= 64, "Tokenizer DEPTH must be at most 64") };
        Tokenizer {
            state: State::Value,
            in_key: false,
            num: Num::Start,
            lit: Literal::Null,
            matched: 0,
            unit: 0,
            left: 0,
            high: 0,
            depth: 0,
            stack: 0,
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

    /// Forgets everything (error included): ready for a new document.
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    /// Open containers right now.
    pub fn depth(&self) -> usize {
        usize::from(self.depth)
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
            State::Num if self.depth == 0 && self.num.is_complete() => {
                self.state = State::Done;
                Ok(Some(Token::NumberEnd))
            }
            State::Num if self.depth == 0 => Err(self.fail(JsonErrorKind::InvalidNumber, 0)),
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
        let level = u32::from(self.depth.saturating_sub(1));
        self.depth > 0 && self.stack.wrapping_shr(level) & 1 == 1
    }

    /// Opens a container (the byte at `pos`).
    #[inline(always)]
    fn push(&mut self, object: bool, pos: usize) -> Result<(), JsonError> {
        if usize::from(self.depth) >= DEPTH {
            return Err(self.fail(JsonErrorKind::TooDeep, pos));
        }
        let bit = 1u64.wrapping_shl(u32::from(self.depth));
        if object {
            self.stack |= bit;
        } else {
            self.stack &= !bit;
        }
        self.depth = self.depth.wrapping_add(1);
        Ok(())
    }

    /// Closes the innermost container (the caller checked its kind).
    #[inline(always)]
    fn pop(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        self.state = self.after_value();
    }

    /// The state once a value is complete.
    #[inline(always)]
    fn after_value(&self) -> State {
        if self.depth == 0 {
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
mod tests {
    extern crate std;

    use super::*;
    use serde_json::{Map, Value};
    use std::format;
    use std::string::{String, ToString};
    use std::vec;
    use std::vec::Vec;

    /// An owned token; consecutive Text/Number fragments are merged.
    #[derive(Debug, Clone, PartialEq)]
    enum Tok {
        Plain(Token<'static>),
        Text(String),
        Number(String),
    }

    fn own(token: Token<'_>) -> Tok {
        match token {
            Token::Text(t) => Tok::Text(t.to_string()),
            Token::Char(c) => Tok::Text(c.to_string()),
            Token::Number(t) => Tok::Number(t.to_string()),
            Token::ObjectStart => Tok::Plain(Token::ObjectStart),
            Token::ObjectEnd => Tok::Plain(Token::ObjectEnd),
            Token::ArrayStart => Tok::Plain(Token::ArrayStart),
            Token::ArrayEnd => Tok::Plain(Token::ArrayEnd),
            Token::KeyStart => Tok::Plain(Token::KeyStart),
            Token::KeyEnd => Tok::Plain(Token::KeyEnd),
            Token::StrStart => Tok::Plain(Token::StrStart),
            Token::StrEnd => Tok::Plain(Token::StrEnd),
            Token::NumberEnd => Tok::Plain(Token::NumberEnd),
            Token::True => Tok::Plain(Token::True),
            Token::False => Tok::Plain(Token::False),
            Token::Null => Tok::Plain(Token::Null),
        }
    }

    /// Appends a token, merging it with a preceding fragment of its kind.
    fn push_merged(out: &mut Vec<Tok>, tok: Tok) {
        match (out.last_mut(), &tok) {
            (Some(Tok::Text(a)), Tok::Text(b)) | (Some(Tok::Number(a)), Tok::Number(b)) => {
                a.push_str(b)
            }
            _ => out.push(tok),
        }
    }

    /// Feeds `pieces` in order, then finishes; checks the invariants that
    /// hold for every call (progress, non-empty text, offset bookkeeping).
    fn run_pieces<const D: usize>(pieces: &[&[u8]]) -> (Vec<Tok>, Option<JsonError>) {
        let mut tz: Tokenizer<D> = Tokenizer::new();
        let mut out = Vec::new();
        let mut total = 0u64;
        for piece in pieces {
            let mut rest = *piece;
            loop {
                match tz.next(rest) {
                    Ok((used, tok)) => {
                        assert!(used <= rest.len());
                        total += used as u64;
                        rest = &rest[used..];
                        match tok {
                            Some(Token::Text(t)) | Some(Token::Number(t)) if t.is_empty() => {
                                panic!("empty fragment")
                            }
                            Some(tok) => push_merged(&mut out, own(tok)),
                            None => {
                                assert!(rest.is_empty(), "None before the input was used up");
                                break;
                            }
                        }
                    }
                    Err(e) => {
                        assert_eq!(tz.next(rest), Err(e), "error must stick");
                        assert_eq!(tz.finish(), Err(e), "error must stick in finish");
                        return (out, Some(e));
                    }
                }
            }
            assert_eq!(tz.offset(), total);
        }
        loop {
            match tz.finish() {
                Ok(Some(tok)) => push_merged(&mut out, own(tok)),
                Ok(None) => {
                    assert!(tz.is_done());
                    assert_eq!(tz.depth(), 0);
                    return (out, None);
                }
                Err(e) => return (out, Some(e)),
            }
        }
    }

    fn run(doc: &[u8]) -> (Vec<Tok>, Option<JsonError>) {
        run_pieces::<32>(&[doc])
    }

    fn err(doc: &[u8]) -> JsonError {
        run(doc)
            .1
            .unwrap_or_else(|| panic!("{:?} accepted", std::str::from_utf8(doc)))
    }

    fn err_at(kind: JsonErrorKind, offset: u64) -> JsonError {
        JsonError { kind, offset }
    }

    /// Every two-piece split, byte at a time and some random splits give
    /// the same merged tokens and error as the whole document.
    fn assert_split_invariant(doc: &[u8]) {
        let whole = run(doc);
        for i in 0..=doc.len() {
            let (a, b) = doc.split_at(i);
            assert_eq!(run_pieces::<32>(&[a, b]), whole, "split at {i} of {doc:?}");
        }
        let bytes: Vec<&[u8]> = doc.chunks(1).collect();
        assert_eq!(run_pieces::<32>(&bytes), whole, "byte at a time {doc:?}");
        let mut rng = Lcg(doc.len() as u64 + 7);
        for _ in 0..8 {
            let mut pieces = Vec::new();
            let mut rest = doc;
            while !rest.is_empty() {
                let n = (rng.below(6) as usize).min(rest.len());
                let (a, b) = rest.split_at(n);
                pieces.push(a);
                rest = b;
            }
            assert_eq!(run_pieces::<32>(&pieces), whole, "random split of {doc:?}");
        }
    }

    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// Rebuilds a value from merged tokens (numbers parsed by serde_json).
    fn build(toks: &[Tok]) -> Value {
        enum Open {
            Arr(Vec<Value>),
            Obj(Map<String, Value>, Option<String>),
        }
        let mut stack: Vec<Open> = Vec::new();
        let mut result = None;
        let mut text = String::new();
        let mut in_key = false;
        let mut place = |stack: &mut Vec<Open>, v: Value| match stack.last_mut() {
            Some(Open::Arr(a)) => a.push(v),
            Some(Open::Obj(m, k)) => {
                m.insert(k.take().unwrap(), v);
            }
            None => result = Some(v),
        };
        for tok in toks {
            match tok {
                Tok::Text(t) => text.push_str(t),
                Tok::Number(n) => text.push_str(n),
                Tok::Plain(Token::NumberEnd) => {
                    let v: Value = serde_json::from_str(&text).unwrap();
                    text.clear();
                    place(&mut stack, v);
                }
                Tok::Plain(Token::ObjectStart) => stack.push(Open::Obj(Map::new(), None)),
                Tok::Plain(Token::ArrayStart) => stack.push(Open::Arr(Vec::new())),
                Tok::Plain(Token::ObjectEnd) => match stack.pop() {
                    Some(Open::Obj(m, None)) => place(&mut stack, Value::Object(m)),
                    _ => panic!("bad ObjectEnd"),
                },
                Tok::Plain(Token::ArrayEnd) => match stack.pop() {
                    Some(Open::Arr(a)) => place(&mut stack, Value::Array(a)),
                    _ => panic!("bad ArrayEnd"),
                },
                Tok::Plain(Token::KeyStart) => in_key = true,
                Tok::Plain(Token::KeyEnd) => {
                    assert!(in_key);
                    in_key = false;
                    match stack.last_mut() {
                        Some(Open::Obj(_, k)) => *k = Some(core::mem::take(&mut text)),
                        _ => panic!("key outside object"),
                    }
                }
                Tok::Plain(Token::StrStart) => {}
                Tok::Plain(Token::StrEnd) => {
                    let s = core::mem::take(&mut text);
                    place(&mut stack, Value::String(s));
                }
                Tok::Plain(Token::True) => place(&mut stack, Value::Bool(true)),
                Tok::Plain(Token::False) => place(&mut stack, Value::Bool(false)),
                Tok::Plain(Token::Null) => place(&mut stack, Value::Null),
                Tok::Plain(t) => panic!("unexpected {t:?}"),
            }
        }
        assert!(stack.is_empty());
        result.unwrap()
    }

    fn p(t: Token<'static>) -> Tok {
        Tok::Plain(t)
    }
    fn txt(s: &str) -> Tok {
        Tok::Text(s.to_string())
    }
    fn num(s: &str) -> Tok {
        Tok::Number(s.to_string())
    }

    #[test]
    fn every_token_kind() {
        let doc = br#" {"k\u00e9y": [1, -2.5e+3, true, false, null, "x\n", {}, []]} "#;
        let (toks, error) = run(doc);
        assert_eq!(error, None);
        use Token::*;
        let want = vec![
            p(ObjectStart),
            p(KeyStart),
            txt("k\u{e9}y"),
            p(KeyEnd),
            p(ArrayStart),
            num("1"),
            p(NumberEnd),
            num("-2.5e+3"),
            p(NumberEnd),
            p(True),
            p(False),
            p(Null),
            p(StrStart),
            txt("x\n"),
            p(StrEnd),
            p(ObjectStart),
            p(ObjectEnd),
            p(ArrayStart),
            p(ArrayEnd),
            p(ArrayEnd),
            p(ObjectEnd),
        ];
        assert_eq!(toks, want);
    }

    #[test]
    fn top_level_scalars() {
        use Token::*;
        assert_eq!(run(b"42").0, vec![num("42"), p(NumberEnd)]);
        assert_eq!(run(b" -0.5E-7 ").0, vec![num("-0.5E-7"), p(NumberEnd)]);
        assert_eq!(run(b"\"\"").0, vec![p(StrStart), p(StrEnd)]);
        assert_eq!(run(b"null").0, vec![p(Null)]);
        assert_eq!(run(b"\ttrue\r\n").0, vec![p(True)]);
    }

    #[test]
    fn plain_text_is_zero_copy() {
        let doc = br#"["hello world"]"#;
        let mut tz: Tokenizer = Tokenizer::new();
        let (n, _) = tz.next(doc).unwrap();
        let (_, _) = tz.next(&doc[n..]).unwrap();
        let (_, tok) = tz.next(&doc[n + 1..]).unwrap();
        match tok {
            Some(Token::Text(t)) => {
                assert_eq!(t, "hello world");
                assert_eq!(t.as_ptr(), doc[n + 1..].as_ptr());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn fragments_and_progress() {
        let mut tz: Tokenizer = Tokenizer::new();
        assert_eq!(tz.next(b"[12"), Ok((1, Some(Token::ArrayStart))));
        assert_eq!(tz.next(b"12"), Ok((2, Some(Token::Number("12")))));
        assert_eq!(tz.next(b""), Ok((0, None)));
        assert_eq!(tz.next(b"3,"), Ok((1, Some(Token::Number("3")))));
        assert_eq!(tz.next(b","), Ok((0, Some(Token::NumberEnd))));
        assert_eq!(tz.next(b","), Ok((1, None)));
        assert_eq!(tz.next(b"\"a"), Ok((1, Some(Token::StrStart))));
        assert_eq!(tz.next(b"a"), Ok((1, Some(Token::Text("a")))));
        assert_eq!(tz.next(b"\\"), Ok((1, None)));
        assert!(tz.in_string());
        assert_eq!(tz.next(b"n\"]"), Ok((1, Some(Token::Char('\n')))));
        assert_eq!(tz.next(b"\"]"), Ok((1, Some(Token::StrEnd))));
        assert_eq!(tz.depth(), 1);
        assert!(!tz.is_done());
        assert_eq!(tz.next(b"]"), Ok((1, Some(Token::ArrayEnd))));
        assert!(tz.is_done());
        assert_eq!(tz.offset(), 11);
        assert_eq!(tz.finish(), Ok(None));
    }

    #[test]
    fn key_end_waits_for_colon() {
        let mut tz: Tokenizer = Tokenizer::new();
        assert_eq!(tz.next(b"{"), Ok((1, Some(Token::ObjectStart))));
        assert_eq!(tz.next(b"\"k\""), Ok((1, Some(Token::KeyStart))));
        assert!(tz.in_key());
        assert_eq!(tz.next(b"k\""), Ok((1, Some(Token::Text("k")))));
        assert_eq!(tz.next(b"\" "), Ok((2, None)));
        assert!(!tz.in_key());
        assert_eq!(tz.next(b" : 1"), Ok((2, Some(Token::KeyEnd))));
    }

    #[test]
    fn top_level_number_ends_at_finish() {
        let mut tz: Tokenizer = Tokenizer::new();
        assert_eq!(tz.next(b"7"), Ok((1, Some(Token::Number("7")))));
        assert_eq!(tz.next(b""), Ok((0, None)));
        assert!(!tz.is_done());
        assert_eq!(tz.finish(), Ok(Some(Token::NumberEnd)));
        assert!(tz.is_done());
        assert_eq!(tz.finish(), Ok(None));
        // Whitespace ends it too.
        tz.reset();
        assert_eq!(tz.next(b"7 "), Ok((1, Some(Token::Number("7")))));
        assert_eq!(tz.next(b" "), Ok((0, Some(Token::NumberEnd))));
        assert!(tz.is_done());
    }

    #[test]
    fn pending_literal_reports_cut_literals() {
        let mut tz: Tokenizer = Tokenizer::new();
        assert_eq!(tz.pending_literal(), None);
        assert_eq!(tz.next(b"[tr"), Ok((1, Some(Token::ArrayStart))));
        assert_eq!(tz.next(b"tr"), Ok((2, None)));
        assert_eq!(tz.pending_literal(), Some(Literal::True));
        assert_eq!(tz.next(b"ue,f"), Ok((2, Some(Token::True))));
        assert_eq!(tz.pending_literal(), None);
        assert_eq!(tz.next(b",f"), Ok((2, None)));
        assert_eq!(tz.pending_literal(), Some(Literal::False));
        assert_eq!(tz.next(b"alse,n"), Ok((4, Some(Token::False))));
        assert_eq!(tz.next(b",n"), Ok((2, None)));
        assert_eq!(tz.pending_literal(), Some(Literal::Null));
        assert_eq!(tz.finish().unwrap_err().kind, JsonErrorKind::UnexpectedEnd);
    }

    #[test]
    fn reset_clears_error_and_offset() {
        let mut tz: Tokenizer = Tokenizer::new();
        let e = tz.next(b"  x").unwrap_err();
        assert_eq!(e, err_at(JsonErrorKind::UnexpectedByte(b'x'), 2));
        assert_eq!(tz.error(), Some(e));
        assert_eq!(tz.next(b"[]"), Err(e));
        tz.reset();
        assert_eq!(tz.error(), None);
        assert_eq!(tz.offset(), 0);
        assert_eq!(tz.next(b"[]"), Ok((1, Some(Token::ArrayStart))));
    }

    #[test]
    fn every_error_kind_with_offset() {
        use JsonErrorKind::*;
        let cases: &[(&[u8], JsonErrorKind, u64)] = &[
            (b"[1 2]", UnexpectedByte(b'2'), 3),
            (b"{\"a\" 1}", UnexpectedByte(b'1'), 5),
            (b"[1,]", UnexpectedByte(b']'), 3),
            (b"{\"a\":1,}", UnexpectedByte(b'}'), 7),
            (b"[}", UnexpectedByte(b'}'), 1),
            (b"{]", UnexpectedByte(b']'), 1),
            (b"[1}", UnexpectedByte(b'}'), 2),
            (b"[tru]", UnexpectedByte(b']'), 4),
            (b"[+1]", UnexpectedByte(b'+'), 1),
            (b"[.5]", UnexpectedByte(b'.'), 1),
            (b"", UnexpectedEnd, 0),
            (b"  ", UnexpectedEnd, 2),
            (b"[1", UnexpectedEnd, 2),
            (b"{\"a\":", UnexpectedEnd, 5),
            (b"\"abc", UnexpectedEnd, 4),
            (b"nul", UnexpectedEnd, 3),
            (b"[\"\xff\"]", InvalidUtf8, 2),
            (b"[\"ab\xc0\x80\"]", InvalidUtf8, 4),
            (b"[\"\xed\xa0\x80\"]", InvalidUtf8, 2),
            (b"[\"\xe2\x82\"]", InvalidUtf8, 2),
            (b"[\"a\tb\"]", ControlCharacter, 3),
            (b"[\"\x00\"]", ControlCharacter, 2),
            (b"[\"\\x\"]", InvalidEscape, 3),
            (b"[\"\\u12G4\"]", InvalidEscape, 6),
            (b"[\"\\ud800\\x\"]", InvalidEscape, 9),
            (b"[01]", InvalidNumber, 2),
            (b"[1.]", InvalidNumber, 3),
            (b"[-]", InvalidNumber, 2),
            (b"[1e]", InvalidNumber, 3),
            (b"[1e+]", InvalidNumber, 4),
            (b"[-01]", InvalidNumber, 3),
            (b"1.", InvalidNumber, 2),
            (b"-", InvalidNumber, 1),
            (b"1 2", TrailingData, 2),
            (b"{} {}", TrailingData, 3),
            (b"null,", TrailingData, 4),
            (b"\"a\"]", TrailingData, 3),
        ];
        for &(doc, kind, offset) in cases {
            assert_eq!(
                err(doc),
                err_at(kind, offset),
                "{:?}",
                String::from_utf8_lossy(doc)
            );
            assert_split_invariant(doc);
        }
        let mut tz: Tokenizer<2> = Tokenizer::new();
        let e = loop {
            match tz.next(b"[[[") {
                Ok((_, Some(_))) => {}
                Ok((_, None)) => panic!("no error"),
                Err(e) => break e,
            }
        };
        assert_eq!(e.kind, TooDeep);
    }

    #[test]
    fn escapes_decode() {
        let (toks, e) = run(br#""\" \\ \/ \b \f \n \r \t \u0041\u00e9\u20ac""#);
        assert_eq!(e, None);
        assert_eq!(
            toks,
            vec![
                p(Token::StrStart),
                txt("\" \\ / \u{8} \u{c} \n \r \t A\u{e9}\u{20ac}"),
                p(Token::StrEnd)
            ]
        );
    }

    fn string_of(doc: &[u8]) -> String {
        let (toks, e) = run(doc);
        assert_eq!(e, None, "{doc:?}");
        match toks.as_slice() {
            [Tok::Plain(Token::StrStart), Tok::Text(t), Tok::Plain(Token::StrEnd)] => t.clone(),
            [Tok::Plain(Token::StrStart), Tok::Plain(Token::StrEnd)] => String::new(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn surrogates() {
        let cases: &[(&[u8], &str)] = &[
            (br#""\ud83d\ude80""#, "\u{1F680}"),
            (br#""\uD83D\uDE80x""#, "\u{1F680}x"),
            (br#""\ud83d""#, "\u{FFFD}"),
            (br#""\ud83dx""#, "\u{FFFD}x"),
            (br#""\ud83d\n""#, "\u{FFFD}\n"),
            (br#""\ude80""#, "\u{FFFD}"),
            (br#""\ude80\ud83d""#, "\u{FFFD}\u{FFFD}"),
            (br#""\ud83d\ud83d\ude80""#, "\u{FFFD}\u{1F680}"),
            (br#""\ud83d\u0041""#, "\u{FFFD}A"),
            (br#""\udbff\udfff""#, "\u{10FFFF}"),
            (br#""\ud800\udc00""#, "\u{10000}"),
        ];
        for &(doc, want) in cases {
            assert_eq!(string_of(doc), want, "{:?}", String::from_utf8_lossy(doc));
            assert_split_invariant(doc);
        }
    }

    #[test]
    fn utf8_split_anywhere() {
        let doc = "[\"é€🚀 x\u{10FFFF}\", \"\u{7FF}\u{800}\u{FFFF}\u{10000}\"]".as_bytes();
        assert_split_invariant(doc);
        assert_eq!(
            build(&run(doc).0),
            serde_json::from_slice::<Value>(doc).unwrap()
        );
        for bad in [
            &b"[\"a\xf0\x9f\x9a\"]"[..],
            b"[\"\xf5\x80\x80\x80\"]",
            b"[\"\x80\"]",
            b"[\"\xe0\x80\x80\"]",
            b"[\"ok\xc3\"]",
            b"[\"\xf4\x90\x80\x80\"]",
        ] {
            assert_eq!(err(bad).kind, JsonErrorKind::InvalidUtf8, "{bad:?}");
            assert_split_invariant(bad);
        }
        // A character cut by the end of the document is an unexpected end.
        assert_eq!(err(b"[\"ok\xc3").kind, JsonErrorKind::UnexpectedEnd);
    }

    fn nested(depth: usize) -> Vec<u8> {
        let mut doc = Vec::new();
        for i in 0..depth {
            doc.extend_from_slice(if i % 2 == 0 { b"{\"k\":" } else { b"[" });
        }
        doc.push(b'0');
        for i in (0..depth).rev() {
            doc.push(if i % 2 == 0 { b'}' } else { b']' });
        }
        doc
    }

    fn depth_check<const D: usize>() {
        let ok = nested(D);
        assert_eq!(run_pieces::<D>(&[&ok]).1, None, "depth {D}");
        let deep = nested(D + 1);
        let e = run_pieces::<D>(&[&deep]).1.unwrap();
        assert_eq!(e.kind, JsonErrorKind::TooDeep);
        let last_open = deep.iter().rposition(|&b| b == b'{' || b == b'[').unwrap();
        assert_eq!(e.offset, last_open as u64);
    }

    #[test]
    fn depth_limit_exactly() {
        depth_check::<1>();
        depth_check::<4>();
        depth_check::<32>();
        depth_check::<63>();
        depth_check::<64>();
        let mut tz: Tokenizer<0> = Tokenizer::new();
        assert_eq!(tz.next(b"[").unwrap_err().kind, JsonErrorKind::TooDeep);
        assert_eq!(run_pieces::<0>(&[b"1"]).1, None);
        // The bit stack must tell object from array at every level.
        let doc = nested(64);
        let (toks, e) = run_pieces::<64>(&[&doc]);
        assert_eq!(e, None);
        assert_eq!(build(&toks), serde_json::from_slice::<Value>(&doc).unwrap());
    }

    /// Valid documents: hand-picked plus generated ones.
    fn valid_docs() -> Vec<Vec<u8>> {
        let mut docs: Vec<Vec<u8>> = [
            "0",
            "-0",
            "1e5",
            "1E+5",
            "-1.25e-10",
            "123456789012345678901234567890",
            "0.1",
            "[]",
            "{}",
            "[[]]",
            "[{}]",
            "\"\"",
            "\" \"",
            "true",
            "false",
            "null",
            " [ 1 , 2 , [ 3 ] , { \"a\" : { } } ] ",
            "{\"a\":[1,{\"b\":null}],\"c\":\"d\"}",
            "[\"\\u0000\", \"\\\"\", \"\\\\\\/\"]",
            "{\"\":\"\"}",
            "{\"a\":1,\"a\":2}",
            "[1.5,-0.0,1e-400,1.7976931348623157e308]",
            "\"\u{2028}\u{2029}\"",
            "\"\\ud83d\\ude80 \u{1F680}\"",
            "[18446744073709551615, -9223372036854775808]",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        let mut rng = Lcg(1);
        for _ in 0..150 {
            let mut doc = String::new();
            gen_value(&mut rng, 0, &mut doc);
            docs.push(doc.into_bytes());
        }
        docs
    }

    fn gen_ws(rng: &mut Lcg, out: &mut String) {
        for _ in 0..rng.below(3).saturating_sub(1) {
            out.push([' ', '\n', '\t', '\r'][rng.below(4) as usize]);
        }
    }

    fn gen_string(rng: &mut Lcg, out: &mut String) {
        out.push('"');
        for _ in 0..rng.below(8) {
            let c = [
                'a', 'Z', ' ', '"', '\\', '/', '\n', '\u{1}', 'é', '€', '🚀', '\u{FFFF}',
            ][rng.below(12) as usize];
            match (c, rng.below(3)) {
                ('"', _) => out.push_str("\\\""),
                ('\\', _) => out.push_str("\\\\"),
                ('\n', 0) => out.push_str("\\n"),
                (c, 0) | (c @ ('\n' | '\u{1}'), _) => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        out.push_str(&format!("\\u{:04x}", u));
                    }
                }
                (c, _) => out.push(c),
            }
        }
        out.push('"');
    }

    fn gen_value(rng: &mut Lcg, depth: usize, out: &mut String) {
        gen_ws(rng, out);
        let kind = if depth > 4 {
            rng.below(5)
        } else {
            rng.below(7)
        };
        match kind {
            0 => out.push_str(["true", "false", "null"][rng.below(3) as usize]),
            1 => {
                let n = [
                    "0",
                    "-0",
                    "7",
                    "-12",
                    "3.25",
                    "1e3",
                    "-4.5E-2",
                    "0.0001",
                    "98765432109",
                    "1e-400",
                    "2.5e+7",
                ];
                out.push_str(n[rng.below(n.len() as u64) as usize]);
            }
            2 | 3 => gen_string(rng, out),
            4 => out.push_str(&rng.below(1000).to_string()),
            5 => {
                out.push('[');
                for i in 0..rng.below(4) {
                    if i > 0 {
                        out.push(',');
                    }
                    gen_value(rng, depth + 1, out);
                }
                gen_ws(rng, out);
                out.push(']');
            }
            _ => {
                out.push('{');
                for i in 0..rng.below(4) {
                    if i > 0 {
                        out.push(',');
                    }
                    gen_ws(rng, out);
                    gen_string(rng, out);
                    gen_ws(rng, out);
                    out.push(':');
                    gen_value(rng, depth + 1, out);
                }
                gen_ws(rng, out);
                out.push('}');
            }
        }
        gen_ws(rng, out);
    }

    #[test]
    fn agrees_with_serde_json_on_valid_documents() {
        for doc in valid_docs() {
            let want: Value = serde_json::from_slice(&doc)
                .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&doc)));
            let (toks, e) = run(&doc);
            assert_eq!(e, None, "{}", String::from_utf8_lossy(&doc));
            assert_eq!(build(&toks), want, "{}", String::from_utf8_lossy(&doc));
        }
    }

    #[test]
    fn split_invariance_on_valid_documents() {
        for doc in valid_docs().iter().take(80) {
            assert_split_invariant(doc);
        }
    }

    /// JSONTestSuite-style `n_` cases: every one must be rejected.
    const INVALID: &[&[u8]] = &[
        b"",
        b" ",
        b"[",
        b"]",
        b"{",
        b"}",
        b"[1,]",
        b"[,1]",
        b"[1 2]",
        b"[1,,2]",
        b"[,]",
        b"{,}",
        b"{\"a\" 1}",
        b"{\"a\":1,}",
        b"{\"a\"::1}",
        b"{1:2}",
        b"{'a':1}",
        b"{a:1}",
        b"{\"a\":1 \"b\":2}",
        b"[1:2]",
        b"[\"a\":1]",
        b"{\"a\"}",
        b"{\"a\",\"b\"}",
        b"[[]",
        b"[]]",
        b"[}",
        b"{]",
        b"[1]x",
        b"[1] [2]",
        b"{}{}",
        b"1 2",
        b"\"a\" \"b\"",
        b"[01]",
        b"[00]",
        b"[-01]",
        b"[1.]",
        b"[-]",
        b"[- 1]",
        b"[1e]",
        b"[1e+]",
        b"[1E-]",
        b"[+1]",
        b"[.5]",
        b"[-.5]",
        b"[1.e5]",
        b"[0x1]",
        b"[0x]",
        b"[Infinity]",
        b"[-Infinity]",
        b"[NaN]",
        b"[1.5e]",
        b"[2.]",
        b"[1e5.0]",
        b"[1..2]",
        b"[1.2.3]",
        b"[--1]",
        b"[1-]",
        b"[tru]",
        b"[True]",
        b"[nul]",
        b"[NULL]",
        b"[fals]",
        b"[truefalse]",
        b"[null,]",
        b"[\"\\x\"]",
        b"[\"\\u12\"]",
        b"[\"\\u12G4\"]",
        b"[\"\\U0041\"]",
        b"[\"\\\"]",
        b"[\"\\a\"]",
        b"[\"\\'\"]",
        b"[\"a\tb\"]",
        b"[\"a\nb\"]",
        b"[\"\x7f\x1f\"]",
        b"[\"\"",
        b"[\"abc",
        b"{\"a\":",
        b"{\"a",
        b"[\xff]",
        b"[\"\xff\"]",
        b"[\"\xc0\x80\"]",
        b"[\"\xed\xa0\x80\"]",
        b"[\"\xf5\x80\x80\x80\"]",
        b"[\"\xe2\x82\"]",
        b"[\"\x80\"]",
        b"/* c */[]",
        b"[]//",
        b"\xef\xbb\xbf[]",
        b"['a']",
        b"[\"a\"\"b\"]",
        b"[1]]",
        b"{\"a\":{\"b\":1}}}",
        b"nul",
        b"tr",
        b"-",
        b"1.",
        b"\"",
        b"[\x00]",
        b"[1,\n]",
        b"{\"a\":1,,\"b\":2}",
        b"[\"a\",]",
        b"[,\"a\"]",
        b"[*]",
        b"[1e1e1]",
    ];

    #[test]
    fn rejects_invalid_documents_like_serde_json() {
        for &doc in INVALID {
            assert!(
                serde_json::from_slice::<Value>(doc).is_err(),
                "serde_json accepts {doc:?}"
            );
            assert!(
                run(doc).1.is_some(),
                "accepted {:?}",
                String::from_utf8_lossy(doc)
            );
            assert_split_invariant(doc);
        }
    }

    /// What a reader that skips a value sees: consumed bytes, whether the
    /// value closed, the error, and the tokenizer's state after (its offset
    /// and what `finish` says).
    type Skipped = (
        u64,
        bool,
        Option<JsonError>,
        u64,
        Result<Option<Token<'static>>, JsonError>,
    );

    /// `[doc]` read past its `[` and then skipped, the token loop's way.
    fn skip_by_tokens(pieces: &[&[u8]]) -> Skipped {
        let mut tz: Tokenizer = Tokenizer::new();
        let (mut used, mut closed, mut error) = (0u64, false, None);
        'pieces: for piece in pieces {
            let mut rest = *piece;
            while !closed {
                match tz.next(rest) {
                    Ok((n, tok)) => {
                        used += n as u64;
                        rest = &rest[n..];
                        match tok {
                            None => break,
                            Some(Token::ObjectEnd | Token::ArrayEnd | Token::NumberEnd)
                                if tz.depth() == 0 && used > 1 =>
                            {
                                closed = true
                            }
                            Some(_) => {}
                        }
                    }
                    Err(e) => {
                        error = Some(e);
                        break 'pieces;
                    }
                }
            }
        }
        // After an error only the error (kind and offset) tells: how much
        // of the failing slice counts as consumed is not defined.
        let (used, offset) = match error {
            Some(_) => (u64::MAX, u64::MAX),
            None => (used, tz.offset()),
        };
        (used, closed, error, offset, tz.finish())
    }

    /// The same with `skip_to_depth` after the `[`.
    fn skip_fast_way(pieces: &[&[u8]]) -> Skipped {
        let mut tz: Tokenizer = Tokenizer::new();
        let (mut used, mut closed, mut error) = (0u64, false, None);
        let mut started = false;
        for piece in pieces {
            let mut rest = *piece;
            if !started && !rest.is_empty() {
                let (n, tok) = tz.next(rest).unwrap();
                assert_eq!(tok, Some(Token::ArrayStart));
                used += n as u64;
                rest = &rest[n..];
                started = true;
            }
            if closed || !started {
                continue;
            }
            match tz.skip_to_depth(rest, 0) {
                Ok((n, c)) => {
                    used += n as u64;
                    closed = c;
                    assert!(c || n == rest.len(), "stopped early");
                }
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        let (used, offset) = match error {
            Some(_) => (u64::MAX, u64::MAX),
            None => (used, tz.offset()),
        };
        (used, closed, error, offset, tz.finish())
    }

    fn assert_skip_agrees(doc: &[u8]) {
        let mut wrapped = b"[".to_vec();
        wrapped.extend_from_slice(doc);
        wrapped.extend_from_slice(b"]");
        let doc = &wrapped[..];
        let show = String::from_utf8_lossy(doc);
        assert_eq!(skip_fast_way(&[doc]), skip_by_tokens(&[doc]), "{show}");
        for i in 0..=doc.len() {
            let (a, b) = doc.split_at(i);
            assert_eq!(
                skip_fast_way(&[a, b]),
                skip_by_tokens(&[a, b]),
                "{show} at {i}"
            );
        }
        let bytes: Vec<&[u8]> = doc.chunks(1).collect();
        assert_eq!(
            skip_fast_way(&bytes),
            skip_by_tokens(&bytes),
            "{show} bytes"
        );
    }

    #[test]
    fn skipping_a_value_is_the_token_loop() {
        for doc in valid_docs() {
            assert_skip_agrees(&doc);
        }
        for &doc in INVALID {
            assert_skip_agrees(doc);
        }
        for doc in [
            &b"{\"a\":[1,2.5e3,-0,{\"b\":\"x\\ny\\u00e9\\ud83d\\ude80\"}],\"c\":true}"[..],
            b"[[[[[[[[1]]]]]]]]",
            b"{\"k\" : \"\xc3\xa9\xe2\x82\xac\" ,\"t\":\"a\\tb\"}",
            b"[\"\xc3\"]",
            b"[1 , 2 ,3]",
            b"{\"a\":1}x",
            b"{\"a\":\"b\x01\"}",
            b"[truex]",
            b"[1e5x]",
        ] {
            assert_skip_agrees(doc);
        }
        // Nesting past the limit is the same error.
        let mut deep = b"[".repeat(40);
        deep.extend(b"]".repeat(40));
        assert_skip_agrees(&deep);
    }

    #[test]
    fn work_is_linear() {
        // A long string fed in one piece comes back as one zero-copy run.
        let mut doc = vec![b'"'];
        doc.extend(core::iter::repeat_n(b'x', 10_000));
        doc.push(b'"');
        let mut tz: Tokenizer = Tokenizer::new();
        assert_eq!(tz.next(&doc), Ok((1, Some(Token::StrStart))));
        match tz.next(&doc[1..]) {
            Ok((10_000, Some(Token::Text(t)))) => assert_eq!(t.len(), 10_000),
            other => panic!("{other:?}"),
        }
    }
}
