//! The 1.0 compatibility boundary (SPEC 9.3): retired shapes in, 1.0
//! shapes out, before enforcement sees the event.
//!
//! The `THINKING_*` events left the protocol. Each becomes its
//! `REASONING_*` successor ([`successor`], one row per retired type); the
//! ids those need are minted here and remembered per stream: `S` for the
//! span a `THINKING_START` opens, `M` for the message a
//! `THINKING_TEXT_MESSAGE_START` opens. A continuation with nothing
//! remembered gets a fresh id (and a warning); verification then rejects it
//! by that id, as the reference does.
//!
//! Minted ids are `00000000-0000-4000-8000-NNNNNNNNNNNN`, `N` counting from 1
//! per stream: the core has no randomness, and this is the sequence the
//! vectors' oracle mints, so results compare byte for byte.

use crate::store::{IdText as _, Store};
use core::fmt::Write;

use crate::error::{Code, Detail, Error, ErrorText, Stage, Table};
use crate::event::EventType;
use crate::warn::{WarnCode, Warning};

/// Which remembered id a retired event uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Thread {
    /// The thinking span (`S`).
    Span,
    /// The thinking message (`M`).
    Message,
}

/// What a retired event does with its thread's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// Mints a new id and remembers it (a START).
    Mints,
    /// Uses the remembered id (a CONTENT).
    Continues,
    /// Uses the remembered id and forgets it (an END).
    Forgets,
}

/// The 1.0 successor of a retired event type, the thread whose id it
/// carries and what it does with it; `None` for a type that is not retired.
pub const fn successor(kind: EventType) -> Option<(EventType, Thread, Use)> {
    use EventType as T;
    Some(match kind {
        T::ThinkingStart => (T::ReasoningStart, Thread::Span, Use::Mints),
        T::ThinkingEnd => (T::ReasoningEnd, Thread::Span, Use::Forgets),
        T::ThinkingTextMessageStart => (T::ReasoningMessageStart, Thread::Message, Use::Mints),
        T::ThinkingTextMessageContent => {
            (T::ReasoningMessageContent, Thread::Message, Use::Continues)
        }
        T::ThinkingTextMessageEnd => (T::ReasoningMessageEnd, Thread::Message, Use::Forgets),
        T::RunStarted
        | T::RunFinished
        | T::RunError
        | T::StepStarted
        | T::StepFinished
        | T::TextMessageStart
        | T::TextMessageContent
        | T::TextMessageEnd
        | T::TextMessageChunk
        | T::ToolCallStart
        | T::ToolCallArgs
        | T::ToolCallEnd
        | T::ToolCallChunk
        | T::ToolCallResult
        | T::ReasoningStart
        | T::ReasoningEnd
        | T::ReasoningMessageStart
        | T::ReasoningMessageContent
        | T::ReasoningMessageEnd
        | T::ReasoningMessageChunk
        | T::ReasoningEncryptedValue
        | T::StateSnapshot
        | T::StateDelta
        | T::MessagesSnapshot
        | T::ActivitySnapshot
        | T::ActivityDelta
        | T::Raw
        | T::Custom
        | T::SubagentStarted
        | T::SubagentFinished
        | T::SubagentError => return None,
    })
}

/// The prefix of a minted id; 12 decimal digits of the count follow.
const MINT_PREFIX: &str = "00000000-0000-4000-8000-";

/// The boundary's memory: the remembered ids (as their mint numbers: a
/// minted id is its number's text, so 8 bytes hold it) and the mint count.
#[derive(Debug, Clone, Default)]
pub struct Compat<const ID: usize = 64> {
    span: Option<u64>,
    message: Option<u64>,
    minted: u64,
}

impl<const ID: usize> Compat<ID> {
    /// Nothing remembered, nothing minted.
    pub const fn new() -> Self {
        Compat {
            span: None,
            message: None,
            minted: 0,
        }
    }

