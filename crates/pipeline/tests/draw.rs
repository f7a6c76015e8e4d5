//! The shaded path through the full draw: textures, the stage cascade,
//! colour keys, fog, lighting and vertex blending rendered by
//! `Renderer::draw_textured`, with goldens (every scene rendered at 1, 2
//! and 4 threads and every SIMD level, bytes compared — see `common`) and
//! analytic checks at chosen pixels.
//!
//! Tolerances: goldens are exact (all paths are deterministic); analytic
//! checks of float paths (lighting, fog, bilinear through the cascade)
//! allow ±1 per 8-bit channel (float → 8-bit rounding of the reference
//! formula), point sampling and the textured fast path are exact.

mod common;

use common::{check_golden, render_all, Targets};
use softhal_pipeline::cascade::{TextureArg as S, TextureArgument, TextureOp as Op};
use softhal_pipeline::fog::FogMode;
use softhal_pipeline::lighting::{Light, LightType, Material};
use softhal_pipeline::texture::{
    ColorKey, ColorKeyMode, Texture, TextureAddress as A, TextureDesc, TextureFilter as Fl,
    TextureFormat as F, TextureKind,
};
use softhal_pipeline::vertex_blend::VertexBlend;
use softhal_pipeline::{
    Blend, DrawCall, DrawStats, Format, Matrix, PipelineState, PositionKind, RenderTargets,
    Renderer, Topology, VertexLayout, ZBufferType,
};

/// A pre-transformed textured vertex.
#[derive(Clone, Copy)]
struct TV {
    x: f32,
    y: f32,
    z: f32,
    rhw: f32,
    diffuse: u32,
    specular: u32,
    uv: [f32; 2],
}

fn tv(x: f32, y: f32, diffuse: u32, u: f32, v: f32) -> TV {
    TV {
        x,
        y,
        z: 0.5,
        rhw: 1.0,
        diffuse,
        specular: 0xFF00_0000,
        uv: [u, v],
    }
}

fn tlayout() -> VertexLayout {
    VertexLayout::packed(PositionKind::Xyzrhw, true, true, &[2])
}

fn tbytes(vs: &[TV]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in vs {
        for f in [v.x, v.y, v.z, v.rhw] {
            out.extend_from_slice(&f.to_le_bytes());
        }
        out.extend_from_slice(&v.diffuse.to_le_bytes());
        out.extend_from_slice(&v.specular.to_le_bytes());
        for f in v.uv {
            out.extend_from_slice(&f.to_le_bytes());
        }
    }
    out
}

/// Two triangles covering the pixel rectangle [x0, x1) × [y0, y1) with
/// texture coordinates (u0, v0) – (u1, v1) at the corners.
#[allow(clippy::too_many_arguments)]
fn quad(x0: f32, y0: f32, x1: f32, y1: f32, c: [u32; 4], uv: [f32; 4]) -> Vec<TV> {
    let (a, b) = (x0 - 0.5, x1 - 0.5);
    let (ya, yb) = (y0 - 0.5, y1 - 0.5);
    let tl = tv(a, ya, c[0], uv[0], uv[1]);
    let tr = tv(b, ya, c[1], uv[2], uv[1]);
    let br = tv(b, yb, c[2], uv[2], uv[3]);
    let bl = tv(a, yb, c[3], uv[0], uv[3]);
    vec![tl, tr, br, tl, br, bl]
}

fn draw(
    r: &mut Renderer,
    t: &mut Targets,
    st: &PipelineState,
    vs: &[TV],
    tex: &[Option<&Texture>],
) -> DrawStats {
    let b = tbytes(vs);
    let l = tlayout();
    let call = DrawCall::new(Topology::TriangleList, &b, &l, (vs.len() / 3) as u32);
    let mut bound = [None; 8];
    for (o, t) in bound.iter_mut().zip(tex) {
        *o = *t;
    }
    let mut rt = RenderTargets {
        color: &mut t.color,
        depth: t.depth.as_mut(),
        extra: Default::default(),
    };
    r.draw_textured(&mut rt, st, &call, &bound).expect("draw")
}

fn texture(format: F, w: u32, h: u32, bytes: &[u8], pitch: usize) -> Texture {
    let mut t = Texture::new(TextureDesc {
        kind: TextureKind::Texture2D,
        format,
        width: w,
        height: h,
        depth: 1,
        levels: 1,
    })
    .expect("texture");
    t.upload(0, 0, bytes, pitch).expect("upload");
    t
}

/// 4 × 4 A8R8G8B8 texture with distinct texels.
fn tex4() -> Texture {
    let mut b = Vec::new();
    for y in 0..4u32 {
        for x in 0..4u32 {
            let c = (0x40 + 0x30 * y) << 24 | (x * 80) << 16 | (y * 80) << 8 | (255 - x * 60);
            b.extend_from_slice(&c.to_le_bytes());
        }
    }
    texture(F::A8R8G8B8, 4, 4, &b, 16)
}

fn texel4(x: u32, y: u32) -> u32 {
    (0x40 + 0x30 * y) << 24 | (x * 80) << 16 | (y * 80) << 8 | (255 - x * 60)
}

fn base_state() -> PipelineState {
    let mut st = common::state();
    st.textures.samplers[0].mag_filter = Fl::Point;
    st.textures.samplers[0].min_filter = Fl::Point;
    st
}

fn set_stage(st: &mut PipelineState, op: Op, a1: S, a2: S, aop: Op) {
    let s = &mut st.textures.stages[0];
    s.color_op = op;
    s.color_arg1 = TextureArgument::new(a1);
    s.color_arg2 = TextureArgument::new(a2);
    s.color_arg0 = TextureArgument::new(S::TFactor);
    s.alpha_op = aop;
    s.alpha_arg1 = TextureArgument::new(a1);
    s.alpha_arg2 = TextureArgument::new(a2);
    s.alpha_arg0 = TextureArgument::new(S::TFactor);
}

const CORNERS: [u32; 4] = [0xFFFF_4020, 0x8020_FF40, 0xC040_20FF, 0x40FF_FFFF];

fn argb_close(a: u32, b: u32, tol: i32) -> bool {
    a.to_le_bytes()
        .iter()
        .zip(b.to_le_bytes())
        .all(|(x, y)| (i32::from(*x) - i32::from(y)).abs() <= tol)
}

#[test]
fn every_texture_op_golden() {
    let ops: Vec<Op> = (2..=26).filter_map(Op::from_d3d).collect();
    let tex = tex4();
    let t = render_all(|r| {
        let mut t = Targets::new(112, 64, Format::A8R8G8B8, None);
        t.clear(r, 0xFF10_1010, 1.0, 0);
        for (i, op) in ops.iter().enumerate() {
            let mut st = base_state();
            st.textures.texture_factor = 0x8040_C080;
            set_stage(&mut st, *op, S::Texture, S::Diffuse, *op);
            if matches!(op, Op::BumpEnvMap | Op::BumpEnvMapLuminance) {
                st.textures.stages[0].bump_env_mat = [[0.5, 0.0], [0.0, 0.5]];
            }
            let (x, y) = ((i % 7) as f32 * 16.0, (i / 7) as f32 * 16.0);
            let vs = quad(x, y, x + 16.0, y + 16.0, CORNERS, [0.0, 0.0, 1.0, 1.0]);
            draw(r, &mut t, &st, &vs, &[Some(&tex)]);
        }
        t
    });
    check_golden("p2_texture_ops", &t.color);
}

#[test]
fn argument_modifiers_and_selectors_golden() {
    let tex = tex4();
    let args: Vec<TextureArgument> = [
        0u32,
        1,
        2,
        3,
        4,
        6,
        0x10 | 2,
        0x20 | 2,
        0x30 | 2,
        0x10,
        0x20 | 3,
    ]
    .iter()
    .filter_map(|v| TextureArgument::from_d3d(*v))
    .collect();
    let t = render_all(|r| {
        let mut t = Targets::new(96, 32, Format::A8R8G8B8, None);
        t.clear(r, 0xFF00_0000, 1.0, 0);
        for (i, a) in args.iter().enumerate() {
            let mut st = base_state();
            st.textures.texture_factor = 0xC030_A0F0;
            st.textures.stages[0].constant = [0.2, 0.4, 0.6, 0.8];
            set_stage(
                &mut st,
                Op::SelectArg1,
                S::Texture,
                S::Diffuse,
                Op::SelectArg1,
            );
            st.textures.stages[0].color_arg1 = *a;
            st.textures.stages[0].alpha_arg1 = *a;
            // Second stage: modulate with TEMP/CURRENT through RESULTARG.
            let (x, y) = ((i % 6) as f32 * 16.0, (i / 6) as f32 * 16.0);
            let vs = quad(x, y, x + 16.0, y + 16.0, CORNERS, [0.0, 0.0, 1.0, 1.0]);
            draw(r, &mut t, &st, &vs, &[Some(&tex)]);
        }
        t
    });
    check_golden("p2_texture_args", &t.color);
}

#[test]
fn address_modes_and_filters_golden() {
    let tex = tex4();
    let modes = [A::Wrap, A::Mirror, A::Clamp, A::Border, A::MirrorOnce];
    let t = render_all(|r| {
        let mut t = Targets::new(120, 48, Format::A8R8G8B8, None);
        t.clear(r, 0xFF00_0000, 1.0, 0);
        for (row, filter) in [Fl::Point, Fl::Linear].iter().enumerate() {
            for (i, m) in modes.iter().enumerate() {
                let mut st = base_state();
                set_stage(
                    &mut st,
                    Op::SelectArg1,
                    S::Texture,
                    S::Diffuse,
                    Op::SelectArg1,
                );
                let sm = &mut st.textures.samplers[0];
                sm.address_u = *m;
                sm.address_v = *m;
                sm.border_color = 0xFF00_FF00;
                sm.mag_filter = *filter;
                sm.min_filter = *filter;
                let (x, y) = (i as f32 * 24.0, row as f32 * 24.0);
                let vs = quad(
                    x,
                    y,
                    x + 24.0,
                    y + 24.0,
                    [0xFFFF_FFFF; 4],
                    [-1.0, -1.0, 2.0, 2.0],
                );
                draw(r, &mut t, &st, &vs, &[Some(&tex)]);
            }
        }
        t
    });
    check_golden("p2_address_modes", &t.color);
}

