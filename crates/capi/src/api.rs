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
use crate::objects::{
    self, DriverObj, DriverState, Shadow, SurfaceObj, UmdBuffers, ALLOCATION_WORDS, PATCH_WORDS,
};
use crate::types::*;
use softhal_capture::{LockApi, Observer};
use softhal_device::{Driver, LockFlags, SurfaceDesc, SurfaceKind};
use softhal_submit::{AllocationListEntry, Engine, PatchLocation, RenderData};
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
/// the calling thread; more than `SOFTHAL_MAX_THREADS` is refused with
/// `DDERR_INVALIDPARAMS` and nothing is spawned). `*out` receives the
/// driver, owned by the host until [`softhal_driver_destroy`]. Its GPU
/// timeout starts at `SOFTHAL_DEFAULT_GPU_TIMEOUT_MS`
/// ([`softhal_driver_set_timeout`]). Thread-safe.
///
/// With the environment variable `SOFTHAL_CAPTURE=path` set, the driver
/// records a capture from its creation to [`softhal_driver_destroy`], as
/// [`softhal_capture_start`] would: the first driver of the process to
/// `path`, the next ones to `path` with `.1`, `.2`, … before its
/// extension ([`capture_path`]). A file that cannot be created leaves the
/// driver working, uncaptured, and [`softhal_get_last_error`] says why
/// until its first `D3dDrawPrimitives2` (`docs/environment.md`).
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
    softhal_capture::logging::init_from_env();
    run(|| {
        let driver = Driver::new(threads as usize).map_err(|e| hr(e.ddrval()))?;
        let obj = Arc::new(DriverObj::new(driver));
        let key = objects::add_driver(Arc::clone(&obj));
        capture_from_environment(&obj);
        // SAFETY: as above.
        unsafe { out.write(key as *mut softhal_driver) };
        Ok(())
    })
}

/// The environment variable that makes every driver record a capture
/// with no code change (as apitrace's `TRACE_FILE`): `docs/environment.md`.
pub const CAPTURE_ENV: &str = "SOFTHAL_CAPTURE";

/// The path `SOFTHAL_CAPTURE` names, if it is set and not empty: the one
/// place the variable is read.
fn capture_env() -> Option<std::ffi::OsString> {
    std::env::var_os(CAPTURE_ENV).filter(|p| !p.is_empty())
}

/// Drivers created in this process while `SOFTHAL_CAPTURE` was set.
static ENV_CAPTURES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The capture file of the `n`-th driver (from 0) created under
/// `SOFTHAL_CAPTURE=base`: `base` itself for the first, then `.N` before
/// the extension of the file name (`trace.shcap` → `trace.1.shcap`,
/// `trace.2.shcap`; `trace` → `trace.1`).
pub fn capture_path(base: &std::path::Path, n: usize) -> std::path::PathBuf {
    if n == 0 {
        return base.to_path_buf();
    }
    let name = match (base.file_stem(), base.extension()) {
        (Some(stem), Some(ext)) => {
            let mut s = stem.to_os_string();
            s.push(format!(".{n}."));
            s.push(ext);
            s
        }
        _ => {
            let mut s = base.file_name().unwrap_or_default().to_os_string();
            s.push(format!(".{n}"));
            s
        }
    };
    base.with_file_name(name)
}

/// Starts the capture `SOFTHAL_CAPTURE` asks for on a new driver. A path
/// that cannot be written leaves the driver working, uncaptured, and says
/// why through `softhal_get_last_error` (until its first
/// `D3dDrawPrimitives2`).
fn capture_from_environment(d: &Arc<DriverObj>) {
    let Some(base) = capture_env() else {
        return;
    };
    let n = ENV_CAPTURES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = capture_path(std::path::Path::new(&base), n);
    if let Err((_, why)) = start_capture(d, &path) {
        d.lock().boundary_error = Some(format!(
            "{CAPTURE_ENV}: no capture: cannot create {}: {why}",
            path.display()
        ));
    }
}

/// Starts recording `d`'s calls into a new file at `path` (see
/// [`softhal_capture_start`]); the error's text says why.
fn start_capture(d: &Arc<DriverObj>, path: &std::path::Path) -> Result<(), (HRESULT, String)> {
    let mut guard = d.lock();
    let st = &mut *guard;
    if st.capture.is_some()
        || !st.render_contexts.is_empty()
        || st.driver.default_render_context_used()
        || objects::has_contexts(d)
    {
        return Err((
            hr(codes::D3DERR_INVALIDCALL),
            "already capturing, or contexts exist".into(),
        ));
    }
    let file = std::fs::File::create(path).map_err(|e| (hr(codes::E_FAIL), e.to_string()))?;
    st.driver.complete_work();
    let mut obs = Observer::new(std::io::BufWriter::new(file));
    for s in objects::surfaces_of(d) {
        obs.on_existing_surface(&st.driver, s.handle);
    }
    for (h, texture, face, level) in st.driver.attached_surfaces() {
        obs.on_attached_surface(texture, face, level, &Ok(h));
    }
    st.capture = Some(obs);
    tracing::debug!(path = %path.display(), "capture file created");
    Ok(())
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
        // Wait for calls in flight before the last reference goes; a
        // capture still running is finished (its END record written).
        let capture = d.lock().capture.take();
        if let Some(c) = capture {
            let _ = c.finish();
        }
        Ok(())
    })
}

