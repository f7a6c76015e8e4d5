//! Vertex shaders executed by the pipeline (`Renderer::draw_programs`
//! with `VertexProgram::Shader`): each test assembles a shader, draws with
//! it and checks pixels worked out by hand from the Direct3D 9 rules
//! (`docs/shaders.md`, "Execution in the pipeline: vertex shaders").
//!
//! Unless a test says otherwise the target is 16 × 16 A8R8G8B8 with a
//! viewport of the same size, and the shader maps pixel coordinates to
//! clip space with the matrix of [`PIXELS`]: clip x = x/8 − 1, clip y =
//! 1 − y/8, so that the viewport maps a vertex at pixel coordinates (x,
//! y) back to screen (x, y) exactly (Direct3D 9: pixel centres at integer
//! coordinates).

mod common;
use common::*;
use softhal_pipeline::fog::FogMode;
use softhal_pipeline::program::{PixelProgram, Programs, ShaderInput, VertexProgram};
use softhal_pipeline::texgen::TextureTransformFlags;
use softhal_pipeline::texture::Texture;
use softhal_pipeline::{
    CancelHandle, DeclType, DrawCall, DrawStats, Format, Matrix, PipelineError, PipelineState,
    PositionKind, RenderTargets, Renderer, Topology, VertexLayout, Viewport, Watchdog,
};
use softhal_shader::exec::{BoundConstants, Constants, Program};

/// Rows of the pixel → clip-space matrix, for `dp4 oPos.x, v0, c0` …
/// `dp4 oPos.w, v0, c3` (every product and sum is exact in f32 for the
/// coordinates used here: multiples of 1/8 below 2^20).
const PIXELS: [[f32; 4]; 4] = [
    [0.125, 0.0, 0.0, -1.0],
    [0.0, -0.125, 0.0, 1.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

/// The constants of [`PIXELS`] followed by `more` (c4 on).
fn pixels_and(more: &[[f32; 4]]) -> Vec<[f32; 4]> {
    PIXELS.iter().chain(more).copied().collect()
}

fn state16() -> PipelineState {
    let mut st = state();
    st.viewport = Viewport {
        x: 0,
        y: 0,
        width: 16,
        height: 16,
        min_z: 0.0,
        max_z: 1.0,
    };
    st
}

fn target16(r: &mut Renderer) -> Targets {
    let mut t = Targets::new(16, 16, Format::A8R8G8B8, None);
    t.clear(r, 0xFF00_0000, 1.0, 0);
    t
}

fn target16_depth(r: &mut Renderer) -> Targets {
    let mut t = Targets::new(16, 16, Format::A8R8G8B8, Some(Format::D32));
    t.clear(r, 0xFF00_0000, 1.0, 0);
    t
}

/// Little-endian bytes of vertices made of f32 and u32 fields.
#[derive(Default)]
struct Bytes(Vec<u8>);

impl Bytes {
    fn f(mut self, v: &[f32]) -> Self {
        for x in v {
            self.0.extend_from_slice(&x.to_le_bytes());
        }
        self
    }
    fn u(mut self, c: u32) -> Self {
        self.0.extend_from_slice(&c.to_le_bytes());
        self
    }
}

/// Position (FLOAT3) at 0 → v0 and a D3DCOLOR at 12 → v5: 16 bytes.
const POS_COLOR: [ShaderInput; 2] = [
    ShaderInput {
        register: 0,
        offset: 0,
        ty: DeclType::Float3,
    },
    ShaderInput {
        register: 5,
        offset: 12,
        ty: DeclType::D3dColor,
    },
];

fn pos_color(vs: &[([f32; 3], u32)]) -> Vec<u8> {
    vs.iter().fold(Bytes::default(), |b, (p, c)| b.f(p).u(*c)).0
}

/// Draws `bytes` (vertices of `stride` bytes) with `prog` as the vertex
/// program and fixed-function pixel stages.
#[allow(clippy::too_many_arguments)]
fn draw_vs(
    r: &mut Renderer,
    t: &mut Targets,
    st: &PipelineState,
    topology: Topology,
    bytes: &[u8],
    stride: u32,
    prog: &Program,
    constants: &BoundConstants,
    inputs: &[ShaderInput],
    textures: &[Option<&Texture>; 16],
) -> Result<DrawStats, PipelineError> {
    let layout = VertexLayout {
        stride,
        ..VertexLayout::packed(PositionKind::Xyz, false, false, &[])
    };
    let n = prim_count(topology, bytes.len() / stride as usize);
    let call = DrawCall::new(topology, bytes, &layout, n);
    let programs = Programs {
        vertex: VertexProgram::Shader {
            program: prog,
            constants,
            inputs,
            textures: [None; 4],
        },
        pixel: PixelProgram::FixedFunction,
    };
    let mut rt = RenderTargets {
        color: &mut t.color,
        depth: t.depth.as_mut(),
        extra: Default::default(),
    };
    r.draw_programs(&mut rt, st, &call, textures, &programs)
}

const NO_TEX: [Option<&Texture>; 16] = [None; 16];

/// The vs_1_1 transform + colour passthrough of the task.
const TRANSFORM_VS11: &str = "vs_1_1
dcl_position v0
dcl_color v5
dp4 oPos.x, v0, c0
dp4 oPos.y, v0, c1
dp4 oPos.z, v0, c2
dp4 oPos.w, v0, c3
mov oD0, v5
";

/// Pixels of `t` equal to `argb`, as (x, y).
fn pixels_of(t: &Targets, argb: u32) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for y in 0..t.color.height() {
        for x in 0..t.color.width() {
            if t.px(x, y) == argb {
                v.push((x, y));
            }
        }
    }
    v
}

/// Pixel centres inside the triangle (2, 2), (12, 2), (2, 12): x ≥ 2,
/// y ≥ 2 (top and left edges are drawn) and x + y < 14 (the hypotenuse
/// is a right edge, not drawn): 10 + 9 + … + 1 = 55 pixels.
fn right_triangle_pixels(x0: u32, y0: u32) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for y in 0..16 {
        for x in 0..16 {
            if x >= x0 && y >= y0 && (x - x0) + (y - y0) < 10 {
                v.push((x, y));
            }
        }
    }
    v
}

