//! Direct3D shader assembly → IR.
//!
//! - In: untrusted text: a version line (`vs_2_0`; DX8's `vs.1.1` too),
//!   then one instruction per line; `;` and `//` start comments.
//! - Out: a [`Shader`] (not validated) with each instruction's DWORD offset
//!   as its token stream will have it, or a `syntax` [`ShaderError`] with
//!   the 1-based line.
//! - Guarantees: never panics; allocates in proportion to the text. Accepts
//!   every form [`crate::text::disassemble`] prints, plus the usual
//!   alternatives of hand-written shaders: `rgba` components, `c[a0.x + 9]`,
//!   `dcl_position0`, upper- or lower-case register names.

use crate::error::{ErrorKind, ShaderError};
use crate::ir::{
    misctype, rastout, Comparison, Control, Dst, DstModifiers, Form, Instruction, Opcode, Operands,
    Profile, Register, RegisterType, RelAddr, SamplerType, Semantic, Shader, Src, SrcModifier,
    Swizzle, Usage,
};

type R<T> = Result<T, String>;

/// Assembles Direct3D shader assembly into the IR.
pub fn assemble(text: &str) -> Result<Shader, ShaderError> {
    let mut profile = None;
    let mut instructions = Vec::new();
    let mut offset = 1usize;
    for (n, raw) in text.lines().enumerate() {
        let line_no = n.saturating_add(1);
        let line = strip_comment(raw).trim();
        if line.is_empty() {
            continue;
        }
        let syntax = |what: String| {
            ShaderError::new(
                ErrorKind::Syntax {
                    line: line_no,
                    what,
                },
                0,
            )
        };
        match profile {
            None => {
                let name = line.replace('.', "_");
                profile = Some(
                    Profile::from_name(&name)
                        .ok_or_else(|| syntax(format!("unknown version `{line}`")))?,
                );
            }
            Some(p) => {
                let mut ins = instruction(p, line).map_err(syntax)?;
                ins.offset = offset;
                offset = offset.saturating_add(ins.token_len());
                instructions.push(ins);
            }
        }
    }
    let Some(profile) = profile else {
        return Err(ShaderError::new(
            ErrorKind::Syntax {
                line: 1,
                what: "no version line".into(),
            },
            0,
        ));
    };
    Ok(Shader {
        profile,
        instructions,
    })
}

/// `line` up to its comment (`;` or `//`); also the declaration text's rule.
pub(crate) fn strip_comment(line: &str) -> &str {
    let cut = [line.find(';'), line.find("//")]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(line.len());
    line.get(..cut).unwrap_or(line)
}

fn instruction(p: Profile, line: &str) -> R<Instruction> {
    let mut rest = line;
    let mut coissue = false;
    if let Some(r) = rest.strip_prefix('+') {
        coissue = true;
        rest = r.trim_start();
    }
    let mut predicate = None;
    if let Some(r) = rest.strip_prefix('(') {
        let close = r.find(')').ok_or("unclosed predicate")?;
        predicate = Some(src(p, r.get(..close).unwrap_or(""))?);
        rest = r.get(close.saturating_add(1)..).unwrap_or("").trim_start();
    }
    let (mnemonic, operands) = match rest.find(char::is_whitespace) {
        Some(i) => (
            rest.get(..i).unwrap_or(""),
            rest.get(i..).unwrap_or("").trim(),
        ),
        None => (rest, ""),
    };
    let mnemonic = mnemonic.to_ascii_lowercase();
    let ops: Vec<&str> = if operands.is_empty() {
        Vec::new()
    } else {
        operands.split(',').map(str::trim).collect()
    };
    let mut parts = mnemonic.split('_');
    let base = parts.next().unwrap_or("");
    let suffixes: Vec<&str> = parts.collect();
    let mut ins = match base {
        "dcl" => dcl(p, &suffixes, &ops)?,
        "def" | "defi" | "defb" => def(p, base, &suffixes, &ops)?,
        _ => op(p, base, &suffixes, &ops)?,
    };
    ins.coissue = coissue;
    if predicate.is_some() && ins.opcode.is_declaration() {
        return Err("predicated declaration".into());
    }
    ins.predicate = predicate;
    Ok(ins)
}

