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

pub mod lexer;

use crate::command::*;
use crate::ddi_enum::ValueKind;
use crate::decode::{DecodeOptions, Decoder, Dp2Command};
use crate::encode::Encoder;
use crate::error::DecodeError;
use crate::names;
use crate::structs::*;
use crate::Opcode;
use lexer::{Item, Val};
use std::fmt::Write as _;
use zerocopy::{FromBytes, IntoBytes};

/// The layout of one payload struct, type-erased.
#[derive(Debug, Clone, Copy)]
pub struct StructDesc {
    /// DDK name.
    pub name: &'static str,
    /// Size in bytes.
    pub size: usize,
    /// Fields.
    pub fields: &'static [Field],
}

/// The descriptor of `T`.
pub fn desc<T: Dp2Struct>() -> StructDesc {
    StructDesc {
        name: T::DDK_NAME,
        size: T::SIZE,
        fields: T::FIELDS,
    }
}

/// For opcodes whose payload is exactly N fixed-size records: the record.
pub fn fixed_record(op: Opcode) -> Option<StructDesc> {
    use Opcode as O;
    Some(match op {
        O::Points => desc::<Dp2Points>(),
        O::IndexedLineList => desc::<Dp2IndexedLineList>(),
        O::IndexedTriangleList => desc::<Dp2IndexedTriangleList>(),
        O::RenderState => desc::<Dp2RenderState>(),
        O::TextureStageState => desc::<Dp2TextureStageState>(),
        O::ViewportInfo => desc::<Dp2ViewportInfo>(),
        O::WInfo => desc::<Dp2WInfo>(),
        O::SetPalette => desc::<Dp2SetPalette>(),
        O::ZRange => desc::<Dp2ZRange>(),
        O::SetMaterial => desc::<Dp2SetMaterial>(),
        O::CreateLight => desc::<Dp2CreateLight>(),
        O::SetTransform | O::MultiplyTransform => desc::<Dp2SetTransform>(),
        O::Ext => desc::<Dp2Ext>(),
        O::TexBlt => desc::<Dp2TexBlt>(),
        O::StateSet => desc::<Dp2StateSet>(),
        O::SetPriority => desc::<Dp2SetPriority>(),
        O::SetRenderTarget => desc::<Dp2SetRenderTarget>(),
        O::SetTexLod => desc::<Dp2SetTexLod>(),
        O::SetClipPlane => desc::<Dp2SetClipPlane>(),
        O::DeleteVertexShader
        | O::SetVertexShader
        | O::DeleteVertexShaderDecl
        | O::SetVertexShaderDecl
        | O::DeleteVertexShaderFunc
        | O::SetVertexShaderFunc => desc::<Dp2VertexShader>(),
        O::SetStreamSource => desc::<Dp2SetStreamSource>(),
        O::SetStreamSourceUm => desc::<Dp2SetStreamSourceUm>(),
        O::SetIndices => desc::<Dp2SetIndices>(),
        O::DrawPrimitive => desc::<Dp2DrawPrimitive>(),
        O::DrawIndexedPrimitive => desc::<Dp2DrawIndexedPrimitive>(),
        O::DeletePixelShader | O::SetPixelShader => desc::<Dp2PixelShader>(),
        O::ClippedTriangleFan => desc::<Dp2ClippedTriangleFan>(),
        O::DrawPrimitive2 => desc::<Dp2DrawPrimitive2>(),
        O::DrawIndexedPrimitive2 => desc::<Dp2DrawIndexedPrimitive2>(),
        O::VolumeBlt => desc::<Dp2VolumeBlt>(),
        O::BufferBlt => desc::<Dp2BufferBlt>(),
        O::AddDirtyRect => desc::<Dp2AddDirtyRect>(),
        O::AddDirtyBox => desc::<Dp2AddDirtyBox>(),
        O::SetScissorRect => desc::<Rect>(),
        O::SetStreamSource2 => desc::<Dp2SetStreamSource2>(),
        O::Blt | O::SurfaceBlt => desc::<Dp2Blt>(),
        O::ColorFill => desc::<Dp2ColorFill>(),
        O::CreateQuery => desc::<Dp2CreateQuery>(),
        O::SetRenderTarget2 => desc::<Dp2SetRenderTarget2>(),
        O::SetDepthStencil => desc::<Dp2SetDepthStencil>(),
        O::GenerateMipSubLevels => desc::<Dp2GenerateMipSubLevels>(),
        O::DeleteQuery => desc::<Dp2DeleteQuery>(),
        O::IssueQuery => desc::<Dp2IssueQuery>(),
        O::SetStreamSourceFreq => desc::<Dp2SetStreamSourceFreq>(),
        O::ComposeRects => desc::<Dp2ComposeRects>(),
        _ => return None,
    })
}

