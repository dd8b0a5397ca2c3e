//! The incremental redraw: it draws the same picture as one full draw, and
//! a streamed text delta costs a few cells, not a screen.
//!
//! `cargo test -p agui-kiosk --test incremental -- --nocapture` prints the
//! measurements.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use agui_alloc::model::Message;
use agui_kiosk::Theme;
use common::*;
use serde_json::json;

#[test]
fn drawing_after_every_event_gives_the_same_picture_as_one_draw() {
    for input in [sample(), long_reply()] {
        assert_same(
            &colour(&input).panel,
            &render_once(&input, COLOR, Theme::default()),
        );
        assert_same(
            &mono(&input).panel,
            &render_once(&input, MONO, Theme::mono()),
        );
    }
}

#[test]
fn a_text_delta_redraws_a_few_cells_not_the_screen() {
    let r = colour(&long_reply());
    let full = u64::from(COLOR.width * COLOR.height);
    let deltas: Vec<_> = r
        .steps
        .iter()
        .filter(|s| s.kind == "TEXT_MESSAGE_CONTENT")
        .collect();
    assert!(deltas.len() > 200, "{} deltas", deltas.len());
    let (scrolls, streaming): (Vec<&Step>, Vec<&Step>) =
        deltas.iter().copied().partition(|s| s.stats.scrolled);
    let max = streaming.iter().map(|s| s.pixels).max().unwrap();
    let mean_streaming =
        streaming.iter().map(|s| s.pixels).sum::<u64>() as f64 / streaming.len() as f64;
    let mean_all = deltas.iter().map(|s| s.pixels).sum::<u64>() as f64 / deltas.len() as f64;
    let mean_scroll = scrolls.iter().map(|s| s.pixels).sum::<u64>() as f64 / scrolls.len() as f64;
    println!(
        "320x240 Rgb565, {} text deltas: without scrolling max {max} px, mean {mean_streaming:.0} px \
         ({:.2}% of the {full}-pixel panel); {} scrolls, mean {mean_scroll:.0} px; \
         mean over all deltas {mean_all:.0} px ({:.2}%)",
        deltas.len(),
        mean_streaming * 100.0 / full as f64,
        scrolls.len(),
        mean_all * 100.0 / full as f64,
    );
    // A delta of at most 8 bytes plus a word that moves down: well under
    // two rows (2 x 320 x 10 pixels).
    assert!(max <= 2 * 320 * 10, "max {max}");
    assert!(mean_streaming < 0.01 * full as f64, "mean {mean_streaming}");
    // Scrolling moves every line, once per scroll step: a small share of
    // the deltas, and even then not more than a panel.
    assert!(
        scrolls.len() * 10 < deltas.len(),
        "{} scrolls",
        scrolls.len()
    );
    assert!(scrolls.iter().all(|s| s.pixels <= full));
    assert!(mean_all < 0.05 * full as f64, "mean over all {mean_all}");
}

#[test]
fn a_text_delta_on_the_oled_is_cheap_too() {
    let r = mono(&long_reply());
    let full = u64::from(MONO.width * MONO.height);
    let deltas: Vec<_> = r
        .steps
        .iter()
        .filter(|s| s.kind == "TEXT_MESSAGE_CONTENT")
        .collect();
    let streaming: Vec<_> = deltas.iter().filter(|s| !s.stats.scrolled).collect();
    let max = streaming.iter().map(|s| s.pixels).max().unwrap();
    let mean_all = deltas.iter().map(|s| s.pixels).sum::<u64>() as f64 / deltas.len() as f64;
    println!(
        "128x64 BinaryColor, {} text deltas: without scrolling max {max} px; {} scrolls; \
         mean over all deltas {mean_all:.0} px ({:.1}% of {full})",
        deltas.len(),
        deltas.len() - streaming.len(),
        mean_all * 100.0 / full as f64
    );
    assert!(max <= 2 * 128 * 8, "max {max}");
    assert!(mean_all < 0.25 * full as f64);
}

