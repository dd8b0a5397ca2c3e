//! The run status shown on the status line, kept from the events.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use agui_alloc::event::{Effect, Event, Outcome};

/// Where the run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunState {
    /// No `RUN_STARTED` yet.
    #[default]
    Idle,
    /// Between `RUN_STARTED` and its end.
    Running,
    /// `RUN_FINISHED` (success, or no outcome).
    Finished,
    /// `RUN_FINISHED` with an interrupt outcome.
    Interrupted,
    /// `RUN_FINISHED` with AG-UI 1.0's cancelled outcome.
    Cancelled,
    /// `RUN_ERROR`, or the stream was rejected.
    Errored,
}

impl RunState {
    /// The word on the status line.
    pub const fn as_str(self) -> &'static str {
        match self {
            RunState::Idle => "idle",
            RunState::Running => "running",
            RunState::Finished => "finished",
            RunState::Interrupted => "interrupted",
            RunState::Cancelled => "cancelled",
            RunState::Errored => "error",
        }
    }
}

/// What the status line shows.
///
/// ```
/// use agui_kiosk::status::{RunState, Status};
/// let mut s = Status::default();
/// s.run = RunState::Running;
/// s.steps.push("plan".into());
/// assert_eq!(s.to_string(), "running | step: plan");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Status {
    /// The run's state.
    pub run: RunState,
    /// The open steps, oldest first; the last one is the current step.
    pub steps: Vec<String>,
    /// Between `REASONING_START` / `THINKING_START` and their end.
    pub reasoning: bool,
    /// The error text (`RUN_ERROR`'s message, or the stream's error).
    pub error: Option<String>,
}

impl Status {
    /// Follows one event; `true` if the status changed.
    pub fn observe(&mut self, event: &Event) -> bool {
        let before = (self.run, self.steps.len(), self.reasoning);
        match event.effect() {
            Effect::RunStarted => {
                self.run = RunState::Running;
                self.steps.clear();
                self.reasoning = false;
                self.error = None;
                return true;
            }
            Effect::RunFinished(f) => {
                self.run = match f.outcome {
                    Some(Outcome::Interrupt(_)) => RunState::Interrupted,
                    Some(Outcome::Cancelled) => RunState::Cancelled,
                    Some(Outcome::Success { .. }) | None => RunState::Finished,
                };
                self.steps.clear();
                self.reasoning = false;
            }
            Effect::RunError(e) => {
                // The run is over: no step or reasoning is open any more.
                self.run = RunState::Errored;
                self.error = Some(e.message.clone());
                self.steps.clear();
                self.reasoning = false;
                return true;
            }
            Effect::StepStarted(name) => {
                self.steps.push(name.into());
                return true;
            }
            Effect::StepFinished(name) => {
                if let Some(at) = self.steps.iter().rposition(|n| n == name) {
                    self.steps.remove(at);
                }
            }
            Effect::ReasoningStarted => self.reasoning = true,
            Effect::ReasoningEnded => self.reasoning = false,
            // Nothing the status line shows.
            Effect::State
            | Effect::MessagesReplaced
            | Effect::ToolCallStarted(_)
            | Effect::ToolResult
            | Effect::Activity(_)
            | Effect::Plain => {}
        }
        before != (self.run, self.steps.len(), self.reasoning)
    }

    /// The current step.
    pub fn step(&self) -> Option<&str> {
        self.steps.last().map(String::as_str)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.run.as_str())?;
        if let Some(step) = self.step() {
            write!(f, " | step: {step}")?;
        }
        if self.reasoning {
            f.write_str(" | reasoning")?;
        }
        if let Some(error) = &self.error {
            write!(f, ": {error}")?;
        }
        Ok(())
    }
}
