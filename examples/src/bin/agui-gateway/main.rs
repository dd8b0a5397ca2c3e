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

mod gateway;
mod lines;
mod port;
mod reader;
mod relay;

use std::process::ExitCode;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use agui_alloc::conversation::Conversation;
use agui_alloc::http::{check_url, HttpAgent};
use clap::Parser;

use gateway::Gateway;

/// Bridge an AG-UI agent to a device on a serial port or TCP socket.
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
    /// An extra HTTP header for every run, e.g. 'Authorization: Bearer X' (repeatable).
    #[arg(long = "header", short = 'H', value_name = "'K: V'")]
    pub headers: Vec<String>,
    /// The conversation's thread id.
    #[arg(long, value_name = "ID", default_value = "device")]
    pub thread: String,
    /// Seconds of silence from the agent before a run is given up.
    #[arg(long, value_name = "SECONDS")]
    pub idle_timeout: Option<u64>,
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
    let agent = http_agent(args)?;
    let (reader, writer) = port::open(args)?;
    let cancel = agent.cancel_flag().clone();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || reader::read_device(reader, &tx, &cancel));
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
