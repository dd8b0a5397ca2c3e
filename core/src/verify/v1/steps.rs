//! The open steps, keyed by name and owner, in the order they opened.

use super::table::hash;
use super::{Id, Owner};
use crate::store::{IdText as _, OwnerIndex as _, Seq as _, Store, Tally as _};

/// An open step: its name and owner, and its place in the order the
/// steps opened.
#[derive(Debug, Clone)]
pub(super) struct Step<const ID: usize, S: Store> {
    pub(super) name: Id<ID, S>,
    pub(super) owner: Owner,
    /// When it opened (`Steps::opened` then): of the steps a name
    /// finds, the earliest wins.
    pub(super) opened: u32,
    /// The steps opened before and after it (position + 1; 0: none). A
    /// closed step's `next` is the next free slot.
    pub(super) prev: u16,
    pub(super) next: u16,
}

/// The open steps in the order they opened: a list linked through fixed
/// slots (a closed step's slot is reused), with an index by name, so
/// that opening or closing a step costs the same however many are open.
#[derive(Debug, Clone)]
pub(super) struct Steps<const ID: usize, const N: usize, S: Store> {
    pub(super) slots: S::Vec16<Step<ID, S>, N>,
    /// The open steps by name.
    pub(super) index: S::Index<N>,
    /// The first and last open step, and the first free slot (position
    /// + 1; 0: none).
    pub(super) first: u16,
    pub(super) last: u16,
    pub(super) free: u16,
    pub(super) len: u16,
    /// Steps opened so far, wrapping: steps are ordered by their age
    /// (`opened` less theirs), exact while fewer than 2^32 open after
    /// one that is still open.
    pub(super) opened: u32,
    /// The bytes of the open steps' names (a growable store's).
    pub(super) bytes: S::Tally,
}

impl<const ID: usize, const N: usize, S: Store> Steps<ID, N, S> {
    pub(super) fn new() -> Self {
        Steps {
            slots: Default::default(),
            index: Default::default(),
            first: 0,
            last: 0,
            free: 0,
            len: 0,
            opened: 0,
            bytes: Default::default(),
        }
    }

    /// The earliest opened step named `name` whose owner `pick` accepts.
    pub(super) fn find(&self, name: &str, pick: impl Fn(Owner) -> bool) -> Option<usize> {
        let step = |at: usize| self.slots.get(at).map(|s| (s, at));
        self.index
            .candidates(name)
            .filter_map(step)
            .filter(|(s, _)| s.name.as_str() == name && pick(s.owner))
            .max_by_key(|(s, _)| self.opened.wrapping_sub(s.opened))
            .map(|(_, at)| at)
    }

    pub(super) fn owner(&self, at: usize) -> Owner {
        self.slots.get(at).and_then(|s| s.owner)
    }

    /// Opens a step; `Err` if `N` are open.
    pub(super) fn open(&mut self, name: Id<ID, S>, owner: Owner) -> Result<(), ()> {
        let step = Step {
            name,
            owner,
            opened: self.opened,
            prev: self.last,
            next: 0,
        };
        let at = match usize::from(self.free).checked_sub(1) {
            Some(at) => {
                let slot = self.slots.get_mut(at).ok_or(())?;
                self.free = slot.next;
                *slot = step;
                at
            }
            None => {
                self.slots.push(step).map_err(drop)?;
                self.slots.len().saturating_sub(1)
            }
        };
        let me = u16::try_from(at.saturating_add(1)).map_err(drop)?;
        match self.slots.get_mut(usize::from(self.last).wrapping_sub(1)) {
            Some(last) => last.next = me,
            None => self.first = me,
        }
        self.last = me;
        if let Some(s) = self.slots.get(at) {
            self.bytes.add(s.name.heap_bytes());
            self.index.insert(&s.name, at);
        }
        self.len = self.len.saturating_add(1);
        self.opened = self.opened.wrapping_add(1);
        Ok(())
    }

    /// Closes the step at `at`.
    pub(super) fn close(&mut self, at: usize) {
        let slots = &self.slots;
        let Some(s) = slots.get(at) else {
            return;
        };
        let (prev, next) = (s.prev, s.next);
        self.bytes.sub(s.name.heap_bytes());
        self.index
            .remove(&s.name, at, |p| slots.get(p).map(|s| hash(&s.name)));
        match self.slots.get_mut(usize::from(prev).wrapping_sub(1)) {
            Some(p) => p.next = next,
            None => self.first = next,
        }
        match self.slots.get_mut(usize::from(next).wrapping_sub(1)) {
            Some(n) => n.prev = prev,
            None => self.last = prev,
        }
        if let Some(s) = self.slots.get_mut(at) {
            s.next = self.free;
            self.free = u16::try_from(at.saturating_add(1)).unwrap_or(0);
        }
        self.len = self.len.saturating_sub(1);
    }

    /// The links (slot, prev, next) of slot `at`, if it exists.
    pub(super) fn links(&self, at: usize) -> Option<(u16, u16, u16)> {
        let s = self.slots.get(at)?;
        Some((u16::try_from(at).ok()?, s.prev, s.next))
    }

