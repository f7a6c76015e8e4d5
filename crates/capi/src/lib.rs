//! # libsofthal: softhal's C ABI
//!
//! For emulators, VMs and other C hosts: the DDI callbacks with the DDK's
//! signatures (`D3dContextCreate`, `D3dContextDestroy`,
//! `D3dDrawPrimitives2`, `D3dClear2`, `D3dValidateTextureStageState`), the
//! DDI structures with the DDK's layouts, and softhal's own functions for
//! what DirectDraw would provide (drivers, surfaces, lock, flip/present,
//! the `D3dParseUnknownCommand` hook, caps, capture start/stop), and the
//! render callback for hosts that write GPU packets themselves
//! (`softhal_render_cb`, render contexts, allocation handles). Built as
//! `libsofthal.so`,
//! `libsofthal.a` and an rlib; declared by `include/softhal.h`, which
//! [`header::generate`] writes from the same tables the Rust types come
//! from. `docs/c-api.md` is the host's manual.
//!
//! ## The boundary rules
//! * No panic crosses into C: every entry point runs inside
//!   `catch_unwind` and reports a caught panic as the DDI's error.
//! * Null and misaligned pointers are rejected before use; host memory is
//!   read or written only within the (pointer, length) pairs the host gave,
//!   after overflow checks.
//! * Object pointers and `dwhContext` values are never dereferenced: they
//!   are looked up in a registry (the private `objects` module), so stale or forged values
//!   are errors, not crashes.
//! * Every `unsafe` block carries a `// SAFETY:` comment.
//!
//! This is the only crate besides `pipeline::simd` that may use `unsafe`.

#![allow(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]
#![allow(non_camel_case_types, non_snake_case)]

pub mod api;
pub mod ddi;
mod guard;
pub mod header;
pub(crate) mod objects;
pub mod types;

pub use api::*;
pub use ddi::*;
pub use types::*;
