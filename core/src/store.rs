//! Storage: where the reader keeps what it must remember (ids, open
//! items, the 1.0 tables, the JSON depth stack), chosen apart from the
//! rules that read and change it.
//!
//! Every stage of the core is written once, over a [`Store`]: the
//! tokenizer, the decoder's id slots, the chunk expander, the verifier and
//! the 1.0 tables. [`Fixed`] (the default, and the only store of the core)
//! keeps everything in `heapless` arrays whose sizes are the const
//! generics of [`Pipeline`](crate::pipeline::Pipeline): no heap, memory
//! fixed at compile time, and one item past a capacity is a `capacity`
//! error. `agui-alloc` adds a growable store (`Vec`, `String`) for hosts,
//! where the same const generics are upper bounds that may be
//! `usize::MAX` (no bound): the rules, their order and their errors are
//! the same code, so a growable store capped at the fixed capacities gives
//! the fixed store's verdicts exactly (SPEC 7, "Host and device").
//!
//! The traits below are the few container operations the stages use, with
//! `heapless`'s signatures, so that the fixed store is `heapless` itself.

use core::fmt::Debug;
use core::ops::{Deref, DerefMut};

/// A store: the container types every stage of the core uses.
pub trait Store: Clone + Copy + Debug + Default + PartialEq + Eq + 'static {
    /// A text of at most `N` bytes (an id slot).
    type Str<const N: usize>: IdText;
    /// A text of at most `N` bytes whose length is a `u16` (the 1.0
    /// tables, where it saves RAM on a device).
    type Str16<const N: usize>: IdText;
    /// A list of at most `N` items.
    type Vec<T: Clone + Debug, const N: usize>: Seq<T>;
    /// A list of at most `N` items whose length is a `u16`.
    type Vec16<T: Clone + Debug, const N: usize>: Seq<T>;
    /// The JSON tokenizer's container stack for `N` levels: one bit per
    /// open container (object or array).
    type Bits<const N: usize>: Bits;
    /// The tokenizer's nesting level (`u8` on a device).
    type Level: Level;
    /// A running count of bytes (nothing on a device: `()`).
    type Tally: Tally;
    /// The verifier's set of open ids (text messages, tool calls or
    /// steps): at most `N` ids of at most `ID` bytes, in the order they
    /// opened.
    type Ids<const N: usize, const ID: usize>: IdSet<Id = Self::Str<ID>>;
    /// The 1.0 owner tables' index: where each of at most `N` ids sits in
    /// its table (positions below 65,535).
    type Index<const N: usize>: OwnerIndex;

    /// An empty container stack. The fixed store fails to compile for
    /// more levels than its 64-bit stack holds.
    fn bits<const N: usize>() -> Self::Bits<N>;
}

/// A text with a capacity (see [`Store::Str`]).
pub trait IdText: Deref<Target = str> + Default + Clone + Debug + PartialEq + Eq {
    /// Appends `s`; `Err(())` (and no change) if it does not fit.
    #[allow(clippy::result_unit_err)]
    fn push_str(&mut self, s: &str) -> Result<(), ()>;
    /// Empties the text.
    fn clear(&mut self);
    /// Cuts the text to `len` bytes (a char boundary).
    fn truncate(&mut self, len: usize);
    /// The text.
    fn as_str(&self) -> &str;
    /// The bytes this text keeps beside its own size (0 in a fixed slot):
    /// what a growable store counts in `kept_bytes`.
    fn heap_bytes(&self) -> usize;
}

