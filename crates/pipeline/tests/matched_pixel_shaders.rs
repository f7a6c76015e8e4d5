//! Pixel shaders that equal a fixed-function texture stage draw as that
//! stage (`program::matched`, `docs/shaders.md` §13b): for each kind —
//! the colour input, a texel, a texel times the colour — the matched draw
//! writes exactly what the equivalent fixed-function state writes, within
//! one unit per channel of what the shader path writes (the renderer with
//! `set_program_matching(false)`), and the hand-computed values at known
//! pixels on both paths; programs that are near misses, and states under
//! which the stage would differ, draw what the shader says. Every scene is
//! rendered at 1, 2 and 4 threads and every SIMD level (`render_all`).
//!
//! The tolerance, one unit in 255 per channel: Direct3D 9 gives colour
//! interpolators and the fixed-function blend at least 8 bits; softhal's
//! fixed-function kernels step the colour in 16.16 fixed point (and
//! modulate and fog in 8-bit integers, `round(t·d/255)`), the shader path
//! evaluates the same planes in float and rounds once at the end. Both are
//! within half a unit of the exact value before their last rounding, so
//! they differ by at most one.

mod common;

use common::{render_all, shader_constants, shader_program, state, Targets};
use softhal_pipeline::program::{PixelProgram, Programs, ShaderInput, VertexProgram};
use softhal_pipeline::texture::{Texture, TextureDesc, TextureFilter, TextureFormat, TextureKind};
use softhal_pipeline::{
    CmpFunc, DeclType, DrawCall, DrawStats, Format, PipelineState, PositionKind, RenderTargets,
    Renderer, Topology, VertexLayout, ZBufferType,
};
use softhal_shader::exec::{BoundConstants, Program};

/// A pre-transformed vertex: position, diffuse, specular (its alpha is
/// the fog factor), two texture-coordinate sets.
#[derive(Clone, Copy)]
struct TV {
    x: f32,
    y: f32,
    diffuse: u32,
    specular: u32,
    uv: [[f32; 2]; 2],
}

/// XYZRHW | DIFFUSE | SPECULAR | TEX2 (2 + 2).
fn layout() -> VertexLayout {
    VertexLayout::packed(PositionKind::Xyzrhw, true, true, &[2, 2])
}

fn bytes(vs: &[TV]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in vs {
        for f in [v.x, v.y, 0.5, 1.0] {
            out.extend_from_slice(&f.to_le_bytes());
        }
        out.extend_from_slice(&v.diffuse.to_le_bytes());
        out.extend_from_slice(&v.specular.to_le_bytes());
        for f in v.uv.iter().flatten() {
            out.extend_from_slice(&f.to_le_bytes());
        }
    }
    out
}

const W: u32 = 24;
const BACKGROUND: u32 = 0xFF10_2030;

/// A triangle with three different colours, fog factors and coordinates
/// (set 1 is set 0 mirrored), covering about half of the target.
fn gouraud() -> Vec<TV> {
    vec![
        TV {
            x: 0.3,
            y: 0.2,
            diffuse: 0xFFFF_0000,
            specular: 0xFF00_0000,
            uv: [[0.0, 0.0], [1.0, 1.0]],
        },
        TV {
            x: 23.7,
            y: 1.4,
            diffuse: 0x8000_FF40,
            specular: 0x4000_0000,
            uv: [[3.0, 0.25], [-2.0, 0.75]],
        },
        TV {
            x: 2.1,
            y: 22.9,
            diffuse: 0x2010_20FF,
            specular: 0x0000_0000,
            uv: [[0.5, 2.5], [0.5, -1.5]],
        },
    ]
}

/// Two triangles covering the whole target in one colour, fog factor
/// (specular alpha) and texture coordinates (0, 0)–(1, 1).
fn flat(diffuse: u32, specular: u32) -> Vec<TV> {
    let c = |x: f32, y: f32| TV {
        x: x - 0.5,
        y: y - 0.5,
        diffuse,
        specular,
        uv: [[x / W as f32, y / W as f32]; 2],
    };
    let w = W as f32;
    let (tl, tr, br, bl) = (c(0.0, 0.0), c(w, 0.0), c(w, w), c(0.0, w));
    vec![tl, tr, br, tl, br, bl]
}

