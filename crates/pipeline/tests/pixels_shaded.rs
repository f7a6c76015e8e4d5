//! `DrawStats::pixels_shaded`: the fragments a draw's primitives cover
//! inside the viewport and scissor rectangle, counted before the alpha,
//! stencil and depth tests — on every rasterization path (the
//! small-triangle coverage kernel, span walking, lines, points) and at
//! every thread count and SIMD level. The expected counts are the
//! pixels each primitive covers by Direct3D's rules, worked out below.

mod common;
use common::*;
use softhal_pipeline::{
    CmpFunc, DrawStats, Format, Rect, Renderer, SimdLevel, Topology, ZBufferType,
};

/// A quad covering pixels `[x0, x1) × [y0, y1)` at depth `z` (pixel
/// centres are at integer coordinates: the edges lie half a pixel
/// before the first and after the last covered centre).
fn quad(x0: f32, y0: f32, x1: f32, y1: f32, z: f32) -> Vec<V> {
    let (a, b, c, d) = (x0 - 0.5, y0 - 0.5, x1 - 0.5, y1 - 0.5);
    vec![
        vz(a, b, z, 0xFF20_4060),
        vz(c, b, z, 0xFF20_4060),
        vz(c, d, z, 0xFF20_4060),
        vz(a, d, z, 0xFF20_4060),
    ]
}

/// Draws on a fresh `w × h` A8R8G8B8 + D24S8 target whose depth is
/// cleared to 0.5, under every thread count and SIMD level, and returns
/// the counts (asserted equal across the configurations).
fn counts(
    w: u32,
    h: u32,
    st: &softhal_pipeline::PipelineState,
    t: Topology,
    vs: &[V],
) -> DrawStats {
    let mut first: Option<DrawStats> = None;
    for (threads, simd) in configs() {
        let mut r = Renderer::new(threads).expect("renderer");
        r.set_simd_level(simd);
        let mut tg = Targets::new(w, h, Format::A8R8G8B8, Some(Format::D24S8));
        tg.clear(&mut r, 0, 0.5, 0);
        let s = tg.draw(&mut r, st, t, vs);
        match first {
            None => first = Some(s),
            Some(f) => assert_eq!(f, s, "threads={threads} simd={simd:?}"),
        }
    }
    first.expect("at least one configuration")
}

fn depth_state(func: CmpFunc) -> softhal_pipeline::PipelineState {
    let mut st = state();
    st.depth.z_enable = ZBufferType::True;
    st.depth.z_func = func;
    st
}

#[test]
fn a_small_quad_rejected_by_depth_is_still_shaded() {
    // 8 × 8 pixels: small enough for the coverage-mask kernel (both
    // triangles' boxes are under 16 pixels). z = 0.25 against the stored
    // 0.5: LESS passes all 64, GREATER none, NEVER none.
    let vs = quad(0.0, 0.0, 8.0, 8.0, 0.25);
    for (func, pass) in [
        (CmpFunc::Less, 64),
        (CmpFunc::Greater, 0),
        (CmpFunc::Never, 0),
    ] {
        let s = counts(16, 16, &depth_state(func), Topology::TriangleFan, &vs);
        assert_eq!(s.pixels_shaded, 64, "{func:?}");
        assert_eq!(s.samples_passed_depth, pass, "{func:?}");
        assert_eq!(s.pixels_written, pass, "{func:?}");
    }
}

#[test]
fn a_large_quad_counts_every_covered_pixel_once() {
    // 40 × 30 pixels (span walking, not the small kernel), depth NEVER:
    // 1200 fragments, none written. The shared diagonal belongs to one
    // triangle only (top-left rule), so nothing is counted twice.
    let vs = quad(2.0, 3.0, 42.0, 33.0, 0.25);
    let s = counts(
        64,
        48,
        &depth_state(CmpFunc::Never),
        Topology::TriangleFan,
        &vs,
    );
    assert_eq!(s.pixels_shaded, 40 * 30);
    assert_eq!(s.pixels_written, 0);
}

#[test]
fn the_scissor_rectangle_limits_what_is_shaded() {
    // Scissor [2, 7) × [3, 11): 5 × 8 = 40 of the 16 × 16 quad's pixels.
    let mut st = state();
    st.raster.scissor_enable = true;
    st.raster.scissor = Rect::new(2, 3, 7, 11);
    let s = counts(
        16,
        16,
        &st,
        Topology::TriangleFan,
        &quad(0.0, 0.0, 16.0, 16.0, 0.5),
    );
    assert_eq!(s.pixels_shaded, 5 * 8);
    assert_eq!(s.pixels_written, 5 * 8);
}

