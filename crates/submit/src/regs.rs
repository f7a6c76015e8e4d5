//! The GPU register file: the Direct3D fixed-function state a draw runs
//! with, in the DDI's own numbering.
//!
//! In: `(id, value)` DWORD pairs from SET_REGS packets (untrusted). Out: a
//! [`RegisterFile`] per context, with the groups each write touched marked
//! dirty (the GPU side derives the pipeline's private state from it per
//! dirty group, `crate::derive`). Guarantees:
//! * a register id is a documented function of a Direct3D number: bank
//!   base + D3DRENDERSTATETYPE, + 0x40·stage + D3DTSS, + 0x10·D3DTS +
//!   element, + 0x20·slot + D3DLIGHT7 DWORD, … ([`id`], listed in
//!   `docs/gpu-commands.md`, checked both ways by
//!   `crates/submit/tests/gpu_commands_doc.rs`);
//! * [`check`] accepts exactly the values [`RegisterFile::write`] stores:
//!   enumerated states hold a value the state defines, BOOLs 0 or 1,
//!   floats are finite f32 bit patterns, masks stay inside their mask; a
//!   refused write changes nothing. [`Value::from_raw`] is what the
//!   device sends for any raw D3D value (always accepted);
//! * a render-state or texture-stage register's rule and default come
//!   from its state's row of the state table (`softhal_types::state`,
//!   [`Value::of_state`]); this module adds only which registers exist,
//!   the group each feeds, and what the GPU implements of a larger set
//!   (the filters it samples with);
//! * [`all_ids`] lists every register once, ascending; ids are decoded
//!   with arithmetic (constant time), nothing allocates.

use softhal_pipeline::lighting::{Light, LightType, MAX_ACTIVE_LIGHTS};
use softhal_pipeline::limits::PIXEL_SAMPLERS;
use softhal_pipeline::program::VERTEX_SAMPLERS;
use softhal_pipeline::texture::TextureFilter;
use softhal_pipeline::PipelineState;
use softhal_types::state::{Honour, Reader, StateInfo, StateKind, NONE};
use softhal_types::TextureFilterType;
use softhal_wire::names::{
    state_value_kind, RenderStateType as Rs, TextureStageStateType as Tss,
    TransformStateType as Ts, ValueKind,
};

/// Number of user clip planes in the register file.
pub const CLIP_PLANES: u32 = softhal_pipeline::limits::MAX_USER_CLIP_PLANES as u32;
/// Number of texture stages in the register file: the 16 pixel samplers
/// 0–15 (ps_2_0+ `s0`–`s15`; 0–7 are also the fixed-function texture
/// stages, 8–15 only sampler states), then the vertex-texture samplers
/// D3DVERTEXTEXTURESAMPLER0–3 as stages 16–19 ([`VERTEX_SAMPLER_STAGE`]).
pub const STAGES: u32 = (PIXEL_SAMPLERS + VERTEX_SAMPLERS) as u32;
/// The register-file stage of D3DVERTEXTEXTURESAMPLER0 (its sampler
/// states, D3DTSS_ADDRESSU … MAXANISOTROPY, are read from it).
pub const VERTEX_SAMPLER_STAGE: u32 = PIXEL_SAMPLERS as u32;
/// Number of light slots in the register file.
pub const LIGHTS: u32 = MAX_ACTIVE_LIGHTS as u32;

/// The first id of each bank, and the stride of the banks with entries.
pub mod bank {
    /// Render states: + D3DRENDERSTATETYPE (0..=255).
    pub const RENDER_STATE: u32 = 0x0000;
    /// Texture-stage states: + [`TEXTURE_STAGE_STRIDE`]·stage + D3DTSS.
    pub const TEXTURE_STAGE: u32 = 0x1000;
    /// Registers per texture stage.
    pub const TEXTURE_STAGE_STRIDE: u32 = 0x40;
    /// Transforms: + [`TRANSFORM_STRIDE`]·D3DTRANSFORMSTATETYPE + element
    /// (row-major, `_11` first).
    pub const TRANSFORM: u32 = 0x2000;
    /// Registers per transform.
    pub const TRANSFORM_STRIDE: u32 = 0x10;
    /// Light slots: + [`LIGHT_STRIDE`]·slot + D3DLIGHT7 DWORD (26), then
    /// ENABLE.
    pub const LIGHT: u32 = 0x4000;
    /// Registers per light slot.
    pub const LIGHT_STRIDE: u32 = 0x20;
    /// The material: + D3DMATERIAL7 DWORD (17).
    pub const MATERIAL: u32 = 0x4100;
    /// The viewport: dwX, dwY, dwWidth, dwHeight (VIEWPORTINFO), dvMinZ,
    /// dvMaxZ (ZRANGE).
    pub const VIEWPORT: u32 = 0x4120;
    /// WINFO: dvWNear, dvWFar.
    pub const WINFO: u32 = 0x4128;
    /// User clip planes (SETCLIPPLANE): + 4·plane + coefficient.
    pub const CLIP_PLANE: u32 = 0x4140;
    /// The scissor rectangle (SETSCISSORRECT): left, top, right, bottom.
    pub const SCISSOR: u32 = 0x4160;
}

/// Register ids: bank base + Direct3D number.
pub mod id {
    use super::bank;

