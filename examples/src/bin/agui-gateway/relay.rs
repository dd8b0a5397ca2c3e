//! Relaying a run's verified frames to the device.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use agui_alloc::client::Client;
use agui_alloc::hooks::Subscriber;
use agui_alloc::http::{Encoding, RunObserver};
use agui_core::frame::{FrameEvent, Framer};
use agui_core::proto::{ProtoFramer, ProtoPiece};

use crate::convert::{Converted, ToCurrent};
use crate::device_cap::DeviceCapacity;
use crate::port::DeviceOut;

/// Sees the HTTP body as it arrives: frames it, verifies each frame with a
/// client of its own (the same rules the conversation folds with), turns a
/// 1.0 frame into the current protocol for a device that reads only that
/// (`--device-protocol current`), checks what is to be sent against the
/// device's capacity (`--device-capacity`) and writes each accepted frame
/// to the device as one NDJSON line, at once. A protobuf body is read by
/// the core's protobuf framer, whose frames are the JSON text of each
/// event: the device gets the same NDJSON lines.
pub struct Relay<'a> {
    device: &'a DeviceOut,
    framer: Framer,
    /// The protobuf reader, when the response is protobuf.
    proto: Option<Box<ProtoFramer>>,
    frame: Vec<u8>,
    shadow: Client,
    /// The shadow client rejected a frame: nothing more is relayed.
    pub rejected: bool,
    /// `--device-protocol current` under `--protocol 1.0`: the conversion.
    to_current: Option<ToCurrent>,
    /// A frame the device could not read after its conversion, and why:
    /// it was not relayed, nor anything after it.
    pub unreadable: Option<String>,
    /// `--device-capacity`: the device's tables.
    device_capacity: Option<DeviceCapacity>,
    /// A frame the device could not hold, and why: it was not relayed,
    /// nor anything after it.
    pub over_device: Option<String>,
    /// Why a write to the device failed, if one did.
    pub device_error: Option<String>,
    /// `--latency`: keep `latencies`.
    latency: bool,
    /// With `--latency`, per relayed frame: µs from the arrival of its last
    /// bytes to its write; empty without it (8 bytes a frame otherwise).
    pub latencies: Vec<u64>,
    /// Set when the device fails: the run is then cancelled.
    cancel: Arc<AtomicBool>,
}

impl<'a> Relay<'a> {
    pub fn new(
        device: &'a DeviceOut,
        shadow: Client,
        cancel: Arc<AtomicBool>,
        latency: bool,
        device_capacity: Option<DeviceCapacity>,
        to_current: Option<ToCurrent>,
    ) -> Self {
        Relay {
            device,
            framer: Framer::new(None),
            proto: None,
            frame: Vec::new(),
            shadow,
            rejected: false,
            to_current,
            unreadable: None,
            device_capacity,
            over_device: None,
            device_error: None,
            latency,
            latencies: Vec::new(),
            cancel,
        }
    }

    /// The body ended: a last frame without its terminator still counts
    /// (SPEC section 1), as it did for the conversation.
    pub fn finish(&mut self) {
        let arrived = Instant::now();
        if let Some(piece) = self.proto.as_mut().and_then(|p| p.end()) {
            self.on_piece(piece, arrived);
            return;
        }
        while let Some(event) = self.framer.finish() {
            self.on_frame_event(event, arrived);
        }
    }

    fn on_frame_event(&mut self, event: FrameEvent<'_>, arrived: Instant) {
        match event {
            FrameEvent::Start => self.frame.clear(),
            FrameEvent::Data(data) => self.frame.extend_from_slice(data),
            FrameEvent::End => self.on_frame(arrived),
        }
    }

    /// One piece of a protobuf body: the frame events of the text path; a
    /// malformed frame stops the relay, as the conversation stops there.
    fn on_piece(&mut self, piece: ProtoPiece<'_>, arrived: Instant) {
        match piece {
            ProtoPiece::Start => self.on_frame_event(FrameEvent::Start, arrived),
            ProtoPiece::Data(text) => self.on_frame_event(FrameEvent::Data(text), arrived),
            ProtoPiece::Text(text) => {
                self.on_frame_event(FrameEvent::Data(text.as_bytes()), arrived)
            }
            ProtoPiece::End => self.on_frame_event(FrameEvent::End, arrived),
            ProtoPiece::Fail(_) => self.rejected = true,
        }
    }

