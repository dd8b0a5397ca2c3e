//! Interrupts: the questions a run ends with, and the answers the next
//! run carries (SPEC section 10, "Answering interrupts").
//!
//! An agent pauses a run to ask a person: the run finishes with the
//! interrupts (the `interrupt` outcome of `RUN_FINISHED`, in the current
//! protocol and in 1.0 alike), or, in ag-ui-langgraph's legacy mode, with
//! one `CUSTOM` event named `on_interrupt` per question followed by a plain
//! `RUN_FINISHED`. The conversation keeps them as [`PendingInterrupt`]s
//! until a later run finishes; each is answered with
//! [`Conversation::answer`](super::Conversation::answer), and the next run
//! carries the answers: as `resume[]` for an outcome, as
//! `forwardedProps.command.resume` for the legacy events.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use serde_json::Value;

use crate::model::{Interrupt, Object, ResumeEntry, ResumeStatus};

/// The name of ag-ui-langgraph's legacy interrupt event (`CUSTOM`).
pub const LEGACY_EVENT: &str = "on_interrupt";

/// The reason a legacy interrupt gets when its value names none (as
/// ag-ui-langgraph's own mapping does).
const LEGACY_REASON: &str = "langgraph:interrupt";

/// Most interrupts a conversation keeps from one run, by default.
pub const MAX_INTERRUPTS: usize = 16;

/// How the agent asked, which decides how the answers travel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InterruptSource {
    /// `RUN_FINISHED.outcome = {type: "interrupt", interrupts}`: answered by
    /// the next run's `resume[]`, one entry per interrupt.
    Outcome,
    /// `CUSTOM` events named `on_interrupt`, then a `RUN_FINISHED` without
    /// an interrupt outcome (ag-ui-langgraph's default): answered by the
    /// next run's `forwardedProps.command.resume`. The events carry no id:
    /// the conversation numbers them `on_interrupt-1`, `-2`, ...
    LegacyEvent,
}

/// A person's answer to an interrupt.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolution {
    /// Answered: `payload` is the answer (checked by the agent against
    /// the interrupt's `responseSchema`), `None` to send none.
    Resolved {
        /// The answer, any JSON.
        payload: Option<Value>,
    },
    /// Not answered: nobody decided, or the interrupt expired.
    Cancelled,
}

impl Resolution {
    /// Approve (`true`) or deny (`false`): resolved with the payload
    /// `{"approved": bool}`, the shape tool approvals ask for (pydantic-ai's
    /// `responseSchema`, the AG-UI documentation's approval pattern).
    pub fn approved(yes: bool) -> Self {
        let mut payload = Object::new();
        payload.insert("approved".to_owned(), Value::Bool(yes));
        Resolution::Resolved {
            payload: Some(Value::Object(payload)),
        }
    }
}

/// An interrupt of the last finished run, with its answer so far.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingInterrupt {
    /// What the agent asked.
    pub interrupt: Interrupt,
    /// How it asked.
    pub source: InterruptSource,
    /// The answer given, if any.
    pub answer: Option<Resolution>,
}

/// A run ended with more interrupts than the conversation keeps: none of
/// them is kept (a cut list would answer some questions and drop others).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyInterrupts {
    /// How many the run asked (legacy events counted one by one).
    pub count: usize,
    /// The most kept ([`Conversation::with_max_interrupts`](super::Conversation::with_max_interrupts)).
    pub max: usize,
}

impl fmt::Display for TooManyInterrupts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the agent asked {} questions in one run, more than the {} this client answers: \
             none is answered (raise the limit, or ask the agent for fewer)",
            self.count, self.max
        )
    }
}

impl core::error::Error for TooManyInterrupts {}

/// [`Conversation::answer`](super::Conversation::answer) could not record
/// an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerError {
    /// A run is in progress: answer between runs.
    RunInProgress,
    /// No pending interrupt has this id.
    Unknown(String),
}

impl fmt::Display for AnswerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnswerError::RunInProgress => {
                f.write_str("a run is in progress: answer its interrupts after it ends")
            }
            AnswerError::Unknown(id) => write!(
                f,
                "no pending interrupt has the id '{id}' (see Conversation::pending_interrupts)"
            ),
        }
    }
}

impl core::error::Error for AnswerError {}

/// The interrupts of the last finished run, and their answers.
#[derive(Debug, Clone, Default)]
pub(crate) struct Interrupts {
    pub(crate) open: Vec<PendingInterrupt>,
    pub(crate) overflow: Option<TooManyInterrupts>,
}

