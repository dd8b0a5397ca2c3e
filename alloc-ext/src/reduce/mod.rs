//! The reducer: folds verified events into `{ messages, state }` (SPEC section 5).
//!
//! # Cost per event
//!
//! Every event costs time proportional to its own size (amortised), whatever
//! the messages, the state and the limits hold; the index (module `index`)
//! and the sizes kept up to date are what make that so:
//!
//! - Ids are found through an index (`O(log n)` map lookups) that keeps,
//!   per message id and per tool-call id, every occurrence in list order, so
//!   the first one is at hand and a removed one is replaced by the next.
//! - Text and argument deltas are appended in place; the partial arguments
//!   are advanced by the delta only.
//! - `TOOL_CALL_RESULT` goes after its owner and the results already there;
//!   the index remembers where the last result after each owner went, so
//!   each result is looked past once. Inserting in the middle moves the
//!   later messages (`Vec::insert`, one `memmove`) and renumbers their
//!   handles in one tight loop: no map entry is touched for them.
//! - `MESSAGES_SNAPSHOT` looks only at the snapshot and at the local
//!   messages it replaces or removes (activity and reasoning messages it
//!   keeps as client-only are not visited); replaced messages are
//!   overwritten in place, removed ones taken out in one pass from the first
//!   of them, and only their index entries change.
//! - Limits are checked against sizes kept up to date by each change:
//!   the bytes the messages hold, the state's compact JSON size (a JSON
//!   Patch measures what it adds, and counts back what it takes out when it
//!   drops it, see [`crate::patch::apply_patch_sized`]), and each patched
//!   activity's content size. Nothing is re-measured as a whole.
//!
//! What remains proportional to something else is proportional to work the
//! event really does: a `copy` clones the value it copies (and adds that
//! much state), a removed or replaced value is measured as it is dropped,
//! an array insert in the state moves the items after it, and a snapshot
//! entry replaces every local message with its id (a list holding many
//! messages with one id gets each of them replaced).
//!
//! Memory: besides the messages and their index, the reducer keeps per
//! streaming tool call the partial-arguments state and the arguments at
//! END. Once a call has ended with a text that is one complete document
//! (or no text), that state is released before the next event and only a
//! copy of the text is kept for the id (the last good value the reference
//! carries per id follows from it, see `ArgsSlot`). Everything kept is
//! counted against [`ReducerLimits::max_message_bytes`].
//!
//! ```
//! use agui_alloc::event::Event;
//! use agui_alloc::reduce::Reducer;
//! use agui_core::event::{EventType, Origin};
//! use serde_json::json;
//!
//! let frames = [
//!     json!({"type": "TEXT_MESSAGE_START", "messageId": "m"}),
//!     json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "Hi"}),
//!     json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/n", "value": 1}]}),
//! ];
//! let mut reducer = Reducer::new();
//! let mut trace = Vec::new();
//! for frame in &frames {
//!     let kind = EventType::from_wire(frame["type"].as_str().unwrap()).unwrap();
//!     let ev = Event::from_core(kind, Origin::Frame, "", frame).unwrap();
//!     trace.push(reducer.apply(&ev).as_str());
//! }
//! assert_eq!(trace, ["m", "m", "s"]);
//! assert_eq!(reducer.messages()[0].text(), Some("Hi"));
//! assert_eq!(reducer.state(), &json!({"n": 1}));
//! ```
//!
//! # Layout
//!
//! By event family, as the event table groups them: this file holds the
//! [`Reducer`] and the flow of one event (limits checked, hooks, default
//! handling, notifications) and what the families share (the list, its
//! index, metadata merges); `limits.rs` the limits and the sizes checked
//! against them; `run.rs`, `messages.rs` (text messages and
//! `MESSAGES_SNAPSHOT`), `tools.rs`, `reasoning.rs`, `activity.rs` and
//! `state.rs` the fold of their events, each with its event types'
//! decisions (their `impl Rules` blocks); `rules.rs` the `Rules` trait, the
//! operations over it and the dispatch from an event to its type's block.

mod activity;
mod limits;
mod messages;
mod reasoning;
mod rules;
mod run;
mod state;
#[cfg(test)]
mod tests;
mod tools;

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::ops::{BitOr, BitOrAssign};

use agui_core::event::EventType;
use serde_json::Value;