#[test]
fn vs_1_1_transform_and_colour_draw_the_expected_pixels() {
    let prog = shader_program(TRANSFORM_VS11);
    let c = shader_constants(&prog, &PIXELS);
    let st = state16();
    let b = pos_color(&[
        ([2.0, 2.0, 0.5], 0xFF33_6699),
        ([12.0, 2.0, 0.5], 0xFF33_6699),
        ([2.0, 12.0, 0.5], 0xFF33_6699),
    ]);
    let t = render_all(|r| {
        let mut t = target16(r);
        let s = draw_vs(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &b,
            16,
            &prog,
            &c,
            &POS_COLOR,
            &NO_TEX,
        )
        .expect("draw");
        assert_eq!(s.pixels_written, 55);
        t
    });
    // D3DCOLOR 0xFF336699 read as (0x33, 0x66, 0x99, 0xFF)/255 into v5,
    // copied to oD0, written back as the same bytes.
    let mut want = right_triangle_pixels(2, 2);
    want.sort_by_key(|&(x, y)| (y, x));
    assert_eq!(pixels_of(&t, 0xFF33_6699), want);
    assert_eq!(pixels_of(&t, 0xFF00_0000).len(), 256 - 55);
}

/// Draws the first `count` of `colours.len()` right triangles (legs 4)
/// through `TRANSFORM_VS11`, triangle k in colour k with its right angle
/// at (1 + 5(k mod 3), 1 + 5(k div 3)), at every thread count and SIMD
/// level, and checks that each drawn triangle covers its 4 + 3 + 2 + 1 =
/// 10 pixels, the first at that corner, and the others none.
fn draw_right_triangles(colours: &[u32], count: usize) {
    let prog = shader_program(TRANSFORM_VS11);
    let c = shader_constants(&prog, &PIXELS);
    let st = state16();
    let corner = |k: usize| (1 + 5 * (k % 3) as u32, 1 + 5 * (k / 3) as u32);
    let mut vs = Vec::new();
    for (k, &colour) in colours.iter().enumerate().take(count) {
        let (x, y) = corner(k);
        let (x, y) = (x as f32, y as f32);
        vs.push(([x, y, 0.0], colour));
        vs.push(([x + 4.0, y, 0.0], colour));
        vs.push(([x, y + 4.0, 0.0], colour));
    }
    let b = pos_color(&vs);
    let t = render_all(|r| {
        let mut t = target16(r);
        draw_vs(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &b,
            16,
            &prog,
            &c,
            &POS_COLOR,
            &NO_TEX,
        )
        .expect("draw");
        t
    });
    for (k, &colour) in colours.iter().enumerate() {
        let px = pixels_of(&t, colour);
        if k < count {
            assert_eq!(px.len(), 10, "{count} triangles, triangle {k}");
            assert_eq!(px[0], corner(k));
        } else {
            assert!(px.is_empty(), "{count} triangles, triangle {k}");
        }
    }
}

#[test]
fn a_tail_of_one_two_or_three_vertices_runs_under_the_lane_mask() {
    // 3, 6 and 9 vertices: runs of 4 leave tails of 3, 2 and 1 lanes.
    for count in 1..=3 {
        draw_right_triangles(&[0xFFFF_0000, 0xFF00_FF00, 0xFF00_00FF], count);
    }
}

#[test]
fn wide_batches_of_vertices_and_their_partial_tails_draw_every_triangle() {
    // 5, 6 and 9 triangles: 15, 18 and 27 vertices, so runs of 16 leave
    // one partial batch, a tail of 2 and a tail of 11.
    let colours: [u32; 9] = std::array::from_fn(|k| 0xFF00_0000 | (0x10 * (k as u32 + 1)) << 8);
    for count in [5, 6, 9] {
        draw_right_triangles(&colours, count);
    }
}

