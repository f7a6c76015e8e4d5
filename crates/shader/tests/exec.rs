//! The executor against the Direct3D 9 assembly reference: each
//! instruction and modifier runs on inputs chosen so that the expected
//! result can be worked out by hand (the arithmetic is written next to each
//! expectation), and each flow-control construct runs with lanes that take
//! different paths.

use softhal_shader::exec::{
    BumpEnv, Constants, Lanes, LodMode, NoTextures, Program, Registers, SampleRequest, Textures,
    Vec4, ALL_LANES, LANES, MAX_INSTRUCTIONS_EXECUTED,
};
use softhal_shader::parse_and_validate;
use softhal_shader::text::assemble;

fn program(text: &str) -> Program {
    let shader = assemble(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let valid = parse_and_validate(&shader.to_tokens()).unwrap_or_else(|e| panic!("{text}: {e}"));
    Program::new(valid)
}

/// Runs `text` with `inputs` (v#, the same in every lane) and `constants`.
fn run_with(
    text: &str,
    inputs: &[(usize, Vec4)],
    constants: &Constants,
    textures: &dyn Textures,
) -> Registers {
    let p = program(text);
    let mut regs = Registers::new(&p);
    for &(i, v) in inputs {
        regs.input[i] = [v; LANES];
    }
    let bound = p.bind(constants);
    let stats = p.run(&mut regs, &bound, textures, ALL_LANES);
    assert!(!stats.stopped);
    regs
}

fn run(text: &str, inputs: &[(usize, Vec4)]) -> Registers {
    run_with(text, inputs, &Constants::default(), &NoTextures)
}

/// oT# of lane 0.
fn ot(regs: &Registers, i: usize) -> Vec4 {
    regs.texcrd_out[i][0]
}

fn close(a: Vec4, b: Vec4) {
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).abs() <= 1e-5 * y.abs().max(1.0), "{a:?} != {b:?}");
    }
}

#[test]
fn vector_arithmetic() {
    let r = run(
        "vs_2_0
         def c0, 1.0, 2.0, 3.0, 4.0
         def c1, 0.5, -1.0, 3.0, 8.0
         dcl_position v0
         add oT0, c0, c1
         sub oT1, c0, c1
         mul oT2, c0, c1
         mad oT3, c0, c1, c0
         dp3 oT4, c0, c1
         dp4 oT5, c0, c1
         min oT6, c0, c1
         max oT7, c0, c1",
        &[],
    );
    assert_eq!(ot(&r, 0), [1.5, 1.0, 6.0, 12.0]);
    assert_eq!(ot(&r, 1), [0.5, 3.0, 0.0, -4.0]);
    assert_eq!(ot(&r, 2), [0.5, -2.0, 9.0, 32.0]);
    assert_eq!(ot(&r, 3), [1.5, 0.0, 12.0, 36.0]);
    // 0.5 − 2 + 9 = 7.5; + 32 = 39.5.
    assert_eq!(ot(&r, 4), [7.5; 4]);
    assert_eq!(ot(&r, 5), [39.5; 4]);
    assert_eq!(ot(&r, 6), [0.5, -1.0, 3.0, 4.0]);
    assert_eq!(ot(&r, 7), [1.0, 2.0, 3.0, 8.0]);
}

