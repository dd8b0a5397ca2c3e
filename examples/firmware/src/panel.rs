//! The OLED as an embedded-graphics `DrawTarget`: a 1-bit shadow of the
//! panel in RAM (1 KB) and, per row, the span of byte columns that changed
//! since the last [`Panel::flush`].
//!
//! A draw only touches the shadow; `flush` sends the changed spans, rows
//! with changes next to each other as one window (one 6-byte command and
//! the window's bytes), so the SSI traffic of a redraw follows the pixels
//! that really changed, not the pixels the renderer visited.

use core::convert::Infallible;

use embedded_graphics::pixelcolor::BinaryColor;
use embedded_graphics::prelude::{DrawTarget, OriginDimensions, Pixel, Size};

use crate::ssd0323::{Ssd0323, HEIGHT, WIDTH};

const ROWS: usize = HEIGHT as usize;
/// Shadow bytes per row (8 pixels each).
const SHADOW_ROW: usize = (WIDTH / 8) as usize;
/// Grey level of a lit pixel (the brightest of the controller's 16).
const ON: u8 = 0xF;

/// A span of controller byte columns, `first..=last`; empty when
/// `first > last`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    first: u8,
    last: u8,
}

impl Span {
    const EMPTY: Span = Span {
        first: u8::MAX,
        last: 0,
    };

    fn is_empty(self) -> bool {
        self.first > self.last
    }

    fn add(&mut self, column: u8) {
        self.first = self.first.min(column);
        self.last = self.last.max(column);
    }

    fn union(self, other: Span) -> Span {
        Span {
            first: self.first.min(other.first),
            last: self.last.max(other.last),
        }
    }
}

/// What one [`Panel::flush`] sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flushed {
    /// Windows (runs of adjacent changed rows).
    pub windows: u32,
    /// Display data bytes (two pixels each).
    pub data_bytes: u32,
}

/// The OLED behind a shadow buffer with change tracking.
#[derive(Debug)]
pub struct Panel {
    oled: Ssd0323,
    shadow: [[u8; SHADOW_ROW]; ROWS],
    dirty: [Span; ROWS],
}

impl Panel {
    /// A blank panel (the driver clears the display when taken).
    pub fn new(oled: Ssd0323) -> Self {
        Panel {
            oled,
            shadow: [[0; SHADOW_ROW]; ROWS],
            dirty: [Span::EMPTY; ROWS],
        }
    }

    /// The driver, e.g. for its byte count.
    pub fn oled(&self) -> &Ssd0323 {
        &self.oled
    }

    /// Sends every changed span to the display.
    pub fn flush(&mut self) -> Flushed {
        let mut out = Flushed::default();
        let mut row = 0;
        while row < ROWS {
            if self.dirty[row].is_empty() {
                row += 1;
                continue;
            }
            let first_row = row;
            let mut span = Span::EMPTY;
            while row < ROWS && !self.dirty[row].is_empty() {
                span = span.union(self.dirty[row]);
                self.dirty[row] = Span::EMPTY;
                row += 1;
            }
            out.windows += 1;
            out.data_bytes += self.send_window(first_row..row, span);
        }
        out
    }

    /// Sends rows `rows` of the shadow, byte columns `span`; returns the
    /// data bytes sent.
    fn send_window(&mut self, rows: core::ops::Range<usize>, span: Span) -> u32 {
        // Both ranges are inside the panel: rows < 64, columns < 64.
        let (top, bottom) = (rows.start as u8, (rows.end - 1) as u8);
        self.oled.window(span.first..=span.last, top..=bottom);
        let mut sent = 0;
        for row in rows {
            for column in span.first..=span.last {
                let byte = self.pair(row, column);
                self.oled.data(byte);
                sent += 1;
            }
        }
        sent
    }

    /// The controller byte for two pixels: left one in the high nibble.
    fn pair(&self, row: usize, column: u8) -> u8 {
        let x = usize::from(column) * 2;
        let bits = self.shadow[row][x / 8];
        let left = bits & (0x80 >> (x % 8)) != 0;
        let right = bits & (0x80 >> (x % 8 + 1)) != 0;
        (if left { ON << 4 } else { 0 }) | if right { ON } else { 0 }
    }

    fn set(&mut self, x: usize, y: usize, on: bool) {
        let mask = 0x80 >> (x % 8);
        let byte = &mut self.shadow[y][x / 8];
        if (*byte & mask != 0) != on {
            *byte ^= mask;
            // x < 128, so the byte column fits.
            self.dirty[y].add((x / 2) as u8);
        }
    }
}

impl OriginDimensions for Panel {
    fn size(&self) -> Size {
        Size::new(WIDTH, HEIGHT)
    }
}

impl DrawTarget for Panel {
    type Color = BinaryColor;
    type Error = Infallible;

    fn draw_iter<I>(&mut self, pixels: I) -> Result<(), Self::Error>
    where
        I: IntoIterator<Item = Pixel<Self::Color>>,
    {
        for Pixel(p, color) in pixels {
            let (Ok(x), Ok(y)) = (usize::try_from(p.x), usize::try_from(p.y)) else {
                continue;
            };
            if x < WIDTH as usize && y < ROWS {
                self.set(x, y, color.is_on());
            }
        }
        Ok(())
    }
}
