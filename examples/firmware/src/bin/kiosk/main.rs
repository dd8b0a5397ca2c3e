//! OLED kiosk: reads an AG-UI stream (SSE or NDJSON) from UART0 up to an
//! EOT byte (0x04), folds it with the alloc layer's `Client` and shows the
//! conversation on the board's 128x64 OLED with the `agui-kiosk` renderer,
//! redrawing after every frame (only the pixels that changed go over SSI).
//!
//! UART0 carries one line per outcome:
//!
//! - `kiosk: error CODE: TEXT` when the stream is rejected (the status line
//!   on the panel shows it too), or `kiosk: error heap_exhausted: ...` when
//!   the heap would run out; the rest of the stream is read and ignored;
//! - `kiosk: done accepted=N` after EOT; the picture then stays on the
//!   panel and the firmware idles, so that a host can take a screenshot.
//!
//! **Behind `agui-gateway`** (semihosting command line containing `live`,
//! e.g. QEMU's `-semihosting-config ...,arg=kiosk,arg=live`) the kiosk is
//! the device of a live conversation (docs/SPEC.md, "Device line
//! protocol"): at boot it says `HELLO` and shows the resynchronising run
//! the gateway answers with. An empty conversation is a first start: it
//! declares the frontend tool `set_led`, sends the user's question and
//! `RUN`. A conversation the gateway already holds (the board restarted
//! mid-conversation) is drawn as it was, logged as `# kiosk: resumed
//! messages=N`, and carried on. It shows every relayed event as it
//! arrives; after a run that called `set_led` it answers each call (`LED
//! <color> on`) and asks for the next run; after a run with no call left
//! it logs `# kiosk: done accepted=N`, sends `DONE` and keeps the picture.
//! With `stay` on the command line too it logs `# kiosk: showing
//! messages=N` instead and keeps reading (the gateway stays: a test
//! restarts the board and compares the pictures).
//!
//! Measurements go to the semihosting stderr channel (QEMU's stderr): one
//! `redraw N: render R ticks, flush F ticks, B bytes, W windows` line per
//! redraw (SysTick ticks of the processor clock spent in the renderer and
//! in the SSI flush, the display bytes and windows sent; under QEMU's
//! `-icount shift=0` one tick of the 12.5 MHz reset clock is exactly 80
//! instructions) and, after EOT, `heap: peak N of M bytes, ...` and
//! `stack: used N bytes`.
#![no_std]
#![no_main]
#![deny(unsafe_code)]

extern crate alloc;

#[allow(unsafe_code)]
mod heap;

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use agui_alloc::client::{Client, Limits};
use agui_alloc::event::{Event, RunError, RunFinished, ToolCallEnd};
use agui_alloc::hooks::{Flow, HookView, Subscriber, ToolCallProgress};
use agui_alloc::model::Message;
use agui_firmware::link::{self, Piece, Router};
use agui_firmware::panel::Panel;
use agui_firmware::ssd0323::{Ssd0323, HEIGHT, WIDTH};
use agui_firmware::uart::{Uart0, UartError};
use agui_firmware::{exit, hw, text};
use agui_kiosk::{Config, Kiosk, Theme};
use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::SYST;
use cortex_m_rt::entry;
use cortex_m_semihosting::hio::{self, HostStream};
use embedded_graphics::pixelcolor::BinaryColor;
use embedded_graphics::prelude::Size;
use heap::{Heap, HEAP_SIZE};

#[global_allocator]
static HEAP: Heap = Heap::empty();

/// End of the stream.
const EOT: u8 = 0x04;
/// The client is fed at every newline (one frame ends at most per line, in
/// SSE and NDJSON alike, so each frame gets its own redraw) or when this
/// many bytes wait, whichever comes first.
const PIECE: usize = 128;
/// Free heap below which no more input is taken: more than the most one
/// frame can allocate (its text, kept up to `max_frame_bytes`, its decoded
/// event and the message text it grows, each at most that size, with the
/// allocator's doubling), so a stream never reaches the allocator's limit.
const RESERVE: usize = 6 * 1024;

