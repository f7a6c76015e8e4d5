//! # What a pixel shader computes, when it is a fixed-function shape
//!
//! Many pixel shaders compute exactly what the first fixed-function
//! texture stage computes: a DirectX 9 port of fixed-function content, an
//! HLSL `return input.color;` (`ps_2_0 / dcl v0 / mov oC0, v0`) or
//! `return tex2D(s, uv) * input.color;`. This module recognises them, so
//! that a renderer may draw them with its fixed-function kernels
//! (llvmpipe's `lp_fs_kind` analysis; `docs/shaders.md` §13b).
//!
//! - In: a validated pixel shader ([`Validated`]).
//! - Out: its [`PixelKind`], a small `Copy + Eq + Hash` key, when the
//!   program computes one of the shapes the kind names, or `None` (most
//!   programs; every vertex shader and every ps_3_0 program).
//! - Guarantees: a kind is returned only when, for every input, the
//!   program's colour output (`oC0`, `r0` in ps_1_x) is exactly the value
//!   the kind describes, component by component: the analysis evaluates
//!   the program symbolically, one value per register component, and gives
//!   up at the first instruction, register, modifier or swizzle it does not
//!   model exactly. It reads each instruction once, allocates at most one
//!   entry per register written, and never panics.
//!
//! What the kinds leave to the caller (the state a renderer must match to
//! draw a kind with fixed function, `pipeline::program::matched`): the
//! colour registers `v0`/`v1` hold the diffuse and specular colours in
//! [0, 1]; `t#` holds texture-coordinate set #; the output is saturated to
//! [0, 1] before it is written (`docs/shaders.md` §13).

use crate::ir::{Control, Opcode, Profile, Register, RegisterType, Src, SrcModifier, Swizzle};
use crate::valid::Validated;

/// A colour input register of ps_1_1–ps_2_x.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColorInput {
    /// `v0`: the interpolated diffuse colour (D3DTA_DIFFUSE).
    Diffuse,
    /// `v1`: the interpolated specular colour (D3DTA_SPECULAR).
    Specular,
}

/// What a pixel shader computes, when it is one of the fixed-function
/// shapes: all four components of the colour output, in order. Coordinate
/// sets and samplers are numbered as the program names them (`t#`, and
/// `s#` from ps_2_0 on; in ps_1_x the stage a texture instruction
/// samples).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PixelKind {
    /// The colour input, unchanged (`mov oC0, v0`; ps_1_x `mov r0, v0`):
    /// fixed-function stage 0 SELECTARG1(DIFFUSE or SPECULAR).
    Color(ColorInput),
    /// A texel (`texld r0, t#, s#` then `mov oC0, r0`; ps_1_1–1_3
    /// `tex t#` then `mov r0, t#`; ps_1_4 `texld r#, t#` then `mov r0, r#`):
    /// stage 0 SELECTARG1(TEXTURE).
    Texture {
        /// The sampler (ps_1_x: the texture stage) sampled.
        sampler: u8,
        /// The texture-coordinate set `t#` it is sampled at.
        coords: u8,
    },
    /// A texel times the colour input, component by component (`texld r0,
    /// t#, s#`, `mul r0, r0, v0`, `mov oC0, r0`, in either operand order):
    /// stage 0 MODULATE(TEXTURE, DIFFUSE or SPECULAR).
    TextureModulateColor {
        /// The sampler (ps_1_x: the texture stage) sampled.
        sampler: u8,
        /// The texture-coordinate set `t#` it is sampled at.
        coords: u8,
        /// The colour it is multiplied by.
        color: ColorInput,
    },
}

/// More executed instructions than this: not one of the shapes (it keeps
/// the analysis short; the longest shape has three).
const MAX_INSTRUCTIONS: usize = 8;

/// A symbolic value: what one register component holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Term {
    /// A colour input.
    Color(ColorInput),
    /// Texture-coordinate set # (ps_1_4 and ps_2_x `t#`): only a texture
    /// instruction's coordinates.
    Coords(u8),
    /// A sample of `sampler` at coordinate set `coords`.
    Texel { sampler: u8, coords: u8 },
    /// Such a sample times a colour input.
    Modulated {
        sampler: u8,
        coords: u8,
        color: ColorInput,
    },
}

