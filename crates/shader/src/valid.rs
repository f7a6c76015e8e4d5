//! Validation: a parsed [`Shader`] → a [`Validated`] one. A security
//! boundary: the IR that comes out can be executed without any index out
//! of range.
//!
//! - In: a [`Shader`] from [`crate::front`] or [`crate::text`] (untrusted).
//! - Out: [`Validated`], or the first rule broken, as a [`ShaderError`]
//!   with the DWORD offset of the offending token (instruction token or
//!   operand token).
//! - Guarantees (per version, numbers and sources in `docs/shaders.md`):
//!   every register number is below [`register_count`] for its type and
//!   version, and every register type is one the operand may name;
//!   relative addressing only where the version allows it, through `a0`
//!   (one component) or `aL` inside a loop; modifiers, co-issue and
//!   predication only where allowed; instruction slots within
//!   [`slot_limits`]; if/else/endif, loop/endloop, rep/endrep paired and
//!   nested no deeper than the version allows, breaks inside a loop or rep,
//!   labels defined once, following a `ret`, every call to a defined label,
//!   no recursion, call nesting bounded; declarations before the first
//!   instruction, well formed, and present wherever the version requires
//!   them; `def` values finite and `defb` values 0 or 1. Validation runs in
//!   time linear in the number of instructions (the call graph is walked
//!   once) and allocates at most in proportion to it.

use crate::error::{ErrorKind, ShaderError};
use crate::ir::{
    Control, Dst, Instruction, Opcode, Operands, Profile, Register, RegisterType, RelAddr,
    SamplerType, Semantic, Shader, Src, SrcModifier, Swizzle, Usage,
};

/// A shader that passed [`validate`]. It can only be built by validation,
/// so holding one proves the invariants of this module: in particular,
/// every [`Register`] it names (outside relative addressing's dynamic
/// offset) has `index < register_count(profile, ty)`, and every
/// relative-addressed register's base does too (the executor adds the
/// address register's value and must bound the sum by the same count).
#[derive(Clone, Debug, PartialEq)]
pub struct Validated {
    shader: Shader,
}

impl Validated {
    /// The shader.
    pub fn shader(&self) -> &Shader {
        &self.shader
    }

    /// Its version.
    pub fn profile(&self) -> Profile {
        self.shader.profile
    }

    /// How many registers of `ty` an executor must provide.
    pub fn register_count(&self, ty: RegisterType) -> u16 {
        register_count(self.shader.profile, ty)
    }

    /// Gives up the proof and returns the shader.
    pub fn into_inner(self) -> Shader {
        self.shader
    }
}

/// How many registers of `ty` `profile` has (0 = none: the type cannot be
/// named). The D3D9 DDI's `D3DVS_*`/`D3DPS_*` limits and the D3DCAPS9
/// values softhal reports; `docs/shaders.md` §5.
pub fn register_count(profile: Profile, ty: RegisterType) -> u16 {
    use Profile::*;
    use RegisterType as R;
    let vs = profile.is_vertex();
    match ty {
        R::Temp => match profile {
            Vs1_1 | Vs2_0 | Ps2_0 => 12,
            Vs2_x | Vs3_0 | Ps2_x | Ps3_0 => 32,
            Ps1_1 | Ps1_2 | Ps1_3 => 2,
            Ps1_4 => 6,
        },
        R::Input => match profile {
            _ if vs => 16,
            Ps3_0 => 10,
            _ => 2,
        },
        R::Const => match profile {
            Vs1_1 => 96,
            Vs2_0 | Vs2_x | Vs3_0 => 256,
            Ps1_1 | Ps1_2 | Ps1_3 | Ps1_4 => 8,
            Ps2_0 | Ps2_x => 32,
            Ps3_0 => 224,
        },
        R::Addr => match profile {
            _ if vs => 1,
            Ps1_1 | Ps1_2 | Ps1_3 => 4,
            Ps1_4 => 6,
            Ps2_0 | Ps2_x => 8,
            _ => 0,
        },
        R::RastOut => match profile {
            Vs1_1 | Vs2_0 | Vs2_x => 3,
            _ => 0,
        },
        R::AttrOut => match profile {
            Vs1_1 | Vs2_0 | Vs2_x => 2,
            _ => 0,
        },
        R::TexCrdOut => match profile {
            Vs1_1 | Vs2_0 | Vs2_x => 8,
            Vs3_0 => 12,
            _ => 0,
        },
        R::ConstInt | R::ConstBool => match profile {
            Vs2_0 | Vs2_x | Vs3_0 | Ps2_x | Ps3_0 => 16,
            _ => 0,
        },
        R::ColorOut => match profile {
            Ps2_0 | Ps2_x | Ps3_0 => 4,
            _ => 0,
        },
        R::DepthOut => match profile {
            Ps2_0 | Ps2_x | Ps3_0 => 1,
            _ => 0,
        },
        R::Sampler => match profile {
            Vs3_0 => 4,
            Ps2_0 | Ps2_x | Ps3_0 => 16,
            _ => 0,
        },
        R::Loop => match profile {
            Vs2_0 | Vs2_x | Vs3_0 | Ps3_0 => 1,
            _ => 0,
        },
        R::MiscType => match profile {
            Ps3_0 => 2,
            _ => 0,
        },
        R::Label => match profile {
            Vs2_0 | Vs2_x | Ps2_x => 16,
            Vs3_0 | Ps3_0 => 2048,
            _ => 0,
        },
        R::Predicate => match profile {
            Vs2_x | Vs3_0 | Ps2_x | Ps3_0 => 1,
            _ => 0,
        },
        R::Const2 | R::Const3 | R::Const4 | R::TempFloat16 => 0,
    }
}

