//! The reading thread: the device's lines, as they come.

use std::io::{self, BufRead, BufReader, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use agui_core::device::{self, LineCode, MAX_LINE};
use agui_examples::transcript::Peer;

use crate::port::{DeviceOut, DeviceReader};

/// What the reading thread hands to the main thread.
pub enum FromDevice {
    /// A complete line (without `\n` and a `\r` before it), numbered from 1.
    Line(u64, Vec<u8>),
    /// Line `n` was longer than [`MAX_LINE`]; it was dropped.
    TooLong(u64),
    /// The device is gone: end of stream or a read error.
    Gone(String),
}

/// How often a reader that waits for room in the queue looks again.
const ROOM_POLL: Duration = Duration::from_millis(2);

/// What became of a line offered to the queue.
enum Offered {
    Queued,
    /// Refused: the queue is full during a run.
    Busy,
    /// The main thread is gone.
    Closed,
}

/// What the reading thread and the main thread share.
pub struct Shared {
    /// The run's cancel flag (the HTTP agent's): set when the device goes
    /// away before saying `DONE`.
    pub cancel: Arc<AtomicBool>,
    /// The device went away before saying `DONE`.
    pub gone: AtomicBool,
    /// A run is in progress: a line that finds the queue full is then
    /// answered `busy`; between runs the reader waits for room instead.
    pub running: AtomicBool,
    /// The device said `HELLO` during a run: it restarted, so the run is
    /// cancelled (nobody reads it) and its closing RUN_ERROR not sent.
    pub restarted: AtomicBool,
}

/// The reading thread's state.
pub struct Reading {
    device: Arc<DeviceOut>,
    /// The queue's length, to say it.
    queue: usize,
    shared: Arc<Shared>,
}

impl Reading {
    pub fn new(device: Arc<DeviceOut>, queue: usize, shared: Arc<Shared>) -> Self {
        Reading {
            device,
            queue,
            shared,
        }
    }

    /// Reads lines until the device goes away. Log lines (`#`) are printed
    /// at once; the others go to the main thread through the bounded queue
    /// `tx`, and a line that finds it full during a run (the device sends
    /// faster than runs end) is dropped and answered `!error busy`. When the device is
    /// gone before saying `DONE`, a run in progress is cancelled (after
    /// `DONE`, the end of the stream is the normal goodbye, and the run
    /// that may still be reading its last bytes is left to end by itself).
    pub fn run(self, reader: DeviceReader, tx: &SyncSender<FromDevice>) {
        let mut reader = BufReader::new(reader);
        let mut number = 0u64;
        let mut done = false;
        let gone = loop {
            let mut line = Vec::new();
            let complete = match read_line(&mut reader, &mut line) {
                Ok(complete) => complete,
                Err(e) => break format!("read error: {e}"),
            };
            if !complete && line.is_empty() {
                break "end of stream".to_owned();
            }
            number += 1;
            let (too_long, is_done) = match device::classify(&line) {
                Err(device::LineError::TooLong) => (true, false),
                Ok(device::DeviceLine::Log(text)) => {
                    print_log(text);
                    continue;
                }
                Ok(device::DeviceLine::Hello) => {
                    if self.shared.running.load(Ordering::Relaxed) {
                        self.shared.restarted.store(true, Ordering::Relaxed);
                        self.shared.cancel.store(true, Ordering::Relaxed);
                    }
                    (false, false)
                }
                Ok(kind) => (false, kind == device::DeviceLine::Done),
                Err(_) => (false, false),
            };
            let message = if too_long {
                FromDevice::TooLong(number)
            } else {
                FromDevice::Line(number, line)
            };
            match self.offer(tx, message) {
                Offered::Queued => done |= is_done,
                Offered::Busy => self.busy(number),
                Offered::Closed => return,
            }
        };
        if !done {
            self.shared.gone.store(true, Ordering::Relaxed);
            self.shared.cancel.store(true, Ordering::Relaxed);
        }
        let _ = tx.send(FromDevice::Gone(gone));
    }

    /// Queues `message`. When the queue is full: during a run the line is
    /// refused; between runs the main thread is only behind, so the reader
    /// waits for room (and the device, whose lines are not read meanwhile,
    /// for the reader).
    fn offer(&self, tx: &SyncSender<FromDevice>, mut message: FromDevice) -> Offered {
        loop {
            match tx.try_send(message) {
                Ok(()) => return Offered::Queued,
                Err(TrySendError::Disconnected(_)) => return Offered::Closed,
                Err(TrySendError::Full(_)) if self.shared.running.load(Ordering::Relaxed) => {
                    return Offered::Busy
                }
                Err(TrySendError::Full(back)) => {
                    message = back;
                    thread::sleep(ROOM_POLL);
                }
            }
        }
    }

    /// Line `number` found the queue full: dropped, and the device told.
    fn busy(&self, number: u64) {
        let message = format!(
            "{} lines already wait for the run to end; dropped, send it again later",
            self.queue
        );
        eprintln!("agui-gateway: device line {number}: {message} [busy]");
        // A device that cannot take it is noticed by the main thread.
        let _ = self.device.write_error(LineCode::Busy, &message);
    }
}

/// Reads one line into `line` (keeping at most `MAX_LINE + 1` bytes of it,
/// enough to know it is too long); true if it ended with `\n`.
fn read_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<bool> {
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(false);
        }
        let end = available.iter().position(|&b| b == b'\n');
        let take = end.unwrap_or(available.len());
        let room = (MAX_LINE + 1).saturating_sub(line.len());
        line.extend_from_slice(&available[..take.min(room)]);
        reader.consume(end.map_or(take, |at| at + 1));
        if end.is_some() {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(true);
        }
    }
}

/// A device log line, without its `#`, on stdout, with the controls a
/// terminal would act on escaped.
fn print_log(text: &[u8]) {
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "{}", Peer(&String::from_utf8_lossy(text)));
    let _ = out.flush();
}
