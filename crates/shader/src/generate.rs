//! Random *valid* shader programs: a grammar that reads arbitrary bytes (a
//! fuzzer's input) as choices and writes a program that passes
//! [`crate::valid::validate`] for the version asked for, so that the
//! executors can be fuzzed with programs that get past validation (the
//! `shader_exec` fuzz target) — random tokens almost never do.
//!
//! - In: a [`Profile`] (any of [`Profile::ALL`]) and bytes, read through
//!   [`Choices`] (past the end every choice reads 0: no optional
//!   construct, and every open block and the program end).
//! - Out: a [`Shader`] ([`program`]) or its tokens ([`tokens`]); for
//!   running one, constants, inputs and a lane mask from the bytes the
//!   program left ([`run_inputs`]), NaN, infinities, huge and tiny values
//!   included.
//! - Guarantees: total (never panics) and bounded: a program takes at most
//!   [`MAX_SLOTS`] instruction slots (and no more than its version allows),
//!   blocks nest no deeper than [`MAX_DEPTH`]; every program validates
//!   (tested over thousands of seeded byte strings per version, and
//!   asserted by the fuzz target on every input). What the grammar covers,
//!   and what not, is in `docs/shaders.md` §16.
//!
//! The grammar writes what the validator checks and, beyond it, the
//! Direct3D rules a compiler's output keeps (temporaries written before
//! they are read, full masks on declarations, the matrix instructions'
//! masks, replicate swizzles on scalar sources, `mov` into `oC#`/`oDepth`),
//! so that the programs are ones a runtime would hand a driver.

use crate::exec::{Constants, Mask, Program, Registers, Vec4, ALL_LANES, LANES};
use crate::ir::{
    rastout, Comparison, Control, Dst, DstModifiers, Form, Instruction, Opcode, Operands, Profile,
    Register, RegisterType, RelAddr, SamplerType, Semantic, Shader, Src, SrcModifier, Swizzle,
    Usage,
};
use crate::valid::{is_texture_op, nesting, register_count, slot_limits, slots};

/// Instruction slots one generated program takes at most (fewer where the
/// version allows fewer): long enough for every construct, short enough
/// to run thousands of programs a second.
pub const MAX_SLOTS: u32 = 160;

/// Flow-control blocks nest at most this deep in a generated program
/// (and never deeper than the version allows).
pub const MAX_DEPTH: usize = 6;

/// Statements one block holds at most.
const MAX_STATEMENTS: usize = 24;

/// Bytes read as choices. Every read takes the next byte; past the end a
/// read gives 0, and a 0 ends what is being written, so any byte string,
/// the empty one included, gives a finished program.
#[derive(Clone, Debug)]
pub struct Choices<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Past the end, start again (each round with its bytes XORed with
    /// the round number) instead of reading 0.
    cycle: bool,
}

impl<'a> Choices<'a> {
    /// Choices read from `bytes`, first byte first, 0 past the end.
    pub fn new(bytes: &'a [u8]) -> Choices<'a> {
        Choices {
            bytes,
            pos: 0,
            cycle: false,
        }
    }

    /// Choices that read `bytes` round and round (0 only if `bytes` is
    /// empty): for values, where a few bytes must fill many registers.
    pub fn cycling(bytes: &'a [u8]) -> Choices<'a> {
        Choices {
            bytes,
            pos: 0,
            cycle: true,
        }
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.pos..).unwrap_or(&[])
    }

    /// The next byte (0 past the end unless cycling).
    pub fn byte(&mut self) -> u8 {
        let len = self.bytes.len();
        let b = match self.bytes.get(self.pos) {
            Some(&b) => b,
            None if self.cycle && len > 0 => {
                let at = self.pos.checked_rem(len).unwrap_or(0);
                let round = self.pos.checked_div(len).unwrap_or(0) as u8;
                self.bytes.get(at).copied().unwrap_or(0) ^ round
            }
            None => 0,
        };
        self.pos = self.pos.saturating_add(1);
        b
    }

    /// Whether every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// A number below `n` (0 when `n` is 0): one byte, two when `n` > 256.
    pub fn below(&mut self, n: usize) -> usize {
        let v = if n > 256 {
            usize::from(u16::from_le_bytes([self.byte(), self.byte()]))
        } else {
            usize::from(self.byte())
        };
        v.checked_rem(n).unwrap_or(0)
    }

    /// An element of `items` (`None` when it is empty).
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        let i = self.below(items.len());
        items.get(i).copied()
    }

    /// True with probability `n`/256, never past the end: "do the
    /// optional thing" (a modifier, a relative address, a second phase),
    /// so that zeros choose the plainest program.
    pub fn chance(&mut self, n: u8) -> bool {
        u16::from(self.byte()).saturating_add(u16::from(n)) > 255
    }

    /// True with probability `n`/256, always past the end: "stop here"
    /// (end a block, the texture stages, the arithmetic), so that every
    /// byte string ends.
    pub fn stop(&mut self, n: u8) -> bool {
        self.byte() < n
    }

