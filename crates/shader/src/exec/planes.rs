//! The register-plane executor: a validated shader compiled once into a
//! flat list of operations on *planes* — one component of one register
//! for every lane of the group ([`Plane`]) — so that a swizzle is a choice
//! of plane, a write mask a choice of operations, and every operation one
//! vector instruction over the lanes, with no per-lane dispatch. It runs
//! the programs most Direct3D 9 content uses (vs_1_1–vs_3_0 and
//! ps_2_0–ps_3_0 without flow control, predication or relative addressing
//! other than `c[a0.n + k]`); [`compile`] returns `None` for every other
//! program, which the reference interpreter runs. One operation list runs
//! over any lane count `N` (the operations are generic over it): four
//! lanes, a 2×2 quad or four vertices, through [`Registers`]
//! ([`PlaneCode::run_with`]); and `N` lanes at once on a [`WideFile`]
//! ([`PlaneCode::run_wide`]): `N` vertices for vertex shaders, `N / 4`
//! quads for pixel shaders, so that each dispatched operation does
//! several vector instructions' work. The quad operations (`dsx`, `dsy`,
//! texture samples) treat each group of four lanes as a quad and never
//! read another group's lanes; a texture unit may answer a sample for
//! every lane at once (`Textures::sample_planes_wide`).
//!
//! - In: a [`Validated`] shader (compile time); [`Registers`] or a
//!   [`WideFile`] with the caller's input planes, bound constants and a
//!   texture unit (run time).
//! - Out: the same outputs as the reference interpreter, bit for bit
//!   (NaN payloads aside): every formula is the reference's own
//!   (`exec::arith`), evaluated in the same order. Inactive lanes' outputs
//!   are left at 0, as the reference leaves them (a wide run leaves them
//!   computed from whatever their inputs held; a wide pixel run computes
//!   every lane of its active quads, helper lanes included, as a
//!   four-lane run with every lane active does).
//! - Guarantees: every plane number an operation names is proven below the
//!   file's size when it is compiled, and is still read through checked
//!   access; relative constant reads are bounds-checked per lane (out of
//!   range reads 0), the whole register at once, and shared by later
//!   reads of the same `c[a0.n + k]` until `a0.n` is written. A run executes each operation once: time is linear
//!   in the program, which validation bounded.

use super::arith;
use super::lane::{Mask, Vec4, ALL_LANES, LANES, ZERO};
use super::{
    BoundConstants, InputRegister, Inputs, LodMode, Registers, RunStats, SampleRequest, Textures,
};
use crate::ir::{
    misctype, Control, Dst, Instruction, Opcode, Operands, Profile, RegisterType, Src, SrcModifier,
};
use crate::valid::Validated;

/// One component of one register, for every lane.
pub type Plane = [f32; LANES];

/// Rows become columns: four lanes' `Vec4`s ⇄ four component planes.
#[inline(always)]
pub(super) fn transpose(v: &[[f32; 4]; 4]) -> [[f32; 4]; 4] {
    [
        [v[0][0], v[1][0], v[2][0], v[3][0]],
        [v[0][1], v[1][1], v[2][1], v[3][1]],
        [v[0][2], v[1][2], v[2][2], v[3][2]],
        [v[0][3], v[1][3], v[2][3], v[3][3]],
    ]
}

/// Element `i & 3` of a four-element array (a component or a lane).
#[inline(always)]
fn at<T: Copy>(v: &[T; 4], i: usize) -> T {
    match i & 3 {
        0 => v[0],
        1 => v[1],
        2 => v[2],
        _ => v[3],
    }
}

/// Element `i & 3` of a four-element array, mutably.
#[inline(always)]
fn at_mut<T>(v: &mut [T; 4], i: usize) -> &mut T {
    match i & 3 {
        0 => &mut v[0],
        1 => &mut v[1],
        2 => &mut v[2],
        _ => &mut v[3],
    }
}

/// A plane number in the file.
type P = u16;

/// How a texture instruction chooses its level of detail.
#[derive(Clone, Copy, Debug, PartialEq)]
enum SampleKind {
    /// `texld`: derivatives from the quad.
    Implicit,
    /// `texldp`: coordinates divided by w first.
    Project,
    /// `texldb`: plus w as a bias.
    Bias,
    /// `texldl`: the level in w.
    Level,
    /// `texldd`: the derivatives given (x planes, then y planes).
    Gradients([P; 4], [P; 4]),
}

/// One operation. `d` planes are written, the others read; an operation
/// with several destinations computes all its results before it writes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Mov {
        d: P,
        a: P,
    },
    Set {
        d: P,
        v: f32,
    },
    Modify {
        d: P,
        a: P,
        m: SrcModifier,
    },
    Add {
        d: P,
        a: P,
        b: P,
    },
    Sub {
        d: P,
        a: P,
        b: P,
    },
    Mul {
        d: P,
        a: P,
        b: P,
    },
    Mad {
        d: P,
        a: P,
        b: P,
        c: P,
    },
    Min {
        d: P,
        a: P,
        b: P,
    },
    Max {
        d: P,
        a: P,
        b: P,
    },
    Slt {
        d: P,
        a: P,
        b: P,
    },
    Sge {
        d: P,
        a: P,
        b: P,
    },
    Lrp {
        d: P,
        a: P,
        b: P,
        c: P,
    },
    Cnd {
        d: P,
        a: P,
        b: P,
        c: P,
    },
    Cmp {
        d: P,
        a: P,
        b: P,
        c: P,
    },
    /// `a·b − c·e` (a component of `crs`).
    MulSub {
        d: P,
        a: P,
        b: P,
        c: P,
        e: P,
    },
    Frc {
        d: P,
        a: P,
    },
    Abs {
        d: P,
        a: P,
    },
    Sgn {
        d: P,
        a: P,
    },
    Dsx {
        d: P,
        a: P,
    },
    Dsy {
        d: P,
        a: P,
    },
    /// A function of one component, replicated to `n` destinations.
    Scalar {
        f: Scalar,
        d: [P; 4],
        n: u8,
        a: P,
    },
    Pow {
        d: [P; 4],
        n: u8,
        a: P,
        b: P,
    },
    Dp3 {
        d: [P; 4],
        n: u8,
        a: [P; 3],
        b: [P; 3],
    },
    Dp4 {
        d: [P; 4],
        n: u8,
        a: [P; 4],
        b: [P; 4],
    },
    Dp2Add {
        d: [P; 4],
        n: u8,
        a: [P; 2],
        b: [P; 2],
        c: P,
    },
    /// `nrm`: `s` the swizzled source component of each destination, `v`
    /// its x, y, z.
    Nrm {
        d: [P; 4],
        n: u8,
        s: [P; 4],
        v: [P; 3],
    },
    /// A whole-vector function (`lit`, vs_1_1 `expp`/`logp`, `sincos`) of
    /// the swizzled source `a`, written to the components of `mask`.
    Vector {
        f: Vector,
        d: [P; 4],
        mask: u8,
        a: [P; 4],
    },
    /// a0 component `comp` from plane `a` (floor, or round for `mova`).
    ToAddr {
        comp: u8,
        a: P,
        round: bool,
    },
    /// a0 component `comp` as a float.
    FromAddr {
        d: P,
        comp: u8,
    },
    /// Constant `index + a0[addr]`, per lane, into the planes `d`
    /// (x, y, z, w): one bounds check a lane for the four components.
    Gather {
        d: [P; 4],
        index: u16,
        addr: u8,
    },
    /// The result modifiers: × `scale`, then `_sat`.
    Finish {
        d: P,
        scale: f32,
        sat: bool,
    },
    Sample {
        d: [P; 4],
        mask: u8,
        coords: [P; 4],
        sampler: u8,
        kind: SampleKind,
    },
    /// `texkill`: lanes where any of the four planes is negative.
    Kill {
        a: [P; 4],
    },
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Scalar {
    Rcp,
    Rsq,
    Exp,
    Log,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Vector {
    Lit,
    ExpPVs1,
    LogPVs1,
    SinCos,
}

impl Op {
    /// Calls `f` on every plane the operation names (`true`: written),
    /// the planes read first.
    fn planes(&mut self, mut f: impl FnMut(&mut P, bool)) {
        let f = &mut f;
        fn each<'p>(
            ps: impl IntoIterator<Item = &'p mut P>,
            write: bool,
            f: &mut impl FnMut(&mut P, bool),
        ) {
            for p in ps {
                f(p, write);
            }
        }
        fn masked(ps: &mut [P; 4], mask: u8, f: &mut impl FnMut(&mut P, bool)) {
            for (c, p) in ps.iter_mut().enumerate() {
                if mask & (1 << c) != 0 {
                    f(p, true);
                }
            }
        }
        let count = |n: u8| usize::from(n).min(4);
        match self {
            Op::Mov { d, a }
            | Op::Modify { d, a, .. }
            | Op::Frc { d, a }
            | Op::Abs { d, a }
            | Op::Sgn { d, a }
            | Op::Dsx { d, a }
            | Op::Dsy { d, a } => {
                f(a, false);
                f(d, true);
            }
            Op::Set { d, .. } | Op::FromAddr { d, .. } => f(d, true),
            Op::Gather { d, .. } => each(d, true, f),
            Op::Finish { d, .. } => {
                f(d, false);
                f(d, true);
            }
            Op::Add { d, a, b }
            | Op::Sub { d, a, b }
            | Op::Mul { d, a, b }
            | Op::Min { d, a, b }
            | Op::Max { d, a, b }
            | Op::Slt { d, a, b }
            | Op::Sge { d, a, b } => {
                f(a, false);
                f(b, false);
                f(d, true);
            }
            Op::Mad { d, a, b, c }
            | Op::Lrp { d, a, b, c }
            | Op::Cnd { d, a, b, c }
            | Op::Cmp { d, a, b, c } => {
                f(a, false);
                f(b, false);
                f(c, false);
                f(d, true);
            }
            Op::MulSub { d, a, b, c, e } => {
                f(a, false);
                f(b, false);
                f(c, false);
                f(e, false);
                f(d, true);
            }
            Op::Scalar { d, n, a, .. } => {
                f(a, false);
                each(d.iter_mut().take(count(*n)), true, f);
            }
            Op::Pow { d, n, a, b } => {
                f(a, false);
                f(b, false);
                each(d.iter_mut().take(count(*n)), true, f);
            }
            Op::Dp3 { d, n, a, b } => {
                each(a, false, f);
                each(b, false, f);
                each(d.iter_mut().take(count(*n)), true, f);
            }
            Op::Dp4 { d, n, a, b } => {
                each(a, false, f);
                each(b, false, f);
                each(d.iter_mut().take(count(*n)), true, f);
            }
            Op::Dp2Add { d, n, a, b, c } => {
                each(a, false, f);
                each(b, false, f);
                f(c, false);
                each(d.iter_mut().take(count(*n)), true, f);
            }
            Op::Nrm { d, n, s, v } => {
                each(s.iter_mut().take(count(*n)), false, f);
                each(v, false, f);
                each(d.iter_mut().take(count(*n)), true, f);
            }
            Op::Vector { d, mask, a, .. } => {
                each(a, false, f);
                masked(d, *mask, f);
            }
            Op::Sample {
                d,
                mask,
                coords,
                kind,
                ..
            } => {
                each(coords, false, f);
                if let SampleKind::Gradients(x, y) = kind {
                    each(x, false, f);
                    each(y, false, f);
                }
                masked(d, *mask, f);
            }
            Op::ToAddr { a, .. } => f(a, false),
            Op::Kill { a } => each(a, false, f),
        }
    }
}

