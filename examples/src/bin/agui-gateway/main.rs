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

mod convert;
mod device_cap;
mod gateway;
mod lines;
mod port;
mod reader;
mod relay;

use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Duration;

use agui_alloc::http::{check_url, HttpAgent};
use agui_examples::flags::{parse_seconds, EncodingArg, LimitFlags};
use agui_examples::headers;
use clap::Parser;

use device_cap::DeviceCapacity;
use gateway::Gateway;
use port::DeviceOut;

/// `--protocol`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ProtocolArg {
    /// The protocol as of August 2026 (SPEC sections 0-8).
    Current,
    /// AG-UI 1.0 (SPEC section 9).
    #[value(name = "1.0")]
    V1,
}

/// `--device-encoding`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DeviceEncodingArg {
    /// One JSON line per event.
    Ndjson,
    /// AG-UI's protobuf encoding: per event a 4-byte big-endian length and
    /// an `Event` message of `@ag-ui/proto` 1.0.0.
    Proto,
}

/// Bridge an AG-UI agent (HTTP) to a device on a serial port or a TCP
/// socket: the device declares tools, sends messages and asks for runs,
/// and gets each run's verified events as NDJSON (docs/SPEC.md section 11).
///
/// The device and the agent are both untrusted: the device's lines are
/// bounded (--max-queued-lines, --max-tools, --max-messages,
/// --max-input-bytes) and answered with `!error CODE MESSAGE` when refused,
/// a device that stops reading is given up after --write-timeout, and text
/// from either peer is shown with control characters escaped. With
/// --device-capacity, a frame the device's fixed tables cannot hold is
/// held back and the device's run ended with RUN_ERROR gateway_capacity.
///
/// Exit status: 0 after the device's DONE when the last run finished; 1
/// after DONE otherwise, or when the device disconnected; 2 on usage errors
/// or when the device cannot be opened.
#[derive(Parser, Debug)]
#[command(name = "agui-gateway", version)]
pub struct Args {
    /// The agent's URL (http://host:port/path or https://...).
    pub url: String,
    /// For https: trust the certificates in FILE (PEM: a private CA, or a
    /// self-signed server's certificate) instead of the built-in roots.
    #[arg(long, value_name = "FILE")]
    pub ca_cert: Option<std::path::PathBuf>,
    /// The device's serial port, e.g. /dev/ttyUSB0.
    #[arg(
        long,
        value_name = "DEVICE",
        conflicts_with = "tcp",
        required_unless_present = "tcp"
    )]
    pub serial: Option<String>,
    /// The serial port's speed (8N1).
    #[arg(long, value_name = "N", default_value_t = 115_200, requires = "serial")]
    pub baud: u32,
    /// The device as a TCP server (QEMU's `-serial tcp:...,server=on`).
    #[arg(long, value_name = "HOST:PORT")]
    pub tcp: Option<String>,
    /// An extra HTTP header for every run, e.g. 'Authorization: Bearer X',
    /// or @FILE for a file of such lines (a secret there does not show in
    /// `ps`; so does one in $AGUI_HEADERS, one header a line). Repeatable.
    #[arg(long = "header", short = 'H', value_name = "'K: V' | @FILE")]
    pub headers: Vec<String>,
    /// The protocol spoken with the agent: the current one, or AG-UI 1.0
    /// (declared in every run input as `protocolVersion: "1.0"`, responses
    /// verified as 1.0).
    #[arg(long, value_enum, default_value_t = ProtocolArg::Current)]
    pub protocol: ProtocolArg,
    /// The protocol the device reads. With --protocol 1.0: `1.0` relays the
    /// agent's frames as they come (a core built with the 1.0 reader);
    /// `current` relays what the 1.0 reference's compatibility boundary
    /// and enforcement make of each frame (a dropped frame is not sent, a
    /// rewritten one is sent rewritten), and ends the device's run with
    /// RUN_ERROR gateway_device_protocol at a frame the current protocol
    /// cannot read. With --protocol current it must be `current`.
    #[arg(long, value_enum, default_value_t = ProtocolArg::Current)]
    pub device_protocol: ProtocolArg,
    /// How events are written to the device: `ndjson` (a JSON line each) or
    /// `proto` (AG-UI's protobuf encoding: a 4-byte big-endian length and an
    /// `Event` message each; docs/SPEC.md section 11). The device's lines and
    /// the gateway's `!error` lines stay text either way: a frame's first
    /// byte is 0x00, a gateway line's `!`. An event the protobuf schema has
    /// no place for (e.g. THINKING_START) ends the device's run with
    /// RUN_ERROR gateway_device_protocol.
    #[arg(long, value_enum, default_value_t = DeviceEncodingArg::Ndjson)]
    pub device_encoding: DeviceEncodingArg,
    /// The conversation's thread id.
    #[arg(long, value_name = "ID", default_value = "device")]
    pub thread: String,
    /// Seconds of silence from the agent before a run is given up
    /// [default: the HTTP agent's, 60].
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub idle_timeout: Option<Duration>,
    /// The longest a run may take, in seconds, however busy the agent
    /// keeps it [default: no limit].
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub max_run_time: Option<Duration>,
    /// Seconds a write to the device may wait without the device taking a
    /// byte; then the run is cancelled and the gateway says so.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, default_value = "10")]
    pub write_timeout: Duration,
    /// Device lines that may wait for the end of a run; a line beyond them
    /// is dropped and answered `!error busy`.
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_queued_lines: u32,
    /// Tools the device may declare; a new one beyond them is refused with
    /// `!error over_limit`.
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub max_tools: usize,
    /// Messages the thread may hold; a device message beyond them is
    /// refused with `!error over_limit`, an agent's event that would make
    /// one more ends the run (the client's message limit).
    #[arg(long, value_name = "N", default_value_t = 1_000)]
    pub max_messages: usize,
    /// Bytes of a run's request body (tools and messages) beyond which a
    /// device's tool or message is refused with `!error over_limit`.
    #[arg(long, value_name = "BYTES", default_value_t = 4 << 20)]
    pub max_input_bytes: usize,
    /// The encoding to ask the agent for; the response's Content-Type
    /// decides how it is read (an SSE-only agent still works with proto).
    /// The device gets NDJSON lines either way.
    #[arg(long, value_enum, default_value_t = EncodingArg::Sse)]
    pub encoding: EncodingArg,
    /// The device's fixed tables: a preset (agent, serial, kiosk: the
    /// bundled firmware images) or a file of `key = value` lines (msgs,
    /// tools, steps, id, depth). A frame the device could not hold is not
    /// relayed; the device's run ends with a RUN_ERROR `gateway_capacity`
    /// naming the limit [default: no check beyond the gateway's own].
    #[arg(long, value_name = "PRESET|FILE")]
    pub device_capacity: Option<String>,
    #[command(flatten)]
    pub limits: LimitFlags,
    /// When the device disconnects (before DONE), wait up to SECONDS for it
    /// to listen again (a board that restarted) instead of exiting; the
    /// conversation is kept and the device gets a resynchronising run of it
    /// (docs/SPEC.md section 11) [default: exit 1 at once].
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub reconnect: Option<Duration>,
    /// After each run, print on stderr how long each frame took from its
    /// arrival from HTTP to its write to the device.
    #[arg(long)]
    pub latency: bool,
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
    if args.reconnect.is_some() && args.tcp.is_none() {
        // A serial port stays open across the device's restarts: its
        // HELLO line asks for the conversation instead.
        return Err(
            "--reconnect needs --tcp (a device on --serial says HELLO when it restarts)".to_owned(),
        );
    }
    if args.protocol == ProtocolArg::Current && args.device_protocol == ProtocolArg::V1 {
        // The gateway does not write 1.0 from a current stream: the agent
        // would have to speak it.
        return Err("--device-protocol 1.0 needs --protocol 1.0".to_owned());
    }
    let device_capacity = args
        .device_capacity
        .as_deref()
        .map(DeviceCapacity::from_arg)
        .transpose()?;
    let agent = http_agent(args)?;
    let (reader, writer) = port::open(args)?;
    let device = Arc::new(
        DeviceOut::new(writer, args.write_timeout)
            .with_proto(args.device_encoding == DeviceEncodingArg::Proto),
    );
    let queue = usize::try_from(args.max_queued_lines).unwrap_or(usize::MAX);
    let (tx, rx) = mpsc::sync_channel(queue);
    let reconnect = match (&args.tcp, args.reconnect) {
        (Some(addr), Some(within)) => Some(gateway::Reconnect {
            addr: addr.clone(),
            within,
            tx: tx.clone(),
            queue,
        }),
        _ => None,
    };
    let shared = Arc::new(reader::Shared {
        cancel: agent.cancel_flag().clone(),
        gone: AtomicBool::new(false),
        running: AtomicBool::new(false),
        restarted: AtomicBool::new(false),
    });
    if let Some(capacity) = &device_capacity {
        eprintln!("agui-gateway: the device holds {capacity}");
    }
    let mut gateway = Gateway::new(
        args,
        agent,
        Arc::clone(&device),
        Arc::clone(&shared),
        device_capacity,
        reconnect,
    );
    let reading = reader::Reading::new(device, queue, shared);
    thread::spawn(move || reading.run(reader, &tx));
    Ok(gateway.handle_lines(&rx))
}

/// The HTTP side, with the user's headers and timeout.
fn http_agent(args: &Args) -> Result<HttpAgent, String> {
    check_url(&args.url).map_err(|e| e.to_string())?;
    let mut agent = HttpAgent::new(args.url.clone()).encoding(args.encoding.encoding());
    if let Some(file) = &args.ca_cert {
        let pem = std::fs::read(file)
            .map_err(|e| format!("--ca-cert {}: cannot read: {e}", file.display()))?;
        agent = agent
            .root_certs_pem(&pem)
            .map_err(|e| format!("--ca-cert {}: {e}", file.display()))?;
    }
    for header in headers::collect(&args.headers)? {
        agent = agent.header(header.name, header.value);
    }
    if let Some(timeout) = args.idle_timeout {
        agent = agent.idle_timeout(timeout);
    }
    Ok(agent.max_run_time(args.max_run_time))
}
