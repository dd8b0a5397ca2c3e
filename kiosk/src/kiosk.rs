//! The renderer: layout, scrolling, and the incremental redraw.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;

use agui_alloc::event::{Effect, Event};
use agui_alloc::hooks::{Flow, HookView, Subscriber};
use agui_alloc::model::{Message, MessageRole};
use embedded_graphics::draw_target::DrawTarget;
use embedded_graphics::geometry::{Point, Size};
use embedded_graphics::mono_font::MonoTextStyleBuilder;
use embedded_graphics::prelude::{PixelColor, Primitive};
use embedded_graphics::primitives::{PrimitiveStyle, Rectangle};
use embedded_graphics::text::{Baseline, Text};
use embedded_graphics::Drawable;
use serde_json::Value;

use crate::config::{Charset, Config};
use crate::layout::{bounded_json, Block, Para, Revs, Source, Style, Sync};
use crate::status::{RunState, Status};
use crate::theme::{Pair, Theme};
use crate::wrap::{classify, wrap_all, CharClass, Span};

/// A cell that shows only its background.
const BLANK: u16 = 0;
/// A cell that shows the replacement box.
const TOFU: u16 = u16::MAX;
/// More activity ids than this between two draws: lay everything out again.
const MAX_TOUCHED: usize = 16;
/// The prompt panel's row of answers; the whole row is the touch area, cut
/// where the gap between the two answers is.
const ANSWERS: &str = "[Y] yes   [N] no";
/// The first cell of the "no" answer's side of the row.
const NO_FROM: usize = 9;

/// What one [`Kiosk::draw`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DrawStats {
    /// Rows whose cells were compared (their line changed).
    pub rows: u32,
    /// Cells drawn.
    pub cells: u32,
    /// Rows filled edge to edge (their background colour changed).
    pub fills: u32,
    /// The view scrolled, so every visible line moved.
    pub scrolled: bool,
    /// The whole panel was cleared first (the first draw, or after
    /// [`Kiosk::invalidate_screen`]).
    pub cleared: bool,
}

/// Which part of the conversation is on the panel, in rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Viewport {
    /// The first conversation row shown.
    pub first: usize,
    /// How many conversation rows the panel shows.
    pub rows: usize,
    /// How many conversation rows there are.
    pub total: usize,
}

impl Viewport {
    /// The conversation rows on the panel.
    pub fn shown(&self) -> Range<usize> {
        self.first..self.first.saturating_add(self.rows).min(self.total)
    }
}

/// An answer to the prompt panel's question ([`Kiosk::set_prompt`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// `[Y] yes`.
    Yes,
    /// `[N] no`.
    No,
}

/// The prompt panel, laid out when set.
struct Prompt {
    question: Para,
    answers: Para,
}

/// Draws a conversation on a panel and keeps it up to date.
///
/// Feed the stream with the kiosk as the [`Subscriber`] (it follows the run
/// status, steps, state changes and snapshots from the events), then call
/// [`draw`](Self::draw) whenever you like, typically after each chunk of
/// input: it lays out what changed and redraws only the cells that differ
/// from what the panel shows.
///
/// ```
/// use agui_alloc::client::Client;
/// use agui_kiosk::{framebuffer::Framebuffer, Kiosk};
/// use embedded_graphics::{pixelcolor::Rgb565, prelude::*};
///
/// let mut panel = Framebuffer::new(Size::new(320, 240), Rgb565::BLACK);
/// let mut kiosk = Kiosk::<Rgb565>::with_size(Size::new(320, 240));
/// let mut client = Client::new();
/// let stream = concat!(
///     r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#, "\n",
///     r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"Hello"}"#, "\n",
///     r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":", world"}"#, "\n",
/// );
/// let mut drawn = Vec::new();
/// for line in stream.split_inclusive('\n') {
///     client.feed_with(line.as_bytes(), &mut kiosk).unwrap();
///     panel.reset_written();
///     kiosk.draw(client.messages(), client.state(), &mut panel).unwrap();
///     drawn.push(panel.written());
/// }
/// // The first draw clears the panel; the last one only draws the cells of
/// // ", world" that were not blank already: 6 cells of 6x10 pixels.
/// assert!(drawn[0] >= 320 * 240);
/// assert_eq!(drawn[2], 6 * 6 * 10);
/// ```
pub struct Kiosk<C> {
    config: Config,
    theme: Theme<C>,
    cols: usize,
    blocks: Vec<Block>,
    status: Status,
    status_para: Para,
    status_dirty: bool,
    state_para: Para,
    state_dirty: bool,
    /// Lay every message out again (`MESSAGES_SNAPSHOT`, `invalidate`).
    rebuild: bool,
    /// Messages may have been inserted (`TOOL_CALL_RESULT`).
    realign: bool,
    /// Tool calls that may have been renamed (`TOOL_CALL_START`) since the
    /// last draw: only the results of these get their header again, so a
    /// start does not cost a look-up for every result shown (issue 11).
    /// One empty id stands for "all of them" (too many to list).
    renamed: Vec<String>,
    /// Activity messages changed in place.
    touched: Vec<String>,
    revs: Revs,
    screen: Screen,
    scroll: usize,
    events: u64,
    prompt: Option<Prompt>,
}

