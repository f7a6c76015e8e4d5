//! Generic varyings between a vertex shader and a pixel shader: vs_3_0
//! outputs reach ps_3_0 inputs by semantic (usage and usage index), not
//! by register number; colours stay unclamped from vs_3_0 to ps_3_0 and
//! are clamped for ps_2_0; D3DSHADE_FLAT gives the COLOR inputs of ps_3_0
//! the first vertex's value. Each draw covers an 8 × 8 target and is
//! rendered at every thread count and SIMD level (`common::render_all`
//! asserts identical bytes).
//!
//! Rules (Direct3D 9 SDK, "Semantics" and the ps_3_0 / vs_3_0 register
//! pages; `docs/shaders.md` §14): a ps_3_0 input reads the vs_3_0 output
//! declared with the same semantic; a vs_3_0 COLOR output has no range
//! restriction, whereas vertex shaders before vs_3_0 and the colour
//! inputs `v0`/`v1` of ps_1_x–ps_2_x are clamped to [0, 1]; flat shading
//! uses the colour of the first vertex of each triangle.

mod common;

use common::{draw_shaders_8x8, shader_constants, shader_program, state, Targets};
use softhal_pipeline::program::ShaderInput;
use softhal_pipeline::{DeclType, PipelineState, ShadeMode};

/// One vertex: a clip-space position and a float4 colour (32 bytes).
type Vert = [f32; 8];

/// The six vertices of two triangles covering clip space −1..1 (the
/// whole 8 × 8 target: x = −1 → screen 0, x = 1 → screen 8, y flipped),
/// `colors[i]` at vertex i. Triangle 0 is (−1, 1), (1, 1), (1, −1): the
/// upper-right half on screen (pixel centres with x > y); triangle 1 is
/// (−1, 1), (1, −1), (−1, −1): the lower-left half (x < y).
fn quad(colors: [[f32; 4]; 6]) -> Vec<Vert> {
    let pos = [
        [-1.0, 1.0],
        [1.0, 1.0],
        [1.0, -1.0],
        [-1.0, 1.0],
        [1.0, -1.0],
        [-1.0, -1.0],
    ];
    pos.iter()
        .zip(colors)
        .map(|(p, c)| [p[0], p[1], 0.5, 1.0, c[0], c[1], c[2], c[3]])
        .collect()
}

/// Draws `verts` with vertex shader `vs` (inputs `v0` = position, `v1` =
/// the colour) and pixel shader `ps`, each with its `c#` constants, and
/// returns the target (cleared to 0xFF0000FF first).
fn draw(
    vs: &str,
    vc: &[[f32; 4]],
    ps: &str,
    pc: &[[f32; 4]],
    verts: &[Vert],
    st: &PipelineState,
) -> Targets {
    let (vs, ps) = (shader_program(vs), shader_program(ps));
    let (vc, pc) = (shader_constants(&vs, vc), shader_constants(&ps, pc));
    let inputs = [
        ShaderInput {
            register: 0,
            offset: 0,
            ty: DeclType::Float4,
        },
        ShaderInput {
            register: 1,
            offset: 16,
            ty: DeclType::Float4,
        },
    ];
    let bytes: Vec<u8> = verts
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let prims = (verts.len() / 3) as u32;
    draw_shaders_8x8(&vs, &vc, &inputs, &ps, &pc, &bytes, 32, prims, st)
}

/// Asserts every pixel of `t` is `want`.
fn all(t: &Targets, want: u32) {
    for y in 0..8 {
        for x in 0..8 {
            assert_eq!(t.px(x, y), want, "({x},{y}): {:08X}", t.px(x, y));
        }
    }
}

const WHITE: [f32; 4] = [1.0; 4];

/// A vs_3_0 writing `c0` to `o1`, declared COLOR0.
const COLOR_ABOVE_ONE_VS: &str = "vs_3_0\n\
     dcl_position v0\n\
     dcl_position o0\n\
     dcl_color0 o1\n\
     mov o0, v0\n\
     mov o1, c0\n";

#[test]
fn a_texcoord8_output_reaches_the_texcoord8_input() {
    // The vs writes o3, declared TEXCOORD8, with c0 = (0.25, 0.5, 0.75,
    // 1); the ps reads v1 declared TEXCOORD8 (a semantic the fixed-
    // function stages do not have) and outputs it. Constant over the
    // triangle, so interpolation gives the value back exactly. To
    // A8R8G8B8, rounding to nearest: R = 0.25 · 255 = 63.75 → 64 (0x40),
    // G = 0.5 · 255 = 127.5 → 128 (0x80), B = 0.75 · 255 = 191.25 → 191
    // (0xBF), A = 255: 0xFF4080BF.
    let t = draw(
        "vs_3_0\n\
         dcl_position v0\n\
         dcl_position o0\n\
         dcl_texcoord8 o3\n\
         mov o0, v0\n\
         mov o3, c0\n",
        &[[0.25, 0.5, 0.75, 1.0]],
        "ps_3_0\n\
         dcl_texcoord8 v1\n\
         mov oC0, v1\n",
        &[],
        &quad([WHITE; 6]),
        &state(),
    );
    all(&t, 0xFF40_80BF);
}