/// A list with a capacity (see [`Store::Vec`]).
pub trait Seq<T>: Deref<Target = [T]> + DerefMut + Default + Clone + Debug {
    /// Appends `item`; gives it back if the list is full.
    ///
    /// # Errors
    /// The item, when the list is full.
    fn push(&mut self, item: T) -> Result<(), T>;
    /// Removes the last item.
    fn pop(&mut self) -> Option<T>;
    /// Inserts `item` at `at` (at most the length); gives it back if the
    /// list is full.
    ///
    /// # Errors
    /// The item, when the list is full.
    fn insert(&mut self, at: usize, item: T) -> Result<(), T>;
    /// Removes the item at `at`, keeping the order (the caller checked
    /// that it is there).
    fn remove(&mut self, at: usize) -> T;
    /// Removes every item.
    fn clear(&mut self);
    /// Keeps the first `len` items.
    fn truncate(&mut self, len: usize);
    /// Keeps the items `keep` says yes to, in order.
    fn retain_mut(&mut self, keep: impl FnMut(&mut T) -> bool);
    /// True when one more item does not fit.
    fn is_full(&self) -> bool;
    /// Grows to `len` items, filling with `value`.
    ///
    /// # Errors
    /// `Err(())` when `len` is past the capacity.
    #[allow(clippy::result_unit_err)]
    fn resize(&mut self, len: usize, value: T) -> Result<(), ()>
    where
        T: Clone;
    /// The bytes this list keeps beside its own size (0 in a fixed list).
    fn heap_bytes(&self) -> usize;
}

/// An insertion-ordered set of ids (see [`Store::Ids`]). A position
/// ([`position`](IdSet::position)) is the store's own mark of where an id
/// sits, which [`put_back`](IdSet::put_back) takes to restore the order.
pub trait IdSet: Default + Clone + Debug {
    /// An id as the set keeps it.
    type Id: IdText;
    /// True if `id` is in the set.
    fn contains(&self, id: &str) -> bool;
    /// Adds `id` last; `Err(())` (and no change) if the set is full or the
    /// id too long.
    #[allow(clippy::result_unit_err)]
    fn insert(&mut self, id: &str) -> Result<(), ()>;
    /// Where `id` sits.
    fn position(&self, id: &str) -> Option<usize>;
    /// Removes `id`, keeping the others in order.
    fn remove(&mut self, id: &str);
    /// The ids, oldest first.
    fn iter(&self) -> impl Iterator<Item = &str>;
    /// How many ids.
    fn len(&self) -> usize;
    /// True when there is no id.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Removes every id.
    fn clear(&mut self);
    /// Removes the newest id.
    fn pop_last(&mut self) -> Option<Self::Id>;
    /// Puts `id` back where [`position`](IdSet::position) said it was.
    #[allow(clippy::result_unit_err)]
    fn put_back(&mut self, at: usize, id: Self::Id) -> Result<(), ()>;
    /// The bytes the set keeps beside its own size (0 when fixed).
    fn heap_bytes(&self) -> usize;
}

/// The fixed store's id set: a list searched from the oldest (a device's
/// tables hold a few ids). A position is an index.
#[derive(Debug, Clone, Default)]
pub struct FixedIds<const N: usize, const ID: usize> {
    ids: heapless::Vec<heapless::String<ID>, N>,
}

impl<const N: usize, const ID: usize> IdSet for FixedIds<N, ID> {
    type Id = heapless::String<ID>;

    fn contains(&self, id: &str) -> bool {
        self.ids.iter().any(|x| x.as_str() == id)
    }

    fn insert(&mut self, id: &str) -> Result<(), ()> {
        let mut slot = heapless::String::new();
        slot.push_str(id).map_err(drop)?;
        self.ids.push(slot).map_err(drop)
    }

    fn position(&self, id: &str) -> Option<usize> {
        self.ids.iter().position(|x| x.as_str() == id)
    }

    fn remove(&mut self, id: &str) {
        if let Some(at) = self.position(id) {
            self.ids.remove(at);
        }
    }

    fn iter(&self) -> impl Iterator<Item = &str> {
        self.ids.iter().map(|s| s.as_str())
    }

    fn len(&self) -> usize {
        self.ids.len()
    }

    fn clear(&mut self) {
        self.ids.clear();
    }

    fn pop_last(&mut self) -> Option<Self::Id> {
        self.ids.pop()
    }

    fn put_back(&mut self, at: usize, id: Self::Id) -> Result<(), ()> {
        let at = at.min(self.ids.len());
        self.ids.insert(at, id).map_err(drop)
    }

    fn heap_bytes(&self) -> usize {
        0
    }
}

