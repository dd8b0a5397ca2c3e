//! The device's side of an interrupt (docs/SPEC.md sections 10 and 11): the
//! questions a run ends with, read from its `RUN_FINISHED`, and the
//! `RESUME` line that answers one.
//!
//! An agent that needs a person ends the run with `RUN_FINISHED` whose
//! `outcome` is `{"type":"interrupt","interrupts":[{id, reason, message?,
//! toolCallId?, ...}]}`. [`OutcomeText`] keeps that `outcome`'s JSON text as
//! the pipeline's [`Output`]s go by (nothing of any other frame), and
//! [`OutcomeText::questions`] decodes it into [`Question`]s of fixed size.
//! The device asks its person, then writes one [`resume`] line per
//! question and `RUN`.
//!
//! ```
//! use agui_core::pipeline::DefaultPipeline;
//! use agui_core::reply::{resume, Answer, OutcomeText, APPROVED};
//!
//! let stream = br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}
//! {"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"tool_call","message":"Open \"the door\"?"}]}}
//! "#;
//! let mut pipeline = DefaultPipeline::new();
//! let mut outcome = OutcomeText::<512>::new();
//! let mut ended = false;
//! pipeline.feed(stream, |out| ended |= outcome.on_output(&out).unwrap()).unwrap();
//! assert!(ended);
//! let mut scratch = [0u8; 64];
//! let questions = outcome.questions::<2, 48>(&mut scratch).unwrap();
//! assert_eq!(questions[0].message.as_deref(), Some("Open \"the door\"?"));
//!
//! let mut line = [0u8; 128];
//! let n = resume(&mut line, &questions[0].id, Answer::Resolved(Some(APPROVED))).unwrap();
//! assert_eq!(
//!     core::str::from_utf8(&line[..n]).unwrap(),
//!     r#"{"type":"RESUME","interruptId":"i1","status":"resolved","payload":{"approved":true}}"#
//! );
//! ```

use core::fmt;

use serde::{Deserialize, Serialize};

use crate::decode::{Field, PartKind};
use crate::event::EventType;
use crate::pipeline::Output;

/// The payload that approves a tool call: `{"approved":true}`.
pub const APPROVED: &str = r#"{"approved":true}"#;

/// The payload that denies a tool call: `{"approved":false}`.
pub const DENIED: &str = r#"{"approved":false}"#;

/// Why the outcome could not be kept or read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum OutcomeError {
    /// The outcome's JSON is longer than the buffer (`limit` bytes): it was
    /// not kept (a cut question would be answered wrongly).
    TooLong {
        /// The buffer's size.
        limit: usize,
    },
    /// The outcome is not `{"type", "interrupts"?: [...]}` with questions
    /// that fit: more than the list holds, or a text longer than its field.
    Decode(serde_json_core::de::Error),
}

impl OutcomeError {
    /// What went wrong, in a few words (for a device's log, without
    /// formatting).
    pub const fn as_str(&self) -> &'static str {
        match self {
            OutcomeError::TooLong { .. } => "the run's outcome is longer than the device's buffer",
            OutcomeError::Decode(_) => {
                "the run's outcome is not an interrupt list this device can hold"
            }
        }
    }
}

impl fmt::Display for OutcomeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutcomeError::TooLong { limit } => write!(
                f,
                "the run's outcome is longer than the {limit}-byte buffer; use a larger OutcomeText"
            ),
            OutcomeError::Decode(e) => write!(
                f,
                "the run's outcome is not an interrupt list this device can hold: {e}"
            ),
        }
    }
}

impl core::error::Error for OutcomeError {}

/// Keeps the `outcome` of the last `RUN_FINISHED` as JSON text, in `N`
/// bytes.
///
/// Feed it every [`Output`] with [`on_output`](Self::on_output). The
/// fragments of a frame's `outcome` arrive before its event; they are kept
/// when that event is `RUN_FINISHED`, dropped when the frame fails. A
/// `RUN_STARTED` forgets the previous run's outcome.
#[derive(Debug, Clone)]
pub struct OutcomeText<const N: usize> {
    buf: [u8; N],
    len: usize,
    /// A fragment of the current frame's outcome did not fit.
    overflow: bool,
    /// The text is a finished run's outcome.
    kept: bool,
}