/// Where a register's planes are loaded from before a run.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Load {
    Input(u16),
    Texture(u16),
    Position,
    Face,
}

impl Load {
    /// The input register a load reads.
    fn register(self) -> InputRegister {
        match self {
            Load::Input(i) => InputRegister::Input(i),
            Load::Texture(i) => InputRegister::Texture(i),
            Load::Position => InputRegister::Position,
            Load::Face => InputRegister::Face,
        }
    }
}

/// Where a register's planes are stored after a run (named by register
/// type).
#[allow(clippy::enum_variant_names)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Store {
    RastOut(u16),
    AttrOut(u16),
    TexCrdOut(u16),
    ColorOut(u16),
}

/// A shader compiled to plane operations.
#[derive(Clone, Debug, PartialEq)]
pub struct PlaneCode {
    ops: Vec<Op>,
    /// Planes of the file.
    size: usize,
    /// Constant components the program reads directly: (plane, register,
    /// component), loaded when the bound constants change.
    consts: Vec<(P, u16, u8)>,
    /// First plane after the constants.
    first_register: usize,
    /// The planes zeroed before each run: read before they are loaded or
    /// written (every other plane after the constants is loaded or
    /// written before it is read).
    zeroed: Vec<P>,
    loads: Vec<(Load, P)>,
    stores: Vec<(Store, P)>,
    /// The `oDepth` plane, if the program writes it.
    depth: Option<P>,
    /// Instructions a run executes (what the reference counts).
    executed: u32,
    /// Whether a lane's results depend on its quad neighbours (`dsx`,
    /// `dsy`, `texld` with implicit derivatives).
    neighbours: bool,
}

/// The planes of one group: the executor's state kept in [`Registers`]
/// between runs (constants stay loaded while the bound constants are the
/// same).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlaneFile {
    planes: Vec<Plane>,
    /// `a0`, per component.
    address: [[i32; LANES]; 4],
    /// The [`BoundConstants::id`] whose constants are loaded.
    loaded: Option<u64>,
}

/// The register files the compiler maps to planes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum File {
    Temp,
    Input,
    Texture,
    Position,
    Face,
    RastOut,
    AttrOut,
    TexCrdOut,
    ColorOut,
    Depth,
}

/// The plane layout being built.
struct Layout {
    /// (register file, number) → first of its four planes.
    registers: Vec<((File, u16), P)>,
    consts: Vec<(P, u16, u8)>,
    /// (constant `index`, a0 component) of a relative read `c[a0.n +
    /// index]` → first of the four planes its gather fills (written only
    /// by `Op::Gather`, so a gather stays valid until a0.n changes).
    relative: Vec<((u16, u8), P)>,
    size: usize,
}

impl Layout {
    fn register(&self, file: File, index: u16) -> Option<P> {
        self.registers
            .iter()
            .find(|(k, _)| *k == (file, index))
            .map(|&(_, p)| p)
    }

    fn relative(&self, index: u16, addr: u8) -> Option<(usize, P)> {
        self.relative
            .iter()
            .position(|(k, _)| *k == (index, addr))
            .and_then(|i| Some((i, self.relative.get(i)?.1)))
    }

    fn constant(&self, index: u16, comp: u8) -> Option<P> {
        self.consts
            .iter()
            .find(|&&(_, i, c)| i == index && c == comp)
            .map(|&(p, ..)| p)
    }
}

/// The register file of a source or destination register, in `profile`.
fn file_of(profile: Profile, ty: RegisterType, index: u16) -> Option<File> {
    let vertex = profile.is_vertex();
    Some(match ty {
        RegisterType::Temp => File::Temp,
        RegisterType::Input => File::Input,
        RegisterType::Addr if !vertex => File::Texture,
        RegisterType::RastOut => File::RastOut,
        RegisterType::AttrOut => File::AttrOut,
        RegisterType::TexCrdOut => File::TexCrdOut,
        RegisterType::ColorOut => File::ColorOut,
        RegisterType::DepthOut => File::Depth,
        RegisterType::MiscType if index == misctype::FACE => File::Face,
        RegisterType::MiscType => File::Position,
        _ => return None,
    })
}

