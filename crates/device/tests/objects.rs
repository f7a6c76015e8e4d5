//! CLEAR, blts, state blocks, queries, patches, palettes, recorded
//! opcodes, the swap model, surfaces and handles, caps, Clear2 and
//! ValidateTextureStageState.

mod common;

use common::*;
use softhal_device::*;
use softhal_wire::names::codes;

const RED: u32 = 0xFFFF_0000;
const GREEN: u32 = 0xFF00_FF00;
const BLUE: u32 = 0xFF00_00FF;

#[test]
fn clear_target_depth_and_rects() {
    let mut s = Scene::new(16, 16, true);
    s.run("CLEAR { dwFlags=D3DCLEAR_TARGET|D3DCLEAR_ZBUFFER|D3DCLEAR_STENCIL dwFillColor=0xff0000ff dvFillDepth=0.5 dwFillStencil=7 }", &[]).ok();
    assert_eq!(s.count(BLUE), 256);
    let z = s.drv.image(s.depth.unwrap()).unwrap();
    assert!((z.read_depth(3, 3).unwrap() - 0.5).abs() < 1e-6);
    assert_eq!(z.read_stencil(3, 3), Some(7));
    s.run("CLEAR { dwFlags=D3DCLEAR_TARGET dwFillColor=0xffff0000 } { left=0 top=0 right=4 bottom=4 } { left=12 top=12 right=20 bottom=20 }", &[]).ok();
    assert_eq!(s.count(RED), 32);
    // COMPUTERECTS with no rect: the viewport.
    s.run("VIEWPORTINFO { dwX=8 dwY=0 dwWidth=8 dwHeight=16 }\nCLEAR { dwFlags=D3DCLEAR_TARGET|0x8 dwFillColor=0xff00ff00 }", &[]).ok();
    assert_eq!(s.count(GREEN), 128);
    // Errors: undefined flag bits; depth without a depth buffer; NaN depth.
    s.run("CLEAR { dwFlags=0x10 }", &[]).unparsed_at(0);
    s.run("CLEAR { dwFlags=D3DCLEAR_ZBUFFER dvFillDepth=NaN }", &[])
        .unparsed_at(0);
    let mut s = Scene::new(16, 16, false);
    s.run("CLEAR { dwFlags=D3DCLEAR_ZBUFFER dvFillDepth=1.0 }", &[])
        .unparsed_at(0);
    // Truncated: N = 2 but one RECT.
    let b = asm("CLEAR { dwFlags=D3DCLEAR_TARGET } { left=0 top=0 right=4 bottom=4 } { left=0 top=0 right=4 bottom=4 }");
    s.run_bytes(&b[..b.len() - 16], &[]).unparsed_at(0);
}

#[test]
fn clear2_entry_point() {
    let mut s = Scene::new(8, 8, false);
    let rects = [[0, 0, 4, 8]];
    let mut d = Clear2Data {
        dwh_context: s.ctx,
        dw_flags: 1,
        dw_fill_color: RED,
        dv_fill_depth: 1.0,
        dw_fill_stencil: 0,
        lp_rects: &rects,
        ddrval: 0,
    };
    assert_eq!(s.drv.clear2(&mut d), codes::DDHAL_DRIVER_HANDLED);
    assert_eq!(d.ddrval, codes::D3D_OK);
    assert_eq!(s.count(RED), 32);
    d.dwh_context = 77;
    s.drv.clear2(&mut d);
    assert_eq!(d.ddrval, codes::D3DHAL_CONTEXT_BAD);
    d.dwh_context = s.ctx;
    d.dw_flags = 2;
    s.drv.clear2(&mut d);
    assert_eq!(d.ddrval, codes::DDERR_INVALIDPARAMS);
}

#[test]
fn texture_surfaces_and_blts() {
    let mut s = Scene::new(16, 16, false);
    let a = s.drv.create_texture(Format::A8R8G8B8, 8, 8, 0).unwrap();
    let b = s.drv.create_texture(Format::A8R8G8B8, 8, 8, 0).unwrap();
    assert_eq!(s.drv.surface(a).unwrap().desc.mip_levels, 4);
    // COLORFILL level 0 of a, GENERATEMIPSUBLEVELS, TEXBLT a → b.
    s.run(&format!("COLORFILL {{ dwSurface={a} rRect.right=8 rRect.bottom=8 Color=0xff00ff00 }}\nGENERATEMIPSUBLEVELS {{ hSurface={a} Filter=D3DTEXF_LINEAR }}\nTEXBLT {{ dwDDDestSurface={b} dwDDSrcSurface={a} rSrc.right=8 rSrc.bottom=8 }}"), &[]).ok();
    let (lvl, _) = s.drv.lock_level(b, 0, 2).unwrap();
    assert_eq!(&lvl[..4], &[0, 255, 0, 255]);
    // BLT with stretching and format conversion into the render target.
    s.run(&format!("BLT {{ dwSource={a} rSource.right=8 rSource.bottom=8 dwDest={} rDest.right=16 rDest.bottom=16 }}", s.rt), &[]).ok();
    assert_eq!(s.count(GREEN), 256);
    let c = s.drv.create_texture(Format::R5G6B5, 4, 4, 1).unwrap();
    s.run(&format!("SURFACEBLT {{ dwSource={} rSource.right=4 rSource.bottom=4 dwDest={c} rDest.right=4 rDest.bottom=4 }}", s.rt), &[]).ok();
    assert_eq!(
        &s.drv.lock(c, LockFlags::default()).unwrap()[..2],
        &0x07E0u16.to_le_bytes()
    );
    // Errors: rect outside, formats differ for TEXBLT, bad mip level, depth
    // COLORFILL, bad handle.
    s.run(
        &format!("TEXBLT {{ dwDDDestSurface={b} dwDDSrcSurface={a} rSrc.right=9 rSrc.bottom=8 }}"),
        &[],
    )
    .unparsed_at(0);
    s.run(
        &format!("TEXBLT {{ dwDDDestSurface={c} dwDDSrcSurface={a} rSrc.right=4 rSrc.bottom=4 }}"),
        &[],
    )
    .unparsed_at(0);
    s.run(&format!("BLT {{ dwSource={a} dwSourceMipLevel=9 rSource.right=1 rSource.bottom=1 dwDest={b} rDest.right=1 rDest.bottom=1 }}"), &[]).unparsed_at(0);
    s.run(&format!("BLT {{ dwSource={a} rSource.right=1 rSource.bottom=1 dwDest={b} rDest.right=1 rDest.bottom=1 Flags=4 }}"), &[]).unparsed_at(0);
    s.run(
        &format!("COLORFILL {{ dwSurface={a} rRect.left=-1 rRect.right=8 rRect.bottom=8 }}"),
        &[],
    )
    .unparsed_at(0);
    s.run(
        "GENERATEMIPSUBLEVELS { hSurface=5 Filter=D3DTEXF_LINEAR }",
        &[],
    )
    .unparsed_at(0);
    s.run(
        &format!("GENERATEMIPSUBLEVELS {{ hSurface={a} Filter=99 }}"),
        &[],
    )
    .unparsed_at(0);
    // Preload (destination 0) is counted.
    s.run(
        &format!("TEXBLT {{ dwDDDestSurface=0 dwDDSrcSurface={a} }}"),
        &[],
    )
    .ok();
    assert_eq!(s.drv.context(s.ctx).unwrap().stats.preloads, 1);
}