impl<const N: usize> Default for OutcomeText<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> OutcomeText<N> {
    /// Empty.
    pub const fn new() -> Self {
        OutcomeText {
            buf: [0; N],
            len: 0,
            overflow: false,
            kept: false,
        }
    }

    /// Takes one pipeline output; `Ok(true)` when it is a `RUN_FINISHED`
    /// that has an outcome (now in [`text`](Self::text)).
    ///
    /// # Errors
    /// [`OutcomeError::TooLong`] at a `RUN_FINISHED` whose outcome did not
    /// fit; nothing is kept then.
    pub fn on_output(&mut self, out: &Output<'_>) -> Result<bool, OutcomeError> {
        match out {
            Output::Part(part) if part.field == Field::Outcome && part.kind == PartKind::Raw => {
                if part.first {
                    self.clear();
                }
                self.push(part.text.as_str().as_bytes());
                Ok(false)
            }
            Output::Part(_) => Ok(false),
            Output::Event(ev) if ev.kind == EventType::RunFinished => self.finish(),
            Output::Event(ev) if ev.kind == EventType::RunStarted => {
                self.clear();
                Ok(false)
            }
            // Only RUN_FINISHED carries an outcome: any other event leaves
            // the last one as it was.
            Output::Event(_) => Ok(false),
            Output::Error(_) => {
                if !self.kept {
                    self.clear();
                }
                Ok(false)
            }
        }
    }

    /// The frame's event is RUN_FINISHED: keep what its parts gave.
    fn finish(&mut self) -> Result<bool, OutcomeError> {
        if self.overflow {
            self.clear();
            return Err(OutcomeError::TooLong { limit: N });
        }
        self.kept = self.len > 0;
        Ok(self.kept)
    }

    fn clear(&mut self) {
        self.len = 0;
        self.overflow = false;
        self.kept = false;
    }

    fn push(&mut self, bytes: &[u8]) {
        let end = self.len.saturating_add(bytes.len());
        match self.buf.get_mut(self.len..end) {
            Some(dst) => {
                dst.copy_from_slice(bytes);
                self.len = end;
            }
            None => self.overflow = true,
        }
    }

    /// The last finished run's outcome as JSON text (empty when it had
    /// none).
    pub fn text(&self) -> &str {
        let bytes = match self.kept {
            true => self.buf.get(..self.len).unwrap_or_default(),
            false => &[],
        };
        // The pipeline handed over valid UTF-8, copied whole.
        core::str::from_utf8(bytes).unwrap_or_default()
    }

    /// The questions of an `interrupt` outcome: at most `K`, each text at
    /// most `S` bytes (unescaped through `scratch`, which must hold the
    /// longest). Empty when the run had no outcome or another kind of
    /// outcome (`success`).
    ///
    /// # Errors
    /// [`OutcomeError::Decode`] when the outcome is not an object with a
    /// string `type`, or its questions do not fit.
    pub fn questions<const K: usize, const S: usize>(
        &self,
        scratch: &mut [u8],
    ) -> Result<heapless::Vec<Question<S>, K>, OutcomeError> {
        if self.text().is_empty() {
            return Ok(heapless::Vec::new());
        }
        let (outcome, _): (Outcome<K, S>, usize) =
            serde_json_core::from_str_escaped(self.text(), scratch)
                .map_err(OutcomeError::Decode)?;
        match outcome.kind.as_str() {
            "interrupt" => Ok(outcome.interrupts),
            _ => Ok(heapless::Vec::new()),
        }
    }
}

