//! The objects behind the C pointers, and the registry that validates them.
//!
//! Every pointer or `dwhContext` the host passes in is only ever used as a
//! **number**: it is looked up in a process-wide registry and, if it names
//! a live object, the registry hands back a reference-counted handle. softhal
//! never dereferences a driver, surface or context value it was given, so a
//! stale, foreign or forged value is an error (`DDERR_INVALIDOBJECT`,
//! `D3DHAL_CONTEXT_BAD`), never a crash. (A surface pointer that was
//! destroyed and whose address was reused by a later surface names that
//! later surface: memory-safe, but a host bug.)
//!
//! Locking: the registry lock is held only to look up or change the maps,
//! never while a driver works. Each driver has its own mutex; every call on
//! a driver (or on its surfaces and contexts) holds it for the duration of
//! the call, so calls on one driver are serialized and calls on different
//! drivers run in parallel.

use softhal_capture::Observer;
use softhal_device::Driver;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::File;
use std::io::BufWriter;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

/// A driver: the device behind its lock.
pub(crate) struct DriverObj {
    state: Mutex<DriverState>,
    /// The driver's GPU cancellation flag, reachable without the lock
    /// (`softhal_driver_cancel` must not wait for the call it stops).
    pub cancel: softhal_pipeline::CancelHandle,
}

/// A capture in progress (`softhal_capture_start`): every call on the
/// driver is reported to it after the real call.
pub(crate) type Capture = Observer<BufWriter<File>>;

/// What the driver mutex protects.
pub(crate) struct DriverState {
    /// The device (its `D3dParseUnknownCommand` hook included).
    pub driver: Driver,
    /// The capture being recorded, if any.
    pub capture: Option<Capture>,
    /// The render contexts (`softhal_render_context_create`) alive.
    pub render_contexts: BTreeSet<u32>,
    /// The buffers handed out to the host for each render context (and
    /// the default context), created when first asked for.
    pub umd_buffers: BTreeMap<u32, UmdBuffers>,
    /// Why the last `D3dDrawPrimitives2` on one of the driver's contexts
    /// was refused at the C boundary (`None` when the device answered it:
    /// its own last error then tells).
    pub boundary_error: Option<String>,
}

/// The buffers softhal hands a render context's user-mode driver, as
/// `pfnRenderCb` defines them: `pNewCommandBuffer` (`NewCommandBufferSize`
/// bytes), `pNewAllocationList` and `pNewPatchLocationList`
/// (`NewAllocationListSize` / `NewPatchLocationListSize` entries).
///
/// softhal owns the memory; the host writes it between calls (and, in an
/// emulator, a guest may write it at any time). It is therefore held as
/// `AtomicU32` words and read only with atomic loads, once per call: a
/// host writing concurrently sees no undefined behaviour on softhal's side
/// and cannot make softhal read one word twice. A buffer stays at its
/// address until a render call on its context hands out a different one
/// (a granted resize), or until its context or driver is destroyed.
pub(crate) struct UmdBuffers {
    /// `NewCommandBufferSize` bytes (rounded up to whole words).
    command: Box<[AtomicU32]>,
    command_bytes: u32,
    /// 2 words per `D3DDDI_ALLOCATIONLIST`.
    allocations: Box<[AtomicU32]>,
    /// 6 words per `D3DDDI_PATCHLOCATIONLIST`.
    patches: Box<[AtomicU32]>,
}

/// Words of a `D3DDDI_ALLOCATIONLIST` / a `D3DDDI_PATCHLOCATIONLIST`.
pub(crate) const ALLOCATION_WORDS: usize = 2;
pub(crate) const PATCH_WORDS: usize = 6;

/// `n` zeroed words, from the allocator's zeroed memory (pages the host
/// never writes are never touched: a 64 MiB command buffer costs address
/// space until it is used).
fn zeroed_words(n: usize) -> Box<[AtomicU32]> {
    let words: Box<[u32]> = vec![0u32; n].into_boxed_slice();
    // SAFETY: AtomicU32 has the same size and bit validity as u32, and
    // its alignment (4) equals u32's on every target with 32-bit atomics
    // that softhal builds for (checked below at compile time); the box
    // owns the allocation, which is handed over whole.
    unsafe { Box::from_raw(Box::into_raw(words) as *mut [AtomicU32]) }
}

