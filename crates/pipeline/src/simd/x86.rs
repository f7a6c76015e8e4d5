//! Vector helpers shared by the x86_64 kernel bodies. Every function
//! requires the target features of its callers (SSE2 for the 128-bit
//! helpers, AVX2 for the 256-bit ones), which callers check with
//! `is_x86_feature_detected!` before entering a kernel.
use std::arch::x86_64::*;

#[inline(always)]
pub(super) unsafe fn load4(v: &[i32; 4]) -> __m128i {
    // SAFETY: `v` is 16 readable bytes; loadu has no alignment need.
    unsafe { _mm_loadu_si128(v.as_ptr().cast()) }
}
