//! The textured span kernel: stage 0 MODULATE(TEXTURE, DIFFUSE) of a
//! bilinear, WRAP-addressed A8R8G8B8/X8R8G8B8 level with an 8-bit
//! fixed-point separable filter, optionally blended SRCALPHA/INVSRCALPHA;
//! and the same filter for the four lanes of a pixel-shader quad, or the
//! eight lanes of two.
//!
//! *Input*: the destination bytes of a span, the texture level, the
//! span's texture-coordinate and diffuse planes ([`TexSpan`]); or a level
//! and four or eight lanes' (u, v) ([`bilinear8_planes`],
//! [`bilinear8_planes8`]). *Output*: the written pixels; or the lanes'
//! RGBA in [0, 1] as component planes.
//! *Guarantees*: the kernels are written once over the vector layer
//! ([`super::wide`]) and instantiated at every level; for a level that
//! passes `tex_level_ok` they give exactly the results of the
//! pixel-at-a-time twins [`tex_modulate_span_scalar`],
//! [`bilinear8_planes_scalar`] and [`bilinear8_planes8_scalar`] (which
//! take every other level), compared
//! at every level by the proptests; texels are read only inside the
//! level's bytes (the layer's gather clamps each index to them).
#![forbid(unsafe_code)]
use super::wide::{F32x8, I32x8, Kernel, M32x8, Simd};
use super::{clamp8, color_at, div255, div255_u16, SimdLevel};

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

/// The four channels of a packed texel, one per 16-bit field:
/// `0x00AA_00RR_00GG_00BB`.
#[inline(always)]
fn spread(x: u32) -> u64 {
    let x = u64::from(x);
    (x & 0xFF) | (x & 0xFF00) << 8 | (x & 0xFF_0000) << 16 | (x & 0xFF00_0000) << 24
}

/// The separable 8-bit bilinear filter of the fast path on all four
/// channels at once ([`spread`] fields): per channel `h = (a·(256 − f) +
/// b·f + 128) >> 8` (`f` < 256), which stays below 65 408, so no field
/// carries into the next.
#[inline(always)]
fn lerp8(a: u64, b: u64, f: u32) -> u64 {
    let f = u64::from(f);
    ((a * (256 - f) + b * f + 0x0080_0080_0080_0080) >> 8) & 0x00FF_00FF_00FF_00FF
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
    let h0 = lerp8(spread(t[0]), spread(t[1]), fx);
    let h1 = lerp8(spread(t[2]), spread(t[3]), fx);
    let o = lerp8(h0, h1, fy);
    (o & 0xFF | (o >> 8) & 0xFF00 | (o >> 16) & 0xFF_0000 | (o >> 24) & 0xFF00_0000) as u32
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
/// as the generic blend), ANDed with the mask. The kernel ([`TexModulate`],
/// over the vector layer) runs at every level for a level that passes
/// [`tex_level_ok`]; any other level takes the scalar twin.
///
/// Inlined into its caller: called once per span (W3 draws 2.6 million
/// 64-pixel spans a frame), an outlined dispatch cost 44 instructions a
/// span where the inlined one costs 7 (callgrind, W3: +3 % of the
/// workload's instructions).
#[inline(always)]
pub(crate) fn tex_modulate_span(
    level_simd: SimdLevel,
    dst: &mut [u8],
    level: &TexLevel<'_>,
    p: &TexSpan,
) {
    let (vector, level) = (level.vector, &level.level);
    if !vector {
        tex_modulate_span_scalar(dst, level, p);
        return;
    }
    let plain = level.format != crate::texture::TextureFormat::X8R8G8B8 && p.and_mask == u32::MAX;
    macro_rules! run {
        ($($b:literal, $v:literal, $q:literal);*) => {
            match (p.blend, p.v[1] == 0.0, plain) {
                $(($b, $v, $q) => level_simd.dispatch(TexModulate::<$b, $v, $q> { dst, level, p }),)*
            }
        };
    }
    run!(false, false, false; false, false, true; false, true, false; false, true, true;
         true, false, false; true, false, true; true, true, false; true, true, true)
}

/// A level for [`tex_modulate_span`], with [`tex_level_ok`] asked once
/// (per draw, not per span).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TexLevel<'a> {
    level: crate::texture::LevelRef<'a>,
    /// `tex_level_ok(&level)`.
    vector: bool,
}