/// The client's limits, from the heap size: what one frame and the whole
/// conversation may hold. A stream over them is a `capacity` error.
fn limits() -> Limits {
    Limits {
        max_frame_bytes: 1024,
        max_messages: 48,
        max_message_bytes: 4 * 1024,
        max_state_bytes: 1024,
        max_state_depth: 8,
        max_errors: 1,
        // The kiosk keeps no trace.
        max_trace_bytes: 0,
        // The reader's tables are fixed arrays here (no feature `grow`):
        // nothing of them is on the heap.
        max_reader_bytes: 0,
    }
}

/// The frontend tool the live kiosk declares.
const DECLARE_SET_LED: &str = concat!(
    r#"{"type":"TOOL","name":"set_led","description":"Set the colour of the kiosk's LED and turn it on","#,
    r#""parameters":{"type":"object","properties":{"color":{"type":"string"},"on":{"type":"boolean"}},"#,
    r#""required":["color","on"]}}"#,
);

/// What the live kiosk's user asks.
const QUESTION: &str = "Please turn the LED green.";

/// The kiosk's subscriber during a live run: follows the events for the
/// renderer, notes the end of the run and each complete `set_led` call.
struct Watch<'a> {
    kiosk: &'a mut Kiosk<BinaryColor>,
    calls: &'a mut Vec<(String, String)>,
    ended: bool,
}

impl Subscriber for Watch<'_> {
    fn on_event(&mut self, event: &Event, _view: &mut HookView<'_>) -> Flow {
        self.kiosk.observe(event);
        Flow::Continue
    }

    fn on_run_finished(&mut self, _event: &RunFinished, _view: &mut HookView<'_>) -> Flow {
        self.ended = true;
        Flow::Continue
    }

    fn on_run_error(&mut self, _event: &RunError, _view: &mut HookView<'_>) -> Flow {
        self.ended = true;
        Flow::Continue
    }

    fn on_tool_call_end(
        &mut self,
        event: &ToolCallEnd,
        call: &ToolCallProgress<'_>,
        _view: &mut HookView<'_>,
    ) -> Flow {
        if call.name == "set_led" {
            let color = call
                .args
                .get("color")
                .and_then(|c| c.as_str())
                .unwrap_or("?");
            self.calls
                .push((event.tool_call_id.clone(), color.to_string()));
        }
        Flow::Continue
    }
}

/// The parts of the running kiosk.
struct App {
    uart: Uart0,
    panel: Panel,
    kiosk: Kiosk<BinaryColor>,
    client: Client,
    /// Owned so that nothing else reconfigures it while it times redraws.
    _systick: SYST,
    err: Option<HostStream>,
    redraws: u32,
    /// Behind the gateway: what goes to UART0 is device lines.
    live: bool,
    /// Input is ignored after an error, up to EOT.
    stopped: bool,
}

#[entry]
fn main() -> ! {
    HEAP.init();
    let (Some(uart), Some(oled), Some(core)) = (
        Uart0::take(),
        Ssd0323::take(),
        cortex_m::Peripherals::take(),
    ) else {
        exit(false)
    };
    let size = Size::new(WIDTH, HEIGHT);
    let mut app = App {
        uart,
        panel: Panel::new(oled),
        kiosk: Kiosk::new(Config::new(size), Theme::mono()),
        client: Client::new().with_limits(limits()),
        _systick: start_systick(core.SYST),
        err: hio::hstderr().ok(),
        redraws: 0,
        live: false,
        stopped: false,
    };
    app.redraw();
    let mut cmdline = [0u8; 64];
    let words = hw::semihosting_cmdline(&mut cmdline);
    let has = |word: &[u8]| words.is_some_and(|c| c.split(|&b| b == b' ').any(|w| w == word));
    if has(b"live") {
        app.live = true;
        app.live(has(b"stay"));
    } else {
        app.run();
    }
    app.report();
    loop {
        cortex_m::asm::wfi();
    }
}

/// SysTick ticks from `start` to `end` (it counts down, 24 bits).
fn ticks(start: u32, end: u32) -> u32 {
    start.wrapping_sub(end) & 0x00FF_FFFF
}

/// SysTick counting down from its largest value on the processor clock.
fn start_systick(mut systick: SYST) -> SYST {
    systick.set_clock_source(SystClkSource::Core);
    systick.set_reload(0x00FF_FFFF);
    systick.clear_current();
    systick.enable_counter();
    systick
}

