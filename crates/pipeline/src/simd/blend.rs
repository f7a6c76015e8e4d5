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
//! `pixel::blend` of 8-bit channels. One kernel, written over the vector
//! layer ([`super::wide`], u16 lanes for the products) and instantiated
//! at every level, writes exactly the bytes of the pixel-at-a-time
//! reference of its tests (`tests::reference`), which every level is
//! compared with.
#![forbid(unsafe_code)]
use super::wide::{I32x8, Kernel, Simd};
use super::{div255_u16, SimdLevel};

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

/// Blended Gouraud span with factors `SF`, `DF` (see module docs).
pub(crate) fn blend_span<const SF: u8, const DF: u8>(
    level: SimdLevel,
    dst: &mut [u8],
    p: &BlendSpan,
) {
    level.dispatch(&mut Blend::<SF, DF> { dst, p });
}

/// The arguments of [`blend_span`].
struct Blend<'a, 'b, const SF: u8, const DF: u8> {
    dst: &'a mut [u8],
    p: &'b BlendSpan,
}

impl<const SF: u8, const DF: u8> Kernel for &mut Blend<'_, '_, SF, DF> {
    type Output = ();

    /// Whole 32-byte chunks, then the whole pixels of the tail; vector k
    /// holds pixel i+k (BGRA) in its low half and pixel i+k+4 in its high
    /// half, the arrangement `pack_u8_sat` turns into pixels i..i+8.
    #[inline(always)]
    fn run<S: Simd>(self, s: S) {
        let p = self.p;
        let step2 = s.repeat4_i32(p.step);
        let high = s.i32x8([0, 0, 0, 0, -1, -1, -1, -1]);
        let v0 = s.repeat4_i32(p.start) + (step2.shl::<2>() & high);
        let v1 = v0 + step2;
        let v2 = v1 + step2;
        let mut v = [v0, v1, v2, v2 + step2];
        let step8 = step2.shl::<3>();
        let dst_or = s.splat_i32(p.dst_or as i32);
        let and_mask = s.splat_i32(p.and_mask as i32);
        let (body, tail) = self.dst.as_chunks_mut::<32>();
        for chunk in body {
            let old = s.load_i32(chunk) | dst_or;
            (blend8::<SF, DF, S>(s, source8(&v), old) & and_mask).store(chunk);
            v[0] = v[0] + step8;
            v[1] = v[1] + step8;
            v[2] = v[2] + step8;
            v[3] = v[3] + step8;
        }
        if tail.len() >= 4 {
            let old = s.load_i32_prefix(tail) | dst_or;
            (blend8::<SF, DF, S>(s, source8(&v), old) & and_mask).store_prefix(tail);
        }
    }
}

/// The 8 source pixels of the colour vectors `v` (see [`Blend`]'s
/// `run`), packed.
#[inline(always)]
fn source8<V: I32x8>(v: &[V; 4]) -> V {
    V::pack_u8_sat([
        v[0].shr::<16>(),
        v[1].shr::<16>(),
        v[2].shr::<16>(),
        v[3].shr::<16>(),
    ])
}

/// Factor `F` of 4 pixels widened to u16 lanes (BGRA per pixel), from the
/// widened source `s` and destination `d`; `c255` has 255 in every u16
/// lane (so `x ^ c255` is `255 − x` for the channels, all ≤ 255), `zero`
/// 0.
#[inline(always)]
fn factor16<const F: u8, V: I32x8>(s: V, d: V, c255: V, zero: V) -> V {
    match F {
        factor::ONE => c255,
        factor::SRC_ALPHA => s.splat_alpha_u16(),
        factor::INV_SRC_ALPHA => s.splat_alpha_u16() ^ c255,
        factor::SRC_COLOR => s,
        factor::INV_SRC_COLOR => s ^ c255,
        factor::DEST_COLOR => d,
        factor::INV_DEST_COLOR => d ^ c255,
        factor::DEST_ALPHA => d.splat_alpha_u16(),
        factor::INV_DEST_ALPHA => d.splat_alpha_u16() ^ c255,
        _ => zero,
    }
}

