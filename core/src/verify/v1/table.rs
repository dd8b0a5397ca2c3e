//! The owner tables' storage: entries in first-mention order with a
//! hashed index over their ids ([`HashIndex`]).

use super::{Full, Id, Owner, FRESH, LOOSE, PENDING, SEED, TOUCHED};
use crate::store::{IdText as _, OwnerIndex as _, Seq as _, Store, Tally as _};

/// One owner entry: the id, its owner, and (reasoning) what is open.
#[derive(Debug, Clone)]
pub(super) struct Entry<const ID: usize, S: Store> {
    pub(super) id: Id<ID, S>,
    pub(super) owner: Owner,
    /// Open flags (reasoning) and seeding flags.
    pub(super) open: u8,
    /// The owner the frame being read seeds for a known id (or for a
    /// second mention): applied if the frame is a snapshot.
    pub(super) seeded: Option<Owner>,
}

impl<const ID: usize, S: Store> Entry<ID, S> {
    pub(super) fn seed(open: u8) -> Self {
        Entry {
            id: Default::default(),
            owner: None,
            open,
            seeded: None,
        }
    }
}

pub(super) use crate::store::id_hash as hash;

/// An owner table: ids in first-mention order, with a hashed index so
/// that a lookup costs about the id's length however many ids the run
/// holds, and the frame's seeding remembered (`touched`, `base`) so that
/// `discard` and `commit` visit only what the frame seeded: no event's
/// cost grows with the entries held.
#[derive(Debug, Clone)]
pub(super) struct HashIndex<const ID: usize, const N: usize, S: Store> {
    pub(super) entries: S::Vec16<Entry<ID, S>, N>,
    /// Every entry but a `LOOSE` one (at most one: the last).
    pub(super) index: S::Index<N>,
    /// The entries before `base` the frame's seeding marked, each once
    /// (flagged `TOUCHED`); from `base` on, all entries are the frame's.
    pub(super) touched: S::Vec16<u16, N>,
    /// The length when the frame began seeding: seeding adds and removes
    /// entries only from there on.
    pub(super) base: u16,
    /// The bytes of the indexed ids (a growable store's; the one loose
    /// entry counts once sealed).
    pub(super) bytes: S::Tally,
}

impl<const ID: usize, const N: usize, S: Store> HashIndex<ID, N, S> {
    pub(super) fn new() -> Self {
        HashIndex {
            entries: Default::default(),
            index: Default::default(),
            touched: Default::default(),
            base: 0,
            bytes: Default::default(),
        }
    }

    /// The first entry (by position) holding `id` that `pick` accepts:
    /// what a scan of the entries would find.
    pub(super) fn find(
        &self,
        id: &str,
        pick: impl Fn(usize, &Entry<ID, S>) -> bool,
    ) -> Option<usize> {
        let hit = |at: &usize| {
            self.entries
                .get(*at)
                .is_some_and(|e| e.id.as_str() == id && pick(*at, e))
        };
        let first = self.index.candidates(id).filter(hit).min();
        if first.is_some() {
            return first;
        }
        // The loose entry, if any, is the last and not in the index.
        let last = self.entries.len().checked_sub(1)?;
        self.entries
            .last()
            .filter(|e| e.open & LOOSE != 0 && e.id.as_str() == id && pick(last, e))
            .map(|_| last)
    }

    /// Whether entry `at` is in the index (it is not loose).
    #[cfg(test)]
    pub(super) fn indexed(&self, at: usize) -> bool {
        let id = self.entries.get(at).map_or("", |e| e.id.as_str());
        self.index.holds(id, at)
    }

    /// Enters entry `at` in the index.
    pub(super) fn index(&mut self, at: usize) {
        if let Some(e) = self.entries.get_mut(at) {
            e.open &= !LOOSE;
            self.bytes.add(e.id.heap_bytes());
            self.index.insert(&e.id, at);
        }
    }

