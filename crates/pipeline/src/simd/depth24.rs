//! Gouraud spans with a 24-bit depth test (depth in bits 31..8 of a D24S8,
//! D24X8 or D24X4S4 buffer; the low byte is kept), optionally with fog
//! fused from the specular alpha.
//!
//! *Input*: the colour and depth bytes of one span ([`gouraud_depth24_span`])
//! or of a band of rows with all spans of one triangle
//! ([`gouraud_depth24_spans`]), colour and depth planes, the depth
//! function. *Output*: written pixels and depths, the number of pixels
//! that passed. *Guarantees*: the SSE2, SSE4.1 and AVX2 bodies write
//! exactly the bytes of the scalar twins; bytes past a span that a vector
//! may touch are stored back unchanged.
use super::{clamp8, color_at, div255, pack_pixel, z24, BandRows, SimdLevel};
use crate::state::CmpFunc;

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

/// Fogs one 8-bit channel: `round((c·f + fc·(255 − f)) / 255)`.
#[inline(always)]
fn fog8(c: i32, f: i32, fc: i32) -> i32 {
    div255(c * f + fc * (255 - f))
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
                use super::by_cmp_func;
                // SAFETY: AVX2 was detected (see `gouraud_span`).
                return unsafe {
                    by_cmp_func!(
                        p.func,
                        x86::depth24_avx2,
                        [],
                        (color, depth, n, start, step, and_mask, p)
                    )
                };
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
        use super::by_cmp_func;
        // SAFETY: `level` is Avx2 only when AVX2 and POPCNT were detected.
        return unsafe {
            if t.fog.is_some() {
                by_cmp_func!(t.func, x86::depth24_spans_avx2, [true], (b, spans, t))
            } else {
                by_cmp_func!(t.func, x86::depth24_spans_avx2, [false], (b, spans, t))
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

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! x86_64 bodies: only store through `chunks_exact_mut` chunks of the
    //! exact store width, through masked stores of the lanes inside a
    //! span, or back the unchanged bytes of lanes past it.
    use super::super::x86::{cmp_const, load4, pack4, pack8, tail_mask};
    use super::super::{color_at, BandRows};
    use super::{gouraud_depth24_span_scalar, span_setup, Depth24Params, Span, TriDepth24};
    use crate::state::CmpFunc;
    use std::arch::x86_64::*;

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

    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn depth24_avx2<const F: u8>(
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
        unsafe { depth24_avx2_body::<F>(color, depth, n, start, step, and_mask, p) }
    }

    /// Body of the AVX2 depth kernel, inlined into its AVX2 callers.
    ///
    /// # Safety
    /// AVX2 and POPCNT must be available.
    #[inline(always)]
    unsafe fn depth24_avx2_body<const F: u8>(
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
                depth8::<false, F>(
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
                // SAFETY: a register-only AVX2 operation; this function's
                // contract requires AVX2.
                *rk = unsafe { _mm256_add_epi32(*rk, step8) };
            }
        }
        let rem = n - n8 * 8;
        if rem > 0 {
            let x = p.fx0.wrapping_add((n8 * 8) as i32);
            // SAFETY: register-only AVX2 operations; this function's
            // contract requires AVX2.
            let mask = unsafe { tail_mask(rem) };
            passed += if ctail.len() >= 32 && dtail.len() >= 32 {
                // SAFETY: both tails hold at least 32 bytes, so full-width
                // loads and stores are in bounds; lanes ≥ rem are outside
                // `pass` and are stored back unchanged.
                unsafe {
                    depth8::<false, F>(
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
                    depth8::<true, F>(
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
    pub(super) unsafe fn depth24_spans_avx2<const FOG: bool, const F: u8>(
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
                    depth8::<false, F>(
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
                // SAFETY: register-only AVX2 operations; AVX2 is enabled in
                // this function.
                let mask = unsafe { tail_mask(rem) };
                passed += if ctail.len() >= 32 && dtail.len() >= 32 {
                    // SAFETY: both tails hold at least 32 bytes; lanes ≥ rem
                    // are outside `pass` and are stored back unchanged.
                    unsafe {
                        depth8::<false, F>(
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
                        depth8::<true, F>(
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
    unsafe fn depth8<const MASKED: bool, const F: u8>(
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
            let pass = _mm256_and_si256(cmp_const::<F>(zq, old), mask);
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
    use super::super::tests::{funcs, LEVELS};
    use super::*;
    use proptest::prelude::*;

    proptest! {
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
}
