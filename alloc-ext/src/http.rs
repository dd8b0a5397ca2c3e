//! Runs over HTTP (feature `http`, needs `std`): POST the run input, fold
//! the event stream as it arrives.
//!
//! [`HttpAgent::run`] starts the [`Conversation`]'s next run: it POSTs the
//! run input (SPEC section "Run input") with `Content-Type:
//! application/json`, the `Accept` of its [`Encoding`] and the user's
//! headers, and feeds the response body into the conversation **as it
//! arrives**, in
//! reads of at most [`READ_SIZE`] bytes: each event is folded, and your
//! [`RunObserver`] sees it, before the next bytes are read. The body is
//! never held whole.
//!
//! The request runs on a worker thread; the calling thread folds the bytes
//! and, every [`POLL`] while nothing arrives, checks the cancel flag
//! ([`HttpAgent::cancel_flag`]: set it from a Ctrl-C handler) and calls
//! [`RunObserver::on_wait`] (draw a spinner there). A cancelled run ends at
//! once; the worker stops at its next read.
//!
//! # Errors
//!
//! A failure of the transport is an [`HttpError`]: its [`HttpErrorKind`]
//! says what (server down, timeout, HTTP status, wrong content type,
//! connection lost, cancelled) and its one-line `Display` says it to a
//! person. The run is then aborted ([`Conversation::abort_run`]): every
//! event folded before the failure stays in the conversation, which can go
//! on. A run whose body was read to its end returns its [`RunReport`]
//! (finished, `RUN_ERROR`, protocol error or incomplete).
//!
//! # Encodings
//!
//! An agent asked for SSE (the default, `Accept: text/event-stream`) or,
//! with [`HttpAgent::encoding`]`(`[`Encoding::Proto`]`)`, for AG-UI's
//! protobuf encoding (`Accept: application/vnd.ag-ui.event+proto,
//! text/event-stream;q=0.9`). Whatever was asked, the response's
//! `Content-Type` chooses the decoder, as the reference's: protobuf for
//! [`PROTO_MEDIA_TYPE`] ([`Conversation::read_proto`]), SSE for
//! `text/event-stream`, so a server that ignores the request and sends
//! SSE still works. Where we differ from the reference: any other content
//! type is refused with [`HttpErrorKind::ContentType`] (the reference would
//! try to read it as SSE).
//!
//! # HTTPS
//!
//! `https://` URLs need the feature `https` (rustls with the *ring*
//! provider): the agent's certificate is checked against the Mozilla root
//! certificates compiled in (the `webpki-roots` crate), so no system
//! certificate store is needed, or against the certificates you give
//! `HttpAgent::root_certs_pem` instead (a private CA, a self-signed
//! server). A certificate that does not check out is an
//! [`HttpErrorKind::Tls`] error. Without the feature only `http://` URLs
//! work, and an `https://` one is an [`HttpErrorKind::Url`] error that
//! says so.
//!
//! ```no_run
//! use agui_alloc::conversation::Conversation;
//! use agui_alloc::http::HttpAgent;
//!
//! let agent = HttpAgent::new("http://127.0.0.1:8000/")
//!     .header("Authorization", "Bearer secret");
//! let mut conv = Conversation::new("thread-1");
//! conv.add_user_message("Hello").unwrap();
//! match agent.run(&mut conv, &mut ()) {
//!     Ok(report) => println!("run {}: {}", report.run_id, report.status),
//!     Err(e) => eprintln!("{e}"), // e.g. "cannot connect: ... (is the agent running?)"
//! }
//! // Either way, conv holds everything folded so far.
//! ```

extern crate std;

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;
use core::sync::atomic::{AtomicBool, Ordering};
use core::time::Duration;
use std::io::{self, Read};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::thread;
use std::time::Instant;

use crate::conversation::{Conversation, RunReport, StartError};
use crate::hooks::Subscriber;

/// Default time to set up the TCP connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default longest silence of the server: waiting for the response, or
/// between two reads of its body. An agent that thinks before it streams
/// needs this long; a run that never ends is stopped by it.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(120);
/// Largest piece of the body read and folded at once.
pub const READ_SIZE: usize = 4096;
/// How often the calling thread wakes while nothing arrives: to check the
/// cancel flag and call [`RunObserver::on_wait`].
pub const POLL: Duration = Duration::from_millis(100);
/// How much of an error response's body an [`HttpError`] keeps.
pub const ERROR_BODY_BYTES: usize = 512;
/// Pieces of body in flight between the worker and the calling thread.
const IN_FLIGHT: usize = 8;
/// How long the body is still read after the run's terminal event
/// (`RUN_FINISHED` or `RUN_ERROR`): a stream may hold another run right
/// after, but an agent that keeps the connection open (comments, or
/// nothing) does not hold the run; the rest is dropped.
pub const END_GRACE: Duration = Duration::from_millis(500);

/// The media type of the AG-UI binary (protobuf) encoding.
pub const PROTO_MEDIA_TYPE: &str = "application/vnd.ag-ui.event+proto";
/// The media type of Server-Sent Events.
pub const SSE_MEDIA_TYPE: &str = "text/event-stream";