    /// Render state `rs` (D3DRENDERSTATETYPE).
    pub const fn rs(rs: u32) -> u32 {
        bank::RENDER_STATE.saturating_add(rs)
    }
    /// Texture-stage state `tss` (D3DTSS number) of stage `stage`.
    pub const fn tss(stage: u32, tss: u32) -> u32 {
        bank::TEXTURE_STAGE
            .saturating_add(stage.saturating_mul(bank::TEXTURE_STAGE_STRIDE))
            .saturating_add(tss)
    }
    /// Element `k` (0..16, row-major) of transform `ts`
    /// (D3DTRANSFORMSTATETYPE: VIEW, PROJECTION, TEXTURE0..7, WORLD..WORLD3).
    pub const fn transform(ts: u32, k: u32) -> u32 {
        bank::TRANSFORM
            .saturating_add(ts.saturating_mul(bank::TRANSFORM_STRIDE))
            .saturating_add(k)
    }
    /// DWORD `field` ([`light_field`]) of light slot `slot`.
    pub const fn light(slot: u32, field: u32) -> u32 {
        bank::LIGHT
            .saturating_add(slot.saturating_mul(bank::LIGHT_STRIDE))
            .saturating_add(field)
    }
    /// DWORD `field` of the material ([`material_field`]).
    pub const fn material(field: u32) -> u32 {
        bank::MATERIAL.saturating_add(field)
    }
    /// Coefficient `j` of user clip plane `i`.
    pub const fn clip_plane(i: u32, j: u32) -> u32 {
        bank::CLIP_PLANE
            .saturating_add(i.saturating_mul(4))
            .saturating_add(j)
    }

    /// The DWORDs of a light slot: D3DLIGHT7's, then softhal's ENABLE.
    pub mod light_field {
        #![allow(missing_docs)]
        /// dltType (D3DLIGHTTYPE 1–3).
        pub const TYPE: u32 = 0;
        /// dcvDiffuse r, g, b, a.
        pub const DIFFUSE: u32 = 1;
        pub const SPECULAR: u32 = 5;
        pub const AMBIENT: u32 = 9;
        /// dvPosition x, y, z (world space).
        pub const POSITION: u32 = 13;
        pub const DIRECTION: u32 = 16;
        pub const RANGE: u32 = 19;
        pub const FALLOFF: u32 = 20;
        pub const ATTENUATION0: u32 = 21;
        pub const ATTENUATION1: u32 = 22;
        pub const ATTENUATION2: u32 = 23;
        pub const THETA: u32 = 24;
        pub const PHI: u32 = 25;
        /// Not a D3DLIGHT7 member: the slot is lit (SETLIGHT ENABLE). The
        /// enabled slots, in slot order, are the lights a draw uses.
        pub const ENABLE: u32 = 26;
    }
    /// The DWORDs of the material, in D3DMATERIAL7 order.
    pub mod material_field {
        #![allow(missing_docs)]
        /// r, g, b, a.
        pub const DIFFUSE: u32 = 0;
        pub const AMBIENT: u32 = 4;
        pub const SPECULAR: u32 = 8;
        pub const EMISSIVE: u32 = 12;
        pub const POWER: u32 = 16;
    }
    /// The viewport registers.
    pub mod viewport {
        #![allow(missing_docs)]
        pub const X: u32 = super::bank::VIEWPORT;
        pub const Y: u32 = super::bank::VIEWPORT + 1;
        pub const WIDTH: u32 = super::bank::VIEWPORT + 2;
        pub const HEIGHT: u32 = super::bank::VIEWPORT + 3;
        pub const MIN_Z: u32 = super::bank::VIEWPORT + 4;
        pub const MAX_Z: u32 = super::bank::VIEWPORT + 5;
        pub const W_NEAR: u32 = super::bank::WINFO;
        pub const W_FAR: u32 = super::bank::WINFO + 1;
    }
    /// The scissor registers.
    pub mod scissor {
        #![allow(missing_docs)]
        pub const LEFT: u32 = super::bank::SCISSOR;
        pub const TOP: u32 = super::bank::SCISSOR + 1;
        pub const RIGHT: u32 = super::bank::SCISSOR + 2;
        pub const BOTTOM: u32 = super::bank::SCISSOR + 3;
    }
}

/// DWORDs of D3DLIGHT7 (the light bank's data registers).
pub const LIGHT7_DWORDS: u32 = 26;
/// DWORDs of D3DMATERIAL7.
pub const MATERIAL7_DWORDS: u32 = 17;

/// The transforms in the register file (D3DTRANSFORMSTATETYPE), ascending.
pub const TRANSFORMS: [Ts; 14] = [
    Ts::View,
    Ts::Projection,
    Ts::Texture0,
    Ts::Texture1,
    Ts::Texture2,
    Ts::Texture3,
    Ts::Texture4,
    Ts::Texture5,
    Ts::Texture6,
    Ts::Texture7,
    Ts::World,
    Ts::World1,
    Ts::World2,
    Ts::World3,
];

/// The texture-stage states in the register file (the sampler states at
/// their DX6–8 texture-stage numbers), ascending.
pub const STAGE_STATES: [Tss; 28] = [
    Tss::ColorOp,
    Tss::ColorArg1,
    Tss::ColorArg2,
    Tss::AlphaOp,
    Tss::AlphaArg1,
    Tss::AlphaArg2,
    Tss::BumpEnvMat00,
    Tss::BumpEnvMat01,
    Tss::BumpEnvMat10,
    Tss::BumpEnvMat11,
    Tss::TexCoordIndex,
    Tss::AddressU,
    Tss::AddressV,
    Tss::BorderColor,
    Tss::MagFilter,
    Tss::MinFilter,
    Tss::MipFilter,
    Tss::MipMapLodBias,
    Tss::MaxMipLevel,
    Tss::MaxAnisotropy,
    Tss::BumpEnvLScale,
    Tss::BumpEnvLOffset,
    Tss::TextureTransformFlags,
    Tss::AddressW,
    Tss::ColorArg0,
    Tss::AlphaArg0,
    Tss::ResultArg,
    Tss::Constant,
];

