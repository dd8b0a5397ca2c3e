//! Opening the device: a serial port or a TCP socket.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

use crate::Args;

/// How long `--tcp` keeps trying to connect (QEMU may still be starting).
const TCP_CONNECT_FOR: Duration = Duration::from_secs(10);

/// The device's reading half.
pub type DeviceReader = Box<dyn Read + Send>;
/// The device's writing half.
pub type DeviceWriter = Box<dyn Write + Send>;

/// Opens `--serial` or `--tcp` as a reading and a writing half.
pub fn open(args: &Args) -> Result<(DeviceReader, DeviceWriter), String> {
    if let Some(addr) = &args.tcp {
        let stream = connect_tcp(addr)?;
        let reader = stream
            .try_clone()
            .map_err(|e| format!("--tcp {addr}: {e}"))?;
        // Lines are small: send each at once.
        stream
            .set_nodelay(true)
            .map_err(|e| format!("--tcp {addr}: {e}"))?;
        eprintln!("agui-gateway: device connected on tcp {addr}");
        return Ok((Box::new(reader), Box::new(stream)));
    }
    let path = args.serial.as_deref().unwrap_or_default();
    let port = serialport::new(path, args.baud)
        // Reads wait this long before a harmless timeout; see SerialReader.
        .timeout(Duration::from_secs(1))
        .open()
        .map_err(|e| format!("--serial {path}: {e}"))?;
    let reader = port
        .try_clone()
        .map_err(|e| format!("--serial {path}: {e}"))?;
    eprintln!("agui-gateway: device on {path} at {} baud", args.baud);
    Ok((Box::new(SerialReader(reader)), Box::new(port)))
}

/// Connects, retrying while nobody listens yet (QEMU starting up).
fn connect_tcp(addr: &str) -> Result<TcpStream, String> {
    let started = Instant::now();
    loop {
        match TcpStream::connect(addr) {
            Ok(stream) => return Ok(stream),
            Err(e)
                if e.kind() == io::ErrorKind::ConnectionRefused
                    && started.elapsed() < TCP_CONNECT_FOR =>
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
