//! Running a frontend tool's command (`--tool NAME=COMMAND` of agui-chat
//! and agui-kiosk): `sh -c COMMAND` with the call's arguments on stdin.
//!
//! The arguments come from the agent, which is not trusted: they must be
//! one JSON document (else the command is not run, and the call gets an
//! error result), they are written on a thread of their own (a command
//! that writes before it has read everything cannot deadlock against us),
//! and the command has a time limit, after which it and its children are
//! killed and the call gets an error result.

use serde::Deserialize;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// Default `--tool-timeout`: the longest a tool's command may run.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(60);

/// Default `--max-tool-calls`: the most calls to declared tools run in one
/// run; the calls beyond get an error result (one agent response cannot
/// run the user's commands without bound).
pub const MAX_TOOL_CALLS: u32 = 16;

/// How often a running command is checked for its end.
const POLL: Duration = Duration::from_millis(10);

/// Checks that a call's arguments can go to a command: empty (taken as
/// `{}`) or one JSON document (JSON has no raw control characters, so a
/// NUL or an ESC cannot pass). Returns the text to pipe.
///
/// # Errors
/// Why the arguments are refused, for the call's error result.
pub fn checked_arguments(arguments: &str) -> Result<&str, String> {
    if arguments.trim().is_empty() {
        return Ok("{}");
    }
    let depth = nesting(arguments.as_bytes());
    if depth > MAX_ARGUMENT_DEPTH {
        return Err(format!(
            "not run: the arguments are nested {depth} levels deep, deeper than the {MAX_ARGUMENT_DEPTH} this tool reads"
        ));
    }
    // Only checked, not built: serde_json skips an ignored value with a
    // loop, not by recursion, so its own stop at 128 levels (which a
    // `Value` would meet) does not apply, and there is no tree to drop.
    let mut reader = serde_json::Deserializer::from_str(arguments);
    let checked = serde::de::IgnoredAny::deserialize(&mut reader).and_then(|_| reader.end());
    match checked {
        Ok(()) => Ok(arguments),
        Err(e) => Err(format!(
            "not run: the arguments are not a JSON document ({e})"
        )),
    }
}

/// The deepest tool arguments passed to a command: the host's JSON depth
/// (the same as the client's default `max_state_depth`).
pub const MAX_ARGUMENT_DEPTH: usize = 512;

/// How deep arrays and objects nest in `text`, read as JSON as far as
/// brackets go (strings and their escapes skipped); in one pass, without
/// recursion, whatever the text.
pub fn nesting(text: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for &byte in text {
        match (in_string, escaped, byte) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (true, false, b'"') => in_string = false,
            (true, false, _) => {}
            (false, _, b'"') => in_string = true,
            (false, _, b'[' | b'{') => {
                depth = depth.saturating_add(1);
                deepest = deepest.max(depth);
            }
            (false, _, b']' | b'}') => depth = depth.saturating_sub(1),
            (false, _, _) => {}
        }
    }
    deepest
}

/// Runs `sh -c command` with `arguments` (checked by [`checked_arguments`])
/// on stdin, for at most `timeout`: its trimmed stdout, or, as the error,
/// why it was not run, its exit status and stderr, or its timeout.
///
/// # Errors
/// The text of the call's error result.
pub fn run_tool(command: &str, arguments: &str, timeout: Duration) -> Result<String, String> {
    let input = checked_arguments(arguments)?.to_owned();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        // Its own process group: on timeout, its children die with it.
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start sh: {e}"))?;
    let stdin = child.stdin.take();
    // A command that does not read its stdin closes the pipe early: the
    // write then fails, which is no error of the command.
    let writer = thread::spawn(move || {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(input.as_bytes());
        }
    });
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = wait(&mut child, timeout);
    let _ = writer.join();
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    let status = status?;
    let stdout = String::from_utf8_lossy(&stdout).trim().to_owned();
    if status.success() {
        return Ok(stdout);
    }
    let status = match status.code() {
        Some(code) => format!("exit status {code}"),
        None => "killed by a signal".to_owned(),
    };
    let stderr = String::from_utf8_lossy(&stderr);
    let stderr = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    Err(if stderr.is_empty() {
        status
    } else {
        format!("{status}: {stderr}")
    })
}

/// Reads a pipe (a child's stdout or stderr) to its end on a thread of
/// its own: the child never blocks on a full pipe while we wait for it.
pub fn drain(pipe: Option<impl Read + Send + 'static>) -> JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut out);
        }
        out
    })
}

/// Waits for the command; at `timeout`, kills its process group.
fn wait(child: &mut Child, timeout: Duration) -> Result<ExitStatus, String> {
    let deadline = Instant::now().checked_add(timeout);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) => {}
            Err(e) => return Err(format!("cannot wait for the command: {e}")),
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            kill_group(child);
            return Err(format!(
                "not finished after {} s (--tool-timeout): killed",
                timeout.as_secs_f64()
            ));
        }
        thread::sleep(POLL);
    }
}

/// Kills the command and everything it started (its process group).
fn kill_group(child: &mut Child) {
    let group = format!("-{}", child.id());
    // `kill` of the shell is enough to end its group: no libc needed.
    let killed = Command::new("kill")
        .args(["-KILL", "--", &group])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !killed {
        let _ = child.kill();
    }
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_that_are_not_json_are_refused() {
        assert_eq!(checked_arguments(" "), Ok("{}"));
        assert_eq!(checked_arguments("{\"a\":1}"), Ok("{\"a\":1}"));
        for bad in [
            "{\"a\":\"\u{0}\"}",
            "{\"a\":\"\u{1b}[2J\"}",
            "rm -rf /",
            "{\"a\":1} {}",
        ] {
            let e = checked_arguments(bad).unwrap_err();
            assert!(e.starts_with("not run: "), "{e}");
        }
    }

    #[test]
    fn arguments_nest_to_the_host_depth_and_no_deeper() {
        let nested = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        // Past serde_json's own 128, up to 512, and a clear error beyond.
        for depth in [129, 300, MAX_ARGUMENT_DEPTH] {
            let text = nested(depth);
            assert_eq!(checked_arguments(&text), Ok(text.as_str()), "{depth}");
        }
        let e = checked_arguments(&nested(MAX_ARGUMENT_DEPTH + 1)).unwrap_err();
        assert!(e.contains("513 levels deep, deeper than the 512"), "{e}");
        // Brackets inside strings do not count.
        assert_eq!(nesting(br#"{"a":"[[[\"[","b":[]}"#), 2);
    }

    #[test]
    fn a_command_that_writes_before_reading_does_not_deadlock() {
        // 1 MB through `cat`: both pipes fill unless stdin has its thread.
        let big = format!("{{\"x\":\"{}\"}}", "a".repeat(1 << 20));
        let out = run_tool("cat", &big, TOOL_TIMEOUT).unwrap();
        assert_eq!(out.len(), big.len());
    }

    #[test]
    fn a_command_over_its_time_is_killed_with_its_children() {
        let e = run_tool(
            "sleep 30 & sleep 30; echo done",
            "{}",
            Duration::from_millis(200),
        )
        .unwrap_err();
        assert!(e.contains("--tool-timeout"), "{e}");
    }

    #[test]
    fn a_failing_command_gives_its_status_and_stderr() {
        let e = run_tool("echo 'bad  led' >&2; exit 3", "{}", TOOL_TIMEOUT).unwrap_err();
        assert_eq!(e, "exit status 3: bad led");
    }
}