#[test]
fn cube_volume_and_buffer_blts() {
    let mut s = Scene::new(8, 8, false);
    let cube = s
        .drv
        .create_surface(SurfaceDesc::cube_texture(Format::A8R8G8B8, 4, 0))
        .unwrap();
    let cube2 = s
        .drv
        .create_surface(SurfaceDesc::cube_texture(Format::A8R8G8B8, 4, 0))
        .unwrap();
    for f in 0..6 {
        s.drv.lock_level(cube, f, 0).unwrap().0.fill(f as u8 + 1);
    }
    assert!(s.drv.lock_level(cube, 6, 0).is_err());
    s.run(
        &format!(
            "TEXBLT {{ dwDDDestSurface={cube2} dwDDSrcSurface={cube} rSrc.right=4 rSrc.bottom=4 }}"
        ),
        &[],
    )
    .ok();
    assert_eq!(s.drv.lock_level(cube2, 5, 0).unwrap().0[0], 6);
    let v1 = s
        .drv
        .create_surface(SurfaceDesc::volume_texture(Format::A8R8G8B8, 4, 4, 4, 1))
        .unwrap();
    let v2 = s
        .drv
        .create_surface(SurfaceDesc::volume_texture(Format::A8R8G8B8, 4, 4, 4, 1))
        .unwrap();
    s.drv
        .lock(v1, LockFlags::default())
        .unwrap()
        .iter_mut()
        .enumerate()
        .for_each(|(i, b)| *b = i as u8);
    s.run(&format!("VOLUMEBLT {{ dwDDDestSurface={v2} dwDDSrcSurface={v1} dwDestX=1 srcBox.Left=0 srcBox.Right=2 srcBox.Bottom=4 srcBox.Front=1 srcBox.Back=3 }}"), &[]).ok();
    let (d, _) = s.drv.lock_level(v2, 0, 0).unwrap();
    // Destination slice 0, row 0, x = 1 ← source slice 1, row 0, x = 0
    // (byte 64); destination slice 1 ← source slice 2.
    assert_eq!((d[4], d[64 + 4], d[0], d[2 * 64 + 4]), (64, 128, 0, 0));
    s.run(&format!("VOLUMEBLT {{ dwDDDestSurface={v2} dwDDSrcSurface={v1} dwDestX=3 srcBox.Right=2 srcBox.Bottom=1 srcBox.Back=1 }}"), &[]).unparsed_at(0);
    s.run(&format!("VOLUMEBLT {{ dwDDDestSurface={cube} dwDDSrcSurface={v1} srcBox.Right=1 srcBox.Bottom=1 srcBox.Back=1 }}"), &[]).unparsed_at(0);
    let b1 = s.drv.create_vertex_buffer(16, false).unwrap();
    let b2 = s.drv.create_index_buffer(16).unwrap();
    s.drv
        .lock(b1, LockFlags::default())
        .unwrap()
        .copy_from_slice(&[9; 16]);
    s.run(&format!("BUFFERBLT {{ dwDDDestSurface={b2} dwDDSrcSurface={b1} dwOffset=8 rSrc.Offset=0 rSrc.Size=8 }}"), &[]).ok();
    assert_eq!(
        s.drv.lock(b2, LockFlags::default()).unwrap(),
        &[0, 0, 0, 0, 0, 0, 0, 0, 9, 9, 9, 9, 9, 9, 9, 9]
    );
    s.run(&format!("BUFFERBLT {{ dwDDDestSurface={b2} dwDDSrcSurface={b1} dwOffset=9 rSrc.Offset=0 rSrc.Size=8 }}"), &[]).unparsed_at(0);
    s.run(&format!("BUFFERBLT {{ dwDDDestSurface={b2} dwDDSrcSurface={b1} dwOffset=0 rSrc.Offset=0xffffffff rSrc.Size=8 }}"), &[]).unparsed_at(0);
}

