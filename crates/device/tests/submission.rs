//! The device's DP2 work goes through the render callback: the queue, the
//! copy engine, fences behind WASSTILLDRAWING and busy buffers, and the
//! register file carrying the device's state.

mod common;

use common::*;
use softhal_device::*;

const RED: u32 = 0xFFFF_0000;
const GREEN: u32 = 0xFF00_FF00;

fn vb(s: &mut Scene, bytes: &[u8]) -> u32 {
    let h = s
        .drv
        .create_vertex_buffer(bytes.len() as u32, false)
        .unwrap();
    s.drv
        .lock(h, LockFlags::default())
        .unwrap()
        .copy_from_slice(bytes);
    s.drv.unlock(h).unwrap();
    h
}

#[test]
fn draws_reach_the_pipeline_through_the_queue() {
    let mut s = Scene::new(16, 16, true);
    let before = s.drv.kmd().stats();
    s.run(
        &format!("{NOCULL}RENDERSTATE {{ RenderState=D3DRS_ZFUNC dwState=D3DCMP_ALWAYS }}\nTRIANGLELIST count=2 wVStart=0"),
        &quad(0.0, 0.0, 16.0, 16.0, 0.5, RED),
    )
    .ok();
    let after = s.drv.kmd().stats();
    assert_eq!(after.submissions, before.submissions + 1);
    assert_eq!(after.executed, before.executed + 1);
    assert_eq!(after.faults, 0);
    assert_eq!(s.px(3, 3), RED);
    // The GPU context's registers equal those the UMD makes of the
    // context's state (a depth buffer is bound), and hold the DP2 values:
    // D3DRS_ZFUNC (23) = D3DCMP_ALWAYS (8).
    let g = s.drv.gpu_context_of(s.ctx).unwrap();
    let want = registers_of(&s.drv.context(s.ctx).unwrap().state, true);
    let got = s.drv.kmd().registers(g).unwrap();
    assert_eq!(got, &want);
    assert_eq!(got.get(softhal_submit::regs::id::rs(23)), Some(8));
    let k = s.drv.kmd().counters(g).unwrap();
    assert_eq!(k.draws, 1);
    assert_eq!(k.samples_passed, 256);
    assert_eq!(s.drv.context(s.ctx).unwrap().stats.samples_passed, 256);
}

#[test]
fn vertex_buffers_are_referenced_and_user_memory_is_copied() {
    let mut s = Scene::new(16, 16, false);
    let verts: Vec<u8> = (0..200)
        .flat_map(|_| quad(0.0, 0.0, 16.0, 16.0, 0.5, RED))
        .collect();
    let h = vb(&mut s, &verts);
    let draw = format!("{NOCULL}SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCE {{ dwStream=0 dwVBHandle={h} dwStride=20 }}\nDRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=400 }}");
    let b0 = s.drv.kmd().stats().bytes;
    s.run(&draw, &[]).ok();
    let by_reference = s.drv.kmd().stats().bytes - b0;
    let b1 = s.drv.kmd().stats().bytes;
    s.run(&format!("{NOCULL}TRIANGLELIST count=400 wVStart=0"), &verts)
        .ok();
    let by_copy = s.drv.kmd().stats().bytes - b1;
    assert!(by_reference < 2048, "{by_reference}");
    assert!(by_copy > verts.len() as u64, "{by_copy}");
    assert_eq!(s.px(8, 8), RED);
}

#[test]
fn bufferblt_runs_on_the_copy_engine_before_the_draw_that_reads_it() {
    let mut s = Scene::new(16, 16, false);
    let dst = vb(&mut s, &quad(0.0, 0.0, 16.0, 16.0, 0.5, RED));
    let src = vb(&mut s, &quad(0.0, 0.0, 16.0, 16.0, 0.5, GREEN));
    let copies = |s: &Scene| {
        (1..=8u32)
            .filter_map(|c| s.drv.kmd().counters(c))
            .map(|k| k.copies)
            .sum::<u64>()
    };
    let n = copies(&s);
    s.run(
        &format!(
            "{NOCULL}SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCE {{ dwStream=0 dwVBHandle={dst} dwStride=20 }}\n\
             DRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }}\n\
             BUFFERBLT {{ dwDDDestSurface={dst} dwDDSrcSurface={src} dwOffset=0 rSrc.Offset=0 rSrc.Size=120 }}\n\
             DRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=1 }}"
        ),
        &[],
    )
    .ok();
    assert_eq!(copies(&s), n + 1);
    // The first draw saw the old (red) quad, the second the copied green
    // triangle (0,0)-(16,0)-(0,16), the upper-left half: the copy waited for the first draw and the second draw
    // waited for the copy.
    assert_eq!(s.px(3, 3), GREEN);
    assert_eq!(s.px(13, 13), RED);
    assert_eq!(s.drv.kmd().stats().faults, 0);
}

