//! Points and lines through the full draw path: point sizes (POINTSIZE,
//! per-vertex PSIZE, POINTSCALEENABLE with POINTSCALE_A/B/C, the
//! POINTSIZE_MIN/MAX clamp), points larger than a pixel as screen-aligned
//! squares under the top-left rule, point sprites (texture coordinates
//! (0, 0) top-left → (1, 1) bottom-right for every stage), and textured and
//! fogged lines and points. Every scene is rendered at 1, 2 and 4 threads
//! and every SIMD level with identical bytes (`common::render_all`); checks
//! are exact (point sampling, constant colours) or ±1 per channel where a
//! float path rounds.

mod common;

use common::{check_golden, render_all, state, Targets};
use softhal_pipeline::cascade::{TextureArg as S, TextureArgument, TextureOp as Op};
use softhal_pipeline::fog::FogMode;
use softhal_pipeline::texture::{
    Texture, TextureDesc, TextureFilter as Fl, TextureFormat as F, TextureKind,
};
use softhal_pipeline::{
    CmpFunc, DrawCall, DrawStats, Format, PipelineState, PositionKind, RenderTargets, Renderer,
    StencilOp, TexCoordElement, Topology, VertexLayout, ZBufferType,
};

/// A pre-transformed vertex with diffuse, specular (alpha = fog factor),
/// point size and one texture-coordinate pair.
#[derive(Clone, Copy)]
struct PV {
    x: f32,
    y: f32,
    diffuse: u32,
    specular: u32,
    psize: f32,
    uv: [f32; 2],
}

fn pv(x: f32, y: f32, diffuse: u32) -> PV {
    PV {
        x,
        y,
        diffuse,
        specular: 0xFF00_0000,
        psize: 1.0,
        uv: [0.0, 0.0],
    }
}

/// XYZRHW @0, PSIZE @16 (if `psize`), DIFFUSE, SPECULAR, TEX1 (2 floats).
fn layout(psize: bool) -> VertexLayout {
    let o = if psize { 4 } else { 0 };
    VertexLayout {
        stride: 36 + o,
        position: PositionKind::Xyzrhw,
        position_offset: 0,
        blend_weights: None,
        normal: None,
        point_size: psize.then_some(16),
        diffuse: Some(16 + o),
        specular: Some(20 + o),
        diffuse_type: softhal_pipeline::DeclType::D3dColor,
        specular_type: softhal_pipeline::DeclType::D3dColor,
        texcoords: [
            Some(TexCoordElement {
                offset: 24 + o,
                components: 2,
            }),
            None,
            None,
            None,
            None,
            None,
            None,
            None,
        ],
        position2: None,
        normal2: None,
    }
}

fn bytes(vs: &[PV], psize: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for v in vs {
        for f in [v.x, v.y, 0.5, 1.0] {
            out.extend_from_slice(&f.to_le_bytes());
        }
        if psize {
            out.extend_from_slice(&v.psize.to_le_bytes());
        }
        out.extend_from_slice(&v.diffuse.to_le_bytes());
        out.extend_from_slice(&v.specular.to_le_bytes());
        for f in v.uv {
            out.extend_from_slice(&f.to_le_bytes());
        }
        out.extend_from_slice(&0f32.to_le_bytes());
    }
    out
}

fn draw(
    r: &mut Renderer,
    t: &mut Targets,
    st: &PipelineState,
    topology: Topology,
    vs: &[PV],
    psize: bool,
    tex: Option<&Texture>,
) -> DrawStats {
    let b = bytes(vs, psize);
    let l = layout(psize);
    let n = common::prim_count(topology, vs.len());
    let call = DrawCall::new(topology, &b, &l, n);
    let mut bound = [None; 8];
    bound[0] = tex;
    let mut rt = RenderTargets {
        color: &mut t.color,
        depth: t.depth.as_mut(),
        extra: Default::default(),
    };
    r.draw_textured(&mut rt, st, &call, &bound).expect("draw")
}

fn texture(w: u32, h: u32, texels: &[u32]) -> Texture {
    common::argb_texture(w, h, texels)
}

const RED: u32 = 0xFFFF_0000;
const GREEN: u32 = 0xFF00_FF00;
const BLUE: u32 = 0xFF00_00FF;
const WHITE: u32 = 0xFFFF_FFFF;
const BACK: u32 = 0xFF10_2030;

