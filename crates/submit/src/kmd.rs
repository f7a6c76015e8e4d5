//! The kernel side: allocations, contexts, the render callback and the
//! buffers it hands out (validation is `verify`, queues and fences
//! `schedule`, the worker thread `worker`, execution
//! `gpu`).
//!
//! In: [`RenderData`] from the UMD (its command buffer, allocation list and
//! patch-location list), allocation and context calls, and CPU waits. Out:
//! an HRESULT per call; validated submissions queued per engine, executed
//! by the GPU into [`VideoMemory`] with the pipeline's [`Renderer`]; fences.
//! Guarantees:
//! * the kernel **copies** `[0, CommandLength)` of the command buffer and
//!   the first `NumAllocations` / `NumPatchLocations` list entries before
//!   looking at them, and validates only the copies (no double fetch);
//! * every packet is checked against [`crate::packet::RULES`] and its
//!   operands against the allocation table *before anything runs*;
//! * a rejected call changes nothing ([`Kmd::snapshot`] is identical before
//!   and after; only [`Kmd::rejected`] counts it);
//! * execution order is deterministic: each engine runs its queue in
//!   submission order; when both engines can run, the 3-D engine goes
//!   first; a buffer waits (FENCE_WAIT) until the fences it depends on are
//!   signalled. Nothing depends on timing.
//!
//! Execution runs on a GPU worker thread (spawned by [`Kmd::new`], joined
//! on drop). The validation half (verifier, allocations, queues, fences
//! submitted/retired) stays with the caller; the execution half (the
//! renderer, registers, counters) travels with each job to the worker and
//! back, with the memory the job touches ([`crate::memory::JobMemory`]:
//! images moved, buffers and textures shared read-only, written ones
//! returned). At most one job is in flight; every call that takes video
//! memory waits for it first; fences *executed* are published when it is
//! collected. See `docs/submission.md`, "When work runs".
//!
//! Bounded time (`docs/submission.md`, "Timeouts and cancellation"): each
//! submission runs under a deadline ([`Kmd::set_timeout`], default
//! [`limits::DEFAULT_GPU_TIMEOUT_MS`]) and a cancellation flag a host can
//! set from any thread ([`Kmd::cancel_handle`]). When either fires, the
//! submission stops at a packet, primitive-batch or tile boundary, its
//! context is *hung* (removed): its fences are still signalled, later
//! submissions to it are refused with `D3DDDIERR_DEVICEREMOVED` (those
//! already queued are skipped), and only destroying it remains. Other
//! contexts are not affected.

use crate::ddi::{render_flags, RenderData};
use crate::error::{Result, SubmitError};
use crate::gpu::ExecState;
use crate::limits;
use crate::memory::{JobMemory, VideoMemory};
use crate::packet::Engine;
use crate::regs::RegisterFile;
use crate::schedule::Queued;
use crate::texture;
use crate::worker::Worker;
use softhal_pipeline::texture::TextureDesc;
use softhal_pipeline::{self as pl, Format, Renderer};
use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

/// What an allocation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocKind {
    /// A buffer of this many bytes.
    Buffer {
        /// Size.
        bytes: u64,
    },
    /// An image (render target or depth/stencil).
    Image {
        /// Format.
        format: Format,
        /// Width.
        width: u32,
        /// Height.
        height: u32,
    },
    /// A texture (2-D, cube or volume with its mip chain), sampled by draws
    /// (SET_TEXTURE) and copied by TEXTURE_COPY. `desc.levels` must be
    /// resolved (non-zero); the description must be one `Texture::new`
    /// accepts ([`crate::texture::desc_bytes`]).
    Texture {
        /// Shape, format, size and level count.
        desc: TextureDesc,
        /// Render-target usage (D3DUSAGE_RENDERTARGET): each face and
        /// level can also be bound as the colour target
        /// (BIND_TEXTURE_TARGET). Only textures
        /// [`crate::texture::target_format`] accepts.
        render_target: bool,
    },
}