/// The encoding a run asks the agent for, in the request's `Accept`. The
/// response's `Content-Type` decides how the body is read, whichever was
/// asked (see the [module docs](self#encodings)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// Server-Sent Events: `Accept: text/event-stream` (the default).
    #[default]
    Sse,
    /// AG-UI's protobuf encoding, SSE second: `Accept:
    /// application/vnd.ag-ui.event+proto, text/event-stream;q=0.9`, so that
    /// an agent without protobuf still answers with SSE.
    Proto,
}

impl Encoding {
    /// The request's `Accept` header for this encoding.
    pub const fn accept(self) -> &'static str {
        match self {
            Encoding::Sse => SSE_MEDIA_TYPE,
            Encoding::Proto => "application/vnd.ag-ui.event+proto, text/event-stream;q=0.9",
        }
    }
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/// What went wrong with the transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpErrorKind {
    /// The URL is not a usable `http://` (or, with feature `https`,
    /// `https://`) URL.
    Url,
    /// No connection: nothing listens there, the host is unknown, ...
    Connect,
    /// The TLS session of an `https://` URL was not set up: the agent's
    /// certificate is not trusted (or not for that host name), the server
    /// does not speak TLS, ...; or root certificates given to
    /// `HttpAgent::root_certs_pem` (feature `https`) could not be read.
    Tls,
    /// The connection was not set up within the connect timeout.
    ConnectTimeout,
    /// The server said nothing for the idle timeout (before the response
    /// or in the middle of the body).
    IdleTimeout,
    /// The server answered with a status outside 2xx.
    Status,
    /// The response is not an event stream.
    ContentType,
    /// The connection broke while the response was read.
    Transport,
    /// The caller cancelled the run (the cancel flag was set).
    Cancelled,
    /// The conversation already has a run in progress.
    Busy,
    /// The last run's interrupts are not all answered
    /// ([`Conversation::answer`]): the run was not started.
    Unanswered,
    /// The agent answered with a redirect (3xx), which is never followed:
    /// the run's POST and its headers go to the URL given and nowhere
    /// else. The detail holds the `Location`.
    Redirect,
    /// The body is compressed (`Content-Encoding` other than `identity`),
    /// which this client does not decode.
    ContentEncoding,
    /// The run took longer than its limit ([`HttpAgent::max_run_time`]).
    RunTime,
}

impl HttpErrorKind {
    /// A stable lower-case name (`connect`, `idle_timeout`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            HttpErrorKind::Url => "url",
            HttpErrorKind::Connect => "connect",
            HttpErrorKind::Tls => "tls",
            HttpErrorKind::ConnectTimeout => "connect_timeout",
            HttpErrorKind::IdleTimeout => "idle_timeout",
            HttpErrorKind::Status => "status",
            HttpErrorKind::ContentType => "content_type",
            HttpErrorKind::Transport => "transport",
            HttpErrorKind::Cancelled => "cancelled",
            HttpErrorKind::Busy => "busy",
            HttpErrorKind::Unanswered => "unanswered",
            HttpErrorKind::Redirect => "redirect",
            HttpErrorKind::ContentEncoding => "content_encoding",
            HttpErrorKind::RunTime => "run_time",
        }
    }
}

/// A transport failure: its kind and what a person needs to act on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpError {
    /// What went wrong.
    pub kind: HttpErrorKind,
    /// The HTTP status, for [`HttpErrorKind::Status`].
    pub status: Option<u16>,
    /// The details, on one line (for a status: the start of the body).
    pub detail: String,
}

impl HttpError {
    fn new(kind: HttpErrorKind, detail: impl Into<String>) -> Self {
        HttpError {
            kind,
            status: None,
            detail: one_line(&detail.into()),
        }
    }
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.kind, self.status) {
            (HttpErrorKind::Status, Some(status)) => {
                write!(f, "the agent answered HTTP {status}: {}", self.detail)
            }
            (HttpErrorKind::Url, _) => write!(f, "bad URL: {}", self.detail),
            (HttpErrorKind::Connect, _) => write!(f, "cannot connect: {}", self.detail),
            (HttpErrorKind::Tls, _) => write!(f, "TLS: {}", self.detail),
            (HttpErrorKind::ConnectTimeout, _) => write!(f, "connect timeout: {}", self.detail),
            (HttpErrorKind::IdleTimeout, _) => write!(f, "idle timeout: {}", self.detail),
            (HttpErrorKind::ContentType, _) => f.write_str(&self.detail),
            (HttpErrorKind::Status, None) => write!(f, "HTTP error: {}", self.detail),
            (HttpErrorKind::Transport, _) => write!(f, "connection lost: {}", self.detail),
            (HttpErrorKind::Cancelled, _) => write!(f, "cancelled: {}", self.detail),
            (HttpErrorKind::Busy, _)
            | (HttpErrorKind::Unanswered, _)
            | (HttpErrorKind::ContentEncoding, _) => f.write_str(&self.detail),
            (HttpErrorKind::Redirect, Some(status)) => write!(
                f,
                "HTTP {status} -> {} (redirects are not followed: give the final URL)",
                self.detail
            ),
            (HttpErrorKind::Redirect, None) => write!(f, "redirect: {}", self.detail),
            (HttpErrorKind::RunTime, _) => write!(f, "run time limit: {}", self.detail),
        }
    }
}

impl std::error::Error for HttpError {}

