//! A live conversation with an agent: the thread that runs add to.
//!
//! [`Conversation`] holds one thread — its id, messages, shared state,
//! the tools the client declares, context and forwarded props — and
//! drives it run by run:
//!
//! 1. add the user's message ([`add_user_message`](Conversation::add_user_message))
//!    or the results of the tools the agent called
//!    ([`add_tool_result`](Conversation::add_tool_result));
//! 2. [`start_run`](Conversation::start_run) builds the next run's input
//!    (`RunAgentInput`, SPEC section "Run input"): the request body to
//!    POST to the agent;
//! 3. [`feed`](Conversation::feed) the response body as it arrives (SSE or
//!    NDJSON, any chunking): every verified event is folded into the
//!    messages and state at once, through the [`Client`];
//! 4. [`end_run`](Conversation::end_run) when the body ends, or
//!    [`abort_run`](Conversation::abort_run) when the transport fails or
//!    the user cancels: a [`RunReport`] says how the run ended;
//! 5. [`pending_tool_calls`](Conversation::pending_tool_calls) lists the
//!    calls to the client's tools that still wait for a result: answer
//!    them and start the next run, until there are none;
//!    [`pending_interrupts`](Conversation::pending_interrupts) lists the
//!    questions the agent paused the run to ask a person: answer each
//!    ([`answer`](Conversation::answer)), and the next run carries the
//!    answers (`resume`, SPEC section 10 "Answering interrupts").
//!
//! The transport is yours: `agui_alloc::http` (feature `http`) does steps
//! 2–4 over HTTP; a gateway can do them over a serial line.
//!
//! # Nothing is lost when a run fails
//!
//! A run that ends with `RUN_ERROR`, a protocol error (a frame the client
//! rejects) or a transport error keeps every event folded before the
//! failure: the messages and state are those of the last accepted event,
//! and the conversation goes on with the next run. (A frame cut by a
//! transport error is not applied: [`abort_run`](Conversation::abort_run)
//! does not complete a partial frame.)
//!
//! # Ids
//!
//! Run ids and the ids of the messages the client adds come from an
//! [`IdSource`]. The default, [`Counter`], needs no randomness (it works in
//! `no_std`): `"<thread>-run-<n>"` and `"<thread>-msg-<n>"`, `n` counting
//! from 1. Two programs that use the same thread id would reuse ids, so a
//! host should salt it ([`Counter::with_salt`], e.g. with the time and
//! process id: `"<thread>-<salt>-run-<n>"`), and a device can salt it with
//! a hardware random number. [`start_run_with_id`](Conversation::start_run_with_id)
//! takes a run id from the caller instead.
//!
//! # Cost
//!
//! Building the input serializes the history once per run (the protocol
//! sends the whole thread each time). During a run the history is moved
//! into the [`Client`] and back, not copied, and each event costs what the
//! client's fold costs: in proportion to the event, whatever the history.
//!
//! ```
//! use agui_alloc::conversation::{Conversation, RunStatus};
//! use agui_alloc::model::Tool;
//! use serde_json::json;
//!
//! let mut conv = Conversation::new("thread-1");
//! conv.declare_tool(Tool {
//!     name: "set_led".into(),
//!     description: "Switch the LED".into(),
//!     parameters: Some(json!({"type": "object"})),
//!     metadata: None,
//! });
//! conv.add_user_message("Turn the light green").unwrap();
//!
//! // The body to POST.
//! let request = conv.start_run().unwrap();
//! let body: serde_json::Value = serde_json::from_str(&request.body).unwrap();
//! assert_eq!(body["runId"], "thread-1-run-1");
//! assert_eq!(body["messages"][0]["content"], "Turn the light green");
//!
//! // The response, as it arrives.
//! let reply = br#"data: {"type":"RUN_STARTED","threadId":"thread-1","runId":"thread-1-run-1"}
//!
//! data: {"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"set_led"}
//!
//! data: {"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"color\":\"green\"}"}
//!
//! data: {"type":"TOOL_CALL_END","toolCallId":"c1"}
//!
//! data: {"type":"RUN_FINISHED","threadId":"thread-1","runId":"thread-1-run-1"}
//!
//! "#;
//! for piece in reply.chunks(16) {
//!     conv.feed(piece).unwrap();
//! }
//! let report = conv.end_run().unwrap();
//! assert!(matches!(report.status, RunStatus::Finished { .. }));
//!
//! // The agent called the client's tool: answer it, then run again.
//! let calls = conv.pending_tool_calls();
//! assert_eq!(calls[0].name, "set_led");
//! assert_eq!(calls[0].arguments, r#"{"color":"green"}"#);
//! conv.add_tool_result(&calls[0].id, "the LED is green").unwrap();
//! assert!(conv.pending_tool_calls().is_empty());
//! let next = conv.start_run().unwrap();
//! assert_eq!(next.run_id, "thread-1-run-2");
//! ```

mod interrupts;

pub use interrupts::{
    expiry_ms, is_expired, AnswerError, InterruptSource, PendingInterrupt, Resolution,
    TooManyInterrupts, LEGACY_EVENT, MAX_INTERRUPTS,
};

use alloc::borrow::{Cow, ToOwned};
use alloc::boxed::Box;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use agui_core::frame::Format;
use serde::ser::{Serialize, Serializer};
use serde_json::Value;

use crate::client::{Client, ClientError, Limits};
use crate::event::{Effect, Event, Outcome, RunError, RunFinished};
use crate::hooks::{Subscriber, Tap};
use crate::model::{
    Context, Interrupt, Message, MessageRole, Object, ResumeEntry, Tool, ToolCall, ToolMessage,
    UserContent, UserMessage,
};
use agui_core::protocol::Protocol;
use interrupts::{with_command_resume, Answers, Interrupts, LegacyInterrupts};

// ---------------------------------------------------------------------------
// Ids
// ---------------------------------------------------------------------------

/// Where a [`Conversation`] gets its run ids and the ids of the messages it
/// adds. Implement it to use UUIDs, a hardware RNG, or ids from a server.
pub trait IdSource: Send {
    /// A new run id for `thread_id`, different from every earlier one.
    fn run_id(&mut self, thread_id: &str) -> String;
    /// A new message id for `thread_id`, different from every earlier one.
    fn message_id(&mut self, thread_id: &str) -> String;
}

