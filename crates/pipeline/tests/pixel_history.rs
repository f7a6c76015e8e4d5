//! Pixel history (`Renderer::draw_watched`): each test draws a small scene
//! with a watched pixel and checks the recorded events against values
//! worked out by hand from the Direct3D 9 rules (D3DCMPFUNC comparisons,
//! D3DSTENCILOP, D3DBLEND factors with `x/255` rounded to nearest, depth
//! quantized as `round(z · (2^24 − 1))`), and that a watched draw leaves
//! exactly the bytes an unwatched one leaves.

mod common;
use common::*;
use softhal_pipeline::watch::{Outcome, StencilOpSlot};
use softhal_pipeline::{
    Blend, BlendOp, CmpFunc, DrawCall, Format, PixelHistory, PixelWatch, Rect, RenderTargets,
    Renderer, StencilOp, Topology, ZBufferType,
};

/// A triangle covering every pixel of an 8 × 8 target (and beyond).
fn cover(z: f32, c: u32) -> [V; 3] {
    [
        vz(-0.5, -0.5, z, c),
        vz(31.5, -0.5, z, c),
        vz(-0.5, 31.5, z, c),
    ]
}

/// Draws `vs` as a triangle list watching `pixels`.
fn watched(
    t: &mut Targets,
    r: &mut Renderer,
    st: &softhal_pipeline::PipelineState,
    vs: &[V],
    pixels: &[(u32, u32)],
) -> Vec<PixelHistory> {
    let b = bytes(vs);
    let l = layout();
    let call = DrawCall::new(Topology::TriangleList, &b, &l, (vs.len() / 3) as u32);
    let mut targets = RenderTargets {
        color: &mut t.color,
        depth: t.depth.as_mut(),
        extra: Default::default(),
    };
    let watch = PixelWatch::new(pixels).expect("few pixels");
    let (_, h) = r
        .draw_watched(&mut targets, st, &call, &[None; 8], &watch)
        .expect("draw");
    assert_eq!(h.len(), pixels.len());
    for p in &h {
        assert!(p.matches_target, "replay ends where the draw did: {p:?}");
    }
    h
}

#[test]
fn depth_fail_shows_both_depths() {
    let mut r = Renderer::new(2).expect("renderer");
    let mut t = Targets::new(8, 8, Format::A8R8G8B8, Some(Format::D24S8));
    t.clear(&mut r, 0xFF00_0000, 0.25, 0);
    let mut st = state();
    st.depth.z_enable = ZBufferType::True;
    st.depth.z_func = CmpFunc::LessEqual;
    let h = watched(&mut t, &mut r, &st, &cover(0.75, 0xFFFF_0000), &[(5, 2)]);
    let p = &h[0];
    assert_eq!(p.events.len(), 1);
    let e = &p.events[0];
    assert_eq!(e.primitive, 0);
    assert_eq!(e.outcome, Outcome::Depth);
    assert_eq!(e.shaded, Some(0xFFFF_0000));
    let d = e.depth.expect("depth test recorded");
    assert_eq!(d.func, CmpFunc::LessEqual);
    // 0.75 · 16777215 = 12582911.25; 0.25 · 16777215 = 4194303.75.
    assert_eq!(d.incoming, 12_582_911);
    assert_eq!(d.stored, 4_194_304);
    assert!(!d.passed && !d.written);
    assert_eq!(e.written, None);
    assert_eq!(p.color_before, Some(0xFF00_0000));
    assert_eq!(p.color_after, Some(0xFF00_0000));
    assert_eq!(p.depth_after, Some(4_194_304 << 8));
}

#[test]
fn alpha_test_rejection_shows_reference_and_value() {
    let mut r = Renderer::new(1).expect("renderer");
    let mut t = Targets::new(8, 8, Format::A8R8G8B8, None);
    t.clear(&mut r, 0xFF00_0000, 1.0, 0);
    let mut st = state();
    st.alpha_test.enable = true;
    st.alpha_test.func = CmpFunc::Greater;
    st.alpha_test.reference = 0x80;
    let h = watched(&mut t, &mut r, &st, &cover(0.5, 0x40FF_FFFF), &[(1, 1)]);
    let e = &h[0].events[0];
    assert_eq!(h[0].events.len(), 1);
    assert_eq!(e.outcome, Outcome::AlphaTest);
    let a = e.alpha_test.expect("alpha test recorded");
    assert_eq!(
        (a.func, a.reference, a.value, a.passed),
        (CmpFunc::Greater, 0x80, 0x40, false)
    );
    assert_eq!(h[0].color_after, Some(0xFF00_0000));
}

