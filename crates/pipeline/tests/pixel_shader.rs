//! Pixel shaders executed by the pipeline (`Renderer::draw_programs` with
//! `PixelProgram::Shader`): which pixels a shader writes (the top-left rule
//! of fixed function, helper lanes never written, `texkill`), the inputs it
//! reads (`v0` against fixed-function Gouraud, `t#` sampling a texture,
//! ps_3_0 declared inputs and `vPos`), derivatives from the quad, `oDepth`
//! in the depth test, alpha test and blending of its output, lines and
//! point sprites, NaN/∞ outputs. Every scene is rendered at 1, 2 and 4
//! threads and every SIMD level (`common::render_all`, which asserts
//! identical bytes). Shaders are written as assembly, assembled and
//! validated by `softhal_shader`; expected pixels are worked out in the
//! comments.

mod common;

use common::{render_all, shader_constants, shader_program, state, Targets};
use softhal_pipeline::program::{PixelProgram, Programs, VertexProgram};
use softhal_pipeline::texture::{Texture, TextureFilter};
use softhal_pipeline::{
    Blend, CmpFunc, DrawCall, DrawStats, Format, PipelineState, PositionKind, RenderTargets,
    Renderer, Topology, VertexLayout, ZBufferType,
};
use softhal_shader::exec::{BoundConstants, Program};

/// A pre-transformed vertex with a diffuse colour and two texture
/// coordinate sets (u, v).
#[derive(Clone, Copy)]
struct TV {
    x: f32,
    y: f32,
    z: f32,
    diffuse: u32,
    uv: [[f32; 2]; 2],
}

fn tv(x: f32, y: f32, diffuse: u32, u: f32, v: f32) -> TV {
    TV {
        x,
        y,
        z: 0.5,
        diffuse,
        uv: [[u, v], [0.0, 0.0]],
    }
}

/// XYZRHW | DIFFUSE | SPECULAR | TEX2 (two 2-component sets).
fn layout() -> VertexLayout {
    VertexLayout::packed(PositionKind::Xyzrhw, true, true, &[2, 2])
}

fn bytes(vs: &[TV]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in vs {
        for f in [v.x, v.y, v.z, 1.0] {
            out.extend_from_slice(&f.to_le_bytes());
        }
        out.extend_from_slice(&v.diffuse.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        for f in v.uv.iter().flatten() {
            out.extend_from_slice(&f.to_le_bytes());
        }
    }
    out
}

/// Two triangles covering the pixels [x0, x1) × [y0, y1) (pixel centres
/// are integers, so the corners are half a pixel out), with (u, v) =
/// (u0, v0) at the top left and (u1, v1) at the bottom right.
fn rect(x0: f32, y0: f32, x1: f32, y1: f32, uv: [f32; 4]) -> Vec<TV> {
    let (a, b, ya, yb) = (x0 - 0.5, x1 - 0.5, y0 - 0.5, y1 - 0.5);
    let c = 0xFFFF_FFFF;
    let tl = tv(a, ya, c, uv[0], uv[1]);
    let tr = tv(b, ya, c, uv[2], uv[1]);
    let br = tv(b, yb, c, uv[2], uv[3]);
    let bl = tv(a, yb, c, uv[0], uv[3]);
    vec![tl, tr, br, tl, br, bl]
}

/// Draws `vs` as `topology` with `pixel` as the pixel program.
fn draw(
    r: &mut Renderer,
    t: &mut Targets,
    st: &PipelineState,
    topology: Topology,
    vs: &[TV],
    textures: &[Option<&Texture>],
    pixel: PixelProgram<'_>,
) -> DrawStats {
    let b = bytes(vs);
    let l = layout();
    let call = DrawCall::new(topology, &b, &l, common::prim_count(topology, vs.len()));
    let mut bound = [None; 16];
    for (o, t) in bound.iter_mut().zip(textures) {
        *o = *t;
    }
    let mut rt = RenderTargets {
        color: &mut t.color,
        depth: t.depth.as_mut(),
        extra: Default::default(),
    };
    let programs = Programs {
        vertex: VertexProgram::FixedFunction,
        pixel,
    };
    r.draw_programs(&mut rt, st, &call, &bound, &programs)
        .expect("draw")
}

fn shader<'a>(program: &'a Program, constants: &'a BoundConstants) -> PixelProgram<'a> {
    PixelProgram::Shader { program, constants }
}

const BACKGROUND: u32 = 0xFF10_2030;

fn target(w: u32, h: u32, depth: Option<Format>) -> impl Fn(&mut Renderer) -> Targets {
    move |r| {
        let mut t = Targets::new(w, h, Format::A8R8G8B8, depth);
        t.clear(r, BACKGROUND, 0.5, 0);
        t
    }
}

/// The pixels of `t` (w × h) equal to `c`.
fn pixels_of(t: &Targets, w: u32, h: u32, c: u32) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for y in 0..h {
        for x in 0..w {
            if t.px(x, y) == c {
                v.push((x, y));
            }
        }
    }
    v
}

