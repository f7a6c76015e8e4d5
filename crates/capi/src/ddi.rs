//! The DDI callbacks with the DDK's signatures: `D3dContextCreate`,
//! `D3dContextDestroy`, `D3dDrawPrimitives2`, `D3dClear2`,
//! `D3dValidateTextureStageState`.
//!
//! Each returns `DDHAL_DRIVER_HANDLED` with the result in `ddrval`, or
//! `DDHAL_DRIVER_NOTHANDLED` when the data pointer itself is null or
//! misaligned (there is nowhere to put a `ddrval`). A panic inside is caught
//! and reported as `D3DERR_DRIVERINTERNALERROR` in `ddrval`.
//!
//! Thread safety: callable from any thread. Calls naming contexts of one
//! driver are serialized by that driver's lock; calls on different drivers
//! run concurrently.

use crate::guard::{catch, host_copy, hr, valid, INTERNAL, INVALIDARG, INVALIDOBJECT};
use crate::objects::{self, ContextObj, SurfaceObj};
use crate::types::*;
use softhal_capture::Observer;
use softhal_device::{Clear2Data, DrawPrimitives2Data, ValidateTextureStageStateData};
use softhal_wire::names::codes;
use std::ptr::addr_of_mut;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

const HANDLED: u32 = codes::DDHAL_DRIVER_HANDLED;
const NOTHANDLED: u32 = codes::DDHAL_DRIVER_NOTHANDLED;

/// The surface behind `p` if it belongs to `ctx`'s driver.
fn own_surface(
    driver: &Arc<crate::objects::DriverObj>,
    p: usize,
) -> Result<Arc<SurfaceObj>, HRESULT> {
    if p == 0 {
        return Err(INVALIDARG);
    }
    match objects::surface(p) {
        Some(s) if Arc::ptr_eq(&s.driver, driver) => Ok(s),
        _ => Err(INVALIDOBJECT),
    }
}

/// `D3dContextCreate`: `lpDDGbl` = a `softhal_driver`, `lpDDS` = its
/// render-target surface, `lpDDSZ` = its depth surface or NULL. On
/// success `dwhContext` is set (never 0) and `ddrval = D3D_OK`.
/// Errors in `ddrval`: `DDERR_INVALIDPARAMS` (null driver or render
/// target), `DDERR_INVALIDOBJECT` (unknown or foreign object, wrong
/// kind), `D3DHAL_OUTOFCONTEXTS`, and the device's codes.
///
/// # Safety
/// `pcd` must be NULL or point to a readable and writable
/// `D3DHAL_CONTEXTCREATEDATA`, not accessed by anyone else during the call.
#[no_mangle]
pub unsafe extern "system" fn D3dContextCreate(pcd: *mut D3DHAL_CONTEXTCREATEDATA) -> u32 {
    if !valid(pcd) {
        return NOTHANDLED;
    }
    // SAFETY: checked non-null and aligned; the host guarantees it is a
    // valid D3DHAL_CONTEXTCREATEDATA for the call (plain data, any bits valid).
    let d = unsafe { pcd.read() };
    let result = catch(Err(INTERNAL), || -> Result<usize, HRESULT> {
        if d.lpDDGbl.is_null() {
            return Err(INVALIDARG);
        }
        let driver = objects::driver(d.lpDDGbl as usize).ok_or(INVALIDOBJECT)?;
        let rt = own_surface(&driver, d.lpDDS as usize)?;
        let z = if d.lpDDSZ.is_null() {
            None
        } else {
            Some(own_surface(&driver, d.lpDDSZ as usize)?)
        };
        let mut st = driver.lock();
        let depth = z.map(|z| z.handle);
        let r = st.driver.context_create(rt.handle, depth);
        if let Some(c) = st.capture.as_mut() {
            c.on_context_create(rt.handle, depth, &r);
        }
        let handle = r.map_err(|e| hr(softhal_device::Driver::context_create_ddrval(&e)))?;
        // Registered while the driver is locked (a capture starting on
        // another thread sees the context, or neither).
        let id = objects::add_context(ContextObj {
            driver: Arc::clone(&driver),
            handle,
        });
        drop(st);
        Ok(id)
    });
    let (ctx, ddrval) = match result {
        Ok(id) => (id, hr(codes::D3D_OK)),
        Err(e) => (0, e),
    };
    // SAFETY: pcd checked above; only the output fields are written.
    unsafe {
        addr_of_mut!((*pcd).dwhContext).write(ctx);
        addr_of_mut!((*pcd).ddrval).write(ddrval);
    }
    HANDLED
}