/// What the next run sends for the answers.
pub(crate) enum Answers {
    /// Nothing pending.
    None,
    /// `resume[]`.
    Resume(Vec<ResumeEntry>),
    /// `forwardedProps.command.resume`.
    Command(Value),
}

impl Interrupts {
    /// A finished run's interrupts: `outcome`'s when it has any, else the
    /// legacy events'; at most `max` (else none, and the overflow noted).
    pub(crate) fn from_run(outcome: &[Interrupt], legacy: LegacyInterrupts, max: usize) -> Self {
        let count = match outcome.len() {
            0 => legacy.seen,
            n => n,
        };
        if count > max {
            return Interrupts {
                open: Vec::new(),
                overflow: Some(TooManyInterrupts { count, max }),
            };
        }
        // Copied only under the limit: a flood costs no copy.
        let (list, source) = if outcome.is_empty() {
            (legacy.kept, InterruptSource::LegacyEvent)
        } else {
            (outcome.to_vec(), InterruptSource::Outcome)
        };
        let open = list
            .into_iter()
            .map(|interrupt| PendingInterrupt {
                interrupt,
                source,
                answer: None,
            })
            .collect();
        Interrupts {
            open,
            overflow: None,
        }
    }

    pub(crate) fn answer(&mut self, id: &str, resolution: Resolution) -> Result<(), AnswerError> {
        let pending = self
            .open
            .iter_mut()
            .find(|p| p.interrupt.id == id)
            .ok_or_else(|| AnswerError::Unknown(id.to_owned()))?;
        pending.answer = Some(resolution);
        Ok(())
    }

    /// Answers `cancelled` every interrupt whose `expiresAt` is at or
    /// before `now_ms` (answered or not: an answer cannot be used once the
    /// interrupt lapsed); how many.
    pub(crate) fn cancel_expired(&mut self, now_ms: i64) -> usize {
        let mut cancelled = 0;
        for pending in &mut self.open {
            if is_expired(&pending.interrupt, now_ms)
                && pending.answer != Some(Resolution::Cancelled)
            {
                pending.answer = Some(Resolution::Cancelled);
                cancelled += 1;
            }
        }
        cancelled
    }

    /// The ids not answered yet.
    pub(crate) fn unanswered(&self) -> Vec<String> {
        self.open
            .iter()
            .filter(|p| p.answer.is_none())
            .map(|p| p.interrupt.id.clone())
            .collect()
    }

    /// The answers as the next run sends them (every interrupt answered:
    /// the caller checked [`unanswered`](Self::unanswered)).
    pub(crate) fn answers(&self) -> Answers {
        let Some(first) = self.open.first() else {
            return Answers::None;
        };
        match first.source {
            InterruptSource::Outcome => {
                Answers::Resume(self.open.iter().filter_map(resume_entry).collect())
            }
            // The legacy channel carries one value: the first question's
            // answer (ag-ui-langgraph resumes the graph with it as is).
            InterruptSource::LegacyEvent => match &first.answer {
                Some(answer) => Answers::Command(command_resume(answer)),
                None => Answers::None,
            },
        }
    }
}

/// One `resume[]` entry, as the reference's `buildResumeArray` makes it:
/// `payload` only when resolved with one; `metadata` never (we set none).
fn resume_entry(pending: &PendingInterrupt) -> Option<ResumeEntry> {
    let (status, payload) = match pending.answer.as_ref()? {
        Resolution::Resolved { payload } => (ResumeStatus::Resolved, payload.clone()),
        Resolution::Cancelled => (ResumeStatus::Cancelled, None),
    };
    Some(ResumeEntry {
        interrupt_id: pending.interrupt.id.clone(),
        status,
        payload,
        metadata: None,
    })
}

/// The legacy resume value: the payload itself (`null` when none); a
/// cancel is the value ag-ui-langgraph itself gives the graph for a
/// cancelled `resume[]` entry, `{"__agui_cancelled__": true}`, so that a
/// graph sees a cancel the same way on both channels.
fn command_resume(answer: &Resolution) -> Value {
    match answer {
        Resolution::Resolved { payload } => payload.clone().unwrap_or(Value::Null),
        Resolution::Cancelled => {
            let mut cancel = Object::new();
            cancel.insert("__agui_cancelled__".to_owned(), Value::Bool(true));
            Value::Object(cancel)
        }
    }
}

/// `props` with `command.resume` set to `resume` (other keys kept; props
/// that are not an object are replaced by one).
pub(crate) fn with_command_resume(props: &Value, resume: Value) -> Value {
    let mut props = match props {
        Value::Object(map) => map.clone(),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) | Value::Array(_) => {
            Object::new()
        }
    };
    let command = props
        .entry("command")
        .or_insert_with(|| Value::Object(Object::new()));
    if !command.is_object() {
        *command = Value::Object(Object::new());
    }
    if let Value::Object(command) = command {
        command.insert("resume".to_owned(), resume);
    }
    Value::Object(props)
}

