//! `agui-gateway --device-capacity`: a frame the device's fixed tables
//! cannot hold (an id longer than its id slots, JSON nested deeper than its
//! tokenizer, more open messages than its table) is not relayed; the
//! device's run ends with a RUN_ERROR `gateway_capacity`, and the device
//! runs again. With the test as the device, and with the `agent` firmware
//! in QEMU behind the gateway, whose own pipeline decides the boundary.
//!
//! The QEMU tests need `qemu-system-arm` and the `thumbv7m-none-eabi`
//! target (`.ci/run` installs both); a test that misses one fails saying
//! which.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "../../alloc-ext/tests/support/server.rs"]
mod server;

mod hostile_device;
use hostile_device::{text, wait_output, Device, Guard, GATEWAY, STEP};

fn kinds(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

fn started() -> Value {
    json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
}

fn finished() -> Value {
    json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})
}

fn start(id: &str) -> Value {
    json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"})
}

/// A STATE_SNAPSHOT nested `depth` deep, the frame's own object counted.
fn snapshot(depth: usize) -> Value {
    let mut value = json!(1);
    for _ in 0..depth - 2 {
        value = json!([value]);
    }
    json!({"type": "STATE_SNAPSHOT", "snapshot": {"a": value}})
}

/// `n` text messages opened, each id `m{i}`.
fn opens(n: usize) -> Vec<Value> {
    (0..n).map(|i| start(&format!("m{i}"))).collect()
}

/// The streams the agent firmware's pipeline (64-byte ids, JSON 32 deep,
/// 8 open messages) cannot hold, each one past its limit: the frame
/// that goes past it, and the limit's name in the RUN_ERROR's message.
fn over_the_agent() -> Vec<(Vec<Value>, &'static str)> {
    vec![
        (
            vec![start(&"i".repeat(65))],
            "messageId of 65 bytes; the device holds ids of 64 bytes (id)",
        ),
        (
            vec![snapshot(33)],
            "JSON nested 33 deep; the device holds 32 (depth)",
        ),
        (opens(9), "9 text messages open; the device holds 8 (msgs)"),
        (chunks(), "9 text messages open; the device holds 8 (msgs)"),
    ]
}

/// Chunks open messages too, and a chunk (or an event that ends a chunk)
/// closes the open chunked message first: 7 opened, then chunks `c1` and
/// `c2` and a START, 8 open after each; the chunk `c3` makes 9.
fn chunks() -> Vec<Value> {
    let chunk = |id: &str| json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": id, "delta": "x"});
    let mut events = opens(7);
    events.extend([chunk("c1"), chunk("c2"), start("m7"), chunk("c3")]);
    events
}

