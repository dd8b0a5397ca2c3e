//! Decode + chunk expansion + verification on arbitrary bytes at arbitrary
//! splits, strict and keep-going:
//! - the records (events, errors, accepted count) do not depend on the split;
//! - keep-going reports at most one error per frame, in frame order, and
//!   every frame is either accepted or reported;
//! - strict and keep-going agree on everything before the first error.
#![no_main]

use agui_core::pipeline::Mode;
use agui_fuzz::{pipeline, seed_and_rest, split, Record};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (seed, input) = seed_and_rest(data);
    let pieces = split(input, seed);
    let strict = pipeline(Mode::Strict, &[input]);
    assert_eq!(strict, pipeline(Mode::Strict, &pieces), "strict: split changed the result");
    let going = pipeline(Mode::KeepGoing, &[input]);
    assert_eq!(going, pipeline(Mode::KeepGoing, &pieces), "keep-going: split changed the result");

    let (records, accepted, frames, failed) = &going;
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
    // A rejected frame hands out no event at all (frames are atomic).
    for r in records {
        if let Record::Event(text) = r {
            let frame: u32 = text.split(' ').nth(2).unwrap().parse().unwrap();
            assert!(!errors.contains(&frame), "events of rejected frame {frame} were handed out");
        }
    }

    if let Some((index, _)) = strict.3 {
        assert_eq!(strict.1, index, "strict accepted count is not the failing frame's index");
        // Before the first failing frame both modes saw the same events.
        let before = |r: &&Record| match r {
            Record::Event(text) => {
                let frame: u32 = text.split(' ').nth(2).unwrap().parse().unwrap();
                frame < index
            }
            Record::Error(..) => false,
        };
        let a: Vec<&Record> = strict.0.iter().filter(before).collect();
        let b: Vec<&Record> = records.iter().filter(before).collect();
        assert_eq!(a, b, "strict and keep-going differ before the first error");
        assert_eq!(errors.first(), Some(&index), "keep-going's first error is elsewhere");
    }
});