#[test]
fn texture_formats_golden() {
    // 4 × 4 textures in a few formats, sampled point.
    let mut texs = Vec::new();
    let r5g6b5: Vec<u8> = (0..16u16).flat_map(|i| (i * 4099).to_le_bytes()).collect();
    texs.push(texture(F::R5G6B5, 4, 4, &r5g6b5, 8));
    let a4: Vec<u8> = (0..16u16)
        .flat_map(|i| ((i * 4369) ^ 0x0F0F).to_le_bytes())
        .collect();
    texs.push(texture(F::A4R4G4B4, 4, 4, &a4, 8));
    let l8: Vec<u8> = (0..16u8).map(|i| i * 17).collect();
    texs.push(texture(F::L8, 4, 4, &l8, 4));
    let x8: Vec<u8> = (0..16u32)
        .flat_map(|i| (i * 0x0F_0D0B).to_le_bytes())
        .collect();
    texs.push(texture(F::X8R8G8B8, 4, 4, &x8, 16));
    let t = render_all(|r| {
        let mut t = Targets::new(64, 16, Format::A8R8G8B8, None);
        t.clear(r, 0xFF00_0000, 1.0, 0);
        for (i, tex) in texs.iter().enumerate() {
            let mut st = base_state();
            set_stage(
                &mut st,
                Op::SelectArg1,
                S::Texture,
                S::Diffuse,
                Op::SelectArg1,
            );
            let x = i as f32 * 16.0;
            let vs = quad(
                x,
                0.0,
                x + 16.0,
                16.0,
                [0xFFFF_FFFF; 4],
                [0.0, 0.0, 1.0, 1.0],
            );
            draw(r, &mut t, &st, &vs, &[Some(tex)]);
        }
        t
    });
    check_golden("p2_texture_formats", &t.color);
}

/// A texel fetched at known pixels through the whole draw path.
#[test]
fn texel_at_known_pixels_point_and_bilinear() {
    let tex = tex4();
    // 16 × 16 quad mapping [0, 1]²: pixel (px, py) has u = (px + 0.5)/16.
    for filter in [Fl::Point, Fl::Linear] {
        let t = render_all(|r| {
            let mut t = Targets::new(16, 16, Format::A8R8G8B8, None);
            let mut st = base_state();
            set_stage(
                &mut st,
                Op::SelectArg1,
                S::Texture,
                S::Diffuse,
                Op::SelectArg1,
            );
            st.textures.samplers[0].mag_filter = filter;
            st.textures.samplers[0].min_filter = filter;
            let vs = quad(0.0, 0.0, 16.0, 16.0, [0xFFFF_FFFF; 4], [0.0, 0.0, 1.0, 1.0]);
            draw(r, &mut t, &st, &vs, &[Some(&tex)]);
            t
        });
        for (px, py) in [(0u32, 0u32), (5, 9), (10, 3), (15, 15), (6, 6)] {
            let got = t.px(px, py);
            let (u, v) = ((px as f32 + 0.5) / 16.0, (py as f32 + 0.5) / 16.0);
            let want = if filter == Fl::Point {
                texel4((u * 4.0) as u32, (v * 4.0) as u32)
            } else {
                // Bilinear, WRAP, 8-bit fractions (sampler conventions).
                let q = |c: f32| {
                    let q = (c * 4.0 * 256.0 - 128.0).floor() as i64;
                    (q >> 8, (q & 255) as f32 / 256.0)
                };
                let ((x0, fx), (y0, fy)) = (q(u), q(v));
                let t = |x: i64, y: i64| texel4(x.rem_euclid(4) as u32, y.rem_euclid(4) as u32);
                let ch = |c: u32, s: u32| ((c >> s) & 255) as f32;
                let mut out = 0u32;
                for s in [0u32, 8, 16, 24] {
                    let top = ch(t(x0, y0), s) * (1.0 - fx) + ch(t(x0 + 1, y0), s) * fx;
                    let bot = ch(t(x0, y0 + 1), s) * (1.0 - fx) + ch(t(x0 + 1, y0 + 1), s) * fx;
                    out |= ((top * (1.0 - fy) + bot * fy).round() as u32) << s;
                }
                out
            };
            let tol = if filter == Fl::Point { 0 } else { 1 };
            assert!(
                argb_close(got, want, tol),
                "{filter:?} ({px}, {py}): got {got:08x}, want {want:08x}"
            );
        }
    }
}

/// The W3/W4 fast path (A8R8G8B8, bilinear, wrap, MODULATE, blend) agrees
/// with the generic float path within one unit, and is identical at
/// every thread count and SIMD level (render_all).
#[test]
fn textured_fast_path_matches_generic_path() {
    let mut b = Vec::new();
    for y in 0..32u32 {
        for x in 0..32u32 {
            let c = (128 + ((x + y) & 127)) << 24 | (x * 8) << 16 | (y * 8) << 8 | ((x ^ y) * 8);
            b.extend_from_slice(&c.to_le_bytes());
        }
    }
    let tex = texture(F::A8R8G8B8, 32, 32, &b, 128);
    let tex = &tex;
    let scene = |fast: bool, blend: bool| {
        render_all(move |r| {
            let mut t = Targets::new(70, 50, Format::A8R8G8B8, None);
            t.clear(r, 0xFF30_6090, 1.0, 0);
            let mut st = base_state();
            set_stage(&mut st, Op::Modulate, S::Texture, S::Diffuse, Op::Modulate);
            st.textures.samplers[0].mag_filter = Fl::Linear;
            st.textures.samplers[0].min_filter = Fl::Linear;
            if blend {
                st.blend.enable = true;
                st.blend.src = Blend::SrcAlpha;
                st.blend.dst = Blend::InvSrcAlpha;
            }
            if !fast {
                // TFACTOR white as arg2 of a second MODULATE: same colour,
                // but the cascade is no longer the fast-path shape.
                st.textures.stages[1].color_op = Op::Modulate;
                st.textures.stages[1].color_arg1 = TextureArgument::new(S::Current);
                st.textures.stages[1].color_arg2 = TextureArgument::new(S::TFactor);
                st.textures.stages[1].alpha_op = Op::SelectArg1;
                st.textures.stages[1].alpha_arg1 = TextureArgument::new(S::Current);
            }
            let mut vs = quad(1.0, 2.0, 69.0, 47.0, CORNERS, [0.3, 0.1, 2.7, 1.9]);
            vs.extend(quad(-3.0, 10.0, 40.0, 30.0, CORNERS, [-0.7, 0.2, 0.8, 0.9]));
            draw(r, &mut t, &st, &vs, &[Some(tex)]);
            t
        })
    };
    for blend in [false, true] {
        let f = scene(true, blend);
        let g = scene(false, blend);
        for y in 0..50 {
            for x in 0..70 {
                let (a, b) = (f.px(x, y), g.px(x, y));
                assert!(
                    argb_close(a, b, 2),
                    "blend {blend} ({x}, {y}): {a:08x} vs {b:08x}"
                );
            }
        }
        if !blend {
            check_golden("p2_fast_modulate", &f.color);
        } else {
            check_golden("p2_fast_modulate_blend", &f.color);
        }
    }
}

#[test]
fn color_key_reject_and_blend() {
    let mut tex = tex4();
    tex.set_color_key(Some(ColorKey {
        low: texel4(1, 1),
        high: texel4(1, 1),
    }));
    for (mode, name) in [
        (ColorKeyMode::Reject, "p2_colorkey_reject"),
        (ColorKeyMode::Blend, "p2_colorkey_blend"),
    ] {
        let t = render_all(|r| {
            let mut t = Targets::new(16, 16, Format::A8R8G8B8, None);
            t.clear(r, 0xFF20_2020, 1.0, 0);
            let mut st = base_state();
            set_stage(
                &mut st,
                Op::SelectArg1,
                S::Texture,
                S::Diffuse,
                Op::SelectArg1,
            );
            st.textures.color_key = mode;
            let vs = quad(0.0, 0.0, 16.0, 16.0, [0xFFFF_FFFF; 4], [0.0, 0.0, 1.0, 1.0]);
            draw(r, &mut t, &st, &vs, &[Some(&tex)]);
            t
        });
        // Texel (1, 1) covers pixels 4..8 × 4..8.
        let inside = t.px(5, 5);
        if mode == ColorKeyMode::Reject {
            assert_eq!(inside, 0xFF20_2020, "rejected pixel keeps the clear colour");
        } else {
            assert_eq!(inside, 0, "keyed texel reads as transparent black");
        }
        assert_eq!(t.px(1, 1), texel4(0, 0));
        check_golden(name, &t.color);
    }
}

