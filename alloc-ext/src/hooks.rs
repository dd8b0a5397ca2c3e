//! Hooks: observe the fold, replace messages or state, stop default handling.
//!
//! [`Reducer::apply_with`](crate::reduce::Reducer::apply_with) runs, for each
//! event:
//! 1. [`Subscriber::on_event`], for every event;
//! 2. unless that returned [`Flow::Stop`], the event type's own hook
//!    (`on_text_message_content`, `on_tool_call_args`, ...);
//! 3. unless a hook returned [`Flow::Stop`], the default handling (SPEC
//!    section 5);
//! 4. the notifications [`Subscriber::on_new_message`] /
//!    [`Subscriber::on_new_tool_call`].
//!
//! A hook sees the current messages and state through a [`HookView`] and may
//! replace either; the replacement takes effect before the next step (so the
//! default handling works on it) and counts as a change.
//!
//! Notifications fire at `TEXT_MESSAGE_END` / `REASONING_MESSAGE_END` (the
//! message) and `TOOL_CALL_END` (the tool call) even when a hook stopped the
//! default handling, and from the default handling when a `TOOL_CALL_RESULT`
//! adds its tool message or an `ACTIVITY_SNAPSHOT` creates or overwrites a
//! message.
//!
//! ```
//! use agui_alloc::event::{Event, MessageContent};
//! use agui_alloc::hooks::{Flow, HookView, Subscriber};
//! use agui_alloc::reduce::Reducer;
//!
//! /// Drops every text delta that contains a banned word.
//! struct Censor;
//! impl Subscriber for Censor {
//!     fn on_text_message_content(&mut self, ev: &MessageContent, _buffer: &str,
//!                                _view: &mut HookView<'_>) -> Flow {
//!         if ev.delta.contains("darn") { Flow::Stop } else { Flow::Continue }
//!     }
//! }
//!
//! let mut r = Reducer::new();
//! let start = serde_json::json!({"type": "TEXT_MESSAGE_START", "messageId": "m"});
//! let ev = Event::from_core(agui_core::event::EventType::TextMessageStart,
//!                           agui_core::event::Origin::Frame, "m", &start).unwrap();
//! r.apply_with(&ev, &mut Censor);
//! for delta in ["hello ", "darn ", "world"] {
//!     let ev = Event::TextMessageContent(MessageContent {
//!         message_id: "m".into(), delta: delta.into(), metadata: None });
//!     r.apply_with(&ev, &mut Censor);
//! }
//! assert_eq!(r.messages()[0].text(), Some("hello world"));
//! ```

use alloc::vec::Vec;

use serde_json::Value;

use crate::event::{
    ActivityDelta, ActivitySnapshot, Custom, Event, MessageContent, MessageEnd, MessagesSnapshot,
    Raw, ReasoningEncryptedValue, ReasoningMessageStart, ReasoningPhase, RunError, RunFinished,
    RunStarted, StateDelta, StateSnapshot, Step, SubagentError, SubagentFinished, SubagentStarted,
    TextMessageStart, ThinkingContent, ThinkingStart, ToolCallArgs, ToolCallEnd, ToolCallResult,
    ToolCallStart,
};
use crate::model::{Message, ToolCall};

/// What a hook wants done with the rest of the event's handling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Flow {
    /// Go on: the next hook, then the default handling.
    #[default]
    Continue,
    /// Skip the remaining hook and the default handling of this event.
    Stop,
}

/// A hook's window on the reducer: read the messages and state, replace them.
///
/// A replacement is applied after the hook returns (the reducer then rebuilds
/// its id index, which costs time proportional to the message count).
pub struct HookView<'a> {
    messages: &'a [Message],
    state: &'a Value,
    new_messages: Option<Vec<Message>>,
    new_state: Option<Value>,
}

impl<'a> HookView<'a> {
    pub(crate) fn new(messages: &'a [Message], state: &'a Value) -> Self {
        HookView {
            messages,
            state,
            new_messages: None,
            new_state: None,
        }
    }

    /// The messages: the replacement if this hook set one, else the current list.
    pub fn messages(&self) -> &[Message] {
        self.new_messages.as_deref().unwrap_or(self.messages)
    }

