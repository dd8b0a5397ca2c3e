//! Helpers shared by the fuzz targets: deterministic splits of an input
//! into pieces, and owned records of what the pipeline produced, so that
//! two runs over the same bytes can be compared.

use agui_core::frame::{Format, FrameEvent, Framer};
use agui_core::pipeline::{DefaultPipeline, Mode, Output};

/// Cuts `input` into pieces at positions drawn from `seed` (a small
/// xorshift generator: the same seed gives the same cuts).
pub fn split(input: &[u8], seed: u64) -> Vec<&[u8]> {
    let mut state = seed | 1;
    let mut pieces = Vec::new();
    let mut rest = input;
    while !rest.is_empty() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        // Mostly short pieces (cuts inside tokens), sometimes long ones.
        let max = if state % 4 == 0 { 64 } else { 4 };
        let len = usize::try_from(state % max).unwrap_or(1).max(1).min(rest.len());
        let (piece, tail) = rest.split_at(len);
        pieces.push(piece);
        rest = tail;
    }
    pieces
}

/// The first bytes of the input as a seed, and the rest.
pub fn seed_and_rest(data: &[u8]) -> (u64, &[u8]) {
    let n = data.len().min(2);
    let (head, rest) = data.split_at(n);
    let seed = head.iter().fold(0x9e37_79b9_u64, |s, b| s.wrapping_mul(31).wrapping_add(u64::from(*b)));
    (seed, rest)
}

/// The complete frames of a stream (their text), the text of a frame left
/// open, and the framer's frame count. Checks the framer's contract on the
/// way: progress on every call, non-empty data, Start / Data / End order.
pub fn frames(format: Option<Format>, pieces: &[&[u8]]) -> (Vec<Vec<u8>>, u32) {
    let mut framer = Framer::new(format);
    let mut done = Vec::new();
    let mut open: Option<Vec<u8>> = None;
    let mut on_event = |event: FrameEvent<'_>, open: &mut Option<Vec<u8>>| match event {
        FrameEvent::Start => {
            assert!(open.is_none(), "Start inside an open frame");
            *open = Some(Vec::new());
        }
        FrameEvent::Data(d) => {
            assert!(!d.is_empty(), "empty Data");
            open.as_mut().expect("Data outside a frame").extend_from_slice(d);
        }
        FrameEvent::End => done.push(open.take().expect("End outside a frame")),
    };
    for piece in pieces {
        let mut rest = *piece;
        let mut idle = 0;
        while !rest.is_empty() {
            let (used, event) = framer.next(rest);
            assert!(used <= rest.len());
            assert!(used > 0 || event.is_some(), "no progress");
            idle = if used == 0 { idle + 1 } else { 0 };
            assert!(idle < 4, "events without consuming input");
            rest = &rest[used..];
            if let Some(event) = event {
                on_event(event, &mut open);
            }
        }
    }
    let mut left = 0;
    while let Some(event) = framer.finish() {
        left += 1;
        assert!(left < 4, "finish does not end");
        on_event(event, &mut open);
    }
    assert!(open.is_none(), "frame still open after finish");
    assert_eq!(framer.frames() as usize, done.len());
    (done, framer.frames())
}

/// What a pipeline handed out, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// A verified event: type, origin, frame, id, name.
    Event(String),
    /// A rejected frame: frame, stage, code.
    Error(u32, &'static str, &'static str),
}

/// Runs a default pipeline over the pieces; the records, the frames
/// accepted, and the strict error if any. Field parts are concatenated per
/// frame, since only their boundaries may depend on the split.
pub fn pipeline(mode: Mode, pieces: &[&[u8]]) -> (Vec<Record>, u32, u32, Option<(u32, &'static str)>) {
    let mut p = DefaultPipeline::new();
    p.set_mode(mode);
    let mut records = Vec::new();
    let mut out = |o: Output<'_>| match o {
        Output::Part(_) => {}
        Output::Event(ev) => records.push(Record::Event(format!(
            "{} {:?} {} {:?} {:?} {:?}",
            ev.kind.as_str(),
            ev.origin,
            ev.frame,
            ev.id,
            ev.name,
            ev.role
        ))),
        Output::Error(e) => records.push(Record::Error(e.frame, e.stage.as_str(), e.code.as_str())),
    };
    let mut failed = None;
    for piece in pieces {
        if let Err(e) = p.feed(piece, &mut out) {
            failed = Some((e.frame, e.code.as_str()));
            break;
        }
    }
    if failed.is_none() {
        if let Err(e) = p.finish(&mut out) {
            failed = Some((e.frame, e.code.as_str()));
        }
    }
    (records, p.accepted(), p.framer().frames(), failed)
}
