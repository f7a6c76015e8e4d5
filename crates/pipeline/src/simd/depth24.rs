//! Gouraud spans with a 24-bit depth test (depth in bits 31..8 of a D24S8,
//! D24X8 or D24X4S4 buffer; the low byte is kept), optionally with fog
//! fused from the specular alpha and with SRCALPHA/INVSRCALPHA blending
//! over the target: all spans of one triangle in a band of rows.
//!
//! *Input*: the band's colour and depth bytes ([`BandRows`]), the spans
//! of one triangle, its colour, depth and fog planes, depth function and
//! blending ([`TriDepth24`]). *Output*: written pixels and depths, the number of
//! pixels that passed. *Guarantees*: one kernel, written over the vector
//! layer ([`super::wide`]) and instantiated at every level, writes exactly
//! the bytes of the pixel-at-a-time [`gouraud_depth24_spans_scalar`] (the
//! reference its proptests compare every level with); bytes past a span
//! that a vector touches are stored back unchanged, and no byte outside
//! the band is read or written.
#![forbid(unsafe_code)]
use super::blend::factor;
use super::wide::{F32x8, I32x8, Kernel, M32x8, Simd};
use super::{
    by_cmp_func, clamp8, color_at, depth_test, div255, div255_u16, pack_pixel, plane_at, z24,
    BandRows, SimdLevel,
};
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
    /// step per pixel, and the fog colour (BGR_).
    pub fog: Option<(i32, i32, [i32; 4])>,
    /// SRCALPHA/INVSRCALPHA blending over the target (see
    /// [`TriDepth24::blend`]).
    pub blend: bool,
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

/// The reference's SRCALPHA/INVSRCALPHA blend (BLENDOP ADD) of packed
/// pixel `src` over `dst`: per channel `round((s·a + d·(255 − a)) / 255)`
/// of the source alpha `a` (`pixel::output`'s `(x + 127) / 255`).
#[cfg_attr(not(test), allow(dead_code))]
fn blend_src_alpha(src: u32, dst: u32) -> u32 {
    let a = src >> 24;
    let ch = |k: u32| div255(((src >> k & 0xFF) * a + (dst >> k & 0xFF) * (255 - a)) as i32) as u32;
    ch(0) | ch(8) << 8 | ch(16) << 16 | ch(24) << 24
}

/// Fogs one 8-bit channel: `round((c·f + fc·(255 − f)) / 255)`.
// The reference only: the kernel fogs in `depth8`.
#[cfg_attr(not(test), allow(dead_code))]
#[inline(always)]
pub(crate) fn fog8(c: i32, f: i32, fc: i32) -> i32 {
    div255(c * f + fc * (255 - f))
}

/// One span of `n` pixels, one pixel at a time: the reference of the
/// vector kernel of [`gouraud_depth24_spans`].
#[cfg_attr(not(test), allow(dead_code))] // the proptests' reference
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
                None => pack_pixel(&v, u32::MAX),
                Some((f0, fs, fc)) => {
                    let f = i32::from(clamp8(f0.wrapping_add(fs.wrapping_mul(i as i32))));
                    let ch = |k: usize| fog8(i32::from(clamp8(v[k])), f, fc[k]) as u8;
                    u32::from_le_bytes([ch(0), ch(1), ch(2), clamp8(v[3])])
                }
            };
            let px = if p.blend {
                // The X byte of X8R8G8B8 (cleared by `and_mask`) reads 255.
                let dst = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) | !and_mask;
                blend_src_alpha(px, dst)
            } else {
                px
            };
            c.copy_from_slice(&(px & and_mask).to_le_bytes());
        }
    }
    passed
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
    /// The colour (fogged) is blended over the target with SRCALPHA,
    /// INVSRCALPHA and BLENDOP ADD (`super::blend`'s kernel of that
    /// pair), the bits `and_mask` clears read as ones.
    pub blend: bool,
}

/// Colour byte range, depth byte range, start colour, depth parameters.
type SpanSetup = (
    std::ops::Range<usize>,
    std::ops::Range<usize>,
    [i32; 4],
    Depth24Params,
);

/// Per-span set-up shared by the kernel and its reference: byte ranges (extended by up to one
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
    let start = crate::pixel::fixed_start(&t.diffuse, dx, dy);
    let fog = t
        .fog
        .map(|f| (plane_at(f.plane, dx, dy), f.plane[1], f.color));
    let p = Depth24Params {
        zref: t.z[0],
        dzdx: t.z[1],
        zy: t.z[2] * dy as f32,
        fx0: dx,
        func: t.func,
        write: t.write,
        fog,
        blend: t.blend,
    };
    Some((coff..cend, doff..dend, start, p))
}

