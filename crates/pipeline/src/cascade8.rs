//! The texture-stage cascade in 8-bit integer arithmetic: the span path
//! of fixed-function draws that combine bilinear 32-bit textures with the
//! common stage operations — the multi-texture surface of DX6/DX7 games
//! (a colour map modulated by the diffuse colour, a light map MODULATE2X
//! over it, specular added, vertex fog, an alpha test).
//!
//! *Input*: the draw's [`ShadeCtx`] and output-merger facts (checked once
//! per draw by [`Cascade8::new`]), an affine triangle's diffuse and
//! specular 16.16 planes, its texture-coordinate planes, and its spans.
//! *Output*: the spans' pixels written to an A8R8G8B8/X8R8G8B8 target.
//!
//! *What qualifies* (else the float path of `shade` runs): up to
//! [`STAGES8`] enabled stages writing CURRENT, each colour and alpha
//! operation one of SELECTARG1/2, MODULATE/2X/4X, ADD, ADDSIGNED,
//! SUBTRACT, BLEND{DIFFUSE,TEXTURE,FACTOR,CURRENT}ALPHA (or, for alpha,
//! DISABLE) over DIFFUSE, CURRENT, TEXTURE, SPECULAR or TFACTOR without
//! modifiers; every texture a stage reads sampled by the 8-bit bilinear
//! filter (`shade::bilinear8_level`: 2D, A8R8G8B8/X8R8G8B8, one level,
//! LINEAR, WRAP, no colour key) at unprojected coordinates; fog none or
//! from the vertex (the specular alpha); any alpha test; no depth or
//! stencil test, no blending, every channel written.
//!
//! *Arithmetic*: channels are bytes; a product is `round(x·y / 255)`,
//! MODULATE2X/4X scale it before rounding and saturate, fog is
//! `round((c·f + fog·(255 − f)) / 255)` as in the fused depth kernel.
//! Each operation is within half a unit of the float cascade on the same
//! bytes; the texels of [`crate::simd::bilinear8`] are within one unit of
//! the float sampler's, so a pixel may differ from the float path by a few
//! units per channel (MODULATE2X doubles a unit; tested against the float
//! path in `tests/cascade8.rs`). Which path a triangle takes depends only
//! on the state and on the triangle being affine, never on threads or the
//! SIMD level.

use crate::cascade::{ResultArg, TextureArg, TextureArgument, TextureOp};
use crate::fog::FogSource;
use crate::pixel::{fixed_start, Stats, TileTarget};
use crate::prim::{TriExtra, TriSetup};
use crate::shade::{bilinear8_level, ShadeCtx};
use crate::simd;
use crate::state::{CmpFunc, PipelineState};
use crate::texture::{LevelRef, TextureFormat};
use crate::varying::VARYING_PLANE;

/// The most enabled stages the 8-bit cascade runs.
pub(crate) const STAGES8: usize = 4;

/// An argument of an 8-bit stage operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arg8 {
    Diffuse,
    Current,
    Texture,
    Specular,
    TFactor,
}

