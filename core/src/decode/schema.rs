//! The top-level schema of every event type (SPEC section 2), as data.

use super::{Decoder, Expect, Ext, Field, Kind, Need, Schema};
use crate::error::Detail;
use crate::event::EventType;
use crate::store::Store;

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

use Expect::*;
use Need::*;

/// Fields every event may carry.
const COMMON: Schema = &[
    (Field::Timestamp, Opt, Num),
    (Field::RawEvent, Opt, Any),
    (Field::Metadata, Opt, Obj),
];

/// Checks the decoded frame against the schema of `kind`.
pub(crate) fn check<const ID: usize, const DEPTH: usize, X: Ext<ID, S>, S: Store>(
    dec: &Decoder<ID, DEPTH, X, S>,
    kind: EventType,
) -> Result<(), Detail> {
    for &(field, need, expect) in kind.schema().iter().chain(COMMON) {
        check_field(dec, field, need, expect)?;
    }
    Ok(())
}

fn check_field<const ID: usize, const DEPTH: usize, X: Ext<ID, S>, S: Store>(
    dec: &Decoder<ID, DEPTH, X, S>,
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
pub(crate) fn check_field_v1<const ID: usize, const DEPTH: usize, X: Ext<ID, S>, S: Store>(
    dec: &Decoder<ID, DEPTH, X, S>,
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