/// Whether the plane executor runs `ins` (in a program of `profile`).
fn supported(profile: Profile, ins: &Instruction) -> bool {
    use Opcode::*;
    if ins.coissue || ins.predicate.is_some() {
        return false;
    }
    let op_ok = match ins.opcode {
        Dcl | Def | DefI | DefB | Nop => return true,
        Mov | Mova | Add | Sub | Mul | Mad | Dp3 | Dp4 | Min | Max | Slt | Sge | Rcp | Rsq
        | Exp | Log | ExpP | LogP | Lit | Dst | Lrp | Frc | M4x4 | M4x3 | M3x4 | M3x3 | M3x2
        | Pow | Crs | Sgn | Abs | Nrm | SinCos | Cnd | Cmp | Dp2Add => true,
        Dsx | Dsy | TexKill => !profile.is_vertex(),
        // vs_3_0 samples its vertex textures with `texldl` only.
        TexLdl => true,
        Tex | TexLdd => !profile.is_vertex(),
        _ => false,
    };
    if !op_ok {
        return false;
    }
    let Operands::Op { dst, src } = &ins.operands else {
        return false;
    };
    if let Some(d) = dst {
        if d.relative.is_some() {
            return false;
        }
        let a0 = profile.is_vertex() && d.reg.ty == RegisterType::Addr;
        if !a0 && file_of(profile, d.reg.ty, d.reg.index).is_none() {
            return false;
        }
    }
    src.iter().all(|s| {
        let relative_ok = match &s.relative {
            None => true,
            Some(r) => {
                profile.is_vertex()
                    && s.reg.ty == RegisterType::Const
                    && r.reg.ty == RegisterType::Addr
            }
        };
        let modifier_ok = !matches!(
            s.modifier,
            SrcModifier::Dz | SrcModifier::Dw | SrcModifier::Not
        );
        let reg_ok = match s.reg.ty {
            RegisterType::Const | RegisterType::Sampler => true,
            RegisterType::Addr if profile.is_vertex() => true,
            ty => file_of(profile, ty, s.reg.index).is_some(),
        };
        relative_ok && modifier_ok && reg_ok
    })
}

/// How many registers after the one named a source reads (matrix rows).
fn rows(opcode: Opcode) -> u16 {
    match opcode {
        Opcode::M4x4 | Opcode::M3x4 => 4,
        Opcode::M4x3 | Opcode::M3x3 => 3,
        Opcode::M3x2 => 2,
        _ => 1,
    }
}

/// Compiles `shader`, or `None` when it uses something the plane executor
/// does not run (flow control, predication, co-issue, ps_1_x, relative
/// addressing other than constants through `a0`).
pub fn compile(shader: &Validated) -> Option<PlaneCode> {
    let profile = shader.profile();
    if profile.is_ps1() {
        return None;
    }
    let instructions = &shader.shader().instructions;
    if !instructions.iter().all(|i| supported(profile, i)) {
        return None;
    }
    // Pass 1: the planes of every register and constant read directly.
    let mut consts: Vec<(u16, u8)> = Vec::new();
    let mut relative: Vec<(u16, u8)> = Vec::new();
    let mut registers: Vec<(File, u16)> = Vec::new();
    for ins in instructions {
        if ins.opcode.is_declaration() {
            continue;
        }
        let Operands::Op { dst, src } = &ins.operands else {
            continue;
        };
        for (i, s) in src.iter().enumerate() {
            let k = if i == 1 { rows(ins.opcode) } else { 1 };
            for r in 0..k {
                let index = s.reg.index.saturating_add(r);
                match s.reg.ty {
                    RegisterType::Const => match &s.relative {
                        None => {
                            for c in 0..4 {
                                consts.push((index, s.swizzle.component(c)));
                            }
                        }
                        Some(a) => relative.push((index, a.swizzle.component(0))),
                    },
                    ty => {
                        if let Some(f) = file_of(profile, ty, index) {
                            if !(profile.is_vertex() && ty == RegisterType::Addr) {
                                registers.push((f, index));
                            }
                        }
                    }
                }
            }
        }
        if let Some(d) = dst {
            if let Some(f) = file_of(profile, d.reg.ty, d.reg.index) {
                if !(profile.is_vertex() && d.reg.ty == RegisterType::Addr) {
                    registers.push((f, d.reg.index));
                }
            }
        }
        if ins.opcode == Opcode::TexKill {
            // (Its operand is the destination slot.)
        }
    }
    consts.sort_unstable();
    consts.dedup();
    relative.sort_unstable();
    relative.dedup();
    registers.sort_unstable();
    registers.dedup();
    let mut layout = Layout {
        registers: Vec::new(),
        consts: Vec::new(),
        relative: Vec::new(),
        size: 0,
    };
    for &(index, comp) in &consts {
        layout.consts.push((layout.size as P, index, comp));
        layout.size = layout.size.saturating_add(1);
    }
    let first_register = layout.size;
    for &r in &registers {
        layout.registers.push((r, layout.size as P));
        layout.size = layout.size.saturating_add(4);
    }
    for &k in &relative {
        layout.relative.push((k, layout.size as P));
        layout.size = layout.size.saturating_add(4);
    }
    let scratch = layout.size;
    // Pass 2: the operations.
    let mut c = Compiler {
        profile,
        layout: &layout,
        ops: Vec::new(),
        gathered: vec![false; layout.relative.len()],
        scratch,
        next: scratch,
        high: scratch,
    };
    let mut executed = 0u32;
    for ins in instructions {
        executed = executed.saturating_add(1);
        if ins.opcode.is_declaration() || ins.opcode == Opcode::Nop {
            continue;
        }
        c.next = c.scratch;
        c.instruction(ins)?;
    }
    let size = c.high;
    let mut ops = c.ops;
    // Every plane named is inside the file.
    let mut inside = true;
    for op in &mut ops {
        op.planes(|p, _| inside &= usize::from(*p) < size);
    }
    if !inside || size > usize::from(P::MAX) {
        return None;
    }
    let mut loads = Vec::new();
    let mut stores = Vec::new();
    let mut depth = None;
    for &((file, index), p) in &layout.registers {
        match file {
            File::Input => loads.push((Load::Input(index), p)),
            File::Texture => loads.push((Load::Texture(index), p)),
            File::Position => loads.push((Load::Position, p)),
            File::Face => loads.push((Load::Face, p)),
            File::RastOut => stores.push((Store::RastOut(index), p)),
            File::AttrOut => stores.push((Store::AttrOut(index), p)),
            File::TexCrdOut => stores.push((Store::TexCrdOut(index), p)),
            File::ColorOut => stores.push((Store::ColorOut(index), p)),
            File::Depth => {
                // Only a write makes the depth the program's.
                let written = instructions
                    .iter()
                    .any(|i| i.dst().is_some_and(|d| d.reg.ty == RegisterType::DepthOut));
                if written {
                    depth = Some(p);
                }
            }
            File::Temp => {}
        }
    }
    // The planes a run zeroes: those read before any operation writes
    // them (a temporary read unwritten, an output component left
    // unwritten); every other plane is loaded or written first.
    let mut written = vec![false; size];
    let mut zero = vec![false; size];
    for &(_, p) in &loads {
        for q in planes_of(p) {
            if let Some(w) = written.get_mut(usize::from(q)) {
                *w = true;
            }
        }
    }
    for op in &mut ops {
        op.planes(|p, write| {
            let i = usize::from(*p);
            if i < first_register {
                return;
            }
            match written.get_mut(i) {
                Some(w) if write => *w = true,
                Some(false) => {
                    if let Some(z) = zero.get_mut(i) {
                        *z = true;
                    }
                }
                _ => {}
            }
        });
    }
    let outputs = stores.iter().flat_map(|&(_, p)| planes_of(p));
    for q in outputs.chain(depth) {
        let i = usize::from(q);
        if written.get(i) == Some(&false) {
            if let Some(z) = zero.get_mut(i) {
                *z = true;
            }
        }
    }
    let zeroed = zero
        .iter()
        .enumerate()
        .filter(|&(_, &z)| z)
        .map(|(i, _)| i as P)
        .collect();
    let neighbours = ops.iter().any(|op| {
        matches!(
            op,
            Op::Dsx { .. }
                | Op::Dsy { .. }
                | Op::Sample {
                    kind: SampleKind::Implicit | SampleKind::Project | SampleKind::Bias,
                    ..
                }
        )
    });
    Some(PlaneCode {
        neighbours,
        ops,
        size,
        consts: layout.consts,
        first_register,
        zeroed,
        loads,
        stores,
        depth,
        executed,
    })
}

