//! Byte-at-a-time memory functions, in place of `compiler_builtins`'.
//!
//! The compiler calls `memcpy`, `memmove`, `memset` and `memcmp` (and the
//! ARM EABI aliases) for moves of values and buffers. The versions in
//! `compiler_builtins` copy a word at a time with separate paths for every
//! alignment: 3.2 KB of flash. These take about 200 bytes. They are slower
//! per byte, which the firmware does not feel: the pipeline never copies a
//! frame, and its moves are of small values (errors, table entries).
//!
//! Each loop goes through volatile accesses so that LLVM cannot recognise
//! it as a copy and turn it back into a call to the function itself.
#![allow(unsafe_code)]

use core::ptr::{read_volatile, write_volatile};

/// Copies `n` bytes from `src` to `dst`, front to back.
///
/// # Safety
/// `src` and `dst` valid for `n` bytes; overlap only with `dst <= src`.
unsafe fn forward(dst: *mut u8, src: *const u8, n: usize) {
    let mut i = 0;
    while i < n {
        // SAFETY: i < n and both ranges are valid for n bytes.
        unsafe { write_volatile(dst.add(i), read_volatile(src.add(i))) };
        i += 1;
    }
}

/// Copies `n` bytes from `src` to `dst`, back to front.
///
/// # Safety
/// `src` and `dst` valid for `n` bytes.
unsafe fn backward(dst: *mut u8, src: *const u8, mut n: usize) {
    while n > 0 {
        n -= 1;
        // SAFETY: n is below the original length of both valid ranges.
        unsafe { write_volatile(dst.add(n), read_volatile(src.add(n))) };
    }
}

/// Copies `n` bytes from `src` to `dst` in the direction that keeps an
/// overlap right.
///
/// # Safety
/// `src` and `dst` valid for `n` bytes.
unsafe fn shift(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's contract; the direction keeps an overlap right.
    unsafe {
        if (dst as usize) <= (src as usize) {
            forward(dst, src, n);
        } else {
            backward(dst, src, n);
        }
    }
}

/// Compares `n` bytes, C style.
///
/// # Safety
/// Both ranges valid for `n` bytes.
unsafe fn compare(a: *const u8, b: *const u8, n: usize) -> i32 {
    let mut i = 0;
    while i < n {
        // SAFETY: i < n and both ranges are valid for n bytes.
        let (x, y) = unsafe { (read_volatile(a.add(i)), read_volatile(b.add(i))) };
        if x != y {
            return i32::from(x) - i32::from(y);
        }
        i += 1;
    }
    0
}

/// Fills `n` bytes at `dst` with `value`.
///
/// # Safety
/// `dst` valid for `n` bytes.
unsafe fn fill(dst: *mut u8, value: u8, n: usize) {
    let mut i = 0;
    while i < n {
        // SAFETY: i < n and the range is valid for n bytes.
        unsafe { write_volatile(dst.add(i), value) };
        i += 1;
    }
}

/// C `memcpy`.
///
/// # Safety
/// As C's: both ranges valid for `n` bytes and not overlapping.
#[no_mangle]
pub unsafe extern "C" fn memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the caller's contract.
    unsafe { forward(dst, src, n) };
    dst
}

/// C `memmove`.
///
/// # Safety
/// As C's: both ranges valid for `n` bytes; they may overlap.
#[no_mangle]
pub unsafe extern "C" fn memmove(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the caller's contract.
    unsafe { shift(dst, src, n) };
    dst
}

/// C `memset`.
///
/// # Safety
/// As C's: `dst` valid for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn memset(dst: *mut u8, value: i32, n: usize) -> *mut u8 {
    // SAFETY: the caller's contract. C passes the byte as an int.
    unsafe { fill(dst, value as u8, n) };
    dst
}

/// C `memcmp`.
///
/// # Safety
/// As C's: both ranges valid for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { compare(a, b, n) }
}

/// C `bcmp` (equality only), which LLVM may call for `==` on byte slices.
///
/// # Safety
/// As C's: both ranges valid for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { compare(a, b, n) }
}

// The ARM EABI names (the compiler calls these on ARM; they take the length
// before the value for memset, and return nothing). None of these calls the
// C-named functions: LLVM lowers such a call back to the EABI name, which
// would recurse.

/// EABI `memcpy`.
///
/// # Safety
/// As [`memcpy`].
#[no_mangle]
pub unsafe extern "C" fn __aeabi_memcpy(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's contract.
    unsafe { forward(dst, src, n) };
}

/// EABI `memcpy` for 4-byte aligned ranges.
///
/// # Safety
/// As [`memcpy`].
#[no_mangle]
pub unsafe extern "C" fn __aeabi_memcpy4(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's contract.
    unsafe { forward(dst, src, n) };
}

/// EABI `memcpy` for 8-byte aligned ranges.
///
/// # Safety
/// As [`memcpy`].
#[no_mangle]
pub unsafe extern "C" fn __aeabi_memcpy8(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's contract.
    unsafe { forward(dst, src, n) };
}

/// EABI `memmove`.
///
/// # Safety
/// As [`memmove`].
#[no_mangle]
pub unsafe extern "C" fn __aeabi_memmove(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's contract.
    unsafe { shift(dst, src, n) };
}

/// EABI `memmove` for 4-byte aligned ranges.
///
/// # Safety
/// As [`memmove`].
#[no_mangle]
pub unsafe extern "C" fn __aeabi_memmove4(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's contract.
    unsafe { shift(dst, src, n) };
}

/// EABI `memmove` for 8-byte aligned ranges.
///
/// # Safety
/// As [`memmove`].
#[no_mangle]
pub unsafe extern "C" fn __aeabi_memmove8(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's contract.
    unsafe { shift(dst, src, n) };
}

/// EABI `memset` (length before value).
///
/// # Safety
/// As [`memset`].
#[no_mangle]
pub unsafe extern "C" fn __aeabi_memset(dst: *mut u8, n: usize, value: i32) {
    // SAFETY: the caller's contract.
    unsafe { fill(dst, value as u8, n) };
}

/// EABI `memset` for 4-byte aligned ranges.
///
/// # Safety
/// As [`memset`].
#[no_mangle]
pub unsafe extern "C" fn __aeabi_memset4(dst: *mut u8, n: usize, value: i32) {
    // SAFETY: the caller's contract.
    unsafe { fill(dst, value as u8, n) };
}

/// EABI `memset` for 8-byte aligned ranges.
///
/// # Safety
/// As [`memset`].
#[no_mangle]
pub unsafe extern "C" fn __aeabi_memset8(dst: *mut u8, n: usize, value: i32) {
    // SAFETY: the caller's contract.
    unsafe { fill(dst, value as u8, n) };
}

/// EABI zero fill.
///
/// # Safety
/// As [`memset`].
#[no_mangle]
pub unsafe extern "C" fn __aeabi_memclr(dst: *mut u8, n: usize) {
    // SAFETY: the caller's contract.
    unsafe { fill(dst, 0, n) };
}

/// EABI zero fill for 4-byte aligned ranges.
///
/// # Safety
/// As [`memset`].
#[no_mangle]
pub unsafe extern "C" fn __aeabi_memclr4(dst: *mut u8, n: usize) {
    // SAFETY: the caller's contract.
    unsafe { fill(dst, 0, n) };
}

/// EABI zero fill for 8-byte aligned ranges.
///
/// # Safety
/// As [`memset`].
#[no_mangle]
pub unsafe extern "C" fn __aeabi_memclr8(dst: *mut u8, n: usize) {
    // SAFETY: the caller's contract.
    unsafe { fill(dst, 0, n) };
}
