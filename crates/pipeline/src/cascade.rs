//! The fixed-function texture-stage cascade (D3D's texture stage blending).
//!
//! *Input*: up to [`MAX_STAGES`] [`StageState`]s (built from D3D numbers
//! with the `from_d3d` constructors), the per-pixel [`CascadeInputs`]
//! (iterated diffuse and specular, TEXTUREFACTOR) and a closure that
//! samples stage `n`'s texture at the pixel's coordinates plus a bump
//! offset. *Output*: the pixel colour `[r, g, b, a]` in [0, 1] (before
//! [`specular_add`], fog, alpha test and blending). *Guarantees*: a pure
//! function of its inputs; every result is finite and in [0, 1] (NaN
//! reads as 0); the sampling closure is called at most once per stage, in
//! stage order, and only for stages with a texture whose operation reads
//! it.
//!
//! ## Rules
//! * CURRENT starts as the iterated diffuse; TEMP starts as (0, 0, 0, 0).
//! * The cascade stops at the first stage whose COLOROP is DISABLE (a
//!   disabled stage 0 outputs the diffuse colour unchanged).
//! * Each stage computes its colour (RGB) and alpha results separately and
//!   writes them to RESULTARG (CURRENT or TEMP); each result is clamped to
//!   [0, 1] per stage. Arguments may be signed (bump texels): operations
//!   see the signed values, only results are clamped.
//! * Arguments: DIFFUSE, CURRENT, TEXTURE, TFACTOR, SPECULAR, TEMP,
//!   CONSTANT (the stage's D3DTSS_CONSTANT); COMPLEMENT gives `1 − x`
//!   (all four channels), ALPHAREPLICATE copies alpha into RGB; both may
//!   be combined (result `1 − a` everywhere).
//! * **No texture bound**: if a stage has no texture and its colour
//!   operation reads TEXTURE (an argument whose selector is TEXTURE, or the
//!   texture alpha of BLENDTEXTUREALPHA / BLENDTEXTUREALPHAPM), the colour
//!   result is CURRENT's RGB unchanged; the same rule applies separately
//!   to the alpha operation and CURRENT's alpha. (The stage still writes
//!   RESULTARG, so with RESULTARG = TEMP, TEMP receives CURRENT.)
//! * ALPHAOP = DISABLE while COLOROP is enabled (undefined in D3D) passes
//!   CURRENT's alpha through.
//! * DOTPRODUCT3 computes `saturate(4·Σ_rgb (a1 − ½)(a2 − ½))` and, as a
//!   colour operation, replicates it to all four channels including alpha
//!   (the alpha operation is ignored). As an alpha operation alone it uses
//!   the RGB of the alpha arguments.
//! * Colour-only operations used as alpha operations apply the same
//!   formula to the alpha channel (`MODULATEALPHA_ADDCOLOR`: `a1 + a1·a2`,
//!   etc.); BUMPENVMAP(LUMINANCE) as an alpha operation passes CURRENT's
//!   alpha through.
//! * **BUMPENVMAP** at stage n reads (du, dv) = texture (r, g) (signed)
//!   and passes CURRENT's RGB through as its colour result; stage n+1's
//!   texture is then sampled at its coordinates plus
//!   `(du·M00 + dv·M10, du·M01 + dv·M11)`. **BUMPENVMAPLUMINANCE**
//!   additionally computes `L' = saturate(L·LSCALE + LOFFSET)` with L the
//!   texture's blue channel (the luminance of L6V5U5 / X8L8V8U8) and
//!   multiplies all four channels of stage n+1's texture by it.
//! * **PREMODULATE** outputs ARG1; the next stage then reads CURRENT as
//!   `CURRENT × its own texture` (per channel), if it has a texture.
//! * [`specular_add`] implements SPECULARENABLE after the cascade.

use crate::texture::limits::MAX_TEXTURE_STAGES;

