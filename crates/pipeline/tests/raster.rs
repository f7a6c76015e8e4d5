//! Rasterization rules: fill convention (every pixel of a tessellated area
//! hit exactly once), top-left rule, thin/degenerate/huge/NaN triangles,
//! culling, flat vs Gouraud, lines and points; plus goldens of these areas.

mod common;
use common::*;
use softhal_pipeline::{
    Blend, CmpFunc, CullMode, FillMode, Format, PipelineState, ShadeMode, StencilOp, Topology,
};

/// State that counts hits per pixel in the stencil buffer (INCR on pass).
fn counting_state() -> PipelineState {
    let mut st = state();
    st.stencil.enable = true;
    st.stencil.front.func = CmpFunc::Always;
    st.stencil.front.pass = StencilOp::Incr;
    st
}

fn count_targets(w: u32, h: u32, r: &mut softhal_pipeline::Renderer) -> Targets {
    let mut t = Targets::new(w, h, Format::A8R8G8B8, Some(Format::D24S8));
    t.clear(r, 0, 1.0, 0);
    t
}

fn stencil_counts(t: &Targets) -> Vec<u32> {
    let d = t.depth.as_ref().expect("depth");
    let mut v = Vec::new();
    for y in 0..d.height() {
        for x in 0..d.width() {
            v.push(d.read_stencil(x, y).expect("inside"));
        }
    }
    v
}

/// A grid over [-0.5, 63.5]² with jittered interior vertices (some exactly
/// on pixel centres, some on half-pixels), random diagonals and both
/// windings.
fn jittered_grid(seed: u64) -> Vec<V> {
    const N: usize = 8;
    let mut rng = Rng(seed);
    let mut p = [[(0f32, 0f32); N + 1]; N + 1];
    for (j, row) in p.iter_mut().enumerate() {
        for (i, q) in row.iter_mut().enumerate() {
            let mut x = i as f32 * 8.0 - 0.5;
            let mut y = j as f32 * 8.0 - 0.5;
            if i > 0 && i < N && j > 0 && j < N {
                x += (rng.f() - 0.5) * 6.0;
                y += (rng.f() - 0.5) * 6.0;
                match rng.next() % 4 {
                    0 => (x, y) = (x.round(), y.round()),
                    1 => x = x.round() + 0.5,
                    _ => {}
                }
            }
            *q = (x, y);
        }
    }
    let mut out = Vec::new();
    for j in 0..N {
        for i in 0..N {
            let a = p[j][i];
            let b = p[j][i + 1];
            let c = p[j + 1][i + 1];
            let d = p[j + 1][i];
            // A jittered quad may be non-convex: use a diagonal whose two
            // triangles have the same winding (no fold-over).
            let area = |p: (f32, f32), q: (f32, f32), r: (f32, f32)| {
                (q.0 - p.0) * (r.1 - p.1) - (r.0 - p.0) * (q.1 - p.1)
            };
            let ac_ok = area(a, b, c) > 0.0 && area(a, c, d) > 0.0;
            let bd_ok = area(a, b, d) > 0.0 && area(b, c, d) > 0.0;
            let use_ac = if ac_ok && bd_ok {
                rng.next().is_multiple_of(2)
            } else {
                ac_ok
            };
            let tris = if use_ac {
                [[a, b, c], [a, c, d]]
            } else {
                [[a, b, d], [b, c, d]]
            };
            for mut t in tris {
                if rng.next().is_multiple_of(2) {
                    t.swap(1, 2);
                }
                for (x, y) in t {
                    out.push(v(x, y, rng.color()));
                }
            }
        }
    }
    out
}

#[test]
fn grid_covers_every_pixel_exactly_once() {
    for seed in 1..=4 {
        let t = render_all(|r| {
            let mut t = count_targets(64, 64, r);
            t.draw(
                r,
                &counting_state(),
                Topology::TriangleList,
                &jittered_grid(seed),
            );
            t
        });
        let c = stencil_counts(&t);
        let bad: Vec<(usize, usize, u32)> = c
            .iter()
            .enumerate()
            .filter(|(_, &n)| n != 1)
            .map(|(i, &n)| (i % 64, i / 64, n))
            .collect();
        assert!(
            bad.is_empty(),
            "seed {seed}: {:?} bad pixels {bad:?}",
            histogram(&c)
        );
    }
}

