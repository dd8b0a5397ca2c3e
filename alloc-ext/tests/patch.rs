//! JSON Patch (SPEC section 6): RFC 6902 appendix A, our edge cases,
//! atomicity, the conformance vectors' STATE_DELTAs, and property tests.
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unwrap_used
)]

use agui_alloc::patch::{apply_patch, json_eq, PatchCause, PatchError};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Applies `patch` to `doc` and returns the result, panicking on failure.
fn patched(doc: Value, patch: Value) -> Value {
    let mut doc = doc;
    if let Err(e) = apply_patch(&mut doc, &patch) {
        panic!("patch {patch} failed: {e}");
    }
    doc
}

/// Applies `patch`, asserts it fails and that `doc` is untouched; returns the error.
fn rejected(doc: Value, patch: Value) -> PatchError {
    let mut after = doc.clone();
    let err = apply_patch(&mut after, &patch).expect_err("patch should fail");
    assert_eq!(after, doc, "document changed by failed patch {patch}");
    err
}

/// The cause of a failure on operation `index`.
fn cause_at(doc: Value, patch: Value, index: usize) -> PatchCause {
    let err = rejected(doc, patch);
    assert_eq!(err.index(), Some(index), "{err}");
    err.cause().cloned().unwrap()
}

// ---------------------------------------------------------------- RFC 6902 A

#[test]
fn rfc_a1_add_object_member() {
    let doc = patched(
        json!({"foo": "bar"}),
        json!([{"op": "add", "path": "/baz", "value": "qux"}]),
    );
    assert_eq!(doc, json!({"baz": "qux", "foo": "bar"}));
}

#[test]
fn rfc_a2_add_array_element() {
    let doc = patched(
        json!({"foo": ["bar", "baz"]}),
        json!([{"op": "add", "path": "/foo/1", "value": "qux"}]),
    );
    assert_eq!(doc, json!({"foo": ["bar", "qux", "baz"]}));
}

#[test]
fn rfc_a3_remove_object_member() {
    let doc = patched(
        json!({"baz": "qux", "foo": "bar"}),
        json!([{"op": "remove", "path": "/baz"}]),
    );
    assert_eq!(doc, json!({"foo": "bar"}));
}

#[test]
fn rfc_a4_remove_array_element() {
    let doc = patched(
        json!({"foo": ["bar", "qux", "baz"]}),
        json!([{"op": "remove", "path": "/foo/1"}]),
    );
    assert_eq!(doc, json!({"foo": ["bar", "baz"]}));
}

#[test]
fn rfc_a5_replace_value() {
    let doc = patched(
        json!({"baz": "qux", "foo": "bar"}),
        json!([{"op": "replace", "path": "/baz", "value": "boo"}]),
    );
    assert_eq!(doc, json!({"baz": "boo", "foo": "bar"}));
}

