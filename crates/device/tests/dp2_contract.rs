//! The D3dDrawPrimitives2 contract: call-level errors, error offsets, the
//! unknown-command hook, lpdwRStates, prefix semantics.

mod common;

use common::*;
use softhal_device::*;
use softhal_wire::names::codes;

const RED: u32 = 0xFFFF_0000;

#[test]
fn bad_and_destroyed_context_is_context_bad() {
    let mut s = Scene::new(8, 8, false);
    let cb = s.drv.create_command_buffer_with(&asm(NOCULL)).unwrap();
    let mut d = DrawPrimitives2Data::new(0x1234, cb, 8);
    assert_eq!(s.drv.draw_primitives2(&mut d), codes::DDHAL_DRIVER_HANDLED);
    assert_eq!(d.ddrval, codes::D3DHAL_CONTEXT_BAD);
    let ctx = s.ctx;
    s.drv.context_destroy(ctx).unwrap();
    let mut d = DrawPrimitives2Data::new(ctx, cb, 8);
    s.drv.draw_primitives2(&mut d);
    assert_eq!(d.ddrval, codes::D3DHAL_CONTEXT_BAD);
    // A surface handle is not a context handle.
    let mut d = DrawPrimitives2Data::new(s.rt, cb, 8);
    s.drv.draw_primitives2(&mut d);
    assert_eq!(d.ddrval, codes::D3DHAL_CONTEXT_BAD);
}

#[test]
fn pending_flip_returns_wasstilldrawing_and_executes_nothing() {
    let mut s = Scene::new(8, 8, false);
    let before = s.snapshot();
    s.drv.flip(s.rt).unwrap();
    let o = s.run(NOCULL, &[]);
    assert_eq!(
        (o.ret, o.ddrval),
        (codes::DDHAL_DRIVER_HANDLED, codes::DDERR_WASSTILLDRAWING)
    );
    assert_eq!(s.snapshot(), before);
    s.drv.complete_flips();
    s.run(NOCULL, &[]).ok();
    assert_ne!(s.snapshot(), before);
}

#[test]
fn command_range_is_checked_against_the_surface() {
    let mut s = Scene::new(8, 8, false);
    let cb = s.drv.create_command_buffer_with(&asm(NOCULL)).unwrap();
    let mut d = DrawPrimitives2Data::new(s.ctx, cb, 13);
    s.drv.draw_primitives2(&mut d);
    assert_eq!(d.ddrval, codes::DDERR_INVALIDPARAMS);
    let mut d = DrawPrimitives2Data::new(s.ctx, cb, 4);
    d.dw_command_offset = u32::MAX;
    s.drv.draw_primitives2(&mut d);
    assert_eq!(
        (d.ddrval, d.dw_error_offset),
        (codes::DDERR_INVALIDPARAMS, u32::MAX)
    );
    // A vertex buffer is not a command buffer.
    let vb = s.drv.create_vertex_buffer(64, false).unwrap();
    let mut d = DrawPrimitives2Data::new(s.ctx, vb, 4);
    s.drv.draw_primitives2(&mut d);
    assert_eq!(d.ddrval, codes::DDERR_INVALIDOBJECT);
    // An empty buffer is fine (the RESPONSECONTINUE protocol needs it).
    let mut d = DrawPrimitives2Data::new(s.ctx, cb, 0);
    s.drv.draw_primitives2(&mut d);
    assert_eq!((d.ddrval, d.dw_error_offset), (codes::D3D_OK, 0));
}

#[test]
fn error_offsets_include_the_command_offset() {
    let mut s = Scene::new(8, 8, false);
    let mut cmds = asm(NOCULL);
    let bad_at = cmds.len() as u32;
    cmds.extend_from_slice(&asm("TRIANGLELIST count=1 wVStart=0")); // no vertices exist
    for off in [0u32, 2, 12, 100] {
        let o = s.run_full(&cmds, off, &[], 0, None);
        o.unparsed_at(off + bad_at);
        assert!(matches!(
            s.drv.last_error().unwrap().error,
            DeviceError::OutOfRange { .. }
        ));
    }
    // A truncated command: the decoder's offset, plus the command offset.
    let mut t = asm(NOCULL);
    t.extend_from_slice(&[8, 0, 1, 0, 7, 0]);
    s.run_full(&t, 6, &[], 0, None).unparsed_at(6 + 12);
}

