//! Enforcement (SPEC 9.4): strip what the 1.0 schema does not describe,
//! then validate what it does.
//!
//! Both walks are driven by the tables of [`super::schema`] and descend
//! only where the schema describes something, so free JSON positions are
//! never entered. Each value is visited at most once by each walk: the cost
//! is linear in the size of the event (times the logarithmic cost of a key
//! lookup in a JSON object). The stripping walk also checks what it keeps,
//! so the validating walk, which reports the issues in the schema's order
//! (the order of the reference's text), only runs on an event that may be
//! invalid.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde_json::{Map, Value};

use super::report::Issue;
use super::schema::{FieldShape, ObjectShape, Presence, Range, Shape, Union, MAX_SAFE_INTEGER};

/// What stripping decided about one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Stays (possibly with unknown material removed inside it).
    Keep,
    /// Unrecognisable as a whole (an unknown union member): its container
    /// removes it, or is itself removed if it sat in a required field.
    Drop,
}

/// What the stripping walk found.
pub(crate) struct Stripped {
    /// The paths of the removals: only the outermost removal of a removed
    /// value is reported.
    pub(crate) removed: Vec<String>,
    /// Every described value left in the event passed its check and no
    /// required key is missing: the event is valid and [`validate`] need not
    /// run. `false` is not a verdict (the value that failed may have been
    /// removed later with its container): then [`validate`] decides.
    pub(crate) valid: bool,
}

/// The state of one stripping walk.
struct Walk<'a> {
    path: &'a mut String,
    removed: Vec<String>,
    valid: bool,
    /// Where the leaf checks put their issues (only looked at for being
    /// non-empty; only a failing check writes to it).
    scratch: Vec<Issue>,
}

/// Removes from `event` (an object of the type `schema` describes) every
/// key and union member the schema does not know, and checks on the way
/// what it keeps (see [`Stripped::valid`]). [`Presence::NullIsAbsent`]
/// nulls are removed and [`Presence::EmptyIfAbsent`] keys added, as the
/// schema reads them.
pub(crate) fn strip(
    event: &mut Map<String, Value>,
    schema: &ObjectShape<'_>,
    path: &mut String,
) -> Stripped {
    path.clear();
    let mut walk = Walk {
        path,
        removed: Vec::new(),
        valid: true,
        scratch: Vec::new(),
    };
    // The event's own object is never dropped whole: its only union-typed
    // fields are optional or arrays (a required union field would cascade to
    // the event itself, which no 1.0 event has).
    let _ = walk.object(event, schema);
    Stripped {
        removed: walk.removed,
        valid: walk.valid,
    }
}

