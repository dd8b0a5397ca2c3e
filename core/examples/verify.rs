//! Verifying a stream with the no-heap pipeline, as firmware does.
//!
//! Everything lives in fixed buffers: the pipeline (its size is set by its
//! const parameters), a 64-byte read buffer and the streams in "flash". A
//! UART hands over bytes in pieces cut anywhere, so they go in 64 at a
//! time; the pipeline never buffers a frame. On a board the `println!`s
//! would be UART writes.
//!
//! `cargo run -p agui-core --example verify --features std`

use agui_core::pipeline::{DefaultPipeline, Output};

/// The bundled sample conversation, standing in for bytes off a UART.
const SAMPLE: &[u8] = include_bytes!("../../examples/samples/chat.ndjson");
/// A stream that breaks a rule: content for a message that never started.
const BROKEN: &[u8] = b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}
{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m1\",\"delta\":\"Hi\"}
";

fn main() {
    verify(SAMPLE);
    verify(BROKEN);
}

/// Feeds `stream` to a fresh pipeline in 64-byte reads and prints the
/// verified events, then the verdict.
fn verify(stream: &[u8]) {
    let mut pipeline = DefaultPipeline::new();
    let mut buf = [0u8; 64];
    let mut print = |out: Output<'_>| {
        if let Output::Event(event) = out {
            // A verified event, in order: act on it here.
            println!("  {:<26} {}", event.kind.as_str(), event.id);
        }
    };
    // In strict mode (the default) the first bad frame ends the stream.
    let verdict = stream
        .chunks(buf.len())
        .try_for_each(|piece| {
            // What a UART read fills: a piece of the stream, cut anywhere.
            let (read, _) = buf.split_at_mut(piece.len());
            read.copy_from_slice(piece);
            pipeline.feed(read, &mut print)
        })
        .and_then(|()| pipeline.finish(&mut print));
    match verdict {
        Ok(()) => println!("ok: {} frames accepted", pipeline.accepted()),
        Err(error) => println!("rejected: {error}"),
    }
}