/// The depth-test fast path (small triangles through the coverage-mask
/// kernel at the scalar and AVX2 levels, edge walking at the SSE levels)
/// covers every pixel of a tessellation exactly once: with the depth
/// function ALWAYS every covered pixel passes and is counted once.
#[test]
fn grid_covers_every_pixel_exactly_once_on_the_depth_path() {
    for seed in 1..=4 {
        render_all(|r| {
            let mut t = Targets::new(64, 64, Format::A8R8G8B8, Some(Format::D24S8));
            t.clear(r, 0, 1.0, 0);
            let mut st = state();
            st.depth.z_enable = softhal_pipeline::ZBufferType::True;
            st.depth.z_func = CmpFunc::Always;
            let s = t.draw(r, &st, Topology::TriangleList, &jittered_grid(seed));
            assert_eq!(s.pixels_written, 64 * 64, "seed {seed}");
            t
        });
    }
}

/// Many small depth-tested triangles (W1-like, 1 to 24 pixels across,
/// vertices on pixel centres, half-pixels or anywhere, crossing tile and
/// band boundaries and the target's edges), every depth function, depth
/// writes on and off, A8R8G8B8 and X8R8G8B8. `render_all` checks that the
/// small-triangle kernel (scalar and AVX2 levels) and the span kernels (SSE
/// levels) write the same bytes; the golden pins them.
#[test]
fn golden_small_depth_triangles() {
    for (name, fmt) in [
        ("small_depth_tris_argb", Format::A8R8G8B8),
        ("small_depth_tris_xrgb", Format::X8R8G8B8),
    ] {
        let t = render_all(|r| {
            let (w, h) = (200u32, 140u32);
            let mut t = Targets::new(w, h, fmt, Some(Format::D24S8));
            t.clear(r, 0xFF10_1010, 0.75, 0);
            let mut rng = Rng(0x5EED_0001);
            for (k, func) in (1..=8).filter_map(CmpFunc::from_d3d).enumerate() {
                let mut st = state();
                st.depth.z_enable = softhal_pipeline::ZBufferType::True;
                st.depth.z_func = func;
                st.depth.z_write = k % 3 != 2;
                let mut vs = Vec::new();
                for _ in 0..400 {
                    let size = 1.0 + rng.f() * rng.f() * 23.0;
                    let (cx, cy) = (
                        rng.f() * (w as f32 + 8.0) - 4.0,
                        rng.f() * (h as f32 + 8.0) - 4.0,
                    );
                    let z = rng.f();
                    for _ in 0..3 {
                        let mut x = cx + (rng.f() - 0.5) * size;
                        let mut y = cy + (rng.f() - 0.5) * size;
                        match rng.next() % 4 {
                            0 => (x, y) = (x.round(), y.round()),
                            1 => x = x.round() + 0.5,
                            _ => {}
                        }
                        vs.push(vz(x, y, z + (rng.f() - 0.5) * 0.01, rng.color()));
                    }
                }
                t.draw(r, &st, Topology::TriangleList, &vs);
            }
            t
        });
        check_golden(name, &t.color);
    }
}

/// Submission order survives the per-chunk tile sort, runs and tile lists:
/// 3,000 overlapping triangles (small, tile-crossing and large; several
/// set-up chunks) drawn in one call with depth ALWAYS (the last one wins)
/// give the same colour and depth as drawing them one call each (one
/// triangle per call is never sorted).
#[test]
fn one_draw_matches_one_draw_per_triangle() {
    let mut rng = Rng(0xC0FFEE);
    let mut vs = Vec::new();
    for i in 0..3000 {
        let size = match i % 7 {
            0 => 90.0,
            1 | 2 => 30.0,
            _ => 6.0,
        };
        let (cx, cy) = (rng.f() * 200.0, rng.f() * 150.0);
        let z = rng.f();
        for _ in 0..3 {
            vs.push(vz(
                cx + (rng.f() - 0.5) * size,
                cy + (rng.f() - 0.5) * size,
                z,
                rng.color(),
            ));
        }
    }
    let mut st = state();
    st.depth.z_enable = softhal_pipeline::ZBufferType::True;
    st.depth.z_func = CmpFunc::Always;
    let one = render_all(|r| {
        let mut t = Targets::new(200, 150, Format::A8R8G8B8, Some(Format::D24S8));
        t.clear(r, 0, 1.0, 0);
        t.draw(r, &st, Topology::TriangleList, &vs);
        t
    });
    let mut r = softhal_pipeline::Renderer::new(2).expect("renderer");
    let mut each = Targets::new(200, 150, Format::A8R8G8B8, Some(Format::D24S8));
    each.clear(&mut r, 0, 1.0, 0);
    for tri in vs.chunks(3) {
        each.draw(&mut r, &st, Topology::TriangleList, tri);
    }
    assert!(one.color.bytes() == each.color.bytes(), "colour differs");
    let depth = |t: &Targets| t.depth.as_ref().map(|d| d.bytes().to_vec());
    assert!(depth(&one) == depth(&each), "depth differs");
}

