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
//! Ctrl-C ends the current run cleanly (at the prompt, it quits).
//! `AGUI_CHAT_TIMING=1` prints, per run, the time from the response's first
//! byte to the first delta printed, on stderr.
//!
//! Exit status: 0 when every run finished, 1 on a protocol error, a
//! `RUN_ERROR` or an incomplete response, 2 on usage or connection errors
//! (and a cancelled run); each with a one-line reason on stderr.

use std::fs;
use std::io::{self, BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use agui_alloc::conversation::{Conversation, Counter, PendingToolCall, RunStatus};
use agui_alloc::event::{
    MessageContent, MessageEnd, MessagesSnapshot, ReasoningMessageStart, RunError, StateDelta,
    StateSnapshot, TextMessageStart, ThinkingContent, ToolCallArgs, ToolCallEnd, ToolCallResult,
    ToolCallStart,
};
use agui_alloc::hooks::{Flow, HookView, Subscriber, ToolCallProgress};
use agui_alloc::http::{
    check_url, HttpAgent, HttpError, HttpErrorKind, RunObserver, CONNECT_TIMEOUT, IDLE_TIMEOUT,
};
use agui_alloc::model::Tool;
use agui_core::protocol::Protocol;
use agui_examples::transcript::{write_message, write_state, Printable};
use clap::{Parser, ValueEnum};
use serde_json::Value;

/// Talk to an AG-UI agent over HTTP: type a message, watch the reply stream.
/// `--protocol`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ProtocolArg {
    /// The protocol as of August 2026 (SPEC sections 0-8).
    Current,
    /// AG-UI 1.0 (SPEC section 9).
    #[value(name = "1.0")]
    V1,
}

#[derive(Parser, Debug)]
#[command(name = "agui-chat", version, about)]
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

    /// An HTTP header for every request, e.g. 'Authorization: Bearer KEY'.
    /// Repeatable.
    #[arg(long = "header", value_name = "'K: V'")]
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

    /// The protocol to speak: the current one, or AG-UI 1.0 (declared in
    /// every run input as `protocolVersion: "1.0"`, responses read as 1.0).
    #[arg(long, value_enum, default_value_t = ProtocolArg::Current)]
    protocol: ProtocolArg,

    /// Most runs for one user message (follow-ups after tool results included).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    max_runs: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Output {
    /// Print reasoning, text, tool calls and state changes as they stream.
    Live,
    /// Print each run's new messages in agui-replay's transcript format.
    Transcript,
}

/// A declared tool and the command that answers it.
struct ToolCommand {
    name: String,
    command: String,
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
            eprintln!("agui-chat: {}", failure.reason);
            ExitCode::from(failure.status)
        }
    }
}

struct Chat {
    conv: Conversation,
    agent: HttpAgent,
    commands: Vec<ToolCommand>,
    output: Output,
    /// Stdin is a terminal: prompt, and go on after a failed run.
    interactive: bool,
    /// `--ca-cert` was given.
    trusts_own_roots: bool,
    max_runs: u32,
    /// Set while a run is in progress (Ctrl-C then cancels it, else quits).
    in_run: Arc<AtomicBool>,
    timing: bool,
    /// Transcript mode: messages already printed.
    printed: usize,
    runs: u32,
    frames: u64,
}