    /// The id a retired event of `kind` carries as its successor, minting
    /// or forgetting as its row says; warnings go to `warn`.
    ///
    /// # Errors
    /// `capacity` if `ID` is shorter than a minted id (36 bytes).
    pub fn id_for<S: Store>(
        &mut self,
        kind: EventType,
        thread: Thread,
        using: Use,
        warn: &mut dyn FnMut(Warning),
    ) -> Result<S::Str<ID>, Error> {
        let remembered = match using {
            Use::Mints => None,
            Use::Continues => *self.slot(thread),
            Use::Forgets => self.slot(thread).take(),
        };
        let number = match remembered {
            Some(n) => n,
            None => {
                self.minted = self.minted.saturating_add(1);
                self.minted
            }
        };
        let id = id_text::<ID, S>(number, kind)?;
        if remembered.is_none() && using != Use::Mints {
            warn(Warning::new(WarnCode::MintedId, Some(kind), &id));
        }
        if using == Use::Mints {
            *self.slot(thread) = Some(number);
        }
        Ok(id)
    }

    fn slot(&mut self, thread: Thread) -> &mut Option<u64> {
        match thread {
            Thread::Span => &mut self.span,
            Thread::Message => &mut self.message,
        }
    }
}

/// The text of minted id number `n`.
fn id_text<const ID: usize, S: Store>(n: u64, kind: EventType) -> Result<S::Str<ID>, Error> {
    // At most 44 bytes (a 20-digit number), then into a slot of `ID`.
    let mut text = heapless::String::<48>::new();
    let mut id = S::Str::<ID>::default();
    write!(text, "{MINT_PREFIX}{n:012}")
        .map_err(drop)
        .and_then(|()| id.push_str(&text))
        .map_err(|()| {
            Error::new(
                Stage::Decode,
                Code::Capacity,
                Some(kind),
                Detail::Capacity {
                    table: Table::IdSlot,
                    limit: ID,
                    field: Some(crate::spec::Field::MessageId),
                    id: ErrorText::new(),
                },
            )
        })?;
    Ok(id)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    extern crate std;

    use super::*;
    use std::vec::Vec;

    /// The vectors' oracle mints `...0001`, `...0002`, ... per stream; a
    /// START replaces the remembered id, an END forgets it, a continuation
    /// with nothing remembered mints one (and says so).
    #[test]
    fn ids_are_minted_remembered_and_forgotten() {
        let mut c: Compat<64> = Compat::new();
        let mut warned = Vec::new();
        let mut w = |w: Warning| warned.push(w.code);
        let id = |n: u64| std::format!("00000000-0000-4000-8000-{n:012}");
        let t = EventType::ThinkingStart;
        let s = c
            .id_for::<crate::store::Fixed>(t, Thread::Span, Use::Mints, &mut w)
            .unwrap();
        assert_eq!(s.as_str(), id(1));
        let m = c
            .id_for::<crate::store::Fixed>(t, Thread::Message, Use::Mints, &mut w)
            .unwrap();
        assert_eq!(m.as_str(), id(2));
        let again = c
            .id_for::<crate::store::Fixed>(t, Thread::Message, Use::Continues, &mut w)
            .unwrap();
        assert_eq!(again, m);
        assert_eq!(
            c.id_for::<crate::store::Fixed>(t, Thread::Span, Use::Forgets, &mut w)
                .unwrap(),
            s
        );
        let fresh = c
            .id_for::<crate::store::Fixed>(t, Thread::Span, Use::Forgets, &mut w)
            .unwrap();
        assert_eq!(fresh.as_str(), id(3));
        assert_eq!(warned, [WarnCode::MintedId]);
        // Every retired type has a successor, and only they do.
        for kind in EventType::ALL {
            assert_eq!(
                successor(*kind).is_some(),
                !kind.is_in(crate::protocol::Protocol::V1)
            );
        }
    }
}
