//! Runs: `RUN_STARTED`, `RUN_FINISHED` and what AG-UI 1.0 says a run ended
//! with (SPEC 9.9).

use alloc::borrow::ToOwned;
use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

use serde_json::Value;

use super::{Changed, Reducer};
use crate::event::{Outcome, RunFinished, RunStarted};
use crate::model::{Dialect, Interrupt};
use crate::size::message_bytes;

/// AG-UI 1.0 (SPEC 9.9): the tool calls started in the current run, in
/// first-start order, and those a `TOOL_CALL_RESULT` answered; emptied by
/// every `RUN_STARTED`. Their ids count against
/// [`ReducerLimits::max_message_bytes`] (a run may start any number of
/// calls, and a snapshot may take them out of the messages).
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

    /// The growth of a RUN_STARTED: the input messages not present yet.
    pub(crate) fn input_growth(&self, e: &RunStarted) -> (usize, usize) {
        e.input.as_ref().map_or((0, 0), |input| {
            let new = input.messages.iter().filter(|m| self.absent(m.id()) == 1);
            new.fold((0, 0), |(n, t), m| {
                (n + 1, t.saturating_add(message_bytes(m)))
            })
        })
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
}
