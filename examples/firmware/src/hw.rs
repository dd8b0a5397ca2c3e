//! Every `unsafe` of the firmware, behind safe functions: volatile access to
//! the LM3S6965's UART0, UART1, SSI0, GPIO and SYSCTL registers, reading the painted
//! stack, and (feature `defmt`) the global logger.
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

/// UART1's base address: the person's console of the `agent` firmware
/// (the same PL011 registers as UART0, at [`Reg`]'s offsets).
const UART1: usize = 0x4000_D000;

/// Reads a UART1 register.
#[inline]
pub fn read_uart1(reg: Reg) -> u32 {
    // SAFETY: UART1 + offset is a 4-byte aligned peripheral register of the
    // LM3S6965, as for UART0 in `read`.
    unsafe { core::ptr::read_volatile((UART1 + reg as usize) as *const u32) }
}

/// Writes a UART1 register.
#[inline]
pub fn write_uart1(reg: Reg, value: u32) {
    // SAFETY: as in `read_uart1`.
    unsafe { core::ptr::write_volatile((UART1 + reg as usize) as *mut u32, value) }
}

/// Turns on UART1's clock (a no-op in QEMU, required on silicon).
pub fn enable_uart1_clock() {
    // SAFETY: as in `enable_uart0_clock`; bit 1 gates UART1's clock on.
    unsafe {
        let reg = SYSCTL_RCGC1 as *mut u32;
        core::ptr::write_volatile(reg, core::ptr::read_volatile(reg) | 1 << 1);
    }
}

/// SSI0's base address (an ARM PL022 synchronous serial port).
const SSI0: usize = 0x4000_8000;
/// System control: Run-mode Clock Gating Control 2 (bits 0..=6 gate GPIO
/// ports A..=G).
const SYSCTL_RCGC2: usize = 0x400F_E108;

/// The SSI0 registers the OLED driver uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum SsiReg {
    /// Control 0: serial clock rate, clock phase/polarity, frame format,
    /// data size.
    Cr0 = 0x000,
    /// Control 1: SSE (bit 1) enables the port; MS (bit 2) 0 = master.
    Cr1 = 0x004,
    /// Data: a write queues a frame; a read takes a received one.
    Dr = 0x008,
    /// Status: TFE (bit 0), TNF (bit 1), RNE (bit 2), RFF (bit 3), BSY (bit 4).
    Sr = 0x00C,
    /// Clock prescale divisor (even, 2..=254).
    Cpsr = 0x010,
}

/// Reads an SSI0 register.
#[inline]
pub fn ssi_read(reg: SsiReg) -> u32 {
    // SAFETY: SSI0 + offset is a 4-byte aligned peripheral register of the
    // LM3S6965 (see the module docs). Reading DR pops the receive FIFO,
    // which is the peripheral's own state, not memory Rust knows about.
    unsafe { core::ptr::read_volatile((SSI0 + reg as usize) as *const u32) }
}

/// Writes an SSI0 register.
#[inline]
pub fn ssi_write(reg: SsiReg, value: u32) {
    // SAFETY: as in `ssi_read`.
    unsafe { core::ptr::write_volatile((SSI0 + reg as usize) as *mut u32, value) }
}

/// The GPIO ports the OLED is wired to (PL061-style ports of the LM3S6965).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum Port {
    /// Port A: SSI0's clock (A2), frame signal (A3), RX (A4), TX (A5).
    A = 0x4000_4000,
    /// Port C: C7 is the OLED's data/command line.
    C = 0x4000_6000,
    /// Port D: D0 is the SD card's active-low chip select (QEMU also routes
    /// it to the OLED's select, active high).
    D = 0x4000_7000,
}

impl Port {
    /// The port's bit in SYSCTL RCGC2.
    fn clock_bit(self) -> u32 {
        match self {
            Port::A => 1 << 0,
            Port::C => 1 << 2,
            Port::D => 1 << 3,
        }
    }
}

