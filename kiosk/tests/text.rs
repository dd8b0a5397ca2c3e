//! What the panel shows: roles, tool calls while they stream, the status
//! line, missing glyphs, long words, emoji and CJK, odd panel sizes.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use agui_alloc::client::Client;
use agui_kiosk::framebuffer::Framebuffer;
use agui_kiosk::{Config, Kiosk, RunState, Theme};
use common::*;
use embedded_graphics::pixelcolor::{BinaryColor, Rgb565};
use embedded_graphics::prelude::*;
use serde_json::{json, Value};

/// A run with one assistant message holding `text`.
fn say(text: &str) -> Vec<u8> {
    ndjson(&[
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "a", "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "a", "delta": text}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "a"}),
    ])
}

fn rows_of<C: PixelColor>(r: &Replay<C>) -> Vec<String> {
    r.kiosk.text_rows()
}

#[test]
fn each_message_has_a_block_headed_by_its_role() {
    let rows = rows_of(&colour(&sample()));
    for header in [
        "user",
        "reasoning",
        "assistant",
        "tool result: get_weather",
        "tool result: set_led",
    ] {
        assert!(rows.iter().any(|r| r == header), "{header} in {rows:#?}");
    }
    assert!(rows[0].starts_with("finished"), "{}", rows[0]);
    assert!(rows[1].starts_with("state {\"light\""), "{}", rows[1]);
}

#[test]
fn activity_and_multimodal_user_messages_are_shown() {
    let input = ndjson(&[
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "input": {
        "threadId": "t", "runId": "r", "state": {}, "tools": [], "context": [], "forwardedProps": {},
        "messages": [{"id": "u1", "role": "user", "content": [
            {"type": "text", "text": "What is this?"},
            {"type": "image", "source": {"type": "url", "value": "https://example.invalid/a.png"}}
        ]}]}}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "p1", "activityType": "progress",
               "content": {"done": 1, "of": 3}}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "p1", "activityType": "progress",
               "patch": [{"op": "replace", "path": "/done", "value": 2}]}),
    ]);
    let r = colour(&input);
    assert!(r.client.error().is_none(), "{:?}", r.client.error());
    let rows = rows_of(&r);
    assert!(
        rows.contains(&"What is this? [image]".to_owned()),
        "{rows:#?}"
    );
    assert!(rows.contains(&"activity: progress".to_owned()), "{rows:#?}");
    assert!(
        rows.contains(&r#"{"done":2,"of":3}"#.to_owned()),
        "{rows:#?}"
    );
    // The in-place activity change was seen without a full relayout.
    assert_same_replay(
        "activity",
        &r,
        &render_once_replay(&input, COLOR, Theme::default()),
    );
}

#[test]
fn tool_calls_show_name_and_partial_arguments_while_streaming() {
    let size = COLOR;
    let mut panel = Framebuffer::new(size, Rgb565::BLACK);
    let mut kiosk = Kiosk::<Rgb565>::with_size(size);
    let mut client = Client::new();
    let mut args = String::new();
    let mut checked = 0;
    for line in sample().split_inclusive(|&b| b == b'\n') {
        client.feed_with(line, &mut kiosk).unwrap();
        kiosk
            .draw(client.messages(), client.state(), &mut panel)
            .unwrap();
        let v: Value = serde_json::from_slice(line).unwrap();
        if v["type"] == "TOOL_CALL_START" {
            args.clear();
        }
        if v["type"] == "TOOL_CALL_ARGS" && v["toolCallId"] == "c1" {
            args.push_str(v["delta"].as_str().unwrap());
            let rows = kiosk.text_rows();
            let name = rows.iter().position(|r| r == "> get_weather").unwrap();
            assert_eq!(
                rows[name + 1],
                args,
                "partial arguments after {line:?}",
                line = v["delta"]
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 4);
}

#[test]
fn the_status_line_follows_the_run() {
    let mut events = vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "STEP_STARTED", "stepName": "plan"}),
    ];
    let r = colour(&ndjson(&events));
    assert_eq!(rows_of(&r)[0], "running | step: plan");
    events.push(json!({"type": "REASONING_START", "messageId": "x"}));
    assert_eq!(
        rows_of(&colour(&ndjson(&events)))[0],
        "running | step: plan | reasoning"
    );
    events.push(json!({"type": "RUN_ERROR", "message": "the model is overloaded"}));
    let r = colour(&ndjson(&events));
    assert_eq!(r.kiosk.status().run, RunState::Errored);
    assert_eq!(rows_of(&r)[0], "error: the model is overloaded");
    // A rejected stream shows the error, cut to the panel width.
    let bad = ndjson(&[
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "nope", "delta": "x"}),
    ]);
    let r = mono(&bad);
    let status = &rows_of(&r)[0];
    assert!(status.starts_with("error: stream: frame 1"), "{status}");
    assert!(
        status.ends_with("...") && status.chars().count() == 25,
        "{status}"
    );
}

