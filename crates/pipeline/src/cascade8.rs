//! The texture-stage cascade in 8-bit integer arithmetic: the span path
//! of fixed-function draws that combine textures the 8-bit filter takes
//! (32- or 16-bit texels, POINT or LINEAR, WRAP, CLAMP or MIRROR) with the
//! common stage operations — the multi-texture surface of DX6/DX7 games
//! (a colour map modulated by the diffuse colour, a light map MODULATE2X
//! over it, specular added, vertex or table fog, an alpha test, a
//! stencil test).
//!
//! *Input*: the draw's [`ShadeCtx`] and output-merger facts (checked once
//! per draw by [`Cascade8::new`]), an affine triangle's diffuse and
//! specular 16.16 planes, its texture-coordinate planes, and its spans.
//! *Output*: the spans' pixels, eight at a time from the kernel
//! `simd::cascade8` (written once over the vector layer: the same bytes
//! at every SIMD level), stored into an A8R8G8B8/X8R8G8B8 target by the
//! kernel's plain store, or, when the draw has a depth or stencil test,
//! blending, a colour write mask or a 16-bit target, handed with their
//! depths (and the triangle's winding, for two-sided stencil) to the
//! output merger over 8 lanes (`simd::merge`'s `Merge8`, bit-identical
//! to `pixel::output::fragment`); this module decides per draw what runs
//! and hands it each triangle ([`cascade8_spans`]).
//!
//! *What qualifies* (else the float path of `shade` runs): up to
//! [`STAGES8`] enabled stages writing CURRENT, each colour and alpha
//! operation one of SELECTARG1/2, MODULATE/2X/4X, ADD, ADDSIGNED,
//! SUBTRACT, BLEND{DIFFUSE,TEXTURE,FACTOR,CURRENT}ALPHA (or, for alpha,
//! DISABLE) over DIFFUSE, CURRENT, TEXTURE, SPECULAR or TFACTOR without
//! modifiers; every texture a stage reads sampled by the 8-bit filter
//! (`shade::filter8_level`: 2D, A8R8G8B8/X8R8G8B8 or one of the 16-bit
//! formats R5G6B5, X1R5G5B5, A1R5G5B5, A4R4G4B4, one level, POINT or
//! LINEAR, WRAP, CLAMP or MIRROR, no colour key; its bytes cover every
//! texel the kernel addresses: `simd::tex_level_ok`) at unprojected
//! coordinates; fog none, from the vertex (the specular alpha) or table
//! fog (D3DFOG_LINEAR, EXP, EXP2; of each pixel's z, or of w, which is
//! constant over an affine triangle: one factor a triangle); any alpha
//! test; an output merger that `simd::Merge8` covers (no W-buffer; no
//! depth test or one on D24S8/D24X8/D24X4S4 or D16; a stencil test on
//! D24S8/D24X4S4, two-sided or not; the targets A8R8G8B8, X8R8G8B8,
//! R5G6B5, X1R5G5B5, A1R5G5B5; blending off or with the factors and
//! operations it covers; any colour write mask);
//! and no fused kernel taking the draw (the textured fast path, colour +
//! depth with fused fog: `pixel::DrawCtx::new`).
//!
//! *Arithmetic*: channels are bytes (held in 16-bit lanes); a product is
//! `round(x·y / 255)`, MODULATE2X/4X scale it before rounding and
//! saturate, ADD saturates, ADDSIGNED is `x + y − 128` and SUBTRACT `x −
//! y` clamped to 0..=255, BLEND*ALPHA is `round((x·a + y·(255 − a)) /
//! 255)`, specular add saturates, fog is `round((c·f + fog·(255 − f)) /
//! 255)` as in the fused depth kernel, its factor `f` the specular alpha
//! byte or table fog's `crate::fog::fog_factor` (the float path's factor:
//! LINEAR in f32 lanes with the same IEEE operations, EXP and EXP2 by
//! the bytes' lookup [`FogByteTable`], which the renderer keeps per
//! FOGDENSITY, or one `exp` a lane) as the byte `round(255·f)`
//! ([`TableFog::factor8`]: the
//! float path blends with the unquantised factor, so a fogged channel
//! may differ by one unit more); the alpha test compares the final
//! alpha byte with the reference's low byte; the depth of a pixel is the
//! float path's `(z + dz/dx·x) + dz/dy·y` (`simd::merge::plane_z`), and
//! the merger's depth and stencil tests, stencil operations, blending,
//! write mask and 16-bit encoding are
//! `pixel::output::fragment`'s bytes for that colour. Each operation is within
//! half a unit of the float cascade on the same bytes; the texels of the
//! 8-bit filter (`simd::tex_modulate`'s, shared with the textured fast
//! path) are the float sampler's under POINT and within one unit of them
//! under LINEAR, so a
//! pixel may differ from the float path by a few units per channel
//! (MODULATE2X doubles a unit; tested against the float path in
//! `tests/draw.rs`). Which path a triangle takes depends only on the
//! state and on the triangle being affine, never on threads or the SIMD
//! level.

