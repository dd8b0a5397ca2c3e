//! The reading thread: the device's lines, as they come.

use std::io::{self, BufRead, BufReader, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;

use agui_core::device::{self, MAX_LINE};

use crate::port::DeviceReader;

/// What the reading thread hands to the main thread.
pub enum FromDevice {
    /// A complete line (without `\n` and a `\r` before it), numbered from 1.
    Line(u64, Vec<u8>),
    /// Line `n` was longer than [`MAX_LINE`]; it was dropped.
    TooLong(u64),
    /// The device is gone: end of stream or a read error.
    Gone(String),
}

/// Reads lines until the device goes away. Log lines (`#`) are printed at
/// once; the others go to the main thread. When the device is gone before
/// saying `DONE`, a run in progress is cancelled through `cancel` (after
/// `DONE`, the end of the stream is the normal goodbye, and the run that
/// may still be reading its last bytes is left to end by itself).
pub fn read_device(reader: DeviceReader, tx: &Sender<FromDevice>, cancel: &AtomicBool) {
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
        let message = match device::classify(&line) {
            Err(device::LineError::TooLong) => FromDevice::TooLong(number),
            Ok(device::DeviceLine::Log(text)) => {
                print_log(text);
                continue;
            }
            Ok(device::DeviceLine::Done) => {
                done = true;
                FromDevice::Line(number, line)
            }
            Ok(_) | Err(_) => FromDevice::Line(number, line),
        };
        if tx.send(message).is_err() {
            return;
        }
    };
    if !done {
        cancel.store(true, Ordering::Relaxed);
    }
    let _ = tx.send(FromDevice::Gone(gone));
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

/// A device log line, without its `#`, on stdout.
fn print_log(text: &[u8]) {
    let mut out = io::stdout().lock();
    let _ = out.write_all(text);
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}
