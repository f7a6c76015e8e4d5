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

/// A texture-stage operation (D3DTEXTUREOP).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureOp {
    /// Disables this stage and all higher ones (COLOROP).
    Disable,
    /// arg1.
    SelectArg1,
    /// arg2.
    SelectArg2,
    /// arg1 · arg2.
    Modulate,
    /// 2 · arg1 · arg2.
    Modulate2x,
    /// 4 · arg1 · arg2.
    Modulate4x,
    /// arg1 + arg2.
    Add,
    /// arg1 + arg2 − ½.
    AddSigned,
    /// 2 · (arg1 + arg2 − ½).
    AddSigned2x,
    /// arg1 − arg2.
    Subtract,
    /// arg1 + arg2 − arg1 · arg2.
    AddSmooth,
    /// Lerp by the iterated diffuse alpha.
    BlendDiffuseAlpha,
    /// Lerp by the texture alpha.
    BlendTextureAlpha,
    /// Lerp by the TEXTUREFACTOR alpha.
    BlendFactorAlpha,
    /// arg1 + arg2 · (1 − texture alpha).
    BlendTextureAlphaPm,
    /// Lerp by CURRENT's alpha.
    BlendCurrentAlpha,
    /// arg1; the next stage multiplies CURRENT by its texture.
    Premodulate,
    /// arg1.rgb + arg1.a · arg2.rgb.
    ModulateAlphaAddColor,
    /// arg1.rgb · arg2.rgb + arg1.a.
    ModulateColorAddAlpha,
    /// (1 − arg1.a) · arg2.rgb + arg1.rgb.
    ModulateInvAlphaAddColor,
    /// (1 − arg1.rgb) · arg2.rgb + arg1.a.
    ModulateInvColorAddAlpha,
    /// Bump mapping: perturbs the next stage's coordinates.
    BumpEnvMap,
    /// Bump mapping with luminance.
    BumpEnvMapLuminance,
    /// Signed dot product, replicated to all channels.
    DotProduct3,
    /// arg0 + arg1 · arg2.
    MultiplyAdd,
    /// arg0 · arg1 + (1 − arg0) · arg2.
    Lerp,
}

impl TextureOp {
    /// From a D3DTOP value (1..=26).
    pub fn from_d3d(v: u32) -> Option<Self> {
        use TextureOp as T;
        Some(match v {
            1 => T::Disable,
            2 => T::SelectArg1,
            3 => T::SelectArg2,
            4 => T::Modulate,
            5 => T::Modulate2x,
            6 => T::Modulate4x,
            7 => T::Add,
            8 => T::AddSigned,
            9 => T::AddSigned2x,
            10 => T::Subtract,
            11 => T::AddSmooth,
            12 => T::BlendDiffuseAlpha,
            13 => T::BlendTextureAlpha,
            14 => T::BlendFactorAlpha,
            15 => T::BlendTextureAlphaPm,
            16 => T::BlendCurrentAlpha,
            17 => T::Premodulate,
            18 => T::ModulateAlphaAddColor,
            19 => T::ModulateColorAddAlpha,
            20 => T::ModulateInvAlphaAddColor,
            21 => T::ModulateInvColorAddAlpha,
            22 => T::BumpEnvMap,
            23 => T::BumpEnvMapLuminance,
            24 => T::DotProduct3,
            25 => T::MultiplyAdd,
            26 => T::Lerp,
            _ => return None,
        })
    }

    /// The D3DTOP value (inverse of [`TextureOp::from_d3d`]).
    pub fn d3d(self) -> u32 {
        match self {
            TextureOp::Disable => 1,
            TextureOp::SelectArg1 => 2,
            TextureOp::SelectArg2 => 3,
            TextureOp::Modulate => 4,
            TextureOp::Modulate2x => 5,
            TextureOp::Modulate4x => 6,
            TextureOp::Add => 7,
            TextureOp::AddSigned => 8,
            TextureOp::AddSigned2x => 9,
            TextureOp::Subtract => 10,
            TextureOp::AddSmooth => 11,
            TextureOp::BlendDiffuseAlpha => 12,
            TextureOp::BlendTextureAlpha => 13,
            TextureOp::BlendFactorAlpha => 14,
            TextureOp::BlendTextureAlphaPm => 15,
            TextureOp::BlendCurrentAlpha => 16,
            TextureOp::Premodulate => 17,
            TextureOp::ModulateAlphaAddColor => 18,
            TextureOp::ModulateColorAddAlpha => 19,
            TextureOp::ModulateInvAlphaAddColor => 20,
            TextureOp::ModulateInvColorAddAlpha => 21,
            TextureOp::BumpEnvMap => 22,
            TextureOp::BumpEnvMapLuminance => 23,
            TextureOp::DotProduct3 => 24,
            TextureOp::MultiplyAdd => 25,
            TextureOp::Lerp => 26,
        }
    }

    /// Which of (arg0, arg1, arg2) the operation reads.
    fn uses(self) -> [bool; 3] {
        use TextureOp as T;
        match self {
            T::Disable | T::BumpEnvMap | T::BumpEnvMapLuminance => [false; 3],
            T::SelectArg1 | T::Premodulate => [false, true, false],
            T::SelectArg2 => [false, false, true],
            T::MultiplyAdd | T::Lerp => [true; 3],
            _ => [false, true, true],
        }
    }

