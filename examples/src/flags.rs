//! Command-line values the host tools share: seconds, byte sizes, and the
//! client's limits (`--max-*`), the same flags with the same defaults in
//! every tool.

use std::time::Duration;

use agui_alloc::client::Limits;
use agui_alloc::http::Encoding;

/// `--encoding`: the encoding a tool asks the agent for (the request's
/// `Accept`). The response's `Content-Type` decides how it is read either
/// way, so `proto` still works with an agent that only sends SSE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum EncodingArg {
    /// Server-Sent Events (`Accept: text/event-stream`).
    #[default]
    Sse,
    /// AG-UI's protobuf encoding, SSE second (`Accept:
    /// application/vnd.ag-ui.event+proto, text/event-stream;q=0.9`).
    Proto,
}

impl EncodingArg {
    /// The [`Encoding`] to ask for.
    pub fn encoding(self) -> Encoding {
        match self {
            EncodingArg::Sse => Encoding::Sse,
            EncodingArg::Proto => Encoding::Proto,
        }
    }
}

/// A number of seconds from a flag (fractions allowed): more than zero, or
/// the reason it is not (the caller names the flag).
pub fn seconds(secs: f64) -> Result<Duration, String> {
    Duration::try_from_secs_f64(secs)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| "must be a positive number of seconds".to_owned())
}

/// [`seconds`] from the flag's text, as a clap value parser.
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .map_err(|_| "must be a positive number of seconds".to_owned())
        .and_then(seconds)
}

/// The units a byte size may end with, and their factors: `B`, the
/// decimal `kB`, `MB`, `GB` and the binary `KiB`, `MiB`, `GiB` (the case of
/// the letters does not matter: `1mib` is `1MiB`).
const UNITS: [(&str, u64); 7] = [
    ("b", 1),
    ("kb", 1_000),
    ("mb", 1_000_000),
    ("gb", 1_000_000_000),
    ("kib", 1 << 10),
    ("mib", 1 << 20),
    ("gib", 1 << 30),
];

/// A byte size from a flag: a whole number, optionally followed by a unit
/// (`65536`, `64KiB`, `1MiB`, `2GB`: `B`, `kB`, `MB`, `GB`, `KiB`, `MiB`, `GiB`,
/// in any case), as a clap value
/// parser. Zero is refused: a limit of nothing would refuse every stream.
pub fn parse_bytes(text: &str) -> Result<usize, String> {
    let bad = || {
        format!("'{text}' is not a byte size (a whole number, optionally with B, kB, MB, GB, KiB, MiB or GiB, e.g. 64MiB)")
    };
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = text.split_at(digits);
    let number: u64 = number.parse().map_err(|_| bad())?;
    let unit = unit.trim().to_ascii_lowercase();
    let factor = match unit.as_str() {
        "" => 1,
        unit => {
            UNITS
                .iter()
                .find(|(name, _)| *name == unit)
                .ok_or_else(bad)?
                .1
        }
    };
    let bytes = number
        .checked_mul(factor)
        .and_then(|b| usize::try_from(b).ok())
        .ok_or_else(|| format!("'{text}' is more bytes than this machine can count"))?;
    if bytes == 0 {
        return Err("must be more than 0 bytes".to_owned());
    }
    Ok(bytes)
}

/// A nesting depth from a flag: a whole number of levels, at least 1.
pub fn parse_levels(text: &str) -> Result<usize, String> {
    text.parse::<usize>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("'{text}' is not a number of levels (a whole number, at least 1)"))
}

/// The client's limits as flags, shared by every host tool (flatten it
/// into the tool's arguments). The message count is the tool's own flag
/// (`--max-messages`), since the gateway's already means the thread's
/// messages; [`LimitFlags::limits`] takes it. Each default is the
/// client's ([`Limits::default`]; a test checks they agree).
#[derive(clap::Args, Debug, Clone)]
pub struct LimitFlags {
    /// Longest frame accepted (SSE event or NDJSON line); a longer one is
    /// refused. BYTES takes a unit: 16MiB, 512KiB, 1GB.
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes, default_value = "16MiB")]
    pub max_frame_bytes: usize,

    /// Most bytes the conversation keeps: the messages' text, ids, names,
    /// arguments and metadata, plus what is kept to hold and find each
    /// message and tool call. The event that would pass it is refused and
    /// names this limit; everything before it is kept.
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes, default_value = "64MiB")]
    pub max_message_bytes: usize,

    /// Largest state (and activity content), as compact JSON.
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes, default_value = "16MiB")]
    pub max_state_bytes: usize,

    /// Deepest nesting of arrays and objects in the state or an activity's
    /// content.
    #[arg(long, value_name = "LEVELS", default_value_t = Limits::default().max_state_depth,
          value_parser = parse_levels)]
    pub max_state_depth: usize,

    /// Most bytes the stream's reader keeps for the items it tracks (the
    /// ids of open messages, tool calls and steps; in AG-UI 1.0 the owner
    /// tables).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes, default_value = "16MiB")]
    pub max_reader_bytes: usize,
}

impl LimitFlags {
    /// The client's limits: these flags, `max_messages`, and the defaults
    /// of the rest (the trace and the kept errors, which only
    /// `agui-replay` sets).
    pub fn limits(&self, max_messages: usize) -> Limits {
        Limits {
            max_frame_bytes: self.max_frame_bytes,
            max_messages,
            max_message_bytes: self.max_message_bytes,
            max_state_bytes: self.max_state_bytes,
            max_state_depth: self.max_state_depth,
            max_reader_bytes: self.max_reader_bytes,
            ..Limits::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn only_positive_finite_seconds_are_taken() {
        assert_eq!(parse_seconds("0.5"), Ok(Duration::from_millis(500)));
        for bad in ["0", "-1", "nan", "inf", "ten", ""] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn byte_sizes_take_decimal_and_binary_units() {
        let cases = [
            ("65536", 65_536),
            ("1MiB", 1 << 20),
            ("1mib", 1 << 20),
            ("64KiB", 64 << 10),
            ("2GB", 2_000_000_000),
            ("10kB", 10_000),
            ("7B", 7),
            ("3 MiB", 3 << 20),
        ];
        for (text, bytes) in cases {
            assert_eq!(parse_bytes(text), Ok(bytes), "{text}");
        }
        for bad in [
            "",
            "MiB",
            "1.5MiB",
            "-1",
            "1XB",
            "0",
            "0MiB",
            "99999999999999999999",
        ] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
        let e = parse_bytes("1XB").unwrap_err();
        assert!(e.contains("64MiB"), "{e}");
    }

    #[derive(Parser)]
    struct Tool {
        #[command(flatten)]
        limits: LimitFlags,
    }

    #[test]
    fn the_flags_defaults_are_the_clients() {
        let tool = Tool::parse_from(["tool"]);
        let defaults = Limits::default();
        assert_eq!(tool.limits.limits(defaults.max_messages), defaults);
        let tool = Tool::parse_from([
            "tool",
            "--max-message-bytes",
            "1MiB",
            "--max-state-depth",
            "600",
        ]);
        let limits = tool.limits.limits(5);
        assert_eq!(
            (
                limits.max_message_bytes,
                limits.max_state_depth,
                limits.max_messages
            ),
            (1 << 20, 600, 5)
        );
    }
}
