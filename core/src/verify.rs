//! Verification: the protocol's ordering rules, as a state machine.
//!
//! The verifier sees every expanded event and answers "allowed" or an
//! [`Error`] with the rule's code (SPEC section 4). Its state is small: which
//! text messages, tool calls and steps are open (in fixed tables, in the
//! order they opened), and a [`Lifecycle`]: the [`Run`] (not started,
//! active, finished, errored) and [`Thinking`] (off, in a step, in a
//! message). Each event type's rule is its row of the event table
//! ([`Rule`]); [`Lifecycle::next`] is the one transition function of the
//! life cycle. A stream may hold many runs: after `RUN_FINISHED` or
//! `RUN_ERROR`, a new `RUN_STARTED` resets everything.
//!
//! The checks run in this order, and the first that fails is the error:
//!
//! 1. after `RUN_ERROR` only `RUN_STARTED` may come (`run_errored`);
//! 2. after `RUN_FINISHED` only `RUN_STARTED` or `RUN_ERROR` (`run_finished`);
//! 3. the very first event must be `RUN_STARTED` or `RUN_ERROR`
//!    (`first_event`); a `RUN_STARTED` while a run is active is
//!    `run_active`;
//! 4. the per-type rules: ids must not be open twice, and must be open to
//!    receive content or an end; `RUN_FINISHED` needs every step, message
//!    and tool call closed; thinking steps and thinking messages nest.
//!
//! A rejected event changes nothing, so a caller that skips it can go on.
//! An accepted one can be taken back: [`Verifier::check_undoable`] returns
//! a [`Reversal`] record (the life cycle before, plus a copy of the id for an
//! END) that
//! [`Verifier::undo`] applies. The pipeline's keep-going mode uses it to
//! make a frame that expands into several events all-or-nothing.
//!
//! ```
//! use agui_core::event::{EventRef, EventType, Origin, Role};
//! use agui_core::verify::Verifier;
//! use agui_core::error::Code;
//!
//! let ev = |kind, id| EventRef { kind, origin: Origin::Frame, frame: 0, id, name: "", role: Role::Assistant, subagent: None };
//! let mut v: Verifier = Verifier::new();
//! v.check(&ev(EventType::RunStarted, "")).unwrap();
//! v.check(&ev(EventType::TextMessageStart, "m1")).unwrap();
//! let err = v.check(&ev(EventType::TextMessageContent, "m2")).unwrap_err();
//! assert_eq!(err.code, Code::MessageNotActive);
//! assert_eq!(err.id(), Some("m2"));
//! ```

use crate::error::{error_text, Code, Detail, Error, Stage, Table};
use crate::event::EventRef;
use crate::store::{Fixed, IdSet as _, IdText as _, Store};

pub use crate::spec::{Rule, TableOp, Tracked};

pub mod v1;

/// An insertion-ordered set of ids with room for `N` ids of `ID` bytes,
/// kept as the store `S` keeps it ([`Store::Ids`]).
#[derive(Debug, Clone, Default)]
pub struct IdTable<const N: usize, const ID: usize, S: Store = Fixed> {
    ids: S::Ids<N, ID>,
}

impl<const N: usize, const ID: usize, S: Store> IdTable<N, ID, S> {
    /// An empty table.
    pub fn new() -> Self {
        IdTable {
            ids: Default::default(),
        }
    }

    /// True if `id` is in the table.
    pub fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    /// Adds `id`; `Err(())` if the table is full or the id too long.
    #[allow(clippy::result_unit_err)]
    pub fn insert(&mut self, id: &str) -> Result<(), ()> {
        self.ids.insert(id)
    }

    /// Removes `id`, keeping the others in order.
    pub fn remove(&mut self, id: &str) {
        self.ids.remove(id);
    }

    /// Where `id` is (the store's mark, for an undo).
    pub(crate) fn position(&self, id: &str) -> Option<usize> {
        self.ids.position(id)
    }

    /// The ids, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.ids.iter()
    }

    /// Number of ids.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True if empty.
    pub fn is_empty(&self) -> bool {
        self.ids.len() == 0
    }

    /// Empties the table.
    pub fn clear(&mut self) {
        self.ids.clear();
    }

    /// The bytes the table keeps beside its own size (0 when fixed).
    pub fn heap_bytes(&self) -> usize {
        self.ids.heap_bytes()
    }
}

impl Tracked {
    /// The code for an id opened twice.
    const fn active(self) -> Code {
        match self {
            Tracked::Messages => Code::MessageActive,
            Tracked::ToolCalls => Code::ToolCallActive,
            Tracked::Steps => Code::StepActive,
        }
    }

