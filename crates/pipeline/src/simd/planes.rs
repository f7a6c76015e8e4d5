//! Colour planes of a triangle in 16.16 fixed point.
//!
//! *Input*: the diffuse colours of the three vertices and the triangle's
//! plane geometry ([`PlaneGeom`]). *Output*: `[reference, d/dx, d/dy]` per
//! channel, or `None` when a channel does not fit 16.16.
//! *Guarantees*: the AVX2 body returns exactly what the scalar twin
//! [`color_planes_scalar`] returns (same IEEE operations in the same
//! order, the rounding of `int::round_i64`).
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

/// Scalar twin of [`color_planes`].
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
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx2 {
        // SAFETY: `level` is Avx2 only when AVX2 was detected.
        return unsafe { x86::color_planes_avx2(c, g) };
    }
    let _ = level;
    color_planes_scalar(c, g)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! x86_64 body (AVX2).
    use super::PlaneGeom;
    use std::arch::x86_64::*;

    /// AVX2 twin of `color_planes_scalar`: the four channels as the four
    /// f64 lanes, the same IEEE operations in the same order (no FMA), and
    /// the rounding of `int::round_i64` (add 1.5·2^52, subtract its bits).
    /// Lanes outside the fast rounding range (|x| ≥ 2^51), out of range or
    /// NaN send the whole triangle to the scalar twin.
    ///
    /// # Safety
    /// AVX2 must be available.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn color_planes_avx2(
        c: &[[f32; 4]; 3],
        g: &PlaneGeom,
    ) -> Option<[[i32; 4]; 3]> {
        // SAFETY: each row of `c` is 16 readable bytes (unaligned load).
        let [a0, a1, a2] = c
            .each_ref()
            .map(|v| unsafe { _mm256_cvtps_pd(_mm_loadu_ps(v.as_ptr())) });
        let set = _mm256_set1_pd;
        let (da1, da2) = (_mm256_sub_pd(a1, a0), _mm256_sub_pd(a2, a0));
        let gx = _mm256_mul_pd(
            _mm256_sub_pd(
                _mm256_mul_pd(da1, set(g.dy2)),
                _mm256_mul_pd(da2, set(g.dy1)),
            ),
            set(g.inv),
        );
        let gy = _mm256_mul_pd(
            _mm256_sub_pd(
                _mm256_mul_pd(da2, set(g.dx1)),
                _mm256_mul_pd(da1, set(g.dx2)),
            ),
            set(g.inv),
        );
        let r0 = _mm256_add_pd(
            _mm256_add_pd(a0, _mm256_mul_pd(gx, set(g.rx))),
            _mm256_mul_pd(gy, set(g.ry)),
        );
        let k = set(65536.0);
        let dx = _mm256_mul_pd(gx, k);
        let dy = _mm256_mul_pd(gy, k);
        let r = _mm256_add_pd(_mm256_mul_pd(r0, k), set(32768.0));
        let abs = |v: __m256d| _mm256_andnot_pd(set(-0.0), v);
        let lim = set((1u64 << 30) as f64);
        let ok = _mm256_and_pd(
            _mm256_and_pd(
                _mm256_cmp_pd::<_CMP_LT_OQ>(abs(dx), lim),
                _mm256_cmp_pd::<_CMP_LT_OQ>(abs(dy), lim),
            ),
            _mm256_cmp_pd::<_CMP_LT_OQ>(abs(r), set((1u64 << 51) as f64)),
        );
        if _mm256_movemask_pd(ok) != 0xF {
            return super::color_planes_scalar(c, g);
        }
        const M: f64 = 6_755_399_441_055_744.0; // 1.5·2^52
        let round = |v: __m256d| {
            // Low 32 bits of each rounded i64 lane, in lanes 0..4.
            let q = _mm256_sub_epi64(
                _mm256_castpd_si256(_mm256_add_pd(v, set(M))),
                _mm256_set1_epi64x(M.to_bits() as i64),
            );
            let lo = _mm256_permutevar8x32_epi32(q, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
            let mut out = [0i32; 4];
            // SAFETY: `out` is 16 writable bytes (unaligned store).
            unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), _mm256_castsi256_si128(lo)) };
            out
        };
        Some([round(r), round(dx), round(dy)])
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
