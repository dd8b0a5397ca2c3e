//! JSON event → AG-UI's protobuf encoding (`@ag-ui/proto` 1.0.0's
//! `Event` envelope), for the gateway's `--device-encoding proto`.
//!
//! The encoder walks the same schema tables the core's reader interprets
//! (`agui_core::proto::schema`), so a field it writes is one the reader
//! reads back under the same key: what the device reads is the JSON value
//! the gateway had, up to the defaults the reader fills in (an absent
//! proto3 string is `""`, an absent list `[]`). Keys the schema has no
//! field for are dropped, as the reference's encoder drops them.

use agui_core::proto::schema::{Def, Msg, MsgShape, Ty, ARMS, F, OPS, TYPE_NUMBERS};
use serde_json::{Map, Value};

/// Why an event has no protobuf encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    /// The event is not a JSON object with a string `type`.
    NotAnEvent,
    /// The event type has no arm in the envelope (e.g. `THINKING_START`,
    /// which the protobuf schema does not carry).
    NoArm(String),
    /// A field's value has a JSON type the schema cannot carry there
    /// (`key`: the field's JSON key).
    BadValue(&'static str),
    /// `JsonPatchOperation.op` is none of the six operations.
    BadOp(String),
    /// A content part or source whose `type` is none of the union's arms.
    BadUnion(String),
}

impl EncodeError {
    /// A stable code for logs and tests.
    pub fn code(&self) -> &'static str {
        match self {
            EncodeError::NotAnEvent => "not_an_event",
            EncodeError::NoArm(_) => "no_proto_arm",
            EncodeError::BadValue(_) => "bad_value",
            EncodeError::BadOp(_) => "bad_op",
            EncodeError::BadUnion(_) => "bad_union",
        }
    }
}

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EncodeError::NotAnEvent => write!(f, "not a JSON object with a string type"),
            EncodeError::NoArm(t) => write!(f, "event type {t:?} has no protobuf arm"),
            EncodeError::BadValue(k) => write!(f, "field {k:?} has a value of the wrong type"),
            EncodeError::BadOp(op) => write!(f, "unknown JSON patch op {op:?}"),
            EncodeError::BadUnion(t) => write!(f, "unknown content type {t:?}"),
        }
    }
}

impl std::error::Error for EncodeError {}

/// One frame of the protobuf stream: the 4-byte big-endian length and the
/// `Event` envelope of `event`.
///
/// # Errors
/// [`EncodeError`] when the event has no protobuf form.
pub fn encode_frame(event: &Value) -> Result<Vec<u8>, EncodeError> {
    let body = encode_event(event)?;
    let len = u32::try_from(body.len()).map_err(|_| EncodeError::BadValue("type"))?;
    let mut out = Vec::with_capacity(body.len() + 4);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&body);
    Ok(out)
}

/// The `Event` envelope of `event`, without the length prefix.
///
/// # Errors
/// As [`encode_frame`].
pub fn encode_event(event: &Value) -> Result<Vec<u8>, EncodeError> {
    let obj = event.as_object().ok_or(EncodeError::NotAnEvent)?;
    let ty = obj
        .get("type")
        .and_then(Value::as_str)
        .ok_or(EncodeError::NotAnEvent)?;
    let at = ARMS
        .iter()
        .position(|&a| a.as_str() == ty)
        .ok_or_else(|| EncodeError::NoArm(ty.to_owned()))?;
    let arm = u8::try_from(at + 1).map_err(|_| EncodeError::NotAnEvent)?;
    let mut inner = Vec::new();
    // BaseEvent first (field 1): the event type's number, then the base's
    // own keys; written even when empty, as the reference writes it.
    let mut base = Vec::new();
    let number = TYPE_NUMBERS.get(at).copied().unwrap_or(0);
    if number != 0 {
        tag(&mut base, 1, 0);
        varint(&mut base, u64::from(number));
    }
    fields(&mut base, Msg::Base.fields(), obj, 2)?;
    len_field(&mut inner, 1, &base);
    fields(&mut inner, Msg::Event(arm).fields(), obj, 2)?;
    let mut out = Vec::new();
    len_field(&mut out, u32::from(arm), &inner);
    Ok(out)
}

