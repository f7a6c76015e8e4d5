//! softhal's own functions: drivers, surfaces, lock/unlock, flip/present,
//! the `D3dParseUnknownCommand` hook, caps, diagnostics, capture, and the
//! `pfnRenderCb`-shaped submission entry.
//!
//! Conventions: every function returns an `HRESULT` (`D3D_OK` = 0 on
//! success); out-pointers must be non-null and aligned and are written
//! only on success (except that `*out` object pointers are set to NULL
//! first); a null or misaligned pointer is `E_INVALIDARG`; a pointer that
//! does not name a live softhal object is `DDERR_INVALIDOBJECT`; a caught
//! panic is `D3DERR_DRIVERINTERNALERROR`.

use crate::guard::{catch, host_bytes_mut, hr, valid, INTERNAL, INVALIDARG, INVALIDOBJECT};
use crate::objects::{self, DriverObj, Shadow, SurfaceObj};
use crate::types::*;
use softhal_device::{Driver, LockFlags, SurfaceDesc, SurfaceKind};
use softhal_wire::names::codes;
use std::ffi::{c_char, c_void};
use std::sync::{Arc, Mutex};

const OK: HRESULT = hr(codes::D3D_OK);

fn driver_of(p: *mut softhal_driver) -> Result<Arc<DriverObj>, HRESULT> {
    if p.is_null() {
        return Err(INVALIDARG);
    }
    objects::driver(p as usize).ok_or(INVALIDOBJECT)
}

fn surface_of(p: *mut softhal_surface) -> Result<Arc<SurfaceObj>, HRESULT> {
    if p.is_null() {
        return Err(INVALIDARG);
    }
    objects::surface(p as usize).ok_or(INVALIDOBJECT)
}

fn run(f: impl FnOnce() -> Result<(), HRESULT>) -> HRESULT {
    catch(INTERNAL, || f().err().unwrap_or(OK))
}

/// The API version this library implements (`SOFTHAL_API_VERSION`).
/// Thread-safe.
#[no_mangle]
pub extern "C" fn softhal_version() -> u32 {
    SOFTHAL_API_VERSION
}

/// Creates a driver rendering with `threads` worker threads (0 or 1: on
/// the calling thread). `*out` receives the driver, owned by the host
/// until [`softhal_driver_destroy`]. Thread-safe.
///
/// # Safety
/// `out` must be NULL or point to a writable `softhal_driver *`.
#[no_mangle]
pub unsafe extern "C" fn softhal_driver_create(
    threads: u32,
    out: *mut *mut softhal_driver,
) -> HRESULT {
    if !valid(out) {
        return INVALIDARG;
    }
    // SAFETY: checked non-null and aligned; the host owns the slot.
    unsafe { out.write(std::ptr::null_mut()) };
    run(|| {
        let driver = Driver::new(threads as usize).map_err(|e| hr(e.ddrval()))?;
        let key = objects::add_driver(Arc::new(DriverObj::new(driver)));
        // SAFETY: as above.
        unsafe { out.write(key as *mut softhal_driver) };
        Ok(())
    })
}

/// Destroys a driver and with it every surface and context it owns (their
/// pointers and `dwhContext`s become invalid; pointers returned by
/// `softhal_surface_lock` on its surfaces dangle). Calls already running on
/// it on other threads finish first. Thread-safe.
///
/// # Safety
/// None beyond passing a value: `driver` is only looked up, never
/// dereferenced.
#[no_mangle]
pub unsafe extern "C" fn softhal_driver_destroy(driver: *mut softhal_driver) -> HRESULT {
    run(|| {
        if driver.is_null() {
            return Err(INVALIDARG);
        }
        let d = objects::remove_driver(driver as usize).ok_or(INVALIDOBJECT)?;
        // Wait for calls in flight before the last reference goes.
        drop(d.lock());
        Ok(())
    })
}

fn kind_of(k: u32) -> Option<SurfaceKind> {
    Some(match k {
        SOFTHAL_SURFACE_RENDERTARGET => SurfaceKind::RenderTarget,
        SOFTHAL_SURFACE_DEPTHSTENCIL => SurfaceKind::DepthStencil,
        SOFTHAL_SURFACE_TEXTURE => SurfaceKind::Texture,
        SOFTHAL_SURFACE_CUBETEXTURE => SurfaceKind::CubeTexture,
        SOFTHAL_SURFACE_VOLUMETEXTURE => SurfaceKind::VolumeTexture,
        SOFTHAL_SURFACE_VERTEXBUFFER => SurfaceKind::VertexBuffer { implicit: false },
        SOFTHAL_SURFACE_IMPLICITVERTEXBUFFER => SurfaceKind::VertexBuffer { implicit: true },
        SOFTHAL_SURFACE_INDEXBUFFER => SurfaceKind::IndexBuffer,
        SOFTHAL_SURFACE_COMMANDBUFFER => SurfaceKind::CommandBuffer,
        _ => return None,
    })
}

