//! Value enums of render states and texture-stage states.
//!
//! In: the DWORD of a `D3DHAL_DP2RENDERSTATE` / `D3DHAL_DP2TEXTURESTAGESTATE`
//! record whose state takes an enumerated value. Out: one closed enum per DDK
//! type (`D3DCMPFUNC`, `D3DTEXTUREOP`, ...), each with its DDK names both
//! ways: `softhal_types::values`, and the texture-stage values of several
//! fields (`softhal_types::stage_values`), re-exported here so the text form and
//! every user of `wire::names` keep their paths. Values not in a table are
//! simply not variants; the printer then falls back to a number (see
//! [`super::format_value`]).

pub use softhal_types::stage_values::*;
pub use softhal_types::values::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_round_trip() {
        check_ddi_enum!(FillMode);
        check_ddi_enum!(ShadeMode);
        check_ddi_enum!(Cull);
        check_ddi_enum!(CmpFunc);
        check_ddi_enum!(Blend);
        check_ddi_enum!(BlendOp);
        check_ddi_enum!(FogMode);
        check_ddi_enum!(StencilOp);
        check_ddi_enum!(ZBufferType);
        check_ddi_enum!(MaterialColorSource);
        check_ddi_enum!(VertexBlendFlags);
        check_ddi_enum!(PatchEdgeStyle);
        check_ddi_enum!(DebugMonitorTokens);
        check_ddi_enum!(AntialiasMode);
        check_ddi_enum!(TextureBlend);
        check_ddi_enum!(TextureFilter);
        check_ddi_enum!(TextureAddress);
        check_ddi_enum!(TextureOp);
        check_ddi_enum!(TextureFilterType);
        check_ddi_enum!(TextureMagFilter);
        check_ddi_enum!(TextureMinFilter);
        check_ddi_enum!(TextureMipFilter);
        check_ddi_enum!(TextureArg);
        check_ddi_enum!(TexCoordIndexMode);
    }

    #[test]
    fn spot_checks() {
        assert_eq!(TextureOp::Lerp.raw(), 26);
        assert_eq!(TextureOp::ALL.len(), 26);
        assert_eq!(Blend::ALL.len(), 17);
        assert_eq!(Blend::InvSrcColor2.raw(), 17);
        assert_eq!(CmpFunc::Always.raw(), 8);
        assert_eq!(StencilOp::Decr.raw(), 8);
        assert_eq!(VertexBlendFlags::Tweening.raw(), 255);
        assert_eq!(VertexBlendFlags::Weights0.raw(), 256);
        assert_eq!(
            VertexBlendFlags::from_name("D3DVBLEND_1WEIGHT"),
            Some(VertexBlendFlags::Weights1)
        );
        assert_eq!(TextureFilterType::None.raw(), 0);
        assert_eq!(TextureFilterType::ConvolutionMono.raw(), 8);
        assert_eq!(TextureMipFilter::None.raw(), 1);
        assert_eq!(TextureMagFilter::Anisotropic.raw(), 5);
        assert_eq!(TextureAddress::MirrorOnce.raw(), 5);
        assert_eq!(TextureArg::Constant.raw(), 6);
        assert_eq!(TexCoordIndexMode::SphereMap.raw(), 0x40000);
        assert_eq!(FogMode::from_name("linear"), Some(FogMode::Linear));
        assert_eq!(
            CmpFunc::from_name("D3DCMP_LESSEQUAL"),
            Some(CmpFunc::LessEqual)
        );
        assert_eq!(CmpFunc::from_name("LESSEQUAL"), Some(CmpFunc::LessEqual));
        assert_eq!(CmpFunc::from_name("D3DCMP_"), None);
        assert_eq!(CmpFunc::from_name(""), None);
    }
}