/// The GPIO control registers the OLED driver uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum GpioReg {
    /// Direction: a set bit makes the pin an output.
    Dir = 0x400,
    /// Alternate function select: a set bit hands the pin to a peripheral.
    Afsel = 0x420,
    /// Digital enable: a set bit turns the pin's digital function on.
    Den = 0x51C,
}

/// Sets the bits `mask` of a GPIO control register (read-modify-write).
pub fn gpio_set_bits(port: Port, reg: GpioReg, mask: u8) {
    let addr = port as usize + reg as usize;
    // SAFETY: a 4-byte aligned, always-present GPIO register (module docs);
    // the read-modify-write keeps the other pins' settings.
    unsafe {
        let reg = addr as *mut u32;
        core::ptr::write_volatile(reg, core::ptr::read_volatile(reg) | u32::from(mask));
    }
}

/// Drives the output pins `mask` of `port` high (`high`) or low, leaving
/// every other pin alone: the port's data register is addressed through
/// the pin mask (address bits 2..=9), so no read-modify-write is needed.
pub fn gpio_write_pins(port: Port, mask: u8, high: bool) {
    let addr = port as usize + (usize::from(mask) << 2);
    let value = if high { u32::from(mask) } else { 0 };
    // SAFETY: a masked alias of the port's data register, inside the
    // port's 4 KB register block; only the pins in `mask` change.
    unsafe { core::ptr::write_volatile(addr as *mut u32, value) }
}

/// Turns on the clocks of SSI0 and of GPIO ports A, C and D (no-ops in
/// QEMU, required on silicon).
pub fn enable_oled_clocks() {
    let ports = Port::A.clock_bit() | Port::C.clock_bit() | Port::D.clock_bit();
    // SAFETY: always-present SYSCTL registers; setting bits only gates
    // clocks on (SSI0 is bit 4 of RCGC1). Read-modify-write keeps the rest.
    unsafe {
        let rcgc1 = SYSCTL_RCGC1 as *mut u32;
        core::ptr::write_volatile(rcgc1, core::ptr::read_volatile(rcgc1) | 1 << 4);
        let rcgc2 = SYSCTL_RCGC2 as *mut u32;
        core::ptr::write_volatile(rcgc2, core::ptr::read_volatile(rcgc2) | ports);
    }
}

/// The semihosting command line (QEMU: the `arg=` values of
/// `-semihosting-config`, joined by spaces) copied into `buf`; `None`
/// without a semihosting host or when it does not fit.
pub fn semihosting_cmdline(buf: &mut [u8]) -> Option<&[u8]> {
    // The call's block: a buffer address and its length; the host writes
    // the text and sets the length (without the NUL it adds).
    let mut block = [buf.as_mut_ptr() as usize, buf.len()];
    // SAFETY: SYS_GET_CMDLINE writes at most `buf.len()` bytes into `buf`
    // (a live, exclusively borrowed slice) and updates `block`, which
    // outlives the call. With no host attached the BKPT would fault, as
    // every other semihosting call of this firmware would.
    let status = unsafe {
        cortex_m_semihosting::syscall1(
            cortex_m_semihosting::nr::GET_CMDLINE,
            block.as_mut_ptr() as usize,
        )
    };
    if status != 0 {
        return None;
    }
    buf.get(..block[1])
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

/// The device's interrupt vectors (cortex-m-rt feature `device`): the
/// firmware enables no interrupt, so one entry is enough for the linker
/// script's check, instead of the generic 240 (saves 956 bytes of flash).
#[link_section = ".vector_table.interrupts"]
#[no_mangle]
#[used]
pub static __INTERRUPTS: [extern "C" fn() -> !; 1] = [unused_interrupt];

/// Handler of the one vector above; never enabled, it parks the core.
extern "C" fn unused_interrupt() -> ! {
    loop {
        cortex_m::asm::wfi();
    }
}
