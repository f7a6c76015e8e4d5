//! The buffer protocol on real fences: swapping, renaming and lock stalls.
//!
//! Every DrawPrimitives2 call's work is submitted through the render
//! callback (`softhal_submit::Kmd::render`, see `docs/submission.md`) and
//! queued; at the end of the call the GPU executes it, and its fences
//! retire only when the host observes completion. The DDI's buffer
//! protocol follows those fences, with counters in
//! [`crate::Driver::swap_stats`]:
//!
//! * A buffer (vertex, index, command) is **busy** while a fence of a
//!   submission that referenced it has not retired (`Resource::busy`
//!   mirrors it). [`crate::Driver::complete_work`] retires everything.
//! * Locking a busy buffer: an *implicit* (driver-managed) vertex buffer,
//!   or any buffer locked with `discard`, is **renamed** (fresh zeroed
//!   storage of the same size; the GPU has finished with the old contents;
//!   `lock_renames`); a lock with `no_overwrite` proceeds; any other lock
//!   **stalls**: it retires the fences that use the buffer (`stalls`).
//!   Locking a busy render target or depth buffer waits the same way
//!   without counting.
//! * `D3DHALDP2_SWAPVERTEXBUFFER` with an implicit vertex surface: after
//!   the call the surface is renamed (new storage, at least
//!   `dwReqVertexBufSize` bytes with REQVERTEXBUFSIZE; `vertex_renames`).
//!   Explicit vertex buffers are never renamed by a swap.
//! * `D3DHALDP2_SWAPCOMMANDBUFFER`: the command surface is renamed (at
//!   least `dwReqCommandBufSize` bytes with REQCOMMANDBUFSIZE;
//!   `command_renames`), except when query responses were written into it.
//!   The handle in `lpDDCommands` stays valid (it names the new storage).
//!   Renames tell the kernel side the allocation has new storage.
//!   VIDMEM* flags are never set.
//! * A flip queues a PRESENT fenced after all 3-D work; DrawPrimitives2 on
//!   a context rendering to that target returns `DDERR_WASSTILLDRAWING`
//!   until the PRESENT's fence retires ([`crate::Driver::complete_flips`]).
