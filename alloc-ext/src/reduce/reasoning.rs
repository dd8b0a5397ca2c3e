//! Reasoning: reasoning messages (their text is folded as text messages'
//! is, see `messages.rs`) and encrypted values, and the older `THINKING_*`
//! events, which only reach hooks. Their [`Rules`] blocks come last.

use agui_core::decode::Field as F;
use agui_core::event::EventType;

use super::limits::Delta;
use super::messages::{content_growth, end_growth, notify_message};
use super::rules::{no_op, opt_len, Given, Rules};
use super::{owned_by, Changed, Reducer};
use crate::event::{
    check_metadata, content, end, kind, metadata, DecodeError, Effect, EncryptedSubtype,
    MessageContent, MessageEnd, ReasoningEncryptedValue, ReasoningMessageStart, ReasoningPhase,
    ThinkingContent, ThinkingStart,
};
use crate::hooks::{Flow, HookView, Subscriber};
use crate::model::{Fields, Message, MessageRole, SUBAGENT_RUN_ID};

impl Reducer {
    /// REASONING_MESSAGE_START: a reasoning message.
    fn reasoning_message_start(&mut self, e: &ReasoningMessageStart) -> Changed {
        let make = || {
            let message = Message::new_text(e.message_id.as_str(), MessageRole::Reasoning, None);
            owned_by(message, &e.subagent_run_id)
        };
        self.message_start(&e.message_id, make, e.metadata.as_ref())
    }

    fn encrypted_value(&mut self, e: &ReasoningEncryptedValue) -> Changed {
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
    fn hook(e: &ThinkingStart, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_thinking_start(e, v)
    }
    fn effect(_: &ThinkingStart) -> Effect<'_> {
        Effect::ReasoningStarted
    }
    no_op!(growth, check, reduce, notify, trace_args);
}

impl Rules for kind::ThinkingEnd {
    type Payload = ();
    fn decode(f: Fields<'_>) -> Result<(), DecodeError> {
        check_metadata(f)
    }
    fn hook(_: &(), _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_thinking_end(v)
    }
    fn effect(_: &()) -> Effect<'_> {
        Effect::ReasoningEnded
    }
    no_op!(growth, check, reduce, notify, trace_args);
}

impl Rules for kind::ThinkingTextMessageStart {
    type Payload = ();
    fn decode(f: Fields<'_>) -> Result<(), DecodeError> {
        check_metadata(f)
    }
    fn hook(_: &(), _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_thinking_text_message_start(v)
    }
    fn effect(_: &()) -> Effect<'_> {
        Effect::Plain
    }
    no_op!(growth, check, reduce, notify, trace_args);
}

impl Rules for kind::ThinkingTextMessageContent {
    type Payload = ThinkingContent;
    fn decode(f: Fields<'_>) -> Result<ThinkingContent, DecodeError> {
        check_metadata(f)?;
        Ok(ThinkingContent {
            delta: f.string(F::Delta.as_str())?,
        })
    }
    fn hook(
        e: &ThinkingContent,
        _: &Reducer,
        s: &mut dyn Subscriber,
        v: &mut HookView<'_>,
    ) -> Flow {
        s.on_thinking_text_message_content(e, v)
    }
    fn effect(_: &ThinkingContent) -> Effect<'_> {
        Effect::Plain
    }
    no_op!(growth, check, reduce, notify, trace_args);
}

impl Rules for kind::ThinkingTextMessageEnd {
    type Payload = ();
    fn decode(f: Fields<'_>) -> Result<(), DecodeError> {
        check_metadata(f)
    }
    fn hook(_: &(), _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_thinking_text_message_end(v)
    }
    fn effect(_: &()) -> Effect<'_> {
        Effect::Plain
    }
    no_op!(growth, check, reduce, notify, trace_args);
}

// ---------------------------------------------------------------------------
// Reasoning (see `rules.rs`).

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
    fn hook(e: &ReasoningPhase, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_reasoning_start(e, v)
    }
    fn effect(_: &ReasoningPhase) -> Effect<'_> {
        Effect::ReasoningStarted
    }
    no_op!(growth, check, reduce, notify, trace_args);
}

impl Rules for kind::ReasoningEnd {
    type Payload = ReasoningPhase;
    fn decode(f: Fields<'_>) -> Result<ReasoningPhase, DecodeError> {
        reasoning_phase(f)
    }
    fn hook(e: &ReasoningPhase, _: &Reducer, s: &mut dyn Subscriber, v: &mut HookView<'_>) -> Flow {
        s.on_reasoning_end(e, v)
    }
    fn effect(_: &ReasoningPhase) -> Effect<'_> {
        Effect::ReasoningEnded
    }
    no_op!(growth, check, reduce, notify, trace_args);
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
    fn effect(_: &ReasoningMessageStart) -> Effect<'_> {
        Effect::Plain
    }
    no_op!(check, notify, trace_args);
}

impl Rules for kind::ReasoningMessageContent {
    type Payload = MessageContent;
    fn decode(f: Fields<'_>) -> Result<MessageContent, DecodeError> {
        content(f)
    }
    fn growth(e: &MessageContent, _: &Reducer) -> (usize, usize) {
        content_growth(e)
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
    fn effect(_: &MessageContent) -> Effect<'_> {
        Effect::Plain
    }
    no_op!(check, notify, trace_args);
}

impl Rules for kind::ReasoningMessageEnd {
    type Payload = MessageEnd;
    fn decode(f: Fields<'_>) -> Result<MessageEnd, DecodeError> {
        end(f)
    }
    fn growth(e: &MessageEnd, _: &Reducer) -> (usize, usize) {
        end_growth(e)
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
    fn effect(_: &MessageEnd) -> Effect<'_> {
        Effect::Plain
    }
    no_op!(check, trace_args);
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
    fn effect(_: &ReasoningEncryptedValue) -> Effect<'_> {
        Effect::Plain
    }
    no_op!(check, notify, trace_args);
}
