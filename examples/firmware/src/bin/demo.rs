//! Demo: replays a conversation stored in flash through the core pipeline,
//! prints every verified event on UART0, decodes the `set_led` tool call's
//! arguments into a typed struct, writes the tool result the device would
//! send back, reports the peak stack use and exits with status 0.
#![no_std]
#![no_main]
#![deny(unsafe_code)]

use agui_core::io::TransportError;
use agui_core::reply::{tool_result, ToolArgs};
use agui_core::{DefaultPipeline, Output};
use agui_firmware::uart::{Uart0, UartError};
use agui_firmware::{exit, hw};
use cortex_m_rt::entry;
use serde::Deserialize;

/// The stream: RUN_STARTED, a streamed text message, a `set_led` tool call
/// with streamed arguments, a TEXT_MESSAGE_CHUNK, RUN_FINISHED.
static STREAM: &[u8] = include_bytes!("../../demo.ndjson");

/// The stream is fed in pieces of this size, as a UART driver would.
const PIECE: usize = 64;

/// The tool's typed arguments.
#[derive(Deserialize)]
struct SetLed<'a> {
    color: &'a str,
    on: bool,
}

#[entry]
fn main() -> ! {
    let Some(mut uart) = Uart0::take() else {
        exit(false)
    };
    let mut pipeline = DefaultPipeline::new();
    let mut args = ToolArgs::<128>::new();
    let mut events = 0u32;
    let mut call_done = false;
    let mut args_ok = true;

    let mut on_output = |out: Output<'_>| {
        if let Output::Event(ev) = &out {
            events += 1;
            print_event(&mut uart, ev);
        }
        match args.on_output(&out) {
            Ok(done) => call_done |= done,
            Err(_) => args_ok = false,
        }
    };
    let mut result = Ok(());
    for piece in STREAM.chunks(PIECE) {
        result = pipeline.feed(piece, &mut on_output);
        if result.is_err() {
            break;
        }
    }
    if result.is_ok() {
        result = pipeline.finish(&mut on_output);
    }

    let run: Result<u32, TransportError<UartError>> = result
        .map(|()| pipeline.accepted())
        .map_err(TransportError::Protocol);
    let verdict = agui_firmware::verdict::Verdict::new(&run, pipeline.accepted());
    uart.write_str("summary: ");
    uart.write_str(if verdict.is_ok() { "ok" } else { "error" });
    uart.write_str(" accepted=");
    uart.write_u32(pipeline.accepted());
    uart.write_str(" events=");
    uart.write_u32(events);
    uart.write_str("\n");
    if !verdict.is_ok() {
        verdict.write(&mut uart);
    }

    let led_ok = call_done && args_ok && act_on_set_led(&mut uart, &args);

    uart.write_str("pipeline: ");
    uart.write_u32(size_of::<DefaultPipeline>() as u32);
    uart.write_str(" bytes of state\n");
    uart.write_str("stack: used ");
    uart.write_u32(u32::try_from(hw::stack_used()).unwrap_or(u32::MAX));
    uart.write_str(" bytes\n");
    exit(verdict.is_ok() && led_ok)
}

/// `#<frame> <TYPE> <id>`, e.g. `#2 TEXT_MESSAGE_CONTENT m1`.
fn print_event(uart: &mut Uart0, ev: &agui_core::EventRef<'_>) {
    #[cfg(feature = "defmt")]
    defmt::println!("{}", ev);
    uart.write_str("#");
    uart.write_u32(ev.frame);
    uart.write_str(" ");
    uart.write_str(ev.kind.as_str());
    if !ev.id.is_empty() {
        uart.write_str(" ");
        uart.write_str(ev.id);
    }
    uart.write_str("\n");
}

/// Decodes the finished `set_led` call, says what it would do, and prints
/// the TOOL_CALL_RESULT the device would send back. False on any failure.
fn act_on_set_led<const N: usize>(uart: &mut Uart0, args: &ToolArgs<N>) -> bool {
    if args.name() != "set_led" {
        return false;
    }
    let mut scratch = [0u8; 32];
    let Ok(led) = args.parse::<SetLed<'_>>(&mut scratch) else {
        return false;
    };
    uart.write_str("set_led: color=");
    uart.write_str(led.color);
    uart.write_str(if led.on { " on=true\n" } else { " on=false\n" });

    let mut reply = [0u8; 160];
    let content = if led.on { "LED on" } else { "LED off" };
    let Ok(n) = tool_result(&mut reply, "res-1", args.id(), content) else {
        return false;
    };
    uart.write_str("reply: ");
    uart.write_bytes(reply.get(..n).unwrap_or_default());
    uart.write_str("\n");
    true
}
