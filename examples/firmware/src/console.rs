//! The person at the device: a console on UART1 (8N1, polled), where the
//! `agent` firmware shows an agent's question and reads the answer, a line
//! of text standing in for a button (docs/SPEC.md section 11, `RESUME`).
//!
//! In QEMU, UART1 is the board's second `-serial` (e.g.
//! `-serial tcp:127.0.0.1:PORT,server=on` for a test, or `-serial stdio`
//! for a person). UART0 stays the gateway's line.

use core::sync::atomic::{AtomicBool, Ordering};

use agui_core::reply::Question;

use crate::hw::{self, Reg};

/// FR: receive FIFO empty; transmit FIFO full.
const FR_RXFE: u32 = 1 << 4;
const FR_TXFF: u32 = 1 << 5;
/// CTL: UART enable, transmit enable, receive enable.
const CTL_ON: u32 = 1 | 1 << 8 | 1 << 9;
/// LCRH: 8-bit words.
const LCRH_WLEN_8: u32 = 0b11 << 5;
/// DR error bits (framing, parity, break, overrun): the byte is not used.
const DR_ERRORS: u32 = 0xF << 8;

/// Longest answer line kept; a longer one is not an answer.
const ANSWER: usize = 16;

static TAKEN: AtomicBool = AtomicBool::new(false);

/// UART1, the person's console. Only one exists ([`Console::take`]).
#[derive(Debug)]
pub struct Console {
    _owned: (),
}

impl Console {
    /// Configures and returns UART1 the first time; `None` after that.
    pub fn take() -> Option<Self> {
        if TAKEN.swap(true, Ordering::AcqRel) {
            return None;
        }
        hw::enable_uart1_clock();
        hw::write_uart1(Reg::Ctl, 0);
        // 115200 baud from the 12 MHz reset clock, as UART0.
        hw::write_uart1(Reg::Ibrd, 6);
        hw::write_uart1(Reg::Fbrd, 33);
        hw::write_uart1(Reg::Lcrh, LCRH_WLEN_8);
        hw::write_uart1(Reg::Ctl, CTL_ON);
        Some(Console { _owned: () })
    }

    /// Shows `text`.
    pub fn write_str(&mut self, text: &str) {
        for &b in text.as_bytes() {
            while hw::read_uart1(Reg::Fr) & FR_TXFF != 0 {}
            hw::write_uart1(Reg::Dr, u32::from(b));
        }
    }

    /// Waits for one byte; a byte received with a line error is `None`.
    fn read_byte(&mut self) -> Option<u8> {
        while hw::read_uart1(Reg::Fr) & FR_RXFE != 0 {}
        let dr = hw::read_uart1(Reg::Dr);
        // Bits 0..=7 are the data byte.
        (dr & DR_ERRORS == 0).then_some(dr as u8)
    }

    /// Waits for a line; `Some(true)` for `y`/`yes`, `Some(false)` for
    /// `n`/`no` (any case, spaces around), `None` for anything else (a
    /// line with a damaged byte or longer than 16 bytes included). A line
    /// ends with CR or LF (a terminal in raw mode sends CR for Enter); an
    /// empty line is skipped, so CR LF is one line end.
    fn read_yes_no(&mut self) -> Option<bool> {
        let mut line = [0u8; ANSWER];
        let mut len = 0usize;
        let mut bad = false;
        loop {
            match self.read_byte() {
                Some(b'\n' | b'\r') if len == 0 && !bad => {}
                Some(b'\n' | b'\r') => break,
                Some(b) => match line.get_mut(len) {
                    Some(slot) => {
                        *slot = b.to_ascii_lowercase();
                        len += 1;
                    }
                    None => bad = true,
                },
                None => bad = true,
            }
        }
        match (bad, line.get(..len).unwrap_or_default().trim_ascii()) {
            (false, b"y" | b"yes") => Some(true),
            (false, b"n" | b"no") => Some(false),
            _ => None,
        }
    }

    /// Shows the question and asks until the person answers yes or no.
    pub fn ask<const S: usize>(&mut self, question: &Question<S>) -> bool {
        let text = question.message.as_deref().unwrap_or(&question.reason);
        loop {
            self.write_str(text);
            self.write_str(" [y/n] ");
            if let Some(yes) = self.read_yes_no() {
                self.write_str(if yes { "approved\r\n" } else { "denied\r\n" });
                return yes;
            }
            self.write_str("answer y or n\r\n");
        }
    }
}