/// The default [`IdSource`]: the thread id, an optional salt and a counter
/// (`"t-run-1"`, `"t-msg-1"`, or salted `"t-S-run-1"`). Needs no
/// randomness, so it works on any target.
#[derive(Debug, Clone, Default)]
pub struct Counter {
    salt: Option<String>,
    runs: u64,
    messages: u64,
}

impl Counter {
    /// Unsalted ids: unique within this conversation.
    pub fn new() -> Self {
        Counter::default()
    }

    /// Ids with `salt` after the thread id: unique across programs that
    /// share a thread id as long as their salts differ (a host can use the
    /// time and its process id, a device a hardware random number).
    pub fn with_salt(salt: impl Into<String>) -> Self {
        Counter {
            salt: Some(salt.into()),
            ..Counter::default()
        }
    }

    fn make(&self, thread_id: &str, what: &str, n: u64) -> String {
        match &self.salt {
            Some(salt) => format!("{thread_id}-{salt}-{what}-{n}"),
            None => format!("{thread_id}-{what}-{n}"),
        }
    }
}

impl IdSource for Counter {
    fn run_id(&mut self, thread_id: &str) -> String {
        self.runs = self.runs.saturating_add(1);
        self.make(thread_id, "run", self.runs)
    }

    fn message_id(&mut self, thread_id: &str) -> String {
        self.messages = self.messages.saturating_add(1);
        self.make(thread_id, "msg", self.messages)
    }
}

// ---------------------------------------------------------------------------
// Runs
// ---------------------------------------------------------------------------

/// A run about to start: its id and the request body to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRequest {
    /// The run's id (also in the body as `runId`).
    pub run_id: String,
    /// The `RunAgentInput` as compact JSON (SPEC section "Run input").
    pub body: String,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RunStatus {
    /// The agent sent `RUN_FINISHED`.
    Finished {
        /// `RUN_FINISHED.result`, if any.
        result: Option<Value>,
        /// The interrupts, when the outcome was an interrupt (else empty).
        interrupts: Vec<Interrupt>,
    },
    /// The agent sent `RUN_ERROR`.
    RunError {
        /// Its message.
        message: String,
        /// Its code, if any.
        code: Option<String>,
    },
    /// The client rejected a frame (SPEC section 4); the run stopped there.
    Protocol(ClientError),
    /// The response ended before `RUN_FINISHED` or `RUN_ERROR`.
    Incomplete,
    /// The caller ended the run: a transport error or a cancel
    /// ([`Conversation::abort_run`]), with its reason.
    Aborted(String),
}

impl RunStatus {
    /// True only for [`RunStatus::Finished`].
    pub fn is_finished(&self) -> bool {
        matches!(self, RunStatus::Finished { .. })
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunStatus::Finished { interrupts, .. } if interrupts.is_empty() => {
                f.write_str("finished")
            }
            RunStatus::Finished { interrupts, .. } => {
                write!(f, "finished with {} interrupt(s)", interrupts.len())
            }
            RunStatus::RunError {
                message,
                code: Some(code),
            } => write!(f, "the agent reported an error [{code}]: {message}"),
            RunStatus::RunError {
                message,
                code: None,
            } => {
                write!(f, "the agent reported an error: {message}")
            }
            RunStatus::Protocol(e) => write!(f, "protocol error: {e}"),
            RunStatus::Incomplete => {
                f.write_str("the response ended before RUN_FINISHED or RUN_ERROR")
            }
            RunStatus::Aborted(reason) => write!(f, "aborted: {reason}"),
        }
    }
}

/// What one run did.
#[derive(Debug, Clone, PartialEq)]
pub struct RunReport {
    /// The run's id.
    pub run_id: String,
    /// How it ended.
    pub status: RunStatus,
    /// Frames the client accepted in this run.
    pub accepted: u32,
    /// The first `RUN_STARTED` that named another thread or run than the
    /// one asked for, if any: the agent may answer someone else's run (a
    /// tool shows it as a warning; the events are folded all the same).
    pub foreign_start: Option<ForeignStart>,
}

/// A `RUN_STARTED` whose `threadId` or `runId` is not the run's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignStart {
    /// Its `threadId`.
    pub thread_id: String,
    /// Its `runId`.
    pub run_id: String,
}

/// The conversation already has a run in progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunInProgress;

impl fmt::Display for RunInProgress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a run is already in progress: end or abort it first")
    }
}

impl core::error::Error for RunInProgress {}

/// A run could not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartError {
    /// A run is in progress: end or abort it first.
    RunInProgress,
    /// The last run's interrupts with these ids have no answer: answer
    /// each ([`Conversation::answer`]; [`Resolution::Cancelled`] when
    /// nobody decides), as the reference client requires.
    Unanswered(Vec<String>),
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::RunInProgress => RunInProgress.fmt(f),
            StartError::Unanswered(ids) => {
                write!(f, "{} interrupt(s) of the last run not answered", ids.len())?;
                if let Some(first) = ids.first() {
                    write!(f, " (the first: '{first}')")?;
                }
                f.write_str(": answer or cancel each before the next run")
            }
        }
    }
}

impl core::error::Error for StartError {}

impl From<RunInProgress> for StartError {
    fn from(_: RunInProgress) -> Self {
        StartError::RunInProgress
    }
}

/// A call the agent made to one of the client's declared tools that has no
/// tool message (result) yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingToolCall {
    /// The tool call's id: answer with [`Conversation::add_tool_result`].
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as the agent streamed them (JSON text, normally).
    pub arguments: String,
}

/// How the terminal events of the run went, seen from the stream.
#[derive(Debug, Default)]
struct Ending {
    finished: Option<RunFinished>,
    error: Option<RunError>,
    /// Kept across the runs of one stream: the first foreign start.
    foreign: Option<ForeignStart>,
    /// The legacy `on_interrupt` events of the (last) run.
    legacy: LegacyInterrupts,
    /// The most interrupts kept ([`Conversation::with_max_interrupts`]).
    max_interrupts: usize,
}

/// The run in progress.
struct ActiveRun {
    id: String,
    client: Client,
    ending: Ending,
}

// ---------------------------------------------------------------------------
// The conversation
// ---------------------------------------------------------------------------

