//! The coverage-mask kernel for small triangles: the three edge functions
//! evaluated at every pixel of a region of at most [`SMALL_MAX`] ×
//! [`SMALL_MAX`] pixels, with a 24-bit depth test and Gouraud colour.
//!
//! *Input*: a [`SmallTri`] (edge values, region, colour and depth planes)
//! and the band's rows. *Output*: written pixels and depths, the number
//! of pixels that passed. *Guarantees*: covers exactly the pixels of the
//! exact edge walker of `raster`; one kernel, written over the vector
//! layer ([`super::wide`]) and instantiated at every level, writes
//! exactly the bytes of the pixel-at-a-time [`small_tri_depth24_scalar`]
//! (the reference its proptest compares every level with, and the
//! fallback where a vector would reach past the band).
#![forbid(unsafe_code)]
use super::wide::{F32x8, I32x8, Kernel, M32x8, Simd};
use super::{by_cmp_func, depth_test, pack_pixel, z24, BandRows, SimdLevel};
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

/// [`small_tri_depth24`] one pixel at a time: the reference of the
/// vector kernel, and its fallback near the band's end.
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
/// The vector kernel may load and store back unchanged up to 7 pixels
/// past a row of the region when the band has room; when it has not (the
/// last rows of a band at the right edge of the surface) the
/// pixel-at-a-time [`small_tri_depth24_scalar`] runs instead.
///
/// [`gouraud_depth24_spans`]: super::gouraud_depth24_spans
#[inline(never)]
pub(crate) fn small_tri_depth24(
    level: SimdLevel,
    b: &mut BandRows<'_>,
    s: &SmallTri,
) -> (u32, u32) {
    by_cmp_func!(s.func, small_tri_at, [], (level, b, s))
}

/// [`small_tri_depth24`] with the depth function `F` fixed (see
/// [`super::cmp_func_of`]).
#[inline(always)]
fn small_tri_at<const F: u8>(level: SimdLevel, b: &mut BandRows<'_>, s: &SmallTri) -> (u32, u32) {
    let w = s.x1.wrapping_sub(s.x0).wrapping_add(1);
    let h = s.y1.wrapping_sub(s.y0).wrapping_add(1);
    let (Ok(row0), Ok(xu)) = (
        usize::try_from(s.y0.wrapping_sub(b.y0)),
        usize::try_from(s.x0),
    ) else {
        return small_tri_depth24_scalar(b, s);
    };
    if !(1..=SMALL_MAX).contains(&w) || !(1..=SMALL_MAX).contains(&h) {
        return small_tri_depth24_scalar(b, s);
    }
    let vec_bytes = if w > 8 { 64 } else { 32 };
    let last = row0 + (h - 1) as usize;
    let (cp, dp) = (b.color_pitch, b.depth_pitch);
    if last * cp + xu * 4 + vec_bytes > b.color.len()
        || last * dp + xu * 4 + vec_bytes > b.depth.len()
    {
        return small_tri_depth24_scalar(b, s);
    }
    let k = SmallTriKernel {
        color: &mut *b.color,
        color_at: row0 * cp + xu * 4,
        color_pitch: cp,
        depth: &mut *b.depth,
        depth_at: row0 * dp + xu * 4,
        depth_pitch: dp,
        s,
        w,
        h,
    };
    // By reference (see `gouraud_span`).
    match (w > 8, s.write) {
        (true, true) => level.dispatch(&mut Rows::<F, true, true>(k)),
        (true, false) => level.dispatch(&mut Rows::<F, true, false>(k)),
        (false, true) => level.dispatch(&mut Rows::<F, false, true>(k)),
        (false, false) => level.dispatch(&mut Rows::<F, false, false>(k)),
    }
}

/// The arguments of the vector kernel of [`small_tri_depth24`]: the
/// band's colour and depth bytes and where the region's first pixel is in
/// them; every row of the region has 32 bytes per vector there (checked
/// by the caller).
struct SmallTriKernel<'a> {
    color: &'a mut [u8],
    color_at: usize,
    color_pitch: usize,
    depth: &'a mut [u8],
    depth_at: usize,
    depth_pitch: usize,
    s: &'a SmallTri,
    /// Region width and height, `1..=SMALL_MAX`.
    w: i32,
    h: i32,
}

