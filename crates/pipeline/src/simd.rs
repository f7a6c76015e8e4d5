//! Vectorised span kernels (x86_64 SSE2 / SSE4.1 / AVX2) and their scalar
//! twins. The only module of the crate that contains `unsafe`.
//!
//! *Input*: one span of one row: the destination bytes (already sliced to
//! the span, so every store is in bounds by construction), fixed-point
//! colour planes and depth planes. *Output*: written pixels and the number
//! of pixels that passed the depth test.
//!
//! *Guarantees*:
//! * every SIMD kernel has a scalar twin (`*_scalar`) producing the same
//!   bytes for every input; tests compare them (proptest);
//! * the kernel variant is chosen at run time with
//!   `is_x86_feature_detected!` ([`SimdLevel::detect`]); a variant is only
//!   ever called when its features were detected;
//! * colours use wrapping i32 16.16 fixed point: `v(i) = start + i·step`
//!   (mod 2^32), so stepping by 1 lane or 8 lanes gives the same values;
//!   depth uses the same IEEE f32 operations in the same order in both
//!   twins (no FMA), rounding with ties-to-even.
//!
//! Colour channel order in every `[i32; 4]` is the memory order of an
//! A8R8G8B8 pixel: blue, green, red, alpha.
#![allow(unsafe_code)]

use crate::state::CmpFunc;

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

/// Asks the CPU to start loading the cache lines of `v` (a pure hint: no
/// effect on results).
#[inline(always)]
pub(crate) fn prefetch<T>(v: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = (v as *const T).cast::<i8>();
        let mut off = 0;
        while off < std::mem::size_of::<T>() {
            // SAFETY: a prefetch is a hint: it cannot fault or modify
            // memory, and `p + off` stays inside the object `v`. SSE (which
            // provides it) is part of the x86_64 baseline.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(off)) };
            off += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = v;
}

/// Depth-test parameters of a span for a 24-bit depth in bits 31..8.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Depth24Params {
    /// z at the plane's reference pixel (bias included).
    pub zref: f32,
    /// dz/dx.
    pub dzdx: f32,
    /// dz/dy × (row − reference row), computed once per span.
    pub zy: f32,
    /// Column of the first span pixel relative to the reference column.
    pub fx0: i32,
    /// Depth function.
    pub func: CmpFunc,
    /// Depth writes enabled.
    pub write: bool,
    /// Fog: factor plane value (16.16, ×255) at the first span pixel, its
    /// step per pixel, and the fog colour (BGR_). Only the scalar and AVX2
    /// kernels support it (callers route other levels to the scalar twin).
    pub fog: Option<(i32, i32, [i32; 4])>,
}

/// Fog fused into the colour + depth kernel: a 16.16 plane of the fog
/// factor × 255 (the specular alpha) and the fog colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FogFixed {
    /// `[value at reference, d/dx, d/dy]`, 16.16, rounding bias included.
    pub plane: [i32; 3],
    /// Fog colour, blue, green, red, (unused).
    pub color: [i32; 4],
}

impl FogFixed {
    /// The same fog with the plane of one triangle.
    pub(crate) fn with_plane(self, plane: [i32; 3]) -> Self {
        FogFixed { plane, ..self }
    }
}

/// `x / 255` rounded to nearest, for `x` in `0..=65025` (integer colour
/// products): `(x + 127) / 255`, computed as the kernels do.
#[inline(always)]
pub(crate) fn div255(x: i32) -> i32 {
    (((x + 127) as u32 * 0x8081) >> 23) as i32
}

/// Fogs one 8-bit channel: `round((c·f + fc·(255 − f)) / 255)`.
#[inline(always)]
fn fog8(c: i32, f: i32, fc: i32) -> i32 {
    div255(c * f + fc * (255 - f))
}

#[inline(always)]
fn clamp8(v: i32) -> u8 {
    crate::int::clamp_u8(v >> 16)
}

#[inline(always)]
fn pack_pixel(v: &[i32; 4], and_mask: u32) -> u32 {
    u32::from_le_bytes([clamp8(v[0]), clamp8(v[1]), clamp8(v[2]), clamp8(v[3])]) & and_mask
}

#[inline(always)]
fn step_pixel(v: &mut [i32; 4], step: &[i32; 4]) {
    for (a, b) in v.iter_mut().zip(step) {
        *a = a.wrapping_add(*b);
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

/// Scalar twin of [`gouraud_depth24_span`].
pub(crate) fn gouraud_depth24_span_scalar(
    color: &mut [u8],
    depth: &mut [u8],
    n: usize,
    start: [i32; 4],
    step: [i32; 4],
    and_mask: u32,
    p: &Depth24Params,
) -> u32 {
    let mut passed = 0;
    for (i, (c, d)) in color
        .chunks_exact_mut(4)
        .zip(depth.chunks_exact_mut(4))
        .take(n)
        .enumerate()
    {
        let zq = z24(p.zref, p.dzdx, p.fx0.wrapping_add(i as i32), p.zy);
        let old_raw = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
        let old = (old_raw >> 8) as i32;
        if p.func.test(zq, old) {
            passed += 1;
            if p.write {
                let new = ((zq as u32) << 8) | (old_raw & 0xFF);
                d.copy_from_slice(&new.to_le_bytes());
            }
            let v = color_at(&start, &step, i);
            let px = match p.fog {
                None => pack_pixel(&v, and_mask),
                Some((f0, fs, fc)) => {
                    let f = i32::from(clamp8(f0.wrapping_add(fs.wrapping_mul(i as i32))));
                    let ch = |k: usize| fog8(i32::from(clamp8(v[k])), f, fc[k]) as u8;
                    u32::from_le_bytes([ch(0), ch(1), ch(2), clamp8(v[3])]) & and_mask
                }
            };
            c.copy_from_slice(&px.to_le_bytes());
        }
    }
    passed
}

/// Gouraud span of `n` pixels with a depth test against a depth buffer
/// holding 24 bits of depth in bits 31..8 (D24S8, D24X8, D24X4S4; the low
/// byte is kept). Returns the number of pixels that passed.
///
/// `color` and `depth` start at the span and may extend beyond its `n`
/// pixels: the vector kernels may then read up to one vector of pixels past
/// the span and store them back unchanged (cheaper than masked stores).
#[allow(clippy::too_many_arguments)] // a kernel entry: flat scalar arguments
pub(crate) fn gouraud_depth24_span(
    level: SimdLevel,
    color: &mut [u8],
    depth: &mut [u8],
    n: usize,
    start: [i32; 4],
    step: [i32; 4],
    and_mask: u32,
    p: &Depth24Params,
) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        match level {
            SimdLevel::Avx2 => {
                // SAFETY: AVX2 was detected (see `gouraud_span`).
                return unsafe { x86::depth24_avx2(color, depth, n, start, step, and_mask, p) };
            }
            SimdLevel::Sse41 => {
                // SAFETY: SSE4.1 was detected.
                return unsafe { x86::depth24_sse41(color, depth, n, start, step, and_mask, p) };
            }
            SimdLevel::Sse2 => {
                // SAFETY: SSE2 is baseline on x86_64.
                return unsafe { x86::depth24_sse2(color, depth, n, start, step, and_mask, p) };
            }
            SimdLevel::Scalar => {}
        }
    }
    let _ = level;
    gouraud_depth24_span_scalar(color, depth, n, start, step, and_mask, p)
}

/// One span of a triangle inside a band of rows: row, first column,
/// number of pixels.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Span {
    /// Row (absolute).
    pub y: i32,
    /// First column.
    pub x: i32,
    /// Number of pixels (≥ 1).
    pub n: u32,
}

/// What the multi-span depth kernel needs of a triangle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TriDepth24 {
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
    /// Fused fog, if any.
    pub fog: Option<FogFixed>,
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

/// Colour byte range, depth byte range, start colour, depth parameters.
type SpanSetup = (
    std::ops::Range<usize>,
    std::ops::Range<usize>,
    [i32; 4],
    Depth24Params,
);

