//! The render callback for hosts acting as the user-mode driver
//! (`Driver::render`): host packets reach the driver's surfaces through
//! the kernel's validation, in order with the DP2 path, only on the host's
//! own GPU contexts; rejections change nothing and still return the sizes.

mod common;

use common::*;
use softhal_device::*;
use softhal_pipeline::{PositionKind, VertexLayout};
use softhal_submit::packet::{op, Writer};
use softhal_submit::regs::id;
use softhal_submit::{limits, AllocationListEntry, Engine, RenderData, SubmitError};
use softhal_wire::names::codes;

const RED: u32 = 0xFFFF_0000;
const GREEN: u32 = 0xFF00_FF00;
const BLUE: u32 = 0xFF00_00FF;

/// A host-built submission: packets, the allocation list they reference,
/// patch locations from the writer's references.
struct Sub {
    w: Writer,
    list: Vec<AllocationListEntry>,
}

impl Sub {
    fn new() -> Self {
        Sub {
            w: Writer::new(),
            list: Vec::new(),
        }
    }
    fn idx(&mut self, h: u32, write: bool) -> u32 {
        self.list.push(AllocationListEntry::new(h, write));
        (self.list.len() - 1) as u32
    }
    fn data(&self, ctx: Option<u32>) -> RenderData {
        RenderData {
            command_length: self.w.bytes.len() as u32,
            command_buffer: self.w.bytes.clone(),
            num_allocations: self.list.len() as u32,
            allocation_list: self.list.clone(),
            num_patch_locations: self.w.refs.len() as u32,
            patch_location_list: self.w.patch_locations(),
            h_context: ctx,
            ..RenderData::default()
        }
    }
}

fn layout() -> VertexLayout {
    VertexLayout::packed(PositionKind::Xyzrhw, true, false, &[])
}

