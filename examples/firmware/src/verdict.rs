//! The serial firmware's one-line answer, with the meaning of the host's
//! `agui-replay --json`:
//!
//! ```text
//! {"ok":true,"accepted":12,"error":null}
//! {"ok":false,"accepted":3,"error":{"index":3,"stage":"verify","code":"message_not_active"}}
//! ```
//!
//! `accepted` counts frames decoded, expanded and verified; `index`,
//! `stage` and `code` are the failing frame, [`agui_core::Stage::as_str`]
//! and [`agui_core::Code::as_str`]. A UART line error (not a protocol
//! verdict) is reported with stage `"uart"` and the error's name as code,
//! at the index of the frame that was being received.

use agui_core::io::TransportError;

use crate::uart::{Uart0, UartError};

/// How a serial run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every frame was accepted.
    Ok {
        /// Frames accepted.
        accepted: u32,
    },
    /// The run stopped at frame `index`.
    Failed {
        /// Frames accepted before it.
        accepted: u32,
        /// The failing frame (from 0).
        index: u32,
        /// `decode`, `transform`, `verify` or `uart`.
        stage: &'static str,
        /// The stable code, e.g. `message_not_active`.
        code: &'static str,
    },
}

impl Verdict {
    /// The verdict of [`agui_core::io::run`]'s result; `accepted` is the
    /// pipeline's count (the result carries it only on success).
    pub fn new(result: &Result<u32, TransportError<UartError>>, accepted: u32) -> Self {
        match result {
            Ok(accepted) => Verdict::Ok {
                accepted: *accepted,
            },
            Err(TransportError::Protocol(e)) => Verdict::Failed {
                accepted,
                index: e.frame,
                stage: e.stage.as_str(),
                code: e.code.as_str(),
            },
            Err(TransportError::Io(e)) => Verdict::Failed {
                accepted,
                index: accepted,
                stage: "uart",
                code: e.as_str(),
            },
        }
    }

    /// True for [`Verdict::Ok`].
    pub fn is_ok(&self) -> bool {
        matches!(self, Verdict::Ok { .. })
    }

    /// Writes the verdict as one JSON line (with `\n`).
    pub fn write(&self, uart: &mut Uart0) {
        match *self {
            Verdict::Ok { accepted } => {
                uart.write_str("{\"ok\":true,\"accepted\":");
                uart.write_u32(accepted);
                uart.write_str(",\"error\":null}\n");
            }
            Verdict::Failed {
                accepted,
                index,
                stage,
                code,
            } => {
                uart.write_str("{\"ok\":false,\"accepted\":");
                uart.write_u32(accepted);
                uart.write_str(",\"error\":{\"index\":");
                uart.write_u32(index);
                // Stage and code are fixed ASCII words: nothing to escape.
                uart.write_str(",\"stage\":\"");
                uart.write_str(stage);
                uart.write_str("\",\"code\":\"");
                uart.write_str(code);
                uart.write_str("\"}}\n");
            }
        }
    }
}
