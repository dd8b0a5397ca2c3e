//! JSON Patch on arbitrary documents and patches. The input is JSON
//! `[document, patch]`.
//! - a failed patch leaves the document exactly as it was (atomicity);
//! - the measured patch reports the compact JSON length of its result;
//! - a patch that applies gives the same result on a copy (determinism);
//! - RFC 6902 laws: after a successful `add`/`replace` of `v` at `p` as the
//!   last operation, `test p v` passes; an `add` of a new object key or
//!   array element followed by `remove` of it restores the document.
#![no_main]

use agui_alloc::patch::{apply_patch, apply_patch_sized, json_eq};
use agui_alloc::size::{json_size, Size};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Array(pair)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let (Some(doc), Some(patch)) = (pair.first(), pair.get(1)) else {
        return;
    };
    let before = doc.clone();
    let mut doc = doc.clone();
    sized(&before, patch);
    match apply_patch(&mut doc, patch) {
        Err(_) => assert!(json_eq(&doc, &before) && doc == before, "a failed patch changed the document"),
        Ok(()) => {
            let mut again = before.clone();
            assert!(apply_patch(&mut again, patch).is_ok(), "not deterministic");
            assert_eq!(again, doc, "not deterministic");
            laws(&doc, patch);
        }
    }
    // The add-then-remove law on the original document, for each single
    // `add` of the patch that targets a place that does not exist yet.
    if let Some(ops) = patch.as_array() {
        for op in ops.iter().take(8) {
            add_then_remove(&before, op);
        }
    }
});

/// The measured patch (issue 11) gives the same result, and the size it
/// reports is the compact JSON length of that result.
fn sized(before: &Value, patch: &Value) {
    let unbounded = Size { bytes: usize::MAX, depth: usize::MAX };
    let mut doc = before.clone();
    match apply_patch_sized(&mut doc, patch, json_size(before), unbounded) {
        Ok(size) => {
            assert_eq!(size.bytes, serde_json::to_string(&doc).unwrap().len(), "size drifted");
            assert!(size.depth >= json_size(&doc).depth, "depth under the real one");
        }
        Err(_) => assert_eq!(&doc, before, "a refused patch changed the document"),
    }
}

fn laws(after: &Value, patch: &Value) {
    let Some(last) = patch.as_array().and_then(|ops| ops.last()) else {
        return;
    };
    let (Some(op), Some(path), Some(value)) = (
        last.get("op").and_then(Value::as_str),
        last.get("path").and_then(Value::as_str),
        last.get("value"),
    ) else {
        return;
    };
    if (op == "add" || op == "replace") && !path.ends_with("/-") {
        let mut doc = after.clone();
        let test = json!([{"op": "test", "path": path, "value": value}]);
        assert!(apply_patch(&mut doc, &test).is_ok(), "test after {op} {path} failed");
    }
}

fn add_then_remove(doc: &Value, op: &Value) {
    let (Some("add"), Some(path)) = (
        op.get("op").and_then(Value::as_str),
        op.get("path").and_then(Value::as_str),
    ) else {
        return;
    };
    if path.is_empty() || path.ends_with("/-") || doc.pointer(path).is_some() {
        return;
    }
    let mut work = doc.clone();
    if apply_patch(&mut work, &Value::Array(vec![op.clone()])).is_err() {
        return;
    }
    let remove = json!([{"op": "remove", "path": path}]);
    assert!(apply_patch(&mut work, &remove).is_ok(), "remove after add {path} failed");
    assert!(json_eq(&work, doc), "add then remove of {path} did not restore the document");
}
