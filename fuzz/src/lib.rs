//! Helpers shared by the fuzz targets: deterministic splits of an input
//! into pieces, and owned records of what the pipeline produced, so that
//! two runs over the same bytes can be compared.

use agui_core::frame::{Format, FrameEvent, Framer};
use agui_core::pipeline::{DefaultPipeline, Mode, Output};
use agui_core::proto::{ProtoPiece, ProtoFramer};

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

/// One frame of a protobuf stream as [`ProtoFramer`] handed it out: its
/// index, and its JSON text when it ended, or its error code when it failed
/// (only the code: the text written before a fault is not part of the
/// contract).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProtoFrame {
    /// A complete frame's JSON text.
    Text(Vec<u8>),
    /// A failed frame: its error's code and the offset it names.
    Fail(&'static str, Option<u64>),
}

/// The frames of a protobuf stream fed in `pieces`, and the framer's frame
/// count. Checks the framer's contract on the way: every call consumes a
/// byte or hands out a piece, and the pieces handed out without input are
/// a bounded run, Start / text / End order, no empty text, `end` ends.
pub fn proto_frames(pieces: &[&[u8]]) -> (Vec<ProtoFrame>, u32) {
    let mut framer: ProtoFramer = ProtoFramer::new();
    let mut done = Vec::new();
    let mut open: Option<Vec<u8>> = None;
    let mut on_piece = |piece: ProtoPiece<'_>, open: &mut Option<Vec<u8>>| match piece {
        ProtoPiece::Start => {
            assert!(open.is_none(), "Start inside an open frame");
            *open = Some(Vec::new());
        }
        ProtoPiece::Data(d) => {
            assert!(!d.is_empty(), "empty Data");
            open.as_mut().expect("Data outside a frame").extend_from_slice(d);
        }
        ProtoPiece::Text(t) => {
            assert!(!t.as_bytes().is_empty(), "empty Text");
            open.as_mut().expect("Text outside a frame").extend_from_slice(t.as_bytes());
        }
        ProtoPiece::End => done.push(ProtoFrame::Text(open.take().expect("End outside a frame"))),
        ProtoPiece::Fail(e) => {
            // A fault ends the open frame, if one was started (a cut or
            // oversized length prefix fails before its Start).
            *open = None;
            let offset = if let agui_core::error::Detail::Proto { offset, .. } = e.detail {
                Some(offset)
            } else {
                None
            };
            done.push(ProtoFrame::Fail(e.code.as_str(), offset));
        }
    };
    for piece in pieces {
        let mut rest = *piece;
        let mut idle = 0;
        loop {
            let (used, found) = framer.next(rest);
            assert!(used <= rest.len());
            idle = if used == 0 { idle + 1 } else { 0 };
            // The end of a message writes its absent fields' defaults and
            // closing braces without input: a bounded run, one piece each.
            assert!(idle < 1024, "pieces without consuming input");
            rest = &rest[used..];
            match found {
                Some(piece) => on_piece(piece, &mut open),
                None if used == 0 => break,
                None => {}
            }
        }
        assert!(rest.is_empty(), "input left over");
    }
    if let Some(piece) = framer.end() {
        on_piece(piece, &mut open);
    }
    assert!(framer.end().is_none(), "end does not end");
    assert!(open.is_none(), "frame still open after end");
    (done, framer.frames())
}

/// [`pipeline`] for a protobuf stream: the core's [`ProtoFramer`] feeding
/// the default pipeline (decode, chunk expansion, verification).
pub fn proto_pipeline(mode: Mode, pieces: &[&[u8]]) -> (Vec<Record>, u32, u32, Option<(u32, &'static str)>) {
    let mut p = DefaultPipeline::new();
    p.set_mode(mode);
    let mut framer: ProtoFramer = ProtoFramer::new();
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
        if let Err(e) = framer.feed(&mut p, piece, &mut out) {
            failed = Some((e.frame, e.code.as_str()));
            break;
        }
    }
    if failed.is_none() {
        if let Err(e) = framer.finish(&mut p, &mut out) {
            failed = Some((e.frame, e.code.as_str()));
        }
    }
    (records, p.accepted(), framer.frames(), failed)
}

/// The invariants of a pipeline's strict and keep-going runs over the
/// same stream (both from [`pipeline`] or [`proto_pipeline`]):
/// - keep-going returns no error, reports at most one error per frame, in
///   frame order, and every frame is either accepted or reported;
/// - a rejected frame hands out no event (frames are atomic);
/// - strict stops at the first error, and before it both saw the same.
pub fn check_modes(
    strict: &(Vec<Record>, u32, u32, Option<(u32, &'static str)>),
    going: &(Vec<Record>, u32, u32, Option<(u32, &'static str)>),
) {
    let (records, accepted, frames, failed) = going;
    assert!(failed.is_none(), "keep-going returned an error");
    let errors: Vec<u32> = records
        .iter()
        .filter_map(|r| match r {
            Record::Error(frame, ..) => Some(*frame),
            Record::Event(_) => None,
        })
        .collect();
    assert!(errors.windows(2).all(|w| w[0] < w[1]), "errors not one per frame in order: {errors:?}");
    assert_eq!(*accepted as usize + errors.len(), *frames as usize, "a frame neither accepted nor reported");
    let frame_of = |text: &str| -> u32 { text.split(' ').nth(2).unwrap().parse().unwrap() };
    for r in records {
        if let Record::Event(text) = r {
            let frame = frame_of(text);
            assert!(!errors.contains(&frame), "events of rejected frame {frame} were handed out");
        }
    }
    if let Some((index, _)) = strict.3 {
        assert_eq!(strict.1, index, "strict accepted count is not the failing frame's index");
        let before = |r: &&Record| match r {
            Record::Event(text) => frame_of(text) < index,
            Record::Error(..) => false,
        };
        let a: Vec<&Record> = strict.0.iter().filter(before).collect();
        let b: Vec<&Record> = records.iter().filter(before).collect();
        assert_eq!(a, b, "strict and keep-going differ before the first error");
        assert_eq!(errors.first(), Some(&index), "keep-going's first error is elsewhere");
    }
}
