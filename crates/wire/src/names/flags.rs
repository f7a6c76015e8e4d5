//! Flag tables (`D3DCLEAR_*`, `D3DHALDP2_*`, `D3DWRAP*`, `DDPF_*`, ...) and
//! the printers/parsers of the three texture-stage encodings that mix a
//! field with flags: `D3DTA_*` arguments, `D3DTSS_TCI_*` coordinate indices
//! and `D3DTTFF_*` transform flags.
//!
//! In: a raw DWORD mask. Out: `NAME|NAME|0xREST` text via
//! [`FlagsTable::format`] or the dedicated `format_*` functions, and back via
//! [`super::parse_value`] / the `parse_*` functions. Guarantee: for every
//! `u32`, parsing the printed text gives the same value back (tested).

use super::values::{TexCoordIndexMode, TextureArg};
use crate::ddi_enum::{CustomKind, FlagsTable};
pub use softhal_types::flags::{CLIP_PLANE_FLAGS, COLOR_WRITE_FLAGS, WRAP_FLAGS};
use softhal_types::stage_values::{
    D3DTA_ALPHAREPLICATE, D3DTA_COMPLEMENT, D3DTA_SELECTMASK, D3DTTFF_PROJECTED,
};

/// `D3DCLEAR_*`: `dwFlags` of `D3DHAL_DP2CLEAR` / `D3DHAL_CLEAR2DATA`.
pub static CLEAR_FLAGS: FlagsTable = FlagsTable {
    type_name: "D3DCLEAR",
    prefix: "D3DCLEAR_",
    entries: &[
        (0x1, "D3DCLEAR_TARGET"),
        (0x2, "D3DCLEAR_ZBUFFER"),
        (0x4, "D3DCLEAR_STENCIL"),
        (0x8, "D3DCLEAR_COMPUTERECTS"),
    ],
};

/// `D3DHALDP2_*`: `dwFlags` of `D3DHAL_DRAWPRIMITIVES2DATA`.
pub static DP2_FLAGS: FlagsTable = FlagsTable {
    type_name: "D3DHALDP2",
    prefix: "D3DHALDP2_",
    entries: &[
        (0x1, "D3DHALDP2_USERMEMVERTICES"),
        (0x2, "D3DHALDP2_EXECUTEBUFFER"),
        (0x4, "D3DHALDP2_SWAPVERTEXBUFFER"),
        (0x8, "D3DHALDP2_SWAPCOMMANDBUFFER"),
        (0x10, "D3DHALDP2_REQVERTEXBUFSIZE"),
        (0x20, "D3DHALDP2_REQCOMMANDBUFSIZE"),
        (0x40, "D3DHALDP2_VIDMEMVERTEXBUF"),
        (0x80, "D3DHALDP2_VIDMEMCOMMANDBUF"),
    ],
};

/// `D3DISSUE_*`: `dwFlags` of `D3DHAL_DP2ISSUEQUERY`.
pub static ISSUE_FLAGS: FlagsTable = FlagsTable {
    type_name: "D3DISSUE",
    prefix: "D3DISSUE_",
    entries: &[(0x1, "D3DISSUE_END"), (0x2, "D3DISSUE_BEGIN")],
};

/// `RTPATCHFLAG_*`: `Flags` of DRAWRECTPATCH / DRAWTRIPATCH.
pub static RTPATCH_FLAGS: FlagsTable = FlagsTable {
    type_name: "RTPATCHFLAG",
    prefix: "RTPATCHFLAG_",
    entries: &[(0x1, "RTPATCHFLAG_HASSEGS"), (0x2, "RTPATCHFLAG_HASINFO")],
};

/// `DP2BLT_*`: `Flags` of `D3DHAL_DP2BLT`.
pub static DP2BLT_FLAGS: FlagsTable = FlagsTable {
    type_name: "DP2BLT",
    prefix: "DP2BLT_",
    entries: &[(0x1, "DP2BLT_POINT"), (0x2, "DP2BLT_LINEAR")],
};