/// The same with triangles spanning a whole 128-tile row: a chunk's
/// precomputed tile lists overflow their cap and the binner bins the rest
/// from the records.
#[test]
fn one_draw_matches_one_draw_per_triangle_with_long_tile_lists() {
    let mut rng = Rng(0xBEEF);
    let mut vs = Vec::new();
    // 1,024 long triangles fill the first chunk (whose lists overflow near
    // its end, so the last ones are binned from their records); a few
    // small ones follow, so that those last long ones stay visible.
    for i in 0..1040 {
        let z = rng.f();
        if i < 1024 {
            vs.push(vz(rng.f() * 64.0, rng.f() * 16.0, z, rng.color()));
            vs.push(vz(8128.0 + rng.f() * 64.0, rng.f() * 16.0, z, rng.color()));
            vs.push(vz(rng.f() * 8192.0, rng.f() * 16.0, z, rng.color()));
        } else {
            let x = rng.f() * 8100.0;
            for _ in 0..3 {
                vs.push(vz(x + rng.f() * 40.0, rng.f() * 16.0, z, rng.color()));
            }
        }
    }
    let mut st = state();
    st.depth.z_enable = softhal_pipeline::ZBufferType::True;
    st.depth.z_func = CmpFunc::Always;
    let mut r = softhal_pipeline::Renderer::new(2).expect("renderer");
    let mut one = Targets::new(8192, 16, Format::A8R8G8B8, Some(Format::D24S8));
    one.clear(&mut r, 0, 1.0, 0);
    one.draw(&mut r, &st, Topology::TriangleList, &vs);
    let mut each = Targets::new(8192, 16, Format::A8R8G8B8, Some(Format::D24S8));
    each.clear(&mut r, 0, 1.0, 0);
    for tri in vs.chunks(3) {
        each.draw(&mut r, &st, Topology::TriangleList, tri);
    }
    assert!(one.color.bytes() == each.color.bytes(), "colour differs");
}

fn histogram(c: &[u32]) -> [usize; 4] {
    let mut h = [0; 4];
    for &n in c {
        h[(n as usize).min(3)] += 1;
    }
    h
}

#[test]
fn fan_covers_every_pixel_exactly_once() {
    // Centre exactly on a pixel centre, rim on the square's boundary with
    // rim points at pixel-centre rows/columns too.
    for centre in [(31.0f32, 30.0f32), (20.3, 41.7)] {
        let mut rim = Vec::new();
        let steps = [-0.5f32, 7.0, 16.0, 31.0, 40.25, 63.5];
        for &x in &steps {
            rim.push((x, -0.5));
        }
        for &y in &steps[1..] {
            rim.push((63.5, y));
        }
        for &x in steps.iter().rev().skip(1) {
            rim.push((x, 63.5));
        }
        for &y in steps.iter().rev().skip(1) {
            rim.push((-0.5, y));
        }
        let mut vs = vec![v(centre.0, centre.1, 0xFFFF_FFFF)];
        vs.extend(rim.iter().map(|&(x, y)| v(x, y, 0xFF00_00FF)));
        let t = render_all(|r| {
            let mut t = count_targets(64, 64, r);
            t.draw(r, &counting_state(), Topology::TriangleFan, &vs);
            t
        });
        let c = stencil_counts(&t);
        assert!(
            c.iter().all(|&n| n == 1),
            "centre {centre:?}: {:?}",
            histogram(&c)
        );
    }
}

#[test]
fn top_left_rule_on_a_right_triangle() {
    // (0,0) (4,0) (0,4): pixel centres on the top and left edges are in,
    // those on the hypotenuse are out: 4 + 3 + 2 + 1 = 10 pixels.
    let mut r = softhal_pipeline::Renderer::new(1).expect("renderer");
    let mut t = count_targets(8, 8, &mut r);
    let s = t.draw(
        &mut r,
        &counting_state(),
        Topology::TriangleList,
        &[v(0.0, 0.0, 0), v(4.0, 0.0, 0), v(0.0, 4.0, 0)],
    );
    assert_eq!(s.pixels_written, 10);
    let c = stencil_counts(&t);
    for y in 0..8 {
        for x in 0..8 {
            let inside = x + y < 4;
            assert_eq!(c[y * 8 + x], u32::from(inside), "pixel ({x}, {y})");
        }
    }
}