    /// Four bytes, little-endian.
    pub fn word(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    /// A float a runtime may hand a shader: one of [`SPECIAL_FLOATS`]
    /// (NaNs and infinities among them), a small multiple of 1/4, or any
    /// bit pattern.
    pub fn float(&mut self) -> f32 {
        match self.byte() {
            0..=95 => f32::from_bits(self.pick(&SPECIAL_FLOATS).unwrap_or(0)),
            96..=223 => f32::from(self.byte() as i8) / 4.0,
            _ => f32::from_bits(self.word()),
        }
    }

    /// A finite float (what `def` may hold): [`Choices::float`] with
    /// non-finite values replaced by 1.
    pub fn finite_float(&mut self) -> f32 {
        let f = self.float();
        if f.is_finite() {
            f
        } else {
            1.0
        }
    }
}

/// Bit patterns of floats worth trying: zeros, ones, halves, values near
/// rounding edges, the limits of `f32` (largest, smallest normal, smallest
/// denormal), infinities and NaNs (quiet, negative, signalling).
pub const SPECIAL_FLOATS: [u32; 28] = [
    0x0000_0000, // 0
    0x8000_0000, // -0
    0x3F80_0000, // 1
    0xBF80_0000, // -1
    0x3F00_0000, // 0.5
    0xBF00_0000, // -0.5
    0x4000_0000, // 2
    0x3EFF_FFFF, // just below 0.5
    0x3F7F_FFFF, // just below 1
    0x3E80_0000, // 0.25
    0x4040_0000, // 3
    0x437F_0000, // 255
    0x4380_4000, // 256.5
    0x4B00_0000, // 2^23
    0x4F00_0000, // 2^31
    0xCF00_0000, // -2^31
    0x40C9_0FDB, // 2π
    0x3A83_126F, // 0.001
    0x0080_0000, // smallest normal
    0x0000_0001, // smallest denormal
    0x7F7F_FFFF, // largest
    0xFF7F_FFFF, // most negative
    0x7149_F2CA, // 1e30
    0x7F80_0000, // +inf
    0xFF80_0000, // -inf
    0x7FC0_0000, // NaN
    0xFFC0_0000, // -NaN
    0x7F80_0001, // signalling NaN
];

/// The version a fuzz input's first byte picks.
pub fn profile_of(byte: u8) -> Profile {
    let i = usize::from(byte)
        .checked_rem(Profile::ALL.len())
        .unwrap_or(0);
    Profile::ALL.get(i).copied().unwrap_or(Profile::Vs3_0)
}

/// A program for `profile` from `choices`.
pub fn program(profile: Profile, choices: &mut Choices<'_>) -> Shader {
    let mut g = Gen::new(profile, choices);
    let instructions = if profile.is_ps1() {
        g.ps1()
    } else {
        g.structured()
    };
    Shader {
        profile,
        instructions,
    }
}

/// The tokens of the program for `profile` that `bytes` choose.
pub fn tokens(profile: Profile, bytes: &[u8]) -> Vec<u32> {
    program(profile, &mut Choices::new(bytes)).to_tokens()
}

/// What one run of a program is given: the runtime's constants, the
/// registers with every input filled (`v#`, texture coordinates, `vPos`,
/// `vFace`), and the lanes to run (never none). Read from the bytes
/// `choices` has left, round and round (`Choices::cycling`), in this
/// order: the lane mask, `i#`, `b#`, the inputs, `c#`.
pub fn run_inputs(program: &Program, choices: &mut Choices<'_>) -> (Constants, Registers, Mask) {
    let mut c = Choices::cycling(choices.rest());
    let vec4 = |c: &mut Choices<'_>| -> Vec4 { [c.float(), c.float(), c.float(), c.float()] };
    let mask = match c.byte() & ALL_LANES {
        0 => ALL_LANES,
        m => m,
    };
    let int = (0..16)
        .map(|_| {
            // Counts mostly small (the executor clamps them to 255), aL
            // starts and steps near the register ranges.
            let count = if c.chance(64) {
                c.word() as i32
            } else {
                i32::from(c.byte() & 7)
            };
            let mut small = || i32::from(c.byte() as i8);
            [count, small(), small(), small()]
        })
        .collect();
    let bool = (0..16).map(|_| c.byte() & 1 != 0).collect();
    let mut regs = Registers::new(program);
    let lanes = |c: &mut Choices<'_>| -> [Vec4; LANES] { std::array::from_fn(|_| vec4(c)) };
    for r in regs.input.iter_mut().chain(regs.texcoord.iter_mut()) {
        *r = lanes(&mut c);
    }
    regs.position = lanes(&mut c);
    regs.face = std::array::from_fn(|_| c.float());
    let float_count = usize::from(register_count(program.profile(), RegisterType::Const));
    let float = (0..float_count).map(|_| vec4(&mut c)).collect();
    let constants = Constants { float, int, bool };
    (constants, regs, mask)
}

fn reg(ty: RegisterType, index: u16) -> Register {
    Register { ty, index }
}

fn plain_src(reg: Register) -> Src {
    Src {
        reg,
        swizzle: Swizzle::IDENTITY,
        modifier: SrcModifier::None,
        relative: None,
    }
}

fn plain_dst(reg: Register, write_mask: u8) -> Dst {
    Dst {
        reg,
        write_mask,
        modifiers: DstModifiers::default(),
        shift: 0,
        relative: None,
    }
}

fn op(opcode: Opcode, dst: Option<Dst>, src: Vec<Src>) -> Instruction {
    Instruction::new(opcode, Control::None, Operands::Op { dst, src })
}

/// The arithmetic opcodes the grammar picks from (those the version
/// allows: `Opcode::allowed_in`).
const ARITHMETIC: [Opcode; 37] = {
    use Opcode::*;
    [
        Mov, Add, Sub, Mad, Mul, Rcp, Rsq, Dp3, Dp4, Min, Max, Slt, Sge, Exp, Log, Lit, Dst, Lrp,
        Frc, M4x4, M4x3, M3x4, M3x3, M3x2, Pow, Crs, Sgn, Abs, Nrm, SinCos, ExpP, LogP, Cnd, Cmp,
        Dp2Add, Dsx, Dsy,
    ]
};

/// Rows a matrix instruction reads from its second source.
fn matrix_rows(op: Opcode) -> Option<u16> {
    match op {
        Opcode::M4x4 | Opcode::M3x4 => Some(4),
        Opcode::M4x3 | Opcode::M3x3 => Some(3),
        Opcode::M3x2 => Some(2),
        _ => None,
    }
}

/// The write mask an instruction requires, if it requires one.
fn required_mask(op: Opcode) -> Option<u8> {
    match op {
        Opcode::M3x2 | Opcode::Bem => Some(0b0011),
        Opcode::M3x3 | Opcode::M4x3 => Some(0b0111),
        Opcode::M4x4 | Opcode::M3x4 => Some(0b1111),
        _ => None,
    }
}

/// Opcodes whose first source is a scalar (a replicate swizzle).
fn scalar_source(op: Opcode) -> bool {
    use Opcode::*;
    matches!(op, Rcp | Rsq | Exp | Log | ExpP | LogP | Pow | SinCos)
}

const USAGES: [Usage; 8] = [
    Usage::Position,
    Usage::BlendWeight,
    Usage::Normal,
    Usage::TexCoord,
    Usage::Tangent,
    Usage::Binormal,
    Usage::Color,
    Usage::Fog,
];

const SAMPLER_TYPES: [SamplerType; 3] =
    [SamplerType::Tex2D, SamplerType::Cube, SamplerType::Volume];

/// ps_2_0's swizzles: identity, the replicates, and the three rotations
/// (`.yzxw`, `.zxyw`, `.wzyx`).
const PS20_SWIZZLES: [u8; 8] = [0xE4, 0x00, 0x55, 0xAA, 0xFF, 0xC9, 0xD2, 0x1B];

/// The generator's state: what has been declared and written, where the
/// walk is in the flow-control nesting, and the slots spent.
struct Gen<'c, 'a> {
    p: Profile,
    ch: &'c mut Choices<'a>,
    /// Arithmetic opcodes of the version.
    ops: Vec<Opcode>,
    /// `r#` that may be read (initialised, or written earlier in ps_1_x).
    temps: Vec<u16>,
    /// `v#` that may be read.
    inputs: Vec<u16>,
    /// `t#` that arithmetic may read (ps_1_1–1_3: written; ps_2_0/2_x:
    /// declared).
    textures: Vec<u16>,
    /// `s#` declared.
    samplers: Vec<u16>,
    /// vs_3_0: declared `o#` (the first is the position).
    outputs: Vec<u16>,
    /// ps_3_0: declared `vPos` (0) / `vFace` (1).
    misc: Vec<u16>,
    /// Subroutines: label number and the call depth below it.
    labels: Vec<(u16, usize)>,
    /// The components of `a0` the prologue wrote (0: none).
    a0: u8,
    /// Whether the prologue wrote `p0`.
    p0: bool,
    ifs: usize,
    loops: usize,
    /// Open `loop` blocks (`aL` is defined inside them).
    al_loops: usize,
    static_flow: u32,
    /// The call depth of the subroutine being written (None: main).
    sub_depth: Option<usize>,
    arith: u32,
    tex: u32,
    total: u32,
    /// Arithmetic slots kept for what must still be written (block ends,
    /// the outputs, `ret`s).
    reserve: u32,
    /// A lower cap on the total while the subroutines are written (they
    /// get half the budget, the main program the rest).
    cap: u32,
}

impl<'c, 'a> Gen<'c, 'a> {
    fn new(p: Profile, ch: &'c mut Choices<'a>) -> Gen<'c, 'a> {
        Gen {
            p,
            ch,
            ops: ARITHMETIC
                .iter()
                .copied()
                .filter(|o| o.allowed_in(p))
                .collect(),
            temps: Vec::new(),
            inputs: Vec::new(),
            textures: Vec::new(),
            samplers: Vec::new(),
            outputs: Vec::new(),
            misc: Vec::new(),
            labels: Vec::new(),
            a0: 0,
            p0: false,
            ifs: 0,
            loops: 0,
            al_loops: 0,
            static_flow: 0,
            sub_depth: None,
            arith: 0,
            tex: 0,
            total: 0,
            reserve: 0,
            cap: u32::MAX,
        }
    }

    fn count(&self, ty: RegisterType) -> u16 {
        register_count(self.p, ty)
    }

    fn has(&self, op: Opcode) -> bool {
        op.allowed_in(self.p)
    }

    // ---- budget -------------------------------------------------------

    fn cost(&self, ins: &Instruction) -> (u32, bool) {
        let n = if ins.coissue {
            0
        } else {
            slots(ins.opcode, self.p)
        };
        (n, !self.p.is_vertex() && is_texture_op(ins.opcode))
    }

    fn fits(&self, ins: &Instruction) -> bool {
        let limits = slot_limits(self.p);
        let (n, tex) = self.cost(ins);
        let total = self.total.saturating_add(n).saturating_add(self.reserve);
        if total > limits.total.min(MAX_SLOTS).min(self.cap) {
            return false;
        }
        if tex {
            self.tex.saturating_add(n) <= limits.texture
        } else {
            self.arith.saturating_add(n).saturating_add(self.reserve) <= limits.arithmetic
        }
    }

    /// Counts `ins` (which was checked by [`Gen::fits`] or reserved).
    fn spend(&mut self, ins: &Instruction) {
        let (n, tex) = self.cost(ins);
        if tex {
            self.tex = self.tex.saturating_add(n);
        } else {
            self.arith = self.arith.saturating_add(n);
        }
        self.total = self.total.saturating_add(n);
    }

    /// Appends `ins` if it fits the budget.
    fn emit(&mut self, out: &mut Vec<Instruction>, ins: Instruction) -> bool {
        if !self.fits(&ins) {
            return false;
        }
        self.spend(&ins);
        out.push(ins);
        true
    }

    /// Keeps `n` slots for a later instruction (whose `emit_reserved`
    /// releases them).
    fn reserve(&mut self, ins: &Instruction) -> bool {
        let (n, _) = self.cost(ins);
        if !self.fits(ins) {
            return false;
        }
        self.reserve = self.reserve.saturating_add(n);
        true
    }

    fn emit_reserved(&mut self, out: &mut Vec<Instruction>, ins: Instruction) {
        let (n, _) = self.cost(&ins);
        self.reserve = self.reserve.saturating_sub(n);
        self.spend(&ins);
        out.push(ins);
    }

