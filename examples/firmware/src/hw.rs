//! Every `unsafe` of the firmware, behind safe functions: volatile access to
//! the LM3S6965's UART0 and SYSCTL registers, reading the painted stack, and
//! (feature `defmt`) the global logger.
//!
//! Soundness rests on two facts about this chip: the addresses below are
//! memory-mapped registers that are always present (so a volatile access
//! cannot fault), and the firmware is single-threaded with no interrupts
//! enabled (so no access races another).

/// UART0's base address.
const UART0: usize = 0x4000_C000;
/// System control: Run-mode Clock Gating Control 1 (bit 0 gates UART0).
const SYSCTL_RCGC1: usize = 0x400F_E104;

/// The UART0 registers the driver uses, so that no other address can be
/// reached through [`read()`] and [`write()`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum Reg {
    /// Data: a write sends a byte; a read takes one, with error bits 8..=11.
    Dr = 0x000,
    /// Flags: RXFE (bit 4), TXFF (bit 5).
    Fr = 0x018,
    /// Integer baud-rate divisor.
    Ibrd = 0x024,
    /// Fractional baud-rate divisor.
    Fbrd = 0x028,
    /// Line control: word length, FIFO enable.
    Lcrh = 0x02C,
    /// Control: UARTEN (bit 0), TXE (bit 8), RXE (bit 9).
    Ctl = 0x030,
}

/// Reads a UART0 register.
#[inline]
pub fn read(reg: Reg) -> u32 {
    // SAFETY: UART0 + offset is a 4-byte aligned peripheral register of the
    // LM3S6965 (see the module docs); reading it has no effect on memory.
    unsafe { core::ptr::read_volatile((UART0 + reg as usize) as *const u32) }
}

/// Writes a UART0 register.
#[inline]
pub fn write(reg: Reg, value: u32) {
    // SAFETY: as in `read`; the register is not memory Rust knows about.
    unsafe { core::ptr::write_volatile((UART0 + reg as usize) as *mut u32, value) }
}

/// Turns on UART0's clock (a no-op in QEMU, required on silicon).
pub fn enable_uart0_clock() {
    // SAFETY: SYSCTL RCGC1 is an always-present register; setting bit 0
    // only gates UART0's clock on. Read-modify-write keeps the other bits.
    unsafe {
        let reg = SYSCTL_RCGC1 as *mut u32;
        core::ptr::write_volatile(reg, core::ptr::read_volatile(reg) | 1);
    }
}

/// The value cortex-m-rt (feature `paint-stack`) writes over the whole
/// stack region at reset, before `main`.
const PAINT: u32 = 0xCCCC_CCCC;

extern "C" {
    /// Top of the stack (cortex-m-rt's linker script: the end of RAM).
    static _stack_start: u32;
    /// Lowest address the stack may reach (the end of .bss).
    static _stack_end: u32;
}

/// The peak stack use so far, in bytes: the distance from the top of the
/// stack to the lowest word that no longer holds the paint.
///
/// A stack word that happened to hold `0xCCCC_CCCC` at the deep end would
/// be missed (4 bytes low); nothing else can hide use.
pub fn stack_used() -> usize {
    let top = core::ptr::addr_of!(_stack_start) as usize;
    let mut addr = core::ptr::addr_of!(_stack_end) as usize;
    while addr < top {
        // SAFETY: `addr` is a 4-byte aligned address inside RAM between the
        // linker's `_stack_end` and `_stack_start` (both 4-aligned); the
        // words are plain memory, read without forming a reference.
        let word = unsafe { core::ptr::read_volatile(addr as *const u32) };
        if word != PAINT {
            break;
        }
        addr += 4;
    }
    top - addr
}

/// A defmt logger that drops every frame: it lets the `defmt` feature link
/// and instantiates the core's `defmt::Format` impls. On hardware use
/// `defmt-rtt` instead.
#[cfg(feature = "defmt")]
mod logger {
    #[defmt::global_logger]
    struct Discard;

    // SAFETY: every method is a no-op, so acquire/release pairing and
    // reentrancy (the trait's obligations) cannot be violated.
    unsafe impl defmt::Logger for Discard {
        fn acquire() {}
        unsafe fn flush() {}
        unsafe fn release() {}
        unsafe fn write(_bytes: &[u8]) {}
    }
}
