//! Execution: runs a [`Validated`] shader over a group of [`LANES`]
//! invocations — a 2×2 quad of pixels, so that derivatives come from
//! neighbours, or four vertices — with per-lane masks for divergent flow
//! control. This is the reference interpreter: the pipeline's vertex and
//! pixel programs call it, and faster executors are tested against it.
//! Programs the register-plane executor runs also go wider, inputs and
//! outputs as planes of a [`WideFile`]: vertex shaders over many vertices
//! per run ([`Program::run_wide`]), pixel shaders over several 2×2 quads
//! per run ([`Program::run_quads`], each group of four lanes one quad for
//! derivatives), each lane with the results of a four-lane run.
//!
//! - In: a [`Program`] (a validated shader and its jump table), the
//!   constants a draw set ([`Constants`], bound once per draw with the
//!   shader's own `def`s by [`Program::bind`]), the inputs of each lane in
//!   [`Registers`], a [`Textures`] unit that samples, and the mask of lanes
//!   to run.
//! - Out: the outputs in [`Registers`] (`oPos`, `oD#`, `oT#`/`o#`, `oFog`,
//!   `oPts`, `oC#`, `oDepth`, and `r0` for ps_1_x), the lanes `texkill`
//!   removed ([`Registers::killed`]), and [`RunStats`].
//! - Guarantees: never panics and never indexes out of range, whatever the
//!   constants and inputs: register numbers were proven in range by
//!   validation, and every relative address (`c[a0.x + n]`, `o[aL]`) is
//!   bounds-checked here (an out-of-range read gives 0, an out-of-range
//!   write is dropped). Time is bounded: loop and rep counts are clamped to
//!   255 as Direct3D defines them, and a run stops after
//!   [`MAX_INSTRUCTIONS_EXECUTED`] instructions (the figure reported as
//!   `MaxVShaderInstructionsExecuted` / `MaxPShaderInstructionsExecuted`),
//!   leaving its outputs as they are. The arithmetic follows the Direct3D 9
//!   assembly reference (`docs/shaders.md` §11).

mod arith;
mod inputs;
mod lane;
mod plan;
mod planes;
mod texture;

pub use inputs::{InputRegister, Inputs};
pub use lane::{ddx, ddy, Lanes, Mask, Vec4, ALL_LANES, LANES};
pub use planes::WideFile;
pub use texture::{BumpEnv, LodMode, NoTextures, SampleRequest, Textures};

use crate::ir::{
    misctype, Comparison, Control, Dst, Instruction, Opcode, Operands, Profile, RegisterType,
    RelAddr, Src, SrcModifier,
};
use crate::valid::Validated;
use lane::{
    active, dot3, dot4, lane as lane_of, lane_mut, lanes_from, map, mask_where, per_lane, pick,
    pick_mut, splat, zip, zip3, ZERO,
};
use plan::Plan;

/// Instructions one run may execute before it is stopped: Direct3D 9's
/// minimum for vs_3_0 and ps_3_0 (`MaxVShaderInstructionsExecuted`,
/// `MaxPShaderInstructionsExecuted` "at least 2^16"), which softhal
/// reports.
pub const MAX_INSTRUCTIONS_EXECUTED: u32 = 65_536;

/// The largest count a `loop` or `rep` runs (`i#.x` is 0…255).
pub const MAX_LOOP_COUNT: i32 = 255;

/// The range of ps_1_x arithmetic: every result is clamped to
/// [−`MAX_PIXEL_SHADER_VALUE`, `MAX_PIXEL_SHADER_VALUE`] (reported as
/// `D3DCAPS9.MaxPixelShaderValue`). ps_1_x constants are clamped to [−1, 1].
pub const MAX_PIXEL_SHADER_VALUE: f32 = 8.0;

/// Constants as the runtime set them (SETVERTEXSHADERCONST/I/B,
/// SETPIXELSHADERCONST/I/B). Registers beyond a vector's length read as 0.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Constants {
    /// `c#`.
    pub float: Vec<Vec4>,
    /// `i#`.
    pub int: Vec<[i32; 4]>,
    /// `b#`.
    pub bool: Vec<bool>,
}

/// The constants one draw runs with: the runtime's, overridden by the
/// shader's own `def`/`defi`/`defb` (which take precedence, as in Direct3D
/// 9), clamped to [−1, 1] for ps_1_x, sized to the version's register
/// counts.
#[derive(Clone, Debug)]
pub struct BoundConstants {
    float: Vec<Vec4>,
    int: Vec<[i32; 4]>,
    bool: Vec<bool>,
    /// Distinct for each [`Program::bind`]: [`Registers`] keep the
    /// constants of the last binding they ran with loaded.
    id: u64,
}

impl PartialEq for BoundConstants {
    fn eq(&self, other: &BoundConstants) -> bool {
        (&self.float, &self.int, &self.bool) == (&other.float, &other.int, &other.bool)
    }
}

/// The source of [`BoundConstants::id`].
static NEXT_BINDING: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A validated shader ready to run: its jump table for the reference
/// interpreter and, when the register-plane executor runs it, its plane
/// code.
#[derive(Clone, Debug)]
pub struct Program {
    shader: Validated,
    plan: Plan,
    planes: Option<planes::PlaneCode>,
    /// What it computes when it is a fixed-function shape (pixel shaders).
    pixel_kind: Option<crate::pixel_kind::PixelKind>,
}

/// What one run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Instructions executed (flow control and skipped instructions
    /// included).
    pub executed: u32,
    /// Whether the run was stopped at [`MAX_INSTRUCTIONS_EXECUTED`].
    pub stopped: bool,
}