#[test]
fn constant_colour_fills_exactly_the_triangle_pixels() {
    let p = shader_program("ps_2_0\nmov oC0, c0");
    // c0 = (0.2, 0.4, 0.6, 1): 0.2·255 = 51 = 0x33, 102 = 0x66, 153 = 0x99.
    let c = shader_constants(&p, &[[0.2, 0.4, 0.6, 1.0]]);
    let tri = |col| [(-0.5, -0.5), (7.5, -0.5), (-0.5, 7.5)].map(|(x, y)| tv(x, y, col, 0.0, 0.0));
    let st = state();
    let t = render_all(|r| {
        let mut t = target(8, 8, None)(r);
        let s = draw(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &tri(0),
            &[],
            shader(&p, &c),
        );
        // Rows y = 0..6 hold 7 − y pixels: 7 + 6 + … + 1 = 28.
        assert_eq!(s.pixels_written, 28);
        t
    });
    // The hypotenuse x + y = 7 is a right edge: centres on it are out
    // (top-left rule), so the covered centres are x + y < 7.
    let mut want = Vec::new();
    for y in 0..8 {
        for x in 0..8 {
            if x + y < 7 {
                want.push((x, y));
            }
        }
    }
    assert_eq!(pixels_of(&t, 8, 8, 0xFF33_6699), want);
    assert_eq!(pixels_of(&t, 8, 8, BACKGROUND).len(), 64 - 28);
    // Fixed function covers the same pixels.
    let ff = render_all(|r| {
        let mut t = target(8, 8, None)(r);
        draw(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &tri(0xFF33_6699),
            &[],
            PixelProgram::FixedFunction,
        );
        t
    });
    assert_eq!(ff.color.bytes(), t.color.bytes());
}

#[test]
fn v0_reproduces_fixed_function_gouraud() {
    let p = shader_program("ps_2_0\ndcl v0\nmov oC0, v0");
    let c = shader_constants(&p, &[]);
    let tri = [
        tv(0.3, 0.2, 0xFFFF_0000, 0.0, 0.0),
        tv(30.7, 2.4, 0x8000_FF40, 0.0, 0.0),
        tv(5.1, 27.9, 0x2010_20FF, 0.0, 0.0),
    ];
    let st = state();
    let run = |pixel: PixelProgram<'_>| {
        render_all(|r| {
            // The shader path: `mov oC0, v0` would otherwise draw as the
            // fixed-function stage it equals (tests/matched_pixel_shaders.rs).
            r.set_program_matching(false);
            let mut t = target(32, 32, None)(r);
            draw(r, &mut t, &st, Topology::TriangleList, &tri, &[], pixel);
            t
        })
    };
    let ps = run(shader(&p, &c));
    let ff = run(PixelProgram::FixedFunction);
    // Tolerance 1 per channel: the fixed-function colour path steps the
    // colour plane in 16.16 fixed point and truncates, the shader path
    // evaluates the same plane in float, divides by rhw (= 1 here) and
    // rounds to nearest; both are within one unit of the exact value.
    let mut covered = 0;
    for y in 0..32 {
        for x in 0..32 {
            let (a, b) = (ps.px(x, y), ff.px(x, y));
            if b != BACKGROUND {
                covered += 1;
            }
            for k in 0..4 {
                let (ca, cb) = ((a >> (8 * k)) & 0xFF, (b >> (8 * k)) & 0xFF);
                assert!(ca.abs_diff(cb) <= 1, "({x}, {y}): {a:08X} vs {b:08X}");
            }
        }
    }
    assert!(covered > 300, "the triangle covers {covered} pixels");
}