impl Chat {
    fn new(args: &Args) -> Result<Self, Failure> {
        let secs = |s: f64, what: &str| {
            Duration::try_from_secs_f64(s)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    Failure::usage(format!("--{what} must be a positive number of seconds"))
                })
        };
        check_url(&args.url).map_err(|e| Failure::usage(e.to_string()))?;
        let mut agent = HttpAgent::new(&args.url)
            .connect_timeout(secs(args.connect_timeout, "connect-timeout")?)
            .idle_timeout(secs(args.idle_timeout, "idle-timeout")?);
        if let Some(file) = &args.ca_cert {
            agent = trust(agent, file).map_err(Failure::usage)?;
        }
        for header in &args.headers {
            let (name, value) = header
                .split_once(':')
                .filter(|(n, _)| !n.trim().is_empty())
                .ok_or_else(|| {
                    Failure::usage(format!("--header '{header}': expected 'Name: value'"))
                })?;
            agent = agent.header(name.trim(), value.trim());
        }
        // A new thread's id is unique already; a thread named by the user
        // may have had runs from an earlier start: salt those ids.
        let conv = match &args.thread {
            Some(thread) => Conversation::new(thread.as_str()).with_ids(Counter::with_salt(salt())),
            None => Conversation::new(format!("agui-chat-{}", salt())),
        };
        let mut conv = conv.speaking(match args.protocol {
            ProtocolArg::Current => Protocol::Current,
            ProtocolArg::V1 => Protocol::V1,
        });
        let commands = declare_tools(&mut conv, &args.tools, &args.tool_params)?;
        let interactive = io::stdin().is_terminal();
        let output = args.output.unwrap_or(if interactive {
            Output::Live
        } else {
            Output::Transcript
        });
        let in_run = Arc::new(AtomicBool::new(false));
        install_ctrl_c(agent.cancel_flag().clone(), in_run.clone())?;
        Ok(Chat {
            conv,
            agent,
            commands,
            output,
            interactive,
            trusts_own_roots: args.ca_cert.is_some(),
            max_runs: args.max_runs,
            in_run,
            timing: std::env::var_os("AGUI_CHAT_TIMING").is_some_and(|v| v == "1"),
            printed: 0,
            runs: 0,
            frames: 0,
        })
    }

    /// Reads the user's messages until the end of input.
    fn run(&mut self) -> Result<(), Failure> {
        let stdin = io::stdin();
        let mut lines = stdin.lock();
        let mut worst: Option<Failure> = None;
        loop {
            if self.interactive {
                print!("you> ");
                let _ = io::stdout().flush();
            }
            let mut line = String::new();
            match lines.read_line(&mut line) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => return Err(Failure::usage(format!("cannot read stdin: {e}"))),
            }
            let text = line.trim();
            if text.is_empty() {
                continue;
            }
            self.conv
                .add_user_message(text)
                .map_err(|e| Failure::usage(e.to_string()))?;
            if let Err(failure) = self.exchange() {
                if !self.interactive {
                    self.finish_transcript(Some(&failure.reason));
                    return Err(failure);
                }
                eprintln!("agui-chat: {}", failure.reason);
                self.decline_pending(&failure.reason);
                if !failure.cancelled && worst.as_ref().is_none_or(|w| w.status < failure.status) {
                    worst = Some(failure);
                }
            }
        }
        if self.interactive {
            println!();
        }
        self.finish_transcript(worst.as_ref().map(|w| w.reason.as_str()));
        worst.map_or(Ok(()), Err)
    }

    /// Runs until the agent answers without calling a declared tool.
    fn exchange(&mut self) -> Result<(), Failure> {
        for _ in 0..self.max_runs {
            let calls = self.one_run()?;
            let pending = self.conv.pending_tool_calls();
            self.warn_reused_ids(&calls, &pending);
            if pending.is_empty() {
                return Ok(());
            }
            for call in pending {
                self.answer(&call);
            }
        }
        Err(Failure::new(
            1,
            format!(
                "the agent still calls tools after {} runs (--max-runs)",
                self.max_runs
            ),
        ))
    }

    /// A call to a declared tool under an id that already has a result is
    /// not pending, so it is not run: say so, or the user waits for a tool
    /// that never runs (an agent must give each call an id of its own).
    fn warn_reused_ids(&self, calls: &RunCalls, pending: &[PendingToolCall]) {
        for (id, name) in &calls.started {
            let declared = self.commands.iter().any(|c| &c.name == name);
            let waiting = pending.iter().any(|p| &p.id == id);
            if declared && !waiting && !calls.answered.contains(id) {
                eprintln!(
                    "agui-chat: the agent called {name} under the id '{id}', which already has a result: \
                     not run again (the agent must give each call an id of its own)"
                );
            }
        }
    }

    /// One run: prints it, and says how it ended; the tool calls it made.
    fn one_run(&mut self) -> Result<RunCalls, Failure> {
        self.print_new_messages();
        self.agent.cancel_flag().store(false, Ordering::Relaxed);
        self.in_run.store(true, Ordering::Relaxed);
        let stdout = io::stdout();
        let mut printer = Printer::new(
            self.output == Output::Live,
            stdout.is_terminal() && self.output == Output::Live,
        );
        let result = self.agent.run(&mut self.conv, &mut printer);
        self.in_run.store(false, Ordering::Relaxed);
        printer.close();
        if self.timing {
            printer.report_timing();
        }
        self.runs += 1;
        let report = result.map_err(|e| transport_failure(&e, self.trusts_own_roots))?;
        self.frames += u64::from(report.accepted);
        self.print_new_messages();
        match report.status {
            RunStatus::Finished { .. } => Ok(printer.calls),
            RunStatus::Aborted(reason) => Err(Failure::new(2, reason)),
            status @ (RunStatus::RunError { .. }
            | RunStatus::Protocol(_)
            | RunStatus::Incomplete) => {
                Err(Failure::new(1, format!("run {}: {status}", report.run_id)))
            }
        }
    }

    /// After a failed run, at the prompt: the calls it made are not run
    /// (their arguments may be cut short), but each gets an error result,
    /// so that the next run's input answers every call, as agents expect.
    fn decline_pending(&mut self, reason: &str) {
        for call in self.conv.pending_tool_calls() {
            let error = format!("not run: the run that made this call failed ({reason})");
            if self.output == Output::Live {
                println!("[tool error for {}] {error}", call.id);
            }
            // No run is in progress between runs, so adding cannot fail.
            let _ = self.conv.add_tool_error(&call.id, error);
        }
    }

    /// Runs the tool's command and adds its result (or its error).
    fn answer(&mut self, call: &PendingToolCall) {
        let Some(tool) = self.commands.iter().find(|t| t.name == call.name) else {
            return; // pending calls are calls to declared tools only
        };
        let outcome = run_command(&tool.command, &call.arguments);
        let added = match outcome {
            Ok(result) => {
                if self.output == Output::Live {
                    println!("[tool result for {}] {result}", call.id);
                }
                self.conv.add_tool_result(&call.id, result)
            }
            Err(error) => {
                eprintln!("agui-chat: tool {} failed: {error}", call.name);
                if self.output == Output::Live {
                    println!("[tool error for {}] {error}", call.id);
                }
                self.conv.add_tool_error(&call.id, error)
            }
        };
        // No run is in progress between runs, so adding cannot fail.
        let _ = added;
    }

    /// Transcript mode: the messages not printed yet.
    fn print_new_messages(&mut self) {
        if self.output != Output::Transcript {
            return;
        }
        let stdout = io::stdout();
        let mut lock = stdout.lock();
        let mut out = Printable(&mut lock);
        let messages = self.conv.messages();
        for message in messages.get(self.printed..).unwrap_or_default() {
            let _ = write_message(&mut out, message);
        }
        self.printed = messages.len();
        let _ = out.flush();
    }

    /// Transcript mode: the state and the verdict, as agui-replay ends.
    fn finish_transcript(&mut self, failure: Option<&str>) {
        if self.output != Output::Transcript {
            return;
        }
        self.print_new_messages();
        let stdout = io::stdout();
        let mut lock = stdout.lock();
        let mut out = Printable(&mut lock);
        let _ = write_state(&mut out, self.conv.state());
        let _ = match failure {
            None => writeln!(
                out,
                "ok: {} runs, {} frames accepted",
                self.runs, self.frames
            ),
            Some(reason) => writeln!(out, "stopped: {reason}"),
        };
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

/// Parses `--tool` and `--tool-params` and declares the tools.
fn declare_tools(
    conv: &mut Conversation,
    tools: &[String],
    params: &[String],
) -> Result<Vec<ToolCommand>, Failure> {
    let mut commands = Vec::new();
    for spec in tools {
        let (name, command) = split_spec(spec, "--tool", "NAME=COMMAND")?;
        commands.push(ToolCommand {
            name: name.to_owned(),
            command: command.to_owned(),
        });
    }
    for spec in params {
        let (name, _) = split_spec(spec, "--tool-params", "NAME=FILE")?;
        if !commands.iter().any(|c| c.name == name) {
            return Err(Failure::usage(format!(
                "--tool-params {spec}: no --tool named '{name}'"
            )));
        }
    }
    for tool in &commands {
        conv.declare_tool(Tool {
            name: tool.name.clone(),
            description: format!(
                "The user's device runs '{}' and answers with its result.",
                tool.name
            ),
            parameters: Some(schema_for(&tool.name, params)?),
            metadata: None,
        });
    }
    Ok(commands)
}

fn split_spec<'a>(spec: &'a str, flag: &str, shape: &str) -> Result<(&'a str, &'a str), Failure> {
    spec.split_once('=')
        .filter(|(name, rest)| !name.trim().is_empty() && !rest.trim().is_empty())
        .map(|(name, rest)| (name.trim(), rest))
        .ok_or_else(|| Failure::usage(format!("{flag} '{spec}': expected {shape}")))
}

