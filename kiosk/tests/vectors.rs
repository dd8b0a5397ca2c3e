//! Every public conformance stream renders without a panic, and drawing
//! after every event gives the same final picture as one draw at the end.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use std::fs;

use agui_kiosk::Theme;
use common::*;
use embedded_graphics::pixelcolor::{BinaryColor, Rgb565};
use embedded_graphics::prelude::*;
use serde_json::Value;

/// (name, NDJSON stream) for every vector in `tests/vectors/*.jsonl`.
fn vectors() -> Vec<(String, Vec<u8>)> {
    let dir = manifest_dir().join("../tests/vectors");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        for line in fs::read_to_string(&file).unwrap().lines() {
            if line.trim().is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(line).unwrap();
            let name = v["name"].as_str().unwrap_or("?").to_owned();
            let events = v["events"].as_array().cloned().unwrap_or_default();
            out.push((name, ndjson(&events)));
        }
    }
    out
}

#[test]
fn every_conformance_stream_renders() {
    let all = vectors();
    assert!(all.len() > 100, "found only {} vectors", all.len());
    for (name, input) in &all {
        let once = render_once_replay(input, COLOR, Theme::<Rgb565>::default());
        assert_same_replay(name, &colour(input), &once);
        let once = render_once_replay(input, MONO, Theme::mono());
        assert_same_replay(name, &mono(input), &once);
    }
}

#[test]
fn every_conformance_stream_renders_on_odd_sizes() {
    for (name, input) in vectors() {
        for size in [Size::new(97, 31), Size::new(6, 10), Size::new(1, 1)] {
            let r = replay(&input, size, Theme::<BinaryColor>::mono());
            let once = render_once_replay(&input, size, Theme::mono());
            assert_same_replay(&format!("{name} at {size:?}"), &r, &once);
        }
    }
}
