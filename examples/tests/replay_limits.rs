//! The client's limits through `agui-replay`'s flags: a stream crossing
//! each one is refused at the frame that crosses it, with an error naming
//! the limit, and what was folded before it is kept. And the memory a
//! million finished tool calls cost, measured as the process's peak
//! resident memory (read from the kernel when it exits; not a timing).

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::process::{Command, Stdio};

use serde_json::Value;

mod cli;

const REPLAY: &str = env!("CARGO_BIN_EXE_agui-replay");

const RUN: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;

fn ndjson(frames: &[String]) -> Vec<u8> {
    frames
        .iter()
        .flat_map(|f| format!("{f}\n").into_bytes())
        .collect()
}

/// `agui-replay --json` with `flags` over `frames`: the report.
fn report(flags: &[&str], frames: &[String]) -> Value {
    let mut args = vec!["--json"];
    args.extend_from_slice(flags);
    let out = cli::run(REPLAY, &args, &ndjson(frames));
    assert_eq!(
        out.status.code(),
        Some(1),
        "{flags:?}: the stream is refused"
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn text(id: &str, delta: &str) -> Vec<String> {
    vec![
        format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"{id}","role":"assistant"}}"#),
        format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"{id}","delta":"{delta}"}}"#),
    ]
}

fn snapshot(state: &str) -> String {
    format!(r#"{{"type":"STATE_SNAPSHOT","snapshot":{state}}}"#)
}

#[test]
fn each_limit_names_itself_and_keeps_what_came_before() {
    let big = "x".repeat(3000);
    let deep = format!("{}1{}", "[".repeat(6), "]".repeat(6));
    let mut opens: Vec<String> = (0..100)
        .map(|i| {
            format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"m{i}","role":"assistant"}}"#)
        })
        .collect();
    opens.insert(0, RUN.to_owned());
    let cases: Vec<(&str, Vec<&str>, Vec<String>)> = vec![
        (
            "max_frame_bytes",
            vec!["--max-frame-bytes", "1KiB"],
            [vec![RUN.to_owned()], text("m", "hi"), text("n", &big)].concat(),
        ),
        (
            "max_message_bytes",
            vec!["--max-message-bytes", "2KiB"],
            [vec![RUN.to_owned()], text("m", "hi"), text("n", &big)].concat(),
        ),
        (
            "max_messages",
            vec!["--max-messages", "1"],
            [vec![RUN.to_owned()], text("m", "hi"), text("n", "no")].concat(),
        ),
        (
            "max_state_bytes",
            vec!["--max-state-bytes", "1KiB"],
            vec![
                RUN.to_owned(),
                snapshot(r#"{"a":1}"#),
                snapshot(&format!(r#"{{"b":"{big}"}}"#)),
            ],
        ),
        (
            "max_state_depth",
            vec!["--max-state-depth", "5"],
            vec![RUN.to_owned(), snapshot(r#"{"a":1}"#), snapshot(&deep)],
        ),
        (
            "max_reader_bytes",
            vec!["--max-reader-bytes", "1KiB"],
            opens,
        ),
        (
            "max_trace_bytes",
            vec!["--trace", "--max-trace-bytes", "64B"],
            [vec![RUN.to_owned()], text("m", "hi"), text("n", "no")].concat(),
        ),
    ];
    for (limit, flags, frames) in cases {
        let got = report(&flags, &frames);
        let message = got["error"]["message"].as_str().unwrap_or_default();
        assert_eq!(got["error"]["code"], "capacity", "{limit}: {got}");
        assert!(message.contains(limit), "{limit}: {message}");
        let index = got["error"]["index"].as_u64().unwrap();
        assert!(index >= 2, "{limit}: refused at frame {index}");
        // Everything before the refused frame was folded and is kept.
        assert_eq!(got["accepted"].as_u64(), Some(index), "{limit}");
        let messages = got["messages"].as_array().unwrap();
        match limit {
            "max_state_bytes" | "max_state_depth" => {
                assert_eq!(got["state"], serde_json::json!({"a": 1}))
            }
            "max_reader_bytes" => assert_eq!(messages.len() as u64, index - 1, "{limit}"),
            _ => assert_eq!(messages[0]["content"], "hi", "{limit}: {got}"),
        }
    }
}

/// Writes `calls` finished tool calls under one assistant message, as
/// NDJSON, to `out`.
fn write_calls(out: &mut impl Write, calls: usize) -> std::io::Result<()> {
    writeln!(out, "{RUN}")?;
    writeln!(
        out,
        r#"{{"type":"TEXT_MESSAGE_START","messageId":"a","role":"assistant"}}"#
    )?;
    writeln!(out, r#"{{"type":"TEXT_MESSAGE_END","messageId":"a"}}"#)?;
    for i in 0..calls {
        writeln!(
            out,
            r#"{{"type":"TOOL_CALL_START","toolCallId":"c{i}","toolCallName":"f","parentMessageId":"a"}}"#
        )?;
        writeln!(
            out,
            r#"{{"type":"TOOL_CALL_ARGS","toolCallId":"c{i}","delta":"{{\"n\":{i}}}"}}"#
        )?;
        writeln!(out, r#"{{"type":"TOOL_CALL_END","toolCallId":"c{i}"}}"#)?;
    }
    writeln!(
        out,
        r#"{{"type":"RUN_FINISHED","threadId":"t","runId":"r"}}"#
    )
}

/// The process's peak resident memory so far (`VmHWM` of
/// `/proc/PID/status`), in bytes; `None` once it has exited.
fn peak_of(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Runs `agui-replay FLAGS` on a million finished tool calls (streamed
/// into its stdin as they are made): its exit status, its peak resident
/// memory in bytes (the kernel's high-water mark, read every few
/// milliseconds while it runs: the memory only grows until the end, so
/// the last reading is the peak but for the last moment's growth), and
/// the last line it printed.
fn replay_million(flags: &[&str]) -> (i32, u64, String) {
    let out_path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay-million.txt");
    let mut child = Command::new(REPLAY)
        .args(flags)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(File::create(&out_path).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        // A refused stream stops reading: the rest cannot be written.
        let _ = write_calls(&mut BufWriter::new(stdin), 1_000_000);
    });
    let mut peak = 0;
    let status = loop {
        if let Some(now) = peak_of(child.id()) {
            peak = peak.max(now);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    writer.join().unwrap();
    let mut printed = String::new();
    File::open(&out_path)
        .unwrap()
        .read_to_string(&mut printed)
        .unwrap();
    let last = printed.lines().last().unwrap_or_default().to_owned();
    assert!(peak > 0, "the process was measured");
    (status.code().unwrap(), peak, last)
}

const MIB: u64 = 1 << 20;

#[test]
fn a_million_finished_calls_stay_within_64_mib_plus_the_limits() {
    // A small limit: the stream is refused where the limit is reached,
    // and the memory is the limit's, not the history's (1.06 GB before
    // a finished call's slot was released and counted).
    let (code, peak, last) = replay_million(&["--max-message-bytes", "8MiB"]);
    assert_eq!(code, 1, "{last}");
    assert!(last.contains("max_message_bytes"), "{last}");
    assert!(peak < 64 * MIB + 8 * MIB, "peak {} MiB", peak / MIB);
    // The defaults: the same, with the default 64 MiB for the messages.
    let (code, peak, last) = replay_million(&[]);
    assert_eq!(code, 1, "{last}");
    assert!(last.contains("max_message_bytes"), "{last}");
    assert!(peak < 64 * MIB + 64 * MIB, "peak {} MiB", peak / MIB);
}