    // ---- registers ----------------------------------------------------

    /// `count` distinct register numbers below `limit`.
    fn distinct(&mut self, count: usize, limit: u16) -> Vec<u16> {
        let mut picked: Vec<u16> = Vec::new();
        for _ in 0..count {
            let start = self.ch.below(usize::from(limit)) as u16;
            // The next free number at or after `start`, wrapping.
            let free = (0..limit)
                .map(|k| {
                    start
                        .saturating_add(k)
                        .checked_rem(limit.max(1))
                        .unwrap_or(0)
                })
                .find(|n| !picked.contains(n));
            if let Some(n) = free {
                picked.push(n);
            }
        }
        picked
    }

    fn swizzle(&mut self) -> Swizzle {
        match self.p {
            Profile::Ps1_1 | Profile::Ps1_2 | Profile::Ps1_3 => {
                if self.ch.chance(64) {
                    Swizzle::replicate(3)
                } else {
                    Swizzle::IDENTITY
                }
            }
            Profile::Ps1_4 => {
                if self.ch.chance(64) {
                    Swizzle::replicate(self.ch.byte())
                } else {
                    Swizzle::IDENTITY
                }
            }
            Profile::Ps2_0 => Swizzle(self.ch.pick(&PS20_SWIZZLES).unwrap_or(0xE4)),
            _ => {
                if self.ch.chance(128) {
                    Swizzle(self.ch.byte())
                } else {
                    Swizzle::IDENTITY
                }
            }
        }
    }

    fn src_modifier(&mut self) -> SrcModifier {
        use SrcModifier::*;
        if !self.ch.chance(64) {
            return None;
        }
        let p = self.p;
        let mut mods = vec![Neg];
        if p.is_ps1() {
            mods.extend([Bias, BiasNeg, Sign, SignNeg, Comp]);
        }
        if p == Profile::Ps1_4 {
            mods.extend([X2, X2Neg]);
        }
        if matches!(p, Profile::Vs3_0 | Profile::Ps3_0) {
            mods.extend([Abs, AbsNeg]);
        }
        self.ch.pick(&mods).unwrap_or(None)
    }

    /// An `aL` relative address, when inside a `loop`.
    fn loop_address(&mut self) -> Option<RelAddr> {
        (self.al_loops > 0 && self.count(RegisterType::Loop) > 0 && self.ch.chance(96)).then_some(
            RelAddr {
                reg: reg(RegisterType::Loop, 0),
                swizzle: Swizzle::IDENTITY,
                implicit: false,
            },
        )
    }

    /// A relative address for a constant: `a0` (vertex shaders, once the
    /// prologue wrote it) or `aL`.
    fn constant_address(&mut self) -> Option<RelAddr> {
        if let Some(al) = self.loop_address() {
            return Some(al);
        }
        if !(self.a0 != 0 && self.p.is_vertex() && self.ch.chance(96)) {
            return None;
        }
        // A component the prologue wrote.
        let written: Vec<u8> = (0..4u8).filter(|c| self.a0 & (1 << c) != 0).collect();
        let component = self.ch.pick(&written).unwrap_or(0);
        Some(RelAddr {
            reg: reg(RegisterType::Addr, 0),
            swizzle: Swizzle::replicate(component),
            implicit: self.p.is_sm1(),
        })
    }

    /// A constant register: `c#` with room for `rows` consecutive
    /// registers, maybe relative.
    fn constant(&mut self, rows: u16) -> (Register, Option<RelAddr>) {
        let n = self
            .count(RegisterType::Const)
            .saturating_sub(rows.saturating_sub(1));
        let index = self.ch.below(usize::from(n)) as u16;
        (reg(RegisterType::Const, index), self.constant_address())
    }

    /// A register a value may be read from (before swizzle and modifier).
    fn value_register(&mut self) -> (Register, Option<RelAddr>) {
        let mut kinds: Vec<u8> = vec![0];
        if !self.temps.is_empty() {
            kinds.extend([1, 1]);
        }
        if !self.inputs.is_empty() {
            kinds.push(2);
        }
        if !self.textures.is_empty() {
            kinds.push(3);
        }
        if !self.misc.is_empty() {
            kinds.push(4);
        }
        match self.ch.pick(&kinds).unwrap_or(0) {
            1 => (self.pick_reg(RegisterType::Temp), None),
            2 => {
                let r = self.pick_reg(RegisterType::Input);
                // vs_3_0 and ps_3_0 index inputs by aL.
                let rel = if matches!(self.p, Profile::Vs3_0 | Profile::Ps3_0) {
                    self.loop_address()
                } else {
                    None
                };
                (r, rel)
            }
            3 => (self.pick_reg(RegisterType::TEXTURE), None),
            4 => (self.pick_reg(RegisterType::MiscType), None),
            _ => self.constant(1),
        }
    }

    /// One of the readable registers of `ty` (temporaries, inputs, t#,
    /// vPos/vFace); the lists are never empty when asked.
    fn pick_reg(&mut self, ty: RegisterType) -> Register {
        let list = match ty {
            RegisterType::Temp => &self.temps,
            RegisterType::Input => &self.inputs,
            RegisterType::MiscType => &self.misc,
            _ => &self.textures,
        };
        let i = self.ch.below(list.len());
        reg(ty, list.get(i).copied().unwrap_or(0))
    }

    fn value_src(&mut self) -> Src {
        let (reg, relative) = self.value_register();
        Src {
            reg,
            swizzle: self.swizzle(),
            modifier: self.src_modifier(),
            relative,
        }
    }

    /// A value source with a replicate swizzle (scalar operands).
    fn scalar_src(&mut self) -> Src {
        let mut s = self.value_src();
        s.swizzle = Swizzle::replicate(self.ch.byte());
        s
    }

    fn temp_src(&mut self) -> Src {
        plain_src(self.pick_reg(RegisterType::Temp))
    }

    fn mask(&mut self) -> u8 {
        match self.ch.byte() & 0x1F {
            0..=15 => 0xF,
            m => m & 0xF | 1,
        }
    }

    fn dst_modifiers(&mut self, dst: &mut Dst) {
        let p = self.p;
        if (p == Profile::Vs3_0 || !p.is_vertex()) && self.ch.chance(40) {
            dst.modifiers.saturate = true;
        }
        if !p.is_vertex() && !p.is_sm1() && self.ch.chance(40) {
            dst.modifiers.partial_precision = true;
        }
        if p.is_ps1() && self.ch.chance(40) {
            dst.shift = self.ch.pick(&[1i8, 2, 3, -1, -2, -3]).unwrap_or(0);
        }
    }

    /// The destination of arithmetic `op`: a temporary or, sometimes, an
    /// output register of the version.
    fn arith_dst(&mut self, op: Opcode) -> Dst {
        let p = self.p;
        let required = required_mask(op);
        let mut dst = if self.ch.chance(48) {
            self.output_dst(op, required)
        } else {
            None
        }
        .unwrap_or_else(|| plain_dst(reg(RegisterType::Temp, 0), 0xF));
        if dst.reg.ty == RegisterType::Temp {
            let r = self.pick_reg(RegisterType::Temp);
            dst.reg = r;
            dst.write_mask = match (op, required) {
                (_, Some(m)) => m,
                (Opcode::SinCos, _) => self.ch.pick(&[1u8, 2, 3]).unwrap_or(3),
                (Opcode::Crs, _) => self.mask() & 7 | 1,
                _ => self.mask(),
            };
            if p.is_ps1() && op != Opcode::Bem {
                // ps_1_x: .rgba, .rgb or .a.
                dst.write_mask = self.ch.pick(&[0xFu8, 0x7, 0x8]).unwrap_or(0xF);
            }
        }
        if dst.reg.ty != RegisterType::DepthOut && dst.reg.ty != RegisterType::ColorOut {
            self.dst_modifiers(&mut dst);
        }
        dst
    }

