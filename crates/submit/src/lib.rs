//! # softhal-submit: the render-callback path
//!
//! On WDDM a user-mode driver never touches the GPU: it fills a command
//! buffer, an allocation list and a patch-location list and hands them to
//! the kernel side through `pfnRenderCb` (`D3DDDICB_RENDER`), which
//! validates them before the hardware runs them. softhal builds that path
//! for real: the device (the UMD) lowers DP2 work into GPU packets
//! ([`packet`], documented in `docs/gpu-commands.md`) and calls
//! [`Kmd::render`]; the kernel side copies, validates, patches and queues
//! them; the GPU executes them into video memory with the pipeline. This
//! is softhal's guest/host boundary (`docs/submission.md`).
//!
//! ## What comes in
//! [`RenderData`] (CommandLength, CommandOffset, NumAllocations,
//! NumPatchLocations, the buffers, flags, hContext); allocation and
//! context calls; CPU waits.
//!
//! ## What goes out
//! An HRESULT (`S_OK` or exactly one of the codes of [`SubmitError`]);
//! the new buffers and their sizes (always: read them); fences;
//! pixels and texels in [`VideoMemory`].
//!
//! ## Guarantees
//! * Copy, then validate the copy, then patch, then queue: a rejected
//!   submission changes nothing but [`Kmd::rejected`].
//! * No panic, no unchecked indexing or arithmetic (lints below), no
//!   `unsafe`.
//! * Deterministic execution order (see `schedule`).
//!
//! Modules: [`packet`] (format, verifier table, typed packets, writer),
//! `verify` (the walk and one verifier per packet), [`ddi`] (the DDK
//! structures of the callback), [`kmd`] (allocations, contexts, the
//! callback), `schedule` (queues, fences, dispatch), `worker` (the GPU
//! thread), `gpu` (the command processor executing verified packets),
//! [`regs`] (the register file: Direct3D state by DDI number), `derive`
//! (the pipeline state derived from it per dirty group), `shader` (the
//! shader objects, bindings and constants a GPU context holds),
//! [`texture`] (texture allocations and copies), [`blit`] (BLT,
//! COLOR_FILL, GENERATE_MIPS), [`memory`], [`limits`],
//! [`error`].

#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects
    )
)]

pub mod blit;
pub mod ddi;
mod derive;
pub mod error;
mod gpu;
pub mod kmd;
pub mod limits;
pub mod memory;
pub mod packet;
pub mod regs;
mod schedule;
mod shader;
pub mod texture;
mod verify;
mod worker;

pub use ddi::{render_flags, AllocationListEntry, PatchLocation, RenderData};
pub use error::SubmitError;
pub use kmd::{AllocKind, AllocationDesc, ContextCounters, GpuStats, Kmd, KmdCounts, WatchedDraw};
pub use memory::{HostMemory, Storage, VideoMemory};
pub use packet::{Blt, ColorFill, Engine, TextureCopy, Writer};
