//! Texture formats: every format's decode of known bytes
//! (exact values), DXTn blocks against hand-computed palettes, YUV, the
//! packed A8R8G8B8 fast form, and texture resource sizes / uploads.

use softhal_pipeline::texture::format::{decode_dxt_block_texel, half_to_f32, yuv_to_argb};
use softhal_pipeline::texture::{
    Palette, Texture, TextureDesc, TextureError, TextureFormat as F, TextureKind,
};

/// A 2D texture of one level holding `bytes` (tight pitch).
fn tex(format: F, w: u32, h: u32, bytes: &[u8]) -> Texture {
    let mut t = Texture::new(TextureDesc {
        kind: TextureKind::Texture2D,
        format,
        width: w,
        height: h,
        depth: 1,
        levels: 1,
    })
    .expect("texture");
    let pitch = t.level_info(0).expect("level").row_pitch;
    t.upload(0, 0, bytes, pitch).expect("upload");
    t
}

fn texel(t: &Texture, x: u32, y: u32) -> [f32; 4] {
    t.level(0, 0).expect("level").texel(x, y, 0)
}

fn argb8(t: &Texture, x: u32, y: u32) -> Option<u32> {
    t.level(0, 0).expect("level").texel_argb8(x, y, 0)
}

/// `[r, g, b, a]` of 8-bit channel values.
fn c8(r: u8, g: u8, b: u8, a: u8) -> [f32; 4] {
    [r, g, b, a].map(|v| f32::from(v) / 255.0)
}

#[test]
fn rgb_formats() {
    let t = tex(F::A8R8G8B8, 1, 1, &[0x56, 0x34, 0x12, 0x80]);
    assert_eq!(argb8(&t, 0, 0), Some(0x8012_3456));
    assert_eq!(texel(&t, 0, 0), c8(0x12, 0x34, 0x56, 0x80));
    let t = tex(F::X8R8G8B8, 1, 1, &[0x56, 0x34, 0x12, 0x00]);
    assert_eq!(argb8(&t, 0, 0), Some(0xFF12_3456));
    let t = tex(F::R8G8B8, 1, 1, &[0x56, 0x34, 0x12]);
    assert_eq!(argb8(&t, 0, 0), Some(0xFF12_3456));
    // R5G6B5 0x8410: r = 16 → 132, g = 32 → 130, b = 16 → 132.
    let t = tex(F::R5G6B5, 1, 1, &0x8410u16.to_le_bytes());
    assert_eq!(argb8(&t, 0, 0), Some(0xFF84_8284));
    // X1R5G5B5 / A1R5G5B5 0x7C1F: r = 31, g = 0, b = 31; alpha bit 0.
    let t = tex(F::X1R5G5B5, 1, 1, &0x7C1Fu16.to_le_bytes());
    assert_eq!(argb8(&t, 0, 0), Some(0xFFFF_00FF));
    let t = tex(F::A1R5G5B5, 2, 1, &[0x1F, 0x7C, 0x00, 0x80]);
    assert_eq!(argb8(&t, 0, 0), Some(0x00FF_00FF));
    assert_eq!(argb8(&t, 1, 0), Some(0xFF00_0000));
    // A4R4G4B4 0x8F40 → a 0x88, r 0xFF, g 0x44, b 0x00.
    let t = tex(F::A4R4G4B4, 1, 1, &0x8F40u16.to_le_bytes());
    assert_eq!(argb8(&t, 0, 0), Some(0x88FF_4400));
    let t = tex(F::X4R4G4B4, 1, 1, &0x8F40u16.to_le_bytes());
    assert_eq!(argb8(&t, 0, 0), Some(0xFFFF_4400));
}

#[test]
fn alpha_luminance_formats() {
    // A8: colour 0 (the D3D9 exception), alpha from the texel.
    let t = tex(F::A8, 1, 1, &[0x7F]);
    assert_eq!(texel(&t, 0, 0), [0.0, 0.0, 0.0, 127.0 / 255.0]);
    let t = tex(F::L8, 1, 1, &[0x40]);
    assert_eq!(texel(&t, 0, 0), c8(0x40, 0x40, 0x40, 0xFF));
    let t = tex(F::A8L8, 1, 1, &[0x40, 0x90]);
    assert_eq!(argb8(&t, 0, 0), Some(0x9040_4040));
    // A4L4 0x3C: alpha 3 → 0x33, luminance 0xC → 0xCC.
    let t = tex(F::A4L4, 1, 1, &[0x3C]);
    assert_eq!(argb8(&t, 0, 0), Some(0x33CC_CCCC));
}

