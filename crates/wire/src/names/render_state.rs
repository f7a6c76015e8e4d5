//! `D3DRENDERSTATETYPE`: the `RenderState` field of `D3DHAL_DP2RENDERSTATE`.
//!
//! In: a render-state number (1..=209). Out: [`RenderStateType`] (the
//! state table's enum, `softhal_types::state`, re-exported: 173 values with
//! every DDK spelling) and [`render_state_value_kind`], how the state's
//! DWORD is printed, derived from the table's `kind` column.

use super::state_value_kind;
use crate::ddi_enum::ValueKind;
pub use softhal_types::state::{
    RenderStateType, D3DRENDERSTATE_STIPPLEPATTERN_BASE, D3DRENDERSTATE_WRAPBIAS,
    D3DSTATE_OVERRIDE_BIAS,
};

/// How the DWORD value of render state `state` is printed and parsed (the
/// state table's kind); an unassigned number gives `Hex`.
pub fn render_state_value_kind(state: u32) -> ValueKind {
    RenderStateType::from_raw(state).map_or(ValueKind::Hex, |s| state_value_kind(s.info().kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_round_trips() {
        check_ddi_enum!(RenderStateType);
    }

    #[test]
    fn spot_checks() {
        assert_eq!(RenderStateType::ALL.len(), 173);
        assert_eq!(RenderStateType::BlendOpAlpha.raw(), 209);
        assert_eq!(RenderStateType::BlendOpAlpha.name(), "D3DRS_BLENDOPALPHA");
        assert_eq!(RenderStateType::ZEnable.raw(), 7);
        assert_eq!(RenderStateType::DeleteRtPatch.raw(), 169);
        assert_eq!(RenderStateType::StipplePattern00.raw(), 64);
        assert_eq!(RenderStateType::StipplePattern31.raw(), 95);
        assert_eq!(RenderStateType::Wrap7.raw(), 135);
        assert_eq!(RenderStateType::Wrap8.raw(), 198);
        assert_eq!(RenderStateType::Wrap15.raw(), 205);
        assert_eq!(
            RenderStateType::SceneCapture.name(),
            "D3DRENDERSTATE_SCENECAPTURE"
        );
        assert_eq!(RenderStateType::EdgeAntialias.name(), "D3DRS_EDGEANTIALIAS");
        assert_eq!(RenderStateType::PositionDegree.raw(), 172);
        for missing in [0, 63, 96, 127, 149, 150, 177, 210, 255, 256] {
            assert_eq!(RenderStateType::from_raw(missing), None, "{missing}");
        }
    }

    #[test]
    fn both_prefixes_and_bare_names_parse() {
        for name in [
            "ZENABLE",
            "D3DRS_ZENABLE",
            "D3DRENDERSTATE_ZENABLE",
            "zenable",
        ] {
            assert_eq!(
                RenderStateType::from_name(name),
                Some(RenderStateType::ZEnable),
                "{name}"
            );
        }
        let cases = [
            (
                "D3DRENDERSTATE_BLENDENABLE",
                RenderStateType::AlphaBlendEnable,
            ),
            ("BLENDENABLE", RenderStateType::AlphaBlendEnable),
            ("D3DRENDERSTATE_FOGTABLESTART", RenderStateType::FogStart),
            ("FOGTABLEDENSITY", RenderStateType::FogDensity),
            ("D3DRS_POSITIONORDER", RenderStateType::PositionDegree),
            ("NORMALORDER", RenderStateType::NormalDegree),
            ("D3DRENDERSTATE_WRAPBIAS", RenderStateType::Wrap0),
            ("WRAPBIAS", RenderStateType::Wrap0),
            ("TEXTUREHANDLE", RenderStateType::TextureHandle),
            ("D3DRS_TEXTUREHANDLE", RenderStateType::TextureHandle),
            (
                "D3DRENDERSTATE_TEXTUREHANDLE",
                RenderStateType::TextureHandle,
            ),
            ("STIPPLEPATTERN17", RenderStateType::StipplePattern17),
            ("D3DRS_WRAP15", RenderStateType::Wrap15),
            ("DELETERTPATCH", RenderStateType::DeleteRtPatch),
            ("D3DRENDERSTATE_POINTSIZE", RenderStateType::PointSize),
            ("d3drs_blendopalpha", RenderStateType::BlendOpAlpha),
        ];
        for (name, state) in cases {
            assert_eq!(RenderStateType::from_name(name), Some(state), "{name}");
        }
        assert_eq!(RenderStateType::from_name("D3DRS_"), None);
        assert_eq!(RenderStateType::from_name("WRAP16"), None);
    }

    #[test]
    fn value_kinds() {
        use crate::ddi_enum::ValueKind as K;
        let enum_name = |s: u32| match render_state_value_kind(s) {
            K::Enum(t) => t.type_name,
            other => panic!("state {s}: {other:?}"),
        };
        assert_eq!(enum_name(7), "D3DZBUFFERTYPE");
        assert_eq!(enum_name(8), "D3DFILLMODE");
        assert_eq!(enum_name(17), "D3DTEXTUREFILTER");
        assert_eq!(enum_name(23), "D3DCMPFUNC");
        assert_eq!(enum_name(151), "D3DVERTEXBLENDFLAGS");
        assert_eq!(enum_name(172), "D3DDEGREETYPE");
        assert_eq!(enum_name(209), "D3DBLENDOP");
        assert!(matches!(render_state_value_kind(14), K::Bool));
        assert!(matches!(render_state_value_kind(36), K::Float));
        assert!(matches!(render_state_value_kind(34), K::Color));
        assert!(matches!(render_state_value_kind(1), K::Handle));
        assert!(matches!(render_state_value_kind(169), K::Handle));
        assert!(matches!(render_state_value_kind(24), K::Dword));
        assert!(matches!(render_state_value_kind(58), K::Hex));
        assert!(matches!(render_state_value_kind(63), K::Hex));
        assert!(matches!(render_state_value_kind(1000), K::Hex));
        assert!(matches!(render_state_value_kind(128), K::Flags(t) if t.type_name == "D3DWRAP"));
        assert!(matches!(render_state_value_kind(205), K::Flags(t) if t.type_name == "D3DWRAP"));
        assert!(
            matches!(render_state_value_kind(192), K::Flags(t) if t.type_name == "D3DCOLORWRITEENABLE")
        );
        assert!(
            matches!(render_state_value_kind(152), K::Flags(t) if t.type_name == "D3DCLIPPLANE")
        );
        // Every state has a kind, and every value of every kind survives the text form.
        for s in RenderStateType::ALL {
            let kind = render_state_value_kind(s.raw());
            for raw in [0u32, 1, 2, 3, 5, 0xFF, 0x100, 0x3F80_0000, 0xFFFF_FFFF] {
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