fn kind_code(k: SurfaceKind) -> u32 {
    match k {
        SurfaceKind::RenderTarget => SOFTHAL_SURFACE_RENDERTARGET,
        SurfaceKind::DepthStencil => SOFTHAL_SURFACE_DEPTHSTENCIL,
        SurfaceKind::Texture => SOFTHAL_SURFACE_TEXTURE,
        SurfaceKind::CubeTexture => SOFTHAL_SURFACE_CUBETEXTURE,
        SurfaceKind::VolumeTexture => SOFTHAL_SURFACE_VOLUMETEXTURE,
        SurfaceKind::VertexBuffer { implicit: false } => SOFTHAL_SURFACE_VERTEXBUFFER,
        SurfaceKind::VertexBuffer { implicit: true } => SOFTHAL_SURFACE_IMPLICITVERTEXBUFFER,
        SurfaceKind::IndexBuffer => SOFTHAL_SURFACE_INDEXBUFFER,
        SurfaceKind::CommandBuffer => SOFTHAL_SURFACE_COMMANDBUFFER,
    }
}

/// Creates a surface of `driver` from `*desc` (`dwSize` must be
/// `sizeof(SOFTHAL_SURFACE_DESC)`; `dwFormat` is a `D3DFORMAT`, ignored
/// for buffers, whose size in bytes is `dwWidth`; `dwHandle` is ignored).
/// `*out` receives the surface, owned by the host until
/// [`softhal_surface_destroy`] or the driver's destruction. Errors:
/// `E_INVALIDARG` (bad size or kind), `DDERR_INVALIDPIXELFORMAT`,
/// `DDERR_INVALIDPARAMS` / `DDERR_OUTOFMEMORY` from the device.
/// Thread-safe (serialized per driver).
///
/// # Safety
/// `desc` must be NULL or point to a readable `SOFTHAL_SURFACE_DESC`;
/// `out` must be NULL or point to a writable `softhal_surface *`.
#[no_mangle]
pub unsafe extern "C" fn softhal_surface_create(
    driver: *mut softhal_driver,
    desc: *const SOFTHAL_SURFACE_DESC,
    out: *mut *mut softhal_surface,
) -> HRESULT {
    if !valid(out) || !valid(desc) {
        return INVALIDARG;
    }
    // SAFETY: checked non-null and aligned.
    unsafe { out.write(std::ptr::null_mut()) };
    // SAFETY: checked non-null and aligned; plain data.
    let want = unsafe { desc.read() };
    run(|| {
        if want.dwSize as usize != core::mem::size_of::<SOFTHAL_SURFACE_DESC>() {
            return Err(INVALIDARG);
        }
        let drv = driver_of(driver)?;
        let kind = kind_of(want.dwKind).ok_or(INVALIDARG)?;
        let sd = SurfaceDesc {
            kind,
            format: softhal_device::D3dFormat(if kind.is_buffer() { 0 } else { want.dwFormat }),
            width: want.dwWidth,
            height: want.dwHeight,
            depth: want.dwDepth,
            mip_levels: want.dwMipLevels,
        };
        let (handle, got) = {
            let mut st = drv.lock();
            let h = st.driver.create_surface(sd).map_err(|e| hr(e.ddrval()))?;
            let got = st.driver.surface(h).map(|r| r.desc).unwrap_or(sd);
            (h, got)
        };
        let resolved = SOFTHAL_SURFACE_DESC {
            dwSize: want.dwSize,
            dwKind: kind_code(got.kind),
            dwFormat: if kind.is_buffer() { 0 } else { got.format.0 },
            dwWidth: got.width,
            dwHeight: got.height,
            dwDepth: got.depth,
            dwMipLevels: got.mip_levels,
            dwHandle: handle,
        };
        let key = objects::add_surface(Arc::new(SurfaceObj {
            driver: drv,
            handle,
            desc: resolved,
            shadow: Mutex::new(None),
        }));
        // SAFETY: checked above.
        unsafe { out.write(key as *mut softhal_surface) };
        Ok(())
    })
}