#[test]
fn wasstilldrawing_comes_from_a_pending_present_fence() {
    let mut s = Scene::new(16, 16, false);
    let draw = format!("{NOCULL}TRIANGLELIST count=2 wVStart=0");
    let verts = quad(0.0, 0.0, 16.0, 16.0, 0.5, RED);
    s.run(&draw, &verts).ok();
    s.drv.flip(s.rt).unwrap();
    let out = s.run(&draw, &verts);
    assert_eq!(
        out.ddrval,
        softhal_wire::names::codes::DDERR_WASSTILLDRAWING
    );
    // The PRESENT was queued and executed, but its fence has not retired.
    let k = s.drv.kmd();
    let presents: u64 = (1..=4u32)
        .filter_map(|c| k.counters(c))
        .map(|c| c.presents)
        .sum();
    assert_eq!(presents, 1);
    s.drv.complete_flips();
    s.run(&draw, &verts).ok();
    // present() waits for its own fence.
    assert_eq!(&s.drv.present(s.rt).unwrap()[..4], &[255, 0, 0, 255]);
}

#[test]
fn busy_buffers_follow_fences() {
    let mut s = Scene::new(16, 16, false);
    let h = vb(&mut s, &quad(0.0, 0.0, 16.0, 16.0, 0.5, RED));
    let a = s.drv.allocation_of(h).unwrap();
    let draw = format!("{NOCULL}SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCE {{ dwStream=0 dwVBHandle={h} dwStride=20 }}\nDRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }}");
    s.run(&draw, &[]).ok();
    assert!(s.drv.kmd().allocation_busy(a));
    s.drv.lock(h, LockFlags::default()).unwrap();
    s.drv.unlock(h).unwrap();
    assert_eq!(s.drv.swap_stats().stalls, 1);
    assert!(!s.drv.kmd().allocation_busy(a));
    s.run(&draw, &[]).ok();
    s.drv.complete_work();
    assert!(!s.drv.kmd().allocation_busy(a));
    s.drv.lock(h, LockFlags::default()).unwrap();
    assert_eq!(s.drv.swap_stats().stalls, 1);
}

#[test]
fn a_failing_command_keeps_the_prefix_it_submitted() {
    let mut s = Scene::new(16, 16, false);
    let out = s.run(
        &format!("{NOCULL}TRIANGLELIST count=2 wVStart=0\nTRIANGLELIST count=2 wVStart=5"),
        &quad(0.0, 0.0, 16.0, 16.0, 0.5, RED),
    );
    assert_eq!(
        out.ddrval,
        softhal_wire::names::codes::D3DERR_COMMAND_UNPARSED
    );
    assert_eq!(s.px(5, 5), RED);
    assert_eq!(s.drv.kmd().rejected(), 0);
}

#[test]
fn a_dp2_call_returns_with_its_work_in_flight_and_readers_see_the_finished_frame() {
    for reader in 0..3 {
        let mut s = Scene::new(16, 16, true);
        let g = s.drv.gpu_context_of(s.ctx).unwrap();
        let cmds = asm(&format!(
            "{NOCULL}RENDERSTATE {{ RenderState=D3DRS_ZFUNC dwState=D3DCMP_ALWAYS }}\nTRIANGLELIST count=2 wVStart=0"
        ));
        let verts = quad(0.0, 0.0, 16.0, 16.0, 0.5, RED);
        let cb = s.drv.create_command_buffer_with(&cmds).unwrap();
        let mut d = DrawPrimitives2Data::new(s.ctx, cb, cmds.len() as u32)
            .with_user_vertices(FVF_TL, &verts, 6);
        d.ddrval = 20;
        s.drv.draw_primitives2(&mut d);
        assert_eq!(d.ddrval, 0);
        // Returned with the work on the GPU worker: submitted, not
        // executed (published only when the device collects the job).
        assert_eq!(s.drv.kmd().in_flight(), 1);
        assert_eq!(s.drv.kmd().fences(g), Some((1, 0, 0)));
        match reader {
            // `&self` readers wait for the image and see the frame.
            0 => {
                assert_eq!(s.px(3, 3), RED);
                assert_eq!(s.drv.read_rgba8(s.rt).unwrap()[..4], [0xFF, 0, 0, 0xFF]);
            }
            // A lock waits for the job (its fence executes).
            1 => {
                let px = s.drv.lock(s.rt, LockFlags::default()).unwrap()[..4].to_vec();
                assert_eq!(px, RED.to_le_bytes());
                s.drv.unlock(s.rt).unwrap();
                assert_eq!(s.drv.kmd().fences(g).unwrap().1, 1);
            }
            // An explicit wait: executed, not retired; counters published.
            _ => {
                s.drv.wait_for_gpu();
                assert_eq!(s.drv.kmd().in_flight(), 0);
                assert_eq!(s.drv.kmd().fences(g), Some((1, 1, 0)));
                assert_eq!(s.drv.context(s.ctx).unwrap().stats.samples_passed, 256);
                assert_eq!(s.px(3, 3), RED);
            }
        }
        s.drv.complete_work();
        assert_eq!(s.drv.kmd().fences(g), Some((1, 1, 1)));
        assert_eq!(s.drv.kmd().stats().faults, 0);
        assert_eq!(s.count(RED), 256);
    }
}