/// 2×2 A8R8G8B8 checker: white at (0, 0) and (1, 1), black elsewhere.
fn checker() -> Texture {
    let (w, b) = (0xFFFF_FFFF, 0xFF00_0000);
    common::argb_texture(2, 2, &[w, b, b, w])
}

#[test]
fn ps_1_1_tex_samples_the_checker() {
    let p = shader_program("ps_1_1\ntex t0\nmov r0, t0");
    let c = shader_constants(&p, &[]);
    let tex = checker();
    let mut st = state();
    st.textures.samplers[0].mag_filter = TextureFilter::Point;
    st.textures.samplers[0].min_filter = TextureFilter::Point;
    let t = render_all(|r| {
        // The shader path (the program equals stage 0 SELECTARG1(TEXTURE)).
        r.set_program_matching(false);
        let mut t = target(4, 4, None)(r);
        let vs = rect(0.0, 0.0, 4.0, 4.0, [0.0, 0.0, 1.0, 1.0]);
        draw(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &vs,
            &[Some(&tex)],
            shader(&p, &c),
        );
        t
    });
    // u = (x + ½)/4: 0.125, 0.375 → texel 0; 0.625, 0.875 → texel 1 (POINT:
    // floor(2u)); v likewise. So 2×2 blocks: white where x/2 = y/2.
    for y in 0..4 {
        for x in 0..4 {
            let want = if x / 2 == y / 2 {
                0xFFFF_FFFF
            } else {
                0xFF00_0000
            };
            assert_eq!(t.px(x, y), want, "({x}, {y})");
        }
    }
}

#[test]
fn untested_unblended_output_keeps_the_write_mask_and_the_target_edge() {
    // No depth, stencil or alpha test and no blending: the output merger
    // only stores. A 3 × 3 target: its quads at x = 2 and y = 2 have
    // helper lanes outside the target, which must not be written.
    let p = shader_program("ps_2_0\nmov oC0, c0");
    // c0 = (0.2, 0.4, 0.6, 0): R 51 = 0x33, G 0x66, B 153 = 0x99, A 0.
    let c = shader_constants(&p, &[[0.2, 0.4, 0.6, 0.0]]);
    let mut st = state();
    // COLORWRITEENABLE red | blue: green and alpha keep BACKGROUND's 0x20
    // and 0xFF.
    st.blend.color_write_enable = 0b0101;
    let t = render_all(|r| {
        let mut t = target(3, 3, None)(r);
        let vs = rect(0.0, 0.0, 3.0, 3.0, [0.0; 4]);
        let s = draw(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &vs,
            &[],
            shader(&p, &c),
        );
        assert_eq!(s.pixels_written, 9);
        t
    });
    assert_eq!(pixels_of(&t, 3, 3, 0xFF33_2099).len(), 9);
}

#[test]
fn texkill_leaves_pixels_untouched() {
    let p = shader_program("ps_2_0\ndcl t0\ntexkill t0\nmov oC0, c0");
    let c = shader_constants(&p, &[[1.0, 1.0, 1.0, 1.0]]);
    let st = state();
    let t = render_all(|r| {
        let mut t = target(4, 2, None)(r);
        // u = −1 + 2(x + ½)/4 = −0.75, −0.25, 0.25, 0.75; v = 0.5.
        let vs = rect(0.0, 0.0, 4.0, 2.0, [-1.0, 0.5, 1.0, 0.5]);
        let s = draw(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &vs,
            &[],
            shader(&p, &c),
        );
        assert_eq!(s.pixels_written, 4);
        t
    });
    for y in 0..2 {
        assert_eq!(t.px(0, y), BACKGROUND);
        assert_eq!(t.px(1, y), BACKGROUND);
        assert_eq!(t.px(2, y), 0xFFFF_FFFF);
        assert_eq!(t.px(3, y), 0xFFFF_FFFF);
    }
}

