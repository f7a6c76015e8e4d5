//! `D3DFVF_*` names: printing and parsing flexible-vertex-format codes.
//!
//! In: an FVF DWORD (`dwVertexType`, SETVERTEXSHADER / SETVERTEXSHADERDECL
//! handles with the FVF meaning). Out: text such as
//! `D3DFVF_XYZRHW|D3DFVF_DIFFUSE|D3DFVF_TEX1|D3DFVF_TEXCOORDSIZE1(0)` from
//! [`format_fvf`], and back via [`parse_fvf`]. An FVF is not a plain flag
//! mask: the position type is a field (`D3DFVF_POSITION_MASK` 0x400E), the
//! texture-set count is a field (bits 11:8) and each set has a 2-bit size
//! code (bits 16+2i..17+2i). Guarantee: `parse_fvf(&format_fvf(v)) == Some(v)`
//! for every `u32` (bits without a name are printed as a hex remainder).

use crate::ddi_enum::{CustomKind, FlagsTable};

softhal_types::ddi_enum! {
    /// The position field of an FVF (`fvf & D3DFVF_POSITION_MASK`).
    pub enum FvfPosition: u32 = "D3DFVF_POSITION", prefix "D3DFVF_" {
        /// 3 floats.
        Xyz = 0x2 => "D3DFVF_XYZ",
        /// 4 floats (x, y, z, 1/w), pre-transformed.
        XyzRhw = 0x4 => "D3DFVF_XYZRHW",
        /// xyz + 1 blend value.
        XyzB1 = 0x6 => "D3DFVF_XYZB1",
        /// xyz + 2 blend values.
        XyzB2 = 0x8 => "D3DFVF_XYZB2",
        /// xyz + 3 blend values.
        XyzB3 = 0xA => "D3DFVF_XYZB3",
        /// xyz + 4 blend values.
        XyzB4 = 0xC => "D3DFVF_XYZB4",
        /// xyz + 5 blend values.
        XyzB5 = 0xE => "D3DFVF_XYZB5",
        /// DX9: 4 floats x, y, z, w (untransformed).
        XyzW = 0x4002 => "D3DFVF_XYZW",
    }
}

/// `D3DFVF_POSITION_MASK` (DX9 value, includes the XYZW bit).
pub const D3DFVF_POSITION_MASK: u32 = 0x400E;
/// `D3DFVF_TEXCOUNT_MASK`.
pub const D3DFVF_TEXCOUNT_MASK: u32 = 0xF00;
/// `D3DFVF_TEXCOUNT_SHIFT`.
pub const D3DFVF_TEXCOUNT_SHIFT: u32 = 8;
/// `D3DDP_MAXTEXCOORD`: texture-coordinate sets an FVF can describe.
pub const D3DDP_MAXTEXCOORD: u32 = 8;

/// The single-bit `D3DFVF_*` flags (everything but the position, count and
/// size fields). `D3DFVF_RESERVED1` is the DX6/7 name of the PSIZE bit and
/// parses too.
pub static FVF_FLAGS: FlagsTable = FlagsTable {
    type_name: "D3DFVF",
    prefix: "D3DFVF_",
    entries: &[
        (0x10, "D3DFVF_NORMAL"),
        (0x20, "D3DFVF_PSIZE"),
        (0x40, "D3DFVF_DIFFUSE"),
        (0x80, "D3DFVF_SPECULAR"),
        (0x2000, "D3DFVF_FOG"),
        (0x1000, "D3DFVF_LASTBETA_UBYTE4"),
        (0x8000, "D3DFVF_LASTBETA_D3DCOLOR"),
        (0x1, "D3DFVF_RESERVED0"),
        (0x20, "D3DFVF_RESERVED1"),
    ],
};

/// Predefined vertex types accepted by [`parse_fvf`] (never printed).
const FVF_COMBINED: &[(u32, &str)] = &[(0x112, "VERTEX"), (0x1E2, "LVERTEX"), (0x1C4, "TLVERTEX")];

/// The number of floats of texture set `set` encoded in `fvf`'s size code
/// (1..=4; 2 when the code is 0).
pub const fn texcoord_size(fvf: u32, set: u32) -> u32 {
    match (fvf >> texcoord_shift(set)) & 3 {
        0 => 2,
        1 => 3,
        2 => 4,
        _ => 1,
    }
}

