//! A session recorded through the Recorder replays to the same pixels and
//! the same answers, and its capture round-trips through the text form.

use softhal_capture::{binary, text, Record, Recorder};
use softhal_device::{
    Clear2Data, DrawPrimitives2Data, Driver, Format, LockFlags, SurfaceDesc, SurfaceKind,
    ValidateTextureStageStateData, D3DHALDP2_EXECUTEBUFFER,
};
use softhal_wire::names::codes;

fn vertex(x: f32, y: f32, z: f32, c: u32) -> Vec<u8> {
    let mut v = Vec::new();
    for f in [x, y, z, 1.0] {
        v.extend_from_slice(&f.to_le_bytes());
    }
    v.extend_from_slice(&c.to_le_bytes());
    v
}

fn asm(src: &str) -> Vec<u8> {
    softhal_wire::text::assemble(src).unwrap()
}

/// A command buffer holding `cmds`, written by the host through a lock.
fn command_buffer(r: &mut Recorder<Vec<u8>>, cmds: &[u8]) -> u32 {
    let cb = r.create_command_buffer(cmds.len() as u32).unwrap();
    r.lock(cb, LockFlags::default())
        .unwrap()
        .copy_from_slice(cmds);
    r.unlock(cb).unwrap();
    cb
}

#[test]
fn recorded_session_replays_identically() {
    let mut r = Recorder::new(Driver::new(1).unwrap(), Vec::new());
    let rt = r.create_render_target(Format::X8R8G8B8, 32, 32).unwrap();
    let ds = r.create_depth_stencil(Format::D24S8, 32, 32).unwrap();
    let cb = r.create_command_buffer(1024).unwrap();
    let vb = r
        .create_surface(SurfaceDesc::buffer(
            SurfaceKind::VertexBuffer { implicit: false },
            60,
        ))
        .unwrap();
    let tex = r
        .create_surface(SurfaceDesc::texture(Format::A8R8G8B8, 8, 8, 0))
        .unwrap();
    // The host writes a vertex buffer and a texture level.
    let tri: Vec<u8> = [
        vertex(2.0, 2.0, 0.5, 0xffff_0000),
        vertex(30.0, 2.0, 0.5, 0xff00_ff00),
        vertex(2.0, 30.0, 0.5, 0xff00_00ff),
    ]
    .concat();
    r.lock(vb, LockFlags::default())
        .unwrap()
        .copy_from_slice(&tri);
    r.unlock(vb).unwrap();
    {
        let (level1, _pitch) = r.lock_level(tex, 0, 1).unwrap();
        level1[4..8].copy_from_slice(&[1, 2, 3, 4]);
    }
    r.unlock(tex).unwrap();
    let ctx = r.context_create(rt, Some(ds)).unwrap();
    let rects = [[0, 0, 32, 32]];
    let mut c2 = Clear2Data {
        dwh_context: ctx,
        dw_flags: 3,
        dw_fill_color: 0xff20_2020,
        dv_fill_depth: 1.0,
        dw_fill_stencil: 0,
        lp_rects: &rects,
        ddrval: 0,
    };
    r.clear2(&mut c2);
    assert_eq!(c2.ddrval, codes::D3D_OK);

    // Call 1: from the vertex buffer, with lpdwRStates under EXECUTEBUFFER.
    let s1 = asm("VIEWPORTINFO { dwX=0 dwY=0 dwWidth=32 dwHeight=32 }\nRENDERSTATE { RenderState=ZENABLE dwState=TRUE } { RenderState=CULLMODE dwState=NONE }\nTRIANGLELIST count=1 wVStart=0");
    r.lock(cb, LockFlags::default()).unwrap()[..s1.len()].copy_from_slice(&s1);
    r.unlock(cb).unwrap();
    let mut rstates = [0u32; 256];
    let mut d = DrawPrimitives2Data::new(ctx, cb, s1.len() as u32).with_vertex_buffer(0x44, vb, 3);
    d.dw_flags |= D3DHALDP2_EXECUTEBUFFER;
    d.lpdw_r_states = Some(&mut rstates);
    r.draw_primitives2(&mut d);
    assert_eq!(d.ddrval, codes::D3D_OK);
    assert_eq!(rstates[7], 1);

    // Call 2: user-memory vertices at command offset 256.
    let s2 = asm("TRIANGLELIST count=1 wVStart=0");
    r.lock(cb, LockFlags::default()).unwrap()[256..256 + s2.len()].copy_from_slice(&s2);
    r.unlock(cb).unwrap();
    let um: Vec<u8> = [
        vertex(31.0, 31.0, 0.25, 0xffff_ffff),
        vertex(10.0, 31.0, 0.25, 0xffff_ff00),
        vertex(31.0, 10.0, 0.25, 0xff00_ffff),
    ]
    .concat();
    let mut d = DrawPrimitives2Data::new(ctx, cb, s2.len() as u32).with_user_vertices(0x44, &um, 3);
    d.dw_command_offset = 256;
    r.draw_primitives2(&mut d);
    assert_eq!(d.ddrval, codes::D3D_OK);

    // A flip, a refused call while it is pending, the vertical blank.
    r.flip(rt).unwrap();
    let mut d = DrawPrimitives2Data::new(ctx, cb, s2.len() as u32).with_user_vertices(0x44, &um, 3);
    r.draw_primitives2(&mut d);
    assert_eq!(d.ddrval, codes::DDERR_WASSTILLDRAWING);
    r.complete_flips();

    // A failing call: an unknown opcode after a state command.
    let s3 = [
        asm("RENDERSTATE { RenderState=ZENABLE dwState=FALSE }"),
        vec![5, 0, 1, 0],
    ]
    .concat();
    r.lock(
        cb,
        LockFlags {
            discard: true,
            no_overwrite: false,
        },
    )
    .unwrap()[..s3.len()]
        .copy_from_slice(&s3);
    r.unlock(cb).unwrap();
    let mut d = DrawPrimitives2Data::new(ctx, cb, s3.len() as u32);
    r.draw_primitives2(&mut d);
    assert_eq!(
        (d.ddrval, d.dw_error_offset),
        (codes::D3DERR_COMMAND_UNPARSED, 12)
    );

    let mut v = ValidateTextureStageStateData {
        dwh_context: ctx,
        ..Default::default()
    };
    r.validate_texture_stage_state(&mut v);
    r.complete_work();
    let presented = r.present(rt).unwrap();
    // Errors are recorded too.
    assert!(r.destroy_surface(0xdead_beef).is_err());
    r.destroy_surface(tex).unwrap();
    let rt2 = r.create_render_target(Format::R5G6B5, 8, 8).unwrap();
    let ctx2 = r.context_create(rt2, None).unwrap();
    r.context_destroy(ctx2).unwrap();
    assert!(r.context_create(rt, Some(rt2)).is_err());

    let (driver, bytes) = r.finish().unwrap();
    let final_pixels = driver.read_rgba8(rt).unwrap();
    assert_eq!(presented, final_pixels);

    let cap = binary::decode(&bytes).unwrap();
    assert!(cap
        .records
        .iter()
        .all(|r| !matches!(r, Record::CompleteFlips) || r.answer().is_none()));
    assert!(cap.records.iter().filter(|r| r.answer().is_some()).count() > 20);
    // Replay: same answers, same pixels, at 1 and 2 threads.
    for threads in [1, 2] {
        let rep = softhal_capture::replay(&cap, threads, |_, _| {}).unwrap();
        assert!(rep.differences.is_empty(), "{:?}", rep.differences);
        assert_eq!(rep.frames.len(), 2, "flip + present");
        assert_eq!(rep.frames[1].rgba, final_pixels);
        assert_eq!(rep.finals.len(), 1);
        assert_eq!(rep.finals[0].rgba, final_pixels);
    }
    // The recorded capture is byte-exact through the text form.
    let t = text::to_text(&cap);
    assert_eq!(
        binary::encode(&text::from_text(&t, None).unwrap()),
        bytes,
        "{t}"
    );
}