#[test]
fn odepth_replaces_the_depth_in_the_depth_test() {
    let p = shader_program("ps_2_0\nmov oC0, c0\nmov oDepth, c1.x");
    let mut st = state();
    st.depth.z_enable = ZBufferType::True;
    st.depth.z_func = CmpFunc::Less;
    st.depth.z_write = true;
    // The rectangle's own z is 0.5 (tv): not less than the cleared 0.5,
    // so without oDepth nothing would pass.
    let run = |depth: f32| {
        let c = shader_constants(&p, &[[0.0, 1.0, 0.0, 1.0], [depth, 0.0, 0.0, 0.0]]);
        render_all(|r| {
            let mut t = target(4, 4, Some(Format::D24S8))(r);
            let vs = rect(0.0, 0.0, 4.0, 4.0, [0.0; 4]);
            draw(
                r,
                &mut t,
                &st,
                Topology::TriangleList,
                &vs,
                &[],
                shader(&p, &c),
            );
            t
        })
    };
    // oDepth 0.25 < 0.5: every pixel passes, is green, and 0.25 is written
    // (D24: round(0.25 · (2²⁴ − 1)) = 0x3FFFFF(.75) → 0x400000 in bits 31..8).
    let t = run(0.25);
    assert_eq!(pixels_of(&t, 4, 4, 0xFF00_FF00).len(), 16);
    let z = t.depth.as_ref().expect("depth").bytes();
    let d0 = u32::from_le_bytes([z[0], z[1], z[2], z[3]]) >> 8;
    assert!(d0.abs_diff(0x40_0000) <= 1, "{d0:06X}");
    // oDepth 0.75: every pixel fails.
    let t = run(0.75);
    assert_eq!(pixels_of(&t, 4, 4, BACKGROUND).len(), 16);
}

#[test]
fn dsx_and_dsy_of_a_texture_coordinate_are_its_pixel_gradient() {
    // u goes 0 → 1 over 5 pixels (du/dx = 0.2), v 0 → 2 over 5 rows
    // (dv/dy = 0.4); neither changes along the other axis.
    let p = shader_program(
        "ps_2_x
         dcl t0
         dsx r0, t0
         dsy r1, t0
         mov r2.x, r0.x
         mov r2.y, r1.y
         mov r2.z, r0.y
         mov r2.w, c0.w
         mov oC0, r2",
    );
    let c = shader_constants(&p, &[[0.0, 0.0, 0.0, 1.0]]);
    let st = state();
    let t = render_all(|r| {
        let mut t = target(6, 6, None)(r);
        let vs = rect(0.0, 0.0, 5.0, 5.0, [0.0, 0.0, 1.0, 2.0]);
        draw(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &vs,
            &[],
            shader(&p, &c),
        );
        t
    });
    // R = 0.2·255 = 51, G = 0.4·255 = 102, B = ∂v/∂x = 0, A = 1. Pixels in
    // column 4 and row 4 take their derivatives from helper lanes at
    // x = 5 / y = 5, outside the rectangle: the same planes, same values.
    for y in 0..5 {
        for x in 0..5 {
            assert_eq!(t.px(x, y), 0xFF33_6600, "({x}, {y})");
        }
    }
    assert_eq!(t.px(5, 5), BACKGROUND);
}

#[test]
fn a_quad_straddling_the_edge_writes_only_its_covered_pixel() {
    // The triangle (0.6, 0.6), (1.6, 0.6), (0.6, 1.6) contains the centre
    // (1, 1) only; its quad (0..1, 0..1) runs (0, 0), (1, 0), (0, 1) as
    // helper lanes. u = 0.2·x at the vertices (planar), so dsx(u) = 0.2
    // needs the helper at (0, 1): R = 51.
    let p = shader_program("ps_2_x\ndcl t0\ndsx r0, t0\nmov r0.w, c0.w\nmov oC0, r0.x");
    let c = shader_constants(&p, &[[0.0, 0.0, 0.0, 1.0]]);
    let st = state();
    let vs = [(0.6, 0.6), (1.6, 0.6), (0.6, 1.6)].map(|(x, y)| tv(x, y, 0, 0.2 * x, 0.0));
    let t = render_all(|r| {
        let mut t = target(4, 4, None)(r);
        let s = draw(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &vs,
            &[],
            shader(&p, &c),
        );
        assert_eq!(s.pixels_written, 1);
        t
    });
    // mov oC0, r0.x replicates 0.2 into all four channels: 0x33333333.
    assert_eq!(t.px(1, 1), 0x3333_3333);
    for (x, y) in [(0, 0), (1, 0), (0, 1)] {
        assert_eq!(t.px(x, y), BACKGROUND, "helper lane ({x}, {y})");
    }
    assert_eq!(pixels_of(&t, 4, 4, BACKGROUND).len(), 15);
}

