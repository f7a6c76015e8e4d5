//! The kind of a draw: a small, hashable key derived once per draw from
//! the texture cascade and the output-merger state, from which the pixel
//! stage picks its span kernel by matching.
//!
//! *Input*: the texture stages (with which have a texture bound), the
//! blend state, and the facts `pixel::DrawCtx::new` resolves (depth
//! test and format, stencil, alpha test, specular add, target format and
//! write mask, whether fog is fused). *Output*: a [`DrawKind`] and, from
//! it, the [`FastPath`] of affine triangles.
//!
//! *Analysis*: the cascade is reduced to what it computes —
//! [`CascadeKind::Diffuse`] when every enabled stage passes CURRENT
//! through (the default MODULATE(TEXTURE, CURRENT) with no texture,
//! SELECTARG1(DIFFUSE), SELECTARG2(CURRENT), ALPHAOP DISABLE, …) — and
//! blending to the factor pair it applies ([`BlendKind`]): disabled, or
//! ONE/ZERO with ADD (which writes the source unchanged), is
//! [`BlendKind::Off`]; BOTHSRCALPHA and friends are resolved; a separate
//! alpha equation equal to the colour one is no separate equation.
//!
//! *Guarantee*: two draws with the same key take the same kernels; every
//! kernel a key selects writes the bytes the generic pixel path would
//! (the reductions above are exact in 8-bit arithmetic).

use crate::cascade::{ResultArg, StageState, TextureArg, TextureArgument, TextureOp, MAX_STAGES};
use crate::pixel::FastPath;
use crate::simd::factor;
use crate::state::{Blend, BlendOp, BlendState};

/// What the texture cascade computes, as far as kernel choice goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum CascadeKind {
    /// The interpolated diffuse colour, unchanged.
    Diffuse,
    /// Anything else (interpreted per pixel by `cascade::run_cascade`).
    Other,
}

/// True if `op` with arguments `[arg0, arg1, arg2]` leaves CURRENT
/// unchanged in a stage without a texture whose CURRENT is the diffuse
/// colour.
fn passes_current(op: TextureOp, args: [TextureArgument; 3]) -> bool {
    let diffuse = |a: TextureArgument| {
        !a.complement
            && !a.alpha_replicate
            && matches!(a.source, TextureArg::Current | TextureArg::Diffuse)
    };
    match op {
        // An operation on a missing texture is skipped (the rule of
        // `run_cascade`); these two shapes are the default cascade's.
        TextureOp::SelectArg1 if args[1].source == TextureArg::Texture => true,
        TextureOp::Modulate => {
            args[1].source == TextureArg::Texture && args[2].source != TextureArg::Temp
        }
        TextureOp::SelectArg1 => diffuse(args[1]),
        TextureOp::SelectArg2 => diffuse(args[2]),
        _ => false,
    }
}

/// The [`CascadeKind`] of `stages` (with `has_texture` set per stage).
pub(crate) fn cascade_kind(stages: &[StageState; MAX_STAGES]) -> CascadeKind {
    for s in stages {
        if s.color_op == TextureOp::Disable {
            break;
        }
        let alpha_ok = s.alpha_op == TextureOp::Disable
            || passes_current(s.alpha_op, [s.alpha_arg0, s.alpha_arg1, s.alpha_arg2]);
        if s.has_texture
            || !passes_current(s.color_op, [s.color_arg0, s.color_arg1, s.color_arg2])
            || !alpha_ok
            || s.result != ResultArg::Current
        {
            return CascadeKind::Other;
        }
    }
    CascadeKind::Diffuse
}

/// What blending does to a pixel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum BlendKind {
    /// The source is written unchanged.
    Off,
    /// `s·Fs + d·Fd` on every channel, factors as `simd::factor` codes
    /// of an instantiated kernel (`simd::blend_span_fn`).
    Factors(u8, u8),
    /// Anything else (the generic `pixel::blend`).
    Other,
}

/// The `simd::factor` code of a factor, if it has one.
fn factor_code(f: Blend) -> Option<u8> {
    Some(match f {
        Blend::Zero => factor::ZERO,
        Blend::One => factor::ONE,
        Blend::SrcAlpha => factor::SRC_ALPHA,
        Blend::InvSrcAlpha => factor::INV_SRC_ALPHA,
        Blend::SrcColor => factor::SRC_COLOR,
        Blend::InvSrcColor => factor::INV_SRC_COLOR,
        Blend::DestColor => factor::DEST_COLOR,
        Blend::InvDestColor => factor::INV_DEST_COLOR,
        Blend::DestAlpha => factor::DEST_ALPHA,
        Blend::InvDestAlpha => factor::INV_DEST_ALPHA,
        _ => return None,
    })
}

/// The [`BlendKind`] of a blend state.
pub(crate) fn blend_kind(b: &BlendState) -> BlendKind {
    if !b.enable {
        return BlendKind::Off;
    }
    let pair = crate::pixel::resolve_pair(b.src, b.dst);
    if b.op != BlendOp::Add
        || (b.separate_alpha
            && (crate::pixel::resolve_pair(b.src_alpha, b.dst_alpha) != pair
                || b.op_alpha != BlendOp::Add))
    {
        return BlendKind::Other;
    }
    if pair == (Blend::One, Blend::Zero) {
        return BlendKind::Off;
    }
    match (factor_code(pair.0), factor_code(pair.1)) {
        (Some(s), Some(d)) if crate::simd::blend_span_fn(s, d).is_some() => {
            BlendKind::Factors(s, d)
        }
        _ => BlendKind::Other,
    }
}

