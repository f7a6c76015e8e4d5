//! The C ABI driven from arbitrary bytes, as a C host would call it: a
//! driver, surfaces of every kind (and absurd descriptions that must be
//! refused), contexts, then a sequence of `D3dDrawPrimitives2`,
//! `D3dClear2`, `D3dValidateTextureStageState`, context create/destroy,
//! lock/unlock (writing the locked bytes), lock_level, get_desc, flip,
//! present, get_last_error, get_caps, surface destroy, the
//! unknown-command hook, render contexts and the render callback
//! (`softhal_render_cb` with GPU packets, allocation and patch-location
//! lists made from the bytes: well-formed packets built with the
//! submission path's `Writer`, raw bytes, lying counts and offsets within
//! the harness's buffers), allocation look-ups, and capture start/stop,
//! with every field of every structure taken from the bytes.
//!
//! The promise under test is about **data**: every data pointer handed to
//! softhal (vertices, rects, `lpdwRStates`, present and error-text buffers)
//! points into memory this harness owns, with the length it really has —
//! the C ABI cannot defend against a host lying about sizes
//! (`docs/threat-model.md`). Object pointers and `dwhContext`s, on the
//! other hand, are often stale or made up: those are only looked up.
//!
//! Oracles: never panics nor aborts (P1); no call reports
//! `D3DERR_DRIVERINTERNALERROR` (a panic caught at the boundary); every
//! softhal function returns a documented code; ASan sees no access outside
//! the harness's buffers (P2 at the C boundary); destroying the driver
//! frees everything it made (heap back to its level, second run measured);
//! **what was captured replays**: when the input starts a capture (first
//! byte's bit 2, before any context exists), the file written by
//! `softhal_capture_stop` loads and replays on a fresh driver with every
//! recorded answer given again (`ddrval`s, error offsets, render-callback
//! sizes, frame checksums) — unless the session installed the host's
//! unknown-command hook, which captures do not reproduce
//! (`docs/capture-format.md`): then it must load and replay, no more.
#![no_main]
use libfuzzer_sys::fuzz_target;
use softhal::*;
use softhal_wire::names::codes;
use std::ffi::c_void;
use std::mem::size_of;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicU8, Ordering};

#[path = "common/mod.rs"]
mod common;
use common::Bytes;

#[global_allocator]
static ALLOC: common::Counting = common::Counting;

/// Heap growth tolerated per run: the process-wide registry's hash tables
/// may resize when a run's keys (addresses) differ from the last run's,
/// by an amount that depends on the campaign's history. Leaks smaller than
/// this are caught by `device_lifecycle` (exact) and by the registry check
/// at the end of `run` (every object unregistered with its driver).
const REGISTRY_SLACK: isize = 64 << 10;

const FVFS: [u32; 6] = [0x44, 0x1c4, 0x142, 0x112, 0x104, 0x52];

/// How the hook answers: 0 fails, 1 skips the 4-byte header, 2 points far
/// past the data (must be refused), 3 points back at the header.
static HOOK_MODE: AtomicU8 = AtomicU8::new(1);

unsafe extern "system" fn hook(cmd: *mut c_void, next: *mut *mut c_void) -> HRESULT {
    let mode = HOOK_MODE.load(Ordering::Relaxed) % 4;
    let target = match mode {
        0 => return codes::E_FAIL as HRESULT,
        1 => (cmd as usize).wrapping_add(4),
        2 => (cmd as usize).wrapping_add(1 << 30),
        _ => cmd as usize,
    };
    // SAFETY: `next` is softhal's valid out-pointer for this call.
    unsafe { next.write(target as *mut c_void) };
    0
}

/// Codes softhal's own functions may return (`docs/c-api.md`, Errors).
fn documented(r: HRESULT) -> bool {
    [
        codes::D3D_OK,
        codes::E_INVALIDARG,
        codes::DDERR_INVALIDOBJECT,
        codes::DDERR_INVALIDPIXELFORMAT,
        codes::DDERR_OUTOFMEMORY,
        codes::DDERR_CANTLOCKSURFACE,
        codes::D3DERR_INVALIDCALL,
        codes::E_NOTIMPL,
        codes::DDERR_INVALIDPARAMS,
    ]
    .contains(&(r as u32))
}

