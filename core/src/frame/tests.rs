extern crate std;

use super::*;
use proptest::prelude::*;
use std::vec::Vec;
use std::{format, vec};

const AUTO: Option<Format> = None;
const NDJSON: Option<Format> = Some(Format::Ndjson);
const SSE: Option<Format> = Some(Format::Sse);

/// Assembles frames from events, checking their grammar on the way.
#[derive(Default)]
struct Collector {
    frames: Vec<Vec<u8>>,
    open: Option<Vec<u8>>,
}

impl Collector {
    fn push(&mut self, event: FrameEvent<'_>) {
        match event {
            FrameEvent::Start => {
                assert!(self.open.is_none(), "Start inside a frame");
                self.open = Some(Vec::new());
            }
            FrameEvent::Data(bytes) => {
                assert!(!bytes.is_empty(), "empty Data");
                self.open
                    .as_mut()
                    .expect("Data outside a frame")
                    .extend_from_slice(bytes);
            }
            FrameEvent::End => {
                let frame = self.open.take().expect("End outside a frame");
                self.frames.push(frame);
            }
        }
    }
}

/// Runs `framer` over `slices` then `finish`, checking the `next`
/// contract on every call, and returns the frames. A copy of the framer
/// runs the same slices trying `next_frame` before each `next`, as
/// `Client` does: the frames and the framer's end state must be the same.
fn run(framer: &mut Framer, slices: &[&[u8]]) -> Vec<Vec<u8>> {
    let mut whole = framer.clone();
    let frames = run_with(framer, slices, false);
    let by_frame = run_with(&mut whole, slices, true);
    assert_eq!(frames, by_frame, "next_frame: {slices:?}");
    assert_eq!(format!("{framer:?}"), format!("{whole:?}"), "{slices:?}");
    frames
}

/// [`run`] one way: `next` alone, or `next_frame` first (`whole`).
fn run_with(framer: &mut Framer, slices: &[&[u8]], whole: bool) -> Vec<Vec<u8>> {
    let mut out = Collector::default();
    for slice in slices {
        let mut buf = *slice;
        // Each call consumes a byte or emits an event; at most a few
        // events consume nothing in a row.
        let mut budget = 4 * buf.len() + 4;
        while !buf.is_empty() {
            budget -= 1;
            assert!(budget > 0, "no progress");
            if let Some((used, text)) = whole.then(|| framer.next_frame(buf)).flatten() {
                assert!(used > 0 && used <= buf.len());
                out.push(FrameEvent::Start);
                out.push(FrameEvent::Data(text));
                out.push(FrameEvent::End);
                buf = &buf[used..];
                continue;
            }
            let (used, event) = framer.next(buf);
            assert!(used <= buf.len());
            assert!(used > 0 || event.is_some(), "no progress");
            match event {
                Some(event) => out.push(event),
                None => assert_eq!(used, buf.len(), "None before the input ran out"),
            }
            buf = &buf[used..];
        }
    }
    let mut calls = 0;
    while let Some(event) = framer.finish() {
        calls += 1;
        assert!(calls <= 3, "finish does not stop");
        out.push(event);
    }
    assert!(out.open.is_none(), "frame left open after finish");
    assert_eq!(framer.frames() as usize, out.frames.len());
    out.frames
}

fn frames_of(format: Option<Format>, slices: &[&[u8]]) -> Vec<Vec<u8>> {
    run(&mut Framer::new(format), slices)
}

fn frames(format: Option<Format>, input: &[u8]) -> Vec<Vec<u8>> {
    frames_of(format, &[input])
}

/// The events of one `next` loop over `input`, without `finish`.
fn events(format: Option<Format>, input: &[u8]) -> Vec<FrameEvent<'_>> {
    let mut framer = Framer::new(format);
    let mut buf = input;
    let mut out = Vec::new();
    while !buf.is_empty() {
        let (used, event) = framer.next(buf);
        out.extend(event);
        buf = &buf[used..];
    }
    out
}

fn texts(frames: &[&str]) -> Vec<Vec<u8>> {
    frames.iter().map(|f| f.as_bytes().to_vec()).collect()
}

/// The frames of `input` with every single cut, every pair of cuts
/// (short inputs), one byte at a time and with empty slices mixed in:
/// all must agree with the unsplit result, which is returned.
fn split_invariant(format: Option<Format>, input: &[u8]) -> Vec<Vec<u8>> {
    let whole = frames(format, input);
    for at in 0..=input.len() {
        let (a, b) = input.split_at(at);
        assert_eq!(
            frames_of(format, &[a, b]),
            whole,
            "{format:?} cut at {at}: {input:?}"
        );
        assert_eq!(frames_of(format, &[a, b"", b]), whole);
        if input.len() <= 40 {
            for at2 in at..=b.len() + at {
                let (b1, b2) = input[at..].split_at(at2 - at);
                assert_eq!(frames_of(format, &[a, b1, b2]), whole, "cuts {at},{at2}");
            }
        }
    }
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    assert_eq!(
        frames_of(format, &bytes),
        whole,
        "{format:?} byte at a time: {input:?}"
    );
    whole
}