/// The pieces of derived state a register feeds: a write marks its group
/// dirty, a draw re-derives only the dirty groups (llvmpipe's `LP_NEW_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    /// Fill, shade and cull modes, LASTPIXEL, scissor, clipping and user
    /// clip planes, SPECULARENABLE.
    Raster,
    /// Z buffering, depth bias, WINFO.
    Depth,
    /// Stencil tests (both faces).
    Stencil,
    /// The alpha test.
    AlphaTest,
    /// Blending and the colour write mask.
    Blend,
    /// The viewport.
    Viewport,
    /// WORLD, VIEW, PROJECTION.
    Transforms,
    /// Texture stages, samplers, texture transforms, TEXTUREFACTOR, colour
    /// keying.
    Textures,
    /// Fog.
    Fog,
    /// Lighting, lights, material.
    Lighting,
    /// Vertex blending: VERTEXBLEND, WORLD1..3, TWEENFACTOR.
    VertexBlend,
    /// Point size, scale and sprites.
    Point,
}

impl Group {
    /// Every group.
    pub const ALL: [Group; 12] = [
        Group::Raster,
        Group::Depth,
        Group::Stencil,
        Group::AlphaTest,
        Group::Blend,
        Group::Viewport,
        Group::Transforms,
        Group::Textures,
        Group::Fog,
        Group::Lighting,
        Group::VertexBlend,
        Group::Point,
    ];
    /// The group's dirty bit.
    pub const fn bit(self) -> u32 {
        1u32.wrapping_shl(self as u32)
    }
}

/// Every dirty bit.
pub const ALL_GROUPS: u32 = (1 << Group::ALL.len()) - 1;

/// What a register holds, and what the device sends for a raw D3D value.
#[derive(Debug, Clone, Copy)]
pub enum Value {
    /// A Direct3D BOOL, stored as 0 or 1 (the device sends any non-zero
    /// value as 1).
    Bool,
    /// Any DWORD (colours, masks, references, counts, rectangle edges).
    Dword,
    /// An f32 bit pattern, finite (the device sends a non-finite value as
    /// 0.0).
    Float,
    /// A bit mask inside this mask (the device sends the bits inside it).
    Mask(u32),
    /// A number no greater than this (the device sends a greater one as
    /// this).
    AtMost(u32),
    /// An enumerated value the state defines (`valid`); the device sends an
    /// undefined one as `fallback`.
    Enum {
        /// The Direct3D enumeration, for the docs.
        name: &'static str,
        /// Which values the register accepts.
        valid: Defined,
        /// What the device sends instead of an undefined value.
        fallback: u32,
    },
}

/// The values an enumerated register accepts.
#[derive(Debug, Clone, Copy)]
pub enum Defined {
    /// Those the device keeps as given: the values of the state's kind
    /// that its rule does not replace (its row of the state table,
    /// [`softhal_types::state::StateInfo::keeps`]).
    Kept(StateKind, Honour),
    /// Those this function accepts: the part of a Direct3D value set the
    /// GPU implements (filters it samples with, DX7 light types).
    Only(fn(u32) -> bool),
}

impl Defined {
    fn accepts(self, v: u32) -> bool {
        match self {
            Defined::Kept(kind, honour) => StateInfo {
                kind,
                default: (),
                honour,
                groups: NONE,
                reads: Reader::Pipeline,
            }
            .keeps(v),
            Defined::Only(f) => f(v),
        }
    }
}

impl Value {
    /// The register value of a state whose row of the state table is
    /// `info`, with Direct3D default `default`: BOOLs and floats as such,
    /// the rule's mask or maximum, the values of an enumerated kind the
    /// device keeps (undefined ones sent as the rule's replacement or the
    /// default), any DWORD otherwise.
    pub fn of_state<D>(info: StateInfo<D>, default: u32) -> Value {
        let kind = info.kind;
        let enumerated = |name: &'static str| Value::Enum {
            name,
            valid: Defined::Kept(kind, info.honour),
            fallback: info.replacement(default),
        };
        match (kind, info.honour) {
            (StateKind::Bool, _) => Value::Bool,
            (StateKind::Float, _) => Value::Float,
            (_, Honour::Mask(m)) => Value::Mask(m),
            (_, Honour::AtMost(n)) => Value::AtMost(n),
            (StateKind::Enum(table), _) => enumerated(table.type_name),
            (
                StateKind::TextureArgument
                | StateKind::ResultArgument
                | StateKind::TexCoordIndex
                | StateKind::TextureTransformFlags,
                _,
            ) => match state_value_kind(kind) {
                ValueKind::Custom(c) => enumerated(c.name),
                _ => enumerated("?"),
            },
            _ => Value::Dword,
        }
    }

    /// Whether a register of this kind accepts `v`.
    pub fn accepts(self, v: u32) -> bool {
        match self {
            Value::Bool => v <= 1,
            Value::Dword => true,
            Value::Float => f32::from_bits(v).is_finite(),
            Value::Mask(m) => v & !m == 0,
            Value::AtMost(n) => v <= n,
            Value::Enum { valid, .. } => valid.accepts(v),
        }
    }

    /// The register value for the raw Direct3D value `raw` (always
    /// accepted by [`Value::accepts`]).
    pub fn from_raw(self, raw: u32) -> u32 {
        match self {
            Value::Bool => u32::from(raw != 0),
            Value::Dword => raw,
            Value::Float => {
                if f32::from_bits(raw).is_finite() {
                    raw
                } else {
                    0
                }
            }
            Value::Mask(m) => raw & m,
            Value::AtMost(n) => raw.min(n),
            Value::Enum {
                valid, fallback, ..
            } => {
                if valid.accepts(raw) {
                    raw
                } else {
                    fallback
                }
            }
        }
    }
}