#[test]
fn stencil_failure_shows_the_operation_and_result() {
    let mut r = Renderer::new(1).expect("renderer");
    let mut t = Targets::new(8, 8, Format::A8R8G8B8, Some(Format::D24S8));
    t.clear(&mut r, 0xFF00_0000, 1.0, 5);
    let mut st = state();
    st.stencil.enable = true;
    st.stencil.front.func = CmpFunc::Equal;
    st.stencil.front.fail = StencilOp::Incr;
    st.stencil.reference = 3;
    st.stencil.mask = 0xFF;
    st.stencil.write_mask = 0xFF;
    let h = watched(&mut t, &mut r, &st, &cover(0.5, 0xFFFF_FFFF), &[(2, 3)]);
    let e = &h[0].events[0];
    assert_eq!(e.outcome, Outcome::Stencil);
    let s = e.stencil.expect("stencil recorded");
    // (3 & 0xFF) == (5 & 0xFF) fails; INCR: 5 → 6.
    assert_eq!(
        (s.func, s.reference, s.mask, s.stored),
        (CmpFunc::Equal, 3, 0xFF, 5)
    );
    assert!(!s.passed);
    assert_eq!(
        (s.op, s.slot, s.result),
        (StencilOp::Incr, StencilOpSlot::Fail, 6)
    );
    assert_eq!(h[0].depth_after.map(|d| d & 0xFF), Some(6));
    assert_eq!(h[0].color_after, Some(0xFF00_0000));
}

#[test]
fn scissor_rejection_and_a_pixel_inside() {
    let mut r = Renderer::new(1).expect("renderer");
    let mut t = Targets::new(8, 8, Format::A8R8G8B8, None);
    t.clear(&mut r, 0xFF00_0000, 1.0, 0);
    let mut st = state();
    st.raster.scissor_enable = true;
    st.raster.scissor = Rect::new(0, 0, 4, 4);
    let h = watched(
        &mut t,
        &mut r,
        &st,
        &cover(0.5, 0xFF00_FF00),
        &[(5, 2), (1, 1)],
    );
    let out = &h[0];
    assert_eq!(out.events.len(), 1);
    assert_eq!(out.events[0].outcome, Outcome::Scissor);
    assert_eq!(out.events[0].shaded, None);
    assert_eq!(out.color_after, Some(0xFF00_0000));
    let inside = &h[1];
    assert_eq!(inside.events.len(), 1);
    assert_eq!(inside.events[0].outcome, Outcome::Written);
    assert_eq!(inside.events[0].written, Some(0xFF00_FF00));
    assert_eq!(inside.color_after, Some(0xFF00_FF00));
}

#[test]
fn blending_srcalpha_invsrcalpha_by_hand() {
    let mut r = Renderer::new(1).expect("renderer");
    let mut t = Targets::new(8, 8, Format::A8R8G8B8, None);
    t.clear(&mut r, 0xFF00_00FF, 1.0, 0);
    let mut st = state();
    st.blend.enable = true;
    st.blend.src = Blend::SrcAlpha;
    st.blend.dst = Blend::InvSrcAlpha;
    st.blend.op = BlendOp::Add;
    let h = watched(&mut t, &mut r, &st, &cover(0.5, 0x80FF_0000), &[(4, 1)]);
    let e = &h[0].events[0];
    assert_eq!(e.outcome, Outcome::Written);
    let b = e.blend.expect("blend recorded");
    assert_eq!((b.src, b.dst), (0x80FF_0000, 0xFF00_00FF));
    assert_eq!(
        (b.src_factor, b.dst_factor, b.op),
        (Blend::SrcAlpha, Blend::InvSrcAlpha, BlendOp::Add)
    );
    // Weights: As = 128 on every channel, 255 − 128 = 127.
    assert_eq!((b.src_weight, b.dst_weight), (0x8080_8080, 0x7F7F_7F7F));
    // (s·sf + d·df + 127) / 255 per channel:
    // A (128·128 + 255·127 + 127)/255 = 48896/255 → 191 (0xBF)
    // R (255·128 + 0 + 127)/255 = 32767/255 → 128 (0x80)
    // G 0
    // B (0 + 255·127 + 127)/255 = 32512/255 → 127 (0x7F)
    assert_eq!(b.result, 0xBF80_007F);
    assert_eq!(e.written, Some(0xBF80_007F));
    assert_eq!(h[0].color_after, Some(0xBF80_007F));
}

