//! The state table: every render state and texture-stage state, one row
//! each, with everything the layers need to know about it.
//!
//! In: the rows of [`RenderStateType`] (`render_state.rs`, 173 states) and
//! [`TextureStageStateType`] (`texture_stage.rs`, 33 states), written once
//! with the `state_table!` macro. Each row holds the DDI number, the DDK
//! name (and the other spellings the headers use), and a [`StateInfo`]:
//! * `kind`: what the DWORD holds ([`StateKind`]: BOOL, float, a value of
//!   an enum, a flag mask, ...), from which `softhal-wire` prints and
//!   parses it;
//! * `default`: the Direct3D default, the value a new context starts with;
//! * `honour`: what the device does with a value it is given
//!   ([`Honour`]: as given, replaced when undefined or out of range, or
//!   forced off for a feature softhal does not implement);
//! * `groups`: membership of the state-block lists (`D3DSBT_PIXELSTATE`,
//!   `D3DSBT_VERTEXSTATE`; `D3DSBT_ALL` is both): the DDK's lists, with
//!   the Direct3D 9 states the DDK does not list placed as the Direct3D 9
//!   documentation places them (`docs/device.md`, "State blocks");
//! * `reads`: what acts on the value ([`Reader`]: the pipeline, through
//!   the GPU register file; the device itself; or nothing, the value is
//!   only kept).
//!
//! Out: `info()` on each state (an exhaustive `match`: a state without a
//! row does not compile), [`RenderStateType::honoured`] and the group
//! iterators. Derived from the same rows elsewhere: the device's defaults,
//! sanitising and state-block lists (`softhal-device`), the text form's
//! value kinds (`softhal-wire`), and `docs/states.md` (kept equal to the
//! rows by `crates/wire/tests/states_doc.rs`).

use crate::ddi_enum::{EnumTable, FlagsTable};

pub mod render_state;
pub mod texture_stage;

pub use render_state::*;
pub use texture_stage::*;