/// Why a register write is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegError {
    /// No register has this id.
    UnknownRegister,
    /// The value is outside the register's range.
    BadValue,
}

/// The render states in the register file, by the group each feeds: the
/// states the derived draw state reads. What each accepts is its row of
/// the state table ([`Value::of_state`]).
#[rustfmt::skip]
const RENDER_STATE_GROUPS: [(Group, &[Rs]); 10] = [
    (
        Group::Raster,
        &[
            Rs::FillMode, Rs::ShadeMode, Rs::CullMode, Rs::LastPixel, Rs::ScissorTestEnable,
            Rs::Clipping, Rs::SpecularEnable, Rs::ClipPlaneEnable,
        ],
    ),
    (
        Group::Depth,
        &[Rs::ZEnable, Rs::ZWriteEnable, Rs::ZFunc, Rs::ZBias, Rs::DepthBias, Rs::SlopeScaleDepthBias],
    ),
    (
        Group::Stencil,
        &[
            Rs::StencilEnable, Rs::TwoSidedStencilMode, Rs::StencilFail, Rs::StencilZFail,
            Rs::StencilPass, Rs::CcwStencilFail, Rs::CcwStencilZFail, Rs::CcwStencilPass,
            Rs::StencilFunc, Rs::CcwStencilFunc, Rs::StencilRef, Rs::StencilMask,
            Rs::StencilWriteMask,
        ],
    ),
    (Group::AlphaTest, &[Rs::AlphaTestEnable, Rs::AlphaFunc, Rs::AlphaRef]),
    (
        Group::Blend,
        &[
            Rs::AlphaBlendEnable, Rs::SeparateAlphaBlendEnable, Rs::SrcBlend, Rs::SrcBlendAlpha,
            Rs::DestBlend, Rs::DestBlendAlpha, Rs::BlendOp, Rs::BlendOpAlpha, Rs::BlendFactor,
            Rs::ColorWriteEnable, Rs::ColorWriteEnable1, Rs::ColorWriteEnable2,
            Rs::ColorWriteEnable3,
        ],
    ),
    (Group::Textures, &[Rs::TextureFactor, Rs::ColorKeyEnable, Rs::ColorKeyBlendEnable]),
    (
        Group::Fog,
        &[
            Rs::FogEnable, Rs::RangeFogEnable, Rs::FogColor, Rs::FogTableMode, Rs::FogVertexMode,
            Rs::FogStart, Rs::FogEnd, Rs::FogDensity,
        ],
    ),
    (
        Group::Lighting,
        &[
            Rs::Lighting, Rs::LocalViewer, Rs::NormalizeNormals, Rs::ColorVertex, Rs::Ambient,
            Rs::DiffuseMaterialSource, Rs::SpecularMaterialSource, Rs::AmbientMaterialSource,
            Rs::EmissiveMaterialSource,
        ],
    ),
    (Group::VertexBlend, &[Rs::VertexBlend, Rs::IndexedVertexBlendEnable, Rs::TweenFactor]),
    (
        Group::Point,
        &[
            Rs::PointSize, Rs::PointSizeMin, Rs::PointSizeMax, Rs::PointScaleA, Rs::PointScaleB,
            Rs::PointScaleC, Rs::PointScaleEnable, Rs::PointSpriteEnable,
        ],
    ),
];

/// The group of render state `rs` ([`RENDER_STATE_GROUPS`], indexed by
/// D3DRENDERSTATETYPE once, then found in constant time).
fn render_state_group(rs: Rs) -> Option<Group> {
    static BY_NUMBER: std::sync::OnceLock<[Option<Group>; 256]> = std::sync::OnceLock::new();
    let table = BY_NUMBER.get_or_init(|| {
        let mut t = [None; 256];
        for (group, states) in RENDER_STATE_GROUPS {
            for s in states {
                if let Some(slot) = t.get_mut(s.raw() as usize) {
                    *slot = Some(group);
                }
            }
        }
        t
    });
    table.get(rs.raw() as usize).copied().flatten()
}

/// The kind of render state `rs` (`None`: not in the register file).
fn render_state_rule(rs: Rs) -> Option<(Value, Group)> {
    let g = render_state_group(rs)?;
    let info = rs.info();
    Some((Value::of_state(info, info.default), g))
}

/// The kind of texture-stage state `tss` of stage `stage`: its row of the
/// state table (fallbacks are the stage's Direct3D defaults), but for the
/// filters, which accept only what the GPU samples with
/// ([`TextureFilter::from_d3d`]).
fn stage_rule(stage: usize, tss: Tss) -> Option<Value> {
    if !STAGE_STATES.contains(&tss) {
        return None;
    }
    let info = tss.info();
    let default = info.default.for_stage(stage as u32);
    Some(match tss {
        Tss::MagFilter | Tss::MinFilter | Tss::MipFilter => Value::Enum {
            name: TextureFilterType::TABLE.type_name,
            valid: Defined::Only(|v| TextureFilter::from_d3d(v).is_some()),
            fallback: default,
        },
        _ => Value::of_state(info, default),
    })
}