/// [`gouraud_depth24_spans`] one pixel at a time: the reference of its
/// vector kernel.
#[cfg_attr(not(test), allow(dead_code))] // the proptests' reference
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

/// All spans of one triangle in a band: a Gouraud colour with a 24-bit
/// depth test (and fused fog when `t.fog` is set), the loop-invariant
/// set-up done once. Returns the pixels that passed.
///
/// One kernel, written over the vector layer and instantiated at every
/// level, writes exactly the bytes of [`gouraud_depth24_spans_scalar`]
/// (the pixel-at-a-time reference). Where a span's last vector has room
/// in the band it loads and stores back unchanged up to 7 pixels past the
/// span; where it has not (the end of the band) only the span's whole
/// lanes in the band are read and written.
#[inline(never)]
pub(crate) fn gouraud_depth24_spans(
    level: SimdLevel,
    b: &mut BandRows<'_>,
    spans: &[Span],
    t: &TriDepth24,
) -> u32 {
    match (t.fog.is_some(), t.blend) {
        (false, false) => by_cmp_func!(t.func, spans_at, [false, false], (level, b, spans, t)),
        (true, false) => by_cmp_func!(t.func, spans_at, [true, false], (level, b, spans, t)),
        (false, true) => by_cmp_func!(t.func, spans_at, [false, true], (level, b, spans, t)),
        (true, true) => by_cmp_func!(t.func, spans_at, [true, true], (level, b, spans, t)),
    }
}

/// [`gouraud_depth24_spans`] with fog (`FOG`), blending (`BLEND`) and the
/// depth function `F` (see [`super::cmp_func_of`]) fixed.
#[inline(always)]
fn spans_at<const FOG: bool, const BLEND: bool, const F: u8>(
    level: SimdLevel,
    b: &mut BandRows<'_>,
    spans: &[Span],
    t: &TriDepth24,
) -> u32 {
    // By reference (see `gouraud_span`).
    level.dispatch(&mut Spans::<F, FOG, BLEND> { b, spans, t })
}

/// The arguments of the vector kernel of [`gouraud_depth24_spans`], for
/// the depth function `F`, with fog when `FOG` and blending when
/// `BLEND`: fixed per instantiation so that the 8-pixel loop tests none.
struct Spans<'a, 'b, const F: u8, const FOG: bool, const BLEND: bool> {
    b: &'a mut BandRows<'b>,
    spans: &'a [Span],
    t: &'a TriDepth24,
}

/// Per-triangle values every 8-pixel vector shares.
struct Shared<S: Simd> {
    /// `zref`, `dzdx` per lane.
    zref: S::F32x8,
    dzdx: S::F32x8,
    /// 0.0, 1.0 and 2^24 − 1 per lane (the depth clamp and scale).
    zero: S::F32x8,
    one: S::F32x8,
    scale: S::F32x8,
    /// 0xFF per lane: the low byte of the depth, kept.
    low8: S::I32x8,
    /// Every lane set when depth writes are on, else none.
    write: S::M32x8,
    /// Lane numbers 0..8.
    lane: S::I32x8,
    /// AND mask of the packed colour.
    and_mask: S::I32x8,
    /// Its complement, ORed into the destination before blending.
    dst_or: S::I32x8,
    /// The fog colour's lanes.
    fog: FogLanes<S>,
}

/// The per-triangle lanes of fused fog: the fog colour per u16 lane (B,
/// G, R, 0 per pixel), and the alpha u16 lanes (the high half of odd
/// i32 lanes), which fog leaves alone. Shared with the depth-less
/// `super::gouraud_fog_span`.
#[derive(Clone, Copy)]
pub(super) struct FogLanes<S: Simd> {
    color16: S::I32x8,
    alpha16: S::I32x8,
}

impl<S: Simd> FogLanes<S> {
    /// The lanes of fog colour `fcol` (blue, green, red, unused).
    #[inline(always)]
    pub(super) fn new(s: S, fcol: [i32; 4]) -> Self {
        let bg = (fcol[0] & 0xFF) | (fcol[1] & 0xFF) << 16;
        let r = fcol[2] & 0xFF;
        let a = 0xFFFF_0000u32 as i32;
        FogLanes {
            color16: s.i32x8([bg, r, bg, r, bg, r, bg, r]),
            alpha16: s.i32x8([0, a, 0, a, 0, a, 0, a]),
        }
    }