struct Compiler<'l> {
    profile: Profile,
    layout: &'l Layout,
    ops: Vec<Op>,
    /// Per `Layout::relative` entry: its planes hold the constant for the
    /// current a0 (gathered since a0's component last changed).
    gathered: Vec<bool>,
    /// First scratch plane.
    scratch: usize,
    /// Next free scratch plane of this instruction.
    next: usize,
    /// One past the highest plane used.
    high: usize,
}

impl Compiler<'_> {
    fn temp(&mut self) -> P {
        let p = self.next;
        self.next = self.next.saturating_add(1);
        self.high = self.high.max(self.next);
        p as P
    }

    /// The plane of component `comp` of register `ty`/`index` (no
    /// modifier), emitting a gather or an a0 read when it needs one.
    fn raw(&mut self, s: &Src, index: u16, comp: u8) -> Option<P> {
        match s.reg.ty {
            RegisterType::Const => match &s.relative {
                None => self.layout.constant(index, comp),
                Some(r) => {
                    let addr = r.swizzle.component(0);
                    let (i, base) = self.layout.relative(index, addr)?;
                    let d = planes_of(base);
                    let done = self.gathered.get_mut(i)?;
                    if !*done {
                        *done = true;
                        self.ops.push(Op::Gather { d, index, addr });
                    }
                    Some(at(&d, usize::from(comp)))
                }
            },
            RegisterType::Addr if self.profile.is_vertex() => {
                let d = self.temp();
                self.ops.push(Op::FromAddr { d, comp });
                Some(d)
            }
            ty => {
                let file = file_of(self.profile, ty, index)?;
                let base = self.layout.register(file, index)?;
                // vFace is one value in every component.
                let comp = if file == File::Face { 0 } else { comp };
                Some(base.saturating_add(P::from(comp)))
            }
        }
    }

    /// The planes holding source `s` (`k` registers after the one it
    /// names) for each destination component of `mask`: swizzle, relative
    /// address and modifier applied. Other components are plane 0.
    fn src(&mut self, s: &Src, k: u16, mask: u8) -> Option<[P; 4]> {
        let index = s.reg.index.saturating_add(k);
        let mut out = [0; 4];
        // One read per source component, shared by the channels that
        // swizzle it.
        let mut done: [Option<P>; 4] = [None; 4];
        for (c, o) in out.iter_mut().enumerate() {
            if mask & (1 << c) == 0 {
                continue;
            }
            let comp = s.swizzle.component(c as u8);
            let slot = at_mut(&mut done, usize::from(comp));
            let p = match *slot {
                Some(p) => p,
                None => {
                    let mut p = self.raw(s, index, comp)?;
                    if s.modifier != SrcModifier::None {
                        let d = self.temp();
                        self.ops.push(Op::Modify {
                            d,
                            a: p,
                            m: s.modifier,
                        });
                        p = d;
                    }
                    *at_mut(&mut done, usize::from(comp)) = Some(p);
                    p
                }
            };
            *o = p;
        }
        Some(out)
    }

    fn src_n(&mut self, ins: &Instruction, i: usize, k: u16, mask: u8) -> Option<[P; 4]> {
        let s = *ins.src().get(i)?;
        self.src(&s, k, mask)
    }

    /// The planes of the destination register.
    fn dst_planes(&self, d: &Dst) -> Option<[P; 4]> {
        let file = file_of(self.profile, d.reg.ty, d.reg.index)?;
        let base = self.layout.register(file, d.reg.index)?;
        Some(planes_of(base))
    }

    /// Compiles one instruction.
    fn instruction(&mut self, ins: &Instruction) -> Option<()> {
        use Opcode::*;
        if ins.opcode == TexKill {
            let d = ins.dst()?;
            let file = file_of(self.profile, d.reg.ty, d.reg.index)?;
            let base = self.layout.register(file, d.reg.index)?;
            let a = if file == File::Face {
                [base; 4]
            } else {
                planes_of(base)
            };
            self.ops.push(Op::Kill { a });
            return Some(());
        }
        let dst = *ins.dst()?;
        let mask = dst.write_mask & 0xF;
        if self.profile.is_vertex() && dst.reg.ty == RegisterType::Addr {
            // mov a0 (vs_1_1: floor) / mova (round).
            let a = self.src_n(ins, 0, 0, mask)?;
            for c in 0..4u8 {
                if mask & (1 << c) != 0 {
                    self.ops.push(Op::ToAddr {
                        comp: c,
                        a: at(&a, usize::from(c)),
                        round: ins.opcode == Mova,
                    });
                    // Gathers through a0.c must be made again.
                    for (&((_, addr), _), done) in
                        self.layout.relative.iter().zip(&mut self.gathered)
                    {
                        if addr == c {
                            *done = false;
                        }
                    }
                }
            }
            return Some(());
        }
        let real = self.dst_planes(&dst)?;
        let start = self.ops.len();
        self.body(ins, mask, real)?;
        // A later operation of this instruction reading a plane an earlier
        // one wrote: compute into scratch planes, then copy.
        let body: Vec<Op> = self.ops.get(start..)?.to_vec();
        if aliased(&body, &real) {
            let spare = [self.temp(), self.temp(), self.temp(), self.temp()];
            self.ops.truncate(start);
            for mut op in body {
                op.planes(|p, write| {
                    if write {
                        if let Some(c) = real.iter().position(|r| r == p) {
                            *p = at(&spare, c);
                        }
                    }
                });
                self.ops.push(op);
            }
            for c in 0..4 {
                if mask & (1 << c) != 0 {
                    self.ops.push(Op::Mov {
                        d: at(&real, c),
                        a: at(&spare, c),
                    });
                }
            }
        }
        let scale = arith::shift_scale(dst.shift);
        if scale != 1.0 || dst.modifiers.saturate {
            for (c, &d) in real.iter().enumerate() {
                if mask & (1 << c) != 0 {
                    self.ops.push(Op::Finish {
                        d,
                        scale,
                        sat: dst.modifiers.saturate,
                    });
                }
            }
        }
        Some(())
    }

    /// The operations computing `ins` into planes `d` (components of
    /// `mask`).
    fn body(&mut self, ins: &Instruction, mask: u8, d: [P; 4]) -> Option<()> {
        use Opcode::*;
        let on = |c: usize| mask & (1 << c) != 0;
        // Destinations of a replicated result.
        let (dn, n) = {
            let mut dn = [0; 4];
            let mut n = 0u8;
            for (c, &p) in d.iter().enumerate() {
                if on(c) {
                    *at_mut(&mut dn, usize::from(n)) = p;
                    n = n.saturating_add(1);
                }
            }
            (dn, n)
        };
        let vs1 = self.profile == Profile::Vs1_1;
        match ins.opcode {
            Mov | Mova | Add | Sub | Mul | Min | Max | Slt | Sge | Frc | Abs | Sgn | Dsx | Dsy
            | Mad | Lrp | Cnd | Cmp => {
                let arity = match ins.opcode {
                    Mov | Mova | Frc | Abs | Sgn | Dsx | Dsy => 1,
                    Mad | Lrp | Cnd | Cmp => 3,
                    _ => 2,
                };
                let a = self.src_n(ins, 0, 0, mask)?;
                let b = if arity > 1 {
                    self.src_n(ins, 1, 0, mask)?
                } else {
                    [0; 4]
                };
                let e = if arity > 2 {
                    self.src_n(ins, 2, 0, mask)?
                } else {
                    [0; 4]
                };
                for c in 0..4 {
                    if !on(c) {
                        continue;
                    }
                    let (d, a, b, e) = (at(&d, c), at(&a, c), at(&b, c), at(&e, c));
                    self.ops.push(match ins.opcode {
                        Mov | Mova => Op::Mov { d, a },
                        Add => Op::Add { d, a, b },
                        Sub => Op::Sub { d, a, b },
                        Mul => Op::Mul { d, a, b },
                        Min => Op::Min { d, a, b },
                        Max => Op::Max { d, a, b },
                        Slt => Op::Slt { d, a, b },
                        Sge => Op::Sge { d, a, b },
                        Frc => Op::Frc { d, a },
                        Abs => Op::Abs { d, a },
                        Sgn => Op::Sgn { d, a },
                        Dsx => Op::Dsx { d, a },
                        Dsy => Op::Dsy { d, a },
                        Mad => Op::Mad { d, a, b, c: e },
                        Lrp => Op::Lrp { d, a, b, c: e },
                        Cnd => Op::Cnd { d, a, b, c: e },
                        _ => Op::Cmp { d, a, b, c: e },
                    });
                }
            }
            Rcp | Rsq | Exp | Log | ExpP | LogP if !(vs1 && matches!(ins.opcode, ExpP | LogP)) => {
                let a = self.src_n(ins, 0, 0, 1)?[0];
                let f = match ins.opcode {
                    Rcp => Scalar::Rcp,
                    Rsq => Scalar::Rsq,
                    Exp | ExpP => Scalar::Exp,
                    _ => Scalar::Log,
                };
                self.ops.push(Op::Scalar { f, d: dn, n, a });
            }
            ExpP | LogP | Lit | SinCos => {
                let a = self.src_n(ins, 0, 0, 0xF)?;
                let f = match ins.opcode {
                    ExpP => Vector::ExpPVs1,
                    LogP => Vector::LogPVs1,
                    Lit => Vector::Lit,
                    _ => Vector::SinCos,
                };
                self.ops.push(Op::Vector { f, d, mask, a });
            }
            Pow => {
                let a = self.src_n(ins, 0, 0, 1)?[0];
                let b = self.src_n(ins, 1, 0, 1)?[0];
                self.ops.push(Op::Pow { d: dn, n, a, b });
            }
            Dp3 => {
                let a = self.src_n(ins, 0, 0, 0x7)?;
                let b = self.src_n(ins, 1, 0, 0x7)?;
                self.ops.push(Op::Dp3 {
                    d: dn,
                    n,
                    a: [a[0], a[1], a[2]],
                    b: [b[0], b[1], b[2]],
                });
            }
            Dp4 => {
                let a = self.src_n(ins, 0, 0, 0xF)?;
                let b = self.src_n(ins, 1, 0, 0xF)?;
                self.ops.push(Op::Dp4 { d: dn, n, a, b });
            }
            Dp2Add => {
                let a = self.src_n(ins, 0, 0, 0x3)?;
                let b = self.src_n(ins, 1, 0, 0x3)?;
                let c = self.src_n(ins, 2, 0, 0x1)?[0];
                self.ops.push(Op::Dp2Add {
                    d: dn,
                    n,
                    a: [a[0], a[1]],
                    b: [b[0], b[1]],
                    c,
                });
            }
            M4x4 | M4x3 | M3x4 | M3x3 | M3x2 => {
                let four = matches!(ins.opcode, M4x4 | M4x3);
                let need = if four { 0xF } else { 0x7 };
                let a = self.src_n(ins, 0, 0, need)?;
                let n_rows = rows(ins.opcode);
                for c in 0..4 {
                    // Components past the last row are 0.
                    if on(c) && c >= usize::from(n_rows) {
                        self.ops.push(Op::Set {
                            d: at(&d, c),
                            v: 0.0,
                        });
                    }
                }
                for k in 0..n_rows {
                    let c = usize::from(k);
                    if !on(c) {
                        continue;
                    }
                    let row = self.src_n(ins, 1, k, need)?;
                    let dk = [at(&d, c), 0, 0, 0];
                    self.ops.push(if four {
                        Op::Dp4 {
                            d: dk,
                            n: 1,
                            a,
                            b: row,
                        }
                    } else {
                        Op::Dp3 {
                            d: dk,
                            n: 1,
                            a: [a[0], a[1], a[2]],
                            b: [row[0], row[1], row[2]],
                        }
                    });
                }
            }
            Dst => {
                let a = self.src_n(ins, 0, 0, 0x6)?;
                let b = self.src_n(ins, 1, 0, 0xA)?;
                for c in 0..4 {
                    if !on(c) {
                        continue;
                    }
                    self.ops.push(match c {
                        0 => Op::Set { d: d[0], v: 1.0 },
                        1 => Op::Mul {
                            d: d[1],
                            a: a[1],
                            b: b[1],
                        },
                        2 => Op::Mov { d: d[2], a: a[2] },
                        _ => Op::Mov { d: d[3], a: b[3] },
                    });
                }
            }
            Crs => {
                let a = self.src_n(ins, 0, 0, 0x7)?;
                let b = self.src_n(ins, 1, 0, 0x7)?;
                for c in 0..4 {
                    if !on(c) {
                        continue;
                    }
                    let (i, j) = match c {
                        0 => (1, 2),
                        1 => (2, 0),
                        2 => (0, 1),
                        _ => {
                            self.ops.push(Op::Set {
                                d: at(&d, 3),
                                v: 0.0,
                            });
                            continue;
                        }
                    };
                    self.ops.push(Op::MulSub {
                        d: at(&d, c),
                        a: at(&a, i),
                        b: at(&b, j),
                        c: at(&a, j),
                        e: at(&b, i),
                    });
                }
            }
            Nrm => {
                let s = self.src_n(ins, 0, 0, 0xF)?;
                let mut sn = [0; 4];
                for (i, c) in (0..4).filter(|&c| on(c)).enumerate() {
                    *at_mut(&mut sn, i) = at(&s, c);
                }
                self.ops.push(Op::Nrm {
                    d: dn,
                    n,
                    s: sn,
                    v: [s[0], s[1], s[2]],
                });
            }
            Tex | TexLdl | TexLdd => {
                let coords = self.src_n(ins, 0, 0, 0xF)?;
                let sampler = ins.src().get(1).map_or(0, |s| s.reg.index.min(15) as u8);
                let kind = match (ins.opcode, ins.control) {
                    (TexLdl, _) => SampleKind::Level,
                    (TexLdd, _) => SampleKind::Gradients(
                        self.src_n(ins, 2, 0, 0xF)?,
                        self.src_n(ins, 3, 0, 0xF)?,
                    ),
                    (_, Control::Project) => SampleKind::Project,
                    (_, Control::Bias) => SampleKind::Bias,
                    _ => SampleKind::Implicit,
                };
                self.ops.push(Op::Sample {
                    d,
                    mask,
                    coords,
                    sampler,
                    kind,
                });
            }
            _ => return None,
        }
        Some(())
    }
}