    /// Takes entry `at` out of the index (nothing if it is loose).
    pub(super) fn unindex(&mut self, at: usize) {
        let entries = &self.entries;
        if let Some(e) = entries.get(at).filter(|e| e.open & LOOSE == 0) {
            let hash_at = |p: usize| entries.get(p).map(|e| hash(&e.id));
            self.bytes.sub(e.id.heap_bytes());
            self.index.remove(&e.id, at, hash_at);
        }
    }

    /// Adds an entry (indexed unless `LOOSE`); `Err` if the table is full.
    pub(super) fn push(&mut self, entry: Entry<ID, S>) -> Result<(), Entry<ID, S>> {
        self.seal();
        let loose = entry.open & LOOSE != 0;
        self.entries.push(entry)?;
        if !loose {
            self.index(self.entries.len().saturating_sub(1));
        }
        Ok(())
    }

    /// The last entry's id is complete: it enters the index if loose.
    pub(super) fn seal(&mut self) {
        if self.entries.last().is_some_and(|e| e.open & LOOSE != 0) {
            self.index(self.entries.len().saturating_sub(1));
        }
    }

    /// The last entry's id, to be written on (out of the index till sealed).
    pub(super) fn unseal(&mut self) -> Option<&mut Id<ID, S>> {
        let last = self.entries.len().checked_sub(1)?;
        if self.entries.last()?.open & LOOSE == 0 {
            self.unindex(last);
        }
        let e = self.entries.last_mut()?;
        e.open |= LOOSE;
        Some(&mut e.id)
    }

    pub(super) fn pop(&mut self) -> Option<Entry<ID, S>> {
        self.unindex(self.entries.len().checked_sub(1)?);
        self.entries.pop()
    }

    /// Keeps, from position `from` on, the entries `keep` accepts, in order.
    pub(super) fn retain_from(&mut self, from: usize, keep: impl Fn(&Entry<ID, S>) -> bool) {
        let mut to = from;
        for at in from..self.entries.len() {
            if !self.entries.get(at).is_some_and(&keep) {
                self.unindex(at);
                continue;
            }
            if at != to {
                // `to` holds a dropped entry, already out of the index.
                if let Some(e) = self.entries.get(at).filter(|e| e.open & LOOSE == 0) {
                    self.index.relabel(&e.id, at, to);
                }
                let run = self
                    .entries
                    .get_mut(to..=at)
                    .and_then(|r| r.split_first_mut());
                if let Some((a, b)) = run.and_then(|(a, rest)| Some((a, rest.last_mut()?))) {
                    core::mem::swap(a, b);
                }
            }
            to = to.saturating_add(1);
        }
        self.entries.truncate(to);
    }

    /// The bytes the table keeps beside its own size (0 when fixed): its
    /// entries, index and frame record, and the text of its indexed ids.
    pub(super) fn heap_bytes(&self) -> usize {
        self.entries
            .heap_bytes()
            .saturating_add(self.index.heap_bytes())
            .saturating_add(self.touched.heap_bytes())
            .saturating_add(self.bytes.get())
    }

    pub(super) fn base(&self) -> usize {
        usize::from(self.base)
    }

    /// The length, as the `u16` it fits (see `Index::FITS`).
    pub(super) fn len16(&self) -> u16 {
        u16::try_from(self.entries.len()).unwrap_or(u16::MAX)
    }

    /// Marks entry `at` as changed by the frame's seeding.
    pub(super) fn touch(&mut self, at: usize) {
        if at >= self.base() {
            return;
        }
        if let (Some(e), Ok(at)) = (self.entries.get_mut(at), u16::try_from(at)) {
            if e.open & TOUCHED == 0 {
                e.open |= TOUCHED;
                // Room: each entry before `base` is listed once at most.
                let _ = self.touched.push(at);
            }
        }
    }

    /// The frame begins seeding.
    pub(super) fn begin(&mut self) {
        self.base = self.len16();
    }