#[test]
fn two_overlapping_triangles_of_one_draw_give_two_events() {
    let mut r = Renderer::new(2).expect("renderer");
    let mut t = Targets::new(8, 8, Format::A8R8G8B8, Some(Format::D24S8));
    t.clear(&mut r, 0xFF00_0000, 1.0, 0);
    let mut st = state();
    st.depth.z_enable = ZBufferType::True;
    st.depth.z_func = CmpFunc::Less;
    st.depth.z_write = true;
    let mut vs = cover(0.75, 0xFFFF_0000).to_vec();
    vs.extend(cover(0.875, 0xFF00_FF00));
    let h = watched(&mut t, &mut r, &st, &vs, &[(2, 2)]);
    let ev = &h[0].events;
    assert_eq!(ev.len(), 2);
    // Triangle 0: 0.75 → 12582911 < 16777215: written.
    assert_eq!((ev[0].primitive, ev[0].outcome), (0, Outcome::Written));
    let d0 = ev[0].depth.expect("depth");
    assert_eq!(
        (d0.incoming, d0.stored, d0.written),
        (12_582_911, 16_777_215, true)
    );
    assert_eq!(ev[0].written, Some(0xFFFF_0000));
    // Triangle 1: 0.875 → 14680063.125 → 14680063, not < 12582911.
    assert_eq!((ev[1].primitive, ev[1].outcome), (1, Outcome::Depth));
    let d1 = ev[1].depth.expect("depth");
    assert_eq!(
        (d1.incoming, d1.stored, d1.passed),
        (14_680_063, 12_582_911, false)
    );
    assert_eq!(h[0].color_after, Some(0xFFFF_0000));
}

#[test]
fn a_pixel_no_draw_covers_has_no_events() {
    let mut r = Renderer::new(1).expect("renderer");
    let mut t = Targets::new(8, 8, Format::A8R8G8B8, None);
    t.clear(&mut r, 0xFF10_2030, 1.0, 0);
    let st = state();
    let small = [
        v(-0.5, -0.5, 0xFFFF_FFFF),
        v(2.5, -0.5, 0xFFFF_FFFF),
        v(-0.5, 2.5, 0xFFFF_FFFF),
    ];
    let h = watched(&mut t, &mut r, &st, &small, &[(7, 7), (100, 100)]);
    assert!(h[0].events.is_empty());
    assert_eq!(h[0].color_before, Some(0xFF10_2030));
    assert_eq!(h[0].color_after, Some(0xFF10_2030));
    // Outside the target: nothing, and no values.
    assert!(h[1].events.is_empty());
    assert_eq!(h[1].color_before, None);
}

#[test]
fn watched_and_unwatched_draws_leave_identical_bytes() {
    // Gouraud triangles (the colour SIMD path), the same with a 24-bit
    // depth test (the colour + depth kernel), and with blending and
    // stencil (the generic loop); watching pixels on edges and inside.
    let tri = |z: f32| {
        [
            vz(0.3, 0.7, z, 0xFFFF_0000),
            vz(29.6, 3.2, z, 0x8000_FF00),
            vz(5.1, 30.9, z + 0.1, 0x400_000FF),
        ]
    };
    let mut vs = tri(0.3).to_vec();
    vs.extend(tri(0.2).map(|mut p| {
        p.x = 31.0 - p.x;
        p
    }));
    let pixels: Vec<(u32, u32)> = vec![(0, 0), (3, 3), (15, 15), (20, 4), (5, 28), (31, 31)];
    for variant in 0..3 {
        let mut st = state();
        let depth = variant >= 1;
        if depth {
            st.depth.z_enable = ZBufferType::True;
            st.depth.z_func = CmpFunc::LessEqual;
        }
        if variant == 2 {
            st.blend.enable = true;
            st.blend.src = Blend::SrcAlpha;
            st.blend.dst = Blend::InvSrcAlpha;
            st.stencil.enable = true;
            st.stencil.front.pass = StencilOp::Incr;
        }
        let fmt = depth.then_some(Format::D24S8);
        let mut r = Renderer::new(2).expect("renderer");
        let mut plain = Targets::new(32, 32, Format::X8R8G8B8, fmt);
        let mut seen = Targets::new(32, 32, Format::X8R8G8B8, fmt);
        plain.clear(&mut r, 0xFF20_3040, 0.5, 1);
        seen.clear(&mut r, 0xFF20_3040, 0.5, 1);
        plain.draw(&mut r, &st, Topology::TriangleList, &vs);
        let h = watched(&mut seen, &mut r, &st, &vs, &pixels);
        assert_eq!(plain.color.bytes(), seen.color.bytes(), "variant {variant}");
        assert_eq!(
            plain.depth.as_ref().map(|d| d.bytes().to_vec()),
            seen.depth.as_ref().map(|d| d.bytes().to_vec()),
            "variant {variant}"
        );
        for p in &h {
            assert_eq!(p.color_after, plain.color.read_pixel(p.x, p.y));
            if let Some(last) = p.events.iter().rev().find_map(|e| e.written) {
                assert_eq!(Some(last), p.color_after, "variant {variant} {p:?}");
            }
        }
    }
}
