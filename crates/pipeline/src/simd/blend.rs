//! Blended Gouraud span kernel: a span of 32-bit pixels from 16.16 colour
//! planes, blended over the destination with one pair of blend factors
//! and BLENDOP = ADD, no depth test.
//!
//! *Input*: the destination bytes of the span, the start colour and its
//! step per pixel ([`BlendSpan`]), and the factor pair as const
//! parameters (codes of [`factor`]), chosen per draw by
//! [`blend_span_fn`]. *Output*: the written pixels.
//! *Guarantees*: every channel is `min(round((s·Fs + d·Fd) / 255), 255)`
//! with the source channel `clamp((start + i·step) >> 16, 0, 255)` and
//! the destination read from `dst` (OR `dst_or`: 0xFF00_0000 makes a
//! missing X8 alpha read as 255), exactly the generic pixel path's
//! `pixel::blend` of 8-bit channels; the AVX2 body writes exactly the
//! bytes of the scalar twin [`blend_span_scalar`]. The SSE levels use
//! the scalar twin.
use super::{clamp8, color_at, div255, SimdLevel};

/// Blend factor codes: the const parameters of the kernel.
pub(crate) mod factor {
    /// 0.
    pub const ZERO: u8 = 0;
    /// 1.
    pub const ONE: u8 = 1;
    /// Source alpha.
    pub const SRC_ALPHA: u8 = 2;
    /// 1 − source alpha.
    pub const INV_SRC_ALPHA: u8 = 3;
    /// Source colour.
    pub const SRC_COLOR: u8 = 4;
    /// 1 − source colour.
    pub const INV_SRC_COLOR: u8 = 5;
    /// Destination colour.
    pub const DEST_COLOR: u8 = 6;
    /// 1 − destination colour.
    pub const INV_DEST_COLOR: u8 = 7;
    /// Destination alpha.
    pub const DEST_ALPHA: u8 = 8;
    /// 1 − destination alpha.
    pub const INV_DEST_ALPHA: u8 = 9;
}

/// One span of the blended Gouraud kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BlendSpan {
    /// Colour (16.16, BGRA) at the first pixel.
    pub start: [i32; 4],
    /// Colour step per pixel.
    pub step: [i32; 4],
    /// OR-ed into every destination pixel before blending.
    pub dst_or: u32,
    /// AND mask of the written pixel.
    pub and_mask: u32,
}

/// A monomorphised blended span routine.
pub(crate) type BlendSpanFn = fn(SimdLevel, &mut [u8], &BlendSpan);

/// The kernel of the factor pair `(src, dst)` (codes of [`factor`]), if
/// one is instantiated: the pairs games use for transparency, additive
/// light, premultiplied alpha and modulation.
pub(crate) fn blend_span_fn(src: u8, dst: u8) -> Option<BlendSpanFn> {
    use factor::*;
    Some(match (src, dst) {
        (SRC_ALPHA, INV_SRC_ALPHA) => blend_span::<SRC_ALPHA, INV_SRC_ALPHA>,
        (INV_SRC_ALPHA, SRC_ALPHA) => blend_span::<INV_SRC_ALPHA, SRC_ALPHA>,
        (ONE, ONE) => blend_span::<ONE, ONE>,
        (SRC_ALPHA, ONE) => blend_span::<SRC_ALPHA, ONE>,
        (ONE, INV_SRC_ALPHA) => blend_span::<ONE, INV_SRC_ALPHA>,
        (DEST_COLOR, ZERO) => blend_span::<DEST_COLOR, ZERO>,
        (ZERO, SRC_COLOR) => blend_span::<ZERO, SRC_COLOR>,
        (DEST_COLOR, SRC_COLOR) => blend_span::<DEST_COLOR, SRC_COLOR>,
        (ONE, INV_SRC_COLOR) => blend_span::<ONE, INV_SRC_COLOR>,
        (ZERO, INV_SRC_ALPHA) => blend_span::<ZERO, INV_SRC_ALPHA>,
        (DEST_ALPHA, INV_DEST_ALPHA) => blend_span::<DEST_ALPHA, INV_DEST_ALPHA>,
        (INV_DEST_COLOR, ONE) => blend_span::<INV_DEST_COLOR, ONE>,
        _ => return None,
    })
}

/// Factor `f` of channel `ch` for source `s` and destination `d`.
#[inline(always)]
fn factor_of(f: u8, ch: usize, s: &[i32; 4], d: &[i32; 4]) -> i32 {
    match f {
        factor::ONE => 255,
        factor::SRC_ALPHA => s[3],
        factor::INV_SRC_ALPHA => 255 - s[3],
        factor::SRC_COLOR => s[ch],
        factor::INV_SRC_COLOR => 255 - s[ch],
        factor::DEST_COLOR => d[ch],
        factor::INV_DEST_COLOR => 255 - d[ch],
        factor::DEST_ALPHA => d[3],
        factor::INV_DEST_ALPHA => 255 - d[3],
        _ => 0,
    }
}