fn one<'a>(ops: &[&'a str], n: usize) -> R<&'a str> {
    if ops.len() != n {
        return Err(format!("expected {n} operands, found {}", ops.len()));
    }
    ops.first().copied().ok_or_else(|| "missing operand".into())
}

fn dcl(p: Profile, suffixes: &[&str], ops: &[&str]) -> R<Instruction> {
    if !Opcode::Dcl.allowed_in(p) {
        return Err(format!("`dcl` is not part of {p}"));
    }
    let mut d = dst(p, one(ops, 1)?)?;
    let mut usage = None;
    let mut sampler = None;
    for s in suffixes {
        match *s {
            "pp" => d.modifiers.partial_precision = true,
            "centroid" => d.modifiers.centroid = true,
            "1d" => sampler = Some(SamplerType::Tex1D),
            "2d" => sampler = Some(SamplerType::Tex2D),
            "cube" => sampler = Some(SamplerType::Cube),
            "volume" => sampler = Some(SamplerType::Volume),
            other => {
                let digits = other.trim_start_matches(|c: char| c.is_ascii_alphabetic());
                let name = other
                    .get(..other.len().saturating_sub(digits.len()))
                    .unwrap_or("");
                let u = Usage::ALL
                    .into_iter()
                    .find(|u| u.name() == name)
                    .ok_or_else(|| format!("unknown dcl suffix `{other}`"))?;
                let index = if digits.is_empty() {
                    0
                } else {
                    digits
                        .parse::<u8>()
                        .ok()
                        .filter(|i| *i < 16)
                        .ok_or_else(|| format!("bad usage index `{digits}`"))?
                };
                usage = Some((u, index));
            }
        }
    }
    let semantic = if d.reg.ty == RegisterType::Sampler {
        if usage.is_some() {
            return Err("usage on a sampler".into());
        }
        Semantic::Sampler(sampler.unwrap_or(SamplerType::Unknown))
    } else {
        if sampler.is_some() {
            return Err("texture type on a register that is not a sampler".into());
        }
        let (usage, index) = usage.unwrap_or((Usage::Position, 0));
        Semantic::Usage { usage, index }
    };
    Ok(Instruction::new(
        Opcode::Dcl,
        Control::None,
        Operands::Dcl { semantic, dst: d },
    ))
}

fn def(p: Profile, base: &str, suffixes: &[&str], ops: &[&str]) -> R<Instruction> {
    if !suffixes.is_empty() {
        return Err(format!("`{base}` takes no modifiers"));
    }
    let first = ops.first().ok_or("missing operands")?;
    let d = dst(p, first)?;
    let values = ops.get(1..).unwrap_or(&[]);
    let (opcode, operands) = match base {
        "def" => {
            let v = four(values, |s| {
                s.parse::<f32>()
                    .map(f32::to_bits)
                    .map_err(|_| format!("bad float `{s}`"))
            })?;
            (Opcode::Def, Operands::Def { dst: d, values: v })
        }
        "defi" => {
            let v = four(values, |s| {
                s.parse::<i32>().map_err(|_| format!("bad integer `{s}`"))
            })?;
            (Opcode::DefI, Operands::DefI { dst: d, values: v })
        }
        _ => {
            let [v] = values else {
                return Err("defb takes one value".into());
            };
            let value = match v.to_ascii_lowercase().as_str() {
                "true" => 1,
                "false" => 0,
                s => s.parse::<u32>().map_err(|_| format!("bad BOOL `{s}`"))?,
            };
            (Opcode::DefB, Operands::DefB { dst: d, value })
        }
    };
    if !opcode.allowed_in(p) {
        return Err(format!("`{base}` is not part of {p}"));
    }
    Ok(Instruction::new(opcode, Control::None, operands))
}

fn four<T: Copy>(values: &[&str], parse: impl Fn(&str) -> R<T>) -> R<[T; 4]> {
    let [a, b, c, d] = values else {
        return Err(format!("expected 4 values, found {}", values.len()));
    };
    Ok([parse(a)?, parse(b)?, parse(c)?, parse(d)?])
}

