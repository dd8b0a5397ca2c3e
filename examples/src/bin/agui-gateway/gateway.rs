//! The main thread: the conversation, runs, and answers to the device.

use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::sync::mpsc::Receiver;
use std::sync::Arc;

use agui_alloc::client::Client;
use agui_alloc::conversation::{Conversation, RunStatus};
use agui_alloc::http::{HttpAgent, HttpErrorKind};
use agui_alloc::model::{Message, Tool, ToolMessage};
use agui_core::device::{self, LineCode};
use agui_examples::transcript::Peer;
use serde_json::json;

use crate::device_cap::DeviceCapacity;
use crate::lines::{bad, parse_line, Decoded, Refusal};
use crate::port::DeviceOut;
use crate::reader::{FromDevice, Shared};
use crate::relay::Relay;
use crate::Args;

/// The main thread's state.
pub struct Gateway {
    conv: Conversation,
    agent: HttpAgent,
    device: Arc<DeviceOut>,
    /// Flags shared with the reading thread.
    shared: Arc<Shared>,
    /// The last run ended with RUN_FINISHED.
    last_run_ok: bool,
    latency: bool,
    /// `--ca-cert` was given (else a TLS error says how to trust a CA).
    trusts_own_roots: bool,
    limits: Limits,
    /// `--device-capacity`: frames the device cannot hold end the run.
    device_capacity: Option<DeviceCapacity>,
    /// The size of the next run's request body: exact after each run, plus
    /// the device lines taken since.
    input_bytes: usize,
    /// The client's limits for each run's fold (`--max-*` of the client).
    client_limits: agui_alloc::client::Limits,
}

/// What the device may put into the conversation (`--max-*`).
struct Limits {
    tools: usize,
    messages: usize,
    input_bytes: usize,
}

impl Gateway {
    pub fn new(
        args: &Args,
        agent: HttpAgent,
        device: Arc<DeviceOut>,
        shared: Arc<Shared>,
        device_capacity: Option<DeviceCapacity>,
    ) -> Self {
        let client_limits = args.limits.limits(args.max_messages);
        let conv = Conversation::new(args.thread.clone()).with_limits(client_limits);
        let input_bytes = conv.run_input("").len();
        Gateway {
            conv,
            agent,
            device,
            shared,
            last_run_ok: false,
            latency: args.latency,
            trusts_own_roots: args.ca_cert.is_some(),
            limits: Limits {
                tools: args.max_tools,
                messages: args.max_messages,
                input_bytes: args.max_input_bytes,
            },
            device_capacity,
            input_bytes,
            client_limits,
        }
    }

