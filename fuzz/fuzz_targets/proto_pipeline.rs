//! The protobuf transport through the default pipeline (decode, chunk
//! expansion, verification) on arbitrary bytes at arbitrary splits, strict
//! and keep-going, with the invariants of the `pipeline` target: the same
//! records for every split, one error per rejected frame in order, every
//! frame accepted or reported, no event from a rejected frame, strict and
//! keep-going agreeing before the first error.
#![no_main]

use agui_core::pipeline::Mode;
use agui_fuzz::{check_modes, proto_pipeline, seed_and_rest, split};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (seed, input) = seed_and_rest(data);
    let pieces = split(input, seed);
    let strict = proto_pipeline(Mode::Strict, &[input]);
    assert_eq!(strict, proto_pipeline(Mode::Strict, &pieces), "strict: split changed the result");
    let going = proto_pipeline(Mode::KeepGoing, &[input]);
    assert_eq!(going, proto_pipeline(Mode::KeepGoing, &pieces), "keep-going: split changed the result");
    check_modes(&strict, &going);
});