/// Newlines and runs of spaces become one space; the text is cut at
/// [`ERROR_BODY_BYTES`] (on a character boundary) with `…`.
fn one_line(text: &str) -> String {
    let mut out = String::new();
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.len() > ERROR_BODY_BYTES {
            let mut cut = ERROR_BODY_BYTES;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            out.push('…');
            break;
        }
    }
    out
}

// ---------------------------------------------------------------------------
// The observer
// ---------------------------------------------------------------------------

/// Sees a run live: the hooks of [`Subscriber`] for every folded event,
/// plus the transport's own moments. Every method has a default that does
/// nothing. `()` is the observer that observes nothing.
pub trait RunObserver: Subscriber {
    /// The request is about to be sent; `body` is the run input.
    fn on_request(&mut self, run_id: &str, body: &str) {
        let _ = (run_id, body);
    }
    /// The response headers arrived (a 2xx event stream).
    fn on_response(&mut self, status: u16) {
        let _ = status;
    }
    /// The body will be read in `encoding`, as its `Content-Type` said
    /// (whichever was asked for); called right before
    /// [`on_response`](Self::on_response), before any body bytes. An
    /// observer that reads the raw bytes ([`on_bytes`](Self::on_bytes))
    /// frames them by it.
    fn on_encoding(&mut self, encoding: Encoding) {
        let _ = encoding;
    }
    /// Body bytes arrived; they are folded right after this call.
    fn on_bytes(&mut self, bytes: &[u8]) {
        let _ = bytes;
    }
    /// Nothing arrived for [`POLL`] (a spinner can turn here).
    fn on_wait(&mut self) {}
}

impl RunObserver for () {}

// ---------------------------------------------------------------------------
// The agent
// ---------------------------------------------------------------------------

/// An AG-UI agent behind an HTTP URL: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct HttpAgent {
    url: String,
    headers: Vec<(String, String)>,
    connect_timeout: Duration,
    idle_timeout: Duration,
    max_run_time: Option<Duration>,
    cancel: Arc<AtomicBool>,
    encoding: Encoding,
    /// The roots an `https://` agent's certificate is checked against
    /// (`None`: the built-in Mozilla roots).
    #[cfg(feature = "https")]
    roots: Option<ureq::tls::RootCerts>,
}

/// Checks that `url` is one this build can run: `http://`, or `https://`
/// with the feature `https`. [`HttpAgent::run`] checks it too; a tool can
/// call this first to refuse a bad URL before it does anything else.
///
/// # Errors
/// [`HttpErrorKind::Url`], saying what is supported.
pub fn check_url(url: &str) -> Result<(), HttpError> {
    let scheme = url
        .split_once("://")
        .map(|(scheme, _)| scheme.to_ascii_lowercase());
    match scheme.as_deref() {
        Some("http") => Ok(()),
        Some("https") if cfg!(feature = "https") => Ok(()),
        Some("https") => Err(HttpError::new(
            HttpErrorKind::Url,
            format!("'{}': https:// needs agui-alloc's feature `https`, which this build lacks; only http:// URLs work", redact_userinfo(url)),
        )),
        _ => Err(HttpError::new(
            HttpErrorKind::Url,
            format!("'{}': expected an http:// or https:// URL", redact_userinfo(url)),
        )),
    }
}

impl HttpAgent {
    /// The agent at `url` (`http://host:port/path`, or `https://` with the
    /// feature `https`), default timeouts, no extra headers, a cancel flag
    /// of its own.
    pub fn new(url: impl Into<String>) -> Self {
        HttpAgent {
            url: url.into(),
            headers: Vec::new(),
            connect_timeout: CONNECT_TIMEOUT,
            idle_timeout: IDLE_TIMEOUT,
            max_run_time: None,
            cancel: Arc::new(AtomicBool::new(false)),
            encoding: Encoding::Sse,
            #[cfg(feature = "https")]
            roots: None,
        }
    }

    /// Trusts, for `https://`, the certificates in `pem` (one or more PEM
    /// `CERTIFICATE` blocks: a private CA, or a self-signed server's own
    /// certificate) *instead of* the built-in Mozilla roots, as curl's
    /// `--cacert` does. Other PEM blocks (a private key) are ignored.
    ///
    /// # Errors
    /// [`HttpErrorKind::Tls`] when `pem` is not PEM, holds no certificate,
    /// or holds one that is not a well-formed X.509 certificate.
    #[cfg(feature = "https")]
    pub fn root_certs_pem(mut self, pem: &[u8]) -> Result<Self, HttpError> {
        self.roots = Some(tls::roots_from_pem(pem)?);
        Ok(self)
    }

    /// Asks the agent for `encoding` (default [`Encoding::Sse`]); the
    /// response's `Content-Type` still decides how it is read.
    pub fn encoding(mut self, encoding: Encoding) -> Self {
        self.encoding = encoding;
        self
    }

    /// Adds a request header (e.g. `Authorization`). `Content-Type` and
    /// `Accept` are always the run input's and the [`Encoding`]'s.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sets the connect timeout (default [`CONNECT_TIMEOUT`]).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the idle timeout (default [`IDLE_TIMEOUT`]).
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// Sets the longest a run may take, from its request to its end
    /// (default `None`: no limit; the idle timeout still stops a silent
    /// agent, but not one that streams forever). A run over it is stopped
    /// with [`HttpErrorKind::RunTime`].
    pub fn max_run_time(mut self, limit: Option<Duration>) -> Self {
        self.max_run_time = limit;
        self
    }

