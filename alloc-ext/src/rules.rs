//! Every decision the alloc layer makes about an event type, in one place.
//!
//! The event table (`events!` in `event.rs`) gives each event type a marker
//! type in [`kind`](crate::event::kind); this file implements [`Rules`] for
//! each of them. `Rules` has no default methods, so a new row in the table
//! does not compile until its block below answers every question the layer
//! asks of an event:
//!
//! | method | the question | used by |
//! |---|---|---|
//! | `decode` | which fields, read how (SPEC section 3) | `Event::from_core` |
//! | `growth` | how many messages and bytes it may add (an upper bound, in time proportional to the event) | the limits, before anything is applied |
//! | `check` | any limit beyond that growth (snapshots, patches) | the limits |
//! | `hook` | which typed hook of [`Subscriber`] it calls, with what context | `Reducer::apply_with` |
//! | `reduce` | its default handling (SPEC section 5); the payload comes as [`Given`]: shared, or given up by the client, so that a snapshot is moved into the reducer, not copied | `Reducer::apply_with`, the client |
//! | `notify` | the notifications that fire even when a hook stopped it | `Reducer::apply_with` |
//! | `trace_args` | the arguments value the replay trace shows after it (SPEC section 7) | `Reducer::trace_args` |
//! | `effect` | what it means for a display ([`Effect`]) | the kiosk, the conversation |
//!
//! The methods state decisions; the mechanisms they call (appending a
//! delta, merging a snapshot, measuring a patch) live in `reduce.rs`.

use alloc::boxed::Box;
use alloc::string::String;

use serde_json::Value;

use agui_core::decode::Field as F;
use agui_core::event::EventType;

use crate::event::{
    check_metadata, content, end, kind, metadata, outcome, patch, string_item, text_role,
    ActivityAuthority, ActivityDelta, ActivitySnapshot, Custom, DecodeError, Effect,
    EncryptedSubtype, MessageContent, MessageEnd, MessagesSnapshot, Raw, ReasoningEncryptedValue,
    ReasoningMessageStart, ReasoningPhase, RunError, RunFinished, RunStarted, StateDelta,
    StateSnapshot, Step, SubagentError, SubagentFinished, SubagentOutcome, SubagentStarted,
    TextMessageStart, ThinkingContent, ThinkingStart, ToolCallArgs, ToolCallEnd, ToolCallResult,
    ToolCallStart,
};
use crate::hooks::{Flow, HookView, Subscriber};
use crate::model::{Dialect, Fields, Message, RunAgentInput, ToolContent, SUBAGENT_RUN_ID};
use crate::reduce::{meta_bytes, sum, Changed, LimitError, Reducer};
use crate::size::object_size;

/// The alloc layer's decisions about one event type (see the module docs).
pub(crate) trait Rules {
    /// What the event owns (`()` for an event without fields).
    type Payload: 'static;
    /// Reads the payload from the frame's own fields.
    fn decode(f: Fields<'_>) -> Result<Self::Payload, DecodeError>;
    /// Messages and message bytes it may add.
    fn growth(e: &Self::Payload, r: &Reducer) -> (usize, usize);
    /// Limits beyond its growth; `text` is the bytes `growth` counted.
    fn check(e: &Self::Payload, r: &mut Reducer, text: usize) -> Result<(), LimitError>;
    /// Its typed hook.
    fn hook(e: &Self::Payload, r: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow;
    /// Its default handling; the payload is the caller's to give up when
    /// the caller owns the event (a large snapshot is moved, not copied).
    fn reduce(e: Given<'_, Self::Payload>, r: &mut Reducer, s: &mut dyn Subscriber) -> Changed;
    /// Notifications after the event, whatever the hooks decided.
    fn notify(e: &Self::Payload, r: &Reducer, s: &mut dyn Subscriber);
    /// The arguments value the trace shows after it.
    fn trace_args<'r>(e: &Self::Payload, r: &'r Reducer) -> Option<(&'static str, &'r Value)>;
    /// What it means for a display.
    fn effect(e: &Self::Payload) -> Effect<'_>;
}

/// An operation over any event: [`Event::visit`](crate::event::Event)
/// calls `visit` with the event's payload and its type's [`Rules`].
pub(crate) trait Visit<'e> {
    /// What the operation returns.
    type Out;
    /// Runs the operation on one event.
    fn visit<R: Rules>(self, e: &'e R::Payload) -> Self::Out;
}

/// An operation over any event that may change it (see [`Given`]).
pub(crate) trait VisitMut {
    /// What the operation returns.
    type Out;
    /// Runs the operation on one event.
    fn visit<R: Rules>(self, e: &mut R::Payload) -> Self::Out;
}

/// A payload as [`Rules::reduce`] gets it: borrowed from a caller that
/// keeps the event, or given up by one that does not need it any more, so
/// that what the reducer keeps can be moved out of it instead of copied.
pub(crate) enum Given<'e, P> {
    /// The caller keeps the event.
    Shared(&'e P),
    /// The caller gives up the event's contents.
    Owned(&'e mut P),
}

impl<'e, P> Given<'e, P> {
    /// The payload.
    pub(crate) fn get(&self) -> &P {
        match self {
            Given::Shared(p) => p,
            Given::Owned(p) => p,
        }
    }

    /// A part of the payload: moved out when it is given up, else copied.
    pub(crate) fn take<T: Clone + Default>(
        self,
        part: impl Fn(&mut P) -> &mut T,
        copy: impl Fn(&P) -> &T,
    ) -> T {
        match self {
            Given::Shared(p) => copy(p).clone(),
            Given::Owned(p) => core::mem::take(part(p)),
        }
    }
}

/// An event that adds nothing to the messages.
const NO_GROWTH: (usize, usize) = (0, 0);

/// Bytes of an optional string (a growth part).
fn opt_len(s: &Option<String>) -> usize {
    s.as_ref().map_or(0, String::len)
}

// ---------------------------------------------------------------------------
// The operations the reducer and `Event::effect` run.

/// [`Rules::growth`].
pub(crate) struct Growth<'r>(pub(crate) &'r Reducer);

impl Visit<'_> for Growth<'_> {
    type Out = (usize, usize);
    fn visit<R: Rules>(self, e: &R::Payload) -> (usize, usize) {
        R::growth(e, self.0)
    }
}

/// [`Rules::check`].
pub(crate) struct Check<'r>(pub(crate) &'r mut Reducer);

impl Visit<'_> for Check<'_> {
    type Out = Result<(), LimitError>;
    fn visit<R: Rules>(self, e: &R::Payload) -> Result<(), LimitError> {
        let (added, text) = R::growth(e, self.0);
        self.0.within_messages(added, text)?;
        R::check(e, self.0, text)
    }
}

/// [`Rules::hook`].
pub(crate) struct Hook<'r, 's, 'v, 'm> {
    pub(crate) reducer: &'r Reducer,
    pub(crate) subscriber: &'s mut dyn Subscriber,
    pub(crate) view: &'v mut HookView<'m>,
}

impl Visit<'_> for Hook<'_, '_, '_, '_> {
    type Out = Flow;
    fn visit<R: Rules>(self, e: &R::Payload) -> Flow {
        R::hook(e, self.reducer, self.subscriber, self.view)
    }
}

