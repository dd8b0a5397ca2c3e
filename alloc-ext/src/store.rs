//! The host's store ([`Grow`]): the core's rules over growable tables.
//!
//! The core keeps what its rules need (ids, open items, the 1.0 tables,
//! the JSON depth stack) in a [`Store`] it is given; its own,
//! [`Fixed`](agui_core::store::Fixed), is `heapless` arrays sized for a
//! microcontroller. [`Grow`] keeps the same things in `String`s, `Vec`s
//! and ordered maps that grow as a stream needs, so that a host folds what
//! the reference folds. The core's const generics stay upper bounds: each
//! container refuses an item past its bound exactly as the fixed one does
//! (the same `capacity` error, table and detail), and `usize::MAX` means
//! no bound. So a reader over `Grow` with a device's capacities gives the
//! device's verdicts (tested in `tests/props_store.rs`), and the client's
//! reader (feature `grow`; [`crate::client::UNBOUNDED`]) has no bound but
//! its depth limit ([`crate::client::DEPTH`], 512), the 1.0 tables'
//! (65,534 entries, 255 sub-agents) and the client's byte limits.
//!
//! Each container counts the heap bytes it holds in O(1) per change
//! (`heap_bytes`), which [`kept_bytes`](crate::client::Client::kept_bytes)
//! adds up.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::borrow::Borrow;
use core::fmt::Debug;
use core::mem::size_of;
use core::ops::{Deref, DerefMut};

use agui_core::store::{id_hash, Bits, IdSet, IdText, OwnerIndex, Seq, Store};

/// The host's store: every table grows as it needs to, up to the const
/// generic bound it is given (`usize::MAX`: none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Grow;

impl Store for Grow {
    type Str<const N: usize> = GrowText<N>;
    type Str16<const N: usize> = GrowText<N>;
    type Vec<T: Clone + Debug, const N: usize> = GrowList<T, N>;
    type Vec16<T: Clone + Debug, const N: usize> = GrowList<T, N>;
    type Bits<const N: usize> = GrowBits;
    type Level = u32;
    type Tally = usize;
    type Ids<const N: usize, const ID: usize> = GrowIds<N, ID>;
    type Index<const N: usize> = GrowIndex;

    fn bits<const N: usize>() -> GrowBits {
        GrowBits::default()
    }
}

/// A text of at most `N` bytes, on the heap.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct GrowText<const N: usize>(String);

impl<const N: usize> Deref for GrowText<N> {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl<const N: usize> Borrow<str> for GrowText<N> {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl<const N: usize> IdText for GrowText<N> {
    fn push_str(&mut self, s: &str) -> Result<(), ()> {
        if s.len() > N.saturating_sub(self.0.len()) {
            return Err(());
        }
        self.0.push_str(s);
        Ok(())
    }

    fn clear(&mut self) {
        self.0.clear();
    }

    fn truncate(&mut self, len: usize) {
        self.0.truncate(len);
    }

    fn as_str(&self) -> &str {
        &self.0
    }

    fn heap_bytes(&self) -> usize {
        self.0.capacity()
    }
}

/// A list of at most `N` items, on the heap.
#[derive(Debug, Clone)]
pub struct GrowList<T, const N: usize>(Vec<T>);

impl<T, const N: usize> Default for GrowList<T, N> {
    fn default() -> Self {
        GrowList(Vec::new())
    }
}

impl<T, const N: usize> Deref for GrowList<T, N> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<T, const N: usize> DerefMut for GrowList<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}

impl<T: Clone + Debug, const N: usize> Seq<T> for GrowList<T, N> {
    fn push(&mut self, item: T) -> Result<(), T> {
        if self.0.len() >= N {
            return Err(item);
        }
        self.0.push(item);
        Ok(())
    }

    fn pop(&mut self) -> Option<T> {
        self.0.pop()
    }

    fn insert(&mut self, at: usize, item: T) -> Result<(), T> {
        if self.0.len() >= N || at > self.0.len() {
            return Err(item);
        }
        self.0.insert(at, item);
        Ok(())
    }

    fn remove(&mut self, at: usize) -> T {
        self.0.remove(at)
    }

    fn clear(&mut self) {
        self.0.clear();
    }

    fn truncate(&mut self, len: usize) {
        self.0.truncate(len);
    }

    fn retain_mut(&mut self, keep: impl FnMut(&mut T) -> bool) {
        self.0.retain_mut(keep);
    }

