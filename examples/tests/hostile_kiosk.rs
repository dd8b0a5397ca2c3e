//! `agui-kiosk --url` against the hostile agent (`hostile_agent/`), on a
//! virtual X display (`xvfb-run`, from the package xvfb; `.ci/run`
//! installs it): the attacks issue 23 names for the kiosk, played end to
//! end. The kiosk keeps its window open after the runs; each test reads
//! its stdout up to "showing the conversation", then ends it (its whole
//! process group, Xvfb included).
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod hostile_agent;

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;

/// `xvfb-run agui-kiosk --url URL --message hello ARGS...` in a process
/// group of its own, killed when dropped.
struct Kiosk(Child);

impl Kiosk {
    fn start(url: &str, args: &[&str]) -> Self {
        let found = Command::new("sh")
            .args(["-c", "command -v xvfb-run"])
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(
            found,
            "xvfb-run is needed (apt-get install xvfb; .ci/run installs it)"
        );
        let child = Command::new("xvfb-run")
            .args(["-a", env!("CARGO_BIN_EXE_agui-kiosk"), "--url", url])
            .args(["--message", "hello"])
            .args(args)
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        Kiosk(child)
    }

    /// The kiosk's stdout up to the line that says the runs are over
    /// (stdout closes early if the kiosk fails; the test then shows why).
    /// Past the fixture's watchdog, the test fails: the kiosk hung.
    fn said(&mut self) -> Vec<String> {
        let (tx, rx) = mpsc::channel();
        let stdout = BufReader::new(self.0.stdout.take().unwrap());
        thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut said = Vec::new();
        loop {
            match rx.recv_timeout(hostile_agent::WATCHDOG) {
                Ok(line) => {
                    let done = line.starts_with("agui-kiosk: showing the conversation");
                    said.push(line);
                    if done {
                        return said;
                    }
                }
                Err(RecvTimeoutError::Disconnected) => return said,
                Err(RecvTimeoutError::Timeout) => panic!(
                    "agui-kiosk hung (no line for {:?}): {said:#?}",
                    hostile_agent::WATCHDOG
                ),
            }
        }
    }
}

impl Drop for Kiosk {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.0.wait();
    }
}

/// A scratch directory for this test, removed first.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-kiosk-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// H1 and M6: a redirect is not followed (the other origin gets nothing),
/// and what the kiosk shows names it without the URL's password.
#[test]
fn the_kiosk_follows_no_redirect_and_shows_no_password() {
    let elsewhere = hostile_agent::runs(|_| vec![]);
    let location = elsewhere
        .url()
        .replace("http://", "http://me:LOCATION-PASSWORD@");
    let agent = hostile_agent::redirect(302, &location);
    let url = agent.url().replace("http://", "http://me:URL-PASSWORD@");
    let said = Kiosk::start(&url, &[]).said();
    let all = said.join("\n");
    assert!(all.contains("HTTP 302 -> http://***@127.0.0.1"), "{all}");
    assert!(!all.contains("PASSWORD"), "{all}");
    assert!(elsewhere.requests().is_empty());
}

/// M6: the URL's password shows neither on stdout nor on the panel (the
/// same text: the error of the failed run).
#[test]
fn the_kiosk_shows_no_url_password() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://me:URL-PASSWORD@127.0.0.1:{port}/");
    let said = Kiosk::start(&url, &[]).said();
    let all = said.join("\n");
    assert!(all.contains("cannot connect"), "{all}");
    assert!(all.contains("http://***@127.0.0.1"), "{all}");
    assert!(!all.contains("URL-PASSWORD"), "{all}");
}

/// M2 and M3: 20 calls of 300 KB arguments each go through `tee` (which
/// writes before it has read everything) without a deadlock, and only 16
/// of them run; the others get an error result.
#[test]
fn the_kiosk_runs_16_calls_of_huge_arguments_without_a_deadlock() {
    let big = format!("{{\"colour\":\"{}\"}}", "g".repeat(300_000));
    let agent = hostile_agent::tool_calls("set_led", 20, &big);
    let dir = scratch("calls");
    let tool = format!("set_led=tee -a '{}'", dir.join("ran").display());
    let said = Kiosk::start(&agent.url(), &["--tool", &tool]).said();
    let finished = said.iter().filter(|l| l.ends_with(": finished")).count();
    assert_eq!(finished, 2, "{said:#?}");
    let ran = std::fs::read(dir.join("ran")).unwrap();
    assert_eq!(ran.len(), 16 * big.len());
    let results = hostile_agent::tool_results(&agent.requests()[1]);
    assert_eq!(results.len(), 20);
    assert!(results[16].1.starts_with("not run: "), "{:?}", results[16]);
    assert_eq!(results[0].1, big);
}