/// [`Rules::reduce`], on an event the caller keeps ([`Visit`]) or gives
/// up ([`VisitMut`]).
pub(crate) struct Reduce<'r, 's> {
    pub(crate) reducer: &'r mut Reducer,
    pub(crate) subscriber: &'s mut dyn Subscriber,
}

impl Visit<'_> for Reduce<'_, '_> {
    type Out = Changed;
    fn visit<R: Rules>(self, e: &R::Payload) -> Changed {
        R::reduce(Given::Shared(e), self.reducer, self.subscriber)
    }
}

impl VisitMut for Reduce<'_, '_> {
    type Out = Changed;
    fn visit<R: Rules>(self, e: &mut R::Payload) -> Changed {
        R::reduce(Given::Owned(e), self.reducer, self.subscriber)
    }
}

/// [`Rules::notify`].
pub(crate) struct Notify<'r, 's> {
    pub(crate) reducer: &'r Reducer,
    pub(crate) subscriber: &'s mut dyn Subscriber,
}

impl Visit<'_> for Notify<'_, '_> {
    type Out = ();
    fn visit<R: Rules>(self, e: &R::Payload) {
        R::notify(e, self.reducer, self.subscriber);
    }
}

/// [`Rules::trace_args`].
pub(crate) struct TraceArgs<'r>(pub(crate) &'r Reducer);

impl<'r> Visit<'_> for TraceArgs<'r> {
    type Out = Option<(&'static str, &'r Value)>;
    fn visit<R: Rules>(self, e: &R::Payload) -> Self::Out {
        R::trace_args(e, self.0)
    }
}

/// [`Rules::effect`].
pub(crate) struct EffectOf;

impl<'e> Visit<'e> for EffectOf {
    type Out = Effect<'e>;
    fn visit<R: Rules>(self, e: &'e R::Payload) -> Effect<'e> {
        R::effect(e)
    }
}

// ---------------------------------------------------------------------------
// Shared pieces of the decisions below.

/// The trace's arguments value of tool call `id`, when the call is in the
/// messages and the value exists.
fn args_shown<'r>(
    r: &'r Reducer,
    key: &'static str,
    id: &str,
    value: Option<&'r Value>,
) -> Option<(&'static str, &'r Value)> {
    r.tool_call(id)?;
    Some((key, value?))
}

/// A CONTENT event's growth: its delta and metadata.
fn content_growth(e: &MessageContent) -> (usize, usize) {
    (0, sum(&[e.delta.len(), meta_bytes(&e.metadata)]))
}

/// An END event's growth: its metadata.
fn end_growth(e: &MessageEnd) -> (usize, usize) {
    (0, meta_bytes(&e.metadata))
}

/// An END event of a message notifies the message as new.
fn notify_message(id: &str, r: &Reducer, s: &mut dyn Subscriber) {
    if let Some(message) = r.message(id) {
        s.on_new_message(message);
    }
}

// ---------------------------------------------------------------------------
// Run lifecycle.

impl Rules for kind::RunStarted {
    type Payload = RunStarted;
    fn decode(f: Fields<'_>) -> Result<RunStarted, DecodeError> {
        check_metadata(f)?;
        Ok(RunStarted {
            thread_id: f.string(F::ThreadId.as_str())?,
            run_id: f.string(F::RunId.as_str())?,
            parent_run_id: f.opt_string(F::ParentRunId.as_str())?,
            input: match f.get(F::Input.as_str()) {
                None => None,
                Some(v) => {
                    let input = RunAgentInput::from_json_in(v, f.dialect())
                        .map_err(|e| e.within(F::Input.as_str()))?;
                    Some(Box::new(input))
                }
            },
        })
    }
    fn growth(e: &RunStarted, r: &Reducer) -> (usize, usize) {
        r.input_growth(e)
    }
    fn check(_: &RunStarted, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &RunStarted, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_run_started(e, v)
    }
    fn reduce(given: Given<'_, RunStarted>, r: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        let e = given.get();
        r.run_started(e)
    }
    fn notify(_: &RunStarted, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &RunStarted, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &RunStarted) -> Effect<'_> {
        Effect::RunStarted
    }
}

