//! Render-to-texture: textures created with render-target usage
//! (D3DUSAGE_RENDERTARGET; DX7 DDSCAPS_TEXTURE | DDSCAPS_3DDEVICE) bound
//! as the render target with SETRENDERTARGET (DX7) or SETRENDERTARGET2
//! (DX9), then sampled through D3DTSS_TEXTUREMAP. Every expected value is
//! worked out by hand from the Direct3D rules:
//!
//! * pre-transformed vertices at pixel edges `-0.5 … n - 0.5` cover exactly
//!   the pixels `0 … n - 1` (D3D9 pixel centres at integer coordinates);
//! * stage 0 with no texture bound passes the diffuse colour (MODULATE of
//!   TEXTURE and CURRENT with TEXTURE reading as no texture);
//! * `show(t)`: SELECTARG1(TEXTURE) with the default POINT filtering, so a
//!   pixel shows exactly one texel: across a 4-pixel quad with u from 0 to
//!   1, pixel x samples u = (x + 0.5) / 4, i.e. texel ⌊u · width⌋.

mod common;
use common::*;
use softhal_device::*;
use softhal_pipeline::texture::TextureFormat;
use softhal_wire::names::codes;

const RED: u32 = 0xffff0000;
const GREEN: u32 = 0xff00ff00;
const BLUE: u32 = 0xff0000ff;
const WHITE: u32 = 0xffffffff;

/// A 2-D A8R8G8B8 texture with render-target usage.
fn rt_texture(s: &mut Scene, w: u32, h: u32, levels: u32) -> u32 {
    s.drv
        .create_surface(
            SurfaceDesc::texture(TextureFormat::A8R8G8B8, w, h, levels).with_render_target(),
        )
        .unwrap()
}

/// Stage 0 shows texture `t` as it is (SELECTARG1 of TEXTURE; `t` = 0:
/// no texture, so the default MODULATE passes the diffuse colour).
fn stage(t: u32) -> String {
    if t == 0 {
        return "TEXTURESTAGESTATE { wStage=0 TSState=D3DTSS_TEXTUREMAP dwValue=0 } \
                { wStage=0 TSState=D3DTSS_COLOROP dwValue=D3DTOP_MODULATE } \
                { wStage=0 TSState=D3DTSS_COLORARG1 dwValue=D3DTA_TEXTURE } \
                { wStage=0 TSState=D3DTSS_COLORARG2 dwValue=D3DTA_DIFFUSE }\n"
            .into();
    }
    format!(
        "TEXTURESTAGESTATE {{ wStage=0 TSState=D3DTSS_TEXTUREMAP dwValue={t} }} \
         {{ wStage=0 TSState=D3DTSS_COLOROP dwValue=D3DTOP_SELECTARG1 }} \
         {{ wStage=0 TSState=D3DTSS_COLORARG1 dwValue=D3DTA_TEXTURE }}\n"
    )
}