/// A run at every limit of the agent firmware and not past one: a
/// 64-byte id, JSON 32 deep, 8 open messages; the assistant's message (the
/// first opened) says `answer`.
fn at_the_agent_limits(answer: &str) -> Vec<Value> {
    let long = "i".repeat(64);
    let mut events = vec![started(), snapshot(32), start(&long)];
    events.extend(opens(7));
    events
        .extend((0..7).map(|i| json!({"type": "TEXT_MESSAGE_END", "messageId": format!("m{i}")})));
    events.push(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": long, "delta": answer}));
    events.push(json!({"type": "TEXT_MESSAGE_END", "messageId": long}));
    events.push(finished());
    events
}

/// An agent that answers its first request with `first`, the others with
/// `then`.
fn agent(first: Vec<Value>, then: Vec<Value>) -> server::Server {
    let count = AtomicUsize::new(0);
    let (first, then) = (server::answer_with(first), server::answer_with(then));
    server::Server::start(move |req, conn, stop| {
        if count.fetch_add(1, Ordering::Relaxed) == 0 {
            first(req, conn, stop);
        } else {
            then(req, conn, stop);
        }
    })
}

// ---------------------------------------------------------------------------
// The test as the device
// ---------------------------------------------------------------------------

/// Each of the four: the frame past the limit is not relayed (the frames
/// before it are), the run ends with RUN_ERROR gateway_capacity naming the
/// limit, and the next run, at every limit, is relayed whole.
#[test]
fn frames_past_the_device_limits_end_the_run_with_gateway_capacity() {
    for (over, limit) in over_the_agent() {
        let mut first = vec![started()];
        first.extend(over.clone());
        first.push(finished());
        let good = at_the_agent_limits("ok");
        let agent = agent(first, good.clone());
        let mut device = Device::start_with(&agent.url(), &["--device-capacity", "agent"]);
        device.send(r#"{"id":"u1","role":"user","content":"hi"}"#);
        device.send(r#"{"type":"RUN"}"#);
        let events = device.run_events();
        // Everything before the frame, then the gateway's RUN_ERROR.
        let relayed = over.len() - 1;
        assert_eq!(events.len(), 1 + relayed + 1, "{events:?}");
        assert_eq!(&events[1..=relayed], &over[..relayed]);
        let error = &events[relayed + 1];
        assert_eq!(error["type"], "RUN_ERROR");
        assert_eq!(error["code"], "gateway_capacity");
        let message = error["message"].as_str().unwrap();
        assert_eq!(message, format!("frame {}: {limit}", relayed + 1));
        // The device runs again; this run is at every limit, not past one.
        device.send(r#"{"type":"RUN"}"#);
        assert_eq!(device.run_events(), good);
        let out = device.finish(true);
        let stderr = text(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(
            stderr.contains(
                "agui-gateway: the device holds msgs 8, tools 8, steps 8, id 64 bytes, depth 32"
            ),
            "{stderr}"
        );
        assert!(
            stderr.contains(&format!(
                "agui-gateway: run ended for the device: {message}"
            )),
            "{stderr}"
        );
    }
}

/// Without `--device-capacity` the gateway checks its own limits only:
/// the same frames reach the device (which would then fail on them).
#[test]
fn without_the_flag_the_frames_reach_the_device() {
    for (over, _) in over_the_agent() {
        let mut events = vec![started()];
        events.extend(over);
        events.push(json!({"type": "RUN_ERROR", "message": "the agent stops"}));
        let agent = agent(events.clone(), vec![]);
        let mut device = Device::start(&agent.url());
        device.send(r#"{"id":"u1","role":"user","content":"hi"}"#);
        device.send(r#"{"type":"RUN"}"#);
        assert_eq!(device.run_events(), events);
        let out = device.finish(true);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    }
}

/// A capacity file of the user's: `key = value` lines.
#[test]
fn a_capacity_file_sets_the_limits() {
    let dir = tempdir();
    let file = dir.join("board.cap");
    std::fs::write(
        &file,
        "# a smaller board\nmsgs = 1\ntools = 1\nsteps = 1\nid = 8\ndepth = 4\n",
    )
    .unwrap();
    let agent = agent(
        vec![
            started(),
            start("m0"),
            start("m1"),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "m0"}),
            finished(),
        ],
        vec![],
    );
    let mut device =
        Device::start_with(&agent.url(), &["--device-capacity", file.to_str().unwrap()]);
    device.send(r#"{"id":"u1","role":"user","content":"hi"}"#);
    device.send(r#"{"type":"RUN"}"#);
    let events = device.run_events();
    assert_eq!(
        kinds(&events),
        ["RUN_STARTED", "TEXT_MESSAGE_START", "RUN_ERROR"]
    );
    assert_eq!(
        events[2]["message"],
        "frame 2: 2 text messages open; the device holds 1 (msgs)"
    );
    // The agent's run finished; the device's did not: exit 1.
    let out = device.finish(true);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the last run did not finish"), "{stderr}");
}

/// Bad values: one line, exit 2, before the device is opened.
#[test]
fn bad_capacity_is_a_usage_error() {
    let dir = tempdir();
    let file = dir.join("bad.cap");
    std::fs::write(&file, "msgs = 1\nwidth = 3\n").unwrap();
    let path = file.to_str().unwrap();
    let cases = [
        (
            path.to_owned(),
            format!(
                "agui-gateway: --device-capacity {path}: line 2: unknown key 'width' (expected msgs, tools, steps, id, depth)\n"
            ),
        ),
        (
            "nano".to_owned(),
            "agui-gateway: --device-capacity nano: not a preset (agent, serial, kiosk) and not a readable file: ".to_owned(),
        ),
    ];
    for (arg, want) in cases {
        let out = Command::new(GATEWAY)
            .args(["http://127.0.0.1:1/", "--tcp", "127.0.0.1:1"])
            .args(["--device-capacity", &arg])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = text(&out.stderr);
        assert!(stderr.starts_with(&want), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
}

/// A fresh directory under the target's tmp.
fn tempdir() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "device-cap-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// ---------------------------------------------------------------------------
// The agent firmware in QEMU
// ---------------------------------------------------------------------------

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Fails with a clear message when QEMU is missing.
fn require_qemu() {
    let found = Command::new("sh")
        .args(["-c", "command -v qemu-system-arm"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        found,
        "qemu-system-arm is not installed (Debian: apt-get install -y qemu-system-arm)"
    );
}

/// The `agent` firmware, built once (release, its own workspace).
fn agent_elf() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let fw = repo().join("examples/firmware");
            let status = Command::new("cargo")
                .args(["build", "--release", "--quiet", "--bin", "agent"])
                .current_dir(&fw)
                .env_remove("CARGO_TARGET_DIR")
                .status()
                .unwrap();
            assert!(
                status.success(),
                "cannot build the agent firmware (rustup target add thumbv7m-none-eabi?)"
            );
            fw.join("target/thumbv7m-none-eabi/release/agent")
        })
        .clone()
}

/// A free TCP port of 127.0.0.1.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The firmware in QEMU, UART0 on a TCP server at `port`.
fn qemu(port: u16) -> Guard {
    require_qemu();
    let elf = agent_elf();
    Guard(
        Command::new("qemu-system-arm")
            .args(["-cpu", "cortex-m3", "-machine", "lm3s6965evb"])
            .args(["-display", "none", "-monitor", "none"])
            .arg("-serial")
            .arg(format!("tcp:127.0.0.1:{port},server=on,wait=on"))
            .args(["-semihosting-config", "enable=on,target=native", "-kernel"])
            .arg(&elf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

/// The firmware behind the gateway (with `args`) and `agent`: the device's
/// log lines (the gateway's stdout), the gateway's stderr, and both exit
/// statuses (firmware, gateway).
fn firmware_behind_gateway(
    agent: &server::Server,
    args: &[&str],
) -> (Vec<String>, String, Option<i32>, Option<i32>) {
    let port = free_port();
    let board = qemu(port);
    let gateway = Guard(
        Command::new(GATEWAY)
            .args([&agent.url(), "--tcp", &format!("127.0.0.1:{port}")])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let board = wait_output(board, STEP);
    let gateway = wait_output(gateway, STEP);
    let lines = text(&gateway.stdout).lines().map(str::to_owned).collect();
    (
        lines,
        text(&gateway.stderr),
        board.status.code(),
        gateway.status.code(),
    )
}

/// Through the gateway with `--device-capacity agent`, the real firmware
/// gets RUN_ERROR gateway_capacity for each of the four, logs it, asks
/// again, and takes the next run at every limit: exit 0.
#[test]
fn firmware_in_qemu_gets_gateway_capacity_and_runs_again() {
    for (over, limit) in over_the_agent() {
        let mut first = vec![started()];
        first.extend(over);
        first.push(finished());
        let agent = agent(first, at_the_agent_limits("at the limits"));
        let (lines, stderr, firmware, gateway) =
            firmware_behind_gateway(&agent, &["--device-capacity", "agent"]);
        assert_eq!(
            lines,
            [
                "agent: the run failed (RUN_ERROR gateway_capacity); asking again",
                "assistant: at the limits",
            ],
            "{stderr}"
        );
        assert_eq!(firmware, Some(0), "{stderr}");
        assert_eq!(gateway, Some(0), "{stderr}");
        assert!(stderr.contains(limit), "{stderr}");
        assert_eq!(agent.requests().len(), 2);
    }
}

/// The boundary is the firmware's own: fed straight (the test as the
/// gateway), its pipeline takes the run at every limit and rejects each
/// of the four streams at the frame the gateway holds back.
#[test]
fn firmware_in_qemu_rejects_what_the_preset_says() {
    let line = |ev: &Value| format!("{ev}\n");
    // At the limits: accepted, answered, exit 0.
    let mut board = Board::boot();
    for ev in at_the_agent_limits("fits") {
        board.send(&line(&ev));
    }
    let (lines, status) = board.until_done();
    assert_eq!(lines, ["#assistant: fits"]);
    assert_eq!(status, Some(0));
    // Past them: the pipeline's own error, at the same frame (the
    // tokenizer's depth error is a `decode` error, at the 33rd container:
    // nothing of the frame after it is sent, see `until_too_deep`).
    let codes = [
        "decode capacity",
        "decode decode",
        "verify capacity",
        "verify capacity",
    ];
    for ((over, _), code) in over_the_agent().into_iter().zip(codes) {
        let mut board = Board::boot();
        board.send(&line(&started()));
        for ev in &over {
            board.send(until_too_deep(&line(ev), 32));
        }
        let (lines, status) = board.until_done();
        assert_eq!(
            lines,
            [format!(
                "#agent: stream rejected at frame {}: {code}",
                over.len()
            )]
        );
        assert_eq!(status, Some(1));
    }
}

/// `frame` up to its first container past `depth` (all of it if none):
/// the firmware stops reading there, and bytes it never reads would make
/// QEMU's socket close with a reset that loses its last lines.
fn until_too_deep(frame: &str, depth: usize) -> &str {
    let mut opened = 0;
    for (at, b) in frame.bytes().enumerate() {
        if b == b'[' || b == b'{' {
            opened += 1;
            if opened > depth {
                return &frame[..=at];
            }
        }
    }
    frame
}

/// The firmware in QEMU with UART0 on a TCP socket that the test holds
/// (the test is the gateway).
struct Board {
    qemu: Guard,
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Board {
    fn boot() -> Board {
        let port = free_port();
        let qemu = qemu(port);
        let started = Instant::now();
        let stream = loop {
            match TcpStream::connect(("127.0.0.1", port)) {
                Ok(stream) => break stream,
                Err(_) if started.elapsed() < STEP => thread::sleep(Duration::from_millis(20)),
                Err(e) => panic!("QEMU's UART0 socket: {e}"),
            }
        };
        stream.set_read_timeout(Some(STEP)).unwrap();
        let mut board = Board {
            qemu,
            reader: BufReader::new(stream.try_clone().unwrap()),
            writer: stream,
        };
        // The boot lines: the declaration, the user message, RUN.
        for _ in 0..3 {
            board.line();
        }
        board
    }

    fn send(&mut self, text: &str) {
        self.writer.write_all(text.as_bytes()).unwrap();
    }

    fn line(&mut self) -> String {
        let mut line = String::new();
        let n = self.reader.read_line(&mut line).unwrap();
        assert!(n > 0, "the firmware closed the line");
        line.trim_end_matches('\n').to_owned()
    }

    /// The lines up to DONE, and the firmware's exit status.
    fn until_done(mut self) -> (Vec<String>, Option<i32>) {
        let mut lines = Vec::new();
        loop {
            let line = self.line();
            if line == r#"{"type":"DONE"}"# {
                break;
            }
            lines.push(line);
        }
        let out = wait_output(self.qemu, STEP);
        (lines, out.status.code())
    }
}
