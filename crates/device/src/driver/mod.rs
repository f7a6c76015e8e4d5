//! The driver object: surfaces, contexts and the DDI entry points.
//!
//! In: host calls shaped like the DDI (surface create/lock/destroy,
//! ContextCreate/Destroy, DrawPrimitives2, Clear2,
//! ValidateTextureStageState, GetDriverInfo-style caps). Out: `ddrval`
//! codes, `dwErrorOffset`, pixels. Guarantees: handles are validated on
//! every use (generational, see [`crate::handle`]); no input can make a
//! call panic or read outside the bytes given; all memory is bounded by
//! the surfaces created and [`crate::limits`].

use crate::caps::{self, Caps, FormatCaps};
use crate::context::Context;
use crate::dp2::*;
use crate::error::{range, DeviceError, Result};
use crate::exec::{Call, Exec};
use crate::handle::Slab;
use crate::limits;
use crate::resource::{Resource, Storage, SurfaceDesc, SurfaceKind};
use crate::umd::Gpu;
use softhal_pipeline::{self as pl, Format, Renderer};
use softhal_wire::names::codes;
use softhal_wire::{Command, DecodeOptions, Decoder};
use std::sync::Arc;
mod render_cb; // a child: it needs `Driver`'s private fields

/// A host's `D3dParseUnknownCommand`: given the bytes from the unknown
/// command's header to the end of the command data, returns the offset of
/// the next command relative to that header (must be > 0), or an error.
pub type ParseUnknownCommand = Box<dyn FnMut(&[u8]) -> std::result::Result<usize, ()> + Send>;

/// Counters of the submission model (see [`crate::swap`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SwapStats {
    /// Command buffers renamed by SWAPCOMMANDBUFFER.
    pub command_renames: u64,
    /// Implicit vertex buffers renamed by SWAPVERTEXBUFFER.
    pub vertex_renames: u64,
    /// Locks of busy buffers answered by renaming (discard / implicit).
    pub lock_renames: u64,
    /// Locks of busy buffers that had to wait for the work in flight.
    pub stalls: u64,
}

/// Lock options (`DDLOCK_*` / `D3DLOCK_*` that matter to the model).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LockFlags {
    /// D3DLOCK_DISCARD: the old contents may be thrown away (rename).
    pub discard: bool,
    /// D3DLOCK_NOOVERWRITE: the host promises not to touch data in flight.
    pub no_overwrite: bool,
}

/// Where a DP2 call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dp2Failure {
    /// The `ddrval` returned.
    pub ddrval: u32,
    /// The `dwErrorOffset` returned.
    pub offset: u32,
    /// Why.
    pub error: DeviceError,
}

/// The software HAL.
pub struct Driver {
    gpu: Gpu,
    /// The watched pixels' histories not yet taken (`crate::pixel_watch`),
    /// and their events (at most `softhal_submit::limits::MAX_WATCHED_EVENTS`;
    /// commands beyond it are not kept).
    history: (Vec<crate::pixel_watch::CommandHistory>, usize),
    surfaces: Slab<Resource>,
    contexts: Slab<Context>,
    hook: Option<ParseUnknownCommand>,
    swap: SwapStats,
    last_error: Option<Dp2Failure>,
    total_bytes: u64,
    dx_version: u32,
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver")
            .field("surfaces", &self.surfaces.len())
            .field("contexts", &self.contexts.len())
            .field("swap", &self.swap)
            .finish()
    }
}

/// What a driver holds, counted (for leak checks: after everything the
/// host created is destroyed, each is back to its value for a new driver).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObjectCounts {
    /// Surfaces.
    pub surfaces: usize,
    /// Device contexts.
    pub contexts: usize,
    /// Kernel GPU contexts (the driver's own two, device contexts that
    /// have drawn, the host's render contexts).
    pub gpu_contexts: usize,
    /// Kernel allocations.
    pub allocations: usize,
    /// GPU contexts whose registers and counters the GPU's execution half
    /// keeps.
    pub gpu_exec_states: usize,
    /// (allocation, GPU context) pairs whose last use the kernel
    /// remembers.
    pub allocation_uses: usize,
    /// GPU contexts whose emitted registers the driver remembers.
    pub register_shadows: usize,
}

impl Driver {
    /// Everything the driver holds, counted.
    pub fn object_counts(&self) -> ObjectCounts {
        let k = self.gpu.kmd.object_counts();
        ObjectCounts {
            surfaces: self.surfaces.len(),
            contexts: self.contexts.len(),
            gpu_contexts: k.contexts,
            allocations: k.allocations,
            gpu_exec_states: k.exec_contexts,
            allocation_uses: k.allocation_uses,
            register_shadows: self.gpu.shadowed_contexts(),
        }
    }

    /// A driver rendering with `threads` worker threads (0 or 1: on the
    /// calling thread).
    pub fn new(threads: usize) -> Result<Self> {
        Ok(Driver {
            gpu: Gpu::new(Renderer::new(threads)?)?,
            history: (Vec::new(), 0),
            surfaces: Slab::new(1, limits::MAX_SURFACES, "surface"),
            contexts: Slab::new(2, limits::MAX_CONTEXTS, "context"),
            hook: None,
            swap: SwapStats::default(),
            last_error: None,
            total_bytes: 0,
            dx_version: crate::context::DEFAULT_DX_VERSION,
        })
    }

    /// Sets how long one GPU submission may run before the watchdog stops
    /// it (`None`: no limit; default
    /// [`softhal_submit::limits::DEFAULT_GPU_TIMEOUT_MS`]). A stopped
    /// submission removes the context that made it: see
    /// `docs/submission.md`, "Timeouts and cancellation".
    pub fn set_gpu_timeout(&mut self, timeout: Option<std::time::Duration>) {
        self.gpu.kmd.set_timeout(timeout);
    }

