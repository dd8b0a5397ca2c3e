//! `agui-gateway URL --serial DEVICE [--baud N] | --tcp HOST:PORT`: the
//! bridge between an AG-UI agent (HTTP) and a microcontroller that links
//! only the no-heap core.
//!
//! The gateway holds the conversation (`agui_alloc::conversation`); the
//! device speaks the line protocol of docs/SPEC.md ("Device line
//! protocol"): it declares its tools, sends user messages and tool results,
//! asks for runs, and receives each run's verified events as NDJSON.
//! Progress and errors go to stderr, the device's `#` log lines to stdout.
//!
//! Exit status: 0 after the device's `DONE` when the last run finished;
//! 1 after `DONE` otherwise, or when the device disconnected; 2 on usage
//! errors or when the device cannot be opened.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use agui_alloc::client::Client;
use agui_alloc::conversation::{Conversation, RunStatus};
use agui_alloc::hooks::Subscriber;
use agui_alloc::http::{check_url, HttpAgent, HttpErrorKind, RunObserver};
use agui_alloc::model::{Message, Tool, ToolMessage, UserContent};
use agui_core::frame::{FrameEvent, Framer};
use clap::Parser;
use serde_json::{json, Value};

/// Longest device line (bytes, without its `\n`).
const MAX_LINE: usize = 65_536;

/// How long `--tcp` keeps trying to connect (QEMU may still be starting).
const TCP_CONNECT_FOR: Duration = Duration::from_secs(10);

/// Bridge an AG-UI agent to a device on a serial port or TCP socket.
#[derive(Parser, Debug)]
#[command(name = "agui-gateway", version)]
struct Args {
    /// The agent's URL (http://host:port/path or https://...).
    url: String,
    /// For https: trust the certificates in FILE (PEM: a private CA, or a
    /// self-signed server's certificate) instead of the built-in roots.
    #[arg(long, value_name = "FILE")]
    ca_cert: Option<std::path::PathBuf>,
    /// The device's serial port, e.g. /dev/ttyUSB0.
    #[arg(
        long,
        value_name = "DEVICE",
        conflicts_with = "tcp",
        required_unless_present = "tcp"
    )]
    serial: Option<String>,
    /// The serial port's speed (8N1).
    #[arg(long, value_name = "N", default_value_t = 115_200, requires = "serial")]
    baud: u32,
    /// The device as a TCP server (QEMU's `-serial tcp:...,server=on`).
    #[arg(long, value_name = "HOST:PORT")]
    tcp: Option<String>,
    /// An extra HTTP header for every run, e.g. 'Authorization: Bearer X' (repeatable).
    #[arg(long = "header", short = 'H', value_name = "'K: V'")]
    headers: Vec<String>,
    /// The conversation's thread id.
    #[arg(long, value_name = "ID", default_value = "device")]
    thread: String,
    /// Seconds of silence from the agent before a run is given up.
    #[arg(long, value_name = "SECONDS")]
    idle_timeout: Option<u64>,
    /// After each run, print on stderr how long each frame took from its
    /// arrival from HTTP to its write to the device.
    #[arg(long)]
    latency: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match serve(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("agui-gateway: {e}");
            ExitCode::from(2)
        }
    }
}

/// Opens the device and the agent, then handles the device's lines.
fn serve(args: &Args) -> Result<ExitCode, String> {
    let agent = http_agent(args)?;
    let (reader, writer) = open_device(args)?;
    let cancel = agent.cancel_flag().clone();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || read_device(reader, &tx, &cancel));
    let mut gateway = Gateway {
        conv: Conversation::new(args.thread.clone()),
        agent,
        device: writer,
        last_run_ok: false,
        latency: args.latency,
        trusts_own_roots: args.ca_cert.is_some(),
    };
    Ok(gateway.handle_lines(&rx))
}

/// The HTTP side, with the user's headers and timeout.
fn http_agent(args: &Args) -> Result<HttpAgent, String> {
    check_url(&args.url).map_err(|e| e.to_string())?;
    let mut agent = HttpAgent::new(args.url.clone());
    if let Some(file) = &args.ca_cert {
        let pem = std::fs::read(file)
            .map_err(|e| format!("--ca-cert {}: cannot read: {e}", file.display()))?;
        agent = agent
            .root_certs_pem(&pem)
            .map_err(|e| format!("--ca-cert {}: {e}", file.display()))?;
    }
    for header in &args.headers {
        let (name, value) = header
            .split_once(':')
            .ok_or_else(|| format!("--header '{header}': expected 'Name: value'"))?;
        agent = agent.header(name.trim(), value.trim());
    }
    if let Some(secs) = args.idle_timeout {
        agent = agent.idle_timeout(Duration::from_secs(secs));
    }
    Ok(agent)
}

