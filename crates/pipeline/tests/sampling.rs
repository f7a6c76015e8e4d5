//! Texture sampling: point and bilinear filtering under every address
//! mode at known coordinates, mip selection (LOD, bias, MAXMIPLEVEL,
//! SETTEXLOD, point / linear mip filters), anisotropic probes, cube-face
//! selection, volume filtering, colour keying, the DX6 filter numbering and
//! the A8R8G8B8 fast path.

use softhal_pipeline::texture::fast::{bilinear_wrap_argb8, bilinear_wrap_argb8_x4};
use softhal_pipeline::texture::{
    apply_color_key, sample_2d, sample_2d_keyed, sample_cube, sample_volume, select_mip, ColorKey,
    ColorKeyMode, Derivatives, KeyedTexel, SamplerState, Texture, TextureAddress as A, TextureDesc,
    TextureFilter as Fl, TextureFormat as F, TextureKind,
};

const EPS: f32 = 1e-6;

fn close(a: [f32; 4], b: [f32; 4]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= EPS)
}

fn new_tex(kind: TextureKind, format: F, w: u32, h: u32, d: u32, levels: u32) -> Texture {
    Texture::new(TextureDesc {
        kind,
        format,
        width: w,
        height: h,
        depth: d,
        levels,
    })
    .expect("texture")
}

/// 4×4 L8 texture, texel (x, y) = 16·(4y + x) + 8.
fn lum4() -> Texture {
    let mut t = new_tex(TextureKind::Texture2D, F::L8, 4, 4, 1, 1);
    let bytes: Vec<u8> = (0..16u8).map(|i| 16 * i + 8).collect();
    t.upload(0, 0, &bytes, 4).expect("upload");
    t
}

fn l(x: u32, y: u32) -> f32 {
    f32::from(16 * (4 * y + x) as u8 + 8) / 255.0
}

fn lv(v: f32) -> [f32; 4] {
    [v, v, v, 1.0]
}

fn sampler(addr: A, filter: Fl) -> SamplerState {
    SamplerState {
        address_u: addr,
        address_v: addr,
        address_w: addr,
        border_color: 0x80FF_0000,
        mag_filter: filter,
        min_filter: filter,
        ..SamplerState::default()
    }
}

const BORDER: [f32; 4] = [1.0, 0.0, 0.0, 128.0 / 255.0];
const NO_DERIV: Derivatives = Derivatives {
    ddx: [0.0; 3],
    ddy: [0.0; 3],
};

#[test]
fn point_sampling_every_address_mode() {
    let t = lum4();
    // v = 0.3 → row 1 (1.2). u = 0.6 → column 2 (2.4), in range.
    for a in [A::Wrap, A::Mirror, A::Clamp, A::Border, A::MirrorOnce] {
        let s = sampler(a, Fl::Point);
        assert_eq!(
            sample_2d(&t, &s, [0.6, 0.3], &NO_DERIV),
            lv(l(2, 1)),
            "{a:?}"
        );
        // Texel centre convention: u = 0.25 is the left edge of texel 1.
        assert_eq!(sample_2d(&t, &s, [0.25, 0.3], &NO_DERIV), lv(l(1, 1)));
        assert_eq!(sample_2d(&t, &s, [0.2499, 0.3], &NO_DERIV), lv(l(0, 1)));
    }
    // u = −0.3 → texel −2 (−1.2); u = 1.3 → texel 5 (5.2).
    let cases = [
        (A::Wrap, Some(2), Some(1)),
        (A::Mirror, Some(1), Some(2)),
        (A::Clamp, Some(0), Some(3)),
        (A::Border, None, None),
        (A::MirrorOnce, Some(1), Some(3)),
    ];
    for (a, lo, hi) in cases {
        let s = sampler(a, Fl::Point);
        let want = |x: Option<u32>| x.map_or(BORDER, |x| lv(l(x, 1)));
        assert_eq!(sample_2d(&t, &s, [-0.3, 0.3], &NO_DERIV), want(lo), "{a:?}");
        assert_eq!(sample_2d(&t, &s, [1.3, 0.3], &NO_DERIV), want(hi), "{a:?}");
    }
}