/// Draws `vs` with `pixel` (fixed function when `None`) under `st` with
/// `textures`, matching on or off, on a W × W A8R8G8B8 target with a
/// D24S8 depth buffer cleared to 1.
fn draw(
    st: &PipelineState,
    vs: &[TV],
    textures: &[Option<&Texture>; 16],
    pixel: Option<(&Program, &BoundConstants)>,
    matching: bool,
) -> (Targets, DrawStats) {
    let stats = std::cell::Cell::new(DrawStats::default());
    let t = render_all(|r| {
        r.set_program_matching(matching);
        let mut t = Targets::new(W, W, Format::A8R8G8B8, Some(Format::D24S8));
        t.clear(r, BACKGROUND, 1.0, 0);
        let b = bytes(vs);
        let l = layout();
        let call = DrawCall::new(Topology::TriangleList, &b, &l, vs.len() as u32 / 3);
        let programs = Programs {
            vertex: VertexProgram::FixedFunction,
            pixel: match pixel {
                Some((program, constants)) => PixelProgram::Shader { program, constants },
                None => PixelProgram::FixedFunction,
            },
        };
        let mut rt = RenderTargets {
            color: &mut t.color,
            depth: t.depth.as_mut(),
            extra: Default::default(),
        };
        stats.set(
            r.draw_programs(&mut rt, st, &call, textures, &programs)
                .expect("draw"),
        );
        t
    });
    (t, stats.get())
}

/// Asserts every pixel of `a` and `b` is within `tol` per channel.
fn within(a: &Targets, b: &Targets, tol: u32, what: &str) {
    for y in 0..W {
        for x in 0..W {
            let (p, q) = (a.px(x, y), b.px(x, y));
            for k in 0..4 {
                let (cp, cq) = ((p >> (8 * k)) & 0xFF, (q >> (8 * k)) & 0xFF);
                assert!(
                    cp.abs_diff(cq) <= tol,
                    "{what} ({x}, {y}): {p:08X} vs {q:08X}"
                );
            }
        }
    }
}

/// Draws `program` matched, on the shader path, and `ff` (the equivalent
/// fixed-function state) with fixed function: the matched draw equals
/// fixed function byte for byte (it is that draw), is within one unit of
/// the shader path, and all three report the same counts. Returns the
/// matched and the shader-path targets.
fn compare(
    program: &str,
    st: &PipelineState,
    ff: &PipelineState,
    vs: &[TV],
    textures: &[Option<&Texture>; 16],
    ff_textures: &[Option<&Texture>; 16],
) -> (Targets, Targets) {
    let p = shader_program(program);
    assert!(p.pixel_kind().is_some(), "{program} has a kind");
    let c = shader_constants(&p, &[]);
    let (matched, ms) = draw(st, vs, textures, Some((&p, &c)), true);
    let (shader, ss) = draw(st, vs, textures, Some((&p, &c)), false);
    let (fixed, fs) = draw(ff, vs, ff_textures, None, true);
    assert!(
        matched.color.bytes() == fixed.color.bytes(),
        "{program}: matched ≠ fixed function"
    );
    assert!(matched.depth.as_ref().map(|d| d.bytes()) == fixed.depth.as_ref().map(|d| d.bytes()));
    within(&matched, &shader, 1, program);
    assert!(matched.depth.as_ref().map(|d| d.bytes()) == shader.depth.as_ref().map(|d| d.bytes()));
    assert_eq!(ms, fs, "{program}");
    assert_eq!(ms, ss, "{program}");
    assert!(ms.pixels_written > 200, "{program}: {ms:?}");
    (matched, shader)
}

/// Depth test LESS with writes (the fixed-function Gouraud + depth
/// kernel), vertex fog from the specular alpha when `fog`.
fn depth_state(fog: bool) -> PipelineState {
    let mut st = state();
    st.depth.z_enable = ZBufferType::True;
    st.depth.z_func = CmpFunc::Less;
    st.depth.z_write = true;
    st.fog.enable = fog;
    st.fog.color = 0xFF80_99B3;
    st
}