/// A 2 × 2 A8R8G8B8 texture: (0,0) 0xFF4080C0, (1,0) 0xFFFFFFFF, (0,1)
/// 0xFF102030, (1,1) 0xFF00FF00.
fn texture_2x2() -> Texture {
    common::argb_texture(2, 2, &[0xFF40_80C0, 0xFFFF_FFFF, 0xFF10_2030, 0xFF00_FF00])
}

/// Two triangles covering the whole 16 × 16 target, position (v0) and
/// texture coordinates u = x/16, v = y/16 (FLOAT2, v7): 20 bytes.
fn full_quad_uv() -> Vec<u8> {
    let corners = [
        [0.0f32, 0.0],
        [16.0, 0.0],
        [16.0, 16.0],
        [0.0, 0.0],
        [16.0, 16.0],
        [0.0, 16.0],
    ];
    corners
        .iter()
        .fold(Bytes::default(), |b, p| {
            b.f(&[p[0] - 0.5, p[1] - 0.5, 0.0, p[0] / 16.0, p[1] / 16.0])
        })
        .0
}

const POS_UV: [ShaderInput; 2] = [
    ShaderInput {
        register: 0,
        offset: 0,
        ty: DeclType::Float3,
    },
    ShaderInput {
        register: 7,
        offset: 12,
        ty: DeclType::Float2,
    },
];

#[test]
fn ot0_feeds_a_stage_0_modulate_lookup() {
    // oT0 = v7; oD0 = c4 = (1, 1, 0, 1). Stage 0: MODULATE(TEXTURE,
    // DIFFUSE) (the default COLOROP, with CURRENT = DIFFUSE at stage 0).
    let prog = shader_program(
        "vs_1_1
dcl_position v0
dcl_texcoord v7
dp4 oPos.x, v0, c0
dp4 oPos.y, v0, c1
dp4 oPos.z, v0, c2
dp4 oPos.w, v0, c3
mov oD0, c4
mov oT0, v7
",
    );
    let c = shader_constants(&prog, &pixels_and(&[[1.0, 1.0, 0.0, 1.0]]));
    let tex = texture_2x2();
    let mut textures = NO_TEX;
    textures[0] = Some(&tex);
    let st = state16();
    let b = full_quad_uv();
    let t = render_all(|r| {
        let mut t = target16(r);
        draw_vs(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &b,
            20,
            &prog,
            &c,
            &POS_UV,
            &textures,
        )
        .expect("draw");
        t
    });
    // The quad spans −0.5 … 15.5, so pixel (x, y) samples u = (x + ½)/16:
    // point filtering picks texel floor(2u) = x div 8 (and y div 8).
    // Modulated by (1, 1, 0, 1): blue → 0.
    for (x, y, want) in [
        (3, 3, 0xFF40_8000u32),
        (12, 3, 0xFFFF_FF00),
        (3, 12, 0xFF10_2000),
        (12, 12, 0xFF00_FF00),
    ] {
        assert_eq!(t.px(x, y), want, "pixel ({x}, {y})");
    }
}

#[test]
fn ttff_projected_divides_the_shaders_coordinates_by_w() {
    // oT0 = (u, v, 0, 2) with D3DTTFF_PROJECTED (COUNT 0, as a shader
    // draw sets it): the stage samples (u/2, v/2), so the whole target
    // shows the top-left texel's quadrant range: pixel (12, 12) reads
    // u = 12.5/32 < 1/2 → texel (0, 0).
    let prog = shader_program(
        "vs_1_1
dcl_position v0
dcl_texcoord v7
dp4 oPos.x, v0, c0
dp4 oPos.y, v0, c1
dp4 oPos.z, v0, c2
dp4 oPos.w, v0, c3
mov oD0, c4
mov oT0.xy, v7
mov oT0.zw, c5
",
    );
    let c = shader_constants(&prog, &pixels_and(&[[1.0; 4], [0.0, 0.0, 0.0, 2.0]]));
    let tex = texture_2x2();
    let mut textures = NO_TEX;
    textures[0] = Some(&tex);
    let mut st = state16();
    st.textures.transform_flags[0] = TextureTransformFlags::from_d3d(0x100).expect("PROJECTED");
    // A texture matrix is not applied to a shader's coordinates.
    st.textures.matrices[0] = Matrix([[0.0; 4]; 4]);
    let b = full_quad_uv();
    let t = render_all(|r| {
        let mut t = target16(r);
        draw_vs(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &b,
            20,
            &prog,
            &c,
            &POS_UV,
            &textures,
        )
        .expect("draw");
        t
    });
    assert_eq!(t.px(12, 12), 0xFF40_80C0);
    assert_eq!(t.px(3, 3), 0xFF40_80C0);
}

