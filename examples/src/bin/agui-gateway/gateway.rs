//! The main thread: the conversation, runs, and answers to the device.

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use agui_alloc::client::Client;
use agui_alloc::conversation::{AnswerError, Conversation, Resolution, RunStatus};
use agui_alloc::http::{HttpAgent, HttpErrorKind};
use agui_alloc::model::{Message, Tool, ToolMessage};
use agui_core::device::{self, LineCode};
use agui_core::protocol::{Protocol, Select};
use agui_examples::transcript::Peer;
use serde_json::json;

use crate::convert::ToCurrent;
use crate::device_cap::DeviceCapacity;
use crate::lines::{bad, parse_line, Decoded, Refusal};
use crate::port::{self, DeviceOut};
use crate::reader::{FromDevice, Reading, Shared};
use crate::relay::Relay;
use crate::{Args, ProtocolArg};

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
    /// The bytes counted for each interrupt's answer since the last run:
    /// an answer given again replaces the last one, so its bytes do too.
    answered: HashMap<String, usize>,
    /// The client's limits for each run's fold (`--max-*` of the client).
    client_limits: agui_alloc::client::Limits,
    /// `--protocol`: what the agent is asked to speak and read as.
    protocol: Protocol,
    /// `--device-protocol current` with `--protocol 1.0`: each run's
    /// frames are converted for the device.
    convert: bool,
    /// Resynchronising runs sent so far (their run ids count them).
    resyncs: u32,
    /// The device came back and got its resynchronising run unasked, and
    /// no line came since: its first `HELLO` is answered already (a device
    /// that reconnects gets one run, not two).
    resynced: bool,
    /// `--reconnect`: where and how long to wait for the device to come
    /// back.
    reconnect: Option<Reconnect>,
}

