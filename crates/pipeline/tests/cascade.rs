//! The texture-stage cascade: every D3DTOP on chosen inputs with
//! exact expected outputs, argument selectors and modifiers, RESULTARG /
//! TEMP, CONSTANT, missing textures, the DISABLE stop, bump mapping (with
//! luminance), PREMODULATE, the legacy TEXTUREMAPBLEND modes and
//! SPECULARENABLE.

use softhal_pipeline::cascade::{
    run_cascade, specular_add, texture_map_blend_stage0, CascadeInputs, ResultArg, StageState,
    TextureArg as S, TextureArgument, TextureBlend, TextureOp as Op, MAX_STAGES,
};

const DIFFUSE: [f32; 4] = [0.5, 0.25, 0.75, 0.5];
const TEX: [f32; 4] = [0.25, 0.5, 0.5, 0.75];
const TFACTOR: [f32; 4] = [1.0, 0.0, 0.5, 0.25];
const SPECULAR: [f32; 4] = [0.125, 0.25, 0.0, 1.0];

fn inputs() -> CascadeInputs {
    CascadeInputs {
        diffuse: DIFFUSE,
        specular: SPECULAR,
        texture_factor: TFACTOR,
    }
}

fn arg(s: S) -> TextureArgument {
    TextureArgument::new(s)
}

/// Stage 0 running `op` on (TEXTURE, DIFFUSE) for colour and alpha, arg0
/// TFACTOR, with a texture.
fn stage(op: Op) -> StageState {
    StageState {
        color_op: op,
        color_arg0: arg(S::TFactor),
        color_arg1: arg(S::Texture),
        color_arg2: arg(S::Diffuse),
        alpha_op: op,
        alpha_arg0: arg(S::TFactor),
        alpha_arg1: arg(S::Texture),
        alpha_arg2: arg(S::Diffuse),
        has_texture: true,
        ..StageState::default_for(0)
    }
}

fn run_one(op: Op) -> [f32; 4] {
    run_cascade(&[stage(op)], &inputs(), |_, _| TEX)
}

#[test]
fn every_texture_op() {
    let cases: [(Op, [f32; 4]); 25] = [
        (Op::SelectArg1, TEX),
        (Op::SelectArg2, DIFFUSE),
        (Op::Modulate, [0.125, 0.125, 0.375, 0.375]),
        (Op::Modulate2x, [0.25, 0.25, 0.75, 0.75]),
        (Op::Modulate4x, [0.5, 0.5, 1.0, 1.0]),
        (Op::Add, [0.75, 0.75, 1.0, 1.0]),
        (Op::AddSigned, [0.25, 0.25, 0.75, 0.75]),
        (Op::AddSigned2x, [0.5, 0.5, 1.0, 1.0]),
        (Op::Subtract, [0.0, 0.25, 0.0, 0.25]),
        (Op::AddSmooth, [0.625, 0.625, 0.875, 0.875]),
        // Diffuse alpha 0.5.
        (Op::BlendDiffuseAlpha, [0.375, 0.375, 0.625, 0.625]),
        // Texture alpha 0.75.
        (Op::BlendTextureAlpha, [0.3125, 0.4375, 0.5625, 0.6875]),
        // TFACTOR alpha 0.25.
        (Op::BlendFactorAlpha, [0.4375, 0.3125, 0.6875, 0.5625]),
        // arg1 + arg2·(1 − 0.75).
        (Op::BlendTextureAlphaPm, [0.375, 0.5625, 0.6875, 0.875]),
        // CURRENT alpha at stage 0 = diffuse alpha 0.5.
        (Op::BlendCurrentAlpha, [0.375, 0.375, 0.625, 0.625]),
        (Op::PreModulate, TEX),
        // arg1 + arg1.a·arg2 (alpha: 0.75 + 0.75·0.5).
        (Op::ModulateAlphaAddColor, [0.625, 0.6875, 1.0, 1.0]),
        // arg1·arg2 + arg1.a.
        (Op::ModulateColorAddAlpha, [0.875, 0.875, 1.0, 1.0]),
        // (1 − arg1.a)·arg2 + arg1.
        (Op::ModulateInvAlphaAddColor, [0.375, 0.5625, 0.6875, 0.875]),
        // (1 − arg1)·arg2 + arg1.a.
        (Op::ModulateInvColorAddAlpha, [1.0, 0.875, 1.0, 0.875]),
        // Bump stages pass CURRENT through.
        (Op::BumpEnvMap, DIFFUSE),
        (Op::BumpEnvMapLuminance, DIFFUSE),
        // (4·Σ(tex − ½)(dif − ½)) = 4·(−¼·0 + 0·−¼ + 0·¼) = 0, replicated.
        (Op::DotProduct3, [0.0; 4]),
        // arg0 + arg1·arg2 with arg0 = TFACTOR.
        (Op::MultiplyAdd, [1.0, 0.125, 0.875, 0.625]),
        // arg0·arg1 + (1 − arg0)·arg2.
        (Op::Lerp, [0.25, 0.25, 0.625, 0.5625]),
    ];
    for (op, want) in cases {
        assert_eq!(run_one(op), want, "{op:?}");
    }
    // DISABLE at stage 0: the diffuse colour.
    assert_eq!(run_one(Op::Disable), DIFFUSE);
    // Every D3DTOP number decodes.
    let all: Vec<_> = (1..=26).filter_map(Op::from_d3d).collect();
    assert_eq!(all.len(), 26);
    assert_eq!(Op::from_d3d(0), None);
    assert_eq!(Op::from_d3d(27), None);
}

