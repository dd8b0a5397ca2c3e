//! `agui-replay --json --trace` against every public vector: error (frame,
//! stage, code), messages, state and trace equal the reference's, for
//! NDJSON and SSE input and several read sizes; plus the CLI contract
//! (exit codes, the bundled sample, usage errors).

#[path = "../../tests/tests/common/mod.rs"]
mod common;

use std::process::Output;

use agui_alloc::patch::json_eq;
use serde_json::Value;

mod cli;

fn replay(args: &[&str], stdin: &[u8]) -> Output {
    cli::run(env!("CARGO_BIN_EXE_agui-replay"), args, stdin)
}

fn expected_error(v: &common::Vector) -> Value {
    match v.expect["error"].as_object() {
        None => Value::Null,
        Some(e) => {
            let kind = e["kind"].as_str().unwrap();
            serde_json::json!({
                "index": e["index"],
                "stage": kind,
                "code": common::expected_code(kind, e["message"].as_str().unwrap()),
            })
        }
    }
}

#[test]
fn every_vector_through_the_cli() {
    let read_sizes = ["8192", "1", "7", "64"];
    let mut failures = Vec::new();
    for (i, v) in common::all().iter().enumerate() {
        let (format, bytes) = if i % 2 == 0 {
            ("ndjson", common::ndjson(&v.events))
        } else {
            ("sse", common::sse(&v.events))
        };
        let read_size = read_sizes[i % read_sizes.len()];
        let out = replay(
            &[
                "--json",
                "--trace",
                "--read-size",
                read_size,
                "--format",
                format,
            ],
            &bytes,
        );
        let got: Value = serde_json::from_slice(&out.stdout).expect("one JSON object on stdout");
        let want_error = expected_error(v);
        let code = out.status.code().unwrap();
        let mut error = got["error"].clone();
        if let Some(e) = error.as_object_mut() {
            assert!(
                e.remove("message").is_some_and(|m| m.is_string()),
                "{}: error message",
                v.name
            );
        }
        let checks = [
            ("ok", got["ok"] == Value::Bool(want_error.is_null())),
            (
                "exit code",
                code == if want_error.is_null() { 0 } else { 1 },
            ),
            (
                "accepted",
                got["accepted"]
                    == want_error
                        .get("index")
                        .cloned()
                        .unwrap_or(v.events.len().into()),
            ),
            ("error", json_eq(&error, &want_error)),
            ("messages", json_eq(&got["messages"], &v.expect["messages"])),
            ("state", json_eq(&got["state"], &v.expect["state"])),
            ("trace", json_eq(&got["trace"], &v.expect["trace"])),
        ];
        let what = format!("{} ({format}, read size {read_size})", v.name);
        record(&mut failures, &what, &checks);
    }
    assert_none(&failures);
}

/// `agui-replay --protocol 1.0 --json --trace` against every AG-UI 1.0
/// vector: error (frame, stage, code), messages, state, trace (with each
/// run's outcome) and the compatibility and enforcement warnings equal the
/// 1.0 reference's.
#[test]
fn every_v1_vector_through_the_cli() {
    let mut failures = Vec::new();
    for (i, v) in common::v1::vectors().iter().enumerate() {
        let (format, bytes) = if i % 2 == 0 {
            ("ndjson", common::v1::ndjson(&v.events))
        } else {
            ("sse", common::v1::sse(&v.events))
        };
        let read_size = ["8192", "7", "64"][i % 3];
        let args = [
            "--json",
            "--trace",
            "--protocol",
            "1.0",
            "--read-size",
            read_size,
            "--format",
            format,
        ];
        let out = replay(&args, &bytes);
        let got: Value = serde_json::from_slice(&out.stdout).expect("one JSON object on stdout");
        let want_error = match v.expect["error"].as_object() {
            None => Value::Null,
            Some(e) => {
                let kind = e["kind"].as_str().unwrap();
                serde_json::json!({
                    "index": e["index"],
                    "stage": kind,
                    "code": common::v1::expected_code(kind, e["message"].as_str().unwrap()),
                })
            }
        };
        let mut error = got["error"].clone();
        if let Some(e) = error.as_object_mut() {
            e.remove("message");
        }
        // The warnings of the stages ours reports (compat, enforce), as
        // sets per stream: their order within a frame follows the walk.
        let ours = |list: &Value| {
            let mut w: Vec<String> = list
                .as_array()
                .map(|a| a.iter())
                .into_iter()
                .flatten()
                .filter(|w| matches!(w["stage"].as_str(), Some("compat" | "enforce")))
                .map(Value::to_string)
                .collect();
            w.sort();
            w
        };
        let checks = [
            ("error", json_eq(&error, &want_error)),
            ("messages", json_eq(&got["messages"], &v.expect["messages"])),
            ("state", json_eq(&got["state"], &v.expect["state"])),
            ("trace", json_eq(&got["trace"], &v.expect["trace"])),
            (
                "warnings",
                ours(&got["warnings"]) == ours(&v.expect["warnings"]),
            ),
        ];
        let what = format!("{} ({format}, read size {read_size})", v.name);
        record(&mut failures, &what, &checks);
    }
    assert_none(&failures);
}