fn check(what: &str, r: HRESULT) -> HRESULT {
    assert_ne!(
        r as u32,
        codes::D3DERR_DRIVERINTERNALERROR,
        "{what}: a panic was caught"
    );
    assert!(documented(r), "{what}: undocumented result {:#x}", r as u32);
    r
}

fn ddrval(what: &str, r: HRESULT) {
    assert_ne!(
        r as u32,
        codes::D3DERR_DRIVERINTERNALERROR,
        "{what}: a panic was caught"
    );
}

struct Host {
    driver: *mut softhal_driver,
    surfaces: Vec<*mut softhal_surface>,
    contexts: Vec<usize>,
    render_contexts: Vec<*mut c_void>,
}

/// This process's capture file (one run at a time), in memory-backed
/// `/dev/shm` where there is one (a disk-backed file costs the campaign
/// most of its executions).
fn capture_path() -> std::ffi::CString {
    let shm = std::path::Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let p = dir.join(format!("softhal-capi-fuzz-{}.shcap", std::process::id()));
    std::ffi::CString::new(p.to_string_lossy().into_owned()).unwrap_or_default()
}

impl Host {
    fn surface(&self, b: &mut Bytes<'_>) -> *mut softhal_surface {
        match b.u8() % 10 {
            0 => null_mut(),
            1 => b.u32() as usize as *mut softhal_surface, // made up
            _ => self
                .surfaces
                .get(b.below(self.surfaces.len()))
                .copied()
                .unwrap_or(null_mut()),
        }
    }
    fn context(&self, b: &mut Bytes<'_>) -> usize {
        match b.u8() % 10 {
            0 => 0,
            1 => b.u32() as usize,
            _ => self
                .contexts
                .get(b.below(self.contexts.len()))
                .copied()
                .unwrap_or(0),
        }
    }
    fn render_context(&self, b: &mut Bytes<'_>) -> *mut c_void {
        match b.u8() % 10 {
            0 => null_mut(),
            1 => b.u32() as usize as *mut c_void, // made up
            _ => self
                .render_contexts
                .get(b.below(self.render_contexts.len()))
                .copied()
                .unwrap_or(null_mut()),
        }
    }

    /// The allocation handle of a chosen surface (or a made-up one).
    fn allocation(&self, b: &mut Bytes<'_>) -> u32 {
        if b.u8().is_multiple_of(8) {
            return b.u32();
        }
        let s = self.surface(b);
        let mut a = 0u32;
        // SAFETY: valid out-pointer; `s` is only looked up.
        let r = check("get_allocation", unsafe {
            softhal_surface_get_allocation(s, &mut a)
        });
        if r == 0 {
            assert_ne!(a, 0, "get_allocation succeeded with handle 0");
        }
        a
    }