impl App {
    /// Reads and shows the stream up to EOT.
    fn run(&mut self) {
        let mut piece = [0u8; PIECE];
        let mut len = 0;
        loop {
            let byte = match self.uart.read_byte() {
                Ok(EOT) => break,
                Ok(b) => b,
                Err(e) => {
                    self.uart_error(e);
                    continue;
                }
            };
            piece[len] = byte;
            len += 1;
            if byte == b'\n' || len == PIECE {
                self.feed(&piece[..len]);
                len = 0;
            }
        }
        self.feed(&piece[..len]);
        if !self.stopped {
            let result = self.client.finish_with(&mut self.kiosk);
            if let Err(e) = result {
                self.fail(e.code.as_str(), &e.to_string());
            }
            self.redraw();
        }
        self.uart.write_str("kiosk: done accepted=");
        self.uart.write_u32(self.client.accepted());
        self.uart.write_str("\n");
    }

    /// The live conversation through the gateway (see the crate docs);
    /// `stay`: no `DONE` after the answer.
    fn live(&mut self, stay: bool) {
        link::hello(&mut self.uart);
        let mut router = Router::new();
        let mut buf = [0u8; 64];
        let mut calls: Vec<(String, String)> = Vec::new();
        let mut results = 0u32;
        // The first run to end is the gateway's answer to HELLO.
        let mut started = false;
        loop {
            let n = self.read_some(&mut buf);
            let mut ended = false;
            router.route(&buf[..n], |piece| match piece {
                Piece::Events(bytes) => ended |= self.feed_live(bytes, &mut calls),
                // A gateway complaint about our own lines: nothing to show.
                Piece::Gateway { .. } => {}
            });
            if !ended {
                continue;
            }
            if self.stopped {
                break;
            }
            if !started {
                started = true;
                if self.client.messages().is_empty() {
                    self.ask();
                    continue;
                }
                self.log_count("# kiosk: resumed messages=", self.client.messages().len());
            }
            if calls.is_empty() {
                if !stay {
                    break;
                }
                self.log_count("# kiosk: showing messages=", self.client.messages().len());
                continue;
            }
            for (id, color) in calls.drain(..) {
                results += 1;
                self.send_result(results, &id, &color);
            }
            link::run(&mut self.uart);
        }
        self.uart.write_str("# kiosk: done accepted=");
        self.uart.write_u32(self.client.accepted());
        self.uart.write_str("\n");
        link::done(&mut self.uart);
    }

    /// A first start: declares `set_led`, asks the question (and shows
    /// it), asks for a run.
    fn ask(&mut self) {
        self.uart.write_str(DECLARE_SET_LED);
        self.uart.write_str("\n");
        let question = serde_json::json!({"id": "u1", "role": "user", "content": QUESTION});
        self.uart.write_str(&question.to_string());
        self.uart.write_str("\n");
        self.show_own(&question);
        link::run(&mut self.uart);
    }

    /// A `#` log line: `label` and `n`.
    fn log_count(&mut self, label: &str, n: usize) {
        self.uart.write_str(label);
        self.uart.write_u32(u32::try_from(n).unwrap_or(u32::MAX));
        self.uart.write_str("\n");
    }

    /// Waits for at least one byte and takes what has arrived.
    fn read_some(&mut self, buf: &mut [u8]) -> usize {
        let mut n = 0;
        while n == 0 {
            while n < buf.len() {
                match self.uart.try_read_byte() {
                    Some(Ok(b)) => {
                        buf[n] = b;
                        n += 1;
                    }
                    Some(Err(e)) => self.uart_error(e),
                    None => break,
                }
            }
        }
        n
    }

    /// Feeds relayed event bytes line by line, redrawing per frame;
    /// `true` when a run ended in them.
    fn feed_live(&mut self, bytes: &[u8], calls: &mut Vec<(String, String)>) -> bool {
        let mut ended = false;
        for line in bytes.split_inclusive(|&b| b == b'\n') {
            if self.stopped {
                return true;
            }
            let before = self.client.accepted();
            let mut watch = Watch {
                kiosk: &mut self.kiosk,
                calls,
                ended: false,
            };
            let fed = self.client.feed_with(line, &mut watch);
            ended |= watch.ended;
            if let Err(e) = fed {
                self.fail(e.code.as_str(), &e.to_string());
                ended = true;
            }
            if self.client.accepted() != before || self.stopped {
                self.redraw();
            }
        }
        ended
    }

