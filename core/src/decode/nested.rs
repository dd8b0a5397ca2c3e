//! Checks of the two nested values the core validates itself: the strict
//! `RUN_FINISHED.outcome` and the `usage` records of RUN_FINISHED / RUN_ERROR.
//!
//! They are small and need no buffer, so the core checks them as their
//! tokens stream past. Errors are recorded, not raised: the field may turn
//! out to be an unknown extra field of the event's type (to be ignored),
//! which only the schema check at the end of the frame knows.

use super::{Expect, Field, Need};
use crate::error::Broken;
use crate::json::Token;

/// What a member of a nested record holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Member {
    /// A string.
    Str,
    /// An object.
    Obj,
    /// A token count: a non-negative integer.
    Count,
}

/// The members of a nested record: wire name, need, value. Unknown
/// members are allowed and not inspected.
pub type Record = &'static [(&'static str, Need, Member)];

/// One interrupt of `RUN_FINISHED.outcome.interrupts` (the alloc layer's
/// `Interrupt` reads the same names).
pub const INTERRUPT: Record = &[
    ("id", Need::Req, Member::Str),
    ("reason", Need::Req, Member::Str),
    ("message", Need::Opt, Member::Str),
    ("toolCallId", Need::Opt, Member::Str),
    ("responseSchema", Need::Opt, Member::Obj),
    ("expiresAt", Need::Opt, Member::Str),
    ("metadata", Need::Opt, Member::Obj),
];

/// One record of `usage` (RUN_FINISHED, RUN_ERROR).
pub const USAGE: Record = &[
    ("provider", Need::Opt, Member::Str),
    ("model", Need::Opt, Member::Str),
    ("inputTokens", Need::Opt, Member::Count),
    ("outputTokens", Need::Opt, Member::Count),
    ("totalTokens", Need::Opt, Member::Count),
    ("reasoningTokens", Need::Opt, Member::Count),
    ("cachedInputTokens", Need::Opt, Member::Count),
];

/// The bit of a record's member in the seen-set (required members only).
fn required_bit(record: Record, at: usize) -> u8 {
    match record.get(at) {
        Some((_, Need::Req, _)) if at < 8 => 1u8 << at,
        Some(_) | None => 0,
    }
}

/// The bits of all required members of a record.
fn required_mask(record: Record) -> u8 {
    (0..record.len()).fold(0, |mask, at| mask | required_bit(record, at))
}

/// How a record's member is checked: its value, and its seen-bit.
fn lookup(record: Record, key: &str) -> Option<Slot> {
    let at = record.iter().position(|(name, _, _)| *name == key)?;
    let (_, _, member) = record.get(at)?;
    Some(match member {
        Member::Str => Slot::Str {
            bit: required_bit(record, at),
        },
        Member::Obj => Slot::Obj,
        Member::Count => Slot::Count,
    })
}

/// Which nested value is being checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Which {
    Outcome,
    Usage,
}

/// The value a key at the current level announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// Not inspected (unknown key, or an `any` value).
    Skip,
    /// A string; `bit` marks a required one seen in the current record.
    Str { bit: u8 },
    /// An object (interrupt `responseSchema`, `metadata`).
    Obj,
    /// `outcome.type`.
    OutcomeType,
    /// `outcome.interrupts`.
    Interrupts,
    /// A non-negative integer (usage token counts).
    Count,
}

/// The outcome's `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OutcomeType {
    Absent,
    Success,
    Interrupt,
    Other,
}

/// The streaming checker for `outcome` and `usage`.
#[derive(Debug, Clone)]
pub(crate) struct Checker {
    which: Option<Which>,
    /// Recorded errors for outcome and usage.
    errors: [Option<Broken>; 2],
    /// Our own nesting depth inside the field's value.
    depth: u8,
    /// While inside a container we do not inspect: the depth to return to.
    skip_to: Option<u8>,
    in_key: bool,
    key: heapless::String<20>,
    member: Slot,
    /// Required members seen in the current record.
    seen: u8,
    outcome: OutcomeType,
    has_interrupts: bool,
    interrupts: u32,
    /// Text of `outcome.type` while it streams.
    text: heapless::String<12>,
    text_long: bool,
    number: NumberCheck,
    /// Inside a number (its first fragment has been seen).
    in_number: bool,
}