#[test]
fn palettized_formats() {
    let mut pal = vec![0u8; 8];
    pal.extend_from_slice(&[0x10, 0x20, 0x30, 0x40]); // entry 2
    let mut t = tex(F::P8, 2, 1, &[2, 0]);
    // No palette: opaque black.
    assert_eq!(argb8(&t, 0, 0), Some(0xFF00_0000));
    t.set_palette(Some(Palette::from_bytes(&pal, 0, false)));
    assert_eq!(argb8(&t, 0, 0), Some(0xFF10_2030));
    t.set_palette(Some(Palette::from_bytes(&pal, 0, true)));
    assert_eq!(argb8(&t, 0, 0), Some(0x4010_2030));
    assert_eq!(argb8(&t, 1, 0), Some(0x0000_0000));
    // A8P8: alpha from the texel, colour from the palette.
    let mut t = tex(F::A8P8, 1, 1, &[2, 0x99]);
    t.set_palette(Some(Palette::from_bytes(&pal, 0, true)));
    assert_eq!(argb8(&t, 0, 0), Some(0x9910_2030));
    // UPDATEPALETTE at an offset.
    if let Some(p) = t.palette_mut() {
        p.update(&[1, 2, 3, 4], 2);
    }
    assert_eq!(argb8(&t, 0, 0), Some(0x9901_0203));
}

/// A DXT1 colour block with endpoints c0, c1 and per-texel indices.
fn colour_block(c0: u16, c1: u16, idx: [u32; 16]) -> [u8; 8] {
    let mut bits = 0u32;
    for (i, v) in idx.iter().enumerate() {
        bits |= (v & 3) << (2 * i);
    }
    let mut b = [0u8; 8];
    b[0..2].copy_from_slice(&c0.to_le_bytes());
    b[2..4].copy_from_slice(&c1.to_le_bytes());
    b[4..8].copy_from_slice(&bits.to_le_bytes());
    b
}

#[test]
fn dxt1_four_and_three_colour_modes() {
    // c0 = pure red 0xF800 (255, 0, 0), c1 = pure blue 0x001F (0, 0, 255):
    // c0 > c1 → 4 colours: (2·255 + 0 + 1) / 3 = 170, (255 + 1) / 3 = 85.
    let idx = [0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3];
    let b = colour_block(0xF800, 0x001F, idx);
    let t = tex(F::Dxt1, 4, 4, &b);
    assert_eq!(argb8(&t, 0, 0), Some(0xFFFF_0000));
    assert_eq!(argb8(&t, 1, 0), Some(0xFF00_00FF));
    assert_eq!(argb8(&t, 2, 0), Some(0xFFAA_0055));
    assert_eq!(argb8(&t, 3, 0), Some(0xFF55_00AA));
    assert_eq!(argb8(&t, 3, 3), Some(0xFF55_00AA));
    // Swapped endpoints: c0 ≤ c1 → 3 colours + transparent black.
    let b = colour_block(0x001F, 0xF800, idx);
    let t = tex(F::Dxt1, 4, 4, &b);
    // (0 + 255 + 1) / 2 = 128 for red and blue.
    assert_eq!(argb8(&t, 2, 0), Some(0xFF80_0080));
    assert_eq!(argb8(&t, 3, 0), Some(0x0000_0000));
    assert_eq!(texel(&t, 3, 0), [0.0; 4]);
    // Equal endpoints are the 3-colour mode too.
    let b = colour_block(0x8410, 0x8410, [3; 16]);
    assert_eq!(decode_dxt_block_texel(F::Dxt1, &b, 1, 1), 0);
}

