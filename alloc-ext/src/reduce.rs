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
//! Memory: besides the messages, the reducer keeps per tool-call id the
//! partial-arguments state and the arguments at END (the last good value
//! must survive END, see `ArgsSlot`), as long as some tool call has that id.
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

use alloc::borrow::ToOwned;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::mem;
use core::ops::{BitOr, BitOrAssign};

use agui_core::event::EventType;
use serde_json::Value;

use crate::event::{
    ActivityAuthority, ActivityDelta, ActivitySnapshot, EncryptedSubtype, Event, MessageContent,
    MessageEnd, Outcome, ReasoningEncryptedValue, ReasoningMessageStart, RunFinished, RunStarted,
    StateDelta, TextMessageStart, ToolCallArgs, ToolCallEnd, ToolCallResult, ToolCallStart,
};
use crate::hooks::{Flow, HookView, Subscriber, ToolCallProgress};
use crate::index::{remove_sorted, CallPos, Class, Index};
use crate::model::{
    ActivityMessage, AssistantMessage, Dialect, Interrupt, Message, MessageRole, Object, ToolCall,
    ToolMessage,
};
use crate::partial::PartialArgs;
use crate::patch::{apply_patch_sized, patch_size, Growth, OpName, PatchError, Refused};
use crate::rules;
use crate::size::{
    content_bytes, json_size, member_overhead, message_bytes, object_size, string_bytes,
    tool_call_bytes, Size,
};

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

/// The arguments of one tool call as a value.
///
/// Kept per tool-call id for the reducer's lifetime, because the value shown
/// while the text is not JSON is the *last good* value of that id, which the
/// reference carries across `TOOL_CALL_END` and replayed starts (vectors
/// `gen-1-38-valid`, `gen-1-179-valid`, ...).
#[derive(Debug)]
struct ArgsSlot {
    /// The partial value of the first `consumed` bytes of the call's text.
    partial: PartialArgs,
    consumed: usize,
    /// The arguments at the last `TOOL_CALL_END`.
    final_args: FinalArgs,
}

/// The arguments at a tool call's last `TOOL_CALL_END`.
#[derive(Debug)]
enum FinalArgs {
    /// No `TOOL_CALL_END` yet.
    None,
    /// The partial value's complete document ([`PartialArgs::finished`]),
    /// which has not changed since: held once, not copied. Made an owned
    /// copy before the partial value changes again.
    Partial,
    /// Its own value.
    Owned(Value),
}

impl ArgsSlot {
    fn new() -> Self {
        ArgsSlot {
            partial: PartialArgs::new(),
            consumed: 0,
            final_args: FinalArgs::None,
        }
    }

    /// The arguments at the last `TOOL_CALL_END`.
    fn final_args(&self) -> Option<&Value> {
        match &self.final_args {
            FinalArgs::None => None,
            FinalArgs::Partial => self.partial.finished(),
            FinalArgs::Owned(value) => Some(value),
        }
    }

    /// The partial value, about to change: final arguments that are still
    /// its document get their own copy first.
    fn partial_mut(&mut self) -> &mut PartialArgs {
        if let FinalArgs::Partial = self.final_args {
            let value = self.partial.finished().cloned().unwrap_or_else(empty_args);
            self.final_args = FinalArgs::Owned(value);
        }
        &mut self.partial
    }

    /// Forgets the text read so far (keeping the last good value): the
    /// call's text was replaced, so the next [`ArgsSlot::sync`] reads it
    /// whole.
    fn rewind(&mut self) {
        self.partial_mut().restart("");
        self.consumed = 0;
    }

    /// Brings the partial value up to `text`, the call's whole arguments
    /// text. Normally `text` only grew by the last delta since the slot saw
    /// it, so only that delta is read; a text that does not fit (shorter, or
    /// cut inside a character) is read whole.
    fn sync(&mut self, text: &str) {
        let rest = match text.get(self.consumed..) {
            Some(rest) => rest,
            None => {
                self.rewind();
                text
            }
        };
        if !rest.is_empty() {
            self.partial_mut().push(rest);
            self.consumed = text.len();
        }
    }
}

/// The argument slots by tool-call id. The slot used last is kept out of
/// the map: deltas name the same tool call one after another, and each
/// delta looks its slot up several times (hook, fold), so that most look-ups
/// are one string compare.
#[derive(Debug, Default)]
struct ArgsSlots {
    /// The slot used last, with its id.
    hot: Option<(String, ArgsSlot)>,
    /// The others.
    cold: BTreeMap<String, ArgsSlot>,
}

impl ArgsSlots {
    fn is_hot(&self, id: &str) -> bool {
        matches!(&self.hot, Some((key, _)) if key == id)
    }

    fn get(&self, id: &str) -> Option<&ArgsSlot> {
        match &self.hot {
            Some((key, slot)) if key == id => Some(slot),
            Some(_) | None => self.cold.get(id),
        }
    }

    fn get_mut(&mut self, id: &str) -> Option<&mut ArgsSlot> {
        if let Some((key, slot)) = &mut self.hot {
            if key == id {
                return Some(slot);
            }
        }
        self.cold.get_mut(id)
    }

    /// The slot of `id`, made if missing; it becomes the hot one.
    fn slot(&mut self, id: &str) -> Option<&mut ArgsSlot> {
        if !self.is_hot(id) {
            let entry = self
                .cold
                .remove_entry(id)
                .unwrap_or_else(|| (id.to_owned(), ArgsSlot::new()));
            if let Some((key, slot)) = self.hot.replace(entry) {
                self.cold.insert(key, slot);
            }
        }
        self.hot.as_mut().map(|(_, slot)| slot)
    }

    fn remove(&mut self, id: &str) {
        if self.is_hot(id) {
            self.hot = None;
        } else {
            self.cold.remove(id);
        }
    }

    fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        if let Some((key, _)) = &self.hot {
            if !keep(key) {
                self.hot = None;
            }
        }
        self.cold.retain(|key, _| keep(key));
    }

    fn values_mut(&mut self) -> impl Iterator<Item = &mut ArgsSlot> {
        self.hot
            .iter_mut()
            .map(|(_, slot)| slot)
            .chain(self.cold.values_mut())
    }

    #[cfg(test)]
    fn iter(&self) -> impl Iterator<Item = (&String, &ArgsSlot)> {
        self.hot
            .iter()
            .map(|(key, slot)| (key, slot))
            .chain(self.cold.iter())
    }
}

/// The slot of `id`, made if missing.
fn args_slot<'s>(slots: &'s mut ArgsSlots, id: &str) -> Option<&'s mut ArgsSlot> {
    slots.slot(id)
}

/// The bytes of a `metadata` object (0 when absent).
pub(crate) fn meta_bytes(metadata: &Option<Object>) -> usize {
    metadata.as_ref().map_or(0, |m| object_size(m).bytes)
}

/// A sum that saturates instead of overflowing.
pub(crate) fn sum(parts: &[usize]) -> usize {
    parts.iter().fold(0usize, |a, b| a.saturating_add(*b))
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
        } else if let Some(slot) = args.get_mut(id) {
            slot.rewind();
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

/// The first tool call with this id (a free function, so that callers can
/// borrow other fields of the reducer mutably meanwhile).
fn find_call<'m>(messages: &'m [Message], index: &Index, id: &str) -> Option<&'m ToolCall> {
    let at = index.tool_call(id)?;
    messages.get(at.message)?.tool_calls().get(at.call)
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

/// AG-UI 1.0 (SPEC 9.9): the tool calls started in the current run, in
/// first-start order, and those a `TOOL_CALL_RESULT` answered; emptied by
/// every `RUN_STARTED`. Their ids count against
/// [`ReducerLimits::max_message_bytes`] (a run may start any number of
/// calls, and a snapshot may take them out of the messages).
#[derive(Debug, Default)]
struct RunCalls {
    started: Vec<String>,
    seen: BTreeSet<String>,
    answered: BTreeSet<String>,
    bytes: usize,
}

impl RunCalls {
    fn start(&mut self, id: &str) {
        if self.seen.insert(id.to_owned()) {
            self.started.push(id.to_owned());
            self.bytes = self.bytes.saturating_add(id.len().saturating_mul(2));
        }
    }

    fn answer(&mut self, id: &str) {
        if self.answered.insert(id.to_owned()) {
            self.bytes = self.bytes.saturating_add(id.len());
        }
    }

    /// Started and not answered, in first-start order.
    fn pending(&self) -> Vec<String> {
        self.started
            .iter()
            .filter(|id| !self.answered.contains(id.as_str()))
            .cloned()
            .collect()
    }
}

/// How a run ended, as AG-UI 1.0 hands it to the user (SPEC 9.9; the
/// vectors record it on the `RUN_FINISHED` trace entry).
#[derive(Debug, Clone, PartialEq)]
pub enum RunOutcome {
    /// The run succeeded (or said nothing).
    Success {
        /// `RUN_FINISHED.result`, if any.
        result: Option<Value>,
        /// The outcome's `pendingToolCallIds` if it lists any, else the
        /// tool calls started in the run that got no result, in order.
        pending_tool_call_ids: Vec<String>,
    },
    /// The run paused on these interrupts.
    Interrupt(Vec<Interrupt>),
    /// The run was cancelled.
    Cancelled,
}

impl RunOutcome {
    /// As the vectors' trace writes it: `{"type": "success",
    /// "pendingToolCallIds"}` (the result is the `RUN_FINISHED` event's
    /// own), `{"type": "interrupt", "interrupts"}` or `{"type":
    /// "cancelled"}`.
    pub fn to_json(&self) -> Value {
        match self {
            RunOutcome::Success {
                pending_tool_call_ids,
                ..
            } => serde_json::json!({
                "type": "success",
                "pendingToolCallIds": pending_tool_call_ids,
            }),
            RunOutcome::Interrupt(interrupts) => serde_json::json!({
                "type": "interrupt",
                "interrupts": interrupts,
            }),
            RunOutcome::Cancelled => serde_json::json!({"type": "cancelled"}),
        }
    }
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

    /// [`run_outcome`](Self::run_outcome) as JSON ([`RunOutcome::to_json`]).
    pub(crate) fn outcome_value(&self) -> Option<&Value> {
        self.outcome.as_ref().map(|(_, v)| v)
    }

    /// Bytes a `TOOL_CALL_START` of `id` adds to the run's list (1.0).
    pub(crate) fn run_calls_growth_start(&self, id: &str) -> usize {
        match self.dialect {
            Dialect::V1 if !self.run_calls.seen.contains(id) => id.len().saturating_mul(2),
            Dialect::V1 | Dialect::Current => 0,
        }
    }