/// Number of texture stages the cascade runs at most.
pub const MAX_STAGES: usize = MAX_TEXTURE_STAGES;

/// The Direct3D values a stage is written in, as `softhal-types` defines
/// them: the operation (`D3DTEXTUREOP`), an argument (`D3DTA_*` selector
/// and modifiers) and the result register (`D3DTSS_RESULTARG`).
pub use softhal_types::{ResultArg, TextureArg, TextureArgument, TextureOp};

/// Which of (arg0, arg1, arg2) operation `op` reads.
fn uses(op: TextureOp) -> [bool; 3] {
    use TextureOp as T;
    match op {
        T::Disable | T::BumpEnvMap | T::BumpEnvMapLuminance => [false; 3],
        T::SelectArg1 | T::PreModulate => [false, true, false],
        T::SelectArg2 => [false, false, true],
        T::MultiplyAdd | T::Lerp => [true; 3],
        _ => [false, true, true],
    }
}

/// Whether `op` is one of the bump-mapping operations.
fn is_bump(op: TextureOp) -> bool {
    matches!(op, TextureOp::BumpEnvMap | TextureOp::BumpEnvMapLuminance)
}

/// The state of one texture stage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StageState {
    /// COLOROP.
    pub color_op: TextureOp,
    /// COLORARG0 (MULTIPLYADD, LERP).
    pub color_arg0: TextureArgument,
    /// COLORARG1.
    pub color_arg1: TextureArgument,
    /// COLORARG2.
    pub color_arg2: TextureArgument,
    /// ALPHAOP.
    pub alpha_op: TextureOp,
    /// ALPHAARG0.
    pub alpha_arg0: TextureArgument,
    /// ALPHAARG1.
    pub alpha_arg1: TextureArgument,
    /// ALPHAARG2.
    pub alpha_arg2: TextureArgument,
    /// RESULTARG.
    pub result: ResultArg,
    /// BUMPENVMAT00, 01, 10, 11 as `[[m00, m01], [m10, m11]]`.
    pub bump_env_mat: [[f32; 2]; 2],
    /// BUMPENVLSCALE.
    pub bump_lscale: f32,
    /// BUMPENVLOFFSET.
    pub bump_loffset: f32,
    /// D3DTSS_CONSTANT as `[r, g, b, a]`.
    pub constant: [f32; 4],
    /// Whether a texture is bound to this stage.
    pub has_texture: bool,
}

impl StageState {
    /// The D3D9 defaults of stage `stage`: stage 0 MODULATE /
    /// SELECTARG1, others DISABLE / DISABLE; ARG1 TEXTURE, ARG2 CURRENT,
    /// ARG0 CURRENT, RESULTARG CURRENT, bump matrix and constant zero, no
    /// texture.
    pub fn default_for(stage: usize) -> Self {
        let (color_op, alpha_op) = if stage == 0 {
            (TextureOp::Modulate, TextureOp::SelectArg1)
        } else {
            (TextureOp::Disable, TextureOp::Disable)
        };
        StageState {
            color_op,
            color_arg0: TextureArgument::new(TextureArg::Current),
            color_arg1: TextureArgument::new(TextureArg::Texture),
            color_arg2: TextureArgument::new(TextureArg::Current),
            alpha_op,
            alpha_arg0: TextureArgument::new(TextureArg::Current),
            alpha_arg1: TextureArgument::new(TextureArg::Texture),
            alpha_arg2: TextureArgument::new(TextureArg::Current),
            result: ResultArg::Current,
            bump_env_mat: [[0.0; 2]; 2],
            bump_lscale: 0.0,
            bump_loffset: 0.0,
            constant: [0.0; 4],
            has_texture: false,
        }
    }

    /// True if the colour operation reads the stage's texture.
    pub(crate) fn color_reads_texture(&self) -> bool {
        reads_texture(
            self.color_op,
            [self.color_arg0, self.color_arg1, self.color_arg2],
        )
    }

