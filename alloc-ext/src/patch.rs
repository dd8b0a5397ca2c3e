//! RFC 6902 JSON Patch over [`serde_json::Value`], as SPEC section 6 applies it.
//!
//! [`apply_patch`] is atomic: when an operation fails, every operation before
//! it is rolled back and the document is left exactly as it was. It does not
//! copy the document to get there; each operation runs in place and records
//! in an undo log what it overwrote or took out, and a failure replays that
//! log backwards. The cost of a patch is therefore proportional to what it
//! touches (plus the values it clones: `copy` sources and the patch's own
//! `value`s), not to the size of the document.
//!
//! [`json_eq`] is the deep equality `test` uses (numbers as IEEE doubles,
//! object keys in any order); the reducer and the tests use it too.
//!
//! One reference quirk beyond SPEC section 6 is kept because a vector needs
//! it: removing a one-segment path from a document that is `""`, `0` or
//! `false` succeeds and changes nothing (see `js_falsy_scalar` in the source).
//!
//! With serde_json's default sorted maps a rolled-back document is identical
//! to the original. If some crate turns on serde_json's `preserve_order`, a
//! key that was removed and restored may come back at the end of its object
//! (still equal under [`json_eq`]); serde_json offers no positional insert
//! without that feature.

use alloc::boxed::Box;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use serde_json::{Map, Value};

use crate::size::{item_overhead, json_size, member_overhead, Size};

/// Why a patch was rejected. The document is unchanged in every case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchError {
    /// The patch is not a JSON array of operations.
    NotAnArray,
    /// The operation at `index` (0-based) could not be applied.
    Operation {
        /// Position of the failing operation in the patch array.
        index: usize,
        /// The operation's `op` member, if it was a string.
        op: Option<String>,
        /// The operation's `path` member, if it was a string.
        path: Option<String>,
        /// The operation's `from` member, if it was a string.
        from: Option<String>,
        /// What went wrong.
        cause: PatchCause,
    },
}

impl PatchError {
    /// Index of the failing operation (`None` when the patch is not an array).
    ///
    /// ```
    /// use agui_alloc::patch::apply_patch;
    /// use serde_json::json;
    /// let mut doc = json!({});
    /// let err = apply_patch(&mut doc, &json!([{"op": "remove", "path": "/x"}])).unwrap_err();
    /// assert_eq!(err.index(), Some(0));
    /// ```
    #[must_use]
    pub const fn index(&self) -> Option<usize> {
        match self {
            Self::NotAnArray => None,
            Self::Operation { index, .. } => Some(*index),
        }
    }

    /// The cause of the failure (`None` when the patch is not an array).
    #[must_use]
    pub const fn cause(&self) -> Option<&PatchCause> {
        match self {
            Self::NotAnArray => None,
            Self::Operation { cause, .. } => Some(cause),
        }
    }

    /// Builds the error for operation `index`, keeping its op/path/from for the message.
    fn at(index: usize, raw: &Value, cause: PatchCause) -> Self {
        let text = |name: &str| raw.get(name).and_then(Value::as_str).map(str::to_string);
        Self::Operation {
            index,
            op: text("op"),
            path: text("path"),
            from: text("from"),
            cause,
        }
    }
}

/// Shows a pointer so that the root (`""`) stays visible.
fn pointer_text(p: &str) -> &str {
    if p.is_empty() {
        "\"\""
    } else {
        p
    }
}

impl fmt::Display for PatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAnArray => f.write_str("the patch is not a JSON array of operations"),
            Self::Operation {
                index,
                op,
                path,
                from,
                cause,
            } => {
                write!(f, "operation {index} ({}", op.as_deref().unwrap_or("?"))?;
                if let Some(path) = path {
                    write!(f, " {}", pointer_text(path))?;
                }
                if let Some(from) = from {
                    write!(f, " from {}", pointer_text(from))?;
                }
                write!(f, "): {cause}")
            }
        }
    }
}

impl core::error::Error for PatchError {}