impl Checker {
    pub(crate) const fn new() -> Self {
        Checker {
            which: None,
            errors: [None; 2],
            depth: 0,
            skip_to: None,
            in_key: false,
            key: heapless::String::new(),
            member: Slot::Skip,
            seen: 0,
            outcome: OutcomeType::Absent,
            has_interrupts: false,
            interrupts: 0,
            text: heapless::String::new(),
            text_long: false,
            number: NumberCheck::new(),
            in_number: false,
        }
    }

    /// A top-level field's value begins.
    pub(crate) fn begin(&mut self, field: Option<Field>) {
        if !matches!(field, Some(Field::Outcome | Field::Usage)) {
            // Nothing to check: the rest of the state only matters while
            // `which` is set, and is reset when a checked value begins.
            self.which = None;
            return;
        }
        let errors = self.errors;
        *self = Checker::new();
        self.errors = errors;
        self.which = match field {
            Some(Field::Outcome) => Some(Which::Outcome),
            Some(Field::Usage) => Some(Which::Usage),
            _ => None,
        };
        if let Some(w) = self.which {
            // A repeated key: JSON keeps the last value, so do we.
            self.set_error_slot(w, None);
        }
    }

    /// Whether the current field's value is being checked (its tokens are
    /// needed one by one).
    pub(crate) fn is_active(&self) -> bool {
        self.which.is_some()
    }

    /// The recorded error of the nested value checked as `expect`, if any.
    pub(crate) fn error(&self, expect: Expect) -> Option<Broken> {
        match expect {
            Expect::Outcome => self.errors[0],
            Expect::Usage => self.errors[1],
            Expect::Str
            | Expect::StrOrNull
            | Expect::Num
            | Expect::Bool
            | Expect::Obj
            | Expect::Arr
            | Expect::Any
            | Expect::OneOf { .. }
            | Expect::Json
            | Expect::Int
            | Expect::Parts
            | Expect::Patch
            | Expect::Input
            | Expect::OutcomeV1
            | Expect::UsageV1
            | Expect::SubagentOutcome => None,
        }
    }

    /// One token of the current field's value (from its first token on).
    pub(crate) fn token(&mut self, token: &Token<'_>) {
        let Some(which) = self.which else { return };
        if self.skipping(token) {
            return;
        }
        match token {
            Token::KeyStart => {
                self.in_key = true;
                self.key.clear();
            }
            Token::KeyEnd => {
                self.in_key = false;
                self.member = self.member_for(which);
            }
            Token::Text(t) => self.text(t),
            Token::Char(c) => self.text(c.encode_utf8(&mut [0u8; 4])),
            Token::StrEnd => self.string_end(which),
            Token::Number(t) => {
                // The first fragment starts the value: check its place.
                if !self.in_number {
                    self.in_number = true;
                    self.value(which, token);
                }
                self.number.push(t);
            }
            Token::NumberEnd => self.number_end(),
            Token::ObjectEnd | Token::ArrayEnd => self.close(which),
            Token::ObjectStart
            | Token::ArrayStart
            | Token::StrStart
            | Token::True
            | Token::False
            | Token::Null => self.value(which, token),
        }
    }

    /// Tracks depth inside a skipped container; true if the token is skipped.
    fn skipping(&mut self, token: &Token<'_>) -> bool {
        let Some(to) = self.skip_to else { return false };
        match token {
            Token::ObjectStart | Token::ArrayStart => self.depth = self.depth.saturating_add(1),
            Token::ObjectEnd | Token::ArrayEnd => {
                self.depth = self.depth.saturating_sub(1);
                if self.depth == to {
                    self.skip_to = None;
                }
            }
            Token::KeyStart
            | Token::KeyEnd
            | Token::StrStart
            | Token::StrEnd
            | Token::Text(_)
            | Token::Char(_)
            | Token::Number(_)
            | Token::NumberEnd
            | Token::True
            | Token::False
            | Token::Null => {}
        }
        true
    }

    fn set_error_slot(&mut self, which: Which, value: Option<Broken>) {
        let slot = match which {
            Which::Outcome => &mut self.errors[0],
            Which::Usage => &mut self.errors[1],
        };
        *slot = value;
    }

