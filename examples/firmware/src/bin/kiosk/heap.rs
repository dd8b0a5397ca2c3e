//! The kiosk firmware's heap: `embedded-alloc`'s linked-list allocator over
//! a static block of RAM, wrapped to count the peak use and to remember a
//! request it could not serve, so that running out of heap is reported as
//! such on UART0 (see the panic handler) instead of ending silently.
//!
//! This module is part of the `kiosk` binary only, so `demo` and `serial`
//! link no allocator (and `embedded-alloc`'s `alloc` dependency) even when
//! built with the `kiosk` feature.

use core::alloc::{GlobalAlloc, Layout};
use core::cell::UnsafeCell;
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use agui_firmware::alloc_failure;

use embedded_alloc::LlffHeap;

/// Bytes of RAM given to the heap. See the firmware README for why this
/// size: the kiosk's peak on the sample conversation is a few KB, and the
/// client's limits (`max_message_bytes` and friends) are set from this
/// number so that a long stream stops with a capacity error well before
/// the allocator fails.
pub const HEAP_SIZE: usize = 44 * 1024;

/// The heap's memory, handed to the allocator once by [`Heap::init`].
struct Arena(UnsafeCell<[MaybeUninit<u8>; HEAP_SIZE]>);

// SAFETY: the arena is only reached through `Heap::init`, once (guarded by
// `INIT`), after which the allocator owns it; no reference to its bytes is
// ever formed here.
unsafe impl Sync for Arena {}

static ARENA: Arena = Arena(UnsafeCell::new([MaybeUninit::uninit(); HEAP_SIZE]));
static INIT: AtomicBool = AtomicBool::new(false);

/// A global allocator that counts its peak and remembers a failure.
pub struct Heap {
    inner: LlffHeap,
    peak: AtomicUsize,
}

impl Heap {
    /// An allocator with no memory yet: call [`init`](Self::init) first.
    pub const fn empty() -> Self {
        Heap {
            inner: LlffHeap::empty(),
            peak: AtomicUsize::new(0),
        }
    }

    /// Gives the allocator its [`HEAP_SIZE`] bytes; later calls do nothing.
    pub fn init(&self) {
        if INIT.swap(true, Ordering::AcqRel) {
            return;
        }
        // SAFETY: runs once (the flag above); the arena is static, so valid
        // for the program's life, and nothing else uses it.
        unsafe { self.inner.init(ARENA.0.get() as usize, HEAP_SIZE) }
    }

    /// Bytes in use now (as the allocator counts them).
    pub fn used(&self) -> usize {
        self.inner.used()
    }

    /// Bytes free now (possibly fragmented).
    pub fn free(&self) -> usize {
        self.inner.free()
    }

    /// The most bytes in use at once so far.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }
}

// SAFETY: every method forwards to `LlffHeap`, which upholds the
// GlobalAlloc contract; the wrapper only reads counters and records sizes.
unsafe impl GlobalAlloc for Heap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let ptr = unsafe { self.inner.alloc(layout) };
        if ptr.is_null() {
            alloc_failure::record(layout.size(), HEAP_SIZE);
        } else {
            self.peak.fetch_max(self.inner.used(), Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { self.inner.dealloc(ptr, layout) }
    }
}
