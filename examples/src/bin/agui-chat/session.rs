//! The session: the user's lines, the runs, the tool calls answered.

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use agui_alloc::conversation::{
    is_expired, Conversation, Counter, InterruptSource, PendingInterrupt, PendingToolCall,
    Resolution, RunStatus,
};
use agui_alloc::http::{check_url, HttpAgent};
use agui_core::protocol::Protocol;
use agui_examples::interrupts::now_ms;
use agui_examples::transcript::{write_message, write_state, Peer, Printable};

use crate::ask::{self, Decision};
use crate::printer::{Printer, RunCalls};
use crate::tools::{declare_tools, ToolCommand};
use crate::{install_ctrl_c, salt, transport_failure, trust, Args, Failure, Output, ProtocolArg};
use agui_examples::tool_command::run_tool;
use agui_examples::{flags, headers};

pub(crate) struct Chat {
    conv: Conversation,
    agent: HttpAgent,
    commands: Vec<ToolCommand>,
    output: Output,
    /// Stdin is a terminal: prompt, and go on after a failed run.
    interactive: bool,
    /// `--ca-cert` was given.
    trusts_own_roots: bool,
    max_runs: u32,
    /// `--interrupt`: the answer to every interrupt, without asking.
    decision: Option<Decision>,
    /// `--max-tool-calls`: calls run per run.
    max_tool_calls: usize,
    /// `--tool-timeout`.
    tool_timeout: Duration,
    /// Set while a run is in progress (Ctrl-C then cancels it, else quits).
    in_run: Arc<AtomicBool>,
    timing: bool,
    /// Transcript mode: messages already printed.
    printed: usize,
    runs: u32,
    frames: u64,
}