#[test]
fn alpha_blending_and_alpha_test_apply_to_the_shader_output() {
    let p = shader_program("ps_2_0\nmov oC0, c0");
    // Red at alpha 0.5: 0.5·255 = 127.5 → 128 (ties to even).
    let c = shader_constants(&p, &[[1.0, 0.0, 0.0, 0.5]]);
    let mut st = state();
    st.blend.enable = true;
    st.blend.src = Blend::SrcAlpha;
    st.blend.dst = Blend::InvSrcAlpha;
    let vs = rect(0.0, 0.0, 2.0, 2.0, [0.0; 4]);
    let t = render_all(|r| {
        let mut t = target(2, 2, None)(r);
        draw(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &vs,
            &[],
            shader(&p, &c),
        );
        t
    });
    // Over BACKGROUND (A 0xFF, R 0x10, G 0x20, B 0x30), each channel
    // (s·128 + d·127 + 127) / 255 (integer):
    // R (255·128 + 16·127 + 127)/255 = 34799/255 = 136 = 0x88;
    // G (0 + 32·127 + 127)/255 = 4191/255 = 16 = 0x10;
    // B (0 + 48·127 + 127)/255 = 6223/255 = 24 = 0x18;
    // A (128·128 + 255·127 + 127)/255 = 48896/255 = 191 = 0xBF.
    assert_eq!(t.px(0, 0), 0xBF88_1018);
    assert_eq!(t.px(1, 1), 0xBF88_1018);
    // Alpha test GREATER 0x80: 128 is not greater, nothing is written.
    st.blend.enable = false;
    st.alpha_test.enable = true;
    st.alpha_test.func = CmpFunc::Greater;
    st.alpha_test.reference = 0x80;
    let t = render_all(|r| {
        let mut t = target(2, 2, None)(r);
        let s = draw(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &vs,
            &[],
            shader(&p, &c),
        );
        assert_eq!(s.pixels_written, 0);
        t
    });
    assert_eq!(pixels_of(&t, 2, 2, BACKGROUND).len(), 4);
    // GREATEREQUAL passes: opaque-alpha red 0x80FF0000.
    st.alpha_test.func = CmpFunc::GreaterEqual;
    let t = render_all(|r| {
        let mut t = target(2, 2, None)(r);
        draw(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &vs,
            &[],
            shader(&p, &c),
        );
        t
    });
    assert_eq!(pixels_of(&t, 2, 2, 0x80FF_0000).len(), 4);
}

#[test]
fn ps_3_0_reads_declared_texcoords_by_semantic_and_vpos() {
    // v0 is TEXCOORD1 (u = 0.2 everywhere), v1 TEXCOORD0 (u = 0.6).
    let p = shader_program(
        "ps_3_0
         dcl_texcoord1 v0
         dcl_texcoord0 v1
         dcl vPos.xy
         mul r0.xy, vPos, c0
         mov r1.x, v0.x
         mov r1.y, v1.x
         mov r1.z, r0.x
         mov r1.w, r0.y
         mov oC0, r1",
    );
    let c = shader_constants(&p, &[[0.2, 0.2, 0.0, 0.0]]);
    let st = state();
    let mut vs = rect(0.0, 0.0, 4.0, 4.0, [0.6, 0.0, 0.6, 0.0]);
    for v in &mut vs {
        v.uv[1] = [0.2, 0.0];
    }
    let t = render_all(|r| {
        let mut t = target(4, 4, None)(r);
        draw(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &vs,
            &[],
            shader(&p, &c),
        );
        t
    });
    // vPos = (x, y) (integer pixel centres): B = 0.2·x·255 = 51x,
    // A = 51y; R = 0.2·255 = 51; G = 0.6·255 = 153.
    for y in 0..4u32 {
        for x in 0..4u32 {
            let want = ((51 * y) << 24) | (51 << 16) | (153 << 8) | (51 * x);
            assert_eq!(t.px(x, y), want, "({x}, {y})");
        }
    }
}