impl Walk<'_> {
    fn value(&mut self, value: &mut Value, shape: &Shape) -> Verdict {
        match shape {
            Shape::Object(object) => match value {
                Value::Object(map) => self.object(map, object),
                // The wrong kind of value is the validator's to reject.
                Value::Null
                | Value::Bool(_)
                | Value::Number(_)
                | Value::String(_)
                | Value::Array(_) => self.invalid(),
            },
            Shape::Array { of, min } => match value {
                Value::Array(items) => {
                    self.array(items, of);
                    if items.len() < *min {
                        self.valid = false;
                    }
                    Verdict::Keep
                }
                Value::Null
                | Value::Bool(_)
                | Value::Number(_)
                | Value::String(_)
                | Value::Object(_) => self.invalid(),
            },
            Shape::StringOr(of) => match value {
                Value::String(_) => Verdict::Keep,
                Value::Array(items) => {
                    self.array(items, of);
                    Verdict::Keep
                }
                Value::Null | Value::Bool(_) | Value::Number(_) | Value::Object(_) => {
                    self.invalid()
                }
            },
            Shape::Union(union) => match value {
                Value::Object(map) => match member_of(map, union) {
                    Some(member) => self.object(map, member),
                    None => Verdict::Drop,
                },
                Value::Null
                | Value::Bool(_)
                | Value::Number(_)
                | Value::String(_)
                | Value::Array(_) => self.invalid(),
            },
            Shape::String
            | Shape::Pointer
            | Shape::Literal(_)
            | Shape::OneOf(_)
            | Shape::Boolean
            | Shape::Integer(_)
            | Shape::Json
            | Shape::JsonNotNull
            | Shape::JsonObject => {
                check_value(value, shape, self.path, &mut self.scratch);
                if !self.scratch.is_empty() {
                    self.scratch.clear();
                    self.valid = false;
                }
                Verdict::Keep
            }
        }
    }

    fn invalid(&mut self) -> Verdict {
        self.valid = false;
        Verdict::Keep
    }

    fn object(&mut self, map: &mut Map<String, Value>, object: &ObjectShape<'_>) -> Verdict {
        let mut verdict = Verdict::Keep;
        let mut required_seen = 0usize;
        let mut defaulted_seen = 0usize;
        map.retain(|key, child| {
            if verdict == Verdict::Drop {
                // The object goes whole; the caller withdraws what was
                // reported inside it, so there is nothing left to decide.
                return true;
            }
            let at = self.path.len();
            self.path.push('/');
            self.path.push_str(key);
            let keep = match object.field(key) {
                None if object.open => true,
                None => {
                    self.removed.push(self.path.clone());
                    false
                }
                Some(field) => {
                    let mark = self.removed.len();
                    match (field.presence, &child) {
                        (Presence::NullIsAbsent, Value::Null) => false,
                        _ => match self.value(child, &field.shape) {
                            Verdict::Keep => {
                                match field.presence {
                                    Presence::Required => required_seen += 1,
                                    Presence::EmptyIfAbsent => defaulted_seen += 1,
                                    Presence::Optional | Presence::NullIsAbsent => {}
                                }
                                true
                            }
                            Verdict::Drop => {
                                self.removed.truncate(mark);
                                match field.presence {
                                    Presence::Optional
                                    | Presence::EmptyIfAbsent
                                    | Presence::NullIsAbsent => {
                                        self.removed.push(self.path.clone());
                                        false
                                    }
                                    Presence::Required => {
                                        verdict = Verdict::Drop;
                                        true
                                    }
                                }
                            }
                        },
                    }
                }
            };
            self.path.truncate(at);
            keep
        });
        if verdict == Verdict::Keep {
            let (mut required, mut defaulted) = (0usize, 0usize);
            for field in object.fields() {
                match field.presence {
                    Presence::Required => required += 1,
                    Presence::EmptyIfAbsent => defaulted += 1,
                    Presence::Optional | Presence::NullIsAbsent => {}
                }
            }
            if required_seen < required {
                self.valid = false;
            }
            if defaulted_seen < defaulted {
                for field in object.fields() {
                    if field.presence == Presence::EmptyIfAbsent && !map.contains_key(field.name) {
                        map.insert(String::from(field.name), Value::Array(Vec::new()));
                    }
                }
            }
        }
        verdict
    }

    fn array(&mut self, items: &mut Vec<Value>, of: &Shape) {
        let mut index = 0usize;
        items.retain_mut(|item| {
            let at = self.path.len();
            self.path.push('/');
            push_index(self.path, index);
            index += 1;
            let mark = self.removed.len();
            let keep = match self.value(item, of) {
                Verdict::Keep => true,
                Verdict::Drop => {
                    self.removed.truncate(mark);
                    self.removed.push(self.path.clone());
                    false
                }
            };
            self.path.truncate(at);
            keep
        });
    }
}

/// The member of `union` the object's tag names, if any.
fn member_of(map: &Map<String, Value>, union: &Union) -> Option<&'static ObjectShape<'static>> {
    match map.get(union.tag) {
        Some(Value::String(tag)) => union.member(tag),
        _ => None,
    }
}

fn push_index(path: &mut String, index: usize) {
    use core::fmt::Write;
    let _ = write!(path, "{index}");
}

// ------------------------------------------------------------- validation

/// Validates `event` against its schema; every issue, in the schema's order
/// (empty when the event is valid). A valid event is left as the schema
/// reads it: [`Presence::EmptyIfAbsent`] keys added, [`Presence::NullIsAbsent`]
/// nulls removed (an invalid event is discarded, whatever this did to it).
pub(crate) fn validate(
    event: &mut Map<String, Value>,
    schema: &ObjectShape<'_>,
    path: &mut String,
) -> Vec<Issue> {
    let mut issues = Vec::new();
    path.clear();
    check_object(event, schema, path, &mut issues);
    issues
}

fn check_object(
    map: &mut Map<String, Value>,
    object: &ObjectShape<'_>,
    path: &mut String,
    issues: &mut Vec<Issue>,
) {
    for field in object.fields() {
        let at = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(field.name);
        check_field(map, field, path, issues);
        path.truncate(at);
    }
}