/// Stage 0 `op`(arg1, arg2) for colour and alpha, stage 1 disabled.
fn stage0(
    mut st: PipelineState,
    op: softhal_pipeline::stages::TextureOp,
    arg1: softhal_pipeline::stages::TextureArg,
    arg2: softhal_pipeline::stages::TextureArg,
) -> PipelineState {
    use softhal_pipeline::stages::{TextureArgument, TextureOp};
    let s = &mut st.textures.stages[0];
    s.color_op = op;
    s.alpha_op = op;
    s.color_arg1 = TextureArgument::new(arg1);
    s.alpha_arg1 = TextureArgument::new(arg1);
    s.color_arg2 = TextureArgument::new(arg2);
    s.alpha_arg2 = TextureArgument::new(arg2);
    st.textures.stages[1].color_op = TextureOp::Disable;
    st
}

use softhal_pipeline::stages::{TextureArg as Arg, TextureOp as Op};

const NONE: [Option<&Texture>; 16] = [None; 16];

#[test]
fn colour_kind_equals_selectarg1_diffuse() {
    for fog in [false, true] {
        let st = depth_state(fog);
        let ff = stage0(st, Op::SelectArg1, Arg::Diffuse, Arg::Diffuse);
        for program in [
            "ps_2_0\ndcl v0\nmov oC0, v0",
            "ps_1_1\nmov r0, v0",
            "ps_1_4\nmov r0, v0",
        ] {
            compare(program, &st, &ff, &gouraud(), &NONE, &NONE);
        }
    }
    // v1: SELECTARG1(SPECULAR).
    let st = depth_state(false);
    let ff = stage0(st, Op::SelectArg1, Arg::Specular, Arg::Specular);
    compare(
        "ps_2_0\ndcl v1\nmov oC0, v1",
        &st,
        &ff,
        &gouraud(),
        &NONE,
        &NONE,
    );
}

#[test]
fn flat_colour_and_fog_are_exact_on_both_paths() {
    let p = shader_program("ps_2_0\ndcl v0\nmov oC0, v0");
    let c = shader_constants(&p, &[]);
    // No fog: the colour itself, 0x80336699, at every pixel.
    // Fog factor 1 (specular alpha 0xFF): f·c + (1 − f)·fog = c.
    // Fog factor 0 (specular alpha 0): the fog colour's RGB 0x8099B3 with
    // the colour's alpha 0x80 (fog leaves alpha alone).
    for (fog, specular, want) in [
        (false, 0, 0x8033_6699u32),
        (true, 0xFF00_0000, 0x8033_6699),
        (true, 0, 0x8080_99B3),
    ] {
        let st = depth_state(fog);
        for matching in [true, false] {
            let (t, s) = draw(
                &st,
                &flat(0x8033_6699, specular),
                &NONE,
                Some((&p, &c)),
                matching,
            );
            assert_eq!(s.pixels_written, u64::from(W * W));
            for (x, y) in [(0, 0), (5, 17), (W - 1, W - 1)] {
                assert_eq!(
                    t.px(x, y),
                    want,
                    "fog {fog}, matching {matching} ({x}, {y})"
                );
            }
        }
    }
}

/// 2×2 A8R8G8B8 texture: (0, 0) 0xFF804020, (1, 0) 0xFFFFFFFF,
/// (0, 1) 0x00000000, (1, 1) 0x80FF0000.
fn small_texture() -> Texture {
    common::argb_texture(2, 2, &[0xFF80_4020, 0xFFFF_FFFF, 0x0000_0000, 0x80FF_0000])
}

/// 8×8 A8R8G8B8 texture of pseudo-random texels.
fn noise_texture() -> Texture {
    let mut t = Texture::new(TextureDesc {
        kind: TextureKind::Texture2D,
        format: TextureFormat::A8R8G8B8,
        width: 8,
        height: 8,
        depth: 1,
        levels: 1,
    })
    .expect("texture");
    let bytes = common::Rng(0x5EED_0015).bytes(8 * 8 * 4);
    t.upload(0, 0, &bytes, 32).expect("upload");
    t
}

