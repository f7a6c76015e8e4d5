//! The C ABI called from Rust: argument validation at every entry point,
//! forged and foreign objects, the unknown-command hook's range checks,
//! concurrency, the layouts of the call structures, and bounded time (the
//! GPU timeout, cancellation from another thread, thread-count limits).

#![allow(unsafe_code)]

use softhal::*;
use softhal_wire::names::codes;
use std::ffi::c_void;
use std::mem::{align_of, offset_of, size_of, MaybeUninit};
use std::ptr::{null, null_mut};

mod common;
use common::*;

#[test]
#[cfg(target_pointer_width = "64")]
fn call_structures_have_the_reference_x64_layouts() {
    assert_eq!(size_of::<D3DHAL_DRAWPRIMITIVES2DATA>(), 72);
    assert_eq!(offset_of!(D3DHAL_DRAWPRIMITIVES2DATA, lpDDCommands), 16);
    assert_eq!(offset_of!(D3DHAL_DRAWPRIMITIVES2DATA, lpDDVertex), 32);
    assert_eq!(offset_of!(D3DHAL_DRAWPRIMITIVES2DATA, lpdwRStates), 56);
    assert_eq!(offset_of!(D3DHAL_DRAWPRIMITIVES2DATA, dwVertexSize), 64);
    assert_eq!(offset_of!(D3DHAL_DRAWPRIMITIVES2DATA, dwErrorOffset), 68);
    assert_eq!(size_of::<D3DHAL_CONTEXTCREATEDATA>(), 48);
    assert_eq!(offset_of!(D3DHAL_CONTEXTCREATEDATA, dwhContext), 32);
    assert_eq!(offset_of!(D3DHAL_CONTEXTCREATEDATA, ddrval), 40);
    assert_eq!(size_of::<D3DHAL_CONTEXTDESTROYDATA>(), 16);
    assert_eq!(size_of::<D3DHAL_CLEAR2DATA>(), 40);
    assert_eq!(offset_of!(D3DHAL_CLEAR2DATA, lpRects), 24);
    assert_eq!(offset_of!(D3DHAL_CLEAR2DATA, ddrval), 36);
    assert_eq!(size_of::<D3DHAL_VALIDATETEXTURESTAGESTATEDATA>(), 32);
    assert_eq!(offset_of!(D3DHAL_VALIDATETEXTURESTAGESTATEDATA, ddrval), 28);
    assert_eq!(size_of::<D3DDDICB_RENDER>(), 680);
    assert_eq!(offset_of!(D3DDDICB_RENDER, NewCommandBuffer), 600);
    assert_eq!(
        offset_of!(D3DDDICB_RENDER, pBegunAPISequenceNumberLow1),
        672
    );
    assert_eq!(size_of::<D3DDDI_ALLOCATIONLIST>(), 8);
    assert_eq!(size_of::<D3DDDI_PATCHLOCATIONLIST>(), 24);
}

#[test]
fn null_and_misaligned_ddi_data_is_not_handled() {
    let nh = codes::DDHAL_DRIVER_NOTHANDLED;
    // An over-aligned buffer, offset by 1 byte: misaligned for every struct.
    let mut buf = vec![0u64; 128];
    let mis = (buf.as_mut_ptr() as *mut u8).wrapping_add(1);
    // SAFETY: null and misaligned pointers are rejected before any access.
    unsafe {
        assert_eq!(D3dContextCreate(null_mut()), nh);
        assert_eq!(D3dContextDestroy(null_mut()), nh);
        assert_eq!(D3dDrawPrimitives2(null_mut()), nh);
        assert_eq!(D3dClear2(null_mut()), nh);
        assert_eq!(D3dValidateTextureStageState(null_mut()), nh);
        assert_eq!(D3dContextCreate(mis.cast()), nh);
        assert_eq!(D3dContextDestroy(mis.cast()), nh);
        assert_eq!(D3dDrawPrimitives2(mis.cast()), nh);
        assert_eq!(D3dClear2(mis.cast()), nh);
        assert_eq!(D3dValidateTextureStageState(mis.cast()), nh);
        assert_eq!(
            softhal_render_cb(null_mut(), mis.cast()),
            hr(codes::E_INVALIDARG)
        );
    }
    assert!(align_of::<D3DHAL_DRAWPRIMITIVES2DATA>() > 1);
}

#[test]
fn null_and_misaligned_out_pointers_are_rejected() {
    let d = driver();
    let rt = surface(d, SOFTHAL_SURFACE_RENDERTARGET, 21, 8, 8);
    let inval = hr(codes::E_INVALIDARG);
    let mut buf = vec![0u64; 16];
    let mis = (buf.as_mut_ptr() as *mut u8).wrapping_add(1);
    // SAFETY: every pointer below is null, misaligned (rejected before
    // use) or valid.
    unsafe {
        assert_eq!(softhal_driver_create(0, null_mut()), inval);
        assert_eq!(softhal_driver_create(0, mis.cast()), inval);
        assert_eq!(softhal_surface_create(d, null(), mis.cast()), inval);
        assert_eq!(softhal_surface_lock(rt, 0, null_mut()), inval);
        assert_eq!(softhal_surface_lock(rt, 0, mis.cast()), inval);
        assert_eq!(softhal_surface_get_desc(rt, mis.cast()), inval);
        assert_eq!(softhal_get_caps(d, mis.cast()), inval);
        assert_eq!(softhal_get_last_error(d, null_mut(), 0, mis.cast()), inval);
        assert_eq!(softhal_get_last_error(d, null_mut(), 4, null_mut()), inval);
        assert_eq!(softhal_get_last_error(d, null_mut(), 0, null_mut()), OK);
        assert_eq!(softhal_present(rt, null_mut(), 32, 256), inval);
        assert_eq!(softhal_capture_start(d, null()), inval);
        assert_eq!(softhal_driver_destroy(d), OK);
    }
}

