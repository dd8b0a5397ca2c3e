//! What inbound processing reports: warnings (the frame goes on) and decode
//! failures (the stream stops at the frame).

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// The stage a warning comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InboundStage {
    /// The compatibility boundary (SPEC 9.3): a retired shape translated.
    Compat,
    /// Enforcement (SPEC 9.4): unknown material dropped or stripped.
    Enforce,
}

impl InboundStage {
    /// The name the vectors use: `compat` or `enforce`.
    pub fn as_str(self) -> &'static str {
        match self {
            InboundStage::Compat => "compat",
            InboundStage::Enforce => "enforce",
        }
    }
}

/// What a warning says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InboundWarningKind {
    /// A retired shape was translated: `from` (e.g. `THINKING_START`,
    /// `TOOL_CALL_START.parentMessageId: null`) became `to` (e.g.
    /// `REASONING_START`, `an absent field`).
    Converted {
        /// The retired shape.
        from: Cow<'static, str>,
        /// What it became.
        to: Cow<'static, str>,
    },
    /// `THINKING_START.title` was lost in translation.
    DroppedTitle,
    /// A `THINKING_*` continuation had no opener: this id was minted.
    MintedId {
        /// The minted id.
        id: String,
    },
    /// A legacy `binary` content part with neither data nor url stays as it
    /// is (enforcement then strips it).
    BinaryUnconvertible,
    /// An event of an unknown type was dropped.
    UnknownEvent {
        /// Its `type`.
        event_type: String,
    },
    /// Unknown material was removed from an event.
    Stripped {
        /// The event's `type`.
        event_type: String,
        /// Where, as a JSON-pointer-like path into the event (`/key`,
        /// `/messages/0/content/2`); keys are not escaped.
        path: String,
    },
}

/// One warning, for one frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundWarning {
    /// The index of the frame it is about.
    pub frame: usize,
    /// What happened.
    pub kind: InboundWarningKind,
}

impl InboundWarning {
    /// The stage that reported it.
    pub fn stage(&self) -> InboundStage {
        match self.kind {
            InboundWarningKind::Converted { .. }
            | InboundWarningKind::DroppedTitle
            | InboundWarningKind::MintedId { .. }
            | InboundWarningKind::BinaryUnconvertible => InboundStage::Compat,
            InboundWarningKind::UnknownEvent { .. } | InboundWarningKind::Stripped { .. } => {
                InboundStage::Enforce
            }
        }
    }

    /// The code the vectors use (`converted`, `dropped_title`, `minted_id`,
    /// `binary_unconvertible`, `unknown_event`, `stripped`).
    pub fn code(&self) -> &'static str {
        match self.kind {
            InboundWarningKind::Converted { .. } => "converted",
            InboundWarningKind::DroppedTitle => "dropped_title",
            InboundWarningKind::MintedId { .. } => "minted_id",
            InboundWarningKind::BinaryUnconvertible => "binary_unconvertible",
            InboundWarningKind::UnknownEvent { .. } => "unknown_event",
            InboundWarningKind::Stripped { .. } => "stripped",
        }
    }
}

impl fmt::Display for InboundWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "frame {}: {}: ", self.frame, self.stage().as_str())?;
        match &self.kind {
            InboundWarningKind::Converted { from, to } => write!(f, "converted {from} to {to}"),
            InboundWarningKind::DroppedTitle => f.write_str("THINKING_START.title dropped"),
            InboundWarningKind::MintedId { id } => write!(f, "minted the id '{id}'"),
            InboundWarningKind::BinaryUnconvertible => {
                f.write_str("a binary part with only an id cannot be converted")
            }
            InboundWarningKind::UnknownEvent { event_type } => {
                write!(f, "dropped the unknown event '{event_type}'")
            }
            InboundWarningKind::Stripped { event_type, path } => {
                write!(f, "removed '{path}' from {event_type}")
            }
        }
    }
}

/// One thing wrong with a frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// The path to the bad value, keys and indexes joined by `.`
    /// (`usage.0.inputTokens`); empty for the frame itself.
    pub path: String,
    /// What is wrong (the reference's wording where it has one).
    pub reason: String,
}

/// A frame that cannot be decoded: a `decode` error of that frame.
///
/// Displays as the reference's text: the issues as `path: reason`, joined
/// by `; ` (a frame-level issue has no path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeFailure {
    /// The index of the frame.
    pub frame: usize,
    /// What is wrong, at least one issue, in the schema's order.
    pub issues: Vec<Issue>,
}

impl DecodeFailure {
    pub(crate) fn one(frame: usize, reason: impl Into<String>) -> Self {
        DecodeFailure {
            frame,
            issues: alloc::vec![Issue {
                path: String::new(),
                reason: reason.into(),
            }],
        }
    }
}

impl fmt::Display for DecodeFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, issue) in self.issues.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            if issue.path.is_empty() {
                f.write_str(&issue.reason)?;
            } else {
                write!(f, "{}: {}", issue.path, issue.reason)?;
            }
        }
        Ok(())
    }
}

/// The failure as the alloc layer's [`DecodeError`](crate::model::DecodeError)
/// (what [`ClientError`](crate::client::ClientError) carries): the first
/// issue's path, and as reason the rest of the text, so that both display
/// the same.
///
/// ```
/// use agui_alloc::model::DecodeError;
/// use agui_alloc::v1::Inbound;
///
/// let frame = serde_json::json!({"type": "RUN_ERROR", "message": 1, "code": 2});
/// let failure = Inbound::new().process(0, frame, &mut Vec::new()).unwrap_err();
/// let text = failure.to_string();
/// let e = DecodeError::from(failure);
/// assert_eq!(e.path(), "message");
/// assert_eq!(e.to_string(), text);
/// ```
impl From<DecodeFailure> for crate::model::DecodeError {
    fn from(failure: DecodeFailure) -> Self {
        let text = alloc::string::ToString::to_string(&failure);
        match failure.issues.first() {
            Some(first) if !first.path.is_empty() => {
                let rest = text
                    .strip_prefix(first.path.as_str())
                    .and_then(|t| t.strip_prefix(": "))
                    .unwrap_or(&text);
                crate::model::DecodeError::new(rest).within(&first.path)
            }
            _ => crate::model::DecodeError::new(text),
        }
    }
}
