//! The vertex program's shader implementation: a vs_1_1–vs_3_0 shader
//! run by the shader crate's executors over the vertices of a draw.
//!
//! - In: a [`VertexProgram::Shader`](crate::program::VertexProgram) (the
//!   validated program, its bound constants, where each input register
//!   `v#` is read from), the draw's vertex bytes and the vertex numbers a
//!   batch of primitives uses.
//! - Out: one [`Vertex`] per vertex number — what fixed-function vertex
//!   processing produces, so that clipping, projection, set-up and the
//!   fixed-function pixel stages run unchanged: `oPos` → clip-space
//!   position, `oD0`/`oD1` → diffuse/specular saturated to [0, 1], `oFog`
//!   → the vertex fog factor (saturated, in the specular alpha), `oPts` →
//!   point size (then POINTSIZE_MIN/MAX), and the draw's generic varyings
//!   ([`crate::varying::Varyings`]) linked by semantic (`ShaderStage::link`):
//!   `oT#` for TEXCOORD#, `oD0`/`oD1` saturated for COLOR0/1 before
//!   vs_3_0, and in vs_3_0, per component, the `o#` declared with the
//!   varying's semantic on a mask naming that component, unclamped. The rules and their sources are in `docs/shaders.md` §12
//!   and §14.
//! - Guarantees: [`WIDE`] vertices per run of the register-plane
//!   executor's wide entry when it takes the program
//!   ([`Program::run_wide`]: inputs gathered into planes register by
//!   register, outputs read lane by lane), else four per run of
//!   [`Program::run`] (lanes = vertices, a shorter tail masked, as the
//!   last wide batch is); the same vertices either way. Every read of vertex bytes is bounds-checked (a vertex
//!   outside the buffer gives `None`, and its primitives are dropped as
//!   fixed function drops them); outputs are whatever the shader computed
//!   (NaN, ±Inf, huge, zero w): the caller's clipping rejects or clips
//!   them by its existing rules. Time is bounded by the executor's
//!   per-run limit, and the watchdog is checked every
//!   [`limits::WATCHDOG_CHECK_ENTRIES`] four-vertex runs' worth of
//!   vertices.

use softhal_shader::exec::{
    BoundConstants, Lanes, Program, Registers, SampleRequest, Textures, WideFile, LANES,
};
use softhal_shader::ir::{rastout, Declaration, Operands, Profile, RegisterType, Usage};

use crate::cascade::MAX_STAGES;
use crate::error::PipelineError;
use crate::int::usize_from;
use crate::limits;
use crate::program::{ShaderInput, VERTEX_SAMPLERS};
use crate::state::PipelineState;
use crate::texture::{sample_shader_lane, SamplerState, Texture};
use crate::varying::{Varyings, MAX_VARYINGS};
use crate::watchdog::{fired, Watchdog};

use super::{DrawCall, PointParams, Vertex};

/// Vertices per run of the wide executor ([`Program::run_wide`]).
const WIDE: usize = 16;

/// The register files of the executor's outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bank {
    /// `oPos`, `oFog`, `oPts`.
    Rast,
    /// `oD0`, `oD1`.
    Attr,
    /// `oT#` (vs < 3.0) or `o#` (vs_3_0).
    TexCrd,
}

/// Where one output the pipeline consumes is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    bank: Bank,
    index: usize,
    /// For scalar outputs (fog, point size): the component read.
    component: usize,
}

/// Which registers hold the outputs the pipeline consumes (`None`: the
/// shader does not write it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct OutputMap {
    position: Option<Slot>,
    colors: [Option<Slot>; 2],
    /// The register component of each component of each generic varying
    /// of the draw (after [`OutputMap::link`]).
    varyings: [[Option<Slot>; 4]; MAX_VARYINGS],
    /// The varyings whose four components are one register's, in place
    /// (the common case, read at once).
    whole: [Option<Slot>; MAX_VARYINGS],
    /// Bit *s*: varying *s* is saturated to [0, 1] (a COLOR output of
    /// vs_1_1–vs_2_x, which Direct3D 9 clamps; vs_3_0 colours are not).
    saturate: u16,
    fog: Option<Slot>,
    psize: Option<Slot>,
}