/// The 1.0 owner tables' hashed index over ids held elsewhere, by
/// position (see [`Store::Index`]). A lookup costs about the id's length,
/// however many ids are held.
pub trait OwnerIndex: Default + Clone + Debug {
    /// The positions `id`'s probe meets: those holding `id` among them
    /// (the caller compares the ids).
    fn candidates(&self, id: &str) -> impl Iterator<Item = usize> + '_;
    /// Whether position `at`, of id `id`, is in the index.
    fn holds(&self, id: &str, at: usize) -> bool;
    /// Enters position `at`, of id `id`.
    fn insert(&mut self, id: &str, at: usize);
    /// Position `at`, of id `id`, is now at `to`.
    fn relabel(&mut self, id: &str, at: usize, to: usize);
    /// Takes out position `at`, of id `id`; `hash_at` gives the
    /// [`id_hash`] of the id at a position.
    fn remove(&mut self, id: &str, at: usize, hash_at: impl Fn(usize) -> Option<usize>);
    /// The bytes the index keeps beside its own size (0 when fixed).
    fn heap_bytes(&self) -> usize;
}

/// FNV-1a: where an id's probe starts in an owner index.
pub fn id_hash(id: &str) -> usize {
    let h = id.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    h as usize
}

/// A hashed index over up to `N` ids held elsewhere (by position), so
/// that a lookup costs about the id's length however many ids are held.
/// `2 N` slots (as `N` pairs: stable Rust cannot size an array `2 * N`),
/// each 0 (free) or a position plus one, placed by linear probing from
/// the id's hash. At most half full, so a probe meets a free slot after
/// about two.
///
/// The slots are a `heapless::Vec` filled (zeroed) at the first insert,
/// not an array: a new pipeline then only sets lengths, which the
/// compiler does in place (zeroed arrays made it build the 1.0 tables on
/// the stack and copy them, doubling the 1.0 firmware's stack).
#[derive(Debug, Clone, Default)]
pub struct FixedIndex<const N: usize> {
    slots: heapless::Vec<[u16; 2], N, u16>,
}

impl<const N: usize> FixedIndex<N> {
    /// Positions plus one fit a `u16`.
    const FITS: () = assert!(N < u16::MAX as usize, "at most 65534 entries per 1.0 table");

    /// The slots in the order `id` probes them.
    fn probe_(id: &str) -> impl Iterator<Item = usize> {
        let size = N.saturating_mul(2);
        let start = id_hash(id).checked_rem(size).unwrap_or(0);
        (start..size).chain(0..start)
    }

    /// The positions `id`'s probe meets before a free slot: those holding
    /// `id` among them (the caller compares).
    fn candidates_(&self, id: &str) -> impl Iterator<Item = usize> + '_ {
        let slots = self.slots.as_flattened();
        Self::probe_(id).map_while(|s| slots.get(s).and_then(|v| usize::from(*v).checked_sub(1)))
    }

    /// The slot holding position `at`, of id `id`.
    fn slot_of_(&self, id: &str, at: usize) -> Option<usize> {
        let want = u16::try_from(at.checked_add(1)?).ok()?;
        let slots = self.slots.as_flattened();
        Self::probe_(id)
            .take_while(|s| slots.get(*s).is_some_and(|v| *v != 0))
            .find(|s| slots.get(*s) == Some(&want))
    }

    /// Enters position `at`, of id `id`.
    fn insert_(&mut self, id: &str, at: usize) {
        let () = Self::FITS;
        let Ok(value) = u16::try_from(at.saturating_add(1)) else {
            return;
        };
        // Once per table's life: every slot free.
        if self.slots.len() < N {
            let _ = self.slots.resize(N, [0; 2]);
        }
        let slots = self.slots.as_flattened_mut();
        if let Some(free) = Self::probe_(id).find(|s| slots.get(*s) == Some(&0)) {
            if let Some(slot) = slots.get_mut(free) {
                *slot = value;
            }
        }
    }

    /// Position `at`, of id `id`, is now at `to`.
    fn relabel_(&mut self, id: &str, at: usize, to: usize) {
        let slot = self.slot_of_(id, at);
        let slot = slot.and_then(|s| self.slots.as_flattened_mut().get_mut(s));
        if let (Some(slot), Ok(v)) = (slot, u16::try_from(to.saturating_add(1))) {
            *slot = v;
        }
    }

    /// Takes out position `at`, of id `id`; `hash_at` gives the hash of
    /// the id at a position. The positions after it in its probe run
    /// move back as far as their own probes allow, so that no probe meets
    /// a gap before their slots (backward-shift deletion).
    fn remove_(&mut self, id: &str, at: usize, hash_at: impl Fn(usize) -> Option<usize>) {
        let Some(mut hole) = self.slot_of_(id, at) else {
            return;
        };
        let size = N.saturating_mul(2);
        let slots = self.slots.as_flattened_mut();
        let mut next = hole;
        for _ in 0..size {
            next = next.wrapping_add(1).checked_rem(size).unwrap_or(0);
            let Some(value) = slots.get(next).copied().filter(|v| *v != 0) else {
                break;
            };
            let home = hash_at(usize::from(value).wrapping_sub(1))
                .and_then(|h| h.checked_rem(size))
                .unwrap_or(next);
            // Cyclic distances to `next`: the position may fill the hole
            // unless its home lies after the hole.
            let from = |s: usize| next.wrapping_add(size).wrapping_sub(s).checked_rem(size);
            if from(home) >= from(hole) {
                if let Some(slot) = slots.get_mut(hole) {
                    *slot = value;
                }
                hole = next;
            }
        }
        if let Some(slot) = slots.get_mut(hole) {
            *slot = 0;
        }
    }
}