    fn is_full(&self) -> bool {
        self.0.len() >= N
    }

    fn resize(&mut self, len: usize, value: T) -> Result<(), ()> {
        if len > N {
            return Err(());
        }
        self.0.resize(len, value);
        Ok(())
    }

    fn heap_bytes(&self) -> usize {
        self.0.capacity().saturating_mul(size_of::<T>())
    }
}

/// The tokenizer's container stack: the first 64 levels in a word of its
/// own (no allocation for a document of ordinary depth: a tokenizer is
/// made anew for every frame), deeper ones 64 a word on the heap.
#[derive(Debug, Clone, Default)]
pub struct GrowBits {
    first: u64,
    more: Vec<u64>,
}

impl Bits for GrowBits {
    fn object(&self, at: usize) -> bool {
        match (at / 64).checked_sub(1) {
            None => self.first.object(at),
            Some(word) => self
                .more
                .get(word)
                .is_some_and(|w| w.wrapping_shr((at % 64) as u32) & 1 == 1),
        }
    }

    fn set(&mut self, at: usize, object: bool) {
        let Some(word) = (at / 64).checked_sub(1) else {
            self.first.set(at, object);
            return;
        };
        if self.more.len() <= word {
            self.more.resize(word.saturating_add(1), 0);
        }
        if let Some(w) = self.more.get_mut(word) {
            w.set(at % 64, object);
        }
    }

    fn heap_bytes(&self) -> usize {
        self.more.capacity().saturating_mul(size_of::<u64>())
    }
}

/// What one id costs a [`GrowIds`] beside its bytes (counted twice: the
/// set keeps each id in its order and in its index): two map entries.
const ID_ENTRY: usize = 2 * (size_of::<String>() + size_of::<u64>());

/// The verifier's open ids on a host: in opening order (a sequence
/// number each) and by id, so that every lookup costs the id's length
/// times the log of the set's size, not the set's size. A position is the
/// sequence number.
#[derive(Debug, Clone, Default)]
pub struct GrowIds<const N: usize, const ID: usize> {
    order: BTreeMap<u64, GrowText<ID>>,
    index: BTreeMap<GrowText<ID>, u64>,
    next: u64,
    bytes: usize,
}

impl<const N: usize, const ID: usize> GrowIds<N, ID> {
    fn cost(id: &str) -> usize {
        id.len().saturating_mul(2).saturating_add(ID_ENTRY)
    }

    fn put(&mut self, at: u64, id: GrowText<ID>) {
        self.bytes = self.bytes.saturating_add(Self::cost(&id));
        self.index.insert(id.clone(), at);
        self.order.insert(at, id);
    }
}

impl<const N: usize, const ID: usize> IdSet for GrowIds<N, ID> {
    type Id = GrowText<ID>;

    fn contains(&self, id: &str) -> bool {
        self.index.contains_key(id)
    }

    fn insert(&mut self, id: &str) -> Result<(), ()> {
        if self.index.len() >= N {
            return Err(());
        }
        let mut text = GrowText::default();
        text.push_str(id)?;
        let at = self.next;
        self.next = self.next.wrapping_add(1);
        self.put(at, text);
        Ok(())
    }

    fn position(&self, id: &str) -> Option<usize> {
        self.index.get(id).map(|&at| at as usize)
    }

    fn remove(&mut self, id: &str) {
        if let Some(at) = self.index.remove(id) {
            self.order.remove(&at);
            self.bytes = self.bytes.saturating_sub(Self::cost(id));
        }
    }

    fn iter(&self) -> impl Iterator<Item = &str> {
        self.order.values().map(|t| t.as_str())
    }

    fn len(&self) -> usize {
        self.index.len()
    }

    fn clear(&mut self) {
        self.order.clear();
        self.index.clear();
        self.bytes = 0;
    }

    fn pop_last(&mut self) -> Option<GrowText<ID>> {
        let (_, id) = self.order.pop_last()?;
        self.index.remove(id.as_str());
        self.bytes = self.bytes.saturating_sub(Self::cost(&id));
        Some(id)
    }

    fn put_back(&mut self, at: usize, id: GrowText<ID>) -> Result<(), ()> {
        if self.index.len() >= N || self.index.contains_key(id.as_str()) {
            return Err(());
        }
        self.put(at as u64, id);
        Ok(())
    }