fn op(p: Profile, base: &str, suffixes: &[&str], ops: &[&str]) -> R<Instruction> {
    let mut comparison = None;
    let mut mods = DstModifiers::default();
    let mut shift = 0i8;
    for s in suffixes {
        match *s {
            "sat" => mods.saturate = true,
            "pp" => mods.partial_precision = true,
            "centroid" => mods.centroid = true,
            "x2" => shift = 1,
            "x4" => shift = 2,
            "x8" => shift = 3,
            "d2" => shift = -1,
            "d4" => shift = -2,
            "d8" => shift = -3,
            other => {
                comparison = Some(
                    Comparison::ALL
                        .into_iter()
                        .find(|c| c.name() == other)
                        .ok_or_else(|| format!("unknown modifier `_{other}`"))?,
                );
            }
        }
    }
    let mut control = Control::None;
    let opcode = match base {
        "tex" | "texld" => Opcode::Tex,
        "texldp" => {
            control = Control::Project;
            Opcode::Tex
        }
        "texldb" => {
            control = Control::Bias;
            Opcode::Tex
        }
        "texcrd" | "texcoord" => Opcode::TexCoord,
        "if" if comparison.is_some() => Opcode::Ifc,
        "break" if comparison.is_some() => Opcode::BreakC,
        _ => Opcode::ALL
            .iter()
            .copied()
            .find(|o| o.mnemonic() == base && !matches!(o, Opcode::Ifc | Opcode::BreakC))
            .ok_or_else(|| format!("unknown instruction `{base}`"))?,
    };
    if let Some(c) = comparison {
        if !opcode.has_comparison() {
            return Err(format!("`{base}` takes no comparison"));
        }
        control = Control::Comparison(c);
    } else if opcode.has_comparison() {
        return Err(format!("`{base}` needs a comparison suffix"));
    }
    let Some(Form::Op { dst: has_dst, srcs }) = opcode.form(p) else {
        return Err(format!("`{base}` is not part of {p}"));
    };
    let want = usize::from(srcs).saturating_add(usize::from(has_dst));
    if ops.len() != want {
        return Err(format!(
            "`{base}` takes {want} operands, found {}",
            ops.len()
        ));
    }
    let mut it = ops.iter();
    let d = if has_dst {
        let mut d = dst(p, it.next().copied().unwrap_or(""))?;
        d.modifiers = mods;
        d.shift = shift;
        Some(d)
    } else {
        if mods != DstModifiers::default() || shift != 0 {
            return Err("result modifier on an instruction without a destination".into());
        }
        None
    };
    let src: Vec<Src> = it.map(|s| src(p, s)).collect::<R<_>>()?;
    Ok(Instruction::new(
        opcode,
        control,
        Operands::Op { dst: d, src },
    ))
}

