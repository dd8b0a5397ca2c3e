//! Decode + chunk expansion + verification on arbitrary bytes at arbitrary
//! splits, strict and keep-going:
//! - the records (events, errors, accepted count) do not depend on the split;
//! - keep-going reports at most one error per frame, in frame order, and
//!   every frame is either accepted or reported;
//! - strict and keep-going agree on everything before the first error.
#![no_main]

use agui_core::pipeline::Mode;
use agui_fuzz::{check_modes, pipeline, seed_and_rest, split};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (seed, input) = seed_and_rest(data);
    let pieces = split(input, seed);
    let strict = pipeline(Mode::Strict, &[input]);
    assert_eq!(strict, pipeline(Mode::Strict, &pieces), "strict: split changed the result");
    let going = pipeline(Mode::KeepGoing, &[input]);
    assert_eq!(going, pipeline(Mode::KeepGoing, &pieces), "keep-going: split changed the result");

    check_modes(&strict, &going);
});
