//! The two scans of a host client's express lane for a run of bare delta
//! frames (`agui_alloc::Client`): where the last frame's delta value
//! begins, and whether the next frame's rest after the same prefix is a
//! plain string that closes the object. Pure functions of the bytes; the
//! grammar stays the tokenizer's, which reads every frame these decline.

use super::{plain_len, Token, Tokenizer};
use core::str::from_utf8;

/// Where the value of `frame`'s last member begins (the byte after its
/// opening quote), if `frame` is a JSON object text that ends with a
/// string member named `key` and then `}`, with nothing between the
/// tokens: `…"key":"VALUE"}`. `VALUE` may hold escapes.
///
/// Meant for a frame the tokenizer has read without error: then an
/// unescaped quote is structural, so the last one before the closing
/// `"}` opens the last value, and the unescaped quote before `key` opens
/// that member's key.
///
/// ```
/// use agui_core::json::last_string_member;
/// let frame = br#"{"type":"T","messageId":"m","delta":"a\"b"}"#;
/// assert_eq!(last_string_member(frame, b"delta"), Some(37));
/// assert_eq!(last_string_member(frame, b"messageId"), None);
/// ```
pub fn last_string_member(frame: &[u8], key: &[u8]) -> Option<usize> {
    let close = frame.len().checked_sub(2)?;
    if frame.get(close..) != Some(b"\"}".as_slice()) {
        return None;
    }
    let open = unescaped_quote_before(frame, close)?;
    // `"key":` then the value's quote at `open`.
    let key_quote = open.checked_sub(key.len().checked_add(3)?)?;
    let named = frame.get(key_quote..open)?;
    let matches = named.first() == Some(&b'"')
        && named.get(1..named.len().wrapping_sub(2)) == Some(key)
        && named.ends_with(b"\":");
    (matches && unescaped(frame, key_quote)).then_some(open.wrapping_add(1))
}

/// The string of a bare delta frame's rest after the prefix that
/// [`last_string_member`] found on an earlier frame: `rest` is a plain
/// string body (no quote, escape or control byte; valid UTF-8; not
/// empty), its closing quote and `}`, and nothing more.
///
/// ```
/// use agui_core::json::plain_string_tail;
/// assert_eq!(plain_string_tail(b" world\"}"), Some(" world"));
/// assert_eq!(plain_string_tail(b"a\\nb\"}"), None); // an escape
/// assert_eq!(plain_string_tail(b"\"}"), None); // empty
/// assert_eq!(plain_string_tail(b"a\"} "), None); // bytes after the object
/// ```
#[inline(always)]
pub fn plain_string_tail(rest: &[u8]) -> Option<&str> {
    let len = plain_len(rest);
    let (body, after) = rest.split_at_checked(len)?;
    if body.is_empty() || after != b"\"}" {
        return None;
    }
    from_utf8(body).ok()
}

/// The string of a delta frame's rest, from its delta's opening quote
/// (the last byte of the prefix that [`last_string_member`] found on an
/// earlier frame): `from_quote` must be one JSON string, not empty once
/// decoded, then `}` and nothing more. Hands its text to `out` in
/// fragments, decoded as the tokenizer decodes it (escapes, surrogate
/// pairs, a lone surrogate as U+FFFD), and returns whether the rest was
/// such; if not, `out` may have had some of it (the caller drops it).
///
/// ```
/// use agui_core::json::string_tail;
/// let mut text = String::new();
/// assert!(string_tail(br#""a\"b\u00e9"}"#, &mut |s| text.push_str(s)));
/// assert_eq!(text, "a\"bé");
/// assert!(!string_tail(br#""a" }"#, &mut |_| {}));
/// ```
#[inline(always)]
pub fn string_tail(from_quote: &[u8], out: &mut impl FnMut(&str)) -> bool {
    let Some((b'"', rest)) = from_quote.split_first() else {
        return false;
    };
    if let Some(text) = plain_string_tail(rest) {
        out(text);
        return true;
    }
    escaped_string_tail(from_quote, out)
}

