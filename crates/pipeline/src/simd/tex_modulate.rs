//! The textured span kernel: stage 0 MODULATE(TEXTURE, DIFFUSE) of a
//! level sampled by the 8-bit filter, optionally blended
//! SRCALPHA/INVSRCALPHA; and the same filter's bilinear WRAP form for the
//! four lanes of a pixel-shader quad, or the eight lanes of two.
//!
//! *The 8-bit filter* ([`Filter`], its pixel-at-a-time twin [`sample8`])
//! reads a [`Level8`]: one level of an A8R8G8B8, X8R8G8B8, R5G6B5,
//! X1R5G5B5, A1R5G5B5 or A4R4G4B4 texture, POINT or LINEAR, each axis
//! WRAP, CLAMP or MIRROR ([`Sampling8`], chosen per draw by
//! `shade::filter8_level`). A 16-bit texel is expanded to 8 bits per
//! channel as `crate::texture` decodes it (`decode_argb8`: `round(v ·
//! 255 / (2^n − 1))`; the vector form is checked on every 16-bit value).
//! POINT reads the texel the float sampler reads (`texture::sampler`'s
//! `texel_coord` and `address_texel`), so its bytes are the float path's.
//! LINEAR filters the four texels separably in 8 bits (horizontal lerps
//! rounded to 8 bits, then the vertical one); its texels and 8-bit
//! fractions are the float sampler's under CLAMP and MIRROR, and
//! [`crate::texture::fast`]'s under WRAP (the coordinate reduced to
//! [0, 1) first), so a LINEAR texel is within one unit per channel of the
//! float sampler's. The common shape (LINEAR, WRAP, 32-bit texels) keeps
//! its own instantiations ([`Level8::bilinear_wrap_argb`]).
//!
//! *Input*: the destination bytes of a span, the level, the span's
//! texture-coordinate and diffuse planes ([`TexSpan`]); or a level and
//! four or eight lanes' (u, v) ([`bilinear8_planes`],
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
use crate::texture::sampler::address_texel;
use crate::texture::sampler::texel_coord;
use crate::texture::{LevelRef, TextureAddress, TextureFormat};

/// How the 8-bit filter samples a level (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sampling8 {
    /// POINT (MAG and MIN filter POINT or NONE); else LINEAR.
    pub point: bool,
    /// ADDRESSU and ADDRESSV: WRAP, CLAMP or MIRROR.
    pub address: [TextureAddress; 2],
}

impl Sampling8 {
    /// LINEAR, WRAP in u and v: the shape of the fast kernels' own
    /// instantiations.
    pub(crate) const BILINEAR_WRAP: Sampling8 = Sampling8 {
        point: false,
        address: [TextureAddress::Wrap; 2],
    };
}

/// A level the 8-bit filter samples, and how (`shade::filter8_level`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Level8<'a> {
    pub level: LevelRef<'a>,
    pub sampling: Sampling8,
}

impl<'a> Level8<'a> {
    /// `level` sampled LINEAR with WRAP addressing.
    #[cfg(test)]
    pub(crate) fn bilinear_wrap(level: LevelRef<'a>) -> Self {
        Level8 {
            level,
            sampling: Sampling8::BILINEAR_WRAP,
        }
    }

    /// True for a 32-bit level sampled LINEAR with WRAP addressing (the
    /// W3/W4 shape, and the pixel-shader quad's only one).
    pub(crate) fn bilinear_wrap_argb(&self) -> bool {
        self.sampling == Sampling8::BILINEAR_WRAP
            && matches!(
                self.level.format,
                TextureFormat::A8R8G8B8 | TextureFormat::X8R8G8B8
            )
    }

    /// The bits ORed into the level's 32-bit texels: X8R8G8B8's alpha.
    pub(crate) fn force(&self) -> u32 {
        if self.level.format == TextureFormat::X8R8G8B8 {
            0xFF00_0000
        } else {
            0
        }
    }
}

/// The texel of one axis under POINT sampling: the float sampler's
/// (`texel_coord`, then `address_texel`).
#[inline]
pub(crate) fn point_texel(mode: TextureAddress, c: f32, size: u32) -> u32 {
    let (i, _) = texel_coord(c, size, false);
    address_texel(mode, i, size).unwrap_or(0)
}

/// The two texels of one axis and the 8-bit fraction under LINEAR
/// sampling: WRAP as [`crate::texture::fast`] (the coordinate reduced to
/// [0, 1) first), CLAMP and MIRROR as the float sampler.
#[inline]
pub(crate) fn linear_texels(mode: TextureAddress, c: f32, size: u32) -> (u32, u32, u32) {
    if mode == TextureAddress::Wrap {
        let (i0, i1, f) = crate::texture::fast::wrap_coord(c, size);
        return (i0 as u32, i1 as u32, f);
    }
    let (i, f) = texel_coord(c, size, true);
    (
        address_texel(mode, i, size).unwrap_or(0),
        address_texel(mode, i + 1, size).unwrap_or(0),
        f,
    )
}

/// One sample of the 8-bit filter (see the module docs), pixel at a
/// time: texels decoded by `crate::texture` (`LevelRef::texel_argb8`,
/// 0 outside the data), `force` ORed into them; [`bilinear8`] for the
/// common shape.
pub(crate) fn sample8(t: &Level8<'_>, u: f32, v: f32, force: u32) -> u32 {
    let l = &t.level;
    if t.bilinear_wrap_argb() {
        return bilinear8(l, u, v, force);
    }
    let (w, h) = (l.info.width, l.info.height);
    let [au, av] = t.sampling.address;
    let px = |x: u32, y: u32| l.texel_argb8(x, y, 0).unwrap_or(0) | force;
    if t.sampling.point {
        return px(point_texel(au, u, w), point_texel(av, v, h));
    }
    let (x0, x1, fx) = linear_texels(au, u, w);
    let (y0, y1, fy) = linear_texels(av, v, h);
    let h0 = lerp8(spread(px(x0, y0)), spread(px(x1, y0)), fx);
    let h1 = lerp8(spread(px(x0, y1)), spread(px(x1, y1)), fx);
    unspread(lerp8(h0, h1, fy))
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
    unspread(lerp8(h0, h1, fy))
}