    /// One `softhal_render_cb` call: packets (well-formed from the
    /// `Writer`, or raw bytes), an allocation list, a patch-location list
    /// (the writer's references, some entries altered) and counts that
    /// may be smaller than the lists. Every pointer and count stays
    /// within the harness's own buffers (the host's side of the
    /// contract).
    fn render(&self, b: &mut Bytes<'_>) {
        use softhal_submit::packet::Writer;
        let mut w = Writer::new();
        for _ in 0..b.u8() % 12 {
            match b.u8() % 14 {
                0 => {
                    let pairs: Vec<(u32, u32)> = (0..b.u8() % 4)
                        // Register ids reach 0x4163 (docs/gpu-commands.md).
                        .map(|_| (u32::from(b.u16() & 0x7FFF), b.u32()))
                        .collect();
                    w.set_regs(&pairs);
                }
                1 => {
                    let c = u32::from(b.u8() % 6);
                    let d = b.u8();
                    w.bind_targets(c, (d & 8 != 0).then_some(u32::from(d % 6)));
                }
                2 => {
                    let fvf = FVFS[usize::from(b.u8()) % FVFS.len()];
                    if let Ok(l) = softhal_device::exec::layout_from_fvf(fvf) {
                        w.vertex_format(&l);
                    }
                }
                3 => {
                    let (i, off, size) = (
                        u32::from(b.u8() % 6),
                        u32::from(b.u16()),
                        u32::from(b.u16()),
                    );
                    w.set_vertices(i, off, size);
                }
                4 => w.vertices_inline(b.chunk()),
                5 => {
                    let (i, off, size) = (
                        u32::from(b.u8() % 6),
                        u32::from(b.u16()),
                        u32::from(b.u16()),
                    );
                    w.set_indices(i, off, size, [2, 4, 3][usize::from(b.u8() % 3)]);
                }
                6 => w.indices_inline(b.chunk(), [2, 4][usize::from(b.u8() % 2)]),
                7 => {
                    let (t, first, count) = (
                        u32::from(b.u8() % 8),
                        u32::from(b.u16()),
                        u32::from(b.u16()),
                    );
                    let base = i32::from(b.u8() as i8);
                    w.draw(t, first, count, base, b.u8() & 1 != 0);
                }
                8 => {
                    let rects: Vec<[i32; 4]> = (0..b.u8() % 3)
                        .map(|_| [0; 4].map(|_: i32| i32::from(b.u8() as i8) * 2))
                        .collect();
                    let (f, c, z, st) = (
                        u32::from(b.u8() & 7),
                        b.u32(),
                        f32::from_bits(b.u32()),
                        b.u32(),
                    );
                    w.clear_targets(f, c, z, st, &rects);
                }
                9 => {
                    let (s, so, d, dof, n) = (
                        u32::from(b.u8() % 6),
                        u32::from(b.u16()),
                        u32::from(b.u8() % 6),
                        u32::from(b.u16()),
                        u32::from(b.u16()),
                    );
                    w.buffer_copy(s, so, d, dof, n);
                }
                10 => w.present(u32::from(b.u8() % 6)),
                11 => {
                    let (stage, i) = (u32::from(b.u8() % 9), b.u8());
                    w.set_texture(stage, (i & 8 == 0).then_some(u32::from(i % 6)));
                }
                12 => w.query(b.u8() & 1 != 0, u32::from(b.u8())),
                _ => {
                    let (op, flags) = (b.u8(), b.u8());
                    let payload: Vec<u32> = b
                        .chunk()
                        .chunks_exact(4)
                        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect();
                    w.raw(op, flags, &payload);
                }
            }
        }
        // Raw bytes after the packets (often nothing).
        let mut cmd = w.bytes.clone();
        cmd.extend_from_slice(b.chunk());
        let offset = (usize::from(b.u8() % 4) * 4).min(cmd.len());
        let mut buffer = vec![0u8; offset];
        buffer.extend_from_slice(&cmd);

        let allocs: Vec<D3DDDI_ALLOCATIONLIST> = (0..b.u8() % 7)
            .map(|_| D3DDDI_ALLOCATIONLIST {
                hAllocation: self.allocation(b),
                Value: u32::from(b.u8() & 3) | if b.u8().is_multiple_of(32) { 1 << 5 } else { 0 },
            })
            .collect();
        let mut patches: Vec<D3DDDI_PATCHLOCATIONLIST> = w
            .refs
            .iter()
            .map(|r| D3DDDI_PATCHLOCATIONLIST {
                AllocationIndex: r.index,
                Value: 0,
                DriverId: 0,
                AllocationOffset: 0,
                PatchOffset: r.offset,
                SplitOffset: 0,
            })
            .collect();
        for _ in 0..b.u8() % 3 {
            let i = b.below(patches.len().max(1));
            if let Some(p) = patches.get_mut(i) {
                match b.u8() % 4 {
                    0 => p.AllocationIndex = u32::from(b.u8()),
                    1 => p.PatchOffset = u32::from(b.u16()),
                    2 => p.Value = b.u32(),
                    _ => p.AllocationOffset = b.u32(),
                }
            } else {
                patches.push(D3DDDI_PATCHLOCATIONLIST {
                    AllocationIndex: u32::from(b.u8()),
                    Value: 0,
                    DriverId: 0,
                    AllocationOffset: 0,
                    PatchOffset: u32::from(b.u16()),
                    SplitOffset: 0,
                });
            }
        }
        let short = |b: &mut Bytes<'_>, n: usize| -> u32 {
            let cut = if b.u8().is_multiple_of(8) {
                usize::from(b.u8())
            } else {
                0
            };
            n.saturating_sub(cut) as u32
        };
        let command_length = {
            let cut = if b.u8().is_multiple_of(8) {
                usize::from(b.u8() % 16)
            } else {
                0
            };
            (cmd.len() - cut.min(cmd.len())) as u32
        };
        // SAFETY: D3DDDICB_RENDER is integers and pointers; all-zero is a valid value.
        let mut r: D3DDDICB_RENDER = unsafe { std::mem::zeroed() };
        let context = self.render_context(b);
        // The UMD's side of the contract: write the submission into the
        // buffers softhal handed out for the context, as far as they
        // reach (counts beyond them must be refused).
        // SAFETY: valid out-pointer; the context is only looked up.
        let got = unsafe { softhal_render_context_get_buffers(self.driver, context, &mut r) };
        if got == 0 {
            let bytes = &buffer[..(r.NewCommandBufferSize as usize).min(buffer.len())];
            let n_al = (r.NewAllocationListSize as usize).min(allocs.len());
            let n_pl = (r.NewPatchLocationListSize as usize).min(patches.len());
            // SAFETY: softhal's buffers hold the sizes it reported; each
            // copy stays within them and within the harness's data.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    r.pNewCommandBuffer.cast::<u8>(),
                    bytes.len(),
                );
                std::ptr::copy_nonoverlapping(allocs.as_ptr(), r.pNewAllocationList, n_al);
                std::ptr::copy_nonoverlapping(patches.as_ptr(), r.pNewPatchLocationList, n_pl);
            }
        }
        r.CommandLength = command_length;
        r.CommandOffset = offset as u32;
        r.NumAllocations = short(b, allocs.len());
        r.NumPatchLocations = short(b, patches.len());
        r.NewCommandBufferSize = if b.u8().is_multiple_of(4) {
            b.u32()
        } else {
            u32::from(b.u16())
        };
        r.NewAllocationListSize = u32::from(b.u16());
        r.NewPatchLocationListSize = u32::from(b.u16());
        r.Flags = if b.u8().is_multiple_of(4) { b.u32() } else { 0 };
        r.hContext = context;
        r.BroadcastContextCount = u32::from(b.u8().is_multiple_of(32));
        let device: *mut c_void = if b.u8().is_multiple_of(16) {
            b.u32() as usize as *mut c_void
        } else {
            self.driver.cast()
        };
        // SAFETY: `r` holds only counts and handles: softhal reads the
        // submission from its own buffers (the pNew* fields are outputs).
        let code = unsafe { softhal_render_cb(device, &mut r) };
        assert_ne!(
            code as u32,
            codes::D3DERR_DRIVERINTERNALERROR,
            "render_cb: a panic was caught"
        );
        assert!(
            common::RENDER_ANSWERS.contains(&(code as u32))
                || [codes::DDERR_INVALIDOBJECT, codes::D3DERR_INVALIDCALL].contains(&(code as u32)),
            "render_cb: undocumented result {:#x}",
            code as u32
        );
        // The buffers handed out are as large as the sizes say: every byte
        // is the host's to write (ASan checks the bounds).
        if !r.pNewCommandBuffer.is_null() {
            // SAFETY: softhal's contract for the buffers it hands out.
            unsafe {
                std::ptr::write_bytes(
                    r.pNewCommandBuffer.cast::<u8>(),
                    0,
                    r.NewCommandBufferSize as usize,
                );
                std::ptr::write_bytes(r.pNewAllocationList, 0, r.NewAllocationListSize as usize);
                std::ptr::write_bytes(
                    r.pNewPatchLocationList,
                    0,
                    r.NewPatchLocationListSize as usize,
                );
            }
        }
    }

    fn create_surface(&mut self, b: &mut Bytes<'_>) {
        let kind = u32::from(b.u8() % 11);
        let huge = b.u8().is_multiple_of(16);
        let dim = |b: &mut Bytes<'_>| {
            if huge {
                b.u32() | 0x10000
            } else {
                1 + u32::from(b.u8() % 48)
            }
        };
        let formats = [21, 22, 23, 26, 75, 77, 80, 0, 0x31545844];
        let buffer = matches!(kind, 6..=9);
        let desc = SOFTHAL_SURFACE_DESC {
            dwSize: if b.u8().is_multiple_of(32) {
                0
            } else {
                size_of::<SOFTHAL_SURFACE_DESC>() as u32
            },
            dwKind: kind,
            dwFormat: if kind == 2 {
                75
            } else {
                formats[usize::from(b.u8()) % formats.len()]
            },
            dwWidth: if buffer {
                u32::from(b.u16() % 4096)
            } else {
                dim(b)
            },
            dwHeight: dim(b),
            dwDepth: 1 + u32::from(b.u8() % 4),
            dwMipLevels: u32::from(b.u8() % 4),
            dwHandle: b.u32(),
        };
        let mut s = null_mut();
        // SAFETY: valid pointers to locals.
        let r = check("surface_create", unsafe {
            softhal_surface_create(self.driver, &desc, &mut s)
        });
        if r == 0 {
            assert!(
                !huge || buffer,
                "a {}x{} surface was accepted",
                desc.dwWidth,
                desc.dwHeight
            );
            self.surfaces.push(s);
        }
    }
}