fn vertex_buffer(s: &mut Scene, bytes: &[u8]) -> u32 {
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

/// Clears the scene's target to `clear` and draws the vertices of `vb`
/// (a triangle list of `count` triangles) over it.
fn draw_sub(s: &Scene, vb: u32, count: u32, clear: Option<u32>) -> Sub {
    let rt = s.drv.allocation_of(s.rt).unwrap();
    let vba = s.drv.allocation_of(vb).unwrap();
    let mut sub = Sub::new();
    let c = sub.idx(rt, true);
    let v = sub.idx(vba, false);
    // D3DRS_CULLMODE (22) = D3DCULL_NONE, D3DRS_ZENABLE (7) = FALSE.
    sub.w.set_regs(&[(id::rs(22), 1), (id::rs(7), 0)]);
    sub.w.bind_targets(c, None);
    if let Some(color) = clear {
        sub.w.clear_targets(1, color, 1.0, 0, &[]);
    }
    sub.w.vertex_format(&layout());
    sub.w.set_vertices(v, 0, count * 60);
    sub.w.draw(4, 0, count, 0, false);
    sub
}

#[test]
fn a_host_submission_draws_into_a_driver_surface() {
    let mut s = Scene::new(16, 16, false);
    let vb = vertex_buffer(&mut s, &quad(0.0, 0.0, 8.0, 16.0, 0.5, RED));
    let ctx = s.drv.render_context_create(Engine::ThreeD).unwrap();
    assert!(s.drv.is_render_context(ctx));
    let alloc = s.drv.allocation_of(vb).unwrap();
    assert_eq!(s.drv.surface_of_allocation(alloc), Some(vb));
    let mut rd = draw_sub(&s, vb, 2, Some(BLUE)).data(Some(ctx));
    assert_eq!(s.drv.render(&mut rd), codes::D3D_OK);
    assert_eq!(s.px(2, 2), RED);
    assert_eq!(s.px(12, 2), BLUE);
    // Executed before the call returned; the sizes came back.
    assert_eq!(s.drv.kmd().queued(), 0);
    assert_eq!(s.drv.kmd().fences(ctx).unwrap().0, 1);
    assert_eq!(rd.fence, 1);
    assert_eq!(
        rd.new_command_buffer_size,
        limits::DEFAULT_COMMAND_BUFFER_BYTES
    );
    assert!(rd.command_buffer.is_empty());
    // The vertex buffer is busy until the fence retires.
    assert!(s.drv.surface(vb).unwrap().busy);
    s.drv.complete_work();
    assert!(!s.drv.surface(vb).unwrap().busy);
}

#[test]
fn host_work_lands_after_the_dp2_work_before_it_and_before_the_dp2_work_after_it() {
    let mut s = Scene::new(16, 16, false);
    let vb = vertex_buffer(&mut s, &quad(0.0, 0.0, 16.0, 8.0, 0.5, GREEN));
    let ctx = s.drv.render_context_create(Engine::ThreeD).unwrap();
    // DP2: the whole target red.
    s.run(
        &format!("{NOCULL}TRIANGLELIST count=2 wVStart=0"),
        &quad(0.0, 0.0, 16.0, 16.0, 0.5, RED),
    )
    .ok();
    // Host: the top half green (no clear: the red must still be there).
    let mut rd = draw_sub(&s, vb, 2, None).data(Some(ctx));
    assert_eq!(s.drv.render(&mut rd), codes::D3D_OK);
    assert_eq!(s.px(3, 3), GREEN);
    assert_eq!(s.px(3, 12), RED);
    // DP2 again: the left column blue, over both.
    s.run(
        &format!("{NOCULL}TRIANGLELIST count=2 wVStart=0"),
        &quad(0.0, 0.0, 4.0, 16.0, 0.5, BLUE),
    )
    .ok();
    assert_eq!(s.px(1, 3), BLUE);
    assert_eq!(s.px(8, 3), GREEN);
    assert_eq!(s.px(8, 12), RED);
}

fn rejected(s: &mut Scene, rd: &mut RenderData, want: u32) {
    let pixels = s.rt_bytes();
    let kmd = s.drv.kmd().snapshot();
    let count = s.drv.kmd().rejected();
    rd.new_command_buffer_size = 0;
    assert_eq!(s.drv.render(rd), want, "{rd:?}");
    assert_eq!(s.rt_bytes(), pixels, "a rejected submission changed pixels");
    assert_eq!(
        s.drv.kmd().snapshot(),
        kmd,
        "a rejection changed the kernel"
    );
    assert_eq!(s.drv.kmd().rejected(), count + 1);
    // The sizes are returned whatever the outcome.
    assert_eq!(
        rd.new_command_buffer_size,
        limits::DEFAULT_COMMAND_BUFFER_BYTES
    );
}

#[test]
fn only_the_hosts_own_contexts_and_the_default_context_take_submissions() {
    let mut s = Scene::new(16, 16, false);
    let vb = vertex_buffer(&mut s, &quad(0.0, 0.0, 16.0, 16.0, 0.5, RED));
    let sub = draw_sub(&s, vb, 2, None);
    // The device's GPU context of its DP2 context.
    let dev = s.drv.gpu_context_of(s.ctx).unwrap();
    assert!(!s.drv.is_render_context(dev));
    rejected(&mut s, &mut sub.data(Some(dev)), codes::E_INVALIDARG);
    rejected(&mut s, &mut sub.data(Some(0x7777)), codes::E_INVALIDARG);
    // Destroyed contexts are gone.
    let ctx = s.drv.render_context_create(Engine::ThreeD).unwrap();
    s.drv.render_context_destroy(ctx).unwrap();
    assert!(!s.drv.is_render_context(ctx));
    rejected(&mut s, &mut sub.data(Some(ctx)), codes::E_INVALIDARG);
    // The device's contexts cannot be destroyed this way.
    let e = s.drv.render_context_destroy(dev).unwrap_err();
    assert_eq!(e.ddrval(), codes::E_INVALIDARG);
    assert!(matches!(e, DeviceError::Submit(SubmitError::InvalidArg(_))));
    assert_eq!(
        s.drv.render_context_destroy(ctx).unwrap_err().ddrval(),
        codes::E_INVALIDARG
    );
    // WDDM's default context (h_context None) is the host's: every driver
    // has one, and only None names it (its number is refused, and it
    // cannot be destroyed).
    let def = s.drv.default_render_context();
    assert!(!s.drv.is_render_context(def));
    rejected(&mut s, &mut sub.data(Some(def)), codes::E_INVALIDARG);
    assert_eq!(
        s.drv.render_context_destroy(def).unwrap_err().ddrval(),
        codes::E_INVALIDARG
    );
    assert!(!s.drv.default_render_context_used());
    assert_eq!(s.drv.render(&mut sub.data(None)), 0);
    assert!(s.drv.default_render_context_used());
    assert_eq!(s.px(5, 5), RED);
    // The DP2 path still works on its context.
    s.run(
        &format!("{NOCULL}TRIANGLELIST count=2 wVStart=0"),
        &quad(0.0, 0.0, 16.0, 16.0, 0.5, GREEN),
    )
    .ok();
    assert_eq!(s.px(5, 5), GREEN);
}

#[test]
fn malformed_host_submissions_are_refused_with_their_codes_and_change_nothing() {
    let mut s = Scene::new(16, 16, false);
    let vb = vertex_buffer(&mut s, &quad(0.0, 0.0, 16.0, 16.0, 0.5, RED));
    let ctx = s.drv.render_context_create(Engine::ThreeD).unwrap();
    s.run(
        &format!("{NOCULL}TRIANGLELIST count=2 wVStart=0"),
        &quad(0.0, 0.0, 16.0, 16.0, 0.5, GREEN),
    )
    .ok();
    let good = draw_sub(&s, vb, 2, Some(BLUE));

    // A command length that cuts the last packet.
    let mut rd = good.data(Some(ctx));
    rd.command_length -= 4;
    rejected(&mut s, &mut rd, codes::D3DDDIERR_INVALIDUSERBUFFER);
    // A command length past the buffer handed in.
    let mut rd = good.data(Some(ctx));
    rd.command_length += 16;
    rejected(&mut s, &mut rd, codes::D3DDDIERR_INVALIDUSERBUFFER);
    // A patch location naming an entry outside the allocation list.
    let mut rd = good.data(Some(ctx));
    rd.patch_location_list[1].allocation_index = 9;
    rejected(&mut s, &mut rd, codes::D3DDDIERR_INVALIDHANDLE);
    // A privileged packet from user mode.
    let mut bad = draw_sub(&s, vb, 2, Some(BLUE));
    bad.w.raw(op::FENCE_SIGNAL, 0, &[ctx, 99, 0]);
    rejected(
        &mut s,
        &mut bad.data(Some(ctx)),
        codes::D3DDDIERR_PRIVILEGEDINSTRUCTION,
    );
    // A draw reading past its vertices.
    let bad = draw_sub(&s, vb, 3, Some(BLUE));
    rejected(
        &mut s,
        &mut bad.data(Some(ctx)),
        codes::D3DDDIERR_INVALIDINSTRUCTION,
    );
    // A stale allocation handle.
    let gone = s.drv.create_vertex_buffer(60, false).unwrap();
    let gone_alloc = s.drv.allocation_of(gone).unwrap();
    s.drv.destroy_surface(gone).unwrap();
    let mut rd = good.data(Some(ctx));
    rd.allocation_list[1].h_allocation = gone_alloc;
    rejected(&mut s, &mut rd, codes::D3DDDIERR_INVALIDHANDLE);
    assert_eq!(s.px(5, 5), GREEN);
    // And the good one still runs.
    let mut rd = good.data(Some(ctx));
    assert_eq!(s.drv.render(&mut rd), codes::D3D_OK);
    assert_eq!(s.px(5, 5), RED);
}

#[test]
fn the_copy_engine_copies_between_buffer_surfaces() {
    let mut s = Scene::new(16, 16, false);
    let src = vertex_buffer(&mut s, &[1, 2, 3, 4, 5, 6, 7, 8]);
    let dst = vertex_buffer(&mut s, &[0; 8]);
    let ctx = s.drv.render_context_create(Engine::Copy).unwrap();
    let mut sub = Sub::new();
    let a = sub.idx(s.drv.allocation_of(src).unwrap(), false);
    let b = sub.idx(s.drv.allocation_of(dst).unwrap(), true);
    sub.w.buffer_copy(a, 2, b, 0, 4);
    assert_eq!(s.drv.render(&mut sub.data(Some(ctx))), codes::D3D_OK);
    let bytes = s.drv.lock(dst, LockFlags::default()).unwrap().to_vec();
    s.drv.unlock(dst).unwrap();
    assert_eq!(bytes, [3, 4, 5, 6, 0, 0, 0, 0]);
    // A draw is not copy-engine work.
    let bad = draw_sub(&s, src, 0, None);
    rejected(
        &mut s,
        &mut bad.data(Some(ctx)),
        codes::D3DDDIERR_INVALIDINSTRUCTION,
    );
}

#[test]
fn a_host_clears_a_cube_face_of_a_render_target_texture() {
    // The host as the UMD binds face 1 (D3DCUBEMAP_FACE_NEGATIVE_X), level
    // 0 of a 2×2 render-target cube with BIND_TEXTURE_TARGET and clears it
    // green; only that face changes. A plain texture cannot be bound so
    // (D3DDDIERR_INVALIDINSTRUCTION) and changes nothing.
    let mut s = Scene::new(4, 4, false);
    let cube = s
        .drv
        .create_surface(
            SurfaceDesc::cube_texture(softhal_pipeline::texture::TextureFormat::A8R8G8B8, 2, 1)
                .with_render_target(),
        )
        .unwrap();
    let plain = s
        .drv
        .create_texture(softhal_pipeline::texture::TextureFormat::A8R8G8B8, 2, 2, 1)
        .unwrap();
    let ctx = s.drv.render_context_create(Engine::ThreeD).unwrap();
    let bind_clear = |s: &Scene, h: u32| {
        let mut sub = Sub::new();
        let c = sub.idx(s.drv.allocation_of(h).unwrap(), true);
        sub.w.bind_texture_target(c, 1, 0, None);
        sub.w.clear_targets(1, GREEN, 1.0, 0, &[]);
        sub
    };
    let mut rd = bind_clear(&s, plain).data(Some(ctx));
    assert_eq!(s.drv.render(&mut rd), codes::D3DDDIERR_INVALIDINSTRUCTION);
    let mut rd = bind_clear(&s, cube).data(Some(ctx));
    assert_eq!(s.drv.render(&mut rd), codes::D3D_OK);
    let t = s.drv.surface(cube).unwrap().texture().unwrap();
    for face in 0..6 {
        let want: &[u8] = if face == 1 {
            &[0, 0xff, 0, 0xff]
        } else {
            &[0; 4]
        };
        assert_eq!(&t.level_bytes(face, 0).unwrap()[..4], want, "face {face}");
    }
    let p = s.drv.surface(plain).unwrap().texture().unwrap();
    assert_eq!(p.level_bytes(0, 0).unwrap(), &[0; 16]);
}
