//! A person in the loop through `agui-gateway` (docs/SPEC.md section 11,
//! `RESUME`): the agent's interrupts reach the device in the relayed
//! `RUN_FINISHED`, the device answers with `RESUME` lines and `RUN`, and
//! the agent's answer differs by the decision. Against pydantic-ai's tool
//! approval (`examples/agents/pydantic_server.py`, `/approval`), with the
//! test as the device, and with the `agent` firmware in QEMU, its person a
//! second UART. Hostile devices: answers to unknown ids, bad answers, a
//! flood of answers, a payload past the request limit, RUN unanswered.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod backend;
use backend::Backend;

mod hostile_device;
use hostile_device::{text, wait_output, Device, Guard, GATEWAY, STEP};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// pydantic-ai's approval agent: its URL.
fn approval(backend: &Backend) -> String {
    format!("{}approval", backend.url)
}

/// The assistant's text of a run's events.
fn said(events: &[Value]) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| e["delta"].as_str().unwrap())
        .collect()
}

/// Asks, and returns the interrupts of the relayed RUN_FINISHED.
fn ask(device: &mut Device) -> Vec<Value> {
    device.send(r#"{"id":"u1","role":"user","content":"Let me in"}"#);
    device.send(r#"{"type":"RUN"}"#);
    let events = device.run_events();
    let end = events.last().unwrap();
    assert_eq!(end["type"], "RUN_FINISHED", "{events:?}");
    assert_eq!(end["outcome"]["type"], "interrupt", "{end}");
    end["outcome"]["interrupts"].as_array().unwrap().clone()
}

/// The device approves or denies; the agent's answer says which.
#[test]
fn device_approves_and_denies_through_the_gateway() {
    let backend = Backend::start("pydantic_server.py");
    for (approved, answer) in [
        (true, r#"unlock_door says: "the front door is unlocked"."#),
        (false, r#"unlock_door says: "The tool call was denied."."#),
    ] {
        let mut device = Device::start(&approval(&backend));
        let asked = ask(&mut device);
        assert_eq!(asked.len(), 1);
        assert_eq!(
            asked[0]["message"],
            r#"Approve unlock_door({"door":"front"})?"#
        );
        let line = json!({"type": "RESUME", "interruptId": asked[0]["id"], "status": "resolved",
                          "payload": {"approved": approved}});
        device.send(&line.to_string());
        device.send(r#"{"type":"RUN"}"#);
        let events = device.run_events();
        assert_eq!(said(&events), answer);
        assert!(events
            .last()
            .unwrap()
            .get("outcome")
            .is_none_or(|o| o["type"] != "interrupt"));
        let out = device.finish(true);
        let stderr = text(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(
            stderr.contains(r#"agui-gateway: interrupt int-call_unlock_door_1: Approve unlock_door({"door":"front"})?"#),
            "{stderr}"
        );
    }
}

/// A cancelled answer: pydantic-ai reports the tool call cancelled.
#[test]
fn device_cancels_an_interrupt() {
    let backend = Backend::start("pydantic_server.py");
    let mut device = Device::start(&approval(&backend));
    let asked = ask(&mut device);
    let line = json!({"type": "RESUME", "interruptId": asked[0]["id"], "status": "cancelled"});
    device.send(&line.to_string());
    device.send(r#"{"type":"RUN"}"#);
    let events = device.run_events();
    assert_eq!(said(&events), r#"unlock_door says: "Cancelled by user."."#);
    assert!(device.finish(true).status.success());
}

/// Bad answers are refused with `!error`, change nothing, and a RUN
/// before every interrupt has an answer is refused: the thread goes on
/// once the device answers well. A flood of repeated answers is counted
/// once against `--max-input-bytes`; a payload past it is refused.
#[test]
fn hostile_answers_are_refused_and_nothing_is_lost() {
    let backend = Backend::start("pydantic_server.py");
    let mut device = Device::start_with(&approval(&backend), &["--max-input-bytes", "20000"]);
    // Before any run: nothing is pending.
    device.send(r#"{"type":"RESUME","interruptId":"x","status":"resolved"}"#);
    assert_eq!(
        device.line(),
        "!error not_awaited RESUME: no pending interrupt has the id 'x' (the last run left 0)"
    );
    let asked = ask(&mut device);
    let id = asked[0]["id"].as_str().unwrap().to_owned();
    let cases: [(String, &str); 6] = [
        (
            r#"{"type":"RESUME","interruptId":"int-nobody","status":"resolved"}"#.to_owned(),
            "!error not_awaited RESUME: no pending interrupt has the id 'int-nobody' (the last run left 1)",
        ),
        (
            format!(r#"{{"type":"RESUME","interruptId":"{id}","status":"maybe"}}"#),
            r#"!error bad_field RESUME: `status` must be "resolved" or "cancelled""#,
        ),
        (
            format!(r#"{{"type":"RESUME","interruptId":"{id}"}}"#),
            "!error bad_field RESUME: `status` is required",
        ),
        (
            r#"{"type":"RESUME","interruptId":7,"status":"resolved"}"#.to_owned(),
            "!error bad_field RESUME: `interruptId` must be a string",
        ),
        (
            format!(r#"{{"type":"RESUME","interruptId":"{id}","status":"cancelled","payload":1}}"#),
            "!error bad_field RESUME: a cancelled answer has no `payload`",
        ),
        (
            r#"{"type":"RUN"}"#.to_owned(),
            "!error unanswered RUN while the last run's interrupt(s) int-call_unlock_door_1 have no answer",
        ),
    ];
    for (line, answer) in &cases {
        device.send(line);
        let got = device.line();
        assert!(
            got.starts_with(answer),
            "{line}: got {got:?}, want {answer:?}..."
        );
    }
    // A payload that would take the request past 20 000 bytes.
    let big = json!({"type": "RESUME", "interruptId": id, "status": "resolved",
                     "payload": {"approved": true, "reason": "x".repeat(30_000)}});
    device.send(&big.to_string());
    assert!(device.line().starts_with("!error over_limit "));
    // Answered again and again (a stuck button): each replaces the last,
    // its bytes too, so 2 000 answers of 2 000 bytes are not 4 MB.
    let answer = json!({"type": "RESUME", "interruptId": id, "status": "resolved",
                        "payload": {"approved": false, "reason": "n".repeat(2_000)}});
    device.flood(&answer.to_string(), 2_000);
    device.send(r#"{"type":"DANCE"}"#);
    let answers = device.answers_until("!error unknown_line");
    assert_eq!(answers.len(), 1, "{:?}", &answers[..answers.len().min(3)]);

    device.send(r#"{"type":"RUN"}"#);
    let events = device.run_events();
    // pydantic-ai gives the denial's reason to the model.
    let reason = "n".repeat(2_000);
    assert_eq!(said(&events), format!(r#"unlock_door says: "{reason}"."#));
    let out = device.finish(true);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("[unanswered]"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

// ---------------------------------------------------------------------------
// The agent firmware in QEMU: its person types on UART1
// ---------------------------------------------------------------------------

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

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Connects to a QEMU serial socket, retrying while QEMU starts.
fn connect(port: u16) -> TcpStream {
    let started = Instant::now();
    loop {
        match TcpStream::connect(("127.0.0.1", port)) {
            Ok(stream) => return stream,
            Err(_) if started.elapsed() < STEP => thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("QEMU's serial socket: {e}"),
        }
    }
}

/// The firmware against pydantic-ai's approval agent through the gateway;
/// the person's console (UART1) answers `typed` (each with its line end).
/// Returns the gateway's stdout (the device's log lines) and the console's
/// text.
fn firmware_asks(typed: &[&str]) -> (String, String) {
    assert!(
        Command::new("sh")
            .args(["-c", "command -v qemu-system-arm"])
            .stdout(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false),
        "qemu-system-arm is not installed (Debian: apt-get install -y qemu-system-arm)"
    );
    let backend = Backend::start("pydantic_server.py");
    let elf = agent_elf();
    let (line_port, console_port) = (free_port(), free_port());
    let qemu = Guard(
        Command::new("qemu-system-arm")
            .args(["-cpu", "cortex-m3", "-machine", "lm3s6965evb"])
            .args(["-display", "none", "-monitor", "none"])
            .arg("-serial")
            .arg(format!("tcp:127.0.0.1:{line_port},server=on,wait=on"))
            .arg("-serial")
            .arg(format!("tcp:127.0.0.1:{console_port},server=on,wait=off"))
            .args(["-semihosting-config", "enable=on,target=native", "-kernel"])
            .arg(&elf)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    // QEMU listens on the console only once the gateway has connected.
    let gateway = Guard(
        Command::new(GATEWAY)
            .arg(approval(&backend))
            .args(["--tcp", &format!("127.0.0.1:{line_port}")])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let console = connect(console_port);
    console.set_read_timeout(Some(STEP)).unwrap();
    let mut reader = BufReader::new(console.try_clone().unwrap());
    let mut writer = console;
    let mut shown = String::new();
    for answer in typed {
        // The question, then the prompt (no line end after it).
        let mut got = Vec::new();
        while !got.ends_with(b"[y/n] ") {
            let mut byte = [0u8; 1];
            let n = std::io::Read::read(&mut reader, &mut byte).unwrap();
            if n == 0 {
                // QEMU ended: what each process said, to tell why.
                let (mut qemu, mut gateway) = (qemu, gateway);
                let _ = qemu.0.kill();
                let _ = gateway.0.kill();
                let fw = wait_output(qemu, STEP);
                let gw = wait_output(gateway, STEP);
                panic!(
                    "the console closed after {:?}\nQEMU: {} {}\ngateway: {}\n{}",
                    text(&got),
                    fw.status,
                    text(&fw.stderr),
                    text(&gw.stdout),
                    text(&gw.stderr)
                );
            }
            got.push(byte[0]);
        }
        shown.push_str(&text(&got));
        writer.write_all(answer.as_bytes()).unwrap();
    }
    let mut rest = String::new();
    let _ = reader.read_line(&mut rest);
    shown.push_str(&rest);
    let fw = wait_output(qemu, STEP);
    let gw = wait_output(gateway, STEP);
    let stdout = text(&gw.stdout);
    assert!(
        fw.status.success(),
        "firmware failed:\n{stdout}\n{}\n{}",
        text(&gw.stderr),
        text(&fw.stderr)
    );
    assert!(gw.status.success(), "gateway: {}", text(&gw.stderr));
    (stdout, shown)
}

/// Approve at the device: the door opens; deny: the agent says so. A
/// wrong key is asked again; Enter on a raw terminal (CR alone) ends an
/// answer as LF and CR LF do.
#[test]
fn firmware_in_qemu_approves_and_denies_through_the_gateway() {
    let question = r#"Approve unlock_door({"door":"front"})?"#;
    let (stdout, console) = firmware_asks(&["y\n"]);
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            format!("question: {question}"),
            "answer: approved".to_owned(),
            r#"assistant: unlock_door says: "the front door is unlocked"."#.to_owned(),
        ]
    );
    assert!(
        console.starts_with(&format!("{question} [y/n] ")),
        "{console}"
    );

    let (stdout, console) = firmware_asks(&["maybe\r\n", "n\r"]);
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            format!("question: {question}"),
            "answer: denied".to_owned(),
            r#"assistant: unlock_door says: "The tool call was denied."."#.to_owned(),
        ]
    );
    assert_eq!(
        console.matches(&format!("{question} [y/n] ")).count(),
        2,
        "asked again after a wrong key: {console}"
    );
}