/// An allocation's description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllocationDesc {
    /// Kind and size.
    pub kind: AllocKind,
    /// CPU-visible memory: rendering while locked is allowed (the lock maps
    /// it in place). A locked allocation that is not CPU-visible was moved
    /// for the lock and cannot be rendered (CANTRENDERLOCKEDALLOCATION).
    pub cpu_visible: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Allocation {
    pub(crate) desc: AllocationDesc,
    pub(crate) locked: bool,
    /// Last use per context: the fence that must retire before the
    /// allocation is idle.
    pub(crate) uses: BTreeMap<u32, u64>,
}

/// Per-context hardware counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ContextCounters {
    /// Pipeline draws executed.
    pub draws: u64,
    /// Primitives submitted to the pipeline.
    pub primitives: u64,
    /// Samples that passed depth/stencil (the occlusion counter).
    pub samples_passed: u64,
    /// Pixels every test passed and whose colour was written (the sum of
    /// the pipeline's per-draw `DrawStats::pixels_written`).
    pub pixels_written: u64,
    /// Pixels the pipeline shaded: the fragments its primitives covered
    /// inside the viewport and scissor rectangle, before any test (the
    /// sum of the per-draw `DrawStats::pixels_shaded`).
    pub pixels_shaded: u64,
    /// Clears executed.
    pub clears: u64,
    /// Copies executed (BUFFER_COPY, TEXTURE_COPY, BLT, COLOR_FILL,
    /// GENERATE_MIPS).
    pub copies: u64,
    /// Presents executed.
    pub presents: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GpuContext {
    pub(crate) engine: Engine,
    pub(crate) regs: RegisterFile,
    pub(crate) submitted: u64,
    pub(crate) executed: u64,
    pub(crate) retired: u64,
    pub(crate) counters: ContextCounters,
    /// Query id → (counter at BEGIN, result at END).
    pub(crate) queries: BTreeMap<u32, (u64, Option<u64>)>,
    /// The watchdog stopped a submission of this context (it is removed).
    pub(crate) hung: bool,
}

impl Drop for Kmd {
    fn drop(&mut self) {
        // Joining the worker (Worker's drop) after the job in flight.
        self.land_exec();
    }
}

/// Device-wide counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GpuStats {
    /// Submissions accepted.
    pub submissions: u64,
    /// Submissions executed.
    pub executed: u64,
    /// Context switches (CONTEXT_SWITCH packets run).
    pub context_switches: u64,
    /// Packets that failed at execution (an allocation vanished, or its
    /// storage no longer matches its description: the packet is skipped;
    /// a draw whose bound texture vanished runs with that stage unbound
    /// and counts one fault); 0 unless memory was changed behind the
    /// kernel's back.
    pub faults: u64,
    /// Residency packets run (MAKE_RESIDENT, EVICT; the kernel issues
    /// none yet, so 0).
    pub paging: u64,
    /// Submissions the watchdog stopped (deadline or cancellation); each
    /// left its context hung.
    pub hangs: u64,
    /// Command bytes accepted (from CommandOffset to CommandLength).
    pub bytes: u64,
}

/// What a [`Kmd`] holds, counted ([`Kmd::object_counts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KmdCounts {
    /// GPU contexts.
    pub contexts: usize,
    /// Allocations.
    pub allocations: usize,
    /// Contexts the execution half keeps registers and counters for (0
    /// while a job has it).
    pub exec_contexts: usize,
    /// (allocation, context) pairs whose last use is remembered.
    pub allocation_uses: usize,
}