/// Where register `reg` lives in the file's storage, its kind and group.
fn locate(reg: u32) -> Option<(usize, Value, Group)> {
    let rel = |base: u32, stride: u32| {
        let off = reg.checked_sub(base)?;
        Some((off.checked_div(stride)?, off.checked_rem(stride)?))
    };
    match reg {
        0..=0xFF => {
            let (v, g) = render_state_rule(Rs::from_raw(reg)?)?;
            Some((reg as usize, v, g))
        }
        0x1000..=0x1FFF => {
            let (s, t) = rel(bank::TEXTURE_STAGE, bank::TEXTURE_STAGE_STRIDE)?;
            if s >= STAGES {
                return None;
            }
            let v = stage_rule(s as usize, Tss::from_raw(t)?)?;
            let at = at(slot::STAGES, s, bank::TEXTURE_STAGE_STRIDE, t);
            Some((at, v, Group::Textures))
        }
        0x2000..=0x3FFF => {
            let (ts, k) = rel(bank::TRANSFORM, bank::TRANSFORM_STRIDE)?;
            let n = TRANSFORMS.iter().position(|t| t.raw() == ts)?;
            let g = match Ts::from_raw(ts)? {
                Ts::World | Ts::View | Ts::Projection => Group::Transforms,
                Ts::World1 | Ts::World2 | Ts::World3 => Group::VertexBlend,
                _ => Group::Textures,
            };
            Some((at(slot::TRANSFORMS, n as u32, 16, k), Value::Float, g))
        }
        0x4000..=0x40FF => {
            let (i, f) = rel(bank::LIGHT, bank::LIGHT_STRIDE)?;
            let v = match f {
                id::light_field::TYPE => Value::Enum {
                    name: LightType::TABLE.type_name,
                    valid: Defined::Only(|v| LightType::from_d3d(v).is_some_and(LightType::is_dx7)),
                    fallback: LightType::Directional.d3d(),
                },
                id::light_field::ENABLE => Value::Bool,
                f if f < LIGHT7_DWORDS => Value::Float,
                _ => return None,
            };
            (i < LIGHTS).then_some(())?;
            let at = at(slot::LIGHTS, i, bank::LIGHT_STRIDE, f);
            Some((at, v, Group::Lighting))
        }
        bank::MATERIAL..=0x4110 => {
            let at = at(slot::MATERIAL, 0, 0, reg.wrapping_sub(bank::MATERIAL));
            Some((at, Value::Float, Group::Lighting))
        }
        id::viewport::X..=id::viewport::HEIGHT => {
            let at = at(slot::VIEWPORT, 0, 0, reg.wrapping_sub(bank::VIEWPORT));
            Some((at, Value::Dword, Group::Viewport))
        }
        id::viewport::MIN_Z..=id::viewport::MAX_Z => {
            let at = at(slot::VIEWPORT, 0, 0, reg.wrapping_sub(bank::VIEWPORT));
            Some((at, Value::Float, Group::Viewport))
        }
        id::viewport::W_NEAR..=id::viewport::W_FAR => {
            let at = at(slot::WINFO, 0, 0, reg.wrapping_sub(bank::WINFO));
            Some((at, Value::Float, Group::Depth))
        }
        bank::CLIP_PLANE..=0x4157 => {
            let at = at(slot::CLIP, 0, 0, reg.wrapping_sub(bank::CLIP_PLANE));
            Some((at, Value::Float, Group::Raster))
        }
        id::scissor::LEFT..=id::scissor::BOTTOM => {
            let at = at(slot::SCISSOR, 0, 0, reg.wrapping_sub(bank::SCISSOR));
            Some((at, Value::Dword, Group::Raster))
        }
        _ => None,
    }
}

/// Storage index `base + entry·stride + field` (small bounded numbers;
/// saturating so that no input can overflow).
fn at(base: usize, entry: u32, stride: u32, field: u32) -> usize {
    let off = entry.saturating_mul(stride).saturating_add(field);
    base.saturating_add(off as usize)
}

/// Offsets of each bank in the file's storage.
mod slot {
    pub const STAGES: usize = 0x100;
    pub const TRANSFORMS: usize = STAGES + 0x40 * super::STAGES as usize;
    pub const LIGHTS: usize = TRANSFORMS + 14 * 16;
    pub const MATERIAL: usize = LIGHTS + 0x20 * 8;
    pub const VIEWPORT: usize = MATERIAL + 17;
    pub const WINFO: usize = VIEWPORT + 6;
    pub const CLIP: usize = WINFO + 2;
    pub const SCISSOR: usize = CLIP + 24;
    pub const COUNT: usize = SCISSOR + 4;
}

/// The kind and group of register `reg` (`None`: no such register).
pub fn rule(reg: u32) -> Option<(Value, Group)> {
    locate(reg).map(|(_, v, g)| (v, g))
}

/// Checks a write without applying it.
pub fn check(reg: u32, value: u32) -> Result<(), RegError> {
    let (v, _) = rule(reg).ok_or(RegError::UnknownRegister)?;
    if v.accepts(value) {
        Ok(())
    } else {
        Err(RegError::BadValue)
    }
}

