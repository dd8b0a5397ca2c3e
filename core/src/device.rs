//! The device line protocol of `agui-gateway` (docs/SPEC.md section 11),
//! both ends of it, in one place.
//!
//! A device that links only this crate talks to an agent through the
//! gateway over a byte stream (a serial port, or TCP for QEMU) of UTF-8
//! lines, each ending with `\n`.
//!
//! - **Device to gateway:** JSON objects (`TOOL`, a user message,
//!   `TOOL_CALL_RESULT`, `RESUME`, `RUN`, `DONE`, `HELLO`), `#` log lines
//!   and blank lines. The device writes them with [`RUN`], [`DONE`],
//!   [`HELLO`], [`write_log`] and the
//!   writers of [`reply`](crate::reply); the gateway sorts them with
//!   [`classify`], which checks everything but the fields of a line.
//! - **Gateway to device:** the run's events as NDJSON, and the gateway's
//!   own lines, which start with `!`. The device splits the two with
//!   [`Router`] and reads an `!error` line with [`GatewayLine::parse`];
//!   the gateway writes it with [`write_error`].
//!
//! ```
//! use agui_core::device::{classify, DeviceLine, GatewayLine, LineCode, Piece, Router, RUN};
//!
//! // The gateway sorts the device's lines...
//! assert_eq!(classify(RUN.as_bytes()), Ok(DeviceLine::Run));
//! assert_eq!(classify(b"#booted"), Ok(DeviceLine::Log(b"booted")));
//!
//! // ...and the device splits the gateway's events from its own lines.
//! let mut router = Router::new();
//! let mut errors = 0;
//! router.route(b"{\"type\":\"RUN_STARTED\"}\n!error busy try later\n", |piece| {
//!     if let Piece::Gateway { line, .. } = piece {
//!         let said = GatewayLine::parse(line);
//!         assert_eq!(said, GatewayLine::Error { code: Some(LineCode::Busy), message: b"try later" });
//!         errors += 1;
//!     }
//! });
//! assert_eq!(errors, 1);
//! ```

use core::fmt;
use core::str::Utf8Error;

use crate::json::{JsonError, Token, Tokenizer};

// The module's non-generic functions are `#[inline]`, so that they are
// compiled only in the crates that call them: an image that does not (the
// serial verifier) is then the same as without this module. Compiled into
// agui-core itself, they changed how the tokenizer code they share with the
// decoder was laid out: 668 bytes more in the 1.0 serial image, unused.

/// Longest device line, in bytes without its `\n`.
pub const MAX_LINE: usize = 65_536;

/// The byte that starts a device's log line.
pub const LOG: u8 = b'#';

/// The byte that starts a gateway line (an AG-UI event line starts with `{`).
pub const GATEWAY: u8 = b'!';

/// Longest gateway line [`Router`] keeps; the rest of a longer one is
/// counted, not kept.
pub const GATEWAY_LINE: usize = 160;

/// The device's line that asks for a run (without its `\n`).
pub const RUN: &str = r#"{"type":"RUN"}"#;

/// The device's line that ends the conversation (without its `\n`).
pub const DONE: &str = r#"{"type":"DONE"}"#;

/// The device's line that says it has (re)started: the gateway answers
/// with a resynchronising run of the conversation so far (without its
/// `\n`).
pub const HELLO: &str = r#"{"type":"HELLO"}"#;

// ---------------------------------------------------------------------------
// Error codes
// ---------------------------------------------------------------------------

/// The stable code of an `!error` line: what was wrong with a device line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LineCode {
    /// The line is longer than [`MAX_LINE`] bytes.
    LineTooLong,
    /// The line is not UTF-8.
    NotUtf8,
    /// The line is not a JSON object.
    NotJson,
    /// The line is an object that is none of the protocol's lines.
    UnknownLine,
    /// A required field is missing or has the wrong type.
    BadField,
    /// A tool result answers no call that awaits one, or a `RESUME` no
    /// pending interrupt.
    NotAwaited,
    /// `RUN` while the thread holds no message.
    NoMessage,
    /// The gateway's queue of lines waiting for the end of a run is full:
    /// the line was dropped, send it again after the run.
    Busy,
    /// The line would take the conversation past one of the gateway's
    /// limits (tools, messages, bytes): it was not taken.
    OverLimit,
    /// `RUN` while an interrupt of the last run has no answer: answer each
    /// with a `RESUME` line first.
    Unanswered,
}

