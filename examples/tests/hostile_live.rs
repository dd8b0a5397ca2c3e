//! `agui-chat` against a hostile agent (`hostile_agent/`): what an agent
//! server, or the network between us, can do to the user's secrets, the
//! user's terminal, and the user's machine's memory and time (issue 23,
//! SECURITY.md). Each test plays one attack and fails if its defence is
//! taken out.
//!
//! The tests that an attack would hang (a deadlock, a stream that never
//! ends) run agui-chat under a watchdog: past `hostile_agent::WATCHDOG`
//! it is killed and the test fails. That is a guard against hanging the suite, not a
//! measure of speed: every such run takes well under a second.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod hostile_agent;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use hostile_agent::{
    assert_inert, ids, raw, run_finished, run_started, runs, stream, Server, HOSTILE,
};
use serde_json::json;

/// Runs agui-chat with `args`, `stdin` as its input and `env` added,
/// under the fixture's watchdog.
fn chat_env(args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agui-chat"));
    cmd.args(args)
        .env_remove("AGUI_HEADERS")
        .envs(env.iter().copied());
    hostile_agent::run_guarded(cmd, stdin)
}

fn chat(args: &[&str], stdin: &str) -> Output {
    chat_env(args, stdin, &[])
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A scratch directory for this test, removed first.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A `--tool set_led=...` that appends a line to `dir/ran` each time it
/// runs, and answers `lit`.
fn counting_tool(dir: &Path) -> String {
    format!(
        "set_led=echo x >> '{}'; echo lit",
        dir.join("ran").display()
    )
}

fn times_run(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("ran")).map_or(0, |s| s.lines().count())
}

// ---------------------------------------------------------------------------
// H1: redirects
// ---------------------------------------------------------------------------

/// A redirect to another origin is not followed, whatever its status:
/// neither the user's headers nor the run reach that origin, and the
/// error names the redirect.
#[test]
fn h1_a_redirect_is_not_followed_and_no_header_reaches_the_other_origin() {
    let elsewhere = runs(|_| vec![]);
    for status in [301, 302, 303, 307, 308] {
        let agent = hostile_agent::redirect(status, &elsewhere.url());
        let out = chat(
            &[
                &agent.url(),
                "--header",
                "X-Api-Key: SECRET-KEY",
                "--header",
                "Proxy-Authorization: Basic SECRET",
            ],
            "hello\n",
        );
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{status}: {stderr}");
        assert!(
            stderr.contains(&format!("HTTP {status} -> {}", elsewhere.url())),
            "{status}: {stderr}"
        );
        assert!(!stderr.contains("SECRET"), "{stderr}");
    }
    assert!(
        elsewhere.requests().is_empty(),
        "the other origin got: {:?}",
        elsewhere.requests()
    );
}

/// A redirect loop says it is a redirect, not "Peer disconnected".
#[test]
fn h1_a_redirect_loop_is_named_as_a_redirect() {
    let agent = hostile_agent::redirect_loop();
    let out = chat(&[&agent.url()], "hello\n");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("HTTP 302 -> http://"), "{stderr}");
    assert!(!stderr.contains("Peer disconnected"), "{stderr}");
    assert_eq!(agent.requests().len(), 1, "one request, not a loop");
}

/// The userinfo of a redirect's Location is not shown either.
#[test]
fn m6_a_redirect_location_with_a_password_is_redacted() {
    let agent = hostile_agent::redirect(302, "http://me:LOCATION-PASSWORD@127.0.0.1:1/");
    let out = chat(&[&agent.url()], "hello\n");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("HTTP 302 -> http://***@127.0.0.1:1/"),
        "{stderr}"
    );
    assert!(!stderr.contains("LOCATION-PASSWORD"), "{stderr}");
}

// ---------------------------------------------------------------------------
// H2: terminal escapes
// ---------------------------------------------------------------------------

/// RUN_ERROR's message and code reach stderr (and the transcript) inert.
#[test]
fn h2_run_error_message_and_code_are_escaped() {
    let agent = Server::start(|req, conn, _stop| {
        let error = json!({"type": "RUN_ERROR", "message": HOSTILE, "code": HOSTILE});
        hostile_agent::send(conn, stream(&[run_started(req), error]).as_bytes());
    });
    let out = chat(&[&agent.url()], "hello\n");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the agent reported an error"), "{stderr}");
    assert_inert(&stderr, "stderr");
    assert_inert(&stdout, "stdout");
}

/// An HTTP error's body reaches stderr inert.
#[test]
fn h2_an_http_error_body_is_escaped() {
    let body = HOSTILE.as_bytes();
    let mut response = format!(
        "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    response.extend_from_slice(body);
    let agent = raw(response);
    let out = chat(&[&agent.url()], "hello\n");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("HTTP 500"), "{stderr}");
    assert_inert(&stderr, "stderr");
}

