//! Vectorised span kernels, written once over the safe vector layer
//! `wide` (scalar, SSE2 / SSE4.1, AVX2 levels): the only module tree of
//! the crate that contains `unsafe`, all of it in `wide`'s levels.
//!
//! *Input*: one span (or one small triangle) of one band of rows: the
//! destination bytes (already sliced, so every store is in bounds by
//! construction), fixed-point colour planes and depth planes. *Output*:
//! written pixels and the number of pixels that passed the depth test.
//!
//! This file holds the instruction-set level ([`SimdLevel`], detected at
//! run time), the helpers every kernel shares, and the dispatch surface
//! the rest of the crate calls. `wide` is the safe vector layer: 8-lane
//! `i32`/`f32`/mask types per level and the marker values that prove a
//! level, with [`SimdLevel::dispatch`] running a kernel written once over
//! them (such kernels forbid `unsafe`). One file per kernel holds the
//! kernel, its dispatch and its proptests together (every kernel is
//! written over `wide`):
//! * `gouraud` — a Gouraud span into a 32-bit target (over `wide`);
//! * `blend` — a Gouraud span blended over a 32-bit target (one
//!   instantiation per blend-factor pair; over `wide`);
//! * `depth24` — Gouraud spans with a 24-bit depth test (optionally with
//!   fused fog), all spans of a triangle in a band (over `wide`);
//! * `merge` — the output merger over 8 lanes (alpha test, 16/24-bit
//!   depth, blending, write mask, 32- and 16-bit targets), chosen once per
//!   draw (`Merge8`), with the span loop of untextured affine triangles
//!   that ends in it and the entry other kernels end in (`MergeUser`)
//!   (over `wide`);
//! * `planes` — the four 16.16 colour planes of a triangle (over
//!   `wide`);
//! * `small_tri` — the coverage-mask kernel for small triangles (over
//!   `wide`);
//! * `tex_modulate` — the 8-bit texture filter (32- and 16-bit texels,
//!   POINT or LINEAR, WRAP, CLAMP or MIRROR), stage-0 MODULATE of a
//!   texture sampled by it, and its bilinear WRAP form for a
//!   pixel-shader quad (all over `wide`);
//! * `cascade8` — the 8-bit texture-stage cascade (`crate::cascade8`)
//!   over the spans of a triangle: up to four stages, each sampling with
//!   `tex_modulate`'s filter, specular, fog and the alpha test, ending in
//!   a plain store or in `merge` (over `wide`).
//!
//! *Guarantees*:
//! * a kernel over `wide` gives the same bytes at every level because
//!   each operation of the layer does (tested per operation), and its
//!   proptest compares every level with a pixel-at-a-time reference;
//! * the kernel variant is chosen at run time with
//!   `is_x86_feature_detected!` ([`SimdLevel::detect`]); a variant is only
//!   ever called when its features were detected;
//! * every `unsafe` operation sits in an `unsafe {}` block with a
//!   `// SAFETY:` comment (`unsafe_op_in_unsafe_fn` is denied), in `wide`
//!   (the kernel files forbid `unsafe`; this file holds none: the prefetch
//!   hint and the baseline pixel pack are operations of `wide`);
//! * colours use wrapping i32 16.16 fixed point: `v(i) = start + i·step`
//!   (mod 2^32), so stepping by 1 lane or 8 lanes gives the same values;
//!   depth uses the same IEEE f32 operations in the same order in both
//!   twins (no FMA), rounding with ties-to-even.
//!
//! Colour channel order in every `[i32; 4]` is the memory order of an
//! A8R8G8B8 pixel: blue, green, red, alpha.
#![allow(unsafe_code)]
use crate::state::CmpFunc;

mod blend;
mod cascade8;
mod depth24;
mod gouraud;
mod merge;
mod planes;
mod small_tri;
mod tex_modulate;
pub(crate) mod wide;

pub(crate) use blend::{blend_span_fn, factor, BlendSpan, BlendSpanFn};
pub(crate) use cascade8::{cascade8_spans, Cascade8Tri};
pub(crate) use depth24::{gouraud_depth24_spans, FogFixed, Span, TriDepth24};
pub(crate) use gouraud::{gouraud_fog_span, gouraud_span, SpanFog};
pub(crate) use merge::{
    merge_spans, spans_inside, BlendCtx, Merge8, MergeFog, MergeTri, StencilTest, TriFog,
};
pub(crate) use planes::{color_planes, to_fixed, PlaneGeom};
pub(crate) use small_tri::{small_tri_depth24, SmallTri, SMALL_MAX};
pub(crate) use tex_modulate::{
    bilinear8_planes, bilinear8_planes8, tex_level_ok, tex_modulate_span, Level8, Sampling8,
    TexLevel, TexSpan,
};
pub(crate) use wide::prefetch;