    /// The time one GPU submission may run (`None`: no limit).
    pub fn gpu_timeout(&self) -> Option<std::time::Duration> {
        self.gpu.kmd.timeout()
    }

    /// A handle that stops the GPU work running when it is triggered,
    /// from any thread (the call waiting for it returns, and the context
    /// whose work stopped is removed, as after a timeout).
    pub fn cancel_handle(&self) -> pl::CancelHandle {
        self.gpu.kmd.cancel_handle()
    }

    /// Whether context `h` is removed (its GPU work was stopped by the
    /// timeout or a cancellation): every later DrawPrimitives2 and Clear2
    /// on it returns `D3DDDIERR_DEVICEREMOVED`; destroy it and create
    /// another. Waits for the GPU work in flight first.
    pub fn context_removed(&mut self, h: u32) -> bool {
        self.sync();
        self.gpu.removed(h, &mut self.surfaces)
    }

    /// Watches pixels of the render target (`None`: stops watching): from
    /// now on every DP2 command that draws records, per pipeline draw,
    /// what it did at each pixel (see [`crate::pixel_watch`]); take the
    /// records with [`Driver::take_pixel_history`]. A debugging option of
    /// the driver: no command stream or GPU packet can set it. Pixels are
    /// drawn exactly as without it.
    pub fn set_pixel_watch(&mut self, watch: Option<pl::PixelWatch>) {
        self.sync();
        self.gpu.watching = watch.is_some();
        self.gpu.kmd.set_pixel_watch(watch);
    }

    /// The histories recorded since the last call, one per DP2 command
    /// that drew, in execution order.
    pub fn take_pixel_history(&mut self) -> Vec<crate::pixel_watch::CommandHistory> {
        std::mem::take(&mut self.history).0
    }

    /// The pipeline renderer (SIMD and thread settings).
    pub fn renderer_mut(&mut self) -> &mut Renderer {
        self.sync();
        let Gpu { kmd, spare, .. } = &mut self.gpu;
        kmd.renderer_mut().unwrap_or(spare)
    }

    /// Waits for the GPU work in flight (it executes; nothing retires)
    /// and updates every context's occlusion counter
    /// (`ContextStats::samples_passed`). See `docs/submission.md`, "When
    /// work runs".
    pub fn wait_for_gpu(&mut self) {
        self.sync();
    }

    /// Waits for the GPU work in flight and returns the GPU counters of
    /// context `h` (draws, primitives, samples passed, pixels written),
    /// summed over everything it executed; `None` for an unknown context.
    pub fn gpu_counters(&mut self, h: u32) -> Option<softhal_submit::ContextCounters> {
        self.sync();
        self.gpu.counters(h)
    }

    /// Waits for the GPU job in flight; the contexts' occlusion counters
    /// follow the work executed so far.
    pub(crate) fn sync(&mut self) {
        self.gpu.sync(&mut self.surfaces);
        self.update_samples();
    }

    fn update_samples(&mut self) {
        for (h, c) in self.contexts.iter_mut() {
            c.stats.samples_passed = self.gpu.samples_passed(h);
        }
    }

    /// The kernel side and GPU (fences, counters, [`softhal_submit::Kmd::snapshot`]).
    pub fn kmd(&self) -> &softhal_submit::Kmd {
        &self.gpu.kmd
    }

    /// The kernel allocation of a surface (render targets, depth buffers
    /// and buffers have one).
    pub fn allocation_of(&self, surface: u32) -> Option<u32> {
        self.gpu.alloc_of.get(&surface).copied()
    }

    /// The GPU context of a device context.
    pub fn gpu_context_of(&self, ctx: u32) -> Option<u32> {
        self.gpu.ctx_of.get(&ctx).copied()
    }

    // ------------------------------------------------------------ surfaces

    /// Creates a surface; returns its handle.
    pub fn create_surface(&mut self, desc: SurfaceDesc) -> Result<u32> {
        let budget = limits::MAX_TOTAL_SURFACE_BYTES.saturating_sub(self.total_bytes);
        let (res, bytes) = Resource::create(desc, budget)?;
        let h = self.surfaces.insert(res)?;
        if let Err(e) = self.surfaces.get(h).and_then(|r| self.gpu.register(h, r)) {
            let _ = self.surfaces.remove(h);
            return Err(e);
        }
        // bytes ≤ budget = MAX_TOTAL_SURFACE_BYTES − total_bytes.
        self.total_bytes = self.total_bytes.saturating_add(bytes);
        Ok(h)
    }

    /// A render target.
    pub fn create_render_target(&mut self, format: Format, width: u32, height: u32) -> Result<u32> {
        self.create_surface(SurfaceDesc::render_target(format, width, height))
    }

    /// A depth/stencil buffer.
    pub fn create_depth_stencil(&mut self, format: Format, width: u32, height: u32) -> Result<u32> {
        self.create_surface(SurfaceDesc::depth_stencil(format, width, height))
    }

    /// A 2-D texture (`mip_levels` 0 = full chain).
    pub fn create_texture(
        &mut self,
        format: impl Into<crate::resource::D3dFormat>,
        width: u32,
        height: u32,
        mip_levels: u32,
    ) -> Result<u32> {
        self.create_surface(SurfaceDesc::texture(format, width, height, mip_levels))
    }

    /// A vertex buffer of `bytes` bytes (`implicit`: driver-managed).
    pub fn create_vertex_buffer(&mut self, bytes: u32, implicit: bool) -> Result<u32> {
        self.create_surface(SurfaceDesc::buffer(
            SurfaceKind::VertexBuffer { implicit },
            bytes,
        ))
    }

    /// An index buffer of `bytes` bytes.
    pub fn create_index_buffer(&mut self, bytes: u32) -> Result<u32> {
        self.create_surface(SurfaceDesc::buffer(SurfaceKind::IndexBuffer, bytes))
    }

