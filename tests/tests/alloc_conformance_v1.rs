//! The full client in AG-UI 1.0 mode (core pipeline with 1.0 tables, the
//! inbound processing of each frame's value, the reducer's 1.0 rules)
//! against the 1.0 vectors: error (frame, stage, code), messages, state and
//! the per-event trace (with each `RUN_FINISHED`'s outcome) equal the 1.0
//! reference's, compared as JSON, for NDJSON and SSE input in random pieces.

mod common;

use agui_alloc::client::Client;
use agui_alloc::patch::json_eq;
use agui_core::protocol::{Protocol, Select};
use common::v1::{expected_code, ndjson, sse, vectors, V1Vector};
use common::Rng;
use serde_json::Value;

/// The client's result in the shape of a vector's `expect`.
fn outcome(pieces: &[&[u8]]) -> Value {
    common::client_outcome(
        Client::new()
            .with_protocol(Select::Fixed(Protocol::V1))
            .with_trace(),
        pieces,
    )
}

fn expected(v: &V1Vector) -> Value {
    let mut want = v.expect.clone();
    if let Some(e) = want["error"].as_object_mut() {
        let kind = e["kind"].as_str().unwrap().to_owned();
        let message = e.remove("message").unwrap();
        e.insert(
            "code".into(),
            expected_code(&kind, message.as_str().unwrap()).into(),
        );
    }
    want
}

fn check(v: &V1Vector, label: &str, pieces: &[&[u8]]) -> Result<(), (String, String)> {
    let got = outcome(pieces);
    let want = expected(v);
    for key in ["error", "messages", "state", "trace"] {
        if !json_eq(&got[key], &want[key]) {
            return Err((
                key.to_owned(),
                format!(
                    "{} [{label}]: {key} differs\n  got:  {}\n  want: {}",
                    v.name, got[key], want[key]
                ),
            ));
        }
    }
    Ok(())
}

#[test]
fn v1_vectors_through_the_client() {
    let vectors = vectors();
    assert_eq!(vectors.len(), 1196);
    let mut rng = Rng::new(13);
    let mut failures: Vec<(String, String)> = Vec::new();
    for v in &vectors {
        for (label, bytes) in [("ndjson", ndjson(&v.events)), ("sse", sse(&v.events))] {
            let pieces = common::random_pieces(&bytes, 23, &mut rng);
            if let Err(f) = check(v, label, &pieces) {
                failures.push(f);
                break;
            }
        }
    }
    let mut by_key = std::collections::BTreeMap::<&str, usize>::new();
    for (key, _) in &failures {
        *by_key.entry(key.as_str()).or_default() += 1;
    }
    let shown: Vec<&str> = failures.iter().take(12).map(|(_, m)| m.as_str()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} vectors differ (by first differing key: {by_key:?}):\n{}",
        failures.len(),
        vectors.len(),
        shown.join("\n")
    );
}