/// Which instruction-set level the kernels use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SimdLevel {
    /// Scalar twins only.
    Scalar,
    /// SSE2 (baseline on x86_64).
    Sse2,
    /// SSE4.1.
    Sse41,
    /// AVX2 (with POPCNT).
    Avx2,
}

impl SimdLevel {
    /// The best level this CPU supports.
    pub fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt") {
                return SimdLevel::Avx2;
            }
            if is_x86_feature_detected!("sse4.1") {
                return SimdLevel::Sse41;
            }
            if is_x86_feature_detected!("sse2") {
                return SimdLevel::Sse2;
            }
        }
        SimdLevel::Scalar
    }

    /// `self`, lowered to what the CPU supports (so a requested level can
    /// never exceed the detected one).
    pub fn clamp_to_cpu(self) -> Self {
        self.min(Self::detect())
    }
}

/// The value of the 16.16 plane `p` (`[at reference, d/dx, d/dy]`) at
/// `(dx, dy)` from its reference pixel, wrapping: the one formula of
/// every fixed-point plane (colours, fog factors).
#[inline(always)]
pub(crate) fn plane_at(p: [i32; 3], dx: i32, dy: i32) -> i32 {
    p[0].wrapping_add(p[1].wrapping_mul(dx))
        .wrapping_add(p[2].wrapping_mul(dy))
}

/// `x / 255` rounded to nearest, for `x` in `0..=65025` (integer colour
/// products): `(x + 127) / 255`, computed as the kernels do.
#[inline(always)]
pub(crate) fn div255(x: i32) -> i32 {
    (((x + 127) as u32 * 0x8081) >> 23) as i32
}

/// `round(x / 255)` of u16 lanes as [`div255`] computes it,
/// `((x + 127) · 0x8081) >> 23`, with the `+ 127` saturating at 65 535:
/// exact for `x ≤ 255²`, 255 to 257 above (blending's sums, see
/// `simd::blend`). The one rounding of the u16-lane kernels (blend,
/// merge, the textured span, the 8-bit cascade, depth24's fog).
#[inline(always)]
pub(crate) fn div255_u16<S: wide::Simd>(s: S, x: S::I32x8) -> S::I32x8 {
    use wide::I32x8 as _;
    x.add_sat_u16(s.splat_i32(0x007F_007F))
        .mul_hi_u16(s.splat_i32(0x8081_8081u32 as i32))
        .shr_u16::<7>()
}

#[inline(always)]
fn clamp8(v: i32) -> u8 {
    crate::int::clamp_u8(v >> 16)
}

#[inline(always)]
fn pack_pixel(v: &[i32; 4], and_mask: u32) -> u32 {
    u32::from_le_bytes([clamp8(v[0]), clamp8(v[1]), clamp8(v[2]), clamp8(v[3])]) & and_mask
}

/// [`pack_pixel`] for code outside the SIMD levels' kernels (the line
/// loop): [`wide::pack_pixel_u8_sat`], four instructions on x86-64 where
/// the element-wise clamps compiled to about eighteen. Equal to
/// [`pack_pixel`] for every input (tested).
#[inline(always)]
pub(crate) fn pack_pixel_sse2(v: &[i32; 4], and_mask: u32) -> u32 {
    wide::pack_pixel_u8_sat(v) & and_mask
}

/// The depth function a kernel instantiated for the D3DCMPFUNC number `F`
/// (1 NEVER … 8 ALWAYS) tests with: the kernels take the function as a
/// const parameter, chosen once per triangle by [`by_cmp_func`], so that
/// the per-8-pixel loop carries no dispatch.
#[inline(always)]
const fn cmp_func_of(f: u8) -> CmpFunc {
    match f {
        1 => CmpFunc::Never,
        2 => CmpFunc::Less,
        3 => CmpFunc::Equal,
        4 => CmpFunc::LessEqual,
        5 => CmpFunc::Greater,
        6 => CmpFunc::NotEqual,
        7 => CmpFunc::GreaterEqual,
        _ => CmpFunc::Always,
    }
}

/// Calls the kernel `$k::<$pre…, F>($args…)` instantiated for the
/// D3DCMPFUNC number `F` of `$func` (see [`cmp_func_of`]): the one place a
/// run-time depth function becomes a compile-time one.
macro_rules! by_cmp_func {
    ($func:expr, $($k:ident)::+, [$($pre:tt),*], ($($arg:expr),*)) => {
        match $func {
            CmpFunc::Never => $($k)::+::<$($pre,)* 1>($($arg),*),
            CmpFunc::Less => $($k)::+::<$($pre,)* 2>($($arg),*),
            CmpFunc::Equal => $($k)::+::<$($pre,)* 3>($($arg),*),
            CmpFunc::LessEqual => $($k)::+::<$($pre,)* 4>($($arg),*),
            CmpFunc::Greater => $($k)::+::<$($pre,)* 5>($($arg),*),
            CmpFunc::NotEqual => $($k)::+::<$($pre,)* 6>($($arg),*),
            CmpFunc::GreaterEqual => $($k)::+::<$($pre,)* 7>($($arg),*),
            CmpFunc::Always => $($k)::+::<$($pre,)* 8>($($arg),*),
        }
    };
}
use by_cmp_func;