impl Rules for kind::RunFinished {
    type Payload = RunFinished;
    fn decode(f: Fields<'_>) -> Result<RunFinished, DecodeError> {
        check_metadata(f)?;
        Ok(RunFinished {
            thread_id: f.string(F::ThreadId.as_str())?,
            run_id: f.string(F::RunId.as_str())?,
            result: f.opt_any(F::Result.as_str()),
            outcome: match f.get(F::Outcome.as_str()) {
                None | Some(Value::Null) => None,
                Some(v) => {
                    Some(outcome(v, f.dialect()).map_err(|e| e.within(F::Outcome.as_str()))?)
                }
            },
        })
    }
    fn growth(_: &RunFinished, _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(_: &RunFinished, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &RunFinished, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_run_finished(e, v)
    }
    fn reduce(given: Given<'_, RunFinished>, r: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        let e = given.get();
        r.run_finished(e)
    }
    fn notify(_: &RunFinished, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &RunFinished, r: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        // AG-UI 1.0: what the run ended with (SPEC 9.9).
        r.outcome_value().map(|v| ("outcome", v))
    }
    fn effect(e: &RunFinished) -> Effect<'_> {
        Effect::RunFinished(e)
    }
}

impl Rules for kind::RunError {
    type Payload = RunError;
    fn decode(f: Fields<'_>) -> Result<RunError, DecodeError> {
        check_metadata(f)?;
        Ok(RunError {
            message: f.string(F::Message.as_str())?,
            code: f.opt_string(F::Code.as_str())?,
        })
    }
    fn growth(_: &RunError, _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(_: &RunError, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &RunError, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_run_error(e, v)
    }
    fn reduce(_: Given<'_, RunError>, _: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        Changed::NONE
    }
    fn notify(_: &RunError, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &RunError, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(e: &RunError) -> Effect<'_> {
        Effect::RunError(e)
    }
}

/// `STEP_STARTED` and `STEP_FINISHED` read the same fields.
fn step(f: Fields<'_>) -> Result<Step, DecodeError> {
    check_metadata(f)?;
    Ok(Step {
        step_name: f.string(F::StepName.as_str())?,
    })
}

impl Rules for kind::StepStarted {
    type Payload = Step;
    fn decode(f: Fields<'_>) -> Result<Step, DecodeError> {
        step(f)
    }
    fn growth(_: &Step, _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(_: &Step, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &Step, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_step_started(e, v)
    }
    fn reduce(_: Given<'_, Step>, _: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        Changed::NONE
    }
    fn notify(_: &Step, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &Step, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(e: &Step) -> Effect<'_> {
        Effect::StepStarted(&e.step_name)
    }
}

impl Rules for kind::StepFinished {
    type Payload = Step;
    fn decode(f: Fields<'_>) -> Result<Step, DecodeError> {
        step(f)
    }
    fn growth(_: &Step, _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(_: &Step, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &Step, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_step_finished(e, v)
    }
    fn reduce(_: Given<'_, Step>, _: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        Changed::NONE
    }
    fn notify(_: &Step, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &Step, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(e: &Step) -> Effect<'_> {
        Effect::StepFinished(&e.step_name)
    }
}

// ---------------------------------------------------------------------------
// Text messages.

impl Rules for kind::TextMessageStart {
    type Payload = TextMessageStart;
    fn decode(f: Fields<'_>) -> Result<TextMessageStart, DecodeError> {
        Ok(TextMessageStart {
            message_id: f.string(F::MessageId.as_str())?,
            role: text_role(f)?,
            name: f.opt_string(F::Name.as_str())?,
            metadata: metadata(f)?,
            subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
        })
    }
    fn growth(e: &TextMessageStart, r: &Reducer) -> (usize, usize) {
        let (n, bytes) = r.start_growth(&e.message_id, e.name.as_ref(), &e.metadata);
        (n, bytes.saturating_add(opt_len(&e.subagent_run_id)))
    }
    fn check(_: &TextMessageStart, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(
        e: &TextMessageStart,
        _: &Reducer,
        s: &mut dyn Subscriber,
        v: &mut HookView<'_>,
    ) -> Flow {
        s.on_text_message_start(e, v)
    }
    fn reduce(
        given: Given<'_, TextMessageStart>,
        r: &mut Reducer,
        _: &mut dyn Subscriber,
    ) -> Changed {
        let e = given.get();
        if r.ignores_activity_text(&e.message_id, EventType::TextMessageStart) {
            return Changed::NONE;
        }
        r.text_message_start(e)
    }
    fn notify(_: &TextMessageStart, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &TextMessageStart, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &TextMessageStart) -> Effect<'_> {
        Effect::Plain
    }
}

impl Rules for kind::TextMessageContent {
    type Payload = MessageContent;
    fn decode(f: Fields<'_>) -> Result<MessageContent, DecodeError> {
        content(f)
    }
    fn growth(e: &MessageContent, _: &Reducer) -> (usize, usize) {
        content_growth(e)
    }
    fn check(_: &MessageContent, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &MessageContent, r: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_text_message_content(e, r.text_of(&e.message_id), v)
    }
    fn reduce(
        given: Given<'_, MessageContent>,
        r: &mut Reducer,
        _: &mut dyn Subscriber,
    ) -> Changed {
        let e = given.get();
        if r.ignores_activity_text(&e.message_id, EventType::TextMessageContent) {
            return Changed::NONE;
        }
        r.message_content(e)
    }
    fn notify(_: &MessageContent, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &MessageContent, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &MessageContent) -> Effect<'_> {
        Effect::Plain
    }
}

impl Rules for kind::TextMessageEnd {
    type Payload = MessageEnd;
    fn decode(f: Fields<'_>) -> Result<MessageEnd, DecodeError> {
        end(f)
    }
    fn growth(e: &MessageEnd, _: &Reducer) -> (usize, usize) {
        end_growth(e)
    }
    fn check(_: &MessageEnd, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &MessageEnd, r: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_text_message_end(e, r.text_of(&e.message_id), v)
    }
    fn reduce(given: Given<'_, MessageEnd>, r: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        let e = given.get();
        if r.ignores_activity_text(&e.message_id, EventType::TextMessageEnd) {
            return Changed::NONE;
        }
        r.message_end(e)
    }
    fn notify(e: &MessageEnd, r: &Reducer, s: &mut dyn Subscriber) {
        notify_message(&e.message_id, r, s);
    }
    fn trace_args<'r>(_: &MessageEnd, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &MessageEnd) -> Effect<'_> {
        Effect::Plain
    }
}

// ---------------------------------------------------------------------------
// Tool calls.

impl Rules for kind::ToolCallStart {
    type Payload = ToolCallStart;
    fn decode(f: Fields<'_>) -> Result<ToolCallStart, DecodeError> {
        Ok(ToolCallStart {
            tool_call_id: f.string(F::ToolCallId.as_str())?,
            tool_call_name: f.string(F::ToolCallName.as_str())?,
            parent_message_id: f.nullable_string(F::ParentMessageId.as_str())?,
            metadata: metadata(f)?,
            subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
        })
    }
    fn growth(e: &ToolCallStart, r: &Reducer) -> (usize, usize) {
        // The id is held twice: by the call and by its arguments slot.
        let owner = e.parent_message_id.as_ref().map_or(0, String::len);
        let adds = r.tool_call_adds_message(e);
        // A new assistant message holds the call's 1.0 owner tag too.
        let tag = if adds { opt_len(&e.subagent_run_id) } else { 0 };
        let bytes = sum(&[
            e.tool_call_id.len().saturating_mul(2),
            owner,
            e.tool_call_name.len(),
            meta_bytes(&e.metadata),
            tag,
            r.run_calls_growth_start(&e.tool_call_id),
        ]);
        (usize::from(adds), bytes)
    }
    fn check(_: &ToolCallStart, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &ToolCallStart, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_tool_call_start(e, v)
    }
    fn reduce(given: Given<'_, ToolCallStart>, r: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        let e = given.get();
        r.tool_call_start(e)
    }
    fn notify(_: &ToolCallStart, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &ToolCallStart, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(e: &ToolCallStart) -> Effect<'_> {
        Effect::ToolCallStarted(&e.tool_call_id)
    }
}

impl Rules for kind::ToolCallArgs {
    type Payload = ToolCallArgs;
    fn decode(f: Fields<'_>) -> Result<ToolCallArgs, DecodeError> {
        Ok(ToolCallArgs {
            tool_call_id: f.string(F::ToolCallId.as_str())?,
            delta: f.string(F::Delta.as_str())?,
            metadata: metadata(f)?,
        })
    }
    fn growth(e: &ToolCallArgs, _: &Reducer) -> (usize, usize) {
        (0, sum(&[e.delta.len(), meta_bytes(&e.metadata)]))
    }
    fn check(_: &ToolCallArgs, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &ToolCallArgs, r: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        let id = &e.tool_call_id;
        s.on_tool_call_args(e, &r.progress(id, r.partial_args(id)), v)
    }
    fn reduce(given: Given<'_, ToolCallArgs>, r: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        let e = given.get();
        r.tool_call_args(e)
    }
    fn notify(_: &ToolCallArgs, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(e: &ToolCallArgs, r: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        let id = &e.tool_call_id;
        args_shown(r, "partialArgs", id, r.partial_args(id))
    }
    fn effect(_: &ToolCallArgs) -> Effect<'_> {
        Effect::Plain
    }
}

impl Rules for kind::ToolCallEnd {
    type Payload = ToolCallEnd;
    fn decode(f: Fields<'_>) -> Result<ToolCallEnd, DecodeError> {
        Ok(ToolCallEnd {
            tool_call_id: f.string(F::ToolCallId.as_str())?,
            metadata: metadata(f)?,
        })
    }
    fn growth(e: &ToolCallEnd, _: &Reducer) -> (usize, usize) {
        (0, meta_bytes(&e.metadata))
    }
    fn check(_: &ToolCallEnd, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &ToolCallEnd, r: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        let id = &e.tool_call_id;
        s.on_tool_call_end(e, &r.progress(id, r.final_args(id)), v)
    }
    fn reduce(given: Given<'_, ToolCallEnd>, r: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        let e = given.get();
        r.tool_call_end(e)
    }
    fn notify(e: &ToolCallEnd, r: &Reducer, s: &mut dyn Subscriber) {
        if let Some(call) = r.tool_call(&e.tool_call_id) {
            s.on_new_tool_call(call);
        }
    }
    fn trace_args<'r>(e: &ToolCallEnd, r: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        let id = &e.tool_call_id;
        args_shown(r, "args", id, r.final_args(id))
    }
    fn effect(_: &ToolCallEnd) -> Effect<'_> {
        Effect::Plain
    }
}