/// The outcome's shape, as far as a device reads it.
#[derive(Deserialize)]
struct Outcome<const K: usize, const S: usize> {
    #[serde(rename = "type")]
    kind: heapless::String<16>,
    #[serde(default)]
    interrupts: heapless::Vec<Question<S>, K>,
}

/// One question of an interrupt outcome, as far as a device shows and
/// answers it (`responseSchema`, `expiresAt` and `metadata` are skipped).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Question<const S: usize> {
    /// The id a [`resume`] line answers.
    pub id: heapless::String<S>,
    /// Why the run paused (`tool_call` for an approval).
    pub reason: heapless::String<S>,
    /// The question for a person.
    #[serde(default)]
    pub message: Option<heapless::String<S>>,
    /// The tool call it concerns.
    #[serde(default, rename = "toolCallId")]
    pub tool_call_id: Option<heapless::String<S>>,
}

/// A person's answer to one question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer<'a> {
    /// Answered: the payload as JSON text (e.g. [`APPROVED`], [`DENIED`]),
    /// or none.
    Resolved(Option<&'a str>),
    /// Not answered: nobody decided.
    Cancelled,
}

#[derive(Serialize)]
struct ResumeLine<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(rename = "interruptId")]
    interrupt_id: &'a str,
    status: &'a str,
}

/// Writes the device line `{"type":"RESUME","interruptId":I,"status":S}`,
/// with `,"payload":P` for a resolved answer that has one, into `buf`;
/// returns its length. The payload is the caller's JSON text, written as
/// it is (the gateway refuses a line that is not JSON).
///
/// # Errors
/// `BufferFull` if `buf` is too small.
pub fn resume(
    buf: &mut [u8],
    interrupt_id: &str,
    answer: Answer<'_>,
) -> Result<usize, serde_json_core::ser::Error> {
    let (status, payload) = match answer {
        Answer::Resolved(payload) => ("resolved", payload),
        Answer::Cancelled => ("cancelled", None),
    };
    let line = ResumeLine {
        kind: "RESUME",
        interrupt_id,
        status,
    };
    let n = serde_json_core::to_slice(&line, buf)?;
    let Some(payload) = payload else {
        return Ok(n);
    };
    // `...}` becomes `...,"payload":P}`.
    let parts: [&[u8]; 3] = [b",\"payload\":", payload.as_bytes(), b"}"];
    let mut at = n.saturating_sub(1);
    for part in parts {
        let end = at.saturating_add(part.len());
        let dst = buf
            .get_mut(at..end)
            .ok_or(serde_json_core::ser::Error::BufferFull)?;
        dst.copy_from_slice(part);
        at = end;
    }
    Ok(at)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::device::{classify, DeviceLine};
    use crate::pipeline::DefaultPipeline;

    const ASKED: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"int-1","reason":"tool_call","message":"Approve unlock_door({\"door\":\"front\"})?","toolCallId":"c1","responseSchema":{"type":"object","properties":{"approved":{"type":"boolean"}},"required":["approved"]}},{"id":"int-2","reason":"confirm"}]}}