use crate::event::Event;
use crate::hooks::{Flow, HookView, Subscriber};
use crate::index::Index;
use crate::model::{Dialect, Interrupt, Message, Object, ToolCall};
use crate::patch::{PatchError, Refused};
use crate::size::{json_size, member_overhead, message_bytes, Size};

pub use limits::{Limit, LimitError, ReducerLimits};
pub use run::RunOutcome;

use limits::Delta;
use run::RunCalls;
use tools::{ArgsSlot, ArgsSlots};

/// What one event changed.
///
/// Without hooks an event changes the messages, the state or neither, never
/// both; a hook that replaces both makes both flags true (`"ms"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Changed {
    /// The message list changed.
    pub messages: bool,
    /// The state changed.
    pub state: bool,
}

impl Changed {
    /// Nothing changed.
    pub const NONE: Changed = Changed {
        messages: false,
        state: false,
    };
    /// The messages changed.
    pub const MESSAGES: Changed = Changed {
        messages: true,
        state: false,
    };
    /// The state changed.
    pub const STATE: Changed = Changed {
        messages: false,
        state: true,
    };

    /// The trace's code: `""`, `"m"`, `"s"`, or `"ms"` when a hook replaced both.
    ///
    /// ```
    /// use agui_alloc::reduce::Changed;
    /// assert_eq!((Changed::MESSAGES | Changed::STATE).as_str(), "ms");
    /// assert_eq!(Changed::NONE.as_str(), "");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match (self.messages, self.state) {
            (false, false) => "",
            (true, false) => "m",
            (false, true) => "s",
            (true, true) => "ms",
        }
    }

    /// True if anything changed.
    pub const fn any(self) -> bool {
        self.messages || self.state
    }

    /// [`Changed::MESSAGES`] if `changed`, else [`Changed::NONE`].
    const fn messages_if(changed: bool) -> Changed {
        Changed {
            messages: changed,
            state: false,
        }
    }
}

impl BitOr for Changed {
    type Output = Changed;
    fn bitor(self, rhs: Changed) -> Changed {
        Changed {
            messages: self.messages || rhs.messages,
            state: self.state || rhs.state,
        }
    }
}

impl BitOrAssign for Changed {
    fn bitor_assign(&mut self, rhs: Changed) {
        *self = *self | rhs;
    }
}

/// An event the reducer folded without effect. Not an error of the
/// stream: nothing changed and the stream goes on (SPEC sections 5, 9.8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoldWarning {
    /// The event's type.
    pub event: EventType,
    /// Why it had no effect.
    pub kind: FoldWarningKind,
}

/// Why an event had no effect (see [`FoldWarning`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FoldWarningKind {
    /// A `STATE_DELTA` or `ACTIVITY_DELTA` patch failed; the patched value
    /// is left as it was.
    Patch(PatchError),
    /// AG-UI 1.0: a text or reasoning message event named an activity
    /// message, which such events do not change.
    ActivityText {
        /// The activity message's id.
        message_id: String,
    },
}

impl fmt::Display for FoldWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            FoldWarningKind::Patch(error) => write!(f, "{}: patch failed: {error}", self.event),
            FoldWarningKind::ActivityText { message_id } => write!(
                f,
                "{}: message '{message_id}' is an activity message, which text and reasoning events do not change",
                self.event
            ),
        }
    }
}

/// An event being applied: kept by the caller, or given up.
enum Applied<'e> {
    Shared(&'e Event),
    Owned(&'e mut Event),
}

impl Applied<'_> {
    fn get(&self) -> &Event {
        match self {
            Applied::Shared(e) => e,
            Applied::Owned(e) => e,
        }
    }
}