#[test]
fn back_to_back_dp2_calls_overlap_the_gpu_and_give_the_same_frame_as_waiting() {
    let calls = |rt2: u32, z: u32| {
        [
            format!("{NOCULL}RENDERSTATE {{ RenderState=D3DRS_ZFUNC dwState=D3DCMP_ALWAYS }}\nCLEAR {{ dwFlags=D3DCLEAR_TARGET|D3DCLEAR_ZBUFFER dwFillColor=0xff0000ff dvFillDepth=1.0 }}\nTRIANGLELIST count=2 wVStart=0"),
            // Validated while the first call's job may still be running:
            // SETRENDERTARGET checks the targets' sizes.
            format!("SETRENDERTARGET {{ hRenderTarget={rt2} hZBuffer={z} }}\nCLEAR {{ dwFlags=D3DCLEAR_TARGET dwFillColor=0xff00ff00 }}\nTRIANGLELIST count=1 wVStart=0"),
            format!("SETRENDERTARGET {{ hRenderTarget=RT hZBuffer={z} }}\nTRIANGLELIST count=1 wVStart=0"),
        ]
    };
    let mut frames = Vec::new();
    for wait in [false, true] {
        let mut s = Scene::new(16, 16, true);
        let z = s.depth.unwrap();
        let rt2 = s
            .drv
            .create_render_target(Format::A8R8G8B8, 16, 16)
            .unwrap();
        let red = quad(0.0, 0.0, 16.0, 16.0, 0.5, RED);
        let green = quad(0.0, 0.0, 8.0, 16.0, 0.25, GREEN);
        let verts = [&red, &red, &green];
        let cbs: Vec<(u32, u32)> = calls(rt2, z)
            .iter()
            .map(|src| {
                let b = asm(&src.replace("=RT ", &format!("={} ", s.rt)));
                (
                    s.drv.create_command_buffer_with(&b).unwrap(),
                    b.len() as u32,
                )
            })
            .collect();
        let g = s.drv.gpu_context_of(s.ctx).unwrap();
        for (i, (cb, len)) in cbs.iter().enumerate() {
            let part = verts[i].as_slice();
            let mut d = DrawPrimitives2Data::new(s.ctx, *cb, *len).with_user_vertices(
                FVF_TL,
                part,
                (part.len() / 20) as u32,
            );
            d.ddrval = 20;
            s.drv.draw_primitives2(&mut d);
            assert_eq!(d.ddrval, 0, "call {i}");
            assert_eq!(s.drv.kmd().in_flight(), 1);
            if wait {
                s.drv.wait_for_gpu();
                assert_eq!(s.drv.kmd().in_flight(), 0);
            }
        }
        assert_eq!(s.drv.kmd().fences(g).unwrap().0, 3);
        s.drv.complete_work();
        assert_eq!(s.drv.kmd().stats().faults, 0);
        frames.push((
            s.rt_bytes(),
            s.drv.read_rgba8(rt2).unwrap(),
            s.px(3, 3),
            s.px(12, 3),
        ));
    }
    assert_eq!(frames[0], frames[1]);
    // Call 3's green triangle covers (3, 3) over call 1's red quad.
    assert_eq!(frames[0].2, GREEN);
    assert_eq!(frames[0].3, RED);
}