fn point_sampled(mut st: PipelineState, stage: usize) -> PipelineState {
    st.textures.samplers[stage].mag_filter = TextureFilter::Point;
    st.textures.samplers[stage].min_filter = TextureFilter::Point;
    st
}

#[test]
fn texture_kinds_equal_selectarg1_and_modulate_texture() {
    let tex = noise_texture();
    let mut bound = NONE;
    bound[0] = Some(&tex);
    // Bilinear WRAP (the 8-bit filter of both paths) and point sampling,
    // with and without fog.
    for point in [false, true] {
        for fog in [false, true] {
            let mut st = depth_state(fog);
            if point {
                st = point_sampled(st, 0);
            }
            let sel = stage0(st, Op::SelectArg1, Arg::Texture, Arg::Current);
            for program in [
                "ps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0",
                "ps_1_1\ntex t0\nmov r0, t0",
                "ps_1_4\ntexld r0, t0",
            ] {
                compare(program, &st, &sel, &gouraud(), &bound, &bound);
            }
            let modulate = stage0(st, Op::Modulate, Arg::Texture, Arg::Diffuse);
            for program in [
                "ps_2_0\ndcl t0.xy\ndcl v0\ndcl_2d s0\ntexld r0, t0, s0\nmul r0, r0, v0\nmov oC0, r0",
                "ps_1_1\ntex t0\nmul r0, t0, v0",
                "ps_1_4\ntexld r0, t0\nmul r0, v0, r0",
            ] {
                compare(program, &st, &modulate, &gouraud(), &bound, &bound);
            }
        }
    }
}

#[test]
fn texels_and_modulated_texels_are_exact_on_both_paths() {
    let tex = small_texture();
    let mut bound = NONE;
    bound[0] = Some(&tex);
    let st = point_sampled(depth_state(false), 0);
    // u = (x + ½)/24: texel column 0 for x < 12, 1 from x = 12 (POINT:
    // floor(2u)); v likewise.
    // The texels of the quarters, top left, top right, bottom left,
    // bottom right.
    let texel = [0xFF80_4020u32, 0xFFFF_FFFF, 0x0000_0000, 0x80FF_0000];
    // Modulated by the diffuse 0x80808080 (128/255 on every channel):
    // round(t·128/255) per channel: 0xFF804020 → A 128, R round(64.25)
    // = 64, G round(32.13) = 32, B round(16.06) = 16: 0x80402010;
    // 0xFFFFFFFF → 0x80808080; 0 → 0; 0x80FF0000 → A round(64.25) = 64,
    // R 128: 0x40800000.
    let modulated = [0x8040_2010u32, 0x8080_8080, 0x0000_0000, 0x4080_0000];
    let cases = [
        (
            "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0",
            texel,
        ),
        ("ps_1_1\ntex t0\nmov r0, t0", texel),
        (
            "ps_2_0\ndcl t0\ndcl v0\ndcl_2d s0\ntexld r0, t0, s0\nmul oC0, r0, v0",
            modulated,
        ),
        ("ps_1_1\ntex t0\nmul r0, t0, v0", modulated),
    ];
    for (program, want) in cases {
        let p = shader_program(program);
        let c = shader_constants(&p, &[]);
        for matching in [true, false] {
            let (t, _) = draw(&st, &flat(0x8080_8080, 0), &bound, Some((&p, &c)), matching);
            for (x, y) in [(0, 0), (11, 3), (12, 0), (23, 11), (3, 12), (20, 20)] {
                assert_eq!(
                    t.px(x, y),
                    want[(x / 12 + 2 * (y / 12)) as usize],
                    "{program} matching {matching} ({x}, {y})"
                );
            }
        }
    }
}

