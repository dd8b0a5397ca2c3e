//! The shortest decimal digits that read back as a given double, without
//! `core::fmt`: `{:e}` links core's Grisu and Dragon code with their tables
//! and bignums, about 13 KB of flash, which the protobuf serial firmware
//! cannot spend. This is the free-format algorithm of Steele & White as
//! Burger & Dybvig state it, over a small fixed bignum: slower than Grisu
//! (a few thousand cycles per double on a Cortex-M3) and a few hundred
//! bytes of code. It rounds as core's does (boundaries included for an
//! even mantissa, a tie between two candidates up), so the digits are
//! `{:e}`'s: the tests compare them on random doubles.

use core::cmp::Ordering;

/// Limbs of the bignum: 1,280 bits. The largest number held is the
/// numerator of the smallest subnormal scaled by 10^324, times 10 (about
/// 2^1132).
const LIMBS: usize = 40;

/// An unsigned integer of [`LIMBS`] 32-bit limbs, least significant first.
#[derive(Clone, Copy)]
struct Big {
    limbs: [u32; LIMBS],
}

impl Big {
    fn new(v: u64) -> Big {
        let mut b = Big { limbs: [0; LIMBS] };
        if let Some(l) = b.limbs.get_mut(0) {
            *l = v as u32;
        }
        if let Some(l) = b.limbs.get_mut(1) {
            *l = (v >> 32) as u32;
        }
        b
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for l in &mut self.limbs {
            // (2^32 - 1)^2 + 2^32 - 1 < 2^64: no overflow.
            let x = u64::from(*l).wrapping_mul(u64::from(m)).wrapping_add(carry);
            *l = x as u32;
            carry = x >> 32;
        }
    }

    fn mul_pow2(&mut self, n: u32) {
        let words = (n >> 5) as usize;
        let bits = n & 31;
        if words > 0 {
            for i in (0..LIMBS).rev() {
                let from = i
                    .checked_sub(words)
                    .and_then(|j| self.limbs.get(j))
                    .copied()
                    .unwrap_or(0);
                if let Some(l) = self.limbs.get_mut(i) {
                    *l = from;
                }
            }
        }
        if bits > 0 {
            let mut carry = 0u32;
            for l in &mut self.limbs {
                let x = *l;
                *l = (x << bits) | carry;
                carry = x >> 32u32.wrapping_sub(bits);
            }
        }
    }

    fn mul_pow10(&mut self, mut n: u32) {
        while n >= 9 {
            self.mul_small(1_000_000_000);
            n = n.wrapping_sub(9);
        }
        let mut p = 1u32;
        for _ in 0..n {
            p = p.wrapping_mul(10);
        }
        self.mul_small(p);
    }

    fn add(&self, other: &Big) -> Big {
        let mut out = *self;
        let mut carry = 0u64;
        for (a, b) in out.limbs.iter_mut().zip(other.limbs.iter()) {
            let x = u64::from(*a)
                .wrapping_add(u64::from(*b))
                .wrapping_add(carry);
            *a = x as u32;
            carry = x >> 32;
        }
        out
    }

    /// `self -= other`, for `self >= other`.
    fn sub(&mut self, other: &Big) {
        let mut borrow = 0u64;
        for (a, b) in self.limbs.iter_mut().zip(other.limbs.iter()) {
            let x = u64::from(*a)
                .wrapping_sub(u64::from(*b))
                .wrapping_sub(borrow);
            *a = x as u32;
            // A difference that went below zero wrapped to 2^64 - small.
            borrow = u64::from(x >> 32 != 0);
        }
    }

    fn cmp(&self, other: &Big) -> Ordering {
        for (a, b) in self.limbs.iter().rev().zip(other.limbs.iter().rev()) {
            if a != b {
                return a.cmp(b);
            }
        }
        Ordering::Equal
    }
}

