//! Transports: drive a [`Pipeline`] from a byte source.
//!
//! The caller supplies the read buffer (any size; 64 bytes is plenty on a
//! UART). [`run`] pulls from an [`embedded_io::Read`] until end of input
//! (`read` returns 0), `run_async` does the same over
//! `embedded_io_async::Read` (feature `async`), and `run_std` over
//! `std::io::Read` (feature `std`).
//!
//! ```
//! use agui_core::io::run;
//! use agui_core::pipeline::{DefaultPipeline, Output};
//!
//! let mut serial: &[u8] = b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n";
//! let mut pipeline = DefaultPipeline::new();
//! let mut buf = [0u8; 16];
//! let mut events = 0;
//! let accepted = run(&mut serial, &mut pipeline, &mut buf, |out| {
//!     if let Output::Event(_) = out {
//!         events += 1;
//!     }
//! })
//! .unwrap();
//! assert_eq!((accepted, events), (1, 1));
//! ```

use crate::store::Store;
use core::fmt;

use crate::decode::Ext;
use crate::error::Error;
use crate::pipeline::{Output, Pipeline};

/// Why a transport run stopped.
#[derive(Debug)]
pub enum TransportError<E> {
    /// The byte source failed.
    Io(E),
    /// The stream broke the protocol (strict mode).
    Protocol(Error),
}

impl<E: fmt::Debug> fmt::Display for TransportError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::Io(e) => write!(f, "read error: {e:?}"),
            TransportError::Protocol(e) => e.fmt(f),
        }
    }
}

impl<E: fmt::Debug> core::error::Error for TransportError<E> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            TransportError::Io(_) => None,
            TransportError::Protocol(e) => Some(e),
        }
    }
}

#[cfg(feature = "std")]
extern crate std;

/// Reads `source` to its end through `pipeline`, calling `f` for every
/// output; returns the number of accepted frames. `buf` must not be empty
/// (a read of 0 bytes means the end of input); the pipeline is finished at
/// the end, so [`Pipeline::reset`] it before the next stream.
///
/// # Errors
/// [`TransportError::Io`] if a read fails, [`TransportError::Protocol`] for the first
/// protocol error in strict mode (the pipeline keeps it until reset).
pub fn run<
    R,
    const ID: usize,
    const M: usize,
    const T: usize,
    const S: usize,
    const D: usize,
    const O: usize,
    const A: usize,
    X: Ext<ID, St>,
    St: Store,
>(
    source: &mut R,
    pipeline: &mut Pipeline<ID, M, T, S, D, O, A, X, St>,
    buf: &mut [u8],
    mut f: impl FnMut(Output<'_>),
) -> Result<u32, TransportError<R::Error>>
where
    R: embedded_io::Read,
{
    loop {
        let n = source.read(buf).map_err(TransportError::Io)?;
        if !on_read(pipeline, buf, n, &mut f)? {
            return Ok(pipeline.accepted());
        }
    }
}

/// [`run`] over an asynchronous byte source (feature `async`).
///
/// # Errors
/// As [`run`].
#[cfg(feature = "async")]
pub async fn run_async<
    R,
    const ID: usize,
    const M: usize,
    const T: usize,
    const S: usize,
    const D: usize,
    const O: usize,
    const A: usize,
    X: Ext<ID, St>,
    St: Store,
>(
    source: &mut R,
    pipeline: &mut Pipeline<ID, M, T, S, D, O, A, X, St>,
    buf: &mut [u8],
    mut f: impl FnMut(Output<'_>),
) -> Result<u32, TransportError<R::Error>>
where
    R: embedded_io_async::Read,
{
    loop {
        let n = source.read(buf).await.map_err(TransportError::Io)?;
        if !on_read(pipeline, buf, n, &mut f)? {
            return Ok(pipeline.accepted());
        }
    }
}

/// [`run`] over a [`std::io::Read`] (feature `std`); interrupted reads are retried.
///
/// # Errors
/// As [`run`].
#[cfg(feature = "std")]
pub fn run_std<
    R,
    const ID: usize,
    const M: usize,
    const T: usize,
    const S: usize,
    const D: usize,
    const O: usize,
    const A: usize,
    X: Ext<ID, St>,
    St: Store,
>(
    source: &mut R,
    pipeline: &mut Pipeline<ID, M, T, S, D, O, A, X, St>,
    buf: &mut [u8],
    mut f: impl FnMut(Output<'_>),
) -> Result<u32, TransportError<std::io::Error>>
where
    R: std::io::Read,
{
    loop {
        let n = match source.read(buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(TransportError::Io(e)),
        };
        if !on_read(pipeline, buf, n, &mut f)? {
            return Ok(pipeline.accepted());
        }
    }
}

/// Hands the `n` bytes just read to the pipeline or, when the source has
/// ended (`n == 0`), finishes it; `false` once the input is over.
fn on_read<
    E,
    const ID: usize,
    const M: usize,
    const T: usize,
    const S: usize,
    const D: usize,
    const O: usize,
    const A: usize,
    X: Ext<ID, St>,
    St: Store,
>(
    pipeline: &mut Pipeline<ID, M, T, S, D, O, A, X, St>,
    buf: &[u8],
    n: usize,
    f: &mut impl FnMut(Output<'_>),
) -> Result<bool, TransportError<E>> {
    match buf.get(..n).filter(|bytes| !bytes.is_empty()) {
        Some(bytes) => pipeline.feed(bytes, f).map(|()| true),
        None => pipeline.finish(f).map(|()| false),
    }
    .map_err(TransportError::Protocol)
}
