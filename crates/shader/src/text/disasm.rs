//! IR → Direct3D shader assembly.
//!
//! - In: a [`Shader`].
//! - Out: one line per instruction after the version line, in the syntax
//!   of the Direct3D 9 assembly reference (`dcl_position v0`,
//!   `texld r0, t0, s0`, `mov_sat r0.xyz, -r1.yzxw`, `c9[a0.x]`,
//!   `(p0.x) add r0, r1, r2`, `+mul r0.a, …`).
//! - Guarantees: total (any IR prints); every field of the IR is visible in
//!   the text, so [`crate::text::assemble`] gives the same IR back.

use core::fmt::Write;

use crate::ir::{
    misctype, rastout, Control, Dst, Instruction, Operands, Profile, Register, RegisterType,
    RelAddr, SamplerType, Semantic, Shader, Src, SrcModifier, Swizzle, Usage,
};

/// Disassembles `shader` (a version line, then one line per instruction,
/// each ending in a newline).
pub fn disassemble(shader: &Shader) -> String {
    let mut out = String::new();
    out.push_str(shader.profile.name());
    out.push('\n');
    for ins in &shader.instructions {
        instruction(&mut out, shader.profile, ins);
        out.push('\n');
    }
    out
}

/// The name of a register as `profile` spells it (`r0`, `oPos`, `t3`, `aL`).
pub fn register_name(profile: Profile, reg: Register) -> String {
    use RegisterType as R;
    let n = reg.index;
    let fixed = |name: &str, index: u16| {
        if n == index {
            name.to_string()
        } else {
            format!("{name}{n}")
        }
    };
    match reg.ty {
        R::Temp => format!("r{n}"),
        R::Input => format!("v{n}"),
        R::Const => format!("c{n}"),
        R::Addr if profile.is_vertex() => format!("a{n}"),
        R::Addr => format!("t{n}"),
        R::RastOut => match n {
            rastout::POSITION => "oPos".into(),
            rastout::FOG => "oFog".into(),
            rastout::POINT_SIZE => "oPts".into(),
            _ => format!("oRast{n}"),
        },
        R::AttrOut => format!("oD{n}"),
        R::TexCrdOut if profile == Profile::Vs3_0 => format!("o{n}"),
        R::TexCrdOut => format!("oT{n}"),
        R::ConstInt => format!("i{n}"),
        R::ColorOut => format!("oC{n}"),
        R::DepthOut => fixed("oDepth", 0),
        R::Sampler => format!("s{n}"),
        R::Const2 => format!("c{}", u32::from(n).saturating_add(2048)),
        R::Const3 => format!("c{}", u32::from(n).saturating_add(4096)),
        R::Const4 => format!("c{}", u32::from(n).saturating_add(6144)),
        R::ConstBool => format!("b{n}"),
        R::Loop => fixed("aL", 0),
        R::TempFloat16 => format!("h{n}"),
        R::MiscType => match n {
            misctype::POSITION => "vPos".into(),
            misctype::FACE => "vFace".into(),
            _ => format!("vMisc{n}"),
        },
        R::Label => format!("l{n}"),
        R::Predicate => format!("p{n}"),
    }
}

const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];

/// `.x`, `.xyz`, `.yzxw` …; empty for the identity. The shortest form
/// whose last component, repeated, fills the four channels.
fn swizzle_text(s: Swizzle) -> String {
    if s == Swizzle::IDENTITY {
        return String::new();
    }
    let c: Vec<u8> = (0..4).map(|i| s.component(i)).collect();
    let mut n = 4usize;
    while n > 1 && c.get(n.saturating_sub(2)) == c.get(n.saturating_sub(1)) {
        n = n.saturating_sub(1);
    }
    let mut out = String::from(".");
    for k in c.iter().take(n) {
        out.push(COMPONENTS.get(usize::from(*k)).copied().unwrap_or('x'));
    }
    out
}

fn mask_text(mask: u8) -> String {
    if mask == 0xF {
        return String::new();
    }
    let mut out = String::from(".");
    for (i, c) in COMPONENTS.iter().enumerate() {
        if mask & (1 << i) != 0 {
            out.push(*c);
        }
    }
    out
}

fn relative_text(profile: Profile, rel: &Option<RelAddr>) -> String {
    match rel {
        Some(r) => format!(
            "[{}{}]",
            register_name(profile, r.reg),
            swizzle_text(r.swizzle)
        ),
        None => String::new(),
    }
}