    /// Handles the device's lines until `DONE` or the device is gone.
    pub fn handle_lines(&mut self, rx: &Receiver<FromDevice>) -> ExitCode {
        for message in rx {
            match message {
                FromDevice::Line(number, bytes) => match parse_line(&bytes) {
                    Ok(Decoded::Done) => return self.done(),
                    Ok(line) => {
                        if let Err(e) = self.apply(line, bytes.len()) {
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

    /// Applies a good line of `size` bytes to the conversation (or runs).
    fn apply(&mut self, line: Decoded, size: usize) -> Result<(), Refusal> {
        match line {
            Decoded::Tool(tool) => self.declare(tool, size)?,
            Decoded::User(message) => self.add(message, size)?,
            Decoded::ToolResult(result) => self.add_result(result, size)?,
            Decoded::Run => self.run()?,
            Decoded::Done | Decoded::Blank => {}
        }
        Ok(())
    }

    /// A tool, within `--max-tools` and `--max-input-bytes`.
    fn declare(&mut self, tool: Tool, size: usize) -> Result<(), Refusal> {
        let known = self.conv.tools().iter().any(|t| t.name == tool.name);
        if !known && self.conv.tools().len() >= self.limits.tools {
            return Err(over_limit(format!(
                "tool '{}': the device declared {} tools already (--max-tools)",
                tool.name, self.limits.tools
            )));
        }
        self.take_bytes(size)?;
        eprintln!("agui-gateway: device declares tool {}", Peer(&tool.name));
        self.conv.declare_tool(tool);
        Ok(())
    }

    /// A message, within `--max-messages` and `--max-input-bytes`.
    fn add(&mut self, message: Message, size: usize) -> Result<(), Refusal> {
        if self.conv.messages().len() >= self.limits.messages {
            return Err(over_limit(format!(
                "the thread holds {} messages already (--max-messages)",
                self.limits.messages
            )));
        }
        self.take_bytes(size)?;
        // No run is in progress between lines, so this cannot fail.
        self.conv
            .add_message(message)
            .map_err(|e| bad(LineCode::Busy, e.to_string()))
    }

    /// Counts `size` more bytes of request body, unless they go past
    /// `--max-input-bytes`.
    fn take_bytes(&mut self, size: usize) -> Result<(), Refusal> {
        let total = self.input_bytes.saturating_add(size);
        if total > self.limits.input_bytes {
            return Err(over_limit(format!(
                "{size} more bytes would take a run's request to {total} bytes, over {} (--max-input-bytes)",
                self.limits.input_bytes
            )));
        }
        self.input_bytes = total;
        Ok(())
    }

    /// A tool result must answer a call awaiting one.
    fn add_result(&mut self, result: ToolMessage, size: usize) -> Result<(), Refusal> {
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
        self.add(Message::Tool(result), size)
    }

    /// One run: relays its verified frames, closes a failed one with RUN_ERROR.
    fn run(&mut self) -> Result<(), Refusal> {
        if self.conv.messages().is_empty() {
            return Err(bad(
                LineCode::NoMessage,
                "RUN with no message in the thread",
            ));
        }
        let shadow = Client::new()
            .with_limits(self.client_limits)
            .with_initial(self.conv.messages().to_vec(), self.conv.state().clone());
        let cancel = self.agent.cancel_flag().clone();
        // A write failure cancelled the previous run; a device that is
        // really gone also ends the loop (FromDevice::Gone).
        cancel.store(false, Ordering::Relaxed);
        let mut relay = Relay::new(
            &self.device,
            shadow,
            cancel,
            self.latency,
            self.device_capacity,
        );
        self.shared.running.store(true, Ordering::Relaxed);
        let outcome = self.agent.run(&mut self.conv, &mut relay);
        self.shared.running.store(false, Ordering::Relaxed);
        relay.finish();
        self.input_bytes = self.conv.run_input("").len();
        let cancelled = match (
            &relay.device_error,
            self.shared.gone.load(Ordering::Relaxed),
        ) {
            (Some(e), _) => Some(format!("the device stopped taking lines: {e}")),
            (None, true) => Some("the device disconnected".to_owned()),
            (None, false) => None,
        };
        let over_device = relay.over_device.take();
        let closing = match (&outcome, cancelled) {
            (_, Some(why)) => {
                eprintln!("agui-gateway: run cancelled: {why}");
                Some(("gateway_transport", format!("run cancelled: {why}")))
            }
            // The agent's run may have gone on; the device's ended here.
            (_, None) if over_device.is_some() => {
                let why = over_device.clone().unwrap_or_default();
                eprintln!("agui-gateway: run ended for the device: {why}");
                Some(("gateway_capacity", why))
            }
            (Ok(report), None) => {
                let said = format!(
                    "run {}: {} ({} frames)",
                    report.run_id, report.status, report.accepted
                );
                eprintln!("agui-gateway: {}", Peer(&said));
                closing_error(&report.status)
            }
            (Err(e), None) => {
                let hint = match e.kind {
                    HttpErrorKind::Tls if !self.trusts_own_roots => {
                        " (--ca-cert FILE trusts a private CA or a self-signed certificate)"
                    }
                    _ => "",
                };
                eprintln!("agui-gateway: run failed: {}{hint}", Peer(&e.to_string()));
                Some(("gateway_transport", e.to_string()))
            }
        };
        // A run the device could not hold did not finish for the device,
        // whatever the agent did.
        self.last_run_ok =
            matches!(&outcome, Ok(r) if r.status.is_finished()) && over_device.is_none();
        if self.latency {
            print_latency(std::mem::take(&mut relay.latencies));
        }
        if let (Some((code, message)), None) = (closing, &relay.device_error) {
            let line = json!({"type": "RUN_ERROR", "message": message, "code": code});
            // A device that cannot take it is noticed by the reader.
            let _ = self.device.write_line(line.to_string().as_bytes());
        }
        Ok(())
    }

    /// A bad line: on stderr and to the device.
    fn report(&mut self, number: u64, e: &Refusal) {
        eprintln!(
            "agui-gateway: device line {number}: {} [{}]",
            Peer(&e.message),
            e.code
        );
        let _ = self.device.write_error(e.code, &e.message);
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

fn over_limit(message: String) -> Refusal {
    bad(LineCode::OverLimit, message)
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