/// Writes the fields of `table` numbered `from` and up that `obj` has.
/// The fields that go inside an event's `outcome` object are written right
/// after the outcome's type, as the reader wants them together.
fn fields(
    out: &mut Vec<u8>,
    table: &[F],
    obj: &Map<String, Value>,
    from: u8,
) -> Result<(), EncodeError> {
    for f in table
        .iter()
        .filter(|f| f.number() >= from && !f.in_outcome())
    {
        if f.ty() == Ty::Type {
            continue;
        }
        if f.ty() == Ty::Outcome {
            let Some(outcome) = obj.get(f.key()) else {
                continue;
            };
            let outcome = outcome.as_object().ok_or(EncodeError::BadValue(f.key()))?;
            let kind = outcome
                .get("type")
                .and_then(Value::as_str)
                .ok_or(EncodeError::BadValue(f.key()))?;
            tag(out, f.number(), 2);
            bytes(out, kind.as_bytes());
            for g in table.iter().filter(|g| g.in_outcome()) {
                if let Some(v) = outcome.get(g.key()) {
                    field(out, g, v)?;
                }
            }
            continue;
        }
        let Some(v) = obj.get(f.key()) else {
            continue;
        };
        if f.content() && !content_form(f, v) {
            continue;
        }
        field(out, f, v)?;
    }
    Ok(())
}

/// Which of a message's `content` fields carries `v`: the string, the list
/// of parts or the activity map.
fn content_form(f: &F, v: &Value) -> bool {
    match v {
        Value::String(_) => f.ty() == Ty::Str,
        Value::Array(_) => f.repeated(),
        Value::Object(_) => f.ty() == Ty::Struct,
        Value::Null | Value::Bool(_) | Value::Number(_) => false,
    }
}

/// Writes field `f` with value `v` (every item of it when repeated).
fn field(out: &mut Vec<u8>, f: &F, v: &Value) -> Result<(), EncodeError> {
    if f.repeated() {
        let items = v.as_array().ok_or(EncodeError::BadValue(f.key()))?;
        for item in items {
            one(out, f, item)?;
        }
        return Ok(());
    }
    one(out, f, v)
}

/// Writes one value of field `f`. A proto3 string without presence (and
/// the op `add`) is left out when it is the default, as the reference
/// leaves it out.
fn one(out: &mut Vec<u8>, f: &F, v: &Value) -> Result<(), EncodeError> {
    match f.ty() {
        Ty::Str | Ty::Outcome => {
            let s = v.as_str().ok_or(EncodeError::BadValue(f.key()))?;
            if s.is_empty() && f.def() == Def::Empty && !f.repeated() {
                return Ok(());
            }
            tag(out, f.number(), 2);
            bytes(out, s.as_bytes());
        }
        Ty::Bool => {
            let b = v.as_bool().ok_or(EncodeError::BadValue(f.key()))?;
            tag(out, f.number(), 0);
            varint(out, u64::from(b));
        }
        Ty::Int64 => {
            // A whole number: an int64 is two's complement on the wire.
            let n = v
                .as_i64()
                .or_else(|| {
                    v.as_f64()
                        .filter(|x| x.fract() == 0.0 && x.abs() < 9.2e18)
                        .map(|x| x as i64)
                })
                .ok_or(EncodeError::BadValue(f.key()))?;
            tag(out, f.number(), 0);
            varint(out, n as u64);
        }
        Ty::Op => {
            let s = v.as_str().ok_or(EncodeError::BadValue(f.key()))?;
            let n = OPS
                .iter()
                .position(|&op| op == s)
                .ok_or_else(|| EncodeError::BadOp(s.to_owned()))?;
            if n != 0 || f.def() != Def::Add {
                tag(out, f.number(), 0);
                varint(out, n as u64);
            }
        }
        Ty::Type => {}
        Ty::Value => {
            let mut m = Vec::new();
            value(&mut m, v)?;
            len_field(out, u32::from(f.number()), &m);
        }
        Ty::Struct => {
            let obj = v.as_object().ok_or(EncodeError::BadValue(f.key()))?;
            let mut m = Vec::new();
            structure(&mut m, obj)?;
            len_field(out, u32::from(f.number()), &m);
        }
        Ty::Msg(msg) => {
            let obj = v.as_object().ok_or(EncodeError::BadValue(f.key()))?;
            let mut m = Vec::new();
            message(&mut m, msg, obj)?;
            len_field(out, u32::from(f.number()), &m);
        }
    }
    Ok(())
}