/// Per-span set-up shared by both twins: byte ranges (extended by up to one
/// vector past the span when the band has room), start colour and depth
/// parameters.
#[inline(always)]
fn span_setup(b: &BandRows<'_>, sp: &Span, t: &TriDepth24) -> Option<SpanSetup> {
    let n = sp.n as usize;
    let row = usize::try_from(sp.y - b.y0).ok()?;
    let x = usize::try_from(sp.x).ok()?;
    let coff = row * b.color_pitch + x * 4;
    let doff = row * b.depth_pitch + x * 4;
    let cend = (coff + n.max(8) * 4).min(b.color.len());
    let dend = (doff + n.max(8) * 4).min(b.depth.len());
    if cend < coff + n * 4 || dend < doff + n * 4 {
        return None;
    }
    let (dx, dy) = (sp.x - t.rx, sp.y - t.ry);
    let ch = |c: usize| {
        t.diffuse[0][c]
            .wrapping_add(t.diffuse[1][c].wrapping_mul(dx))
            .wrapping_add(t.diffuse[2][c].wrapping_mul(dy))
    };
    let start = [ch(0), ch(1), ch(2), ch(3)];
    let fog = t.fog.map(|f| {
        let v = f.plane[0]
            .wrapping_add(f.plane[1].wrapping_mul(dx))
            .wrapping_add(f.plane[2].wrapping_mul(dy));
        (v, f.plane[1], f.color)
    });
    let p = Depth24Params {
        zref: t.z[0],
        dzdx: t.z[1],
        zy: t.z[2] * dy as f32,
        fx0: dx,
        func: t.func,
        write: t.write,
        fog,
    };
    Some((coff..cend, doff..dend, start, p))
}

/// Scalar twin of [`gouraud_depth24_spans`].
pub(crate) fn gouraud_depth24_spans_scalar(
    b: &mut BandRows<'_>,
    spans: &[Span],
    t: &TriDepth24,
) -> u32 {
    let mut passed = 0;
    for sp in spans {
        let Some((cr, dr, start, p)) = span_setup(b, sp, t) else {
            continue;
        };
        if let (Some(c), Some(d)) = (b.color.get_mut(cr), b.depth.get_mut(dr)) {
            passed += gouraud_depth24_span_scalar(
                c,
                d,
                sp.n as usize,
                start,
                t.diffuse[1],
                t.and_mask,
                &p,
            );
        }
    }
    passed
}

/// [`gouraud_depth24_span`] over all spans of one triangle in a band, with
/// the loop-invariant set-up done once. Returns the pixels that passed.
pub(crate) fn gouraud_depth24_spans(
    level: SimdLevel,
    b: &mut BandRows<'_>,
    spans: &[Span],
    t: &TriDepth24,
) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx2 {
        // SAFETY: `level` is Avx2 only when AVX2 and POPCNT were detected.
        return unsafe {
            if t.fog.is_some() {
                x86::depth24_spans_avx2::<true>(b, spans, t)
            } else {
                x86::depth24_spans_avx2::<false>(b, spans, t)
            }
        };
    }
    if level == SimdLevel::Scalar || t.fog.is_some() {
        return gouraud_depth24_spans_scalar(b, spans, t);
    }
    let mut passed = 0;
    for sp in spans {
        let Some((cr, dr, start, p)) = span_setup(b, sp, t) else {
            continue;
        };
        if let (Some(c), Some(d)) = (b.color.get_mut(cr), b.depth.get_mut(dr)) {
            passed += gouraud_depth24_span(
                level,
                c,
                d,
                sp.n as usize,
                start,
                t.diffuse[1],
                t.and_mask,
                &p,
            );
        }
    }
    passed
}

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

/// Largest width and height, in pixels, of the region the small-triangle
/// kernel ([`small_tri_depth24`]) covers: at most two 8-lane vectors per
/// row and 16 rows.
pub(crate) const SMALL_MAX: i32 = 16;

/// A small triangle clipped to one tile, for the coverage-mask kernel.
///
/// Instead of walking edges, the kernel evaluates the three edge functions
/// at every pixel of the region (8 lanes at a time) in 32-bit integers:
/// `E(x0 + i, y0 + j) = e + a·i + b·j`, wrapping. The set-up guarantees
/// (`setup::FLAG_SMALL`) that every edge value at a pixel of the
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
pub(crate) fn small_tri_depth24_scalar(b: &mut BandRows<'_>, s: &SmallTri) -> u32 {
    let mut passed = 0;
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
    passed
}

/// Rasterizes a small triangle's region with a 24-bit depth test (as
/// [`gouraud_depth24_spans`]: depth in bits 31..8, low byte kept; Gouraud
/// colour straight into a 32-bit target). Returns the pixels that passed.
/// The AVX2 kernel may load and store back unchanged up to 7 pixels past
/// a row of the region when the band has room.
pub(crate) fn small_tri_depth24(level: SimdLevel, b: &mut BandRows<'_>, s: &SmallTri) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx2 {
        use x86::small_tri_avx2 as k;
        // SAFETY: `level` is Avx2 only when AVX2 and POPCNT were detected.
        return unsafe {
            match s.func {
                CmpFunc::Never => k::<1>(b, s),
                CmpFunc::Less => k::<2>(b, s),
                CmpFunc::Equal => k::<3>(b, s),
                CmpFunc::LessEqual => k::<4>(b, s),
                CmpFunc::Greater => k::<5>(b, s),
                CmpFunc::NotEqual => k::<6>(b, s),
                CmpFunc::GreaterEqual => k::<7>(b, s),
                CmpFunc::Always => k::<8>(b, s),
            }
        };
    }
    let _ = level;
    small_tri_depth24_scalar(b, s)
}

/// One span of the textured fast path (see `shade::TexFast`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TexSpan {
    /// u plane: `[value at reference, d/dx, d/dy × row offset]` (`attr ·
    /// rhw`); u of lane i is `((u0 + u1·fx) + u2) · inv`.
    pub u: [f32; 3],
    /// v plane, likewise.
    pub v: [f32; 3],
    /// 1 / rhw (constant: affine triangles only).
    pub inv: f32,
    /// Column of the first pixel relative to the reference column.
    pub fx0: i32,
    /// Diffuse (16.16, BGRA) at the first pixel.
    pub start: [i32; 4],
    /// Diffuse step per pixel.
    pub step: [i32; 4],
    /// AND mask of the packed colour.
    pub and_mask: u32,
    /// SRCALPHA / INVSRCALPHA blending with the destination.
    pub blend: bool,
}