    /// A command buffer of `bytes` bytes.
    pub fn create_command_buffer(&mut self, bytes: u32) -> Result<u32> {
        self.create_surface(SurfaceDesc::buffer(SurfaceKind::CommandBuffer, bytes))
    }

    /// A command buffer holding `bytes` (convenience for hosts and tests).
    pub fn create_command_buffer_with(&mut self, bytes: &[u8]) -> Result<u32> {
        let n = u32::try_from(bytes.len()).map_err(|_| {
            range(
                "command buffer size",
                bytes.len() as u64,
                u64::from(u32::MAX),
            )
        })?;
        let h = self.create_command_buffer(n)?;
        self.lock(h, LockFlags::default())?.copy_from_slice(bytes);
        self.unlock(h)?;
        Ok(h)
    }

    /// The handle of an attached surface of the render-target texture `h`
    /// (one created with [`SurfaceDesc::render_target`]): face `face`
    /// (cube textures 0–5, D3DCUBEMAP_FACES; 0 otherwise), mip level
    /// `level`. The DDI names each mip level and cube face of a texture by
    /// its own surface handle; SETRENDERTARGET, SETRENDERTARGET2 and
    /// ContextCreate take it to render into that level. Face 0, level 0 is
    /// `h` itself; asking again gives the same handle. It lives as long as
    /// the texture (destroying the texture destroys it; it can also be
    /// destroyed alone). Only a render target: sampling it, locking it or
    /// blitting it fails or samples as no texture, like any non-texture
    /// surface. Errors: not a render-target texture
    /// (`DDERR_INVALIDOBJECT`), no such face or level
    /// (`DDERR_INVALIDPARAMS`), the surface cap.
    pub fn attached_surface(&mut self, h: u32, face: u32, level: u32) -> Result<u32> {
        let a = self.surfaces.get(h)?.attached(h, face, level)?;
        if face == 0 && level == 0 {
            return Ok(h);
        }
        let same = self.surfaces.iter().find(|(_, r)| r.storage == a.storage);
        if let Some((x, _)) = same {
            return Ok(x);
        }
        self.surfaces.insert(a)
    }

    /// The attached surfaces named so far ([`Driver::attached_surface`]):
    /// (handle, texture, face, level).
    pub fn attached_surfaces(&self) -> Vec<(u32, u32, u32, u32)> {
        self.surfaces
            .iter()
            .filter_map(|(h, r)| match r.storage {
                Storage::Attached {
                    parent,
                    face,
                    level,
                } => Some((h, parent, face, level)),
                _ => None,
            })
            .collect()
    }

    /// Destroys a surface; its handle is invalid from now on.
    pub fn destroy_surface(&mut self, h: u32) -> Result<()> {
        self.surfaces.get(h)?;
        self.sync();
        if let Some(a) = self.gpu.alloc_of.remove(&h) {
            let mut mem = Gpu::mem(&mut self.surfaces, &self.gpu.surface_of);
            let _ = self.gpu.kmd.destroy_allocation(a, &mut mem);
            self.gpu.surface_of.remove(&a);
            self.gpu.texture_targets.remove(&a);
        }
        self.gpu.pending_flips.remove(&h);
        let r = self.surfaces.remove(h)?;
        self.total_bytes = self.total_bytes.saturating_sub(r.byte_size());
        // Its attached surfaces go with it.
        let attached: Vec<u32> = self
            .surfaces
            .iter()
            .filter(|(x, a)| a.target_of(*x).0 == h)
            .map(|(x, _)| x)
            .collect();
        for x in attached {
            let _ = self.surfaces.remove(x);
        }
        Ok(())
    }

    /// A surface.
    pub fn surface(&self, h: u32) -> Result<&Resource> {
        self.gpu.land_images(&self.surfaces);
        self.surfaces.get(h)
    }

    /// The image of a render target or depth buffer (PNG export, pixels).
    /// Waits for a GPU job that holds it (the finished frame is seen).
    pub fn image(&self, h: u32) -> Result<&pl::Surface> {
        self.gpu.land_images(&self.surfaces);
        self.surfaces.get(h)?.image(h)
    }

    /// A render target's pixels as tightly packed RGBA8.
    pub fn read_rgba8(&self, h: u32) -> Result<Vec<u8>> {
        Ok(self.image(h)?.to_rgba8())
    }

    /// Locks a surface for CPU access: a buffer's bytes, or level 0 (face
    /// 0) of an image or texture. See [`crate::swap`] for busy buffers.
    pub fn lock(&mut self, h: u32, flags: LockFlags) -> Result<&mut [u8]> {
        self.sync();
        let (kind, implicit) = {
            let r = self.surfaces.get(h)?;
            (
                r.desc.kind,
                matches!(r.desc.kind, SurfaceKind::VertexBuffer { implicit: true }),
            )
        };
        if let Some(a) = self.gpu.alloc_of.get(&h).copied() {
            if self.gpu.kmd.allocation_busy(a) {
                let mut mem = Gpu::mem(&mut self.surfaces, &self.gpu.surface_of);
                if kind.is_buffer() && (flags.discard || implicit) {
                    // Rename: the GPU keeps (has finished with) the old
                    // contents, the CPU gets fresh storage.
                    let mut len = 0;
                    if let Ok(r) = mem.surfaces.get_mut(h) {
                        if let Storage::Buffer(b) = &mut r.storage {
                            len = b.len();
                        }
                    }
                    self.gpu.kmd.renamed(a, len as u64, &mut mem)?;
                    if let Ok(r) = self.surfaces.get_mut(h) {
                        if let Storage::Buffer(b) = &mut r.storage {
                            *b = Arc::new(vec![0; b.len()]);
                        }
                    }
                    self.swap.lock_renames = self.swap.lock_renames.saturating_add(1);
                } else if !(flags.no_overwrite && kind.is_buffer()) {
                    // Stall: wait for the fences that use it.
                    self.gpu.kmd.wait_allocation_idle(a, &mut mem);
                    if kind.is_buffer() {
                        self.swap.stalls = self.swap.stalls.saturating_add(1);
                    }
                }
            }
            let _ = self.gpu.kmd.set_locked(a, true);
            let busy = self.gpu.kmd.allocation_busy(a);
            for (s, al) in &self.gpu.alloc_of {
                if let Ok(r) = self.surfaces.get_mut(*s) {
                    r.busy = r.desc.kind.is_buffer() && self.gpu.kmd.allocation_busy(*al);
                }
            }
            let _ = busy;
        }
        let r = self.surfaces.get_mut(h)?;
        r.locked = true;
        if r.desc.kind.is_buffer() {
            return match &mut r.storage {
                Storage::Buffer(b) => Ok(Arc::make_mut(b).as_mut_slice()),
                _ => Err(DeviceError::BadHandle {
                    handle: h,
                    what: "buffer",
                }),
            };
        }
        Ok(r.plane_mut(h, 0, 0)?.0)
    }