    /// Bytes a `TOOL_CALL_RESULT` for `id` adds to the run's list (1.0).
    pub(crate) fn run_calls_growth_answer(&self, id: &str) -> usize {
        match self.dialect {
            Dialect::V1 if !self.run_calls.answered.contains(id) => id.len(),
            Dialect::V1 | Dialect::Current => 0,
        }
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

    /// The partial arguments after the tool call's last `TOOL_CALL_ARGS`
    /// (SPEC section 5, "Partial tool arguments"). `None` before any.
    pub fn partial_args(&self, tool_call_id: &str) -> Option<&Value> {
        self.args.get(tool_call_id).map(|slot| slot.partial.value())
    }

    /// The arguments at the tool call's last `TOOL_CALL_END`: its text
    /// parsed, or `{}` if that does not parse.
    pub fn final_args(&self, tool_call_id: &str) -> Option<&Value> {
        self.args.get(tool_call_id)?.final_args()
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
        self.check(event)?;
        Ok(match subscriber {
            Some(subscriber) => self.apply_checked(Applied::Owned(event), subscriber),
            None => self.apply_unobserved(event),
        })
    }

    /// At `TOOL_CALL_END`, the call's arguments as they are now: an
    /// observation of the call, recorded whatever the hooks decide.
    // Inlined: a type test on every applied event's hot path.
    #[inline(always)]
    fn record_final_args(&mut self, event: &Event) {
        if let Event::ToolCallEnd(end) = event {
            self.finish_args(&end.tool_call_id);
        }
    }

    /// The size of the snapshot of the `STATE_SNAPSHOT` about to be
    /// applied, measured as it was read (so that its check does not walk
    /// it again); `None` to forget it. The caller sets it just before the
    /// event and clears it after, whatever happened.
    pub(crate) fn expect_state_size(&mut self, size: Option<Size>) {
        self.known_state = size;
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

    /// Checks that the events of one frame, applied in order, stay within
    /// the message limits (counting what each adds, as an upper bound), so
    /// that a caller can refuse the frame as a whole before applying any.
    ///
    /// # Errors
    /// The first limit the frame would pass.
    pub fn check_frame(&self, events: &[Event]) -> Result<(), LimitError> {
        let (mut added, mut text) = (0usize, 0usize);
        for event in events {
            let (a, t) = self.growth(event);
            added = added.saturating_add(a);
            text = text.saturating_add(t);
        }
        self.within_messages(added, text)
    }

    pub(crate) fn within_messages(&self, added: usize, text: usize) -> Result<(), LimitError> {
        let count = self.messages.len().saturating_add(added);
        if added > 0 && count > self.limits.max_messages {
            return Err(LimitError::new(
                Limit::Messages,
                self.limits.max_messages,
                count,
            ));
        }
        let bytes = self
            .text_bytes
            .saturating_add(self.run_calls.bytes)
            .saturating_add(text);
        if text > 0 && bytes > self.limits.max_message_bytes {
            return Err(LimitError::new(
                Limit::MessageBytes,
                self.limits.max_message_bytes,
                bytes,
            ));
        }
        Ok(())
    }

    /// Messages and bytes an event adds (upper bounds, in time proportional
    /// to the event; `MESSAGES_SNAPSHOT` and the content an `ACTIVITY_DELTA`
    /// patch adds are checked exactly by `check`).
    fn growth(&self, event: &Event) -> (usize, usize) {
        event.visit(rules::Growth(self))
    }

    /// 1 if no message has this id: a message it would make is new.
    pub(crate) fn absent(&self, id: &str) -> usize {
        usize::from(self.index.message(id).is_none())
    }

    /// The growth of a TEXT / REASONING_MESSAGE_START: a new message's id
    /// and name; an existing one only merges metadata.
    pub(crate) fn start_growth(
        &self,
        id: &str,
        name: Option<&String>,
        metadata: &Option<Object>,
    ) -> (usize, usize) {
        let new = self.absent(id);
        let own = if new == 1 {
            sum(&[id.len(), name.map_or(0, String::len)])
        } else {
            0
        };
        (new, own.saturating_add(meta_bytes(metadata)))
    }

    /// The growth of a RUN_STARTED: the input messages not present yet.
    pub(crate) fn input_growth(&self, e: &RunStarted) -> (usize, usize) {
        e.input.as_ref().map_or((0, 0), |input| {
            let new = input.messages.iter().filter(|m| self.absent(m.id()) == 1);
            new.fold((0, 0), |(n, t), m| {
                (n + 1, t.saturating_add(message_bytes(m)))
            })
        })
    }

    /// Adds to or takes from the bytes the messages hold.
    fn held(&mut self, delta: Delta) {
        self.text_bytes = self
            .text_bytes
            .saturating_add(delta.plus)
            .saturating_sub(delta.minus);
    }

    pub(crate) fn tool_call_adds_message(&self, e: &ToolCallStart) -> bool {
        if self.tool_call(&e.tool_call_id).is_some() {
            return false;
        }
        let parent = e.parent_message_id.as_deref().filter(|p| !p.is_empty());
        let owner = parent.and_then(|p| self.message(p));
        !matches!(owner, Some(Message::Assistant(_)))
    }

    /// Whether `event` stays within the limits. A patch is sized from its
    /// own values when that is enough to know it fits, else by a dry run on
    /// the document (applied, measured, rolled back: the cost of applying it).
    fn check(&mut self, event: &Event) -> Result<(), LimitError> {
        self.checked_state = None;
        // Growth, then the type's own check, in one dispatch.
        event.visit(rules::Check(self))
    }

    /// MESSAGES_SNAPSHOT: the messages and bytes after it, exactly.
    pub(crate) fn check_messages_snapshot(
        &self,
        messages: &[Message],
        authority: &ActivityAuthority,
    ) -> Result<(), LimitError> {
        let limits = &self.limits;
        let (count, bytes) = self.snapshot_size(messages, authority);
        if count > limits.max_messages {
            return Err(LimitError::new(Limit::Messages, limits.max_messages, count));
        }
        if bytes > limits.max_message_bytes {
            let max = limits.max_message_bytes;
            return Err(LimitError::new(Limit::MessageBytes, max, bytes));
        }
        Ok(())
    }

    /// STATE_SNAPSHOT: the new state's size.
    pub(crate) fn check_state_snapshot(
        &mut self,
        snapshot: Option<&Value>,
    ) -> Result<(), LimitError> {
        let size = match (self.known_state.take(), snapshot) {
            (Some(size), Some(_)) => size,
            (_, snapshot) => snapshot.map_or(NULL_SIZE, json_size),
        };
        self.checked_state = Some(size);
        self.limits.within_state(size)
    }

    /// STATE_DELTA: the state's size after the patch.
    pub(crate) fn check_state_patch(&mut self, patch: &Value) -> Result<(), LimitError> {
        let limits = self.limits;
        fits(&mut self.state, self.state_size, patch, &limits).map(drop)
    }

    /// ACTIVITY_SNAPSHOT: the content's size.
    pub(crate) fn check_activity_snapshot(&self, content: &Object) -> Result<(), LimitError> {
        self.limits.within_state(object_size(content))
    }

    /// ACTIVITY_DELTA: the content's size after the patch, and the bytes it
    /// adds to the messages besides `text` (the event's own growth).
    pub(crate) fn check_activity_patch(
        &mut self,
        e: &ActivityDelta,
        text: usize,
    ) -> Result<(), LimitError> {
        let limits = self.limits;
        let (now, after) = match self.activity_content(&e.message_id) {
            // A `null` content is patched as `{}`, left as it is here.
            Some((content, size)) if content.is_null() => {
                let mut empty = Value::Object(Object::new());
                let start = json_size(&empty);
                (size, fits(&mut empty, start, &e.patch, &limits)?)
            }
            Some((content, size)) => (size, fits(content, size, &e.patch, &limits)?),
            None => return Ok(()),
        };
        // The content is part of the bytes the messages hold.
        let grown = after.bytes.saturating_sub(now.bytes);
        self.within_messages(0, text.saturating_add(grown))
    }

    /// The content of the activity message `id` (a `null` content is
    /// patched as `{}`) and its size, measured once and then kept.
    fn activity_content(&mut self, id: &str) -> Option<(&mut Value, Size)> {
        let pos = self.index.message(id)?;
        let Some(Message::Activity(activity)) = self.messages.get_mut(pos) else {
            return None;
        };
        let size = match self.activity_sizes.get(id) {
            Some(size) => *size,
            None => {
                let size = json_size(&activity.content);
                self.activity_sizes.insert(id.to_owned(), size);
                size
            }
        };
        Some((&mut activity.content, size))
    }

    /// What a `MESSAGES_SNAPSHOT` does to the list (the edit-merge of SPEC
    /// section 5), found in time proportional to the snapshot and to the
    /// local messages it removes or replaces, never to the ones it keeps:
    /// local messages with a snapshot entry's id are found by looking the
    /// ids up, and only the local messages the snapshot speaks for as a
    /// whole (each of which it removes or replaces) are walked. Client-only
    /// messages (activity and reasoning messages when the snapshot has none
    /// of their role, or in 1.0 activities of types it is not authoritative
    /// for) are not even looked at unless an entry names them.
    fn plan_snapshot(&self, snapshot: &[Message], authority: &ActivityAuthority) -> Merge {
        let has = |role| snapshot.iter().any(|m| m.role() == role);
        let (has_activity, has_reasoning) =
            (has(MessageRole::Activity), has(MessageRole::Reasoning));
        let v1 = self.dialect == Dialect::V1;
        // The classes a same-id entry replaces in: those of the roles the
        // snapshot carries; in 1.0 every class (a kept client-only message
        // with a same-id entry is replaced, SPEC 9.8).
        let replaces = |class: Class| match class {
            Class::Other => true,
            Class::Activity => has_activity || v1,
            Class::Reasoning => has_reasoning || v1,
        };
        // Later entries overwrite earlier ones: the last entry per id wins.
        let last: BTreeMap<&str, usize> = snapshot
            .iter()
            .enumerate()
            .map(|(i, m)| (m.id(), i))
            .collect();
        let mut merge = Merge::default();
        for (&id, &entry) in &last {
            for pos in self.index.positions_with_id(id) {
                let local = self.messages.get(pos).map(Class::of);
                if local.is_some_and(replaces) {
                    merge.replace.push((pos, entry));
                }
            }
        }
        // The local messages the snapshot speaks for: removed unless an
        // entry has their id.
        let mut omitted = |positions: &mut dyn Iterator<Item = usize>| {
            for pos in positions {
                let kept = self
                    .messages
                    .get(pos)
                    .is_none_or(|m| last.contains_key(m.id()));
                if !kept {
                    merge.remove.push(pos);
                }
            }
        };
        omitted(&mut self.index.positions_of(Class::Other));
        if has_reasoning {
            omitted(&mut self.index.positions_of(Class::Reasoning));
        }
        let activities = replaces(Class::Activity);
        match authority {
            ActivityAuthority::Unstated if !has_activity => {}
            ActivityAuthority::Unstated | ActivityAuthority::All if activities => {
                omitted(&mut self.index.positions_of(Class::Activity));
            }
            ActivityAuthority::Types(types) if activities => {
                let distinct: BTreeSet<&str> = types.iter().map(String::as_str).collect();
                for activity_type in distinct {
                    omitted(&mut self.index.positions_of_activity_type(activity_type));
                }
            }
            ActivityAuthority::Unstated | ActivityAuthority::All | ActivityAuthority::Types(_) => {}
        }
        merge.remove.sort_unstable();
        // A snapshot entry is added unless a local message with its id stays
        // (replaced by it, or kept as client-only).
        merge.append = (0..snapshot.len())
            .filter(|&i| {
                snapshot
                    .get(i)
                    .is_some_and(|m| !self.index.has_message(m.id()))
            })
            .collect();
        merge
    }

    /// Count and bytes of the messages after a `MESSAGES_SNAPSHOT`. What it
    /// takes out is measured only here and when it is dropped; when the
    /// snapshot is refused, that is less than what the snapshot brings.
    fn snapshot_size(&self, snapshot: &[Message], authority: &ActivityAuthority) -> (usize, usize) {
        let merge = self.plan_snapshot(snapshot, authority);
        let local = |pos: &usize| self.messages.get(*pos).map_or(0, message_bytes);
        let entry = |i: &usize| snapshot.get(*i).map_or(0, message_bytes);
        let sum = |it: &mut dyn Iterator<Item = usize>| it.fold(0usize, usize::saturating_add);
        let taken = sum(&mut merge.remove.iter().map(local))
            .saturating_add(sum(&mut merge.replace.iter().map(|(p, _)| local(p))));
        let brought = sum(&mut merge.replace.iter().map(|(_, i)| entry(i)))
            .saturating_add(sum(&mut merge.append.iter().map(entry)));
        let count = self
            .messages
            .len()
            .saturating_sub(merge.remove.len())
            .saturating_add(merge.append.len());
        let bytes = self
            .text_bytes
            .saturating_sub(taken)
            .saturating_add(brought)
            .saturating_add(self.run_calls.bytes);
        (count, bytes)
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
            if let Some(slot) = self.args.get_mut(args.tool_call_id.as_str()) {
                *slot = ArgsSlot::new();
            }
        }
        flow
    }

    /// The text of message `id` (`""` if it has none), as the typed hooks
    /// of text and reasoning messages get it.
    pub(crate) fn text_of(&self, id: &str) -> &str {
        self.message(id).and_then(Message::text).unwrap_or("")
    }

    /// The tool-call hooks' view of call `id` with arguments `args`.
    pub(crate) fn progress<'a>(
        &'a self,
        id: &str,
        args: Option<&'a Value>,
    ) -> ToolCallProgress<'a> {
        let call = self.tool_call(id);
        ToolCallProgress {
            name: call.map_or("", |c| c.function.name.as_str()),
            buffer: call.map_or("", |c| c.function.arguments.as_str()),
            args: args.filter(|_| call.is_some()).unwrap_or(&self.no_args),
        }
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

