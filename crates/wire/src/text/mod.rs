//! The DP2 assembly language: a line-oriented text form of DP2 streams.
//!
//! In: bytes ([`disassemble`]) or source text ([`assemble`]).
//! Out: one line per command, with DDK names for every opcode, state and
//! enum value; or the bytes. Guarantee: `assemble(disassemble(b)) == b` for
//! every canonical stream (tested per opcode and on random streams), and
//! neither direction panics on any input. The language is documented in
//! `docs/dp2-assembly.md`; in short:
//!
//! ```text
//! .fvf D3DFVF_XYZRHW|D3DFVF_DIFFUSE        # vertex format (stride of _IMM data)
//! RENDERSTATE { RenderState=D3DRS_ZENABLE dwState=D3DZB_TRUE }
//! VIEWPORTINFO { dwX=0 dwY=0 dwWidth=640 dwHeight=480 }
//! TRIANGLELIST count=2 wVStart=0
//! CLEAR { dwFlags=D3DCLEAR_TARGET dwFillColor=0xff000000 } { left=0 top=0 right=640 bottom=480 }
//! ```
//!
//! Mnemonics are the `D3DDP2OP_` names with or without the prefix; field
//! names are the DDK's; omitted fields are 0, except size and count fields
//! that the assembler can derive from the data given.
//!
//! The module is in five parts: [`lexer`] (a line → items), `desc` (the
//! struct layouts both directions walk), `disasm` (printing), `asm`
//! (parsing), and `hex` (the `hex:` blobs, shared with text captures).

mod asm;
mod desc;
mod disasm;
mod hex;
pub mod lexer;

pub use asm::{assemble, assemble_with, AsmError};
pub use desc::{desc, fixed_record, StructDesc};
pub use disasm::{disassemble, format_command, write_struct, Disassembly};
pub use hex::{format_hex, parse_hex_word};
