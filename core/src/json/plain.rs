//! The decoder's fast paths through the tokenizer: whole tokens taken in
//! one step when they are plain and complete in the slice.
//!
//! Each function leaves the tokenizer in exactly the state the token
//! sequence it stands for would (the equivalence tests in `decode.rs` feed
//! every frame whole, cut anywhere and a byte at a time and compare), and
//! consumes nothing when it does not apply: the general path
//! ([`Tokenizer::next`]) then takes over and reports any error.

use super::{plain_len, plain_run, skip_ws, State, Tokenizer};
use crate::store::{Bits, Level, Store};

/// A member of an object read by [`plain_members`]: the byte ranges of
/// its key and of its string value (quotes excluded).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Member {
    pub(crate) key: (usize, usize),
    pub(crate) value: (usize, usize),
}

/// The members of a compact object that is all of `input`: exactly `N`
/// members, each a plain ASCII key and a plain string value (no escape,
/// no whitespace between tokens), as a bare delta frame is sent. `None`
/// for anything else, which the general path reads (and judges).
#[inline(always)]
pub(crate) fn plain_members<const N: usize>(input: &[u8]) -> Option<[Member; N]> {
    let mut members = [Member::default(); N];
    let mut pos = 0usize;
    for m in &mut members {
        // `{` before the first member, `,` before the others.
        if !matches!(input.get(pos), Some(b'{' | b','))
            || input.get(pos.wrapping_add(1)) != Some(&b'"')
        {
            return None;
        }
        let from = pos.wrapping_add(2);
        let rest = input.get(from..)?;
        let len = member_key_len(rest)?;
        let at = from.wrapping_add(len).wrapping_add(3);
        let value = input.get(at..)?;
        let value_len = plain_len(value);
        if value.get(value_len) != Some(&b'"') {
            return None;
        }
        let end = at.wrapping_add(value_len);
        *m = Member {
            key: (from, from.wrapping_add(len)),
            value: (at, end),
        };
        pos = end.wrapping_add(1);
    }
    let last = pos.wrapping_add(1) == input.len() && input.get(pos) == Some(&b'}');
    last.then_some(members)
}

/// The length of the plain ASCII key at the start of `rest` if its
/// closing quote, the colon and a string value's opening quote follow.
/// The keys of a bare delta frame are matched whole, cheaper than the
/// scan any other key takes (the same length for a key that is plain).
#[inline(always)]
fn member_key_len(rest: &[u8]) -> Option<usize> {
    const AFTER: &[u8] = b"\":\"";
    const KEYS: [&[u8]; 4] = [b"type", b"messageId", b"delta", b"toolCallId"];
    let follows = |len: usize| rest.get(len..len.wrapping_add(AFTER.len())) == Some(AFTER);
    if let Some(key) = KEYS
        .iter()
        .find(|key| rest.get(..key.len()) == Some(**key) && follows(key.len()))
    {
        return Some(key.len());
    }
    let len = plain_run::<true>(rest);
    follows(len).then_some(len)
}