use crate::cascade::{ResultArg, TextureArg, TextureArgument, TextureOp};
use crate::fog::{fog_factor, FogMode, FogSource};
use crate::pixel::{Stats, TileTarget};
use crate::prim::{TriExtra, TriSetup};
use crate::shade::{filter8_level, ShadeCtx};
use crate::simd;
use crate::state::{CmpFunc, PipelineState};
use crate::varying::VARYING_PLANE;

/// The most enabled stages the 8-bit cascade runs.
pub(crate) const STAGES8: usize = 4;

/// An argument of an 8-bit stage operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arg8 {
    Diffuse,
    Current,
    Texture,
    Specular,
    TFactor,
}

/// A stage operation in 8-bit arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op8 {
    /// CURRENT unchanged (ALPHAOP DISABLE).
    Keep,
    SelectArg1,
    SelectArg2,
    /// MODULATE, 2X, 4X: `round(x·y·2^shift / 255)`, saturated.
    Modulate(u8),
    Add,
    AddSigned,
    Subtract,
    /// `x·a + y·(255 − a)` with `a` the alpha of this argument.
    Blend(Arg8),
}

/// One operation with its two arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StageOp {
    pub op: Op8,
    pub arg1: Arg8,
    pub arg2: Arg8,
}

impl StageOp {
    const KEEP: StageOp = StageOp {
        op: Op8::Keep,
        arg1: Arg8::Current,
        arg2: Arg8::Current,
    };

    /// The 8-bit form of `op` over `arg1`, `arg2`, if it has one.
    fn new(op: TextureOp, arg1: TextureArgument, arg2: TextureArgument) -> Option<Self> {
        use TextureOp as T;
        let op = match op {
            T::SelectArg1 => Op8::SelectArg1,
            T::SelectArg2 => Op8::SelectArg2,
            T::Modulate => Op8::Modulate(0),
            T::Modulate2x => Op8::Modulate(1),
            T::Modulate4x => Op8::Modulate(2),
            T::Add => Op8::Add,
            T::AddSigned => Op8::AddSigned,
            T::Subtract => Op8::Subtract,
            T::BlendDiffuseAlpha => Op8::Blend(Arg8::Diffuse),
            T::BlendTextureAlpha => Op8::Blend(Arg8::Texture),
            T::BlendFactorAlpha => Op8::Blend(Arg8::TFactor),
            T::BlendCurrentAlpha => Op8::Blend(Arg8::Current),
            _ => return None,
        };
        let arg = |a: TextureArgument| {
            if a.complement || a.alpha_replicate {
                return None;
            }
            Some(match a.source {
                TextureArg::Diffuse => Arg8::Diffuse,
                TextureArg::Current => Arg8::Current,
                TextureArg::Texture => Arg8::Texture,
                TextureArg::Specular => Arg8::Specular,
                TextureArg::TFactor => Arg8::TFactor,
                TextureArg::Temp | TextureArg::Constant => return None,
            })
        };
        Some(StageOp {
            op,
            arg1: arg(arg1)?,
            arg2: arg(arg2)?,
        })
    }
}

/// One enabled stage: its colour and alpha operations and, if either
/// reads the texture, the level it samples.
#[derive(Clone, Copy)]
pub(crate) struct Stage8<'a> {
    pub color: StageOp,
    pub alpha: StageOp,
    /// The sampled level, how the 8-bit filter samples it, and the bits
    /// ORed into its texels (alpha of X8R8G8B8).
    pub texture: Option<(simd::Level8<'a>, u32)>,
}

