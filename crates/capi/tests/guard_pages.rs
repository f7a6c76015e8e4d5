//! Every host range the C ABI reads (or writes), placed so that it ends
//! exactly at an unmapped page: one byte beyond the range the DDK defines
//! is a SIGSEGV that kills the test binary, so each test passing shows
//! that softhal stays inside the range.
//!
//! The range here: user-memory vertices, `dwVertexLength × dwVertexSize`
//! bytes from `lpVertices` (`dwVertexOffset` included) — the DDK's
//! definition of the valid vertex data.
#![cfg(unix)]
#![allow(unsafe_code)]

use softhal::*;
use softhal_wire::names::codes;
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