    /// Uses `flag` as the cancel flag: setting it (from any thread, e.g. a
    /// Ctrl-C handler) ends the run in progress within [`POLL`]. The flag
    /// is not cleared by the agent: clear it before the next run.
    pub fn with_cancel_flag(mut self, flag: Arc<AtomicBool>) -> Self {
        self.cancel = flag;
        self
    }

    /// The cancel flag.
    pub fn cancel_flag(&self) -> &Arc<AtomicBool> {
        &self.cancel
    }

    /// The URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Runs the conversation's next run: POSTs its input, folds the
    /// response as it arrives, ends the run.
    ///
    /// # Errors
    /// An [`HttpError`] when the transport fails or the run is cancelled;
    /// the run is then aborted and the conversation keeps everything folded
    /// before (its [`last_run`](Conversation::last_run) says so).
    pub fn run(
        &self,
        conv: &mut Conversation,
        observer: &mut dyn RunObserver,
    ) -> Result<RunReport, HttpError> {
        check_url(&self.url)?;
        let request = conv.start_run().map_err(|e| {
            let kind = match e {
                StartError::RunInProgress => HttpErrorKind::Busy,
                StartError::Unanswered(_) => HttpErrorKind::Unanswered,
            };
            HttpError::new(kind, e.to_string())
        })?;
        observer.on_request(&request.run_id, &request.body);
        let (tx, rx) = mpsc::sync_channel(IN_FLIGHT);
        let reset = Arc::new(AtomicBool::new(false));
        let worker = Worker {
            agent: self.ureq_agent(reset.clone()),
            reset,
            url: self.url.clone(),
            headers: self.headers.clone(),
            accept: self.encoding.accept(),
            body: request.body,
            idle_timeout: self.idle_timeout,
            tx,
        };
        let spawned = thread::Builder::new()
            .name("agui-http".to_owned())
            .spawn(move || worker.run());
        let received = match spawned {
            Ok(_) => self.receive(conv, &rx, observer),
            Err(e) => Err(HttpError::new(
                HttpErrorKind::Transport,
                format!("cannot start the HTTP thread: {e}"),
            )),
        };
        match received {
            Ok(()) => Ok(conv
                .end_run_with(observer)
                .unwrap_or_else(|| unreachable_report(&request.run_id))),
            Err(mut e) => {
                e.detail = scrub_userinfo(&e.detail, &self.url);
                conv.abort_run(e.to_string());
                Err(e)
            }
        }
    }

    fn ureq_agent(&self, reset: Arc<AtomicBool>) -> ureq::Agent {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // A redirect would carry the user's headers, and the run, to
            // another origin: never followed (see HttpErrorKind::Redirect).
            .max_redirects(0)
            .timeout_connect(Some(self.connect_timeout))
            .timeout_per_read(Some(self.idle_timeout));
        #[cfg(feature = "https")]
        let config = match &self.roots {
            Some(roots) => config.tls_config(
                ureq::tls::TlsConfig::builder()
                    .root_certs(roots.clone())
                    .build(),
            ),
            None => config,
        };
        ureq::Agent::with_parts(
            config.build(),
            reset::Watch {
                inner: ureq::unversioned::transport::DefaultConnector::new(),
                reset,
            },
            ureq::unversioned::resolver::DefaultResolver::default(),
        )
    }

    /// Folds what the worker sends until the body ends (`Ok`), the client
    /// rejects a frame (`Ok`: the report says so), or the transport fails.
    fn receive(
        &self,
        conv: &mut Conversation,
        rx: &Receiver<Piece>,
        observer: &mut dyn RunObserver,
    ) -> Result<(), HttpError> {
        let started = Instant::now();
        let deadline = self.max_run_time.and_then(|d| started.checked_add(d));
        let mut grace_end: Option<Instant> = None;
        loop {
            if self.cancel.load(Ordering::Relaxed) {
                return Err(HttpError::new(
                    HttpErrorKind::Cancelled,
                    "the run was cancelled by the user",
                ));
            }
            let now = Instant::now();
            if grace_end.is_some_and(|end| now >= end) {
                return Ok(()); // the rest of the body is not the run's
            }
            if let Some(limit) = self
                .max_run_time
                .filter(|_| deadline.is_some_and(|d| now >= d))
            {
                return Err(HttpError::new(
                    HttpErrorKind::RunTime,
                    format!("the run took over {} ms and was stopped", limit.as_millis()),
                ));
            }
            let wait = [grace_end, deadline]
                .into_iter()
                .flatten()
                .map(|end| end.saturating_duration_since(now))
                .fold(POLL, Duration::min);
            let piece = match rx.recv_timeout(wait) {
                Ok(piece) => piece,
                Err(RecvTimeoutError::Timeout) => {
                    observer.on_wait();
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(HttpError::new(
                        HttpErrorKind::Transport,
                        "the HTTP worker stopped unexpectedly",
                    ))
                }
            };
            match piece {
                Piece::Response { status, proto } => {
                    if proto {
                        conv.read_proto();
                        observer.on_encoding(Encoding::Proto);
                    } else {
                        observer.on_encoding(Encoding::Sse);
                    }
                    observer.on_response(status);
                }
                Piece::Data(bytes) => {
                    observer.on_bytes(&bytes);
                    if conv.feed_with(&bytes, observer).is_err() {
                        // The run is over; the report carries the error.
                        return Ok(());
                    }
                    if grace_end.is_none() && conv.run_has_ended() {
                        grace_end = Some(Instant::now() + END_GRACE);
                    }
                }
                Piece::End => return Ok(()),
                Piece::Failed(e) => return Err(e),
            }
        }
    }
}

