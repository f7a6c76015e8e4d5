//! Stopping work that runs too long: a deadline and a cancellation flag.
//!
//! *Input*: a [`CancelHandle`] (shared; a host may trigger it from any
//! thread) and an optional deadline, given to the renderer with
//! [`crate::Renderer::set_watchdog`]. *Output*: draws and clears that stop
//! early with [`crate::PipelineError::Stopped`]. *Guarantees*: the check is
//! made at primitive-batch and tile boundaries (never per pixel): before a
//! draw or a clear starts, before each wave of primitive set-up, before
//! each chunk is binned, before each tile is rasterized and every
//! [`crate::limits::WATCHDOG_CHECK_ENTRIES`] bin entries inside a tile. A stopped draw has
//! written an unspecified subset of its pixels (whole primitives within a
//! tile up to the check that fired); its surfaces stay valid, of the same
//! size and format, and the renderer can draw again at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// A cancellation flag shared between the GPU and the host
/// (`Clone + Send + Sync`): [`CancelHandle::cancel`] from any thread makes
/// the work that checks it stop at its next boundary.
#[derive(Debug, Clone, Default)]
pub struct CancelHandle {
    flag: Arc<AtomicBool>,
}

impl CancelHandle {
    /// A flag not set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the work in flight to stop.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }

    /// Whether a cancellation is pending.
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }

    /// Clears a pending cancellation; returns whether one was pending.
    pub fn take(&self) -> bool {
        self.flag.swap(false, Ordering::SeqCst)
    }
}

/// What the renderer checks: a cancellation flag and an optional deadline.
#[derive(Debug, Clone, Default)]
pub struct Watchdog {
    /// The flag a host may set.
    pub cancel: CancelHandle,
    /// The instant after which work stops (`None`: no deadline).
    pub deadline: Option<Instant>,
}

impl Watchdog {
    /// Whether the work must stop now.
    pub fn fired(&self) -> bool {
        self.cancel.is_cancelled() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Whether `wd` has fired (`None`, no watchdog: never); what the
/// pipeline's loops check.
#[inline]
pub(crate) fn fired(wd: Option<&Watchdog>) -> bool {
    wd.is_some_and(Watchdog::fired)
}