/// Table fog's formula: D3DRS_FOGTABLEMODE (LINEAR, EXP or EXP2),
/// FOGSTART, FOGEND, FOGDENSITY.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TableFog {
    pub mode: FogMode,
    pub start: f32,
    pub end: f32,
    pub density: f32,
}

impl TableFog {
    /// The fog factor of distance `d` as a byte: `crate::fog::fog_factor`
    /// (the float path's factor, the same bits), times 255, rounded to
    /// nearest even as the float path turns a channel into a byte
    /// (`int::channel_from_f32`).
    pub(crate) fn factor8(&self, d: f32) -> i32 {
        let f = fog_factor(self.mode, d, self.start, self.end, self.density);
        crate::int::channel_from_f32(f * 255.0)
    }

    /// [`TableFog::factor8`] of 8 distances, one call a lane: EXP and
    /// EXP2 call `exp` (which has no vector form with its bits). Out of
    /// line, so that the kernel's loop stays small.
    #[inline(never)]
    pub(crate) fn factors8(&self, d: [f32; 8]) -> [i32; 8] {
        let mut out = [0; 8];
        for (o, d) in out.iter_mut().zip(d) {
            *o = self.factor8(d);
        }
        out
    }
}

/// Table fog's EXP and EXP2 factor bytes of a FOGDENSITY as a lookup
/// ([`FogByteTable::new`]), so that a lane needs two table reads and a
/// compare instead of one `exp` call.
///
/// The byte of a distance `d`, [`TableFog::factor8`], is a
/// non-increasing function of `|d|` for EXP2 and of `d` for EXP (every
/// `d ≤ 0` and NaN give 255): `e^(−x)` falls as `x` grows, and the
/// product `density·d`, the square, the scaling by 255 and the rounding
/// each keep the order. So it steps down at thresholds: `t_k`, the
/// smallest non-negative f32 whose byte is below `k` (k = 1..=255), found
/// by bisection on the f32 bit patterns with `factor8` itself, and the
/// byte of `a > 0` is the number of thresholds above `a`. The positive
/// axis is cut into [`FOG_BUCKETS`] buckets by `trunc(a·scale)`
/// (`scale = FOG_BUCKETS / t_1`; everything past `t_1`, whose byte is 0,
/// in the last bucket); each bucket holds the count of thresholds past it
/// and the one threshold value inside it with its multiplicity (several
/// `k` share a value where the byte drops by more than one between two
/// neighbouring floats). The lookup is therefore `factor8`'s byte
/// wherever `factor8` is monotone in `d`, which it is as far as the
/// platform's `expf` is (tested against it over the whole range of
/// bytes, `tests` below).
///
/// `new` gives `None` (the draw keeps one `exp` a lane) for LINEAR, for a
/// density that is not a positive finite number, and when two distinct
/// thresholds fall into one bucket (densities so large that every byte
/// changes within a few floats, where `scale` is not finite, or a step
/// narrower than a bucket: not the case for any positive density with
/// the bucket count chosen here, where EXP's steps are at least 0.0039
/// wide in `density·d` and a bucket 6.24 / 2048).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FogByteTable {
    /// The formula the table is of (EXP or EXP2) and its FOGDENSITY.
    pub mode: FogMode,
    pub density: f32,
    /// `FOG_BUCKETS / t_1`.
    pub scale: f32,
    /// Per bucket, little-endian u32s: the bits of the threshold inside
    /// it (0 when none).
    pub threshold: Vec<u8>,
    /// Per bucket, little-endian u32s: the count of thresholds past the
    /// bucket in the low byte, the multiplicity of its threshold in the
    /// next.
    pub counts: Vec<u8>,
}

/// Buckets of a [`FogByteTable`]: 2 × 8 KiB of tables.
pub(crate) const FOG_BUCKETS: usize = 2048;