impl<const N: usize> OwnerIndex for FixedIndex<N> {
    #[inline]
    fn candidates(&self, id: &str) -> impl Iterator<Item = usize> + '_ {
        self.candidates_(id)
    }

    #[inline]
    fn holds(&self, id: &str, at: usize) -> bool {
        self.slot_of_(id, at).is_some()
    }

    #[inline]
    fn insert(&mut self, id: &str, at: usize) {
        self.insert_(id, at);
    }

    #[inline]
    fn relabel(&mut self, id: &str, at: usize, to: usize) {
        self.relabel_(id, at, to);
    }

    #[inline]
    fn remove(&mut self, id: &str, at: usize, hash_at: impl Fn(usize) -> Option<usize>) {
        self.remove_(id, at, hash_at);
    }

    fn heap_bytes(&self) -> usize {
        0
    }
}

/// A running count of the bytes a growable table holds beside its own
/// size, kept as it changes (see [`Store::Tally`]).
pub trait Tally: Copy + Clone + Debug + Default {
    /// `n` bytes more.
    fn add(&mut self, n: usize);
    /// `n` bytes fewer.
    fn sub(&mut self, n: usize);
    /// The count.
    fn get(self) -> usize;
}

/// No count: a fixed table's memory is its size.
impl Tally for () {
    #[inline(always)]
    fn add(&mut self, _: usize) {}
    #[inline(always)]
    fn sub(&mut self, _: usize) {}
    #[inline(always)]
    fn get(self) -> usize {
        0
    }
}

/// A growable store's count.
impl Tally for usize {
    #[inline(always)]
    fn add(&mut self, n: usize) {
        *self = self.saturating_add(n);
    }
    #[inline(always)]
    fn sub(&mut self, n: usize) {
        *self = self.saturating_sub(n);
    }
    #[inline(always)]
    fn get(self) -> usize {
        self
    }
}

/// The tokenizer's container stack: bit `i` says whether level `i + 1`
/// is an object.
pub trait Bits: Clone + Debug {
    /// Whether level `at + 1` is an object.
    fn object(&self, at: usize) -> bool;
    /// Marks level `at + 1` as an object or an array.
    fn set(&mut self, at: usize, object: bool);
    /// The bytes the stack keeps beside its own size (0 when fixed).
    fn heap_bytes(&self) -> usize;
}

/// The tokenizer's nesting level.
pub trait Level: Copy + Clone + Debug + Default + PartialEq + Eq {
    /// The level as a number.
    fn get(self) -> usize;
    /// One deeper (the caller checked the limit).
    #[must_use]
    fn up(self) -> Self;
    /// One shallower (0 stays 0).
    #[must_use]
    fn down(self) -> Self;
}

/// The core's store: `heapless` arrays sized by the const generics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fixed;