    fn is_bump(self) -> bool {
        matches!(self, TextureOp::BumpEnvMap | TextureOp::BumpEnvMapLuminance)
    }
}

/// What an argument reads (D3DTA selector, bits 3:0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArgSource {
    /// Iterated diffuse.
    Diffuse,
    /// Result of the previous stage (diffuse at stage 0).
    Current,
    /// This stage's texture.
    Texture,
    /// D3DRS_TEXTUREFACTOR.
    TFactor,
    /// Iterated specular.
    Specular,
    /// The temporary register.
    Temp,
    /// The stage's D3DTSS_CONSTANT.
    Constant,
}

/// A stage argument: selector plus modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextureArg {
    /// What to read.
    pub source: ArgSource,
    /// D3DTA_COMPLEMENT: `1 − x`.
    pub complement: bool,
    /// D3DTA_ALPHAREPLICATE: alpha into RGB.
    pub alpha_replicate: bool,
}

impl TextureArg {
    /// An argument without modifiers.
    pub const fn new(source: ArgSource) -> Self {
        TextureArg {
            source,
            complement: false,
            alpha_replicate: false,
        }
    }

    /// From a D3DTA value (selector 0..=6 in bits 3:0, COMPLEMENT 0x10,
    /// ALPHAREPLICATE 0x20); `None` for other selectors or bits.
    pub fn from_d3d(v: u32) -> Option<Self> {
        if v & !0x3F != 0 {
            return None;
        }
        let source = match v & 0xF {
            0 => ArgSource::Diffuse,
            1 => ArgSource::Current,
            2 => ArgSource::Texture,
            3 => ArgSource::TFactor,
            4 => ArgSource::Specular,
            5 => ArgSource::Temp,
            6 => ArgSource::Constant,
            _ => return None,
        };
        Some(TextureArg {
            source,
            complement: v & 0x10 != 0,
            alpha_replicate: v & 0x20 != 0,
        })
    }

    /// The D3DTA value (inverse of [`TextureArg::from_d3d`]): selector in
    /// bits 3:0, COMPLEMENT 0x10, ALPHAREPLICATE 0x20.
    pub fn d3d(self) -> u32 {
        let selector = match self.source {
            ArgSource::Diffuse => 0,
            ArgSource::Current => 1,
            ArgSource::Texture => 2,
            ArgSource::TFactor => 3,
            ArgSource::Specular => 4,
            ArgSource::Temp => 5,
            ArgSource::Constant => 6,
        };
        selector | (u32::from(self.complement) << 4) | (u32::from(self.alpha_replicate) << 5)
    }
}

/// Where a stage writes its result (D3DTSS_RESULTARG).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ResultTarget {
    /// CURRENT (default).
    #[default]
    Current,
    /// TEMP.
    Temp,
}

impl ResultTarget {
    /// From a D3DTA value: CURRENT (1) or TEMP (5).
    pub fn from_d3d(v: u32) -> Option<Self> {
        match v {
            1 => Some(ResultTarget::Current),
            5 => Some(ResultTarget::Temp),
            _ => None,
        }
    }

    /// The D3DTA (CURRENT or TEMP) value (inverse of [`ResultTarget::from_d3d`]).
    pub fn d3d(self) -> u32 {
        match self {
            ResultTarget::Current => 1,
            ResultTarget::Temp => 5,
        }
    }
}

/// The state of one texture stage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StageState {
    /// COLOROP.
    pub color_op: TextureOp,
    /// COLORARG0 (MULTIPLYADD, LERP).
    pub color_arg0: TextureArg,
    /// COLORARG1.
    pub color_arg1: TextureArg,
    /// COLORARG2.
    pub color_arg2: TextureArg,
    /// ALPHAOP.
    pub alpha_op: TextureOp,
    /// ALPHAARG0.
    pub alpha_arg0: TextureArg,
    /// ALPHAARG1.
    pub alpha_arg1: TextureArg,
    /// ALPHAARG2.
    pub alpha_arg2: TextureArg,
    /// RESULTARG.
    pub result: ResultTarget,
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
            color_arg0: TextureArg::new(ArgSource::Current),
            color_arg1: TextureArg::new(ArgSource::Texture),
            color_arg2: TextureArg::new(ArgSource::Current),
            alpha_op,
            alpha_arg0: TextureArg::new(ArgSource::Current),
            alpha_arg1: TextureArg::new(ArgSource::Texture),
            alpha_arg2: TextureArg::new(ArgSource::Current),
            result: ResultTarget::Current,
            bump_env_mat: [[0.0; 2]; 2],
            bump_lscale: 0.0,
            bump_loffset: 0.0,
            constant: [0.0; 4],
            has_texture: false,
        }
    }

    /// True if the colour operation reads the stage's texture.
    fn color_reads_texture(&self) -> bool {
        reads_texture(
            self.color_op,
            [self.color_arg0, self.color_arg1, self.color_arg2],
        )
    }

    /// True if the alpha operation reads the stage's texture.
    fn alpha_reads_texture(&self) -> bool {
        self.color_op != TextureOp::DotProduct3
            && reads_texture(
                self.alpha_op,
                [self.alpha_arg0, self.alpha_arg1, self.alpha_arg2],
            )
    }
}

