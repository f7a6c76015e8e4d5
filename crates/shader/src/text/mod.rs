//! Direct3D shader assembly: [`disassemble`] tokens' IR to text and
//! [`assemble`] text to the IR, in the syntax of Microsoft's Direct3D 9
//! assembly reference.
//!
//! - In: a [`Shader`] (usually validated), or assembly text (untrusted).
//! - Out: text, or a [`Shader`] (validate it before use), or a
//!   [`ShaderError`] of kind `syntax` naming the line.
//! - Guarantees: `assemble(&disassemble(s)) == s` for every shader the front
//!   end produces from a comment-free stream, hence
//!   `assemble(disassemble(parse(t))).to_tokens() == t`.

mod asm;
mod disasm;

pub use asm::assemble;
pub(crate) use asm::strip_comment;
pub use disasm::disassemble;

#[cfg(doc)]
use crate::{error::ShaderError, ir::Shader};