/// Sets how long one GPU submission of `driver` may run, in
/// milliseconds (0: no limit; the default is
/// `SOFTHAL_DEFAULT_GPU_TIMEOUT_MS`). Work running past it stops at a
/// primitive or tile boundary and its context is removed: every later
/// `D3dDrawPrimitives2` / `D3dClear2` on it (or `softhal_render_cb`)
/// returns `D3DDDIERR_DEVICEREMOVED`; destroy it and create another
/// (`docs/submission.md`, "Timeouts and cancellation"). Thread-safe
/// (serialized per driver; applies to work sent afterwards).
///
/// # Safety
/// None beyond passing a value.
#[no_mangle]
pub unsafe extern "C" fn softhal_driver_set_timeout(
    driver: *mut softhal_driver,
    milliseconds: u32,
) -> HRESULT {
    run(|| {
        let d = driver_of(driver)?;
        let t =
            (milliseconds != 0).then(|| std::time::Duration::from_millis(u64::from(milliseconds)));
        d.lock().driver.set_gpu_timeout(t);
        Ok(())
    })
}

/// Stops the GPU work of `driver` running now, as a timeout would (its
/// context is removed); the call waiting for it on another thread
/// returns. Does not take the driver's lock: call it from any thread
/// while another is inside a call on the driver. With no work running it
/// has no effect. Thread-safe.
///
/// # Safety
/// None beyond passing a value.
#[no_mangle]
pub unsafe extern "C" fn softhal_driver_cancel(driver: *mut softhal_driver) -> HRESULT {
    run(|| {
        driver_of(driver)?.cancel.cancel();
        Ok(())
    })
}

/// The kind of a `dwKind` (usage bits ignored).
fn kind_of(k: u32) -> Option<SurfaceKind> {
    Some(match k & !SOFTHAL_SURFACE_USAGE_RENDERTARGET {
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
    // SAFETY: checked non-null and aligned; dwSize is the first field. The
    // rest is read only once dwSize says the host's structure is whole (a
    // host built against another layout may pass fewer bytes).
    let size = unsafe { std::ptr::addr_of!((*desc).dwSize).read() };
    if size as usize != core::mem::size_of::<SOFTHAL_SURFACE_DESC>() {
        return INVALIDARG;
    }
    // SAFETY: as above, and dwSize covers the whole structure; plain data.
    let want = unsafe { desc.read() };
    run(|| {
        let drv = driver_of(driver)?;
        let kind = kind_of(want.dwKind).ok_or(INVALIDARG)?;
        let sd = SurfaceDesc {
            kind,
            format: softhal_device::D3dFormat(if kind.is_buffer() { 0 } else { want.dwFormat }),
            width: want.dwWidth,
            height: want.dwHeight,
            depth: want.dwDepth,
            mip_levels: want.dwMipLevels,
            render_target: want.dwKind & SOFTHAL_SURFACE_USAGE_RENDERTARGET != 0,
        };
        // Registered while the driver is locked, so that a capture starting
        // on another thread sees either neither or both.
        let mut st = drv.lock();
        let r = st.driver.create_surface(sd);
        if let Some(c) = st.capture.as_mut() {
            c.on_create_surface(&sd, &r);
        }
        let handle = r.map_err(|e| hr(e.ddrval()))?;
        let resolved = c_desc(
            &st.driver.surface(handle).map(|r| r.desc).unwrap_or(sd),
            handle,
        );
        let key = objects::add_surface(Arc::new(SurfaceObj {
            driver: Arc::clone(&drv),
            handle,
            desc: resolved,
            shadow: Mutex::new(None),
        }));
        drop(st);
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
        let s = surface_of(surface)?;
        let mut st = s.driver.lock();
        // Unregistered under the driver lock (see softhal_surface_create).
        objects::remove_surface(surface as usize).ok_or(INVALIDOBJECT)?;
        let r = st.driver.destroy_surface(s.handle);
        if let Some(c) = st.capture.as_mut() {
            c.on_destroy_surface(s.handle, &r);
        }
        r.map_err(|e| hr(e.ddrval()))
    })
}

/// A device surface description as the C ABI spells it (`dwSize` =
/// `sizeof(SOFTHAL_SURFACE_DESC)`, `dwHandle` = `handle`).
fn c_desc(got: &SurfaceDesc, handle: u32) -> SOFTHAL_SURFACE_DESC {
    SOFTHAL_SURFACE_DESC {
        dwSize: core::mem::size_of::<SOFTHAL_SURFACE_DESC>() as u32,
        dwKind: kind_code(got.kind)
            | if got.render_target {
                SOFTHAL_SURFACE_USAGE_RENDERTARGET
            } else {
                0
            },
        dwFormat: if got.kind.is_buffer() {
            0
        } else {
            got.format.0
        },
        dwWidth: got.width,
        dwHeight: got.height,
        dwDepth: got.depth,
        dwMipLevels: got.mip_levels,
        dwHandle: handle,
    }
}

/// The surface's description as it is now (a buffer renamed by a
/// `D3DHALDP2_SWAPCOMMANDBUFFER` / `SWAPVERTEXBUFFER` call reports its new
/// size, as a lock shows it); `dwHandle` is the DWORD handle DP2 commands
/// use for it (SETRENDERTARGET, TEXBLT, SETSTREAMSOURCE, ...).
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
        let got = s
            .driver
            .lock()
            .driver
            .surface(s.handle)
            .map(|r| r.desc)
            .map_err(|e| hr(e.ddrval()))?;
        // SAFETY: checked non-null and aligned.
        unsafe { out.write(c_desc(&got, s.handle)) };
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
            let mut guard = s.driver.lock();
            let st = &mut *guard;
            let (api, r) = if is_buffer(&s) {
                if face != 0 || level != 0 {
                    return Err(INVALIDARG);
                }
                let r = st.driver.lock(s.handle, lf).map(|b| {
                    let n = b.len();
                    (Box::<[u8]>::from(&*b), n)
                });
                (LockApi::Lock, r)
            } else {
                let r = st
                    .driver
                    .lock_level(s.handle, face, level)
                    .map(|(b, p)| (Box::<[u8]>::from(&*b), p));
                (LockApi::LockLevel, r)
            };
            if let Some(c) = st.capture.as_mut() {
                c.on_lock(s.handle, api, face, level, lf, &r);
            }
            r.map_err(|e| hr(e.ddrval()))?
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
        let mut guard = s.driver.lock();
        let st = &mut *guard;
        // For a capture: what the plane held before the host's bytes landed,
        // in the capture's form (an image's rows tight).
        let capture_plane = |d: &Driver| {
            softhal_capture::observer::plane(d, s.handle, sh.face, sh.level)
                .unwrap_or_default()
                .into_owned()
        };
        let mut before = Vec::new();
        if sh.write_back {
            if st.capture.is_some() {
                before = capture_plane(&st.driver);
            }
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
        let r = st.driver.unlock(s.handle);
        if st.capture.is_some() {
            let after = if sh.write_back {
                capture_plane(&st.driver)
            } else {
                Vec::new()
            };
            if let Some(c) = st.capture.as_mut() {
                c.on_unlock(s.handle, sh.face, sh.level, &before, &after, &r);
            }
        }
        r.map_err(|e| hr(e.ddrval()))
    })
}