/// Every register id, ascending.
pub fn all_ids() -> impl Iterator<Item = u32> + Clone {
    let rs = (0..=0xFFu32).filter(|&r| rule(r).is_some());
    let stages = (0..STAGES).flat_map(|s| STAGE_STATES.iter().map(move |t| id::tss(s, t.raw())));
    let transforms = TRANSFORMS
        .iter()
        .flat_map(|t| (0..16).map(move |k| id::transform(t.raw(), k)));
    let lights =
        (0..LIGHTS).flat_map(|i| (0..=id::light_field::ENABLE).map(move |f| id::light(i, f)));
    let tail = (bank::MATERIAL..id::material(MATERIAL7_DWORDS))
        .chain(id::viewport::X..=id::viewport::MAX_Z)
        .chain(id::viewport::W_NEAR..=id::viewport::W_FAR)
        .chain(bank::CLIP_PLANE..id::clip_plane(CLIP_PLANES, 0))
        .chain(id::scissor::LEFT..=id::scissor::BOTTOM);
    rs.chain(stages).chain(transforms).chain(lights).chain(tail)
}

/// The register file of one GPU context, with the groups written since
/// the derived state was last brought up to date.
#[derive(Clone)]
pub struct RegisterFile {
    regs: [u32; slot::COUNT],
    dirty: u32,
}

/// Equal when every register is (dirty bits are bookkeeping).
impl PartialEq for RegisterFile {
    fn eq(&self, other: &Self) -> bool {
        self.regs == other.regs
    }
}

impl Eq for RegisterFile {}

impl std::fmt::Debug for RegisterFile {
    /// The registers that differ from the defaults, by id.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = default_file();
        f.debug_map()
            .entries(
                all_ids()
                    .filter(|&r| self.get(r) != d.get(r))
                    .map(|r| (format!("{r:#06x}"), self.get(r).unwrap_or(0))),
            )
            .finish()
    }
}

impl Default for RegisterFile {
    /// The Direct3D defaults (the pipeline's defaults, register by
    /// register), every group dirty.
    fn default() -> Self {
        default_file().clone()
    }
}

impl RegisterFile {
    /// The value of register `reg` (`None`: no such register).
    pub fn get(&self, reg: u32) -> Option<u32> {
        let (at, _, _) = locate(reg)?;
        self.regs.get(at).copied()
    }

    /// Applies `value` to register `reg` and marks its group dirty. On
    /// error nothing changes.
    pub fn write(&mut self, reg: u32, value: u32) -> Result<(), RegError> {
        let (at, v, g) = locate(reg).ok_or(RegError::UnknownRegister)?;
        if !v.accepts(value) {
            return Err(RegError::BadValue);
        }
        let slot = self.regs.get_mut(at).ok_or(RegError::UnknownRegister)?;
        if *slot != value {
            *slot = value;
            self.dirty |= g.bit();
        }
        Ok(())
    }

    /// Render state `rs` (0 for a state the file does not carry: its
    /// storage is never written). Read by storage index, without the
    /// value rule (the derive path reads every register of a group).
    pub fn rs(&self, rs: Rs) -> u32 {
        self.regs.get(rs.raw() as usize).copied().unwrap_or(0)
    }

    /// Texture-stage state `tss` of `stage` (0 for a state the file does
    /// not carry), read by storage index like [`RegisterFile::rs`].
    pub fn tss(&self, stage: usize, tss: Tss) -> u32 {
        let s = u32::try_from(stage).unwrap_or(u32::MAX);
        if s >= STAGES {
            return 0;
        }
        let i = at(slot::STAGES, s, bank::TEXTURE_STAGE_STRIDE, tss.raw());
        self.regs.get(i).copied().unwrap_or(0)
    }

    /// Register `reg` as an f32 (0.0 if there is no such register).
    pub fn f(&self, reg: u32) -> f32 {
        f32::from_bits(self.get(reg).unwrap_or(0))
    }

    /// Transform `ts`, row-major.
    pub fn transform(&self, ts: Ts) -> [[f32; 4]; 4] {
        let base = id::transform(ts.raw(), 0);
        std::array::from_fn(|r| {
            std::array::from_fn(|c| {
                self.f(base.saturating_add(at(0, r as u32, 4, c as u32) as u32))
            })
        })
    }

    /// The groups written since [`RegisterFile::take_dirty`] last ran
    /// ([`Group::bit`]s).
    pub fn dirty(&self) -> u32 {
        self.dirty
    }

    /// The dirty groups, cleared.
    pub fn take_dirty(&mut self) -> u32 {
        std::mem::take(&mut self.dirty)
    }
}

/// The defaults, built once: every render-state and texture-stage
/// register holds its state's Direct3D default (the state table's), the
/// other banks the pipeline's defaults (identity transforms, the default
/// light and material, no clip planes); `derive(default) ==
/// PipelineState::default()` is a test.
fn default_file() -> &'static RegisterFile {
    static DEFAULT: std::sync::OnceLock<RegisterFile> = std::sync::OnceLock::new();
    DEFAULT.get_or_init(|| {
        let mut f = RegisterFile {
            regs: [0; slot::COUNT],
            dirty: ALL_GROUPS,
        };
        let states = Rs::ALL
            .iter()
            .map(|&s| (id::rs(s.raw()), s.info().default))
            .chain((0..STAGES).flat_map(|stage| {
                STAGE_STATES
                    .iter()
                    .map(move |&t| (id::tss(stage, t.raw()), t.info().default.for_stage(stage)))
            }));
        for (reg, v) in states.chain(default_writes(&PipelineState::default())) {
            if let Some((at, kind, _)) = locate(reg) {
                if let Some(s) = f.regs.get_mut(at) {
                    *s = kind.from_raw(v);
                }
            }
        }
        f.dirty = ALL_GROUPS;
        f
    })
}

