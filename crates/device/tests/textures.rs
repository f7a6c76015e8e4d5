//! Pipeline II through DrawPrimitives2: textures bound with
//! D3DTSS_TEXTUREMAP and sampled by the GPU, palettes, SETTEXLOD, colour
//! keys, block-compressed formats and their blits, fog, lighting, the DX6/7
//! filter values. Every assertion is on pixels, bytes or DDI codes.

mod common;
use common::*;
use softhal_device::*;
use softhal_pipeline::texture::TextureFormat;
use softhal_wire::names::codes;

/// Stage 0 showing the texture as it is (SELECTARG1 of TEXTURE), point
/// sampled, bound to `t`.
fn show(t: u32) -> String {
    format!(
        "{NOCULL}TEXTURESTAGESTATE {{ wStage=0 TSState=D3DTSS_TEXTUREMAP dwValue={t} }} \
         {{ wStage=0 TSState=D3DTSS_COLOROP dwValue=D3DTOP_SELECTARG1 }} {{ wStage=0 TSState=D3DTSS_COLORARG1 dwValue=D3DTA_TEXTURE }} \
         {{ wStage=0 TSState=D3DTSS_ALPHAOP dwValue=D3DTOP_SELECTARG1 }} {{ wStage=0 TSState=D3DTSS_ALPHAARG1 dwValue=D3DTA_TEXTURE }}\n"
    )
}

fn texture(
    s: &mut Scene,
    format: TextureFormat,
    w: u32,
    h: u32,
    levels: u32,
    level0: &[u8],
) -> u32 {
    let t = s.drv.create_texture(format, w, h, levels).unwrap();
    s.drv
        .lock(t, LockFlags::default())
        .unwrap()
        .copy_from_slice(level0);
    s.drv.unlock(t).unwrap();
    t
}

fn argb_bytes(texels: &[u32]) -> Vec<u8> {
    texels.iter().flat_map(|t| t.to_le_bytes()).collect()
}

const DRAW: &str = "TRIANGLELIST count=2 wVStart=0\n";

