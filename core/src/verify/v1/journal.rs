//! What one frame changed in the 1.0 tables, so that it can be taken back.

use super::steps::StepUndo;
use super::{Kind, Life, Owner};
use crate::store::{Fixed, IdText as _, Store};
use crate::verify::{self, Lifecycle, Reversal, Tracked};

/// A field of the 1.0 tables an event changed, as it was.
#[derive(Debug, Clone)]
pub(super) enum Change {
    /// An owner entry's owner and open flags.
    Entry {
        kind: Kind,
        at: u16,
        owner: Owner,
        open: u8,
    },
    /// A sub-agent's life.
    Life { at: u8, life: Life },
    /// The open steps.
    Step(StepUndo),
}

/// What the events of one frame changed in the 1.0 tables ([`Owners`](super::Owners))
/// and in the verifier, so that [`Owners::undo`](super::Owners::undo) takes the frame back: the
/// tables' lengths before it (the entries it added go, and leave the
/// indexes), the fields it changed, as they were, and the verifier's life
/// cycle and the ids it opened or closed. Its size is fixed and small: an
/// event changes at most one field of the 1.0 tables (an owner, an open
/// flag, a sub-agent's life, or the open steps) and opens or closes at
/// most one id in the verifier, and a frame expands to at most 12 events
/// (up to 9 lanes closed, then 3). A new run (RUN_STARTED) and a snapshot's owner
/// seeds (MESSAGES_SNAPSHOT) change more: the journal notes that it cannot
/// take them back ([`Journal::complete`] is then false). They are the last
/// event of their frame, so the frame cannot fail after them.
#[derive(Debug, Clone)]
pub struct Journal<const ID: usize = 64, S: Store = Fixed> {
    pub(super) life: Lifecycle,
    /// The verifier's id tables' changes, oldest first.
    pub(super) ids: heapless::Vec<Reversal<ID, S>, 12, u8>,
    pub(super) lens: [u16; 4],
    pub(super) loose: [bool; 4],
    pub(super) agents: u16,
    pub(super) reasoning_open: [u16; 2],
    pub(super) changes: heapless::Vec<Change, 12, u8>,
    /// Every change is noted.
    pub(super) complete: bool,
}

impl<const ID: usize, S: Store> Journal<ID, S> {
    /// Whether the journal takes the whole frame back (it does unless the
    /// frame started a run or applied a snapshot's owners).
    pub fn complete(&self) -> bool {
        self.complete
    }

    pub(super) fn note(&mut self, change: Change) {
        if self.changes.push(change).is_err() {
            self.complete = false;
        }
    }

    /// Notes that `which` gained an id at its end.
    pub(super) fn opened(&mut self, which: Tracked) {
        self.note_ids(verify::Change::Opened(which));
    }

    /// Notes that `id` left `which` at position `at`.
    pub(super) fn closed(&mut self, which: Tracked, at: Option<usize>, id: &str) {
        let mut text: S::Str<ID> = Default::default();
        // The id came out of a slot of this capacity.
        let _ = text.push_str(id);
        let change = match at {
            Some(at) => verify::Change::Closed(which, at, text),
            None => verify::Change::None,
        };
        self.note_ids(change);
    }

    pub(super) fn note_ids(&mut self, change: verify::Change<ID, S>) {
        let life = self.life;
        if self.ids.push(Reversal { life, change }).is_err() {
            self.complete = false;
        }
    }
}

/// Where an event's changes are noted, if anywhere.
pub(super) type Log<'a, const ID: usize, S> = Option<&'a mut Journal<ID, S>>;

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic
)]
mod tests {
    extern crate std;

    use crate::error::Error;
    use crate::event::{EventRef, EventType};
    use crate::verify::v1::{Facts, Owners};
    use crate::verify::Verifier;
    use proptest::prelude::*;
    use std::vec::Vec;

    type TinyVerifier = Verifier<8, 2, 2, 2>;
    type TinyOwners = Owners<8, 3, 1>;

    /// Event `k` of a small vocabulary (ids "a" and "b", tags none, "x"
    /// and "y"), with its facts.
    fn vocabulary(k: u8) -> (EventRef<'static>, Facts<'static>) {
        use EventType as T;
        const KINDS: [EventType; 17] = [
            T::TextMessageStart,
            T::TextMessageEnd,
            T::ToolCallStart,
            T::ToolCallEnd,
            T::StepStarted,
            T::StepFinished,
            T::ReasoningStart,
            T::ReasoningEnd,
            T::ReasoningMessageStart,
            T::ReasoningMessageEnd,
            T::ActivitySnapshot,
            T::ActivityDelta,
            T::ToolCallResult,
            T::SubagentStarted,
            T::SubagentFinished,
            T::RunFinished,
            T::TextMessageContent,
        ];
        let kind = KINDS[usize::from(k) % KINDS.len()];
        let id = ["a", "b"][usize::from(k / 17) % 2];
        let subagent = [None, Some("x"), Some("y")][usize::from(k / 34) % 3];
        let (id, subagent) = if matches!(kind, T::SubagentStarted | T::SubagentFinished) {
            (subagent.unwrap_or("x"), None)
        } else {
            (id, subagent)
        };
        let ev = EventRef {
            kind,
            origin: crate::event::Origin::Frame,
            frame: 0,
            id,
            name: "f",
            role: crate::event::Role::default(),
            subagent,
        };
        let facts = Facts {
            message_id: id,
            keep: k.is_multiple_of(2),
            parent_message: k.is_multiple_of(3).then_some("a"),
            ..Facts::default()
        };
        (ev, facts)
    }

    /// The result of each event of the vocabulary from `v` and `o`, and
    /// of the whole vocabulary in order.
    fn probe(mut v: TinyVerifier, mut o: TinyOwners) -> Vec<Result<(), Error>> {
        let each = (0..102).map(|k| {
            let (ev, facts) = vocabulary(k);
            o.clone().check(&mut v.clone(), &ev, &facts)
        });
        let each: Vec<_> = each.collect();
        let all = (0..102).map(|k| {
            let (ev, facts) = vocabulary(k);
            o.check(&mut v, &ev, &facts)
        });
        each.into_iter().chain(all.collect::<Vec<_>>()).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// After any history, events noted in a journal (up to the first
        /// that fails) and then undone leave the tables and the verifier
        /// behaving as a copy made before them: the same results for every
        /// event of the vocabulary after it.
        #[test]
        fn a_journal_takes_events_back(
            history in prop::collection::vec(0u8..102, 0..40),
            frame in prop::collection::vec(0u8..102, 1..12),
        ) {
            let mut v = TinyVerifier::new();
            let mut o = TinyOwners::new();
            let start = EventRef {
                kind: EventType::RunStarted,
                origin: crate::event::Origin::Frame,
                frame: 0,
                id: "",
                name: "",
                role: crate::event::Role::default(),
                subagent: None,
            };
            o.check(&mut v, &start, &Facts::default()).unwrap();
            for k in history {
                let (ev, facts) = vocabulary(k);
                let _ = o.check(&mut v, &ev, &facts);
            }
            let (v0, o0) = (v.clone(), o.clone());
            let mut journal = o.journal(&v);
            for k in frame {
                let (ev, facts) = vocabulary(k);
                if o.check_noted(&mut v, &ev, &facts, &mut journal).is_err() {
                    break;
                }
            }
            // Incomplete only when a step's slot is refilled (see
            // `step_started`).
            if journal.complete() {
                prop_assert!(o.undo(&mut v, journal));
                prop_assert_eq!(probe(v, o), probe(v0, o0));
            }
        }
    }
}
