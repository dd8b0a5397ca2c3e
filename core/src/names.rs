//! Looking up a wire name (an event type, a field) in a fixed table.
//!
//! A `match` on byte strings compiles to a chain of length tests and
//! comparisons, one per name: fast, but about 40 bytes of code per name
//! (2.6 KB of a Cortex-M image for the field and event-type tables). A
//! [`NameIndex`] is a perfect hash over the table's names, found at compile
//! time: a lookup hashes a few bytes of the name, reads one slot and
//! compares one name. The same speed, in a few hundred bytes of table.
//!
//! The hash reads the length and the bytes at five positions (first,
//! second, middle, second last, last). If a new name makes two names agree
//! on all of these, or no seed separates them, the build fails (a `const`
//! panic naming this module), never the lookup.

/// A perfect hash over a table of fewer than `SLOTS` names; `SLOTS` is a
/// power of two (2 to 256), a few times the number of names.
#[derive(Debug)]
pub(crate) struct NameIndex<const SLOTS: usize> {
    /// The seed that separates every name of the table.
    seed: u32,
    /// For each hash value, the name's position in the table plus one
    /// (0: no name hashes there).
    slots: [u8; SLOTS],
}

/// The byte at `i`, or 0 past the end (names shorter than the positions
/// read).
const fn byte(name: &[u8], i: usize) -> u32 {
    match name.split_at_checked(i) {
        Some((_, [b, ..])) => *b as u32,
        _ => 0,
    }
}

/// The slot of `name` under `seed` among `1 << bits` (FNV-1a-style mixing
/// of the length and five bytes).
const fn slot(name: &[u8], seed: u32, bits: u32) -> usize {
    let n = name.len();
    let last = n.saturating_sub(1);
    let parts = [
        n as u32,
        byte(name, 0),
        byte(name, 1),
        byte(name, n / 2),
        byte(name, last.saturating_sub(1)),
        byte(name, last),
    ];
    let mut h = seed ^ 0x811c_9dc5;
    let mut rest: &[u32] = &parts;
    while let [part, tail @ ..] = rest {
        h = (h ^ *part).wrapping_mul(0x0100_0193);
        rest = tail;
    }
    // The top bits mix best.
    h.wrapping_shr(32u32.wrapping_sub(bits)) as usize
}

// Building runs at compile time only (the indexes are `static` items):
// an index out of range or the panic below is a build error, not a
// failure at run time.
#[allow(
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]
impl<const SLOTS: usize> NameIndex<SLOTS> {
    /// log2 of `SLOTS`.
    const BITS: u32 = SLOTS.trailing_zeros();

    /// Builds the index of `names` (at compile time: a `static` item).
    ///
    /// # Panics
    /// At compile time, if `SLOTS` is not a power of two from 2 to 256,
    /// the table has `SLOTS` names or more, or no seed below 1,000,000
    /// separates them.
    pub(crate) const fn new(names: &[&str]) -> Self {
        assert!(
            SLOTS.is_power_of_two() && SLOTS >= 2 && SLOTS <= 256,
            "names: SLOTS must be a power of two from 2 to 256"
        );
        assert!(
            names.len() < SLOTS,
            "names: a NameIndex holds fewer names than slots"
        );
        let mut seed = 0;
        while seed < 1_000_000 {
            if let Some(slots) = Self::place(names, seed) {
                return NameIndex { seed, slots };
            }
            seed += 1;
        }
        panic!("names: no seed separates the table's names; read more bytes in `slot`");
    }

    /// The slots of `names` under `seed`, or `None` if two collide.
    const fn place(names: &[&str], seed: u32) -> Option<[u8; SLOTS]> {
        let mut slots = [0u8; SLOTS];
        let mut i = 0;
        while i < names.len() {
            // `slot` is below SLOTS (seven bits).
            let s = slot(names[i].as_bytes(), seed, Self::BITS);
            if slots[s] != 0 {
                return None;
            }
            // i < SLOTS <= 256, checked by `new`.
            slots[s] = (i + 1) as u8;
            i += 1;
        }
        Some(slots)
    }
}

impl<const SLOTS: usize> NameIndex<SLOTS> {
    /// The position of `name` in `names` (the table the index was built
    /// from), if it is there.
    #[inline]
    pub(crate) fn find(&self, names: &[&str], name: &[u8]) -> Option<usize> {
        let at = usize::from(*self.slots.get(slot(name, self.seed, Self::BITS))?);
        let i = at.checked_sub(1)?;
        (names.get(i)?.as_bytes() == name).then_some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: &[&str] = &["type", "messageId", "delta", "", "a", "toolCallId"];
    const INDEX: NameIndex<16> = NameIndex::new(NAMES);

    #[test]
    fn finds_every_name_of_the_table() {
        for (i, name) in NAMES.iter().enumerate() {
            assert_eq!(INDEX.find(NAMES, name.as_bytes()), Some(i), "{name}");
        }
    }

    #[test]
    fn other_names_are_not_found() {
        for name in [
            "Type",
            "typ",
            "types",
            "messageid",
            "b",
            "toolCallIx",
            "deltadelta",
        ] {
            assert_eq!(INDEX.find(NAMES, name.as_bytes()), None, "{name}");
        }
    }
}
