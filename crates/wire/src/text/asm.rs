//! Parsing: DP2 assembly source → command bytes.
//!
//! In: untrusted source text, one command or directive per line (lines
//! split into items by [`super::lexer`]). Out: the DP2 stream, built with
//! the [`Encoder`], or an [`AsmError`] naming the 1-based line. Guarantees:
//! never panics; refuses what it would otherwise ignore (unknown fields,
//! values that do not fit, counts that disagree with the records); derives
//! sizes and counts the text leaves out (`docs/dp2-assembly.md` §6).

use super::desc::{desc, field_kind, fixed_record, StructDesc};
use super::lexer::{self, Item, Val};
use crate::command::*;
use crate::ddi_enum::ValueKind;
use crate::decode::DecodeOptions;
use crate::encode::Encoder;
use crate::names;
use crate::structs::*;
use crate::Opcode;
use zerocopy::{FromBytes, IntoBytes};

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
    super::parse_hex_word(w)
}

/// The message of an `asm{` block that does not assemble: its line when
/// the error is one of syntax.
fn block_error(e: softhal_shader::ShaderError, content: &str) -> String {
    match &e.kind {
        softhal_shader::ErrorKind::Syntax { line, what } => {
            format!("{}{{ block, its line {line}: {what}", lexer::SHADER_BLOCK)
        }
        _ => format!("{content}: {e}"),
    }
}

/// Parses shader code: a `hex:` blob, or an `asm{ ... }` block of Direct3D
/// shader assembly, assembled to its tokens (not validated: the driver
/// decides whether it accepts the shader).
fn parse_code(v: &Val) -> Result<Vec<u8>, String> {
    match v {
        Val::Text(t) => {
            let shader = softhal_shader::text::assemble(t).map_err(|e| block_error(e, "shader"))?;
            Ok(shader
                .to_tokens()
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect())
        }
        _ => parse_hex(v),
    }
}

/// Parses a DX8 declaration (CREATEVERTEXSHADER's `decl=`): a `hex:` blob,
/// or an `asm{ ... }` block of `D3DVSD_*` macros, one token per line
/// (`softhal_shader::decl8`), turned into its tokens.
fn parse_decl(v: &Val) -> Result<Vec<u8>, String> {
    match v {
        Val::Text(t) => {
            let d =
                softhal_shader::decl8::assemble(t).map_err(|e| block_error(e, "declaration"))?;
            Ok(d.to_tokens().iter().flat_map(|w| w.to_le_bytes()).collect())
        }
        _ => parse_hex(v),
    }
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
    for (line_no, line) in lexer::logical_lines(src) {
        let err = |message: String| AsmError {
            line: line_no,
            message,
        };
        let Some((mnemonic, items)) = lexer::parse_line(&line).map_err(err)? else {
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
                            decl = parse_decl(v)?;
                        } else if k.eq_ignore_ascii_case("code") {
                            code = parse_code(v)?;
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
                code = parse_code(v)?;
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