    /// True if the alpha operation reads the stage's texture.
    pub(crate) fn alpha_reads_texture(&self) -> bool {
        self.color_op != TextureOp::DotProduct3
            && reads_texture(
                self.alpha_op,
                [self.alpha_arg0, self.alpha_arg1, self.alpha_arg2],
            )
    }
}

fn reads_texture(op: TextureOp, args: [TextureArgument; 3]) -> bool {
    if matches!(
        op,
        TextureOp::BlendTextureAlpha
            | TextureOp::BlendTextureAlphaPm
            | TextureOp::BumpEnvMap
            | TextureOp::BumpEnvMapLuminance
    ) {
        return true;
    }
    uses(op)
        .iter()
        .zip(args)
        .any(|(u, a)| *u && a.source == TextureArg::Texture)
}

/// Per-pixel inputs of the cascade, each `[r, g, b, a]` in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CascadeInputs {
    /// Iterated (or flat) diffuse colour.
    pub diffuse: [f32; 4],
    /// Iterated (or flat) specular colour.
    pub specular: [f32; 4],
    /// D3DRS_TEXTUREFACTOR.
    pub texture_factor: [f32; 4],
}

/// Clamps to [0, 1], NaN → 0.
#[inline]
fn sat(x: f32) -> f32 {
    if x > 0.0 {
        x.min(1.0)
    } else {
        0.0
    }
}

/// Everything an argument can read at one stage.
struct Regs {
    inputs: CascadeInputs,
    current: [f32; 4],
    temp: [f32; 4],
    texture: [f32; 4],
    constant: [f32; 4],
}

impl Regs {
    fn read(&self, a: TextureArgument) -> [f32; 4] {
        let mut v = match a.source {
            TextureArg::Diffuse => self.inputs.diffuse,
            TextureArg::Current => self.current,
            TextureArg::Texture => self.texture,
            TextureArg::TFactor => self.inputs.texture_factor,
            TextureArg::Specular => self.inputs.specular,
            TextureArg::Temp => self.temp,
            TextureArg::Constant => self.constant,
        };
        if a.complement {
            v = v.map(|x| 1.0 - x);
        }
        if a.alpha_replicate {
            v = [v[3]; 4];
        }
        v
    }
}

/// `saturate(4 · Σ_rgb (a − ½)(b − ½))`.
fn dot3(a: [f32; 4], b: [f32; 4]) -> f32 {
    sat(4.0
        * ((a[0] - 0.5) * (b[0] - 0.5) + (a[1] - 0.5) * (b[1] - 0.5) + (a[2] - 0.5) * (b[2] - 0.5)))
}

/// One channel of an operation. `x`, `y`, `z` are the channel of arg1,
/// arg2, arg0; `xa` is arg1's alpha; `f` the alpha factors
/// (diffuse, texture, tfactor, current).
#[allow(clippy::too_many_arguments)]
fn channel(op: TextureOp, x: f32, y: f32, z: f32, xa: f32, f: [f32; 4], current: f32) -> f32 {
    use TextureOp as T;
    let lerp = |t: f32| x * t + y * (1.0 - t);
    match op {
        T::Disable | T::BumpEnvMap | T::BumpEnvMapLuminance | T::DotProduct3 => current,
        T::SelectArg1 | T::PreModulate => x,
        T::SelectArg2 => y,
        T::Modulate => x * y,
        T::Modulate2x => 2.0 * x * y,
        T::Modulate4x => 4.0 * x * y,
        T::Add => x + y,
        T::AddSigned => x + y - 0.5,
        T::AddSigned2x => 2.0 * (x + y - 0.5),
        T::Subtract => x - y,
        T::AddSmooth => x + y - x * y,
        T::BlendDiffuseAlpha => lerp(f[0]),
        T::BlendTextureAlpha => lerp(f[1]),
        T::BlendFactorAlpha => lerp(f[2]),
        T::BlendCurrentAlpha => lerp(f[3]),
        T::BlendTextureAlphaPm => x + y * (1.0 - f[1]),
        T::ModulateAlphaAddColor => x + xa * y,
        T::ModulateColorAddAlpha => x * y + xa,
        T::ModulateInvAlphaAddColor => (1.0 - xa) * y + x,
        T::ModulateInvColorAddAlpha => (1.0 - x) * y + xa,
        T::MultiplyAdd => z + x * y,
        T::Lerp => z * x + (1.0 - z) * y,
    }
}