/// Writes `bytes` into `s` through lock/unlock (never past `dwSize`).
fn write(s: *mut softhal_surface, flags: u32, at: usize, bytes: &[u8]) {
    let mut l = SOFTHAL_LOCKED_SURFACE {
        pBits: null_mut(),
        dwPitch: 0,
        dwSize: 0,
    };
    // SAFETY: valid out-pointer; the lock pointer is used within dwSize
    // before unlock, as the API allows.
    unsafe {
        if check("lock", softhal_surface_lock(s, flags, &mut l)) != 0 {
            return;
        }
        let size = l.dwSize as usize;
        let at = at.min(size);
        let n = bytes.len().min(size - at);
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), l.pBits.cast::<u8>().add(at), n);
        check("unlock", softhal_surface_unlock(s));
    }
}

/// Runs the op sequence; true when the host's unknown-command hook was
/// installed at some point (a capture does not reproduce it).
fn run(data: &[u8]) -> bool {
    let mut b = Bytes::new(data);
    let mut hooked = false;
    let mut driver = null_mut();
    let first = b.u8();
    // SAFETY: valid out-pointer.
    assert_eq!(
        unsafe { softhal_driver_create(u32::from(first % 3), &mut driver) },
        0
    );
    // No GPU timeout (libFuzzer's -timeout bounds the run): a wall-clock
    // stop would make the replay differ from the recording.
    // SAFETY: a live driver.
    assert_eq!(unsafe { softhal_driver_set_timeout(driver, 0) }, 0);
    let mut host = Host {
        driver,
        surfaces: Vec::new(),
        contexts: Vec::new(),
        render_contexts: Vec::new(),
    };
    let path = capture_path();
    let capturing = first & 4 != 0;
    if capturing {
        // SAFETY: a NUL-terminated path.
        assert_eq!(
            unsafe { softhal_capture_start(driver, path.as_ptr()) },
            0,
            "a capture starts on a driver without contexts"
        );
    }
    // A render target, a command buffer and a vertex buffer always exist.
    for (kind, fmt, w) in [
        (SOFTHAL_SURFACE_RENDERTARGET, 22, 16),
        (SOFTHAL_SURFACE_COMMANDBUFFER, 0, 4096),
        (SOFTHAL_SURFACE_VERTEXBUFFER, 0, 1024),
    ] {
        let desc = SOFTHAL_SURFACE_DESC {
            dwSize: size_of::<SOFTHAL_SURFACE_DESC>() as u32,
            dwKind: kind,
            dwFormat: fmt,
            dwWidth: w,
            dwHeight: if kind == 1 { 16 } else { 1 },
            dwDepth: 1,
            dwMipLevels: 1,
            dwHandle: 0,
        };
        let mut s = null_mut();
        // SAFETY: valid pointers to locals.
        assert_eq!(unsafe { softhal_surface_create(driver, &desc, &mut s) }, 0);
        host.surfaces.push(s);
    }
    let mut ops = 0;
    while !b.is_empty() && ops < 48 {
        ops += 1;
        match b.u8() % 20 {
            0 => host.create_surface(&mut b),
            1 => {
                let mut c = D3DHAL_CONTEXTCREATEDATA {
                    lpDDGbl: if b.u8().is_multiple_of(16) {
                        b.u32() as usize as *mut softhal_driver
                    } else {
                        driver
                    },
                    lpDDS: host.surface(&mut b),
                    lpDDSZ: if b.u8() & 1 == 0 {
                        null_mut()
                    } else {
                        host.surface(&mut b)
                    },
                    dwPID: 0,
                    dwhContext: 0,
                    ddrval: -1,
                };
                // SAFETY: valid pointer to a local.
                unsafe { D3dContextCreate(&mut c) };
                ddrval("D3dContextCreate", c.ddrval);
                if c.ddrval == 0 {
                    assert_ne!(c.dwhContext, 0);
                    host.contexts.push(c.dwhContext);
                }
            }
            2 => {
                let mut d = D3DHAL_CONTEXTDESTROYDATA {
                    dwhContext: host.context(&mut b),
                    ddrval: -1,
                };
                // SAFETY: valid pointer to a local.
                unsafe { D3dContextDestroy(&mut d) };
                ddrval("D3dContextDestroy", d.ddrval);
            }
            3..=6 => {
                // D3dDrawPrimitives2. Commands go into a command surface
                // first (when the chosen one is ours).
                let cb = host.surface(&mut b);
                let offset = u32::from(b.u8() % 8);
                let commands = b.chunk();
                if host.surfaces.contains(&cb) {
                    write(cb, 0, offset as usize, commands);
                }
                let fvf = if b.u8().is_multiple_of(8) {
                    b.u32()
                } else {
                    FVFS[usize::from(b.u8()) % FVFS.len()]
                };
                // dwVertexSize: mostly the FVF's stride (as a DX6/7 runtime
                // passes it), sometimes anything (a DX8 runtime's stream
                // stride, or a lying guest).
                let fvf_stride = softhal_wire::fvf::vertex_stride(fvf).unwrap_or(0);
                let vertex_size = if b.u8().is_multiple_of(4) {
                    u32::from(b.u8() % 64)
                } else {
                    fvf_stride
                };
                let flags = u32::from(b.u8());
                let mut verts = b.chunk().to_vec();
                let voff = usize::from(b.u8() % 16).min(verts.len());
                // Honest lengths as the DDK defines them: dwVertexLength
                // vertices of dwVertexSize bytes after dwVertexOffset.
                let vlen = match (verts.len() - voff).checked_div(vertex_size as usize) {
                    Some(n) => n as u32,
                    None => u32::from(b.u8()),
                };
                let mut rstates = [0u32; 256];
                let user = flags & 1 != 0;
                let vb = host.surface(&mut b);
                let mut d = D3DHAL_DRAWPRIMITIVES2DATA {
                    dwhContext: host.context(&mut b),
                    dwFlags: flags,
                    dwVertexType: fvf,
                    lpDDCommands: cb,
                    dwCommandOffset: if b.u8().is_multiple_of(16) {
                        b.u32()
                    } else {
                        offset
                    },
                    dwCommandLength: if b.u8().is_multiple_of(16) {
                        b.u32()
                    } else {
                        commands.len() as u32
                    },
                    lpDDVertex: if user {
                        if verts.is_empty() {
                            null_mut()
                        } else {
                            verts.as_mut_ptr().cast()
                        }
                    } else {
                        vb.cast()
                    },
                    dwVertexOffset: if user { voff as u32 } else { b.u32() },
                    dwVertexLength: if user { vlen } else { u32::from(b.u16()) },
                    dwReqVertexBufSize: b.u32(),
                    dwReqCommandBufSize: b.u32(),
                    lpdwRStates: if b.u8() & 1 == 0 {
                        rstates.as_mut_ptr()
                    } else {
                        null_mut()
                    },
                    dwVertexSize: vertex_size,
                    dwErrorOffset: 0,
                };
                // SAFETY: every data pointer in `d` points into this
                // harness's buffers with honest lengths.
                unsafe { D3dDrawPrimitives2(&mut d) };
                ddrval("D3dDrawPrimitives2", d.dwVertexSize as HRESULT);
            }
            7 => {
                let mut rects: Vec<D3DRECT> = (0..b.u8() % 6)
                    .map(|_| D3DRECT {
                        x1: b.u16() as i16 as i32,
                        y1: b.u16() as i16 as i32,
                        x2: b.u16() as i32,
                        y2: b.u16() as i32,
                    })
                    .collect();
                let mut d = D3DHAL_CLEAR2DATA {
                    dwhContext: host.context(&mut b),
                    dwFlags: u32::from(b.u8()),
                    dwFillColor: b.u32(),
                    dvFillDepth: f32::from_bits(b.u32()),
                    dwFillStencil: b.u32(),
                    lpRects: if rects.is_empty() {
                        null_mut()
                    } else {
                        rects.as_mut_ptr()
                    },
                    dwNumRects: rects.len() as u32,
                    ddrval: -1,
                };
                // SAFETY: lpRects holds dwNumRects rects.
                unsafe { D3dClear2(&mut d) };
                ddrval("D3dClear2", d.ddrval);
            }
            8 => {
                let mut d = D3DHAL_VALIDATETEXTURESTAGESTATEDATA {
                    dwhContext: host.context(&mut b),
                    dwFlags: u32::from(b.u8()),
                    dwReserved: 0,
                    dwNumPasses: 0,
                    ddrval: -1,
                };
                // SAFETY: valid pointer to a local.
                unsafe { D3dValidateTextureStageState(&mut d) };
                ddrval("D3dValidateTextureStageState", d.ddrval);
            }
            9 => {
                let s = host.surface(&mut b);
                let flags = [
                    0,
                    SOFTHAL_LOCK_READONLY,
                    SOFTHAL_LOCK_DISCARD,
                    SOFTHAL_LOCK_NOOVERWRITE,
                ][usize::from(b.u8() % 4)];
                let at = usize::from(b.u16());
                write(s, flags, at, b.chunk());
            }
            10 => {
                let s = host.surface(&mut b);
                let mut l = SOFTHAL_LOCKED_SURFACE {
                    pBits: null_mut(),
                    dwPitch: 0,
                    dwSize: 0,
                };
                let (face, level) = (u32::from(b.u8() % 8), u32::from(b.u8() % 6));
                // SAFETY: valid out-pointer; the bytes are written within dwSize.
                unsafe {
                    if check(
                        "lock_level",
                        softhal_surface_lock_level(s, face, level, 0, &mut l),
                    ) == 0
                    {
                        std::ptr::write_bytes(l.pBits.cast::<u8>(), 0x3C, l.dwSize as usize);
                        check("unlock", softhal_surface_unlock(s));
                    }
                    // A second unlock must be an error, not a crash.
                    check("unlock again", softhal_surface_unlock(s));
                }
            }
            11 => {
                let s = host.surface(&mut b);
                let mut desc = SOFTHAL_SURFACE_DESC {
                    dwSize: 0,
                    dwKind: 0,
                    dwFormat: 0,
                    dwWidth: 0,
                    dwHeight: 0,
                    dwDepth: 0,
                    dwMipLevels: 0,
                    dwHandle: 0,
                };
                // SAFETY: valid out-pointers.
                unsafe {
                    check("get_desc", softhal_surface_get_desc(s, &mut desc));
                    check("flip", softhal_flip(s));
                    if b.u8() & 1 == 0 {
                        check("complete_flips", softhal_complete_flips(driver));
                    }
                }
                let pitch = u32::from(b.u8()) * 4;
                let mut pixels = vec![0u8; usize::from(b.u16() % 8192)];
                // SAFETY: `pixels.len()` writable bytes.
                check("present", unsafe {
                    softhal_present(s, pixels.as_mut_ptr().cast(), pitch, pixels.len() as u32)
                });
            }
            12 => {
                let mut text = vec![0 as std::ffi::c_char; usize::from(b.u8())];
                let mut needed = 0u32;
                let ptr = if text.is_empty() {
                    null_mut()
                } else {
                    text.as_mut_ptr()
                };
                // SAFETY: `text.len()` writable bytes; valid out-pointer.
                check("get_last_error", unsafe {
                    softhal_get_last_error(driver, ptr, text.len() as u32, &mut needed)
                });
                // SAFETY: SOFTHAL_CAPS is plain integers; all-zero is a valid value.
                let mut caps: SOFTHAL_CAPS = unsafe { std::mem::zeroed() };
                caps.dwSize = if b.u8() & 1 == 0 {
                    size_of::<SOFTHAL_CAPS>() as u32
                } else {
                    4
                };
                // SAFETY: valid pointer to a local.
                check("get_caps", unsafe { softhal_get_caps(driver, &mut caps) });
            }
            13 => {
                let s = host.surface(&mut b);
                // SAFETY: only a value.
                check("surface_destroy", unsafe { softhal_surface_destroy(s) });
            }
            14 => {
                HOOK_MODE.store(b.u8(), Ordering::Relaxed);
                let f: Option<ParseUnknownCommandFn> =
                    if b.u8() & 1 == 0 { Some(hook) } else { None };
                hooked |= f.is_some();
                // SAFETY: `hook` follows the DDK signature and only writes the out-pointer.
                check("set_parse_unknown_command", unsafe {
                    softhal_set_parse_unknown_command(driver, f)
                });
            }
            15 => {
                // A second capture, a NULL path, or one while contexts
                // exist: each refused with a documented code.
                let p = if b.u8() & 1 == 0 {
                    null()
                } else {
                    path.as_ptr()
                };
                // SAFETY: NULL or a NUL-terminated path.
                let r = check("capture_start", unsafe { softhal_capture_start(driver, p) });
                if r == 0 {
                    // Started late (no context existed): not replayed.
                    // SAFETY: only a value.
                    check("capture_stop", unsafe { softhal_capture_stop(driver) });
                }
            }
            16 => {
                let engine = match b.u8() % 8 {
                    0..=3 => SOFTHAL_ENGINE_3D,
                    4..=6 => SOFTHAL_ENGINE_COPY,
                    _ => b.u32(),
                };
                let mut h = null_mut();
                // SAFETY: valid out-pointer.
                let r = check("render_context_create", unsafe {
                    softhal_render_context_create(driver, engine, &mut h)
                });
                if r == 0 {
                    assert!(!h.is_null());
                    host.render_contexts.push(h);
                }
            }
            17 => {
                let h = host.render_context(&mut b);
                // SAFETY: only a value.
                check("render_context_destroy", unsafe {
                    softhal_render_context_destroy(driver, h)
                });
            }
            _ => host.render(&mut b),
        }
    }
    if capturing {
        // SAFETY: only a value.
        check("capture_stop", unsafe { softhal_capture_stop(driver) });
    }
    // SAFETY: only a value.
    assert_eq!(unsafe { softhal_driver_destroy(driver) }, 0);
    // SAFETY: only a value; the driver is gone.
    assert_eq!(
        unsafe { softhal_driver_destroy(driver) } as u32,
        codes::DDERR_INVALIDOBJECT
    );
    // Everything the driver owned is unregistered with it.
    for s in &host.surfaces {
        let mut desc = SOFTHAL_SURFACE_DESC {
            dwSize: 0,
            dwKind: 0,
            dwFormat: 0,
            dwWidth: 0,
            dwHeight: 0,
            dwDepth: 0,
            dwMipLevels: 0,
            dwHandle: 0,
        };
        // SAFETY: `s` is only looked up; valid out-pointer.
        let r = unsafe { softhal_surface_get_desc(*s, &mut desc) };
        assert_eq!(
            r as u32,
            codes::DDERR_INVALIDOBJECT,
            "a surface outlived its driver"
        );
    }
    for c in &host.contexts {
        let mut d = D3DHAL_CONTEXTDESTROYDATA {
            dwhContext: *c,
            ddrval: 0,
        };
        // SAFETY: valid pointer to a local.
        unsafe { D3dContextDestroy(&mut d) };
        assert_eq!(
            d.ddrval as u32,
            codes::D3DHAL_CONTEXT_BAD,
            "a context outlived its driver"
        );
    }
    hooked
}