/// One register component: component `c` of `term`, saturated (`_sat`)
/// or not. A saturated value may be the output (which is saturated
/// anyway) but is read by no instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Component {
    term: Term,
    c: u8,
    saturated: bool,
}

/// The four components of a register; `None` where the value is not one
/// the analysis models.
type Value = [Option<Component>; 4];

/// Every component of `term`, in order.
fn whole(term: Term) -> Value {
    [0u8, 1, 2, 3].map(|c| {
        Some(Component {
            term,
            c,
            saturated: false,
        })
    })
}

/// The registers written so far.
struct Env {
    written: Vec<(Register, Value)>,
}

impl Env {
    fn get(&self, reg: Register) -> Value {
        self.written
            .iter()
            .find(|(r, _)| *r == reg)
            .map_or([None; 4], |(_, v)| *v)
    }

    /// Writes the components of `value` that `mask` names, saturated when
    /// `saturate` (a colour input is in [0, 1]: saturating it changes
    /// nothing).
    fn set(&mut self, reg: Register, mask: u8, saturate: bool, value: Value) {
        let idx = match self.written.iter().position(|(r, _)| *r == reg) {
            Some(i) => i,
            None => {
                self.written.push((reg, [None; 4]));
                self.written.len().saturating_sub(1)
            }
        };
        let Some((_, slot)) = self.written.get_mut(idx) else {
            return;
        };
        for (k, (s, v)) in slot.iter_mut().zip(value).enumerate() {
            if mask & (1 << k) != 0 {
                *s = v.map(|mut comp| {
                    comp.saturated |= saturate && !matches!(comp.term, Term::Color(_));
                    comp
                });
            }
        }
    }
}

/// The [`PixelKind`] of `shader`, or `None` when it is not one of the
/// shapes (see the module documentation).
pub fn pixel_kind(shader: &Validated) -> Option<PixelKind> {
    let profile = shader.profile();
    if profile.is_vertex() || profile == Profile::Ps3_0 {
        // ps_3_0 reads its inputs by semantic, unclamped after vs_3_0, and
        // has no fixed-function fog: not the fixed-function stage.
        return None;
    }
    let ps1_3 = matches!(profile, Profile::Ps1_1 | Profile::Ps1_2 | Profile::Ps1_3);
    let mut env = Env {
        written: Vec::new(),
    };
    let mut executed = 0usize;
    for ins in &shader.shader().instructions {
        if ins.opcode.is_declaration() || ins.opcode == Opcode::Nop {
            // `dcl` and `def*` execute nothing; no shape reads a constant.
            continue;
        }
        executed = executed.saturating_add(1);
        if executed > MAX_INSTRUCTIONS || ins.predicate.is_some() || ins.coissue {
            return None;
        }
        let dst = *ins.dst()?;
        let dst_ok = match dst.reg.ty {
            RegisterType::Temp => true,
            RegisterType::ColorOut => dst.reg.index == 0,
            // ps_1_1–1_3 `tex t#` loads a texture register.
            RegisterType::Addr => ps1_3 && ins.opcode == Opcode::Tex,
            _ => false,
        };
        if !dst_ok || dst.shift != 0 || dst.relative.is_some() {
            return None;
        }
        let src = ins.src();
        let read = |i: usize| src.get(i).and_then(|s| read(&env, profile, s));
        let value = match ins.opcode {
            Opcode::Mov => read(0)?,
            Opcode::Mul => {
                let (a, b) = (read(0)?, read(1)?);
                let mut v = [None; 4];
                for ((o, x), y) in v.iter_mut().zip(a).zip(b) {
                    *o = product(x, y);
                }
                v
            }
            Opcode::Tex => {
                let (sampler, coords) = sample(profile, ins.control, dst.reg, src, &env)?;
                whole(Term::Texel { sampler, coords })
            }
            _ => return None,
        };
        env.set(dst.reg, dst.write_mask, dst.modifiers.saturate, value);
    }
    let out = if profile.is_ps1() {
        Register {
            ty: RegisterType::Temp,
            index: 0,
        }
    } else {
        Register {
            ty: RegisterType::ColorOut,
            index: 0,
        }
    };
    // The output is saturated when it is written: a `_sat` on the
    // instruction that wrote it changes nothing.
    let value = env.get(out);
    let first = value[0]?;
    for (k, comp) in value.iter().enumerate() {
        let comp = (*comp)?;
        if comp.term != first.term || usize::from(comp.c) != k {
            return None;
        }
    }
    match first.term {
        Term::Color(c) => Some(PixelKind::Color(c)),
        Term::Texel { sampler, coords } => Some(PixelKind::Texture { sampler, coords }),
        Term::Modulated {
            sampler,
            coords,
            color,
        } => Some(PixelKind::TextureModulateColor {
            sampler,
            coords,
            color,
        }),
        Term::Coords(_) => None,
    }
}