#[test]
fn unknown_opcode_goes_to_the_hook() {
    let mut s = Scene::new(8, 8, false);
    let mut cmds = asm(NOCULL);
    let unknown_at = cmds.len() as u32;
    cmds.extend_from_slice(&[200, 0, 0, 0, 0xAA, 0xBB, 0xCC, 0xDD]); // opcode 200 + 4 payload bytes
    cmds.extend_from_slice(&asm(
        "RENDERSTATE { RenderState=D3DRS_ZFUNC dwState=D3DCMP_ALWAYS }",
    ));
    // No hook: stop at the unknown command.
    s.run_bytes(&cmds, &[]).unparsed_at(unknown_at);
    assert_eq!(s.drv.context(s.ctx).unwrap().state.render_states[23], 4);
    // A hook that knows opcode 200 is 8 bytes long.
    s.drv.set_parse_unknown_command(Some(Box::new(|b: &[u8]| {
        if b.first() == Some(&200) {
            Ok(8)
        } else {
            Err(())
        }
    })));
    s.run_bytes(&cmds, &[]).ok();
    assert_eq!(s.drv.context(s.ctx).unwrap().state.render_states[23], 8);
    // A failing hook.
    s.drv
        .set_parse_unknown_command(Some(Box::new(|_: &[u8]| Err(()))));
    s.run_bytes(&cmds, &[]).unparsed_at(unknown_at);
    // A hook returning an offset past the end, or 0.
    s.drv
        .set_parse_unknown_command(Some(Box::new(|_: &[u8]| Ok(1000))));
    s.run_bytes(&cmds, &[]).unparsed_at(unknown_at);
    s.drv
        .set_parse_unknown_command(Some(Box::new(|_: &[u8]| Ok(0))));
    s.run_bytes(&cmds, &[]).unparsed_at(unknown_at);
    // The hook sees the unknown command's bytes.
    s.drv.set_parse_unknown_command(Some(Box::new(|b: &[u8]| {
        if b.get(4) == Some(&0xAA) {
            Ok(8)
        } else {
            Err(())
        }
    })));
    s.run_full(&cmds, 3, &[], 0, None).ok();
}

#[test]
fn lpdwrstates_mirrors_states_only_with_executebuffer() {
    let mut s = Scene::new(8, 8, false);
    let src = "RENDERSTATE { RenderState=D3DRS_ZFUNC dwState=D3DCMP_GREATER } { RenderState=D3DRS_FILLMODE dwState=9 } \
               { RenderState=D3DRS_MULTISAMPLEANTIALIAS dwState=TRUE } { RenderState=D3DRS_ALPHABLENDENABLE dwState=5 } { RenderState=63 dwState=77 }";
    let cmds = asm(src);
    let mut arr = [0xDEAD_BEEFu32; 256];
    s.run_full(&cmds, 0, &[], 0, Some(&mut arr)).ok();
    assert!(
        arr.iter().all(|&v| v == 0xDEAD_BEEF),
        "untouched without EXECUTEBUFFER"
    );
    s.run_full(&cmds, 0, &[], D3DHALDP2_EXECUTEBUFFER, Some(&mut arr))
        .ok();
    assert_eq!(arr[23], 5);
    assert_eq!(arr[8], 3, "FILLMODE 9 is undefined: replaced by SOLID");
    assert_eq!(
        arr[161], 0,
        "multisampling is not implemented: reported FALSE"
    );
    assert_eq!(arr[27], 5, "BOOL: non-zero is TRUE, kept as given");
    assert_eq!(arr[63], 77, "unassigned state stored as is");
    assert_eq!(
        arr[22], 0xDEAD_BEEF,
        "states not in the stream are untouched"
    );
    let st = &s.drv.context(s.ctx).unwrap().state;
    assert_eq!(st.render_states[8], 3);
    // A state number >= 256 fails the command; nothing of it is applied.
    let bad = asm(
        "RENDERSTATE { RenderState=D3DRS_ZFUNC dwState=D3DCMP_LESS } { RenderState=256 dwState=1 }",
    );
    let mut arr2 = [0u32; 256];
    s.run_full(&bad, 0, &[], D3DHALDP2_EXECUTEBUFFER, Some(&mut arr2))
        .unparsed_at(0);
    assert_eq!(arr2[23], 0);
    assert_eq!(s.drv.context(s.ctx).unwrap().state.render_states[23], 5);
}