/// What made one operation fail.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PatchCause {
    /// The operation is not a JSON object.
    NotAnObject,
    /// `op` is not one of add, remove, replace, move, copy, test.
    InvalidOp,
    /// A member the op needs (`op`, `path`, `value` or `from`) is absent.
    MissingField(&'static str),
    /// `path` or `from` is not a string that is `""` or starts with `/`.
    InvalidPointer(&'static str),
    /// The target, or its parent, does not exist.
    PathNotFound,
    /// The `from` location does not exist.
    FromNotFound,
    /// An array index segment is malformed (empty, leading zero, not
    /// digits, too large) or is `-` where only an existing element will do.
    BadIndex(String),
    /// An array index is past the end (`len` is the array's length).
    IndexOutOfRange {
        /// The index asked for.
        index: usize,
        /// The array's length at that moment.
        len: usize,
    },
    /// A `test` found a different value.
    TestFailed,
    /// A `move` whose `path` lies inside its `from`.
    MoveIntoChild,
    /// The pointer uses a banned segment (`__proto__`, or `prototype`
    /// right after `constructor`); the text names it.
    ForbiddenSegment(&'static str),
}

impl fmt::Display for PatchCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAnObject => f.write_str("the operation is not a JSON object"),
            Self::InvalidOp => {
                f.write_str("unknown op; expected one of add, remove, replace, move, copy, test")
            }
            Self::MissingField(name) => write!(f, "missing required member \"{name}\""),
            Self::InvalidPointer(name) => write!(
                f,
                "\"{name}\" must be a string that is empty or starts with '/'"
            ),
            Self::PathNotFound => f.write_str("path not found"),
            Self::FromNotFound => f.write_str("\"from\" not found"),
            Self::BadIndex(seg) => write!(
                f,
                "\"{seg}\" is not a valid array index here (digits without leading zeros; \
                 '-' only as the target of add, move or copy)"
            ),
            Self::IndexOutOfRange { index, len } => {
                write!(f, "array index {index} is out of range (length {len})")
            }
            Self::TestFailed => f.write_str("test failed: the value differs"),
            Self::MoveIntoChild => f.write_str("cannot move a value into its own child"),
            Self::ForbiddenSegment(seg) => write!(f, "path segment {seg} is not allowed"),
        }
    }
}

/// Deep JSON equality as `test` uses it: numbers compare as IEEE doubles
/// (so `1 == 1.0`, as in JavaScript), objects ignore key order, arrays
/// compare element by element, and values of different kinds are unequal.
///
/// ```
/// use agui_alloc::patch::json_eq;
/// use serde_json::json;
/// assert!(json_eq(&json!({"a": 1, "b": [2.0]}), &json!({"b": [2], "a": 1.0})));
/// assert!(!json_eq(&json!(null), &json!({})));
/// ```
#[must_use]
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x == y,
            _ => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| json_eq(v, w))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Applies the JSON Patch `patch` (the raw JSON array of operations) to
/// `doc`, following SPEC section 6.
///
/// Each operation is validated when its turn comes; the first one that is
/// malformed or cannot be applied makes the whole patch fail, and `doc` is
/// then restored to exactly what it was before the call.
///
/// ```
/// use agui_alloc::patch::{apply_patch, PatchCause};
/// use serde_json::json;
///
/// let mut doc = json!({"list": [1, 3]});
/// apply_patch(&mut doc, &json!([
///     {"op": "add", "path": "/list/1", "value": 2},
///     {"op": "add", "path": "/list/-", "value": 4},
///     {"op": "copy", "from": "/list", "path": "/backup"},
/// ])).unwrap();
/// assert_eq!(doc, json!({"list": [1, 2, 3, 4], "backup": [1, 2, 3, 4]}));
///
/// // The second operation fails, so the first one is undone too.
/// let err = apply_patch(&mut doc, &json!([
///     {"op": "remove", "path": "/list/0"},
///     {"op": "test", "path": "/backup/0", "value": 9},
/// ])).unwrap_err();
/// assert_eq!(err.cause(), Some(&PatchCause::TestFailed));
/// assert_eq!(err.to_string(), "operation 1 (test /backup/0): test failed: the value differs");
/// assert_eq!(doc, json!({"list": [1, 2, 3, 4], "backup": [1, 2, 3, 4]}));
/// ```
pub fn apply_patch(doc: &mut Value, patch: &Value) -> Result<(), PatchError> {
    let unbounded = Size {
        bytes: usize::MAX,
        depth: usize::MAX,
    };
    match apply_patch_sized(doc, patch, Size::default(), unbounded) {
        Ok(_) | Err(Refused::Over(_)) => Ok(()),
        Err(Refused::Patch(e)) => Err(e),
    }
}

/// Why [`apply_patch_sized`] left the document as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// The patch itself failed.
    Patch(PatchError),
    /// The document would pass `max` (bytes or depth) after some
    /// operation: the size it would have needed.
    Over(Size),
}

