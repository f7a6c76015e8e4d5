//! # softhal-shader: Direct3D 8/9 shader tokens, validated, as a typed IR
//!
//! A Direct3D runtime hands a HAL driver a shader as an array of DWORD
//! tokens (CREATEVERTEXSHADER's function part, CREATEVERTEXSHADERFUNC,
//! CREATEPIXELSHADER). This crate reads those tokens for vs_1_1, vs_2_0,
//! vs_2_x, vs_3_0, ps_1_1, ps_1_2, ps_1_3, ps_1_4, ps_2_0, ps_2_x and
//! ps_3_0, laid out like naga: a front end ([`front`]) that turns tokens
//! into the IR ([`ir`]), a validator ([`valid`]) that checks every rule of
//! the version, a text form ([`text`]) in Direct3D shader assembly, and an
//! executor ([`exec`]) that runs a validated shader over a 2×2 quad or four
//! vertices. The DirectX 8 vertex shader declaration (the `D3DVSD_*`
//! tokens before a DX8 shader's function) has its own reader and text form
//! ([`decl8`]).
//! What a pixel shader computes when it is a fixed-function shape, for a
//! renderer's fast paths: [`pixel_kind`].
//! For fuzzing the executors: a grammar of random valid programs
//! ([`generate`]) and the comparison of two executors' runs ([`oracle`]).
//!
//! - In: untrusted DWORDs ([`parse`], [`decl8::parse`]), or Direct3D
//!   shader assembly ([`text::assemble`], [`decl8::assemble`]).
//! - Out: an [`ir::Shader`]; a [`valid::Validated`] shader whose register
//!   indices are proven in range for its version; tokens again
//!   ([`ir::Shader::to_tokens`]); assembly text ([`text::disassemble`]);
//!   a shader's outputs ([`exec::Program::run`]).
//! - Guarantees: parsing and validation are total and bounded — they never
//!   panic, never read outside the slice, allocate at most in proportion to
//!   the stream's own length, and report the DWORD offset of the offending
//!   token with a stable [`ShaderError::kind`] name. For every stream that
//!   validates, `assemble(disassemble(tokens)) == tokens` and
//!   `parse(tokens).to_tokens() == tokens`.
//!
//! The facts this crate relies on (token layouts, register limits, slot
//! counts, which version allows what) are written down, with their
//! sources, in `docs/shaders.md`.

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

pub mod corpus;
pub mod decl8;
pub mod error;
pub mod exec;
pub mod front;
pub mod generate;
pub mod ir;
pub mod oracle;
pub mod pixel_kind;
pub mod text;
pub mod valid;

pub use error::{ErrorKind, ShaderError};
pub use front::parse;
pub use ir::{Profile, Shader};
pub use valid::{validate, Validated};

/// The DWORD tokens of a shader as the DDI carries it (little-endian bytes),
/// or `None` when the length is not a whole number of DWORDs.
pub fn tokens_from_le_bytes(bytes: &[u8]) -> Option<Vec<u32>> {
    let words = bytes.chunks_exact(4);
    if !words.remainder().is_empty() {
        return None;
    }
    words
        .map(|w| <[u8; 4]>::try_from(w).ok().map(u32::from_le_bytes))
        .collect()
}

/// Parses and validates `tokens` in one step: what a driver does at
/// CREATE time.
pub fn parse_and_validate(tokens: &[u32]) -> Result<Validated, ShaderError> {
    validate(parse(tokens)?)
}