/// Register values of the banks the state table does not describe that
/// give back the default state `p` (every register whose default is not
/// 0).
fn default_writes(p: &PipelineState) -> Vec<(u32, u32)> {
    let f = f32::to_bits;
    let mut w = vec![
        (id::viewport::W_NEAR, f(p.depth.w_near)),
        (id::viewport::W_FAR, f(p.depth.w_far)),
        (id::viewport::X, p.viewport.x),
        (id::viewport::Y, p.viewport.y),
        (id::viewport::WIDTH, p.viewport.width),
        (id::viewport::HEIGHT, p.viewport.height),
        (id::viewport::MIN_Z, f(p.viewport.min_z)),
        (id::viewport::MAX_Z, f(p.viewport.max_z)),
    ];
    let m = &p.lighting.material;
    let mat = m
        .diffuse
        .iter()
        .chain(&m.ambient)
        .chain(&m.specular)
        .chain(&m.emissive);
    w.extend(
        mat.chain([&m.power])
            .zip(0..)
            .map(|(x, k)| (id::material(k), f(*x))),
    );
    for (i, plane) in (0..).zip(&p.raster.clip_planes) {
        w.extend(
            plane
                .iter()
                .zip(0..)
                .map(|(x, j)| (id::clip_plane(i, j), f(*x))),
        );
    }
    let sc = &p.raster.scissor;
    w.extend([
        (id::scissor::LEFT, sc.x1 as u32),
        (id::scissor::TOP, sc.y1 as u32),
        (id::scissor::RIGHT, sc.x2 as u32),
        (id::scissor::BOTTOM, sc.y2 as u32),
    ]);
    let t = &p.transforms;
    let vb = &p.vertex_blend.worlds;
    let mats = [
        (Ts::World, &t.world),
        (Ts::View, &t.view),
        (Ts::Projection, &t.projection),
        (Ts::World1, &vb[0]),
        (Ts::World2, &vb[1]),
        (Ts::World3, &vb[2]),
    ];
    let tex = (Ts::Texture0.raw()..).zip(&p.textures.matrices);
    for (ts, m) in mats.iter().map(|(t, m)| (t.raw(), *m)).chain(tex) {
        w.extend(
            m.0.iter()
                .flatten()
                .zip(0..)
                .map(|(x, k)| (id::transform(ts, k), f(*x))),
        );
    }
    for i in 0..LIGHTS {
        w.extend(
            light_registers(&softhal_pipeline::NO_LIGHT)
                .into_iter()
                .zip(0..)
                .map(|(v, k)| (id::light(i, k), v)),
        );
    }
    w
}

