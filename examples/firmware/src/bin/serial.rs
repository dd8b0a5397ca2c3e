//! Serial verifier: reads an AG-UI stream (SSE or NDJSON) from UART0 up to
//! an EOT byte (0x04), verifies it as it arrives, answers with one JSON
//! verdict line on UART0 and exits through semihosting with status 0.
//!
//! With the feature `proto` it reads AG-UI's protobuf encoding instead
//! (length-prefixed `Event` frames, SPEC section 1): binary frames may hold
//! any byte, 0x04 included, so the stream's end is not a marker but a count:
//! the host sends the stream's length (4 bytes, big-endian) first, then the
//! stream, then EOT as for text (`examples/firmware/ci/proto_vectors.py`
//! sends the length and the stream through `examples/qemu/serial.sh`, which
//! adds the EOT).
//!
//! The peak stack use goes to the semihosting *stderr* channel (QEMU's
//! stderr), so that UART0 carries nothing but the verdict.
#![no_std]
#![no_main]
#![deny(unsafe_code)]

use agui_core::pipeline::Pipeline;
use agui_firmware::uart::Uart0;
#[cfg(not(feature = "proto"))]
use agui_firmware::uart::UntilEot;
use agui_firmware::verdict::Verdict;
use agui_firmware::{exit, hw, text};
use cortex_m_rt::entry;

/// The verifier's pipeline: ids and names up to 64 bytes (a UUID with a
/// prefix fits), 4 open text messages, 4 open tool calls, 4 open steps,
/// JSON nested 32 deep. Half the default's open items, which saves 816
/// bytes of the 4 KiB RAM budget: the conformance streams open at most 2
/// of each, and a stream that opens a fifth gets a `capacity` verdict, not
/// a wrong one.
#[cfg(not(feature = "v1"))]
type SerialPipeline = Pipeline<64, 4, 4, 4, 32>;

/// With the feature `v1`: the same, plus AG-UI 1.0's tables (16 owner
/// entries per table, 4 sub-agents), reading every stream as 1.0.
#[cfg(feature = "v1")]
type SerialPipeline = Pipeline<64, 4, 4, 4, 32, 16, 4, agui_core::decode::V1<64>>;

/// Bytes taken from the UART per pipeline call. The pipeline keeps no frame
/// in memory, so this only trades call overhead for RAM.
const READ_BUF: usize = 64;

#[entry]
fn main() -> ! {
    let Some(mut uart) = Uart0::take() else {
        exit(false)
    };
    // Strict mode, SSE or NDJSON detected from the first byte. Lives on
    // the stack (~1.6 KB).
    let mut pipeline = SerialPipeline::new();
    #[cfg(feature = "v1")]
    pipeline.set_protocol(agui_core::protocol::Select::Fixed(agui_core::Protocol::V1));
    let mut buf = [0u8; READ_BUF];

    #[cfg(feature = "proto")]
    let result = proto::run(&mut uart, &mut pipeline, &mut buf);

    #[cfg(not(feature = "proto"))]
    let mut input = UntilEot::new(&mut uart);
    // Reads until EOT (read returns 0), feeding every piece as it arrives,
    // then calls `pipeline.finish`. The outputs are not needed for a verdict.
    #[cfg(not(feature = "proto"))]
    let result = agui_core::io::run(&mut input, &mut pipeline, &mut buf, |_| {});
    // An error stops the run early: consume the rest of the stream so
    // that the verdict answers all of it.
    #[cfg(not(feature = "proto"))]
    input.drain();
    #[cfg(feature = "defmt")]
    if let Err(agui_core::io::TransportError::Protocol(e)) = &result {
        defmt::println!("{}", e);
    }

    Verdict::new(&result, pipeline.accepted()).write(&mut uart);
    report_stack();
    exit(true)
}

/// The protobuf reader (feature `proto`).
#[cfg(feature = "proto")]
mod proto {
    use super::SerialPipeline;
    use agui_core::io::TransportError;
    use agui_core::pipeline::Output;
    use agui_core::proto::ProtoFramer;
    use agui_firmware::uart::{Uart0, UartError, EOT};
    use embedded_io::Read;

    /// Open protobuf messages the framer tracks: the conformance streams
    /// nest at most a dozen (a message's content part's source inside a
    /// snapshot); deeper is an error, not an overflow. Each level costs
    /// a few bytes of stack.
    const NEST: usize = 24;

    /// Reads the 4-byte stream length, then exactly that many bytes through
    /// a [`ProtoFramer`] into `pipeline`, then the EOT, and finishes the
    /// pipeline. After an error the rest of the stream is read and
    /// dropped, so that the verdict answers all of it.
    pub fn run(
        uart: &mut Uart0,
        pipeline: &mut SerialPipeline,
        buf: &mut [u8],
    ) -> Result<u32, TransportError<UartError>> {
        let mut len = [0u8; 4];
        for b in &mut len {
            *b = uart.read_byte().map_err(TransportError::Io)?;
        }
        let mut left = u32::from_be_bytes(len) as usize;
        let mut framer: ProtoFramer<NEST> = ProtoFramer::new();
        let mut result = Ok(());
        while left > 0 {
            let want = left.min(buf.len());
            let Some(chunk) = buf.get_mut(..want) else {
                break;
            };
            let n = match uart.read(chunk) {
                Ok(n) => n,
                // A line error decides the verdict; the faulty byte was
                // taken from the FIFO, so it counts (the bytes of the same
                // read before it are lost uncounted: a real line error
                // leaves the count approximate, and the run then waits
                // for the host's next stream to fill it).
                Err(e) => {
                    if result.is_ok() {
                        result = Err(TransportError::Io(e));
                    }
                    left = left.saturating_sub(1);
                    continue;
                }
            };
            left = left.saturating_sub(n);
            if result.is_ok() {
                let got = chunk.get(..n).unwrap_or_default();
                result = framer
                    .feed(pipeline, got, ignore)
                    .map_err(TransportError::Protocol);
            }
        }
        // Then the EOT that ends every serial stream: taken, so that the
        // firmware exits only once the host has written all it sends.
        while !matches!(uart.read_byte(), Ok(EOT)) {}
        result?;
        framer
            .finish(pipeline, ignore)
            .map_err(TransportError::Protocol)?;
        Ok(pipeline.accepted())
    }

    /// The outputs, not needed for a verdict. One function for `feed` and
    /// `finish`: two closures would be two types, and the pipeline code
    /// both reach would be compiled twice.
    fn ignore(_: Output<'_>) {}
}

/// `stack: used N bytes` on the semihosting stderr channel.
fn report_stack() {
    let Ok(mut err) = cortex_m_semihosting::hio::hstderr() else {
        return;
    };
    let mut digits = [0u8; 10];
    let used = u32::try_from(hw::stack_used()).unwrap_or(u32::MAX);
    let _ = err.write_all(b"stack: used ");
    let _ = err.write_all(text::decimal(used, &mut digits));
    let _ = err.write_all(b" bytes\n");
}