    /// RUN_FINISHED: the run's interrupts are its outcome's, or none.
    pub(crate) fn run_finished(&mut self, e: &RunFinished) -> Changed {
        self.interrupts = match &e.outcome {
            Some(Outcome::Interrupt(interrupts)) => interrupts.clone(),
            Some(Outcome::Success { .. } | Outcome::Cancelled) | None => Vec::new(),
        };
        if self.dialect == Dialect::V1 {
            let outcome = self.outcome_of(e);
            let value = outcome.to_json();
            self.outcome = Some((outcome, value));
        }
        Changed::NONE
    }

    /// SPEC 9.9: what a `RUN_FINISHED` ends its run with.
    fn outcome_of(&self, e: &RunFinished) -> RunOutcome {
        match &e.outcome {
            Some(Outcome::Interrupt(interrupts)) => RunOutcome::Interrupt(interrupts.clone()),
            Some(Outcome::Cancelled) => RunOutcome::Cancelled,
            Some(Outcome::Success {
                pending_tool_call_ids,
            }) if pending_tool_call_ids
                .as_ref()
                .is_some_and(|l| !l.is_empty()) =>
            {
                RunOutcome::Success {
                    result: e.result.clone(),
                    pending_tool_call_ids: pending_tool_call_ids.clone().unwrap_or_default(),
                }
            }
            Some(Outcome::Success { .. }) | None => RunOutcome::Success {
                result: e.result.clone(),
                pending_tool_call_ids: self.run_calls.pending(),
            },
        }
    }

    /// TEXT_MESSAGE_START: a text message with the event's role and name.
    pub(crate) fn text_message_start(&mut self, e: &TextMessageStart) -> Changed {
        let role = MessageRole::from(e.role);
        let make = || {
            let message = Message::new_text(e.message_id.as_str(), role, e.name.clone());
            owned_by(message, &e.subagent_run_id)
        };
        self.message_start(&e.message_id, make, e.metadata.as_ref())
    }

    /// REASONING_MESSAGE_START: a reasoning message.
    pub(crate) fn reasoning_message_start(&mut self, e: &ReasoningMessageStart) -> Changed {
        let make = || {
            let message = Message::new_text(e.message_id.as_str(), MessageRole::Reasoning, None);
            owned_by(message, &e.subagent_run_id)
        };
        self.message_start(&e.message_id, make, e.metadata.as_ref())
    }

    /// TOOL_CALL_END: merges its metadata into the call.
    pub(crate) fn tool_call_end(&mut self, e: &ToolCallEnd) -> Changed {
        match (self.tool_call_mut(&e.tool_call_id), &e.metadata) {
            (Some(call), Some(metadata)) => {
                let delta = merge_metadata(&mut call.metadata, metadata);
                self.held(delta);
                Changed::MESSAGES
            }
            _ => Changed::NONE,
        }
    }

    /// STATE_SNAPSHOT: the state is replaced (`null` when absent).
    pub(crate) fn state_snapshot(&mut self, snapshot: Option<Value>) -> Changed {
        let state = snapshot.unwrap_or(Value::Null);
        // Measured by the check just before (the event is the same).
        self.state_size = match self.checked_state.take() {
            Some(size) => size,
            None => json_size(&state),
        };
        self.state = state;
        Changed::STATE
    }

