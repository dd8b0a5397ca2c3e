//! Folding a stream into messages and state with `Client`, as a host or a
//! kiosk does.
//!
//! The client verifies each frame with the core's pipeline, then folds it:
//! text deltas become whole messages, tool-call arguments become JSON,
//! state snapshots and patches become one state value. Bytes may arrive
//! in pieces cut anywhere (here 512-byte reads, as from a socket).
//!
//! `cargo run -p agui-alloc --example fold --features std`

use agui_alloc::client::Client;

/// The bundled sample conversation.
const STREAM: &[u8] = include_bytes!("../../examples/samples/chat.ndjson");

fn main() {
    let mut client = Client::new();
    let folded = STREAM
        .chunks(512)
        .try_for_each(|piece| client.feed(piece))
        .and_then(|()| client.finish());
    if let Err(error) = folded {
        eprintln!("rejected: {error}");
        std::process::exit(1);
    }
    for message in client.messages() {
        let text = message.text().unwrap_or("");
        println!("[{}] {text}", message.role_name());
        for call in message.tool_calls() {
            let f = &call.function;
            println!("  tool call {} {}: {}", call.id, f.name, f.arguments);
        }
    }
    println!("state: {}", client.state());
    println!("ok: {} frames accepted", client.accepted());
}