/// Blends 8 packed source pixels over 8 packed destination pixels: each
/// half of each vector widened to u16 lanes, blended, packed back (also
/// the output merger's blend of its most common pair, `super::merge`).
#[inline(always)]
pub(super) fn blend8<const SF: u8, const DF: u8, S: Simd>(
    s: S,
    src: S::I32x8,
    dst: S::I32x8,
) -> S::I32x8 {
    let lo = blend16::<SF, DF, S>(s, src.widen_lo_u8_u16(), dst.widen_lo_u8_u16());
    let hi = blend16::<SF, DF, S>(s, src.widen_hi_u8_u16(), dst.widen_hi_u8_u16());
    S::I32x8::pack_i16_u8_sat(lo, hi)
}

/// `round((s·Fs + d·Fd) / 255)` of u16 lanes, where it is below 256, and
/// 256 or 257 where the scalar's `min(…, 255)` gives 255 (the pack to
/// bytes then saturates to 255): each product ≤ 255², exact in u16; the
/// sum and the `+ 127` of `simd::div255` saturate at 65 535, whose quotient,
/// `(65 535 · 0x8081) >> 23` = 257, is the largest; below 255² + 1 the
/// sum is exact and the quotient is `div255`'s.
#[inline(always)]
fn blend16<const SF: u8, const DF: u8, S: Simd>(s: S, a: S::I32x8, d: S::I32x8) -> S::I32x8 {
    let (c255, zero) = (s.splat_i32(0x00FF_00FF), s.splat_i32(0));
    let x = a
        .mul_lo_u16(factor16::<SF, _>(a, d, c255, zero))
        .add_sat_u16(d.mul_lo_u16(factor16::<DF, _>(a, d, c255, zero)));
    div255_u16(s, x)
}

#[cfg(test)]
mod tests {
    use super::super::tests::LEVELS;
    use super::*;
    use proptest::prelude::*;

    use super::super::{clamp8, color_at, div255};

    /// Factor `f` of channel `ch` for source `s` and destination `d`.
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

    /// [`blend_span`] with factors `sf`, `df`, one pixel at a time, as the
    /// module documentation says.
    fn reference(sf: u8, df: u8, dst: &mut [u8], p: &BlendSpan) {
        for (i, px) in dst.chunks_exact_mut(4).enumerate() {
            let c = color_at(&p.start, &p.step, i);
            let s = c.map(|v| i32::from(clamp8(v)));
            let old = u32::from_le_bytes([px[0], px[1], px[2], px[3]]) | p.dst_or;
            let d = old.to_le_bytes().map(i32::from);
            let mut out = [0u8; 4];
            for (ch, o) in out.iter_mut().enumerate() {
                let x = s[ch] * factor_of(sf, ch, &s, &d) + d[ch] * factor_of(df, ch, &s, &d);
                // x ≤ 2·255²: the rounded quotient saturates at 255
                // exactly where x ≥ 255², so clamping x first is the same.
                *o = div255(x.min(255 * 255)) as u8;
            }
            let w = u32::from_le_bytes(out) & p.and_mask;
            px.copy_from_slice(&w.to_le_bytes());
        }
    }

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
        for level in [SimdLevel::Scalar].into_iter().chain(LEVELS) {
            let level = level.clamp_to_cpu();
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
        fn blend_span_matches_reference(
            n in 0usize..40,
            start in proptest::array::uniform4(any::<i32>()),
            step in proptest::array::uniform4(-0x80_0000i32..0x80_0000),
            old in proptest::collection::vec(any::<u8>(), 160),
            pair in 0usize..12,
            xrgb in any::<bool>(),
            odd in 0usize..4,
        ) {
            let (sf, df) = pairs()[pair];
            let f = blend_span_fn(sf, df).unwrap_or(blend_span::<0, 0>);
            let p = BlendSpan {
                start,
                step,
                dst_or: if xrgb { 0xFF00_0000 } else { 0 },
                and_mask: if xrgb { 0x00FF_FFFF } else { u32::MAX },
            };
            let mut want = old[..n * 4 + odd].to_vec();
            reference(sf, df, &mut want, &p);
            for level in [SimdLevel::Scalar].into_iter().chain(LEVELS) {
                let level = level.clamp_to_cpu();
                let mut got = old[..n * 4 + odd].to_vec();
                f(level, &mut got, &p);
                prop_assert_eq!(&got, &want, "{:?}", level);
            }
        }
    }
}