/// A stage operation in 8-bit arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op8 {
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
struct StageOp {
    op: Op8,
    arg1: Arg8,
    arg2: Arg8,
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
struct Stage8<'a> {
    color: StageOp,
    alpha: StageOp,
    /// The sampled level and the bits ORed into its texels (alpha of
    /// X8R8G8B8).
    texture: Option<(LevelRef<'a>, u32)>,
}

/// Per-draw state of the 8-bit cascade (see the module docs).
#[derive(Clone, Copy)]
pub(crate) struct Cascade8<'a> {
    stages: [Option<Stage8<'a>>; STAGES8],
    /// D3DRS_TEXTUREFACTOR, blue, green, red, alpha.
    tfactor: [i32; 4],
    specular_add: bool,
    /// Vertex fog's colour (blue, green, red), when fog is on.
    fog: Option<[i32; 3]>,
    /// The alpha test, when on.
    alpha_test: Option<(CmpFunc, i32)>,
    /// AND mask of the packed colour (X8R8G8B8 writes alpha 0).
    and_mask: u32,
}

impl<'a> Cascade8<'a> {
    /// The 8-bit cascade of a draw, if it qualifies (see the module docs).
    pub(crate) fn new(
        sh: &ShadeCtx<'a>,
        state: &PipelineState,
        color_format: crate::Format,
        depth_test: bool,
        stencil: bool,
    ) -> Option<Self> {
        let fog = match sh.fog_source() {
            FogSource::None => None,
            FogSource::SpecularAlpha | FogSource::Vertex(_) => {
                let [_, r, g, b] = sh.fog_color().to_be_bytes();
                Some([b, g, r].map(i32::from))
            }
            FogSource::Table(_) => return None,
        };
        let target_ok = matches!(
            color_format,
            crate::Format::A8R8G8B8 | crate::Format::X8R8G8B8
        ) && state.blend.color_write_enable & 0xF == 0xF;
        if !target_ok
            || depth_test
            || stencil
            || crate::draw_kind::blend_kind(&state.blend) != crate::draw_kind::BlendKind::Off
        {
            return None;
        }
        let mut stages = [None; STAGES8];
        let mut enabled = 0;
        for (n, st) in sh.stages().iter().enumerate() {
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
                let level = bilinear8_level(tex, sm, sh.color_key())?;
                let force = if level.format == TextureFormat::X8R8G8B8 {
                    0xFF00_0000
                } else {
                    0
                };
                Some((level, force))
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
        // vertex fog (`setup::SetupCtx::need_specular`).
        let reads_specular = stages.iter().flatten().any(|s| {
            [s.color, s.alpha].iter().any(|o| {
                o.op != Op8::Keep && (o.arg1 == Arg8::Specular || o.arg2 == Arg8::Specular)
            })
        });
        let specular_add = state.raster.specular_enable;
        if enabled == 0 || reads_specular && !specular_add && fog.is_none() {
            return None;
        }
        let [a, r, g, b] = state.textures.texture_factor.to_be_bytes();
        Some(Cascade8 {
            stages,
            tfactor: [b, g, r, a].map(i32::from),
            specular_add,
            fog,
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
        })
    }

    /// The colour of one pixel (blue, green, red, alpha) from its diffuse
    /// and specular bytes and texture coordinates per stage, or `None`
    /// when the alpha test rejects it.
    #[inline(always)]
    fn shade(
        &self,
        diffuse: [i32; 4],
        specular: [i32; 4],
        uv: &[[f32; 2]; STAGES8],
    ) -> Option<u32> {
        let mut current = diffuse;
        for (st, c) in self.stages.iter().zip(uv) {
            let Some(st) = st else { break };
            let mut texel = [0; 4];
            if let Some((level, force)) = &st.texture {
                let t = simd::bilinear8(level, c[0], c[1], *force).to_le_bytes();
                for (x, b) in texel.iter_mut().zip(t) {
                    *x = i32::from(b);
                }
            }
            let regs = Regs {
                diffuse,
                current,
                texture: texel,
                specular,
                tfactor: self.tfactor,
            };
            let mut out = [0; 4];
            regs.apply::<0, 3>(st.color, &mut out);
            regs.apply::<3, 4>(st.alpha, &mut out);
            current = out;
        }
        if self.specular_add {
            for k in 0..3 {
                current[k] = (current[k] + specular[k]).min(255);
            }
        }
        if let Some(fc) = self.fog {
            let f = specular[3];
            for k in 0..3 {
                current[k] = simd::fog8(current[k], f, fc[k]);
            }
        }
        if let Some((func, reference)) = self.alpha_test {
            if !func.test(current[3], reference) {
                return None;
            }
        }
        let [b, g, r, a] = current;
        Some(u32::from_le_bytes([b as u8, g as u8, r as u8, a as u8]) & self.and_mask)
    }
}

/// The bytes an operation reads at one pixel.
struct Regs {
    diffuse: [i32; 4],
    current: [i32; 4],
    texture: [i32; 4],
    specular: [i32; 4],
    tfactor: [i32; 4],
}

impl Regs {
    #[inline(always)]
    fn read(&self, a: Arg8) -> &[i32; 4] {
        match a {
            Arg8::Diffuse => &self.diffuse,
            Arg8::Current => &self.current,
            Arg8::Texture => &self.texture,
            Arg8::Specular => &self.specular,
            Arg8::TFactor => &self.tfactor,
        }
    }