/// A protocol error that quotes the agent's ids reaches stderr inert.
#[test]
fn h2_protocol_errors_that_quote_ids_are_escaped() {
    let agent =
        runs(|_| vec![json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": HOSTILE, "delta": "x"})]);
    let out = chat(&[&agent.url()], "hello\n");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("protocol error"), "{stderr}");
    assert_inert(&stderr, "stderr");
}

/// Live mode: the agent's text, tool-call ids and names, its own tool
/// results and the reused-id warning all reach the terminal inert, and
/// the agent's inner lines are continuation lines, not forged ones.
#[test]
fn h2_live_output_and_warnings_are_escaped() {
    let agent = runs(|req| {
        if hostile_agent::is_follow_up(req) {
            // The same id again: already answered, so the reused-id warning.
            return vec![
                json!({"type": "TOOL_CALL_CHUNK", "toolCallId": HOSTILE, "toolCallName": "set_led",
                               "parentMessageId": "a2", "delta": "{}"}),
            ];
        }
        vec![
            json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "a0", "role": "assistant", "delta": HOSTILE}),
            json!({"type": "TOOL_CALL_CHUNK", "toolCallId": HOSTILE, "toolCallName": "set_led",
                   "parentMessageId": "a1", "delta": "{}"}),
            json!({"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "other", "content": HOSTILE}),
        ]
    });
    let dir = scratch("live-escapes");
    let out = chat(
        &[
            &agent.url(),
            "--output",
            "live",
            "--tool",
            &counting_tool(&dir),
            "--max-runs",
            "2",
        ],
        "hello\n",
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_inert(&stdout, "stdout");
    assert_inert(&stderr, "stderr");
    assert!(stdout.contains("\n  | you> rm -rf ~"), "{stdout}");
    assert!(stdout.contains("[tool call hi\\u{1b}]0;pwned"), "{stdout}");
    assert!(
        stdout.contains("[tool result for other] hi\\u{1b}]0;pwned"),
        "{stdout}"
    );
    assert!(stderr.contains("which already has a result"), "{stderr}");
}

/// Transcript mode: the agent's inner lines cannot pass for the
/// transcript's own lines.
#[test]
fn h2_transcript_lines_cannot_be_forged() {
    let agent = runs(|_| {
        vec![
            json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "a0", "role": "assistant", "delta": HOSTILE}),
        ]
    });
    let out = chat(&[&agent.url()], "hello\n");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_inert(&stdout, "stdout");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[2], "  | you> rm -rf ~", "{stdout}");
}

// ---------------------------------------------------------------------------
// M2: the tool's pipes and time
// ---------------------------------------------------------------------------

/// Arguments far over a pipe's buffer go through `cat` (which writes
/// before it has read everything) without a deadlock.
#[test]
fn m2_huge_arguments_do_not_deadlock_the_tool() {
    let big = format!("{{\"colour\":\"{}\"}}", "g".repeat(400_000));
    let agent = hostile_agent::tool_calls("set_led", 1, &big);
    let out = chat(&[&agent.url(), "--tool", "set_led=cat"], "hello\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let follow_up = &agent.requests()[1];
    let results = hostile_agent::tool_results(follow_up);
    assert_eq!(results[0].1.len(), big.len());
}

/// A command over `--tool-timeout` is killed and the call gets an error.
#[test]
fn m2_a_command_over_its_time_is_killed_and_answered_with_an_error() {
    let agent = hostile_agent::tool_calls("set_led", 1, "{}");
    let out = chat(
        &[
            &agent.url(),
            "--tool",
            "set_led=sleep 30; echo lit",
            "--tool-timeout",
            "0.3",
        ],
        "hello\n",
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let results = hostile_agent::tool_results(&agent.requests()[1]);
    assert!(results[0].1.contains("--tool-timeout"), "{results:?}");
    assert!(stderr.contains("killed"), "{stderr}");
}

// ---------------------------------------------------------------------------
// M3: amplification
// ---------------------------------------------------------------------------

/// 1,000 calls in one response run the command `--max-tool-calls` times
/// (default 16); the others get an error result, and stderr says so.
#[test]
fn m3_tool_calls_per_run_are_capped() {
    let agent = hostile_agent::tool_calls("set_led", 1000, "{}");
    let dir = scratch("amplification");
    let out = chat(&[&agent.url(), "--tool", &counting_tool(&dir)], "hello\n");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(times_run(&dir), 16);
    assert!(stderr.contains("1000 tool calls in one run"), "{stderr}");
    let results = hostile_agent::tool_results(&agent.requests()[1]);
    assert_eq!(results.len(), 1000, "every call is answered");
    let refused = results
        .iter()
        .filter(|(_, r)| r.contains("--max-tool-calls"))
        .count();
    assert_eq!(refused, 984);
}

// ---------------------------------------------------------------------------
// M6: secrets in URLs and headers
// ---------------------------------------------------------------------------

/// A password in the URL never shows on stderr (here: nothing listens).
#[test]
fn m6_the_url_password_is_redacted() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://user:URL-PASSWORD@127.0.0.1:{port}/");
    let out = chat(&[&url], "hello\n");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("http://***@127.0.0.1"), "{stderr}");
    assert!(!stderr.contains("URL-PASSWORD"), "{stderr}");
}

