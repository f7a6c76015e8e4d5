//! Bounded GPU time (docs/submission.md, "Timeouts and cancellation"): a
//! DP2 call whose work would run for tens of minutes is stopped by the
//! per-submission timeout or by a cancellation from another thread; its
//! context is removed (`D3DDDIERR_DEVICEREMOVED` from every later
//! DrawPrimitives2 and Clear2 on it); the driver keeps working, and a new
//! context on the same render target draws correctly.

mod common;

use common::*;
use softhal_device::*;
use softhal_wire::names::codes;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const RED: u32 = 0xFFFF_0000;
const GREEN: u32 = 0xFF00_FF00;
const BLUE: u32 = 0xFF00_00FF;
/// Render-target edge: 4096² = 16.7 M pixels.
const EDGE: u32 = 4096;
/// Triangles in the long call: 8192 × 16.7 M ≈ 1.4·10¹¹ blended pixels.
/// Finishing within the slack below would take 14 G blended pixels per
/// second — far beyond a CPU rasterizer (the issue measured ≈ 35 min).
const TRIS: usize = 8192;
/// What "stopped within the budget" may add to the budget: the stop lands
/// at a tile boundary (< 1 ms of work here) and the call's own set-up;
/// generous, so a loaded 2-core machine cannot flake.
const SLACK: Duration = Duration::from_secs(10);

/// DP2 commands and vertices of the long call: `TRIS` alpha-blended
/// triangles (0,0)–(2·EDGE,0)–(0,2·EDGE), each covering the whole target.
fn long_call() -> (String, Vec<u8>) {
    let e = 2.0 * EDGE as f32;
    let tri: Vec<u8> = [(0.0, 0.0), (e, 0.0), (0.0, e)]
        .iter()
        .flat_map(|&(x, y)| tl(x, y, 0.5, 0x80FF_FFFF))
        .collect();
    let verts = tri.repeat(TRIS);
    let src = format!(
        "{NOCULL}RENDERSTATE {{ RenderState=D3DRS_ALPHABLENDENABLE dwState=TRUE }} {{ RenderState=D3DRS_SRCBLEND dwState=D3DBLEND_SRCALPHA }} {{ RenderState=D3DRS_DESTBLEND dwState=D3DBLEND_INVSRCALPHA }}\nTRIANGLELIST count={TRIS} wVStart=0"
    );
    (src, verts)
}

fn clear2(drv: &mut Driver, ctx: u32, color: u32) -> u32 {
    let mut d = Clear2Data {
        dwh_context: ctx,
        dw_flags: 1,
        dw_fill_color: color,
        dv_fill_depth: 1.0,
        dw_fill_stencil: 0,
        lp_rects: &[],
        ddrval: 0,
    };
    assert_eq!(drv.clear2(&mut d), codes::DDHAL_DRIVER_HANDLED);
    d.ddrval
}

/// After a hang on `s.ctx`: the context answers DEVICEREMOVED to DP2 and
/// Clear2 and says so; another context of the driver draws unaffected; a
/// new context on the same target (after ContextDestroy) clears and draws
/// correctly.
fn check_removed_then_recover(s: &mut Scene, other: (u32, u32)) {
    let removed = s.run(
        &format!("{NOCULL}TRIANGLELIST count=2 wVStart=0"),
        &quad(0.0, 0.0, 16.0, 16.0, 0.5, RED),
    );
    assert_eq!(
        removed.ddrval,
        codes::D3DDDIERR_DEVICEREMOVED,
        "{removed:?}"
    );
    assert_eq!(
        clear2(&mut s.drv, s.ctx, GREEN),
        codes::D3DDDIERR_DEVICEREMOVED
    );
    assert!(s.drv.context_removed(s.ctx));
    assert!(s.drv.kmd().stats().hangs >= 1);

    // Another context of the same driver was not touched by the hang.
    let (other_rt, other_ctx) = other;
    assert!(!s.drv.context_removed(other_ctx));
    // No limit from here: on a loaded machine the 4096² Clear2 below could
    // itself outlast a 200 ms budget.
    s.drv.set_gpu_timeout(None);
    assert_eq!(clear2(&mut s.drv, other_ctx, BLUE), codes::D3D_OK);
    assert_eq!(
        s.drv.image(other_rt).unwrap().read_argb(5, 5).unwrap(),
        BLUE
    );

    // Recovery: ContextDestroy, ContextCreate on the same target. Expected
    // pixels by hand: Clear2 makes every pixel GREEN; the RED quad covers
    // pixel centres (x + 0.5, y + 0.5) with x, y < 16 (top-left rule), so
    // (3, 3) and (15, 15) are RED, (16, 16) and (4000, 4000) stay GREEN.
    s.drv.context_destroy(s.ctx).unwrap();
    s.ctx = s.drv.context_create(s.rt, None).unwrap();
    assert!(!s.drv.context_removed(s.ctx));
    assert_eq!(clear2(&mut s.drv, s.ctx, GREEN), codes::D3D_OK);
    s.run(
        &format!("{NOCULL}TRIANGLELIST count=2 wVStart=0"),
        &quad(0.0, 0.0, 16.0, 16.0, 0.5, RED),
    )
    .ok();
    assert_eq!(s.px(3, 3), RED);
    assert_eq!(s.px(15, 15), RED);
    assert_eq!(s.px(16, 16), GREEN);
    assert_eq!(s.px(4000, 4000), GREEN);
}

