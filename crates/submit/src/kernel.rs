//! The kernel side and the GPU: allocations, contexts, the render callback,
//! validation, queues, fences and execution.
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

use crate::error::{Result, SubmitError};
use crate::limits;
use crate::memory::{JobMemory, VideoMemory};
use crate::packet::{Access, Engine};
use crate::regs;
use crate::texture;
use crate::verify::{self, Checker, Verified};
use softhal_pipeline::stages::MAX_STAGES;
use softhal_pipeline::texture::{Texture, TextureDesc};
use softhal_pipeline::{
    self as pl, Format, Indices, PipelineState, RenderTargets, Renderer, Surface, Topology,
    VertexLayout,
};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// `D3DDDICB_RENDERFLAGS` bits.
pub mod render_flags {
    /// NewCommandBufferSize holds the requested size (bytes).
    pub const RESIZE_COMMAND_BUFFER: u32 = 0x1;
    /// NewAllocationListSize holds the requested element count.
    pub const RESIZE_ALLOCATION_LIST: u32 = 0x2;
    /// NewPatchLocationListSize holds the requested element count.
    pub const RESIZE_PATCH_LOCATION_LIST: u32 = 0x4;
    /// Validate and signal, but skip the commands.
    pub const NULL_RENDERING: u32 = 0x8;
    /// Bits that must be 0.
    pub const RESERVED: u32 = !0xF;
}

/// `D3DDDI_ALLOCATIONLIST` (8 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AllocationListEntry {
    /// hAllocation (kernel handle).
    pub h_allocation: u32,
    /// Bit 0 WriteOperation, bit 1 DoNotRetireInstance, bits 2–4
    /// OfferPriority; other bits must be 0.
    pub value: u32,
}

impl AllocationListEntry {
    /// WriteOperation bit.
    pub const WRITE: u32 = 0x1;
    /// An entry for `h` (`write`: the submission writes it).
    pub fn new(h: u32, write: bool) -> Self {
        AllocationListEntry {
            h_allocation: h,
            value: u32::from(write),
        }
    }
}

/// `D3DDDI_PATCHLOCATIONLIST` (24 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PatchLocation {
    /// Index into the allocation list.
    pub allocation_index: u32,
    /// SlotId (24 bits) and reserved bits: must be 0 in softhal.
    pub slot_id: u32,
    /// DriverId: must be 0.
    pub driver_id: u32,
    /// AllocationOffset: must be 0 (packets carry their own offsets).
    pub allocation_offset: u32,
    /// Byte offset, from the start of the command buffer, of the reference
    /// DWORD the kernel fills with the allocation handle.
    pub patch_offset: u32,
    /// SplitOffset: must be 0.
    pub split_offset: u32,
}

/// `D3DDDICB_RENDER` (the fields softhal uses; the broadcast, marker and
/// private-data fields are not modelled).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RenderData {
    /// in: bytes of commands from offset 0 of `command_buffer`.
    pub command_length: u32,
    /// in: offset of the first command.
    pub command_offset: u32,
    /// in: allocation-list entries used.
    pub num_allocations: u32,
    /// in: patch locations used.
    pub num_patch_locations: u32,
    /// in: the command buffer the UMD filled (at least `command_length`
    /// bytes); out (accepted call): the new one, empty, with capacity for
    /// `new_command_buffer_size` bytes (the UMD appends). A rejected call
    /// leaves the contents alone.
    pub command_buffer: Vec<u8>,
    /// in (with RESIZE_COMMAND_BUFFER): requested size; out: its size.
    pub new_command_buffer_size: u32,
    /// in/out: the allocation list (out: empty, capacity for the size).
    pub allocation_list: Vec<AllocationListEntry>,
    /// in (with RESIZE_ALLOCATION_LIST): requested; out: its size.
    pub new_allocation_list_size: u32,
    /// in/out: the patch-location list (out: empty, capacity for the size).
    pub patch_location_list: Vec<PatchLocation>,
    /// in (with RESIZE_PATCH_LOCATION_LIST): requested; out: its size.
    pub new_patch_location_list_size: u32,
    /// in: [`render_flags`].
    pub flags: u32,
    /// in: the context (`None`: the device's default context).
    pub h_context: Option<u32>,
    /// out: submissions queued and not yet executed.
    pub queued_buffer_count: u32,
    /// out (softhal extension): the fence value the submission signals on
    /// its context (unchanged when nothing was submitted).
    pub fence: u64,
}

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
struct Allocation {
    desc: AllocationDesc,
    locked: bool,
    /// Last use per context: the fence that must retire before the
    /// allocation is idle.
    uses: BTreeMap<u32, u64>,
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
    /// Clears executed.
    pub clears: u64,
    /// Buffer copies executed.
    pub copies: u64,
    /// Presents executed.
    pub presents: u64,
}