#[test]
fn degenerate_thin_and_nan_triangles_do_not_panic() {
    let mut r = softhal_pipeline::Renderer::new(2).expect("renderer");
    let mut t = count_targets(32, 32, &mut r);
    let st = counting_state();
    // Zero area: nothing.
    let s = t.draw(
        &mut r,
        &st,
        Topology::TriangleList,
        &[v(1.0, 1.0, 0), v(10.0, 10.0, 0), v(20.0, 20.0, 0)],
    );
    assert_eq!(s.pixels_written, 0);
    // Collapsed to a point.
    let s = t.draw(&mut r, &st, Topology::TriangleList, &[v(5.0, 5.0, 0); 3]);
    assert_eq!(s.pixels_written, 0);
    // A sliver: covers at most a handful of pixels, never panics.
    let s = t.draw(
        &mut r,
        &st,
        Topology::TriangleList,
        &[v(0.0, 0.0, 0), v(31.0, 31.001, 0), v(31.0, 31.0, 0)],
    );
    assert!(s.pixels_written <= 32);
    // NaN / Inf: the primitive is dropped, the next one drawn.
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let mut vs = vec![v(bad, 0.0, 0), v(8.0, 0.0, 0), v(0.0, 8.0, 0)];
        vs.extend([v(0.0, 0.0, 0), v(2.0, 0.0, 0), v(0.0, 2.0, 0)]);
        let s = t.draw(&mut r, &st, Topology::TriangleList, &vs);
        assert_eq!(s.primitives, 2);
        assert_eq!(s.pixels_written, 3);
    }
    // rhw = 0 reads as 1 (Windows drivers draw it): the triangle (0, 0),
    // (8, 0), (0, 8) covers the pixel centres with x + y < 8 (top and left
    // edges in, the hypotenuse out): 8 + 7 + … + 1 = 36 pixels.
    let mut zero_rhw = v(8.0, 0.0, 0);
    zero_rhw.rhw = 0.0;
    let s = t.draw(
        &mut r,
        &st,
        Topology::TriangleList,
        &[v(0.0, 0.0, 0), zero_rhw, v(0.0, 8.0, 0)],
    );
    assert_eq!(s.pixels_written, 36);
}

#[test]
fn huge_triangles_cover_the_target_exactly_once() {
    // Inside the guard band, and far outside it (clipped in screen space).
    for k in [16000.0f32, 1.0e6, 1.0e30] {
        let quad = [
            v(-k, -k, 0),
            v(k, -k, 0),
            v(k, k, 0),
            v(-k, -k, 0),
            v(k, k, 0),
            v(-k, k, 0),
        ];
        let t = render_all(|r| {
            let mut t = count_targets(64, 48, r);
            t.draw(r, &counting_state(), Topology::TriangleList, &quad);
            t
        });
        let c = stencil_counts(&t);
        assert!(c.iter().all(|&n| n == 1), "k = {k}: {:?}", histogram(&c));
    }
}

/// The same on the plain pre-transformed path (fetch → `setup_plain`, and
/// screen-space clipping for the triangles reaching outside the guard
/// band), counted by the depth test with ALWAYS; plus a perspective quad
/// (different rhw: the general set-up).
#[test]
fn huge_triangles_cover_the_target_exactly_once_on_the_depth_path() {
    for (k, rhw) in [
        (16000.0f32, 1.0),
        (1.0e6, 1.0),
        (1.0e30, 1.0),
        (16000.0, 0.5),
    ] {
        let p = |x: f32, y: f32, w: f32| V {
            rhw: w,
            ..v(x, y, 0xFF80_4020)
        };
        let quad = [
            p(-k, -k, 1.0),
            p(k, -k, rhw),
            p(k, k, 1.0),
            p(-k, -k, 1.0),
            p(k, k, 1.0),
            p(-k, k, rhw),
        ];
        render_all(|r| {
            let mut t = Targets::new(64, 48, Format::A8R8G8B8, Some(Format::D24S8));
            t.clear(r, 0, 1.0, 0);
            let mut st = state();
            st.depth.z_enable = softhal_pipeline::ZBufferType::True;
            st.depth.z_func = CmpFunc::Always;
            let s = t.draw(r, &st, Topology::TriangleList, &quad);
            assert_eq!(s.pixels_written, 64 * 48, "k = {k}, rhw = {rhw}");
            t
        });
    }
}