    /// Locks one level of one face (cube textures: faces 0..6); returns the
    /// bytes and the row pitch.
    pub fn lock_level(&mut self, h: u32, face: u32, level: u32) -> Result<(&mut [u8], usize)> {
        self.surfaces.get(h)?;
        self.sync();
        if let Some(a) = self.gpu.alloc_of.get(&h).copied() {
            let mut mem = Gpu::mem(&mut self.surfaces, &self.gpu.surface_of);
            self.gpu.kmd.wait_allocation_idle(a, &mut mem);
            let _ = self.gpu.kmd.set_locked(a, true);
        }
        let r = self.surfaces.get_mut(h)?;
        r.locked = true;
        let (b, p, _, _) = r.plane_mut(h, face, level)?;
        Ok((b, p))
    }

    /// Unlocks a surface.
    pub fn unlock(&mut self, h: u32) -> Result<()> {
        self.surfaces.get_mut(h)?.locked = false;
        if let Some(a) = self.gpu.alloc_of.get(&h) {
            let _ = self.gpu.kmd.set_locked(*a, false);
        }
        Ok(())
    }

    /// DdSetColorKey with DDCKEY_SRCBLT on a texture: texels whose raw
    /// value (in the texture's own format bits) lies in `low..=high` are
    /// keyed when COLORKEYENABLE / COLORKEYBLENDENABLE are set; `None`
    /// removes the key. Draws already submitted keep the old key.
    pub fn set_color_key(&mut self, h: u32, key: Option<(u32, u32)>) -> Result<()> {
        let r = self.surfaces.get(h)?;
        if r.texture().is_none() {
            return Err(r.wrong(h, "texture"));
        }
        if key.is_some_and(|(lo, hi)| lo > hi) {
            return Err(DeviceError::InvalidParams("colour key: low above high"));
        }
        self.gpu.finish(&mut self.surfaces)?;
        if let Some(t) = self.surfaces.get_mut(h)?.texture_mut() {
            t.set_color_key(key.map(|(low, high)| pl::texture::ColorKey { low, high }));
        }
        Ok(())
    }

    /// Starts a flip to `h` (a render target): until [`Driver::complete_flips`],
    /// DrawPrimitives2 on a context rendering to it returns
    /// DDERR_WASSTILLDRAWING.
    pub fn flip(&mut self, h: u32) -> Result<()> {
        let r = self.surfaces.get_mut(h)?;
        if r.desc.kind != SurfaceKind::RenderTarget {
            return Err(r.wrong(h, "render target"));
        }
        r.flip_pending = true;
        self.sync();
        let fence = self.gpu.present(h, &mut self.surfaces)?;
        self.gpu.pending_flips.insert(h, fence);
        self.gpu.end_call(&mut self.surfaces)
    }

    /// Completes every pending flip (the vertical blank).
    pub fn complete_flips(&mut self) {
        self.sync();
        self.gpu.complete_flips(&mut self.surfaces);
        for (_, r) in self.surfaces.iter_mut() {
            r.flip_pending = false;
        }
    }

    /// Presents a render target: returns its RGBA8 pixels (the host shows
    /// them) — a synchronous flip.
    pub fn present(&mut self, h: u32) -> Result<Vec<u8>> {
        self.sync();
        if self.surfaces.get(h)?.desc.kind == SurfaceKind::RenderTarget {
            let fence = self.gpu.present(h, &mut self.surfaces)?;
            let ctx = self.gpu.present_ctx;
            let mut mem = Gpu::mem(&mut self.surfaces, &self.gpu.surface_of);
            self.gpu.kmd.retire(ctx, fence, &mut mem);
        }
        self.read_rgba8(h)
    }

    /// Marks all work complete: no buffer is busy any more (see
    /// [`crate::swap`]).
    pub fn complete_work(&mut self) {
        let _ = self.gpu.idle(&mut self.surfaces);
        self.update_samples();
        for (_, r) in self.surfaces.iter_mut() {
            r.busy = false;
            r.flip_pending = false;
        }
    }

    /// The submission-model counters.
    pub fn swap_stats(&self) -> SwapStats {
        self.swap
    }

    // ------------------------------------------------------------ contexts

