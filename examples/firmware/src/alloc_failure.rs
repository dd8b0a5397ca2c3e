//! The record of an allocation the kiosk's heap could not serve. The heap
//! (in the `kiosk` binary) records it; Rust's default allocation error
//! handler then panics, and the panic handler names the failure on UART0.
//! Plain atomics: nothing here needs an allocator.

use core::sync::atomic::{AtomicUsize, Ordering};

/// Size of the first request that failed (0: none).
static SIZE: AtomicUsize = AtomicUsize::new(0);
/// Size of the heap it failed in.
static HEAP: AtomicUsize = AtomicUsize::new(0);

/// Records a failed request of `size` bytes in a heap of `heap` bytes; only
/// the first one is kept.
pub fn record(size: usize, heap: usize) {
    if SIZE
        .compare_exchange(0, size.max(1), Ordering::Relaxed, Ordering::Relaxed)
        .is_ok()
    {
        HEAP.store(heap, Ordering::Relaxed);
    }
}

/// The failed request's size and the heap's, if an allocation failed.
pub fn failed() -> Option<(usize, usize)> {
    match SIZE.load(Ordering::Relaxed) {
        0 => None,
        size => Some((size, HEAP.load(Ordering::Relaxed))),
    }
}
