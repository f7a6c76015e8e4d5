//! The 8-bit texture-stage cascade kernel: the spans of one triangle in a
//! band through the stages of `crate::cascade8`, eight pixels at a time.
//!
//! *Input*: the band's colour and depth rows, the draw's [`Cascade8`]
//! (its stages, texture factor, specular add, fog, alpha test, output
//! merger), the triangle's diffuse, specular, texture-coordinate and
//! depth planes, its table-fog factor of w and its winding
//! ([`Cascade8Tri`]) and its spans. *Output*: the pixels that pass the
//! alpha test written to the A8R8G8B8/X8R8G8B8 rows by the plain store,
//! or handed to the draw's output merger over 8 lanes (`super::merge`,
//! through [`MergeUser`], with the triangle's stencil face); the number
//! that passed. Fog factors are the specular alpha, or table fog's of
//! each pixel's depth from the depth plane ([`table_fog8`]: LINEAR in
//! lanes, EXP and EXP2 by the draw's `FogByteTable` lookup, two gathers
//! and a compare, or without one a `crate::fog::fog_factor` call a lane;
//! the mode a branch per 8 pixels), or the triangle's one factor of w.
//!
//! *Guarantees*: one kernel, written over the vector layer
//! ([`super::wide`]) and instantiated at every level, so it gives the
//! same bytes at every level (each layer operation does; the tests below
//! compare the levels on random draws of every stage operation, and the
//! kernel with a pixel-at-a-time reference of `crate::cascade8`'s
//! arithmetic). Every channel is a byte held in a u16 lane (four lanes a
//! pixel, in `tex_modulate`'s halves: pixels 0, 1 | 4, 5 and 2, 3 | 6,
//! 7); texels come from `tex_modulate`'s filter ([`Filter`]), so they are
//! `tex_modulate::sample8`'s bytes (the filter's common shape, LINEAR
//! WRAP 32-bit, without a branch; any other behind one branch per stage
//! and 8 pixels). Per-draw choices (how many stages, which
//! operation) are branches taken once per 8 pixels, never per pixel; v
//! constant along every sampling stage's spans is a const parameter.
//! The end of the kernel (after the stage loop) is the one place that
//! stores: [`End`], the plain store or the merger's
//! [`MergeLanes::merge_at`] (its structural choices const parameters, so
//! the plain store's instantiation carries none of the merger). Bytes of
//! a span's row outside the pixels that pass are left as they were; no
//! byte outside the band is read or written.
#![forbid(unsafe_code)]
use super::div255_u16;
use super::merge::{depth as merge_depth, plane_z, MergeLanes, MergeUser};
use super::tex_modulate::{Filter, Rows};
use super::wide::{F32x8, I32x8, Kernel, M32x8, Simd};
use super::{depth_test, BandRows, SimdLevel, Span};
use crate::cascade8::{Arg8, Cascade8, Fog8, FogByteTable, Op8, StageOp, TableFog, STAGES8};
use crate::fog::FogMode;
use crate::state::CmpFunc;

/// One triangle of the cascade: its planes, relative to the reference
/// pixel `(rx, ry)` (the corner of its bounding box).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Cascade8Tri {
    /// Diffuse 16.16 planes (BGRA): `[at reference, d/dx, d/dy]`.
    pub diffuse: [[i32; 4]; 3],
    /// Specular 16.16 planes (BGRA; the alpha is the fog factor × 255).
    pub specular: [[i32; 4]; 3],
    /// Per stage, the u and v planes (`attr · rhw`: `[at reference,
    /// d/dx, d/dy]`) of the stages that sample; u of a pixel is `((u0 +
    /// u1·fx) + u2·fy) · inv`.
    pub uv: [[[f32; 3]; 2]; STAGES8],
    /// 1 / rhw (affine triangles only).
    pub inv: f32,
    /// Depth plane `[z, dz/dx, dz/dy]` (bias included), read when the draw
    /// ends in the output merger with a depth test, or for table fog of z.
    pub z: [f32; 3],
    /// The fog factor byte of table fog of w ([`Fog8::TableW`]: w is
    /// constant over an affine triangle).
    pub fog_w: i32,
    /// The triangle is counter-clockwise (two-sided stencil).
    pub ccw: bool,
    /// Reference column and row.
    pub rx: i32,
    /// See `rx`.
    pub ry: i32,
}

/// Runs the cascade `c8` over `spans` of `tri` in `band` at `level`; the
/// number of pixels that passed (the alpha test, and the depth test when
/// the draw ends in the output merger `c8.merge`).
pub(crate) fn cascade8_spans(
    level: SimdLevel,
    band: BandRows<'_>,
    c8: &Cascade8<'_>,
    tri: &Cascade8Tri,
    spans: &[Span],
) -> u64 {
    // v constant along the spans of every sampling stage.
    let mut vrow = true;
    for (st, uv) in c8.stages.iter().zip(&tri.uv) {
        if st.is_some_and(|s| s.texture.is_some()) && uv[1][1] != 0.0 {
            vrow = false;
        }
    }
    match (&c8.merge, vrow) {
        (None, true) => level.dispatch(Run::<true> {
            band,
            c8,
            tri,
            spans,
        }),
        (None, false) => level.dispatch(Run::<false> {
            band,
            c8,
            tri,
            spans,
        }),
        (Some(m), true) => m.run_facing(
            level,
            tri.ccw,
            Run::<true> {
                band,
                c8,
                tri,
                spans,
            },
        ),
        (Some(m), false) => m.run_facing(
            level,
            tri.ccw,
            Run::<false> {
                band,
                c8,
                tri,
                spans,
            },
        ),
    }
}