/// `D3DTRIFLAG_EDGEENABLE*`: edge flags in `wFlags` of
/// `D3DHAL_DP2INDEXEDTRIANGLELIST` (and in `dwEdgeFlags`). The legacy
/// strip/fan markers in the low bits print as hex.
pub static TRIFLAG_FLAGS: FlagsTable = FlagsTable {
    type_name: "D3DTRIFLAG",
    prefix: "D3DTRIFLAG_",
    entries: &[
        (0x100, "D3DTRIFLAG_EDGEENABLE1"),
        (0x200, "D3DTRIFLAG_EDGEENABLE2"),
        (0x400, "D3DTRIFLAG_EDGEENABLE3"),
    ],
};

/// `D3DTA_COMPLEMENT` / `D3DTA_ALPHAREPLICATE`: modifiers ORed onto a
/// [`TextureArg`] selector.
pub static TEXTURE_ARG_MODIFIER_FLAGS: FlagsTable = FlagsTable {
    type_name: "D3DTA",
    prefix: "D3DTA_",
    entries: &[
        (D3DTA_COMPLEMENT, "D3DTA_COMPLEMENT"),
        (D3DTA_ALPHAREPLICATE, "D3DTA_ALPHAREPLICATE"),
    ],
};

/// `D3DTTFF_*` names for parsing (`DISABLE` 0, `COUNT1..4` 1..4, `PROJECTED`
/// 0x100). The count is a field, not flags: print with [`format_ttff`].
pub static TTFF_FLAGS: FlagsTable = FlagsTable {
    type_name: "D3DTTFF",
    prefix: "D3DTTFF_",
    entries: &[
        (D3DTTFF_PROJECTED, "D3DTTFF_PROJECTED"),
        (4, "D3DTTFF_COUNT4"),
        (3, "D3DTTFF_COUNT3"),
        (2, "D3DTTFF_COUNT2"),
        (1, "D3DTTFF_COUNT1"),
        (0, "D3DTTFF_DISABLE"),
    ],
};

/// `DDPF_*`: `dwFlags` of `DDPIXELFORMAT`.
pub static DDPF_FLAGS: FlagsTable = FlagsTable {
    type_name: "DDPF",
    prefix: "DDPF_",
    entries: &[
        (0x1, "DDPF_ALPHAPIXELS"),
        (0x2, "DDPF_ALPHA"),
        (0x4, "DDPF_FOURCC"),
        (0x8, "DDPF_PALETTEINDEXED4"),
        (0x10, "DDPF_PALETTEINDEXEDTO8"),
        (0x20, "DDPF_PALETTEINDEXED8"),
        (0x40, "DDPF_RGB"),
        (0x80, "DDPF_COMPRESSED"),
        (0x100, "DDPF_RGBTOYUV"),
        (0x200, "DDPF_YUV"),
        (0x400, "DDPF_ZBUFFER"),
        (0x800, "DDPF_PALETTEINDEXED1"),
        (0x1000, "DDPF_PALETTEINDEXED2"),
        (0x2000, "DDPF_ZPIXELS"),
        (0x4000, "DDPF_STENCILBUFFER"),
        (0x8000, "DDPF_ALPHAPREMULT"),
        (0x2_0000, "DDPF_LUMINANCE"),
        (0x4_0000, "DDPF_BUMPLUMINANCE"),
        (0x8_0000, "DDPF_BUMPDUDV"),
        (0x10_0000, "DDPF_NOVEL_TEXTURE_FORMAT"),
        (0x20_0000, "DDPF_D3DFORMAT"),
    ],
};