/// Folds events into messages and state (SPEC section 5).
#[derive(Debug)]
pub struct Reducer {
    messages: Vec<Message>,
    state: Value,
    interrupts: Vec<Interrupt>,
    index: Index,
    args: ArgsSlots,
    warning: Option<FoldWarning>,
    /// `{}`: what the tool-call hooks get for a call not in the messages.
    no_args: Value,
    limits: ReducerLimits,
    /// Bytes the messages hold (see [`ReducerLimits::max_message_bytes`]),
    /// kept up to date by every change.
    text_bytes: usize,
    /// The state's compact JSON size (exact) and nesting depth (an upper
    /// bound), kept up to date by every change.
    state_size: Size,
    /// The size of the `STATE_SNAPSHOT` just checked, for its fold (a
    /// large snapshot is measured once, not twice). Set by the check, taken
    /// by the fold, cleared before every check.
    checked_state: Option<Size>,
    /// The size of the snapshot of the `STATE_SNAPSHOT` about to be
    /// applied, when its reader measured it (see [`Reducer::expect_state_size`]).
    known_state: Option<Size>,
    /// The same for the content of activity messages that deltas patched,
    /// by id (the first message with the id is the one patched), so that a
    /// delta costs what it touches, not the size of the content.
    activity_sizes: BTreeMap<String, Size>,
    /// Why the last `apply` refused its event, if it did.
    refused: Option<LimitError>,
    /// The protocol whose fold rules apply (SPEC 5, or 9.8 for AG-UI 1.0).
    dialect: Dialect,
    /// AG-UI 1.0: the current run's tool calls, for its outcome.
    run_calls: RunCalls,
    /// AG-UI 1.0: what the last `RUN_FINISHED` ended the run with, and
    /// the same as JSON (for the trace).
    outcome: Option<(RunOutcome, Value)>,
}

impl Default for Reducer {
    fn default() -> Self {
        Reducer::new()
    }
}

impl Reducer {
    /// No messages, state `{}`.
    pub fn new() -> Self {
        Reducer::with_initial(Vec::new(), Value::Object(Object::new()))
    }

    /// Starts from the given messages and state.
    pub fn with_initial(messages: Vec<Message>, state: Value) -> Self {
        let mut index = Index::default();
        index.rebuild(&messages);
        let text_bytes = messages.iter().map(message_bytes).sum();
        let state_size = json_size(&state);
        Reducer {
            messages,
            state,
            interrupts: Vec::new(),
            index,
            args: ArgsSlots::default(),
            warning: None,
            no_args: Value::Object(Object::new()),
            limits: ReducerLimits::default(),
            text_bytes,
            state_size,
            checked_state: None,
            known_state: None,
            activity_sizes: BTreeMap::new(),
            refused: None,
            dialect: Dialect::Current,
            run_calls: RunCalls::default(),
            outcome: None,
        }
    }