/// Destroys a surface (a pointer from `softhal_surface_lock` on it dangles
/// from now on). Thread-safe.
///
/// # Safety
/// None beyond passing a value: `surface` is only looked up.
#[no_mangle]
pub unsafe extern "C" fn softhal_surface_destroy(surface: *mut softhal_surface) -> HRESULT {
    run(|| {
        if surface.is_null() {
            return Err(INVALIDARG);
        }
        let s = objects::remove_surface(surface as usize).ok_or(INVALIDOBJECT)?;
        let r = s.driver.lock().driver.destroy_surface(s.handle);
        r.map_err(|e| hr(e.ddrval()))
    })
}

/// The surface's resolved description; `dwHandle` is the DWORD handle DP2
/// commands use for it (SETRENDERTARGET, TEXBLT, SETSTREAMSOURCE, ...).
/// Thread-safe.
///
/// # Safety
/// `out` must be NULL or point to a writable `SOFTHAL_SURFACE_DESC`.
#[no_mangle]
pub unsafe extern "C" fn softhal_surface_get_desc(
    surface: *mut softhal_surface,
    out: *mut SOFTHAL_SURFACE_DESC,
) -> HRESULT {
    if !valid(out) {
        return INVALIDARG;
    }
    run(|| {
        let s = surface_of(surface)?;
        let mut d = s.desc;
        d.dwSize = core::mem::size_of::<SOFTHAL_SURFACE_DESC>() as u32;
        // SAFETY: checked non-null and aligned.
        unsafe { out.write(d) };
        Ok(())
    })
}

/// Locks a surface for CPU access: a buffer's bytes, or level 0 (face 0,
/// all slices) of an image. Same as [`softhal_surface_lock_level`] with
/// face 0, level 0. Thread-safe.
///
/// # Safety
/// `out` must be NULL or point to a writable `SOFTHAL_LOCKED_SURFACE`.
#[no_mangle]
pub unsafe extern "C" fn softhal_surface_lock(
    surface: *mut softhal_surface,
    flags: u32,
    out: *mut SOFTHAL_LOCKED_SURFACE,
) -> HRESULT {
    // SAFETY: forwarded contract.
    unsafe { softhal_surface_lock_level(surface, 0, 0, flags, out) }
}

/// Locks one level of one face (cube textures: faces 0..6; volumes: all
/// slices of the level; buffers: face 0, level 0 only). `out->pBits`
/// points to `out->dwSize` bytes (rows `out->dwPitch` apart) owned by
/// softhal, **valid until [`softhal_surface_unlock`] or the destruction of
/// the surface or its driver**. They are a copy: what the host writes
/// reaches the surface at unlock (not with `SOFTHAL_LOCK_READONLY`).
/// `flags`: `SOFTHAL_LOCK_*`. A surface has one lock at a time: locking a
/// locked surface is `DDERR_CANTLOCKSURFACE`. Thread-safe.
///
/// # Safety
/// `out` must be NULL or point to a writable `SOFTHAL_LOCKED_SURFACE`.
#[no_mangle]
pub unsafe extern "C" fn softhal_surface_lock_level(
    surface: *mut softhal_surface,
    face: u32,
    level: u32,
    flags: u32,
    out: *mut SOFTHAL_LOCKED_SURFACE,
) -> HRESULT {
    if !valid(out) {
        return INVALIDARG;
    }
    run(|| {
        let s = surface_of(surface)?;
        let mut shadow = s.shadow();
        if shadow.is_some() {
            return Err(hr(codes::DDERR_CANTLOCKSURFACE));
        }
        let lf = LockFlags {
            discard: flags & SOFTHAL_LOCK_DISCARD != 0,
            no_overwrite: flags & SOFTHAL_LOCK_NOOVERWRITE != 0,
        };
        let (bytes, pitch) = {
            let mut st = s.driver.lock();
            let (b, p) = if is_buffer(&s) {
                if face != 0 || level != 0 {
                    return Err(INVALIDARG);
                }
                let b = st.driver.lock(s.handle, lf).map_err(|e| hr(e.ddrval()))?;
                let n = b.len();
                (b, n)
            } else {
                st.driver
                    .lock_level(s.handle, face, level)
                    .map_err(|e| hr(e.ddrval()))?
            };
            (Box::<[u8]>::from(&*b), p)
        };
        let size = u32::try_from(bytes.len()).map_err(|_| hr(codes::DDERR_OUTOFMEMORY))?;
        let mut sh = Shadow {
            bytes,
            write_back: flags & SOFTHAL_LOCK_READONLY == 0,
            face,
            level,
        };
        let locked = SOFTHAL_LOCKED_SURFACE {
            pBits: sh.bytes.as_mut_ptr().cast::<c_void>(),
            dwPitch: u32::try_from(pitch).unwrap_or(size),
            dwSize: size,
        };
        *shadow = Some(sh);
        // SAFETY: checked non-null and aligned.
        unsafe { out.write(locked) };
        Ok(())
    })
}