    /// An output register `op` may write, if the version has one that
    /// fits the mask the opcode requires.
    fn output_dst(&mut self, op: Opcode, required: Option<u8>) -> Option<Dst> {
        use RegisterType as R;
        let p = self.p;
        // sincos, crs and sgn write temporaries only.
        if matches!(op, Opcode::SinCos | Opcode::Crs | Opcode::Sgn) {
            return None;
        }
        let mask = required.unwrap_or(0xF);
        let free = required.is_none();
        let d = match p {
            Profile::Vs1_1 | Profile::Vs2_0 | Profile::Vs2_x => match self.ch.below(4) {
                0 if mask == 0xF => plain_dst(reg(R::RastOut, rastout::POSITION), 0xF),
                1 if free => {
                    let i = if self.ch.chance(128) {
                        rastout::FOG
                    } else {
                        rastout::POINT_SIZE
                    };
                    plain_dst(reg(R::RastOut, i), 1)
                }
                2 => {
                    let i = self.ch.below(2) as u16;
                    plain_dst(reg(R::AttrOut, i), mask)
                }
                _ => {
                    let i = self.ch.below(8) as u16;
                    plain_dst(reg(R::TexCrdOut, i), mask)
                }
            },
            Profile::Vs3_0 => {
                let i = self.ch.below(self.outputs.len());
                let mut d = plain_dst(reg(R::OUTPUT, *self.outputs.get(i)?), mask);
                d.relative = self.loop_address();
                d
            }
            _ if op == Opcode::Mov && !p.is_sm1() => {
                if self.ch.chance(40) {
                    plain_dst(reg(R::DepthOut, 0), 1)
                } else {
                    plain_dst(reg(R::ColorOut, self.ch.below(4) as u16), 0xF)
                }
            }
            _ => return None,
        };
        Some(d)
    }

    // ---- instructions -------------------------------------------------

    /// An arithmetic instruction (sources and destination chosen for it).
    fn arith(&mut self) -> Option<Instruction> {
        let opcode = self.ch.pick(&self.ops.clone())?;
        let Some(Form::Op { dst: true, srcs }) = opcode.form(self.p) else {
            return None;
        };
        if opcode == Opcode::Cnd && !self.cnd_ok() {
            return None;
        }
        let dst = self.arith_dst(opcode);
        let src = (0..srcs).map(|k| self.arith_src(opcode, k)).collect();
        let mut ins = op(opcode, Some(dst), src);
        self.predicate(&mut ins);
        Some(ins)
    }

    /// ps_1_1–1_3 `cnd` selects on `r0.a`, which must have been written.
    fn cnd_ok(&self) -> bool {
        !matches!(self.p, Profile::Ps1_1 | Profile::Ps1_2 | Profile::Ps1_3)
            || self.temps.contains(&0)
    }

    fn arith_src(&mut self, opcode: Opcode, k: u8) -> Src {
        use Opcode::*;
        let p = self.p;
        match (opcode, k) {
            (Cnd, 0) if matches!(p, Profile::Ps1_1 | Profile::Ps1_2 | Profile::Ps1_3) => Src {
                swizzle: Swizzle::replicate(3),
                ..plain_src(reg(RegisterType::Temp, 0))
            },
            (_, 1) if matrix_rows(opcode).is_some() => {
                let (reg, relative) = self.constant(matrix_rows(opcode).unwrap_or(4));
                Src {
                    reg,
                    swizzle: Swizzle::IDENTITY,
                    modifier: SrcModifier::None,
                    relative,
                }
            }
            // vs_2_0/2_x, ps_2_0/2_x: sincos's helper constants, sgn's
            // scratch temporaries.
            (SinCos, 1 | 2) => {
                let (reg, _) = self.constant(1);
                plain_src(reg)
            }
            (Sgn, 1 | 2) => self.temp_src(),
            (Dp2Add, 2) => self.scalar_src(),
            (Pow, _) => self.scalar_src(),
            (_, 0) if scalar_source(opcode) => self.scalar_src(),
            _ => self.value_src(),
        }
    }

    /// Predicates `ins` sometimes, where the version has `p0` and the
    /// prologue set it.
    fn predicate(&mut self, ins: &mut Instruction) {
        if self.p0 && self.ch.chance(40) {
            ins.predicate = Some(self.predicate_src());
        }
    }

    fn predicate_src(&mut self) -> Src {
        Src {
            reg: reg(RegisterType::Predicate, 0),
            swizzle: if self.ch.chance(128) {
                Swizzle::IDENTITY
            } else {
                Swizzle::replicate(self.ch.byte())
            },
            modifier: if self.ch.chance(96) {
                SrcModifier::Not
            } else {
                SrcModifier::None
            },
            relative: None,
        }
    }

    fn comparison(&mut self) -> Control {
        Control::Comparison(self.ch.pick(&Comparison::ALL).unwrap_or(Comparison::Gt))
    }

    /// A texture instruction of ps_2_0+ or vs_3_0 (`texld`, `texldp`,
    /// `texldb`, `texldl`, `texldd`, `texkill`).
    fn texture(&mut self) -> Option<Instruction> {
        use Opcode::*;
        let p = self.p;
        let mut choices = vec![];
        if !self.samplers.is_empty() {
            choices.extend(
                [Tex, TexLdl, TexLdd]
                    .into_iter()
                    .filter(|o| o.allowed_in(p)),
            );
        }
        if self.has(TexKill) {
            choices.push(TexKill);
        }
        let opcode = self.ch.pick(&choices)?;
        if opcode == TexKill {
            let r = if !self.textures.is_empty() && self.ch.chance(96) {
                self.pick_reg(RegisterType::TEXTURE)
            } else {
                self.pick_reg(RegisterType::Temp)
            };
            return Some(op(TexKill, Some(plain_dst(r, 0xF)), vec![]));
        }
        let mut dst = plain_dst(self.pick_reg(RegisterType::Temp), 0xF);
        if !p.is_vertex() && self.ch.chance(40) {
            dst.modifiers.partial_precision = true;
        }
        let sampler = plain_src(reg(
            RegisterType::Sampler,
            *self.samplers.get(self.ch.below(self.samplers.len()))?,
        ));
        // ps_2_0/2_x sample at t# or r#; later versions at any value.
        let coords = if matches!(p, Profile::Ps2_0 | Profile::Ps2_x) {
            if !self.textures.is_empty() && self.ch.chance(128) {
                plain_src(self.pick_reg(RegisterType::TEXTURE))
            } else {
                self.temp_src()
            }
        } else {
            self.value_src()
        };
        let (control, src) = match opcode {
            Tex => {
                let control = match self.ch.below(3) {
                    1 => Control::Project,
                    2 => Control::Bias,
                    _ => Control::None,
                };
                (control, vec![coords, sampler])
            }
            TexLdd => {
                let (ddx, ddy) = (self.value_src(), self.value_src());
                (Control::None, vec![coords, sampler, ddx, ddy])
            }
            _ => (Control::None, vec![coords, sampler]),
        };
        let mut ins = Instruction::new(
            opcode,
            control,
            Operands::Op {
                dst: Some(dst),
                src,
            },
        );
        self.predicate(&mut ins);
        Some(ins)
    }

    // ---- shader model 2 and 3 (and vs_1_1) ----------------------------

    /// Declarations, a prologue that writes every temporary the program
    /// reads (and `a0`, `p0`), subroutines, the main body, the outputs.
    fn structured(&mut self) -> Vec<Instruction> {
        let mut decls = Vec::new();
        self.definitions(&mut decls);
        self.declarations(&mut decls);
        let mut main = Vec::new();
        self.prologue(&mut main);
        // The outputs written last, and the ret before the subroutines.
        let tail = self.tail();
        for ins in &tail {
            self.reserve(ins);
        }
        let ret = tail.iter().any(|i| i.opcode == Opcode::Ret);
        let subs = if ret {
            self.cap = self.total.saturating_add(self.reserve).saturating_add(
                slot_limits(self.p)
                    .total
                    .min(MAX_SLOTS)
                    .saturating_sub(self.total)
                    / 2,
            );
            let subs = self.subroutines();
            self.cap = u32::MAX;
            subs
        } else {
            Vec::new()
        };
        self.block(&mut main, 0);
        for ins in tail {
            self.emit_reserved(&mut main, ins);
        }
        decls.extend(main);
        decls.extend(subs);
        decls
    }

    fn definitions(&mut self, out: &mut Vec<Instruction>) {
        let consts = self.count(RegisterType::Const);
        let n = self.ch.below(4);
        for index in self.distinct(n, consts) {
            let v = [0; 4].map(|_| self.ch.finite_float().to_bits());
            out.push(Instruction::new(
                Opcode::Def,
                Control::None,
                Operands::Def {
                    dst: plain_dst(reg(RegisterType::Const, index), 0xF),
                    values: v,
                },
            ));
        }
        if self.has(Opcode::DefI) {
            let n = self.ch.below(3);
            for index in self.distinct(n, 16) {
                // Loop counts small most of the time; aL starts and steps
                // near the register ranges.
                let count = if self.ch.chance(32) {
                    self.ch.word() as i32
                } else {
                    i32::from(self.ch.byte() & 7)
                };
                let values = [
                    count,
                    i32::from(self.ch.byte() as i8),
                    i32::from(self.ch.byte() as i8),
                    0,
                ];
                out.push(Instruction::new(
                    Opcode::DefI,
                    Control::None,
                    Operands::DefI {
                        dst: plain_dst(reg(RegisterType::ConstInt, index), 0xF),
                        values,
                    },
                ));
            }
        }
        if self.has(Opcode::DefB) {
            let n = self.ch.below(3);
            for index in self.distinct(n, 16) {
                let value = u32::from(self.ch.byte() & 1);
                out.push(Instruction::new(
                    Opcode::DefB,
                    Control::None,
                    Operands::DefB {
                        dst: plain_dst(reg(RegisterType::ConstBool, index), 0xF),
                        value,
                    },
                ));
            }
        }
    }

