//! Printing: decoded commands → lines of DP2 assembly.
//!
//! In: [`Dp2Command`]s, or a whole stream of bytes with its decode options.
//! Out: one line per command in canonical form (full `D3DDP2OP_` names,
//! every field, derived counts explicit), each prefixed by its byte offset
//! in [`disassemble`]. Guarantees: total (any decoded command prints), and
//! what it prints [`super::assemble`] reads back to the same bytes.

use super::desc::{desc, field_kind, fixed_record, StructDesc};
use super::lexer;
use crate::command::*;
use crate::ddi_enum::ValueKind;
use crate::decode::{DecodeOptions, Decoder, Dp2Command};
use crate::error::DecodeError;
use crate::names;
use crate::structs::*;
use crate::Opcode;
use std::fmt::Write as _;
use zerocopy::IntoBytes;

/// Writes `{ field=value ... }` for one struct's bytes.
pub fn write_struct(out: &mut String, d: &StructDesc, bytes: &[u8]) {
    out.push('{');
    fields_inline(out, d, bytes);
    out.push_str(" }");
}

fn write_records(out: &mut String, d: &StructDesc, bytes: &[u8]) {
    for rec in bytes.chunks(d.size.max(1)) {
        out.push(' ');
        write_struct(out, d, rec);
    }
}

fn write_hex(out: &mut String, key: &str, bytes: &[u8]) {
    let _ = write!(out, " {key}={}", super::format_hex(bytes));
}

/// The Direct3D shader assembly of `code` when it is a shader the driver
/// would accept (it parses and validates) and the assembly reads back to
/// exactly these bytes; `None` otherwise.
pub fn shader_listing(code: &[u8]) -> Option<String> {
    let tokens = softhal_shader::tokens_from_le_bytes(code)?;
    let shader = softhal_shader::parse_and_validate(&tokens).ok()?;
    let text = softhal_shader::text::disassemble(shader.shader());
    let again = softhal_shader::text::assemble(&text).ok()?.to_tokens();
    (again == tokens).then_some(text)
}

/// The `D3DVSD_*` text of a DX8 declaration (CREATEVERTEXSHADER's `decl`)
/// when it decodes and the text reads back to exactly these bytes; `None`
/// otherwise.
pub fn declaration_listing(decl: &[u8]) -> Option<String> {
    use softhal_shader::decl8;
    let tokens = softhal_shader::tokens_from_le_bytes(decl)?;
    let d = decl8::parse(&tokens).ok()?;
    let text = decl8::disassemble(&d);
    let again = decl8::assemble(&text).ok()?.to_tokens();
    (again == tokens).then_some(text)
}

/// Writes ` key=` as an `asm{` block of `text`, one line of it per line.
fn write_block(out: &mut String, key: &str, text: &str) {
    let _ = write!(out, " {key}={}{{", lexer::SHADER_BLOCK);
    for line in text.lines() {
        let _ = write!(out, "\n    {line}");
    }
    out.push_str("\n}");
}

/// Writes ` code=` as an `asm{` block of shader assembly, one instruction
/// per line, when [`shader_listing`] can; as a `hex:` blob otherwise (a
/// capture may hold a shader the driver refused, and it must round-trip).
fn write_code(out: &mut String, code: &[u8]) {
    match shader_listing(code) {
        Some(text) => write_block(out, "code", &text),
        None => write_hex(out, "code", code),
    }
}

/// Writes ` decl=` as an `asm{` block of `D3DVSD_*` macros, one token per
/// line, when [`declaration_listing`] can; as a `hex:` blob otherwise.
fn write_decl(out: &mut String, decl: &[u8]) {
    match declaration_listing(decl) {
        Some(text) => write_block(out, "decl", &text),
        None => write_hex(out, "decl", decl),
    }
}

fn write_dwords(out: &mut String, key: &str, data: &[Dword32], kind: ValueKind) {
    let _ = write!(out, " {key}=[");
    for (i, d) in data.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&names::format_value(kind, d.value.get()));
    }
    out.push(']');
}

fn write_floats(out: &mut String, key: &str, data: &[F32Le]) {
    let _ = write!(out, " {key}=[");
    for (i, d) in data.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&names::format_value(ValueKind::Float, d.bits()));
    }
    out.push(']');
}