/// The arguments of [`cascade8_spans`]; `VROW` when v is constant along
/// the spans of every sampling stage.
struct Run<'a, 'b, const VROW: bool> {
    band: BandRows<'a>,
    c8: &'b Cascade8<'b>,
    tri: &'b Cascade8Tri,
    spans: &'b [Span],
}

/// What every 8 pixels of a triangle share (set up once per triangle).
#[derive(Clone, Copy)]
struct Consts<S: Simd> {
    zero: S::I32x8,
    /// 255, 127, 128 in every u16 lane.
    c255: S::I32x8,
    c127: S::I32x8,
    c128: S::I32x8,
    /// 0x8081 in every u16 lane (`div255`'s multiplier).
    m8081: S::I32x8,
    /// All ones in the u16 lanes of alpha.
    alpha16: S::I32x8,
    /// All ones in the u16 lanes of blue, green and red.
    rgb16: S::I32x8,
    /// TFACTOR, one pixel's four u16 lanes repeated.
    tfactor: S::I32x8,
    /// The fog colour likewise (alpha 0).
    fog: S::I32x8,
    /// The alpha-test reference in every i32 lane.
    aref: S::I32x8,
    and_mask: S::I32x8,
    inv: S::F32x8,
}

/// One sampling stage's planes for one span, and its rows with `VROW`.
#[derive(Clone, Copy)]
struct StageSpan<'d, S: Simd> {
    u: [S::F32x8; 3],
    v: [S::F32x8; 3],
    rows: Rows<'d, S>,
}

/// Four bytes (BGRA) as one pixel's u16 lanes, repeated over the vector.
#[inline(always)]
fn repeat16<S: Simd>(s: S, c: [i32; 4]) -> S::I32x8 {
    let (lo, hi) = (c[0] | c[1] << 16, c[2] | c[3] << 16);
    s.i32x8([lo, hi, lo, hi, lo, hi, lo, hi])
}

impl<const VROW: bool> Kernel for Run<'_, '_, VROW> {
    type Output = u64;

    /// The cascade ending in the plain store ([`Store`]).
    #[inline(always)]
    fn run<S: Simd>(self, s: S) -> u64 {
        let and_mask = s.splat_i32(self.c8.and_mask as i32);
        spans::<VROW, S, Store>(s, self, &Store, and_mask)
    }
}

impl<const VROW: bool> MergeUser for Run<'_, '_, VROW> {
    type Output = u64;

    /// The cascade ending in the output merger `m` (which masks the X
    /// byte of X8R8G8B8 itself, after blending reads the alpha).
    #[inline(always)]
    fn run<S: Simd, const DEPTH: u8, const FMT: u8, const BLEND: u8>(
        self,
        s: S,
        m: &MergeLanes<S, DEPTH, FMT, BLEND>,
    ) -> u64 {
        spans::<VROW, S, _>(s, self, m, s.splat_i32(-1))
    }
}

/// Where the kernel's 8 pixels go: the end of the kernel, the one place
/// that stores.
trait End<S: Simd> {
    /// The end reads the fragments' depths.
    const DEPTH: bool;
    /// Stores fragments `0..n` (n may exceed 8: only 8 are stored) at
    /// column `x` of row `row` of `b`: their packed colours `px`, the
    /// lanes `live` that passed the alpha test, their depths `z` (read
    /// only with [`End::DEPTH`]); the number that passed.
    #[allow(clippy::too_many_arguments)]
    fn end(
        &self,
        s: S,
        b: &mut BandRows<'_>,
        row: usize,
        x: usize,
        n: usize,
        px: S::I32x8,
        live: S::M32x8,
        z: S::F32x8,
    ) -> u32;
}

/// The plain store of an A8R8G8B8/X8R8G8B8 target with no depth test, no
/// blending and every channel written: the live pixels written, the
/// others' bytes left as they were.
struct Store;

impl<S: Simd> End<S> for Store {
    const DEPTH: bool = false;

    #[inline(always)]
    fn end(
        &self,
        s: S,
        b: &mut BandRows<'_>,
        row: usize,
        x: usize,
        n: usize,
        px: S::I32x8,
        live: S::M32x8,
        _z: S::F32x8,
    ) -> u32 {
        let at = row * b.color_pitch + x * 4;
        let Some(dst) = b.color.get_mut(at..) else {
            return 0;
        };
        let m = live.bitmask();
        if n >= 8 {
            if let Some(chunk) = dst.first_chunk_mut::<32>() {
                if m == 0xFF {
                    px.store(chunk);
                } else {
                    S::I32x8::select(live, px, s.load_i32(chunk)).store(chunk);
                }
                return m.count_ones();
            }
        }
        let Some(tail) = dst.get_mut(..4 * n.min(8)) else {
            return 0;
        };
        let old = s.load_i32_prefix(tail);
        S::I32x8::select(live, px, old).store_prefix(tail);
        (m & ((1u32 << n.min(8)) - 1)).count_ones()
    }
}