/// The registers of one group of lanes: inputs the caller fills, the
/// program's temporaries, and the outputs it writes.
#[derive(Clone, Debug, PartialEq)]
pub struct Registers {
    /// `v#`: vertex elements (vertex shaders), colours `v0`/`v1` (ps < 3.0,
    /// clamped to [0, 1] by the caller) or the declared inputs (ps_3_0).
    pub input: Vec<Lanes>,
    /// Interpolated texture coordinates of stages 0…7 (pixel shaders below
    /// 3.0: what `t#` holds in ps_1_4/ps_2_x, and what ps_1_1–1_3 texture
    /// instructions read).
    pub texcoord: Vec<Lanes>,
    /// `vPos` (ps_3_0): the pixel's x, y (pixel centres), 0, 0.
    pub position: Lanes,
    /// `vFace` (ps_3_0): negative for back faces, positive for front faces.
    pub face: [f32; LANES],
    /// `r#`.
    pub temp: Vec<Lanes>,
    /// `t#` (pixel shaders).
    pub texture: Vec<Lanes>,
    /// `a0` (vertex shaders), as integers.
    pub address: [[i32; 4]; LANES],
    /// `p0`.
    pub predicate: [[bool; 4]; LANES],
    /// `oPos`, `oFog`, `oPts` (vs < 3.0).
    pub rast_out: [Lanes; 3],
    /// `oD0`, `oD1` (vs < 3.0).
    pub attr_out: [Lanes; 2],
    /// `oT#` (vs < 3.0) or `o#` (vs_3_0).
    pub texcrd_out: Vec<Lanes>,
    /// `oC0`…`oC3` (ps ≥ 2.0).
    pub color_out: [Lanes; 4],
    /// `oDepth` (ps ≥ 2.0) or the depth `texdepth`/`texm3x2depth` produce.
    pub depth_out: [f32; LANES],
    /// Whether the program wrote a depth.
    pub depth_written: bool,
    /// Lanes `texkill` removed.
    pub killed: Mask,
    /// The register-plane executor's state.
    planes: planes::PlaneFile,
    /// A reference run wrote the per-lane temporaries and outputs since
    /// they were last cleared (the plane executor then clears them all).
    reference_ran: bool,
}

impl Registers {
    /// Zeroed registers sized for `program`.
    pub fn new(program: &Program) -> Registers {
        let mut r = Registers {
            input: Vec::new(),
            texcoord: Vec::new(),
            position: [ZERO; LANES],
            face: [1.0; LANES],
            temp: Vec::new(),
            texture: Vec::new(),
            address: [[0; 4]; LANES],
            predicate: [[false; 4]; LANES],
            rast_out: [[ZERO; LANES]; 3],
            attr_out: [[ZERO; LANES]; 2],
            texcrd_out: Vec::new(),
            color_out: [[ZERO; LANES]; 4],
            depth_out: [0.0; LANES],
            depth_written: false,
            killed: 0,
            planes: planes::PlaneFile::default(),
            reference_ran: false,
        };
        r.reset(program);
        r
    }

    /// The lengths of the per-lane files for `program`: inputs, texture
    /// coordinates, temporaries, `t#`, `oT#`/`o#`.
    fn sizes(program: &Program) -> [usize; 5] {
        let count = |ty| usize::from(program.shader.register_count(ty));
        let vertex = program.profile().is_vertex();
        [
            count(RegisterType::Input),
            if vertex { 0 } else { 8 },
            count(RegisterType::Temp),
            if vertex {
                0
            } else {
                count(RegisterType::TEXTURE)
            },
            count(RegisterType::TexCrdOut),
        ]
    }

    /// Whether these registers have the sizes `program` needs (they were
    /// made or reset for it, or for a program of the same shape): a
    /// caller that feeds every input through [`Program::run_inputs`] can
    /// run `program` with them without [`Registers::reset`], since a run
    /// clears what it writes.
    pub fn sized_for(&self, program: &Program) -> bool {
        let [input, texcoord, temp, texture, texcrd_out] = Self::sizes(program);
        (
            self.input.len(),
            self.texcoord.len(),
            self.temp.len(),
            self.texture.len(),
            self.texcrd_out.len(),
        ) == (input, texcoord, temp, texture, texcrd_out)
    }

    /// Makes these registers what [`Registers::new`] gives for `program`,
    /// reusing their memory (no allocation when they already have the
    /// sizes, as for the quads of successive primitives).
    pub fn reset(&mut self, program: &Program) {
        let [input, texcoord, temp, texture, texcrd_out] = Self::sizes(program);
        let fit = |v: &mut Vec<Lanes>, n: usize| {
            v.clear();
            v.resize(n, [ZERO; LANES]);
        };
        fit(&mut self.input, input);
        fit(&mut self.texcoord, texcoord);
        fit(&mut self.temp, temp);
        fit(&mut self.texture, texture);
        fit(&mut self.texcrd_out, texcrd_out);
        self.position = [ZERO; LANES];
        self.face = [1.0; LANES];
        self.clear_outputs();
    }

    /// The colour a pixel shader produced in render target `i`: `oC#`, or
    /// `r0` for ps_1_x.
    pub fn color(&self, profile: Profile, i: usize) -> Option<&Lanes> {
        if profile.is_ps1() {
            (i == 0).then(|| self.temp.first()).flatten()
        } else {
            self.color_out.get(i)
        }
    }

    /// Clears what a run writes (temporaries, outputs, kills), keeping the
    /// inputs. Every run starts with it ([`Program::run`]); callers need
    /// not.
    pub fn clear_outputs(&mut self) {
        for r in self
            .temp
            .iter_mut()
            .chain(self.texture.iter_mut())
            .chain(self.rast_out.iter_mut())
            .chain(self.attr_out.iter_mut())
            .chain(self.texcrd_out.iter_mut())
            .chain(self.color_out.iter_mut())
        {
            *r = [ZERO; LANES];
        }
        self.address = [[0; 4]; LANES];
        self.predicate = [[false; 4]; LANES];
        self.depth_out = [0.0; LANES];
        self.depth_written = false;
        self.killed = 0;
        self.reference_ran = false;
    }

    /// What [`Registers::clear_outputs`] clears, for a run that wrote only
    /// outputs since the last clear and will overwrite the outputs for
    /// which `stored` holds: the other outputs, the depth and the kills.
    fn clear_unstored(&mut self, stored: impl Fn(planes::Store) -> bool) {
        use planes::Store;
        type File<'r> = (&'r mut [Lanes], fn(u16) -> Store);
        let files: [File<'_>; 4] = [
            (&mut self.rast_out, Store::RastOut),
            (&mut self.attr_out, Store::AttrOut),
            (&mut self.texcrd_out, Store::TexCrdOut),
            (&mut self.color_out, Store::ColorOut),
        ];
        for (regs, store) in files {
            for (i, r) in regs.iter_mut().enumerate() {
                if !stored(store(i as u16)) {
                    *r = [ZERO; LANES];
                }
            }
        }
        self.depth_out = [0.0; LANES];
        self.depth_written = false;
        self.killed = 0;
    }
}