#[test]
fn write_errors_are_reported_by_finish() {
    #[derive(Debug)]
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut r = Recorder::new(Driver::new(1).unwrap(), Full);
    // The host is not interrupted.
    assert!(r.create_render_target(Format::X8R8G8B8, 4, 4).is_ok());
    assert_eq!(r.finish().unwrap_err().to_string(), "disk full");
}

/// Render-callback submissions (the host as the user-mode driver) are
/// recorded with their buffers; a replay translates the render context and
/// every allocation-list entry (through the surface it named) and answers
/// alike — accepted and refused submissions — with the same pixels.
#[test]
fn render_callback_submissions_replay_identically() {
    use softhal_submit::packet::{op, Writer};
    use softhal_submit::{AllocationListEntry, Engine, RenderData};
    // A driver that has had a surface and a render context: the replay's
    // allocation and context handles differ from the recorded ones.
    let mut drv = Driver::new(1).unwrap();
    let gone = drv.create_vertex_buffer(16, false).unwrap();
    drv.destroy_surface(gone).unwrap();
    let gone = drv.render_context_create(Engine::Copy).unwrap();
    drv.render_context_destroy(gone).unwrap();
    let mut r = Recorder::new(drv, Vec::new());
    let rt = r.create_render_target(Format::A8R8G8B8, 16, 16).unwrap();
    let vb = r
        .create_surface(SurfaceDesc::buffer(
            SurfaceKind::VertexBuffer { implicit: false },
            60,
        ))
        .unwrap();
    let tri = [
        vertex(0.0, 0.0, 0.5, 0xff00_ff00),
        vertex(16.0, 0.0, 0.5, 0xff00_ff00),
        vertex(0.0, 16.0, 0.5, 0xff00_ff00),
    ]
    .concat();
    r.lock(vb, LockFlags::default())
        .unwrap()
        .copy_from_slice(&tri);
    r.unlock(vb).unwrap();
    let ctx = r.render_context_create(Engine::ThreeD).unwrap();
    let rt_alloc = r.driver().allocation_of(rt).unwrap();
    assert_eq!(rt_alloc, 2, "the replay's will be 1");
    let vb_alloc = r.driver().allocation_of(vb).unwrap();
    let mut w = Writer::new();
    w.set_regs(&[
        // D3DRS_CULLMODE (22) = D3DCULL_NONE, D3DRS_ZENABLE (7) = FALSE.
        (softhal_submit::regs::id::rs(22), 1),
        (softhal_submit::regs::id::rs(7), 0),
    ]);
    w.bind_targets(0, None);
    w.clear_targets(1, 0xff80_0000, 1.0, 0, &[]);
    w.vertex_format(&softhal_pipeline::VertexLayout::packed(
        softhal_pipeline::PositionKind::Xyzrhw,
        true,
        false,
        &[],
    ));
    w.set_vertices(1, 0, 60);
    w.draw(4, 0, 1, 0, false);
    let data = |w: &Writer| RenderData {
        command_length: w.bytes.len() as u32,
        command_buffer: w.bytes.clone(),
        num_allocations: 2,
        allocation_list: vec![
            AllocationListEntry::new(rt_alloc, true),
            AllocationListEntry::new(vb_alloc, false),
        ],
        num_patch_locations: w.refs.len() as u32,
        patch_location_list: w.patch_locations(),
        h_context: Some(ctx),
        ..RenderData::default()
    };
    assert_eq!(r.render(&mut data(&w)), codes::D3D_OK);
    let mut bad = w.clone();
    bad.raw(op::FENCE_WAIT, 0, &[ctx, 1, 0]);
    assert_eq!(
        r.render(&mut data(&bad)),
        codes::D3DDDIERR_PRIVILEGEDINSTRUCTION
    );
    // hContext NULL: the device's default context takes it too (and the
    // replay's fresh driver has one).
    let mut none = data(&w);
    none.h_context = None;
    assert_eq!(r.render(&mut none), codes::D3D_OK);
    let presented = r.present(rt).unwrap();
    assert_eq!(&presented[..4], &[0, 255, 0, 255], "the triangle");
    assert_eq!(
        &presented[presented.len() - 4..],
        &[128, 0, 0, 255],
        "the clear"
    );
    r.render_context_destroy(ctx).unwrap();
    assert!(r.render_context_destroy(ctx).is_err());

    let (_, bytes) = r.finish().unwrap();
    let cap = binary::decode(&bytes).unwrap();
    let submits = cap
        .records
        .iter()
        .filter(|r| matches!(r, Record::Submit { .. }))
        .count();
    assert_eq!(submits, 3);
    let rep = softhal_capture::replay(&cap, 1, |_, _| {}).unwrap();
    assert!(rep.differences.is_empty(), "{:?}", rep.differences);
    assert_eq!(rep.frames.len(), 1);
    assert_eq!(rep.frames[0].rgba, presented);
    let t = text::to_text(&cap);
    assert_eq!(
        binary::encode(&text::from_text(&t, None).unwrap()),
        bytes,
        "{t}"
    );
}