impl<S: Simd, const DEPTH: u8, const FMT: u8, const BLEND: u8> End<S>
    for MergeLanes<S, DEPTH, FMT, BLEND>
{
    const DEPTH: bool = DEPTH != merge_depth::NONE && DEPTH != merge_depth::S8;

    #[inline(always)]
    fn end(
        &self,
        s: S,
        b: &mut BandRows<'_>,
        row: usize,
        x: usize,
        n: usize,
        px: S::I32x8,
        live: S::M32x8,
        z: S::F32x8,
    ) -> u32 {
        self.merge_at(s, b, row, x, n, px, live, z)
    }
}

/// The kernel: per span, 8 pixels a step (colour vector k holds pixel
/// i+k (16.16 BGRA) in its low half and pixel i+k+4 in its high half, as
/// `simd::tex_modulate`), shaded by [`shade8`] and handed to the end `e`;
/// `and_mask` is ANDed into the packed colours.
#[inline(always)]
fn spans<const VROW: bool, S: Simd, E: End<S>>(
    s: S,
    r: Run<'_, '_, VROW>,
    e: &E,
    and_mask: S::I32x8,
) -> u64 {
    let Run {
        mut band,
        c8,
        tri,
        spans,
    } = r;
    let zero = s.splat_i32(0);
    let [fb, fg, fr] = c8.fog.unwrap_or([0; 3]);
    let k = Consts::<S> {
        zero,
        c255: s.splat_i32(0x00FF_00FF),
        c127: s.splat_i32(0x007F_007F),
        c128: s.splat_i32(0x0080_0080),
        m8081: s.splat_i32(0x8081_8081u32 as i32),
        alpha16: repeat16(s, [0, 0, 0, 0xFFFF]),
        rgb16: repeat16(s, [0xFFFF, 0xFFFF, 0xFFFF, 0]),
        tfactor: repeat16(s, c8.tfactor),
        fog: repeat16(s, [fb, fg, fr, 0]),
        aref: s.splat_i32(match c8.alpha_test {
            Some((_, r)) => r,
            None => 0,
        }),
        and_mask,
        inv: s.splat_f32(tri.inv),
    };
    let mut filters: [Option<Filter<'_, S>>; STAGES8] = [None; STAGES8];
    let mut same = [false; STAGES8];
    // Table fog of z reads the depth plane; vertex fog the specular alpha.
    let (table_z, table) = match (c8.fog, c8.fog_from) {
        (None, _) | (_, Fog8::Vertex) => (None, false),
        (Some(_), Fog8::TableZ(t)) => (Some(t), true),
        (Some(_), Fog8::TableW(_)) => (None, true),
    };
    let (fog_end, fog_span) = table_z.map_or((0.0, 1.0), |t| (t.end, t.end - t.start));
    let (fog_end, fog_span) = (s.splat_f32(fog_end), s.splat_f32(fog_span));
    let fog_w = s.splat_i32(tri.fog_w);
    let fog_w = [fog_w.spread_lo_u16(), fog_w.spread_hi_u16()];
    let mut need_spec = c8.specular_add || c8.fog.is_some() && !table;
    for n in 0..STAGES8 {
        let Some(st) = &c8.stages[n] else { break };
        if let Some((level, force)) = &st.texture {
            filters[n] = Some(Filter::new(s, level, *force));
        }
        same[n] = st.alpha == st.color;
        for o in [st.color, st.alpha] {
            need_spec |= o.op == Op8::Blend(Arg8::Specular)
                || o.op != Op8::Keep && (o.arg1 == Arg8::Specular || o.arg2 == Arg8::Specular);
        }
    }
    let lane = s.i32x8([0, 1, 2, 3, 4, 5, 6, 7]);
    let eight = s.splat_i32(8);
    let high = s.i32x8([0, 0, 0, 0, -1, -1, -1, -1]);
    let (dstep, sstep) = (
        s.repeat4_i32(tri.diffuse[1]),
        s.repeat4_i32(tri.specular[1]),
    );
    let (d8, s8) = (dstep.shl::<3>(), sstep.shl::<3>());
    let (zref, dzdx) = (s.splat_f32(tri.z[0]), s.splat_f32(tri.z[1]));
    let mut written = 0u64;
    for sp in spans {
        let (Ok(row), Ok(x0)) = (usize::try_from(sp.y - band.y0), usize::try_from(sp.x)) else {
            continue;
        };
        let n = sp.n as usize;
        let (dx, dy) = (sp.x - tri.rx, sp.y - tri.ry);
        let fy = dy as f32;
        let mut st_span: [Option<StageSpan<'_, S>>; STAGES8] = [None; STAGES8];
        for i in 0..STAGES8 {
            if let Some(f) = &filters[i] {
                let [pu, pv] = tri.uv[i];
                let u = [
                    s.splat_f32(pu[0]),
                    s.splat_f32(pu[1]),
                    s.splat_f32(pu[2] * fy),
                ];
                let v = [
                    s.splat_f32(pv[0]),
                    s.splat_f32(pv[1]),
                    s.splat_f32(pv[2] * fy),
                ];
                let rows = f.rows::<VROW>(s, (v[0] + v[2]).mul(k.inv));
                st_span[i] = Some(StageSpan { u, v, rows });
            }
        }
        let mut d = start4(
            s,
            crate::pixel::fixed_start(&tri.diffuse, dx, dy),
            dstep,
            high,
        );
        let mut sc = start4(
            s,
            crate::pixel::fixed_start(&tri.specular, dx, dy),
            sstep,
            high,
        );
        let zy = s.splat_f32(tri.z[2] * fy);
        let mut fx = s.splat_i32(dx) + lane;
        let mut i = 0;
        while i < n {
            let z = if E::DEPTH || table_z.is_some() {
                plane_z::<S>(zref, dzdx, zy, fx.to_f32())
            } else {
                zref
            };
            let fogf = match &table_z {
                Some(t) => {
                    let f = table_fog8(s, t, c8.fog_bytes, z, fog_end, fog_span);
                    [f.spread_lo_u16(), f.spread_hi_u16()]
                }
                None => fog_w,
            };
            let (px, live) = shade8::<VROW, S>(
                s, &k, c8, &filters, &st_span, &same, need_spec, table, fogf, fx, &d, &sc,
            );
            written += u64::from(e.end(s, &mut band, row, x0 + i, n - i, px, live, z));
            i += 8;
            fx = fx + eight;
            for j in 0..4 {
                d[j] = d[j] + d8;
                sc[j] = sc[j] + s8;
            }
        }
    }
    written
}

/// The four colour vectors of the first 8 pixels of a span from its start
/// colour and step (see [`Run`]'s `run`).
#[inline(always)]
fn start4<S: Simd>(s: S, start: [i32; 4], step: S::I32x8, high: S::I32x8) -> [S::I32x8; 4] {
    let v0 = s.repeat4_i32(start) + (step.shl::<2>() & high);
    let v1 = v0 + step;
    let v2 = v1 + step;
    [v0, v1, v2, v2 + step]
}

/// 16.16 colour vectors (see [`start4`]) as bytes in u16 halves, each
/// channel `clamp(v >> 16, 0, 255)`.
#[inline(always)]
fn halves<S: Simd>(k: &Consts<S>, v: &[S::I32x8; 4]) -> [S::I32x8; 2] {
    [
        S::I32x8::pack_i32_i16_sat(v[0].shr::<16>(), v[1].shr::<16>()).clamp_i16(k.zero, k.c255),
        S::I32x8::pack_i32_i16_sat(v[2].shr::<16>(), v[3].shr::<16>()).clamp_i16(k.zero, k.c255),
    ]
}

/// The bytes an operation reads for 8 pixels, in u16 halves.
#[derive(Clone, Copy)]
struct Regs<V> {
    diffuse: [V; 2],
    current: [V; 2],
    texture: [V; 2],
    specular: [V; 2],
    tfactor: [V; 2],
}

impl<V: Copy> Regs<V> {
    #[inline(always)]
    fn read(&self, a: Arg8) -> [V; 2] {
        match a {
            Arg8::Diffuse => self.diffuse,
            Arg8::Current => self.current,
            Arg8::Texture => self.texture,
            Arg8::Specular => self.specular,
            Arg8::TFactor => self.tfactor,
        }
    }
}

/// Table fog's factor bytes of 8 pixels at depths `z`: `end` and `span`
/// are FOGEND and FOGEND − FOGSTART in every lane. LINEAR is
/// `crate::fog::fog_factor`'s IEEE operations in lanes (`(end − z) /
/// (end − start)`, NaN → 1, clamped to [0, 1]; with `end == start`, 1
/// for `z < end` else 0), then [`TableFog::factor8`]'s `round(f·255)`;
/// EXP and EXP2 read [`FogByteTable`] when the draw has one (its
/// [`FogByteTable::byte`] in lanes: two gathers and a compare), else call
/// [`TableFog::factors8`] (one `exp` a lane). The mode is chosen per
/// draw: one branch a call.
#[inline(always)]
pub(super) fn table_fog8<S: Simd>(
    s: S,
    t: &TableFog,
    bytes: Option<&FogByteTable>,
    z: S::F32x8,
    end: S::F32x8,
    span: S::F32x8,
) -> S::I32x8 {
    if let Some(b) = bytes {
        // a = z, or |z| for EXP2 (its factor is even in z): as bits, and
        // its bucket trunc(a·scale) (|trunc(z·scale)| is the same
        // integer; i32::MIN, past the range, stays i32::MIN, which the
        // gather's unsigned clamp sends to the last bucket, as `byte`).
        let bits = z.to_bits();
        let mut q = z.mul(s.splat_f32(b.scale)).trunc_i32();
        let a = if b.mode == FogMode::Exp2 {
            q = q.max(s.splat_i32(0) - q);
            bits & s.splat_i32(0x7FFF_FFFF)
        } else {
            bits
        };
        let threshold = s.gather_u32(&b.threshold, q);
        let counts = s.gather_u32(&b.counts, q);
        let above = S::I32x8::select(
            threshold.simd_gt(a),
            counts.shr_logical::<8>(),
            s.splat_i32(0),
        );
        let byte = (counts & s.splat_i32(0xFF)) + above;
        // a ≤ +0 (negative bits included) or NaN (bits past +∞): 255.
        let positive = a.simd_gt(s.splat_i32(0)) & !a.simd_gt(s.splat_i32(0x7F80_0000));
        return S::I32x8::select(positive, byte, s.splat_i32(255));
    }
    match t.mode {
        FogMode::Linear if t.end != t.start => {
            let f = (end - z).div(span);
            // `max` keeps a NaN (its second operand), `min` then gives 1.
            let (zero, one) = (s.splat_f32(0.0), s.splat_f32(1.0));
            zero.max(f).min(one).mul(s.splat_f32(255.0)).round_i32()
        }
        FogMode::Linear => S::I32x8::select(z.simd_lt(end), s.splat_i32(255), s.splat_i32(0)),
        _ => s.i32x8(t.factors8(z.to_array())),
    }
}

/// `x` where `m` has ones, else `y` (u16 lanes).
#[inline(always)]
fn merge<V: I32x8>(x: V, y: V, m: V) -> V {
    y ^ ((x ^ y) & m)
}

/// `min(round(x·y·2^shift / 255), 255)` of u16 lanes (bytes): the product
/// is exact; doubled with saturation at 65 535 (where the true quotient
/// is already above 255), plus 127 saturating, divided as `div255`
/// (exact for every u16), then clamped.
#[inline(always)]
fn modulate16<S: Simd>(k: &Consts<S>, x: S::I32x8, y: S::I32x8, shift: u8) -> S::I32x8 {
    let mut p = x.mul_lo_u16(y);
    for _ in 0..shift {
        p = p.add_sat_u16(p);
    }
    p.add_sat_u16(k.c127)
        .mul_hi_u16(k.m8081)
        .shr_u16::<7>()
        .clamp_i16(k.zero, k.c255)
}

/// All four channels of `op` for 8 pixels (see `crate::cascade8` for the
/// arithmetic; every result is in 0..=255).
#[inline(always)]
fn apply<S: Simd>(s: S, k: &Consts<S>, op: StageOp, r: &Regs<S::I32x8>) -> [S::I32x8; 2] {
    let x = r.read(op.arg1);
    let y = r.read(op.arg2);
    let (zero, c255) = (k.zero, k.c255);
    match op.op {
        Op8::Keep => r.current,
        Op8::SelectArg1 => x,
        Op8::SelectArg2 => y,
        Op8::Modulate(0) => [
            div255_u16(s, x[0].mul_lo_u16(y[0])),
            div255_u16(s, x[1].mul_lo_u16(y[1])),
        ],
        Op8::Modulate(shift) => [
            modulate16(k, x[0], y[0], shift),
            modulate16(k, x[1], y[1], shift),
        ],
        Op8::Add => [
            x[0].add_u16(y[0]).clamp_i16(zero, c255),
            x[1].add_u16(y[1]).clamp_i16(zero, c255),
        ],
        Op8::AddSigned => [
            x[0].add_u16(y[0]).sub_u16(k.c128).clamp_i16(zero, c255),
            x[1].add_u16(y[1]).sub_u16(k.c128).clamp_i16(zero, c255),
        ],
        Op8::Subtract => [
            x[0].sub_u16(y[0]).clamp_i16(zero, c255),
            x[1].sub_u16(y[1]).clamp_i16(zero, c255),
        ],
        Op8::Blend(a) => {
            let f = r.read(a);
            let (f0, f1) = (f[0].splat_alpha_u16(), f[1].splat_alpha_u16());
            [
                div255_u16(
                    s,
                    x[0].mul_lo_u16(f0)
                        .add_u16(y[0].mul_lo_u16(c255.sub_u16(f0))),
                ),
                div255_u16(
                    s,
                    x[1].mul_lo_u16(f1)
                        .add_u16(y[1].mul_lo_u16(c255.sub_u16(f1))),
                ),
            ]
        }
    }
}

/// Lanes where `a func reference` holds: the alpha test (`func` is
/// chosen per draw; one branch per 8 pixels).
#[inline(always)]
fn alpha_test<V: I32x8>(func: CmpFunc, a: V, reference: V) -> V::Mask {
    match func {
        CmpFunc::Never => depth_test::<1, V>(a, reference),
        CmpFunc::Less => depth_test::<2, V>(a, reference),
        CmpFunc::Equal => depth_test::<3, V>(a, reference),
        CmpFunc::LessEqual => depth_test::<4, V>(a, reference),
        CmpFunc::Greater => depth_test::<5, V>(a, reference),
        CmpFunc::NotEqual => depth_test::<6, V>(a, reference),
        CmpFunc::GreaterEqual => depth_test::<7, V>(a, reference),
        CmpFunc::Always => depth_test::<8, V>(a, reference),
    }
}

/// 8 pixels of a span, their columns `fx` relative to the reference
/// column, diffuse `d` and specular `sc` (16.16, see [`start4`]): the
/// packed colours (ANDed with the target's mask) and the lanes that pass
/// the alpha test. This pair is the cascade's whole result for the
/// output merger. With `table`, the fog factors are `fogf` (bytes in
/// u16 halves), else the specular alpha.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn shade8<const VROW: bool, S: Simd>(
    s: S,
    k: &Consts<S>,
    c8: &Cascade8<'_>,
    filters: &[Option<Filter<'_, S>>; STAGES8],
    st_span: &[Option<StageSpan<'_, S>>; STAGES8],
    same: &[bool; STAGES8],
    need_spec: bool,
    table: bool,
    fogf: [S::I32x8; 2],
    fx: S::I32x8,
    d: &[S::I32x8; 4],
    sc: &[S::I32x8; 4],
) -> (S::I32x8, S::M32x8) {
    let fxl = fx.to_f32();
    let diffuse = halves(k, d);
    let specular = if need_spec {
        halves(k, sc)
    } else {
        [k.zero; 2]
    };
    let mut r = Regs {
        diffuse,
        current: diffuse,
        texture: [k.zero; 2],
        specular,
        tfactor: [k.tfactor; 2],
    };
    for n in 0..STAGES8 {
        let Some(st) = &c8.stages[n] else { break };
        r.texture = match (&filters[n], &st_span[n]) {
            (Some(f), Some(p)) => {
                let u = ((p.u[0] + p.u[1].mul(fxl)) + p.u[2]).mul(k.inv);
                let v = if VROW {
                    u
                } else {
                    ((p.v[0] + p.v[1].mul(fxl)) + p.v[2]).mul(k.inv)
                };
                if f.common {
                    f.sample::<VROW, false, false>(s, &p.rows, u, v)
                } else {
                    f.sample::<VROW, false, true>(s, &p.rows, u, v)
                }
            }
            _ => [k.zero; 2],
        };
        let c = apply(s, k, st.color, &r);
        r.current = if same[n] {
            c
        } else {
            let a = apply(s, k, st.alpha, &r);
            [merge(a[0], c[0], k.alpha16), merge(a[1], c[1], k.alpha16)]
        };
    }
    let mut cur = r.current;
    if c8.specular_add {
        for h in 0..2 {
            cur[h] = cur[h]
                .add_u16(specular[h] & k.rgb16)
                .clamp_i16(k.zero, k.c255);
        }
    }
    if c8.fog.is_some() {
        for h in 0..2 {
            let f = if table {
                fogf[h]
            } else {
                specular[h].splat_alpha_u16()
            };
            let x = cur[h]
                .mul_lo_u16(f)
                .add_u16(k.fog.mul_lo_u16(k.c255.sub_u16(f)));
            cur[h] = merge(div255_u16(s, x), cur[h], k.rgb16);
        }
    }
    let px = S::I32x8::pack_i16_u8_sat(cur[0], cur[1]);
    let live = match c8.alpha_test {
        Some((func, _)) => alpha_test(func, px.shr_logical::<24>(), k.aref),
        None => k.zero.simd_eq(k.zero),
    };
    (px & k.and_mask, live)
}

#[cfg(test)]
mod tests {
    use super::super::tests::LEVELS;
    use super::super::{color_at, div255};
    use super::*;
    use crate::cascade8::Stage8;
    use crate::texture::{LevelInfo, LevelRef, TextureFormat};
    use proptest::prelude::*;

    /// One pixel's operation by the formulas of `crate::cascade8`'s
    /// module documentation, on channels `lo..hi` of `out`.
    fn op_ref(o: StageOp, regs: &[[i32; 4]; 5], lo: usize, hi: usize, out: &mut [i32; 4]) {
        let read = |a: Arg8| {
            regs[match a {
                Arg8::Diffuse => 0,
                Arg8::Current => 1,
                Arg8::Texture => 2,
                Arg8::Specular => 3,
                Arg8::TFactor => 4,
            }]
        };
        let (x, y) = (read(o.arg1), read(o.arg2));
        for k in lo..hi {
            out[k] = match o.op {
                Op8::Keep => regs[1][k],
                Op8::SelectArg1 => x[k],
                Op8::SelectArg2 => y[k],
                Op8::Modulate(shift) => ((((x[k] * y[k]) << shift) + 127) / 255).min(255),
                Op8::Add => (x[k] + y[k]).min(255),
                Op8::AddSigned => (x[k] + y[k] - 128).clamp(0, 255),
                Op8::Subtract => (x[k] - y[k]).max(0),
                Op8::Blend(a) => {
                    let f = read(a)[3];
                    (x[k] * f + y[k] * (255 - f) + 127) / 255
                }
            };
        }
    }

    /// The colour rows the reference writes: row `y0` starts at byte 0.
    struct Band<'a> {
        color: &'a mut [u8],
        pitch: usize,
        y0: i32,
    }

    /// The cascade one pixel at a time: what every level must write.
    fn reference(c8: &Cascade8<'_>, tri: &Cascade8Tri, spans: &[Span], band: Band<'_>) -> u64 {
        let mut written = 0;
        for sp in spans {
            let (dx, dy) = (sp.x - tri.rx, sp.y - tri.ry);
            let d0 = crate::pixel::fixed_start(&tri.diffuse, dx, dy);
            let s0 = crate::pixel::fixed_start(&tri.specular, dx, dy);
            for i in 0..sp.n as usize {
                let byte = |v: [i32; 4]| v.map(|c| i32::from(crate::int::clamp_u8(c >> 16)));
                let diffuse = byte(color_at(&d0, &tri.diffuse[1], i));
                let specular = byte(color_at(&s0, &tri.specular[1], i));
                let fx = (dx + i as i32) as f32;
                let mut cur = diffuse;
                for (n, st) in c8.stages.iter().enumerate() {
                    let Some(st) = st else { break };
                    let mut texel = [0; 4];
                    if let Some((level, force)) = &st.texture {
                        let [u, v] =
                            tri.uv[n].map(|p| ((p[0] + p[1] * fx) + p[2] * dy as f32) * tri.inv);
                        let t = super::super::tex_modulate::sample8(level, u, v, *force);
                        texel = t.to_le_bytes().map(i32::from);
                    }
                    let regs = [diffuse, cur, texel, specular, c8.tfactor];
                    let mut out = [0; 4];
                    op_ref(st.color, &regs, 0, 3, &mut out);
                    op_ref(st.alpha, &regs, 3, 4, &mut out);
                    cur = out;
                }
                if c8.specular_add {
                    for k in 0..3 {
                        cur[k] = (cur[k] + specular[k]).min(255);
                    }
                }
                if let Some(fc) = c8.fog {
                    let f = match c8.fog_from {
                        Fog8::Vertex => specular[3],
                        Fog8::TableZ(t) => {
                            t.factor8((tri.z[0] + tri.z[1] * fx) + tri.z[2] * dy as f32)
                        }
                        Fog8::TableW(_) => tri.fog_w,
                    };
                    for k in 0..3 {
                        cur[k] = div255(cur[k] * f + fc[k] * (255 - f));
                    }
                }
                if let Some((func, r)) = c8.alpha_test {
                    if !func.test(cur[3], r) {
                        continue;
                    }
                }
                let px = u32::from_le_bytes(cur.map(|c| c as u8)) & c8.and_mask;
                let at = (sp.y - band.y0) as usize * band.pitch + (sp.x as usize + i) * 4;
                band.color[at..at + 4].copy_from_slice(&px.to_le_bytes());
                written += 1;
            }
        }
        written
    }

    fn arg8() -> impl Strategy<Value = Arg8> {
        prop_oneof![
            Just(Arg8::Diffuse),
            Just(Arg8::Current),
            Just(Arg8::Texture),
            Just(Arg8::Specular),
            Just(Arg8::TFactor),
        ]
    }

    fn stage_op() -> impl Strategy<Value = StageOp> {
        let op = prop_oneof![
            Just(Op8::Keep),
            Just(Op8::SelectArg1),
            Just(Op8::SelectArg2),
            (0u8..3).prop_map(Op8::Modulate),
            Just(Op8::Add),
            Just(Op8::AddSigned),
            Just(Op8::Subtract),
            arg8().prop_map(Op8::Blend),
        ];
        (op, arg8(), arg8()).prop_map(|(op, arg1, arg2)| StageOp { op, arg1, arg2 })
    }

    /// Texel bytes from a seed.
    fn texels(n: usize, seed: u64) -> Vec<u8> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (s >> 56) as u8
            })
            .collect()
    }

    /// A `w × h` level over `bytes` (A8R8G8B8 or X8R8G8B8).
    fn level(bytes: &[u8], w: u32, h: u32, x8: bool) -> LevelRef<'_> {
        LevelRef {
            format: if x8 {
                TextureFormat::X8R8G8B8
            } else {
                TextureFormat::A8R8G8B8
            },
            info: LevelInfo {
                width: w,
                height: h,
                depth: 1,
                row_pitch: 4 * w as usize,
                slice_pitch: 4 * (w * h) as usize,
            },
            data: bytes,
            palette: None,
        }
    }

    const W: usize = 40;
    const H: usize = 3;

    const MODES: [crate::texture::TextureAddress; 3] = [
        crate::texture::TextureAddress::Wrap,
        crate::texture::TextureAddress::Clamp,
        crate::texture::TextureAddress::Mirror,
    ];

    /// Runs `c8` over `spans` of `tri` in a `W × H` band at every level
    /// and with the reference; all must write the same bytes and count.
    fn check(c8: &Cascade8<'_>, tri: &Cascade8Tri, spans: &[Span]) -> Result<(), TestCaseError> {
        let band0: Vec<u8> = (0..W * H * 4).map(|i| (i * 37 % 251) as u8).collect();
        let mut want = band0.clone();
        let n = reference(
            c8,
            tri,
            spans,
            Band {
                color: &mut want,
                pitch: W * 4,
                y0: 5,
            },
        );
        for lv in std::iter::once(SimdLevel::Scalar).chain(LEVELS) {
            let mut got = band0.clone();
            let band = BandRows {
                color: &mut got,
                color_pitch: W * 4,
                depth: &mut [],
                depth_pitch: 0,
                y0: 5,
            };
            let m = cascade8_spans(lv.clamp_to_cpu(), band, c8, tri, spans);
            prop_assert_eq!(&got, &want, "{:?}", lv);
            prop_assert_eq!(m, n, "{:?}", lv);
        }
        Ok(())
    }

    fn funcs() -> impl Strategy<Value = CmpFunc> {
        super::super::tests::funcs()
    }

    proptest! {
        /// Every operation over every argument, up to four stages, with
        /// and without specular add, fog and the alpha test: the kernel
        /// at every level writes the reference's bytes.
        #[test]
        fn kernel_matches_reference_at_every_level(
            ops in proptest::collection::vec((stage_op(), stage_op(), any::<bool>()), 1..=4),
            sizes in proptest::array::uniform4((1u32..12, 1u32..6, any::<bool>(), any::<u64>())),
            tfactor in proptest::array::uniform4(0i32..256),
            specular_add in any::<bool>(),
            fog in proptest::option::of(proptest::array::uniform3(0i32..256)),
            atest in proptest::option::of((funcs(), 0i32..256)),
            x8_target in any::<bool>(),
            diffuse in proptest::array::uniform3(proptest::array::uniform4(-0x40_0000i32..0x140_0000)),
            specular in proptest::array::uniform3(proptest::array::uniform4(-0x40_0000i32..0x140_0000)),
            uv in proptest::array::uniform4(proptest::array::uniform2(
                proptest::array::uniform3(-2.0f32..2.0))),
            v_const in any::<bool>(),
            unit in any::<bool>(),
            shapes in proptest::array::uniform4(proptest::option::of((any::<bool>(), 0usize..3, 0usize..3))),
            inv in 0.5f32..2.0,
            spans in proptest::collection::vec((5i32..8, 0i32..W as i32, 1u32..W as u32), 1..4),
            table in proptest::option::of((0usize..3, -1.0f32..2.0, -1.0f32..2.0, 0.0f32..4.0, any::<bool>(), any::<bool>(), 0i32..256, any::<bool>())),
            zp in proptest::array::uniform3(-0.5f32..1.5),
        ) {
            let bytes: Vec<Vec<u8>> = sizes
                .iter()
                .map(|&(w, h, _, seed)| texels(4 * ((w + if unit { 64 } else { 0 }) * h) as usize, seed))
                .collect();
            let mut stages = [None; STAGES8];
            for (n, &(color, alpha, tex)) in ops.iter().enumerate() {
                let (w, h, x8, _) = sizes[n];
                // `unit`: one texel per pixel along a wide texture, so
                // that the contiguous rows of the filter run.
                let w = if unit { w + 64 } else { w };
                let lv = level(&bytes[n], w, h, x8);
                prop_assert!(super::super::tex_level_ok(&lv));
                stages[n] = Some(Stage8 {
                    color,
                    alpha,
                    // `shapes[n]`: POINT or LINEAR and the address
                    // modes, else the common shape.
                    texture: tex.then_some((
                        match shapes[n] {
                            Some((point, au, av)) => super::super::Level8 {
                                level: lv,
                                sampling: super::super::Sampling8 {
                                    point,
                                    address: [MODES[au], MODES[av]],
                                },
                            },
                            None => super::super::Level8::bilinear_wrap(lv),
                        },
                        if x8 { 0xFF00_0000 } else { 0 },
                    )),
                });
            }
            // Table fog: mode, FOGSTART, FOGEND (= FOGSTART when `flat`),
            // FOGDENSITY, of w (its factor `fog_w`) or of z; `lookup`:
            // EXP and EXP2 of z through their `FogByteTable`.
            let lookup = table.and_then(|(mode, _, _, density, _, of_w, _, lookup)| {
                let mode = [FogMode::Linear, FogMode::Exp, FogMode::Exp2][mode];
                (lookup && !of_w).then(|| FogByteTable::new(mode, density)).flatten()
            });
            let (fog_from, fog_w) = match table {
                None => (Fog8::Vertex, 255),
                Some((mode, start, end, density, flat, of_w, fog_w, _)) => {
                    let t = TableFog {
                        mode: [FogMode::Linear, FogMode::Exp, FogMode::Exp2][mode],
                        start,
                        end: if flat { start } else { end },
                        density,
                    };
                    (if of_w { Fog8::TableW(t) } else { Fog8::TableZ(t) }, fog_w)
                }
            };
            let c8 = Cascade8 {
                stages,
                tfactor,
                specular_add,
                fog,
                fog_from,
                alpha_test: atest,
                and_mask: if x8_target { 0x00FF_FFFF } else { u32::MAX },
                merge: None,
                fog_bytes: lookup.as_ref(),
            };
            let mut uv = uv;
            for (n, p) in uv.iter_mut().enumerate() {
                if v_const {
                    p[1][1] = 0.0;
                }
                if unit {
                    p[0][1] = 1.0 / (sizes[n].0 + 64) as f32;
                }
            }
            let tri = Cascade8Tri {
                diffuse,
                specular: [specular[0], [specular[1][0] / 8, specular[1][1] / 8, specular[1][2] / 8, specular[1][3] / 8], specular[2]],
                uv,
                inv: if unit { 1.0 } else { inv },
                z: [zp[0], zp[1] / 16.0, zp[2] / 16.0],
                fog_w,
                ccw: false,
                rx: 3,
                ry: 4,
            };
            let spans: Vec<Span> = spans
                .iter()
                .map(|&(y, x, n)| Span { y, x, n: n.min(W as u32 - x as u32) })
                .collect();
            check(&c8, &tri, &spans)?;
        }
    }
}
