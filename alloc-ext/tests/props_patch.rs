//! Properties of JSON Patch (RFC 6902) as the reducer applies it: a failed
//! patch leaves the document exactly as it was, and the RFC's laws hold
//! (add then remove restores, replace then test passes, move there and back
//! restores, copy then remove restores, a document tests equal to itself).
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unwrap_used
)]

use agui_alloc::patch::{apply_patch, json_eq};
use proptest::prelude::*;
use serde_json::{json, Value};

fn doc() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..3).prop_map(|n| json!(n)),
        prop::sample::select(vec!["", "x", "~/"]).prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec!["a", "b", "~1", "0"]),
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
        ]
    })
}

fn pointer() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!["a", "b", "~01", "0", "1", "2", "-", "01", ""]),
        0..3,
    )
    .prop_map(|segs| segs.iter().map(|s| format!("/{s}")).collect())
}

fn op() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec![
            "add", "remove", "replace", "move", "copy", "test", "bogus",
        ]),
        pointer(),
        pointer(),
        doc(),
    )
        .prop_map(
            |(op, path, from, value)| json!({"op": op, "path": path, "from": from, "value": value}),
        )
}

fn patched(doc: &Value, ops: Value) -> Result<Value, ()> {
    let mut d = doc.clone();
    apply_patch(&mut d, &ops).map(|()| d).map_err(drop)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn failed_patch_changes_nothing(d in doc(), ops in prop::collection::vec(op(), 1..5)) {
        let mut work = d.clone();
        if apply_patch(&mut work, &Value::Array(ops)).is_err() {
            prop_assert_eq!(&work, &d);
        }
    }

    #[test]
    fn add_then_remove_restores(d in doc(), path in pointer(), v in doc()) {
        let absent = d.pointer(&path).is_none() || d.pointer(&path).is_some_and(|_| is_array_parent(&d, &path));
        if path.is_empty() || path.ends_with("/-") || !absent {
            return Ok(());
        }
        if let Ok(added) = patched(&d, json!([{"op": "add", "path": path, "value": v}])) {
            let back = patched(&added, json!([{"op": "remove", "path": path}]));
            prop_assert!(back.as_ref().is_ok_and(|b| json_eq(b, &d)), "{} on {} -> {:?}", path, d, back);
        }
    }

    #[test]
    fn replace_then_test_passes(d in doc(), path in pointer(), v in doc()) {
        if let Ok(replaced) = patched(&d, json!([{"op": "replace", "path": path, "value": v}])) {
            let test = json!([{"op": "test", "path": path, "value": v}]);
            prop_assert!(patched(&replaced, test).is_ok(), "replace {}", path);
        }
    }

    #[test]
    fn a_document_tests_equal_to_itself(d in doc(), path in pointer()) {
        if let Some(v) = d.pointer(&path).cloned() {
            let test = json!([{"op": "test", "path": path, "value": v}]);
            prop_assert!(patched(&d, test).is_ok(), "test {}", path);
        }
    }

    #[test]
    fn move_there_and_back_restores(d in doc(), from in pointer(), path in pointer()) {
        // Only to a new object key, so the way back lands where it started.
        if from.is_empty() || d.pointer(&path).is_some() || !parent_is_object(&d, &path) || !parent_is_object(&d, &from) {
            return Ok(());
        }
        if let Ok(moved) = patched(&d, json!([{"op": "move", "from": from, "path": path}])) {
            let back = patched(&moved, json!([{"op": "move", "from": path, "path": from}]));
            prop_assert!(back.as_ref().is_ok_and(|b| json_eq(b, &d)), "{} -> {} on {}", from, path, d);
        }
    }

    #[test]
    fn copy_then_remove_restores(d in doc(), from in pointer(), path in pointer()) {
        if path.is_empty() || path.ends_with("/-") || d.pointer(&path).is_some() || !parent_is_object(&d, &path) {
            return Ok(());
        }
        if let Ok(copied) = patched(&d, json!([{"op": "copy", "from": from, "path": path}])) {
            let back = patched(&copied, json!([{"op": "remove", "path": path}]));
            prop_assert!(back.as_ref().is_ok_and(|b| json_eq(b, &d)), "{} -> {} on {}", from, path, d);
        }
    }
}

fn parent(path: &str) -> &str {
    path.rfind('/').map_or("", |at| &path[..at])
}

fn parent_is_object(d: &Value, path: &str) -> bool {
    !path.is_empty() && d.pointer(parent(path)).is_some_and(Value::is_object)
}

/// An add at an existing array index inserts, so removing it restores.
fn is_array_parent(d: &Value, path: &str) -> bool {
    d.pointer(parent(path)).is_some_and(Value::is_array)
}