#[test]
fn fog_modes_golden_and_factors() {
    // Table fog on z (pre-transformed: z), vertex fog from the specular
    // alpha, each mode; a quad whose z runs 0 → 1 left to right.
    let modes = [FogMode::Linear, FogMode::Exp, FogMode::Exp2];
    let t = render_all(|r| {
        let mut t = Targets::new(64, 40, Format::A8R8G8B8, None);
        t.clear(r, 0xFF00_0000, 1.0, 0);
        for (i, m) in modes.iter().enumerate() {
            let mut st = base_state();
            st.fog.enable = true;
            st.fog.table_mode = *m;
            st.fog.color = 0xFF20_40E0;
            st.fog.start = 0.0;
            st.fog.end = 1.0;
            st.fog.density = 2.0;
            let y = i as f32 * 10.0;
            let mut vs = quad(0.0, y, 64.0, y + 10.0, [0xFFFF_C040; 4], [0.0; 4]);
            for v in vs.iter_mut() {
                v.z = (v.x + 0.5) / 64.0;
            }
            draw(r, &mut t, &st, &vs, &[]);
        }
        // Specular-alpha fog (FOGTABLEMODE = FOGVERTEXMODE = NONE).
        let mut st = base_state();
        st.fog.enable = true;
        st.fog.color = 0xFF20_40E0;
        let mut vs = quad(0.0, 30.0, 64.0, 40.0, [0xFFFF_C040; 4], [0.0; 4]);
        for v in vs.iter_mut() {
            let f = (1.0 - (v.x + 0.5) / 64.0) * 255.0;
            v.specular = (f.round() as u32) << 24;
        }
        draw(r, &mut t, &st, &vs, &[]);
        t
    });
    check_golden("p2_fog_modes", &t.color);
    // Fog factor at chosen depths: pixel x has z = (x + 0.5) / 64 (the
    // plane through the vertices at x = -0.5 and 63.5 gives exactly that
    // at pixel centres, up to float rounding).
    let fogged = |c: f32, fc: f32, f: f32| (f * c + (1.0 - f) * fc).round() as i32;
    for x in [0u32, 16, 31, 47, 63] {
        let z = (x as f32 + 0.5) / 64.0;
        for (row, f) in [
            (0u32, 1.0 - z),
            (1, (-2.0 * z).exp()),
            (2, (-(2.0 * z) * (2.0 * z)).exp()),
        ] {
            let got = t.px(x, row * 10 + 5).to_le_bytes();
            let want = [
                fogged(64.0, 224.0, f),
                fogged(192.0, 64.0, f),
                fogged(255.0, 32.0, f),
            ];
            for k in 0..3 {
                assert!(
                    (i32::from(got[k]) - want[k]).abs() <= 1,
                    "mode row {row} x {x} channel {k}: {got:?} vs {want:?}"
                );
            }
        }
    }
}

