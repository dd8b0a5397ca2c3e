//! The raw-value fast path: skipping a value's tokens in a tight loop
//! (for a reader that passes a value through as raw JSON text).
//!
//! Structural bytes go through the tokenizer's one transition function
//! ([`Tokenizer::transition`]), the same as the token loop; strings,
//! numbers and literals that are whole in the slice are taken at once.
//! Anything else goes one token the long way, so errors and their offsets
//! are those of [`Tokenizer::next`].

use core::str::from_utf8;

use super::JsonError;
use super::{escape_char, is_ws, plain_len, Move, Num, State, Token, Tokenizer};
use crate::store::{Level, Store};

impl<const DEPTH: usize, S: Store> Tokenizer<DEPTH, S> {
    /// Consumes tokens without handing them out until one closes a value
    /// at nesting `depth` (an `ObjectEnd`, `ArrayEnd` or `NumberEnd` after
    /// which [`depth`](Self::depth) is `depth`) or the input runs out:
    /// `(consumed, closed)`. For a reader that passes a value through raw.
    ///
    /// The bytes are read by a tight loop that takes the common cases
    /// whole (plain strings, one-letter escapes, structure, complete numbers
    /// and literals) and makes exactly the state changes their tokens would;
    /// anything else (an error, a `\u` escape, non-UTF-8 bytes, a token cut
    /// by the end of the slice) goes through [`next`](Self::next), so the
    /// outcome (errors with their offsets included) is that of the token loop.
    ///
    /// # Errors
    /// As [`next`](Self::next).
    pub(crate) fn skip_to_depth(
        &mut self,
        input: &[u8],
        depth: usize,
    ) -> Result<(usize, bool), JsonError> {
        let mut pos = 0usize;
        loop {
            let (at, closed) = self.skip_fast(input, pos, depth);
            pos = at;
            if closed {
                return Ok((pos, true));
            }
            // One token the long way.
            let rest = input.get(pos..).unwrap_or_default();
            let (used, token) = self.next(rest)?;
            pos = pos.wrapping_add(used);
            match token {
                None => return Ok((pos, false)),
                Some(Token::ObjectEnd | Token::ArrayEnd | Token::NumberEnd)
                    if self.depth() == depth =>
                {
                    return Ok((pos, true))
                }
                Some(_) => {}
            }
        }
    }

    /// The fast loop of [`skip_to_depth`](Self::skip_to_depth): from `pos`,
    /// consumes whole tokens of the happy path; returns where it stopped
    /// and whether a value closed at `depth` there.
    fn skip_fast(&mut self, input: &[u8], mut pos: usize, depth: usize) -> (usize, bool) {
        let start = pos;
        let closed = loop {
            let Some(&b) = input.get(pos) else {
                break false;
            };
            match self.state {
                State::Str if self.utf8_len == 0 => {
                    let rest = input.get(pos..).unwrap_or_default();
                    let Some((run, after)) = rest.split_at_checked(plain_len(rest)) else {
                        break false;
                    };
                    if !run.is_ascii() && from_utf8(run).is_err() {
                        break false;
                    }
                    match after {
                        [b'"', ..] => {
                            pos = pos.wrapping_add(run.len()).wrapping_add(1);
                            self.state = if self.in_key {
                                State::Colon
                            } else {
                                self.after_value()
                            };
                        }
                        [b'\\', e, ..] if escape_char(*e).is_some() => {
                            pos = pos.wrapping_add(run.len()).wrapping_add(2);
                        }
                        _ => {
                            pos = pos.wrapping_add(run.len());
                            break false;
                        }
                    }
                }
                State::Value
                | State::FirstItem
                | State::FirstKey
                | State::Key
                | State::Colon
                | State::Next => {
                    if is_ws(b) {
                        pos = pos.wrapping_add(1);
                        continue;
                    }
                    match self.skip_structure(input, pos, b) {
                        Some(next) => pos = next,
                        None => break false,
                    }
                    if matches!(b, b'}' | b']' | b'-' | b'0'..=b'9') && self.depth() == depth {
                        break true;
                    }
                }
                State::Str
                | State::Done
                | State::Num
                | State::Lit
                | State::Esc
                | State::Hex
                | State::LowEsc
                | State::LowU
                | State::Unit
                | State::Failed => break false,
            }
        };
        self.offset = self.offset.wrapping_add(pos.wrapping_sub(start) as u64);
        (pos, closed)
    }

    /// One structural token of [`skip_fast`](Self::skip_fast) starting
    /// with `b` at `pos`: the position after it, or `None` (nothing
    /// changed) for whatever the general path must see.
    #[inline(always)]
    fn skip_structure(&mut self, input: &[u8], pos: usize, b: u8) -> Option<usize> {
        // Too deep is an error, which the general path reports.
        if matches!(b, b'{' | b'[') && self.depth.get() >= DEPTH {
            return None;
        }
        match self.transition(b, pos).ok()?? {
            Move::Token(_) | Move::Comma => Some(pos.wrapping_add(1)),
            Move::Number => self.skip_number(input, pos),
            Move::Literal(lit) => {
                let text = lit.text();
                if !input.get(pos..)?.starts_with(text) {
                    return None;
                }
                self.state = self.after_value();
                Some(pos.wrapping_add(text.len()))
            }
        }
    }

    /// A whole number at `pos` whose delimiter is in `input`: the position
    /// of the delimiter (the state after its `NumberEnd`), or `None` for a
    /// number cut by the end of the slice or malformed.
    #[inline(always)]
    fn skip_number(&mut self, input: &[u8], pos: usize) -> Option<usize> {
        let rest = input.get(pos..)?;
        let (num, len) = Num::Start.scan(rest);
        let &delimiter = rest.get(len)?;
        if !num.is_complete() || matches!(delimiter, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
        {
            return None;
        }
        self.state = self.after_value();
        Some(pos.wrapping_add(len))
    }
}