/// The kernel side of one device and its GPU.
pub struct Kmd {
    /// The execution half (None while a job has it, or if it was lost).
    pub(crate) exec: Option<Box<ExecState>>,
    /// The GPU worker (None: jobs run on the calling thread).
    pub(crate) worker: Option<Worker>,
    /// (context, fence) of the submissions in the job in flight.
    pub(crate) inflight: Vec<(u32, u64)>,
    /// The job in flight writes buffers or textures.
    pub(crate) inflight_shared_writes: bool,
    /// Memory of a landed job not yet returned to the owner.
    pub(crate) returned: Option<JobMemory>,
    pub(crate) allocs: BTreeMap<u32, Allocation>,
    pub(crate) next_alloc: u32,
    pub(crate) contexts: BTreeMap<u32, GpuContext>,
    pub(crate) next_ctx: u32,
    pub(crate) default_ctx: Option<u32>,
    pub(crate) queues: [VecDeque<Queued>; 2],
    pub(crate) last_on_engine: [Option<u32>; 2],
    pub(crate) pending_waits: BTreeMap<u32, Vec<(u32, u64)>>,
    pub(crate) sizes: (u32, u32, u32),
    pub(crate) stats: GpuStats,
    pub(crate) rejected: u64,
    /// The host's cancellation flag, shared with each job.
    pub(crate) cancel: pl::CancelHandle,
    /// Time each submission may run (`None`: unlimited).
    pub(crate) timeout: Option<Duration>,
}

impl std::fmt::Debug for Kmd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kmd")
            .field("allocations", &self.allocs.len())
            .field("contexts", &self.contexts.len())
            .field("stats", &self.stats)
            .finish()
    }
}

/// The pixel history of one draw the GPU executed while a pixel watch was
/// set ([`Kmd::set_pixel_watch`]).
#[derive(Debug, Clone, PartialEq)]
pub struct WatchedDraw {
    /// The GPU context that submitted the draw.
    pub context: u32,
    /// The allocation of its colour target.
    pub target: u32,
    /// One history per watched pixel (see `softhal_pipeline::watch`).
    pub pixels: Vec<pl::PixelHistory>,
}

impl Kmd {
    /// A kernel side whose GPU draws with `renderer`.
    pub fn new(renderer: Renderer) -> Self {
        Kmd {
            exec: Some(Box::new(ExecState::new(renderer))),
            worker: Worker::spawn(),
            inflight: Vec::new(),
            inflight_shared_writes: false,
            returned: None,
            allocs: BTreeMap::new(),
            next_alloc: 1,
            contexts: BTreeMap::new(),
            next_ctx: 1,
            default_ctx: None,
            queues: [VecDeque::new(), VecDeque::new()],
            last_on_engine: [None, None],
            pending_waits: BTreeMap::new(),
            sizes: (
                limits::DEFAULT_COMMAND_BUFFER_BYTES,
                limits::DEFAULT_ALLOCATION_LIST,
                limits::DEFAULT_PATCH_LIST,
            ),
            stats: GpuStats::default(),
            rejected: 0,
            cancel: pl::CancelHandle::new(),
            timeout: Some(Duration::from_millis(limits::DEFAULT_GPU_TIMEOUT_MS)),
        }
    }

    /// The GPU's pixel engine (threads, SIMD). Waits for the job in
    /// flight (the engine travels with it); `None` only if a worker was
    /// lost.
    pub fn renderer_mut(&mut self) -> Option<&mut Renderer> {
        self.land_exec();
        self.exec.as_mut().map(|e| &mut e.renderer)
    }

    /// Watches pixels of every draw's colour target from now on (`None`:
    /// stops): each draw the GPU executes then also records what it did at
    /// those pixels (`softhal_pipeline::Renderer::draw_watched`; the same
    /// pixels are drawn), kept until [`Kmd::take_watched_draws`]. A
    /// debugging option of the kernel side, set by the driver or tool that
    /// owns the `Kmd`: no packet can set it. Waits for the job in flight.
    pub fn set_pixel_watch(&mut self, watch: Option<pl::PixelWatch>) {
        self.land_exec();
        if let Some(e) = self.exec.as_mut() {
            e.watch = watch;
        }
    }