/// The four planes of a register whose first plane is `base`.
fn planes_of(base: P) -> [P; 4] {
    [0, 1, 2, 3].map(|c| base.saturating_add(c))
}

/// Whether an operation of `body` reads a plane of `dst` that an earlier
/// one wrote.
fn aliased(body: &[Op], dst: &[P; 4]) -> bool {
    let mut written: Vec<P> = Vec::new();
    for op in body {
        let mut op = *op;
        let mut hit = false;
        op.planes(|p, write| {
            if !write && written.contains(p) {
                hit = true;
            }
        });
        if hit {
            return true;
        }
        op.planes(|p, write| {
            if write && dst.contains(p) {
                written.push(*p);
            }
        });
    }
    false
}

impl PlaneCode {
    /// Whether it runs the lanes of `mask` as the reference does: always
    /// when every lane is active; otherwise unless a lane reads its quad
    /// neighbours (the reference leaves inactive lanes' registers at 0,
    /// this executor computes them).
    pub(super) fn runs(&self, mask: Mask) -> bool {
        mask & ALL_LANES == ALL_LANES || !self.neighbours
    }

    /// Runs the code for the lanes of `mask`, as
    /// [`super::Program::run`] defines a run, its inputs read from
    /// `inputs` when given ([`super::Program::run_inputs`]), else from
    /// `regs`.
    pub(super) fn run_with(
        &self,
        regs: &mut Registers,
        constants: &BoundConstants,
        textures: &dyn Textures,
        inputs: Option<&dyn Inputs>,
        mask: Mask,
    ) -> RunStats {
        let stats = RunStats {
            executed: self.executed,
            stopped: false,
        };
        // Only the outputs this code does not store need clearing (the
        // stores below overwrite theirs, every lane); temporaries and
        // the other per-lane files only after a reference run wrote them.
        if std::mem::take(&mut regs.reference_ran) {
            regs.clear_outputs();
        } else {
            regs.clear_unstored(|store| self.stores.iter().any(|&(s, _)| s == store));
        }
        let mask = mask & ALL_LANES;
        if mask == 0 {
            return stats;
        }
        let file = &mut regs.planes;
        self.prepare(
            &mut file.planes,
            &mut file.loaded,
            &mut file.address,
            constants,
        );
        for &(load, p) in &self.loads {
            if let Some(inputs) = inputs {
                let reg = load.register();
                let at_p = usize::from(p);
                let Some(out) = file
                    .planes
                    .get_mut(at_p..at_p + 4)
                    .and_then(|s| <&mut [Plane; 4]>::try_from(s).ok())
                else {
                    continue;
                };
                inputs.load(reg, out);
                if load == Load::Face {
                    out[1] = out[0];
                    out[2] = out[0];
                    out[3] = out[0];
                }
                continue;
            }
            let src: Option<&[Vec4; LANES]> = match load {
                Load::Input(i) => regs.input.get(usize::from(i)),
                Load::Texture(i) => regs.texcoord.get(usize::from(i)),
                Load::Position => Some(&regs.position),
                Load::Face => None,
            };
            let values = match (load, src) {
                (Load::Face, _) => [regs.face; 4],
                (_, Some(v)) => transpose(v),
                (_, None) => [[0.0; LANES]; 4],
            };
            let at_p = file.planes.get_mut(usize::from(p)..).unwrap_or_default();
            for (x, v) in at_p.iter_mut().zip(values) {
                *x = v;
            }
        }
        let mut killed = 0;
        let PlaneFile {
            planes, address, ..
        } = file;
        execute(
            &self.ops,
            planes,
            address,
            constants,
            textures,
            u64::from(mask),
            &mut killed,
        );
        regs.killed = (killed & u64::from(mask)) as Mask;
        let file = &regs.planes;
        let plane = |p: usize| file.planes.get(p).copied().unwrap_or([0.0; LANES]);
        for &(store, p) in &self.stores {
            let out = match store {
                Store::RastOut(i) => regs.rast_out.get_mut(usize::from(i)),
                Store::AttrOut(i) => regs.attr_out.get_mut(usize::from(i)),
                Store::TexCrdOut(i) => regs.texcrd_out.get_mut(usize::from(i)),
                Store::ColorOut(i) => regs.color_out.get_mut(usize::from(i)),
            };
            let Some(out) = out else { continue };
            let lanes = transpose(&planes_of(p).map(|c| plane(usize::from(c))));
            for (l, (o, v)) in out.iter_mut().zip(lanes).enumerate() {
                *o = if mask & (1 << l) != 0 { v } else { ZERO };
            }
        }
        if let Some(p) = self.depth {
            let z = plane(usize::from(p));
            for (l, (o, z)) in regs.depth_out.iter_mut().zip(z).enumerate() {
                if mask & (1 << l) != 0 {
                    *o = z;
                }
            }
            regs.depth_written = true;
        }
        stats
    }
}