fn dst_text(profile: Profile, d: &Dst) -> String {
    format!(
        "{}{}{}",
        register_name(profile, d.reg),
        relative_text(profile, &d.relative),
        mask_text(d.write_mask)
    )
}

fn src_text(profile: Profile, s: &Src) -> String {
    use SrcModifier as M;
    let prefix = match s.modifier {
        M::Neg | M::BiasNeg | M::SignNeg | M::X2Neg | M::AbsNeg => "-",
        M::Comp => "1-",
        M::Not => "!",
        _ => "",
    };
    let suffix = match s.modifier {
        M::Bias | M::BiasNeg => "_bias",
        M::Sign | M::SignNeg => "_bx2",
        M::X2 | M::X2Neg => "_x2",
        M::Dz => "_dz",
        M::Dw => "_dw",
        M::Abs | M::AbsNeg => "_abs",
        _ => "",
    };
    format!(
        "{prefix}{}{}{suffix}{}",
        register_name(profile, s.reg),
        relative_text(profile, &s.relative),
        swizzle_text(s.swizzle)
    )
}

fn dst_modifier_text(out: &mut String, d: &Dst) {
    out.push_str(match d.shift {
        1 => "_x2",
        2 => "_x4",
        3 => "_x8",
        -1 => "_d2",
        -2 => "_d4",
        -3 => "_d8",
        _ => "",
    });
    if d.modifiers.saturate {
        out.push_str("_sat");
    }
    if d.modifiers.partial_precision {
        out.push_str("_pp");
    }
    if d.modifiers.centroid {
        out.push_str("_centroid");
    }
}

/// The `dcl` suffix: `_position`, `_texcoord1`, `_2d`, or nothing.
fn semantic_text(profile: Profile, semantic: &Semantic, dst: &Dst) -> String {
    match semantic {
        Semantic::Sampler(t) => match t {
            SamplerType::Unknown => String::new(),
            SamplerType::Tex1D => "_1d".into(),
            SamplerType::Tex2D => "_2d".into(),
            SamplerType::Cube => "_cube".into(),
            SamplerType::Volume => "_volume".into(),
        },
        Semantic::Usage { usage, index } => {
            let plain_version = (!profile.is_vertex() && profile != Profile::Ps3_0)
                || dst.reg.ty == RegisterType::MiscType;
            if plain_version && *usage == Usage::Position && *index == 0 {
                String::new()
            } else if *index == 0 {
                format!("_{}", usage.name())
            } else {
                format!("_{}{index}", usage.name())
            }
        }
    }
}

fn float_text(bits: u32) -> String {
    format!("{:?}", f32::from_bits(bits))
}

fn instruction(out: &mut String, p: Profile, ins: &Instruction) {
    if ins.coissue {
        out.push('+');
    }
    if let Some(pred) = &ins.predicate {
        let _ = write!(out, "({}) ", src_text(p, pred));
    }
    match &ins.operands {
        Operands::Dcl { semantic, dst } => {
            out.push_str("dcl");
            out.push_str(&semantic_text(p, semantic, dst));
            dst_modifier_text(out, dst);
            let _ = write!(out, " {}", dst_text(p, dst));
        }
        Operands::Def { dst, values } => {
            let _ = write!(out, "def {}", dst_text(p, dst));
            for v in values {
                let _ = write!(out, ", {}", float_text(*v));
            }
        }
        Operands::DefI { dst, values } => {
            let _ = write!(out, "defi {}", dst_text(p, dst));
            for v in values {
                let _ = write!(out, ", {v}");
            }
        }
        Operands::DefB { dst, value } => {
            let v = match value {
                0 => "false".to_string(),
                1 => "true".to_string(),
                v => v.to_string(),
            };
            let _ = write!(out, "defb {}, {v}", dst_text(p, dst));
        }
        Operands::Op { dst, src } => {
            match ins.control {
                Control::Project => out.push_str("texldp"),
                Control::Bias => out.push_str("texldb"),
                _ => out.push_str(ins.opcode.mnemonic_in(p)),
            }
            if let Control::Comparison(c) = ins.control {
                let _ = write!(out, "_{}", c.name());
            }
            if let Some(d) = dst {
                dst_modifier_text(out, d);
            }
            let mut first = true;
            let mut sep = |out: &mut String| {
                out.push_str(if first { " " } else { ", " });
                first = false;
            };
            if let Some(d) = dst {
                sep(out);
                out.push_str(&dst_text(p, d));
            }
            for s in src {
                sep(out);
                out.push_str(&src_text(p, s));
            }
        }
    }
}