/// The DWORD handle of an attached surface of a render-target texture
/// (created with `SOFTHAL_SURFACE_USAGE_RENDERTARGET`): face `face` (cube
/// faces 0–5), mip level `level` — what DP2 SETRENDERTARGET /
/// SETRENDERTARGET2 take to render into that level (`docs/device.md`
/// decision 26). Face 0, level 0 is the texture's own `dwHandle`; the same
/// request gives the same handle; it lives as long as the texture.
/// Errors: `DDERR_INVALIDOBJECT` (not a render-target texture),
/// `DDERR_INVALIDPARAMS` (no such face or level). Recorded by an active
/// capture. Thread-safe.
///
/// # Safety
/// `handle` must be NULL or point to a writable `DWORD`.
#[no_mangle]
pub unsafe extern "C" fn softhal_surface_get_attached(
    texture: *mut softhal_surface,
    face: u32,
    level: u32,
    handle: *mut u32,
) -> HRESULT {
    if !valid(handle) {
        return INVALIDARG;
    }
    run(|| {
        let s = surface_of(texture)?;
        let mut guard = s.driver.lock();
        let st = &mut *guard;
        let r = st.driver.attached_surface(s.handle, face, level);
        if let Some(c) = st.capture.as_mut() {
            c.on_attached_surface(s.handle, face, level, &r);
        }
        let h = r.map_err(|e| hr(e.ddrval()))?;
        // SAFETY: checked non-null and aligned.
        unsafe { handle.write(h) };
        Ok(())
    })
}

/// DdSetColorKey with DDCKEY_SRCBLT on a texture: with `enable` non-zero,
/// texels whose raw value (in the texture's own format bits) lies in
/// `low..=high` are keyed when COLORKEYENABLE / COLORKEYBLENDENABLE are
/// set; `enable` 0 removes the key. Draws already submitted keep the old
/// key. Errors: `DDERR_INVALIDOBJECT` (not a texture), `DDERR_INVALIDPARAMS`
/// (`low > high`). Recorded by an active capture. Thread-safe.
///
/// # Safety
/// None beyond passing a value: `surface` is only looked up.
#[no_mangle]
pub unsafe extern "C" fn softhal_surface_set_color_key(
    surface: *mut softhal_surface,
    enable: u32,
    low: u32,
    high: u32,
) -> HRESULT {
    run(|| {
        let s = surface_of(surface)?;
        let mut guard = s.driver.lock();
        let st = &mut *guard;
        let key = (enable != 0).then_some((low, high));
        let r = st.driver.set_color_key(s.handle, key);
        if let Some(c) = st.capture.as_mut() {
            c.on_set_color_key(s.handle, key, &r);
        }
        r.map_err(|e| hr(e.ddrval()))
    })
}