    /// ContextCreate: a context rendering to `render_target` with optional
    /// depth. Errors: bad handles, wrong kinds, a depth buffer smaller than
    /// the target; D3DHAL_OUTOFCONTEXTS when the context cap is reached.
    pub fn context_create(&mut self, render_target: u32, depth: Option<u32>) -> Result<u32> {
        let rt = self.surfaces.get(render_target)?;
        if !rt.is_color_target() {
            return Err(rt.wrong(render_target, "render target"));
        }
        if let Some(d) = depth {
            let ds = self.surfaces.get(d)?;
            if ds.desc.kind != SurfaceKind::DepthStencil {
                return Err(ds.wrong(d, "depth/stencil surface"));
            }
            if ds.desc.width < rt.desc.width || ds.desc.height < rt.desc.height {
                return Err(DeviceError::InvalidParams(
                    "depth buffer smaller than the render target",
                ));
            }
        }
        let mut ctx = Context::new(render_target, depth);
        ctx.dx_version = self.dx_version;
        let h = self.contexts.insert(ctx)?;
        if let Err(e) = self.gpu.context(h) {
            let _ = self.contexts.remove(h);
            return Err(e);
        }
        Ok(h)
    }

    /// The runtime's D3DGDI2_TYPE_DXVERSION notification (DD_DXVERSION's
    /// `dwDXVersion`: 0x700, 0x800, 0x900): contexts created from now on
    /// interpret version-dependent values (the DX6/7 filter values of
    /// MAGFILTER/MINFILTER/MIPFILTER below 0x800) for that runtime.
    pub fn notify_dx_version(&mut self, version: u32) {
        self.dx_version = version;
    }

    /// ContextCreate's `ddrval` for an error of [`Driver::context_create`].
    pub fn context_create_ddrval(e: &DeviceError) -> u32 {
        match e {
            DeviceError::Limit { .. } => codes::D3DHAL_OUTOFCONTEXTS,
            other => other.ddrval(),
        }
    }

    /// ContextDestroy.
    pub fn context_destroy(&mut self, h: u32) -> Result<()> {
        self.contexts
            .remove(h)
            .map_err(|_| DeviceError::ContextBad(h))?;
        self.gpu.forget_removed(h);
        if let Some(g) = self.gpu.ctx_of.remove(&h) {
            let _ = self.gpu.flush(&mut self.surfaces);
            self.sync();
            let mut mem = Gpu::mem(&mut self.surfaces, &self.gpu.surface_of);
            let _ = self.gpu.kmd.destroy_context(g, &mut mem);
            self.gpu.forget_context(g);
        }
        Ok(())
    }

    /// A context (state, objects, counters).
    pub fn context(&self, h: u32) -> Result<&Context> {
        self.contexts.get(h).map_err(|_| DeviceError::ContextBad(h))
    }

    /// A text snapshot of a context and the metadata of every surface (not
    /// their bytes): equal snapshots mean equal device state.
    pub fn snapshot(&self, h: u32) -> Result<String> {
        let c = self.context(h)?;
        self.gpu.land_images(&self.surfaces);
        let mut s = format!("{c:?}\n");
        for (h, r) in self.surfaces.iter() {
            s.push_str(&format!(
                "{h:#x} {:?} lod={} pri={} dirty={:?} pal={:?}\n",
                r.desc, r.lod, r.priority, r.dirty, r.palette
            ));
        }
        Ok(s)
    }

    // ------------------------------------------------------------ DDI calls

    /// Installs the host's `D3dParseUnknownCommand`.
    pub fn set_parse_unknown_command(&mut self, hook: Option<ParseUnknownCommand>) {
        self.hook = hook;
    }

    /// The failure of the last DrawPrimitives2 call that failed, if the
    /// last call failed.
    pub fn last_error(&self) -> Option<&Dp2Failure> {
        self.last_error.as_ref()
    }

    /// `D3dDrawPrimitives2`. Always returns DDHAL_DRIVER_HANDLED; the result
    /// is in `ddrval` and `dw_error_offset` (see the crate docs).
    pub fn draw_primitives2(&mut self, d: &mut DrawPrimitives2Data<'_>) -> u32 {
        let vertex_size = d.ddrval; // the union's input half, read first
        match self.dp2(d, vertex_size) {
            Ok(response) => {
                d.ddrval = codes::D3D_OK;
                d.dw_error_offset = response;
                self.last_error = None;
            }
            Err(f) => {
                d.ddrval = f.ddrval;
                d.dw_error_offset = f.offset;
                self.log_refusal(d, &f);
                self.last_error = Some(f);
            }
        }
        codes::DDHAL_DRIVER_HANDLED
    }

    /// The `SOFTHAL_LOG` event of a refused DrawPrimitives2 call
    /// (`softhal_capture::logging`): context, code, `dwErrorOffset`, the
    /// opcode found there (a command failure; `-` when the call itself was
    /// refused or the byte is not an opcode) and the reason. Free when no
    /// subscriber wants it.
    fn log_refusal(&self, d: &DrawPrimitives2Data<'_>, f: &Dp2Failure) {
        if !tracing::enabled!(tracing::Level::WARN) {
            return;
        }
        let opcode = (f.ddrval == codes::D3DERR_COMMAND_UNPARSED)
            .then(|| self.surfaces.get(d.lp_dd_commands).ok())
            .flatten()
            .and_then(|r| r.buffer(d.lp_dd_commands).ok())
            .and_then(|b| b.get(f.offset as usize).copied())
            .and_then(softhal_wire::Opcode::from_raw)
            .map_or("-", softhal_wire::Opcode::name);
        tracing::warn!(
            context = d.dwh_context,
            ddrval = %codes::format_hresult(f.ddrval),
            error_offset = f.offset,
            opcode,
            error = %f.error,
            "DrawPrimitives2 refused"
        );
    }