#[test]
fn bilinear_every_address_mode() {
    let t = lum4();
    // At a texel centre bilinear returns the texel.
    for a in [A::Wrap, A::Mirror, A::Clamp, A::Border, A::MirrorOnce] {
        let s = sampler(a, Fl::Linear);
        assert!(close(
            sample_2d(&t, &s, [1.5 / 4.0, 2.5 / 4.0], &NO_DERIV),
            lv(l(1, 2))
        ));
        // A quarter texel right of centre (1, 2): 0.75·t(1) + 0.25·t(2).
        let want = 0.75 * l(1, 2) + 0.25 * l(2, 2);
        assert!(close(
            sample_2d(&t, &s, [1.75 / 4.0, 2.5 / 4.0], &NO_DERIV),
            lv(want)
        ));
    }
    // u = 0 (x = −0.5): half texel −1, half texel 0 of row 2.
    let row = 2;
    let v = (row as f32 + 0.5) / 4.0;
    let half = |a: [f32; 4], b: [f32; 4]| [0, 1, 2, 3].map(|i| 0.5 * a[i] + 0.5 * b[i]);
    let cases = [
        (A::Wrap, half(lv(l(3, row)), lv(l(0, row)))),
        (A::Mirror, lv(l(0, row))),
        (A::Clamp, lv(l(0, row))),
        (A::Border, half(BORDER, lv(l(0, row)))),
        (A::MirrorOnce, lv(l(0, row))),
    ];
    for (a, want) in cases {
        let s = sampler(a, Fl::Linear);
        let got = sample_2d(&t, &s, [0.0, v], &NO_DERIV);
        assert!(close(got, want), "{a:?}: {got:?} vs {want:?}");
    }
    // u = 1 (x = 3.5): texel 3 and texel 4.
    let cases = [
        (A::Wrap, half(lv(l(3, row)), lv(l(0, row)))),
        (A::Mirror, lv(l(3, row))),
        (A::Clamp, lv(l(3, row))),
        (A::Border, half(lv(l(3, row)), BORDER)),
        (A::MirrorOnce, lv(l(3, row))),
    ];
    for (a, want) in cases {
        let s = sampler(a, Fl::Linear);
        let got = sample_2d(&t, &s, [1.0, v], &NO_DERIV);
        assert!(close(got, want), "{a:?}: {got:?} vs {want:?}");
    }
    // Corner: 4 texels with weights ¼ (wrap at (0, 0)).
    let s = sampler(A::Wrap, Fl::Linear);
    let want = 0.25 * (l(3, 3) + l(0, 3) + l(3, 0) + l(0, 0));
    assert!(close(sample_2d(&t, &s, [0.0, 0.0], &NO_DERIV), lv(want)));
}

/// 4×4 L8 texture with 3 levels of uniform values 0, 100, 200.
fn mipped() -> Texture {
    let mut t = new_tex(TextureKind::Texture2D, F::L8, 4, 4, 1, 0);
    assert_eq!(t.level_count(), 3);
    for (level, v) in [(0u32, 0u8), (1, 100), (2, 200)] {
        let n = 4usize >> level;
        t.upload(0, level, &vec![v; n * n], n).expect("upload");
    }
    t
}

fn deriv(texels_x: f32) -> Derivatives {
    // 4-texel-wide level 0: `texels_x` texels per pixel along x.
    Derivatives {
        ddx: [texels_x / 4.0, 0.0, 0.0],
        ddy: [0.0, texels_x / 4.0 * 0.5, 0.0],
    }
}