/// One thread with an agent: see the [module docs](self).
pub struct Conversation {
    thread_id: String,
    messages: Vec<Message>,
    state: Value,
    tools: Vec<Tool>,
    context: Vec<Context>,
    forwarded_props: Value,
    resume: Option<Vec<ResumeEntry>>,
    /// The last finished run's interrupts and their answers.
    interrupts: Interrupts,
    max_interrupts: usize,
    ids: Box<dyn IdSource>,
    limits: Limits,
    format: Option<Format>,
    /// The protocol the client speaks and declares (SPEC 9.1, 10).
    protocol: Protocol,
    run: Option<ActiveRun>,
    last: Option<RunReport>,
}

impl fmt::Debug for Conversation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Conversation")
            .field("thread_id", &self.thread_id)
            .field("messages", &self.messages().len())
            .field("tools", &self.tools.len())
            .field("running", &self.run.as_ref().map(|r| &r.id))
            .finish_non_exhaustive()
    }
}

impl Conversation {
    /// An empty thread: no messages, state `{}`, no tools, no context,
    /// forwarded props `{}`, [`Counter`] ids, default [`Limits`].
    pub fn new(thread_id: impl Into<String>) -> Self {
        Conversation {
            thread_id: thread_id.into(),
            messages: Vec::new(),
            state: Value::Object(Object::new()),
            tools: Vec::new(),
            context: Vec::new(),
            forwarded_props: Value::Object(Object::new()),
            resume: None,
            interrupts: Interrupts::default(),
            max_interrupts: MAX_INTERRUPTS,
            ids: Box::new(Counter::new()),
            limits: Limits::default(),
            format: None,
            protocol: Protocol::Current,
            run: None,
            last: None,
        }
    }

