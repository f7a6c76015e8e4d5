//! The user-mode driver half of the submission path: DP2 work lowered into
//! GPU packets and handed to the kernel side through the render callback.
//!
//! In: pipeline draws and clears the executor validated, buffer copies,
//! flips. Out: packets in the UMD's command buffer, an allocation list
//! (every surface the packets touch, WriteOperation for render targets,
//! depth buffers and copy destinations) and a patch-location list (one per
//! reference DWORD), submitted with [`Kmd::render`]. Vertex and index data
//! that live in vertex/index-buffer surfaces are *referenced* (SET_VERTICES
//! / SET_INDICES); user-memory, `_IMM` and generated data are copied into
//! the command buffer (VERTICES_INLINE / INDICES_INLINE), as a real UMD
//! copies user memory. State goes out as register writes, only those that
//! changed since the context's last draw. Shaders go out as GPU objects
//! (CREATE_SHADER, once per shader and GPU context, when a draw first
//! uses it; DESTROY_SHADER after the device deleted it), bound with
//! SET_SHADER, their constants with SET_CONSTANTS (the registers that
//! changed since the context's last draw with a shader at that stage) and
//! the vertex shader's inputs with VERTEX_INPUTS; a fixed-function draw
//! on a context that never bound a shader sends none of them.
//!
//! Guarantees: every surface the GPU touches has an allocation; the UMD
//! respects the buffer sizes the kernel grants (it flushes, or asks for a
//! resize, before a buffer would overflow); execution order is the DP2
//! order (the copy engine is fenced against the 3-D engine both ways).
//! At the end of a DDI call the work is sent to the kernel's GPU worker
//! without waiting ([`Gpu::end_call`]); the next call that touches surfaces
//! waits for it ([`Gpu::sync`]) and `&self` readers get the images back
//! ([`Gpu::land_images`]).

use crate::error::{DeviceError, Result};
use crate::handle::Slab;
use crate::resource::{Resource, Storage, SurfaceKind};
use crate::shader::ShaderCode;
use crate::state::{Constants, DeviceState, LightSlot, Mat, ViewportState};
use softhal_pipeline::{self as pl, VertexLayout};
use softhal_submit::packet::{ConstantBank, ShaderStage, Writer};
use softhal_submit::regs::{self, id, RegisterFile};
use softhal_submit::{
    render_flags, AllocKind, AllocationDesc, AllocationListEntry, Blt, ColorFill, Engine, Kmd,
    RenderData, SubmitError, TextureCopy, VideoMemory,
};
use softhal_wire::names::RenderStateType as Rs;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, OnceLock};

/// Video memory = the driver's surfaces, found through the allocation map.
pub(crate) struct Mem<'a> {
    pub surfaces: &'a mut Slab<Resource>,
    pub surface_of: &'a BTreeMap<u32, u32>,
}

impl Mem<'_> {
    fn res(&self, a: u32) -> Option<&Resource> {
        self.surfaces.get(*self.surface_of.get(&a)?).ok()
    }
    fn res_mut(&mut self, a: u32) -> Option<&mut Resource> {
        self.surfaces.get_mut(*self.surface_of.get(&a)?).ok()
    }
}

impl VideoMemory for Mem<'_> {
    fn take_image(&mut self, a: u32) -> Option<pl::Surface> {
        match &mut self.res_mut(a)?.storage {
            Storage::Image(s) => s.take(),
            _ => None,
        }
    }
    fn put_image(&mut self, a: u32, s: pl::Surface) {
        if let Some(r) = self.res_mut(a) {
            if let Storage::Image(slot) = &mut r.storage {
                *slot = OnceLock::from(s);
            }
        }
    }
    fn buffer(&self, a: u32) -> Option<&[u8]> {
        match &self.res(a)?.storage {
            Storage::Buffer(b) => Some(b.as_slice()),
            _ => None,
        }
    }
    fn texture(&self, a: u32) -> Option<&pl::texture::Texture> {
        self.res(a)?.texture()
    }
    fn texture_mut(&mut self, a: u32) -> Option<&mut pl::texture::Texture> {
        self.res_mut(a)?.texture_mut()
    }
    fn copy_buffer(&mut self, src: u32, so: usize, dst: u32, d: usize, len: usize) -> bool {
        let Some(tmp) = self
            .buffer(src)
            .and_then(|b| b.get(so..so.checked_add(len)?))
            .map(<[u8]>::to_vec)
        else {
            return false;
        };
        let Some(r) = self.res_mut(dst) else {
            return false;
        };
        match &mut r.storage {
            Storage::Buffer(b) => match d
                .checked_add(len)
                .and_then(|e| Arc::make_mut(b).get_mut(d..e))
            {
                Some(out) => {
                    out.copy_from_slice(&tmp);
                    true
                }
                None => false,
            },
            _ => false,
        }
    }
    fn share_buffer(&mut self, a: u32) -> Option<Arc<Vec<u8>>> {
        match &self.res(a)?.storage {
            Storage::Buffer(b) => Some(Arc::clone(b)),
            _ => None,
        }
    }
    fn put_buffer(&mut self, a: u32, b: Arc<Vec<u8>>) {
        if let Some(r) = self.res_mut(a) {
            if let Storage::Buffer(slot) = &mut r.storage {
                *slot = b;
            }
        }
    }
    fn share_texture(&mut self, a: u32) -> Option<Arc<pl::texture::Texture>> {
        match &self.res(a)?.storage {
            Storage::Texture(t) => Some(Arc::clone(t)),
            _ => None,
        }
    }
    fn put_texture(&mut self, a: u32, t: Arc<pl::texture::Texture>) {
        if let Some(r) = self.res_mut(a) {
            if let Storage::Texture(slot) = &mut r.storage {
                *slot = t;
            }
        }
    }
}

/// Where a draw's vertices or indices come from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Src<'v> {
    /// `len` bytes at `offset` of surface `h`.
    Surface {
        /// Surface handle.
        h: u32,
        /// Byte offset.
        offset: u32,
        /// The bytes (for the length and the identity).
        bytes: &'v [u8],
    },
    /// Bytes that must be copied into the command buffer.
    Inline(&'v [u8]),
}

/// One draw as the UMD lowers it.
pub(crate) struct LoweredDraw<'v> {
    pub topology: u32,
    pub layout: VertexLayout,
    pub vertices: Src<'v>,
    /// Index source and width (2 or 4).
    pub indices: Option<(Src<'v>, u32)>,
    pub first: u32,
    pub count: u32,
    pub base_vertex: i32,
}

/// A vertex shader's inputs as VERTEX_INPUTS sends them: `(input
/// register, byte offset in the vertex, D3DDECLTYPE)` each.
pub(crate) type ShaderInputs = Vec<(u32, u32, u32)>;