/// `D3dContextDestroy`: `ddrval = D3DHAL_CONTEXT_BAD` for an unknown
/// `dwhContext`.
///
/// # Safety
/// `pdd` must be NULL or point to a readable and writable
/// `D3DHAL_CONTEXTDESTROYDATA`.
#[no_mangle]
pub unsafe extern "system" fn D3dContextDestroy(pdd: *mut D3DHAL_CONTEXTDESTROYDATA) -> u32 {
    if !valid(pdd) {
        return NOTHANDLED;
    }
    // SAFETY: checked non-null and aligned; plain data.
    let d = unsafe { pdd.read() };
    let ddrval = catch(INTERNAL, || {
        let Some(c) = objects::context(d.dwhContext) else {
            return hr(codes::D3DHAL_CONTEXT_BAD);
        };
        let mut st = c.driver.lock();
        // Unregistered under the driver lock (see D3dContextCreate).
        if objects::remove_context(d.dwhContext).is_none() {
            return hr(codes::D3DHAL_CONTEXT_BAD);
        }
        let r = st.driver.context_destroy(c.handle);
        if let Some(cap) = st.capture.as_mut() {
            cap.on_context_destroy(c.handle, &r);
        }
        match r {
            Ok(()) => hr(codes::D3D_OK),
            Err(e) => hr(e.ddrval()),
        }
    });
    // SAFETY: pdd checked above.
    unsafe { addr_of_mut!((*pdd).ddrval).write(ddrval) };
    HANDLED
}

/// Outputs of a DP2 call.
struct Dp2Out {
    ddrval: HRESULT,
    offset: u32,
    flags: u32,
}

/// `D3dDrawPrimitives2` with the DDI's exact semantics (see
/// `softhal_device`'s crate docs and `docs/c-api.md`):
/// * `lpDDCommands` is a command-buffer `softhal_surface` of the context's
///   driver; `dwCommandOffset`/`dwCommandLength` select the commands.
/// * With `D3DHALDP2_USERMEMVERTICES`, `lpVertices` points to host memory
///   of which exactly `dwVertexOffset + dwVertexLength × dwVertexSize`
///   bytes are read (the DDK's valid data); a `dwVertexSize` smaller than
///   a vertex of a valid FVF `dwVertexType` is `D3DERR_INVALIDVERTEXFORMAT`
///   before anything is read. Otherwise `lpDDVertex` is a vertex-buffer surface (or
///   NULL; an unknown one counts as no vertex data).
/// * With `D3DHALDP2_EXECUTEBUFFER`, `lpdwRStates` (256 DWORDs, 4-aligned)
///   receives every render state processed.
/// * Out: `ddrval`, `dwErrorOffset` (from the start of the command
///   surface), `dwFlags`.
///
/// # Safety
/// `pd` must be NULL or point to a readable and writable
/// `D3DHAL_DRAWPRIMITIVES2DATA`; the user-memory vertices and
/// `lpdwRStates` described by it must be valid for the lengths above and
/// not modified by anyone else during the call.
#[no_mangle]
pub unsafe extern "system" fn D3dDrawPrimitives2(pd: *mut D3DHAL_DRAWPRIMITIVES2DATA) -> u32 {
    if !valid(pd) {
        return NOTHANDLED;
    }
    // SAFETY: checked non-null and aligned; plain data (pointers are only
    // used after their own checks below).
    let d = unsafe { pd.read() };
    let fail = |ddrval: HRESULT| Dp2Out {
        ddrval,
        offset: d.dwCommandOffset,
        flags: d.dwFlags,
    };
    let out = catch(fail(INTERNAL), || {
        // SAFETY: forwarded from this function's contract.
        unsafe { dp2(&d) }.unwrap_or_else(fail)
    });
    // SAFETY: pd checked above; only the output fields are written.
    unsafe {
        addr_of_mut!((*pd).dwVertexSize).write(out.ddrval as u32);
        addr_of_mut!((*pd).dwErrorOffset).write(out.offset);
        addr_of_mut!((*pd).dwFlags).write(out.flags);
    }
    HANDLED
}

