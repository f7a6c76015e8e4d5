//! # Varyings: the generic attributes a vertex carries to the pixel stage
//!
//! Between the vertex program and the pixel program every post-transform
//! vertex ([`crate::vertex::Vertex`]) carries its position, the two
//! colours the fixed-function pixel stages read (`diffuse`, `specular`
//! with the fog factor in its alpha: the fixed layout the fused kernels
//! of W1–W6 read directly), and `N` **generic varyings**: 4-component
//! float vectors whose meaning is decided once per draw by a
//! [`Varyings`] layout.
//!
//! - In: the draw's programs and D3DRS_SHADEMODE.
//! - Out: a [`Varyings`]: how many generic varyings each vertex carries,
//!   the semantic (D3DDECLUSAGE and usage index) and the interpolation of
//!   each. Producers write them (fixed-function vertex processing: slot
//!   *i* = TEXCOORD*i*, the coordinates of sampling stage *i*; a vertex
//!   shader: its output registers by semantic, see
//!   `vertex::shader`); set-up builds planes for exactly `count` of
//!   them, 4 per varying from plane [`VARYING_PLANE`] on (after the 8
//!   colour planes); the pixel program reads them by slot (the cascade:
//!   slot = stage; a ps_1_x–ps_2_x shader: `t#` = slot #; ps_3_0: each
//!   input register linked to the slot of its semantic, see
//!   `pixel::shader`).
//! - Guarantees: at most [`MAX_VARYINGS`] slots (the ten input registers
//!   of ps_3_0; fixed function uses at most 8); a slot without a
//!   semantic reads (0, 0, 0, 0). A semantic is per component: a slot
//!   may pack several (a ps_3_0 `dcl_texcoord0 v0.xy` with
//!   `dcl_texcoord1 v0.zw`), each on the components its declaration
//!   names, in place (component *c* of the slot is component *c* of its
//!   semantic's attribute); a component without one reads 0. Flat slots
//!   hold the value of the primitive's first vertex (copied before
//!   clipping, as the colours are). Centroid interpolation is centre
//!   interpolation (one sample per pixel, `docs/shaders.md` §13).
//!
//! The linkage rules (D3D9's, written out in `docs/shaders.md` §14):
//! ps_1_x–ps_2_x read `v0`/`v1` = COLOR0/COLOR1 from the vertex's colours
//! (saturated) and `t#` = TEXCOORD#; ps_3_0 reads each `dcl`'d input by
//! its semantic, from whatever the vertex stage wrote under it.

use softhal_shader::exec::Program;
use softhal_shader::ir::{RegisterType, Usage};
use softhal_shader::Profile;

/// Most generic varyings a vertex carries: the input registers of ps_3_0
/// (`v0`..`v9`).
pub(crate) const MAX_VARYINGS: usize = 10;

/// Index of the first set-up plane of varying 0 (planes 0..8 are the
/// diffuse and specular colours, `attr · rhw`); varying *s* component *c*
/// is plane `VARYING_PLANE + 4·s + c`.
pub(crate) const VARYING_PLANE: usize = 8;

/// What a varying carries: a D3DDECLUSAGE and its usage index
/// (TEXCOORD8 is `{ TexCoord, 8 }`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Semantic {
    /// D3DDECLUSAGE.
    pub usage: Usage,
    /// Usage index.
    pub index: u8,
}

/// How set-up interpolates a varying across a primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Interpolation {
    /// Perspective-correct (the default of every varying).
    Perspective,
    /// The first vertex's value over the whole primitive (COLOR varyings
    /// under D3DSHADE_FLAT).
    Flat,
}

/// The semantic of each component (x, y, z, w) of one slot.
pub(crate) type Components = [Option<Semantic>; 4];

/// The generic varyings of one draw: count, semantics (per component),
/// interpolation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Varyings {
    count: u8,
    semantics: [Components; MAX_VARYINGS],
    interpolation: [Interpolation; MAX_VARYINGS],
}

