//! Vector helpers shared by the x86_64 kernel bodies. Every function
//! requires the target features of its callers (SSE2 for the 128-bit
//! helpers, AVX2 for the 256-bit ones), which callers check with
//! `is_x86_feature_detected!` before entering a kernel.
use crate::state::CmpFunc;
use std::arch::x86_64::*;

#[inline(always)]
pub(super) unsafe fn load4(v: &[i32; 4]) -> __m128i {
    // SAFETY: `v` is 16 readable bytes; loadu has no alignment need.
    unsafe { _mm_loadu_si128(v.as_ptr().cast()) }
}

/// Packs four pixels held as i32 BGRA 16.16 vectors into 16 bytes.
#[inline(always)]
pub(super) unsafe fn pack4(p0: __m128i, p1: __m128i, p2: __m128i, p3: __m128i) -> __m128i {
    // SAFETY: SSE2 intrinsics on registers; SSE2 is enabled in every
    // caller.
    unsafe {
        let a = _mm_packs_epi32(_mm_srai_epi32(p0, 16), _mm_srai_epi32(p1, 16));
        let b = _mm_packs_epi32(_mm_srai_epi32(p2, 16), _mm_srai_epi32(p3, 16));
        _mm_packus_epi16(a, b)
    }
}

/// Lane mask with lanes `0..rem` set (rem ≤ 8).
#[inline(always)]
pub(super) unsafe fn tail_mask(rem: usize) -> __m256i {
    // SAFETY: register-only AVX2 operations (callers enable AVX2).
    unsafe {
        _mm256_cmpgt_epi32(
            _mm256_set1_epi32(rem as i32),
            _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0),
        )
    }
}

/// Packs 8 pixels held in the AVX2 register arrangement of
/// `gouraud_span_avx2` into 32 bytes in pixel order.
#[inline(always)]
pub(super) unsafe fn pack8(r: &[__m256i; 4]) -> __m256i {
    // SAFETY: register-only AVX2 operations (callers enable AVX2).
    unsafe {
        let a = _mm256_packs_epi32(_mm256_srai_epi32(r[0], 16), _mm256_srai_epi32(r[1], 16));
        let b = _mm256_packs_epi32(_mm256_srai_epi32(r[2], 16), _mm256_srai_epi32(r[3], 16));
        _mm256_packus_epi16(a, b)
    }
}

/// Lane mask where `new FUNC old` holds, AVX2.
#[inline(always)]
pub(super) unsafe fn cmp_avx2(func: CmpFunc, new: __m256i, old: __m256i) -> __m256i {
    // SAFETY: register-only AVX2 operations.
    unsafe {
        let ones = _mm256_set1_epi32(-1);
        match func {
            CmpFunc::Never => _mm256_setzero_si256(),
            CmpFunc::Less => _mm256_cmpgt_epi32(old, new),
            CmpFunc::Equal => _mm256_cmpeq_epi32(new, old),
            CmpFunc::LessEqual => _mm256_xor_si256(_mm256_cmpgt_epi32(new, old), ones),
            CmpFunc::Greater => _mm256_cmpgt_epi32(new, old),
            CmpFunc::NotEqual => _mm256_xor_si256(_mm256_cmpeq_epi32(new, old), ones),
            CmpFunc::GreaterEqual => _mm256_xor_si256(_mm256_cmpgt_epi32(old, new), ones),
            CmpFunc::Always => ones,
        }
    }
}

/// [`cmp_avx2`] with the function fixed at compile time: `F` is the
/// D3DCMPFUNC number (see [`super::cmp_func_of`]), chosen once per
/// triangle by [`super::by_cmp_func`] so that the per-8-pixel loop carries
/// no dispatch.
#[inline(always)]
pub(super) unsafe fn cmp_const<const F: u8>(new: __m256i, old: __m256i) -> __m256i {
    // SAFETY: register-only AVX2 operations (callers enable AVX2).
    unsafe { cmp_avx2(super::cmp_func_of(F), new, old) }
}