#[test]
fn outputs_and_inputs_declared_in_different_orders_link_by_semantic() {
    // vs: o1 = TEXCOORD2 = c0 = (1, 1, 1, 1), o2 = TEXCOORD0 = c1 =
    // (0.4, 0.2, 0.6, 0). ps: v0 = TEXCOORD0, v9 (the last input
    // register: all ten slots carried) = TEXCOORD2 (the other order),
    // oC0 = v9 − v0 = (0.6, 0.8, 0.4, 1) → R = 153 (0x99), G = 204
    // (0xCC), B = 102 (0x66), A = 255: 0xFF99CC66. Linked by register
    // number instead, v0 would read o0 (the position) and v9 nothing:
    // the result would be −position, not this colour.
    let t = draw(
        "vs_3_0\n\
         dcl_position v0\n\
         dcl_position o0\n\
         dcl_texcoord2 o1\n\
         dcl_texcoord0 o2\n\
         mov o0, v0\n\
         mov o1, c0\n\
         mov o2, c1\n",
        &[[1.0, 1.0, 1.0, 1.0], [0.4, 0.2, 0.6, 0.0]],
        "ps_3_0\n\
         dcl_texcoord0 v0\n\
         dcl_texcoord2 v9\n\
         sub oC0, v9, v0\n",
        &[],
        &quad([WHITE; 6]),
        &state(),
    );
    all(&t, 0xFF99_CC66);
}

#[test]
fn a_vs_3_0_colour_above_one_reaches_ps_3_0_unclamped() {
    // vs: o1 = COLOR0 = c0 = (2, 0.5, 4, 1). ps_3_0: oC0 = v0 · c0 with
    // c0 = (0.25, 1, 0.125, 1) = (0.5, 0.5, 0.5, 1): 127.5 → 128 each,
    // 0xFF808080. Had the colour been clamped to (1, 0.5, 1, 1) the
    // result would be (0.25, 0.5, 0.125, 1) = 0xFF408020.
    let t = draw(
        COLOR_ABOVE_ONE_VS,
        &[[2.0, 0.5, 4.0, 1.0]],
        "ps_3_0\n\
         dcl_color0 v0\n\
         mul oC0, v0, c0\n",
        &[[0.25, 1.0, 0.125, 1.0]],
        &quad([WHITE; 6]),
        &state(),
    );
    all(&t, 0xFF80_8080);
}

#[test]
fn the_same_colour_is_clamped_for_ps_2_0() {
    // The vs_3_0 of the test above; ps_2_0 reads COLOR0 as v0, which
    // Direct3D 9 clamps to [0, 1] for ps_1_x–ps_2_x: (1, 0.5, 1, 1) ·
    // (0.25, 1, 0.125, 1) = (0.25, 0.5, 0.125, 1) → R = 63.75 → 64
    // (0x40), G = 127.5 → 128 (0x80), B = 31.875 → 32 (0x20): 0xFF408020.
    let t = draw(
        COLOR_ABOVE_ONE_VS,
        &[[2.0, 0.5, 4.0, 1.0]],
        "ps_2_0\n\
         dcl v0\n\
         mul r0, v0, c0\n\
         mov oC0, r0\n",
        &[[0.25, 1.0, 0.125, 1.0]],
        &quad([WHITE; 6]),
        &state(),
    );
    all(&t, 0xFF40_8020);
}

#[test]
fn flat_shading_gives_ps_3_0_colour_inputs_the_first_vertex() {
    // The vs passes the vertex colour (v1) to o1 = COLOR0; the ps outputs
    // it. Triangle 0's vertices are red, green, blue; triangle 1's are
    // green, red, blue. Under D3DSHADE_FLAT each triangle takes its
    // first vertex's colour: pixels with x > y (triangle 0) are red
    // 0xFFFF0000, those with x < y (triangle 1) green 0xFF00FF00 (the
    // diagonal, shared by both, is not checked).
    let (r, g, b) = (
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
    );
    let verts = quad([r, g, b, g, b, r]);
    let vs = "vs_3_0\n\
              dcl_position v0\n\
              dcl_color v1\n\
              dcl_position o0\n\
              dcl_color0 o1\n\
              mov o0, v0\n\
              mov o1, v1\n";
    let ps = "ps_3_0\n\
              dcl_color0 v0\n\
              mov oC0, v0\n";
    let mut st = state();
    st.raster.shade_mode = ShadeMode::Flat;
    let t = draw(vs, &[], ps, &[], &verts, &st);
    for y in 0..8 {
        for x in 0..8 {
            let want = match x.cmp(&y) {
                std::cmp::Ordering::Greater => 0xFFFF_0000,
                std::cmp::Ordering::Less => 0xFF00_FF00,
                std::cmp::Ordering::Equal => continue,
            };
            assert_eq!(t.px(x, y), want, "({x},{y}): {:08X}", t.px(x, y));
        }
    }
    // Gouraud (the default) interpolates instead: the pixel (7, 0), near
    // triangle 0's green second vertex at screen (8, 0), is not red.
    let t = draw(vs, &[], ps, &[], &verts, &state());
    assert_ne!(t.px(7, 0), 0xFFFF_0000);
}