/// [`apply_patch`] that keeps the document's size (compact JSON bytes,
/// see [`crate::size`]) up to date as it goes, in time proportional to
/// what the patch touches: `now` is the size before, and the result the
/// size after. A patch that would make the document larger than `max`
/// (after any of its operations, so `copy` cannot double its way past the
/// limit) is refused and rolled back.
///
/// The bytes are exact; the depth is an upper bound (removing the deepest
/// branch does not lower it, which would need a walk of the document).
/// While the patch runs, values it takes out are counted back only when
/// the bound passes `max` (they are measured then, and always at the end
/// when they are dropped anyway), so a patch costs what it touches.
///
/// ```
/// use agui_alloc::patch::{apply_patch_sized, Refused};
/// use agui_alloc::size::{json_size, Size};
/// use serde_json::json;
///
/// let mut doc = json!({"a": [1, 2]});
/// let max = Size { bytes: 100, depth: 8 };
/// let now = json_size(&doc);
/// let add = json!([{"op": "add", "path": "/a/-", "value": 30}]);
/// let after = apply_patch_sized(&mut doc, &add, now, max).unwrap();
/// assert_eq!(after.bytes, r#"{"a":[1,2,30]}"#.len());
/// let doubling = json!([{"op": "copy", "from": "/a", "path": "/b"}, {"op": "copy", "from": "", "path": "/c"},
///                       {"op": "copy", "from": "", "path": "/d"}, {"op": "copy", "from": "", "path": "/e"}]);
/// let err = apply_patch_sized(&mut doc, &doubling, after, max).unwrap_err();
/// assert!(matches!(err, Refused::Over(size) if size.bytes > 100));
/// assert_eq!(doc, json!({"a": [1, 2, 30]}));
/// ```
///
/// # Errors
/// [`Refused::Patch`] as [`apply_patch`]; [`Refused::Over`] when the
/// document would pass `max`.
pub fn apply_patch_sized(
    doc: &mut Value,
    patch: &Value,
    now: Size,
    max: Size,
) -> Result<Size, Refused> {
    let (size, log) = run_sized(doc, patch, now, max)?;
    Ok(size.settled(&log))
}

/// Runs the patch and hands back the undo log (for a dry run).
fn run_sized(
    doc: &mut Value,
    patch: &Value,
    now: Size,
    max: Size,
) -> Result<(Meter, Vec<Undo>), Refused> {
    let ops = patch
        .as_array()
        .ok_or(Refused::Patch(PatchError::NotAnArray))?;
    let mut log = Vec::new();
    let mut meter = Meter::new(now);
    for (index, raw) in ops.iter().enumerate() {
        let step = Op::parse(raw).and_then(|op| op.run(doc, &mut log, &mut meter));
        if let Err(cause) = step {
            rollback(doc, log);
            return Err(Refused::Patch(PatchError::at(index, raw, cause)));
        }
        if let Err(over) = meter.within(max, &log) {
            rollback(doc, log);
            return Err(Refused::Over(over));
        }
    }
    Ok((meter, log))
}

/// The size the patch would leave `doc` at, without changing it: the patch
/// is applied, measured and rolled back (time proportional to what it
/// touches, plus the values it takes out).
///
/// # Errors
/// As [`apply_patch_sized`].
pub fn patch_size(doc: &mut Value, patch: &Value, now: Size, max: Size) -> Result<Size, Refused> {
    let (meter, log) = run_sized(doc, patch, now, max)?;
    let size = meter.settled(&log);
    rollback(doc, log);
    Ok(size)
}

/// The running size of the document while a patch applies.
struct Meter {
    /// Bytes now, not yet less the values in `log[measured..]`.
    bytes: usize,
    depth: usize,
    /// How many log entries' taken-out values are already counted back.
    measured: usize,
}

impl Meter {
    fn new(now: Size) -> Self {
        Meter {
            bytes: now.bytes,
            depth: now.depth,
            measured: 0,
        }
    }

    fn grow(&mut self, bytes: usize) {
        self.bytes = self.bytes.saturating_add(bytes);
    }

    fn shrink(&mut self, bytes: usize) {
        self.bytes = self.bytes.saturating_sub(bytes);
    }

    fn reach(&mut self, depth: usize) {
        self.depth = self.depth.max(depth);
    }

    /// Counts back the values the log took out since the last call.
    fn settle(&mut self, log: &[Undo]) {
        let fresh = log.get(self.measured..).unwrap_or_default();
        let taken: usize = fresh.iter().map(Undo::taken_bytes).sum();
        self.shrink(taken);
        self.measured = log.len();
    }

    fn settled(mut self, log: &[Undo]) -> Size {
        self.settle(log);
        Size {
            bytes: self.bytes,
            depth: self.depth,
        }
    }

    /// `Ok` while the document is within `max`; the taken-out values are
    /// measured only when the running bound alone would pass it.
    fn within(&mut self, max: Size, log: &[Undo]) -> Result<(), Size> {
        if self.bytes > max.bytes {
            self.settle(log);
        }
        if self.bytes > max.bytes || self.depth > max.depth {
            return Err(Size {
                bytes: self.bytes,
                depth: self.depth,
            });
        }
        Ok(())
    }
}

/// A parsed JSON Pointer: its unescaped reference tokens.
type Pointer = Vec<String>;

