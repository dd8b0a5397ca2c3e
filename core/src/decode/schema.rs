//! The top-level schema of every event type (SPEC section 2), as data.

use core::fmt;

use super::{Decoder, Ext, Field, Kind};
use crate::error::Detail;
use crate::event::EventType;

/// What a field's value must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Expect {
    /// A string.
    Str,
    /// A string, or `null` meaning absent.
    StrOrNull,
    /// A number.
    Num,
    /// `true` or `false`.
    Bool,
    /// An object.
    Obj,
    /// An array.
    Arr,
    /// Anything, `null` included.
    Any,
    /// One of the strings of `values`.
    OneOf {
        /// The allowed strings.
        values: &'static [&'static str],
    },
    /// The strict RUN_FINISHED outcome object, or `null` meaning absent.
    Outcome,
    /// An array of token-usage records.
    Usage,
    /// 1.0: any JSON value, `null` included, that must be there when
    /// required (unlike [`Any`](Expect::Any), which a required field may lack).
    Json,
    /// 1.0 `timestamp`: an integer in [-(2^53-1), 2^53-1] as JavaScript
    /// reads the literal.
    Int,
    /// 1.0 TOOL_CALL_RESULT `content`: a string or an array of content parts.
    Parts,
    /// 1.0: a JSON Patch, each operation checked when decoded.
    Patch,
    /// 1.0 `RUN_STARTED.input`: a RunAgentInput object.
    Input,
    /// 1.0 RUN_FINISHED outcome: success (with `pendingToolCallIds`),
    /// interrupt or cancelled; an unknown one is stripped.
    OutcomeV1,
    /// 1.0 token-usage records (counts bounded by 2^53-1).
    UsageV1,
    /// 1.0 SUBAGENT_FINISHED outcome: success or suspended.
    SubagentOutcome,
}

/// How a message names what the schema wants ("a string", "one of ...").
///
/// Written when shown, not stored: an image that never shows an error's
/// text (the serial firmware) carries none of it.
impl fmt::Display for Expect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Expect::Str | Expect::StrOrNull => "a string",
            Expect::Num => "a number",
            Expect::Bool => "a boolean",
            Expect::Obj | Expect::Outcome | Expect::OutcomeV1 | Expect::SubagentOutcome => {
                "an object"
            }
            Expect::Input => "an object",
            Expect::Arr | Expect::Usage | Expect::UsageV1 | Expect::Patch => "an array",
            Expect::Any | Expect::Json => "any value",
            Expect::Int => "an integer",
            Expect::Parts => "a string or an array of content parts",
            Expect::OneOf { values } => return one_of(f, values),
        };
        f.write_str(name)
    }
}

/// `"a"`, `"a" or "b"`, or `one of "a", "b", "c"`.
fn one_of(f: &mut fmt::Formatter<'_>, values: &[&str]) -> fmt::Result {
    match values {
        [one] => write!(f, "\"{one}\""),
        [a, b] => write!(f, "\"{a}\" or \"{b}\""),
        _ => {
            f.write_str("one of ")?;
            for (i, v) in values.iter().enumerate() {
                let sep = if i == 0 { "" } else { ", " };
                write!(f, "{sep}\"{v}\"")?;
            }
            Ok(())
        }
    }
}

impl Expect {
    fn admits(self, kind: Kind) -> bool {
        match self {
            Expect::Str | Expect::OneOf { .. } => kind == Kind::String,
            Expect::StrOrNull => matches!(kind, Kind::String | Kind::Null),
            Expect::Num | Expect::Int => kind == Kind::Number,
            Expect::Bool => kind == Kind::Bool,
            Expect::Obj | Expect::Input | Expect::OutcomeV1 | Expect::SubagentOutcome => {
                kind == Kind::Object
            }
            Expect::Arr | Expect::Usage | Expect::UsageV1 | Expect::Patch => kind == Kind::Array,
            Expect::Parts => matches!(kind, Kind::String | Kind::Array),
            Expect::Any | Expect::Json => true,
            Expect::Outcome => matches!(kind, Kind::Object | Kind::Null),
        }
    }
}