#[test]
fn cull_modes_use_screen_space_winding() {
    // Clockwise on screen (y down).
    let cw = [v(0.0, 0.0, 0), v(6.0, 0.0, 0), v(0.0, 6.0, 0)];
    let ccw = [cw[0], cw[2], cw[1]];
    let mut r = softhal_pipeline::Renderer::new(1).expect("renderer");
    let mut t = count_targets(8, 8, &mut r);
    for (mode, tri, drawn) in [
        (CullMode::None, cw, true),
        (CullMode::None, ccw, true),
        (CullMode::Cw, cw, false),
        (CullMode::Cw, ccw, true),
        (CullMode::Ccw, cw, true),
        (CullMode::Ccw, ccw, false),
    ] {
        let mut st = state();
        st.raster.cull_mode = mode;
        let s = t.draw(&mut r, &st, Topology::TriangleList, &tri);
        assert_eq!(s.pixels_written > 0, drawn, "{mode:?}");
    }
}

#[test]
fn flat_shading_uses_the_first_vertex_of_each_triangle() {
    let mut r = softhal_pipeline::Renderer::new(1).expect("renderer");
    let mut st = state();
    st.raster.shade_mode = ShadeMode::Flat;
    let cols = [
        0xFFFF_0000u32,
        0xFF00_FF00,
        0xFF00_00FF,
        0xFFFF_FF00,
        0xFF00_FFFF,
    ];
    // List: colour of v0.
    let mut t = Targets::new(16, 16, Format::A8R8G8B8, None);
    t.draw(
        &mut r,
        &st,
        Topology::TriangleList,
        &[
            v(0.0, 0.0, cols[0]),
            v(15.0, 0.0, cols[1]),
            v(0.0, 15.0, cols[2]),
        ],
    );
    assert_eq!(t.px(1, 1), cols[0]);
    assert_eq!(t.px(10, 2), cols[0]);
    // Strip: triangle i takes v[i].
    let strip = [
        v(0.0, 0.0, cols[0]),
        v(0.0, 15.0, cols[1]),
        v(15.0, 0.0, cols[2]),
        v(15.0, 15.0, cols[3]),
    ];
    let mut t = Targets::new(16, 16, Format::A8R8G8B8, None);
    t.draw(&mut r, &st, Topology::TriangleStrip, &strip);
    assert_eq!(t.px(2, 2), cols[0]);
    assert_eq!(t.px(13, 13), cols[1]);
    // Fan: triangle i = (v[i+1], v[i+2], v[0]) takes v[i+1].
    let fan = [
        v(0.0, 0.0, cols[4]),
        v(15.0, 0.0, cols[0]),
        v(15.0, 15.0, cols[1]),
        v(0.0, 15.0, cols[2]),
    ];
    let mut t = Targets::new(16, 16, Format::A8R8G8B8, None);
    t.draw(&mut r, &st, Topology::TriangleFan, &fan);
    assert_eq!(t.px(12, 3), cols[0]);
    assert_eq!(t.px(3, 12), cols[1]);
}

#[test]
fn gouraud_hits_vertex_colours_at_vertex_pixels() {
    let mut r = softhal_pipeline::Renderer::new(1).expect("renderer");
    let mut t = Targets::new(16, 16, Format::A8R8G8B8, None);
    let s = t.draw(
        &mut r,
        &state(),
        Topology::TriangleList,
        &[
            v(0.0, 0.0, 0xFFFF_0000),
            v(12.0, 0.0, 0xFF00_FF00),
            v(0.0, 12.0, 0x8000_00FF),
        ],
    );
    assert!(s.pixels_written > 0);
    assert_eq!(t.px(0, 0), 0xFFFF_0000);
    // Halfway along the top edge: the average of red and green.
    assert_eq!(t.px(6, 0), 0xFF80_8000);
    // Alpha is interpolated too.
    assert_eq!(t.px(0, 6) >> 24, 0xC0);
}

