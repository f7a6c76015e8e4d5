//! Per-pixel operations with exact expectations: depth functions and
//! writes, depth bias and W-buffering, every stencil operation and
//! function, two-sided stencil, alpha test, blending, colour write mask,
//! scissor, clears over rectangle lists, every format's round trip, and
//! error handling (nothing written on error).

mod common;
use common::*;
use softhal_pipeline::{
    Blend, BlendOp, Clear, ClearFlags, CmpFunc, DrawCall, Format, PipelineError, Rect,
    RenderTargets, Renderer, StencilOp, Topology, ZBufferType,
};

/// A quad covering the whole `w × h` target at depth `z`, colour `c`.
fn full_quad(w: f32, h: f32, z: f32, c: u32) -> Vec<V> {
    let (x0, y0, x1, y1) = (-0.5, -0.5, w - 0.5, h - 0.5);
    vec![
        vz(x0, y0, z, c),
        vz(x1, y0, z, c),
        vz(x1, y1, z, c),
        vz(x0, y1, z, c),
    ]
}

const FUNCS: [CmpFunc; 8] = [
    CmpFunc::Never,
    CmpFunc::Less,
    CmpFunc::Equal,
    CmpFunc::LessEqual,
    CmpFunc::Greater,
    CmpFunc::NotEqual,
    CmpFunc::GreaterEqual,
    CmpFunc::Always,
];

#[test]
fn every_depth_function_on_every_depth_format() {
    let formats = [
        Format::D16,
        Format::D16Lockable,
        Format::D15S1,
        Format::D24S8,
        Format::D24X8,
        Format::D24X4S4,
        Format::D32,
        Format::D32FLockable,
    ];
    for simd in [false, true] {
        let mut r = Renderer::new(1).expect("renderer");
        r.set_simd(simd);
        for f in formats {
            for func in FUNCS {
                for (stored, new) in [(0.5f32, 0.25f32), (0.5, 0.5), (0.5, 0.75)] {
                    for write in [false, true] {
                        let mut t = Targets::new(8, 8, Format::X8R8G8B8, Some(f));
                        t.clear(&mut r, 0, stored, 0);
                        let mut st = state();
                        st.depth.z_enable = ZBufferType::True;
                        st.depth.z_func = func;
                        st.depth.z_write = write;
                        let s = t.draw(
                            &mut r,
                            &st,
                            Topology::TriangleFan,
                            &full_quad(8.0, 8.0, new, 0xFFFF_FFFF),
                        );
                        let q = |z: f32| f.quantize_depth(z);
                        let pass = match func {
                            CmpFunc::Never => false,
                            CmpFunc::Less => q(new) < q(stored),
                            CmpFunc::Equal => q(new) == q(stored),
                            CmpFunc::LessEqual => q(new) <= q(stored),
                            CmpFunc::Greater => q(new) > q(stored),
                            CmpFunc::NotEqual => q(new) != q(stored),
                            CmpFunc::GreaterEqual => q(new) >= q(stored),
                            CmpFunc::Always => true,
                        };
                        let ctx = format!(
                            "{f:?} {func:?} stored {stored} new {new} write {write} simd {simd}"
                        );
                        assert_eq!(s.pixels_written, if pass { 64 } else { 0 }, "{ctx}");
                        assert_eq!(
                            t.px(3, 3),
                            if pass { 0xFFFF_FFFF } else { 0xFF00_0000 },
                            "{ctx}"
                        );
                        let d = t
                            .depth
                            .as_ref()
                            .and_then(|d| d.read_pixel(3, 3))
                            .unwrap_or(0);
                        let want = if pass && write { q(new) } else { q(stored) };
                        assert_eq!(f.quantize_depth(f.depth_to_float(want)), want);
                        assert_eq!(d, raw_depth(f, want), "{ctx}");
                    }
                }
            }
        }
    }
}

/// The raw surface value holding depth `q` and stencil 0.
fn raw_depth(f: Format, q: u32) -> u32 {
    match f {
        Format::D15S1 => q << 1,
        Format::D24S8 | Format::D24X8 | Format::D24X4S4 => q << 8,
        _ => q,
    }
}