fn check_field(
    map: &mut Map<String, Value>,
    field: &FieldShape,
    path: &mut String,
    issues: &mut Vec<Issue>,
) {
    match (map.get_mut(field.name), field.presence) {
        (Some(Value::Null), Presence::NullIsAbsent) => {
            map.remove(field.name);
        }
        (Some(value), _) => check_value(value, &field.shape, path, issues),
        (None, Presence::Optional | Presence::NullIsAbsent) => {}
        (None, Presence::EmptyIfAbsent) => {
            map.insert(String::from(field.name), Value::Array(Vec::new()));
        }
        (None, Presence::Required) => issue(issues, path, absent(&field.shape)),
    }
}

fn issue(issues: &mut Vec<Issue>, path: &str, reason: String) {
    issues.push(Issue {
        path: String::from(path),
        reason,
    });
}

/// The reference's name for the JSON kind of `v` ("received number").
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn expected(what: &str, received: &str) -> String {
    format!("Invalid input: expected {what}, received {received}")
}

/// The reason a required field of this shape is absent.
fn absent(shape: &Shape) -> String {
    match shape {
        Shape::String | Shape::Pointer => expected("string", "undefined"),
        Shape::Literal(v) => literal_reason(v),
        Shape::OneOf(values) => one_of_reason(values),
        Shape::Boolean => expected("boolean", "undefined"),
        Shape::Integer(_) => expected("number", "undefined"),
        Shape::Object(_) | Shape::Union(_) => expected("object", "undefined"),
        Shape::Array { .. } => expected("array", "undefined"),
        Shape::Json | Shape::JsonNotNull | Shape::JsonObject | Shape::StringOr(_) => {
            String::from("Invalid input")
        }
    }
}

fn literal_reason(v: &str) -> String {
    format!("Invalid input: expected \"{v}\"")
}

fn one_of_reason(values: &[&str]) -> String {
    let mut text = String::from("Invalid option: expected one of ");
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            text.push('|');
        }
        text.push('"');
        text.push_str(v);
        text.push('"');
    }
    text
}

