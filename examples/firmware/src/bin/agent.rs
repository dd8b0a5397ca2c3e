//! Agent: the device end of a live conversation through `agui-gateway`
//! (docs/SPEC.md, "Device line protocol"), over UART0, with no heap.
//!
//! At boot it declares the frontend tool `set_led` (`color` string, `on`
//! boolean), sends a user message and asks for a run. It verifies every
//! incoming event with the core pipeline; when the agent's `set_led` call is
//! complete it decodes the arguments into a struct (serde-json-core), acts on
//! them, logs `set_led: color=<color> on=<true|false>` and, once the run has
//! finished, sends its tool result and asks for the next run. Every
//! completed assistant text message is logged as `assistant: <text>`. When a
//! run finishes with an answer and no call left to serve, it says `DONE` and
//! exits with status 0 through semihosting; any failure exits with 1.
//!
//! A run that ends with an interrupt outcome (an agent asking a person,
//! e.g. to approve a tool call) is answered at the device: each question is
//! logged as `question: <text>`, shown on the person's console (UART1,
//! [`agui_firmware::console`]) and answered there with y or n; the answer
//! is logged as `answer: approved|denied`, sent as a `RESUME` line
//! (`{"approved": bool}`), and the run asked again.
//!
//! A run that ends with `RUN_ERROR` (the agent's, or the gateway's: e.g.
//! `gateway_capacity`, a frame this device could not hold) is logged with
//! its code and asked for again, with a fresh pipeline; after
//! [`RUN_ERRORS`] such runs the firmware gives up.
//!
//! Log lines go to the gateway as `#` lines, which it prints on its stdout.
#![no_std]
#![no_main]
#![deny(unsafe_code)]

use agui_core::decode::{Field, PartKind};
use agui_core::event::{EventType, Origin};
use agui_core::reply::{resume, tool_result, user_message, Answer, OutcomeText, ToolArgs};
use agui_core::reply::{APPROVED, DENIED};
use agui_core::{DefaultPipeline, Output};
use agui_firmware::assistant::AssistantText;
use agui_firmware::console::Console;
use agui_firmware::link::{self, Piece, Router};
use agui_firmware::uart::Uart0;
use agui_firmware::{exit, hw, text};
use cortex_m_rt::entry;
use embedded_io::Read;
use serde::Deserialize;

/// The tool declaration, sent once at boot.
const DECLARE_SET_LED: &str = concat!(
    r#"{"type":"TOOL","name":"set_led","description":"Set the colour of the device's LED and turn it on or off","#,
    r#""parameters":{"type":"object","properties":{"color":{"type":"string","description":"a colour name, e.g. red"},"#,
    r#""on":{"type":"boolean","description":"true to light the LED"}},"required":["color","on"]}}"#,
);

/// What the device's user asks.
const QUESTION: &str = "Please turn the LED blue.";

/// Bytes taken from the UART per read.
const READ_BUF: usize = 64;

/// Questions one run may ask, and the longest text of one, in bytes.
const QUESTIONS: usize = 2;
const QUESTION_TEXT: usize = 96;

/// Runs that may end with RUN_ERROR: each is logged and asked for again,
/// and the last one ends the firmware (exit 1).
const RUN_ERRORS: u8 = 3;

/// The tool's typed arguments.
#[derive(Deserialize)]
struct SetLed<'a> {
    color: &'a str,
    on: bool,
}

/// What the firmware learned from the events of the run so far.
#[derive(Default)]
struct Seen {
    /// The run ended: `Some(true)` with RUN_FINISHED, `Some(false)` with RUN_ERROR.
    run_end: Option<bool>,
    /// A failure was logged: exit with status 1 at the run's end.
    failed: bool,
    /// The `code` of the frame being read, for its RUN_ERROR.
    code: ErrorCode,
}

/// A RUN_ERROR's `code`, collected from the frame's parts (which arrive
/// before its events); 32 bytes hold every code of docs/SPEC.md.
#[derive(Default)]
struct ErrorCode {
    buf: [u8; 32],
    len: usize,
    /// The code did not fit: it is not shown cut.
    long: bool,
}

impl ErrorCode {
    /// Keeps the frame's `code` parts; an event other than RUN_ERROR (and
    /// the closes a frame makes before its own event) ends the frame.
    fn on_output(&mut self, out: &Output<'_>) {
        match out {
            Output::Part(part) if part.field == Field::Code && part.kind == PartKind::Text => {
                let text = part.text.as_str().as_bytes();
                let end = self.len + text.len();
                match self.buf.get_mut(self.len..end) {
                    Some(dst) => {
                        dst.copy_from_slice(text);
                        self.len = end;
                    }
                    None => self.long = true,
                }
            }
            Output::Event(ev) if ev.kind != EventType::RunError && ev.origin != Origin::Close => {
                *self = ErrorCode::default();
            }
            Output::Part(_) | Output::Event(_) | Output::Error(_) => {}
        }
    }