#[test]
fn colour_keys_and_the_runtime_version_are_recorded_and_replayed() {
    let mut r = Recorder::new(Driver::new(1).unwrap(), Vec::new());
    r.notify_dx_version(0x700);
    let rt = r.create_render_target(Format::X8R8G8B8, 4, 4).unwrap();
    let tex = r
        .create_surface(SurfaceDesc::texture(Format::A8R8G8B8, 2, 1, 1))
        .unwrap();
    let texels: Vec<u8> = [0xffff_00ffu32, 0xff00_ff00]
        .iter()
        .flat_map(|t| t.to_le_bytes())
        .collect();
    r.lock(tex, LockFlags::default())
        .unwrap()
        .copy_from_slice(&texels);
    r.unlock(tex).unwrap();
    r.set_color_key(tex, Some((0xffff_00ff, 0xffff_00ff)))
        .unwrap();
    assert!(r.set_color_key(rt, None).is_err(), "answered and recorded");
    let ctx = r.context_create(rt, None).unwrap();
    // A textured quad (XYZRHW | DIFFUSE | SPECULAR | TEX1), colour keying on;
    // MIPFILTER 2 is D3DTFP_POINT for a DX7 runtime.
    let v: Vec<u8> = [
        (-0.5f32, -0.5f32, 0.0f32, 0.0f32),
        (3.5, -0.5, 1.0, 0.0),
        (-0.5, 3.5, 0.0, 1.0),
        (3.5, -0.5, 1.0, 0.0),
        (3.5, 3.5, 1.0, 1.0),
        (-0.5, 3.5, 0.0, 1.0),
    ]
    .iter()
    .flat_map(|&(x, y, u, t)| {
        let mut b = Vec::new();
        for f in [x, y, 0.5, 1.0] {
            b.extend_from_slice(&f.to_le_bytes());
        }
        b.extend_from_slice(&0xffff_ffffu32.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&u.to_le_bytes());
        b.extend_from_slice(&t.to_le_bytes());
        b
    })
    .collect();
    let src = format!(
        "RENDERSTATE {{ RenderState=D3DRS_CULLMODE dwState=D3DCULL_NONE }} {{ RenderState=D3DRS_COLORKEYENABLE dwState=TRUE }}\n\
         TEXTURESTAGESTATE {{ wStage=0 TSState=D3DTSS_TEXTUREMAP dwValue={tex} }} {{ wStage=0 TSState=D3DTSS_COLOROP dwValue=D3DTOP_SELECTARG1 }} \
         {{ wStage=0 TSState=D3DTSS_MIPFILTER dwValue=2 }}\n\
         CLEAR {{ dwFlags=D3DCLEAR_TARGET dwFillColor=0xff000080 dvFillDepth=1.0 }}\nTRIANGLELIST count=2 wVStart=0\n"
    );
    let cmds = softhal_wire::text::assemble_with(
        &src,
        softhal_wire::DecodeOptions {
            vertex_stride: 32,
            base_align: 0,
        },
    )
    .unwrap();
    let cb = command_buffer(&mut r, &cmds);
    let mut d =
        DrawPrimitives2Data::new(ctx, cb, cmds.len() as u32).with_user_vertices(0x1c4, &v, 6);
    d.ddrval = 32;
    r.draw_primitives2(&mut d);
    assert_eq!(d.ddrval, codes::D3D_OK);
    let presented = r.present(rt).unwrap();
    assert_eq!(
        &presented[..4],
        &[0, 0, 0x80, 0xff],
        "keyed: the clear shows"
    );
    assert_eq!(&presented[12..16], &[0, 0xff, 0, 0xff], "unkeyed texel");
    let (_, bytes) = r.finish().unwrap();
    let cap = binary::decode(&bytes).unwrap();
    assert!(cap
        .records
        .iter()
        .any(|r| matches!(r, Record::DxVersion { version: 0x700 })));
    assert_eq!(
        cap.records
            .iter()
            .filter(|r| matches!(r, Record::SetColorKey { .. }))
            .count(),
        2
    );
    let rep = softhal_capture::replay(&cap, 1, |_, _| {}).unwrap();
    assert!(rep.differences.is_empty(), "{:?}", rep.differences);
    assert_eq!(rep.frames[0].rgba, presented);
}