    /// STATE_DELTA: the patch applies as a whole, or is a warning.
    pub(crate) fn state_delta(&mut self, e: &StateDelta) -> Changed {
        match apply_patch_sized(&mut self.state, &e.delta, self.state_size, UNBOUNDED) {
            Ok(size) => {
                self.state_size = size;
                Changed::STATE
            }
            Err(refused) => {
                self.warn(EventType::StateDelta, refused);
                Changed::NONE
            }
        }
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
        self.args.values_mut().for_each(ArgsSlot::rewind);
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

    /// TEXT_MESSAGE_START / REASONING_MESSAGE_START: find or append, merge metadata.
    fn message_start(
        &mut self,
        id: &str,
        make: impl FnOnce() -> Message,
        metadata: Option<&Object>,
    ) -> Changed {
        let (pos, created) = match self.index.message(id) {
            Some(pos) => (pos, false),
            None => (self.push_message(make()), true),
        };
        let merged = match (self.messages.get_mut(pos), metadata) {
            (Some(message), Some(metadata)) => {
                Some(merge_metadata(message.metadata_mut(), metadata))
            }
            _ => None,
        };
        if let Some(delta) = merged {
            self.held(delta);
        }
        Changed::messages_if(created || merged.is_some())
    }

    /// TEXT_MESSAGE_CONTENT / REASONING_MESSAGE_CONTENT: append in place;
    /// a change even for an empty delta.
    pub(crate) fn message_content(&mut self, e: &MessageContent) -> Changed {
        let Some(message) = self.message_mut(&e.message_id) else {
            return Changed::NONE;
        };
        // Content that is not text is replaced by the delta; it is dropped,
        // so measuring it costs no more than dropping it.
        let replaced = message.text().is_none();
        let before = if replaced { content_bytes(message) } else { 0 };
        message.append_text(&e.delta);
        let is_activity = matches!(message, Message::Activity(_));
        let mut delta = if replaced {
            Delta {
                plus: content_bytes(message),
                minus: before,
            }
        } else if is_activity {
            // Activity content is JSON: the delta counts with its escapes.
            Delta::plus(string_bytes(&e.delta).saturating_sub(2))
        } else {
            Delta::plus(e.delta.len())
        };
        if let Some(metadata) = &e.metadata {
            delta += merge_metadata(message.metadata_mut(), metadata);
        }
        self.held(delta);
        if is_activity {
            // The kept size follows the text (now a JSON string, depth 0).
            let grown = if replaced {
                0
            } else {
                string_bytes(&e.delta).saturating_sub(2)
            };
            match self.activity_sizes.get_mut(e.message_id.as_str()) {
                Some(size) if !replaced => size.bytes = size.bytes.saturating_add(grown),
                _ => {
                    let now = Size {
                        bytes: string_bytes(&e.delta),
                        depth: 0,
                    };
                    if replaced {
                        self.activity_sizes.insert(e.message_id.clone(), now);
                    }
                }
            }
        }
        Changed::MESSAGES
    }

    /// TEXT_MESSAGE_END / REASONING_MESSAGE_END: only metadata.
    /// AG-UI 1.0 (SPEC 9.8): a text or reasoning message event whose id
    /// is an activity message changes nothing; a warning says so. `false`
    /// in the current protocol, where the text goes into the activity.
    #[inline(always)]
    pub(crate) fn ignores_activity_text(&mut self, id: &str, event: EventType) -> bool {
        self.dialect == Dialect::V1 && self.activity_text(id, event)
    }

    /// [`ignores_activity_text`](Self::ignores_activity_text) in 1.0.
    fn activity_text(&mut self, id: &str, event: EventType) -> bool {
        let is_activity = self
            .index
            .message(id)
            .and_then(|pos| self.messages.get(pos))
            .is_some_and(|m| m.role() == MessageRole::Activity);
        if is_activity {
            self.warning = Some(FoldWarning {
                event,
                kind: FoldWarningKind::ActivityText {
                    message_id: id.to_owned(),
                },
            });
        }
        is_activity
    }

    pub(crate) fn message_end(&mut self, e: &MessageEnd) -> Changed {
        match (self.message_mut(&e.message_id), &e.metadata) {
            (Some(message), Some(metadata)) => {
                let delta = merge_metadata(message.metadata_mut(), metadata);
                self.held(delta);
                Changed::MESSAGES
            }
            _ => Changed::NONE,
        }
    }

    pub(crate) fn tool_call_start(&mut self, e: &ToolCallStart) -> Changed {
        if self.dialect == Dialect::V1 {
            self.run_calls.start(&e.tool_call_id);
        }
        if let Some(call) = self.tool_call_mut(&e.tool_call_id) {
            // A replayed start: no new entry.
            let renamed = call.function.name != e.tool_call_name;
            let mut delta = Delta::default();
            if renamed {
                delta = Delta {
                    plus: e.tool_call_name.len(),
                    minus: call.function.name.len(),
                };
                call.function.name.clone_from(&e.tool_call_name);
            }
            if let Some(metadata) = &e.metadata {
                delta += merge_metadata(&mut call.metadata, metadata);
            }
            self.held(delta);
            return Changed::messages_if(renamed || e.metadata.is_some());
        }
        let owner = self.tool_call_owner(e);
        let mut call = ToolCall::new(e.tool_call_id.as_str(), e.tool_call_name.as_str());
        call.metadata.clone_from(&e.metadata);
        let Some(calls) = self.messages.get_mut(owner).and_then(|m| match m {
            Message::Assistant(a) => Some(a.tool_calls.get_or_insert_with(Vec::new)),
            Message::Developer(_)
            | Message::System(_)
            | Message::User(_)
            | Message::Tool(_)
            | Message::Activity(_)
            | Message::Reasoning(_) => None,
        }) else {
            return Changed::NONE;
        };
        let at = CallPos {
            message: owner,
            call: calls.len(),
        };
        let bytes = tool_call_bytes(&call);
        calls.push(call);
        self.held(Delta::plus(bytes));
        self.index.call_pushed(&e.tool_call_id, at);
        // A new call under an id seen before: its text starts over.
        if let Some(slot) = self.args.get_mut(e.tool_call_id.as_str()) {
            slot.rewind();
        }
        Changed::MESSAGES
    }

    /// The assistant message that gets a new tool call; appends one if needed.
    fn tool_call_owner(&mut self, e: &ToolCallStart) -> usize {
        let parent = e.parent_message_id.as_deref().filter(|p| !p.is_empty());
        let new_id = match parent {
            Some(parent) => match self.index.message(parent) {
                Some(pos)
                    if self.messages.get(pos).map(Message::role)
                        == Some(MessageRole::Assistant) =>
                {
                    return pos;
                }
                Some(_) => e.tool_call_id.as_str(),
                None => parent,
            },
            None => e.tool_call_id.as_str(),
        };
        // A new assistant message takes the call's owner (AG-UI 1.0); an
        // existing parent keeps its own.
        self.push_message(Message::Assistant(AssistantMessage {
            id: new_id.to_owned(),
            tool_calls: Some(Vec::new()),
            subagent_run_id: e.subagent_run_id.clone(),
            ..Default::default()
        }))
    }

    /// Hook stage of TOOL_CALL_ARGS: advance the partial value by the delta
    /// (the default handling then appends the same delta to the text).
    fn push_partial(&mut self, id: &str, delta: &str) {
        let Some(call) = find_call(&self.messages, &self.index, id) else {
            return;
        };
        if let Some(slot) = args_slot(&mut self.args, id) {
            slot.sync(&call.function.arguments);
            slot.partial_mut().push(delta);
            slot.consumed = slot.consumed.saturating_add(delta.len());
        }
    }

    pub(crate) fn tool_call_args(&mut self, e: &ToolCallArgs) -> Changed {
        let Some(at) = self.index.tool_call(&e.tool_call_id) else {
            return Changed::NONE;
        };
        let Some(call) = self
            .messages
            .get_mut(at.message)
            .and_then(Message::tool_calls_mut)
            .and_then(|calls| calls.get_mut(at.call))
        else {
            return Changed::NONE;
        };
        call.function.arguments.push_str(&e.delta);
        let mut delta = Delta::plus(e.delta.len());
        if let Some(metadata) = &e.metadata {
            delta += merge_metadata(&mut call.metadata, metadata);
        }
        self.text_bytes = self
            .text_bytes
            .saturating_add(delta.plus)
            .saturating_sub(delta.minus);
        if let Some(slot) = args_slot(&mut self.args, &e.tool_call_id) {
            // Normally nothing to read: the hook stage pushed this delta.
            slot.sync(&call.function.arguments);
        }
        Changed::MESSAGES
    }

    /// Records the arguments at TOOL_CALL_END: the text parsed, or `{}`.
    fn finish_args(&mut self, id: &str) {
        let Some(call) = find_call(&self.messages, &self.index, id) else {
            return;
        };
        let Some(slot) = args_slot(&mut self.args, id) else {
            return;
        };
        let text = &call.function.arguments;
        // The partial value has read exactly the text unless the text came
        // from elsewhere (a snapshot, the run input) and no delta followed.
        slot.final_args = if slot.consumed != text.len() {
            FinalArgs::Owned(parse_args(text))
        } else if slot.partial.finished().is_some() {
            // Shared with the partial value until that changes.
            FinalArgs::Partial
        } else {
            FinalArgs::Owned(empty_args())
        };
    }

    pub(crate) fn tool_call_result(
        &mut self,
        e: &ToolCallResult,
        subscriber: &mut dyn Subscriber,
    ) -> Changed {
        if self.dialect == Dialect::V1 {
            self.run_calls.answer(&e.tool_call_id);
        }
        let message = Message::Tool(ToolMessage {
            id: e.message_id.clone(),
            content: e.content.clone(),
            tool_call_id: e.tool_call_id.clone(),
            metadata: e.metadata.clone(),
            subagent_run_id: e.subagent_run_id.clone(),
            ..Default::default()
        });
        let pos = match self.index.tool_call(&e.tool_call_id) {
            None => self.push_message(message),
            Some(owner) => {
                // Right after the owner, past the results already there, so
                // parallel results keep their arrival order. The index
                // remembers where the last result after this owner went, so
                // each result is looked past once, not at every new one.
                let last = self.index.last_result(owner.message);
                let mut pos = last.unwrap_or(owner.message).saturating_add(1);
                while self.messages.get(pos).map(Message::role) == Some(MessageRole::Tool) {
                    pos = pos.saturating_add(1);
                }
                let pos = self.insert_message(pos, message);
                self.index.result_inserted(owner.message, pos);
                pos
            }
        };
        if let Some(message) = self.messages.get(pos) {
            subscriber.on_new_message(message);
        }
        Changed::MESSAGES
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

    pub(crate) fn encrypted_value(&mut self, e: &ReasoningEncryptedValue) -> Changed {
        let slot = match e.subtype {
            EncryptedSubtype::ToolCall => self
                .tool_call_mut(&e.entity_id)
                .map(|call| &mut call.encrypted_value),
            EncryptedSubtype::Message => self
                .message_mut(&e.entity_id)
                .and_then(Message::encrypted_value_mut),
        };
        match slot {
            Some(slot) => {
                let old = slot.replace(e.encrypted_value.clone());
                self.held(Delta {
                    plus: e.encrypted_value.len(),
                    minus: old.map_or(0, |v| v.len()),
                });
                Changed::MESSAGES
            }
            None => Changed::NONE,
        }
    }

    /// RUN_STARTED: append each input message whose id is not present yet;
    /// a change whenever the input is there.
    pub(crate) fn run_started(&mut self, e: &RunStarted) -> Changed {
        self.run_calls = RunCalls::default();
        let Some(input) = &e.input else {
            return Changed::NONE;
        };
        for message in &input.messages {
            if self.index.message(message.id()).is_none() {
                self.push_message(message.clone());
            }
        }
        Changed::MESSAGES
    }

    /// MESSAGES_SNAPSHOT: the edit-merge of SPEC section 5, done in place
    /// (see `plan_snapshot`): replaced messages are overwritten where they
    /// are, removed ones taken out in one pass from the first of them, new
    /// ones appended.
    pub(crate) fn messages_snapshot(
        &mut self,
        snapshot: &[Message],
        authority: &ActivityAuthority,
    ) {
        let merge = self.plan_snapshot(snapshot, authority);
        self.merge_snapshot(&merge, |entry| snapshot.get(entry).cloned());
    }

    /// The same with a snapshot the caller gives up: each entry is moved
    /// into the list at its last use (cloned before that, for the rare
    /// entry that replaces several local messages), so that a large
    /// snapshot is not held twice.
    pub(crate) fn messages_snapshot_owned(
        &mut self,
        snapshot: &mut Vec<Message>,
        authority: &ActivityAuthority,
    ) {
        let merge = self.plan_snapshot(snapshot, authority);
        let mut uses = alloc::vec![0u32; snapshot.len()];
        let used = merge.replace.iter().map(|&(_, entry)| entry);
        for entry in used.chain(merge.append.iter().copied()) {
            if let Some(count) = uses.get_mut(entry) {
                *count = count.saturating_add(1);
            }
        }
        let mut slots: Vec<Option<Message>> = mem::take(snapshot).into_iter().map(Some).collect();
        self.merge_snapshot(&merge, |entry| {
            let left = uses.get_mut(entry)?;
            *left = left.saturating_sub(1);
            let slot = slots.get_mut(entry)?;
            if *left == 0 {
                slot.take()
            } else {
                slot.clone()
            }
        });
    }

    /// Carries out a planned merge; `entry(i)` gives snapshot entry `i`.
    fn merge_snapshot(&mut self, merge: &Merge, mut entry: impl FnMut(usize) -> Option<Message>) {
        let mut delta = Delta::default();
        for &(pos, at) in &merge.replace {
            let (Some(new), true) = (entry(at), pos < self.messages.len()) else {
                continue;
            };
            let plus = message_bytes(&new);
            let Some(slot) = self.messages.get_mut(pos) else {
                continue;
            };
            let old = mem::replace(slot, new);
            delta += Delta {
                plus,
                minus: message_bytes(&old),
            };
            if let Some(new) = self.messages.get(pos) {
                self.index.replaced(pos, &old, new);
            }
            self.forget(&old);
            self.forget_at(pos);
        }
        for &pos in &merge.remove {
            if let Some(old) = self.messages.get(pos) {
                delta.minus = delta.minus.saturating_add(message_bytes(old));
            }
        }
        self.index.remove(&merge.remove, &self.messages);
        for old in remove_sorted(&mut self.messages, &merge.remove) {
            self.forget(&old);
        }
        self.held(delta);
        for &at in &merge.append {
            if let Some(new) = entry(at) {
                let pos = self.push_message(new);
                self.forget_at(pos);
            }
        }
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

    pub(crate) fn activity_snapshot(
        &mut self,
        e: &ActivitySnapshot,
        subscriber: &mut dyn Subscriber,
    ) -> Changed {
        let fresh = || {
            Message::Activity(ActivityMessage {
                id: e.message_id.clone(),
                activity_type: e.activity_type.clone(),
                content: Value::Object(e.content.clone()),
                metadata: e.metadata.clone(),
                subagent_run_id: e.subagent_run_id.clone(),
            })
        };
        let id = e.message_id.as_str();
        let content = object_size(&e.content);
        let cached = self.activity_sizes.get(id).copied();
        let mut delta = Delta::default();
        let mut calls_gone = None;
        let pos = match self.index.message(id) {
            None => Some(self.push_message(fresh())),
            Some(pos) => match self.messages.get_mut(pos) {
                Some(Message::Activity(activity)) => {
                    if e.replace {
                        // The old content is dropped, so measuring it (when
                        // its size is not kept) costs no more than dropping it.
                        let old = cached.unwrap_or_else(|| json_size(&activity.content));
                        delta.minus = old.bytes.saturating_add(activity.activity_type.len());
                        delta.plus = content.bytes.saturating_add(e.activity_type.len());
                        if activity.activity_type != e.activity_type {
                            self.index
                                .retyped(pos, &activity.activity_type, &e.activity_type);
                            activity.activity_type.clone_from(&e.activity_type);
                        }
                        activity.content = Value::Object(e.content.clone());
                        // AG-UI 1.0: the replaced activity takes the event's
                        // owner, or loses its own (always absent in the
                        // current protocol, which reads no owner).
                        delta += Delta {
                            plus: e.subagent_run_id.as_ref().map_or(0, String::len),
                            minus: activity.subagent_run_id.as_ref().map_or(0, String::len),
                        };
                        activity.subagent_run_id.clone_from(&e.subagent_run_id);
                    }
                    if let Some(metadata) = &e.metadata {
                        delta += merge_metadata(&mut activity.metadata, metadata);
                    }
                    None
                }
                Some(other) if e.replace => {
                    let fresh = fresh();
                    delta = Delta {
                        plus: message_bytes(&fresh),
                        minus: message_bytes(other),
                    };
                    let old = core::mem::replace(other, fresh);
                    calls_gone = Some(old);
                    Some(pos)
                }
                _ => None,
            },
        };
        self.held(delta);
        if let (Some(old), Some(pos)) = (calls_gone, pos) {
            if let Some(new) = self.messages.get(pos) {
                self.index.replaced(pos, &old, new);
            }
            self.forget(&old);
        }
        if e.replace || pos.is_some() {
            self.activity_sizes.insert(id.to_owned(), content);
        }
        if let Some(message) = pos.and_then(|pos| self.messages.get(pos)) {
            subscriber.on_new_message(message);
        }
        Changed::MESSAGES
    }

    pub(crate) fn activity_delta(&mut self, e: &ActivityDelta) -> Changed {
        // The patch is atomic, so it can run in place; a `null` content is
        // patched as `{}` and stays `null` if the patch fails.
        let Some((content, size)) = self.activity_content(&e.message_id) else {
            return Changed::NONE;
        };
        let was_null = content.is_null();
        let start = if was_null {
            *content = Value::Object(Object::new());
            json_size(content)
        } else {
            size
        };
        let result = apply_patch_sized(content, &e.patch, start, UNBOUNDED);
        let mut delta = Delta::default();
        match &result {
            Ok(after) => {
                delta = Delta {
                    plus: after.bytes,
                    minus: size.bytes,
                };
                self.activity_sizes.insert(e.message_id.clone(), *after);
            }
            Err(_) if was_null => *content = Value::Null,
            Err(_) => {}
        }
        let Some(pos) = self.index.message(&e.message_id) else {
            return Changed::NONE;
        };
        let Some(Message::Activity(activity)) = self.messages.get_mut(pos) else {
            return Changed::NONE;
        };
        if let Some(metadata) = &e.metadata {
            delta += merge_metadata(&mut activity.metadata, metadata);
        }
        let patched = result.is_ok();
        if patched {
            delta += Delta {
                plus: e.activity_type.len(),
                minus: activity.activity_type.len(),
            };
            if activity.activity_type != e.activity_type {
                self.index
                    .retyped(pos, &activity.activity_type, &e.activity_type);
                activity.activity_type.clone_from(&e.activity_type);
            }
        }
        self.held(delta);
        match result {
            Ok(_) => Changed::MESSAGES,
            Err(refused) => {
                self.warn(EventType::ActivityDelta, refused);
                Changed::messages_if(e.metadata.is_some())
            }
        }
    }
}

/// The edit-merge of one `MESSAGES_SNAPSHOT` (see `Reducer::plan_snapshot`).
#[derive(Debug, Default)]
struct Merge {
    /// Local positions overwritten, with the snapshot entry that overwrites them.
    replace: Vec<(usize, usize)>,
    /// Local positions removed, sorted.
    remove: Vec<usize>,
    /// Snapshot entries appended, in order.
    append: Vec<usize>,
}

/// "Merge metadata into T": the event's keys overwrite T's (shallow);
/// `{}` on a target without metadata creates `{}`.
/// Resource limits of the [`Reducer`]. Each one is checked *before* an
/// event is applied, so a refused event changes nothing.
///
/// ```
/// use agui_alloc::reduce::ReducerLimits;
/// let limits = ReducerLimits { max_messages: 100, ..ReducerLimits::default() };
/// assert_eq!(limits.max_state_bytes, 16 << 20);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReducerLimits {
    /// Most messages in the list (default 10 000).
    pub max_messages: usize,
    /// Most bytes the messages hold (default 64 MiB), as
    /// [`crate::size::message_bytes`] counts them: every string they keep
    /// (ids, names, text, tool-call ids, names and arguments, encrypted
    /// values, `activityType`, ...) and `metadata` and activity `content` as
    /// compact JSON. Kept exact as events apply.
    pub max_message_bytes: usize,
    /// Largest state, as the length of its compact JSON text as serialized
    /// (default 16 MiB; see [`crate::size`]). Also the limit of each
    /// activity message's `content`.
    pub max_state_bytes: usize,
    /// Deepest nesting of arrays and objects in the state or in an
    /// activity's content (default 128). JSON Patch can nest a value deeper
    /// with every delta; this keeps every later walk of it bounded.
    pub max_state_depth: usize,
}

impl Default for ReducerLimits {
    fn default() -> Self {
        ReducerLimits {
            max_messages: 10_000,
            max_message_bytes: 64 << 20,
            max_state_bytes: 16 << 20,
            max_state_depth: 128,
        }
    }
}

impl ReducerLimits {
    fn within_state(&self, Size { bytes, depth }: Size) -> Result<(), LimitError> {
        if bytes > self.max_state_bytes {
            return Err(LimitError::new(
                Limit::StateBytes,
                self.max_state_bytes,
                bytes,
            ));
        }
        if depth > self.max_state_depth {
            return Err(LimitError::new(
                Limit::StateDepth,
                self.max_state_depth,
                depth,
            ));
        }
        Ok(())
    }
}

/// Which of the [`ReducerLimits`] an event would pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// [`ReducerLimits::max_messages`]
    Messages,
    /// [`ReducerLimits::max_message_bytes`]
    MessageBytes,
    /// [`ReducerLimits::max_state_bytes`]
    StateBytes,
    /// [`ReducerLimits::max_state_depth`]
    StateDepth,
}

impl Limit {
    /// The field's name in [`ReducerLimits`].
    pub const fn as_str(self) -> &'static str {
        match self {
            Limit::Messages => "max_messages",
            Limit::MessageBytes => "max_message_bytes",
            Limit::StateBytes => "max_state_bytes",
            Limit::StateDepth => "max_state_depth",
        }
    }