    /// The histories of the watched draws executed so far, in execution
    /// order, and how many did not fit (beyond
    /// [`limits::MAX_WATCHED_EVENTS`] events untaken). Waits for the job in flight
    /// (queued work is not run: see `execute_all`).
    pub fn take_watched_draws(&mut self) -> (Vec<WatchedDraw>, u64) {
        self.land_exec();
        match self.exec.as_mut() {
            Some(e) => {
                e.watched_events = 0;
                (
                    std::mem::take(&mut e.watched),
                    std::mem::take(&mut e.watched_dropped),
                )
            }
            None => (Vec::new(), 0),
        }
    }

    /// The sizes of the buffers the kernel hands out now (command buffer
    /// bytes, allocation-list and patch-location-list entries): what the
    /// last accepted resize requests granted, or the defaults.
    pub fn buffer_sizes(&self) -> (u32, u32, u32) {
        self.sizes
    }

    /// Fresh, empty UMD buffers with room for the current sizes (what the
    /// runtime hands the UMD at context creation).
    pub fn initial_buffers(&self) -> RenderData {
        let (c, a, p) = self.sizes;
        RenderData {
            command_buffer: Vec::with_capacity(c as usize),
            new_command_buffer_size: c,
            allocation_list: Vec::with_capacity(a as usize),
            new_allocation_list_size: a,
            patch_location_list: Vec::with_capacity(p as usize),
            new_patch_location_list_size: p,
            ..RenderData::default()
        }
    }

    // ------------------------------------------------------- allocations

    /// Creates an allocation; returns its handle (never 0, never reused).
    /// A texture's description is checked as `Texture::new` checks it
    /// (`E_INVALIDARG` for a shape it refuses or unresolved levels,
    /// `E_OUTOFMEMORY` above the pipeline's `MAX_TEXTURE_BYTES`).
    pub fn create_allocation(&mut self, desc: AllocationDesc) -> Result<u32> {
        if let AllocKind::Texture {
            desc: t,
            render_target,
        } = &desc.kind
        {
            texture::desc_bytes(t)?;
            if *render_target && texture::target_format(t).is_none() {
                return Err(SubmitError::InvalidArg(
                    "a render-target texture needs a 2-D or cube shape and a colour render-target format",
                ));
            }
        }
        if self.allocs.len() >= limits::MAX_ALLOCATIONS {
            return Err(SubmitError::Limit {
                what: "allocations",
                value: self.allocs.len() as u64,
                limit: limits::MAX_ALLOCATIONS as u64,
            });
        }
        let h = self.next_alloc;
        self.next_alloc = h.checked_add(1).ok_or(SubmitError::Limit {
            what: "allocation handles",
            value: u64::from(u32::MAX),
            limit: u64::from(u32::MAX),
        })?;
        self.allocs.insert(
            h,
            Allocation {
                desc,
                locked: false,
                uses: BTreeMap::new(),
            },
        );
        Ok(h)
    }

    /// Destroys an allocation. Work still queued that references it is
    /// executed first (`mem` must still hold it).
    pub fn destroy_allocation(&mut self, h: u32, mem: &mut dyn VideoMemory) -> Result<()> {
        if !self.allocs.contains_key(&h) {
            return Err(SubmitError::InvalidArg("unknown allocation"));
        }
        self.wait_allocation_idle(h, mem);
        self.allocs.remove(&h);
        Ok(())
    }

    /// Changes a buffer allocation's size (a rename gave it new storage).
    pub fn resize_allocation(&mut self, h: u32, bytes: u64) -> Result<()> {
        let a = self
            .allocs
            .get_mut(&h)
            .ok_or(SubmitError::InvalidArg("unknown allocation"))?;
        if let AllocKind::Buffer { bytes: b } = &mut a.desc.kind {
            *b = bytes;
        }
        Ok(())
    }