    fn heap_bytes(&self) -> usize {
        self.bytes
    }
}

/// The 1.0 owner tables' index on a host: open addressing with linear
/// probing, as the fixed one, but the slots double when half full (each
/// keeps its id's hash, so growing reads no id) and removal shifts back
/// the run after the hole. A lookup costs about the id's length, and an
/// insert is amortised O(1), however many ids the table holds.
#[derive(Debug, Clone, Default)]
pub struct GrowIndex {
    /// `(hash, position + 1)`; a position of 0 is a free slot. A power of
    /// two long (or empty).
    slots: Vec<(u32, u32)>,
    used: usize,
}

impl GrowIndex {
    fn mask(&self) -> usize {
        self.slots.len().wrapping_sub(1)
    }

    /// The slots from `hash`'s home up to (not past) the first free one.
    fn run(&self, hash: u32) -> impl Iterator<Item = usize> + '_ {
        let mask = self.mask();
        let start = (hash as usize) & mask;
        (0..self.slots.len())
            .map(move |i| start.wrapping_add(i) & mask)
            .take_while(|&s| self.slots.get(s).is_some_and(|v| v.1 != 0))
    }

    fn slot_of(&self, id: &str, at: usize) -> Option<usize> {
        let want = u32::try_from(at.checked_add(1)?).ok()?;
        let hash = id_hash(id) as u32;
        self.run(hash)
            .find(|&s| self.slots.get(s).is_some_and(|v| v.1 == want))
    }

    fn place(&mut self, hash: u32, value: u32) {
        let mask = self.mask();
        let start = (hash as usize) & mask;
        for i in 0..self.slots.len() {
            if let Some(slot) = self.slots.get_mut(start.wrapping_add(i) & mask) {
                if slot.1 == 0 {
                    *slot = (hash, value);
                    return;
                }
            }
        }
    }

    /// Doubles the slots (8 at first) and places every entry again.
    fn grow(&mut self) {
        let size = self.slots.len().saturating_mul(2).max(8);
        let old = core::mem::replace(&mut self.slots, alloc::vec![(0, 0); size]);
        for (hash, value) in old.into_iter().filter(|v| v.1 != 0) {
            self.place(hash, value);
        }
    }
}

impl OwnerIndex for GrowIndex {
    fn candidates(&self, id: &str) -> impl Iterator<Item = usize> + '_ {
        let hash = id_hash(id) as u32;
        self.run(hash).filter_map(move |s| {
            let (h, value) = *self.slots.get(s)?;
            (h == hash).then(|| (value as usize).wrapping_sub(1))
        })
    }

    fn holds(&self, id: &str, at: usize) -> bool {
        self.slot_of(id, at).is_some()
    }

    fn insert(&mut self, id: &str, at: usize) {
        let Ok(value) = u32::try_from(at.saturating_add(1)) else {
            return;
        };
        if self.used.saturating_add(1).saturating_mul(2) > self.slots.len() {
            self.grow();
        }
        self.place(id_hash(id) as u32, value);
        self.used = self.used.saturating_add(1);
    }

    fn relabel(&mut self, id: &str, at: usize, to: usize) {
        let slot = self.slot_of(id, at);
        let value = u32::try_from(to.saturating_add(1));
        if let (Some(slot), Ok(v)) = (slot.and_then(|s| self.slots.get_mut(s)), value) {
            slot.1 = v;
        }
    }

    fn remove(&mut self, id: &str, at: usize, _hash_at: impl Fn(usize) -> Option<usize>) {
        let Some(mut hole) = self.slot_of(id, at) else {
            return;
        };
        let mask = self.mask();
        let mut next = hole;
        for _ in 0..self.slots.len() {
            next = next.wrapping_add(1) & mask;
            let Some(&(hash, value)) = self.slots.get(next).filter(|v| v.1 != 0) else {
                break;
            };
            let home = (hash as usize) & mask;
            // Cyclic distances to `next`: the entry may fill the hole
            // unless its home lies after the hole.
            let from = |s: usize| next.wrapping_sub(s) & mask;
            if from(home) >= from(hole) {
                if let Some(slot) = self.slots.get_mut(hole) {
                    *slot = (hash, value);
                }
                hole = next;
            }
        }
        if let Some(slot) = self.slots.get_mut(hole) {
            *slot = (0, 0);
        }
        self.used = self.used.saturating_sub(1);
    }

    fn heap_bytes(&self) -> usize {
        self.slots
            .capacity()
            .saturating_mul(size_of::<(u32, u32)>())
    }
}
