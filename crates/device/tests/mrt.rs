//! Multiple render targets through DrawPrimitives2: SETRENDERTARGET2
//! slots 1–3 written by a ps_2_0's `oC1`–`oC3`, each in its own format,
//! with D3DRS_COLORWRITEENABLE1..3, the shared blend, the alpha test by
//! `oC0`, CLEAR of every bound target, unbinding, the size rule, and
//! fixed function / ps_1_x writing target 0 only (`docs/device.md`,
//! "Multiple render targets").
//!
//! Every scene is 16×16: a pre-transformed quad (0, 0)–(16, 16) covers
//! all 256 pixels (fixed-function vertex processing feeding the pixel
//! shader). Expected values are the Direct3D conversions worked by hand:
//! a shader output x in [0, 1] is the 8-bit channel round(255·x); a
//! 5- or 6-bit channel keeps the top bits of the 8-bit one; a 10-bit one
//! is round(c·1023 / 255); X bits are written as 0.

mod common;

use common::*;
use softhal_device::*;
use softhal_pipeline::texture::TextureFormat;
use softhal_wire::names::codes;

/// The tokens of Direct3D shader assembly `src`, as a `hex:` blob.
fn shader_hex(src: &str) -> String {
    let s = softhal_shader::text::assemble(src).unwrap_or_else(|e| panic!("{e:?}\n{src}"));
    s.to_tokens()
        .iter()
        .flat_map(|t| t.to_le_bytes())
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Creates pixel shader 0x20 from `ps` and binds it.
fn bind_ps(ps: &str) -> String {
    format!(
        "CREATEPIXELSHADER {{ dwHandle=0x20 code=hex:{} }}\nSETPIXELSHADER {{ dwHandle=0x20 }}\n",
        shader_hex(ps)
    )
}

/// Binds `targets` to slots 1, 2, 3 (0: unbind).
fn bind_targets(targets: &[u32]) -> String {
    targets
        .iter()
        .enumerate()
        .map(|(i, h)| {
            format!(
                "SETRENDERTARGET2 {{ RTIndex={} hRenderTarget={h} }}\n",
                i + 1
            )
        })
        .collect()
}

const DRAW: &str = "TRIANGLELIST count=2 wVStart=0\n";

/// The stored bits of pixel (x, y) of surface `h`.
fn raw(s: &Scene, h: u32, x: u32, y: u32) -> u32 {
    s.drv.image(h).unwrap().read_pixel(x, y).unwrap()
}

/// Every pixel of surface `h` holds the bits `v`.
fn all_raw(s: &Scene, h: u32, v: u32) -> bool {
    (0..16).all(|y| (0..16).all(|x| raw(s, h, x, y) == v))
}

/// Four constants to four targets of four formats, each read back.
#[test]
fn a_ps_2_0_writes_four_targets_of_four_formats() {
    let mut s = Scene::new(16, 16, false);
    let t1 = s
        .drv
        .create_render_target(Format::X8R8G8B8, 16, 16)
        .unwrap();
    let t2 = s.drv.create_render_target(Format::R5G6B5, 16, 16).unwrap();
    let t3 = s
        .drv
        .create_render_target(Format::A2R10G10B10, 16, 16)
        .unwrap();
    let ps = "ps_2_0
def c0, 1, 0.5, 0, 1
def c1, 0, 1, 0.25, 0.5
def c2, 1, 1, 0, 1
def c3, 0, 0, 1, 1
mov oC0, c0
mov oC1, c1
mov oC2, c2
mov oC3, c3
";
    let src = format!(
        "{NOCULL}{}{}{DRAW}",
        bind_targets(&[t1, t2, t3]),
        bind_ps(ps)
    );
    s.run(&src, &quad(0.0, 0.0, 16.0, 16.0, 0.5, 0)).ok();
    // Target 0, A8R8G8B8: A 255, R 255, G 0.5·255 = 127.5 → 128, B 0.
    assert_eq!(s.count(0xFFFF_8000), 256);
    // Target 1, X8R8G8B8: X written 0, R 0, G 255, B 0.25·255 = 63.75
    // → 64 = 0x40 (the 0.5 alpha has no bits to go to).
    assert!(all_raw(&s, t1, 0x0000_FF40), "{:#x}", raw(&s, t1, 3, 3));
    // Target 2, R5G6B5: R 255 >> 3 = 31 (bits 15..11), G 255 >> 2 = 63
    // (bits 10..5), B 0: 0xF800 | 0x07E0 = 0xFFE0.
    assert!(all_raw(&s, t2, 0xFFE0), "{:#x}", raw(&s, t2, 3, 3));
    // Target 3, A2R10G10B10: A 255 >> 6 = 3 (bits 31..30), R 0, G 0,
    // B (255·1023 + 127) / 255 = 1023 (bits 9..0): 0xC000_03FF.
    assert!(all_raw(&s, t3, 0xC000_03FF), "{:#x}", raw(&s, t3, 3, 3));
}

/// CLEAR with D3DCLEAR_TARGET fills every bound target; then
/// D3DRS_COLORWRITEENABLE1 = GREEN lets only green of `oC1` into target 1
/// while target 0 (COLORWRITEENABLE all channels) takes all of `oC0`.
#[test]
fn colorwriteenable1_masks_target_1_and_clear_fills_every_target() {
    let mut s = Scene::new(16, 16, false);
    let t1 = s
        .drv
        .create_render_target(Format::A8R8G8B8, 16, 16)
        .unwrap();
    let clear = "CLEAR { dwFlags=D3DCLEAR_TARGET dwFillColor=0xff102030 }\n";
    s.run(&format!("{}{clear}", bind_targets(&[t1])), &[]).ok();
    assert!(all_raw(&s, t1, 0xFF10_2030));
    assert_eq!(s.count(0xFF10_2030), 256);
    let ps = "ps_2_0
def c0, 0, 0, 1, 1
def c1, 1, 1, 1, 0
mov oC0, c0
mov oC1, c1
";
    let src = format!(
        "{NOCULL}RENDERSTATE {{ RenderState=D3DRS_COLORWRITEENABLE1 dwState=D3DCOLORWRITEENABLE_GREEN }}\n{}{DRAW}",
        bind_ps(ps)
    );
    s.run(&src, &quad(0.0, 0.0, 16.0, 16.0, 0.5, 0)).ok();
    // Target 0: blue, every channel written.
    assert_eq!(s.count(0xFF00_00FF), 256);
    // Target 1: A 0xFF, R 0x10 and B 0x30 kept from the clear; G from
    // oC1.g = 1 → 0xFF.
    assert!(all_raw(&s, t1, 0xFF10_FF30), "{:#x}", raw(&s, t1, 0, 0));
}

/// D3DPMISCCAPS_MRTPOSTPIXELSHADERBLENDING: the blend state applies to
/// each target with its own `oCi`.
#[test]
fn blending_applies_to_target_2_with_oc2() {
    let mut s = Scene::new(16, 16, false);
    let t1 = s
        .drv
        .create_render_target(Format::A8R8G8B8, 16, 16)
        .unwrap();
    let t2 = s
        .drv
        .create_render_target(Format::A8R8G8B8, 16, 16)
        .unwrap();
    let clear = "CLEAR { dwFlags=D3DCLEAR_TARGET dwFillColor=0xff0000ff }\n";
    let ps = "ps_2_0
def c0, 1, 1, 1, 1
def c2, 1, 0, 0, 0.5
mov oC0, c0
mov oC2, c2
";
    let blend = "RENDERSTATE { RenderState=D3DRS_ALPHABLENDENABLE dwState=1 }\n\
                 RENDERSTATE { RenderState=D3DRS_SRCBLEND dwState=D3DBLEND_SRCALPHA }\n\
                 RENDERSTATE { RenderState=D3DRS_DESTBLEND dwState=D3DBLEND_INVSRCALPHA }\n";
    let src = format!(
        "{NOCULL}{}{clear}{blend}{}{DRAW}",
        bind_targets(&[t1, t2]),
        bind_ps(ps)
    );
    s.run(&src, &quad(0.0, 0.0, 16.0, 16.0, 0.5, 0)).ok();
    // Target 2 over blue 0xFF0000FF: source (a, r, g, b) = (128, 255, 0,
    // 0) (0.5·255 = 127.5 → 128), factors SRCALPHA 128 and INVSRCALPHA
    // 255 − 128 = 127, each channel (s·128 + d·127 + 127) / 255:
    // A (128·128 + 255·127 + 127) / 255 = 48896 / 255 = 191 (0xBF);
    // R (255·128 + 127) / 255 = 32767 / 255 = 128 (0x80); G 0;
    // B (255·127 + 127) / 255 = 32512 / 255 = 127 (0x7F).
    assert!(all_raw(&s, t2, 0xBF80_007F), "{:#x}", raw(&s, t2, 0, 0));
    // Target 0: white at alpha 1 over blue: every channel s·255/255 +
    // d·0 = white.
    assert_eq!(s.count(0xFFFF_FFFF), 256);
    // Target 1 is bound but the shader writes no oC1: left as cleared.
    assert!(all_raw(&s, t1, 0xFF00_00FF));
}

/// The alpha test compares `oC0`'s alpha; a pixel it rejects is written
/// to no target, whatever `oC1` holds.
#[test]
fn the_alpha_test_decides_by_oc0_for_every_target() {
    let mut s = Scene::new(16, 16, false);
    let t1 = s
        .drv
        .create_render_target(Format::A8R8G8B8, 16, 16)
        .unwrap();
    let clear = "CLEAR { dwFlags=D3DCLEAR_TARGET dwFillColor=0xff000000 }\n";
    let ps = "ps_2_0
dcl v0
def c1, 0, 1, 0, 1
mov oC0, v0
mov oC1, c1
";
    let atest = "RENDERSTATE { RenderState=D3DRS_ALPHATESTENABLE dwState=1 }\n\
                 RENDERSTATE { RenderState=D3DRS_ALPHAFUNC dwState=D3DCMP_GREATER }\n\
                 RENDERSTATE { RenderState=D3DRS_ALPHAREF dwState=0x80 }\n";
    let src = format!(
        "{NOCULL}{}{clear}{atest}{}TRIANGLELIST count=4 wVStart=0\n",
        bind_targets(&[t1]),
        bind_ps(ps)
    );
    // Left half: diffuse alpha 0 (0 > 0x80 fails); right half: alpha
    // 0xFF (passes). oC1's alpha is 1 everywhere.
    let verts = [
        quad(0.0, 0.0, 8.0, 16.0, 0.5, 0x00FF_FFFF),
        quad(8.0, 0.0, 16.0, 16.0, 0.5, 0xFFFF_FFFF),
    ]
    .concat();
    s.run(&src, &verts).ok();
    for y in 0..16 {
        for x in 0..16 {
            let (c0, c1) = if x < 8 {
                (0xFF00_0000, 0xFF00_0000)
            } else {
                (0xFFFF_FFFF, 0xFF00_FF00)
            };
            assert_eq!(s.px(x, y), c0, "target 0 at ({x}, {y})");
            assert_eq!(raw(&s, t1, x, y), c1, "target 1 at ({x}, {y})");
        }
    }
}

/// Direct3D 9: all the targets of a draw have one size. A draw (or clear)
/// with a target of another size is refused at its command
/// (D3DERR_COMMAND_UNPARSED, the error `InvalidParams("render targets of
/// different sizes")`), and writes nothing.
#[test]
fn targets_of_different_sizes_are_refused_at_the_draw() {
    let mut s = Scene::new(16, 16, false);
    let small = s.drv.create_render_target(Format::A8R8G8B8, 8, 8).unwrap();
    let ps = bind_ps("ps_2_0\ndef c0, 1, 1, 1, 1\nmov oC0, c0\nmov oC1, c0\n");
    let head = format!("{NOCULL}{}{ps}", bind_targets(&[small]));
    // The binding itself is accepted (the sizes are checked when drawn).
    let o = s.run(
        &format!("{head}{DRAW}"),
        &quad(0.0, 0.0, 16.0, 16.0, 0.5, 0),
    );
    assert_eq!(o.ddrval, codes::D3DERR_COMMAND_UNPARSED);
    assert_eq!(s.drv.last_error().map(|f| &f.error), Some(&SIZES));
    // The error offset is the draw's: the commands before it are
    // 8-byte headers with their records (RENDERSTATE 8, SETRENDERTARGET2
    // 8, CREATEPIXELSHADER 12 + code, SETPIXELSHADER 4).
    let before = asm(&head).len() as u32;
    assert_eq!(o.offset, before);
    assert_eq!(s.count(0), 256, "target 0 untouched");
    assert!(all_raw_small(&s, small, 0));
    let o = s.run(
        "CLEAR { dwFlags=D3DCLEAR_TARGET dwFillColor=0xffffffff }\n",
        &[],
    );
    assert_eq!((o.ddrval, o.offset), (codes::D3DERR_COMMAND_UNPARSED, 0));
    assert_eq!(s.drv.last_error().map(|f| &f.error), Some(&SIZES));
    assert_eq!(s.count(0), 256);
}

const SIZES: DeviceError = DeviceError::InvalidParams("render targets of different sizes");

fn all_raw_small(s: &Scene, h: u32, v: u32) -> bool {
    (0..8).all(|y| (0..8).all(|x| raw(s, h, x, y) == v))
}

/// Fixed function and ps_1_x have no `oC1`: a bound target 1 keeps its
/// contents while target 0 is drawn.
#[test]
fn fixed_function_and_ps_1_x_write_target_0_only() {
    for ps in [
        None,
        Some("ps_1_4\nmov r0, v0\n"),
        Some("ps_1_1\nmov r0, v0\n"),
    ] {
        let mut s = Scene::new(16, 16, false);
        let t1 = s
            .drv
            .create_render_target(Format::A8R8G8B8, 16, 16)
            .unwrap();
        let clear = "CLEAR { dwFlags=D3DCLEAR_TARGET dwFillColor=0xff203040 }\n";
        let src = format!(
            "{NOCULL}{}{clear}{}RENDERSTATE {{ RenderState=D3DRS_LIGHTING dwState=0 }}\n{DRAW}",
            bind_targets(&[t1]),
            ps.map(bind_ps).unwrap_or_default()
        );
        s.run(&src, &quad(0.0, 0.0, 16.0, 16.0, 0.5, 0xFF00_FF00))
            .ok();
        assert_eq!(s.count(0xFF00_FF00), 256, "{ps:?}");
        assert!(all_raw(&s, t1, 0xFF20_3040), "{ps:?}");
    }
}

/// SETRENDERTARGET2 with handle 0 unbinds slots 1–3 (a shader's `oC1`
/// then goes nowhere, and CLEAR leaves the surface alone); slot 0 cannot
/// be unbound.
#[test]
fn handle_0_unbinds_a_slot_but_not_slot_0() {
    let mut s = Scene::new(16, 16, false);
    let t1 = s
        .drv
        .create_render_target(Format::A8R8G8B8, 16, 16)
        .unwrap();
    let clear = |c: &str| format!("CLEAR {{ dwFlags=D3DCLEAR_TARGET dwFillColor={c} }}\n");
    s.run(
        &format!("{}{}", bind_targets(&[t1]), clear("0xff111111")),
        &[],
    )
    .ok();
    assert!(all_raw(&s, t1, 0xFF11_1111));
    let ps = bind_ps("ps_2_0\ndef c0, 1, 0, 0, 1\ndef c1, 0, 1, 0, 1\nmov oC0, c0\nmov oC1, c1\n");
    let src = format!(
        "{NOCULL}{}{}{ps}{DRAW}",
        bind_targets(&[0]),
        clear("0xff222222")
    );
    s.run(&src, &quad(0.0, 0.0, 16.0, 16.0, 0.5, 0)).ok();
    assert_eq!(s.count(0xFFFF_0000), 256, "target 0 drawn");
    assert!(
        all_raw(&s, t1, 0xFF11_1111),
        "unbound: not cleared, not drawn"
    );
    assert_eq!(s.drv.context(s.ctx).unwrap().extra_targets, [0; 3]);
    // Slot 0 with handle 0: refused (no surface 0), nothing changes.
    let o = s.run("SETRENDERTARGET2 { RTIndex=0 hRenderTarget=0 }\n", &[]);
    assert_ne!(o.ddrval, 0);
    assert_eq!(s.drv.context(s.ctx).unwrap().render_target, s.rt);
}

/// A render-target texture as target 1, sampled by the same draws at
/// stage 0: each draw samples the level as it was before that draw
/// (`docs/device.md`), so the result is deterministic.
#[test]
fn a_target_sampled_by_its_own_draw_reads_the_level_before_the_draw() {
    // Two draws over target 1 = t (cleared to 0xff0000ff) while t is the
    // texture of stage 0: oC1 = texel + (0.25, 0, 0, 0). The first draw
    // reads blue (0, 0, 1, 1) and writes (0.25, 0, 1, 1): R 0.25·255 =
    // 63.75 → 64 = 0x40; the second reads that, 64/255 + 0.25 = 0.50098,
    // ·255 = 127.75 → 128 = 0x80: 0xFF8000FF.
    let mut s = Scene::new(16, 16, false);
    let t = s
        .drv
        .create_surface(
            SurfaceDesc::texture(TextureFormat::A8R8G8B8, 16, 16, 1).with_render_target(),
        )
        .unwrap();
    let ps = bind_ps(
        "ps_2_0\ndcl t0.xy\ndcl_2d s0\ndef c1, 0.25, 0, 0, 0\ntexld r0, t0, s0\nadd oC1, r0, c1\nmov oC0, r0\n",
    );
    let clear = "CLEAR { dwFlags=D3DCLEAR_TARGET dwFillColor=0xff0000ff }\n";
    let tex = format!("TEXTURESTAGESTATE {{ wStage=0 TSState=D3DTSS_TEXTUREMAP dwValue={t} }}\n");
    let src = format!("{NOCULL}{}{clear}{tex}{ps}{DRAW}{DRAW}", bind_targets(&[t]));
    let o = s.run_fvf(&src, FVF_TLT, 32, &tquad(0.0, 0.0, 16.0, 16.0, 0, 0));
    assert_eq!(o.ddrval, 0, "{:?}", s.drv.last_error());
    let r = s.drv.surface(t).unwrap();
    let texels: Vec<u32> = r
        .texture()
        .unwrap()
        .level_bytes(0, 0)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert!(texels.iter().all(|&c| c == 0xFF80_00FF), "{:#x}", texels[0]);
    // Target 0 took oC0 = the texel the second draw read: 0xFF4000FF.
    assert_eq!(s.count(0xFF40_00FF), 256);
}

/// The caps promise what the tests above check: four targets, independent
/// bit depths, post-shader blending on every target, independent write
/// masks.
#[test]
fn the_caps_report_four_targets_and_the_mrt_bits() {
    let c = softhal_device::caps::caps();
    assert_eq!(c.num_simultaneous_rts, 4);
    // D3DPMISCCAPS_INDEPENDENTWRITEMASKS 0x4000,
    // MRTINDEPENDENTBITDEPTHS 0x40000, MRTPOSTPIXELSHADERBLENDING 0x80000.
    assert_eq!(c.primitive_misc_caps & 0xC_4000, 0xC_4000);
}