#[test]
fn dxt3_explicit_alpha_and_dxt2_not_unpremultiplied() {
    let mut block = [0u8; 16];
    // Alpha nibbles: texel 0 = 0xF, texel 1 = 0x8, texel 5 (x 1, y 1) = 0x3.
    let mut abits = 0u64;
    abits |= 0xF;
    abits |= 0x8 << 4;
    abits |= 0x3 << (4 * 5);
    block[0..8].copy_from_slice(&abits.to_le_bytes());
    // Colour half: c1 > c0 would be 3-colour in DXT1 but DXT3 always uses 4.
    block[8..16].copy_from_slice(&colour_block(0x001F, 0xF800, [3; 16]));
    for f in [F::Dxt2, F::Dxt3] {
        let t = tex(f, 4, 4, &block);
        // Index 3 = (c0 + 2·c1 + 1) / 3 with c0 blue, c1 red: r 170, b 85.
        assert_eq!(argb8(&t, 0, 0), Some(0xFFAA_0055), "{f:?}");
        assert_eq!(argb8(&t, 1, 0), Some(0x88AA_0055), "{f:?}");
        assert_eq!(argb8(&t, 1, 1), Some(0x33AA_0055), "{f:?}");
        assert_eq!(argb8(&t, 2, 2), Some(0x00AA_0055), "{f:?}");
    }
}

#[test]
fn dxt5_interpolated_alpha() {
    let alpha_block = |a0: u8, a1: u8, idx: [u64; 16]| {
        let mut b = [0u8; 16];
        b[0] = a0;
        b[1] = a1;
        let mut bits = 0u64;
        for (i, v) in idx.iter().enumerate() {
            bits |= (v & 7) << (3 * i);
        }
        b[2..8].copy_from_slice(&bits.to_le_bytes()[..6]);
        b[8..16].copy_from_slice(&colour_block(0xFFFF, 0xFFFF, [0; 16]));
        b
    };
    let idx = [0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0];
    // a0 = 200 > a1 = 60: 8-value mode, value k = ((8 − k)·a0 + (k − 1)·a1 + 3) / 7.
    let b = alpha_block(200, 60, idx);
    let want = [200, 60, 180, 160, 140, 120, 100, 80];
    for f in [F::Dxt4, F::Dxt5] {
        for (i, w) in want.iter().enumerate() {
            let got = decode_dxt_block_texel(f, &b, i as u32 % 4, i as u32 / 4) >> 24;
            assert_eq!(got, *w, "{f:?} index {i}");
        }
    }
    // a0 = 60 ≤ a1 = 200: 6-value mode, then 0 and 255.
    let b = alpha_block(60, 200, idx);
    let want = [60, 200, 88, 116, 144, 172, 0, 255];
    for (i, w) in want.iter().enumerate() {
        let got = decode_dxt_block_texel(F::Dxt5, &b, i as u32 % 4, i as u32 / 4) >> 24;
        assert_eq!(got, *w, "index {i}");
    }
    // Through a texture: texel (1, 0) has index 1.
    let t = tex(F::Dxt5, 4, 4, &alpha_block(60, 200, idx));
    assert_eq!(argb8(&t, 1, 0), Some(0xC8FF_FFFF));
}

#[test]
fn dxt_non_multiple_of_four() {
    // A 6×2 DXT1 texture has 2 blocks in its row; texel (5, 1) is in block 1.
    let mut bytes = colour_block(0xF800, 0x001F, [0; 16]).to_vec();
    bytes.extend_from_slice(&colour_block(0xF800, 0x001F, [1; 16]));
    let t = tex(F::Dxt1, 6, 2, &bytes);
    assert_eq!(argb8(&t, 5, 1), Some(0xFF00_00FF));
    assert_eq!(argb8(&t, 3, 1), Some(0xFFFF_0000));
    assert_eq!(argb8(&t, 6, 0), None);
}