/// `D3DFORMAT_OP_*` (and `D3DFORMAT_MEMBEROFGROUP_ARGB`): `dwOperations` of a
/// DX8+ format-list entry.
pub static FORMAT_OP_FLAGS: FlagsTable = FlagsTable {
    type_name: "D3DFORMAT_OP",
    prefix: "D3DFORMAT_OP_",
    entries: &[
        (0x1, "D3DFORMAT_OP_TEXTURE"),
        (0x2, "D3DFORMAT_OP_VOLUMETEXTURE"),
        (0x4, "D3DFORMAT_OP_CUBETEXTURE"),
        (0x8, "D3DFORMAT_OP_OFFSCREEN_RENDERTARGET"),
        (0x10, "D3DFORMAT_OP_SAME_FORMAT_RENDERTARGET"),
        (0x40, "D3DFORMAT_OP_ZSTENCIL"),
        (0x80, "D3DFORMAT_OP_ZSTENCIL_WITH_ARBITRARY_COLOR_DEPTH"),
        (0x100, "D3DFORMAT_OP_SAME_FORMAT_UP_TO_ALPHA_RENDERTARGET"),
        (0x400, "D3DFORMAT_OP_DISPLAYMODE"),
        (0x800, "D3DFORMAT_OP_3DACCELERATION"),
        (0x1000, "D3DFORMAT_OP_PIXELSIZE"),
        (0x2000, "D3DFORMAT_OP_CONVERT_TO_ARGB"),
        (0x4000, "D3DFORMAT_OP_OFFSCREENPLAIN"),
        (0x8000, "D3DFORMAT_OP_SRGBREAD"),
        (0x1_0000, "D3DFORMAT_OP_BUMPMAP"),
        (0x2_0000, "D3DFORMAT_OP_DMAP"),
        (0x4_0000, "D3DFORMAT_OP_NOFILTER"),
        (0x8_0000, "D3DFORMAT_MEMBEROFGROUP_ARGB"),
        (0x10_0000, "D3DFORMAT_OP_SRGBWRITE"),
        (0x20_0000, "D3DFORMAT_OP_NOALPHABLEND"),
        (0x40_0000, "D3DFORMAT_OP_AUTOGENMIPMAP"),
        (0x80_0000, "D3DFORMAT_OP_VERTEXTEXTURE"),
        (0x100_0000, "D3DFORMAT_OP_NOTEXCOORDWRAPNORMIP"),
    ],
};

/// `D3DHAL_ROW_WEIGHTS` / `D3DHAL_COL_WEIGHTS`: `dwFlags` of
/// `D3DHAL_DP2SETCONVOLUTIONKERNELMONO`.
pub static CONVOLUTION_FLAGS: FlagsTable = FlagsTable {
    type_name: "D3DHAL_CONVOLUTIONKERNEL",
    prefix: "D3DHAL_",
    entries: &[(0x1, "D3DHAL_ROW_WEIGHTS"), (0x2, "D3DHAL_COL_WEIGHTS")],
};

/// `DDRAWIPAL_*`: `dwPaletteFlags` of `D3DHAL_DP2SETPALETTE` (only
/// `DDRAWIPAL_ALPHA` is meaningful to a driver). Short forms such as `16`
/// are numbers, so the names must be written in full when parsing.
pub static PALETTE_FLAGS: FlagsTable = FlagsTable {
    type_name: "DDRAWIPAL",
    prefix: "DDRAWIPAL_",
    entries: &[
        (0x1, "DDRAWIPAL_256"),
        (0x2, "DDRAWIPAL_16"),
        (0x4, "DDRAWIPAL_GDI"),
        (0x8, "DDRAWIPAL_STORED_8"),
        (0x10, "DDRAWIPAL_STORED_16"),
        (0x20, "DDRAWIPAL_STORED_24"),
        (0x40, "DDRAWIPAL_EXCLUSIVE"),
        (0x80, "DDRAWIPAL_INHEL"),
        (0x100, "DDRAWIPAL_DIRTY"),
        (0x200, "DDRAWIPAL_ALLOW256"),
        (0x400, "DDRAWIPAL_4"),
        (0x800, "DDRAWIPAL_2"),
        (0x1000, "DDRAWIPAL_STORED_8INDEX"),
        (0x2000, "DDRAWIPAL_ALPHA"),
    ],
};