impl Rules for kind::ToolCallResult {
    type Payload = ToolCallResult;
    fn decode(f: Fields<'_>) -> Result<ToolCallResult, DecodeError> {
        if f.get(F::Role.as_str()).is_some() {
            f.literal(F::Role.as_str(), "tool")?;
        }
        Ok(ToolCallResult {
            message_id: f.string(F::MessageId.as_str())?,
            tool_call_id: f.string(F::ToolCallId.as_str())?,
            content: match f.dialect() {
                Dialect::Current => ToolContent::Text(f.string(F::Content.as_str())?),
                Dialect::V1 => crate::model::content(f, Dialect::V1)?,
            },
            metadata: metadata(f)?,
            subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
        })
    }
    fn growth(e: &ToolCallResult, r: &Reducer) -> (usize, usize) {
        let parts = [
            e.message_id.len(),
            e.tool_call_id.len(),
            crate::size::user_content_bytes(&e.content),
            meta_bytes(&e.metadata),
            opt_len(&e.subagent_run_id),
            r.run_calls_growth_answer(&e.tool_call_id),
        ];
        (1, sum(&parts))
    }
    fn check(_: &ToolCallResult, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &ToolCallResult, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_tool_call_result(e, v)
    }
    fn reduce(
        given: Given<'_, ToolCallResult>,
        r: &mut Reducer,
        s: &mut dyn Subscriber,
    ) -> Changed {
        let e = given.get();
        r.tool_call_result(e, s)
    }
    fn notify(_: &ToolCallResult, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &ToolCallResult, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &ToolCallResult) -> Effect<'_> {
        Effect::ToolResult
    }
}