#[test]
fn bump_formats_are_signed() {
    // V8U8: u = 0x7F → 1, v = 0x81 → −127/127 = −1.
    let t = tex(F::V8U8, 1, 1, &[0x7F, 0x81]);
    assert_eq!(texel(&t, 0, 0), [1.0, -1.0, 1.0, 1.0]);
    assert_eq!(argb8(&t, 0, 0), None);
    let t = tex(F::V8U8, 1, 1, &[0x40, 0xC0]);
    assert_eq!(texel(&t, 0, 0), [64.0 / 127.0, -64.0 / 127.0, 1.0, 1.0]);
    // L6V5U5: u = 0x0F (15 → 1), v = 0x11 (−15 → −1), l = 63 → 1.
    let v: u16 = 0x0F | (0x11 << 5) | (63 << 10);
    let t = tex(F::L6V5U5, 1, 1, &v.to_le_bytes());
    assert_eq!(texel(&t, 0, 0), [1.0, -1.0, 1.0, 1.0]);
    let v: u16 = 0x05 | (0x1B << 5) | (21 << 10);
    let t = tex(F::L6V5U5, 1, 1, &v.to_le_bytes());
    assert_eq!(texel(&t, 0, 0), [5.0 / 15.0, -5.0 / 15.0, 21.0 / 63.0, 1.0]);
    // X8L8V8U8: u = 0x20, v = 0xE0 (−32), l = 0x80.
    let t = tex(F::X8L8V8U8, 1, 1, &[0x20, 0xE0, 0x80, 0x55]);
    assert_eq!(
        texel(&t, 0, 0),
        [32.0 / 127.0, -32.0 / 127.0, 128.0 / 255.0, 1.0]
    );
    // Q8W8V8U8: all signed.
    let t = tex(F::Q8W8V8U8, 1, 1, &[0x7F, 0x80, 0x00, 0xFF]);
    assert_eq!(texel(&t, 0, 0), [1.0, -1.0, 0.0, -1.0 / 127.0]);
}

#[test]
fn float_and_sixteen_bit_formats() {
    let h = |v: u16| v.to_le_bytes();
    let t = tex(F::R16F, 1, 1, &h(0x3800));
    assert_eq!(texel(&t, 0, 0), [0.5, 1.0, 1.0, 1.0]);
    let mut b = h(0x3C00).to_vec();
    b.extend_from_slice(&h(0xC000));
    let t = tex(F::G16R16F, 1, 1, &b);
    assert_eq!(texel(&t, 0, 0), [1.0, -2.0, 1.0, 1.0]);
    let mut b = Vec::new();
    for v in [0x3400u16, 0x3800, 0x3C00, 0x4000] {
        b.extend_from_slice(&h(v));
    }
    let t = tex(F::A16B16G16R16F, 1, 1, &b);
    assert_eq!(texel(&t, 0, 0), [0.25, 0.5, 1.0, 2.0]);
    assert_eq!(half_to_f32(0x3400), 0.25);
    let t = tex(F::R32F, 1, 1, &1.5f32.to_le_bytes());
    assert_eq!(texel(&t, 0, 0), [1.5, 1.0, 1.0, 1.0]);
    let mut b = 0.25f32.to_le_bytes().to_vec();
    b.extend_from_slice(&(-3.0f32).to_le_bytes());
    let t = tex(F::G32R32F, 1, 1, &b);
    assert_eq!(texel(&t, 0, 0), [0.25, -3.0, 1.0, 1.0]);
    let mut b = Vec::new();
    for v in [1.0f32, 2.0, 3.0, 4.0] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    let t = tex(F::A32B32G32R32F, 1, 1, &b);
    assert_eq!(texel(&t, 0, 0), [1.0, 2.0, 3.0, 4.0]);
    // G16R16: R in the low word.
    let mut b = h(0xFFFF).to_vec();
    b.extend_from_slice(&h(0x8000));
    let t = tex(F::G16R16, 1, 1, &b);
    assert_eq!(texel(&t, 0, 0), [1.0, 32768.0 / 65535.0, 1.0, 1.0]);
    let mut b = Vec::new();
    for v in [0u16, 0xFFFF, 0x4000, 0x8000] {
        b.extend_from_slice(&h(v));
    }
    let t = tex(F::A16B16G16R16, 1, 1, &b);
    assert_eq!(
        texel(&t, 0, 0),
        [0.0, 1.0, 16384.0 / 65535.0, 32768.0 / 65535.0]
    );
}