    /// Sets the resource limits (see [`ReducerLimits`]).
    pub fn with_limits(mut self, limits: ReducerLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Folds by AG-UI 1.0's rules (SPEC 9.8) from now on, or by the
    /// current protocol's; the client sets it from the stream's protocol.
    pub fn set_dialect(&mut self, dialect: Dialect) {
        self.dialect = dialect;
    }

    /// The protocol whose fold rules apply.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// AG-UI 1.0: what the last `RUN_FINISHED` ended its run with (SPEC
    /// 9.9); `None` before one, and in the current protocol.
    pub fn run_outcome(&self) -> Option<&RunOutcome> {
        self.outcome.as_ref().map(|(o, _)| o)
    }

    /// The resource limits.
    pub fn limits(&self) -> &ReducerLimits {
        &self.limits
    }

    /// The bytes the messages hold, as counted against
    /// [`ReducerLimits::max_message_bytes`] (see [`message_bytes`]).
    pub fn message_bytes(&self) -> usize {
        self.text_bytes
    }

    /// The state's size as counted against
    /// [`ReducerLimits::max_state_bytes`]: the length of its compact JSON
    /// text, kept up to date by every change (see [`crate::size`]).
    pub fn state_bytes(&self) -> usize {
        self.state_size.bytes
    }

    /// Why the last [`apply`](Self::apply) refused its event, if it did.
    pub fn last_refusal(&self) -> Option<&LimitError> {
        self.refused.as_ref()
    }

    /// The messages.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The state.
    pub fn state(&self) -> &Value {
        &self.state
    }

    /// The interrupts of the last `RUN_FINISHED` (empty unless its outcome
    /// was an interrupt).
    pub fn interrupts(&self) -> &[Interrupt] {
        &self.interrupts
    }

    /// The first message with this id.
    pub fn message(&self, id: &str) -> Option<&Message> {
        self.messages.get(self.index.message(id)?)
    }

    /// The first tool call with this id.
    pub fn tool_call(&self, id: &str) -> Option<&ToolCall> {
        find_call(&self.messages, &self.index, id)
    }

    /// The arguments value the replay trace shows for `event`, just applied
    /// (SPEC section 7): `("partialArgs", value)` for a `TOOL_CALL_ARGS`,
    /// `("args", value)` for a `TOOL_CALL_END`, when the tool call is in the
    /// messages; `None` otherwise.
    pub fn trace_args(&self, event: &Event) -> Option<(&'static str, &Value)> {
        event.visit(rules::TraceArgs(self))
    }

    /// The patch failure of the last applied event, if it had one
    /// (`STATE_DELTA` or `ACTIVITY_DELTA`). Cleared by every `apply`.
    pub fn last_warning(&self) -> Option<&FoldWarning> {
        self.warning.as_ref()
    }

    /// Replaces the messages (e.g. to start a new conversation).
    pub fn set_messages(&mut self, messages: Vec<Message>) {
        self.messages = messages;
        self.reindex();
    }

    /// Appends a message that no event brought: one the client's own side
    /// sent between runs (its user message, a tool result), so that the
    /// messages are the whole conversation. It is not checked against the
    /// limits (it is the caller's own).
    pub fn add_message(&mut self, message: Message) {
        self.push_message(message);
    }

    /// Replaces the state.
    pub fn set_state(&mut self, state: Value) {
        self.state_size = json_size(&state);
        self.state = state;
    }

    /// Gives back the messages and the state.
    pub fn into_parts(self) -> (Vec<Message>, Value) {
        (self.messages, self.state)
    }

    /// Applies one verified event without hooks. An event that would pass
    /// a limit is not applied: see [`last_refusal`](Self::last_refusal).
    pub fn apply(&mut self, event: &Event) -> Changed {
        self.apply_with(event, &mut ())
    }

    /// Applies one verified event, running `subscriber`'s hooks (see
    /// [`crate::hooks`] for the order). The result includes the hooks'
    /// replacements. An event that would pass a limit is not applied (and
    /// no hook runs): see [`last_refusal`](Self::last_refusal).
    pub fn apply_with(&mut self, event: &Event, subscriber: &mut dyn Subscriber) -> Changed {
        match self.try_apply_with(event, subscriber) {
            Ok(changed) => changed,
            Err(refusal) => {
                self.refused = Some(refusal);
                Changed::NONE
            }
        }
    }

    /// [`apply_with`](Self::apply_with), or the limit the event would pass
    /// (then nothing changed and no hook ran).
    ///
    /// ```
    /// use agui_alloc::event::Event;
    /// use agui_alloc::reduce::{Limit, Reducer, ReducerLimits};
    /// use agui_core::event::{EventType, Origin};
    /// use serde_json::json;
    ///
    /// let limits = ReducerLimits { max_messages: 1, ..ReducerLimits::default() };
    /// let mut reducer = Reducer::new().with_limits(limits);
    /// let start = |id: &str| {
    ///     let frame = json!({"type": "TEXT_MESSAGE_START", "messageId": id});
    ///     Event::from_core(EventType::TextMessageStart, Origin::Frame, id, &frame).unwrap()
    /// };
    /// reducer.try_apply_with(&start("a"), &mut ()).unwrap();
    /// let err = reducer.try_apply_with(&start("b"), &mut ()).unwrap_err();
    /// assert_eq!(err.limit, Limit::Messages);
    /// assert_eq!(reducer.messages().len(), 1);
    /// ```
    ///
    /// # Errors
    /// The [`LimitError`] of the first limit the event would pass.
    pub fn try_apply_with(
        &mut self,
        event: &Event,
        subscriber: &mut dyn Subscriber,
    ) -> Result<Changed, LimitError> {
        self.refused = None;
        self.release_ended_args();
        self.check(event)?;
        Ok(self.apply_checked(Applied::Shared(event), subscriber))
    }

    /// [`try_apply_with`](Self::try_apply_with) for a caller that no longer
    /// needs the event's contents: what the reducer keeps of it (a
    /// snapshot) is moved out of it, not copied. The hooks see it whole.
    pub(crate) fn try_apply_owned(
        &mut self,
        event: &mut Event,
        subscriber: Option<&mut dyn Subscriber>,
    ) -> Result<Changed, LimitError> {
        self.refused = None;
        self.release_ended_args();
        self.check(event)?;
        Ok(match subscriber {
            Some(subscriber) => self.apply_checked(Applied::Owned(event), subscriber),
            None => self.apply_unobserved(event),
        })
    }

    /// An event applied with no subscriber at all: the default handling
    /// alone, without the hook steps (what a subscriber that does nothing
    /// would leave: no replacement, no stop).
    fn apply_unobserved(&mut self, event: &mut Event) -> Changed {
        self.warning = None;
        self.record_final_args(event);
        event.visit_mut(rules::Reduce {
            reducer: self,
            subscriber: &mut (),
        })
    }

    fn apply_checked(
        &mut self,
        mut event: Applied<'_>,
        subscriber: &mut dyn Subscriber,
    ) -> Changed {
        self.warning = None;
        let mut changed = Changed::NONE;

        let mut view = HookView::new(&self.messages, &self.state);
        let mut flow = subscriber.on_event(event.get(), &mut view);
        let replaced = view.into_replacements();
        changed |= self.take_replacements(replaced);

        self.record_final_args(event.get());
        if flow == Flow::Continue {
            flow = self.typed_hook(event.get(), subscriber, &mut changed);
        }
        if flow == Flow::Continue {
            changed |= match &mut event {
                Applied::Shared(e) => self.reduce(e, subscriber),
                Applied::Owned(e) => e.visit_mut(rules::Reduce {
                    reducer: self,
                    subscriber,
                }),
            };
        }
        self.notify_end(event.get(), subscriber);
        changed
    }

    /// Runs the event type's own hook with its context.
    fn typed_hook(
        &mut self,
        event: &Event,
        subscriber: &mut dyn Subscriber,
        changed: &mut Changed,
    ) -> Flow {
        if let Event::ToolCallArgs(args) = event {
            // The hook gets the partial value including this delta, before
            // the default handling appends it to the text.
            self.push_partial(&args.tool_call_id, &args.delta);
        }
        let mut view = HookView::new(&self.messages, &self.state);
        let flow = event.visit(rules::Hook {
            reducer: self,
            subscriber,
            view: &mut view,
        });
        let replaced = view.into_replacements();
        *changed |= self.take_replacements(replaced);
        if let (Flow::Stop, Event::ToolCallArgs(args)) = (flow, event) {
            // The delta was pushed but will not be appended: read the text
            // again from scratch (this loses the last good value, which may
            // hold the stopped delta).
            self.args.update(&args.tool_call_id, |slot| {
                *slot = ArgsSlot::new();
            });
        }
        flow
    }

    /// Applies a hook's replacements.
    fn take_replacements(
        &mut self,
        (messages, state): (Option<Vec<Message>>, Option<Value>),
    ) -> Changed {
        let mut changed = Changed::NONE;
        if let Some(messages) = messages {
            self.set_messages(messages);
            changed |= Changed::MESSAGES;
        }
        if let Some(state) = state {
            // A hook's state is trusted, but measured, so that later
            // patches are still bounded.
            self.set_state(state);
            changed |= Changed::STATE;
        }
        changed
    }

    /// The new-message / new-tool-call notifications of the END events,
    /// which fire even when a hook stopped the default handling.
    fn notify_end(&self, event: &Event, subscriber: &mut dyn Subscriber) {
        event.visit(rules::Notify {
            reducer: self,
            subscriber,
        });
    }

    /// The default handling of SPEC section 5.
    fn reduce(&mut self, event: &Event, subscriber: &mut dyn Subscriber) -> Changed {
        event.visit(rules::Reduce {
            reducer: self,
            subscriber,
        })
    }

    fn warn(&mut self, event: EventType, refused: Refused) {
        match refused {
            Refused::Patch(error) => {
                self.warning = Some(FoldWarning {
                    event,
                    kind: FoldWarningKind::Patch(error),
                });
            }
            // Checked before: only a hook's replacement can get here, and
            // hooks are trusted.
            Refused::Over(_) => {}
        }
    }

    /// Recounts everything after the messages were replaced as a whole.
    fn reindex(&mut self) {
        self.index.rebuild(&self.messages);
        self.activity_sizes.clear();
        self.text_bytes = self.messages.iter().map(message_bytes).sum();
        // The tool calls' texts may have been replaced; ids no call has any
        // more lose their slot.
        let index = &self.index;
        self.args.retain(|id| index.tool_call(id).is_some());
        self.args.rewind_all();
    }

    fn message_mut(&mut self, id: &str) -> Option<&mut Message> {
        let pos = self.index.message(id)?;
        self.messages.get_mut(pos)
    }

    fn tool_call_mut(&mut self, id: &str) -> Option<&mut ToolCall> {
        let at = self.index.tool_call(id)?;
        self.messages
            .get_mut(at.message)?
            .tool_calls_mut()?
            .get_mut(at.call)
    }

    /// Appends a message; returns its position.
    fn push_message(&mut self, message: Message) -> usize {
        // A cached activity size belongs to the first message with its id.
        self.activity_sizes.remove(message.id());
        self.text_bytes = self.text_bytes.saturating_add(message_bytes(&message));
        let pos = self.messages.len();
        self.index.pushed(&message);
        self.messages.push(message);
        pos
    }

    /// Inserts a message at `pos` (at most the length); returns its position.
    fn insert_message(&mut self, pos: usize, message: Message) -> usize {
        if pos >= self.messages.len() {
            return self.push_message(message);
        }
        self.text_bytes = self.text_bytes.saturating_add(message_bytes(&message));
        self.activity_sizes.remove(message.id());
        self.messages.insert(pos, message);
        if let Some(message) = self.messages.get(pos) {
            self.index.inserted(pos, message);
        }
        pos
    }

    /// A message left or entered the list: what is kept per id for it
    /// (an activity's size, the partial arguments of its tool calls) must
    /// be found again, since the first message or call with that id may now
    /// be another.
    ///
    /// The partial arguments of an id that no tool call has any more are
    /// dropped, so that what the reducer keeps stays bounded by the list.
    fn forget(&mut self, message: &Message) {
        forget_in(
            &mut self.activity_sizes,
            &mut self.args,
            &self.index,
            message,
        );
    }

    /// [`forget`](Self::forget) for the message at `pos` of the list.
    fn forget_at(&mut self, pos: usize) {
        if let Some(message) = self.messages.get(pos) {
            forget_in(
                &mut self.activity_sizes,
                &mut self.args,
                &self.index,
                message,
            );
        }
    }
}

/// What [`Reducer::forget`] does, on the fields it needs (a free function,
/// so that the message may be one of the list's).
fn forget_in(
    activity_sizes: &mut BTreeMap<String, Size>,
    args: &mut ArgsSlots,
    index: &Index,
    message: &Message,
) {
    activity_sizes.remove(message.id());
    for call in message.tool_calls() {
        let id = call.id.as_str();
        if index.tool_call(id).is_none() {
            args.remove(id);
        } else {
            args.rewind(id);
        }
    }
}

/// The first tool call with this id (a free function, so that callers can
/// borrow other fields of the reducer mutably meanwhile).
fn find_call<'m>(messages: &'m [Message], index: &Index, id: &str) -> Option<&'m ToolCall> {
    let at = index.tool_call(id)?;
    messages.get(at.message)?.tool_calls().get(at.call)
}

/// "Merge metadata into T": the event's keys overwrite T's (shallow);
/// `{}` on a target without metadata creates `{}`.
///
/// Merges and returns the change in the target's compact JSON size, in
/// time proportional to the event's metadata (an overwritten value is
/// measured as it is dropped).
fn merge_metadata(target: &mut Option<Object>, event: &Object) -> Delta {
    let mut delta = Delta::default();
    let target = target.get_or_insert_with(|| {
        delta.plus = 2; // `{}`
        Object::new()
    });
    for (key, value) in event {
        let others = target.len();
        delta.plus = delta.plus.saturating_add(json_size(value).bytes);
        match target.insert(key.clone(), value.clone()) {
            Some(old) => delta.minus = delta.minus.saturating_add(json_size(&old).bytes),
            None => delta.plus = delta.plus.saturating_add(member_overhead(key, others)),
        }
    }
    delta
}

/// `message` with AG-UI 1.0's owner tag `owner` (the sub-agent invocation
/// whose event created it); `None` in the current protocol.
fn owned_by(mut message: Message, owner: &Option<String>) -> Message {
    message.subagent_run_id_mut().clone_from(owner);
    message
}
