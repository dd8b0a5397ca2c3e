//! The framer on arbitrary bytes: never panics, always makes progress, and
//! gives the same frames for every split of the input (SPEC section 1).
#![no_main]

use agui_core::frame::Format;
use agui_fuzz::{frames, seed_and_rest, split};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (seed, input) = seed_and_rest(data);
    for format in [None, Some(Format::Ndjson), Some(Format::Sse)] {
        let whole = frames(format, &[input]);
        let pieces = split(input, seed);
        assert_eq!(whole, frames(format, &pieces), "split changed the frames");
        if input.len() <= 256 {
            let bytes: Vec<&[u8]> = input.chunks(1).collect();
            assert_eq!(whole, frames(format, &bytes), "byte-at-a-time changed the frames");
        }
        if format == Some(Format::Ndjson) {
            // Only LF ends an NDJSON line: no frame holds one.
            assert!(whole.0.iter().all(|f| !f.contains(&b'\n')));
        }
    }
});
