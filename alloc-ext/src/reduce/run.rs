//! Runs: `RUN_STARTED`, `RUN_FINISHED` and what AG-UI 1.0 says a run ended
//! with (SPEC 9.9), and the events that only reach hooks: `RUN_ERROR`,
//! steps, sub-agent runs, `RAW` and `CUSTOM`. Their [`Rules`] blocks come
//! last.

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

use agui_core::decode::Field as F;
use serde_json::Value;

use super::rules::{no_op, Given, Rules};
use super::{Changed, Reducer};
use crate::event::{
    check_metadata, kind, outcome, string_item, Custom, DecodeError, Effect, Outcome, Raw,
    RunError, RunFinished, RunStarted, Step, SubagentError, SubagentFinished, SubagentOutcome,
    SubagentStarted,
};
use crate::hooks::{Flow, HookView, Subscriber};
use crate::model::{Dialect, Fields, Interrupt, RunAgentInput};
use crate::size::message_bytes;

/// AG-UI 1.0 (SPEC 9.9): the tool calls started in the current run, in
/// first-start order, and those a `TOOL_CALL_RESULT` answered; emptied by
/// every `RUN_STARTED`. Their ids count against
/// [`max_message_bytes`](super::ReducerLimits::max_message_bytes) (a run
/// may start any number of calls, and a snapshot may take them out of the
/// messages).
#[derive(Debug, Default)]
pub(super) struct RunCalls {
    started: Vec<String>,
    seen: BTreeSet<String>,
    answered: BTreeSet<String>,
    pub(super) bytes: usize,
}

impl RunCalls {
    pub(super) fn start(&mut self, id: &str) {
        if self.seen.insert(id.to_owned()) {
            self.started.push(id.to_owned());
            self.bytes = self.bytes.saturating_add(id.len().saturating_mul(2));
        }
    }

    pub(super) fn answer(&mut self, id: &str) {
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

impl Reducer {
    /// [`run_outcome`](Self::run_outcome) as JSON ([`RunOutcome::to_json`]).
    fn outcome_value(&self) -> Option<&Value> {
        self.outcome.as_ref().map(|(_, v)| v)
    }

    /// Bytes a `TOOL_CALL_START` of `id` adds to the run's list (1.0).
    pub(super) fn run_calls_growth_start(&self, id: &str) -> usize {
        match self.dialect {
            Dialect::V1 if !self.run_calls.seen.contains(id) => id.len().saturating_mul(2),
            Dialect::V1 | Dialect::Current => 0,
        }
    }

    /// Bytes a `TOOL_CALL_RESULT` for `id` adds to the run's list (1.0).
    pub(super) fn run_calls_growth_answer(&self, id: &str) -> usize {
        match self.dialect {
            Dialect::V1 if !self.run_calls.answered.contains(id) => id.len(),
            Dialect::V1 | Dialect::Current => 0,
        }
    }

    /// The growth of a RUN_STARTED: the input messages not present yet.
    fn input_growth(&self, e: &RunStarted) -> (usize, usize) {
        e.input.as_ref().map_or((0, 0), |input| {
            let new = input.messages.iter().filter(|m| self.absent(m.id()) == 1);
            new.fold((0, 0), |(n, t), m| {
                (n + 1, t.saturating_add(message_bytes(m)))
            })
        })
    }

    /// RUN_STARTED: append each input message whose id is not present yet;
    /// a change whenever the input is there.
    fn run_started(&mut self, e: &RunStarted) -> Changed {
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

    /// RUN_FINISHED: the run's interrupts are its outcome's, or none.
    fn run_finished(&mut self, e: &RunFinished) -> Changed {
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
}

// ---------------------------------------------------------------------------
// Runs.

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
    fn hook(e: &RunStarted, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_run_started(e, v)
    }
    fn reduce(given: Given<'_, RunStarted>, r: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        let e = given.get();
        r.run_started(e)
    }
    fn effect(_: &RunStarted) -> Effect<'_> {
        Effect::RunStarted
    }
    no_op!(check, notify, trace_args);
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
    fn hook(e: &RunFinished, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_run_finished(e, v)
    }
    fn reduce(given: Given<'_, RunFinished>, r: &mut Reducer, _: &mut dyn Subscriber) -> Changed {
        let e = given.get();
        r.run_finished(e)
    }
    fn trace_args<'r>(_: &RunFinished, r: &'r Reducer) -> Option<(&'static str, &'r Value)> {
        // AG-UI 1.0: what the run ended with (SPEC 9.9).
        r.outcome_value().map(|v| ("outcome", v))
    }
    fn effect(e: &RunFinished) -> Effect<'_> {
        Effect::RunFinished(e)
    }
    no_op!(growth, check, notify);
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
    fn hook(e: &RunError, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_run_error(e, v)
    }
    fn effect(e: &RunError) -> Effect<'_> {
        Effect::RunError(e)
    }
    no_op!(growth, check, reduce, notify, trace_args);
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
    fn hook(e: &Step, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_step_started(e, v)
    }
    fn effect(e: &Step) -> Effect<'_> {
        Effect::StepStarted(&e.step_name)
    }
    no_op!(growth, check, reduce, notify, trace_args);
}

impl Rules for kind::StepFinished {
    type Payload = Step;
    fn decode(f: Fields<'_>) -> Result<Step, DecodeError> {
        step(f)
    }
    fn hook(e: &Step, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_step_finished(e, v)
    }
    fn effect(e: &Step) -> Effect<'_> {
        Effect::StepFinished(&e.step_name)
    }
    no_op!(growth, check, reduce, notify, trace_args);
}

// ---------------------------------------------------------------------------
// Sub-agent runs (AG-UI 1.0): hooks only.

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
    fn hook(
        e: &SubagentStarted,
        _: &Reducer,
        s: &mut dyn Subscriber,
        v: &mut HookView<'_>,
    ) -> Flow {
        s.on_subagent_started(e, v)
    }
    fn effect(_: &SubagentStarted) -> Effect<'_> {
        Effect::Plain
    }
    no_op!(growth, check, reduce, notify, trace_args);
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
    fn hook(
        e: &SubagentFinished,
        _: &Reducer,
        s: &mut dyn Subscriber,
        v: &mut HookView<'_>,
    ) -> Flow {
        s.on_subagent_finished(e, v)
    }
    fn effect(_: &SubagentFinished) -> Effect<'_> {
        Effect::Plain
    }
    no_op!(growth, check, reduce, notify, trace_args);
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
    fn hook(e: &SubagentError, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_subagent_error(e, v)
    }
    fn effect(_: &SubagentError) -> Effect<'_> {
        Effect::Plain
    }
    no_op!(growth, check, reduce, notify, trace_args);
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
    fn hook(e: &Raw, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_raw(e, v)
    }
    fn effect(_: &Raw) -> Effect<'_> {
        Effect::Plain
    }
    no_op!(growth, check, reduce, notify, trace_args);
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
    fn hook(e: &Custom, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_custom(e, v)
    }
    fn effect(_: &Custom) -> Effect<'_> {
        Effect::Plain
    }
    no_op!(growth, check, reduce, notify, trace_args);
}