#[test]
fn dot3_replicates_into_alpha() {
    let mut st = stage(Op::DotProduct3);
    st.alpha_op = Op::SelectArg2; // ignored: DOT3 writes alpha too
    let inp = CascadeInputs {
        diffuse: [0.625, 0.5, 0.5, 1.0],
        ..inputs()
    };
    // 4·((1 − ½)(0.625 − ½)) = 4·0.0625 = 0.25.
    let got = run_cascade(&[st], &inp, |_, _| [1.0, 0.5, 0.75, 0.0]);
    assert_eq!(got, [0.25; 4]);
    // As an alpha operation alone: colour untouched, alpha = dot of RGBs.
    let mut st = stage(Op::SelectArg2);
    st.alpha_op = Op::DotProduct3;
    let got = run_cascade(&[st], &inp, |_, _| [1.0, 0.5, 0.75, 0.0]);
    assert_eq!(got, [0.625, 0.5, 0.5, 0.25]);
}

#[test]
fn argument_modifiers_and_selectors() {
    let sel = |a: TextureArgument| {
        let st = StageState {
            color_op: Op::SelectArg1,
            color_arg1: a,
            alpha_op: Op::SelectArg1,
            alpha_arg1: a,
            has_texture: true,
            constant: [0.5, 0.75, 0.25, 0.125],
            ..StageState::default_for(0)
        };
        run_cascade(&[st], &inputs(), |_, _| TEX)
    };
    assert_eq!(sel(arg(S::Diffuse)), DIFFUSE);
    assert_eq!(sel(arg(S::Current)), DIFFUSE);
    assert_eq!(sel(arg(S::Texture)), TEX);
    assert_eq!(sel(arg(S::TFactor)), TFACTOR);
    assert_eq!(sel(arg(S::Specular)), SPECULAR);
    assert_eq!(sel(arg(S::Temp)), [0.0; 4]);
    assert_eq!(sel(arg(S::Constant)), [0.5, 0.75, 0.25, 0.125]);
    let m = |complement, alpha_replicate| TextureArgument {
        source: S::Texture,
        complement,
        alpha_replicate,
    };
    assert_eq!(sel(m(true, false)), [0.75, 0.5, 0.5, 0.25]);
    assert_eq!(sel(m(false, true)), [0.75; 4]);
    assert_eq!(sel(m(true, true)), [0.25; 4]);
}