// ====================================================================== output

/// The value kind of a field, with the two state records whose value's
/// meaning depends on which state it is.
fn field_kind(d: &StructDesc, f: &Field, bytes: &[u8]) -> ValueKind {
    let sibling = |name: &str| {
        d.fields
            .iter()
            .find(|g| g.name == name)
            .and_then(|g| g.read(bytes))
    };
    match (d.name, f.name) {
        ("D3DHAL_DP2RENDERSTATE", "dwState") => {
            sibling("RenderState").map_or(f.kind, names::render_state_value_kind)
        }
        ("D3DHAL_DP2TEXTURESTAGESTATE", "dwValue") => {
            sibling("TSState").map_or(f.kind, names::texture_stage_value_kind)
        }
        _ => f.kind,
    }
}

/// Writes `{ field=value ... }` for one struct's bytes.
pub fn write_struct(out: &mut String, d: &StructDesc, bytes: &[u8]) {
    out.push('{');
    for f in d.fields {
        let raw = f.read(bytes).unwrap_or(0);
        let _ = write!(
            out,
            " {}={}",
            f.name,
            names::format_value(field_kind(d, f, bytes), raw)
        );
    }
    out.push_str(" }");
}

fn write_records(out: &mut String, d: &StructDesc, bytes: &[u8]) {
    for rec in bytes.chunks(d.size.max(1)) {
        out.push(' ');
        write_struct(out, d, rec);
    }
}