#[test]
fn mip_selection_and_trilinear() {
    let mut t = mipped();
    let v = |x: u8| lv(f32::from(x) / 255.0);
    let mut s = sampler(A::Wrap, Fl::Point);
    // MIPFILTER NONE: always the base level.
    s.mip_filter = Fl::None;
    assert_eq!(sample_2d(&t, &s, [0.5, 0.5], &deriv(2.0)), v(0));
    // POINT: nearest level, floor(lod + 0.5).
    s.mip_filter = Fl::Point;
    assert_eq!(sample_2d(&t, &s, [0.5, 0.5], &deriv(1.0)), v(0)); // lod 0
    assert_eq!(sample_2d(&t, &s, [0.5, 0.5], &deriv(1.4)), v(0)); // 0.485
    assert_eq!(sample_2d(&t, &s, [0.5, 0.5], &deriv(1.5)), v(100)); // 0.585
    assert_eq!(sample_2d(&t, &s, [0.5, 0.5], &deriv(4.0)), v(200)); // 2
    assert_eq!(sample_2d(&t, &s, [0.5, 0.5], &deriv(64.0)), v(200)); // clamped
                                                                     // LINEAR: blend by the fraction of lod = log2(1.5).
    s.mip_filter = Fl::Linear;
    let f = 1.5f32.log2();
    let got = sample_2d(&t, &s, [0.5, 0.5], &deriv(1.5));
    assert!(close(got, lv(f * 100.0 / 255.0)), "{got:?}");
    let got = sample_2d(&t, &s, [0.5, 0.5], &deriv(3.0));
    let f3 = 3.0f32.log2() - 1.0;
    assert!(close(got, lv((100.0 + f3 * 100.0) / 255.0)), "{got:?}");
    // Bias +1 moves lod 0 to level 1.
    s.mip_filter = Fl::Point;
    s.mip_lod_bias = 1.0;
    assert_eq!(sample_2d(&t, &s, [0.5, 0.5], &deriv(1.0)), v(100));
    s.mip_lod_bias = 0.0;
    // MAXMIPLEVEL 1: level 0 is never used, even when magnifying.
    s.max_mip_level = 1;
    assert_eq!(sample_2d(&t, &s, [0.5, 0.5], &NO_DERIV), v(100));
    assert_eq!(sample_2d(&t, &s, [0.5, 0.5], &deriv(4.0)), v(200));
    s.max_mip_level = 0;
    // SETTEXLOD 2 wins over MAXMIPLEVEL 0; 7 is clamped to the last level.
    t.set_lod(2);
    assert_eq!(sample_2d(&t, &s, [0.5, 0.5], &deriv(1.0)), v(200));
    t.set_lod(7);
    assert_eq!(sample_2d(&t, &s, [0.5, 0.5], &NO_DERIV), v(200));
}

#[test]
fn mag_versus_min_filter() {
    // Level 0 L8 4×4 as lum4, and a mag filter that differs from min.
    let t = lum4();
    let s = SamplerState {
        mag_filter: Fl::Linear,
        min_filter: Fl::Point,
        ..SamplerState::default()
    };
    let uv = [1.75 / 4.0, 2.5 / 4.0];
    // Magnifying (lod < 0): bilinear.
    let got = sample_2d(&t, &s, uv, &deriv(0.5));
    assert!(close(got, lv(0.75 * l(1, 2) + 0.25 * l(2, 2))));
    // Minifying (lod > 0, single level): point.
    assert_eq!(sample_2d(&t, &s, uv, &deriv(2.0)), lv(l(1, 2)));
}

#[test]
fn quad_derivatives_and_lod() {
    let d = Derivatives::from_quad([
        [0.0, 0.0, 0.0],
        [0.25, 0.0, 0.0],
        [0.0, 0.5, 0.0],
        [0.25, 0.5, 0.0],
    ]);
    assert_eq!(d.ddx, [0.25, 0.0, 0.0]);
    assert_eq!(d.ddy, [0.0, 0.5, 0.0]);
    let t = mipped();
    let s = SamplerState {
        mip_filter: Fl::Point,
        ..SamplerState::default()
    };
    // |ddy| = 2 texels → lod 1.
    let sel = select_mip(&s, [4, 4, 0], t.level_count(), 0, &d);
    assert_eq!((sel.level0, sel.level1, sel.probes), (1, 1, 1));
    assert!(!sel.linear);
}

