//! AG-UI 1.0 inbound processing of one event (SPEC sections 9.2 to 9.5).
//!
//! What the 1.0 reference client does to every inbound frame before chunk
//! expansion, on the frame's parsed JSON value:
//!
//! 1. the *frame check*: a JSON object with a non-empty string `type`;
//! 2. the *compatibility boundary* (SPEC 9.3):
//!    `THINKING_*` become `REASONING_*` with minted ids, legacy `null`s
//!    become absent, legacy `binary` content parts become media parts;
//! 3. *enforcement* (SPEC 9.4): an unknown event type is dropped, unknown
//!    keys and union members are stripped (each removal a warning with its
//!    path), then the event is validated against its 1.0 schema
//!    ([`schema`]); a failure is a decode error of the frame.
//!
//! Numbers are judged on the parsed value read as a double, as JavaScript
//! reads the literal (`1e3` is an integer, `9007199254740991.4` is
//! `2^53 - 1`): that needs a correctly rounded parse. serde_json's default
//! float parser is not always correctly rounded (its `float_roundtrip`
//! feature is): through the default parser, `9007199254740991.4` arrives
//! here as `2^53` and is rejected.
//!
//! No input panics, and the cost is linear in the size of the event (times
//! the logarithm of an object's size for a key lookup): the walks descend
//! only where the schema describes something, never into free JSON, and
//! visit each described value once (plus once more, to word the error, for
//! an event that fails). The one exception is the duplicate check of the
//! legacy `binary` upgrade: `n log n` in the parts of one message.
//!
//! Warnings of one frame come in the order of the walk: keys in serde_json's
//! order (sorted, unless its `preserve_order` feature is on), where the
//! reference walks them in insertion order.
//!
//! | module | what it holds |
//! |---|---|
//! | [`schema`] | the 1.0 schema as walked here: the core's event table, and the nested objects as tables |
//! | [`report`] | [`InboundWarning`]s and [`DecodeFailure`]s |
//!
//! ```
//! use agui_alloc::v1::{Inbound, InboundWarningKind};
//! use serde_json::json;
//!
//! let mut inbound = Inbound::new();
//! let mut warnings = Vec::new();
//! let frame = json!({"type": "THINKING_START", "title": "plan"});
//! let event = inbound.process(0, frame, &mut warnings).unwrap().unwrap();
//! assert_eq!(event["type"], "REASONING_START");
//! assert_eq!(event["messageId"], "00000000-0000-4000-8000-000000000001");
//! assert_eq!(warnings[1].kind, InboundWarningKind::DroppedTitle);
//!
//! // An unknown key is stripped, an unknown event dropped.
//! let frame = json!({"type": "STEP_STARTED", "stepName": "s", "extra": 1});
//! let event = inbound.process(1, frame, &mut warnings).unwrap().unwrap();
//! assert!(event.get("extra").is_none());
//! assert!(inbound.process(2, json!({"type": "FUTURE"}), &mut warnings).unwrap().is_none());
//!
//! // A malformed known field is fatal.
//! let frame = json!({"type": "STEP_STARTED", "stepName": 5});
//! let err = inbound.process(3, frame, &mut warnings).unwrap_err();
//! assert_eq!(err.to_string(), "stepName: Invalid input: expected string, received number");
//! ```

mod boundary;
mod enforce;
pub mod report;
pub mod schema;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde_json::Value;

pub use report::{DecodeFailure, InboundStage, InboundWarning, InboundWarningKind, Issue};

/// The per-stream state of inbound 1.0 processing: the compatibility
/// boundary's open `THINKING_*` ids and its mint. One per stream; frames go
/// through [`Inbound::process`] in arrival order.
#[derive(Debug, Clone)]
pub struct Inbound {
    boundary: boundary::Boundary,
    /// Scratch for the paths of the walks (kept to spare an allocation per
    /// frame).
    path: String,
    /// Scratch for the keys of the frame's event type (likewise).
    fields: Vec<schema::FieldShape>,
}

impl Default for Inbound {
    fn default() -> Self {
        Inbound::new()
    }
}

/// The `n`th id (from 1) of the deterministic mint:
/// `00000000-0000-4000-8000-00000000000N` (`n` in hexadecimal, 12 digits),
/// the sequence the 1.0 conformance vectors were made with.
pub fn counter_id(n: u64) -> String {
    format!("00000000-0000-4000-8000-{n:012x}")
}

impl Inbound {
    /// A new stream whose minted ids are [`counter_id`]`(1)`, `(2)`, ...
    pub fn new() -> Self {
        Inbound::with_mint(counter_id)
    }

    /// A new stream whose `n`th minted id (from 1) is `mint(n)` (e.g. a
    /// random UUID, as the reference mints).
    pub fn with_mint(mint: fn(u64) -> String) -> Self {
        Inbound {
            boundary: boundary::Boundary::new(mint),
            path: String::new(),
            fields: Vec::new(),
        }
    }

    /// Processes frame number `frame`, parsed as `value`: the frame check,
    /// the compatibility boundary and enforcement.
    ///
    /// Returns the event to pass on to chunk expansion, or `None` when the
    /// event was dropped (an unknown type). Warnings are appended to
    /// `warnings`, also when the frame then fails (the boundary warns before
    /// enforcement judges). An error is a `decode` error of the frame: the
    /// stream stops there.
    pub fn process(
        &mut self,
        frame: usize,
        value: Value,
        warnings: &mut Vec<InboundWarning>,
    ) -> Result<Option<Value>, DecodeFailure> {
        let Value::Object(mut event) = value else {
            return Err(DecodeFailure::one(
                frame,
                "Invalid event: the frame is not a JSON object.",
            ));
        };
        match event.get("type") {
            Some(Value::String(t)) if !t.is_empty() => {}
            _ => {
                return Err(DecodeFailure::one(
                    frame,
                    "Invalid event: the frame carries no event type.",
                ))
            }
        }
        self.boundary
            .translate(frame, &mut event, warnings)
            .map_err(|boundary::Broken(reason)| DecodeFailure::one(frame, reason))?;
        let kind = match event.get("type") {
            Some(Value::String(t)) => schema::event_type(t),
            _ => None,
        };
        let Some(kind) = kind else {
            let event_type = match event.remove("type") {
                Some(Value::String(t)) => t,
                _ => String::new(),
            };
            warnings.push(InboundWarning {
                frame,
                kind: InboundWarningKind::UnknownEvent { event_type },
            });
            return Ok(None);
        };
        schema::event_fields(kind, &mut self.fields);
        let groups = [self.fields.as_slice()];
        let schema = schema::ObjectShape {
            name: kind.as_str(),
            groups: &groups,
            open: false,
        };
        let stripped = enforce::strip(&mut event, &schema, &mut self.path);
        for path in stripped.removed {
            warnings.push(InboundWarning {
                frame,
                kind: InboundWarningKind::Stripped {
                    event_type: String::from(kind.as_str()),
                    path,
                },
            });
        }
        if !stripped.valid {
            let issues = enforce::validate(&mut event, &schema, &mut self.path);
            if !issues.is_empty() {
                return Err(DecodeFailure { frame, issues });
            }
        }
        Ok(Some(Value::Object(event)))
    }
}
