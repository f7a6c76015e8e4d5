//! Colour planes of a triangle in 16.16 fixed point.
//!
//! *Input*: the diffuse colours of the three vertices and the triangle's
//! plane geometry ([`PlaneGeom`]). *Output*: `[reference, d/dx, d/dy]` per
//! channel, or `None` when a channel does not fit 16.16.
//! *Guarantees*: one kernel, written over the vector layer
//! ([`super::wide`], four f64 lanes: one per channel) and instantiated at
//! every level, returns exactly what the channel-at-a-time
//! [`color_planes_scalar`] returns (same IEEE operations in the same
//! order, the rounding of `int::round_i64`); the proptest compares every
//! level with it.
#![forbid(unsafe_code)]
use super::wide::{F64x4, Kernel, Simd};
use super::SimdLevel;

/// The geometry shared by a triangle's attribute planes (see
/// `setup::setup_triangle`): vertex 1 and 2 minus vertex 0 in pixels, the
/// inverse of the doubled area, and the reference pixel minus vertex 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PlaneGeom {
    /// x1 − x0.
    pub dx1: f64,
    /// y1 − y0.
    pub dy1: f64,
    /// x2 − x0.
    pub dx2: f64,
    /// y2 − y0.
    pub dy2: f64,
    /// 1 / (dx1·dy2 − dx2·dy1).
    pub inv: f64,
    /// Reference column − x0.
    pub rx: f64,
    /// Reference row − y0.
    pub ry: f64,
}

impl PlaneGeom {
    /// The plane `(value at the reference pixel, d/dx, d/dy)` of an
    /// attribute with values `a` at the three vertices.
    #[inline(always)]
    pub(crate) fn plane(&self, a: [f64; 3]) -> (f64, f64, f64) {
        let (da1, da2) = (a[1] - a[0], a[2] - a[0]);
        let gx = (da1 * self.dy2 - da2 * self.dy1) * self.inv;
        let gy = (da2 * self.dx1 - da1 * self.dx2) * self.inv;
        (a[0] + gx * self.rx + gy * self.ry, gx, gy)
    }
}

/// A plane in 16.16 fixed point with the rounding bias folded into the
/// reference value: `[reference, d/dx, d/dy]`, `None` if a step reaches
/// 2^14 per pixel or the reference 2^36 (the colour kernels step in
/// wrapping i32; the reference value itself may wrap far outside the
/// triangle, values at covered pixels are in range).
#[inline]
pub(crate) fn to_fixed(refv: f64, gx: f64, gy: f64) -> Option<[i32; 3]> {
    use crate::int::round_i64;
    const LIM: f64 = (1u64 << 30) as f64;
    const REF_LIM: f64 = (1u64 << 52) as f64;
    let (dx, dy, r) = (gx * 65536.0, gy * 65536.0, refv * 65536.0 + 32768.0);
    if !(dx.abs() < LIM && dy.abs() < LIM && r.abs() < REF_LIM) {
        return None;
    }
    // The wrapping (truncating) conversion is intended (see above).
    Some([
        round_i64(r) as i32,
        round_i64(dx) as i32,
        round_i64(dy) as i32,
    ])
}

/// [`color_planes`] one channel at a time: the reference of the vector
/// kernel, and its fallback for triangles whose planes leave the range of
/// its rounding.
pub(crate) fn color_planes_scalar(c: &[[f32; 4]; 3], g: &PlaneGeom) -> Option<[[i32; 4]; 3]> {
    let mut out = [[0i32; 4]; 3];
    for ch in 0..4 {
        let (r0, gx, gy) = g.plane([c[0][ch], c[1][ch], c[2][ch]].map(f64::from));
        let f = to_fixed(r0, gx, gy)?;
        for k in 0..3 {
            out[k][ch] = f[k];
        }
    }
    Some(out)
}