/// The value `s` reads: no modifier, no relative address; the colour
/// inputs and (ps_1_4, ps_2_x) the coordinate registers as themselves,
/// temporaries (and ps_1_1–1_3 texture registers) as written; swizzled.
/// `None` for anything else, and for a saturated value that is not a
/// colour.
fn read(env: &Env, profile: Profile, s: &Src) -> Option<Value> {
    if s.modifier != SrcModifier::None || s.relative.is_some() {
        return None;
    }
    let ps1_3 = matches!(profile, Profile::Ps1_1 | Profile::Ps1_2 | Profile::Ps1_3);
    let base = match s.reg.ty {
        RegisterType::Input => whole(Term::Color(match s.reg.index {
            0 => ColorInput::Diffuse,
            1 => ColorInput::Specular,
            _ => return None,
        })),
        RegisterType::Addr if !ps1_3 => whole(Term::Coords(u8::try_from(s.reg.index).ok()?)),
        RegisterType::Temp | RegisterType::Addr => env.get(s.reg),
        _ => return None,
    };
    let mut out = [None; 4];
    for (k, o) in out.iter_mut().enumerate() {
        let comp = base
            .get(usize::from(s.swizzle.component(k as u8)))
            .copied()
            .flatten();
        *o = match comp {
            Some(c) if c.saturated => return None,
            c => c,
        };
    }
    Some(out)
}

/// Component `a` times component `b`: a texel times a colour input, the
/// same component of each (IEEE multiplication commutes, so either order).
fn product(a: Option<Component>, b: Option<Component>) -> Option<Component> {
    let (a, b) = (a?, b?);
    if a.c != b.c {
        return None;
    }
    let term = match (a.term, b.term) {
        (Term::Texel { sampler, coords }, Term::Color(color))
        | (Term::Color(color), Term::Texel { sampler, coords }) => Term::Modulated {
            sampler,
            coords,
            color,
        },
        _ => return None,
    };
    Some(Component {
        term,
        c: a.c,
        saturated: false,
    })
}

