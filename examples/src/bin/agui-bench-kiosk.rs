//! agui-bench-kiosk: the kiosk renderer's cost per text delta and per
//! scroll, for instruction counts under callgrind (see BENCHMARKS.md).
//!
//! ```text
//! agui-bench-kiosk [deltas] [width] [height]     (default 2000 320 240)
//! ```
//!
//! A conversation that fills the panel, then one assistant message streamed
//! as `deltas` deltas of one word each, folded by the reducer and drawn
//! after every delta into a framebuffer of `width` x `height` pixels (RGB565).
//! A first pass records which draws scroll (the view follows the end, so a
//! delta that starts a new row moves every line); a second pass, on a new
//! kiosk fed the same events, draws each delta through `draw_between_scrolls`
//! or `draw_scroll`, so that
//! `valgrind --tool=callgrind --toggle-collect='*draw_between_scrolls*'`
//! (or `'*draw_scroll*'`) counts one kind alone. The reducer's work is
//! outside both: it is the client's figure.

use std::process::ExitCode;

use agui_alloc::event::{Event, MessageContent, TextMessageStart};
use agui_alloc::reduce::Reducer;
use agui_core::event::Role;
use agui_kiosk::framebuffer::Framebuffer;
use agui_kiosk::{DrawStats, Kiosk};
use embedded_graphics::pixelcolor::Rgb565;
use embedded_graphics::prelude::{RgbColor, Size};

/// Words of the streamed message, one per delta, in turn.
const WORDS: [&str; 8] = [
    "the ",
    "kiosk ",
    "draws ",
    "only ",
    "cells ",
    "that ",
    "changed, ",
    "mostly. ",
];

const ABOUT: &str = "Measure the kiosk renderer's cost per text delta and per scroll, \
for instruction counts under callgrind (BENCHMARKS.md)";

const USAGE: &str = "usage: agui-bench-kiosk [deltas] [width] [height]     (default 2000 320 240)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if matches!(args.first().map(String::as_str), Some("-h" | "--help")) {
        println!("{ABOUT}\n\n{USAGE}");
        return ExitCode::SUCCESS;
    }
    let num = |i: usize, default: u32| -> Result<u32, String> {
        args.get(i)
            .map_or(Ok(default), |s| s.parse().map_err(|e| format!("{s}: {e}")))
    };
    let parsed = (num(0, 2000), num(1, 320), num(2, 240));
    let (deltas, width, height) = match parsed {
        (Ok(d), Ok(w), Ok(h)) => (d, w, h),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
            eprintln!("agui-bench-kiosk: {e}");
            eprintln!("{USAGE}");
            return ExitCode::FAILURE;
        }
    };
    let size = Size::new(width, height);
    let events = conversation(deltas as usize);

    // Pass 1: which draws scroll.
    let mut scrolls = Vec::with_capacity(events.len());
    let mut stage = Stage::new(size);
    for event in &events {
        stage.reducer.apply_with(event, &mut stage.kiosk);
        scrolls.push(stage.draw().scrolled);
    }

    // Pass 2: the same draws, each through the function of its kind.
    let mut stage = Stage::new(size);
    let (mut quiet, mut scrolled) = (Count::default(), Count::default());
    for (i, (event, &scrolls)) in events.iter().zip(&scrolls).enumerate() {
        stage.reducer.apply_with(event, &mut stage.kiosk);
        if i < SETUP {
            // The first draws clear the panel and lay out the history:
            // not the cost of a delta.
            stage.draw();
        } else if scrolls {
            scrolled.add(draw_scroll(&mut stage), &stage.panel);
        } else {
            quiet.add(draw_between_scrolls(&mut stage), &stage.panel);
        }
        stage.panel.reset_written();
    }
    println!(
        "{width}x{height}: {} deltas; between scrolls: {} draws, {} cells, {} pixels; scrolls: {} draws, {} cells, {} pixels",
        events.len() - SETUP,
        quiet.draws,
        quiet.cells,
        quiet.pixels,
        scrolled.draws,
        scrolled.cells,
        scrolled.pixels,
    );
    ExitCode::SUCCESS
}

/// The reducer, the kiosk and the panel.
struct Stage {
    reducer: Reducer,
    kiosk: Kiosk<Rgb565>,
    panel: Framebuffer<Rgb565>,
}

impl Stage {
    fn new(size: Size) -> Self {
        Stage {
            reducer: Reducer::new(),
            kiosk: Kiosk::with_size(size),
            panel: Framebuffer::new(size, Rgb565::BLACK),
        }
    }

    fn draw(&mut self) -> DrawStats {
        let (messages, state) = (self.reducer.messages(), self.reducer.state());
        match self.kiosk.draw(messages, state, &mut self.panel) {
            Ok(stats) => stats,
            Err(never) => match never {},
        }
    }
}

/// A draw that does not scroll (measured alone by its name).
#[inline(never)]
fn draw_between_scrolls(stage: &mut Stage) -> DrawStats {
    // Not the same code as `draw_scroll`, so that the linker keeps both.
    std::hint::black_box(0u8);
    stage.draw()
}

/// A draw that scrolls (measured alone by its name).
#[inline(never)]
fn draw_scroll(stage: &mut Stage) -> DrawStats {
    std::hint::black_box(1u8);
    stage.draw()
}

/// Draws of one kind.
#[derive(Default)]
struct Count {
    draws: u64,
    cells: u64,
    pixels: u64,
}

impl Count {
    fn add(&mut self, stats: DrawStats, panel: &Framebuffer<Rgb565>) {
        self.draws += 1;
        self.cells += u64::from(stats.cells);
        self.pixels += panel.written();
    }
}

/// The events before the streamed message.
const SETUP: usize = 5;

/// A user's question and a long answer that fill the panel, then a new
/// assistant message streamed one word per delta.
fn conversation(deltas: usize) -> Vec<Event> {
    let start = |id: &str, role: Role| {
        Event::TextMessageStart(Box::new(TextMessageStart {
            message_id: id.into(),
            role,
            name: None,
            metadata: None,
            subagent_run_id: None,
        }))
    };
    let content = |id: &str, delta: String| {
        Event::TextMessageContent(MessageContent {
            message_id: id.into(),
            delta,
            metadata: None,
        })
    };
    let mut events = vec![
        start("q", Role::User),
        content("q", "How does the kiosk keep up with a fast stream?".into()),
        start("a0", Role::Assistant),
        content(
            "a0",
            "It lays out what changed and redraws the cells that differ. ".repeat(40),
        ),
        start("a1", Role::Assistant),
    ];
    events.extend((0..deltas).map(|i| content("a1", WORDS[i % WORDS.len()].into())));
    events
}