    /// The code for an id that is not open.
    const fn not_active(self) -> Code {
        match self {
            Tracked::Messages => Code::MessageNotActive,
            Tracked::ToolCalls => Code::ToolCallNotActive,
            Tracked::Steps => Code::StepNotActive,
        }
    }

    /// The code for ids still open at `RUN_FINISHED`.
    const fn unclosed(self) -> Code {
        match self {
            Tracked::Messages => Code::UnclosedMessages,
            Tracked::ToolCalls => Code::UnclosedToolCalls,
            Tracked::Steps => Code::UnclosedSteps,
        }
    }

    /// The table's name in a capacity error.
    const fn capacity(self) -> Table {
        match self {
            Tracked::Messages => Table::Messages,
            Tracked::ToolCalls => Table::ToolCalls,
            Tracked::Steps => Table::Steps,
        }
    }
}

/// Where the stream is in a run's life cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Run {
    /// Before the first event.
    #[default]
    NotStarted,
    /// After `RUN_STARTED`.
    Active,
    /// After `RUN_FINISHED`: a new `RUN_STARTED` or a `RUN_ERROR` may follow.
    Finished,
    /// After `RUN_ERROR`: only a new `RUN_STARTED` may follow.
    Errored,
}

/// Where the stream is in thinking (`THINKING_*` events).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Thinking {
    /// No thinking step and no thinking message.
    #[default]
    Off,
    /// Inside a thinking step, no message open.
    Step,
    /// A thinking message open inside a thinking step.
    Message,
    /// A thinking message still open after its step ended: `THINKING_END`
    /// does not close the message (as in the reference), so its content
    /// and end may still come.
    StrayMessage,
}

/// The verifier's life-cycle state: the run's and thinking's. Every
/// combination is a state the rules can reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Lifecycle {
    /// The run.
    pub run: Run,
    /// Thinking.
    pub thinking: Thinking,
}

impl Lifecycle {
    /// Before the first event.
    pub const START: Lifecycle = Lifecycle {
        run: Run::NotStarted,
        thinking: Thinking::Off,
    };

    /// The state after an event with rule `rule`, or the code of the rule
    /// it breaks: rules 1 to 3 of the [module docs](self), then the
    /// thinking rules. The id tables are the verifier's part.
    ///
    /// # Errors
    /// The code of the first life-cycle rule the event breaks.
    #[inline]
    pub const fn next(self, rule: Rule) -> Result<Lifecycle, Code> {
        // Most events are content inside an active run: nothing to change.
        if let (Run::Active, Rule::Free | Rule::Table(..)) = (self.run, rule) {
            return Ok(self);
        }
        let run = match self.run_next(rule) {
            Ok(run) => run,
            Err(code) => return Err(code),
        };
        let thinking = match self.thinking_next(rule) {
            Ok(thinking) => thinking,
            Err(code) => return Err(code),
        };
        Ok(Lifecycle { run, thinking })
    }

    /// Rules 1 to 3: the run's life cycle.
    const fn run_next(self, rule: Rule) -> Result<Run, Code> {
        let starts = matches!(rule, Rule::RunStart);
        let errors = matches!(rule, Rule::RunError);
        match self.run {
            Run::Errored if !starts => return Err(Code::RunErrored),
            Run::Finished if !starts && !errors => return Err(Code::RunFinished),
            Run::NotStarted if !starts && !errors => return Err(Code::FirstEvent),
            Run::Active if starts => return Err(Code::RunActive),
            Run::NotStarted | Run::Active | Run::Finished | Run::Errored => {}
        }
        Ok(match rule {
            Rule::RunStart => Run::Active,
            Rule::RunFinish => Run::Finished,
            Rule::RunError => Run::Errored,
            Rule::Free
            | Rule::Table(..)
            | Rule::ThinkingStart
            | Rule::ThinkingEnd
            | Rule::ThinkingMessageStart
            | Rule::ThinkingMessageContent
            | Rule::ThinkingMessageEnd => self.run,
        })
    }