impl FogByteTable {
    /// The table of `mode` (EXP or EXP2) at `density`; `None` when the
    /// lookup cannot represent it (see the type's docs).
    pub(crate) fn new(mode: FogMode, density: f32) -> Option<Self> {
        if !matches!(mode, FogMode::Exp | FogMode::Exp2) || density <= 0.0 || !density.is_finite() {
            return None;
        }
        let t = TableFog {
            mode,
            start: 0.0,
            end: 1.0,
            density,
        };
        let byte = |bits: u32| t.factor8(f32::from_bits(bits));
        const INF: u32 = 0x7F80_0000;
        if byte(0) != 255 || byte(INF) != 0 {
            return None;
        }
        // t_k for k = 1..=255, as bits; t_(k+1) ≤ t_k bounds the search.
        let mut thresholds = [0u32; 256];
        let mut hi_bound = INF;
        for k in 1..=255 {
            let (mut lo, mut hi) = (0u32, hi_bound);
            // byte(lo) ≥ k > byte(hi).
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if byte(mid) < k {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            thresholds[k as usize] = hi;
            hi_bound = hi;
        }
        let t1 = f32::from_bits(thresholds[1]);
        if !t1.is_finite() {
            return None;
        }
        let scale = FOG_BUCKETS as f32 / t1;
        if scale <= 0.0 || !scale.is_finite() {
            return None;
        }
        let mut threshold = vec![0u32; FOG_BUCKETS];
        let mut mult = vec![0u32; FOG_BUCKETS];
        for &bits in &thresholds[1..] {
            let b = Self::bucket(f32::from_bits(bits), scale);
            if mult[b] > 0 && threshold[b] != bits {
                return None;
            }
            threshold[b] = bits;
            mult[b] += 1;
        }
        // The thresholds past each bucket: a suffix sum.
        let mut past = vec![0u32; FOG_BUCKETS];
        for b in (0..FOG_BUCKETS - 1).rev() {
            past[b] = past[b + 1] + mult[b + 1];
        }
        let le = |v: Vec<u32>| v.iter().flat_map(|x| x.to_le_bytes()).collect();
        let counts = past.iter().zip(&mult).map(|(p, m)| p | m << 8).collect();
        Some(FogByteTable {
            mode,
            density,
            scale,
            threshold: le(threshold),
            counts: le(counts),
        })
    }

    /// True when this is the table of `t`'s formula and density.
    pub(crate) fn is_of(&self, t: &TableFog) -> bool {
        t.mode == self.mode && t.density.to_bits() == self.density.to_bits()
    }

    /// The bucket of a distance `a > 0`: `trunc(a·scale)` as the vector
    /// layer computes it (`i32::MIN` past the i32 range, which an unsigned
    /// clamp sends to the last bucket, as the kernel's gather does).
    fn bucket(a: f32, scale: f32) -> usize {
        let i = crate::int::trunc_i32_indefinite(a * scale);
        (i as u32 as usize).min(FOG_BUCKETS - 1)
    }

    /// The factor byte of distance `d` by lookup: the scalar statement of
    /// what `simd::cascade8`'s lanes compute (tested against both).
    #[cfg(test)]
    pub(crate) fn byte(&self, d: f32) -> i32 {
        let a = if self.mode == FogMode::Exp2 {
            d.abs()
        } else {
            d
        };
        if a.is_nan() || a <= 0.0 {
            return 255;
        }
        let b = Self::bucket(a, self.scale);
        let word =
            |v: &[u8]| u32::from_le_bytes([v[4 * b], v[4 * b + 1], v[4 * b + 2], v[4 * b + 3]]);
        let (t, c) = (word(&self.threshold), word(&self.counts));
        let above = if a.to_bits() < t { c >> 8 } else { 0 };
        ((c & 0xFF) + above) as i32
    }
}

/// Where the fog factor of an 8-bit cascade draw comes from (read when
/// [`Cascade8::fog`] is set).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Fog8 {
    /// The interpolated specular alpha (vertex fog, or the factor the
    /// application wrote).
    Vertex,
    /// Table fog of each pixel's depth z (the depth plane, bias
    /// included, as the float path's `fog_z`).
    TableZ(TableFog),
    /// Table fog of the eye-space w, which is constant over an affine
    /// triangle: one factor a triangle ([`Cascade8Tri`]'s `fog_w`).
    TableW(TableFog),
}

