//! Compact JSON output of a [`serde_json::Value`], byte for byte what
//! `serde_json::to_writer` writes, with a faster string escape.
//!
//! The replay report is mostly message text; serde_json escapes it one byte
//! at a time. Here a string is scanned eight bytes at a time for the bytes
//! that need an escape (`"`, `\`, and controls below 0x20), and the runs
//! between them are copied whole. Everything else (numbers, structure, key
//! order) is serde_json's own.

use std::io::{self, Write};

use serde_json::Value;

/// Writes `value` as compact JSON into `out`.
///
/// # Errors
/// The writer's error.
pub fn write_value(out: &mut impl Write, value: &Value) -> io::Result<()> {
    match value {
        Value::Null => out.write_all(b"null"),
        Value::Bool(true) => out.write_all(b"true"),
        Value::Bool(false) => out.write_all(b"false"),
        Value::Number(n) => serde_json::to_writer(&mut *out, n).map_err(io::Error::from),
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            out.write_all(b"[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                write_value(out, item)?;
            }
            out.write_all(b"]")
        }
        Value::Object(members) => {
            out.write_all(b"{")?;
            for (i, (key, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                write_str(out, key)?;
                out.write_all(b":")?;
                write_value(out, item)?;
            }
            out.write_all(b"}")
        }
    }
}

/// Writes `s` as a JSON string, escaped as serde_json escapes it.
///
/// # Errors
/// The writer's error.
pub fn write_str(out: &mut impl Write, s: &str) -> io::Result<()> {
    let bytes = s.as_bytes();
    out.write_all(b"\"")?;
    let mut start = 0;
    while let Some(at) = next_escape(bytes, start) {
        out.write_all(bytes.get(start..at).unwrap_or_default())?;
        let byte = bytes.get(at).copied().unwrap_or_default();
        write_escape(out, byte)?;
        start = at + 1;
    }
    out.write_all(bytes.get(start..).unwrap_or_default())?;
    out.write_all(b"\"")
}

/// The escape of one byte that needs one.
fn write_escape(out: &mut impl Write, byte: u8) -> io::Result<()> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short: &[u8] = match byte {
        b'"' => b"\\\"",
        b'\\' => b"\\\\",
        0x08 => b"\\b",
        0x0c => b"\\f",
        b'\n' => b"\\n",
        b'\r' => b"\\r",
        b'\t' => b"\\t",
        _ => {
            let hex = |nibble: u8| HEX.get(usize::from(nibble)).copied().unwrap_or(b'0');
            return out.write_all(&[b'\\', b'u', b'0', b'0', hex(byte >> 4), hex(byte & 15)]);
        }
    };
    out.write_all(short)
}

/// Whether a byte needs an escape.
const fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// The first byte at or after `from` that needs an escape: whole words
/// without one are skipped eight bytes at a time.
fn next_escape(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A byte of `word ^ pattern` is zero where `word` has `pattern`'s byte;
    // `x - ONES & !x & HIGH` is non-zero when some byte of `x` is below 1
    // (and `word - 0x20` when one is below 0x20), as the classic
    // "has zero byte" test, exact for the first such byte.
    let flagged = |word: u64| {
        let below_space = word.wrapping_sub(ONES * 0x20) & !word;
        let quote = word ^ (ONES * u64::from(b'"'));
        let backslash = word ^ (ONES * u64::from(b'\\'));
        let zero = |x: u64| x.wrapping_sub(ONES) & !x;
        (below_space | zero(quote) | zero(backslash)) & HIGH != 0
    };
    let mut at = from;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        if flagged(u64::from_le_bytes(word)) {
            break;
        }
        at += 8;
    }
    // The flagged word (its flag may be a false positive past the first
    // hit, never a miss) and the tail are checked byte by byte.
    bytes
        .iter()
        .enumerate()
        .skip(at)
        .find(|(_, &b)| needs_escape(b))
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ours(v: &Value) -> String {
        let mut out = Vec::new();
        write_value(&mut out, v).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn equals_serde_json_on_every_escape_and_position() {
        let mut specials: Vec<char> = (0u8..0x20).map(char::from).collect();
        specials.extend(['"', '\\', '/', '\u{7f}', 'é', '\u{2028}', '😀', 'a', ' ']);
        for &c in &specials {
            for left in 0..18 {
                for right in 0..10 {
                    let s = format!("{}{c}{}", "x".repeat(left), "y".repeat(right));
                    let v = json!({"k": s, "n": [1, -2, 3.5, 1e300, null, true, false]});
                    assert_eq!(ours(&v), serde_json::to_string(&v).unwrap(), "{s:?}");
                }
            }
        }
    }

    #[test]
    fn nested_values_and_keys() {
        let v = json!({"b\n": {"a": [[], {}, "\u{0}\u{1f}"]}, "a": "tab\there"});
        assert_eq!(ours(&v), serde_json::to_string(&v).unwrap());
    }
}
