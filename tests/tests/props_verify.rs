//! Property: the verifier agrees with an independent, simple model of SPEC
//! section 4 on every event of generated sequences, and `check_undoable` +
//! `undo` take an accepted event back exactly.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use agui_core::event::{Event, EventType as T, Origin, Role};
use agui_core::verify::Verifier;
use proptest::prelude::*;

/// Two open items per table and 8-byte ids, so that capacity is reached.
type Small = Verifier<8, 2, 2, 2>;

/// SPEC section 4, written as plainly as possible.
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

impl Model {
    fn check(&mut self, kind: T, id: &str) -> Result<(), &'static str> {
        let mut next = self.clone();
        next.apply(kind, id)?;
        next.first = true;
        *self = next;
        Ok(())
    }

    fn apply(&mut self, kind: T, id: &str) -> Result<(), &'static str> {
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
            if self.finished || self.errored {
                let first = self.first;
                *self = Model {
                    first,
                    ..Model::default()
                };
            }
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
        fn close(
            set: &mut Vec<String>,
            id: &str,
            end: bool,
            missing: &'static str,
        ) -> Result<(), &'static str> {
            let at = set.iter().position(|x| x == id).ok_or(missing)?;
            if end {
                set.remove(at);
            }
            Ok(())
        }
        match kind {
            T::TextMessageStart => open(&mut self.msgs, id, "message_active")?,
            T::TextMessageContent => close(&mut self.msgs, id, false, "message_not_active")?,
            T::TextMessageEnd => close(&mut self.msgs, id, true, "message_not_active")?,
            T::ToolCallStart => open(&mut self.tools, id, "tool_call_active")?,
            T::ToolCallArgs => close(&mut self.tools, id, false, "tool_call_not_active")?,
            T::ToolCallEnd => close(&mut self.tools, id, true, "tool_call_not_active")?,
            T::StepStarted => open(&mut self.steps, id, "step_active")?,
            T::StepFinished => close(&mut self.steps, id, true, "step_not_active")?,
            T::RunStarted => self.started = true,
            T::RunFinished => {
                if !self.steps.is_empty() {
                    return Err("unclosed_steps");
                }
                if !self.msgs.is_empty() {
                    return Err("unclosed_messages");
                }
                if !self.tools.is_empty() {
                    return Err("unclosed_tool_calls");
                }
                self.finished = true;
            }
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
            T::ThinkingTextMessageEnd if !self.tmsg => return Err("thinking_message_not_active"),
            T::ThinkingTextMessageEnd => self.tmsg = false,
            _ => {}
        }
        Ok(())
    }
}

const KINDS: &[T] = &[
    T::RunStarted,
    T::RunFinished,
    T::RunError,
    T::TextMessageStart,
    T::TextMessageContent,
    T::TextMessageEnd,
    T::ToolCallStart,
    T::ToolCallArgs,
    T::ToolCallEnd,
    T::StepStarted,
    T::StepFinished,
    T::ThinkingStart,
    T::ThinkingEnd,
    T::ThinkingTextMessageStart,
    T::ThinkingTextMessageContent,
    T::ThinkingTextMessageEnd,
    T::Custom,
    T::StateDelta,
];

const IDS: &[&str] = &["a", "b", "c", "", "a-very-long-id"];

fn step() -> impl Strategy<Value = (T, &'static str, bool)> {
    // Starts and ends more often than the rest, so that runs get deep.
    let kind = prop_oneof![
        3 => prop::sample::select(&KINDS[..3]),
        6 => prop::sample::select(&KINDS[3..11]),
        2 => prop::sample::select(KINDS),
    ];
    (kind, prop::sample::select(IDS), any::<bool>())
}

fn open(v: &Small) -> (Vec<String>, Vec<String>, Vec<String>) {
    let list = |it: &mut dyn Iterator<Item = &str>| it.map(str::to_owned).collect::<Vec<_>>();
    (
        list(&mut v.open_messages().iter()),
        list(&mut v.open_tool_calls().iter()),
        list(&mut v.open_steps().iter()),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn verifier_matches_the_model(steps in prop::collection::vec(step(), 1..60)) {
        let mut model = Model::default();
        let mut v = Small::new();
        for (i, (kind, id, undo)) in steps.into_iter().enumerate() {
            let ev = Event { kind, origin: Origin::Frame, frame: i as u32, id, name: "", role: Role::Assistant };
            let before = (open(&v), v.run_active());
            let want = model.clone().check(kind, id);
            let got = v.check_undoable(&ev);
            match (&got, want) {
                (Ok(_), Ok(())) => {}
                (Err(e), Err(code)) => prop_assert_eq!(e.code.as_str(), code, "event {} {:?} {:?}", i, kind, id),
                _ => prop_assert!(false, "event {} {:?} {:?}: verifier {:?}, model {:?}", i, kind, id, got, want),
            }
            // A rejected event changes nothing; an undone one neither.
            match got {
                Ok(record) if undo => {
                    v.undo(record);
                    if kind == T::RunStarted {
                        // Documented: undoing a RUN_STARTED that began a new
                        // run restores the flags only; the old run's ids are
                        // unobservable (after RUN_ERROR every event but
                        // RUN_STARTED is refused), which the model checks on.
                        prop_assert_eq!(v.run_active(), before.1);
                    } else {
                        prop_assert_eq!((open(&v), v.run_active()), before);
                    }
                }
                Ok(_) => {
                    model.check(kind, id).unwrap();
                    prop_assert_eq!(open(&v), (model.msgs.clone(), model.tools.clone(), model.steps.clone()));
                }
                Err(_) => prop_assert_eq!((open(&v), v.run_active()), before),
            }
        }
    }
}