/// The most registers of `ty` any version of one kind has (`vertex`: the
/// vs_ versions, else the ps_ versions): how many constants a runtime may
/// set for that stage (SETVERTEXSHADERCONST/I/B, SETPIXELSHADERCONST/I/B)
/// whatever shader is bound — vs: 256 `c#`, 16 `i#`, 16 `b#`; ps: 224,
/// 16, 16.
pub fn stage_register_count(vertex: bool, ty: RegisterType) -> u16 {
    Profile::ALL
        .iter()
        .filter(|p| p.is_vertex() == vertex)
        .map(|&p| register_count(p, ty))
        .max()
        .unwrap_or(0)
}

/// Instruction-slot budgets of a version (`docs/shaders.md` §6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotLimits {
    /// Arithmetic slots (per phase in ps_1_4); `u32::MAX` = only the total
    /// counts.
    pub arithmetic: u32,
    /// Texture slots (per phase in ps_1_4); `u32::MAX` = only the total
    /// counts.
    pub texture: u32,
    /// All slots.
    pub total: u32,
}

/// The slot budgets of `profile`.
pub fn slot_limits(profile: Profile) -> SlotLimits {
    use Profile::*;
    let total = |total| SlotLimits {
        arithmetic: u32::MAX,
        texture: u32::MAX,
        total,
    };
    match profile {
        Vs1_1 => total(128),
        Vs2_0 | Vs2_x => total(256),
        Vs3_0 | Ps3_0 => total(512),
        Ps2_x => total(512),
        Ps1_1 | Ps1_2 | Ps1_3 => SlotLimits {
            arithmetic: 8,
            texture: 4,
            total: 12,
        },
        Ps1_4 => SlotLimits {
            arithmetic: 8,
            texture: 6,
            total: 14,
        },
        Ps2_0 => SlotLimits {
            arithmetic: 64,
            texture: 32,
            total: 96,
        },
    }
}

/// Whether `op` counts against the texture budget in pixel shaders.
pub fn is_texture_op(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        TexCoord
            | TexKill
            | Tex
            | TexBem
            | TexBemL
            | TexReg2Ar
            | TexReg2Gb
            | TexM3x2Pad
            | TexM3x2Tex
            | TexM3x3Pad
            | TexM3x3Tex
            | TexM3x3Spec
            | TexM3x3VSpec
            | TexReg2Rgb
            | TexDp3Tex
            | TexM3x2Depth
            | TexDp3
            | TexM3x3
            | TexDepth
            | TexLdd
            | TexLdl
    )
}

/// Instruction slots `op` takes in `profile` (the per-instruction "slots"
/// of the Direct3D 9 assembly reference; `docs/shaders.md` §6).
pub fn slots(op: Opcode, profile: Profile) -> u32 {
    use Opcode::*;
    let vs = profile.is_vertex();
    match op {
        Dcl | Def | DefI | DefB | Label | Phase => 0,
        M4x4 | M3x4 => 4,
        M4x3 | M3x3 | Nrm | Pow => 3,
        M3x2 | Lrp | Crs | Dp2Add => 2,
        SinCos => 8,
        Exp | Log if vs => 10,
        Frc if profile == Profile::Vs1_1 => 3,
        Lit | Sgn => 3,
        If | Ifc | Loop | Rep | CallNz | BreakC | BreakP | TexLdd => 3,
        Call | EndLoop | EndRep | TexLdl => 2,
        TexBemL if profile.is_ps1() => 2,
        _ => 1,
    }
}

/// What an operand must be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    /// A float value (temporaries, inputs, constants, texture coordinates).
    Value,
    /// `s#`.
    Sampler,
    /// `l#`.
    Label,
    /// `b#` or `p0`.
    BoolOrPred,
    /// `p0`.
    Pred,
    /// `i#`.
    Int,
    /// `aL`.
    LoopReg,
}

fn fail<T>(kind: ErrorKind, at: usize) -> Result<T, ShaderError> {
    Err(ShaderError::new(kind, at))
}

/// An open flow-control block.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    If { else_seen: bool },
    Loop,
    Rep,
}

/// Nesting limits of a version (`docs/shaders.md` §7): what D3DCAPS9
/// reports as `StaticFlowControlDepth` (loop/rep and call levels) and
/// `DynamicFlowControlDepth` (if levels) in `VS20Caps`/`PS20Caps`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nesting {
    /// loop + rep levels.
    pub loops: usize,
    /// if + ifc levels.
    pub ifs: usize,
    /// Call depth.
    pub calls: usize,
    /// vs_2_0: total static flow-control instructions.
    pub static_flow: Option<u32>,
}

/// The nesting limits of `profile` (versions without flow control never
/// reach them: their validator refuses the opcodes first).
pub fn nesting(profile: Profile) -> Nesting {
    match profile {
        Profile::Vs2_0 => Nesting {
            loops: 1,
            ifs: 16,
            calls: 1,
            static_flow: Some(16),
        },
        _ => Nesting {
            loops: 4,
            ifs: 24,
            calls: 4,
            static_flow: None,
        },
    }
}

/// Where the walk is with respect to subroutines.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Region {
    /// In the main program.
    Main,
    /// After a `ret`: only a label may follow.
    AfterRet,
    /// In the subroutine of this label.
    Sub(u16),
}

