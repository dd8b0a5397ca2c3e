//! Greedy word wrap on a grid of monospace cells.
//!
//! Every character takes one cell, whatever its script: a mono font has one
//! glyph size, and a character it lacks is drawn as a replacement box of
//! that size, so emoji and CJK never change the geometry. The exceptions are
//! line breaks and a few invisible format characters (zero width).
//!
//! # Why appending is cheap
//!
//! A line ends at a decision taken on a character that is already in the
//! text (a newline, or the first character that does not fit). Appending
//! text cannot change such a decision, so every line except the last one is
//! final, and after an append the text only has to be wrapped again from the
//! start of its last line ([`wrap`]'s `from`). To keep that true, a word that
//! does not fit on the rest of a line always moves to the next line, even if
//! it is longer than a whole line (it is then broken there); otherwise a word
//! that grows past the line width would pull its start back onto the
//! previous, already final, line.

/// How a character sits on the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CharClass {
    /// Ends the line (`\n`, and the Unicode line and paragraph separators).
    Newline,
    /// Takes no cell and is not drawn: `\r`, joiners, variation selectors,
    /// tags. They modify the character before them, which is drawn.
    ZeroWidth,
    /// A blank cell where the line may break.
    Space,
    /// A blank cell where the line must not break (no-break spaces).
    NoBreakSpace,
    /// Anything else: one cell with a glyph or the replacement box.
    Glyph,
}

/// The class of `c`.
pub(crate) fn classify(c: char) -> CharClass {
    match c {
        '\n' | '\u{85}' | '\u{2028}' | '\u{2029}' => CharClass::Newline,
        '\r'
        | '\u{200B}'..='\u{200D}'
        | '\u{2060}'
        | '\u{FEFF}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{E0000}'..='\u{E007F}'
        | '\u{E0100}'..='\u{E01EF}' => CharClass::ZeroWidth,
        '\u{A0}' | '\u{2007}' | '\u{202F}' => CharClass::NoBreakSpace,
        c if c.is_whitespace() => CharClass::Space,
        _ => CharClass::Glyph,
    }
}

/// One line of the wrap: bytes `start..end` of the text, `cells` wide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte (the break itself is not included).
    pub end: usize,
    /// Cells the line takes (at most the column count).
    pub cells: usize,
}

/// Wraps `text` from byte `from` (which must start a line of an earlier
/// wrap of a prefix of `text`, or be 0) into lines of at most `cols` cells,
/// calling `emit` for each line in order. There is always at least one
/// line, possibly empty; the last one is the only one that may change when
/// text is appended. `from` past the end or inside a character wraps nothing.
///
/// ```
/// use agui_kiosk::wrap::{wrap, Span};
///
/// let mut lines = Vec::new();
/// wrap("hello wonderful world", 0, 10, &mut |s: Span| lines.push(s));
/// let text: Vec<_> = lines.iter().map(|s| &"hello wonderful world"[s.start..s.end]).collect();
/// assert_eq!(text, ["hello ", "wonderful ", "world"]);
/// ```
pub fn wrap(text: &str, from: usize, cols: usize, emit: &mut impl FnMut(Span)) {
    let cols = cols.max(1);
    let mut start = from;
    while let Some((span, next)) = scan_line(text, start, cols) {
        emit(span);
        match next {
            Some(next) => start = next,
            None => break,
        }
    }
}

/// Scans one line from `start`: the line, and where the next one starts
/// (`None`: the text ended on this line). `None` if `start` is not a
/// character boundary of `text`.
fn scan_line(text: &str, start: usize, cols: usize) -> Option<(Span, Option<usize>)> {
    let rest = text.get(start..)?;
    let mut cells = 0usize;
    // End of the line and its width if it breaks after the last space seen.
    let mut soft_break: Option<(usize, usize)> = None;
    for (offset, c) in rest.char_indices() {
        let at = start.saturating_add(offset);
        let after = at.saturating_add(c.len_utf8());
        let class = classify(c);
        match class {
            CharClass::Newline => {
                return Some((
                    Span {
                        start,
                        end: at,
                        cells,
                    },
                    Some(after),
                ));
            }
            CharClass::ZeroWidth => continue,
            CharClass::Space | CharClass::NoBreakSpace | CharClass::Glyph => {}
        }
        if cells >= cols {
            let (end, next, width) = match (class, soft_break) {
                // The space that does not fit is the break; it is dropped.
                (CharClass::Space, _) => (at, after, cells),
                // The word moves to the next line.
                (_, Some((end, width))) => (end, end, width),
                // One word fills the whole line: break it here.
                (_, None) => (at, at, cells),
            };
            return Some((
                Span {
                    start,
                    end,
                    cells: width,
                },
                Some(next),
            ));
        }
        cells = cells.saturating_add(1);
        if class == CharClass::Space {
            soft_break = Some((after, cells));
        }
    }
    Some((
        Span {
            start,
            end: text.len(),
            cells,
        },
        None,
    ))
}

/// The whole wrap of `text`, as a vector (for status lines and tests).
pub fn wrap_all(text: &str, cols: usize) -> alloc::vec::Vec<Span> {
    let mut lines = alloc::vec::Vec::new();
    wrap(text, 0, cols, &mut |s| lines.push(s));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn lines(text: &str, cols: usize) -> Vec<&str> {
        wrap_all(text, cols)
            .iter()
            .map(|s| text.get(s.start..s.end).unwrap())
            .collect()
    }

    #[test]
    fn breaks_at_spaces_and_drops_the_breaking_space() {
        assert_eq!(lines("aaa bbb ccc", 7), ["aaa bbb", "ccc"]);
        assert_eq!(lines("aaa bbb", 3), ["aaa", "bbb"]);
    }

    #[test]
    fn long_words_move_down_then_break() {
        assert_eq!(lines("xx abcdefghij", 8), ["xx ", "abcdefgh", "ij"]);
        assert_eq!(lines("abcdefghij", 4), ["abcd", "efgh", "ij"]);
    }

    #[test]
    fn newlines_and_empty_text() {
        assert_eq!(lines("", 5), [""]);
        assert_eq!(lines("a\n\nb\n", 5), ["a", "", "b", ""]);
        assert_eq!(lines("a\r\nb", 5), ["a\r", "b"]);
    }

    #[test]
    fn every_character_is_one_cell_except_zero_width() {
        let text = "日本語のテキスト👍🏽👨\u{200D}👩x";
        for s in wrap_all(text, 3) {
            assert!(s.cells <= 3);
        }
        // The joiner takes no cell: 👨 ZWJ 👩 x is three cells.
        let spans = wrap_all("👨\u{200D}👩x", 3);
        assert_eq!(spans.len(), 1);
        assert_eq!(spans[0].cells, 3);
    }

    #[test]
    fn from_inside_a_character_wraps_nothing() {
        let mut n = 0;
        wrap("é", 1, 4, &mut |_| n += 1);
        assert_eq!(n, 0);
    }
}