    /// Speaks AG-UI 1.0 (feature `v1`): every run input declares
    /// `protocolVersion: "1.0"` (an agent may then answer in 1.0, e.g.
    /// with its outcomes), and every response is read as 1.0 (SPEC
    /// section 9). The default is the current protocol, undeclared.
    #[cfg(feature = "v1")]
    pub fn speaking(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// Uses `ids` for run and message ids (see [`IdSource`]).
    pub fn with_ids(mut self, ids: impl IdSource + 'static) -> Self {
        self.ids = Box::new(ids);
        self
    }

    /// The client's resource limits for every run.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The most interrupts kept from one run (default [`MAX_INTERRUPTS`]):
    /// a run that asks more leaves none pending and says so
    /// ([`interrupt_overflow`](Self::interrupt_overflow)), so that a
    /// hostile agent cannot make the client hold or ask without bound.
    pub fn with_max_interrupts(mut self, max: usize) -> Self {
        self.max_interrupts = max;
        self
    }

    /// The wire format of the responses (`None`, the default: detect SSE or
    /// NDJSON from each response's first byte).
    pub fn with_format(mut self, format: Option<Format>) -> Self {
        self.format = format;
        self
    }

    /// The thread id.
    pub fn thread_id(&self) -> &str {
        &self.thread_id
    }

    /// The messages: during a run, as folded so far.
    pub fn messages(&self) -> &[Message] {
        match &self.run {
            Some(run) => run.client.messages(),
            None => &self.messages,
        }
    }

    /// The shared state: during a run, as folded so far.
    pub fn state(&self) -> &Value {
        match &self.run {
            Some(run) => run.client.state(),
            None => &self.state,
        }
    }

    /// The client of the run in progress (partial tool arguments, the
    /// reducer), if a run is in progress.
    pub fn client(&self) -> Option<&Client> {
        self.run.as_ref().map(|run| &run.client)
    }

    /// The declared tools.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The context sent with every run.
    pub fn context(&self) -> &[Context] {
        &self.context
    }

    /// The forwarded props sent with every run.
    pub fn forwarded_props(&self) -> &Value {
        &self.forwarded_props
    }

    /// True between [`start_run`](Self::start_run) and
    /// [`end_run`](Self::end_run) / [`abort_run`](Self::abort_run).
    pub fn is_running(&self) -> bool {
        self.run.is_some()
    }

    /// The id of the run in progress.
    pub fn run_id(&self) -> Option<&str> {
        self.run.as_ref().map(|run| run.id.as_str())
    }

    /// The report of the last run that ended.
    pub fn last_run(&self) -> Option<&RunReport> {
        self.last.as_ref()
    }

    /// Declares a frontend tool, replacing a declared tool of the same name.
    pub fn declare_tool(&mut self, tool: Tool) {
        match self.tools.iter_mut().find(|t| t.name == tool.name) {
            Some(slot) => *slot = tool,
            None => self.tools.push(tool),
        }
    }

    /// Adds a piece of context for every later run.
    pub fn add_context(&mut self, context: Context) {
        self.context.push(context);
    }

    /// Replaces the context.
    pub fn set_context(&mut self, context: Vec<Context>) {
        self.context = context;
    }

    /// Sets the forwarded props (any JSON; `{}` by default).
    pub fn set_forwarded_props(&mut self, props: Value) {
        self.forwarded_props = props;
    }

    /// Sends `resume` as it is with the next run only, instead of the
    /// entries built from the [`answer`](Self::answer)s.
    pub fn set_resume(&mut self, resume: Vec<ResumeEntry>) {
        self.resume = Some(resume);
    }

    /// The interrupts the last finished run ended with, in the agent's
    /// order, each with its answer so far. Kept until a later run
    /// finishes (a run that fails keeps them and their answers, which the
    /// next run sends again).
    pub fn pending_interrupts(&self) -> &[PendingInterrupt] {
        &self.interrupts.open
    }

    /// The last finished run asked more questions than
    /// [`with_max_interrupts`](Self::with_max_interrupts) allows: none of
    /// them is pending.
    pub fn interrupt_overflow(&self) -> Option<TooManyInterrupts> {
        self.interrupts.overflow
    }

    /// Answers the pending interrupt `interrupt_id` (again, if it had an
    /// answer). The next run carries every answer (SPEC section 10).
    ///
    /// # Errors
    /// [`AnswerError::RunInProgress`] during a run;
    /// [`AnswerError::Unknown`] when no pending interrupt has that id.
    pub fn answer(
        &mut self,
        interrupt_id: &str,
        resolution: Resolution,
    ) -> Result<(), AnswerError> {
        self.idle().map_err(|_| AnswerError::RunInProgress)?;
        self.interrupts.answer(interrupt_id, resolution)
    }

    /// Answers [`Resolution::Cancelled`] every pending interrupt whose
    /// `expiresAt` is at or before `now_ms` (milliseconds since
    /// 1970-01-01 UTC), answered or not: a lapsed interrupt can only be
    /// cancelled (the reference refuses any other answer). Returns how
    /// many it cancelled. The conversation has no clock: call it with the
    /// time before asking, and again before the next run.
    pub fn cancel_expired(&mut self, now_ms: i64) -> usize {
        self.interrupts.cancel_expired(now_ms)
    }

    /// Replaces the state (between runs; the agent sees it in the next
    /// run's input).
    ///
    /// # Errors
    /// [`RunInProgress`] during a run.
    pub fn set_state(&mut self, state: Value) -> Result<(), RunInProgress> {
        self.idle()?;
        self.state = state;
        Ok(())
    }

    /// Appends a message (between runs).
    ///
    /// # Errors
    /// [`RunInProgress`] during a run.
    pub fn add_message(&mut self, message: Message) -> Result<(), RunInProgress> {
        self.idle()?;
        self.messages.push(message);
        Ok(())
    }

    /// Appends a user message with a new id, which it returns.
    ///
    /// # Errors
    /// [`RunInProgress`] during a run.
    pub fn add_user_message(&mut self, text: impl Into<String>) -> Result<String, RunInProgress> {
        self.idle()?;
        let id = self.ids.message_id(&self.thread_id);
        self.messages.push(Message::User(UserMessage {
            id: id.clone(),
            content: UserContent::Text(text.into()),
            ..UserMessage::default()
        }));
        Ok(id)
    }

    /// Appends the result of the tool call `tool_call_id` (a `tool`
    /// message with a new id, which it returns).
    ///
    /// # Errors
    /// [`RunInProgress`] during a run.
    pub fn add_tool_result(
        &mut self,
        tool_call_id: &str,
        content: impl Into<String>,
    ) -> Result<String, RunInProgress> {
        self.push_tool_message(tool_call_id, content.into(), None)
    }

    /// Appends a failed tool call's result: a `tool` message whose
    /// `content` and `error` are both `error`, so that an agent reading
    /// either sees what went wrong.
    ///
    /// # Errors
    /// [`RunInProgress`] during a run.
    pub fn add_tool_error(
        &mut self,
        tool_call_id: &str,
        error: impl Into<String>,
    ) -> Result<String, RunInProgress> {
        let error = error.into();
        self.push_tool_message(tool_call_id, error.clone(), Some(error))
    }

    fn push_tool_message(
        &mut self,
        tool_call_id: &str,
        content: String,
        error: Option<String>,
    ) -> Result<String, RunInProgress> {
        self.idle()?;
        let id = self.ids.message_id(&self.thread_id);
        self.messages.push(Message::Tool(ToolMessage {
            id: id.clone(),
            content: UserContent::Text(content),
            tool_call_id: tool_call_id.to_owned(),
            error,
            ..ToolMessage::default()
        }));
        Ok(id)
    }

    fn idle(&self) -> Result<(), RunInProgress> {
        match self.run {
            Some(_) => Err(RunInProgress),
            None => Ok(()),
        }
    }

    /// The calls to declared tools that have no tool message yet, in the
    /// order the agent made them. Costs one pass over the messages.
    pub fn pending_tool_calls(&self) -> Vec<PendingToolCall> {
        let messages = self.messages();
        let answered: BTreeSet<&str> = messages
            .iter()
            .filter_map(|m| match m {
                Message::Tool(t) => Some(t.tool_call_id.as_str()),
                Message::Developer(_)
                | Message::System(_)
                | Message::Assistant(_)
                | Message::User(_)
                | Message::Activity(_)
                | Message::Reasoning(_) => None,
            })
            .collect();
        let declared = |call: &ToolCall| self.tools.iter().any(|t| t.name == call.function.name);
        messages
            .iter()
            .flat_map(Message::tool_calls)
            .filter(|call| declared(call) && !answered.contains(call.id.as_str()))
            .map(|call| PendingToolCall {
                id: call.id.clone(),
                name: call.function.name.clone(),
                arguments: call.function.arguments.clone(),
            })
            .collect()
    }

    /// The input the next run would send, as JSON text, with run id
    /// `run_id` (SPEC section "Run input"). Does not start a run.
    pub fn run_input(&self, run_id: &str) -> String {
        // The answers: resume[] for an outcome's interrupts, or
        // forwardedProps.command.resume for legacy ones (SPEC 10).
        let (resume, forwarded_props) = match (&self.resume, self.interrupts.answers()) {
            (Some(set), _) => (
                Some(Cow::Borrowed(set.as_slice())),
                Cow::Borrowed(&self.forwarded_props),
            ),
            (None, Answers::None) => (None, Cow::Borrowed(&self.forwarded_props)),
            (None, Answers::Resume(entries)) => (
                Some(Cow::Owned(entries)),
                Cow::Borrowed(&self.forwarded_props),
            ),
            (None, Answers::Command(value)) => (
                None,
                Cow::Owned(with_command_resume(&self.forwarded_props, value)),
            ),
        };
        let input = WireInput {
            thread_id: &self.thread_id,
            run_id,
            protocol_version: match self.protocol {
                Protocol::Current => None,
                Protocol::V1 => Some("1.0"),
            },
            tools: &self.tools,
            context: &self.context,
            forwarded_props: &forwarded_props,
            state: self.state(),
            messages: WireMessages(self.messages()),
            resume: resume.as_deref(),
        };
        // Serializing plain data into a String cannot fail: every map key
        // is a string and no Serialize impl here returns an error.
        serde_json::to_string(&input).unwrap_or_default()
    }

    /// Starts a run with a new id from the [`IdSource`]: returns the
    /// request body. Feed the response with [`feed`](Self::feed).
    ///
    /// # Errors
    /// [`StartError::RunInProgress`] if a run is in progress;
    /// [`StartError::Unanswered`] if a pending interrupt has no answer.
    pub fn start_run(&mut self) -> Result<RunRequest, StartError> {
        self.idle()?;
        let run_id = self.ids.run_id(&self.thread_id);
        self.start_run_with_id(run_id)
    }

    /// Starts a run with the caller's run id.
    ///
    /// # Errors
    /// As [`start_run`](Self::start_run).
    pub fn start_run_with_id(
        &mut self,
        run_id: impl Into<String>,
    ) -> Result<RunRequest, StartError> {
        self.idle()?;
        // As the reference: every open interrupt must be addressed (an
        // explicit `set_resume` is the caller's own answer).
        let unanswered = self.interrupts.unanswered();
        if self.resume.is_none() && !unanswered.is_empty() {
            return Err(StartError::Unanswered(unanswered));
        }
        let run_id = run_id.into();
        let body = self.run_input(&run_id);
        // `resume` answers the previous run's interrupts only.
        self.resume = None;
        let messages = core::mem::take(&mut self.messages);
        let state = core::mem::take(&mut self.state);
        let client = Client::with_format(self.format)
            .with_limits(self.limits)
            .with_initial(messages, state);
        #[cfg(feature = "v1")]
        let client = match self.protocol {
            Protocol::Current => client,
            Protocol::V1 => client.with_protocol(agui_core::protocol::Select::Fixed(Protocol::V1)),
        };
        self.run = Some(ActiveRun {
            id: run_id.clone(),
            client,
            ending: Ending {
                max_interrupts: self.max_interrupts,
                ..Ending::default()
            },
        });
        Ok(RunRequest { run_id, body })
    }

    /// Reads the response of the run in progress as AG-UI's protobuf
    /// encoding (length-prefixed `Event` messages, [`Client::proto`])
    /// instead of SSE or NDJSON: for a transport whose response said so
    /// (`Content-Type: application/vnd.ag-ui.event+proto`), whatever
    /// [`with_format`](Self::with_format) chose. Call it before the first
    /// bytes are fed; without a run in progress nothing happens.
    #[cfg(feature = "proto")]
    pub fn read_proto(&mut self) {
        if let Some(run) = &mut self.run {
            run.client.set_proto();
        }
    }

    /// Feeds response bytes, in any pieces, to the run in progress.
    ///
    /// # Errors
    /// The first frame the client rejects (the run is then over: end it
    /// with [`end_run`](Self::end_run)); also every later call. Without a
    /// run in progress, nothing happens.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        self.feed_with(bytes, &mut ())
    }