    const fn unit(self) -> &'static str {
        match self {
            Limit::Messages => "messages",
            Limit::MessageBytes | Limit::StateBytes => "bytes",
            Limit::StateDepth => "levels of nesting",
        }
    }
}

/// An event the reducer refused: applying it would pass a limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitError {
    /// The limit.
    pub limit: Limit,
    /// Its value.
    pub max: usize,
    /// What the event would have needed (at least this much).
    pub needed: usize,
}

impl LimitError {
    const fn new(limit: Limit, max: usize, needed: usize) -> Self {
        LimitError { limit, max, needed }
    }
}

impl core::fmt::Display for LimitError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "the event would need {} {}, over the limit of {} (ReducerLimits::{})",
            self.needed,
            self.limit.unit(),
            self.max,
            self.limit.as_str()
        )
    }
}

impl core::error::Error for LimitError {}

/// The size of `null`.
const NULL_SIZE: Size = Size { bytes: 4, depth: 0 };

/// No limit: for patches already checked.
const UNBOUNDED: Size = Size {
    bytes: usize::MAX,
    depth: usize::MAX,
};

/// Whether `patch` keeps `doc` (of size `now`) within the state limits.
///
/// Without `copy`, a patch can add at most its own values plus a key and a
/// comma per operation, so when that bound fits, nothing more is needed
/// (time proportional to the patch). Otherwise the patch is run on `doc`,
/// measured operation by operation (a `copy` is measured before it is
/// made, so doubling copies stop at the limit), and rolled back. A patch
/// that fails is not refused here: the reducer reports its failure.
fn fits(
    doc: &mut Value,
    now: Size,
    patch: &Value,
    limits: &ReducerLimits,
) -> Result<Size, LimitError> {
    let Some(ops) = patch.as_array() else {
        return Ok(now);
    };
    fn field<'v>(op: &'v Value, name: &str) -> &'v str {
        op.get(name).and_then(Value::as_str).unwrap_or("")
    }
    let mut bound = now;
    let mut simple = true;
    for op in ops {
        let levels = field(op, "path").matches('/').count();
        let value = match OpName::from_wire(field(op, "op")).map(OpName::growth) {
            Some(Growth::ByValue) => op.get("value").map(json_size),
            Some(Growth::None) => None,
            // Unknown ops fail when the patch runs: measure it running.
            Some(Growth::Measure) | None => {
                simple = false;
                None
            }
        };
        if let Some(size) = value {
            // The value, and at most its key (no longer than the path) with
            // quotes, colon and comma.
            let key = field(op, "path").len().saturating_mul(6).saturating_add(4);
            bound.bytes = bound.bytes.saturating_add(size.bytes).saturating_add(key);
            bound.depth = bound.depth.max(levels.saturating_add(size.depth));
        }
    }
    if simple && limits.within_state(bound).is_ok() {
        return Ok(bound);
    }
    let max = Size {
        bytes: limits.max_state_bytes,
        depth: limits.max_state_depth,
    };
    match patch_size(doc, patch, now, max) {
        Ok(size) => Ok(size),
        Err(Refused::Patch(_)) => Ok(now),
        Err(Refused::Over(size)) => limits.within_state(size).map(|()| size),
    }
}

/// Bytes added to and taken from what the messages hold by one change.
#[derive(Debug, Clone, Copy, Default)]
struct Delta {
    plus: usize,
    minus: usize,
}

impl Delta {
    const fn plus(bytes: usize) -> Self {
        Delta {
            plus: bytes,
            minus: 0,
        }
    }
}

impl core::ops::AddAssign for Delta {
    fn add_assign(&mut self, rhs: Delta) {
        self.plus = self.plus.saturating_add(rhs.plus);
        self.minus = self.minus.saturating_add(rhs.minus);
    }
}

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