fn sub<T: Dp2Struct>(out: &mut String, key: &str, v: &T) {
    let _ = write!(out, " {key}=");
    write_struct(out, &desc::<T>(), v.as_bytes());
}

/// Formats one decoded command as a line of assembly (without offset).
pub fn format_command(cmd: &Dp2Command<'_>) -> String {
    use Command as C;
    let op = Opcode::from_raw(cmd.header.command);
    let mut out = match op {
        Some(o) => o.name().to_string(),
        None => {
            // Its extent is unknown here: print the header as raw bytes, which
            // assemble back to the same four bytes.
            let h = cmd.header;
            let c = h.count.get().to_le_bytes();
            return format!(
                ".raw hex:{:02x}{:02x}{:02x}{:02x} # unknown opcode {}",
                h.command, h.reserved, c[0], c[1], h.command
            );
        }
    };
    if cmd.header.reserved != 0 {
        let _ = write!(out, " bReserved={}", cmd.header.reserved);
    }
    let o = &mut out;
    match cmd.command {
        C::Unknown { .. } => {}
        C::Reserved0 { count } => {
            let _ = write!(o, " count={count}");
        }
        C::LineList { count, start }
        | C::LineStrip { count, start }
        | C::TriangleList { count, start }
        | C::TriangleStrip { count, start }
        | C::TriangleFan { count, start } => {
            let _ = write!(o, " count={count} wVStart={}", start.v_start.get());
        }
        C::IndexedLineStrip {
            count,
            start,
            indices,
        }
        | C::IndexedTriangleStrip {
            count,
            start,
            indices,
        }
        | C::IndexedTriangleFan {
            count,
            start,
            indices,
        } => {
            let _ = write!(
                o,
                " count={count} wVStart={} indices=[",
                start.v_start.get()
            );
            let list: Vec<String> = indices.iter().map(|i| i.index.get().to_string()).collect();
            let _ = write!(o, "{}]", list.join(" "));
        }
        C::TriangleFanImm {
            count,
            edge_flags,
            vertices,
        } => {
            let _ = write!(
                o,
                " count={count} dwEdgeFlags={:#x}",
                edge_flags.edge_flags.get()
            );
            write_hex(o, "vertices", vertices);
        }
        C::LineListImm { count, vertices } => {
            let _ = write!(o, " count={count}");
            write_hex(o, "vertices", vertices);
        }
        C::IndexedTriangleList2 { start, triangles } => {
            let _ = write!(o, " wVStart={}", start.v_start.get());
            write_records(o, &desc::<Dp2IndexedTriangleList2>(), triangles.as_bytes());
        }
        C::IndexedLineList2 { start, lines } => {
            let _ = write!(o, " wVStart={}", start.v_start.get());
            write_records(o, &desc::<Dp2IndexedLineList>(), lines.as_bytes());
        }
        C::UpdatePalette {
            count,
            update,
            entries,
        } => {
            if count != 1 {
                let _ = write!(o, " count={count}");
            }
            o.push(' ');
            write_struct(o, &desc::<Dp2UpdatePalette>(), update.as_bytes());
            let e: Vec<Dword32> = entries.iter().map(|x| Dword32 { value: x.entry }).collect();
            write_dwords(o, "entries", &e, ValueKind::Hex);
        }
        C::Clear { clear, rects } => {
            o.push(' ');
            write_struct(o, &desc::<Dp2Clear>(), clear.as_bytes());
            write_records(o, &desc::<Rect>(), rects.as_bytes());
        }
        C::SetLight(r) => {
            for rec in r.iter() {
                o.push_str(" {");
                fields_inline(o, &desc::<Dp2SetLight>(), rec.head.as_bytes());
                if let Some(l) = rec.light {
                    sub(o, "light", l);
                }
                o.push_str(" }");
            }
        }
        C::CreateVertexShader(r) => {
            for rec in r.iter() {
                o.push_str(" {");
                fields_inline(o, &desc::<Dp2CreateVertexShader>(), rec.head.as_bytes());
                write_decl(o, rec.decl);
                write_code(o, rec.code);
                o.push_str(" }");
            }
        }
        C::SetVertexShaderConst(r) | C::SetPixelShaderConst(r) => {
            const_records(o, r, ValueKind::Float)
        }
        C::SetVertexShaderConstI(r) | C::SetPixelShaderConstI(r) => {
            const_records(o, r, ValueKind::Long)
        }
        C::SetVertexShaderConstB(r) | C::SetPixelShaderConstB(r) => {
            for rec in r.iter() {
                o.push_str(" {");
                fields_inline(o, &desc::<Dp2SetShaderConst>(), rec.head.as_bytes());
                write_dwords(o, "data", rec.data, ValueKind::Bool);
                o.push_str(" }");
            }
        }
        C::CreatePixelShader(r) => code_records(o, r),
        C::CreateVertexShaderFunc(r) => code_records(o, r),
        C::DrawRectPatch(r) => patch_records(o, r),
        C::DrawTriPatch(r) => patch_records(o, r),
        C::CreateVertexShaderDecl(r) => {
            for rec in r.iter() {
                o.push_str(" {");
                fields_inline(o, &desc::<Dp2CreateVertexShaderDecl>(), rec.head.as_bytes());
                write_records(o, &desc::<D3dVertexElement9>(), rec.elements.as_bytes());
                o.push_str(" }");
            }
        }
        C::ResponseContinue { count, extra } => {
            if count != 0 {
                let _ = write!(o, " count={count}");
            }
            if !extra.is_empty() {
                write_hex(o, "extra", extra);
            }
        }
        C::ResponseQuery(r) => {
            for rec in r.iter() {
                o.push_str(" {");
                fields_inline(o, &desc::<Dp2ResponseQuery>(), rec.head.as_bytes());
                write_hex(o, "data", rec.data);
                o.push_str(" }");
            }
        }
        C::SetConvolutionKernelMono(r) => {
            for rec in r.iter() {
                o.push_str(" {");
                fields_inline(
                    o,
                    &desc::<Dp2SetConvolutionKernelMono>(),
                    rec.head.as_bytes(),
                );
                if let Some(w) = rec.row_weights {
                    write_floats(o, "row", w);
                }
                if let Some(w) = rec.col_weights {
                    write_floats(o, "col", w);
                }
                o.push_str(" }");
            }
        }
        _ => {
            // Every remaining opcode is N fixed-size records.
            if let Some(d) = op.and_then(fixed_record) {
                write_records(o, &d, fixed_payload(&cmd.command));
            }
        }
    }
    out
}