/// 2 × 2 checker: red, green / blue, white.
fn checker() -> Texture {
    texture(2, 2, &[RED, GREEN, BLUE, WHITE])
}

/// Stage 0 shows the texture (point sampled).
fn textured_state() -> PipelineState {
    let mut st = state();
    let s = &mut st.textures.stages[0];
    s.color_op = Op::SelectArg1;
    s.color_arg1 = TextureArgument::new(S::Texture);
    s.alpha_op = Op::SelectArg1;
    s.alpha_arg1 = TextureArgument::new(S::Texture);
    st.textures.samplers[0].mag_filter = Fl::Point;
    st.textures.samplers[0].min_filter = Fl::Point;
    st
}

fn target() -> impl Fn(&mut Renderer) -> Targets {
    |r: &mut Renderer| {
        let mut t = Targets::new(32, 32, Format::A8R8G8B8, None);
        t.clear(r, BACK, 1.0, 0);
        t
    }
}

/// The pixels of `t` equal to `c`, as a sorted list.
fn pixels_of(t: &Targets, c: u32) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for y in 0..t.color.height() {
        for x in 0..t.color.width() {
            if t.px(x, y) == c {
                v.push((x, y));
            }
        }
    }
    v
}

fn square(x0: u32, y0: u32, n: u32) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for y in y0..y0 + n {
        for x in x0..x0 + n {
            v.push((x, y));
        }
    }
    v
}

#[test]
fn point_sprite_shows_the_checker_in_its_quadrants() {
    let tex = checker();
    let mut st = textured_state();
    st.point.size = 4.0;
    st.point.sprite_enable = true;
    let t = render_all(|r| {
        let mut t = target()(r);
        let mut p = pv(10.0, 10.0, WHITE);
        p.uv = [0.75, 0.25];
        let s = draw(r, &mut t, &st, Topology::PointList, &[p], false, Some(&tex));
        assert_eq!(s.pixels_written, 16);
        t
    });
    // The square [8, 12)²: u = (x − 10)/4 + ½, v likewise.
    assert_eq!(pixels_of(&t, RED), square(8, 8, 2));
    assert_eq!(pixels_of(&t, GREEN), square(10, 8, 2));
    assert_eq!(pixels_of(&t, BLUE), square(8, 10, 2));
    assert_eq!(pixels_of(&t, WHITE), square(10, 10, 2));
    // Without sprites the vertex's coordinates texture the whole point.
    st.point.sprite_enable = false;
    let t = render_all(|r| {
        let mut t = target()(r);
        let mut p = pv(10.0, 10.0, WHITE);
        p.uv = [0.75, 0.25];
        draw(r, &mut t, &st, Topology::PointList, &[p], false, Some(&tex));
        t
    });
    assert_eq!(pixels_of(&t, GREEN), square(8, 8, 4));
}

#[test]
fn sprites_and_lines_pick_the_mip_level_of_their_footprint() {
    // A 4 × 4 texture whose level 0 is red and level 1 (2 × 2) blue,
    // POINT mip filter: a 2-pixel sprite spans 4 texels (2 per pixel:
    // LOD 1, blue), an 8-pixel one 0.5 texel per pixel (LOD −1, red).
    let mut tex = Texture::new(TextureDesc {
        kind: TextureKind::Texture2D,
        format: F::A8R8G8B8,
        width: 4,
        height: 4,
        depth: 1,
        levels: 2,
    })
    .expect("texture");
    let level = |n: usize, c: u32| -> Vec<u8> { (0..n).flat_map(|_| c.to_le_bytes()).collect() };
    tex.upload(0, 0, &level(16, RED), 16).expect("level 0");
    tex.upload(0, 1, &level(4, BLUE), 8).expect("level 1");
    let mut st = textured_state();
    st.textures.samplers[0].mip_filter = Fl::Point;
    st.point.sprite_enable = true;
    let mut small = pv(6.0, 6.0, WHITE);
    small.psize = 2.0;
    let mut big = pv(20.0, 20.0, WHITE);
    big.psize = 8.0;
    let t = render_all(|r| {
        let mut t = target()(r);
        draw(
            r,
            &mut t,
            &st,
            Topology::PointList,
            &[small, big],
            true,
            Some(&tex),
        );
        t
    });
    assert_eq!(pixels_of(&t, BLUE), square(5, 5, 2));
    assert_eq!(pixels_of(&t, RED), square(16, 16, 8));
    // Lines take their derivatives along the major axis: 8 pixels over
    // u ∈ [0, 2) are one texel per pixel (LOD 0, red), over u ∈ [0, 4) two
    // (LOD 1, blue).
    st.raster.last_pixel = false;
    let line = |y: f32, u1: f32| {
        let (mut a, mut b) = (pv(2.0, y, WHITE), pv(10.0, y, WHITE));
        a.uv = [0.0, 0.5];
        b.uv = [u1, 0.5];
        [a, b]
    };
    let t = render_all(|r| {
        let mut t = target()(r);
        let vs = [line(3.0, 2.0), line(8.0, 4.0)].concat();
        draw(r, &mut t, &st, Topology::LineList, &vs, false, Some(&tex));
        t
    });
    assert!((2..10).all(|x| t.px(x, 3) == RED && t.px(x, 8) == BLUE));
}

