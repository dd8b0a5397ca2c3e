//! Reasoning: reasoning messages (their text is folded as text messages'
//! is, see `messages.rs`) and encrypted values.

use super::limits::Delta;
use super::{owned_by, Changed, Reducer};
use crate::event::{EncryptedSubtype, ReasoningEncryptedValue, ReasoningMessageStart};
use crate::model::{Message, MessageRole};

impl Reducer {
    /// REASONING_MESSAGE_START: a reasoning message.
    pub(crate) fn reasoning_message_start(&mut self, e: &ReasoningMessageStart) -> Changed {
        let make = || {
            let message = Message::new_text(e.message_id.as_str(), MessageRole::Reasoning, None);
            owned_by(message, &e.subagent_run_id)
        };
        self.message_start(&e.message_id, make, e.metadata.as_ref())
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
}