fn scene_with_other_context() -> (Scene, (u32, u32)) {
    let mut s = Scene::new(EDGE, EDGE, false);
    let other_rt = s
        .drv
        .create_render_target(Format::A8R8G8B8, 16, 16)
        .unwrap();
    let other_ctx = s.drv.context_create(other_rt, None).unwrap();
    (s, (other_rt, other_ctx))
}

#[test]
fn a_call_running_past_the_timeout_is_stopped_and_its_context_removed() {
    let (mut s, other) = scene_with_other_context();
    assert_eq!(
        s.drv.gpu_timeout(),
        Some(Duration::from_millis(
            softhal_submit::limits::DEFAULT_GPU_TIMEOUT_MS
        ))
    );
    let budget = Duration::from_millis(200);
    s.drv.set_gpu_timeout(Some(budget));
    let (src, verts) = long_call();
    let t0 = Instant::now();
    // The call returns with its work in flight (D3D_OK: the work has not
    // run yet); the helper's DestroySurface of the command buffer waits
    // for it, and the watchdog stops it.
    s.run(&src, &verts).ok();
    s.drv.wait_for_gpu();
    let waited = t0.elapsed();
    assert!(waited < budget + SLACK, "stopped only after {waited:?}");
    check_removed_then_recover(&mut s, other);
}

#[test]
fn a_cancel_from_another_thread_stops_the_work_and_removes_the_context() {
    let (mut s, other) = scene_with_other_context();
    // No timeout: only the cancellation can stop the call.
    s.drv.set_gpu_timeout(None);
    let cancel = s.drv.cancel_handle();
    let done = Arc::new(AtomicBool::new(false));
    let stop = Arc::clone(&done);
    let t0 = Instant::now();
    // Cancelling is repeated until the main thread is back: a cancel that
    // lands before the work starts is dropped (documented), the next one
    // stops it.
    let host = std::thread::spawn(move || {
        while !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(100));
            cancel.cancel();
        }
    });
    let (src, verts) = long_call();
    s.run(&src, &verts).ok();
    s.drv.wait_for_gpu();
    let waited = t0.elapsed();
    done.store(true, Ordering::SeqCst);
    host.join().unwrap();
    assert!(waited < SLACK, "stopped only after {waited:?}");
    check_removed_then_recover(&mut s, other);
}

#[test]
fn work_within_the_timeout_is_not_stopped() {
    // A few triangles: microseconds of work, far below a budget generous
    // enough that a descheduled worker on a loaded machine cannot reach it.
    let mut s = Scene::new(64, 64, false);
    s.drv.set_gpu_timeout(Some(Duration::from_secs(10)));
    s.run(
        &format!("{NOCULL}TRIANGLELIST count=2 wVStart=0"),
        &quad(0.0, 0.0, 64.0, 64.0, 0.5, RED),
    )
    .ok();
    assert_eq!(s.px(63, 63), RED);
    assert!(!s.drv.context_removed(s.ctx));
    assert_eq!(s.drv.kmd().stats().hangs, 0);
}

/// A copy on the copy engine (BUFFERBLT) stopped by the watchdog removes
/// the context that issued it; the driver replaces its own copy context,
/// so a new context's BUFFERBLT runs. With a zero timeout the deadline has
/// passed at the first work packet (the BUFFER_COPY): deterministic.
#[test]
fn a_stopped_copy_removes_the_issuing_context_and_the_copy_engine_recovers() {
    let mut s = Scene::new(16, 16, false);
    let vb = |s: &mut Scene, bytes: &[u8]| {
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
    };
    let dst = vb(&mut s, &quad(0.0, 0.0, 16.0, 16.0, 0.5, RED));
    let src = vb(&mut s, &quad(0.0, 0.0, 16.0, 16.0, 0.5, GREEN));
    let copy_then_draw = format!(
        "{NOCULL}BUFFERBLT {{ dwDDDestSurface={dst} dwDDSrcSurface={src} dwOffset=0 rSrc.Offset=0 rSrc.Size=120 }}\n\
         SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCE {{ dwStream=0 dwVBHandle={dst} dwStride=20 }}\n\
         DRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }}"
    );
    s.drv.set_gpu_timeout(Some(Duration::ZERO));
    let out = s.run(&copy_then_draw, &[]);
    assert_eq!(out.ddrval, codes::D3DDDIERR_DEVICEREMOVED, "{out:?}");
    assert!(s.drv.context_removed(s.ctx));
    s.drv.set_gpu_timeout(None);
    assert_eq!(
        s.run(&copy_then_draw, &[]).ddrval,
        codes::D3DDDIERR_DEVICEREMOVED
    );
    // Recovery. By hand: the copy puts the GREEN quad into `dst`, and its
    // two triangles cover the 16×16 target, so every pixel is GREEN.
    s.drv.context_destroy(s.ctx).unwrap();
    s.ctx = s.drv.context_create(s.rt, None).unwrap();
    s.run(&copy_then_draw, &[]).ok();
    assert_eq!(s.px(3, 3), GREEN);
    assert_eq!(s.px(13, 13), GREEN);
}