/// Regression (capi_entry timeout: starting a capture on a driver holding
/// a command buffer at the 256 MiB cap took 9 s in the fuzz build): the
/// initial contents of an existing surface are its bytes up to the last
/// non-zero one, found without copying or scanning byte by byte; an empty
/// buffer at the cap records no bytes, a buffer with one non-zero byte
/// records up to it.
#[test]
fn regression_capture_of_a_buffer_at_the_cap_records_only_its_used_prefix() {
    let mut d = Driver::new(1).unwrap();
    let cap = softhal_device::limits::MAX_BUFFER_BYTES as u32;
    let cb = d.create_command_buffer(cap).unwrap();
    assert!(softhal_capture::observer::contents(&d, cb).is_empty());
    let bytes = d.lock(cb, LockFlags::default()).unwrap();
    bytes[1_000_003] = 9;
    d.unlock(cb).unwrap();
    let got = softhal_capture::observer::contents(&d, cb);
    assert_eq!(got.len(), 1_000_004);
    assert_eq!(got.iter().filter(|b| **b != 0).count(), 1);
}

#[test]
fn a_render_target_texture_is_recorded_with_its_usage_and_replayed() {
    // Render green into level 1 (1×1) of a 2×2 two-level texture with
    // render-target usage (SETRENDERTARGET2 of its attached surface), then
    // show it over the 2×2 target with MAXMIPLEVEL 1 and POINT mip
    // filtering (sampling may use level 1 and below only): every pixel
    // green. The capture declares the texture with both uses (kind
    // texture | 0x100, `usage=render_target`) and records the attached
    // surface, so the replay draws the same frame and gives the same
    // answers.
    let mut r = Recorder::new(Driver::new(1).unwrap(), Vec::new());
    let rt = r.create_render_target(Format::X8R8G8B8, 2, 2).unwrap();
    let tex = r
        .create_surface(SurfaceDesc::texture(Format::A8R8G8B8, 2, 2, 2).with_render_target())
        .unwrap();
    let level1 = r.attached_surface(tex, 0, 1).unwrap();
    assert!(
        r.attached_surface(tex, 0, 2).is_err(),
        "answered and recorded"
    );
    let ctx = r.context_create(rt, None).unwrap();
    let v: Vec<u8> = [(-0.5f32, -0.5f32), (1.5, -0.5), (-0.5, 1.5), (1.5, 1.5)]
        .iter()
        .flat_map(|&(x, y)| vertex(x, y, 0.5, 0xff00_ff00))
        .collect();
    let src = format!(
        "RENDERSTATE {{ RenderState=D3DRS_CULLMODE dwState=D3DCULL_NONE }}\n\
         SETRENDERTARGET2 {{ RTIndex=0 hRenderTarget={level1} }}\nTRIANGLESTRIP count=2 wVStart=0\n\
         SETRENDERTARGET2 {{ RTIndex=0 hRenderTarget={rt} }}\n\
         TEXTURESTAGESTATE {{ wStage=0 TSState=D3DTSS_TEXTUREMAP dwValue={tex} }} \
         {{ wStage=0 TSState=D3DTSS_COLOROP dwValue=D3DTOP_SELECTARG1 }} \
         {{ wStage=0 TSState=D3DTSS_MAXMIPLEVEL dwValue=1 }} {{ wStage=0 TSState=D3DTSS_MIPFILTER dwValue=D3DTEXF_POINT }}\n\
         CLEAR {{ dwFlags=D3DCLEAR_TARGET dwFillColor=0xff000080 }}\nTRIANGLESTRIP count=2 wVStart=0\n"
    );
    let cmds = asm(&src);
    let cb = command_buffer(&mut r, &cmds);
    let mut d =
        DrawPrimitives2Data::new(ctx, cb, cmds.len() as u32).with_user_vertices(0x44, &v, 4);
    r.draw_primitives2(&mut d);
    assert_eq!(d.ddrval, codes::D3D_OK);
    let presented = r.present(rt).unwrap();
    // (No texture coordinates: every pixel samples (0, 0) of level 1.)
    assert_eq!(presented, [0, 0xff, 0, 0xff].repeat(4));
    let (_, bytes) = r.finish().unwrap();
    let cap = binary::decode(&bytes).unwrap();
    let usage = cap
        .records
        .iter()
        .filter_map(|r| match r {
            Record::CreateSurface { spec, .. } => Some(spec.kind),
            _ => None,
        })
        .collect::<Vec<_>>();
    assert!(usage.contains(&(2 | 0x100)), "{usage:?}");
    let attached = cap
        .records
        .iter()
        .filter(|r| matches!(r, Record::AttachedSurface { .. }))
        .count();
    assert_eq!(attached, 2);
    let rep = softhal_capture::replay(&cap, 1, |_, _| {}).unwrap();
    assert!(rep.differences.is_empty(), "{:?}", rep.differences);
    assert_eq!(rep.frames[0].rgba, presented);
    // The text form names the usage and reads back to the same records.
    let t = text::to_text(&cap);
    assert!(t.contains("texture usage=render_target"), "{t}");
    assert!(
        t.contains(&format!(
            "attached {level1:#x} texture={tex:#x} face=0 level=1"
        )),
        "{t}"
    );
    assert_eq!(
        binary::encode(&text::from_text(&t, None).unwrap()),
        binary::encode(&cap)
    );
}