    /// Applies `f` to each entry the frame's seeding marked or made, and
    /// clears the frame's record.
    pub(super) fn each_seeded(&mut self, mut f: impl FnMut(&mut Entry<ID, S>)) {
        for at in self.touched.iter() {
            if let Some(e) = self.entries.get_mut(usize::from(*at)) {
                f(e);
                e.open &= !TOUCHED;
            }
        }
        self.touched.clear();
        let base = self.base();
        for e in self.entries.get_mut(base..).into_iter().flatten() {
            f(e);
        }
    }

    /// Drops what the frame seeded.
    pub(super) fn discard(&mut self) {
        self.retain_from(self.base(), |e| e.open & SEED == 0);
        self.each_seeded(|e| {
            e.seeded = None;
            e.open &= !(PENDING | FRESH);
        });
        self.base = self.len16();
    }

    /// Makes what the frame seeded count: a new id keeps its first seeded
    /// owner, or its last when `overwrite`; a known id takes its last
    /// seeded owner only when `overwrite`.
    pub(super) fn commit(&mut self, overwrite: bool) {
        self.each_seeded(|e| {
            if let (true, Some(owner)) = (overwrite, e.seeded) {
                e.owner = owner;
            }
            e.seeded = None;
            e.open &= !(SEED | PENDING | FRESH);
        });
        self.seal();
        self.base = self.len16();
    }

    /// A new run keeps only the entries the frame seeded; a known id the
    /// run's input mentions again is new to the run and takes the owner
    /// the input gives it.
    pub(super) fn new_run(&mut self) {
        for e in self.entries.iter_mut() {
            if let (0, Some(owner)) = (e.open & SEED, e.seeded.take()) {
                e.owner = owner;
                e.open |= SEED;
            }
            e.open &= !TOUCHED;
        }
        self.touched.clear();
        self.retain_from(0, |e| e.open & SEED != 0);
        // All that is left is the frame's, for `commit`.
        self.base = 0;
    }

    /// The committed entry of `id` (provisional ones do not count yet).
    pub(super) fn get(&self, id: &str) -> Option<&Entry<ID, S>> {
        let at = self.find(id, |_, e| e.open & SEED == 0)?;
        self.entries.get(at)
    }

    pub(super) fn get_mut(&mut self, id: &str) -> Option<&mut Entry<ID, S>> {
        let at = self.find(id, |_, e| e.open & SEED == 0)?;
        self.entries.get_mut(at)
    }

    pub(super) fn owner(&self, id: &str) -> Option<Owner> {
        self.get(id).map(|e| e.owner)
    }

    /// The other entry (committed or seeded) with the last entry's id.
    pub(super) fn twin_of_last(&self) -> Option<usize> {
        let last = self.entries.len().checked_sub(1)?;
        let id = self.entries.last()?.id.as_str();
        self.find(id, |at, _| at != last)
    }

    /// Makes sure `id` has an entry (owner `owner` if new, or always when
    /// `overwrite`); `Err` if the table or the slot is too small.
    pub(super) fn record(&mut self, id: &str, owner: Owner, overwrite: bool) -> Result<(), Full> {
        if let Some(e) = self.get_mut(id) {
            if overwrite {
                e.owner = owner;
            }
            return Ok(());
        }
        let mut slot: Id<ID, S> = Default::default();
        slot.push_str(id).map_err(|_| Full::Slot)?;
        self.push(Entry {
            id: slot,
            owner,
            open: 0,
            seeded: None,
        })
        .map_err(|_| Full::Table)
    }

    pub(super) fn is_open(&self, id: &str, flag: u8) -> bool {
        self.get(id).is_some_and(|e| e.open & flag != 0)
    }

    /// Opens or closes `flag` on `id`'s entry; whether that changed it.
    pub(super) fn set_open(&mut self, id: &str, flag: u8, open: bool) -> bool {
        let at = self.find(id, |_, e| e.open & SEED == 0);
        match at.and_then(|at| self.entries.get_mut(at)) {
            Some(e) if (e.open & flag != 0) != open => {
                e.open ^= flag;
                true
            }
            Some(_) | None => false,
        }
    }

