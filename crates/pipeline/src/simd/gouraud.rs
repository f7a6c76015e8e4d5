//! Gouraud span kernel: a span of 32-bit pixels from 16.16 colour
//! planes, no depth test.
//!
//! *Input*: the destination bytes of the span, the start colour and its
//! step per pixel, an AND mask. *Output*: the written pixels.
//! *Guarantees*: the SSE2 and AVX2 bodies write exactly the bytes of the
//! scalar twin [`gouraud_span_scalar`].
use super::{pack_pixel, step_pixel, SimdLevel};

/// Scalar twin of [`gouraud_span`].
pub(crate) fn gouraud_span_scalar(dst: &mut [u8], start: [i32; 4], step: [i32; 4], and_mask: u32) {
    let mut v = start;
    for px in dst.chunks_exact_mut(4) {
        px.copy_from_slice(&pack_pixel(&v, and_mask).to_le_bytes());
        step_pixel(&mut v, &step);
    }
}

/// Writes `dst.len() / 4` 32-bit pixels of a Gouraud span: pixel i gets
/// channels `clamp((start + i·step) >> 16, 0, 255)`, ANDed with `and_mask`
/// (0x00FF_FFFF zeroes the X byte of X8R8G8B8).
pub(crate) fn gouraud_span(
    level: SimdLevel,
    dst: &mut [u8],
    start: [i32; 4],
    step: [i32; 4],
    and_mask: u32,
) {
    #[cfg(target_arch = "x86_64")]
    {
        match level {
            SimdLevel::Avx2 => {
                // SAFETY: `level` is Avx2 only when `SimdLevel::detect` saw
                // AVX2 (the renderer clamps requested levels to the CPU).
                unsafe { x86::gouraud_span_avx2(dst, start, step, and_mask) };
                return;
            }
            SimdLevel::Sse2 | SimdLevel::Sse41 => {
                // SAFETY: SSE2 is part of the x86_64 baseline and was
                // detected.
                unsafe { x86::gouraud_span_sse2(dst, start, step, and_mask) };
                return;
            }
            SimdLevel::Scalar => {}
        }
    }
    let _ = level;
    gouraud_span_scalar(dst, start, step, and_mask);
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! x86_64 bodies: only store through `chunks_exact_mut` chunks of the
    //! exact store width (or masked stores of the lanes inside the span).
    use super::super::color_at;
    use super::super::x86::{load4, pack4, pack8, tail_mask};
    use super::gouraud_span_scalar;
    use std::arch::x86_64::*;

    #[target_feature(enable = "sse2")]
    pub(super) unsafe fn gouraud_span_sse2(
        dst: &mut [u8],
        start: [i32; 4],
        step: [i32; 4],
        and_mask: u32,
    ) {
        let n4 = dst.len() / 16;
        // SAFETY: register-only SSE2 operations; loads from local arrays.
        let (mut v0, mut v1, mut v2, mut v3, step4, andm) = unsafe {
            let s = load4(&step);
            let v0 = load4(&start);
            let v1 = _mm_add_epi32(v0, s);
            let v2 = _mm_add_epi32(v1, s);
            let v3 = _mm_add_epi32(v2, s);
            (
                v0,
                v1,
                v2,
                v3,
                _mm_slli_epi32(s, 2),
                _mm_set1_epi32(and_mask as i32),
            )
        };
        let (body, tail) = dst.split_at_mut(n4 * 16);
        for chunk in body.chunks_exact_mut(16) {
            // SAFETY: `chunk` is exactly 16 writable bytes; storeu has no
            // alignment requirement.
            unsafe {
                let p = _mm_and_si128(pack4(v0, v1, v2, v3), andm);
                _mm_storeu_si128(chunk.as_mut_ptr().cast(), p);
                v0 = _mm_add_epi32(v0, step4);
                v1 = _mm_add_epi32(v1, step4);
                v2 = _mm_add_epi32(v2, step4);
                v3 = _mm_add_epi32(v3, step4);
            }
        }
        gouraud_span_scalar(tail, color_at(&start, &step, n4 * 4), step, and_mask);
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn gouraud_span_avx2(
        dst: &mut [u8],
        start: [i32; 4],
        step: [i32; 4],
        and_mask: u32,
    ) {
        let n8 = dst.len() / 32;
        // Register k holds pixel i+k in its low half and pixel i+k+4 in
        // its high half, so that the in-lane packs give pixels in order.
        // SAFETY: register-only AVX2 operations; loads from local arrays.
        let (mut r, step8, andm) = unsafe {
            let s = load4(&step);
            let lo0 = load4(&start);
            let s4 = _mm_slli_epi32(s, 2);
            let mut r = [_mm256_setzero_si256(); 4];
            let mut lo = lo0;
            for rk in r.iter_mut() {
                let hi = _mm_add_epi32(lo, s4);
                *rk = _mm256_set_m128i(hi, lo);
                lo = _mm_add_epi32(lo, s);
            }
            let s8 = _mm_slli_epi32(s, 3);
            (
                r,
                _mm256_set_m128i(s8, s8),
                _mm256_set1_epi32(and_mask as i32),
            )
        };
        let (body, tail) = dst.split_at_mut(n8 * 32);
        for chunk in body.chunks_exact_mut(32) {
            // SAFETY: `chunk` is exactly 32 writable bytes; storeu has no
            // alignment requirement.
            unsafe {
                let p = _mm256_and_si256(pack8(&r), andm);
                _mm256_storeu_si256(chunk.as_mut_ptr().cast(), p);
                for rk in r.iter_mut() {
                    *rk = _mm256_add_epi32(*rk, step8);
                }
            }
        }
        let rem = tail.len() / 4;
        if rem > 0 {
            // SAFETY: lanes < rem are inside `tail` (rem·4 ≤ tail.len());
            // masked-off lanes are not accessed by maskstore.
            unsafe {
                let mask = tail_mask(rem);
                let p = _mm256_and_si256(pack8(&r), andm);
                _mm256_maskstore_epi32(tail.as_mut_ptr().cast(), mask, p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::LEVELS;
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn gouraud_span_matches_scalar(
            n in 0usize..70,
            start in proptest::array::uniform4(any::<i32>()),
            step in proptest::array::uniform4(any::<i32>()),
            xmask in any::<bool>(),
        ) {
            let and_mask = if xmask { 0x00FF_FFFF } else { u32::MAX };
            let mut want = vec![0xAAu8; n * 4];
            gouraud_span_scalar(&mut want, start, step, and_mask);
            for level in LEVELS {
                let level = level.clamp_to_cpu();
                let mut got = vec![0x55u8; n * 4];
                gouraud_span(level, &mut got, start, step, and_mask);
                prop_assert_eq!(&got, &want);
            }
        }
    }
}
