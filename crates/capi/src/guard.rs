//! Boundary helpers: pointer checks, panic containment, host slices.
//!
//! Every entry point checks the pointers it was given with [`valid`]
//! before touching them, builds slices only with [`host_bytes`] /
//! [`host_bytes_mut`] from a (pointer, length) pair the host supplied, and
//! runs its body inside [`catch`] so that no panic unwinds into C.

use crate::types::HRESULT;
use softhal_wire::names::codes;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// `true` if `p` is non-null and aligned for `T`.
pub(crate) fn valid<T>(p: *const T) -> bool {
    !p.is_null() && (p as usize) % core::mem::align_of::<T>() == 0
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

/// The host's `len` bytes at `p` (an empty slice when `len` is 0, whatever
/// `p` is; `None` for a null or wrapping range).
///
/// # Safety
/// When `len > 0` and `p` is non-null, `p` must point to `len` bytes the
/// host keeps readable and unmodified for `'a`.
pub(crate) unsafe fn host_bytes<'a>(p: *const u8, len: usize) -> Option<&'a [u8]> {
    if len == 0 {
        return Some(&[]);
    }
    if !range_ok(p, len) {
        return None;
    }
    // SAFETY: non-null, length checked not to wrap or exceed isize::MAX,
    // and the caller guarantees the bytes are readable for 'a.
    Some(unsafe { std::slice::from_raw_parts(p, len) })
}

/// Like [`host_bytes`], writable.
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
    // SAFETY: as for host_bytes; the caller guarantees exclusive access.
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
            assert_eq!(host_bytes(data.as_ptr(), 3), Some(&data[..]));
            assert_eq!(host_bytes(std::ptr::null(), 0), Some(&[][..]));
            assert_eq!(host_bytes(std::ptr::null(), 1), None);
            assert_eq!(host_bytes(usize::MAX as *const u8, 2), None);
            assert_eq!(host_bytes(data.as_ptr(), usize::MAX), None);
            assert!(host_bytes_mut(std::ptr::null_mut(), 5).is_none());
        }
    }
}