#[test]
fn no_depth_buffer_means_no_depth_test() {
    let mut r = Renderer::new(1).expect("renderer");
    let mut t = Targets::new(4, 4, Format::A8R8G8B8, None);
    let mut st = state();
    st.depth.z_enable = ZBufferType::True;
    st.depth.z_func = CmpFunc::Never;
    let s = t.draw(
        &mut r,
        &st,
        Topology::TriangleFan,
        &full_quad(4.0, 4.0, 0.5, 0xFF12_3456),
    );
    assert_eq!(s.pixels_written, 16);
    assert_eq!(t.px(1, 1), 0xFF12_3456);
}

#[test]
fn depth_is_clamped_and_biased() {
    let mut r = Renderer::new(1).expect("renderer");
    let mut st = state();
    st.depth.z_enable = ZBufferType::True;
    st.depth.z_func = CmpFunc::Always;
    // With CLIPPING on, pre-transformed z beyond [0, 1] is clipped away
    // (the near and far planes, D3DPMISCCAPS_CLIPTLVERTS).
    let mut t = Targets::new(4, 4, Format::A8R8G8B8, Some(Format::D16));
    for z in [1.7, -3.0] {
        let s = t.draw(
            &mut r,
            &st,
            Topology::TriangleFan,
            &full_quad(4.0, 4.0, z, 0),
        );
        assert_eq!(s.pixels_written, 0, "z = {z}");
    }
    // With CLIPPING off, z beyond [0, 1] is clamped to the format range.
    st.raster.clipping = false;
    t.draw(
        &mut r,
        &st,
        Topology::TriangleFan,
        &full_quad(4.0, 4.0, 1.7, 0),
    );
    assert_eq!(
        t.depth.as_ref().and_then(|d| d.read_pixel(1, 1)),
        Some(0xFFFF)
    );
    t.draw(
        &mut r,
        &st,
        Topology::TriangleFan,
        &full_quad(4.0, 4.0, -3.0, 0),
    );
    assert_eq!(t.depth.as_ref().and_then(|d| d.read_pixel(1, 1)), Some(0));
    // DEPTHBIAS adds; legacy ZBIAS subtracts 2^-16 per step.
    st.depth.depth_bias = 0.25;
    t.draw(
        &mut r,
        &st,
        Topology::TriangleFan,
        &full_quad(4.0, 4.0, 0.25, 0),
    );
    assert_eq!(
        t.depth.as_ref().and_then(|d| d.read_pixel(1, 1)),
        Some(Format::D16.quantize_depth(0.5))
    );
    st.depth.depth_bias = 0.0;
    st.depth.z_bias = 16;
    t.draw(
        &mut r,
        &st,
        Topology::TriangleFan,
        &full_quad(4.0, 4.0, 0.5, 0),
    );
    let want = Format::D16.quantize_depth(0.5 - 16.0 / 65536.0);
    assert_eq!(
        t.depth.as_ref().and_then(|d| d.read_pixel(1, 1)),
        Some(want)
    );
    // Slope-scaled bias: a plane rising 0.01 per pixel in x, scale 10 →
    // +0.1 everywhere.
    st.depth.z_bias = 0;
    st.depth.slope_scale_depth_bias = 10.0;
    let q = [
        vz(-0.5, -0.5, 0.2, 0),
        vz(99.5, -0.5, 1.2, 0),
        vz(-0.5, 99.5, 0.2, 0),
    ];
    t.draw(&mut r, &st, Topology::TriangleList, &q);
    let d = t
        .depth
        .as_ref()
        .and_then(|d| d.read_depth(0, 0))
        .unwrap_or(0.0);
    assert!((d - (0.205 + 0.1)).abs() < 0.001, "{d}");
}

