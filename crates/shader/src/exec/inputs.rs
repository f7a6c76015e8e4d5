//! Inputs a run reads straight from the caller, component by component:
//! the fast way to feed a group when the caller computes its inputs per
//! component anyway (the pixel stage evaluates interpolation planes).
//!
//! - In: the caller's [`Inputs`] (what `v#`, the stages' texture
//!   coordinates, `vPos` and `vFace` hold for each lane of the group).
//! - Out: the values written where the executor reads them: into the
//!   register-plane executor's planes directly, or (reference interpreter)
//!   into [`super::Registers`]' per-lane vectors.
//! - Guarantees: a run through [`super::Program::run_inputs`] computes
//!   exactly what [`super::Program::run`] computes with the same values
//!   stored in the registers beforehand.

use super::lane::LANES;

/// An input register the caller provides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputRegister {
    /// `v#`: vertex elements, the colours `v0`/`v1` (ps below 3.0) or a
    /// declared input (ps_3_0).
    Input(u16),
    /// Stage `#`'s interpolated texture coordinates (pixel shaders below
    /// 3.0: [`super::Registers::texcoord`]).
    Texture(u16),
    /// `vPos`.
    Position,
    /// `vFace` (its first component is the register's value).
    Face,
}

/// The caller's inputs of one group of lanes.
pub trait Inputs {
    /// Writes register `reg` of the group: `out[c][l]` is component `c`
    /// of lane `l`. A register the caller does not have reads (0, 0, 0, 0).
    fn load(&self, reg: InputRegister, out: &mut [[f32; LANES]; 4]);
}