/// The operations of RFC 6902, by their `op` name: the patch vocabulary.
/// Parsing an operation and the reducer's size bound both match it
/// without a wildcard, so a new operation is a compile error in both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpName {
    /// `add`: insert or set `value` at `path`.
    Add,
    /// `remove`: take out what `path` names.
    Remove,
    /// `replace`: set `value` at an existing `path`.
    Replace,
    /// `move`: take `from` out and add it at `path`.
    Move,
    /// `copy`: add a copy of `from` at `path`.
    Copy,
    /// `test`: `path` must equal `value`.
    Test,
}

/// How an operation can grow the document, for a quick upper bound of a
/// patch's size before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Growth {
    /// Never grows it.
    None,
    /// By its `value` (and a key no longer than its path) at most.
    ByValue,
    /// By a part of the document itself: only running it tells.
    Measure,
}

impl OpName {
    /// Every operation, in RFC 6902's order.
    pub const ALL: [OpName; 6] = [
        OpName::Add,
        OpName::Remove,
        OpName::Replace,
        OpName::Move,
        OpName::Copy,
        OpName::Test,
    ];

    /// The `op` name on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            OpName::Add => "add",
            OpName::Remove => "remove",
            OpName::Replace => "replace",
            OpName::Move => "move",
            OpName::Copy => "copy",
            OpName::Test => "test",
        }
    }

    /// Looks up an `op` name; `None` for an unknown one.
    ///
    /// ```
    /// use agui_alloc::patch::OpName;
    /// assert_eq!(OpName::from_wire("copy"), Some(OpName::Copy));
    /// assert_eq!(OpName::from_wire("Copy"), None);
    /// ```
    pub fn from_wire(name: &str) -> Option<OpName> {
        OpName::ALL.into_iter().find(|op| op.as_str() == name)
    }

    /// How the operation can grow the document.
    pub const fn growth(self) -> Growth {
        match self {
            OpName::Add | OpName::Replace => Growth::ByValue,
            OpName::Remove | OpName::Test => Growth::None,
            OpName::Move | OpName::Copy => Growth::Measure,
        }
    }
}