    /// 8 fogged pixels: the 16.16 colours `r` (one pixel per half of each
    /// vector, as `gouraud_span`) and factors `fr` (16.16, lane `i` =
    /// pixel `i`), each clamped to 0..=255, as `fog8` of the reference:
    /// `round((c·f + fc·(255 − f)) / 255)` per colour channel (`div255`),
    /// the alpha channel `c`; in u16 lanes, pixels 0, 1 | 4, 5 and 2, 3 |
    /// 6, 7 (the packs' arrangement). The factors are spread over each
    /// pixel's four u16 lanes in the same arrangement: one vector of
    /// factors per 8 pixels instead of four (registers, not arithmetic:
    /// the same values).
    #[inline(always)]
    pub(super) fn pixels(&self, s: S, r: &[S::I32x8; 4], fr: S::I32x8) -> S::I32x8 {
        let f8 = fr.shr::<16>().max(s.splat_i32(0)).min(s.splat_i32(255));
        self.pixels_f8(s, r, f8)
    }

    /// [`FogLanes::pixels`] with the factors given as bytes (0..=255,
    /// lane `i` = pixel `i`).
    #[inline(always)]
    pub(super) fn pixels_f8(&self, s: S, r: &[S::I32x8; 4], f8: S::I32x8) -> S::I32x8 {
        let c = [channels16(s, r[0], r[1]), channels16(s, r[2], r[3])];
        let f = [f8.spread_lo_u16(), f8.spread_hi_u16()];
        S::I32x8::pack_i16_u8_sat(self.fog16(s, c[0], f[0]), self.fog16(s, c[1], f[1]))
    }

    /// Colour u16 lanes `c` fogged with the factor lanes `f` (both from
    /// [`channels16`]): `round((c·f + fc·(255 − f)) / 255)` per colour
    /// lane, the alpha lanes keep `c`: `fog8` of the reference, lane by
    /// lane.
    #[inline(always)]
    fn fog16(&self, s: S, c: S::I32x8, f: S::I32x8) -> S::I32x8 {
        let inv = s.splat_i32(0x00FF_00FF).sub_u16(f);
        let q = div255_u16(s, c.mul_lo_u16(f).add_u16(self.color16.mul_lo_u16(inv)));
        q ^ ((q ^ c) & self.alpha16)
    }
}

/// One 8-pixel vector of a span starting at column offset `x` (relative
/// to the planes' reference) of a row whose `dz/dy` term is `zy`: the
/// depth test of the plane's depth against `old_d`, the colours `r` (one
/// pixel per half of each vector, as `gouraud_span`), fogged with the
/// factors `fr` (16.16, lane `i` = pixel `i`) when `FOG`, blended over
/// `old_c` (SRCALPHA/INVSRCALPHA) when `BLEND`. Lanes outside `inside` or
/// failing the test keep `old_c` and `old_d`. Returns the colour and depth
/// to store and the lanes that passed.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn depth8<S: Simd, const F: u8, const FOG: bool, const BLEND: bool>(
    s: S,
    k: &Shared<S>,
    zy: S::F32x8,
    x: i32,
    r: &[S::I32x8; 4],
    fr: S::I32x8,
    old_c: S::I32x8,
    old_d: S::I32x8,
    inside: Option<S::M32x8>,
) -> (S::I32x8, S::I32x8, u32) {
    let fx = (s.splat_i32(x) + k.lane).to_f32();
    let z = (k.zref + k.dzdx.mul(fx)) + zy;
    let zq = quantize::<S>(z, k.zero, k.one, k.scale);
    let test = depth_test::<F, _>(zq, old_d.shr_logical::<8>());
    let pass = match inside {
        Some(m) => test & m,
        None => test,
    };
    let new_d = zq.shl::<8>() | (old_d & k.low8);
    let out_d = S::I32x8::select(pass & k.write, new_d, old_d);
    let col = if FOG {
        k.fog.pixels(s, r, fr)
    } else {
        S::I32x8::pack_u8_sat([
            r[0].shr::<16>(),
            r[1].shr::<16>(),
            r[2].shr::<16>(),
            r[3].shr::<16>(),
        ])
    };
    let col = if BLEND {
        super::blend::blend8::<{ factor::SRC_ALPHA }, { factor::INV_SRC_ALPHA }, S>(
            s,
            col,
            old_c | k.dst_or,
        )
    } else {
        col
    } & k.and_mask;
    (
        S::I32x8::select(pass, col, old_c),
        out_d,
        pass.bitmask().count_ones(),
    )
}

