//! Opening the device: a serial port or a TCP socket.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::{Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use agui_core::device::{self, LineCode};
use agui_examples::proto_encode::encode_frame;

use crate::Args;

/// The longest one write to the device blocks before its wait is looked
/// at (the `--write-timeout` counts from the write's start).
const WRITE_POLL: Duration = Duration::from_secs(1);

/// How long `--tcp` keeps trying to connect (QEMU may still be starting).
const TCP_CONNECT_FOR: Duration = Duration::from_secs(10);

/// The device's reading half.
pub type DeviceReader = Box<dyn Read + Send>;
/// The device's writing half.
pub type DeviceWriter = Box<dyn Write + Send>;

/// Opens `--serial` or `--tcp` as a reading and a writing half.
pub fn open(args: &Args) -> Result<(DeviceReader, DeviceWriter), String> {
    if let Some(addr) = &args.tcp {
        let stream = connect_tcp_within(addr, TCP_CONNECT_FOR)?;
        let halves = tcp_halves(addr, stream)?;
        eprintln!("agui-gateway: device connected on tcp {addr}");
        return Ok(halves);
    }
    let path = args.serial.as_deref().unwrap_or_default();
    let port = serialport::new(path, args.baud)
        // Reads wait this long before a harmless timeout (see
        // SerialReader), writes before their wait is looked at (DeviceOut).
        .timeout(WRITE_POLL)
        .open()
        .map_err(|e| format!("--serial {path}: {e}"))?;
    let reader = port
        .try_clone()
        .map_err(|e| format!("--serial {path}: {e}"))?;
    eprintln!("agui-gateway: device on {path} at {} baud", args.baud);
    Ok((Box::new(SerialReader(reader)), Box::new(port)))
}

/// The reading and writing halves of a device's TCP connection.
pub fn tcp_halves(addr: &str, stream: TcpStream) -> Result<(DeviceReader, DeviceWriter), String> {
    let reader = stream
        .try_clone()
        .map_err(|e| format!("--tcp {addr}: {e}"))?;
    // Lines are small: send each at once.
    stream
        .set_nodelay(true)
        .and_then(|()| stream.set_write_timeout(Some(WRITE_POLL)))
        .map_err(|e| format!("--tcp {addr}: {e}"))?;
    Ok((Box::new(reader), Box::new(stream)))
}

/// Connects, retrying for up to `within` while nobody listens yet (QEMU
/// starting up, or a board restarting).
pub fn connect_tcp_within(addr: &str, within: Duration) -> Result<TcpStream, String> {
    let started = Instant::now();
    loop {
        match TcpStream::connect(addr) {
            Ok(stream) => return Ok(stream),
            Err(e)
                if e.kind() == io::ErrorKind::ConnectionRefused && started.elapsed() < within =>
            {
                thread::sleep(Duration::from_millis(100));
            }
            Err(e) => return Err(format!("--tcp {addr}: cannot connect: {e}")),
        }
    }
}

/// A serial port whose read timeouts mean "nothing yet", not an error.
struct SerialReader(Box<dyn serialport::SerialPort>);

impl Read for SerialReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::TimedOut => continue,
                other => return other,
            }
        }
    }
}

/// The device's writing half, shared by the main thread (events, closing
/// RUN_ERRORs, `!error` answers) and the reading thread (`!error busy`):
/// each line is written whole under the lock. A device that takes no byte
/// for the write timeout fails the write, so that a device that stopped
/// reading cannot hold the gateway.
pub struct DeviceOut {
    writer: Mutex<Lines>,
    timeout: Duration,
    /// `--device-encoding proto`: events go as protobuf frames.
    proto: bool,
}

/// The writer, and whether a failed write left a line cut short.
struct Lines {
    writer: DeviceWriter,
    cut: bool,
}

impl DeviceOut {
    pub fn new(writer: DeviceWriter, timeout: Duration) -> Self {
        DeviceOut {
            writer: Mutex::new(Lines { writer, cut: false }),
            timeout,
            proto: false,
        }
    }

    /// Events are written as protobuf frames (`--device-encoding proto`).
    pub fn with_proto(mut self, proto: bool) -> Self {
        self.proto = proto;
        self
    }

    /// The bytes that carry `text` (NDJSON event lines, each with its
    /// `\n`) to the device: the lines themselves, or with
    /// `--device-encoding proto` one length-prefixed `Event` frame per line.
    ///
    /// # Errors
    /// A line that is not JSON or has no protobuf form.
    pub fn event_bytes(&self, text: &[u8]) -> Result<Vec<u8>, String> {
        if !self.proto {
            return Ok(text.to_vec());
        }
        let mut out = Vec::new();
        for line in text
            .split(|&b| b == b'\n')
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        {
            let event: serde_json::Value =
                serde_json::from_slice(line).map_err(|e| format!("not JSON: {e}"))?;
            out.extend(encode_frame(&event).map_err(|e| e.to_string())?);
        }
        Ok(out)
    }