/// One validated operation. Values stay borrowed from the patch until used.
enum Op<'p> {
    Add(Pointer, &'p Value),
    Remove(Pointer),
    Replace(Pointer, &'p Value),
    Move { from: Pointer, path: Pointer },
    Copy { from: Pointer, path: Pointer },
    Test(Pointer, &'p Value),
}

impl<'p> Op<'p> {
    /// Validates one raw operation (SPEC section 6, first list item).
    fn parse(raw: &'p Value) -> Result<Self, PatchCause> {
        let obj = raw.as_object().ok_or(PatchCause::NotAnObject)?;
        let name = obj
            .get("op")
            .ok_or(PatchCause::MissingField("op"))?
            .as_str()
            .ok_or(PatchCause::InvalidOp)?;
        // Reject unknown names before looking at the rest, so that a typo in
        // `op` is reported as such rather than as a missing member.
        let name = OpName::from_wire(name).ok_or(PatchCause::InvalidOp)?;
        let path = pointer_member(obj, "path")?;
        let value = || obj.get("value").ok_or(PatchCause::MissingField("value"));
        let from = || pointer_member(obj, "from");
        Ok(match name {
            OpName::Add => Op::Add(path, value()?),
            OpName::Remove => Op::Remove(path),
            OpName::Replace => Op::Replace(path, value()?),
            OpName::Move => Op::Move {
                from: from()?,
                path,
            },
            OpName::Copy => Op::Copy {
                from: from()?,
                path,
            },
            OpName::Test => Op::Test(path, value()?),
        })
    }

    /// Runs the operation on `doc`, appending what it changed to `log` and
    /// what it added to `meter` (what it took out is in the log).
    fn run(
        self,
        doc: &mut Value,
        log: &mut Vec<Undo>,
        meter: &mut Meter,
    ) -> Result<(), PatchCause> {
        match self {
            Op::Add(path, value) => {
                let size = json_size(value);
                meter.reach(path.len().saturating_add(size.depth));
                meter.grow(size.bytes);
                let added = add(doc, path, value.clone(), PastEnd::Reject)?;
                meter.grow(added.overhead);
                log.push(Undo::Added(added.undo));
            }
            Op::Remove(path) => {
                if path.is_empty() {
                    meter.grow(4); // the `null` left behind
                }
                if let Some((undo, overhead)) = remove(doc, path)? {
                    meter.shrink(overhead);
                    log.push(undo);
                }
            }
            Op::Replace(path, value) => {
                let size = json_size(value);
                meter.reach(path.len().saturating_add(size.depth));
                meter.grow(size.bytes);
                log.push(replace(doc, path, value.clone())?);
            }
            Op::Test(path, value) => {
                if !json_eq(get(doc, &path)?, value) {
                    return Err(PatchCause::TestFailed);
                }
            }
            Op::Copy { from, path } => {
                let source = get(doc, &from).map_err(from_cause)?;
                let size = json_size(source);
                let value = source.clone();
                meter.reach(path.len().saturating_add(size.depth));
                meter.grow(size.bytes);
                let added = add(doc, path, value, PastEnd::Append)?;
                meter.grow(added.overhead);
                log.push(Undo::Added(added.undo));
            }
            Op::Move { from, path } => {
                // The moved value keeps its size; only its key and commas
                // change. It was at most as deep as the document below `from`.
                let below = meter.depth.saturating_sub(from.len());
                let to = path.len();
                if let Some((undo, taken, added)) = move_value(doc, from, path)? {
                    meter.reach(to.saturating_add(below));
                    meter.shrink(taken);
                    meter.grow(added);
                    log.push(undo);
                }
            }
        }
        Ok(())
    }
}

/// Reads and parses the pointer member `name` (`path` or `from`).
fn pointer_member(obj: &Map<String, Value>, name: &'static str) -> Result<Pointer, PatchCause> {
    let text = obj
        .get(name)
        .ok_or(PatchCause::MissingField(name))?
        .as_str()
        .ok_or(PatchCause::InvalidPointer(name))?;
    parse_pointer(text)
        .ok_or(PatchCause::InvalidPointer(name))
        .and_then(check_segments)
}

/// Splits an RFC 6901 pointer into unescaped tokens (`None` if it is not
/// `""` and does not start with `/`).
fn parse_pointer(text: &str) -> Option<Pointer> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    let rest = text.strip_prefix('/')?;
    Some(rest.split('/').map(unescape).collect())
}

/// `~1` is `/`, `~0` is `~`; any other `~` is kept literally (SPEC section 6).
/// Scanning left to right makes `~01` read as `~1`, as RFC 6901 requires.
fn unescape(token: &str) -> String {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.peek() {
                Some('1') => {
                    chars.next();
                    out.push('/');
                }
                Some('0') => {
                    chars.next();
                    out.push('~');
                }
                _ => out.push('~'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Bans the segments the reference bans, so both clients agree.
fn check_segments(ptr: Pointer) -> Result<Pointer, PatchCause> {
    if ptr.iter().any(|s| s == "__proto__") {
        return Err(PatchCause::ForbiddenSegment("\"__proto__\""));
    }
    if ptr
        .windows(2)
        .any(|w| matches!(w, [a, b] if a == "constructor" && b == "prototype"))
    {
        return Err(PatchCause::ForbiddenSegment(
            "\"prototype\" after \"constructor\"",
        ));
    }
    Ok(ptr)
}

/// Parses an array index: base-10 digits, no leading zero, fits in `usize`.
fn parse_index(seg: &str) -> Result<usize, PatchCause> {
    let well_formed = !seg.is_empty()
        && seg.bytes().all(|b| b.is_ascii_digit())
        && (seg == "0" || !seg.starts_with('0'));
    well_formed
        .then(|| seg.parse().ok())
        .flatten()
        .ok_or_else(|| PatchCause::BadIndex(seg.to_string()))
}

/// Like [`parse_index`] but the element must exist.
fn existing_index(seg: &str, len: usize) -> Result<usize, PatchCause> {
    let index = parse_index(seg)?;
    if index < len {
        Ok(index)
    } else {
        Err(PatchCause::IndexOutOfRange { index, len })
    }
}

/// A `from` pointer that does not resolve is reported as such.
fn from_cause(cause: PatchCause) -> PatchCause {
    if matches!(cause, PatchCause::PathNotFound) {
        PatchCause::FromNotFound
    } else {
        cause
    }
}

/// The existing value at `ptr`.
fn get<'v>(doc: &'v Value, ptr: &[String]) -> Result<&'v Value, PatchCause> {
    ptr.iter().try_fold(doc, |node, seg| match node {
        Value::Object(map) => map.get(seg).ok_or(PatchCause::PathNotFound),
        Value::Array(items) => {
            let i = existing_index(seg, items.len())?;
            items.get(i).ok_or(PatchCause::PathNotFound)
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            Err(PatchCause::PathNotFound)
        }
    })
}

/// The existing value at `ptr`, mutably.
fn get_mut<'v>(doc: &'v mut Value, ptr: &[String]) -> Result<&'v mut Value, PatchCause> {
    ptr.iter().try_fold(doc, |node, seg| match node {
        Value::Object(map) => map.get_mut(seg).ok_or(PatchCause::PathNotFound),
        Value::Array(items) => {
            let i = existing_index(seg, items.len())?;
            items.get_mut(i).ok_or(PatchCause::PathNotFound)
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            Err(PatchCause::PathNotFound)
        }
    })
}