fn reads_texture(op: TextureOp, args: [TextureArg; 3]) -> bool {
    if matches!(
        op,
        TextureOp::BlendTextureAlpha
            | TextureOp::BlendTextureAlphaPm
            | TextureOp::BumpEnvMap
            | TextureOp::BumpEnvMapLuminance
    ) {
        return true;
    }
    op.uses()
        .iter()
        .zip(args)
        .any(|(u, a)| *u && a.source == ArgSource::Texture)
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
    fn read(&self, a: TextureArg) -> [f32; 4] {
        let mut v = match a.source {
            ArgSource::Diffuse => self.inputs.diffuse,
            ArgSource::Current => self.current,
            ArgSource::Texture => self.texture,
            ArgSource::TFactor => self.inputs.texture_factor,
            ArgSource::Specular => self.inputs.specular,
            ArgSource::Temp => self.temp,
            ArgSource::Constant => self.constant,
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
        T::SelectArg1 | T::Premodulate => x,
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
        if st.color_op.is_bump() {
            let [du, dv, l, _] = regs.texture;
            let m = st.bump_env_mat;
            let offset = [du * m[0][0] + dv * m[1][0], du * m[0][1] + dv * m[1][1]];
            let lum = (st.color_op == TextureOp::BumpEnvMapLuminance)
                .then(|| sat(l * st.bump_lscale + st.bump_loffset));
            bump = Some((offset, lum));
        } else if st.color_op == TextureOp::Premodulate {
            premodulate = true;
        }
        let dot_replicated = st.color_op == TextureOp::DotProduct3;
        if !(st.color_op.is_bump() || color_tex && texture.is_none()) {
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
            ResultTarget::Current => current = out,
            ResultTarget::Temp => temp = out,
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

/// A legacy DX5/6 D3DRENDERSTATE_TEXTUREMAPBLEND mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureMapBlend {
    /// Texture colour and alpha.
    Decal,
    /// Texture × diffuse; alpha from the texture if it has alpha, else
    /// from diffuse.
    Modulate,
    /// Blend texture over diffuse by texture alpha; diffuse alpha.
    DecalAlpha,
    /// Texture × diffuse for colour and alpha.
    ModulateAlpha,
    /// DECAL with a mask bit (approximated as DECAL colour, diffuse alpha).
    DecalMask,
    /// MODULATE with a mask bit (approximated as MODULATE colour, diffuse
    /// alpha).
    ModulateMask,
    /// Copy (same as DECAL).
    Copy,
    /// Texture + diffuse; diffuse alpha.
    Add,
}

impl TextureMapBlend {
    /// From a D3DTBLEND value (1..=8).
    pub fn from_d3d(v: u32) -> Option<Self> {
        use TextureMapBlend as B;
        Some(match v {
            1 => B::Decal,
            2 => B::Modulate,
            3 => B::DecalAlpha,
            4 => B::ModulateAlpha,
            5 => B::DecalMask,
            6 => B::ModulateMask,
            7 => B::Copy,
            8 => B::Add,
            _ => return None,
        })
    }

    /// The D3DTBLEND value (inverse of [`TextureMapBlend::from_d3d`]).
    pub fn d3d(self) -> u32 {
        match self {
            TextureMapBlend::Decal => 1,
            TextureMapBlend::Modulate => 2,
            TextureMapBlend::DecalAlpha => 3,
            TextureMapBlend::ModulateAlpha => 4,
            TextureMapBlend::DecalMask => 5,
            TextureMapBlend::ModulateMask => 6,
            TextureMapBlend::Copy => 7,
            TextureMapBlend::Add => 8,
        }
    }

    /// The equivalent stage-0 state (stage 1 and above are DISABLE, as
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
    pub fn stage0(self, texture_has_alpha: bool, has_texture: bool) -> StageState {
        use TextureMapBlend as B;
        use TextureOp as T;
        let (color_op, alpha_op) = match self {
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
        let tex = TextureArg::new(ArgSource::Texture);
        let dif = TextureArg::new(ArgSource::Diffuse);
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use softhal_testkit::round_trip;

    #[test]
    fn d3d_is_the_inverse_of_from_d3d() {
        assert_eq!(round_trip(TextureOp::from_d3d, TextureOp::d3d, 0..=300), 26);
        // 7 selectors × COMPLEMENT × ALPHAREPLICATE.
        assert_eq!(
            round_trip(TextureArg::from_d3d, TextureArg::d3d, 0..=0x1FF),
            28
        );
        assert_eq!(
            round_trip(ResultTarget::from_d3d, ResultTarget::d3d, 0..=300),
            2
        );
        assert_eq!(
            round_trip(TextureMapBlend::from_d3d, TextureMapBlend::d3d, 0..=300),
            8
        );
    }
}
