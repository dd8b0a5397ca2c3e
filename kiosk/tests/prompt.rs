//! The prompt panel: a question for the person at the bottom of the
//! conversation, the row of answers, where a touch lands, and an agent's
//! hostile question (huge, control characters) kept to its rows.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use agui_kiosk::framebuffer::Framebuffer;
use agui_kiosk::{Choice, Config, Kiosk, Theme};
use common::*;
use embedded_graphics::pixelcolor::{BinaryColor, Rgb565};
use embedded_graphics::prelude::*;
use serde_json::json;

const QUESTION: &str = r#"Approve unlock_door({"door":"front"})?"#;

/// The sample conversation on a colour panel, with `question` asked.
fn asked(question: Option<&str>) -> common::Replay<Rgb565> {
    let mut r = colour(&sample());
    r.kiosk.set_prompt(question);
    r.kiosk
        .draw(r.client.messages(), r.client.state(), &mut r.panel)
        .unwrap();
    r
}

#[test]
fn the_question_and_its_answers_take_the_bottom_rows() {
    let before = asked(None);
    let r = asked(Some(QUESTION));
    let rows = r.kiosk.text_rows();
    let n = rows.len();
    assert_eq!(rows[n - 2], QUESTION);
    assert_eq!(rows[n - 1], "[Y] yes   [N] no");
    assert_eq!(r.kiosk.prompt(), Some(QUESTION));
    // The conversation scrolled (in its steps): its last row is still in
    // view, above the question.
    let old = before.kiosk.text_rows();
    let last = old.iter().rev().find(|r| !r.is_empty()).unwrap();
    assert!(rows[..n - 2].contains(last), "{last:?} in {rows:#?}");
    let view = r.kiosk.viewport();
    assert_eq!(view.rows, before.kiosk.viewport().rows - 2);
    assert_eq!(view.shown().end, view.total);
}

#[test]
fn clearing_the_prompt_gives_the_rows_back_pixel_for_pixel() {
    let before = asked(None);
    let mut r = asked(Some(QUESTION));
    assert_ne!(r.panel.pixels(), before.panel.pixels());
    r.kiosk.set_prompt(None);
    r.kiosk
        .draw(r.client.messages(), r.client.state(), &mut r.panel)
        .unwrap();
    assert_eq!(r.kiosk.prompt(), None);
    assert_eq!(r.kiosk.text_rows(), before.kiosk.text_rows());
    assert_eq!(r.panel.pixels(), before.panel.pixels());
}

#[test]
fn a_touch_on_the_row_of_answers_picks_one() {
    let r = asked(Some(QUESTION));
    let config = *r.kiosk.config();
    let (w, rh, cw) = (
        config.size.width as i32,
        config.row_height() as i32,
        config.cell_width() as i32,
    );
    let bottom = (config.rows() as i32 - 1) * rh;
    let pad = config.padding as i32;
    // "[Y] yes" starts at cell 0, "[N] no" at cell 10; the row is cut in
    // the gap (cell 9).
    let at = |x, y| r.kiosk.prompt_choice_at(Point::new(x, y));
    assert_eq!(at(0, bottom), Some(Choice::Yes));
    assert_eq!(
        at(pad + 8 * cw + cw - 1, bottom + rh - 1),
        Some(Choice::Yes)
    );
    assert_eq!(at(pad + 9 * cw, bottom), Some(Choice::No));
    assert_eq!(at(w - 1, bottom + rh / 2), Some(Choice::No));
    // Off the row: the question, below the panel, beside it.
    assert_eq!(at(pad, bottom - 1), None);
    assert_eq!(at(pad, bottom + rh), None);
    assert_eq!(at(-1, bottom), None);
    assert_eq!(at(w, bottom), None);
    // No prompt: nothing to pick.
    let none = asked(None);
    assert_eq!(none.kiosk.prompt_choice_at(Point::new(0, bottom)), None);
}

#[test]
fn a_hostile_question_keeps_to_half_the_conversation_rows() {
    // A megabyte in one word, then control characters and lines.
    let huge = "x".repeat(1 << 20);
    let r = asked(Some(&huge));
    let view = Config::new(COLOR).content_rows() as usize;
    let rows = r.kiosk.text_rows();
    let question: Vec<&String> = rows[rows.len() - 1 - view / 2..rows.len() - 1]
        .iter()
        .collect();
    assert!(question.iter().all(|q| q.starts_with('x')), "{question:#?}");
    assert!(question.last().unwrap().ends_with("..."));
    assert!(r.kiosk.prompt().unwrap().len() < 4 * 52 * view);
    let r = asked(Some("a\u{1b}[2J\nb\r\n\u{7}c"));
    let rows = r.kiosk.text_rows();
    let n = rows.len();
    assert_eq!(rows[n - 4..n - 1], ["a□[2J", "b", "□c"]);
}

#[test]
fn a_small_mono_panel_shows_the_prompt_too() {
    let mut panel = Framebuffer::new(MONO, BinaryColor::Off);
    let mut kiosk = Kiosk::new(Config::new(MONO), Theme::mono());
    let mut client = agui_alloc::client::Client::new();
    let stream = ndjson(&[
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ]);
    client.feed_with(&stream, &mut kiosk).unwrap();
    kiosk.set_prompt(Some(QUESTION));
    kiosk
        .draw(client.messages(), client.state(), &mut panel)
        .unwrap();
    let rows = kiosk.text_rows();
    // 25 columns, 7 conversation rows: 3 for the question, wrapped.
    assert_eq!(
        rows[rows.len() - 4..],
        [
            "Approve",
            r#"unlock_door({"door":"fron"#,
            r#"t"})?"#,
            "[Y] yes   [N] no"
        ]
    );
}