/// Splits `text` into a register and what follows it.
fn register(p: Profile, text: &str) -> R<(Register, &str)> {
    use RegisterType as T;
    let lower = text.to_ascii_lowercase();
    let fixed: [(&str, T, u16); 7] = [
        ("odepth", T::DepthOut, 0),
        ("opos", T::RastOut, rastout::POSITION),
        ("ofog", T::RastOut, rastout::FOG),
        ("opts", T::RastOut, rastout::POINT_SIZE),
        ("vpos", T::MiscType, misctype::POSITION),
        ("vface", T::MiscType, misctype::FACE),
        ("al", T::Loop, 0),
    ];
    for (name, ty, index) in fixed {
        if lower.starts_with(name)
            && !lower
                .get(name.len()..)
                .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_alphanumeric()))
        {
            let rest = text.get(name.len()..).unwrap_or("");
            return Ok((Register { ty, index }, rest));
        }
    }
    let prefixes: [(&str, T); 15] = [
        ("oc", T::ColorOut),
        ("od", T::AttrOut),
        ("ot", T::TexCrdOut),
        ("o", T::TexCrdOut),
        ("r", T::Temp),
        ("v", T::Input),
        ("c", T::Const),
        ("a", T::Addr),
        ("t", T::Addr),
        ("i", T::ConstInt),
        ("b", T::ConstBool),
        ("s", T::Sampler),
        ("l", T::Label),
        ("p", T::Predicate),
        ("h", T::TempFloat16),
    ];
    for (name, ty) in prefixes {
        let Some(after) = lower.strip_prefix(name) else {
            continue;
        };
        let digits_len = after.chars().take_while(char::is_ascii_digit).count();
        if name == "o" && p != Profile::Vs3_0 {
            continue;
        }
        if (name == "a" && !p.is_vertex()) || (name == "t" && p.is_vertex()) {
            continue;
        }
        if name == "ot" && p == Profile::Vs3_0 {
            continue;
        }
        let rest = text
            .get(name.len().saturating_add(digits_len)..)
            .unwrap_or("");
        if digits_len == 0 {
            if matches!(name, "c" | "v" | "o") && rest.starts_with('[') {
                return Ok((Register { ty, index: 0 }, rest));
            }
            continue;
        }
        let digits = after.get(..digits_len).unwrap_or("");
        let n: u32 = digits
            .parse()
            .map_err(|_| format!("bad register number `{digits}`"))?;
        let (ty, n) = match (ty, n) {
            (T::Const, 2048..=4095) => (T::Const2, n.saturating_sub(2048)),
            (T::Const, 4096..=6143) => (T::Const3, n.saturating_sub(4096)),
            (T::Const, 6144..=8191) => (T::Const4, n.saturating_sub(6144)),
            _ => (ty, n),
        };
        let index = u16::try_from(n)
            .ok()
            .filter(|i| *i < 2048)
            .ok_or_else(|| format!("register number {n} out of range"))?;
        return Ok((Register { ty, index }, rest));
    }
    Err(format!("unknown register `{text}`"))
}

fn component(c: char) -> Option<u8> {
    match c {
        'x' | 'r' => Some(0),
        'y' | 'g' => Some(1),
        'z' | 'b' => Some(2),
        'w' | 'a' => Some(3),
        _ => None,
    }
}

fn swizzle(text: &str) -> R<Swizzle> {
    let comps: Vec<u8> = text
        .chars()
        .map(|c| component(c.to_ascii_lowercase()).ok_or_else(|| format!("bad swizzle `{text}`")))
        .collect::<R<_>>()?;
    if comps.is_empty() || comps.len() > 4 {
        return Err(format!("bad swizzle `{text}`"));
    }
    let last = comps.last().copied().unwrap_or(0);
    let mut s = 0u8;
    for i in 0..4u8 {
        let c = comps.get(usize::from(i)).copied().unwrap_or(last);
        s |= c << (i << 1);
    }
    Ok(Swizzle(s))
}

fn write_mask(text: &str) -> R<u8> {
    let mut mask = 0u8;
    let mut last: Option<u8> = None;
    for ch in text.chars() {
        let c =
            component(ch.to_ascii_lowercase()).ok_or_else(|| format!("bad write mask `{text}`"))?;
        if last.is_some_and(|l| c <= l) {
            return Err(format!("write mask `{text}` out of order"));
        }
        last = Some(c);
        mask |= 1 << c;
    }
    if mask == 0 {
        return Err("empty write mask".into());
    }
    Ok(mask)
}