impl Program {
    /// Prepares `shader` to run (its jump table).
    pub fn new(shader: Validated) -> Program {
        let plan = Plan::new(&shader);
        let planes = planes::compile(&shader);
        let pixel_kind = crate::pixel_kind::pixel_kind(&shader);
        Program {
            shader,
            plan,
            planes,
            pixel_kind,
        }
    }

    /// What the program computes when it is one of the fixed-function
    /// shapes of [`crate::pixel_kind`] (analysed once, here), else `None`.
    pub fn pixel_kind(&self) -> Option<crate::pixel_kind::PixelKind> {
        self.pixel_kind
    }

    /// Whether runs take the register-plane executor (the shader uses
    /// nothing it leaves to the reference interpreter).
    pub fn runs_on_planes(&self) -> bool {
        self.planes.is_some()
    }

    /// Whether [`Program::run_wide`] runs it: a vertex shader the
    /// register-plane executor runs.
    pub fn runs_wide(&self) -> bool {
        self.profile().is_vertex() && self.planes.as_ref().is_some_and(|c| c.runs(0))
    }

    /// Runs a vertex shader over `N` vertices at once (lane `l` =
    /// vertex `l`; `N` a multiple of 4, at most 64) on the register-plane
    /// executor, with the results of [`Program::run`] for each active
    /// lane, bit for bit: `input(#, planes)` writes input register `v#`
    /// (`planes[c][l]`: component `c` of lane `l`; called for the
    /// registers the program reads), [`Program::wide_output`] reads the
    /// outputs. Lanes outside `mask` (bit `l`: lane `l`) are computed
    /// from whatever their inputs hold: their outputs mean nothing.
    /// `None` (nothing run) when [`Program::runs_wide`] is false or `N`
    /// is not a lane count it takes.
    pub fn run_wide<const N: usize>(
        &self,
        file: &mut WideFile<N>,
        constants: &BoundConstants,
        textures: &dyn Textures,
        mask: u64,
        input: &mut dyn FnMut(u16, &mut [[f32; N]; 4]),
    ) -> Option<RunStats> {
        if !self.runs_wide() || !N.is_multiple_of(4) || N > 64 {
            return None;
        }
        let code = self.planes.as_ref()?;
        let mut load = |reg, planes: &mut [[f32; N]; 4]| match reg {
            InputRegister::Input(i) => input(i, planes),
            // Not a vertex shader's: (0, 0, 0, 0).
            _ => *planes = [[0.0; N]; 4],
        };
        Some(code.run_wide(file, constants, textures, mask, &mut load))
    }

    /// Whether [`Program::run_quads`] runs it: a pixel shader the
    /// register-plane executor runs.
    pub fn runs_quads(&self) -> bool {
        !self.profile().is_vertex() && self.planes.is_some()
    }

    /// Runs a pixel shader over `N / 4` 2×2 quads at once (lane `l` =
    /// pixel `l & 3` of quad `l / 4`, so lane = 4·quad + x + 2y; `N` a
    /// multiple of 4, at most 64) on the register-plane executor, with
    /// the results of [`Program::run`] of each quad with [`ALL_LANES`],
    /// bit for bit: every lane of a quad in `quads` (bit `q`: quad `q`)
    /// runs, its uncovered pixels as helper lanes, so that `dsx`, `dsy`
    /// and implicit texture LOD see the quad's own four lanes and no
    /// other quad's. `input(register, planes)` writes an input register
    /// the program reads (`v#`, `t#`, `vPos`, `vFace`; `planes[c][l]`:
    /// component `c` of lane `l`); [`Program::wide_output`] reads the
    /// colours, [`Program::wide_depth`] `oDepth`, [`WideFile::killed`]
    /// the lanes `texkill` removed. Quads outside `quads` are computed
    /// from whatever their inputs hold: their results mean nothing, and
    /// the texture unit is not asked for them. `None` (nothing run) when
    /// [`Program::runs_quads`] is false or `N` is not a lane count it
    /// takes.
    pub fn run_quads<const N: usize>(
        &self,
        file: &mut WideFile<N>,
        constants: &BoundConstants,
        textures: &dyn Textures,
        quads: u64,
        input: &mut dyn FnMut(InputRegister, &mut [[f32; N]; 4]),
    ) -> Option<RunStats> {
        if !self.runs_quads() || !N.is_multiple_of(4) || N > 64 {
            return None;
        }
        let code = self.planes.as_ref()?;
        let mut mask = 0u64;
        for q in 0..N / 4 {
            if quads & (1 << q) != 0 {
                mask |= 0xFu64
                    .checked_shl(4u32.saturating_mul(q as u32))
                    .unwrap_or(0);
            }
        }
        Some(code.run_wide(file, constants, textures, mask, input))
    }

