//! `D3DTEXTURESTAGESTATETYPE` as the DDI sees it: the `TSState` field of
//! `D3DHAL_DP2TEXTURESTAGESTATE`.
//!
//! In: a texture-stage-state number (0..=32). Out: [`TextureStageStateType`]
//! (33 values, including the DDI-only `TEXTUREMAP` 0, the DX6/7 `ADDRESS` 12
//! and the DX9 sampler states the runtime maps to 29..=31) and
//! [`texture_stage_value_kind`], how the state's DWORD is printed. The
//! `D3DTSS_MAX_*` limits are constants, not states.

use super::flags::{TEXCOORD_INDEX_KIND, TEXTURE_ARG_KIND, TTFF_KIND};
use super::values::{TextureAddress, TextureFilterType, TextureOp};
use crate::ddi_enum::ValueKind;

crate::ddi_enum! {
    /// A texture-stage state (`D3DTSS_*`), DDI numbering.
    pub enum TextureStageStateType: u32 = "D3DTEXTURESTAGESTATETYPE", prefix "D3DTSS_" {
        /// DDI only: texture surface handle bound to the stage/sampler (0 = none).
        TextureMap = 0 => "D3DTSS_TEXTUREMAP",
        /// `D3DTEXTUREOP` of the colour channel.
        ColorOp = 1 => "D3DTSS_COLOROP",
        /// First colour argument (`D3DTA_*`).
        ColorArg1 = 2 => "D3DTSS_COLORARG1",
        /// Second colour argument (`D3DTA_*`).
        ColorArg2 = 3 => "D3DTSS_COLORARG2",
        /// `D3DTEXTUREOP` of the alpha channel.
        AlphaOp = 4 => "D3DTSS_ALPHAOP",
        /// First alpha argument (`D3DTA_*`).
        AlphaArg1 = 5 => "D3DTSS_ALPHAARG1",
        /// Second alpha argument (`D3DTA_*`).
        AlphaArg2 = 6 => "D3DTSS_ALPHAARG2",
        /// Bump-mapping matrix element (0, 0) (float).
        BumpEnvMat00 = 7 => "D3DTSS_BUMPENVMAT00",
        /// Bump-mapping matrix element (0, 1) (float).
        BumpEnvMat01 = 8 => "D3DTSS_BUMPENVMAT01",
        /// Bump-mapping matrix element (1, 0) (float).
        BumpEnvMat10 = 9 => "D3DTSS_BUMPENVMAT10",
        /// Bump-mapping matrix element (1, 1) (float).
        BumpEnvMat11 = 10 => "D3DTSS_BUMPENVMAT11",
        /// Texture-coordinate set index (bits 15:0) and `D3DTSS_TCI_*` mode (bits 31:16).
        TexCoordIndex = 11 => "D3DTSS_TEXCOORDINDEX",
        /// DX6/7 only: sets both U and V addressing (`D3DTEXTUREADDRESS`).
        Address = 12 => "D3DTSS_ADDRESS",
        /// U addressing (`D3DTEXTUREADDRESS`); DX9 `D3DSAMP_ADDRESSU`.
        AddressU = 13 => "D3DTSS_ADDRESSU",
        /// V addressing (`D3DTEXTUREADDRESS`); DX9 `D3DSAMP_ADDRESSV`.
        AddressV = 14 => "D3DTSS_ADDRESSV",
        /// Border colour (D3DCOLOR); DX9 `D3DSAMP_BORDERCOLOR`.
        BorderColor = 15 => "D3DTSS_BORDERCOLOR",
        /// Magnification filter (DX6/7 `D3DTFG_*`, DX8+ `D3DTEXF_*`).
        MagFilter = 16 => "D3DTSS_MAGFILTER",
        /// Minification filter (DX6/7 `D3DTFN_*`, DX8+ `D3DTEXF_*`).
        MinFilter = 17 => "D3DTSS_MINFILTER",
        /// Mip filter (DX6/7 `D3DTFP_*`, DX8+ `D3DTEXF_*`).
        MipFilter = 18 => "D3DTSS_MIPFILTER",
        /// Mip LOD bias (float).
        MipMapLodBias = 19 => "D3DTSS_MIPMAPLODBIAS",
        /// Most detailed mip level allowed.
        MaxMipLevel = 20 => "D3DTSS_MAXMIPLEVEL",
        /// Maximum anisotropy.
        MaxAnisotropy = 21 => "D3DTSS_MAXANISOTROPY",
        /// Bump-mapping luminance scale (float).
        BumpEnvLScale = 22 => "D3DTSS_BUMPENVLSCALE",
        /// Bump-mapping luminance offset (float).
        BumpEnvLOffset = 23 => "D3DTSS_BUMPENVLOFFSET",
        /// DX7+: `D3DTTFF_*` texture-transform flags.
        TextureTransformFlags = 24 => "D3DTSS_TEXTURETRANSFORMFLAGS",
        /// DX8+: W addressing (`D3DTEXTUREADDRESS`).
        AddressW = 25 => "D3DTSS_ADDRESSW",
        /// DX8+: third colour argument (MULTIPLYADD/LERP).
        ColorArg0 = 26 => "D3DTSS_COLORARG0",
        /// DX8+: third alpha argument.
        AlphaArg0 = 27 => "D3DTSS_ALPHAARG0",
        /// DX8+: result register (`D3DTA_CURRENT` or `D3DTA_TEMP`).
        ResultArg = 28 => "D3DTSS_RESULTARG",
        /// DDI only: DX9 `D3DSAMP_SRGBTEXTURE` (BOOL).
        SrgbTexture = 29 => "D3DTSS_SRGBTEXTURE",
        /// DDI only: DX9 `D3DSAMP_ELEMENTINDEX`.
        ElementIndex = 30 => "D3DTSS_ELEMENTINDEX",
        /// DDI only: DX9 `D3DSAMP_DMAPOFFSET`.
        DmapOffset = 31 => "D3DTSS_DMAPOFFSET",
        /// DX9: per-stage constant colour for `D3DTA_CONSTANT`.
        Constant = 32 => "D3DTSS_CONSTANT",
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
/// `D3DHAL_TSS_RENDERSTATEBASE`: start of the TSS block in the legacy combined state array.
pub const D3DHAL_TSS_RENDERSTATEBASE: u32 = 256;
/// `D3DHAL_TSS_MAXSTAGES`: texture blending stages.
pub const D3DHAL_TSS_MAXSTAGES: u32 = 8;
/// `D3DHAL_TSS_STATESPERSTAGE`: states per stage in the legacy combined state array.
pub const D3DHAL_TSS_STATESPERSTAGE: u32 = 64;
/// `D3DHAL_SAMPLER_MAXSAMP`: DX9 pixel samplers.
pub const D3DHAL_SAMPLER_MAXSAMP: u32 = 16;
/// `D3DHAL_SAMPLER_MAXVERTEXSAMP`: DX9 vertex-texture samplers.
pub const D3DHAL_SAMPLER_MAXVERTEXSAMP: u32 = 4;
/// `D3DDMAPSAMPLER`: sampler number of the displacement map.
pub const D3DDMAPSAMPLER: u32 = 256;
/// `D3DVERTEXTEXTURESAMPLER0`: first vertex-texture sampler (0..3 = 257..260).
pub const D3DVERTEXTEXTURESAMPLER0: u32 = 257;

impl TextureStageStateType {
    /// How this state's DWORD value is printed and parsed (DX8+ meaning of
    /// the filter states).
    pub fn value_kind(self) -> ValueKind {
        match self {
            Self::TextureMap => ValueKind::Handle,
            Self::ColorOp | Self::AlphaOp => ValueKind::Enum(&TextureOp::TABLE),
            Self::ColorArg0
            | Self::ColorArg1
            | Self::ColorArg2
            | Self::AlphaArg0
            | Self::AlphaArg1
            | Self::AlphaArg2
            | Self::ResultArg => ValueKind::Custom(&TEXTURE_ARG_KIND),
            Self::BumpEnvMat00
            | Self::BumpEnvMat01
            | Self::BumpEnvMat10
            | Self::BumpEnvMat11
            | Self::MipMapLodBias
            | Self::BumpEnvLScale
            | Self::BumpEnvLOffset => ValueKind::Float,
            Self::TexCoordIndex => ValueKind::Custom(&TEXCOORD_INDEX_KIND),
            Self::Address | Self::AddressU | Self::AddressV | Self::AddressW => {
                ValueKind::Enum(&TextureAddress::TABLE)
            }
            Self::BorderColor | Self::Constant => ValueKind::Color,
            Self::MagFilter | Self::MinFilter | Self::MipFilter => {
                ValueKind::Enum(&TextureFilterType::TABLE)
            }
            Self::MaxMipLevel | Self::MaxAnisotropy | Self::ElementIndex | Self::DmapOffset => {
                ValueKind::Dword
            }
            Self::TextureTransformFlags => ValueKind::Custom(&TTFF_KIND),
            Self::SrgbTexture => ValueKind::Bool,
        }
    }
}

/// How the DWORD value of texture-stage state `tss` is printed and parsed.
///
/// Filters use the DX8+ `D3DTEXF_*` meaning; arguments, `TEXCOORDINDEX` and
/// `TEXTURETRANSFORMFLAGS` use their custom encodings
/// ([`super::format_texture_arg`], [`super::format_texcoord_index`],
/// [`super::format_ttff`]). An unknown state number gives `Hex`.
pub fn texture_stage_value_kind(tss: u32) -> ValueKind {
    TextureStageStateType::from_raw(tss).map_or(ValueKind::Hex, TextureStageStateType::value_kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_round_trips() {
        check_ddi_enum!(TextureStageStateType);
    }

    #[test]
    fn spot_checks() {
        assert_eq!(TextureStageStateType::ALL.len(), 33);
        for (i, s) in TextureStageStateType::ALL.iter().enumerate() {
            assert_eq!(s.raw(), i as u32);
        }
        assert_eq!(TextureStageStateType::Address.raw(), 12);
        assert_eq!(TextureStageStateType::SrgbTexture.raw(), 29);
        assert_eq!(TextureStageStateType::DmapOffset.raw(), 31);
        assert_eq!(TextureStageStateType::Constant.raw(), 32);
        assert_eq!(TextureStageStateType::from_raw(D3DTSS_MAX), None);
        assert_eq!(
            TextureStageStateType::from_name("COLOROP"),
            Some(TextureStageStateType::ColorOp)
        );
        assert_eq!(
            D3DTSS_MAX_DX6,
            TextureStageStateType::TextureTransformFlags.raw()
        );
    }

    #[test]
    fn value_kinds() {
        use crate::ddi_enum::ValueKind as K;
        assert!(matches!(texture_stage_value_kind(0), K::Handle));
        assert!(matches!(texture_stage_value_kind(1), K::Enum(t) if t.type_name == "D3DTEXTUREOP"));
        assert!(matches!(texture_stage_value_kind(2), K::Custom(c) if c.name == "D3DTA"));
        assert!(matches!(texture_stage_value_kind(28), K::Custom(c) if c.name == "D3DTA"));
        assert!(matches!(texture_stage_value_kind(11), K::Custom(c) if c.name == "D3DTSS_TCI"));
        assert!(matches!(texture_stage_value_kind(24), K::Custom(c) if c.name == "D3DTTFF"));
        assert!(
            matches!(texture_stage_value_kind(16), K::Enum(t) if t.type_name == "D3DTEXTUREFILTERTYPE")
        );
        assert!(
            matches!(texture_stage_value_kind(12), K::Enum(t) if t.type_name == "D3DTEXTUREADDRESS")
        );
        assert!(matches!(texture_stage_value_kind(15), K::Color));
        assert!(matches!(texture_stage_value_kind(32), K::Color));
        assert!(matches!(texture_stage_value_kind(7), K::Float));
        assert!(matches!(texture_stage_value_kind(29), K::Bool));
        assert!(matches!(texture_stage_value_kind(20), K::Dword));
        assert!(matches!(texture_stage_value_kind(33), K::Hex));
        for s in TextureStageStateType::ALL {
            let kind = s.value_kind();
            for raw in [
                0u32,
                1,
                2,
                0x12,
                0x30,
                0x10001,
                0x104,
                0x3F80_0000,
                0xFFFF_FFFF,
            ] {
                let text = super::super::format_value(kind, raw);
                assert_eq!(
                    super::super::parse_value(kind, &text),
                    Some(raw),
                    "{s}: {text}"
                );
            }
        }
    }
}