/// `end_run` returns `None` only without a run in progress, which `run`
/// started: this report is never seen, but `run` must not panic.
fn unreachable_report(run_id: &str) -> RunReport {
    RunReport {
        run_id: run_id.to_owned(),
        status: crate::conversation::RunStatus::Incomplete,
        accepted: 0,
        foreign_start: None,
    }
}

// ---------------------------------------------------------------------------
// The worker thread
// ---------------------------------------------------------------------------

/// What the worker sends the calling thread.
enum Piece {
    /// The status of a response that will be read, and whether its body
    /// is the protobuf encoding (else SSE).
    Response {
        status: u16,
        proto: bool,
    },
    Data(Vec<u8>),
    End,
    Failed(HttpError),
}

struct Worker {
    agent: ureq::Agent,
    /// Set by the transport when the connection ended abruptly.
    reset: Arc<AtomicBool>,
    url: String,
    headers: Vec<(String, String)>,
    /// The request's `Accept` ([`Encoding::accept`]).
    accept: &'static str,
    body: String,
    idle_timeout: Duration,
    tx: SyncSender<Piece>,
}

impl Worker {
    fn run(self) {
        let tx = self.tx.clone();
        // A send fails only when the calling thread stopped listening
        // (cancel, protocol error): the worker then just ends.
        let _ = match self.exchange() {
            Ok(()) => tx.send(Piece::End),
            Err(e) => tx.send(Piece::Failed(e)),
        };
    }

    fn exchange(self) -> Result<(), HttpError> {
        let mut request = self.agent.post(&self.url);
        for (name, value) in &self.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let response = request
            .header("Content-Type", "application/json")
            .header("Accept", self.accept)
            .send(self.body.as_str())
            .map_err(|e| from_ureq(&e, &self.url, self.idle_timeout))?;
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let location = header("location");
        let encoding = header("content-encoding");
        let mut body = response.into_body().into_reader();
        if (300..400).contains(&status) {
            return Err(redirect_error(status, location.as_deref()));
        }
        if !(200..300).contains(&status) {
            return Err(status_error(status, &mut body));
        }
        let proto = check_content_type(&content_type)?;
        check_content_encoding(encoding.as_deref())?;
        self.tx.send(Piece::Response { status, proto }).ok();
        let mut buf = [0u8; READ_SIZE];
        let mut read = 0usize;
        loop {
            let n = body.read(&mut buf).map_err(|e| {
                let mut e = from_io(&e, self.idle_timeout);
                if e.kind == HttpErrorKind::Transport {
                    e.detail = format!("the response broke off after {read} bytes ({})", e.detail);
                }
                e
            })?;
            read += n;
            if n == 0 {
                // ureq takes a reset as the end of a body that ends when
                // the connection closes: the last frame may be cut (SPEC
                // section "Transport"), so it is an error, not an end.
                if self.reset.load(Ordering::Relaxed) {
                    return Err(HttpError::new(
                        HttpErrorKind::Transport,
                        format!("the connection was reset after {read} bytes; the body may be cut"),
                    ));
                }
                return Ok(());
            }
            let piece = Piece::Data(buf.get(..n).unwrap_or_default().to_vec());
            if self.tx.send(piece).is_err() {
                return Ok(());
            }
        }
    }
}

/// A 3xx answer: never followed; its `Location` is shown (userinfo
/// redacted), as the peer's text it is.
fn redirect_error(status: u16, location: Option<&str>) -> HttpError {
    let detail = location.map_or_else(|| "(no Location)".to_owned(), redact_userinfo);
    HttpError {
        kind: HttpErrorKind::Redirect,
        status: Some(status),
        detail: one_line(&detail),
    }
}

/// Only an identity body is read: ureq is built without decompression,
/// and a compressed stream read as SSE would only look cut short.
fn check_content_encoding(encoding: Option<&str>) -> Result<(), HttpError> {
    match encoding.map(str::trim) {
        None => Ok(()),
        Some(e) if e.is_empty() || e.eq_ignore_ascii_case("identity") => Ok(()),
        Some(e) => Err(HttpError::new(
            HttpErrorKind::ContentEncoding,
            format!("the agent's body is compressed (Content-Encoding: {e}); compressed bodies are not supported"),
        )),
    }
}

/// `url` with its userinfo (`user:password@`) replaced by `***@`: a URL
/// may carry a secret, and every text a tool shows or sends names the URL.
///
/// ```
/// use agui_alloc::http::redact_userinfo;
/// assert_eq!(redact_userinfo("http://me:pw@host:1/p?q=a@b"), "http://***@host:1/p?q=a@b");
/// assert_eq!(redact_userinfo("http://host/p@x"), "http://host/p@x");
/// ```
pub fn redact_userinfo(url: &str) -> String {
    match userinfo(url) {
        Some(info) => url.replacen(&format!("://{info}@"), "://***@", 1),
        None => url.to_owned(),
    }
}