/// The shaders of a list of draws: the vertex and pixel shader bound
/// (`None`: fixed function), the constants of each stage, and where the
/// vertex shader's input registers are in the vertices (`(register,
/// offset, D3DDECLTYPE)`).
pub(crate) struct ShaderBinding<'a> {
    pub vertex: Option<&'a ShaderCode>,
    pub pixel: Option<&'a ShaderCode>,
    pub vs_consts: &'a Constants,
    pub ps_consts: &'a Constants,
    pub inputs: ShaderInputs,
}

/// One copy on the copy engine (surface handles).
#[derive(Debug, Clone, Copy)]
pub(crate) enum GpuCopy {
    /// BUFFERBLT: `bytes` bytes between buffers.
    Buffer {
        src: u32,
        src_offset: u32,
        dst: u32,
        dst_offset: u32,
        bytes: u32,
    },
    /// TEXBLT / VOLUMEBLT: a box between textures of one format, checked
    /// with `softhal_submit::texture::check_copy` (`copy.src`/`copy.dst`
    /// are filled in with allocation-list indices when emitted).
    Texture {
        src: u32,
        dst: u32,
        copy: TextureCopy,
    },
    /// BLT / SURFACEBLT: a rectangle stretched between surfaces (BLT;
    /// `blt.src`/`blt.dst` are filled in with allocation-list indices).
    Blt { src: u32, dst: u32, blt: Blt },
    /// COLORFILL: a rectangle of a surface (COLOR_FILL; `fill.dst` filled
    /// in likewise).
    Fill { dst: u32, fill: ColorFill },
    /// GENERATEMIPSUBLEVELS of a texture (GENERATE_MIPS).
    Mips { texture: u32 },
}

impl GpuCopy {
    fn surfaces(&self) -> (u32, u32) {
        match *self {
            GpuCopy::Buffer { src, dst, .. }
            | GpuCopy::Texture { src, dst, .. }
            | GpuCopy::Blt { src, dst, .. } => (src, dst),
            GpuCopy::Fill { dst, .. } => (dst, dst),
            GpuCopy::Mips { texture } => (texture, texture),
        }
    }
}

/// A colour target as the GPU binds it: (surface with the allocation,
/// face, level) — [`Resource::target_of`]. Face and level are 0 unless the
/// surface is a render-target texture.
pub(crate) type ColorTarget = (u32, u32, u32);

/// Render targets 1–3 (SETRENDERTARGET2 slots beyond target 0).
const EXTRA_TARGETS: usize = pl::limits::MAX_RENDER_TARGETS - 1;

/// The GPU as the device sees it: the kernel side, the allocation map, and
/// the UMD's command buffer being filled.
pub(crate) struct Gpu {
    pub kmd: Kmd,
    /// A pixel engine to hand out if the kernel lost its own (a worker
    /// died); never used otherwise.
    pub spare: pl::Renderer,
    /// surface → allocation.
    pub alloc_of: BTreeMap<u32, u32>,
    /// allocation → surface.
    pub surface_of: BTreeMap<u32, u32>,
    /// Allocations of textures with render-target usage (bound with
    /// BIND_TEXTURE_TARGET).
    pub texture_targets: BTreeSet<u32>,
    /// device context → GPU context (3-D engine).
    pub ctx_of: BTreeMap<u32, u32>,
    /// The copy-engine context.
    pub copy_ctx: u32,
    /// The 3-D context presents go through.
    pub present_ctx: u32,
    /// The device's default context for a host acting as the UMD
    /// (`hContext == NULL` of the render callback).
    pub default_render_ctx: u32,
    /// Render target surface → fence of its pending flip on `present_ctx`.
    pub pending_flips: BTreeMap<u32, u64>,
    /// A pixel watch is set on the kernel side (`crate::pixel_watch`).
    pub watching: bool,
    /// Device contexts removed because a copy they issued was stopped by
    /// the watchdog (a hung 3-D context is known to the kernel itself).
    removed: std::collections::BTreeSet<u32>,
    rd: RenderData,
    w: Writer,
    list: Vec<AllocationListEntry>,
    index_of: BTreeMap<u32, u32>,
    /// The GPU context the pending packets are for.
    cur: Option<u32>,
    /// Per GPU context: registers as last emitted, and the device state
    /// they were made from (a draw with an unchanged state emits nothing).
    shadow: BTreeMap<u32, Shadow>,
    /// Texture allocations bound per stage in the pending buffer (`None`:
    /// nothing bound yet in this submission).
    bound_textures: Option<[Option<u32>; crate::limits::SAMPLER_STAGES as usize]>,
    bound_targets: Option<(ColorTarget, Option<u32>)>,
    /// Render targets 1–3 bound in the pending buffer (allocation, face,
    /// level); `None`: not known (after an undone command).
    bound_extra: Option<[Option<ColorTarget>; EXTRA_TARGETS]>,
    bound_layout: Option<VertexLayout>,
    /// VERTEX_INPUTS in the pending buffer (stride, inputs).
    bound_inputs: Option<(u32, ShaderInputs)>,
    bound_inline: Option<(usize, usize)>,
    /// (bytes, patch locations, allocations) before the current command.
    checkpoint: (usize, usize, usize),
}

fn submit_err(e: SubmitError) -> DeviceError {
    DeviceError::Submit(e)
}

impl Gpu {
    /// A GPU drawing with `renderer`.
    pub fn new(renderer: pl::Renderer) -> Result<Self> {
        let mut kmd = Kmd::new(renderer);
        let present_ctx = kmd.create_context(Engine::ThreeD).map_err(submit_err)?;
        let copy_ctx = kmd.create_context(Engine::Copy).map_err(submit_err)?;
        let default_render_ctx = kmd.create_context(Engine::ThreeD).map_err(submit_err)?;
        let rd = kmd.initial_buffers();
        Ok(Gpu {
            kmd,
            spare: pl::Renderer::new(1)?,
            alloc_of: BTreeMap::new(),
            surface_of: BTreeMap::new(),
            texture_targets: BTreeSet::new(),
            ctx_of: BTreeMap::new(),
            copy_ctx,
            present_ctx,
            default_render_ctx,
            pending_flips: BTreeMap::new(),
            watching: false,
            removed: std::collections::BTreeSet::new(),
            rd,
            w: Writer::new(),
            list: Vec::new(),
            index_of: BTreeMap::new(),
            cur: None,
            shadow: BTreeMap::new(),
            bound_textures: None,
            bound_targets: None,
            bound_extra: Some([None; EXTRA_TARGETS]),
            bound_layout: None,
            bound_inputs: None,
            bound_inline: None,
            checkpoint: (0, 0, 0),
        })
    }