fn is_buffer(s: &SurfaceObj) -> bool {
    kind_of(s.desc.dwKind).is_some_and(SurfaceKind::is_buffer)
}

/// Unlocks a surface: copies the host's bytes back (unless locked
/// `SOFTHAL_LOCK_READONLY`) and frees them; the lock pointer is invalid
/// from now on. Unlocking an unlocked surface is `D3DERR_INVALIDCALL`.
/// Thread-safe; must not race with host writes to the lock pointer.
///
/// # Safety
/// None beyond passing a value: `surface` is only looked up.
#[no_mangle]
pub unsafe extern "C" fn softhal_surface_unlock(surface: *mut softhal_surface) -> HRESULT {
    run(|| {
        let s = surface_of(surface)?;
        let sh = s.shadow().take().ok_or(hr(codes::D3DERR_INVALIDCALL))?;
        let mut st = s.driver.lock();
        if sh.write_back {
            let dst = if is_buffer(&s) {
                let keep = LockFlags {
                    discard: false,
                    no_overwrite: true,
                };
                st.driver.lock(s.handle, keep)
            } else {
                st.driver
                    .lock_level(s.handle, sh.face, sh.level)
                    .map(|(b, _)| b)
            }
            .map_err(|e| hr(e.ddrval()))?;
            let n = dst.len().min(sh.bytes.len());
            if let (Some(d), Some(src)) = (dst.get_mut(..n), sh.bytes.get(..n)) {
                d.copy_from_slice(src);
            }
        }
        st.driver.unlock(s.handle).map_err(|e| hr(e.ddrval()))
    })
}

/// Starts a flip to render target `surface`: until
/// [`softhal_complete_flips`], `D3dDrawPrimitives2` on a context rendering
/// to it returns `DDERR_WASSTILLDRAWING`. Thread-safe.
///
/// # Safety
/// None beyond passing a value.
#[no_mangle]
pub unsafe extern "C" fn softhal_flip(surface: *mut softhal_surface) -> HRESULT {
    run(|| {
        let s = surface_of(surface)?;
        let r = s.driver.lock().driver.flip(s.handle);
        r.map_err(|e| hr(e.ddrval()))
    })
}

/// Completes every pending flip of `driver` (the vertical blank).
/// Thread-safe.
///
/// # Safety
/// None beyond passing a value.
#[no_mangle]
pub unsafe extern "C" fn softhal_complete_flips(driver: *mut softhal_driver) -> HRESULT {
    run(|| {
        driver_of(driver)?.lock().driver.complete_flips();
        Ok(())
    })
}

/// Presents render target `surface`: writes its pixels as RGBA8 (bytes R,
/// G, B, A per pixel; rows `pitch` bytes apart, `pitch` ≥ 4 × width) into
/// the host's `size` bytes at `pixels`. Softhal writes nothing outside
/// them; too small a buffer is `E_INVALIDARG`. Thread-safe.
///
/// # Safety
/// `pixels` must point to `size` writable bytes not accessed by anyone
/// else during the call.
#[no_mangle]
pub unsafe extern "C" fn softhal_present(
    surface: *mut softhal_surface,
    pixels: *mut c_void,
    pitch: u32,
    size: u32,
) -> HRESULT {
    run(|| {
        let s = surface_of(surface)?;
        let (w, h) = (s.desc.dwWidth as usize, s.desc.dwHeight as usize);
        let row = w.checked_mul(4).ok_or(INVALIDARG)?;
        let pitch = pitch as usize;
        let need = match h {
            0 => 0,
            _ => pitch
                .checked_mul(h - 1)
                .and_then(|n| n.checked_add(row))
                .ok_or(INVALIDARG)?,
        };
        if pitch < row || (size as usize) < need || pixels.is_null() {
            return Err(INVALIDARG);
        }
        let rgba = s
            .driver
            .lock()
            .driver
            .present(s.handle)
            .map_err(|e| hr(e.ddrval()))?;
        // SAFETY: the host gave `size` writable bytes at `pixels`.
        let dst =
            unsafe { host_bytes_mut(pixels.cast::<u8>(), size as usize) }.ok_or(INVALIDARG)?;
        for y in 0..h {
            let src = rgba.get(y * row..(y + 1) * row).ok_or(INTERNAL)?;
            dst.get_mut(y * pitch..y * pitch + row)
                .ok_or(INVALIDARG)?
                .copy_from_slice(src);
        }
        Ok(())
    })
}