// ----- reference framers: simple, whole-input, obviously right -----

fn strip_bom(input: &[u8]) -> &[u8] {
    input.strip_prefix(BOM.as_slice()).unwrap_or(input)
}

fn ndjson_oracle(input: &[u8]) -> Vec<Vec<u8>> {
    strip_bom(input)
        .split(|&b| b == b'\n')
        .filter_map(|line| {
            let start = line.iter().position(|b| !b" \t\r".contains(b))?;
            let text = &line[start..];
            Some(text.strip_suffix(b"\r").unwrap_or(text).to_vec())
        })
        .collect()
}

/// Lines split at LF, CR LF or CR; an unterminated last line included.
fn sse_lines(input: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < input.len() {
        match input[i] {
            b'\r' | b'\n' => {
                lines.push(&input[start..i]);
                i += if input[i..].starts_with(b"\r\n") {
                    2
                } else {
                    1
                };
                start = i;
            }
            _ => i += 1,
        }
    }
    if start < input.len() {
        lines.push(&input[start..]);
    }
    lines
}

fn sse_oracle(input: &[u8]) -> Vec<Vec<u8>> {
    let mut frames = Vec::new();
    let mut data: Option<Vec<u8>> = None;
    for line in sse_lines(strip_bom(input)) {
        if line.is_empty() {
            frames.extend(data.take());
            continue;
        }
        if line[0] == b':' {
            continue;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        if name == b"data" {
            match &mut data {
                Some(d) => {
                    d.push(b'\n');
                    d.extend_from_slice(value);
                }
                None => data = Some(value.to_vec()),
            }
        }
    }
    frames.extend(data);
    frames
}

/// The detected format and frames.
fn oracle(format: Option<Format>, input: &[u8]) -> (Option<Format>, Vec<Vec<u8>>) {
    let format = format.or_else(|| {
        let decider = strip_bom(input).iter().find(|b| !b" \t\r\n".contains(b))?;
        Some(if *decider == b'{' {
            Format::Ndjson
        } else {
            Format::Sse
        })
    });
    match format {
        None => (None, Vec::new()),
        Some(Format::Ndjson) => (format, ndjson_oracle(input)),
        Some(Format::Sse) => (format, sse_oracle(input)),
    }
}

// ----- NDJSON -----

#[test]
fn ndjson_one_frame_per_line() {
    let input = b"{\"a\":1}\n{\"b\":2}\n";
    assert_eq!(frames(NDJSON, input), texts(&["{\"a\":1}", "{\"b\":2}"]));
    assert_eq!(
        events(NDJSON, b"{}\n"),
        [FrameEvent::Start, FrameEvent::Data(b"{}"), FrameEvent::End]
    );
}

#[test]
fn ndjson_cr_before_lf_is_not_payload() {
    assert_eq!(frames(NDJSON, b"{}\r\n{ }\r\n"), texts(&["{}", "{ }"]));
    assert_eq!(frames_of(NDJSON, &[b"{}\r", b"\n{}"]), texts(&["{}", "{}"]));
    // Only the one CR right before the LF.
    assert_eq!(frames(NDJSON, b"{}\r\r\n"), texts(&["{}\r"]));
}

#[test]
fn ndjson_other_cr_is_payload() {
    assert_eq!(frames(NDJSON, b"{\"a\":\r1}\n"), texts(&["{\"a\":\r1}"]));
    // A lone CR does not end an NDJSON line.
    assert_eq!(frames(NDJSON, b"{}\r{}\n"), texts(&["{}\r{}"]));
    // Held back at a slice end, then released as a static `\r`.
    let mut framer = Framer::new(NDJSON);
    assert_eq!(framer.next(b"{\r"), (0, Some(FrameEvent::Start)));
    assert_eq!(framer.next(b"{\r"), (2, Some(FrameEvent::Data(b"{"))));
    assert_eq!(framer.next(b"}\n"), (0, Some(FrameEvent::Data(b"\r"))));
    assert_eq!(framer.next(b"}\n"), (1, Some(FrameEvent::Data(b"}"))));
    assert_eq!(framer.next(b"\n"), (1, Some(FrameEvent::End)));
}

#[test]
fn ndjson_only_lf_ends_a_line() {
    // U+2028 and U+2029 (E2 80 A8 / E2 80 A9) are ordinary bytes.
    let input = "{\"a\":\"x\u{2028}y\u{2029}z\"}\n{}\n".as_bytes();
    assert_eq!(
        frames(NDJSON, input),
        texts(&["{\"a\":\"x\u{2028}y\u{2029}z\"}", "{}"])
    );
}

#[test]
fn ndjson_blank_lines_are_skipped_and_not_counted() {
    let mut framer = Framer::new(NDJSON);
    let input = b"\n \t \n\r\n\t\r \n{\"a\":1}\n   \n\n{\"b\":2}\n \n";
    assert_eq!(
        run(&mut framer, &[input]),
        texts(&["{\"a\":1}", "{\"b\":2}"])
    );
    assert_eq!(framer.frames(), 2);
    assert_eq!(frames(NDJSON, b" \t\r\n\n"), texts(&[]));
}

#[test]
fn ndjson_leading_whitespace_is_dropped() {
    assert_eq!(frames(NDJSON, b"  \t{}\n\r {}\n"), texts(&["{}", "{}"]));
    // Trailing whitespace is payload (JSON ignores it too).
    assert_eq!(frames(NDJSON, b"{} \t\n"), texts(&["{} \t"]));
}

#[test]
fn ndjson_unterminated_final_line() {
    let mut framer = Framer::new(NDJSON);
    assert_eq!(framer.next(b"{}\n{\"a\""), (0, Some(FrameEvent::Start)));
    assert_eq!(
        framer.next(b"{}\n{\"a\""),
        (2, Some(FrameEvent::Data(b"{}")))
    );
    assert_eq!(framer.next(b"\n{\"a\""), (1, Some(FrameEvent::End)));
    assert_eq!(framer.next(b"{\"a\""), (0, Some(FrameEvent::Start)));
    assert_eq!(
        framer.next(b"{\"a\""),
        (4, Some(FrameEvent::Data(b"{\"a\"")))
    );
    assert_eq!(framer.finish(), Some(FrameEvent::End));
    assert_eq!(framer.finish(), None);
    assert_eq!(framer.frames(), 2);
    // A CR at the very end is dropped; blank tails are nothing.
    assert_eq!(frames(NDJSON, b"{}\r"), texts(&["{}"]));
    assert_eq!(frames(NDJSON, b"{}\n  \t"), texts(&["{}"]));
}

#[test]
fn ndjson_bom_is_skipped() {
    assert_eq!(frames(NDJSON, b"\xEF\xBB\xBF{}\n"), texts(&["{}"]));
    assert_eq!(
        frames_of(NDJSON, &[b"\xEF", b"\xBB", b"\xBF{}\n"]),
        texts(&["{}"])
    );
    // Only at the very start.
    assert_eq!(
        frames(NDJSON, b"{}\n\xEF\xBB\xBF{}\n"),
        [b"{}".to_vec(), b"\xEF\xBB\xBF{}".to_vec()]
    );
}

#[test]
fn ndjson_broken_bom_is_payload() {
    assert_eq!(frames(NDJSON, b"\xEF\xBB{}\n"), [b"\xEF\xBB{}".to_vec()]);
    assert_eq!(frames_of(NDJSON, &[b"\xEF", b"\n"]), [b"\xEF".to_vec()]);
    // Cut off at the end of the stream: finish delivers the whole frame.
    let mut framer = Framer::new(NDJSON);
    assert_eq!(framer.next(b"\xEF\xBB"), (2, None));
    assert_eq!(framer.finish(), Some(FrameEvent::Start));
    assert_eq!(framer.finish(), Some(FrameEvent::Data(b"\xEF\xBB")));
    assert_eq!(framer.finish(), Some(FrameEvent::End));
    assert_eq!(framer.finish(), None);
}

// ----- SSE -----

#[test]
fn next_frame_takes_ordinary_frames_whole() {
    // Until the first bytes rule out a byte order mark, `next` frames.
    let mut framer = Framer::new(SSE);
    assert_eq!(framer.next_frame(b"data: 1\n\n"), None);
    let mut first: &[u8] = b"data: 1\n\n";
    while !first.is_empty() {
        first = &first[framer.next(first).0..];
    }
    let input = b"data: {\"a\":1}\n\ndata:x\r\n\r\n";
    if !crate::FAST {
        // Without the fast paths every frame goes through `next`.
        assert_eq!(framer.next_frame(input), None);
        return;
    }
    let (used, text) = framer.next_frame(input).expect("an ordinary SSE frame");
    assert_eq!((used, text), (15, &b"{\"a\":1}"[..]));
    assert_eq!(framer.frames(), 2);
    // A CR line end is left to `next`.
    assert_eq!(framer.next_frame(&input[used..]), None);
    let mut framer = Framer::new(NDJSON);
    let mut first: &[u8] = b"1\n";
    while !first.is_empty() {
        first = &first[framer.next(first).0..];
    }
    assert_eq!(framer.next_frame(b"{}\r\n{"), Some((4, &b"{}"[..])));
    // No LF yet: the frame may go on.
    assert_eq!(framer.next_frame(b"{"), None);
    // Still detecting the format: `next` decides it.
    assert_eq!(Framer::new(AUTO).next_frame(b"{}\n"), None);
}

#[test]
fn sse_single_event() {
    assert_eq!(
        events(SSE, b"data: {}\n\n"),
        [FrameEvent::Start, FrameEvent::Data(b"{}"), FrameEvent::End]
    );
}

#[test]
fn sse_line_ends_lf_crlf_cr() {
    let expected = texts(&["a\nb", "c"]);
    assert_eq!(frames(SSE, b"data: a\ndata: b\n\ndata: c\n\n"), expected);
    assert_eq!(
        frames(SSE, b"data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n"),
        expected
    );
    assert_eq!(frames(SSE, b"data: a\rdata: b\r\rdata: c\r\r"), expected);
    // Mixed, including CR followed by CR LF (two line ends).
    assert_eq!(frames(SSE, b"data: a\rdata: b\r\r\ndata: c\n\r"), expected);
    assert_eq!(
        frames(SSE, b"data: a\r\ndata: b\n\rdata: c\r\n\n"),
        expected
    );
}

#[test]
fn sse_crlf_split_across_slices_is_one_line_end() {
    // Were the LF a second line end, it would dispatch `a` alone.
    let input = b"data: a\r\ndata: b\r\n\r\n";
    assert_eq!(
        frames_of(SSE, &[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]),
        texts(&["a\nb"])
    );
    assert_eq!(split_invariant(SSE, input), texts(&["a\nb"]));
}

#[test]
fn sse_blank_line_dispatches() {
    let mut framer = Framer::new(SSE);
    assert_eq!(framer.next(b"data:1\n"), (5, Some(FrameEvent::Start)));
    assert_eq!(framer.frames(), 1);
    assert_eq!(framer.next(b"1\n"), (1, Some(FrameEvent::Data(b"1"))));
    assert_eq!(framer.next(b"\n"), (1, None));
    assert_eq!(framer.next(b"\n"), (1, Some(FrameEvent::End)));
    assert_eq!(framer.finish(), None);
}

#[test]
fn sse_one_leading_space_is_dropped() {
    assert_eq!(frames(SSE, b"data:x\n\n"), texts(&["x"]));
    assert_eq!(frames(SSE, b"data: x\n\n"), texts(&["x"]));
    assert_eq!(frames(SSE, b"data:  x \n\n"), texts(&[" x "]));
    assert_eq!(frames(SSE, b"data:\tx\n\n"), texts(&["\tx"]));
    // Colons in the value are kept.
    assert_eq!(
        frames(SSE, b"data: {\"a\":\"b:c\"}\n\n"),
        texts(&["{\"a\":\"b:c\"}"])
    );
}

#[test]
fn sse_data_lines_are_joined_with_lf() {
    assert_eq!(
        frames(SSE, b"data: {\"a\":\ndata: 1}\n\n"),
        texts(&["{\"a\":\n1}"])
    );
    assert_eq!(
        frames(SSE, b"data: a\ndata:\ndata: b\n\n"),
        texts(&["a\n\nb"])
    );
    assert_eq!(
        events(SSE, b"data:a\ndata:b\n\n"),
        [
            FrameEvent::Start,
            FrameEvent::Data(b"a"),
            FrameEvent::Data(b"\n"),
            FrameEvent::Data(b"b"),
            FrameEvent::End,
        ]
    );
    // Ignored lines between data lines do not break the event.
    assert_eq!(
        frames(SSE, b"data: a\n: c\nid: 1\ndata: b\n\n"),
        texts(&["a\nb"])
    );
}

#[test]
fn sse_data_without_colon_is_an_empty_data_line() {
    assert_eq!(frames(SSE, b"data\n\n"), texts(&[""]));
    assert_eq!(frames(SSE, b"data\r\ndata: x\r\n\r\n"), texts(&["\nx"]));
    assert_eq!(
        frames(SSE, b"data: a\ndata\ndata: b\n\n"),
        texts(&["a\n\nb"])
    );
}

#[test]
fn sse_empty_data_is_a_frame() {
    let mut framer = Framer::new(SSE);
    assert_eq!(run(&mut framer, &[b"data:\n\n"]), texts(&[""]));
    assert_eq!(framer.frames(), 1);
    assert_eq!(
        events(SSE, b"data: \n\n"),
        [FrameEvent::Start, FrameEvent::End]
    );
}

#[test]
fn sse_comments_are_ignored() {
    assert_eq!(frames(SSE, b": hello\n\n:\n\n:data: x\n\n"), texts(&[]));
    assert_eq!(
        frames(SSE, b":keep-alive\r\ndata: x\r\n:\r\n\r\n"),
        texts(&["x"])
    );
}

#[test]
fn sse_other_fields_are_ignored() {
    let mut framer = Framer::new(SSE);
    let input = b"event: message\nid: 7\nretry: 100\nfoo: bar\nevent\n\ndata: x\nevent: y\n\n";
    assert_eq!(run(&mut framer, &[input]), texts(&["x"]));
    assert_eq!(framer.frames(), 1);
}

#[test]
fn sse_names_like_data_are_not_data() {
    let input = b"dataX: 1\ndat: 2\nd: 3\ndatum: 4\ndata_:5\nDATA: 6\n data: 7\ndat\nd\n\n";
    assert_eq!(frames(SSE, input), texts(&[]));
    assert_eq!(frames(SSE, b"datadata: x\n\ndata: y\n\n"), texts(&["y"]));
}

#[test]
fn sse_event_without_data_is_no_frame() {
    let mut framer = Framer::new(SSE);
    let input = b"\n\nevent: a\n\n: c\n\nid: 1\n\ndata: first\n\nretry: 9\n\ndata: second\n\n\n\n";
    assert_eq!(run(&mut framer, &[input]), texts(&["first", "second"]));
    assert_eq!(framer.frames(), 2);
}

#[test]
fn sse_frame_index_counts_only_frames() {
    let mut framer = Framer::new(SSE);
    let mut buf: &[u8] = b": c\n\nevent: e\n\ndata: 0\n\nid: 1\n\ndata: 1\n\n";
    let mut indexes = Vec::new();
    while !buf.is_empty() {
        let (used, event) = framer.next(buf);
        if event == Some(FrameEvent::Start) {
            indexes.push(framer.frames() - 1);
        }
        buf = &buf[used..];
    }
    assert_eq!(indexes, [0, 1]);
}

#[test]
fn sse_unterminated_final_event() {
    assert_eq!(frames(SSE, b"data: x"), texts(&["x"]));
    assert_eq!(frames(SSE, b"data: x\n"), texts(&["x"]));
    assert_eq!(frames(SSE, b"data: x\r"), texts(&["x"]));
    assert_eq!(frames(SSE, b"data: a\nid: 1"), texts(&["a"]));
    assert_eq!(frames(SSE, b"data:"), texts(&[""]));
    assert_eq!(frames(SSE, b"dat"), texts(&[]));
    assert_eq!(frames(SSE, b"id: 1\n"), texts(&[]));
    // A last line `data` without line end is an empty data line.
    assert_eq!(frames(SSE, b"data"), texts(&[""]));
    let mut framer = Framer::new(SSE);
    assert_eq!(framer.next(b"data: a\ndata"), (5, Some(FrameEvent::Start)));
    assert_eq!(framer.next(b" a\ndata"), (2, Some(FrameEvent::Data(b"a"))));
    assert_eq!(framer.next(b"\ndata"), (5, None));
    assert_eq!(framer.finish(), Some(FrameEvent::Data(b"\n")));
    assert_eq!(framer.finish(), Some(FrameEvent::End));
    assert_eq!(framer.finish(), None);
}

#[test]
fn sse_bom_is_skipped() {
    assert_eq!(frames(SSE, b"\xEF\xBB\xBFdata: x\n\n"), texts(&["x"]));
    assert_eq!(
        frames_of(SSE, &[b"\xEF", b"\xBB", b"\xBFdata: x\n\n"]),
        texts(&["x"])
    );
    assert_eq!(
        frames_of(SSE, &[b"\xEF\xBB", b"\xBF", b"data: x\n\n"]),
        texts(&["x"])
    );
    // Only one, only at the very start: elsewhere it is part of a name.
    assert_eq!(
        frames(SSE, b"\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\n"),
        texts(&[])
    );
    assert_eq!(
        frames(SSE, b"data: x\n\n\xEF\xBB\xBFdata: y\n\n"),
        texts(&["x"])
    );
}

#[test]
fn sse_broken_bom_is_part_of_the_first_line() {
    assert_eq!(
        frames(SSE, b"\xEF\xBBdata: x\n\ndata: y\n\n"),
        texts(&["y"])
    );
    assert_eq!(frames(SSE, b"\xEF\ndata: y\n\n"), texts(&["y"]));
    assert_eq!(frames(SSE, b"\xEF\xBB"), texts(&[]));
}

#[test]
fn sse_hot_path_is_one_zero_copy_slice() {
    let mut input = b"data: ".to_vec();
    input.extend(core::iter::repeat_n(b'x', 4000));
    input.extend(b"\r\n\r\n");
    let got = events(SSE, &input);
    assert_eq!(got.len(), 3);
    let FrameEvent::Data(run) = got[1] else {
        panic!("{got:?}")
    };
    assert_eq!(run.len(), 4000);
    assert!(core::ptr::eq(run.as_ptr(), input[6..].as_ptr()));
}

#[test]
fn ndjson_hot_path_is_one_zero_copy_slice() {
    let mut input = b"{\"a\":\"".to_vec();
    input.extend(core::iter::repeat_n(b'x', 4000));
    input.extend(b"\"}\r\n");
    let got = events(NDJSON, &input);
    assert_eq!(got.len(), 3);
    let FrameEvent::Data(run) = got[1] else {
        panic!("{got:?}")
    };
    assert_eq!(run, &input[..input.len() - 2]);
    assert!(core::ptr::eq(run.as_ptr(), input.as_ptr()));
}

/// The word-at-a-time line-end search agrees with a byte loop, for
/// every length and position, with tabs and other low bytes about.
#[test]
fn line_end_search_is_exact() {
    let fill = [b'a', b'\t', 0x0B, 0x0C, 0x0E, 0xFF, b'"'];
    for len in 0..40 {
        for at in 0..=len {
            for &filler in &fill {
                for end in [b'\n', b'\r'] {
                    let mut bytes = vec![b'x'; len];
                    for (i, b) in bytes.iter_mut().enumerate() {
                        if i % 3 == 1 {
                            *b = filler;
                        }
                    }
                    if at < len {
                        bytes[at] = end;
                    }
                    let naive = bytes.iter().position(|&b| b == b'\n' || b == b'\r');
                    assert_eq!(find_line_end(&bytes), naive, "{bytes:?}");
                    let naive_lf = bytes.iter().position(|&b| b == b'\n');
                    assert_eq!(find_lf(&bytes), naive_lf, "{bytes:?}");
                }
            }
        }
    }
}

// ----- auto-detection -----

#[test]
fn auto_detects_ndjson() {
    let mut framer = Framer::new(AUTO);
    assert_eq!(framer.next(b"\xEF\xBB\xBF \r\n\t"), (7, None));
    assert_eq!(framer.format(), None);
    assert_eq!(
        run(&mut framer, &[b"\n{\"a\":1}\n{}"]),
        texts(&["{\"a\":1}", "{}"])
    );
    assert_eq!(framer.format(), Some(Format::Ndjson));
}

#[test]
fn auto_detects_sse() {
    for input in [
        &b"\n\r\ndata: {}\n\n"[..],
        b": hi\ndata: {}\n\n",
        b"event: x\ndata: {}\n\n",
    ] {
        let mut framer = Framer::new(AUTO);
        assert_eq!(run(&mut framer, &[input]), texts(&["{}"]), "{input:?}");
        assert_eq!(framer.format(), Some(Format::Sse));
    }
    // Any other deciding byte too, even one that makes no sense.
    let mut framer = Framer::new(AUTO);
    assert_eq!(run(&mut framer, &[b"[1]\n"]), texts(&[]));
    assert_eq!(framer.format(), Some(Format::Sse));
}

#[test]
fn auto_undecided_on_whitespace_only() {
    let mut framer = Framer::new(AUTO);
    assert_eq!(run(&mut framer, &[b"\xEF\xBB\xBF \t\r\n\n"]), texts(&[]));
    assert_eq!(framer.format(), None);
}

#[test]
fn auto_frames_like_the_explicit_format() {
    // An indented first line is a field ` data`, as with an explicit SSE.
    for input in [
        &b"  data: x\n\ndata: y\n\n"[..],
        b"\n\t data: x\n\ndata: y\n\n",
    ] {
        assert_eq!(frames(AUTO, input), texts(&["y"]));
        assert_eq!(frames(SSE, input), texts(&["y"]));
    }
    assert_eq!(frames(AUTO, b" \n data"), frames(SSE, b" \n data"));
    assert_eq!(frames(AUTO, b" \r\ndata"), texts(&[""]));
}

#[test]
fn auto_broken_bom_decides_sse() {
    let mut framer = Framer::new(AUTO);
    assert_eq!(
        run(&mut framer, &[b"\xEF\xBB{}\ndata: y\n\n"]),
        texts(&["y"])
    );
    assert_eq!(framer.format(), Some(Format::Sse));
    let mut framer = Framer::new(AUTO);
    assert_eq!(run(&mut framer, &[b"\xEF"]), texts(&[]));
    assert_eq!(framer.format(), Some(Format::Sse));
}

#[test]
fn auto_bom_split_across_slices() {
    let mut framer = Framer::new(AUTO);
    assert_eq!(
        run(&mut framer, &[b"\xEF", b"\xBB", b"\xBF", b"{}\n"]),
        texts(&["{}"])
    );
    assert_eq!(framer.format(), Some(Format::Ndjson));
}

// ----- the framer as a whole -----

#[test]
fn empty_input_is_no_event() {
    let mut framer = Framer::new(SSE);
    assert_eq!(framer.next(b""), (0, None));
    assert_eq!(framer.finish(), None);
    assert_eq!(frames(AUTO, b""), texts(&[]));
}

#[test]
fn reset_restores_new() {
    let mut framer = Framer::new(AUTO);
    assert_eq!(run(&mut framer, &[b"{}\n{}"]), texts(&["{}", "{}"]));
    framer.reset();
    assert_eq!(framer.format(), None);
    assert_eq!(framer.frames(), 0);
    // Detects again, and skips a BOM again.
    assert_eq!(
        run(&mut framer, &[b"\xEF\xBB\xBFdata: x\n\n"]),
        texts(&["x"])
    );
    assert_eq!(framer.format(), Some(Format::Sse));
    // Mid-frame too.
    let mut framer = Framer::new(NDJSON);
    let _ = framer.next(b"{\"a\r");
    framer.reset();
    assert_eq!(run(&mut framer, &[b"\n{}\n"]), texts(&["{}"]));
    assert_eq!(framer.format(), Some(Format::Ndjson));
    assert_eq!(Framer::default().format(), None);
}

#[test]
fn frame_counter_saturates() {
    let mut framer = Framer::new(NDJSON);
    framer.frames = u32::MAX - 1;
    let mut starts = 0;
    let mut buf: &[u8] = b"{}\n{}\n{}\n";
    while !buf.is_empty() {
        let (used, event) = framer.next(buf);
        starts += usize::from(event == Some(FrameEvent::Start));
        buf = &buf[used..];
    }
    assert_eq!(starts, 3);
    assert_eq!(framer.frames(), u32::MAX);
}

#[test]
fn finish_then_nothing() {
    let mut framer = Framer::new(SSE);
    let _ = framer.next(b"data: x");
    assert_eq!(framer.finish(), Some(FrameEvent::End));
    assert_eq!(framer.finish(), None);
    assert_eq!(framer.frames(), 1);
}

/// Inputs exercising every rule, for the split tests.
const CORPUS: &[&[u8]] = &[
    b"data: {\"a\":1}\n\n",
    b"data: a\r\ndata: b\r\n\r\ndata: c\rdata:d\r\r",
    b"\xEF\xBB\xBF: c\r\nevent: x\r\nid: 1\r\ndata\r\ndata:  z\r\n\r\ndata:",
    b"dataX: 1\ndat\ndata\n\n\r\n\rdata: tail",
    b"\xEF\xBBdata: x\n\ndata: y\r\n\r\n",
    b"\xEF\xBB\xBF\r\n \t\n{\"a\":\"\r\"}\r\n  \n\t{}\r\r\n{\"u\":\"\xE2\x80\xA8\"}",
    b"{}\n\n\r\n{\"x\":\r1}\r",
    b"\xEF\xBB{}\n\xEF\n",
    b"\n  data: x\n\ndata: y\n\n",
    b" \r\n",
    b"data",
    b"\xEF\xBB",
];

#[test]
fn every_split_gives_the_same_frames() {
    for input in CORPUS {
        for format in [AUTO, NDJSON, SSE] {
            let whole = split_invariant(format, input);
            assert_eq!(whole, oracle(format, input).1, "{format:?} {input:?}");
        }
    }
}

#[test]
fn detection_is_split_invariant() {
    for input in CORPUS {
        let expected = oracle(AUTO, input).0;
        for at in 0..=input.len() {
            let mut framer = Framer::new(AUTO);
            let _ = run(&mut framer, &[&input[..at], &input[at..]]);
            assert_eq!(framer.format(), expected, "cut at {at}: {input:?}");
        }
    }
}

// ----- property tests -----

/// One SSE line as a generator builds it, with what it adds to the event.
#[derive(Debug, Clone)]
enum SseItem {
    /// `data:` + raw value (a first space is dropped).
    Data(std::string::String),
    /// `data` alone.
    BareData,
    /// A comment or an ignored field, as written.
    Other(std::string::String),
}

fn sse_item() -> impl Strategy<Value = SseItem> {
    prop_oneof![
        4 => "[ ]{0,2}[a-z{}\":, \t\u{e9}\u{2028}]{0,12}".prop_map(SseItem::Data),
        1 => Just(SseItem::BareData),
        2 => (
            prop::sample::select(vec![":", ": ", "event:", "id: ", "retry:", "dataX:", "dat:", "datum", " data:", "x"]),
            "[a-z :]{0,6}"
        )
            .prop_map(|(name, value)| SseItem::Other(format!("{name}{value}"))),
    ]
}

const SSE_ENDS: [&str; 3] = ["\n", "\r\n", "\r"];

/// An SSE stream built from random events, with its expected frames.
fn sse_document() -> impl Strategy<Value = (Vec<u8>, Vec<Vec<u8>>)> {
    let event = prop::collection::vec((sse_item(), 0..3usize), 0..4);
    (
        any::<bool>(),
        prop::collection::vec((event, 0..3usize), 0..5),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(bom, events, dispatch_last, end_last_line)| {
            let mut doc = Vec::new();
            let mut expected = Vec::new();
            if bom {
                doc.extend_from_slice(BOM);
            }
            let mut last_end = "";
            let count = events.len();
            for (i, (lines, blank_end)) in events.into_iter().enumerate() {
                let last_event = i + 1 == count;
                let mut data: Option<Vec<u8>> = None;
                let line_count = lines.len();
                for (j, (item, end)) in lines.into_iter().enumerate() {
                    let value = match item {
                        SseItem::Data(value) => {
                            doc.extend_from_slice(b"data:");
                            doc.extend_from_slice(value.as_bytes());
                            Some(
                                value
                                    .strip_prefix(' ')
                                    .unwrap_or(&value)
                                    .as_bytes()
                                    .to_vec(),
                            )
                        }
                        SseItem::BareData => {
                            doc.extend_from_slice(b"data");
                            Some(Vec::new())
                        }
                        SseItem::Other(line) => {
                            doc.extend_from_slice(line.as_bytes());
                            None
                        }
                    };
                    if let Some(value) = value {
                        match &mut data {
                            Some(d) => {
                                d.push(b'\n');
                                d.extend(value);
                            }
                            None => data = Some(value),
                        }
                    }
                    let unterminated =
                        last_event && !dispatch_last && !end_last_line && j + 1 == line_count;
                    last_end = if unterminated { "" } else { SSE_ENDS[end] };
                    doc.extend_from_slice(last_end.as_bytes());
                }
                if !last_event || dispatch_last {
                    // A blank line LF right after a lone CR would merge
                    // into one CR LF line end.
                    let end = match SSE_ENDS[blank_end] {
                        "\n" if last_end == "\r" => "\r\n",
                        end => end,
                    };
                    doc.extend_from_slice(end.as_bytes());
                    last_end = end;
                }
                expected.extend(data);
            }
            (doc, expected)
        })
}

/// An NDJSON stream of random lines, with its expected frames.
fn ndjson_document() -> impl Strategy<Value = (Vec<u8>, Vec<Vec<u8>>)> {
    let line = prop_oneof![
        3 => ("[ \t]{0,2}", "[a-z{}\":, \t\r\u{e9}\u{2028}\u{2029}]{0,16}")
            .prop_map(|(indent, body)| (indent, Some(format!("{{{body}}}")))),
        1 => "[ \t\r]{0,4}".prop_map(|blank| (blank, None)),
    ];
    (
        any::<bool>(),
        prop::collection::vec((line, any::<bool>()), 0..6),
        any::<bool>(),
    )
        .prop_map(|(bom, lines, end_last)| {
            let mut doc = Vec::new();
            let mut expected = Vec::new();
            if bom {
                doc.extend_from_slice(BOM);
            }
            let count = lines.len();
            for (i, ((indent, payload), crlf)) in lines.into_iter().enumerate() {
                doc.extend_from_slice(indent.as_bytes());
                if let Some(payload) = payload {
                    doc.extend_from_slice(payload.as_bytes());
                    expected.push(payload.into_bytes());
                }
                if i + 1 < count || end_last {
                    doc.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
                } else if matches!(doc.last(), Some(b'\r')) {
                    // A bare CR at the end of the stream is no payload.
                    doc.push(b' ');
                }
            }
            (doc, expected)
        })
}

/// Cuts `doc` at the given (unsorted, possibly repeated) points.
fn cut<'a>(doc: &'a [u8], points: &[prop::sample::Index]) -> Vec<&'a [u8]> {
    let mut points: Vec<usize> = points.iter().map(|p| p.index(doc.len() + 1)).collect();
    points.sort_unstable();
    let mut slices = Vec::new();
    let mut from = 0;
    for at in points {
        slices.push(&doc[from..at]);
        from = at;
    }
    slices.push(&doc[from..]);
    slices
}