/// What a state's DWORD holds.
#[derive(Debug, Clone, Copy)]
pub enum StateKind {
    /// A plain unsigned number.
    Dword,
    /// A bit pattern (masks), shown in hex.
    Hex,
    /// BOOL: 0 is FALSE, anything else TRUE.
    Bool,
    /// An IEEE single stored in the DWORD.
    Float,
    /// A `D3DCOLOR` (A8R8G8B8).
    Color,
    /// A surface or object handle.
    Handle,
    /// A value of a DDK enum.
    Enum(&'static EnumTable),
    /// A mask of DDK flags.
    Flags(&'static FlagsTable),
    /// A `D3DTA_*` texture argument (selector and modifier bits).
    TextureArgument,
    /// `D3DTSS_RESULTARG`: the `D3DTA_*` register a stage writes
    /// (`D3DTA_CURRENT` or `D3DTA_TEMP`).
    ResultArgument,
    /// `D3DTSS_TEXCOORDINDEX`: a coordinate-set index (bits 15:0) and a
    /// `D3DTSS_TCI_*` mode (bits 31:16).
    TexCoordIndex,
    /// `D3DTTFF_*`: a coordinate count and `D3DTTFF_PROJECTED`.
    TextureTransformFlags,
}

impl StateKind {
    /// Whether `v` is a value of this kind. The kinds that enumerate their
    /// values (an enum, a texture argument, a result register, a
    /// coordinate index with its mode, texture-transform flags) define
    /// only those; every DWORD is a value of the others (a BOOL is any
    /// DWORD, 0 being FALSE).
    pub fn defines(self, v: u32) -> bool {
        use crate::stage_values::{
            ResultArg, TexCoordIndex, TextureArgument, TextureTransformFlags,
        };
        match self {
            StateKind::Enum(table) => table.name_of(v).is_some(),
            StateKind::TextureArgument => TextureArgument::from_d3d(v).is_some(),
            StateKind::ResultArgument => ResultArg::from_d3d(v).is_some(),
            StateKind::TexCoordIndex => TexCoordIndex::from_d3d(v).is_some(),
            StateKind::TextureTransformFlags => TextureTransformFlags::from_d3d(v).is_some(),
            StateKind::Dword
            | StateKind::Hex
            | StateKind::Bool
            | StateKind::Float
            | StateKind::Color
            | StateKind::Handle
            | StateKind::Flags(_) => true,
        }
    }
}

/// What the device honours when a state is set to a value: the value
/// itself, or the value it uses instead (which is also what `lpdwRStates`
/// and state blocks then show).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Honour {
    /// Stored and used as given.
    AsGiven,
    /// A value of the state's enum (its kind's table); any other value is
    /// replaced by the one given here.
    InEnum(u32),
    /// A value in `lo..=hi`; any other value is replaced by `fallback`.
    InRange {
        /// Lowest value honoured.
        lo: u32,
        /// Highest value honoured.
        hi: u32,
        /// What any other value becomes.
        fallback: u32,
    },
    /// Values above the given maximum become the maximum.
    AtMost(u32),
    /// Only these bits are kept.
    Mask(u32),
    /// A finite float; NaN and the infinities become the float whose bits
    /// are given here.
    Finite(u32),
    /// A finite float ≥ 0 (−0.0 included); anything else becomes the float
    /// whose bits are given here.
    FiniteNonNegative(u32),
    /// A feature softhal does not implement: any value reads back as 0
    /// (off).
    Off,
}

impl Honour {
    /// The value honoured for `value`, for a state of kind `kind`. An
    /// [`Honour::InEnum`] rule on a state whose kind is not an enum keeps
    /// the value (no row has one; tested).
    pub fn apply(self, kind: StateKind, value: u32) -> u32 {
        let finite = |v: u32| f32::from_bits(v).is_finite();
        match self {
            Honour::AsGiven => value,
            Honour::InEnum(fallback) => match kind {
                StateKind::Enum(table) if table.name_of(value).is_none() => fallback,
                _ => value,
            },
            Honour::InRange { lo, hi, fallback } => {
                if (lo..=hi).contains(&value) {
                    value
                } else {
                    fallback
                }
            }
            Honour::AtMost(max) => value.min(max),
            Honour::Mask(mask) => value & mask,
            Honour::Finite(fallback) => {
                if finite(value) {
                    value
                } else {
                    fallback
                }
            }
            Honour::FiniteNonNegative(fallback) => {
                if finite(value) && f32::from_bits(value) >= 0.0 {
                    value
                } else {
                    fallback
                }
            }
            Honour::Off => 0,
        }
    }
}

/// What acts on a state's value once the device has stored it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// The pipeline: the state is a register of the GPU register file
    /// and the pipeline state derived from it reads it (changing the
    /// value changes what is drawn).
    Pipeline,
    /// The device itself, not the pipeline: a legacy stage-0 state it
    /// maps onto texture stage 0 or WRAP0, a texture binding, a scene
    /// marker, a patch setting it tessellates with, a patch it deletes.
    Device,
    /// Nobody: the value is stored (and shown in `lpdwRStates` and state
    /// blocks) and has no effect — a feature softhal does not implement,
    /// or a state only the runtime uses.
    Kept,
}

/// Membership of the state-block lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Groups {
    /// In `D3DSBT_PIXELSTATE` (and so in `D3DSBT_ALL`).
    pub pixel: bool,
    /// In `D3DSBT_VERTEXSTATE` (and so in `D3DSBT_ALL`).
    pub vertex: bool,
}

/// In no state-block list.
pub const NONE: Groups = Groups {
    pixel: false,
    vertex: false,
};
/// In `D3DSBT_PIXELSTATE` only.
pub const PIXEL: Groups = Groups {
    pixel: true,
    vertex: false,
};
/// In `D3DSBT_VERTEXSTATE` only.
pub const VERTEX: Groups = Groups {
    pixel: false,
    vertex: true,
};
/// In both `D3DSBT_PIXELSTATE` and `D3DSBT_VERTEXSTATE`.
pub const BOTH: Groups = Groups {
    pixel: true,
    vertex: true,
};

/// A state-block group (`D3DSTATEBLOCKTYPE`'s three values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateGroup {
    /// `D3DSBT_ALL`: the pixel and the vertex states together.
    All,
    /// `D3DSBT_PIXELSTATE`.
    Pixel,
    /// `D3DSBT_VERTEXSTATE`.
    Vertex,
}

impl Groups {
    /// Whether a state of these groups belongs to `group`.
    pub const fn contains(self, group: StateGroup) -> bool {
        match group {
            StateGroup::All => self.pixel || self.vertex,
            StateGroup::Pixel => self.pixel,
            StateGroup::Vertex => self.vertex,
        }
    }
}