#[test]
fn nothing_changed_draws_nothing() {
    let mut r = colour(&sample());
    r.panel.reset_written();
    let stats = r
        .kiosk
        .draw(r.client.messages(), r.client.state(), &mut r.panel)
        .unwrap();
    assert_eq!((r.panel.written(), stats.rows, stats.cells), (0, 0, 0));
}

#[test]
fn a_snapshot_of_the_same_messages_draws_nothing() {
    // Servers often end a run with MESSAGES_SNAPSHOT: everything is laid
    // out again, but the screen compare finds no cell to draw.
    let input = sample();
    let r = colour(&input);
    let messages: Vec<Message> = r.client.messages().to_vec();
    let snapshot = json!({"type": "MESSAGES_SNAPSHOT", "messages": messages});
    // Before the last line (RUN_FINISHED), while the run is still going.
    let text = String::from_utf8(input).unwrap();
    let (body, finish) = text.trim_end().rsplit_once('\n').unwrap();
    let mut input = format!("{body}\n").into_bytes();
    input.extend_from_slice(&ndjson(&[snapshot]));
    input.extend_from_slice(format!("{finish}\n").as_bytes());
    let r2 = colour(&input);
    assert!(r2.client.error().is_none(), "{:?}", r2.client.error());
    let last = &r2.steps[r2.steps.len() - 2];
    assert_eq!(last.kind, "MESSAGES_SNAPSHOT");
    assert!(last.stats.rows > 0, "rows were compared");
    assert_eq!(last.pixels, 0, "but none drawn");
    assert_eq!(r.panel.pixels(), r2.panel.pixels());
}

#[test]
fn a_tool_result_inserted_above_redraws_below_it_only() {
    // The result of c1 arrives after the assistant has already answered:
    // it is inserted after the call, above the answer.
    let events = [
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "lookup"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "a1", "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "Waiting for the lookup."}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "a1"}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": "42"}),
    ];
    let input = ndjson(&events);
    let r = colour(&input);
    let rows = r.kiosk.text_rows();
    let at = |needle: &str| rows.iter().position(|l| l.contains(needle)).unwrap();
    assert!(at("> lookup") < at("tool result: lookup"));
    assert!(at("tool result: lookup") < at("Waiting for the lookup."));
    let last = r.steps.last().unwrap();
    assert_eq!(last.kind, "TOOL_CALL_RESULT");
    // The rows above the insertion point (status, state, the call's block)
    // are untouched: fewer rows were looked at than the panel has.
    assert!(last.stats.rows < 8, "{:?}", last.stats);
    assert_same(&r.panel, &render_once(&input, COLOR, Theme::default()));
}

#[test]
fn a_renamed_call_renames_its_result_and_only_its_result() {
    // Issue 11: a TOOL_CALL_START refreshes the headers of that call's
    // results only; drawn after every event or once, the picture is the same.
    let mut events = vec![json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})];
    for c in ["c1", "c2"] {
        events.push(json!({"type": "TOOL_CALL_START", "toolCallId": c, "toolCallName": "lookup"}));
        events.push(json!({"type": "TOOL_CALL_END", "toolCallId": c}));
        events.push(json!({"type": "TOOL_CALL_RESULT", "messageId": format!("r-{c}"), "toolCallId": c, "content": "42"}));
    }
    events.push(json!({"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "renamed"}));
    events.push(json!({"type": "TOOL_CALL_END", "toolCallId": "c2"}));
    let input = ndjson(&events);
    let r = colour(&input);
    let rows = r.kiosk.text_rows();
    assert!(
        rows.iter().any(|l| l.contains("tool result: lookup")),
        "{rows:?}"
    );
    assert!(
        rows.iter().any(|l| l.contains("tool result: renamed")),
        "{rows:?}"
    );
    assert_same(&r.panel, &render_once(&input, COLOR, Theme::default()));
}
