//! Texture instructions: what the shader asks of a texture unit
//! ([`SampleRequest`], answered by the caller's [`Textures`]) and the
//! ps_1_x texture-addressing instructions (`tex`, `texcoord`, `texbem`,
//! `texreg2ar`, the `texm3x*` family, `texdp3*`, `texdepth`) in their
//! Direct3D 9 definitions.
//!
//! - In: the instruction, the registers, the texture coordinates of the
//!   stages (`Registers::texcoord`).
//! - Out: a result to store, requests to the texture unit, depth.
//! - Guarantees: stage and sampler numbers come from validated register
//!   numbers and are passed on, never used to index here; the texture unit
//!   decides what an unbound stage returns.

use super::lane::{active, dot3, lane as lane_of, lane_mut, lanes_from, per_lane, splat, ZERO};
use super::{Lanes, Machine, Mask, Registers, Vec4, Write, LANES};
use crate::ir::{Control, Dst, Instruction, Opcode, Profile};

/// How the level of detail of a sample is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LodMode {
    /// From the gradients of the request (`ddx`, `ddy`), plus a bias per
    /// lane (`texldb`'s w; 0 otherwise).
    Gradients {
        /// Added to the computed level.
        bias: [f32; LANES],
    },
    /// This level per lane (`texldl`'s w).
    Level([f32; LANES]),
}

/// One texture fetch for a group of lanes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleRequest {
    /// The sampler (ps ≥ 2.0, vs_3_0) or texture stage (ps_1_x) sampled.
    pub sampler: u8,
    /// Coordinates (u, v, w, q) per lane, projection already applied.
    pub coords: Lanes,
    /// Screen-x derivative of the coordinates per lane (from the quad, or
    /// `texldd`'s operand).
    pub ddx: Lanes,
    /// Screen-y derivative of the coordinates per lane.
    pub ddy: Lanes,
    /// The level-of-detail rule.
    pub lod: LodMode,
    /// Lanes that need a result (others may return anything).
    pub mask: Mask,
}

/// A stage's bump-environment state (D3DTSS_BUMPENVMAT00/01/10/11,
/// D3DTSS_BUMPENVLSCALE, D3DTSS_BUMPENVLOFFSET), for `texbem`, `texbeml`
/// and `bem`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BumpEnv {
    /// MAT00, MAT01, MAT10, MAT11.
    pub matrix: [f32; 4],
    /// Luminance scale.
    pub lscale: f32,
    /// Luminance offset.
    pub loffset: f32,
}

impl Default for BumpEnv {
    fn default() -> BumpEnv {
        BumpEnv {
            matrix: [0.0; 4],
            lscale: 0.0,
            loffset: 0.0,
        }
    }
}

/// The texture unit a shader samples through: the pipeline's samplers, or
/// a test's.
pub trait Textures {
    /// Samples for the lanes of `request.mask`: RGBA per lane.
    fn sample(&self, request: &SampleRequest) -> Lanes;

    /// The result of an implicit-LOD sample of `sampler` at `coords`
    /// (planes: `coords[c][l]` is component `c` of lane `l`, projection
    /// already applied) as planes (`[R, G, B, A][lane]`), when the unit
    /// can answer it without derivatives or bias (a texture of one level)
    /// — the values [`Textures::sample`] would give for any derivatives —
    /// or `None` to be asked through `sample`. Lanes outside `mask` may
    /// hold anything.
    fn sample_planes(
        &self,
        sampler: u8,
        coords: &[[f32; LANES]; 4],
        mask: Mask,
    ) -> Option<[[f32; LANES]; 4]> {
        let _ = (sampler, coords, mask);
        None
    }