type DeviceReader = Box<dyn Read + Send>;
type DeviceWriter = Box<dyn Write + Send>;

/// Opens `--serial` or `--tcp` as a reading and a writing half.
fn open_device(args: &Args) -> Result<(DeviceReader, DeviceWriter), String> {
    if let Some(addr) = &args.tcp {
        let stream = connect_tcp(addr)?;
        let reader = stream
            .try_clone()
            .map_err(|e| format!("--tcp {addr}: {e}"))?;
        // Lines are small: send each at once.
        stream
            .set_nodelay(true)
            .map_err(|e| format!("--tcp {addr}: {e}"))?;
        eprintln!("agui-gateway: device connected on tcp {addr}");
        return Ok((Box::new(reader), Box::new(stream)));
    }
    let path = args.serial.as_deref().unwrap_or_default();
    let port = serialport::new(path, args.baud)
        // Reads wait this long before a harmless timeout; see SerialReader.
        .timeout(Duration::from_secs(1))
        .open()
        .map_err(|e| format!("--serial {path}: {e}"))?;
    let reader = port
        .try_clone()
        .map_err(|e| format!("--serial {path}: {e}"))?;
    eprintln!("agui-gateway: device on {path} at {} baud", args.baud);
    Ok((Box::new(SerialReader(reader)), Box::new(port)))
}

/// Connects, retrying while nobody listens yet (QEMU starting up).
fn connect_tcp(addr: &str) -> Result<TcpStream, String> {
    let started = Instant::now();
    loop {
        match TcpStream::connect(addr) {
            Ok(stream) => return Ok(stream),
            Err(e)
                if e.kind() == io::ErrorKind::ConnectionRefused
                    && started.elapsed() < TCP_CONNECT_FOR =>
            {
                thread::sleep(Duration::from_millis(100));
            }
            Err(e) => return Err(format!("--tcp {addr}: cannot connect: {e}")),
        }
    }
}

/// A serial port whose read timeouts mean "nothing yet", not an error.
struct SerialReader(Box<dyn serialport::SerialPort>);

impl Read for SerialReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::TimedOut => continue,
                other => return other,
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Reading the device
// ---------------------------------------------------------------------------

/// What the reading thread hands to the main thread.
enum FromDevice {
    /// A complete line (without `\n` and a `\r` before it), numbered from 1.
    Line(u64, Vec<u8>),
    /// Line `n` was longer than [`MAX_LINE`]; it was dropped.
    TooLong(u64),
    /// The device is gone: end of stream or a read error.
    Gone(String),
}

/// Reads lines until the device goes away. Log lines (`#`) are printed at
/// once; the others go to the main thread. When the device is gone before
/// saying `DONE`, a run in progress is cancelled through `cancel` (after
/// `DONE`, the end of the stream is the normal goodbye, and the run that
/// may still be reading its last bytes is left to end by itself).
fn read_device(reader: DeviceReader, tx: &Sender<FromDevice>, cancel: &AtomicBool) {
    let mut reader = BufReader::new(reader);
    let mut number = 0u64;
    let mut done = false;
    let gone = loop {
        let mut line = Vec::new();
        let complete = match read_line(&mut reader, &mut line) {
            Ok(complete) => complete,
            Err(e) => break format!("read error: {e}"),
        };
        if !complete && line.is_empty() {
            break "end of stream".to_owned();
        }
        number += 1;
        let message = match line.len() {
            n if n > MAX_LINE => FromDevice::TooLong(number),
            _ if line.first() == Some(&b'#') => {
                print_log(&line);
                continue;
            }
            _ => {
                done |= matches!(parse_line(&line), Ok(DeviceLine::Done));
                FromDevice::Line(number, line)
            }
        };
        if tx.send(message).is_err() {
            return;
        }
    };
    if !done {
        cancel.store(true, Ordering::Relaxed);
    }
    let _ = tx.send(FromDevice::Gone(gone));
}