    fn dp2(
        &mut self,
        d: &mut DrawPrimitives2Data<'_>,
        vertex_size: u32,
    ) -> std::result::Result<u32, Dp2Failure> {
        let call_fail = |error: DeviceError, offset: u32| Dp2Failure {
            ddrval: error.ddrval(),
            offset,
            error,
        };
        let base = d.dw_command_offset;
        let ctx_h = d.dwh_context;
        let (rt, _) = {
            let c = self
                .contexts
                .get(ctx_h)
                .map_err(|_| call_fail(DeviceError::ContextBad(ctx_h), base))?;
            (c.render_target, c.depth)
        };
        if self.gpu.flip_pending(rt) {
            return Err(call_fail(DeviceError::WasStillDrawing, base));
        }
        let removed = |gpu: &mut Gpu, surfaces: &mut Slab<Resource>| {
            gpu.removed(ctx_h, surfaces).then(|| {
                call_fail(
                    DeviceError::Submit(softhal_submit::SubmitError::DeviceRemoved {
                        context: gpu.ctx_of.get(&ctx_h).copied().unwrap_or(0),
                    }),
                    base,
                )
            })
        };
        // A removed context does nothing (what is known without waiting;
        // the end of the call checks again with its work collected).
        if let Some(f) = removed(&mut self.gpu, &mut self.surfaces) {
            return Err(f);
        }
        // No wait here: the previous call's GPU job may still run while
        // this call validates and lowers its commands (which read surface
        // descriptions and shared buffer snapshots only); the job comes
        // back before this call sends its own work, or before CPU work
        // that needs memory (docs/submission.md, "When work runs").
        let cmd_h = d.lp_dd_commands;
        let commands: Vec<u8> = {
            let r = self.surfaces.get(cmd_h).map_err(|e| call_fail(e, base))?;
            if r.desc.kind != SurfaceKind::CommandBuffer {
                return Err(call_fail(r.wrong(cmd_h, "command buffer"), base));
            }
            let b = r.buffer(cmd_h).map_err(|e| call_fail(e, base))?;
            // Two u32s cannot overflow a u64.
            let end = u64::from(base).saturating_add(u64::from(d.dw_command_length));
            if end > b.len() as u64 {
                return Err(call_fail(
                    DeviceError::InvalidParams(
                        "dwCommandOffset + dwCommandLength exceeds the command surface",
                    ),
                    base,
                ));
            }
            b.get(base as usize..end as usize)
                .unwrap_or_default()
                .to_vec()
        };
        if d.dw_flags & D3DHALDP2_USERMEMVERTICES != 0 && d.lp_vertices.is_none() {
            return Err(call_fail(
                DeviceError::InvalidParams("USERMEMVERTICES without lpVertices"),
                base,
            ));
        }
        let fvf_stride = softhal_wire::fvf::vertex_stride(d.dw_vertex_type).unwrap_or(0);
        let opts = DecodeOptions {
            vertex_stride: if fvf_stride != 0 {
                fvf_stride
            } else {
                vertex_size
            },
            base_align: (base & 3) as usize,
        };
        let mut call = Call {
            flags: d.dw_flags,
            fvf: d.dw_vertex_type,
            user: d.lp_vertices,
            vertex_surface: d.lp_dd_vertex,
            vertex_offset: d.dw_vertex_offset,
            vertex_length: d.dw_vertex_length,
            rstates: d.lpdw_r_states.as_deref_mut(),
        };
        let Driver {
            gpu,
            surfaces,
            contexts,
            hook,
            history,
            ..
        } = self;
        let ctx = contexts
            .get_mut(ctx_h)
            .map_err(|_| call_fail(DeviceError::ContextBad(ctx_h), base))?;
        let mut ex = Exec {
            gpu,
            ctx_h,
            surfaces,
            ctx,
            call: &mut call,
        };
        let fail = |rel: usize, error: DeviceError| Dp2Failure {
            // A removed context is the call's outcome, not the command's.
            ddrval: if error.is_device_removed() {
                error.ddrval()
            } else {
                codes::D3DERR_COMMAND_UNPARSED
            },
            offset: base.saturating_add(u32::try_from(rel).unwrap_or(u32::MAX)),
            error,
        };
        let mut dec = Decoder::new(&commands, opts);
        let walked = (|| {
            while let Some(item) = dec.next() {
                let cmd = item.map_err(|e| fail(e.offset, DeviceError::Decode(e)))?;
                if let Command::Unknown { opcode } = cmd.command {
                    let at = cmd.offset;
                    let next = match hook.as_mut() {
                        Some(h) => h(commands.get(at..).unwrap_or_default())
                            .map_err(|()| fail(at, DeviceError::UnknownCommand { opcode }))?,
                        None => return Err(fail(at, DeviceError::UnknownCommand { opcode })),
                    };
                    let target = at
                        .checked_add(next)
                        .ok_or_else(|| fail(at, DeviceError::UnknownCommand { opcode }))?;
                    dec.resume_at(target)
                        .map_err(|e| fail(at, DeviceError::Decode(e)))?;
                    continue;
                }
                ex.execute(&cmd.command).map_err(|e| fail(cmd.offset, e))?;
                if ex.gpu.watching {
                    let draws = ex
                        .gpu
                        .watched_draws(ex.surfaces)
                        .map_err(|e| fail(cmd.offset, e))?;
                    let events: usize = draws
                        .iter()
                        .flat_map(|d| &d.pixels)
                        .map(|p| p.events.len())
                        .sum();
                    let total = history.1.saturating_add(events);
                    if !draws.is_empty() && total <= softhal_submit::limits::MAX_WATCHED_EVENTS {
                        history.1 = total;
                        history.0.push(crate::pixel_watch::CommandHistory {
                            command_offset: base
                                .saturating_add(u32::try_from(cmd.offset).unwrap_or(u32::MAX)),
                            opcode: cmd.header.command,
                            draws,
                        });
                    }
                }
            }
            Ok(())
        })();
        // Whatever the outcome, the commands before a failure took effect:
        // their packets are submitted and sent to the GPU worker, which
        // runs them after the call returns (see docs/submission.md, "When
        // work runs").
        let finished = self.gpu.end_call(&mut self.surfaces);
        walked?;
        finished.map_err(|e| call_fail(e, base))?;
        if let Some(f) = removed(&mut self.gpu, &mut self.surfaces) {
            return Err(f);
        }
        // Success: responses, then the submission model.
        let written = write_responses(&mut self.surfaces, &mut self.contexts, ctx_h, cmd_h, base);
        self.swap_buffers(d, written);
        Ok(written)
    }