fn fields_inline(out: &mut String, d: &StructDesc, bytes: &[u8]) {
    for f in d.fields {
        let raw = f.read(bytes).unwrap_or(0);
        let _ = write!(
            out,
            " {}={}",
            f.name,
            names::format_value(field_kind(d, f, bytes), raw)
        );
    }
}

fn const_records(o: &mut String, r: Records<'_, ShaderConstRecord<'_>>, kind: ValueKind) {
    for rec in r.iter() {
        o.push_str(" {");
        fields_inline(o, &desc::<Dp2SetShaderConst>(), rec.head.as_bytes());
        write_dwords(o, "data", rec.data, kind);
        o.push_str(" }");
    }
}

fn code_records<H: CodeHead>(o: &mut String, r: Records<'_, ShaderCodeRecord<'_, H>>) {
    for rec in r.iter() {
        o.push_str(" {");
        fields_inline(o, &desc::<H>(), rec.head.as_bytes());
        write_code(o, rec.code);
        o.push_str(" }");
    }
}

fn patch_records<S: Dp2Struct, I: Dp2Struct>(
    o: &mut String,
    r: Records<'_, PatchRecord<'_, S, I>>,
) {
    for rec in r.iter() {
        o.push_str(" {");
        fields_inline(o, &desc::<Dp2DrawPatch>(), rec.head.as_bytes());
        if let Some(s) = rec.segments {
            sub(o, "segs", s);
        }
        if let Some(i) = rec.info {
            sub(o, "info", i);
        }
        o.push_str(" }");
    }
}