impl Fog8 {
    /// Where the fog factor of a draw shaded by `sh` comes from: its
    /// table fog's formula, of w or z, or else the specular alpha.
    pub(crate) fn of(sh: &ShadeCtx<'_>) -> Self {
        let FogSource::Table(mode) = sh.fog_source() else {
            return Fog8::Vertex;
        };
        let (fs, use_w) = sh.table_fog();
        let t = TableFog {
            mode,
            start: fs.start,
            end: fs.end,
            density: fs.density,
        };
        if use_w {
            Fog8::TableW(t)
        } else {
            Fog8::TableZ(t)
        }
    }
}

/// Table fog of z with an identity cascade and no specular add: the
/// draws whose colour is the diffuse colour fogged per pixel, which the
/// Gouraud span kernel takes without a depth test
/// (`pixel::FastPath::ColorTableFog`, `simd::gouraud_fog_span`).
pub(crate) fn table_fog_fixed(sh: &ShadeCtx<'_>) -> Option<TableFog> {
    match Fog8::of(sh) {
        Fog8::TableZ(t) if sh.identity() && !sh.specular_add() => Some(t),
        _ => None,
    }
}

/// Per-draw state of the 8-bit cascade (see the module docs).
#[derive(Clone, Copy)]
pub(crate) struct Cascade8<'a> {
    pub stages: [Option<Stage8<'a>>; STAGES8],
    /// D3DRS_TEXTUREFACTOR, blue, green, red, alpha.
    pub tfactor: [i32; 4],
    pub specular_add: bool,
    /// The fog colour (blue, green, red), when fog is on.
    pub fog: Option<[i32; 3]>,
    /// Where the fog factor comes from.
    pub fog_from: Fog8,
    /// The alpha test, when on.
    pub alpha_test: Option<(CmpFunc, i32)>,
    /// AND mask of the packed colour (X8R8G8B8 writes alpha 0) of the
    /// plain store.
    pub and_mask: u32,
    /// The output merger the pixels end in (the alpha test excluded: the
    /// cascade's own), or `None` for the plain store (no depth test, no
    /// blending, an A8R8G8B8/X8R8G8B8 target written whole).
    pub merge: Option<simd::Merge8>,
    /// Table fog of z's EXP or EXP2 bytes as a lookup, when the draw's
    /// formula and density are the table's.
    pub fog_bytes: Option<&'a FogByteTable>,
}