impl LineCode {
    /// Every code, in the order of the SPEC's table.
    pub const ALL: [LineCode; 10] = [
        LineCode::LineTooLong,
        LineCode::NotUtf8,
        LineCode::NotJson,
        LineCode::UnknownLine,
        LineCode::BadField,
        LineCode::NotAwaited,
        LineCode::NoMessage,
        LineCode::Busy,
        LineCode::OverLimit,
        LineCode::Unanswered,
    ];

    /// The code as written in an `!error` line.
    pub const fn as_str(self) -> &'static str {
        match self {
            LineCode::LineTooLong => "line_too_long",
            LineCode::NotUtf8 => "not_utf8",
            LineCode::NotJson => "not_json",
            LineCode::UnknownLine => "unknown_line",
            LineCode::BadField => "bad_field",
            LineCode::NotAwaited => "not_awaited",
            LineCode::NoMessage => "no_message",
            LineCode::Busy => "busy",
            LineCode::OverLimit => "over_limit",
            LineCode::Unanswered => "unanswered",
        }
    }

    /// The code written as `text`, if it is one.
    #[inline]
    pub fn from_text(text: &[u8]) -> Option<LineCode> {
        LineCode::ALL
            .into_iter()
            .find(|code| code.as_str().as_bytes() == text)
    }
}

impl fmt::Display for LineCode {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

// ---------------------------------------------------------------------------
// Device to gateway
// ---------------------------------------------------------------------------

/// A device line, sorted by [`classify`]. The fields of `TOOL`, user and
/// `TOOL_CALL_RESULT` lines are for the caller to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceLine<'a> {
    /// An empty or blank line: ignored.
    Blank,
    /// A log line: the text after `#`, as sent (not checked for UTF-8).
    Log(&'a [u8]),
    /// `{"type":"TOOL",...}`: declares a tool.
    Tool,
    /// `{"role":"user",...}` with no `type`: a user message.
    User,
    /// `{"type":"TOOL_CALL_RESULT",...}`: a tool message.
    ToolResult,
    /// `{"type":"RESUME",...}`: answers an interrupt of the last run.
    Resume,
    /// `{"type":"RUN"}`: starts a run.
    Run,
    /// `{"type":"DONE"}`: the device is finished.
    Done,
    /// `{"type":"HELLO"}`: the device (re)started and asks for the
    /// conversation so far.
    Hello,
}

/// Why [`classify`] refused a device line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineError<'a> {
    /// Longer than [`MAX_LINE`] bytes.
    TooLong,
    /// Not UTF-8.
    NotUtf8(Utf8Error),
    /// Not a JSON document.
    NotJson(JsonError),
    /// A JSON document, but not an object.
    NotObject,
    /// `type` is there but is not a string.
    TypeNotString,
    /// `type` names no line of the protocol: its text as written (escapes
    /// left as they are).
    UnknownType(&'a [u8]),
    /// An object with neither `type` nor `"role":"user"`.
    Untyped,
}

impl LineError<'_> {
    /// The line's `!error` code.
    pub const fn code(&self) -> LineCode {
        match self {
            LineError::TooLong => LineCode::LineTooLong,
            LineError::NotUtf8(_) => LineCode::NotUtf8,
            LineError::NotJson(_) | LineError::NotObject => LineCode::NotJson,
            LineError::TypeNotString => LineCode::BadField,
            LineError::UnknownType(_) | LineError::Untyped => LineCode::UnknownLine,
        }
    }
}

impl fmt::Display for LineError<'_> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::TooLong => write!(f, "longer than {MAX_LINE} bytes; dropped"),
            LineError::NotUtf8(e) => write!(f, "not UTF-8: {e}"),
            LineError::NotJson(e) => write!(f, "not JSON: {e}"),
            LineError::NotObject => f.write_str("not a JSON object"),
            LineError::TypeNotString => f.write_str("`type` must be a string"),
            LineError::UnknownType(kind) => {
                f.write_str("unknown line type '")?;
                write_lossy(f, kind)?;
                f.write_str("'")
            }
            LineError::Untyped => {
                f.write_str("an object with neither `type` nor `\"role\":\"user\"`")
            }
        }
    }
}