/// What a reconnection needs (`--tcp` with `--reconnect`).
pub struct Reconnect {
    /// The device's address.
    pub addr: String,
    /// How long to try.
    pub within: Duration,
    /// The queue the new reading thread fills, as the first one did.
    pub tx: SyncSender<FromDevice>,
    /// The queue's length.
    pub queue: usize,
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
        reconnect: Option<Reconnect>,
    ) -> Self {
        let client_limits = args.limits.limits(args.max_messages);
        let protocol = match args.protocol {
            ProtocolArg::Current => Protocol::Current,
            ProtocolArg::V1 => Protocol::V1,
        };
        let conv = Conversation::new(args.thread.clone())
            .with_limits(client_limits)
            .speaking(protocol);
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
            answered: HashMap::new(),
            client_limits,
            protocol,
            convert: args.protocol == ProtocolArg::V1
                && args.device_protocol == ProtocolArg::Current,
            resyncs: 0,
            resynced: false,
            reconnect,
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
                FromDevice::Gone(why) => {
                    if self.reconnect.is_none() {
                        return self.gone(&why);
                    }
                    if let Err(e) = self.come_back(&why) {
                        eprintln!("agui-gateway: {e}");
                        return self.gone(&why);
                    }
                }
            }
        }
        self.gone("the reader stopped")
    }

    /// Applies a good line of `size` bytes to the conversation (or runs).
    fn apply(&mut self, line: Decoded, size: usize) -> Result<(), Refusal> {
        if matches!(line, Decoded::Hello) {
            // Every HELLO is a start (a device may restart twice in a row)
            // but the one a reconnected device sends after its run.
            if !std::mem::take(&mut self.resynced) {
                self.resync("the device said HELLO");
            }
            return Ok(());
        }
        if !matches!(line, Decoded::Blank) {
            self.resynced = false;
        }
        match line {
            Decoded::Tool(tool) => self.declare(tool, size)?,
            Decoded::User(message) => self.add(message, size)?,
            Decoded::ToolResult(result) => self.add_result(result, size)?,
            Decoded::Resume(id, resolution) => self.resume(id, resolution, size)?,
            Decoded::Run => self.run()?,
            Decoded::Done | Decoded::Hello | Decoded::Blank => {}
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

    /// An answer to a pending interrupt, within `--max-input-bytes`.
    fn resume(&mut self, id: String, resolution: Resolution, size: usize) -> Result<(), Refusal> {
        if !self
            .conv
            .pending_interrupts()
            .iter()
            .any(|p| p.interrupt.id == id)
        {
            return Err(not_pending(&id, self.conv.pending_interrupts().len()));
        }
        let before = self.answered.get(&id).copied().unwrap_or(0);
        self.input_bytes = self.input_bytes.saturating_sub(before);
        if let Err(e) = self.take_bytes(size) {
            self.input_bytes = self.input_bytes.saturating_add(before);
            return Err(e);
        }
        match self.conv.answer(&id, resolution) {
            Ok(()) => {}
            // Checked above; no run is in progress between lines.
            Err(AnswerError::Unknown(_)) => {
                return Err(not_pending(&id, self.conv.pending_interrupts().len()))
            }
            Err(AnswerError::RunInProgress) => {
                return Err(bad(LineCode::Busy, AnswerError::RunInProgress.to_string()))
            }
        }
        self.answered.insert(id, size);
        Ok(())
    }

    /// RUN is refused while an interrupt of the last run has no answer (the
    /// agent would refuse the run); an expired one is answered `cancelled`.
    fn check_answered(&mut self) -> Result<(), Refusal> {
        self.conv.cancel_expired(now_ms());
        let open: Vec<&str> = self
            .conv
            .pending_interrupts()
            .iter()
            .filter(|p| p.answer.is_none())
            .map(|p| p.interrupt.id.as_str())
            .collect();
        if open.is_empty() {
            return Ok(());
        }
        Err(bad(
            LineCode::Unanswered,
            format!(
                "RUN while the last run's interrupt(s) {} have no answer: send a RESUME line for each first",
                open.join(", ")
            ),
        ))
    }

    /// One run: relays its verified frames, closes a failed one with RUN_ERROR.
    fn run(&mut self) -> Result<(), Refusal> {
        if self.conv.messages().is_empty() {
            return Err(bad(
                LineCode::NoMessage,
                "RUN with no message in the thread",
            ));
        }
        self.check_answered()?;
        // The relay verifies each frame as the conversation reads it.
        let shadow = Client::new()
            .with_limits(self.client_limits)
            .with_protocol(Select::Fixed(self.protocol))
            .with_initial(self.conv.messages().to_vec(), self.conv.state().clone());
        let to_current = self.convert.then(|| {
            let reader = Client::new()
                .with_limits(self.client_limits)
                .with_protocol(Select::Fixed(Protocol::Current))
                .with_initial(self.conv.messages().to_vec(), self.conv.state().clone());
            ToCurrent::new(reader)
        });
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
            to_current,
        );
        self.shared.running.store(true, Ordering::Relaxed);
        let outcome = self.agent.run(&mut self.conv, &mut relay);
        self.shared.running.store(false, Ordering::Relaxed);
        relay.finish();
        self.input_bytes = self.conv.run_input("").len();
        self.answered.clear();
        let restarted = self.shared.restarted.swap(false, Ordering::Relaxed);
        let cancelled = match (
            &relay.device_error,
            self.shared.gone.load(Ordering::Relaxed),
        ) {
            (Some(e), _) => Some(format!("the device stopped taking lines: {e}")),
            (None, true) => Some("the device disconnected".to_owned()),
            (None, false) if restarted => Some("the device restarted (HELLO)".to_owned()),
            (None, false) => None,
        };
        let over_device = relay.over_device.take();
        let unreadable = relay.unreadable.take();
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
            (_, None) if unreadable.is_some() => {
                let why = unreadable.clone().unwrap_or_default();
                eprintln!("agui-gateway: run ended for the device: {}", Peer(&why));
                Some(("gateway_device_protocol", why))
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
        self.show_questions();
        // A run the device could not hold or read did not finish for the device,
        // whatever the agent did.
        self.last_run_ok = matches!(&outcome, Ok(r) if r.status.is_finished())
            && over_device.is_none()
            && unreadable.is_none();
        if self.latency {
            print_latency(std::mem::take(&mut relay.latencies));
        }
        // A device that restarted waits for its resynchronising run, not
        // for the end of a run it no longer knows.
        if let (Some((code, message)), None, false) = (closing, &relay.device_error, restarted) {
            let line = json!({"type": "RUN_ERROR", "message": message, "code": code});
            // A device that cannot take it is noticed by the reader.
            let _ = self.device.write_events(format!("{line}\n").as_bytes());
        }
        Ok(())
    }

    /// The questions the run ended with, on stderr (the device reads them
    /// in the relayed RUN_FINISHED).
    fn show_questions(&self) {
        if let Some(over) = self.conv.interrupt_overflow() {
            eprintln!("agui-gateway: {over}");
        }
        for p in self.conv.pending_interrupts() {
            let asked = format!(
                "interrupt {}: {}",
                p.interrupt.id,
                p.interrupt
                    .message
                    .as_deref()
                    .unwrap_or(&p.interrupt.reason)
            );
            eprintln!("agui-gateway: {}", Peer(&asked));
        }
    }

    /// Sends the device a resynchronising run: `RUN_STARTED`, a
    /// `MESSAGES_SNAPSHOT` and a `STATE_SNAPSHOT` of the conversation so
    /// far, and `RUN_FINISHED` (with the last run's unanswered questions
    /// as its `interrupt` outcome), so that a device that restarted shows
    /// and holds what it held before (docs/SPEC.md section 11, "A device
    /// that comes back").
    fn resync(&mut self, why: &str) {
        self.resyncs = self.resyncs.saturating_add(1);
        let run_id = format!("resync-{}", self.resyncs);
        let thread_id = self.conv.thread_id();
        // The request body's messages and state: the wire form the agent
        // gets, which is the events' form too.
        let input: serde_json::Value =
            serde_json::from_str(&self.conv.run_input(&run_id)).unwrap_or_default();
        let questions: Vec<serde_json::Value> = self
            .conv
            .pending_interrupts()
            .iter()
            .filter(|p| p.answer.is_none())
            .filter_map(|p| serde_json::to_value(&p.interrupt).ok())
            .collect();
        let mut finished = json!({"type": "RUN_FINISHED", "threadId": thread_id, "runId": run_id});
        if !questions.is_empty() {
            finished["outcome"] = json!({"type": "interrupt", "interrupts": questions});
        }
        let frames = [
            json!({"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id}),
            json!({"type": "MESSAGES_SNAPSHOT", "messages": input["messages"]}),
            json!({"type": "STATE_SNAPSHOT", "snapshot": input["state"]}),
            finished,
        ];
        let text: String = frames.iter().map(|f| format!("{f}\n")).collect();
        eprintln!(
            "agui-gateway: {why}: resynchronising run {run_id} ({} messages, {} bytes)",
            self.conv.messages().len(),
            text.len()
        );
        // A device that cannot take it is noticed by the reader.
        let _ = self.device.write_events(text.as_bytes());
    }

    /// The device went away (`why`): waits up to `--reconnect` seconds for
    /// it to listen again, reads it on a new thread, and sends it the
    /// resynchronising run. The conversation is kept as it was.
    fn come_back(&mut self, why: &str) -> Result<(), String> {
        let Some(again) = &self.reconnect else {
            return Err("no --reconnect".to_owned());
        };
        eprintln!(
            "agui-gateway: the device disconnected ({why}); waiting up to {} s for it (--reconnect)",
            again.within.as_secs_f64()
        );
        let stream = port::connect_tcp_within(&again.addr, again.within)?;
        let (reader, writer) = port::tcp_halves(&again.addr, stream)?;
        self.device.replace(writer);
        self.shared.gone.store(false, Ordering::Relaxed);
        let reading = Reading::new(
            Arc::clone(&self.device),
            again.queue,
            Arc::clone(&self.shared),
        );
        let tx = again.tx.clone();
        thread::spawn(move || reading.run(reader, &tx));
        eprintln!("agui-gateway: the device is back on tcp {}", again.addr);
        self.resync("the device came back");
        self.resynced = true;
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

/// A RESUME for an interrupt that is not pending.
fn not_pending(id: &str, pending: usize) -> Refusal {
    bad(
        LineCode::NotAwaited,
        format!("RESUME: no pending interrupt has the id '{id}' (the last run left {pending})"),
    )
}

/// Now, in milliseconds since 1970-01-01 UTC (for `expiresAt`).
fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
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