    /// The allocation got new storage of `bytes` bytes (a rename): work
    /// queued so far runs first (it reads the old contents), then the
    /// allocation is idle.
    pub fn renamed(&mut self, h: u32, bytes: u64, mem: &mut dyn VideoMemory) -> Result<()> {
        if !self.allocs.contains_key(&h) {
            return Err(SubmitError::InvalidArg("unknown allocation"));
        }
        self.execute_all(mem);
        if let Some(a) = self.allocs.get_mut(&h) {
            a.uses.clear();
            if let AllocKind::Buffer { bytes: b } = &mut a.desc.kind {
                *b = bytes;
            }
        }
        Ok(())
    }

    /// Marks an allocation locked / unlocked by the CPU.
    pub fn set_locked(&mut self, h: u32, locked: bool) -> Result<()> {
        self.allocs
            .get_mut(&h)
            .ok_or(SubmitError::InvalidArg("unknown allocation"))?
            .locked = locked;
        Ok(())
    }

    /// True if a fence the allocation waits for has not retired.
    pub fn allocation_busy(&self, h: u32) -> bool {
        self.allocs.get(&h).is_some_and(|a| {
            a.uses
                .iter()
                .any(|(c, f)| self.contexts.get(c).is_some_and(|x| x.retired < *f))
        })
    }

    /// Waits (executing and retiring) until the allocation is idle; true if
    /// it was busy.
    pub fn wait_allocation_idle(&mut self, h: u32, mem: &mut dyn VideoMemory) -> bool {
        let busy = self.allocation_busy(h);
        let uses: Vec<(u32, u64)> = self
            .allocs
            .get(&h)
            .map(|a| a.uses.iter().map(|(c, f)| (*c, *f)).collect())
            .unwrap_or_default();
        for (c, f) in uses {
            self.retire(c, f, mem);
        }
        if let Some(a) = self.allocs.get_mut(&h) {
            a.uses.clear();
        }
        busy
    }

    // ------------------------------------------------------- contexts

    /// Creates a context on `engine`; the first 3-D context is the
    /// default context.
    pub fn create_context(&mut self, engine: Engine) -> Result<u32> {
        if self.contexts.len() >= limits::MAX_CONTEXTS {
            return Err(SubmitError::Limit {
                what: "contexts",
                value: self.contexts.len() as u64,
                limit: limits::MAX_CONTEXTS as u64,
            });
        }
        let h = self.next_ctx;
        self.next_ctx = h
            .checked_add(1)
            .ok_or(SubmitError::InvalidArg("context handles exhausted"))?;
        self.contexts.insert(
            h,
            GpuContext {
                engine,
                regs: RegisterFile::default(),
                submitted: 0,
                executed: 0,
                retired: 0,
                counters: ContextCounters::default(),
                queries: BTreeMap::new(),
                hung: false,
            },
        );
        if engine == Engine::ThreeD && self.default_ctx.is_none() {
            self.default_ctx = Some(h);
        }
        Ok(h)
    }

    /// Destroys a context after running and retiring its work.
    pub fn destroy_context(&mut self, h: u32, mem: &mut dyn VideoMemory) -> Result<()> {
        let f = self
            .contexts
            .get(&h)
            .ok_or(SubmitError::InvalidArg("unknown context"))?
            .submitted;
        self.retire(h, f, mem);
        self.contexts.remove(&h);
        self.pending_waits.remove(&h);
        // What the execution half and the allocations remember of it (its
        // work has run and retired, and the execution half is home).
        if let Some(e) = self.exec.as_mut() {
            e.ctxs.remove(&h);
        }
        for a in self.allocs.values_mut() {
            a.uses.remove(&h);
        }
        if self.default_ctx == Some(h) {
            self.default_ctx = None;
        }
        Ok(())
    }