/// Texel `x` of the row starting at byte `row` (0 outside the data).
#[inline(always)]
fn texel(data: &[u8], row: usize, x: usize) -> u32 {
    let at = row + 4 * x;
    data.get(at..at + 4)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// One channel of the separable 8-bit bilinear filter of the fast path:
/// `h = round((a·(256 − f) + b·f) / 256)` — exact in 16-bit lanes.
#[inline(always)]
fn lerp8(a: u32, b: u32, f: u32) -> u32 {
    ((a << 8) + b * f - a * f + 128) >> 8
}

/// Bilinear WRAP sample of a 32-bit level for the textured fast path:
/// the texels and 8-bit fractions of [`crate::texture::fast`], filtered
/// separably (horizontal lerps rounded to 8 bits, then the vertical one),
/// as hardware texture units do. Within one unit per channel of
/// `texture::fast::bilinear_wrap_argb8`.
#[inline(always)]
pub(crate) fn bilinear8(level: &crate::texture::LevelRef<'_>, u: f32, v: f32, force: u32) -> u32 {
    use crate::texture::fast::wrap_coord;
    let i = &level.info;
    let (x0, x1, fx) = wrap_coord(u, i.width);
    let (y0, y1, fy) = wrap_coord(v, i.height);
    let (r0, r1) = (y0 * i.row_pitch, y1 * i.row_pitch);
    let d = level.data;
    let t = [
        texel(d, r0, x0) | force,
        texel(d, r0, x1) | force,
        texel(d, r1, x0) | force,
        texel(d, r1, x1) | force,
    ];
    let mut out = 0;
    for sh in [0u32, 8, 16, 24] {
        let c = t.map(|x| (x >> sh) & 0xFF);
        let h0 = lerp8(c[0], c[1], fx);
        let h1 = lerp8(c[2], c[3], fx);
        out |= lerp8(h0, h1, fy) << sh;
    }
    out
}

/// Scalar twin of [`tex_modulate_span`].
pub(crate) fn tex_modulate_span_scalar(
    dst: &mut [u8],
    level: &crate::texture::LevelRef<'_>,
    p: &TexSpan,
) {
    let force = if level.format == crate::texture::TextureFormat::X8R8G8B8 {
        0xFF00_0000
    } else {
        0
    };
    for (i, px) in dst.chunks_exact_mut(4).enumerate() {
        let fx = p.fx0.wrapping_add(i as i32) as f32;
        let u = ((p.u[0] + p.u[1] * fx) + p.u[2]) * p.inv;
        let v = ((p.v[0] + p.v[1] * fx) + p.v[2]) * p.inv;
        let t = bilinear8(level, u, v, force).to_le_bytes();
        let d = color_at(&p.start, &p.step, i);
        let s = [0, 1, 2, 3].map(|k| div255(i32::from(t[k]) * i32::from(clamp8(d[k]))));
        let out = if p.blend {
            let old = [px[0], px[1], px[2], px[3]].map(i32::from);
            let a = s[3];
            [0, 1, 2, 3].map(|k| div255(s[k] * a + old[k] * (255 - a)) as u8)
        } else {
            s.map(|x| x as u8)
        };
        let w = u32::from_le_bytes(out) & p.and_mask;
        px.copy_from_slice(&w.to_le_bytes());
    }
}

/// Textured span: pixel i = round(bilinear texel × diffuse / 255) per
/// channel (texel from [`bilinear8`]),
/// optionally blended SRCALPHA/INVSRCALPHA over `dst` (`round(x/255)`,
/// as the generic blend), ANDed with the mask.
pub(crate) fn tex_modulate_span(
    level_simd: SimdLevel,
    dst: &mut [u8],
    level: &crate::texture::LevelRef<'_>,
    p: &TexSpan,
) {
    #[cfg(target_arch = "x86_64")]
    if level_simd == SimdLevel::Avx2 && x86::tex_level_ok(level) {
        // SAFETY: Avx2 is only selected when AVX2 was detected; the level
        // passed the bounds check of `tex_level_ok`.
        unsafe { x86::tex_modulate_avx2(dst, level, p) };
        return;
    }
    let _ = level_simd;
    tex_modulate_span_scalar(dst, level, p);
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! The x86_64 kernels. Every function requires its target features to
    //! be present (callers check with `is_x86_feature_detected!`), and
    //! only stores through pointers of `chunks_exact_mut` chunks of the
    //! exact store width.
    use super::{
        color_at, gouraud_depth24_span_scalar, gouraud_span_scalar, small_tri_depth24_scalar,
        span_setup, BandRows, Depth24Params, PlaneGeom, SmallTri, Span, TexSpan, TriDepth24,
    };
    use crate::state::CmpFunc;
    use std::arch::x86_64::*;

    #[inline(always)]
    unsafe fn load4(v: &[i32; 4]) -> __m128i {
        // SAFETY: `v` is 16 readable bytes; loadu has no alignment need.
        unsafe { _mm_loadu_si128(v.as_ptr().cast()) }
    }

    /// Packs four pixels held as i32 BGRA 16.16 vectors into 16 bytes.
    #[inline(always)]
    unsafe fn pack4(p0: __m128i, p1: __m128i, p2: __m128i, p3: __m128i) -> __m128i {
        // SAFETY: SSE2 intrinsics on registers; SSE2 is enabled in every
        // caller.
        unsafe {
            let a = _mm_packs_epi32(_mm_srai_epi32(p0, 16), _mm_srai_epi32(p1, 16));
            let b = _mm_packs_epi32(_mm_srai_epi32(p2, 16), _mm_srai_epi32(p3, 16));
            _mm_packus_epi16(a, b)
        }
    }

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

    /// True if every texel index the AVX2 texture kernel can form (x <
    /// width, y < height) lies inside the level's bytes, and the level is
    /// a 32-bit format with a whole number of texels per row.
    pub(super) fn tex_level_ok(level: &crate::texture::LevelRef<'_>) -> bool {
        use crate::texture::TextureFormat as F;
        let i = &level.info;
        let (w, h) = (i.width as usize, i.height as usize);
        matches!(level.format, F::A8R8G8B8 | F::X8R8G8B8)
            && w >= 1
            && h >= 1
            && i.row_pitch.is_multiple_of(4)
            && (h - 1)
                .checked_mul(i.row_pitch)
                .and_then(|v| v.checked_add(w * 4))
                .is_some_and(|end| end <= level.data.len())
            && h.checked_mul(i.row_pitch / 4)
                .is_some_and(|v| v < i32::MAX as usize)
            && w < (1 << 20)
    }

    /// Wrapped bilinear coordinates of 8 lanes (see `texture::fast`):
    /// texel 0, texel 1, 8-bit fraction.
    #[inline(always)]
    unsafe fn wrap8(c: __m256, scale: __m256, size: i32) -> (__m256i, __m256i, __m256i) {
        // SAFETY: register-only AVX2 operations (callers enable AVX2).
        unsafe {
            let fr = _mm256_sub_ps(c, _mm256_floor_ps(c));
            // Non-finite input → NaN fraction → 0, like the scalar twin.
            let fr = _mm256_and_ps(fr, _mm256_cmp_ps::<_CMP_ORD_Q>(fr, fr));
            let q = _mm256_sub_epi32(
                _mm256_cvttps_epi32(_mm256_floor_ps(_mm256_mul_ps(fr, scale))),
                _mm256_set1_epi32(128),
            );
            let i = _mm256_srai_epi32(q, 8);
            let f = _mm256_and_si256(q, _mm256_set1_epi32(255));
            let s = _mm256_set1_epi32(size);
            let ge = _mm256_cmpgt_epi32(i, _mm256_set1_epi32(size - 1));
            let i0 = _mm256_blendv_epi8(i, _mm256_sub_epi32(i, s), ge);
            let neg = _mm256_cmpgt_epi32(_mm256_setzero_si256(), i);
            let i0 = _mm256_blendv_epi8(i0, _mm256_set1_epi32(size - 1), neg);
            let i1 = _mm256_add_epi32(i0, _mm256_set1_epi32(1));
            let i1 = _mm256_andnot_si256(_mm256_cmpeq_epi32(i1, s), i1);
            (i0, i1, f)
        }
    }

    /// `round(x / 255)` of 16-bit lanes, x in 0..=65025.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn div255_16(x: __m256i) -> __m256i {
        _mm256_srli_epi16(
            _mm256_mulhi_epu16(
                _mm256_add_epi16(x, _mm256_set1_epi16(127)),
                _mm256_set1_epi16(0x8081u16 as i16),
            ),
            7,
        )
    }

    /// `round((a·(256 − f) + b·f) / 256)` in wrapping 16-bit lanes (exact:
    /// the true value lies in 0..=65408).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn lerp16(a: __m256i, b: __m256i, f: __m256i) -> __m256i {
        let h = _mm256_add_epi16(
            _mm256_slli_epi16(a, 8),
            _mm256_mullo_epi16(_mm256_sub_epi16(b, a), f),
        );
        _mm256_srli_epi16(_mm256_add_epi16(h, _mm256_set1_epi16(128)), 8)
    }

    /// AVX2 twin of `tex_modulate_span_scalar`. Pixels are processed 8 at
    /// a time in two 16-bit halves: "lo" = pixels 0, 1 | 4, 5 and "hi" =
    /// 2, 3 | 6, 7 (the order of `unpack*_epi8` on 8 packed pixels), four
    /// channels each.
    ///
    /// # Safety
    /// AVX2 must be available and `tex_level_ok(level)` must hold.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn tex_modulate_avx2(
        dst: &mut [u8],
        level: &crate::texture::LevelRef<'_>,
        p: &TexSpan,
    ) {
        let info = &level.info;
        let (w, h) = (info.width as i32, info.height as i32);
        let pitch4 = _mm256_set1_epi32((info.row_pitch / 4) as i32);
        let force: u64 = if level.format == crate::texture::TextureFormat::X8R8G8B8 {
            0xFF00_0000_FF00_0000
        } else {
            0
        };
        let base = level.data.as_ptr().cast::<u32>();
        let lane = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
        let set = _mm256_set1_ps;
        let (u0, u1, u2, v0, v1, v2, inv) = (
            set(p.u[0]),
            set(p.u[1]),
            set(p.u[2]),
            set(p.v[0]),
            set(p.v[1]),
            set(p.v[2]),
            set(p.inv),
        );
        let (ws, hs) = (set(w as f32 * 256.0), set(h as f32 * 256.0));
        // Diffuse registers as in `gouraud_span_avx2`: register k holds
        // pixel k (low half) and pixel k + 4 (high half), BGRA i32.
        // SAFETY: `p.step` is 16 readable bytes.
        let st = unsafe { load4(&p.step) };
        let mut r = [_mm256_setzero_si256(); 4];
        {
            // SAFETY: `p.start` is 16 readable bytes.
            let mut lo = unsafe { load4(&p.start) };
            let s4 = _mm_slli_epi32(st, 2);
            for rk in r.iter_mut() {
                *rk = _mm256_set_m128i(_mm_add_epi32(lo, s4), lo);
                lo = _mm_add_epi32(lo, st);
            }
        }
        let s8 = _mm_slli_epi32(st, 3);
        let step8 = _mm256_set_m128i(s8, s8);
        let zero = _mm256_setzero_si256();
        let c255 = _mm256_set1_epi16(255);
        let andm = _mm256_set1_epi32(p.and_mask as i32);
        // Broadcast a pixel's 16-bit value over its 4 channel slots.
        let bc_lo = _mm256_setr_epi8(
            0, 1, 0, 1, 0, 1, 0, 1, 4, 5, 4, 5, 4, 5, 4, 5, 0, 1, 0, 1, 0, 1, 0, 1, 4, 5, 4, 5, 4,
            5, 4, 5,
        );
        let bc_hi = _mm256_setr_epi8(
            8, 9, 8, 9, 8, 9, 8, 9, 12, 13, 12, 13, 12, 13, 12, 13, 8, 9, 8, 9, 8, 9, 8, 9, 12, 13,
            12, 13, 12, 13, 12, 13,
        );
        let wlast = (w - 1) as usize;
        // v constant along the span (dv/dx = 0, e.g. screen-aligned
        // quads): `v0 + 0·fx` is `v0` for every lane, so the rows and the
        // vertical fraction are computed once.
        let vrow = (p.v[1] == 0.0).then(|| {
            let v = _mm256_mul_ps(_mm256_add_ps(v0, v2), inv);
            // SAFETY: AVX2 is enabled in this function.
            let (y0, y1, fy) = unsafe { wrap8(v, hs, h) };
            (
                _mm256_mullo_epi32(y0, pitch4),
                _mm256_mullo_epi32(y1, pitch4),
                fy,
            )
        });
        let mut i = 0usize;
        for chunk in dst.chunks_mut(32) {
            let rem = chunk.len() / 4;
            let fxl = _mm256_cvtepi32_ps(_mm256_add_epi32(
                _mm256_set1_epi32(p.fx0.wrapping_add(i as i32)),
                lane,
            ));
            let u = _mm256_mul_ps(
                _mm256_add_ps(_mm256_add_ps(u0, _mm256_mul_ps(u1, fxl)), u2),
                inv,
            );
            // SAFETY: AVX2 is enabled in this function.
            let (x0, _, fx) = unsafe { wrap8(u, ws, w) };
            let (r0, r1, fy) = match vrow {
                Some(c) => c,
                None => {
                    let v = _mm256_mul_ps(
                        _mm256_add_ps(_mm256_add_ps(v0, _mm256_mul_ps(v1, fxl)), v2),
                        inv,
                    );
                    // SAFETY: AVX2 is enabled in this function.
                    let (y0, y1, fy) = unsafe { wrap8(v, hs, h) };
                    (
                        _mm256_mullo_epi32(y0, pitch4),
                        _mm256_mullo_epi32(y1, pitch4),
                        fy,
                    )
                }
            };
            // Lanes whose pair (x0, x0 + 1) wraps around the row.
            let wraps = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(
                x0,
                _mm256_set1_epi32(w - 1),
            )));
            let idx = [_mm256_add_epi32(r0, x0), _mm256_add_epi32(r1, x0)];
            let forcev = _mm256_set1_epi64x(force as i64);
            // The texel pairs of pixels (0, 1 | 4, 5) and (2, 3 | 6, 7) of
            // each row, 8 bytes per pixel.
            // Horizontal lerps of both rows, as 16-bit lo/hi halves.
            let fxw = _mm256_and_si256(fx, _mm256_set1_epi32(0xFFFF));
            let (fx_lo, fx_hi) = (
                _mm256_shuffle_epi8(fxw, bc_lo),
                _mm256_shuffle_epi8(fxw, bc_hi),
            );
            let mut hrow = [[zero; 2]; 2];
            let x00 = _mm256_cvtsi256_si32(x0);
            // Magnification near 1:1 with v constant along the span: the 8
            // pixels read texels x00..x00 + 8 of the same two rows (no
            // wrap), two plain loads per row.
            let contiguous = vrow.is_some()
                && x00 >= 0
                && x00 + 8 < w
                && _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(
                    x0,
                    _mm256_add_epi32(_mm256_set1_epi32(x00), lane),
                ))) == 0xFF;
            if contiguous {
                let rows = [_mm256_cvtsi256_si32(r0), _mm256_cvtsi256_si32(r1)];
                for (rw, hr) in rows.iter().zip(hrow.iter_mut()) {
                    // SAFETY: the row offset is that of a row < height
                    // and x00 + 9 ≤ width, so texels x00..=x00 + 8 of the
                    // row lie inside the level (`tex_level_ok`).
                    let (a, b) = unsafe {
                        let p = base.add(*rw as usize + x00 as usize);
                        (
                            _mm256_loadu_si256(p.cast()),
                            _mm256_loadu_si256(p.add(1).cast()),
                        )
                    };
                    let (a, b) = (_mm256_or_si256(a, forcev), _mm256_or_si256(b, forcev));
                    hr[0] = lerp16(
                        _mm256_unpacklo_epi8(a, zero),
                        _mm256_unpacklo_epi8(b, zero),
                        fx_lo,
                    );
                    hr[1] = lerp16(
                        _mm256_unpackhi_epi8(a, zero),
                        _mm256_unpackhi_epi8(b, zero),
                        fx_hi,
                    );
                }
            } else {
                let pairs: [[__m256i; 2]; 2] = if wraps == 0 {
                    idx.map(|ix| {
                        let q0 = _mm256_permutevar8x32_epi32(
                            ix,
                            _mm256_setr_epi32(0, 1, 4, 5, 0, 0, 0, 0),
                        );
                        let q1 = _mm256_permutevar8x32_epi32(
                            ix,
                            _mm256_setr_epi32(2, 3, 6, 7, 0, 0, 0, 0),
                        );
                        // SAFETY: x0 + 1 < width in every lane, so both texels
                        // of each pair lie inside the level (`tex_level_ok`).
                        unsafe {
                            [
                                _mm256_i32gather_epi64::<4>(
                                    base.cast(),
                                    _mm256_castsi256_si128(q0),
                                ),
                                _mm256_i32gather_epi64::<4>(
                                    base.cast(),
                                    _mm256_castsi256_si128(q1),
                                ),
                            ]
                        }
                        .map(|v| _mm256_or_si256(v, forcev))
                    })
                } else {
                    let mut xi = [0i32; 8];
                    let mut ri = [[0i32; 8]; 2];
                    // SAFETY: the arrays are 32 writable bytes each.
                    unsafe {
                        _mm256_storeu_si256(xi.as_mut_ptr().cast(), x0);
                        _mm256_storeu_si256(ri[0].as_mut_ptr().cast(), r0);
                        _mm256_storeu_si256(ri[1].as_mut_ptr().cast(), r1);
                    }
                    let pair = |rw: &[i32; 8], k: usize| -> i64 {
                        let (row, x) = (rw[k] as usize, xi[k] as usize);
                        // SAFETY: x < width and the row offset belongs to a
                        // row < height (wrap8), so texels row + x and row + x
                        // + 1 (when x + 1 < width) or row + 0 lie inside the
                        // level (`tex_level_ok`).
                        let v = unsafe {
                            if x < wlast {
                                base.add(row + x).cast::<u64>().read_unaligned()
                            } else {
                                u64::from(base.add(row + x).read_unaligned())
                                    | u64::from(base.add(row).read_unaligned()) << 32
                            }
                        };
                        (v | force) as i64
                    };
                    ri.map(|rw| {
                        [
                            _mm256_set_epi64x(
                                pair(&rw, 5),
                                pair(&rw, 4),
                                pair(&rw, 1),
                                pair(&rw, 0),
                            ),
                            _mm256_set_epi64x(
                                pair(&rw, 7),
                                pair(&rw, 6),
                                pair(&rw, 3),
                                pair(&rw, 2),
                            ),
                        ]
                    })
                };
                for (pr, hr) in pairs.iter().zip(hrow.iter_mut()) {
                    for (hk, (vv, fw)) in hr.iter_mut().zip([(pr[0], fx_lo), (pr[1], fx_hi)]) {
                        // Words: [a_k, b_k | a_k+4, b_k+4] for the two pixels.
                        let e = _mm256_unpacklo_epi8(vv, zero);
                        let o = _mm256_unpackhi_epi8(vv, zero);
                        let a = _mm256_unpacklo_epi64(e, o);
                        let b = _mm256_unpackhi_epi64(e, o);
                        *hk = lerp16(a, b, fw);
                    }
                }
            }
            let fyw = _mm256_and_si256(fy, _mm256_set1_epi32(0xFFFF));
            let fy16 = [
                _mm256_shuffle_epi8(fyw, bc_lo),
                _mm256_shuffle_epi8(fyw, bc_hi),
            ];
            // Diffuse in the same halves: packs(r0, r1) = pixels 0, 1 | 4, 5.
            let d16 = [
                _mm256_packs_epi32(_mm256_srai_epi32(r[0], 16), _mm256_srai_epi32(r[1], 16)),
                _mm256_packs_epi32(_mm256_srai_epi32(r[2], 16), _mm256_srai_epi32(r[3], 16)),
            ]
            .map(|x| _mm256_min_epi16(_mm256_max_epi16(x, zero), c255));
            let mut s16 = [zero; 2];
            for k in 0..2 {
                let t = lerp16(hrow[0][k], hrow[1][k], fy16[k]);
                s16[k] = div255_16(_mm256_mullo_epi16(t, d16[k]));
            }
            let mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(rem as i32), lane);
            if p.blend {
                // SAFETY: lanes < rem lie inside `chunk`; masked-off lanes
                // are not read.
                let old = unsafe { _mm256_maskload_epi32(chunk.as_ptr().cast(), mask) };
                // Destination in the lo/hi arrangement.
                let ol = _mm256_unpacklo_epi8(old, zero);
                let oh = _mm256_unpackhi_epi8(old, zero);
                // unpack gives pixels 0, 1 | 4, 5 and 2, 3 | 6, 7.
                for (sk, o) in s16.iter_mut().zip([ol, oh]) {
                    let a = _mm256_shufflehi_epi16(_mm256_shufflelo_epi16(*sk, 0xFF), 0xFF);
                    let ia = _mm256_sub_epi16(c255, a);
                    *sk = div255_16(_mm256_add_epi16(
                        _mm256_mullo_epi16(*sk, a),
                        _mm256_mullo_epi16(o, ia),
                    ));
                }
            }
            let px = _mm256_and_si256(_mm256_packus_epi16(s16[0], s16[1]), andm);
            if rem == 8 {
                // SAFETY: the chunk is exactly 32 bytes.
                unsafe { _mm256_storeu_si256(chunk.as_mut_ptr().cast(), px) };
            } else {
                // SAFETY: lanes < rem lie inside `chunk`; masked-off lanes
                // are not written.
                unsafe { _mm256_maskstore_epi32(chunk.as_mut_ptr().cast(), mask, px) };
            }
            for rk in r.iter_mut() {
                *rk = _mm256_add_epi32(*rk, step8);
            }
            i += 8;
        }
    }

    /// Lane mask with lanes `0..rem` set (rem ≤ 8).
    #[inline(always)]
    unsafe fn tail_mask(rem: usize) -> __m256i {
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
    unsafe fn pack8(r: &[__m256i; 4]) -> __m256i {
        // SAFETY: register-only AVX2 operations (callers enable AVX2).
        unsafe {
            let a = _mm256_packs_epi32(_mm256_srai_epi32(r[0], 16), _mm256_srai_epi32(r[1], 16));
            let b = _mm256_packs_epi32(_mm256_srai_epi32(r[2], 16), _mm256_srai_epi32(r[3], 16));
            _mm256_packus_epi16(a, b)
        }
    }

    /// Lane mask (all ones) where `new FUNC old` holds, SSE2.
    #[inline(always)]
    unsafe fn cmp_sse2(func: CmpFunc, new: __m128i, old: __m128i) -> __m128i {
        // SAFETY: register-only SSE2 operations.
        unsafe {
            let ones = _mm_set1_epi32(-1);
            match func {
                CmpFunc::Never => _mm_setzero_si128(),
                CmpFunc::Less => _mm_cmpgt_epi32(old, new),
                CmpFunc::Equal => _mm_cmpeq_epi32(new, old),
                CmpFunc::LessEqual => _mm_xor_si128(_mm_cmpgt_epi32(new, old), ones),
                CmpFunc::Greater => _mm_cmpgt_epi32(new, old),
                CmpFunc::NotEqual => _mm_xor_si128(_mm_cmpeq_epi32(new, old), ones),
                CmpFunc::GreaterEqual => _mm_xor_si128(_mm_cmpgt_epi32(old, new), ones),
                CmpFunc::Always => ones,
            }
        }
    }

    /// Shared 4-lane body of the SSE2 and SSE4.1 depth kernels.
    #[inline(always)]
    unsafe fn depth24_sse_body<const SSE41: bool>(
        color: &mut [u8],
        depth: &mut [u8],
        n: usize,
        start: [i32; 4],
        step: [i32; 4],
        and_mask: u32,
        p: &Depth24Params,
    ) -> u32 {
        let n = n.min(color.len() / 4).min(depth.len() / 4);
        let n4 = n / 4;
        let mut passed = 0u32;
        // SAFETY: register-only SSE2 operations; loads from local arrays.
        let (mut v, step4, andm, zref, dzdx, zy, zero, one, scale, low8, write, lane) = unsafe {
            let s = load4(&step);
            let v0 = load4(&start);
            let v1 = _mm_add_epi32(v0, s);
            let v2 = _mm_add_epi32(v1, s);
            let v3 = _mm_add_epi32(v2, s);
            (
                [v0, v1, v2, v3],
                _mm_slli_epi32(s, 2),
                _mm_set1_epi32(and_mask as i32),
                _mm_set1_ps(p.zref),
                _mm_set1_ps(p.dzdx),
                _mm_set1_ps(p.zy),
                _mm_setzero_ps(),
                _mm_set1_ps(1.0),
                _mm_set1_ps(16_777_215.0),
                _mm_set1_epi32(0xFF),
                _mm_set1_epi32(if p.write { -1 } else { 0 }),
                _mm_set_epi32(3, 2, 1, 0),
            )
        };
        let (cbody, ctail) = color.split_at_mut(n4 * 16);
        let (dbody, dtail) = depth.split_at_mut(n4 * 16);
        for (k, (c, d)) in cbody
            .chunks_exact_mut(16)
            .zip(dbody.chunks_exact_mut(16))
            .enumerate()
        {
            // SAFETY: `c` and `d` are exactly 16 bytes each, valid for
            // unaligned loads and stores; the rest is register arithmetic.
            unsafe {
                let x = p.fx0.wrapping_add((k * 4) as i32);
                let fx = _mm_cvtepi32_ps(_mm_add_epi32(_mm_set1_epi32(x), lane));
                let z = _mm_add_ps(_mm_add_ps(zref, _mm_mul_ps(dzdx, fx)), zy);
                let z = _mm_min_ps(_mm_max_ps(z, zero), one);
                let zq = _mm_cvtps_epi32(_mm_mul_ps(z, scale));
                let old_raw = _mm_loadu_si128(d.as_ptr().cast());
                let old = _mm_srli_epi32(old_raw, 8);
                let pass = cmp_sse2(p.func, zq, old);
                let new_d = _mm_or_si128(_mm_slli_epi32(zq, 8), _mm_and_si128(old_raw, low8));
                let wmask = _mm_and_si128(pass, write);
                let col = _mm_and_si128(pack4(v[0], v[1], v[2], v[3]), andm);
                let old_c = _mm_loadu_si128(c.as_ptr().cast());
                let (out_d, out_c) = if SSE41 {
                    (
                        _mm_blendv_epi8(old_raw, new_d, wmask),
                        _mm_blendv_epi8(old_c, col, pass),
                    )
                } else {
                    (
                        _mm_or_si128(
                            _mm_and_si128(wmask, new_d),
                            _mm_andnot_si128(wmask, old_raw),
                        ),
                        _mm_or_si128(_mm_and_si128(pass, col), _mm_andnot_si128(pass, old_c)),
                    )
                };
                _mm_storeu_si128(d.as_mut_ptr().cast(), out_d);
                _mm_storeu_si128(c.as_mut_ptr().cast(), out_c);
                passed += (_mm_movemask_ps(_mm_castsi128_ps(pass)) as u32).count_ones();
                for vk in v.iter_mut() {
                    *vk = _mm_add_epi32(*vk, step4);
                }
            }
        }
        let done = n4 * 4;
        let tail = Depth24Params {
            fx0: p.fx0.wrapping_add(done as i32),
            ..*p
        };
        passed
            + gouraud_depth24_span_scalar(
                ctail,
                dtail,
                n - done,
                color_at(&start, &step, done),
                step,
                and_mask,
                &tail,
            )
    }

    #[target_feature(enable = "sse2")]
    pub(super) unsafe fn depth24_sse2(
        color: &mut [u8],
        depth: &mut [u8],
        n: usize,
        start: [i32; 4],
        step: [i32; 4],
        and_mask: u32,
        p: &Depth24Params,
    ) -> u32 {
        // SAFETY: this function requires SSE2, which the body needs.
        unsafe { depth24_sse_body::<false>(color, depth, n, start, step, and_mask, p) }
    }

    #[target_feature(enable = "sse4.1")]
    pub(super) unsafe fn depth24_sse41(
        color: &mut [u8],
        depth: &mut [u8],
        n: usize,
        start: [i32; 4],
        step: [i32; 4],
        and_mask: u32,
        p: &Depth24Params,
    ) -> u32 {
        // SAFETY: this function requires SSE4.1 (which implies SSE2), which
        // the body's blendv path needs.
        unsafe { depth24_sse_body::<true>(color, depth, n, start, step, and_mask, p) }
    }

    /// Lane mask where `new FUNC old` holds, AVX2.
    #[inline(always)]
    unsafe fn cmp_avx2(func: CmpFunc, new: __m256i, old: __m256i) -> __m256i {
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

    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn depth24_avx2(
        color: &mut [u8],
        depth: &mut [u8],
        n: usize,
        start: [i32; 4],
        step: [i32; 4],
        and_mask: u32,
        p: &Depth24Params,
    ) -> u32 {
        // SAFETY: this function enables the AVX2 and POPCNT features the
        // body needs.
        unsafe { depth24_avx2_body(color, depth, n, start, step, and_mask, p) }
    }

    /// Body of the AVX2 depth kernel, inlined into its AVX2 callers.
    ///
    /// # Safety
    /// AVX2 and POPCNT must be available.
    #[inline(always)]
    unsafe fn depth24_avx2_body(
        color: &mut [u8],
        depth: &mut [u8],
        n: usize,
        start: [i32; 4],
        step: [i32; 4],
        and_mask: u32,
        p: &Depth24Params,
    ) -> u32 {
        let n = n.min(color.len() / 4).min(depth.len() / 4);
        let n8 = n / 8;
        let mut passed = 0u32;
        // SAFETY: register-only AVX2 operations; loads from local arrays.
        let (mut r, step8, andm, zref, dzdx, zy, zero, one, scale, low8, write, lane) = unsafe {
            let s = load4(&step);
            let s4 = _mm_slli_epi32(s, 2);
            let mut r = [_mm256_setzero_si256(); 4];
            let mut lo = load4(&start);
            for rk in r.iter_mut() {
                *rk = _mm256_set_m128i(_mm_add_epi32(lo, s4), lo);
                lo = _mm_add_epi32(lo, s);
            }
            let s8 = _mm_slli_epi32(s, 3);
            (
                r,
                _mm256_set_m128i(s8, s8),
                _mm256_set1_epi32(and_mask as i32),
                _mm256_set1_ps(p.zref),
                _mm256_set1_ps(p.dzdx),
                _mm256_set1_ps(p.zy),
                _mm256_setzero_ps(),
                _mm256_set1_ps(1.0),
                _mm256_set1_ps(16_777_215.0),
                _mm256_set1_epi32(0xFF),
                _mm256_set1_epi32(if p.write { -1 } else { 0 }),
                _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0),
            )
        };
        let (cbody, ctail) = color.split_at_mut(n8 * 32);
        let (dbody, dtail) = depth.split_at_mut(n8 * 32);
        let k = Depth8 {
            zref,
            dzdx,
            zy,
            zero,
            one,
            scale,
            low8,
            write,
            lane,
            andm,
            func: p.func,
        };
        for (i, (c, d)) in cbody
            .chunks_exact_mut(32)
            .zip(dbody.chunks_exact_mut(32))
            .enumerate()
        {
            let x = p.fx0.wrapping_add((i * 8) as i32);
            // SAFETY: `c` and `d` are exactly 32 bytes each; with an
            // all-ones mask every lane is inside them.
            passed += unsafe {
                depth8::<false>(
                    &k,
                    &r,
                    x,
                    c.as_mut_ptr(),
                    d.as_mut_ptr(),
                    _mm256_set1_epi32(-1),
                    None,
                )
            };
            for rk in r.iter_mut() {
                *rk = _mm256_add_epi32(*rk, step8);
            }
        }
        let rem = n - n8 * 8;
        if rem > 0 {
            let x = p.fx0.wrapping_add((n8 * 8) as i32);
            let mask = tail_mask(rem);
            passed += if ctail.len() >= 32 && dtail.len() >= 32 {
                // SAFETY: both tails hold at least 32 bytes, so full-width
                // loads and stores are in bounds; lanes ≥ rem are outside
                // `pass` and are stored back unchanged.
                unsafe {
                    depth8::<false>(
                        &k,
                        &r,
                        x,
                        ctail.as_mut_ptr(),
                        dtail.as_mut_ptr(),
                        mask,
                        None,
                    )
                }
            } else {
                // SAFETY: lanes < rem are inside `ctail` and `dtail`
                // (rem ≤ n − n8·8 and n ≤ len/4); masked loads/stores do
                // not touch masked-off lanes.
                unsafe {
                    depth8::<true>(
                        &k,
                        &r,
                        x,
                        ctail.as_mut_ptr(),
                        dtail.as_mut_ptr(),
                        mask,
                        None,
                    )
                }
            };
        }
        passed
    }

    /// All spans of one triangle (see `gouraud_depth24_spans`). Colour
    /// vectors of a span are built from per-triangle vectors
    /// (`ref + dx·ddx + dy·ddy + lane·ddx`, wrapping like the scalar twin)
    /// and every loop-invariant register is set up once.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn depth24_spans_avx2<const FOG: bool>(
        b: &mut BandRows<'_>,
        spans: &[Span],
        t: &TriDepth24,
    ) -> u32 {
        let both = |v: &[i32; 4]| {
            // SAFETY: `v` is 16 readable bytes (unaligned load).
            let x = unsafe { load4(v) };
            _mm256_set_m128i(x, x)
        };
        let base = both(&t.diffuse[0]);
        let sx = both(&t.diffuse[1]);
        let sy = both(&t.diffuse[2]);
        // Register k holds lanes k (low half) and k + 4 (high half).
        let lofs: [__m256i; 4] = [0, 1, 2, 3].map(|k| {
            _mm256_mullo_epi32(sx, _mm256_set_epi32(k + 4, k + 4, k + 4, k + 4, k, k, k, k))
        });
        let step8 = _mm256_slli_epi32(sx, 3);
        // Fog factor planes, replicated over the 4 channel lanes.
        let fplane = t.fog.map_or([0; 3], |f| f.plane);
        let (fbase, fsx, fsy) = (
            _mm256_set1_epi32(fplane[0]),
            _mm256_set1_epi32(fplane[1]),
            _mm256_set1_epi32(fplane[2]),
        );
        let flofs: [__m256i; 4] = [0, 1, 2, 3].map(|k| {
            _mm256_mullo_epi32(
                fsx,
                _mm256_set_epi32(k + 4, k + 4, k + 4, k + 4, k, k, k, k),
            )
        });
        let fstep8 = _mm256_slli_epi32(fsx, 3);
        let fcol = t.fog.map_or([0; 4], |f| f.color);
        let fc = both(&fcol);
        // Monomorphised: without fog no fog register is live in the loop.
        let fog_on = FOG && t.fog.is_some();
        let mut k = Depth8 {
            zref: _mm256_set1_ps(t.z[0]),
            dzdx: _mm256_set1_ps(t.z[1]),
            zy: _mm256_setzero_ps(),
            zero: _mm256_setzero_ps(),
            one: _mm256_set1_ps(1.0),
            scale: _mm256_set1_ps(16_777_215.0),
            low8: _mm256_set1_epi32(0xFF),
            write: _mm256_set1_epi32(if t.write { -1 } else { 0 }),
            lane: _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0),
            andm: _mm256_set1_epi32(t.and_mask as i32),
            func: t.func,
        };
        let mut passed = 0;
        for sp in spans {
            let Some((cr, dr, _, p)) = span_setup(b, sp, t) else {
                continue;
            };
            let (Some(color), Some(depth)) = (b.color.get_mut(cr), b.depth.get_mut(dr)) else {
                continue;
            };
            let n = (sp.n as usize).min(color.len() / 4).min(depth.len() / 4);
            let n8 = n / 8;
            let start = _mm256_add_epi32(
                _mm256_add_epi32(base, _mm256_mullo_epi32(_mm256_set1_epi32(sp.x - t.rx), sx)),
                _mm256_mullo_epi32(_mm256_set1_epi32(sp.y - t.ry), sy),
            );
            let mut r = lofs.map(|l| _mm256_add_epi32(start, l));
            let mut fr = [_mm256_setzero_si256(); 4];
            if fog_on {
                let fstart = _mm256_add_epi32(
                    _mm256_add_epi32(
                        fbase,
                        _mm256_mullo_epi32(_mm256_set1_epi32(sp.x - t.rx), fsx),
                    ),
                    _mm256_mullo_epi32(_mm256_set1_epi32(sp.y - t.ry), fsy),
                );
                for (f, l) in fr.iter_mut().zip(flofs) {
                    *f = _mm256_add_epi32(fstart, l);
                }
            }
            k.zy = _mm256_set1_ps(p.zy);
            let (cbody, ctail) = color.split_at_mut(n8 * 32);
            let (dbody, dtail) = depth.split_at_mut(n8 * 32);
            for (i, (c, d)) in cbody
                .chunks_exact_mut(32)
                .zip(dbody.chunks_exact_mut(32))
                .enumerate()
            {
                let x = p.fx0.wrapping_add((i * 8) as i32);
                // SAFETY: `c` and `d` are exactly 32 bytes each; AVX2 and
                // POPCNT are enabled in this function.
                passed += unsafe {
                    depth8::<false>(
                        &k,
                        &r,
                        x,
                        c.as_mut_ptr(),
                        d.as_mut_ptr(),
                        _mm256_set1_epi32(-1),
                        fog_on.then_some((&fr, fc)),
                    )
                };
                for rk in r.iter_mut() {
                    *rk = _mm256_add_epi32(*rk, step8);
                }
                if fog_on {
                    for fk in fr.iter_mut() {
                        *fk = _mm256_add_epi32(*fk, fstep8);
                    }
                }
            }
            let rem = n - n8 * 8;
            if rem > 0 {
                let x = p.fx0.wrapping_add((n8 * 8) as i32);
                let mask = tail_mask(rem);
                passed += if ctail.len() >= 32 && dtail.len() >= 32 {
                    // SAFETY: both tails hold at least 32 bytes; lanes ≥ rem
                    // are outside `pass` and are stored back unchanged.
                    unsafe {
                        depth8::<false>(
                            &k,
                            &r,
                            x,
                            ctail.as_mut_ptr(),
                            dtail.as_mut_ptr(),
                            mask,
                            fog_on.then_some((&fr, fc)),
                        )
                    }
                } else {
                    // SAFETY: lanes < rem are inside both tails; masked
                    // loads/stores do not touch masked-off lanes.
                    unsafe {
                        depth8::<true>(
                            &k,
                            &r,
                            x,
                            ctail.as_mut_ptr(),
                            dtail.as_mut_ptr(),
                            mask,
                            fog_on.then_some((&fr, fc)),
                        )
                    }
                };
            }
        }
        passed
    }

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

    /// `cmp_avx2` with the function fixed at compile time (`F` is the
    /// D3DCMPFUNC number; see `small_tri_dispatch`).
    #[inline(always)]
    unsafe fn cmp_const<const F: u8>(new: __m256i, old: __m256i) -> __m256i {
        let func = match F {
            1 => CmpFunc::Never,
            2 => CmpFunc::Less,
            3 => CmpFunc::Equal,
            4 => CmpFunc::LessEqual,
            5 => CmpFunc::Greater,
            6 => CmpFunc::NotEqual,
            7 => CmpFunc::GreaterEqual,
            _ => CmpFunc::Always,
        };
        // SAFETY: register-only AVX2 operations (callers enable AVX2).
        unsafe { cmp_avx2(func, new, old) }
    }

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
    /// that passed.
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
    ) -> u32 {
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
            (_mm256_movemask_ps(_mm256_castsi256_ps(pass)) as u32).count_ones()
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
    pub(super) unsafe fn small_tri_avx2<const F: u8>(b: &mut BandRows<'_>, s: &SmallTri) -> u32 {
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
        let mut passed = 0;
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
                passed += small8::<F>(&regs, &e, colmask0, zx0, zy, &r, c, d);
                if two {
                    let e1 = [0, 1, 2].map(|i| _mm256_add_epi32(e[i], e8[i]));
                    let r1 = r.map(|x| _mm256_add_epi32(x, step8));
                    passed += small8::<F>(&regs, &e1, colmask1, zx1, zy, &r1, c.add(32), d.add(32));
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
        passed
    }

    /// Loop-invariant registers of the AVX2 depth kernel.
    struct Depth8 {
        zref: __m256,
        dzdx: __m256,
        zy: __m256,
        zero: __m256,
        one: __m256,
        scale: __m256,
        low8: __m256i,
        write: __m256i,
        lane: __m256i,
        andm: __m256i,
        func: CmpFunc,
    }

    /// One 8-pixel step of the AVX2 depth kernel; returns the number of
    /// lanes (within `mask`) that passed.
    ///
    /// # Safety
    /// AVX2 must be available; `c` and `d` must be valid for reads and
    /// writes of 32 bytes (`MASKED` false) or of the lanes selected by
    /// `mask` (`MASKED` true). Lanes outside `mask` never pass, so a full
    /// store writes their old values back.
    #[inline(always)]
    unsafe fn depth8<const MASKED: bool>(
        k: &Depth8,
        r: &[__m256i; 4],
        x: i32,
        c: *mut u8,
        d: *mut u8,
        mask: __m256i,
        fog: Option<(&[__m256i; 4], __m256i)>,
    ) -> u32 {
        // SAFETY: the caller guarantees AVX2 and the validity of `c` and
        // `d` for the selected lanes.
        unsafe {
            let fx = _mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_set1_epi32(x), k.lane));
            let z = _mm256_add_ps(_mm256_add_ps(k.zref, _mm256_mul_ps(k.dzdx, fx)), k.zy);
            let z = _mm256_min_ps(_mm256_max_ps(z, k.zero), k.one);
            let zq = _mm256_cvtps_epi32(_mm256_mul_ps(z, k.scale));
            let (old_raw, old_c) = if MASKED {
                (
                    _mm256_maskload_epi32(d.cast_const().cast(), mask),
                    _mm256_maskload_epi32(c.cast_const().cast(), mask),
                )
            } else {
                (
                    _mm256_loadu_si256(d.cast_const().cast()),
                    _mm256_loadu_si256(c.cast_const().cast()),
                )
            };
            let old = _mm256_srli_epi32(old_raw, 8);
            let pass = _mm256_and_si256(cmp_avx2(k.func, zq, old), mask);
            let new_d =
                _mm256_or_si256(_mm256_slli_epi32(zq, 8), _mm256_and_si256(old_raw, k.low8));
            let wmask = _mm256_and_si256(pass, k.write);
            let col = match fog {
                None => _mm256_and_si256(pack8(r), k.andm),
                Some((fr, fc)) => {
                    // c·f + fc·(255 − f), rounded /255, per colour lane;
                    // alpha lanes (3 of each pixel) keep c. Same as
                    // `fog8` of the scalar twin.
                    let z = _mm256_setzero_si256();
                    let c255 = _mm256_set1_epi32(255);
                    let mut o = [z; 4];
                    for i in 0..4 {
                        let cv = _mm256_min_epi32(
                            _mm256_max_epi32(_mm256_srai_epi32(r[i], 16), z),
                            c255,
                        );
                        let fv = _mm256_min_epi32(
                            _mm256_max_epi32(_mm256_srai_epi32(fr[i], 16), z),
                            c255,
                        );
                        let f = _mm256_shuffle_epi32::<0xFF>(fv);
                        let x = _mm256_add_epi32(
                            _mm256_mullo_epi32(cv, f),
                            _mm256_mullo_epi32(fc, _mm256_sub_epi32(c255, f)),
                        );
                        let fogged = _mm256_srli_epi32(
                            _mm256_mullo_epi32(
                                _mm256_add_epi32(x, _mm256_set1_epi32(127)),
                                _mm256_set1_epi32(0x8081),
                            ),
                            23,
                        );
                        o[i] = _mm256_blend_epi32::<0b1000_1000>(fogged, cv);
                    }
                    let a = _mm256_packs_epi32(o[0], o[1]);
                    let b = _mm256_packs_epi32(o[2], o[3]);
                    _mm256_and_si256(_mm256_packus_epi16(a, b), k.andm)
                }
            };
            let out_d = _mm256_blendv_epi8(old_raw, new_d, wmask);
            let out_c = _mm256_blendv_epi8(old_c, col, pass);
            if MASKED {
                _mm256_maskstore_epi32(d.cast(), mask, out_d);
                _mm256_maskstore_epi32(c.cast(), mask, out_c);
            } else {
                _mm256_storeu_si256(d.cast(), out_d);
                _mm256_storeu_si256(c.cast(), out_c);
            }
            (_mm256_movemask_ps(_mm256_castsi256_ps(pass)) as u32).count_ones()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const LEVELS: [SimdLevel; 3] = [SimdLevel::Sse2, SimdLevel::Sse41, SimdLevel::Avx2];

    fn funcs() -> impl Strategy<Value = CmpFunc> {
        (1u32..=8).prop_map(|v| CmpFunc::from_d3d(v).unwrap_or(CmpFunc::Always))
    }

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

        #[test]
        fn depth24_span_matches_scalar(
            n in 0usize..40,
            extra in 0usize..12,
            start in proptest::array::uniform4(-0x100_0000i32..0x1100_0000),
            step in proptest::array::uniform4(-0x8_0000i32..0x8_0000),
            zref in -0.5f32..1.5,
            dzdx in -0.1f32..0.1,
            zy in -0.5f32..0.5,
            fx0 in -100i32..100,
            func in funcs(),
            write in any::<bool>(),
            seed in any::<u64>(),
        ) {
            // The slices extend `extra` pixels past the span; those bytes
            // must come out unchanged.
            let p = Depth24Params { zref, dzdx, zy, fx0, func, write, fog: None };
            let len = (n + extra) * 4;
            let mut s = seed;
            let mut depth0 = vec![0u8; len];
            for b in depth0.iter_mut() {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                *b = (s >> 56) as u8;
            }
            let mut want_c = vec![7u8; len];
            let mut want_d = depth0.clone();
            let want_n =
                gouraud_depth24_span_scalar(&mut want_c, &mut want_d, n, start, step, u32::MAX, &p);
            prop_assert!(want_c[n * 4..].iter().all(|&b| b == 7));
            prop_assert_eq!(&want_d[n * 4..], &depth0[n * 4..]);
            for level in LEVELS {
                let level = level.clamp_to_cpu();
                let mut c = vec![7u8; len];
                let mut d = depth0.clone();
                let got_n = gouraud_depth24_span(level, &mut c, &mut d, n, start, step, u32::MAX, &p);
                prop_assert_eq!(got_n, want_n);
                prop_assert_eq!(&c, &want_c);
                prop_assert_eq!(&d, &want_d);
            }
        }

        #[test]
        fn depth24_spans_match_scalar(
            rows in proptest::collection::vec((0i32..16, 0i32..20, 1u32..13), 0..12),
            diffuse in proptest::array::uniform3(proptest::array::uniform4(-0x40_0000i32..0x40_0000)),
            z in proptest::array::uniform3(-0.2f32..1.2),
            func in funcs(),
            write in any::<bool>(),
            seed in any::<u64>(),
            fogp in proptest::option::of(proptest::array::uniform3(-0x40_0000i32..0x140_0000)),
        ) {
            // A band of 16 rows × 32 pixels; spans may reach the band end.
            let (w, h) = (32usize, 16usize);
            let spans: Vec<Span> = rows
                .iter()
                .map(|&(y, x, n)| Span { y, x, n: n.min((w as i32 - x) as u32).max(1) })
                .collect();
            let fog = fogp.map(|plane| FogFixed { plane, color: [0xB3, 0x99, 0x80, 0] });
            let t = TriDepth24 { diffuse, z, rx: 3, ry: -2, func, write, and_mask: u32::MAX, fog };
            let mut s = seed;
            let mut depth0 = vec![0u8; w * h * 4];
            for b in depth0.iter_mut() {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                *b = (s >> 56) as u8;
            }
            let mut want_c = vec![9u8; w * h * 4];
            let mut want_d = depth0.clone();
            let want_n = {
                let mut b = BandRows { color: &mut want_c, color_pitch: w * 4, depth: &mut want_d, depth_pitch: w * 4, y0: 0 };
                gouraud_depth24_spans_scalar(&mut b, &spans, &t)
            };
            for level in LEVELS {
                let level = level.clamp_to_cpu();
                let mut c = vec![9u8; w * h * 4];
                let mut d = depth0.clone();
                let got_n = {
                    let mut b = BandRows { color: &mut c, color_pitch: w * 4, depth: &mut d, depth_pitch: w * 4, y0: 0 };
                    gouraud_depth24_spans(level, &mut b, &spans, &t)
                };
                prop_assert_eq!(got_n, want_n);
                prop_assert_eq!(&c, &want_c);
                prop_assert_eq!(&d, &want_d);
            }
        }
    }

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

    #[test]
    fn div255_is_rounded_division() {
        for x in 0..=255 * 255 {
            assert_eq!(div255(x), (x + 127) / 255, "x = {x}");
        }
    }

    /// Texture bytes, level description and A8/X8 format from a seed.
    fn tex_level(
        w: u32,
        h: u32,
        pad: usize,
        x8: bool,
        seed: u64,
    ) -> (
        Vec<u8>,
        crate::texture::LevelInfo,
        crate::texture::TextureFormat,
    ) {
        let pitch = w as usize * 4 + pad * 4;
        let mut s = seed;
        let bytes = (0..pitch * h as usize - pad * 4)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (s >> 56) as u8
            })
            .collect();
        let info = crate::texture::LevelInfo {
            width: w,
            height: h,
            depth: 1,
            row_pitch: pitch,
            slice_pitch: pitch * h as usize,
        };
        let f = if x8 {
            crate::texture::TextureFormat::X8R8G8B8
        } else {
            crate::texture::TextureFormat::A8R8G8B8
        };
        (bytes, info, f)
    }

    proptest! {
        #[test]
        fn tex_modulate_matches_scalar(
            w in 1u32..10,
            h in 1u32..10,
            pad in 0usize..3,
            x8 in any::<bool>(),
            seed in any::<u64>(),
            n in 0usize..40,
            u in proptest::array::uniform3(-3.0f32..3.0),
            v in proptest::array::uniform3(-3.0f32..3.0),
            v_const in any::<bool>(),
            inv in 0.25f32..2.0,
            fx0 in -50i32..50,
            start in proptest::array::uniform4(-0x40_0000i32..0x140_0000),
            step in proptest::array::uniform4(-0x4_0000i32..0x4_0000),
            blend in any::<bool>(),
            xmask in any::<bool>(),
            unit in any::<bool>(),
        ) {
            // `unit`: one texel per pixel along a wider texture, so that
            // the contiguous-load path of the AVX2 kernel runs.
            let (w, inv) = if unit { (w + 12, 1.0) } else { (w, inv) };
            let (bytes, info, format) = tex_level(w, h, pad, x8, seed);
            let level = crate::texture::LevelRef { format, info, data: &bytes, palette: None };
            let v = if v_const { [v[0], 0.0, v[2]] } else { v };
            let du = if unit { 1.0 / w as f32 } else { u[1] * 0.1 };
            let p = TexSpan {
                u: [u[0], du, u[2]],
                v: [v[0], v[1] * 0.1, v[2]],
                inv,
                fx0,
                start,
                step,
                and_mask: if xmask { 0x00FF_FFFF } else { u32::MAX },
                blend,
            };
            let dst0: Vec<u8> = (0..n * 4).map(|i| (i * 37 % 251) as u8).collect();
            let mut want = dst0.clone();
            tex_modulate_span_scalar(&mut want, &level, &p);
            for lv in LEVELS {
                let mut got = dst0.clone();
                tex_modulate_span(lv.clamp_to_cpu(), &mut got, &level, &p);
                prop_assert_eq!(&got, &want);
            }
        }

        #[test]
        fn bilinear8_within_one_of_texture_fast(
            w in 1u32..10,
            h in 1u32..10,
            seed in any::<u64>(),
            u in -3.0f32..3.0,
            v in -3.0f32..3.0,
        ) {
            let (bytes, info, format) = tex_level(w, h, 0, false, seed);
            let level = crate::texture::LevelRef { format, info, data: &bytes, palette: None };
            let a = bilinear8(&level, u, v, 0).to_le_bytes();
            let b = crate::texture::fast::bilinear_wrap_argb8(&level, u, v).unwrap_or(0).to_le_bytes();
            for k in 0..4 {
                prop_assert!((i32::from(a[k]) - i32::from(b[k])).abs() <= 1, "{:?} vs {:?}", a, b);
            }
        }
    }
}