/// `D3DSTREAMSOURCE_*`: API-level flag bits of a stream-frequency divider.
pub static STREAM_SOURCE_FLAGS: FlagsTable = FlagsTable {
    type_name: "D3DSTREAMSOURCE",
    prefix: "D3DSTREAMSOURCE_",
    entries: &[
        (0x4000_0000, "D3DSTREAMSOURCE_INDEXEDDATA"),
        (0x8000_0000, "D3DSTREAMSOURCE_INSTANCEDATA"),
    ],
};

/// Both `D3DTA_*` modifier bits.
const TA_MODIFIER_MASK: u32 = D3DTA_COMPLEMENT | D3DTA_ALPHAREPLICATE;

/// Prints a texture argument as `SELECTOR[|MODIFIER...][|0xREST]`, e.g.
/// `D3DTA_TEXTURE|D3DTA_COMPLEMENT`. The selector is always printed (0 is
/// `D3DTA_DIFFUSE`); selectors 7..15 print as hex.
pub fn format_texture_arg(value: u32) -> String {
    let selector = value & D3DTA_SELECTMASK;
    let mut parts = vec![match TextureArg::from_raw(selector) {
        Some(arg) => arg.name().to_string(),
        None => format!("{selector:#x}"),
    }];
    let modifiers = value & TA_MODIFIER_MASK;
    if modifiers != 0 {
        parts.push(TEXTURE_ARG_MODIFIER_FLAGS.format(modifiers));
    }
    let rest = value & !(D3DTA_SELECTMASK | TA_MODIFIER_MASK);
    if rest != 0 {
        parts.push(format!("{rest:#x}"));
    }
    parts.join("|")
}

/// Parses a texture argument: `|`-joined selector names, modifier names and
/// numbers (prefix `D3DTA_` optional).
pub fn parse_texture_arg(text: &str) -> Option<u32> {
    super::parse_or_list(text, |token| {
        TextureArg::TABLE
            .value_of(token)
            .or_else(|| TEXTURE_ARG_MODIFIER_FLAGS.value_of(token))
    })
}

/// Prints a `D3DTSS_TEXCOORDINDEX` value: the coordinate-set index (bits
/// 15:0) in decimal, preceded by the `D3DTSS_TCI_*` mode when it is not
/// PASSTHRU, e.g. `D3DTSS_TCI_CAMERASPACENORMAL|1`.
pub fn format_texcoord_index(value: u32) -> String {
    let index = value & 0xFFFF;
    let mode = value & 0xFFFF_0000;
    if mode == 0 {
        return index.to_string();
    }
    let mode = match TexCoordIndexMode::from_raw(mode) {
        Some(m) => m.name().to_string(),
        None => format!("{mode:#x}"),
    };
    format!("{mode}|{index}")
}

/// Parses a `D3DTSS_TEXCOORDINDEX` value: `|`-joined `D3DTSS_TCI_*` names
/// (prefix optional) and numbers.
pub fn parse_texcoord_index(text: &str) -> Option<u32> {
    super::parse_or_list(text, |token| TexCoordIndexMode::TABLE.value_of(token))
}

/// Prints a `D3DTSS_TEXTURETRANSFORMFLAGS` value: `D3DTTFF_COUNTn` for the
/// count field (bits 7:0), `D3DTTFF_PROJECTED`, other bits in hex;
/// `D3DTTFF_DISABLE` for 0.
pub fn format_ttff(value: u32) -> String {
    let count = value & 0xFF;
    let mut parts = Vec::new();
    match count {
        0 => {}
        1..=4 => parts.push(format!("D3DTTFF_COUNT{count}")),
        _ => parts.push(format!("{count:#x}")),
    }
    if value & D3DTTFF_PROJECTED != 0 {
        parts.push("D3DTTFF_PROJECTED".to_string());
    }
    let rest = value & !(D3DTTFF_PROJECTED | 0xFF);
    if rest != 0 {
        parts.push(format!("{rest:#x}"));
    }
    if parts.is_empty() {
        return "D3DTTFF_DISABLE".to_string();
    }
    parts.join("|")
}

