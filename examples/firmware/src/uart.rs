//! A polling driver for the LM3S6965's UART0 (a PL011), with
//! [`embedded_io::Read`] and [`embedded_io::Write`].
//!
//! Receiving polls the RX-FIFO-empty flag. In QEMU nothing is ever lost:
//! the model holds input back while the receiver is full. On silicon the
//! sender does not wait, so a reader that falls behind sees
//! [`UartError::Overrun`] (never a silent gap); [`Uart0::enable_fifos`]
//! gives it 16 byte times of slack.

use core::sync::atomic::{AtomicBool, Ordering};

use crate::hw::{self, Reg};

/// FR: the transmitter is still sending.
const FR_BUSY: u32 = 1 << 3;
/// FR: receive FIFO empty.
const FR_RXFE: u32 = 1 << 4;
/// FR: transmit FIFO full.
const FR_TXFF: u32 = 1 << 5;
/// CTL: UART enable, transmit enable, receive enable.
const CTL_UARTEN: u32 = 1 << 0;
const CTL_TXE: u32 = 1 << 8;
const CTL_RXE: u32 = 1 << 9;
/// LCRH: 8-bit words (WLEN = 0b11), FIFOs on (FEN).
const LCRH_WLEN_8: u32 = 0b11 << 5;
const LCRH_FEN: u32 = 1 << 4;
/// DR error bits: framing, parity, break, overrun.
const DR_FE: u32 = 1 << 8;
const DR_PE: u32 = 1 << 9;
const DR_BE: u32 = 1 << 10;
const DR_OE: u32 = 1 << 11;
/// 115200 baud from the 12 MHz reset clock: 12e6 / (16 * 115200) = 6.51,
/// so IBRD = 6 and FBRD = round(0.51 * 64) = 33. QEMU ignores the rate.
const IBRD_115200: u32 = 6;
const FBRD_115200: u32 = 33;

static TAKEN: AtomicBool = AtomicBool::new(false);

/// A line error reported with a received byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UartError {
    /// The receive FIFO overflowed: bytes were lost.
    Overrun,
    /// A byte without a valid stop bit.
    Framing,
    /// A parity mismatch.
    Parity,
    /// The line was held low (break).
    Break,
}

impl UartError {
    /// A short machine-readable name (`"overrun"`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            UartError::Overrun => "overrun",
            UartError::Framing => "framing",
            UartError::Parity => "parity",
            UartError::Break => "break",
        }
    }
}

impl core::fmt::Display for UartError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::error::Error for UartError {}

impl embedded_io::Error for UartError {
    fn kind(&self) -> embedded_io::ErrorKind {
        embedded_io::ErrorKind::Other
    }
}

/// UART0: 8N1, 115200 baud, FIFOs off until [`Uart0::enable_fifos`].
/// Only one exists ([`Uart0::take`]).
#[derive(Debug)]
pub struct Uart0 {
    _owned: (),
}

impl Uart0 {
    /// Configures and returns UART0 the first time; `None` after that.
    pub fn take() -> Option<Self> {
        if TAKEN.swap(true, Ordering::AcqRel) {
            return None;
        }
        hw::enable_uart0_clock();
        // The line settings may only change while the UART is disabled.
        hw::write(Reg::Ctl, 0);
        hw::write(Reg::Ibrd, IBRD_115200);
        hw::write(Reg::Fbrd, FBRD_115200);
        // FIFOs stay off here: turning them on empties the receive FIFO,
        // and QEMU's model receives from power-on, so a byte that arrived
        // during boot would be lost. See `enable_fifos`.
        hw::write(Reg::Lcrh, LCRH_WLEN_8);
        hw::write(Reg::Ctl, CTL_UARTEN | CTL_TXE | CTL_RXE);
        Some(Uart0 { _owned: () })
    }

    /// Turns on the 16-byte FIFOs, which gives a polling loop 16 byte times
    /// (1.4 ms at 115200 baud) instead of one between reads. Any byte
    /// already received is discarded, so call it before the host sends
    /// (on silicon: before announcing readiness). Not needed in QEMU,
    /// which holds input back while the receiver is full.
    pub fn enable_fifos(&mut self) {
        hw::write(Reg::Ctl, 0);
        hw::write(Reg::Lcrh, LCRH_WLEN_8 | LCRH_FEN);
        hw::write(Reg::Ctl, CTL_UARTEN | CTL_TXE | CTL_RXE);
    }

    /// Sends one byte, waiting while the transmit FIFO is full.
    pub fn write_byte(&mut self, byte: u8) {
        while hw::read(Reg::Fr) & FR_TXFF != 0 {}
        hw::write(Reg::Dr, u32::from(byte));
    }