impl Chat {
    pub(crate) fn new(args: &Args) -> Result<Self, Failure> {
        let secs = |s: f64, what: &str| {
            flags::seconds(s).map_err(|e| Failure::usage(format!("--{what} {e}")))
        };
        check_url(&args.url).map_err(|e| Failure::usage(e.to_string()))?;
        let max_run_time = args
            .max_run_time
            .map(|s| secs(s, "max-run-time"))
            .transpose()?;
        let mut agent = HttpAgent::new(&args.url)
            .connect_timeout(secs(args.connect_timeout, "connect-timeout")?)
            .idle_timeout(secs(args.idle_timeout, "idle-timeout")?)
            .max_run_time(max_run_time)
            .encoding(args.encoding.encoding());
        if let Some(file) = &args.ca_cert {
            agent = trust(agent, file).map_err(Failure::usage)?;
        }
        for header in headers::collect(&args.headers).map_err(Failure::usage)? {
            agent = agent.header(header.name, header.value);
        }
        // A new thread's id is unique already; a thread named by the user
        // may have had runs from an earlier start: salt those ids.
        let conv = match &args.thread {
            Some(thread) => Conversation::new(thread.as_str()).with_ids(Counter::with_salt(salt())),
            None => Conversation::new(format!("agui-chat-{}", salt())),
        };
        let conv = conv.with_limits(args.limits.limits(args.max_messages));
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
            decision: args.interrupt,
            max_tool_calls: usize::try_from(args.max_tool_calls).unwrap_or(usize::MAX),
            tool_timeout: secs(args.tool_timeout, "tool-timeout")?,
            in_run,
            timing: std::env::var_os("AGUI_CHAT_TIMING").is_some_and(|v| v == "1"),
            printed: 0,
            runs: 0,
            frames: 0,
        })
    }

    /// Reads the user's messages until the end of input.
    pub(crate) fn run(&mut self) -> Result<(), Failure> {
        // Not locked for the session: answers to interrupts are read from
        // stdin too, between runs (the lock is not reentrant).
        let stdin = io::stdin();
        let mut worst: Option<Failure> = None;
        loop {
            if self.interactive {
                print!("you> ");
                let _ = io::stdout().flush();
            }
            let mut line = String::new();
            match stdin.read_line(&mut line) {
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
                eprintln!("agui-chat: {}", Peer(&failure.reason));
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

    /// Runs until the agent answers without calling a declared tool or
    /// asking a person.
    fn exchange(&mut self) -> Result<(), Failure> {
        for _ in 0..self.max_runs {
            let calls = self.one_run()?;
            let pending = self.conv.pending_tool_calls();
            self.warn_reused_ids(&calls, &pending);
            let asked = self.answer_interrupts()?;
            if pending.is_empty() && !asked {
                return Ok(());
            }
            let run_now = pending.len().min(self.max_tool_calls);
            if pending.len() > run_now {
                eprintln!(
                    "agui-chat: the agent made {} tool calls in one run: the first {run_now} are run, \
                     the others get an error result (--max-tool-calls)",
                    pending.len()
                );
            }
            for (n, call) in pending.iter().enumerate() {
                if n < run_now {
                    self.answer(call);
                } else {
                    let error = format!(
                        "not run: over {} tool calls in one run (--max-tool-calls)",
                        self.max_tool_calls
                    );
                    self.add_error(call, error);
                }
            }
        }
        Err(Failure::new(
            1,
            format!(
                "the agent still calls tools or asks after {} runs (--max-runs)",
                self.max_runs
            ),
        ))
    }

    /// The last run's interrupts: shown, then answered (by `--interrupt`,
    /// at the terminal, or cancelled when nobody can answer); expired ones
    /// cancelled. False when there were none.
    fn answer_interrupts(&mut self) -> Result<bool, Failure> {
        if let Some(overflow) = self.conv.interrupt_overflow() {
            return Err(Failure::new(1, overflow.to_string()));
        }
        let pending = self.conv.pending_interrupts().to_vec();
        if pending.is_empty() {
            return Ok(false);
        }
        self.warn_before_asking(&pending);
        self.conv.cancel_expired(now_ms());
        for item in &pending {
            let expired = is_expired(&item.interrupt, now_ms());
            println!("{}", ask::describe(&item.interrupt, expired));
            let answer = match (expired, self.decision) {
                (true, _) => Resolution::Cancelled,
                (false, Some(decision)) => ask::decided(decision),
                (false, None) if self.interactive => self.ask_person(item)?,
                (false, None) => Resolution::Cancelled,
            };
            // The id is one of the pending interrupts and no run is in
            // progress: answering cannot fail.
            let _ = self.conv.answer(&item.interrupt.id, answer.clone());
            println!("{}", ask::describe_answer(&item.interrupt.id, &answer));
        }
        // The person may have taken long: what lapsed meanwhile is cancelled.
        let lapsed = self.conv.cancel_expired(now_ms());
        if lapsed > 0 {
            eprintln!("agui-chat: {lapsed} interrupt(s) expired while asked: sent as cancelled");
        }
        let _ = io::stdout().flush();
        Ok(true)
    }

    /// Says on stderr when nobody will be asked, or when only one answer
    /// can travel back.
    fn warn_before_asking(&self, pending: &[PendingInterrupt]) {
        if self.decision.is_none() && !self.interactive {
            eprintln!(
                "agui-chat: the agent asks {} question(s) and stdin is not a terminal: \
                 each is cancelled (--interrupt approve|deny answers them)",
                pending.len()
            );
        }
        let legacy = pending
            .first()
            .is_some_and(|p| p.source == InterruptSource::LegacyEvent);
        if legacy && pending.len() > 1 {
            eprintln!(
                "agui-chat: the agent asks {} questions as legacy on_interrupt events, which carry \
                 one answer back: only the first answer is sent",
                pending.len()
            );
        }
    }

    /// Asks the person at the terminal.
    fn ask_person(&self, item: &PendingInterrupt) -> Result<Resolution, Failure> {
        let stdin = io::stdin();
        let stdout = io::stdout();
        let mut input = stdin.lock();
        let mut out = stdout.lock();
        ask::ask(item, &mut input, &mut Printable(&mut out))
            .map_err(|e| Failure::usage(format!("cannot ask at the terminal: {e}")))
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
                     not run again (the agent must give each call an id of its own)",
                    name = Peer(name),
                    id = Peer(id),
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
        if let Some(start) = &report.foreign_start {
            eprintln!(
                "agui-chat: warning: the agent's RUN_STARTED names thread '{}' run '{}', \
                 not the run asked for (thread '{}' run '{}')",
                Peer(&start.thread_id),
                Peer(&start.run_id),
                Peer(self.conv.thread_id()),
                Peer(&report.run_id)
            );
        }
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
            self.add_error(&call, error);
        }
    }

    /// Runs the tool's command and adds its result (or its error).
    fn answer(&mut self, call: &PendingToolCall) {
        let Some(tool) = self.commands.iter().find(|t| t.name == call.name) else {
            return; // pending calls are calls to declared tools only
        };
        let outcome = run_tool(&tool.command, &call.arguments, self.tool_timeout);
        let added = match outcome {
            Ok(result) => {
                if self.output == Output::Live {
                    println!("[tool result for {}] {}", Peer(&call.id), Peer(&result));
                }
                self.conv.add_tool_result(&call.id, result)
            }
            Err(error) => {
                eprintln!(
                    "agui-chat: tool {} failed: {}",
                    Peer(&call.name),
                    Peer(&error)
                );
                return self.add_error(call, error);
            }
        };
        // No run is in progress between runs, so adding cannot fail.
        let _ = added;
    }

    /// Adds an error result for `call`, shown in live mode.
    fn add_error(&mut self, call: &PendingToolCall, error: String) {
        if self.output == Output::Live {
            println!("[tool error for {}] {}", Peer(&call.id), Peer(&error));
        }
        // No run is in progress between runs, so adding cannot fail.
        let _ = self.conv.add_tool_error(&call.id, error);
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
            Some(reason) => writeln!(out, "stopped: {}", Peer(reason)),
        };
    }
}