    fn dcl(&self, out: &mut Vec<Instruction>, semantic: Semantic, dst: Dst) {
        out.push(Instruction::new(
            Opcode::Dcl,
            Control::None,
            Operands::Dcl { semantic, dst },
        ));
    }

    /// A usage for the `k`th declaration of a file (distinct usage/index
    /// pairs: the index is `k`).
    fn usage(&mut self, k: usize) -> Semantic {
        // ps_3_0 reads the position as vPos, not as a usage.
        let usages = if self.p.is_vertex() {
            &USAGES[..]
        } else {
            USAGES.get(1..).unwrap_or(&[])
        };
        Semantic::Usage {
            usage: self.ch.pick(usages).unwrap_or(Usage::TexCoord),
            index: (k & 0xF) as u8,
        }
    }

    const PLAIN: Semantic = Semantic::Usage {
        usage: Usage::Position,
        index: 0,
    };

    fn declarations(&mut self, out: &mut Vec<Instruction>) {
        use RegisterType as R;
        let p = self.p;
        // Inputs: vertex elements, colours, ps_3_0 varyings.
        let inputs = self.count(R::Input);
        let n = 1usize.saturating_add(self.ch.below(4));
        self.inputs = self.distinct(n, inputs);
        let declare_inputs = p != Profile::Vs1_1 || self.ch.chance(128);
        if declare_inputs {
            for (k, &i) in self.inputs.clone().iter().enumerate() {
                let mut dst = plain_dst(reg(R::Input, i), 0xF);
                let semantic = if p.is_vertex() || p == Profile::Ps3_0 {
                    self.usage(k)
                } else {
                    Self::PLAIN
                };
                if !p.is_vertex() && self.ch.chance(48) {
                    dst.modifiers.centroid = true;
                }
                self.dcl(out, semantic, dst);
            }
        }
        // ps_2_0/2_x texture coordinates.
        if matches!(p, Profile::Ps2_0 | Profile::Ps2_x) {
            let n = self.ch.below(4);
            self.textures = self.distinct(n, self.count(R::TEXTURE));
            for &t in &self.textures.clone() {
                let mut dst = plain_dst(reg(R::TEXTURE, t), 0xF);
                if self.ch.chance(48) {
                    dst.modifiers.centroid = true;
                }
                self.dcl(out, Self::PLAIN, dst);
            }
        }
        // ps_3_0 vPos and vFace.
        if p == Profile::Ps3_0 {
            for (index, mask) in [(0u16, 0b0011u8), (1, 0xF)] {
                if self.ch.chance(128) {
                    self.misc.push(index);
                    self.dcl(out, Self::PLAIN, plain_dst(reg(R::MiscType, index), mask));
                }
            }
        }
        // vs_3_0 outputs: the position first.
        if p == Profile::Vs3_0 {
            let n = 1usize.saturating_add(self.ch.below(4));
            self.outputs = self.distinct(n, self.count(R::OUTPUT));
            for (k, &o) in self.outputs.clone().iter().enumerate() {
                let semantic = if k == 0 {
                    Self::PLAIN
                } else {
                    Semantic::Usage {
                        usage: Usage::TexCoord,
                        index: (k & 0xF) as u8,
                    }
                };
                self.dcl(out, semantic, plain_dst(reg(R::OUTPUT, o), 0xF));
            }
        }
        // Samplers.
        let samplers = self.count(R::Sampler);
        if samplers > 0 {
            let n = self.ch.below(4);
            self.samplers = self.distinct(n, samplers);
            for &s in &self.samplers.clone() {
                let ty = self.ch.pick(&SAMPLER_TYPES).unwrap_or(SamplerType::Tex2D);
                self.dcl(
                    out,
                    Semantic::Sampler(ty),
                    plain_dst(reg(R::Sampler, s), 0xF),
                );
            }
        }
    }

    /// Writes the temporaries the program uses (Direct3D refuses a read of
    /// an unwritten temporary), then `a0` and `p0` where the version has
    /// them.
    fn prologue(&mut self, out: &mut Vec<Instruction>) {
        let temps = self.count(RegisterType::Temp);
        let n = 1usize.saturating_add(self.ch.below(6));
        let picked = self.distinct(n, temps);
        for &t in &picked {
            let src = self.value_src();
            let ins = op(
                Opcode::Mov,
                Some(plain_dst(reg(RegisterType::Temp, t), 0xF)),
                vec![src],
            );
            if self.emit(out, ins) {
                self.temps.push(t);
            }
        }
        if self.temps.is_empty() {
            // Nothing fitted (never with the budgets above): r0 = c0.
            let ins = op(
                Opcode::Mov,
                Some(plain_dst(reg(RegisterType::Temp, 0), 0xF)),
                vec![plain_src(reg(RegisterType::Const, 0))],
            );
            self.spend(&ins);
            out.push(ins);
            self.temps.push(0);
        }
        if self.p.is_vertex() && self.ch.chance(160) {
            let opcode = if self.p == Profile::Vs1_1 {
                Opcode::Mov
            } else {
                Opcode::Mova
            };
            let mask = if opcode == Opcode::Mov {
                1
            } else {
                self.mask()
            };
            let mut src = self.value_src();
            if opcode == Opcode::Mov {
                src.swizzle = Swizzle::replicate(self.ch.byte());
            }
            let ins = op(
                opcode,
                Some(plain_dst(reg(RegisterType::Addr, 0), mask)),
                vec![src],
            );
            if self.emit(out, ins) {
                self.a0 = mask;
            }
        }
        if self.has(Opcode::SetP) && self.ch.chance(160) {
            // Every component, so that any predicate swizzle reads a
            // written one.
            let mut ins = self.setp();
            set_mask(&mut ins, 0xF);
            self.p0 = self.emit(out, ins);
        }
    }

    fn setp(&mut self) -> Instruction {
        let control = self.comparison();
        let dst = plain_dst(reg(RegisterType::Predicate, 0), self.mask());
        let src = vec![self.value_src(), self.value_src()];
        Instruction::new(
            Opcode::SetP,
            control,
            Operands::Op {
                dst: Some(dst),
                src,
            },
        )
    }

    /// The last instructions of the main program: the position (vertex
    /// shaders) or colour (pixel shaders) output, and the `ret` that
    /// subroutines need before them.
    fn tail(&mut self) -> Vec<Instruction> {
        use RegisterType as R;
        let dst = match self.p {
            Profile::Vs3_0 => reg(R::OUTPUT, self.outputs.first().copied().unwrap_or(0)),
            p if p.is_vertex() => reg(R::RastOut, rastout::POSITION),
            _ => reg(R::ColorOut, 0),
        };
        let src = self.temp_src();
        let mut tail = vec![op(Opcode::Mov, Some(plain_dst(dst, 0xF)), vec![src])];
        if self.has(Opcode::Call) && self.ch.chance(160) {
            tail.push(op(Opcode::Ret, None, vec![]));
        }
        tail
    }

    /// Subroutines after the main program's `ret`: each may call only
    /// those written before it with room left in the call depth, so there
    /// is no recursion and the depth stays within the version's limit.
    fn subroutines(&mut self) -> Vec<Instruction> {
        let mut out = Vec::new();
        let count = self.ch.below(4);
        let labels = self.count(RegisterType::Label);
        for n in self.distinct(count, labels) {
            let label = op(
                Opcode::Label,
                None,
                vec![plain_src(reg(RegisterType::Label, n))],
            );
            let ret = op(Opcode::Ret, None, vec![]);
            if !self.reserve(&ret) {
                break;
            }
            self.emit_reserved(&mut out, label);
            self.sub_depth = Some(0);
            // Subroutines are shorter than the main program.
            self.block(&mut out, 1);
            self.emit_reserved(&mut out, ret);
            let depth = self.sub_depth.take().unwrap_or(0);
            self.labels.push((n, depth));
        }
        out
    }

    /// Statements until the choices say stop (or the budget is spent).
    fn block(&mut self, out: &mut Vec<Instruction>, depth: usize) {
        // Deeper blocks end sooner.
        let stop = 12u8.saturating_add((depth as u8).saturating_mul(24));
        for _ in 0..MAX_STATEMENTS {
            if self.ch.stop(stop) {
                break;
            }
            self.statement(out, depth);
        }
    }