#[test]
fn line_last_pixel_and_diamond_exit() {
    let mut r = softhal_pipeline::Renderer::new(1).expect("renderer");
    for last in [false, true] {
        let mut st = state();
        st.raster.last_pixel = last;
        type Case<'a> = (V, V, &'a [(u32, u32)]);
        let cases: [Case; 4] = [
            (
                v(0.0, 0.0, 0),
                v(4.0, 0.0, 0),
                &[(0, 0), (1, 0), (2, 0), (3, 0)],
            ),
            (
                v(2.0, 5.0, 0),
                v(2.0, 1.0, 0),
                &[(2, 5), (2, 4), (2, 3), (2, 2)],
            ),
            (v(0.4, 0.0, 0), v(3.4, 0.0, 0), &[(0, 0), (1, 0), (2, 0)]),
            (
                v(0.0, 0.0, 0),
                v(4.0, 1.6, 0),
                &[(0, 0), (1, 0), (2, 1), (3, 1)],
            ),
        ];
        for (a, b, want) in cases {
            let mut t = Targets::new(8, 8, Format::A8R8G8B8, None);
            let mut a = a;
            let mut b = b;
            a.diffuse = 0xFFFF_FFFF;
            b.diffuse = 0xFFFF_FFFF;
            t.draw(&mut r, &st, Topology::LineList, &[a, b]);
            let mut want: Vec<(u32, u32)> = want.to_vec();
            if last {
                let end = ((b.x + 0.5).floor() as u32, (b.y + 0.5).floor() as u32);
                want.push(end);
            }
            for y in 0..8 {
                for x in 0..8 {
                    let lit = t.px(x, y) == 0xFFFF_FFFF;
                    assert_eq!(
                        lit,
                        want.contains(&(x, y)),
                        "line {a:?}→{b:?} last={last} at ({x},{y})"
                    );
                }
            }
        }
    }
}

/// Lines crossing the corner of four 64-pixel tiles, rising and falling,
/// x-major and y-major: each tile draws exactly its part of the line (the
/// minor coordinate leaves a tile's range and never comes back), no pixel
/// twice, none missing. The pixels are the nearest ones to the line at
/// each major-axis pixel centre (no value falls on a half pixel).
#[test]
fn lines_across_tile_corners() {
    let mut r = softhal_pipeline::Renderer::new(2).expect("renderer");
    let mut st = state();
    st.raster.last_pixel = false;
    let diag: Vec<(u32, u32)> = (0..10).map(|k| (60 + k, 60 + k)).collect();
    let rising: Vec<(u32, u32)> = (0..10).map(|k| (60 + k, 67 - k)).collect();
    // x = 66 − 4k/11 at row 58 + k, rounded to the nearest column.
    let steep: Vec<(u32, u32)> = [66, 66, 65, 65, 65, 64, 64, 63, 63, 63, 62]
        .iter()
        .enumerate()
        .map(|(k, &x)| (x, 58 + k as u32))
        .collect();
    let cases = [
        ((60.0, 60.0), (70.0, 70.0), diag),
        ((60.0, 67.0), (70.0, 57.0), rising),
        ((66.0, 58.0), (62.0, 69.0), steep),
    ];
    for ((ax, ay), (bx, by), want) in cases {
        for swap in [false, true] {
            let mut t = Targets::new(128, 128, Format::A8R8G8B8, None);
            let (mut a, mut b) = (v(ax, ay, 0), v(bx, by, 0));
            a.diffuse = 0xFFFF_FFFF;
            b.diffuse = 0xFFFF_FFFF;
            let mut want = want.clone();
            if swap {
                // Drawn the other way: the old end's pixel is drawn, the
                // old start's left out (both ends are on pixel centres).
                std::mem::swap(&mut a, &mut b);
                want.remove(0);
                want.push((bx as u32, by as u32));
            }
            t.draw(&mut r, &st, Topology::LineList, &[a, b]);
            for y in 0..128 {
                for x in 0..128 {
                    let lit = t.px(x, y) == 0xFFFF_FFFF;
                    assert_eq!(
                        lit,
                        want.contains(&(x, y)),
                        "line ({ax},{ay})→({bx},{by}) swapped={swap} at ({x},{y})"
                    );
                }
            }
        }
    }
}

/// One draw of three pre-transformed lines: one far past the guard band
/// (clipped: the whole row from its start to the target's edge), one
/// with a NaN end (dropped: nothing), one inside (its pixels). Each is
/// drawn as if it were alone.
#[test]
fn lines_clipped_dropped_and_drawn_in_one_draw() {
    let mut r = softhal_pipeline::Renderer::new(1).expect("renderer");
    let mut st = state();
    st.raster.last_pixel = false;
    let mut t = Targets::new(64, 64, Format::A8R8G8B8, None);
    let mut verts = [
        v(2.0, 5.0, 0),
        v(1.0e9, 5.0, 0),
        v(10.0, 10.0, 0),
        v(f32::NAN, 20.0, 0),
        v(20.0, 30.0, 0),
        v(30.0, 30.0, 0),
    ];
    for x in &mut verts {
        x.diffuse = 0xFFFF_FFFF;
    }
    t.draw(&mut r, &st, Topology::LineList, &verts);
    for y in 0..64 {
        for x in 0..64 {
            let want = (y == 5 && x >= 2) || (y == 30 && (20..30).contains(&x));
            assert_eq!(t.px(x, y) == 0xFFFF_FFFF, want, "({x},{y})");
        }
    }
}