#[test]
fn vertex_size_is_read_before_ddrval_is_written() {
    // dwVertexType 0 (no FVF): the _IMM stride comes from dwVertexSize.
    let mut s = Scene::new(16, 16, false);
    let mut b = asm(NOCULL);
    b.extend_from_slice(&[23, 0, 1, 0, 0, 0, 0, 0]); // TRIANGLEFAN_IMM N=1, edge flags, aligned at 12+8=20
    for v in [
        tl(0.0, 0.0, 0.5, RED),
        tl(16.0, 0.0, 0.5, RED),
        tl(0.0, 16.0, 0.5, RED),
    ] {
        b.extend_from_slice(&v);
    }
    let cb = s.drv.create_command_buffer_with(&b).unwrap();
    let mut d = DrawPrimitives2Data::new(s.ctx, cb, b.len() as u32);
    d.ddrval = 20;
    s.drv.draw_primitives2(&mut d);
    // The stream decodes with the 20-byte stride (so dwVertexSize was read
    // before ddrval was written), but drawing needs an FVF with a position:
    // the failure is the draw's, at the IMM command, not a decode error.
    assert_eq!(
        (d.ddrval, d.dw_error_offset),
        (codes::D3DERR_COMMAND_UNPARSED, 12)
    );
    assert_eq!(s.drv.last_error().unwrap().error, DeviceError::NoPosition);
    // With dwVertexSize 0 the IMM command cannot even be decoded.
    let mut d = DrawPrimitives2Data::new(s.ctx, cb, b.len() as u32);
    s.drv.draw_primitives2(&mut d);
    assert!(matches!(
        s.drv.last_error().unwrap().error,
        DeviceError::Decode(_)
    ));
    // With the FVF the triangle is drawn.
    let mut d = DrawPrimitives2Data::new(s.ctx, cb, b.len() as u32);
    d.dw_vertex_type = FVF_TL;
    s.drv.draw_primitives2(&mut d);
    assert_eq!(d.ddrval, codes::D3D_OK);
    assert_eq!(s.px(2, 2), RED);
}

/// A library of valid commands for the prefix property (vertices: 12 TL).
fn valid_commands(s: &Scene) -> Vec<String> {
    let rt = s.rt;
    vec![
        NOCULL.trim().to_string(),
        "RENDERSTATE { RenderState=D3DRS_ALPHABLENDENABLE dwState=TRUE } { RenderState=D3DRS_SRCBLEND dwState=D3DBLEND_SRCALPHA } { RenderState=D3DRS_DESTBLEND dwState=D3DBLEND_INVSRCALPHA }".into(),
        "TRIANGLELIST count=2 wVStart=0".into(),
        "TRIANGLEFAN count=1 wVStart=6".into(),
        "INDEXEDTRIANGLELIST2 wVStart=3 { wV1=0 wV2=1 wV3=2 }".into(),
        "VIEWPORTINFO { dwX=0 dwY=0 dwWidth=16 dwHeight=16 }".into(),
        "SETTRANSFORM { xfrmType=D3DTS_VIEW _11=2.0 _22=1.0 _33=1.0 _44=1.0 }".into(),
        "TEXTURESTAGESTATE { wStage=1 TSState=D3DTSS_COLOROP dwValue=D3DTOP_DISABLE }".into(),
        format!("CLEAR {{ dwFlags=D3DCLEAR_TARGET dwFillColor=0xff102030 }} {{ left=0 top=0 right=8 bottom=8 }}"),
        format!("COLORFILL {{ dwSurface={rt} rRect.left=8 rRect.top=8 rRect.right=16 rRect.bottom=16 Color=0xff00ff00 }}"),
        "CREATELIGHT { dwIndex=3 }".into(),
        "POINTS { wCount=4 wVStart=2 }".into(),
        "LINESTRIP count=3 wVStart=0".into(),
        "STATESET { dwOperation=D3DHAL_STATESETCREATE dwParam=7 sbType=D3DSBT_PIXELSTATE }".into(),
    ]
}

/// Commands that fail validation (each alone, after any valid prefix).
fn failing_commands(s: &Scene) -> Vec<String> {
    vec![
        "TRIANGLELIST count=5 wVStart=0".into(),
        "INDEXEDTRIANGLELIST2 wVStart=3 { wV1=0 wV2=1 wV3=2 } { wV1=0 wV2=1 wV3=200 }".into(),
        "RENDERSTATE { RenderState=D3DRS_ZFUNC dwState=1 } { RenderState=999 dwState=1 }".into(),
        "TEXTURESTAGESTATE { wStage=0 TSState=D3DTSS_COLOROP dwValue=1 } { wStage=16 TSState=D3DTSS_COLOROP dwValue=1 }".into(),
        "SETLIGHT { dwIndex=40 dwDataType=D3DHAL_SETLIGHT_ENABLE }".into(),
        "SETTRANSFORM { xfrmType=D3DTS_VIEW _11=3.0 } { xfrmType=7 _11=1.0 }".into(),
        format!("COLORFILL {{ dwSurface={} rRect.right=4 rRect.bottom=4 Color=0 }} {{ dwSurface=12345 rRect.right=4 rRect.bottom=4 Color=0 }}", s.rt),
        format!("COLORFILL {{ dwSurface={} rRect.right=400 rRect.bottom=4 Color=0 }}", s.rt),
        "DRAWPRIMITIVE { primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=1 }".into(),
        "STATESET { dwOperation=D3DHAL_STATESETEXECUTE dwParam=99 }".into(),
        "ISSUEQUERY { dwQueryID=5 dwFlags=D3DISSUE_END }".into(),
        "CLEAR { dwFlags=D3DCLEAR_ZBUFFER dvFillDepth=1.0 } { left=0 top=0 right=8 bottom=8 }".into(),
        "POINTS { wCount=1 wVStart=0 } { wCount=4 wVStart=11 }".into(),
        "RESERVED0 count=0".into(),
    ]
}