impl<C: PixelColor> Kiosk<C> {
    /// A kiosk with this layout and these colours.
    pub fn new(config: Config, theme: Theme<C>) -> Self {
        let cols = config.columns() as usize;
        let rows = config.rows() as usize;
        Kiosk {
            config,
            theme,
            cols,
            blocks: Vec::new(),
            status: Status::default(),
            status_para: Para::new(Style::Status(RunState::Idle), Source::Owned(String::new())),
            status_dirty: true,
            state_para: Para::new(Style::State, Source::Owned(String::new())),
            state_dirty: true,
            rebuild: false,
            realign: false,
            renamed: Vec::new(),
            touched: Vec::new(),
            revs: Revs::default(),
            screen: Screen::new(rows, cols),
            scroll: 0,
            events: 0,
            prompt: None,
        }
    }

    /// A kiosk with [`Config::new`] for `size` and the default theme.
    pub fn with_size(size: Size) -> Self
    where
        Theme<C>: Default,
    {
        Kiosk::new(Config::new(size), Theme::default())
    }

    /// The layout.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The run status as shown.
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// Replaces the status (e.g. to show that the stream itself failed).
    pub fn set_status(&mut self, status: Status) {
        self.status = status;
        self.status_dirty = true;
    }

    /// Shows `message` as a stream error on the status line.
    pub fn set_stream_error(&mut self, message: &str) {
        self.status.run = RunState::Errored;
        self.status.error = Some(format!("stream: {message}"));
        self.status_dirty = true;
    }

    /// Shows `question` in a panel at the bottom of the conversation, with
    /// a row of answers under it (`[Y] yes   [N] no`), until it is set to
    /// `None`: a person is asked, e.g. to approve an agent's tool call.
    /// The conversation above scrolls to keep its newest rows in view. The
    /// question takes at most half of the conversation rows (cut with `...`
    /// beyond); the text is the agent's, shown as any message is.
    pub fn set_prompt(&mut self, question: Option<&str>) {
        self.prompt = question.map(|text| {
            let rows = self.prompt_question_rows();
            // Enough for the rows even if every character took four bytes:
            // a long question is not wrapped whole to show its start.
            let limit = rows.saturating_mul(self.cols).saturating_mul(4);
            let mut end = text.len().min(limit);
            while !text.is_char_boundary(end) {
                end = end.saturating_sub(1);
            }
            let head = text.get(..end).unwrap_or_default();
            let shown = fit(head, self.cols, rows, end < text.len());
            let mut question = Para::new(Style::Prompt, Source::Owned(shown));
            question.wrap_all(None, self.cols, &mut self.revs);
            question.lines.truncate(rows);
            let mut answers = Para::new(Style::PromptAnswers, Source::Owned(ANSWERS.into()));
            answers.wrap_all(None, self.cols, &mut self.revs);
            answers.lines.truncate(1);
            Prompt { question, answers }
        });
    }

    /// The question shown in the prompt panel, if any (as laid out: cut
    /// to its rows).
    pub fn prompt(&self) -> Option<&str> {
        self.prompt.as_ref().map(|p| p.question.text(None))
    }

