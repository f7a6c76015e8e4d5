//! Helpers shared by the C ABI test files: a driver, surfaces, a context,
//! writes through a lock, and a DP2 call structure.

#![allow(unsafe_code, dead_code)]

use softhal::*;
use softhal_wire::names::codes;
use std::mem::{size_of, MaybeUninit};
use std::ptr::null_mut;

pub const OK: HRESULT = 0;
pub fn hr(c: u32) -> HRESULT {
    c as HRESULT
}

pub fn driver() -> *mut softhal_driver {
    let mut d = null_mut();
    // SAFETY: `d` is a valid out-pointer.
    assert_eq!(unsafe { softhal_driver_create(0, &mut d) }, OK);
    d
}

pub fn surface(
    d: *mut softhal_driver,
    kind: u32,
    format: u32,
    w: u32,
    h: u32,
) -> *mut softhal_surface {
    let desc = SOFTHAL_SURFACE_DESC {
        dwSize: size_of::<SOFTHAL_SURFACE_DESC>() as u32,
        dwKind: kind,
        dwFormat: format,
        dwWidth: w,
        dwHeight: h,
        dwDepth: 1,
        dwMipLevels: 1,
        dwHandle: 0,
    };
    let mut s = null_mut();
    // SAFETY: valid pointers to locals.
    assert_eq!(unsafe { softhal_surface_create(d, &desc, &mut s) }, OK);
    s
}

/// A `D3DHAL_CONTEXTCREATEDATA` for a context drawing into `rt`.
pub fn context_create_data(
    d: *mut softhal_driver,
    rt: *mut softhal_surface,
) -> D3DHAL_CONTEXTCREATEDATA {
    D3DHAL_CONTEXTCREATEDATA {
        lpDDGbl: d,
        lpDDS: rt,
        lpDDSZ: null_mut(),
        dwPID: 0,
        dwhContext: 0,
        ddrval: -1,
    }
}

pub fn context(d: *mut softhal_driver, rt: *mut softhal_surface) -> usize {
    let mut c = context_create_data(d, rt);
    // SAFETY: valid pointer to a local.
    let r = unsafe { D3dContextCreate(&mut c) };
    assert_eq!(r, codes::DDHAL_DRIVER_HANDLED);
    assert_eq!(c.ddrval, OK);
    c.dwhContext
}

pub fn write(s: *mut softhal_surface, at: usize, bytes: &[u8]) {
    let mut l = MaybeUninit::<SOFTHAL_LOCKED_SURFACE>::uninit();
    // SAFETY: valid out-pointer; the lock pointer is used within dwSize
    // before unlock.
    unsafe {
        assert_eq!(softhal_surface_lock(s, 0, l.as_mut_ptr()), OK);
        let l = l.assume_init();
        assert!(at + bytes.len() <= l.dwSize as usize);
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), l.pBits.cast::<u8>().add(at), bytes.len());
        assert_eq!(softhal_surface_unlock(s), OK);
    }
}

pub fn dp2_data(ctx: usize, cb: *mut softhal_surface, len: u32) -> D3DHAL_DRAWPRIMITIVES2DATA {
    D3DHAL_DRAWPRIMITIVES2DATA {
        dwhContext: ctx,
        dwFlags: 0,
        dwVertexType: 0,
        lpDDCommands: cb,
        dwCommandOffset: 0,
        dwCommandLength: len,
        lpDDVertex: null_mut(),
        dwVertexOffset: 0,
        dwVertexLength: 0,
        dwReqVertexBufSize: 0,
        dwReqCommandBufSize: 0,
        lpdwRStates: null_mut(),
        dwVertexSize: 0,
        dwErrorOffset: 0,
    }
}