    /// What the kernel holds, counted (for leak checks).
    pub fn object_counts(&self) -> KmdCounts {
        KmdCounts {
            contexts: self.contexts.len(),
            allocations: self.allocs.len(),
            exec_contexts: self.exec.as_ref().map_or(0, |e| e.ctxs.len()),
            allocation_uses: self.allocs.values().map(|a| a.uses.len()).sum(),
        }
    }

    /// A context's registers (as the GPU has applied them so far).
    pub fn registers(&self, ctx: u32) -> Option<&RegisterFile> {
        self.contexts.get(&ctx).map(|c| &c.regs)
    }

    /// A context's counters (executed work only).
    pub fn counters(&self, ctx: u32) -> Option<ContextCounters> {
        self.contexts.get(&ctx).map(|c| c.counters)
    }

    /// The result of occlusion query `id` on `ctx` once its END executed.
    pub fn query_result(&self, ctx: u32, id: u32) -> Option<u64> {
        self.contexts.get(&ctx)?.queries.get(&id)?.1
    }

    /// (submitted, executed, retired) fence values of a context.
    pub fn fences(&self, ctx: u32) -> Option<(u64, u64, u64)> {
        self.contexts
            .get(&ctx)
            .map(|c| (c.submitted, c.executed, c.retired))
    }

    /// Device-wide counters.
    pub fn stats(&self) -> GpuStats {
        self.stats
    }

    /// Whether the watchdog stopped a submission of `ctx` (collected work
    /// only: a job still in flight may yet hang it). A hung context
    /// refuses submissions with `D3DDDIERR_DEVICEREMOVED`; destroy it and
    /// create another.
    pub fn context_hung(&self, ctx: u32) -> bool {
        self.contexts.get(&ctx).is_some_and(|c| c.hung)
    }

    /// Sets how long one submission may run on the GPU before it is
    /// stopped and its context hung (`None`: no limit); takes effect for
    /// the next job sent. Default:
    /// [`limits::DEFAULT_GPU_TIMEOUT_MS`].
    pub fn set_timeout(&mut self, timeout: Option<Duration>) {
        self.timeout = timeout;
    }

    /// The time one submission may run (`None`: no limit).
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// The GPU's cancellation flag: [`pl::CancelHandle::cancel`], from any
    /// thread, stops the submission running at that moment (at its next
    /// boundary) and hangs its context, as a timeout does. A cancel while
    /// nothing runs is dropped when the next job is sent.
    pub fn cancel_handle(&self) -> pl::CancelHandle {
        self.cancel.clone()
    }

    /// Submissions rejected so far (the only thing a rejection changes).
    pub fn rejected(&self) -> u64 {
        self.rejected
    }

    /// Submissions queued and not executed (those in flight on the
    /// worker included).
    pub fn queued(&self) -> usize {
        self.queues
            .iter()
            .map(VecDeque::len)
            .sum::<usize>()
            .saturating_add(self.inflight.len())
    }

    /// Submissions sent to the GPU worker whose completion has not been
    /// collected yet (their fences are not executed).
    pub fn in_flight(&self) -> usize {
        self.inflight.len()
    }

    /// True if the job in flight writes buffers or textures (the owner
    /// must [`Kmd::wait`] before its CPU reads them).
    pub fn in_flight_writes_shared(&self) -> bool {
        !self.inflight.is_empty() && self.inflight_shared_writes
    }

    /// Test hook: `true` keeps the worker from starting its next job until
    /// `false` or any wait (a wait opens the gate, so it cannot deadlock).
    /// Lets a test observe a submission that is dispatched but not run.
    pub fn hold_gpu(&self, hold: bool) {
        if let Some(w) = &self.worker {
            w.gate.set(hold);
        }
    }

    /// Everything the kernel and GPU hold, as text (equal snapshots mean
    /// equal state); excludes [`Kmd::rejected`].
    pub fn snapshot(&self) -> String {
        format!(
            "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
            self.allocs,
            self.contexts,
            self.queues,
            self.last_on_engine,
            self.pending_waits,
            self.sizes,
            self.stats,
            (self.next_alloc, self.next_ctx, self.default_ctx)
        )
    }

