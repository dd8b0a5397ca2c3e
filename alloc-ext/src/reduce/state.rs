//! The state: `STATE_SNAPSHOT` and `STATE_DELTA`, and its size kept for
//! the limits. Their [`Rules`] blocks come last.

use agui_core::decode::Field as F;
use agui_core::event::EventType;
use serde_json::Value;

use super::limits::{fits, LimitError, NULL_SIZE, UNBOUNDED};
use super::rules::{no_op, Given, Rules};
use super::{Changed, Reducer};
use crate::event::{check_metadata, kind, patch, DecodeError, Effect, StateDelta, StateSnapshot};
use crate::hooks::{Flow, HookView, Subscriber};
use crate::model::Fields;
use crate::patch::apply_patch_sized;
use crate::size::{json_size, Size};

impl Reducer {
    /// The size of the snapshot of the `STATE_SNAPSHOT` about to be
    /// applied, measured as it was read (so that its check does not walk
    /// it again); `None` to forget it. The caller sets it just before the
    /// event and clears it after, whatever happened.
    pub(crate) fn expect_state_size(&mut self, size: Option<Size>) {
        self.known_state = size;
    }

    /// STATE_SNAPSHOT: the new state's size.
    fn check_state_snapshot(&mut self, snapshot: Option<&Value>) -> Result<(), LimitError> {
        let size = match (self.known_state.take(), snapshot) {
            (Some(size), Some(_)) => size,
            (_, snapshot) => snapshot.map_or(NULL_SIZE, json_size),
        };
        self.checked_state = Some(size);
        self.limits.within_state(size)
    }

    /// STATE_DELTA: the state's size after the patch.
    fn check_state_patch(&mut self, patch: &Value) -> Result<(), LimitError> {
        let limits = self.limits;
        fits(&mut self.state, self.state_size, patch, &limits).map(drop)
    }

    /// STATE_SNAPSHOT: the state is replaced (`null` when absent).
    fn state_snapshot(&mut self, snapshot: Option<Value>) -> Changed {
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
    fn state_delta(&mut self, e: &StateDelta) -> Changed {
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
}

// ---------------------------------------------------------------------------
// The decisions about the state (see `rules.rs`).

impl Rules for kind::StateSnapshot {
    type Payload = StateSnapshot;
    fn decode(f: Fields<'_>) -> Result<StateSnapshot, DecodeError> {
        check_metadata(f)?;
        Ok(StateSnapshot {
            snapshot: f.opt_any(F::Snapshot.as_str()),
        })
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
    fn effect(_: &StateSnapshot) -> Effect<'_> {
        Effect::State
    }
    no_op!(growth, notify, trace_args);
}

impl Rules for kind::StateDelta {
    type Payload = StateDelta;
    fn decode(f: Fields<'_>) -> Result<StateDelta, DecodeError> {
        check_metadata(f)?;
        Ok(StateDelta {
            delta: patch(f, F::Delta.as_str())?,
        })
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
    fn effect(_: &StateDelta) -> Effect<'_> {
        Effect::State
    }
    no_op!(growth, notify, trace_args);
}