    fn statement(&mut self, out: &mut Vec<Instruction>, depth: usize) {
        use Opcode::*;
        let nest = depth < MAX_DEPTH;
        match self.ch.byte() {
            0..=143 => {
                if let Some(ins) = self.arith() {
                    self.emit(out, ins);
                }
            }
            144..=175 => {
                if let Some(ins) = self.texture() {
                    self.emit(out, ins);
                }
            }
            176..=191 if nest && self.has(If) => self.if_block(out, depth),
            192..=199 if nest && self.has(Ifc) => self.if_block(out, depth),
            200..=211 if nest && self.has(Rep) => self.loop_block(out, depth, Rep),
            212..=223 if nest && self.has(Loop) => self.loop_block(out, depth, Loop),
            224..=235 if self.loops > 0 => self.break_statement(out),
            236..=243 if self.has(SetP) => {
                // p0 is read only if the prologue wrote it: a setp here
                // may not run.
                let ins = self.setp();
                self.emit(out, ins);
            }
            244..=255 if self.has(Call) => self.call(out),
            _ => {}
        }
    }

    /// `if b#`, `if p0.c`, or `if_cmp`, a body, maybe `else` and a body,
    /// `endif`.
    fn if_block(&mut self, out: &mut Vec<Instruction>, depth: usize) {
        use Opcode::*;
        let limits = nesting(self.p);
        if self.ifs >= limits.ifs {
            return;
        }
        let cond = if self.has(Ifc) && self.ch.chance(96) {
            let control = self.comparison();
            let src = vec![self.scalar_src(), self.scalar_src()];
            Instruction::new(Ifc, control, Operands::Op { dst: None, src })
        } else if self.p0 && self.ch.chance(96) {
            let mut s = self.predicate_src();
            s.swizzle = Swizzle::replicate(s.swizzle.component(0));
            op(If, None, vec![s])
        } else {
            let b = plain_src(reg(RegisterType::ConstBool, self.ch.below(16) as u16));
            op(If, None, vec![b])
        };
        let counts = cond.opcode == If
            && cond
                .src()
                .first()
                .is_some_and(|s| s.reg.ty == RegisterType::ConstBool);
        if counts && !self.static_flow_room(1) {
            return;
        }
        let endif = op(EndIf, None, vec![]);
        if !self.open(out, cond, &endif, counts) {
            return;
        }
        self.ifs = self.ifs.saturating_add(1);
        self.block(out, depth.saturating_add(1));
        // else counts as static flow control in vs_2_0.
        if self.ch.chance(96) && self.static_flow_room(1) {
            let e = op(Else, None, vec![]);
            if self.fits(&e) {
                self.emit_counted(out, e, true);
                self.block(out, depth.saturating_add(1));
            }
        }
        self.ifs = self.ifs.saturating_sub(1);
        self.emit_reserved(out, endif);
    }

    /// Whether vs_2_0's static flow-control budget has room for `n` more.
    fn static_flow_room(&self, n: u32) -> bool {
        nesting(self.p)
            .static_flow
            .is_none_or(|limit| self.static_flow.saturating_add(n) <= limit)
    }

    /// Emits `ins`, counting it as static flow control if `counts`;
    /// whether it fitted.
    fn emit_counted(&mut self, out: &mut Vec<Instruction>, ins: Instruction, counts: bool) -> bool {
        let emitted = self.emit(out, ins);
        if emitted && counts {
            self.static_flow = self.static_flow.saturating_add(1);
        }
        emitted
    }

    /// Opens a block: keeps the slots of its `end` first, then emits its
    /// `head`; both or neither.
    fn open(
        &mut self,
        out: &mut Vec<Instruction>,
        head: Instruction,
        end: &Instruction,
        counts: bool,
    ) -> bool {
        if !self.reserve(end) {
            return false;
        }
        if self.emit_counted(out, head, counts) {
            return true;
        }
        let (n, _) = self.cost(end);
        self.reserve = self.reserve.saturating_sub(n);
        false
    }

    /// `rep i#` … `endrep` or `loop aL, i#` … `endloop`.
    fn loop_block(&mut self, out: &mut Vec<Instruction>, depth: usize, opcode: Opcode) {
        let limits = nesting(self.p);
        if self.loops >= limits.loops || !self.static_flow_room(1) {
            return;
        }
        let counter = plain_src(reg(RegisterType::ConstInt, self.ch.below(16) as u16));
        let (head, end) = if opcode == Opcode::Loop {
            let al = plain_src(reg(RegisterType::Loop, 0));
            (op(Opcode::Loop, None, vec![al, counter]), Opcode::EndLoop)
        } else {
            (op(Opcode::Rep, None, vec![counter]), Opcode::EndRep)
        };
        let end = op(end, None, vec![]);
        if !self.open(out, head, &end, true) {
            return;
        }
        self.loops = self.loops.saturating_add(1);
        let al = opcode == Opcode::Loop;
        if al {
            self.al_loops = self.al_loops.saturating_add(1);
        }
        self.block(out, depth.saturating_add(1));
        if al {
            self.al_loops = self.al_loops.saturating_sub(1);
        }
        self.loops = self.loops.saturating_sub(1);
        self.emit_reserved(out, end);
    }

    /// `break`, `break_cmp` or `breakp` inside a loop.
    fn break_statement(&mut self, out: &mut Vec<Instruction>) {
        use Opcode::*;
        let ins = match self.ch.below(3) {
            0 if self.has(BreakC) => {
                let control = self.comparison();
                let src = vec![self.scalar_src(), self.scalar_src()];
                Instruction::new(BreakC, control, Operands::Op { dst: None, src })
            }
            1 if self.p0 => {
                let mut s = self.predicate_src();
                s.swizzle = Swizzle::replicate(s.swizzle.component(0));
                op(BreakP, None, vec![s])
            }
            _ if self.has(Break) => op(Break, None, vec![]),
            _ => return,
        };
        self.emit(out, ins);
    }

    /// `call l#` or `callnz l#, b#/p0.c` to a subroutine whose depth
    /// leaves room for this call.
    fn call(&mut self, out: &mut Vec<Instruction>) {
        let limit = nesting(self.p).calls;
        // From main, a label of depth d makes a chain of d + 1; from a
        // subroutine, that subroutine gets depth d + 1 and must itself
        // stay callable from main (d + 2 ≤ limit).
        let room = match self.sub_depth {
            None => limit,
            Some(_) => limit.saturating_sub(1),
        };
        let callable: Vec<(u16, usize)> = self
            .labels
            .iter()
            .copied()
            .filter(|(_, d)| d.saturating_add(1) <= room)
            .collect();
        let Some((label, d)) = self.ch.pick(&callable) else {
            return;
        };
        let l = plain_src(reg(RegisterType::Label, label));
        let (ins, counts) = if self.ch.chance(128) {
            (op(Opcode::Call, None, vec![l]), true)
        } else if self.p0 && self.ch.chance(128) {
            let mut s = self.predicate_src();
            s.swizzle = Swizzle::replicate(s.swizzle.component(0));
            (op(Opcode::CallNz, None, vec![l, s]), false)
        } else {
            let b = plain_src(reg(RegisterType::ConstBool, self.ch.below(16) as u16));
            (op(Opcode::CallNz, None, vec![l, b]), true)
        };
        if counts && !self.static_flow_room(1) {
            return;
        }
        let before = out.len();
        self.emit_counted(out, ins, counts);
        if out.len() > before {
            if let Some(s) = self.sub_depth.as_mut() {
                *s = (*s).max(d.saturating_add(1));
            }
        }
    }

    // ---- ps_1_x ------------------------------------------------------

    /// ps_1_1–1_4: definitions, texture instructions, arithmetic (with
    /// co-issued pairs), `phase` in ps_1_4, `r0` written last.
    fn ps1(&mut self) -> Vec<Instruction> {
        let mut out = Vec::new();
        self.definitions(&mut out);
        // v0 and v1 need no declaration below ps_2_0.
        self.inputs = vec![0, 1];
        let r0 = op(
            Opcode::Mov,
            Some(plain_dst(reg(RegisterType::Temp, 0), 0xF)),
            vec![plain_src(reg(RegisterType::Const, 0))],
        );
        if self.p == Profile::Ps1_4 {
            let inputs = std::mem::take(&mut self.inputs);
            if self.ch.chance(128) {
                // Phase 1: no colour inputs yet.
                self.ps14_textures(&mut out, false);
                self.ps1_arithmetic(&mut out, true);
                let phase = op(Opcode::Phase, None, vec![]);
                self.spend(&phase);
                out.push(phase);
                // Each phase has its own budget.
                self.arith = 0;
                self.tex = 0;
                self.total = 0;
            }
            self.inputs = inputs;
            self.ps14_textures(&mut out, true);
        } else {
            self.ps11_textures(&mut out);
        }
        self.reserve(&r0);
        self.ps1_arithmetic(&mut out, false);
        // The colour is r0: write it last unless the last write was a full
        // one to r0.
        let done = out.last().and_then(|i| i.dst()).is_some_and(|d| {
            d.reg == reg(RegisterType::Temp, 0)
                && d.write_mask == 0xF
                && !out.last().is_some_and(|i| i.opcode == Opcode::TexKill)
        });
        if done {
            self.reserve = 0;
        } else {
            let src = self.value_src();
            let r0 = op(
                Opcode::Mov,
                Some(plain_dst(reg(RegisterType::Temp, 0), 0xF)),
                vec![src],
            );
            self.emit_reserved(&mut out, r0);
        }
        out
    }