/// `bytes` as text, with `?` for what is not UTF-8.
#[inline]
fn write_lossy(f: &mut fmt::Formatter<'_>, mut bytes: &[u8]) -> fmt::Result {
    while !bytes.is_empty() {
        match core::str::from_utf8(bytes) {
            Ok(text) => return f.write_str(text),
            Err(e) => {
                let (good, rest) = bytes.split_at(e.valid_up_to());
                f.write_str(core::str::from_utf8(good).unwrap_or_default())?;
                f.write_str("?")?;
                let skip = e.error_len().unwrap_or(rest.len());
                bytes = rest.get(skip..).unwrap_or_default();
            }
        }
    }
    Ok(())
}

/// Sorts one device line (without its `\n` and a `\r` before it): its
/// length, first byte, UTF-8, JSON, and its `type` (or `"role":"user"`).
/// The fields of a tool, user or result line are left to the caller.
///
/// # Errors
/// A [`LineError`] saying why the line is none of the protocol's lines.
#[inline]
pub fn classify(line: &[u8]) -> Result<DeviceLine<'_>, LineError<'_>> {
    if line.len() > MAX_LINE {
        return Err(LineError::TooLong);
    }
    if let Some((&LOG, text)) = line.split_first() {
        return Ok(DeviceLine::Log(text));
    }
    let text = core::str::from_utf8(line).map_err(LineError::NotUtf8)?;
    if text.bytes().all(|b| b.is_ascii_whitespace()) {
        return Ok(DeviceLine::Blank);
    }
    let head = Head::read(line).map_err(LineError::NotJson)?;
    if !head.object {
        return Err(LineError::NotObject);
    }
    match head.kind {
        Kind::Text(_, Some(named)) => Ok(named),
        Kind::Text(span, None) => Err(LineError::UnknownType(
            line.get(span.0..span.1).unwrap_or_default(),
        )),
        Kind::Other => Err(LineError::TypeNotString),
        Kind::Absent if head.role_is_user => Ok(DeviceLine::User),
        Kind::Absent => Err(LineError::Untyped),
    }
}

/// What `type` holds at the top level.
#[derive(Clone, Copy)]
enum Kind {
    Absent,
    /// A string: its raw text's span in the line (between the quotes), and
    /// the line it names, if any.
    Text((usize, usize), Option<DeviceLine<'static>>),
    /// Anything but a string.
    Other,
}

/// Which top-level key's value is being read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wanted {
    None,
    Type,
    Role,
}

/// The top level of a device line, read with the core's tokenizer (the
/// whole document is checked, so a bad line is `not_json` whatever its
/// `type`). A key repeated counts by its last value, as in most parsers.
struct Head {
    object: bool,
    kind: Kind,
    role_is_user: bool,
}

/// Where [`Head::read`] is.
struct Reading {
    head: Head,
    /// The current top-level key, decoded.
    key: Small<4>,
    wanted: Wanted,
    /// The current wanted string value, decoded, and where it started.
    value: Small<16>,
    value_start: usize,
}

impl Head {
    #[inline]
    fn read(line: &[u8]) -> Result<Head, JsonError> {
        let mut tz = Tokenizer::<64>::new();
        let mut r = Reading {
            head: Head {
                object: line.trim_ascii_start().first() == Some(&b'{'),
                kind: Kind::Absent,
                role_is_user: false,
            },
            key: Small::new(),
            wanted: Wanted::None,
            value: Small::new(),
            value_start: 0,
        };
        let mut at = 0usize;
        loop {
            let (used, token) = tz.next(line.get(at..).unwrap_or_default())?;
            at = at.saturating_add(used);
            let Some(token) = token else { break };
            // Top-level keys and values of an object are at depth 1.
            if r.head.object && tz.depth() == 1 {
                r.token(token, tz.in_key(), tz.in_string(), at);
            }
        }
        tz.finish()?;
        Ok(r.head)
    }
}