struct Walk {
    profile: Profile,
    declared: [u32; 20],
    /// ps_3_0 inputs and vs_3_0 outputs: the components of each register
    /// (`v#` / `o#`, at most 12) a usage declaration has claimed.
    packed: [u8; 16],
    /// ps_3_0 inputs and vs_3_0 outputs: the semantics declared, one bit
    /// per usage index (16) for each D3DDECLUSAGE (14).
    semantics: [u16; 14],
    stack: Vec<Block>,
    loop_depth: usize,
    if_depth: usize,
    region: Region,
    /// (caller: None = main, callee label, offset of the call).
    calls: Vec<(Option<u16>, u16, usize)>,
    labels: Vec<(u16, usize)>,
    static_flow: u32,
    seen_instruction: bool,
    phase_seen: bool,
    arith: u32,
    tex: u32,
    total: u32,
}

/// Validates `shader` against the rules of its version.
pub fn validate(shader: Shader) -> Result<Validated, ShaderError> {
    let mut w = Walk {
        profile: shader.profile,
        declared: [0; 20],
        packed: [0; 16],
        semantics: [0; 14],
        stack: Vec::new(),
        loop_depth: 0,
        if_depth: 0,
        region: Region::Main,
        calls: Vec::new(),
        labels: Vec::new(),
        static_flow: 0,
        seen_instruction: false,
        phase_seen: false,
        arith: 0,
        tex: 0,
        total: 0,
    };
    let mut previous: Option<Opcode> = None;
    for ins in &shader.instructions {
        w.instruction(ins, previous)?;
        previous = Some(ins.opcode);
    }
    let end = shader
        .instructions
        .last()
        .map_or(1, |i| i.offset.saturating_add(i.token_len()));
    if let Some(block) = w.stack.last() {
        let what = match block {
            Block::If { .. } => "if",
            Block::Loop => "loop",
            Block::Rep => "rep",
        };
        return fail(ErrorKind::UnclosedBlock(what), end);
    }
    if let Region::Sub(_) = w.region {
        return fail(ErrorKind::Subroutine("subroutine without ret"), end);
    }
    w.check_calls()?;
    if matches!(
        shader.profile,
        Profile::Ps1_1 | Profile::Ps1_2 | Profile::Ps1_3
    ) {
        texture_sequence(&shader)?;
    }
    Ok(Validated { shader })
}

/// The matrix instruction a `texm3x2pad`/`texm3x3pad` sequence expects
/// next: its destination t# and the source t# every row shares.
#[derive(Clone, Copy)]
struct MatrixRow {
    /// Pads still expected before the final row (0 = the final row next).
    pads_left: u8,
    /// Whether the matrix is 3×2 (else 3×3).
    three_by_two: bool,
    dst: u16,
    src: u16,
}

/// ps_1_1–1_3: texture-addressing instructions come before arithmetic,
/// write each t# once, read only t# already written (by an earlier
/// texture instruction: the source of `texm3x3pad t(m), t(n)` has n < m),
/// and a `texm3x2pad` is followed by its `texm3x2tex`/`texm3x2depth`, two
/// `texm3x3pad` by `texm3x3`/`texm3x3tex`/`texm3x3spec`/`texm3x3vspec`, on
/// consecutive registers with the same source (the sequences the Direct3D
/// reference prescribes; `docs/shaders.md` §8).
fn texture_sequence(shader: &Shader) -> Result<(), ShaderError> {
    use Opcode::*;
    let bit = |i: u16| 1u32.checked_shl(u32::from(i)).unwrap_or(0);
    let mut written = 0u32;
    let mut arithmetic = false;
    let mut expect: Option<MatrixRow> = None;
    let bad = |what, at| fail(ErrorKind::TextureSequence(what), at);
    for ins in &shader.instructions {
        let at = ins.offset;
        if ins.opcode.is_declaration() || ins.opcode == Nop {
            continue;
        }
        let texture_op = is_texture_op(ins.opcode);
        let t_src = |k: usize| {
            ins.src()
                .get(k)
                .filter(|s| s.reg.ty == RegisterType::TEXTURE)
                .map(|s| s.reg.index)
        };
        if !texture_op {
            if expect.is_some() {
                return bad("a texture matrix is not complete", at);
            }
            arithmetic = true;
            for s in ins.src() {
                if s.reg.ty == RegisterType::TEXTURE && written & bit(s.reg.index) == 0 {
                    return bad("t# read before a texture instruction writes it", at);
                }
            }
            continue;
        }
        if arithmetic {
            return bad("texture instruction after an arithmetic instruction", at);
        }
        let Some(dst) = ins.dst().map(|d| d.reg.index) else {
            continue;
        };
        // The t# source of a texture-addressing instruction must be written.
        if let Some(n) = t_src(0) {
            if written & bit(n) == 0 {
                return bad("t# read before a texture instruction writes it", at);
            }
        }
        let row_src = t_src(0).unwrap_or(u16::MAX);
        match (ins.opcode, expect) {
            (TexM3x2Pad | TexM3x3Pad, None) => {
                let three_by_two = ins.opcode == TexM3x2Pad;
                expect = Some(MatrixRow {
                    pads_left: if three_by_two { 0 } else { 1 },
                    three_by_two,
                    dst: dst.saturating_add(1),
                    src: row_src,
                });
            }
            (TexM3x3Pad, Some(row)) if !row.three_by_two && row.pads_left == 1 => {
                if dst != row.dst || row_src != row.src {
                    return bad("texm3x3pad rows must use t(m), t(m+1) with one source", at);
                }
                expect = Some(MatrixRow {
                    pads_left: 0,
                    dst: dst.saturating_add(1),
                    ..row
                });
            }
            (TexM3x2Tex | TexM3x2Depth, Some(row)) if row.three_by_two => {
                if dst != row.dst || row_src != row.src {
                    return bad("texm3x2 rows must use t(m), t(m+1) with one source", at);
                }
                expect = None;
            }
            (TexM3x3Tex | TexM3x3 | TexM3x3Spec | TexM3x3VSpec, Some(row))
                if !row.three_by_two && row.pads_left == 0 =>
            {
                if dst != row.dst || row_src != row.src {
                    return bad("texm3x3 rows must use t(m)…t(m+2) with one source", at);
                }
                expect = None;
            }
            (
                TexM3x2Tex | TexM3x2Depth | TexM3x3Tex | TexM3x3 | TexM3x3Spec | TexM3x3VSpec,
                None,
            ) => {
                return bad("texture matrix row without its texm3x*pad rows", at);
            }
            (_, Some(_)) => return bad("a texture matrix is not complete", at),
            _ => {}
        }
        // texkill tests its register; every other texture instruction
        // writes its destination, once.
        if ins.opcode != TexKill {
            if written & bit(dst) != 0 {
                return bad("t# written by two texture instructions", at);
            }
            written |= bit(dst);
        }
    }
    if expect.is_some() {
        let end = shader
            .instructions
            .last()
            .map_or(1, |i| i.offset.saturating_add(i.token_len()));
        return bad("a texture matrix is not complete", end);
    }
    Ok(())
}