/// [`string_tail`] for a string with escapes: the tokenizer reads it.
#[inline(never)]
fn escaped_string_tail(from_quote: &[u8], out: &mut dyn FnMut(&str)) -> bool {
    // A string alone is a whole document: no container.
    let mut tokenizer: Tokenizer<1> = Tokenizer::new();
    let mut rest = from_quote;
    let mut empty = true;
    loop {
        let Ok((used, token)) = tokenizer.next(rest) else {
            return false;
        };
        rest = rest.get(used..).unwrap_or_default();
        match token {
            Some(Token::StrStart) => {}
            Some(Token::Text(text)) => {
                empty &= text.is_empty();
                out(text);
            }
            Some(Token::Char(c)) => {
                empty = false;
                out(c.encode_utf8(&mut [0; 4]));
            }
            Some(Token::StrEnd) => return !empty && rest == b"}",
            // The input used up inside the string.
            None if used == 0 => return false,
            None => {}
            // Not a string at all.
            Some(
                Token::ObjectStart
                | Token::ObjectEnd
                | Token::ArrayStart
                | Token::ArrayEnd
                | Token::KeyStart
                | Token::KeyEnd
                | Token::Number(_)
                | Token::NumberEnd
                | Token::True
                | Token::False
                | Token::Null,
            ) => return false,
        }
    }
}

/// The position of the last quote before `end` that no backslash
/// escapes.
fn unescaped_quote_before(frame: &[u8], end: usize) -> Option<usize> {
    let mut end = end;
    loop {
        let at = frame.get(..end)?.iter().rposition(|&b| b == b'"')?;
        if unescaped(frame, at) {
            return Some(at);
        }
        end = at;
    }
}

/// Whether the byte at `at` follows an even run of backslashes.
fn unescaped(frame: &[u8], at: usize) -> bool {
    let before = frame.get(..at).unwrap_or_default();
    before.iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    extern crate std;
    use super::*;

    #[test]
    fn the_last_member_is_found_past_escaped_quotes() {
        let at = |f: &[u8]| last_string_member(f, b"delta");
        assert_eq!(at(br#"{"delta":"x"}"#), Some(10));
        assert_eq!(at(br#"{"delta":"\\"}"#), Some(10));
        assert_eq!(at(br#"{"delta":"\"delta\":\""}"#), Some(10));
        // The key itself escaped: not a member named delta.
        assert_eq!(at(br#"{"a\"delta":"x"}"#), None);
        assert_eq!(at(br#"{"xdelta":"x"}"#), None);
        assert_eq!(at(br#"{"delta": "x"}"#), None);
        assert_eq!(at(br#"{"delta":"x"} "#), None);
        assert_eq!(at(br#"{"delta":1}"#), None);
        assert_eq!(at(b"\"}"), None);
        assert_eq!(at(b""), None);
    }

    fn tail(from_quote: &[u8]) -> Option<std::string::String> {
        let mut text = std::string::String::new();
        string_tail(from_quote, &mut |s| text.push_str(s)).then_some(text)
    }

    #[test]
    fn an_escaped_tail_is_decoded_as_the_tokenizer_decodes() {
        assert_eq!(tail(br#""a\nb"}"#).as_deref(), Some("a\nb"));
        assert_eq!(tail(br#""\ud83d\ude80"}"#).as_deref(), Some("\u{1F680}"));
        assert_eq!(tail(br#""\ud83d!"}"#).as_deref(), Some("\u{FFFD}!"));
        assert_eq!(tail(br#""\\"}"#).as_deref(), Some("\\"));
        assert_eq!(tail(br#""plain"}"#).as_deref(), Some("plain"));
        for bad in [
            &br#""\x"}"#[..],
            br#""a\"}"#,
            br#""a"}}"#,
            br#""a" }"#,
            br#""""#,
            br#""a""#,
            br#""a"#,
            br#"1}"#,
            br#""\u00"}"#,
            b"\"a\x01\"}",
            b"\"\xff\"}",
            b"",
        ] {
            assert_eq!(tail(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_tail_is_a_plain_nonempty_string_and_the_end() {
        assert_eq!(plain_string_tail("héllo\"}".as_bytes()), Some("héllo"));
        assert_eq!(plain_string_tail(b"a\"}"), Some("a"));
        for bad in [
            &b"\"}"[..],
            b"a\"",
            b"a\"}}",
            b"a\x01\"}",
            b"a\\\"}",
            b"\xff\"}",
            b"a\" }",
            b"a",
        ] {
            assert_eq!(plain_string_tail(bad), None, "{bad:?}");
        }
    }
}