    /// Back to `len` entries (those after it leave the index), the last
    /// one loose again if it was (`loose`): undoes the pushes of a frame.
    pub(super) fn restore_len(&mut self, len: u16, loose: bool) {
        while self.entries.len() > usize::from(len) {
            self.pop();
        }
        if loose && len > 0 {
            let _ = self.unseal();
        }
    }

    /// Whether the last entry is loose.
    pub(super) fn last_loose(&self) -> bool {
        self.entries.last().is_some_and(|e| e.open & LOOSE != 0)
    }

    /// How many entries have `flag` set (a walk: once per run).
    pub(super) fn count_open(&self, flag: u8) -> u16 {
        let n = self.entries.iter().filter(|e| e.open & flag != 0).count();
        u16::try_from(n).unwrap_or(u16::MAX)
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic
)]
mod tests {
    extern crate std;

    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    /// What is done to a table.
    #[derive(Debug, Clone)]
    enum Op {
        /// A new entry with this id (loose or not).
        Push(u8, bool),
        Pop,
        /// Flags the entry at (position modulo length) `SEED`.
        Seed(usize),
        /// Drops the `SEED` entries from (position modulo length + 1) on.
        Drop(usize),
        /// Writes a byte onto the last entry's id.
        Write(u8),
        Seal,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u8..12, any::<bool>()).prop_map(|(i, l)| Op::Push(i, l)),
            1 => Just(Op::Pop),
            2 => any::<usize>().prop_map(Op::Seed),
            1 => any::<usize>().prop_map(Op::Drop),
            1 => (0u8..3).prop_map(Op::Write),
            1 => Just(Op::Seal),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// With 8 entries in 16 slots and 12 short ids (so that probes
        /// collide and ids repeat), the index finds what a scan of the
        /// entries finds, after any pushes, pops, drops and writes.
        #[test]
        fn index_finds_what_a_scan_finds(ops in prop::collection::vec(op(), 1..80)) {
            let mut t = HashIndex::<4, 8, crate::store::Fixed>::new();
            for op in ops {
                let len = t.entries.len();
                match op {
                    Op::Push(i, loose) => {
                        let mut e = Entry::<4, crate::store::Fixed>::seed(if loose { LOOSE } else { 0 });
                        e.id.push_str(&std::format!("{}", i)).unwrap();
                        let _ = t.push(e);
                    }
                    Op::Pop => {
                        t.pop();
                    }
                    Op::Seed(at) if len > 0 => t.entries[at % len].open |= SEED,
                    Op::Drop(at) => t.retain_from(at % (len + 1), |e| e.open & SEED == 0),
                    Op::Write(b) => {
                        if let Some(id) = t.unseal() {
                            let _ = id.push(char::from(b'a' + b));
                        }
                    }
                    Op::Seal => t.seal(),
                    Op::Seed(_) => {}
                }
                let loose: Vec<usize> = (0..t.entries.len())
                    .filter(|at| t.entries[*at].open & LOOSE != 0)
                    .collect();
                prop_assert!(loose.is_empty() || loose == [t.entries.len() - 1]);
                for at in 0..t.entries.len() {
                    prop_assert_eq!(t.indexed(at), !loose.contains(&at));
                }
                let ids: Vec<_> = t.entries.iter().map(|e| e.id.clone()).collect();
                for id in ids.iter().map(|s| s.as_str()).chain(["0", "11", "x"]) {
                    let scan = t.entries.iter().position(|e| e.id == id);
                    prop_assert_eq!(t.find(id, |_, _| true), scan);
                    let scan = t.entries.iter().position(|e| e.id == id && e.open & SEED == 0);
                    prop_assert_eq!(t.find(id, |_, e| e.open & SEED == 0), scan);
                }
            }
        }
    }
}
