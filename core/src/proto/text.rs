//! Small pieces of JSON text the proto reader writes itself (keys,
//! punctuation, numbers), in a fixed buffer: no heap.

use core::fmt::Write;

/// The longest piece: a closing `]` and `}`, a comma and the longest key
/// (`cacheWriteInputTokens`, or an outcome's opening), or a number.
pub const SMALL: usize = 64;

/// A piece of JSON text of at most [`SMALL`] bytes.
#[derive(Clone, Copy)]
pub struct Small {
    len: u8,
    bytes: [u8; SMALL],
}

impl core::fmt::Debug for Small {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Small")
            .field(&core::str::from_utf8(self.as_bytes()).unwrap_or("?"))
            .finish()
    }
}

impl PartialEq for Small {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Small {}

impl Default for Small {
    fn default() -> Self {
        Self::new()
    }
}

impl Small {
    /// Empty.
    pub const fn new() -> Self {
        Small {
            len: 0,
            bytes: [0; SMALL],
        }
    }

    /// The text.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..usize::from(self.len)).unwrap_or_default()
    }

    /// Empties it (the bytes stay, unread).
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// Nothing written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `s`; what does not fit is dropped (the callers' pieces are
    /// bounded well below [`SMALL`]: keys are the schema's).
    pub(crate) fn push(&mut self, s: &[u8]) {
        for &b in s {
            if let Some(slot) = self.bytes.get_mut(usize::from(self.len)) {
                *slot = b;
                self.len = self.len.saturating_add(1);
            }
        }
    }

    /// Appends a key: `"key":`.
    pub(crate) fn key(&mut self, key: &str) {
        self.push(b"\"");
        self.push(key.as_bytes());
        self.push(b"\":");
    }

    /// Appends a signed integer. Its digits come from divisions by ten
    /// over 16-bit pieces: a Cortex-M3 divides 32-bit numbers in one
    /// instruction, and neither `core::fmt` nor a 64-bit division (a
    /// library routine) is in the firmware's flash budget.
    pub(crate) fn int(&mut self, v: i64) {
        if v < 0 {
            self.push(b"-");
        }
        let mut u = v.unsigned_abs();
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        loop {
            let (mut q, mut r) = (0u64, 0u32);
            let mut shift = 64u32;
            while shift > 0 {
                shift = shift.saturating_sub(16);
                // r < 10: `cur` fits in 20 bits.
                let cur = r << 16 | (u >> shift) as u32 & 0xffff;
                q |= u64::from(cur / 10) << shift;
                r = cur % 10;
            }
            at = at.saturating_sub(1);
            if let Some(d) = digits.get_mut(at) {
                *d = b'0' | r as u8;
            }
            u = q;
            if u == 0 {
                break;
            }
        }
        self.push(digits.get(at..).unwrap_or_default());
    }

    /// Appends a double as JavaScript's `Number.prototype.toString` (and so
    /// `JSON.stringify`) writes it: the shortest digits that read back to
    /// the same number, plain notation for exponents from -7 to 20,
    /// `1e+21` style outside. NaN and the infinities are `null`, as
    /// `JSON.stringify` writes them.
    pub(crate) fn double(&mut self, v: f64) {
        // Decided on the bits: a float comparison would link the soft-float
        // compare routines (about 200 bytes on a Cortex-M3).
        let bits = v.to_bits();
        let sign = 1u64 << 63;
        let exp = 0x7ffu64 << 52;
        if bits & exp == exp {
            // NaN or an infinity.
            self.push(b"null");
            return;
        }
        if bits & !sign == 0 {
            // Zero, either sign: JavaScript writes -0 as `0`.
            self.push(b"0");
            return;
        }
        // The shortest digits that read back as the number, as `{:e}`
        // gives them (without its 13 KB of flash).
        let (digits, n, k) = super::shortest::shortest(f64::from_bits(bits & !sign));
        if bits & sign != 0 {
            self.push(b"-");
        }
        self.js_layout(digits.get(..n).unwrap_or_default(), k);
    }