#[derive(Debug, Clone, PartialEq)]
struct GpuContext {
    engine: Engine,
    state: PipelineState,
    submitted: u64,
    executed: u64,
    retired: u64,
    counters: ContextCounters,
    /// Query id → (counter at BEGIN, result at END).
    queries: BTreeMap<u32, (u64, Option<u64>)>,
    /// The watchdog stopped a submission of this context (it is removed).
    hung: bool,
}

#[derive(Debug, Clone, PartialEq)]
struct Queued {
    ctx: u32,
    fence: u64,
    waits: Vec<(u32, u64)>,
    /// The verified packets of the command buffer.
    packets: Vec<Verified>,
    null: bool,
    /// The allocations the submission references (what its job carries).
    allocs: Vec<u32>,
}

/// A context's registers and counters as the GPU (the execution half)
/// holds them.
#[derive(Debug, Clone, PartialEq, Default)]
struct ExecCtx {
    state: PipelineState,
    executed: u64,
    counters: ContextCounters,
    queries: BTreeMap<u32, (u64, Option<u64>)>,
    /// A submission of this context was stopped by the watchdog.
    hung: bool,
}

/// The execution half of the GPU: the pixel engine, the per-context
/// register state and counters. It travels with each job to the worker
/// and comes back with the result (at most one job is in flight), so
/// there is never shared mutable state.
struct ExecState {
    renderer: Renderer,
    ctxs: BTreeMap<u32, ExecCtx>,
    last_on_engine: [Option<u32>; 2],
    /// Only `executed`, `context_switches`, `faults`, `paging` and
    /// `hangs` are counted here.
    stats: GpuStats,
    /// The host's cancellation flag (shared with [`Kmd::cancel_handle`]).
    cancel: pl::CancelHandle,
    /// Time each submission may run (`None`: unlimited).
    timeout: Option<Duration>,
}

/// One job for the worker: submissions in execution order and the memory
/// they touch.
struct Job {
    exec: Box<ExecState>,
    subs: Vec<(Engine, Queued)>,
    mem: JobMemory,
}

/// A finished job.
struct Done {
    exec: Box<ExecState>,
    mem: JobMemory,
}

/// A gate the worker passes before each job (closed by
/// [`Kmd::hold_gpu`], for tests that must observe work not yet run;
/// every wait opens it).
#[derive(Default)]
struct Gate {
    closed: Mutex<bool>,
    cv: Condvar,
}

