//! agui-kiosk: the live AG-UI conversation on a small screen.
//!
//! [`Kiosk`] draws the messages and state that `agui-alloc`'s reducer folds
//! from a stream onto any [`embedded_graphics`] `DrawTarget`, and keeps the
//! picture up to date while the stream goes on:
//!
//! - one block per message: a header bar naming the role (user, assistant,
//!   tool result, reasoning, activity, system), then the text wrapped at the
//!   panel width; tool calls show their name and their arguments as they
//!   stream;
//! - a status line (idle / running / finished / interrupted / error, the
//!   current step) and optional rows for the shared state;
//! - a prompt panel ([`Kiosk::set_prompt`]) asks the person a question
//!   (an agent's interrupt) at the bottom, with a row of answers that keys
//!   or a touch ([`Kiosk::prompt_choice_at`]) pick;
//! - the newest content stays in view: the conversation scrolls to the
//!   bottom, in steps of [`Config::scroll_step`] rows;
//! - text is drawn with `embedded-graphics` mono fonts; a character the font
//!   lacks is drawn as a box (never dropped), long words are broken, and
//!   every character takes one cell, so emoji and CJK cannot upset the
//!   layout.
//!
//! # Incremental redraw
//!
//! A streaming reply arrives a few characters at a time, and a small
//! microcontroller cannot repaint a panel per event. Each [`Kiosk::draw`]:
//!
//! 1. compares each message with its laid-out block by lengths, names and
//!    ids; appended text is wrapped again from the start of its last line
//!    only ([`wrap`] explains why that is exact), anything else rebuilds
//!    that block, and inserted messages (tool results) get new blocks
//!    without touching the others;
//! 2. gives every line a revision that changes when the line may have
//!    changed, and keeps a shadow of the panel: one code per character cell
//!    and the revision shown on each row;
//! 3. visits the rows whose revision changed and draws only the cells whose
//!    code differs (a row is filled edge to edge only when its background
//!    colour changes).
//!
//! So a text delta costs its own cells (plus the cells of a word that moves
//! to the next line), and a scroll, which moves every line, costs a repaint
//! of the cells that differ, once per scroll step.
//!
//! `no_std` + `alloc`; [`framebuffer::Framebuffer`] is an in-memory target
//! for host tools and tests.
#![no_std]
// Test code may unwrap, index and panic: a failing test should.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]
#![forbid(unsafe_code)]
extern crate alloc;

pub mod config;
pub mod framebuffer;
mod kiosk;
mod layout;
pub mod status;
pub mod theme;
pub mod wrap;

pub use config::Config;
pub use kiosk::{Choice, DrawStats, Kiosk, Viewport};
pub use status::{RunState, Status};
pub use theme::Theme;