/// The runtime's D3DGDI2_TYPE_DXVERSION notification (DD_DXVERSION's
/// `dwDXVersion`: 0x700, 0x800, 0x900): contexts created afterwards read
/// version-dependent values (the DX6/7 filter values below 0x800) for that
/// runtime. Recorded by an active capture. Thread-safe.
///
/// # Safety
/// None beyond passing a value.
#[no_mangle]
pub unsafe extern "C" fn softhal_driver_notify_dx_version(
    driver: *mut softhal_driver,
    version: u32,
) -> HRESULT {
    run(|| {
        let drv = driver_of(driver)?;
        let mut guard = drv.lock();
        let st = &mut *guard;
        st.driver.notify_dx_version(version);
        if let Some(c) = st.capture.as_mut() {
            c.on_notify_dx_version(version);
        }
        Ok(())
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
        let mut guard = s.driver.lock();
        let st = &mut *guard;
        let r = st.driver.flip(s.handle);
        if let Some(c) = st.capture.as_mut() {
            c.on_flip(&st.driver, s.handle, &r);
        }
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
        let d = driver_of(driver)?;
        let mut st = d.lock();
        st.driver.complete_flips();
        if let Some(c) = st.capture.as_mut() {
            c.on_complete_flips();
        }
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
        let rgba = {
            let mut st = s.driver.lock();
            let r = st.driver.present(s.handle);
            if let Some(c) = st.capture.as_mut() {
                c.on_present(s.handle, &r);
            }
            r.map_err(|e| hr(e.ddrval()))?
        };
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

/// Fills `*caps` (whose `dwSize` must be `sizeof(SOFTHAL_CAPS)`, or
/// `SOFTHAL_CAPS_SIZE_2_0` for a host built against API 2.0, which gets
/// the fields up to `Queries` and nothing past them) with what the device
/// implements. Thread-safe.
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
        if size as usize != core::mem::size_of::<SOFTHAL_CAPS>() && size != SOFTHAL_CAPS_SIZE_2_0 {
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
            PixelShader1xMaxValue: c.pixel_shader_1x_max_value,
            VS20Caps: c.vs20_caps.caps,
            VS20DynamicFlowControlDepth: c.vs20_caps.dynamic_flow_control_depth,
            VS20NumTemps: c.vs20_caps.num_temps,
            VS20StaticFlowControlDepth: c.vs20_caps.static_flow_control_depth,
            PS20Caps: c.ps20_caps.caps,
            PS20DynamicFlowControlDepth: c.ps20_caps.dynamic_flow_control_depth,
            PS20NumTemps: c.ps20_caps.num_temps,
            PS20StaticFlowControlDepth: c.ps20_caps.static_flow_control_depth,
            PS20NumInstructionSlots: c.ps20_caps.num_instruction_slots,
            VertexTextureFilterCaps: c.vertex_texture_filter_caps,
            MaxVShaderInstructionsExecuted: c.max_vshader_instructions_executed,
            MaxPShaderInstructionsExecuted: c.max_pshader_instructions_executed,
            MaxVertexShader30InstructionSlots: c.max_vertex_shader30_instruction_slots,
            MaxPixelShader30InstructionSlots: c.max_pixel_shader30_instruction_slots,
            DevCaps2: c.dev_caps2,
            DeclTypes: c.decl_types,
        };
        // SAFETY: `caps` is valid for `size` bytes (checked above: the
        // whole struct, or its API 2.0 prefix), `out` is a local of at
        // least that size, and the two do not overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(
                std::ptr::addr_of!(out).cast::<u8>(),
                caps.cast::<u8>(),
                size as usize,
            )
        };
        Ok(())
    })
}

/// Why the last `D3dDrawPrimitives2` on one of `driver`'s contexts failed,
/// as NUL-terminated UTF-8 text ("" if it succeeded) — whether the device
/// refused it or the C boundary did (a bad `dwVertexSize`, a foreign
/// `lpDDCommands`, ...): never an older call's message. Writes at most `size` bytes to `buf`
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
        let d = driver_of(driver)?;
        let st = d.lock();
        let msg = match &st.boundary_error {
            Some(why) => why.clone(),
            None => st
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
                .unwrap_or_default(),
        };
        drop(st);
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

/// Longest capture path accepted, in bytes (NUL included).
const MAX_PATH_BYTES: usize = 4096;

/// The NUL-terminated string at `p`, read byte by byte up to its NUL and
/// never beyond [`MAX_PATH_BYTES`] (`None`: longer).
///
/// # Safety
/// `p` must point to a NUL-terminated string.
unsafe fn c_path(p: *const c_char) -> Option<std::path::PathBuf> {
    let mut bytes = Vec::new();
    for i in 0..MAX_PATH_BYTES {
        // SAFETY: bytes 0..i were readable and not NUL, so the string (the
        // caller's contract) continues at i.
        let b = unsafe { p.add(i).cast::<u8>().read() };
        if b == 0 {
            #[cfg(unix)]
            return Some(
                <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&bytes).into(),
            );
            #[cfg(not(unix))]
            return String::from_utf8(bytes).ok().map(Into::into);
        }
        bytes.push(b);
    }
    None
}

/// Starts recording every call on `driver` into a new capture file at
/// `path` (NUL-terminated, at most 4095 bytes; an existing file is
/// replaced): surface creation and destruction, locks with the bytes the
/// host wrote, contexts, DrawPrimitives2 with its command bytes and
/// user-memory vertices, Clear2, ValidateTextureStageState, flips,
/// presents, render contexts and render-callback submissions, each with
/// softhal's answer (`docs/capture-format.md`). Surfaces the driver
/// already has are recorded first, with their current contents. Starting
/// is a synchronization point: pending flips complete and no buffer is busy
/// afterwards (a replay starts from that state). Calls refused at the C
/// boundary (null pointers, unknown objects) change nothing and are not
/// recorded; the unknown-command hook is not reproduced by a replay.
/// Errors: `E_INVALIDARG` (NULL or too long a path),
/// `D3DERR_INVALIDCALL` (already capturing, or the driver has contexts or
/// render contexts, or its default context took a submission: their state
/// could not be replayed — start before creating or using them), `E_FAIL` (the file cannot be created). Thread-safe.
///
/// # Safety
/// `path` must be NULL or point to a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn softhal_capture_start(
    driver: *mut softhal_driver,
    path: *const c_char,
) -> HRESULT {
    run(|| {
        let d = driver_of(driver)?;
        if path.is_null() {
            return Err(INVALIDARG);
        }
        // SAFETY: non-null; the host passes a NUL-terminated string.
        let path = unsafe { c_path(path) }.ok_or(INVALIDARG)?;
        start_capture(&d, &path).map_err(|(code, _)| code)
    })
}

/// Stops the capture of `driver`: writes its END record and closes the
/// file. Errors: `D3DERR_INVALIDCALL` (not capturing), `E_FAIL` (a write
/// failed: the file is incomplete). Destroying a driver that is capturing
/// stops its capture too. Thread-safe.
///
/// # Safety
/// None beyond passing a value.
#[no_mangle]
pub unsafe extern "C" fn softhal_capture_stop(driver: *mut softhal_driver) -> HRESULT {
    run(|| {
        let d = driver_of(driver)?;
        let capture = d.lock().capture.take();
        let c = capture.ok_or(hr(codes::D3DERR_INVALIDCALL))?;
        c.finish().map(|_| ()).map_err(|_| hr(codes::E_FAIL))
    })
}