impl Walk {
    fn instruction(
        &mut self,
        ins: &Instruction,
        previous: Option<Opcode>,
    ) -> Result<(), ShaderError> {
        let p = self.profile;
        let at = ins.offset;
        let op = ins.opcode;
        // Placement: declarations first, then code; nothing but a label
        // after a ret.
        if op.is_declaration() {
            if self.seen_instruction {
                return fail(
                    ErrorKind::BadDeclaration("declaration after the first instruction"),
                    at,
                );
            }
        } else {
            self.seen_instruction = true;
        }
        if self.region == Region::AfterRet && op != Opcode::Label {
            return fail(
                ErrorKind::Subroutine("instruction after ret outside a subroutine"),
                at,
            );
        }
        // Co-issue and predication.
        if ins.coissue {
            if !p.is_ps1() {
                return fail(ErrorKind::ModifierNotAllowed("co-issue outside ps_1_x"), at);
            }
            let ok_prev = previous
                .is_some_and(|o| !o.is_declaration() && !is_texture_op(o) && o != Opcode::Phase);
            if !ok_prev || is_texture_op(op) || op.is_declaration() || op == Opcode::Phase {
                return fail(
                    ErrorKind::ModifierNotAllowed("co-issue must pair two arithmetic instructions"),
                    at,
                );
            }
        }
        if ins.predicate.is_some() {
            let allowed = register_count(p, RegisterType::Predicate) > 0;
            let has_dst = matches!(&ins.operands, Operands::Op { dst: Some(_), .. });
            if !allowed || !has_dst || op == Opcode::SetP {
                return fail(ErrorKind::ModifierNotAllowed("predication"), at);
            }
        }
        self.slots(ins)?;
        self.flow(ins)?;
        self.operands(ins)
    }