#[test]
fn w_buffer_stores_w_mapped_to_the_winfo_range() {
    let mut r = Renderer::new(1).expect("renderer");
    let mut t = Targets::new(4, 4, Format::A8R8G8B8, Some(Format::D24S8));
    t.clear(&mut r, 0, 1.0, 0);
    let mut st = state();
    st.depth.z_enable = ZBufferType::UseW;
    st.depth.z_func = CmpFunc::Less;
    st.depth.w_near = 1.0;
    st.depth.w_far = 9.0;
    let mut q = full_quad(4.0, 4.0, 0.9, 0xFFFF_0000);
    for p in &mut q {
        p.rhw = 0.2; // w = 5 → (5 - 1) / 8 = 0.5
    }
    let s = t.draw(&mut r, &st, Topology::TriangleFan, &q);
    assert_eq!(s.pixels_written, 16);
    let d = t
        .depth
        .as_ref()
        .and_then(|d| d.read_depth(2, 2))
        .unwrap_or(0.0);
    assert!((d - 0.5).abs() < 1e-6, "{d}");
    // A farther quad (w = 7) fails LESS.
    for p in &mut q {
        p.rhw = 1.0 / 7.0;
    }
    let s = t.draw(&mut r, &st, Topology::TriangleFan, &q);
    assert_eq!(s.pixels_written, 0);
}

#[test]
fn every_stencil_op_and_function() {
    let ops = [
        StencilOp::Keep,
        StencilOp::Zero,
        StencilOp::Replace,
        StencilOp::IncrSat,
        StencilOp::DecrSat,
        StencilOp::Invert,
        StencilOp::Incr,
        StencilOp::Decr,
    ];
    let mut r = Renderer::new(1).expect("renderer");
    for f in [Format::D24S8, Format::D24X4S4, Format::D15S1] {
        let bits = f.stencil_bits();
        let max = (1u32 << bits) - 1;
        for func in FUNCS {
            for op in ops {
                for stored in [0u32, 1, max] {
                    // Stencil fail → `op` on fail; pass → `op` on pass.
                    let mut t = Targets::new(4, 4, Format::A8R8G8B8, Some(f));
                    t.clear(&mut r, 0, 0.5, stored);
                    let mut st = state();
                    st.stencil.enable = true;
                    st.stencil.reference = 1;
                    st.stencil.front.func = func;
                    st.stencil.front.fail = op;
                    st.stencil.front.pass = op;
                    st.stencil.front.z_fail = StencilOp::Keep;
                    let s = t.draw(
                        &mut r,
                        &st,
                        Topology::TriangleFan,
                        &full_quad(4.0, 4.0, 0.5, 0xFFFF_FFFF),
                    );
                    let pass = func.test(1 & max, stored);
                    assert_eq!(
                        s.pixels_written,
                        if pass { 16 } else { 0 },
                        "{f:?} {func:?} {op:?} {stored}"
                    );
                    let want = op.apply(stored, 1, bits);
                    let got = t.depth.as_ref().and_then(|d| d.read_stencil(1, 2));
                    assert_eq!(got, Some(want), "{f:?} {func:?} {op:?} stored {stored}");
                    // Depth untouched (z write only on pass, with the
                    // depth test disabled no depth write happens).
                    assert!(
                        (t.depth
                            .as_ref()
                            .and_then(|d| d.read_depth(1, 2))
                            .unwrap_or(0.0)
                            - 0.5)
                            .abs()
                            < 1e-3
                    );
                }
            }
        }
    }
}