    /// Writes `text` (NDJSON event lines, each with its `\n`) in the
    /// device's encoding ([`event_bytes`](Self::event_bytes)).
    pub fn write_events(&self, text: &[u8]) -> io::Result<()> {
        let bytes = self.event_bytes(text).map_err(io::Error::other)?;
        self.write_lines(&[&bytes])
    }

    /// Writes to `writer` from now on (the device came back on a new
    /// connection); a line cut short on the old one is forgotten.
    pub fn replace(&self, writer: DeviceWriter) {
        let mut lines = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        *lines = Lines { writer, cut: false };
    }

    /// Writes `line` and its `\n`, then flushes.
    #[cfg(test)]
    pub fn write_line(&self, line: &[u8]) -> io::Result<()> {
        self.write_lines(&[line, b"\n"])
    }

    /// Writes `!error CODE MESSAGE` (docs/SPEC.md section 11).
    pub fn write_error(&self, code: LineCode, message: &str) -> io::Result<()> {
        let mut line = Vec::new();
        device::write_error(code, message, |bytes| line.extend_from_slice(bytes));
        self.write_lines(&[&line])
    }

    /// Writes `parts` (whole lines, with their `\n`s, or whole protobuf
    /// frames), then flushes. A line that an earlier failed write cut short
    /// is ended first, so that this one is not glued to it (a protobuf frame
    /// cut short cannot be mended so: the device's reader is then out of
    /// step until it restarts, SPEC section 11).
    pub fn write_lines(&self, parts: &[&[u8]]) -> io::Result<()> {
        let mut lines = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        let Lines { writer, cut } = &mut *lines;
        let mut timed = Timed {
            inner: &mut **writer,
            timeout: self.timeout,
        };
        let ended: &[u8] = if *cut { b"\n" } else { b"" };
        *cut = true;
        for part in std::iter::once(ended).chain(parts.iter().copied()) {
            timed.write_all(part)?;
        }
        *cut = false;
        timed.flush()
    }
}

/// A writer whose timeouts are retried until `timeout` has passed with no
/// byte taken.
struct Timed<'a> {
    inner: &'a mut (dyn Write + Send),
    timeout: Duration,
}

impl Timed<'_> {
    fn retry<T>(&mut self, mut f: impl FnMut(&mut dyn Write) -> io::Result<T>) -> io::Result<T> {
        let started = Instant::now();
        loop {
            match f(&mut *self.inner) {
                Err(e) if is_timeout(&e) && started.elapsed() < self.timeout => {}
                Err(e) if is_timeout(&e) => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!(
                            "the device took no byte for {} s (--write-timeout)",
                            self.timeout.as_secs_f64()
                        ),
                    ))
                }
                other => return other,
            }
        }
    }
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
    )
}

impl Write for Timed<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.retry(|w| w.write(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.retry(|w| w.flush())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// A device that takes `room` bytes, then none (it stopped reading).
    struct Stalls {
        taken: Arc<Mutex<Vec<u8>>>,
        room: Arc<Mutex<usize>>,
    }

    impl Write for Stalls {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let mut room = self.room.lock().unwrap();
            if *room == 0 {
                return Err(io::ErrorKind::TimedOut.into());
            }
            let n = buf.len().min(*room);
            *room -= n;
            self.taken.lock().unwrap().extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// L1: a write the device stops taking fails after the write timeout;
    /// the line it cut short is ended before the next one, so that the
    /// device's reader finds the next line's first byte (`!`, `{`).
    #[test]
    fn a_stalled_write_times_out_and_the_cut_line_is_ended() {
        let (taken, room) = (Arc::default(), Arc::new(Mutex::new(5)));
        let device = Stalls {
            taken: Arc::clone(&taken),
            room: Arc::clone(&room),
        };
        let out = DeviceOut::new(Box::new(device), Duration::from_millis(10));
        let e = out.write_line(b"{\"type\":\"RUN_STARTED\"}").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        assert_eq!(
            e.to_string(),
            "the device took no byte for 0.01 s (--write-timeout)"
        );
        *room.lock().unwrap() = 1_000;
        out.write_error(LineCode::Busy, "later").unwrap();
        assert_eq!(
            String::from_utf8_lossy(&taken.lock().unwrap()),
            "{\"typ\n!error busy later\n"
        );
    }
}