/// The body of [`D3dDrawPrimitives2`]; `Err` = a call-level failure.
/// Every call that names a live context leaves its outcome for
/// `softhal_get_last_error` on that context's driver: a refusal here at
/// the boundary, or the device's own answer.
///
/// # Safety
/// As for [`D3dDrawPrimitives2`].
unsafe fn dp2(d: &D3DHAL_DRAWPRIMITIVES2DATA) -> Result<Dp2Out, HRESULT> {
    let ctx = objects::context(d.dwhContext).ok_or(hr(codes::D3DHAL_CONTEXT_BAD))?;
    // SAFETY: forwarded from this function's contract.
    unsafe { dp2_on(&ctx, d) }.map_err(|(code, why)| {
        ctx.driver.lock().boundary_error = Some(format!(
            "{} at offset {}: {why}",
            codes::format_hresult(code as u32),
            d.dwCommandOffset
        ));
        code
    })
}

/// [`dp2`] on a live context; `Err` = a refusal at the C boundary, with
/// its reason.
///
/// # Safety
/// As for [`D3dDrawPrimitives2`].
unsafe fn dp2_on(
    ctx: &ContextObj,
    d: &D3DHAL_DRAWPRIMITIVES2DATA,
) -> Result<Dp2Out, (HRESULT, String)> {
    let commands = own_surface(&ctx.driver, d.lpDDCommands as usize).map_err(|e| {
        (
            e,
            "lpDDCommands names no surface of this driver".to_string(),
        )
    })?;
    let user = d.dwFlags & softhal_device::D3DHALDP2_USERMEMVERTICES != 0;
    let vertex_size = d.dwVertexSize; // the union's input half, read first
    let mut vertex_surface = 0;
    let mut user_vertices: Option<Vec<u8>> = None;
    if user {
        // The DDK defines the valid user memory as dwVertexLength vertices
        // of dwVertexSize bytes from dwVertexOffset: that is all softhal
        // may read. A dwVertexSize smaller than a vertex of dwVertexType
        // contradicts the FVF (the draws would read vertices of the FVF's
        // stride beyond it): the call is refused before any byte is read.
        if let Ok(stride) = softhal_wire::fvf::vertex_stride(d.dwVertexType) {
            if d.dwVertexLength > 0 && vertex_size < stride {
                return Err((
                    hr(codes::D3DERR_INVALIDVERTEXFORMAT),
                    format!(
                        "dwVertexSize {vertex_size} is smaller than the {stride}-byte vertex of dwVertexType {:#x}",
                        d.dwVertexType
                    ),
                ));
            }
        }
        let len = u64::from(d.dwVertexLength)
            .checked_mul(u64::from(vertex_size))
            .and_then(|n| n.checked_add(u64::from(d.dwVertexOffset)))
            .ok_or((
                INVALIDARG,
                "dwVertexOffset + dwVertexLength × dwVertexSize overflows".to_string(),
            ))?;
        // User-memory vertices are a vertex buffer in the host's memory:
        // the vertex-buffer cap bounds the copy below.
        if len > softhal_device::limits::MAX_BUFFER_BYTES {
            return Err((
                hr(codes::DDERR_OUTOFMEMORY),
                format!(
                    "{len} bytes of user-memory vertices exceed MAX_BUFFER_BYTES ({})",
                    softhal_device::limits::MAX_BUFFER_BYTES
                ),
            ));
        }
        let bad_range = || {
            (
                INVALIDARG,
                "lpVertices is NULL or its range wraps".to_string(),
            )
        };
        let len = usize::try_from(len).map_err(|_| bad_range())?;
        if !d.lpDDVertex.is_null() || len == 0 {
            // SAFETY: the host gave lpVertices with dwVertexLength vertices
            // of dwVertexSize bytes after dwVertexOffset bytes (the DDK's
            // definition of the valid data); host_copy rejects wrapping
            // ranges. A null pointer with len 0 yields no bytes. The call
            // (and its capture record) use this one copy.
            user_vertices =
                Some(unsafe { host_copy(d.lpDDVertex as *const u8, len) }.ok_or_else(bad_range)?);
        }
    } else if !d.lpDDVertex.is_null() {
        if let Ok(s) = own_surface(&ctx.driver, d.lpDDVertex as usize) {
            vertex_surface = s.handle;
        }
    }
    let mut rstates = [0u32; 256];
    let want_rstates =
        d.dwFlags & softhal_device::D3DHALDP2_EXECUTEBUFFER != 0 && !d.lpdwRStates.is_null();
    if want_rstates {
        let misaligned = || (INVALIDARG, "lpdwRStates is not 4-aligned".to_string());
        if !valid(d.lpdwRStates) {
            return Err(misaligned());
        }
        // SAFETY: non-null, 4-aligned, and the DDI defines lpdwRStates as
        // D3DHAL_MAX_RSTATES (256) DWORDs the host owns for the call.
        let bytes =
            unsafe { host_copy(d.lpdwRStates.cast::<u8>(), 256 * 4) }.ok_or_else(misaligned)?;
        for (r, w) in rstates.iter_mut().zip(bytes.chunks_exact(4)) {
            *r = u32::from_ne_bytes([w[0], w[1], w[2], w[3]]);
        }
    }
    let mut st = ctx.driver.lock();
    let st = &mut *st;
    st.boundary_error = None; // the device answers this call
    let mut data = DrawPrimitives2Data::new(ctx.handle, commands.handle, d.dwCommandLength);
    data.dw_flags = d.dwFlags;
    data.dw_vertex_type = d.dwVertexType;
    data.dw_command_offset = d.dwCommandOffset;
    data.lp_dd_vertex = vertex_surface;
    data.lp_vertices = user_vertices.as_deref();
    data.dw_vertex_offset = d.dwVertexOffset;
    data.dw_vertex_length = d.dwVertexLength;
    data.dw_req_vertex_buf_size = d.dwReqVertexBufSize;
    data.dw_req_command_buf_size = d.dwReqCommandBufSize;
    data.lpdw_r_states = want_rstates.then_some(&mut rstates);
    data.ddrval = vertex_size;
    let call = st
        .capture
        .is_some()
        .then(|| Observer::<std::io::BufWriter<std::fs::File>>::dp2_call(&st.driver, &data));
    st.driver.draw_primitives2(&mut data);
    if let (Some(c), Some(call)) = (st.capture.as_mut(), call) {
        c.on_draw_primitives2(call, &data);
    }
    let out = Dp2Out {
        ddrval: hr(data.ddrval),
        offset: data.dw_error_offset,
        flags: data.dw_flags,
    };
    if want_rstates {
        // The host's array is written back whole, a DWORD at a time with
        // relaxed atomic stores (defined even if a guest shares the array).
        for (i, v) in rstates.iter().enumerate() {
            // SAFETY: as for the copy in: lpdwRStates is non-null, 4-aligned
            // and holds 256 DWORDs the host owns for the call; i < 256.
            unsafe { AtomicU32::from_ptr(d.lpdwRStates.add(i)) }.store(*v, Ordering::Relaxed);
        }
    }
    Ok(out)
}