#[test]
fn stencil_masks_zfail_and_two_sided() {
    let mut r = Renderer::new(1).expect("renderer");
    let mut t = Targets::new(8, 8, Format::A8R8G8B8, Some(Format::D24S8));
    t.clear(&mut r, 0, 0.5, 0xF0);
    let mut st = state();
    st.stencil.enable = true;
    st.stencil.reference = 0x3C;
    st.stencil.mask = 0x0F; // compares 0x0C with 0x00: NotEqual passes
    st.stencil.write_mask = 0x33;
    st.stencil.front.func = CmpFunc::NotEqual;
    st.stencil.front.pass = StencilOp::Replace;
    t.draw(
        &mut r,
        &st,
        Topology::TriangleFan,
        &full_quad(8.0, 8.0, 0.5, 0xFFFF_FFFF),
    );
    // (0xF0 & !0x33) | (0x3C & 0x33) = 0xC0 | 0x30.
    assert_eq!(
        t.depth.as_ref().and_then(|d| d.read_stencil(4, 4)),
        Some(0xF0)
    );
    // Depth fail → z_fail op.
    let mut t = Targets::new(8, 8, Format::A8R8G8B8, Some(Format::D24S8));
    t.clear(&mut r, 0, 0.25, 7);
    let mut st = state();
    st.depth.z_enable = ZBufferType::True;
    st.depth.z_func = CmpFunc::Less;
    st.stencil.enable = true;
    st.stencil.front.z_fail = StencilOp::IncrSat;
    st.stencil.front.pass = StencilOp::Zero;
    let s = t.draw(
        &mut r,
        &st,
        Topology::TriangleFan,
        &full_quad(8.0, 8.0, 0.5, 0xFFFF_FFFF),
    );
    assert_eq!(s.pixels_written, 0);
    assert_eq!(t.depth.as_ref().and_then(|d| d.read_stencil(4, 4)), Some(8));
    // Two-sided: clockwise triangles use the front ops, counter-clockwise
    // ones the CCW ops.
    let mut t = Targets::new(8, 8, Format::A8R8G8B8, Some(Format::D24S8));
    t.clear(&mut r, 0, 1.0, 10);
    let mut st = state();
    st.stencil.enable = true;
    st.stencil.two_sided = true;
    st.stencil.front.pass = StencilOp::Incr;
    st.stencil.ccw.pass = StencilOp::Decr;
    let cw = [v(-0.5, -0.5, 0), v(7.5, -0.5, 0), v(-0.5, 7.5, 0)];
    let ccw = [v(7.5, -0.5, 0), v(-0.5, 7.5, 0), v(7.5, 7.5, 0)];
    let mut both = cw.to_vec();
    both.extend(ccw);
    t.draw(&mut r, &st, Topology::TriangleList, &both);
    assert_eq!(
        t.depth.as_ref().and_then(|d| d.read_stencil(1, 1)),
        Some(11)
    );
    assert_eq!(t.depth.as_ref().and_then(|d| d.read_stencil(6, 6)), Some(9));
}

#[test]
fn alpha_test_discards_before_depth_and_stencil() {
    let mut r = Renderer::new(1).expect("renderer");
    for func in FUNCS {
        let mut t = Targets::new(4, 4, Format::A8R8G8B8, Some(Format::D24S8));
        t.clear(&mut r, 0, 1.0, 0);
        let mut st = state();
        st.alpha_test.enable = true;
        st.alpha_test.func = func;
        st.alpha_test.reference = 0x80;
        st.depth.z_enable = ZBufferType::True;
        st.depth.z_func = CmpFunc::Always;
        st.stencil.enable = true;
        st.stencil.front.pass = StencilOp::Incr;
        let s = t.draw(
            &mut r,
            &st,
            Topology::TriangleFan,
            &full_quad(4.0, 4.0, 0.5, 0x80FF_FFFF),
        );
        let pass = func.test(0x80, 0x80);
        assert_eq!(s.pixels_written, if pass { 16 } else { 0 }, "{func:?}");
        assert_eq!(s.samples_passed_depth, s.pixels_written);
        assert_eq!(
            t.depth.as_ref().and_then(|d| d.read_stencil(0, 0)),
            Some(u32::from(pass))
        );
    }
}

