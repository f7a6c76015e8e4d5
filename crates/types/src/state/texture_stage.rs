//! The texture-stage-state rows of the state table
//! (`D3DTEXTURESTAGESTATETYPE` as the DDI sees it: the `TSState` field of
//! `D3DHAL_DP2TEXTURESTAGESTATE`).
//!
//! In: a texture-stage-state number (0..=32). Out: [`TextureStageStateType`]
//! (33 values, including the DDI-only `TEXTUREMAP` 0, the DX6/7 `ADDRESS` 12
//! and the DX9 sampler states the runtime maps to 29..=31), each with its
//! row (see [`super`]); kinds give the DX8+ meaning of the filter states.
//! [`TextureStageStateType::sampler_state`] tells the Direct3D 9 sampler
//! states (kept for every sampler, the vertex-texture samplers included)
//! from the texture states (texture stages 0–7 only).
//! The device stores every texture-stage value as given (the DX6/7 filter
//! spellings are translated on the way in, not by a rule here). Defaults
//! are the Direct3D 9 documentation's: stage 0 modulates the texture with
//! the diffuse colour, the other stages are off.

use super::Honour::*;
use super::StageDefault::{self, *};
use super::StateKind::*;
use super::{state_table, BOTH, NONE, PIXEL, VERTEX};
use crate::values::*;