impl<const DEPTH: usize, S: Store> Tokenizer<DEPTH, S> {
    /// A fast path for a reader of objects: if the next token is an object
    /// key whose text is plain ASCII (no escape) and the whole key, its
    /// closing quote and its `:` (and the `,` before it, after a member)
    /// are in `input`, consumes all of it and returns the key's bytes.
    /// The state afterwards is exactly the one after the token sequence
    /// `KeyStart`, `Text(key)`, `KeyEnd`; otherwise nothing is consumed and
    /// `None` tells the caller to take the general path ([`next`](Self::next)),
    /// which also reports any error.
    // Always inlined: the hottest step of a frame (every key), and out of
    // line it cost the client 3 % on the chat stream.
    #[inline(always)]
    pub(crate) fn plain_key<'a>(&mut self, input: &'a [u8]) -> Option<(usize, &'a [u8])> {
        let mut pos = 0usize;
        match self.state {
            State::FirstKey | State::Key => {}
            State::Next if self.in_object() => {
                pos = skip_ws(input, pos);
                if input.get(pos) != Some(&b',') {
                    return None;
                }
                pos = pos.wrapping_add(1);
            }
            State::Str
            | State::Value
            | State::FirstItem
            | State::Colon
            | State::Next
            | State::Done
            | State::Num
            | State::Lit
            | State::Esc
            | State::Hex
            | State::LowEsc
            | State::LowU
            | State::Unit
            | State::Failed => return None,
        }
        pos = skip_ws(input, pos);
        if input.get(pos) != Some(&b'"') {
            return None;
        }
        let from = pos.wrapping_add(1);
        let rest = input.get(from..)?;
        // The run stops at a byte that is not ASCII too: such keys take
        // the general path, which checks their UTF-8.
        let (key, after) = rest.split_at_checked(plain_run::<true>(rest))?;
        if after.first() != Some(&b'"') {
            return None;
        }
        let colon = skip_ws(input, from.wrapping_add(key.len()).wrapping_add(1));
        if input.get(colon) != Some(&b':') {
            return None;
        }
        let used = colon.wrapping_add(1);
        self.in_key = true;
        self.state = State::Value;
        self.offset = self.offset.wrapping_add(used as u64);
        Some((used, key))
    }

    /// A fast path for a reader of values: if the next token is a string
    /// value with no escape whose closing quote is in `input` (from
    /// `pos`), returns how many bytes it takes and its raw text, without
    /// consuming anything. The caller checks the text (UTF-8) and then
    /// takes it with [`take_plain_string`](Self::take_plain_string); on
    /// `None`, or if the text is not valid, the general path takes over
    /// and reports any error.
    #[inline(always)]
    pub(crate) fn peek_plain_string<'a>(
        &self,
        input: &'a [u8],
        pos: usize,
    ) -> Option<(usize, &'a [u8])> {
        if self.state != State::Value {
            return None;
        }
        let quote = skip_ws(input, pos);
        if input.get(quote) != Some(&b'"') {
            return None;
        }
        let from = quote.wrapping_add(1);
        let rest = input.get(from..)?;
        let (run, after) = rest.split_at_checked(plain_len(rest))?;
        if after.first() != Some(&b'"') {
            return None;
        }
        let used = from
            .wrapping_add(run.len())
            .wrapping_add(1)
            .wrapping_sub(pos);
        Some((used, run))
    }

    /// Takes the string [`peek_plain_string`](Self::peek_plain_string)
    /// found, `used` bytes: the state afterwards is exactly the one after
    /// `StrStart`, `Text(text)` (none for `""`), `StrEnd`.
    #[inline(always)]
    pub(crate) fn take_plain_string(&mut self, used: usize) {
        self.in_key = false;
        self.state = self.after_value();
        self.offset = self.offset.wrapping_add(used as u64);
    }

    /// A fast path for the start of a document that is an object: skips
    /// whitespace and consumes the `{`, as the token `ObjectStart`.
    /// `None` (nothing consumed) for anything else.
    #[inline]
    pub(crate) fn plain_object_start(&mut self, input: &[u8]) -> Option<usize> {
        if self.state != State::Value || self.depth.get() != 0 || DEPTH == 0 {
            return None;
        }
        let at = skip_ws(input, 0);
        if input.get(at) != Some(&b'{') {
            return None;
        }
        self.push(true, at).ok()?;
        self.state = State::FirstKey;
        let used = at.wrapping_add(1);
        self.offset = self.offset.wrapping_add(used as u64);
        Some(used)
    }

    /// A fast path for the end of a top-level object after a member:
    /// skips whitespace and consumes the `}`, as the token `ObjectEnd`
    /// that completes the document. `None` (nothing consumed) otherwise.
    #[inline]
    pub(crate) fn plain_object_end(&mut self, input: &[u8], pos: usize) -> Option<usize> {
        if self.state != State::Next || self.depth.get() != 1 || !self.in_object() {
            return None;
        }
        let at = skip_ws(input, pos);
        if input.get(at) != Some(&b'}') {
            return None;
        }
        self.pop();
        let used = at.wrapping_add(1).wrapping_sub(pos);
        self.offset = self.offset.wrapping_add(used as u64);
        Some(used)
    }

    /// A fast path for a whole document that a reader has checked to be an
    /// object of plain keys and plain string values, `used` bytes long
    /// from the start of the document: the state afterwards is exactly the
    /// one after its tokens. False (nothing changed) if the tokenizer is
    /// not at the start of a document or cannot open an object.
    #[inline(always)]
    pub(crate) fn plain_whole_object(&mut self, used: usize) -> bool {
        if self.state != State::Value || self.depth.get() != 0 || DEPTH == 0 {
            return false;
        }
        // As `ObjectStart` (the bit of level 1 set, which `ObjectEnd`
        // leaves), the members (no container), then `ObjectEnd`.
        self.stack.set(0, true);
        self.in_key = false;
        self.state = State::Done;
        self.offset = self.offset.wrapping_add(used as u64);
        true
    }
}