#[test]
fn ofog_is_the_vertex_fog_factor_and_table_fog_wins() {
    // Each triangle's oFog is c5.x; diffuse red; fog colour blue.
    let prog = shader_program(
        "vs_1_1
dcl_position v0
dcl_color v5
dp4 oPos.x, v0, c0
dp4 oPos.y, v0, c1
dp4 oPos.z, v0, c2
dp4 oPos.w, v0, c3
mov oD0, v5
mov oFog, c4.x
",
    );
    let b = pos_color(&[
        ([1.0, 1.0, 0.0], 0xFFFF_0000),
        ([9.0, 1.0, 0.0], 0xFFFF_0000),
        ([1.0, 9.0, 0.0], 0xFFFF_0000),
    ]);
    let mut st = state16();
    st.fog.enable = true;
    st.fog.color = 0xFF00_00FF;
    // FOGVERTEXMODE is ignored with a shader (it computes oFog): EXP with
    // density 100 would fog everything.
    st.fog.vertex_mode = FogMode::Exp;
    st.fog.density = 100.0;
    let inside = (2, 2);
    let run = |st: &PipelineState, fog: f32| {
        let c = shader_constants(&prog, &pixels_and(&[[fog, 0.0, 0.0, 0.0]]));
        let t = render_all(|r| {
            let mut t = target16(r);
            draw_vs(
                r,
                &mut t,
                st,
                Topology::TriangleList,
                &b,
                16,
                &prog,
                &c,
                &POS_COLOR,
                &NO_TEX,
            )
            .expect("draw");
            t
        });
        t.px(inside.0, inside.1)
    };
    // f = 1: the colour; f = 0: the fog colour; saturated outside [0, 1].
    assert_eq!(run(&st, 1.0), 0xFFFF_0000);
    assert_eq!(run(&st, 0.0), 0xFF00_00FF);
    assert_eq!(run(&st, 7.0), 0xFFFF_0000);
    assert_eq!(run(&st, -3.0), 0xFF00_00FF);
    // FOGTABLEMODE LINEAR 0…1 on z = 0 gives f = 1 whatever oFog says.
    st.fog.table_mode = FogMode::Linear;
    assert_eq!(run(&st, 0.0), 0xFFFF_0000);
}

#[test]
fn opts_sizes_points_within_pointsize_min_and_max() {
    let prog = shader_program(
        "vs_1_1
dcl_position v0
dcl_color v5
dp4 oPos.x, v0, c0
dp4 oPos.y, v0, c1
dp4 oPos.z, v0, c2
dp4 oPos.w, v0, c3
mov oD0, v5
mov oPts, c4.x
",
    );
    let b = pos_color(&[([8.0, 8.0, 0.0], 0xFFFF_0000)]);
    let st0 = state16();
    let count = |st: &PipelineState, size: f32| {
        let c = shader_constants(&prog, &pixels_and(&[[size, 0.0, 0.0, 0.0]]));
        let t = render_all(|r| {
            let mut t = target16(r);
            draw_vs(
                r,
                &mut t,
                st,
                Topology::PointList,
                &b,
                16,
                &prog,
                &c,
                &POS_COLOR,
                &NO_TEX,
            )
            .expect("draw");
            t
        });
        pixels_of(&t, 0xFFFF_0000).len()
    };
    // Size s around (8, 8) covers centres in [8 − s/2, 8 + s/2)².
    assert_eq!(count(&st0, 4.0), 16);
    // POINTSIZE (1) does not apply when the shader writes oPts.
    assert_eq!(count(&st0, 2.0), 4);
    let mut capped = st0;
    capped.point.max = 6.0;
    assert_eq!(count(&capped, 100.0), 36);
    let mut raised = st0;
    raised.point.min = 2.0;
    assert_eq!(count(&raised, 0.0), 4);
}

/// A fixed-function draw of the same vertices through World = the
/// pixel → clip matrix ([`PIXELS`] transposed: row vector · matrix).
fn fixed_function_reference(threads: usize, st: &PipelineState, vs: &[([f32; 3], u32)]) -> Targets {
    let mut r = Renderer::new(threads).expect("renderer");
    let mut t = target16_depth(&mut r);
    let mut st = *st;
    st.transforms.world = Matrix(std::array::from_fn(|i| {
        std::array::from_fn(|j| PIXELS[j][i])
    }));
    let b = pos_color(vs);
    let l = VertexLayout::packed(PositionKind::Xyz, true, false, &[]);
    let call = DrawCall::new(Topology::TriangleList, &b, &l, (vs.len() / 3) as u32);
    let mut rt = RenderTargets {
        color: &mut t.color,
        depth: t.depth.as_mut(),
        extra: Default::default(),
    };
    r.draw(&mut rt, &st, &call).expect("draw");
    t
}