    /// [`Textures::sample_planes`] for any number of lanes at once (a wide
    /// run's `N / 4` quads): `coords[c][l]` is component `c` of lane `l`,
    /// every slice of `coords` and `out` as long (a multiple of 4), lane
    /// `l` active when bit `l` of `mask` is set. Writes the results
    /// [`Textures::sample_planes`] gives for each quad with an active lane
    /// into `out` (`out[k][l]`: channel `k` of lane `l`; other lanes may
    /// hold anything) and returns true, or returns false when the unit
    /// does not answer planes (then `out` means nothing and the executor
    /// asks quad by quad). The default asks [`Textures::sample_planes`]
    /// quad by quad; a unit with a wider filter answers several quads a
    /// call.
    fn sample_planes_wide(
        &self,
        sampler: u8,
        coords: [&[f32]; 4],
        out: [&mut [f32]; 4],
        mask: u64,
    ) -> bool {
        let quad = |p: &[f32], q: usize| -> [f32; LANES] {
            p.chunks_exact(LANES)
                .nth(q)
                .and_then(|s| <[f32; LANES]>::try_from(s).ok())
                .unwrap_or_default()
        };
        let [o0, o1, o2, o3] = out;
        let mut out = [o0, o1, o2, o3].map(|o| o.chunks_exact_mut(LANES));
        for q in 0..coords[0].len() / LANES {
            let quad_mask = super::planes::quad_bits(mask, q);
            let dst = out.each_mut().map(|o| o.next());
            if quad_mask == 0 {
                continue;
            }
            let c = coords.map(|p| quad(p, q));
            let Some(r) = self.sample_planes(sampler, &c, quad_mask as Mask) else {
                return false;
            };
            for (d, r) in dst.into_iter().zip(r) {
                for (x, y) in d.into_iter().flatten().zip(r) {
                    *x = y;
                }
            }
        }
        true
    }

    /// The bump-environment state of `stage`.
    fn bump_env(&self, stage: u8) -> BumpEnv {
        let _ = stage;
        BumpEnv::default()
    }

    /// D3DTTFF_PROJECTED of `stage` (D3DTSS_TEXTURETRANSFORMFLAGS): the
    /// index (1..=3) of the coordinate the ones before it are divided by,
    /// `None` when the stage does not project. Only ps_1_1–1_3 `tex`,
    /// `texbem` and `texbeml` read it.
    fn projection(&self, stage: u8) -> Option<usize> {
        let _ = stage;
        None
    }
}

/// No textures bound: every sample is (0, 0, 0, 1), what Direct3D returns
/// for an unbound stage.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoTextures;

impl Textures for NoTextures {
    fn sample(&self, _: &SampleRequest) -> Lanes {
        [[0.0, 0.0, 0.0, 1.0]; LANES]
    }
}