    /// A complete frame: verify, convert, then relay.
    fn on_frame(&mut self, arrived: Instant) {
        if self.rejected
            || self.over_device.is_some()
            || self.unreadable.is_some()
            || self.device_error.is_some()
        {
            return;
        }
        for b in &mut self.frame {
            if *b == b'\r' || *b == b'\n' {
                *b = b' ';
            }
        }
        self.frame.push(b'\n');
        if self.shadow.feed(&self.frame).is_err() {
            self.rejected = true;
            return;
        }
        let index = usize::try_from(self.shadow.accepted().saturating_sub(1)).unwrap_or(usize::MAX);
        // What the device is sent: the frame as it came, or its conversion.
        let mut rewritten = None;
        if let Some(to_current) = &mut self.to_current {
            match to_current.convert(index, &self.frame) {
                Ok(Converted::Dropped) => return,
                Ok(Converted::AsSent) => {}
                Ok(Converted::Rewritten(line)) => rewritten = Some(line),
                Err(why) => {
                    self.unreadable = Some(why);
                    return;
                }
            }
            let line = rewritten.as_deref().unwrap_or(&self.frame);
            if let Err(why) = to_current.read(index, line) {
                self.unreadable = Some(why);
                return;
            }
        }
        let line = rewritten.as_deref().unwrap_or(&self.frame);
        if let Some(capacity) = &self.device_capacity {
            // The device's open items are its reader's when the frames are
            // converted (a dropped frame opens nothing there).
            let open = match &self.to_current {
                Some(to_current) => to_current.open_items(),
                None => self.shadow.open_items(),
            };
            if let Err(over) = capacity.check(line, open) {
                self.over_device = Some(format!("frame {index}: {over}"));
                return;
            }
        }
        // `--device-encoding proto`: the line's protobuf frame; an event
        // the protobuf schema has no place for ends the device's run as a
        // frame it cannot read.
        let bytes = match self.device.event_bytes(line) {
            Ok(bytes) => bytes,
            Err(why) => {
                self.unreadable = Some(format!("frame {index}: {why} (--device-encoding proto)"));
                return;
            }
        };
        match self.device.write_lines(&[&bytes]) {
            Ok(()) if self.latency => {
                self.latencies.push(arrived.elapsed().as_micros() as u64);
            }
            Ok(()) => {}
            Err(e) => {
                eprintln!("agui-gateway: cannot write to the device: {e}");
                self.device_error = Some(e.to_string());
                self.cancel.store(true, Ordering::Relaxed);
            }
        }
    }
}

impl Subscriber for Relay<'_> {}

impl RunObserver for Relay<'_> {
    fn on_encoding(&mut self, encoding: Encoding) {
        self.proto = match encoding {
            Encoding::Proto => Some(Box::new(ProtoFramer::new())),
            Encoding::Sse => None,
        };
    }

    fn on_bytes(&mut self, mut bytes: &[u8]) {
        let arrived = Instant::now();
        if self.proto.is_some() {
            loop {
                let Some(proto) = self.proto.as_mut() else {
                    return;
                };
                let (used, piece) = proto.next(bytes);
                bytes = bytes.get(used..).unwrap_or_default();
                match piece {
                    Some(piece) => self.on_piece(piece, arrived),
                    // No progress: the bytes are used up.
                    None if used == 0 => return,
                    None => {}
                }
            }
        }
        while !bytes.is_empty() {
            let (used, event) = self.framer.next(bytes);
            bytes = bytes.get(used..).unwrap_or_default();
            if let Some(event) = event {
                self.on_frame_event(event, arrived);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::time::Duration;

    use super::*;

    /// L2: without `--latency` no latency is kept (it was 8 bytes a frame,
    /// for every frame of every run).
    #[test]
    fn latencies_are_kept_only_with_the_flag() {
        let device = DeviceOut::new(Box::new(io::sink()), Duration::from_secs(1));
        let start = b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n";
        let chunk = b"{\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m\",\"delta\":\"x\"}\n";
        for latency in [false, true] {
            let cancel = Arc::new(AtomicBool::new(false));
            let mut relay = Relay::new(&device, Client::new(), cancel, latency, None, None);
            relay.on_bytes(start);
            for _ in 0..1_000 {
                relay.on_bytes(chunk);
            }
            assert!(!relay.rejected);
            let kept = relay.latencies.capacity();
            assert_eq!(kept >= 1_001, latency, "latency {latency}: {kept}");
            assert_eq!(kept == 0, !latency, "latency {latency}: {kept}");
        }
    }
}