/// The userinfo of `url` (what comes before `@` in its authority), if any.
fn userinfo(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("://")?;
    let authority = rest.get(..rest.find(['/', '?', '#']).unwrap_or(rest.len()))?;
    authority.get(..authority.rfind('@')?)
}

/// `text` with the userinfo of `url` before an `@`, and its password
/// anywhere, replaced by `***`, wherever ureq, rustls or std quoted it.
fn scrub_userinfo(text: &str, url: &str) -> String {
    let Some(userinfo) = userinfo(url) else {
        return text.to_owned();
    };
    let out = text.replace(&format!("{userinfo}@"), "***@");
    match userinfo.split_once(':') {
        Some((_, password)) if !password.is_empty() => out.replace(password, "***"),
        Some(_) | None => out,
    }
}

/// A non-2xx answer: its status and the start of its body.
fn status_error(status: u16, body: &mut impl Read) -> HttpError {
    let mut start = Vec::new();
    // A server that breaks off its error body still gets its status shown.
    let _ = body
        .take(ERROR_BODY_BYTES as u64 + 1)
        .read_to_end(&mut start);
    let text = String::from_utf8_lossy(&start);
    let detail = if text.trim().is_empty() {
        "(empty body)".to_owned()
    } else {
        text.into_owned()
    };
    HttpError {
        kind: HttpErrorKind::Status,
        status: Some(status),
        detail: one_line(&detail),
    }
}

/// `text/event-stream` is read as SSE (`Ok(false)`), the binary encoding
/// as protobuf (`Ok(true)`), whichever was asked for; anything else is
/// refused.
fn check_content_type(content_type: &str) -> Result<bool, HttpError> {
    let media = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if media == SSE_MEDIA_TYPE {
        Ok(false)
    } else if media == PROTO_MEDIA_TYPE {
        Ok(true)
    } else if media.is_empty() {
        Err(HttpError::new(
            HttpErrorKind::ContentType,
            "the agent's response has no Content-Type; expected text/event-stream",
        ))
    } else {
        Err(HttpError::new(
            HttpErrorKind::ContentType,
            format!("the agent's response is '{content_type}', not an event stream (text/event-stream): is the URL an AG-UI endpoint?"),
        ))
    }
}

// ureq's, rustls's and std's error enums are `#[non_exhaustive]`: a
// wildcard arm is the only way to match them (no protocol enum here).
#[allow(clippy::wildcard_enum_match_arm)]
fn from_ureq(e: &ureq::Error, url: &str, idle: Duration) -> HttpError {
    #[cfg(feature = "https")]
    if let Some(tls) = tls::from_ureq(e, url) {
        return tls;
    }
    match e {
        ureq::Error::Timeout(which) => timeout_error(*which, idle),
        ureq::Error::Io(io) => from_connect_io(io, url, idle),
        ureq::Error::HostNotFound => {
            HttpError::new(HttpErrorKind::Connect, format!("host not found in '{url}'"))
        }
        ureq::Error::ConnectionFailed => HttpError::new(
            HttpErrorKind::Connect,
            format!("connection to '{url}' failed"),
        ),
        ureq::Error::BadUri(detail) => {
            HttpError::new(HttpErrorKind::Url, format!("'{url}': {detail}"))
        }
        other => HttpError::new(HttpErrorKind::Transport, other.to_string()),
    }
}

// ureq's, rustls's and std's error enums are `#[non_exhaustive]`: a
// wildcard arm is the only way to match them (no protocol enum here).
#[allow(clippy::wildcard_enum_match_arm)]
fn timeout_error(which: ureq::Timeout, idle: Duration) -> HttpError {
    match which {
        ureq::Timeout::Connect | ureq::Timeout::Resolve => HttpError::new(
            HttpErrorKind::ConnectTimeout,
            "the connection was not set up in time",
        ),
        _ => idle_error(idle),
    }
}

fn idle_error(idle: Duration) -> HttpError {
    HttpError::new(
        HttpErrorKind::IdleTimeout,
        format!(
            "the agent sent nothing for {} ms; the run was stopped",
            idle.as_millis()
        ),
    )
}

// ureq's, rustls's and std's error enums are `#[non_exhaustive]`: a
// wildcard arm is the only way to match them (no protocol enum here).
#[allow(clippy::wildcard_enum_match_arm)]
fn from_connect_io(e: &io::Error, url: &str, idle: Duration) -> HttpError {
    #[cfg(feature = "https")]
    if let Some(tls) = tls::from_io(e, url) {
        return tls;
    }
    match e.kind() {
        io::ErrorKind::ConnectionRefused => HttpError::new(
            HttpErrorKind::Connect,
            format!("connection refused by '{url}' (is the agent running?)"),
        ),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => idle_error(idle),
        _ => HttpError::new(HttpErrorKind::Connect, format!("'{url}': {e}")),
    }
}