/// A place inside a container: the container's pointer and the member.
struct Slot {
    parent: Pointer,
    member: Member,
}

/// An object key or an array position (already resolved, never `-`).
enum Member {
    Key(String),
    Index(usize),
}

/// How to take back one `add` (also the add half of a move, and a copy).
enum Added {
    /// The whole document was replaced; holds the previous one.
    Root(Value),
    /// An object key was set; holds the value it overwrote, if any.
    Key {
        parent: Pointer,
        key: String,
        overwritten: Option<Value>,
    },
    /// A value was inserted into an array at `index`.
    Index { parent: Pointer, index: usize },
}

/// One entry of the undo log.
enum Undo {
    /// add or copy.
    Added(Added),
    /// remove of a member; holds the removed value.
    Removed { at: Slot, value: Value },
    /// replace of a member; holds the previous value.
    Replaced { at: Slot, old: Value },
    /// replace or remove of the root; holds the previous document.
    Root(Value),
    /// move: the value left `from` and was added as `to` says.
    Moved { from: Slot, to: Box<Added> },
}

/// What an array index past the end means when adding.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PastEnd {
    /// `add` (RFC 6902 section 4.1): the index must be at most the length.
    Reject,
    /// The target of a move or copy: the reference does not bounds-check
    /// it, so it appends, and the vectors rely on that.
    Append,
}

/// Adds `value` at `path`: replaces the root, sets an object key (creating
/// or overwriting it) or inserts into an array (`-` appends). On failure
/// `value` is handed back so that a move can return it to where it came from.
/// An `add` done: how to take it back, and the bytes its key and comma
/// added besides the value (see [`crate::size`]).
struct Adding {
    undo: Added,
    overhead: usize,
}

fn add_value(
    doc: &mut Value,
    mut path: Pointer,
    value: Value,
    past_end: PastEnd,
) -> Result<Adding, (PatchCause, Value)> {
    let Some(last) = path.pop() else {
        let undo = Added::Root(core::mem::replace(doc, value));
        return Ok(Adding { undo, overhead: 0 });
    };
    let parent = match get_mut(doc, &path) {
        Ok(parent) => parent,
        Err(cause) => return Err((cause, value)),
    };
    match parent {
        Value::Object(map) => {
            let others = map.len();
            let overwritten = map.insert(last.clone(), value);
            let overhead = match overwritten {
                Some(_) => 0,
                None => member_overhead(&last, others),
            };
            let undo = Added::Key {
                parent: path,
                key: last,
                overwritten,
            };
            Ok(Adding { undo, overhead })
        }
        Value::Array(items) => {
            let len = items.len();
            let index = match (last.as_str(), parse_index(&last)) {
                ("-", _) => len,
                (_, Ok(index)) if index <= len => index,
                (_, Ok(_)) if past_end == PastEnd::Append => len,
                (_, Ok(index)) => return Err((PatchCause::IndexOutOfRange { index, len }, value)),
                (_, Err(cause)) => return Err((cause, value)),
            };
            items.insert(index, value);
            let undo = Added::Index {
                parent: path,
                index,
            };
            Ok(Adding {
                undo,
                overhead: item_overhead(len),
            })
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            Err((PatchCause::PathNotFound, value))
        }
    }
}

/// The `add` operation (and the add half of `copy`, with `PastEnd::Append`).
fn add(
    doc: &mut Value,
    path: Pointer,
    value: Value,
    past_end: PastEnd,
) -> Result<Adding, PatchCause> {
    add_value(doc, path, value, past_end).map_err(|(cause, _)| cause)
}

/// A member taken out of its container: where it was, the value, and the
/// bytes its key and comma took besides the value.
struct Taken {
    at: Slot,
    value: Value,
    overhead: usize,
}

/// Takes the existing member at the non-empty pointer `ptr` out of its container.
fn take(doc: &mut Value, mut ptr: Pointer) -> Result<Taken, PatchCause> {
    let last = ptr.pop().ok_or(PatchCause::PathNotFound)?;
    match get_mut(doc, &ptr)? {
        Value::Object(map) => {
            let value = map.remove(&last).ok_or(PatchCause::PathNotFound)?;
            let overhead = member_overhead(&last, map.len());
            let member = Member::Key(last);
            let at = Slot {
                parent: ptr,
                member,
            };
            Ok(Taken {
                at,
                value,
                overhead,
            })
        }
        Value::Array(items) => {
            let index = existing_index(&last, items.len())?;
            let value = items.remove(index);
            let member = Member::Index(index);
            let at = Slot {
                parent: ptr,
                member,
            };
            Ok(Taken {
                at,
                value,
                overhead: item_overhead(items.len()),
            })
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            Err(PatchCause::PathNotFound)
        }
    }
}