    /// The answer at panel pixel `point`, if it is on the prompt panel's
    /// row of answers: the left side (up to the middle of the gap) is
    /// [`Choice::Yes`], the rest [`Choice::No`], so that the whole row can
    /// be touched. `None` without a prompt or elsewhere.
    pub fn prompt_choice_at(&self, point: Point) -> Option<Choice> {
        self.prompt.as_ref()?;
        let row = self.prompt_answers_row()?;
        let height = px(self.config.row_height() as usize);
        let top = px(row).saturating_mul(height);
        let width = px(self.config.size.width as usize);
        if point.y < top || point.y >= top.saturating_add(height) || point.x < 0 || point.x >= width
        {
            return None;
        }
        let x =
            usize::try_from(point.x.saturating_sub(px(self.config.padding as usize))).unwrap_or(0);
        let col = x / self.config.cell_width() as usize;
        Some(if col < NO_FROM {
            Choice::Yes
        } else {
            Choice::No
        })
    }

    /// Question rows of the prompt panel: half the conversation rows, less
    /// the row of answers (at least one when there is room for both).
    fn prompt_question_rows(&self) -> usize {
        let view = self.config.content_rows() as usize;
        (view / 2).max(1).min(view.saturating_sub(1))
    }

    /// Rows the prompt panel takes (0 without a prompt).
    fn prompt_rows(&self) -> usize {
        let view = self.config.content_rows() as usize;
        self.prompt
            .as_ref()
            .map_or(0, |p| p.question.lines.len().saturating_add(1).min(view))
    }

    /// The panel row of the prompt's answers: the last conversation row.
    fn prompt_answers_row(&self) -> Option<usize> {
        let view = self.config.content_rows() as usize;
        if view == 0 {
            return None;
        }
        Some(
            self.first_content_row()
                .saturating_add(view)
                .saturating_sub(1),
        )
    }

    /// Events observed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Follows one event (the [`Subscriber`] impl calls this): run status,
    /// steps, and which changes the next draw cannot see from lengths alone.
    pub fn observe(&mut self, event: &Event) {
        self.events = self.events.saturating_add(1);
        if self.status.observe(event) {
            self.status_dirty = true;
        }
        match event.effect() {
            Effect::State => self.state_dirty = true,
            Effect::MessagesReplaced => self.rebuild = true,
            Effect::ToolResult => self.realign = true,
            Effect::ToolCallStarted(id) => {
                if self.renamed.len() >= MAX_TOUCHED {
                    // Too many to look up one by one: all results, as before.
                    self.renamed.clear();
                    self.renamed.push(String::new());
                } else if self.renamed.first().is_some_and(String::is_empty) {
                } else if !self.renamed.iter().any(|known| known == id) {
                    self.renamed.push(id.into());
                }
            }
            Effect::Activity(id) => self.touch(id),
            // The message diff after the event finds what they changed;
            // the status line (above) shows the lifecycle.
            Effect::RunStarted
            | Effect::RunFinished(_)
            | Effect::RunError(_)
            | Effect::StepStarted(_)
            | Effect::StepFinished(_)
            | Effect::ReasoningStarted
            | Effect::ReasoningEnded
            | Effect::Plain => {}
        }
    }

    fn touch(&mut self, id: &str) {
        if self.touched.len() >= MAX_TOUCHED {
            self.rebuild = true;
        } else if !self.touched.iter().any(|t| t == id) {
            self.touched.push(id.to_string());
        }
    }

    /// Lays everything out again at the next draw. Needed only if the
    /// messages were changed without the kiosk seeing the event (e.g. by
    /// another subscriber's hook); the panel is still redrawn only where it
    /// differs.
    pub fn invalidate(&mut self) {
        self.rebuild = true;
        self.state_dirty = true;
        self.status_dirty = true;
    }

    /// Clears and redraws the whole panel at the next draw (e.g. after the
    /// display was reset).
    pub fn invalidate_screen(&mut self) {
        self.screen.cleared = false;
    }

    /// The part of the conversation on the panel, as of the last draw.
    pub fn viewport(&self) -> Viewport {
        Viewport {
            first: self.scroll,
            rows: (self.config.content_rows() as usize).saturating_sub(self.prompt_rows()),
            total: self.total_rows(),
        }
    }

    /// The conversation rows of message `index` (header included), as of
    /// the last draw.
    pub fn message_rows(&self, index: usize) -> Option<Range<usize>> {
        let block = self.blocks.get(index)?;
        let start: usize = self.blocks.iter().take(index).map(|b| b.rows).sum();
        Some(start..start.saturating_add(block.rows))
    }

