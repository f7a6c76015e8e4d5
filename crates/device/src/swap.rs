//! The submission model: buffer swapping, renaming and lock stalls.
//!
//! DrawPrimitives2 executes synchronously (a later submission-path issue
//! replaces this), but the DDI's buffer protocol is modelled with effects
//! tests can observe through [`crate::Driver::swap_stats`]:
//!
//! * Every buffer a successful call read (the DP2 vertex surface, bound
//!   streams, the index buffer) becomes **busy**: conceptually the GPU
//!   still reads it. [`crate::Driver::complete_work`] clears every busy
//!   flag.
//! * Locking a busy buffer: an *implicit* (driver-managed) vertex buffer,
//!   or any buffer locked with `discard`, is **renamed** (fresh zeroed
//!   storage of the same size; `lock_renames`); a lock with `no_overwrite`
//!   proceeds; any other lock **stalls** (waits for the work; `stalls`).
//! * `D3DHALDP2_SWAPVERTEXBUFFER` with an implicit vertex surface: after
//!   the call the surface is renamed (new storage, at least
//!   `dwReqVertexBufSize` bytes with REQVERTEXBUFSIZE; `vertex_renames`).
//!   Explicit vertex buffers are never renamed by a swap.
//! * `D3DHALDP2_SWAPCOMMANDBUFFER`: the command surface is renamed (at
//!   least `dwReqCommandBufSize` bytes with REQCOMMANDBUFSIZE;
//!   `command_renames`), except when query responses were written into it.
//!   The handle in `lpDDCommands` stays valid (it names the new storage).
//!   VIDMEM* flags are never set.
