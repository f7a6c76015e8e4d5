//! Every host range the C ABI reads (or writes), placed so that it ends
//! exactly at an unmapped page: one byte beyond the range the DDK defines
//! is a SIGSEGV that kills the test binary, so each test passing shows
//! that softhal stays inside the range.
//!
//! The ranges (the audit of `crates/capi`, `docs/threat-model.md` T2):
//! user-memory vertices (`dwVertexLength × dwVertexSize` bytes from
//! `lpVertices`, `dwVertexOffset` included), `lpdwRStates` (256 DWORDs),
//! `D3dClear2`'s `lpRects` (`dwNumRects` `D3DRECT`s), the DDI call
//! structures themselves, softhal's own in and out structures, a capture
//! path (up to its NUL), the output buffers of `softhal_present` and
//! `softhal_get_last_error`, shorter versions of softhal's versioned
//! structures (`dwSize`), and the render callback's `D3DDDICB_RENDER`
//! (its Vista-level prefix; the command buffer and lists it submits are
//! softhal's own, handed out to the host, so no host buffer is read). DP2 command and index data live in softhal
//! surfaces, not in host memory; the unknown-command hook is handed
//! softhal's own copy of the commands.
#![cfg(unix)]
#![allow(unsafe_code)]

use softhal::*;
use softhal_wire::names::codes;
use std::ffi::c_void;
use std::mem::size_of;
use std::ptr::null_mut;

mod common;
use common::*;

/// Two pages: the first readable and writable, the second unmapped
/// (`PROT_NONE`). [`Guarded::place`] puts bytes so that they end exactly
/// at the boundary.
struct Guarded {
    base: *mut u8,
    page: usize,
}

impl Guarded {
    fn new() -> Self {
        // SAFETY: plain libc calls; the result is checked.
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE) as usize;
            let base = libc::mmap(
                null_mut(),
                2 * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(base, libc::MAP_FAILED);
            let base = base.cast::<u8>();
            assert_eq!(
                libc::mprotect(base.add(page).cast(), page, libc::PROT_NONE),
                0
            );
            Guarded { base, page }
        }
    }

    /// Copies `bytes` to the end of the readable page; returns where they
    /// start. The byte after the last one is unmapped.
    fn place(&mut self, bytes: &[u8]) -> *mut u8 {
        assert!(bytes.len() <= self.page);
        // SAFETY: the range [page - len, page) is inside the mapped page.
        unsafe {
            let p = self.base.add(self.page - bytes.len());
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
            p
        }
    }

    /// Writes `v` so that it ends at the boundary; returns its address.
    fn place_value<T: Copy>(&mut self, v: T) -> *mut T {
        assert!(size_of::<T>() <= self.page);
        // SAFETY: the range is inside the mapped page; the address is
        // checked to be aligned for T before the write.
        unsafe {
            let p = self.base.add(self.page - size_of::<T>()).cast::<T>();
            assert!(p.is_aligned());
            p.write(v);
            p
        }
    }

    /// Reads back `len` bytes ending at the boundary.
    fn tail(&self, len: usize) -> Vec<u8> {
        // SAFETY: inside the mapped page.
        unsafe { std::slice::from_raw_parts(self.base.add(self.page - len), len).to_vec() }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // SAFETY: the mapping made in new().
        unsafe { libc::munmap(self.base.cast(), 2 * self.page) };
    }
}

/// The render target's pixels as 0xAARRGGBB (8×8).
fn pixels(rt: *mut softhal_surface) -> Vec<u32> {
    let mut px = vec![0u8; 8 * 8 * 4];
    // SAFETY: `px` has the size given.
    let r = unsafe { softhal_present(rt, px.as_mut_ptr().cast(), 32, px.len() as u32) };
    assert_eq!(r, OK);
    px.chunks_exact(4)
        .map(|p| u32::from_be_bytes([p[3], p[0], p[1], p[2]]))
        .collect()
}

