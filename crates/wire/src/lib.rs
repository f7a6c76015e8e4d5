//! # softhal-wire: DP2 command streams, bytes ⇄ typed commands
//!
//! A Direct3D runtime (DX6–DX9) talks to a HAL driver by filling
//! DrawPrimitives2 (DP2) command buffers: a 4-byte `D3DHAL_DP2COMMAND`
//! header followed by payload structs, command after command, and handing
//! them to `D3dDrawPrimitives2`. This crate reads and writes those streams
//! byte for byte as `d3dhal.h` lays them out. It knows nothing of
//! rendering.
//!
//! - In: untrusted bytes ([`Decoder`]), or typed commands ([`Encoder`]), or
//!   the text form (`text`, once it lands).
//! - Out: [`Command`]s borrowing their payload from the input (zero-copy
//!   views of unaligned little-endian structs, [`structs`]), or bytes, or text.
//! - Guarantees: decoding is total and bounded — it never panics, never
//!   reads outside the slice, allocates nothing, and reports the byte offset
//!   of the first command that cannot be parsed ([`DecodeError`]), which the
//!   device returns as `dwErrorOffset`. Unknown opcodes are yielded, not
//!   rejected, so that the device can hand them to `D3dParseUnknownCommand`.
//!   `decode(encode(x)) == x` for every command; `encode(decode(b)) == b`
//!   for canonical streams.
//!
//! Where the public sources disagree about the wire format, this crate
//! makes the choices `docs/dp2-wire.md` §6 lists: CLEAR with N = 0
//! carries one unused RECT; LINELIST_IMM carries 2N vertices;
//! UPDATEPALETTE is one record whatever N says; the shader-constant
//! variants carry 16-byte vectors (float, int) or 4-byte BOOLs; a
//! declaration's element count is consumed exactly.

#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::unreachable,
        clippy::arithmetic_side_effects
    )
)]

#[macro_use]
pub mod ddi_enum;
pub mod command;
pub mod decode;
pub mod encode;
pub mod error;
pub mod fvf;
pub mod names;
pub mod opcode;
pub mod structs;
pub mod text;

pub use command::{Command, Records};
pub use decode::{decode_all, decode_at, DecodeOptions, Decoder, Dp2Command};
pub use encode::{encode_all, Encoder};
pub use error::{DecodeError, DecodeErrorKind, EncodeError};
pub use opcode::Opcode;