impl Store for Fixed {
    type Str<const N: usize> = heapless::String<N>;
    type Str16<const N: usize> = heapless::String<N, u16>;
    type Vec<T: Clone + Debug, const N: usize> = heapless::Vec<T, N>;
    type Vec16<T: Clone + Debug, const N: usize> = heapless::Vec<T, N, u16>;
    type Bits<const N: usize> = u64;
    type Level = u8;
    type Tally = ();
    type Ids<const N: usize, const ID: usize> = FixedIds<N, ID>;
    type Index<const N: usize> = FixedIndex<N>;

    #[inline(always)]
    fn bits<const N: usize>() -> u64 {
        const { assert!(N <= 64, "Tokenizer DEPTH must be at most 64") };
        0
    }
}

macro_rules! fixed_text {
    ($len:ty) => {
        impl<const N: usize> IdText for heapless::String<N, $len> {
            #[inline(always)]
            fn push_str(&mut self, s: &str) -> Result<(), ()> {
                heapless::String::push_str(self, s).map_err(drop)
            }
            #[inline(always)]
            fn clear(&mut self) {
                heapless::String::clear(self);
            }
            #[inline(always)]
            fn truncate(&mut self, len: usize) {
                heapless::String::truncate(self, len);
            }
            #[inline(always)]
            fn as_str(&self) -> &str {
                heapless::String::as_str(self)
            }
            #[inline(always)]
            fn heap_bytes(&self) -> usize {
                0
            }
        }
    };
}
fixed_text!(usize);
fixed_text!(u16);

macro_rules! fixed_seq {
    ($len:ty) => {
        impl<T: Clone + Debug, const N: usize> Seq<T> for heapless::Vec<T, N, $len> {
            #[inline(always)]
            fn push(&mut self, item: T) -> Result<(), T> {
                heapless::Vec::push(self, item)
            }
            #[inline(always)]
            fn pop(&mut self) -> Option<T> {
                heapless::Vec::pop(self)
            }
            #[inline(always)]
            fn insert(&mut self, at: usize, item: T) -> Result<(), T> {
                heapless::Vec::insert(self, at, item)
            }
            #[inline(always)]
            fn remove(&mut self, at: usize) -> T {
                heapless::Vec::remove(self, at)
            }
            #[inline(always)]
            fn clear(&mut self) {
                heapless::Vec::clear(self);
            }
            #[inline(always)]
            fn truncate(&mut self, len: usize) {
                heapless::Vec::truncate(self, len);
            }
            #[inline(always)]
            fn retain_mut(&mut self, keep: impl FnMut(&mut T) -> bool) {
                heapless::Vec::retain_mut(self, keep);
            }
            #[inline(always)]
            fn is_full(&self) -> bool {
                heapless::Vec::is_full(self)
            }
            #[inline(always)]
            fn resize(&mut self, len: usize, value: T) -> Result<(), ()> {
                heapless::Vec::resize(self, len, value).map_err(drop)
            }
            #[inline(always)]
            fn heap_bytes(&self) -> usize {
                0
            }
        }
    };
}
fixed_seq!(usize);
fixed_seq!(u16);

impl Bits for u64 {
    #[inline(always)]
    fn object(&self, at: usize) -> bool {
        // `at` < 64: the tokenizer checked its depth limit.
        self.wrapping_shr(at as u32) & 1 == 1
    }

    #[inline(always)]
    fn set(&mut self, at: usize, object: bool) {
        let bit = 1u64.wrapping_shl(at as u32);
        if object {
            *self |= bit;
        } else {
            *self &= !bit;
        }
    }

    #[inline(always)]
    fn heap_bytes(&self) -> usize {
        0
    }
}

impl Level for u8 {
    #[inline(always)]
    fn get(self) -> usize {
        usize::from(self)
    }

    #[inline(always)]
    fn up(self) -> Self {
        self.wrapping_add(1)
    }

    #[inline(always)]
    fn down(self) -> Self {
        self.saturating_sub(1)
    }
}

/// A growable store's level (a host's nesting limit may pass 255).
impl Level for u32 {
    #[inline(always)]
    fn get(self) -> usize {
        self as usize
    }

    #[inline(always)]
    fn up(self) -> Self {
        self.wrapping_add(1)
    }

    #[inline(always)]
    fn down(self) -> Self {
        self.saturating_sub(1)
    }
}