#[test]
fn state_blocks_record_execute_capture_create() {
    let mut s = Scene::new(8, 8, false);
    let mut arr = [0u32; 256];
    let rec = asm("STATESET { dwOperation=D3DHAL_STATESETBEGIN dwParam=1 }\nRENDERSTATE { RenderState=D3DRS_ZFUNC dwState=D3DCMP_GREATER }\nVIEWPORTINFO { dwWidth=3 dwHeight=3 }\nSTATESET { dwOperation=D3DHAL_STATESETEND dwParam=1 }");
    s.run_full(&rec, 0, &[], D3DHALDP2_EXECUTEBUFFER, Some(&mut arr))
        .ok();
    let st = &s.drv.context(s.ctx).unwrap().state;
    assert_eq!(st.render_states[23], 4, "recording does not apply");
    assert_eq!(arr[23], 0, "nor mirror into lpdwRStates");
    let exec = asm("STATESET { dwOperation=D3DHAL_STATESETEXECUTE dwParam=1 }");
    s.run_full(&exec, 0, &[], D3DHALDP2_EXECUTEBUFFER, Some(&mut arr))
        .ok();
    let st = &s.drv.context(s.ctx).unwrap().state;
    assert_eq!((st.render_states[23], st.viewport.width), (5, 3));
    assert_eq!(arr[23], 5);
    // Capture takes the current values of the block's keys only.
    s.run("RENDERSTATE { RenderState=D3DRS_ZFUNC dwState=D3DCMP_LESS } { RenderState=D3DRS_FILLMODE dwState=D3DFILL_POINT }\nSTATESET { dwOperation=D3DHAL_STATESETCAPTURE dwParam=1 }\nRENDERSTATE { RenderState=D3DRS_ZFUNC dwState=D3DCMP_ALWAYS } { RenderState=D3DRS_FILLMODE dwState=D3DFILL_SOLID }\nSTATESET { dwOperation=D3DHAL_STATESETEXECUTE dwParam=1 }", &[]).ok();
    let st = &s.drv.context(s.ctx).unwrap().state;
    assert_eq!((st.render_states[23], st.render_states[8]), (2, 3));
    // CREATE with a group: PIXELSTATE holds ZFUNC but not CULLMODE.
    s.run("STATESET { dwOperation=D3DHAL_STATESETCREATE dwParam=2 sbType=D3DSBT_PIXELSTATE }\nRENDERSTATE { RenderState=D3DRS_ZFUNC dwState=D3DCMP_NEVER } { RenderState=D3DRS_CULLMODE dwState=D3DCULL_NONE }\nSTATESET { dwOperation=D3DHAL_STATESETEXECUTE dwParam=2 }", &[]).ok();
    let st = &s.drv.context(s.ctx).unwrap().state;
    assert_eq!((st.render_states[23], st.render_states[22]), (2, 1));
    // VERTEXSTATE holds CULLMODE.
    s.run("STATESET { dwOperation=D3DHAL_STATESETCREATE dwParam=3 sbType=D3DSBT_VERTEXSTATE }\nRENDERSTATE { RenderState=D3DRS_CULLMODE dwState=D3DCULL_CW }\nSTATESET { dwOperation=D3DHAL_STATESETEXECUTE dwParam=3 }", &[]).ok();
    assert_eq!(s.drv.context(s.ctx).unwrap().state.render_states[22], 1);
    // ALL holds transforms and the viewport.
    s.run("STATESET { dwOperation=D3DHAL_STATESETCREATE dwParam=4 sbType=D3DSBT_ALL }\nVIEWPORTINFO { dwWidth=7 dwHeight=7 }\nSETTRANSFORM { xfrmType=D3DTS_VIEW _11=9.0 }\nSTATESET { dwOperation=D3DHAL_STATESETEXECUTE dwParam=4 }", &[]).ok();
    let st = &s.drv.context(s.ctx).unwrap().state;
    assert_eq!((st.viewport.width, st.transform(2)[0][0]), (3, 1.0));
    // Errors.
    s.run(
        "STATESET { dwOperation=D3DHAL_STATESETDELETE dwParam=2 }",
        &[],
    )
    .ok();
    s.run(
        "STATESET { dwOperation=D3DHAL_STATESETEXECUTE dwParam=2 }",
        &[],
    )
    .unparsed_at(0);
    s.run("STATESET { dwOperation=D3DHAL_STATESETEND dwParam=1 }", &[])
        .unparsed_at(0);
    s.run(
        "STATESET { dwOperation=D3DHAL_STATESETCREATE dwParam=5 sbType=9 }",
        &[],
    )
    .unparsed_at(0);
    s.run("STATESET { dwOperation=6 dwParam=1 }", &[])
        .unparsed_at(0);
    s.run(
        "STATESET { dwOperation=D3DHAL_STATESETBEGIN dwParam=8 }",
        &[],
    )
    .ok();
    s.run(
        "STATESET { dwOperation=D3DHAL_STATESETBEGIN dwParam=9 }",
        &[],
    )
    .unparsed_at(0);
    // Validation still applies while recording.
    s.run(
        "SETLIGHT { dwIndex=3 dwDataType=D3DHAL_SETLIGHT_ENABLE }",
        &[],
    )
    .unparsed_at(0);
    s.run("STATESET { dwOperation=D3DHAL_STATESETEND dwParam=8 }", &[])
        .ok();
}