/// Runs the cascade for one pixel.
///
/// `sample(n, offset)` must return stage `n`'s filtered texel
/// (`[r, g, b, a]`, signed for bump formats) at the pixel's texture
/// coordinates plus `offset` (normalized (du, dv), zero unless the
/// previous stage is BUMPENVMAP*). It is only called for stages with
/// `has_texture` whose operations read the texture (or that a PREMODULATE
/// / bump stage feeds). Stages past [`MAX_STAGES`] are ignored.
pub fn run_cascade<F>(stages: &[StageState], inputs: &CascadeInputs, mut sample: F) -> [f32; 4]
where
    F: FnMut(usize, [f32; 2]) -> [f32; 4],
{
    let mut current = inputs.diffuse;
    let mut temp = [0.0f32; 4];
    // Coordinate offset and luminance factor for the next stage.
    let mut bump: Option<([f32; 2], Option<f32>)> = None;
    let mut premodulate = false;
    for (n, st) in stages.iter().enumerate().take(MAX_STAGES) {
        if st.color_op == TextureOp::Disable {
            break;
        }
        let pending = bump.take();
        let pre = std::mem::take(&mut premodulate);
        let color_tex = st.color_reads_texture();
        let alpha_tex = st.alpha_reads_texture();
        let texture = if st.has_texture && (color_tex || alpha_tex || pre) {
            let offset = pending.map_or([0.0; 2], |p| p.0);
            let mut t = sample(n, offset);
            if let Some((_, Some(l))) = pending {
                t = t.map(|c| c * l);
            }
            Some(t)
        } else {
            None
        };
        if let (true, Some(t)) = (pre, texture) {
            current = [
                current[0] * t[0],
                current[1] * t[1],
                current[2] * t[2],
                current[3] * t[3],
            ];
        }
        let regs = Regs {
            inputs: *inputs,
            current,
            temp,
            texture: texture.unwrap_or([0.0; 4]),
            constant: st.constant,
        };
        let factors = [
            inputs.diffuse[3],
            regs.texture[3],
            inputs.texture_factor[3],
            current[3],
        ];
        // Colour.
        let mut out = current;
        if is_bump(st.color_op) {
            let [du, dv, l, _] = regs.texture;
            let m = st.bump_env_mat;
            let offset = [du * m[0][0] + dv * m[1][0], du * m[0][1] + dv * m[1][1]];
            let lum = (st.color_op == TextureOp::BumpEnvMapLuminance)
                .then(|| sat(l * st.bump_lscale + st.bump_loffset));
            bump = Some((offset, lum));
        } else if st.color_op == TextureOp::PreModulate {
            premodulate = true;
        }
        let dot_replicated = st.color_op == TextureOp::DotProduct3;
        if !(is_bump(st.color_op) || color_tex && texture.is_none()) {
            let (a0, a1, a2) = (
                regs.read(st.color_arg0),
                regs.read(st.color_arg1),
                regs.read(st.color_arg2),
            );
            if dot_replicated {
                out = [dot3(a1, a2); 4];
            } else {
                for c in 0..3 {
                    out[c] = sat(channel(
                        st.color_op,
                        a1[c],
                        a2[c],
                        a0[c],
                        a1[3],
                        factors,
                        current[c],
                    ));
                }
            }
        }
        // Alpha.
        if !(dot_replicated || alpha_tex && texture.is_none()) {
            let (a0, a1, a2) = (
                regs.read(st.alpha_arg0),
                regs.read(st.alpha_arg1),
                regs.read(st.alpha_arg2),
            );
            out[3] = if st.alpha_op == TextureOp::DotProduct3 {
                dot3(a1, a2)
            } else {
                sat(channel(
                    st.alpha_op,
                    a1[3],
                    a2[3],
                    a0[3],
                    a1[3],
                    factors,
                    current[3],
                ))
            };
        }
        let out = out.map(sat);
        match st.result {
            ResultArg::Current => current = out,
            ResultArg::Temp => temp = out,
        }
    }
    current.map(sat)
}

