//! The device's side of the gateway line protocol (docs/SPEC.md, "Device
//! line protocol") on UART0.
//!
//! The protocol itself lives in `agui_core::device`, tested there once
//! and shared with `agui-gateway`: [`Router`] splits what the gateway sends
//! (NDJSON events, and its own lines starting with `!`) without buffering
//! the events, and [`GatewayLine`] reads an `!error` line. This module
//! writes the device's lines to the UART.

use agui_core::device::{write_log, DONE, HELLO, RUN};
pub use agui_core::device::{GatewayLine, Piece, Router, GATEWAY, GATEWAY_LINE};

use crate::uart::Uart0;

/// Asks the gateway for a run.
pub fn run(uart: &mut Uart0) {
    uart.write_str(RUN);
    uart.write_str("\n");
}

/// Tells the gateway the device (re)started: it answers with a
/// resynchronising run of the conversation so far (empty at first).
pub fn hello(uart: &mut Uart0) {
    uart.write_str(HELLO);
    uart.write_str("\n");
}

/// Tells the gateway the device is finished.
pub fn done(uart: &mut Uart0) {
    uart.write_str(DONE);
    uart.write_str("\n");
}

/// One `#` log line made of `parts` (line breaks in them escaped), which
/// the gateway prints on its standard output.
pub fn log(uart: &mut Uart0, parts: &[&str]) {
    write_log(parts, |bytes| uart.write_bytes(bytes));
}