impl Gate {
    fn set(&self, closed: bool) {
        *self.closed.lock().unwrap_or_else(PoisonError::into_inner) = closed;
        self.cv.notify_all();
    }
    fn pass(&self) {
        let mut g = self.closed.lock().unwrap_or_else(PoisonError::into_inner);
        while *g {
            g = self.cv.wait(g).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// The GPU worker thread and its channels.
struct Worker {
    tx: Option<Sender<Job>>,
    rx: Mutex<Receiver<Done>>,
    /// A result received by a `&self` caller ([`Kmd::land_images`]) and
    /// not yet applied.
    parked: Mutex<Option<Done>>,
    gate: Arc<Gate>,
    handle: Option<JoinHandle<()>>,
}

impl Worker {
    fn spawn() -> Option<Worker> {
        let (tx, jobs) = mpsc::channel::<Job>();
        let (done, rx) = mpsc::channel::<Done>();
        let gate = Arc::new(Gate::default());
        let g = Arc::clone(&gate);
        let handle = std::thread::Builder::new()
            .name("softhal-gpu".into())
            .spawn(move || {
                while let Ok(mut job) = jobs.recv() {
                    g.pass();
                    run_job(&mut job);
                    let Job { exec, mem, .. } = job;
                    if done.send(Done { exec, mem }).is_err() {
                        break;
                    }
                }
            })
            .ok()?;
        Some(Worker {
            tx: Some(tx),
            rx: Mutex::new(rx),
            parked: Mutex::new(None),
            gate,
            handle: Some(handle),
        })
    }

    /// Blocks until the job in flight is done (None: the worker is gone).
    fn receive(&self) -> Option<Done> {
        self.gate.set(false);
        let mut parked = self.parked.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(d) = parked.take() {
            return Some(d);
        }
        let rx = self.rx.lock().unwrap_or_else(PoisonError::into_inner);
        rx.recv().ok()
    }
}

impl Drop for Kmd {
    fn drop(&mut self) {
        // Joining the worker (Worker's drop) after the job in flight.
        self.land_exec();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.gate.set(false);
        self.tx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Executes a job's submissions in order; the snapshots it only read are
/// dropped. A panic in the pixel engine (a bug) is caught so that the
/// memory and the execution state always come back.
fn run_job(job: &mut Job) {
    let subs = std::mem::take(&mut job.subs);
    let exec = &mut job.exec;
    let mem = &mut job.mem;
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        for (e, q) in subs {
            exec.execute(e, q, mem);
        }
    }));
    if r.is_err() {
        job.exec.fault();
    }
    job.mem.drop_read_only();
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

/// What the packets executed so far bound (a submission starts with
/// nothing); inline vertices and indices borrow the verified packets.
#[derive(Debug, Clone, Copy, Default)]
struct Bind<'p> {
    color: Option<u32>,
    /// (face, level) when the colour target is a texture level
    /// (BIND_TEXTURE_TARGET); `None` for an image.
    color_level: Option<(u32, u32)>,
    depth: Option<u32>,
    layout: Option<VertexLayout>,
    /// Vertex source.
    verts: Option<Source<'p>>,
    /// Index source and width.
    idx: Option<(Source<'p>, u32)>,
    /// Texture allocation bound to each stage (SET_TEXTURE).
    textures: [Option<u32>; MAX_STAGES],
}

/// Where vertices or indices come from.
#[derive(Debug, Clone, Copy)]
enum Source<'p> {
    /// `len` bytes at `offset` of a buffer allocation.
    Buffer { h: u32, offset: usize, len: usize },
    /// Bytes that travelled in the command buffer.
    Inline(&'p [u8]),
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
    exec: Option<Box<ExecState>>,
    /// The GPU worker (None: jobs run on the calling thread).
    worker: Option<Worker>,
    /// (context, fence) of the submissions in the job in flight.
    inflight: Vec<(u32, u64)>,
    /// The job in flight writes buffers or textures.
    inflight_shared_writes: bool,
    /// Memory of a landed job not yet returned to the owner.
    returned: Option<JobMemory>,
    allocs: BTreeMap<u32, Allocation>,
    next_alloc: u32,
    contexts: BTreeMap<u32, GpuContext>,
    next_ctx: u32,
    default_ctx: Option<u32>,
    queues: [VecDeque<Queued>; 2],
    last_on_engine: [Option<u32>; 2],
    pending_waits: BTreeMap<u32, Vec<(u32, u64)>>,
    sizes: (u32, u32, u32),
    stats: GpuStats,
    rejected: u64,
    /// The host's cancellation flag, shared with each job.
    cancel: pl::CancelHandle,
    /// Time each submission may run (`None`: unlimited).
    timeout: Option<Duration>,
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

fn off32(o: usize) -> u32 {
    u32::try_from(o).unwrap_or(u32::MAX)
}

/// The colour target of a draw or clear: an image moved out of video
/// memory, or a texture level (`level`: face, level) as a surface — its
/// bytes moved out of the texture, or copied when `copy` (the draw also
/// samples the texture, and sees the level as it was before the draw).
fn take_target(
    mem: &mut dyn VideoMemory,
    h: u32,
    level: Option<(u32, u32)>,
    copy: bool,
) -> Option<Surface> {
    let Some((face, lv)) = level else {
        return mem.take_image(h);
    };
    let t = mem.texture_mut(h)?;
    let (format, w, hgt) = texture::target_level(&t.desc(), face, lv)?;
    let pitch = t.level_info(lv)?.row_pitch as u64;
    let bytes = if copy {
        t.level_bytes(face, lv)?.to_vec()
    } else {
        t.take_level(face, lv)?
    };
    match Surface::from_bytes(format, w, hgt, pitch, bytes) {
        Ok(s) => Some(s),
        Err((_, bytes)) => {
            if !copy {
                t.put_level(face, lv, bytes);
            }
            None
        }
    }
}

/// Puts a target taken with [`take_target`] back; false if it could not be.
fn put_target(mem: &mut dyn VideoMemory, h: u32, level: Option<(u32, u32)>, s: Surface) -> bool {
    let Some((face, lv)) = level else {
        mem.put_image(h, s);
        return true;
    };
    mem.texture_mut(h)
        .is_some_and(|t| t.put_level(face, lv, s.into_bytes()))
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
                state: PipelineState::default(),
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

    /// A context's register state (as the GPU has applied it so far).
    pub fn state(&self, ctx: u32) -> Option<&PipelineState> {
        self.contexts.get(&ctx).map(|c| &c.state)
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

    /// Validates the copied submission; returns its verified packets,
    /// their references resolved to allocation handles.
    fn validate(
        &self,
        dma: &[u8],
        start: usize,
        engine: Engine,
        list: &[AllocationListEntry],
        patches: &[PatchLocation],
    ) -> Result<Vec<Verified>> {
        // 1. The allocation list.
        for e in list {
            if e.value & !0x1F != 0 {
                return Err(SubmitError::InvalidArg("reserved allocation-list bits set"));
            }
            let a = self
                .allocs
                .get(&e.h_allocation)
                .ok_or(SubmitError::Handle {
                    reason: "allocation-list entry names no live allocation",
                    value: e.h_allocation,
                })?;
            if a.locked && !a.desc.cpu_visible {
                return Err(SubmitError::Locked(e.h_allocation));
            }
        }
        // 2. Packet structure, and where the references are.
        let frames = verify::walk(dma, start, engine, false)?;
        let mut slots: BTreeMap<usize, (Access, Option<u32>)> = BTreeMap::new();
        for f in &frames {
            let rule = crate::packet::rule(f.opcode).ok_or(f.invalid("unknown opcode"))?;
            for s in rule.refs {
                if !s.present(f.flags) {
                    continue;
                }
                let at = (s.dword as usize)
                    .checked_sub(1)
                    .and_then(|i| i.checked_mul(4))
                    .and_then(|b| f.payload_offset.checked_add(b))
                    .ok_or(f.user_buffer("reference outside the packet"))?;
                slots.insert(at, (s.access, None));
            }
        }
        // 3. Patch locations.
        for pl in patches {
            if pl.slot_id != 0
                || pl.driver_id != 0
                || pl.allocation_offset != 0
                || pl.split_offset != 0
            {
                return Err(SubmitError::InvalidArg(
                    "reserved patch-location fields set",
                ));
            }
            if pl.allocation_index as usize >= list.len() {
                return Err(SubmitError::Handle {
                    reason: "patch location names an entry outside the allocation list",
                    value: pl.allocation_index,
                });
            }
            let at = pl.patch_offset as usize;
            let inside = at >= start
                && at.is_multiple_of(4)
                && at.checked_add(4).is_some_and(|e| e <= dma.len());
            if !inside {
                return Err(SubmitError::UserBuffer {
                    offset: pl.patch_offset,
                    reason: "patch location outside the command buffer",
                });
            }
            let slot = slots.get_mut(&at).ok_or(SubmitError::UserBuffer {
                offset: pl.patch_offset,
                reason: "patch location is not an allocation reference",
            })?;
            if slot.1.replace(pl.allocation_index).is_some() {
                return Err(SubmitError::UserBuffer {
                    offset: pl.patch_offset,
                    reason: "two patch locations for one reference",
                });
            }
        }
        // 4. Every reference patched; writes only through writable entries.
        let mut resolved: BTreeMap<usize, (u32, AllocationDesc)> = BTreeMap::new();
        for (&at, &(access, idx)) in &slots {
            let idx = idx.ok_or(SubmitError::Handle {
                reason: "allocation reference without a patch location",
                value: off32(at),
            })?;
            let e = list.get(idx as usize).ok_or(SubmitError::Handle {
                reason: "patch location names an entry outside the allocation list",
                value: idx,
            })?;
            if access == Access::Write && e.value & AllocationListEntry::WRITE == 0 {
                return Err(SubmitError::Handle {
                    reason: "write through an allocation-list entry without WriteOperation",
                    value: e.h_allocation,
                });
            }
            let a = self
                .allocs
                .get(&e.h_allocation)
                .ok_or(SubmitError::Handle {
                    reason: "allocation-list entry names no live allocation",
                    value: e.h_allocation,
                })?;
            resolved.insert(at, (e.h_allocation, a.desc));
        }
        // 5. Each packet decoded and verified by its table row's verifier,
        // with the bindings a submission starts from (none).
        let mut cx = Checker::new(&resolved);
        frames.iter().map(|f| cx.check(f)).collect()
    }

    // ------------------------------------------------------- the GPU

    /// Sends queued work to the GPU worker in execution order: each
    /// engine's queue in submission order, the 3-D engine first when both
    /// can run, a submission only once the fences it waits on precede it
    /// (`until`: stop once `ctx` reaches `fence`; `one`: a single
    /// submission). Waits for the job in flight first. Returns how many
    /// submissions were sent.
    fn dispatch_some(
        &mut self,
        mem: &mut dyn VideoMemory,
        until: Option<(u32, u64)>,
        one: bool,
    ) -> usize {
        self.land(mem);
        let mut sim: BTreeMap<u32, u64> = self
            .contexts
            .iter()
            .map(|(h, c)| (*h, c.executed))
            .collect();
        let done = |sim: &BTreeMap<u32, u64>, c: u32, f: u64| sim.get(&c).is_none_or(|x| *x >= f);
        let mut subs: Vec<(Engine, Queued)> = Vec::new();
        loop {
            if until.is_some_and(|(c, f)| done(&sim, c, f)) {
                break;
            }
            let next = [Engine::ThreeD, Engine::Copy].into_iter().find(|e| {
                self.queues
                    .get(e.index())
                    .and_then(VecDeque::front)
                    .is_some_and(|q| q.waits.iter().all(|(c, f)| done(&sim, *c, *f)))
            });
            let Some(e) = next else { break };
            let Some(q) = self.queues.get_mut(e.index()).and_then(VecDeque::pop_front) else {
                break;
            };
            if self.contexts.contains_key(&q.ctx) {
                let x = sim.entry(q.ctx).or_default();
                *x = (*x).max(q.fence);
            }
            subs.push((e, q));
            if one {
                break;
            }
        }
        let n = subs.len();
        if n == 0 {
            return 0;
        }
        // The memory the job touches: images moved, the rest shared.
        let mut jm = JobMemory::default();
        let mut shared_writes = false;
        let handles: BTreeSet<u32> = subs
            .iter()
            .flat_map(|(_, q)| q.allocs.iter().copied())
            .collect();
        for a in handles {
            if let Some(img) = mem.take_image(a) {
                jm.images.insert(a, img);
            } else if let Some(b) = mem.share_buffer(a) {
                jm.buffers.insert(a, b);
                shared_writes = true;
            } else if let Some(t) = mem.share_texture(a) {
                jm.textures.insert(a, t);
                shared_writes = true;
            }
        }
        // Only copies and texture targets write buffers and textures.
        shared_writes &= subs.iter().any(|(e, _)| *e == Engine::Copy)
            || subs
                .iter()
                .any(|(_, q)| q.packets.iter().any(Verified::writes_shared));
        self.inflight = subs.iter().map(|(_, q)| (q.ctx, q.fence)).collect();
        self.inflight_shared_writes = shared_writes;
        let exec = match self.exec.take() {
            Some(e) => e,
            None => match Renderer::new(1) {
                Ok(r) => {
                    let mut e = Box::new(ExecState::new(r));
                    e.stats = self.stats;
                    e
                }
                Err(_) => {
                    // No pixel engine: the work is lost (counted).
                    self.stats.faults = self.stats.faults.saturating_add(n as u64);
                    jm.return_to(mem);
                    self.publish_lost();
                    return n;
                }
            },
        };
        let mut exec = exec;
        exec.cancel = self.cancel.clone();
        exec.timeout = self.timeout;
        // A cancellation asked for while nothing ran is dropped: it stops
        // only work in flight.
        self.cancel.take();
        let mut job = Job {
            exec,
            subs,
            mem: jm,
        };
        if let Some(tx) = self.worker.as_ref().and_then(|w| w.tx.as_ref()) {
            match tx.send(job) {
                Ok(()) => return n,
                Err(mpsc::SendError(j)) => job = j,
            }
        }
        // No worker: run here.
        self.worker = None;
        run_job(&mut job);
        let Job { exec, mem: jm, .. } = job;
        self.apply(Done { exec, mem: jm });
        n
    }

    /// Marks the fences in flight executed when their job was lost.
    fn publish_lost(&mut self) {
        for (c, f) in std::mem::take(&mut self.inflight) {
            if let Some(g) = self.contexts.get_mut(&c) {
                g.executed = g.executed.max(f);
            }
        }
    }

    /// Publishes a finished job: fences executed, registers, counters.
    fn apply(&mut self, d: Done) {
        let touched: BTreeSet<u32> = self.inflight.iter().map(|(c, _)| *c).collect();
        for c in touched {
            if let (Some(g), Some(x)) = (self.contexts.get_mut(&c), d.exec.ctxs.get(&c)) {
                g.executed = g.executed.max(x.executed);
                g.state = x.state;
                g.counters = x.counters;
                g.queries.clone_from(&x.queries);
                g.hung |= x.hung;
            }
        }
        self.publish_lost();
        self.stats.executed = d.exec.stats.executed;
        self.stats.context_switches = d.exec.stats.context_switches;
        self.stats.faults = d.exec.stats.faults;
        self.stats.paging = d.exec.stats.paging;
        self.stats.hangs = d.exec.stats.hangs;
        self.last_on_engine = d.exec.last_on_engine;
        self.exec = Some(d.exec);
        self.inflight_shared_writes = false;
        let mut m = d.mem;
        if let Some(old) = self.returned.take() {
            // Cannot happen (memory is returned before the next dispatch);
            // keep both.
            m.images.extend(old.images);
        }
        self.returned = Some(m);
    }

    /// Waits for the job in flight and takes back the execution half (its
    /// memory stays in `returned` until [`Kmd::land`]).
    fn land_exec(&mut self) {
        if self.inflight.is_empty() {
            return;
        }
        match self.worker.as_ref().and_then(Worker::receive) {
            Some(d) => self.apply(d),
            None => {
                // The worker is gone with the job (a bug): the fences are
                // let go so that nothing waits forever.
                self.worker = None;
                self.stats.faults = self.stats.faults.saturating_add(self.inflight.len() as u64);
                self.publish_lost();
            }
        }
    }

    /// Waits for the job in flight, publishes its fences and returns its
    /// memory to `mem`.
    fn land(&mut self, mem: &mut dyn VideoMemory) {
        self.land_exec();
        if let Some(m) = self.returned.take() {
            m.return_to(mem);
        }
    }

    /// `&self` readers (the device's image readers): waits for the job in
    /// flight and hands its images to `put` (allocation, image). The
    /// rest of the result (fences, counters, written buffers) is applied
    /// by the next `&mut` call.
    pub fn land_images(&self, put: &mut dyn FnMut(u32, Surface)) {
        let Some(w) = &self.worker else { return };
        if self.inflight.is_empty() {
            return;
        }
        let mut parked = w.parked.lock().unwrap_or_else(PoisonError::into_inner);
        if parked.is_none() {
            w.gate.set(false);
            let rx = w.rx.lock().unwrap_or_else(PoisonError::into_inner);
            *parked = rx.recv().ok();
        }
        if let Some(d) = parked.as_mut() {
            for (a, s) in std::mem::take(&mut d.mem.images) {
                put(a, s);
            }
        }
    }

    /// Sends everything runnable to the GPU worker and returns without
    /// waiting (after waiting for the previous job, whose memory goes back
    /// to `mem`). True if something was sent.
    pub fn dispatch(&mut self, mem: &mut dyn VideoMemory) -> bool {
        self.dispatch_some(mem, None, false) > 0
    }

    /// Waits for the job in flight (fences executed, memory back in
    /// `mem`).
    pub fn wait(&mut self, mem: &mut dyn VideoMemory) {
        self.land(mem);
    }

    /// Runs one queued submission whose waits are satisfied (3-D engine
    /// first) and waits for it; false if none can run.
    pub fn step(&mut self, mem: &mut dyn VideoMemory) -> bool {
        let n = self.dispatch_some(mem, None, true);
        self.land(mem);
        n > 0
    }

    /// Runs everything queued and waits for it.
    pub fn execute_all(&mut self, mem: &mut dyn VideoMemory) {
        while self.dispatch_some(mem, None, false) > 0 {}
        self.land(mem);
    }

    /// Runs queued work until `ctx` has executed `fence`, and waits.
    pub fn execute_until(&mut self, ctx: u32, fence: u64, mem: &mut dyn VideoMemory) {
        while self.contexts.get(&ctx).is_some_and(|c| c.executed < fence) {
            if self.dispatch_some(mem, Some((ctx, fence)), false) == 0 {
                break;
            }
            self.land_exec();
        }
        self.land(mem);
    }

    /// The CPU waits for `fence` on `ctx`: runs what is needed, then the
    /// fence (and every earlier one of the context) is retired.
    pub fn retire(&mut self, ctx: u32, fence: u64, mem: &mut dyn VideoMemory) {
        self.execute_until(ctx, fence, mem);
        if let Some(c) = self.contexts.get_mut(&ctx) {
            c.retired = c.retired.max(fence.min(c.executed));
        }
    }

    /// Runs and retires everything.
    pub fn retire_all(&mut self, mem: &mut dyn VideoMemory) {
        self.execute_all(mem);
        for c in self.contexts.values_mut() {
            c.retired = c.executed;
        }
        for a in self.allocs.values_mut() {
            a.uses.clear();
        }
    }
}

impl ExecState {
    fn new(renderer: Renderer) -> Self {
        ExecState {
            renderer,
            ctxs: BTreeMap::new(),
            last_on_engine: [None, None],
            stats: GpuStats::default(),
            cancel: pl::CancelHandle::new(),
            timeout: None,
        }
    }

    fn execute(&mut self, engine: Engine, q: Queued, mem: &mut dyn VideoMemory) {
        // The kernel's own packets around the user buffer.
        let mut pro = Vec::new();
        if self.last_on_engine.get(engine.index()).copied().flatten() != Some(q.ctx) {
            pro.push(Verified::ContextSwitch { context: q.ctx });
        }
        for &(context, fence) in &q.waits {
            pro.push(Verified::FenceWait { context, fence });
        }
        let epi = [Verified::FenceSignal {
            context: q.ctx,
            fence: q.fence,
        }];
        if self.ctxs.get(&q.ctx).is_some_and(|c| c.hung) {
            // A hung context's queued work is skipped; its fence is still
            // signalled so that nothing waits for it forever.
            self.run(engine, q.ctx, &epi, mem, None);
            self.stats.executed = self.stats.executed.saturating_add(1);
            return;
        }
        self.run(engine, q.ctx, &pro, mem, None);
        if !q.null {
            let wd = pl::Watchdog {
                cancel: self.cancel.clone(),
                deadline: self.timeout.and_then(|t| Instant::now().checked_add(t)),
            };
            self.renderer.set_watchdog(Some(wd.clone()));
            let stopped = self.run(engine, q.ctx, &q.packets, mem, Some(&wd));
            self.renderer.set_watchdog(None);
            if stopped {
                // The cancellation (if that was it) is spent on this
                // submission; the rest of the job runs.
                self.cancel.take();
                self.ctxs.entry(q.ctx).or_default().hung = true;
                self.stats.hangs = self.stats.hangs.saturating_add(1);
            }
        }
        self.run(engine, q.ctx, &epi, mem, None);
        self.stats.executed = self.stats.executed.saturating_add(1);
    }

    fn fault(&mut self) {
        self.stats.faults = self.stats.faults.saturating_add(1);
    }

    /// Executes verified packets (every access to memory is still
    /// checked). With a watchdog (user submissions; the kernel's own
    /// packets have none), it is checked before and after each packet
    /// that does work (draws, clears, copies); returns true when it fired
    /// (the rest of the packets did not run).
    fn run(
        &mut self,
        engine: Engine,
        ctx_h: u32,
        packets: &[Verified],
        mem: &mut dyn VideoMemory,
        wd: Option<&pl::Watchdog>,
    ) -> bool {
        let fired = || wd.is_some_and(pl::Watchdog::fired);
        let mut b = Bind::default();
        for p in packets {
            let work = p.is_work();
            if work && fired() {
                return true;
            }
            let ok = match p {
                Verified::Nop => true,
                Verified::ContextSwitch { context } => {
                    if let Some(slot) = self.last_on_engine.get_mut(engine.index()) {
                        *slot = Some(*context);
                    }
                    self.stats.context_switches = self.stats.context_switches.saturating_add(1);
                    true
                }
                Verified::FenceWait { context, fence } => {
                    self.ctxs.get(context).is_none_or(|c| c.executed >= *fence)
                }
                Verified::FenceSignal { context, fence } => {
                    let c = self.ctxs.entry(*context).or_default();
                    c.executed = c.executed.max(*fence);
                    true
                }
                Verified::SetRegs(writes) => {
                    let c = self.ctxs.entry(ctx_h).or_default();
                    writes
                        .iter()
                        .all(|&(r, v)| regs::write(&mut c.state, r, v).is_ok())
                }
                Verified::BindTargets { color, depth } => {
                    b.color = Some(*color);
                    b.color_level = None;
                    b.depth = *depth;
                    true
                }
                Verified::BindTextureTarget {
                    texture,
                    face,
                    level,
                    depth,
                } => {
                    b.color = Some(*texture);
                    b.color_level = Some((*face, *level));
                    b.depth = *depth;
                    true
                }
                Verified::VertexFormat(l) => {
                    b.layout = Some(*l);
                    true
                }
                Verified::SetVertices {
                    buffer,
                    offset,
                    size,
                } => {
                    b.verts = Some(Source::Buffer {
                        h: *buffer,
                        offset: *offset,
                        len: *size,
                    });
                    true
                }
                Verified::VerticesInline(data) => {
                    b.verts = Some(Source::Inline(data));
                    true
                }
                Verified::SetIndices {
                    buffer,
                    offset,
                    size,
                    width,
                } => {
                    b.idx = Some((
                        Source::Buffer {
                            h: *buffer,
                            offset: *offset,
                            len: *size,
                        },
                        *width,
                    ));
                    true
                }
                Verified::IndicesInline { width, data } => {
                    b.idx = Some((Source::Inline(data), *width));
                    true
                }
                Verified::Draw {
                    topology,
                    first,
                    count,
                    base_vertex,
                    indexed,
                } => {
                    let call = DrawArgs {
                        topology: *topology,
                        first: *first,
                        count: *count,
                        base_vertex: *base_vertex,
                        indexed: *indexed,
                    };
                    self.draw(ctx_h, &b, &call, mem)
                }
                Verified::Clear {
                    flags,
                    color,
                    z,
                    stencil,
                    rects,
                } => {
                    let req = pl::Clear {
                        flags: pl::ClearFlags::from_d3d(flags.0),
                        rects,
                        color: *color,
                        z: *z,
                        stencil: *stencil,
                    };
                    self.clear(ctx_h, &b, &req, mem)
                }
                Verified::BufferCopy {
                    src,
                    src_offset,
                    dst,
                    dst_offset,
                    size,
                } => {
                    let ok = mem.copy_buffer(*src, *src_offset, *dst, *dst_offset, *size);
                    let c = self.ctxs.entry(ctx_h).or_default();
                    c.counters.copies = c.counters.copies.saturating_add(1);
                    ok
                }
                Verified::Query { end, id } => {
                    let c = self.ctxs.entry(ctx_h).or_default();
                    let now = c.counters.samples_passed;
                    if *end {
                        let begin = c.queries.get(id).map_or(now, |q| q.0);
                        c.queries
                            .insert(*id, (begin, Some(now.saturating_sub(begin))));
                    } else {
                        c.queries.insert(*id, (now, None));
                    }
                    true
                }
                Verified::Present => {
                    let c = self.ctxs.entry(ctx_h).or_default();
                    c.counters.presents = c.counters.presents.saturating_add(1);
                    true
                }
                Verified::SetTexture { stage, texture } => {
                    match b.textures.get_mut(*stage as usize) {
                        Some(slot) => {
                            *slot = *texture;
                            true
                        }
                        None => false,
                    }
                }
                Verified::TextureCopy(c) => {
                    let ok = texture::copy(mem, c.src, c.dst, c);
                    let c = self.ctxs.entry(ctx_h).or_default();
                    c.counters.copies = c.counters.copies.saturating_add(1);
                    ok
                }
            };
            if work && fired() {
                // Stopped inside (or right after) this packet: not a
                // fault of the packet.
                return true;
            }
            if !ok {
                self.fault();
            }
        }
        false
    }

    fn draw(&mut self, ctx_h: u32, b: &Bind<'_>, d: &DrawArgs, mem: &mut dyn VideoMemory) -> bool {
        let (Some(ch), Some(layout), Some(vs)) = (b.color, b.layout, b.verts) else {
            return false;
        };
        let ctx = self.ctxs.entry(ctx_h).or_default();
        // A texture level that is also sampled by this draw is copied: the
        // draw samples its contents as of the start of the draw.
        let sampled = b.textures.contains(&Some(ch));
        let Some(mut color) = take_target(mem, ch, b.color_level, sampled) else {
            return false;
        };
        let mut depth = b.depth.and_then(|d| mem.take_image(d));
        let mut missing = false;
        let result = {
            // Looked up now: a texture that vanished reads as unbound.
            let textures: [Option<&Texture>; MAX_STAGES] = std::array::from_fn(|i| {
                let h = b.textures.get(i).copied().flatten()?;
                let t = mem.texture(h);
                missing |= t.is_none();
                t
            });
            let mem: &dyn VideoMemory = mem;
            let bytes = |src| source_bytes(mem, src);
            let verts = bytes(vs);
            let indices = match b.idx {
                Some((src, w)) if d.indexed => bytes(src).map(|s| {
                    Some(if w == 2 {
                        Indices::U16(s)
                    } else {
                        Indices::U32(s)
                    })
                }),
                _ if d.indexed => None,
                _ => Some(None),
            };
            match (verts, indices) {
                (Some(v), Some(ix)) => {
                    let call = pl::DrawCall {
                        topology: d.topology,
                        vertices: v,
                        layout: &layout,
                        indices: ix,
                        first: d.first,
                        primitive_count: d.count,
                        base_vertex: d.base_vertex,
                    };
                    let mut targets = RenderTargets {
                        color: &mut color,
                        depth: depth.as_mut(),
                    };
                    self.renderer
                        .draw_textured(&mut targets, &ctx.state, &call, &textures)
                        .ok()
                }
                _ => None,
            }
        };
        let put = put_target(mem, ch, b.color_level, color);
        if let (Some(h), Some(d)) = (b.depth, depth) {
            mem.put_image(h, d);
        }
        match result.filter(|_| put) {
            Some(s) => {
                let k = &mut ctx.counters;
                if d.count > 0 {
                    k.draws = k.draws.saturating_add(1);
                }
                k.primitives = k.primitives.saturating_add(s.primitives);
                k.samples_passed = k.samples_passed.saturating_add(s.samples_passed_depth);
                !missing
            }
            None => false,
        }
    }

    fn clear(
        &mut self,
        ctx_h: u32,
        b: &Bind<'_>,
        req: &pl::Clear<'_>,
        mem: &mut dyn VideoMemory,
    ) -> bool {
        let Some(ch) = b.color else {
            return false;
        };
        let mut color = take_target(mem, ch, b.color_level, false);
        let mut depth = b.depth.and_then(|d| mem.take_image(d));
        let ok = color.is_some()
            && self
                .renderer
                .clear(color.as_mut(), depth.as_mut(), req)
                .is_ok();
        let ok = match color {
            Some(c) => put_target(mem, ch, b.color_level, c) && ok,
            None => ok,
        };
        if let (Some(h), Some(d)) = (b.depth, depth) {
            mem.put_image(h, d);
        }
        let c = self.ctxs.entry(ctx_h).or_default();
        c.counters.clears = c.counters.clears.saturating_add(1);
        ok
    }
}

/// The bytes of a vertex or index source (`None`: the buffer vanished or
/// shrank).
fn source_bytes<'m>(mem: &'m dyn VideoMemory, src: Source<'m>) -> Option<&'m [u8]> {
    match src {
        Source::Buffer { h, offset, len } => mem.buffer(h)?.get(offset..offset.checked_add(len)?),
        Source::Inline(data) => Some(data),
    }
}

/// A verified DRAW's operands.
struct DrawArgs {
    topology: Topology,
    first: u32,
    count: u32,
    base_vertex: i32,
    indexed: bool,
}