/// The vertex-texture samplers D3DVERTEXTEXTURESAMPLER0–3 (TEXTURESTAGESTATE
/// `wStage` 257–260, device stages 16–19) in state blocks (docs/device.md,
/// "State blocks"): a group holds the sampler states of every sampler, the
/// vertex samplers included (D3DSBT_ALL and D3DSBT_PIXELSTATE their
/// ADDRESSU … ELEMENTINDEX, D3DSBT_VERTEXSTATE only DMAPOFFSET), and no
/// texture binding; a recorded block holds what was set while recording,
/// the vertex sampler's texture included.
#[test]
fn state_blocks_hold_the_vertex_samplers() {
    use softhal_pipeline::texture::TextureFormat;
    let mut s = Scene::new(8, 8, false);
    let t = s.drv.create_texture(TextureFormat::R32F, 4, 1, 1).unwrap();
    let u = s.drv.create_texture(TextureFormat::R32F, 4, 1, 1).unwrap();
    // D3DTSS_ADDRESSU is 13, MAXMIPLEVEL 20, DMAPOFFSET 31, TEXTUREMAP 0.
    let state = |s: &Scene, stage: usize, tss: usize| {
        s.drv.context(s.ctx).unwrap().state.texture_stages[stage][tss]
    };
    // Sampler 0 (wStage 257 → stage 16): ADDRESSU = CLAMP (3), texture t;
    // sampler 3 (wStage 260 → stage 19): MAXMIPLEVEL = 2.
    s.run(&format!(
        "TEXTURESTAGESTATE {{ wStage=257 TSState=D3DTSS_ADDRESSU dwValue=D3DTADDRESS_CLAMP }} \
         {{ wStage=260 TSState=D3DTSS_MAXMIPLEVEL dwValue=2 }} {{ wStage=257 TSState=D3DTSS_TEXTUREMAP dwValue={t} }}\n\
         STATESET {{ dwOperation=D3DHAL_STATESETCREATE dwParam=1 sbType=D3DSBT_ALL }}\n\
         STATESET {{ dwOperation=D3DHAL_STATESETCREATE dwParam=2 sbType=D3DSBT_PIXELSTATE }}\n\
         STATESET {{ dwOperation=D3DHAL_STATESETCREATE dwParam=3 sbType=D3DSBT_VERTEXSTATE }}"
    ), &[])
    .ok();
    assert_eq!(
        (state(&s, 16, 13), state(&s, 19, 20), state(&s, 16, 0)),
        (3, 2, t)
    );
    // Changed: ADDRESSU = MIRROR (2), MAXMIPLEVEL = 0, texture u.
    let change = format!(
        "TEXTURESTAGESTATE {{ wStage=257 TSState=D3DTSS_ADDRESSU dwValue=D3DTADDRESS_MIRROR }} \
         {{ wStage=260 TSState=D3DTSS_MAXMIPLEVEL dwValue=0 }} {{ wStage=257 TSState=D3DTSS_TEXTUREMAP dwValue={u} }}\n"
    );
    // VERTEXSTATE holds no ADDRESSU or MAXMIPLEVEL (its only sampler
    // state is DMAPOFFSET): (2, 0, u) stay.
    s.run(
        &format!("{change}STATESET {{ dwOperation=D3DHAL_STATESETEXECUTE dwParam=3 }}"),
        &[],
    )
    .ok();
    assert_eq!(
        (state(&s, 16, 13), state(&s, 19, 20), state(&s, 16, 0)),
        (2, 0, u)
    );
    // PIXELSTATE and ALL hold both sampler states of the vertex samplers:
    // (3, 2) again; the texture binding is not in a created block (the
    // DDK leaves the bound textures of a created block to the runtime):
    // u stays bound.
    for block in [2, 1] {
        s.run(
            &format!("{change}STATESET {{ dwOperation=D3DHAL_STATESETEXECUTE dwParam={block} }}"),
            &[],
        )
        .ok();
        assert_eq!(
            (state(&s, 16, 13), state(&s, 19, 20), state(&s, 16, 0)),
            (3, 2, u),
            "block {block}"
        );
    }
    // VERTEXSTATE holds sampler 1's DMAPOFFSET (wStage 258 → stage 17):
    // 7 captured, 9 set after, 7 after EXECUTE.
    s.run(
        "TEXTURESTAGESTATE { wStage=258 TSState=D3DTSS_DMAPOFFSET dwValue=7 }\n\
           STATESET { dwOperation=D3DHAL_STATESETCAPTURE dwParam=3 }\n\
           TEXTURESTAGESTATE { wStage=258 TSState=D3DTSS_DMAPOFFSET dwValue=9 }\n\
           STATESET { dwOperation=D3DHAL_STATESETEXECUTE dwParam=3 }",
        &[],
    )
    .ok();
    assert_eq!(state(&s, 17, 31), 7);
    // A recorded block: ADDRESSU and the texture of sampler 0 recorded
    // (recording does not apply them: (3, u) stay), then set to (CLAMP,
    // t) (ADDRESSU is CLAMP already) and captured, then changed to
    // (WRAP 1, none), then executed:
    // (3, t) restored.
    s.run(
        "STATESET { dwOperation=D3DHAL_STATESETBEGIN dwParam=4 }\n\
         TEXTURESTAGESTATE { wStage=257 TSState=D3DTSS_ADDRESSU dwValue=D3DTADDRESS_BORDER } { wStage=257 TSState=D3DTSS_TEXTUREMAP dwValue=0 }\n\
         STATESET { dwOperation=D3DHAL_STATESETEND dwParam=4 }",
        &[],
    )
    .ok();
    assert_eq!((state(&s, 16, 13), state(&s, 16, 0)), (3, u));
    s.run(&format!(
        "TEXTURESTAGESTATE {{ wStage=257 TSState=D3DTSS_TEXTUREMAP dwValue={t} }}\n\
         STATESET {{ dwOperation=D3DHAL_STATESETCAPTURE dwParam=4 }}\n\
         TEXTURESTAGESTATE {{ wStage=257 TSState=D3DTSS_ADDRESSU dwValue=D3DTADDRESS_WRAP }} {{ wStage=257 TSState=D3DTSS_TEXTUREMAP dwValue=0 }}"
    ), &[])
    .ok();
    assert_eq!((state(&s, 16, 13), state(&s, 16, 0)), (1, 0));
    s.run(
        "STATESET { dwOperation=D3DHAL_STATESETEXECUTE dwParam=4 }",
        &[],
    )
    .ok();
    assert_eq!((state(&s, 16, 13), state(&s, 16, 0)), (3, t));
}

/// The Direct3D 9 render states of multiple render targets and separate
/// alpha blending in state blocks: pixel state (the Direct3D 9
/// documentation's "Saving Pixel State With a StateBlock" lists
/// COLORWRITEENABLE1–3 (190–192), BLENDFACTOR (193), SEPARATEALPHABLENDENABLE
/// (206), SRCBLENDALPHA (207), DESTBLENDALPHA (208), BLENDOPALPHA (209)), so
/// D3DSBT_PIXELSTATE and D3DSBT_ALL restore them and D3DSBT_VERTEXSTATE does
/// not; the adaptive tessellation states (180–184) are vertex state.
#[test]
fn state_blocks_hold_the_direct3d_9_render_states() {
    let mut s = Scene::new(8, 8, false);
    let rs = |s: &Scene, n: usize| s.drv.context(s.ctx).unwrap().state.render_states[n];
    // Captured: COLORWRITEENABLE1 = RED|GREEN (0x3), COLORWRITEENABLE3 =
    // ALPHA (0x8), SEPARATEALPHABLENDENABLE TRUE, BLENDOPALPHA = MAX (5),
    // ADAPTIVETESS_X = 2.0.
    s.run("RENDERSTATE { RenderState=D3DRS_COLORWRITEENABLE1 dwState=D3DCOLORWRITEENABLE_RED|D3DCOLORWRITEENABLE_GREEN } \
           { RenderState=D3DRS_COLORWRITEENABLE3 dwState=D3DCOLORWRITEENABLE_ALPHA } \
           { RenderState=D3DRS_SEPARATEALPHABLENDENABLE dwState=TRUE } \
           { RenderState=D3DRS_BLENDOPALPHA dwState=D3DBLENDOP_MAX } \
           { RenderState=D3DRS_ADAPTIVETESS_X dwState=2.0 }\n\
           STATESET { dwOperation=D3DHAL_STATESETCREATE dwParam=1 sbType=D3DSBT_PIXELSTATE }\n\
           STATESET { dwOperation=D3DHAL_STATESETCREATE dwParam=2 sbType=D3DSBT_VERTEXSTATE }\n\
           STATESET { dwOperation=D3DHAL_STATESETCREATE dwParam=3 sbType=D3DSBT_ALL }", &[])
        .ok();
    let captured = [0x3, 0x8, 1, 5, 2.0f32.to_bits()];
    let read = |s: &Scene| [190, 192, 206, 209, 180].map(|n| rs(s, n));
    assert_eq!(read(&s), captured);
    // Changed back to the defaults: 0xF, 0xF, FALSE, ADD (1), 0.0.
    let change = "RENDERSTATE { RenderState=D3DRS_COLORWRITEENABLE1 dwState=0xf } \
           { RenderState=D3DRS_COLORWRITEENABLE3 dwState=0xf } \
           { RenderState=D3DRS_SEPARATEALPHABLENDENABLE dwState=FALSE } \
           { RenderState=D3DRS_BLENDOPALPHA dwState=D3DBLENDOP_ADD } \
           { RenderState=D3DRS_ADAPTIVETESS_X dwState=0.0 }\n";
    let defaults = [0xF, 0xF, 0, 1, 0];
    // VERTEXSTATE restores ADAPTIVETESS_X only.
    let mut arr = [0u32; 256];
    let b = asm(&format!(
        "{change}STATESET {{ dwOperation=D3DHAL_STATESETEXECUTE dwParam=2 }}"
    ));
    s.run_full(&b, 0, &[], D3DHALDP2_EXECUTEBUFFER, Some(&mut arr))
        .ok();
    assert_eq!(read(&s), [0xF, 0xF, 0, 1, 2.0f32.to_bits()]);
    // PIXELSTATE restores the other four, and lpdwRStates shows them.
    let b = asm(&format!(
        "{change}STATESET {{ dwOperation=D3DHAL_STATESETEXECUTE dwParam=1 }}"
    ));
    s.run_full(&b, 0, &[], D3DHALDP2_EXECUTEBUFFER, Some(&mut arr))
        .ok();
    assert_eq!(read(&s), [0x3, 0x8, 1, 5, 0]);
    assert_eq!([arr[190], arr[192], arr[206], arr[209]], [0x3, 0x8, 1, 5]);
    // ALL restores all five.
    s.run(
        &format!("{change}STATESET {{ dwOperation=D3DHAL_STATESETEXECUTE dwParam=3 }}"),
        &[],
    )
    .ok();
    assert_eq!(read(&s), captured);
    s.run(change, &[]).ok();
    assert_eq!(read(&s), defaults);
}