    fn fail(&mut self, which: Which, what: Broken) {
        let slot = match which {
            Which::Outcome => &mut self.errors[0],
            Which::Usage => &mut self.errors[1],
        };
        if slot.is_none() {
            *slot = Some(what);
        }
    }

    fn member_for(&mut self, which: Which) -> Slot {
        let key = self.key.as_str();
        match (which, self.depth) {
            (Which::Outcome, 1) => match key {
                "type" => Slot::OutcomeType,
                "interrupts" => Slot::Interrupts,
                _ => {
                    self.fail(which, Broken::OutcomeKey);
                    Slot::Skip
                }
            },
            (Which::Outcome, 3) => lookup(INTERRUPT, key).unwrap_or(Slot::Skip),
            (Which::Usage, 2) => lookup(USAGE, key).unwrap_or(Slot::Skip),
            _ => Slot::Skip,
        }
    }

    fn text(&mut self, t: &str) {
        if self.in_key {
            // Keys longer than the buffer match no known member.
            if self.key.push_str(t).is_err() {
                self.key.clear();
                let _ = self.key.push_str("\u{1}");
            }
        } else if self.member == Slot::OutcomeType && self.text.push_str(t).is_err() {
            self.text_long = true;
        }
    }

    /// The first token of a value at the current depth.
    fn value(&mut self, which: Which, token: &Token<'_>) {
        let is_container = matches!(token, Token::ObjectStart | Token::ArrayStart);
        match (which, self.depth) {
            (Which::Outcome, 0) | (Which::Usage, 0) => {}
            (Which::Outcome, 2) => self.interrupt_start(which, token),
            (Which::Usage, 1) => {
                if *token != Token::ObjectStart {
                    self.fail(which, Broken::UsageRecord);
                }
                self.seen = 0;
            }
            _ => self.member_value(which, token),
        }
        if is_container {
            let depth = self.depth;
            self.depth = depth.saturating_add(1);
            let inspected = matches!(
                (which, depth),
                (Which::Outcome, 0..=2) | (Which::Usage, 0..=1)
            );
            let interrupts = self.member == Slot::Interrupts && depth == 1;
            if !inspected && !interrupts {
                self.skip_to = Some(depth);
            }
        }
        // A string's or number's member is settled at its end.
        if self.depth <= 3 && !matches!(token, Token::StrStart | Token::Number(_)) {
            self.member = Slot::Skip;
        }
    }

    fn interrupt_start(&mut self, which: Which, token: &Token<'_>) {
        if *token != Token::ObjectStart {
            self.fail(which, Broken::InterruptShape);
        }
        self.interrupts = self.interrupts.saturating_add(1);
        self.seen = 0;
    }

    fn member_value(&mut self, which: Which, token: &Token<'_>) {
        let ok = match self.member {
            Slot::Skip => true,
            Slot::Str { .. } | Slot::OutcomeType => *token == Token::StrStart,
            Slot::Obj => *token == Token::ObjectStart,
            Slot::Interrupts => {
                self.has_interrupts = true;
                *token == Token::ArrayStart
            }
            Slot::Count => matches!(token, Token::Number(_)),
        };
        if !ok {
            self.fail(which, self.member_error());
        }
        if let (Slot::Str { bit }, Token::StrStart) = (self.member, token) {
            self.seen |= bit;
        }
        if self.member == Slot::OutcomeType {
            self.text.clear();
            self.text_long = false;
        }
    }

    fn member_error(&self) -> Broken {
        match self.member {
            Slot::OutcomeType => Broken::OutcomeType,
            Slot::Interrupts => Broken::InterruptsArray,
            Slot::Obj => Broken::InterruptObjects,
            Slot::Count => Broken::TokenCount,
            Slot::Skip | Slot::Str { .. } => Broken::NotString,
        }
    }

    fn string_end(&mut self, which: Which) {
        if self.member == Slot::OutcomeType {
            self.outcome = match (self.text_long, self.text.as_str()) {
                (false, "success") => OutcomeType::Success,
                (false, "interrupt") => OutcomeType::Interrupt,
                _ => OutcomeType::Other,
            };
            if self.outcome == OutcomeType::Other {
                self.fail(which, Broken::OutcomeType);
            }
            self.member = Slot::Skip;
        }
    }