/// A session that draws into two render targets (SETRENDERTARGET2 slot 1,
/// a ps_2_0 writing `oC0` and `oC1`) replays to the same pixels in both
/// targets and the same answers.
#[test]
fn a_recorded_session_with_two_render_targets_replays() {
    let mut r = Recorder::new(Driver::new(1).unwrap(), Vec::new());
    let rt = r.create_render_target(Format::A8R8G8B8, 16, 16).unwrap();
    let rt1 = r.create_render_target(Format::X8R8G8B8, 16, 16).unwrap();
    let ctx = r.context_create(rt, None).unwrap();
    // oC0 red over the whole target, oC1 green: rt1 is (0, 255, 0) in
    // every pixel, rt red.
    let src = format!(
        "SETRENDERTARGET2 {{ RTIndex=1 hRenderTarget={rt1} }}\n\
         VIEWPORTINFO {{ dwX=0 dwY=0 dwWidth=16 dwHeight=16 }}\n\
         RENDERSTATE {{ RenderState=CULLMODE dwState=NONE }}\n\
         CREATEPIXELSHADER {{ dwHandle=0x20 code=asm{{\n\
         ps_2_0\ndef c0, 1, 0, 0, 1\ndef c1, 0, 1, 0, 1\nmov oC0, c0\nmov oC1, c1\n\
         }} }}\nSETPIXELSHADER {{ dwHandle=0x20 }}\nTRIANGLELIST count=2 wVStart=0"
    );
    let cmds = asm(&src);
    let cb = command_buffer(&mut r, &cmds);
    let quad: Vec<u8> = [
        vertex(0.0, 0.0, 0.5, 0),
        vertex(16.0, 0.0, 0.5, 0),
        vertex(0.0, 16.0, 0.5, 0),
        vertex(16.0, 0.0, 0.5, 0),
        vertex(16.0, 16.0, 0.5, 0),
        vertex(0.0, 16.0, 0.5, 0),
    ]
    .concat();
    let mut d =
        DrawPrimitives2Data::new(ctx, cb, cmds.len() as u32).with_user_vertices(0x44, &quad, 6);
    r.draw_primitives2(&mut d);
    assert_eq!(d.ddrval, codes::D3D_OK);
    r.complete_work();
    let shown = [r.present(rt).unwrap(), r.present(rt1).unwrap()];
    // RGBA8: red, and green with X read as 255.
    assert!(shown[0].chunks(4).all(|p| p == [255, 0, 0, 255]));
    assert!(shown[1].chunks(4).all(|p| p == [0, 255, 0, 255]));
    let (_, bytes) = r.finish().unwrap();
    let cap = binary::decode(&bytes).unwrap();
    let rep = softhal_capture::replay(&cap, 2, |_, _| {}).unwrap();
    assert!(rep.differences.is_empty(), "{:?}", rep.differences);
    let frames: Vec<&Vec<u8>> = rep.frames.iter().map(|f| &f.rgba).collect();
    assert_eq!(frames, [&shown[0], &shown[1]]);
}