/// Installs (or with NULL removes) the host's `D3dParseUnknownCommand`.
/// During `D3dDrawPrimitives2` on this driver, each command whose opcode
/// softhal does not know is passed to it: `lpvCommands` points to that
/// command's header inside **softhal's copy** of the command data (read
/// only; the data runs to the end of `dwCommandLength`), and the hook
/// stores the address of the next command (inside the same copy, after
/// the header) in `*lplpvReturnedCommand` and returns a success HRESULT.
/// A failure HRESULT, or an address out of range, fails the command with
/// `D3DERR_COMMAND_UNPARSED`. The hook runs on the calling thread with the
/// driver locked: it must not call softhal functions on the same driver,
/// and must not unwind or longjmp. Thread-safe.
///
/// # Safety
/// `hook` must be NULL or a function with the DDK signature that honours
/// the contract above for as long as it is installed.
#[no_mangle]
pub unsafe extern "C" fn softhal_set_parse_unknown_command(
    driver: *mut softhal_driver,
    hook: Option<ParseUnknownCommandFn>,
) -> HRESULT {
    run(|| {
        let d = driver_of(driver)?;
        d.lock().driver.set_parse_unknown_command(hook.map(|f| {
            Box::new(move |bytes: &[u8]| crate::ddi::call_hook(f, bytes))
                as softhal_device::ParseUnknownCommand
        }));
        Ok(())
    })
}

/// Fills `*caps` (whose `dwSize` must be `sizeof(SOFTHAL_CAPS)`) with what
/// the device implements. Thread-safe.
///
/// # Safety
/// `caps` must be NULL or point to a readable and writable `SOFTHAL_CAPS`.
#[no_mangle]
pub unsafe extern "C" fn softhal_get_caps(
    driver: *mut softhal_driver,
    caps: *mut SOFTHAL_CAPS,
) -> HRESULT {
    if !valid(caps) {
        return INVALIDARG;
    }
    // SAFETY: checked non-null and aligned; dwSize is its first field.
    let size = unsafe { std::ptr::addr_of!((*caps).dwSize).read() };
    run(|| {
        if size as usize != core::mem::size_of::<SOFTHAL_CAPS>() {
            return Err(INVALIDARG);
        }
        let c = driver_of(driver)?.lock().driver.caps();
        let out = SOFTHAL_CAPS {
            dwSize: size,
            Caps: c.caps,
            Caps2: c.caps2,
            DevCaps: c.dev_caps,
            PrimitiveMiscCaps: c.primitive_misc_caps,
            RasterCaps: c.raster_caps,
            ZCmpCaps: c.z_cmp_caps,
            SrcBlendCaps: c.src_blend_caps,
            DestBlendCaps: c.dest_blend_caps,
            AlphaCmpCaps: c.alpha_cmp_caps,
            ShadeCaps: c.shade_caps,
            TextureCaps: c.texture_caps,
            StencilCaps: c.stencil_caps,
            FVFCaps: c.fvf_caps,
            TextureOpCaps: c.texture_op_caps,
            VertexProcessingCaps: c.vertex_processing_caps,
            MaxTextureWidth: c.max_texture_width,
            MaxTextureHeight: c.max_texture_height,
            MaxVolumeExtent: c.max_volume_extent,
            MaxTextureBlendStages: c.max_texture_blend_stages,
            MaxSimultaneousTextures: c.max_simultaneous_textures,
            MaxActiveLights: c.max_active_lights,
            MaxUserClipPlanes: c.max_user_clip_planes,
            MaxVertexBlendMatrices: c.max_vertex_blend_matrices,
            MaxPointSize: c.max_point_size,
            MaxPrimitiveCount: c.max_primitive_count,
            MaxVertexIndex: c.max_vertex_index,
            MaxStreams: c.max_streams,
            MaxStreamStride: c.max_stream_stride,
            VertexShaderVersion: c.vertex_shader_version,
            MaxVertexShaderConst: c.max_vertex_shader_const,
            PixelShaderVersion: c.pixel_shader_version,
            NumSimultaneousRTs: c.num_simultaneous_rts,
            Queries: c.queries,
        };
        // SAFETY: checked above.
        unsafe { caps.write(out) };
        Ok(())
    })
}