impl OutputMap {
    /// vs_1_1–vs_2_x: the fixed output registers. `oFog` and `oPts`
    /// count only when an instruction writes them.
    fn fixed(program: &Program) -> OutputMap {
        let writes = |index: u16| {
            program.shader().shader().instructions.iter().any(|ins| {
                matches!(&ins.operands, Operands::Op { dst: Some(d), .. }
                    if d.reg.ty == RegisterType::RastOut && d.reg.index == index)
            })
        };
        let slot = |bank, index| {
            Some(Slot {
                bank,
                index,
                component: 0,
            })
        };
        OutputMap {
            position: slot(Bank::Rast, usize::from(rastout::POSITION)),
            colors: [slot(Bank::Attr, 0), slot(Bank::Attr, 1)],
            varyings: [[None; 4]; MAX_VARYINGS],
            whole: [None; MAX_VARYINGS],
            saturate: 0,
            fog: slot(Bank::Rast, usize::from(rastout::FOG)).filter(|_| writes(rastout::FOG)),
            psize: slot(Bank::Rast, usize::from(rastout::POINT_SIZE))
                .filter(|_| writes(rastout::POINT_SIZE)),
        }
    }

    /// vs_3_0: the `o#` registers by their `dcl` semantic (POSITION0,
    /// COLOR0/1, FOG0, PSIZE0 here; any semantic as a generic varying in
    /// [`OutputMap::link`]). A scalar output reads the first component its
    /// declaration's mask names.
    fn declared(program: &Program) -> OutputMap {
        let mut map = OutputMap::default();
        for d in output_declarations(program) {
            let slot = Some(Slot {
                bank: Bank::TexCrd,
                index: usize::from(d.reg.index),
                component: d.write_mask.trailing_zeros().min(3) as usize,
            });
            let index = usize::from(d.index);
            let target = match d.usage {
                Usage::Position if index == 0 => &mut map.position,
                Usage::Color if index < 2 => &mut map.colors[index],
                Usage::Fog if index == 0 => &mut map.fog,
                Usage::PSize if index == 0 => &mut map.psize,
                _ => continue,
            };
            // The first declaration of a semantic wins.
            if target.is_none() {
                *target = slot;
            }
        }
        map
    }

    /// Links each component of the draw's generic varyings to the
    /// register component that writes it, in place (component *c* of a
    /// semantic is component *c* of its register): vs_1_1–vs_2_x:
    /// TEXCOORD*n* = `oT`*n* (n < 8), COLOR0/1 = `oD0`/`oD1` saturated;
    /// vs_3_0: the `o#` declared with the semantic on a mask naming the
    /// component (the first such), unclamped, so `dcl_texcoord0 o3.xy`
    /// and `dcl_texcoord1 o3.zw` pack two semantics into `o3`. A
    /// component the shader does not declare or write reads 0.
    fn link(&mut self, program: &Program, varyings: &Varyings) {
        let vs3 = program.profile() == Profile::Vs3_0;
        self.saturate = 0;
        for (s, out) in self.varyings.iter_mut().enumerate() {
            let comps = varyings.components(s);
            for (c, (o, sem)) in out.iter_mut().zip(comps).enumerate() {
                *o = None;
                let Some(sem) = sem else {
                    continue;
                };
                let index = usize::from(sem.index);
                let at = |bank, index| Slot {
                    bank,
                    index,
                    component: c,
                };
                *o = if vs3 {
                    output_declarations(program)
                        .find(|d| {
                            d.usage == sem.usage
                                && d.index == sem.index
                                && d.write_mask & (1 << c) != 0
                        })
                        .map(|d| at(Bank::TexCrd, usize::from(d.reg.index)))
                } else {
                    match sem.usage {
                        Usage::TexCoord if index < MAX_STAGES => Some(at(Bank::TexCrd, index)),
                        Usage::Color if index < 2 => {
                            self.saturate |= 1 << s;
                            Some(at(Bank::Attr, index))
                        }
                        _ => None,
                    }
                };
            }
        }
        for (w, out) in self.whole.iter_mut().zip(&self.varyings) {
            *w = match out[0] {
                Some(first)
                    if out.iter().enumerate().all(|(c, o)| {
                        o.is_some_and(|o| {
                            o.bank == first.bank && o.index == first.index && o.component == c
                        })
                    }) =>
                {
                    Some(first)
                }
                _ => None,
            };
        }
    }
}

/// The `dcl`s of a vs_3_0 shader's output registers (`o#`).
fn output_declarations(program: &Program) -> impl Iterator<Item = Declaration> + '_ {
    program
        .shader()
        .shader()
        .declarations()
        .filter(|d| d.reg.ty == RegisterType::OUTPUT)
}