    /// The panel's pixel row where conversation row `row` is drawn, if it
    /// is on the panel.
    pub fn row_y(&self, row: usize) -> Option<i32> {
        let view = self.viewport();
        if !view.shown().contains(&row) {
            return None;
        }
        let screen_row = row
            .saturating_sub(view.first)
            .saturating_add(self.first_content_row());
        Some(px(screen_row).saturating_mul(px(self.config.row_height() as usize)))
    }

    /// What the panel shows as text, one string per row, as of the last
    /// draw: blank cells are spaces (trailing ones trimmed) and replacement
    /// boxes are `'□'`. For tests and logs.
    pub fn text_rows(&self) -> Vec<String> {
        self.screen
            .cells
            .chunks(self.cols.max(1))
            .map(|row| {
                let line: String = row
                    .iter()
                    .map(|&code| match code {
                        BLANK => ' ',
                        TOFU => '□',
                        code => char::from_u32(u32::from(code)).unwrap_or('□'),
                    })
                    .collect();
                String::from(line.trim_end())
            })
            .collect()
    }

    fn total_rows(&self) -> usize {
        self.blocks.iter().map(|b| b.rows).sum()
    }

    fn first_content_row(&self) -> usize {
        1usize.saturating_add(self.config.state_rows as usize)
    }

    /// Brings the panel up to date with `messages` and `state`.
    ///
    /// # Errors
    /// The target's error; the kiosk then redraws everything at the next
    /// call, since it no longer knows what the panel shows.
    pub fn draw<D>(
        &mut self,
        messages: &[Message],
        state: &Value,
        target: &mut D,
    ) -> Result<DrawStats, D::Error>
    where
        D: DrawTarget<Color = C>,
    {
        self.sync(messages);
        if self.state_dirty {
            self.layout_state(state);
        }
        if self.status_dirty {
            self.layout_status();
        }
        let result = self.paint(messages, target);
        if result.is_err() {
            self.screen.cleared = false;
        }
        result
    }

    /// Updates the blocks from the messages.
    fn sync(&mut self, messages: &[Message]) {
        if self.rebuild {
            self.blocks.clear();
            self.touched.clear();
            self.rebuild = false;
        }
        if self.realign || messages.len() != self.blocks.len() {
            self.align(messages);
            self.realign = false;
        }
        for id in core::mem::take(&mut self.touched) {
            for (i, m) in messages.iter().enumerate() {
                if m.id() == id {
                    if let Some(slot) = self.blocks.get_mut(i) {
                        *slot = Block::build(messages, i, self.cols, &mut self.revs);
                    }
                }
            }
        }
        self.blocks.truncate(messages.len());
        for (i, msg) in messages.iter().enumerate() {
            match self.blocks.get_mut(i) {
                Some(block) => {
                    if block.sync(msg, self.cols, &mut self.revs) == Sync::Rebuild {
                        *block = Block::build(messages, i, self.cols, &mut self.revs);
                    }
                }
                None => {
                    let block = Block::build(messages, i, self.cols, &mut self.revs);
                    self.blocks.push(block);
                }
            }
        }
        let renamed = core::mem::take(&mut self.renamed);
        if !renamed.is_empty() {
            // Tool results show their call's name.
            for (i, block) in self.blocks.iter_mut().enumerate() {
                let Some(Message::Tool(result)) = messages.get(i) else {
                    continue;
                };
                let all = renamed.first().is_some_and(String::is_empty);
                if block.role == MessageRole::Tool
                    && (all || renamed.contains(&result.tool_call_id))
                {
                    block.refresh_header(messages, i, self.cols, &mut self.revs);
                }
            }
        }
    }

    /// Keeps the blocks that still belong to their message after messages
    /// were inserted or removed: the matching prefix, and the matching
    /// suffix when messages were inserted in one place (a tool result).
    fn align(&mut self, messages: &[Message]) {
        let prefix = self
            .blocks
            .iter()
            .zip(messages)
            .take_while(|(b, m)| b.is_for(m))
            .count();
        let added = messages.len().saturating_sub(self.blocks.len());
        let tail = self.blocks.get(prefix..).unwrap_or_default();
        let shifted = messages
            .get(prefix.saturating_add(added)..)
            .unwrap_or_default();
        if added > 0
            && tail.len() == shifted.len()
            && tail.iter().zip(shifted).all(|(b, m)| b.is_for(m))
        {
            let new: Vec<Block> = (prefix..prefix.saturating_add(added))
                .map(|i| Block::build(messages, i, self.cols, &mut self.revs))
                .collect();
            self.blocks.splice(prefix..prefix, new);
        } else {
            self.blocks.truncate(prefix);
        }
    }