/// The packed texel of [`spread`] fields.
#[inline(always)]
fn unspread(o: u64) -> u32 {
    (o & 0xFF | (o >> 8) & 0xFF00 | (o >> 16) & 0xFF_0000 | (o >> 24) & 0xFF00_0000) as u32
}

/// Scalar twin of [`tex_modulate_span`].
pub(crate) fn tex_modulate_span_scalar(dst: &mut [u8], level: &Level8<'_>, p: &TexSpan) {
    let force = level.force();
    for (i, px) in dst.chunks_exact_mut(4).enumerate() {
        let fx = p.fx0.wrapping_add(i as i32) as f32;
        let u = ((p.u[0] + p.u[1] * fx) + p.u[2]) * p.inv;
        let v = ((p.v[0] + p.v[1] * fx) + p.v[2]) * p.inv;
        let t = sample8(level, u, v, force).to_le_bytes();
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

/// Textured span: pixel i = round(texel × diffuse / 255) per channel
/// (texel from the 8-bit filter: [`sample8`]), optionally blended
/// SRCALPHA/INVSRCALPHA over `dst` (`round(x/255)`, as the generic
/// blend), ANDed with the mask. The kernel ([`TexModulate`], over the
/// vector layer) runs at every level for a level that passes
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
    if !level.bilinear_wrap_argb() {
        tex_modulate_any(level_simd, dst, level, p);
        return;
    }
    let plain = level.level.format != TextureFormat::X8R8G8B8 && p.and_mask == u32::MAX;
    let level = &level.level;
    macro_rules! run {
        ($($b:literal, $v:literal, $q:literal);*) => {
            match (p.blend, p.v[1] == 0.0, plain) {
                $(($b, $v, $q) => level_simd.dispatch(TexModulate::<$b, $v, $q, false> {
                    dst, level, sampling: Sampling8::BILINEAR_WRAP, p
                }),)*
            }
        };
    }
    run!(false, false, false; false, false, true; false, true, false; false, true, true;
         true, false, false; true, false, true; true, true, false; true, true, true)
}

/// [`tex_modulate_span`] of a level in any other shape of the 8-bit
/// filter (kept out of line: not the W3/W4 loop).
#[inline(never)]
fn tex_modulate_any(level_simd: SimdLevel, dst: &mut [u8], level: &Level8<'_>, p: &TexSpan) {
    let (sampling, level) = (level.sampling, &level.level);
    macro_rules! run {
        ($($b:literal, $v:literal);*) => {
            match (p.blend, p.v[1] == 0.0) {
                $(($b, $v) => level_simd.dispatch(TexModulate::<$b, $v, false, true> {
                    dst, level, sampling, p
                }),)*
            }
        };
    }
    run!(false, false; false, true; true, false; true, true)
}

/// A level for [`tex_modulate_span`], with [`tex_level_ok`] asked once
/// (per draw, not per span).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TexLevel<'a> {
    level: Level8<'a>,
    /// `tex_level_ok(&level)`.
    vector: bool,
}

impl<'a> TexLevel<'a> {
    /// `level`, checked for the vector kernel.
    pub(crate) fn new(level: Level8<'a>) -> Self {
        let vector = tex_level_ok(&level.level);
        TexLevel { level, vector }
    }
}

/// The texels of the vector filter: 32-bit, or one of the 16-bit
/// formats, each expanded as `crate::texture` decodes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Texel8 {
    Argb32,
    R5G6B5,
    X1R5G5B5,
    A1R5G5B5,
    A4R4G4B4,
}

impl Texel8 {
    /// The texels of `format`, if the filter reads it.
    fn of(format: TextureFormat) -> Option<Self> {
        use TextureFormat as F;
        Some(match format {
            F::A8R8G8B8 | F::X8R8G8B8 => Texel8::Argb32,
            F::R5G6B5 => Texel8::R5G6B5,
            F::X1R5G5B5 => Texel8::X1R5G5B5,
            F::A1R5G5B5 => Texel8::A1R5G5B5,
            F::A4R4G4B4 => Texel8::A4R4G4B4,
            _ => return None,
        })
    }

    /// Bytes per texel.
    fn bytes(self) -> usize {
        if self == Texel8::Argb32 {
            4
        } else {
            2
        }
    }
}

/// True if the level is in a format the 8-bit filter reads (32-bit, or
/// 16-bit: [`Texel8`]), every texel index the vector kernels can form (x
/// < width, y < height) lies inside its bytes with the whole aligned u32
/// holding it (16-bit texels are fetched as the u32 of two), and rows
/// hold whole texels: then their texel fetches read what [`sample8`]
/// reads, and every index fits an i32.
pub(crate) fn tex_level_ok(level: &LevelRef<'_>) -> bool {
    let Some(texel) = Texel8::of(level.format) else {
        return false;
    };
    let bpt = texel.bytes();
    let i = &level.info;
    let (w, h) = (i.width as usize, i.height as usize);
    w >= 1
        && h >= 1
        && i.row_pitch.is_multiple_of(bpt)
        && (h - 1)
            .checked_mul(i.row_pitch)
            .and_then(|v| v.checked_add(w * bpt))
            .is_some_and(|end| end.next_multiple_of(4) <= level.data.len())
        && h.checked_mul(i.row_pitch / bpt)
            .is_some_and(|v| v < i32::MAX as usize)
        && w < (1 << 20)
        && h < (1 << 20)
}

/// The arguments of [`tex_modulate_span`], blending when `BLEND`; `VROW`
/// when v is constant along the span (dv/dx = 0, e.g. screen-aligned
/// quads): `v0 + 0·fx` is `v0` for every lane, so the rows and the
/// vertical fraction are computed once; `PLAIN` when no alpha is forced
/// (not an X8R8G8B8 level) and the mask keeps every channel: two fewer
/// vector registers in the loop (W3 +8 %, W4 +2 % wall clock, measured
/// interleaved; the register pressure of the loop spills otherwise);
/// `ANY` for a level in any shape of the filter but the common one
/// ([`Filter::sample`]).
struct TexModulate<
    'a,
    'b,
    'c,
    const BLEND: bool,
    const VROW: bool,
    const PLAIN: bool,
    const ANY: bool,
