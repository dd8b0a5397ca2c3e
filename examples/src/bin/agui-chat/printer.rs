//! The live view of a run as it streams.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use agui_alloc::event::{
    MessageContent, MessageEnd, MessagesSnapshot, ReasoningMessageStart, RunError, StateDelta,
    StateSnapshot, TextMessageStart, ThinkingContent, ToolCallArgs, ToolCallEnd, ToolCallResult,
    ToolCallStart,
};
use agui_alloc::hooks::{Flow, HookView, Subscriber, ToolCallProgress};
use agui_alloc::http::RunObserver;
use agui_examples::transcript::{Peer, Printable};
use serde_json::Value;

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
pub(crate) struct RunCalls {
    pub(crate) started: Vec<(String, String)>,
    pub(crate) answered: Vec<String>,
}

/// Prints a run as it streams (live mode), runs the spinner, takes the
/// first-byte-to-first-delta time, and notes the run's tool calls.
pub(crate) struct Printer {
    pub(crate) calls: RunCalls,
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
    pub(crate) fn new(live: bool, spinner: bool) -> Self {
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
        self.write(&Peer(text).to_string());
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

    pub(crate) fn close(&mut self) {
        self.clear_spinner();
        self.end_line();
    }

    pub(crate) fn report_timing(&self) {
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
            Peer(&event.tool_call_id),
            Peer(&event.tool_call_name)
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
            Peer(&event.tool_call_id),
            Peer(&event.content.to_string())
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
        self.line(&format!("[run error] {}", Peer(&event.message)));
        Flow::Continue
    }
}