/// The default of a texture-stage state, which may depend on the stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageDefault {
    /// The same value on every stage.
    All(u32),
    /// One value on stage 0, another on stages 1 and up.
    Stage0(u32, u32),
    /// The stage's own number (`D3DTSS_TEXCOORDINDEX`: stage n reads
    /// coordinate set n).
    StageIndex,
}

impl StageDefault {
    /// The default on stage `stage`.
    pub const fn for_stage(self, stage: u32) -> u32 {
        match self {
            StageDefault::All(v) => v,
            StageDefault::Stage0(first, _) if stage == 0 => first,
            StageDefault::Stage0(_, rest) => rest,
            StageDefault::StageIndex => stage,
        }
    }
}

/// One row of the state table (see the module docs); `D` is the type of
/// the default (`u32` for render states, [`StageDefault`] for
/// texture-stage states).
#[derive(Debug, Clone, Copy)]
pub struct StateInfo<D> {
    /// What the DWORD holds.
    pub kind: StateKind,
    /// The Direct3D default.
    pub default: D,
    /// What the device does with a value it is given.
    pub honour: Honour,
    /// State-block membership.
    pub groups: Groups,
    /// What acts on the value.
    pub reads: Reader,
}

impl<D> StateInfo<D> {
    /// Whether the device keeps `v` as given: a value of the state's kind
    /// that its rule does not replace (what a register of this state
    /// accepts).
    pub fn keeps(&self, v: u32) -> bool {
        self.kind.defines(v) && self.honour.apply(self.kind, v) == v
    }

    /// What the device uses instead of a value it does not keep: the
    /// rule's replacement for the states whose rule names one, else
    /// `default`.
    pub fn replacement(&self, default: u32) -> u32 {
        match self.honour {
            Honour::InEnum(v) | Honour::InRange { fallback: v, .. } => v,
            _ => default,
        }
    }
}

/// The bits of a float, for the rows (`f(1.0)`).
const fn f(v: f32) -> u32 {
    v.to_bits()
}

/// BOOL TRUE, for the rows.
const TRUE: u32 = 1;

