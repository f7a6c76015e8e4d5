//! Boundary helpers: pointer checks, panic containment, host slices.
//!
//! Every entry point checks the pointers it was given with [`valid`]
//! before touching them, reads host memory only with [`host_copy`] (one
//! read of each byte, into softhal's memory), writes it only through
//! [`host_bytes_mut`] from a (pointer, length) pair the host supplied, and
//! runs its body inside [`catch`] so that no panic unwinds into C.

use crate::types::HRESULT;
use softhal_wire::names::codes;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};

/// `true` if `p` is non-null and aligned for `T`.
pub(crate) fn valid<T>(p: *const T) -> bool {
    !p.is_null() && (p as usize).is_multiple_of(core::mem::align_of::<T>())
}

/// Runs `f`, turning a panic into `fallback`.
pub(crate) fn catch<R>(fallback: R, f: impl FnOnce() -> R) -> R {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}

/// An HRESULT constant (stored as `u32` in `softhal_wire`) as the C type.
pub(crate) const fn hr(code: u32) -> HRESULT {
    code as HRESULT
}

/// `E_INVALIDARG` / `DDERR_INVALIDPARAMS`.
pub(crate) const INVALIDARG: HRESULT = hr(codes::E_INVALIDARG);
/// `DDERR_INVALIDOBJECT`.
pub(crate) const INVALIDOBJECT: HRESULT = hr(codes::DDERR_INVALIDOBJECT);
/// What a caught panic reports.
pub(crate) const INTERNAL: HRESULT = hr(codes::D3DERR_DRIVERINTERNALERROR);

/// `true` if `len` bytes at `p` form a range a slice may describe.
fn range_ok(p: *const u8, len: usize) -> bool {
    !p.is_null() && len <= isize::MAX as usize && (p as usize).checked_add(len).is_some()
}

/// A copy of the host's `len` bytes at `p` in softhal's own memory (empty
/// when `len` is 0, whatever `p` is; `None` for a null or wrapping range).
///
/// This is the only way the C ABI reads memory the host names, and it reads
/// every byte exactly once: each call parses, validates and executes the
/// copy, so memory the host shares with a guest may change during the call
/// without softhal ever seeing two values of one byte (no double fetch).
/// The reads are relaxed atomic loads, which are defined even while another
/// agent writes the memory, and each naturally aligned DWORD is read with
/// one 32-bit load, so a guest's aligned DWORD write is seen whole or not
/// at all. The caller bounds `len` before calling (this allocates `len`).
///
/// # Safety
/// When `len > 0` and `p` is non-null, `p` must point to `len` bytes that
/// stay mapped and readable for the duration of the call (their contents
/// may change).
pub(crate) unsafe fn host_copy(p: *const u8, len: usize) -> Option<Vec<u8>> {
    if len == 0 {
        return Some(Vec::new());
    }
    if !range_ok(p, len) {
        return None;
    }
    let mut out = vec![0u8; len];
    let head = p.align_offset(4).min(len);
    let words = (len - head) / 4;
    let (out_head, rest) = out.split_at_mut(head);
    let (out_words, out_tail) = rest.split_at_mut(words * 4);
    let load_byte = |i: usize| {
        // SAFETY: i < len, so p + i is inside the host's readable range;
        // an AtomicU8 has the size and alignment of a u8.
        unsafe { AtomicU8::from_ptr(p.add(i).cast_mut()) }.load(Ordering::Relaxed)
    };
    for (i, b) in out_head.iter_mut().enumerate() {
        *b = load_byte(i);
    }
    for (k, w) in out_words.chunks_exact_mut(4).enumerate() {
        // SAFETY: p + head is 4-aligned and head + 4k + 4 <= len, so the
        // word is inside the host's range and aligned for an AtomicU32.
        let v = unsafe { AtomicU32::from_ptr(p.add(head + 4 * k).cast::<u32>().cast_mut()) }
            .load(Ordering::Relaxed);
        w.copy_from_slice(&v.to_ne_bytes());
    }
    let tail_start = head + words * 4;
    for (i, b) in out_tail.iter_mut().enumerate() {
        *b = load_byte(tail_start + i);
    }
    Some(out)
}

/// The host's `len` bytes at `p` as a writable slice, for the output
/// buffers a host hands over (`softhal_present`, surface reads); an empty
/// slice when `len` is 0, `None` for a null or wrapping range.
///
/// # Safety
/// When `len > 0` and `p` is non-null, `p` must point to `len` bytes the
/// host keeps writable and otherwise untouched for `'a`.
pub(crate) unsafe fn host_bytes_mut<'a>(p: *mut u8, len: usize) -> Option<&'a mut [u8]> {
    if len == 0 {
        return Some(&mut []);
    }
    if !range_ok(p, len) {
        return None;
    }
    // SAFETY: non-null, length checked not to wrap or exceed isize::MAX,
    // and the caller guarantees exclusive access for 'a.
    Some(unsafe { std::slice::from_raw_parts_mut(p, len) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catch_contains_panics() {
        let r = catch(7, || -> i32 { panic!("inside") });
        assert_eq!(r, 7);
        assert_eq!(catch(7, || 3), 3);
    }

    #[test]
    fn pointer_checks() {
        let x = 0u32;
        assert!(valid(&x as *const u32));
        assert!(!valid(std::ptr::null::<u32>()));
        let mis = (&x as *const u32 as *const u8)
            .wrapping_add(1)
            .cast::<u32>();
        assert!(!valid(mis));
    }

    #[test]
    fn host_slices_are_checked() {
        let data = [1u8, 2, 3];
        // SAFETY: (ptr, len) pairs below are either valid or rejected.
        unsafe {
            assert_eq!(host_copy(data.as_ptr(), 3).as_deref(), Some(&data[..]));
            assert_eq!(host_copy(std::ptr::null(), 0), Some(Vec::new()));
            assert_eq!(host_copy(std::ptr::null(), 1), None);
            assert_eq!(host_copy(usize::MAX as *const u8, 2), None);
            assert_eq!(host_copy(data.as_ptr(), usize::MAX), None);
            assert!(host_bytes_mut(std::ptr::null_mut(), 5).is_none());
        }
    }

    /// The word-wise copy against a plain slice copy, at every start
    /// alignment and length around the word boundaries.
    #[test]
    fn host_copy_matches_a_plain_copy_at_every_alignment() {
        let data: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37) ^ 0x5A).collect();
        for start in 0..8 {
            for len in 0..=40 {
                let want = &data[start..start + len];
                // SAFETY: the range is inside `data`.
                let got = unsafe { host_copy(data.as_ptr().add(start), len) };
                assert_eq!(got.as_deref(), Some(want), "start {start} len {len}");
            }
        }
    }
}