    /// Registers a new surface with the kernel (render targets, depth
    /// buffers and buffers: what the GPU reads or writes).
    pub fn register(&mut self, h: u32, r: &Resource) -> Result<()> {
        let image = match &r.storage {
            Storage::Image(s) => s.get(),
            _ => None,
        };
        let kind = match (&r.desc.kind, &r.storage, image) {
            (SurfaceKind::RenderTarget | SurfaceKind::DepthStencil, _, Some(s)) => {
                AllocKind::Image {
                    format: s.format(),
                    width: s.width(),
                    height: s.height(),
                }
            }
            (_, Storage::Buffer(b), _) => AllocKind::Buffer {
                bytes: b.len() as u64,
            },
            (_, Storage::Texture(t), _) => AllocKind::Texture {
                desc: t.desc(),
                render_target: r.desc.render_target,
            },
            _ => return Ok(()),
        };
        let a = self
            .kmd
            .create_allocation(AllocationDesc {
                kind,
                cpu_visible: true,
            })
            .map_err(submit_err)?;
        self.alloc_of.insert(h, a);
        self.surface_of.insert(a, h);
        if r.desc.render_target {
            self.texture_targets.insert(a);
        }
        Ok(())
    }

    /// Forgets what was emitted to GPU context `ctx` once it is
    /// destroyed (its register shadow), so that creating and destroying
    /// contexts does not accumulate memory.
    pub fn forget_context(&mut self, ctx: u32) {
        self.shadow.remove(&ctx);
    }

    /// Whether device context `dev_ctx` is removed (`docs/submission.md`,
    /// "Timeouts and cancellation"): the watchdog stopped work it
    /// submitted — on its 3-D context, or a copy it issued on the copy
    /// engine (then the copy context, which is the driver's, is replaced
    /// here and `dev_ctx` is removed in its stead). Call with the work of
    /// the call collected.
    pub fn removed(&mut self, dev_ctx: u32, surfaces: &mut Slab<Resource>) -> bool {
        if self.kmd.context_hung(self.copy_ctx) {
            let mut mem = Mem {
                surfaces,
                surface_of: &self.surface_of,
            };
            let _ = self.kmd.destroy_context(self.copy_ctx, &mut mem);
            if let Ok(c) = self.kmd.create_context(Engine::Copy) {
                self.copy_ctx = c;
            }
            self.removed.insert(dev_ctx);
        }
        self.removed.contains(&dev_ctx)
            || self
                .ctx_of
                .get(&dev_ctx)
                .is_some_and(|c| self.kmd.context_hung(*c))
    }

    /// Forgets that a destroyed device context was removed.
    pub fn forget_removed(&mut self, dev_ctx: u32) {
        self.removed.remove(&dev_ctx);
    }

    /// The device deleted (or replaced) the shaders of `serials` on device
    /// context `dev_ctx`: their GPU objects are destroyed with the next
    /// draw's packets.
    pub fn forget_shaders(&mut self, dev_ctx: u32, serials: &[u32]) {
        let Some(ctx) = self.ctx_of.get(&dev_ctx) else {
            return;
        };
        if let Some(sh) = self.shadow.get_mut(ctx) {
            for s in serials {
                if sh.shaders.created.remove(s) {
                    sh.shaders.doomed.push(*s);
                }
            }
        }
    }

    /// The shader packets that bring GPU context `ctx` to `b`: objects
    /// destroyed and created, bindings, the constants that changed at each
    /// stage with a shader.
    fn emit_shaders(&mut self, ctx: u32, b: &ShaderBinding<'_>) {
        let sh = &mut self
            .shadow
            .entry(ctx)
            .or_insert_with(Shadow::unknown)
            .shaders;
        let w = &mut self.w;
        for s in sh.doomed.drain(..) {
            w.destroy_shader(s);
        }
        let stages = [
            (ShaderStage::Vertex, b.vertex, b.vs_consts),
            (ShaderStage::Pixel, b.pixel, b.ps_consts),
        ];
        for (stage, code, consts) in stages {
            let i = stage.index();
            let id = code.map_or(0, |c| c.serial);
            if let Some(c) = code {
                if sh.created.insert(c.serial) {
                    w.create_shader(c.serial, &c.tokens);
                }
            }
            if let Some(bound) = sh.bound.get_mut(i) {
                if *bound != Some(id) {
                    w.set_shader(stage, id);
                    *bound = Some(id);
                }
            }
            if code.is_some() {
                if let Some(shadow) = sh.constants.get_mut(i) {
                    emit_constants(w, stage, consts, shadow);
                }
            }
        }
    }

    /// GPU contexts with a register shadow (tests: nothing accumulates).
    pub fn shadowed_contexts(&self) -> usize {
        self.shadow.len()
    }

    /// The GPU context of a device context, created on first use.
    pub fn context(&mut self, dev_ctx: u32) -> Result<u32> {
        if let Some(c) = self.ctx_of.get(&dev_ctx) {
            return Ok(*c);
        }
        let c = self
            .kmd
            .create_context(Engine::ThreeD)
            .map_err(submit_err)?;
        self.ctx_of.insert(dev_ctx, c);
        // A new GPU context starts from the default register state: only
        // registers that differ from it need to be sent.
        self.shadow.insert(c, Shadow::default());
        Ok(c)
    }

    fn alloc(&self, surface: u32) -> Result<u32> {
        self.alloc_of
            .get(&surface)
            .copied()
            .ok_or(DeviceError::BadHandle {
                handle: surface,
                what: "GPU-visible surface",
            })
    }

    fn index(&mut self, alloc: u32, write: bool) -> u32 {
        if let Some(&i) = self.index_of.get(&alloc) {
            if write {
                if let Some(e) = self.list.get_mut(i as usize) {
                    e.value |= AllocationListEntry::WRITE;
                }
            }
            return i;
        }
        let i = u32::try_from(self.list.len()).unwrap_or(u32::MAX);
        self.list.push(AllocationListEntry::new(alloc, write));
        self.index_of.insert(alloc, i);
        i
    }

    /// Starts emitting for GPU context `ctx`: pending packets of another
    /// context are submitted first. Records a checkpoint [`Gpu::settle`]
    /// can roll back to.
    pub fn begin(&mut self, ctx: u32, surfaces: &mut Slab<Resource>) -> Result<()> {
        if self.cur != Some(ctx) {
            self.flush(surfaces)?;
            self.cur = Some(ctx);
        }
        self.checkpoint = (self.w.bytes.len(), self.w.refs.len(), self.list.len());
        Ok(())
    }

