//! Command-line values the host tools share.

use std::time::Duration;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_positive_finite_seconds_are_taken() {
        assert_eq!(parse_seconds("0.5"), Ok(Duration::from_millis(500)));
        for bad in ["0", "-1", "nan", "inf", "ten", ""] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
    }
}