> {
    dst: &'a mut [u8],
    level: &'b LevelRef<'c>,
    sampling: Sampling8,
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

/// A level as the vector 8-bit filter ([`Filter::sample`]) reads it:
/// its sizes, pitch, shape and the bits ORed into its texels, splatted
/// once (per span of [`tex_modulate_span`], per triangle of
/// `simd::cascade8`). For a level that passes [`tex_level_ok`] the filter
/// gives the bytes of [`sample8`].
#[derive(Clone, Copy)]
pub(super) struct Filter<'d, S: Simd> {
    data: &'d [u8],
    /// The common shape (LINEAR, WRAP, 32-bit texels:
    /// [`Level8::bilinear_wrap_argb`]): sampled with `ANY` false.
    pub(super) common: bool,
    sampling: Sampling8,
    texel: Texel8,
    /// Lane numbers 0..8.
    pub(super) lane: S::I32x8,
    /// Width and height × 256.
    ws: S::F32x8,
    hs: S::F32x8,
    w: i32,
    h: i32,
    /// Row pitch in texels.
    pitch: S::I32x8,
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
    /// v in every lane (read by the filter's other shapes).
    v: S::F32x8,
}

impl<'d, S: Simd> Filter<'d, S> {
    /// The filter of `level`, `force` ORed into its texels.
    #[inline(always)]
    pub(super) fn new(s: S, level8: &Level8<'d>, force: u32) -> Self {
        let level = &level8.level;
        let info = &level.info;
        let (w, h) = (info.width as i32, info.height as i32);
        let texel = Texel8::of(level.format).unwrap_or(Texel8::Argb32);
        Filter {
            data: level.data,
            common: level8.bilinear_wrap_argb(),
            sampling: level8.sampling,
            texel,
            lane: s.i32x8([0, 1, 2, 3, 4, 5, 6, 7]),
            ws: s.splat_f32(w as f32 * 256.0),
            hs: s.splat_f32(h as f32 * 256.0),
            w,
            h,
            pitch: s.splat_i32((info.row_pitch / texel.bytes()) as i32),
            force: s.splat_i32(force as i32),
            zero: s.splat_i32(0),
        }
    }

    /// The [`Rows`] of a span along which v is `v` (every lane equal)
    /// when `VROW`; nothing (never read) otherwise.
    #[inline(always)]
    pub(super) fn rows<const VROW: bool>(&self, s: S, v: S::F32x8) -> Rows<'d, S> {
        if !VROW || !self.common {
            let zero = self.zero;
            return Rows {
                vrow: (zero, zero, zero),
                rows: [&[][..], &[][..]],
                v,
            };
        }
        let (y0, fy) = wrap8(s, v, self.hs, self.h);
        let y1 = next8(s, y0, self.h);
        let (r0, r1) = (y0.mul(self.pitch), y1.mul(self.pitch));
        let len = 4 * self.w as usize;
        let (at0, at1) = (4 * r0.to_array()[0] as usize, 4 * r1.to_array()[0] as usize);
        let rows = [
            self.data.get(at0..at0 + len).unwrap_or_default(),
            self.data.get(at1..at1 + len).unwrap_or_default(),
        ];
        Rows {
            vrow: (r0, r1, fy),
            rows,
            v,
        }
    }

    /// [`sample8`] of 8 lanes at `(u, v)` (with `VROW`, v is the one of
    /// `rows` and the argument is not read), as u16 halves: "lo" = pixels
    /// 0, 1 | 4, 5 and "hi" = 2, 3 | 6, 7 (the arrangement of
    /// `widen_lo/hi_u8_u16` of 8 packed pixels), BGRA per pixel. Without
    /// `ANY` the level is in the common shape ([`Filter::common`]) and
    /// `PLAIN` when it forces no alpha (its force bits are 0, not ORed);
    /// with `ANY` it may be in any shape ([`Filter::sample_any`]).
    #[inline(always)]
    pub(super) fn sample<const VROW: bool, const PLAIN: bool, const ANY: bool>(
        &self,
        s: S,
        rows: &Rows<'d, S>,
        u: S::F32x8,
        v: S::F32x8,
    ) -> [S::I32x8; 2] {
        if ANY {
            return self.sample_any::<VROW>(s, rows, u, v);
        }
        let data = self.data;
        let (x0, fxf) = wrap8(s, u, self.ws, self.w);
        let (r0, r1, fy) = if VROW {
            rows.vrow
        } else {
            let (y0, fy) = wrap8(s, v, self.hs, self.h);
            (y0.mul(self.pitch), next8(s, y0, self.h).mul(self.pitch), fy)
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
                horizontal([t00, t01, t10, t11], fx_lo, fx_hi, c128)
            }
        };
        [
            lerp16(h[0][0], h[1][0], fy.spread_lo_u16(), c128),
            lerp16(h[0][1], h[1][1], fy.spread_hi_u16(), c128),
        ]
    }

    /// [`sample8`] of 8 lanes in any shape of the filter: POINT or
    /// LINEAR, each axis WRAP, CLAMP or MIRROR ([`axis_point`],
    /// [`axis_linear`]), 32- or 16-bit texels ([`Filter::fetch`]);
    /// branches on the shape are taken once per 8 pixels.
    #[inline(always)]
    fn sample_any<const VROW: bool>(
        &self,
        s: S,
        rows: &Rows<'d, S>,
        u: S::F32x8,
        v: S::F32x8,
    ) -> [S::I32x8; 2] {
        let v = if VROW { rows.v } else { v };
        let [au, av] = self.sampling.address;
        if self.sampling.point {
            let x = axis_point(s, u, au, self.w);
            let y = axis_point(s, v, av, self.h);
            let t = self.fetch(s, y.mul(self.pitch) + x);
            return [t.widen_lo_u8_u16(), t.widen_hi_u8_u16()];
        }
        let (x0, x1, fx) = axis_linear(s, u, au, self.w, self.ws);
        let (y0, y1, fy) = axis_linear(s, v, av, self.h, self.hs);
        let (r0, r1) = (y0.mul(self.pitch), y1.mul(self.pitch));
        let t = [
            self.fetch(s, r0 + x0),
            self.fetch(s, r0 + x1),
            self.fetch(s, r1 + x0),
            self.fetch(s, r1 + x1),
        ];
        bilerp(s, t, fx, fy)
    }

    /// The packed 8-bit texels (BGRA) at texel indices `idx` (row ·
    /// pitch + column): 32-bit texels ORed with the forced bits, or
    /// 16-bit ones (the half of the u32 that holds them) expanded by
    /// [`expand16`].
    #[inline(always)]
    fn fetch(&self, s: S, idx: S::I32x8) -> S::I32x8 {
        if self.texel == Texel8::Argb32 {
            return s.gather_u32(self.data, idx) | self.force;
        }
        let one = s.splat_i32(1);
        let word = s.gather_u32(self.data, idx.shr::<1>());
        let t = S::I32x8::select(
            (idx & one).simd_eq(one),
            word.shr_logical::<16>(),
            word & s.splat_i32(0xFFFF),
        );
        expand16(s, self.texel, t)
    }
}