    /// Makes the next submission on `ctx` wait on the GPU (not the CPU)
    /// until `on` has signalled `fence` (a sync-object wait). The fence
    /// must already be submitted.
    pub fn gpu_wait(&mut self, ctx: u32, on: u32, fence: u64) -> Result<()> {
        if !self.contexts.contains_key(&ctx) {
            return Err(SubmitError::InvalidArg("unknown context"));
        }
        let o = self
            .contexts
            .get(&on)
            .ok_or(SubmitError::InvalidArg("unknown context waited on"))?;
        if fence > o.submitted {
            return Err(SubmitError::InvalidArg(
                "waiting on a fence never submitted",
            ));
        }
        if fence > o.executed {
            self.pending_waits.entry(ctx).or_default().push((on, fence));
        }
        Ok(())
    }

    // ------------------------------------------------------- the callback

    /// `pfnRenderCb`: validates and queues the UMD's buffer; always fills
    /// the new buffers and sizes (see [`RenderData`]). Returns S_OK (0) or
    /// the error's HRESULT.
    pub fn render(&mut self, rd: &mut RenderData, mem: &mut dyn VideoMemory) -> u32 {
        match self.render_checked(rd, mem) {
            Ok(()) => 0,
            Err(e) => {
                tracing::warn!(
                    context = rd.h_context.or(self.default_ctx).unwrap_or(0),
                    hresult = %softhal_wire::names::codes::format_hresult(e.hresult()),
                    error = %e,
                    "render-callback submission refused by the kernel"
                );
                self.rejected = self.rejected.saturating_add(1);
                self.return_buffers(rd, false);
                e.hresult()
            }
        }
    }

    /// [`Kmd::render`] with the typed error.
    pub fn render_checked(&mut self, rd: &mut RenderData, mem: &mut dyn VideoMemory) -> Result<()> {
        if rd.flags & render_flags::RESERVED != 0 {
            return Err(SubmitError::InvalidArg("reserved render flags set"));
        }
        let ctx_h = match rd.h_context {
            Some(h) => h,
            None => self
                .default_ctx
                .ok_or(SubmitError::InvalidArg("no default context"))?,
        };
        let ctx = self
            .contexts
            .get(&ctx_h)
            .ok_or(SubmitError::InvalidArg("unknown hContext"))?;
        if ctx.hung {
            return Err(SubmitError::DeviceRemoved { context: ctx_h });
        }
        let limit = |what, v: u32, l: u32| {
            if v > l {
                Err(SubmitError::Limit {
                    what,
                    value: u64::from(v),
                    limit: u64::from(l),
                })
            } else {
                Ok(())
            }
        };
        limit(
            "CommandLength",
            rd.command_length,
            limits::MAX_COMMAND_BUFFER_BYTES,
        )?;
        limit(
            "NumAllocations",
            rd.num_allocations,
            limits::MAX_ALLOCATION_LIST,
        )?;
        limit(
            "NumPatchLocations",
            rd.num_patch_locations,
            limits::MAX_PATCH_LIST,
        )?;
        if rd.command_offset > rd.command_length {
            return Err(SubmitError::InvalidArg(
                "CommandOffset beyond CommandLength",
            ));
        }
        if !rd.command_offset.is_multiple_of(4) || !rd.command_length.is_multiple_of(4) {
            return Err(SubmitError::UserBuffer {
                offset: rd.command_offset,
                reason: "command range is not whole DWORDs",
            });
        }
        let (len, na, np) = (
            rd.command_length as usize,
            rd.num_allocations as usize,
            rd.num_patch_locations as usize,
        );
        // The copies: everything below looks only at these.
        let dma = rd
            .command_buffer
            .get(..len)
            .ok_or(SubmitError::UserBuffer {
                offset: rd.command_length,
                reason: "CommandLength beyond the command buffer",
            })?
            .to_vec();
        let list = rd
            .allocation_list
            .get(..na)
            .ok_or(SubmitError::UserBuffer {
                offset: rd.num_allocations,
                reason: "NumAllocations beyond the allocation list",
            })?
            .to_vec();
        let patches = rd
            .patch_location_list
            .get(..np)
            .ok_or(SubmitError::UserBuffer {
                offset: rd.num_patch_locations,
                reason: "NumPatchLocations beyond the patch-location list",
            })?
            .to_vec();
        let start = rd.command_offset as usize;
        let engine = ctx.engine;
        let packets = self.validate(&dma, start, engine, &list, &patches)?;

        // Accepted: from here on, state changes.
        if start < dma.len() {
            let fence = ctx.submitted.saturating_add(1);
            if self.queued() >= limits::MAX_QUEUED {
                self.step(mem);
            }
            let waits = self.pending_waits.remove(&ctx_h).unwrap_or_default();
            for e in &list {
                if let Some(a) = self.allocs.get_mut(&e.h_allocation) {
                    a.uses.insert(ctx_h, fence);
                }
            }
            if let Some(c) = self.contexts.get_mut(&ctx_h) {
                c.submitted = fence;
            }
            if let Some(q) = self.queues.get_mut(engine.index()) {
                q.push_back(Queued {
                    ctx: ctx_h,
                    fence,
                    waits,
                    packets,
                    null: rd.flags & render_flags::NULL_RENDERING != 0,
                    allocs: list.iter().map(|e| e.h_allocation).collect(),
                });
            }
            self.stats.submissions = self.stats.submissions.saturating_add(1);
            self.stats.bytes = self
                .stats
                .bytes
                .saturating_add(len.saturating_sub(start) as u64);
            rd.fence = fence;
        }
        self.return_buffers(rd, true);
        Ok(())
    }

