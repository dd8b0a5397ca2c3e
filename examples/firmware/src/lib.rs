//! Shared parts of the AG-UI firmware for the TI Stellaris LM3S6965
//! (Cortex-M3, QEMU machine `lm3s6965evb`): the UART0 driver, the person's
//! console on UART1, the serial
//! verdict line, stack measurement, exiting through semihosting, and the
//! OLED (SSD0323 over SSI0) driver.
//!
//! `demo` and `serial` link no global allocator: `agui-core` runs in fixed
//! memory. The `kiosk` feature adds what the `kiosk` binary uses: the OLED
//! as an embedded-graphics target (module `panel`) and the record of a failed
//! allocation (module `alloc_failure`); its heap lives in the binary itself.
#![no_std]
#![deny(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "kiosk")]
pub mod alloc_failure;
pub mod assistant;
pub mod console;
#[allow(unsafe_code)]
pub mod hw;
pub mod link;
pub mod mem;
#[cfg(feature = "kiosk")]
pub mod panel;
pub mod ssd0323;
pub mod text;
pub mod uart;
pub mod verdict;

use cortex_m_semihosting::debug;

/// Ends the program: QEMU exits with status 0 (`success`) or 1.
///
/// Semihosting needs a debugger (or QEMU) attached; on a free-running
/// board replace this with a reset or a sleep.
pub fn exit(success: bool) -> ! {
    debug::exit(if success {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    // Only reached without a semihosting host that honours the exit.
    loop {
        cortex_m::asm::wfi();
    }
}

/// A panic ends the run with a failure status instead of hanging: in QEMU
/// and CI a hang would only show up as a timeout, and `panic-halt` would
/// keep a stuck board silent. The message is not formatted, which keeps
/// `core::fmt` out of flash. (The core never panics; this is for our code.)
///
/// With the `kiosk` feature a failed allocation (Rust's default handler
/// panics) is named on UART0 first, with the request's size.
#[panic_handler]
fn panic(_info: &core::panic::PanicInfo) -> ! {
    #[cfg(feature = "kiosk")]
    if let Some((size, heap)) = alloc_failure::failed() {
        uart::alloc_failure_line(size, heap);
    }
    exit(false)
}