/// Why the last `D3dDrawPrimitives2` on `driver` failed, as NUL-terminated
/// UTF-8 text ("" if it succeeded). Writes at most `size` bytes to `buf`
/// (truncating, always NUL-terminated when `size` > 0; `buf` may be NULL
/// when `size` is 0) and the full length + 1 to `*needed` (if not NULL).
/// Thread-safe.
///
/// # Safety
/// `buf` must point to `size` writable bytes; `needed` must be NULL or a
/// writable `DWORD`.
#[no_mangle]
pub unsafe extern "C" fn softhal_get_last_error(
    driver: *mut softhal_driver,
    buf: *mut c_char,
    size: u32,
    needed: *mut u32,
) -> HRESULT {
    if !needed.is_null() && !valid(needed) {
        return INVALIDARG;
    }
    run(|| {
        let msg = driver_of(driver)?
            .lock()
            .driver
            .last_error()
            .map(|f| {
                format!(
                    "{} at offset {}: {}",
                    codes::format_hresult(f.ddrval),
                    f.offset,
                    f.error
                )
            })
            .unwrap_or_default();
        let bytes = msg.as_bytes();
        // SAFETY: the host gave `size` writable bytes at `buf`.
        let dst = unsafe { host_bytes_mut(buf.cast::<u8>(), size as usize) }.ok_or(INVALIDARG)?;
        if let Some(last) = dst.len().checked_sub(1) {
            let n = bytes.len().min(last);
            dst[..n].copy_from_slice(&bytes[..n]);
            dst[n] = 0;
        }
        if !needed.is_null() {
            let total = u32::try_from(bytes.len() + 1).unwrap_or(u32::MAX);
            // SAFETY: checked non-null and aligned above.
            unsafe { needed.write(total) };
        }
        Ok(())
    })
}

/// Starts recording the calls on `driver` to the capture file `path`
/// (NUL-terminated). **Not implemented yet** (the capture format arrives
/// with its own issue): validates its arguments and returns `E_NOTIMPL`.
///
/// # Safety
/// None beyond passing values: `path` is only checked for NULL.
#[no_mangle]
pub unsafe extern "C" fn softhal_capture_start(
    driver: *mut softhal_driver,
    path: *const c_char,
) -> HRESULT {
    run(|| {
        driver_of(driver)?;
        if path.is_null() {
            return Err(INVALIDARG);
        }
        Err(hr(codes::E_NOTIMPL))
    })
}

/// Stops a capture. **Not implemented yet**: validates `driver` and
/// returns `E_NOTIMPL`.
///
/// # Safety
/// None beyond passing a value.
#[no_mangle]
pub unsafe extern "C" fn softhal_capture_stop(driver: *mut softhal_driver) -> HRESULT {
    run(|| {
        driver_of(driver)?;
        Err(hr(codes::E_NOTIMPL))
    })
}

/// The `pfnRenderCb`-shaped submission entry:
/// `HRESULT APIENTRY (HANDLE hDevice, D3DDDICB_RENDER *pData)`, `hDevice`
/// being a `softhal_driver`. **The submission path is not implemented
/// yet** (a later issue): after validating its arguments (`hDevice` a live
/// driver, `pData` non-null and 8-aligned, no reserved `Flags` bits,
/// `BroadcastContextCount` ≤ 64) it returns `E_NOTIMPL` and writes nothing;
/// invalid arguments are `E_INVALIDARG`.
///
/// # Safety
/// `pData` must be NULL or point to a readable `D3DDDICB_RENDER`.
#[no_mangle]
pub unsafe extern "system" fn softhal_render_cb(
    h_device: *mut c_void,
    p_data: *mut D3DDDICB_RENDER,
) -> HRESULT {
    if !valid(p_data) {
        return INVALIDARG;
    }
    // SAFETY: checked non-null and aligned; only plain integer fields read.
    let (flags, broadcast) = unsafe {
        (
            std::ptr::addr_of!((*p_data).Flags).read(),
            std::ptr::addr_of!((*p_data).BroadcastContextCount).read(),
        )
    };
    run(|| {
        driver_of(h_device.cast::<softhal_driver>())?;
        if flags & !0xF != 0 || broadcast > 64 {
            return Err(INVALIDARG);
        }
        Err(hr(codes::E_NOTIMPL))
    })
}