/// Lanes where `new F old` holds (`F` as in [`cmp_func_of`]), over the
/// vector layer: the depth test of the kernels written over `wide`.
#[inline(always)]
fn depth_test<const F: u8, V: wide::I32x8>(new: V, old: V) -> V::Mask {
    match cmp_func_of(F) {
        CmpFunc::Never => !new.simd_eq(new),
        CmpFunc::Less => old.simd_gt(new),
        CmpFunc::Equal => new.simd_eq(old),
        CmpFunc::LessEqual => !new.simd_gt(old),
        CmpFunc::Greater => new.simd_gt(old),
        CmpFunc::NotEqual => !new.simd_eq(old),
        CmpFunc::GreaterEqual => !old.simd_gt(new),
        CmpFunc::Always => new.simd_eq(new),
    }
}

/// Colour at lane `i` of a span: `start + i·step` (wrapping).
#[inline(always)]
fn color_at(start: &[i32; 4], step: &[i32; 4], i: usize) -> [i32; 4] {
    let i = i as i32;
    [
        start[0].wrapping_add(step[0].wrapping_mul(i)),
        start[1].wrapping_add(step[1].wrapping_mul(i)),
        start[2].wrapping_add(step[2].wrapping_mul(i)),
        start[3].wrapping_add(step[3].wrapping_mul(i)),
    ]
}

/// The rows of a band a kernel writes: colour and depth bytes starting at
/// row `y0`.
pub(crate) struct BandRows<'a> {
    /// Colour bytes.
    pub color: &'a mut [u8],
    /// Colour pitch.
    pub color_pitch: usize,
    /// Depth bytes.
    pub depth: &'a mut [u8],
    /// Depth pitch.
    pub depth_pitch: usize,
    /// First row.
    pub y0: i32,
}

/// 24-bit depth of the plane `(zref, dzdx)` at column offset `fx` of a row
/// whose `dz/dy` term is `zy`: clamped to `[0, 1]` and rounded (ties to
/// even), exactly as every depth kernel computes it.
#[inline(always)]
fn z24(zref: f32, dzdx: f32, fx: i32, zy: f32) -> i32 {
    let fx = fx as f32;
    // max/min (not clamp): NaN maps to 0 exactly like the SIMD
    // max_ps/min_ps operand order.
    #[allow(clippy::manual_clamp)]
    let z = ((zref + dzdx * fx) + zy).max(0.0).min(1.0);
    crate::int::round_ties_even_f32(z * 16_777_215.0) as i32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::CmpFunc;
    use proptest::prelude::*;

    /// The vector levels every kernel test compares with the scalar twin
    /// (each clamped to what the CPU supports).
    pub(super) const LEVELS: [SimdLevel; 3] = [SimdLevel::Sse2, SimdLevel::Sse41, SimdLevel::Avx2];

    /// Every depth function.
    pub(super) fn funcs() -> impl Strategy<Value = CmpFunc> {
        (1u32..=8).prop_map(|v| CmpFunc::from_d3d(v).unwrap_or(CmpFunc::Always))
    }

    #[test]
    fn div255_is_rounded_division() {
        for x in 0..=255 * 255 {
            assert_eq!(div255(x), (x + 127) / 255, "x = {x}");
        }
    }

    /// Worked by hand: 16.16 colour 0x0080_0000 is 128.0, clamped to
    /// 0x80; 0x0100_0000 (256.0) saturates to 0xFF, −1.0 to 0x00, and
    /// 0x00FF_FFFF (255.99…) truncates to 0xFF; bytes are B, G, R, A from
    /// the lowest, so the pixel is 0xFF00_FF80, and the X8R8G8B8 mask
    /// 0x00FF_FFFF clears alpha.
    #[test]
    fn pack_pixel_sse2_saturates_each_channel() {
        let v = [0x0080_0000, 0x0100_0000, -0x0001_0000, 0x00FF_FFFF];
        assert_eq!(pack_pixel_sse2(&v, u32::MAX), 0xFF00_FF80);
        assert_eq!(pack_pixel_sse2(&v, 0x00FF_FFFF), 0x0000_FF80);
        assert_eq!(
            pack_pixel_sse2(&[i32::MIN, i32::MAX, 0, 0x7F_FFFF], u32::MAX),
            0x7F00_FF00
        );
    }

    proptest! {
        /// The SSE2 packing is bit-identical to the element-wise clamps.
        #[test]
        fn pack_pixel_sse2_equals_pack_pixel(v in any::<[i32; 4]>(), m in any::<u32>()) {
            prop_assert_eq!(pack_pixel_sse2(&v, m), pack_pixel(&v, m));
        }
    }
}