/// Untransformed vertex: position, normal, diffuse.
fn ubytes(vs: &[([f32; 3], [f32; 3], u32)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (p, n, c) in vs {
        for f in p.iter().chain(n.iter()) {
            out.extend_from_slice(&f.to_le_bytes());
        }
        out.extend_from_slice(&c.to_le_bytes());
    }
    out
}

fn ulayout() -> VertexLayout {
    VertexLayout {
        stride: 28,
        position: PositionKind::Xyz,
        position_offset: 0,
        blend_weights: None,
        normal: Some(12),
        point_size: None,
        diffuse: Some(24),
        specular: None,
        diffuse_type: softhal_pipeline::DeclType::D3dColor,
        specular_type: softhal_pipeline::DeclType::D3dColor,
        texcoords: [None; 8],
        position2: None,
        normal2: None,
    }
}

/// A square in the z = 0.5 plane covering clip space, normal `n`,
/// tessellated into 8 × 8 cells so that vertex lighting varies.
fn lit_quad(n: [f32; 3]) -> Vec<([f32; 3], [f32; 3], u32)> {
    let c = 0xFFFF_FFFF;
    let p = |i: u32, j: u32| ([i as f32 / 4.0 - 1.0, 1.0 - j as f32 / 4.0, 0.5], n, c);
    let mut v = Vec::new();
    for j in 0..8 {
        for i in 0..8 {
            v.extend([
                p(i, j),
                p(i + 1, j),
                p(i + 1, j + 1),
                p(i, j),
                p(i + 1, j + 1),
                p(i, j + 1),
            ]);
        }
    }
    v
}

fn light(kind: LightType) -> Light {
    Light {
        kind,
        diffuse: [1.0, 0.8, 0.6, 1.0],
        specular: [1.0, 1.0, 1.0, 1.0],
        ambient: [0.1, 0.1, 0.1, 1.0],
        position: [0.0, 0.0, -0.5],
        direction: [0.3, -0.2, 1.0],
        range: 100.0,
        falloff: 1.0,
        attenuation0: 1.0,
        attenuation1: 0.5,
        attenuation2: 0.0,
        theta: 0.6,
        phi: 1.4,
    }
}

fn lit_state(kind: LightType) -> PipelineState {
    let mut st = common::state();
    st.viewport.width = 32;
    st.viewport.height = 32;
    let l = &mut st.lighting;
    l.enable = true;
    l.lights[0] = light(kind);
    l.light_count = 1;
    l.material = Material {
        diffuse: [0.9, 0.9, 0.9, 1.0],
        ambient: [1.0, 1.0, 1.0, 1.0],
        specular: [0.5, 0.5, 0.5, 1.0],
        emissive: [0.0, 0.05, 0.1, 0.0],
        power: 8.0,
    };
    l.ambient = 0xFF10_1010;
    l.color_vertex = false;
    st.raster.specular_enable = true;
    st
}

fn draw_lit(r: &mut Renderer, t: &mut Targets, st: &PipelineState) {
    let vs = lit_quad([0.0, 0.0, -1.0]);
    let b = ubytes(&vs);
    let l = ulayout();
    let call = DrawCall::new(Topology::TriangleList, &b, &l, (vs.len() / 3) as u32);
    let mut rt = RenderTargets {
        color: &mut t.color,
        depth: t.depth.as_mut(),
        extra: Default::default(),
    };
    r.draw(&mut rt, st, &call).expect("draw");
}

#[test]
fn light_types_golden_and_equation() {
    for (kind, name) in [
        (LightType::Directional, "p2_light_directional"),
        (LightType::Point, "p2_light_point"),
        (LightType::Spot, "p2_light_spot"),
    ] {
        let st = lit_state(kind);
        let t = render_all(|r| {
            let mut t = Targets::new(32, 32, Format::A8R8G8B8, None);
            t.clear(r, 0xFF00_0000, 1.0, 0);
            draw_lit(r, &mut t, &st);
            t
        });
        check_golden(name, &t.color);
        // Grid vertices land exactly on pixel centres (clip (x, y) →
        // screen 16 + 16·x, pixel centres at integers): the pixel there
        // is the lighting equation (diffuse + specular) at that vertex.
        let ls = st.lighting.camera_space(&Matrix::IDENTITY);
        for (px, py, x, y) in [
            (16u32, 16u32, 0.0f32, 0.0f32),
            (8, 24, -0.5, -0.5),
            (24, 8, 0.5, 0.5),
        ] {
            let (d, s) = softhal_pipeline::lighting::light_vertex(
                [x, y, 0.5],
                [0.0, 0.0, -1.0],
                None,
                None,
                &ls,
            );
            let want = [0usize, 1, 2]
                .map(|c| ((d[c] * 255.0).round() + (s[c] * 255.0).round()).min(255.0) as i32);
            let got = t.px(px, py).to_le_bytes();
            let got = [got[2], got[1], got[0]].map(i32::from);
            for c in 0..3 {
                assert!(
                    (got[c] - want[c]).abs() <= 1,
                    "{name} ({px}, {py}): {got:?} vs {want:?}"
                );
            }
        }
    }
}

/// Normals go through the inverse transpose of World · View: with World =
/// scale(0.25, 1, 1), a facet whose object-space normal is (1, 0, −1) has
/// the camera-space normal (4, 0, −1)/√17, so a directional light shining
/// along +z lights it at 1/√17 (≈ 62 of 255). Transforming the normal by
/// World itself would give (0.25, 0, −1) and ≈ 247.
#[test]
fn non_uniform_scale_lights_through_the_inverse_transpose() {
    let mut st = common::state();
    st.viewport.width = 32;
    st.viewport.height = 32;
    st.transforms.world.0[0][0] = 0.25;
    let l = &mut st.lighting;
    l.enable = true;
    l.lights[0] = Light {
        diffuse: [1.0, 1.0, 1.0, 1.0],
        specular: [0.0; 4],
        ambient: [0.0; 4],
        direction: [0.0, 0.0, 1.0],
        ..light(LightType::Directional)
    };
    l.light_count = 1;
    l.material = Material {
        diffuse: [1.0, 1.0, 1.0, 1.0],
        ambient: [0.0; 4],
        specular: [0.0; 4],
        emissive: [0.0; 4],
        power: 0.0,
    };
    l.ambient = 0;
    l.color_vertex = false;
    l.normalize_normals = true;
    let vs = lit_quad([1.0, 0.0, -1.0]);
    let b = ubytes(&vs);
    let layout = ulayout();
    let t = render_all(|r| {
        let mut t = Targets::new(32, 32, Format::A8R8G8B8, None);
        t.clear(r, 0xFF00_0000, 1.0, 0);
        let call = DrawCall::new(Topology::TriangleList, &b, &layout, (vs.len() / 3) as u32);
        let mut rt = RenderTargets {
            color: &mut t.color,
            depth: None,
            extra: Default::default(),
        };
        r.draw(&mut rt, &st, &call).expect("draw");
        t
    });
    let want = (255.0 / 17f32.sqrt()).round() as i32;
    // The same through vertex blending (one weight, all on world 0; world
    // 1 would turn the normal away): blended normals use the inverse
    // transposes too.
    let mut blended = st;
    blended.vertex_blend.mode = VertexBlend::Weights1;
    blended.vertex_blend.worlds[0].0[0][0] = -1.0;
    let blayout = VertexLayout {
        stride: 32,
        blend_weights: Some((12, 1)),
        normal: Some(16),
        diffuse: Some(28),
        ..ulayout()
    };
    let mut bb = Vec::new();
    for (p, n, c) in &vs {
        for f in p.iter().chain([1.0f32].iter()).chain(n.iter()) {
            bb.extend_from_slice(&f.to_le_bytes());
        }
        bb.extend_from_slice(&c.to_le_bytes());
    }
    let tb = render_all(|r| {
        let mut t = Targets::new(32, 32, Format::A8R8G8B8, None);
        t.clear(r, 0xFF00_0000, 1.0, 0);
        let call = DrawCall::new(Topology::TriangleList, &bb, &blayout, (vs.len() / 3) as u32);
        let mut rt = RenderTargets {
            color: &mut t.color,
            depth: None,
            extra: Default::default(),
        };
        r.draw(&mut rt, &blended, &call).expect("draw");
        t
    });
    assert!(
        tb.color.bytes() == t.color.bytes(),
        "blended normals differ"
    );
    for (x, y) in [(16, 16), (14, 20), (17, 9)] {
        let px = t.px(x, y).to_le_bytes();
        for (c, v) in px.iter().take(3).enumerate() {
            assert!(
                (i32::from(*v) - want).abs() <= 1,
                "({x}, {y}) channel {c}: {v} vs {want}"
            );
        }
    }
}

/// TWEENING (VERTEXBLEND = 255): position = lerp(position, position2,
/// TWEENFACTOR) and normal = lerp(normal, normal2, TWEENFACTOR). A lit
/// point moves from screen (8, 8) to (24, 20) and its normal from (0, 0,
/// −1) to (2, 0, −1): at factor 0, 0.5, 1 it lights pixel (8, 8), (16, 14),
/// (24, 20) with N·L = 1, 1/√2, 1/√5 (NORMALIZENORMALS).
#[test]
fn tweening_positions_and_normals() {
    let layout = VertexLayout {
        stride: 52,
        position: PositionKind::Xyz,
        position_offset: 0,
        blend_weights: None,
        normal: Some(12),
        point_size: None,
        diffuse: Some(48),
        specular: None,
        diffuse_type: softhal_pipeline::DeclType::D3dColor,
        specular_type: softhal_pipeline::DeclType::D3dColor,
        texcoords: [None; 8],
        position2: Some(24),
        normal2: Some(36),
    };
    let mut b = Vec::new();
    for f in [
        -0.5f32, 0.5, 0.5, 0.0, 0.0, -1.0, 0.5, -0.25, 0.5, 2.0, 0.0, -1.0,
    ] {
        b.extend_from_slice(&f.to_le_bytes());
    }
    b.extend_from_slice(&0xFFFF_FFFFu32.to_le_bytes());
    let mut st = common::state();
    st.viewport.width = 32;
    st.viewport.height = 32;
    let l = &mut st.lighting;
    l.enable = true;
    l.lights[0] = Light {
        diffuse: [1.0, 1.0, 1.0, 1.0],
        specular: [0.0; 4],
        ambient: [0.0; 4],
        direction: [0.0, 0.0, 1.0],
        ..light(LightType::Directional)
    };
    l.light_count = 1;
    l.material = Material {
        diffuse: [1.0, 1.0, 1.0, 1.0],
        ambient: [0.0; 4],
        specular: [0.0; 4],
        emissive: [0.0; 4],
        power: 0.0,
    };
    l.ambient = 0;
    l.color_vertex = false;
    l.normalize_normals = true;
    let draw_at = |st: &PipelineState| {
        render_all(|r| {
            let mut t = Targets::new(32, 32, Format::A8R8G8B8, None);
            t.clear(r, 0xFF00_0000, 1.0, 0);
            let call = DrawCall::new(Topology::PointList, &b, &layout, 1);
            let mut rt = RenderTargets {
                color: &mut t.color,
                depth: None,
                extra: Default::default(),
            };
            let s = r.draw(&mut rt, st, &call).expect("draw");
            assert_eq!(s.pixels_written, 1);
            t
        })
    };
    for (factor, (x, y), n_dot_l) in [
        (0.0f32, (8u32, 8u32), 1.0f32),
        (0.5, (16, 14), 0.5f32.sqrt()),
        (1.0, (24, 20), 0.2f32.sqrt()),
    ] {
        let mut s = st;
        s.vertex_blend.mode = VertexBlend::Tweening;
        s.vertex_blend.tween_factor = factor;
        let t = draw_at(&s);
        let want = (255.0 * n_dot_l).round() as i32;
        let got = i32::from(t.px(x, y).to_le_bytes()[1]);
        assert!((got - want).abs() <= 1, "factor {factor}: {got} vs {want}");
    }
    // Without TWEENING the first position and normal are used.
    let t = draw_at(&st);
    assert_eq!(t.px(8, 8), 0xFFFF_FFFF);
}

#[test]
fn vertex_blending_golden() {
    // Two matrices: world 0 = identity, world 1 = shift right by 0.5;
    // weight 0 runs 1 → 0 left to right, bending the quad.
    let mut st = common::state();
    st.viewport.width = 32;
    st.viewport.height = 32;
    st.vertex_blend.mode = VertexBlend::Weights1;
    let mut m = Matrix::IDENTITY;
    m.0[3] = [0.5, -0.25, 0.0, 1.0];
    st.vertex_blend.worlds[0] = m;
    let layout = VertexLayout {
        stride: 20,
        position: PositionKind::Xyz,
        position_offset: 0,
        blend_weights: Some((12, 1)),
        normal: None,
        point_size: None,
        diffuse: Some(16),
        specular: None,
        diffuse_type: softhal_pipeline::DeclType::D3dColor,
        specular_type: softhal_pipeline::DeclType::D3dColor,
        texcoords: [None; 8],
        position2: None,
        normal2: None,
    };
    let mut b = Vec::new();
    let p = |b: &mut Vec<u8>, x: f32, y: f32, w: f32, c: u32| {
        for f in [x, y, 0.5, w] {
            b.extend_from_slice(&f.to_le_bytes());
        }
        b.extend_from_slice(&c.to_le_bytes());
    };
    let (tl, tr, br, bl) = (
        (-0.9, 0.9, 1.0, 0xFFFF_0000),
        (0.4, 0.9, 0.0, 0xFF00_FF00),
        (0.4, -0.9, 0.0, 0xFF00_00FF),
        (-0.9, -0.9, 1.0, 0xFFFF_FFFF),
    );
    for v in [tl, tr, br, tl, br, bl] {
        p(&mut b, v.0, v.1, v.2, v.3);
    }
    let t = render_all(|r| {
        let mut t = Targets::new(32, 32, Format::A8R8G8B8, None);
        t.clear(r, 0xFF00_0000, 1.0, 0);
        let call = DrawCall::new(Topology::TriangleList, &b, &layout, 2);
        let mut rt = RenderTargets {
            color: &mut t.color,
            depth: None,
            extra: Default::default(),
        };
        r.draw(&mut rt, &st, &call).expect("draw");
        t
    });
    check_golden("p2_vertex_blend", &t.color);
    // The right edge (weight 0: world 1) moved by 0.5 clip units = 8
    // pixels, from x = 22.4 to 30.4: pixel (27, 10) is covered only when
    // blended.
    assert_ne!(t.px(27, 10) & 0xFF_FFFF, 0);
    assert_eq!(t.px(31, 10) & 0xFF_FFFF, 0);
}

#[test]
fn depth_test_with_textures_and_fog_deterministic() {
    // Textures + fog + depth + alpha test + blending together (generic
    // full path), checked for determinism by render_all and pinned.
    let tex = tex4();
    let t = render_all(|r| {
        let mut t = Targets::new(48, 48, Format::A8R8G8B8, Some(Format::D24S8));
        t.clear(r, 0xFF00_0000, 1.0, 0);
        let mut st = base_state();
        st.depth.z_enable = ZBufferType::True;
        st.alpha_test.enable = true;
        st.alpha_test.func = softhal_pipeline::CmpFunc::Greater;
        st.alpha_test.reference = 0x50;
        st.blend.enable = true;
        st.blend.src = Blend::SrcAlpha;
        st.blend.dst = Blend::InvSrcAlpha;
        st.fog.enable = true;
        st.fog.table_mode = FogMode::Linear;
        st.fog.color = 0xFF80_8080;
        set_stage(&mut st, Op::Modulate, S::Texture, S::Diffuse, Op::Modulate);
        st.textures.samplers[0].mag_filter = Fl::Linear;
        st.textures.samplers[0].min_filter = Fl::Linear;
        let mut vs = quad(0.0, 0.0, 40.0, 40.0, CORNERS, [0.0, 0.0, 2.0, 2.0]);
        // Perspective: rhw varies.
        for (i, v) in vs.iter_mut().enumerate() {
            v.rhw = [1.0, 0.5, 0.25, 1.0, 0.25, 0.5][i];
            v.z = [0.2, 0.5, 0.9, 0.2, 0.9, 0.6][i];
        }
        vs.extend(quad(
            8.0,
            8.0,
            48.0,
            48.0,
            [0xFF80_80FF; 4],
            [0.0, 0.0, 1.0, 1.0],
        ));
        draw(r, &mut t, &st, &vs, &[Some(&tex)]);
        t
    });
    check_golden("p2_combined_perspective", &t.color);
}

/// Fog from the specular alpha fused into the colour + 24-bit depth
/// kernel (the W5 case) agrees with the generic full path (forced here
/// with a D32 depth buffer, which neither the fused kernel nor the 8-lane
/// output merger covers) within one unit.
#[test]
fn fused_fog_matches_full_path() {
    let scene = |depth: Format| {
        render_all(move |r| {
            let mut t = Targets::new(40, 30, Format::A8R8G8B8, Some(depth));
            t.clear(r, 0xFF00_0000, 1.0, 0);
            let mut st = common::state();
            st.depth.z_enable = ZBufferType::True;
            st.depth.z_func = softhal_pipeline::CmpFunc::LessEqual;
            st.fog.enable = true;
            st.fog.color = 0xFF80_99B3;
            for (k, c) in [
                CORNERS,
                [0xFF10_2030, 0xFFFF_FFFF, 0xFF00_FF00, 0xFF80_4020],
            ]
            .iter()
            .enumerate()
            {
                let mut vs = quad(0.0, 0.0, 40.0, 30.0, *c, [0.0; 4]);
                for (i, v) in vs.iter_mut().enumerate() {
                    v.z = 0.8 - 0.1 * k as f32;
                    v.specular = [0x10u32, 0xF0, 0x80, 0x10, 0x80, 0x40][i] << 24 | 0x0011_2233;
                }
                draw(r, &mut t, &st, &vs, &[]);
            }
            t
        })
    };
    let fused = scene(Format::D24S8);
    let full = scene(Format::D32);
    for y in 0..30 {
        for x in 0..40 {
            let (a, b) = (fused.px(x, y), full.px(x, y));
            assert!(argb_close(a, b, 1), "({x}, {y}): {a:08x} vs {b:08x}");
        }
    }
    check_golden("p2_fog_fused", &fused.color);
}

/// Fog from the specular alpha with no depth test (the colour kernel
/// with fused fog) and on the float path (forced with a D32 buffer), by
/// hand: diffuse 0xFF806040, factor 0x40 = 64, fog colour 0xFF0000FF:
/// red round(128·64 / 255) = round(32.13) = 32, green round(96·64 / 255)
/// = round(24.09) = 24, blue round((64·64 + 255·191) / 255) =
/// round(207.06) = 207, alpha kept: 0xFF2018CF. An X8R8G8B8 target
/// stores its X byte as 0 (and reads back opaque).
#[test]
fn vertex_fog_without_depth_by_hand() {
    for (format, depth, top) in [
        (Format::A8R8G8B8, None, 0xFF),
        (Format::X8R8G8B8, None, 0),
        (Format::A8R8G8B8, Some(Format::D32), 0xFF),
    ] {
        let t = render_all(|r| {
            let mut t = Targets::new(40, 30, format, depth);
            t.clear(r, 0xFF00_0000, 1.0, 0);
            let mut st = common::state();
            st.fog.enable = true;
            st.fog.color = 0xFF00_00FF;
            if depth.is_some() {
                st.depth.z_enable = ZBufferType::True;
                st.depth.z_func = softhal_pipeline::CmpFunc::Always;
            }
            let mut vs = quad(0.0, 0.0, 40.0, 30.0, [0xFF80_6040; 4], [0.0; 4]);
            for v in &mut vs {
                v.specular = 0x4000_0000;
            }
            draw(r, &mut t, &st, &vs, &[]);
            t
        });
        for y in 0..30 {
            for x in 0..40 {
                assert_eq!(t.px(x, y), 0xFF20_18CF, "({x}, {y}) {format:?} {depth:?}");
            }
        }
        assert_eq!(t.color.bytes()[..4], [0xCF, 0x18, 0x20, top]);
    }
}

/// Fog with blending and a depth test (the particles of every game):
/// an identity cascade fogged, SRCALPHA/INVSRCALPHA over black, depth
/// LESSEQUAL without writes, on D24S8 (the colour + depth kernel fogs
/// and blends; with an alpha test GREATER 0x10, which every pixel
/// passes, the 8-lane output merger's span loop) and D32 (the float
/// path), by hand. Diffuse 0x80806040,
/// factor 64 (vertex fog: the specular alpha 0x40; table fog LINEAR from
/// 0 to 1 at z = 0.75: round(0.25·255) = round(63.75) = 64), fog colour
/// 0xFF0000FF: the fogged colour is R 32, G 24, B 207, A 128 (see
/// `vertex_fog_without_depth_by_hand`); blended over 0xFF000000 with
/// round(x / 255) as `(x + 127) / 255`: R (32·128 + 127) / 255 = 16, G
/// (24·128 + 127) / 255 = 12, B (207·128 + 127) / 255 = 104, A
/// (128·128 + 255·127 + 127) / 255 = 191: 0xBF100C68 where z = 0.75
/// passes against the cleared 0.8; where z = 0.85 fails, the clear
/// colour stays.
#[test]
fn fog_blend_depth_by_hand() {
    for (table, atest) in [(false, false), (true, false), (false, true), (true, true)] {
        for depth in [Format::D24S8, Format::D32] {
            let t = render_all(|r| {
                let mut t = Targets::new(40, 30, Format::A8R8G8B8, Some(depth));
                t.clear(r, 0xFF00_0000, 0.8, 0);
                let mut st = common::state();
                st.fog.enable = true;
                st.fog.color = 0xFF00_00FF;
                if table {
                    st.fog.table_mode = FogMode::Linear;
                    st.fog.start = 0.0;
                    st.fog.end = 1.0;
                }
                st.depth.z_enable = ZBufferType::True;
                st.depth.z_func = softhal_pipeline::CmpFunc::LessEqual;
                st.depth.z_write = false;
                st.blend.enable = true;
                st.blend.src = Blend::SrcAlpha;
                st.blend.dst = Blend::InvSrcAlpha;
                if atest {
                    st.alpha_test.enable = true;
                    st.alpha_test.func = softhal_pipeline::CmpFunc::Greater;
                    st.alpha_test.reference = 0x10;
                }
                let mut vs = quad(0.0, 0.0, 20.0, 30.0, [0x8080_6040; 4], [0.0; 4]);
                vs.extend(quad(20.0, 0.0, 40.0, 30.0, [0x8080_6040; 4], [0.0; 4]));
                for (i, v) in vs.iter_mut().enumerate() {
                    v.specular = 0x4000_0000;
                    v.z = if i < 6 { 0.75 } else { 0.85 };
                }
                draw(r, &mut t, &st, &vs, &[]);
                t
            });
            for y in 0..30 {
                for x in 0..40 {
                    let want = if x < 20 { 0xBF10_0C68 } else { 0xFF00_0000 };
                    let at = format!("({x}, {y}) table {table} alpha test {atest} {depth:?}");
                    assert_eq!(t.px(x, y), want, "{at}");
                }
            }
        }
    }
}

/// A `w × h` A8R8G8B8 texture of one colour.
fn solid(w: u32, h: u32, argb: u32) -> Texture {
    let b: Vec<u8> = (0..w * h).flat_map(|_| argb.to_le_bytes()).collect();
    texture(F::A8R8G8B8, w, h, &b, 4 * w as usize)
}

/// The DX7 surface of W10 (`docs/benchmarks.md`): stage 0 MODULATE(TEXTURE,
/// DIFFUSE) with SELECTARG1(TEXTURE) alpha, stage 1 MODULATE2X(TEXTURE,
/// CURRENT) from coordinate set 0, bilinear WRAP, SPECULARENABLE, vertex
/// fog, alpha test GREATER `aref`. With a D32 depth buffer (test ALWAYS;
/// a format the 8-lane output merger does not cover) the draw leaves the
/// 8-bit cascade for the float path.
fn dx7_surface_state(aref: u32) -> PipelineState {
    let mut st = common::state();
    for s in 0..2 {
        st.textures.samplers[s].mag_filter = Fl::Linear;
        st.textures.samplers[s].min_filter = Fl::Linear;
    }
    let s0 = &mut st.textures.stages[0];
    s0.color_op = Op::Modulate;
    s0.color_arg1 = TextureArgument::new(S::Texture);
    s0.color_arg2 = TextureArgument::new(S::Diffuse);
    s0.alpha_op = Op::SelectArg1;
    s0.alpha_arg1 = TextureArgument::new(S::Texture);
    let s1 = &mut st.textures.stages[1];
    s1.color_op = Op::Modulate2x;
    s1.color_arg1 = TextureArgument::new(S::Texture);
    s1.color_arg2 = TextureArgument::new(S::Current);
    s1.alpha_op = Op::SelectArg1;
    s1.alpha_arg1 = TextureArgument::new(S::Current);
    st.textures.tex_coord_index[1].set = 0;
    st.raster.specular_enable = true;
    st.fog.enable = true;
    st.fog.color = 0xFF00_00FF;
    st.alpha_test.enable = true;
    st.alpha_test.func = softhal_pipeline::CmpFunc::Greater;
    st.alpha_test.reference = aref;
    st.depth.z_enable = ZBufferType::True;
    st.depth.z_func = softhal_pipeline::CmpFunc::Always;
    st
}

/// The 8-bit cascade of a DX7 surface, worked out by hand: colour map
/// texel 0x80C04020, light map 0xFF808080, diffuse white, specular
/// 0x80102030 (fog factor 128/255), fog colour blue. Stage 0: the texel;
/// stage 1: 2·t·128/255 → R 192.75, G 64.25, B 32.13; specular added →
/// 0.8187, 0.3775, 0.3142 (×255: 208.75, 96.25, 80.13); fogged, f·c +
/// (1 − f)·fog → 104.8, 48.3, 167.2 → 0x80 69 30 A7, alpha the texel's
/// 0x80. GREATER 0x7F passes, GREATER 0x80 rejects (the clear colour
/// stays). Both the 8-bit cascade (no depth buffer) and the float path (a
/// D32 buffer) give these bytes.
#[test]
fn dx7_surface_by_hand() {
    let (map, light) = (solid(2, 2, 0x80C0_4020), solid(2, 2, 0xFF80_8080));
    for (aref, want) in [(0x7F, 0x8069_30A7), (0x80, 0xFF10_1010)] {
        for depth in [None, Some(Format::D32)] {
            let t = render_all(|r| {
                let mut t = Targets::new(8, 4, Format::A8R8G8B8, depth);
                t.clear(r, 0xFF10_1010, 1.0, 0);
                let mut vs = quad(0.0, 0.0, 8.0, 4.0, [0xFFFF_FFFF; 4], [0.1, 0.2, 1.7, 0.9]);
                for v in &mut vs {
                    v.specular = 0x8010_2030;
                }
                draw(
                    r,
                    &mut t,
                    &dx7_surface_state(aref),
                    &vs,
                    &[Some(&map), Some(&light)],
                );
                t
            });
            for y in 0..4 {
                for x in 0..8 {
                    let got = t.px(x, y);
                    assert_eq!(got, want, "({x}, {y}) aref {aref:#x} depth {depth:?}");
                }
            }
        }
    }
}

/// The 8-bit cascade agrees with the float path within two units per
/// channel (each 8-bit product is within half a unit, the 8-bit bilinear
/// texel within one; MODULATE2X doubles stage 0's error) on gradients of
/// every input: bilinear texels between distinct values, Gouraud diffuse
/// and specular, a fog factor from 0x10 to 0xF0.
#[test]
fn dx7_surface_cascade8_matches_float_path() {
    let map = tex4();
    let mut lb = Vec::new();
    for y in 0..4u32 {
        for x in 0..4u32 {
            let g = 64 + ((x * 37 + y * 51) & 127);
            lb.extend_from_slice(&(0xFF00_0000 | g << 16 | g << 8 | g).to_le_bytes());
        }
    }
    let light = texture(F::A8R8G8B8, 4, 4, &lb, 16);
    let (map, light) = (&map, &light);
    let scene = |depth: Option<Format>| {
        render_all(move |r| {
            let mut t = Targets::new(40, 30, Format::A8R8G8B8, depth);
            t.clear(r, 0xFF00_0000, 1.0, 0);
            let mut vs = quad(0.0, 0.0, 40.0, 30.0, CORNERS, [0.05, 0.1, 2.3, 1.7]);
            for (i, v) in vs.iter_mut().enumerate() {
                v.specular = [0x10u32, 0xF0, 0x80, 0x10, 0x80, 0x40][i] << 24 | 0x0011_2233;
            }
            draw(
                r,
                &mut t,
                &dx7_surface_state(0x50),
                &vs,
                &[Some(map), Some(light)],
            );
            t
        })
    };
    let (fixed, float) = (scene(None), scene(Some(Format::D32)));
    for y in 0..30 {
        for x in 0..40 {
            let (a, b) = (fixed.px(x, y), float.px(x, y));
            assert!(argb_close(a, b, 2), "({x}, {y}): {a:08x} vs {b:08x}");
        }
    }
}

/// A texture of `format` (32- or 16-bit) with a pattern of distinct
/// texels, `w × h`.
fn pattern_texture(format: F, w: u32, h: u32) -> Texture {
    let mut b = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let c = x.wrapping_mul(0x9E37_79B9)
                ^ y.wrapping_mul(0x85EB_CA6B)
                ^ (x * y).wrapping_mul(0x27D4_EB2F);
            if format == F::A8R8G8B8 || format == F::X8R8G8B8 {
                b.extend_from_slice(&c.to_le_bytes());
            } else {
                b.extend_from_slice(&((c >> 16) as u16).to_le_bytes());
            }
        }
    }
    let bpt = if format == F::A8R8G8B8 || format == F::X8R8G8B8 {
        4
    } else {
        2
    };
    texture(format, w, h, &b, w as usize * bpt)
}