/// The vector kernel for depth function `F` (see [`super::cmp_func_of`]),
/// with two 8-pixel vectors per row when `TWO` (regions wider than 8),
/// else one, and depth writes when `WRITE`: fixed per instantiation so
/// that the row loop tests none of them.
struct Rows<'a, const F: u8, const TWO: bool, const WRITE: bool>(SmallTriKernel<'a>);

/// Per-triangle values of one 8-pixel vector of the region's rows.
struct Columns<S: Simd> {
    /// Lanes inside the region.
    inside: S::M32x8,
    /// `zref + dzdx·fx` per lane.
    zx: S::F32x8,
}

/// Per-triangle values every vector shares.
struct Shared<S: Simd> {
    /// 0xFF per lane: the low byte of the depth, kept.
    low8: S::I32x8,
    /// AND mask of the packed colour.
    and_mask: S::I32x8,
    /// 0.0, 1.0 and 2^24 − 1 per lane (the depth clamp and scale).
    zero: S::F32x8,
    one: S::F32x8,
    scale: S::F32x8,
}

/// One 8-pixel vector of a row: coverage from the edge values `e` and
/// the region's lanes, the depth test of `new = zx + zy` against the
/// depth bytes `d`, the depth write (when `WRITE`), the colour write of the colours `r`
/// (one pixel per half of each vector, as `gouraud_span`) into `c`.
/// Lanes not covered or failing are stored back unchanged. Returns the
/// lanes that passed and the lanes covered.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn small8<S: Simd, const F: u8, const WRITE: bool>(
    s: S,
    k: &Shared<S>,
    col: &Columns<S>,
    e: &[S::I32x8; 3],
    zy: S::F32x8,
    r: &[S::I32x8; 4],
    c: &mut [u8; 32],
    d: &mut [u8; 32],
) -> (u32, u32) {
    let cov = (e[0] | e[1] | e[2]).simd_gt(s.splat_i32(-1)) & col.inside;
    let z = (col.zx + zy).max(k.zero).min(k.one);
    let zq = z.mul(k.scale).round_i32();
    let old_raw = s.load_i32(d);
    let pass = depth_test::<F, _>(zq, old_raw.shr_logical::<8>()) & cov;
    if WRITE {
        let new_d = zq.shl::<8>() | (old_raw & k.low8);
        S::I32x8::select(pass, new_d, old_raw).store(d);
    }
    let color = S::I32x8::pack_u8_sat([
        r[0].shr::<16>(),
        r[1].shr::<16>(),
        r[2].shr::<16>(),
        r[3].shr::<16>(),
    ]) & k.and_mask;
    S::I32x8::select(pass, color, s.load_i32(c)).store(c);
    (pass.bitmask().count_ones(), cov.bitmask().count_ones())
}