/// The tool's parameter schema: its `--tool-params` file, or `{"type":"object"}`.
fn schema_for(name: &str, params: &[String]) -> Result<Value, Failure> {
    let file = params
        .iter()
        .filter_map(|spec| spec.split_once('='))
        .find(|(n, _)| n.trim() == name)
        .map(|(_, file)| file);
    let Some(file) = file else {
        return Ok(serde_json::json!({"type": "object"}));
    };
    let text = fs::read_to_string(file)
        .map_err(|e| Failure::usage(format!("--tool-params {name}={file}: cannot read: {e}")))?;
    serde_json::from_str(&text)
        .map_err(|e| Failure::usage(format!("--tool-params {name}={file}: not JSON: {e}")))
}

/// Runs `sh -c COMMAND` with `arguments` on stdin: its trimmed stdout, or
/// its exit status and stderr as the error.
fn run_command(command: &str, arguments: &str) -> Result<String, String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start sh: {e}"))?;
    let input = if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    };
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its stdin closes the pipe early.
        let _ = stdin.write_all(input.as_bytes());
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("cannot wait for the command: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if out.status.success() {
        return Ok(stdout);
    }
    let status = match out.status.code() {
        Some(code) => format!("exit status {code}"),
        None => "killed by a signal".to_owned(),
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stderr = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    Err(if stderr.is_empty() {
        status
    } else {
        format!("{status}: {stderr}")
    })
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

// ---------------------------------------------------------------------------
// Live printing
// ---------------------------------------------------------------------------

/// Longest state line in the live view, in characters.
const STATE_LINE: usize = 200;

/// `line`, cut at [`STATE_LINE`] characters with `…`.
fn shorten(line: &str) -> String {
    match line.char_indices().nth(STATE_LINE) {
        Some((cut, _)) => format!("{}…", line.get(..cut).unwrap_or(line)),
        None => line.to_owned(),
    }
}

const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// The tool calls of one run: (id, name) of each started, and the ids the
/// agent answered itself (`TOOL_CALL_RESULT`).
#[derive(Default)]
struct RunCalls {
    started: Vec<(String, String)>,
    answered: Vec<String>,
}

/// Prints a run as it streams (live mode), runs the spinner, takes the
/// first-byte-to-first-delta time, and notes the run's tool calls.
struct Printer {
    calls: RunCalls,
    live: bool,
    spinner: bool,
    spinning: bool,
    turn: usize,
    /// A line is open (a delta was printed without its newline).
    open_line: bool,
    /// The head of a message line not printed yet (see `start_lazily`).
    head: Option<String>,
    first_byte: Option<Instant>,
    /// When the last body bytes arrived.
    last_bytes: Option<Instant>,
    first_delta: Option<Instant>,
    /// From the arrival of the bytes that held the first delta to its print.
    delta_latency: Option<Duration>,
}

impl Printer {
    fn new(live: bool, spinner: bool) -> Self {
        Printer {
            calls: RunCalls::default(),
            live,
            spinner,
            spinning: false,
            turn: 0,
            open_line: false,
            head: None,
            first_byte: None,
            last_bytes: None,
            first_delta: None,
            delta_latency: None,
        }
    }

    fn write(&mut self, text: &str) {
        if !self.live {
            return;
        }
        let stdout = io::stdout();
        let mut lock = stdout.lock();
        let _ = Printable(&mut lock).write_all(text.as_bytes());
        let _ = lock.flush();
    }

    /// Starts a new line with `head`.
    fn start(&mut self, head: &str) {
        self.end_line();
        self.write(head);
        self.open_line = true;
    }

    /// Starts a message's line at its first delta: a message that stays
    /// empty (some agents open one before a tool call) prints nothing.
    fn start_lazily(&mut self, head: String) {
        self.end_line();
        self.head = Some(head);
    }

    /// Prints a delta on the open line.
    fn delta(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if let Some(head) = self.head.take() {
            self.start(&head);
        }
        self.write(text);
        if self.live && self.first_delta.is_none() {
            let now = Instant::now();
            self.first_delta = Some(now);
            self.delta_latency = self.last_bytes.map(|at| now.duration_since(at));
        }
    }

    fn end_line(&mut self) {
        self.head = None;
        if self.open_line {
            self.open_line = false;
            self.write("\n");
        }
    }

    /// A whole line.
    fn line(&mut self, text: &str) {
        self.end_line();
        self.write(text);
        self.write("\n");
    }

    fn clear_spinner(&mut self) {
        if self.spinning {
            self.spinning = false;
            print!("\r\x1b[K");
            let _ = io::stdout().flush();
        }
    }

    fn close(&mut self) {
        self.clear_spinner();
        self.end_line();
    }

    fn report_timing(&self) {
        match (self.first_byte, self.first_delta) {
            (Some(byte), Some(delta)) => eprintln!(
                "agui-chat: timing: first byte to first delta printed: {} us \
                 (from the arrival of that delta's bytes: {} us)",
                delta.duration_since(byte).as_micros(),
                self.delta_latency.map_or(0, |d| d.as_micros())
            ),
            _ => eprintln!("agui-chat: timing: no delta printed in this run (see --output live)"),
        }
    }
}

impl RunObserver for Printer {
    fn on_bytes(&mut self, _bytes: &[u8]) {
        let now = Instant::now();
        self.last_bytes = Some(now);
        if self.first_byte.is_none() {
            self.first_byte = Some(now);
            self.clear_spinner();
        }
    }

    fn on_wait(&mut self) {
        if self.spinner && self.first_byte.is_none() {
            self.spinning = true;
            self.turn = (self.turn + 1) % SPINNER.len();
            print!("\r{} waiting for the agent…", SPINNER[self.turn]);
            let _ = io::stdout().flush();
        }
    }
}

impl Subscriber for Printer {
    fn on_text_message_start(&mut self, event: &TextMessageStart, _: &mut HookView<'_>) -> Flow {
        self.start_lazily(format!("[{}] ", event.role.as_str()));
        Flow::Continue
    }
    fn on_text_message_content(
        &mut self,
        event: &MessageContent,
        _: &str,
        _: &mut HookView<'_>,
    ) -> Flow {
        self.delta(&event.delta);
        Flow::Continue
    }
    fn on_text_message_end(&mut self, _: &MessageEnd, _: &str, _: &mut HookView<'_>) -> Flow {
        self.end_line();
        Flow::Continue
    }

    fn on_reasoning_message_start(
        &mut self,
        _: &ReasoningMessageStart,
        _: &mut HookView<'_>,
    ) -> Flow {
        self.start_lazily("[reasoning] ".to_owned());
        Flow::Continue
    }
    fn on_reasoning_message_content(
        &mut self,
        event: &MessageContent,
        _: &str,
        _: &mut HookView<'_>,
    ) -> Flow {
        self.delta(&event.delta);
        Flow::Continue
    }
    fn on_reasoning_message_end(&mut self, _: &MessageEnd, _: &str, _: &mut HookView<'_>) -> Flow {
        self.end_line();
        Flow::Continue
    }
    fn on_thinking_text_message_start(&mut self, _: &mut HookView<'_>) -> Flow {
        self.start_lazily("[thinking] ".to_owned());
        Flow::Continue
    }
    fn on_thinking_text_message_content(
        &mut self,
        event: &ThinkingContent,
        _: &mut HookView<'_>,
    ) -> Flow {
        self.delta(&event.delta);
        Flow::Continue
    }
    fn on_thinking_text_message_end(&mut self, _: &mut HookView<'_>) -> Flow {
        self.end_line();
        Flow::Continue
    }

    fn on_tool_call_start(&mut self, event: &ToolCallStart, _: &mut HookView<'_>) -> Flow {
        self.calls
            .started
            .push((event.tool_call_id.clone(), event.tool_call_name.clone()));
        self.start(&format!(
            "[tool call {} {}] ",
            event.tool_call_id, event.tool_call_name
        ));
        Flow::Continue
    }
    fn on_tool_call_args(
        &mut self,
        event: &ToolCallArgs,
        _: &ToolCallProgress<'_>,
        _: &mut HookView<'_>,
    ) -> Flow {
        self.delta(&event.delta);
        Flow::Continue
    }
    fn on_tool_call_end(
        &mut self,
        _: &ToolCallEnd,
        _: &ToolCallProgress<'_>,
        _: &mut HookView<'_>,
    ) -> Flow {
        self.end_line();
        Flow::Continue
    }
    fn on_tool_call_result(&mut self, event: &ToolCallResult, _: &mut HookView<'_>) -> Flow {
        self.calls.answered.push(event.tool_call_id.clone());
        self.line(&format!(
            "[tool result for {}] {}",
            event.tool_call_id, event.content
        ));
        Flow::Continue
    }

    fn on_state_snapshot(&mut self, event: &StateSnapshot, _: &mut HookView<'_>) -> Flow {
        let snapshot = event.snapshot.as_ref().unwrap_or(&Value::Null);
        self.line(&shorten(&format!("[state] {snapshot}")));
        Flow::Continue
    }
    fn on_state_delta(&mut self, event: &StateDelta, _: &mut HookView<'_>) -> Flow {
        self.line(&shorten(&format!("[state delta] {}", event.delta)));
        Flow::Continue
    }
    fn on_messages_snapshot(&mut self, event: &MessagesSnapshot, _: &mut HookView<'_>) -> Flow {
        self.line(&format!(
            "[messages snapshot] {} messages",
            event.messages.len()
        ));
        Flow::Continue
    }
    fn on_run_error(&mut self, event: &RunError, _: &mut HookView<'_>) -> Flow {
        self.line(&format!("[run error] {}", event.message));
        Flow::Continue
    }
}