    fn layout_status(&mut self) {
        let text = fit(&self.status.to_string(), self.cols, 1, false);
        self.status_para = Para::new(Style::Status(self.status.run), Source::Owned(text));
        self.status_para.wrap_all(None, self.cols, &mut self.revs);
        self.status_dirty = false;
    }

    fn layout_state(&mut self, state: &Value) {
        let rows = self.config.state_rows as usize;
        // Enough for the rows even if every character took four bytes.
        let limit = rows.saturating_mul(self.cols).saturating_mul(4);
        let (json, cut) = bounded_json(state, limit);
        // A no-break space keeps the JSON (one long word) on the first row.
        let text = fit(&format!("state\u{A0}{json}"), self.cols, rows, cut);
        self.state_para = Para::new(Style::State, Source::Owned(text));
        self.state_para.wrap_all(None, self.cols, &mut self.revs);
        self.state_dirty = false;
    }

    /// Draws every row whose line changed.
    fn paint<D>(&mut self, messages: &[Message], target: &mut D) -> Result<DrawStats, D::Error>
    where
        D: DrawTarget<Color = C>,
    {
        let mut stats = DrawStats::default();
        let pen = Pen {
            config: &self.config,
            theme: &self.theme,
        };
        if !self.screen.cleared {
            target.clear(self.theme.background)?;
            self.screen.reset();
            stats.cleared = true;
        }
        let prompt_rows = self.prompt_rows();
        let view_rows = (self.config.content_rows() as usize).saturating_sub(prompt_rows);
        let step = (self.config.scroll_step as usize).clamp(1, view_rows.max(1));
        let total: usize = self.blocks.iter().map(|b| b.rows).sum();
        let scroll = scroll_for(total, view_rows, step);
        stats.scrolled = scroll != self.scroll;
        self.scroll = scroll;

        let mut row = 0usize;
        let status = self.status_para.lines.first().map(|l| RowLine {
            style: self.status_para.style,
            rev: l.rev,
            text: self.status_para.text(None),
            span: l.span,
        });
        self.screen
            .draw_row(row, status, &pen, target, &mut stats)?;
        for n in 0..self.config.state_rows as usize {
            row = row.saturating_add(1);
            let line = self.state_para.lines.get(n).map(|l| RowLine {
                style: Style::State,
                rev: l.rev,
                text: self.state_para.text(None),
                span: l.span,
            });
            // A state row without text still shows the state colours
            // (revision 0: no line).
            let line = line.or(Some(RowLine {
                style: Style::State,
                rev: 0,
                text: "",
                span: Span {
                    start: 0,
                    end: 0,
                    cells: 0,
                },
            }));
            self.screen.draw_row(row, line, &pen, target, &mut stats)?;
        }
        let mut lines = Visible::new(&self.blocks, scroll);
        for _ in 0..view_rows {
            row = row.saturating_add(1);
            let line = lines.next().map(|(b, para, l)| RowLine {
                style: para.style,
                rev: l.rev,
                text: para.text(messages.get(b)),
                span: l.span,
            });
            self.screen.draw_row(row, line, &pen, target, &mut stats)?;
        }
        if let Some(prompt) = &self.prompt {
            // The question's rows, then the answers on the last row.
            let question = prompt.question.lines.iter().map(|l| (&prompt.question, l));
            let answers = prompt.answers.lines.iter().map(|l| (&prompt.answers, l));
            let lines = question
                .take(prompt_rows.saturating_sub(1))
                .chain(answers)
                .take(prompt_rows);
            for (para, l) in lines {
                row = row.saturating_add(1);
                let line = RowLine {
                    style: para.style,
                    rev: l.rev,
                    text: para.text(None),
                    span: l.span,
                };
                self.screen
                    .draw_row(row, Some(line), &pen, target, &mut stats)?;
            }
        }
        Ok(stats)
    }
}

