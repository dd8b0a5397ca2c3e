//! The protobuf framer on arbitrary bytes: never panics, always makes
//! progress, and gives the same frames (JSON text, or the fault and its
//! offset) for the whole input, a random split and byte-at-a-time; every
//! complete frame's text is one JSON object with a string `type` (or holds
//! bytes that are not UTF-8, which the JSON decoder then rejects, as the
//! proto strings they came from carried them).
#![no_main]

use agui_fuzz::{proto_frames, seed_and_rest, split, ProtoFrame};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (seed, input) = seed_and_rest(data);
    let whole = proto_frames(&[input]);
    let pieces = split(input, seed);
    assert_eq!(whole, proto_frames(&pieces), "split changed the frames");
    if input.len() <= 512 {
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(whole, proto_frames(&bytes), "byte-at-a-time changed the frames");
    }
    assert!(whole.0.len() <= whole.1 as usize, "more frames than the framer counted");
    for frame in &whole.0 {
        let ProtoFrame::Text(text) = frame else { continue };
        if std::str::from_utf8(text).is_err() {
            continue;
        }
        let value: serde_json::Value = serde_json::from_slice(text)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(text)));
        assert!(value["type"].is_string(), "no type: {value}");
    }
});