#[test]
fn the_alpha_test_rejects_after_shading() {
    // Alpha 0x20 against ALPHAREF 0x80 with GREATER: every pixel fails
    // the alpha test, after it was shaded.
    let mut st = state();
    st.alpha_test.enable = true;
    st.alpha_test.func = CmpFunc::Greater;
    st.alpha_test.reference = 0x80;
    let vs: Vec<V> = quad(0.0, 0.0, 4.0, 4.0, 0.5)
        .into_iter()
        .map(|v| V {
            diffuse: 0x2011_2233,
            ..v
        })
        .collect();
    let s = counts(8, 8, &st, Topology::TriangleFan, &vs);
    assert_eq!(s.pixels_shaded, 16);
    assert_eq!(s.pixels_written, 0);
}

#[test]
fn lines_and_points_count_their_pixels() {
    // A horizontal line from x = 1 to x = 9 at y = 2 (pixel centres).
    // D3DRS_LASTPIXEL is TRUE by default: x = 1..=9, 9 pixels; with it
    // FALSE the diamond-exit rule leaves out the end pixel: 8. Depth NEVER
    // shades them and writes none; with depth off (the colour-only line
    // path) every one is written.
    let line = [
        vz(1.0, 2.0, 0.25, 0xFFFF_FFFF),
        vz(9.0, 2.0, 0.25, 0xFFFF_FFFF),
    ];
    let s = counts(
        16,
        8,
        &depth_state(CmpFunc::Never),
        Topology::LineList,
        &line,
    );
    assert_eq!((s.pixels_shaded, s.pixels_written), (9, 0));
    let s = counts(16, 8, &state(), Topology::LineList, &line);
    assert_eq!((s.pixels_shaded, s.pixels_written), (9, 9));
    let mut st = depth_state(CmpFunc::Never);
    st.raster.last_pixel = false;
    let s = counts(16, 8, &st, Topology::LineList, &line);
    assert_eq!((s.pixels_shaded, s.pixels_written), (8, 0));
    // Three one-pixel points, one of them outside the 8 × 8 target.
    let pts = [
        vz(1.0, 1.0, 0.25, 0xFFFF_FFFF),
        vz(5.0, 6.0, 0.25, 0xFFFF_FFFF),
        vz(20.0, 6.0, 0.25, 0xFFFF_FFFF),
    ];
    let s = counts(
        8,
        8,
        &depth_state(CmpFunc::Never),
        Topology::PointList,
        &pts,
    );
    assert_eq!((s.pixels_shaded, s.pixels_written), (2, 0));
    // POINTSIZE 4: each point a 4 × 4 square; (1, 1)'s square
    // [−1, 3) × [−1, 3) is cut by the target to [0, 3)²: 9 pixels;
    // (5, 6)'s [3, 7) × [4, 8): 16.
    let mut st = depth_state(CmpFunc::Never);
    st.point.size = 4.0;
    let s = counts(8, 8, &st, Topology::PointList, &pts);
    assert_eq!((s.pixels_shaded, s.pixels_written), (9 + 16, 0));
}

#[test]
fn the_scalar_and_vector_small_kernels_count_alike() {
    // A thin sliver and a one-pixel triangle through the small kernel at
    // the scalar level and at the best the CPU has (counts() also runs
    // every level): their counts match the pixels actually drawn with
    // the depth test passing.
    let vs = [
        vz(0.5, 0.5, 0.25, 0xFFFF_FFFF),
        vz(12.5, 1.5, 0.25, 0xFFFF_FFFF),
        vz(0.5, 2.5, 0.25, 0xFFFF_FFFF),
        vz(3.5, 5.5, 0.25, 0xFFFF_FFFF),
        vz(4.5, 5.5, 0.25, 0xFFFF_FFFF),
        vz(3.5, 6.5, 0.25, 0xFFFF_FFFF),
    ];
    let s = counts(
        16,
        16,
        &depth_state(CmpFunc::Less),
        Topology::TriangleList,
        &vs,
    );
    assert_eq!(s.pixels_shaded, s.pixels_written);
    let mut r = Renderer::new(1).expect("renderer");
    r.set_simd_level(SimdLevel::Scalar);
    let mut tg = Targets::new(16, 16, Format::A8R8G8B8, Some(Format::D24S8));
    tg.clear(&mut r, 0, 0.5, 0);
    tg.draw(
        &mut r,
        &depth_state(CmpFunc::Less),
        Topology::TriangleList,
        &vs,
    );
    let mut drawn = 0;
    for y in 0..16 {
        for x in 0..16 {
            drawn += u64::from(tg.px(x, y) != 0);
        }
    }
    assert_eq!(s.pixels_shaded, drawn);
    assert!(drawn > 0);
}