/// Parses `[a0.x]`, `[aL]`, `[a0.x + 9]` after a register; returns the
/// address, the constant added to the index, and the rest.
fn relative(p: Profile, text: &str) -> R<(Option<RelAddr>, u32, &str)> {
    let Some(inner) = text.strip_prefix('[') else {
        return Ok((None, 0, text));
    };
    let close = inner.find(']').ok_or("unclosed `[`")?;
    let body = inner.get(..close).unwrap_or("");
    let rest = inner.get(close.saturating_add(1)..).unwrap_or("");
    let mut addr_text = None;
    let mut add = 0u32;
    for term in body.split('+').map(str::trim) {
        if term.starts_with(|c: char| c.is_ascii_digit()) {
            add = add.saturating_add(
                term.parse::<u32>()
                    .map_err(|_| format!("bad offset `{term}`"))?,
            );
        } else if addr_text.replace(term).is_some() {
            return Err("two address registers".into());
        }
    }
    let addr_text = addr_text.ok_or("no address register")?;
    let (reg, after) = register(p, addr_text)?;
    let sw = match after.strip_prefix('.') {
        Some(s) => swizzle(s)?,
        None if after.is_empty() => Swizzle::IDENTITY,
        None => return Err(format!("bad address `{addr_text}`")),
    };
    let implicit = p.is_sm1();
    if implicit && (reg.ty != RegisterType::Addr || reg.index != 0 || sw != Swizzle::replicate(0)) {
        return Err("shader model 1 addresses only a0.x".into());
    }
    Ok((
        Some(RelAddr {
            reg,
            swizzle: sw,
            implicit,
        }),
        add,
        rest,
    ))
}

fn with_offset(reg: Register, add: u32) -> R<Register> {
    let index = u32::from(reg.index).saturating_add(add);
    let index = u16::try_from(index)
        .ok()
        .filter(|i| *i < 2048)
        .ok_or("register number out of range")?;
    Ok(Register { index, ..reg })
}

fn dst(p: Profile, text: &str) -> R<Dst> {
    let text = text.trim();
    let (reg, rest) = register(p, text)?;
    let (rel, add, rest) = relative(p, rest)?;
    let write_mask = match rest.strip_prefix('.') {
        Some(m) => write_mask(m)?,
        None if rest.is_empty() => 0xF,
        None => return Err(format!("unexpected `{rest}` after a destination")),
    };
    Ok(Dst {
        reg: with_offset(reg, add)?,
        write_mask,
        modifiers: DstModifiers::default(),
        shift: 0,
        relative: rel,
    })
}

fn src(p: Profile, text: &str) -> R<Src> {
    let mut t = text.trim();
    let mut neg = false;
    let mut comp = false;
    let mut not = false;
    if let Some(r) = t.strip_prefix('-') {
        neg = true;
        t = r.trim_start();
    } else if let Some(r) = t.strip_prefix('!') {
        not = true;
        t = r.trim_start();
    } else if let Some(r) = t.strip_prefix('1') {
        let r = r.trim_start();
        if let Some(r) = r.strip_prefix('-') {
            comp = true;
            t = r.trim_start();
        }
    }
    let (reg, rest) = register(p, t)?;
    let (rel, add, mut rest) = relative(p, rest)?;
    let mut suffix = "";
    for s in ["_bias", "_bx2", "_x2", "_dz", "_db", "_dw", "_da", "_abs"] {
        if let Some(r) = rest.strip_prefix(s) {
            suffix = s;
            rest = r;
            break;
        }
    }
    let sw = match rest.strip_prefix('.') {
        Some(s) => swizzle(s)?,
        None if rest.is_empty() => Swizzle::IDENTITY,
        None => return Err(format!("unexpected `{rest}` after a source")),
    };
    use SrcModifier as M;
    let modifier = match (neg, comp, not, suffix) {
        (false, false, false, "") => M::None,
        (true, false, false, "") => M::Neg,
        (false, true, false, "") => M::Comp,
        (false, false, true, "") => M::Not,
        (false, false, false, "_bias") => M::Bias,
        (true, false, false, "_bias") => M::BiasNeg,
        (false, false, false, "_bx2") => M::Sign,
        (true, false, false, "_bx2") => M::SignNeg,
        (false, false, false, "_x2") => M::X2,
        (true, false, false, "_x2") => M::X2Neg,
        (false, false, false, "_dz" | "_db") => M::Dz,
        (false, false, false, "_dw" | "_da") => M::Dw,
        (false, false, false, "_abs") => M::Abs,
        (true, false, false, "_abs") => M::AbsNeg,
        _ => return Err(format!("bad source modifiers in `{text}`")),
    };
    Ok(Src {
        reg: with_offset(reg, add)?,
        swizzle: sw,
        modifier,
        relative: rel,
    })
}
