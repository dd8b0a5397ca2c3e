//! Panel size, font and layout choices.

use core::ops::RangeInclusive;

use embedded_graphics::geometry::Size;
use embedded_graphics::mono_font::{iso_8859_1, MonoFont};

/// The characters a font has glyphs for. Anything else is drawn as a
/// replacement box.
///
/// A `MonoFont`'s own glyph mapping cannot say "missing" (it maps unknown
/// characters to its replacement glyph silently, and its lookup is a linear
/// scan), so the renderer keeps this cheap range list beside the font.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charset {
    /// Printable ASCII, `' '..='~'` (the `ascii` fonts).
    Ascii,
    /// Printable Latin-1, ASCII plus `'\u{A0}'..='ÿ'` (the `iso_8859_1` fonts).
    Latin1,
    /// Any set of ranges.
    Ranges(&'static [RangeInclusive<char>]),
}

impl Charset {
    /// Whether the font has a glyph for `c`.
    ///
    /// ```
    /// use agui_kiosk::config::Charset;
    /// assert!(Charset::Latin1.contains('é'));
    /// assert!(!Charset::Ascii.contains('é'));
    /// assert!(!Charset::Latin1.contains('日'));
    /// ```
    pub fn contains(self, c: char) -> bool {
        match self {
            Charset::Ascii => (' '..='~').contains(&c),
            Charset::Latin1 => (' '..='~').contains(&c) || ('\u{A0}'..='ÿ').contains(&c),
            Charset::Ranges(ranges) => ranges.iter().any(|r| r.contains(&c)),
        }
    }
}

/// How the panel is laid out.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// The panel size in pixels.
    pub size: Size,
    /// The font; every row is one character high.
    pub font: &'static MonoFont<'static>,
    /// What the font covers.
    pub charset: Charset,
    /// Blank pixels left of the text, and at least as many right of it.
    pub padding: u32,
    /// Rows under the status line that show the shared state (0: none).
    pub state_rows: u32,
    /// The view scrolls in steps of this many rows (at least 1), so that a
    /// streaming reply forces a full redraw once per step, not once per line.
    pub scroll_step: u32,
}

impl Config {
    /// Defaults for a panel of `size`: the Latin-1 6x10 font and two state
    /// rows on panels of 240x160 and more; the Latin-1 5x8 font and no state
    /// rows on smaller ones (a 128x64 OLED then shows 25 columns and 8
    /// rows). The scroll step is about a quarter of the conversation rows.
    ///
    /// ```
    /// use agui_kiosk::config::Config;
    /// use embedded_graphics::geometry::Size;
    ///
    /// let c = Config::new(Size::new(320, 240));
    /// assert_eq!((c.columns(), c.rows()), (52, 24));
    /// let c = Config::new(Size::new(128, 64));
    /// assert_eq!((c.columns(), c.rows()), (25, 8));
    /// ```
    pub fn new(size: Size) -> Self {
        let large = size.width >= 240 && size.height >= 160;
        let mut config = if large {
            Config {
                size,
                font: &iso_8859_1::FONT_6X10,
                charset: Charset::Latin1,
                padding: 2,
                state_rows: 2,
                scroll_step: 1,
            }
        } else {
            Config {
                size,
                font: &iso_8859_1::FONT_5X8,
                charset: Charset::Latin1,
                padding: 1,
                state_rows: 0,
                scroll_step: 1,
            }
        };
        // Rounded up: a 7-row OLED view scrolls 2 rows at a time, not 1.
        config.scroll_step = (config.content_rows().saturating_add(2) / 4).max(1);
        config
    }

    /// Width of one cell in pixels.
    pub fn cell_width(&self) -> u32 {
        self.font
            .character_size
            .width
            .saturating_add(self.font.character_spacing)
            .max(1)
    }

    /// Height of one row in pixels.
    pub fn row_height(&self) -> u32 {
        self.font.character_size.height.max(1)
    }

    /// Text columns (at least 1).
    pub fn columns(&self) -> u32 {
        let room = self
            .size
            .width
            .saturating_sub(self.padding.saturating_mul(2));
        (room / self.cell_width()).max(1)
    }

    /// Rows on the panel, status line included.
    pub fn rows(&self) -> u32 {
        self.size.height / self.row_height()
    }

    /// Rows of the scrolling conversation.
    pub fn content_rows(&self) -> u32 {
        self.rows()
            .saturating_sub(1)
            .saturating_sub(self.state_rows)
    }
}