/// The vertex-texture samplers of a draw as the executor's texture unit:
/// D3DVERTEXTEXTURESAMPLER*n* = `s`*n*, its texture and sampler state
/// (`texldl`: explicit level, coordinates as given); an unbound sampler
/// returns (0, 0, 0, 1).
#[derive(Clone, Copy)]
struct VertexSamplers<'a>([Option<(&'a Texture, SamplerState)>; VERTEX_SAMPLERS]);

impl Textures for VertexSamplers<'_> {
    fn sample(&self, r: &SampleRequest) -> Lanes {
        let mut out = [[0.0, 0.0, 0.0, 1.0]; LANES];
        let Some(Some((tex, sm))) = self.0.get(usize::from(r.sampler)) else {
            return out;
        };
        for (lane, o) in out.iter_mut().enumerate() {
            if r.mask & (1 << lane) != 0 {
                *o = sample_shader_lane(tex, sm, r, lane);
            }
        }
        out
    }
}

/// Per-draw constants of the shader implementation of the vertex program.
#[derive(Clone, Copy)]
pub(crate) struct ShaderStage<'a> {
    program: &'a Program,
    constants: &'a BoundConstants,
    inputs: &'a [ShaderInput],
    samplers: VertexSamplers<'a>,
    outputs: OutputMap,
    stride: usize,
    planes_enabled: u32,
    planes: [[f32; 4]; limits::MAX_USER_CLIP_PLANES],
    point: Option<PointParams>,
    fog_alpha: bool,
    watchdog: Option<&'a Watchdog>,
}

impl std::fmt::Debug for ShaderStage<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShaderStage")
            .field("profile", &self.program.profile())
            .field("inputs", &self.inputs)
            .finish()
    }
}

impl<'a> ShaderStage<'a> {
    /// The vertex stage of a draw running `program`; `points`: the draw
    /// rasterizes points; `fog_alpha`: the specular alpha carries the fog
    /// factor (`oFog`); `textures`: the vertex-texture samplers' textures
    /// (their states are the draw's). Errors (before any pixel is touched): the program
    /// is not a vertex shader ([`PipelineError::BadProgram`]), an input
    /// register does not exist or its element lies outside the vertex
    /// stride ([`PipelineError::BadVertexLayout`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        program: &'a Program,
        constants: &'a BoundConstants,
        inputs: &'a [ShaderInput],
        textures: [Option<&'a Texture>; VERTEX_SAMPLERS],
        state: &PipelineState,
        call: &DrawCall<'_>,
        points: bool,
        fog_alpha: bool,
        watchdog: Option<&'a Watchdog>,
    ) -> Result<Self, PipelineError> {
        let profile = program.profile();
        if !profile.is_vertex() {
            return Err(PipelineError::BadProgram {
                reason: "the vertex program is a pixel shader",
            });
        }
        let stride = call.layout.stride;
        let registers = program.shader().register_count(RegisterType::Input);
        for i in inputs {
            if u16::from(i.register) >= registers {
                return Err(PipelineError::BadVertexLayout {
                    reason: "vertex shader input register out of range",
                });
            }
            if i.offset.checked_add(i.ty.size()).is_none_or(|e| e > stride) {
                return Err(PipelineError::BadVertexLayout {
                    reason: "vertex shader input outside the vertex",
                });
            }
        }
        let outputs = if profile == Profile::Vs3_0 {
            OutputMap::declared(program)
        } else {
            OutputMap::fixed(program)
        };
        let planes_enabled = if state.raster.clipping {
            state.raster.clip_plane_enable & ((1 << limits::MAX_USER_CLIP_PLANES) - 1)
        } else {
            0
        };
        let vs = &state.textures.vertex_samplers;
        Ok(ShaderStage {
            program,
            constants,
            inputs,
            samplers: VertexSamplers(std::array::from_fn(|i| Some((textures[i]?, vs[i])))),
            outputs,
            stride: usize_from(stride),
            planes_enabled,
            planes: state.raster.clip_planes,
            point: points.then_some(PointParams {
                state: state.point,
                viewport_height: state.viewport.height as f32,
            }),
            fog_alpha,
            watchdog,
        })
    }

    /// The stage writing the draw's generic `varyings` (linked by
    /// semantic, [`OutputMap::link`]).
    pub(crate) fn link(mut self, varyings: &Varyings) -> Self {
        self.outputs.link(self.program, varyings);
        self
    }