impl Reading {
    /// A token at the top level of the object; `at` is where it ended.
    #[inline]
    fn token(&mut self, token: Token<'_>, in_key: bool, in_string: bool, at: usize) {
        match token {
            Token::KeyStart => self.key = Small::new(),
            Token::Text(text) if in_key => self.key.push(text.as_bytes()),
            Token::Char(c) if in_key => self.key.push(c.encode_utf8(&mut [0; 4]).as_bytes()),
            Token::KeyEnd => self.wanted = self.key.wanted(),
            Token::StrStart => {
                self.value = Small::new();
                self.value_start = at;
            }
            Token::Text(text) => self.value.push(text.as_bytes()),
            Token::Char(c) => self.value.push(c.encode_utf8(&mut [0; 4]).as_bytes()),
            Token::StrEnd => {
                // The closing quote is the last byte this token took.
                let span = (self.value_start, at.saturating_sub(1));
                self.string(span);
                self.wanted = Wanted::None;
            }
            Token::ObjectEnd
            | Token::ObjectStart
            | Token::ArrayStart
            | Token::ArrayEnd
            | Token::Number(_)
            | Token::NumberEnd
            | Token::True
            | Token::False
            | Token::Null => {
                if !in_string {
                    self.not_string();
                }
            }
        }
    }

    /// A wanted key's value is a string, at `span`.
    #[inline]
    fn string(&mut self, span: (usize, usize)) {
        let text = self.value.text();
        match self.wanted {
            Wanted::Type => self.head.kind = Kind::Text(span, text.and_then(line_named)),
            Wanted::Role => self.head.role_is_user = text == Some(b"user"),
            Wanted::None => {}
        }
    }

    /// A wanted key's value is not a string.
    #[inline]
    fn not_string(&mut self) {
        match self.wanted {
            Wanted::Type => self.head.kind = Kind::Other,
            Wanted::Role => self.head.role_is_user = false,
            Wanted::None => {}
        }
        self.wanted = Wanted::None;
    }
}

/// The line named by a `type`'s text.
#[inline]
fn line_named(kind: &[u8]) -> Option<DeviceLine<'static>> {
    match kind {
        b"TOOL" => Some(DeviceLine::Tool),
        b"TOOL_CALL_RESULT" => Some(DeviceLine::ToolResult),
        b"RESUME" => Some(DeviceLine::Resume),
        b"RUN" => Some(DeviceLine::Run),
        b"DONE" => Some(DeviceLine::Done),
        b"HELLO" => Some(DeviceLine::Hello),
        _ => None,
    }
}

/// The start of a decoded key or string, as far as needed to tell the
/// protocol's few names apart.
struct Small<const N: usize> {
    buf: [u8; N],
    len: usize,
    /// Longer than `buf`: none of the names.
    long: bool,
}

impl<const N: usize> Small<N> {
    const fn new() -> Self {
        Small {
            buf: [0; N],
            len: 0,
            long: false,
        }
    }

    #[inline]
    fn push(&mut self, bytes: &[u8]) {
        for &b in bytes {
            match self.buf.get_mut(self.len) {
                Some(slot) => {
                    *slot = b;
                    self.len = self.len.saturating_add(1);
                }
                None => self.long = true,
            }
        }
    }

    /// The whole text, unless it was too long.
    #[inline]
    fn text(&self) -> Option<&[u8]> {
        if self.long {
            return None;
        }
        self.buf.get(..self.len)
    }

    #[inline]
    fn wanted(&self) -> Wanted {
        match self.text() {
            Some(b"type") => Wanted::Type,
            Some(b"role") => Wanted::Role,
            Some(_) | None => Wanted::None,
        }
    }
}

/// Writes the log line `#` + `parts` + `\n` through `out`, with CR and LF
/// inside the parts written as `\r` and `\n`, so that it stays one line.
pub fn write_log(parts: &[&str], mut out: impl FnMut(&[u8])) {
    out(&[LOG]);
    for part in parts {
        write_one_line(part.as_bytes(), b"\\n", b"\\r", &mut out);
    }
    out(b"\n");
}

/// Writes `bytes` with each LF and CR replaced by `lf` and `cr`.
fn write_one_line(bytes: &[u8], lf: &[u8], cr: &[u8], out: &mut impl FnMut(&[u8])) {
    for piece in bytes.split_inclusive(|&b| b == b'\n' || b == b'\r') {
        match piece.split_last() {
            Some((b'\n', text)) => {
                out(text);
                out(lf);
            }
            Some((b'\r', text)) => {
                out(text);
                out(cr);
            }
            Some(_) | None => out(piece),
        }
    }
}

// ---------------------------------------------------------------------------
// Gateway to device
// ---------------------------------------------------------------------------

/// Writes `!error CODE MESSAGE\n` through `out`; CR and LF in `message`
/// become spaces, so that it stays one line.
pub fn write_error(code: LineCode, message: &str, mut out: impl FnMut(&[u8])) {
    out(&[GATEWAY]);
    out(b"error ");
    out(code.as_str().as_bytes());
    out(b" ");
    write_one_line(message.as_bytes(), b" ", b" ", &mut out);
    out(b"\n");
}

