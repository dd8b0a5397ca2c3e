//! Warnings: what 1.0 mode reports without stopping (SPEC 9.10).
//!
//! The core hands them to the caller as values (see
//! [`Pipeline::feed_reporting`](crate::pipeline::Pipeline::feed_reporting)),
//! never prints them. Each names its frame, a [`WarnCode`], the event type
//! when known, and a path or a name (cut, and marked so, when longer than
//! [`ERROR_TEXT`](crate::error::ERROR_TEXT) bytes).

use core::fmt;

use crate::error::{error_text, ErrorText};
use crate::event::EventType;

/// What a warning is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum WarnCode {
    /// An event of an unknown type was dropped (`text`: the type).
    UnknownEvent,
    /// Unknown material was removed (`text`: its path, such as `/key`).
    Stripped,
    /// A retired shape was translated (`text`: the retired type or field).
    Converted,
    /// `THINKING_START.title` was lost in translation.
    DroppedTitle,
    /// A `THINKING_*` continuation had no opener: an id was minted (`text`).
    MintedId,
    /// A legacy `binary` content part with only an `id` cannot be upgraded;
    /// enforcement strips it.
    BinaryUnconvertible,
    /// `RUN_STARTED.protocolVersion` is newer than 1.0 (`text`: it).
    ProtocolNewer,
    /// `RUN_STARTED.protocolVersion` is outside `<digits>.<digits>`.
    ProtocolUninterpretable,
}

impl WarnCode {
    /// The code as written in machine-readable output (the vectors' names).
    pub const fn as_str(self) -> &'static str {
        match self {
            WarnCode::UnknownEvent => "unknown_event",
            WarnCode::Stripped => "stripped",
            WarnCode::Converted => "converted",
            WarnCode::DroppedTitle => "dropped_title",
            WarnCode::MintedId => "minted_id",
            WarnCode::BinaryUnconvertible => "binary_unconvertible",
            WarnCode::ProtocolNewer => "protocol_newer",
            WarnCode::ProtocolUninterpretable => "protocol_uninterpretable",
        }
    }

    /// The stage that reports it: `enforce`, `compat` or `agent`.
    pub const fn stage(self) -> &'static str {
        match self {
            WarnCode::UnknownEvent | WarnCode::Stripped => "enforce",
            WarnCode::Converted
            | WarnCode::DroppedTitle
            | WarnCode::MintedId
            | WarnCode::BinaryUnconvertible => "compat",
            WarnCode::ProtocolNewer | WarnCode::ProtocolUninterpretable => "agent",
        }
    }
}

/// One warning.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Warning {
    /// Index of the frame it concerns.
    pub frame: u32,
    /// What happened.
    pub code: WarnCode,
    /// The event type concerned, when known.
    pub event: Option<EventType>,
    /// A path, a type name or an id, per [`WarnCode`] (cut with `…` if long).
    pub text: ErrorText,
}

impl Warning {
    pub(crate) fn new(code: WarnCode, event: Option<EventType>, text: &str) -> Self {
        Warning {
            frame: 0,
            code,
            event,
            text: error_text(text),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ty = self.event.map_or("event", EventType::as_str);
        let t = &self.text;
        write!(
            f,
            "frame {}: {} warning [{}]: ",
            self.frame,
            self.code.stage(),
            self.code.as_str()
        )?;
        match self.code {
            WarnCode::UnknownEvent => write!(f, "dropped an event of unknown type '{t}'"),
            WarnCode::Stripped => write!(f, "{ty}: removed unknown material at '{t}'"),
            WarnCode::Converted => write!(f, "translated the retired '{t}' into its 1.0 form"),
            WarnCode::DroppedTitle => f.write_str("THINKING_START's title has no 1.0 counterpart and was dropped"),
            WarnCode::MintedId => write!(f, "{ty} continues nothing that was started; minted the id '{t}'"),
            WarnCode::BinaryUnconvertible => write!(f, "{ty}: a legacy binary content part with only an id cannot be upgraded; it is stripped"),
            WarnCode::ProtocolNewer => write!(f, "the producer speaks protocol {t}; this client speaks 1.0, unrecognised material will be stripped"),
            WarnCode::ProtocolUninterpretable => write!(f, "cannot interpret protocolVersion '{t}'; read as newer than 1.0"),
        }
    }
}