#[test]
fn yuv_formats_bt601() {
    // Studio black and white.
    assert_eq!(yuv_to_argb(16, 128, 128), 0xFF00_0000);
    assert_eq!(yuv_to_argb(235, 128, 128), 0xFFFF_FFFF);
    // Y 81, U 90, V 240: C 65, D −38, E 112.
    // R = (19370 + 45808 + 128) >> 8 = 255; G = (19370 + 3800 − 23296 + 128) >> 8 = 0;
    // B = (19370 − 19608 + 128) >> 8 = −1 → 0.
    assert_eq!(yuv_to_argb(81, 90, 240), 0xFFFF_0000);
    // Y 128, U 160, V 100: C 112, D 32, E −28.
    // R = (33376 − 11452 + 128) >> 8 = 86; G = (33376 − 3200 + 5824 + 128) >> 8 = 141;
    // B = (33376 + 16512 + 128) >> 8 = 195.
    assert_eq!(yuv_to_argb(128, 160, 100), 0xFF56_8DC3);
    // YUY2: Y0 U Y1 V; UYVY: U Y0 V Y1 — same two texels.
    let t = tex(F::Yuy2, 2, 1, &[81, 90, 235, 240]);
    assert_eq!(argb8(&t, 0, 0), Some(0xFFFF_0000));
    assert_eq!(argb8(&t, 1, 0), Some(yuv_to_argb(235, 90, 240)));
    let t = tex(F::Uyvy, 2, 1, &[90, 81, 240, 235]);
    assert_eq!(argb8(&t, 0, 0), Some(0xFFFF_0000));
    assert_eq!(argb8(&t, 1, 0), Some(yuv_to_argb(235, 90, 240)));
    // Odd width rounds up to whole macro-pixels.
    let t = Texture::new(TextureDesc {
        kind: TextureKind::Texture2D,
        format: F::Yuy2,
        width: 3,
        height: 1,
        depth: 1,
        levels: 1,
    })
    .expect("texture");
    assert_eq!(t.level_info(0).map(|i| i.row_pitch), Some(8));
}

#[test]
fn every_format_decodes_zero_bytes_without_panic() {
    for f in F::ALL {
        for (w, h) in [(1, 1), (5, 3)] {
            let t = Texture::new(TextureDesc {
                kind: TextureKind::Texture2D,
                format: f,
                width: w,
                height: h,
                depth: 1,
                levels: 0,
            })
            .expect("texture");
            for l in 0..t.level_count() {
                let lv = t.level(0, l).expect("level");
                let info = lv.info;
                for y in 0..=info.height {
                    for x in 0..=info.width {
                        let c = lv.texel(x, y, 0);
                        if x >= info.width || y >= info.height {
                            assert_eq!(c, [0.0; 4]);
                        }
                        assert_eq!(
                            lv.texel_argb8(x, y, 0).is_some(),
                            f.is_argb8() && x < info.width && y < info.height,
                            "{f:?}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn cube_and_volume_storage() {
    let mut t = Texture::new(TextureDesc {
        kind: TextureKind::Cube,
        format: F::A8R8G8B8,
        width: 8,
        height: 8,
        depth: 1,
        levels: 0,
    })
    .expect("cube");
    assert_eq!((t.face_count(), t.level_count()), (6, 4));
    assert!(t.level_bytes(5, 3).is_some());
    assert!(t.level_bytes(6, 0).is_none());
    assert_eq!(
        t.upload(6, 0, &[0; 256], 32),
        Err(TextureError::NoSuchLevel { face: 6, level: 0 })
    );
    // Upload with a padded source pitch.
    let mut src = vec![0u8; 8 * 40];
    src[40..44].copy_from_slice(&[1, 2, 3, 4]);
    assert_eq!(t.upload(3, 0, &src, 40), Ok(()));
    assert_eq!(
        t.level(3, 0).and_then(|l| l.texel_argb8(0, 1, 0)),
        Some(0x0403_0201)
    );
    assert!(matches!(
        t.upload(3, 0, &src[..100], 40),
        Err(TextureError::SourceTooSmall { .. })
    ));
    let v = Texture::new(TextureDesc {
        kind: TextureKind::Volume,
        format: F::L8,
        width: 4,
        height: 2,
        depth: 8,
        levels: 0,
    })
    .expect("volume");
    assert_eq!(v.level_count(), 4);
    assert_eq!(v.level_size(1), Some((2, 1, 4)));
    assert_eq!(v.level_size(3), Some((1, 1, 1)));
    let i = v.level_info(0).expect("info");
    assert_eq!((i.row_pitch, i.slice_pitch), (4, 8));
    assert_eq!(v.level_bytes(0, 0).map(<[u8]>::len), Some(64));
}