/// The capture of a run loads and replays; every recorded answer is given
/// again unless the host's `D3dParseUnknownCommand` hook was installed
/// (`hooked`): replays run without the host's code, so commands it
/// handled answer `D3DERR_COMMAND_UNPARSED` (`docs/capture-format.md`) and
/// only "loads and replays without a panic" is checked.
fn replays(path: &std::ffi::CStr, hooked: bool) {
    let path = std::path::Path::new(path.to_str().unwrap_or_default());
    let Ok(bytes) = std::fs::read(path) else {
        panic!("the capture file {path:?} was not written")
    };
    let capture = softhal_capture::load(&bytes, None).expect("softhal's own capture loads");
    let replay = softhal_capture::replay_with_timeout(&capture, 1, None, |_, _| {})
        .expect("a driver for the replay");
    assert!(
        hooked || replay.differences.is_empty(),
        "the replay differs from the recording: {:#?}",
        replay.differences
    );
    let _ = std::fs::remove_file(path);
}

fuzz_target!(|data: &[u8]| {
    let hooked = run(data); // warms the registry's tables and lazily built statics
    if data.first().is_some_and(|b| b & 4 != 0) {
        replays(&capture_path(), hooked);
    }
    let (_, usage) = common::measure(|| run(data));
    // Worker threads of a multi-threaded driver finish tearing down after
    // `softhal_driver_destroy` returns; the leak check needs 0 or 1 thread.
    // The process-wide object registry's hash tables may grow: see
    // `REGISTRY_SLACK`.
    if data.first().map_or(0, |b| b % 3) <= 1 {
        assert!(
            usage.net <= REGISTRY_SLACK,
            "{} heap bytes remain after softhal_driver_destroy",
            usage.net
        );
    }
});