    /// [`feed`](Self::feed), running `subscriber`'s hooks on every event
    /// (e.g. to print each delta as it arrives).
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn feed_with(
        &mut self,
        bytes: &[u8],
        subscriber: &mut dyn Subscriber,
    ) -> Result<(), ClientError> {
        let Some(run) = &mut self.run else {
            return Ok(());
        };
        let (ending, asked) = (&mut run.ending, (self.thread_id.as_str(), run.id.as_str()));
        let mut watch = Tap {
            inner: subscriber,
            tap: |event: &Event| ending.note(event, asked),
        };
        run.client.feed_with(bytes, &mut watch)
    }

    /// The run in progress has seen its terminal event (`RUN_FINISHED` or
    /// `RUN_ERROR`): whatever the body still holds is not the run's. False
    /// without a run in progress.
    pub fn run_has_ended(&self) -> bool {
        self.run
            .as_ref()
            .is_some_and(|run| run.ending.finished.is_some() || run.ending.error.is_some())
    }

    /// Ends the run in progress at the end of its response: a last frame
    /// without its terminator is processed, then the messages and state
    /// are kept for the next run. `None` without a run in progress.
    pub fn end_run(&mut self) -> Option<RunReport> {
        self.end_run_with(&mut ())
    }

    /// [`end_run`](Self::end_run) with hooks for the last frame's events.
    pub fn end_run_with(&mut self, subscriber: &mut dyn Subscriber) -> Option<RunReport> {
        let mut run = self.run.take()?;
        let finish = {
            let (ending, asked) = (&mut run.ending, (self.thread_id.as_str(), run.id.as_str()));
            let mut watch = Tap {
                inner: subscriber,
                tap: |event: &Event| ending.note(event, asked),
            };
            run.client.finish_with(&mut watch)
        };
        let status = match finish {
            Err(e) => RunStatus::Protocol(e),
            Ok(()) => match (run.ending.error.take(), run.ending.finished.take()) {
                (Some(e), _) => RunStatus::RunError {
                    message: e.message,
                    code: e.code,
                },
                (None, Some(done)) => RunStatus::Finished {
                    result: done.result,
                    interrupts: match done.outcome {
                        Some(Outcome::Interrupt(list)) => list,
                        Some(Outcome::Success { .. } | Outcome::Cancelled) | None => Vec::new(),
                    },
                },
                (None, None) => RunStatus::Incomplete,
            },
        };
        Some(self.close(run, status))
    }

    /// Ends the run in progress without completing a partial last frame
    /// (a transport error, a timeout, a cancel): everything folded so far
    /// is kept. A protocol error already met wins over `reason`. `None`
    /// without a run in progress.
    pub fn abort_run(&mut self, reason: impl Into<String>) -> Option<RunReport> {
        let run = self.run.take()?;
        let status = match run.client.error() {
            Some(e) => RunStatus::Protocol(e.clone()),
            None => RunStatus::Aborted(reason.into()),
        };
        Some(self.close(run, status))
    }

    fn close(&mut self, run: ActiveRun, status: RunStatus) -> RunReport {
        // A finished run replaces the interrupts (and their answers); a
        // failed one leaves them, to be answered again by the next run.
        if let RunStatus::Finished { interrupts, .. } = &status {
            self.interrupts =
                Interrupts::from_run(interrupts, run.ending.legacy, self.max_interrupts);
        }
        let accepted = run.client.accepted();
        let (messages, state) = run.client.into_parts();
        self.messages = messages;
        self.state = state;
        let report = RunReport {
            run_id: run.id,
            status,
            accepted,
            foreign_start: run.ending.foreign,
        };
        self.last = Some(report.clone());
        report
    }
}

// ---------------------------------------------------------------------------
// The run input on the wire
// ---------------------------------------------------------------------------

/// `RunAgentInput` as the reference's HTTP agent sends it: these keys in
/// this order, `resume` only when set.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct WireInput<'a> {
    thread_id: &'a str,
    run_id: &'a str,
    /// AG-UI 1.0: the version the client speaks, when it speaks 1.0.
    #[serde(skip_serializing_if = "Option::is_none")]
    protocol_version: Option<&'a str>,
    tools: &'a [Tool],
    context: &'a [Context],
    forwarded_props: &'a Value,
    state: &'a Value,
    messages: WireMessages<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resume: Option<&'a [ResumeEntry]>,
}