#[test]
fn lights_material_clip_planes() {
    let mut s = Scene::new(8, 8, false);
    s.run("CREATELIGHT { dwIndex=2 }\nSETLIGHT { dwIndex=2 dwDataType=D3DHAL_SETLIGHT_ENABLE } { dwIndex=1 light={ dltType=D3DLIGHT_POINT dvRange=5.0 } }\nSETMATERIAL { dvPower=4.0 }\nSETCLIPPLANE { dwIndex=5 plane[0]=1.0 }", &[]).ok();
    let st = &s.drv.context(s.ctx).unwrap().state;
    assert_eq!(st.lights.len(), 3);
    assert!(st.lights[2].enabled);
    assert_eq!(st.lights[1].data.unwrap()[0], 1);
    assert_eq!(st.material.unwrap()[16], 4.0f32.to_bits());
    assert_eq!(st.clip_planes[5][0], 1.0);
    s.run(
        &format!("CREATELIGHT {{ dwIndex={} }}", limits::MAX_LIGHTS),
        &[],
    )
    .unparsed_at(0);
    s.run("SETLIGHT { dwIndex=0 dwDataType=3 }", &[])
        .unparsed_at(0);
    s.run("SETLIGHT { dwIndex=0 light={ dltType=4 } }", &[])
        .unparsed_at(0);
    s.run("SETCLIPPLANE { dwIndex=6 }", &[]).unparsed_at(0);
    s.run("ZRANGE { dvMinZ=NaN dvMaxZ=1.0 }", &[])
        .unparsed_at(0);
    s.run("WINFO { dvWNear=1.0 dvWFar=inf }", &[])
        .unparsed_at(0);
    // A truncated SETLIGHT DATA record.
    let b = asm("SETLIGHT { dwIndex=1 light={ dltType=D3DLIGHT_POINT } }");
    s.run_bytes(&b[..b.len() - 1], &[]).unparsed_at(0);
}

fn issue_and_read(s: &mut Scene, src: &str, verts: &[u8]) -> (u32, Vec<u8>) {
    let b = asm(src);
    let cb = s
        .drv
        .create_command_buffer_with(&[b.clone(), vec![0; 64]].concat())
        .unwrap();
    let mut d = DrawPrimitives2Data::new(s.ctx, cb, b.len() as u32).with_user_vertices(
        FVF_TL,
        verts,
        (verts.len() / 20) as u32,
    );
    s.drv.draw_primitives2(&mut d);
    assert_eq!(d.ddrval, 0, "{:?}", s.drv.last_error());
    let out = s.drv.lock(cb, LockFlags::default()).unwrap()[..d.dw_error_offset as usize].to_vec();
    (d.dw_error_offset, out)
}

#[test]
fn occlusion_event_and_vcache_queries() {
    let mut s = Scene::new(16, 16, false);
    let verts = [
        quad(0.0, 0.0, 16.0, 16.0, 0.5, RED),
        quad(0.0, 0.0, 4.0, 4.0, 0.5, RED),
    ]
    .concat();
    let src = format!("{NOCULL}CREATEQUERY {{ dwQueryID=7 QueryType=D3DQUERYTYPE_OCCLUSION }}\nTRIANGLELIST count=2 wVStart=0\nISSUEQUERY {{ dwQueryID=7 dwFlags=D3DISSUE_BEGIN }}\nTRIANGLELIST count=2 wVStart=6\nISSUEQUERY {{ dwQueryID=7 dwFlags=D3DISSUE_END }}");
    let (n, bytes) = issue_and_read(&mut s, &src, &verts);
    assert_eq!(n, 20);
    assert_eq!(
        bytes,
        [
            &[88u8, 0, 1, 0][..],
            &20u32.to_le_bytes(),
            &7u32.to_le_bytes(),
            &4u32.to_le_bytes(),
            &16u32.to_le_bytes()
        ]
        .concat()
    );
    // Event + VCACHE in one record.
    let (n, bytes) = issue_and_read(&mut s, "CREATEQUERY { dwQueryID=1 QueryType=D3DQUERYTYPE_EVENT } { dwQueryID=2 QueryType=D3DQUERYTYPE_VCACHE }\nISSUEQUERY { dwQueryID=1 dwFlags=D3DISSUE_END } { dwQueryID=2 dwFlags=D3DISSUE_END }", &[]);
    assert_eq!(n, 8 + 12 + 24);
    assert_eq!(&bytes[..4], &[88, 0, 2, 0]);
    assert_eq!(&bytes[16..20], &1u32.to_le_bytes());
    assert_eq!(&bytes[28..32], b"CACH");
    // Errors.
    s.run(
        "CREATEQUERY { dwQueryID=3 QueryType=D3DQUERYTYPE_TIMESTAMP }",
        &[],
    )
    .unparsed_at(0);
    s.run("ISSUEQUERY { dwQueryID=1 dwFlags=D3DISSUE_BEGIN }", &[])
        .unparsed_at(0);
    s.run("ISSUEQUERY { dwQueryID=1 dwFlags=4 }", &[])
        .unparsed_at(0);
    s.run("DELETEQUERY { dwQueryID=1 } { dwQueryID=99 }", &[])
        .unparsed_at(0);
    s.run("DELETEQUERY { dwQueryID=1 }", &[]).ok();
    s.run("ISSUEQUERY { dwQueryID=1 dwFlags=D3DISSUE_END }", &[])
        .unparsed_at(0);
}