#[test]
fn points_light_the_nearest_pixel() {
    let mut r = softhal_pipeline::Renderer::new(1).expect("renderer");
    let mut t = Targets::new(8, 8, Format::A8R8G8B8, None);
    let s = t.draw(
        &mut r,
        &state(),
        Topology::PointList,
        &[v(2.4, 3.6, 0xFF11_2233), v(-3.0, 1.0, 0xFFFF_FFFF)],
    );
    assert_eq!(s.pixels_written, 1);
    assert_eq!(t.px(2, 4), 0xFF11_2233);
}

#[test]
fn golden_triangles() {
    let t = render_all(|r| {
        let mut t = Targets::new(96, 96, Format::A8R8G8B8, None);
        t.clear(r, 0xFF20_2030, 1.0, 0);
        let mut rng = Rng(7);
        let mut vs = Vec::new();
        for _ in 0..24 {
            let (cx, cy) = (rng.f() * 96.0, rng.f() * 96.0);
            for _ in 0..3 {
                vs.push(v(
                    cx + (rng.f() - 0.5) * 50.0,
                    cy + (rng.f() - 0.5) * 50.0,
                    rng.color(),
                ));
            }
        }
        t.draw(r, &state(), Topology::TriangleList, &vs);
        let mut flat = state();
        flat.raster.shade_mode = ShadeMode::Flat;
        t.draw(
            r,
            &flat,
            Topology::TriangleStrip,
            &[
                v(4.0, 80.0, 0xFFFF_0000),
                v(4.0, 92.0, 0xFF00_FF00),
                v(30.0, 80.0, 0xFF00_00FF),
                v(30.0, 92.0, 0xFFFF_FF00),
            ],
        );
        t
    });
    check_golden("triangles", &t.color);
}

#[test]
fn golden_depth_intersection() {
    let t = render_all(|r| {
        let mut t = Targets::new(96, 96, Format::X8R8G8B8, Some(Format::D24S8));
        t.clear(r, 0, 1.0, 0);
        let mut st = state();
        st.depth.z_enable = softhal_pipeline::ZBufferType::True;
        st.depth.z_func = CmpFunc::Less;
        let a = [
            vz(4.0, 10.0, 0.1, 0xFFFF_4040),
            vz(90.0, 30.0, 0.9, 0xFFFF_C040),
            vz(20.0, 90.0, 0.5, 0xFFC0_4040),
        ];
        let b = [
            vz(90.0, 4.0, 0.9, 0xFF40_40FF),
            vz(60.0, 92.0, 0.1, 0xFF40_C0FF),
            vz(4.0, 50.0, 0.5, 0xFF40_FFFF),
        ];
        let vs: Vec<V> = a.iter().chain(b.iter()).copied().collect();
        t.draw(r, &st, Topology::TriangleList, &vs);
        t
    });
    check_golden("depth_intersection", &t.color);
}

#[test]
fn golden_lines_and_fill_modes() {
    let t = render_all(|r| {
        let mut t = Targets::new(128, 96, Format::A8R8G8B8, None);
        t.clear(r, 0xFF00_0000, 1.0, 0);
        let mut vs = Vec::new();
        for k in 0..32 {
            let a = k as f32 / 32.0 * std::f32::consts::TAU;
            vs.push(v(40.0, 48.0, 0xFFFF_FFFF));
            vs.push(v(
                40.0 + 38.0 * a.cos(),
                48.0 + 38.0 * a.sin(),
                0xFF00_0000 | (k * 8) << 16 | (255 - k * 8),
            ));
        }
        t.draw(r, &state(), Topology::LineList, &vs);
        let mut wf = state();
        wf.raster.fill_mode = FillMode::Wireframe;
        t.draw(
            r,
            &wf,
            Topology::TriangleList,
            &[
                v(84.0, 6.0, 0xFFFF_0000),
                v(124.0, 20.0, 0xFF00_FF00),
                v(92.0, 44.0, 0xFF00_00FF),
            ],
        );
        let mut pt = state();
        pt.raster.fill_mode = FillMode::Point;
        t.draw(
            r,
            &pt,
            Topology::TriangleStrip,
            &[
                v(84.0, 60.0, 0xFFFF_FFFF),
                v(84.0, 90.0, 0xFFFF_FF00),
                v(124.0, 60.0, 0xFF00_FFFF),
                v(124.0, 90.0, 0xFFFF_00FF),
            ],
        );
        t.draw(
            r,
            &state(),
            Topology::LineStrip,
            &[
                v(90.0, 70.0, 0xFFFF_0000),
                v(118.0, 72.0, 0xFF00_FF00),
                v(100.0, 86.0, 0xFF00_00FF),
            ],
        );
        t
    });
    check_golden("lines_fill_modes", &t.color);
}