/// The other shapes of the 8-bit filter on the textured fast path
/// (stage 0 MODULATE(TEXTURE, DIFFUSE), blending off and on) and on the
/// 8-bit cascade (with an alpha test): POINT and
/// LINEAR, WRAP, CLAMP and MIRROR, 32- and 16-bit texels, against the
/// float path (a D32 depth buffer, test ALWAYS, which the 8-lane merger does not cover, takes it) on a 7 × 5
/// texture stretched over coordinates −0.4..1.6 (so every edge is
/// crossed). POINT reads the float sampler's texel, so only the
/// modulation's rounding differs: within one unit; LINEAR's texel is
/// within one unit too: within two; blending adds one rounding (one unit
/// more); with the alpha test, a pixel whose alpha is within that of the
/// reference may be kept on one path only. Most pixels are equal.
#[test]
fn filter8_shapes_match_float_path() {
    let formats = [
        F::A8R8G8B8,
        F::X8R8G8B8,
        F::R5G6B5,
        F::X1R5G5B5,
        F::A1R5G5B5,
        F::A4R4G4B4,
    ];
    for format in formats {
        let tex = pattern_texture(format, 7, 5);
        let tex = &tex;
        // (POINT, address mode, blending, alpha test: the 8-bit cascade)
        for (point, mode, blend, atest) in [
            (true, A::Wrap, false, false),
            (true, A::Clamp, true, false),
            (true, A::Mirror, false, true),
            (false, A::Wrap, true, false),
            (false, A::Clamp, false, true),
            (false, A::Mirror, true, false),
        ] {
            let scene = |depth: Option<Format>| {
                render_all(move |r| {
                    let mut t = Targets::new(40, 30, Format::A8R8G8B8, depth);
                    t.clear(r, 0xFF30_6090, 1.0, 0);
                    let mut st = base_state();
                    set_stage(&mut st, Op::Modulate, S::Texture, S::Diffuse, Op::Modulate);
                    let sm = &mut st.textures.samplers[0];
                    let f = if point { Fl::Point } else { Fl::Linear };
                    (sm.mag_filter, sm.min_filter) = (f, f);
                    (sm.address_u, sm.address_v) = (mode, mode);
                    if blend {
                        st.blend.enable = true;
                        st.blend.src = Blend::SrcAlpha;
                        st.blend.dst = Blend::InvSrcAlpha;
                    }
                    if atest {
                        st.alpha_test.enable = true;
                        st.alpha_test.func = softhal_pipeline::CmpFunc::Greater;
                        st.alpha_test.reference = 0x40;
                    }
                    st.depth.z_enable = ZBufferType::True;
                    st.depth.z_func = softhal_pipeline::CmpFunc::Always;
                    let vs = quad(0.0, 0.0, 40.0, 30.0, CORNERS, [-0.4, -0.3, 1.6, 1.45]);
                    draw(r, &mut t, &st, &vs, &[Some(tex)]);
                    t
                })
            };
            let (fixed, float) = (scene(None), scene(Some(Format::D32)));
            // Blending rounds once more: one unit more.
            let tol = if point { 1 } else { 2 } + i32::from(blend);
            let mut equal = 0;
            for y in 0..30 {
                for x in 0..40 {
                    let (a, b) = (fixed.px(x, y), float.px(x, y));
                    // An alpha within the tolerance of the reference may
                    // pass on one path only (the clear colour stays).
                    let edge = |p: u32| (i64::from(p >> 24) - 0x40).abs() <= i64::from(tol);
                    let flipped =
                        atest && (a == 0xFF30_6090 && edge(b) || b == 0xFF30_6090 && edge(a));
                    assert!(
                        flipped || argb_close(a, b, tol),
                        "{format:?} point {point} {mode:?} blend {blend} atest {atest} ({x}, {y}): {a:08x} vs {b:08x}"
                    );
                    equal += usize::from(a == b);
                }
            }
            assert!(
                equal * 2 > 40 * 30,
                "{format:?} {point} {mode:?}: {equal} equal"
            );
        }
    }
}