    /// How to take back an opening (`None`) or the closing of the step at
    /// `at`, made before it.
    pub(super) fn undo_of(&self, closing: Option<usize>) -> StepUndo {
        let mut undo = StepUndo {
            at: 0,
            opened: closing.is_none(),
            links: heapless::Vec::new(),
            reused_next: None,
            pushed: false,
            first: self.first,
            last: self.last,
            free: self.free,
            len: self.len,
            count: self.opened,
        };
        let relinked = match closing {
            Some(at) => {
                let s = self.slots.get(at);
                let prev = s.map_or(0, |s| s.prev);
                let next = s.map_or(0, |s| s.next);
                undo.at = u16::try_from(at).unwrap_or(u16::MAX);
                [
                    Some(at),
                    usize::from(prev).checked_sub(1),
                    usize::from(next).checked_sub(1),
                ]
            }
            None => {
                let reused = usize::from(self.free).checked_sub(1);
                let at = reused.unwrap_or(self.slots.len());
                undo.at = u16::try_from(at).unwrap_or(u16::MAX);
                undo.pushed = reused.is_none();
                undo.reused_next = reused.and_then(|a| self.slots.get(a)).map(|s| s.next);
                [usize::from(self.last).checked_sub(1), None, None]
            }
        };
        for at in relinked.into_iter().flatten() {
            if let Some(l) = self.links(at) {
                // Room: three at most.
                let _ = undo.links.push(l);
            }
        }
        undo
    }

    /// Takes back the opening or closing `undo` was made before (the last
    /// change to the steps).
    pub(super) fn undo(&mut self, undo: &StepUndo) {
        let at = usize::from(undo.at);
        let slots = &self.slots;
        if let (true, Some(s)) = (undo.opened, slots.get(at)) {
            self.bytes.sub(s.name.heap_bytes());
            self.index
                .remove(&s.name, at, |p| slots.get(p).map(|s| hash(&s.name)));
        }
        for (slot, prev, next) in undo.links.iter().rev() {
            if let Some(s) = self.slots.get_mut(usize::from(*slot)) {
                s.prev = *prev;
                s.next = *next;
            }
        }
        if let (Some(next), Some(s)) = (undo.reused_next, self.slots.get_mut(at)) {
            s.next = next;
        }
        if undo.pushed {
            self.slots.truncate(at);
        }
        self.first = undo.first;
        self.last = undo.last;
        self.free = undo.free;
        self.len = undo.len;
        self.opened = undo.count;
        if let (false, Some(s)) = (undo.opened, self.slots.get(at)) {
            self.bytes.add(s.name.heap_bytes());
            self.index.insert(&s.name, at);
        }
    }

    /// The open steps' names, in the order they opened.
    pub(super) fn names(&self) -> impl Iterator<Item = &str> + Clone {
        let at = |link: u16| usize::from(link).checked_sub(1);
        let first = at(self.first).and_then(|a| self.slots.get(a));
        core::iter::successors(first, move |s| at(s.next).and_then(|a| self.slots.get(a)))
            .take(self.len())
            .map(|s| s.name.as_str())
    }

    /// The bytes the steps keep beside their own size (0 when fixed).
    pub(super) fn heap_bytes(&self) -> usize {
        self.slots
            .heap_bytes()
            .saturating_add(self.index.heap_bytes())
            .saturating_add(self.bytes.get())
    }

    pub(super) fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Closes every step (a new run: as many as the last run opened).
    pub(super) fn clear(&mut self) {
        while let Some(at) = usize::from(self.first).checked_sub(1) {
            self.close(at);
        }
        self.slots.clear();
        self.free = 0;
    }
}

/// How to take back one opening or closing of a step: the list's ends,
/// count and free list, and the links of the slots it relinked, as they
/// were.
#[derive(Debug, Clone)]
pub(super) struct StepUndo {
    /// The slot opened or closed.
    pub(super) at: u16,
    pub(super) opened: bool,
    /// (slot, prev, next) of each slot relinked.
    pub(super) links: heapless::Vec<(u16, u16, u16), 3, u8>,
    /// The free-list link of the free slot the opening reused.
    pub(super) reused_next: Option<u16>,
    /// The opening added a slot.
    pub(super) pushed: bool,
    pub(super) first: u16,
    pub(super) last: u16,
    pub(super) free: u16,
    pub(super) len: u16,
    pub(super) count: u32,
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

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// The open steps, in 8 slots with names that repeat under
        /// several owners, behave as a list kept in opening order.
        #[test]
        fn steps_behave_as_a_list(ops in prop::collection::vec((0u8..6, 0u8..3, any::<bool>()), 1..80)) {
            let mut steps = Steps::<4, 8, crate::store::Fixed>::new();
            let mut model: Vec<(std::string::String, Owner)> = Vec::new();
            for (name, owner, open) in ops {
                let name = std::format!("{}", name);
                let owner = owner.checked_sub(1);
                let at = model.iter().position(|(n, o)| *n == name && *o == owner);
                let found = steps.find(&name, |o| o == owner);
                prop_assert_eq!(found.is_some(), at.is_some());
                let first = model.iter().find(|(n, _)| *n == name).map(|(_, o)| *o);
                prop_assert_eq!(steps.find(&name, |_| true).map(|at| steps.owner(at)), first);
                match (open, found, at) {
                    (true, None, _) => {
                        let fits = steps.open(heapless::String::try_from(name.as_str()).unwrap(), owner);
                        prop_assert_eq!(fits.is_ok(), model.len() < 8);
                        if fits.is_ok() {
                            model.push((name, owner));
                        }
                    }
                    (false, Some(f), Some(at)) => {
                        steps.close(f);
                        model.remove(at);
                    }
                    _ => {}
                }
                prop_assert!(steps.names().eq(model.iter().map(|(n, _)| n.as_str())));
                prop_assert_eq!(steps.len(), model.len());
            }
            steps.clear();
            prop_assert_eq!(steps.names().count(), 0);
            prop_assert!(steps.open(heapless::String::new(), None).is_ok());
        }
    }
}