// ---------------------------------------------------------------------------
// Thinking (the older reasoning events): hooks only, no messages.

impl Rules for kind::ThinkingStart {
    type Payload = ThinkingStart;
    fn decode(f: Fields<'_>) -> Result<ThinkingStart, DecodeError> {
        check_metadata(f)?;
        Ok(ThinkingStart {
            title: f.opt_string(F::Title.as_str())?,
        })
    }
    fn growth(_: &ThinkingStart, _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(_: &ThinkingStart, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &ThinkingStart, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_thinking_start(e, v)
    }
    fn reduce(_: Given<'_, ThinkingStart>, _: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        Changed::NONE
    }
    fn notify(_: &ThinkingStart, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &ThinkingStart, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &ThinkingStart) -> Effect<'_> {
        Effect::ReasoningStarted
    }
}

impl Rules for kind::ThinkingEnd {
    type Payload = ();
    fn decode(f: Fields<'_>) -> Result<(), DecodeError> {
        check_metadata(f)
    }
    fn growth(_: &(), _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(_: &(), _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(_: &(), _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_thinking_end(v)
    }
    fn reduce(_: Given<'_, ()>, _: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        Changed::NONE
    }
    fn notify(_: &(), _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &(), _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &()) -> Effect<'_> {
        Effect::ReasoningEnded
    }
}

impl Rules for kind::ThinkingTextMessageStart {
    type Payload = ();
    fn decode(f: Fields<'_>) -> Result<(), DecodeError> {
        check_metadata(f)
    }
    fn growth(_: &(), _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(_: &(), _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(_: &(), _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_thinking_text_message_start(v)
    }
    fn reduce(_: Given<'_, ()>, _: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        Changed::NONE
    }
    fn notify(_: &(), _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &(), _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &()) -> Effect<'_> {
        Effect::Plain
    }
}

impl Rules for kind::ThinkingTextMessageContent {
    type Payload = ThinkingContent;
    fn decode(f: Fields<'_>) -> Result<ThinkingContent, DecodeError> {
        check_metadata(f)?;
        Ok(ThinkingContent {
            delta: f.string(F::Delta.as_str())?,
        })
    }
    fn growth(_: &ThinkingContent, _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(_: &ThinkingContent, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(
        e: &ThinkingContent,
        _: &Reducer,
        s: &mut dyn Subscriber,
        v: &mut HookView<'_>,
    ) -> Flow {
        s.on_thinking_text_message_content(e, v)
    }
    fn reduce(_: Given<'_, ThinkingContent>, _: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        Changed::NONE
    }
    fn notify(_: &ThinkingContent, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &ThinkingContent, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &ThinkingContent) -> Effect<'_> {
        Effect::Plain
    }
}

impl Rules for kind::ThinkingTextMessageEnd {
    type Payload = ();
    fn decode(f: Fields<'_>) -> Result<(), DecodeError> {
        check_metadata(f)
    }
    fn growth(_: &(), _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(_: &(), _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(_: &(), _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_thinking_text_message_end(v)
    }
    fn reduce(_: Given<'_, ()>, _: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        Changed::NONE
    }
    fn notify(_: &(), _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &(), _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &()) -> Effect<'_> {
        Effect::Plain
    }
}

// ---------------------------------------------------------------------------
// Reasoning.

/// `REASONING_START` and `REASONING_END` read the same fields.
fn reasoning_phase(f: Fields<'_>) -> Result<ReasoningPhase, DecodeError> {
    check_metadata(f)?;
    Ok(ReasoningPhase {
        message_id: f.string(F::MessageId.as_str())?,
    })
}

impl Rules for kind::ReasoningStart {
    type Payload = ReasoningPhase;
    fn decode(f: Fields<'_>) -> Result<ReasoningPhase, DecodeError> {
        reasoning_phase(f)
    }
    fn growth(_: &ReasoningPhase, _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(_: &ReasoningPhase, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &ReasoningPhase, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_reasoning_start(e, v)
    }
    fn reduce(_: Given<'_, ReasoningPhase>, _: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        Changed::NONE
    }
    fn notify(_: &ReasoningPhase, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &ReasoningPhase, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &ReasoningPhase) -> Effect<'_> {
        Effect::ReasoningStarted
    }
}

impl Rules for kind::ReasoningEnd {
    type Payload = ReasoningPhase;
    fn decode(f: Fields<'_>) -> Result<ReasoningPhase, DecodeError> {
        reasoning_phase(f)
    }
    fn growth(_: &ReasoningPhase, _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(_: &ReasoningPhase, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &ReasoningPhase, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_reasoning_end(e, v)
    }
    fn reduce(_: Given<'_, ReasoningPhase>, _: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        Changed::NONE
    }
    fn notify(_: &ReasoningPhase, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &ReasoningPhase, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &ReasoningPhase) -> Effect<'_> {
        Effect::ReasoningEnded
    }
}

impl Rules for kind::ReasoningMessageStart {
    type Payload = ReasoningMessageStart;
    fn decode(f: Fields<'_>) -> Result<ReasoningMessageStart, DecodeError> {
        f.literal(F::Role.as_str(), "reasoning")?;
        Ok(ReasoningMessageStart {
            message_id: f.string(F::MessageId.as_str())?,
            metadata: metadata(f)?,
            subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
        })
    }
    fn growth(e: &ReasoningMessageStart, r: &Reducer) -> (usize, usize) {
        let (n, bytes) = r.start_growth(&e.message_id, None, &e.metadata);
        (n, bytes.saturating_add(opt_len(&e.subagent_run_id)))
    }
    fn check(_: &ReasoningMessageStart, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(
        e: &ReasoningMessageStart,
        _: &Reducer,
        s: &mut dyn Subscriber,
        v: &mut HookView<'_>,
    ) -> Flow {
        s.on_reasoning_message_start(e, v)
    }
    fn reduce(
        given: Given<'_, ReasoningMessageStart>,
        r: &mut Reducer,
        _: &mut dyn Subscriber,
    ) -> Changed {
        let e = given.get();
        if r.ignores_activity_text(&e.message_id, EventType::ReasoningMessageStart) {
            return Changed::NONE;
        }
        r.reasoning_message_start(e)
    }
    fn notify(_: &ReasoningMessageStart, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(
        _: &ReasoningMessageStart,
        _: &'r Reducer,
    ) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &ReasoningMessageStart) -> Effect<'_> {
        Effect::Plain
    }
}

impl Rules for kind::ReasoningMessageContent {
    type Payload = MessageContent;
    fn decode(f: Fields<'_>) -> Result<MessageContent, DecodeError> {
        content(f)
    }
    fn growth(e: &MessageContent, _: &Reducer) -> (usize, usize) {
        content_growth(e)
    }
    fn check(_: &MessageContent, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &MessageContent, r: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_reasoning_message_content(e, r.text_of(&e.message_id), v)
    }
    fn reduce(
        given: Given<'_, MessageContent>,
        r: &mut Reducer,
        _: &mut dyn Subscriber,
    ) -> Changed {
        let e = given.get();
        if r.ignores_activity_text(&e.message_id, EventType::ReasoningMessageContent) {
            return Changed::NONE;
        }
        r.message_content(e)
    }
    fn notify(_: &MessageContent, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &MessageContent, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &MessageContent) -> Effect<'_> {
        Effect::Plain
    }
}

impl Rules for kind::ReasoningMessageEnd {
    type Payload = MessageEnd;
    fn decode(f: Fields<'_>) -> Result<MessageEnd, DecodeError> {
        end(f)
    }
    fn growth(e: &MessageEnd, _: &Reducer) -> (usize, usize) {
        end_growth(e)
    }
    fn check(_: &MessageEnd, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &MessageEnd, r: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_reasoning_message_end(e, r.text_of(&e.message_id), v)
    }
    fn reduce(given: Given<'_, MessageEnd>, r: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        let e = given.get();
        if r.ignores_activity_text(&e.message_id, EventType::ReasoningMessageEnd) {
            return Changed::NONE;
        }
        r.message_end(e)
    }
    fn notify(e: &MessageEnd, r: &Reducer, s: &mut dyn Subscriber) {
        notify_message(&e.message_id, r, s);
    }
    fn trace_args<'r>(_: &MessageEnd, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &MessageEnd) -> Effect<'_> {
        Effect::Plain
    }
}

impl Rules for kind::ReasoningEncryptedValue {
    type Payload = ReasoningEncryptedValue;
    fn decode(f: Fields<'_>) -> Result<ReasoningEncryptedValue, DecodeError> {
        check_metadata(f)?;
        Ok(ReasoningEncryptedValue {
            subtype: match f.one_of(F::Subtype.as_str(), &["tool-call", "message"])? {
                "tool-call" => EncryptedSubtype::ToolCall,
                _ => EncryptedSubtype::Message,
            },
            entity_id: f.string(F::EntityId.as_str())?,
            encrypted_value: f.string(F::EncryptedValue.as_str())?,
        })
    }
    fn growth(e: &ReasoningEncryptedValue, _: &Reducer) -> (usize, usize) {
        (0, e.encrypted_value.len())
    }
    fn check(_: &ReasoningEncryptedValue, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(
        e: &ReasoningEncryptedValue,
        _: &Reducer,
        s: &mut dyn Subscriber,
        v: &mut HookView<'_>,
    ) -> Flow {
        s.on_reasoning_encrypted_value(e, v)
    }
    fn reduce(
        given: Given<'_, ReasoningEncryptedValue>,
        r: &mut Reducer,
        _: &mut dyn Subscriber,
    ) -> Changed {
        let e = given.get();
        r.encrypted_value(e)
    }
    fn notify(_: &ReasoningEncryptedValue, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(
        _: &ReasoningEncryptedValue,
        _: &'r Reducer,
    ) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &ReasoningEncryptedValue) -> Effect<'_> {
        Effect::Plain
    }
}

// ---------------------------------------------------------------------------
// State and the message list as a whole.

impl Rules for kind::StateSnapshot {
    type Payload = StateSnapshot;
    fn decode(f: Fields<'_>) -> Result<StateSnapshot, DecodeError> {
        check_metadata(f)?;
        Ok(StateSnapshot {
            snapshot: f.opt_any(F::Snapshot.as_str()),
        })
    }
    fn growth(_: &StateSnapshot, _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(e: &StateSnapshot, r: &mut Reducer, _: usize) -> Result<(), LimitError> {
        r.check_state_snapshot(e.snapshot.as_ref())
    }
    fn hook(e: &StateSnapshot, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_state_snapshot(e, v)
    }
    fn reduce(given: Given<'_, StateSnapshot>, r: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        r.state_snapshot(given.take(|e| &mut e.snapshot, |e| &e.snapshot))
    }
    fn notify(_: &StateSnapshot, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &StateSnapshot, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &StateSnapshot) -> Effect<'_> {
        Effect::State
    }
}

impl Rules for kind::StateDelta {
    type Payload = StateDelta;
    fn decode(f: Fields<'_>) -> Result<StateDelta, DecodeError> {
        check_metadata(f)?;
        Ok(StateDelta {
            delta: patch(f, F::Delta.as_str())?,
        })
    }
    fn growth(_: &StateDelta, _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(e: &StateDelta, r: &mut Reducer, _: usize) -> Result<(), LimitError> {
        r.check_state_patch(&e.delta)
    }
    fn hook(e: &StateDelta, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_state_delta(e, v)
    }
    fn reduce(given: Given<'_, StateDelta>, r: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        let e = given.get();
        r.state_delta(e)
    }
    fn notify(_: &StateDelta, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &StateDelta, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &StateDelta) -> Effect<'_> {
        Effect::State
    }
}

impl Rules for kind::MessagesSnapshot {
    type Payload = MessagesSnapshot;
    fn decode(f: Fields<'_>) -> Result<MessagesSnapshot, DecodeError> {
        check_metadata(f)?;
        let dialect = f.dialect();
        Ok(MessagesSnapshot {
            messages: f.list(F::Messages.as_str(), |m| Message::from_json_in(m, dialect))?,
            activity_authority: match dialect {
                Dialect::V1 => ActivityAuthority::from_metadata(f.get(F::Metadata.as_str())),
                Dialect::Current => ActivityAuthority::Unstated,
            },
        })
    }
    fn growth(_: &MessagesSnapshot, _: &Reducer) -> (usize, usize) {
        // Checked exactly by `check`.
        NO_GROWTH
    }
    fn check(e: &MessagesSnapshot, r: &mut Reducer, _: usize) -> Result<(), LimitError> {
        r.check_messages_snapshot(&e.messages, &e.activity_authority)
    }
    fn hook(
        e: &MessagesSnapshot,
        _: &Reducer,
        s: &mut dyn Subscriber,
        v: &mut HookView<'_>,
    ) -> Flow {
        s.on_messages_snapshot(e, v)
    }
    fn reduce(
        given: Given<'_, MessagesSnapshot>,
        r: &mut Reducer,
        _: &mut dyn Subscriber,
    ) -> Changed {
        match given {
            Given::Shared(e) => r.messages_snapshot(&e.messages, &e.activity_authority),
            Given::Owned(e) => r.messages_snapshot_owned(&mut e.messages, &e.activity_authority),
        }
        Changed::MESSAGES
    }
    fn notify(_: &MessagesSnapshot, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &MessagesSnapshot, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &MessagesSnapshot) -> Effect<'_> {
        Effect::MessagesReplaced
    }
}

// ---------------------------------------------------------------------------
// Activity messages.

impl Rules for kind::ActivitySnapshot {
    type Payload = ActivitySnapshot;
    fn decode(f: Fields<'_>) -> Result<ActivitySnapshot, DecodeError> {
        Ok(ActivitySnapshot {
            message_id: f.string(F::MessageId.as_str())?,
            activity_type: f.string(F::ActivityType.as_str())?,
            content: f.object(F::Content.as_str())?.clone(),
            replace: f.opt_bool(F::Replace.as_str())?.unwrap_or(true),
            metadata: metadata(f)?,
            subagent_run_id: f.v1_opt_string(SUBAGENT_RUN_ID)?,
        })
    }
    fn growth(e: &ActivitySnapshot, r: &Reducer) -> (usize, usize) {
        let parts = [
            e.message_id.len(),
            e.activity_type.len(),
            object_size(&e.content).bytes,
            meta_bytes(&e.metadata),
            opt_len(&e.subagent_run_id),
        ];
        (r.absent(&e.message_id), sum(&parts))
    }
    fn check(e: &ActivitySnapshot, r: &mut Reducer, _: usize) -> Result<(), LimitError> {
        r.check_activity_snapshot(&e.content)
    }
    fn hook(
        e: &ActivitySnapshot,
        _: &Reducer,
        s: &mut dyn Subscriber,
        v: &mut HookView<'_>,
    ) -> Flow {
        s.on_activity_snapshot(e, v)
    }
    fn reduce(
        given: Given<'_, ActivitySnapshot>,
        r: &mut Reducer,
        s: &mut dyn Subscriber,
    ) -> Changed {
        let e = given.get();
        r.activity_snapshot(e, s)
    }
    fn notify(_: &ActivitySnapshot, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &ActivitySnapshot, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(e: &ActivitySnapshot) -> Effect<'_> {
        Effect::Activity(&e.message_id)
    }
}

impl Rules for kind::ActivityDelta {
    type Payload = ActivityDelta;
    fn decode(f: Fields<'_>) -> Result<ActivityDelta, DecodeError> {
        Ok(ActivityDelta {
            message_id: f.string(F::MessageId.as_str())?,
            activity_type: f.string(F::ActivityType.as_str())?,
            patch: patch(f, F::Patch.as_str())?,
            metadata: metadata(f)?,
        })
    }
    fn growth(e: &ActivityDelta, _: &Reducer) -> (usize, usize) {
        // What the patch adds to the content is checked exactly by `check`.
        (0, sum(&[e.activity_type.len(), meta_bytes(&e.metadata)]))
    }
    fn check(e: &ActivityDelta, r: &mut Reducer, text: usize) -> Result<(), LimitError> {
        r.check_activity_patch(e, text)
    }
    fn hook(e: &ActivityDelta, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_activity_delta(e, v)
    }
    fn reduce(given: Given<'_, ActivityDelta>, r: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        let e = given.get();
        r.activity_delta(e)
    }
    fn notify(_: &ActivityDelta, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &ActivityDelta, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(e: &ActivityDelta) -> Effect<'_> {
        Effect::Activity(&e.message_id)
    }
}

// ---------------------------------------------------------------------------
// Pass-through events: hooks only.

impl Rules for kind::Raw {
    type Payload = Raw;
    fn decode(f: Fields<'_>) -> Result<Raw, DecodeError> {
        check_metadata(f)?;
        Ok(Raw {
            event: f.opt_any(F::Event.as_str()),
            source: f.opt_string(F::Source.as_str())?,
        })
    }
    fn growth(_: &Raw, _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(_: &Raw, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &Raw, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_raw(e, v)
    }
    fn reduce(_: Given<'_, Raw>, _: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        Changed::NONE
    }
    fn notify(_: &Raw, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &Raw, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &Raw) -> Effect<'_> {
        Effect::Plain
    }
}

impl Rules for kind::Custom {
    type Payload = Custom;
    fn decode(f: Fields<'_>) -> Result<Custom, DecodeError> {
        check_metadata(f)?;
        Ok(Custom {
            name: f.string(F::Name.as_str())?,
            value: f.opt_any(F::Value.as_str()),
        })
    }
    fn growth(_: &Custom, _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(_: &Custom, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &Custom, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_custom(e, v)
    }
    fn reduce(_: Given<'_, Custom>, _: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        Changed::NONE
    }
    fn notify(_: &Custom, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &Custom, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &Custom) -> Effect<'_> {
        Effect::Plain
    }
}

impl Rules for kind::SubagentStarted {
    type Payload = SubagentStarted;
    fn decode(f: Fields<'_>) -> Result<SubagentStarted, DecodeError> {
        check_metadata(f)?;
        Ok(SubagentStarted {
            subagent_run_id: f.string(F::SubagentRunId.as_str())?,
            name: f.string(F::Name.as_str())?,
            description: f.opt_string(F::Description.as_str())?,
            parent_subagent_run_id: f.opt_string(F::ParentSubagentRunId.as_str())?,
            parent_tool_call_id: f.opt_string(F::ParentToolCallId.as_str())?,
            parent_message_id: f.opt_string(F::ParentMessageId.as_str())?,
        })
    }
    fn growth(_: &SubagentStarted, _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(_: &SubagentStarted, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(
        e: &SubagentStarted,
        _: &Reducer,
        s: &mut dyn Subscriber,
        v: &mut HookView<'_>,
    ) -> Flow {
        s.on_subagent_started(e, v)
    }
    fn reduce(_: Given<'_, SubagentStarted>, _: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        Changed::NONE
    }
    fn notify(_: &SubagentStarted, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &SubagentStarted, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &SubagentStarted) -> Effect<'_> {
        Effect::Plain
    }
}

impl Rules for kind::SubagentFinished {
    type Payload = SubagentFinished;
    fn decode(f: Fields<'_>) -> Result<SubagentFinished, DecodeError> {
        check_metadata(f)?;
        Ok(SubagentFinished {
            subagent_run_id: f.string(F::SubagentRunId.as_str())?,
            result: f.opt_any(F::Result.as_str()),
            outcome: match f.get(F::Outcome.as_str()) {
                None | Some(Value::Null) => None,
                Some(v) => Some(subagent_outcome(v).map_err(|e| e.within(F::Outcome.as_str()))?),
            },
        })
    }
    fn growth(_: &SubagentFinished, _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(_: &SubagentFinished, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(
        e: &SubagentFinished,
        _: &Reducer,
        s: &mut dyn Subscriber,
        v: &mut HookView<'_>,
    ) -> Flow {
        s.on_subagent_finished(e, v)
    }
    fn reduce(_: Given<'_, SubagentFinished>, _: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        Changed::NONE
    }
    fn notify(_: &SubagentFinished, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &SubagentFinished, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &SubagentFinished) -> Effect<'_> {
        Effect::Plain
    }
}

impl Rules for kind::SubagentError {
    type Payload = SubagentError;
    fn decode(f: Fields<'_>) -> Result<SubagentError, DecodeError> {
        check_metadata(f)?;
        Ok(SubagentError {
            subagent_run_id: f.string(F::SubagentRunId.as_str())?,
            message: f.string(F::Message.as_str())?,
            code: f.opt_string(F::Code.as_str())?,
        })
    }
    fn growth(_: &SubagentError, _: &Reducer) -> (usize, usize) {
        NO_GROWTH
    }
    fn check(_: &SubagentError, _: &mut Reducer, _: usize) -> Result<(), LimitError> {
        Ok(())
    }
    fn hook(e: &SubagentError, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_subagent_error(e, v)
    }
    fn reduce(_: Given<'_, SubagentError>, _: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        Changed::NONE
    }
    fn notify(_: &SubagentError, _: &Reducer, _: &mut dyn Subscriber) {}
    fn trace_args<'r>(_: &SubagentError, _: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        None
    }
    fn effect(_: &SubagentError) -> Effect<'_> {
        Effect::Plain
    }
}

/// `SUBAGENT_FINISHED.outcome` (1.0; unknown keys were stripped before).
fn subagent_outcome(v: &Value) -> Result<SubagentOutcome, DecodeError> {
    let f = Fields::of_in(v, Dialect::V1)?;
    match f.get("type") {
        Some(Value::String(t)) if t == "success" => Ok(SubagentOutcome::Success),
        Some(Value::String(t)) if t == "suspended" => Ok(SubagentOutcome::Suspended(
            f.opt_list("interruptIds", string_item)?.unwrap_or_default(),
        )),
        _ => Err(
            DecodeError::new("Invalid discriminator value. Expected 'success' | 'suspended'")
                .within("type"),
        ),
    }
}