"#;

    /// Feeds `stream` whole and then a byte at a time; the outcome text
    /// must be the same.
    fn kept<const N: usize>(stream: &str) -> (Result<bool, OutcomeError>, OutcomeText<N>) {
        let mut whole = OutcomeText::<N>::new();
        let mut last = Ok(false);
        let mut p = DefaultPipeline::new();
        p.feed(stream.as_bytes(), |out| {
            let r = whole.on_output(&out);
            if r != Ok(false) {
                last = r;
            }
        })
        .unwrap();
        let mut bytewise = OutcomeText::<N>::new();
        let mut p = DefaultPipeline::new();
        for b in stream.as_bytes() {
            p.feed(core::slice::from_ref(b), |out| {
                let _ = bytewise.on_output(&out);
            })
            .unwrap();
        }
        assert_eq!(whole.text(), bytewise.text());
        (last, whole)
    }

    #[test]
    fn the_questions_of_an_interrupt_outcome() {
        let (ended, outcome) = kept::<512>(ASKED);
        assert_eq!(ended, Ok(true));
        assert!(outcome.text().starts_with(r#"{"type":"interrupt","#));
        let mut scratch = [0u8; 64];
        let questions = outcome.questions::<2, 48>(&mut scratch).unwrap();
        assert_eq!(questions.len(), 2);
        assert_eq!(questions[0].id.as_str(), "int-1");
        assert_eq!(questions[0].reason.as_str(), "tool_call");
        assert_eq!(
            questions[0].message.as_deref(),
            Some(r#"Approve unlock_door({"door":"front"})?"#)
        );
        assert_eq!(questions[0].tool_call_id.as_deref(), Some("c1"));
        assert_eq!(questions[1].message, None);
    }

    #[test]
    fn no_outcome_or_a_success_asks_nothing() {
        let plain = "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\
                     {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n";
        let (ended, outcome) = kept::<64>(plain);
        assert_eq!(ended, Ok(false));
        assert_eq!(outcome.text(), "");
        let mut scratch = [0u8; 16];
        assert!(outcome.questions::<1, 16>(&mut scratch).unwrap().is_empty());
        let success = "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\
                       {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\",\"outcome\":{\"type\":\"success\"}}\n";
        let (ended, outcome) = kept::<64>(success);
        assert_eq!(ended, Ok(true));
        assert!(outcome.questions::<1, 16>(&mut scratch).unwrap().is_empty());
    }

    #[test]
    fn a_new_run_forgets_the_last_outcome() {
        let again = format_two(ASKED);
        let (_, outcome) = kept::<512>(&again);
        assert_eq!(outcome.text(), "");
    }

    /// `ASKED` followed by a new run that is still going.
    fn format_two(first: &str) -> heapless::String<1024> {
        let mut s = heapless::String::new();
        s.push_str(first).unwrap();
        s.push_str("{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r2\"}\n")
            .unwrap();
        s
    }

    #[test]
    fn too_long_or_too_many_is_an_error_never_a_cut() {
        let (ended, outcome) = kept::<64>(ASKED);
        assert_eq!(ended, Err(OutcomeError::TooLong { limit: 64 }));
        assert_eq!(outcome.text(), "");
        let (_, outcome) = kept::<512>(ASKED);
        let mut scratch = [0u8; 64];
        // Two questions, room for one.
        assert!(matches!(
            outcome.questions::<1, 48>(&mut scratch),
            Err(OutcomeError::Decode(_))
        ));
        // A message longer than its field.
        assert!(matches!(
            outcome.questions::<2, 8>(&mut scratch),
            Err(OutcomeError::Decode(_))
        ));
    }

    #[test]
    fn resume_lines_are_device_lines() {
        let mut buf = [0u8; 96];
        let cases: [(Answer<'_>, &str); 4] = [
            (
                Answer::Resolved(Some(DENIED)),
                r#"{"type":"RESUME","interruptId":"a\"b","status":"resolved","payload":{"approved":false}}"#,
            ),
            (
                Answer::Resolved(Some("7")),
                r#"{"type":"RESUME","interruptId":"a\"b","status":"resolved","payload":7}"#,
            ),
            (
                Answer::Resolved(None),
                r#"{"type":"RESUME","interruptId":"a\"b","status":"resolved"}"#,
            ),
            (
                Answer::Cancelled,
                r#"{"type":"RESUME","interruptId":"a\"b","status":"cancelled"}"#,
            ),
        ];
        for (answer, want) in cases {
            let n = resume(&mut buf, "a\"b", answer).unwrap();
            assert_eq!(core::str::from_utf8(&buf[..n]).unwrap(), want);
            assert_eq!(classify(&buf[..n]), Ok(DeviceLine::Resume));
        }
        let mut small = [0u8; 60];
        assert!(resume(&mut small, "id", Answer::Resolved(Some(APPROVED))).is_err());
    }
}