impl<'a> TexLevel<'a> {
    /// `level`, checked for the vector kernel.
    pub(crate) fn new(level: crate::texture::LevelRef<'a>) -> Self {
        let vector = tex_level_ok(&level);
        TexLevel { level, vector }
    }
}

/// True if every texel index the vector kernels can form (x < width,
/// y < height) lies inside the level's bytes, and the level is a 32-bit
/// format with a whole number of texels per row: then their texel fetches
/// read what [`texel`] reads, and every index fits an i32.
pub(crate) fn tex_level_ok(level: &crate::texture::LevelRef<'_>) -> bool {
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

/// The arguments of [`tex_modulate_span`], blending when `BLEND`; `VROW`
/// when v is constant along the span (dv/dx = 0, e.g. screen-aligned
/// quads): `v0 + 0·fx` is `v0` for every lane, so the rows and the
/// vertical fraction are computed once; `PLAIN` when no alpha is forced
/// (not an X8R8G8B8 level) and the mask keeps every channel: two fewer
/// vector registers in the loop (W3 +8 %, W4 +2 % wall clock, measured
/// interleaved; the register pressure of the loop spills otherwise).
struct TexModulate<'a, 'b, 'c, const BLEND: bool, const VROW: bool, const PLAIN: bool> {
    dst: &'a mut [u8],
    level: &'b crate::texture::LevelRef<'c>,
    p: &'b TexSpan,
}

/// What every 8 pixels of a span share (set up once per span).
#[derive(Clone, Copy)]
struct Setup<'d, S: Simd> {
    /// The level as the filter reads it.
    filter: Filter<'d, S>,
    /// The u and v planes and `inv`, splatted.
    u: [S::F32x8; 3],
    v: [S::F32x8; 3],
    inv: S::F32x8,
    /// 255 in every u16 lane.
    c255: S::I32x8,
    zero: S::I32x8,
    and_mask: S::I32x8,
    /// With `VROW`: the span's rows.
    rows: Rows<'d, S>,
}

/// A level as the vector bilinear filter ([`Filter::sample`]) reads it:
/// its sizes, pitch and the bits ORed into its texels, splatted once (per
/// span of [`tex_modulate_span`], per triangle of `simd::cascade8`). For
/// a level that passes [`tex_level_ok`] the filter gives the bytes of
/// [`bilinear8`].
#[derive(Clone, Copy)]
pub(super) struct Filter<'d, S: Simd> {
    data: &'d [u8],
    /// Lane numbers 0..8.
    pub(super) lane: S::I32x8,
    /// Width and height × 256.
    ws: S::F32x8,
    hs: S::F32x8,
    w: i32,
    h: i32,
    /// Row pitch in texels.
    pitch4: S::I32x8,
    /// ORed into every texel (0xFF00_0000 for X8R8G8B8).
    force: S::I32x8,
    zero: S::I32x8,
}

/// With v constant along a span (`VROW`): its two rows (texel offsets),
/// their bytes (each `4 · width` long, or empty if outside the level) and
/// the vertical fraction, computed once per span by [`Filter::rows`].
#[derive(Clone, Copy)]
pub(super) struct Rows<'d, S: Simd> {
    vrow: (S::I32x8, S::I32x8, S::I32x8),
    rows: [&'d [u8]; 2],
}

impl<'d, S: Simd> Filter<'d, S> {
    /// The filter of `level`, `force` ORed into its texels.
    #[inline(always)]
    pub(super) fn new(s: S, level: &crate::texture::LevelRef<'d>, force: u32) -> Self {
        let info = &level.info;
        let (w, h) = (info.width as i32, info.height as i32);
        Filter {
            data: level.data,
            lane: s.i32x8([0, 1, 2, 3, 4, 5, 6, 7]),
            ws: s.splat_f32(w as f32 * 256.0),
            hs: s.splat_f32(h as f32 * 256.0),
            w,
            h,
            pitch4: s.splat_i32((info.row_pitch / 4) as i32),
            force: s.splat_i32(force as i32),
            zero: s.splat_i32(0),
        }
    }