/// The four colour planes (channels of `c`, one row per vertex) in 16.16
/// fixed point (`[reference, d/dx, d/dy]` × channel), exactly
/// `to_fixed(g.plane(..))` per channel; `None` if a channel does not fit.
pub(crate) fn color_planes(
    level: SimdLevel,
    c: &[[f32; 4]; 3],
    g: &PlaneGeom,
) -> Option<[[i32; 4]; 3]> {
    level.dispatch(&ColorPlanes { c, g })
}

/// The arguments of [`color_planes`].
struct ColorPlanes<'a> {
    c: &'a [[f32; 4]; 3],
    g: &'a PlaneGeom,
}

impl Kernel for &ColorPlanes<'_> {
    type Output = Option<[[i32; 4]; 3]>;

    /// The four channels as the four f64 lanes: [`PlaneGeom::plane`] and
    /// [`to_fixed`] with the same IEEE operations in the same order (no
    /// FMA) and the rounding of `int::round_i64`. A lane outside that
    /// rounding's fast range (|x| ≥ 2^51), out of range or NaN sends the
    /// whole triangle to [`color_planes_scalar`].
    #[inline(always)]
    fn run<S: Simd>(self, s: S) -> Option<[[i32; 4]; 3]> {
        let ColorPlanes { c, g } = *self;
        let a0 = s.f64x4_from_f32(&c[0]);
        let a1 = s.f64x4_from_f32(&c[1]);
        let a2 = s.f64x4_from_f32(&c[2]);
        let (da1, da2) = (a1 - a0, a2 - a0);
        let inv = s.splat_f64(g.inv);
        let gx = (da1.mul(s.splat_f64(g.dy2)) - da2.mul(s.splat_f64(g.dy1))).mul(inv);
        let gy = (da2.mul(s.splat_f64(g.dx1)) - da1.mul(s.splat_f64(g.dx2))).mul(inv);
        let r0 = (a0 + gx.mul(s.splat_f64(g.rx))) + gy.mul(s.splat_f64(g.ry));
        let k = s.splat_f64(65536.0);
        let dx = gx.mul(k);
        let dy = gy.mul(k);
        let r = r0.mul(k) + s.splat_f64(32768.0);
        let lim = s.splat_f64((1u64 << 30) as f64);
        let ok = dx.abs().lt_bitmask(lim)
            & dy.abs().lt_bitmask(lim)
            & r.abs().lt_bitmask(s.splat_f64((1u64 << 51) as f64));
        if ok != 0xF {
            return color_planes_scalar(c, g);
        }
        Some([
            r.round_i64_low32(),
            dx.round_i64_low32(),
            dy.round_i64_low32(),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn color_planes_match_scalar(
            c in proptest::array::uniform3(proptest::array::uniform4(0.0f32..=255.0)),
            wide in proptest::array::uniform3(proptest::array::uniform4(-1e11f32..1e11)),
            use_wide in any::<bool>(),
            d in proptest::array::uniform4(-4096i32..4096),
            r in proptest::array::uniform2(-40i32..40),
            tiny in any::<bool>(),
        ) {
            // Snapped geometry (multiples of 1/256 px); `tiny` makes
            // near-degenerate triangles whose gradients overflow 16.16.
            let f = |v: i32| f64::from(v) / if tiny { 65536.0 } else { 256.0 };
            let (dx1, dy1, dx2, dy2) = (f(d[0]), f(d[1]), f(d[2]), f(d[3]));
            let det = dx1 * dy2 - dx2 * dy1;
            prop_assume!(det != 0.0);
            let g = PlaneGeom { dx1, dy1, dx2, dy2, inv: 1.0 / det, rx: f(r[0]) * 16.0, ry: f(r[1]) * 16.0 };
            let c = if use_wide { wide } else { c };
            let want = color_planes_scalar(&c, &g);
            for level in [SimdLevel::Scalar, SimdLevel::Sse2, SimdLevel::Avx2] {
                prop_assert_eq!(color_planes(level.clamp_to_cpu(), &c, &g), want);
            }
        }
    }
}