    fn slots(&mut self, ins: &Instruction) -> Result<(), ShaderError> {
        let p = self.profile;
        let at = ins.offset;
        if ins.opcode == Opcode::Phase {
            if self.phase_seen || !self.stack.is_empty() {
                return fail(ErrorKind::BadOperand("more than one phase"), at);
            }
            self.phase_seen = true;
            self.arith = 0;
            self.tex = 0;
            self.total = 0;
            return Ok(());
        }
        // A co-issued instruction shares its slot with the previous one.
        let n = if ins.coissue { 0 } else { slots(ins.opcode, p) };
        let limits = slot_limits(p);
        let tex = !p.is_vertex() && is_texture_op(ins.opcode);
        let check = |what: &'static str, count: u32, limit: u32| {
            if count > limit {
                fail(ErrorKind::TooManySlots { what, count, limit }, at)
            } else {
                Ok(())
            }
        };
        if tex {
            self.tex = self.tex.saturating_add(n);
            check("texture", self.tex, limits.texture)?;
        } else {
            self.arith = self.arith.saturating_add(n);
            check("arithmetic", self.arith, limits.arithmetic)?;
        }
        self.total = self.total.saturating_add(n);
        check("total", self.total, limits.total)
    }

    fn flow(&mut self, ins: &Instruction) -> Result<(), ShaderError> {
        use Opcode::*;
        let at = ins.offset;
        let limits = nesting(self.profile);
        let op = ins.opcode;
        let counts_static = match op {
            If => ins
                .src()
                .first()
                .is_some_and(|s| s.reg.ty == RegisterType::ConstBool),
            CallNz => ins
                .src()
                .get(1)
                .is_some_and(|s| s.reg.ty == RegisterType::ConstBool),
            Else => matches!(self.stack.last(), Some(Block::If { .. })),
            Rep | Loop | Call => true,
            _ => false,
        };
        if counts_static {
            self.static_flow = self.static_flow.saturating_add(1);
            if let Some(limit) = limits.static_flow {
                if self.static_flow > limit {
                    return fail(
                        ErrorKind::NestingTooDeep {
                            what: "static flow-control",
                            limit,
                        },
                        at,
                    );
                }
            }
        }
        match op {
            If | Ifc => {
                self.if_depth = self.if_depth.saturating_add(1);
                if self.if_depth > limits.ifs {
                    return fail(
                        ErrorKind::NestingTooDeep {
                            what: "if",
                            limit: limits.ifs as u32,
                        },
                        at,
                    );
                }
                self.stack.push(Block::If { else_seen: false });
            }
            Else => match self.stack.last_mut() {
                Some(Block::If { else_seen }) if !*else_seen => *else_seen = true,
                _ => return fail(ErrorKind::UnmatchedBlockEnd("else"), at),
            },
            EndIf => match self.stack.last() {
                Some(Block::If { .. }) => {
                    self.stack.pop();
                    self.if_depth = self.if_depth.saturating_sub(1);
                }
                _ => return fail(ErrorKind::UnmatchedBlockEnd("endif"), at),
            },
            Loop | Rep => {
                self.loop_depth = self.loop_depth.saturating_add(1);
                if self.loop_depth > limits.loops {
                    return fail(
                        ErrorKind::NestingTooDeep {
                            what: "loop/rep",
                            limit: limits.loops as u32,
                        },
                        at,
                    );
                }
                self.stack
                    .push(if op == Loop { Block::Loop } else { Block::Rep });
            }
            EndLoop | EndRep => {
                let want = if op == EndLoop {
                    Block::Loop
                } else {
                    Block::Rep
                };
                if self.stack.last() != Some(&want) {
                    let name = if op == EndLoop { "endloop" } else { "endrep" };
                    return fail(ErrorKind::UnmatchedBlockEnd(name), at);
                }
                self.stack.pop();
                self.loop_depth = self.loop_depth.saturating_sub(1);
            }
            Break | BreakC | BreakP if self.loop_depth == 0 => {
                return fail(ErrorKind::BreakOutsideLoop, at);
            }
            Ret => {
                if !self.stack.is_empty() {
                    return fail(ErrorKind::Subroutine("ret inside a flow-control block"), at);
                }
                self.region = Region::AfterRet;
            }
            Label => {
                if self.region == Region::Main {
                    return fail(ErrorKind::Subroutine("label not preceded by ret"), at);
                }
                if let Region::Sub(_) = self.region {
                    return fail(ErrorKind::Subroutine("label inside a subroutine"), at);
                }
                let Some(l) = ins.src().first() else {
                    return fail(ErrorKind::BadOperand("label without a register"), at);
                };
                if l.reg.ty == RegisterType::Label {
                    if self.labels.iter().any(|(n, _)| *n == l.reg.index) {
                        return fail(ErrorKind::Subroutine("label defined twice"), at);
                    }
                    self.labels.push((l.reg.index, at));
                    self.region = Region::Sub(l.reg.index);
                }
            }
            Call | CallNz => {
                if let Some(l) = ins
                    .src()
                    .first()
                    .filter(|l| l.reg.ty == RegisterType::Label)
                {
                    let caller = match self.region {
                        Region::Sub(n) => Some(n),
                        _ => None,
                    };
                    self.calls.push((caller, l.reg.index, at));
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn check_calls(&self) -> Result<(), ShaderError> {
        for &(_, callee, at) in &self.calls {
            if !self.labels.iter().any(|(n, _)| *n == callee) {
                return fail(ErrorKind::Subroutine("call to an undefined label"), at);
            }
        }
        // Longest call chain, with cycle detection: labels are few (≤ 2048)
        // and calls ≤ the slot limit, so an O(labels × calls) walk is
        // bounded.
        let limit = nesting(self.profile).calls;
        // depth[i]: None = unvisited; Some(None) = on the stack; Some(Some(d)).
        let mut depth: Vec<Option<Option<usize>>> = vec![None; self.labels.len()];
        for i in 0..self.labels.len() {
            self.depth_of(i, &mut depth, 0)?;
        }
        for &(caller, callee, at) in &self.calls {
            if caller.is_none() {
                let d = self
                    .labels
                    .iter()
                    .position(|(n, _)| *n == callee)
                    .and_then(|i| depth.get(i).copied().flatten().flatten())
                    .unwrap_or(0);
                if d.saturating_add(1) > limit {
                    return fail(
                        ErrorKind::NestingTooDeep {
                            what: "call",
                            limit: limit as u32,
                        },
                        at,
                    );
                }
            }
        }
        Ok(())
    }

    /// The call depth below label number `i` (0 = calls nothing).
    fn depth_of(
        &self,
        i: usize,
        depth: &mut Vec<Option<Option<usize>>>,
        level: usize,
    ) -> Result<usize, ShaderError> {
        let Some(&(label, at)) = self.labels.get(i) else {
            return Ok(0);
        };
        match depth.get(i).copied().flatten() {
            Some(Some(d)) => return Ok(d),
            Some(None) => return fail(ErrorKind::Subroutine("recursive call"), at),
            None => {}
        }
        if level > self.labels.len() {
            return fail(ErrorKind::Subroutine("recursive call"), at);
        }
        if let Some(slot) = depth.get_mut(i) {
            *slot = Some(None);
        }
        let mut d = 0usize;
        for &(caller, callee, call_at) in &self.calls {
            if caller != Some(label) {
                continue;
            }
            let Some(j) = self.labels.iter().position(|(n, _)| *n == callee) else {
                continue;
            };
            if depth.get(j).copied().flatten() == Some(None) {
                return fail(ErrorKind::Subroutine("recursive call"), call_at);
            }
            let below = self.depth_of(j, depth, level.saturating_add(1))?;
            d = d.max(below.saturating_add(1));
        }
        if let Some(slot) = depth.get_mut(i) {
            *slot = Some(Some(d));
        }
        Ok(d)
    }

    fn operands(&mut self, ins: &Instruction) -> Result<(), ShaderError> {
        use Opcode::*;
        let p = self.profile;
        let op = ins.opcode;
        let mut at = ins.offset.saturating_add(1);
        let step = |at: usize, rel: Option<RelAddr>| {
            at.saturating_add(if rel.is_some_and(|r| !r.implicit) {
                2
            } else {
                1
            })
        };
        match &ins.operands {
            Operands::Dcl { semantic, dst } => {
                at = at.saturating_add(1);
                self.dcl(semantic, dst, at, ins.offset)?;
            }
            Operands::Def { dst, values } => {
                self.def_dst(dst, RegisterType::Const, at)?;
                if let Some(k) = values.iter().position(|v| !f32::from_bits(*v).is_finite()) {
                    return fail(
                        ErrorKind::BadDefinition("def value is not finite"),
                        at.saturating_add(1).saturating_add(k),
                    );
                }
            }
            Operands::DefI { dst, .. } => self.def_dst(dst, RegisterType::ConstInt, at)?,
            Operands::DefB { dst, value } => {
                self.def_dst(dst, RegisterType::ConstBool, at)?;
                if *value > 1 {
                    return fail(
                        ErrorKind::BadDefinition("defb value is not 0 or 1"),
                        at.saturating_add(1),
                    );
                }
            }
            Operands::Op { dst, src } => {
                if let Some(d) = dst {
                    self.dst(op, d, at)?;
                    at = step(at, d.relative);
                }
                if let Some(pred) = &ins.predicate {
                    self.src(op, pred, Want::Pred, at)?;
                    at = step(at, pred.relative);
                }
                for (k, s) in src.iter().enumerate() {
                    let want = match (op, k) {
                        (Call | Label, 0) | (CallNz, 0) => Want::Label,
                        (CallNz, 1) | (If, 0) => Want::BoolOrPred,
                        (BreakP, 0) => Want::Pred,
                        (Loop, 0) => Want::LoopReg,
                        (Loop, 1) | (Rep, 0) => Want::Int,
                        (Tex | TexLdl | TexLdd, 1) => Want::Sampler,
                        _ => Want::Value,
                    };
                    self.src(op, s, want, at)?;
                    at = step(at, s.relative);
                }
                if let Control::Project | Control::Bias = ins.control {
                    if op != Tex || p.is_sm1() {
                        return fail(
                            ErrorKind::BadOperand("texldp/texldb outside texld"),
                            ins.offset,
                        );
                    }
                }
            }
        }
        Ok(())
    }

    fn range(&self, reg: Register, at: usize) -> Result<(), ShaderError> {
        let limit = register_count(self.profile, reg.ty);
        if limit == 0 {
            return fail(
                ErrorKind::RegisterNotAllowed {
                    ty: reg.ty,
                    what: "this version has no such register",
                },
                at,
            );
        }
        if reg.index >= limit {
            return fail(
                ErrorKind::RegisterOutOfRange {
                    ty: reg.ty,
                    index: reg.index,
                    limit,
                },
                at,
            );
        }
        Ok(())
    }

    fn is_declared(&self, reg: Register) -> bool {
        let mask = self.declared.get(reg.ty as usize).copied().unwrap_or(0);
        reg.index < 32 && mask & (1u32 << (reg.index & 31)) != 0
    }

    fn needs_dcl(&self, ty: RegisterType) -> bool {
        use Profile::*;
        use RegisterType as R;
        matches!(
            (self.profile, ty),
            (Vs2_0 | Vs2_x | Vs3_0, R::Input)
                | (Vs3_0, R::TexCrdOut | R::Sampler)
                | (Ps2_0 | Ps2_x, R::Input | R::Addr | R::Sampler)
                | (Ps3_0, R::Input | R::MiscType | R::Sampler)
        )
    }

    fn declared_check(&self, reg: Register, at: usize) -> Result<(), ShaderError> {
        if self.needs_dcl(reg.ty) && !self.is_declared(reg) {
            return fail(
                ErrorKind::Undeclared {
                    ty: reg.ty,
                    index: reg.index,
                },
                at,
            );
        }
        Ok(())
    }

    fn relative(
        &self,
        reg: Register,
        rel: &RelAddr,
        is_dst: bool,
        at: usize,
    ) -> Result<(), ShaderError> {
        use Profile::*;
        use RegisterType as R;
        let p = self.profile;
        let reg_ok = matches!(
            (p, reg.ty, is_dst),
            (Vs1_1 | Vs2_0 | Vs2_x, R::Const, false)
                | (Vs3_0 | Ps3_0, R::Const | R::Input, false)
                | (Vs3_0, R::TexCrdOut, true)
        );
        if !reg_ok {
            return fail(
                ErrorKind::RelativeNotAllowed("on this register in this version"),
                at,
            );
        }
        match rel.reg.ty {
            R::Addr if p.is_vertex() && rel.reg.index == 0 => {
                if rel.swizzle.replicated().is_none() {
                    return fail(ErrorKind::RelativeNotAllowed("a0 needs one component"), at);
                }
                if reg.ty != R::Const {
                    return fail(
                        ErrorKind::RelativeNotAllowed("only constants are indexed by a0"),
                        at,
                    );
                }
            }
            R::Loop if rel.reg.index == 0 && register_count(p, R::Loop) > 0 => {
                if rel.swizzle != Swizzle::IDENTITY && rel.swizzle.replicated() != Some(0) {
                    return fail(ErrorKind::RelativeNotAllowed("aL takes no swizzle"), at);
                }
                if self.loop_depth == 0 || !self.stack.contains(&Block::Loop) {
                    return fail(ErrorKind::RelativeNotAllowed("aL outside a loop"), at);
                }
            }
            _ => {
                return fail(
                    ErrorKind::RelativeNotAllowed("the address must be a0 or aL"),
                    at,
                )
            }
        }
        Ok(())
    }

    fn dst(&mut self, op: Opcode, d: &Dst, at: usize) -> Result<(), ShaderError> {
        use Profile::*;
        use RegisterType as R;
        let p = self.profile;
        let ty = d.reg.ty;
        let ok = match op {
            Opcode::SetP => ty == R::Predicate,
            Opcode::Mova => ty == R::Addr,
            Opcode::TexKill => match p {
                Ps1_1 | Ps1_2 | Ps1_3 => ty == R::Addr,
                _ => ty == R::Temp || ty == R::Addr,
            },
            _ => match (p, ty) {
                (_, R::Temp) => true,
                (Vs1_1, R::Addr) => op == Opcode::Mov,
                (Vs1_1 | Vs2_0 | Vs2_x, R::RastOut | R::AttrOut | R::TexCrdOut) => true,
                (Vs3_0, R::TexCrdOut) => true,
                (Ps1_1 | Ps1_2 | Ps1_3, R::Addr) => true,
                (Ps2_0 | Ps2_x | Ps3_0, R::ColorOut | R::DepthOut) => true,
                _ => false,
            },
        };
        if !ok {
            return fail(
                ErrorKind::RegisterNotAllowed {
                    ty,
                    what: "not a destination of this instruction",
                },
                at,
            );
        }
        self.range(d.reg, at)?;
        if op == Opcode::TexKill || (p == Vs3_0 && ty == R::TexCrdOut) {
            self.declared_check(d.reg, at)?;
        }
        let m = d.modifiers;
        if m.saturate && matches!(p, Vs1_1 | Vs2_0 | Vs2_x) {
            return fail(ErrorKind::ModifierNotAllowed("_sat before vs_3_0"), at);
        }
        if m.partial_precision && (p.is_vertex() || p.is_sm1()) {
            return fail(ErrorKind::ModifierNotAllowed("_pp outside ps_2_0+"), at);
        }
        // _centroid: on input declarations (checked there) and, from
        // ps_2_0, on the texture lookups and dsx/dsy as a hint for their
        // gradients (DX9 SDK, "Instruction Modifiers (Pixel Shader)").
        if m.centroid
            && (p.is_vertex()
                || p.is_sm1()
                || !matches!(
                    op,
                    Opcode::Tex | Opcode::TexLdd | Opcode::TexLdl | Opcode::Dsx | Opcode::Dsy
                ))
        {
            return fail(
                ErrorKind::ModifierNotAllowed("_centroid outside dcl and ps_2_0+ texld*, dsx, dsy"),
                at,
            );
        }
        if d.shift != 0 && !p.is_ps1() {
            return fail(
                ErrorKind::ModifierNotAllowed("result shift outside ps_1_x"),
                at,
            );
        }
        if let Some(rel) = &d.relative {
            self.relative(d.reg, rel, true, at)?;
        }
        Ok(())
    }

    fn src(&mut self, op: Opcode, s: &Src, want: Want, at: usize) -> Result<(), ShaderError> {
        use Profile::*;
        use RegisterType as R;
        let p = self.profile;
        let ty = s.reg.ty;
        let ok = match want {
            Want::Value => matches!(
                (p, ty),
                (_, R::Temp | R::Input | R::Const)
                    | (Ps1_1 | Ps1_2 | Ps1_3 | Ps1_4 | Ps2_0 | Ps2_x, R::Addr)
                    | (Ps3_0, R::MiscType)
            ),
            Want::Sampler => ty == R::Sampler,
            Want::Label => ty == R::Label,
            Want::BoolOrPred => ty == R::ConstBool || ty == R::Predicate,
            Want::Pred => ty == R::Predicate,
            Want::Int => ty == R::ConstInt,
            Want::LoopReg => ty == R::Loop,
        };
        if !ok {
            return fail(
                ErrorKind::RegisterNotAllowed {
                    ty,
                    what: "not a source of this instruction",
                },
                at,
            );
        }
        if want == Want::Value && op == Opcode::Tex && p == Ps1_4 && ty != R::Addr && ty != R::Temp
        {
            return fail(ErrorKind::BadOperand("ps_1_4 texld reads t# or r#"), at);
        }
        self.range(s.reg, at)?;
        self.declared_check(s.reg, at)?;
        // Source modifiers.
        let m = s.modifier;
        let allowed = match m {
            SrcModifier::None => true,
            SrcModifier::Not => ty == R::Predicate,
            _ if matches!(
                want,
                Want::Sampler
                    | Want::Label
                    | Want::Int
                    | Want::LoopReg
                    | Want::Pred
                    | Want::BoolOrPred
            ) =>
            {
                false
            }
            SrcModifier::Neg => true,
            SrcModifier::Bias
            | SrcModifier::BiasNeg
            | SrcModifier::Sign
            | SrcModifier::SignNeg
            | SrcModifier::Comp => p.is_ps1(),
            SrcModifier::X2 | SrcModifier::X2Neg => p == Ps1_4,
            SrcModifier::Dz | SrcModifier::Dw => {
                p == Ps1_4 && matches!(op, Opcode::Tex | Opcode::TexCoord)
            }
            SrcModifier::Abs | SrcModifier::AbsNeg => matches!(p, Vs3_0 | Ps3_0),
        };
        if !allowed {
            return fail(ErrorKind::ModifierNotAllowed("source modifier"), at);
        }
        if want == Want::Sampler && s.swizzle != Swizzle::IDENTITY {
            return fail(ErrorKind::ModifierNotAllowed("swizzle on a sampler"), at);
        }
        if let Some(rel) = &s.relative {
            self.relative(s.reg, rel, false, at)?;
        }
        Ok(())
    }

    fn def_dst(&mut self, d: &Dst, ty: RegisterType, at: usize) -> Result<(), ShaderError> {
        if d.reg.ty != ty {
            return fail(
                ErrorKind::RegisterNotAllowed {
                    ty: d.reg.ty,
                    what: "not the register file this definition defines",
                },
                at,
            );
        }
        self.range(d.reg, at)?;
        if d.write_mask != 0xF
            || d.modifiers != Default::default()
            || d.shift != 0
            || d.relative.is_some()
        {
            return fail(
                ErrorKind::BadDefinition("mask, modifier or relative address on a definition"),
                at,
            );
        }
        Ok(())
    }

    fn dcl(
        &mut self,
        semantic: &Semantic,
        d: &Dst,
        at: usize,
        ins_at: usize,
    ) -> Result<(), ShaderError> {
        use Profile::*;
        use RegisterType as R;
        let p = self.profile;
        let ty = d.reg.ty;
        let ok = matches!(
            (p, ty),
            (Vs1_1 | Vs2_0 | Vs2_x | Vs3_0, R::Input)
                | (Vs3_0, R::TexCrdOut | R::Sampler)
                | (Ps2_0 | Ps2_x, R::Input | R::Addr | R::Sampler)
                | (Ps3_0, R::Input | R::MiscType | R::Sampler)
        );
        if !ok {
            return fail(
                ErrorKind::RegisterNotAllowed {
                    ty,
                    what: "cannot be declared in this version",
                },
                at,
            );
        }
        self.range(d.reg, at)?;
        match semantic {
            Semantic::Sampler(st) => {
                if !matches!(
                    st,
                    SamplerType::Tex2D | SamplerType::Cube | SamplerType::Volume
                ) {
                    return fail(
                        ErrorKind::BadDeclaration("sampler type must be 2d, cube or volume"),
                        at.saturating_sub(1),
                    );
                }
                if d.write_mask != 0xF {
                    return fail(
                        ErrorKind::BadDeclaration("mask on a sampler declaration"),
                        at,
                    );
                }
                if self.is_declared(d.reg) {
                    return fail(ErrorKind::BadDeclaration("sampler declared twice"), at);
                }
            }
            Semantic::Usage { usage, index } => {
                let plain = p.is_sm1() || (!p.is_vertex() && p != Ps3_0) || ty == R::MiscType;
                if plain && !p.is_vertex() && (*usage != Usage::Position || *index != 0) {
                    return fail(
                        ErrorKind::BadDeclaration("usage on a declaration that takes none"),
                        at.saturating_sub(1),
                    );
                }
                if ty == R::Sampler {
                    return fail(
                        ErrorKind::BadDeclaration("usage on a sampler"),
                        at.saturating_sub(1),
                    );
                }
            }
        }
        let m = d.modifiers;
        if d.shift != 0 || m.saturate || d.relative.is_some() {
            return fail(ErrorKind::BadDeclaration("modifier on a declaration"), at);
        }
        if (m.centroid || m.partial_precision) && (p.is_vertex() || p.is_sm1() || ty == R::Sampler)
        {
            return fail(
                ErrorKind::BadDeclaration("_centroid/_pp outside ps_2_0+ inputs"),
                at,
            );
        }
        // ps_3_0 inputs and vs_3_0 outputs are matched by semantic and
        // may pack several semantics into one register, each on its own
        // components; a semantic is declared once (M, dcl_usage for
        // ps_3_0 and vs_3_0).
        if let Semantic::Usage { usage, index } = semantic {
            if (p == Ps3_0 && ty == R::Input) || (p == Vs3_0 && ty == R::TexCrdOut) {
                let claimed = self
                    .packed
                    .get_mut(usize::from(d.reg.index))
                    .ok_or(ShaderError {
                        kind: ErrorKind::BadDeclaration("register out of range"),
                        dword: at,
                    })?;
                if *claimed & d.write_mask != 0 {
                    return fail(ErrorKind::BadDeclaration("a component declared twice"), at);
                }
                *claimed |= d.write_mask;
                let bit = 1u16 << (index & 15);
                let seen = self.semantics.get_mut(*usage as usize).ok_or(ShaderError {
                    kind: ErrorKind::BadDeclaration("usage out of range"),
                    dword: at.saturating_sub(1),
                })?;
                if *seen & bit != 0 {
                    return fail(
                        ErrorKind::BadDeclaration("a semantic declared twice"),
                        at.saturating_sub(1),
                    );
                }
                *seen |= bit;
            }
        }
        if let Some(mask) = self.declared.get_mut(ty as usize) {
            *mask |= 1u32 << (d.reg.index & 31);
        }
        let _ = ins_at;
        Ok(())
    }
}