    /// The code, for a log line.
    fn as_str(&self) -> &str {
        match (self.long, self.len) {
            (true, _) => "a code longer than 32 bytes",
            (false, 0) => "no code",
            (false, len) => core::str::from_utf8(self.buf.get(..len).unwrap_or_default())
                .unwrap_or("a code that is not UTF-8"),
        }
    }
}

/// The tool result waiting for the end of the run, as one device line.
struct Reply {
    buf: [u8; 192],
    len: usize,
}

#[entry]
fn main() -> ! {
    let (Some(mut uart), Some(mut console)) = (Uart0::take(), Console::take()) else {
        exit(false)
    };
    let mut line = [0u8; 128];
    uart.write_str(DECLARE_SET_LED);
    uart.write_str("\n");
    let Ok(n) = user_message(&mut line, "u1", QUESTION) else {
        exit(false)
    };
    uart.write_bytes(line.get(..n).unwrap_or_default());
    uart.write_str("\n");
    link::run(&mut uart);

    // Strict mode: the gateway relays NDJSON, one verified event per line.
    let mut pipeline = DefaultPipeline::new();
    let mut router = Router::new();
    let mut args = ToolArgs::<128>::new();
    let mut assistant = AssistantText::<512>::new();
    let mut reply = Reply {
        buf: [0; 192],
        len: 0,
    };
    let mut answered = false;
    let mut outcome = OutcomeText::<512>::new();
    let mut run_errors = 0u8;
    let mut buf = [0u8; READ_BUF];
    // Kept across reads: a failure logged early in a run decides the exit
    // status at the run's end, however many reads later that comes.
    let mut seen = Seen::default();
    loop {
        let Ok(n) = uart.read(&mut buf) else {
            log(&mut uart, &["agent: UART line error"]);
            exit(false)
        };
        let mut rejected = false;
        router.route(buf.get(..n).unwrap_or_default(), |piece| match piece {
            Piece::Events(bytes) => {
                let fed = pipeline.feed(bytes, |out| {
                    on_output(&out, &mut uart, &mut args, &mut reply, &mut seen);
                    if let Err(e) = outcome.on_output(&out) {
                        log(&mut uart, &["agent: ", e.as_str()]);
                        seen.failed = true;
                    }
                    match assistant.on_output(&out) {
                        Ok(true) => answered |= say_answer(&mut uart, assistant.text()),
                        Ok(false) => {}
                        Err(e) => {
                            log(&mut uart, &["agent: ", e.as_str()]);
                            seen.failed = true;
                        }
                    }
                });
                if let Err(e) = fed {
                    let mut digits = [0u8; 10];
                    let frame = text::decimal(e.frame, &mut digits);
                    let frame = core::str::from_utf8(frame).unwrap_or_default();
                    let (stage, code) = (e.stage.as_str(), e.code.as_str());
                    log(
                        &mut uart,
                        &[
                            "agent: stream rejected at frame ",
                            frame,
                            ": ",
                            stage,
                            " ",
                            code,
                        ],
                    );
                    rejected = true;
                }
            }
            Piece::Gateway { line, .. } => {
                // The device's lines are well-formed, so any gateway error
                // is a fault: log it and stop.
                let said = core::str::from_utf8(line).unwrap_or("(not UTF-8)");
                log(&mut uart, &["agent: gateway says: ", said]);
                rejected = true;
            }
        });
        if rejected {
            finish(&mut uart, false);
        }
        match seen.run_end.take() {
            Some(true) if seen.failed => finish(&mut uart, false),
            Some(true) if reply.len > 0 => {
                uart.write_bytes(reply.buf.get(..reply.len).unwrap_or_default());
                uart.write_str("\n");
                link::run(&mut uart);
                reply.len = 0;
            }
            Some(true)
                if !outcome.text().is_empty() && ask_person(&mut uart, &mut console, &outcome) =>
            {
                link::run(&mut uart);
            }
            Some(true) => {
                if !answered {
                    log(&mut uart, &["agent: the run finished without an answer"]);
                }
                finish(&mut uart, answered);
            }
            Some(false) => {
                run_errors += 1;
                let code = seen.code.as_str();
                if run_errors >= RUN_ERRORS {
                    log(
                        &mut uart,
                        &["agent: the run failed (RUN_ERROR ", code, "); giving up"],
                    );
                    finish(&mut uart, false);
                }
                log(
                    &mut uart,
                    &["agent: the run failed (RUN_ERROR ", code, "); asking again"],
                );
                // The next run is a new stream for this device: whatever
                // the failed one left open is forgotten.
                pipeline.reset();
                args = ToolArgs::new();
                assistant = AssistantText::new();
                reply.len = 0;
                seen = Seen::default();
                outcome = OutcomeText::new();
                link::run(&mut uart);
            }
            None => {}
        }
    }
}