#[test]
fn point_sizes_from_state_vertex_and_clamps() {
    let st0 = state();
    let count = |st: &PipelineState, vs: &[PV], psize: bool| {
        let t = render_all(|r| {
            let mut t = target()(r);
            draw(r, &mut t, st, Topology::PointList, vs, psize, None);
            t
        });
        pixels_of(&t, RED)
    };
    // POINTSIZE 5 around (20, 20): centres in [17.5, 22.5)².
    let mut st = st0;
    st.point.size = 5.0;
    assert_eq!(count(&st, &[pv(20.0, 20.0, RED)], false), square(18, 18, 5));
    // A per-vertex PSIZE wins over POINTSIZE.
    let mut p = pv(20.0, 20.0, RED);
    p.psize = 3.0;
    assert_eq!(count(&st, &[p], true), square(19, 19, 3));
    // Clamped to POINTSIZE_MAX, and up to POINTSIZE_MIN.
    let mut capped = st;
    capped.point.max = 2.0;
    assert_eq!(
        count(&capped, &[pv(20.0, 20.0, RED)], false),
        square(19, 19, 2)
    );
    let mut raised = st0;
    raised.point.min = 3.0;
    assert_eq!(
        count(&raised, &[pv(20.0, 20.0, RED)], false),
        square(19, 19, 3)
    );
    // Size 1 keeps the nearest-pixel rule.
    assert_eq!(count(&st0, &[pv(20.4, 19.6, RED)], false), vec![(20, 20)]);
    // Triangles in POINT fill mode draw their vertices as sized points.
    let mut fill = st0;
    fill.raster.fill_mode = softhal_pipeline::FillMode::Point;
    fill.point.size = 2.0;
    let t = render_all(|r| {
        let mut t = target()(r);
        let tri = [pv(4.0, 4.0, RED), pv(20.0, 4.0, RED), pv(4.0, 20.0, RED)];
        draw(r, &mut t, &fill, Topology::TriangleList, &tri, false, None);
        t
    });
    let mut want = [square(3, 3, 2), square(19, 3, 2), square(3, 19, 2)].concat();
    want.sort_by_key(|&(x, y)| (y, x));
    assert_eq!(pixels_of(&t, RED), want);
}

#[test]
fn points_tile_the_plane_under_the_top_left_rule() {
    // Size-2 points on a grid of pitch 2 centred on pixel centres: every
    // square has pixel centres on its left and top edges (in) and one
    // pixel beyond its right and bottom edges (out), so the 8 × 8 points
    // cover the 16 × 16 area exactly once (counted in the stencil).
    let mut st = state();
    st.point.size = 2.0;
    st.stencil.enable = true;
    st.stencil.front.func = CmpFunc::Always;
    st.stencil.front.pass = StencilOp::Incr;
    let mut vs = Vec::new();
    for j in 0..8 {
        for i in 0..8 {
            vs.push(pv(5.0 + 2.0 * i as f32, 7.0 + 2.0 * j as f32, RED));
        }
    }
    let t = render_all(|r| {
        let mut t = Targets::new(32, 32, Format::A8R8G8B8, Some(Format::D24S8));
        t.clear(r, BACK, 1.0, 0);
        let s = draw(r, &mut t, &st, Topology::PointList, &vs, false, None);
        assert_eq!(s.pixels_written, 256);
        t
    });
    let d = t.depth.as_ref().expect("depth");
    for y in 0..32 {
        for x in 0..32 {
            let want = u32::from((4..20).contains(&x) && (6..22).contains(&y));
            assert_eq!(d.read_stencil(x, y), Some(want), "({x}, {y})");
        }
    }
}

