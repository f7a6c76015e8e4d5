//! The textured span kernel: stage 0 MODULATE(TEXTURE, DIFFUSE) of a
//! bilinear, WRAP-addressed A8R8G8B8/X8R8G8B8 level with an 8-bit
//! fixed-point separable filter, optionally blended SRCALPHA/INVSRCALPHA;
//! and the same filter for the four lanes of a pixel-shader quad.
//!
//! *Input*: the destination bytes of a span, the texture level, the
//! span's texture-coordinate and diffuse planes ([`TexSpan`]); or a level
//! and four lanes' (u, v) ([`bilinear8_planes`]). *Output*: the written
//! pixels; or the four lanes' RGBA in [0, 1] as component planes.
//! *Guarantees*: the AVX2 bodies give exactly the results of the scalar
//! twins [`tex_modulate_span_scalar`] and [`bilinear8_planes_scalar`];
//! texels are read only inside the level (`tex_level_ok`).
use super::{clamp8, color_at, div255, SimdLevel};

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
///
/// Inlined into its caller: called once per span (W3 draws 2.6 million
/// 64-pixel spans a frame), an outlined dispatch cost 44 instructions a
/// span where the inlined one costs 7 (callgrind, W3: +3 % of the
/// workload's instructions).
#[inline(always)]
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

/// Scalar twin of [`bilinear8_planes`]: [`bilinear8`] per lane, each
/// channel as `byte / 255`.
pub(crate) fn bilinear8_planes_scalar(
    level: &crate::texture::LevelRef<'_>,
    u: [f32; 4],
    v: [f32; 4],
    force: u32,
) -> [[f32; 4]; 4] {
    let mut out = [[0.0; 4]; 4];
    for l in 0..4 {
        let [b, g, r, a] = bilinear8(level, u[l], v[l], force).to_le_bytes();
        for (plane, x) in out.iter_mut().zip([r, g, b, a]) {
            plane[l] = f32::from(x) / 255.0;
        }
    }
    out
}

