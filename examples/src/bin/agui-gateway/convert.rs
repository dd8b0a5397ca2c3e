//! `--protocol 1.0 --device-protocol current`: each 1.0 frame turned into
//! what the 1.0 reference's inbound processing makes of it (the
//! compatibility boundary and enforcement, SPEC 9.3 and 9.4), then read by
//! a client of the current protocol, as the device will read it.

use agui_alloc::client::{Client, OpenItems};
use agui_alloc::v1::Inbound;

/// What becomes of one frame on its way to the device.
#[derive(Debug, PartialEq, Eq)]
pub enum Converted {
    /// Enforcement drops it (an event type 1.0 does not know): nothing is
    /// relayed.
    Dropped,
    /// The processing leaves it as it is: the agent's text is relayed.
    AsSent,
    /// The processing rewrote it: this compact line (with its `\n`) is
    /// relayed instead.
    Rewritten(Vec<u8>),
}

/// The per-run state of the conversion: the inbound processing (its
/// remembered `THINKING_*` ids are per stream) and the device's reader.
pub struct ToCurrent {
    inbound: Inbound,
    /// A client of the current protocol fed every line the device gets:
    /// a line it refuses would stop the device's own pipeline, so it is
    /// not relayed.
    reader: Client,
}

impl ToCurrent {
    /// `reader` must read the current protocol, with the conversation's
    /// messages and state (the device's view of the thread).
    pub fn new(reader: Client) -> Self {
        ToCurrent {
            // The counter mint, as the conversation's own client mints: the
            // device gets the ids the gateway's thread holds.
            inbound: Inbound::new(),
            reader,
        }
    }

    /// Converts frame number `index` (`frame`: its JSON text, already
    /// accepted by the relay's 1.0 client).
    ///
    /// # Errors
    /// Why the frame cannot be converted (its text, or the processing,
    /// refuses it; the 1.0 client refused it first, so this is a guard).
    pub fn convert(&mut self, index: usize, frame: &[u8]) -> Result<Converted, String> {
        let value = agui_alloc::value::parse(frame)
            .map_err(|e| format!("frame {index}: not one JSON value: {e}"))?;
        // The comparison tells a rewritten frame from one left as it is
        // (kept byte for byte, as SPEC 11 relays frames).
        let sent = value.clone();
        // The warnings are the conversation's to report; the device gets
        // their result.
        let mut warnings = Vec::new();
        match self.inbound.process(index, value, &mut warnings) {
            Err(e) => Err(format!(
                "frame {index}: the compatibility boundary refuses it: {e}"
            )),
            Ok(None) => Ok(Converted::Dropped),
            Ok(Some(event)) if event == sent => Ok(Converted::AsSent),
            Ok(Some(event)) => {
                let mut line = serde_json::to_vec(&event)
                    .map_err(|e| format!("frame {index}: cannot write it: {e}"))?;
                line.push(b'\n');
                Ok(Converted::Rewritten(line))
            }
        }
    }

    /// Reads `line` (with its `\n`) as the device will.
    ///
    /// # Errors
    /// Why a reader of the current protocol refuses it, naming the agent's
    /// frame `index`.
    pub fn read(&mut self, index: usize, line: &[u8]) -> Result<(), String> {
        self.reader.feed(line).map_err(|e| {
            format!(
                "frame {index}: the device reads the current protocol, which refuses it: {} error [{}]: {}",
                e.stage.as_str(),
                e.code.as_str(),
                e.message
            )
        })
    }

    /// What the device holds open after the lines it got.
    pub fn open_items(&self) -> OpenItems {
        self.reader.open_items()
    }
}
