//! Shared by the fuzz targets: a counting global allocator (the memory
//! oracle, P6 of the reliability goals) and a small reader that turns the
//! fuzzer's bytes into choices.
//!
//! The allocator only counts what Rust code allocates (libFuzzer's own C++
//! allocations are not seen). `measure` resets the counters, runs a
//! closure and returns the number of allocations and the peak of live
//! bytes above the level at the start.
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The system allocator, counting.
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static COUNT: AtomicUsize = AtomicUsize::new(0);

fn grow(n: usize) {
    let now = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's layout and
// pointer unchanged; the counters are plain atomics and never affect the
// memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        COUNT.fetch_add(1, Relaxed);
        // SAFETY: forwarded contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        COUNT.fetch_add(1, Relaxed);
        // SAFETY: forwarded contract.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: forwarded contract.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        COUNT.fetch_add(1, Relaxed);
        // SAFETY: forwarded contract.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            grow(new_size);
        }
        p
    }
}

/// What [`measure`] saw.
#[derive(Debug, Clone, Copy)]
pub struct Usage {
    /// Allocations (and reallocations) made.
    pub allocations: usize,
    /// Peak of live bytes above the level at the start.
    pub peak: usize,
    /// Live bytes at the end minus live bytes at the start (a leak if the
    /// closure dropped everything it made).
    pub net: isize,
}

/// Runs `f` and reports its allocations. Not reentrant; the fuzz targets
/// are single-threaded apart from the renderer's workers, which `f` joins.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Usage) {
    let start = LIVE.load(Relaxed);
    PEAK.store(start, Relaxed);
    COUNT.store(0, Relaxed);
    let r = f();
    let end = LIVE.load(Relaxed);
    let usage = Usage {
        allocations: COUNT.load(Relaxed),
        peak: PEAK.load(Relaxed).saturating_sub(start),
        net: end as isize - start as isize,
    };
    (r, usage)
}

/// With `SOFTHAL_FUZZ_PEAKS` set, prints to stderr each input whose peak
/// heap is a new maximum, in bytes or as a share of the input's bound
/// (`bound` as asserted by the target). Replaying a corpus this way
/// (`-runs=0`) gives a campaign's memory figures: the largest peak seen
/// against the documented bound (`docs/limits.md`).
pub fn note_peak(target: &str, peak: usize, bound: usize) {
    static MAX_PEAK: AtomicUsize = AtomicUsize::new(0);
    static MAX_PERMILLE: AtomicUsize = AtomicUsize::new(0);
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if !*ON.get_or_init(|| std::env::var_os("SOFTHAL_FUZZ_PEAKS").is_some()) {
        return;
    }
    let permille = peak.saturating_mul(1000) / bound.max(1);
    let more = MAX_PEAK.fetch_max(peak, Relaxed) < peak;
    let share = MAX_PERMILLE.fetch_max(permille, Relaxed) < permille;
    if more || share {
        eprintln!(
            "peak-heap {target}: {peak} bytes, bound {bound} ({}.{}%)",
            permille / 10,
            permille % 10
        );
    }
}

/// The codes the render callback may answer (`docs/submission.md`); the
/// C ABI adds its boundary codes (`docs/c-api.md`).
pub const RENDER_ANSWERS: [u32; 8] = [
    softhal_wire::names::codes::D3D_OK,
    softhal_wire::names::codes::D3DDDIERR_PRIVILEGEDINSTRUCTION,
    softhal_wire::names::codes::D3DDDIERR_INVALIDINSTRUCTION,
    softhal_wire::names::codes::D3DDDIERR_INVALIDHANDLE,
    softhal_wire::names::codes::D3DDDIERR_CANTRENDERLOCKEDALLOCATION,
    softhal_wire::names::codes::D3DDDIERR_INVALIDUSERBUFFER,
    softhal_wire::names::codes::E_OUTOFMEMORY,
    softhal_wire::names::codes::E_INVALIDARG,
];

/// Choices drawn from the fuzzer's bytes; exhausted input reads as zeros.
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    /// A reader over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data }
    }
    /// True when every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    /// One byte.
    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((b, rest)) => {
                self.data = rest;
                *b
            }
            None => 0,
        }
    }
    /// A little-endian u16.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    /// A little-endian u32.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    /// Up to `n` bytes (fewer at the end of the input).
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let n = n.min(self.data.len());
        let (a, b) = self.data.split_at(n);
        self.data = b;
        a
    }
    /// A length-prefixed chunk: one byte of length × 4, then the bytes.
    pub fn chunk(&mut self) -> &'a [u8] {
        let n = usize::from(self.u8()) * 4;
        self.take(n)
    }
    /// An index below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            usize::from(self.u16()) % n
        }
    }
}