/// A tool call's arguments text parsed, or `{}` if it does not parse.
/// Read as the reference's `JSON.parse` reads it (see [`crate::value`]).
fn parse_args(text: &str) -> Value {
    crate::value::parse(text.as_bytes()).unwrap_or_else(|_| empty_args())
}

/// `{}`: the arguments of a text that does not parse.
fn empty_args() -> Value {
    Value::Object(Object::new())
}

/// `message` with AG-UI 1.0's owner tag `owner` (the sub-agent invocation
/// whose event created it); `None` in the current protocol.
fn owned_by(mut message: Message, owner: &Option<String>) -> Message {
    message.subagent_run_id_mut().clone_from(owner);
    message
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::event::{MessagesSnapshot, StateDelta, TextMessageStart, ToolCallEnd};
    use agui_core::event::Role;
    use alloc::collections::BTreeSet;
    use alloc::vec;
    use proptest::prelude::*;
    use serde_json::json;

    /// A snapshot is measured once, by its check, and the fold keeps that
    /// size; a check whose fold did not run (a hook stopped it) leaves no
    /// size behind for the next fold.
    #[test]
    fn state_snapshot_size_is_the_checked_one() {
        use crate::event::StateSnapshot;
        use crate::hooks::{Flow, HookView, Subscriber};
        struct StopAll;
        impl Subscriber for StopAll {
            fn on_event(&mut self, _: &Event, _: &mut HookView<'_>) -> Flow {
                Flow::Stop
            }
        }
        let snap = |v: Value| Event::StateSnapshot(StateSnapshot { snapshot: Some(v) });
        let mut r = Reducer::new();
        r.try_apply_with(&snap(json!({"a": [1, 2, "three"]})), &mut ())
            .unwrap();
        assert_eq!(r.state_size, json_size(&r.state));
        r.try_apply_with(&snap(json!({"big": "x".repeat(100)})), &mut StopAll)
            .unwrap();
        assert_eq!(r.state, json!({"a": [1, 2, "three"]}));
        assert_eq!(r.state_size, json_size(&r.state));
        let mut e = snap(json!([{"b": null}]));
        r.try_apply_owned(&mut e, None).unwrap();
        assert_eq!(r.state, json!([{"b": null}]));
        assert_eq!(r.state_size, json_size(&r.state));
    }

    /// An event of a frame, read as AG-UI 1.0 reads it.
    fn v1(frame: Value) -> Event {
        let kind = agui_core::event::EventType::from_wire(frame["type"].as_str().unwrap()).unwrap();
        let origin = agui_core::event::Origin::Frame;
        Event::from_core_in(kind, origin, "", &frame, crate::model::Dialect::V1).unwrap()
    }

    /// SPEC 9.8: a message created by a sub-agent's event carries its
    /// `subagentRunId`; an existing parent keeps its own; a replaced
    /// activity takes the event's owner or loses its own.
    #[test]
    fn v1_created_messages_carry_their_owner() {
        let mut r = Reducer::new();
        r.apply(&v1(
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": "s1"}),
        ));
        r.apply(&v1(json!({"type": "REASONING_MESSAGE_START", "messageId": "r", "role": "reasoning", "subagentRunId": "s2"})));
        r.apply(&v1(json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "subagentRunId": "s3"})));
        r.apply(&v1(json!({"type": "TOOL_CALL_START", "toolCallId": "d", "toolCallName": "g", "parentMessageId": "m", "subagentRunId": "s4"})));
        r.apply(&v1(
            json!({"type": "TOOL_CALL_RESULT", "messageId": "t", "toolCallId": "c",
            "content": [{"type": "text", "text": "done"}], "subagentRunId": "s3"}),
        ));
        r.apply(&v1(json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "plan", "content": {}, "subagentRunId": "s5"})));
        let owners: Vec<(&str, Option<&str>)> = r
            .messages()
            .iter()
            .map(|m| (m.id(), m.subagent_run_id()))
            .collect();
        assert_eq!(
            owners,
            [
                ("m", Some("s1")),
                ("r", Some("s2")),
                ("c", Some("s3")),
                ("t", Some("s3")),
                ("a", Some("s5"))
            ]
        );
        let tool = serde_json::to_value(&r.messages()[3]).unwrap();
        assert_eq!(tool["content"], json!([{"type": "text", "text": "done"}]));
        // Replaced without an owner: the activity loses its own.
        r.apply(&v1(json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "plan", "content": {"x": 1}})));
        assert_eq!(r.messages()[4].subagent_run_id(), None);
        // The bytes counted against the limits follow the owners.
        assert_eq!(
            r.message_bytes(),
            r.messages().iter().map(message_bytes).sum::<usize>()
        );
    }

    fn v1_reducer(messages: Vec<Value>) -> Reducer {
        let mut r = Reducer::with_initial(
            messages
                .into_iter()
                .map(|m| Message::from_json_in(&m, crate::model::Dialect::V1).unwrap())
                .collect(),
            json!({}),
        );
        r.set_dialect(crate::model::Dialect::V1);
        r
    }

    fn texts(r: &Reducer) -> Vec<(&str, Option<&str>)> {
        r.messages().iter().map(|m| (m.id(), m.text())).collect()
    }

    /// SPEC 9.8: text and reasoning events on an activity id change
    /// nothing in 1.0 (a warning); the current protocol appends.
    #[test]
    fn v1_text_on_an_activity_is_ignored() {
        let activity =
            json!({"id": "a", "role": "activity", "activityType": "plan", "content": {}});
        let content = json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "a", "delta": "x"});
        let mut r = v1_reducer(vec![activity.clone()]);
        assert_eq!(r.apply(&v1(content.clone())), Changed::NONE);
        assert!(matches!(
            r.last_warning().map(|w| &w.kind),
            Some(FoldWarningKind::ActivityText { message_id }) if message_id == "a"
        ));
        assert_eq!(serde_json::to_value(&r.messages()[0]).unwrap(), activity);
        let mut r = Reducer::with_initial(vec![msg(activity)], json!({}));
        r.apply(&v1(content));
        assert_eq!(r.messages()[0].text(), Some("x"));
    }

    /// SPEC 9.8: a client-only message with a same-id snapshot entry is
    /// replaced by it in 1.0 (kept unchanged before); the activity
    /// messages the snapshot speaks for follow its metadata.
    #[test]
    fn v1_snapshot_replaces_client_only_messages() {
        let local = vec![
            json!({"id": "r", "role": "reasoning", "content": "old"}),
            json!({"id": "a1", "role": "activity", "activityType": "plan", "content": {}}),
            json!({"id": "a2", "role": "activity", "activityType": "map", "content": {}}),
            json!({"id": "u", "role": "user", "content": "hi"}),
        ];
        let snapshot = |metadata: Value| {
            let mut frame = json!({"type": "MESSAGES_SNAPSHOT", "messages": [
                {"id": "u", "role": "user", "content": "hi"},
                {"id": "r", "role": "assistant", "content": "new"}
            ]});
            if !metadata.is_null() {
                frame["metadata"] = metadata;
            }
            v1(frame)
        };
        // No authority stated: reasoning and activity are client-only (the
        // snapshot has neither); "r" is replaced by its same-id entry.
        let mut r = v1_reducer(local.clone());
        r.apply(&snapshot(Value::Null));
        assert_eq!(
            texts(&r),
            [
                ("r", Some("new")),
                ("a1", None),
                ("a2", None),
                ("u", Some("hi"))
            ]
        );
        // Authoritative for "plan": a1 goes, a2 (map) stays.
        let mut r = v1_reducer(local.clone());
        r.apply(&snapshot(
            json!({"@ag-ui/client": {"authoritativeActivityTypes": ["plan"]}}),
        ));
        assert_eq!(
            texts(&r),
            [("r", Some("new")), ("a2", None), ("u", Some("hi"))]
        );
        // null: authoritative for every activity.
        let mut r = v1_reducer(local.clone());
        r.apply(&snapshot(
            json!({"@ag-ui/client": {"authoritativeActivityTypes": null}}),
        ));
        assert_eq!(texts(&r), [("r", Some("new")), ("u", Some("hi"))]);
        // The current protocol keeps the client-only "r" unchanged.
        let mut r = Reducer::with_initial(local.into_iter().map(msg).collect(), json!({}));
        r.apply(&snapshot(Value::Null));
        assert_eq!(texts(&r)[0], ("r", Some("old")));
    }

    /// SPEC 9.9: a success outcome lists the calls of the run that got no
    /// result, unless the outcome lists its own; a new run starts over.
    #[test]
    fn v1_run_outcome_lists_pending_calls() {
        let mut r = v1_reducer(vec![]);
        let run = |r: &mut Reducer, outcome: Value| {
            r.apply(&v1(
                json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            ));
            for id in ["a", "b", "a", "c"] {
                r.apply(&v1(
                    json!({"type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": "f"}),
                ));
            }
            r.apply(&v1(json!({"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "b", "content": "ok"})));
            let mut finished =
                json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "result": 7});
            if !outcome.is_null() {
                finished["outcome"] = outcome;
            }
            r.apply(&v1(finished));
            r.run_outcome().unwrap().to_json()
        };
        assert_eq!(
            run(&mut r, Value::Null),
            json!({"type": "success", "pendingToolCallIds": ["a", "c"]})
        );
        assert!(matches!(
            r.run_outcome(),
            Some(RunOutcome::Success { result: Some(v), .. }) if *v == json!(7)
        ));
        assert_eq!(
            run(
                &mut r,
                json!({"type": "success", "pendingToolCallIds": ["z"]})
            ),
            json!({"type": "success", "pendingToolCallIds": ["z"]})
        );
        assert_eq!(
            run(&mut r, json!({"type": "cancelled"})),
            json!({"type": "cancelled"})
        );
        // The current protocol has no such outcome.
        assert!(Reducer::new().run_outcome().is_none());
    }

    /// The same frames read in the current protocol carry no owner.
    #[test]
    fn current_reads_no_owner() {
        let mut r = Reducer::new();
        let frame = json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": "s1"});
        let kind = agui_core::event::EventType::TextMessageStart;
        let ev = Event::from_core(kind, agui_core::event::Origin::Frame, "", &frame).unwrap();
        r.apply(&ev);
        assert_eq!(r.messages()[0].subagent_run_id(), None);
    }

    /// SPEC 9.5, 9.9: 1.0's outcomes; `cancelled` empties the interrupts.
    #[test]
    fn v1_outcomes() {
        let finished = |outcome: Value| {
            v1(json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": outcome}))
        };
        let Event::RunFinished(f) =
            finished(json!({"type": "success", "pendingToolCallIds": ["c1"]}))
        else {
            panic!()
        };
        assert_eq!(
            f.outcome,
            Some(Outcome::Success {
                pending_tool_call_ids: Some(vec!["c1".into()])
            })
        );
        let Event::RunFinished(f) = finished(json!({"type": "cancelled"})) else {
            panic!()
        };
        assert_eq!(f.outcome, Some(Outcome::Cancelled));
        // Not in the current protocol.
        let frame = json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": {"type": "cancelled"}});
        let kind = agui_core::event::EventType::RunFinished;
        assert!(Event::from_core(kind, agui_core::event::Origin::Frame, "", &frame).is_err());
    }

    fn msg(v: Value) -> Message {
        Message::from_json(&v).unwrap()
    }

    fn start(id: &str, name: &str, parent: Option<&str>) -> Event {
        Event::ToolCallStart(alloc::boxed::Box::new(ToolCallStart {
            subagent_run_id: None,
            tool_call_id: id.into(),
            tool_call_name: name.into(),
            parent_message_id: parent.map(Into::into),
            metadata: None,
        }))
    }

    fn args(id: &str, delta: &str) -> Event {
        Event::ToolCallArgs(ToolCallArgs {
            tool_call_id: id.into(),
            delta: delta.into(),
            metadata: None,
        })
    }

    fn result(message_id: &str, tool_call_id: &str) -> Event {
        Event::ToolCallResult(alloc::boxed::Box::new(ToolCallResult {
            subagent_run_id: None,
            message_id: message_id.into(),
            tool_call_id: tool_call_id.into(),
            content: "r".into(),
            metadata: None,
        }))
    }

    fn text_start(id: &str, role: Role) -> Event {
        Event::TextMessageStart(alloc::boxed::Box::new(TextMessageStart {
            subagent_run_id: None,
            message_id: id.into(),
            role,
            name: None,
            metadata: None,
        }))
    }

    fn ids(r: &Reducer) -> Vec<&str> {
        r.messages().iter().map(Message::id).collect()
    }

    /// The index must say what a scan in list order says.
    fn assert_index_matches_scan(r: &Reducer) {
        for (pos, m) in r.messages.iter().enumerate() {
            let first = r.messages.iter().position(|x| x.id() == m.id()).unwrap();
            assert_eq!(
                r.index.message(m.id()),
                Some(first),
                "message {:?} at {pos}",
                m.id()
            );
            for call in m.tool_calls() {
                let first = r
                    .messages
                    .iter()
                    .enumerate()
                    .find_map(|(i, x)| {
                        let c = x.tool_calls().iter().position(|c| c.id == call.id)?;
                        Some(CallPos {
                            message: i,
                            call: c,
                        })
                    })
                    .unwrap();
                assert_eq!(
                    r.index.tool_call(&call.id),
                    Some(first),
                    "tool call {:?}",
                    call.id
                );
            }
        }
        let ids = r.messages.iter().map(Message::id).collect::<BTreeSet<_>>();
        let calls: BTreeSet<&str> = r
            .messages
            .iter()
            .flat_map(|m| m.tool_calls().iter().map(|c| c.id.as_str()))
            .collect();
        assert_eq!(r.index.id_counts(), (ids.len(), calls.len()));
        for class in [Class::Activity, Class::Reasoning, Class::Other] {
            let mut held: Vec<usize> = r.index.positions_of(class).collect();
            held.sort_unstable();
            let scan: Vec<usize> = (0..r.messages.len())
                .filter(|&i| Class::of(&r.messages[i]) == class)
                .collect();
            assert_eq!(held, scan, "{class:?}");
        }
        for activity_type in ["A", "B"] {
            let mut held: Vec<usize> = r.index.positions_of_activity_type(activity_type).collect();
            held.sort_unstable();
            let scan: Vec<usize> = (0..r.messages.len())
                .filter(|&i| {
                    matches!(&r.messages[i], Message::Activity(a) if a.activity_type == activity_type)
                })
                .collect();
            assert_eq!(held, scan, "activities of type {activity_type}");
        }
        // Slots are kept only for ids that some tool call has.
        for (id, _) in r.args.iter() {
            assert!(
                calls.contains(id.as_str()),
                "slot of {id:?} outlived its calls"
            );
        }
        // Without hooks, a slot has read all of its call's text, or none of
        // it (rewound: the text was replaced).
        for (id, slot) in r.args.iter() {
            if let Some(call) = r.tool_call(id) {
                let len = call.function.arguments.len();
                assert!(slot.consumed == len || slot.consumed == 0, "slot of {id:?}");
            }
        }
    }

    #[test]
    fn results_go_after_their_call_and_keep_the_index_right() {
        let initial = vec![
            msg(json!({"id": "a", "role": "assistant", "toolCalls": [
                {"id": "t1", "type": "function", "function": {"name": "f", "arguments": ""}}]})),
            msg(json!({"id": "b", "role": "assistant", "content": "x"})),
            msg(json!({"id": "b", "role": "user", "content": "dup"})),
            msg(json!({"id": "c", "role": "assistant", "toolCalls": [
                {"id": "t2", "type": "function", "function": {"name": "g", "arguments": ""}},
                {"id": "t1", "type": "function", "function": {"name": "dup", "arguments": ""}}]})),
        ];
        let mut r = Reducer::with_initial(initial, json!({}));
        assert_eq!(r.apply(&result("r1", "t1")), Changed::MESSAGES);
        assert_eq!(r.apply(&result("b", "t1")), Changed::MESSAGES);
        assert_eq!(r.apply(&result("r2", "t2")), Changed::MESSAGES);
        assert_eq!(ids(&r), ["a", "r1", "b", "b", "b", "c", "r2"]);
        assert_index_matches_scan(&r);
        // The second "b" (the inserted tool message) is now the first "b".
        assert_eq!(r.message("b").unwrap().role(), MessageRole::Tool);
        assert_eq!(r.tool_call("t1").unwrap().function.name, "f");
    }

    #[test]
    fn tool_call_owner_rules() {
        let mut r = Reducer::with_initial(
            vec![msg(json!({"id": "u", "role": "user", "content": "q"}))],
            json!({}),
        );
        r.apply(&start("t1", "f", Some("u"))); // parent is a user message
        r.apply(&start("t2", "g", Some("p"))); // no such parent
        r.apply(&start("t3", "h", Some("p"))); // the new assistant "p"
        r.apply(&start("t4", "i", Some(""))); // empty = absent
        assert_eq!(ids(&r), ["u", "t1", "p", "t4"]);
        assert_eq!(r.messages()[2].tool_calls().len(), 2);
        // A replayed start renames without a new entry; same name: no change.
        assert_eq!(r.apply(&start("t3", "h2", None)), Changed::MESSAGES);
        assert_eq!(r.apply(&start("t3", "h2", None)), Changed::NONE);
        assert_eq!(r.tool_call("t3").unwrap().function.name, "h2");
        assert_index_matches_scan(&r);
    }

    #[test]
    fn args_follow_a_snapshot_that_rewrote_the_text() {
        let mut r = Reducer::new();
        r.apply(&start("t", "f", None));
        r.apply(&args("t", "{\"a\":"));
        let snapshot = vec![msg(json!({"id": "t", "role": "assistant", "toolCalls": [
            {"id": "t", "type": "function", "function": {"name": "f", "arguments": "{\"b\":"}}]}))];
        r.apply(&Event::MessagesSnapshot(MessagesSnapshot {
            messages: snapshot,
            activity_authority: Default::default(),
        }));
        r.apply(&args("t", "2}"));
        assert_eq!(r.tool_call("t").unwrap().function.arguments, "{\"b\":2}");
        assert_eq!(r.partial_args("t"), Some(&json!({"b": 2})));
        r.apply(&Event::ToolCallEnd(ToolCallEnd {
            tool_call_id: "t".into(),
            metadata: None,
        }));
        assert_eq!(r.final_args("t"), Some(&json!({"b": 2})));
    }

    #[test]
    fn failed_state_patch_is_a_warning() {
        let mut r = Reducer::new();
        let bad = Event::StateDelta(StateDelta {
            delta: json!([{"op": "add", "path": "/a", "value": 1}, {"op": "remove", "path": "/nope"}]),
        });
        assert_eq!(r.apply(&bad), Changed::NONE);
        assert_eq!(r.state(), &json!({}));
        assert_eq!(r.last_warning().unwrap().event, EventType::StateDelta);
        let good = Event::StateDelta(StateDelta { delta: json!([]) });
        assert_eq!(r.apply(&good), Changed::STATE);
        assert!(r.last_warning().is_none());
    }

    #[test]
    fn activity_overwriting_an_assistant_drops_its_tool_calls() {
        let mut r = Reducer::new();
        r.apply(&start("t", "f", Some("a")));
        r.apply(&start("t2", "g", None));
        let act = Event::ActivitySnapshot(alloc::boxed::Box::new(ActivitySnapshot {
            subagent_run_id: None,
            message_id: "a".into(),
            activity_type: "P".into(),
            content: Object::new(),
            replace: true,
            metadata: None,
        }));
        assert_eq!(r.apply(&act), Changed::MESSAGES);
        assert!(r.tool_call("t").is_none());
        assert!(r.tool_call("t2").is_some());
        assert_index_matches_scan(&r);
    }

    /// An activity that changes its type in place moves in the index, so
    /// that a 1.0 snapshot authoritative for the new type removes it and
    /// one for the old type keeps it.
    #[test]
    fn retyped_activity_follows_its_type() {
        let snapshot = |t: &str| {
            Event::ActivitySnapshot(alloc::boxed::Box::new(ActivitySnapshot {
                subagent_run_id: None,
                message_id: "a".into(),
                activity_type: t.into(),
                content: Object::new(),
                replace: true,
                metadata: None,
            }))
        };
        let delta = |t: &str| {
            Event::ActivityDelta(alloc::boxed::Box::new(ActivityDelta {
                message_id: "a".into(),
                activity_type: t.into(),
                patch: serde_json::from_str(PATCHES[0]).unwrap(),
                metadata: None,
            }))
        };
        let authoritative = |t: &str| {
            Event::MessagesSnapshot(MessagesSnapshot {
                messages: Vec::new(),
                activity_authority: ActivityAuthority::Types(vec![t.into()]),
            })
        };
        for (retype, kept) in [(snapshot("B"), "A"), (delta("B"), "A"), (delta("A"), "B")] {
            let mut r = Reducer::new();
            r.set_dialect(Dialect::V1);
            r.apply(&snapshot("A"));
            r.apply(&retype);
            assert_index_matches_scan(&r);
            r.apply(&authoritative(kept));
            assert_eq!(r.messages.len(), 1, "{retype:?} then authority over {kept}");
            r.apply(&authoritative(if kept == "A" { "B" } else { "A" }));
            assert!(r.messages.is_empty(), "{retype:?}");
        }
    }

    /// Small alphabets, so that ids collide often.
    fn any_event() -> impl Strategy<Value = Event> {
        let id = || prop::sample::select(vec!["a", "b", "c", "t1", "t2"]);
        let piece =
            prop::sample::select(vec!["{", "\"k\"", ":", "1", ",", "}", "[", "\"é\\u00", ""]);
        let role = prop::sample::select(vec![Role::Assistant, Role::User, Role::System]);
        let snapshot_msg = (id(), 0..4u8).prop_map(|(id, kind)| match kind {
            0 => msg(json!({"id": id, "role": "user", "content": "s"})),
            1 => msg(json!({"id": id, "role": "reasoning", "content": "s"})),
            2 => msg(json!({"id": id, "role": "activity", "activityType": "A", "content": {}})),
            _ => msg(json!({"id": id, "role": "assistant", "toolCalls": [
                {"id": "t1", "type": "function", "function": {"name": "s", "arguments": "{\"s\":"}}]})),
        });
        prop_oneof![
            (id(), role).prop_map(|(id, role)| text_start(id, role)),
            (id(), piece.clone()).prop_map(|(id, d)| Event::TextMessageContent(MessageContent {
                message_id: id.into(),
                delta: d.into(),
                metadata: None
            })),
            (id(), prop::option::of(id())).prop_map(|(id, parent)| start(id, "n", parent)),
            (id(), piece).prop_map(|(id, d)| args(id, d)),
            id().prop_map(|id| Event::ToolCallEnd(ToolCallEnd {
                tool_call_id: id.into(),
                metadata: None
            })),
            (id(), id()).prop_map(|(m, t)| result(m, t)),
            (prop::collection::vec(snapshot_msg.clone(), 0..4), 0..5u8).prop_map(
                |(messages, authority)| Event::MessagesSnapshot(MessagesSnapshot {
                    messages,
                    // Authority is read in 1.0 only (the current protocol
                    // always has `Unstated`).
                    activity_authority: match authority {
                        0 | 1 => ActivityAuthority::Unstated,
                        2 => ActivityAuthority::All,
                        3 => ActivityAuthority::Types(vec!["A".into()]),
                        _ => ActivityAuthority::Types(vec!["B".into(), "B".into()]),
                    },
                })
            ),
            (id(), any::<bool>()).prop_map(|(id, replace)| Event::ActivitySnapshot(
                alloc::boxed::Box::new(ActivitySnapshot {
                    subagent_run_id: None,
                    message_id: id.into(),
                    activity_type: "A".into(),
                    content: Object::new(),
                    replace,
                    metadata: None,
                })
            )),
            (id(), prop::option::of(id())).prop_map(|(id, key)| {
                Event::TextMessageContent(MessageContent {
                    message_id: id.into(),
                    delta: "x\n".into(),
                    metadata: key.map(|k| {
                        let mut m = Object::new();
                        m.insert(k.into(), json!([k, 1.5]));
                        m
                    }),
                })
            }),
            (id(), 0..PATCHES.len()).prop_map(|(id, p)| Event::ActivityDelta(
                alloc::boxed::Box::new(ActivityDelta {
                    message_id: id.into(),
                    activity_type: "B".into(),
                    patch: serde_json::from_str(PATCHES[p]).unwrap(),
                    metadata: None,
                })
            )),
            (0..PATCHES.len()).prop_map(|p| Event::StateDelta(StateDelta {
                delta: serde_json::from_str(PATCHES[p]).unwrap(),
            })),
            (id(), any::<bool>()).prop_map(|(id, call)| {
                Event::ReasoningEncryptedValue(ReasoningEncryptedValue {
                    subtype: if call {
                        EncryptedSubtype::ToolCall
                    } else {
                        EncryptedSubtype::Message
                    },
                    entity_id: id.into(),
                    encrypted_value: "secret".into(),
                })
            }),
            prop::collection::vec(snapshot_msg, 0..3).prop_map(|messages| {
                Event::RunStarted(RunStarted {
                    thread_id: "t".into(),
                    run_id: "r".into(),
                    parent_run_id: None,
                    input: Some(alloc::boxed::Box::new(crate::model::RunAgentInput {
                        thread_id: "t".into(),
                        run_id: "r".into(),
                        parent_run_id: None,
                        protocol_version: None,
                        state: None,
                        messages,
                        tools: Vec::new(),
                        context: Vec::new(),
                        forwarded_props: None,
                        resume: None,
                    })),
                })
            }),
        ]
    }

    /// Patches for the generated deltas: every op, nested values, escapes,
    /// failures.
    const PATCHES: &[&str] = &[
        r#"[{"op":"add","path":"/x","value":[1,"\n",{"k":null}]}]"#,
        r#"[{"op":"add","path":"/x/-","value":-2.5e-7}]"#,
        r#"[{"op":"copy","from":"/x","path":"/y"}]"#,
        r#"[{"op":"copy","from":"","path":"/whole"}]"#,
        r#"[{"op":"remove","path":"/x"}]"#,
        r#"[{"op":"remove","path":"/x/0"}]"#,
        r#"[{"op":"move","from":"/x","path":"/z"}]"#,
        r#"[{"op":"move","from":"/y","path":"/x/0"}]"#,
        r#"[{"op":"replace","path":"","value":{"q":1e300}}]"#,
        r#"[{"op":"replace","path":"/q","value":"\u0001"}]"#,
        r#"[{"op":"remove","path":""}]"#,
        r#"[{"op":"add","path":"/n","value":1},{"op":"test","path":"/n","value":2}]"#,
    ];

    /// The counts the reducer keeps equal what a walk of everything finds.
    fn assert_sizes_match_a_walk(r: &Reducer) {
        let held: usize = r.messages.iter().map(message_bytes).sum();
        assert_eq!(r.message_bytes(), held, "{:?}", r.messages);
        let state = serde_json::to_string(&r.state).unwrap();
        assert_eq!(r.state_size.bytes, state.len(), "{state}");
        assert!(r.state_size.depth >= json_size(&r.state).depth);
        for (id, size) in &r.activity_sizes {
            if let Some(Message::Activity(a)) = r.message(id) {
                assert_eq!(size.bytes, json_size(&a.content).bytes, "{id}");
            }
        }
    }

    /// The list after `event` as the plain algorithms of SPEC section 5 make
    /// it (a scan for the owner and past its results; the merge by maps),
    /// for the events whose fast paths are tested here.
    fn expected_after(
        messages: &[Message],
        event: &Event,
        dialect: Dialect,
    ) -> Option<Vec<Message>> {
        match event {
            Event::MessagesSnapshot(e) => {
                let has = |role| e.messages.iter().any(|m: &Message| m.role() == role);
                let (act, rea) = (has(MessageRole::Activity), has(MessageRole::Reasoning));
                let last: BTreeMap<&str, &Message> =
                    e.messages.iter().map(|m| (m.id(), m)).collect();
                let mut merged = Vec::new();
                for local in messages {
                    let client_only = match (local, &e.activity_authority, dialect) {
                        (Message::Activity(_), _, Dialect::Current)
                        | (Message::Activity(_), ActivityAuthority::Unstated, Dialect::V1) => !act,
                        (Message::Activity(_), ActivityAuthority::All, Dialect::V1) => false,
                        (Message::Activity(a), ActivityAuthority::Types(types), Dialect::V1) => {
                            !types.contains(&a.activity_type)
                        }
                        (Message::Reasoning(_), _, _) => !rea,
                        (
                            Message::Developer(_)
                            | Message::System(_)
                            | Message::Assistant(_)
                            | Message::User(_)
                            | Message::Tool(_),
                            _,
                            _,
                        ) => false,
                    };
                    // In 1.0 a client-only message that an entry names is
                    // replaced by it (SPEC 9.8); in the current protocol
                    // it is kept as it is.
                    let server = last.get(local.id());
                    match (client_only, server, dialect) {
                        (true, Some(server), Dialect::V1) => merged.push((*server).clone()),
                        (true, _, _) => merged.push(local.clone()),
                        (false, Some(server), _) => merged.push((*server).clone()),
                        (false, None, _) => {}
                    }
                }
                let kept: BTreeSet<&str> = merged.iter().map(Message::id).collect();
                let added: Vec<Message> = e
                    .messages
                    .iter()
                    .filter(|m| !kept.contains(m.id()))
                    .cloned()
                    .collect();
                merged.extend(added);
                Some(merged)
            }
            Event::ToolCallResult(e) => {
                let mut list = messages.to_vec();
                let message = Message::Tool(ToolMessage {
                    id: e.message_id.clone(),
                    content: e.content.clone(),
                    tool_call_id: e.tool_call_id.clone(),
                    metadata: e.metadata.clone(),
                    ..Default::default()
                });
                let owner = list
                    .iter()
                    .position(|m| m.tool_calls().iter().any(|c| c.id == e.tool_call_id));
                match owner {
                    None => list.push(message),
                    Some(owner) => {
                        let mut pos = owner + 1;
                        while list.get(pos).map(Message::role) == Some(MessageRole::Tool) {
                            pos += 1;
                        }
                        list.insert(pos, message);
                    }
                }
                Some(list)
            }
            Event::RunStarted(_)
            | Event::RunFinished(_)
            | Event::RunError(_)
            | Event::StepStarted(_)
            | Event::StepFinished(_)
            | Event::TextMessageStart(_)
            | Event::TextMessageContent(_)
            | Event::TextMessageEnd(_)
            | Event::ToolCallStart(_)
            | Event::ToolCallArgs(_)
            | Event::ToolCallEnd(_)
            | Event::ThinkingStart(_)
            | Event::ThinkingEnd
            | Event::ThinkingTextMessageStart
            | Event::ThinkingTextMessageContent(_)
            | Event::ThinkingTextMessageEnd
            | Event::ReasoningStart(_)
            | Event::ReasoningEnd(_)
            | Event::ReasoningMessageStart(_)
            | Event::ReasoningMessageContent(_)
            | Event::ReasoningMessageEnd(_)
            | Event::ReasoningEncryptedValue(_)
            | Event::StateSnapshot(_)
            | Event::StateDelta(_)
            | Event::ActivitySnapshot(_)
            | Event::ActivityDelta(_)
            | Event::Raw(_)
            | Event::Custom(_)
            | Event::SubagentStarted(_)
            | Event::SubagentFinished(_)
            | Event::SubagentError(_) => None,
        }
    }

    proptest! {
        #[test]
        fn index_always_matches_a_scan(
            events in prop::collection::vec(any_event(), 0..40),
            v1 in any::<bool>(),
        ) {
            let mut r = Reducer::new();
            let dialect = if v1 { Dialect::V1 } else { Dialect::Current };
            r.set_dialect(dialect);
            for event in &events {
                // The current protocol reads no authority.
                let mut event = event.clone();
                if let (Event::MessagesSnapshot(e), Dialect::Current) = (&mut event, dialect) {
                    e.activity_authority = ActivityAuthority::Unstated;
                }
                let event = &event;
                let expected = expected_after(&r.messages, event, dialect);
                r.apply(event);
                if let Some(expected) = expected {
                    assert_eq!(r.messages, expected, "{event:?}");
                }
                assert_index_matches_scan(&r);
                assert_sizes_match_a_walk(&r);
            }
        }
    }
}