/// The shortest digits of a finite `v > 0` that read back as `v`, and `k`
/// with `v ≈ 0.d1d2… × 10^k`. Returns the digits (ASCII) and their count.
pub(crate) fn shortest(v: f64) -> ([u8; 17], usize, i32) {
    let bits = v.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (f, e) = if biased == 0 {
        (frac, -1074i32)
    } else {
        (frac | (1u64 << 52), biased.wrapping_sub(1075))
    };
    // An even mantissa's interval includes its ends: reading either end
    // back rounds to `v` (ties to even).
    let even = f & 1 == 0;
    // v = mant·2^exp with neighbours at mant ± minus/plus: half an ulp
    // either side, or a quarter below a power of two (as core decodes it).
    let (mant, minus, plus, exp) = if biased != 0 && frac == 0 {
        (f << 2, 1u64, 2u64, e.wrapping_sub(2))
    } else {
        (f << 1, 1u64, 1u64, e.wrapping_sub(1))
    };
    // k from log10(mant + plus) + exp·log10(2): the true one or one less.
    let nbits = 64i64.wrapping_sub(i64::from(
        mant.wrapping_add(plus).wrapping_sub(1).leading_zeros(),
    ));
    let mut k = (nbits
        .wrapping_add(i64::from(exp))
        .wrapping_mul(1_292_913_986)
        >> 32) as i32;

    let (mut r, mut low, mut high, mut s) =
        (Big::new(mant), Big::new(minus), Big::new(plus), Big::new(1));
    if exp >= 0 {
        r.mul_pow2(exp.unsigned_abs());
        low.mul_pow2(exp.unsigned_abs());
        high.mul_pow2(exp.unsigned_abs());
    } else {
        s.mul_pow2(exp.unsigned_abs());
    }
    if k >= 0 {
        s.mul_pow10(k.unsigned_abs());
    } else {
        r.mul_pow10(k.unsigned_abs());
        low.mul_pow10(k.unsigned_abs());
        high.mul_pow10(k.unsigned_abs());
    }
    // The estimate one low: v + plus reaches 10^k, so the first digit
    // would be 10.
    let fix = match s.cmp(&r.add(&high)) {
        Ordering::Less => true,
        Ordering::Equal => even,
        Ordering::Greater => false,
    };
    if fix {
        s.mul_small(10);
        k = k.wrapping_add(1);
    }

    let mut digits = [b'0'; 17];
    let mut n = 0usize;
    loop {
        r.mul_small(10);
        low.mul_small(10);
        high.mul_small(10);
        let mut d = 0u8;
        while r.cmp(&s) != Ordering::Less && d < 9 {
            r.sub(&s);
            d = d.wrapping_add(1);
        }
        let down = match r.cmp(&low) {
            Ordering::Less => true,
            Ordering::Equal => even,
            Ordering::Greater => false,
        };
        let up = match r.add(&high).cmp(&s) {
            Ordering::Greater => true,
            Ordering::Equal => even,
            Ordering::Less => false,
        };
        if let Some(slot) = digits.get_mut(n) {
            *slot = b'0'.wrapping_add(d);
        }
        n = n.wrapping_add(1);
        if !down && !up && n < digits.len() {
            continue;
        }
        // Two candidates: the nearer, up on a tie (as core's Dragon).
        let round_up = match (down, up) {
            (true, false) => false,
            (false, true) => true,
            // Both candidates, or the digits ran out: the nearer.
            (true, true) | (false, false) => r.add(&r).cmp(&s) != Ordering::Less,
        };
        if round_up {
            round_last_up(&mut digits, &mut n, &mut k);
        }
        return (digits, n, k);
    }
}

/// Adds one to the last of the `n` digits, carrying; an all-9 prefix
/// becomes `1` with `k` one higher. Trailing zeros are dropped.
fn round_last_up(digits: &mut [u8; 17], n: &mut usize, k: &mut i32) {
    let mut i = *n;
    loop {
        let Some(j) = i.checked_sub(1) else {
            // Every digit carried: 0.99… × 10^k became 0.1 × 10^(k+1).
            if let Some(first) = digits.get_mut(0) {
                *first = b'1';
            }
            *n = 1;
            *k = k.wrapping_add(1);
            return;
        };
        match digits.get_mut(j) {
            Some(d) if *d == b'9' => {
                i = j;
            }
            Some(d) => {
                *d = d.wrapping_add(1);
                *n = j.wrapping_add(1);
                return;
            }
            None => return,
        }
    }
}

#[cfg(test)]
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used
)]
mod tests {
    extern crate std;
    use super::shortest;
    use std::format;
    use std::string::String;

    /// `{:e}`'s digits and `k` (its exponent + 1).
    fn core_digits(v: f64) -> (String, i32) {
        let text = format!("{v:e}");
        let (mant, exp) = text.split_once('e').unwrap_or((&text, "0"));
        let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
        (digits, exp.parse::<i32>().unwrap_or(0) + 1)
    }

    fn ours(v: f64) -> (String, i32) {
        let (digits, n, k) = shortest(v);
        (String::from_utf8_lossy(&digits[..n]).into_owned(), k)
    }

    #[test]
    fn the_digits_are_core_fmts_on_edge_values() {
        let edges = [
            5e-324,
            1e-323,
            2.2250738585072014e-308,
            2.225073858507201e-308,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::EPSILON,
            1.0,
            0.1,
            0.3,
            2.0,
            1e21,
            1e22,
            1e23,
            9007199254740993.0,
            123.456,
            5e-310,
            0.5,
            9.5,
            1e-7,
            4.35,
            1.7976931348623157e308,
        ];
        for v in edges {
            assert_eq!(ours(v), core_digits(v), "{v:e}");
        }
        for e in -1074..=1023 {
            let v = 2f64.powi(e);
            if v > 0.0 && v.is_finite() {
                assert_eq!(ours(v), core_digits(v), "2^{e}");
            }
        }
        for e in -323..=308 {
            let v: f64 = format!("1e{e}").parse().unwrap_or(1.0);
            assert_eq!(ours(v), core_digits(v), "1e{e}");
        }
    }

    #[test]
    fn the_digits_are_core_fmts_on_random_doubles() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut checked = 0;
        while checked < 60_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = f64::from_bits(x & !(1u64 << 63));
            if !v.is_finite() || v == 0.0 {
                continue;
            }
            assert_eq!(ours(v), core_digits(v), "{v:e} ({x:#x})");
            // Short decimals too (most JSON numbers are).
            let short = (x % 1_000_000) as f64 / 1000.0;
            if short > 0.0 {
                assert_eq!(ours(short), core_digits(short), "{short:e}");
            }
            checked += 1;
        }
    }
}