/// [`bilinear8`] of four lanes (a pixel-shader quad) at `(u[l], v[l])`,
/// with `force` ORed into every texel: planes R, G, B, A of the lanes,
/// each channel `byte / 255`.
pub(crate) fn bilinear8_planes(
    level_simd: SimdLevel,
    level: &crate::texture::LevelRef<'_>,
    u: [f32; 4],
    v: [f32; 4],
    force: u32,
) -> [[f32; 4]; 4] {
    #[cfg(target_arch = "x86_64")]
    if level_simd == SimdLevel::Avx2 && x86::tex_level_ok(level) {
        // SAFETY: Avx2 is only selected when AVX2 was detected; the level
        // passed the bounds check of `tex_level_ok`.
        return unsafe { x86::bilinear8_planes_avx2(level, u, v, force) };
    }
    let _ = level_simd;
    bilinear8_planes_scalar(level, u, v, force)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! x86_64 body (AVX2): masked loads and stores of the lanes inside the
    //! span; texel gathers only inside the level.
    use super::super::x86::load4;
    use super::TexSpan;
    use std::arch::x86_64::*;

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

    /// [`wrap8`] of four lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn wrap4(c: __m128, size: i32) -> (__m128i, __m128i, __m128i) {
        let scale = _mm_set1_ps(size as f32 * 256.0);
        let fr = _mm_sub_ps(c, _mm_floor_ps(c));
        // Non-finite input → NaN fraction → 0, like the scalar twin.
        let fr = _mm_and_ps(fr, _mm_cmpord_ps(fr, fr));
        let q = _mm_sub_epi32(
            _mm_cvttps_epi32(_mm_floor_ps(_mm_mul_ps(fr, scale))),
            _mm_set1_epi32(128),
        );
        let i = _mm_srai_epi32(q, 8);
        let f = _mm_and_si128(q, _mm_set1_epi32(255));
        let s = _mm_set1_epi32(size);
        let ge = _mm_cmpgt_epi32(i, _mm_set1_epi32(size - 1));
        let i0 = _mm_blendv_epi8(i, _mm_sub_epi32(i, s), ge);
        let neg = _mm_cmpgt_epi32(_mm_setzero_si128(), i);
        let i0 = _mm_blendv_epi8(i0, _mm_set1_epi32(size - 1), neg);
        let i1 = _mm_add_epi32(i0, _mm_set1_epi32(1));
        let i1 = _mm_andnot_si128(_mm_cmpeq_epi32(i1, s), i1);
        (i0, i1, f)
    }

    /// `lerp8` of four 32-bit lanes: `((a << 8) + b·f − a·f + 128) >> 8`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn lerp4(a: __m128i, b: __m128i, f: __m128i) -> __m128i {
        let h = _mm_sub_epi32(
            _mm_add_epi32(_mm_slli_epi32(a, 8), _mm_mullo_epi32(b, f)),
            _mm_mullo_epi32(a, f),
        );
        _mm_srli_epi32(_mm_add_epi32(h, _mm_set1_epi32(128)), 8)
    }

    /// AVX2 twin of `bilinear8_planes_scalar`: the four lanes' texels
    /// gathered, filtered per channel in 32-bit lanes.
    ///
    /// # Safety
    /// AVX2 must be available and `tex_level_ok(level)` must hold.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn bilinear8_planes_avx2(
        level: &crate::texture::LevelRef<'_>,
        u: [f32; 4],
        v: [f32; 4],
        force: u32,
    ) -> [[f32; 4]; 4] {
        let info = &level.info;
        let (w, h) = (info.width as i32, info.height as i32);
        let pitch4 = _mm_set1_epi32((info.row_pitch / 4) as i32);
        // SAFETY: `u` and `v` are 16 readable bytes each.
        let (u, v) = unsafe { (_mm_loadu_ps(u.as_ptr()), _mm_loadu_ps(v.as_ptr())) };
        let (x0, x1, fx) = wrap4(u, w);
        let (y0, y1, fy) = wrap4(v, h);
        let (r0, r1) = (_mm_mullo_epi32(y0, pitch4), _mm_mullo_epi32(y1, pitch4));
        let base = level.data.as_ptr().cast::<i32>();
        let forcev = _mm_set1_epi32(force as i32);
        // SAFETY: x < width and y < height (wrap4), so every index is a
        // texel inside the level's bytes (`tex_level_ok`), below i32::MAX.
        let t = unsafe {
            [
                _mm_i32gather_epi32::<4>(base, _mm_add_epi32(r0, x0)),
                _mm_i32gather_epi32::<4>(base, _mm_add_epi32(r0, x1)),
                _mm_i32gather_epi32::<4>(base, _mm_add_epi32(r1, x0)),
                _mm_i32gather_epi32::<4>(base, _mm_add_epi32(r1, x1)),
            ]
        }
        .map(|x| _mm_or_si128(x, forcev));
        let byte = _mm_set1_epi32(0xFF);
        let inv = _mm_set1_ps(255.0);
        let channel = |c: [__m128i; 4]| {
            let c = c.map(|x| _mm_and_si128(x, byte));
            let h0 = lerp4(c[0], c[1], fx);
            let h1 = lerp4(c[2], c[3], fx);
            let mut o = [0.0f32; 4];
            let q = _mm_div_ps(_mm_cvtepi32_ps(lerp4(h0, h1, fy)), inv);
            // SAFETY: `o` is 16 writable bytes.
            unsafe { _mm_storeu_ps(o.as_mut_ptr(), q) };
            o
        };
        // BGRA in memory: B bits 0..8, G 8..16, R 16..24, A 24..32.
        let r = channel(t.map(|x| _mm_srli_epi32(x, 16)));
        let g = channel(t.map(|x| _mm_srli_epi32(x, 8)));
        let b = channel(t);
        let a = channel(t.map(|x| _mm_srli_epi32(x, 24)));
        [r, g, b, a]
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
                // Closures called twice rather than `array::map`, which
                // LLVM does not always inline here (`pixel::fixed_start`).
                let pairs: [[__m256i; 2]; 2] = if wraps == 0 {
                    let gather = |ix: __m256i| {
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
                        let [g0, g1] = unsafe {
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
                        };
                        [_mm256_or_si256(g0, forcev), _mm256_or_si256(g1, forcev)]
                    };
                    [gather(idx[0]), gather(idx[1])]
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
                    let row = |rw: &[i32; 8]| {
                        [
                            _mm256_set_epi64x(pair(rw, 5), pair(rw, 4), pair(rw, 1), pair(rw, 0)),
                            _mm256_set_epi64x(pair(rw, 7), pair(rw, 6), pair(rw, 3), pair(rw, 2)),
                        ]
                    };
                    [row(&ri[0]), row(&ri[1])]
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
            let clamp = |x: __m256i| _mm256_min_epi16(_mm256_max_epi16(x, zero), c255);
            let d16 = [
                clamp(_mm256_packs_epi32(
                    _mm256_srai_epi32(r[0], 16),
                    _mm256_srai_epi32(r[1], 16),
                )),
                clamp(_mm256_packs_epi32(
                    _mm256_srai_epi32(r[2], 16),
                    _mm256_srai_epi32(r[3], 16),
                )),
            ];
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
}

#[cfg(test)]
mod tests {
    use super::super::tests::LEVELS;
    use super::*;
    use proptest::prelude::*;

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
        fn bilinear8_planes_matches_scalar(
            w in 1u32..10,
            h in 1u32..10,
            pad in 0usize..3,
            x8 in any::<bool>(),
            seed in any::<u64>(),
            u in proptest::array::uniform4(-3.0f32..3.0),
            v in proptest::array::uniform4(-3.0f32..3.0),
            odd in 0usize..4,
        ) {
            let (bytes, info, format) = tex_level(w, h, pad, x8, seed);
            let level = crate::texture::LevelRef { format, info, data: &bytes, palette: None };
            // Non-finite coordinates wrap to 0 in both.
            let mut u = u;
            u[odd] = [f32::NAN, f32::INFINITY, -0.0, 1.0][odd];
            let force = if x8 { 0xFF00_0000 } else { 0 };
            let want = bilinear8_planes_scalar(&level, u, v, force);
            for lv in LEVELS {
                let got = bilinear8_planes(lv.clamp_to_cpu(), &level, u, v, force);
                prop_assert_eq!(got.map(|p| p.map(f32::to_bits)), want.map(|p| p.map(f32::to_bits)));
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