    /// Sends the tool result for call `id` as a device line, and shows it.
    fn send_result(&mut self, n: u32, id: &str, color: &str) {
        let content = alloc::format!("LED {color} on");
        let line = serde_json::json!({
            "type": "TOOL_CALL_RESULT",
            "messageId": alloc::format!("kiosk-r{n}"),
            "toolCallId": id,
            "content": content,
            "role": "tool",
        });
        let text = line.to_string();
        self.uart.write_str(&text);
        self.uart.write_str("\n");
        // The message as the gateway adds it (`id`, not the line's
        // `messageId`).
        let message = serde_json::json!({
            "id": line["messageId"],
            "role": "tool",
            "toolCallId": id,
            "content": line["content"],
        });
        self.show_own(&message);
    }

    /// Adds a message the kiosk sent (its question, a tool result) to what
    /// it shows, between runs: the gateway's conversation holds it, so the
    /// panel shows the conversation as a restarted kiosk gets it back.
    fn show_own(&mut self, line: &serde_json::Value) {
        if let Ok(message) = Message::from_json(line) {
            self.client.add_message(message);
            self.redraw();
        }
    }

    /// Feeds one piece of input and redraws if a frame ended in it.
    fn feed(&mut self, bytes: &[u8]) {
        if self.stopped || bytes.is_empty() {
            return;
        }
        if HEAP.free() < RESERVE {
            self.fail(
                "heap_exhausted",
                "the conversation no longer fits in the heap; the rest of the stream is ignored",
            );
            self.redraw();
            return;
        }
        let before = self.client.accepted();
        if let Err(e) = self.client.feed_with(bytes, &mut self.kiosk) {
            self.fail(e.code.as_str(), &e.to_string());
        }
        if self.client.accepted() != before || self.stopped {
            self.redraw();
        }
    }

    /// Shows an error on the panel and on UART0, and stops taking input.
    fn fail(&mut self, code: &str, text: &str) {
        self.stopped = true;
        self.kiosk.set_stream_error(text);
        if self.live {
            // A log line for the gateway, not a device line it refuses.
            self.uart.write_str("#");
        }
        self.uart.write_str("kiosk: error ");
        self.uart.write_str(code);
        self.uart.write_str(": ");
        self.uart.write_str(text);
        self.uart.write_str("\n");
    }

    fn uart_error(&mut self, e: UartError) {
        self.uart.write_str("kiosk: uart ");
        self.uart.write_str(e.as_str());
        self.uart.write_str("\n");
    }

    /// Brings the panel up to date, timing the renderer and the flush.
    fn redraw(&mut self) {
        let start = SYST::get_current();
        let Ok(_) = self
            .kiosk
            .draw(self.client.messages(), self.client.state(), &mut self.panel);
        let drawn = SYST::get_current();
        let flushed = self.panel.flush();
        let end = SYST::get_current();
        self.redraws += 1;
        let n = self.redraws;
        self.note(&[
            (b"redraw ", n),
            (b": render ", ticks(start, drawn)),
            (b" ticks, flush ", ticks(drawn, end)),
            (b" ticks, ", flushed.data_bytes),
            (b" bytes, ", flushed.windows),
        ]);
        self.note_end(b" windows\n");
    }

    /// Heap and stack figures after the stream.
    fn report(&mut self) {
        let peak = u32::try_from(HEAP.peak()).unwrap_or(u32::MAX);
        let used = u32::try_from(HEAP.used()).unwrap_or(u32::MAX);
        let stack = u32::try_from(hw::stack_used()).unwrap_or(u32::MAX);
        self.note(&[
            (b"heap: peak ", peak),
            (b" of ", HEAP_SIZE as u32),
            (b" bytes, in use at the end ", used),
        ]);
        self.note_end(b" bytes\n");
        self.note(&[(b"stack: used ", stack)]);
        self.note_end(b" bytes\n");
    }

    /// Labels and numbers on the semihosting stderr channel.
    fn note(&mut self, parts: &[(&[u8], u32)]) {
        let Some(err) = self.err.as_mut() else {
            return;
        };
        let mut digits = [0u8; 10];
        for &(label, n) in parts {
            let _ = err.write_all(label);
            let _ = err.write_all(text::decimal(n, &mut digits));
        }
    }

    fn note_end(&mut self, tail: &[u8]) {
        if let Some(err) = self.err.as_mut() {
            let _ = err.write_all(tail);
        }
    }
}