/// Calls the host's `D3dParseUnknownCommand` on the command at the start
/// of `bytes`; returns the next command's offset from it.
pub(crate) fn call_hook(f: ParseUnknownCommandFn, bytes: &[u8]) -> Result<usize, ()> {
    let start = bytes.as_ptr() as *mut core::ffi::c_void;
    let mut next: *mut core::ffi::c_void = std::ptr::null_mut();
    // SAFETY: `f` is the host's function with the DDK signature (its
    // contract, stated when installed); `start` points to `bytes.len()`
    // readable bytes valid for the call (the hook must only read them) and
    // `next` is a valid out-pointer.
    let r = unsafe { f(start, &mut next) };
    if r < 0 {
        return Err(());
    }
    let off = (next as usize).checked_sub(start as usize).ok_or(())?;
    if off == 0 || off > bytes.len() {
        return Err(());
    }
    Ok(off)
}

/// `D3dClear2`: clears the context's render target / depth / stencil in
/// `dwNumRects` rectangles at `lpRects` (4-aligned; may be NULL when
/// `dwNumRects` is 0).
///
/// # Safety
/// `pcd` must be NULL or point to a readable and writable
/// `D3DHAL_CLEAR2DATA` whose `lpRects` holds `dwNumRects` `D3DRECT`s.
#[no_mangle]
pub unsafe extern "system" fn D3dClear2(pcd: *mut D3DHAL_CLEAR2DATA) -> u32 {
    if !valid(pcd) {
        return NOTHANDLED;
    }
    // SAFETY: checked non-null and aligned; plain data.
    let d = unsafe { pcd.read() };
    let ddrval = catch(INTERNAL, || {
        let Some(ctx) = objects::context(d.dwhContext) else {
            return hr(codes::D3DHAL_CONTEXT_BAD);
        };
        let n = d.dwNumRects as usize;
        if n > 0 && !valid(d.lpRects) {
            return INVALIDARG;
        }
        let Some(bytes) = n.checked_mul(core::mem::size_of::<D3DRECT>()) else {
            return INVALIDARG;
        };
        // SAFETY: the host gave dwNumRects D3DRECTs at lpRects (checked
        // non-null and aligned when n > 0); the length is checked.
        let Some(raw) = (unsafe { host_copy(d.lpRects as *const u8, bytes) }) else {
            return INVALIDARG;
        };
        let rects: Vec<[i32; 4]> = raw
            .chunks_exact(16)
            .map(|c| {
                let w = |i: usize| i32::from_ne_bytes([c[i], c[i + 1], c[i + 2], c[i + 3]]);
                [w(0), w(4), w(8), w(12)]
            })
            .collect();
        let mut data = Clear2Data {
            dwh_context: ctx.handle,
            dw_flags: d.dwFlags,
            dw_fill_color: d.dwFillColor,
            dv_fill_depth: d.dvFillDepth,
            dw_fill_stencil: d.dwFillStencil,
            lp_rects: &rects,
            ddrval: 0,
        };
        let mut st = ctx.driver.lock();
        st.driver.clear2(&mut data);
        if let Some(c) = st.capture.as_mut() {
            c.on_clear2(&data);
        }
        hr(data.ddrval)
    });
    // SAFETY: pcd checked above.
    unsafe { addr_of_mut!((*pcd).ddrval).write(ddrval) };
    HANDLED
}