impl<C: PixelColor> Subscriber for Kiosk<C> {
    fn on_event(&mut self, event: &Event, _view: &mut HookView<'_>) -> Flow {
        self.observe(event);
        Flow::Continue
    }
}

/// The first row shown for `total` rows in a view of `view` rows: 0 while
/// everything fits, then the smallest multiple of `step` that shows the
/// last row. A function of `total` alone, so that drawing after every event
/// and drawing once at the end give the same picture.
fn scroll_for(total: usize, view: usize, step: usize) -> usize {
    let over = total.saturating_sub(view);
    over.div_ceil(step.max(1)).saturating_mul(step.max(1))
}

/// `text` cut to `rows` lines of `cols` cells, ending in `...` if it was cut
/// (or `cut` says it already was).
fn fit(text: &str, cols: usize, rows: usize, cut: bool) -> String {
    if rows == 0 {
        return String::new();
    }
    let spans = wrap_all(text, cols);
    if spans.len() <= rows && !cut {
        return text.to_string();
    }
    let Some(last) = spans.get(rows.saturating_sub(1)).or(spans.last()) else {
        return String::new();
    };
    // The last row is filled up to its last three cells, across word
    // breaks, and ends with the ellipsis.
    let mut keep = String::from(text.get(..last.start).unwrap_or_default());
    let room = cols.saturating_sub(3);
    let mut cells = 0;
    for c in text.get(last.start..).unwrap_or_default().chars() {
        match classify(c) {
            CharClass::Newline => break,
            CharClass::ZeroWidth => {}
            _ if cells >= room => break,
            CharClass::Space | CharClass::NoBreakSpace | CharClass::Glyph => cells += 1,
        }
        keep.push(c);
    }
    keep.push_str("...");
    keep
}

/// The lines on the panel, from conversation row `first` on.
struct Visible<'a> {
    blocks: &'a [Block],
    block: usize,
    para: usize,
    line: usize,
}

impl<'a> Visible<'a> {
    fn new(blocks: &'a [Block], first: usize) -> Self {
        let mut skip = first;
        let mut block = 0usize;
        for b in blocks {
            if skip < b.rows {
                break;
            }
            skip = skip.saturating_sub(b.rows);
            block = block.saturating_add(1);
        }
        let mut para = 0usize;
        if let Some(b) = blocks.get(block) {
            for p in &b.paras {
                if skip < p.lines.len() {
                    break;
                }
                skip = skip.saturating_sub(p.lines.len());
                para = para.saturating_add(1);
            }
        }
        Visible {
            blocks,
            block,
            para,
            line: skip,
        }
    }
}

impl<'a> Iterator for Visible<'a> {
    /// Message index, paragraph, line.
    type Item = (usize, &'a Para, &'a crate::layout::Line);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let block = self.blocks.get(self.block)?;
            let Some(para) = block.paras.get(self.para) else {
                self.block = self.block.saturating_add(1);
                self.para = 0;
                self.line = 0;
                continue;
            };
            let Some(line) = para.lines.get(self.line) else {
                self.para = self.para.saturating_add(1);
                self.line = 0;
                continue;
            };
            self.line = self.line.saturating_add(1);
            return Some((self.block, para, line));
        }
    }
}

/// A line to put on a row.
struct RowLine<'a> {
    style: Style,
    rev: u32,
    text: &'a str,
    span: Span,
}

/// What is needed to draw: fonts, sizes, colours.
struct Pen<'a, C> {
    config: &'a Config,
    theme: &'a Theme<C>,
}