/// An error while reading the body.
// ureq's, rustls's and std's error enums are `#[non_exhaustive]`: a
// wildcard arm is the only way to match them (no protocol enum here).
#[allow(clippy::wildcard_enum_match_arm)]
fn from_io(e: &io::Error, idle: Duration) -> HttpError {
    if let Some(inner) = e.get_ref().and_then(|i| i.downcast_ref::<ureq::Error>()) {
        if let ureq::Error::Timeout(which) = inner {
            return timeout_error(*which, idle);
        }
        return HttpError::new(HttpErrorKind::Transport, inner.to_string());
    }
    match e.kind() {
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => idle_error(idle),
        _ => HttpError::new(HttpErrorKind::Transport, e.to_string()),
    }
}

/// A transport that notes an abrupt end of the connection (reset, or a
/// TLS stream cut without its close), which ureq takes as the end of a
/// body that has neither a length nor chunks.
mod reset {
    use super::*;
    use ureq::unversioned::transport::{
        Buffers, ConnectionDetails, Connector, DefaultConnector, NextTimeout, Transport,
    };

    #[derive(Debug)]
    pub(super) struct Watch {
        pub(super) inner: DefaultConnector,
        pub(super) reset: Arc<AtomicBool>,
    }

    impl Connector<()> for Watch {
        type Out = Watched;

        fn connect(
            &self,
            details: &ConnectionDetails,
            chained: Option<()>,
        ) -> Result<Option<Watched>, ureq::Error> {
            Ok(self.inner.connect(details, chained)?.map(|inner| Watched {
                inner,
                reset: self.reset.clone(),
            }))
        }
    }

    #[derive(Debug)]
    pub(super) struct Watched {
        inner: alloc::boxed::Box<dyn Transport>,
        reset: Arc<AtomicBool>,
    }

    impl Transport for Watched {
        fn buffers(&mut self) -> &mut dyn Buffers {
            self.inner.buffers()
        }

        fn transmit_output(
            &mut self,
            amount: usize,
            timeout: NextTimeout,
        ) -> Result<(), ureq::Error> {
            self.inner.transmit_output(amount, timeout)
        }

        fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
            let result = self.inner.await_input(timeout);
            if let Err(ureq::Error::Io(e)) = &result {
                if abrupt(e.kind()) {
                    self.reset.store(true, Ordering::Relaxed);
                }
            }
            result
        }

        fn is_open(&mut self) -> bool {
            self.inner.is_open()
        }

        fn is_tls(&self) -> bool {
            self.inner.is_tls()
        }
    }

    fn abrupt(kind: io::ErrorKind) -> bool {
        matches!(
            kind,
            io::ErrorKind::ConnectionReset
                | io::ErrorKind::ConnectionAborted
                | io::ErrorKind::UnexpectedEof
        )
    }
}

/// The TLS side of `https://` (feature `https`).
#[cfg(feature = "https")]
mod tls {
    use super::*;
    use rustls::pki_types::CertificateDer;
    use ureq::tls::{parse_pem, PemItem, RootCerts};

    /// The certificates of `pem`, each checked to be a usable root.
    pub(super) fn roots_from_pem(pem: &[u8]) -> Result<RootCerts, HttpError> {
        let mut certs = Vec::new();
        for item in parse_pem(pem) {
            match item {
                Ok(PemItem::Certificate(cert)) => certs.push(cert),
                Ok(_) => {} // a key next to the certificate: not ours to use
                Err(e) => {
                    return Err(HttpError::new(
                        HttpErrorKind::Tls,
                        format!("the root certificates are not valid PEM: {e}"),
                    ))
                }
            }
        }
        if certs.is_empty() {
            return Err(HttpError::new(
                HttpErrorKind::Tls,
                "no certificate (-----BEGIN CERTIFICATE-----) in the root certificates",
            ));
        }
        // ureq would skip a certificate it cannot parse: say so instead.
        let mut store = rustls::RootCertStore::empty();
        for (n, cert) in certs.iter().enumerate() {
            store.add(CertificateDer::from(cert.der())).map_err(|e| {
                HttpError::new(
                    HttpErrorKind::Tls,
                    format!("root certificate {} is not usable: {e}", n + 1),
                )
            })?;
        }
        Ok(RootCerts::new_with_certs(&certs))
    }

    /// A TLS failure reported by ureq itself.
    #[allow(clippy::wildcard_enum_match_arm)] // foreign #[non_exhaustive] enum
    pub(super) fn from_ureq(e: &ureq::Error, url: &str) -> Option<HttpError> {
        match e {
            ureq::Error::Rustls(e) => Some(from_rustls(e, url)),
            ureq::Error::Tls(detail) => Some(HttpError::new(
                HttpErrorKind::Tls,
                format!("'{url}': {detail}"),
            )),
            _ => None,
        }
    }

    /// A TLS failure carried in an I/O error (the handshake's).
    pub(super) fn from_io(e: &io::Error, url: &str) -> Option<HttpError> {
        let inner = e.get_ref()?.downcast_ref::<rustls::Error>()?;
        Some(from_rustls(inner, url))
    }