/// Depth lanes `z` quantised to a depth channel of `scale` = 2^n − 1
/// (n ≤ 24) as `Format::quantize_depth` does: clamped to `[0, 1]` (NaN
/// to 0: `max` returns its second operand on NaN), scaled, rounded ties
/// to even. `zero`, `one` are 0.0 and 1.0 per lane. The one formula of
/// the depth kernels (this one and `simd::merge`).
#[inline(always)]
pub(super) fn quantize<S: Simd>(
    z: S::F32x8,
    zero: S::F32x8,
    one: S::F32x8,
    scale: S::F32x8,
) -> S::I32x8 {
    z.max(zero).min(one).mul(scale).round_i32()
}

/// The 16.16 channel lanes of two vectors (one pixel per half each) as
/// u16 lanes clamped to `0..=255`: half `h` holds pixel `h` of `a`, then
/// that of `b` (`pack_i32_i16_sat`). Functions, not closures: a closure
/// in a kernel was compiled out of line (+12 % on W7).
#[inline(always)]
fn channels16<S: Simd>(s: S, a: S::I32x8, b: S::I32x8) -> S::I32x8 {
    S::I32x8::pack_i32_i16_sat(a.shr::<16>(), b.shr::<16>())
        .clamp_i16(s.splat_i32(0), s.splat_i32(0x00FF_00FF))
}

impl<const F: u8, const FOG: bool, const BLEND: bool> Kernel for &mut Spans<'_, '_, F, FOG, BLEND> {
    type Output = u32;

    /// Colour (and fog factor) vectors of a span are built from
    /// per-triangle vectors (`ref + dx·ddx + dy·ddy + lane·ddx`, wrapping
    /// like the reference) and stepped by 8 pixels with additions.
    #[inline(always)]
    fn run<S: Simd>(self, s: S) -> u32 {
        let Spans { b, spans, t } = self;
        let t = *t;
        let splat = |v: i32| s.splat_i32(v);
        // Vector k holds pixel k (low half) and pixel k + 4 (high half).
        let base = s.repeat4_i32(t.diffuse[0]);
        let sx = s.repeat4_i32(t.diffuse[1]);
        let sy = s.repeat4_i32(t.diffuse[2]);
        let high = s.i32x8([0, 0, 0, 0, -1, -1, -1, -1]);
        let lofs0 = sx.shl::<2>() & high;
        let step8 = sx.shl::<3>();
        let fplane = match t.fog {
            Some(f) if FOG => f.plane,
            _ => [0; 3],
        };
        let fcol = match t.fog {
            Some(f) if FOG => f.color,
            _ => [0; 4],
        };
        let (fbase, fsx, fsy) = (splat(fplane[0]), splat(fplane[1]), splat(fplane[2]));
        let flane = s.i32x8([0, 1, 2, 3, 4, 5, 6, 7]).mul(fsx);
        let fstep8 = fsx.shl::<3>();
        let k = Shared::<S> {
            zref: s.splat_f32(t.z[0]),
            dzdx: s.splat_f32(t.z[1]),
            zero: s.splat_f32(0.0),
            one: s.splat_f32(1.0),
            scale: s.splat_f32(16_777_215.0),
            low8: splat(0xFF),
            write: splat(i32::from(t.write)).simd_eq(splat(1)),
            lane: s.i32x8([0, 1, 2, 3, 4, 5, 6, 7]),
            and_mask: splat(t.and_mask as i32),
            dst_or: splat(!t.and_mask as i32),
            fog: FogLanes::new(s, fcol),
        };
        let mut passed = 0;
        for sp in *spans {
            let Some((cr, dr, _, p)) = span_setup(b, sp, t) else {
                continue;
            };
            let (Some(color), Some(depth)) = (b.color.get_mut(cr), b.depth.get_mut(dr)) else {
                continue;
            };
            let n = (sp.n as usize).min(color.len() / 4).min(depth.len() / 4);
            let n8 = n / 8;
            let (dx, dy) = (splat(sp.x - t.rx), splat(sp.y - t.ry));
            let r0 = base + dx.mul(sx) + dy.mul(sy) + lofs0;
            let r1 = r0 + sx;
            let r2 = r1 + sx;
            let mut r = [r0, r1, r2, r2 + sx];
            // Lane i: the fog factor of pixel i (16.16).
            let mut fr = splat(0);
            if FOG {
                fr = fbase + dx.mul(fsx) + dy.mul(fsy) + flane;
            }
            let zy = s.splat_f32(p.zy);
            let (Some((cbody, ctail)), Some((dbody, dtail))) = (
                color.split_at_mut_checked(n8 * 32),
                depth.split_at_mut_checked(n8 * 32),
            ) else {
                continue;
            };
            let mut x = p.fx0;
            for (c, d) in cbody
                .as_chunks_mut::<32>()
                .0
                .iter_mut()
                .zip(dbody.as_chunks_mut::<32>().0)
            {
                let (out_c, out_d, np) = depth8::<S, F, FOG, BLEND>(
                    s,
                    &k,
                    zy,
                    x,
                    &r,
                    fr,
                    s.load_i32(c),
                    s.load_i32(d),
                    None,
                );
                out_d.store(d);
                out_c.store(c);
                passed += np;
                x = x.wrapping_add(8);
                for rk in r.iter_mut() {
                    *rk = *rk + step8;
                }
                if FOG {
                    fr = fr + fstep8;
                }
            }
            let rem = n - n8 * 8;
            if rem > 0 {
                let inside = Some(splat(rem as i32).simd_gt(k.lane));
                if let (Some(c), Some(d)) =
                    (ctail.first_chunk_mut::<32>(), dtail.first_chunk_mut::<32>())
                {
                    // Lanes past the span are outside `inside`: stored
                    // back unchanged.
                    let (out_c, out_d, np) = depth8::<S, F, FOG, BLEND>(
                        s,
                        &k,
                        zy,
                        x,
                        &r,
                        fr,
                        s.load_i32(c),
                        s.load_i32(d),
                        inside,
                    );
                    out_d.store(d);
                    out_c.store(c);
                    passed += np;
                } else {
                    // The band ends within a vector: only whole lanes
                    // inside it are read and written back.
                    let (out_c, out_d, np) = depth8::<S, F, FOG, BLEND>(
                        s,
                        &k,
                        zy,
                        x,
                        &r,
                        fr,
                        s.load_i32_prefix(ctail),
                        s.load_i32_prefix(dtail),
                        inside,
                    );
                    out_d.store_prefix(dtail);
                    out_c.store_prefix(ctail);
                    passed += np;
                }
            }
        }
        passed
    }
}
#[cfg(test)]
mod tests {
    use super::super::tests::{funcs, LEVELS};
    use super::*;
    use proptest::prelude::*;