#[test]
fn missing_texture_passes_current() {
    let mut calls = 0;
    let mut st = stage(Op::Modulate);
    st.has_texture = false;
    st.alpha_op = Op::SelectArg2; // diffuse alpha: does not read TEXTURE
    st.alpha_arg2 = arg(S::TFactor);
    let got = run_cascade(&[st], &inputs(), |_, _| {
        calls += 1;
        TEX
    });
    assert_eq!(got, [0.5, 0.25, 0.75, 0.25]);
    assert_eq!(calls, 0);
    // BLENDTEXTUREALPHA reads the texture implicitly.
    let mut st = stage(Op::BlendTextureAlpha);
    st.color_arg1 = arg(S::TFactor);
    st.has_texture = false;
    assert_eq!(run_cascade(&[st], &inputs(), |_, _| TEX), DIFFUSE);
    // A stage that does not read its texture does not sample it.
    let mut calls = 0;
    let st = StageState {
        color_op: Op::SelectArg1,
        color_arg1: arg(S::TFactor),
        alpha_op: Op::SelectArg1,
        alpha_arg1: arg(S::TFactor),
        has_texture: true,
        ..StageState::default_for(0)
    };
    let got = run_cascade(&[st], &inputs(), |_, _| {
        calls += 1;
        TEX
    });
    assert_eq!((got, calls), (TFACTOR, 0));
}

#[test]
fn cascade_order_disable_temp_and_limits() {
    let tf = StageState {
        color_op: Op::SelectArg1,
        color_arg1: arg(S::TFactor),
        alpha_op: Op::SelectArg1,
        alpha_arg1: arg(S::TFactor),
        ..StageState::default_for(0)
    };
    // Stage 1 DISABLE stops the cascade: stage 2 is ignored.
    let stages = [stage(Op::SelectArg1), StageState::default_for(1), tf];
    assert_eq!(run_cascade(&stages, &inputs(), |_, _| TEX), TEX);
    // RESULTARG TEMP: stage 0 writes TFACTOR to TEMP, CURRENT stays diffuse;
    // stage 1 modulates TEMP with CURRENT.
    let s0 = StageState {
        result: ResultArg::Temp,
        ..tf
    };
    let s1 = StageState {
        color_op: Op::Modulate,
        color_arg1: arg(S::Temp),
        color_arg2: arg(S::Current),
        alpha_op: Op::Modulate,
        alpha_arg1: arg(S::Temp),
        alpha_arg2: arg(S::Current),
        ..StageState::default_for(1)
    };
    assert_eq!(
        run_cascade(&[s0, s1], &inputs(), |_, _| TEX),
        [0.5, 0.0, 0.375, 0.125]
    );
    // Only MAX_STAGES stages run; each sees its own texture.
    let add = StageState {
        color_op: Op::Add,
        color_arg1: arg(S::Current),
        color_arg2: arg(S::Texture),
        alpha_op: Op::SelectArg1,
        alpha_arg1: arg(S::Current),
        has_texture: true,
        ..StageState::default_for(1)
    };
    let stages = vec![add; MAX_STAGES + 2];
    let mut seen = Vec::new();
    let inp = CascadeInputs {
        diffuse: [0.0; 4],
        ..inputs()
    };
    let got = run_cascade(&stages, &inp, |n, off| {
        seen.push((n, off));
        [1.0 / 16.0, 0.0, 0.0, 0.0]
    });
    assert_eq!(got, [MAX_STAGES as f32 / 16.0, 0.0, 0.0, 0.0]);
    assert_eq!(seen.len(), MAX_STAGES);
    assert!(seen.iter().enumerate().all(|(i, s)| *s == (i, [0.0; 2])));
}