/// The kernel allocation handle of `surface` (every surface has one:
/// render targets, depth buffers, textures and buffers;
/// `D3DERR_INVALIDCALL` is kept for a surface without one),
/// for the allocation list of a [`softhal_render_cb`] submission
/// (`D3DDDI_ALLOCATIONLIST::hAllocation`). Thread-safe.
///
/// # Safety
/// `allocation` must be NULL or point to a writable `DWORD`.
#[no_mangle]
pub unsafe extern "C" fn softhal_surface_get_allocation(
    surface: *mut softhal_surface,
    allocation: *mut u32,
) -> HRESULT {
    if !valid(allocation) {
        return INVALIDARG;
    }
    run(|| {
        let s = surface_of(surface)?;
        let a = s.driver.lock().driver.allocation_of(s.handle);
        let a = a.ok_or(hr(codes::D3DERR_INVALIDCALL))?;
        // SAFETY: checked non-null and aligned.
        unsafe { allocation.write(a) };
        Ok(())
    })
}

/// Creates a GPU context on `engine` (`SOFTHAL_ENGINE_3D` or
/// `SOFTHAL_ENGINE_COPY`) for [`softhal_render_cb`] submissions; `*out`
/// receives its handle (never NULL), valid until
/// [`softhal_render_context_destroy`] or the driver's destruction. Errors:
/// `E_INVALIDARG` (unknown engine), `E_OUTOFMEMORY` (the kernel's context
/// limit, shared with the driver's own contexts). Thread-safe.
///
/// # Safety
/// `out` must be NULL or point to a writable `HANDLE`.
#[no_mangle]
pub unsafe extern "C" fn softhal_render_context_create(
    driver: *mut softhal_driver,
    engine: u32,
    out: *mut *mut c_void,
) -> HRESULT {
    if !valid(out) {
        return INVALIDARG;
    }
    // SAFETY: checked non-null and aligned.
    unsafe { out.write(std::ptr::null_mut()) };
    run(|| {
        let d = driver_of(driver)?;
        let engine = match engine {
            SOFTHAL_ENGINE_3D => Engine::ThreeD,
            SOFTHAL_ENGINE_COPY => Engine::Copy,
            _ => return Err(INVALIDARG),
        };
        let mut guard = d.lock();
        let st = &mut *guard;
        let r = st.driver.render_context_create(engine);
        if let Some(c) = st.capture.as_mut() {
            c.on_render_context_create(engine, &r);
        }
        let h = r.map_err(|e| hr(e.ddrval()))?;
        st.render_contexts.insert(h);
        // SAFETY: checked above; the handle is a number, never dereferenced.
        unsafe { out.write(h as usize as *mut c_void) };
        Ok(())
    })
}

/// Destroys a render context of `driver` after its work has run. A handle
/// that names no live render context of this driver is `E_INVALIDARG`.
/// Thread-safe.
///
/// # Safety
/// None beyond passing values: `context` is only looked up.
#[no_mangle]
pub unsafe extern "C" fn softhal_render_context_destroy(
    driver: *mut softhal_driver,
    context: *mut c_void,
) -> HRESULT {
    run(|| {
        let d = driver_of(driver)?;
        let mut guard = d.lock();
        let st = &mut *guard;
        let h = u32::try_from(context as usize)
            .ok()
            .filter(|h| st.render_contexts.contains(h))
            .ok_or(INVALIDARG)?;
        let r = st.driver.render_context_destroy(h);
        if let Some(c) = st.capture.as_mut() {
            c.on_render_context_destroy(h, &r);
        }
        st.render_contexts.remove(&h);
        st.umd_buffers.remove(&h);
        r.map_err(|e| hr(e.ddrval()))
    })
}

/// The input fields of a `D3DDDICB_RENDER`, read once (the `pNew*`
/// pointers are outputs: never read).
struct RenderIn {
    command_length: u32,
    command_offset: u32,
    num_allocations: u32,
    num_patch_locations: u32,
    command_buffer_size: u32,
    allocation_list_size: u32,
    patch_list_size: u32,
    flags: u32,
    context: usize,
    broadcast: u32,
}

/// What a render call writes back: the buffers in force for the context
/// (NULL and 0 when there is none) and `QueuedBufferCount`.
struct RenderOut {
    command_buffer: *mut u8,
    allocation_list: *mut u32,
    patch_list: *mut u32,
    sizes: (u32, u32, u32),
    queued: u32,
}

impl RenderOut {
    /// No buffers: an unknown driver or context.
    fn none() -> Self {
        RenderOut {
            command_buffer: std::ptr::null_mut(),
            allocation_list: std::ptr::null_mut(),
            patch_list: std::ptr::null_mut(),
            sizes: (0, 0, 0),
            queued: 0,
        }
    }

    fn of(b: &UmdBuffers, queued: u32) -> Self {
        let (command_buffer, allocation_list, patch_list) = b.pointers();
        RenderOut {
            command_buffer,
            allocation_list,
            patch_list,
            sizes: b.sizes(),
            queued,
        }
    }
}

/// The render context `context` names on this driver: NULL is the
/// default context, anything else must be one of the host's render
/// contexts.
fn render_context_of(st: &DriverState, context: usize) -> Option<u32> {
    if context == 0 {
        return Some(st.driver.default_render_context());
    }
    u32::try_from(context)
        .ok()
        .filter(|h| st.render_contexts.contains(h))
}