/// `agui-replay --json --trace` with the stream's `--protocol` against the
/// host-limit vectors (`tests/vectors/host/`, issue 22): streams past the
/// microcontroller's capacities fold as `@ag-ui/client` 1.0.0 folds them
/// (judged as in `tests/tests/host_limits.rs`, the known depth difference
/// included), and the exit code says whether the stream was refused.
#[test]
fn every_host_limit_vector_through_the_cli() {
    // The test's side reads and compares values 600 deep: a main thread's
    // stack (the tool itself runs as its own process).
    let run = || {
        let mut failures = Vec::new();
        for (file, _) in common::host::FILES {
            let vectors = common::host::load(file);
            for (i, v) in vectors.iter().filter(|v| !v.is_prefix()).enumerate() {
                let (format, bytes) = if i % 2 == 0 {
                    ("ndjson", common::v1::ndjson(&v.events))
                } else {
                    ("sse", common::v1::sse(&v.events))
                };
                let args = [
                    "--json",
                    "--trace",
                    "--protocol",
                    v.protocol_flag(),
                    "--format",
                    format,
                ];
                let out = replay(&args, &bytes);
                let mut got = common::host::parse_deep(&out.stdout);
                // The client's shape: the stage as `kind`, no message.
                if let Some(e) = got["error"].as_object_mut() {
                    e.remove("message");
                    let stage = e.remove("stage").unwrap_or_default();
                    e.insert("kind".into(), stage);
                }
                let code = out.status.code();
                let refused = !got["error"].is_null();
                if let Err(e) = common::host::judge(v, &vectors, format, &got) {
                    failures.push(e);
                } else if code != Some(if refused { 1 } else { 0 }) {
                    failures.push(format!("{file}: {} [{format}]: exit code {code:?}", v.name));
                }
            }
        }
        assert_none(&failures);
    };
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(run)
        .unwrap()
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
}

#[test]
fn sample_replays_when_stdin_is_not_given() {
    // A pipe is not a terminal, so feed the sample explicitly and check the transcript.
    let sample =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/chat.ndjson")).unwrap();
    let out = replay(&[], &sample);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("[user] Is it warm enough in Lisbon"),
        "{text}"
    );
    assert!(text.contains("[tool call c1 get_weather]"), "{text}");
    assert!(text.contains("[tool result for c1]"), "{text}");
    assert!(text.contains("\"open\": true"), "{text}");
    assert!(text.ends_with("ok: 31 frames accepted\n"), "{text}");
}

#[test]
fn sse_and_ndjson_samples_agree() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let a = replay(
        &["--json", "--trace", &format!("{dir}/samples/chat.ndjson")],
        b"",
    );
    let b = replay(
        &[
            "--json",
            "--trace",
            "--read-size",
            "1",
            &format!("{dir}/samples/chat.sse"),
        ],
        b"",
    );
    assert!(a.status.success() && b.status.success());
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn rejected_stream_exits_1_with_the_error() {
    let out = replay(
        &["--json", "-"],
        b"{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}\n",
    );
    assert_eq!(out.status.code(), Some(1));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["error"]["code"], "first_event");
    assert_eq!(got["error"]["stage"], "verify");
    assert_eq!(got["accepted"], 0);
}