#[test]
fn a_shader_doing_fixed_functions_work_draws_the_same_pixels_at_any_thread_count() {
    // 3000 random triangles (three chunks of primitives) with random
    // colours, at coordinates on a 1/8 grid. Tolerance 0, bit for bit:
    // dp4 and the fixed-function transform compute the same products and
    // sums, all exact for these inputs (multiples of 1/8 times powers of
    // two, magnitudes below 2^7), so the clip positions are equal; and the
    // colour c/255 · 255 of the shader path rounds to the byte c the
    // fixed-function path keeps, so the 8-bit results are equal too.
    let mut rng = Rng(0x5EED_7001);
    let grid = |rng: &mut Rng| (rng.below(17 * 8) as f32) / 8.0 - 0.5;
    let vs: Vec<([f32; 3], u32)> = (0..3000)
        .flat_map(|_| {
            let c = 0xFF00_0000 | (rng.next() as u32 & 0x00FF_FFFF);
            let z = rng.below(9) as f32 / 8.0;
            [0; 3].map(|_| ([grid(&mut rng), grid(&mut rng), z], c))
        })
        .collect();
    let prog = shader_program(TRANSFORM_VS11);
    let c = shader_constants(&prog, &PIXELS);
    let mut st = state16();
    st.depth.z_enable = softhal_pipeline::ZBufferType::True;
    st.depth.z_func = softhal_pipeline::CmpFunc::Less;
    let b = pos_color(&vs);
    let reference = fixed_function_reference(1, &st, &vs);
    let drawn = (0..256)
        .filter(|i| reference.px(i % 16, i / 16) != 0xFF00_0000)
        .count();
    assert!(
        drawn > 200,
        "the reference covers most of the target ({drawn})"
    );
    for threads in [1, 3] {
        let mut r = Renderer::new(threads).expect("renderer");
        let mut t = target16_depth(&mut r);
        draw_vs(
            &mut r,
            &mut t,
            &st,
            Topology::TriangleList,
            &b,
            16,
            &prog,
            &c,
            &POS_COLOR,
            &NO_TEX,
        )
        .expect("draw");
        assert!(
            t.color.bytes() == reference.color.bytes(),
            "shader draw differs from fixed function at {threads} threads"
        );
    }
}

#[test]
fn vs_2_0_loop_and_static_if() {
    // loop aL, i0 (4 iterations) adds 0.25 to r0.x four times: red = 1.
    // if b0 (true) makes green 1, else blue 1.
    let src = "vs_2_0
defi i0, 4, 0, 1, 0
def c5, 0.25, 0, 0, 0
def c6, 0, 0, 0, 1
dcl_position v0
dp4 oPos.x, v0, c0
dp4 oPos.y, v0, c1
dp4 oPos.z, v0, c2
dp4 oPos.w, v0, c3
mov r0, c6
loop aL, i0
add r0.x, r0.x, c5.x
endloop
if b0
mov r0.y, c6.w
else
mov r0.z, c6.w
endif
mov oD0, r0
";
    let prog = shader_program(src);
    let b = pos_color(&[
        ([1.0, 1.0, 0.0], 0),
        ([9.0, 1.0, 0.0], 0),
        ([1.0, 9.0, 0.0], 0),
    ]);
    let st = state16();
    for (b0, want) in [(true, 0xFFFF_FF00u32), (false, 0xFFFF_00FF)] {
        let c = prog.bind(&Constants {
            float: PIXELS.to_vec(),
            bool: vec![b0],
            ..Constants::default()
        });
        let t = render_all(|r| {
            let mut t = target16(r);
            draw_vs(
                r,
                &mut t,
                &st,
                Topology::TriangleList,
                &b,
                16,
                &prog,
                &c,
                &POS_COLOR[..1],
                &NO_TEX,
            )
            .expect("draw");
            t
        });
        assert_eq!(t.px(2, 2), want, "b0 = {b0}");
    }
}

#[test]
fn vs_2_x_dynamic_if_diverges_across_the_lanes_of_one_run() {
    // Triangle A (vertices 0–2) and the first vertex of triangle B share a
    // run; if_gt on v1.x (1 for A, 0 for B) sends them different ways:
    // A green, B blue.
    let prog = shader_program(
        "vs_2_x
def c4, 0, 0, 0, 1
def c5, 0.5, 0, 0, 0
dcl_position v0
dcl_texcoord v1
dp4 oPos.x, v0, c0
dp4 oPos.y, v0, c1
dp4 oPos.z, v0, c2
dp4 oPos.w, v0, c3
mov r0, c4
if_gt v1.x, c5.x
mov r0.y, c4.w
else
mov r0.z, c4.w
endif
mov oD0, r0
",
    );
    let c = shader_constants(&prog, &PIXELS);
    let inputs = [
        POS_COLOR[0],
        ShaderInput {
            register: 1,
            offset: 12,
            ty: DeclType::Float1,
        },
    ];
    let mut b = Bytes::default();
    for (x, flag) in [(1.0f32, 1.0f32), (8.0, 0.0)] {
        for p in [[x, 1.0], [x + 6.0, 1.0], [x, 7.0]] {
            b = b.f(&[p[0], p[1], 0.0, flag]);
        }
    }
    let st = state16();
    let t = render_all(|r| {
        let mut t = target16(r);
        draw_vs(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &b.0,
            16,
            &prog,
            &c,
            &inputs,
            &NO_TEX,
        )
        .expect("draw");
        t
    });
    assert_eq!(t.px(2, 2), 0xFF00_FF00);
    assert_eq!(t.px(9, 2), 0xFF00_00FF);
}