/// A host writes a render target through a lock at the pitch the driver
/// gives (rows of 32 × 4 = 128 bytes get padding); a capture holds an
/// image in tight rows, so the write is recorded at its tight offset,
/// (32 + 1) × 4 = 132 for pixel (1, 1), and replays onto the same pixel.
#[test]
fn render_target_written_through_a_lock_replays_onto_its_pixels() {
    let mut r = Recorder::new(Driver::new(1).unwrap(), Vec::new());
    let rt = r.create_render_target(Format::A8R8G8B8, 32, 2).unwrap();
    {
        let (bytes, pitch) = r.lock_level(rt, 0, 0).unwrap();
        assert!(pitch >= 128, "pitch {pitch}");
        // Pixel (1, 1) = 0x80402010, little-endian B, G, R, A.
        bytes[pitch + 4..pitch + 8].copy_from_slice(&[0x10, 0x20, 0x40, 0x80]);
    }
    r.unlock(rt).unwrap();
    let presented = r.present(rt).unwrap();
    assert_eq!(presented[132..136], [0x40, 0x20, 0x10, 0x80]);
    let (_, bytes) = r.finish().unwrap();
    let cap = binary::decode(&bytes).unwrap();
    let written: Vec<(u32, Vec<u8>)> = cap
        .records
        .iter()
        .filter_map(|rec| match rec {
            Record::Unlock {
                handle,
                offset,
                bytes,
                ..
            } if *handle == rt => Some((*offset, bytes.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(written, [(132, vec![0x10, 0x20, 0x40, 0x80])]);
    let rep = softhal_capture::replay(&cap, 1, |_, _| {}).unwrap();
    assert!(rep.differences.is_empty(), "{:?}", rep.differences);
    assert_eq!(rep.frames[0].rgba, presented);
}