    /// ECMAScript Number::toString's layout of `0.d1d2...dk × 10^n`.
    fn js_layout(&mut self, digits: &[u8], n: i32) {
        let k = i32::try_from(digits.len()).unwrap_or(0);
        if k <= n && n <= 21 {
            self.push(digits);
            for _ in k..n {
                self.push(b"0");
            }
        } else if 0 < n && n <= 21 {
            let (int, frac) = digits.split_at(usize::try_from(n).unwrap_or(0));
            self.push(int);
            self.push(b".");
            self.push(frac);
        } else if -6 < n && n <= 0 {
            self.push(b"0.");
            for _ in n..0 {
                self.push(b"0");
            }
            self.push(digits);
        } else {
            let (first, rest) = digits.split_at(1.min(digits.len()));
            self.push(first);
            if !rest.is_empty() {
                self.push(b".");
                self.push(rest);
            }
            let exp = n.saturating_sub(1);
            self.push(if exp < 0 { b"e-" } else { b"e+" });
            self.int(i64::from(exp.unsigned_abs()));
        }
    }
}

impl Write for Small {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        if usize::from(self.len).saturating_add(s.len()) > SMALL {
            return Err(core::fmt::Error);
        }
        self.push(s.as_bytes());
        Ok(())
    }
}

/// Whether byte `b` stands for itself inside a JSON string (`"`, `\\` and
/// the control characters do not).
pub(crate) fn plain(b: u8) -> bool {
    b >= 0x20 && b != b'"' && b != b'\\'
}

/// The JSON escape of a byte that is not [`plain`], as `JSON.stringify`
/// writes it: a short form, or `\u00XX` for the other control characters
/// (written, not tabled: 32 six-byte escapes would take flash).
pub(crate) fn escape(b: u8, out: &mut Small) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    // The bytes with a short form, and the letter of each.
    const SHORT: &[u8; 7] = b"\x08\x0c\n\r\t\"\\";
    const LETTER: &[u8; 7] = b"bfnrt\"\\";
    out.push(b"\\");
    match SHORT.iter().position(|&s| s == b) {
        Some(i) => out.push(LETTER.get(i..=i).unwrap_or_default()),
        None => {
            out.push(b"u00");
            for d in [b >> 4, b & 15] {
                out.push(
                    HEX.get(usize::from(d))
                        .map(core::slice::from_ref)
                        .unwrap_or_default(),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    fn js(v: f64) -> Small {
        let mut s = Small::new();
        s.double(v);
        s
    }

    #[test]
    fn integers_without_core_fmt() {
        for v in [
            0,
            1,
            -1,
            9,
            10,
            99,
            100,
            -1234567890,
            i64::MAX,
            i64::MIN,
            1 << 53,
        ] {
            let mut s = Small::new();
            s.int(v);
            assert_eq!(s.as_bytes(), std::format!("{v}").as_bytes(), "{v}");
        }
    }

    #[test]
    fn integers_as_core_fmt_writes_them() {
        // Every magnitude: random bits, shifted to every width.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for i in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = (x >> (i % 64)) as i64;
            for v in [v, v.wrapping_neg()] {
                let mut s = Small::new();
                s.int(v);
                assert_eq!(s.as_bytes(), std::format!("{v}").as_bytes(), "{v}");
            }
        }
    }

    #[test]
    fn doubles_as_javascript_writes_them() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1"),
            (-1.5, "-1.5"),
            (0.1, "0.1"),
            (123.456, "123.456"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (f64::NAN, "null"),
            (0.0, "0"),
            (-0.0, "0"),
            (f64::INFINITY, "null"),
            (f64::NEG_INFINITY, "null"),
            (-5e-324, "-5e-324"),
            (-1.7976931348623157e308, "-1.7976931348623157e+308"),
            (12345678901234567890.0, "12345678901234567000"),
        ];
        for (v, want) in cases {
            assert_eq!(js(*v).as_bytes(), want.as_bytes(), "{v}");
        }
    }
}