/// The payload bytes of a fixed-record command.
fn fixed_payload<'a>(c: &Command<'a>) -> &'a [u8] {
    use Command as C;
    match *c {
        C::Points(r) => r.as_bytes(),
        C::IndexedLineList(r) => r.as_bytes(),
        C::IndexedTriangleList(r) => r.as_bytes(),
        C::RenderState(r) => r.as_bytes(),
        C::TextureStageState(r) => r.as_bytes(),
        C::ViewportInfo(r) => r.as_bytes(),
        C::WInfo(r) => r.as_bytes(),
        C::SetPalette(r) => r.as_bytes(),
        C::ZRange(r) => r.as_bytes(),
        C::SetMaterial(r) => r.as_bytes(),
        C::CreateLight(r) => r.as_bytes(),
        C::SetTransform(r) | C::MultiplyTransform(r) => r.as_bytes(),
        C::Ext(r) => r.as_bytes(),
        C::TexBlt(r) => r.as_bytes(),
        C::StateSet(r) => r.as_bytes(),
        C::SetPriority(r) => r.as_bytes(),
        C::SetRenderTarget(r) => r.as_bytes(),
        C::SetTexLod(r) => r.as_bytes(),
        C::SetClipPlane(r) => r.as_bytes(),
        C::DeleteVertexShader(r)
        | C::SetVertexShader(r)
        | C::DeleteVertexShaderDecl(r)
        | C::SetVertexShaderDecl(r)
        | C::DeleteVertexShaderFunc(r)
        | C::SetVertexShaderFunc(r) => r.as_bytes(),
        C::SetStreamSource(r) => r.as_bytes(),
        C::SetStreamSourceUm(r) => r.as_bytes(),
        C::SetIndices(r) => r.as_bytes(),
        C::DrawPrimitive(r) => r.as_bytes(),
        C::DrawIndexedPrimitive(r) => r.as_bytes(),
        C::DeletePixelShader(r) | C::SetPixelShader(r) => r.as_bytes(),
        C::ClippedTriangleFan(r) => r.as_bytes(),
        C::DrawPrimitive2(r) => r.as_bytes(),
        C::DrawIndexedPrimitive2(r) => r.as_bytes(),
        C::VolumeBlt(r) => r.as_bytes(),
        C::BufferBlt(r) => r.as_bytes(),
        C::AddDirtyRect(r) => r.as_bytes(),
        C::AddDirtyBox(r) => r.as_bytes(),
        C::SetScissorRect(r) => r.as_bytes(),
        C::SetStreamSource2(r) => r.as_bytes(),
        C::Blt(r) | C::SurfaceBlt(r) => r.as_bytes(),
        C::ColorFill(r) => r.as_bytes(),
        C::CreateQuery(r) => r.as_bytes(),
        C::SetRenderTarget2(r) => r.as_bytes(),
        C::SetDepthStencil(r) => r.as_bytes(),
        C::GenerateMipSubLevels(r) => r.as_bytes(),
        C::DeleteQuery(r) => r.as_bytes(),
        C::IssueQuery(r) => r.as_bytes(),
        C::SetStreamSourceFreq(r) => r.as_bytes(),
        C::ComposeRects(r) => r.as_bytes(),
        _ => &[],
    }
}

/// Result of disassembling a stream: the text, the commands' offsets, and
/// the error that ended the walk, if any.
#[derive(Debug, Clone)]
pub struct Disassembly {
    /// One line per command, each prefixed by its byte offset.
    pub text: String,
    /// The error that stopped decoding (an unknown opcode counts as one,
    /// with kind `unknown_opcode`, since no host can parse it here).
    pub error: Option<DecodeError>,
}

/// Disassembles a whole stream. The header lines record the options
/// (`.fvf`, `.base_align`) so that [`assemble`] reproduces the bytes.
pub fn disassemble(bytes: &[u8], fvf: Option<u32>, opts: DecodeOptions) -> Disassembly {
    let mut text = String::new();
    if let Some(fvf) = fvf {
        let _ = writeln!(text, ".fvf {}", names::format_fvf(fvf));
    }
    if opts.base_align & 3 != 0 {
        let _ = writeln!(text, ".base_align {}", opts.base_align & 3);
    }
    let mut error = None;
    for item in Decoder::new(bytes, opts) {
        match item {
            Ok(cmd) => {
                if let Command::Unknown { opcode } = cmd.command {
                    error = Some(DecodeError {
                        offset: cmd.offset,
                        opcode: Some(opcode),
                        kind: crate::DecodeErrorKind::UnknownOpcode { opcode },
                    });
                    break;
                }
                let _ = writeln!(text, "{:06x}: {}", cmd.offset, format_command(&cmd));
            }
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    Disassembly { text, error }
}