#[test]
fn bump_env_map_perturbs_next_stage() {
    for (op, scale) in [(Op::BumpEnvMap, 1.0), (Op::BumpEnvMapLuminance, 0.5)] {
        let s0 = StageState {
            color_op: op,
            alpha_op: Op::SelectArg1,
            alpha_arg1: arg(S::Diffuse),
            bump_env_mat: [[0.5, 0.0], [0.0, 2.0]],
            bump_lscale: 0.5,
            bump_loffset: 0.25,
            has_texture: true,
            ..StageState::default_for(0)
        };
        let s1 = StageState {
            color_op: Op::SelectArg1,
            color_arg1: arg(S::Texture),
            alpha_op: Op::SelectArg1,
            alpha_arg1: arg(S::Texture),
            has_texture: true,
            ..StageState::default_for(1)
        };
        let mut offsets = Vec::new();
        let got = run_cascade(&[s0, s1], &inputs(), |n, off| {
            offsets.push((n, off));
            if n == 0 {
                // Signed du = 0.5, dv = −0.25, luminance 0.5.
                [0.5, -0.25, 0.5, 1.0]
            } else {
                [1.0, 0.5, 0.25, 1.0]
            }
        });
        // (du·M00 + dv·M10, du·M01 + dv·M11) = (0.25, −0.5).
        assert_eq!(offsets, vec![(0, [0.0, 0.0]), (1, [0.25, -0.5])], "{op:?}");
        // Luminance: L' = 0.5·0.5 + 0.25 = 0.5 scales stage 1's texture.
        assert_eq!(got, [scale, 0.5 * scale, 0.25 * scale, scale], "{op:?}");
    }
}

#[test]
fn premodulate_multiplies_next_texture() {
    let s0 = StageState {
        color_op: Op::PreModulate,
        color_arg1: arg(S::Diffuse),
        alpha_op: Op::SelectArg1,
        alpha_arg1: arg(S::Diffuse),
        ..StageState::default_for(0)
    };
    let s1 = StageState {
        color_op: Op::SelectArg1,
        color_arg1: arg(S::Current),
        alpha_op: Op::SelectArg1,
        alpha_arg1: arg(S::Current),
        has_texture: true,
        ..StageState::default_for(1)
    };
    let got = run_cascade(&[s0, s1], &inputs(), |_, _| TEX);
    assert_eq!(got, [0.125, 0.125, 0.375, 0.375]);
}

#[test]
fn signed_inputs_are_clamped_per_stage() {
    // A bump texel selected as a colour clamps negative channels to 0.
    let st = stage(Op::SelectArg1);
    let got = run_cascade(&[st], &inputs(), |_, _| [-0.5, 1.5, f32::NAN, 0.5]);
    assert_eq!(got, [0.0, 1.0, 0.0, 0.5]);
    // Signed values reach the operation: ADD(−0.5, diffuse 0.5) = 0.
    let got = run_cascade(&[stage(Op::Add)], &inputs(), |_, _| [-0.5, 0.0, 0.0, 0.0]);
    assert_eq!(got, [0.0, 0.25, 0.75, 0.5]);
}

#[test]
fn legacy_texture_map_blend() {
    use TextureBlend as B;
    assert_eq!(B::from_d3d(8), Some(B::Add));
    assert_eq!(B::from_d3d(9), None);
    let run = |b: B, has_alpha: bool| {
        let st = texture_map_blend_stage0(b, has_alpha, true);
        run_cascade(&[st, StageState::default_for(1)], &inputs(), |_, _| TEX)
    };
    assert_eq!(run(B::Decal, true), TEX);
    assert_eq!(run(B::Copy, false), TEX);
    assert_eq!(run(B::Modulate, true), [0.125, 0.125, 0.375, 0.75]);
    assert_eq!(run(B::Modulate, false), [0.125, 0.125, 0.375, 0.5]);
    assert_eq!(run(B::ModulateAlpha, true), [0.125, 0.125, 0.375, 0.375]);
    assert_eq!(run(B::DecalAlpha, true), [0.3125, 0.4375, 0.5625, 0.5]);
    assert_eq!(run(B::Add, true), [0.75, 0.75, 1.0, 0.5]);
    assert_eq!(run(B::DecalMask, true), [0.25, 0.5, 0.5, 0.5]);
    assert_eq!(run(B::ModulateMask, true), [0.125, 0.125, 0.375, 0.5]);
}

#[test]
fn specular_enable_adds_rgb() {
    assert_eq!(
        specular_add([0.5, 0.875, 0.0, 0.25], [0.25, 0.25, 0.5, 1.0]),
        [0.75, 1.0, 0.5, 0.25]
    );
}