    /// The thinking rules: steps, and messages inside them.
    const fn thinking_next(self, rule: Rule) -> Result<Thinking, Code> {
        use Thinking::{Message, Off, Step, StrayMessage};
        Ok(match (rule, self.thinking) {
            // A new run forgets the previous run's thinking.
            (Rule::RunStart, _) => Off,
            (Rule::ThinkingStart, Off) => Step,
            (Rule::ThinkingStart, StrayMessage) => Message,
            (Rule::ThinkingStart, Step | Message) => return Err(Code::ThinkingActive),
            (Rule::ThinkingEnd, Step) => Off,
            (Rule::ThinkingEnd, Message) => StrayMessage,
            (Rule::ThinkingEnd, Off | StrayMessage) => return Err(Code::ThinkingNotActive),
            (Rule::ThinkingMessageStart, Step) => Message,
            (Rule::ThinkingMessageStart, Off | StrayMessage) => {
                return Err(Code::ThinkingNotActive)
            }
            (Rule::ThinkingMessageStart, Message) => return Err(Code::ThinkingMessageActive),
            (Rule::ThinkingMessageContent, Message | StrayMessage) => self.thinking,
            (Rule::ThinkingMessageEnd, Message) => Step,
            (Rule::ThinkingMessageEnd, StrayMessage) => Off,
            (Rule::ThinkingMessageContent | Rule::ThinkingMessageEnd, Off | Step) => {
                return Err(Code::ThinkingMessageNotActive)
            }
            (Rule::Free | Rule::Table(..) | Rule::RunFinish | Rule::RunError, _) => self.thinking,
        })
    }
}

/// What an accepted event changed in a table.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Change<const ID: usize, S: Store> {
    /// Nothing (the life cycle only, if anything).
    None,
    /// An id was added at the end of the table.
    Opened(Tracked),
    /// The id was removed from this position.
    Closed(Tracked, usize, S::Str<ID>),
}

/// How to take back one accepted event: see [`Verifier::check_undoable`].
///
/// Reversal records must be applied newest first, to the verifier that made
/// them, before any other event is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reversal<const ID: usize = 64, S: Store = Fixed> {
    life: Lifecycle,
    change: Change<ID, S>,
}

/// The verifier. `ID` is the id capacity in bytes; `MSGS`, `TOOLS` and
/// `STEPS` are how many text messages, tool calls and steps may be open at
/// once (the order of [`Pipeline`](crate::pipeline::Pipeline)'s parameters).
#[derive(Debug, Clone, Default)]
pub struct Verifier<
    const ID: usize = 64,
    const MSGS: usize = 8,
    const TOOLS: usize = 8,
    const STEPS: usize = 8,
    S: Store = Fixed,
> {
    messages: IdTable<MSGS, ID, S>,
    tool_calls: IdTable<TOOLS, ID, S>,
    steps: IdTable<STEPS, ID, S>,
    life: Lifecycle,
}

