//! The main thread: the conversation, runs, and answers to the device.

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::sync::mpsc::Receiver;

use agui_alloc::client::Client;
use agui_alloc::conversation::{Conversation, RunStatus};
use agui_alloc::http::{HttpAgent, HttpErrorKind};
use agui_alloc::model::{Message, ToolMessage};
use agui_core::device::{self, LineCode};
use serde_json::json;

use crate::lines::{bad, parse_line, DeviceLine, LineError};
use crate::port::DeviceWriter;
use crate::reader::FromDevice;
use crate::relay::Relay;

/// The main thread's state.
pub struct Gateway {
    pub conv: Conversation,
    pub agent: HttpAgent,
    pub device: DeviceWriter,
    /// The last run ended with RUN_FINISHED.
    pub last_run_ok: bool,
    pub latency: bool,
    /// `--ca-cert` was given (else a TLS error says how to trust a CA).
    pub trusts_own_roots: bool,
}

impl Gateway {
    /// Handles the device's lines until `DONE` or the device is gone.
    pub fn handle_lines(&mut self, rx: &Receiver<FromDevice>) -> ExitCode {
        for message in rx {
            match message {
                FromDevice::Line(number, bytes) => match parse_line(&bytes) {
                    Ok(DeviceLine::Done) => return self.done(),
                    Ok(line) => {
                        if let Err(e) = self.apply(line) {
                            self.report(number, &e);
                        }
                    }
                    Err(e) => self.report(number, &e),
                },
                FromDevice::TooLong(number) => {
                    let e = bad(
                        LineCode::LineTooLong,
                        device::LineError::TooLong.to_string(),
                    );
                    self.report(number, &e);
                }
                FromDevice::Gone(why) => return self.gone(&why),
            }
        }
        self.gone("the reader stopped")
    }

    /// Applies a good line to the conversation (or runs).
    fn apply(&mut self, line: DeviceLine) -> Result<(), LineError> {
        match line {
            DeviceLine::Tool(tool) => {
                eprintln!("agui-gateway: device declares tool {}", tool.name);
                self.conv.declare_tool(tool);
            }
            DeviceLine::User(message) => self.add(message)?,
            DeviceLine::ToolResult(result) => self.add_result(result)?,
            DeviceLine::Run => self.run()?,
            DeviceLine::Done | DeviceLine::Blank => {}
        }
        Ok(())
    }

    fn add(&mut self, message: Message) -> Result<(), LineError> {
        // No run is in progress between lines, so this cannot fail.
        self.conv
            .add_message(message)
            .map_err(|e| bad(LineCode::Busy, e.to_string()))
    }

    /// A tool result must answer a call awaiting one.
    fn add_result(&mut self, result: ToolMessage) -> Result<(), LineError> {
        let awaited = self
            .conv
            .pending_tool_calls()
            .iter()
            .any(|call| call.id == result.tool_call_id);
        if !awaited {
            return Err(bad(
                LineCode::NotAwaited,
                format!("no call '{}' awaits a result", result.tool_call_id),
            ));
        }
        self.add(Message::Tool(result))
    }

    /// One run: relays its verified frames, closes a failed one with RUN_ERROR.
    fn run(&mut self) -> Result<(), LineError> {
        if self.conv.messages().is_empty() {
            return Err(bad(
                LineCode::NoMessage,
                "RUN with no message in the thread",
            ));
        }
        let shadow =
            Client::new().with_initial(self.conv.messages().to_vec(), self.conv.state().clone());
        let cancel = self.agent.cancel_flag().clone();
        // A write failure cancelled the previous run; a device that is
        // really gone also ends the loop (FromDevice::Gone).
        cancel.store(false, Ordering::Relaxed);
        let mut relay = Relay::new(&mut self.device, shadow, cancel);
        let outcome = self.agent.run(&mut self.conv, &mut relay);
        relay.finish();
        let (device_failed, latencies) = (relay.device_failed, relay.latencies);
        let closing = match &outcome {
            Ok(report) => {
                eprintln!(
                    "agui-gateway: run {}: {} ({} frames)",
                    report.run_id, report.status, report.accepted
                );
                closing_error(&report.status)
            }
            Err(e) => {
                let hint = match e.kind {
                    HttpErrorKind::Tls if !self.trusts_own_roots => {
                        " (--ca-cert FILE trusts a private CA or a self-signed certificate)"
                    }
                    _ => "",
                };
                eprintln!("agui-gateway: run failed: {e}{hint}");
                Some(("gateway_transport", e.to_string()))
            }
        };
        self.last_run_ok = matches!(&outcome, Ok(r) if r.status.is_finished());
        if self.latency {
            print_latency(latencies);
        }
        if let (Some((code, message)), false) = (closing, device_failed) {
            let line = json!({"type": "RUN_ERROR", "message": message, "code": code});
            // A device that cannot take it is noticed by the reader.
            let _ = write_line(&mut self.device, line.to_string().as_bytes());
        }
        Ok(())
    }

    /// A bad line: on stderr and to the device.
    fn report(&mut self, number: u64, e: &LineError) {
        eprintln!(
            "agui-gateway: device line {number}: {} [{}]",
            e.message, e.code
        );
        let mut line = Vec::new();
        device::write_error(e.code, &e.message, |bytes| line.extend_from_slice(bytes));
        let _ = self
            .device
            .write_all(&line)
            .and_then(|()| self.device.flush());
    }

    fn done(&self) -> ExitCode {
        eprintln!(
            "agui-gateway: the device is done ({} messages in the thread)",
            self.conv.messages().len()
        );
        if self.last_run_ok {
            ExitCode::SUCCESS
        } else {
            eprintln!("agui-gateway: the last run did not finish");
            ExitCode::from(1)
        }
    }

    fn gone(&self, why: &str) -> ExitCode {
        eprintln!(
            "agui-gateway: the device disconnected ({why}); the thread held {} messages",
            self.conv.messages().len()
        );
        ExitCode::from(1)
    }
}

/// The RUN_ERROR the gateway adds when the agent did not end the run itself.
fn closing_error(status: &RunStatus) -> Option<(&'static str, String)> {
    match status {
        RunStatus::Finished { .. } | RunStatus::RunError { .. } => None,
        RunStatus::Protocol(e) => Some((
            "gateway_protocol",
            format!(
                "frame {}: {} error [{}]: {}",
                e.frame,
                e.stage.as_str(),
                e.code.as_str(),
                e.message
            ),
        )),
        RunStatus::Incomplete => Some((
            "gateway_incomplete",
            "the response ended before RUN_FINISHED or RUN_ERROR".to_owned(),
        )),
        RunStatus::Aborted(reason) => Some(("gateway_transport", reason.clone())),
    }
}

/// One line to the device, sent at once.
pub fn write_line(device: &mut DeviceWriter, line: &[u8]) -> io::Result<()> {
    device.write_all(line)?;
    device.write_all(b"\n")?;
    device.flush()
}

/// `relay latency: N frames, median X µs, p99 Y µs, max Z µs` on stderr.
fn print_latency(mut micros: Vec<u64>) {
    if micros.is_empty() {
        return;
    }
    micros.sort_unstable();
    let at = |q: usize| micros[(micros.len() - 1) * q / 100];
    eprintln!(
        "agui-gateway: relay latency: {} frames, median {} µs, p99 {} µs, max {} µs",
        micros.len(),
        at(50),
        at(99),
        at(100)
    );
}