    /// Runs the shader for vertex numbers `indices`, four per run, writing
    /// one entry per index into `out` (`None`: the vertex lies outside the
    /// buffer, or the watchdog fired before it ran).
    ///
    /// `#[inline]`: emitted into its caller's code-generation unit and
    /// inlined there (once per `process_range_shaded`), whatever unit
    /// this module lands in; out of line it cost W7 +0.6 %.
    #[inline]
    pub(crate) fn shade<const N: usize>(
        &self,
        call: &DrawCall<'_>,
        indices: &[u64],
        out: &mut Vec<Option<Vertex<N>>>,
    ) {
        out.clear();
        if self.program.runs_wide() && self.shade_wide::<N, WIDE>(call, indices, out) {
            return;
        }
        out.clear();
        let mut regs = Registers::new(self.program);
        for r in &mut regs.input {
            *r = [[0.0, 0.0, 0.0, 1.0]; LANES];
        }
        for (run, group) in indices.chunks(LANES).enumerate() {
            if run % limits::WATCHDOG_CHECK_ENTRIES == 0 && fired(self.watchdog) {
                out.resize(indices.len(), None);
                return;
            }
            let mut mask = 0;
            for (lane, &index) in group.iter().enumerate() {
                if self.read_inputs(call, index, &mut regs, lane) {
                    mask |= 1 << lane;
                }
            }
            self.program
                .run(&mut regs, self.constants, &self.samplers, mask);
            for lane in 0..group.len() {
                out.push(
                    (mask & (1 << lane) != 0)
                        .then(|| self.vertex(|slot| Self::read(&regs, slot, lane))),
                );
            }
        }
    }

    /// [`ShaderStage::shade`] on the wide executor, `W` vertices per run
    /// ([`Program::run_wide`]): the inputs gathered register by register
    /// into planes, each vertex built from its lane of the output planes.
    /// False (and nothing meaningful in `out`) if the executor does not
    /// take the program.
    fn shade_wide<const N: usize, const W: usize>(
        &self,
        call: &DrawCall<'_>,
        indices: &[u64],
        out: &mut Vec<Option<Vertex<N>>>,
    ) -> bool {
        let mut file = WideFile::<W>::default();
        for group in indices.chunks(W) {
            // The watchdog as often per vertex as the four-lane runs check it.
            if out.len() % (limits::WATCHDOG_CHECK_ENTRIES * LANES) < W && fired(self.watchdog) {
                out.resize(indices.len(), None);
                return true;
            }
            let mut bytes: [Option<&[u8]>; W] = [None; W];
            let mut mask = 0u64;
            for (lane, (&index, b)) in group.iter().zip(&mut bytes).enumerate() {
                *b = self.vertex_bytes(call, index);
                if b.is_some() {
                    mask |= 1 << lane;
                }
            }
            let mut input = |register: u16, planes: &mut [[f32; W]; 4]| {
                *planes = [[0.0; W], [0.0; W], [0.0; W], [1.0; W]];
                for i in self
                    .inputs
                    .iter()
                    .filter(|i| u16::from(i.register) == register)
                {
                    i.ty.read_planes(&bytes, usize_from(i.offset), planes);
                }
            };
            let ran =
                self.program
                    .run_wide(&mut file, self.constants, &self.samplers, mask, &mut input);
            if ran.is_none() {
                return false;
            }
            // The output planes, looked up once per run rather than per
            // lane: `oPos oFog oPts`, `oD0 oD1`, `oT#`/`o#`.
            let planes_of = |ty: RegisterType, index: usize| {
                u16::try_from(index)
                    .ok()
                    .and_then(|i| self.program.wide_output(&file, ty, i))
            };
            let rast: [_; 3] = std::array::from_fn(|i| planes_of(RegisterType::RastOut, i));
            let attr: [_; 2] = std::array::from_fn(|i| planes_of(RegisterType::AttrOut, i));
            let texcrd: [_; 16] = std::array::from_fn(|i| planes_of(RegisterType::TexCrdOut, i));
            let read = |slot: Slot, lane: usize| -> Option<[f32; 4]> {
                let bank = match slot.bank {
                    Bank::Rast => &rast[..],
                    Bank::Attr => &attr[..],
                    Bank::TexCrd => &texcrd[..],
                };
                u16::try_from(slot.index).ok()?;
                Some(
                    bank.get(slot.index)
                        .copied()
                        .flatten()
                        .map_or([0.0; 4], |p| p.map(|c| c.get(lane).copied().unwrap_or(0.0))),
                )
            };
            for lane in 0..group.len() {
                out.push((mask & (1 << lane) != 0).then(|| self.vertex(|slot| read(slot, lane))));
            }
        }
        true
    }

