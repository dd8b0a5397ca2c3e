//! Word wrap properties: appending and wrapping from the last line gives
//! exactly the full wrap (what makes streaming cheap), and the lines tile
//! the text.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use agui_kiosk::wrap::{wrap, wrap_all, Span};
use proptest::prelude::*;

/// Characters that exercise every class: glyphs of several widths in
/// bytes, spaces, no-break spaces, newlines, zero-width joiners and
/// selectors.
fn text() -> impl Strategy<Value = String> {
    let chars = prop::sample::select(vec![
        'a', 'b', 'c', ' ', ' ', ' ', '\n', '\t', 'é', '日', '👍', '\u{200D}', '\u{FE0F}',
        '\u{A0}', '\r', '\u{2028}',
    ]);
    prop::collection::vec(chars, 0..160).prop_map(|v| v.into_iter().collect())
}

/// Appends `text` in pieces ending at `cuts`, re-wrapping from the last
/// line each time, and checks every step against the full wrap.
fn streamed(text: &str, cuts: &[usize], cols: usize) -> Result<Vec<Span>, TestCaseError> {
    let mut lines: Vec<Span> = Vec::new();
    for &cut in cuts.iter().chain([&text.len()]) {
        let prefix = &text[..cut];
        let from = lines.pop().map_or(0, |l| l.start);
        wrap(prefix, from, cols, &mut |s| lines.push(s));
        prop_assert_eq!(&lines, &wrap_all(prefix, cols), "prefix {:?}", prefix);
    }
    Ok(lines)
}

fn is_zero_width(c: char) -> bool {
    matches!(c, '\r' | '\u{200D}' | '\u{FE0F}')
}

proptest! {
    #[test]
    fn appending_then_wrapping_the_tail_equals_the_full_wrap(
        text in text(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
        cols in 1usize..24,
    ) {
        let bounds: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
        let mut cuts: Vec<usize> = cuts.iter().map(|i| bounds[i.index(bounds.len())]).collect();
        cuts.sort_unstable();
        streamed(&text, &cuts, cols)?;
    }

    #[test]
    fn lines_tile_the_text_and_fit(text in text(), cols in 1usize..24) {
        let lines = wrap_all(&text, cols);
        prop_assert!(!lines.is_empty());
        prop_assert_eq!(lines[0].start, 0);
        prop_assert_eq!(lines.last().unwrap().end, text.len());
        for l in &lines {
            prop_assert!(l.cells <= cols);
            let shown = &text[l.start..l.end];
            let breaks = ['\n', '\u{2028}'];
            prop_assert!(!shown.contains(breaks), "line {:?}", shown);
            let cells = shown.chars().filter(|&c| !is_zero_width(c)).count();
            prop_assert_eq!(cells, l.cells, "{:?}", shown);
        }
        for pair in lines.windows(2) {
            // Between two lines: nothing (a broken word or a soft break
            // after a space), or the one newline or space the break took.
            let gap = &text[pair[0].end..pair[1].start];
            prop_assert!(gap.chars().count() <= 1, "gap {:?}", gap);
            if let Some(c) = gap.chars().next() {
                let ok = c.is_whitespace();
                prop_assert!(ok, "gap {:?}", gap);
            }
        }
    }
}