#[test]
fn forged_and_foreign_objects_are_errors_not_crashes() {
    let (a, b) = (driver(), driver());
    let rt_a = surface(a, SOFTHAL_SURFACE_RENDERTARGET, 21, 8, 8);
    let cb_b = surface(b, SOFTHAL_SURFACE_COMMANDBUFFER, 0, 64, 1);
    let ctx_a = context(a, rt_a);
    let obj = hr(codes::DDERR_INVALIDOBJECT);
    let forged = 0x1000usize as *mut softhal_driver;
    let mut out = null_mut();
    // SAFETY: forged values are only looked up, never dereferenced.
    unsafe {
        let desc = SOFTHAL_SURFACE_DESC {
            dwSize: size_of::<SOFTHAL_SURFACE_DESC>() as u32,
            dwKind: SOFTHAL_SURFACE_COMMANDBUFFER,
            dwFormat: 0,
            dwWidth: 16,
            dwHeight: 1,
            dwDepth: 1,
            dwMipLevels: 1,
            dwHandle: 0,
        };
        assert_eq!(softhal_surface_create(forged, &desc, &mut out), obj);
        assert!(out.is_null());
        assert_eq!(softhal_surface_destroy(forged.cast()), obj);
        assert_eq!(softhal_flip(forged.cast()), obj);
        assert_eq!(softhal_complete_flips(forged), obj);
        assert_eq!(softhal_driver_destroy(forged), obj);
        // A command buffer of driver B on a context of driver A.
        let mut d = dp2_data(ctx_a, cb_b, 0);
        assert_eq!(D3dDrawPrimitives2(&mut d), codes::DDHAL_DRIVER_HANDLED);
        assert_eq!(d.dwVertexSize as HRESULT, obj);
        // A context whose render target belongs to another driver.
        let mut c = D3DHAL_CONTEXTCREATEDATA {
            lpDDGbl: b,
            lpDDS: rt_a,
            lpDDSZ: null_mut(),
            dwPID: 0,
            dwhContext: 7,
            ddrval: 0,
        };
        assert_eq!(D3dContextCreate(&mut c), codes::DDHAL_DRIVER_HANDLED);
        assert_eq!(c.ddrval, obj);
        assert_eq!(c.dwhContext, 0);
        assert_eq!(softhal_driver_destroy(a), OK);
        assert_eq!(softhal_driver_destroy(b), OK);
        // Destroyed: the context is gone with its driver.
        let mut d = dp2_data(ctx_a, cb_b, 0);
        D3dDrawPrimitives2(&mut d);
        assert_eq!(d.dwVertexSize, codes::D3DHAL_CONTEXT_BAD);
    }
}

unsafe extern "system" fn hook_past_end(cmd: *mut c_void, next: *mut *mut c_void) -> HRESULT {
    // SAFETY: `next` is softhal's valid out-pointer; the address is only
    // computed, not dereferenced.
    unsafe { next.write(cmd.cast::<u8>().wrapping_add(1 << 20).cast()) };
    0
}

unsafe extern "system" fn hook_backwards(cmd: *mut c_void, next: *mut *mut c_void) -> HRESULT {
    // SAFETY: as above.
    unsafe { next.write(cmd) };
    0
}

unsafe extern "system" fn hook_fails(_: *mut c_void, _: *mut *mut c_void) -> HRESULT {
    codes::E_FAIL as HRESULT
}

#[test]
fn hook_results_out_of_range_fail_the_command() {
    let d = driver();
    let rt = surface(d, SOFTHAL_SURFACE_RENDERTARGET, 21, 8, 8);
    let cb = surface(d, SOFTHAL_SURFACE_COMMANDBUFFER, 0, 64, 1);
    let ctx = context(d, rt);
    // RENDERSTATE (12 bytes), then unknown opcode 0xEE at offset 12.
    let mut bytes = vec![8, 0, 1, 0, 22, 0, 0, 0, 1, 0, 0, 0];
    bytes.extend_from_slice(&[0xEE, 0, 0, 0]);
    write(cb, 0, &bytes);
    let hooks: [ParseUnknownCommandFn; 3] = [hook_past_end, hook_backwards, hook_fails];
    for h in hooks {
        // SAFETY: the hooks honour the contract (they only compute addresses).
        unsafe {
            assert_eq!(softhal_set_parse_unknown_command(d, Some(h)), OK);
            let mut data = dp2_data(ctx, cb, bytes.len() as u32);
            D3dDrawPrimitives2(&mut data);
            assert_eq!(data.dwVertexSize, codes::D3DERR_COMMAND_UNPARSED);
            assert_eq!(data.dwErrorOffset, 12);
        }
    }
    // SAFETY: valid driver.
    unsafe { assert_eq!(softhal_driver_destroy(d), OK) };
}

#[test]
fn user_vertices_are_read_only_within_the_given_length_and_the_cap() {
    let d = driver();
    let rt = surface(d, SOFTHAL_SURFACE_RENDERTARGET, 21, 8, 8);
    let cb = surface(d, SOFTHAL_SURFACE_COMMANDBUFFER, 0, 64, 1);
    let ctx = context(d, rt);
    // TRIANGLELIST of 1 triangle from vertex 0 (needs 3 vertices).
    write(cb, 0, &[18, 0, 1, 0, 0, 0]);
    let verts = [0u8; 3 * 20];
    let mut data = dp2_data(ctx, cb, 6);
    data.dwFlags = 1; // USERMEMVERTICES
    data.dwVertexType = 0x44; // XYZRHW | DIFFUSE, stride 20
    data.lpDDVertex = verts.as_ptr() as *mut c_void;
    data.dwVertexLength = 2; // only two vertices given: the draw must fail
    data.dwVertexSize = 20;
    // SAFETY: `verts` holds more than the 40 bytes described.
    unsafe { D3dDrawPrimitives2(&mut data) };
    assert_eq!(data.dwVertexSize, codes::D3DERR_COMMAND_UNPARSED);
    assert_eq!(data.dwErrorOffset, 0);
    // More than MAX_BUFFER_BYTES of user vertices: refused before any
    // byte is read or copied.
    data.dwVertexLength = (256 << 20) / 20 + 1;
    data.dwVertexSize = 20;
    // SAFETY: the length is beyond the cap, which is checked before the
    // range is touched.
    unsafe { D3dDrawPrimitives2(&mut data) };
    assert_eq!(data.dwVertexSize, codes::DDERR_OUTOFMEMORY);
    assert_eq!(data.dwErrorOffset, 0);
    data.dwVertexLength = 3;
    data.dwVertexSize = 20;
    // SAFETY: exactly 60 bytes described and present.
    unsafe { D3dDrawPrimitives2(&mut data) };
    assert_eq!(data.dwVertexSize, codes::D3D_OK);
    // SAFETY: valid driver.
    unsafe { assert_eq!(softhal_driver_destroy(d), OK) };
}

/// The colour DWORD of vertex 0 in [`guest_memory_changed_during_a_call_is_read_once`].
static GUEST_COLOUR: std::sync::atomic::AtomicPtr<std::sync::atomic::AtomicU32> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

/// A host hook for opcode 0xEE that plays the guest: in the middle of the
/// call it flips vertex 0's colour between red and blue, then skips the
/// 4-byte command.
unsafe extern "system" fn hook_guest_writes(cmd: *mut c_void, next: *mut *mut c_void) -> HRESULT {
    use std::sync::atomic::Ordering::Relaxed;
    let colour = GUEST_COLOUR.load(Relaxed);
    if !colour.is_null() {
        // SAFETY: the test stores a pointer into vertices it keeps alive
        // until the driver is destroyed.
        let c = unsafe { &*colour };
        c.store(c.load(Relaxed) ^ 0x00FF_00FF, Relaxed);
    }
    // SAFETY: `next` is softhal's out-pointer; the command is 4 bytes.
    unsafe { *next = cmd.cast::<u8>().add(4).cast() };
    0
}