    /// The [`Rows`] of a span along which v is `v` (every lane equal)
    /// when `VROW`; nothing (never read) otherwise.
    #[inline(always)]
    pub(super) fn rows<const VROW: bool>(&self, s: S, v: S::F32x8) -> Rows<'d, S> {
        if !VROW {
            let zero = self.zero;
            return Rows {
                vrow: (zero, zero, zero),
                rows: [&[][..], &[][..]],
            };
        }
        let (y0, fy) = wrap8(s, v, self.hs, self.h);
        let y1 = next8(s, y0, self.h);
        let (r0, r1) = (y0.mul(self.pitch4), y1.mul(self.pitch4));
        let len = 4 * self.w as usize;
        let (at0, at1) = (4 * r0.to_array()[0] as usize, 4 * r1.to_array()[0] as usize);
        let rows = [
            self.data.get(at0..at0 + len).unwrap_or_default(),
            self.data.get(at1..at1 + len).unwrap_or_default(),
        ];
        Rows {
            vrow: (r0, r1, fy),
            rows,
        }
    }

    /// [`bilinear8`] of 8 lanes at `(u, v)` (with `VROW`, v is the one of
    /// `rows` and the argument is not read), as u16 halves: "lo" = pixels
    /// 0, 1 | 4, 5 and "hi" = 2, 3 | 6, 7 (the arrangement of
    /// `widen_lo/hi_u8_u16` of 8 packed pixels), BGRA per pixel; `PLAIN` when the level forces no alpha (its force bits are 0, not ORed).
    #[inline(always)]
    pub(super) fn sample<const VROW: bool, const PLAIN: bool>(
        &self,
        s: S,
        rows: &Rows<'d, S>,
        u: S::F32x8,
        v: S::F32x8,
    ) -> [S::I32x8; 2] {
        let data = self.data;
        let (x0, fxf) = wrap8(s, u, self.ws, self.w);
        let (r0, r1, fy) = if VROW {
            rows.vrow
        } else {
            let (y0, fy) = wrap8(s, v, self.hs, self.h);
            (
                y0.mul(self.pitch4),
                next8(s, y0, self.h).mul(self.pitch4),
                fy,
            )
        };
        let (fx_lo, fx_hi) = (fxf.spread_lo_u16(), fxf.spread_hi_u16());
        let c128 = s.splat_i32(0x0080_0080);
        let force = self.force;
        // Magnification near 1:1 with v constant along the span: the 8
        // pixels read texels x00..x00 + 8 of the same two rows (no wrap:
        // x00 + 8 < width), two plain loads per row.
        let mut pair = None;
        if VROW {
            let x00 = x0.to_array()[0];
            if x0.simd_eq(s.splat_i32(x00) + self.lane).bitmask() == 0xFF {
                // 0 ≤ x00 < width (wrap8).
                if let (Some(a), Some(b)) = (
                    row9(rows.rows[0], x00 as usize),
                    row9(rows.rows[1], x00 as usize),
                ) {
                    pair = Some((a, b));
                }
            }
        }
        let h = match pair {
            Some(((a0, b0), (a1, b1))) => {
                let (a0, b0) = (
                    or_force::<PLAIN, _>(s.load_i32(a0), force),
                    or_force::<PLAIN, _>(s.load_i32(b0), force),
                );
                let (a1, b1) = (
                    or_force::<PLAIN, _>(s.load_i32(a1), force),
                    or_force::<PLAIN, _>(s.load_i32(b1), force),
                );
                [
                    [
                        lerp16(a0.widen_lo_u8_u16(), b0.widen_lo_u8_u16(), fx_lo, c128),
                        lerp16(a0.widen_hi_u8_u16(), b0.widen_hi_u8_u16(), fx_hi, c128),
                    ],
                    [
                        lerp16(a1.widen_lo_u8_u16(), b1.widen_lo_u8_u16(), fx_lo, c128),
                        lerp16(a1.widen_hi_u8_u16(), b1.widen_hi_u8_u16(), fx_hi, c128),
                    ],
                ]
            }
            None => {
                // Texels x0 and x1 of both rows; zipped, each half holds
                // the x0 texels of two pixels, then their x1 texels.
                let x1 = next8(s, x0, self.w);
                let t00 = or_force::<PLAIN, _>(s.gather_u32(data, r0 + x0), force);
                let t01 = or_force::<PLAIN, _>(s.gather_u32(data, r0 + x1), force);
                let t10 = or_force::<PLAIN, _>(s.gather_u32(data, r1 + x0), force);
                let t11 = or_force::<PLAIN, _>(s.gather_u32(data, r1 + x1), force);
                let (p0l, p0h) = (t00.zip_lo_i64(t01), t00.zip_hi_i64(t01));
                let (p1l, p1h) = (t10.zip_lo_i64(t11), t10.zip_hi_i64(t11));
                [
                    [
                        lerp16(p0l.widen_lo_u8_u16(), p0l.widen_hi_u8_u16(), fx_lo, c128),
                        lerp16(p0h.widen_lo_u8_u16(), p0h.widen_hi_u8_u16(), fx_hi, c128),
                    ],
                    [
                        lerp16(p1l.widen_lo_u8_u16(), p1l.widen_hi_u8_u16(), fx_lo, c128),
                        lerp16(p1h.widen_lo_u8_u16(), p1h.widen_hi_u8_u16(), fx_hi, c128),
                    ],
                ]
            }
        };
        [
            lerp16(h[0][0], h[1][0], fy.spread_lo_u16(), c128),
            lerp16(h[0][1], h[1][1], fy.spread_hi_u16(), c128),
        ]
    }
}

