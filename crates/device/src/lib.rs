//! # softhal-device: the DDI, with exact `D3dDrawPrimitives2` semantics
//!
//! The layer a Direct3D runtime (or a host standing in for one) talks to:
//! surfaces, contexts, and the HAL callbacks, with the arguments shaped like
//! the DDI's structures ([`DrawPrimitives2Data`] mirrors
//! `D3DHAL_DRAWPRIMITIVES2DATA` field for field). It decodes command
//! streams with `softhal-wire`, keeps the DDI state, and renders as a
//! WDDM user-mode driver would: its draws, clears, BUFFERBLTs and presents
//! are lowered into GPU packets (state as register writes, translated from
//! DP2 here) and submitted through `softhal-submit`'s render callback,
//! whose kernel side validates them before the GPU runs them with
//! `softhal-pipeline` (`docs/submission.md`).
//!
//! ## The `D3dDrawPrimitives2` contract
//! [`Driver::draw_primitives2`] always returns `DDHAL_DRIVER_HANDLED`; the
//! result is in `ddrval`:
//! * an invalid `dwhContext` → `D3DHAL_CONTEXT_BAD`; a flip pending on the
//!   context's render target → `DDERR_WASSTILLDRAWING` with nothing
//!   executed; a bad command surface, or `dwCommandOffset +
//!   dwCommandLength` beyond it → `DDERR_INVALIDOBJECT` /
//!   `DDERR_INVALIDPARAMS`. For these call-level failures `dwErrorOffset`
//!   is `dwCommandOffset` (no command was handled).
//! * Commands are decoded from `dwCommandOffset` to `dwCommandOffset +
//!   dwCommandLength` and executed in order. DX6 primitives read
//!   `dwVertexLength` vertices of `dwVertexType`'s stride at
//!   `dwVertexOffset` bytes of the user memory (USERMEMVERTICES) or vertex
//!   surface — only those exist; `_IMM` opcodes read their vertices from the
//!   command stream. Every index, start vertex, index range and stream
//!   range is checked against the data that exists before use.
//! * An unknown opcode goes to the host's `D3dParseUnknownCommand` hook
//!   ([`Driver::set_parse_unknown_command`]), which returns where the next
//!   command starts. If there is no hook, the hook fails, or any command
//!   fails to decode or validate: execution **stops**, `ddrval =
//!   D3DERR_COMMAND_UNPARSED`, and `dwErrorOffset` = the failing command's
//!   offset. ([`Driver::last_error`] says why.)
//! * **Error offsets** are measured from the start of the command surface
//!   data, i.e. they **include** `dwCommandOffset` (the reference
//!   rasterizer's convention; the sources disagree — reference
//!   disagreement 11 — and coincide when the offset is 0).
//! * **Prefix semantics**: every command before the failing one has taken
//!   full effect; the failing command has taken none (each handler
//!   validates all of its records before changing anything).
//! * With `D3DHALDP2_EXECUTEBUFFER`, every render state processed is
//!   written to `lpdwRStates[state]`, as honoured: a value the device cannot
//!   honour is replaced by the one it uses, and the array shows the
//!   replacement. Without the flag the array is untouched.
//! * On success `ddrval = D3D_OK` and `dwErrorOffset` = the bytes of DX9
//!   query responses written over the command data (0 if none).
//!
//! ## Modules
//! [`driver`] (entry points; its child `render_cb` holds
//! [`Driver::render`] and the render contexts of hosts that act as the
//! UMD themselves), [`dp2`] (call structures), [`exec`] (one
//! command), [`state`] (state and its translation), [`stateblock`],
//! [`blt`], [`patch`], [`shader`], [`swap`] (buffer renaming on fences),
//! `umd` (the user-mode driver: DP2 work → packets → render callback),
//! [`caps`], [`resource`] (surfaces), [`handle`] (generational handles),
//! [`limits`] (every cap), [`error`]. Choices where the DDK is silent are
//! collected in `docs/device.md`.

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

pub mod blt;
pub mod caps;
pub mod context;
pub mod dp2;
pub mod driver;
pub mod error;
pub mod exec;
pub mod handle;
pub mod limits;
pub mod patch;
pub mod pixel_watch;
pub mod resource;
pub mod shader;
pub mod state;
pub mod stateblock;
pub mod swap;
pub(crate) mod umd;

pub use caps::{Caps, FormatCaps};

/// The little-endian DWORD at the front of `b` (0 if shorter).
pub(crate) fn le_u32(b: &[u8]) -> u32 {
    b.get(..4)
        .and_then(|s| <[u8; 4]>::try_from(s).ok())
        .map_or(0, u32::from_le_bytes)
}
pub use context::{Context, ContextStats};
pub use dp2::*;
pub use driver::{Dp2Failure, Driver, LockFlags, ObjectCounts, ParseUnknownCommand, SwapStats};
pub use error::DeviceError;
pub use pixel_watch::{CommandHistory, DrawHistory};
pub use resource::{D3dFormat, Resource, SurfaceDesc, SurfaceKind};
pub use softhal_pipeline::Format;
pub use umd::registers_of;