fn check_value(value: &mut Value, shape: &Shape, path: &mut String, issues: &mut Vec<Issue>) {
    match shape {
        Shape::String => {
            if !value.is_string() {
                issue(issues, path, expected("string", kind(value)));
            }
        }
        Shape::Pointer => match value {
            Value::String(s) => {
                if !is_pointer(s) {
                    issue(
                        issues,
                        path,
                        String::from("Invalid string: must match pattern /^(\\/([^/~]|~[01])*)*$/"),
                    );
                }
            }
            Value::Null
            | Value::Bool(_)
            | Value::Number(_)
            | Value::Array(_)
            | Value::Object(_) => issue(issues, path, expected("string", kind(value))),
        },
        Shape::Literal(v) => {
            if value.as_str() != Some(*v) {
                issue(issues, path, literal_reason(v));
            }
        }
        Shape::OneOf(values) => {
            let ok = value.as_str().is_some_and(|s| values.contains(&s));
            if !ok {
                issue(issues, path, one_of_reason(values));
            }
        }
        Shape::Boolean => {
            if !value.is_boolean() {
                issue(issues, path, expected("boolean", kind(value)));
            }
        }
        Shape::Integer(range) => check_integer(value, *range, path, issues),
        Shape::Json => {}
        Shape::JsonNotNull => {
            if value.is_null() {
                issue(issues, path, String::from("Invalid input"));
            }
        }
        Shape::JsonObject => {
            if !value.is_object() {
                issue(issues, path, String::from("Invalid input"));
            }
        }
        Shape::Object(object) => match value {
            Value::Object(map) => check_object(map, object, path, issues),
            Value::Null
            | Value::Bool(_)
            | Value::Number(_)
            | Value::String(_)
            | Value::Array(_) => issue(issues, path, expected("object", kind(value))),
        },
        Shape::Array { of, min } => match value {
            Value::Array(items) => {
                check_items(items, of, path, issues);
                if items.len() < *min {
                    issue(
                        issues,
                        path,
                        format!("Too small: expected array to have >={min} items"),
                    );
                }
            }
            Value::Null
            | Value::Bool(_)
            | Value::Number(_)
            | Value::String(_)
            | Value::Object(_) => issue(issues, path, expected("array", kind(value))),
        },
        Shape::Union(union) => match value {
            Value::Object(map) => match member_of(map, union) {
                Some(member) => check_object(map, member, path, issues),
                None => {
                    let at = path.len();
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(union.tag);
                    issue(issues, path, String::from("Invalid input"));
                    path.truncate(at);
                }
            },
            Value::Null
            | Value::Bool(_)
            | Value::Number(_)
            | Value::String(_)
            | Value::Array(_) => issue(issues, path, expected("object", kind(value))),
        },
        Shape::StringOr(of) => match value {
            Value::String(_) => {}
            Value::Array(items) => {
                // A union that fails reports itself, not its options' issues.
                let mut inner = Vec::new();
                check_items(items, of, path, &mut inner);
                if !inner.is_empty() {
                    issue(issues, path, String::from("Invalid input"));
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::Object(_) => {
                issue(issues, path, String::from("Invalid input"))
            }
        },
    }
}

fn check_items(items: &mut [Value], of: &Shape, path: &mut String, issues: &mut Vec<Issue>) {
    for (index, item) in items.iter_mut().enumerate() {
        let at = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        push_index(path, index);
        check_value(item, of, path, issues);
        path.truncate(at);
    }
}

/// An integer judged as JavaScript judges it: the literal read as a double
/// (round to nearest), then integral, inside the safe range, inside `range`.
fn check_integer(value: &Value, range: Range, path: &str, issues: &mut Vec<Issue>) {
    let Some(x) = value.as_f64().filter(|x| x.is_finite()) else {
        issue(issues, path, expected("number", kind(value)));
        return;
    };
    if !is_integral(x) {
        issue(issues, path, expected("int", "number"));
        return;
    }
    if x > MAX_SAFE_INTEGER {
        issue(
            issues,
            path,
            String::from("Too big: expected int to be <9007199254740991"),
        );
    } else if x < -MAX_SAFE_INTEGER {
        issue(
            issues,
            path,
            String::from("Too small: expected int to be >-9007199254740991"),
        );
    }
    if x < range.min() {
        let reason = match range {
            Range::Signed => "Too small: expected number to be >=-9007199254740991",
            Range::Count => "Too small: expected number to be >=0",
        };
        issue(issues, path, String::from(reason));
    }
    if x > MAX_SAFE_INTEGER {
        issue(
            issues,
            path,
            String::from("Too big: expected number to be <=9007199254740991"),
        );
    }
}

/// Whether a finite double is an integer (without `f64::fract`, which
/// needs `std`): from `2^52` up every double is one, below it truncation
/// through `i64` is exact.
fn is_integral(x: f64) -> bool {
    x.abs() >= 4_503_599_627_370_496.0 || (x as i64) as f64 == x
}

/// `^(/([^/~]|~[01])*)*$`: empty, or `/`-led segments whose `~` is always
/// followed by `0` or `1`.
fn is_pointer(s: &str) -> bool {
    let bytes = s.as_bytes();
    if let Some(first) = bytes.first() {
        if *first != b'/' {
            return false;
        }
    }
    let mut iter = bytes.iter();
    while let Some(b) = iter.next() {
        if *b == b'~' {
            match iter.next() {
                Some(b'0') | Some(b'1') => {}
                _ => return false,
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers() {
        for ok in ["", "/", "/a", "/a/b", "/~0", "/~1x", "//", "/a~01"] {
            assert!(is_pointer(ok), "{ok}");
        }
        for bad in ["a", "/a~2", "/~", "~0", " /a"] {
            assert!(!is_pointer(bad), "{bad}");
        }
    }

    fn reasons(v: Value, range: Range) -> Vec<String> {
        let mut issues = Vec::new();
        check_integer(&v, range, "n", &mut issues);
        issues.into_iter().map(|i| i.reason).collect()
    }

    #[test]
    fn integers_as_javascript_reads_them() {
        assert!(reasons(json!(9_007_199_254_740_991u64), Range::Signed).is_empty());
        assert!(reasons(json!(-9_007_199_254_740_991i64), Range::Signed).is_empty());
        assert!(reasons(json!(1e3), Range::Count).is_empty());
        assert!(reasons(json!(-0.0), Range::Count).is_empty());
        assert!(reasons(json!(-1e300), Range::Signed).len() == 2);
        assert!(
            is_integral(4_503_599_627_370_497.0)
                && !is_integral(-0.5)
                && !is_integral(4_503_599_627_370_495.5)
        );
        assert_eq!(
            reasons(json!(1.5), Range::Signed),
            ["Invalid input: expected int, received number"]
        );
        assert_eq!(
            reasons(json!("1"), Range::Signed),
            ["Invalid input: expected number, received string"]
        );
        assert_eq!(
            reasons(json!(9_007_199_254_740_992u64), Range::Count).len(),
            2
        );
        assert_eq!(
            reasons(json!(-1), Range::Count),
            ["Too small: expected number to be >=0"]
        );
    }
}