impl<const BLEND: bool, const VROW: bool, const PLAIN: bool, const ANY: bool> Kernel
    for TexModulate<'_, '_, '_, BLEND, VROW, PLAIN, ANY>
{
    type Output = ();

    /// Whole 32-byte chunks, then the whole pixels of the tail; diffuse
    /// vector k holds pixel i+k (BGRA) in its low half and pixel i+k+4 in
    /// its high half (as `simd::blend`).
    #[inline(always)]
    fn run<S: Simd>(self, s: S) {
        let TexModulate {
            dst,
            level,
            sampling,
            p,
        } = self;
        let st = setup::<VROW, S>(s, level, sampling, p);
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
            tex8::<BLEND, VROW, PLAIN, ANY, S>(s, &st, fx, &d, old).store(chunk);
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
            tex8::<BLEND, VROW, PLAIN, ANY, S>(s, &st, fx, &d, old).store_prefix(tail);
        }
    }
}

/// The [`Setup`] of a span.
#[inline(always)]
fn setup<'d, const VROW: bool, S: Simd>(
    s: S,
    level: &LevelRef<'d>,
    sampling: Sampling8,
    p: &TexSpan,
) -> Setup<'d, S> {
    let level = Level8 {
        level: *level,
        sampling,
    };
    let filter = Filter::new(s, &level, level.force());
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