/// The buffers in force for `ctx`, made (at the kernel's current sizes)
/// the first time they are asked for.
fn umd_buffers(st: &mut DriverState, ctx: u32) -> &mut UmdBuffers {
    let sizes = st.driver.kmd().buffer_sizes();
    st.umd_buffers
        .entry(ctx)
        .or_insert_with(|| UmdBuffers::new(sizes))
}

/// The buffers a render context's user-mode driver writes its next
/// submission into, as the runtime hands them out at context creation:
/// writes `pNewCommandBuffer`/`NewCommandBufferSize`,
/// `pNewAllocationList`/`NewAllocationListSize` and
/// `pNewPatchLocationList`/`NewPatchLocationListSize` of `*out` (nothing
/// else). `context` NULL is the driver's default context. The buffers are
/// softhal's: they stay valid until the next [`softhal_render_cb`] on that
/// context hands out others, or until the context or driver is destroyed,
/// and are exactly as large as the sizes say. Errors: `E_INVALIDARG` (a
/// NULL or misaligned `out`, a `context` that is not one of the driver's
/// render contexts), `DDERR_INVALIDOBJECT`. Thread-safe.
///
/// # Safety
/// `out` must be NULL or point to a writable `D3DDDICB_RENDER` (its
/// Vista-level prefix at least).
#[no_mangle]
pub unsafe extern "C" fn softhal_render_context_get_buffers(
    driver: *mut softhal_driver,
    context: *mut c_void,
    out: *mut D3DDDICB_RENDER,
) -> HRESULT {
    if !valid(out) {
        return INVALIDARG;
    }
    run(|| {
        let d = driver_of(driver)?;
        let mut guard = d.lock();
        let st = &mut *guard;
        let ctx = render_context_of(st, context as usize).ok_or(INVALIDARG)?;
        let o = RenderOut::of(umd_buffers(st, ctx), 0);
        // SAFETY: out checked non-null and aligned; only the buffer fields
        // of the Vista-level prefix are written.
        unsafe { write_buffers(out, &o) };
        Ok(())
    })
}

/// Writes the three buffers and their sizes into `*p`.
///
/// # Safety
/// `p` is non-null, aligned and writable (its Vista-level prefix).
unsafe fn write_buffers(p: *mut D3DDDICB_RENDER, o: &RenderOut) {
    use std::ptr::addr_of_mut;
    // SAFETY: the caller's contract; each field is inside the prefix.
    unsafe {
        addr_of_mut!((*p).pNewCommandBuffer).write(o.command_buffer.cast());
        addr_of_mut!((*p).NewCommandBufferSize).write(o.sizes.0);
        addr_of_mut!((*p).pNewAllocationList).write(o.allocation_list.cast());
        addr_of_mut!((*p).NewAllocationListSize).write(o.sizes.1);
        addr_of_mut!((*p).pNewPatchLocationList).write(o.patch_list.cast());
        addr_of_mut!((*p).NewPatchLocationListSize).write(o.sizes.2);
    }
}

/// `pfnRenderCb` as the DDK defines it,
/// `HRESULT APIENTRY (HANDLE hDevice, D3DDDICB_RENDER *pData)` with
/// `hDevice` a `softhal_driver`: the host acts as the user-mode driver
/// and submits GPU packets (`docs/gpu-commands.md`) on one of its render
/// contexts ([`softhal_render_context_create`]) or, with `hContext` NULL,
/// on the driver's default context; softhal's kernel side validates them
/// and the GPU runs them before the call returns, after the work of
/// earlier DDI calls.
///
/// The submission is in the buffers softhal handed out for that context
/// (by [`softhal_render_context_get_buffers`] or the previous call):
/// `CommandLength` bytes of the command buffer (packets from
/// `CommandOffset`), `NumAllocations` and `NumPatchLocations` entries of
/// the lists. softhal reads them once, with atomic loads, into the
/// kernel's copy; a count beyond its buffer is refused
/// (`D3DDDIERR_INVALIDUSERBUFFER`, or `E_OUTOFMEMORY` beyond the kernel's
/// limits). No host memory is read: the `pNew*` pointers are outputs.
/// Also read once: `Flags`, `hContext`, `BroadcastContextCount` (must be
/// 0) and the requested `New*Size`s (with the RESIZE flags).
///
/// Out, after every call with a valid `pData` — accepted or refused —
/// `pNewCommandBuffer`/`NewCommandBufferSize`,
/// `pNewAllocationList`/`NewAllocationListSize`,
/// `pNewPatchLocationList`/`NewPatchLocationListSize`: the buffers to use
/// next and their true sizes. An accepted call hands out buffers of the
/// granted sizes (a resize request within the kernel's limits is granted;
/// the old buffers are freed when the sizes change); a refused call
/// writes back the buffers and sizes in force (a resize request is not
/// granted and does not read back as if it were). No context (an unknown
/// `hDevice` or `hContext`): NULL and 0. Also `QueuedBufferCount`. Later
/// fields of the structure are neither read nor written.
///
/// Returns `S_OK` or the kernel's code (`docs/submission.md`:
/// `D3DDDIERR_INVALIDUSERBUFFER`, `D3DDDIERR_INVALIDINSTRUCTION`,
/// `D3DDDIERR_PRIVILEGEDINSTRUCTION`, `D3DDDIERR_INVALIDHANDLE`,
/// `D3DDDIERR_CANTRENDERLOCKEDALLOCATION`, `E_OUTOFMEMORY`,
/// `E_INVALIDARG` — a rejected submission changes nothing). At the C
/// boundary: `E_INVALIDARG` for a NULL or misaligned `pData` (nothing
/// written), a NULL `hDevice`, a non-zero `BroadcastContextCount`;
/// `DDERR_INVALIDOBJECT` for an `hDevice` that is no live driver.
/// Thread-safe (serialized per driver).
///
/// # Safety
/// `pData` must be NULL or point to a readable and writable
/// `D3DDDICB_RENDER` (at least its Vista-level prefix).
#[no_mangle]
pub unsafe extern "system" fn softhal_render_cb(
    h_device: *mut c_void,
    p_data: *mut D3DDDICB_RENDER,
) -> HRESULT {
    if !valid(p_data) {
        return INVALIDARG;
    }
    // SAFETY: checked non-null and aligned; plain integer fields of the
    // Vista-level prefix, each read exactly once.
    let inp = unsafe {
        use std::ptr::addr_of;
        RenderIn {
            command_length: addr_of!((*p_data).CommandLength).read(),
            command_offset: addr_of!((*p_data).CommandOffset).read(),
            num_allocations: addr_of!((*p_data).NumAllocations).read(),
            num_patch_locations: addr_of!((*p_data).NumPatchLocations).read(),
            command_buffer_size: addr_of!((*p_data).NewCommandBufferSize).read(),
            allocation_list_size: addr_of!((*p_data).NewAllocationListSize).read(),
            patch_list_size: addr_of!((*p_data).NewPatchLocationListSize).read(),
            flags: addr_of!((*p_data).Flags).read(),
            context: addr_of!((*p_data).hContext).read() as usize,
            broadcast: addr_of!((*p_data).BroadcastContextCount).read(),
        }
    };
    let mut out = None;
    let r = run(|| {
        let (code, o) = render(h_device, &inp)?;
        out = Some(o);
        match code {
            0 => Ok(()),
            e => Err(e),
        }
    });
    let o = out.unwrap_or_else(RenderOut::none);
    // SAFETY: p_data checked above; only output fields of the Vista-level
    // prefix are written.
    unsafe {
        write_buffers(p_data, &o);
        std::ptr::addr_of_mut!((*p_data).QueuedBufferCount).write(o.queued);
    }
    r
}