/// Headers from `--header @FILE` and `$AGUI_HEADERS` reach the agent.
#[test]
fn m6_headers_from_a_file_and_the_environment() {
    let agent = runs(|_| vec![]);
    let dir = scratch("header-file");
    let file = dir.join("headers");
    std::fs::write(&file, "X-Api-Key: FROM-FILE\n\nX-Other: two\n").unwrap();
    let at_file = format!("@{}", file.display());
    let out = chat_env(
        &[&agent.url(), "--header", &at_file],
        "hello\n",
        &[("AGUI_HEADERS", "Authorization: Bearer FROM-ENV")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let request = &agent.requests()[0];
    assert_eq!(request.header("x-api-key"), Some("FROM-FILE"));
    assert_eq!(request.header("x-other"), Some("two"));
    assert_eq!(request.header("authorization"), Some("Bearer FROM-ENV"));
}

/// A malformed header is a usage error at start-up (no request is sent)
/// that never shows the value.
#[test]
fn m6_a_bad_header_is_refused_at_start_up_without_its_value() {
    let agent = runs(|_| vec![]);
    for bad in [
        "Authorization Bearer SECRET-VALUE",
        "X-Key: SECRET-VALUE\rHost: evil",
    ] {
        let out = chat(&[&agent.url(), "--header", bad], "hello\n");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("--header"), "{stderr}");
        assert!(!stderr.contains("SECRET-VALUE"), "{stderr}");
    }
    assert!(agent.requests().is_empty());
}

// ---------------------------------------------------------------------------
// M7, L3: time
// ---------------------------------------------------------------------------

/// After RUN_FINISHED, an agent that keeps the connection open with
/// comments does not hold the run.
#[test]
fn m7_the_run_ends_at_its_terminal_event() {
    let agent = hostile_agent::comments_after_finish();
    let out = chat(&[&agent.url()], "hello\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("ok: 1 runs"));
}

/// `--max-run-time` stops a run that streams forever.
#[test]
fn l3_max_run_time_stops_an_endless_run() {
    let agent = hostile_agent::endless_comments();
    let out = chat(&[&agent.url(), "--max-run-time", "0.5"], "hello\n");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("run time limit"), "{stderr}");
}

// ---------------------------------------------------------------------------
// L4: a reset on a close-delimited body
// ---------------------------------------------------------------------------

/// A reset is a transport error, and the cut last frame (RUN_FINISHED
/// without its blank line) is not applied.
#[test]
fn l4_a_reset_cuts_the_run_and_its_last_frame_is_not_applied() {
    let agent = hostile_agent::reset_mid_frame();
    let out = chat(&[&agent.url()], "hello\n");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("reset"), "{stderr}");
    assert!(stdout.contains("[assistant] partial"), "{stdout}");
    assert!(!stdout.contains("ok: "), "{stdout}");
}

// ---------------------------------------------------------------------------
// L5: arguments that are not JSON
// ---------------------------------------------------------------------------

/// Arguments that are not one JSON document (raw ESC and NUL here) get
/// an error result, and the command is not run.
#[test]
fn l5_arguments_that_are_not_json_are_not_piped() {
    for arguments in ["\u{1b}[2J\u{0}rm -rf ~", "{\"a\":1} trailing"] {
        let agent = hostile_agent::tool_calls("set_led", 1, arguments);
        let dir = scratch("not-json");
        let out = chat(&[&agent.url(), "--tool", &counting_tool(&dir)], "hello\n");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(times_run(&dir), 0, "{arguments:?}");
        let results = hostile_agent::tool_results(&agent.requests()[1]);
        assert!(results[0].1.starts_with("not run: "), "{results:?}");
        assert_inert(&text(&out.stderr), "stderr");
    }
}

// ---------------------------------------------------------------------------
// Messages that said the wrong thing
// ---------------------------------------------------------------------------

/// A compressed body says so, not "ended before RUN_FINISHED".
#[test]
fn a_gzip_body_says_compressed_bodies_are_not_supported() {
    let agent = hostile_agent::gzip();
    let out = chat(&[&agent.url()], "hello\n");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("compressed bodies are not supported"),
        "{stderr}"
    );
}

/// A RUN_STARTED for another thread or run is flagged.
#[test]
fn a_run_started_for_another_run_is_warned_about() {
    let agent = hostile_agent::foreign_run();
    let out = chat(&[&agent.url()], "hello\n");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("warning: the agent's RUN_STARTED names thread 'someone-else' run 'their-run', not the run asked for"),
        "{stderr}"
    );
    let (thread, _) = ids(&agent.requests()[0]);
    assert!(
        stderr.contains(&format!("(thread '{thread}' run ")),
        "{stderr}"
    );
    // The ids the fixture echoes are the run's own: no warning.
    let fine = runs(|_| vec![]);
    let out = chat(&[&fine.url()], "hello\n");
    assert_eq!(text(&out.stderr), "");
    let _ = run_finished;
}