impl<'a> Cascade8<'a> {
    /// The 8-bit cascade of a draw, if it qualifies (see the module docs);
    /// `sh` is `None` when the draw's colour is the diffuse colour (an
    /// identity cascade, no fog: `ShadeCtx::build`); `merge` is the
    /// draw's output merger over 8 lanes without the alpha test, `None`
    /// when `simd::Merge8` does not cover the draw.
    pub(crate) fn new(
        sh: Option<&ShadeCtx<'a>>,
        state: &PipelineState,
        color_format: crate::Format,
        merge: Option<simd::Merge8>,
        fog_bytes: Option<&'a FogByteTable>,
    ) -> Option<Self> {
        let fog_from = sh.map_or(Fog8::Vertex, Fog8::of);
        let fog = match sh.map_or(FogSource::None, ShadeCtx::fog_source) {
            FogSource::None => None,
            _ => {
                let [_, r, g, b] = sh.map_or(0, ShadeCtx::fog_color).to_be_bytes();
                Some([b, g, r].map(i32::from))
            }
        };
        let merge = merge?;
        let fog_bytes = fog_bytes.filter(|f| match fog_from {
            Fog8::TableZ(t) => f.is_of(&t),
            _ => false,
        });
        let mut stages = [None; STAGES8];
        let mut enabled = 0;
        // An identity cascade runs no stage: CURRENT is the diffuse colour.
        let stage_list = match sh {
            Some(sh) if !sh.identity() => &sh.stages()[..],
            _ => &[],
        };
        for (n, st) in stage_list.iter().enumerate() {
            let Some(sh) = sh else { break };
            if st.color_op == TextureOp::Disable {
                break;
            }
            let slot = stages.get_mut(n)?;
            if st.result != ResultArg::Current {
                return None;
            }
            let color = StageOp::new(st.color_op, st.color_arg1, st.color_arg2)?;
            let alpha = if st.alpha_op == TextureOp::Disable {
                StageOp::KEEP
            } else {
                StageOp::new(st.alpha_op, st.alpha_arg1, st.alpha_arg2)?
            };
            let texture = if st.color_reads_texture() || st.alpha_reads_texture() {
                let (tex, sm) = sh.sampler(n)?;
                if sh.projection(n).is_some() || n >= sh.sets() {
                    return None;
                }
                let level = filter8_level(tex, sm, sh.color_key())?;
                if !simd::tex_level_ok(&level.level) {
                    return None;
                }
                Some((level, level.force()))
            } else {
                None
            };
            *slot = Some(Stage8 {
                color,
                alpha,
                texture,
            });
            enabled += 1;
        }
        // Set-up fills the specular planes only for specular add or
        // vertex fog (`setup::SetupCtx::need_specular`; not table fog).
        let vertex_fog = fog.is_some() && fog_from == Fog8::Vertex;
        let reads_specular = stages.iter().flatten().any(|s| {
            [s.color, s.alpha].iter().any(|o| {
                o.op != Op8::Keep && (o.arg1 == Arg8::Specular || o.arg2 == Arg8::Specular)
            })
        });
        let specular_add = state.raster.specular_enable;
        // With no stage the cascade is worth running only for what the
        // colour kernels lack: specular add, fog, the alpha test (the
        // draw context gives fog alone to the merger's span loop when it
        // covers the draw).
        let extras = specular_add || fog.is_some() || state.alpha_test.enable;
        if enabled == 0 && (!stage_list.is_empty() || !extras)
            || reads_specular && !specular_add && !vertex_fog
        {
            return None;
        }
        let [a, r, g, b] = state.textures.texture_factor.to_be_bytes();
        Some(Cascade8 {
            stages,
            tfactor: [b, g, r, a].map(i32::from),
            specular_add,
            fog,
            fog_from,
            alpha_test: state.alpha_test.enable.then(|| {
                (
                    state.alpha_test.func,
                    i32::from((state.alpha_test.reference & 0xFF) as u8),
                )
            }),
            and_mask: if color_format == crate::Format::X8R8G8B8 {
                0x00FF_FFFF
            } else {
                u32::MAX
            },
            merge: (!merge.is_plain()).then_some(merge),
            fog_bytes,
        })
    }
}