    /// ps_1_1–1_3 texture instructions, stage by stage: `tex`,
    /// `texcoord`, `texkill`, the dependent reads of an earlier stage
    /// (`texbem`, `texreg2ar`, …) and the `texm3x2*`/`texm3x3*` matrices.
    fn ps11_textures(&mut self, out: &mut Vec<Instruction>) {
        use Opcode::*;
        let stages = self.count(RegisterType::TEXTURE);
        let mut m = 0u16;
        while m < stages && !self.ch.stop(48) {
            let t = |i: u16| reg(RegisterType::TEXTURE, i);
            let written = self.textures.clone();
            let source = self.ch.pick(&written);
            let pick = self.ch.below(8);
            let mut seq: Vec<Instruction> = Vec::new();
            let mut writes = vec![m];
            match (pick, source) {
                (0, _) => seq.push(op(TexKill, Some(plain_dst(t(m), 0xF)), vec![])),
                (1, _) => seq.push(op(TexCoord, Some(plain_dst(t(m), 0xF)), vec![])),
                (2..=3, Some(n)) => {
                    let mut ops = vec![TexBem, TexBemL, TexReg2Ar, TexReg2Gb];
                    ops.extend(
                        [TexReg2Rgb, TexDp3Tex, TexDp3]
                            .into_iter()
                            .filter(|o| self.has(*o)),
                    );
                    let o = self.ch.pick(&ops).unwrap_or(TexBem);
                    seq.push(op(o, Some(plain_dst(t(m), 0xF)), vec![plain_src(t(n))]));
                }
                (4, Some(n)) if m.saturating_add(1) < stages => {
                    let last = if self.has(TexM3x2Depth) && self.ch.chance(96) {
                        TexM3x2Depth
                    } else {
                        TexM3x2Tex
                    };
                    let m1 = m.saturating_add(1);
                    seq.push(op(
                        TexM3x2Pad,
                        Some(plain_dst(t(m), 0xF)),
                        vec![plain_src(t(n))],
                    ));
                    seq.push(op(last, Some(plain_dst(t(m1), 0xF)), vec![plain_src(t(n))]));
                    writes.push(m1);
                }
                (5, Some(n)) if m.saturating_add(2) < stages => {
                    let last = self
                        .ch
                        .pick(
                            &[TexM3x3Tex, TexM3x3, TexM3x3Spec, TexM3x3VSpec]
                                .into_iter()
                                .filter(|o| self.has(*o))
                                .collect::<Vec<_>>(),
                        )
                        .unwrap_or(TexM3x3Tex);
                    let (m1, m2) = (m.saturating_add(1), m.saturating_add(2));
                    seq.push(op(
                        TexM3x3Pad,
                        Some(plain_dst(t(m), 0xF)),
                        vec![plain_src(t(n))],
                    ));
                    seq.push(op(
                        TexM3x3Pad,
                        Some(plain_dst(t(m1), 0xF)),
                        vec![plain_src(t(n))],
                    ));
                    let mut src = vec![plain_src(t(n))];
                    if last == TexM3x3Spec {
                        // The eye ray is a constant.
                        src.push(plain_src(reg(RegisterType::Const, self.ch.below(8) as u16)));
                    }
                    seq.push(op(last, Some(plain_dst(t(m2), 0xF)), src));
                    writes.extend([m1, m2]);
                }
                _ => seq.push(op(Tex, Some(plain_dst(t(m), 0xF)), vec![])),
            }
            // A sequence goes in whole or not at all.
            let cost: u32 = seq.iter().map(|i| self.cost(i).0).sum();
            if self.tex.saturating_add(cost) > slot_limits(self.p).texture {
                break;
            }
            for ins in seq {
                self.spend(&ins);
                out.push(ins);
            }
            if pick != 0 {
                self.textures.extend(writes.iter().copied());
            }
            m = writes.last().copied().unwrap_or(m).saturating_add(1);
        }
    }

    /// ps_1_4 texture instructions of one phase: `texld r#, t#` (phase 2
    /// also `texld r#, r#`), `texcrd`, and in phase 2 `texkill` and
    /// `texdepth r5`. Each `r#` is written once per phase.
    fn ps14_textures(&mut self, out: &mut Vec<Instruction>, second: bool) {
        use Opcode::*;
        let t_count = self.count(RegisterType::TEXTURE);
        let n = self.ch.below(5);
        let dsts = self.distinct(n, self.count(RegisterType::Temp));
        for d in dsts {
            let opcode = if self.ch.chance(160) { Tex } else { TexCoord };
            let mut src = if opcode == Tex && second && !self.temps.is_empty() && self.ch.chance(96)
            {
                self.temp_src()
            } else {
                plain_src(reg(
                    RegisterType::TEXTURE,
                    self.ch.below(usize::from(t_count)) as u16,
                ))
            };
            if self.ch.chance(48) {
                src.modifier = if self.ch.chance(128) {
                    SrcModifier::Dz
                } else {
                    SrcModifier::Dw
                };
            }
            let mask = if opcode == TexCoord && self.ch.chance(128) {
                0x7
            } else {
                0xF
            };
            let ins = op(
                opcode,
                Some(plain_dst(reg(RegisterType::Temp, d), mask)),
                vec![src],
            );
            if self.emit(out, ins) && !self.temps.contains(&d) {
                self.temps.push(d);
            }
        }
        if second {
            if self.ch.chance(64) {
                let r = if !self.temps.is_empty() && self.ch.chance(128) {
                    self.pick_reg(RegisterType::Temp)
                } else {
                    reg(
                        RegisterType::TEXTURE,
                        self.ch.below(usize::from(t_count)) as u16,
                    )
                };
                let ins = op(TexKill, Some(plain_dst(r, 0xF)), vec![]);
                self.emit(out, ins);
            }
            if self.temps.contains(&5) && self.ch.chance(48) {
                let ins = op(
                    TexDepth,
                    Some(plain_dst(reg(RegisterType::Temp, 5), 0xF)),
                    vec![],
                );
                self.emit(out, ins);
            }
        }
    }

    /// ps_1_x arithmetic on written temporaries, `v0`/`v1`, `c#` and
    /// written `t#`, with co-issued `.rgb` + `.a` pairs (`bem` only in
    /// ps_1_4's first phase).
    fn ps1_arithmetic(&mut self, out: &mut Vec<Instruction>, first_phase: bool) {
        for _ in 0..MAX_STATEMENTS {
            if self.ch.stop(40) {
                break;
            }
            let Some(mut ins) = self.ps1_instruction(first_phase) else {
                continue;
            };
            if !self.fits(&ins) {
                break;
            }
            // A co-issued pair: this one writes .rgb, its partner .a.
            let mut partner = None;
            if ins.opcode != Opcode::Bem && self.ch.chance(64) {
                if let Some(mut second) = self.ps1_instruction(false) {
                    if second.opcode != Opcode::Bem {
                        set_mask(&mut ins, 0x7);
                        set_mask(&mut second, 0x8);
                        second.coissue = true;
                        partner = Some(second);
                    }
                }
            }
            // Both read the registers as they were before the pair: what
            // they write becomes readable only now.
            for ins in std::iter::once(ins).chain(partner) {
                if let Some(d) = ins.dst() {
                    if d.reg.ty == RegisterType::Temp && !self.temps.contains(&d.reg.index) {
                        self.temps.push(d.reg.index);
                    }
                }
                self.spend(&ins);
                out.push(ins);
            }
        }
    }