/// No texture stage, the colour the diffuse one (stage 0 SELECTARG1
/// DIFFUSE), with what the 8-bit cascade adds to it. Worked out by hand:
/// diffuse 0xFF804020, specular 0x40102030 (fog factor 64/255), fog
/// colour blue. Specular added: R 0x80 + 0x10 = 144, G 0x40 + 0x20 = 96,
/// B 0x20 + 0x30 = 80; fogged, (c·64 + fog·191) / 255: R 9216 / 255 =
/// 36.1 → 0x24, G 6144 / 255 = 24.1 → 0x18, B (5120 + 48705) / 255 =
/// 211.1 → 0xD3; alpha 0xFF. Without specular and fog, an alpha test
/// GREATER 0x7F passes the diffuse alpha 0x80 and GREATER 0x80 rejects it
/// (the clear colour stays). The cascade (no depth buffer) and the float
/// path (a D32 buffer, test ALWAYS) give these bytes.
#[test]
fn no_stage_cascade_by_hand() {
    // (specular and fog, alpha test reference, expected pixel)
    let cases = [
        (true, None, 0xFF24_18D3),
        (false, Some(0x7F), 0x8080_4020),
        (false, Some(0x80), 0xFF10_1010),
    ];
    for (spec_fog, aref, want) in cases {
        for depth in [None, Some(Format::D32)] {
            let t = render_all(|r| {
                let mut t = Targets::new(8, 4, Format::A8R8G8B8, depth);
                t.clear(r, 0xFF10_1010, 1.0, 0);
                let colour = if spec_fog { 0xFF80_4020 } else { 0x8080_4020 };
                let mut vs = quad(0.0, 0.0, 8.0, 4.0, [colour; 4], [0.0; 4]);
                for v in &mut vs {
                    v.specular = 0x4010_2030;
                }
                let mut st = common::state();
                let s0 = &mut st.textures.stages[0];
                s0.color_op = Op::SelectArg1;
                s0.color_arg1 = TextureArgument::new(S::Diffuse);
                s0.alpha_op = Op::SelectArg1;
                s0.alpha_arg1 = TextureArgument::new(S::Diffuse);
                st.raster.specular_enable = spec_fog;
                st.fog.enable = spec_fog;
                st.fog.color = 0xFF00_00FF;
                if let Some(a) = aref {
                    st.alpha_test.enable = true;
                    st.alpha_test.func = softhal_pipeline::CmpFunc::Greater;
                    st.alpha_test.reference = a;
                }
                st.depth.z_enable = ZBufferType::True;
                st.depth.z_func = softhal_pipeline::CmpFunc::Always;
                draw(r, &mut t, &st, &vs, &[]);
                t
            });
            for y in 0..4 {
                for x in 0..8 {
                    let got = t.px(x, y);
                    assert_eq!(got, want, "({x}, {y}) {spec_fog} {aref:?} depth {depth:?}");
                }
            }
        }
    }
}