/// Texels of level `level`, face `face` of texture `t` (A8R8G8B8).
fn texels(s: &Scene, t: u32, face: u32, level: u32) -> Vec<u32> {
    let r = s.drv.surface(t).unwrap();
    r.texture()
        .unwrap()
        .level_bytes(face, level)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The 4×4 back buffer, row by row.
fn back_buffer(s: &Scene) -> Vec<u32> {
    (0..4)
        .flat_map(|y| (0..4).map(move |x| (x, y)))
        .map(|(x, y)| s.px(x, y))
        .collect()
}

#[test]
fn setrendertarget_to_a_texture_then_sampling_it_shows_what_was_drawn() {
    // DX7: draw red into the left column and green into the right column
    // of a 2×2 texture, go back to the back buffer and show the texture
    // over all 4×4 pixels: pixels 0–1 sample texel 0 (u = 0.125, 0.375),
    // pixels 2–3 texel 1.
    let mut s = Scene::new(4, 4, false);
    let t = rt_texture(&mut s, 2, 2, 1);
    let mut v = tquad(-0.5, -0.5, 0.5, 1.5, RED, 0);
    v.extend(tquad(0.5, -0.5, 1.5, 1.5, GREEN, 0));
    v.extend(tquad(-0.5, -0.5, 3.5, 3.5, WHITE, 0));
    let rt = s.rt;
    let src = format!(
        "{NOCULL}SETRENDERTARGET {{ hRenderTarget={t} hZBuffer=0 }}\n{}\
         TRIANGLELIST count=4 wVStart=0\n\
         SETRENDERTARGET {{ hRenderTarget={rt} hZBuffer=0 }}\n{}\
         TRIANGLELIST count=2 wVStart=12\n",
        stage(0),
        stage(t)
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    assert_eq!(texels(&s, t, 0, 0), [RED, GREEN, RED, GREEN]);
    let row = [RED, RED, GREEN, GREEN];
    assert_eq!(back_buffer(&s), row.repeat(4));
}

#[test]
fn render_sample_render_sample_in_one_dp2_call_sees_each_render() {
    // DX9: one DrawPrimitives2 call renders red into a 1×1 texture,
    // samples it into the left half of the back buffer, renders green into
    // it, samples it into the right half. Each sampling draw sees the
    // render just before it: left red, right green.
    let mut s = Scene::new(4, 4, false);
    let t = rt_texture(&mut s, 1, 1, 1);
    let rt = s.rt;
    let mut v = tquad(-0.5, -0.5, 0.5, 0.5, RED, 0); // 0: into t
    v.extend(tquad(-0.5, -0.5, 1.5, 3.5, WHITE, 0)); // 6: left half
    v.extend(tquad(-0.5, -0.5, 0.5, 0.5, GREEN, 0)); // 12: into t
    v.extend(tquad(1.5, -0.5, 3.5, 3.5, WHITE, 0)); // 18: right half
    let src = format!(
        "{NOCULL}\
         SETRENDERTARGET2 {{ RTIndex=0 hRenderTarget={t} }}\n{off}TRIANGLELIST count=2 wVStart=0\n\
         SETRENDERTARGET2 {{ RTIndex=0 hRenderTarget={rt} }}\n{on}TRIANGLELIST count=2 wVStart=6\n\
         SETRENDERTARGET2 {{ RTIndex=0 hRenderTarget={t} }}\n{off}TRIANGLELIST count=2 wVStart=12\n\
         SETRENDERTARGET2 {{ RTIndex=0 hRenderTarget={rt} }}\n{on}TRIANGLELIST count=2 wVStart=18\n",
        off = stage(0),
        on = stage(t)
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    let row = [RED, RED, GREEN, GREEN];
    assert_eq!(back_buffer(&s), row.repeat(4));
    assert_eq!(texels(&s, t, 0, 0), [GREEN]);
}

#[test]
fn the_formats_list_says_which_textures_can_be_render_targets() {
    // Exactly the colour formats that are both render-target and texture
    // formats with the same texel layout (docs/gpu-commands.md,
    // BIND_TEXTURE_TARGET); each can be created with render-target usage.
    let mut s = Scene::new(1, 1, false);
    let rtt: Vec<u32> = s
        .drv
        .formats()
        .iter()
        .filter(|f| f.render_target_texture)
        .map(|f| f.d3dfmt)
        .collect();
    // D3DFMT_R8G8B8 20, A8R8G8B8 21, X8R8G8B8 22, R5G6B5 23, X1R5G5B5 24,
    // A1R5G5B5 25, A4R4G4B4 26, A8 28, X4R4G4B4 30.
    assert_eq!(rtt, [20, 21, 22, 23, 24, 25, 26, 28, 30]);
    for f in rtt {
        let d = SurfaceDesc::texture(D3dFormat(f), 2, 2, 1).with_render_target();
        assert!(s.drv.create_surface(d).is_ok(), "{f}");
    }
}

#[test]
fn a_texture_without_render_target_usage_cannot_be_the_render_target() {
    // Only textures created with render-target usage can be targets; the
    // command fails (prefix semantics: the target is unchanged).
    let mut s = Scene::new(4, 4, false);
    let plain = s
        .drv
        .create_texture(TextureFormat::A8R8G8B8, 2, 2, 1)
        .unwrap();
    s.run(
        &format!("SETRENDERTARGET {{ hRenderTarget={plain} hZBuffer=0 }}"),
        &[],
    )
    .unparsed_at(0);
    s.run(
        &format!("SETRENDERTARGET2 {{ RTIndex=0 hRenderTarget={plain} }}"),
        &[],
    )
    .unparsed_at(0);
    // Render-target usage needs a colour format that is both a target and
    // a texture format, and a 2-D or cube texture.
    for d in [
        SurfaceDesc::texture(TextureFormat::Dxt1, 4, 4, 1),
        SurfaceDesc::texture(TextureFormat::L8, 4, 4, 1),
        SurfaceDesc::volume_texture(TextureFormat::A8R8G8B8, 4, 4, 4, 1),
        SurfaceDesc::depth_stencil(Format::D24S8, 4, 4),
    ] {
        assert!(
            s.drv.create_surface(d.with_render_target()).is_err(),
            "{d:?}"
        );
    }
}

#[test]
fn a_depth_buffer_larger_than_the_texture_target_is_paired_with_it() {
    // A 4×4 D24S8 buffer covers a 2×2 texture target. CLEAR sets the
    // texture blue and depth 1.0; a green quad at z 0.25 passes LESSEQUAL,
    // then a red one at z 0.75 fails against 0.25 on the left column only
    // it covers: texels stay green there; the right column, not drawn by
    // the green quad, takes red (0.75 ≤ 1.0).
    let mut s = Scene::new(4, 4, true);
    let t = rt_texture(&mut s, 2, 2, 1);
    let z = s.depth.unwrap();
    let mut v = quad(-0.5, -0.5, 0.5, 1.5, 0.25, GREEN);
    v.extend(quad(-0.5, -0.5, 1.5, 1.5, 0.75, RED));
    let src = format!(
        "{NOCULL}RENDERSTATE {{ RenderState=D3DRS_ZENABLE dwState=1 }}\n\
         SETRENDERTARGET {{ hRenderTarget={t} hZBuffer={z} }}\n\
         CLEAR {{ dwFlags=D3DCLEAR_TARGET|D3DCLEAR_ZBUFFER dwFillColor={BLUE:#x} dvFillDepth=1.0 }}\n\
         TRIANGLELIST count=4 wVStart=0\n"
    );
    s.run(&src, &v).ok();
    assert_eq!(texels(&s, t, 0, 0), [GREEN, RED, GREEN, RED]);
    // A texture target larger than the depth buffer is refused, as for
    // render targets.
    let big = rt_texture(&mut s, 8, 8, 1);
    s.run(
        &format!("SETRENDERTARGET {{ hRenderTarget={big} hZBuffer={z} }}"),
        &[],
    )
    .unparsed_at(0);
}

#[test]
fn a_texture_sampled_while_it_is_the_target_reads_its_contents_from_before_the_draw() {
    // Direct3D leaves this undefined; softhal's rule (docs/device.md): the
    // draw samples the target texture as it was at the start of the draw.
    // The 2×2 texture holds A B / C D; a quad over it with u mirrored
    // (1 → 0) writes pixel (x, y) = texel (1 − x, y) of the old contents:
    // B A / D C. (Reading pixels already written by the same draw would
    // give B B / D D for a left-to-right raster.)
    let (a, b, c, d): (u32, u32, u32, u32) = (0xff112233, 0xff445566, 0xff778899, 0xffaabbcc);
    let mut s = Scene::new(4, 4, false);
    let t = rt_texture(&mut s, 2, 2, 1);
    {
        let (bytes, _) = s.drv.lock_level(t, 0, 0).unwrap();
        let src: Vec<u8> = [a, b, c, d].iter().flat_map(|x| x.to_le_bytes()).collect();
        bytes.copy_from_slice(&src);
    }
    s.drv.unlock(t).unwrap();
    let v: Vec<u8> = [
        (-0.5, -0.5, 1.0, 0.0),
        (1.5, -0.5, 0.0, 0.0),
        (-0.5, 1.5, 1.0, 1.0),
        (1.5, -0.5, 0.0, 0.0),
        (1.5, 1.5, 0.0, 1.0),
        (-0.5, 1.5, 1.0, 1.0),
    ]
    .iter()
    .flat_map(|&(x, y, u, v)| tlt(x, y, WHITE, 0, u, v))
    .collect();
    let src = format!(
        "{NOCULL}SETRENDERTARGET2 {{ RTIndex=0 hRenderTarget={t} }}\n{}TRIANGLELIST count=2 wVStart=0\n",
        stage(t)
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    assert_eq!(texels(&s, t, 0, 0), [b, a, d, c]);
    assert_eq!(s.drv.kmd().stats().faults, 0, "not a GPU fault");
    // A texture that is the target and sampled but then destroyed is
    // gone: the next call on the context fails, never reads freed memory.
    s.drv.destroy_surface(t).unwrap();
    let e = s.run_fvf(&src, FVF_TLT, 32, &v);
    assert_eq!(e.ddrval, codes::D3DERR_COMMAND_UNPARSED);
}

#[test]
fn a_mip_level_is_a_render_target_through_its_attached_surface() {
    // Level 1 (2×2) of a 4×4 three-level texture, named by its attached
    // surface: red left column, green right column. Level 0 stays 0.
    // Shown over the 4×4 back buffer with MAXMIPLEVEL 1 (the most
    // detailed level sampling may use) and POINT mip filtering, the
    // texture samples level 1: pixels 0–1 red, 2–3 green.
    let mut s = Scene::new(4, 4, false);
    let t = rt_texture(&mut s, 4, 4, 3);
    let l1 = s.drv.attached_surface(t, 0, 1).unwrap();
    assert_ne!(l1, t);
    assert_eq!(s.drv.attached_surface(t, 0, 1).unwrap(), l1, "one handle");
    assert_eq!(s.drv.attached_surface(t, 0, 0).unwrap(), t, "level 0 is t");
    let rt = s.rt;
    let mut v = tquad(-0.5, -0.5, 0.5, 1.5, RED, 0);
    v.extend(tquad(0.5, -0.5, 1.5, 1.5, GREEN, 0));
    v.extend(tquad(-0.5, -0.5, 3.5, 3.5, WHITE, 0));
    let src = format!(
        "{NOCULL}SETRENDERTARGET {{ hRenderTarget={l1} hZBuffer=0 }}\n{}\
         TRIANGLELIST count=4 wVStart=0\n\
         SETRENDERTARGET {{ hRenderTarget={rt} hZBuffer=0 }}\n{}\
         TEXTURESTAGESTATE {{ wStage=0 TSState=D3DTSS_MAXMIPLEVEL dwValue=1 }} \
         {{ wStage=0 TSState=D3DTSS_MIPFILTER dwValue=D3DTEXF_POINT }}\n\
         TRIANGLELIST count=2 wVStart=12\n",
        stage(0),
        stage(t)
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    assert_eq!(texels(&s, t, 0, 0), [0; 16]);
    assert_eq!(texels(&s, t, 0, 1), [RED, GREEN, RED, GREEN]);
    assert_eq!(texels(&s, t, 0, 2), [0]);
    assert_eq!(back_buffer(&s), [RED, RED, GREEN, GREEN].repeat(4));
}

#[test]
fn a_cube_face_is_a_render_target_through_its_attached_surface() {
    // D3DCUBEMAP_FACE_POSITIVE_Z (4) of a 2×2 cube: a DX9 CLEAR through
    // SETRENDERTARGET2 writes that face only; a 2×2 depth buffer covers it.
    let mut s = Scene::new(4, 4, false);
    let cube = s
        .drv
        .create_surface(
            SurfaceDesc::cube_texture(TextureFormat::A8R8G8B8, 2, 1).with_render_target(),
        )
        .unwrap();
    let z = s.drv.create_depth_stencil(Format::D24S8, 2, 2).unwrap();
    let pz = s.drv.attached_surface(cube, 4, 0).unwrap();
    let src = format!(
        "SETRENDERTARGET2 {{ RTIndex=0 hRenderTarget={pz} }}\n\
         SETDEPTHSTENCIL {{ hZBuffer={z} }}\n\
         CLEAR {{ dwFlags=D3DCLEAR_TARGET|D3DCLEAR_ZBUFFER dwFillColor={GREEN:#x} dvFillDepth=1.0 }}\n"
    );
    s.run(&src, &[]).ok();
    for face in 0..6 {
        let want = if face == 4 { GREEN } else { 0 };
        assert_eq!(texels(&s, cube, face, 0), [want; 4], "face {face}");
    }
}

#[test]
fn attached_surfaces_are_checked_and_go_with_their_texture() {
    let mut s = Scene::new(4, 4, false);
    let before = s.drv.object_counts();
    let t = rt_texture(&mut s, 4, 4, 2);
    let plain = s
        .drv
        .create_texture(TextureFormat::A8R8G8B8, 4, 4, 2)
        .unwrap();
    // Only render-target textures have attached surfaces to render into;
    // the face and level must exist.
    for (h, face, level) in [(plain, 0, 1), (s.rt, 0, 0), (t, 1, 0), (t, 0, 2)] {
        assert!(
            s.drv.attached_surface(h, face, level).is_err(),
            "{h:#x} {face} {level}"
        );
    }
    let l1 = s.drv.attached_surface(t, 0, 1).unwrap();
    assert!(
        s.drv.attached_surface(l1, 0, 0).is_err(),
        "not of an attached surface"
    );
    // A depth buffer pairs with a level it covers (level 1 is 2×2).
    let z = s.drv.create_depth_stencil(Format::D24S8, 2, 2).unwrap();
    s.run(
        &format!("SETRENDERTARGET {{ hRenderTarget={l1} hZBuffer={z} }}"),
        &[],
    )
    .ok();
    s.run(
        &format!("SETRENDERTARGET {{ hRenderTarget={t} hZBuffer={z} }}"),
        &[],
    )
    .unparsed_at(0);
    // Destroying the texture destroys its attached surface: the context
    // rendering to it fails its next draw instead of reaching freed
    // memory.
    s.drv.destroy_surface(t).unwrap();
    assert!(s.drv.surface(l1).is_err());
    let v = tquad(-0.5, -0.5, 1.5, 1.5, RED, 0);
    let e = s.run_fvf(
        &format!("{NOCULL}TRIANGLELIST count=2 wVStart=0\n"),
        FVF_TLT,
        32,
        &v,
    );
    assert_eq!(e.ddrval, codes::D3DERR_COMMAND_UNPARSED);
    s.drv.destroy_surface(plain).unwrap();
    s.drv.destroy_surface(z).unwrap();
    assert_eq!(s.drv.object_counts().surfaces, before.surfaces);
}

#[test]
fn a_rendered_level_feeds_generatemipsublevels_in_the_same_call() {
    // The usual way to mip-map a rendered texture: draw level 0 (4×4,
    // left half red, right half blue), then GENERATEMIPSUBLEVELS in the
    // same DP2 call. The CPU filter runs after the draws before it (the
    // GPU drains first), so level 1 is the 2×2 box average of what was
    // drawn — left column red, right column blue — and level 2 the
    // rounded average of those four texels (docs/device.md decision 18):
    // red and blue (2 · 0xff + 2) / 4 = 0x80, green 0, alpha 0xff.
    let mut s = Scene::new(4, 4, false);
    let t = rt_texture(&mut s, 4, 4, 3);
    let mut v = tquad(-0.5, -0.5, 1.5, 3.5, RED, 0);
    v.extend(tquad(1.5, -0.5, 3.5, 3.5, BLUE, 0));
    let src = format!(
        "{NOCULL}SETRENDERTARGET {{ hRenderTarget={t} hZBuffer=0 }}\n{}\
         TRIANGLELIST count=4 wVStart=0\n\
         GENERATEMIPSUBLEVELS {{ hSurface={t} Filter=D3DTEXF_LINEAR }}\n",
        stage(0)
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    assert_eq!(texels(&s, t, 0, 0), [RED, RED, BLUE, BLUE].repeat(4));
    assert_eq!(texels(&s, t, 0, 1), [RED, BLUE, RED, BLUE]);
    assert_eq!(texels(&s, t, 0, 2), [0xff80_0080]);
}

#[test]
fn drawing_one_level_from_another_level_of_the_same_texture() {
    // Downsampling by drawing: level 1 (2×2) is the target, the same
    // texture is sampled with MIPFILTER NONE (level 0 only) and POINT
    // filtering. Pixel (x, y) of level 1 has u = (x + 0.5) / 2, so it
    // takes texel (⌊4u⌋, ⌊4v⌋) = (2x + 1, 2y + 1) of level 0. The target
    // is the texture the draw samples, so the draw sees the texture as it
    // was at its start (docs/device.md decision 26) — here level 0, which
    // it does not write, whatever the rule.
    let mut s = Scene::new(4, 4, false);
    let t = rt_texture(&mut s, 4, 4, 2);
    let level0: Vec<u32> = (0..16).map(|i| 0xff00_0000 | (i * 0x10_1010)).collect();
    {
        let (bytes, _) = s.drv.lock_level(t, 0, 0).unwrap();
        let src: Vec<u8> = level0.iter().flat_map(|x| x.to_le_bytes()).collect();
        bytes.copy_from_slice(&src);
    }
    s.drv.unlock(t).unwrap();
    let l1 = s.drv.attached_surface(t, 0, 1).unwrap();
    let v = tquad(-0.5, -0.5, 1.5, 1.5, WHITE, 0);
    let src = format!(
        "{NOCULL}SETRENDERTARGET2 {{ RTIndex=0 hRenderTarget={l1} }}\n{}\
         TEXTURESTAGESTATE {{ wStage=0 TSState=D3DTSS_MIPFILTER dwValue=D3DTEXF_NONE }}\n\
         TRIANGLELIST count=2 wVStart=0\n",
        stage(t)
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    let at = |x: usize, y: usize| level0[y * 4 + x];
    assert_eq!(
        texels(&s, t, 0, 1),
        [at(1, 1), at(3, 1), at(1, 3), at(3, 3)]
    );
    assert_eq!(texels(&s, t, 0, 0), level0, "level 0 unchanged");
}
