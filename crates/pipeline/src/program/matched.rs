//! # Pixel shaders drawn as the fixed-function stage they equal
//!
//! A pixel shader whose program is one of the fixed-function shapes of
//! [`softhal_shader::pixel_kind`] (analysed once, when the program is
//! made: [`Program::pixel_kind`]) draws as
//! [`crate::program::PixelProgram::FixedFunction`]
//! with a derived state: the draw's state with the texture cascade
//! replaced by the one stage the program equals. Every other rule of the
//! pixel stage — fog (vertex and table), alpha test, stencil and depth,
//! blending, the colour write mask, render target 0 only — is then the
//! one fixed function applies, and so are its fast kernels (llvmpipe's
//! `lp_fs_kind`; `docs/shaders.md` §13b).
//!
//! - In: the pixel program's [`Program`], the draw's state and textures,
//!   whether a vertex shader feeds it.
//! - Out: a [`Matched`] draw (the derived state and the textures it
//!   binds), or `None` when the program has no kind or the state makes
//!   the fixed-function stage differ from the shader.
//! - Guarantees: the derived state changes only what the pixel program
//!   reads (stage 0–7 operations, stage 0's texture, sampler and
//!   coordinate set, SPECULARENABLE, the colour key); a matched draw
//!   writes what the shader would, to within the colour rounding of the
//!   fixed-function kernels (one unit in 255 per channel, both within
//!   Direct3D 9's 8-bit colour precision; tested in
//!   `crates/pipeline/tests/matched_pixel_shaders.rs`).

use softhal_shader::exec::Program;
use softhal_shader::pixel_kind::{ColorInput, PixelKind};

use crate::cascade::{StageState, TextureArg, TextureArgument, TextureOp};
use crate::limits::PIXEL_SAMPLERS;
use crate::state::PipelineState;
use crate::texture::{ColorKeyMode, Texture};

/// A pixel shader's draw as fixed function: the derived state and the
/// textures of its stages (stage 0 only, or none).
pub(crate) struct Matched<'a> {
    /// The draw's state with the cascade the program equals.
    pub state: PipelineState,
    /// The textures the derived stages sample.
    pub textures: [Option<&'a Texture>; PIXEL_SAMPLERS],
}

/// The texture-stage argument of a colour input.
fn color_arg(c: ColorInput) -> TextureArgument {
    TextureArgument::new(match c {
        ColorInput::Diffuse => TextureArg::Diffuse,
        ColorInput::Specular => TextureArg::Specular,
    })
}