impl<const ID: usize, const MSGS: usize, const TOOLS: usize, const STEPS: usize, S: Store>
    Verifier<ID, MSGS, TOOLS, STEPS, S>
{
    /// A verifier before the first event.
    pub fn new() -> Self {
        Verifier {
            messages: IdTable::new(),
            tool_calls: IdTable::new(),
            steps: IdTable::new(),
            life: Lifecycle::START,
        }
    }

    /// Open text messages, oldest first.
    pub fn open_messages(&self) -> &IdTable<MSGS, ID, S> {
        &self.messages
    }

    /// Open tool calls, oldest first.
    pub fn open_tool_calls(&self) -> &IdTable<TOOLS, ID, S> {
        &self.tool_calls
    }

    /// Open steps, oldest first.
    pub fn open_steps(&self) -> &IdTable<STEPS, ID, S> {
        &self.steps
    }

    /// The bytes the id tables keep beside their own size (0 in the
    /// fixed store).
    pub fn heap_bytes(&self) -> usize {
        self.messages
            .heap_bytes()
            .saturating_add(self.tool_calls.heap_bytes())
            .saturating_add(self.steps.heap_bytes())
    }

    /// True while a run is started and neither finished nor errored.
    pub fn run_active(&self) -> bool {
        self.life.run == Run::Active
    }

    /// The run's and thinking's life-cycle state.
    pub fn lifecycle(&self) -> Lifecycle {
        self.life
    }

    /// Checks one event and, if it is allowed, applies it to the state.
    ///
    /// # Errors
    /// The first rule the event breaks; the state is then unchanged. The
    /// error's frame index is the event's.
    pub fn check(&mut self, ev: &EventRef<'_>) -> Result<(), Error> {
        self.apply(ev).map_err(|e| e.at(ev.frame))
    }

    /// [`check`](Self::check), and on success a record that takes the
    /// event back with [`undo`](Self::undo).
    ///
    /// Undoing a `RUN_STARTED` that began a new run restores the
    /// life cycle only: the previous run's open ids stay forgotten. That is never
    /// observable through the rules: after `RUN_FINISHED` nothing is open,
    /// and after `RUN_ERROR` every event but `RUN_STARTED` (which forgets
    /// them anyway) is refused.
    ///
    /// ```
    /// use agui_core::event::{EventRef, EventType, Origin, Role};
    /// use agui_core::verify::Verifier;
    ///
    /// let ev = |kind, id| EventRef { kind, origin: Origin::Frame, frame: 0, id, name: "", role: Role::Assistant, subagent: None };
    /// let mut v: Verifier = Verifier::new();
    /// v.check(&ev(EventType::RunStarted, "")).unwrap();
    /// v.check(&ev(EventType::TextMessageStart, "a")).unwrap();
    /// v.check(&ev(EventType::TextMessageStart, "b")).unwrap();
    /// let undo = v.check_undoable(&ev(EventType::TextMessageEnd, "a")).unwrap();
    /// assert_eq!(v.open_messages().iter().collect::<Vec<_>>(), ["b"]);
    /// v.undo(undo);
    /// assert_eq!(v.open_messages().iter().collect::<Vec<_>>(), ["a", "b"]);
    /// ```
    ///
    /// # Errors
    /// As [`check`](Self::check); the state is then unchanged.
    pub fn check_undoable(&mut self, ev: &EventRef<'_>) -> Result<Reversal<ID, S>, Error> {
        let life = self.life;
        // Where an END's id sits now, to put it back in its place.
        let op = ev.kind.table_op();
        let closing = match op {
            Some((TableOp::Closes, tracked)) => self.position(tracked, ev.id),
            Some((TableOp::Opens | TableOp::NeedsOpen, _)) | None => None,
        };
        self.check(ev)?;
        let change = match (op, closing) {
            (Some((TableOp::Closes, tracked)), Some(at)) => {
                let mut id: S::Str<ID> = Default::default();
                // The id came out of a slot of this capacity.
                let _ = id.push_str(ev.id);
                Change::Closed(tracked, at, id)
            }
            (Some((TableOp::Opens, tracked)), _) => Change::Opened(tracked),
            (Some((TableOp::Closes | TableOp::NeedsOpen, _)) | None, _) => Change::None,
        };
        Ok(Reversal { life, change })
    }

    /// Takes back the event that `undo` was made for (see
    /// [`check_undoable`](Self::check_undoable)).
    pub fn undo(&mut self, undo: Reversal<ID, S>) {
        self.life = undo.life;
        match undo.change {
            Change::None => {}
            Change::Opened(which) => self.with_table(which, |ids| drop(ids.pop_last())),
            Change::Closed(which, at, id) => self.with_table(which, |ids| {
                // The slot was freed by the close, so the id fits again.
                let _ = ids.put_back(at, id);
            }),
        }
    }

    fn with_table<R>(
        &mut self,
        which: Tracked,
        f: impl FnOnce(&mut dyn TableOps<ID, S>) -> R,
    ) -> R {
        match which {
            Tracked::Messages => f(&mut self.messages),
            Tracked::ToolCalls => f(&mut self.tool_calls),
            Tracked::Steps => f(&mut self.steps),
        }
    }

    /// Where `id` sits in a table, oldest first.
    fn position(&self, which: Tracked, id: &str) -> Option<usize> {
        match which {
            Tracked::Messages => self.messages.position(id),
            Tracked::ToolCalls => self.tool_calls.position(id),
            Tracked::Steps => self.steps.position(id),
        }
    }

    /// Rule 4 for an id table edit.
    #[inline]
    fn table_rule(&mut self, op: TableOp, which: Tracked, ev: &EventRef<'_>) -> Result<(), Error> {
        match which {
            Tracked::Messages => table_rule(&mut self.messages, op, which, ev),
            Tracked::ToolCalls => table_rule(&mut self.tool_calls, op, which, ev),
            Tracked::Steps => table_rule(&mut self.steps, op, which, ev),
        }
    }

    /// One event: the life-cycle transition, then the id tables. Nothing
    /// changes unless every check passes.
    #[inline]
    fn apply(&mut self, ev: &EventRef<'_>) -> Result<(), Error> {
        let rule_of = ev.kind.rule();
        let next = self.life.next(rule_of).map_err(|code| rule(code, ev))?;
        match rule_of {
            Rule::Table(op, which) => self.table_rule(op, which, ev)?,
            Rule::RunFinish => {
                unclosed(&self.steps, Tracked::Steps, ev)?;
                unclosed(&self.messages, Tracked::Messages, ev)?;
                unclosed(&self.tool_calls, Tracked::ToolCalls, ev)?;
            }
            // A new run (after a finished or errored one) forgets the ids.
            Rule::RunStart => self.forget_ids(),
            Rule::Free
            | Rule::RunError
            | Rule::ThinkingStart
            | Rule::ThinkingEnd
            | Rule::ThinkingMessageStart
            | Rule::ThinkingMessageContent
            | Rule::ThinkingMessageEnd => {}
        }
        self.life = next;
        Ok(())
    }

    /// Forgets the previous run's open ids.
    fn forget_ids(&mut self) {
        self.messages.clear();
        self.tool_calls.clear();
        self.steps.clear();
    }
}