    /// Convenience for hosts and tools: runs `commands` (copied into a
    /// temporary command buffer) on context `ctx` with user-memory
    /// `vertices` of FVF `fvf`, and returns the query-response bytes
    /// written, or the failure. Equivalent to filling a command surface and
    /// calling [`Driver::draw_primitives2`].
    pub fn run_commands(
        &mut self,
        ctx: u32,
        commands: &[u8],
        fvf: u32,
        vertices: &[u8],
    ) -> std::result::Result<Vec<u8>, Dp2Failure> {
        let fail = |error: DeviceError| Dp2Failure {
            ddrval: error.ddrval(),
            offset: 0,
            error,
        };
        let cb = self.create_command_buffer_with(commands).map_err(fail)?;
        let stride = softhal_wire::fvf::vertex_stride(fvf).unwrap_or(0).max(1);
        let count = u32::try_from(vertices.len().checked_div(stride as usize).unwrap_or(0))
            .unwrap_or(u32::MAX);
        let mut d =
            DrawPrimitives2Data::new(ctx, cb, u32::try_from(commands.len()).unwrap_or(u32::MAX))
                .with_user_vertices(fvf, vertices, count);
        self.draw_primitives2(&mut d);
        let out = match &self.last_error {
            Some(f) => Err(f.clone()),
            None => Ok(self
                .surfaces
                .get(cb)
                .and_then(|r| r.buffer(cb))
                .map_or_else(
                    |_| Vec::new(),
                    |b| {
                        b.get(..d.dw_error_offset as usize)
                            .unwrap_or_default()
                            .to_vec()
                    },
                )),
        };
        let _ = self.destroy_surface(cb);
        out
    }

    /// SWAPVERTEXBUFFER / SWAPCOMMANDBUFFER (see [`crate::swap`]).
    fn swap_buffers(&mut self, d: &mut DrawPrimitives2Data<'_>, responses: u32) {
        let gpu = &mut self.gpu;
        let mut rename =
            |surfaces: &mut Slab<Resource>, total: &mut u64, h: u32, req: Option<u32>| -> bool {
                let Ok(r) = surfaces.get_mut(h) else {
                    return false;
                };
                let Storage::Buffer(b) = &mut r.storage else {
                    return false;
                };
                let want = req
                    .map_or(b.len() as u64, |q| u64::from(q).max(b.len() as u64))
                    .min(limits::MAX_BUFFER_BYTES);
                let grow = want.saturating_sub(b.len() as u64);
                let new_total = total.saturating_add(grow);
                if new_total > limits::MAX_TOTAL_SURFACE_BYTES {
                    return false;
                }
                *total = new_total;
                *b = Arc::new(vec![0; want as usize]);
                r.desc.width = want as u32;
                r.busy = false;
                if let Some(a) = gpu.alloc_of.get(&h).copied() {
                    let mut mem = Gpu::mem(surfaces, &gpu.surface_of);
                    let _ = gpu.kmd.renamed(a, want, &mut mem);
                }
                true
            };
        if d.dw_flags & D3DHALDP2_SWAPVERTEXBUFFER != 0
            && d.dw_flags & D3DHALDP2_USERMEMVERTICES == 0
        {
            let implicit = self
                .surfaces
                .get(d.lp_dd_vertex)
                .is_ok_and(|r| matches!(r.desc.kind, SurfaceKind::VertexBuffer { implicit: true }));
            let req =
                (d.dw_flags & D3DHALDP2_REQVERTEXBUFSIZE != 0).then_some(d.dw_req_vertex_buf_size);
            if implicit
                && rename(
                    &mut self.surfaces,
                    &mut self.total_bytes,
                    d.lp_dd_vertex,
                    req,
                )
            {
                self.swap.vertex_renames = self.swap.vertex_renames.saturating_add(1);
            }
        }
        if d.dw_flags & D3DHALDP2_SWAPCOMMANDBUFFER != 0 && responses == 0 {
            let req = (d.dw_flags & D3DHALDP2_REQCOMMANDBUFSIZE != 0)
                .then_some(d.dw_req_command_buf_size);
            if rename(
                &mut self.surfaces,
                &mut self.total_bytes,
                d.lp_dd_commands,
                req,
            ) {
                self.swap.command_renames = self.swap.command_renames.saturating_add(1);
            }
        }
    }

    /// `Clear2`.
    pub fn clear2(&mut self, d: &mut Clear2Data<'_>) -> u32 {
        self.sync();
        let r = (|| {
            let ctx = self
                .contexts
                .get(d.dwh_context)
                .map_err(|_| DeviceError::ContextBad(d.dwh_context))?;
            let rects: Vec<pl::Rect> = d
                .lp_rects
                .iter()
                .map(|r| pl::Rect::new(r[0], r[1], r[2], r[3]))
                .collect();
            let ctx = ctx.clone();
            crate::blt::clear(
                &mut self.gpu,
                d.dwh_context,
                &mut self.surfaces,
                &ctx,
                d.dw_flags,
                d.dw_fill_color,
                d.dv_fill_depth,
                d.dw_fill_stencil,
                &rects,
            )
        })();
        let r = r.and_then(|()| self.gpu.end_call(&mut self.surfaces));
        let r = r.and_then(|()| {
            if self.gpu.removed(d.dwh_context, &mut self.surfaces) {
                Err(DeviceError::Submit(
                    softhal_submit::SubmitError::DeviceRemoved {
                        context: self.gpu_context_of(d.dwh_context).unwrap_or(0),
                    },
                ))
            } else {
                Ok(())
            }
        });
        d.ddrval = match r {
            Ok(()) => codes::D3D_OK,
            Err(e) => e.ddrval(),
        };
        codes::DDHAL_DRIVER_HANDLED
    }