#[test]
fn blending_exact_values_and_separate_alpha() {
    let mut r = Renderer::new(1).expect("renderer");
    let mut t = Targets::new(4, 4, Format::A8R8G8B8, None);
    t.clear(&mut r, 0x4010_2030, 1.0, 0);
    let mut st = state();
    st.blend.enable = true;
    st.blend.src = Blend::SrcAlpha;
    st.blend.dst = Blend::InvSrcAlpha;
    st.blend.separate_alpha = true;
    st.blend.src_alpha = Blend::One;
    st.blend.dst_alpha = Blend::One;
    st.blend.op_alpha = BlendOp::Add;
    t.draw(
        &mut r,
        &st,
        Topology::TriangleFan,
        &full_quad(4.0, 4.0, 0.5, 0x80FF_8000),
    );
    let ch = |s: u32, d: u32| (s * 0x80 + d * 0x7F + 127) / 255;
    let want = (0x40 + 0x80) << 24 | ch(0xFF, 0x10) << 16 | ch(0x80, 0x20) << 8 | ch(0x00, 0x30);
    assert_eq!(t.px(2, 2), want);
    // REVSUBTRACT with factors ONE/ONE: dst - src, clamped at 0.
    let mut st = state();
    st.blend.enable = true;
    st.blend.src = Blend::One;
    st.blend.dst = Blend::One;
    st.blend.op = BlendOp::RevSubtract;
    t.draw(
        &mut r,
        &st,
        Topology::TriangleFan,
        &full_quad(4.0, 4.0, 0.5, 0x0100_00FF),
    );
    assert_eq!(t.px(2, 2), (want & 0xFFFF_FF00) - 0x0100_0000);
    // Destination alpha of an X8 target reads as 1.
    let mut t = Targets::new(4, 4, Format::X8R8G8B8, None);
    t.clear(&mut r, 0x0000_0000, 1.0, 0);
    let mut st = state();
    st.blend.enable = true;
    st.blend.src = Blend::InvDestAlpha;
    st.blend.dst = Blend::Zero;
    t.draw(
        &mut r,
        &st,
        Topology::TriangleFan,
        &full_quad(4.0, 4.0, 0.5, 0xFFFF_FFFF),
    );
    assert_eq!(t.px(1, 1), 0xFF00_0000);
}

#[test]
fn color_write_enable_keeps_masked_channels() {
    let mut r = Renderer::new(1).expect("renderer");
    for f in [Format::A8R8G8B8, Format::R5G6B5, Format::A4R4G4B4] {
        let mut t = Targets::new(4, 4, f, None);
        t.clear(&mut r, 0x0000_0000, 1.0, 0);
        let mut st = state();
        st.blend.color_write_enable = 0b1001; // red + alpha
        t.draw(
            &mut r,
            &st,
            Topology::TriangleFan,
            &full_quad(4.0, 4.0, 0.5, 0xFFFF_FFFF),
        );
        let want = f.decode_argb(f.encode_argb(0xFFFF_0000));
        assert_eq!(t.px(0, 0), want, "{f:?}");
    }
}

#[test]
fn scissor_and_viewport_limit_the_pixels() {
    let mut r = Renderer::new(2).expect("renderer");
    let mut t = Targets::new(16, 16, Format::A8R8G8B8, None);
    let mut st = state();
    st.raster.scissor_enable = true;
    st.raster.scissor = Rect::new(2, 3, 7, 11);
    let s = t.draw(
        &mut r,
        &st,
        Topology::TriangleFan,
        &full_quad(16.0, 16.0, 0.5, 0xFFFF_FFFF),
    );
    assert_eq!(s.pixels_written, 5 * 8);
    for y in 0..16 {
        for x in 0..16 {
            let inside = (2..7).contains(&x) && (3..11).contains(&y);
            assert_eq!(t.px(x, y) == 0xFFFF_FFFF, inside, "({x},{y})");
        }
    }
    let mut st = state();
    st.viewport.x = 4;
    st.viewport.width = 4;
    let mut t = Targets::new(16, 16, Format::A8R8G8B8, None);
    let s = t.draw(
        &mut r,
        &st,
        Topology::TriangleFan,
        &full_quad(16.0, 16.0, 0.5, 0xFFFF_FFFF),
    );
    assert_eq!(s.pixels_written, 4 * 16);
}