/// The two table edits an undo needs, for any table size.
trait TableOps<const ID: usize, S: Store> {
    fn pop_last(&mut self) -> Option<S::Str<ID>>;
    fn put_back(&mut self, at: usize, id: S::Str<ID>) -> Result<(), ()>;
}

impl<const N: usize, const ID: usize, S: Store> TableOps<ID, S> for IdTable<N, ID, S> {
    fn pop_last(&mut self) -> Option<S::Str<ID>> {
        self.ids.pop_last()
    }

    fn put_back(&mut self, at: usize, id: S::Str<ID>) -> Result<(), ()> {
        self.ids.put_back(at, id)
    }
}

fn rule(code: Code, ev: &EventRef<'_>) -> Error {
    let detail = if ev.id.is_empty() {
        Detail::None
    } else {
        Detail::Id(error_text(ev.id))
    };
    Error::new(Stage::Verify, code, Some(ev.kind), detail)
}

#[inline]
fn table_rule<const N: usize, const ID: usize, S: Store>(
    table: &mut IdTable<N, ID, S>,
    op: TableOp,
    which: Tracked,
    ev: &EventRef<'_>,
) -> Result<(), Error> {
    match op {
        TableOp::Opens => open(table, ev, which.active(), which.capacity()),
        TableOp::NeedsOpen => must_be_open(table, ev, which.not_active()),
        TableOp::Closes => close(table, ev, which.not_active()),
    }
}

fn open<const N: usize, const ID: usize, S: Store>(
    table: &mut IdTable<N, ID, S>,
    ev: &EventRef<'_>,
    active: Code,
    name: Table,
) -> Result<(), Error> {
    if table.contains(ev.id) {
        return Err(rule(active, ev));
    }
    let (table_kind, limit) = if ev.id.len() > ID {
        (Table::IdSlot, ID)
    } else {
        (name, N)
    };
    table.insert(ev.id).map_err(|()| {
        let detail = Detail::Capacity {
            table: table_kind,
            limit,
            field: None,
            id: error_text(ev.id),
        };
        Error::new(Stage::Verify, Code::Capacity, Some(ev.kind), detail)
    })
}

fn must_be_open<const N: usize, const ID: usize, S: Store>(
    table: &IdTable<N, ID, S>,
    ev: &EventRef<'_>,
    not_active: Code,
) -> Result<(), Error> {
    if table.contains(ev.id) {
        Ok(())
    } else {
        Err(rule(not_active, ev))
    }
}

fn close<const N: usize, const ID: usize, S: Store>(
    table: &mut IdTable<N, ID, S>,
    ev: &EventRef<'_>,
    not_active: Code,
) -> Result<(), Error> {
    must_be_open(table, ev, not_active)?;
    table.remove(ev.id);
    Ok(())
}