/// A gateway line (what [`Router`] hands over, after its `!`), read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GatewayLine<'a> {
    /// `error CODE MESSAGE`: the device's line was refused. `code` is
    /// `None` for a code this version does not know.
    Error {
        /// The code, if known.
        code: Option<LineCode>,
        /// What is wrong, in words.
        message: &'a [u8],
    },
    /// A gateway line of another kind (none yet): to be ignored.
    Other(&'a [u8]),
}

impl<'a> GatewayLine<'a> {
    /// Reads a gateway line, without its `!` and line end.
    #[inline]
    pub fn parse(line: &'a [u8]) -> GatewayLine<'a> {
        let Some(rest) = line.strip_prefix(b"error ") else {
            return GatewayLine::Other(line);
        };
        let (code, message) = match rest.iter().position(|&b| b == b' ') {
            Some(at) => (
                rest.get(..at).unwrap_or_default(),
                rest.get(at.saturating_add(1)..).unwrap_or_default(),
            ),
            None => (rest, &[][..]),
        };
        GatewayLine::Error {
            code: LineCode::from_text(code),
            message,
        }
    }
}

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

/// The device's reader of the gateway's bytes: splits them into event
/// bytes and gateway lines, without buffering the events (they go on to
/// the pipeline as they come); a gateway line is kept in a small fixed
/// buffer until its end.
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
                    let take = end.map_or(bytes.len(), |at| at.saturating_add(1));
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
                    self.len = self.len.saturating_add(1);
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::reply::{tool_result, user_message};

    /// What `route` hands over for `bytes`, as owned pieces.
    fn pieces(
        router: &mut Router,
        bytes: &[u8],
    ) -> heapless::Vec<(bool, heapless::Vec<u8, 256>, bool), 8> {
        let mut out = heapless::Vec::new();
        router.route(bytes, |piece| {
            let (gateway, text, cut) = match piece {
                Piece::Events(b) => (false, b, false),
                Piece::Gateway { line, cut } => (true, line, cut),
            };
            out.push((gateway, heapless::Vec::from_slice(text).unwrap(), cut))
                .unwrap();
        });
        out
    }

    fn collect(write: impl FnOnce(&mut dyn FnMut(&[u8]))) -> heapless::Vec<u8, 512> {
        let mut out = heapless::Vec::new();
        write(&mut |bytes: &[u8]| out.extend_from_slice(bytes).unwrap());
        out
    }

    #[test]
    fn what_the_device_writes_is_what_the_gateway_reads() {
        let mut buf = [0u8; 128];
        let n = user_message(&mut buf, "u1", "hi\nthere").unwrap();
        assert_eq!(classify(&buf[..n]), Ok(DeviceLine::User));
        let n = tool_result(&mut buf, "r1", "c1", "LED on").unwrap();
        assert_eq!(classify(&buf[..n]), Ok(DeviceLine::ToolResult));
        assert_eq!(classify(RUN.as_bytes()), Ok(DeviceLine::Run));
        assert_eq!(classify(DONE.as_bytes()), Ok(DeviceLine::Done));
        assert_eq!(classify(HELLO.as_bytes()), Ok(DeviceLine::Hello));
        let log = collect(|out| write_log(&["set_led: ", "a\r\nb"], out));
        assert_eq!(&log[..], b"#set_led: a\\r\\nb\n");
        let line = log.strip_suffix(b"\n").unwrap();
        assert_eq!(classify(line), Ok(DeviceLine::Log(b"set_led: a\\r\\nb")));
    }