#[test]
fn vs_3_0_outputs_map_by_their_dcl_semantics() {
    // Position in o5, COLOR0 in o3, TEXCOORD0 in o1, a TANGENT in o2
    // (dropped: no generic varyings yet).
    let prog = shader_program(
        "vs_3_0
dcl_position v0
dcl_texcoord v7
dcl_texcoord o1
dcl_tangent o2
dcl_color o3
dcl_position o5
dp4 o5.x, v0, c0
dp4 o5.y, v0, c1
dp4 o5.z, v0, c2
dp4 o5.w, v0, c3
mov o3, c4
mov o1, v7
mov o2, c0
",
    );
    let c = shader_constants(&prog, &pixels_and(&[[1.0, 1.0, 0.0, 1.0]]));
    let tex = texture_2x2();
    let mut textures = NO_TEX;
    textures[0] = Some(&tex);
    let st = state16();
    let b = full_quad_uv();
    let t = render_all(|r| {
        let mut t = target16(r);
        draw_vs(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &b,
            20,
            &prog,
            &c,
            &POS_UV,
            &textures,
        )
        .expect("draw");
        t
    });
    // As in `ot0_feeds_a_stage_0_modulate_lookup`.
    assert_eq!(t.px(3, 3), 0xFF40_8000);
    assert_eq!(t.px(12, 12), 0xFF00_FF00);
}

#[test]
fn vertex_texture_fetch_reads_zero_zero_zero_one() {
    // texldl from s0 in a vertex shader samples nothing yet: (0, 0, 0, 1).
    let prog = shader_program(
        "vs_3_0
dcl_position v0
dcl_2d s0
dcl_position o0
dcl_color o1
dp4 o0.x, v0, c0
dp4 o0.y, v0, c1
dp4 o0.z, v0, c2
dp4 o0.w, v0, c3
texldl r0, c4, s0
mov o1, r0
",
    );
    let c = shader_constants(&prog, &pixels_and(&[[0.5, 0.5, 0.0, 0.0]]));
    let b = pos_color(&[
        ([1.0, 1.0, 0.0], 0),
        ([9.0, 1.0, 0.0], 0),
        ([1.0, 9.0, 0.0], 0),
    ]);
    let mut st = state16();
    let mut r = Renderer::new(1).expect("renderer");
    let mut t = target16(&mut r);
    t.clear(&mut r, 0xFFFF_FFFF, 1.0, 0);
    st.raster.cull_mode = softhal_pipeline::CullMode::None;
    draw_vs(
        &mut r,
        &mut t,
        &st,
        Topology::TriangleList,
        &b,
        16,
        &prog,
        &c,
        &POS_COLOR[..1],
        &NO_TEX,
    )
    .expect("draw");
    assert_eq!(t.px(2, 2), 0xFF00_0000);
}

#[test]
fn nan_inf_huge_and_zero_w_outputs_are_rejected_or_clipped_never_a_panic() {
    // oPos = c[4 + vertex's v1.x]: per-vertex positions from constants.
    let prog = shader_program(
        "vs_1_1
dcl_position v0
dcl_color v5
mov a0.x, v1.x
mov oPos, c4[a0.x]
mov oD0, v5
",
    );
    let inputs = [
        POS_COLOR[1],
        ShaderInput {
            register: 1,
            offset: 0,
            ty: DeclType::Float1,
        },
    ];
    let clip = |x: f32, y: f32| [x / 8.0 - 1.0, 1.0 - y / 8.0, 0.5, 1.0];
    let consts = [
        clip(1.0, 1.0),
        clip(9.0, 1.0),
        clip(1.0, 9.0),
        [f32::NAN, 0.0, 0.5, 1.0],
        [f32::INFINITY, 0.0, 0.5, 1.0],
        [0.0, 0.0, 0.0, 0.0],
        [1e30, 0.0, 0.5, 1.0],
        [0.0, f32::MAX, f32::MAX, f32::MAX],
    ];
    let c = shader_constants(&prog, &[[[0.0; 4]; 4].as_slice(), &consts].concat());
    let st = state16();
    let draw = |which: [u32; 3]| {
        let b = which
            .iter()
            .fold(Bytes::default(), |b, &i| {
                b.f(&[i as f32, 0.0, 0.0]).u(0xFFFF_0000)
            })
            .0;
        let mut r = Renderer::new(2).expect("renderer");
        let mut t = target16(&mut r);
        let s = draw_vs(
            &mut r,
            &mut t,
            &st,
            Topology::TriangleList,
            &b,
            16,
            &prog,
            &c,
            &inputs,
            &NO_TEX,
        )
        .expect("draw");
        s.pixels_written
    };
    // The good triangle: 8 + 7 + … + 1 = 36 pixels.
    assert_eq!(draw([0, 1, 2]), 36);
    // A NaN or infinite x, or w = 0, drops the triangle.
    assert_eq!(draw([3, 1, 2]), 0);
    assert_eq!(draw([4, 1, 2]), 0);
    assert_eq!(draw([0, 1, 5]), 0);
    // A vertex far outside is clipped (guard band), the rest drawn: the
    // triangle (1,1), (1,9), far right along y = 1 covers the rows y ≥ 1
    // up to the line from (1, 9) towards x = +∞ at y = 1: at least the
    // pixels of the good triangle.
    assert!(draw([0, 6, 2]) >= 36);
    // Huge w: the vertex projects near the centre; no panic.
    let _ = draw([0, 1, 7]);
}