#[test]
fn small_response_buffer_uses_responsecontinue() {
    let mut s = Scene::new(8, 8, false);
    let b = asm("CREATEQUERY { dwQueryID=1 QueryType=D3DQUERYTYPE_EVENT } { dwQueryID=2 QueryType=D3DQUERYTYPE_EVENT } { dwQueryID=3 QueryType=D3DQUERYTYPE_EVENT }");
    s.run_bytes(&b, &[]).ok();
    let issue = asm("ISSUEQUERY { dwQueryID=1 dwFlags=D3DISSUE_END } { dwQueryID=2 dwFlags=D3DISSUE_END } { dwQueryID=3 dwFlags=D3DISSUE_END }");
    assert_eq!(issue.len(), 28);
    let cb = s.drv.create_command_buffer(40).unwrap();
    s.drv.lock(cb, LockFlags::default()).unwrap()[..28].copy_from_slice(&issue);
    let mut d = DrawPrimitives2Data::new(s.ctx, cb, 28);
    s.drv.draw_primitives2(&mut d);
    assert_eq!((d.ddrval, d.dw_error_offset), (0, 8 + 24 + 8));
    let out = s.drv.lock(cb, LockFlags::default()).unwrap().to_vec();
    assert_eq!(&out[..8], &[88, 0, 2, 0, 32, 0, 0, 0]);
    assert_eq!(&out[32..40], &[87, 0, 0, 0, 8, 0, 0, 0]);
    let mut d = DrawPrimitives2Data::new(s.ctx, cb, 0);
    s.drv.draw_primitives2(&mut d);
    assert_eq!(d.dw_error_offset, 20);
    assert_eq!(
        &s.drv.lock(cb, LockFlags::default()).unwrap()[..12],
        &[88, 0, 1, 0, 20, 0, 0, 0, 3, 0, 0, 0]
    );
}

#[test]
fn palettes_and_recorded_opcodes() {
    let mut s = Scene::new(8, 8, false);
    let t = s.drv.create_texture(Format::A8R8G8B8, 4, 4, 1).unwrap();
    s.run(&format!("SETPALETTE {{ dwPaletteHandle=3 dwPaletteFlags=0x2000 dwSurfaceHandle={t} }}\nUPDATEPALETTE {{ dwPaletteHandle=3 wStartIndex=254 }} entries=[0x11 0x22]\nSETTEXLOD {{ dwDDSurface={t} dwLOD=2 }}\nSETPRIORITY {{ dwDDSurface={t} dwPriority=9 }}\nADDDIRTYRECT {{ dwSurface={t} rDirtyArea.right=2 rDirtyArea.bottom=2 }}\nADDDIRTYBOX {{ dwSurface={t} DirtyBox.Right=1 DirtyBox.Bottom=1 DirtyBox.Back=1 }}\nEXT {{ dwExtToken=5 }}"), &[]).ok();
    let r = s.drv.surface(t).unwrap();
    assert_eq!(
        (r.lod, r.priority, r.palette, r.dirty.regions.len()),
        (2, 9, Some((3, 0x2000)), 2)
    );
    let c = s.drv.context(s.ctx).unwrap();
    assert_eq!(&c.palettes[&3][254..], &[0x11, 0x22]);
    assert_eq!(c.stats.ext_tokens, 1);
    s.run(
        "UPDATEPALETTE { dwPaletteHandle=3 wStartIndex=255 } entries=[1 2]",
        &[],
    )
    .unparsed_at(0);
    s.run("SETTEXLOD { dwDDSurface=1 dwLOD=2 }", &[])
        .unparsed_at(0);
    s.run("SETPRIORITY { dwDDSurface=0 dwPriority=2 }", &[])
        .unparsed_at(0);
    s.run("ADDDIRTYRECT { dwSurface=4 }", &[]).unparsed_at(0);
    s.run(
        &format!("SETPALETTE {{ dwPaletteHandle=0 dwSurfaceHandle={t} }}"),
        &[],
    )
    .ok();
    assert_eq!(s.drv.surface(t).unwrap().palette, None);
    for _ in 0..limits::MAX_DIRTY_REGIONS + 1 {
        s.run(
            &format!("ADDDIRTYRECT {{ dwSurface={t} rDirtyArea.right=1 rDirtyArea.bottom=1 }}"),
            &[],
        )
        .ok();
    }
    assert!(s.drv.surface(t).unwrap().dirty.all);
    s.run("COMPOSERECTS { NumRects=1 }", &[]).unparsed_at(0);
    s.run(
        "SETCONVOLUTIONKERNELMONO { row=[0.25 0.5 0.25] col=[0.25 0.5 0.25] }",
        &[],
    )
    .ok();
    assert_eq!(
        s.drv
            .context(s.ctx)
            .unwrap()
            .convolution
            .as_ref()
            .unwrap()
            .0,
        3
    );
}