const _: () = assert!(
    core::mem::align_of::<AtomicU32>() == core::mem::align_of::<u32>()
        && core::mem::size_of::<AtomicU32>() == core::mem::size_of::<u32>()
);

/// The first `n` words of `b` (fewer if `b` is shorter), each loaded once.
fn load_words(b: &[AtomicU32], n: usize) -> Vec<u32> {
    b.iter()
        .take(n)
        .map(|w| w.load(Ordering::Relaxed))
        .collect()
}

impl UmdBuffers {
    /// Zeroed buffers of the sizes (command bytes, allocation-list entries,
    /// patch-location-list entries).
    pub(crate) fn new((command_bytes, allocations, patches): (u32, u32, u32)) -> Self {
        UmdBuffers {
            command: zeroed_words(command_bytes.div_ceil(4) as usize),
            command_bytes,
            allocations: zeroed_words(allocations as usize * ALLOCATION_WORDS),
            patches: zeroed_words(patches as usize * PATCH_WORDS),
        }
    }

    /// (command bytes, allocation-list entries, patch-location entries).
    pub(crate) fn sizes(&self) -> (u32, u32, u32) {
        (
            self.command_bytes,
            (self.allocations.len() / ALLOCATION_WORDS) as u32,
            (self.patches.len() / PATCH_WORDS) as u32,
        )
    }

    /// The first `len` bytes of the command buffer, or all of it when
    /// `len` is larger (the kernel then refuses the call).
    pub(crate) fn command(&self, len: u32) -> Vec<u8> {
        let len = len.min(self.command_bytes) as usize;
        let mut bytes: Vec<u8> = load_words(&self.command, len.div_ceil(4))
            .into_iter()
            .flat_map(u32::to_ne_bytes)
            .collect();
        bytes.truncate(len);
        bytes
    }

    /// The words of the first `n` allocation-list entries (all of them
    /// when `n` is larger).
    pub(crate) fn allocations(&self, n: u32) -> Vec<u32> {
        load_words(
            &self.allocations,
            (n as usize).saturating_mul(ALLOCATION_WORDS),
        )
    }

    /// The words of the first `n` patch locations (all when `n` is larger).
    pub(crate) fn patches(&self, n: u32) -> Vec<u32> {
        load_words(&self.patches, (n as usize).saturating_mul(PATCH_WORDS))
    }

    /// The three pointers the host writes through.
    pub(crate) fn pointers(&self) -> (*mut u8, *mut u32, *mut u32) {
        (
            self.command.as_ptr().cast::<u8>().cast_mut(),
            self.allocations.as_ptr().cast::<u32>().cast_mut(),
            self.patches.as_ptr().cast::<u32>().cast_mut(),
        )
    }
}

impl DriverObj {
    pub(crate) fn new(driver: Driver) -> Self {
        DriverObj {
            cancel: driver.cancel_handle(),
            state: Mutex::new(DriverState {
                driver,
                capture: None,
                render_contexts: BTreeSet::new(),
                umd_buffers: BTreeMap::new(),
                boundary_error: None,
            }),
        }
    }