#[test]
fn rfc_a6_move_value() {
    let doc = patched(
        json!({"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}}),
        json!([{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}]),
    );
    assert_eq!(
        doc,
        json!({"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}})
    );
}

#[test]
fn rfc_a7_move_array_element() {
    let doc = patched(
        json!({"foo": ["all", "grass", "cows", "eat"]}),
        json!([{"op": "move", "from": "/foo/1", "path": "/foo/3"}]),
    );
    assert_eq!(doc, json!({"foo": ["all", "cows", "eat", "grass"]}));
}

#[test]
fn rfc_a8_test_success() {
    let doc = json!({"baz": "qux", "foo": ["a", 2, "c"]});
    let after = patched(
        doc.clone(),
        json!([
            {"op": "test", "path": "/baz", "value": "qux"},
            {"op": "test", "path": "/foo/1", "value": 2}
        ]),
    );
    assert_eq!(after, doc);
}

#[test]
fn rfc_a9_test_error() {
    let cause = cause_at(
        json!({"baz": "qux"}),
        json!([{"op": "test", "path": "/baz", "value": "bar"}]),
        0,
    );
    assert_eq!(cause, PatchCause::TestFailed);
}

#[test]
fn rfc_a10_add_nested_member_object() {
    let doc = patched(
        json!({"foo": "bar"}),
        json!([{"op": "add", "path": "/child", "value": {"grandchild": {}}}]),
    );
    assert_eq!(doc, json!({"foo": "bar", "child": {"grandchild": {}}}));
}

#[test]
fn rfc_a11_ignore_unrecognized_elements() {
    let doc = patched(
        json!({"foo": "bar"}),
        json!([{"op": "add", "path": "/baz", "value": "qux", "xyz": 123}]),
    );
    assert_eq!(doc, json!({"foo": "bar", "baz": "qux"}));
}

#[test]
fn rfc_a12_add_to_nonexistent_target() {
    let cause = cause_at(
        json!({"foo": "bar"}),
        json!([{"op": "add", "path": "/baz/bat", "value": "qux"}]),
        0,
    );
    assert_eq!(cause, PatchCause::PathNotFound);
}

#[test]
fn rfc_a13_invalid_patch_document() {
    // serde_json keeps the last of duplicate members, so this reads as a
    // remove of a missing member: an error either way, as the RFC wants.
    let patch: Value =
        serde_json::from_str(r#"[{"op": "add", "path": "/baz", "value": "qux", "op": "remove"}]"#)
            .unwrap();
    rejected(json!({"foo": "bar"}), patch);
}

#[test]
fn rfc_a14_tilde_escaping() {
    let doc = json!({"/": 9, "~1": 10});
    let after = patched(
        doc.clone(),
        json!([{"op": "test", "path": "/~01", "value": 10}]),
    );
    assert_eq!(after, doc);
}

#[test]
fn rfc_a15_string_is_not_number() {
    let cause = cause_at(
        json!({"/": 9, "~1": 10}),
        json!([{"op": "test", "path": "/~01", "value": "10"}]),
        0,
    );
    assert_eq!(cause, PatchCause::TestFailed);
}

#[test]
fn rfc_a16_add_array_value() {
    let doc = patched(
        json!({"foo": ["bar"]}),
        json!([{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}]),
    );
    assert_eq!(doc, json!({"foo": ["bar", ["abc", "def"]]}));
}

// ------------------------------------------------------------------- root

#[test]
fn root_add_and_replace_replace_the_document() {
    let doc = patched(
        json!({"a": 1}),
        json!([{"op": "add", "path": "", "value": [1]}]),
    );
    assert_eq!(doc, json!([1]));
    let doc = patched(doc, json!([{"op": "replace", "path": "", "value": null}]));
    assert_eq!(doc, json!(null));
}

#[test]
fn root_remove_leaves_null() {
    let doc = patched(json!({"a": 1}), json!([{"op": "remove", "path": ""}]));
    assert_eq!(doc, Value::Null);
}

#[test]
fn root_test_compares_whole_document() {
    let doc = json!({"a": [1, {"b": 2}]});
    patched(
        doc.clone(),
        json!([{"op": "test", "path": "", "value": {"a": [1.0, {"b": 2}]}}]),
    );
    let cause = cause_at(doc, json!([{"op": "test", "path": "", "value": {}}]), 0);
    assert_eq!(cause, PatchCause::TestFailed);
}

#[test]
fn root_move_and_copy_take_the_value_at_from() {
    let moved = patched(
        json!({"a": {"b": 1}, "c": 2}),
        json!([{"op": "move", "from": "/a", "path": ""}]),
    );
    assert_eq!(moved, json!({"b": 1}));
    let copied = patched(
        json!({"a": {"b": 1}}),
        json!([{"op": "copy", "from": "/a", "path": ""}]),
    );
    assert_eq!(copied, json!({"b": 1}));
}

#[test]
fn root_move_or_copy_needs_an_existing_from() {
    for op in ["move", "copy"] {
        let cause = cause_at(
            json!({"a": 1}),
            json!([{"op": op, "from": "/missing", "path": ""}]),
            0,
        );
        assert_eq!(cause, PatchCause::FromNotFound, "{op}");
    }
}

#[test]
fn root_copy_into_itself_and_move_onto_itself() {
    let doc = patched(
        json!({"a": 1}),
        json!([{"op": "copy", "from": "", "path": "/b"}]),
    );
    assert_eq!(doc, json!({"a": 1, "b": {"a": 1}}));
    let same = patched(doc.clone(), json!([{"op": "move", "from": "", "path": ""}]));
    assert_eq!(same, doc);
    let cause = cause_at(doc, json!([{"op": "move", "from": "", "path": "/c"}]), 0);
    assert_eq!(cause, PatchCause::MoveIntoChild);
}

#[test]
fn root_vector_sequence() {
    // hand-patch-root-ops, as three patches.
    let doc = patched(
        json!({"a": {"b": 1}}),
        json!([{"op": "copy", "from": "/a", "path": ""}]),
    );
    let doc = patched(doc, json!([{"op": "remove", "path": ""}]));
    let doc = patched(
        doc,
        json!([
            {"op": "add", "path": "", "value": [1, 2]},
            {"op": "add", "path": "/-", "value": 3},
            {"op": "test", "path": "", "value": [1, 2, 3]}
        ]),
    );
    assert_eq!(doc, json!([1, 2, 3]));
}

// ------------------------------------------------------------------- "-"

#[test]
fn dash_appends_for_add_move_copy() {
    let doc = patched(
        json!({"l": [1], "x": 2}),
        json!([
            {"op": "add", "path": "/l/-", "value": 9},
            {"op": "move", "from": "/x", "path": "/l/-"},
            {"op": "copy", "from": "/l/0", "path": "/l/-"}
        ]),
    );
    assert_eq!(doc, json!({"l": [1, 9, 2, 1]}));
}

#[test]
fn dash_is_rejected_where_an_element_must_exist() {
    let doc = json!({"l": [1, 2]});
    let patches = [
        json!([{"op": "remove", "path": "/l/-"}]),
        json!([{"op": "replace", "path": "/l/-", "value": 0}]),
        json!([{"op": "test", "path": "/l/-", "value": 2}]),
        json!([{"op": "copy", "from": "/l/-", "path": "/c"}]),
        json!([{"op": "move", "from": "/l/-", "path": "/c"}]),
        json!([{"op": "add", "path": "/l/-/x", "value": 0}]),
    ];
    for patch in patches {
        let cause = cause_at(doc.clone(), patch.clone(), 0);
        assert_eq!(cause, PatchCause::BadIndex("-".into()), "{patch}");
    }
}

#[test]
fn dash_and_digits_are_plain_keys_in_objects() {
    let doc = patched(
        json!({"o": {}}),
        json!([
            {"op": "add", "path": "/o/-", "value": 1},
            {"op": "add", "path": "/o/01", "value": 2},
            {"op": "test", "path": "/o/-", "value": 1},
            {"op": "replace", "path": "/o/01", "value": 3}
        ]),
    );
    assert_eq!(doc, json!({"o": {"-": 1, "01": 3}}));
}

// ---------------------------------------------------------------- escapes

#[test]
fn tilde_escapes_and_literal_tildes() {
    let doc = patched(
        json!({"a/b": 1, "m~n": 2}),
        json!([
            {"op": "replace", "path": "/a~1b", "value": 10},
            {"op": "move", "from": "/m~0n", "path": "/~01"},
            {"op": "add", "path": "/x~2y", "value": 3},
            {"op": "add", "path": "/end~", "value": 4},
            {"op": "add", "path": "/~", "value": 5}
        ]),
    );
    assert_eq!(
        doc,
        json!({"a/b": 10, "~1": 2, "x~2y": 3, "end~": 4, "~": 5})
    );
}

#[test]
fn empty_key_segments() {
    let doc = patched(
        json!({}),
        json!([
            {"op": "add", "path": "/", "value": {}},
            {"op": "add", "path": "//", "value": 1}
        ]),
    );
    assert_eq!(doc, json!({"": {"": 1}}));
}

// ---------------------------------------------------------------- indices

#[test]
fn malformed_array_indices_are_rejected() {
    let doc = json!({"l": [1, 2, 3]});
    for seg in [
        "01",
        "00",
        "",
        "+1",
        "-1",
        " 1",
        "1 ",
        "1.0",
        "0x1",
        "99999999999999999999999",
    ] {
        for op in [
            json!({"op": "add", "path": format!("/l/{seg}"), "value": 0}),
            json!({"op": "test", "path": format!("/l/{seg}"), "value": 2}),
            json!({"op": "remove", "path": format!("/l/{seg}")}),
            json!({"op": "replace", "path": format!("/l/{seg}"), "value": 0}),
            json!({"op": "copy", "from": format!("/l/{seg}"), "path": "/c"}),
            json!({"op": "move", "from": "/l/0", "path": format!("/l/{seg}")}),
        ] {
            let cause = cause_at(doc.clone(), json!([op.clone()]), 0);
            assert_eq!(cause, PatchCause::BadIndex(seg.into()), "{op}");
        }
    }
}

#[test]
fn add_inserts_up_to_length_only() {
    let doc = patched(
        json!([1]),
        json!([
            {"op": "add", "path": "/0", "value": 0},
            {"op": "add", "path": "/2", "value": 2}
        ]),
    );
    assert_eq!(doc, json!([0, 1, 2]));
    let cause = cause_at(doc, json!([{"op": "add", "path": "/4", "value": 4}]), 0);
    assert_eq!(cause, PatchCause::IndexOutOfRange { index: 4, len: 3 });
}

#[test]
fn existing_index_needed_for_remove_replace_test_from() {
    let doc = json!([1, 2]);
    let patches = [
        json!([{"op": "remove", "path": "/2"}]),
        json!([{"op": "replace", "path": "/2", "value": 0}]),
        json!([{"op": "test", "path": "/2", "value": null}]),
        json!([{"op": "copy", "from": "/2", "path": "/0"}]),
        json!([{"op": "move", "from": "/2", "path": "/0"}]),
    ];
    for patch in patches {
        let cause = cause_at(doc.clone(), patch.clone(), 0);
        assert_eq!(
            cause,
            PatchCause::IndexOutOfRange { index: 2, len: 2 },
            "{patch}"
        );
    }
}

#[test]
fn copy_and_move_targets_past_the_end_append() {
    let doc = patched(
        json!({"l": [1, 2], "x": "x"}),
        json!([
            {"op": "copy", "from": "/l/0", "path": "/l/7"},
            {"op": "move", "from": "/x", "path": "/l/100"},
            {"op": "move", "from": "/l/0", "path": "/l/4"}
        ]),
    );
    assert_eq!(doc, json!({"l": [2, 1, "x", 1]}));
}

// ---------------------------------------------------------------- objects

#[test]
fn add_overwrites_and_remove_replace_need_the_key() {
    let doc = patched(
        json!({"a": 1}),
        json!([{"op": "add", "path": "/a", "value": 2}]),
    );
    assert_eq!(doc, json!({"a": 2}));
    for patch in [
        json!([{"op": "remove", "path": "/b"}]),
        json!([{"op": "replace", "path": "/b", "value": 0}]),
    ] {
        assert_eq!(cause_at(doc.clone(), patch, 0), PatchCause::PathNotFound);
    }
}

#[test]
fn parent_must_exist_and_be_a_container() {
    let doc = json!({"n": 1, "s": "str", "z": null, "o": {}});
    for path in ["/missing/x", "/n/x", "/s/0", "/z/x", "/o/a/b"] {
        let cause = cause_at(
            doc.clone(),
            json!([{"op": "add", "path": path, "value": 0}]),
            0,
        );
        assert_eq!(cause, PatchCause::PathNotFound, "{path}");
    }
}

#[test]
fn null_values_are_values() {
    let doc = patched(
        json!({"a": 1}),
        json!([
            {"op": "add", "path": "/b", "value": null},
            {"op": "replace", "path": "/a", "value": null},
            {"op": "test", "path": "/b", "value": null}
        ]),
    );
    assert_eq!(doc, json!({"a": null, "b": null}));
}

// ------------------------------------------------------------------- move

#[test]
fn move_into_own_child_fails() {
    let cause = cause_at(
        json!({"a": {"b": {}}}),
        json!([{"op": "move", "from": "/a", "path": "/a/b/c"}]),
        0,
    );
    assert_eq!(cause, PatchCause::MoveIntoChild);
    let cause = cause_at(
        json!({"a": [{}]}),
        json!([{"op": "move", "from": "/a/0", "path": "/a/0/x"}]),
        0,
    );
    assert_eq!(cause, PatchCause::MoveIntoChild);
}

#[test]
fn move_prefix_is_segment_wise() {
    let doc = patched(
        json!({"a": 1, "ab": {}}),
        json!([{"op": "move", "from": "/a", "path": "/ab/x"}]),
    );
    assert_eq!(doc, json!({"ab": {"x": 1}}));
}

#[test]
fn move_to_same_path_is_a_noop_but_from_must_exist() {
    let doc = json!({"a": [1, 2]});
    assert_eq!(
        patched(
            doc.clone(),
            json!([{"op": "move", "from": "/a/1", "path": "/a/1"}])
        ),
        doc
    );
    let cause = cause_at(doc, json!([{"op": "move", "from": "/b", "path": "/b"}]), 0);
    assert_eq!(cause, PatchCause::FromNotFound);
}

#[test]
fn move_child_over_its_parent() {
    let doc = patched(
        json!({"a": {"b": {"c": 1}}}),
        json!([{"op": "move", "from": "/a/b", "path": "/a"}]),
    );
    assert_eq!(doc, json!({"a": {"c": 1}}));
}

#[test]
fn copy_is_deep() {
    let doc = patched(
        json!({"a": {"b": [1]}}),
        json!([
            {"op": "copy", "from": "/a", "path": "/c"},
            {"op": "add", "path": "/c/b/-", "value": 2}
        ]),
    );
    assert_eq!(doc, json!({"a": {"b": [1]}, "c": {"b": [1, 2]}}));
}

// ------------------------------------------------------------ validation

#[test]
fn patch_must_be_an_array() {
    let mut doc = json!({});
    for patch in [json!({}), json!(null), json!("[]")] {
        assert_eq!(apply_patch(&mut doc, &patch), Err(PatchError::NotAnArray));
    }
    assert_eq!(doc, json!({}));
}

#[test]
fn empty_patch_succeeds() {
    assert_eq!(patched(json!({"a": 1}), json!([])), json!({"a": 1}));
}

#[test]
fn invalid_operations_are_rejected() {
    let cases = [
        (json!(1), PatchCause::NotAnObject),
        (json!({"path": "/a"}), PatchCause::MissingField("op")),
        (json!({"op": 1, "path": "/a"}), PatchCause::InvalidOp),
        (json!({"op": "_get", "path": "/a"}), PatchCause::InvalidOp),
        (
            json!({"op": "toString", "path": "/a"}),
            PatchCause::InvalidOp,
        ),
        (
            json!({"op": "frobnicate", "path": "/a"}),
            PatchCause::InvalidOp,
        ),
        (
            json!({"op": "Add", "path": "/a", "value": 1}),
            PatchCause::InvalidOp,
        ),
        (
            json!({"op": "add", "value": 1}),
            PatchCause::MissingField("path"),
        ),
        (
            json!({"op": "add", "path": 1, "value": 1}),
            PatchCause::InvalidPointer("path"),
        ),
        (
            json!({"op": "add", "path": "a", "value": 1}),
            PatchCause::InvalidPointer("path"),
        ),
        (
            json!({"op": "add", "path": "/a"}),
            PatchCause::MissingField("value"),
        ),
        (
            json!({"op": "replace", "path": "/a"}),
            PatchCause::MissingField("value"),
        ),
        (
            json!({"op": "test", "path": "/a"}),
            PatchCause::MissingField("value"),
        ),
        (
            json!({"op": "move", "path": "/b"}),
            PatchCause::MissingField("from"),
        ),
        (
            json!({"op": "copy", "path": "/b"}),
            PatchCause::MissingField("from"),
        ),
        (
            json!({"op": "copy", "from": "a", "path": "/b"}),
            PatchCause::InvalidPointer("from"),
        ),
        (
            json!({"op": "move", "from": null, "path": "/b"}),
            PatchCause::InvalidPointer("from"),
        ),
    ];
    for (op, want) in cases {
        let cause = cause_at(json!({"a": 1}), json!([op.clone()]), 0);
        assert_eq!(cause, want, "{op}");
    }
}

#[test]
fn proto_segments_are_forbidden() {
    let doc = json!({"a": {}, "constructor": {"prototype": 1}});
    let proto = PatchCause::ForbiddenSegment("\"__proto__\"");
    let ctor = PatchCause::ForbiddenSegment("\"prototype\" after \"constructor\"");
    let cases = [
        (
            json!({"op": "add", "path": "/__proto__/polluted", "value": 1}),
            &proto,
        ),
        (
            json!({"op": "add", "path": "/a/__proto__", "value": 1}),
            &proto,
        ),
        (
            json!({"op": "test", "path": "/__proto__", "value": 1}),
            &proto,
        ),
        (
            json!({"op": "copy", "from": "/__proto__", "path": "/b"}),
            &proto,
        ),
        (
            json!({"op": "move", "from": "/a", "path": "/__proto__"}),
            &proto,
        ),
        (
            json!({"op": "remove", "path": "/constructor/prototype"}),
            &ctor,
        ),
        (
            json!({"op": "copy", "from": "/constructor/prototype", "path": "/b"}),
            &ctor,
        ),
    ];
    for (op, want) in cases {
        let cause = cause_at(doc.clone(), json!([op.clone()]), 0);
        assert_eq!(&cause, want, "{op}");
    }
    // Either word alone, or not adjacent, is an ordinary key.
    let doc = patched(
        json!({}),
        json!([
            {"op": "add", "path": "/constructor", "value": {}},
            {"op": "add", "path": "/prototype", "value": {"constructor": 1}},
            {"op": "add", "path": "/constructor/x", "value": {}},
            {"op": "add", "path": "/constructor/x/prototype", "value": 2}
        ]),
    );
    assert_eq!(
        doc,
        json!({"constructor": {"x": {"prototype": 2}}, "prototype": {"constructor": 1}})
    );
}

#[test]
fn proto_vector_sequence() {
    // hand-patch-proto-banned: the second patch fails at its second op.
    let cause = cause_at(
        json!({}),
        json!([
            {"op": "add", "path": "/constructor", "value": {}},
            {"op": "add", "path": "/constructor/prototype", "value": 1}
        ]),
        1,
    );
    assert!(matches!(cause, PatchCause::ForbiddenSegment(_)));
}

// ----------------------------------------------------------------- errors

#[test]
fn error_messages_name_the_operation() {
    let doc = json!({"a": {"c": 1}, "l": []});
    let text = |patch: Value| rejected(doc.clone(), patch).to_string();
    assert_eq!(
        text(json!([
            {"op": "test", "path": "/a/c", "value": 1},
            {"op": "add", "path": "/x", "value": 1},
            {"op": "remove", "path": "/a/b"}
        ])),
        "operation 2 (remove /a/b): path not found"
    );
    assert_eq!(
        text(json!([{"op": "move", "from": "/a", "path": "/a/c/d"}])),
        "operation 0 (move /a/c/d from /a): cannot move a value into its own child"
    );
    assert_eq!(
        text(json!([{"op": "test", "path": "", "value": 1}])),
        "operation 0 (test \"\"): test failed: the value differs"
    );
    assert_eq!(
        text(json!([{"op": "add", "path": "/l/3", "value": 1}])),
        "operation 0 (add /l/3): array index 3 is out of range (length 0)"
    );
    assert_eq!(
        text(json!([{"value": 1}])),
        "operation 0 (?): missing required member \"op\""
    );
    assert_eq!(
        PatchError::NotAnArray.to_string(),
        "the patch is not a JSON array of operations"
    );
    let err = rejected(doc, json!([{"op": "copy", "from": "/nope", "path": "/b"}]));
    assert_eq!(
        err,
        PatchError::Operation {
            index: 0,
            op: Some("copy".into()),
            path: Some("/b".into()),
            from: Some("/nope".into()),
            cause: PatchCause::FromNotFound,
        }
    );
}

// -------------------------------------------------------------- atomicity

/// Operations of every kind that succeed on [`atomic_base`] (also after each other).
fn earlier_ops() -> Vec<Value> {
    vec![
        json!({"op": "add", "path": "/list/1", "value": "new"}),
        json!({"op": "add", "path": "/list/-", "value": {"deep": [1]}}),
        json!({"op": "add", "path": "/obj/k", "value": "new key"}),
        json!({"op": "add", "path": "/n", "value": "overwritten"}),
        json!({"op": "remove", "path": "/list/0"}),
        json!({"op": "remove", "path": "/obj"}),
        json!({"op": "replace", "path": "/n", "value": 2}),
        json!({"op": "replace", "path": "/list/0", "value": [0]}),
        json!({"op": "move", "from": "/n", "path": "/list/0"}),
        json!({"op": "move", "from": "/list/0", "path": "/list/-"}),
        json!({"op": "move", "from": "/list", "path": "/moved"}),
        json!({"op": "move", "from": "/s", "path": "/n"}),
        json!({"op": "copy", "from": "/list", "path": "/copy"}),
        json!({"op": "copy", "from": "/s", "path": "/list/0"}),
        json!({"op": "copy", "from": "/s", "path": "/s"}),
        json!({"op": "test", "path": "/s", "value": "s"}),
    ]
}

fn atomic_base() -> Value {
    json!({"n": 1, "s": "s", "list": [10, 20, 30], "obj": {"a": {"b": true}}})
}

/// Root-level operations that succeed anywhere.
fn root_ops() -> Vec<Value> {
    vec![
        json!({"op": "replace", "path": "", "value": {"whole": [1]}}),
        json!({"op": "add", "path": "", "value": [1, 2]}),
        json!({"op": "remove", "path": ""}),
    ]
}

#[test]
fn failed_third_op_undoes_every_pair_of_earlier_ops() {
    let failing = json!({"op": "test", "path": "", "value": "never equal"});
    let mut ops = earlier_ops();
    ops.extend(root_ops());
    let mut tried = 0;
    for first in &ops {
        for second in &ops {
            let base = atomic_base();
            let two = json!([first, second]);
            let mut probe = base.clone();
            if apply_patch(&mut probe, &two).is_err() {
                continue; // the pair itself does not apply; atomicity is checked below anyway
            }
            let err = rejected(base, json!([first, second, failing]));
            assert_eq!(err.index(), Some(2), "{first} {second}");
            tried += 1;
        }
    }
    assert!(tried > 150, "only {tried} pairs applied");
}

#[test]
fn failed_op_undoes_a_long_mixed_sequence() {
    // Keep every earlier op that still applies after the ones kept so far.
    let mut ops = Vec::new();
    let mut doc = atomic_base();
    for op in earlier_ops() {
        if apply_patch(&mut doc, &json!([op])).is_ok() {
            ops.push(op);
        }
    }
    assert!(ops.len() >= 12, "only {} ops kept", ops.len());
    ops.push(json!({"op": "add", "path": "/zz/x", "value": 0}));
    let err = rejected(atomic_base(), Value::Array(ops.clone()));
    assert_eq!(err.index(), Some(ops.len() - 1));
}

#[test]
fn failed_move_puts_the_value_back() {
    // The target's parent is missing: the value taken from `from` must return.
    let cause = cause_at(
        json!({"a": [1, 2, 3], "b": {}}),
        json!([
            {"op": "remove", "path": "/a/0"},
            {"op": "move", "from": "/a/0", "path": "/missing/x"}
        ]),
        1,
    );
    assert_eq!(cause, PatchCause::PathNotFound);
}

#[test]
fn vector_atomic_failure() {
    // hand-patch-atomic-failure
    let cause = cause_at(
        json!({"n": 1, "list": [1]}),
        json!([
            {"op": "replace", "path": "/n", "value": 2},
            {"op": "add", "path": "/list/5", "value": 9}
        ]),
        1,
    );
    assert_eq!(cause, PatchCause::IndexOutOfRange { index: 5, len: 1 });
}

#[test]
fn remove_on_a_falsy_scalar_document_is_a_noop() {
    // Reference quirk kept for vector gen-1-186-valid (see patch.rs).
    for doc in [json!(""), json!(0), json!(-0.0), json!(false)] {
        let after = patched(doc.clone(), json!([{"op": "remove", "path": "/a"}]));
        assert_eq!(after, doc);
    }
    // Only a one-segment remove, only on those scalars.
    for (doc, patch) in [
        (json!(""), json!([{"op": "remove", "path": "/a/b"}])),
        (
            json!(""),
            json!([{"op": "replace", "path": "/a", "value": 1}]),
        ),
        (json!(""), json!([{"op": "add", "path": "/a", "value": 1}])),
        (
            json!(0),
            json!([{"op": "test", "path": "/a", "value": null}]),
        ),
        (json!(null), json!([{"op": "remove", "path": "/a"}])),
        (json!("x"), json!([{"op": "remove", "path": "/a"}])),
        (json!(1), json!([{"op": "remove", "path": "/a"}])),
        (json!(true), json!([{"op": "remove", "path": "/a"}])),
        (json!(""), json!([{"op": "remove", "path": "/__proto__"}])),
    ] {
        rejected(doc, patch);
    }
    let doc = patched(
        json!({"a": 1}),
        json!([
            {"op": "add", "path": "", "value": ""},
            {"op": "remove", "path": "/a"}
        ]),
    );
    assert_eq!(doc, json!(""));
}

// --------------------------------------------------------------- json_eq

#[test]
fn json_eq_rules() {
    assert!(json_eq(&json!(1), &json!(1.0)));
    assert!(json_eq(&json!(-0.0), &json!(0)));
    assert!(json_eq(&json!({"a": 1, "b": 2}), &json!({"b": 2, "a": 1})));
    assert!(json_eq(&json!([{"x": [1.5]}]), &json!([{"x": [1.5]}])));
    assert!(!json_eq(&json!(1), &json!("1")));
    assert!(!json_eq(&json!([1, 2]), &json!([2, 1])));
    assert!(!json_eq(&json!([1]), &json!([1, 1])));
    assert!(!json_eq(&json!({"a": 1}), &json!({"a": 1, "b": 1})));
    assert!(!json_eq(&json!({"a": null}), &json!({"b": null})));
    assert!(!json_eq(&json!(null), &json!(false)));
    assert!(!json_eq(&json!(0), &json!(false)));
    assert!(!json_eq(&json!(1.5), &json!(1)));
    // As JavaScript: integers beyond 2^53 compare as their double.
    assert!(json_eq(
        &json!(9_007_199_254_740_993_u64),
        &json!(9_007_199_254_740_992_u64)
    ));
}

// --------------------------------------------------------------- vectors

fn vector_lines() -> Vec<Value> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors");
    let mut streams = Vec::new();
    for file in ["streams.jsonl", "handmade.jsonl"] {
        let text = std::fs::read_to_string(format!("{dir}/{file}")).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            streams.push(serde_json::from_str(line).unwrap());
        }
    }
    streams
}

/// Folds the state events of `events` from `{}` (SPEC section 5), checking
/// that every failed patch left the state as it was.
fn fold_state(events: &[Value]) -> Value {
    let mut state = json!({});
    for event in events {
        match event["type"].as_str() {
            Some("STATE_SNAPSHOT") => state = event.get("snapshot").cloned().unwrap_or(Value::Null),
            Some("STATE_DELTA") => {
                let before = state.clone();
                if apply_patch(&mut state, &event["delta"]).is_err() {
                    assert_eq!(state, before, "failed delta changed state: {event}");
                }
            }
            _ => {}
        }
    }
    state
}

#[test]
fn vector_state_deltas() {
    let mut checked = 0;
    let mut with_delta = 0;
    for stream in vector_lines() {
        let events = stream["events"].as_array().unwrap();
        let chunked = events
            .iter()
            .any(|e| e["type"].as_str().is_some_and(|t| t.ends_with("_CHUNK")));
        if !stream["expect"]["error"].is_null() || chunked {
            continue;
        }
        let state = fold_state(events);
        assert!(
            json_eq(&state, &stream["expect"]["state"]),
            "{}: got {state}, want {}",
            stream["name"],
            stream["expect"]["state"]
        );
        checked += 1;
        if events.iter().any(|e| e["type"] == "STATE_DELTA") {
            with_delta += 1;
        }
    }
    assert!(checked > 300, "only {checked} streams checked");
    assert!(with_delta >= 177, "only {with_delta} streams with deltas");
}

#[test]
fn vector_state_before_errors() {
    // Streams that stop at an error: the expected state is the fold of the
    // frames before it (one event per frame, chunks never touch state).
    let mut checked = 0;
    for stream in vector_lines() {
        let Some(index) = stream["expect"]["error"]["index"].as_u64() else {
            continue;
        };
        let events = stream["events"].as_array().unwrap();
        let before = &events[..usize::try_from(index).unwrap().min(events.len())];
        let state = fold_state(before);
        assert!(
            json_eq(&state, &stream["expect"]["state"]),
            "{}: got {state}, want {}",
            stream["name"],
            stream["expect"]["state"]
        );
        checked += 1;
    }
    assert!(checked > 0);
}

// -------------------------------------------------------------- proptest

/// Small JSON values whose keys and strings collide often, so that
/// generated pointers hit existing members.
fn arb_json() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec!["a", "b", "-", "0", "1", "~", "a/b", ""]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..4).prop_map(Value::from),
        prop::sample::select(vec![0.5f64, 1.0, -2.0]).prop_map(Value::from),
        key.clone().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(key.clone().prop_map(String::from), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Every pointer into `doc`, plus near misses under each container.
fn pointers(doc: &Value, at: &str, out: &mut Vec<String>) {
    out.push(at.to_string());
    match doc {
        Value::Object(map) => {
            for (k, v) in map {
                pointers(v, &format!("{at}/{}", escape(k)), out);
            }
            out.push(format!("{at}/zz"));
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                pointers(v, &format!("{at}/{i}"), out);
            }
            out.push(format!("{at}/-"));
            out.push(format!("{at}/{}", items.len() + 2));
            out.push(format!("{at}/01"));
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            out.push(format!("{at}/x"))
        }
    }
}

/// An operation built from two picked pointers and a value.
fn make_op(kind: usize, path: &str, from: &str, value: &Value) -> Value {
    match kind % 6 {
        0 => json!({"op": "add", "path": path, "value": value}),
        1 => json!({"op": "remove", "path": path}),
        2 => json!({"op": "replace", "path": path, "value": value}),
        3 => json!({"op": "move", "from": from, "path": path}),
        4 => json!({"op": "copy", "from": from, "path": path}),
        _ => json!({"op": "test", "path": path, "value": value}),
    }
}

type RawOp = (usize, prop::sample::Index, prop::sample::Index, Value);

fn arb_case() -> impl Strategy<Value = (Value, Vec<RawOp>)> {
    (
        arb_json(),
        prop::collection::vec(
            (
                0usize..6,
                any::<prop::sample::Index>(),
                any::<prop::sample::Index>(),
                arb_json(),
            ),
            0..8,
        ),
    )
}

fn build_patch(doc: &Value, raw: &[RawOp]) -> Vec<Value> {
    let mut ptrs = Vec::new();
    pointers(doc, "", &mut ptrs);
    raw.iter()
        .map(|(kind, p, f, v)| make_op(*kind, p.get::<String>(&ptrs), f.get::<String>(&ptrs), v))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// A patch that ends in a failing operation never changes the document.
    #[test]
    fn failing_patch_leaves_document_unchanged((doc, raw) in arb_case()) {
        let mut ops = build_patch(&doc, &raw);
        ops.push(json!({"op": "remove", "path": "/__proto__"}));
        let mut after = doc.clone();
        prop_assert!(apply_patch(&mut after, &Value::Array(ops)).is_err());
        prop_assert_eq!(after, doc);
    }

    /// A whole patch equals its operations applied one by one, or nothing
    /// at all if one of them fails.
    #[test]
    fn patch_is_all_or_nothing((doc, raw) in arb_case()) {
        let ops = build_patch(&doc, &raw);
        let mut stepwise = doc.clone();
        let mut failed_at = None;
        for (i, op) in ops.iter().enumerate() {
            if apply_patch(&mut stepwise, &json!([op])).is_err() {
                failed_at = Some(i);
                break;
            }
        }
        let mut whole = doc.clone();
        let result = apply_patch(&mut whole, &Value::Array(ops));
        prop_assert_eq!(result.as_ref().err().and_then(PatchError::index), failed_at);
        if failed_at.is_some() {
            prop_assert_eq!(whole, doc);
        } else {
            prop_assert_eq!(whole, stepwise);
        }
    }

    /// Adding a value and removing it again restores the document.
    #[test]
    fn add_then_remove_restores(doc in arb_json(), pick in any::<prop::sample::Index>(),
                                slot in any::<prop::sample::Index>(), value in arb_json()) {
        let mut ptrs = Vec::new();
        pointers(&doc, "", &mut ptrs);
        let containers: Vec<&String> = ptrs
            .iter()
            .filter(|p| doc.pointer(p).is_some_and(|v| v.is_array() || v.is_object()))
            .collect();
        prop_assume!(!containers.is_empty());
        let at = pick.get(&containers);
        let path = match doc.pointer(at).unwrap() {
            Value::Array(items) => format!("{at}/{}", slot.index(items.len() + 1)),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) | Value::Object(_) => format!("{at}/fresh~1key"),
        };
        let patch = json!([
            {"op": "add", "path": path, "value": value},
            {"op": "test", "path": path, "value": value},
            {"op": "remove", "path": path}
        ]);
        let mut after = doc.clone();
        prop_assert!(apply_patch(&mut after, &patch).is_ok());
        prop_assert_eq!(after, doc);
    }
}