/// Runs the 8-bit cascade over the spans of an affine triangle (the
/// kernel `simd::cascade8_spans`); false (nothing drawn) if the triangle
/// does not qualify (perspective, or its planes are missing).
#[allow(clippy::too_many_arguments)]
pub(crate) fn cascade8_spans(
    t: &mut TileTarget<'_>,
    c8: &Cascade8<'_>,
    simd_level: simd::SimdLevel,
    tri: &TriSetup,
    extra: Option<&TriExtra>,
    planes: &[[f32; 3]],
    spans: &[simd::Span],
    stats: &mut Stats,
) -> bool {
    let plain = c8.stages.iter().all(Option::is_none) && !c8.specular_add && c8.fog.is_none();
    let (specular, inv) = match (crate::shade::affine(tri, extra), extra) {
        (Some((e, inv)), _) => (e.specular, inv),
        // Without a side record the triangle is affine; with no stage,
        // specular or fog nothing reads 1 / rhw or the specular planes.
        (None, None) if plain => ([[0; 4]; 3], 1.0),
        _ => return false,
    };
    // The u and v planes of every sampling stage.
    let mut uv = [[[0.0f32; 3]; 2]; STAGES8];
    for (n, (st, p)) in c8.stages.iter().zip(&mut uv).enumerate() {
        if st.is_some_and(|s| s.texture.is_some()) {
            let at = VARYING_PLANE + 4 * n;
            let (Some(pu), Some(pv)) = (planes.get(at), planes.get(at + 1)) else {
                return false;
            };
            *p = [*pu, *pv];
        }
    }
    let bb = tri.bbox();
    let ct = simd::Cascade8Tri {
        diffuse: tri.diffuse,
        specular,
        uv,
        inv,
        z: tri.z,
        // The float path's w of every pixel of an affine triangle: 1 /
        // its constant rhw, `inv`.
        fog_w: match c8.fog_from {
            Fog8::TableW(t) => t.factor8(inv),
            _ => 255,
        },
        ccw: tri.flags & crate::prim::FLAG_CCW != 0,
        rx: bb[0],
        ry: bb[1],
    };
    let passed = simd::cascade8_spans(simd_level, t.band_rows(), c8, &ct, spans);
    stats.written += passed;
    stats.passed += passed;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes worked by hand from D3D's formulas, `round(255·f)`: EXP at
    /// density 1, `e^−0.5 = 0.60653` (154.67 → 155), `e^−1 = 0.36788`
    /// (93.81 → 94), `e^−10` (0.0116 → 0); EXP2 at density 2, `e^−(2·0.5)²
    /// = e^−1` (94) at ±0.5; 255 at 0, at negative distances for EXP, and
    /// for NaN; 0 at +∞.
    #[test]
    fn worked_bytes() {
        let exp = FogByteTable::new(FogMode::Exp, 1.0).unwrap();
        for (d, b) in [(0.5, 155), (1.0, 94), (10.0, 0), (0.0, 255), (-0.0, 255)] {
            assert_eq!(exp.byte(d), b, "EXP {d}");
        }
        for d in [-3.0, f32::NEG_INFINITY, f32::NAN] {
            assert_eq!(exp.byte(d), 255, "EXP {d}");
        }
        assert_eq!(exp.byte(f32::INFINITY), 0);
        let exp2 = FogByteTable::new(FogMode::Exp2, 2.0).unwrap();
        for (d, b) in [(0.5, 94), (-0.5, 94), (0.0, 255), (f32::NAN, 255)] {
            assert_eq!(exp2.byte(d), b, "EXP2 {d}");
        }
        assert_eq!(exp2.byte(f32::NEG_INFINITY), 0);
    }

    #[test]
    fn no_table_for_linear_or_a_density_that_is_not_positive_and_finite() {
        assert!(FogByteTable::new(FogMode::Linear, 1.0).is_none());
        for d in [0.0, -0.0, -1.0, f32::NAN, f32::INFINITY] {
            assert!(FogByteTable::new(FogMode::Exp, d).is_none(), "{d}");
        }
    }

    /// The lookup against `TableFog::factor8` (one `exp` call) at every
    /// threshold and its neighbours, over a dense sweep of distances in
    /// values and in bit patterns, and at the special values, for a range
    /// of densities of both formulas.
    #[test]
    fn lookup_is_factor8() {
        let mut tables = 0;
        for mode in [FogMode::Exp, FogMode::Exp2] {
            for density in [
                1e-30,
                1e-3,
                0.05,
                0.5,
                1.0,
                1.7,
                2.5,
                7.0,
                100.0,
                1e4,
                1e30,
                f32::MAX,
            ] {
                let Some(t) = FogByteTable::new(mode, density) else {
                    continue;
                };
                tables += 1;
                let f = TableFog {
                    mode,
                    start: 0.0,
                    end: 1.0,
                    density,
                };
                let check = |d: f32| {
                    assert_eq!(
                        t.byte(d),
                        f.factor8(d),
                        "{mode:?} density {density} d {d:e}"
                    );
                };
                let t1 = FOG_BUCKETS as f32 / t.scale;
                for i in 0..=200_000u32 {
                    let d = t1 * 1.25 * i as f32 / 200_000.0;
                    check(d);
                    check(-d);
                }
                for bits in (0..0x7F80_0000u32).step_by(4_093) {
                    check(f32::from_bits(bits));
                }
                for w in t.threshold.chunks_exact(4) {
                    let bits = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                    for b in bits.saturating_sub(3)..bits + 3 {
                        check(f32::from_bits(b));
                    }
                }
                for d in [
                    0.0,
                    -0.0,
                    f32::MIN_POSITIVE,
                    1e-45,
                    f32::MAX,
                    f32::INFINITY,
                    f32::NAN,
                ] {
                    check(d);
                    check(-d);
                }
            }
        }
        // f32::MAX has none (its scale is past f32::MAX); the others
        // should all have one.
        assert!(tables >= 20, "{tables}");
    }
}