#[test]
fn point_sprites_give_t0_the_sprite_coordinates() {
    let p = shader_program("ps_2_0\ndcl t0\nmov r0, t0\nmov r0.w, c0.w\nmov oC0, r0");
    let c = shader_constants(&p, &[[0.0, 0.0, 0.0, 1.0]]);
    let mut st = state();
    st.point.size = 4.0;
    st.point.sprite_enable = true;
    let t = render_all(|r| {
        let mut t = target(8, 8, None)(r);
        let pt = tv(4.0, 4.0, 0, 0.9, 0.9);
        let s = draw(
            r,
            &mut t,
            &st,
            Topology::PointList,
            &[pt],
            &[],
            shader(&p, &c),
        );
        assert_eq!(s.pixels_written, 16);
        t
    });
    // The square [2, 6)²; u = (x − 4)/4 + ½ = 0, ¼, ½, ¾ for x = 2..5:
    // 0, 63.75 → 64, 127.5 → 128, 191.25 → 191; v likewise; z = w = 0
    // (blue 0), alpha 1.
    let k = [0u32, 64, 128, 191];
    for y in 0..8u32 {
        for x in 0..8u32 {
            let want = if (2..6).contains(&x) && (2..6).contains(&y) {
                0xFF00_0000 | (k[(x - 2) as usize] << 16) | (k[(y - 2) as usize] << 8)
            } else {
                BACKGROUND
            };
            assert_eq!(t.px(x, y), want, "({x}, {y})");
        }
    }
}

#[test]
fn lines_cover_the_fixed_function_pixels() {
    let p = shader_program("ps_2_0\nmov oC0, c0");
    let c = shader_constants(&p, &[[1.0, 1.0, 1.0, 1.0]]);
    let st = state();
    let line = [
        tv(0.5, 1.2, 0xFFFF_FFFF, 0.0, 0.0),
        tv(13.7, 6.1, 0xFFFF_FFFF, 0.0, 0.0),
    ];
    let run = |pixel: PixelProgram<'_>| {
        render_all(|r| {
            let mut t = target(16, 8, None)(r);
            draw(r, &mut t, &st, Topology::LineList, &line, &[], pixel);
            t
        })
    };
    let ps = run(shader(&p, &c));
    let ff = run(PixelProgram::FixedFunction);
    assert_eq!(ps.color.bytes(), ff.color.bytes());
    // An x-major line from x 0.5 to 13.7 covers one pixel per column.
    assert!(pixels_of(&ps, 16, 8, 0xFFFF_FFFF).len() >= 13);
}

#[test]
fn nan_and_infinite_outputs_do_not_panic() {
    // rcp of 0 is the largest float (docs/shaders.md §11), times 2 is +∞;
    // +∞ · 0 is NaN (IEEE). R = +∞ → 255, G = NaN → 0, B = −∞ → 0, A = 1;
    // oDepth NaN → 0, which passes LESS against the cleared 0.5.
    let p = shader_program(
        "ps_2_0
         rcp r0.x, c0.x
         mul r0.x, r0.x, c0.y
         mul r1.x, r0.x, c0.x
         mov r2.x, r0.x
         mov r2.y, r1.x
         mov r2.z, -r0.x
         mov r2.w, c0.w
         mov oC0, r2
         mov oDepth, r1.x",
    );
    let c = shader_constants(&p, &[[0.0, 2.0, 0.0, 1.0]]);
    let mut st = state();
    st.depth.z_enable = ZBufferType::True;
    st.depth.z_func = CmpFunc::Less;
    let t = render_all(|r| {
        let mut t = target(2, 2, Some(Format::D24S8))(r);
        let vs = rect(0.0, 0.0, 2.0, 2.0, [0.0; 4]);
        draw(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &vs,
            &[],
            shader(&p, &c),
        );
        t
    });
    assert_eq!(pixels_of(&t, 2, 2, 0xFFFF_0000).len(), 4);
}