/// Parses a `D3DTSS_TEXTURETRANSFORMFLAGS` value: `|`-joined `D3DTTFF_*`
/// names (prefix optional) and numbers.
pub fn parse_ttff(text: &str) -> Option<u32> {
    super::parse_or_list(text, |token| TTFF_FLAGS.value_of(token))
}

/// [`crate::ddi_enum::ValueKind::Custom`] encoding of texture arguments.
pub static TEXTURE_ARG_KIND: CustomKind = CustomKind {
    name: "D3DTA",
    format: format_texture_arg,
    parse: parse_texture_arg,
};

/// [`crate::ddi_enum::ValueKind::Custom`] encoding of `D3DTSS_TEXCOORDINDEX`.
pub static TEXCOORD_INDEX_KIND: CustomKind = CustomKind {
    name: "D3DTSS_TCI",
    format: format_texcoord_index,
    parse: parse_texcoord_index,
};

/// [`crate::ddi_enum::ValueKind::Custom`] encoding of `D3DTSS_TEXTURETRANSFORMFLAGS`.
pub static TTFF_KIND: CustomKind = CustomKind {
    name: "D3DTTFF",
    format: format_ttff,
    parse: parse_ttff,
};

/// Every flag table of this module (for tests and tools).
pub static ALL_FLAG_TABLES: &[&FlagsTable] = &[
    &CLEAR_FLAGS,
    &DP2_FLAGS,
    &WRAP_FLAGS,
    &COLOR_WRITE_FLAGS,
    &CLIP_PLANE_FLAGS,
    &ISSUE_FLAGS,
    &RTPATCH_FLAGS,
    &DP2BLT_FLAGS,
    &TRIFLAG_FLAGS,
    &TEXTURE_ARG_MODIFIER_FLAGS,
    &TTFF_FLAGS,
    &DDPF_FLAGS,
    &FORMAT_OP_FLAGS,
    &CONVOLUTION_FLAGS,
    &PALETTE_FLAGS,
    &STREAM_SOURCE_FLAGS,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ddi_enum::ValueKind;
    use proptest::prelude::*;

    #[test]
    fn flag_tables_are_consistent() {
        for table in ALL_FLAG_TABLES {
            super::super::tests::check_flags_table(table);
        }
    }

    #[test]
    fn spot_checks() {
        assert_eq!(
            CLEAR_FLAGS.format(0x7),
            "D3DCLEAR_TARGET|D3DCLEAR_ZBUFFER|D3DCLEAR_STENCIL"
        );
        assert_eq!(CLEAR_FLAGS.value_of("COMPUTERECTS"), Some(8));
        assert_eq!(DP2_FLAGS.value_of("D3DHALDP2_VIDMEMCOMMANDBUF"), Some(0x80));
        assert_eq!(
            WRAP_FLAGS.format(0xF),
            "D3DWRAP_U|D3DWRAP_V|D3DWRAP_W|D3DWRAPCOORD_3"
        );
        assert_eq!(WRAP_FLAGS.value_of("D3DWRAPCOORD_1"), Some(2));
        assert_eq!(WRAP_FLAGS.value_of("u"), Some(1));
        assert_eq!(CLIP_PLANE_FLAGS.format(0x41), "D3DCLIPPLANE0|0x40");
        assert_eq!(DDPF_FLAGS.entries.len(), 21);
        assert_eq!(FORMAT_OP_FLAGS.entries.len(), 23);
        assert_eq!(
            FORMAT_OP_FLAGS.value_of("D3DFORMAT_MEMBEROFGROUP_ARGB"),
            Some(0x8_0000)
        );
        assert_eq!(
            TRIFLAG_FLAGS.format(0x31E),
            "D3DTRIFLAG_EDGEENABLE1|D3DTRIFLAG_EDGEENABLE2|0x1e"
        );
    }

    #[test]
    fn texture_args() {
        assert_eq!(format_texture_arg(0), "D3DTA_DIFFUSE");
        assert_eq!(format_texture_arg(0x12), "D3DTA_TEXTURE|D3DTA_COMPLEMENT");
        assert_eq!(
            format_texture_arg(0x33),
            "D3DTA_TFACTOR|D3DTA_COMPLEMENT|D3DTA_ALPHAREPLICATE"
        );
        assert_eq!(format_texture_arg(0x7), "0x7");
        assert_eq!(format_texture_arg(0x105), "D3DTA_TEMP|0x100");
        assert_eq!(
            parse_texture_arg("D3DTA_TEXTURE | D3DTA_COMPLEMENT"),
            Some(0x12)
        );
        assert_eq!(parse_texture_arg("texture|alphareplicate"), Some(0x22));
        assert_eq!(parse_texture_arg("D3DTA_CONSTANT"), Some(6));
        assert_eq!(parse_texture_arg("D3DTA_NOPE"), None);
        assert_eq!(parse_texture_arg(""), None);
        assert_eq!(parse_texture_arg("D3DTA_TEXTURE|"), None);
    }

    #[test]
    fn texcoord_indices() {
        assert_eq!(format_texcoord_index(0), "0");
        assert_eq!(format_texcoord_index(3), "3");
        assert_eq!(
            format_texcoord_index(0x10001),
            "D3DTSS_TCI_CAMERASPACENORMAL|1"
        );
        assert_eq!(format_texcoord_index(0x40000), "D3DTSS_TCI_SPHEREMAP|0");
        assert_eq!(format_texcoord_index(0x50002), "0x50000|2");
        assert_eq!(
            parse_texcoord_index("CAMERASPACEREFLECTIONVECTOR|2"),
            Some(0x30002)
        );
        assert_eq!(parse_texcoord_index("D3DTSS_TCI_PASSTHRU|7"), Some(7));
    }

    #[test]
    fn ttff() {
        assert_eq!(format_ttff(0), "D3DTTFF_DISABLE");
        assert_eq!(format_ttff(2), "D3DTTFF_COUNT2");
        assert_eq!(format_ttff(0x103), "D3DTTFF_COUNT3|D3DTTFF_PROJECTED");
        assert_eq!(format_ttff(0x100), "D3DTTFF_PROJECTED");
        assert_eq!(format_ttff(0x5), "0x5");
        assert_eq!(parse_ttff("COUNT4|PROJECTED"), Some(0x104));
        assert_eq!(parse_ttff("D3DTTFF_DISABLE"), Some(0));
    }

    proptest! {
        #[test]
        fn custom_encodings_round_trip(v in any::<u32>()) {
            for kind in [&TEXTURE_ARG_KIND, &TEXCOORD_INDEX_KIND, &TTFF_KIND] {
                let text = (kind.format)(v);
                prop_assert_eq!((kind.parse)(&text), Some(v), "{}: {}", kind.name, text);
            }
        }

        #[test]
        fn small_custom_values_round_trip(v in 0u32..0x200) {
            for kind in [&TEXTURE_ARG_KIND, &TEXCOORD_INDEX_KIND, &TTFF_KIND] {
                let text = (kind.format)(v);
                prop_assert_eq!((kind.parse)(&text), Some(v), "{}: {}", kind.name, text);
            }
        }

        #[test]
        fn flag_tables_round_trip(v in any::<u32>()) {
            for table in ALL_FLAG_TABLES {
                let kind = ValueKind::Flags(table);
                let text = super::super::format_value(kind, v);
                prop_assert_eq!(super::super::parse_value(kind, &text), Some(v), "{}: {}", table.type_name, text);
            }
        }
    }
}
