//! The core's fixed RAM: the whole pipeline state is a value of a size
//! known at compile time (no heap), and it must fit a small MCU's budget.

use agui_core::decode::Decoder;
use agui_core::frame::Framer;
use agui_core::json::Tokenizer;
use agui_core::pipeline::{DefaultPipeline, EventReader};
use agui_core::verify::Verifier;
use core::mem::size_of;

/// The default pipeline (64-byte ids, 8 open messages / tool calls /
/// steps, nesting 32) fits in 4 KiB.
#[test]
fn default_pipeline_fits_in_4_kib() {
    let size = size_of::<DefaultPipeline>();
    println!("DefaultPipeline: {size} bytes");
    println!("  Framer: {} bytes", size_of::<Framer>());
    println!("  EventReader: {} bytes", size_of::<EventReader>());
    println!("    Decoder: {} bytes", size_of::<Decoder>());
    println!("      Tokenizer: {} bytes", size_of::<Tokenizer>());
    println!("    Verifier: {} bytes", size_of::<Verifier>());
    assert!(size <= 4096, "DefaultPipeline is {size} bytes");
}

/// The tokenizer's state is a few dozen bytes whatever the nesting limit
/// (one bit per level).
#[test]
fn tokenizer_is_tiny() {
    assert!(size_of::<Tokenizer<64>>() <= 64);
    assert_eq!(size_of::<Tokenizer<1>>(), size_of::<Tokenizer<64>>());
}