/// Whether an event must carry a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// The field must be present (`null` counts as present only for
    /// [`Expect::Any`] and the `*OrNull` kinds).
    Req,
    /// The field may be absent.
    Opt,
}

use Expect::*;
use Need::*;

/// An event type's fields: name, need, and what the value must be.
pub type Schema = &'static [(Field, Need, Expect)];

/// Fields every event may carry.
const COMMON: Schema = &[
    (Field::Timestamp, Opt, Num),
    (Field::RawEvent, Opt, Any),
    (Field::Metadata, Opt, Obj),
];

/// Checks the decoded frame against the schema of `kind`.
pub(crate) fn check<const ID: usize, const DEPTH: usize, X: Ext<ID>>(
    dec: &Decoder<ID, DEPTH, X>,
    kind: EventType,
) -> Result<(), Detail> {
    for &(field, need, expect) in kind.schema().iter().chain(COMMON) {
        check_field(dec, field, need, expect)?;
    }
    Ok(())
}

fn check_field<const ID: usize, const DEPTH: usize, X: Ext<ID>>(
    dec: &Decoder<ID, DEPTH, X>,
    field: Field,
    need: Need,
    expect: Expect,
) -> Result<(), Detail> {
    let Some(found) = dec.kind_of(field) else {
        return match need {
            Req if expect != Any => Err(Detail::Missing(field)),
            Req | Opt => Ok(()),
        };
    };
    if !expect.admits(found) {
        return Err(Detail::WrongType {
            field,
            expected: expect,
            found,
        });
    }
    if let OneOf { values, .. } = expect {
        let text = dec.enum_text(field).unwrap_or("(a long value)");
        if !values.contains(&text) {
            return Err(Detail::BadValue {
                field,
                expected: expect,
                found: crate::error::error_text(text),
            });
        }
    }
    if matches!(expect, Outcome | Usage) {
        if let Some(what) = dec.nested.error(expect) {
            return Err(Detail::Nested { field, what });
        }
    }
    Ok(())
}

/// [`check_field`] under the 1.0 rules: a required [`Json`] value must be
/// there, and the values 1.0 checks nested get their verdict.
pub(crate) fn check_field_v1<const ID: usize, const DEPTH: usize, X: Ext<ID>>(
    dec: &Decoder<ID, DEPTH, X>,
    field: Field,
    need: Need,
    expect: Expect,
) -> Result<(), Detail> {
    if dec.kind_of(field).is_none() {
        return match need {
            Req => Err(Detail::Missing(field)),
            Opt => Ok(()),
        };
    }
    match expect {
        Outcome | Usage => return check_field(dec, field, need, expect),
        Str | StrOrNull | Num | Bool | Obj | Any | Json | OneOf { .. } => {
            return check_field(dec, field, need, expect)
        }
        // `Arr`: `MESSAGES_SNAPSHOT.messages`, whose messages the shapes check.
        Arr | Int | Parts | Patch | Input | OutcomeV1 | UsageV1 | SubagentOutcome => {
            check_field(dec, field, need, Any)?;
        }
    }
    let found = dec.kind_of(field).unwrap_or(Kind::Null);
    if !expect.admits(found) {
        return Err(Detail::WrongType {
            field,
            expected: expect,
            found,
        });
    }
    match dec.verdict(field) {
        (super::shapes::Verdict::Bad, Some(issue)) => Err(Detail::Invalid {
            field,
            path: issue.path,
            what: issue.what,
        }),
        (super::shapes::Verdict::Bad, None) => Err(Detail::Missing(field)),
        (super::shapes::Verdict::Fine { .. } | super::shapes::Verdict::Removed, _) => Ok(()),
    }
}