    /// `oDepth` of every lane after the last [`Program::run_quads`] with
    /// `file`; `None` when the program does not write it (the pixel keeps
    /// its interpolated depth).
    pub fn wide_depth<'f, const N: usize>(&self, file: &'f WideFile<N>) -> Option<&'f [f32; N]> {
        self.planes.as_ref()?.wide_depth(file)
    }

    /// Output register `ty` `index` of every lane of the last
    /// [`Program::run_wide`] or [`Program::run_quads`] with `file` (`planes[c][l]`: component `c` of
    /// lane `l`); `None` when the program does not write it (it reads 0,
    /// as after [`Program::run`]) or it is not an output register.
    pub fn wide_output<'f, const N: usize>(
        &self,
        file: &'f WideFile<N>,
        ty: RegisterType,
        index: u16,
    ) -> Option<&'f [[f32; N]; 4]> {
        let store = match ty {
            RegisterType::RastOut => planes::Store::RastOut(index),
            RegisterType::AttrOut => planes::Store::AttrOut(index),
            RegisterType::TexCrdOut => planes::Store::TexCrdOut(index),
            RegisterType::ColorOut => planes::Store::ColorOut(index),
            _ => return None,
        };
        self.planes.as_ref()?.wide_output(file, store)
    }

    /// The shader.
    pub fn shader(&self) -> &Validated {
        &self.shader
    }

    /// Its version.
    pub fn profile(&self) -> Profile {
        self.shader.profile()
    }

    /// The constants a draw runs with: `constants` sized to the version,
    /// the shader's definitions applied over them, ps_1_x clamping.
    pub fn bind(&self, constants: &Constants) -> BoundConstants {
        let profile = self.profile();
        let n = |ty| usize::from(self.shader.register_count(ty));
        let mut float: Vec<Vec4> = (0..n(RegisterType::Const))
            .map(|i| constants.float.get(i).copied().unwrap_or(ZERO))
            .collect();
        let mut int: Vec<[i32; 4]> = (0..n(RegisterType::ConstInt))
            .map(|i| constants.int.get(i).copied().unwrap_or([0; 4]))
            .collect();
        let mut bool: Vec<bool> = (0..n(RegisterType::ConstBool))
            .map(|i| constants.bool.get(i).copied().unwrap_or(false))
            .collect();
        for ins in &self.shader.shader().instructions {
            match &ins.operands {
                Operands::Def { dst, values } => {
                    if let Some(c) = float.get_mut(usize::from(dst.reg.index)) {
                        *c = values.map(f32::from_bits);
                    }
                }
                Operands::DefI { dst, values } => {
                    if let Some(c) = int.get_mut(usize::from(dst.reg.index)) {
                        *c = *values;
                    }
                }
                Operands::DefB { dst, value } => {
                    if let Some(c) = bool.get_mut(usize::from(dst.reg.index)) {
                        *c = *value != 0;
                    }
                }
                _ => {}
            }
        }
        if profile.is_ps1() {
            for c in &mut float {
                *c = map(*c, |x| x.clamp(-1.0, 1.0));
            }
        }
        let id = NEXT_BINDING.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        BoundConstants {
            float,
            int,
            bool,
            id,
        }
    }

    /// Runs the program on the lanes of `mask` (pass [`ALL_LANES`] for a
    /// quad whose uncovered pixels are helper lanes: they execute, so that
    /// derivatives are defined, and the caller does not write them). A run
    /// starts from zeroed temporaries and outputs; the outputs of lanes
    /// outside `mask` stay 0. The register-plane executor runs it when it
    /// can, else the reference interpreter, with the same results.
    pub fn run(
        &self,
        regs: &mut Registers,
        constants: &BoundConstants,
        textures: &dyn Textures,
        mask: Mask,
    ) -> RunStats {
        match &self.planes {
            Some(code) if code.runs(mask) => code.run_with(regs, constants, textures, None, mask),
            _ => self.run_reference(regs, constants, textures, mask),
        }
    }

    /// [`Program::run`] with the inputs (`v#`, the stages' texture
    /// coordinates, `vPos`, `vFace`) read from `inputs` instead of
    /// `regs`: the register-plane executor loads them straight into its
    /// planes; the reference interpreter gets them stored in `regs`
    /// first. Same results as storing them and calling `run`.
    pub fn run_inputs(
        &self,
        regs: &mut Registers,
        constants: &BoundConstants,
        textures: &dyn Textures,
        inputs: &dyn Inputs,
        mask: Mask,
    ) -> RunStats {
        if let Some(code) = self.planes.as_ref().filter(|c| c.runs(mask)) {
            return code.run_with(regs, constants, textures, Some(inputs), mask);
        }
        let mut planes = [[0.0; LANES]; 4];
        let mut lanes = |reg| {
            inputs.load(reg, &mut planes);
            planes::transpose(&planes)
        };
        for (i, r) in regs.input.iter_mut().enumerate() {
            *r = lanes(InputRegister::Input(i as u16));
        }
        for (i, r) in regs.texcoord.iter_mut().enumerate() {
            *r = lanes(InputRegister::Texture(i as u16));
        }
        if !self.profile().is_vertex() {
            regs.position = lanes(InputRegister::Position);
            regs.face = lanes(InputRegister::Face).map(|v| v[0]);
        }
        self.run_reference(regs, constants, textures, mask)
    }

    /// Runs the program with the reference interpreter, whatever it uses:
    /// the twin the register-plane executor is tested against.
    pub fn run_reference(
        &self,
        regs: &mut Registers,
        constants: &BoundConstants,
        textures: &dyn Textures,
        mask: Mask,
    ) -> RunStats {
        regs.clear_outputs();
        regs.reference_ran = true;
        let profile = self.profile();
        if !profile.is_vertex() {
            // ps_1_4 and ps_2_x read t# as texture coordinates; in
            // ps_1_1–1_3 texture instructions write them.
            if matches!(profile, Profile::Ps1_1 | Profile::Ps1_2 | Profile::Ps1_3) {
                for t in &mut regs.texture {
                    *t = [ZERO; LANES];
                }
            } else {
                for (t, c) in regs.texture.iter_mut().zip(&regs.texcoord) {
                    *t = *c;
                }
            }
        }
        let mut m = Machine {
            program: self,
            profile,
            consts: constants,
            textures,
            exec: mask & ALL_LANES,
            stack: Vec::new(),
            loop_counter: 0,
            pad: [[0.0; 3]; LANES],
            pads_seen: 0,
            stats: RunStats::default(),
        };
        m.execute(regs);
        m.stats
    }
}

/// A control-flow block being executed.
#[derive(Clone, Copy, Debug)]
enum Frame {
    If {
        /// Lanes active when the if began.
        saved: Mask,
        /// Lanes whose condition held.
        taken: Mask,
    },
    Loop {
        /// First instruction of the body.
        body: usize,
        /// Lanes active when the loop began.
        saved: Mask,
        /// Iterations left, this one included.
        remaining: i32,
        /// Lanes that left the loop by a break.
        broken: Mask,
        /// `aL` of the enclosing loop.
        outer_counter: i32,
        /// `aL` step (0 for rep).
        step: i32,
    },
    Call {
        /// Where to continue after `ret`.
        ret: usize,
        /// Lanes active at the call.
        saved: Mask,
    },
}

/// Deepest control stack a validated shader can build (24 ifs, 4 loops, 4
/// calls, each nested in the others): a bound kept as a second guard.
const MAX_STACK: usize = 64;

/// One destination write, computed before it is stored (so that a co-issued
/// pair reads the registers as they were before either wrote).
struct Write {
    dst: Dst,
    values: Lanes,
    /// Per lane, per component: whether it is written.
    enable: [[bool; 4]; LANES],
    /// a0 is written with round-to-nearest (`mova`) rather than floor
    /// (vs_1_1 `mov a0`).
    round: bool,
}

