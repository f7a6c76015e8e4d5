//! The front end: a DWORD token stream → [`Shader`].
//!
//! - In: untrusted DWORDs, version token first (vs_1_1 … ps_3_0).
//! - Out: a [`Shader`] whose every field is decoded into a typed value, or
//!   a [`ShaderError`] naming the DWORD offset of the first token that
//!   cannot be decoded.
//! - Guarantees: never panics, never reads outside the slice, allocates at
//!   most one IR instruction (with at most four sources) per instruction
//!   token; comments are skipped in O(1) each after a bounds check. Every
//!   bit of every accepted token lands in the IR, so
//!   `parse(t).to_tokens() == t` for streams without comments (reserved
//!   bits and meaningless field values are rejected here, not ignored).
//!   Shader model 1 instructions carry no length: their parameter count
//!   comes from [`crate::ir::Opcode::form`]. What a version allows beyond
//!   the opcode itself (register ranges, modifiers, control flow) is the
//!   validator's job ([`crate::valid`]).

use crate::error::{ErrorKind, ShaderError};
use crate::ir::{
    token, Comparison, Control, Dst, DstModifiers, Form, Instruction, Opcode, Operands, Profile,
    Register, RegisterType, RelAddr, SamplerType, Semantic, Shader, Src, SrcModifier, Swizzle,
    Usage,
};

fn err<T>(kind: ErrorKind, dword: usize) -> Result<T, ShaderError> {
    Err(ShaderError::new(kind, dword))
}

fn malformed<T>(token: u32, what: &'static str, dword: usize) -> Result<T, ShaderError> {
    err(ErrorKind::MalformedToken { token, what }, dword)
}

/// Parses a token stream into the IR (no validation beyond decoding).
pub fn parse(tokens: &[u32]) -> Result<Shader, ShaderError> {
    let Some(&version) = tokens.first() else {
        return err(ErrorKind::Empty, 0);
    };
    let Some(profile) = Profile::from_token(version) else {
        return err(ErrorKind::UnsupportedVersion(version), 0);
    };
    let mut instructions = Vec::new();
    let mut pos = 1usize;
    loop {
        let Some(&tok) = tokens.get(pos) else {
            return err(ErrorKind::MissingEnd, pos);
        };
        if tok == token::END {
            let after = tokens.len().saturating_sub(pos).saturating_sub(1);
            if after != 0 {
                return err(ErrorKind::TrailingTokens(after), pos.saturating_add(1));
            }
            break;
        }
        if tok & token::OPCODE_MASK == token::COMMENT && tok & token::PARAM == 0 {
            let len = (tok & token::COMMENT_SIZE_MASK) >> 16;
            let next = pos.saturating_add(1).saturating_add(len as usize);
            if next > tokens.len() {
                return err(ErrorKind::CommentOverrun(len), pos);
            }
            pos = next;
            continue;
        }
        let (ins, next) = instruction(tokens, pos, profile)?;
        instructions.push(ins);
        pos = next;
    }
    Ok(Shader {
        profile,
        instructions,
    })
}

/// A cursor over an instruction's parameter tokens.
struct Cursor<'a> {
    tokens: &'a [u32],
    pos: usize,
    /// One past the last parameter (SM ≥ 2.0: from the length field).
    end: usize,
    /// The length field, when there is one (for the error).
    declared: Option<u32>,
    start: usize,
    profile: Profile,
}