/// The bit position of texture set `set`'s two-bit size code: 16 + 2 × (set
/// mod 8), composed with bit operations (16 | 2 × (set & 7), at most 30).
const fn texcoord_shift(set: u32) -> u32 {
    16 | ((set & 7) << 1)
}

/// The size code of `floats` floats (1..=4) for `D3DFVF_TEXCOORDSIZEn`.
const fn size_code(floats: u32) -> Option<u32> {
    match floats {
        1 => Some(3),
        2 => Some(0),
        3 => Some(1),
        4 => Some(2),
        _ => None,
    }
}

/// Prints an FVF: position name, flags, `D3DFVF_TEXn`, then
/// `D3DFVF_TEXCOORDSIZEk(i)` for every set whose size code is not the
/// default 2 floats (also for sets beyond the count, so nothing is lost),
/// then any bits without a name in hex. 0 prints as `0`.
pub fn format_fvf(fvf: u32) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut rest = fvf;
    if let Some(pos) = FvfPosition::from_raw(fvf & D3DFVF_POSITION_MASK) {
        parts.push(pos.name().to_string());
        rest &= !D3DFVF_POSITION_MASK;
    }
    for &(bits, name) in FVF_FLAGS.entries.iter().take(7) {
        if rest & bits != 0 {
            parts.push(name.to_string());
            rest &= !bits;
        }
    }
    let count = (fvf & D3DFVF_TEXCOUNT_MASK) >> D3DFVF_TEXCOUNT_SHIFT;
    if (1..=D3DDP_MAXTEXCOORD).contains(&count) {
        parts.push(format!("D3DFVF_TEX{count}"));
        rest &= !D3DFVF_TEXCOUNT_MASK;
    }
    for set in 0..8 {
        let shift = texcoord_shift(set);
        if (fvf >> shift) & 3 != 0 {
            parts.push(format!(
                "D3DFVF_TEXCOORDSIZE{}({set})",
                texcoord_size(fvf, set)
            ));
            rest &= !(3 << shift);
        }
    }
    if rest & 0x1 != 0 {
        parts.push("D3DFVF_RESERVED0".to_string());
        rest &= !0x1;
    }
    if rest != 0 {
        parts.push(format!("{rest:#x}"));
    }
    if parts.is_empty() {
        return "0".to_string();
    }
    parts.join("|")
}

/// Parses one FVF token (prefix `D3DFVF_` optional, case-insensitive).
fn parse_fvf_token(token: &str) -> Option<u32> {
    if let Some(v) = FvfPosition::TABLE
        .value_of(token)
        .or_else(|| FVF_FLAGS.value_of(token))
    {
        return Some(v);
    }
    let short = super::strip_prefix_ci(token, "D3DFVF_").unwrap_or(token);
    if let Some(&(v, _)) = FVF_COMBINED
        .iter()
        .find(|(_, n)| n.eq_ignore_ascii_case(short))
    {
        return Some(v);
    }
    if let Some(args) = super::strip_prefix_ci(short, "TEXCOORDSIZE") {
        let (floats, set) = args.strip_suffix(')')?.split_once('(')?;
        let code = size_code(super::parse_number(floats)?)?;
        let set = super::parse_number(set)?;
        return (set < 8).then(|| code << texcoord_shift(set));
    }
    if let Some(n) = super::strip_prefix_ci(short, "TEX") {
        let n = super::parse_number(n)?;
        return (n <= D3DDP_MAXTEXCOORD).then_some(n << D3DFVF_TEXCOUNT_SHIFT);
    }
    None
}

/// Parses an FVF: `|`-joined `D3DFVF_*` names (position, flags, `TEXn`,
/// `TEXCOORDSIZEk(i)`, `VERTEX`/`LVERTEX`/`TLVERTEX`), decimal and hex
/// numbers. Everything is ORed together.
pub fn parse_fvf(text: &str) -> Option<u32> {
    super::parse_or_list(text, parse_fvf_token)
}