struct Machine<'a> {
    program: &'a Program,
    profile: Profile,
    consts: &'a BoundConstants,
    textures: &'a dyn Textures,
    exec: Mask,
    stack: Vec<Frame>,
    /// `aL`.
    loop_counter: i32,
    /// The partial results of texm3x2pad / texm3x3pad, per lane.
    pad: [[f32; 3]; LANES],
    /// texm3x3pad instructions since the last matrix completed (which row
    /// the next one is).
    pads_seen: u8,
    stats: RunStats,
}

impl Machine<'_> {
    fn execute(&mut self, regs: &mut Registers) {
        let instructions = &self.program.shader.shader().instructions;
        let mut pc = 0usize;
        while let Some(ins) = instructions.get(pc) {
            if self.stats.executed >= MAX_INSTRUCTIONS_EXECUTED {
                self.stats.stopped = true;
                return;
            }
            self.stats.executed = self.stats.executed.saturating_add(1);
            match self.flow(ins, pc, regs) {
                Flow::Next => {}
                Flow::Jump(to) => {
                    pc = to;
                    continue;
                }
                Flow::End => return,
                Flow::Op => {
                    if self.exec != 0 && !ins.opcode.is_declaration() {
                        // A co-issued partner is computed from the same
                        // register values, then both are stored.
                        let next = instructions.get(pc.saturating_add(1));
                        let first = self.op(ins, regs);
                        if let Some(partner) = next.filter(|n| n.coissue) {
                            let second = self.op(partner, regs);
                            self.store(first, regs);
                            self.store(second, regs);
                            pc = pc.saturating_add(2);
                            continue;
                        }
                        self.store(first, regs);
                    }
                }
            }
            pc = pc.saturating_add(1);
        }
    }

    /// Lanes not removed by a break of the innermost loop (of the current
    /// subroutine).
    fn alive(&self) -> Mask {
        for f in self.stack.iter().rev() {
            match f {
                Frame::Loop { broken, .. } => return ALL_LANES & !broken,
                Frame::Call { .. } => return ALL_LANES,
                Frame::If { .. } => {}
            }
        }
        ALL_LANES
    }

    fn push(&mut self, f: Frame) -> bool {
        if self.stack.len() >= MAX_STACK {
            return false;
        }
        self.stack.push(f);
        true
    }

    /// Flow control; everything else is [`Flow::Op`].
    fn flow(&mut self, ins: &Instruction, pc: usize, regs: &mut Registers) -> Flow {
        let plan = &self.program.plan;
        let after = |i: usize| Flow::Jump(i.saturating_add(1));
        match ins.opcode {
            Opcode::If | Opcode::Ifc => {
                let taken = match ins.opcode {
                    Opcode::If => ins.src().first().map_or(0, |s| self.condition(s, regs)),
                    _ => self.compare_mask(ins, regs),
                };
                let saved = self.exec;
                if !self.push(Frame::If { saved, taken }) {
                    return Flow::End;
                }
                self.exec = saved & taken;
                if self.exec == 0 {
                    // Straight to the else (which runs the other lanes) or
                    // the endif.
                    return Flow::Jump(plan.else_of(pc).unwrap_or(plan.partner(pc)));
                }
                Flow::Next
            }
            Opcode::Else => {
                if let Some(Frame::If { saved, taken }) = self.stack.last().copied() {
                    self.exec = saved & !taken & self.alive();
                    if self.exec == 0 {
                        return Flow::Jump(plan.partner(pc));
                    }
                }
                Flow::Next
            }
            Opcode::EndIf => {
                if let Some(Frame::If { saved, .. }) = self.stack.last().copied() {
                    self.stack.pop();
                    self.exec = saved & self.alive();
                }
                Flow::Next
            }
            Opcode::Loop | Opcode::Rep => {
                let int_src = if ins.opcode == Opcode::Loop { 1 } else { 0 };
                let i = ins
                    .src()
                    .get(int_src)
                    .and_then(|s| self.consts.int.get(usize::from(s.reg.index)))
                    .copied()
                    .unwrap_or([0; 4]);
                let count = i[0].clamp(0, MAX_LOOP_COUNT);
                let (start, step) = if ins.opcode == Opcode::Loop {
                    (i[1], i[2])
                } else {
                    (self.loop_counter, 0)
                };
                if count == 0 || self.exec == 0 {
                    return after(plan.partner(pc));
                }
                let frame = Frame::Loop {
                    body: pc.saturating_add(1),
                    saved: self.exec,
                    remaining: count,
                    broken: 0,
                    outer_counter: self.loop_counter,
                    step,
                };
                if !self.push(frame) {
                    return Flow::End;
                }
                self.loop_counter = start;
                Flow::Next
            }
            Opcode::EndLoop | Opcode::EndRep => {
                if let Some(Frame::Loop {
                    body,
                    saved,
                    remaining,
                    broken,
                    outer_counter,
                    step,
                }) = self.stack.last_mut()
                {
                    *remaining = remaining.saturating_sub(1);
                    let live = *saved & !*broken;
                    if *remaining > 0 && live != 0 {
                        self.exec = live;
                        self.loop_counter = self.loop_counter.saturating_add(*step);
                        return Flow::Jump(*body);
                    }
                    self.exec = *saved;
                    self.loop_counter = *outer_counter;
                    self.stack.pop();
                }
                Flow::Next
            }
            Opcode::Break | Opcode::BreakC | Opcode::BreakP => {
                let leaving = self.exec
                    & match ins.opcode {
                        Opcode::Break => ALL_LANES,
                        Opcode::BreakC => self.compare_mask(ins, regs),
                        _ => ins.src().first().map_or(0, |s| self.condition(s, regs)),
                    };
                self.exec &= !leaving;
                // The innermost loop of this subroutine.
                let mut depth = None;
                for (d, f) in self.stack.iter_mut().enumerate().rev() {
                    match f {
                        Frame::Loop { broken, saved, .. } => {
                            *broken |= leaving;
                            if *saved & !*broken == 0 {
                                depth = Some(d);
                            }
                            break;
                        }
                        Frame::Call { .. } => break,
                        Frame::If { .. } => {}
                    }
                }
                // Every lane has left: end the loop now.
                if let Some(d) = depth {
                    if let Some(Frame::Loop {
                        body,
                        saved,
                        outer_counter,
                        ..
                    }) = self.stack.get(d).copied()
                    {
                        self.stack.truncate(d);
                        self.exec = saved;
                        self.loop_counter = outer_counter;
                        // body − 1 is the loop; its partner the end.
                        return after(plan.partner(body.saturating_sub(1)));
                    }
                }
                Flow::Next
            }
            Opcode::Call | Opcode::CallNz => {
                let target = ins.src().first().and_then(|l| plan.label(l.reg.index));
                let lanes = match ins.opcode {
                    Opcode::Call => self.exec,
                    _ => self.exec & ins.src().get(1).map_or(0, |s| self.condition(s, regs)),
                };
                match target {
                    Some(t) if lanes != 0 => {
                        let ret = pc.saturating_add(1);
                        if !self.push(Frame::Call {
                            ret,
                            saved: self.exec,
                        }) {
                            return Flow::End;
                        }
                        self.exec = lanes;
                        after(t)
                    }
                    _ => Flow::Next,
                }
            }
            Opcode::Ret => match self.stack.last().copied() {
                Some(Frame::Call { ret, saved }) => {
                    self.stack.pop();
                    self.exec = saved;
                    Flow::Jump(ret)
                }
                _ => Flow::End,
            },
            Opcode::Label => Flow::End,
            Opcode::Nop | Opcode::Phase => Flow::Next,
            Opcode::TexKill => {
                if let Some(d) = ins.dst() {
                    // ps_1_1–1_3 test the stage's texture coordinates; later
                    // versions the register named.
                    let v = match self.profile {
                        Profile::Ps1_1 | Profile::Ps1_2 | Profile::Ps1_3 => regs
                            .texcoord
                            .get(usize::from(d.reg.index))
                            .copied()
                            .unwrap_or([ZERO; LANES]),
                        _ => self.read_reg(d.reg.ty, d.reg.index, None, regs),
                    };
                    let components = if self.profile.is_ps1() { 3 } else { 4 };
                    let killed = mask_where(|l| {
                        active(self.exec, l)
                            && lane_of(&v, l).iter().take(components).any(|x| *x < 0.0)
                    });
                    regs.killed |= killed;
                }
                Flow::Next
            }
            _ => Flow::Op,
        }
    }

    /// The lanes where a `b#` or `p0` source holds.
    fn condition(&self, s: &Src, regs: &Registers) -> Mask {
        match s.reg.ty {
            RegisterType::ConstBool => {
                let b = self
                    .consts
                    .bool
                    .get(usize::from(s.reg.index))
                    .copied()
                    .unwrap_or(false);
                let b = b != (s.modifier == SrcModifier::Not);
                if b {
                    ALL_LANES
                } else {
                    0
                }
            }
            RegisterType::Predicate => {
                let c = s.swizzle.component(0);
                let not = s.modifier == SrcModifier::Not;
                mask_where(|l| pick_b(lane_of(&regs.predicate, l), c) != not)
            }
            _ => 0,
        }
    }

    /// `ifc`/`breakc`: the lanes where `src0 <cmp> src1` (first components).
    fn compare_mask(&self, ins: &Instruction, regs: &Registers) -> Mask {
        let Control::Comparison(cmp) = ins.control else {
            return 0;
        };
        let (Some(a), Some(b)) = (ins.src().first(), ins.src().get(1)) else {
            return 0;
        };
        let a = self.read(a, regs);
        let b = self.read(b, regs);
        mask_where(|l| compare(cmp, lane_of(&a, l)[0], lane_of(&b, l)[0]))
    }

    /// The value of register `ty`/`index` (relative addressing applied) in
    /// each lane, before swizzle and modifier.
    fn read_reg(
        &self,
        ty: RegisterType,
        index: u16,
        relative: Option<&RelAddr>,
        regs: &Registers,
    ) -> Lanes {
        let vertex = self.profile.is_vertex();
        let file: &[Lanes] = match ty {
            RegisterType::Temp => &regs.temp,
            RegisterType::Input => &regs.input,
            RegisterType::Addr if !vertex => &regs.texture,
            RegisterType::TexCrdOut => &regs.texcrd_out,
            RegisterType::ColorOut => &regs.color_out,
            RegisterType::RastOut => &regs.rast_out,
            RegisterType::AttrOut => &regs.attr_out,
            RegisterType::Const => {
                return lanes_from(|l| {
                    self.index(index, relative, l, regs)
                        .and_then(|i| self.consts.float.get(i))
                        .copied()
                        .unwrap_or(ZERO)
                });
            }
            RegisterType::Addr => {
                return per_lane(&regs.address, |a| a.map(|x| x as f32));
            }
            RegisterType::MiscType => {
                return if index == misctype::FACE {
                    per_lane(&regs.face, splat)
                } else {
                    regs.position
                };
            }
            RegisterType::Predicate => {
                return per_lane(&regs.predicate, |p| p.map(|b| if b { 1.0 } else { 0.0 }));
            }
            _ => return [ZERO; LANES],
        };
        match relative {
            None => file
                .get(usize::from(index))
                .copied()
                .unwrap_or([ZERO; LANES]),
            Some(_) => lanes_from(|l| {
                self.index(index, relative, l, regs)
                    .and_then(|i| file.get(i))
                    .map_or(ZERO, |r| lane_of(r, l))
            }),
        }
    }

    /// `base` plus lane `l`'s relative address, if it is not negative.
    fn index(
        &self,
        base: u16,
        relative: Option<&RelAddr>,
        l: usize,
        regs: &Registers,
    ) -> Option<usize> {
        let offset = match relative {
            None => 0,
            Some(r) if r.reg.ty == RegisterType::Loop => self.loop_counter,
            Some(r) => {
                let a = lane_of(&regs.address, l);
                match r.swizzle.component(0) {
                    0 => a[0],
                    1 => a[1],
                    2 => a[2],
                    _ => a[3],
                }
            }
        };
        usize::try_from(i64::from(base).saturating_add(i64::from(offset))).ok()
    }

    /// A source operand's value: register, swizzle, modifier.
    fn read(&self, s: &Src, regs: &Registers) -> Lanes {
        self.read_at(s, 0, regs)
    }

    /// A source operand `k` registers after the one it names (the rows of
    /// `m4x4` and its kin).
    fn read_at(&self, s: &Src, k: u16, regs: &Registers) -> Lanes {
        let raw = self.read_reg(
            s.reg.ty,
            s.reg.index.saturating_add(k),
            s.relative.as_ref(),
            regs,
        );
        per_lane(&raw, |v| {
            let v = [
                pick(v, s.swizzle.component(0)),
                pick(v, s.swizzle.component(1)),
                pick(v, s.swizzle.component(2)),
                pick(v, s.swizzle.component(3)),
            ];
            apply_modifier(s.modifier, v)
        })
    }

    /// Computes one instruction's result.
    fn op(&mut self, ins: &Instruction, regs: &mut Registers) -> Option<Write> {
        use Opcode::*;
        let dst = *ins.dst()?;
        let src = ins.src();
        let s = |i: usize, m: &Self| src.get(i).map_or([ZERO; LANES], |x| m.read(x, regs));
        let un = |m: &Self, f: &dyn Fn(Vec4) -> Vec4| per_lane(&s(0, m), f);
        let bin = |m: &Self, f: &dyn Fn(Vec4, Vec4) -> Vec4| {
            let (a, b) = (s(0, m), s(1, m));
            lanes_from(|l| f(lane_of(&a, l), lane_of(&b, l)))
        };
        let tri = |m: &Self, f: &dyn Fn(Vec4, Vec4, Vec4) -> Vec4| {
            let (a, b, c) = (s(0, m), s(1, m), s(2, m));
            lanes_from(|l| f(lane_of(&a, l), lane_of(&b, l), lane_of(&c, l)))
        };
        // Matrix products: row k is the register k after src1's.
        let matrix = |m: &Self, rows: u16, dot: fn(Vec4, Vec4) -> f32| {
            let a = s(0, m);
            let mut out = [ZERO; LANES];
            for k in 0..rows.min(4) {
                let row = src.get(1).map_or([ZERO; LANES], |x| m.read_at(x, k, regs));
                for (l, o) in out.iter_mut().enumerate() {
                    *pick_mut(o, k as u8) = dot(lane_of(&a, l), lane_of(&row, l));
                }
            }
            out
        };
        let scalar = |f: fn(f32) -> f32| move |v: Vec4| splat(f(v[0]));
        let vs1 = self.profile == Profile::Vs1_1;
        let values: Lanes = match ins.opcode {
            Mov => {
                let v = s(0, self);
                return Some(self.write(ins, dst, v, false, regs));
            }
            Mova => {
                let v = s(0, self);
                return Some(self.write(ins, dst, v, true, regs));
            }
            Add => bin(self, &|a, b| zip(a, b, |x, y| x + y)),
            Sub => bin(self, &|a, b| zip(a, b, |x, y| x - y)),
            Mul => bin(self, &|a, b| zip(a, b, |x, y| x * y)),
            Mad => tri(self, &|a, b, c| zip3(a, b, c, |x, y, z| x * y + z)),
            Dp3 => bin(self, &|a, b| splat(dot3(a, b))),
            Dp4 => bin(self, &|a, b| splat(dot4(a, b))),
            Min => bin(self, &|a, b| zip(a, b, arith::min)),
            Max => bin(self, &|a, b| zip(a, b, arith::max)),
            Slt => bin(self, &|a, b| zip(a, b, arith::slt)),
            Sge => bin(self, &|a, b| zip(a, b, arith::sge)),
            Rcp => un(self, &scalar(arith::rcp)),
            Rsq => un(self, &scalar(arith::rsq)),
            Exp => un(self, &scalar(f32::exp2)),
            Log => un(self, &scalar(arith::log2_abs)),
            ExpP if vs1 => un(self, &arith::expp_vs1),
            LogP if vs1 => un(self, &arith::logp_vs1),
            ExpP => un(self, &scalar(f32::exp2)),
            LogP => un(self, &scalar(arith::log2_abs)),
            Lit => un(self, &arith::lit),
            Dst => bin(self, &|a, b| [1.0, a[1] * b[1], a[2], b[3]]),
            Lrp => tri(self, &|a, b, c| zip3(a, b, c, arith::lrp)),
            Frc => un(self, &|v| map(v, arith::frc)),
            M4x4 => matrix(self, 4, dot4),
            M4x3 => matrix(self, 3, dot4),
            M3x4 => matrix(self, 4, dot3),
            M3x3 => matrix(self, 3, dot3),
            M3x2 => matrix(self, 2, dot3),
            Pow => bin(self, &|a, b| splat(arith::pow(a[0], b[0]))),
            Crs => bin(self, &|a, b| {
                [
                    a[1] * b[2] - a[2] * b[1],
                    a[2] * b[0] - a[0] * b[2],
                    a[0] * b[1] - a[1] * b[0],
                    0.0,
                ]
            }),
            Sgn => un(self, &|v| map(v, arith::sgn)),
            Abs => un(self, &|v| map(v, f32::abs)),
            Nrm => un(self, &|v| {
                let f = arith::nrm_factor(dot3(v, v));
                map(v, |x| x * f)
            }),
            SinCos => un(self, &arith::sincos),
            Cnd => tri(self, &|a, b, c| zip3(a, b, c, arith::cnd)),
            Cmp => tri(self, &|a, b, c| zip3(a, b, c, arith::cmp)),
            Dp2Add => tri(self, &|a, b, c| splat(a[0] * b[0] + a[1] * b[1] + c[0])),
            Dsx => ddx(&s(0, self)),
            Dsy => ddy(&s(0, self)),
            SetP => {
                let Control::Comparison(cmp) = ins.control else {
                    return None;
                };
                let (a, b) = (s(0, self), s(1, self));
                let enable = self.enable(ins, &dst, regs);
                for l in 0..LANES {
                    let (x, y, e) = (lane_of(&a, l), lane_of(&b, l), lane_of(&enable, l));
                    let p = lane_mut(&mut regs.predicate, l);
                    for c in 0..4u8 {
                        if pick_b(e, c) {
                            *pick_b_mut(p, c) = compare(cmp, pick(x, c), pick(y, c));
                        }
                    }
                }
                return None;
            }
            Bem => {
                let env = self.textures.bump_env(dst.reg.index.min(7) as u8);
                bin(self, &|a, b| {
                    [
                        a[0] + env.matrix[0] * b[0] + env.matrix[2] * b[1],
                        a[1] + env.matrix[1] * b[0] + env.matrix[3] * b[1],
                        0.0,
                        0.0,
                    ]
                })
            }
            _ => return self.texture_op(ins, dst, regs),
        };
        Some(self.write(ins, dst, values, false, regs))
    }

    /// Which lanes and components a write to `dst` by `ins` touches: active
    /// lanes, the write mask, the predicate.
    fn enable(&self, ins: &Instruction, dst: &Dst, regs: &Registers) -> [[bool; 4]; LANES] {
        lanes_from(|l| {
            let on = active(self.exec, l);
            let m = dst.write_mask;
            [0u8, 1, 2, 3].map(|c| {
                let mut e = on && m & (1 << c) != 0;
                if let Some(p) = &ins.predicate {
                    let not = p.modifier == SrcModifier::Not;
                    e &= pick_b(lane_of(&regs.predicate, l), p.swizzle.component(c)) != not;
                }
                e
            })
        })
    }

    fn write(
        &self,
        ins: &Instruction,
        dst: Dst,
        values: Lanes,
        round: bool,
        regs: &Registers,
    ) -> Write {
        Write {
            dst,
            values,
            enable: self.enable(ins, &dst, regs),
            round,
        }
    }

    /// Stores a computed result: shift, saturate, the ps_1_x range, then
    /// the enabled components of the enabled lanes.
    fn store(&self, w: Option<Write>, regs: &mut Registers) {
        let Some(w) = w else { return };
        let d = w.dst;
        let scale = arith::shift_scale(d.shift);
        let ps1 = self.profile.is_ps1();
        let finish = |x: f32| {
            let mut x = if scale == 1.0 { x } else { x * scale };
            if d.modifiers.saturate {
                x = x.clamp(0.0, 1.0);
            }
            if ps1 {
                x = x.clamp(-MAX_PIXEL_SHADER_VALUE, MAX_PIXEL_SHADER_VALUE);
            }
            x
        };
        let vertex = self.profile.is_vertex();
        if d.reg.ty == RegisterType::Addr && vertex {
            for l in 0..LANES {
                let (v, e) = (lane_of(&w.values, l), lane_of(&w.enable, l));
                let a = lane_mut(&mut regs.address, l);
                for c in 0..4u8 {
                    if pick_b(e, c) {
                        *match c {
                            0 => &mut a[0],
                            1 => &mut a[1],
                            2 => &mut a[2],
                            _ => &mut a[3],
                        } = arith::to_address(pick(v, c), w.round);
                    }
                }
            }
            return;
        }
        if d.reg.ty == RegisterType::DepthOut {
            for l in 0..LANES {
                if lane_of(&w.enable, l)[0] {
                    *lane_mut(&mut regs.depth_out, l) = finish(lane_of(&w.values, l)[0]);
                }
            }
            regs.depth_written = true;
            return;
        }
        let loop_counter = self.loop_counter;
        let address = regs.address;
        let file: &mut Vec<Lanes> = match d.reg.ty {
            RegisterType::Temp => &mut regs.temp,
            RegisterType::Addr => &mut regs.texture,
            RegisterType::TexCrdOut => &mut regs.texcrd_out,
            RegisterType::RastOut => {
                return store_fixed(&mut regs.rast_out, d.reg.index, &w, finish)
            }
            RegisterType::AttrOut => {
                return store_fixed(&mut regs.attr_out, d.reg.index, &w, finish)
            }
            RegisterType::ColorOut => {
                return store_fixed(&mut regs.color_out, d.reg.index, &w, finish)
            }
            _ => return,
        };
        for l in 0..LANES {
            let offset = match &d.relative {
                None => 0,
                Some(r) if r.reg.ty == RegisterType::Loop => loop_counter,
                Some(r) => pick_i(lane_of(&address, l), r.swizzle.component(0)),
            };
            let Ok(i) = usize::try_from(i64::from(d.reg.index).saturating_add(i64::from(offset)))
            else {
                continue;
            };
            let Some(reg) = file.get_mut(i) else { continue };
            let (v, e) = (lane_of(&w.values, l), lane_of(&w.enable, l));
            let r = lane_mut(reg, l);
            for c in 0..4u8 {
                if pick_b(e, c) {
                    *pick_mut(r, c) = finish(pick(v, c));
                }
            }
        }
    }
}