state_table! {
    /// A texture-stage state (`D3DTSS_*`), DDI numbering.
    pub enum TextureStageStateType: u32 = "D3DTEXTURESTAGESTATETYPE", prefix "D3DTSS_", default StageDefault {
        /// DDI only: texture surface handle bound to the stage/sampler (0 = none).
        TextureMap = 0 => "D3DTSS_TEXTUREMAP"
            ; kind Handle, default All(0), honour AsGiven, groups NONE, reads Device,
        /// `D3DTEXTUREOP` of the colour channel.
        ColorOp = 1 => "D3DTSS_COLOROP"
            ; kind Enum(&TextureOp::TABLE), default Stage0(TextureOp::Modulate.raw(), TextureOp::Disable.raw()), honour AsGiven, groups PIXEL, reads Pipeline,
        /// First colour argument (`D3DTA_*`).
        ColorArg1 = 2 => "D3DTSS_COLORARG1"
            ; kind TextureArgument, default All(TextureArg::Texture.raw()), honour AsGiven, groups PIXEL, reads Pipeline,
        /// Second colour argument (`D3DTA_*`).
        ColorArg2 = 3 => "D3DTSS_COLORARG2"
            ; kind TextureArgument, default All(TextureArg::Current.raw()), honour AsGiven, groups PIXEL, reads Pipeline,
        /// `D3DTEXTUREOP` of the alpha channel.
        AlphaOp = 4 => "D3DTSS_ALPHAOP"
            ; kind Enum(&TextureOp::TABLE), default Stage0(TextureOp::SelectArg1.raw(), TextureOp::Disable.raw()), honour AsGiven, groups PIXEL, reads Pipeline,
        /// First alpha argument (`D3DTA_*`).
        AlphaArg1 = 5 => "D3DTSS_ALPHAARG1"
            ; kind TextureArgument, default All(TextureArg::Texture.raw()), honour AsGiven, groups PIXEL, reads Pipeline,
        /// Second alpha argument (`D3DTA_*`).
        AlphaArg2 = 6 => "D3DTSS_ALPHAARG2"
            ; kind TextureArgument, default All(TextureArg::Current.raw()), honour AsGiven, groups PIXEL, reads Pipeline,
        /// Bump-mapping matrix element (0, 0) (float).
        BumpEnvMat00 = 7 => "D3DTSS_BUMPENVMAT00"
            ; kind Float, default All(0), honour AsGiven, groups PIXEL, reads Pipeline,
        /// Bump-mapping matrix element (0, 1) (float).
        BumpEnvMat01 = 8 => "D3DTSS_BUMPENVMAT01"
            ; kind Float, default All(0), honour AsGiven, groups PIXEL, reads Pipeline,
        /// Bump-mapping matrix element (1, 0) (float).
        BumpEnvMat10 = 9 => "D3DTSS_BUMPENVMAT10"
            ; kind Float, default All(0), honour AsGiven, groups PIXEL, reads Pipeline,
        /// Bump-mapping matrix element (1, 1) (float).
        BumpEnvMat11 = 10 => "D3DTSS_BUMPENVMAT11"
            ; kind Float, default All(0), honour AsGiven, groups PIXEL, reads Pipeline,
        /// Texture-coordinate set index (bits 15:0) and `D3DTSS_TCI_*` mode (bits 31:16).
        TexCoordIndex = 11 => "D3DTSS_TEXCOORDINDEX"
            ; kind TexCoordIndex, default StageIndex, honour AsGiven, groups BOTH, reads Pipeline,
        /// DX6/7 only: sets both U and V addressing (`D3DTEXTUREADDRESS`).
        Address = 12 => "D3DTSS_ADDRESS"
            ; kind Enum(&TextureAddress::TABLE), default All(0), honour AsGiven, groups NONE, reads Device,
        /// U addressing (`D3DTEXTUREADDRESS`); DX9 `D3DSAMP_ADDRESSU`.
        AddressU = 13 => "D3DTSS_ADDRESSU"
            ; kind Enum(&TextureAddress::TABLE), default All(TextureAddress::Wrap.raw()), honour AsGiven, groups PIXEL, reads Pipeline,
        /// V addressing (`D3DTEXTUREADDRESS`); DX9 `D3DSAMP_ADDRESSV`.
        AddressV = 14 => "D3DTSS_ADDRESSV"
            ; kind Enum(&TextureAddress::TABLE), default All(TextureAddress::Wrap.raw()), honour AsGiven, groups PIXEL, reads Pipeline,
        /// Border colour (D3DCOLOR); DX9 `D3DSAMP_BORDERCOLOR`.
        BorderColor = 15 => "D3DTSS_BORDERCOLOR"
            ; kind Color, default All(0), honour AsGiven, groups PIXEL, reads Pipeline,
        /// Magnification filter (DX6/7 `D3DTFG_*`, DX8+ `D3DTEXF_*`).
        MagFilter = 16 => "D3DTSS_MAGFILTER"
            ; kind Enum(&TextureFilterType::TABLE), default All(TextureFilterType::Point.raw()), honour AsGiven, groups PIXEL, reads Pipeline,
        /// Minification filter (DX6/7 `D3DTFN_*`, DX8+ `D3DTEXF_*`).
        MinFilter = 17 => "D3DTSS_MINFILTER"
            ; kind Enum(&TextureFilterType::TABLE), default All(TextureFilterType::Point.raw()), honour AsGiven, groups PIXEL, reads Pipeline,
        /// Mip filter (DX6/7 `D3DTFP_*`, DX8+ `D3DTEXF_*`).
        MipFilter = 18 => "D3DTSS_MIPFILTER"
            ; kind Enum(&TextureFilterType::TABLE), default All(TextureFilterType::None.raw()), honour AsGiven, groups PIXEL, reads Pipeline,
        /// Mip LOD bias (float).
        MipMapLodBias = 19 => "D3DTSS_MIPMAPLODBIAS"
            ; kind Float, default All(0), honour AsGiven, groups PIXEL, reads Pipeline,
        /// Most detailed mip level allowed.
        MaxMipLevel = 20 => "D3DTSS_MAXMIPLEVEL"
            ; kind Dword, default All(0), honour AsGiven, groups PIXEL, reads Pipeline,
        /// Maximum anisotropy.
        MaxAnisotropy = 21 => "D3DTSS_MAXANISOTROPY"
            ; kind Dword, default All(1), honour AsGiven, groups PIXEL, reads Pipeline,
        /// Bump-mapping luminance scale (float).
        BumpEnvLScale = 22 => "D3DTSS_BUMPENVLSCALE"
            ; kind Float, default All(0), honour AsGiven, groups PIXEL, reads Pipeline,
        /// Bump-mapping luminance offset (float).
        BumpEnvLOffset = 23 => "D3DTSS_BUMPENVLOFFSET"
            ; kind Float, default All(0), honour AsGiven, groups PIXEL, reads Pipeline,
        /// DX7+: `D3DTTFF_*` texture-transform flags.
        TextureTransformFlags = 24 => "D3DTSS_TEXTURETRANSFORMFLAGS"
            ; kind TextureTransformFlags, default All(0), honour AsGiven, groups BOTH, reads Pipeline,
        /// DX8+: W addressing (`D3DTEXTUREADDRESS`).
        AddressW = 25 => "D3DTSS_ADDRESSW"
            ; kind Enum(&TextureAddress::TABLE), default All(TextureAddress::Wrap.raw()), honour AsGiven, groups PIXEL, reads Pipeline,
        /// DX8+: third colour argument (MULTIPLYADD/LERP).
        ColorArg0 = 26 => "D3DTSS_COLORARG0"
            ; kind TextureArgument, default All(TextureArg::Current.raw()), honour AsGiven, groups PIXEL, reads Pipeline,
        /// DX8+: third alpha argument.
        AlphaArg0 = 27 => "D3DTSS_ALPHAARG0"
            ; kind TextureArgument, default All(TextureArg::Current.raw()), honour AsGiven, groups PIXEL, reads Pipeline,
        /// DX8+: result register (`D3DTA_CURRENT` or `D3DTA_TEMP`).
        ResultArg = 28 => "D3DTSS_RESULTARG"
            ; kind ResultArgument, default All(TextureArg::Current.raw()), honour AsGiven, groups PIXEL, reads Pipeline,
        /// DDI only: DX9 `D3DSAMP_SRGBTEXTURE` (BOOL).
        SrgbTexture = 29 => "D3DTSS_SRGBTEXTURE"
            ; kind Bool, default All(0), honour AsGiven, groups PIXEL, reads Kept,
        /// DDI only: DX9 `D3DSAMP_ELEMENTINDEX`.
        ElementIndex = 30 => "D3DTSS_ELEMENTINDEX"
            ; kind Dword, default All(0), honour AsGiven, groups PIXEL, reads Kept,
        /// DDI only: DX9 `D3DSAMP_DMAPOFFSET`.
        DmapOffset = 31 => "D3DTSS_DMAPOFFSET"
            ; kind Dword, default All(0), honour AsGiven, groups VERTEX, reads Kept,
        /// DX9: per-stage constant colour for `D3DTA_CONSTANT`.
        Constant = 32 => "D3DTSS_CONSTANT"
            ; kind Color, default All(0), honour AsGiven, groups NONE, reads Pipeline,
    }
}

