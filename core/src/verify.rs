//! Verification: the protocol's ordering rules, as a state machine.
//!
//! The verifier sees every expanded event and answers "allowed" or an
//! [`Error`] with the rule's code (SPEC section 4). Its state is small: which
//! text messages, tool calls and steps are open (in fixed tables, in the
//! order they opened), and six flags. A stream may hold many runs: after
//! `RUN_FINISHED` or `RUN_ERROR`, a new `RUN_STARTED` resets everything.
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
//! an [`Undo`] record (a few bytes, plus a copy of the id for an END) that
//! [`Verifier::undo`] applies. The pipeline's keep-going mode uses it to
//! make a frame that expands into several events all-or-nothing.
//!
//! ```
//! use agui_core::event::{Event, EventType, Origin, Role};
//! use agui_core::verify::Verifier;
//! use agui_core::error::Code;
//!
//! let ev = |kind, id| Event { kind, origin: Origin::Frame, frame: 0, id, name: "", role: Role::Assistant };
//! let mut v: Verifier = Verifier::new();
//! v.check(&ev(EventType::RunStarted, "")).unwrap();
//! v.check(&ev(EventType::TextMessageStart, "m1")).unwrap();
//! let err = v.check(&ev(EventType::TextMessageContent, "m2")).unwrap_err();
//! assert_eq!(err.code, Code::MessageNotActive);
//! assert_eq!(err.id(), Some("m2"));
//! ```

use crate::error::{error_text, Code, Detail, Error, Stage, Table};
use crate::event::{Event, EventType};

/// An insertion-ordered set of ids with room for `N` ids of `ID` bytes.
#[derive(Debug, Clone, Default)]
pub struct IdTable<const N: usize, const ID: usize> {
    ids: heapless::Vec<heapless::String<ID>, N>,
}

impl<const N: usize, const ID: usize> IdTable<N, ID> {
    /// An empty table.
    pub const fn new() -> Self {
        IdTable {
            ids: heapless::Vec::new(),
        }
    }

    /// True if `id` is in the table.
    pub fn contains(&self, id: &str) -> bool {
        self.ids.iter().any(|x| x.as_str() == id)
    }

    /// Adds `id`; `Err(())` if the table is full or the id too long.
    #[allow(clippy::result_unit_err)]
    pub fn insert(&mut self, id: &str) -> Result<(), ()> {
        let mut slot = heapless::String::new();
        slot.push_str(id).map_err(drop)?;
        self.ids.push(slot).map_err(drop)
    }

    /// Removes `id`, keeping the others in order.
    pub fn remove(&mut self, id: &str) {
        if let Some(at) = self.position(id) {
            self.ids.remove(at);
        }
    }

    /// Where `id` is, oldest first.
    fn position(&self, id: &str) -> Option<usize> {
        self.ids.iter().position(|x| x.as_str() == id)
    }

    /// The ids, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.ids.iter().map(|s| s.as_str())
    }

    /// Number of ids.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True if empty.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Empties the table.
    pub fn clear(&mut self) {
        self.ids.clear();
    }
}

/// One of the verifier's three tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Which {
    Messages,
    ToolCalls,
    Steps,
}

/// What an accepted event changed in a table.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Change<const ID: usize> {
    /// Nothing (flags only, if anything).
    None,
    /// An id was added at the end of the table.
    Opened(Which),
    /// The id was removed from this position.
    Closed(Which, usize, heapless::String<ID>),
}

/// How to take back one accepted event: see [`Verifier::check_undoable`].
///
/// Undo records must be applied newest first, to the verifier that made
/// them, before any other event is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undo<const ID: usize = 64> {
    flags: [bool; 6],
    change: Change<ID>,
}

/// The verifier. `MSGS`, `TOOLS` and `STEPS` are how many text messages,
/// tool calls and steps may be open at once; `ID` is the id capacity in bytes.
#[derive(Debug, Clone, Default)]
pub struct Verifier<
    const MSGS: usize = 8,
    const TOOLS: usize = 8,
    const STEPS: usize = 8,
    const ID: usize = 64,
> {
    messages: IdTable<MSGS, ID>,
    tool_calls: IdTable<TOOLS, ID>,
    steps: IdTable<STEPS, ID>,
    run_started: bool,
    run_finished: bool,
    run_errored: bool,
    first_seen: bool,
    thinking: bool,
    thinking_message: bool,
}