#[test]
fn usage_and_io_errors_exit_2_with_one_line() {
    let missing = replay(&["/nonexistent/stream.ndjson"], b"");
    assert_eq!(missing.status.code(), Some(2));
    let err = String::from_utf8(missing.stderr).unwrap();
    assert!(
        err.starts_with("agui-replay: cannot open /nonexistent/stream.ndjson"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);

    let bad_flag = replay(&["--read-size", "0"], b"");
    assert_eq!(bad_flag.status.code(), Some(2));
}

const NOISY: &[u8] = b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\
{\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m\",\"delta\":\"Hel\"}\n\
{\"type\":\"TEXT_MESSAGE_CHUNK\",\"mess\x01geId\":\"m\",\"delta\":\"??\"}\n\
{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"zz\",\"delta\":\"??\"}\n\
{\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m\",\"delta\":\"lo\"}\n";

#[test]
fn keep_going_lists_every_skipped_frame() {
    let out = replay(&["--json", "--keep-going", "--read-size", "3", "-"], NOISY);
    assert_eq!(out.status.code(), Some(1));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["ok"], false);
    assert_eq!(got["accepted"], 3);
    assert_eq!(got["messages"][0]["content"], "Hello");
    let errors = got["errors"].as_array().unwrap();
    let summary: Vec<(u64, &str, &str)> = errors
        .iter()
        .map(|e| {
            (
                e["index"].as_u64().unwrap(),
                e["stage"].as_str().unwrap(),
                e["code"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [(2, "decode", "decode"), (3, "verify", "message_not_active")]
    );
    assert!(errors.iter().all(|e| e["message"].is_string()));
    // `error` stays the first one, as in strict output.
    assert_eq!(got["error"], errors[0]);
}

#[test]
fn strict_json_output_has_errors_too() {
    let out = replay(&["--json", "-"], NOISY);
    assert_eq!(out.status.code(), Some(1));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["accepted"], 2);
    assert_eq!(got["errors"].as_array().unwrap().len(), 1);
    assert_eq!(got["errors"][0], got["error"]);

    let clean = replay(
        &[
            "--json",
            "--keep-going",
            &format!("{}/samples/chat.ndjson", env!("CARGO_MANIFEST_DIR")),
        ],
        b"",
    );
    assert!(clean.status.success());
    let got: Value = serde_json::from_slice(&clean.stdout).unwrap();
    assert_eq!(got["errors"], Value::Array(vec![]));
    assert_eq!(got["error"], Value::Null);
}

#[test]
fn keep_going_transcript_names_the_skipped_frames() {
    let out = replay(&["--keep-going", "-"], NOISY);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("[assistant] Hello"), "{text}");
    assert!(
        text.contains("skipped frame 2: decode error [decode]"),
        "{text}"
    );
    assert!(text.contains("3 frames accepted, 2 skipped"), "{text}");
}

#[test]
fn limits_are_flags() {
    let out = replay(&["--json", "--max-messages", "0", "-"], NOISY);
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["error"]["code"], "capacity");
    assert_eq!(got["error"]["index"], 1);
}

/// Issue 11: an input with content but no frame is a usage error (exit 2,
/// one line, nothing on stdout), not an empty success; an empty input and
/// an SSE stream of comments only are streams without events (exit 0).
#[test]
fn an_input_without_frames_is_judged() {
    for (args, input) in [
        (&["--json", "-"][..], &b"\x7fELF\x02\x01\x01\0\0\0"[..]),
        (&["--json", "-"][..], &b"[{\"type\":\"RUN_STARTED\"}]"[..]),
        (
            &["--json", "--format", "sse", "-"][..],
            &b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n"[..],
        ),
    ] {
        let out = replay(args, input);
        assert_eq!(out.status.code(), Some(2), "{input:?}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.starts_with("agui-replay: no frames found"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    for input in [&b""[..], b"\n\n  \n", b": keep-alive\n\n: ping\n\n"] {
        let out = replay(&["--json", "-"], input);
        assert_eq!(out.status.code(), Some(0), "{input:?}");
        let got: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            (got["ok"].clone(), got["accepted"].clone()),
            (true.into(), 0.into())
        );
    }
}

/// Issue 27: an empty input, read from a pipe because no FILE was given,
/// says so instead of `ok: 0 frames accepted`, and is not an error.
#[test]
fn an_empty_input_says_so() {
    for input in [&b""[..], b"\n \n"] {
        let out = replay(&[], input);
        assert_eq!(out.status.code(), Some(0), "{input:?}");
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            "empty input: no frames\n"
        );
    }
}

/// Issue 11: numbers beyond the double range are accepted where the
/// reference accepts them and print as `null` where they are kept.
#[test]
fn numbers_beyond_the_double_range() {
    let stream = b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\",\"timestamp\":1e999}\n\
{\"type\":\"RAW\",\"event\":{\"n\":-1e999},\"unknown\":1e400}\n\
{\"type\":\"STATE_SNAPSHOT\",\"snapshot\":{\"big\":1e999,\"small\":-1e999,\"tiny\":1e-999,\"ok\":1.5}}\n\
{\"type\":\"STATE_DELTA\",\"delta\":[{\"op\":\"add\",\"path\":\"/p\",\"value\":[2e308]}]}\n";
    for args in [&["--json", "-"][..], &["--json", "--keep-going", "-"][..]] {
        let out = replay(args, stream);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        let got: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(got["accepted"], 4);
        assert_eq!(
            got["state"],
            serde_json::json!({"big": null, "small": null, "tiny": 0.0, "ok": 1.5, "p": [null]})
        );
    }
}

/// Notes each failed check of one run (`what`: the vector, format and read
/// size).
fn record(failures: &mut Vec<String>, what: &str, checks: &[(&str, bool)]) {
    for (check, ok) in checks {
        if !ok {
            failures.push(format!("{what}: {check} differs"));
        }
    }
}

/// Fails with every noted failure.
fn assert_none(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