fn unclosed<const N: usize, const ID: usize, S: Store>(
    table: &IdTable<N, ID, S>,
    which: Tracked,
    ev: &EventRef<'_>,
) -> Result<(), Error> {
    if table.is_empty() {
        return Ok(());
    }
    let mut list = crate::error::ErrorText::new();
    for (i, id) in table.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        if list
            .len()
            .saturating_add(sep.len())
            .saturating_add(id.len())
            .saturating_add(4)
            > list.capacity()
        {
            let _ = list.push_str(", …");
            break;
        }
        let _ = list.push_str(sep);
        let _ = list.push_str(id);
    }
    let detail = Detail::Open {
        list,
        count: table.len(),
    };
    Err(Error::new(
        Stage::Verify,
        which.unclosed(),
        Some(ev.kind),
        detail,
    ))
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
    use crate::event::{EventType as T, Origin, Role};
    use proptest::prelude::*;
    use std::borrow::ToOwned;
    use std::string::String;
    use std::vec::Vec;

    /// Two open items per table and 8-byte ids, so that capacity is reached.
    type Small = Verifier<8, 2, 2, 2>;

    fn ev(kind: T, id: &str, frame: u32) -> EventRef<'_> {
        EventRef {
            kind,
            origin: Origin::Frame,
            frame,
            id,
            name: "",
            role: Role::Assistant,
            subagent: None,
        }
    }

    /// Runs `events` through a fresh verifier: `Ok` or the index and code
    /// of the first refused event.
    fn run(events: &[(T, &str)]) -> Result<(), (usize, Code)> {
        let mut v = Small::new();
        for (i, &(kind, id)) in events.iter().enumerate() {
            v.check(&ev(kind, id, i as u32)).map_err(|e| (i, e.code))?;
        }
        Ok(())
    }

    /// A stream, and `Ok` or where and with which code it fails.
    type Row = (&'static [(T, &'static str)], Result<(), (usize, Code)>);

    const START: (T, &str) = (T::RunStarted, "");
    const FINISH: (T, &str) = (T::RunFinished, "");
    const ERROR: (T, &str) = (T::RunError, "");

    /// One row per rule (SPEC section 4): a stream and where it fails.
    #[test]
    fn every_rule_has_its_code() {
        use Code as C;
        let rows: &[Row] = &[
            (
                &[START, (T::TextMessageStart, "m"), FINISH],
                Err((2, C::UnclosedMessages)),
            ),
            (&[(T::TextMessageStart, "m")], Err((0, C::FirstEvent))),
            (&[ERROR, START, FINISH], Ok(())),
            (&[START, ERROR, (T::Custom, "")], Err((2, C::RunErrored))),
            (&[START, FINISH, (T::Custom, "")], Err((2, C::RunFinished))),
            (&[START, FINISH, ERROR, START], Ok(())),
            (&[START, START], Err((1, C::RunActive))),
            (
                &[
                    START,
                    (T::TextMessageStart, "m"),
                    (T::TextMessageStart, "m"),
                ],
                Err((2, C::MessageActive)),
            ),
            (
                &[START, (T::TextMessageContent, "m")],
                Err((1, C::MessageNotActive)),
            ),
            (
                &[START, (T::TextMessageEnd, "m")],
                Err((1, C::MessageNotActive)),
            ),
            (
                &[START, (T::ToolCallStart, "c"), (T::ToolCallStart, "c")],
                Err((2, C::ToolCallActive)),
            ),
            (
                &[START, (T::ToolCallArgs, "c")],
                Err((1, C::ToolCallNotActive)),
            ),
            (
                &[START, (T::ToolCallEnd, "c")],
                Err((1, C::ToolCallNotActive)),
            ),
            (
                &[START, (T::StepStarted, "s"), (T::StepStarted, "s")],
                Err((2, C::StepActive)),
            ),
            (&[START, (T::StepFinished, "s")], Err((1, C::StepNotActive))),
            (
                &[
                    START,
                    (T::StepStarted, "s"),
                    (T::TextMessageStart, "m"),
                    FINISH,
                ],
                Err((3, C::UnclosedSteps)),
            ),
            (
                &[START, (T::ToolCallStart, "c"), FINISH],
                Err((2, C::UnclosedToolCalls)),
            ),
            (
                &[START, (T::ThinkingStart, ""), (T::ThinkingStart, "")],
                Err((2, C::ThinkingActive)),
            ),
            (
                &[START, (T::ThinkingEnd, "")],
                Err((1, C::ThinkingNotActive)),
            ),
            (
                &[START, (T::ThinkingTextMessageStart, "")],
                Err((1, C::ThinkingNotActive)),
            ),
            (
                &[
                    START,
                    (T::ThinkingStart, ""),
                    (T::ThinkingTextMessageStart, ""),
                    (T::ThinkingTextMessageStart, ""),
                ],
                Err((3, C::ThinkingMessageActive)),
            ),
            (
                &[START, (T::ThinkingTextMessageContent, "")],
                Err((1, C::ThinkingMessageNotActive)),
            ),
            (
                &[
                    START,
                    (T::ThinkingStart, ""),
                    (T::ThinkingTextMessageEnd, ""),
                ],
                Err((2, C::ThinkingMessageNotActive)),
            ),
            // A thinking message outlives its step's end (as in the reference).
            (
                &[
                    START,
                    (T::ThinkingStart, ""),
                    (T::ThinkingTextMessageStart, ""),
                    (T::ThinkingEnd, ""),
                    (T::ThinkingTextMessageContent, ""),
                    (T::ThinkingTextMessageEnd, ""),
                    FINISH,
                ],
                Ok(()),
            ),
            (
                &[
                    START,
                    (T::TextMessageStart, "a"),
                    (T::TextMessageStart, "b"),
                    (T::TextMessageStart, "c"),
                ],
                Err((3, C::Capacity)),
            ),
            (
                &[START, (T::StepStarted, "longer-than-8")],
                Err((1, C::Capacity)),
            ),
            // A new run forgets the old one's ids and thinking.
            (
                &[
                    START,
                    (T::ThinkingStart, ""),
                    (T::TextMessageStart, "m"),
                    ERROR,
                    START,
                    (T::ThinkingStart, ""),
                    (T::TextMessageStart, "m"),
                ],
                Ok(()),
            ),
        ];
        for (events, want) in rows {
            assert_eq!(run(events), *want, "{events:?}");
        }
    }

    /// The case the property test once found (kept from its regression
    /// file): undoing a RUN_STARTED that began a new run restores the
    /// life cycle, not the old run's ids (documented, unobservable).
    #[test]
    fn undoing_a_new_run_restores_the_life_cycle() {
        let mut v = Small::new();
        for (i, kind) in [T::RunStarted, T::ToolCallStart, T::RunError]
            .into_iter()
            .enumerate()
        {
            v.check(&ev(kind, "a", i as u32)).unwrap();
        }
        let before = v.lifecycle();
        let undo = v.check_undoable(&ev(T::RunStarted, "a", 3)).unwrap();
        assert!(v.open_tool_calls().is_empty());
        v.undo(undo);
        assert_eq!(v.lifecycle(), before);
        assert_eq!(before.run, Run::Errored);
        assert_eq!(
            v.check(&ev(T::ToolCallArgs, "a", 4)).unwrap_err().code,
            Code::RunErrored
        );
    }

    /// SPEC section 4, written as plainly as possible, with no use of the
    /// event table: an independent oracle for the property test.
    #[derive(Clone, Debug, Default, PartialEq)]
    struct Model {
        msgs: Vec<String>,
        tools: Vec<String>,
        steps: Vec<String>,
        started: bool,
        finished: bool,
        errored: bool,
        first: bool,
        thinking: bool,
        tmsg: bool,
    }

    fn open(set: &mut Vec<String>, id: &str, active: &'static str) -> Result<(), &'static str> {
        if set.iter().any(|x| x == id) {
            return Err(active);
        }
        if id.len() > 8 || set.len() == 2 {
            return Err("capacity");
        }
        set.push(id.to_owned());
        Ok(())
    }

    fn needs(
        set: &mut Vec<String>,
        id: &str,
        close: bool,
        missing: &'static str,
    ) -> Result<(), &'static str> {
        let at = set.iter().position(|x| x == id).ok_or(missing)?;
        if close {
            set.remove(at);
        }
        Ok(())
    }

    impl Model {
        fn check(&mut self, kind: T, id: &str) -> Result<(), &'static str> {
            let mut next = self.clone();
            next.apply(kind, id)?;
            next.first = true;
            *self = next;
            Ok(())
        }

        fn run_rules(&mut self, kind: T) -> Result<(), &'static str> {
            if self.errored && kind != T::RunStarted {
                return Err("run_errored");
            }
            if self.finished && kind != T::RunError && kind != T::RunStarted {
                return Err("run_finished");
            }
            if !self.first {
                if kind != T::RunStarted && kind != T::RunError {
                    return Err("first_event");
                }
            } else if kind == T::RunStarted {
                if self.started && !self.finished && !self.errored {
                    return Err("run_active");
                }
                *self = Model {
                    first: true,
                    ..Model::default()
                };
            }
            Ok(())
        }

        fn apply(&mut self, kind: T, id: &str) -> Result<(), &'static str> {
            self.run_rules(kind)?;
            match kind {
                T::TextMessageStart => open(&mut self.msgs, id, "message_active")?,
                T::TextMessageContent => needs(&mut self.msgs, id, false, "message_not_active")?,
                T::TextMessageEnd => needs(&mut self.msgs, id, true, "message_not_active")?,
                T::ToolCallStart => open(&mut self.tools, id, "tool_call_active")?,
                T::ToolCallArgs => needs(&mut self.tools, id, false, "tool_call_not_active")?,
                T::ToolCallEnd => needs(&mut self.tools, id, true, "tool_call_not_active")?,
                T::StepStarted => open(&mut self.steps, id, "step_active")?,
                T::StepFinished => needs(&mut self.steps, id, true, "step_not_active")?,
                T::RunStarted => self.started = true,
                T::RunFinished if !self.steps.is_empty() => return Err("unclosed_steps"),
                T::RunFinished if !self.msgs.is_empty() => return Err("unclosed_messages"),
                T::RunFinished if !self.tools.is_empty() => return Err("unclosed_tool_calls"),
                T::RunFinished => self.finished = true,
                T::RunError => self.errored = true,
                T::ThinkingStart if self.thinking => return Err("thinking_active"),
                T::ThinkingStart => self.thinking = true,
                T::ThinkingEnd if !self.thinking => return Err("thinking_not_active"),
                T::ThinkingEnd => self.thinking = false,
                T::ThinkingTextMessageStart if !self.thinking => return Err("thinking_not_active"),
                T::ThinkingTextMessageStart if self.tmsg => return Err("thinking_message_active"),
                T::ThinkingTextMessageStart => self.tmsg = true,
                T::ThinkingTextMessageContent if !self.tmsg => {
                    return Err("thinking_message_not_active")
                }
                T::ThinkingTextMessageContent => {}
                T::ThinkingTextMessageEnd if !self.tmsg => {
                    return Err("thinking_message_not_active")
                }
                T::ThinkingTextMessageEnd => self.tmsg = false,
                // No rule beyond the run's. (The chunks never reach a
                // verifier behind chunk expansion; alone, they are free.)
                T::TextMessageChunk
                | T::ToolCallChunk
                | T::ToolCallResult
                | T::ReasoningStart
                | T::ReasoningEnd
                | T::ReasoningMessageStart
                | T::ReasoningMessageContent
                | T::ReasoningMessageEnd
                | T::ReasoningMessageChunk
                | T::ReasoningEncryptedValue
                | T::StateSnapshot
                | T::StateDelta
                | T::SubagentStarted
                | T::SubagentFinished
                | T::SubagentError
                | T::MessagesSnapshot
                | T::ActivitySnapshot
                | T::ActivityDelta
                | T::Raw
                | T::Custom => {}
            }
            Ok(())
        }
    }

    const IDS: &[&str] = &["a", "b", "c", "", "a-very-long-id"];

    /// The kinds with a run or table rule come more often, so that runs
    /// get deep; every event type of the table takes part.
    fn step() -> impl Strategy<Value = (T, &'static str, bool)> {
        let ruled: Vec<T> = T::ALL
            .iter()
            .copied()
            .filter(|k| k.rule() != Rule::Free)
            .collect();
        let kind = prop_oneof![
            3 => prop::sample::select(&[T::RunStarted, T::RunFinished, T::RunError][..]),
            6 => prop::sample::select(ruled),
            3 => prop::sample::select(T::ALL),
        ];
        (kind, prop::sample::select(IDS), any::<bool>())
    }

    fn tables(v: &Small) -> (Vec<String>, Vec<String>, Vec<String>) {
        let list = |it: &mut dyn Iterator<Item = &str>| it.map(str::to_owned).collect::<Vec<_>>();
        (
            list(&mut v.open_messages().iter()),
            list(&mut v.open_tool_calls().iter()),
            list(&mut v.open_steps().iter()),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// The verifier agrees with the model on every event, and
        /// `check_undoable` + `undo` take an accepted event back exactly.
        #[test]
        fn verifier_matches_the_model(steps in prop::collection::vec(step(), 1..60)) {
            let mut model = Model::default();
            let mut v = Small::new();
            for (i, (kind, id, undo)) in steps.into_iter().enumerate() {
                let before = (tables(&v), v.lifecycle());
                let want = model.clone().check(kind, id);
                let got = v.check_undoable(&ev(kind, id, i as u32));
                match (&got, want) {
                    (Ok(_), Ok(())) => {}
                    (Err(e), Err(code)) => prop_assert_eq!(e.code.as_str(), code, "event {} {:?} {:?}", i, kind, id),
                    _ => prop_assert!(false, "event {} {:?} {:?}: verifier {:?}, model {:?}", i, kind, id, got, want),
                }
                match got {
                    Ok(record) if undo => {
                        v.undo(record);
                        if kind == T::RunStarted {
                            // Documented: undoing a RUN_STARTED that began a
                            // new run restores the life cycle only.
                            prop_assert_eq!(v.lifecycle(), before.1);
                        } else {
                            prop_assert_eq!((tables(&v), v.lifecycle()), before);
                        }
                    }
                    Ok(_) => {
                        model.check(kind, id).unwrap();
                        prop_assert_eq!(tables(&v), (model.msgs.clone(), model.tools.clone(), model.steps.clone()));
                        let thinking = match v.lifecycle().thinking {
                            Thinking::Off => (false, false),
                            Thinking::Step => (true, false),
                            Thinking::Message => (true, true),
                            Thinking::StrayMessage => (false, true),
                        };
                        prop_assert_eq!(thinking, (model.thinking, model.tmsg));
                    }
                    // A rejected event changes nothing.
                    Err(_) => prop_assert_eq!((tables(&v), v.lifecycle()), before),
                }
            }
        }
    }
}