    fn over(&self) -> bool {
        self.w.bytes.len() > self.rd.new_command_buffer_size as usize
            || self.list.len() > self.rd.new_allocation_list_size as usize
            || self.w.refs.len() > self.rd.new_patch_location_list_size as usize
    }

    /// After one command's packets: when the pending buffer outgrew the
    /// sizes the kernel granted, ask for bigger buffers (reading the sizes
    /// it returns) and submit; if even the largest buffer cannot hold the
    /// packets, the command's packets are removed and it fails.
    pub fn settle(&mut self, surfaces: &mut Slab<Resource>) -> Result<()> {
        if !self.over() {
            return Ok(());
        }
        let Some(ctx) = self.cur else {
            return Ok(());
        };
        let want = |n: usize, cur: u32| -> u32 {
            u32::try_from(n.max(cur as usize).next_power_of_two()).unwrap_or(u32::MAX)
        };
        self.rd.flags = render_flags::RESIZE_COMMAND_BUFFER
            | render_flags::RESIZE_ALLOCATION_LIST
            | render_flags::RESIZE_PATCH_LOCATION_LIST;
        self.rd.new_command_buffer_size = want(self.w.bytes.len(), self.rd.new_command_buffer_size);
        self.rd.new_allocation_list_size = want(self.list.len(), self.rd.new_allocation_list_size);
        self.rd.new_patch_location_list_size =
            want(self.w.refs.len(), self.rd.new_patch_location_list_size);
        self.rd.command_length = 0;
        self.rd.command_offset = 0;
        self.rd.num_allocations = 0;
        self.rd.num_patch_locations = 0;
        self.rd.h_context = Some(ctx);
        let mut mem = Mem {
            surfaces,
            surface_of: &self.surface_of,
        };
        let r = self.kmd.render_checked(&mut self.rd, &mut mem);
        self.rd.flags = 0;
        r.map_err(submit_err)?;
        if self.over() {
            // Declined (beyond the kernel's limits): undo this command.
            let (b, r, l) = self.checkpoint;
            self.w.bytes.truncate(b);
            self.w.refs.truncate(r);
            self.list.truncate(l);
            self.index_of.retain(|_, i| (*i as usize) < l);
            self.bound_targets = None;
            self.bound_extra = None;
            self.bound_textures = None;
            self.bound_layout = None;
            self.bound_inputs = None;
            self.bound_inline = None;
            self.shadow.remove(&ctx);
            return Err(DeviceError::Limit {
                what: "GPU command buffer (one command's data)",
                max: u64::from(softhal_submit::limits::MAX_COMMAND_BUFFER_BYTES),
            });
        }
        self.flush(surfaces)
    }

    /// Submits the pending packets (nothing if none).
    pub fn flush(&mut self, surfaces: &mut Slab<Resource>) -> Result<()> {
        let Some(ctx) = self.cur else {
            return Ok(());
        };
        if self.w.bytes.is_empty() {
            return Ok(());
        }
        let len = self.w.bytes.len();
        std::mem::swap(&mut self.rd.command_buffer, &mut self.w.bytes);
        self.rd.command_length = u32::try_from(len).unwrap_or(u32::MAX);
        self.rd.command_offset = 0;
        self.rd.num_allocations = u32::try_from(self.list.len()).unwrap_or(u32::MAX);
        self.rd.num_patch_locations = u32::try_from(self.w.refs.len()).unwrap_or(u32::MAX);
        self.rd.allocation_list.clear();
        self.rd.allocation_list.extend_from_slice(&self.list);
        self.rd.patch_location_list.clear();
        self.rd.patch_location_list.extend(self.w.patch_locations());
        self.rd.flags = 0;
        self.rd.h_context = Some(ctx);
        let mut mem = Mem {
            surfaces,
            surface_of: &self.surface_of,
        };
        let r = self.kmd.render_checked(&mut self.rd, &mut mem);
        // The new buffer becomes the writer's (emptied).
        std::mem::swap(&mut self.rd.command_buffer, &mut self.w.bytes);
        self.w.clear();
        self.index_of.clear();
        self.bound_targets = None;
        // Every submission starts with render targets 1–3 unbound.
        self.bound_extra = Some([None; EXTRA_TARGETS]);
        self.bound_textures = None;
        self.bound_layout = None;
        self.bound_inputs = None;
        self.bound_inline = None;
        let list = std::mem::take(&mut self.list);
        if let Err(e) = r {
            // The GPU state is no longer known: emit everything next time.
            self.shadow.remove(&ctx);
            self.list = list;
            self.list.clear();
            return Err(submit_err(e));
        }
        for e in &list {
            if let Some(s) = self.surface_of.get(&e.h_allocation) {
                if let Ok(r) = surfaces.get_mut(*s) {
                    r.busy = r.desc.kind.is_buffer();
                }
            }
        }
        self.list = list;
        self.list.clear();
        Ok(())
    }

    /// Flushes and lets the GPU run everything queued, waiting for it
    /// (inside a DDI call, before CPU work that needs the GPU's results).
    pub fn finish(&mut self, surfaces: &mut Slab<Resource>) -> Result<()> {
        let r = self.flush(surfaces);
        let mut mem = Mem {
            surfaces,
            surface_of: &self.surface_of,
        };
        self.kmd.execute_all(&mut mem);
        r
    }

    /// The end of a DDI call (`docs/submission.md`, "When work runs"):
    /// flushes and sends everything queued to the GPU worker without
    /// waiting — unless the job writes buffers or textures (copies), which
    /// `&self` readers could not wait for: then it waits.
    pub fn end_call(&mut self, surfaces: &mut Slab<Resource>) -> Result<()> {
        let r = self.flush(surfaces);
        let mut mem = Mem {
            surfaces,
            surface_of: &self.surface_of,
        };
        self.kmd.dispatch(&mut mem);
        while self.kmd.queued() > self.kmd.in_flight() || self.kmd.in_flight_writes_shared() {
            // Work the job could not take (fence waits on it), or copies.
            self.kmd.wait(&mut mem);
            if !self.kmd.dispatch(&mut mem) {
                break;
            }
        }
        r
    }

    /// Waits for the GPU job in flight; its memory comes back (the start of
    /// every DDI call that touches surfaces).
    pub fn sync(&mut self, surfaces: &mut Slab<Resource>) {
        let mut mem = Mem {
            surfaces,
            surface_of: &self.surface_of,
        };
        self.kmd.wait(&mut mem);
    }

    /// For `&self` readers: waits for the job in flight and puts the
    /// images it holds back into their surfaces.
    pub fn land_images(&self, surfaces: &Slab<Resource>) {
        self.kmd.land_images(&mut |a, s| {
            let r = self.surface_of.get(&a).and_then(|h| surfaces.get(*h).ok());
            if let Some(Storage::Image(slot)) = r.map(|r| &r.storage) {
                let _ = slot.set(s);
            }
        });
    }