#[test]
fn golden_blending_over_gouraud() {
    let t = render_all(|r| {
        let mut t = Targets::new(128, 64, Format::A8R8G8B8, None);
        t.clear(r, 0x8000_0000, 1.0, 0);
        let bg = [
            v(-0.5, -0.5, 0xFFFF_0000),
            v(127.5, -0.5, 0x8000_FF00),
            v(127.5, 63.5, 0x000_000FF),
            v(-0.5, 63.5, 0xFFFF_FFFF),
        ];
        t.draw(r, &state(), Topology::TriangleFan, &bg);
        let pairs = [
            (Blend::SrcAlpha, Blend::InvSrcAlpha),
            (Blend::One, Blend::One),
            (Blend::DestColor, Blend::Zero),
            (Blend::InvDestColor, Blend::SrcColor),
            (Blend::SrcAlphaSat, Blend::One),
            (Blend::BlendFactor, Blend::InvBlendFactor),
            (Blend::DestAlpha, Blend::InvDestAlpha),
            (Blend::BothSrcAlpha, Blend::Zero),
        ];
        for (i, (s, d)) in pairs.into_iter().enumerate() {
            let mut st = state();
            st.blend.enable = true;
            st.blend.src = s;
            st.blend.dst = d;
            st.blend.factor = 0x8040_A0FF;
            let x = i as f32 * 16.0;
            let q = [
                v(x + 1.0, 8.0, 0x80FF_FF00),
                v(x + 14.0, 8.0, 0x4000_FFFF),
                v(x + 14.0, 56.0, 0xC0FF_00FF),
                v(x + 1.0, 56.0, 0x20FF_FFFF),
            ];
            t.draw(r, &st, Topology::TriangleFan, &q);
        }
        t
    });
    check_golden("blending", &t.color);
}

#[test]
fn golden_formats_r5g6b5_and_a4r4g4b4() {
    for (name, f) in [
        ("format_r5g6b5", Format::R5G6B5),
        ("format_a4r4g4b4", Format::A4R4G4B4),
    ] {
        let t = render_all(|r| {
            let mut t = Targets::new(48, 48, f, None);
            t.clear(r, 0xFF30_3030, 1.0, 0);
            t.draw(
                r,
                &state(),
                Topology::TriangleList,
                &[
                    v(2.0, 2.0, 0xFFFF_0000),
                    v(45.0, 10.0, 0x8000_FF00),
                    v(12.0, 45.0, 0x400_000FF),
                ],
            );
            t
        });
        check_golden(name, &t.color);
    }
}

#[test]
fn draws_larger_than_one_wave_keep_submission_order() {
    // 40,000 points (two set-up waves) counted in the stencil buffer, and
    // overlapping colours where the last write must win.
    let mut rng = Rng(99);
    let pts: Vec<V> = (0..40_000)
        .map(|_| {
            let (x, y) = ((rng.next() % 32) as f32, (rng.next() % 32) as f32);
            v(x, y, rng.color())
        })
        .collect();
    let t = render_all(|r| {
        let mut t = count_targets(32, 32, r);
        let s = t.draw(r, &counting_state(), Topology::PointList, &pts);
        assert_eq!(s.pixels_written, 40_000);
        t
    });
    let mut want = vec![0u32; 32 * 32];
    let mut last = vec![0u32; 32 * 32];
    for p in &pts {
        let i = p.y as usize * 32 + p.x as usize;
        want[i] += 1;
        last[i] = p.diffuse;
    }
    let got = stencil_counts(&t);
    for i in 0..32 * 32 {
        assert_eq!(got[i], want[i] % 256, "pixel {i}");
        if want[i] > 0 {
            assert_eq!(t.px((i % 32) as u32, (i / 32) as u32), last[i], "pixel {i}");
        }
    }
}
