//! The device's side of the gateway line protocol (docs/SPEC.md, "Device
//! line protocol"): what `agui-gateway` sends down the serial line is
//! NDJSON — one verified AG-UI event per line — plus the gateway's own
//! lines, which start with `!`. [`Router`] splits the two without
//! buffering the events: event bytes go on to the pipeline as they come,
//! a gateway line is kept in a small fixed buffer until its end.

/// The byte that starts a gateway line (an AG-UI event line starts with `{`).
pub const GATEWAY: u8 = b'!';

/// Longest gateway line kept; the rest of a longer one is counted, not kept.
pub const GATEWAY_LINE: usize = 160;

/// Where the router is within the current line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// At the start of a line: its first byte decides.
    LineStart,
    /// Inside an event line: bytes go to the pipeline.
    Event,
    /// Inside a gateway line.
    Gateway,
}

/// A piece of the incoming bytes, in order.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Bytes of the AG-UI event stream, for the pipeline.
    Events(&'a [u8]),
    /// A complete gateway line, without `!` and the line end. `cut` is true
    /// when it was longer than [`GATEWAY_LINE`] and only its start is here.
    Gateway {
        /// The line's start.
        line: &'a [u8],
        /// Whether the line was longer than the buffer.
        cut: bool,
    },
}

/// Splits the gateway's byte stream into event bytes and gateway lines.
#[derive(Debug)]
pub struct Router {
    at: At,
    line: [u8; GATEWAY_LINE],
    len: usize,
    cut: bool,
}

impl Default for Router {
    fn default() -> Self {
        Self::new()
    }
}

impl Router {
    /// A router at the start of a line.
    pub const fn new() -> Self {
        Router {
            at: At::LineStart,
            line: [0; GATEWAY_LINE],
            len: 0,
            cut: false,
        }
    }

    /// Hands every piece of `bytes` to `f`, in order. Event bytes are
    /// passed through in runs (line ends included, so the pipeline's
    /// framer sees whole NDJSON lines); a gateway line when its `\n` came.
    pub fn route(&mut self, mut bytes: &[u8], mut f: impl FnMut(Piece<'_>)) {
        while let Some((&first, _)) = bytes.split_first() {
            match self.at {
                At::LineStart if first == GATEWAY => {
                    self.at = At::Gateway;
                    self.len = 0;
                    self.cut = false;
                    bytes = bytes.get(1..).unwrap_or_default();
                }
                At::LineStart | At::Event => {
                    let end = bytes.iter().position(|&b| b == b'\n');
                    let take = end.map_or(bytes.len(), |at| at + 1);
                    let (events, rest) = bytes.split_at(take);
                    f(Piece::Events(events));
                    self.at = if end.is_some() {
                        At::LineStart
                    } else {
                        At::Event
                    };
                    bytes = rest;
                }
                At::Gateway => bytes = self.gateway_bytes(bytes, &mut f),
            }
        }
    }

    /// Collects a gateway line's bytes; returns what follows its end.
    fn gateway_bytes<'b>(&mut self, bytes: &'b [u8], f: &mut impl FnMut(Piece<'_>)) -> &'b [u8] {
        let end = bytes.iter().position(|&b| b == b'\n');
        let (text, rest) = bytes.split_at(end.unwrap_or(bytes.len()));
        for &b in text {
            match self.line.get_mut(self.len) {
                Some(slot) => {
                    *slot = b;
                    self.len += 1;
                }
                None => self.cut = true,
            }
        }
        if end.is_none() {
            return rest;
        }
        let mut line = self.line.get(..self.len).unwrap_or_default();
        if let Some(stripped) = line.strip_suffix(b"\r") {
            line = stripped;
        }
        f(Piece::Gateway {
            line,
            cut: self.cut,
        });
        self.at = At::LineStart;
        // Skip the `\n`.
        rest.get(1..).unwrap_or_default()
    }
}