fn write_hex(out: &mut String, key: &str, bytes: &[u8]) {
    let _ = write!(out, " {key}=hex:");
    for b in bytes {
        let _ = write!(out, "{b:02x}");
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
                write_hex(o, "decl", rec.decl);
                write_hex(o, "code", rec.code);
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
        write_hex(o, "code", rec.code);
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

// ====================================================================== input

/// An assembly error, with its 1-based line number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct AsmError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Parses a hex blob written `hex:0a1b...`.
fn parse_hex(v: &Val) -> Result<Vec<u8>, String> {
    let Val::Word(w) = v else {
        return Err("expected hex:<bytes>".into());
    };
    let h = w
        .strip_prefix("hex:")
        .ok_or_else(|| format!("expected hex:<bytes>, found {w}"))?;
    if h.len() % 2 != 0 {
        return Err(format!("odd number of hex digits in {w}"));
    }
    h.as_bytes()
        .chunks(2)
        .map(|p| {
            core::str::from_utf8(p)
                .ok()
                .and_then(|p| u8::from_str_radix(p, 16).ok())
                .ok_or_else(|| format!("bad hex in {w}"))
        })
        .collect()
}

fn parse_word(v: &Val) -> Result<&str, String> {
    match v {
        Val::Word(w) => Ok(w),
        _ => Err("expected a single value".into()),
    }
}

fn parse_num(v: &Val, what: &str) -> Result<u32, String> {
    let w = parse_word(v)?;
    names::parse_value(ValueKind::Dword, w)
        .ok_or_else(|| format!("{what}: expected a number, found {w}"))
}

fn parse_list(v: &Val, kind: ValueKind) -> Result<Vec<u32>, String> {
    let Val::List(items) = v else {
        return Err("expected a list [...]".into());
    };
    items
        .iter()
        .map(|i| {
            let w = parse_word(i)?;
            names::parse_value(kind, w).ok_or_else(|| format!("bad list value {w}"))
        })
        .collect()
}

/// Fills a struct's bytes from `key=value` pairs. Pairs whose key is not a
/// field are handed to `extra` (which returns `false` for unknown keys);
/// bare groups are handed to `extra` with an empty key.
fn fill_struct(
    d: &StructDesc,
    items: &[Item],
    mut extra: impl FnMut(&str, &Val) -> Result<bool, String>,
) -> Result<(Vec<u8>, Vec<&'static str>), String> {
    let mut bytes = vec![0u8; d.size];
    let mut set = Vec::new();
    // Two passes: plain fields first, so that dependent kinds (dwState
    // after RenderState) see their sibling whatever the order.
    let mut deferred = Vec::new();
    for it in items {
        match it {
            Item::Pair(k, v) => {
                if let Some(f) = d.fields.iter().find(|f| f.name.eq_ignore_ascii_case(k)) {
                    deferred.push((f, v));
                } else if !extra(k, v)? {
                    return Err(format!("{} has no field {k}", d.name));
                }
            }
            Item::Group(g) => {
                if !extra("", &Val::Group(g.clone()))? {
                    return Err(format!("{}: unexpected group", d.name));
                }
            }
            Item::Word(w) => return Err(format!("{}: expected field=value, found {w}", d.name)),
        }
    }
    deferred.sort_by_key(|(f, _)| matches!(field_kind(d, f, &[]), ValueKind::Hex) as u8);
    for (f, v) in deferred {
        let w = parse_word(v)?;
        let kind = field_kind(d, f, &bytes);
        let raw = names::parse_value(kind, w)
            .or_else(|| names::parse_value(f.kind, w))
            .ok_or_else(|| format!("{}.{}: cannot read {w}", d.name, f.name))?;
        let max = match f.ty {
            FieldType::U8 => 0xFF,
            FieldType::U16 => 0xFFFF,
            _ => u32::MAX,
        };
        if raw > max {
            return Err(format!(
                "{}.{}: {w} does not fit {} bytes",
                d.name,
                f.name,
                f.ty.size()
            ));
        }
        f.write(&mut bytes, raw);
        set.push(f.name);
    }
    Ok((bytes, set))
}

fn group_items(v: &Val) -> Result<&[Item], String> {
    match v {
        Val::Group(g) => Ok(g),
        _ => Err("expected a group {...}".into()),
    }
}

fn struct_from<T: Dp2Struct>(items: &[Item]) -> Result<(T, Vec<&'static str>), String> {
    let (bytes, set) = fill_struct(&desc::<T>(), items, |_, _| Ok(false))?;
    let t = T::read_from_bytes(&bytes).map_err(|_| "internal: struct size".to_string())?;
    Ok((t, set))
}

fn set_if_absent(
    d: &StructDesc,
    bytes: &mut [u8],
    set: &[&str],
    field: &str,
    value: usize,
) -> Result<(), String> {
    if set.iter().any(|s| s.eq_ignore_ascii_case(field)) {
        return Ok(());
    }
    let v = u32::try_from(value).map_err(|_| format!("{field}: {value} does not fit a DWORD"))?;
    if let Some(f) = d.fields.iter().find(|f| f.name == field) {
        f.write(bytes, v);
    }
    Ok(())
}

/// The line-level state of the assembler.
struct Asm {
    enc: Encoder,
    opts: DecodeOptions,
}

/// Assembles source text into a DP2 stream.
pub fn assemble(src: &str) -> Result<Vec<u8>, AsmError> {
    assemble_with(src, DecodeOptions::default())
}

/// Assembles with initial options (a `.fvf` / `.base_align` line overrides them).
pub fn assemble_with(src: &str, opts: DecodeOptions) -> Result<Vec<u8>, AsmError> {
    let mut a = Asm {
        enc: Encoder::new(opts),
        opts,
    };
    for (line, line_no) in src.lines().zip(1..) {
        let err = |message: String| AsmError {
            line: line_no,
            message,
        };
        let Some((mnemonic, items)) = lexer::parse_line(line).map_err(err)? else {
            continue;
        };
        a.line(&mnemonic, &items).map_err(err)?;
    }
    Ok(a.enc.into_bytes())
}

fn opcode_of(mnemonic: &str) -> Option<Opcode> {
    Opcode::from_name(mnemonic)
}

impl Asm {
    fn line(&mut self, mnemonic: &str, items: &[Item]) -> Result<(), String> {
        if let Some(directive) = mnemonic.strip_prefix('.') {
            return self.directive(directive, items);
        }
        let op = opcode_of(mnemonic).ok_or_else(|| format!("unknown mnemonic {mnemonic}"))?;
        // Options that apply to the header.
        let mut count: Option<u32> = None;
        let mut reserved: u8 = 0;
        let mut rest = Vec::new();
        for it in items {
            match it {
                Item::Pair(k, v) if k.eq_ignore_ascii_case("count") => {
                    count = Some(parse_num(v, "count")?)
                }
                Item::Pair(k, v) if k.eq_ignore_ascii_case("bReserved") => {
                    reserved = u8::try_from(parse_num(v, "bReserved")?)
                        .map_err(|_| "bReserved is a BYTE")?
                }
                other => rest.push(other.clone()),
            }
        }
        let count16 =
            |n: u32| u16::try_from(n).map_err(|_| format!("count {n} does not fit a WORD"));
        let start = self.enc.len();
        self.command(op, count.map(count16).transpose()?, &rest)?;
        if reserved != 0 {
            // bReserved is the second header byte of the command just written.
            let bytes = self.enc.bytes().to_vec();
            let mut bytes = bytes;
            if let Some(b) = bytes.get_mut(start..).and_then(|c| c.get_mut(1)) {
                *b = reserved;
            }
            self.enc = Encoder::new(self.opts);
            self.enc.raw(&bytes);
        }
        Ok(())
    }

    fn directive(&mut self, name: &str, items: &[Item]) -> Result<(), String> {
        let word = |items: &[Item]| match items {
            [Item::Word(w)] => Ok(w.clone()),
            _ => Err(format!(".{name} takes one value")),
        };
        match name.to_ascii_lowercase().as_str() {
            "fvf" => {
                let w = word(items)?;
                let fvf = names::parse_fvf(&w).ok_or_else(|| format!("bad FVF {w}"))?;
                let stride = crate::fvf::vertex_stride(fvf).map_err(|e| e.to_string())?;
                self.opts.vertex_stride = stride;
            }
            "stride" => {
                let w = word(items)?;
                self.opts.vertex_stride =
                    names::parse_value(ValueKind::Dword, &w).ok_or("bad stride")?;
            }
            "base_align" => {
                let w = word(items)?;
                self.opts.base_align =
                    names::parse_value(ValueKind::Dword, &w).ok_or("bad alignment")? as usize & 3;
            }
            "raw" => {
                let bytes = match items {
                    [Item::Word(w)] => parse_hex(&Val::Word(w.clone()))?,
                    _ => return Err(".raw takes one hex:<bytes> value".into()),
                };
                self.enc.raw(&bytes);
                return Ok(());
            }
            other => return Err(format!("unknown directive .{other}")),
        }
        // Options changed: keep the bytes, re-create the encoder with them.
        let bytes = self.enc.bytes().to_vec();
        self.enc = Encoder::new(self.opts);
        self.enc.raw(&bytes);
        Ok(())
    }

    fn push(&mut self, cmd: &Command<'_>) -> Result<(), String> {
        self.enc.push(cmd).map(|_| ()).map_err(|e| e.to_string())
    }

    #[allow(clippy::too_many_lines)]
    fn command(&mut self, op: Opcode, count: Option<u16>, items: &[Item]) -> Result<(), String> {
        use Command as C;
        let groups: Vec<&[Item]> = items
            .iter()
            .filter_map(|i| match i {
                Item::Group(g) => Some(g.as_slice()),
                _ => None,
            })
            .collect();
        let pair = |key: &str| {
            items.iter().find_map(|i| match i {
                Item::Pair(k, v) if k.eq_ignore_ascii_case(key) => Some(v),
                _ => None,
            })
        };
        let check_keys = |allowed: &[&str]| -> Result<(), String> {
            for i in items {
                match i {
                    Item::Pair(k, _) if !allowed.iter().any(|a| a.eq_ignore_ascii_case(k)) => {
                        return Err(format!("{}: unexpected {k}=", op.name()))
                    }
                    Item::Word(w) => return Err(format!("{}: unexpected {w}", op.name())),
                    _ => {}
                }
            }
            Ok(())
        };
        // Shapes without `{ }` records, and shapes whose N is free (not the
        // number of records): elsewhere `count=` must agree with the records.
        use Opcode as O;
        let recordless = matches!(
            op,
            O::Reserved0
                | O::LineList
                | O::LineStrip
                | O::TriangleList
                | O::TriangleStrip
                | O::TriangleFan
                | O::IndexedLineStrip
                | O::IndexedTriangleStrip
                | O::IndexedTriangleFan
                | O::TriangleFanImm
                | O::LineListImm
                | O::ResponseContinue
        );
        if recordless && !groups.is_empty() {
            return Err(format!("{} takes no {{ }} records", op.name()));
        }
        if let (false, false, Some(c)) = (recordless, op == O::UpdatePalette, count) {
            let records = if op == O::Clear {
                groups.len().saturating_sub(1)
            } else {
                groups.len()
            };
            if usize::from(c) != records {
                return Err(format!(
                    "{}: count={c} but {records} record(s) given",
                    op.name()
                ));
            }
        }
        let need_count = || count.ok_or_else(|| format!("{} needs count=N", op.name()));
        let v_start = || -> Result<u16, String> {
            let v = pair("wVStart")
                .map(|v| parse_num(v, "wVStart"))
                .transpose()?
                .unwrap_or(0);
            u16::try_from(v).map_err(|_| "wVStart is a WORD".to_string())
        };

        if let Some(d) = fixed_record(op) {
            check_keys(&[])?;
            // The capacity is only a hint.
            let mut payload =
                Vec::with_capacity(groups.len().checked_mul(d.size).unwrap_or_default());
            for g in &groups {
                let (b, _) = fill_struct(&d, g, |_, _| Ok(false))?;
                payload.extend_from_slice(&b);
            }
            let n = u16::try_from(groups.len()).map_err(|_| "more than 65535 records")?;
            let n = count.unwrap_or(n);
            self.enc
                .raw(&[op.raw(), 0])
                .raw(&n.to_le_bytes())
                .raw(&payload);
            return Ok(());
        }

        match op {
            Opcode::Reserved0 => {
                check_keys(&[])?;
                self.push(&C::Reserved0 {
                    count: count.unwrap_or(0),
                })
            }
            Opcode::LineList
            | Opcode::LineStrip
            | Opcode::TriangleList
            | Opcode::TriangleStrip
            | Opcode::TriangleFan => {
                check_keys(&["wVStart"])?;
                let n = need_count()?;
                self.enc
                    .primitive(op, n, v_start()?)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            }
            Opcode::IndexedLineStrip
            | Opcode::IndexedTriangleStrip
            | Opcode::IndexedTriangleFan => {
                check_keys(&["wVStart", "indices"])?;
                let idx = pair("indices")
                    .map(|v| parse_list(v, ValueKind::Dword))
                    .transpose()?
                    .unwrap_or_default();
                let idx: Vec<Dp2Index> = idx
                    .iter()
                    .map(|&i| u16::try_from(i).map(|i| Dp2Index { index: i.into() }))
                    .collect::<Result<_, _>>()
                    .map_err(|_| "indices are WORDs")?;
                let extra = if op == Opcode::IndexedLineStrip { 1 } else { 2 };
                let derived = idx.len().checked_sub(extra).ok_or("too few indices")?;
                let n = count.unwrap_or(u16::try_from(derived).map_err(|_| "too many indices")?);
                let start = Dp2StartVertex {
                    v_start: v_start()?.into(),
                };
                let cmd = match op {
                    Opcode::IndexedLineStrip => C::IndexedLineStrip {
                        count: n,
                        start: &start,
                        indices: &idx,
                    },
                    Opcode::IndexedTriangleStrip => C::IndexedTriangleStrip {
                        count: n,
                        start: &start,
                        indices: &idx,
                    },
                    _ => C::IndexedTriangleFan {
                        count: n,
                        start: &start,
                        indices: &idx,
                    },
                };
                self.push(&cmd)
            }
            Opcode::TriangleFanImm | Opcode::LineListImm => {
                if op == Opcode::TriangleFanImm {
                    check_keys(&["dwEdgeFlags", "vertices"])?;
                } else {
                    check_keys(&["vertices"])?;
                }
                let verts = pair("vertices")
                    .map(parse_hex)
                    .transpose()?
                    .unwrap_or_default();
                let stride = self.opts.vertex_stride as usize;
                let n = match (count, verts.len().checked_div(stride)) {
                    (Some(n), _) => n,
                    (None, Some(v)) => {
                        let n = if op == Opcode::TriangleFanImm {
                            v.saturating_sub(2)
                        } else {
                            v / 2
                        };
                        u16::try_from(n).map_err(|_| "too many vertices")?
                    }
                    (None, None) => return Err(format!("{} needs count=N or a .fvf", op.name())),
                };
                if op == Opcode::TriangleFanImm {
                    let ef = pair("dwEdgeFlags")
                        .map(|v| parse_num(v, "dwEdgeFlags"))
                        .transpose()?
                        .unwrap_or(0);
                    self.enc
                        .triangle_fan_imm(n, ef, &verts)
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                } else {
                    self.enc
                        .line_list_imm(n, &verts)
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                }
            }
            Opcode::IndexedTriangleList2 | Opcode::IndexedLineList2 => {
                check_keys(&["wVStart"])?;
                let start = Dp2StartVertex {
                    v_start: v_start()?.into(),
                };
                if op == Opcode::IndexedTriangleList2 {
                    let t: Vec<Dp2IndexedTriangleList2> = groups
                        .iter()
                        .map(|g| struct_from(g).map(|(t, _)| t))
                        .collect::<Result<_, _>>()?;
                    self.push(&C::IndexedTriangleList2 {
                        start: &start,
                        triangles: &t,
                    })
                } else {
                    let l: Vec<Dp2IndexedLineList> = groups
                        .iter()
                        .map(|g| struct_from(g).map(|(t, _)| t))
                        .collect::<Result<_, _>>()?;
                    self.push(&C::IndexedLineList2 {
                        start: &start,
                        lines: &l,
                    })
                }
            }
            Opcode::UpdatePalette => {
                check_keys(&["entries"])?;
                let [g] = groups.as_slice() else {
                    return Err("UPDATEPALETTE takes one { ... } record".into());
                };
                let entries = pair("entries")
                    .map(|v| parse_list(v, ValueKind::Hex))
                    .transpose()?
                    .unwrap_or_default();
                let d = desc::<Dp2UpdatePalette>();
                let (mut b, set) = fill_struct(&d, g, |_, _| Ok(false))?;
                set_if_absent(&d, &mut b, &set, "wNumEntries", entries.len())?;
                let update = Dp2UpdatePalette::read_from_bytes(&b).map_err(|_| "internal")?;
                let e: Vec<Dp2PaletteEntry> = entries
                    .iter()
                    .map(|&x| Dp2PaletteEntry { entry: x.into() })
                    .collect();
                self.push(&C::UpdatePalette {
                    count: count.unwrap_or(1),
                    update: &update,
                    entries: &e,
                })
            }
            Opcode::Clear => {
                check_keys(&[])?;
                let (head, rects) = groups
                    .split_first()
                    .ok_or("CLEAR needs a { dwFlags=... } record")?;
                let (clear, _) = struct_from::<Dp2Clear>(head)?;
                let r: Vec<Rect> = rects
                    .iter()
                    .map(|g| struct_from(g).map(|(t, _)| t))
                    .collect::<Result<_, _>>()?;
                self.push(&C::Clear {
                    clear: &clear,
                    rects: &r,
                })
            }
            Opcode::SetLight => {
                check_keys(&[])?;
                let mut bytes = Vec::new();
                for g in &groups {
                    let mut light = None;
                    let d = desc::<Dp2SetLight>();
                    let (mut b, set) = fill_struct(&d, g, |k, v| {
                        if k.eq_ignore_ascii_case("light") {
                            light = Some(struct_from::<D3dLight7>(group_items(v)?)?.0);
                            Ok(true)
                        } else {
                            Ok(false)
                        }
                    })?;
                    if light.is_some() {
                        set_if_absent(&d, &mut b, &set, "dwDataType", SETLIGHT_DATA as usize)?;
                    }
                    bytes.extend_from_slice(&b);
                    if let Some(l) = light {
                        bytes.extend_from_slice(l.as_bytes());
                    }
                }
                let r = self.records::<SetLightRecord>(&bytes, groups.len())?;
                self.push(&C::SetLight(r))
            }
            Opcode::CreateVertexShader => {
                check_keys(&[])?;
                let mut bytes = Vec::new();
                for g in &groups {
                    let (mut decl, mut code) = (Vec::new(), Vec::new());
                    let d = desc::<Dp2CreateVertexShader>();
                    let (mut b, set) = fill_struct(&d, g, |k, v| {
                        if k.eq_ignore_ascii_case("decl") {
                            decl = parse_hex(v)?;
                        } else if k.eq_ignore_ascii_case("code") {
                            code = parse_hex(v)?;
                        } else {
                            return Ok(false);
                        }
                        Ok(true)
                    })?;
                    set_if_absent(&d, &mut b, &set, "dwDeclSize", decl.len())?;
                    set_if_absent(&d, &mut b, &set, "dwCodeSize", code.len())?;
                    bytes.extend_from_slice(&b);
                    bytes.extend_from_slice(&decl);
                    bytes.extend_from_slice(&code);
                }
                let r = self.records::<CreateVertexShaderRecord>(&bytes, groups.len())?;
                self.push(&C::CreateVertexShader(r))
            }
            Opcode::SetVertexShaderConst
            | Opcode::SetPixelShaderConst
            | Opcode::SetVertexShaderConstI
            | Opcode::SetPixelShaderConstI
            | Opcode::SetVertexShaderConstB
            | Opcode::SetPixelShaderConstB => {
                check_keys(&[])?;
                let (kind, per) = match op {
                    Opcode::SetVertexShaderConst | Opcode::SetPixelShaderConst => {
                        (ValueKind::Float, 4)
                    }
                    Opcode::SetVertexShaderConstI | Opcode::SetPixelShaderConstI => {
                        (ValueKind::Long, 4)
                    }
                    _ => (ValueKind::Bool, 1),
                };
                let mut bytes = Vec::new();
                for g in &groups {
                    let mut data = Vec::new();
                    let d = desc::<Dp2SetShaderConst>();
                    let (mut b, set) = fill_struct(&d, g, |k, v| {
                        if k.eq_ignore_ascii_case("data") {
                            data = parse_list(v, kind)?;
                            Ok(true)
                        } else {
                            Ok(false)
                        }
                    })?;
                    // per is 4 or 1.
                    let vectors = data.len().checked_div(per).unwrap_or_default();
                    set_if_absent(&d, &mut b, &set, "dwCount", vectors)?;
                    bytes.extend_from_slice(&b);
                    for x in data {
                        bytes.extend_from_slice(&x.to_le_bytes());
                    }
                }
                let n = groups.len();
                let cmd = match op {
                    Opcode::SetVertexShaderConst => {
                        C::SetVertexShaderConst(self.records(&bytes, n)?)
                    }
                    Opcode::SetPixelShaderConst => C::SetPixelShaderConst(self.records(&bytes, n)?),
                    Opcode::SetVertexShaderConstI => {
                        C::SetVertexShaderConstI(self.records(&bytes, n)?)
                    }
                    Opcode::SetPixelShaderConstI => {
                        C::SetPixelShaderConstI(self.records(&bytes, n)?)
                    }
                    Opcode::SetVertexShaderConstB => {
                        C::SetVertexShaderConstB(self.records(&bytes, n)?)
                    }
                    _ => C::SetPixelShaderConstB(self.records(&bytes, n)?),
                };
                self.push(&cmd)
            }
            Opcode::CreatePixelShader => {
                check_keys(&[])?;
                let bytes = code_groups::<Dp2CreatePixelShader>(&groups, "dwCodeSize")?;
                let r = self.records::<CreatePixelShaderRecord>(&bytes, groups.len())?;
                self.push(&C::CreatePixelShader(r))
            }
            Opcode::CreateVertexShaderFunc => {
                check_keys(&[])?;
                let bytes = code_groups::<Dp2CreateVertexShaderFunc>(&groups, "dwSize")?;
                let r = self.records::<CreateVertexShaderFuncRecord>(&bytes, groups.len())?;
                self.push(&C::CreateVertexShaderFunc(r))
            }
            Opcode::DrawRectPatch => {
                check_keys(&[])?;
                let bytes = patch_groups::<RectPatchSegments, D3dRectPatchInfo>(&groups)?;
                let r = self.records::<RectPatchRecord>(&bytes, groups.len())?;
                self.push(&C::DrawRectPatch(r))
            }
            Opcode::DrawTriPatch => {
                check_keys(&[])?;
                let bytes = patch_groups::<TriPatchSegments, D3dTriPatchInfo>(&groups)?;
                let r = self.records::<TriPatchRecord>(&bytes, groups.len())?;
                self.push(&C::DrawTriPatch(r))
            }
            Opcode::CreateVertexShaderDecl => {
                check_keys(&[])?;
                let mut bytes = Vec::new();
                for g in &groups {
                    let mut elems = Vec::new();
                    let d = desc::<Dp2CreateVertexShaderDecl>();
                    let (mut b, set) = fill_struct(&d, g, |k, v| {
                        if k.is_empty() {
                            elems.push(struct_from::<D3dVertexElement9>(group_items(v)?)?.0);
                            Ok(true)
                        } else {
                            Ok(false)
                        }
                    })?;
                    set_if_absent(&d, &mut b, &set, "dwNumVertexElements", elems.len())?;
                    bytes.extend_from_slice(&b);
                    bytes.extend_from_slice(elems.as_bytes());
                }
                let r = self.records::<VertexDeclRecord>(&bytes, groups.len())?;
                self.push(&C::CreateVertexShaderDecl(r))
            }
            Opcode::ResponseContinue => {
                check_keys(&["extra"])?;
                let extra = pair("extra")
                    .map(parse_hex)
                    .transpose()?
                    .unwrap_or_default();
                self.push(&C::ResponseContinue {
                    count: count.unwrap_or(0),
                    extra: &extra,
                })
            }
            Opcode::ResponseQuery => {
                check_keys(&[])?;
                let mut bytes = Vec::new();
                for g in &groups {
                    let mut data = Vec::new();
                    let d = desc::<Dp2ResponseQuery>();
                    let (mut b, set) = fill_struct(&d, g, |k, v| {
                        if k.eq_ignore_ascii_case("data") {
                            data = parse_hex(v)?;
                            Ok(true)
                        } else {
                            Ok(false)
                        }
                    })?;
                    set_if_absent(&d, &mut b, &set, "dwSize", data.len())?;
                    bytes.extend_from_slice(&b);
                    bytes.extend_from_slice(&data);
                }
                let r = self.records::<ResponseEntry>(&bytes, groups.len())?;
                self.push(&C::ResponseQuery(r))
            }
            Opcode::SetConvolutionKernelMono => {
                check_keys(&[])?;
                let mut bytes = Vec::new();
                for g in &groups {
                    let (mut row, mut col) = (None, None);
                    let d = desc::<Dp2SetConvolutionKernelMono>();
                    let (mut b, set) = fill_struct(&d, g, |k, v| {
                        if k.eq_ignore_ascii_case("row") {
                            row = Some(parse_list(v, ValueKind::Float)?);
                        } else if k.eq_ignore_ascii_case("col") {
                            col = Some(parse_list(v, ValueKind::Float)?);
                        } else {
                            return Ok(false);
                        }
                        Ok(true)
                    })?;
                    let flags = (if row.is_some() { ROW_WEIGHTS } else { 0 })
                        | (if col.is_some() { COL_WEIGHTS } else { 0 });
                    set_if_absent(&d, &mut b, &set, "dwFlags", flags as usize)?;
                    if let Some(r) = &row {
                        set_if_absent(&d, &mut b, &set, "dwWidth", r.len())?;
                    }
                    if let Some(c) = &col {
                        set_if_absent(&d, &mut b, &set, "dwHeight", c.len())?;
                    }
                    bytes.extend_from_slice(&b);
                    for w in row.iter().chain(col.iter()).flatten() {
                        bytes.extend_from_slice(&w.to_le_bytes());
                    }
                }
                let r = self.records::<ConvolutionKernelRecord>(&bytes, groups.len())?;
                self.push(&C::SetConvolutionKernelMono(r))
            }
            other => Err(format!("{} cannot be assembled", other.name())),
        }
    }

    fn records<'a, R: VarRecord<'a>>(
        &self,
        bytes: &'a [u8],
        n: usize,
    ) -> Result<Records<'a, R>, String> {
        let n = u16::try_from(n).map_err(|_| "more than 65535 records")?;
        Records::from_bytes(bytes, n)
            .ok_or_else(|| "record sizes disagree with the data given".to_string())
    }
}

fn code_groups<H: CodeHead>(groups: &[&[Item]], size_field: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    for g in groups {
        let mut code = Vec::new();
        let d = desc::<H>();
        let (mut b, set) = fill_struct(&d, g, |k, v| {
            if k.eq_ignore_ascii_case("code") {
                code = parse_hex(v)?;
                Ok(true)
            } else {
                Ok(false)
            }
        })?;
        set_if_absent(&d, &mut b, &set, size_field, code.len())?;
        bytes.extend_from_slice(&b);
        bytes.extend_from_slice(&code);
    }
    Ok(bytes)
}

fn patch_groups<S: Dp2Struct, I: Dp2Struct>(groups: &[&[Item]]) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    for g in groups {
        let (mut segs, mut info) = (None, None);
        let d = desc::<Dp2DrawPatch>();
        let (mut b, set) = fill_struct(&d, g, |k, v| {
            if k.eq_ignore_ascii_case("segs") {
                segs = Some(fill_struct(&desc::<S>(), group_items(v)?, |_, _| Ok(false))?.0);
            } else if k.eq_ignore_ascii_case("info") {
                info = Some(fill_struct(&desc::<I>(), group_items(v)?, |_, _| Ok(false))?.0);
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        let flags = (if segs.is_some() {
            RTPATCHFLAG_HASSEGS
        } else {
            0
        }) | (if info.is_some() {
            RTPATCHFLAG_HASINFO
        } else {
            0
        });
        set_if_absent(&d, &mut b, &set, "Flags", flags as usize)?;
        bytes.extend_from_slice(&b);
        for part in [segs, info].into_iter().flatten() {
            bytes.extend_from_slice(&part);
        }
    }
    Ok(bytes)
}