impl<const BLEND: bool, const VROW: bool, const PLAIN: bool> Kernel
    for TexModulate<'_, '_, '_, BLEND, VROW, PLAIN>
{
    type Output = ();

    /// Whole 32-byte chunks, then the whole pixels of the tail; diffuse
    /// vector k holds pixel i+k (BGRA) in its low half and pixel i+k+4 in
    /// its high half (as `simd::blend`).
    #[inline(always)]
    fn run<S: Simd>(self, s: S) {
        let TexModulate { dst, level, p } = self;
        let st = setup::<VROW, S>(s, level, p);
        let step2 = s.repeat4_i32(p.step);
        let high = s.i32x8([0, 0, 0, 0, -1, -1, -1, -1]);
        let d0 = s.repeat4_i32(p.start) + (step2.shl::<2>() & high);
        let d1 = d0 + step2;
        let d2 = d1 + step2;
        let mut d = [d0, d1, d2, d2 + step2];
        let step8 = step2.shl::<3>();
        let mut fx = s.splat_i32(p.fx0) + st.filter.lane;
        let eight = s.splat_i32(8);
        let (body, tail) = dst.as_chunks_mut::<32>();
        for chunk in body {
            let old = if BLEND { s.load_i32(chunk) } else { st.zero };
            tex8::<BLEND, VROW, PLAIN, S>(s, &st, fx, &d, old).store(chunk);
            fx = fx + eight;
            d[0] = d[0] + step8;
            d[1] = d[1] + step8;
            d[2] = d[2] + step8;
            d[3] = d[3] + step8;
        }
        if tail.len() >= 4 {
            let old = if BLEND {
                s.load_i32_prefix(tail)
            } else {
                st.zero
            };
            tex8::<BLEND, VROW, PLAIN, S>(s, &st, fx, &d, old).store_prefix(tail);
        }
    }
}

/// The [`Setup`] of a span.
#[inline(always)]
fn setup<'d, const VROW: bool, S: Simd>(
    s: S,
    level: &crate::texture::LevelRef<'d>,
    p: &TexSpan,
) -> Setup<'d, S> {
    let force = if level.format == crate::texture::TextureFormat::X8R8G8B8 {
        0xFF00_0000
    } else {
        0
    };
    let filter = Filter::new(s, level, force);
    let u = [
        s.splat_f32(p.u[0]),
        s.splat_f32(p.u[1]),
        s.splat_f32(p.u[2]),
    ];
    let v = [
        s.splat_f32(p.v[0]),
        s.splat_f32(p.v[1]),
        s.splat_f32(p.v[2]),
    ];
    let inv = s.splat_f32(p.inv);
    let rows = filter.rows::<VROW>(s, (v[0] + v[2]).mul(inv));
    Setup {
        filter,
        u,
        v,
        inv,
        c255: s.splat_i32(0x00FF_00FF),
        zero: s.splat_i32(0),
        and_mask: s.splat_i32(p.and_mask as i32),
        rows,
    }
}