    /// The bytes of vertex `index`; `None` if it lies outside the buffer.
    fn vertex_bytes<'c>(&self, call: &DrawCall<'c>, index: u64) -> Option<&'c [u8]> {
        usize::try_from(index)
            .ok()
            .and_then(|i| i.checked_mul(self.stride))
            .and_then(|s| call.vertices.get(s..s.checked_add(self.stride)?))
    }

    /// Fills lane `lane`'s input registers from vertex `index`; false if
    /// the vertex lies outside the buffer.
    fn read_inputs(
        &self,
        call: &DrawCall<'_>,
        index: u64,
        regs: &mut Registers,
        lane: usize,
    ) -> bool {
        let Some(b) = self.vertex_bytes(call, index) else {
            return false;
        };
        for i in self.inputs {
            let value = b
                .get(usize_from(i.offset)..)
                .and_then(|e| i.ty.read(e))
                .unwrap_or([0.0, 0.0, 0.0, 1.0]);
            if let Some(r) = regs
                .input
                .get_mut(usize::from(i.register))
                .and_then(|r| r.get_mut(lane))
            {
                *r = value;
            }
        }
        true
    }

    /// The output register `slot` of lane `lane` (0 when not written).
    fn read(regs: &Registers, s: Slot, lane: usize) -> Option<[f32; 4]> {
        let bank = match s.bank {
            Bank::Rast => regs.rast_out.get(s.index),
            Bank::Attr => regs.attr_out.get(s.index),
            Bank::TexCrd => regs.texcrd_out.get(s.index),
        };
        bank.and_then(|l| l.get(lane)).copied()
    }

    /// The vertex the pipeline consumes from one lane's outputs, output
    /// register `slot` of that lane read by `read`.
    fn vertex<const N: usize>(&self, read: impl Fn(Slot) -> Option<[f32; 4]>) -> Vertex<N> {
        let o = &self.outputs;
        let zero = [0.0; 4];
        let pos = o.position.and_then(&read).unwrap_or(zero);
        // Colours: saturated (NaN → 0), stored as blue, green, red, alpha
        // in 0..=255 like fixed function's.
        let sat = |x: f32| if x > 0.0 { x.min(1.0) } else { 0.0 };
        let bgra = |c: [f32; 4]| [c[2], c[1], c[0], c[3]].map(|x| sat(x) * 255.0);
        let diffuse = bgra(o.colors[0].and_then(&read).unwrap_or(zero));
        let mut specular = bgra(o.colors[1].and_then(&read).unwrap_or(zero));
        if self.fog_alpha {
            // An unwritten oFog means no fog (factor 1).
            let f = o
                .fog
                .and_then(|s| Some(read(s)?[s.component]))
                .unwrap_or(1.0);
            specular[3] = sat(f) * 255.0;
        }
        let mut dist = [0.0; limits::MAX_USER_CLIP_PLANES];
        if self.planes_enabled != 0 {
            // With a vertex shader the user clip planes are in clip space.
            for (i, d) in dist.iter_mut().enumerate() {
                if self.planes_enabled & (1 << i) != 0 {
                    let p = self.planes[i];
                    *d = p[0] * pos[0] + p[1] * pos[1] + p[2] * pos[2] + p[3] * pos[3];
                }
            }
        }
        let psize = match &self.point {
            None => 1.0,
            Some(pp) => {
                let own = o.psize.and_then(|s| Some(read(s)?[s.component]));
                // No POINTSCALE with a shader: it computes the size.
                crate::point::point_size(&pp.state, own, 0.0, pp.viewport_height, true)
            }
        };
        let mut varyings = [[0.0f32; 4]; N];
        for (s, (t, slots)) in varyings.iter_mut().zip(o.varyings).enumerate() {
            let v: [f32; 4] = match o.whole.get(s).copied().flatten() {
                Some(whole) => read(whole).unwrap_or(zero),
                None => std::array::from_fn(|c| {
                    slots[c]
                        .and_then(|slot| Some(read(slot)?[slot.component]))
                        .unwrap_or(0.0)
                }),
            };
            *t = if o.saturate & (1 << s) != 0 {
                v.map(sat)
            } else {
                v
            };
        }
        Vertex {
            pos,
            diffuse,
            specular,
            dist,
            psize,
            varyings,
        }
    }
}