/// The 26 D3DLIGHT7 DWORDs of light `l` (the light bank's data registers;
/// the device sends the D3D default light this way).
pub fn light_registers(l: &Light) -> [u32; LIGHT7_DWORDS as usize] {
    let mut out = [0u32; LIGHT7_DWORDS as usize];
    let f = f32::to_bits;
    let floats = l
        .diffuse
        .iter()
        .chain(&l.specular)
        .chain(&l.ambient)
        .chain(&l.position)
        .chain(&l.direction)
        .chain([
            &l.range,
            &l.falloff,
            &l.attenuation0,
            &l.attenuation1,
            &l.attenuation2,
            &l.theta,
            &l.phi,
        ]);
    let mut it = out.iter_mut();
    if let Some(t) = it.next() {
        *t = l.kind.d3d();
    }
    for (o, x) in it.zip(floats) {
        *o = f(*x);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids are bank base + Direct3D number, worked out from the DDK
    /// numbers: D3DRS_FOGSTART = 36, D3DTSS_MAGFILTER = 16, D3DTS_TEXTURE2
    /// = 18, D3DTS_WORLD1 = 257, D3DLIGHT7 dvRange is DWORD 19.
    #[test]
    fn ids_are_bank_base_plus_ddi_number() {
        assert_eq!(id::rs(Rs::FogStart.raw()), 0x0024);
        assert_eq!(id::tss(3, Tss::MagFilter.raw()), 0x1000 + 3 * 0x40 + 16);
        assert_eq!(id::transform(Ts::Texture2.raw(), 5), 0x2000 + 18 * 0x10 + 5);
        assert_eq!(id::transform(Ts::World1.raw(), 0), 0x2000 + 257 * 0x10);
        assert_eq!(id::light(2, id::light_field::RANGE), 0x4000 + 2 * 0x20 + 19);
        assert_eq!(id::material(id::material_field::POWER), 0x4110);
        assert_eq!(id::clip_plane(5, 3), 0x4140 + 23);
    }

    /// `all_ids` is ascending and names exactly the ids the file knows
    /// (every id below 0x10000 is tried).
    #[test]
    fn all_ids_is_exactly_the_register_file() {
        let ids: Vec<u32> = all_ids().collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        let known: Vec<u32> = (0..0x1_0000).filter(|&r| rule(r).is_some()).collect();
        assert_eq!(known, ids);
        let f = RegisterFile::default();
        assert!(ids.iter().all(|&r| f.get(r).is_some()));
        // Every default is a value its register accepts.
        for r in ids {
            assert_eq!(check(r, f.get(r).unwrap()), Ok(()), "{r:#06x}");
        }
    }

    /// The by-index reads of the derive path agree with `get`.
    #[test]
    fn rs_and_tss_reads_are_the_registers() {
        let mut f = RegisterFile::default();
        // D3DRS_FOGCOLOR = 34, D3DTSS_BORDERCOLOR = 15.
        f.write(id::rs(34), 0xFF10_2030).unwrap();
        f.write(id::tss(7, 15), 0x8040_2010).unwrap();
        assert_eq!(f.rs(Rs::FogColor), 0xFF10_2030);
        assert_eq!(f.tss(7, Tss::BorderColor), 0x8040_2010);
        for r in all_ids() {
            if r < 0x100 {
                assert_eq!(Some(f.rs(Rs::from_raw(r).unwrap())), f.get(r));
            } else if r < 0x1500 {
                let (s, t) = ((r - 0x1000) / 0x40, (r - 0x1000) % 0x40);
                let v = f.tss(s as usize, Tss::from_raw(t).unwrap());
                assert_eq!(Some(v), f.get(r), "{r:#x}");
            }
        }
        // Stages 16–19 are the vertex-texture samplers; 20 is none.
        assert_eq!(f.tss(20, Tss::ColorOp), 0);
    }

    /// Out-of-range values are refused and change nothing; unknown ids are
    /// refused as unknown.
    #[test]
    fn ranges_are_checked_and_refusals_change_nothing() {
        use id::light_field as lf;
        let bad = [
            // D3DCMPFUNC is 1..=8.
            (id::rs(Rs::ZFunc.raw()), 9),
            // BOOL registers hold 0 or 1.
            (id::rs(Rs::FogEnable.raw()), 2),
            // Six clip planes: bits 0..=5.
            (id::rs(Rs::ClipPlaneEnable.raw()), 1 << 6),
            (id::rs(Rs::FogDensity.raw()), f32::INFINITY.to_bits()),
            // D3DBLEND 16 (D3D9Ex SRCCOLOR2) is a D3DBLEND the device does
            // not honour (it sends ONE).
            (id::rs(Rs::SrcBlend.raw()), 16),
            // D3DTEXTUREOP is 1..=26.
            (id::tss(0, Tss::ColorOp.raw()), 27),
            // D3DTA selectors are 0..=6; RESULTARG is CURRENT (1) or TEMP
            // (5), not TEXTURE (2).
            (id::tss(1, Tss::ColorArg1.raw()), 7),
            (id::tss(1, Tss::ResultArg.raw()), 2),
            // D3DTADDRESS is 1..=5.
            (id::tss(2, Tss::AddressU.raw()), 6),
            // D3DTSS_TCI_* modes are 0..=4 (in bits 31:16).
            (id::tss(3, Tss::TexCoordIndex.raw()), 0x5_0000),
            // D3DTTFF_COUNT is 0..=4.
            (id::tss(4, Tss::TextureTransformFlags.raw()), 5),
            // D3DTEXF_* is 0..=8; 8 (CONVOLUTIONMONO) is not sampled.
            (id::tss(7, Tss::MinFilter.raw()), 8),
            (id::tss(7, Tss::MagFilter.raw()), 9),
            // D3DLIGHT7's types are 1..=3 (not the DX5 PARALLELPOINT 4,
            // GLSPOT 5).
            (id::light(0, lf::TYPE), 4),
            (id::light(0, lf::TYPE), 5),
            (id::light(7, lf::PHI), f32::NAN.to_bits()),
            (id::light(0, lf::ENABLE), 2),
            (id::transform(Ts::View.raw(), 15), f32::NAN.to_bits()),
            (id::viewport::MAX_Z, f32::NEG_INFINITY.to_bits()),
        ];
        for (reg, v) in bad {
            let mut f = RegisterFile::default();
            f.take_dirty();
            assert_eq!(f.write(reg, v), Err(RegError::BadValue), "{reg:#x}");
            assert_eq!(f, RegisterFile::default());
            assert_eq!(f.dirty(), 0);
        }
        for reg in [
            // D3DRS_DITHERENABLE (26) is not honoured; 255 is no state.
            id::rs(26),
            id::rs(0xFF),
            // D3DTSS_TEXTUREMAP (0) is a binding (SET_TEXTURE), 12 the DX6
            // ADDRESS alias.
            id::tss(0, 0),
            id::tss(0, 12),
            id::tss(20, Tss::ColorOp.raw()),
            // D3DTS_WORLD_DX7 (1) is stored as D3DTS_WORLD.
            id::transform(1, 0),
            // D3DTS 4..=15 name no transform.
            id::transform(4, 0),
            id::light(0, lf::ENABLE + 1),
            id::material(17),
            id::clip_plane(6, 0),
            u32::MAX,
        ] {
            assert_eq!(check(reg, 0), Err(RegError::UnknownRegister), "{reg:#x}");
        }
    }

    /// What the device sends for any raw value is accepted.
    #[test]
    fn from_raw_is_always_accepted() {
        let raws = [
            0,
            1,
            2,
            5,
            9,
            27,
            0x3F,
            0xFF,
            0x1_0000,
            f32::NAN.to_bits(),
            u32::MAX,
        ];
        for r in all_ids() {
            let (v, _) = rule(r).unwrap();
            for raw in raws {
                assert_eq!(check(r, v.from_raw(raw)), Ok(()), "{r:#x} {raw:#x}");
            }
        }
        // An undefined TEXTUREOP on stage 0 becomes stage 0's default,
        // D3DTOP_MODULATE (4); on stage 1, D3DTOP_DISABLE (1).
        let op = |s| rule(id::tss(s, Tss::ColorOp.raw())).unwrap().0.from_raw(99);
        assert_eq!((op(0), op(1)), (4, 1));
        // A non-zero BOOL is 1; a NaN float is 0.0.
        let b = rule(id::rs(Rs::FogEnable.raw())).unwrap().0;
        assert_eq!(b.from_raw(7), 1);
        assert_eq!(Value::Float.from_raw(f32::NAN.to_bits()), 0);
    }
}