#[test]
fn errors_are_typed_and_nothing_is_drawn() {
    let vs = shader_program(TRANSFORM_VS11);
    let c = shader_constants(&vs, &PIXELS);
    let ps = shader_program("ps_2_0\nmov oC0, c0\n");
    let pc = shader_constants(&ps, &[]);
    let st = state16();
    let b = pos_color(&[
        ([1.0, 1.0, 0.0], 0xFFFF_0000),
        ([9.0, 1.0, 0.0], 0xFFFF_0000),
        ([1.0, 9.0, 0.0], 0xFFFF_0000),
    ]);
    let mut r = Renderer::new(1).expect("renderer");
    let mut t = target16(&mut r);
    let layout = VertexLayout {
        stride: 16,
        ..VertexLayout::packed(PositionKind::Xyz, false, false, &[])
    };
    let call = DrawCall::new(Topology::TriangleList, &b, &layout, 1);
    let mut try_draw = |programs: Programs<'_>| {
        let mut rt = RenderTargets {
            color: &mut t.color,
            depth: None,
            extra: Default::default(),
        };
        r.draw_programs(&mut rt, &st, &call, &NO_TEX, &programs)
            .map(|_| ())
            .map_err(|e| e.kind())
    };
    let shader = VertexProgram::Shader {
        program: &vs,
        constants: &c,
        inputs: &POS_COLOR,
        textures: [None; 4],
    };
    // A vertex shader bound as the pixel program.
    assert_eq!(
        try_draw(Programs {
            vertex: shader,
            pixel: PixelProgram::Shader {
                program: &vs,
                constants: &c,
            },
        }),
        Err("bad_program")
    );
    // A pixel shader bound as the vertex program.
    assert_eq!(
        try_draw(Programs {
            vertex: VertexProgram::Shader {
                program: &ps,
                constants: &pc,
                inputs: &[],
                textures: [None; 4],
            },
            pixel: PixelProgram::FixedFunction,
        }),
        Err("bad_program")
    );
    // An input element past the 16-byte stride, or a register v16.
    for input in [
        ShaderInput {
            register: 5,
            offset: 13,
            ty: DeclType::D3dColor,
        },
        ShaderInput {
            register: 16,
            offset: 0,
            ty: DeclType::Float1,
        },
    ] {
        assert_eq!(
            try_draw(Programs {
                vertex: VertexProgram::Shader {
                    program: &vs,
                    constants: &c,
                    inputs: &[input],
                    textures: [None; 4],
                },
                pixel: PixelProgram::FixedFunction,
            }),
            Err("bad_vertex_layout")
        );
    }
    assert_eq!(pixels_of(&t, 0xFF00_0000).len(), 256);
}

#[test]
fn long_shaders_are_bounded_and_the_watchdog_stops_the_draw() {
    // Four nested rep 255 would run 255^4 iterations; the executor stops
    // each run at 65 535 instructions, after oPos and oD0 are written.
    let prog = shader_program(
        "vs_2_x
defi i0, 255, 0, 0, 0
dcl_position v0
dcl_color v5
dp4 oPos.x, v0, c0
dp4 oPos.y, v0, c1
dp4 oPos.z, v0, c2
dp4 oPos.w, v0, c3
mov oD0, v5
rep i0
rep i0
rep i0
rep i0
add r0, r0, c0
endrep
endrep
endrep
endrep
",
    );
    let c = shader_constants(&prog, &PIXELS);
    let b = pos_color(&[
        ([1.0, 1.0, 0.0], 0xFFFF_0000),
        ([9.0, 1.0, 0.0], 0xFFFF_0000),
        ([1.0, 9.0, 0.0], 0xFFFF_0000),
    ]);
    let st = state16();
    let mut r = Renderer::new(1).expect("renderer");
    let mut t = target16(&mut r);
    let s = draw_vs(
        &mut r,
        &mut t,
        &st,
        Topology::TriangleList,
        &b,
        16,
        &prog,
        &c,
        &POS_COLOR,
        &NO_TEX,
    )
    .expect("draw");
    assert_eq!(s.pixels_written, 36);
    // A cancelled watchdog stops the draw.
    let cancel = CancelHandle::new();
    cancel.cancel();
    r.set_watchdog(Some(Watchdog {
        cancel,
        deadline: None,
    }));
    let e = draw_vs(
        &mut r,
        &mut t,
        &st,
        Topology::TriangleList,
        &b,
        16,
        &prog,
        &c,
        &POS_COLOR,
        &NO_TEX,
    );
    assert_eq!(e.map(|_| ()), Err(PipelineError::Stopped));
}