    fn number_end(&mut self) {
        self.in_number = false;
        let ok = self.number.is_non_negative_integer();
        self.number = NumberCheck::new();
        if self.member == Slot::Count {
            if !ok {
                self.fail(Which::Usage, Broken::TokenCount);
            }
            self.member = Slot::Skip;
        } else if let Slot::Str { .. } = self.member {
            // Already failed at the number's first fragment.
            self.member = Slot::Skip;
        }
    }

    fn close(&mut self, which: Which) {
        self.depth = self.depth.saturating_sub(1);
        match (which, self.depth) {
            (Which::Outcome, 2)
                if self.seen & required_mask(INTERRUPT) != required_mask(INTERRUPT) =>
            {
                self.fail(which, Broken::InterruptIdReason);
            }
            (Which::Outcome, 0) => self.outcome_end(which),
            _ => {}
        }
    }

    fn outcome_end(&mut self, which: Which) {
        match self.outcome {
            OutcomeType::Absent => self.fail(which, Broken::OutcomeTypeMissing),
            OutcomeType::Success if self.has_interrupts => {
                self.fail(which, Broken::SuccessInterrupts)
            }
            OutcomeType::Interrupt if !self.has_interrupts => {
                self.fail(which, Broken::InterruptNeedsInterrupts)
            }
            OutcomeType::Interrupt if self.interrupts == 0 => {
                self.fail(which, Broken::NoInterrupts)
            }
            OutcomeType::Success | OutcomeType::Interrupt | OutcomeType::Other => {}
        }
    }
}

/// Whether a number, streamed as text, is a non-negative integer (as
/// JavaScript's `Number.isInteger(x) && x >= 0` would say), without
/// converting it: the last significant digit, moved by the exponent, must
/// not land right of the decimal point.
#[derive(Debug, Clone, Copy)]
struct NumberCheck {
    negative: bool,
    /// 0: integer part, 1: fraction, 2: exponent.
    part: u8,
    nonzero: bool,
    /// Trailing zeros of the integer part.
    int_zeros: u32,
    /// Fraction digits up to and including the last non-zero one.
    fraction: u32,
    fraction_len: u32,
    exp_negative: bool,
    exp: u32,
}

impl NumberCheck {
    const fn new() -> Self {
        NumberCheck {
            negative: false,
            part: 0,
            nonzero: false,
            int_zeros: 0,
            fraction: 0,
            fraction_len: 0,
            exp_negative: false,
            exp: 0,
        }
    }

    fn push(&mut self, text: &str) {
        for b in text.bytes() {
            match (b, self.part) {
                (b'-', 0) => self.negative = true,
                (b'-', _) => self.exp_negative = true,
                (b'.', _) => self.part = 1,
                (b'e' | b'E', _) => self.part = 2,
                (b'0', 0) => self.int_zeros = self.int_zeros.saturating_add(1),
                (b'1'..=b'9', 0) => {
                    self.nonzero = true;
                    self.int_zeros = 0;
                }
                (b'0'..=b'9', 1) => {
                    self.fraction_len = self.fraction_len.saturating_add(1);
                    if b != b'0' {
                        self.nonzero = true;
                        self.fraction = self.fraction_len;
                    }
                }
                (b'0'..=b'9', _) => {
                    self.exp = self
                        .exp
                        .saturating_mul(10)
                        .saturating_add(u32::from(b.saturating_sub(b'0')));
                }
                _ => {}
            }
        }
    }

    fn is_non_negative_integer(&self) -> bool {
        if !self.nonzero {
            return true; // 0, -0, 0.0e5: zero is a non-negative integer
        }
        let exp = if self.exp_negative {
            0i64.saturating_sub(i64::from(self.exp))
        } else {
            i64::from(self.exp)
        };
        // Position of the last significant digit: negative inside the fraction.
        let last = if self.fraction > 0 {
            0i64.saturating_sub(i64::from(self.fraction))
        } else {
            i64::from(self.int_zeros)
        };
        !self.negative && last.saturating_add(exp) >= 0
    }
}