    /// Locks the driver. A mutex poisoned by a panic caught at the boundary
    /// is recovered: the device is memory-safe whatever it was doing, and
    /// its state is documented as unspecified after an internal error.
    pub(crate) fn lock(&self) -> MutexGuard<'_, DriverState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A host lock in progress: the bytes the host reads and writes.
pub(crate) struct Shadow {
    pub bytes: Box<[u8]>,
    pub write_back: bool,
    /// The face and mip level locked (0, 0 for buffers).
    pub face: u32,
    pub level: u32,
}

/// A surface: which driver, which device handle.
pub(crate) struct SurfaceObj {
    pub driver: Arc<DriverObj>,
    pub handle: u32,
    /// The resolved description at creation (dwSize = its size, dwHandle
    /// = handle). A buffer's size changes when a SWAP* call renames it:
    /// the device's description is the current one.
    pub desc: crate::types::SOFTHAL_SURFACE_DESC,
    /// The lock shadow (`Some` between lock and unlock).
    pub shadow: Mutex<Option<Shadow>>,
}

impl SurfaceObj {
    pub(crate) fn shadow(&self) -> MutexGuard<'_, Option<Shadow>> {
        self.shadow
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A context: which driver, which device handle.
#[derive(Clone)]
pub(crate) struct ContextObj {
    pub driver: Arc<DriverObj>,
    pub handle: u32,
}

#[derive(Default)]
struct Registry {
    drivers: HashMap<usize, Arc<DriverObj>>,
    surfaces: HashMap<usize, Arc<SurfaceObj>>,
    contexts: HashMap<usize, ContextObj>,
    next_context: usize,
}

static REGISTRY: LazyLock<Mutex<Registry>> = LazyLock::new(|| Mutex::new(Registry::default()));

fn registry() -> MutexGuard<'static, Registry> {
    // The registry's maps are consistent after every statement; recover.
    REGISTRY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Registers a driver; returns the pointer value the host gets.
pub(crate) fn add_driver(d: Arc<DriverObj>) -> usize {
    let key = Arc::as_ptr(&d) as usize;
    registry().drivers.insert(key, d);
    key
}

pub(crate) fn driver(key: usize) -> Option<Arc<DriverObj>> {
    registry().drivers.get(&key).cloned()
}

/// Unregisters a driver and every surface and context of it.
pub(crate) fn remove_driver(key: usize) -> Option<Arc<DriverObj>> {
    let mut r = registry();
    let d = r.drivers.remove(&key)?;
    r.surfaces.retain(|_, s| !Arc::ptr_eq(&s.driver, &d));
    r.contexts.retain(|_, c| !Arc::ptr_eq(&c.driver, &d));
    Some(d)
}

pub(crate) fn add_surface(s: Arc<SurfaceObj>) -> usize {
    let key = Arc::as_ptr(&s) as usize;
    registry().surfaces.insert(key, s);
    key
}

pub(crate) fn surface(key: usize) -> Option<Arc<SurfaceObj>> {
    registry().surfaces.get(&key).cloned()
}

/// The surfaces of driver `d`, in handle order.
pub(crate) fn surfaces_of(d: &Arc<DriverObj>) -> Vec<Arc<SurfaceObj>> {
    let mut v: Vec<Arc<SurfaceObj>> = registry()
        .surfaces
        .values()
        .filter(|s| Arc::ptr_eq(&s.driver, d))
        .cloned()
        .collect();
    v.sort_by_key(|s| s.handle);
    v
}

/// True if driver `d` has a context (`D3dContextCreate`).
pub(crate) fn has_contexts(d: &Arc<DriverObj>) -> bool {
    registry()
        .contexts
        .values()
        .any(|c| Arc::ptr_eq(&c.driver, d))
}

pub(crate) fn remove_surface(key: usize) -> Option<Arc<SurfaceObj>> {
    registry().surfaces.remove(&key)
}

/// Registers a context; returns its `dwhContext` (never 0, never reused
/// while the process lives on 64-bit targets).
pub(crate) fn add_context(c: ContextObj) -> usize {
    let mut r = registry();
    r.next_context = r.next_context.wrapping_add(1).max(1);
    let mut id = r.next_context;
    while r.contexts.contains_key(&id) {
        id = id.wrapping_add(1).max(1);
    }
    r.next_context = id;
    r.contexts.insert(id, c);
    id
}

pub(crate) fn context(id: usize) -> Option<ContextObj> {
    registry().contexts.get(&id).cloned()
}

pub(crate) fn remove_context(id: usize) -> Option<ContextObj> {
    registry().contexts.remove(&id)
}