/// Reads one line into `line` (keeping at most `MAX_LINE + 1` bytes of it,
/// enough to know it is too long); true if it ended with `\n`.
fn read_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<bool> {
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(false);
        }
        let end = available.iter().position(|&b| b == b'\n');
        let take = end.unwrap_or(available.len());
        let room = (MAX_LINE + 1).saturating_sub(line.len());
        line.extend_from_slice(&available[..take.min(room)]);
        reader.consume(end.map_or(take, |at| at + 1));
        if end.is_some() {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(true);
        }
    }
}

/// A device log line, without its `#`, on stdout.
fn print_log(line: &[u8]) {
    let mut out = io::stdout().lock();
    let _ = out.write_all(line.get(1..).unwrap_or_default());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

// ---------------------------------------------------------------------------
// The device's lines
// ---------------------------------------------------------------------------

/// A device line, decoded.
enum DeviceLine {
    Tool(Tool),
    User(Message),
    ToolResult(ToolMessage),
    Run,
    Done,
    Blank,
}

/// A bad device line: a stable code (SPEC) and what is wrong.
struct LineError {
    code: &'static str,
    message: String,
}

fn bad(code: &'static str, message: impl Into<String>) -> LineError {
    LineError {
        code,
        message: message.into(),
    }
}

/// Decodes one line (without its line end).
fn parse_line(bytes: &[u8]) -> Result<DeviceLine, LineError> {
    let text =
        std::str::from_utf8(bytes).map_err(|e| bad("not_utf8", format!("not UTF-8: {e}")))?;
    if text.trim().is_empty() {
        return Ok(DeviceLine::Blank);
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| bad("not_json", format!("not JSON: {e}")))?;
    if !value.is_object() {
        return Err(bad("not_json", "not a JSON object"));
    }
    match value.get("type") {
        Some(Value::String(kind)) => parse_typed(kind, &value),
        Some(_) => Err(bad("bad_field", "`type` must be a string")),
        None if value.get("role").and_then(Value::as_str) == Some("user") => {
            Message::from_json(&value)
                .map(DeviceLine::User)
                .map_err(|e| bad("bad_field", format!("user message: {e}")))
        }
        None => Err(bad(
            "unknown_line",
            "an object with neither `type` nor `\"role\":\"user\"`",
        )),
    }
}

/// The lines with a `type`.
fn parse_typed(kind: &str, value: &Value) -> Result<DeviceLine, LineError> {
    match kind {
        "TOOL" => parse_tool(value).map(DeviceLine::Tool),
        "TOOL_CALL_RESULT" => parse_result(value).map(DeviceLine::ToolResult),
        "RUN" => Ok(DeviceLine::Run),
        "DONE" => Ok(DeviceLine::Done),
        other => Err(bad("unknown_line", format!("unknown line type '{other}'"))),
    }
}

/// A string field, required.
fn string_field(value: &Value, what: &str, key: &str) -> Result<String, LineError> {
    match value.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(bad(
            "bad_field",
            format!("{what}: `{key}` must be a string"),
        )),
        None => Err(bad("bad_field", format!("{what}: `{key}` is required"))),
    }
}

/// `{"type":"TOOL","name","description"?,"parameters"?}`.
fn parse_tool(value: &Value) -> Result<Tool, LineError> {
    let name = string_field(value, "TOOL", "name")?;
    let description = match value.get("description") {
        None => String::new(),
        Some(_) => string_field(value, "TOOL", "description")?,
    };
    let parameters = value
        .get("parameters")
        .cloned()
        .unwrap_or_else(|| json!({"type": "object"}));
    Ok(Tool {
        name,
        description,
        parameters: Some(parameters),
        metadata: None,
    })
}

/// `{"type":"TOOL_CALL_RESULT","messageId","toolCallId","content","role"?}`.
fn parse_result(value: &Value) -> Result<ToolMessage, LineError> {
    let what = "TOOL_CALL_RESULT";
    if let Some(role) = value.get("role") {
        if role.as_str() != Some("tool") {
            return Err(bad("bad_field", format!("{what}: `role` must be \"tool\"")));
        }
    }
    Ok(ToolMessage {
        id: string_field(value, what, "messageId")?,
        content: UserContent::Text(string_field(value, what, "content")?),
        tool_call_id: string_field(value, what, "toolCallId")?,
        ..ToolMessage::default()
    })
}

// ---------------------------------------------------------------------------
// The conversation
// ---------------------------------------------------------------------------