    /// Runs and retires everything (the CPU waits for the GPU to idle).
    pub fn idle(&mut self, surfaces: &mut Slab<Resource>) -> Result<()> {
        let r = self.flush(surfaces);
        let mut mem = Mem {
            surfaces,
            surface_of: &self.surface_of,
        };
        self.kmd.retire_all(&mut mem);
        self.pending_flips.clear();
        for (_, r) in surfaces.iter_mut() {
            r.busy = false;
        }
        r
    }

    /// Runs the GPU work of the command just executed and returns its
    /// watched draws (`crate::pixel_watch`; empty when no watch is set).
    pub fn watched_draws(
        &mut self,
        surfaces: &mut Slab<Resource>,
    ) -> Result<Vec<crate::pixel_watch::DrawHistory>> {
        if !self.watching {
            return Ok(Vec::new());
        }
        self.finish(surfaces)?;
        let (draws, _) = self.kmd.take_watched_draws();
        Ok(draws
            .into_iter()
            .map(|d| crate::pixel_watch::DrawHistory {
                render_target: self.surface_of.get(&d.target).copied().unwrap_or(0),
                pixels: d.pixels,
            })
            .collect())
    }

    /// Register writes for the Direct3D state `st` changed since `ctx`
    /// last received registers (depth and stencil tests off when no depth
    /// buffer is bound).
    fn emit_state(&mut self, ctx: u32, st: &DeviceState, depth_bound: bool) {
        // No shadow: the GPU context's registers are not known (a failed
        // submission): every register is sent.
        let shadow = self.shadow.entry(ctx).or_insert_with(Shadow::unknown);
        let mut pairs = Vec::new();
        shadow.sync(st, depth_bound, &mut pairs);
        if !pairs.is_empty() {
            self.w.set_regs(&pairs);
        }
    }

    /// SET_TEXTURE for every stage whose binding differs from what the
    /// pending buffer has bound.
    fn emit_textures(
        &mut self,
        textures: &[Option<u32>; crate::limits::SAMPLER_STAGES as usize],
    ) -> Result<()> {
        let mut allocs = [None; crate::limits::SAMPLER_STAGES as usize];
        for (a, t) in allocs.iter_mut().zip(textures) {
            *a = t.map(|h| self.alloc(h)).transpose()?;
        }
        let bound = self.bound_textures;
        for (stage, a) in allocs.iter().enumerate() {
            if bound.is_some_and(|b| b.get(stage) == Some(a)) {
                continue;
            }
            let index = a.map(|a| self.index(a, false));
            self.w.set_texture(stage as u32, index);
        }
        self.bound_textures = Some(allocs);
        Ok(())
    }

    fn emit_targets(&mut self, color: ColorTarget, depth: Option<u32>) -> Result<()> {
        let (surface, face, level) = color;
        let ca = self.alloc(surface)?;
        let da = depth.map(|d| self.alloc(d)).transpose()?;
        if self.bound_targets != Some(((ca, face, level), da)) {
            let ci = self.index(ca, true);
            let di = da.map(|d| self.index(d, true));
            if self.texture_targets.contains(&ca) {
                self.w.bind_texture_target(ci, face, level, di);
            } else {
                self.w.bind_targets(ci, di);
            }
            self.bound_targets = Some(((ca, face, level), da));
        }
        Ok(())
    }

    /// BIND_RENDER_TARGET for each of render targets 1–3 (surface, face,
    /// level; `None`: unbound) whose binding differs from what the
    /// pending buffer has bound.
    fn emit_extra_targets(&mut self, extra: &[Option<ColorTarget>; EXTRA_TARGETS]) -> Result<()> {
        let mut allocs = [None; EXTRA_TARGETS];
        for (a, t) in allocs.iter_mut().zip(extra) {
            *a = t
                .map(|(s, face, level)| self.alloc(s).map(|a| (a, face, level)))
                .transpose()?;
        }
        let bound = self.bound_extra;
        for ((i, a), rt_index) in allocs.iter().enumerate().zip(1u32..) {
            if bound.is_some_and(|b| b.get(i) == Some(a)) {
                continue;
            }
            let target = a.map(|(a, face, level)| (self.index(a, true), face, level));
            self.w.bind_render_target(rt_index, target);
        }
        self.bound_extra = Some(allocs);
        Ok(())
    }