#[test]
fn render_target_switching() {
    let mut s = Scene::new(16, 16, false);
    let rt2 = s
        .drv
        .create_render_target(Format::X8R8G8B8, 16, 16)
        .unwrap();
    let z = s.drv.create_depth_stencil(Format::D16, 16, 16).unwrap();
    let small = s.drv.create_depth_stencil(Format::D16, 8, 8).unwrap();
    s.run(&format!("SETRENDERTARGET {{ hRenderTarget={rt2} hZBuffer={z} }}\nCLEAR {{ dwFlags=D3DCLEAR_TARGET|D3DCLEAR_ZBUFFER dwFillColor=0xffff0000 dvFillDepth=1.0 }}"), &[]).ok();
    assert_eq!(s.drv.image(rt2).unwrap().read_argb(1, 1), Some(RED));
    assert_eq!(s.count(RED), 0);
    s.run(
        &format!("SETRENDERTARGET {{ hRenderTarget={rt2} hZBuffer={small} }}"),
        &[],
    )
    .unparsed_at(0);
    s.run(
        &format!("SETRENDERTARGET {{ hRenderTarget={z} hZBuffer=0 }}"),
        &[],
    )
    .unparsed_at(0);
    s.run(
        &format!(
            "SETRENDERTARGET2 {{ RTIndex=0 hRenderTarget={} }}\nSETDEPTHSTENCIL {{ hZBuffer=0 }}",
            s.rt
        ),
        &[],
    )
    .ok();
    s.run(
        &format!("SETRENDERTARGET2 {{ RTIndex=4 hRenderTarget={} }}", s.rt),
        &[],
    )
    .unparsed_at(0);
    s.run(
        &format!("SETRENDERTARGET2 {{ RTIndex=1 hRenderTarget={rt2} }}"),
        &[],
    )
    .ok();
    assert_eq!(s.drv.context(s.ctx).unwrap().extra_targets[0], rt2);
    s.run(&format!("SETDEPTHSTENCIL {{ hZBuffer={small} }}"), &[])
        .unparsed_at(0);
    // Destroying the bound target: the next draw fails, nothing panics.
    s.drv.destroy_surface(s.rt).unwrap();
    s.run(
        &format!("{NOCULL}TRIANGLELIST count=2 wVStart=0"),
        &quad(0.0, 0.0, 16.0, 16.0, 0.5, RED),
    )
    .unparsed_at(12);
}

#[test]
fn swap_and_rename_model() {
    let mut s = Scene::new(16, 16, false);
    let implicit = s.drv.create_vertex_buffer(120, true).unwrap();
    let explicit = s.drv.create_vertex_buffer(120, false).unwrap();
    for h in [implicit, explicit] {
        s.drv
            .lock(h, LockFlags::default())
            .unwrap()
            .copy_from_slice(&quad(0.0, 0.0, 16.0, 16.0, 0.5, RED));
        s.drv.unlock(h).unwrap();
    }
    let b = asm(&format!("{NOCULL}TRIANGLELIST count=2 wVStart=0"));
    let cb = s.drv.create_command_buffer_with(&b).unwrap();
    let run = |s: &mut Scene, vb: u32, flags: u32| {
        let mut d =
            DrawPrimitives2Data::new(s.ctx, cb, b.len() as u32).with_vertex_buffer(FVF_TL, vb, 6);
        d.dw_flags |= flags;
        d.dw_req_vertex_buf_size = 4096;
        d.dw_req_command_buf_size = 2048;
        s.drv.draw_primitives2(&mut d);
        assert_eq!(d.ddrval, 0, "{:?}", s.drv.last_error());
        assert_eq!(
            d.dw_flags & (D3DHALDP2_VIDMEMVERTEXBUF | D3DHALDP2_VIDMEMCOMMANDBUF),
            0
        );
    };
    // Explicit buffer: busy after the call; a plain lock stalls.
    run(&mut s, explicit, 0);
    assert!(s.drv.surface(explicit).unwrap().busy);
    s.drv.lock(explicit, LockFlags::default()).unwrap();
    assert_eq!(s.drv.swap_stats().stalls, 1);
    // NOOVERWRITE does not stall; DISCARD renames.
    run(&mut s, explicit, 0);
    s.drv
        .lock(
            explicit,
            LockFlags {
                no_overwrite: true,
                discard: false,
            },
        )
        .unwrap();
    assert_eq!(s.drv.swap_stats().stalls, 1);
    run(&mut s, explicit, 0);
    assert_eq!(
        s.drv
            .lock(
                explicit,
                LockFlags {
                    discard: true,
                    no_overwrite: false
                }
            )
            .unwrap()[0],
        0
    );
    assert_eq!(s.drv.swap_stats().lock_renames, 1);
    // SWAPVERTEXBUFFER renames implicit buffers only (with the requested size).
    run(
        &mut s,
        explicit,
        D3DHALDP2_SWAPVERTEXBUFFER | D3DHALDP2_REQVERTEXBUFSIZE,
    );
    assert_eq!(s.drv.swap_stats().vertex_renames, 0);
    run(
        &mut s,
        implicit,
        D3DHALDP2_SWAPVERTEXBUFFER | D3DHALDP2_REQVERTEXBUFSIZE,
    );
    assert_eq!(s.drv.swap_stats().vertex_renames, 1);
    assert_eq!(s.drv.surface(implicit).unwrap().desc.width, 4096);
    assert!(!s.drv.surface(implicit).unwrap().busy);
    // An implicit busy buffer renames on lock.
    s.drv.lock(implicit, LockFlags::default()).unwrap()[..120]
        .copy_from_slice(&quad(0.0, 0.0, 16.0, 16.0, 0.5, RED));
    run(&mut s, implicit, 0);
    s.drv.lock(implicit, LockFlags::default()).unwrap();
    assert_eq!(s.drv.swap_stats().lock_renames, 2);
    // SWAPCOMMANDBUFFER.
    run(
        &mut s,
        explicit,
        D3DHALDP2_SWAPCOMMANDBUFFER | D3DHALDP2_REQCOMMANDBUFSIZE,
    );
    assert_eq!(s.drv.swap_stats().command_renames, 1);
    assert_eq!(s.drv.surface(cb).unwrap().desc.width, 2048);
    s.drv.complete_work();
    assert!(!s.drv.surface(explicit).unwrap().busy);
}

#[test]
fn surfaces_and_handles() {
    let mut drv = Driver::new(common::test_threads()).unwrap();
    assert!(drv.create_render_target(Format::D16, 4, 4).is_err());
    assert!(drv.create_depth_stencil(Format::A8R8G8B8, 4, 4).is_err());
    assert!(drv.create_render_target(Format::A8R8G8B8, 0, 4).is_err());
    assert!(drv.create_texture(Format::A8R8G8B8, 8, 8, 5).is_err());
    assert!(drv
        .create_surface(SurfaceDesc::cube_texture(Format::A8R8G8B8, 0, 1))
        .is_err());
    assert!(drv.create_vertex_buffer(u32::MAX, false).is_err());
    let rt = drv.create_render_target(Format::A8R8G8B8, 4, 4).unwrap();
    let ib = drv.create_index_buffer(4).unwrap();
    assert!(drv.context_create(ib, None).is_err());
    assert!(drv.context_create(rt, Some(rt)).is_err());
    let ctx = drv.context_create(rt, None).unwrap();
    drv.lock(rt, LockFlags::default()).unwrap()[..4].copy_from_slice(&[1, 2, 3, 4]);
    assert_eq!(&drv.read_rgba8(rt).unwrap()[..4], &[3, 2, 1, 4]);
    drv.destroy_surface(ib).unwrap();
    assert!(drv.lock(ib, LockFlags::default()).is_err());
    assert!(drv.destroy_surface(ib).is_err());
    let ib2 = drv.create_index_buffer(4).unwrap();
    assert_ne!(ib, ib2);
    assert!(
        drv.surface(ib).is_err(),
        "a stale handle never names the new object"
    );
    assert!(
        drv.surface(ctx).is_err(),
        "a context handle is not a surface handle"
    );
    let other = Driver::new(common::test_threads()).unwrap();
    assert!(other.surface(rt).is_err(), "another driver's handle");
    assert!(drv.context_destroy(ctx).is_ok());
    assert!(drv.context_destroy(ctx).is_err());
    assert_eq!(
        Driver::context_create_ddrval(&DeviceError::Limit {
            what: "contexts",
            max: 1
        }),
        codes::D3DHAL_OUTOFCONTEXTS
    );
    for _ in 0..limits::MAX_CONTEXTS {
        drv.context_create(rt, None).unwrap();
    }
    assert!(matches!(
        drv.context_create(rt, None),
        Err(DeviceError::Limit { .. })
    ));
    let png = drv.image(rt).unwrap().to_png_rgba().unwrap();
    assert_eq!(&png[1..4], b"PNG");
}