    /// Fills the new buffers and sizes; resize requests are honoured when
    /// `accepted` and within limits, otherwise the current size stays.
    fn return_buffers(&mut self, rd: &mut RenderData, accepted: bool) {
        let want = |flag: u32, req: u32, cur: u32, max: u32| {
            if accepted && rd.flags & flag != 0 && req > 0 && req <= max {
                req
            } else {
                cur
            }
        };
        let c = want(
            render_flags::RESIZE_COMMAND_BUFFER,
            rd.new_command_buffer_size,
            self.sizes.0,
            limits::MAX_COMMAND_BUFFER_BYTES,
        );
        let a = want(
            render_flags::RESIZE_ALLOCATION_LIST,
            rd.new_allocation_list_size,
            self.sizes.1,
            limits::MAX_ALLOCATION_LIST,
        );
        let p = want(
            render_flags::RESIZE_PATCH_LOCATION_LIST,
            rd.new_patch_location_list_size,
            self.sizes.2,
            limits::MAX_PATCH_LIST,
        );
        self.sizes = (c, a, p);
        // Accepted: the contents were copied; the UMD gets empty buffers
        // with room for the granted sizes (no zero-filling). Rejected: the
        // UMD keeps its contents.
        if accepted {
            rd.command_buffer.clear();
            rd.allocation_list.clear();
            rd.patch_location_list.clear();
        }
        let room = |len: usize, want: u32| (want as usize).saturating_sub(len);
        rd.command_buffer.reserve(room(rd.command_buffer.len(), c));
        rd.new_command_buffer_size = c;
        rd.allocation_list
            .reserve(room(rd.allocation_list.len(), a));
        rd.new_allocation_list_size = a;
        rd.patch_location_list
            .reserve(room(rd.patch_location_list.len(), p));
        rd.new_patch_location_list_size = p;
        rd.queued_buffer_count = u32::try_from(self.queued()).unwrap_or(u32::MAX);
    }
}