impl<const MSGS: usize, const TOOLS: usize, const STEPS: usize, const ID: usize>
    Verifier<MSGS, TOOLS, STEPS, ID>
{
    /// A verifier before the first event.
    pub const fn new() -> Self {
        Verifier {
            messages: IdTable::new(),
            tool_calls: IdTable::new(),
            steps: IdTable::new(),
            run_started: false,
            run_finished: false,
            run_errored: false,
            first_seen: false,
            thinking: false,
            thinking_message: false,
        }
    }

    /// Open text messages, oldest first.
    pub fn open_messages(&self) -> &IdTable<MSGS, ID> {
        &self.messages
    }

    /// Open tool calls, oldest first.
    pub fn open_tool_calls(&self) -> &IdTable<TOOLS, ID> {
        &self.tool_calls
    }

    /// Open steps, oldest first.
    pub fn open_steps(&self) -> &IdTable<STEPS, ID> {
        &self.steps
    }

    /// True while a run is started and neither finished nor errored.
    pub fn run_active(&self) -> bool {
        self.run_started && !self.run_finished && !self.run_errored
    }

    /// Checks one event and, if it is allowed, applies it to the state.
    ///
    /// # Errors
    /// The first rule the event breaks; the state is then unchanged. The
    /// error's frame index is the event's.
    pub fn check(&mut self, ev: &Event<'_>) -> Result<(), Error> {
        self.check_run(ev)
            .and_then(|()| self.check_kind(ev))
            .map_err(|e| e.at(ev.frame))
    }

    /// [`check`](Self::check), and on success a record that takes the
    /// event back with [`undo`](Self::undo).
    ///
    /// Undoing a `RUN_STARTED` that began a new run restores the flags
    /// only: the previous run's open ids stay forgotten. That is never
    /// observable through the rules: after `RUN_FINISHED` nothing is open,
    /// and after `RUN_ERROR` every event but `RUN_STARTED` (which forgets
    /// them anyway) is refused.
    ///
    /// ```
    /// use agui_core::event::{Event, EventType, Origin, Role};
    /// use agui_core::verify::Verifier;
    ///
    /// let ev = |kind, id| Event { kind, origin: Origin::Frame, frame: 0, id, name: "", role: Role::Assistant };
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
    pub fn check_undoable(&mut self, ev: &Event<'_>) -> Result<Undo<ID>, Error> {
        let flags = self.flags();
        // Where an END's id sits now, to put it back in its place.
        let closing = match ev.kind {
            EventType::TextMessageEnd => Some((Which::Messages, self.messages.position(ev.id))),
            EventType::ToolCallEnd => Some((Which::ToolCalls, self.tool_calls.position(ev.id))),
            EventType::StepFinished => Some((Which::Steps, self.steps.position(ev.id))),
            _ => None,
        };
        self.check(ev)?;
        let change = match (ev.kind, closing) {
            (_, Some((which, Some(at)))) => {
                let mut id = heapless::String::new();
                // The id came out of a slot of this capacity.
                let _ = id.push_str(ev.id);
                Change::Closed(which, at, id)
            }
            (EventType::TextMessageStart, _) => Change::Opened(Which::Messages),
            (EventType::ToolCallStart, _) => Change::Opened(Which::ToolCalls),
            (EventType::StepStarted, _) => Change::Opened(Which::Steps),
            _ => Change::None,
        };
        Ok(Undo { flags, change })
    }

    /// Takes back the event that `undo` was made for (see
    /// [`check_undoable`](Self::check_undoable)).
    pub fn undo(&mut self, undo: Undo<ID>) {
        self.set_flags(undo.flags);
        match undo.change {
            Change::None => {}
            Change::Opened(which) => self.with_table(which, |ids| drop(ids.pop_last())),
            Change::Closed(which, at, id) => self.with_table(which, |ids| {
                // The slot was freed by the close, so the id fits again.
                let _ = ids.put_back(at.min(ids.len()), id);
            }),
        }
    }

    fn with_table<R>(&mut self, which: Which, f: impl FnOnce(&mut dyn TableOps<ID>) -> R) -> R {
        match which {
            Which::Messages => f(&mut self.messages),
            Which::ToolCalls => f(&mut self.tool_calls),
            Which::Steps => f(&mut self.steps),
        }
    }

    fn flags(&self) -> [bool; 6] {
        [
            self.run_started,
            self.run_finished,
            self.run_errored,
            self.first_seen,
            self.thinking,
            self.thinking_message,
        ]
    }

    fn set_flags(&mut self, flags: [bool; 6]) {
        [
            self.run_started,
            self.run_finished,
            self.run_errored,
            self.first_seen,
            self.thinking,
            self.thinking_message,
        ] = flags;
    }

    /// Rules 1 to 3: the run's life cycle.
    fn check_run(&mut self, ev: &Event<'_>) -> Result<(), Error> {
        let kind = ev.kind;
        if self.run_errored && kind != EventType::RunStarted {
            return Err(rule(Code::RunErrored, ev));
        }
        if self.run_finished && !matches!(kind, EventType::RunError | EventType::RunStarted) {
            return Err(rule(Code::RunFinished, ev));
        }
        if !self.first_seen {
            if !matches!(kind, EventType::RunStarted | EventType::RunError) {
                return Err(rule(Code::FirstEvent, ev));
            }
        } else if kind == EventType::RunStarted {
            if self.run_active() {
                return Err(rule(Code::RunActive, ev));
            }
            if self.run_finished || self.run_errored {
                self.start_over();
            }
        }
        Ok(())
    }

    /// Forgets the previous run: a new one begins.
    fn start_over(&mut self) {
        self.messages.clear();
        self.tool_calls.clear();
        self.steps.clear();
        self.thinking = false;
        self.thinking_message = false;
        self.run_finished = false;
        self.run_errored = false;
    }

    /// Rule 4: the per-type rules.
    fn check_kind(&mut self, ev: &Event<'_>) -> Result<(), Error> {
        use EventType as T;
        match ev.kind {
            T::TextMessageStart => {
                open(&mut self.messages, ev, Code::MessageActive, Table::Messages)?
            }
            T::TextMessageContent => must_be_open(&self.messages, ev, Code::MessageNotActive)?,
            T::TextMessageEnd => close(&mut self.messages, ev, Code::MessageNotActive)?,
            T::ToolCallStart => open(
                &mut self.tool_calls,
                ev,
                Code::ToolCallActive,
                Table::ToolCalls,
            )?,
            T::ToolCallArgs => must_be_open(&self.tool_calls, ev, Code::ToolCallNotActive)?,
            T::ToolCallEnd => close(&mut self.tool_calls, ev, Code::ToolCallNotActive)?,
            T::StepStarted => open(&mut self.steps, ev, Code::StepActive, Table::Steps)?,
            T::StepFinished => close(&mut self.steps, ev, Code::StepNotActive)?,
            T::RunStarted => self.run_started = true,
            T::RunFinished => {
                unclosed(&self.steps, Code::UnclosedSteps, ev)?;
                unclosed(&self.messages, Code::UnclosedMessages, ev)?;
                unclosed(&self.tool_calls, Code::UnclosedToolCalls, ev)?;
                self.run_finished = true;
            }
            T::RunError => self.run_errored = true,
            T::ThinkingStart => flag_on(&mut self.thinking, Code::ThinkingActive, ev)?,
            T::ThinkingEnd => flag_off(&mut self.thinking, Code::ThinkingNotActive, ev)?,
            T::ThinkingTextMessageStart => {
                if !self.thinking {
                    return Err(rule(Code::ThinkingNotActive, ev));
                }
                flag_on(&mut self.thinking_message, Code::ThinkingMessageActive, ev)?;
            }
            T::ThinkingTextMessageContent if !self.thinking_message => {
                return Err(rule(Code::ThinkingMessageNotActive, ev));
            }
            T::ThinkingTextMessageEnd => {
                flag_off(
                    &mut self.thinking_message,
                    Code::ThinkingMessageNotActive,
                    ev,
                )?;
            }
            _ => {}
        }
        self.first_seen = true;
        Ok(())
    }
}