/// The messages without the `activity` ones, which are the client's own
/// UI and are not sent to the agent (as the reference does).
struct WireMessages<'a>(&'a [Message]);

impl Serialize for WireMessages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().filter(|m| m.role() != MessageRole::Activity))
    }
}

// ---------------------------------------------------------------------------
// Watching the run's terminal events
// ---------------------------------------------------------------------------

impl Ending {
    /// Notes `RUN_STARTED` / `RUN_FINISHED` / `RUN_ERROR` for the run's
    /// report; `asked` is the (thread, run) the request named.
    fn note(&mut self, event: &Event, asked: (&str, &str)) {
        if let Event::RunStarted(start) = event {
            if self.foreign.is_none() && (start.thread_id != asked.0 || start.run_id != asked.1) {
                self.foreign = Some(ForeignStart {
                    thread_id: start.thread_id.clone(),
                    run_id: start.run_id.clone(),
                });
            }
        }
        if let Event::Custom(custom) = event {
            if custom.name == LEGACY_EVENT {
                self.legacy.note(custom.value.as_ref(), self.max_interrupts);
            }
        }
        match event.effect() {
            // A stream may hold runs one after another: only the last counts.
            Effect::RunStarted => {
                self.finished = None;
                self.error = None;
                self.legacy = LegacyInterrupts::default();
            }
            Effect::RunFinished(e) => self.finished = Some(e.clone()),
            Effect::RunError(e) => self.error = Some(e.clone()),
            Effect::StepStarted(_)
            | Effect::StepFinished(_)
            | Effect::ReasoningStarted
            | Effect::ReasoningEnded
            | Effect::State
            | Effect::MessagesReplaced
            | Effect::ToolCallStarted(_)
            | Effect::ToolResult
            | Effect::Activity(_)
            | Effect::Plain => {}
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::event::MessageContent;
    use crate::hooks::{Flow, HookView};
    use alloc::string::ToString;
    use alloc::vec;
    use serde_json::json;

    fn ndjson(events: &[Value]) -> Vec<u8> {
        let mut out = Vec::new();
        for ev in events {
            out.extend_from_slice(serde_json::to_string(ev).unwrap().as_bytes());
            out.push(b'\n');
        }
        out
    }

    fn set_led() -> Tool {
        Tool {
            name: "set_led".into(),
            description: "Switch the LED".into(),
            parameters: Some(json!({"type": "object", "properties": {"on": {"type": "boolean"}}})),
            metadata: None,
        }
    }

    fn started(run: &str) -> Value {
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": run})
    }

    fn finished(run: &str) -> Value {
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": run})
    }

    fn text(id: &str, words: &str) -> [Value; 3] {
        [
            json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": words}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": id}),
        ]
    }

    fn run_once(conv: &mut Conversation, events: &[Value]) -> RunReport {
        conv.start_run().unwrap();
        conv.feed(&ndjson(events)).unwrap();
        conv.end_run().unwrap()
    }

    #[test]
    fn empty_thread_sends_every_key_in_the_reference_order() {
        let conv = Conversation::new("t");
        assert_eq!(
            conv.run_input("r"),
            r#"{"threadId":"t","runId":"r","tools":[],"context":[],"forwardedProps":{},"state":{},"messages":[]}"#
        );
    }

