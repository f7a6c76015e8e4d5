//! `D3DFORMAT`: surface, buffer and depth formats (`D3DFMT_*`).
//!
//! In: a D3DFMT number (from a DX8+ format list, a `DDPF_D3DFORMAT` /
//! `DDPF_FOURCC` pixel format, ...). Out: [`Format`] (defined in
//! `softhal_types::format`, re-exported here), a closed enum of the 70
//! codes of the DX8/DX9 headers plus the DDI-only depth formats of
//! `d3dhal.h`; the `D3DFMT_INTERNAL_*` spellings are parse-only aliases.

pub use softhal_types::format::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_round_trips() {
        check_ddi_enum!(Format);
    }

    #[test]
    fn spot_checks() {
        assert_eq!(Format::ALL.len(), 70);
        assert_eq!(Format::Dxt1.raw(), 0x3154_5844);
        assert_eq!(Format::Dxt1.raw(), make_fourcc(b'D', b'X', b'T', b'1'));
        assert_eq!(Format::Uyvy.raw(), make_fourcc(b'U', b'Y', b'V', b'Y'));
        assert_eq!(
            Format::Multi2Argb8.raw(),
            make_fourcc(b'M', b'E', b'T', b'1')
        );
        assert_eq!(Format::G8R8G8B8.raw(), make_fourcc(b'G', b'R', b'G', b'B'));
        assert_eq!(Format::A8R8G8B8.raw(), 21);
        assert_eq!(Format::S8D24.raw(), 74);
        assert_eq!(Format::BinaryBuffer.raw(), 199);
        assert_eq!(
            Format::from_name("D3DFMT_INTERNAL_D24S8"),
            Some(Format::D24S8)
        );
        assert_eq!(Format::from_name("INTERNAL_S1D15"), Some(Format::S1D15));
        assert_eq!(Format::from_name("dxt5"), Some(Format::Dxt5));
        assert_eq!(
            Format::from_name("D3DFMT_G8R8_G8B8"),
            Some(Format::G8R8G8B8)
        );
        assert_eq!(Format::TABLE.aliases.len(), 7);
        assert!(Format::Yuy2.is_fourcc());
        assert!(!Format::A16B16G16R16F.is_fourcc());
        assert_eq!(Format::from_raw(D3DFMT_A1_SURFACE_MAXWIDTH), None);
    }
}
