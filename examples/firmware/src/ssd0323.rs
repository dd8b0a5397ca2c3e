//! A register-level driver for the board's 128x64 OLED: a Solomon SSD0323
//! controller (4-bit grey levels) on SSI0, with GPIO C7 as its
//! data/command line and GPIO D0 as the SD card's chip select.
//!
//! The controller's memory holds 64 columns of bytes per row; each byte is
//! two pixels, the left one in the high nibble. A write goes to a window
//! (a column range in bytes and a row range) and the address advances
//! along the row, then to the next row, so a rectangle is one window
//! command and its bytes in order.
//!
//! Only commands that QEMU's SSD0323 model understands are sent. On silicon
//! the panel maker's timing values (phase length, row period, clock,
//! precharge, VCOMH, grey scale table) belong in [`INIT`] as well; QEMU
//! ignores them, and this driver has been run in QEMU only.

use core::ops::RangeInclusive;
use core::sync::atomic::{AtomicBool, Ordering};

use crate::hw::{self, GpioReg, Port, SsiReg};

/// Width of the panel in pixels.
pub const WIDTH: u32 = 128;
/// Height of the panel in pixels.
pub const HEIGHT: u32 = 64;
/// Bytes per row of controller memory (two pixels per byte).
pub const ROW_BYTES: u8 = (WIDTH / 2) as u8;

/// GPIO C7: low = command bytes, high = display data.
const DC_PIN: u8 = 1 << 7;
/// GPIO D0: the SD card's chip select (active low), held high so that the
/// card ignores the bus. QEMU splits this line to the OLED's select
/// (active high), which is the model's stand-in for the real Fss wiring.
const SD_CS_PIN: u8 = 1 << 0;
/// Port A's SSI0 pins: clock (A2), frame signal (A3), RX (A4), TX (A5).
const SSI_PINS: u8 = 0b0011_1100;

/// SSI status bits.
const SR_TNF: u32 = 1 << 1;
const SR_RNE: u32 = 1 << 2;
const SR_TFE: u32 = 1 << 0;
const SR_BSY: u32 = 1 << 4;
/// SSI control: SPI mode 3 (SPO = SPH = 1), Motorola frames, 8-bit data.
const CR0_MODE3_8BIT: u32 = (1 << 7) | (1 << 6) | 0x7;
/// SSI control: port enabled, master.
const CR1_SSE: u32 = 1 << 1;

/// Set column address: first and last byte column.
const CMD_COLUMNS: u8 = 0x15;
/// Set row address: first and last row.
const CMD_ROWS: u8 = 0x75;

/// Power-on commands: display off, horizontal address increment (remap
/// bit 2 clear; 0x52 also sets the COM split and nibble order the panel
/// is wired for), 64 multiplexed rows, start line and offset 0, normal
/// (not inverted) display, contrast, full current range, display on.
pub const INIT: &[u8] = &[
    0xAE, // display off
    0xA0, 0x52, // remap
    0xA8, 0x3F, // multiplex ratio: 64 rows
    0xA1, 0x00, // display start line
    0xA2, 0x00, // display offset
    0xA4, // normal display
    0x81, 0x33, // contrast
    0x86, // full current range
    0xAF, // display on
];

static TAKEN: AtomicBool = AtomicBool::new(false);

/// The OLED controller, owned once.
#[derive(Debug)]
pub struct Ssd0323 {
    /// The data/command line is high (data).
    data_mode: bool,
    /// Bytes sent over SSI since [`take`](Self::take), commands included.
    sent: u64,
}

impl Ssd0323 {
    /// Configures the pins and SSI0, initialises the controller and clears
    /// the display, the first time; `None` after that.
    pub fn take() -> Option<Self> {
        if TAKEN.swap(true, Ordering::AcqRel) {
            return None;
        }
        hw::enable_oled_clocks();
        hw::gpio_set_bits(Port::A, GpioReg::Afsel, SSI_PINS);
        hw::gpio_set_bits(Port::A, GpioReg::Den, SSI_PINS);
        for (port, pin) in [(Port::C, DC_PIN), (Port::D, SD_CS_PIN)] {
            hw::gpio_set_bits(port, GpioReg::Dir, pin);
            hw::gpio_set_bits(port, GpioReg::Den, pin);
        }
        hw::gpio_write_pins(Port::D, SD_CS_PIN, true);
        hw::gpio_write_pins(Port::C, DC_PIN, false);

        hw::ssi_write(SsiReg::Cr1, 0);
        hw::ssi_write(SsiReg::Cr0, CR0_MODE3_8BIT);
        hw::ssi_write(SsiReg::Cpsr, 2);
        hw::ssi_write(SsiReg::Cr1, CR1_SSE);

        let mut oled = Ssd0323 {
            data_mode: false,
            sent: 0,
        };
        oled.commands(INIT);
        oled.clear();
        Some(oled)
    }

    /// Bytes sent over SSI so far (commands and data).
    pub fn bytes_sent(&self) -> u64 {
        self.sent
    }

    /// Sends command bytes.
    pub fn commands(&mut self, bytes: &[u8]) {
        self.set_data_mode(false);
        for &b in bytes {
            self.send(b);
        }
    }

    /// Selects the window that the next data bytes fill: byte columns
    /// (two pixels each, `0..=63`) and rows (`0..=63`).
    pub fn window(&mut self, columns: RangeInclusive<u8>, rows: RangeInclusive<u8>) {
        self.commands(&[
            CMD_COLUMNS,
            *columns.start(),
            *columns.end(),
            CMD_ROWS,
            *rows.start(),
            *rows.end(),
        ]);
    }

    /// Sends one byte of display data (two pixels) to the window.
    pub fn data(&mut self, byte: u8) {
        self.set_data_mode(true);
        self.send(byte);
    }

    /// Blanks the whole display.
    pub fn clear(&mut self) {
        let last_row = (HEIGHT - 1) as u8;
        self.window(0..=ROW_BYTES - 1, 0..=last_row);
        for _ in 0..u32::from(ROW_BYTES) * HEIGHT {
            self.data(0);
        }
    }

    /// Switches the data/command line, after the bytes in flight are out
    /// (the controller samples the line with each byte's last bit).
    fn set_data_mode(&mut self, data: bool) {
        if self.data_mode != data {
            self.settle();
            hw::gpio_write_pins(Port::C, DC_PIN, data);
            self.data_mode = data;
        }
    }

    /// Queues one byte, discarding what the controller clocks back (it
    /// sends nothing useful, and a full receive FIFO would stall the port).
    fn send(&mut self, byte: u8) {
        while hw::ssi_read(SsiReg::Sr) & SR_TNF == 0 {
            Self::drain();
        }
        hw::ssi_write(SsiReg::Dr, u32::from(byte));
        Self::drain();
        self.sent = self.sent.saturating_add(1);
    }

    /// Waits until the transmit FIFO is empty and the port idle.
    fn settle(&mut self) {
        loop {
            Self::drain();
            let sr = hw::ssi_read(SsiReg::Sr);
            if sr & SR_TFE != 0 && sr & SR_BSY == 0 {
                break;
            }
        }
        Self::drain();
    }

    /// Empties the receive FIFO.
    fn drain() {
        while hw::ssi_read(SsiReg::Sr) & SR_RNE != 0 {
            let _ = hw::ssi_read(SsiReg::Dr);
        }
    }
}