#[test]
fn anisotropic_probes() {
    let s = SamplerState {
        min_filter: Fl::Anisotropic,
        mag_filter: Fl::Linear,
        mip_filter: Fl::Point,
        max_anisotropy: 4,
        ..SamplerState::default()
    };
    // 64-wide texture: ddx 8 texels, ddy 2 texels → ratio 4 → 4 probes at
    // lod log2(8 / 4) = 1.
    let d = Derivatives {
        ddx: [8.0 / 64.0, 0.0, 0.0],
        ddy: [0.0, 2.0 / 64.0, 0.0],
    };
    let sel = select_mip(&s, [64, 64, 0], 7, 0, &d);
    assert_eq!((sel.probes, sel.level0, sel.level1), (4, 1, 1));
    assert!(sel.linear);
    assert_eq!(sel.axis, d.ddx);
    // Ratio capped by MAXANISOTROPY: ddx 16, ddy 1 → 4 probes, lod 2.
    let d = Derivatives {
        ddx: [16.0 / 64.0, 0.0, 0.0],
        ddy: [0.0, 1.0 / 64.0, 0.0],
    };
    let sel = select_mip(&s, [64, 64, 0], 7, 0, &d);
    assert_eq!((sel.probes, sel.level0), (4, 2));
    // MAXANISOTROPY 1 behaves as linear: lod log2(16) = 4.
    let s1 = SamplerState {
        max_anisotropy: 1,
        ..s
    };
    let sel = select_mip(&s1, [64, 64, 0], 7, 0, &d);
    assert_eq!((sel.probes, sel.level0), (1, 4));
    // Sampling: a 4×1 texture with a horizontal ramp, footprint of the
    // whole texture along x → 4 probes averaging the 4 texels at level 0.
    let mut t = new_tex(TextureKind::Texture2D, F::L8, 4, 1, 1, 1);
    t.upload(0, 0, &[0, 40, 80, 120], 4).expect("upload");
    let s = SamplerState {
        min_filter: Fl::Anisotropic,
        mag_filter: Fl::Point,
        max_anisotropy: 16,
        ..SamplerState::default()
    };
    let d = Derivatives {
        ddx: [1.0, 0.0, 0.0],
        ddy: [0.0, 0.25, 0.0],
    };
    let got = sample_2d(&t, &s, [0.5, 0.5], &d);
    // Probes at u = 0.5 + (k + 0.5)/4 − 0.5 = 1/8, 3/8, 5/8, 7/8: the 4
    // texel centres, each bilinear = the texel.
    assert!(close(got, lv(60.0 / 255.0)), "{got:?}");
}

#[test]
fn filter_numbers() {
    // D3DTEXF_NONE 0, ANISOTROPIC 3, GAUSSIANCUBIC 5 (sampled as LINEAR);
    // CONVOLUTIONMONO 8 is not sampled, 9 is not a D3DTEXF value.
    let sampled = [
        (0, Some(Fl::None)),
        (3, Some(Fl::Anisotropic)),
        (5, Some(Fl::Linear)),
        (8, None),
        (9, None),
    ];
    for (v, want) in sampled {
        assert_eq!(Fl::from_d3d(v), want, "D3DTEXF value {v}");
    }
    assert_eq!(ColorKeyMode::from_d3d(1, 0), ColorKeyMode::Reject);
    assert_eq!(ColorKeyMode::from_d3d(1, 1), ColorKeyMode::Blend);
}

#[test]
fn cube_maps() {
    let mut t = new_tex(TextureKind::Cube, F::A8R8G8B8, 2, 2, 1, 1);
    for face in 0..6u32 {
        // Texel (x, y) of face f: red = 40·f, green = 100·x, blue = 100·y.
        let mut b = Vec::new();
        for y in 0..2u32 {
            for x in 0..2u32 {
                b.extend_from_slice(
                    &(0xFF00_0000 | ((40 * face) << 16) | ((100 * x) << 8) | (100 * y))
                        .to_le_bytes(),
                );
            }
        }
        t.upload(face, 0, &b, 8).expect("upload");
    }
    let s = SamplerState::default();
    let c = |f: u32, x: u32, y: u32| {
        [
            (40 * f) as f32 / 255.0,
            (100 * x) as f32 / 255.0,
            (100 * y) as f32 / 255.0,
            1.0,
        ]
    };
    // +X, u ← −z, v ← −y: direction (1, 0.5, 0.5) → u 0.25, v 0.25.
    assert_eq!(sample_cube(&t, &s, [1.0, 0.5, 0.5], &NO_DERIV), c(0, 0, 0));
    assert_eq!(
        sample_cube(&t, &s, [1.0, -0.5, -0.5], &NO_DERIV),
        c(0, 1, 1)
    );
    // −X: u ← z.
    assert_eq!(sample_cube(&t, &s, [-1.0, 0.5, 0.5], &NO_DERIV), c(1, 1, 0));
    // +Y: u ← x, v ← z.
    assert_eq!(sample_cube(&t, &s, [0.5, 1.0, -0.5], &NO_DERIV), c(2, 1, 0));
    // −Y: v ← −z.
    assert_eq!(
        sample_cube(&t, &s, [0.5, -1.0, -0.5], &NO_DERIV),
        c(3, 1, 1)
    );
    // +Z: u ← x, v ← −y.
    assert_eq!(
        sample_cube(&t, &s, [-0.5, -0.5, 1.0], &NO_DERIV),
        c(4, 0, 1)
    );
    // −Z: u ← −x.
    assert_eq!(
        sample_cube(&t, &s, [-0.5, 0.5, -1.0], &NO_DERIV),
        c(5, 1, 0)
    );
    // Faces clamp: bilinear at a face corner reads only that face's texel.
    let s = sampler(A::Wrap, Fl::Linear);
    assert!(close(
        sample_cube(&t, &s, [1.0, 1.0, 1.0 + 1e-3], &NO_DERIV),
        c(4, 1, 0)
    ));
}