impl Machine<'_> {
    /// Samples `sampler` at `coords` with derivatives from the quad.
    fn sample_implicit(&self, sampler: u8, coords: Lanes, bias: [f32; LANES]) -> Lanes {
        self.textures.sample(&SampleRequest {
            sampler,
            coords,
            ddx: super::ddx(&coords),
            ddy: super::ddy(&coords),
            lod: LodMode::Gradients { bias },
            mask: self.exec,
        })
    }

    /// The texture coordinates of stage `n` (ps_1_x).
    fn texcoord(regs: &Registers, n: u16) -> Lanes {
        regs.texcoord
            .get(usize::from(n))
            .copied()
            .unwrap_or([ZERO; LANES])
    }

    /// The texture coordinates of stage `n` as `tex`, `texbem` and
    /// `texbeml` of ps_1_1–1_3 read them: divided by the stage's
    /// D3DTTFF_PROJECTED divisor when it has one (D3D9's projected
    /// textures; ps_1_4 and ps_2_0+ project only with `_dw`/`texldp`).
    fn projected_texcoord(&self, regs: &Registers, n: u16) -> Lanes {
        let tc = Self::texcoord(regs, n);
        match self.textures.projection(n.min(15) as u8) {
            Some(k) => per_lane(&tc, |c| super::arith::project_on(c, k)),
            None => tc,
        }
    }

    /// `t#` as a value (ps_1_x source of a texture-addressing instruction).
    fn texture_reg(regs: &Registers, n: u16) -> Lanes {
        regs.texture
            .get(usize::from(n))
            .copied()
            .unwrap_or([ZERO; LANES])
    }

    /// The texture instructions; `None` for an instruction with nothing to
    /// store.
    pub(super) fn texture_op(
        &mut self,
        ins: &Instruction,
        dst: Dst,
        regs: &mut Registers,
    ) -> Option<Write> {
        use Opcode::*;
        let src = ins.src();
        let read = |i: usize, m: &Self| src.get(i).map_or([ZERO; LANES], |s| m.read(s, regs));
        let stage = dst.reg.index;
        let stage8 = stage.min(15) as u8;
        // The source t# of a ps_1_x texture-addressing instruction.
        let tn = || {
            src.first()
                .map_or([ZERO; LANES], |s| Self::texture_reg(regs, s.reg.index))
        };
        let zero_bias = [0.0; LANES];
        let values: Lanes = match ins.opcode {
            Tex => match self.profile {
                Profile::Ps1_1 | Profile::Ps1_2 | Profile::Ps1_3 => {
                    let coords = self.projected_texcoord(regs, stage);
                    self.sample_implicit(stage8, coords, zero_bias)
                }
                Profile::Ps1_4 => self.sample_implicit(stage8, read(0, self), zero_bias),
                _ => {
                    let coords = read(0, self);
                    let sampler = src.get(1).map_or(0, |s| s.reg.index.min(15) as u8);
                    match ins.control {
                        Control::Project => {
                            let projected = per_lane(&coords, super::arith::project);
                            self.sample_implicit(sampler, projected, zero_bias)
                        }
                        Control::Bias => {
                            self.sample_implicit(sampler, coords, per_lane(&coords, |c| c[3]))
                        }
                        _ => self.sample_implicit(sampler, coords, zero_bias),
                    }
                }
            },
            TexLdl => {
                let coords = read(0, self);
                let sampler = src.get(1).map_or(0, |s| s.reg.index.min(15) as u8);
                self.textures.sample(&SampleRequest {
                    sampler,
                    coords,
                    ddx: [ZERO; LANES],
                    ddy: [ZERO; LANES],
                    lod: LodMode::Level(per_lane(&coords, |c| c[3])),
                    mask: self.exec,
                })
            }
            TexLdd => {
                let coords = read(0, self);
                let sampler = src.get(1).map_or(0, |s| s.reg.index.min(15) as u8);
                self.textures.sample(&SampleRequest {
                    sampler,
                    coords,
                    ddx: read(2, self),
                    ddy: read(3, self),
                    lod: LodMode::Gradients { bias: zero_bias },
                    mask: self.exec,
                })
            }
            TexCoord => match self.profile {
                // texcrd: the coordinates as they are (with _dz/_dw).
                Profile::Ps1_4 => read(0, self),
                // texcoord: clamped to [0, 1], w = 1.
                _ => per_lane(&Self::texcoord(regs, stage), |c| {
                    [
                        c[0].clamp(0.0, 1.0),
                        c[1].clamp(0.0, 1.0),
                        c[2].clamp(0.0, 1.0),
                        1.0,
                    ]
                }),
            },
            TexBem | TexBemL => {
                let env = self.textures.bump_env(stage8);
                // The stage's own coordinates are projected, the
                // displacement added after is not.
                let tc = self.projected_texcoord(regs, stage);
                let t = tn();
                let coords = lanes_from(|l| {
                    let (c, b) = (lane_of(&tc, l), lane_of(&t, l));
                    [
                        c[0] + env.matrix[0] * b[0] + env.matrix[2] * b[1],
                        c[1] + env.matrix[1] * b[0] + env.matrix[3] * b[1],
                        c[2],
                        c[3],
                    ]
                });
                let mut out = self.sample_implicit(stage8, coords, zero_bias);
                if ins.opcode == TexBemL {
                    for l in 0..LANES {
                        let luminance = lane_of(&t, l)[2] * env.lscale + env.loffset;
                        let o = lane_mut(&mut out, l);
                        o[0] *= luminance;
                        o[1] *= luminance;
                        o[2] *= luminance;
                    }
                }
                out
            }
            TexReg2Ar | TexReg2Gb | TexReg2Rgb => {
                let t = tn();
                let coords = per_lane(&t, |c| match ins.opcode {
                    TexReg2Ar => [c[3], c[0], 0.0, 1.0],
                    TexReg2Gb => [c[1], c[2], 0.0, 1.0],
                    _ => [c[0], c[1], c[2], 1.0],
                });
                self.sample_implicit(stage8, coords, zero_bias)
            }
            TexM3x2Pad | TexM3x3Pad => {
                let dots = self.row(regs, stage, &tn());
                let slot = usize::from(ins.opcode == TexM3x3Pad && self.pads_seen % 2 == 1);
                for l in 0..LANES {
                    if let Some(p) = lane_mut(&mut self.pad, l).get_mut(slot) {
                        *p = lane_of(&dots, l);
                    }
                }
                self.pads_seen = if ins.opcode == TexM3x3Pad {
                    self.pads_seen.wrapping_add(1)
                } else {
                    0
                };
                return None;
            }
            TexM3x2Tex | TexM3x2Depth => {
                let dots = self.row(regs, stage, &tn());
                self.pads_seen = 0;
                let uv = lanes_from(|l| [lane_of(&self.pad, l)[0], lane_of(&dots, l), 0.0, 1.0]);
                if ins.opcode == TexM3x2Depth {
                    // z / w, 1 where w is 0.
                    for l in 0..LANES {
                        if active(self.exec, l) {
                            let [z, w, ..] = lane_of(&uv, l);
                            *lane_mut(&mut regs.depth_out, l) = if w == 0.0 { 1.0 } else { z / w };
                        }
                    }
                    regs.depth_written = true;
                    return None;
                }
                self.sample_implicit(stage8, uv, zero_bias)
            }
            TexM3x3Tex | TexM3x3 | TexM3x3Spec | TexM3x3VSpec => {
                let dots = self.row(regs, stage, &tn());
                self.pads_seen = 0;
                let n = lanes_from(|l| {
                    let p = lane_of(&self.pad, l);
                    [p[0], p[1], lane_of(&dots, l), 1.0]
                });
                match ins.opcode {
                    TexM3x3 => n,
                    TexM3x3Tex => self.sample_implicit(stage8, n, zero_bias),
                    _ => {
                        // The eye ray: a constant, or the w of the three
                        // rows' coordinates.
                        let eye: Lanes = if ins.opcode == TexM3x3Spec {
                            read(1, self)
                        } else {
                            let w = |k: u16| Self::texcoord(regs, stage.saturating_sub(k));
                            let (w0, w1, w2) = (w(2), w(1), w(0));
                            lanes_from(|l| {
                                [
                                    lane_of(&w0, l)[3],
                                    lane_of(&w1, l)[3],
                                    lane_of(&w2, l)[3],
                                    0.0,
                                ]
                            })
                        };
                        let r = lanes_from(|l| reflect(lane_of(&n, l), lane_of(&eye, l)));
                        self.sample_implicit(stage8, r, zero_bias)
                    }
                }
            }
            TexDp3 => per_lane(&self.row(regs, stage, &tn()), splat),
            TexDp3Tex => {
                let u = self.row(regs, stage, &tn());
                let coords = per_lane(&u, |u| [u, 0.0, 0.0, 1.0]);
                self.sample_implicit(stage8, coords, zero_bias)
            }
            TexDepth => {
                // r5: depth = r / g, 1 where g is 0; clamped to [0, 1].
                let r = regs
                    .temp
                    .get(usize::from(stage))
                    .copied()
                    .unwrap_or([ZERO; LANES]);
                for l in 0..LANES {
                    if active(self.exec, l) {
                        let [x, y, ..] = lane_of(&r, l);
                        let d = if y == 0.0 { 1.0 } else { x / y };
                        *lane_mut(&mut regs.depth_out, l) = d.clamp(0.0, 1.0);
                    }
                }
                regs.depth_written = true;
                return None;
            }
            _ => return None,
        };
        Some(self.write(ins, dst, values, false, regs))
    }

    /// One row of a texture matrix: stage `m`'s coordinates (xyz) · t(n)
    /// (rgb), per lane.
    fn row(&self, regs: &Registers, m: u16, tn: &Lanes) -> [f32; LANES] {
        let tc = Self::texcoord(regs, m);
        lanes_from(|l| dot3(lane_of(&tc, l), lane_of(tn, l)))
    }
}

/// The reflection of the eye ray `e` about the normal `n`:
/// 2·(n·e)/(n·n)·n − e.
fn reflect(n: Vec4, e: Vec4) -> Vec4 {
    let nn = dot3(n, n);
    let k = if nn == 0.0 {
        0.0
    } else {
        2.0 * dot3(n, e) / nn
    };
    [k * n[0] - e[0], k * n[1] - e[1], k * n[2] - e[2], 1.0]
}