#[test]
fn the_w7_shader_draws_its_bind_pose_as_its_definition_predicts() {
    // The W7 definition: 1024 × 768, the D3D9 view-projection rows, c4–c8
    // as listed; every bone the identity (the bind pose) except bone 63, a
    // translation by +200 in x. Vertex: FLOAT3 position, FLOAT3 normal,
    // FLOAT4 weights, UBYTE4 indices (44 bytes).
    // The W7 vertex shader of the benchmark definition (vs_2_0, 4-bone
    // skinning, one directional light, linear fog on world z).
    let prog = shader_program(softhal_shader::corpus::W7_VS_ASM);
    assert_eq!(prog.shader().shader().instructions.len(), 5 + 47);
    let mut c = vec![
        [2.0 / 1024.0, 0.0, 0.0, -1.0 - 1.0 / 1024.0],
        [0.0, -2.0 / 768.0, 0.0, 1.0 + 1.0 / 768.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
        [-0.3, -0.4, -0.866_025_4, 0.0],
        [0.8, 0.7, 0.6, 0.0],
        [0.15, 0.15, 0.2, 1.0],
        [0.0; 4],
        [-0.8, 1.0, 0.0, 0.0],
    ];
    for k in 0..64 {
        let tx = if k == 63 { 200.0 } else { 0.0 };
        c.push([1.0, 0.0, 0.0, tx]);
        c.push([0.0, 1.0, 0.0, 0.0]);
        c.push([0.0, 0.0, 1.0, 0.0]);
    }
    let consts = shader_constants(&prog, &c);
    let inputs = [
        (0, 0, DeclType::Float3),
        (1, 12, DeclType::Float3),
        (2, 24, DeclType::Float4),
        (3, 40, DeclType::Ubyte4),
    ]
    .map(|(register, offset, ty)| ShaderInput {
        register,
        offset,
        ty,
    });
    // Two triangles with legs of 40 pixels at depth 0.5, normal (0, 0,
    // −1): one on bones 5, 17, 40, 0 with weights ¼ each (all identity:
    // drawn where its bind-pose positions say), one on bone 63 alone
    // (moved 200 pixels right).
    let mut b = Bytes::default();
    for (corner, bones, weights) in [
        ([100.0f32, 100.0], [5u8, 17, 40, 0], [0.25f32; 4]),
        ([100.0, 300.0], [63, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
    ] {
        for (dx, dy) in [(0.0, 0.0), (40.0, 0.0), (0.0, 40.0)] {
            b = b
                .f(&[corner[0] + dx, corner[1] + dy, 0.5])
                .f(&[0.0, 0.0, -1.0])
                .f(&weights)
                .u(u32::from_le_bytes(bones));
        }
    }
    let mut st = state();
    st.viewport = Viewport {
        x: 0,
        y: 0,
        width: 1024,
        height: 768,
        min_z: 0.0,
        max_z: 1.0,
    };
    st.fog.enable = true;
    st.fog.color = 0xFF80_99B3;
    // Stage 0: SELECTARG1(DIFFUSE), the definition.s fixed-function
    // equivalent of its `mov oC0, v0` pixel shader.
    st.textures.stages[0].color_op = softhal_pipeline::cascade::TextureOp::SelectArg1;
    st.textures.stages[0].color_arg1 = softhal_pipeline::cascade::TextureArgument::new(
        softhal_pipeline::cascade::TextureArg::Diffuse,
    );
    let t = render_all(|r| {
        let mut t = Targets::new(1024, 768, Format::A8R8G8B8, None);
        t.clear(r, 0xFF00_0000, 1.0, 0);
        draw_vs(
            r,
            &mut t,
            &st,
            Topology::TriangleList,
            &b.0,
            44,
            &prog,
            &consts,
            &inputs,
            &NO_TEX,
        )
        .expect("draw");
        t
    });
    // Coverage (the half-pixel offset of c0/c1 puts pixel centres at +0.5,
    // §1): pixel (px, py) is inside when its centre (px + ½, py + ½) is in
    // the triangle: (101, 101) and (120, 110) are, (99, 101) and
    // (130, 130) (x + y = 261 > 240 − 1) are not.
    //
    // Colour: N·L = 0.8660254, so oD0 = 0.8660254·(0.8, 0.7, 0.6) +
    // (0.15, 0.15, 0.2) = (0.84282, 0.75622, 0.71962, 1); fog f = −0.8·0.5
    // + 1 = 0.6, so rgb = 0.6·oD0 + 0.4·(0x80, 0x99, 0xB3)/255 =
    // (0.70648, 0.69373, 0.71256) → × 255 = (180.15, 176.90, 181.70):
    // 180, 177, 182 within ±1 for the rounding of the fog blend.
    let near = |got: u32, want: [u8; 3]| {
        let [_, r, g, bl] = got.to_be_bytes();
        [r, g, bl]
            .iter()
            .zip(want)
            .all(|(&a, b)| a.abs_diff(b) <= 1)
    };
    for (x, y) in [(101, 101), (120, 110), (301, 301), (320, 310)] {
        assert!(
            near(t.px(x, y), [180, 177, 182]),
            "({x}, {y}): {:08x}",
            t.px(x, y)
        );
    }
    for (x, y) in [(99, 101), (130, 130), (101, 301), (330, 330)] {
        assert_eq!(t.px(x, y), 0xFF00_0000, "({x}, {y})");
    }
}