#[test]
fn clears_over_rect_lists_keep_other_bits() {
    let mut r = Renderer::new(2).expect("renderer");
    let mut c = softhal_pipeline::Surface::with_pitch(Format::R5G6B5, 10, 6, 32).expect("surface");
    let mut d = softhal_pipeline::Surface::new(Format::D24S8, 10, 6).expect("surface");
    let rects = [
        Rect::new(1, 1, 3, 4),
        Rect::new(8, -5, 20, 2),
        Rect::new(5, 5, 5, 6),
    ];
    let all = Clear {
        flags: ClearFlags::from_d3d(7),
        rects: &[],
        color: 0xFF00_0000,
        z: 1.0,
        stencil: 0x5A,
    };
    r.clear(Some(&mut c), Some(&mut d), &all).expect("clear");
    let part = Clear {
        flags: ClearFlags::from_d3d(1 | 2),
        rects: &rects,
        color: 0xFF87_4321,
        z: 0.5,
        stencil: 0,
    };
    r.clear(Some(&mut c), Some(&mut d), &part).expect("clear");
    let inside = |x: u32, y: u32| ((1..3).contains(&x) && (1..4).contains(&y)) || (x >= 8 && y < 2);
    for y in 0..6 {
        for x in 0..10 {
            let want_c = if inside(x, y) {
                Format::R5G6B5.encode_argb(0xFF87_4321)
            } else {
                0
            };
            assert_eq!(c.read_pixel(x, y), Some(want_c), "({x},{y})");
            let want_z = if inside(x, y) { 0x80_0000 } else { 0xFF_FFFF };
            assert_eq!(d.read_pixel(x, y), Some(want_z << 8 | 0x5A), "({x},{y})");
        }
    }
    // Padding bytes beyond the row are never written.
    assert!(c.bytes()[20..32].iter().all(|&b| b == 0));
}

#[test]
fn every_format_round_trips_through_clear_and_draw() {
    let mut r = Renderer::new(1).expect("renderer");
    for f in Format::ALL.into_iter().filter(|f| f.is_color()) {
        for argb in [0xFFFF_FFFFu32, 0x0000_0000, 0x80C0_4020, 0x1234_5678] {
            let want = f.decode_argb(f.encode_argb(argb));
            // Stable: decoding an encoded value and encoding again is exact.
            assert_eq!(f.encode_argb(want), f.encode_argb(argb), "{f:?} {argb:08x}");
            let mut t = Targets::new(4, 4, f, None);
            t.clear(&mut r, argb, 1.0, 0);
            assert_eq!(t.px(3, 3), want, "clear {f:?} {argb:08x}");
            let mut t = Targets::new(4, 4, f, None);
            t.draw(
                &mut r,
                &state(),
                Topology::TriangleFan,
                &full_quad(4.0, 4.0, 0.5, argb),
            );
            assert_eq!(t.px(2, 1), want, "draw {f:?} {argb:08x}");
        }
    }
}

#[test]
fn errors_write_nothing() {
    let mut r = Renderer::new(1).expect("renderer");
    let mut color = softhal_pipeline::Surface::new(Format::A8R8G8B8, 8, 8).expect("surface");
    let mut small = softhal_pipeline::Surface::new(Format::D16, 4, 4).expect("surface");
    let b = bytes(&full_quad(8.0, 8.0, 0.5, 0xFFFF_FFFF));
    let l = layout();
    let call = DrawCall::new(Topology::TriangleFan, &b, &l, 2);
    let mut t = RenderTargets {
        color: &mut color,
        depth: Some(&mut small),
        extra: Default::default(),
    };
    assert!(matches!(
        r.draw(&mut t, &state(), &call),
        Err(PipelineError::DepthTooSmall { .. })
    ));
    let too_many = DrawCall::new(Topology::TriangleFan, &b, &l, 3);
    let mut t = RenderTargets {
        color: &mut color,
        depth: None,
        extra: Default::default(),
    };
    assert!(matches!(
        r.draw(&mut t, &state(), &too_many),
        Err(PipelineError::VertexBufferTooSmall {
            needed: 5,
            available: 4
        })
    ));
    let mut depth_as_color = softhal_pipeline::Surface::new(Format::D16, 8, 8).expect("surface");
    let mut t = RenderTargets {
        color: &mut depth_as_color,
        depth: None,
        extra: Default::default(),
    };
    assert!(matches!(
        r.draw(&mut t, &state(), &call),
        Err(PipelineError::BadFormat { .. })
    ));
    assert!(color.bytes().iter().all(|&x| x == 0));
}