/// Wrapped bilinear coordinates of 8 lanes (see `texture::fast`): texel
/// 0 and the 8-bit fraction; `scale` is `size · 256` (exact in f32: size <
/// 2^20, `tex_level_ok`). Texel 1 is [`next8`] of texel 0.
#[inline(always)]
fn wrap8<S: Simd>(s: S, c: S::F32x8, scale: S::F32x8, size: i32) -> (S::I32x8, S::I32x8) {
    // Non-finite input → NaN fraction → 0, like the scalar twin.
    let fr = (c - c.floor()).nan_to_zero();
    // fr in [0, 1], so the product is at most `scale` and q at most
    // size·256 − 128: i = q >> 8 lies in [-1, size − 1] and only -1 wraps
    // (the scalar twin's `i >= size` branch is never taken).
    let q = fr.mul(scale).floor().trunc_i32() - s.splat_i32(128);
    let i = q.shr::<8>();
    let f = q & s.splat_i32(255);
    let i0 = S::I32x8::select(s.splat_i32(0).simd_gt(i), s.splat_i32(size - 1), i);
    (i0, f)
}

/// Texel 1 of [`wrap8`]'s texel 0: the next one, wrapping at `size`.
#[inline(always)]
fn next8<S: Simd>(s: S, i0: S::I32x8, size: i32) -> S::I32x8 {
    let i1 = i0 + s.splat_i32(1);
    S::I32x8::select(i1.simd_eq(s.splat_i32(size)), s.splat_i32(0), i1)
}

/// `round((a·(256 − f) + b·f) / 256)` of u16 lanes, computed wrapping
/// (exact: the true value lies in 0..=65408).
#[inline(always)]
fn lerp16<V: I32x8>(a: V, b: V, f: V, c128: V) -> V {
    a.shl_u16::<8>()
        .add_u16(b.sub_u16(a).mul_lo_u16(f))
        .add_u16(c128)
        .shr_u16::<8>()
}

/// Texels `x..x + 8` and `x + 1..x + 9` of `row` (None past its end).
#[inline(always)]
fn row9(row: &[u8], x: usize) -> Option<(&[u8; 32], &[u8; 32])> {
    let t = row.get(4 * x..)?.first_chunk::<36>()?;
    Some((t.first_chunk::<32>()?, t.last_chunk::<32>()?))
}

/// 8 pixels of the span (see [`tex_modulate_span`]), their columns `fx`
/// relative to the reference column, diffuse `d` and destination `old`
/// (read when `BLEND`), packed. Texels and diffuse are processed in two
/// u16 halves: "lo" = pixels 0, 1 | 4, 5 and "hi" = 2, 3 | 6, 7 (the
/// arrangement of `widen_lo/hi_u8_u16` of 8 packed pixels).
#[inline(always)]
fn tex8<const BLEND: bool, const VROW: bool, const PLAIN: bool, S: Simd>(
    s: S,
    st: &Setup<'_, S>,
    fx: S::I32x8,
    d: &[S::I32x8; 4],
    old: S::I32x8,
) -> S::I32x8 {
    let fxl = fx.to_f32();
    let u = ((st.u[0] + st.u[1].mul(fxl)) + st.u[2]).mul(st.inv);
    let v = if VROW {
        u
    } else {
        ((st.v[0] + st.v[1].mul(fxl)) + st.v[2]).mul(st.inv)
    };
    let [tl, th] = st.filter.sample::<VROW, PLAIN>(s, &st.rows, u, v);
    // Diffuse in the same halves: the i16 pack of (d0, d1) is pixels
    // 0, 1 | 4, 5.
    let (zero, c255) = (st.zero, st.c255);
    let dl = S::I32x8::pack_i32_i16_sat(d[0].shr::<16>(), d[1].shr::<16>()).clamp_i16(zero, c255);
    let dh = S::I32x8::pack_i32_i16_sat(d[2].shr::<16>(), d[3].shr::<16>()).clamp_i16(zero, c255);
    let mut lo = div255_u16(s, tl.mul_lo_u16(dl));
    let mut hi = div255_u16(s, th.mul_lo_u16(dh));
    if BLEND {
        lo = blend16(s, lo, old.widen_lo_u8_u16(), c255);
        hi = blend16(s, hi, old.widen_hi_u8_u16(), c255);
    }
    let px = S::I32x8::pack_i16_u8_sat(lo, hi);
    if PLAIN {
        px
    } else {
        px & st.and_mask
    }
}