/// `D3dValidateTextureStageState`: `dwNumPasses` = 1 and `D3D_OK` when the
/// context's cascade can be drawn, else a `D3DERR_UNSUPPORTED*` code.
///
/// # Safety
/// `pvtssd` must be NULL or point to a readable and writable
/// `D3DHAL_VALIDATETEXTURESTAGESTATEDATA`.
#[no_mangle]
pub unsafe extern "system" fn D3dValidateTextureStageState(
    pvtssd: *mut D3DHAL_VALIDATETEXTURESTAGESTATEDATA,
) -> u32 {
    if !valid(pvtssd) {
        return NOTHANDLED;
    }
    // SAFETY: checked non-null and aligned; plain data.
    let d = unsafe { pvtssd.read() };
    let (passes, ddrval) = catch((0, INTERNAL), || {
        let Some(ctx) = objects::context(d.dwhContext) else {
            return (0, hr(codes::D3DHAL_CONTEXT_BAD));
        };
        let mut data = ValidateTextureStageStateData {
            dwh_context: ctx.handle,
            dw_flags: d.dwFlags,
            dw_reserved: d.dwReserved as u32,
            ..Default::default()
        };
        let mut st = ctx.driver.lock();
        st.driver.validate_texture_stage_state(&mut data);
        if let Some(c) = st.capture.as_mut() {
            c.on_validate_texture_stage_state(&data);
        }
        (data.dw_num_passes, hr(data.ddrval))
    });
    // SAFETY: pvtssd checked above.
    unsafe {
        addr_of_mut!((*pvtssd).dwNumPasses).write(passes);
        addr_of_mut!((*pvtssd).ddrval).write(ddrval);
    }
    HANDLED
}