    /// The reference's blend by hand: 0x80FF0000 (alpha 128, red 255)
    /// over 0xFF0000FF: red round(255·128 / 255) = 128, blue
    /// round(255·127 / 255) = 127, alpha round((128·128 + 255·127) / 255)
    /// = round(191.25) = 191.
    #[test]
    fn blend_src_alpha_by_hand() {
        assert_eq!(blend_src_alpha(0x80FF_0000, 0xFF00_00FF), 0xBF80_007F);
        assert_eq!(blend_src_alpha(0xFF12_3456, 0x0000_0000), 0xFF12_3456);
        assert_eq!(blend_src_alpha(0x0012_3456, 0xFFAB_CDEF), 0xFFAB_CDEF);
    }

    proptest! {
        #[test]
        fn depth24_spans_match_scalar(
            rows in proptest::collection::vec((0i32..16, 0i32..20, 1u32..13), 0..12),
            diffuse in proptest::array::uniform3(proptest::array::uniform4(-0x40_0000i32..0x40_0000)),
            z in proptest::array::uniform3(-0.2f32..1.2),
            func in funcs(),
            write in any::<bool>(),
            seed in any::<u64>(),
            fogp in proptest::option::of(proptest::array::uniform3(-0x40_0000i32..0x140_0000)),
            (blend, and_mask) in (any::<bool>(), prop_oneof![Just(u32::MAX), Just(0x00FF_FFFFu32)]),
        ) {
            // A band of 16 rows × 32 pixels; spans may reach the band end.
            let (w, h) = (32usize, 16usize);
            let spans: Vec<Span> = rows
                .iter()
                .map(|&(y, x, n)| Span { y, x, n: n.min((w as i32 - x) as u32).max(1) })
                .collect();
            let fog = fogp.map(|plane| FogFixed { plane, color: [0xB3, 0x99, 0x80, 0] });
            let t = TriDepth24 { diffuse, z, rx: 3, ry: -2, func, write, and_mask, fog, blend };
            let mut s = seed;
            let mut depth0 = vec![0u8; w * h * 4];
            let mut color0 = vec![0u8; w * h * 4];
            for b in depth0.iter_mut().chain(color0.iter_mut()) {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                *b = (s >> 56) as u8;
            }
            let mut want_c = color0.clone();
            let mut want_d = depth0.clone();
            let want_n = {
                let mut b = BandRows { color: &mut want_c, color_pitch: w * 4, depth: &mut want_d, depth_pitch: w * 4, y0: 0 };
                gouraud_depth24_spans_scalar(&mut b, &spans, &t)
            };
            for level in [SimdLevel::Scalar].into_iter().chain(LEVELS) {
                let level = level.clamp_to_cpu();
                let mut c = color0.clone();
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