    /// Lowers a list of draws sharing one state and one set of targets
    /// into the pending buffer (after [`Gpu::begin`]; [`Gpu::settle`]
    /// follows).
    pub fn draws_from(
        &mut self,
        targets: (ColorTarget, Option<u32>),
        extra: &[Option<ColorTarget>; EXTRA_TARGETS],
        textures: &[Option<u32>; crate::limits::SAMPLER_STAGES as usize],
        st: &DeviceState,
        shaders: &ShaderBinding<'_>,
        draws: &[LoweredDraw<'_>],
    ) -> Result<()> {
        let Some(ctx) = self.cur else {
            return Ok(());
        };
        // Every surface must be GPU-visible before anything is emitted.
        for d in draws {
            for s in std::iter::once(&d.vertices).chain(d.indices.as_ref().map(|(s, _)| s)) {
                if let Src::Surface { h, .. } = s {
                    self.alloc(*h)?;
                }
            }
        }
        self.alloc(targets.0 .0)?;
        if let Some(d) = targets.1 {
            self.alloc(d)?;
        }
        for t in extra.iter().flatten() {
            self.alloc(t.0)?;
        }
        for t in textures.iter().flatten() {
            self.alloc(*t)?;
        }
        let mut state_done = false;
        for d in draws.iter().filter(|d| d.count > 0) {
            if !state_done {
                self.emit_state(ctx, st, targets.1.is_some());
                self.emit_textures(textures)?;
                // Cheap when no shader is or was bound: a comparison.
                if shaders.vertex.is_some()
                    || shaders.pixel.is_some()
                    || self.shadow.get(&ctx).is_none_or(|s| s.shaders.dirty())
                {
                    self.emit_shaders(ctx, shaders);
                }
                state_done = true;
            }
            self.emit_targets(targets.0, targets.1)?;
            self.emit_extra_targets(extra)?;
            if shaders.vertex.is_some() {
                let stride = d.layout.stride;
                if self
                    .bound_inputs
                    .as_ref()
                    .is_none_or(|(s, i)| *s != stride || *i != shaders.inputs)
                {
                    self.w.vertex_inputs(stride, &shaders.inputs);
                    self.bound_inputs = Some((stride, shaders.inputs.clone()));
                }
            } else if self.bound_layout != Some(d.layout) {
                self.w.vertex_format(&d.layout);
                self.bound_layout = Some(d.layout);
            }
            match d.vertices {
                Src::Surface { h, offset, bytes } => {
                    let a = self.alloc(h)?;
                    let i = self.index(a, false);
                    self.w
                        .set_vertices(i, offset, u32::try_from(bytes.len()).unwrap_or(u32::MAX));
                    self.bound_inline = None;
                }
                Src::Inline(b) => {
                    let key = (b.as_ptr() as usize, b.len());
                    if self.bound_inline != Some(key) {
                        self.w.vertices_inline(b);
                        self.bound_inline = Some(key);
                    }
                }
            }
            if let Some((s, width)) = &d.indices {
                match s {
                    Src::Surface { h, offset, bytes } => {
                        let a = self.alloc(*h)?;
                        let i = self.index(a, false);
                        self.w.set_indices(
                            i,
                            *offset,
                            u32::try_from(bytes.len()).unwrap_or(u32::MAX),
                            *width,
                        );
                    }
                    Src::Inline(b) => self.w.indices_inline(b, *width),
                }
            }
            self.w.draw(
                d.topology,
                d.first,
                d.count,
                d.base_vertex,
                d.indices.is_some(),
            );
        }
        Ok(())
    }

    /// Lowers a clear of the bound targets.
    #[allow(clippy::too_many_arguments)]
    pub fn clear(
        &mut self,
        dev_ctx: u32,
        surfaces: &mut Slab<Resource>,
        targets: (ColorTarget, Option<u32>),
        extra: &[Option<ColorTarget>; EXTRA_TARGETS],
        flags: u32,
        color: u32,
        z: f32,
        stencil: u32,
        rects: &[pl::Rect],
    ) -> Result<()> {
        let ctx = self.context(dev_ctx)?;
        self.alloc(targets.0 .0)?;
        if let Some(d) = targets.1 {
            self.alloc(d)?;
        }
        for t in extra.iter().flatten() {
            self.alloc(t.0)?;
        }
        self.begin(ctx, surfaces)?;
        self.emit_targets(targets.0, targets.1)?;
        self.emit_extra_targets(extra)?;
        let rs: Vec<[i32; 4]> = rects.iter().map(|r| [r.x1, r.y1, r.x2, r.y2]).collect();
        self.w.clear_targets(flags & 7, color, z, stencil, &rs);
        self.settle(surfaces)
    }

    /// Copies (BUFFERBLT, TEXBLT, VOLUMEBLT) and blits (BLT, SURFACEBLT,
    /// COLORFILL, GENERATEMIPSUBLEVELS) on the copy engine, ordered
    /// after the 3-D work submitted so far on `dev_ctx` and before any 3-D
    /// work submitted after it (fences both ways).
    pub fn copies(
        &mut self,
        dev_ctx: u32,
        surfaces: &mut Slab<Resource>,
        copies: &[GpuCopy],
    ) -> Result<()> {
        let ctx = self.context(dev_ctx)?;
        for c in copies {
            let (s, d) = c.surfaces();
            self.alloc(s)?;
            self.alloc(d)?;
        }
        self.flush(surfaces)?;
        let (submitted, _, _) = self.kmd.fences(ctx).unwrap_or_default();
        self.kmd
            .gpu_wait(self.copy_ctx, ctx, submitted)
            .map_err(submit_err)?;
        for c in copies {
            self.begin(self.copy_ctx, surfaces)?;
            let (s, d) = c.surfaces();
            let (sa, da) = (self.alloc(s)?, self.alloc(d)?);
            let si = self.index(sa, false);
            let di = self.index(da, true);
            match *c {
                GpuCopy::Buffer {
                    src_offset,
                    dst_offset,
                    bytes,
                    ..
                } => self.w.buffer_copy(si, src_offset, di, dst_offset, bytes),
                GpuCopy::Texture { copy, .. } => self.w.texture_copy(TextureCopy {
                    src: si,
                    dst: di,
                    ..copy
                }),
                GpuCopy::Blt { blt, .. } => self.w.blt(Blt {
                    src: si,
                    dst: di,
                    ..blt
                }),
                GpuCopy::Fill { fill, .. } => self.w.color_fill(ColorFill { dst: di, ..fill }),
                GpuCopy::Mips { .. } => self.w.generate_mips(di),
            }
            self.settle(surfaces)?;
        }
        self.flush(surfaces)?;
        let (copy_fence, _, _) = self.kmd.fences(self.copy_ctx).unwrap_or_default();
        self.kmd
            .gpu_wait(ctx, self.copy_ctx, copy_fence)
            .map_err(submit_err)?;
        Ok(())
    }

    /// Queues a PRESENT of render target `rt` after all 3-D work so far;
    /// returns its fence on the present context.
    pub fn present(&mut self, rt: u32, surfaces: &mut Slab<Resource>) -> Result<u64> {
        self.flush(surfaces)?;
        let ctxs: Vec<u32> = self.ctx_of.values().copied().collect();
        for c in ctxs {
            let (f, _, _) = self.kmd.fences(c).unwrap_or_default();
            if f > 0 {
                self.kmd
                    .gpu_wait(self.present_ctx, c, f)
                    .map_err(submit_err)?;
            }
        }
        let a = self.alloc(rt)?;
        self.begin(self.present_ctx, surfaces)?;
        let i = self.index(a, false);
        self.w.present(i);
        self.flush(surfaces)?;
        let (f, _, _) = self.kmd.fences(self.present_ctx).unwrap_or_default();
        Ok(f)
    }

    /// True while a flip to `rt` has not retired.
    pub fn flip_pending(&self, rt: u32) -> bool {
        self.pending_flips.get(&rt).is_some_and(|f| {
            self.kmd
                .fences(self.present_ctx)
                .is_some_and(|(_, _, retired)| retired < *f)
        })
    }

    /// Retires every flip (the vertical blank).
    pub fn complete_flips(&mut self, surfaces: &mut Slab<Resource>) {
        let (f, _, _) = self.kmd.fences(self.present_ctx).unwrap_or_default();
        let mut mem = Mem {
            surfaces,
            surface_of: &self.surface_of,
        };
        self.kmd.retire(self.present_ctx, f, &mut mem);
        self.pending_flips.clear();
    }

    /// The occlusion counter of a device context's GPU context.
    pub fn samples_passed(&self, dev_ctx: u32) -> u64 {
        self.ctx_of
            .get(&dev_ctx)
            .and_then(|c| self.kmd.counters(*c))
            .map_or(0, |k| k.samples_passed)
    }

    /// The GPU counters (draws, primitives, samples passed, pixels
    /// written, ...) of a device context's GPU context.
    pub fn counters(&self, dev_ctx: u32) -> Option<softhal_submit::ContextCounters> {
        self.ctx_of
            .get(&dev_ctx)
            .and_then(|c| self.kmd.counters(*c))
    }

    /// Memory view for kernel calls made by the driver.
    pub fn mem<'a>(
        surfaces: &'a mut Slab<Resource>,
        surface_of: &'a BTreeMap<u32, u32>,
    ) -> Mem<'a> {
        Mem {
            surfaces,
            surface_of,
        }
    }
}