#[test]
fn sampler_and_coordinate_set_are_the_programs() {
    // `texld r0, t1, s2`: the texture of stage 2 with its sampler state,
    // at coordinate set 1 — fixed-function stage 0 with that texture,
    // sampler and TEXCOORDINDEX 1.
    let tex = noise_texture();
    let mut bound = NONE;
    bound[2] = Some(&tex);
    let st = point_sampled(depth_state(false), 2);
    let mut ff = stage0(st, Op::Modulate, Arg::Texture, Arg::Diffuse);
    ff.textures.samplers[0] = st.textures.samplers[2];
    ff.textures.tex_coord_index[0].set = 1;
    let mut ff_bound = NONE;
    ff_bound[0] = Some(&tex);
    // Point sampling reads the same texel on both paths; the matched draw
    // (fixed function: the 8-bit filter and the 8-bit cascade's
    // `round(t·d/255)`) and the shader's float `mul` agree within the
    // one unit `compare` checks.
    compare(
        "ps_2_0\ndcl t1\ndcl v0\ndcl_2d s2\ntexld r0, t1, s2\nmul r0, r0, v0\nmov oC0, r0",
        &st,
        &ff,
        &gouraud(),
        &bound,
        &ff_bound,
    );
}

#[test]
fn near_misses_draw_what_the_shader_says() {
    let st = depth_state(false);
    let same_on_both_paths = |program: &str,
                              vs: &[TV],
                              st: &PipelineState,
                              textures: &[Option<&Texture>; 16],
                              float: &[[f32; 4]]| {
        let p = shader_program(program);
        let c = shader_constants(&p, float);
        let (on, _) = draw(st, vs, textures, Some((&p, &c)), true);
        let (off, _) = draw(st, vs, textures, Some((&p, &c)), false);
        assert!(on.color.bytes() == off.color.bytes(), "{program}");
        on
    };
    // A swizzle: oC0 = v0.bgra of 0xFF336699 (r 0x33, g 0x66, b 0x99)
    // is r 0x99, g 0x66, b 0x33.
    let t = same_on_both_paths(
        "ps_2_0\ndcl v0\nmov oC0, v0.bgra",
        &flat(0xFF33_6699, 0),
        &st,
        &NONE,
        &[],
    );
    assert_eq!(t.px(7, 7), 0xFF99_6633);
    // A constant: c0 = (0.2, 0.4, 0.6, 1) → 51, 102, 153 = 0x33, 0x66, 0x99.
    let t = same_on_both_paths(
        "ps_2_0\nmov oC0, c0",
        &flat(0xFFFF_FFFF, 0),
        &st,
        &NONE,
        &[[0.2, 0.4, 0.6, 1.0]],
    );
    assert_eq!(t.px(7, 7), 0xFF33_6699);
    // A sampler with no texture reads (0, 0, 0, 1) (the stage would be
    // skipped and pass the diffuse colour): opaque black.
    let t = same_on_both_paths(
        "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0",
        &flat(0xFF33_6699, 0),
        &st,
        &NONE,
        &[],
    );
    assert_eq!(t.px(7, 7), 0xFF00_0000);
    // D3DTTFF_PROJECTED on the set: ps_2_0 ignores it (the stage would
    // divide by the missing coordinate): the texel at (u, v) as given.
    let tex = small_texture();
    let mut bound = NONE;
    bound[0] = Some(&tex);
    let mut projected = point_sampled(st, 0);
    projected.textures.transform_flags[0].projected = true;
    projected.textures.transform_flags[0].count = 2;
    let t = same_on_both_paths(
        "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0",
        &flat(0xFFFF_FFFF, 0),
        &projected,
        &bound,
        &[],
    );
    // (3, 15): u = 3.5/24 < ½, v = 15.5/24 ≥ ½: texel (0, 1) = 0.
    assert_eq!(t.px(3, 15), 0x0000_0000);
    assert_eq!(t.px(15, 3), 0xFFFF_FFFF);
}