/// [`crate::ddi_enum::ValueKind::Custom`] encoding of FVF codes.
pub static FVF_KIND: CustomKind = CustomKind {
    name: "D3DFVF",
    format: format_fvf,
    parse: parse_fvf,
};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn position_table() {
        check_ddi_enum!(FvfPosition);
        super::super::tests::check_flags_table(&FVF_FLAGS);
    }

    #[test]
    fn known_formats() {
        assert_eq!(
            format_fvf(0x1C4),
            "D3DFVF_XYZRHW|D3DFVF_DIFFUSE|D3DFVF_SPECULAR|D3DFVF_TEX1"
        );
        assert_eq!(format_fvf(0x112), "D3DFVF_XYZ|D3DFVF_NORMAL|D3DFVF_TEX1");
        assert_eq!(
            format_fvf(0x1C4 | 0x3_0000),
            "D3DFVF_XYZRHW|D3DFVF_DIFFUSE|D3DFVF_SPECULAR|D3DFVF_TEX1|D3DFVF_TEXCOORDSIZE1(0)"
        );
        assert_eq!(
            format_fvf(0x4002 | 0x200 | (2 << 18)),
            "D3DFVF_XYZW|D3DFVF_TEX2|D3DFVF_TEXCOORDSIZE4(1)"
        );
        assert_eq!(format_fvf(0), "0");
        assert_eq!(format_fvf(0x2000 | 0x4), "D3DFVF_XYZRHW|D3DFVF_FOG");
        assert_eq!(format_fvf(0x4004), "0x4004");
        assert_eq!(format_fvf(0xF00), "0xf00");
        assert_eq!(format_fvf(0x1), "D3DFVF_RESERVED0");
        assert_eq!(parse_fvf("D3DFVF_TLVERTEX"), Some(0x1C4));
        assert_eq!(parse_fvf("LVERTEX"), Some(0x1E2));
        assert_eq!(parse_fvf("xyz|normal|tex1"), Some(0x112));
        assert_eq!(parse_fvf("0x1c4"), Some(0x1C4));
        assert_eq!(parse_fvf("452"), Some(0x1C4));
        assert_eq!(
            parse_fvf("D3DFVF_XYZ | D3DFVF_TEXCOORDSIZE3(7) | D3DFVF_TEX8"),
            Some(0x802 | (1 << 30))
        );
        assert_eq!(parse_fvf("D3DFVF_TEXCOORDSIZE2(3)"), Some(0));
        assert_eq!(parse_fvf("D3DFVF_TEXCOORDSIZE5(0)"), None);
        assert_eq!(parse_fvf("D3DFVF_TEXCOORDSIZE1(8)"), None);
        assert_eq!(parse_fvf("D3DFVF_TEX9"), None);
        assert_eq!(parse_fvf("D3DFVF_RESERVED1"), Some(0x20));
        assert_eq!(parse_fvf("D3DFVF_BOGUS"), None);
        assert_eq!(parse_fvf(""), None);
        assert_eq!(texcoord_size(0x3_0000, 0), 1);
        assert_eq!(texcoord_size(0x3_0000, 1), 2);
    }

    #[test]
    fn many_fvfs_round_trip() {
        let positions = [0, 0x2, 0x4, 0x6, 0x8, 0xA, 0xC, 0xE, 0x4002, 0x4000, 0x4004];
        let flags = [
            0, 0x10, 0x20, 0x40, 0x80, 0xF0, 0x1000, 0x2000, 0x8000, 0x1, 0xB0F1,
        ];
        for pos in positions {
            for fl in flags {
                for count in 0..16u32 {
                    for sizes in [
                        0u32,
                        0x3_0000,
                        0xFFFF_0000,
                        0x0005_0000,
                        0x5555_0000,
                        0xAAAA_0000,
                    ] {
                        let v = pos | fl | (count << 8) | sizes;
                        let text = format_fvf(v);
                        assert_eq!(parse_fvf(&text), Some(v), "{v:#x}: {text}");
                    }
                }
            }
        }
    }

    proptest! {
        #[test]
        fn any_fvf_round_trips(v in any::<u32>()) {
            let text = format_fvf(v);
            prop_assert_eq!(parse_fvf(&text), Some(v), "{}", text);
        }
    }
}