impl TextureStageStateType {
    /// The Direct3D 9 sampler state (`D3DSAMPLERSTATETYPE`, `D3DSAMP_*`)
    /// this texture-stage state carries at the DDI, or `None` for a
    /// texture state (the cascade's states, the coordinate index and
    /// transform flags) and the DDI-only `TEXTUREMAP` and DX6/7 `ADDRESS`.
    /// The runtime sends `IDirect3DDevice9::SetSamplerState` as a
    /// TEXTURESTAGESTATE record of the state with this `D3DSAMP_*` meaning
    /// (`D3DHAL_DP2TEXTURESTAGESTATE`, `TSState`). A sampler state belongs
    /// to every sampler, the vertex-texture samplers included; a texture
    /// state only to the texture stages 0–7.
    pub const fn sampler_state(self) -> Option<u32> {
        Some(match self {
            Self::AddressU => 1,
            Self::AddressV => 2,
            Self::AddressW => 3,
            Self::BorderColor => 4,
            Self::MagFilter => 5,
            Self::MinFilter => 6,
            Self::MipFilter => 7,
            Self::MipMapLodBias => 8,
            Self::MaxMipLevel => 9,
            Self::MaxAnisotropy => 10,
            Self::SrgbTexture => 11,
            Self::ElementIndex => 12,
            Self::DmapOffset => 13,
            _ => return None,
        })
    }
}

/// `D3DTSS_MAX_DX6`: number of DX6 texture-stage states.
pub const D3DTSS_MAX_DX6: u32 = 24;
/// `D3DTSS_MAX_DX7`.
pub const D3DTSS_MAX_DX7: u32 = 29;
/// `D3DTSS_MAX_DX8`.
pub const D3DTSS_MAX_DX8: u32 = 29;
/// `D3DTSS_MAX_DX9`.
pub const D3DTSS_MAX_DX9: u32 = 33;
/// `D3DTSS_MAX` (DX9 value): one past the last texture-stage state.
pub const D3DTSS_MAX: u32 = 33;