#[test]
fn volume_textures() {
    let mut t = new_tex(TextureKind::Volume, F::L8, 2, 2, 2, 1);
    // Voxel (x, y, z) = 10 + 20·(x + 2y + 4z).
    let b: Vec<u8> = (0..8u8).map(|i| 10 + 20 * i).collect();
    t.upload(0, 0, &b, 2).expect("upload");
    let vox = |x: u8, y: u8, z: u8| f32::from(10 + 20 * (x + 2 * y + 4 * z)) / 255.0;
    let s = sampler(A::Clamp, Fl::Point);
    assert_eq!(
        sample_volume(&t, &s, [0.75, 0.25, 0.75], &NO_DERIV),
        lv(vox(1, 0, 1))
    );
    assert_eq!(
        sample_volume(&t, &s, [0.25, 0.75, 0.25], &NO_DERIV),
        lv(vox(0, 1, 0))
    );
    // Trilinear at the centre: mean of all 8 voxels = (10 + 150) / 2 = 80.
    let s = sampler(A::Clamp, Fl::Linear);
    assert!(close(
        sample_volume(&t, &s, [0.5, 0.5, 0.5], &NO_DERIV),
        lv(80.0 / 255.0)
    ));
    // Border in w only.
    let s = SamplerState {
        address_w: A::Border,
        border_color: 0xFF00_FF00,
        ..sampler(A::Clamp, Fl::Point)
    };
    assert_eq!(
        sample_volume(&t, &s, [0.25, 0.25, 1.5], &NO_DERIV),
        [0.0, 1.0, 0.0, 1.0]
    );
}

#[test]
fn colour_keys() {
    // 2×1 R5G6B5: texel 0 = magenta key 0xF81F, texel 1 = white.
    let mut t = new_tex(TextureKind::Texture2D, F::R5G6B5, 2, 1, 1, 1);
    t.upload(0, 0, &[0x1F, 0xF8, 0xFF, 0xFF], 4)
        .expect("upload");
    let s = sampler(A::Clamp, Fl::Point);
    // No key set: keying modes change nothing.
    assert_eq!(
        sample_2d_keyed(&t, &s, [0.25, 0.5], &NO_DERIV, ColorKeyMode::Reject),
        Some([1.0, 0.0, 1.0, 1.0])
    );
    t.set_color_key(Some(ColorKey {
        low: 0xF81F,
        high: 0xF81F,
    }));
    assert_eq!(
        sample_2d_keyed(&t, &s, [0.25, 0.5], &NO_DERIV, ColorKeyMode::Reject),
        None
    );
    assert_eq!(
        sample_2d_keyed(&t, &s, [0.75, 0.5], &NO_DERIV, ColorKeyMode::Reject),
        Some([1.0; 4])
    );
    assert_eq!(
        sample_2d_keyed(&t, &s, [0.25, 0.5], &NO_DERIV, ColorKeyMode::Blend),
        Some([0.0; 4])
    );
    assert_eq!(
        sample_2d_keyed(&t, &s, [0.25, 0.5], &NO_DERIV, ColorKeyMode::Off),
        Some([1.0, 0.0, 1.0, 1.0])
    );
    // Blend mode keys each bilinear tap: halfway between key and white.
    let s = sampler(A::Clamp, Fl::Linear);
    let got = sample_2d_keyed(&t, &s, [0.5, 0.5], &NO_DERIV, ColorKeyMode::Blend);
    assert_eq!(got, Some([0.5; 4]));
    // The helper for raster cores keying texels themselves.
    let key = Some(ColorKey { low: 5, high: 9 });
    assert_eq!(
        apply_color_key([1.0; 4], Some(7), key, ColorKeyMode::Blend),
        KeyedTexel::Transparent
    );
    assert_eq!(
        apply_color_key([1.0; 4], Some(9), key, ColorKeyMode::Reject),
        KeyedTexel::Reject
    );
    assert_eq!(
        apply_color_key([1.0; 4], Some(10), key, ColorKeyMode::Reject),
        KeyedTexel::Keep([1.0; 4])
    );
    assert_eq!(
        apply_color_key([1.0; 4], None, key, ColorKeyMode::Blend),
        KeyedTexel::Keep([1.0; 4])
    );
}