#[test]
fn ps_1_x_floating_point_texels_are_clamped_as_the_shader_says() {
    // A32B32G32R32F texel (16, 0, 0, 1); ps_1_x clamps the loaded texel to
    // [−8, 8] (MaxPixelShaderValue): r = 8 · 16/255 = 128/255 → 0x80,
    // where the fixed-function MODULATE would give 16 · 16/255 → 255.
    let mut tex = Texture::new(TextureDesc {
        kind: TextureKind::Texture2D,
        format: TextureFormat::A32B32G32R32F,
        width: 1,
        height: 1,
        depth: 1,
        levels: 1,
    })
    .expect("texture");
    let texel: Vec<u8> = [16.0f32, 0.0, 0.0, 1.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    tex.upload(0, 0, &texel, 16).expect("upload");
    let mut bound = NONE;
    bound[0] = Some(&tex);
    let st = depth_state(false);
    let p = shader_program("ps_1_1\ntex t0\nmul r0, t0, v0");
    let c = shader_constants(&p, &[]);
    for matching in [true, false] {
        let (t, _) = draw(&st, &flat(0xFF10_1010, 0), &bound, Some((&p, &c)), matching);
        assert_eq!(t.px(9, 9), 0xFF80_0000, "matching {matching}");
    }
}

#[test]
fn a_vertex_shader_feeding_a_colour_shader_draws_as_fixed_function() {
    // vs_1_1: oPos = v0 (clip space), oD0 = v1, oFog = v1.w; the W7 pixel
    // stage: `mov oC0, v0` with vertex fog from oFog.
    let vs = shader_program(
        "vs_1_1\ndcl_position v0\ndcl_color v1\nmov oPos, v0\nmov oD0, v1\nmov oFog, v1.w",
    );
    let vc = shader_constants(&vs, &[]);
    let inputs = [
        ShaderInput {
            register: 0,
            offset: 0,
            ty: DeclType::Float4,
        },
        ShaderInput {
            register: 1,
            offset: 16,
            ty: DeclType::D3dColor,
        },
    ];
    // Clip-space (x, y, z, 1) and a colour per vertex.
    let verts: [([f32; 4], u32); 3] = [
        ([-0.97, 0.95, 0.3, 1.0], 0xFFFF_2000),
        ([0.9, 0.7, 0.6, 1.0], 0x8000_FF40),
        ([-0.5, -0.92, 0.9, 1.0], 0x2010_20FF),
    ];
    let mut b = Vec::new();
    for (p, c) in verts {
        for f in p {
            b.extend_from_slice(&f.to_le_bytes());
        }
        b.extend_from_slice(&c.to_le_bytes());
    }
    let mut l = VertexLayout::packed(PositionKind::Xyz, false, false, &[]);
    l.stride = 20;
    let ps = shader_program("ps_2_0\ndcl v0\nmov oC0, v0");
    let pc = shader_constants(&ps, &[]);
    let mut st = depth_state(true);
    st.viewport.width = W;
    st.viewport.height = W;
    let run = |st: &PipelineState, pixel: PixelProgram<'_>, matching: bool| {
        render_all(|r: &mut Renderer| {
            r.set_program_matching(matching);
            let mut t = Targets::new(W, W, Format::A8R8G8B8, Some(Format::D24S8));
            t.clear(r, BACKGROUND, 1.0, 0);
            let call = DrawCall::new(Topology::TriangleList, &b, &l, 1);
            let programs = Programs {
                vertex: VertexProgram::Shader {
                    program: &vs,
                    constants: &vc,
                    inputs: &inputs,
                    textures: [None; 4],
                },
                pixel,
            };
            let mut rt = RenderTargets {
                color: &mut t.color,
                depth: t.depth.as_mut(),
                extra: Default::default(),
            };
            let s = r
                .draw_programs(&mut rt, st, &call, &NONE, &programs)
                .expect("draw");
            assert!(s.pixels_written > 150, "{s:?}");
            t
        })
    };
    let shader = PixelProgram::Shader {
        program: &ps,
        constants: &pc,
    };
    let matched = run(&st, shader, true);
    let on_shader_path = run(&st, shader, false);
    let ff = stage0(st, Op::SelectArg1, Arg::Diffuse, Arg::Diffuse);
    let fixed = run(&ff, PixelProgram::FixedFunction, true);
    assert!(matched.color.bytes() == fixed.color.bytes());
    within(&matched, &on_shader_path, 1, "vs_1_1 + ps_2_0");
}