impl<C: PixelColor> Pen<'_, C> {
    fn colors(&self, style: Style) -> Pair<C> {
        let t = self.theme;
        let on_bg = |fg| Pair::new(fg, t.background);
        match style {
            Style::Empty => Pair::new(t.background, t.background),
            Style::Status(RunState::Idle) => t.idle,
            Style::Status(RunState::Running) => t.running,
            Style::Status(RunState::Finished | RunState::Interrupted | RunState::Cancelled) => {
                t.finished
            }
            Style::Status(RunState::Errored) => t.errored,
            Style::State => t.state,
            Style::Header(role) => t.role(role).header,
            Style::Body(role) => on_bg(t.role(role).body),
            Style::ToolName => on_bg(t.tool_name),
            Style::ToolArgs => on_bg(t.tool_args),
            Style::Error => on_bg(t.error),
            Style::Prompt => t.prompt,
            Style::PromptAnswers => t.prompt_answers,
        }
    }

    fn cell_origin(&self, row: usize, col: usize) -> Point {
        let x = (self.config.padding as usize)
            .saturating_add(col.saturating_mul(self.config.cell_width() as usize));
        let y = row.saturating_mul(self.config.row_height() as usize);
        Point::new(px(x), px(y))
    }

    /// Fills a whole row, edge to edge.
    fn fill_row<D: DrawTarget<Color = C>>(
        &self,
        row: usize,
        color: C,
        target: &mut D,
    ) -> Result<(), D::Error> {
        let y = self.cell_origin(row, 0).y;
        let area = Rectangle::new(
            Point::new(0, y),
            Size::new(self.config.size.width, self.config.row_height()),
        );
        target.fill_solid(&area, color)
    }

    /// Draws `codes` from cell `col` of `row`.
    fn draw_cells<D: DrawTarget<Color = C>>(
        &self,
        row: usize,
        col: usize,
        codes: &[u16],
        colors: Pair<C>,
        target: &mut D,
    ) -> Result<(), D::Error> {
        let text: String = codes
            .iter()
            .map(|&code| match code {
                BLANK | TOFU => ' ',
                code => char::from_u32(u32::from(code)).unwrap_or(' '),
            })
            .collect();
        let style = MonoTextStyleBuilder::new()
            .font(self.config.font)
            .text_color(colors.fg)
            .background_color(colors.bg)
            .build();
        let origin = self.cell_origin(row, col);
        Text::with_baseline(&text, origin, style, Baseline::Top).draw(target)?;
        let size = self.config.font.character_size;
        let tofu = Size::new(
            size.width.saturating_sub(1).max(1),
            size.height.saturating_sub(2).max(1),
        );
        let stroke = PrimitiveStyle::with_stroke(colors.fg, 1);
        for (k, _) in codes.iter().enumerate().filter(|(_, &c)| c == TOFU) {
            let at = self.cell_origin(row, col.saturating_add(k));
            Rectangle::new(at + Point::new(0, 1), tofu)
                .into_styled(stroke)
                .draw(target)?;
        }
        Ok(())
    }
}

/// What a row shows: its line's revision and style, and its cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RowState {
    rev: u32,
    /// `None`: unknown (redraw the whole row).
    style: Option<Style>,
}

/// The panel as last drawn, one code per cell: the shadow the next draw is
/// compared with.
struct Screen {
    cols: usize,
    rows: Vec<RowState>,
    cells: Vec<u16>,
    scratch: Vec<u16>,
    cleared: bool,
}

impl Screen {
    fn new(rows: usize, cols: usize) -> Self {
        Screen {
            cols,
            rows: vec![
                RowState {
                    rev: 0,
                    style: None
                };
                rows
            ],
            cells: vec![BLANK; rows.saturating_mul(cols)],
            scratch: vec![BLANK; cols],
            cleared: false,
        }
    }

    /// The panel was just cleared to the background.
    fn reset(&mut self) {
        for r in &mut self.rows {
            *r = RowState {
                rev: 0,
                style: Some(Style::Empty),
            };
        }
        self.cells.fill(BLANK);
        self.cleared = true;
    }