    /// Channels `K` (blue, green, red: `0..3`; alpha: `3..4`) of `s`'s
    /// result, each in 0..=255; the other channels of `out` unchanged.
    #[inline(always)]
    fn apply<const LO: usize, const HI: usize>(&self, s: StageOp, out: &mut [i32; 4]) {
        let x = self.read(s.arg1);
        let y = self.read(s.arg2);
        match s.op {
            Op8::Keep => out[LO..HI].copy_from_slice(&self.current[LO..HI]),
            Op8::SelectArg1 => out[LO..HI].copy_from_slice(&x[LO..HI]),
            Op8::SelectArg2 => out[LO..HI].copy_from_slice(&y[LO..HI]),
            Op8::Modulate(shift) => {
                for k in LO..HI {
                    out[k] = ((((x[k] * y[k]) << shift) + 127) / 255).min(255);
                }
            }
            Op8::Add => {
                for k in LO..HI {
                    out[k] = (x[k] + y[k]).min(255);
                }
            }
            Op8::AddSigned => {
                for k in LO..HI {
                    out[k] = (x[k] + y[k] - 128).clamp(0, 255);
                }
            }
            Op8::Subtract => {
                for k in LO..HI {
                    out[k] = (x[k] - y[k]).max(0);
                }
            }
            Op8::Blend(a) => {
                let f = self.read(a)[3];
                for k in LO..HI {
                    out[k] = (x[k] * f + y[k] * (255 - f) + 127) / 255;
                }
            }
        }
    }
}

/// Runs the 8-bit cascade over the spans of an affine triangle; false
/// (nothing drawn) if the triangle does not qualify (perspective, or its
/// planes are missing).
#[allow(clippy::too_many_arguments)]
pub(crate) fn cascade8_spans(
    t: &mut TileTarget<'_>,
    c8: &Cascade8<'_>,
    tri: &TriSetup,
    extra: Option<&TriExtra>,
    planes: &[[f32; 3]],
    spans: &[simd::Span],
    stats: &mut Stats,
) -> bool {
    let Some((e, inv)) = crate::shade::affine(tri, extra) else {
        return false;
    };
    // The u and v planes of every sampling stage.
    let mut uvp = [[[0.0f32; 3]; 2]; STAGES8];
    for (n, (st, p)) in c8.stages.iter().zip(&mut uvp).enumerate() {
        if st.is_some_and(|s| s.texture.is_some()) {
            let at = VARYING_PLANE + 4 * n;
            let (Some(pu), Some(pv)) = (planes.get(at), planes.get(at + 1)) else {
                return false;
            };
            *p = [*pu, *pv];
        }
    }
    let bb = tri.bbox();
    let mut written = 0u64;
    for sp in spans {
        let n = sp.n as usize;
        let (dx, dy) = (sp.x - bb[0], sp.y - bb[1]);
        let fy = dy as f32;
        let d0 = fixed_start(&tri.diffuse, dx, dy);
        let s0 = fixed_start(&e.specular, dx, dy);
        let mut rows = [[[0.0f32; 3]; 2]; STAGES8];
        for (r, [u, v]) in rows.iter_mut().zip(&uvp) {
            *r = [[u[0], u[1], u[2] * fy], [v[0], v[1], v[2] * fy]];
        }
        let Some(row) = t.color_span(sp.y, sp.x, n, 4) else {
            continue;
        };
        let (ds, ss) = (&tri.diffuse[1], &e.specular[1]);
        for (i, px) in row.chunks_exact_mut(4).enumerate() {
            let step = i as i32;
            let mut diffuse = [0; 4];
            let mut specular = [0; 4];
            for k in 0..4 {
                let at = |p: i32, s: i32| {
                    i32::from(crate::int::clamp_u8(
                        p.wrapping_add(s.wrapping_mul(step)) >> 16,
                    ))
                };
                diffuse[k] = at(d0[k], ds[k]);
                specular[k] = at(s0[k], ss[k]);
            }
            let fx = dx.wrapping_add(step) as f32;
            let mut uv = [[0.0f32; 2]; STAGES8];
            for (c, [u, v]) in uv.iter_mut().zip(&rows) {
                *c = [
                    ((u[0] + u[1] * fx) + u[2]) * inv,
                    ((v[0] + v[1] * fx) + v[2]) * inv,
                ];
            }
            if let Some(c) = c8.shade(diffuse, specular, &uv) {
                px.copy_from_slice(&c.to_le_bytes());
                written += 1;
            }
        }
    }
    stats.written += written;
    stats.passed += written;
    true
}