#[test]
fn missing_glyphs_are_drawn_as_boxes_never_dropped() {
    let r = colour(&say("A日B😀C ☀️"));
    let rows = rows_of(&r);
    // The variation selector after ☀ takes no cell; everything else does.
    assert!(rows.contains(&"A□B□C □".to_owned()), "{rows:#?}");
    // The box is really drawn: its outline is in the text colour.
    let row = rows.iter().position(|l| l == "A□B□C □").unwrap();
    let config = r.kiosk.config();
    let (cw, rh) = (config.cell_width() as i32, config.row_height() as i32);
    let x = config.padding as i32 + cw; // the cell of 日
    let y = row as i32 * rh;
    let fg = Theme::<Rgb565>::default().assistant.body;
    let outline = [
        Point::new(x, y + 1),
        Point::new(x + cw - 2, y + 1),
        Point::new(x, y + rh - 2),
        Point::new(x + cw - 2, y + rh - 2),
    ];
    for p in outline {
        assert_eq!(r.panel.pixel(p), Some(fg), "box corner {p:?}");
    }
    let inside = Point::new(x + 2, y + 4);
    assert_eq!(
        r.panel.pixel(inside),
        Some(Theme::<Rgb565>::default().background)
    );
}

#[test]
fn latin1_is_drawn_and_ascii_only_fonts_box_it() {
    let r = colour(&say("café 23 °C"));
    assert!(rows_of(&r).contains(&"café 23 °C".to_owned()));
    let mut config = Config::new(COLOR);
    config.font = &embedded_graphics::mono_font::ascii::FONT_6X10;
    config.charset = agui_kiosk::config::Charset::Ascii;
    let mut kiosk = Kiosk::new(config, Theme::<Rgb565>::default());
    let mut client = Client::new();
    client.feed_with(&say("café 23 °C"), &mut kiosk).unwrap();
    let mut panel = Framebuffer::new(COLOR, Rgb565::BLACK);
    kiosk
        .draw(client.messages(), client.state(), &mut panel)
        .unwrap();
    assert!(kiosk.text_rows().contains(&"caf□ 23 □C".to_owned()));
}

#[test]
fn long_words_break_at_the_panel_width() {
    let word = "x".repeat(60);
    let r = mono(&say(&format!("see {word} ok")));
    let rows = rows_of(&r);
    let cols = r.kiosk.config().columns() as usize;
    assert_eq!(cols, 25);
    // "see" alone, then the word over three rows, then "ok" after it.
    let at = rows.iter().position(|l| l == "see").unwrap();
    assert_eq!(rows[at + 1], "x".repeat(25));
    assert_eq!(rows[at + 2], "x".repeat(25));
    assert_eq!(rows[at + 3], format!("{} ok", "x".repeat(10)));
}

#[test]
fn emoji_and_cjk_keep_the_grid() {
    let text =
        "日本語のテキストと絵文字 👨‍👩‍👧 👍🏽 🇵🇹 e\u{301} \u{7}\u{1b}[31m \t tab\r\nnext 中文字符测试"
            .repeat(6);
    for size in [COLOR, MONO] {
        let r = replay(&say(&text), size, Theme::<BinaryColor>::mono());
        let cols = r.kiosk.config().columns() as usize;
        for row in rows_of(&r) {
            assert!(row.chars().count() <= cols, "{row:?} is wider than {cols}");
        }
        assert_same_replay(
            "emoji",
            &r,
            &render_once_replay(&say(&text), size, Theme::mono()),
        );
    }
    // Joiners take no cell, modifiers and flags are boxes.
    let r = colour(&say("👨‍👩‍👧|👍🏽|🇵🇹|e\u{301}|\u{7}"));
    assert!(
        rows_of(&r).contains(&"□□□|□□|□□|e□|□".to_owned()),
        "{:#?}",
        rows_of(&r)
    );
}

#[test]
fn streamed_unicode_is_cut_anywhere_without_harm() {
    // Deltas cut at every character boundary of a mixed text.
    let text = "héllo 世界 👍🏽 done";
    let mut events = vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "a", "role": "assistant"}),
    ];
    for c in text.chars() {
        events.push(
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "a", "delta": c.to_string()}),
        );
    }
    let input = ndjson(&events);
    for size in [Size::new(40, 30), MONO] {
        let r = replay(&input, size, Theme::<BinaryColor>::mono());
        assert_same_replay("cut", &r, &render_once_replay(&input, size, Theme::mono()));
    }
}

#[test]
fn tiny_and_odd_panels_do_not_panic() {
    for (w, h) in [
        (1, 1),
        (2, 50),
        (50, 2),
        (6, 10),
        (7, 11),
        (24, 16),
        (96, 48),
        (800, 480),
    ] {
        let size = Size::new(w, h);
        for input in [sample(), long_reply()] {
            let r = replay(&input, size, Theme::<Rgb565>::default());
            assert_same_replay(
                &format!("{w}x{h}"),
                &r,
                &render_once_replay(&input, size, Theme::default()),
            );
        }
    }
}

#[test]
fn the_panel_is_redrawn_after_invalidate_screen() {
    let mut r = colour(&sample());
    let before = r.panel.clone();
    // Scribble over the panel, as a display reset would.
    r.panel.clear(Rgb565::RED).unwrap();
    r.kiosk.invalidate_screen();
    let stats = r
        .kiosk
        .draw(r.client.messages(), r.client.state(), &mut r.panel)
        .unwrap();
    assert!(stats.cleared);
    assert_same(&before, &r.panel);
}