/// With no texture stage the 8-bit cascade (specular add, vertex fog,
/// alpha test) agrees with the float path within one unit per channel
/// (each step is within half a unit) on Gouraud diffuse and specular and
/// a fog factor from 0x10 to 0xF0.
#[test]
fn no_stage_cascade_matches_float_path() {
    let scene = |depth: Option<Format>| {
        render_all(move |r| {
            let mut t = Targets::new(40, 30, Format::A8R8G8B8, depth);
            t.clear(r, 0xFF00_0000, 1.0, 0);
            let mut vs = quad(0.0, 0.0, 40.0, 30.0, CORNERS, [0.0; 4]);
            for (i, v) in vs.iter_mut().enumerate() {
                v.specular = [0x10u32, 0xF0, 0x80, 0x10, 0x80, 0x40][i] << 24 | 0x0011_2233;
            }
            let mut st = dx7_surface_state(0x50);
            st.textures.stages[0].color_op = Op::Disable;
            draw(r, &mut t, &st, &vs, &[]);
            t
        })
    };
    let (fixed, float) = (scene(None), scene(Some(Format::D32)));
    for y in 0..30 {
        for x in 0..40 {
            let (a, b) = (fixed.px(x, y), float.px(x, y));
            assert!(argb_close(a, b, 1), "({x}, {y}): {a:08x} vs {b:08x}");
        }
    }
}

/// Stage 0 MODULATE(TEXTURE, DIFFUSE) for colour and alpha, bilinear.
fn modulate_state() -> PipelineState {
    let mut st = common::state();
    set_stage(&mut st, Op::Modulate, S::Texture, S::Diffuse, Op::Modulate);
    st.textures.samplers[0].mag_filter = Fl::Linear;
    st.textures.samplers[0].min_filter = Fl::Linear;
    st
}

/// SRCALPHA/INVSRCALPHA blending.
fn vertex_alpha_blend(st: &mut PipelineState) {
    st.blend.enable = true;
    st.blend.src = Blend::SrcAlpha;
    st.blend.dst = Blend::InvSrcAlpha;
}

/// Draws `quads` (each a rectangle, its depth and corner colours) with
/// `st` and `tex` into a 40 × 30 target of `cf`, twice: with the depth
/// buffer `df` (the 8-bit cascade ending in the 8-lane output merger) and
/// with a D32 buffer (not covered by that merger: the float path), both
/// cleared to 0xFF204060 and depth 1. Every pixel of the two agrees
/// within `tol` per 8-bit channel, and so does the number of pixels
/// written.
fn cascade8_merger_vs_float(
    cf: Format,
    df: Option<Format>,
    st: &PipelineState,
    tex: &[Option<&Texture>],
    quads: &[([f32; 4], f32, [u32; 4])],
    tol: i32,
) {
    let scene = |depth: Option<Format>| {
        let written = std::cell::Cell::new(0);
        let t = render_all(|r| {
            let mut t = Targets::new(40, 30, cf, depth);
            t.clear(r, 0xFF20_4060, 1.0, 0);
            written.set(0);
            for &([x0, y0, x1, y1], z, c) in quads {
                let mut vs = quad(x0, y0, x1, y1, c, [0.05, 0.1, 2.3, 1.7]);
                for (i, v) in vs.iter_mut().enumerate() {
                    v.z = z;
                    v.specular = [0x10u32, 0xF0, 0x80, 0x10, 0x80, 0x40][i] << 24 | 0x0011_2233;
                }
                let n = draw(r, &mut t, st, &vs, tex).pixels_written;
                written.set(written.get() + n);
            }
            t
        });
        (t, written.get())
    };
    let ((fixed, n8), (float, nf)) = (scene(df), scene(Some(Format::D32)));
    assert_eq!(n8, nf, "pixels written");
    let mut same = 0;
    for y in 0..30 {
        for x in 0..40 {
            let (a, b) = (fixed.px(x, y), float.px(x, y));
            assert!(argb_close(a, b, tol), "({x}, {y}): {a:08x} vs {b:08x}");
            same += usize::from(a == b);
        }
    }
    // Most pixels are the same bytes; the rest within `tol`.
    assert!(same >= 40 * 30 / 4, "{same} identical pixels");
}

/// Two overlapping quads, the second one behind the first.
const OVERLAP: [([f32; 4], f32, [u32; 4]); 2] = [
    ([0.0, 0.0, 24.0, 30.0], 0.3, CORNERS),
    (
        [10.0, 4.0, 40.0, 26.0],
        0.6,
        [0xFF80_8080, 0x80FF_FFFF, 0xC080_FF40, 0x4040_80FF],
    ),
];

/// The 8-bit cascade ending in the 8-lane output merger agrees with the
/// float path: texture MODULATE with a depth test (LESSEQUAL on D24S8),
/// within two units (the 8-bit bilinear texel is within one unit of the
/// float sampler's, each rounding within half), and the pixels behind
/// the first quad keep its bytes on both paths (same written count).
#[test]
fn cascade8_depth_test_matches_float_path() {
    let tex = tex4();
    let mut st = modulate_state();
    st.depth.z_enable = ZBufferType::True;
    st.depth.z_func = softhal_pipeline::CmpFunc::LessEqual;
    let d24 = Some(Format::D24S8);
    cascade8_merger_vs_float(Format::A8R8G8B8, d24, &st, &[Some(&tex)], &OVERLAP, 2);
    // Blending on top (the textured fast path takes blending only
    // without a depth test), and D16.
    vertex_alpha_blend(&mut st);
    cascade8_merger_vs_float(Format::A8R8G8B8, d24, &st, &[Some(&tex)], &OVERLAP, 2);
    st.depth.z_write = false;
    let d16 = Some(Format::D16);
    cascade8_merger_vs_float(Format::X8R8G8B8, d16, &st, &[Some(&tex)], &OVERLAP, 2);
}

/// The cascade into 16-bit targets agrees with the float path within one
/// 5-bit step (9 units once decoded: a one-unit difference before
/// encoding may cross a step): MODULATE on R5G6B5, and two textures
/// blended on A1R5G5B5.
#[test]
fn cascade8_sixteen_bit_targets_match_float_path() {
    let tex = tex4();
    let st = modulate_state();
    cascade8_merger_vs_float(Format::R5G6B5, None, &st, &[Some(&tex)], &OVERLAP, 9);
    let mut st = dx7_surface_state(0x20);
    st.fog.enable = false;
    st.raster.specular_enable = false;
    st.depth.z_func = softhal_pipeline::CmpFunc::LessEqual;
    vertex_alpha_blend(&mut st);
    let light = solid(4, 4, 0xFF90_A0B0);
    let tex = [Some(&tex), Some(&light)];
    cascade8_merger_vs_float(
        Format::A1R5G5B5,
        Some(Format::D24X8),
        &st,
        &tex,
        &OVERLAP,
        9,
    );
}

/// Particles (no texture; vertex fog, SRCALPHA/INVSRCALPHA blending, a
/// depth test without depth writes) through the cascade and the merger
/// agree with the float path within one unit (the 8-bit fog blend is
/// within half a unit).
#[test]
fn cascade8_particles_match_float_path() {
    let mut st = common::state();
    st.fog.enable = true;
    st.fog.color = 0xFF80_99B3;
    vertex_alpha_blend(&mut st);
    st.depth.z_enable = ZBufferType::True;
    st.depth.z_func = softhal_pipeline::CmpFunc::LessEqual;
    st.depth.z_write = false;
    cascade8_merger_vs_float(Format::A8R8G8B8, Some(Format::D24S8), &st, &[], &OVERLAP, 1);
}

/// The cascade ending in the merger, worked out by hand: texel 0x80C04020
/// modulated by white diffuse is the texel, (B, G, R, A) = (32, 64, 192,
/// 128); SRCALPHA/INVSRCALPHA over 0xFF204060 (96, 64, 32, 255): B
/// (32·128 + 96·127) / 255 = 16 288 / 255 = 63.9 → 64, G 64·255 / 255 = 64, R
/// (192·128 + 32·127) / 255 = 28 640 / 255 = 112.3 → 112, A (128·128 +
/// 255·127) / 255 = 48 769 / 255 = 191.2 → 191: 0xBF704040. The left
/// half, drawn first at z = 0.25, rejects the quad at z = 0.5 (LESSEQUAL)
/// and keeps 0xFF204060. On R5G6B5 without blending, texel 0xFF808080
/// modulated by diffuse 0xFFFF8040 is R 128, G 128·128 / 255 = 64.25 →
/// 64, B 128·64 / 255 = 32.1 → 32, encoded 16 << 11 | 16 << 5 | 4 =
/// 0x8204, read back as R (16·255 + 15) / 31 = 132, G (16·255 + 31) / 63
/// = 65, B (4·255 + 15) / 31 = 33: 0xFF844121. The cascade and the float
/// path (D32) give these bytes.
#[test]
fn cascade8_merger_by_hand() {
    let map = solid(2, 2, 0x80C0_4020);
    for depth in [Format::D24S8, Format::D32] {
        let t = render_all(|r| {
            let mut t = Targets::new(8, 4, Format::A8R8G8B8, Some(depth));
            t.clear(r, 0xFF20_4060, 1.0, 0);
            let mut st = modulate_state();
            st.depth.z_enable = ZBufferType::True;
            st.depth.z_func = softhal_pipeline::CmpFunc::LessEqual;
            let mut left = quad(0.0, 0.0, 4.0, 4.0, [0xFF20_4060; 4], [0.0; 4]);
            for v in &mut left {
                v.z = 0.25;
            }
            let mut plain = common::state();
            plain.depth = st.depth;
            draw(r, &mut t, &plain, &left, &[]);
            vertex_alpha_blend(&mut st);
            let vs = quad(0.0, 0.0, 8.0, 4.0, [0xFFFF_FFFF; 4], [0.1, 0.2, 1.7, 0.9]);
            draw(r, &mut t, &st, &vs, &[Some(&map)]);
            t
        });
        for y in 0..4 {
            for x in 0..8 {
                let want = if x < 4 { 0xFF20_4060 } else { 0xBF70_4040 };
                assert_eq!(t.px(x, y), want, "({x}, {y}) {depth:?}");
            }
        }
    }
    let grey = solid(2, 2, 0xFF80_8080);
    for depth in [None, Some(Format::D32)] {
        let t = render_all(|r| {
            let mut t = Targets::new(8, 4, Format::R5G6B5, depth);
            t.clear(r, 0, 1.0, 0);
            let mut st = modulate_state();
            st.depth.z_enable = ZBufferType::True;
            st.depth.z_func = softhal_pipeline::CmpFunc::Always;
            let vs = quad(0.0, 0.0, 8.0, 4.0, [0xFFFF_8040; 4], [0.1, 0.2, 1.7, 0.9]);
            draw(r, &mut t, &st, &vs, &[Some(&grey)]);
            t
        });
        for y in 0..4 {
            for x in 0..8 {
                assert_eq!(t.px(x, y), 0xFF84_4121, "({x}, {y}) {depth:?}");
            }
        }
    }
}