#[test]
fn a_bound_texture_is_sampled_texel_for_texel() {
    let mut s = Scene::new(4, 4, false);
    let t = texture(
        &mut s,
        TextureFormat::A8R8G8B8,
        2,
        2,
        1,
        &argb_bytes(&[0xffff0000, 0xff00ff00, 0xff0000ff, 0xffffffff]),
    );
    assert!(
        s.drv.allocation_of(t).is_some(),
        "textures are GPU allocations"
    );
    let v = tquad(-0.5, -0.5, 3.5, 3.5, 0xff808080, 0);
    s.run_fvf(&format!("{}{DRAW}", show(t)), FVF_TLT, 32, &v)
        .ok();
    assert_eq!(s.px(0, 0), 0xffff0000);
    assert_eq!(s.px(3, 0), 0xff00ff00);
    assert_eq!(s.px(0, 3), 0xff0000ff);
    assert_eq!(s.px(3, 3), 0xffffffff);
    // MODULATE(TEXTURE, DIFFUSE) halves white to grey.
    let src = format!(
        "{}TEXTURESTAGESTATE {{ wStage=0 TSState=D3DTSS_COLOROP dwValue=D3DTOP_MODULATE }} \
         {{ wStage=0 TSState=D3DTSS_COLORARG2 dwValue=D3DTA_DIFFUSE }}\n{DRAW}",
        show(t)
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    assert_eq!(s.px(3, 3) & 0xffffff, 0x808080);
    assert_eq!(s.px(0, 0) & 0xffffff, 0x800000);
}

#[test]
fn a_stale_or_foreign_texture_handle_samples_as_no_texture() {
    let mut s = Scene::new(4, 4, false);
    let v = tquad(-0.5, -0.5, 3.5, 3.5, 0xff336699, 0);
    // Default stage 0: MODULATE(TEXTURE, CURRENT): without a texture the
    // diffuse colour passes.
    for handle in [999, s.rt] {
        let src = format!(
            "{NOCULL}TEXTURESTAGESTATE {{ wStage=0 TSState=D3DTSS_TEXTUREMAP dwValue={handle} }}\n{DRAW}"
        );
        s.run_fvf(&src, FVF_TLT, 32, &v).ok();
        assert_eq!(s.px(1, 1), 0xff336699);
    }
}

#[test]
fn palette_updates_apply_in_stream_order() {
    let mut s = Scene::new(4, 4, false);
    let t = texture(&mut s, TextureFormat::P8, 1, 1, 1, &[5]);
    let mut v = tquad(-0.5, -0.5, 1.5, 3.5, 0xffffffff, 0);
    v.extend(tquad(1.5, -0.5, 3.5, 3.5, 0xffffffff, 0));
    // PALETTEENTRY as a DWORD: R in the low byte.
    let src = format!(
        "{}SETPALETTE {{ dwPaletteHandle=1 dwPaletteFlags=0 dwSurfaceHandle={t} }}\n\
         UPDATEPALETTE {{ dwPaletteHandle=1 wStartIndex=5 }} entries=[0x000000ff]\n\
         TRIANGLELIST count=2 wVStart=0\n\
         UPDATEPALETTE {{ dwPaletteHandle=1 wStartIndex=5 }} entries=[0x0000ff00]\n\
         TRIANGLELIST count=2 wVStart=6\n",
        show(t)
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    assert_eq!(
        s.px(0, 1),
        0xffff0000,
        "the first draw saw the first palette"
    );
    assert_eq!(s.px(3, 1), 0xff00ff00, "the second draw saw the update");
    // DDRAWIPAL_ALPHA: the flags byte is alpha.
    let src = format!(
        "{}SETPALETTE {{ dwPaletteHandle=1 dwPaletteFlags=0x2000 dwSurfaceHandle={t} }}\n\
         UPDATEPALETTE {{ dwPaletteHandle=1 wStartIndex=5 }} entries=[0x400000ff]\n{DRAW}",
        show(t)
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    assert_eq!(s.px(0, 1), 0x40ff0000);
}

#[test]
fn dxt1_textures_decode_and_blit_in_whole_blocks() {
    let mut s = Scene::new(4, 4, false);
    // 8 × 8 DXT1: four blocks, red, green, blue, white (solid: indices 0).
    let block = |c: u16| {
        let mut b = c.to_le_bytes().to_vec();
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b
    };
    let bytes: Vec<u8> = [0xF800u16, 0x07E0, 0x001F, 0xFFFF]
        .iter()
        .flat_map(|&c| block(c))
        .collect();
    let a = texture(&mut s, TextureFormat::Dxt1, 8, 8, 1, &bytes);
    let b = texture(&mut s, TextureFormat::Dxt1, 8, 8, 1, &[0; 32]);
    // Copy a's bottom-right block (white) to b's top-left.
    s.run("TEXBLT { dwDDDestSurface=B dwDDSrcSurface=A pDest.x=0 pDest.y=0 rSrc.left=4 rSrc.top=4 rSrc.right=8 rSrc.bottom=8 }\n"
        .replace("=B ", &format!("={b} "))
        .replace("=A ", &format!("={a} "))
        .as_str(), &[])
        .ok();
    let v = tquad(-0.5, -0.5, 3.5, 3.5, 0xffffffff, 0);
    s.run_fvf(&format!("{}{DRAW}", show(b)), FVF_TLT, 32, &v)
        .ok();
    assert_eq!(s.px(0, 0), 0xffffffff, "the copied block");
    assert_eq!(
        s.px(3, 3),
        0xff000000,
        "b's untouched zero block (colour 0, opaque)"
    );
    s.run_fvf(&format!("{}{DRAW}", show(a)), FVF_TLT, 32, &v)
        .ok();
    assert_eq!(s.px(0, 0), 0xffff0000);
    assert_eq!(s.px(3, 0), 0xff00ff00);
    assert_eq!(s.px(0, 3), 0xff0000ff);
    // A rectangle that splits a block is refused, and nothing is copied.
    let before = s
        .drv
        .surface(b)
        .unwrap()
        .texture()
        .unwrap()
        .level_bytes(0, 0)
        .unwrap()
        .to_vec();
    let src = format!("TEXBLT {{ dwDDDestSurface={b} dwDDSrcSurface={a} pDest.x=0 pDest.y=0 rSrc.left=2 rSrc.top=0 rSrc.right=6 rSrc.bottom=4 }}\n");
    s.run(&src, &[]).unparsed_at(0);
    let after = s
        .drv
        .surface(b)
        .unwrap()
        .texture()
        .unwrap()
        .level_bytes(0, 0)
        .unwrap()
        .to_vec();
    assert_eq!(before, after);
}

/// A 4×4 A8R8G8B8 texture with its full chain, levels 0, 1, 2 filled red,
/// green, blue.
fn rgb_mip_texture(s: &mut Scene) -> u32 {
    let t = s
        .drv
        .create_texture(TextureFormat::A8R8G8B8, 4, 4, 0)
        .unwrap();
    for (level, color) in [(0u32, 0xffff0000u32), (1, 0xff00ff00), (2, 0xff0000ff)] {
        let (bytes, _) = s.drv.lock_level(t, 0, level).unwrap();
        for px in bytes.chunks_exact_mut(4) {
            px.copy_from_slice(&color.to_le_bytes());
        }
        s.drv.unlock(t).unwrap();
    }
    t
}

#[test]
fn settexlod_and_maxmiplevel_clamp_the_mip_level() {
    let mut s = Scene::new(4, 4, false);
    let t = rgb_mip_texture(&mut s);
    let v = tquad(-0.5, -0.5, 3.5, 3.5, 0xffffffff, 0);
    let mips = "TEXTURESTAGESTATE { wStage=0 TSState=D3DTSS_MIPFILTER dwValue=D3DTEXF_POINT }\n";
    s.run_fvf(&format!("{}{mips}{DRAW}", show(t)), FVF_TLT, 32, &v)
        .ok();
    assert_eq!(s.px(1, 1), 0xffff0000, "1:1 sampling uses level 0");
    let src = format!(
        "{}{mips}TEXTURESTAGESTATE {{ wStage=0 TSState=D3DTSS_MAXMIPLEVEL dwValue=1 }}\n{DRAW}",
        show(t)
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    assert_eq!(s.px(1, 1), 0xff00ff00, "MAXMIPLEVEL 1");
    let src = format!(
        "{}{mips}SETTEXLOD {{ dwDDSurface={t} dwLOD=2 }}\n{DRAW}",
        show(t)
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    assert_eq!(
        s.px(1, 1),
        0xff0000ff,
        "SETTEXLOD 2 wins over MAXMIPLEVEL 1"
    );
    assert_eq!(s.drv.surface(t).unwrap().texture().unwrap().lod(), 2);
}

#[test]
fn without_mip_filtering_only_settexlod_picks_the_level() {
    // D3DTSS_MAXMIPLEVEL is a mipmapping state: under MIPFILTER = NONE the
    // level sampled is the texture's LOD (SETTEXLOD) alone. Levels 0, 1, 2
    // are red, green, blue; 1:1 sampling.
    let mut s = Scene::new(4, 4, false);
    let t = rgb_mip_texture(&mut s);
    let v = tquad(-0.5, -0.5, 3.5, 3.5, 0xffffffff, 0);
    let none = "TEXTURESTAGESTATE { wStage=0 TSState=D3DTSS_MIPFILTER dwValue=D3DTEXF_NONE } \
                { wStage=0 TSState=D3DTSS_MAXMIPLEVEL dwValue=1 }\n";
    s.run_fvf(&format!("{}{none}{DRAW}", show(t)), FVF_TLT, 32, &v)
        .ok();
    assert_eq!(s.px(1, 1), 0xffff0000, "MAXMIPLEVEL 1 ignored: level 0");
    let src = format!(
        "{}{none}SETTEXLOD {{ dwDDSurface={t} dwLOD=2 }}\n{DRAW}",
        show(t)
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    assert_eq!(s.px(1, 1), 0xff0000ff, "SETTEXLOD 2: level 2");
}

#[test]
fn color_keyed_texels_are_rejected() {
    let mut s = Scene::new(4, 4, false);
    let t = texture(
        &mut s,
        TextureFormat::A8R8G8B8,
        2,
        1,
        1,
        &argb_bytes(&[0xffff00ff, 0xff00ff00]),
    );
    s.drv
        .set_color_key(t, Some((0xffff00ff, 0xffff00ff)))
        .unwrap();
    let v = tquad(-0.5, -0.5, 3.5, 3.5, 0xffffffff, 0);
    let src = format!(
        "CLEAR {{ dwFlags=D3DCLEAR_TARGET dwFillColor=0xff000080 dvFillDepth=1.0 }}\n\
         RENDERSTATE {{ RenderState=D3DRS_COLORKEYENABLE dwState=TRUE }}\n{}{DRAW}",
        show(t)
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    assert_eq!(
        s.px(0, 1),
        0xff000080,
        "keyed texel: the pixel is not drawn"
    );
    assert_eq!(s.px(3, 1), 0xff00ff00);
    assert!(
        s.drv.set_color_key(s.rt, None).is_err(),
        "render targets have no texture key"
    );
}

#[test]
fn pretransformed_fog_comes_from_the_specular_alpha() {
    let mut s = Scene::new(4, 4, false);
    let mut v = tquad(-0.5, -0.5, 1.5, 3.5, 0xffff0000, 0x00000000);
    v.extend(tquad(1.5, -0.5, 3.5, 3.5, 0xffff0000, 0xff000000));
    let src = format!(
        "{NOCULL}RENDERSTATE {{ RenderState=D3DRS_FOGENABLE dwState=TRUE }} {{ RenderState=D3DRS_FOGCOLOR dwState=0xff00ff00 }} \
         {{ RenderState=D3DRS_FOGTABLEMODE dwState=D3DFOG_NONE }} {{ RenderState=D3DRS_FOGVERTEXMODE dwState=D3DFOG_NONE }}\n\
         TRIANGLELIST count=4 wVStart=0\n"
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    assert_eq!(s.px(0, 1), 0xff00ff00, "factor 0: all fog");
    assert_eq!(s.px(3, 1), 0xffff0000, "factor 1: no fog");
}

#[test]
fn directional_lights_light_untransformed_vertices() {
    let mut s = Scene::new(4, 4, false);
    let v = lit_triangle();
    let setup = format!(
        "{NOCULL}VIEWPORTINFO {{ dwX=0 dwY=0 dwWidth=4 dwHeight=4 }}\n\
         RENDERSTATE {{ RenderState=D3DRS_LIGHTING dwState=TRUE }} {{ RenderState=D3DRS_AMBIENT dwState=0 }}\n\
         SETMATERIAL {{ dcvDiffuse.r=1.0 dcvDiffuse.g=1.0 dcvDiffuse.b=1.0 dcvDiffuse.a=1.0 dcvAmbient.r=1.0 dcvAmbient.g=1.0 dcvAmbient.b=1.0 }}\n\
         CREATELIGHT {{ dwIndex=3 }}\n\
         SETLIGHT {{ dwIndex=3 light={{ dltType=DIRECTIONAL dcvDiffuse.r=1.0 dvDirection.z=1.0 }} }} {{ dwIndex=3 dwDataType=ENABLE }}\n"
    );
    s.run_fvf(
        &format!("{setup}TRIANGLELIST count=1 wVStart=0\n"),
        FVF_XYZN,
        24,
        &v,
    )
    .ok();
    assert_eq!(s.px(1, 1), 0xffff0000, "N·L = 1, red light");
    s.run_fvf(
        "SETLIGHT { dwIndex=3 dwDataType=DISABLE }\nTRIANGLELIST count=1 wVStart=0\n",
        FVF_XYZN,
        24,
        &v,
    )
    .ok();
    assert_eq!(s.px(1, 1), 0xff000000, "no light, no ambient: black");
    s.run_fvf(
        "RENDERSTATE { RenderState=D3DRS_AMBIENT dwState=0xff404040 }\nTRIANGLELIST count=1 wVStart=0\n",
        FVF_XYZN,
        24,
        &v,
    )
    .ok();
    assert_eq!(s.px(1, 1), 0xff404040, "AMBIENT × material ambient");
}

#[test]
fn dx7_runtimes_send_dx6_filter_values() {
    let mut s = Scene::new(4, 4, false);
    s.drv.notify_dx_version(0x700);
    let ctx = s.drv.context_create(s.rt, None).unwrap();
    s.ctx = ctx;
    // D3DTFP_POINT (2) is D3DTEXF_POINT (1); D3DTFG_ANISOTROPIC (5) is 3.
    s.run(
        "TEXTURESTAGESTATE { wStage=0 TSState=D3DTSS_MIPFILTER dwValue=2 } { wStage=0 TSState=D3DTSS_MAGFILTER dwValue=5 }\n",
        &[],
    )
    .ok();
    let st = &s.drv.context(ctx).unwrap().state.texture_stages[0];
    assert_eq!((st[18], st[16]), (1, 3));
    // D3DTSS_ADDRESS sets U and V.
    s.run(
        "TEXTURESTAGESTATE { wStage=1 TSState=D3DTSS_ADDRESS dwValue=D3DTADDRESS_CLAMP }\n",
        &[],
    )
    .ok();
    let st = &s.drv.context(ctx).unwrap().state.texture_stages[1];
    assert_eq!((st[13], st[14]), (3, 3));
}

#[test]
fn texture_formats_are_reported_and_enforced() {
    let mut drv = Driver::new(common::test_threads()).unwrap();
    let f = drv.formats();
    let dxt1 = f
        .iter()
        .find(|c| c.d3dfmt == TextureFormat::Dxt1.d3dfmt())
        .unwrap();
    assert!(dxt1.texture && !dxt1.render_target);
    let a8r8g8b8 = f.iter().find(|c| c.d3dfmt == 21).unwrap();
    assert!(a8r8g8b8.texture && a8r8g8b8.render_target);
    let caps = drv.caps();
    assert_eq!(caps.max_simultaneous_textures, 8);
    assert_eq!(caps.max_active_lights, 8);
    // A texture format cannot be a render target, nor an unknown number a
    // texture: DDERR_INVALIDPIXELFORMAT.
    let e = drv
        .create_surface(SurfaceDesc {
            kind: SurfaceKind::RenderTarget,
            format: D3dFormat(TextureFormat::Dxt1.d3dfmt()),
            width: 4,
            height: 4,
            depth: 1,
            mip_levels: 1,
            render_target: false,
        })
        .unwrap_err();
    assert_eq!(e.ddrval(), codes::DDERR_INVALIDPIXELFORMAT);
    let e = drv.create_texture(D3dFormat(12345), 4, 4, 1).unwrap_err();
    assert_eq!(e.ddrval(), codes::DDERR_INVALIDPIXELFORMAT);
}

#[test]
fn texblt_runs_on_the_copy_engine_between_the_draws_around_it() {
    let mut s = Scene::new(4, 4, false);
    let a = texture(
        &mut s,
        TextureFormat::A8R8G8B8,
        1,
        1,
        1,
        &argb_bytes(&[0xff00ff00]),
    );
    let b = texture(
        &mut s,
        TextureFormat::A8R8G8B8,
        1,
        1,
        1,
        &argb_bytes(&[0xffff0000]),
    );
    let mut v = tquad(-0.5, -0.5, 1.5, 3.5, 0xffffffff, 0);
    v.extend(tquad(1.5, -0.5, 3.5, 3.5, 0xffffffff, 0));
    // Draw with b, copy a into b, draw with b again: one DP2 call.
    let src = format!(
        "{}TRIANGLELIST count=2 wVStart=0\n\
         TEXBLT {{ dwDDDestSurface={b} dwDDSrcSurface={a} pDest.x=0 pDest.y=0 rSrc.left=0 rSrc.top=0 rSrc.right=1 rSrc.bottom=1 }}\n\
         TRIANGLELIST count=2 wVStart=6\n",
        show(b)
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    assert_eq!(
        s.px(0, 1),
        0xffff0000,
        "the first draw sampled b before the copy"
    );
    assert_eq!(
        s.px(3, 1),
        0xff00ff00,
        "the second draw sampled the copied texel"
    );
}

#[test]
fn point_sprites_cover_their_square_with_the_whole_texture() {
    let mut s = Scene::new(8, 8, false);
    let t = texture(
        &mut s,
        TextureFormat::A8R8G8B8,
        2,
        2,
        1,
        &argb_bytes(&[0xffff0000, 0xff00ff00, 0xff0000ff, 0xffffffff]),
    );
    // One pre-transformed point at the centre of the target, 4 pixels wide.
    let v = tlt(4.0, 4.0, 0xffffffff, 0, 0.0, 0.0);
    let src = format!(
        "{}RENDERSTATE {{ RenderState=D3DRS_POINTSPRITEENABLE dwState=TRUE }} {{ RenderState=D3DRS_POINTSIZE dwState=4.0 }}\n\
         POINTS {{ wCount=1 wVStart=0 }}\n",
        show(t)
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    assert_eq!(s.px(2, 2), 0xffff0000, "top-left quadrant: texel (0, 0)");
    assert_eq!(s.px(5, 2), 0xff00ff00, "top-right: texel (1, 0)");
    assert_eq!(s.px(2, 5), 0xff0000ff, "bottom-left: texel (0, 1)");
    assert_eq!(s.px(5, 5), 0xffffffff, "bottom-right: texel (1, 1)");
    assert_eq!(s.px(0, 0), 0, "outside the sprite");
}

#[test]
fn tweening_moves_untransformed_vertices_towards_position1() {
    let mut s = Scene::new(8, 8, false);
    // POSITION (FLOAT3) + POSITION1 (FLOAT3) + COLOR: a triangle over the
    // left half whose tween target covers the right half.
    let tri: Vec<u8> = [
        ([-1.0f32, -1.0], [0.0f32, -1.0]),
        ([-1.0, 1.0], [0.0, 1.0]),
        ([0.0, -1.0], [1.0, -1.0]),
        ([0.0, 1.0], [1.0, 1.0]),
    ]
    .iter()
    .flat_map(|(p, q)| {
        let mut b = Vec::new();
        for f in [p[0], p[1], 0.5, q[0], q[1], 0.5] {
            b.extend_from_slice(&f.to_le_bytes());
        }
        b.extend_from_slice(&0xff00ff00u32.to_le_bytes());
        b
    })
    .collect();
    let decl = "CREATEVERTEXSHADERDECL { dwHandle=0x31 { Stream=0 Offset=0 Type=D3DDECLTYPE_FLOAT3 Usage=D3DDECLUSAGE_POSITION } \
                { Stream=0 Offset=12 Type=D3DDECLTYPE_FLOAT3 Usage=D3DDECLUSAGE_POSITION UsageIndex=1 } \
                { Stream=0 Offset=24 Type=D3DDECLTYPE_D3DCOLOR Usage=D3DDECLUSAGE_COLOR } { Stream=0xff Type=D3DDECLTYPE_UNUSED } }";
    let draw = |factor: &str| {
        format!(
            "{NOCULL}VIEWPORTINFO {{ dwX=0 dwY=0 dwWidth=8 dwHeight=8 }}\n{decl}\nSETVERTEXSHADERDECL {{ dwHandle=0x31 }}\n\
             RENDERSTATE {{ RenderState=D3DRS_VERTEXBLEND dwState=D3DVBF_TWEENING }} {{ RenderState=D3DRS_TWEENFACTOR dwState={factor} }}\n\
             CLEAR {{ dwFlags=D3DCLEAR_TARGET dwFillColor=0xff000000 dvFillDepth=1.0 }}\n\
             SETSTREAMSOURCEUM {{ dwStream=0 dwStride=28 }}\nDRAWPRIMITIVE {{ primType=D3DPT_TRIANGLESTRIP VStart=0 PrimitiveCount=2 }}\n"
        )
    };
    s.run_fvf(&draw("0.0"), 0x42, 28, &tri).ok();
    assert_eq!(
        (s.px(1, 4), s.px(6, 4)),
        (0xff00ff00, 0xff000000),
        "factor 0: position"
    );
    s.run_fvf(&draw("1.0"), 0x42, 28, &tri).ok();
    assert_eq!(
        (s.px(1, 4), s.px(6, 4)),
        (0xff000000, 0xff00ff00),
        "factor 1: position1"
    );
}