/// The fixed-function draw `program` equals under `state` with
/// `textures`, if any. `vertex_shader`: the vertices come from a vertex
/// shader (stage *i* then reads `oT`*i* whatever D3DTSS_TEXCOORDINDEX
/// says, so only a program sampling at `t0` maps to stage 0).
///
/// Not matched (the shader runs): no kind; a sampled stage without a
/// texture (the shader reads (0, 0, 0, 1), fixed function skips the
/// stage); D3DTTFF_PROJECTED on the coordinate set (ps_1_1–1_3 `tex`
/// divides, ps_1_4 and later ignore it; fixed function divides); a
/// ps_1_x program sampling a floating-point texture (ps_1_x clamps the
/// texel to ±8 before multiplying, the stage does not).
pub(crate) fn fixed_function<'a>(
    program: &Program,
    state: &PipelineState,
    textures: &[Option<&'a Texture>; PIXEL_SAMPLERS],
    vertex_shader: bool,
) -> Option<Matched<'a>> {
    let kind = program.pixel_kind()?;
    let (op, arg1, arg2, sampled) = match kind {
        PixelKind::Color(c) => (TextureOp::SelectArg1, color_arg(c), color_arg(c), None),
        PixelKind::Texture { sampler, coords } => (
            TextureOp::SelectArg1,
            TextureArgument::new(TextureArg::Texture),
            TextureArgument::new(TextureArg::Current),
            Some((sampler, coords)),
        ),
        PixelKind::TextureModulateColor {
            sampler,
            coords,
            color,
        } => (
            TextureOp::Modulate,
            TextureArgument::new(TextureArg::Texture),
            color_arg(color),
            Some((sampler, coords)),
        ),
    };
    let mut derived = *state;
    let ts = &state.textures;
    let out = &mut derived.textures;
    let mut bound = [None; PIXEL_SAMPLERS];
    out.stages = std::array::from_fn(StageState::default_for);
    let s0 = &mut out.stages[0];
    s0.color_op = op;
    s0.color_arg1 = arg1;
    s0.color_arg2 = arg2;
    s0.alpha_op = op;
    s0.alpha_arg1 = arg1;
    s0.alpha_arg2 = arg2;
    if let Some((sampler, coords)) = sampled {
        let (s, t) = (usize::from(sampler), usize::from(coords));
        let tex = (*textures.get(s)?)?;
        let flags = *ts.transform_flags.get(t)?;
        if flags.projected
            || (vertex_shader && t != 0)
            || (program.profile().is_ps1() && tex.format().is_float())
        {
            return None;
        }
        bound[0] = Some(tex);
        out.samplers[0] = *ts.samplers.get(s)?;
        out.tex_coord_index[0] = *ts.tex_coord_index.get(t)?;
        out.transform_flags[0] = flags;
        out.matrices[0] = *ts.matrices.get(t)?;
    }
    // Colour keying and the specular add do not apply to pixel shaders
    // (`docs/shaders.md` §13).
    out.color_key = ColorKeyMode::Off;
    derived.raster.specular_enable = false;
    Some(Matched {
        state: derived,
        textures: bound,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::{TextureDesc, TextureFormat, TextureKind};

    fn program(text: &str) -> Program {
        let shader = softhal_shader::text::assemble(text).expect("assembles");
        Program::new(softhal_shader::validate(shader).expect("validates"))
    }

    fn texture(format: TextureFormat) -> Texture {
        Texture::new(TextureDesc {
            kind: TextureKind::Texture2D,
            format,
            width: 1,
            height: 1,
            depth: 1,
            levels: 1,
        })
        .expect("texture")
    }

    fn stage(op: TextureOp, a1: TextureArg, a2: TextureArg) -> StageState {
        let mut s = StageState::default_for(0);
        (s.color_op, s.alpha_op) = (op, op);
        (s.color_arg1, s.alpha_arg1) = (TextureArgument::new(a1), TextureArgument::new(a1));
        (s.color_arg2, s.alpha_arg2) = (TextureArgument::new(a2), TextureArgument::new(a2));
        s
    }

    #[test]
    fn each_kind_derives_its_stage() {
        let tex = texture(TextureFormat::A8R8G8B8);
        let mut state = PipelineState::default();
        state.raster.specular_enable = true;
        state.textures.color_key = ColorKeyMode::Reject;
        state.textures.stages[1].color_op = TextureOp::Add;
        state.textures.samplers[3].mag_filter = crate::texture::TextureFilter::Point;
        state.textures.tex_coord_index[2].set = 5;
        let mut textures = [None; PIXEL_SAMPLERS];
        textures[3] = Some(&tex);
        textures[0] = Some(&tex);
        let derive = |text: &str, vertex_shader: bool| {
            fixed_function(&program(text), &state, &textures, vertex_shader).expect("matched")
        };
        let m = derive("ps_2_0\ndcl v0\nmov oC0, v0", false);
        assert_eq!(
            m.state.textures.stages[0],
            stage(
                TextureOp::SelectArg1,
                TextureArg::Diffuse,
                TextureArg::Diffuse
            )
        );
        assert_eq!(m.state.textures.stages[1].color_op, TextureOp::Disable);
        assert_eq!(m.textures, [None; PIXEL_SAMPLERS]);
        assert!(!m.state.raster.specular_enable);
        assert_eq!(m.state.textures.color_key, ColorKeyMode::Off);
        // `texld r0, t2, s3` × v1: stage 3's texture and sampler, set 2's
        // coordinate index, at stage 0.
        let m = derive(
            "ps_2_0\ndcl t2\ndcl v1\ndcl_2d s3\ntexld r0, t2, s3\nmul oC0, r0, v1",
            false,
        );
        assert_eq!(
            m.state.textures.stages[0],
            stage(
                TextureOp::Modulate,
                TextureArg::Texture,
                TextureArg::Specular
            )
        );
        assert!(m.textures[0].is_some_and(|t| std::ptr::eq(t, &tex)));
        assert_eq!(m.textures[1..], [None; PIXEL_SAMPLERS - 1]);
        assert_eq!(m.state.textures.samplers[0], state.textures.samplers[3]);
        assert_eq!(m.state.textures.tex_coord_index[0].set, 5);
        let m = derive("ps_1_1\ntex t0\nmov r0, t0", true);
        assert_eq!(
            m.state.textures.stages[0],
            stage(
                TextureOp::SelectArg1,
                TextureArg::Texture,
                TextureArg::Current
            )
        );
        // Everything else of the state is the draw's.
        let mut back = m.state;
        back.textures = state.textures;
        back.raster.specular_enable = true;
        assert_eq!(back, state);
    }

    #[test]
    fn states_the_stage_would_differ_under_are_not_matched() {
        let tex = texture(TextureFormat::A8R8G8B8);
        let float = texture(TextureFormat::A32B32G32R32F);
        let state = PipelineState::default();
        let mut textures = [None; PIXEL_SAMPLERS];
        textures[0] = Some(&tex);
        let sample_t1 = program("ps_2_0\ndcl t1\ndcl_2d s0\ntexld r0, t1, s0\nmov oC0, r0");
        let sample_t0 = program("ps_1_1\ntex t0\nmul r0, t0, v0");
        assert!(fixed_function(&sample_t1, &state, &textures, false).is_some());
        assert!(fixed_function(&sample_t0, &state, &textures, true).is_some());
        // No kind.
        let add = program("ps_2_0\ndcl v0\nadd oC0, v0, v0");
        assert!(fixed_function(&add, &state, &textures, false).is_none());
        // A vertex shader's oT1 is not stage 0's coordinate set.
        assert!(fixed_function(&sample_t1, &state, &textures, true).is_none());
        // No texture on the sampler.
        assert!(fixed_function(&sample_t0, &state, &[None; PIXEL_SAMPLERS], false).is_none());
        // D3DTTFF_PROJECTED on the set sampled.
        let mut projected = state;
        projected.textures.transform_flags[1].projected = true;
        assert!(fixed_function(&sample_t1, &projected, &textures, false).is_none());
        assert!(fixed_function(&sample_t0, &projected, &textures, false).is_some());
        // A floating-point texel in ps_1_x, not in ps_2_0.
        textures[0] = Some(&float);
        assert!(fixed_function(&sample_t0, &state, &textures, false).is_none());
        assert!(fixed_function(&sample_t1, &state, &textures, false).is_some());
    }
}