#[test]
fn comparisons_and_scalar_functions() {
    let r = run(
        "vs_2_0
         def c0, 1.0, 2.0, 3.0, 0.0
         def c1, 2.0, 2.0, 1.0, -4.0
         def c2, 4.0, 8.0, -1.25, 3.0
         dcl_position v0
         slt oT0, c0, c1
         sge oT1, c0, c1
         rcp oT2.x, c2.x
         rcp oT2.y, c0.w
         rcp oT2.z, c0.x
         rsq oT2.w, c1.w
         log oT3.x, c2.y
         log oT3.y, c0.w
         exp oT3.z, c2.w
         frc oT3.w, c2.z
         pow oT4, c1.w, c2.w
         abs oT5, c2
         sgn oT6, c2.wzyx, r0, r1",
        &[],
    );
    assert_eq!(ot(&r, 0), [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(ot(&r, 1), [0.0, 1.0, 1.0, 1.0]);
    // rcp 4 = 0.25; rcp 0 = the largest float; rcp 1 = exactly 1;
    // rsq |−4| = 0.5.
    assert_eq!(ot(&r, 2), [0.25, f32::MAX, 1.0, 0.5]);
    // log2 8 = 3; log 0 = the most negative float; 2³ = 8; frc −1.25 = 0.75.
    assert_eq!(ot(&r, 3), [3.0, -f32::MAX, 8.0, 0.75]);
    // pow takes |src0|: |−4|³ = 64.
    assert_eq!(ot(&r, 4), [64.0; 4]);
    assert_eq!(ot(&r, 5), [4.0, 8.0, 1.25, 3.0]);
    assert_eq!(ot(&r, 6), [1.0, -1.0, 1.0, 1.0]);
}

#[test]
fn lit_dst_lrp_crs_nrm_sincos() {
    let r = run(
        "vs_2_0
         def c0, 0.5, 0.25, 9.0, 2.0
         def c1, -0.5, 0.25, 9.0, 2.0
         def c2, 0.5, 1.0, 0.0, 200.0
         def c3, 7.0, 2.0, 3.0, 7.0
         def c4, 7.0, 4.0, 7.0, 5.0
         def c5, 0.25, 8.0, 4.0, 0.0
         def c6, 3.0, 0.0, 4.0, 10.0
         def c7, 1.5707964, 0.0, 0.0, 0.0
         dcl_position v0
         lit oT0, c0
         lit oT1, c1
         lit oT2, c2
         dst oT3, c3, c4
         lrp oT4, c5.x, c5.y, c5.z
         crs oT5.xyz, c3, c4
         nrm oT6, c6
         sincos oT7.xy, c7.x, c0, c1",
        &[],
    );
    // N·L = 0.5 > 0: y = 0.5; N·H = 0.25 > 0: z = 0.25² = 0.0625.
    assert_eq!(ot(&r, 0), [1.0, 0.5, 0.0625, 1.0]);
    // N·L ≤ 0: (1, 0, 0, 1).
    assert_eq!(ot(&r, 1), [1.0, 0.0, 0.0, 1.0]);
    // power clamped to 127.9961; 1^p = 1.
    assert_eq!(ot(&r, 2), [1.0, 0.5, 1.0, 1.0]);
    // dst: (1, 2·4, 3, 5).
    assert_eq!(ot(&r, 3), [1.0, 8.0, 3.0, 5.0]);
    // lrp: 0.25·(8 − 4) + 4 = 5.
    assert_eq!(ot(&r, 4), [5.0; 4]);
    // (7, 2, 3) × (7, 4, 7) = (2·7 − 3·4, 3·7 − 7·7, 7·4 − 2·7) = (2, −28, 14).
    assert_eq!(&ot(&r, 5)[..3], &[2.0, -28.0, 14.0]);
    // |(3, 0, 4)| = 5: (0.6, 0, 0.8) and w scaled by the same 1/5.
    close(ot(&r, 6), [0.6, 0.0, 0.8, 2.0]);
    // cos(π/2) = 0, sin(π/2) = 1.
    close(ot(&r, 7), [0.0, 1.0, 0.0, 0.0]);
}

#[test]
fn matrix_products_read_consecutive_registers() {
    // c0–c3: rows of a translation by (10, 20, 30) (row k · v).
    let consts = Constants {
        float: vec![
            [1.0, 0.0, 0.0, 10.0],
            [0.0, 1.0, 0.0, 20.0],
            [0.0, 0.0, 1.0, 30.0],
            [0.0, 0.0, 0.0, 1.0],
        ],
        ..Constants::default()
    };
    let r = run_with(
        "vs_1_1
         dcl_position v0
         m4x4 oPos, v0, c0
         m4x3 oT0.xyz, v0, c0
         m3x3 oT1.xyz, v0, c0
         m3x2 oT2.xy, v0, c0
         m3x4 oT3, v0, c0",
        &[(0, [1.0, 2.0, 3.0, 1.0])],
        &consts,
        &NoTextures,
    );
    assert_eq!(r.rast_out[0][0], [11.0, 22.0, 33.0, 1.0]);
    assert_eq!(&ot(&r, 0)[..3], &[11.0, 22.0, 33.0]);
    assert_eq!(&ot(&r, 1)[..3], &[1.0, 2.0, 3.0]);
    assert_eq!(&ot(&r, 2)[..2], &[1.0, 2.0]);
    // m3x4: dp3 with each of the four rows: (1, 2, 3, 0).
    assert_eq!(ot(&r, 3), [1.0, 2.0, 3.0, 0.0]);
}

#[test]
fn address_register_rounds_and_relative_reads_are_bounded() {
    let consts = Constants {
        float: (0..96).map(|i| [i as f32; 4]).collect(),
        ..Constants::default()
    };
    // vs_1_1 `mov a0.x` floors: 1.7 → 1; c[a0.x + 2] = c3.
    let r = run_with(
        "vs_1_1
         def c90, 1.7, 200.0, -50.0, 0.0
         dcl_position v0
         mov a0.x, c90.x
         mov oT0, c[a0.x + 2]
         mov a0.x, c90.y
         mov oT1, c[a0.x + 2]
         mov a0.x, c90.z
         mov oT2, c[a0.x + 2]",
        &[],
        &consts,
        &NoTextures,
    );
    assert_eq!(ot(&r, 0), [3.0; 4]);
    // 202 and −48 are outside c0…c95: the read gives 0.
    assert_eq!(ot(&r, 1), [0.0; 4]);
    assert_eq!(ot(&r, 2), [0.0; 4]);
    // vs_2_0 `mova` rounds to nearest: 1.5 → 2, 2.4 → 2; 2·4 = 8 per the
    // W7 pattern.
    let r = run_with(
        "vs_2_0
         def c100, 1.5, 2.4, 0.0, 0.0
         dcl_position v0
         mova a0.xy, c100
         mov oT0, c[a0.x + 5]
         mov oT1, c[a0.y + 6]",
        &[],
        &Constants {
            float: (0..256).map(|i| [i as f32; 4]).collect(),
            ..Constants::default()
        },
        &NoTextures,
    );
    assert_eq!(ot(&r, 0), [7.0; 4]);
    assert_eq!(ot(&r, 1), [8.0; 4]);
}

/// A constant read through a0 is read whole once and shared by the
/// instructions that read it again (until a0 changes): each read still
/// takes its own swizzle and modifier, and a read after a0 changes gets
/// the new register.
#[test]
fn relative_reads_of_one_register_keep_their_own_swizzles() {
    // c_i = (i, i + ¼, i + ½, i + ¾).
    let consts = Constants {
        float: (0..16)
            .map(|i| {
                let i = i as f32;
                [i, i + 0.25, i + 0.5, i + 0.75]
            })
            .collect(),
        ..Constants::default()
    };
    let r = run_with(
        "vs_2_0
         def c20, 1.0, 3.0, 0.0, 0.0
         dcl_position v0
         mova a0.x, c20.x
         mov oT0, c[a0.x + 2].wzyx
         mov oT1, -c[a0.x + 2].yyxx
         mova a0.x, c20.y
         add oT2, c[a0.x + 2], c[a0.x + 2].x",
        &[],
        &consts,
        &NoTextures,
    );
    // a0.x = 1: c3 = (3, 3.25, 3.5, 3.75).
    assert_eq!(ot(&r, 0), [3.75, 3.5, 3.25, 3.0]);
    assert_eq!(ot(&r, 1), [-3.25, -3.25, -3.0, -3.0]);
    // a0.x = 3: c5 = (5, 5.25, 5.5, 5.75), plus its x = 5.
    assert_eq!(ot(&r, 2), [10.0, 10.25, 10.5, 10.75]);
}

#[test]
fn vs_1_1_expp_and_logp_give_their_four_parts() {
    let r = run(
        "vs_1_1
         def c0, 2.5, 8.0, 0.0, 0.0
         dcl_position v0
         expp oT0, c0.x
         logp oT1, c0.y
         logp oT2, c0.z",
        &[],
    );
    let t0 = ot(&r, 0);
    // 2^floor(2.5) = 4, fraction 0.5, 2^2.5 ≈ 5.657 to partial precision, 1.
    assert_eq!([t0[0], t0[1], t0[3]], [4.0, 0.5, 1.0]);
    assert!((t0[2] - 5.656_854).abs() < 1e-3);
    // 8 = 1.0 · 2³: exponent 3, mantissa 1, log2 3, 1.
    assert_eq!(ot(&r, 1), [3.0, 1.0, 3.0, 1.0]);
    assert_eq!(ot(&r, 2), [-f32::MAX, 1.0, -f32::MAX, 1.0]);
}

#[test]
fn shader_definitions_override_runtime_constants() {
    let consts = Constants {
        float: vec![[9.0; 4], [5.0; 4]],
        ..Constants::default()
    };
    let r = run_with(
        "vs_2_0
         def c0, 1.0, 1.0, 1.0, 1.0
         dcl_position v0
         mov oT0, c0
         mov oT1, c1",
        &[],
        &consts,
        &NoTextures,
    );
    assert_eq!(ot(&r, 0), [1.0; 4]);
    assert_eq!(ot(&r, 1), [5.0; 4]);
}

/// A pixel-shader run with v0 per lane and t0 per lane.
fn run_ps(text: &str, v0: [Vec4; LANES], t: &[(usize, Lanes)], consts: &Constants) -> Registers {
    let p = program(text);
    let mut regs = Registers::new(&p);
    if let Some(v) = regs.input.first_mut() {
        *v = v0;
    }
    for &(i, c) in t {
        regs.texcoord[i] = c;
    }
    let bound = p.bind(consts);
    p.run(&mut regs, &bound, &Echo, ALL_LANES);
    regs
}

/// A texture unit that returns what it was asked: (u, v, ddx of u, the
/// level or bias), and bump matrix (0.5, 0, 0, 0.5).
struct Echo;

impl Textures for Echo {
    fn sample(&self, r: &SampleRequest) -> Lanes {
        let lod = |l: usize| match r.lod {
            LodMode::Gradients { bias } => bias[l],
            LodMode::Level(level) => level[l],
        };
        std::array::from_fn(|l| [r.coords[l][0], r.coords[l][1], r.ddx[l][0], lod(l)])
    }

    fn bump_env(&self, _: u8) -> BumpEnv {
        BumpEnv {
            matrix: [0.5, 0.0, 0.0, 0.5],
            lscale: 2.0,
            loffset: 0.0,
        }
    }
}

#[test]
fn ps_1_x_modifiers_shifts_clamps_and_coissue() {
    let v0 = [[0.75, 0.25, 1.0, 0.5]; LANES];
    let consts = Constants {
        float: vec![[2.0, -3.0, 0.5, 0.25]],
        ..Constants::default()
    };
    // c0 is clamped to [−1, 1] in ps_1_x: (1, −1, 0.5, 0.25).
    let r = run_ps("ps_1_1\nmov r0, c0", v0, &[], &consts);
    assert_eq!(r.temp[0][0], [1.0, -1.0, 0.5, 0.25]);
    // _bx2: 2x − 1; _bias: x − 0.5; 1 − x; _x4 shift then the ±8 range.
    let r = run_ps("ps_1_1\nmov r0, v0_bx2\nmov r1, v0_bias", v0, &[], &consts);
    assert_eq!(r.temp[0][0], [0.5, -0.5, 1.0, 0.0]);
    assert_eq!(r.temp[1][0], [0.25, -0.25, 0.5, 0.0]);
    let r = run_ps(
        "ps_1_1\nadd_x4 r0, v0, v0\nmov_d2 r1, 1-v0",
        v0,
        &[],
        &consts,
    );
    // (1.5, 0.5, 2, 1)·4 = (6, 2, 8, 4), within ±8.
    assert_eq!(r.temp[0][0], [6.0, 2.0, 8.0, 4.0]);
    assert_eq!(r.temp[1][0], [0.125, 0.375, 0.0, 0.25]);
    let r = run_ps(
        "ps_1_4\ndef c1, 3.0, 1.0, 1.0, 1.0\nmov_x8 r0, c1\nmov_sat r1, v0_x2",
        v0,
        &[],
        &consts,
    );
    // c1 clamps to 1 when read; 1·8 = 8 is the range's edge.
    assert_eq!(r.temp[0][0], [8.0; 4]);
    // 2·v0 = (1.5, 0.5, 2, 1), saturated.
    assert_eq!(r.temp[1][0], [1.0, 0.5, 1.0, 1.0]);
    // Co-issue: the alpha half reads r0 as it was before the colour half.
    let r = run_ps(
        "ps_1_1\nmov r0, v0\nmul r0.rgb, r0, c0\n+add r0.a, r0.b, r0.a",
        v0,
        &[],
        &consts,
    );
    // rgb = (0.75·1, 0.25·−1, 1·0.5); a = old b + old a = 1 + 0.5.
    assert_eq!(r.temp[0][0], [0.75, -0.25, 0.5, 1.5]);
}

#[test]
fn cnd_cmp_and_dp2add() {
    let v0 = [[0.75, 0.25, 0.5, 0.6]; LANES];
    let r = run_ps(
        "ps_1_4
         def c0, 1.0, 1.0, 1.0, 1.0
         def c1, 0.0, 0.0, 0.0, 0.0
         cnd r0, v0, c0, c1
         cmp r1, v0_bias, c0, c1",
        v0,
        &[],
        &Constants::default(),
    );
    // cnd: > 0.5 → 1 (0.5 itself is not greater).
    assert_eq!(r.temp[0][0], [1.0, 0.0, 0.0, 1.0]);
    // cmp: x − 0.5 ≥ 0 → 1.
    assert_eq!(r.temp[1][0], [1.0, 0.0, 1.0, 1.0]);
    let r = run_ps(
        "ps_2_0
         def c0, 2.0, 3.0, 0.0, 0.0
         def c1, 4.0, 5.0, 0.0, 0.0
         def c2, 0.5, 0.0, 0.0, 0.0
         dp2add r0, c0, c1, c2.x
         mov oC0, r0",
        v0,
        &[],
        &Constants::default(),
    );
    // 2·4 + 3·5 + 0.5.
    assert_eq!(r.color_out[0][0], [23.5; 4]);
}

/// x + 2y of each lane of a quad, in every component.
fn quad_ramp(scale_x: f32, scale_y: f32) -> Lanes {
    std::array::from_fn(|l| [(l & 1) as f32 * scale_x + (l >> 1) as f32 * scale_y; 4])
}

#[test]
fn derivatives_come_from_the_quad() {
    let t0 = quad_ramp(0.25, 0.5);
    let r = run_ps(
        "ps_2_x
         dcl t0
         dsx r0, t0
         dsy r1, t0
         mov oC0, r0
         mov oC1, r1",
        [[0.0; 4]; LANES],
        &[(0, t0)],
        &Constants::default(),
    );
    for l in 0..LANES {
        assert_eq!(r.color_out[0][l], [0.25; 4]);
        assert_eq!(r.color_out[1][l], [0.5; 4]);
    }
}

#[test]
fn texld_variants_ask_the_texture_unit_what_the_reference_says() {
    // t0 = (u, v, 0, w) with u = 0.125·x per lane, w = 2.
    let t0: Lanes = std::array::from_fn(|l| [(l & 1) as f32 * 0.125, 0.5, 0.0, 2.0]);
    let r = run_ps(
        "ps_2_0
         dcl t0
         dcl_2d s0
         texld r0, t0, s0
         texldp r1, t0, s0
         texldb r2, t0, s0
         mov oC0, r0
         mov oC1, r1
         mov oC2, r2",
        [[0.0; 4]; LANES],
        &[(0, t0)],
        &Constants::default(),
    );
    // texld: coords as given, du/dx = 0.125, bias 0.
    assert_eq!(r.color_out[0][1], [0.125, 0.5, 0.125, 0.0]);
    // texldp: divided by w = 2 (and so is the derivative).
    assert_eq!(r.color_out[1][1], [0.0625, 0.25, 0.0625, 0.0]);
    // texldb: bias = w.
    assert_eq!(r.color_out[2][1], [0.125, 0.5, 0.125, 2.0]);
}

#[test]
fn texkill_removes_lanes_with_a_negative_component() {
    // Lane l has −1 in component l (lane 3: w, which ps_1_x ignores).
    let t0: Lanes = std::array::from_fn(|l| {
        let mut v = [0.5; 4];
        v[l] = -1.0;
        v
    });
    let r = run_ps(
        "ps_2_0\ndcl t0\ntexkill t0\nmov oC0, t0",
        [[0.0; 4]; LANES],
        &[(0, t0)],
        &Constants::default(),
    );
    assert_eq!(r.killed, 0b1111);
    let r = run_ps(
        "ps_1_1\ntexkill t0\nmov r0, v0",
        [[0.0; 4]; LANES],
        &[(0, t0)],
        &Constants::default(),
    );
    assert_eq!(r.killed, 0b0111, "ps_1_x tests x, y, z only");
}

#[test]
fn ps_1_1_texture_addressing() {
    let t: Lanes = [[0.25, 0.75, 0.5, 1.0]; LANES];
    let r = run_ps(
        "ps_1_1
         tex t0
         texcoord t1
         mov r0, t0
         mov r1, t1",
        [[0.0; 4]; LANES],
        &[(0, t), (1, [[2.0, -1.0, 0.5, 7.0]; LANES])],
        &Constants::default(),
    );
    // tex t0 samples stage 0 at texcoord 0 (the echo unit: u, v, du/dx, lod).
    assert_eq!(r.temp[0][0], [0.25, 0.75, 0.0, 0.0]);
    // texcoord clamps to [0, 1] and sets w = 1.
    assert_eq!(r.temp[1][0], [1.0, 0.0, 0.5, 1.0]);
    // texbem: (u, v) + M·(t0.r, t0.g) with M = 0.5·I: (0.25 + 0.125, 0.75 + 0.375).
    let r = run_ps(
        "ps_1_1
         tex t0
         texbem t1, t0
         mov r0, t1",
        [[0.0; 4]; LANES],
        &[(0, t), (1, t)],
        &Constants::default(),
    );
    assert_eq!(r.temp[0][0], [0.375, 1.125, 0.0, 0.0]);
    // texm3x2pad / texm3x2tex: u = tc1·t0, v = tc2·t0 with t0 = (0.25, 0.75, 0, 0).
    let r = run_ps(
        "ps_1_1
         tex t0
         texm3x2pad t1, t0
         texm3x2tex t2, t0
         mov r0, t2",
        [[0.0; 4]; LANES],
        &[
            (0, t),
            (1, [[1.0, 0.0, 0.0, 0.0]; LANES]),
            (2, [[0.0, 1.0, 0.0, 0.0]; LANES]),
        ],
        &Constants::default(),
    );
    assert_eq!(r.temp[0][0], [0.25, 0.75, 0.0, 0.0]);
}

/// Runs `p` on a group whose lane l has v0 = (l, l, l, l), so that lanes
/// take different paths through data-dependent flow control.
fn run_numbered_lanes(p: &Program) -> Registers {
    let mut regs = Registers::new(p);
    regs.input[0] = std::array::from_fn(|l| [l as f32; 4]);
    p.run(
        &mut regs,
        &p.bind(&Constants::default()),
        &NoTextures,
        ALL_LANES,
    );
    regs
}

/// oT#/o# `o`'s x in each lane.
fn first_component(regs: &Registers, o: usize) -> Vec<f32> {
    (0..LANES).map(|l| regs.texcrd_out[o][l][0]).collect()
}

#[test]
fn uniform_and_divergent_branches() {
    // Lane l has v0.x = l: if_gt v0.x, 1.5 takes lanes 2 and 3.
    let p = program(
        "vs_2_x
         def c0, 1.5, 10.0, 20.0, 0.0
         defb b0, true
         defb b1, false
         dcl_position v0
         if_gt v0.x, c0.x
           mov oT0, c0.y
         else
           mov oT0, c0.z
         endif
         if b0
           mov oT1, c0.y
         endif
         if b1
           mov oT1, c0.z
         endif",
    );
    let regs = run_numbered_lanes(&p);
    let got = first_component(&regs, 0);
    assert_eq!(got, [20.0, 20.0, 10.0, 10.0]);
    for l in 0..LANES {
        assert_eq!(regs.texcrd_out[1][l][0], 10.0);
    }
}

#[test]
fn loops_count_al_and_break_per_lane() {
    // loop aL, i0 with i0 = (count 3, start 1, step 2): aL = 1, 3, 5 → sum 9.
    let r = run(
        "vs_2_0
         defi i0, 3, 1, 2, 0
         def c0, 1.0, 0.0, 0.0, 0.0
         def c1, 1.0, 3.0, 5.0, 0.0
         dcl_position v0
         mov r0, c0.y
         loop aL, i0
           add r0, r0, c0.x
         endloop
         mov oT0, r0",
        &[],
    );
    assert_eq!(ot(&r, 0), [3.0; 4]);
    // aL indexes constants: c[aL + 0] over aL = 1, 3, 5 of c0…c7 = index.
    let consts = Constants {
        float: (0..16).map(|i| [i as f32; 4]).collect(),
        ..Constants::default()
    };
    let r = run_with(
        "vs_2_0
         defi i0, 3, 1, 2, 0
         dcl_position v0
         mov r0, c15
         mov r0, c10.x
         sub r0, r0, c10.x
         loop aL, i0
           add r0, r0, c[aL]
         endloop
         mov oT0, r0",
        &[],
        &consts,
        &NoTextures,
    );
    assert_eq!(ot(&r, 0), [9.0; 4]);
    // rep with a per-lane breakc: lane l leaves when its counter passes l.
    let p = program(
        "vs_2_x
         defi i0, 10, 0, 0, 0
         def c0, 1.0, 0.0, 0.0, 0.0
         dcl_position v0
         mov r0, c0.y
         rep i0
           break_gt r0.x, v0.x
           add r0, r0, c0.x
         endrep
         mov oT0, r0",
    );
    let regs = run_numbered_lanes(&p);
    // Counter runs 0, 1, …; lane l breaks once r0 > l: at r0 = l + 1.
    let got = first_component(&regs, 0);
    assert_eq!(got, [1.0, 2.0, 3.0, 4.0]);
}

#[test]
fn break_inside_an_if_keeps_the_else_lanes_running() {
    let p = program(
        "vs_2_x
         defi i0, 4, 0, 0, 0
         def c0, 1.0, 0.0, 1.5, 0.0
         dcl_position v0
         mov r0, c0.y
         rep i0
           if_gt v0.x, c0.z
             break
           else
             add r0, r0, c0.x
           endif
         endrep
         mov oT0, r0",
    );
    let regs = run_numbered_lanes(&p);
    // Lanes 2, 3 (v0.x > 1.5) break at once; lanes 0, 1 add 4 times.
    let got = first_component(&regs, 0);
    assert_eq!(got, [4.0, 4.0, 0.0, 0.0]);
}

#[test]
fn calls_predicates_and_callnz() {
    let p = program(
        "vs_2_x
         def c0, 1.0, 2.0, 0.5, 0.0
         defb b0, false
         dcl_position v0
         mov r0, c0.w
         call l0
         callnz l1, b0
         setp_gt p0, v0, c0.z
         (p0.x) add r0, r0, c0.y
         callnz l0, p0.x
         mov oT0, r0
         ret
         label l0
           add r0, r0, c0.x
         ret
         label l1
           add r0, r0, c0.y
         ret",
    );
    let regs = run_numbered_lanes(&p);
    // All: call l0 → 1; b0 false: l1 skipped. Lanes with v0.x > 0.5 (1, 2,
    // 3): +2 by predicate, +1 by callnz p0.x.
    let got = first_component(&regs, 0);
    assert_eq!(got, [1.0, 4.0, 4.0, 4.0]);
}

#[test]
fn nested_loops_stop_at_the_execution_limit() {
    let p = program(
        "vs_3_0
         defi i0, 255, 0, 1, 0
         def c0, 1.0, 0.0, 0.0, 0.0
         dcl_position v0
         dcl_texcoord o0
         mov r0, c0.y
         rep i0
           rep i0
             rep i0
               add r0, r0, c0.x
             endrep
           endrep
         endrep
         mov o0, r0",
    );
    let mut regs = Registers::new(&p);
    let stats = p.run(
        &mut regs,
        &p.bind(&Constants::default()),
        &NoTextures,
        ALL_LANES,
    );
    assert!(stats.stopped);
    assert_eq!(stats.executed, MAX_INSTRUCTIONS_EXECUTED);
    // The final mov never ran: o0 keeps its zero.
    assert_eq!(regs.texcrd_out[0][0], [0.0; 4]);
}

#[test]
fn relative_output_writes_outside_the_file_are_dropped() {
    // o[aL] over aL = 10, 11, 12, 13: o10, o11 written; o12, o13 do not
    // exist (vs_3_0 has o0–o11).
    let r = run(
        "vs_3_0
         defi i0, 4, 10, 1, 0
         def c0, 7.0, 0.0, 0.0, 0.0
         dcl_position v0
         dcl_texcoord o0
         dcl_texcoord1 o1
         dcl_texcoord2 o2
         dcl_texcoord3 o3
         dcl_texcoord4 o4
         dcl_texcoord5 o5
         dcl_texcoord6 o6
         dcl_texcoord7 o7
         dcl_color o8
         dcl_color1 o9
         dcl_fog o10
         dcl_psize o11
         loop aL, i0
           mov o[aL], c0.x
         endloop",
        &[],
    );
    assert_eq!(r.texcrd_out[10][0], [7.0; 4]);
    assert_eq!(r.texcrd_out[11][0], [7.0; 4]);
    assert_eq!(r.texcrd_out[9][0], [0.0; 4]);
}

mod generated {
    //! Random valid vs_3_0 programs (arithmetic, nested if/else, rep, loop,
    //! break, breakc, predication) from a small grammar. Oracle: a lane's
    //! results do not depend on the other lanes — running the four lanes
    //! together, with every lane taking its own path through the flow
    //! control, gives each lane what a run of that lane alone gives.
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Node {
        Op(u8, u8, u8, u8),
        If(u8, Vec<Node>, Vec<Node>),
        Rep(Vec<Node>),
        Loop(Vec<Node>),
        BreakC(u8),
        Setp(u8, u8),
        Pred(u8, u8),
    }

    fn node(depth: u32) -> BoxedStrategy<Node> {
        let leaf = prop_oneof![
            (0u8..8, 0u8..8, 0u8..8, 0u8..8).prop_map(|(a, b, c, d)| Node::Op(a, b, c, d)),
            (0u8..8, 0u8..8).prop_map(|(a, b)| Node::Setp(a, b)),
            (0u8..8, 0u8..8).prop_map(|(a, b)| Node::Pred(a, b)),
            (0u8..8).prop_map(Node::BreakC),
        ];
        if depth == 0 {
            return leaf.boxed();
        }
        let body = || prop::collection::vec(node(depth - 1), 0..4);
        prop_oneof![
            4 => leaf,
            1 => (0u8..8, body(), body()).prop_map(|(r, a, b)| Node::If(r, a, b)),
            1 => body().prop_map(Node::Rep),
            1 => body().prop_map(Node::Loop),
        ]
        .boxed()
    }

    fn emit(nodes: &[Node], in_loop: bool, out: &mut String) {
        const OPS: [&str; 8] = ["add", "mul", "mad", "max", "min", "slt", "sge", "lrp"];
        for n in nodes {
            match n {
                Node::Op(op, d, a, b) => {
                    let op = OPS[usize::from(*op)];
                    let (d, a, b) = (d % 6, a % 6, b % 6);
                    let third = if op == "mad" || op == "lrp" {
                        ", c1"
                    } else {
                        ""
                    };
                    out.push_str(&format!("{op} r{d}, r{a}, r{b}{third}\n"));
                }
                Node::Setp(a, b) => out.push_str(&format!("setp_gt p0, r{}, r{}\n", a % 8, b % 8)),
                Node::Pred(d, a) => {
                    out.push_str(&format!("(p0.y) add r{}, r{}, c0\n", d % 6, a % 8))
                }
                Node::If(r, a, b) => {
                    out.push_str(&format!("if_lt r{}.x, c0.y\n", r % 8));
                    emit(a, in_loop, out);
                    out.push_str("else\n");
                    emit(b, in_loop, out);
                    out.push_str("endif\n");
                }
                Node::Rep(body) => {
                    out.push_str("rep i0\n");
                    emit(body, true, out);
                    out.push_str("break_gt r0.x, c0.z\nendrep\n");
                }
                Node::Loop(body) => {
                    out.push_str("loop aL, i1\nadd r0, r0, c[aL]\n");
                    emit(body, true, out);
                    out.push_str("endloop\n");
                }
                Node::BreakC(r) if in_loop => {
                    out.push_str(&format!("break_lt r{}.y, c0.x\n", r % 8))
                }
                Node::BreakC(_) => {}
            }
        }
    }

    fn source(nodes: &[Node]) -> String {
        let mut s = String::from(
            "vs_3_0
             def c0, 0.5, 0.25, 40.0, 1.0
             def c1, 0.75, -0.5, 2.0, 0.125
             defi i0, 3, 0, 0, 0
             defi i1, 2, 4, 1, 0
             dcl_position v0
             dcl_texcoord o0
             dcl_texcoord1 o1
             mov r0, v0
             mov r1, v0.yzwx
             mov r2, c1
             mov r3, v0_abs
             mov r4, c0
             mov r5, v0.w
             mov r6, v0.zxyw
             mov r7, -v0
             setp_ge p0, v0, c0.x
             ",
        );
        emit(nodes, false, &mut s);
        s.push_str("mov o0, r0\nmov o1, r1\n");
        s
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn each_lane_computes_what_it_computes_alone(
            nodes in prop::collection::vec(node(3), 1..8),
            inputs in prop::array::uniform4(prop::array::uniform4(-2.0f32..2.0)),
        ) {
            let text = source(&nodes);
            let shader = assemble(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let Ok(valid) = parse_and_validate(&shader.to_tokens()) else {
                // The grammar can exceed a limit (slots); skip those.
                return Ok(());
            };
            let p = Program::new(valid);
            let consts = Constants {
                float: (0..256).map(|i| [i as f32 * 0.01; 4]).collect(),
                ..Constants::default()
            };
            let bound = p.bind(&consts);
            let mut together = Registers::new(&p);
            together.input[0] = inputs;
            let stats = p.run(&mut together, &bound, &NoTextures, ALL_LANES);
            prop_assert!(stats.executed <= MAX_INSTRUCTIONS_EXECUTED);
            for l in 0..LANES {
                let mut alone = Registers::new(&p);
                alone.input[0] = inputs;
                p.run(&mut alone, &bound, &NoTextures, 1 << l);
                for o in 0..2 {
                    let (a, b) = (together.texcrd_out[o][l], alone.texcrd_out[o][l]);
                    prop_assert!(
                        a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
                        "lane {} o{}: {:?} together, {:?} alone\n{}", l, o, a, b, text
                    );
                }
            }
        }
    }
}

/// The W7 skinning shader (`docs/benchmarks.md`), run on one vertex with
/// two bones chosen so that the result can be added up by hand.
#[test]
fn w7_skinning_shader_blends_two_bones() {
    let p = Program::new(
        parse_and_validate(softhal_shader::corpus::W7_VS_TOKENS).expect("W7 validates"),
    );
    let mut float = vec![[0.0f32; 4]; 256];
    // c0–c3: view-projection = identity.
    for (k, row) in float.iter_mut().take(4).enumerate() {
        row[k] = 1.0;
    }
    float[4] = [0.0, 0.0, 1.0, 0.0]; // light direction
    float[5] = [0.5, 0.25, 1.0, 0.0]; // diffuse colour
    float[6] = [0.1, 0.1, 0.1, 1.0]; // ambient
    float[8] = [0.5, 0.25, 0.0, 0.0]; // fog scale, offset
                                      // Bone 0 (c9–c11): translate by (10, 0, 0); bone 1 (c12–c14): by (0, 20, 0).
    float[9] = [1.0, 0.0, 0.0, 10.0];
    float[10] = [0.0, 1.0, 0.0, 0.0];
    float[11] = [0.0, 0.0, 1.0, 0.0];
    float[12] = [1.0, 0.0, 0.0, 0.0];
    float[13] = [0.0, 1.0, 0.0, 20.0];
    float[14] = [0.0, 0.0, 1.0, 0.0];
    let mut regs = Registers::new(&p);
    regs.input[0] = [[1.0, 2.0, 3.0, 1.0]; LANES]; // position
    regs.input[1] = [[0.0, 0.0, 1.0, 0.0]; LANES]; // normal
    regs.input[2] = [[0.5, 0.5, 0.0, 0.0]; LANES]; // weights
    regs.input[3] = [[0.0, 1.0, 0.0, 0.0]; LANES]; // bone indices
    let constants = Constants {
        float,
        ..Constants::default()
    };
    p.run(&mut regs, &p.bind(&constants), &NoTextures, ALL_LANES);
    // P = ½·(11, 2, 3) + ½·(1, 22, 3) = (6, 12, 3), w = 1.
    assert_eq!(regs.rast_out[0][0], [6.0, 12.0, 3.0, 1.0]);
    // N = (0, 0, 1): N·L = 1; oD0 = 1·c5 + c6.
    close(regs.attr_out[0][0], [0.6, 0.35, 1.1, 1.0]);
    // oFog = P.z·0.5 + 0.25.
    assert_eq!(regs.rast_out[1][0][0], 1.75);
}

/// [`Echo`] with stage 1 projected by coordinate `k` (D3DTTFF_PROJECTED).
struct ProjectedEcho(usize);

impl Textures for ProjectedEcho {
    fn sample(&self, r: &SampleRequest) -> Lanes {
        Echo.sample(r)
    }

    fn bump_env(&self, stage: u8) -> BumpEnv {
        Echo.bump_env(stage)
    }

    fn projection(&self, stage: u8) -> Option<usize> {
        (stage == 1).then_some(self.0)
    }
}

/// Runs ps_1_1 `text` with t0 = (0.25, 0.75, 0.5, 1), t1 = (0.5, 1, 0.5,
/// 2) and stage 1 projected by coordinate `k`.
fn run_projected(text: &str, k: usize) -> Registers {
    let p = program(text);
    let mut regs = Registers::new(&p);
    regs.texcoord[0] = [[0.25, 0.75, 0.5, 1.0]; LANES];
    regs.texcoord[1] = [[0.5, 1.0, 0.5, 2.0]; LANES];
    let bound = p.bind(&Constants::default());
    p.run(&mut regs, &bound, &ProjectedEcho(k), ALL_LANES);
    regs
}

#[test]
fn ps_1_1_tex_and_texbem_honour_d3dttff_projected_and_texcoord_does_not() {
    // tex t1, stage 1 projected by w (k = 3): (0.5/2, 1/2) = (0.25, 0.5).
    let r = run_projected("ps_1_1\ntex t1\nmov r0, t1", 3);
    assert_eq!(r.temp[0][0], [0.25, 0.5, 0.0, 0.0]);
    // By z (k = 2, D3DTTFF_COUNT3): (0.5/0.5, 1/0.5) = (1, 2).
    let r = run_projected("ps_1_1\ntex t1\nmov r0, t1", 2);
    assert_eq!(r.temp[0][0], [1.0, 2.0, 0.0, 0.0]);
    // texbem t1, t0: the stage's own coordinates are projected (1, 2),
    // then the displacement M·(t0.r, t0.g) = 0.5·(0.25, 0.75) is added
    // undivided (Wine's d3d9 texbem tests): (1.125, 2.375).
    let r = run_projected("ps_1_1\ntex t0\ntexbem t1, t0\nmov r0, t1", 2);
    assert_eq!(r.temp[0][0], [1.125, 2.375, 0.0, 0.0]);
    // texcoord reads the coordinates, not a texture: not projected
    // (clamped to [0, 1], w = 1).
    let r = run_projected("ps_1_1\ntexcoord t1\nmov r0, t1", 3);
    assert_eq!(r.temp[0][0], [0.5, 1.0, 0.5, 1.0]);
}