    /// `ValidateTextureStageState`: the cascade can be drawn in one pass
    /// when every stage up to the first COLOROP DISABLE has operations and
    /// arguments the pipeline implements (all 26 D3DTOPs, the D3DTA
    /// selectors with COMPLEMENT/ALPHAREPLICATE, RESULTARG CURRENT/TEMP) and
    /// filters it knows. One pass.
    pub fn validate_texture_stage_state(&mut self, d: &mut ValidateTextureStageStateData) -> u32 {
        use softhal_pipeline::texture::TextureFilter;
        use softhal_wire::names::{
            ResultArg, TextureArgument, TextureOp, TextureStageStateType as Tss,
        };
        d.dw_num_passes = 0;
        let Ok(ctx) = self.contexts.get(d.dwh_context) else {
            d.ddrval = codes::D3DHAL_CONTEXT_BAD;
            return codes::DDHAL_DRIVER_HANDLED;
        };
        let stage_err = |t: &[u32; 64]| -> Option<u32> {
            let v = |s: Tss| t.get(s.raw() as usize).copied().unwrap_or(0);
            let op = |s: Tss| TextureOp::from_d3d(v(s)).is_some();
            let args = |s: [Tss; 3]| s.iter().all(|&s| TextureArgument::from_d3d(v(s)).is_some());
            if !op(Tss::ColorOp) {
                return Some(codes::D3DERR_UNSUPPORTEDCOLOROPERATION);
            }
            if !args([Tss::ColorArg1, Tss::ColorArg2, Tss::ColorArg0])
                || ResultArg::from_d3d(v(Tss::ResultArg)).is_none()
            {
                return Some(codes::D3DERR_UNSUPPORTEDCOLORARG);
            }
            if !op(Tss::AlphaOp) {
                return Some(codes::D3DERR_UNSUPPORTEDALPHAOPERATION);
            }
            if !args([Tss::AlphaArg1, Tss::AlphaArg2, Tss::AlphaArg0]) {
                return Some(codes::D3DERR_UNSUPPORTEDALPHAARG);
            }
            if [Tss::MagFilter, Tss::MinFilter, Tss::MipFilter]
                .iter()
                .any(|&s| TextureFilter::from_d3d(v(s)).is_none())
            {
                return Some(codes::D3DERR_UNSUPPORTEDTEXTUREFILTER);
            }
            None
        };
        let err = ctx
            .state
            .texture_stages
            .iter()
            .take_while(|t| t.get(1).copied() != Some(1))
            .find_map(stage_err);
        match err {
            Some(e) => d.ddrval = e,
            None => {
                d.ddrval = codes::D3D_OK;
                d.dw_num_passes = 1;
            }
        }
        codes::DDHAL_DRIVER_HANDLED
    }

    /// GetDriverInfo2 D3DGDI2_TYPE_GETD3DCAPS9.
    pub fn caps(&self) -> Caps {
        caps::caps()
    }

    /// GetDriverInfo2 GETFORMATCOUNT / GETFORMAT.
    pub fn formats(&self) -> Vec<FormatCaps> {
        caps::formats()
    }
}

/// Writes pending query responses over the command data (at
/// `dwCommandOffset`); returns the bytes written.
fn write_responses(
    surfaces: &mut Slab<Resource>,
    contexts: &mut Slab<Context>,
    ctx_h: u32,
    cmd_h: u32,
    base: u32,
) -> u32 {
    let Ok(ctx) = contexts.get_mut(ctx_h) else {
        return 0;
    };
    if ctx.responses.is_empty() {
        return 0;
    }
    let Ok(r) = surfaces.get_mut(cmd_h) else {
        return 0;
    };
    let Storage::Buffer(buf) = &mut r.storage else {
        return 0;
    };
    let Some(out) = Arc::make_mut(buf).get_mut(base as usize..) else {
        return 0;
    };
    let cap = out.len();
    // Sizes saturate: a saturated size never fits `cap`.
    let total: usize = ctx.responses.iter().fold(8usize, |t, r| {
        t.saturating_add(8).saturating_add(r.data.len())
    });
    let all_fit = total <= cap && ctx.responses.len() <= usize::from(u16::MAX);
    // How many entries to write (leaving room for RESPONSECONTINUE).
    let mut n = 0usize;
    let mut size = 8usize;
    if all_fit {
        n = ctx.responses.len();
        size = total;
    } else {
        for r in &ctx.responses {
            let next = size.saturating_add(8).saturating_add(r.data.len());
            if next.saturating_add(8) > cap || n >= usize::from(u16::MAX) {
                break;
            }
            size = next;
            n = n.saturating_add(1);
        }
    }
    let mut bytes = Vec::new();
    if n > 0 {
        bytes.extend_from_slice(&[88, 0]);
        bytes.extend_from_slice(&(n as u16).to_le_bytes());
        bytes.extend_from_slice(&(size as u32).to_le_bytes());
        for r in ctx.responses.drain(..n) {
            bytes.extend_from_slice(&r.query_id.to_le_bytes());
            bytes.extend_from_slice(&(r.data.len() as u32).to_le_bytes());
            bytes.extend_from_slice(&r.data);
        }
    }
    if n > 0 && !ctx.responses.is_empty() && bytes.len().saturating_add(8) <= cap {
        bytes.extend_from_slice(&[87, 0, 0, 0]);
        bytes.extend_from_slice(&8u32.to_le_bytes());
    }
    if let Some(dst) = out.get_mut(..bytes.len()) {
        dst.copy_from_slice(&bytes);
    }
    bytes.len() as u32
}