/// SPECULARENABLE: adds the specular RGB to the colour (saturating at 1);
/// alpha unchanged.
pub fn specular_add(color: [f32; 4], specular: [f32; 4]) -> [f32; 4] {
    [
        sat(color[0] + specular[0]),
        sat(color[1] + specular[1]),
        sat(color[2] + specular[2]),
        color[3],
    ]
}

/// A legacy DX5/6 `D3DRENDERSTATE_TEXTUREMAPBLEND` mode (`D3DTEXTUREBLEND`,
/// from `softhal-types`); [`texture_map_blend_stage0`] gives its stage.
pub use softhal_types::TextureBlend;

/// The stage-0 state equivalent to TEXTUREMAPBLEND mode `mode` (stage 1 and above are DISABLE, as
/// [`StageState::default_for`] gives them). `texture_has_alpha`
/// decides MODULATE's alpha source (DX6 mapping); `has_texture` is
/// copied into the state.
///
/// | Mode | COLOROP (ARG1, ARG2) | ALPHAOP (ARG1, ARG2) |
/// |---|---|---|
/// | DECAL, COPY | SELECTARG1 (TEXTURE) | SELECTARG1 (TEXTURE) |
/// | MODULATE | MODULATE (TEXTURE, DIFFUSE) | SELECTARG1 (TEXTURE) if the texture has alpha, else SELECTARG2 (DIFFUSE) |
/// | DECALALPHA | BLENDTEXTUREALPHA (TEXTURE, DIFFUSE) | SELECTARG2 (DIFFUSE) |
/// | MODULATEALPHA | MODULATE (TEXTURE, DIFFUSE) | MODULATE (TEXTURE, DIFFUSE) |
/// | DECALMASK | SELECTARG1 (TEXTURE) | SELECTARG2 (DIFFUSE) |
/// | MODULATEMASK | MODULATE (TEXTURE, DIFFUSE) | SELECTARG2 (DIFFUSE) |
/// | ADD | ADD (TEXTURE, DIFFUSE) | SELECTARG2 (DIFFUSE) |
pub fn texture_map_blend_stage0(
    mode: TextureBlend,
    texture_has_alpha: bool,
    has_texture: bool,
) -> StageState {
    use TextureBlend as B;
    use TextureOp as T;
    let (color_op, alpha_op) = match mode {
        B::Decal | B::Copy => (T::SelectArg1, T::SelectArg1),
        B::Modulate => (
            T::Modulate,
            if texture_has_alpha {
                T::SelectArg1
            } else {
                T::SelectArg2
            },
        ),
        B::DecalAlpha => (T::BlendTextureAlpha, T::SelectArg2),
        B::ModulateAlpha => (T::Modulate, T::Modulate),
        B::DecalMask => (T::SelectArg1, T::SelectArg2),
        B::ModulateMask => (T::Modulate, T::SelectArg2),
        B::Add => (T::Add, T::SelectArg2),
    };
    let tex = TextureArgument::new(TextureArg::Texture);
    let dif = TextureArgument::new(TextureArg::Diffuse);
    StageState {
        color_op,
        color_arg1: tex,
        color_arg2: dif,
        alpha_op,
        alpha_arg1: tex,
        alpha_arg2: dif,
        has_texture,
        ..StageState::default_for(0)
    }
}