/// P11 of the reliability design (no double fetch): the guest changes the
/// user-memory vertices it shares with the host while the call runs.
/// Eight separate draw commands take their flat-shaded colour from
/// vertex 0, and between the first draw and the others the host's
/// unknown-command hook flips that colour (red ↔ blue), as a guest vCPU
/// would. softhal reads the host's range once, at the start of the call,
/// so every draw sees the colour the vertex had when the call began (a
/// driver reading the vertices in place, draw by draw, paints one red and
/// seven blue triangles). Then another thread flips the colour as fast as
/// it can during 300 calls: every frame is all red or all blue.
#[test]
fn guest_memory_changed_during_a_call_is_read_once() {
    use std::collections::BTreeSet;
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
    use std::sync::Arc;
    const RED: u32 = 0xFFFF_0000;
    const BLUE: u32 = 0xFF00_00FF;
    const SIZE: u32 = 32;
    let d = driver();
    let rt = surface(d, SOFTHAL_SURFACE_RENDERTARGET, 21, SIZE, SIZE);
    let cb = surface(d, SOFTHAL_SURFACE_COMMANDBUFFER, 0, 256, 1);
    let ctx = context(d, rt);
    // Vertex 0 at the top-left corner; 1..=9 along the right edge, then the
    // bottom edge: the fan (0, i, i + 1) covers the target.
    let s = SIZE as f32;
    let rim = [
        (s, 0.0),
        (s, 8.0),
        (s, 16.0),
        (s, 24.0),
        (s, s),
        (24.0, s),
        (16.0, s),
        (8.0, s),
        (0.0, s),
    ];
    let mut words = Vec::new();
    for (x, y) in std::iter::once((0.0, 0.0)).chain(rim) {
        // XYZRHW | DIFFUSE: x, y, z, rhw, colour.
        words.extend([f32::to_bits(x), f32::to_bits(y), 0, f32::to_bits(1.0), RED]);
    }
    let vertices: Arc<Vec<AtomicU32>> = Arc::new(words.into_iter().map(AtomicU32::new).collect());
    GUEST_COLOUR.store(
        std::ptr::from_ref(&vertices[4]).cast_mut(),
        Ordering::Relaxed,
    );
    // RENDERSTATE SHADEMODE = FLAT, CULLMODE = NONE; then 8 draw commands,
    // with the hook's opcode after the first.
    let mut cmds = vec![8, 0, 2, 0];
    for (state, value) in [(9u32, 1u32), (22, 1)] {
        cmds.extend(state.to_le_bytes());
        cmds.extend(value.to_le_bytes());
    }
    for i in 1u16..=8 {
        cmds.extend([3, 0, 1, 0]); // INDEXEDTRIANGLELIST, 1 triangle
        for w in [0, i, i + 1, 0] {
            cmds.extend(w.to_le_bytes());
        }
        if i == 1 {
            cmds.extend([0xEE, 0, 0, 0]);
        }
    }
    write(cb, 0, &cmds);
    // SAFETY: the hook keeps to its contract (it writes only `next`, and
    // vertex memory the test owns).
    unsafe {
        assert_eq!(
            softhal_set_parse_unknown_command(d, Some(hook_guest_writes)),
            OK
        )
    };
    let frame = |call: usize| -> BTreeSet<u32> {
        let mut data = dp2_data(ctx, cb, cmds.len() as u32);
        data.dwFlags = 1; // USERMEMVERTICES
        data.dwVertexType = 0x44;
        data.lpDDVertex = vertices.as_ptr() as *mut c_void;
        data.dwVertexLength = 10;
        data.dwVertexSize = 20;
        // SAFETY: `vertices` holds the 200 bytes described for the call
        // (the hook and another thread change them, which the ABI allows).
        unsafe { D3dDrawPrimitives2(&mut data) };
        assert_eq!(data.dwVertexSize, codes::D3D_OK, "call {call}");
        let mut px = vec![0u8; (SIZE * SIZE * 4) as usize];
        // SAFETY: `px` has the size given.
        let r = unsafe { softhal_present(rt, px.as_mut_ptr().cast(), SIZE * 4, px.len() as u32) };
        assert_eq!(r, OK);
        px.chunks_exact(4)
            .map(|p| u32::from_be_bytes([p[3], p[0], p[1], p[2]])) // RGBA bytes → 0xAARRGGBB
            .collect()
    };
    // The hook alone: each frame has the colour vertex 0 had before its call.
    for call in 0..4 {
        let before = vertices[4].load(Ordering::Relaxed);
        assert_eq!(frame(call), [before].into(), "call {call}");
        assert_ne!(vertices[4].load(Ordering::Relaxed), before, "the hook ran");
    }
    // The hook and a racing guest thread.
    let stop = Arc::new(AtomicBool::new(false));
    let guest = {
        let (vertices, stop) = (Arc::clone(&vertices), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                vertices[4].fetch_xor(0x00FF_00FF, Ordering::Relaxed);
                std::hint::spin_loop();
            }
        })
    };
    for call in 4..300 {
        let colours = frame(call);
        assert!(
            colours == [RED].into() || colours == [BLUE].into(),
            "call {call}: the frame mixes {colours:08X?}"
        );
    }
    stop.store(true, Ordering::Relaxed);
    guest.join().unwrap();
    // SAFETY: valid driver.
    unsafe { assert_eq!(softhal_driver_destroy(d), OK) };
    GUEST_COLOUR.store(null_mut(), Ordering::Relaxed);
}

