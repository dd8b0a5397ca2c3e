//! Running one of the host tools as a user would: arguments, stdin, and
//! everything it printed.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs the binary at `path` with `args`, writes `stdin` to it (from a
/// thread, so a large input cannot deadlock against a full stdout pipe)
/// and waits for it to exit.
pub fn run(path: &str, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(path)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{path} starts: {e}"));
    let mut input = child.stdin.take().expect("stdin is piped");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("the tool exits");
    writer.join().expect("the writer thread ends");
    out
}
