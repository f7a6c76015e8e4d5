//! The coverage-mask kernel for small triangles: the three edge functions
//! evaluated at every pixel of a region of at most [`SMALL_MAX`] ×
//! [`SMALL_MAX`] pixels, with a 24-bit depth test and Gouraud colour.
//!
//! *Input*: a [`SmallTri`] (edge values, region, colour and depth planes)
//! and the band's rows. *Output*: written pixels and depths, the number
//! of pixels that passed. *Guarantees*: covers exactly the pixels of the
//! exact edge walker of `raster`; the AVX2 body writes exactly the bytes
//! of the scalar twin [`small_tri_depth24_scalar`].
use super::{pack_pixel, z24, BandRows, SimdLevel};
use crate::state::CmpFunc;

/// Largest width and height, in pixels, of the region the small-triangle
/// kernel ([`small_tri_depth24`]) covers: at most two 8-lane vectors per
/// row and 16 rows.
pub(crate) const SMALL_MAX: i32 = 16;

/// A small triangle clipped to one tile, for the coverage-mask kernel.
///
/// Instead of walking edges, the kernel evaluates the three edge functions
/// at every pixel of the region (8 lanes at a time) in 32-bit integers:
/// `E(x0 + i, y0 + j) = e + a·i + b·j`, wrapping. The set-up guarantees
/// (`prim::FLAG_SMALL`) that every edge value at a pixel of the
/// triangle's bounding box fits i32, so the values of the region's pixels
/// are exact; lanes past the region may wrap but are masked off. A pixel
/// is covered when all three values are ≥ 0 — the same test the exact
/// edge walker of `raster` solves, so both produce the same pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SmallTri {
    /// Per edge: `[value at (x0, y0), step per column, step per row]`.
    pub edges: [[i32; 3]; 3],
    /// First column of the region.
    pub x0: i32,
    /// First row.
    pub y0: i32,
    /// Last column (`x1 − x0 < SMALL_MAX`).
    pub x1: i32,
    /// Last row (`y1 − y0 < SMALL_MAX`).
    pub y1: i32,
    /// Diffuse planes (see `TriSetup::diffuse`).
    pub diffuse: [[i32; 4]; 3],
    /// Depth plane (see `TriSetup::z`).
    pub z: [f32; 3],
    /// Reference pixel of the planes.
    pub rx: i32,
    /// See `rx`.
    pub ry: i32,
    /// Depth function.
    pub func: CmpFunc,
    /// Depth writes.
    pub write: bool,
    /// AND mask of the packed colour.
    pub and_mask: u32,
}

/// True if pixel `(i, j)` of the region of `s` is inside all three edges.
#[inline(always)]
fn small_covered(s: &SmallTri, i: i32, j: i32) -> bool {
    s.edges.iter().all(|e| {
        e[0].wrapping_add(e[1].wrapping_mul(i))
            .wrapping_add(e[2].wrapping_mul(j))
            >= 0
    })
}

/// Scalar twin of [`small_tri_depth24`].
pub(crate) fn small_tri_depth24_scalar(b: &mut BandRows<'_>, s: &SmallTri) -> (u32, u32) {
    let mut passed = 0;
    let mut covered = 0;
    for y in s.y0..=s.y1 {
        let Ok(row) = usize::try_from(y - b.y0) else {
            continue;
        };
        let dy = y.wrapping_sub(s.ry);
        let zy = s.z[2] * dy as f32;
        for x in s.x0..=s.x1 {
            if !small_covered(s, x.wrapping_sub(s.x0), y.wrapping_sub(s.y0)) {
                continue;
            }
            covered += 1;
            let Ok(xu) = usize::try_from(x) else {
                continue;
            };
            let co = row * b.color_pitch + xu * 4;
            let dof = row * b.depth_pitch + xu * 4;
            let (Some(c), Some(d)) = (b.color.get_mut(co..co + 4), b.depth.get_mut(dof..dof + 4))
            else {
                continue;
            };
            let dx = x.wrapping_sub(s.rx);
            let zq = z24(s.z[0], s.z[1], dx, zy);
            let old_raw = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
            if !s.func.test(zq, (old_raw >> 8) as i32) {
                continue;
            }
            passed += 1;
            if s.write {
                let new = ((zq as u32) << 8) | (old_raw & 0xFF);
                d.copy_from_slice(&new.to_le_bytes());
            }
            let ch = |k: usize| {
                s.diffuse[0][k]
                    .wrapping_add(s.diffuse[1][k].wrapping_mul(dx))
                    .wrapping_add(s.diffuse[2][k].wrapping_mul(dy))
            };
            let v = [ch(0), ch(1), ch(2), ch(3)];
            c.copy_from_slice(&pack_pixel(&v, s.and_mask).to_le_bytes());
        }
    }
    (passed, covered)
}