/// What the interpreter does after a flow-control step.
enum Flow {
    Next,
    Jump(usize),
    End,
    Op,
}

fn store_fixed<const N: usize>(
    file: &mut [Lanes; N],
    index: u16,
    w: &Write,
    finish: impl Fn(f32) -> f32,
) {
    let Some(reg) = file.get_mut(usize::from(index)) else {
        return;
    };
    for l in 0..LANES {
        let (v, e) = (lane_of(&w.values, l), lane_of(&w.enable, l));
        let r = lane_mut(reg, l);
        for c in 0..4u8 {
            if pick_b(e, c) {
                *pick_mut(r, c) = finish(pick(v, c));
            }
        }
    }
}

fn pick_i(a: [i32; 4], c: u8) -> i32 {
    match c & 3 {
        0 => a[0],
        1 => a[1],
        2 => a[2],
        _ => a[3],
    }
}

/// Component `c & 3` of a boolean vector.
fn pick_b(p: [bool; 4], c: u8) -> bool {
    match c & 3 {
        0 => p[0],
        1 => p[1],
        2 => p[2],
        _ => p[3],
    }
}

fn pick_b_mut(p: &mut [bool; 4], c: u8) -> &mut bool {
    match c & 3 {
        0 => &mut p[0],
        1 => &mut p[1],
        2 => &mut p[2],
        _ => &mut p[3],
    }
}

fn compare(cmp: Comparison, a: f32, b: f32) -> bool {
    match cmp {
        Comparison::Gt => a > b,
        Comparison::Eq => a == b,
        Comparison::Ge => a >= b,
        Comparison::Lt => a < b,
        Comparison::Ne => a != b,
        Comparison::Le => a <= b,
    }
}

/// A source modifier applied to a swizzled value.
fn apply_modifier(m: SrcModifier, v: Vec4) -> Vec4 {
    match m {
        SrcModifier::Dz => [
            arith::divide(v[0], v[2]),
            arith::divide(v[1], v[2]),
            v[2],
            v[3],
        ],
        SrcModifier::Dw => [
            arith::divide(v[0], v[3]),
            arith::divide(v[1], v[3]),
            v[2],
            v[3],
        ],
        m => map(v, |x| arith::modify(m, x)),
    }
}
