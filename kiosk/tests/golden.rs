//! Screenshots against golden images, and the scroll-to-bottom contract.
//!
//! Regenerate the images with `UPDATE_GOLDEN=1 cargo test -p agui-kiosk
//! --test golden`, then look at them before committing.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use agui_kiosk::{RunState, Theme};
use common::*;
use embedded_graphics::pixelcolor::{BinaryColor, Rgb565};
use embedded_graphics::prelude::*;

#[test]
fn sample_colour_matches_its_golden_image() {
    let r = colour(&sample());
    assert!(r.client.error().is_none(), "{:?}", r.client.error());
    assert_eq!(r.kiosk.status().run, RunState::Finished);
    check_golden("sample-320x240", &r.panel);
}

#[test]
fn sample_mono_matches_its_golden_image() {
    let r = mono(&sample());
    check_golden("sample-128x64", &r.panel);
}

#[test]
fn long_reply_colour_matches_its_golden_image() {
    let r = colour(&long_reply());
    assert!(r.client.error().is_none(), "{:?}", r.client.error());
    check_golden("long-320x240", &r.panel);
}

#[test]
fn long_reply_mono_matches_its_golden_image() {
    let r = mono(&long_reply());
    check_golden("long-128x64", &r.panel);
}

/// The view scrolled, the last message's last row is on the panel, and
/// something is drawn on that row.
fn assert_last_message_visible<C: PixelColor>(r: &Replay<C>, bg: C) {
    let (kiosk, panel) = (&r.kiosk, &r.panel);
    let n = r.client.messages().len();
    let view = kiosk.viewport();
    assert!(
        view.first > 0,
        "the long reply must have scrolled: {view:?}"
    );
    let rows = kiosk.message_rows(n - 1).unwrap();
    let last = rows.end - 1;
    assert!(
        view.shown().contains(&last),
        "last row {last} not in {view:?}"
    );
    assert_eq!(
        view.shown().end,
        view.total,
        "the bottom of the conversation is shown"
    );
    let y = kiosk.row_y(last).unwrap();
    let h = kiosk.config().row_height() as i32;
    let ink = (y..y + h)
        .flat_map(|y| (0..panel.size().width as i32).map(move |x| Point::new(x, y)))
        .filter(|&p| panel.pixel(p) != Some(bg))
        .count();
    assert!(ink > 20, "the last row ({y}) shows text: {ink} pixels");
}

#[test]
fn last_message_is_visible_after_scrolling_colour() {
    let r = colour(&long_reply());
    assert_eq!(r.client.messages().len(), 2);
    assert_last_message_visible(&r, Theme::<Rgb565>::default().background);
}

#[test]
fn last_message_is_visible_after_scrolling_mono() {
    assert_last_message_visible(&mono(&long_reply()), BinaryColor::Off);
    // The sample scrolls on the small panel too.
    assert_last_message_visible(&mono(&sample()), BinaryColor::Off);
}