#[test]
fn scaled_points_shrink_with_camera_distance() {
    // Untransformed points, identity transforms, 64-pixel viewport:
    // size = 64 · S · sqrt(1 / (A + B·d + C·d²)) with A = B = 0, C = 1,
    // S = 1/32: 4 pixels at d = 0.5, 8 at d = 0.25.
    let mut st = state();
    st.viewport.width = 64;
    st.viewport.height = 64;
    st.point.size = 1.0 / 32.0;
    st.point.min = 0.0;
    st.point.scale_enable = true;
    st.point.scale = [0.0, 0.0, 1.0];
    let l = VertexLayout::packed(PositionKind::Xyz, true, false, &[]);
    for (z, n) in [(0.5f32, 4u32), (0.25, 8)] {
        let mut b = Vec::new();
        for f in [0.0f32, 0.0, z] {
            b.extend_from_slice(&f.to_le_bytes());
        }
        b.extend_from_slice(&RED.to_le_bytes());
        let t = render_all(|r| {
            let mut t = Targets::new(64, 64, Format::A8R8G8B8, None);
            t.clear(r, BACK, 1.0, 0);
            let call = DrawCall::new(Topology::PointList, &b, &l, 1);
            let mut rt = RenderTargets {
                color: &mut t.color,
                depth: None,
                extra: Default::default(),
            };
            r.draw(&mut rt, &st, &call).expect("draw");
            t
        });
        // Centred on screen (32, 32): centres in [32 − n/2, 32 + n/2).
        assert_eq!(
            pixels_of(&t, RED),
            square(32 - n / 2, 32 - n / 2, n),
            "z = {z}"
        );
    }
    // Pre-transformed points are never scaled.
    let t = render_all(|r| {
        let mut t = target()(r);
        draw(
            r,
            &mut t,
            &st,
            Topology::PointList,
            &[pv(10.0, 10.0, RED)],
            false,
            None,
        );
        t
    });
    assert_eq!(pixels_of(&t, RED), vec![(10, 10)]);
}

#[test]
fn textured_lines_sample_along_the_line() {
    // u runs 0.03 → 1.03 from x = 2 to x = 18 (the last pixel is not
    // drawn): u = 0.03 + (x − 2)/16, texel 0 (red) below ½, texel 1 (blue)
    // from x = 10.
    let tex = texture(2, 1, &[RED, BLUE]);
    let mut st = textured_state();
    st.raster.last_pixel = false;
    let mut a = pv(2.0, 5.0, WHITE);
    let mut b = pv(18.0, 5.0, WHITE);
    a.uv = [0.03, 0.5];
    b.uv = [1.03, 0.5];
    // A vertical one too: u from 0.95 to 0.15 downwards.
    let mut c = pv(25.0, 4.0, WHITE);
    let mut e = pv(25.0, 28.0, WHITE);
    c.uv = [0.95, 0.5];
    e.uv = [0.15, 0.5];
    let t = render_all(|r| {
        let mut t = target()(r);
        let s = draw(
            r,
            &mut t,
            &st,
            Topology::LineList,
            &[a, b, c, e],
            false,
            Some(&tex),
        );
        assert_eq!(s.pixels_written, 16 + 24);
        t
    });
    for x in 2..18 {
        assert_eq!(t.px(x, 5), if x < 10 { RED } else { BLUE }, "x = {x}");
    }
    for y in 4..28 {
        // u = 0.95 − 0.8·(y − 4)/24 < ½ from y = 18.
        assert_eq!(t.px(25, y), if y < 18 { BLUE } else { RED }, "y = {y}");
    }
}