/// Rasterizes a small triangle's region with a 24-bit depth test (as
/// [`gouraud_depth24_spans`]: depth in bits 31..8, low byte kept; Gouraud
/// colour straight into a 32-bit target). Returns the pixels that passed
/// and the pixels the triangle covered (in the region and the band).
/// The AVX2 kernel may load and store back unchanged up to 7 pixels past
/// a row of the region when the band has room.
pub(crate) fn small_tri_depth24(
    level: SimdLevel,
    b: &mut BandRows<'_>,
    s: &SmallTri,
) -> (u32, u32) {
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx2 {
        use super::x86::by_cmp_func;
        // SAFETY: `level` is Avx2 only when AVX2 and POPCNT were detected.
        return unsafe { by_cmp_func!(s.func, x86::small_tri_avx2, [], (b, s)) };
    }
    let _ = level;
    small_tri_depth24_scalar(b, s)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! x86_64 body (AVX2): full-width loads and stores of rows inside the
    //! band, lanes outside the coverage stored back unchanged.
    use super::super::x86::{cmp_const, load4, pack8};
    use super::super::BandRows;
    use super::{small_tri_depth24_scalar, SmallTri};
    use std::arch::x86_64::*;

    /// Per-triangle registers of the small-triangle kernel.
    struct SmallRegs {
        /// 0xFF in every lane (the kept low byte of the depth).
        low8: __m256i,
        /// All ones where depth writes are on.
        write: __m256i,
        /// AND mask of the packed colour.
        andm: __m256i,
    }

    /// One 8-pixel vector of a row of the small-triangle kernel: coverage
    /// from the edge values `e` and the region lanes `colmask`, then the
    /// same depth test, depth write and colour write as `depth8` (depth
    /// `zx + zy`, with `zx = zref + dzdx·fx` per lane). Returns the lanes
    /// that passed and the lanes covered.
    ///
    /// # Safety
    /// AVX2 must be available; `c` and `d` must be valid for reads and
    /// writes of 32 bytes. Lanes outside the coverage are stored back
    /// unchanged.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn small8<const F: u8>(
        k: &SmallRegs,
        e: &[__m256i; 3],
        colmask: __m256i,
        zx: __m256,
        zy: __m256,
        r: &[__m256i; 4],
        c: *mut u8,
        d: *mut u8,
    ) -> (u32, u32) {
        // SAFETY: the caller guarantees AVX2 and 32 valid bytes at `c`
        // and `d`.
        unsafe {
            let neg = _mm256_srai_epi32(_mm256_or_si256(_mm256_or_si256(e[0], e[1]), e[2]), 31);
            let cov = _mm256_andnot_si256(neg, colmask);
            let z = _mm256_add_ps(zx, zy);
            let z = _mm256_min_ps(_mm256_max_ps(z, _mm256_setzero_ps()), _mm256_set1_ps(1.0));
            let zq = _mm256_cvtps_epi32(_mm256_mul_ps(z, _mm256_set1_ps(16_777_215.0)));
            let old_raw = _mm256_loadu_si256(d.cast_const().cast());
            let old = _mm256_srli_epi32(old_raw, 8);
            let pass = _mm256_and_si256(cmp_const::<F>(zq, old), cov);
            let new_d =
                _mm256_or_si256(_mm256_slli_epi32(zq, 8), _mm256_and_si256(old_raw, k.low8));
            let out_d = _mm256_blendv_epi8(old_raw, new_d, _mm256_and_si256(pass, k.write));
            let col = _mm256_and_si256(pack8(r), k.andm);
            let old_c = _mm256_loadu_si256(c.cast_const().cast());
            let out_c = _mm256_blendv_epi8(old_c, col, pass);
            _mm256_storeu_si256(d.cast(), out_d);
            _mm256_storeu_si256(c.cast(), out_c);
            let lanes =
                |m: __m256i| (_mm256_movemask_ps(_mm256_castsi256_ps(m)) as u32).count_ones();
            (lanes(pass), lanes(cov))
        }
    }

    /// AVX2 twin of `small_tri_depth24_scalar` for depth function `F`:
    /// one (region width ≤ 8) or two 8-lane vectors per row. Edge values,
    /// colours and the `dz/dy` term are stepped from row to row with
    /// additions (wrapping, as the scalar twin's direct formulas); the
    /// per-lane depth part `zref + dzdx·fx` is computed once. When a
    /// vector of the region could reach past the band's bytes (the last
    /// row of a band at the right edge of the surface) the scalar twin
    /// runs instead.
    ///
    /// # Safety
    /// AVX2 and POPCNT must be available.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn small_tri_avx2<const F: u8>(
        b: &mut BandRows<'_>,
        s: &SmallTri,
    ) -> (u32, u32) {
        let w = s.x1.wrapping_sub(s.x0).wrapping_add(1);
        let h = s.y1.wrapping_sub(s.y0).wrapping_add(1);
        let (Ok(row0), Ok(xu)) = (
            usize::try_from(s.y0.wrapping_sub(b.y0)),
            usize::try_from(s.x0),
        ) else {
            return small_tri_depth24_scalar(b, s);
        };
        if !(1..=super::SMALL_MAX).contains(&w) || !(1..=super::SMALL_MAX).contains(&h) {
            return small_tri_depth24_scalar(b, s);
        }
        let two = w > 8;
        let vec_bytes = if two { 64 } else { 32 };
        let last = row0 + (h - 1) as usize;
        let (cp, dp) = (b.color_pitch, b.depth_pitch);
        let coff = row0 * cp + xu * 4;
        let doff = row0 * dp + xu * 4;
        if last * cp + xu * 4 + vec_bytes > b.color.len()
            || last * dp + xu * 4 + vec_bytes > b.depth.len()
        {
            return small_tri_depth24_scalar(b, s);
        }
        let lane = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
        let set1 = _mm256_set1_epi32;
        // Edge values of row y0, per lane; their row and 8-column steps.
        let mut e = s
            .edges
            .map(|ed| _mm256_add_epi32(set1(ed[0]), _mm256_mullo_epi32(set1(ed[1]), lane)));
        let ey = s.edges.map(|ed| set1(ed[2]));
        let e8 = s.edges.map(|ed| set1(ed[1].wrapping_mul(8)));
        let colmask0 = _mm256_cmpgt_epi32(set1(w), lane);
        let colmask1 = _mm256_cmpgt_epi32(set1(w - 8), lane);
        // Depth: zref + dzdx·fx per lane, for both vectors.
        let fx0 = s.x0.wrapping_sub(s.rx);
        let zxv = |x: i32| {
            _mm256_add_ps(
                _mm256_set1_ps(s.z[0]),
                _mm256_mul_ps(
                    _mm256_set1_ps(s.z[1]),
                    _mm256_cvtepi32_ps(_mm256_add_epi32(set1(x), lane)),
                ),
            )
        };
        let zx0 = zxv(fx0);
        let zx1 = zxv(fx0.wrapping_add(8));
        // Colours: register k holds lanes k (low half) and k + 4 (high
        // half), BGRA 16.16, as in `gouraud_span_avx2`.
        let both = |v: &[i32; 4]| {
            // SAFETY: `v` is 16 readable bytes (unaligned load).
            let x = unsafe { load4(v) };
            _mm256_set_m128i(x, x)
        };
        let (base, sx, sy) = (
            both(&s.diffuse[0]),
            both(&s.diffuse[1]),
            both(&s.diffuse[2]),
        );
        let start = _mm256_add_epi32(
            _mm256_add_epi32(base, _mm256_mullo_epi32(set1(fx0), sx)),
            _mm256_mullo_epi32(set1(s.y0.wrapping_sub(s.ry)), sy),
        );
        let hi4 =
            _mm256_blend_epi32::<0b1111_0000>(_mm256_setzero_si256(), _mm256_slli_epi32(sx, 2));
        let mut r = [_mm256_setzero_si256(); 4];
        let mut acc = _mm256_add_epi32(start, hi4);
        for rk in r.iter_mut() {
            *rk = acc;
            acc = _mm256_add_epi32(acc, sx);
        }
        let step8 = _mm256_slli_epi32(sx, 3);
        let regs = SmallRegs {
            low8: set1(0xFF),
            write: set1(if s.write { -1 } else { 0 }),
            andm: set1(s.and_mask as i32),
        };
        let color = b.color.as_mut_ptr();
        let depth = b.depth.as_mut_ptr();
        let (mut passed, mut covered) = (0, 0);
        let mut dy = s.y0.wrapping_sub(s.ry);
        for j in 0..h as usize {
            let zy = _mm256_set1_ps(s.z[2] * dy as f32);
            // SAFETY: row0 + j ≤ last, so the 32 (or 64) bytes at these
            // offsets lie inside the colour and depth bytes (checked
            // above); lanes outside the coverage are stored back
            // unchanged.
            unsafe {
                let c = color.add(coff + j * cp);
                let d = depth.add(doff + j * dp);
                let (p, v) = small8::<F>(&regs, &e, colmask0, zx0, zy, &r, c, d);
                passed += p;
                covered += v;
                if two {
                    let e1 = [0, 1, 2].map(|i| _mm256_add_epi32(e[i], e8[i]));
                    let r1 = r.map(|x| _mm256_add_epi32(x, step8));
                    let (p, v) =
                        small8::<F>(&regs, &e1, colmask1, zx1, zy, &r1, c.add(32), d.add(32));
                    passed += p;
                    covered += v;
                }
            }
            for i in 0..3 {
                e[i] = _mm256_add_epi32(e[i], ey[i]);
            }
            for rk in r.iter_mut() {
                *rk = _mm256_add_epi32(*rk, sy);
            }
            dy = dy.wrapping_add(1);
        }
        (passed, covered)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::funcs;
    use super::super::BandRows;
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn small_tri_matches_scalar(
            w in 1i32..=SMALL_MAX,
            h in 1i32..=SMALL_MAX,
            x0 in 0i32..40,
            y0 in 0i32..20,
            edges in proptest::array::uniform3(proptest::array::uniform3(any::<i32>())),
            small_edges in proptest::array::uniform3(proptest::array::uniform3(-5000i32..5000)),
            use_small in any::<bool>(),
            diffuse in proptest::array::uniform3(proptest::array::uniform4(any::<i32>())),
            z in proptest::array::uniform3(-0.2f32..1.2),
            rx in -20i32..60,
            ry in -20i32..40,
            func in funcs(),
            write in any::<bool>(),
            xmask in any::<bool>(),
            pad in 0usize..3,
            seed in any::<u64>(),
        ) {
            // A band of 20 rows × 48 pixels (+ padding) starting at row 7;
            // regions may reach its right and bottom edges (the vector
            // kernel then falls back to the scalar twin).
            let (bw, bh, by0) = (48usize, 20usize, 7i32);
            let x0 = x0.min(bw as i32 - 1);
            let y0 = by0 + y0.min(bh as i32 - 1);
            let x1 = (x0 + w - 1).min(bw as i32 - 1);
            let y1 = (y0 + h - 1).min(by0 + bh as i32 - 1);
            let st = SmallTri {
                edges: if use_small { small_edges } else { edges },
                x0, y0, x1, y1, diffuse, z, rx, ry, func, write,
                and_mask: if xmask { 0x00FF_FFFF } else { u32::MAX },
            };
            let pitch = (bw + pad) * 4;
            let mut g = seed;
            let mut depth0 = vec![0u8; pitch * bh];
            for b in depth0.iter_mut() {
                g = g.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                *b = (g >> 56) as u8;
            }
            let mut want_c = vec![3u8; pitch * bh];
            let mut want_d = depth0.clone();
            let want_n = {
                let mut b = BandRows { color: &mut want_c, color_pitch: pitch, depth: &mut want_d, depth_pitch: pitch, y0: by0 };
                small_tri_depth24_scalar(&mut b, &st)
            };
            for level in [SimdLevel::Scalar, SimdLevel::Sse2, SimdLevel::Avx2] {
                let level = level.clamp_to_cpu();
                let mut c = vec![3u8; pitch * bh];
                let mut d = depth0.clone();
                let got_n = {
                    let mut b = BandRows { color: &mut c, color_pitch: pitch, depth: &mut d, depth_pitch: pitch, y0: by0 };
                    small_tri_depth24(level, &mut b, &st)
                };
                prop_assert_eq!(got_n, want_n);
                prop_assert_eq!(&c, &want_c);
                prop_assert_eq!(&d, &want_d);
            }
        }
    }
}