    /// A 1.0 conversation declares the version and reads 1.0 answers (an
    /// input without tools, a cancelled outcome, an unknown event).
    #[cfg(feature = "v1")]
    #[test]
    fn speaking_1_0_declares_it_and_reads_it() {
        let mut conv = Conversation::new("t").speaking(Protocol::V1);
        let request = conv.start_run_with_id("r1").unwrap();
        assert!(request
            .body
            .starts_with(r#"{"threadId":"t","runId":"r1","protocolVersion":"1.0","tools":"#));
        let stream = concat!(
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r1","input":{"threadId":"t","runId":"r1","messages":[]}}"#,
            "\n",
            r#"{"type":"FUTURE_EVENT"}"#,
            "\n",
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant","subagentRunId":"s"}"#,
            "\n",
            r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
            "\n",
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r1","outcome":{"type":"cancelled"}}"#,
            "\n",
        );
        conv.feed(stream.as_bytes()).unwrap();
        let report = conv.end_run().unwrap();
        assert!(
            matches!(report.status, RunStatus::Finished { .. }),
            "{:?}",
            report.status
        );
        assert_eq!(conv.messages()[0].subagent_run_id(), Some("s"));
        // The current protocol declares nothing.
        let mut conv = Conversation::new("t");
        assert!(!conv
            .start_run_with_id("r1")
            .unwrap()
            .body
            .contains("protocolVersion"));
    }

    #[test]
    fn run_input_field_by_field() {
        let mut conv = Conversation::new("thread-7");
        conv.declare_tool(set_led());
        conv.declare_tool(Tool {
            name: "beep".into(),
            description: "Beep".into(),
            parameters: None,
            metadata: None,
        });
        conv.add_context(Context {
            description: "room".into(),
            value: "kitchen".into(),
        });
        conv.set_forwarded_props(json!({"device": "m3"}));
        conv.set_state(json!({"light": {"on": false}})).unwrap();
        conv.add_user_message("hi").unwrap();
        let activity = Message::from_json(
            &json!({"id": "act", "role": "activity", "activityType": "P", "content": {}}),
        )
        .unwrap();
        conv.add_message(activity).unwrap();
        let assistant = Message::from_json(&json!({"id": "a1", "role": "assistant", "toolCalls": [
            {"id": "c1", "type": "function", "function": {"name": "set_led", "arguments": "{\"on\":true}"}}]}))
        .unwrap();
        conv.add_message(assistant).unwrap();
        conv.add_tool_result("c1", "done").unwrap();
        conv.set_resume(vec![ResumeEntry {
            interrupt_id: "i1".into(),
            status: crate::model::ResumeStatus::Resolved,
            payload: Some(json!({"ok": true})),
            metadata: None,
        }]);

        let request = conv.start_run_with_id("run-a").unwrap();
        assert_eq!(request.run_id, "run-a");
        let body: Value = serde_json::from_str(&request.body).unwrap();
        let keys: Vec<&str> = body
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut expected_keys = vec![
            "threadId",
            "runId",
            "tools",
            "context",
            "forwardedProps",
            "state",
            "messages",
            "resume",
        ];
        expected_keys.sort_unstable(); // serde_json's map sorts its keys
        assert_eq!(keys, expected_keys);
        assert_eq!(body["threadId"], "thread-7");
        assert_eq!(body["runId"], "run-a");
        assert_eq!(
            body["tools"],
            json!([
                {"name": "set_led", "description": "Switch the LED",
                 "parameters": {"type": "object", "properties": {"on": {"type": "boolean"}}}},
                {"name": "beep", "description": "Beep"}
            ])
        );
        assert_eq!(
            body["context"],
            json!([{"description": "room", "value": "kitchen"}])
        );
        assert_eq!(body["forwardedProps"], json!({"device": "m3"}));
        assert_eq!(body["state"], json!({"light": {"on": false}}));
        // The activity message stays local; absent optionals are omitted.
        assert_eq!(
            body["messages"],
            json!([
                {"role": "user", "id": "thread-7-msg-1", "content": "hi"},
                {"role": "assistant", "id": "a1", "toolCalls": [
                    {"id": "c1", "type": "function",
                     "function": {"name": "set_led", "arguments": "{\"on\":true}"}}]},
                {"role": "tool", "id": "thread-7-msg-2", "content": "done", "toolCallId": "c1"}
            ])
        );
        assert_eq!(
            body["resume"],
            json!([{"interruptId": "i1", "status": "resolved", "payload": {"ok": true}}])
        );
        // The activity message is still in the conversation.
        assert_eq!(conv.messages().len(), 4);
        // The raw text has the reference's key order.
        assert!(request
            .body
            .starts_with(r#"{"threadId":"thread-7","runId":"run-a","tools":["#));

        // `resume` goes with one run only.
        conv.feed(&ndjson(&[started("run-a"), finished("run-a")]))
            .unwrap();
        conv.end_run().unwrap();
        let next: Value = serde_json::from_str(&conv.start_run().unwrap().body).unwrap();
        assert!(next.get("resume").is_none());
    }

    #[test]
    fn a_run_folds_and_the_next_input_carries_it() {
        let mut conv = Conversation::new("t");
        conv.add_user_message("hello").unwrap();
        let mut events = vec![started("t-run-1")];
        events.extend(text("m1", "Hi there"));
        events.push(json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}}));
        events.push(finished("t-run-1"));
        let report = run_once(&mut conv, &events);
        assert_eq!(report.run_id, "t-run-1");
        assert_eq!(report.accepted, 6);
        assert!(report.status.is_finished());
        assert_eq!(conv.last_run(), Some(&report));
        assert_eq!(conv.messages().len(), 2);
        assert_eq!(conv.state(), &json!({"n": 1}));

        conv.add_user_message("again").unwrap();
        let body: Value = serde_json::from_str(&conv.start_run().unwrap().body).unwrap();
        assert_eq!(body["runId"], "t-run-2");
        assert_eq!(body["state"], json!({"n": 1}));
        assert_eq!(
            body["messages"][1],
            json!({"role": "assistant", "id": "m1", "content": "Hi there"})
        );
        assert_eq!(body["messages"][2]["content"], "again");
    }

    #[test]
    fn run_error_keeps_what_was_folded() {
        let mut conv = Conversation::new("t");
        conv.add_user_message("q").unwrap();
        let mut events = vec![started("t-run-1")];
        events.extend(text("m1", "partial answer"));
        events.push(json!({"type": "RUN_ERROR", "message": "model overloaded", "code": "503"}));
        let report = run_once(&mut conv, &events);
        assert_eq!(
            report.status,
            RunStatus::RunError {
                message: "model overloaded".into(),
                code: Some("503".into())
            }
        );
        assert_eq!(
            report.status.to_string(),
            "the agent reported an error [503]: model overloaded"
        );
        assert_eq!(conv.messages()[1].text(), Some("partial answer"));
        // The conversation goes on.
        conv.add_user_message("retry").unwrap();
        let report = run_once(&mut conv, &[started("t-run-2"), finished("t-run-2")]);
        assert!(report.status.is_finished());
        assert_eq!(conv.messages().len(), 3);
    }

    #[test]
    fn protocol_error_keeps_what_was_folded() {
        let mut conv = Conversation::new("t");
        conv.start_run().unwrap();
        let mut events = vec![started("t-run-1")];
        events.extend(text("m1", "kept"));
        // A delta to a message that is not open: rejected.
        events.push(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "zz", "delta": "x"}));
        events.push(json!({"type": "STATE_SNAPSHOT", "snapshot": {"lost": true}}));
        let err = conv.feed(&ndjson(&events)).unwrap_err();
        assert_eq!(err.frame, 4);
        let report = conv.end_run().unwrap();
        let RunStatus::Protocol(e) = &report.status else {
            panic!("{report:?}")
        };
        assert_eq!(e, &err);
        assert_eq!(report.accepted, 4);
        assert_eq!(conv.messages()[0].text(), Some("kept"));
        assert_eq!(conv.state(), &json!({}));
        assert!(conv.start_run().is_ok());
    }

    #[test]
    fn abort_keeps_what_was_folded_and_drops_the_cut_frame() {
        let mut conv = Conversation::new("t");
        conv.start_run().unwrap();
        let mut bytes = ndjson(&[started("t-run-1"), text("m1", "so far")[0].clone()]);
        bytes.extend_from_slice(&ndjson(&text("m1", "so far")[1..2]));
        // Half a frame, then the connection drops.
        bytes
            .extend_from_slice(br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":" and"#);
        conv.feed(&bytes).unwrap();
        let report = conv.abort_run("connection reset").unwrap();
        assert_eq!(report.status, RunStatus::Aborted("connection reset".into()));
        assert_eq!(report.status.to_string(), "aborted: connection reset");
        assert_eq!(conv.messages()[0].text(), Some("so far"));
        assert!(!conv.is_running());
        assert!(conv.abort_run("again").is_none());
    }

    #[test]
    fn a_response_without_run_finished_is_incomplete() {
        let mut conv = Conversation::new("t");
        let mut events = vec![started("r")];
        events.extend(text("m1", "cut"));
        let report = run_once(&mut conv, &events);
        assert_eq!(report.status, RunStatus::Incomplete);
        assert_eq!(conv.messages()[0].text(), Some("cut"));
        // A last frame without its newline is still read at the end.
        conv.start_run().unwrap();
        conv.feed(serde_json::to_string(&started("x")).unwrap().as_bytes())
            .unwrap();
        conv.feed(b"\n").unwrap();
        conv.feed(serde_json::to_string(&finished("x")).unwrap().as_bytes())
            .unwrap();
        assert!(conv.end_run().unwrap().status.is_finished());
    }

    #[test]
    fn interrupts_are_reported() {
        let mut conv = Conversation::new("t");
        let done = json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
            "outcome": {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "confirm"}]}});
        let report = run_once(&mut conv, &[started("r"), done]);
        let RunStatus::Finished { interrupts, .. } = &report.status else {
            panic!("{report:?}")
        };
        assert_eq!(interrupts[0].id, "i1");
        assert_eq!(report.status.to_string(), "finished with 1 interrupt(s)");
    }

    #[test]
    fn pending_tool_calls_are_declared_and_unanswered() {
        let mut conv = Conversation::new("t");
        conv.declare_tool(set_led());
        let call = |id: &str, name: &str| {
            [
                json!({"type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": name}),
                json!({"type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": "{\"on\":"}),
                json!({"type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": "true}"}),
                json!({"type": "TOOL_CALL_END", "toolCallId": id}),
            ]
        };
        let mut events = vec![started("r1")];
        events.extend(call("c1", "set_led"));
        events.extend(call("c2", "server_side_search"));
        events.push(json!({"type": "TOOL_CALL_RESULT", "messageId": "tm", "toolCallId": "c2", "content": "found"}));
        events.extend(call("c3", "set_led"));
        events.push(finished("r1"));
        run_once(&mut conv, &events);
        let pending = conv.pending_tool_calls();
        let ids: Vec<&str> = pending.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["c1", "c3"]);
        assert_eq!(pending[0].arguments, r#"{"on":true}"#);
        conv.add_tool_result("c1", "ok").unwrap();
        conv.add_tool_error("c3", "exit status 1: no such LED")
            .unwrap();
        assert!(conv.pending_tool_calls().is_empty());
        let body: Value = serde_json::from_str(&conv.start_run().unwrap().body).unwrap();
        let last = body["messages"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(
            last,
            json!({"role": "tool", "id": "t-msg-2", "content": "exit status 1: no such LED",
                   "toolCallId": "c3", "error": "exit status 1: no such LED"})
        );
    }

    #[test]
    fn declaring_a_tool_twice_replaces_it() {
        let mut conv = Conversation::new("t");
        conv.declare_tool(set_led());
        let mut other = set_led();
        other.description = "new".into();
        conv.declare_tool(other);
        assert_eq!(conv.tools().len(), 1);
        assert_eq!(conv.tools()[0].description, "new");
    }

    #[test]
    fn the_thread_cannot_change_during_a_run() {
        let mut conv = Conversation::new("t");
        conv.start_run().unwrap();
        assert_eq!(conv.start_run(), Err(StartError::RunInProgress));
        assert_eq!(conv.add_user_message("x"), Err(RunInProgress));
        assert_eq!(conv.set_state(json!(1)), Err(RunInProgress));
        assert_eq!(conv.run_id(), Some("t-run-1"));
        conv.end_run().unwrap();
        assert!(conv.end_run().is_none());
        assert!(conv.add_user_message("x").is_ok());
    }

    #[test]
    fn messages_and_state_are_live_during_a_run() {
        let mut conv = Conversation::new("t");
        conv.add_user_message("q").unwrap();
        conv.start_run().unwrap();
        conv.feed(&ndjson(&[
            started("r"),
            text("m", "live")[0].clone(),
            text("m", "live")[1].clone(),
        ]))
        .unwrap();
        assert_eq!(conv.messages().len(), 2);
        assert_eq!(conv.messages()[1].text(), Some("live"));
        assert!(conv.client().is_some());
    }

    #[test]
    fn hooks_see_every_event() {
        #[derive(Default)]
        struct Log(Vec<String>);
        impl Subscriber for Log {
            fn on_text_message_content(
                &mut self,
                event: &MessageContent,
                _buffer: &str,
                _view: &mut HookView<'_>,
            ) -> Flow {
                self.0.push(event.delta.clone());
                Flow::Continue
            }
            fn on_run_finished(&mut self, _: &RunFinished, _: &mut HookView<'_>) -> Flow {
                self.0.push("done".into());
                Flow::Continue
            }
        }
        let mut conv = Conversation::new("t");
        conv.start_run().unwrap();
        let mut log = Log::default();
        let mut events = vec![started("r")];
        events.extend(text("m", "word"));
        let bytes = ndjson(&events);
        for byte in bytes.chunks(1) {
            conv.feed_with(byte, &mut log).unwrap();
        }
        // The last frame has no newline: end_run_with completes it.
        let last = serde_json::to_string(&finished("r")).unwrap();
        conv.feed_with(last.as_bytes(), &mut log).unwrap();
        assert_eq!(log.0, ["word"]);
        assert!(conv.end_run_with(&mut log).unwrap().status.is_finished());
        assert_eq!(log.0, ["word", "done"]);
    }

    #[test]
    fn counter_ids() {
        let mut plain = Counter::new();
        assert_eq!(plain.run_id("t"), "t-run-1");
        assert_eq!(plain.run_id("t"), "t-run-2");
        assert_eq!(plain.message_id("t"), "t-msg-1");
        let mut salted = Counter::with_salt("x7");
        assert_eq!(salted.run_id("t"), "t-x7-run-1");
        let mut conv = Conversation::new("t").with_ids(Counter::with_salt("s"));
        assert_eq!(conv.add_user_message("a").unwrap(), "t-s-msg-1");
        assert_eq!(conv.start_run().unwrap().run_id, "t-s-run-1");
    }

    #[test]
    fn sse_responses_fold_too() {
        let mut conv = Conversation::new("t").with_format(Some(Format::Sse));
        conv.start_run().unwrap();
        conv.feed(b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n")
            .unwrap();
        conv.feed(b": keep-alive\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n")
            .unwrap();
        let report = conv.end_run().unwrap();
        assert!(report.status.is_finished());
        assert_eq!(report.accepted, 2);
        assert_eq!(
            format!("{conv:?}").split(',').next(),
            Some("Conversation { thread_id: \"t\"")
        );
        let _ = "x".to_string();
    }
}
