//! `agui-chat URL`: talk to an AG-UI agent from a terminal.
//!
//! ```text
//! agui-chat http://127.0.0.1:8000/ --tool set_led='cat > /tmp/led; echo lit'
//! printf 'turn the LED green\n' | agui-chat http://127.0.0.1:8000/ --tool set_led=./led.sh
//! ```
//!
//! Each line the user types (a prompt on a terminal; one message per line
//! otherwise) starts a run. The reply is printed live as the deltas arrive:
//! reasoning, text, tool calls with their arguments, state changes. A
//! `--tool NAME=COMMAND` declares a frontend tool: when the agent calls it,
//! COMMAND runs under `sh -c` with the call's arguments (JSON) on stdin; its
//! trimmed standard output is the result sent back, and the next run starts
//! by itself, until the agent answers without calling a declared tool. A
//! COMMAND that fails sends its exit status and standard error as an error
//! result, which the user sees too.
//!
//! When stdin is not a terminal, stdout is a transcript in `agui-replay`'s
//! format (`--output live` asks for the live view anyway), and the first
//! run that fails ends the program. At a terminal the session goes on
//! after a failed run; the tool calls that run made are not run but get
//! an error result, so that the next run answers every call.
//!
//! `https://` URLs are checked against the built-in Mozilla roots, or with
//! `--ca-cert FILE` against the PEM certificates of FILE instead.
//!
//! The agent is not trusted (SECURITY.md): a redirect is never followed
//! (`HTTP 302 -> <Location>` is a connection error: give the final URL);
//! every text from the agent is printed with its controls escaped and its
//! inner lines marked `  | `; a tool's command runs only on arguments that
//! are one JSON document, for at most `--tool-timeout` (60 s), and at most
//! `--max-tool-calls` (16) calls run per run; `--max-run-time` bounds a
//! run (default: no bound). Headers may come from a file
//! (`--header @FILE`) or `$AGUI_HEADERS`, so that a key stays out of `ps`;
//! a password in the URL is shown as `***`.
//!
//! When a run ends with interrupts (the agent asks a person: an
//! `interrupt` outcome, or ag-ui-langgraph's legacy `on_interrupt`
//! events), each is shown (reason, message, tool call, expiry) and, at a
//! terminal, asked: approve, deny or cancel, or, when its `responseSchema`
//! asks for more, a JSON payload checked against the schema's types and
//! required keys. `--interrupt approve|deny` answers every one without
//! asking; when stdin is not a terminal and the flag is absent, every one
//! is answered `cancelled` (nobody approves on a script's behalf). An
//! expired one is answered `cancelled`. The resuming run then starts by
//! itself. A run asking more than 16 questions is a failure (none asked).
//!
//! Ctrl-C ends the current run cleanly (at the prompt, it quits).
//! `AGUI_CHAT_TIMING=1` prints, per run, the time from the response's first
//! byte to the first delta printed, on stderr.
//!
//! Exit status: 0 when every run finished, 1 on a protocol error, a
//! `RUN_ERROR` or an incomplete response, 2 on usage or connection errors
//! (and a cancelled run); each with a one-line reason on stderr.

mod ask;
mod printer;
mod session;
mod tools;

use std::fs;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use agui_alloc::client::Limits;
use agui_alloc::http::{HttpAgent, HttpError, HttpErrorKind, CONNECT_TIMEOUT, IDLE_TIMEOUT};
use agui_examples::flags::{EncodingArg, LimitFlags};
use agui_examples::tool_command::{MAX_TOOL_CALLS, TOOL_TIMEOUT};
use agui_examples::transcript::Peer;
use clap::{Parser, ValueEnum};

use session::Chat;

/// `--protocol`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ProtocolArg {
    /// The protocol as of August 2026 (SPEC sections 0-8).
    Current,
    /// AG-UI 1.0 (SPEC section 9).
    #[value(name = "1.0")]
    V1,
}

/// Talk to an AG-UI agent over HTTP: type a message, watch the reply
/// stream; declared tools are answered by local commands.
#[derive(Parser, Debug)]
#[command(name = "agui-chat", version)]
struct Args {
    /// The agent's URL (http://host:port/path or https://...).
    url: String,

    /// For https: trust the certificates in FILE (PEM: a private CA, or a
    /// self-signed server's certificate) instead of the built-in roots.
    #[arg(long, value_name = "FILE")]
    ca_cert: Option<PathBuf>,

    /// A frontend tool: when the agent calls NAME, run COMMAND under `sh -c`
    /// with the arguments (JSON) on stdin; its trimmed stdout is the result.
    /// Repeatable.
    #[arg(long = "tool", value_name = "NAME=COMMAND")]
    tools: Vec<String>,

    /// The JSON Schema of a tool's parameters, from FILE (default
    /// `{"type":"object"}`). Repeatable.
    #[arg(long = "tool-params", value_name = "NAME=FILE")]
    tool_params: Vec<String>,