    #[test]
    fn lines_are_sorted_by_their_type() {
        let tool = br#"{"parameters":{"type":"object","role":"user"},"type":"TOOL","name":"x"}"#;
        assert_eq!(classify(tool), Ok(DeviceLine::Tool));
        // An escaped type is still its type; the last of two keys counts.
        assert_eq!(classify(br#"{"type":"R\u0055N"}"#), Ok(DeviceLine::Run));
        assert_eq!(
            classify(br#"{"type":"DONE","type":"RUN"}"#),
            Ok(DeviceLine::Run)
        );
        assert_eq!(classify(b"  \t "), Ok(DeviceLine::Blank));
        assert_eq!(classify(b""), Ok(DeviceLine::Blank));
        assert_eq!(classify(b"#\xff"), Ok(DeviceLine::Log(b"\xff")));
        // `role` counts only without `type`, and only as "user".
        assert_eq!(
            classify(br#"{"role":"user","id":"u"}"#),
            Ok(DeviceLine::User)
        );
        assert_eq!(
            classify(br#"{"role":"tool","id":"u"}"#),
            Err(LineError::Untyped)
        );
        assert_eq!(classify(br#"{"role":["user"]}"#), Err(LineError::Untyped));
    }

    #[test]
    fn bad_lines_have_their_codes() {
        let cases: [(&[u8], LineCode, &str); 8] = [
            (b"not json", LineCode::NotJson, "not JSON: "),
            (b"[1, 2]", LineCode::NotJson, "not a JSON object"),
            (br#"{"type":"RUN"} x"#, LineCode::NotJson, "not JSON: "),
            (
                br#"{"type":7}"#,
                LineCode::BadField,
                "`type` must be a string",
            ),
            (
                br#"{"type":{"a":"RUN"}}"#,
                LineCode::BadField,
                "`type` must be a string",
            ),
            (
                br#"{"type":"DANCE"}"#,
                LineCode::UnknownLine,
                "unknown line type 'DANCE'",
            ),
            (
                br#"{"hello":"world"}"#,
                LineCode::UnknownLine,
                "an object with neither",
            ),
            (b"\xff\xfe", LineCode::NotUtf8, "not UTF-8: "),
        ];
        for (line, code, text) in cases {
            let e = classify(line).unwrap_err();
            assert_eq!(e.code(), code, "{line:?}");
            let mut shown = heapless::String::<256>::new();
            fmt::write(&mut shown, format_args!("{e}")).unwrap();
            assert!(shown.starts_with(text), "{line:?}: {shown}");
        }
        let long = [b' '; MAX_LINE + 1];
        assert_eq!(classify(&long), Err(LineError::TooLong));
        assert_eq!(classify(&long[1..]), Ok(DeviceLine::Blank));
    }

    #[test]
    fn every_code_reads_back() {
        for code in LineCode::ALL {
            assert_eq!(LineCode::from_text(code.as_str().as_bytes()), Some(code));
        }
        assert_eq!(LineCode::from_text(b"busy "), None);
    }

    #[test]
    fn what_the_gateway_writes_is_what_the_device_reads() {
        let written = collect(|out| write_error(LineCode::OverLimit, "too many\r\ntools", out));
        assert_eq!(&written[..], b"!error over_limit too many  tools\n");
        let mut router = Router::new();
        let got = pieces(&mut router, &written);
        assert_eq!(got.len(), 1);
        let (gateway, line, cut) = &got[0];
        assert!(*gateway && !*cut);
        assert_eq!(
            GatewayLine::parse(line),
            GatewayLine::Error {
                code: Some(LineCode::OverLimit),
                message: b"too many  tools"
            }
        );
        assert_eq!(
            GatewayLine::parse(b"error brand_new"),
            GatewayLine::Error {
                code: None,
                message: b""
            }
        );
        assert_eq!(GatewayLine::parse(b"hello"), GatewayLine::Other(b"hello"));
    }

    #[test]
    fn router_splits_events_from_gateway_lines_in_any_slices() {
        let stream = b"{\"a\":1}\n!error busy x\r\n{\"b\":2}\n";
        for split in 0..stream.len() {
            let mut router = Router::new();
            let mut events = heapless::Vec::<u8, 64>::new();
            let mut lines = 0;
            for part in [&stream[..split], &stream[split..]] {
                for (gateway, text, _) in pieces(&mut router, part) {
                    if gateway {
                        assert_eq!(&text[..], b"error busy x");
                        lines += 1;
                    } else {
                        events.extend_from_slice(&text).unwrap();
                    }
                }
            }
            assert_eq!(lines, 1);
            assert_eq!(&events[..], b"{\"a\":1}\n{\"b\":2}\n");
        }
    }

    #[test]
    fn a_long_gateway_line_is_cut_not_overflowed() {
        let mut line = [b'x'; GATEWAY_LINE + 10];
        line[0] = GATEWAY;
        let mut router = Router::new();
        assert!(pieces(&mut router, &line).is_empty());
        let got = pieces(&mut router, b"\n");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].1.len(), GATEWAY_LINE);
        assert!(got[0].2);
    }
}
