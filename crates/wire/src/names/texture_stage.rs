//! `D3DTEXTURESTAGESTATETYPE` as the DDI sees it: the `TSState` field of
//! `D3DHAL_DP2TEXTURESTAGESTATE`.
//!
//! In: a texture-stage-state number (0..=32). Out: [`TextureStageStateType`]
//! (the state table's enum, `softhal_types::state`, re-exported) and
//! [`texture_stage_value_kind`], how the state's DWORD is printed, derived
//! from the table's `kind` column (filters in their DX8+ `D3DTEXF_*`
//! meaning). The `D3DTSS_MAX_*` limits are constants, not states.

pub use softhal_types::state::{
    TextureStageStateType, D3DTSS_MAX, D3DTSS_MAX_DX6, D3DTSS_MAX_DX7, D3DTSS_MAX_DX8,
    D3DTSS_MAX_DX9,
};

use super::state_value_kind;
use crate::ddi_enum::ValueKind;

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

/// How the DWORD value of texture-stage state `tss` is printed and parsed.
///
/// Filters use the DX8+ `D3DTEXF_*` meaning; arguments, `TEXCOORDINDEX` and
/// `TEXTURETRANSFORMFLAGS` use their custom encodings
/// ([`super::format_texture_arg`], [`super::format_texcoord_index`],
/// [`super::format_ttff`]). An unknown state number gives `Hex`.
pub fn texture_stage_value_kind(tss: u32) -> ValueKind {
    TextureStageStateType::from_raw(tss).map_or(ValueKind::Hex, |s| state_value_kind(s.info().kind))
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
            let kind = texture_stage_value_kind(s.raw());
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
