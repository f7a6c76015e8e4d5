//! The text form of a DirectX 8 declaration: one `D3DVSD_*` macro a line,
//! as a DirectX 8 application writes its declaration array.
//!
//! - In: a [`Dx8Declaration`], or text (untrusted).
//! - Out: text, or a [`Dx8Declaration`], or a [`ShaderError`] of kind
//!   `syntax` naming the 1-based line.
//! - Guarantees: `assemble(&disassemble(d)) == d` for every declaration
//!   [`super::parse`] returns. Registers print by their `D3DVSDE_` name,
//!   types by their `D3DVSDT_` name; the DWORDs of `D3DVSD_CONST` follow on
//!   indented lines, four a line (one constant register), each as a float
//!   when that reads back to the same bits and as `0x` hex otherwise; an
//!   extension token's DWORDs follow on one line in hex. Comments start
//!   with `;` or `//`.
//!
//! ```text
//! D3DVSD_STREAM(0)
//! D3DVSD_REG(D3DVSDE_POSITION, D3DVSDT_FLOAT3)
//! D3DVSD_SKIP(1)
//! D3DVSD_CONST(4, 1)
//!     0.0, 1.0, 0.0, 1.0
//! D3DVSD_END()
//! ```
//!
//! The writer is `disasm`, the parser `asm`.

mod asm;
mod disasm;

pub use asm::assemble;
pub use disasm::disassemble;

#[cfg(doc)]
use super::Dx8Declaration;
#[cfg(doc)]
use crate::error::ShaderError;
