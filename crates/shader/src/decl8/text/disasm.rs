//! Writing a DirectX 8 declaration as `D3DVSD_*` text (the format the
//! parent module describes).
//!
//! In: a decoded [`Dx8Declaration`]. Out: its text, one token a line,
//! `D3DVSD_END()` last. Never fails.

use crate::decl8::{register_name, DeclToken, Dx8Declaration};
use std::fmt::Write as _;

fn register_text(r: u8) -> String {
    register_name(r).map_or_else(|| r.to_string(), str::to_string)
}

/// A DWORD as a float literal when it reads back to the same bits, else hex.
fn dword_text(bits: u32) -> String {
    let f = f32::from_bits(bits);
    let text = format!("{f:?}");
    if f.is_finite() && text.parse::<f32>().map(f32::to_bits) == Ok(bits) {
        text
    } else {
        format!("{bits:#010x}")
    }
}

/// The declaration as text, one token a line, `D3DVSD_END()` last.
pub fn disassemble(d: &Dx8Declaration) -> String {
    let mut out = String::new();
    for t in &d.tokens {
        let _ = match t {
            DeclToken::Nop => writeln!(out, "D3DVSD_NOP()"),
            DeclToken::Stream(s) => writeln!(out, "D3DVSD_STREAM({s})"),
            DeclToken::StreamTess => writeln!(out, "D3DVSD_STREAM_TESS()"),
            DeclToken::Reg { register, ty } => writeln!(
                out,
                "D3DVSD_REG({}, {})",
                register_text(*register),
                ty.name()
            ),
            DeclToken::Skip(n) => writeln!(out, "D3DVSD_SKIP({n})"),
            DeclToken::SkipBytes(n) => writeln!(out, "D3DVSD_SKIPBYTES({n})"),
            DeclToken::Const { register, values } => {
                let _ = writeln!(out, "D3DVSD_CONST({register}, {})", values.len());
                for v in values {
                    let _ = writeln!(out, "    {}", v.map(dword_text).join(", "));
                }
                Ok(())
            }
            DeclToken::TessNormal { input, output } => writeln!(
                out,
                "D3DVSD_TESSNORMAL({}, {})",
                register_text(*input),
                register_text(*output)
            ),
            DeclToken::TessUv(r) => writeln!(out, "D3DVSD_TESSUV({})", register_text(*r)),
            DeclToken::Ext { info, data } => {
                let _ = writeln!(out, "D3DVSD_EXT({info:#08x}, {})", data.len());
                if !data.is_empty() {
                    let words: Vec<String> = data.iter().map(|w| format!("{w:#010x}")).collect();
                    let _ = writeln!(out, "    {}", words.join(", "));
                }
                Ok(())
            }
        };
    }
    out.push_str("D3DVSD_END()\n");
    out
}
