//! The render callback for hosts that act as the user-mode driver.
//!
//! In: GPU packets a host built itself (`docs/gpu-commands.md`) with its
//! allocation and patch-location lists, as a [`RenderData`] for one of the
//! GPU contexts the host created with [`Driver::render_context_create`];
//! the allocation handles of the driver's surfaces
//! ([`Driver::allocation_of`]). Out: the kernel side's HRESULT
//! ([`softhal_submit::Kmd::render`]: `S_OK` or exactly one
//! `D3DDDIERR_*` / `E_*` per cause), the granted buffer sizes written back
//! into the `RenderData` after every call, and pixels in the driver's
//! surfaces.
//!
//! Guarantees:
//! * **Ordering**: the packets the DP2 path has pending are submitted
//!   before the host's, and every accepted submission is executed before
//!   the call returns, as at the end of every DDI call
//!   (`docs/submission.md`, "When work runs"). `surface()`, `image()` and
//!   locks therefore see the host's pixels.
//! * **Isolation**: a host submits only on GPU contexts it created, or on
//!   the device's **default context** (`h_context: None`, as WDDM defines
//!   it), a 3-D context every driver makes for its host
//!   ([`Driver::default_render_context`]; only `None` names it). The device's own GPU contexts
//!   (one per device context, the copy-engine and present contexts) are
//!   refused (`E_INVALIDARG`, like an unknown `hContext`), so the register
//!   state the DP2 path tracks for them stays true.
//! * **Buffers**: the kernel side hands out the next buffers in the
//!   `RenderData` itself (owned `Vec`s, emptied, with room for the sizes it
//!   reports, resize requests honoured when the call is accepted); after a
//!   refused call the sizes in force come back and the contents stay.
//! * **No double fetch**: the kernel validates its own copy of the buffers;
//!   the `RenderData` is owned by the caller (the C ABI copies host memory
//!   into it once).
//! * A rejected submission changes nothing (the kernel's guarantee); it is
//!   counted in [`softhal_submit::Kmd::rejected`].
//!
//! GPU contexts created here share the kernel's
//! `softhal_submit::limits::MAX_CONTEXTS` with the device's own.

use crate::driver::Driver;
use crate::error::{DeviceError, Result};
use crate::umd::Gpu;
use softhal_submit::{Engine, RenderData, SubmitError};

/// A context id the kernel never hands out (its handles start at 1): a
/// submission naming a context the host does not own is sent to the kernel
/// with this one, so that the kernel refuses it as an unknown `hContext`
/// and still returns the buffer sizes (`docs/submission.md`: "always read
/// the sizes returned").
const NO_CONTEXT: u32 = 0;

impl Driver {
    /// Creates a GPU context on `engine` for a host that submits its own
    /// packets with [`Driver::render`]. Errors: the kernel's context limit
    /// (`E_OUTOFMEMORY`).
    pub fn render_context_create(&mut self, engine: Engine) -> Result<u32> {
        Ok(self.gpu.kmd.create_context(engine)?)
    }

    /// Destroys a GPU context made by [`Driver::render_context_create`]
    /// after its work has run. Anything else (the default context, the
    /// device's own contexts, unknown or destroyed ids) is `E_INVALIDARG`.
    pub fn render_context_destroy(&mut self, ctx: u32) -> Result<()> {
        if !self.is_render_context(ctx) {
            return Err(DeviceError::Submit(SubmitError::InvalidArg(
                "not a render context of this driver",
            )));
        }
        let mut mem = Gpu::mem(&mut self.surfaces, &self.gpu.surface_of);
        Ok(self.gpu.kmd.destroy_context(ctx, &mut mem)?)
    }

    /// The device's default context: the GPU context a render callback
    /// with `h_context: None` submits on (3-D engine; it lives as long as
    /// the driver).
    pub fn default_render_context(&self) -> u32 {
        self.gpu.default_render_ctx
    }

    /// True once a submission on the default context was accepted (its
    /// register state is then not that of a fresh driver).
    pub fn default_render_context_used(&self) -> bool {
        self.gpu
            .kmd
            .fences(self.gpu.default_render_ctx)
            .is_some_and(|(submitted, _, _)| submitted > 0)
    }

    /// True for a live GPU context made by [`Driver::render_context_create`]
    /// (not the default context, which only `h_context: None` names).
    pub fn is_render_context(&self, ctx: u32) -> bool {
        ctx != NO_CONTEXT
            && ctx != self.gpu.default_render_ctx
            && self.gpu.kmd.fences(ctx).is_some()
            && ctx != self.gpu.copy_ctx
            && ctx != self.gpu.present_ctx
            && !self.gpu.ctx_of.values().any(|c| *c == ctx)
    }

    /// The surface whose allocation is `allocation` (the reverse of
    /// [`Driver::allocation_of`]).
    pub fn surface_of_allocation(&self, allocation: u32) -> Option<u32> {
        self.gpu.surface_of.get(&allocation).copied()
    }

    /// `pfnRenderCb` for a host acting as the user-mode driver: validates
    /// and queues `rd` on its render context `rd.h_context` (`None`: the
    /// default context; see the module docs), then runs it. Returns S_OK (0) or the HRESULT of the first
    /// problem; after every call `rd` holds the granted sizes and
    /// `queued_buffer_count` (after an accepted one also `fence`, and its
    /// buffers are empty with room for the granted sizes).
    pub fn render(&mut self, rd: &mut RenderData) -> u32 {
        // The DP2 path's packets go first. (Every DDI call ends with them
        // submitted, so this is normally a no-op; a failure here concerns
        // the device's own packets and was reported by the call that made
        // them.)
        let _ = self.gpu.flush(&mut self.surfaces);
        self.sync();
        let asked = rd.h_context;
        rd.h_context = Some(match asked {
            None => self.gpu.default_render_ctx,
            Some(c) if self.is_render_context(c) => c,
            Some(_) => NO_CONTEXT,
        });
        let listed: Vec<u32> = rd
            .allocation_list
            .iter()
            .take(rd.num_allocations as usize)
            .map(|e| e.h_allocation)
            .collect();
        let hr = {
            let mut mem = Gpu::mem(&mut self.surfaces, &self.gpu.surface_of);
            let mut hr = self.gpu.kmd.render(rd, &mut mem);
            if hr == 0 {
                self.gpu.kmd.execute_all(&mut mem);
                // The watchdog stopped it (docs/submission.md, "Timeouts
                // and cancellation"): the host learns it here, as the
                // context's later submissions will.
                if asked.is_some_and(|c| self.gpu.kmd.context_hung(c)) {
                    hr = softhal_wire::names::codes::D3DDDIERR_DEVICEREMOVED;
                }
            }
            hr
        };
        rd.h_context = asked;
        if hr == 0 {
            // As the DP2 path does: a buffer is busy while a fence that used
            // it has not retired (`Driver::lock` then renames or stalls).
            for a in listed {
                let busy = self.gpu.kmd.allocation_busy(a);
                if let Some(s) = self.gpu.surface_of.get(&a) {
                    if let Ok(r) = self.surfaces.get_mut(*s) {
                        r.busy = r.desc.kind.is_buffer() && busy;
                    }
                }
            }
        }
        hr
    }
}