    /// Sends all of `bytes`.
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_byte(b);
        }
    }

    /// Sends a string.
    pub fn write_str(&mut self, s: &str) {
        self.write_bytes(s.as_bytes());
    }

    /// Sends a number in decimal.
    pub fn write_u32(&mut self, n: u32) {
        let mut digits = [0u8; 10];
        self.write_bytes(crate::text::decimal(n, &mut digits));
    }

    /// Takes one received byte if there is one.
    pub fn try_read_byte(&mut self) -> Option<Result<u8, UartError>> {
        if hw::read(Reg::Fr) & FR_RXFE != 0 {
            return None;
        }
        let dr = hw::read(Reg::Dr);
        let status = if dr & DR_OE != 0 {
            Err(UartError::Overrun)
        } else if dr & DR_BE != 0 {
            Err(UartError::Break)
        } else if dr & DR_FE != 0 {
            Err(UartError::Framing)
        } else if dr & DR_PE != 0 {
            Err(UartError::Parity)
        } else {
            // Bits 0..=7 are the data byte.
            Ok(dr as u8)
        };
        Some(status)
    }

    /// Waits for one received byte.
    pub fn read_byte(&mut self) -> Result<u8, UartError> {
        loop {
            if let Some(b) = self.try_read_byte() {
                return b;
            }
        }
    }
}

impl embedded_io::ErrorType for Uart0 {
    type Error = UartError;
}

impl embedded_io::Read for Uart0 {
    /// Waits for the first byte, then takes whatever else is already in
    /// the FIFO without waiting (the `embedded-io` contract).
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, UartError> {
        let Some((first, rest)) = buf.split_first_mut() else {
            return Ok(0);
        };
        *first = self.read_byte()?;
        let mut n = 1;
        for slot in rest {
            match self.try_read_byte() {
                Some(b) => *slot = b?,
                None => break,
            }
            n += 1;
        }
        Ok(n)
    }
}

impl embedded_io::Write for Uart0 {
    fn write(&mut self, buf: &[u8]) -> Result<usize, UartError> {
        self.write_bytes(buf);
        Ok(buf.len())
    }

    /// Waits until the last byte has left the shift register (BUSY clear),
    /// e.g. before the firmware exits or sleeps.
    fn flush(&mut self) -> Result<(), UartError> {
        while hw::read(Reg::Fr) & FR_BUSY != 0 {}
        Ok(())
    }
}

/// An [`embedded_io::Read`] that ends (returns 0) at the first `0x04`
/// (EOT) byte, which it does not pass on; bytes after it that arrived in
/// the same read are dropped, later ones are left unread.
#[derive(Debug)]
pub struct UntilEot<'a, R> {
    inner: &'a mut R,
    ended: bool,
}

/// The end-of-input byte of the serial protocol.
pub const EOT: u8 = 0x04;

impl<'a, R: embedded_io::Read> UntilEot<'a, R> {
    /// Wraps `inner`.
    pub fn new(inner: &'a mut R) -> Self {
        UntilEot {
            inner,
            ended: false,
        }
    }

    /// True once EOT was read.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Reads and drops input up to and including EOT (after the pipeline
    /// stopped early), so that the verdict answers the whole stream. Line
    /// errors are dropped too: only EOT ends the stream.
    pub fn drain(&mut self) {
        let mut scratch = [0u8; 16];
        while !self.ended {
            let _ = embedded_io::Read::read(self, &mut scratch);
        }
    }
}

impl<R: embedded_io::Read> embedded_io::ErrorType for UntilEot<'_, R> {
    type Error = R::Error;
}

impl<R: embedded_io::Read> embedded_io::Read for UntilEot<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, R::Error> {
        if self.ended || buf.is_empty() {
            return Ok(0);
        }
        let n = self.inner.read(buf)?;
        let got = buf.get(..n).unwrap_or_default();
        match got.iter().position(|&b| b == EOT) {
            Some(at) => {
                self.ended = true;
                Ok(at)
            }
            None => Ok(n),
        }
    }
}

/// Writes `kiosk: error heap_exhausted: ...` for a failed allocation on
/// UART0 without owning it: for the panic handler only, when nothing else
/// will use the UART again.
#[cfg(feature = "kiosk")]
pub fn alloc_failure_line(size: usize, heap: usize) {
    let mut uart = Uart0 { _owned: () };
    uart.write_str("kiosk: error heap_exhausted: an allocation of ");
    uart.write_u32(u32::try_from(size).unwrap_or(u32::MAX));
    uart.write_str(" bytes failed (heap of ");
    uart.write_u32(u32::try_from(heap).unwrap_or(u32::MAX));
    uart.write_str(" bytes)\n");
}