    #[allow(clippy::wildcard_enum_match_arm)] // foreign #[non_exhaustive] enum
    fn from_rustls(e: &rustls::Error, url: &str) -> HttpError {
        let detail = match e {
            rustls::Error::InvalidCertificate(why) => {
                format!("the certificate of '{url}' is not trusted ({why})")
            }
            rustls::Error::InvalidMessage(_) => {
                format!("'{url}' does not answer in TLS ({e}): is it an http:// server?")
            }
            other => format!("the TLS handshake with '{url}' failed: {other}"),
        };
        HttpError::new(HttpErrorKind::Tls, detail)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn content_types() {
        assert_eq!(check_content_type("text/event-stream"), Ok(false));
        assert_eq!(
            check_content_type("Text/Event-Stream; charset=utf-8"),
            Ok(false)
        );
        assert_eq!(
            check_content_type("application/vnd.ag-ui.event+proto"),
            Ok(true)
        );
        assert_eq!(
            check_content_type("Application/Vnd.AG-UI.Event+Proto; x=1"),
            Ok(true)
        );
        let e = check_content_type("text/html; charset=utf-8").unwrap_err();
        assert_eq!(e.kind, HttpErrorKind::ContentType);
        assert!(e.to_string().contains("'text/html; charset=utf-8'"), "{e}");
        assert_eq!(
            check_content_type("").unwrap_err().kind,
            HttpErrorKind::ContentType
        );
    }

    #[test]
    fn details_are_one_line_and_short() {
        assert_eq!(one_line("a\n  b\r\nc"), "a b c");
        let long = "é".repeat(600);
        let cut = one_line(&long);
        assert!(cut.ends_with('…'));
        assert!(cut.len() <= ERROR_BODY_BYTES + '…'.len_utf8());
        let mut body: &[u8] = b"{\"detail\":\n \"boom\"}";
        let e = status_error(500, &mut body);
        assert_eq!(
            e.to_string(),
            "the agent answered HTTP 500: {\"detail\": \"boom\"}"
        );
        let mut empty: &[u8] = b"";
        assert_eq!(
            status_error(404, &mut empty).to_string(),
            "the agent answered HTTP 404: (empty body)"
        );
    }

    #[test]
    fn the_agent_and_the_conversation_can_move_to_another_thread() {
        fn send_sync<T: Send + Sync>() {}
        fn send<T: Send>() {}
        send_sync::<HttpAgent>();
        send_sync::<HttpError>();
        send::<Conversation>();
    }

    #[test]
    fn urls_this_build_can_run() {
        assert!(check_url("http://127.0.0.1:8000/").is_ok());
        assert!(check_url("HTTP://127.0.0.1:8000/").is_ok());
        assert_eq!(
            check_url("https://agent.example/").is_ok(),
            cfg!(feature = "https")
        );
        let mut conv = Conversation::new("t");
        let e = HttpAgent::new("ftp://example.invalid/")
            .run(&mut conv, &mut ())
            .unwrap_err();
        assert_eq!(e.kind, HttpErrorKind::Url);
        assert_eq!(
            e.to_string(),
            "bad URL: 'ftp://example.invalid/': expected an http:// or https:// URL"
        );
        assert!(!conv.is_running());
        assert!(conv.last_run().is_none(), "no run was started");
        let e = check_url("127.0.0.1:8000").unwrap_err();
        assert_eq!(e.kind, HttpErrorKind::Url);
    }

    /// The kiosk's panel and the gateway's RUN_ERROR line show the
    /// error's text and the aborted run's reason: no password in either.
    #[test]
    fn the_url_userinfo_never_shows_in_an_error() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let url = format!("http://me:PASSWORD@127.0.0.1:{port}/");
        let mut conv = Conversation::new("t");
        conv.add_user_message("hi").unwrap();
        let e = HttpAgent::new(url.as_str())
            .run(&mut conv, &mut ())
            .unwrap_err();
        assert_eq!(e.kind, HttpErrorKind::Connect);
        assert!(e.to_string().contains("http://***@127.0.0.1"), "{e}");
        assert!(!e.to_string().contains("PASSWORD"), "{e}");
        let aborted = conv.last_run().unwrap().status.to_string();
        assert!(!aborted.contains("PASSWORD"), "{aborted}");
        let e = check_url("ftp://me:PASSWORD@host/").unwrap_err();
        assert!(!e.to_string().contains("PASSWORD"), "{e}");
        assert_eq!(
            scrub_userinfo("PASSWORD at me:PASSWORD@h", "http://me:PASSWORD@h/"),
            "*** at ***@h"
        );
    }

    #[test]
    fn redirects_and_compressed_bodies_say_what_they_are() {
        let e = redirect_error(302, Some("http://u:p@elsewhere/x"));
        assert_eq!(e.kind, HttpErrorKind::Redirect);
        assert_eq!(
            e.to_string(),
            "HTTP 302 -> http://***@elsewhere/x (redirects are not followed: give the final URL)"
        );
        assert!(check_content_encoding(None).is_ok());
        assert!(check_content_encoding(Some("identity")).is_ok());
        let e = check_content_encoding(Some("gzip")).unwrap_err();
        assert_eq!(e.kind, HttpErrorKind::ContentEncoding);
        assert!(e
            .to_string()
            .contains("compressed bodies are not supported"));
    }

    #[cfg(not(feature = "https"))]
    #[test]
    fn https_urls_need_the_feature() {
        let mut conv = Conversation::new("t");
        let e = HttpAgent::new("https://example.invalid/")
            .run(&mut conv, &mut ())
            .unwrap_err();
        assert_eq!(e.kind, HttpErrorKind::Url);
        assert!(e.to_string().contains("feature `https`"), "{e}");
        assert!(!conv.is_running());
    }
}
