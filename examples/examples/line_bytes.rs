//! Bytes on the gateway → device line, NDJSON vs protobuf
//! (`agui-gateway --device-encoding`), per text delta and per stream:
//!
//! ```text
//! cargo run -p agui-examples --example line_bytes -- examples/samples/chat.ndjson
//! python3 examples/bench/token_stream.py ndjson > tok.ndjson
//! cargo run -p agui-examples --example line_bytes -- tok.ndjson
//! ```
//!
//! Each NDJSON line counts as the gateway relays it (the agent's text and
//! its `\n`), each protobuf frame as `proto_encode` writes it (4-byte length
//! and `Event`). The time is computed from the bytes, not measured (QEMU's
//! UART is not timed): 10 bits a byte (8N1) at 115 200 baud.

use agui_examples::proto_encode::encode_frame;
use serde_json::Value;

const BAUD: f64 = 115_200.0;

fn ms(bytes: f64) -> f64 {
    bytes * 10.0 / BAUD * 1000.0
}

#[derive(Default)]
struct Sum {
    n: usize,
    ndjson: usize,
    proto: usize,
}

impl Sum {
    fn add(&mut self, ndjson: usize, proto: usize) {
        self.n += 1;
        self.ndjson += ndjson;
        self.proto += proto;
    }

    fn row(&self, what: &str) {
        if self.n == 0 {
            return;
        }
        let (n, j, p) = (self.n as f64, self.ndjson as f64, self.proto as f64);
        println!(
            "| {what} | {} | {:.1} B, {:.2} ms | {:.1} B, {:.2} ms | {:.0} % |",
            self.n,
            j / n,
            ms(j / n),
            p / n,
            ms(p / n),
            100.0 * p / j
        );
    }
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: line_bytes FILE.ndjson");
    let text = std::fs::read_to_string(&path).expect("readable file");
    let (mut all, mut deltas, mut chunks, mut skipped) =
        (Sum::default(), Sum::default(), Sum::default(), 0);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let event: Value = serde_json::from_str(line).expect("an NDJSON event line");
        let Ok(frame) = encode_frame(&event) else {
            skipped += 1;
            continue;
        };
        let (j, p) = (line.len() + 1, frame.len());
        all.add(j, p);
        match event["type"].as_str() {
            Some("TEXT_MESSAGE_CONTENT") => deltas.add(j, p),
            Some("TEXT_MESSAGE_CHUNK") => chunks.add(j, p),
            _ => {}
        }
    }
    println!("{path}: {skipped} events without a protobuf form skipped");
    println!("| events | count | NDJSON per event | proto per event | proto/NDJSON |");
    println!("|---|---:|---:|---:|---:|");
    deltas.row("TEXT_MESSAGE_CONTENT");
    chunks.row("TEXT_MESSAGE_CHUNK");
    all.row("all");
    println!(
        "whole stream: NDJSON {} B ({:.1} ms), proto {} B ({:.1} ms)",
        all.ndjson,
        ms(all.ndjson as f64),
        all.proto,
        ms(all.proto as f64)
    );
}