#[test]
fn prefix_property_failing_buffer_equals_valid_prefix() {
    let verts: Vec<u8> = (0..12)
        .flat_map(|i| {
            tl(
                (i % 4) as f32 * 5.0,
                (i / 4) as f32 * 6.0,
                0.5,
                0x80FF_0000 | (i as u32 * 0x1111),
            )
        })
        .collect();
    let probe = Scene::new(16, 16, false);
    let valid = valid_commands(&probe);
    let failing = failing_commands(&probe);
    let mut rng = 0x1234_5678_u64;
    let mut next = |n: usize| {
        rng = rng
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((rng >> 33) as usize) % n
    };
    for round in 0..60 {
        let len = next(6);
        let prefix: Vec<&String> = (0..len).map(|_| &valid[next(valid.len())]).collect();
        let bad = &failing[round % failing.len()];
        let tail = &valid[next(valid.len())];
        let prefix_src: String = prefix.iter().map(|l| format!("{l}\n")).collect();
        let full_src = format!("{prefix_src}{bad}\n{tail}\n");

        let mut a = Scene::new(16, 16, false);
        let mut b = Scene::new(16, 16, false);
        // Same handles in both scenes (fresh drivers create identical ones
        // except for the per-driver salt): rewrite the prefix for each.
        let fix = |src: &str, from: &Scene, to: &Scene| {
            src.replace(&from.rt.to_string(), &to.rt.to_string())
        };
        let full_a = fix(&full_src, &probe, &a);
        let pre_b = fix(&prefix_src, &probe, &b);
        let bad_offset = asm(&fix(&prefix_src, &probe, &a)).len() as u32;
        let o = a.run(&full_a, &verts);
        o.unparsed_at(bad_offset);
        b.run(&pre_b, &verts).ok();
        let norm = |s: &Scene| {
            s.snapshot()
                .replace(&format!("{:#x}", s.rt), "RT")
                .replace(&s.rt.to_string(), "RT")
        };
        assert_eq!(norm(&a), norm(&b), "round {round}: {full_src}");
        assert_eq!(a.rt_bytes(), b.rt_bytes(), "round {round}: {full_src}");
    }
}

/// Found by fuzzing (`dp2_execute`, prefix oracle): a STATESET command with
/// two records — BEGIN, then a CREATE that fails — failed at its offset but
/// left the context recording the block the first record began, although
/// a failing command must have no effect.
#[test]
fn regression_a_failing_multi_record_stateset_applies_none_of_its_records() {
    let mut d = softhal_device::Driver::new(common::test_threads()).unwrap();
    let rt = d
        .create_render_target(softhal_device::Format::X8R8G8B8, 8, 8)
        .unwrap();
    let ctx = d.context_create(rt, None).unwrap();
    let cmds = common::asm(
        "STATESET { dwOperation=D3DHAL_STATESETBEGIN dwParam=0 sbType=0 } \
         { dwOperation=D3DHAL_STATESETCREATE dwParam=0x3D000000 sbType=0x80 }",
    );
    let cb = d.create_command_buffer_with(&cmds).unwrap();
    let before = d.snapshot(ctx).unwrap();
    let mut call = softhal_device::DrawPrimitives2Data::new(ctx, cb, cmds.len() as u32);
    d.draw_primitives2(&mut call);
    assert_eq!(
        call.ddrval,
        softhal_wire::names::codes::D3DERR_COMMAND_UNPARSED
    );
    assert_eq!(call.dw_error_offset, 0);
    assert_eq!(
        d.snapshot(ctx).unwrap(),
        before,
        "no record of the failing command may take effect"
    );
    // And the context is not recording: a lone END fails.
    let end = common::asm("STATESET { dwOperation=D3DHAL_STATESETEND dwParam=0 sbType=0 }");
    let cb2 = d.create_command_buffer_with(&end).unwrap();
    let mut call = softhal_device::DrawPrimitives2Data::new(ctx, cb2, end.len() as u32);
    d.draw_primitives2(&mut call);
    assert_eq!(
        call.ddrval,
        softhal_wire::names::codes::D3DERR_COMMAND_UNPARSED
    );
}