/// 8×8 A8R8G8B8 texture with a deterministic pseudo-random pattern.
fn argb8x8(format: F) -> Texture {
    let mut t = new_tex(TextureKind::Texture2D, format, 8, 8, 1, 1);
    let mut b = Vec::new();
    let mut s = 0x1234_5678u32;
    for _ in 0..64 {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        b.extend_from_slice(&s.to_le_bytes());
    }
    t.upload(0, 0, &b, 32).expect("upload");
    t
}

#[test]
fn fast_path_exact_values() {
    let mut t = new_tex(TextureKind::Texture2D, F::A8R8G8B8, 2, 1, 1, 1);
    t.upload(0, 0, &[0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF], 8)
        .expect("upload");
    let lv0 = t.level(0, 0).expect("level");
    // Texel centres.
    assert_eq!(bilinear_wrap_argb8(&lv0, 0.25, 0.5), Some(0));
    assert_eq!(bilinear_wrap_argb8(&lv0, 0.75, 0.5), Some(0xFFFF_FFFF));
    // Halfway: (128·0 + 128·255 + 128) … = (32768·255 + 32768) >> 16 = 128.
    assert_eq!(bilinear_wrap_argb8(&lv0, 0.5, 0.5), Some(0x8080_8080));
    // Wrap at u = 0: texel −1 (= 1) and texel 0, halfway.
    assert_eq!(bilinear_wrap_argb8(&lv0, 0.0, 0.5), Some(0x8080_8080));
    assert_eq!(bilinear_wrap_argb8(&lv0, 3.0, -7.5), Some(0x8080_8080));
    // A quarter texel: weights 192/64 → (64·255·256 + 32768) >> 16 = 64 (63.75 rounds up).
    assert_eq!(bilinear_wrap_argb8(&lv0, 0.375, 0.5), Some(0x4040_4040));
    assert_eq!(bilinear_wrap_argb8(&lv0, f32::NAN, 0.5), Some(0x8080_8080));
    let x4 = bilinear_wrap_argb8_x4(&lv0, [0.25, 0.75, 0.5, 0.375], [0.5; 4]);
    assert_eq!(x4, Some([0, 0xFFFF_FFFF, 0x8080_8080, 0x4040_4040]));
    // X8R8G8B8 reads alpha as 255; other formats are refused.
    let mut x = new_tex(TextureKind::Texture2D, F::X8R8G8B8, 2, 1, 1, 1);
    x.upload(0, 0, &[0; 8], 8).expect("upload");
    assert_eq!(
        bilinear_wrap_argb8(&x.level(0, 0).expect("level"), 0.5, 0.5),
        Some(0xFF00_0000)
    );
    let l8 = lum4();
    assert_eq!(
        bilinear_wrap_argb8(&l8.level(0, 0).expect("level"), 0.5, 0.5),
        None
    );
}

#[test]
fn fast_path_matches_generic_bilinear() {
    for format in [F::A8R8G8B8, F::X8R8G8B8] {
        let t = argb8x8(format);
        let lv0 = t.level(0, 0).expect("level");
        let s = sampler(A::Wrap, Fl::Linear);
        let mut worst = 0i32;
        for i in -40..40 {
            for j in -40..40 {
                // Coordinates on a 1/64 grid plus an odd offset.
                let u = i as f32 / 29.0 + 0.013;
                let v = j as f32 / 31.0 - 0.021;
                let fast = bilinear_wrap_argb8(&lv0, u, v).expect("argb8");
                let slow = sample_2d(&t, &s, [u, v], &NO_DERIV);
                let slow8 = [3usize, 0, 1, 2].map(|c| (slow[c] * 255.0).round() as i32);
                let fast8 = [24, 16, 8, 0].map(|sh| ((fast >> sh) & 0xFF) as i32);
                for (a, b) in slow8.iter().zip(fast8) {
                    worst = worst.max((a - b).abs());
                }
            }
        }
        assert!(worst <= 1, "{format:?}: worst difference {worst}");
    }
}