/// The registers a GPU context holds for a device context's state: what
/// the UMD last emitted, and the raw state it was made from, bank by bank
/// (a bank whose raw state is unchanged is not looked at again).
#[derive(Default)]
struct Shadow {
    regs: RegisterFile,
    raw: Option<Raw>,
    /// The GPU context's registers are not known: the next sync sends
    /// every register.
    unknown: bool,
    shaders: ShaderShadow,
}

/// The shader half of a GPU context as the UMD last emitted it.
struct ShaderShadow {
    /// Serials created as GPU objects.
    created: BTreeSet<u32>,
    /// Serials to destroy with the next packets.
    doomed: Vec<u32>,
    /// The object bound at each stage (`None`: not known).
    bound: [Option<u32>; 2],
    /// The constants of each stage as last sent (`None`: not known).
    constants: [Option<Constants>; 2],
}

/// A new GPU context: nothing created, fixed function at both stages,
/// every constant 0.
impl Default for ShaderShadow {
    fn default() -> Self {
        ShaderShadow {
            created: BTreeSet::new(),
            doomed: Vec::new(),
            bound: [Some(0); 2],
            constants: [
                Some(Constants::zeroed(true)),
                Some(Constants::zeroed(false)),
            ],
        }
    }
}

impl ShaderShadow {
    /// A GPU context whose shader state is not known (after a failed
    /// submission): objects are created again, bindings and constants
    /// sent again.
    fn unknown() -> Self {
        ShaderShadow {
            created: BTreeSet::new(),
            doomed: Vec::new(),
            bound: [None; 2],
            constants: [None, None],
        }
    }
    /// Must a fixed-function draw send shader packets (a shader bound,
    /// the bindings unknown, objects to destroy)?
    fn dirty(&self) -> bool {
        self.bound != [Some(0); 2] || !self.doomed.is_empty()
    }
}

/// SET_CONSTANTS for each run of registers of `c` that differ from
/// `shadow` (all of them when it is not known), which then holds `c`.
fn emit_constants(
    w: &mut Writer,
    stage: ShaderStage,
    c: &Constants,
    shadow: &mut Option<Constants>,
) {
    let old = shadow.as_ref();
    let flat4 = |v: &[[u32; 4]]| -> Vec<u32> { v.iter().flatten().copied().collect() };
    runs(&c.f, old.map(|o| &o.f[..]), |first, regs| {
        w.set_constants(stage, ConstantBank::Float, first, &flat4(regs));
    });
    runs(&c.i, old.map(|o| &o.i[..]), |first, regs| {
        w.set_constants(stage, ConstantBank::Int, first, &flat4(regs));
    });
    runs(&c.b, old.map(|o| &o.b[..]), |first, regs| {
        w.set_constants(stage, ConstantBank::Bool, first, regs);
    });
    match shadow {
        Some(s) => s.clone_from(c),
        None => *shadow = Some(c.clone()),
    }
}

/// Calls `f(first, registers)` for each maximal run of registers of `new`
/// that differ from `old` (every register when `old` is `None`).
fn runs<T: PartialEq>(new: &[T], old: Option<&[T]>, mut f: impl FnMut(u32, &[T])) {
    let changed = |i: usize| old.is_none_or(|o| o.get(i) != new.get(i));
    let mut i = 0usize;
    while i < new.len() {
        if !changed(i) {
            i = i.saturating_add(1);
            continue;
        }
        let start = i;
        while i < new.len() && changed(i) {
            i = i.saturating_add(1);
        }
        if let Some(regs) = new.get(start..i) {
            f(u32::try_from(start).unwrap_or(u32::MAX), regs);
        }
    }
}

/// The parts of [`DeviceState`] the register file carries, as last
/// emitted.
#[derive(Clone, PartialEq)]
struct Raw {
    render_states: Vec<u32>,
    depth_bound: bool,
    texture_stages: Vec<[u32; crate::limits::TSS_PER_STAGE as usize]>,
    transforms: [Mat; regs::TRANSFORMS.len()],
    lights: Vec<LightSlot>,
    material: Option<[u32; 17]>,
    viewport: ViewportState,
    w_range: (f32, f32),
    clip_planes: [[f32; 4]; crate::limits::MAX_CLIP_PLANES as usize],
    scissor: [i32; 4],
}

impl Raw {
    fn of(st: &DeviceState, depth_bound: bool) -> Raw {
        Raw {
            render_states: st.render_states.clone(),
            depth_bound,
            texture_stages: st.texture_stages.clone(),
            transforms: transforms_of(st),
            lights: st.lights.clone(),
            material: st.material,
            viewport: st.viewport,
            w_range: st.w_range,
            clip_planes: st.clip_planes,
            scissor: st.scissor,
        }
    }
}

/// The register file's transforms of `st`, in [`regs::TRANSFORMS`] order.
fn transforms_of(st: &DeviceState) -> [Mat; regs::TRANSFORMS.len()] {
    regs::TRANSFORMS.map(|t| st.transform(t.raw()))
}

/// The render-state registers with their D3D numbers, computed once.
fn render_state_registers() -> &'static [(u32, regs::Value)] {
    static RS: OnceLock<Vec<(u32, regs::Value)>> = OnceLock::new();
    RS.get_or_init(|| {
        (0..=0xFFu32)
            .filter_map(|n| regs::rule(id::rs(n)).map(|(v, _)| (n, v)))
            .collect()
    })
}

impl Shadow {
    /// A shadow of a GPU context whose registers are not known.
    fn unknown() -> Shadow {
        Shadow {
            unknown: true,
            shaders: ShaderShadow::unknown(),
            ..Shadow::default()
        }
    }