    /// The state: the replacement if this hook set one, else the current state.
    pub fn state(&self) -> &Value {
        self.new_state.as_ref().unwrap_or(self.state)
    }

    /// Replaces the whole message list.
    pub fn set_messages(&mut self, messages: Vec<Message>) {
        self.new_messages = Some(messages);
    }

    /// Replaces the state.
    pub fn set_state(&mut self, state: Value) {
        self.new_state = Some(state);
    }

    /// The replacements the hook asked for.
    pub(crate) fn into_replacements(self) -> (Option<Vec<Message>>, Option<Value>) {
        (self.new_messages, self.new_state)
    }
}

/// What the tool-call hooks get besides the event.
#[derive(Debug, Clone, Copy)]
pub struct ToolCallProgress<'a> {
    /// The tool's name (`""` if the tool call is not in the messages).
    pub name: &'a str,
    /// The arguments text before this event's delta (at `TOOL_CALL_END`:
    /// the whole text).
    pub buffer: &'a str,
    /// The arguments as a value: the partial value including this event's
    /// delta for `TOOL_CALL_ARGS`, the parsed text (or `{}`) for
    /// `TOOL_CALL_END`; `{}` if the tool call is not in the messages.
    pub args: &'a Value,
}

/// The typed hooks, one row per hook: from this table come the
/// [`Subscriber`] methods (each with a default that continues) and
/// [`Tap`]'s forwarding of every one of them, so that a hook added here
/// cannot be forgotten by a subscriber that passes hooks on.
macro_rules! typed_hooks {
    ( $( $(#[$doc:meta])* fn $name:ident( $( $arg:ident : $ty:ty ),* ); )* ) => {
        /// Observes and steers a [`Reducer`](crate::reduce::Reducer). Every method
        /// has a default that does nothing and continues; implement the ones you need.
        #[allow(unused_variables)] // the defaults ignore their arguments
        pub trait Subscriber {
            /// Called first, for every event.
            fn on_event(&mut self, event: &Event, view: &mut HookView<'_>) -> Flow {
                Flow::Continue
            }
            $(
                $(#[$doc])*
                fn $name(&mut self, $( $arg: $ty, )* view: &mut HookView<'_>) -> Flow {
                    Flow::Continue
                }
            )*
            /// A message is complete or new (see the module docs for when).
            fn on_new_message(&mut self, message: &Message) {}
            /// A tool call is complete (at `TOOL_CALL_END`).
            fn on_new_tool_call(&mut self, tool_call: &ToolCall) {}
        }

        impl<F: FnMut(&Event)> Subscriber for Tap<'_, F> {
            fn on_event(&mut self, event: &Event, view: &mut HookView<'_>) -> Flow {
                (self.tap)(event);
                self.inner.on_event(event, view)
            }
            $(
                fn $name(&mut self, $( $arg: $ty, )* view: &mut HookView<'_>) -> Flow {
                    self.inner.$name($( $arg, )* view)
                }
            )*
            fn on_new_message(&mut self, message: &Message) {
                self.inner.on_new_message(message);
            }
            fn on_new_tool_call(&mut self, tool_call: &ToolCall) {
                self.inner.on_new_tool_call(tool_call);
            }
        }
    };
}

typed_hooks! {
    /// `RUN_STARTED`
    fn on_run_started(event: &RunStarted);
    /// `RUN_FINISHED`
    fn on_run_finished(event: &RunFinished);
    /// `RUN_ERROR`
    fn on_run_error(event: &RunError);
    /// `STEP_STARTED`
    fn on_step_started(event: &Step);
    /// `STEP_FINISHED`
    fn on_step_finished(event: &Step);
    /// `TEXT_MESSAGE_START`
    fn on_text_message_start(event: &TextMessageStart);
    /// `TEXT_MESSAGE_CONTENT`; `buffer` is the message's text before the delta.
    fn on_text_message_content(event: &MessageContent, buffer: &str);
    /// `TEXT_MESSAGE_END`; `buffer` is the message's text.
    fn on_text_message_end(event: &MessageEnd, buffer: &str);
    /// `TOOL_CALL_START`
    fn on_tool_call_start(event: &ToolCallStart);
    /// `TOOL_CALL_ARGS`, with the name and the partial arguments.
    fn on_tool_call_args(event: &ToolCallArgs, call: &ToolCallProgress<'_>);
    /// `TOOL_CALL_END`, with the name and the final arguments.
    fn on_tool_call_end(event: &ToolCallEnd, call: &ToolCallProgress<'_>);
    /// `TOOL_CALL_RESULT`
    fn on_tool_call_result(event: &ToolCallResult);
    /// `THINKING_START`
    fn on_thinking_start(event: &ThinkingStart);
    /// `THINKING_END`
    fn on_thinking_end();
    /// `THINKING_TEXT_MESSAGE_START`
    fn on_thinking_text_message_start();
    /// `THINKING_TEXT_MESSAGE_CONTENT`
    fn on_thinking_text_message_content(event: &ThinkingContent);
    /// `THINKING_TEXT_MESSAGE_END`
    fn on_thinking_text_message_end();
    /// `REASONING_START`
    fn on_reasoning_start(event: &ReasoningPhase);
    /// `REASONING_END`
    fn on_reasoning_end(event: &ReasoningPhase);
    /// `REASONING_MESSAGE_START`
    fn on_reasoning_message_start(event: &ReasoningMessageStart);
    /// `REASONING_MESSAGE_CONTENT`; `buffer` is the message's text before the delta.
    fn on_reasoning_message_content(event: &MessageContent, buffer: &str);
    /// `REASONING_MESSAGE_END`; `buffer` is the message's text.
    fn on_reasoning_message_end(event: &MessageEnd, buffer: &str);
    /// `REASONING_ENCRYPTED_VALUE`
    fn on_reasoning_encrypted_value(event: &ReasoningEncryptedValue);
    /// `STATE_SNAPSHOT`
    fn on_state_snapshot(event: &StateSnapshot);
    /// `STATE_DELTA`
    fn on_state_delta(event: &StateDelta);
    /// `MESSAGES_SNAPSHOT`
    fn on_messages_snapshot(event: &MessagesSnapshot);
    /// `ACTIVITY_SNAPSHOT`
    fn on_activity_snapshot(event: &ActivitySnapshot);
    /// `ACTIVITY_DELTA`
    fn on_activity_delta(event: &ActivityDelta);
    /// `RAW`
    fn on_raw(event: &Raw);
    /// `CUSTOM`
    fn on_custom(event: &Custom);
    /// `SUBAGENT_STARTED` (AG-UI 1.0)
    fn on_subagent_started(event: &SubagentStarted);
    /// `SUBAGENT_FINISHED` (AG-UI 1.0): its result and outcome reach the
    /// hooks only; they change no message (SPEC 9.9)
    fn on_subagent_finished(event: &SubagentFinished);
    /// `SUBAGENT_ERROR` (AG-UI 1.0)
    fn on_subagent_error(event: &SubagentError);
}

/// Passes every hook on to `inner`, and shows each event to `tap` first.
pub(crate) struct Tap<'a, F: FnMut(&Event)> {
    /// Gets every hook.
    pub(crate) inner: &'a mut dyn Subscriber,
    /// Sees every event before `inner` does.
    pub(crate) tap: F,
}

/// The subscriber that does nothing: [`Reducer::apply`](crate::reduce::Reducer::apply) uses it.
impl Subscriber for () {}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::event::{TextMessageStart, ToolCallResult};
    use crate::reduce::{Changed, Reducer};
    use agui_core::event::{EventType, Origin};
    use alloc::string::{String, ToString};
    use alloc::vec;
    use serde_json::json;

    fn ev(frame: Value) -> Event {
        let kind = EventType::from_wire(frame["type"].as_str().unwrap()).unwrap();
        Event::from_core(kind, Origin::Frame, "", &frame).unwrap()
    }

    /// Records what it saw, and stops or replaces on request.
    #[derive(Default)]
    struct Recorder {
        log: Vec<String>,
        stop_args: bool,
        stop_everything: bool,
        replace_on_custom: Option<(Vec<Message>, Value)>,
    }

    impl Subscriber for Recorder {
        fn on_event(&mut self, event: &Event, view: &mut HookView<'_>) -> Flow {
            self.log.push(alloc::format!("event {}", event.kind()));
            if let (Event::Custom(_), Some((messages, state))) =
                (event, self.replace_on_custom.take())
            {
                view.set_messages(messages);
                view.set_state(state);
                assert_eq!(view.messages().len(), 1); // the view shows the replacement
            }
            if self.stop_everything {
                Flow::Stop
            } else {
                Flow::Continue
            }
        }
        fn on_text_message_content(
            &mut self,
            e: &MessageContent,
            buffer: &str,
            _: &mut HookView<'_>,
        ) -> Flow {
            self.log
                .push(alloc::format!("content {buffer:?}+{:?}", e.delta));
            Flow::Continue
        }
        fn on_tool_call_args(
            &mut self,
            _: &ToolCallArgs,
            call: &ToolCallProgress<'_>,
            _: &mut HookView<'_>,
        ) -> Flow {
            self.log.push(alloc::format!(
                "args {} {:?} {}",
                call.name,
                call.buffer,
                call.args
            ));
            if self.stop_args {
                Flow::Stop
            } else {
                Flow::Continue
            }
        }
        fn on_tool_call_end(
            &mut self,
            _: &ToolCallEnd,
            call: &ToolCallProgress<'_>,
            _: &mut HookView<'_>,
        ) -> Flow {
            self.log
                .push(alloc::format!("end {} {}", call.name, call.args));
            Flow::Continue
        }
        fn on_new_message(&mut self, message: &Message) {
            self.log
                .push(alloc::format!("new message {}", message.id()));
        }
        fn on_new_tool_call(&mut self, call: &ToolCall) {
            self.log.push(alloc::format!(
                "new tool call {} {}",
                call.id,
                call.function.arguments
            ));
        }
    }

    #[test]
    fn content_hook_gets_the_buffer_before_the_delta() {
        let mut r = Reducer::new();
        let mut rec = Recorder::default();
        r.apply_with(
            &ev(json!({"type": "TEXT_MESSAGE_START", "messageId": "m"})),
            &mut rec,
        );
        r.apply_with(
            &ev(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a"})),
            &mut rec,
        );
        r.apply_with(
            &ev(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "b"})),
            &mut rec,
        );
        r.apply_with(
            &ev(json!({"type": "TEXT_MESSAGE_END", "messageId": "m"})),
            &mut rec,
        );
        assert_eq!(
            rec.log,
            [
                "event TEXT_MESSAGE_START",
                "event TEXT_MESSAGE_CONTENT",
                "content \"\"+\"a\"",
                "event TEXT_MESSAGE_CONTENT",
                "content \"a\"+\"b\"",
                "event TEXT_MESSAGE_END",
                "new message m",
            ]
        );
    }

    #[test]
    fn stopping_skips_the_default_handling_but_not_end_notifications() {
        let mut r = Reducer::new();
        let mut rec = Recorder::default();
        r.apply_with(
            &ev(json!({"type": "TOOL_CALL_START", "toolCallId": "t", "toolCallName": "f"})),
            &mut rec,
        );
        let changed = r.apply_with(
            &ev(json!({"type": "TOOL_CALL_ARGS", "toolCallId": "t", "delta": "{\"a\":1"})),
            &mut rec,
        );
        assert_eq!(changed, Changed::MESSAGES);
        rec.stop_args = true;
        let changed = r.apply_with(
            &ev(json!({"type": "TOOL_CALL_ARGS", "toolCallId": "t", "delta": ",\"b\":2"})),
            &mut rec,
        );
        assert_eq!(changed, Changed::NONE);
        assert_eq!(r.tool_call("t").unwrap().function.arguments, "{\"a\":1");
        rec.stop_args = false;
        r.apply_with(
            &ev(json!({"type": "TOOL_CALL_ARGS", "toolCallId": "t", "delta": "}"})),
            &mut rec,
        );
        assert_eq!(r.partial_args("t").as_deref(), Some(&json!({"a": 1})));
        rec.stop_everything = true;
        let end = ev(json!({"type": "TOOL_CALL_END", "toolCallId": "t", "metadata": {"k": 1}}));
        assert_eq!(r.apply_with(&end, &mut rec), Changed::NONE);
        assert!(r.tool_call("t").unwrap().metadata.is_none()); // the merge was stopped
        assert_eq!(r.final_args("t").as_deref(), Some(&json!({"a": 1})));
        let tail: Vec<&str> = rec.log.iter().map(String::as_str).skip(3).collect();
        assert_eq!(
            tail,
            [
                "event TOOL_CALL_ARGS",
                "args f \"{\\\"a\\\":1\" {\"a\":1,\"b\":2}",
                "event TOOL_CALL_ARGS",
                "args f \"{\\\"a\\\":1\" {\"a\":1}",
                "event TOOL_CALL_END",
                "new tool call t {\"a\":1}",
            ]
        );
        assert_eq!(rec.log[1], "event TOOL_CALL_ARGS");
        assert_eq!(rec.log[2], "args f \"\" {\"a\":1}");
    }

    #[test]
    fn end_hook_gets_the_final_args() {
        let mut r = Reducer::new();
        let mut rec = Recorder::default();
        r.apply_with(
            &ev(json!({"type": "TOOL_CALL_START", "toolCallId": "t", "toolCallName": "f"})),
            &mut rec,
        );
        r.apply_with(
            &ev(json!({"type": "TOOL_CALL_ARGS", "toolCallId": "t", "delta": "[1"})),
            &mut rec,
        );
        r.apply_with(
            &ev(json!({"type": "TOOL_CALL_END", "toolCallId": "t"})),
            &mut rec,
        );
        // Partial [1] while streaming; the unfinished text parses to {} at END.
        assert_eq!(rec.log[2], "args f \"\" [1]");
        assert_eq!(rec.log[4], "end f {}");
        assert_eq!(rec.log[5], "new tool call t [1");
    }

    #[test]
    fn a_hook_can_replace_messages_and_state() {
        let mut r = Reducer::new();
        let replacement = vec![Message::new_text(
            "x",
            crate::model::MessageRole::User,
            None,
        )];
        let mut rec = Recorder {
            replace_on_custom: Some((replacement, json!({"replaced": true}))),
            ..Default::default()
        };
        let changed = r.apply_with(&ev(json!({"type": "CUSTOM", "name": "swap"})), &mut rec);
        assert_eq!(changed.as_str(), "ms");
        assert_eq!(r.state(), &json!({"replaced": true}));
        // The index follows the replacement.
        let content = ev(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "x", "delta": "hi"}));
        assert_eq!(r.apply_with(&content, &mut rec), Changed::MESSAGES);
        assert_eq!(r.message("x").unwrap().text(), Some("hi"));
    }

    #[test]
    fn results_and_activity_notify_new_messages() {
        let mut r = Reducer::new();
        let mut rec = Recorder::default();
        let result = Event::ToolCallResult(alloc::boxed::Box::new(ToolCallResult {
            subagent_run_id: None,
            message_id: "r".into(),
            tool_call_id: "t".into(),
            content: "ok".into(),
            metadata: None,
        }));
        r.apply_with(&result, &mut rec);
        let activity = |replace: bool| {
            ev(
                json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "P",
                      "content": {}, "replace": replace}),
            )
        };
        r.apply_with(&activity(true), &mut rec); // creates
        r.apply_with(&activity(true), &mut rec); // updates an activity: no notification
        r.apply_with(
            &Event::TextMessageStart(alloc::boxed::Box::new(TextMessageStart {
                subagent_run_id: None,
                message_id: "m".into(),
                role: agui_core::event::Role::Assistant,
                name: None,
                metadata: None,
            })),
            &mut rec,
        );
        let over = ev(
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "m", "activityType": "P", "content": {}}),
        );
        r.apply_with(&over, &mut rec); // overwrites another kind
        let news: Vec<String> = rec
            .log
            .iter()
            .filter(|l| l.starts_with("new"))
            .cloned()
            .collect();
        assert_eq!(
            news,
            ["new message r", "new message a", "new message m"].map(ToString::to_string)
        );
    }
}