/// A message of the schema from its JSON object.
fn message(out: &mut Vec<u8>, msg: Msg, obj: &Map<String, Value>) -> Result<(), EncodeError> {
    match msg.shape() {
        // `{"type": arm, ...the arm's fields}`: the arm's message, written
        // from the same object (its fields are flattened into it).
        MsgShape::Union => {
            let kind = obj
                .get("type")
                .and_then(Value::as_str)
                .ok_or(EncodeError::BadValue("type"))?;
            let arm = msg
                .fields()
                .iter()
                .find(|f| f.key() == kind)
                .ok_or_else(|| EncodeError::BadUnion(kind.to_owned()))?;
            let Ty::Msg(inner) = arm.ty() else {
                return Err(EncodeError::BadUnion(kind.to_owned()));
            };
            let mut m = Vec::new();
            fields(&mut m, inner.fields(), obj, 1)?;
            len_field(out, u32::from(arm.number()), &m);
            Ok(())
        }
        MsgShape::Object | MsgShape::Flat => fields(out, msg.fields(), obj, 1),
        MsgShape::Struct => structure(out, obj),
        MsgShape::Envelope | MsgShape::Value | MsgShape::Entry | MsgShape::List => {
            Err(EncodeError::BadValue("type"))
        }
    }
}

/// A `google.protobuf.Value`.
fn value(out: &mut Vec<u8>, v: &Value) -> Result<(), EncodeError> {
    match v {
        Value::Null => {
            tag(out, 1, 0);
            varint(out, 0);
        }
        Value::Number(n) => {
            let x = n.as_f64().ok_or(EncodeError::BadValue("number"))?;
            tag(out, 2, 1);
            out.extend_from_slice(&x.to_le_bytes());
        }
        Value::String(s) => {
            tag(out, 3, 2);
            bytes(out, s.as_bytes());
        }
        Value::Bool(b) => {
            tag(out, 4, 0);
            varint(out, u64::from(*b));
        }
        Value::Object(obj) => {
            let mut m = Vec::new();
            structure(&mut m, obj)?;
            len_field(out, 5, &m);
        }
        Value::Array(items) => {
            let mut m = Vec::new();
            for item in items {
                let mut e = Vec::new();
                value(&mut e, item)?;
                len_field(&mut m, 1, &e);
            }
            len_field(out, 6, &m);
        }
    }
    Ok(())
}

/// A `google.protobuf.Struct`: one map entry (key 1, value 2) per member.
fn structure(out: &mut Vec<u8>, obj: &Map<String, Value>) -> Result<(), EncodeError> {
    for (k, v) in obj {
        let mut entry = Vec::new();
        tag(&mut entry, 1, 2);
        bytes(&mut entry, k.as_bytes());
        let mut m = Vec::new();
        value(&mut m, v)?;
        len_field(&mut entry, 2, &m);
        len_field(out, 1, &entry);
    }
    Ok(())
}

fn tag(out: &mut Vec<u8>, number: u8, wire: u8) {
    varint(out, (u64::from(number) << 3) | u64::from(wire));
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn bytes(out: &mut Vec<u8>, b: &[u8]) {
    varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

fn len_field(out: &mut Vec<u8>, number: u32, body: &[u8]) {
    varint(out, (u64::from(number) << 3) | 2);
    bytes(out, body);
}