impl Cursor<'_> {
    fn next(&mut self) -> Result<(u32, usize), ShaderError> {
        let at = self.pos;
        match self.tokens.get(at) {
            Some(&t) if at < self.end => {
                self.pos = at.saturating_add(1);
                Ok((t, at))
            }
            _ => match self.declared {
                Some(declared) => err(
                    ErrorKind::LengthMismatch {
                        declared,
                        actual: at.saturating_sub(self.start).saturating_add(1),
                    },
                    self.start.saturating_sub(1),
                ),
                None => err(ErrorKind::Truncated, at),
            },
        }
    }

    fn param(&mut self) -> Result<(u32, usize), ShaderError> {
        let (t, at) = self.next()?;
        if t & token::PARAM == 0 {
            return malformed(t, "bit 31 of a parameter token is clear", at);
        }
        Ok((t, at))
    }

    fn register(t: u32, at: usize) -> Result<Register, ShaderError> {
        let ty = ((t & token::REG_TYPE_LOW) >> 28) | ((t & token::REG_TYPE_HIGH) >> 8);
        let Some(ty) = RegisterType::from_u8(ty as u8) else {
            return malformed(t, "unknown register type", at);
        };
        Ok(Register {
            ty,
            index: (t & token::REG_NUMBER) as u16,
        })
    }

    fn relative(&mut self) -> Result<RelAddr, ShaderError> {
        if self.profile.is_sm1() {
            return Ok(RelAddr {
                reg: Register {
                    ty: RegisterType::Addr,
                    index: 0,
                },
                swizzle: Swizzle::replicate(0),
                implicit: true,
            });
        }
        let (t, at) = self.param()?;
        if t & !(token::PARAM
            | token::REG_TYPE_LOW
            | token::REG_TYPE_HIGH
            | token::REG_NUMBER
            | token::SWIZZLE)
            != 0
        {
            return malformed(t, "reserved bits set in a relative-address token", at);
        }
        Ok(RelAddr {
            reg: Cursor::register(t, at)?,
            swizzle: Swizzle(((t & token::SWIZZLE) >> 16) as u8),
            implicit: false,
        })
    }

    fn dst(&mut self) -> Result<Dst, ShaderError> {
        let (t, at) = self.param()?;
        if t & 0xC000 != 0 {
            return malformed(t, "reserved bits 15:14 set", at);
        }
        let reg = Cursor::register(t, at)?;
        let write_mask = ((t & token::WRITE_MASK) >> 16) as u8;
        if write_mask == 0 {
            return malformed(t, "empty write mask", at);
        }
        let mods = (t & token::DST_MOD) >> 20;
        if mods & 8 != 0 {
            return malformed(t, "unknown result modifier", at);
        }
        let shift = match (t & token::SHIFT) >> 24 {
            0 => 0,
            1 => 1,
            2 => 2,
            3 => 3,
            0xD => -3,
            0xE => -2,
            0xF => -1,
            _ => return malformed(t, "result shift out of range", at),
        };
        let relative = if t & token::RELATIVE != 0 {
            Some(self.relative()?)
        } else {
            None
        };
        Ok(Dst {
            reg,
            write_mask,
            modifiers: DstModifiers {
                saturate: mods & 1 != 0,
                partial_precision: mods & 2 != 0,
                centroid: mods & 4 != 0,
            },
            shift,
            relative,
        })
    }

    fn src(&mut self) -> Result<Src, ShaderError> {
        let (t, at) = self.param()?;
        if t & 0xC000 != 0 {
            return malformed(t, "reserved bits 15:14 set", at);
        }
        let reg = Cursor::register(t, at)?;
        let Some(modifier) = SrcModifier::from_u8(((t & token::SRC_MOD) >> 24) as u8) else {
            return malformed(t, "unknown source modifier", at);
        };
        let relative = if t & token::RELATIVE != 0 {
            Some(self.relative()?)
        } else {
            None
        };
        Ok(Src {
            reg,
            swizzle: Swizzle(((t & token::SWIZZLE) >> 16) as u8),
            modifier,
            relative,
        })
    }

    fn raw(&mut self) -> Result<u32, ShaderError> {
        self.next().map(|(t, _)| t)
    }
}

fn control(opcode: Opcode, profile: Profile, tok: u32, at: usize) -> Result<Control, ShaderError> {
    let bits = ((tok & token::CONTROL_MASK) >> 16) as u8;
    if opcode.has_comparison() {
        return match Comparison::from_u8(bits) {
            Some(c) => Ok(Control::Comparison(c)),
            None => malformed(tok, "comparison out of range", at),
        };
    }
    match (bits, opcode == Opcode::Tex && !profile.is_sm1()) {
        (0, _) => Ok(Control::None),
        (1, true) => Ok(Control::Project),
        (2, true) => Ok(Control::Bias),
        _ => malformed(tok, "control bits set on an opcode that has none", at),
    }
}