/// The planes of one wide group of `N` lanes (vertices, or `N / 4`
/// pixel quads): the executor's state a caller of
/// [`super::Program::run_wide`] or [`super::Program::run_quads`] keeps
/// between runs (constants stay loaded while the bound constants are the
/// same).
#[derive(Clone, Debug, PartialEq)]
pub struct WideFile<const N: usize> {
    planes: Vec<[f32; N]>,
    /// `a0`, per component.
    address: [[i32; N]; 4],
    /// The [`BoundConstants::id`] whose constants are loaded.
    loaded: Option<u64>,
    /// Lanes of the last run's mask that `texkill` removed (bit `l`: lane
    /// `l`).
    killed: u64,
}

impl<const N: usize> WideFile<N> {
    /// Lanes of the last run's mask that `texkill` removed (bit `l`:
    /// lane `l`).
    pub fn killed(&self) -> u64 {
        self.killed
    }
}

impl<const N: usize> Default for WideFile<N> {
    fn default() -> Self {
        WideFile {
            planes: Vec::new(),
            address: [[0; N]; 4],
            loaded: None,
            killed: 0,
        }
    }
}

impl PlaneCode {
    /// Readies a register file of `N`-lane planes for a run: the bound
    /// constants' planes loaded once per binding (`loaded` holds the
    /// [`BoundConstants::id`]), the planes the code reads before writing
    /// zeroed, the address registers cleared.
    fn prepare<const N: usize>(
        &self,
        planes: &mut Vec<[f32; N]>,
        loaded: &mut Option<u64>,
        address: &mut [[i32; N]; 4],
        constants: &BoundConstants,
    ) {
        if planes.len() != self.size || *loaded != Some(constants.id) {
            planes.clear();
            planes.resize(self.size, [0.0; N]);
            for &(p, index, comp) in &self.consts {
                let v = constants
                    .float
                    .get(usize::from(index))
                    .map_or(0.0, |v| at(v, usize::from(comp)));
                if let Some(x) = planes.get_mut(usize::from(p)) {
                    *x = [v; N];
                }
            }
            *loaded = Some(constants.id);
        }
        for &p in &self.zeroed {
            if let Some(x) = planes.get_mut(usize::from(p)) {
                *x = [0.0; N];
            }
        }
        *address = [[0; N]; 4];
    }

    /// Runs the code over the `N` lanes of `file`, each input register
    /// the code reads (`v#`, `t#`, `vPos`, `vFace`) filled by
    /// `input(register, planes)` (`vFace` from its first component), and
    /// keeps the lanes `texkill` removed ([`WideFile::killed`]). Lanes
    /// outside `mask` are computed from whatever their inputs hold; their
    /// results mean nothing. The quad operations take each group of four
    /// lanes as one quad: the caller runs every lane of a quad whose
    /// lanes read their neighbours (see [`PlaneCode::runs`]).
    pub(super) fn run_wide<const N: usize>(
        &self,
        file: &mut WideFile<N>,
        constants: &BoundConstants,
        textures: &dyn Textures,
        mask: u64,
        input: &mut dyn FnMut(InputRegister, &mut [[f32; N]; 4]),
    ) -> RunStats {
        let stats = RunStats {
            executed: self.executed,
            stopped: false,
        };
        self.prepare(
            &mut file.planes,
            &mut file.loaded,
            &mut file.address,
            constants,
        );
        for &(load, p) in &self.loads {
            let at_p = usize::from(p);
            let Some(out) = file
                .planes
                .get_mut(at_p..at_p + 4)
                .and_then(|s| <&mut [[f32; N]; 4]>::try_from(s).ok())
            else {
                continue;
            };
            input(load.register(), out);
            if load == Load::Face {
                out[1] = out[0];
                out[2] = out[0];
                out[3] = out[0];
            }
        }
        let mut killed = 0;
        execute(
            &self.ops,
            &mut file.planes,
            &mut file.address,
            constants,
            textures,
            mask,
            &mut killed,
        );
        file.killed = killed & mask;
        stats
    }

    /// The `oDepth` plane after [`PlaneCode::run_wide`], if the code
    /// writes it.
    pub(super) fn wide_depth<'f, const N: usize>(
        &self,
        file: &'f WideFile<N>,
    ) -> Option<&'f [f32; N]> {
        file.planes.get(usize::from(self.depth?))
    }

    /// The four component planes of output register `store` after
    /// [`PlaneCode::run_wide`]; `None` when the code does not write it
    /// (it reads 0).
    pub(super) fn wide_output<'f, const N: usize>(
        &self,
        file: &'f WideFile<N>,
        store: Store,
    ) -> Option<&'f [[f32; N]; 4]> {
        let &(_, p) = self.stores.iter().find(|&&(s, _)| s == store)?;
        let p = usize::from(p);
        file.planes
            .get(p..p + 4)
            .and_then(|s| <&[[f32; N]; 4]>::try_from(s).ok())
    }
}

/// Lane-wise `f` of one plane.
#[inline(always)]
fn map1<const N: usize>(a: [f32; N], f: impl Fn(f32) -> f32) -> [f32; N] {
    let mut out = [0.0; N];
    for (o, x) in out.iter_mut().zip(a) {
        *o = f(x);
    }
    out
}