#[test]
fn indexed_draws_check_every_index() {
    let mut r = Renderer::new(2).expect("renderer");
    let mut t = Targets::new(8, 8, Format::A8R8G8B8, None);
    let vs = full_quad(8.0, 8.0, 0.5, 0xFF00_FF00);
    let b = bytes(&vs);
    let l = layout();
    // Second triangle uses index 9 (out of range): dropped, no panic.
    let ix16: Vec<u8> = [0u16, 1, 2, 0, 2, 9]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let ix32: Vec<u8> = [0u32, 1, 2, 0, 2, 3]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    for (ix, want) in [
        (softhal_pipeline::Indices::U16(&ix16), 36u64),
        (softhal_pipeline::Indices::U32(&ix32), 64),
    ] {
        let call = DrawCall {
            indices: Some(ix),
            ..DrawCall::new(Topology::TriangleList, &b, &l, 2)
        };
        let mut rt = RenderTargets {
            color: &mut t.color,
            depth: None,
            extra: Default::default(),
        };
        let s = r.draw(&mut rt, &state(), &call).expect("draw");
        assert_eq!(s.pixels_written, want);
    }
    // base_vertex moving an index below 0 drops the primitive too.
    let call = DrawCall {
        indices: Some(softhal_pipeline::Indices::U32(&ix32)),
        base_vertex: -1,
        ..DrawCall::new(Topology::TriangleList, &b, &l, 2)
    };
    let mut rt = RenderTargets {
        color: &mut t.color,
        depth: None,
        extra: Default::default(),
    };
    assert!(r.draw(&mut rt, &state(), &call).is_ok());
}

/// The blended Gouraud kernels (chosen per draw from the blend-factor
/// pair) write exactly the bytes of the generic pixel path: every pair
/// of the ten colour/alpha factors over a Gouraud background, on
/// A8R8G8B8 and X8R8G8B8, at every thread count and SIMD level. The
/// reference draw enables the alpha test with ALWAYS, which passes every
/// pixel but keeps the draw on the generic path.
#[test]
fn blend_kernels_match_the_generic_path() {
    let factors = [
        Blend::Zero,
        Blend::One,
        Blend::SrcAlpha,
        Blend::InvSrcAlpha,
        Blend::SrcColor,
        Blend::InvSrcColor,
        Blend::DestColor,
        Blend::InvDestColor,
        Blend::DestAlpha,
        Blend::InvDestAlpha,
    ];
    let (w, h) = (67.0f32, 29.0f32);
    let mut rng = Rng(0x00B1_E4D5);
    let color = |rng: &mut Rng| (rng.next() >> 32) as u32;
    // A Gouraud background with random alpha (the destination alpha).
    let mut background = full_quad(w, h, 0.5, 0);
    for x in background.iter_mut() {
        x.diffuse = color(&mut rng);
    }
    background.swap(2, 3);
    let mut tri = || -> Vec<V> {
        (0..3)
            .map(|_| {
                let x = rng.f() * (w + 20.0) - 10.0;
                let y = rng.f() * (h + 20.0) - 10.0;
                v(x, y, color(&mut rng))
            })
            .collect()
    };
    let layers: Vec<Vec<V>> = (0..6).map(|_| tri()).collect();
    for format in [Format::A8R8G8B8, Format::X8R8G8B8] {
        for &src in &factors {
            for &dst in &factors {
                let scene = |r: &mut Renderer, generic: bool| {
                    let mut t = Targets::new(w as u32, h as u32, format, None);
                    t.clear(r, 0x8040_2010, 1.0, 0);
                    t.draw(r, &state(), Topology::TriangleStrip, &background);
                    let mut st = state();
                    st.blend.enable = true;
                    st.blend.src = src;
                    st.blend.dst = dst;
                    if generic {
                        st.alpha_test.enable = true;
                        st.alpha_test.func = CmpFunc::Always;
                    }
                    for l in &layers {
                        t.draw(r, &st, Topology::TriangleList, l);
                    }
                    t
                };
                let want = scene(&mut Renderer::new(1).expect("renderer"), true);
                let got = render_all(|r| scene(r, false));
                assert!(
                    want.color.bytes() == got.color.bytes(),
                    "{format:?} {src:?}/{dst:?}: the kernel differs from the generic path"
                );
            }
        }
    }
}