/// The body of [`softhal_render_cb`] after the fields are read: `Err` = no
/// driver (nothing in force to write back), `Ok((hresult, outputs))`
/// otherwise.
fn render(h_device: *mut c_void, inp: &RenderIn) -> Result<(HRESULT, RenderOut), HRESULT> {
    let d = driver_of(h_device.cast::<softhal_driver>())?;
    let mut guard = d.lock();
    let st = &mut *guard;
    let ctx = render_context_of(st, inp.context);
    if inp.broadcast != 0 {
        let o = match ctx {
            Some(c) => RenderOut::of(umd_buffers(st, c), 0),
            None => RenderOut::none(),
        };
        return Ok((INVALIDARG, o));
    }
    let mut rd = RenderData {
        command_length: inp.command_length,
        command_offset: inp.command_offset,
        num_allocations: inp.num_allocations,
        num_patch_locations: inp.num_patch_locations,
        new_command_buffer_size: inp.command_buffer_size,
        new_allocation_list_size: inp.allocation_list_size,
        new_patch_location_list_size: inp.patch_list_size,
        flags: inp.flags,
        // NULL: the default context. A context that is not the host's goes
        // to the kernel as a number it refuses (and a capture records it).
        h_context: (inp.context != 0).then(|| u32::try_from(inp.context).unwrap_or(u32::MAX)),
        ..RenderData::default()
    };
    if let Some(c) = ctx {
        // The copies: the only reads of the buffers the host wrote.
        let b = umd_buffers(st, c);
        rd.command_buffer = b.command(inp.command_length);
        rd.allocation_list = b
            .allocations(inp.num_allocations)
            .chunks_exact(ALLOCATION_WORDS)
            .map(|e| AllocationListEntry {
                h_allocation: e[0],
                value: e[1],
            })
            .collect();
        rd.patch_location_list = b
            .patches(inp.num_patch_locations)
            .chunks_exact(PATCH_WORDS)
            .map(|e| PatchLocation {
                allocation_index: e[0],
                slot_id: e[1],
                driver_id: e[2],
                allocation_offset: e[3],
                patch_offset: e[4],
                split_offset: e[5],
            })
            .collect();
    }
    let call = st
        .capture
        .is_some()
        .then(|| Observer::<std::io::BufWriter<std::fs::File>>::submit_call(&st.driver, &rd));
    let code = st.driver.render(&mut rd);
    if let (Some(c), Some(call)) = (st.capture.as_mut(), call) {
        c.on_render(call, &rd, code);
    }
    let queued = rd.queued_buffer_count;
    let o = match ctx {
        Some(c) => {
            let granted = (
                rd.new_command_buffer_size,
                rd.new_allocation_list_size,
                rd.new_patch_location_list_size,
            );
            let b = umd_buffers(st, c);
            if code == 0 && b.sizes() != granted {
                *b = UmdBuffers::new(granted);
            }
            RenderOut::of(b, queued)
        }
        None => RenderOut {
            queued,
            ..RenderOut::none()
        },
    };
    Ok((hr(code), o))
}

/// Longest input of [`softhal_assemble`] and [`softhal_disassemble`], in
/// bytes (16 MiB: a DP2 command buffer is far smaller).
pub const MAX_ASSEMBLY_BYTES: usize = 16 << 20;