/// The (sampler, coordinate set) a texture instruction samples, when it
/// is a plain sample of one coordinate set: ps_1_1–1_3 `tex t#` (stage #,
/// set #), ps_1_4 `texld r#, t#` (stage = the destination's number), ps_2_x
/// `texld r#, t#, s#` (not `texldp`/`texldb`, the sampler unswizzled).
fn sample(
    profile: Profile,
    control: Control,
    dst: Register,
    src: &[Src],
    env: &Env,
) -> Option<(u8, u8)> {
    let stage = u8::try_from(dst.index).ok()?;
    let coords = |s: Option<&Src>| -> Option<u8> {
        let v = read(env, profile, s?)?;
        let mut set = None;
        for (k, comp) in v.iter().enumerate() {
            let comp = (*comp)?;
            match comp.term {
                Term::Coords(n) if usize::from(comp.c) == k && set.is_none_or(|s| s == n) => {
                    set = Some(n)
                }
                _ => return None,
            }
        }
        set
    };
    match profile {
        Profile::Ps1_1 | Profile::Ps1_2 | Profile::Ps1_3 => {
            src.is_empty().then_some((stage, stage))
        }
        Profile::Ps1_4 => Some((stage, coords(src.first())?)),
        _ => {
            let s = src.get(1)?;
            let plain_sampler = s.reg.ty == RegisterType::Sampler
                && s.swizzle == Swizzle::IDENTITY
                && s.modifier == SrcModifier::None
                && s.relative.is_none();
            if control != Control::None || !plain_sampler {
                return None;
            }
            Some((u8::try_from(s.reg.index).ok()?, coords(src.first())?))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kind of `text` (assembled and validated).
    fn kind(text: &str) -> Option<PixelKind> {
        let shader = crate::text::assemble(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        let v = crate::validate(shader).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        pixel_kind(&v)
    }

    const DIFFUSE: Option<PixelKind> = Some(PixelKind::Color(ColorInput::Diffuse));

    #[test]
    fn colour_as_each_version_spells_it() {
        assert_eq!(kind("ps_2_0\ndcl v0\nmov oC0, v0"), DIFFUSE);
        assert_eq!(kind("ps_2_x\ndcl v0\nmov oC0, v0"), DIFFUSE);
        assert_eq!(kind("ps_1_1\nmov r0, v0"), DIFFUSE);
        assert_eq!(kind("ps_1_3\nmov r0, v0"), DIFFUSE);
        assert_eq!(kind("ps_1_4\nmov r0, v0"), DIFFUSE);
        assert_eq!(
            kind("ps_2_0\ndcl v1\nmov oC0, v1"),
            Some(PixelKind::Color(ColorInput::Specular))
        );
        // Through a temporary, with _pp (the executors compute at full
        // precision either way), a dcl mask and a dead def.
        assert_eq!(
            kind("ps_2_0\ndef c3, 1, 2, 3, 4\ndcl v0.xyz\nmov_pp r1, v0\nmov oC0, r1"),
            DIFFUSE
        );
        // _sat on a colour input ([0, 1] already) or on the output
        // (saturated when written) changes nothing.
        assert_eq!(kind("ps_2_0\ndcl v0\nmov_sat oC0, v0"), DIFFUSE);
        // Written in two halves, every component in its place.
        assert_eq!(
            kind("ps_2_0\ndcl v0\nmov r0.xy, v0\nmov r0.zw, v0\nmov oC0, r0"),
            DIFFUSE
        );
        // The W7 workload's pixel shader.
        let w7 = crate::parse_and_validate(crate::corpus::W7_PS_TOKENS).expect("W7");
        assert_eq!(pixel_kind(&w7), DIFFUSE);
    }

    #[test]
    fn texture_as_each_version_spells_it() {
        let t = |sampler, coords| Some(PixelKind::Texture { sampler, coords });
        assert_eq!(
            kind("ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0"),
            t(0, 0)
        );
        assert_eq!(
            kind("ps_2_0\ndcl t3.xy\ndcl_2d s5\ntexld r2, t3, s5\nmov oC0, r2"),
            t(5, 3)
        );
        // ps_2_0 lets texld write oC0 directly.
        assert_eq!(
            kind("ps_2_0\ndcl t0\ndcl_2d s0\ntexld oC0, t0, s0"),
            t(0, 0)
        );
        assert_eq!(kind("ps_1_1\ntex t0\nmov r0, t0"), t(0, 0));
        assert_eq!(kind("ps_1_3\ntex t2\nmov r0, t2"), t(2, 2));
        assert_eq!(kind("ps_1_4\ntexld r0, t0"), t(0, 0));
        assert_eq!(kind("ps_1_4\ntexld r1, t2\nmov r0, r1"), t(1, 2));
        // A saturated texel as the output: saturated when written anyway.
        assert_eq!(
            kind("ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov_sat oC0, r0"),
            t(0, 0)
        );
    }

    #[test]
    fn texture_modulate_colour_as_each_version_spells_it() {
        let m = |sampler, coords, color| {
            Some(PixelKind::TextureModulateColor {
                sampler,
                coords,
                color,
            })
        };
        let d = ColorInput::Diffuse;
        assert_eq!(
            kind("ps_2_0\ndcl t0.xy\ndcl v0\ndcl_2d s0\ntexld r0, t0, s0\nmul r0, r0, v0\nmov oC0, r0"),
            m(0, 0, d)
        );
        // Either operand order, straight into oC0.
        assert_eq!(
            kind("ps_2_0\ndcl t1\ndcl v1\ndcl_2d s2\ntexld r0, t1, s2\nmul oC0, v1, r0"),
            m(2, 1, ColorInput::Specular)
        );
        assert_eq!(kind("ps_1_1\ntex t0\nmul r0, t0, v0"), m(0, 0, d));
        assert_eq!(kind("ps_1_1\ntex t1\nmul r0, v0, t1"), m(1, 1, d));
        assert_eq!(kind("ps_1_4\ntexld r0, t0\nmul r0, r0, v0"), m(0, 0, d));
        assert_eq!(
            kind("ps_2_0\ndcl t0\ndcl v0\ndcl_2d s0\ntexld r0, t0, s0\nmul_sat oC0, r0, v0"),
            m(0, 0, d)
        );
    }

    #[test]
    fn near_misses_are_not_matched() {
        for text in [
            // Swizzles, masks, modifiers.
            "ps_2_0\ndcl v0\nmov oC0, v0.bgra",
            "ps_2_0\ndcl v0\nmov oC0, v0.xxxx",
            "ps_2_0\ndcl v0\nmov oC0.xyz, v0",
            "ps_2_0\ndcl v0\nmov oC0, -v0",
            "ps_1_1\nmov_x2 r0, v0",
            "ps_1_1\nmov r0, v0_bx2",
            "ps_1_1\nmov r0, 1-v0",
            // Constants and other registers.
            "ps_2_0\nmov oC0, c0",
            "ps_2_0\ndcl t0\nmov oC0, t0",
            "ps_1_4\ntexcrd r0.xyz, t0\nmov r0.w, v0",
            // Other operations, a second output, a kill, depth.
            "ps_2_0\ndcl v0\nadd oC0, v0, v0",
            "ps_2_0\ndcl v0\nmul oC0, v0, v0",
            "ps_2_0\ndcl v0\nmov oC0, v0\nmov oC1, v0",
            "ps_2_0\ndcl v0\ndcl t0\ntexkill t0\nmov oC0, v0",
            "ps_2_0\ndcl v0\nmov oC0, v0\nmov oDepth, v0.x",
            "ps_1_4\ntexld r0, t0\nphase\nmul r0, r0, v0",
            // Projected or biased samples, a swizzled sampler or
            // coordinate, a dependent read, a saturated texel read again.
            "ps_2_0\ndcl t0\ndcl_2d s0\ntexldp r0, t0, s0\nmov oC0, r0",
            "ps_2_0\ndcl t0\ndcl_2d s0\ntexldb r0, t0, s0\nmov oC0, r0",
            "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0.yxzw, s0\nmov oC0, r0",
            "ps_2_0\ndcl v0\ndcl_2d s0\ntexld r0, v0, s0\nmov oC0, r0",
            "ps_2_0\ndcl t0\ndcl v0\ndcl_2d s0\ntexld_sat r0, t0, s0\nmul oC0, r0, v0",
            "ps_1_4\ntexld r0, t0_dz\nmul r0, r0, v0",
            // A texel times a texel, a product with the components crossed.
            "ps_1_1\ntex t0\ntex t1\nmul r0, t0, t1",
            "ps_2_0\ndcl t0\ndcl v0\ndcl_2d s0\ntexld r0, t0, s0\nmul oC0, r0, v0.yzwx",
            // An unwritten temporary.
            "ps_2_0\nmov oC0, r0",
            // ps_3_0 and vertex shaders.
            "ps_3_0\ndcl_color0 v0\nmov oC0, v0",
            "vs_2_0\ndcl_position v0\nmov oPos, v0",
        ] {
            assert_eq!(kind(text), None, "{text}");
        }
    }
}