/// A D3DFVF_XYZRHW | D3DFVF_DIFFUSE vertex (20 bytes).
fn tl_vertex(x: f32, y: f32, color: u32) -> Vec<u8> {
    [x, y, 0.5, 1.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .chain(color.to_le_bytes())
        .collect()
}

/// D3DDP2OP_TRIANGLELIST (opcode 18 = 0x12), one triangle from vertex 0:
/// header {bCommand, bReserved, wPrimitiveCount = 1}, then
/// D3DHAL_DP2TRIANGLELIST {wVStart = 0}.
const ONE_TRIANGLE: [u8; 6] = [18, 0, 1, 0, 0, 0];

/// A triangle covering the whole 8×8 target (its top-left half and more).
fn covering_triangle(color: u32) -> Vec<u8> {
    [(-1.0, -1.0), (20.0, -1.0), (-1.0, 20.0)]
        .iter()
        .flat_map(|&(x, y)| tl_vertex(x, y, color))
        .collect()
}

/// A driver with an 8×8 render target, a context on it, and a command
/// buffer holding [`ONE_TRIANGLE`]; the DP2 call for it with user-memory
/// D3DFVF_XYZRHW | D3DFVF_DIFFUSE vertices at `vertices`.
fn one_triangle_call(
    vertices: *mut u8,
) -> (
    *mut softhal_driver,
    *mut softhal_surface,
    D3DHAL_DRAWPRIMITIVES2DATA,
) {
    let d = driver();
    let rt = surface(d, SOFTHAL_SURFACE_RENDERTARGET, 21, 8, 8);
    let cb = surface(d, SOFTHAL_SURFACE_COMMANDBUFFER, 0, 64, 1);
    let ctx = context(d, rt);
    write(cb, 0, &ONE_TRIANGLE);
    let mut data = dp2_data(ctx, cb, ONE_TRIANGLE.len() as u32);
    data.dwFlags = 1; // D3DHALDP2_USERMEMVERTICES
    data.dwVertexType = 0x44; // D3DFVF_XYZRHW | D3DFVF_DIFFUSE: 16 + 4 = 20 bytes
    data.lpDDVertex = vertices.cast();
    data.dwVertexLength = 3;
    (d, rt, data)
}

/// `dwVertexSize` smaller than the FVF's vertex: the host gave only
/// `dwVertexLength × dwVertexSize` bytes (the DDK's valid data), which end
/// at the unmapped page. softhal must not read the `dwVertexLength ×
/// stride` bytes the FVF would imply: the call is refused with
/// D3DERR_INVALIDVERTEXFORMAT before any byte is read, and nothing is
/// drawn. (Before the fix this read 60 bytes from a 36-byte range: SIGSEGV.)
#[test]
fn user_vertices_with_dw_vertex_size_below_the_fvf_stride_are_refused_unread() {
    let mut g = Guarded::new();
    // 3 vertices × dwVertexSize 12 = 36 bytes are all the host has.
    let (d, rt, mut data) = one_triangle_call(g.place(&[0x55u8; 36]));
    data.dwVertexSize = 12;
    // SAFETY: lpVertices holds dwVertexLength × dwVertexSize bytes.
    unsafe { D3dDrawPrimitives2(&mut data) };
    assert_eq!(data.dwVertexSize, codes::D3DERR_INVALIDVERTEXFORMAT);
    assert_eq!(data.dwErrorOffset, 0, "no command was handled");
    assert!(pixels(rt).iter().all(|&c| c == 0), "nothing drawn");
    // SAFETY: valid driver.
    unsafe { assert_eq!(softhal_driver_destroy(d), OK) };
}

/// The exact range: `dwVertexOffset` bytes of padding, then 3 vertices of
/// `dwVertexSize` = 20 bytes, ending at the unmapped page. The triangle
/// covers the target, so every pixel takes its colour 0xFF00FF00.
#[test]
fn user_vertices_are_read_exactly_to_dw_vertex_offset_plus_length_times_size() {
    let mut g = Guarded::new();
    let mut bytes = vec![0xEEu8; 8]; // dwVertexOffset = 8
    bytes.extend(covering_triangle(0xFF00_FF00));
    let (d, rt, mut data) = one_triangle_call(g.place(&bytes));
    data.dwVertexOffset = 8;
    data.dwVertexSize = 20;
    // SAFETY: lpVertices holds dwVertexOffset + 3 × 20 bytes.
    unsafe { D3dDrawPrimitives2(&mut data) };
    assert_eq!(data.dwVertexSize, codes::D3D_OK);
    assert!(pixels(rt).iter().all(|&c| c == 0xFF00_FF00));
    // SAFETY: valid driver.
    unsafe { assert_eq!(softhal_driver_destroy(d), OK) };
}

/// `lpdwRStates` is D3DHAL_MAX_RSTATES = 256 DWORDs: the array ends at the
/// unmapped page, and the RENDERSTATE the call processes is mirrored into
/// it (D3DRS_CULLMODE = 22 set to D3DCULL_NONE = 1) while the last slot
/// (255) keeps the host's value.
#[test]
fn lpdw_rstates_is_read_and_written_within_its_256_dwords() {
    let d = driver();
    let rt = surface(d, SOFTHAL_SURFACE_RENDERTARGET, 21, 8, 8);
    let cb = surface(d, SOFTHAL_SURFACE_COMMANDBUFFER, 0, 64, 1);
    let ctx = context(d, rt);
    // D3DDP2OP_RENDERSTATE (8), one D3DHAL_DP2RENDERSTATE {22, 1}.
    let cmds = [8u8, 0, 1, 0, 22, 0, 0, 0, 1, 0, 0, 0];
    write(cb, 0, &cmds);
    let mut g = Guarded::new();
    let init: Vec<u8> = (0..256u32)
        .flat_map(|i| (0xA000 + i).to_ne_bytes())
        .collect();
    let p = g.place(&init).cast::<u32>();
    let mut data = dp2_data(ctx, cb, cmds.len() as u32);
    data.dwFlags = 2; // D3DHALDP2_EXECUTEBUFFER
    data.lpdwRStates = p;
    // SAFETY: lpdwRStates holds 256 DWORDs.
    unsafe { D3dDrawPrimitives2(&mut data) };
    assert_eq!(data.dwVertexSize, codes::D3D_OK);
    let out: Vec<u32> = g
        .tail(1024)
        .chunks_exact(4)
        .map(|c| u32::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(out[22], 1);
    assert_eq!(out[255], 0xA000 + 255);
    // SAFETY: valid driver.
    unsafe { assert_eq!(softhal_driver_destroy(d), OK) };
}

/// `D3dClear2` reads exactly `dwNumRects` D3DRECTs: two 4×4 rects ending at
/// the unmapped page clear 2 × 16 = 32 of the 64 pixels to the fill colour.
#[test]
fn clear2_rects_are_read_within_dw_num_rects() {
    let d = driver();
    let rt = surface(d, SOFTHAL_SURFACE_RENDERTARGET, 21, 8, 8);
    let ctx = context(d, rt);
    let mut g = Guarded::new();
    let rects: Vec<u8> = [[0i32, 0, 4, 4], [4, 4, 8, 8]]
        .iter()
        .flatten()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    let p = g.place(&rects).cast::<D3DRECT>();
    let mut c = D3DHAL_CLEAR2DATA {
        dwhContext: ctx,
        dwFlags: 1, // D3DCLEAR_TARGET
        dwFillColor: 0xFFFF_0000,
        dvFillDepth: 1.0,
        dwFillStencil: 0,
        lpRects: p,
        dwNumRects: 2,
        ddrval: -1,
    };
    // SAFETY: lpRects holds dwNumRects rects.
    unsafe { D3dClear2(&mut c) };
    assert_eq!(c.ddrval, OK);
    let px = pixels(rt);
    assert_eq!(px.iter().filter(|&&c| c == 0xFFFF_0000).count(), 32);
    assert_eq!((px[0], px[63], px[7]), (0xFFFF_0000, 0xFFFF_0000, 0));
    // SAFETY: valid driver.
    unsafe { assert_eq!(softhal_driver_destroy(d), OK) };
}

/// The call structures themselves are read and written only within their
/// `sizeof`: each ends at the unmapped page.
#[test]
fn ddi_call_structures_are_accessed_within_their_size() {
    let d = driver();
    let rt = surface(d, SOFTHAL_SURFACE_RENDERTARGET, 21, 8, 8);
    let cb = surface(d, SOFTHAL_SURFACE_COMMANDBUFFER, 0, 64, 1);
    let mut g = Guarded::new();
    // SAFETY: every pointer names a whole structure inside the mapping.
    unsafe {
        let c = g.place_value(context_create_data(d, rt));
        assert_eq!(D3dContextCreate(c), codes::DDHAL_DRIVER_HANDLED);
        assert_eq!((*c).ddrval, OK);
        let ctx = (*c).dwhContext;
        write(cb, 0, &ONE_TRIANGLE[..0]);
        let p = g.place_value(dp2_data(ctx, cb, 0));
        assert_eq!(D3dDrawPrimitives2(p), codes::DDHAL_DRIVER_HANDLED);
        assert_eq!((*p).dwVertexSize, codes::D3D_OK);
        let p = g.place_value(D3DHAL_CLEAR2DATA {
            dwhContext: ctx,
            dwFlags: 1,
            dwFillColor: 0xFF00_00FF,
            dvFillDepth: 1.0,
            dwFillStencil: 0,
            lpRects: null_mut(),
            dwNumRects: 0,
            ddrval: -1,
        });
        assert_eq!(D3dClear2(p), codes::DDHAL_DRIVER_HANDLED);
        assert_eq!((*p).ddrval, OK);
        let p = g.place_value(D3DHAL_VALIDATETEXTURESTAGESTATEDATA {
            dwhContext: ctx,
            dwFlags: 0,
            dwReserved: 0,
            dwNumPasses: 0,
            ddrval: -1,
        });
        assert_eq!(D3dValidateTextureStageState(p), codes::DDHAL_DRIVER_HANDLED);
        assert_eq!(((*p).ddrval, (*p).dwNumPasses), (OK, 1));
        let p = g.place_value(D3DHAL_CONTEXTDESTROYDATA {
            dwhContext: ctx,
            ddrval: -1,
        });
        assert_eq!(D3dContextDestroy(p), codes::DDHAL_DRIVER_HANDLED);
        assert_eq!((*p).ddrval, OK);
        assert_eq!(softhal_driver_destroy(d), OK);
    }
}

/// softhal's own in and out structures, each ending at the unmapped page:
/// SOFTHAL_SURFACE_DESC (in and out), SOFTHAL_LOCKED_SURFACE, SOFTHAL_CAPS,
/// the out-pointers of create calls, `*needed` and `*allocation`.
#[test]
fn softhal_structures_are_accessed_within_their_size() {
    let d = driver();
    let mut g = Guarded::new();
    // SAFETY: every pointer names a whole value inside the mapping.
    unsafe {
        let desc = g.place_value(SOFTHAL_SURFACE_DESC {
            dwSize: size_of::<SOFTHAL_SURFACE_DESC>() as u32,
            dwKind: SOFTHAL_SURFACE_VERTEXBUFFER,
            dwFormat: 0,
            dwWidth: 64,
            dwHeight: 1,
            dwDepth: 1,
            dwMipLevels: 1,
            dwHandle: 0,
        });
        let mut h = Guarded::new();
        let out = h.place_value::<*mut softhal_surface>(null_mut());
        assert_eq!(softhal_surface_create(d, desc, out), OK);
        let s = *out;
        let got = g.place_value(SOFTHAL_SURFACE_DESC { dwSize: 0, ..*desc });
        assert_eq!(softhal_surface_get_desc(s, got), OK);
        assert_eq!((*got).dwWidth, 64);
        let l = g.place_value(SOFTHAL_LOCKED_SURFACE {
            pBits: null_mut(),
            dwPitch: 0,
            dwSize: 0,
        });
        assert_eq!(softhal_surface_lock(s, 0, l), OK);
        assert_eq!((*l).dwSize, 64);
        assert_eq!(softhal_surface_unlock(s), OK);
        let a = h.place_value(0u32);
        assert_eq!(softhal_surface_get_allocation(s, a), OK);
        assert_ne!(*a, 0);
        let mut caps: SOFTHAL_CAPS = std::mem::zeroed();
        caps.dwSize = size_of::<SOFTHAL_CAPS>() as u32;
        let caps = g.place_value(caps);
        assert_eq!(softhal_get_caps(d, caps), OK);
        assert_ne!((*caps).MaxTextureWidth, 0);
        assert_eq!(softhal_driver_destroy(d), OK);
    }
}

/// `softhal_present` writes exactly `size` bytes (rows `pitch` apart) and
/// `softhal_get_last_error` at most `size` bytes: both buffers end at the
/// unmapped page.
#[test]
fn output_buffers_are_written_within_their_size() {
    let d = driver();
    let rt = surface(d, SOFTHAL_SURFACE_RENDERTARGET, 21, 8, 8);
    let cb = surface(d, SOFTHAL_SURFACE_COMMANDBUFFER, 0, 64, 1);
    let ctx = context(d, rt);
    // An unknown opcode (0xEE) fails the call: there is a last error.
    write(cb, 0, &[0xEE, 0, 0, 0]);
    let mut data = dp2_data(ctx, cb, 4);
    // SAFETY: no host ranges besides the structure.
    unsafe { D3dDrawPrimitives2(&mut data) };
    assert_eq!(data.dwVertexSize, codes::D3DERR_COMMAND_UNPARSED);
    let mut g = Guarded::new();
    let mut n = Guarded::new();
    // SAFETY: each buffer holds the size given.
    unsafe {
        let buf = g.place(&[0xAA; 16]);
        let needed = n.place_value(0u32);
        assert_eq!(softhal_get_last_error(d, buf.cast(), 16, needed), OK);
        let text = g.tail(16);
        assert_eq!(text[15], 0, "truncated and NUL-terminated");
        assert!(*needed > 16);
        let px = g.place(&[0u8; 8 * 8 * 4]);
        assert_eq!(softhal_present(rt, px.cast(), 32, 256), OK);
        // One byte short: refused, nothing written beyond.
        let px = g.place(&[0u8; 255]);
        assert_eq!(
            softhal_present(rt, px.cast(), 32, 255),
            hr(codes::E_INVALIDARG)
        );
        assert_eq!(softhal_driver_destroy(d), OK);
    }
}

/// A capture path is read up to its NUL, which is the last byte before
/// the unmapped page.
#[test]
fn capture_path_is_read_up_to_its_nul() {
    let dir = std::env::temp_dir().join(format!("softhal-guard-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("guard.shcap");
    let mut bytes = path.to_str().unwrap().as_bytes().to_vec();
    bytes.push(0);
    let d = driver();
    let mut g = Guarded::new();
    let p = g.place(&bytes);
    // SAFETY: a NUL-terminated string inside the mapping.
    unsafe {
        assert_eq!(softhal_capture_start(d, p.cast()), OK);
        assert_eq!(softhal_capture_stop(d), OK);
        assert_eq!(softhal_driver_destroy(d), OK);
    }
    assert!(std::fs::metadata(&path).unwrap().len() > 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The render callback reads and writes only the Vista-level prefix of
/// `D3DDDICB_RENDER` (x64: up to `QueuedBufferCount`, 600 bytes with its
/// padding), which here ends at the unmapped page, and reads no host
/// buffer at all: the `pNew*` fields are outputs, so pointing them into
/// the unmapped page changes nothing. The submission (two NOP packets) is
/// written into the default context's buffers softhal handed out.
#[test]
#[cfg(target_pointer_width = "64")]
fn render_cb_touches_only_the_vista_prefix_and_no_host_buffer() {
    const PREFIX: usize = 600;
    assert_eq!(
        std::mem::offset_of!(D3DDDICB_RENDER, QueuedBufferCount) + 4,
        596
    );
    let d = driver();
    let mut g = Guarded::new();
    let unmapped = g.place(&[]).cast::<c_void>(); // the first unmapped byte
    let p = g.place(&[0u8; PREFIX]).cast::<D3DDDICB_RENDER>();
    // SAFETY: softhal_render_context_get_buffers and softhal_render_cb
    // touch only the prefix, which is mapped; the NOPs go into buffers
    // softhal handed out, within their sizes.
    unsafe {
        assert_eq!(softhal_render_context_get_buffers(d, null_mut(), p), OK);
        let buf = std::ptr::addr_of!((*p).pNewCommandBuffer)
            .read()
            .cast::<u32>();
        buf.write(0x0001_0001);
        buf.add(1).write(0x0001_0001);
        std::ptr::addr_of_mut!((*p).CommandLength).write(8);
        std::ptr::addr_of_mut!((*p).pNewCommandBuffer).write(unmapped);
        std::ptr::addr_of_mut!((*p).pNewAllocationList).write(unmapped.cast());
        std::ptr::addr_of_mut!((*p).pNewPatchLocationList).write(unmapped.cast());
        assert_eq!(softhal_render_cb(d.cast(), p), OK);
        assert_eq!(
            std::ptr::addr_of!((*p).pNewCommandBuffer).read(),
            buf.cast(),
            "the buffers in force"
        );
        assert_eq!(softhal_driver_destroy(d), OK);
    }
}

/// A host built against another layout passes a shorter
/// SOFTHAL_SURFACE_DESC / SOFTHAL_CAPS whose `dwSize` says so: softhal
/// reads `dwSize` alone and refuses (`E_INVALIDARG`) without touching the
/// bytes the host does not have — here the structure's last DWORD would
/// lie in the unmapped page. (`softhal_surface_create` used to read the
/// whole structure before looking at `dwSize`; a release build happened
/// not to load the unused fields, so this passed there too.)
#[test]
fn a_shorter_structure_is_refused_after_reading_only_its_dw_size() {
    let d = driver();
    let mut g = Guarded::new();
    let mut out = Guarded::new();
    let short = size_of::<SOFTHAL_SURFACE_DESC>() - 4;
    let mut bytes = vec![0u8; short];
    bytes[..4].copy_from_slice(&(short as u32).to_ne_bytes());
    // SAFETY: the pointers name `short` mapped bytes, which is all softhal
    // may read; the out-pointer is a whole value.
    unsafe {
        let desc = g.place(&bytes).cast::<SOFTHAL_SURFACE_DESC>();
        let s = out.place_value::<*mut softhal_surface>(null_mut());
        assert_eq!(softhal_surface_create(d, desc, s), hr(codes::E_INVALIDARG));
        assert!((*s).is_null());
        let short = size_of::<SOFTHAL_CAPS>() - 4;
        let mut bytes = vec![0u8; short];
        bytes[..4].copy_from_slice(&(short as u32).to_ne_bytes());
        let caps = g.place(&bytes).cast::<SOFTHAL_CAPS>();
        assert_eq!(softhal_get_caps(d, caps), hr(codes::E_INVALIDARG));
        // An API 2.0 host's SOFTHAL_CAPS (144 bytes, up to Queries) is
        // filled and nothing past it is touched (the next byte is
        // unmapped): VertexShaderVersion at offset 116 is
        // D3DVS_VERSION(3, 0) = 0xFFFE0300.
        let mut bytes = vec![0u8; SOFTHAL_CAPS_SIZE_2_0 as usize];
        bytes[..4].copy_from_slice(&SOFTHAL_CAPS_SIZE_2_0.to_ne_bytes());
        let caps = g.place(&bytes).cast::<SOFTHAL_CAPS>();
        assert_eq!(softhal_get_caps(d, caps), OK);
        let vs = caps.cast::<u8>().add(116).cast::<u32>().read_unaligned();
        assert_eq!(vs, 0xFFFE_0300);
        assert_eq!(softhal_driver_destroy(d), OK);
    }
}
