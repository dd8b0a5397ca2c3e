//! Colours: one foreground/background pair per kind of row.

use agui_alloc::model::MessageRole;
use embedded_graphics::pixelcolor::{BinaryColor, Rgb565, Rgb888};
use embedded_graphics::prelude::PixelColor;

/// A foreground and a background colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair<C> {
    /// Glyphs and replacement boxes.
    pub fg: C,
    /// The cell background.
    pub bg: C,
}

impl<C> Pair<C> {
    /// A pair.
    pub const fn new(fg: C, bg: C) -> Self {
        Pair { fg, bg }
    }
}

/// Per-role colours: the header bar and the body text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoleColors<C> {
    /// The header bar that names the role.
    pub header: Pair<C>,
    /// The message text (on the theme's background).
    pub body: C,
}

/// Every colour the renderer uses.
///
/// [`Theme::default`] exists for [`Rgb565`], [`Rgb888`] (a dark palette)
/// and [`BinaryColor`] (monochrome: bars are drawn inverted). Other colour
/// types build one with [`Theme::from_rgb`] or by hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme<C> {
    /// The screen background; body text is drawn on it.
    pub background: C,
    /// Status line before any run.
    pub idle: Pair<C>,
    /// Status line while a run is going.
    pub running: Pair<C>,
    /// Status line after `RUN_FINISHED`.
    pub finished: Pair<C>,
    /// Status line after `RUN_ERROR` or a stream error.
    pub errored: Pair<C>,
    /// The pinned state rows.
    pub state: Pair<C>,
    /// User messages.
    pub user: RoleColors<C>,
    /// Assistant messages.
    pub assistant: RoleColors<C>,
    /// Tool results.
    pub tool: RoleColors<C>,
    /// Reasoning messages.
    pub reasoning: RoleColors<C>,
    /// Activity messages.
    pub activity: RoleColors<C>,
    /// System and developer messages.
    pub system: RoleColors<C>,
    /// A tool call's name line.
    pub tool_name: C,
    /// A tool call's arguments.
    pub tool_args: C,
    /// A tool result's error text.
    pub error: C,
    /// The question of the prompt panel (a person is asked, e.g. to
    /// approve a tool call: [`Kiosk::set_prompt`](crate::Kiosk::set_prompt)).
    pub prompt: Pair<C>,
    /// The prompt panel's row of answers.
    pub prompt_answers: Pair<C>,
}

impl<C: Copy> Theme<C> {
    /// The colours of a role.
    pub fn role(&self, role: MessageRole) -> RoleColors<C> {
        match role {
            MessageRole::User => self.user,
            MessageRole::Assistant => self.assistant,
            MessageRole::Tool => self.tool,
            MessageRole::Reasoning => self.reasoning,
            MessageRole::Activity => self.activity,
            MessageRole::System | MessageRole::Developer => self.system,
        }
    }
}

impl<C: PixelColor + From<Rgb888>> Theme<C> {
    /// The dark colour palette, converted to `C`.
    pub fn from_rgb() -> Self {
        let c = |r, g, b| C::from(Rgb888::new(r, g, b));
        let bg = c(0x10, 0x14, 0x1a);
        let dark = c(0x10, 0x14, 0x1a);
        let white = c(0xff, 0xff, 0xff);
        let role = |header: C, body: C| RoleColors {
            header: Pair::new(dark, header),
            body,
        };
        Theme {
            background: bg,
            idle: Pair::new(white, c(0x4a, 0x4f, 0x57)),
            running: Pair::new(white, c(0x1e, 0x5a, 0xa8)),
            finished: Pair::new(white, c(0x2e, 0x7d, 0x32)),
            errored: Pair::new(white, c(0xc6, 0x28, 0x28)),
            state: Pair::new(c(0xa8, 0xc0, 0xd8), c(0x1e, 0x2a, 0x38)),
            user: role(c(0x8c, 0x9e, 0xff), c(0xe8, 0xea, 0xf6)),
            assistant: role(c(0x4d, 0xd0, 0xc0), c(0xe0, 0xf2, 0xf1)),
            tool: role(c(0xff, 0xc1, 0x4d), c(0xff, 0xe8, 0xb0)),
            reasoning: role(c(0xb3, 0x9d, 0xdb), c(0xa8, 0xa0, 0xc0)),
            activity: role(c(0xff, 0x98, 0x50), c(0xff, 0xd8, 0xb8)),
            system: role(c(0xb0, 0xb0, 0xb0), c(0xd0, 0xd0, 0xd0)),
            tool_name: c(0xff, 0xd5, 0x4f),
            tool_args: c(0x9e, 0xa8, 0xb0),
            error: c(0xff, 0x6b, 0x6b),
            prompt: Pair::new(dark, c(0xff, 0xc1, 0x4d)),
            prompt_answers: Pair::new(white, c(0x6d, 0x4c, 0x00)),
        }
    }
}

impl Theme<BinaryColor> {
    /// Monochrome: text on black, bars inverted.
    pub const fn mono() -> Self {
        let on = BinaryColor::On;
        let off = BinaryColor::Off;
        let bar = Pair::new(off, on);
        let role = RoleColors {
            header: bar,
            body: on,
        };
        Theme {
            background: off,
            idle: bar,
            running: bar,
            finished: bar,
            errored: bar,
            state: Pair::new(on, off),
            user: role,
            assistant: role,
            tool: role,
            reasoning: role,
            activity: role,
            system: role,
            tool_name: on,
            tool_args: on,
            error: on,
            // Inverted as the bars: the question stands out from the text.
            prompt: bar,
            prompt_answers: bar,
        }
    }
}

impl Default for Theme<BinaryColor> {
    fn default() -> Self {
        Theme::mono()
    }
}

impl Default for Theme<Rgb565> {
    fn default() -> Self {
        Theme::from_rgb()
    }
}

impl Default for Theme<Rgb888> {
    fn default() -> Self {
        Theme::from_rgb()
    }
}