fn instruction(
    tokens: &[u32],
    pos: usize,
    profile: Profile,
) -> Result<(Instruction, usize), ShaderError> {
    let tok = tokens.get(pos).copied().unwrap_or(token::END);
    if tok & token::PARAM != 0 {
        return malformed(
            tok,
            "parameter token where an instruction was expected",
            pos,
        );
    }
    if tok & 0x2000_0000 != 0 {
        return malformed(tok, "reserved bit 29 set", pos);
    }
    let value = tok & token::OPCODE_MASK;
    let Some(opcode) = Opcode::from_u16(value as u16) else {
        return err(ErrorKind::UnknownOpcode(value), pos);
    };
    let Some(form) = opcode.form(profile) else {
        return err(ErrorKind::OpcodeNotInVersion { opcode, profile }, pos);
    };
    let control = control(opcode, profile, tok, pos)?;
    let length = (tok & token::LENGTH_MASK) >> 24;
    let predicated = tok & token::PREDICATED != 0;
    let coissue = tok & token::COISSUE != 0;
    let start = pos.saturating_add(1);
    let (end, declared) = if profile.is_sm1() {
        if length != 0 {
            return malformed(tok, "length field set in a shader model 1 instruction", pos);
        }
        if predicated {
            return malformed(tok, "predicated instruction in shader model 1", pos);
        }
        (tokens.len(), None)
    } else {
        if coissue {
            return malformed(tok, "co-issue bit set in shader model 2+", pos);
        }
        let end = start.saturating_add(length as usize);
        if end > tokens.len() {
            return err(ErrorKind::Truncated, pos);
        }
        (end, Some(length))
    };
    let mut c = Cursor {
        tokens,
        pos: start,
        end,
        declared,
        start,
        profile,
    };
    let mut predicate = None;
    let operands = match form {
        Form::Op { dst, srcs } => {
            let dst = if dst { Some(c.dst()?) } else { None };
            if predicated {
                predicate = Some(c.src()?);
            }
            let mut src = Vec::with_capacity(usize::from(srcs));
            for _ in 0..srcs {
                src.push(c.src()?);
            }
            Operands::Op { dst, src }
        }
        Form::Dcl => {
            let (d, d_at) = c.param()?;
            let dst = c.dst()?;
            let semantic = if dst.reg.ty == RegisterType::Sampler {
                if d & !(token::PARAM | token::DCL_TEXTURE_TYPE) != 0 {
                    return malformed(d, "reserved bits set in a sampler declaration", d_at);
                }
                match SamplerType::from_u8(((d & token::DCL_TEXTURE_TYPE) >> 27) as u8) {
                    Some(ty) => Semantic::Sampler(ty),
                    None => return malformed(d, "unknown sampler texture type", d_at),
                }
            } else {
                if d & !(token::PARAM | token::DCL_USAGE | token::DCL_INDEX) != 0 {
                    return malformed(d, "reserved bits set in a declaration token", d_at);
                }
                match Usage::from_u8((d & token::DCL_USAGE) as u8) {
                    Some(usage) => Semantic::Usage {
                        usage,
                        index: ((d & token::DCL_INDEX) >> 16) as u8,
                    },
                    None => return malformed(d, "unknown declaration usage", d_at),
                }
            };
            if predicated {
                predicate = Some(c.src()?);
            }
            Operands::Dcl { semantic, dst }
        }
        Form::Def | Form::DefI | Form::DefB => {
            let dst = c.dst()?;
            if predicated {
                predicate = Some(c.src()?);
            }
            match form {
                Form::DefB => Operands::DefB {
                    dst,
                    value: c.raw()?,
                },
                Form::DefI => Operands::DefI {
                    dst,
                    values: [
                        c.raw()? as i32,
                        c.raw()? as i32,
                        c.raw()? as i32,
                        c.raw()? as i32,
                    ],
                },
                _ => Operands::Def {
                    dst,
                    values: [c.raw()?, c.raw()?, c.raw()?, c.raw()?],
                },
            }
        }
    };
    if let Some(declared) = declared {
        let actual = c.pos.saturating_sub(start);
        if actual != declared as usize {
            return err(ErrorKind::LengthMismatch { declared, actual }, pos);
        }
    }
    // A predicate on a declaration cannot be re-encoded in its place: the
    // validator rejects it; keep the IR's promise by refusing it here.
    if predicated && opcode.is_declaration() {
        return malformed(tok, "predicated declaration", pos);
    }
    Ok((
        Instruction {
            opcode,
            control,
            coissue,
            predicate,
            operands,
            offset: pos,
        },
        c.pos,
    ))
}