/// Declares a state enum (through [`crate::ddi_enum!`]) and its
/// [`StateInfo`] rows: one row per state, an exhaustive `info()`.
macro_rules! state_table {
    (
        $(#[$meta:meta])*
        $vis:vis enum $Name:ident: u32 = $type_name:literal, prefix $prefix:literal, default $Def:ty {
            $(
                $(#[$vmeta:meta])*
                $Variant:ident = $value:literal => $ddk:literal $(| $alias:literal)*
                    ; kind $kind:expr, default $default:expr, honour $honour:expr, groups $groups:ident, reads $reads:ident,
            )*
        }
    ) => {
        $crate::ddi_enum! {
            $(#[$meta])*
            $vis enum $Name: u32 = $type_name, prefix $prefix {
                $( $(#[$vmeta])* $Variant = $value => $ddk $(| $alias)*, )*
            }
        }

        impl $Name {
            /// This state's row of the state table.
            pub const fn info(self) -> $crate::state::StateInfo<$Def> {
                match self {
                    $(Self::$Variant => $crate::state::StateInfo {
                        kind: $kind,
                        default: $default,
                        honour: $honour,
                        groups: $groups,
                        reads: $crate::state::Reader::$reads,
                    },)*
                }
            }

            /// The states of state-block group `group`, in numeric order.
            pub fn in_group(group: $crate::state::StateGroup) -> impl Iterator<Item = Self> {
                Self::ALL
                    .iter()
                    .copied()
                    .filter(move |s| s.info().groups.contains(group))
            }
        }
    };
}
use state_table;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::{CmpFunc, FogMode};
    use crate::{RenderStateType as Rs, TextureStageStateType as Tss};

    /// The enums list their states in numeric order (the state-block
    /// groups and the documentation table rely on it).
    #[test]
    fn states_are_in_numeric_order() {
        assert!(Rs::ALL.windows(2).all(|w| w[0].raw() < w[1].raw()));
        assert!(Tss::ALL.windows(2).all(|w| w[0].raw() < w[1].raw()));
        assert_eq!(Rs::ALL.len(), 173);
        assert_eq!(Tss::ALL.len(), 33);
    }

    /// A rule that replaces undefined enum values is only on enum states,
    /// and its replacement is itself defined; every default is a value
    /// the device keeps as given.
    #[test]
    fn rows_are_consistent() {
        for s in Rs::ALL {
            let i = s.info();
            if let Honour::InEnum(fallback) = i.honour {
                match i.kind {
                    StateKind::Enum(t) => assert!(t.name_of(fallback).is_some(), "{s}"),
                    other => panic!("{s}: InEnum on {other:?}"),
                }
            }
            assert_eq!(s.honoured(i.default), i.default, "{s}");
        }
        for s in Tss::ALL {
            assert_eq!(s.info().honour, Honour::AsGiven, "{s}");
        }
    }

    /// What the device keeps, worked out from the documentation of each
    /// state and softhal's documented policy (docs/device.md).
    #[test]
    fn honoured_values() {
        let nan = f32::NAN.to_bits();
        // FOGSTART: a float; NaN is not one, 0.0 (its default) is used.
        assert_eq!(Rs::FogStart.honoured(nan), 0.0f32.to_bits());
        assert_eq!(Rs::FogStart.honoured(0.25f32.to_bits()), 0.25f32.to_bits());
        // FOGEND, FOGDENSITY: infinities become 1.0.
        assert_eq!(
            Rs::FogEnd.honoured(f32::INFINITY.to_bits()),
            1.0f32.to_bits()
        );
        // ZFUNC: D3DCMPFUNC is 1..=8; 0 becomes LESSEQUAL (4).
        assert_eq!(Rs::ZFunc.honoured(0), 4);
        assert_eq!(Rs::ZFunc.honoured(CmpFunc::Greater.raw()), 5);
        // ALPHAFUNC: 9 becomes ALWAYS (8).
        assert_eq!(Rs::AlphaFunc.honoured(9), 8);
        // SRCBLEND: 16 (SRCCOLOR2) is not implemented, becomes ONE (2);
        // DESTBLEND: becomes ZERO (1). 15 (INVBLENDFACTOR) is kept.
        assert_eq!(Rs::SrcBlend.honoured(16), 2);
        assert_eq!(Rs::DestBlend.honoured(17), 1);
        assert_eq!(Rs::DestBlend.honoured(15), 15);
        // ZBIAS is 0..=16.
        assert_eq!(Rs::ZBias.honoured(40), 16);
        // ALPHAREF: the low 8 bits.
        assert_eq!(Rs::AlphaRef.honoured(0xFF70), 0x70);
        // CLIPPLANEENABLE: six planes.
        assert_eq!(Rs::ClipPlaneEnable.honoured(0xFF), 0x3F);
        // COLORWRITEENABLE: four channels.
        assert_eq!(Rs::ColorWriteEnable.honoured(0x1F), 0xF);
        // FOGTABLEMODE: D3DFOGMODE is 0..=3; 4 becomes NONE.
        assert_eq!(Rs::FogTableMode.honoured(4), FogMode::None.raw());
        // PATCHSEGMENTS: finite and not negative (−0.0 passes), else 1.0.
        assert_eq!(
            Rs::PatchSegments.honoured((-1.0f32).to_bits()),
            1.0f32.to_bits()
        );
        assert_eq!(
            Rs::PatchSegments.honoured((-0.0f32).to_bits()),
            (-0.0f32).to_bits()
        );
        // Not implemented: multisampling, sRGB writes, dithering read as off.
        assert_eq!(Rs::MultisampleAntialias.honoured(1), 0);
        assert_eq!(Rs::SrgbWriteEnable.honoured(1), 0);
        assert_eq!(Rs::DitherEnable.honoured(1), 0);
        // As given: LIGHTING, STENCILREF.
        assert_eq!(Rs::Lighting.honoured(7), 7);
        assert_eq!(Rs::StencilRef.honoured(0x1234), 0x1234);
    }

    /// What the device keeps as given, from the kinds and rules: a BOOL
    /// any DWORD; D3DBLEND 16 (SRCCOLOR2) a D3DBLEND value it replaces;
    /// RESULTARG only D3DTA_CURRENT (1) or D3DTA_TEMP (5); COLORARG1 a
    /// selector 0..=6 with the modifier bits 0x10 / 0x20; ZBIAS at most 16.
    #[test]
    fn kept_values() {
        assert!(Rs::Lighting.info().keeps(7));
        assert!(Rs::SrcBlend.info().keeps(15));
        assert!(!Rs::SrcBlend.info().keeps(16));
        assert!(!Rs::SrcBlend.info().keeps(18));
        assert_eq!(Rs::SrcBlend.info().replacement(0), 2);
        assert!(Tss::ResultArg.info().keeps(5));
        assert!(!Tss::ResultArg.info().keeps(2));
        assert!(Tss::ColorArg1.info().keeps(0x36));
        assert!(!Tss::ColorArg1.info().keeps(0x47));
        assert!(Rs::ZBias.info().keeps(16));
        assert!(!Rs::ZBias.info().keeps(17));
        // TEXCOORDINDEX: CAMERASPACENORMAL (0x10000) of set 2; mode 5 no.
        assert!(Tss::TexCoordIndex.info().keeps(0x1_0002));
        assert!(!Tss::TexCoordIndex.info().keeps(0x5_0000));
        // Not an enumerated state: replaced by the default given.
        assert_eq!(Rs::FogStart.info().replacement(9), 9);
    }

    /// Defaults from the Direct3D 9 documentation of D3DRENDERSTATETYPE and
    /// D3DTEXTURESTAGESTATETYPE.
    #[test]
    fn documented_defaults() {
        assert_eq!(Rs::FogStart.info().default, 0.0f32.to_bits());
        assert_eq!(Rs::FogEnd.info().default, 1.0f32.to_bits());
        assert_eq!(Rs::PointSizeMax.info().default, 64.0f32.to_bits());
        assert_eq!(Rs::ZEnable.info().default, 1); // D3DZB_TRUE
        assert_eq!(Rs::CullMode.info().default, 3); // D3DCULL_CCW
        assert_eq!(Rs::ZFunc.info().default, 4); // D3DCMP_LESSEQUAL
        assert_eq!(Rs::AlphaFunc.info().default, 8); // D3DCMP_ALWAYS
        assert_eq!(Rs::SrcBlend.info().default, 2); // D3DBLEND_ONE
        assert_eq!(Rs::DestBlend.info().default, 1); // D3DBLEND_ZERO
        assert_eq!(Rs::StencilMask.info().default, 0xFFFF_FFFF);
        assert_eq!(Rs::ColorWriteEnable.info().default, 0xF);
        assert_eq!(Rs::Lighting.info().default, 0);
        // COLOROP: MODULATE (4) on stage 0, DISABLE (1) elsewhere.
        assert_eq!(Tss::ColorOp.info().default.for_stage(0), 4);
        assert_eq!(Tss::ColorOp.info().default.for_stage(3), 1);
        // ALPHAOP: SELECTARG1 (2) on stage 0.
        assert_eq!(Tss::AlphaOp.info().default.for_stage(0), 2);
        // TEXCOORDINDEX: stage n reads set n.
        assert_eq!(Tss::TexCoordIndex.info().default.for_stage(5), 5);
        // ADDRESSU: WRAP (1); MAXANISOTROPY 1; COLORARG1 TEXTURE (2).
        assert_eq!(Tss::AddressU.info().default.for_stage(2), 1);
        assert_eq!(Tss::MaxAnisotropy.info().default.for_stage(0), 1);
        assert_eq!(Tss::ColorArg1.info().default.for_stage(7), 2);
    }

    /// Group membership from the DDK's state-block lists: FOGSTART is in
    /// both, ZFUNC pixel only, LIGHTING vertex only, TEXCOORDINDEX in both,
    /// COLOROP pixel only, TEXTUREMAP in none.
    #[test]
    fn groups() {
        assert_eq!(Rs::FogStart.info().groups, BOTH);
        assert_eq!(Rs::ZFunc.info().groups, PIXEL);
        assert_eq!(Rs::Lighting.info().groups, VERTEX);
        assert_eq!(Rs::TextureHandle.info().groups, NONE);
        assert_eq!(Tss::TexCoordIndex.info().groups, BOTH);
        assert_eq!(Tss::ColorOp.info().groups, PIXEL);
        assert_eq!(Tss::TextureMap.info().groups, NONE);
        // The Direct3D 9 states the DDK's lists predate, placed by the
        // Direct3D 9 documentation ("Saving Pixel State / Vertex States
        // With a StateBlock"): COLORWRITEENABLE1 (190) and the separate
        // alpha blend (206) are pixel state, the adaptive tessellation
        // states (180-184) vertex state; MAXVERTEXSHADERINST (196) is the
        // DDI's own and in neither. The sampler states SRGBTEXTURE and
        // ELEMENTINDEX are pixel state, DMAPOFFSET vertex state;
        // D3DTSS_CONSTANT is in neither list.
        assert_eq!(Rs::ColorWriteEnable1.info().groups, PIXEL);
        assert_eq!(Rs::SeparateAlphaBlendEnable.info().groups, PIXEL);
        assert_eq!(Rs::AdaptiveTessX.info().groups, VERTEX);
        assert_eq!(Rs::EnableAdaptiveTessellation.info().groups, VERTEX);
        assert_eq!(Rs::MaxVertexShaderInst.info().groups, NONE);
        assert_eq!(Tss::SrgbTexture.info().groups, PIXEL);
        assert_eq!(Tss::ElementIndex.info().groups, PIXEL);
        assert_eq!(Tss::DmapOffset.info().groups, VERTEX);
        assert_eq!(Tss::Constant.info().groups, NONE);
        assert!(Rs::in_group(StateGroup::Vertex).any(|s| s == Rs::Lighting));
        assert!(!Rs::in_group(StateGroup::Pixel).any(|s| s == Rs::Lighting));
        assert!(Rs::in_group(StateGroup::All).any(|s| s == Rs::Lighting));
    }

    /// Who reads what: ZFUNC and D3DTSS_CONSTANT reach the pipeline;
    /// the legacy TEXTUREHANDLE (a stage-0 texture bind), SCENECAPTURE
    /// and D3DTSS_TEXTUREMAP are the device's; DITHERENABLE (dithering
    /// is not implemented), LINEPATTERN (retired) and SRGBTEXTURE are
    /// only kept. A state the device replaces by 0 (not implemented)
    /// is never read.
    #[test]
    fn readers() {
        assert_eq!(Rs::ZFunc.info().reads, Reader::Pipeline);
        assert_eq!(Rs::ColorWriteEnable3.info().reads, Reader::Pipeline);
        assert_eq!(Rs::TextureHandle.info().reads, Reader::Device);
        assert_eq!(Rs::SceneCapture.info().reads, Reader::Device);
        assert_eq!(Rs::DitherEnable.info().reads, Reader::Kept);
        assert_eq!(Rs::LinePattern.info().reads, Reader::Kept);
        assert_eq!(Tss::Constant.info().reads, Reader::Pipeline);
        assert_eq!(Tss::TextureMap.info().reads, Reader::Device);
        assert_eq!(Tss::SrgbTexture.info().reads, Reader::Kept);
        for s in Rs::ALL {
            if s.info().honour == Honour::Off {
                assert_eq!(s.info().reads, Reader::Kept, "{s}");
            }
        }
    }

    /// The sampler states and their `D3DSAMP_*` numbers
    /// (`D3DSAMPLERSTATETYPE`: ADDRESSU 1 … MAXANISOTROPY 10,
    /// SRGBTEXTURE 11, ELEMENTINDEX 12, DMAPOFFSET 13); the cascade's
    /// states, TEXTUREMAP and the DX6/7 ADDRESS are not sampler states.
    #[test]
    fn sampler_states() {
        let numbered: Vec<(Tss, u32)> = Tss::ALL
            .iter()
            .filter_map(|&t| t.sampler_state().map(|n| (t, n)))
            .collect();
        assert_eq!(
            numbered,
            [
                (Tss::AddressU, 1),
                (Tss::AddressV, 2),
                (Tss::BorderColor, 4),
                (Tss::MagFilter, 5),
                (Tss::MinFilter, 6),
                (Tss::MipFilter, 7),
                (Tss::MipMapLodBias, 8),
                (Tss::MaxMipLevel, 9),
                (Tss::MaxAnisotropy, 10),
                (Tss::AddressW, 3),
                (Tss::SrgbTexture, 11),
                (Tss::ElementIndex, 12),
                (Tss::DmapOffset, 13),
            ]
        );
        assert_eq!(Tss::ColorOp.sampler_state(), None);
        assert_eq!(Tss::TexCoordIndex.sampler_state(), None);
        assert_eq!(Tss::Address.sampler_state(), None);
        assert_eq!(Tss::TextureMap.sampler_state(), None);
    }
}