/// Lane-wise `f` of two planes.
#[inline(always)]
fn map2<const N: usize>(a: [f32; N], b: [f32; N], f: impl Fn(f32, f32) -> f32) -> [f32; N] {
    let mut out = [0.0; N];
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
    out
}

/// Lane-wise sum.
#[inline(always)]
fn add<const N: usize>(a: [f32; N], b: [f32; N]) -> [f32; N] {
    map2(a, b, |x, y| x + y)
}

/// Lane-wise product.
#[inline(always)]
fn mul<const N: usize>(a: [f32; N], b: [f32; N]) -> [f32; N] {
    map2(a, b, |x, y| x * y)
}

/// Lane-wise `f` of three planes.
#[inline(always)]
fn map3<const N: usize>(
    a: [f32; N],
    b: [f32; N],
    c: [f32; N],
    f: impl Fn(f32, f32, f32) -> f32,
) -> [f32; N] {
    let mut out = [0.0; N];
    for (((o, x), y), z) in out.iter_mut().zip(a).zip(b).zip(c) {
        *o = f(x, y, z);
    }
    out
}

/// Lane `l` of four component planes, as a register value.
#[inline(always)]
fn lane_of<const N: usize>(v: &[[f32; N]; 4], l: usize) -> Vec4 {
    v.map(|p| p.get(l).copied().unwrap_or(0.0))
}

/// Quad `q` (lanes `4q..4q + 4`) of a plane.
#[inline(always)]
fn quad_of<T: Copy + Default, const N: usize>(v: &[T; N], q: usize) -> [T; 4] {
    v.chunks_exact(4)
        .nth(q)
        .and_then(|s| <[T; 4]>::try_from(s).ok())
        .unwrap_or_default()
}

/// The operations, in order, over `N` lanes: lane `l` of every plane is
/// invocation `l`; the quad operations (derivatives, texture samples)
/// work on each group of four lanes `4q..4q + 4` as one 2×2 quad.
/// `mask` bit `l`: lane `l` is active (a texture unit is asked only for
/// the active lanes of a quad, and not at all for a quad without one).
fn execute<const N: usize>(
    ops: &[Op],
    planes: &mut [[f32; N]],
    address: &mut [[i32; N]; 4],
    constants: &BoundConstants,
    textures: &dyn Textures,
    mask: u64,
    killed: &mut u64,
) {
    let get = |f: &[[f32; N]], p: P| f.get(usize::from(p)).copied().unwrap_or([0.0; N]);
    let set = |f: &mut [[f32; N]], p: P, v: [f32; N]| {
        if let Some(x) = f.get_mut(usize::from(p)) {
            *x = v;
        }
    };
    // Several destinations of one result.
    let set_n = |f: &mut [[f32; N]], d: &[P; 4], n: u8, v: [f32; N]| {
        for &p in d.iter().take(usize::from(n)) {
            if let Some(x) = f.get_mut(usize::from(p)) {
                *x = v;
            }
        }
    };
    // Quad `q` of a destination plane.
    let set_quad = |f: &mut [[f32; N]], p: P, q: usize, v: [f32; 4]| {
        if let Some(x) = f
            .get_mut(usize::from(p))
            .and_then(|x| x.chunks_exact_mut(4).nth(q))
        {
            x.copy_from_slice(&v);
        }
    };
    // The mask of every lane.
    let lanes_all = u64::MAX
        .checked_shr(64u32.saturating_sub(N.min(64) as u32))
        .unwrap_or(0);
    for op in ops {
        match *op {
            Op::Mov { d, a } => set(planes, d, get(planes, a)),
            Op::Set { d, v } => set(planes, d, [v; N]),
            Op::Modify { d, a, m } => set(planes, d, map1(get(planes, a), |x| arith::modify(m, x))),
            Op::Add { d, a, b } => set(
                planes,
                d,
                map2(get(planes, a), get(planes, b), |x, y| x + y),
            ),
            Op::Sub { d, a, b } => set(
                planes,
                d,
                map2(get(planes, a), get(planes, b), |x, y| x - y),
            ),
            Op::Mul { d, a, b } => set(
                planes,
                d,
                map2(get(planes, a), get(planes, b), |x, y| x * y),
            ),
            Op::Mad { d, a, b, c } => set(
                planes,
                d,
                map3(get(planes, a), get(planes, b), get(planes, c), |x, y, z| {
                    x * y + z
                }),
            ),
            Op::Min { d, a, b } => set(planes, d, map2(get(planes, a), get(planes, b), arith::min)),
            Op::Max { d, a, b } => set(planes, d, map2(get(planes, a), get(planes, b), arith::max)),
            Op::Slt { d, a, b } => set(planes, d, map2(get(planes, a), get(planes, b), arith::slt)),
            Op::Sge { d, a, b } => set(planes, d, map2(get(planes, a), get(planes, b), arith::sge)),
            Op::Lrp { d, a, b, c } => set(
                planes,
                d,
                map3(get(planes, a), get(planes, b), get(planes, c), arith::lrp),
            ),
            Op::Cnd { d, a, b, c } => set(
                planes,
                d,
                map3(get(planes, a), get(planes, b), get(planes, c), arith::cnd),
            ),
            Op::Cmp { d, a, b, c } => set(
                planes,
                d,
                map3(get(planes, a), get(planes, b), get(planes, c), arith::cmp),
            ),
            Op::MulSub { d, a, b, c, e } => {
                let (a, b, c, e) = (
                    get(planes, a),
                    get(planes, b),
                    get(planes, c),
                    get(planes, e),
                );
                set(planes, d, map2(mul(a, b), mul(c, e), |x, y| x - y));
            }
            Op::Frc { d, a } => set(planes, d, map1(get(planes, a), arith::frc)),
            Op::Abs { d, a } => set(planes, d, map1(get(planes, a), f32::abs)),
            Op::Sgn { d, a } => set(planes, d, map1(get(planes, a), arith::sgn)),
            Op::Dsx { d, a } => {
                let v = get(planes, a);
                let mut out = [0.0; N];
                for (o, v) in out.chunks_exact_mut(4).zip(v.chunks_exact(4)) {
                    if let [v0, v1, v2, v3] = *v {
                        let (top, bottom) = (v1 - v0, v3 - v2);
                        o.copy_from_slice(&[top, top, bottom, bottom]);
                    }
                }
                set(planes, d, out);
            }
            Op::Dsy { d, a } => {
                let v = get(planes, a);
                let mut out = [0.0; N];
                for (o, v) in out.chunks_exact_mut(4).zip(v.chunks_exact(4)) {
                    if let [v0, v1, v2, v3] = *v {
                        let (left, right) = (v2 - v0, v3 - v1);
                        o.copy_from_slice(&[left, right, left, right]);
                    }
                }
                set(planes, d, out);
            }
            Op::Scalar { f, d, n, a } => {
                let a = get(planes, a);
                let v = match f {
                    Scalar::Rcp => map1(a, arith::rcp),
                    Scalar::Rsq => map1(a, arith::rsq),
                    Scalar::Exp => map1(a, f32::exp2),
                    Scalar::Log => map1(a, arith::log2_abs),
                };
                set_n(planes, &d, n, v);
            }
            Op::Pow { d, n, a, b } => {
                let v = map2(get(planes, a), get(planes, b), arith::pow);
                set_n(planes, &d, n, v);
            }
            Op::Dp3 { d, n, a, b } => {
                let [a0, a1, a2] = a.map(|p| get(planes, p));
                let [b0, b1, b2] = b.map(|p| get(planes, p));
                let v = add(add(mul(a0, b0), mul(a1, b1)), mul(a2, b2));
                set_n(planes, &d, n, v);
            }
            Op::Dp4 { d, n, a, b } => {
                let [a0, a1, a2, a3] = a.map(|p| get(planes, p));
                let [b0, b1, b2, b3] = b.map(|p| get(planes, p));
                let v = add(add(add(mul(a0, b0), mul(a1, b1)), mul(a2, b2)), mul(a3, b3));
                set_n(planes, &d, n, v);
            }
            Op::Dp2Add { d, n, a, b, c } => {
                let [a0, a1] = a.map(|p| get(planes, p));
                let [b0, b1] = b.map(|p| get(planes, p));
                let v = add(add(mul(a0, b0), mul(a1, b1)), get(planes, c));
                set_n(planes, &d, n, v);
            }
            Op::Nrm { d, n, s, v } => {
                let [x, y, z] = v.map(|p| get(planes, p));
                let f = map1(add(add(mul(x, x), mul(y, y)), mul(z, z)), arith::nrm_factor);
                // Every result before any write: a destination may be a
                // source component (`nrm r0, r0.zxxz`).
                let values = s.map(|sp| mul(get(planes, sp), f));
                for (&dp, v) in d.iter().zip(values).take(usize::from(n)) {
                    set(planes, dp, v);
                }
            }
            Op::Vector { f, d, mask: m, a } => {
                let a = a.map(|p| get(planes, p));
                let mut out = [[0.0; N]; 4];
                for l in 0..N {
                    let v = lane_of(&a, l);
                    let r = match f {
                        Vector::Lit => arith::lit(v),
                        Vector::ExpPVs1 => arith::expp_vs1(v),
                        Vector::LogPVs1 => arith::logp_vs1(v),
                        Vector::SinCos => arith::sincos(v),
                    };
                    for (o, r) in out.iter_mut().zip(r) {
                        if let Some(x) = o.get_mut(l) {
                            *x = r;
                        }
                    }
                }
                for (c, (&dp, v)) in d.iter().zip(out).enumerate() {
                    if m & (1 << c) != 0 {
                        set(planes, dp, v);
                    }
                }
            }
            Op::ToAddr { comp, a, round } => {
                let v = get(planes, a);
                if let Some(r) = address.get_mut(usize::from(comp)) {
                    *r = v.map(|x| arith::to_address(x, round));
                }
            }
            Op::FromAddr { d, comp } => {
                let a = address.get(usize::from(comp)).copied().unwrap_or([0; N]);
                set(planes, d, a.map(|x| x as f32));
            }
            Op::Gather { d, index, addr } => {
                // Per lane: register `index + a0`, 0 outside the bound
                // constants (widened: no overflow).
                let mut v = [[0.0; N]; 4];
                if let Some(a) = address.get(usize::from(addr)) {
                    let rows = &constants.float[..];
                    for (l, &x) in a.iter().enumerate() {
                        let row = usize::try_from(i64::from(index).saturating_add(i64::from(x)))
                            .ok()
                            .and_then(|i| rows.get(i));
                        if let Some(r) = row {
                            for (c, o) in v.iter_mut().enumerate() {
                                if let (Some(o), Some(&x)) = (o.get_mut(l), r.get(c)) {
                                    *o = x;
                                }
                            }
                        }
                    }
                }
                for (&p, v) in d.iter().zip(v) {
                    set(planes, p, v);
                }
            }
            Op::Finish { d, scale, sat } => {
                let v = get(planes, d);
                set(
                    planes,
                    d,
                    map1(v, |x| {
                        let x = if scale == 1.0 { x } else { x * scale };
                        if sat {
                            x.clamp(0.0, 1.0)
                        } else {
                            x
                        }
                    }),
                );
            }
            Op::Sample {
                d,
                mask: m,
                coords,
                sampler,
                kind,
            } => {
                let c = coords.map(|p| get(planes, p));
                if matches!(kind, SampleKind::Implicit | SampleKind::Project) {
                    // Every lane at once, when the unit answers planes.
                    let pc = if kind == SampleKind::Project {
                        project_planes(&c)
                    } else {
                        c
                    };
                    let mut out = [[0.0; N]; 4];
                    let [o0, o1, o2, o3] = &mut out;
                    let coords = [&pc[0][..], &pc[1][..], &pc[2][..], &pc[3][..]];
                    if textures.sample_planes_wide(sampler, coords, [o0, o1, o2, o3], mask) {
                        if mask & lanes_all == lanes_all {
                            // Every quad: whole planes.
                            for (k, (&dp, v)) in d.iter().zip(out).enumerate() {
                                if m & (1 << k) != 0 {
                                    set(planes, dp, v);
                                }
                            }
                            continue;
                        }
                        for q in (0..N / 4).filter(|&q| quad_bits(mask, q) != 0) {
                            for (k, (&dp, v)) in d.iter().zip(&out).enumerate() {
                                if m & (1 << k) != 0 {
                                    set_quad(planes, dp, q, quad_of(v, q));
                                }
                            }
                        }
                        continue;
                    }
                }
                let gradients = match kind {
                    SampleKind::Gradients(x, y) => {
                        Some((x.map(|p| get(planes, p)), y.map(|p| get(planes, p))))
                    }
                    _ => None,
                };
                let mut quads = mask;
                for q in 0..N / 4 {
                    let quad_mask = (quads & 0xF) as Mask;
                    quads >>= 4;
                    if quad_mask == 0 {
                        continue;
                    }
                    let c = c.map(|p| quad_of(&p, q));
                    let gradients = gradients
                        .map(|(x, y)| (x.map(|p| quad_of(&p, q)), y.map(|p| quad_of(&p, q))));
                    let out = sample_quad(textures, sampler, kind, c, gradients, quad_mask);
                    for (k, (&dp, v)) in d.iter().zip(out).enumerate() {
                        if m & (1 << k) != 0 {
                            set_quad(planes, dp, q, v);
                        }
                    }
                }
            }
            Op::Kill { a } => {
                let a = a.map(|p| get(planes, p));
                for l in 0..N.min(64) {
                    if lane_of(&a, l).iter().any(|&x| x < 0.0) {
                        *killed |= 1 << l;
                    }
                }
            }
        }
    }
}