/// The horizontal lerps of the filter: `t` are the texels (x0 y0, x1 y0,
/// x0 y1, x1 y1) of 8 pixels, `fx_lo`, `fx_hi` the horizontal fractions
/// spread over the halves; per row, its two halves (zipped, each half
/// holds the x0 texels of two pixels, then their x1 texels).
#[inline(always)]
fn horizontal<V: I32x8>(t: [V; 4], fx_lo: V, fx_hi: V, c128: V) -> [[V; 2]; 2] {
    let [t00, t01, t10, t11] = t;
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

/// The separable 8-bit filter of 8 pixels' four texels `t` (see
/// [`horizontal`]) with fractions `fx`, `fy`, as u16 halves.
#[inline(always)]
fn bilerp<S: Simd>(s: S, t: [S::I32x8; 4], fx: S::I32x8, fy: S::I32x8) -> [S::I32x8; 2] {
    let c128 = s.splat_i32(0x0080_0080);
    let h = horizontal(t, fx.spread_lo_u16(), fx.spread_hi_u16(), c128);
    [
        lerp16(h[0][0], h[1][0], fy.spread_lo_u16(), c128),
        lerp16(h[0][1], h[1][1], fy.spread_hi_u16(), c128),
    ]
}

/// Coordinates of 8 lanes scaled to texels (or 256ths of a texel) whose
/// magnitude is below this are exact integers in i32 and in f32 after
/// the floor, and the float remainder of [`imod`] is exact for them.
const EXACT: f32 = 16_777_216.0;

/// `i mod n` (Euclidean, `0 ≤ r < n`) of 8 lanes with `|i| < 2^24`, `1 ≤
/// n < 2^24`: the floor of the f32 quotient is the true one or one more
/// (rounding is monotonic and the true floor is an f32), so one
/// correction gives the remainder.
#[inline(always)]
fn imod<S: Simd>(s: S, i: S::I32x8, n: i32) -> S::I32x8 {
    let n8 = s.splat_i32(n);
    let q = i.to_f32().div(s.splat_f32(n as f32)).floor().trunc_i32();
    let r = i - q.mul(n8);
    S::I32x8::select(s.splat_i32(0).simd_gt(r), r + n8, r)
}

/// `address_texel` of 8 lanes of texel indices `i` (`|i| < 2^24`) under
/// WRAP or MIRROR (CLAMP is done in float by the callers).
#[inline(always)]
fn wrap_texel<S: Simd>(s: S, i: S::I32x8, mode: TextureAddress, size: i32) -> S::I32x8 {
    if mode == TextureAddress::Mirror {
        // Period 2·size, the second half reflected.
        let m = imod(s, i, 2 * size);
        let last = s.splat_i32(size - 1);
        S::I32x8::select(m.simd_gt(last), s.splat_i32(2 * size - 1) - m, m)
    } else {
        imod(s, i, size)
    }
}

/// True when every lane of `x` lies strictly between `-EXACT` and
/// `EXACT` (false for NaN).
#[inline(always)]
fn exact<S: Simd>(s: S, x: S::F32x8) -> bool {
    let big = s.splat_f32(EXACT);
    (x.simd_lt(big) & s.splat_f32(-EXACT).simd_lt(x)).bitmask() == 0xFF
}

/// [`point_texel`] of 8 lanes of coordinate `c` on an axis of `size`
/// texels: `floor(c · size)` (NaN → 0), then CLAMP in float, WRAP and
/// MIRROR on exact integers; coordinates too large for that go through
/// [`point_texel`] itself (out of line).
#[inline(always)]
fn axis_point<S: Simd>(s: S, c: S::F32x8, mode: TextureAddress, size: i32) -> S::I32x8 {
    let p = c.mul(s.splat_f32(size as f32)).nan_to_zero().floor();
    if mode == TextureAddress::Clamp {
        return p
            .max(s.splat_f32(0.0))
            .min(s.splat_f32((size - 1) as f32))
            .trunc_i32();
    }
    if !exact(s, p) {
        return s.i32x8(point_cold(c.to_array(), mode, size));
    }
    wrap_texel(s, p.trunc_i32(), mode, size)
}

/// [`point_texel`] of each lane.
#[cold]
#[inline(never)]
fn point_cold(c: [f32; 8], mode: TextureAddress, size: i32) -> [i32; 8] {
    let mut out = [0; 8];
    for (o, c) in out.iter_mut().zip(c) {
        *o = point_texel(mode, c, size as u32) as i32;
    }
    out
}

/// [`linear_texels`] of 8 lanes of coordinate `c` on an axis of `size`
/// texels (`scale` = size · 256 splatted): texel 0, texel 1, the 8-bit
/// fraction. WRAP as [`wrap8`]; CLAMP and MIRROR from `q = floor(c · size
/// · 256 − 128)` (NaN → 0): CLAMP clamps q to `[-256, size · 256]` in
/// float (beyond it both texels are the same edge texel, whatever the
/// fraction) and each texel to the edge, MIRROR reflects `q >> 8` and
/// `(q >> 8) + 1`, exact integers (coordinates too large go through
/// [`linear_texels`] itself, out of line).
#[inline(always)]
fn axis_linear<S: Simd>(
    s: S,
    c: S::F32x8,
    mode: TextureAddress,
    size: i32,
    scale: S::F32x8,
) -> (S::I32x8, S::I32x8, S::I32x8) {
    if mode == TextureAddress::Wrap {
        let (i0, f) = wrap8(s, c, scale, size);
        return (i0, next8(s, i0, size), f);
    }
    let q = (c.mul(scale) - s.splat_f32(128.0)).nan_to_zero().floor();
    let (one, byte) = (s.splat_i32(1), s.splat_i32(255));
    if mode == TextureAddress::Clamp {
        let q = q
            .max(s.splat_f32(-256.0))
            .min(s.splat_f32(size as f32 * 256.0))
            .trunc_i32();
        let i = q.shr::<8>();
        let (zero, last) = (s.splat_i32(0), s.splat_i32(size - 1));
        return (
            i.max(zero).min(last),
            (i + one).max(zero).min(last),
            q & byte,
        );
    }
    if !exact(s, q) {
        let (i0, i1, f) = linear_cold(c.to_array(), mode, size);
        return (s.i32x8(i0), s.i32x8(i1), s.i32x8(f));
    }
    let q = q.trunc_i32();
    let i = q.shr::<8>();
    (
        wrap_texel(s, i, mode, size),
        wrap_texel(s, i + one, mode, size),
        q & byte,
    )
}

/// [`linear_texels`] of each lane.
#[cold]
#[inline(never)]
fn linear_cold(c: [f32; 8], mode: TextureAddress, size: i32) -> ([i32; 8], [i32; 8], [i32; 8]) {
    let mut out = ([0; 8], [0; 8], [0; 8]);
    for (l, c) in c.into_iter().enumerate() {
        let (i0, i1, f) = linear_texels(mode, c, size as u32);
        out.0[l] = i0 as i32;
        out.1[l] = i1 as i32;
        out.2[l] = f as i32;
    }
    out
}

/// 16-bit texels `t` (one per i32 lane) as packed 8-bit BGRA, each
/// channel `round(v · 255 / (2^n − 1))`, what `crate::texture` decodes
/// (`decode_argb8`; checked on every 16-bit value by the tests): for 4
/// bits `v · 17`, for 5 bits `(v · 527 + 23) >> 6`, for 6 bits
/// `(v · 259 + 33) >> 6` (red and blue of a 5-bit format in the two u16
/// halves of one product); a 1-bit alpha is 0 or 255, a missing one 255.
#[inline(always)]
fn expand16<S: Simd>(s: S, texel: Texel8, t: S::I32x8) -> S::I32x8 {
    match texel {
        Texel8::R5G6B5 => {
            let rb = (t & s.splat_i32(0x1F)) | (t.shl::<5>() & s.splat_i32(0x1F_0000));
            // Green's 6 bits scaled by 2^5 in place: the quotient by
            // 2^11 is the one by 2^6.
            let g = ((t & s.splat_i32(0x7E0)).mul(s.splat_i32(259)) + s.splat_i32(33 << 5))
                .shr_logical::<11>();
            rb5(s, rb) | g.shl::<8>() | s.splat_i32(0xFF00_0000u32 as i32)
        }
        Texel8::X1R5G5B5 | Texel8::A1R5G5B5 => {
            let rb = (t & s.splat_i32(0x1F)) | (t.shl::<6>() & s.splat_i32(0x1F_0000));
            let g = ((t & s.splat_i32(0x3E0)).mul(s.splat_i32(527)) + s.splat_i32(23 << 5))
                .shr_logical::<11>();
            let a = if texel == Texel8::X1R5G5B5 {
                s.splat_i32(0xFF00_0000u32 as i32)
            } else {
                // Bit 15 copied over bits 24..32.
                t.shl::<16>().shr::<7>() & s.splat_i32(0xFF00_0000u32 as i32)
            };
            rb5(s, rb) | g.shl::<8>() | a
        }
        Texel8::A4R4G4B4 => {
            let x = (t & s.splat_i32(0xF))
                | (t.shl::<4>() & s.splat_i32(0xF00))
                | (t.shl::<8>() & s.splat_i32(0xF_0000))
                | (t.shl::<12>() & s.splat_i32(0xF00_0000));
            x | x.shl::<4>()
        }
        Texel8::Argb32 => t,
    }
}

/// 5-bit blue in bits 0..5 and red in bits 16..21 of each lane of `rb`,
/// expanded to 8 bits in bits 0..8 and 16..24 ([`expand16`]).
#[inline(always)]
fn rb5<S: Simd>(s: S, rb: S::I32x8) -> S::I32x8 {
    (rb.mul(s.splat_i32(527)) + s.splat_i32(0x0017_0017)).shr_logical::<6>()
        & s.splat_i32(0x00FF_00FF)
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
fn tex8<const BLEND: bool, const VROW: bool, const PLAIN: bool, const ANY: bool, S: Simd>(
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
    let [tl, th] = st.filter.sample::<VROW, PLAIN, ANY>(s, &st.rows, u, v);
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
    if !tex_level_ok(level) || Texel8::of(level.format) != Some(Texel8::Argb32) {
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
        let [u0, u1, u2, u3] = self.u;
        let [v0, v1, v2, v3] = self.v;
        let u = s.f32x8([u0, u1, u2, u3, u0, u1, u2, u3]);
        let v = s.f32x8([v0, v1, v2, v3, v0, v1, v2, v3]);
        let (t, fx, fy) = footprint(s, self.level, u, v, self.force);
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
/// level for a 32-bit level that passes [`tex_level_ok`]; any other level
/// takes the scalar twin.
pub(crate) fn bilinear8_planes8(
    level_simd: SimdLevel,
    level: &crate::texture::LevelRef<'_>,
    u: [f32; 8],
    v: [f32; 8],
    force: u32,
) -> [[f32; 8]; 4] {
    if !tex_level_ok(level) || Texel8::of(level.format) != Some(Texel8::Argb32) {
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
        let (t, fx, fy) = footprint(s, self.level, s.f32x8(self.u), s.f32x8(self.v), self.force);
        // BGRA in memory: B bits 0..8, G 8..16, R 16..24, A 24..32.
        let byte = s.splat_i32(0xFF);
        let r = quad_channels(s, t.map(|t| t.shr_logical::<16>() & byte), fx, fy);
        let g = quad_channels(s, t.map(|t| t.shr_logical::<8>() & byte), fx, fy);
        let b = quad_channels(s, t.map(|t| t & byte), fx, fy);
        let a = quad_channels(s, t.map(|t| t.shr_logical::<24>()), fx, fy);
        [r, g, b, a]
    }
}

/// The bilinear footprint of each lane at `(u, v)` in a 32-bit level that
/// passes [`tex_level_ok`]: its four texels (x0 y0, x1 y0, x0 y1, x1 y1,
/// WRAP addressing) with `force` ORed in, and the 8-bit fractions `fx`,
/// `fy` (the prologue of [`Quad`] and [`Octet`]).
#[inline(always)]
fn footprint<S: Simd>(
    s: S,
    level: &crate::texture::LevelRef<'_>,
    u: S::F32x8,
    v: S::F32x8,
    force: u32,
) -> ([S::I32x8; 4], S::I32x8, S::I32x8) {
    let info = &level.info;
    let (w, h) = (info.width as i32, info.height as i32);
    let pitch4 = s.splat_i32((info.row_pitch / 4) as i32);
    let (x0, fx) = wrap8(s, u, s.splat_f32(w as f32 * 256.0), w);
    let (y0, fy) = wrap8(s, v, s.splat_f32(h as f32 * 256.0), h);
    let (x1, y1) = (next8(s, x0, w), next8(s, y0, h));
    let (r0, r1) = (y0.mul(pitch4), y1.mul(pitch4));
    let data = level.data;
    let force = s.splat_i32(force as i32);
    let t = [
        s.gather_u32(data, r0 + x0) | force,
        s.gather_u32(data, r0 + x1) | force,
        s.gather_u32(data, r1 + x0) | force,
        s.gather_u32(data, r1 + x1) | force,
    ];
    (t, fx, fy)
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
            shape in proptest::option::of((any::<bool>(), 0usize..3, 0usize..3)),
        ) {
            // `unit`: one texel per pixel along a wider texture, so that
            // the contiguous-load path of the AVX2 kernel runs.
            let (w, inv) = if unit { (w + 12, 1.0) } else { (w, inv) };
            let (bytes, info, format) = tex_level(w, h, pad, x8, seed);
            let level = crate::texture::LevelRef { format, info, data: &bytes, palette: None };
            // `shape`: POINT or LINEAR and the address modes (the `ANY`
            // instantiations), else the common shape.
            let level = match shape {
                Some((point, au, av)) => Level8 {
                    level,
                    sampling: Sampling8 { point, address: [MODES[au], MODES[av]] },
                },
                None => Level8::bilinear_wrap(level),
            };
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

    /// The 8-bit filter of 8 lanes at `(u[l], v[l])` through the vector
    /// [`Filter`] at one level: the packed texels.
    struct Probe<'a> {
        level: Level8<'a>,
        u: [f32; 8],
        v: [f32; 8],
    }

    impl Kernel for Probe<'_> {
        type Output = [u32; 8];
        fn run<S: Simd>(self, s: S) -> [u32; 8] {
            let f = Filter::new(s, &self.level, self.level.force());
            let (u, v) = (s.f32x8(self.u), s.f32x8(self.v));
            let rows = f.rows::<false>(s, v);
            let [lo, hi] = if f.common {
                f.sample::<false, false, false>(s, &rows, u, v)
            } else {
                f.sample::<false, false, true>(s, &rows, u, v)
            };
            S::I32x8::pack_i16_u8_sat(lo, hi)
                .to_array()
                .map(|x| x as u32)
        }
    }

    /// The probe at every level, checked equal; its texels.
    fn probe(level: &Level8<'_>, u: [f32; 8], v: [f32; 8]) -> [u32; 8] {
        let want: [u32; 8] = std::array::from_fn(|l| sample8(level, u[l], v[l], level.force()));
        for lv in std::iter::once(SimdLevel::Scalar).chain(LEVELS) {
            let got = lv.clamp_to_cpu().dispatch(Probe {
                level: *level,
                u,
                v,
            });
            assert_eq!(got, want, "{lv:?} {:?} {u:?} {v:?}", level.sampling);
        }
        want
    }

    const FORMATS: [TextureFormat; 6] = [
        TextureFormat::A8R8G8B8,
        TextureFormat::X8R8G8B8,
        TextureFormat::R5G6B5,
        TextureFormat::X1R5G5B5,
        TextureFormat::A1R5G5B5,
        TextureFormat::A4R4G4B4,
    ];

    const MODES: [TextureAddress; 3] = [
        TextureAddress::Wrap,
        TextureAddress::Clamp,
        TextureAddress::Mirror,
    ];

    /// A level of `format` over `bytes` (`pitch` bytes a row).
    fn level_of(format: TextureFormat, w: u32, h: u32, pitch: usize, bytes: &[u8]) -> LevelRef<'_> {
        LevelRef {
            format,
            info: crate::texture::LevelInfo {
                width: w,
                height: h,
                depth: 1,
                row_pitch: pitch,
                slice_pitch: pitch * h as usize,
            },
            data: bytes,
            palette: None,
        }
    }

    /// POINT on a 4 × 2 level whose texel (x, y) is `0xFF00_0000 | y << 8
    /// | x`, v at row 1 (floor(0.75 · 2) = 1), u per lane: the texel
    /// column worked out from D3D9's rule (the texel holding `u · 4`,
    /// then the address mode on the integer index).
    #[test]
    fn point_texels_by_hand() {
        let mut bytes = Vec::new();
        for y in 0..2u32 {
            for x in 0..4u32 {
                bytes.extend_from_slice(&(0xFF00_0000 | y << 8 | x).to_le_bytes());
            }
        }
        let level = level_of(TextureFormat::A8R8G8B8, 4, 2, 16, &bytes);
        // u · 4: 0, 0.9999996, 1, 4, -1, 5.2, 4e9, NaN.
        let u = [0.0, 0.249_999_9, 0.25, 1.0, -0.25, 1.3, 1e9, f32::NAN];
        let cases = [
            // WRAP: i mod 4.
            (TextureAddress::Wrap, [0, 0, 1, 0, 3, 1, 0, 0]),
            // CLAMP: to 0..=3.
            (TextureAddress::Clamp, [0, 0, 1, 3, 0, 3, 3, 0]),
            // MIRROR: i mod 8, 4..8 reflected to 3..0.
            (TextureAddress::Mirror, [0, 0, 1, 3, 0, 2, 0, 0]),
        ];
        for (mode, cols) in cases {
            let l8 = Level8 {
                level,
                sampling: Sampling8 {
                    point: true,
                    address: [mode, TextureAddress::Wrap],
                },
            };
            let got = probe(&l8, u, [0.75; 8]);
            let want = cols.map(|x: u32| 0xFF00_0100 | x);
            assert_eq!(got, want, "{mode:?}");
        }
    }

    /// LINEAR on a 2 × 1 level, blue 0 then 255: `q = floor(u · 512 −
    /// 128)`, texels `q >> 8` and the next, fraction `q & 255`, the
    /// horizontal lerp `(a·(256 − f) + b·f + 128) >> 8`. u = 0: q = −128,
    /// texels −1, 0 (WRAP 1, 0: 128; CLAMP 0, 0: 0); u = 0.375: q = 64,
    /// texels 0, 1, f = 64: (255·64 + 128) >> 8 = 64; u = 1: q = 384,
    /// texels 1, 2 (CLAMP 1, 1: 255; MIRROR 1, 1: 255); u = −0.25: q =
    /// −256, f = 0, texels −1, 0 (MIRROR 0, 0: 0); u = 1.25: q = 512,
    /// texels 2, 3, f = 0 (MIRROR 1, 0: 255). WRAP reduces u to [0, 1)
    /// first: u = 1 is u = 0, u = −0.25 is 0.75 (q = 256: texel 1, 255),
    /// u = 1.25 is 0.25 (q = 0: texel 0, 0).
    #[test]
    fn linear_edges_by_hand() {
        let bytes = [0u8, 0, 0, 0xFF, 0xFF, 0, 0, 0xFF];
        let level = level_of(TextureFormat::A8R8G8B8, 2, 1, 8, &bytes);
        let u = [0.0, 0.375, 1.0, -0.25, 1.25, 0.0, 0.0, 0.0];
        let cases = [
            (TextureAddress::Wrap, [128, 64, 128, 255, 0]),
            (TextureAddress::Clamp, [0, 64, 255, 0, 255]),
            (TextureAddress::Mirror, [0, 64, 255, 0, 255]),
        ];
        for (mode, blue) in cases {
            let l8 = Level8 {
                level,
                sampling: Sampling8 {
                    point: false,
                    address: [mode, mode],
                },
            };
            let got = probe(&l8, u, [0.3; 8]);
            for (k, b) in blue.into_iter().enumerate() {
                assert_eq!(got[k], 0xFF00_0000 | b, "{mode:?} u {}", u[k]);
            }
        }
    }

    /// One texel per 16-bit format expanded by hand (`round(v · 255 /
    /// (2^n − 1))`): R5G6B5 0x7BEF (15, 31, 15) → 123, 125, 123;
    /// A1R5G5B5 0x8421 (1, 1, 1, 1) → alpha 255, 8, 8, 8 and 0x0421 →
    /// alpha 0; X1R5G5B5 0x0421 → alpha 255; A4R4G4B4 0x8C3F → 0x88,
    /// 0xCC, 0x33, 0xFF.
    #[test]
    fn texels_16_bit_by_hand() {
        let cases = [
            (TextureFormat::R5G6B5, 0x7BEFu16, 0xFF7B_7D7Bu32),
            (TextureFormat::A1R5G5B5, 0x8421, 0xFF08_0808),
            (TextureFormat::A1R5G5B5, 0x0421, 0x0008_0808),
            (TextureFormat::X1R5G5B5, 0x0421, 0xFF08_0808),
            (TextureFormat::A4R4G4B4, 0x8C3F, 0x88CC_33FF),
        ];
        for (format, t, want) in cases {
            let mut bytes = Vec::new();
            for _ in 0..4 {
                bytes.extend_from_slice(&t.to_le_bytes());
            }
            let level = level_of(format, 2, 2, 4, &bytes);
            for point in [true, false] {
                let l8 = Level8 {
                    level,
                    sampling: Sampling8 {
                        point,
                        address: [TextureAddress::Wrap; 2],
                    },
                };
                let got = probe(&l8, [0.1, 0.6, 0.9, -0.4, 0.0, 0.5, 0.25, 0.75], [0.3; 8]);
                assert_eq!(got, [want; 8], "{format:?} {t:#06x} point {point}");
            }
        }
    }

    /// Every 16-bit value of each 16-bit format, as the vector filter
    /// fetches it (POINT at each texel's centre of a 256 × 256 level
    /// holding them all) at every SIMD level, equals the texture
    /// module's decode (`LevelRef::texel_argb8`).
    #[test]
    fn every_16_bit_texel_is_the_texture_decode() {
        let bytes: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
        for format in &FORMATS[2..] {
            let level = level_of(*format, 256, 256, 512, &bytes);
            assert!(tex_level_ok(&level));
            let l8 = Level8 {
                level,
                sampling: Sampling8 {
                    point: true,
                    address: [TextureAddress::Clamp; 2],
                },
            };
            for y in 0..256u32 {
                let v = [(y as f32 + 0.5) / 256.0; 8];
                for x0 in (0..256u32).step_by(8) {
                    let u = std::array::from_fn(|l| (x0 as f32 + l as f32 + 0.5) / 256.0);
                    let want: [u32; 8] =
                        std::array::from_fn(|l| level.texel_argb8(x0 + l as u32, y, 0).unwrap());
                    for lv in std::iter::once(SimdLevel::Scalar).chain(LEVELS) {
                        let got = lv.clamp_to_cpu().dispatch(Probe { level: l8, u, v });
                        assert_eq!(got, want, "{format:?} {lv:?} row {y} column {x0}");
                    }
                }
            }
        }
    }

    /// A level of format `FORMATS[f]` with random bytes (rows padded by
    /// `pad` texels, the data rounded up to whole u32s).
    fn any_level(
        f: usize,
        w: u32,
        h: u32,
        pad: usize,
        seed: u64,
    ) -> (Vec<u8>, TextureFormat, usize) {
        let format = FORMATS[f];
        let bpt = if f < 2 { 4 } else { 2 };
        let pitch = (w as usize + pad) * bpt;
        let mut s = seed;
        let bytes = (0..(pitch * h as usize).next_multiple_of(4))
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (s >> 56) as u8
            })
            .collect();
        (bytes, format, pitch)
    }

    fn coord() -> impl Strategy<Value = f32> {
        prop_oneof![
            8 => -3.0f32..3.0,
            1 => prop_oneof![
                Just(f32::NAN),
                Just(f32::INFINITY),
                Just(f32::NEG_INFINITY),
                Just(1e9f32),
                Just(-7e7f32),
                Just(0.999_999_94f32),
                Just(-0.0f32),
            ],
        ]
    }

    proptest! {
        /// Every shape of the 8-bit filter (format, POINT or LINEAR,
        /// each axis's address mode): the vector filter at every level
        /// gives [`sample8`]'s bytes, coordinates far outside the level
        /// and non-finite ones included.
        #[test]
        fn filter_matches_sample8_in_every_shape(
            f in 0usize..6,
            w in 1u32..12,
            h in 1u32..6,
            pad in 0usize..3,
            seed in any::<u64>(),
            point in any::<bool>(),
            au in 0usize..3,
            av in 0usize..3,
            u in proptest::array::uniform8(coord()),
            v in proptest::array::uniform8(coord()),
        ) {
            let (bytes, format, pitch) = any_level(f, w, h, pad, seed);
            let level = level_of(format, w, h, pitch, &bytes);
            prop_assert!(tex_level_ok(&level));
            let l8 = Level8 { level, sampling: Sampling8 { point, address: [MODES[au], MODES[av]] } };
            probe(&l8, u, v);
        }

        /// POINT reads the float sampler's texel: [`sample8`] equals the
        /// texel `texture::sample_2d` returns (POINT, the same address
        /// modes) on the same level, bit for bit after the D3DCOLOR →
        /// [0, 1] conversion.
        #[test]
        fn point_is_the_float_samplers_texel(
            f in 0usize..6,
            w in 1u32..12,
            h in 1u32..6,
            seed in any::<u64>(),
            au in 0usize..3,
            av in 0usize..3,
            u in coord(),
            v in coord(),
        ) {
            let (bytes, format, pitch) = any_level(f, w, h, 0, seed);
            let mut tex = crate::texture::Texture::new(crate::texture::TextureDesc {
                kind: crate::texture::TextureKind::Texture2D,
                format,
                width: w,
                height: h,
                depth: 1,
                levels: 1,
            }).unwrap();
            tex.upload(0, 0, &bytes[..pitch * h as usize], pitch).unwrap();
            let sm = crate::texture::SamplerState {
                address_u: MODES[au],
                address_v: MODES[av],
                ..Default::default()
            };
            let l8 = crate::shade::filter8_level(&tex, &sm, crate::texture::ColorKeyMode::Off).unwrap();
            prop_assert!(l8.sampling.point);
            let got = crate::texture::format::argb_to_rgba(sample8(&l8, u, v, l8.force()));
            let want = crate::texture::sample_2d(&tex, &sm, [u, v], &Default::default());
            prop_assert_eq!(got.map(f32::to_bits), want.map(f32::to_bits));
        }
    }
}