/// The `remove` operation, with the bytes of key and comma it took out.
/// `None` when nothing changed (see [`js_falsy_scalar`]).
fn remove(doc: &mut Value, path: Pointer) -> Result<Option<(Undo, usize)>, PatchCause> {
    if path.is_empty() {
        // SPEC section 6: removing the root leaves `null`.
        return Ok(Some((Undo::Root(core::mem::take(doc)), 0)));
    }
    if path.len() == 1 && js_falsy_scalar(doc) {
        return Ok(None);
    }
    let taken = take(doc, path)?;
    let undo = Undo::Removed {
        at: taken.at,
        value: taken.value,
    };
    Ok(Some((undo, taken.overhead)))
}

/// Whether the whole document is `""`, `0` or `false`.
///
/// The reference checks that a path exists only when the document is
/// truthy in JavaScript; on one of these scalars, removing a one-segment
/// path such as `/a` runs `delete "".a`, which succeeds and changes nothing
/// (every other operation still fails there: writes to a primitive throw in
/// strict mode and a test reads `undefined`). The vector `gen-1-186-valid`
/// relies on this (`add "" ""` then `remove /a` succeeds), so we keep it.
/// `null` is not included: the reference fails on `null[key]`.
fn js_falsy_scalar(doc: &Value) -> bool {
    match doc {
        Value::String(s) => s.is_empty(),
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::Null | Value::Array(_) | Value::Object(_) => false,
    }
}

/// The `replace` operation.
fn replace(doc: &mut Value, mut path: Pointer, value: Value) -> Result<Undo, PatchCause> {
    let Some(last) = path.pop() else {
        return Ok(Undo::Root(core::mem::replace(doc, value)));
    };
    let (slot, member) = match get_mut(doc, &path)? {
        Value::Object(map) => {
            let slot = map.get_mut(&last).ok_or(PatchCause::PathNotFound)?;
            (slot, Member::Key(last))
        }
        Value::Array(items) => {
            let index = existing_index(&last, items.len())?;
            let slot = items.get_mut(index).ok_or(PatchCause::PathNotFound)?;
            (slot, Member::Index(index))
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            return Err(PatchCause::PathNotFound)
        }
    };
    let old = core::mem::replace(slot, value);
    let at = Slot {
        parent: path,
        member,
    };
    Ok(Undo::Replaced { at, old })
}

/// The `move` operation, with the key and comma bytes it took out at `from`
/// and added at `path`; `None` when nothing changed (a move onto itself).
fn move_value(
    doc: &mut Value,
    from: Pointer,
    path: Pointer,
) -> Result<Option<(Undo, usize, usize)>, PatchCause> {
    // `from` must exist in every case, a move onto itself or to the root too.
    get(doc, &from).map_err(from_cause)?;
    if from == path {
        return Ok(None);
    }
    if path.starts_with(&from) {
        // Segment-wise proper prefix (equality was handled above); this also
        // covers a move of the root to anywhere but itself.
        return Err(PatchCause::MoveIntoChild);
    }
    let taken = take(doc, from).map_err(from_cause)?;
    match add_value(doc, path, taken.value, PastEnd::Append) {
        Ok(added) => {
            let undo = Undo::Moved {
                from: taken.at,
                to: Box::new(added.undo),
            };
            Ok(Some((undo, taken.overhead, added.overhead)))
        }
        Err((cause, value)) => {
            put_back(doc, taken.at, value);
            Err(cause)
        }
    }
}

impl Added {
    /// The value this add overwrote (it left the document).
    fn taken(&self) -> Option<&Value> {
        match self {
            Added::Root(old) => Some(old),
            Added::Key { overwritten, .. } => overwritten.as_ref(),
            Added::Index { .. } => None,
        }
    }
}

impl Undo {
    /// Compact JSON bytes of the value this entry took out of the document
    /// (removed, replaced or overwritten), 0 if none.
    fn taken_bytes(&self) -> usize {
        let taken = match self {
            Undo::Added(added) => added.taken(),
            Undo::Moved { to, .. } => to.taken(),
            Undo::Removed { value, .. } => Some(value),
            Undo::Replaced { old, .. } | Undo::Root(old) => Some(old),
        };
        taken.map_or(0, |v| json_size(v).bytes)
    }
}

/// Undoes the log, newest entry first.
fn rollback(doc: &mut Value, log: Vec<Undo>) {
    for undo in log.into_iter().rev() {
        match undo {
            Undo::Added(added) => {
                take_back(doc, added);
            }
            Undo::Removed { at, value } => put_back(doc, at, value),
            Undo::Replaced { at, old } => {
                if let Some(slot) = slot_mut(doc, &at) {
                    *slot = old;
                }
            }
            Undo::Root(old) => *doc = old,
            Undo::Moved { from, to } => {
                if let Some(value) = take_back(doc, *to) {
                    put_back(doc, from, value);
                }
            }
        }
    }
}