/// Tracks the tool call and the run's end for one pipeline output.
fn on_output(
    out: &Output<'_>,
    uart: &mut Uart0,
    args: &mut ToolArgs<128>,
    reply: &mut Reply,
    seen: &mut Seen,
) {
    seen.code.on_output(out);
    if let Output::Event(ev) = out {
        // Only the terminal events matter here; the pipeline verified the rest.
        if ev.kind == EventType::RunFinished {
            seen.run_end = Some(true);
        } else if ev.kind == EventType::RunError {
            seen.run_end = Some(false);
        }
    }
    match args.on_output(out) {
        Ok(true) if args.name() == "set_led" => match act_on_set_led(uart, args, reply) {
            Ok(()) => {}
            Err(why) => {
                log(uart, &["agent: set_led: ", why]);
                seen.failed = true;
            }
        },
        Ok(_) => {}
        Err(_) => {
            log(uart, &["agent: tool call arguments longer than 128 bytes"]);
            seen.failed = true;
        }
    }
}

/// Decodes the finished `set_led` call, acts on it (here: logs it) and
/// prepares the tool result to send when the run has finished.
fn act_on_set_led(
    uart: &mut Uart0,
    args: &ToolArgs<128>,
    reply: &mut Reply,
) -> Result<(), &'static str> {
    let mut scratch = [0u8; 32];
    let led = args
        .parse::<SetLed<'_>>(&mut scratch)
        .map_err(|_| "arguments are not {\"color\": string, \"on\": boolean}")?;
    let state = if led.on { "true" } else { "false" };
    log(uart, &["set_led: color=", led.color, " on=", state]);

    // The result: "LED <color> on|off".
    let mut content = [0u8; 48];
    let mut len = 0;
    for part in ["LED ", led.color, if led.on { " on" } else { " off" }] {
        let end = len + part.len();
        let dst = content.get_mut(len..end).ok_or("colour name too long")?;
        dst.copy_from_slice(part.as_bytes());
        len = end;
    }
    let content = core::str::from_utf8(content.get(..len).unwrap_or_default()).unwrap_or_default();
    reply.len =
        tool_result(&mut reply.buf, "res-1", args.id(), content).map_err(|_| "result too long")?;
    Ok(())
}

/// Asks the person each question of the run's interrupt outcome and
/// sends the answers; false if the outcome asked nothing. A question that
/// cannot be read ends the firmware (exit 1).
fn ask_person(uart: &mut Uart0, console: &mut Console, outcome: &OutcomeText<512>) -> bool {
    let mut scratch = [0u8; QUESTION_TEXT];
    let questions = match outcome.questions::<QUESTIONS, QUESTION_TEXT>(&mut scratch) {
        Ok(questions) => questions,
        Err(e) => {
            log(uart, &["agent: ", e.as_str()]);
            finish(uart, false)
        }
    };
    for question in &questions {
        log(
            uart,
            &[
                "question: ",
                question.message.as_deref().unwrap_or(&question.reason),
            ],
        );
        let yes = console.ask(question);
        log(uart, &["answer: ", if yes { "approved" } else { "denied" }]);
        let payload = if yes { APPROVED } else { DENIED };
        let mut line = [0u8; 160];
        match resume(&mut line, &question.id, Answer::Resolved(Some(payload))) {
            Ok(n) => {
                uart.write_bytes(line.get(..n).unwrap_or_default());
                uart.write_str("\n");
            }
            Err(_) => {
                log(uart, &["agent: interrupt id too long for a RESUME line"]);
                finish(uart, false)
            }
        }
    }
    !questions.is_empty()
}

/// Logs a completed assistant message; false if it was empty (a producer
/// may open and close an empty message before a tool call).
fn say_answer(uart: &mut Uart0, text: &str) -> bool {
    if text.is_empty() {
        return false;
    }
    log(uart, &["assistant: ", text]);
    true
}

/// One `#` log line made of `parts`.
fn log(uart: &mut Uart0, parts: &[&str]) {
    link::log(uart, parts);
}

/// Says `DONE` to the gateway, waits until it has left the UART, reports
/// the peak stack use, exits.
fn finish(uart: &mut Uart0, success: bool) -> ! {
    link::done(uart);
    let _ = embedded_io::Write::flush(uart);
    report_stack();
    exit(success)
}

/// `stack: used N bytes` on the semihosting stderr channel (QEMU's stderr):
/// UART0 carries only the line protocol.
fn report_stack() {
    let Ok(mut err) = cortex_m_semihosting::hio::hstderr() else {
        return;
    };
    let mut digits = [0u8; 10];
    let used = u32::try_from(hw::stack_used()).unwrap_or(u32::MAX);
    let _ = err.write_all(b"stack: used ");
    let _ = err.write_all(text::decimal(used, &mut digits));
    let _ = err.write_all(b" bytes\n");
}