impl Varyings {
    /// The fixed-function layout: slot *i* = TEXCOORD*i* (the coordinate
    /// set of sampling stage *i*), `sets` of them (at most 8), all
    /// perspective-correct. What fixed-function vertex processing
    /// produces and what the cascade and ps_1_x–ps_2_x shaders read.
    pub(crate) fn texcoords(sets: usize) -> Varyings {
        let count = sets.min(crate::cascade::MAX_STAGES);
        Varyings {
            count: count as u8,
            semantics: std::array::from_fn(|i| {
                [(i < count).then_some(Semantic {
                    usage: Usage::TexCoord,
                    index: i as u8,
                }); 4]
            }),
            interpolation: [Interpolation::Perspective; MAX_VARYINGS],
        }
    }

    /// The inputs of a ps_3_0 shader: slot *r* = input register `v`*r*,
    /// each component with the semantic of the `dcl` whose mask names it
    /// (several declarations may pack one register; the validator makes
    /// their masks disjoint, and the first wins here regardless);
    /// `count` reaches the highest declared register. `flat_shading`
    /// (D3DSHADE_FLAT) makes a register with a COLOR component
    /// [`Interpolation::Flat`]; the others stay perspective-correct.
    /// `None` if `program` is not ps_3_0 (its inputs are not declared by
    /// semantic).
    pub(crate) fn ps3_inputs(program: &Program, flat_shading: bool) -> Option<Varyings> {
        if program.profile() != Profile::Ps3_0 {
            return None;
        }
        let mut v = Varyings {
            count: 0,
            semantics: [[None; 4]; MAX_VARYINGS],
            interpolation: [Interpolation::Perspective; MAX_VARYINGS],
        };
        for d in program.shader().shader().declarations() {
            if d.reg.ty != RegisterType::Input {
                continue;
            }
            let r = usize::from(d.reg.index);
            let Some(slot) = v.semantics.get_mut(r) else {
                continue;
            };
            for (c, comp) in slot.iter_mut().enumerate() {
                if d.write_mask & (1 << c) != 0 && comp.is_none() {
                    *comp = Some(Semantic {
                        usage: d.usage,
                        index: d.index,
                    });
                }
            }
            v.count = v.count.max(r as u8 + 1);
            if flat_shading && d.usage == Usage::Color {
                v.interpolation[r] = Interpolation::Flat;
            }
        }
        Some(v)
    }

    /// Slots each vertex carries.
    pub(crate) fn count(&self) -> usize {
        usize::from(self.count)
    }

    /// The semantic of each component of slot `slot` (`None`: nothing is
    /// written there, it reads 0).
    pub(crate) fn components(&self, slot: usize) -> Components {
        self.semantics.get(slot).copied().unwrap_or([None; 4])
    }

    /// How slot `slot` is interpolated.
    pub(crate) fn interpolation(&self, slot: usize) -> Interpolation {
        self.interpolation
            .get(slot)
            .copied()
            .unwrap_or(Interpolation::Perspective)
    }

    /// Bit *s* set: slot *s* is flat.
    pub(crate) fn flat_mask(&self) -> u16 {
        (0..MAX_VARYINGS)
            .filter(|&s| self.interpolation(s) == Interpolation::Flat)
            .fold(0, |m, s| m | 1 << s)
    }

    /// The first slot carrying `semantic` on any component (components
    /// keep their place, so the caller reads the same component there).
    pub(crate) fn slot_of(&self, semantic: Semantic) -> Option<usize> {
        self.semantics[..self.count()]
            .iter()
            .position(|s| s.contains(&Some(semantic)))
    }

    /// Bit *s* set: slot *s* carries a TEXCOORD (point sprites replace
    /// those).
    pub(crate) fn texcoord_mask(&self) -> u16 {
        let mut m = 0;
        for (s, comps) in self.semantics.iter().enumerate() {
            if comps.iter().flatten().any(|x| x.usage == Usage::TexCoord) {
                m |= 1 << s;
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_function_slots_are_the_texture_coordinate_sets() {
        let v = Varyings::texcoords(3);
        assert_eq!(v.count(), 3);
        let t2 = Semantic {
            usage: Usage::TexCoord,
            index: 2,
        };
        assert_eq!(v.components(2), [Some(t2); 4]);
        assert_eq!(v.components(3), [None; 4]);
        assert_eq!(v.slot_of(t2), Some(2));
        assert_eq!(v.interpolation(0), Interpolation::Perspective);
        assert_eq!(v.texcoord_mask(), 0b111);
        // Never more than the eight stages.
        assert_eq!(Varyings::texcoords(99).count(), 8);
    }
}