/// `t | force`, or `t` when `PLAIN` (force is 0).
#[inline(always)]
fn or_force<const PLAIN: bool, V: I32x8>(t: V, force: V) -> V {
    if PLAIN {
        t
    } else {
        t | force
    }
}

/// SRCALPHA/INVSRCALPHA of u16 lanes: `round((s·a + o·(255 − a)) / 255)`
/// with `a` the alpha of each pixel of `src`.
#[inline(always)]
fn blend16<S: Simd>(s: S, src: S::I32x8, o: S::I32x8, c255: S::I32x8) -> S::I32x8 {
    let a = src.splat_alpha_u16();
    div255_u16(s, src.mul_lo_u16(a).add_u16(o.mul_lo_u16(c255.sub_u16(a))))
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
/// each channel `byte / 255`. The kernel ([`Quad`], over the vector
/// layer) runs at every level for a level that passes [`tex_level_ok`];
/// any other level takes the scalar twin.
pub(crate) fn bilinear8_planes(
    level_simd: SimdLevel,
    level: &crate::texture::LevelRef<'_>,
    u: [f32; 4],
    v: [f32; 4],
    force: u32,
) -> [[f32; 4]; 4] {
    if !tex_level_ok(level) {
        return bilinear8_planes_scalar(level, u, v, force);
    }
    level_simd.dispatch(Quad { level, u, v, force })
}

/// The arguments of [`bilinear8_planes`].
struct Quad<'a, 'l> {
    level: &'a crate::texture::LevelRef<'l>,
    u: [f32; 4],
    v: [f32; 4],
    force: u32,
}

impl Kernel for Quad<'_, '_> {
    type Output = [[f32; 4]; 4];

    /// Lanes 0..4 and 4..8 both hold the quad's four lanes; the texels
    /// are gathered once, and two channels are filtered at a time in
    /// 32-bit lanes: red in lanes 0..4 with green in 4..8, then blue with
    /// alpha (each half's texels scaled by a power of 256 so that one
    /// shift brings its channel down).
    #[inline(always)]
    fn run<S: Simd>(self, s: S) -> [[f32; 4]; 4] {
        let info = &self.level.info;
        let (w, h) = (info.width as i32, info.height as i32);
        let pitch4 = s.splat_i32((info.row_pitch / 4) as i32);
        let [u0, u1, u2, u3] = self.u;
        let [v0, v1, v2, v3] = self.v;
        let u = s.f32x8([u0, u1, u2, u3, u0, u1, u2, u3]);
        let v = s.f32x8([v0, v1, v2, v3, v0, v1, v2, v3]);
        let (x0, fx) = wrap8(s, u, s.splat_f32(w as f32 * 256.0), w);
        let (y0, fy) = wrap8(s, v, s.splat_f32(h as f32 * 256.0), h);
        let (x1, y1) = (next8(s, x0, w), next8(s, y0, h));
        let (r0, r1) = (y0.mul(pitch4), y1.mul(pitch4));
        let data = self.level.data;
        let force = s.splat_i32(self.force as i32);
        let t = [
            s.gather_u32(data, r0 + x0) | force,
            s.gather_u32(data, r0 + x1) | force,
            s.gather_u32(data, r1 + x0) | force,
            s.gather_u32(data, r1 + x1) | force,
        ];
        // BGRA in memory: B bits 0..8, G 8..16, R 16..24, A 24..32.
        let k_rg = s.i32x8([1, 1, 1, 1, 1 << 8, 1 << 8, 1 << 8, 1 << 8]);
        let k_ba = s.i32x8([1 << 24, 1 << 24, 1 << 24, 1 << 24, 1, 1, 1, 1]);
        let byte = s.splat_i32(0xFF);
        let rg = quad_channels(
            s,
            [
                t[0].mul(k_rg).shr_logical::<16>() & byte,
                t[1].mul(k_rg).shr_logical::<16>() & byte,
                t[2].mul(k_rg).shr_logical::<16>() & byte,
                t[3].mul(k_rg).shr_logical::<16>() & byte,
            ],
            fx,
            fy,
        );
        let ba = quad_channels(
            s,
            [
                t[0].mul(k_ba).shr_logical::<24>(),
                t[1].mul(k_ba).shr_logical::<24>(),
                t[2].mul(k_ba).shr_logical::<24>(),
                t[3].mul(k_ba).shr_logical::<24>(),
            ],
            fx,
            fy,
        );
        [
            [rg[0], rg[1], rg[2], rg[3]],
            [rg[4], rg[5], rg[6], rg[7]],
            [ba[0], ba[1], ba[2], ba[3]],
            [ba[4], ba[5], ba[6], ba[7]],
        ]
    }
}

/// Scalar twin of [`bilinear8_planes8`]: [`bilinear8_planes_scalar`] of
/// each quad.
pub(crate) fn bilinear8_planes8_scalar(
    level: &crate::texture::LevelRef<'_>,
    u: [f32; 8],
    v: [f32; 8],
    force: u32,
) -> [[f32; 8]; 4] {
    let half = |x: &[f32; 8], h: usize| std::array::from_fn(|l| x[4 * h + l]);
    let lo = bilinear8_planes_scalar(level, half(&u, 0), half(&v, 0), force);
    let hi = bilinear8_planes_scalar(level, half(&u, 1), half(&v, 1), force);
    std::array::from_fn(|k| std::array::from_fn(|l| if l < 4 { lo[k][l] } else { hi[k][l - 4] }))
}

/// [`bilinear8_planes`] of eight lanes (two pixel-shader quads) at
/// `(u[l], v[l])`: planes R, G, B, A of the lanes, each channel
/// `byte / 255`. The kernel ([`Octet`]: every lane its own texels, one
/// gather of each of the four texels for the eight lanes) runs at every
/// level for a level that passes [`tex_level_ok`]; any other level takes
/// the scalar twin.
pub(crate) fn bilinear8_planes8(
    level_simd: SimdLevel,
    level: &crate::texture::LevelRef<'_>,
    u: [f32; 8],
    v: [f32; 8],
    force: u32,
) -> [[f32; 8]; 4] {
    if !tex_level_ok(level) {
        return bilinear8_planes8_scalar(level, u, v, force);
    }
    level_simd.dispatch(Octet { level, u, v, force })
}

/// The arguments of [`bilinear8_planes8`].
struct Octet<'a, 'l> {
    level: &'a crate::texture::LevelRef<'l>,
    u: [f32; 8],
    v: [f32; 8],
    force: u32,
}

impl Kernel for Octet<'_, '_> {
    type Output = [[f32; 8]; 4];

    /// The eight lanes' texels gathered once each, then each channel
    /// filtered in 32-bit lanes ([`quad_channels`]).
    #[inline(always)]
    fn run<S: Simd>(self, s: S) -> [[f32; 8]; 4] {
        let info = &self.level.info;
        let (w, h) = (info.width as i32, info.height as i32);
        let pitch4 = s.splat_i32((info.row_pitch / 4) as i32);
        let (x0, fx) = wrap8(s, s.f32x8(self.u), s.splat_f32(w as f32 * 256.0), w);
        let (y0, fy) = wrap8(s, s.f32x8(self.v), s.splat_f32(h as f32 * 256.0), h);
        let (x1, y1) = (next8(s, x0, w), next8(s, y0, h));
        let (r0, r1) = (y0.mul(pitch4), y1.mul(pitch4));
        let data = self.level.data;
        let force = s.splat_i32(self.force as i32);
        let t = [
            s.gather_u32(data, r0 + x0) | force,
            s.gather_u32(data, r0 + x1) | force,
            s.gather_u32(data, r1 + x0) | force,
            s.gather_u32(data, r1 + x1) | force,
        ];
        // BGRA in memory: B bits 0..8, G 8..16, R 16..24, A 24..32.
        let byte = s.splat_i32(0xFF);
        let r = quad_channels(s, t.map(|t| t.shr_logical::<16>() & byte), fx, fy);
        let g = quad_channels(s, t.map(|t| t.shr_logical::<8>() & byte), fx, fy);
        let b = quad_channels(s, t.map(|t| t & byte), fx, fy);
        let a = quad_channels(s, t.map(|t| t.shr_logical::<24>()), fx, fy);
        [r, g, b, a]
    }
}

/// [`lerp8`] of 32-bit lanes, as `(a << 8) + (b − a)·f + 128 >> 8`
/// (wrapping; the same value, since the true one lies in 0..=65408).
#[inline(always)]
fn lerp32<S: Simd>(s: S, a: S::I32x8, b: S::I32x8, f: S::I32x8) -> S::I32x8 {
    (a.shl::<8>() + (b - a).mul(f) + s.splat_i32(128)).shr_logical::<8>()
}

/// The filter of two channels of the quad: `c` are the channel bytes of
/// the four texels (x0 y0, x1 y0, x0 y1, x1 y1), `fx`, `fy` the
/// fractions; each lane as `byte / 255`.
#[inline(always)]
fn quad_channels<S: Simd>(s: S, c: [S::I32x8; 4], fx: S::I32x8, fy: S::I32x8) -> [f32; 8] {
    let h0 = lerp32(s, c[0], c[1], fx);
    let h1 = lerp32(s, c[2], c[3], fx);
    lerp32(s, h0, h1, fy)
        .to_f32()
        .div(s.splat_f32(255.0))
        .to_array()
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
            for lv in std::iter::once(SimdLevel::Scalar).chain(LEVELS) {
                let mut got = dst0.clone();
                tex_modulate_span(lv.clamp_to_cpu(), &mut got, &TexLevel::new(level), &p);
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
            for lv in std::iter::once(SimdLevel::Scalar).chain(LEVELS) {
                let got = bilinear8_planes(lv.clamp_to_cpu(), &level, u, v, force);
                prop_assert_eq!(got.map(|p| p.map(f32::to_bits)), want.map(|p| p.map(f32::to_bits)));
            }
        }

        #[test]
        fn bilinear8_planes8_matches_scalar(
            w in 1u32..10,
            h in 1u32..10,
            pad in 0usize..3,
            x8 in any::<bool>(),
            seed in any::<u64>(),
            u in proptest::array::uniform8(-3.0f32..3.0),
            v in proptest::array::uniform8(-3.0f32..3.0),
            odd in 0usize..8,
        ) {
            let (bytes, info, format) = tex_level(w, h, pad, x8, seed);
            let level = crate::texture::LevelRef { format, info, data: &bytes, palette: None };
            // Non-finite coordinates wrap to 0 in both.
            let mut u = u;
            u[odd] = [f32::NAN, f32::INFINITY, -0.0, 1.0, f32::NEG_INFINITY, 0.5, 2.0, -1.0][odd];
            let force = if x8 { 0xFF00_0000 } else { 0 };
            let want = bilinear8_planes8_scalar(&level, u, v, force);
            // Each half is what the four-lane filter gives its quad.
            for (h, (uq, vq)) in [(&u[..4], &v[..4]), (&u[4..], &v[4..])].into_iter().enumerate() {
                let (uq, vq) = (uq.try_into().unwrap(), vq.try_into().unwrap());
                let quad = bilinear8_planes_scalar(&level, uq, vq, force);
                for k in 0..4 {
                    prop_assert_eq!(&want[k][4 * h..4 * h + 4], &quad[k][..]);
                }
            }
            for lv in std::iter::once(SimdLevel::Scalar).chain(LEVELS) {
                let got = bilinear8_planes8(lv.clamp_to_cpu(), &level, u, v, force);
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