/// Reverts an add and returns the value it had added. While rolling back,
/// the document is exactly as it was right after that add, so the recorded
/// places resolve; `None` would mean a broken log and is simply skipped.
fn take_back(doc: &mut Value, added: Added) -> Option<Value> {
    match added {
        Added::Root(old) => Some(core::mem::replace(doc, old)),
        Added::Key {
            parent,
            key,
            overwritten,
        } => {
            let map = get_mut(doc, &parent).ok()?.as_object_mut()?;
            match overwritten {
                // insert on an existing key keeps the key's position.
                Some(old) => map.insert(key, old),
                None => map.remove(&key),
            }
        }
        Added::Index { parent, index } => {
            let items = get_mut(doc, &parent).ok()?.as_array_mut()?;
            (index < items.len()).then(|| items.remove(index))
        }
    }
}

/// Puts a removed value back where it was.
fn put_back(doc: &mut Value, at: Slot, value: Value) {
    match (get_mut(doc, &at.parent), at.member) {
        (Ok(Value::Object(map)), Member::Key(key)) => {
            map.insert(key, value);
        }
        (Ok(Value::Array(items)), Member::Index(index)) if index <= items.len() => {
            items.insert(index, value);
        }
        _ => {}
    }
}

/// The existing member a slot names.
fn slot_mut<'v>(doc: &'v mut Value, at: &Slot) -> Option<&'v mut Value> {
    match (get_mut(doc, &at.parent).ok()?, &at.member) {
        (Value::Object(map), Member::Key(key)) => map.get_mut(key),
        (Value::Array(items), Member::Index(index)) => items.get_mut(*index),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operation name parses back to itself, and each one is
    /// accepted by `Op::parse` with the members it needs.
    #[test]
    fn the_vocabulary_is_closed() {
        for op in OpName::ALL {
            assert_eq!(OpName::from_wire(op.as_str()), Some(op));
            let raw =
                serde_json::json!({"op": op.as_str(), "path": "/a", "from": "/b", "value": 1});
            assert!(Op::parse(&raw).is_ok(), "{}", op.as_str());
        }
        let unknown = serde_json::json!({"op": "merge", "path": "/a"});
        assert!(matches!(Op::parse(&unknown), Err(PatchCause::InvalidOp)));
    }
    use alloc::vec;

    #[test]
    fn unescape_reads_left_to_right() {
        assert_eq!(unescape("a~1b"), "a/b");
        assert_eq!(unescape("m~0n"), "m~n");
        assert_eq!(unescape("~01"), "~1");
        assert_eq!(unescape("~10"), "/0");
        assert_eq!(unescape("~2"), "~2");
        assert_eq!(unescape("~"), "~");
        assert_eq!(unescape("~~0"), "~~");
    }

    #[test]
    fn pointers_split_into_tokens() {
        assert_eq!(parse_pointer(""), Some(vec![]));
        assert_eq!(parse_pointer("/"), Some(vec![String::new()]));
        assert_eq!(
            parse_pointer("/a//b"),
            Some(vec!["a".into(), String::new(), "b".into()])
        );
        assert_eq!(parse_pointer("a"), None);
        assert_eq!(parse_pointer("#/a"), None);
    }

    #[test]
    fn indices_are_plain_decimal() {
        assert_eq!(parse_index("0"), Ok(0));
        assert_eq!(parse_index("10"), Ok(10));
        for bad in [
            "",
            "-",
            "01",
            "+1",
            "-1",
            "1e2",
            "١",
            "18446744073709551616",
        ] {
            assert_eq!(
                parse_index(bad),
                Err(PatchCause::BadIndex(bad.into())),
                "{bad}"
            );
        }
    }

    #[test]
    fn banned_segments() {
        let seg = |s: &[&str]| check_segments(s.iter().map(|t| String::from(*t)).collect());
        assert!(seg(&["a", "__proto__"]).is_err());
        assert!(seg(&["constructor", "prototype"]).is_err());
        assert!(seg(&["x", "constructor", "prototype", "y"]).is_err());
        assert!(seg(&["prototype", "constructor"]).is_ok());
        assert!(seg(&["constructor", "a", "prototype"]).is_ok());
        assert!(seg(&["__proto"]).is_ok());
    }

    #[test]
    fn falsy_scalars_are_the_javascript_ones() {
        use serde_json::json;
        for v in [json!(""), json!(0), json!(0.0), json!(-0.0), json!(false)] {
            assert!(js_falsy_scalar(&v), "{v}");
        }
        for v in [
            json!(null),
            json!(" "),
            json!(1),
            json!(true),
            json!([]),
            json!({}),
        ] {
            assert!(!js_falsy_scalar(&v), "{v}");
        }
    }
}
