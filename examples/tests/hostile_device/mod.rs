//! The device side of `agui-gateway`, played by a test: the gateway is
//! started with `--tcp` against a listener of the test, and [`Device`]
//! sends lines and reads what the gateway writes, as a well-behaved device
//! would, or as a hostile one: lines by the thousand during a run, more
//! tools and messages than any limit, raw control characters in log
//! lines, a device that stops reading or goes away in the middle of a run.
//! `examples/tests/gateway.rs` and `gateway_hostile_device.rs` use it.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

pub const GATEWAY: &str = env!("CARGO_BIN_EXE_agui-gateway");

/// How long any one step may take before the test fails.
pub const STEP: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------
// Processes that are killed when the test ends, passed or failed
// ---------------------------------------------------------------------------

/// A child process killed on drop.
pub struct Guard(pub Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits for the child to exit (at most `limit`) and collects its output.
pub fn wait_output(mut guard: Guard, limit: Duration) -> Output {
    let started = Instant::now();
    while guard.0.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < limit,
            "the process did not exit within {limit:?}"
        );
        thread::sleep(Duration::from_millis(20));
    }
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    if let Some(mut out) = guard.0.stdout.take() {
        out.read_to_end(&mut stdout).unwrap();
    }
    if let Some(mut err) = guard.0.stderr.take() {
        err.read_to_end(&mut stderr).unwrap();
    }
    let status = guard.0.wait().unwrap();
    Output {
        status,
        stdout,
        stderr,
    }
}

// ---------------------------------------------------------------------------
// The test as the device
// ---------------------------------------------------------------------------

/// The gateway connected to a TCP "device" played by the test.
pub struct Device {
    pub gateway: Guard,
    pub reader: BufReader<TcpStream>,
    pub writer: TcpStream,
}

impl Device {
    pub fn start(url: &str) -> Device {
        Device::start_with(url, &[])
    }

    /// With more arguments for the gateway (e.g. `--ca-cert`).
    pub fn start_with(url: &str, args: &[&str]) -> Device {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let gateway = Guard(
            Command::new(GATEWAY)
                .args([url, "--tcp", &addr])
                .args(args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        );
        let stream = accept(&listener);
        stream.set_read_timeout(Some(STEP)).unwrap();
        Device {
            gateway,
            reader: BufReader::new(stream.try_clone().unwrap()),
            writer: stream,
        }
    }

    pub fn send(&mut self, line: &str) {
        self.writer.write_all(line.as_bytes()).unwrap();
        self.writer.write_all(b"\n").unwrap();
    }

    /// Sends raw bytes: control characters, bytes that are not UTF-8.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
    }

    /// Sends `line` `count` times, as fast as the gateway takes them.
    pub fn flood(&mut self, line: &str, count: usize) {
        let mut all = Vec::with_capacity((line.len() + 1) * count);
        for _ in 0..count {
            all.extend_from_slice(line.as_bytes());
            all.push(b'\n');
        }
        self.writer.write_all(&all).unwrap();
    }

    /// The gateway's answers up to and including the one that starts
    /// with `last` (a line sent to mark the end of a burst).
    pub fn answers_until(&mut self, last: &str) -> Vec<String> {
        let mut answers = Vec::new();
        loop {
            let line = self.line();
            let end = line.starts_with(last);
            answers.push(line);
            if end {
                return answers;
            }
        }
    }

    /// The next line from the gateway, without its `\n`.
    pub fn line(&mut self) -> String {
        let mut line = String::new();
        let n = self.reader.read_line(&mut line).unwrap();
        assert!(n > 0, "the gateway closed the connection");
        line.trim_end_matches('\n').to_owned()
    }

    /// The next line, as an event (it must be one).
    pub fn event(&mut self) -> Value {
        let line = self.line();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not an event line: {line:?}: {e}"))
    }

    /// Events up to and including the run's terminal one.
    pub fn run_events(&mut self) -> Vec<Value> {
        let mut events = Vec::new();
        loop {
            let event = self.event();
            let kind = event["type"].as_str().unwrap().to_owned();
            events.push(event);
            if kind == "RUN_FINISHED" || kind == "RUN_ERROR" {
                return events;
            }
        }
    }

    /// Says DONE after a run that failed at the gateway: the exit status
    /// is 1 and stderr says `run failed: `; returns stderr.
    pub fn finish_failed_run(self) -> String {
        let out = self.finish(true);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("agui-gateway: run failed: "), "{stderr}");
        stderr
    }

    /// Says DONE (if asked) and collects the gateway's exit.
    pub fn finish(mut self, done: bool) -> Output {
        if done {
            self.send(r#"{"type":"DONE"}"#);
        }
        drop(self.writer);
        drop(self.reader);
        wait_output(self.gateway, STEP)
    }
}

/// The gateway's connection, or a failure after [`STEP`].
fn accept(listener: &TcpListener) -> TcpStream {
    listener.set_nonblocking(true).unwrap();
    let started = Instant::now();
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false).unwrap();
                return stream;
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                assert!(started.elapsed() < STEP, "the gateway did not connect");
                thread::sleep(Duration::from_millis(10));
            }
            Err(e) => panic!("accept: {e}"),
        }
    }
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A device on the master side of a pseudo-terminal (Python's `pty`,
/// stdlib), the gateway on its slave with `--serial PATH` and `args`.
/// `script` is Python run after the set-up, with `gw` (the gateway's
/// process, its stderr piped), `send(line)`, `line()` (the next line from
/// the gateway) and `stderr_until(text)` (the gateway's stderr up to a
/// line holding `text`). A device that stops reading is one that does not
/// call `line()`: the pseudo-terminal's buffer is a few KB, so the
/// gateway's writes soon block. What the script prints is the output.
pub fn serial_device(url: &str, args: &[&str], script: &str) -> Output {
    let prelude = r#"
import os, pty, subprocess, sys, tty
master, slave = pty.openpty()
tty.setraw(master)
path = os.ttyname(slave)
gw = subprocess.Popen([sys.argv[1], sys.argv[2], "--serial", path] + sys.argv[3:],
                      stderr=subprocess.PIPE)
def send(line):
    os.write(master, line.encode() + b"\n")
buf = b""
def line():
    global buf
    while b"\n" not in buf:
        buf += os.read(master, 4096)
    out, buf = buf.split(b"\n", 1)
    return out.decode().rstrip("\r")
def stderr_until(text):
    seen = []
    while True:
        got = gw.stderr.readline().decode()
        if not got:
            return "".join(seen)
        seen.append(got)
        if text in got:
            return "".join(seen)
"#;
    let program = format!("{prelude}\n{script}");
    let run = Guard(
        Command::new("python3")
            .args(["-c", &program, GATEWAY, url])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("python3 is needed for the pseudo-terminal device"),
    );
    wait_output(run, STEP)
}