/// How the colour of a pixel is shaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Shading {
    /// Interpolated diffuse (the colour paths).
    Diffuse,
    /// Diffuse with vertex fog from the specular alpha, fused into the
    /// colour + 24-bit depth kernel.
    DiffuseFog,
    /// Diffuse with table fog of z (an identity cascade), fused into the
    /// colour kernel when there is no depth test.
    DiffuseTableFog,
    /// The full shaded path (`shade`).
    Full,
}

/// The depth test, as far as kernel choice goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum DepthKind {
    /// No depth test.
    Off,
    /// Z-buffer test on a 24-bit depth in bits 31..8 (D24S8, D24X8,
    /// D24X4S4).
    Z24,
    /// Any other depth test.
    Other,
}

/// The derived key of a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct DrawKind {
    /// How colours are shaded.
    pub shading: Shading,
    /// What blending does.
    pub blend: BlendKind,
    /// The depth test.
    pub depth: DepthKind,
    /// Stencil test on.
    pub stencil: bool,
    /// Alpha test on.
    pub alpha_test: bool,
    /// Specular added.
    pub specular: bool,
    /// The target is A8R8G8B8 or X8R8G8B8 with every channel written.
    pub rgb32: bool,
}

impl DrawKind {
    /// The span kernel of affine triangles of this kind.
    pub(crate) fn fast_path(&self) -> FastPath {
        if !self.rgb32 || self.stencil || self.alpha_test || self.specular {
            return FastPath::None;
        }
        match (self.shading, self.blend, self.depth) {
            (Shading::Diffuse, BlendKind::Off, DepthKind::Off) => FastPath::Color,
            (Shading::Diffuse | Shading::DiffuseFog, BlendKind::Off, DepthKind::Z24) => {
                FastPath::ColorDepth24
            }
            // SRCALPHA/INVSRCALPHA: the same kernel, blending.
            (
                Shading::Diffuse | Shading::DiffuseFog,
                BlendKind::Factors(factor::SRC_ALPHA, factor::INV_SRC_ALPHA),
                DepthKind::Z24,
            ) => FastPath::ColorDepth24,
            (Shading::Diffuse, BlendKind::Factors(..), DepthKind::Off) => FastPath::ColorBlend,
            (Shading::DiffuseFog, BlendKind::Off, DepthKind::Off) => FastPath::ColorFog,
            (Shading::DiffuseTableFog, BlendKind::Off, DepthKind::Off) => FastPath::ColorTableFog,
            _ => FastPath::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stages() -> [StageState; MAX_STAGES] {
        crate::state::PipelineState::default().textures.stages
    }

    #[test]
    fn default_cascade_is_diffuse() {
        assert_eq!(cascade_kind(&stages()), CascadeKind::Diffuse);
        let mut s = stages();
        s[0].has_texture = true;
        assert_eq!(cascade_kind(&s), CascadeKind::Other);
    }

    #[test]
    fn select_diffuse_is_diffuse() {
        let mut s = stages();
        s[0].color_op = TextureOp::SelectArg1;
        s[0].color_arg1 = TextureArgument::new(TextureArg::Diffuse);
        s[0].alpha_op = TextureOp::SelectArg1;
        s[0].alpha_arg1 = TextureArgument::new(TextureArg::Diffuse);
        s[1].color_op = TextureOp::Disable;
        assert_eq!(cascade_kind(&s), CascadeKind::Diffuse);
        s[0].alpha_op = TextureOp::SelectArg2;
        s[0].alpha_arg2 = TextureArgument::new(TextureArg::Current);
        assert_eq!(cascade_kind(&s), CascadeKind::Diffuse);
        // The complement, the specular colour or a constant change it.
        let mut c = s;
        c[0].color_arg1.complement = true;
        assert_eq!(cascade_kind(&c), CascadeKind::Other);
        let mut c = s;
        c[0].alpha_arg2 = TextureArgument::new(TextureArg::Specular);
        assert_eq!(cascade_kind(&c), CascadeKind::Other);
        let mut c = s;
        c[0].color_op = TextureOp::Add;
        assert_eq!(cascade_kind(&c), CascadeKind::Other);
        let mut c = s;
        c[0].result = ResultArg::Temp;
        assert_eq!(cascade_kind(&c), CascadeKind::Other);
    }

    #[test]
    fn blend_kinds() {
        let mut b = BlendState::default();
        assert_eq!(blend_kind(&b), BlendKind::Off);
        b.enable = true;
        b.src = Blend::One;
        b.dst = Blend::Zero;
        assert_eq!(blend_kind(&b), BlendKind::Off);
        b.src = Blend::BothSrcAlpha;
        assert_eq!(
            blend_kind(&b),
            BlendKind::Factors(factor::SRC_ALPHA, factor::INV_SRC_ALPHA)
        );
        b.op = BlendOp::Subtract;
        assert_eq!(blend_kind(&b), BlendKind::Other);
        b.op = BlendOp::Add;
        b.separate_alpha = true;
        b.src_alpha = Blend::One;
        b.dst_alpha = Blend::Zero;
        assert_eq!(blend_kind(&b), BlendKind::Other);
        b.src_alpha = Blend::SrcAlpha;
        b.dst_alpha = Blend::InvSrcAlpha;
        b.op_alpha = BlendOp::Add;
        assert_eq!(
            blend_kind(&b),
            BlendKind::Factors(factor::SRC_ALPHA, factor::INV_SRC_ALPHA)
        );
        b.separate_alpha = false;
        b.src = Blend::BlendFactor;
        assert_eq!(blend_kind(&b), BlendKind::Other);
    }
}