/// Table fog through the 8-bit cascade, worked out by hand from the
/// D3D formulas: diffuse (R, G, B) = (255, 100, 0), fog colour blue, a
/// quad at one depth z (pre-transformed vertices: table fog reads z).
/// Pixel = f·colour + (1 − f)·fog, each channel rounded:
/// * LINEAR, FOGSTART 0.25, FOGEND 0.75, f = (end − z) / (end − start):
///   z = 0.35 → f = 0.8 → (204, 80, 51); z = 0.55 → f = 0.4 → (102, 40,
///   153);
/// * EXP, f = 1 / e^(density·z): density 1, z = 0.5 → f = 0.6065 →
///   (154.7, 60.7, 100.3) → (155, 61, 100); density 1.5, z = 0.8 → f =
///   0.3012 → (76.8, 30.1, 178.2) → (77, 30, 178);
/// * EXP2, f = 1 / e^((density·z)²): density 2, z = 0.5 → f = 0.3679 →
///   (93.8, 36.8, 161.2) → (94, 37, 161); z = 0.25 → f = 0.7788 →
///   (198.6, 77.9, 56.4) → (199, 78, 56).
///
/// The cascade quantises f to a byte first (round(255·f): 204, 102, 155,
/// 77, 94, 199) and gives the same bytes here; so does the float path (a
/// D32 buffer, which the 8-lane merger does not cover).
#[test]
fn table_fog_by_hand() {
    let cases = [
        (FogMode::Linear, 1.0, 0.35, [204, 80, 51]),
        (FogMode::Linear, 1.0, 0.55, [102, 40, 153]),
        (FogMode::Exp, 1.0, 0.5, [155, 61, 100]),
        (FogMode::Exp, 1.5, 0.8, [77, 30, 178]),
        (FogMode::Exp2, 2.0, 0.5, [94, 37, 161]),
        (FogMode::Exp2, 2.0, 0.25, [199, 78, 56]),
    ];
    for (mode, density, z, [r, g, b]) in cases {
        let want = 0xFF00_0000 | r << 16 | g << 8 | b;
        for depth in [None, Some(Format::D32)] {
            let t = render_all(|rd| {
                let mut t = Targets::new(8, 4, Format::A8R8G8B8, depth);
                t.clear(rd, 0xFF10_1010, 1.0, 0);
                let mut st = common::state();
                st.fog.enable = true;
                st.fog.table_mode = mode;
                st.fog.color = 0xFF00_00FF;
                st.fog.start = 0.25;
                st.fog.end = 0.75;
                st.fog.density = density;
                st.depth.z_enable = ZBufferType::True;
                st.depth.z_func = softhal_pipeline::CmpFunc::Always;
                let mut vs = quad(0.0, 0.0, 8.0, 4.0, [0xFFFF_6400; 4], [0.0; 4]);
                for v in &mut vs {
                    v.z = z;
                }
                draw(rd, &mut t, &st, &vs, &[]);
                t
            });
            for y in 0..4 {
                for x in 0..8 {
                    let got = t.px(x, y);
                    assert_eq!(got, want, "({x}, {y}) {mode:?} z {z} depth {depth:?}");
                }
            }
        }
    }
}

/// Table fog of a textured draw (bilinear MODULATE, z from 0.05 to 0.95
/// across the quad, each mode) through the 8-bit cascade agrees with the
/// float path within two units per channel: the 8-bit bilinear texel and
/// the product are within one unit, and the fog factor quantised to a
/// byte moves the blend by at most half a unit (|f·255 − round(f·255)| ≤
/// ½ weighs |colour − fog| ≤ 255 by 1/255) before its own rounding.
#[test]
fn table_fog_cascade8_matches_float_path() {
    let tex = tex4();
    for mode in [FogMode::Linear, FogMode::Exp, FogMode::Exp2] {
        let scene = |depth: Option<Format>| {
            render_all(|r| {
                let mut t = Targets::new(40, 30, Format::A8R8G8B8, depth);
                t.clear(r, 0xFF00_0000, 1.0, 0);
                let mut st = modulate_state();
                st.fog.enable = true;
                st.fog.table_mode = mode;
                st.fog.color = 0xFF80_99B3;
                st.fog.start = 0.1;
                st.fog.end = 0.9;
                st.fog.density = 1.7;
                st.depth.z_enable = ZBufferType::True;
                st.depth.z_func = softhal_pipeline::CmpFunc::Always;
                let mut vs = quad(0.0, 0.0, 40.0, 30.0, CORNERS, [0.05, 0.1, 2.3, 1.7]);
                for v in &mut vs {
                    v.z = 0.05 + 0.9 * (v.x + 0.5) / 40.0;
                }
                draw(r, &mut t, &st, &vs, &[Some(&tex)]);
                t
            })
        };
        let (fixed, float) = (scene(None), scene(Some(Format::D32)));
        let mut same = 0;
        for y in 0..30 {
            for x in 0..40 {
                let (a, b) = (fixed.px(x, y), float.px(x, y));
                assert!(
                    argb_close(a, b, 2),
                    "{mode:?} ({x}, {y}): {a:08x} vs {b:08x}"
                );
                same += usize::from(a == b);
            }
        }
        assert!(same >= 40 * 30 / 4, "{mode:?}: {same} identical pixels");
    }
}

/// Stencil in the 8-lane output merger, textured (the 8-bit cascade ends
/// in it) and untextured (its span loop), against the generic paths
/// (forced with W-buffering, ZFUNC ALWAYS, no depth write: the same
/// stencil rules, a state the merger does not cover). Quad A, [0, 24) ×
/// [0, 30), STENCILFUNC ALWAYS, STENCILPASS INCR over a stencil cleared
/// to 0: 720 pixels written, stencil 1. Quad B, [10, 40) × [4, 26),
/// STENCILFUNC EQUAL 1, STENCILPASS INCR, STENCILFAIL REPLACE: it
/// passes only over A, [10, 24) × [4, 26) = 14 · 22 = 308 pixels
/// (written and counted by the occlusion query, stencil 2); its other
/// 30 · 22 − 308 = 352 pixels fail, are neither written nor counted,
/// and take REPLACE (stencil 1). Both paths give these counts and
/// stencil bytes; the colours agree within two units (textured: the
/// cascade against the float path) or exactly (untextured).
#[test]
fn stencil_in_the_merger_matches_generic_paths() {
    let tex = tex4();
    for textured in [true, false] {
        let scene = |w_buffer: bool| {
            let counts = std::cell::RefCell::new(Vec::new());
            let t = render_all(|r| {
                let mut t = Targets::new(40, 30, Format::A8R8G8B8, Some(Format::D24S8));
                t.clear(r, 0xFF20_4060, 1.0, 0);
                counts.borrow_mut().clear();
                let mut st = if textured {
                    modulate_state()
                } else {
                    common::state()
                };
                if w_buffer {
                    st.depth.z_enable = ZBufferType::UseW;
                    st.depth.z_func = softhal_pipeline::CmpFunc::Always;
                    st.depth.z_write = false;
                }
                st.stencil.enable = true;
                st.stencil.reference = 1;
                st.stencil.front.pass = softhal_pipeline::StencilOp::Incr;
                let bound = [Some(&tex)];
                let tex: &[Option<&Texture>] = if textured { &bound } else { &[] };
                for (k, &([x0, y0, x1, y1], _, c)) in OVERLAP.iter().enumerate() {
                    if k == 1 {
                        st.stencil.front.func = softhal_pipeline::CmpFunc::Equal;
                        st.stencil.front.fail = softhal_pipeline::StencilOp::Replace;
                    }
                    let vs = quad(x0, y0, x1, y1, c, [0.05, 0.1, 2.3, 1.7]);
                    let s = draw(r, &mut t, &st, &vs, tex);
                    counts
                        .borrow_mut()
                        .push((s.pixels_written, s.samples_passed_depth));
                }
                t
            });
            (t, counts.into_inner())
        };
        let ((merged, n8), (generic, ng)) = (scene(false), scene(true));
        assert_eq!(n8, [(720, 720), (308, 308)], "textured {textured}");
        assert_eq!(ng, n8, "textured {textured}");
        for y in 0..30 {
            for x in 0..40 {
                let s = |t: &Targets| t.depth.as_ref().and_then(|d| d.read_stencil(x, y));
                let in_a = x < 24;
                let in_b = (10..40).contains(&x) && (4..26).contains(&y);
                let want = match (in_a, in_b) {
                    (true, true) => 2,
                    (false, false) => 0,
                    _ => 1,
                };
                assert_eq!(s(&merged), Some(want), "({x}, {y}) textured {textured}");
                assert_eq!(s(&generic), Some(want), "({x}, {y}) textured {textured}");
                let (a, b) = (merged.px(x, y), generic.px(x, y));
                let tol = if textured { 2 } else { 0 };
                assert!(argb_close(a, b, tol), "({x}, {y}): {a:08x} vs {b:08x}");
            }
        }
    }
}