impl<const F: u8, const TWO: bool, const WRITE: bool> Kernel for &mut Rows<'_, F, TWO, WRITE> {
    type Output = (u32, u32);

    /// Edge values, colours and the `dz/dy` term are stepped from row to
    /// row with additions (wrapping, as the direct formulas of
    /// [`small_tri_depth24_scalar`]); the per-lane depth part
    /// `zref + dzdx·fx` is computed once.
    #[inline(always)]
    fn run<S: Simd>(self, s: S) -> (u32, u32) {
        let k = &mut self.0;
        let t = k.s;
        let lane = s.i32x8([0, 1, 2, 3, 4, 5, 6, 7]);
        let splat = |v: i32| s.splat_i32(v);
        // Edge values of row y0, per lane, and their row step.
        // (Arrays written out, not `map`ped: a closure passed to a
        // library function may be compiled outside this level's features.)
        let [e0, e1, e2] = t.edges;
        let at_x0 = |ed: [i32; 3]| splat(ed[0]) + splat(ed[1]).mul(lane);
        let mut e = [at_x0(e0), at_x0(e1), at_x0(e2)];
        let ey = [splat(e0[2]), splat(e1[2]), splat(e2[2])];
        let fx0 = t.x0.wrapping_sub(t.rx);
        let columns = |first: i32| Columns::<S> {
            inside: splat(k.w - first).simd_gt(lane),
            zx: s.splat_f32(t.z[0])
                + s.splat_f32(t.z[1])
                    .mul((splat(fx0.wrapping_add(first)) + lane).to_f32()),
        };
        let cols0 = columns(0);
        // Colours: vector k holds pixel k (low half) and pixel k + 4 (high
        // half), BGRA 16.16.
        let sx = s.repeat4_i32(t.diffuse[1]);
        let sy = s.repeat4_i32(t.diffuse[2]);
        let mut dy = t.y0.wrapping_sub(t.ry);
        let start = s.repeat4_i32(t.diffuse[0]) + splat(fx0).mul(sx) + splat(dy).mul(sy);
        let high = s.i32x8([0, 0, 0, 0, -1, -1, -1, -1]);
        let r0 = start + (sx.shl::<2>() & high);
        let r1 = r0 + sx;
        let r2 = r1 + sx;
        let mut r = [r0, r1, r2, r2 + sx];
        // The second vector: 8 columns on.
        let (cols1, e8, step8) = if TWO {
            (
                columns(8),
                [
                    splat(e0[1].wrapping_mul(8)),
                    splat(e1[1].wrapping_mul(8)),
                    splat(e2[1].wrapping_mul(8)),
                ],
                sx.shl::<3>(),
            )
        } else {
            (columns(0), [splat(0); 3], splat(0))
        };
        let sh = Shared::<S> {
            low8: splat(0xFF),
            and_mask: splat(t.and_mask as i32),
            zero: s.splat_f32(0.0),
            one: s.splat_f32(1.0),
            scale: s.splat_f32(16_777_215.0),
        };
        let (mut passed, mut covered) = (0, 0);
        let (mut co, mut dof) = (k.color_at, k.depth_at);
        for _ in 0..k.h {
            let zy = s.splat_f32(t.z[2] * dy as f32);
            // Never `None`: the caller checked that every row holds 32
            // bytes per vector of colour and of depth.
            let (p, v) = if TWO {
                let (Some(c), Some(d)) = (
                    k.color
                        .get_mut(co..)
                        .and_then(|c| c.first_chunk_mut::<64>()),
                    k.depth
                        .get_mut(dof..)
                        .and_then(|d| d.first_chunk_mut::<64>()),
                ) else {
                    break;
                };
                let (Some((c0, c1)), Some((d0, d1))) = (halves(c), halves(d)) else {
                    break;
                };
                let e_8 = [e[0] + e8[0], e[1] + e8[1], e[2] + e8[2]];
                let r_8 = [r[0] + step8, r[1] + step8, r[2] + step8, r[3] + step8];
                let (p0, v0) = small8::<S, F, WRITE>(s, &sh, &cols0, &e, zy, &r, c0, d0);
                let (p1, v1) = small8::<S, F, WRITE>(s, &sh, &cols1, &e_8, zy, &r_8, c1, d1);
                (p0 + p1, v0 + v1)
            } else {
                let (Some(c), Some(d)) = (
                    k.color
                        .get_mut(co..)
                        .and_then(|c| c.first_chunk_mut::<32>()),
                    k.depth
                        .get_mut(dof..)
                        .and_then(|d| d.first_chunk_mut::<32>()),
                ) else {
                    break;
                };
                small8::<S, F, WRITE>(s, &sh, &cols0, &e, zy, &r, c, d)
            };
            passed += p;
            covered += v;
            co += k.color_pitch;
            dof += k.depth_pitch;
            for i in 0..3 {
                e[i] = e[i] + ey[i];
            }
            for rk in r.iter_mut() {
                *rk = *rk + sy;
            }
            dy = dy.wrapping_add(1);
        }
        (passed, covered)
    }
}

/// The two 8-pixel vectors of 64 bytes (never `None`: the sizes are
/// fixed).
#[inline(always)]
fn halves(v: &mut [u8; 64]) -> Option<(&mut [u8; 32], &mut [u8; 32])> {
    let (a, b) = v.split_first_chunk_mut::<32>()?;
    Some((a, b.first_chunk_mut::<32>()?))
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
