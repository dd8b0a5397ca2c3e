//! Number formatting without `core::fmt` (which would cost flash).

/// Writes `n` in decimal into the end of `buf` (10 digits hold any `u32`);
/// returns the digits, e.g. `b"4096"`.
pub fn decimal(mut n: u32, buf: &mut [u8; 10]) -> &[u8] {
    let mut start = buf.len();
    for slot in buf.iter_mut().rev() {
        // `n % 10` is below 10, so the cast cannot cut.
        *slot = b'0' + (n % 10) as u8;
        n /= 10;
        start -= 1;
        if n == 0 {
            break;
        }
    }
    buf.get(start..).unwrap_or_default()
}