/// Scalar twin of [`blend_span`].
pub(crate) fn blend_span_scalar<const SF: u8, const DF: u8>(dst: &mut [u8], p: &BlendSpan) {
    for (i, px) in dst.chunks_exact_mut(4).enumerate() {
        let c = color_at(&p.start, &p.step, i);
        let s = c.map(|v| i32::from(clamp8(v)));
        let old = u32::from_le_bytes([px[0], px[1], px[2], px[3]]) | p.dst_or;
        let d = old.to_le_bytes().map(i32::from);
        let mut out = [0u8; 4];
        for (ch, o) in out.iter_mut().enumerate() {
            let x = s[ch] * factor_of(SF, ch, &s, &d) + d[ch] * factor_of(DF, ch, &s, &d);
            // x ≤ 2·255²: the rounded quotient saturates at 255 exactly
            // where x ≥ 255², so clamping x first is the same.
            *o = div255(x.min(255 * 255)) as u8;
        }
        let w = u32::from_le_bytes(out) & p.and_mask;
        px.copy_from_slice(&w.to_le_bytes());
    }
}

/// Blended Gouraud span with factors `SF`, `DF` (see module docs).
pub(crate) fn blend_span<const SF: u8, const DF: u8>(
    level: SimdLevel,
    dst: &mut [u8],
    p: &BlendSpan,
) {
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx2 {
        // SAFETY: `level` is Avx2 only when `SimdLevel::detect` saw AVX2
        // (the renderer clamps requested levels to the CPU).
        unsafe { x86::blend_span_avx2::<SF, DF>(dst, p) };
        return;
    }
    let _ = level;
    blend_span_scalar::<SF, DF>(dst, p);
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! x86_64 body (AVX2): full 32-byte chunks with unaligned loads and
    //! stores, the tail with masked loads and stores of the lanes inside
    //! the span.
    use super::super::x86::{load4, pack8, tail_mask};
    use super::{factor, BlendSpan};
    use std::arch::x86_64::*;

    /// Factor `F` of 4 pixels widened to 16-bit lanes (BGRA per pixel).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn factor16<const F: u8>(s: __m256i, d: __m256i) -> __m256i {
        let inv = |x: __m256i| _mm256_sub_epi16(_mm256_set1_epi16(255), x);
        // Alpha (word 3 of each pixel) into all four words.
        let alpha = |x: __m256i| _mm256_shufflehi_epi16::<0xFF>(_mm256_shufflelo_epi16::<0xFF>(x));
        match F {
            factor::ONE => _mm256_set1_epi16(255),
            factor::SRC_ALPHA => alpha(s),
            factor::INV_SRC_ALPHA => inv(alpha(s)),
            factor::SRC_COLOR => s,
            factor::INV_SRC_COLOR => inv(s),
            factor::DEST_COLOR => d,
            factor::INV_DEST_COLOR => inv(d),
            factor::DEST_ALPHA => alpha(d),
            factor::INV_DEST_ALPHA => inv(alpha(d)),
            _ => _mm256_setzero_si256(),
        }
    }

    /// `min(round((s·Fs + d·Fd) / 255), 255)` of 16-bit lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn blend16<const SF: u8, const DF: u8>(s: __m256i, d: __m256i) -> __m256i {
        // Each product ≤ 255², exact in unsigned 16 bits; the sum
        // saturates at 65535 and is clamped to 255² (see the scalar twin).
        let x = _mm256_adds_epu16(
            _mm256_mullo_epi16(s, factor16::<SF>(s, d)),
            _mm256_mullo_epi16(d, factor16::<DF>(s, d)),
        );
        let x = _mm256_min_epu16(x, _mm256_set1_epi16((255 * 255) as i16));
        _mm256_srli_epi16(
            _mm256_mulhi_epu16(
                _mm256_add_epi16(x, _mm256_set1_epi16(127)),
                _mm256_set1_epi16(0x8081u16 as i16),
            ),
            7,
        )
    }

    /// Blends 8 packed source pixels over 8 packed destination pixels.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn blend8<const SF: u8, const DF: u8>(src: __m256i, dst: __m256i) -> __m256i {
        let z = _mm256_setzero_si256();
        let lo = blend16::<SF, DF>(_mm256_unpacklo_epi8(src, z), _mm256_unpacklo_epi8(dst, z));
        let hi = blend16::<SF, DF>(_mm256_unpackhi_epi8(src, z), _mm256_unpackhi_epi8(dst, z));
        _mm256_packus_epi16(lo, hi)
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn blend_span_avx2<const SF: u8, const DF: u8>(
        dst: &mut [u8],
        p: &BlendSpan,
    ) {
        let n8 = dst.len() / 32;
        // The register arrangement of `gouraud_span_avx2`: register k
        // holds pixel i+k low and i+k+4 high, so `pack8` gives pixels in
        // order.
        // SAFETY: register-only AVX2 operations; loads from local arrays.
        let (mut r, step8) = unsafe {
            let s = load4(&p.step);
            let s4 = _mm_slli_epi32(s, 2);
            let mut r = [_mm256_setzero_si256(); 4];
            let mut lo = load4(&p.start);
            for rk in r.iter_mut() {
                let hi = _mm_add_epi32(lo, s4);
                *rk = _mm256_set_m128i(hi, lo);
                lo = _mm_add_epi32(lo, s);
            }
            let s8 = _mm_slli_epi32(s, 3);
            (r, _mm256_set_m128i(s8, s8))
        };
        let dst_or = _mm256_set1_epi32(p.dst_or as i32);
        let andm = _mm256_set1_epi32(p.and_mask as i32);
        let (body, tail) = dst.split_at_mut(n8 * 32);
        for chunk in body.chunks_exact_mut(32) {
            // SAFETY: `chunk` is exactly 32 readable and writable bytes;
            // loadu/storeu have no alignment requirement.
            unsafe {
                let old = _mm256_or_si256(_mm256_loadu_si256(chunk.as_ptr().cast()), dst_or);
                let out = _mm256_and_si256(blend8::<SF, DF>(pack8(&r), old), andm);
                _mm256_storeu_si256(chunk.as_mut_ptr().cast(), out);
                for rk in r.iter_mut() {
                    *rk = _mm256_add_epi32(*rk, step8);
                }
            }
        }
        let rem = tail.len() / 4;
        if rem > 0 {
            // SAFETY: lanes < rem are inside `tail` (rem·4 ≤ tail.len());
            // masked-off lanes are neither read by maskload nor written by
            // maskstore.
            unsafe {
                let mask = tail_mask(rem);
                let old = _mm256_maskload_epi32(tail.as_ptr().cast(), mask);
                let old = _mm256_or_si256(old, dst_or);
                let out = _mm256_and_si256(blend8::<SF, DF>(pack8(&r), old), andm);
                _mm256_maskstore_epi32(tail.as_mut_ptr().cast(), mask, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::LEVELS;
    use super::*;
    use proptest::prelude::*;

    /// Every factor pair of [`blend_span_fn`], and one it does not have.
    fn pairs() -> Vec<(u8, u8)> {
        let mut v = Vec::new();
        for s in 0..10 {
            for d in 0..10 {
                if blend_span_fn(s, d).is_some() {
                    v.push((s, d));
                }
            }
        }
        v
    }

    #[test]
    fn instantiated_pairs() {
        use factor::*;
        assert_eq!(pairs().len(), 12);
        assert!(blend_span_fn(SRC_ALPHA, INV_SRC_ALPHA).is_some());
        assert!(blend_span_fn(SRC_COLOR, SRC_COLOR).is_none());
    }

    /// SRCALPHA/INVSRCALPHA of one pixel, worked out by hand: source
    /// (B, G, R, A) = (200, 100, 50, 128) over (10, 20, 30, 64):
    /// round((200·128 + 10·127) / 255) = round(26870 / 255) = 105, …
    #[test]
    fn src_alpha_by_hand() {
        let p = BlendSpan {
            start: [200 << 16, 100 << 16, 50 << 16, 128 << 16],
            step: [0; 4],
            dst_or: 0,
            and_mask: u32::MAX,
        };
        for level in [SimdLevel::Scalar, SimdLevel::Avx2.clamp_to_cpu()] {
            let mut px = [10u8, 20, 30, 64].repeat(11);
            blend_span::<{ factor::SRC_ALPHA }, { factor::INV_SRC_ALPHA }>(level, &mut px, &p);
            // G: (12800 + 2540) / 255 = 60.16; R: (6400 + 3810) / 255 =
            // 40.04; A: (16384 + 8128) / 255 = 96.13.
            assert_eq!(&px[..4], &[105, 60, 40, 96]);
            assert!(px.chunks(4).all(|c| c == [105, 60, 40, 96]));
        }
    }

    proptest! {
        #[test]
        fn blend_span_matches_scalar(
            n in 0usize..40,
            start in proptest::array::uniform4(any::<i32>()),
            step in proptest::array::uniform4(-0x80_0000i32..0x80_0000),
            old in proptest::collection::vec(any::<u8>(), 160),
            pair in 0usize..12,
            xrgb in any::<bool>(),
        ) {
            let (sf, df) = pairs()[pair];
            let f = blend_span_fn(sf, df).unwrap_or(blend_span::<0, 0>);
            let p = BlendSpan {
                start,
                step,
                dst_or: if xrgb { 0xFF00_0000 } else { 0 },
                and_mask: if xrgb { 0x00FF_FFFF } else { u32::MAX },
            };
            let mut want = old[..n * 4].to_vec();
            f(SimdLevel::Scalar, &mut want, &p);
            for level in LEVELS {
                let mut got = old[..n * 4].to_vec();
                f(level.clamp_to_cpu(), &mut got, &p);
                prop_assert_eq!(&got, &want);
            }
        }
    }
}