// ---------------------------------------------------------------------------
// Legacy events
// ---------------------------------------------------------------------------

/// The `on_interrupt` events of a run: the first `max` kept, all counted
/// (so that a flood costs a counter, not memory).
#[derive(Debug, Default)]
pub(crate) struct LegacyInterrupts {
    pub(crate) kept: Vec<Interrupt>,
    pub(crate) seen: usize,
}

impl LegacyInterrupts {
    /// Notes one `on_interrupt` event's value.
    pub(crate) fn note(&mut self, value: Option<&Value>, max: usize) {
        self.seen = self.seen.saturating_add(1);
        if self.kept.len() < max {
            let id = format!("{LEGACY_EVENT}-{}", self.seen);
            self.kept.push(legacy_interrupt(id, value));
        }
    }
}

/// An interrupt from a legacy event's value, read as ag-ui-langgraph maps
/// its own interrupts: the value is JSON text (ag-ui-langgraph sends the
/// `interrupt()` value serialized) or JSON; an object gives `reason`,
/// `message`, `toolCallId`, `responseSchema`, `expiresAt` (camelCase or
/// snake_case), a string is the message.
fn legacy_interrupt(id: String, value: Option<&Value>) -> Interrupt {
    let parsed = match value {
        Some(Value::String(text)) => {
            serde_json::from_str::<Value>(text).unwrap_or_else(|_| Value::String(text.clone()))
        }
        Some(other) => other.clone(),
        None => Value::Null,
    };
    let field = |camel: &str, snake: &str| {
        parsed
            .get(camel)
            .filter(|v| !v.is_null())
            .or_else(|| parsed.get(snake).filter(|v| !v.is_null()))
    };
    let text = |camel: &str, snake: &str| {
        field(camel, snake)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    Interrupt {
        id,
        reason: text("reason", "reason").unwrap_or_else(|| LEGACY_REASON.to_owned()),
        message: match &parsed {
            Value::String(s) => Some(s.clone()),
            Value::Null
            | Value::Bool(_)
            | Value::Number(_)
            | Value::Array(_)
            | Value::Object(_) => text("message", "message"),
        },
        tool_call_id: text("toolCallId", "tool_call_id"),
        expires_at: text("expiresAt", "expires_at"),
        response_schema: field("responseSchema", "response_schema")
            .and_then(Value::as_object)
            .cloned(),
        metadata: None,
        subagent_run_id: None,
    }
}

// ---------------------------------------------------------------------------
// Expiry
// ---------------------------------------------------------------------------

/// True when `interrupt` has an `expiresAt` at or before `now_ms`
/// (milliseconds since 1970-01-01 UTC). An `expiresAt` that cannot be read
/// never expires, as in the reference (an invalid date compares false).
pub fn is_expired(interrupt: &Interrupt, now_ms: i64) -> bool {
    interrupt
        .expires_at
        .as_deref()
        .and_then(expiry_ms)
        .is_some_and(|at| at <= now_ms)
}

/// An ISO 8601 / RFC 3339 time as milliseconds since 1970-01-01 UTC:
/// `YYYY-MM-DD`, optionally `THH:MM`, `:SS`, `.fraction`, and `Z` or
/// `±HH:MM`; without a zone it is read as UTC (the reference's
/// `Date` reads a date-time without a zone as local time). `None` when it
/// is not such a time.
pub fn expiry_ms(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let year = digits(b, 0, 4)?;
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let (month, day) = (digits(b, 5, 2)?, digits(b, 8, 2)?);
    let days = days_from_civil(year, month, day)?;
    let (of_day, rest) = match b.get(10) {
        None => (0, b.get(10..)?),
        Some(b'T' | b't' | b' ') => time_of_day(b.get(11..)?)?,
        Some(_) => return None,
    };
    let offset = zone_ms(rest)?;
    Some(days * 86_400_000 + of_day - offset)
}

/// `HH:MM[:SS[.fff…]]` → (milliseconds into the day, the rest).
fn time_of_day(b: &[u8]) -> Option<(i64, &[u8])> {
    let (h, m) = (digits(b, 0, 2)?, digits(b, 3, 2)?);
    if b.get(2) != Some(&b':') || h > 23 || m > 59 {
        return None;
    }
    let mut ms = (h * 60 + m) * 60_000;
    let mut at = 5;
    if b.get(5) == Some(&b':') {
        let s = digits(b, 6, 2)?;
        if s > 60 {
            return None;
        }
        ms += s * 1000;
        at = 8;
        if b.get(8) == Some(&b'.') {
            at = 9;
            let mut scale = 100;
            while let Some(d) = b.get(at).filter(|d| d.is_ascii_digit()) {
                ms += i64::from(d - b'0') * scale;
                scale /= 10;
                at += 1;
            }
            if at == 9 {
                return None;
            }
        }
    }
    Some((ms, b.get(at..)?))
}

/// `""`, `Z` or `±HH:MM` → the zone's offset from UTC in milliseconds.
fn zone_ms(b: &[u8]) -> Option<i64> {
    match b.first() {
        None => Some(0),
        Some(b'Z' | b'z') if b.len() == 1 => Some(0),
        Some(sign @ (b'+' | b'-')) if b.len() == 6 && b.get(3) == Some(&b':') => {
            let minutes = digits(b, 1, 2)? * 60 + digits(b, 4, 2)?;
            let ms = minutes * 60_000;
            Some(if *sign == b'-' { -ms } else { ms })
        }
        Some(_) => None,
    }
}

/// `len` ASCII digits at `at` as a number.
fn digits(b: &[u8], at: usize, len: usize) -> Option<i64> {
    let part = b.get(at..at.checked_add(len)?)?;
    part.iter().try_fold(0i64, |n, d| {
        d.is_ascii_digit().then(|| n * 10 + i64::from(d - b'0'))
    })
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
/// civil-calendar arithmetic), `None` for a month or day out of range.
fn days_from_civil(year: i64, month: i64, day: i64) -> Option<i64> {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    let last = *month_days.get(usize::try_from(month.checked_sub(1)?).ok()?)?;
    if day < 1 || day > last {
        return None;
    }
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

#[cfg(test)]
#[path = "interrupts_tests.rs"]
mod conversation_tests;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn expiry_times() {
        assert_eq!(expiry_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(expiry_ms("1970-01-01"), Some(0));
        assert_eq!(expiry_ms("1970-01-02T00:00:01.5Z"), Some(86_401_500));
        assert_eq!(expiry_ms("2000-03-01T00:00:00Z"), Some(951_868_800_000));
        assert_eq!(
            expiry_ms("2026-12-05T08:10:00+01:00"),
            expiry_ms("2026-12-05T07:10:00Z")
        );
        assert_eq!(
            expiry_ms("2026-12-05T07:10-00:30"),
            expiry_ms("2026-12-05T07:40:00Z")
        );
        for bad in [
            "",
            "soon",
            "2026-13-01",
            "2026-02-30",
            "2026-12-05T25:00Z",
            "2026-12-05T10:00:00+1",
            "2026-12-05T10:00:00.Z",
            "2026-12-05x",
        ] {
            assert_eq!(expiry_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn legacy_values_read_like_ag_ui_langgraph() {
        let text = json!("{\"message\": \"Unlock?\", \"response_schema\": {\"type\": \"object\"}, \"expiresAt\": \"2020-01-01\"}");
        let i = legacy_interrupt("x".into(), Some(&text));
        assert_eq!(i.reason, LEGACY_REASON);
        assert_eq!(i.message.as_deref(), Some("Unlock?"));
        assert!(i.response_schema.is_some());
        assert!(is_expired(&i, 1_577_836_800_000));
        assert!(!is_expired(&i, 1_577_836_799_999));
        let plain = legacy_interrupt("y".into(), Some(&json!("not json: a question")));
        assert_eq!(plain.message.as_deref(), Some("not json: a question"));
        let quoted = legacy_interrupt("z".into(), Some(&json!("\"a question\"")));
        assert_eq!(quoted.message.as_deref(), Some("a question"));
        let object = legacy_interrupt(
            "w".into(),
            Some(&json!({"reason": "r", "tool_call_id": "c"})),
        );
        assert_eq!(
            (object.reason.as_str(), object.tool_call_id.as_deref()),
            ("r", Some("c"))
        );
    }

    #[test]
    fn command_resume_keeps_other_props() {
        let props = json!({"a": 1, "command": {"goto": "n"}});
        assert_eq!(
            with_command_resume(&props, json!({"approved": true})),
            json!({"a": 1, "command": {"goto": "n", "resume": {"approved": true}}})
        );
        assert_eq!(
            with_command_resume(&json!([1]), Value::Null),
            json!({"command": {"resume": null}})
        );
        assert_eq!(
            command_resume(&Resolution::Cancelled),
            json!({"__agui_cancelled__": true})
        );
    }
}