    /// Appends to `out` the writes that bring the registers to `st`'s
    /// (each register the device sends holds `Value::from_raw` of its raw
    /// D3D value).
    fn sync(&mut self, st: &DeviceState, depth_bound: bool, out: &mut Vec<(u32, u32)>) {
        let regs = &mut self.regs;
        let all = std::mem::take(&mut self.unknown);
        let mut put = |reg: u32, raw: u32| {
            let Some((kind, _)) = regs::rule(reg) else {
                return;
            };
            let v = kind.from_raw(raw);
            if (all || regs.get(reg) != Some(v)) && regs.write(reg, v).is_ok() {
                out.push((reg, v));
            }
        };
        let old = self.raw.as_ref();
        let f = f32::to_bits;
        if old.is_none_or(|o| o.render_states != st.render_states || o.depth_bound != depth_bound) {
            for &(n, _) in render_state_registers() {
                let raw = st.render_states.get(n as usize).copied().unwrap_or(0);
                let tested = n == Rs::ZEnable.raw() || n == Rs::StencilEnable.raw();
                put(id::rs(n), if tested && !depth_bound { 0 } else { raw });
            }
        }
        for (s, t) in (0..regs::STAGES).zip(&st.texture_stages) {
            if old.is_some_and(|o| o.texture_stages.get(s as usize) == Some(t)) {
                continue;
            }
            for tss in regs::STAGE_STATES {
                let raw = t.get(tss.raw() as usize).copied().unwrap_or(0);
                put(id::tss(s, tss.raw()), raw);
            }
        }
        let transforms = transforms_of(st);
        for (i, (ts, m)) in regs::TRANSFORMS.iter().zip(&transforms).enumerate() {
            if old.is_some_and(|o| o.transforms.get(i) == Some(m)) {
                continue;
            }
            for (k, x) in (0..).zip(m.iter().flatten()) {
                put(id::transform(ts.raw(), k), f(*x));
            }
        }
        if old.is_none_or(|o| o.lights != st.lights) {
            // The first LIGHTS enabled lights, in index order, fill the
            // slots; one enabled before SETLIGHT gave it data is the D3D
            // default light (white, directional, along +z).
            let default = regs::light_registers(&pl::lighting::Light {
                diffuse: [1.0, 1.0, 1.0, 0.0],
                ..pl::NO_LIGHT
            });
            let mut enabled = st.lights.iter().filter(|l| l.enabled);
            for i in 0..regs::LIGHTS {
                match enabled.next() {
                    Some(l) => {
                        let data = l.data.unwrap_or(default);
                        for (k, v) in (0..).zip(data) {
                            put(id::light(i, k), v);
                        }
                        put(id::light(i, id::light_field::ENABLE), 1);
                    }
                    None => put(id::light(i, id::light_field::ENABLE), 0),
                }
            }
        }
        if old.is_none_or(|o| o.material != st.material) {
            let m = st.material.unwrap_or_default();
            for (k, v) in (0..).zip(m) {
                put(id::material(k), v);
            }
        }
        if old.is_none_or(|o| o.viewport != st.viewport || o.w_range != st.w_range) {
            let v = &st.viewport;
            put(id::viewport::X, v.x);
            put(id::viewport::Y, v.y);
            put(id::viewport::WIDTH, v.width);
            put(id::viewport::HEIGHT, v.height);
            put(id::viewport::MIN_Z, f(v.min_z));
            put(id::viewport::MAX_Z, f(v.max_z));
            put(id::viewport::W_NEAR, f(st.w_range.0));
            put(id::viewport::W_FAR, f(st.w_range.1));
        }
        if old.is_none_or(|o| o.clip_planes != st.clip_planes || o.scissor != st.scissor) {
            for (i, p) in (0..).zip(&st.clip_planes) {
                for (j, x) in (0..).zip(p) {
                    put(id::clip_plane(i, j), f(*x));
                }
            }
            let [l, t, r, b] = st.scissor.map(|e| e as u32);
            put(id::scissor::LEFT, l);
            put(id::scissor::TOP, t);
            put(id::scissor::RIGHT, r);
            put(id::scissor::BOTTOM, b);
        }
        match &mut self.raw {
            Some(o) if o.render_states.len() == st.render_states.len() => {
                o.render_states.copy_from_slice(&st.render_states);
                o.depth_bound = depth_bound;
                o.texture_stages.clone_from(&st.texture_stages);
                o.transforms = transforms;
                o.lights.clone_from(&st.lights);
                o.material = st.material;
                o.viewport = st.viewport;
                o.w_range = st.w_range;
                o.clip_planes = st.clip_planes;
                o.scissor = st.scissor;
            }
            _ => self.raw = Some(Raw::of(st, depth_bound)),
        }
    }
}

/// The registers the UMD sends for a device context's state `st` (depth
/// and stencil tests off unless `depth_bound`): what the GPU context holds
/// after a draw with that state.
pub fn registers_of(st: &DeviceState, depth_bound: bool) -> RegisterFile {
    let mut s = Shadow::default();
    s.sync(st, depth_bound, &mut Vec::new());
    s.regs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The device's defaults, sent as registers, are the register file's
    /// defaults (the GPU context starts there, so a new context needs no
    /// writes).
    #[test]
    fn default_device_state_is_the_default_register_file() {
        let st = DeviceState::default();
        assert_eq!(registers_of(&st, true), RegisterFile::default());
        let mut s = Shadow::default();
        let mut out = Vec::new();
        s.sync(&st, true, &mut out);
        assert_eq!(out, []);
        // Without a depth buffer: ZENABLE (7) goes to FALSE (the default
        // is D3DZB_TRUE), and only that register is written.
        s.sync(&st, false, &mut out);
        assert_eq!(out, [(id::rs(7), 0)]);
    }

    /// Only what changed is sent, once.
    #[test]
    fn only_changed_state_is_written() {
        let mut st = DeviceState::default();
        let mut s = Shadow::default();
        let mut out = Vec::new();
        s.sync(&st, true, &mut out);
        // D3DRS_FOGSTART (36) = 2.5; D3DTSS_COLOROP (1) of stage 2 =
        // D3DTOP_ADD (7); a NaN view _11 is sent as 0.0.
        st.render_states[36] = 2.5f32.to_bits();
        st.texture_stages[2][1] = 7;
        let mut view = crate::state::IDENTITY;
        view[0][0] = f32::NAN;
        st.transforms.insert(crate::state::TS_VIEW, view);
        s.sync(&st, true, &mut out);
        assert_eq!(
            out,
            [
                (id::rs(36), 0x4020_0000),
                (id::tss(2, 1), 7),
                (id::transform(2, 0), 0)
            ]
        );
        out.clear();
        s.sync(&st, true, &mut out);
        assert_eq!(out, []);
        // After a failed submission every register is sent again.
        let mut s = Shadow::unknown();
        s.sync(&st, true, &mut out);
        // (All but the data of the 8 disabled light slots: 26 DWORDs
        // each, unused while ENABLE is 0.)
        assert_eq!(out.len(), regs::all_ids().count() - 8 * 26);
    }
}