    fn ps1_instruction(&mut self, first_phase: bool) -> Option<Instruction> {
        let opcode = self.ch.pick(&self.ops.clone())?;
        let opcode = if self.p == Profile::Ps1_4 && first_phase && self.ch.chance(32) {
            Opcode::Bem
        } else {
            opcode
        };
        let Some(Form::Op { dst: true, srcs }) = opcode.form(self.p) else {
            return None;
        };
        if opcode == Opcode::Cnd && !self.cnd_ok() {
            return None;
        }
        // Writable: every temporary (a write makes it readable).
        let temps = self.count(RegisterType::Temp);
        let index = self.ch.below(usize::from(temps)) as u16;
        let mut dst = plain_dst(reg(RegisterType::Temp, index), 0xF);
        dst.write_mask = required_mask(opcode)
            .unwrap_or_else(|| self.ch.pick(&[0xFu8, 0x7, 0x8]).unwrap_or(0xF));
        self.dst_modifiers(&mut dst);
        let src = (0..srcs).map(|k| self.arith_src(opcode, k)).collect();
        Some(op(opcode, Some(dst), src))
    }
}

fn set_mask(ins: &mut Instruction, mask: u8) {
    if let Operands::Op { dst: Some(d), .. } = &mut ins.operands {
        d.write_mask = mask;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{NoTextures, MAX_INSTRUCTIONS_EXECUTED};
    use crate::text::{assemble, disassemble};

    /// A tiny linear congruential generator (Knuth's MMIX constants): the
    /// byte strings of the tests, without a dependency.
    struct Lcg(u64);

    impl Lcg {
        fn bytes(&mut self, n: usize) -> Vec<u8> {
            (0..n)
                .map(|_| {
                    self.0 = self
                        .0
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    (self.0 >> 56) as u8
                })
                .collect()
        }
    }

    /// Every opcode, register type and construct the programs of one
    /// version use, over `n` seeded programs; panics on the first that
    /// does not validate, with its assembly.
    fn generate_many(profile: Profile, n: usize) -> Vec<Shader> {
        let mut lcg = Lcg(profile.token().into());
        (0..n)
            .map(|i| {
                let len = 16 + (i * 37) % 900;
                let bytes = lcg.bytes(len);
                let toks = tokens(profile, &bytes);
                match crate::parse_and_validate(&toks) {
                    Ok(v) => v.into_inner(),
                    Err(e) => {
                        let text = crate::parse(&toks)
                            .map(|s| disassemble(&s))
                            .unwrap_or_default();
                        panic!("{profile} program {i} does not validate: {e}\n{text}")
                    }
                }
            })
            .collect()
    }

    #[test]
    fn every_generated_program_validates_in_every_version() {
        // 2,000 programs per version, byte strings of 16–915 bytes from a
        // seeded LCG: the validator must accept all of them (0 rejected).
        for profile in Profile::ALL {
            let programs = generate_many(profile, 2000);
            assert_eq!(programs.len(), 2000);
        }
    }

    #[test]
    fn empty_and_constant_byte_strings_give_valid_programs() {
        // Past the end every choice is 0: the program is the shortest one
        // (declarations, one temporary written, the output written).
        for profile in Profile::ALL {
            for bytes in [&[][..], &[0xFF; 64], &[0x80; 300], &[1; 7]] {
                let toks = tokens(profile, bytes);
                crate::parse_and_validate(&toks)
                    .unwrap_or_else(|e| panic!("{profile} {:?}: {e}", bytes.first()));
            }
        }
    }

    #[test]
    fn the_shortest_vs_2_0_program_writes_a_temporary_and_opos() {
        // All choices 0: one input declared (v0, usage position 0), no
        // sampler; the prologue writes r0 from c0 (value register kind 0 =
        // a constant, index 0, identity swizzle, no modifier); the tail
        // writes oPos from r0.
        let text = disassemble(&program(Profile::Vs2_0, &mut Choices::new(&[])));
        assert_eq!(
            text, "vs_2_0\ndcl_position v0\nmov r0, c0\nmov oPos, r0\n",
            "{text}"
        );
    }

    #[test]
    fn programs_stay_within_the_slot_cap_and_round_trip_through_assembly() {
        for profile in Profile::ALL {
            for shader in generate_many(profile, 300) {
                let slots: u32 = shader
                    .instructions
                    .iter()
                    .filter(|i| !i.coissue)
                    .map(|i| slots(i.opcode, profile))
                    .sum();
                // ps_1_4 counts per phase: two phases may hold twice.
                let cap = if profile == Profile::Ps1_4 {
                    28
                } else {
                    MAX_SLOTS
                };
                assert!(slots <= cap, "{profile}: {slots} slots");
                let toks = shader.to_tokens();
                let back = assemble(&disassemble(&shader)).expect("assembles");
                assert_eq!(back.to_tokens(), toks);
            }
        }
    }

    #[test]
    fn the_grammar_reaches_the_constructs_it_promises() {
        // Over 2,000 programs each, every listed opcode appears at least
        // once in the versions that have it, and relative addressing,
        // predication, co-issue and source modifiers appear.
        use Opcode::*;
        let want: &[(Profile, &[Opcode])] = &[
            (Profile::Vs1_1, &[M4x4, Lit, ExpP, LogP, Frc, Mov, Dst]),
            (
                Profile::Vs2_0,
                &[
                    Rep, Loop, If, Else, Call, CallNz, Label, Ret, Mova, SinCos, Sgn, DefI, DefB,
                ],
            ),
            (Profile::Vs2_x, &[Ifc, BreakC, BreakP, Break, SetP, Crs]),
            (Profile::Vs3_0, &[TexLdl, Loop, Nrm, Pow]),
            (
                Profile::Ps1_1,
                &[Tex, TexCoord, TexKill, TexBem, TexM3x2Pad, TexM3x3Pad, Cnd],
            ),
            (Profile::Ps1_3, &[TexM3x2Depth, TexDp3, TexReg2Rgb, Cmp]),
            (
                Profile::Ps1_4,
                &[Phase, Tex, TexCoord, Bem, TexDepth, TexKill],
            ),
            (Profile::Ps2_0, &[Tex, TexKill, Dp2Add, Cmp, Abs]),
            (Profile::Ps2_x, &[TexLdd, Dsx, Dsy, Ifc, Rep, SetP]),
            (Profile::Ps3_0, &[Loop, TexLdl, TexLdd, Call, BreakP]),
        ];
        for &(profile, ops) in want {
            let programs = generate_many(profile, 2000);
            let all: Vec<&Instruction> = programs.iter().flat_map(|s| &s.instructions).collect();
            for &o in ops {
                assert!(all.iter().any(|i| i.opcode == o), "{profile}: no {o:?}");
            }
            let relative = all
                .iter()
                .any(|i| i.src().iter().any(|s| s.relative.is_some()));
            assert!(
                relative || profile.is_ps1() || matches!(profile, Profile::Ps2_0 | Profile::Ps2_x),
                "{profile}: no relative address"
            );
            let predicated = all.iter().any(|i| i.predicate.is_some());
            assert_eq!(
                predicated,
                register_count(profile, RegisterType::Predicate) > 0,
                "{profile}"
            );
            let coissue = all.iter().any(|i| i.coissue);
            assert_eq!(coissue, profile.is_ps1(), "{profile}");
            assert!(all
                .iter()
                .any(|i| i.src().iter().any(|s| s.modifier != SrcModifier::None)));
        }
    }

    #[test]
    fn generated_programs_run_within_the_instruction_limit() {
        for profile in Profile::ALL {
            let mut lcg = Lcg(u64::from(profile.token()) ^ 0x5EED);
            for _ in 0..60 {
                let bytes = lcg.bytes(600);
                let mut ch = Choices::new(&bytes);
                let shader = program(profile, &mut ch);
                let program = Program::new(crate::validate(shader).expect("validates"));
                let (constants, mut regs, mask) = run_inputs(&program, &mut ch);
                let stats = program.run(&mut regs, &program.bind(&constants), &NoTextures, mask);
                assert!(stats.executed <= MAX_INSTRUCTIONS_EXECUTED);
            }
        }
    }

    #[test]
    fn choices_read_zero_past_the_end_and_stop() {
        let mut c = Choices::new(&[7, 200, 55]);
        assert_eq!(c.below(5), 2); // 7 mod 5
        assert!(c.chance(56)); // 200 + 56 = 256 > 255
        assert!(!c.stop(55)); // 55 < 55 is false
        assert!(c.is_empty());
        assert_eq!(c.byte(), 0);
        // Past the end: never the optional thing, always stop.
        assert!(!c.chance(255));
        assert!(c.stop(1));
        assert_eq!(c.below(300), 0);
        // Floats: byte 0 picks SPECIAL_FLOATS[0] (the next byte, 0) = 0.0.
        assert_eq!(c.float().to_bits(), 0);
        // Cycling: 7, 200, 55, then round 1: 7^1, 200^1, 55^1, round 2: 7^2.
        let mut c = Choices::cycling(&[7, 200, 55]);
        let read: Vec<u8> = (0..7).map(|_| c.byte()).collect();
        assert_eq!(read, [7, 200, 55, 6, 201, 54, 5]);
        assert_eq!(Choices::cycling(&[]).byte(), 0);
        let mut c = Choices::new(&[1, 2, 3]);
        c.byte();
        assert_eq!(c.rest(), &[2, 3]);
    }
}