/// The two table edits an undo needs, for any table size.
trait TableOps<const ID: usize> {
    fn pop_last(&mut self) -> Option<heapless::String<ID>>;
    fn len(&self) -> usize;
    fn put_back(&mut self, at: usize, id: heapless::String<ID>) -> Result<(), ()>;
}

impl<const N: usize, const ID: usize> TableOps<ID> for IdTable<N, ID> {
    fn pop_last(&mut self) -> Option<heapless::String<ID>> {
        self.ids.pop()
    }

    fn len(&self) -> usize {
        self.ids.len()
    }

    fn put_back(&mut self, at: usize, id: heapless::String<ID>) -> Result<(), ()> {
        self.ids.insert(at, id).map_err(drop)
    }
}

fn rule(code: Code, ev: &Event<'_>) -> Error {
    let detail = if ev.id.is_empty() {
        Detail::None
    } else {
        Detail::Id(error_text(ev.id))
    };
    Error::new(Stage::Verify, code, Some(ev.kind), detail)
}

fn open<const N: usize, const ID: usize>(
    table: &mut IdTable<N, ID>,
    ev: &Event<'_>,
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

fn must_be_open<const N: usize, const ID: usize>(
    table: &IdTable<N, ID>,
    ev: &Event<'_>,
    not_active: Code,
) -> Result<(), Error> {
    if table.contains(ev.id) {
        Ok(())
    } else {
        Err(rule(not_active, ev))
    }
}

fn close<const N: usize, const ID: usize>(
    table: &mut IdTable<N, ID>,
    ev: &Event<'_>,
    not_active: Code,
) -> Result<(), Error> {
    must_be_open(table, ev, not_active)?;
    table.remove(ev.id);
    Ok(())
}

fn unclosed<const N: usize, const ID: usize>(
    table: &IdTable<N, ID>,
    code: Code,
    ev: &Event<'_>,
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
    Err(Error::new(Stage::Verify, code, Some(ev.kind), detail))
}

fn flag_on(flag: &mut bool, active: Code, ev: &Event<'_>) -> Result<(), Error> {
    if *flag {
        return Err(rule(active, ev));
    }
    *flag = true;
    Ok(())
}

fn flag_off(flag: &mut bool, not_active: Code, ev: &Event<'_>) -> Result<(), Error> {
    if !*flag {
        return Err(rule(not_active, ev));
    }
    *flag = false;
    Ok(())
}