    /// An HTTP header for every request, e.g. 'Authorization: Bearer KEY',
    /// or @FILE for a file of such lines (a secret then stays out of `ps`;
    /// so does one in $AGUI_HEADERS, one header a line). Repeatable.
    #[arg(long = "header", value_name = "'K: V' | @FILE")]
    headers: Vec<String>,

    /// The thread id (default: a new one).
    #[arg(long)]
    thread: Option<String>,

    /// What stdout shows: the live reply, or agui-replay's transcript.
    /// Default: live on a terminal, transcript when stdin is not one.
    #[arg(long, value_enum)]
    output: Option<Output>,

    /// Seconds to wait for the connection.
    #[arg(long, value_name = "SECS", default_value_t = CONNECT_TIMEOUT.as_secs_f64())]
    connect_timeout: f64,

    /// Seconds the agent may stay silent (before answering or mid-stream).
    #[arg(long, value_name = "SECS", default_value_t = IDLE_TIMEOUT.as_secs_f64())]
    idle_timeout: f64,

    /// The encoding to ask the agent for; the response's Content-Type
    /// decides how it is read (an SSE-only agent still works with proto).
    #[arg(long, value_enum, default_value_t = EncodingArg::Sse)]
    encoding: EncodingArg,

    /// The protocol to speak: the current one, or AG-UI 1.0 (declared in
    /// every run input as `protocolVersion: "1.0"`, responses read as 1.0).
    #[arg(long, value_enum, default_value_t = ProtocolArg::Current)]
    protocol: ProtocolArg,

    /// Answer every interrupt (a question the agent asks a person) without
    /// asking: approve or deny. Default: ask at a terminal; cancel when
    /// stdin is not a terminal.
    #[arg(long, value_enum, value_name = "approve|deny")]
    interrupt: Option<ask::Decision>,

    /// Most runs for one user message (follow-ups after tool results included).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    max_runs: u32,

    /// Most calls to declared tools run in one run; the calls beyond get
    /// an error result.
    #[arg(long, default_value_t = MAX_TOOL_CALLS, value_parser = clap::value_parser!(u32).range(1..))]
    max_tool_calls: u32,

    /// Seconds a tool's command may run; then it is killed and the call
    /// gets an error result.
    #[arg(long, value_name = "SECS", default_value_t = TOOL_TIMEOUT.as_secs_f64())]
    tool_timeout: f64,

    /// Seconds a run may take in all, from its request to its end
    /// (default: no limit).
    #[arg(long, value_name = "SECS")]
    max_run_time: Option<f64>,

    /// Most messages the conversation keeps; the event that would make one
    /// more is refused and ends the run.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_messages)]
    max_messages: usize,

    #[command(flatten)]
    limits: LimitFlags,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Output {
    /// Print reasoning, text, tool calls and state changes as they stream.
    Live,
    /// Print each run's new messages in agui-replay's transcript format.
    Transcript,
}

/// Why the program stops, and its exit status.
struct Failure {
    status: u8,
    reason: String,
    /// The user cancelled the run (Ctrl-C): at the prompt, not a failure.
    cancelled: bool,
}

impl Failure {
    fn new(status: u8, reason: impl Into<String>) -> Self {
        Failure {
            status,
            reason: reason.into(),
            cancelled: false,
        }
    }

    fn usage(reason: impl Into<String>) -> Self {
        Failure::new(2, reason)
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match Chat::new(&args).and_then(|mut chat| chat.run()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("agui-chat: {}", Peer(&failure.reason));
            ExitCode::from(failure.status)
        }
    }
}

fn transport_failure(e: &HttpError, trusts_own_roots: bool) -> Failure {
    let mut reason = e.to_string();
    if e.kind == HttpErrorKind::Tls && !trusts_own_roots {
        reason.push_str(" (--ca-cert FILE trusts a private CA or a self-signed certificate)");
    }
    Failure {
        status: 2,
        reason,
        cancelled: e.kind == HttpErrorKind::Cancelled,
    }
}

/// `--ca-cert FILE`: the agent trusts the certificates of FILE.
fn trust(agent: HttpAgent, file: &std::path::Path) -> Result<HttpAgent, String> {
    let pem =
        fs::read(file).map_err(|e| format!("--ca-cert {}: cannot read: {e}", file.display()))?;
    agent
        .root_certs_pem(&pem)
        .map_err(|e| format!("--ca-cert {}: {e}", file.display()))
}

/// A salt for ids, different for every start of the program.
fn salt() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{:x}{:x}", nanos & 0xffff_ffff_ffff, std::process::id())
}
/// Ctrl-C: cancels the run in progress; at the prompt, quits.
fn install_ctrl_c(cancel: Arc<AtomicBool>, in_run: Arc<AtomicBool>) -> Result<(), Failure> {
    ctrlc::set_handler(move || {
        if in_run.load(Ordering::Relaxed) {
            cancel.store(true, Ordering::Relaxed);
        } else {
            eprintln!();
            std::process::exit(130);
        }
    })
    .map_err(|e| Failure::usage(format!("cannot handle Ctrl-C: {e}")))
}