/// Random streams from pieces of both grammars, CR LF pairs and BOM
/// fragments included, for comparing with the reference framers.
fn byte_soup() -> impl Strategy<Value = Vec<u8>> {
    let pieces: Vec<&[u8]> = vec![
        b"data", b"data:", b"data: ", b"dat", b"id:", b":", b" ", b"\t", b"\r", b"\n", b"\r\n",
        b"\n\n", b"x", b"{", b"}", b"\xEF", b"\xBB", b"\xBF", BOM,
    ];
    prop::collection::vec(prop::sample::select(pieces), 0..24).prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn sse_documents_survive_any_split(
        (doc, expected) in sse_document(),
        points in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        prop_assert_eq!(&frames(SSE, &doc), &expected);
        prop_assert_eq!(&frames_of(SSE, &cut(&doc, &points)), &expected);
        let bytes: Vec<&[u8]> = doc.chunks(1).collect();
        prop_assert_eq!(&frames_of(SSE, &bytes), &expected);
        // Detection must land on SSE (no line starts with `{`), or
        // find nothing at all in an all-blank stream.
        prop_assert_eq!(&frames_of(AUTO, &cut(&doc, &points)), &expected);
    }

    #[test]
    fn ndjson_documents_survive_any_split(
        (doc, expected) in ndjson_document(),
        points in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        prop_assert_eq!(&frames(NDJSON, &doc), &expected);
        prop_assert_eq!(&frames_of(NDJSON, &cut(&doc, &points)), &expected);
        let bytes: Vec<&[u8]> = doc.chunks(1).collect();
        prop_assert_eq!(&frames_of(NDJSON, &bytes), &expected);
        prop_assert_eq!(&frames_of(AUTO, &cut(&doc, &points)), &expected);
    }

    #[test]
    fn any_bytes_frame_like_the_reference(
        soup in byte_soup(),
        format in prop::sample::select(vec![AUTO, NDJSON, SSE]),
        points in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        let (detected, expected) = oracle(format, &soup);
        let mut framer = Framer::new(format);
        prop_assert_eq!(&run(&mut framer, &cut(&soup, &points)), &expected);
        prop_assert_eq!(framer.format(), detected);
        let bytes: Vec<&[u8]> = soup.chunks(1).collect();
        prop_assert_eq!(&frames_of(format, &bytes), &expected);
    }
}