#[test]
fn fogged_lines_and_points() {
    // Pre-transformed fog: the specular alpha is the fog factor (0 = all
    // fog colour), interpolated along lines, constant over points.
    let mut st = state();
    st.fog.enable = true;
    st.fog.table_mode = FogMode::None;
    st.fog.vertex_mode = FogMode::None;
    st.fog.color = GREEN;
    st.point.size = 3.0;
    st.raster.last_pixel = false;
    let fogged = |mut v: PV, f: u8| {
        v.specular = u32::from(f) << 24;
        v
    };
    let t = render_all(|r| {
        let mut t = target()(r);
        draw(
            r,
            &mut t,
            &st,
            Topology::LineList,
            &[
                fogged(pv(2.0, 3.0, RED), 255),
                fogged(pv(28.0, 3.0, RED), 0),
            ],
            false,
            None,
        );
        draw(
            r,
            &mut t,
            &st,
            Topology::PointList,
            &[
                fogged(pv(8.0, 20.0, RED), 0),
                fogged(pv(20.0, 20.0, RED), 255),
            ],
            false,
            None,
        );
        t
    });
    // Line: f = 1 − (x − 2)/26 → red·f + green·(1 − f).
    for x in [2u32, 9, 15, 27] {
        let f = 1.0 - (x as f32 - 2.0) / 26.0;
        let want_r = (255.0 * f).round() as i32;
        let want_g = (255.0 * (1.0 - f)).round() as i32;
        let p = t.px(x, 3).to_le_bytes();
        assert!((i32::from(p[2]) - want_r).abs() <= 1, "x = {x}: {p:?}");
        assert!((i32::from(p[1]) - want_g).abs() <= 1, "x = {x}: {p:?}");
    }
    let below =
        |c: u32| -> Vec<(u32, u32)> { pixels_of(&t, c).into_iter().filter(|p| p.1 > 10).collect() };
    assert_eq!(below(GREEN), square(7, 19, 3));
    assert_eq!(below(RED), square(19, 19, 3));
}

#[test]
fn textured_points_add_specular() {
    // Stage 0 MODULATE(TEXTURE, DIFFUSE) with a white texel keeps the
    // diffuse red; SPECULARENABLE adds the specular blue (full path, and
    // the untextured colour path alike).
    let tex = texture(1, 1, &[WHITE]);
    let mut st = textured_state();
    let s0 = &mut st.textures.stages[0];
    s0.color_op = Op::Modulate;
    s0.color_arg2 = TextureArgument::new(S::Diffuse);
    st.raster.specular_enable = true;
    st.point.size = 2.0;
    let mut p = pv(6.0, 6.0, RED);
    p.specular = 0xFF00_00FF;
    for tex in [Some(&tex), None] {
        let t = render_all(|r| {
            let mut t = target()(r);
            draw(r, &mut t, &st, Topology::PointList, &[p], false, tex);
            t
        });
        assert_eq!(pixels_of(&t, 0xFFFF_00FF), square(5, 5, 2));
    }
}

#[test]
fn golden_points_and_lines() {
    // Sprites, plain big points, textured and fogged lines, with depth.
    let tex = texture(
        4,
        4,
        &(0..16)
            .map(|i| 0xFF00_0000 | (i * 16) << 16 | (255 - i * 16) << 8 | (i * 37 % 256))
            .collect::<Vec<u32>>(),
    );
    let mut st = textured_state();
    st.textures.samplers[0].mag_filter = Fl::Linear;
    st.textures.samplers[0].min_filter = Fl::Linear;
    st.depth.z_enable = ZBufferType::True;
    st.depth.z_func = CmpFunc::LessEqual;
    st.point.sprite_enable = true;
    st.fog.enable = true;
    st.fog.color = 0xFF20_4060;
    let t = render_all(|r| {
        let mut t = Targets::new(64, 48, Format::A8R8G8B8, Some(Format::D24S8));
        t.clear(r, BACK, 1.0, 0);
        let mut pts = Vec::new();
        for i in 0..6 {
            let mut p = pv(6.0 + 10.0 * i as f32, 8.0 + (i % 2) as f32 * 0.5, WHITE);
            p.psize = 2.0 + 1.5 * i as f32;
            p.specular = (255 - i * 40) << 24;
            pts.push(p);
        }
        draw(r, &mut t, &st, Topology::PointList, &pts, true, Some(&tex));
        let mut lines = Vec::new();
        for i in 0..8 {
            let y = 24.0 + 2.5 * i as f32;
            let mut a = pv(3.0 + i as f32, y, 0xFFFF_8040);
            let mut b = pv(
                60.0 - 2.0 * i as f32,
                y + 3.0 * (i as f32 - 4.0),
                0xFF40_80FF,
            );
            a.uv = [0.0, i as f32 / 8.0];
            b.uv = [3.0, 1.0 - i as f32 / 8.0];
            a.specular = 0xFF00_0000;
            b.specular = 0x2000_0000;
            lines.extend([a, b]);
        }
        draw(
            r,
            &mut t,
            &st,
            Topology::LineList,
            &lines,
            false,
            Some(&tex),
        );
        t
    });
    check_golden("p2_points_lines", &t.color);
}