#[test]
fn drivers_work_concurrently_and_a_shared_driver_serializes() {
    let shared = driver() as usize;
    let threads: Vec<_> = (0..8)
        .map(|i| {
            std::thread::spawn(move || {
                let own = i % 2 == 0;
                let d = if own {
                    driver()
                } else {
                    shared as *mut softhal_driver
                };
                let rt = surface(d, SOFTHAL_SURFACE_RENDERTARGET, 21, 16, 16);
                let cb = surface(d, SOFTHAL_SURFACE_COMMANDBUFFER, 0, 64, 1);
                let ctx = context(d, rt);
                let color = 0xFF00_0000u32 | (i as u32 * 0x10);
                // CLEAR TARGET with 0 rects (one 32-byte slot).
                let mut bytes = vec![42, 0, 0, 0];
                bytes.extend_from_slice(&1u32.to_le_bytes());
                bytes.extend_from_slice(&color.to_le_bytes());
                bytes.extend_from_slice(&[0; 24]);
                for _ in 0..20 {
                    write(cb, 0, &bytes);
                    let mut data = dp2_data(ctx, cb, bytes.len() as u32);
                    // SAFETY: valid pointer to a local.
                    unsafe { D3dDrawPrimitives2(&mut data) };
                    assert_eq!(data.dwVertexSize, 0);
                    let mut px = vec![0u8; 16 * 16 * 4];
                    // SAFETY: `px` has the size given.
                    let r =
                        unsafe { softhal_present(rt, px.as_mut_ptr().cast(), 64, px.len() as u32) };
                    assert_eq!(r, OK);
                    assert_eq!(px[2], (i * 0x10) as u8); // blue channel
                }
                // SAFETY: valid objects.
                unsafe {
                    let mut dd = D3DHAL_CONTEXTDESTROYDATA {
                        dwhContext: ctx,
                        ddrval: -1,
                    };
                    D3dContextDestroy(&mut dd);
                    assert_eq!(dd.ddrval, OK);
                    assert_eq!(softhal_surface_destroy(cb), OK);
                    assert_eq!(softhal_surface_destroy(rt), OK);
                    if own {
                        assert_eq!(softhal_driver_destroy(d), OK);
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    // SAFETY: valid driver.
    unsafe { assert_eq!(softhal_driver_destroy(shared as *mut softhal_driver), OK) };
}

/// Two NOP packets (header = opcode 1 | 1 DWORD << 16) into the command
/// buffer `r` names, and the counts for them.
///
/// # Safety
/// `r.pNewCommandBuffer` is a buffer softhal handed out (at least 8 bytes).
unsafe fn two_nops(r: &mut D3DDDICB_RENDER) {
    let p = r.pNewCommandBuffer.cast::<u32>();
    // SAFETY: the caller's contract.
    unsafe {
        p.write(0x0001_0001);
        p.add(1).write(0x0001_0001);
    }
    r.CommandLength = 8;
    r.CommandOffset = 0;
    r.NumAllocations = 0;
    r.NumPatchLocations = 0;
}

/// `pfnRenderCb` as the DDK defines it (`docs/submission.md`, "The callback"):
/// the kernel side owns the buffers and hands out the next ones with their
/// true sizes; `hContext` NULL is the device's default context; after a
/// refused call the buffers and sizes in force come back (a resize request
/// does not read back as granted).
#[test]
fn render_cb_hands_out_the_next_buffers_and_their_sizes() {
    let d = driver();
    // SAFETY: an all-zero D3DDDICB_RENDER is a valid value (integers and
    // null pointers).
    let mut r: D3DDDICB_RENDER = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointers; the packets are written into buffers softhal
    // handed out, within the sizes it reported.
    unsafe {
        // The default context's buffers, at the kernel's default sizes
        // (limits: 64 KiB, 256 and 1024 entries).
        assert_eq!(
            softhal_render_context_get_buffers(d, null_mut(), &mut r),
            OK
        );
        assert!(!r.pNewCommandBuffer.is_null());
        assert!(!r.pNewAllocationList.is_null() && !r.pNewPatchLocationList.is_null());
        let sizes = |r: &D3DDDICB_RENDER| {
            (
                r.NewCommandBufferSize,
                r.NewAllocationListSize,
                r.NewPatchLocationListSize,
            )
        };
        assert_eq!(sizes(&r), (64 << 10, 256, 1024));
        // hContext NULL: the default context takes the submission.
        two_nops(&mut r);
        assert_eq!(softhal_render_cb(d.cast(), &mut r), OK);
        assert_eq!(sizes(&r), (64 << 10, 256, 1024));
        // A resize request, accepted: a new command buffer of exactly the
        // granted size (its last byte is writable).
        let old = r.pNewCommandBuffer;
        two_nops(&mut r);
        r.Flags = 1; // ResizeCommandBuffer
        r.NewCommandBufferSize = 1 << 20;
        assert_eq!(softhal_render_cb(d.cast(), &mut r), OK);
        assert_eq!(sizes(&r), (1 << 20, 256, 1024));
        assert_ne!(r.pNewCommandBuffer, old);
        r.pNewCommandBuffer
            .cast::<u8>()
            .add((1 << 20) - 1)
            .write(0xAB);
        let in_force = (r.pNewCommandBuffer, r.pNewAllocationList, sizes(&r));
        let unchanged =
            |r: &D3DDDICB_RENDER| (r.pNewCommandBuffer, r.pNewAllocationList, sizes(r)) == in_force;
        // Refused calls write back the buffers in force, not the request:
        // at the boundary (a broadcast) ...
        two_nops(&mut r);
        r.Flags = 1;
        r.NewCommandBufferSize = 12345;
        r.BroadcastContextCount = 1;
        assert_eq!(softhal_render_cb(d.cast(), &mut r), hr(codes::E_INVALIDARG));
        assert!(unchanged(&r));
        r.BroadcastContextCount = 0;
        // ... and in the kernel (reserved flag bits; a CommandLength past
        // the buffer; counts past the lists or the kernel's limits).
        two_nops(&mut r);
        r.Flags = 0x11;
        r.NewCommandBufferSize = 12345;
        assert_eq!(softhal_render_cb(d.cast(), &mut r), hr(codes::E_INVALIDARG));
        assert!(unchanged(&r));
        r.Flags = 0;
        let refused = [
            ((1 << 20) + 4, 0, hr(codes::D3DDDIERR_INVALIDUSERBUFFER)),
            ((64 << 20) + 4, 0, hr(codes::E_OUTOFMEMORY)),
            (8, 257, hr(codes::D3DDDIERR_INVALIDUSERBUFFER)),
            (8, 5000, hr(codes::E_OUTOFMEMORY)),
        ];
        for (len, allocations, code) in refused {
            two_nops(&mut r);
            r.CommandLength = len;
            r.NumAllocations = allocations;
            assert_eq!(
                softhal_render_cb(d.cast(), &mut r),
                code,
                "{len} {allocations}"
            );
            assert!(unchanged(&r));
        }
        // The pNew* fields are outputs: whatever they hold is never read.
        two_nops(&mut r);
        r.pNewCommandBuffer = std::ptr::without_provenance_mut(1);
        r.pNewAllocationList = std::ptr::without_provenance_mut(3);
        r.pNewPatchLocationList = null_mut();
        r.Flags = 0;
        assert_eq!(softhal_render_cb(d.cast(), &mut r), OK);
        assert!(unchanged(&r), "the same buffers, handed out again");
        // A render context has its own buffers.
        let mut ctx = null_mut();
        assert_eq!(
            softhal_render_context_create(d, SOFTHAL_ENGINE_3D, &mut ctx),
            OK
        );
        let mut rc: D3DDDICB_RENDER = std::mem::zeroed();
        assert_eq!(softhal_render_context_get_buffers(d, ctx, &mut rc), OK);
        assert_ne!(rc.pNewCommandBuffer, r.pNewCommandBuffer);
        rc.hContext = ctx;
        two_nops(&mut rc);
        assert_eq!(softhal_render_cb(d.cast(), &mut rc), OK);
        // No such context, no driver: no buffers (NULL and 0).
        let no_buffers = |r: &D3DDDICB_RENDER| {
            r.pNewCommandBuffer.is_null() && r.pNewAllocationList.is_null() && sizes(r) == (0, 0, 0)
        };
        let mut bad = rc;
        bad.hContext = 0x5555 as *mut c_void;
        assert_eq!(
            softhal_render_cb(d.cast(), &mut bad),
            hr(codes::E_INVALIDARG)
        );
        assert!(no_buffers(&bad));
        let mut bad = rc;
        assert_eq!(
            softhal_render_cb(null_mut(), &mut bad),
            hr(codes::E_INVALIDARG)
        );
        assert!(no_buffers(&bad));
        let mut bad = rc;
        let forged = (&mut r as *mut D3DDDICB_RENDER).cast();
        assert_eq!(
            softhal_render_cb(forged, &mut bad),
            hr(codes::DDERR_INVALIDOBJECT)
        );
        assert!(no_buffers(&bad));
        assert_eq!(
            softhal_render_context_get_buffers(d, 0x5555 as *mut c_void, &mut bad),
            hr(codes::E_INVALIDARG)
        );
        assert_eq!(softhal_render_context_destroy(d, ctx), OK);
        assert_eq!(
            softhal_render_context_destroy(d, ctx),
            hr(codes::E_INVALIDARG)
        );
        assert_eq!(
            softhal_render_context_get_buffers(d, ctx, &mut bad),
            hr(codes::E_INVALIDARG)
        );
        // The default context is the driver's: it cannot be destroyed.
        assert_eq!(
            softhal_render_context_destroy(d, null_mut()),
            hr(codes::E_INVALIDARG)
        );
        assert_eq!(
            softhal_render_context_create(d, 2, &mut ctx),
            hr(codes::E_INVALIDARG)
        );
        assert!(ctx.is_null());
        assert_eq!(
            softhal_render_cb(d.cast(), null_mut()),
            hr(codes::E_INVALIDARG)
        );
        let mis = (&mut r as *mut D3DDDICB_RENDER).cast::<u8>().add(4).cast();
        for out in [null_mut(), mis] {
            assert_eq!(
                softhal_render_context_get_buffers(d, null_mut(), out),
                hr(codes::E_INVALIDARG)
            );
        }
        assert_eq!(softhal_driver_destroy(d), OK);
    }
}

#[test]
fn every_surface_has_its_own_allocation() {
    let d = driver();
    let rt = surface(d, SOFTHAL_SURFACE_RENDERTARGET, 21, 8, 8);
    let vb = surface(d, SOFTHAL_SURFACE_VERTEXBUFFER, 0, 64, 1);
    let tex = surface(d, SOFTHAL_SURFACE_TEXTURE, 21, 8, 8);
    let (mut a, mut b, mut c) = (0u32, 0u32, 0u32);
    // SAFETY: valid pointers, or null / misaligned ones rejected first.
    unsafe {
        assert_eq!(softhal_surface_get_allocation(rt, &mut a), OK);
        assert_eq!(softhal_surface_get_allocation(vb, &mut b), OK);
        assert!(a != 0 && b != 0 && a != b);
        assert_eq!(softhal_surface_get_allocation(tex, &mut c), OK);
        assert!(c != 0 && c != a && c != b, "textures are GPU allocations");
        assert_eq!(
            softhal_surface_get_allocation(rt, null_mut()),
            hr(codes::E_INVALIDARG)
        );
        assert_eq!(
            softhal_surface_get_allocation(null_mut(), &mut c),
            hr(codes::E_INVALIDARG)
        );
        assert_eq!(softhal_driver_destroy(d), OK);
        assert_eq!(
            softhal_surface_get_allocation(rt, &mut c),
            hr(codes::DDERR_INVALIDOBJECT)
        );
    }
}

#[test]
fn texture_levels_lock_and_write_back() {
    let d = driver();
    let desc = SOFTHAL_SURFACE_DESC {
        dwSize: size_of::<SOFTHAL_SURFACE_DESC>() as u32,
        dwKind: SOFTHAL_SURFACE_TEXTURE,
        dwFormat: 21,
        dwWidth: 8,
        dwHeight: 8,
        dwDepth: 1,
        dwMipLevels: 0,
        dwHandle: 0,
    };
    let mut t = null_mut();
    let mut got = MaybeUninit::<SOFTHAL_SURFACE_DESC>::uninit();
    let mut l = MaybeUninit::<SOFTHAL_LOCKED_SURFACE>::uninit();
    // SAFETY: valid pointers; the lock pointer is used within dwSize before unlock.
    unsafe {
        assert_eq!(softhal_surface_create(d, &desc, &mut t), OK);
        assert_eq!(softhal_surface_get_desc(t, got.as_mut_ptr()), OK);
        assert_eq!(got.assume_init().dwMipLevels, 4); // 8, 4, 2, 1
        assert_eq!(softhal_surface_lock_level(t, 0, 2, 0, l.as_mut_ptr()), OK);
        let lk = l.assume_init();
        assert_eq!((lk.dwPitch, lk.dwSize), (8, 16)); // 2x2 A8R8G8B8
        std::ptr::write_bytes(lk.pBits.cast::<u8>(), 0x5A, 16);
        assert_eq!(softhal_surface_unlock(t), OK);
        assert_eq!(
            softhal_surface_lock_level(t, 0, 2, SOFTHAL_LOCK_READONLY, l.as_mut_ptr()),
            OK
        );
        let lk = l.assume_init();
        assert_eq!(*lk.pBits.cast::<u8>().add(15), 0x5A);
        assert_eq!(softhal_surface_unlock(t), OK);
        assert_eq!(
            softhal_surface_lock_level(t, 0, 4, 0, l.as_mut_ptr()),
            hr(codes::DDERR_INVALIDPARAMS)
        );
        assert_eq!(
            softhal_surface_lock_level(t, 1, 0, 0, l.as_mut_ptr()),
            hr(codes::DDERR_INVALIDPARAMS)
        );
        assert_eq!(softhal_driver_destroy(d), OK);
    }
}

/// The text `softhal_get_last_error` gives for `d`.
fn last_error(d: *mut softhal_driver) -> String {
    let mut buf = [0u8; 512];
    // SAFETY: `buf` holds the size given.
    let r = unsafe { softhal_get_last_error(d, buf.as_mut_ptr().cast(), 512, null_mut()) };
    assert_eq!(r, OK);
    let n = buf.iter().position(|&b| b == 0).unwrap();
    String::from_utf8(buf[..n].to_vec()).unwrap()
}

/// `softhal_get_last_error` describes the last `D3dDrawPrimitives2` on the
/// driver, whoever refused it: after a call the C boundary refused (here a
/// `dwVertexSize` below the FVF's vertex, then too many user-memory
/// vertices: `DDERR_OUTOFMEMORY`, which is `E_OUTOFMEMORY` and prints so)
/// it names that refusal, never an earlier call's failure.
#[test]
fn last_error_is_never_an_earlier_calls() {
    let d = driver();
    let rt = surface(d, SOFTHAL_SURFACE_RENDERTARGET, 21, 8, 8);
    let cb = surface(d, SOFTHAL_SURFACE_COMMANDBUFFER, 0, 64, 1);
    let ctx = context(d, rt);
    // SAFETY: every range named holds the bytes described.
    unsafe {
        // The device refuses an unknown opcode (0xEE).
        write(cb, 0, &[0xEE, 0, 0, 0]);
        let mut data = dp2_data(ctx, cb, 4);
        D3dDrawPrimitives2(&mut data);
        assert_eq!(data.dwVertexSize, codes::D3DERR_COMMAND_UNPARSED);
        assert!(last_error(d).starts_with("D3DERR_COMMAND_UNPARSED"));
        // The boundary refuses dwVertexSize 12 for a 20-byte FVF vertex.
        let verts = [0u8; 60];
        let user = |size: u32, count: u32| {
            let mut data = dp2_data(ctx, cb, 4);
            data.dwFlags = 1; // D3DHALDP2_USERMEMVERTICES
            data.dwVertexType = 0x44; // XYZRHW | DIFFUSE: 20 bytes
            data.lpDDVertex = verts.as_ptr() as *mut c_void;
            data.dwVertexLength = count;
            data.dwVertexSize = size;
            data
        };
        let mut data = user(12, 3);
        D3dDrawPrimitives2(&mut data);
        assert_eq!(data.dwVertexSize, codes::D3DERR_INVALIDVERTEXFORMAT);
        let e = last_error(d);
        assert!(
            e.starts_with("D3DERR_INVALIDVERTEXFORMAT at offset 0: dwVertexSize 12"),
            "{e}"
        );
        // A success clears it.
        write(cb, 0, &[8, 0, 1, 0, 22, 0, 0, 0, 1, 0, 0, 0]); // RENDERSTATE CULLMODE = NONE
        let mut data = dp2_data(ctx, cb, 12);
        D3dDrawPrimitives2(&mut data);
        assert_eq!(data.dwVertexSize, codes::D3D_OK);
        assert_eq!(last_error(d), "");
        // More than MAX_BUFFER_BYTES of user vertices (checked unread).
        let mut data = user(20, (256 << 20) / 20 + 1);
        D3dDrawPrimitives2(&mut data);
        assert_eq!(data.dwVertexSize, codes::DDERR_OUTOFMEMORY);
        let e = last_error(d);
        assert!(
            e.starts_with("E_OUTOFMEMORY") && e.contains("MAX_BUFFER_BYTES"),
            "{e}"
        );
        assert_eq!(softhal_driver_destroy(d), OK);
    }
}

/// A SWAPCOMMANDBUFFER call with REQCOMMANDBUFSIZE renames the command
/// buffer to at least `dwReqCommandBufSize` bytes (D3DHAL_DRAWPRIMITIVES2DATA:
/// "the driver must be able to allocate a command buffer of at least the
/// size specified"; softhal allocates exactly that, 4096 > 64): the
/// surface's description reports the new size, as a lock does.
#[test]
fn surface_get_desc_reports_a_renamed_buffer_as_it_is() {
    let d = driver();
    let rt = surface(d, SOFTHAL_SURFACE_RENDERTARGET, 21, 8, 8);
    let cb = surface(d, SOFTHAL_SURFACE_COMMANDBUFFER, 0, 64, 1);
    let ctx = context(d, rt);
    write(cb, 0, &[8, 0, 1, 0, 22, 0, 0, 0, 1, 0, 0, 0]); // RENDERSTATE
    let mut data = dp2_data(ctx, cb, 12);
    data.dwFlags = 0x8 | 0x20; // SWAPCOMMANDBUFFER | REQCOMMANDBUFSIZE
    data.dwReqCommandBufSize = 4096;
    // SAFETY: valid pointers; the lock pointer is not used.
    unsafe {
        D3dDrawPrimitives2(&mut data);
        assert_eq!(data.dwVertexSize, codes::D3D_OK);
        let mut desc = MaybeUninit::<SOFTHAL_SURFACE_DESC>::uninit();
        assert_eq!(softhal_surface_get_desc(cb, desc.as_mut_ptr()), OK);
        let desc = desc.assume_init();
        let mut l = MaybeUninit::<SOFTHAL_LOCKED_SURFACE>::uninit();
        assert_eq!(
            softhal_surface_lock(cb, SOFTHAL_LOCK_READONLY, l.as_mut_ptr()),
            OK
        );
        let l = l.assume_init();
        assert_eq!(softhal_surface_unlock(cb), OK);
        assert_eq!((desc.dwWidth, l.dwSize), (4096, 4096));
        assert_eq!(desc.dwSize as usize, size_of::<SOFTHAL_SURFACE_DESC>());
        assert_eq!(softhal_driver_destroy(d), OK);
    }
}

// ---- GPU timeout, cancellation and thread counts (docs/c-api.md, "GPU
// timeout and cancellation"): `softhal_driver_create` refuses more than
// `SOFTHAL_MAX_THREADS`; a DP2 call whose work would run for tens of
// minutes is stopped by `softhal_driver_set_timeout` or by
// `softhal_driver_cancel` from another thread (while the driver's lock is
// held by the call waiting for the work); the context then answers
// `D3DDDIERR_DEVICEREMOVED`, and a new context draws correctly.

/// Render-target edge of the long call: 4096² pixels.
const EDGE: u32 = 4096;
/// 8192 blended full-screen triangles ≈ 1.4·10¹¹ pixels: tens of minutes
/// (finishing within `SLACK` would take 14 G blended pixels per second).
const TRIS: usize = 8192;
/// Generous bound on the stop beyond the budget (a loaded 2-core machine).
const SLACK: std::time::Duration = std::time::Duration::from_secs(10);
/// D3DFMT_A8R8G8B8.
const A8R8G8B8: u32 = 21;

fn destroy_context(ctx: usize) {
    let mut c = D3DHAL_CONTEXTDESTROYDATA {
        dwhContext: ctx,
        ddrval: -1,
    };
    // SAFETY: valid pointer to a local.
    let r = unsafe { D3dContextDestroy(&mut c) };
    assert_eq!(r, codes::DDHAL_DRIVER_HANDLED);
    assert_eq!(c.ddrval, OK);
}

/// One DrawPrimitives2 call: `src` (DP2 assembly) in a fresh command
/// buffer, user-memory XYZRHW|DIFFUSE vertices. Returns its ddrval.
fn dp2(d: *mut softhal_driver, ctx: usize, src: &str, verts: &[u8]) -> HRESULT {
    let cmds = softhal_wire::text::assemble(src).unwrap();
    let cb = surface(d, SOFTHAL_SURFACE_COMMANDBUFFER, 0, cmds.len() as u32, 1);
    write(cb, 0, &cmds);
    let mut data = dp2_data(ctx, cb, cmds.len() as u32);
    data.dwFlags = 1; // D3DHALDP2_USERMEMVERTICES
    data.dwVertexType = 0x44; // XYZRHW | DIFFUSE, stride 20
    data.lpDDVertex = verts.as_ptr() as *mut c_void;
    data.dwVertexLength = (verts.len() / 20) as u32;
    data.dwVertexSize = 20;
    // SAFETY: `verts` holds dwVertexLength vertices of 20 bytes.
    unsafe { D3dDrawPrimitives2(&mut data) };
    let r = data.dwVertexSize as HRESULT;
    // SAFETY: a live surface.
    unsafe { assert_eq!(softhal_surface_destroy(cb), OK) };
    r
}

fn tl(x: f32, y: f32, color: u32) -> Vec<u8> {
    let mut v = Vec::new();
    for f in [x, y, 0.5, 1.0] {
        v.extend_from_slice(&f.to_le_bytes());
    }
    v.extend_from_slice(&color.to_le_bytes());
    v
}

const NOCULL: &str = "RENDERSTATE { RenderState=D3DRS_CULLMODE dwState=D3DCULL_NONE }\n";

/// `TRIS` alpha-blended triangles, each covering the whole target.
fn long_call() -> (String, Vec<u8>) {
    let e = 2.0 * EDGE as f32;
    let tri: Vec<u8> = [(0.0, 0.0), (e, 0.0), (0.0, e)]
        .iter()
        .flat_map(|&(x, y)| tl(x, y, 0x80FF_FFFF))
        .collect();
    let src = format!(
        "{NOCULL}RENDERSTATE {{ RenderState=D3DRS_ALPHABLENDENABLE dwState=TRUE }} {{ RenderState=D3DRS_SRCBLEND dwState=D3DBLEND_SRCALPHA }} {{ RenderState=D3DRS_DESTBLEND dwState=D3DBLEND_INVSRCALPHA }}\nTRIANGLELIST count={TRIS} wVStart=0"
    );
    (src, tri.repeat(TRIS))
}

/// An opaque quad over the whole target in `color` (blending off).
fn full_quad(d: *mut softhal_driver, ctx: usize, color: u32) -> HRESULT {
    let e = EDGE as f32;
    let verts: Vec<u8> = [(0.0, 0.0), (e, 0.0), (0.0, e), (e, 0.0), (e, e), (0.0, e)]
        .iter()
        .flat_map(|&(x, y)| tl(x, y, color))
        .collect();
    dp2(
        d,
        ctx,
        &format!("{NOCULL}TRIANGLELIST count=2 wVStart=0"),
        &verts,
    )
}

/// RGBA8 pixel (x, y) of a render target through `softhal_present`.
fn pixel(rt: *mut softhal_surface, x: u32, y: u32) -> [u8; 4] {
    let pitch = 4 * EDGE;
    let mut px = vec![0u8; (pitch * EDGE) as usize];
    // SAFETY: `px` holds `size` writable bytes.
    let r = unsafe { softhal_present(rt, px.as_mut_ptr().cast(), pitch, px.len() as u32) };
    assert_eq!(r, OK);
    let i = (y * pitch + 4 * x) as usize;
    [px[i], px[i + 1], px[i + 2], px[i + 3]]
}

/// After the stop: the context answers DEVICEREMOVED; destroying it and
/// creating another on the same target recovers. By hand: an opaque RED
/// (A8R8G8B8 0xFFFF0000) quad over the whole target makes every pixel
/// RGBA (255, 0, 0, 255).
fn removed_then_recovered(d: *mut softhal_driver, rt: *mut softhal_surface, ctx: usize) {
    assert_eq!(
        full_quad(d, ctx, 0xFFFF_0000),
        hr(codes::D3DDDIERR_DEVICEREMOVED)
    );
    // No limit for the recovery draw: on a loaded machine a full-screen
    // quad could itself outlast a 200 ms budget.
    // SAFETY: a live driver.
    unsafe { assert_eq!(softhal_driver_set_timeout(d, 0), OK) };
    destroy_context(ctx);
    let ctx = context(d, rt);
    assert_eq!(full_quad(d, ctx, 0xFFFF_0000), OK);
    assert_eq!(pixel(rt, 0, 0), [255, 0, 0, 255]);
    assert_eq!(pixel(rt, EDGE - 1, EDGE - 1), [255, 0, 0, 255]);
}

#[test]
fn thread_counts_above_the_limit_are_refused() {
    for threads in [SOFTHAL_MAX_THREADS + 1, 100_000, u32::MAX] {
        let mut d = std::ptr::without_provenance_mut::<softhal_driver>(1);
        // SAFETY: `d` is a valid out-pointer.
        let r = unsafe { softhal_driver_create(threads, &mut d) };
        assert_eq!(r, hr(codes::DDERR_INVALIDPARAMS), "{threads}");
        assert!(d.is_null());
    }
    let mut d = null_mut();
    // SAFETY: `d` is a valid out-pointer.
    assert_eq!(unsafe { softhal_driver_create(2, &mut d) }, OK);
    // SAFETY: a live driver.
    assert_eq!(unsafe { softhal_driver_destroy(d) }, OK);
}

#[test]
fn a_timeout_stops_a_long_call_and_removes_its_context() {
    let mut d = null_mut();
    // SAFETY: valid out-pointer; then a live driver.
    unsafe {
        assert_eq!(softhal_driver_create(0, &mut d), OK);
        assert_eq!(softhal_driver_set_timeout(d, 200), OK);
        assert_eq!(
            softhal_driver_set_timeout(null_mut(), 200),
            hr(codes::E_INVALIDARG)
        );
    }
    let rt = surface(d, SOFTHAL_SURFACE_RENDERTARGET, A8R8G8B8, EDGE, EDGE);
    let ctx = context(d, rt);
    let (src, verts) = long_call();
    let t0 = std::time::Instant::now();
    // Returns with its work in flight; the next call waits for it.
    assert_eq!(dp2(d, ctx, &src, &verts), OK);
    removed_then_recovered(d, rt, ctx);
    let took = t0.elapsed();
    assert!(
        took < std::time::Duration::from_millis(200) + SLACK,
        "{took:?}"
    );
    // SAFETY: a live driver.
    unsafe { assert_eq!(softhal_driver_destroy(d), OK) };
}

#[test]
fn a_cancel_from_another_thread_stops_a_long_call() {
    let mut d = null_mut();
    // SAFETY: valid out-pointer; then a live driver.
    unsafe {
        assert_eq!(softhal_driver_create(0, &mut d), OK);
        assert_eq!(softhal_driver_set_timeout(d, 0), OK); // no limit
    }
    let rt = surface(d, SOFTHAL_SURFACE_RENDERTARGET, A8R8G8B8, EDGE, EDGE);
    let ctx = context(d, rt);
    let (src, verts) = long_call();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop = std::sync::Arc::clone(&done);
    let key = d as usize;
    // The host's other thread: cancels until the main thread is back (a
    // cancel before the work starts is dropped), while the main thread's
    // call holds the driver's lock waiting for the work.
    let host = std::thread::spawn(move || {
        while !stop.load(std::sync::atomic::Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(100));
            // SAFETY: the driver outlives this thread (joined first).
            let r = unsafe { softhal_driver_cancel(key as *mut softhal_driver) };
            assert_eq!(r, OK);
        }
    });
    let t0 = std::time::Instant::now();
    assert_eq!(dp2(d, ctx, &src, &verts), OK);
    let removed = full_quad(d, ctx, 0xFFFF_0000);
    let took = t0.elapsed();
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    host.join().unwrap();
    assert_eq!(removed, hr(codes::D3DDDIERR_DEVICEREMOVED));
    assert!(took < SLACK, "{took:?}");
    removed_then_recovered(d, rt, ctx);
    // SAFETY: a live driver.
    unsafe { assert_eq!(softhal_driver_destroy(d), OK) };
}

/// `softhal_assemble` / `softhal_disassemble`: the DP2 assembly language
/// from C, with the size protocol of a too-small buffer.
#[test]
fn assemble_and_disassemble_through_the_c_abi() {
    let src = "RENDERSTATE { RenderState=D3DRS_CULLMODE dwState=D3DCULL_NONE }\n";
    // The expected bytes, worked out by hand: a D3DHAL_DP2COMMAND header
    // (bCommand 8 = D3DDP2OP_RENDERSTATE, bReserved 0, wStateCount 1),
    // then one D3DHAL_DP2RENDERSTATE: RenderState 22 (D3DRS_CULLMODE),
    // dwState 1 (D3DCULL_NONE).
    let want: [u8; 12] = [8, 0, 1, 0, 22, 0, 0, 0, 1, 0, 0, 0];
    let mut out = [0u8; 64];
    let mut written = 0u32;
    // SAFETY: every pointer is to a live local with the length given.
    unsafe {
        // Too small: the size needed, nothing written.
        let r = softhal_assemble(
            src.as_ptr().cast(),
            src.len() as u32,
            out.as_mut_ptr().cast(),
            4,
            &mut written,
        );
        assert_eq!(r, hr(codes::D3DERR_MOREDATA));
        assert_eq!(written, 12);
        assert_eq!(out[0], 0);
        // Size 0 and a NULL buffer: the size protocol's first call.
        let r = softhal_assemble(
            src.as_ptr().cast(),
            src.len() as u32,
            null_mut(),
            0,
            &mut written,
        );
        assert_eq!((r, written), (hr(codes::D3DERR_MOREDATA), 12));
        let r = softhal_assemble(
            src.as_ptr().cast(),
            src.len() as u32,
            out.as_mut_ptr().cast(),
            64,
            &mut written,
        );
        assert_eq!(r, OK);
        assert_eq!(&out[..written as usize], &want);

        // Back to text.
        let mut text = [0u8; 256];
        let r = softhal_disassemble(
            want.as_ptr().cast(),
            12,
            0,
            text.as_mut_ptr().cast(),
            256,
            &mut written,
        );
        assert_eq!(r, OK);
        let n = written as usize;
        assert_eq!(text[n - 1], 0, "NUL-terminated");
        let t = std::str::from_utf8(&text[..n - 1]).unwrap();
        assert!(
            t.contains("D3DRS_CULLMODE") && t.contains("D3DCULL_NONE"),
            "{t}"
        );
        // The text assembles to the same bytes.
        let r = softhal_assemble(
            text.as_ptr().cast(),
            (n - 1) as u32,
            out.as_mut_ptr().cast(),
            64,
            &mut written,
        );
        assert_eq!(r, OK);
        assert_eq!(&out[..written as usize], &want);
        // Too small a text buffer: the size needed, with its NUL.
        let mut small = [0u8; 8];
        let r = softhal_disassemble(
            want.as_ptr().cast(),
            12,
            0,
            small.as_mut_ptr().cast(),
            8,
            &mut written,
        );
        assert_eq!((r, written as usize), (hr(codes::D3DERR_MOREDATA), n));
        assert_eq!(small, [0; 8]);

        // A stream cut inside its record: the commands before it and the
        // error, as a comment line.
        let r = softhal_disassemble(
            want.as_ptr().cast(),
            10,
            0,
            text.as_mut_ptr().cast(),
            256,
            &mut written,
        );
        assert_eq!(r, hr(codes::D3DERR_COMMAND_UNPARSED));
        let t = std::str::from_utf8(&text[..written as usize - 1]).unwrap();
        assert!(t.contains("; error at byte offset 0"), "{t}");

        // Text that does not assemble: the reason, with its line.
        let bad = "\nNOSUCHOP count=1\n";
        let r = softhal_assemble(
            bad.as_ptr().cast(),
            bad.len() as u32,
            out.as_mut_ptr().cast(),
            64,
            &mut written,
        );
        assert_eq!(r, hr(codes::D3DERR_COMMAND_UNPARSED));
        let msg = std::str::from_utf8(&out[..written as usize - 1]).unwrap();
        assert!(msg.starts_with("line 2: "), "{msg}");

        // Untrusted pointers and sizes.
        let inval = hr(codes::E_INVALIDARG);
        assert_eq!(
            softhal_assemble(null(), 4, out.as_mut_ptr().cast(), 64, &mut written),
            inval
        );
        assert_eq!(
            softhal_assemble(
                src.as_ptr().cast(),
                4,
                out.as_mut_ptr().cast(),
                64,
                null_mut()
            ),
            inval
        );
        let bad_utf8 = [0xffu8, 0xfe];
        assert_eq!(
            softhal_assemble(
                bad_utf8.as_ptr().cast(),
                2,
                out.as_mut_ptr().cast(),
                64,
                &mut written
            ),
            inval
        );
        assert_eq!(
            softhal_assemble(
                src.as_ptr().cast(),
                u32::MAX,
                out.as_mut_ptr().cast(),
                64,
                &mut written
            ),
            inval
        );
        assert_eq!(
            softhal_disassemble(null(), 4, 0, text.as_mut_ptr().cast(), 256, &mut written),
            inval
        );
        assert_eq!(
            softhal_disassemble(
                want.as_ptr().cast(),
                12,
                0,
                text.as_mut_ptr().cast(),
                256,
                null_mut()
            ),
            inval
        );
        assert_eq!(
            softhal_disassemble(
                want.as_ptr().cast(),
                u32::MAX,
                0,
                text.as_mut_ptr().cast(),
                256,
                &mut written
            ),
            inval
        );
        // An empty input is an empty stream / empty text.
        assert_eq!(softhal_assemble(null(), 0, null_mut(), 0, &mut written), OK);
        assert_eq!(written, 0);
        assert_eq!(
            softhal_disassemble(null(), 0, 0, text.as_mut_ptr().cast(), 256, &mut written),
            OK
        );
        assert_eq!((written, text[0]), (1, 0));
    }
}
