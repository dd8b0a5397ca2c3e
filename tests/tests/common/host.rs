//! The host-limit vectors (`tests/vectors/host/`, issue 22), read at run
//! time, and how a result is judged against them: shared by the client's
//! test (`host_limits.rs`) and `agui-replay`'s (`examples/tests/replay_cli.rs`).

use agui_alloc::patch::json_eq;
use agui_core::protocol::Protocol;
use serde::Deserialize;
use serde_json::Value;

use super::v1::{expected_code, raw_events};

/// An intended difference from the reference: past a limit of this client's,
/// stated in docs/SPEC.md (section 8, "The host-limit vectors"), the stream
/// stops with this error at a frame from the first one past the limit on,
/// keeping everything folded before it.
pub struct Known {
    pub name: &'static str,
    pub stage: &'static str,
    pub code: &'static str,
    /// The limit, as SPEC states it.
    pub why: &'static str,
}

pub const KNOWN: &[Known] = &[
    Known {
        name: "state-snapshot-nested-600-past-limit",
        stage: "decode",
        code: "decode",
        why: "frames nested deeper than the host's depth limit (512) are refused",
    },
    Known {
        name: "state-delta-nested-600-past-limit",
        stage: "decode",
        code: "decode",
        why: "frames nested deeper than the host's depth limit (512) are refused",
    },
    Known {
        name: "tool-args-nested-600-past-limit",
        stage: "verify",
        code: "capacity",
        why: "tool-call arguments nested deeper than the host's depth limit (512) are refused",
    },
    Known {
        name: "subagents-open-40-chunk-lanes",
        stage: "transform",
        code: "capacity",
        why: "at most 8 sub-agents' chunk lanes are open at once (a frame's rollback copies them)",
    },
];

/// The files and how many vectors each holds.
pub const FILES: [(&str, usize); 4] = [
    ("v1.jsonl", 31),
    ("v1-thread.jsonl", 1),
    ("v1-finished.jsonl", 8),
    ("current.jsonl", 27),
];

/// One host-limit vector.
pub struct HostVector {
    pub file: &'static str,
    pub name: String,
    pub protocol: Protocol,
    /// Each event's JSON text, as written in the file.
    pub events: Vec<String>,
    pub expect: Value,
}

impl HostVector {
    /// A `NAME/before-K` prefix: an expectation only, not run as a stream.
    pub fn is_prefix(&self) -> bool {
        self.name.contains("/before-")
    }

    /// `--protocol` of the host tools.
    pub fn protocol_flag(&self) -> &'static str {
        match self.protocol {
            Protocol::V1 => "1.0",
            Protocol::Current => "current",
        }
    }
}

/// Parses JSON nested deeper than serde_json's default 128 levels (the
/// vectors hold values 600 deep).
pub fn parse_deep(text: &[u8]) -> Value {
    let mut de = serde_json::Deserializer::from_slice(text);
    de.disable_recursion_limit();
    Value::deserialize(&mut de).expect("JSON")
}

/// The vectors of one file.
pub fn load(file: &'static str) -> Vec<HostVector> {
    let dir = env!("CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string(format!("{dir}/vectors/host/{file}"))
        .or_else(|_| std::fs::read_to_string(format!("{dir}/../tests/vectors/host/{file}")))
        .expect("the host-limit vectors (tools/vectors/host.sh regen)");
    let vectors: Vec<HostVector> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v = parse_deep(line.as_bytes());
            let protocol = match v["protocol"].as_str() {
                Some("1.0") => Protocol::V1,
                Some("current") => Protocol::Current,
                other => panic!("{file}: unknown protocol {other:?}"),
            };
            let events = raw_events(line);
            assert_eq!(events.len(), v["events"].as_array().unwrap().len());
            HostVector {
                file,
                name: v["name"].as_str().unwrap().to_owned(),
                protocol,
                events,
                expect: v["expect"].clone(),
            }
        })
        .collect();
    let count = FILES.iter().find(|(f, _)| *f == file).map(|(_, n)| *n);
    assert_eq!(Some(vectors.len()), count, "{file}");
    vectors
}

/// The reference's result as this client reports it: the error's text
/// mapped to its code, and for the current protocol no `RUN_FINISHED`
/// outcome in the trace (the current protocol has none; 0.0.58's result,
/// kept in the file where it differs, never does).
fn expected(v: &HostVector, expect: &Value) -> Value {
    let mut want = expect.clone();
    if let Some(e) = want["error"].as_object_mut() {
        let kind = e["kind"].as_str().unwrap().to_owned();
        let message = e.remove("message").unwrap();
        let code = expected_code(&kind, message.as_str().unwrap());
        e.insert("code".into(), code.into());
    }
    if v.protocol == Protocol::Current {
        for entry in want["trace"].as_array_mut().unwrap() {
            entry.as_object_mut().unwrap().remove("outcome");
        }
    }
    want
}

/// What differs between `got` and `want` on `keys`, for a person.
fn differences(got: &Value, want: &Value, keys: &[&str]) -> Option<String> {
    let differing: Vec<String> = keys
        .iter()
        .filter(|k| !json_eq(&got[**k], &want[**k]))
        .map(|k| {
            let cut = |x: &Value| x.to_string().chars().take(160).collect::<String>();
            format!("{k}: got {} / want {}", cut(&got[*k]), cut(&want[*k]))
        })
        .collect();
    (!differing.is_empty()).then(|| differing.join("; "))
}

/// Judges `got` (error as `{index, kind, code}`, messages, state, trace)
/// for the vector `v` of `all` (its file, for the prefixes).
pub fn judge(v: &HostVector, all: &[HostVector], label: &str, got: &Value) -> Result<(), String> {
    let at = format!("{}: {} [{label}]", v.file, v.name);
    let Some(known) = KNOWN.iter().find(|k| k.name == v.name) else {
        let want = expected(v, &v.expect);
        return match differences(got, &want, &["error", "messages", "state", "trace"]) {
            None => Ok(()),
            Some(d) => Err(format!("{at}: {d}")),
        };
    };
    // A known, intended difference: our error, and the reference's fold of
    // the frames before it.
    let error = &got["error"];
    if error["kind"] != known.stage || error["code"] != known.code {
        return Err(format!(
            "{at}: should stop with {}/{} ({}), got error {error}",
            known.stage, known.code, known.why
        ));
    }
    let frame = error["index"].as_u64().unwrap_or(u64::MAX);
    let before = format!("{}/before-{frame}", v.name);
    let Some(prefix) = all.iter().find(|p| p.name == before) else {
        return Err(format!(
            "{at}: stopped at frame {frame}, which is not past the limit ({})",
            known.why
        ));
    };
    let want = expected(v, &prefix.expect);
    match differences(got, &want, &["messages", "state", "trace"]) {
        None => Ok(()),
        Some(d) => Err(format!("{at}: what was folded before frame {frame}: {d}")),
    }
}