    /// Brings row `row` to `line` (`None`: an empty row), drawing only the
    /// cells that differ.
    fn draw_row<C: PixelColor, D: DrawTarget<Color = C>>(
        &mut self,
        row: usize,
        line: Option<RowLine<'_>>,
        pen: &Pen<'_, C>,
        target: &mut D,
        stats: &mut DrawStats,
    ) -> Result<(), D::Error> {
        let Some(state) = self.rows.get(row).copied() else {
            return Ok(());
        };
        let (style, rev) = line
            .as_ref()
            .map_or((Style::Empty, 0), |l| (l.style, l.rev));
        if state.style == Some(style) && state.rev == rev {
            return Ok(());
        }
        stats.rows = stats.rows.saturating_add(1);
        self.scratch.fill(BLANK);
        if let Some(l) = &line {
            line_codes(l, pen.config.charset, &mut self.scratch);
        }
        let start = row.saturating_mul(self.cols);
        let Some(old) = self.cells.get_mut(start..start.saturating_add(self.cols)) else {
            return Ok(());
        };
        let new = pen.colors(style);
        let old_colors = state.style.map(|s| pen.colors(s));
        // Which cells to draw: those that differ, all glyphs if only the
        // text colour changed, all glyphs after a fill.
        let same_bg = old_colors.is_some_and(|o| o.bg == new.bg);
        let same_fg = old_colors.is_some_and(|o| o.fg == new.fg);
        if !same_bg {
            pen.fill_row(row, new.bg, target)?;
            stats.fills = stats.fills.saturating_add(1);
        }
        let needs = |k: usize| {
            let n = self.scratch.get(k).copied().unwrap_or(BLANK);
            let o = old.get(k).copied().unwrap_or(BLANK);
            if same_bg {
                n != o || (!same_fg && n != BLANK)
            } else {
                n != BLANK
            }
        };
        let mut k = 0;
        while k < self.cols {
            if !needs(k) {
                k = k.saturating_add(1);
                continue;
            }
            let run_start = k;
            while k < self.cols && needs(k) {
                k = k.saturating_add(1);
            }
            let run = self.scratch.get(run_start..k).unwrap_or_default();
            pen.draw_cells(row, run_start, run, new, target)?;
            stats.cells = stats
                .cells
                .saturating_add(u32::try_from(run.len()).unwrap_or(u32::MAX));
        }
        old.copy_from_slice(&self.scratch);
        if let Some(s) = self.rows.get_mut(row) {
            *s = RowState {
                rev,
                style: Some(style),
            };
        }
        Ok(())
    }
}

/// The cell codes of a line.
fn line_codes(line: &RowLine<'_>, charset: Charset, out: &mut [u16]) {
    let text = line
        .text
        .get(line.span.start..line.span.end)
        .unwrap_or_default();
    let mut cells = out.iter_mut();
    for c in text.chars() {
        let code = match classify(c) {
            CharClass::Newline | CharClass::ZeroWidth => continue,
            CharClass::Space | CharClass::NoBreakSpace => BLANK,
            CharClass::Glyph => glyph_code(c, charset),
        };
        match cells.next() {
            Some(cell) => *cell = code,
            None => break,
        }
    }
}

/// The code of a character that takes a cell: itself if the font has it,
/// else the replacement box.
fn glyph_code(c: char, charset: Charset) -> u16 {
    match u16::try_from(u32::from(c)) {
        Ok(code) if code != BLANK && code != TOFU && charset.contains(c) => code,
        _ => TOFU,
    }
}

/// A pixel coordinate; panels are far smaller than `i32::MAX`.
fn px(v: usize) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scroll_moves_in_steps_and_keeps_the_last_row() {
        assert_eq!(scroll_for(5, 10, 3), 0);
        assert_eq!(scroll_for(10, 10, 3), 0);
        assert_eq!(scroll_for(11, 10, 3), 3);
        assert_eq!(scroll_for(13, 10, 3), 3);
        assert_eq!(scroll_for(14, 10, 3), 6);
        for total in 0..100 {
            let s = scroll_for(total, 10, 4);
            assert!(s + 10 >= total, "last row visible");
            assert!(s < total.max(1), "something visible");
        }
    }

    #[test]
    fn fit_cuts_with_an_ellipsis() {
        assert_eq!(fit("running", 20, 1, false), "running");
        assert_eq!(
            fit("error: something long happened", 12, 1, false),
            "error: so..."
        );
        assert_eq!(fit("{\"a\":1", 20, 1, true), "{\"a\":1...");
        assert_eq!(
            fit("one two three four five", 10, 2, false),
            "one two three f..."
        );
        assert_eq!(fit("a\nb", 20, 1, false), "a...");
        assert_eq!(fit("x", 20, 0, false), "");
    }

    #[test]
    fn glyph_codes() {
        assert_eq!(glyph_code('a', Charset::Latin1), u16::from(b'a'));
        assert_eq!(glyph_code('日', Charset::Latin1), TOFU);
        assert_eq!(glyph_code('😀', Charset::Latin1), TOFU);
        assert_eq!(glyph_code('\u{1}', Charset::Latin1), TOFU);
        assert_eq!(glyph_code('é', Charset::Ascii), TOFU);
    }
}
