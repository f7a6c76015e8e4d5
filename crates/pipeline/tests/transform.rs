//! Untransformed vertices: world/view/projection, viewport mapping with
//! MinZ/MaxZ, near/far clipping, user clip planes, CLIPPING off, and a
//! perspective-correct golden.

mod common;
use common::*;
use softhal_pipeline::{
    CmpFunc, DrawCall, Format, Matrix, PipelineState, PositionKind, RenderTargets, Renderer,
    Topology, VertexLayout, Viewport, ZBufferType,
};

fn xyz_layout() -> VertexLayout {
    VertexLayout::packed(PositionKind::Xyz, true, false, &[])
}

fn xyz_bytes(vs: &[([f32; 3], u32)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (p, c) in vs {
        for f in p {
            out.extend_from_slice(&f.to_le_bytes());
        }
        out.extend_from_slice(&c.to_le_bytes());
    }
    out
}

fn draw_xyz(
    r: &mut Renderer,
    t: &mut Targets,
    st: &PipelineState,
    topo: Topology,
    vs: &[([f32; 3], u32)],
) -> u64 {
    let b = xyz_bytes(vs);
    let l = xyz_layout();
    let call = DrawCall::new(topo, &b, &l, prim_count(topo, vs.len()));
    let mut rt = RenderTargets {
        color: &mut t.color,
        depth: t.depth.as_mut(),
        extra: Default::default(),
    };
    r.draw(&mut rt, st, &call).expect("draw").pixels_written
}

fn vp(w: u32, h: u32) -> Viewport {
    Viewport {
        x: 0,
        y: 0,
        width: w,
        height: h,
        min_z: 0.0,
        max_z: 1.0,
    }
}

/// D3D left-handed perspective projection.
fn perspective(fov_y: f32, aspect: f32, zn: f32, zf: f32) -> Matrix {
    let ys = 1.0 / (fov_y / 2.0).tan();
    let xs = ys / aspect;
    let q = zf / (zf - zn);
    Matrix([
        [xs, 0.0, 0.0, 0.0],
        [0.0, ys, 0.0, 0.0],
        [0.0, 0.0, q, 1.0],
        [0.0, 0.0, -zn * q, 0.0],
    ])
}

fn full_clip_quad(z: f32, c: u32) -> Vec<([f32; 3], u32)> {
    vec![
        ([-1.0, 1.0, z], c),
        ([1.0, 1.0, z], c),
        ([1.0, -1.0, z], c),
        ([-1.0, -1.0, z], c),
    ]
}

#[test]
fn identity_transform_maps_clip_space_to_the_viewport() {
    let mut r = Renderer::new(1).expect("renderer");
    let mut t = Targets::new(16, 16, Format::A8R8G8B8, Some(Format::D32));
    let mut st = state();
    st.viewport = vp(16, 16);
    st.viewport.min_z = 0.25;
    st.viewport.max_z = 0.75;
    st.depth.z_enable = ZBufferType::True;
    st.depth.z_func = CmpFunc::Always;
    // Clip x = −1 maps to screen x = 0 (the centre of pixel 0): with the
    // top-left rule, columns 0..15 are covered except the right edge
    // x = 16, which is outside anyway.
    let n = draw_xyz(
        &mut r,
        &mut t,
        &st,
        Topology::TriangleFan,
        &full_clip_quad(0.5, 0xFF00_FF00),
    );
    assert_eq!(n, 16 * 16);
    let z = t
        .depth
        .as_ref()
        .and_then(|d| d.read_depth(5, 5))
        .unwrap_or(0.0);
    assert!((z - 0.5).abs() < 1e-6, "{z}");
    // Degenerate z range (max ≤ min) is min + 0.001.
    st.viewport.min_z = 0.3;
    st.viewport.max_z = 0.3;
    draw_xyz(
        &mut r,
        &mut t,
        &st,
        Topology::TriangleFan,
        &full_clip_quad(1.0, 0xFF00_FF00),
    );
    let z = t
        .depth
        .as_ref()
        .and_then(|d| d.read_depth(5, 5))
        .unwrap_or(0.0);
    assert!((z - 0.301).abs() < 1e-6, "{z}");
    // A world translation moves the quad half out of the viewport.
    st.transforms.world.0[3] = [1.0, 0.0, 0.0, 1.0];
    let mut t = Targets::new(16, 16, Format::A8R8G8B8, None);
    let n = draw_xyz(
        &mut r,
        &mut t,
        &st,
        Topology::TriangleFan,
        &full_clip_quad(0.5, 0xFF00_FF00),
    );
    assert_eq!(n, 8 * 16);
    assert_eq!(t.px(7, 3), 0);
    assert_eq!(t.px(8, 3), 0xFF00_FF00);
}

#[test]
fn near_and_far_planes_clip() {
    let mut r = Renderer::new(2).expect("renderer");
    let mut st = state();
    st.viewport = vp(32, 32);
    // With identity transforms clip z is the vertex z and w = 1: a quad
    // tilted from z = −1 to z = 1 is half in front of the near plane.
    let tilted = vec![
        ([-1.0, 1.0, -1.0], 0xFFFF_0000),
        ([1.0, 1.0, -1.0], 0xFFFF_0000),
        ([1.0, -1.0, 1.0], 0xFFFF_0000),
        ([-1.0, -1.0, 1.0], 0xFFFF_0000),
    ];
    let mut t = Targets::new(32, 32, Format::A8R8G8B8, None);
    let n = draw_xyz(&mut r, &mut t, &st, Topology::TriangleFan, &tilted);
    assert_eq!(n, 32 * 16, "only the z ≥ 0 half survives");
    assert_eq!(t.px(4, 4), 0);
    assert_eq!(t.px(4, 28), 0xFFFF_0000);
    // Without CLIPPING nothing is clipped against near/far.
    st.raster.clipping = false;
    let mut t = Targets::new(32, 32, Format::A8R8G8B8, None);
    assert_eq!(
        draw_xyz(&mut r, &mut t, &st, Topology::TriangleFan, &tilted),
        32 * 32
    );
    // Entirely beyond the far plane: nothing.
    st.raster.clipping = true;
    let mut t = Targets::new(32, 32, Format::A8R8G8B8, None);
    assert_eq!(
        draw_xyz(
            &mut r,
            &mut t,
            &st,
            Topology::TriangleFan,
            &full_clip_quad(1.5, 0xFFFF_FFFF)
        ),
        0
    );
}

#[test]
fn user_clip_planes_in_world_space() {
    let mut r = Renderer::new(1).expect("renderer");
    let mut st = state();
    st.viewport = vp(16, 16);
    st.raster.clip_plane_enable = 0b101; // planes 0 and 2
    st.raster.clip_planes[0] = [1.0, 0.0, 0.0, 0.0]; // keep x ≥ 0
    st.raster.clip_planes[1] = [-1.0, 0.0, 0.0, -5.0]; // disabled
    st.raster.clip_planes[2] = [0.0, 1.0, 0.0, 0.5]; // keep y ≥ −0.5
    let mut t = Targets::new(16, 16, Format::A8R8G8B8, None);
    draw_xyz(
        &mut r,
        &mut t,
        &st,
        Topology::TriangleFan,
        &full_clip_quad(0.5, 0xFFFF_FFFF),
    );
    for y in 0..16u32 {
        for x in 0..16u32 {
            let lit = t.px(x, y) == 0xFFFF_FFFF;
            // Screen x ≥ 8 ⇔ world x ≥ 0; screen y ≤ 12 ⇔ world y ≥ −0.5.
            if x == 8 || y == 12 {
                continue;
            }
            assert_eq!(lit, x > 8 && y < 12, "({x},{y})");
        }
    }
    // Lines and points are clipped (points rejected whole) too.
    let mut t = Targets::new(16, 16, Format::A8R8G8B8, None);
    let n = draw_xyz(
        &mut r,
        &mut t,
        &st,
        Topology::LineList,
        &[
            ([-1.0, 0.5, 0.5], 0xFFFF_FFFF),
            ([1.0, 0.5, 0.5], 0xFFFF_FFFF),
        ],
    );
    assert!((7..=9).contains(&n), "{n}");
    let n = draw_xyz(
        &mut r,
        &mut t,
        &st,
        Topology::PointList,
        &[
            ([-0.5, 0.5, 0.5], 0xFFFF_FFFF),
            ([0.5, 0.5, 0.5], 0xFFFF_FFFF),
        ],
    );
    assert_eq!(n, 1);
}

#[test]
fn golden_perspective_floor() {
    let t = render_all(|r| {
        let mut t = Targets::new(96, 64, Format::A8R8G8B8, Some(Format::D24S8));
        t.clear(r, 0xFF10_1020, 1.0, 0);
        let mut st = state();
        st.viewport = vp(96, 64);
        st.depth.z_enable = ZBufferType::True;
        st.depth.z_func = CmpFunc::LessEqual;
        st.transforms.projection = perspective(1.2, 96.0 / 64.0, 0.5, 50.0);
        // View: camera at y = 1 looking down +z.
        st.transforms.view.0[3] = [0.0, -1.0, 0.0, 1.0];
        // A floor from z = -2 (behind the camera: near-clipped) to z = 30,
        // checkered by vertex colours.
        let mut vs = Vec::new();
        for i in 0..8 {
            for j in 0..8 {
                let (x0, z0) = (-8.0 + i as f32 * 2.0, -2.0 + j as f32 * 4.0);
                let c = if (i + j) % 2 == 0 {
                    0xFFE0_E0E0
                } else {
                    0xFF20_60C0
                };
                let c2 = if (i + j) % 2 == 0 {
                    0xFFE0_4040
                } else {
                    0xFF20_C060
                };
                let q = [
                    ([x0, 0.0, z0], c),
                    ([x0 + 2.0, 0.0, z0], c2),
                    ([x0 + 2.0, 0.0, z0 + 4.0], c),
                    ([x0, 0.0, z0 + 4.0], c2),
                ];
                vs.extend([q[0], q[1], q[2], q[0], q[2], q[3]]);
            }
        }
        draw_xyz(r, &mut t, &st, Topology::TriangleList, &vs);
        // A vertical wall cut by a user clip plane (keep world x ≤ 2).
        st.raster.clip_plane_enable = 1;
        st.raster.clip_planes[0] = [-1.0, 0.0, 0.0, 2.0];
        let wall = [
            ([-3.0, 0.0, 6.0], 0xFFFF_C000),
            ([5.0, 0.0, 8.0], 0xFFFF_0080),
            ([5.0, 3.0, 8.0], 0xFF80_00FF),
            ([-3.0, 3.0, 6.0], 0xFF00_FFC0),
        ];
        draw_xyz(r, &mut t, &st, Topology::TriangleFan, &wall);
        t
    });
    check_golden("perspective_floor", &t.color);
}