#[test]
fn caps_report_what_is_implemented() {
    let drv = Driver::new(common::test_threads()).unwrap();
    let c = drv.caps();
    assert_eq!(
        (
            c.texture_caps & 0x4800, // CUBEMAP | MIPMAP
            c.max_active_lights,
            c.max_simultaneous_textures,
            c.texture_op_caps.count_ones()
        ),
        (0x4800, 8, 8, 26)
    );
    assert_eq!(c.max_point_size, 256.0, "point sprites and scaled points");
    assert_eq!(c.max_user_clip_planes, 6);
    assert_ne!(c.dev_caps & 0x40_0000, 0, "RT patches");
    let f = drv.formats();
    assert!(f
        .iter()
        .any(|f| f.d3dfmt == 21 && f.render_target && f.texture));
    assert!(f
        .iter()
        .any(|f| f.d3dfmt == 75 && f.depth_stencil && !f.render_target));
    assert!(
        f.iter()
            .any(|f| f.d3dfmt == 827_611_204 && f.texture && !f.render_target),
        "DXT1 textures"
    );
    assert!(!f.iter().any(|f| f.d3dfmt == 999), "only real formats");
}

#[test]
fn validate_texture_stage_state() {
    let mut s = Scene::new(8, 8, false);
    let mut d = ValidateTextureStageStateData {
        dwh_context: s.ctx,
        ..Default::default()
    };
    s.drv.validate_texture_stage_state(&mut d);
    assert_eq!(
        (d.ddrval, d.dw_num_passes),
        (codes::D3D_OK, 1),
        "the default cascade"
    );
    s.run("TEXTURESTAGESTATE { wStage=1 TSState=D3DTSS_COLOROP dwValue=D3DTOP_LERP } { wStage=1 TSState=D3DTSS_COLORARG0 dwValue=D3DTA_TFACTOR }", &[]).ok();
    s.drv.validate_texture_stage_state(&mut d);
    assert_eq!(
        (d.ddrval, d.dw_num_passes),
        (codes::D3D_OK, 1),
        "8 stages, every op"
    );
    s.run(
        "TEXTURESTAGESTATE { wStage=1 TSState=D3DTSS_COLOROP dwValue=99 }",
        &[],
    )
    .ok();
    s.drv.validate_texture_stage_state(&mut d);
    assert_eq!(
        (d.ddrval, d.dw_num_passes),
        (codes::D3DERR_UNSUPPORTEDCOLOROPERATION, 0)
    );
    s.run("TEXTURESTAGESTATE { wStage=1 TSState=D3DTSS_COLOROP dwValue=D3DTOP_DISABLE } { wStage=0 TSState=D3DTSS_ALPHAARG1 dwValue=0x7 }", &[]).ok();
    s.drv.validate_texture_stage_state(&mut d);
    assert_eq!(d.ddrval, codes::D3DERR_UNSUPPORTEDALPHAARG);
    s.run("TEXTURESTAGESTATE { wStage=0 TSState=D3DTSS_ALPHAARG1 dwValue=D3DTA_TEXTURE } { wStage=0 TSState=D3DTSS_RESULTARG dwValue=D3DTA_TEXTURE }", &[]).ok();
    s.drv.validate_texture_stage_state(&mut d);
    // RESULTARG writes CURRENT or TEMP only.
    assert_eq!(d.ddrval, codes::D3DERR_UNSUPPORTEDCOLORARG);
    s.run("TEXTURESTAGESTATE { wStage=0 TSState=D3DTSS_RESULTARG dwValue=D3DTA_TEMP } { wStage=0 TSState=D3DTSS_MAGFILTER dwValue=D3DTEXF_CONVOLUTIONMONO }", &[]).ok();
    s.drv.validate_texture_stage_state(&mut d);
    // A D3DTEXF value, but for 9.L monochrome surfaces: not sampled.
    assert_eq!(d.ddrval, codes::D3DERR_UNSUPPORTEDTEXTUREFILTER);
    s.run("TEXTURESTAGESTATE { wStage=0 TSState=D3DTSS_MAGFILTER dwValue=D3DTEXF_POINT } { wStage=0 TSState=D3DTSS_MIPFILTER dwValue=9 }", &[]).ok();
    s.drv.validate_texture_stage_state(&mut d);
    assert_eq!(d.ddrval, codes::D3DERR_UNSUPPORTEDTEXTUREFILTER);
    s.run(
        "TEXTURESTAGESTATE { wStage=0 TSState=D3DTSS_COLOROP dwValue=D3DTOP_DISABLE }",
        &[],
    )
    .ok();
    s.drv.validate_texture_stage_state(&mut d);
    assert_eq!(
        d.ddrval,
        codes::D3D_OK,
        "stages after the first DISABLE are not looked at"
    );
    d.dwh_context = 1;
    s.drv.validate_texture_stage_state(&mut d);
    assert_eq!(d.ddrval, codes::D3DHAL_CONTEXT_BAD);
    // Legacy TEXTUREMAPBLEND maps onto stage 0.
    s.run(
        "RENDERSTATE { RenderState=D3DRENDERSTATE_TEXTUREMAPBLEND dwState=D3DTBLEND_MODULATE }",
        &[],
    )
    .ok();
    assert_eq!(s.drv.context(s.ctx).unwrap().state.texture_stages[0][1], 4);
}
