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

/// What 1.0 support costs. The 1.0 tables are const generics (`OWNERS`,
/// `AGENTS`), 0 in the default pipeline, which keeps only the decoder's
/// 1.0 state (slots for `subagentRunId` and the parent ids, the nested
/// shape checker) and the chunker's and verifier's empty tables.
/// [`V1Pipeline`] has 16 entries per owner table and 4 sub-agents.
#[test]
fn v1_pipeline_footprint() {
    use agui_core::chunk::Chunker;
    use agui_core::compat::Compat;
    use agui_core::pipeline::V1Pipeline;
    use agui_core::verify::v1::Owners;
    let size = size_of::<V1Pipeline>();
    println!(
        "V1Pipeline: {size} bytes (DefaultPipeline: {})",
        size_of::<DefaultPipeline>()
    );
    println!(
        "  Owners<64, 16, 4>: {} bytes",
        size_of::<Owners<64, 16, 4>>()
    );
    println!(
        "  Owners<64, 0, 0>: {} bytes",
        size_of::<Owners<64, 0, 0>>()
    );
    println!("  Chunker<64, 4>: {} bytes", size_of::<Chunker<64, 4>>());
    println!("  Chunker<64, 0>: {} bytes", size_of::<Chunker<64, 0>>());
    println!("  Compat: {} bytes", size_of::<Compat<64>>());
    println!("  Error: {} bytes", size_of::<agui_core::Error>());
    // Four owner tables of 16 (id, owner) entries, 16 open steps, 4
    // sub-agents and 4 lanes: about 6 KiB on top of the default.
    assert!(size <= 12 * 1024, "V1Pipeline is {size} bytes");
}