/// The main thread's state.
struct Gateway {
    conv: Conversation,
    agent: HttpAgent,
    device: DeviceWriter,
    /// The last run ended with RUN_FINISHED.
    last_run_ok: bool,
    latency: bool,
    /// `--ca-cert` was given (else a TLS error says how to trust a CA).
    trusts_own_roots: bool,
}

impl Gateway {
    /// Handles the device's lines until `DONE` or the device is gone.
    fn handle_lines(&mut self, rx: &Receiver<FromDevice>) -> ExitCode {
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
                        "line_too_long",
                        format!("longer than {MAX_LINE} bytes; dropped"),
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
            .map_err(|e| bad("busy", e.to_string()))
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
                "not_awaited",
                format!("no call '{}' awaits a result", result.tool_call_id),
            ));
        }
        self.add(Message::Tool(result))
    }

    /// One run: relays its verified frames, closes a failed one with RUN_ERROR.
    fn run(&mut self) -> Result<(), LineError> {
        if self.conv.messages().is_empty() {
            return Err(bad("no_message", "RUN with no message in the thread"));
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
        let line = format!("!error {} {}", e.code, e.message.replace(['\r', '\n'], " "));
        let _ = write_line(&mut self.device, line.as_bytes());
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
fn write_line(device: &mut DeviceWriter, line: &[u8]) -> io::Result<()> {
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

// ---------------------------------------------------------------------------
// Relaying a run
// ---------------------------------------------------------------------------

/// Sees the HTTP body as it arrives: frames it, verifies each frame with a
/// client of its own (the same rules the conversation folds with) and writes
/// each accepted frame to the device as one NDJSON line, at once.
struct Relay<'a> {
    device: &'a mut DeviceWriter,
    framer: Framer,
    frame: Vec<u8>,
    shadow: Client,
    /// The shadow client rejected a frame: nothing more is relayed.
    rejected: bool,
    /// A write to the device failed.
    device_failed: bool,
    /// Per relayed frame: µs from the arrival of its last bytes to its write.
    latencies: Vec<u64>,
    /// Set when the device fails: the run is then cancelled.
    cancel: Arc<AtomicBool>,
}

impl<'a> Relay<'a> {
    fn new(device: &'a mut DeviceWriter, shadow: Client, cancel: Arc<AtomicBool>) -> Self {
        Relay {
            device,
            framer: Framer::new(None),
            frame: Vec::new(),
            shadow,
            rejected: false,
            device_failed: false,
            latencies: Vec::new(),
            cancel,
        }
    }

    /// The body ended: a last frame without its terminator still counts
    /// (SPEC section 1), as it did for the conversation.
    fn finish(&mut self) {
        let arrived = Instant::now();
        while let Some(event) = self.framer.finish() {
            self.on_frame_event(event, arrived);
        }
    }

    fn on_frame_event(&mut self, event: FrameEvent<'_>, arrived: Instant) {
        match event {
            FrameEvent::Start => self.frame.clear(),
            FrameEvent::Data(data) => self.frame.extend_from_slice(data),
            FrameEvent::End => self.on_frame(arrived),
        }
    }

    /// A complete frame: verify, then relay.
    fn on_frame(&mut self, arrived: Instant) {
        if self.rejected || self.device_failed {
            return;
        }
        for b in &mut self.frame {
            if *b == b'\r' || *b == b'\n' {
                *b = b' ';
            }
        }
        self.frame.push(b'\n');
        if self.shadow.feed(&self.frame).is_err() {
            self.rejected = true;
            return;
        }
        let sent = self
            .device
            .write_all(&self.frame)
            .and_then(|()| self.device.flush());
        match sent {
            Ok(()) => self.latencies.push(arrived.elapsed().as_micros() as u64),
            Err(e) => {
                eprintln!("agui-gateway: cannot write to the device: {e}");
                self.device_failed = true;
                self.cancel.store(true, Ordering::Relaxed);
            }
        }
    }
}

impl Subscriber for Relay<'_> {}

impl RunObserver for Relay<'_> {
    fn on_bytes(&mut self, mut bytes: &[u8]) {
        let arrived = Instant::now();
        while !bytes.is_empty() {
            let (used, event) = self.framer.next(bytes);
            bytes = bytes.get(used..).unwrap_or_default();
            if let Some(event) = event {
                self.on_frame_event(event, arrived);
            }
        }
    }
}