/// Hands `bytes` to the host: into `out` (`out_cap` bytes) if they fit,
/// and their length to `*written` either way; `D3DERR_MOREDATA` when they
/// do not fit (nothing is written to `out` then).
///
/// # Safety
/// `out` must point to `out_cap` writable bytes (or be anything when
/// `out_cap` is 0); `written` must be non-null and aligned (checked by the
/// caller).
unsafe fn hand_out(
    bytes: &[u8],
    out: *mut u8,
    out_cap: u32,
    written: *mut u32,
) -> Result<(), HRESULT> {
    let need = u32::try_from(bytes.len()).map_err(|_| INVALIDARG)?;
    // SAFETY: checked non-null and aligned by the caller.
    unsafe { written.write(need) };
    if need > out_cap {
        return Err(hr(codes::D3DERR_MOREDATA));
    }
    // SAFETY: the host gave `out_cap` writable bytes at `out`.
    let dst = unsafe { host_bytes_mut(out, bytes.len()) }.ok_or(INVALIDARG)?;
    dst.copy_from_slice(bytes);
    Ok(())
}

/// Assembles DP2 assembly text (`docs/dp2-assembly.md`; `len` bytes of
/// UTF-8 at `text`, no NUL needed) into a DP2 command stream: the bytes go
/// to `out` (`out_cap` bytes) and their count to `*written`. Errors:
/// `E_INVALIDARG` (NULL `written`, NULL `text` with `len` > 0, `len` over
/// 16 MiB, text that is not UTF-8), `D3DERR_MOREDATA` (the stream is
/// longer than `out_cap`: `*written` is the size needed, nothing is
/// written; call again with that much), `D3DERR_COMMAND_UNPARSED` (the
/// text does not assemble: `out` receives the reason, `line N: …`, as
/// NUL-terminated text, and `*written` its length with the NUL — or
/// `D3DERR_MOREDATA` if even that does not fit). Needs no driver.
/// Thread-safe.
///
/// # Safety
/// `text` must point to `len` readable bytes; `out` to `out_cap` writable
/// bytes; `written` must be NULL or a writable `DWORD`.
#[no_mangle]
pub unsafe extern "C" fn softhal_assemble(
    text: *const c_char,
    len: u32,
    out: *mut c_void,
    out_cap: u32,
    written: *mut u32,
) -> HRESULT {
    if !valid(written) || len as usize > MAX_ASSEMBLY_BYTES || (text.is_null() && len > 0) {
        return INVALIDARG;
    }
    run(|| {
        // SAFETY: the host gave `len` readable bytes at `text`.
        let src = unsafe { crate::guard::host_copy(text.cast::<u8>(), len as usize) }
            .ok_or(INVALIDARG)?;
        let src = String::from_utf8(src).map_err(|_| INVALIDARG)?;
        match softhal_wire::text::assemble(&src) {
            // SAFETY: the host's `out_cap` bytes at `out`; `written` checked.
            Ok(bytes) => unsafe { hand_out(&bytes, out.cast(), out_cap, written) },
            Err(e) => {
                let mut msg = format!("line {}: {}", e.line, e.message).into_bytes();
                msg.push(0);
                // SAFETY: as above.
                unsafe { hand_out(&msg, out.cast(), out_cap, written) }?;
                Err(hr(codes::D3DERR_COMMAND_UNPARSED))
            }
        }
    })
}

/// Disassembles the DP2 command stream of `len` bytes at `bytes` into
/// DP2 assembly text, one command per line with its byte offset and DDK
/// names, as `softhal disasm` prints it (`fvf`: the vertex format of the
/// stream's inline vertices, 0 for none). The text goes to `out`
/// NUL-terminated, and its length with the NUL to `*written`. A stream
/// that stops decoding is `D3DERR_COMMAND_UNPARSED`: the text holds every
/// command before the problem and ends with a comment line
/// `; error at byte offset N…`. Errors: `E_INVALIDARG` (NULL `written`,
/// NULL `bytes` with `len` > 0, `len` over 16 MiB, an `fvf` with no vertex
/// size), `D3DERR_MOREDATA` (the text is longer than `out_cap`:
/// `*written` is the size needed, nothing is written). Needs no driver.
/// Thread-safe.
///
/// # Safety
/// `bytes` must point to `len` readable bytes; `out` to `out_cap`
/// writable bytes; `written` must be NULL or a writable `DWORD`.
#[no_mangle]
pub unsafe extern "C" fn softhal_disassemble(
    bytes: *const c_void,
    len: u32,
    fvf: u32,
    out: *mut c_char,
    out_cap: u32,
    written: *mut u32,
) -> HRESULT {
    if !valid(written) || len as usize > MAX_ASSEMBLY_BYTES || (bytes.is_null() && len > 0) {
        return INVALIDARG;
    }
    run(|| {
        let (fvf, vertex_stride) = if fvf == 0 {
            (None, 0)
        } else {
            let stride = softhal_wire::fvf::vertex_stride(fvf).map_err(|_| INVALIDARG)?;
            (Some(fvf), stride)
        };
        // SAFETY: the host gave `len` readable bytes at `bytes`.
        let input = unsafe { crate::guard::host_copy(bytes.cast::<u8>(), len as usize) }
            .ok_or(INVALIDARG)?;
        let opts = softhal_wire::DecodeOptions {
            vertex_stride,
            base_align: 0,
        };
        let d = softhal_wire::text::disassemble(&input, fvf, opts);
        let mut text = d.text;
        if let Some(e) = &d.error {
            let _ = std::fmt::Write::write_fmt(&mut text, format_args!("; error {e}\n"));
        }
        let mut out_bytes = text.into_bytes();
        out_bytes.push(0);
        // SAFETY: the host's `out_cap` bytes at `out`; `written` checked.
        unsafe { hand_out(&out_bytes, out.cast(), out_cap, written) }?;
        match d.error {
            None => Ok(()),
            Some(_) => Err(hr(codes::D3DERR_COMMAND_UNPARSED)),
        }
    })
}
