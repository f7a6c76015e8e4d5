//! A vertex shader and a pixel shader in one draw (the Direct3D 9 case):
//! the vertex shader's `oT0` reaches the pixel shader's `t0`, and each
//! stage reads its own constants. Rendered at every thread count and
//! SIMD level (`common::render_all` asserts identical bytes).

mod common;

use common::{draw_shaders_8x8, shader_constants, shader_program, state};
use softhal_pipeline::program::ShaderInput;
use softhal_pipeline::DeclType;

#[test]
fn the_vertex_shaders_outputs_feed_the_pixel_shader() {
    // Vertices: a clip-space position (4 floats) and one texture
    // coordinate (2 floats), 24 bytes. Two triangles covering clip space
    // −1..1: on an 8 × 8 target (viewport 0, 0, 8, 8) x = −1 maps to
    // screen 0 and x = 1 to screen 8 (y flipped), so the pixel centres
    // 0..=7 are all inside (left and top edges belong to the triangle):
    // 64 pixels.
    let vs = shader_program(
        "vs_2_0\n\
         dcl_position v0\n\
         dcl_texcoord v1\n\
         mov oPos, v0\n\
         mul oT0, v1, c0\n",
    );
    let ps = shader_program(
        "ps_2_0\n\
         dcl t0\n\
         add r0, t0, c0\n\
         mov oC0, r0\n",
    );
    // The vertex shader's c0 doubles u: t0 = (0.2, 0.6, 0, 1) · (2, 1,
    // 1, 1) = (0.4, 0.6, 0, 1) (a FLOAT2 reads as (u, v, 0, 1)). The
    // pixel shader's c0 takes 0.2 off red: (0.2, 0.6, 0, 1) → R = 0.2 ·
    // 255 = 51 (0x33), G = 0.6 · 255 = 153 (0x99), B = 0, A = 255:
    // 0xFF339900. (With the constants swapped between the stages the
    // pixels would be white: t0 = (−0.04, 0, 0, 1), + (2, 1, 1, 1).)
    let vc = shader_constants(&vs, &[[2.0, 1.0, 1.0, 1.0]]);
    let pc = shader_constants(&ps, &[[-0.2, 0.0, 0.0, 0.0]]);
    let inputs = [
        ShaderInput {
            register: 0,
            offset: 0,
            ty: DeclType::Float4,
        },
        ShaderInput {
            register: 1,
            offset: 16,
            ty: DeclType::Float2,
        },
    ];
    let corner = |x: f32, y: f32| [x, y, 0.5, 1.0, 0.2, 0.6];
    let verts = [
        corner(-1.0, 1.0),
        corner(1.0, 1.0),
        corner(1.0, -1.0),
        corner(-1.0, 1.0),
        corner(1.0, -1.0),
        corner(-1.0, -1.0),
    ];
    let bytes: Vec<u8> = verts
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let t = draw_shaders_8x8(&vs, &vc, &inputs, &ps, &pc, &bytes, 24, 2, &state());
    for y in 0..8 {
        for x in 0..8 {
            assert_eq!(t.px(x, y), 0xFF33_9900, "({x},{y})");
        }
    }
}