/// The four lane bits of quad `q` in a lane mask.
#[inline(always)]
pub(super) fn quad_bits(mask: u64, q: usize) -> u64 {
    mask.checked_shr(4u32.saturating_mul(q as u32)).unwrap_or(0) & 0xF
}

/// `texldp`'s projection ([`arith::project`]) of every lane of four
/// component planes.
#[inline(always)]
fn project_planes<const N: usize>(c: &[[f32; N]; 4]) -> [[f32; N]; 4] {
    let mut out = *c;
    for l in 0..N {
        let v = arith::project(lane_of(c, l));
        for (o, x) in out.iter_mut().zip(v) {
            if let Some(o) = o.get_mut(l) {
                *o = x;
            }
        }
    }
    out
}

/// One quad's texture sample: component planes of the results, from the
/// quad's coordinate planes `c` (and, for `texldd`, its gradient planes).
fn sample_quad(
    textures: &dyn Textures,
    sampler: u8,
    kind: SampleKind,
    c: [Plane; 4],
    gradients: Option<([Plane; 4], [Plane; 4])>,
    mask: Mask,
) -> [Plane; 4] {
    if matches!(kind, SampleKind::Implicit | SampleKind::Project) {
        let pc = if kind == SampleKind::Project {
            transpose(&transpose(&c).map(arith::project))
        } else {
            c
        };
        if let Some(out) = textures.sample_planes(sampler, &pc, mask) {
            return out;
        }
    }
    let coords = transpose(&c);
    let zero = [0.0; LANES];
    let request = match (kind, gradients) {
        (SampleKind::Implicit | SampleKind::Project | SampleKind::Bias, _) => {
            let coords = if kind == SampleKind::Project {
                coords.map(arith::project)
            } else {
                coords
            };
            SampleRequest {
                sampler,
                coords,
                ddx: super::ddx(&coords),
                ddy: super::ddy(&coords),
                lod: LodMode::Gradients {
                    bias: if kind == SampleKind::Bias {
                        at(&c, 3)
                    } else {
                        zero
                    },
                },
                mask,
            }
        }
        (SampleKind::Level, _) => SampleRequest {
            sampler,
            coords,
            ddx: [ZERO; LANES],
            ddy: [ZERO; LANES],
            lod: LodMode::Level(at(&c, 3)),
            mask,
        },
        (SampleKind::Gradients(..), g) => {
            let (x, y) = g.unwrap_or_default();
            SampleRequest {
                sampler,
                coords,
                ddx: transpose(&x),
                ddy: transpose(&y),
                lod: LodMode::Gradients { bias: zero },
                mask,
            }
        }
    };
    transpose(&textures.sample(&request))
}
