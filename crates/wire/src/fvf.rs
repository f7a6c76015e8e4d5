//! Flexible vertex formats: `dwVertexType` → vertex size and field offsets.
//!
//! In: an FVF code (`D3DFVF_*` bits). Out: an [`FvfLayout`] with the stride
//! and the byte offset of every component, in the fixed DDK order
//! (position, blend weights, normal, point size, diffuse, specular, fog,
//! texture coordinates). Guarantee: an FVF this module accepts has a stride
//! of at most 4 + 32 + 12 + 4 + 4 + 4 + 4 + 8×16 bytes; an invalid code is an
//! [`FvfError`], never a panic. Rules: `docs/dp2-wire.md` §7.

use thiserror::Error;

/// `D3DFVF_RESERVED0`: must be zero.
pub const FVF_RESERVED0: u32 = 0x1;
/// `D3DFVF_POSITION_MASK` (DX9, includes the XYZW marker bit).
pub const FVF_POSITION_MASK: u32 = 0x400E;
/// `D3DFVF_XYZ`.
pub const FVF_XYZ: u32 = 0x2;
/// `D3DFVF_XYZRHW`.
pub const FVF_XYZRHW: u32 = 0x4;
/// `D3DFVF_XYZW`.
pub const FVF_XYZW: u32 = 0x4002;
/// `D3DFVF_NORMAL`.
pub const FVF_NORMAL: u32 = 0x10;
/// `D3DFVF_PSIZE` (DX6/7: `D3DFVF_RESERVED1`, the same 4-byte slot).
pub const FVF_PSIZE: u32 = 0x20;
/// `D3DFVF_DIFFUSE`.
pub const FVF_DIFFUSE: u32 = 0x40;
/// `D3DFVF_SPECULAR`.
pub const FVF_SPECULAR: u32 = 0x80;
/// `D3DFVF_TEXCOUNT_MASK`.
pub const FVF_TEXCOUNT_MASK: u32 = 0xF00;
/// `D3DFVF_TEXCOUNT_SHIFT`.
pub const FVF_TEXCOUNT_SHIFT: u32 = 8;
/// `D3DFVF_LASTBETA_UBYTE4`.
pub const FVF_LASTBETA_UBYTE4: u32 = 0x1000;
/// `D3DFVF_FOG` (DDI only: a separate float fog value).
pub const FVF_FOG: u32 = 0x2000;
/// `D3DFVF_LASTBETA_D3DCOLOR`.
pub const FVF_LASTBETA_D3DCOLOR: u32 = 0x8000;

/// What the position component is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PositionKind {
    /// No position (only legal for streams that do not draw).
    None,
    /// `D3DFVF_XYZ` (possibly with blend weights, `D3DFVF_XYZBn`).
    Xyz,
    /// `D3DFVF_XYZRHW`: pre-transformed.
    XyzRhw,
    /// `D3DFVF_XYZW`.
    Xyzw,
}

/// Where the last blend value holds matrix indices instead of a weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LastBeta {
    /// All blend values are float weights.
    Weight,
    /// `D3DFVF_LASTBETA_UBYTE4`: 4 unsigned byte indices.
    UByte4,
    /// `D3DFVF_LASTBETA_D3DCOLOR`: indices packed like a D3DCOLOR.
    D3dColor,
}

/// An FVF the rules reject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum FvfError {
    /// `D3DFVF_RESERVED0` is set.
    #[error("FVF {0:#x}: reserved bit 0 is set")]
    Reserved0(u32),
    /// The position field holds no defined value.
    #[error("FVF {0:#x}: position field {1:#x} is not a D3DFVF position type")]
    BadPosition(u32, u32),
    /// More than 8 texture-coordinate sets.
    #[error("FVF {0:#x}: {1} texture coordinate sets (at most 8)")]
    TooManyTexCoords(u32, u32),
    /// Both LASTBETA flags, or a LASTBETA flag without blend values.
    #[error("FVF {0:#x}: LASTBETA flags need blend values and exclude each other")]
    BadLastBeta(u32),
}

/// The byte layout of one vertex of an FVF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FvfLayout {
    /// The FVF code.
    pub fvf: u32,
    /// Vertex size in bytes.
    pub stride: u32,
    /// Position kind (offset 0 when present).
    pub position: PositionKind,
    /// Number of blend values after xyz (`D3DFVF_XYZBn`: n), 0..=5.
    pub blend_values: u32,
    /// Meaning of the last blend value.
    pub last_beta: LastBeta,
    /// Offset of the normal.
    pub normal: Option<u32>,
    /// Offset of the point size (DX6/7: the reserved DWORD).
    pub psize: Option<u32>,
    /// Offset of the diffuse colour.
    pub diffuse: Option<u32>,
    /// Offset of the specular colour.
    pub specular: Option<u32>,
    /// Offset of the DDI-only fog float.
    pub fog: Option<u32>,
    /// Number of texture-coordinate sets.
    pub tex_count: u32,
    /// `(offset, dimensions)` of each set; only `tex_count` entries are meaningful.
    pub texcoords: [(u32, u32); 8],
}

/// Dimension (1–4 floats) of texture-coordinate set `i` of `fvf` (`i` is
/// taken modulo 8: there are sets 0..=7).
pub fn texcoord_dims(fvf: u32, i: u32) -> u32 {
    crate::names::fvf_names::texcoord_size(fvf, i)
}

impl FvfLayout {
    /// Computes the layout of `fvf`.
    // reason: every operand is bounded here — `pos` is a 4-bit field (one
    // of five values in the blend arm), at most 5 component sizes of ≤ 12
    // bytes are added, and `tex_count` ≤ 8 is checked before the loop adds
    // ≤ 8 sets of ≤ 16 bytes: the stride stays ≤ 204 (module docs).
    #[allow(clippy::arithmetic_side_effects)]
    pub fn parse(fvf: u32) -> Result<Self, FvfError> {
        if fvf & FVF_RESERVED0 != 0 {
            return Err(FvfError::Reserved0(fvf));
        }
        let pos = fvf & FVF_POSITION_MASK;
        let (position, blend_values, pos_size) = match pos {
            0 => (PositionKind::None, 0, 0),
            FVF_XYZ => (PositionKind::Xyz, 0, 12),
            FVF_XYZRHW => (PositionKind::XyzRhw, 0, 16),
            FVF_XYZW => (PositionKind::Xyzw, 0, 16),
            0x6 | 0x8 | 0xA | 0xC | 0xE => {
                let n = (pos - 4) / 2;
                (PositionKind::Xyz, n, 12 + 4 * n)
            }
            other => return Err(FvfError::BadPosition(fvf, other)),
        };
        let last_beta = match (
            fvf & FVF_LASTBETA_UBYTE4 != 0,
            fvf & FVF_LASTBETA_D3DCOLOR != 0,
        ) {
            (false, false) => LastBeta::Weight,
            (true, false) if blend_values > 0 => LastBeta::UByte4,
            (false, true) if blend_values > 0 => LastBeta::D3dColor,
            _ => return Err(FvfError::BadLastBeta(fvf)),
        };
        let tex_count = (fvf & FVF_TEXCOUNT_MASK) >> FVF_TEXCOUNT_SHIFT;
        if tex_count > 8 {
            return Err(FvfError::TooManyTexCoords(fvf, tex_count));
        }
        let mut at = pos_size;
        let mut take = |present: bool, size: u32| {
            present.then(|| {
                let o = at;
                at += size;
                o
            })
        };
        let normal = take(fvf & FVF_NORMAL != 0, 12);
        let psize = take(fvf & FVF_PSIZE != 0, 4);
        let diffuse = take(fvf & FVF_DIFFUSE != 0, 4);
        let specular = take(fvf & FVF_SPECULAR != 0, 4);
        let fog = take(fvf & FVF_FOG != 0, 4);
        let mut texcoords = [(0u32, 0u32); 8];
        for (i, slot) in texcoords.iter_mut().enumerate().take(tex_count as usize) {
            let dims = texcoord_dims(fvf, i as u32);
            *slot = (at, dims);
            at += 4 * dims;
        }
        Ok(FvfLayout {
            fvf,
            stride: at,
            position,
            blend_values,
            last_beta,
            normal,
            psize,
            diffuse,
            specular,
            fog,
            tex_count,
            texcoords,
        })
    }
}

/// The vertex size of `fvf`, or an error for an invalid code.
pub fn vertex_stride(fvf: u32) -> Result<u32, FvfError> {
    FvfLayout::parse(fvf).map(|l| l.stride)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_examples_from_the_reference() {
        // TLVERTEX: xyzrhw@0, diffuse@16, specular@20, uv0@24 → 32.
        let l = FvfLayout::parse(0x1C4).unwrap();
        assert_eq!(
            (l.stride, l.diffuse, l.specular, l.texcoords[0]),
            (32, Some(16), Some(20), (24, 2))
        );
        // VERTEX: xyz@0, normal@12, uv0@24 → 32.
        let l = FvfLayout::parse(0x112).unwrap();
        assert_eq!(
            (l.stride, l.normal, l.texcoords[0]),
            (32, Some(12), (24, 2))
        );
        // TLVERTEX with TEXCOORDSIZE1(0): uv0 is 1 float → 28.
        assert_eq!(vertex_stride(0x1C4 | 0x30000).unwrap(), 28);
        // LVERTEX: xyz, reserved@12, diffuse@16, specular@20, uv0@24.
        let l = FvfLayout::parse(0x1E2).unwrap();
        assert_eq!((l.stride, l.psize, l.diffuse), (32, Some(12), Some(16)));
    }

    #[test]
    fn fog_sits_after_specular_before_texcoords() {
        let l =
            FvfLayout::parse(FVF_XYZRHW | FVF_DIFFUSE | FVF_SPECULAR | FVF_FOG | 0x100).unwrap();
        assert_eq!((l.fog, l.texcoords[0].0, l.stride), (Some(24), 28, 36));
    }

    #[test]
    fn blend_weights_and_last_beta() {
        let l = FvfLayout::parse(0xC | FVF_LASTBETA_UBYTE4 | FVF_NORMAL).unwrap();
        assert_eq!(
            (l.blend_values, l.last_beta, l.normal, l.stride),
            (4, LastBeta::UByte4, Some(28), 40)
        );
        assert_eq!(
            FvfLayout::parse(FVF_XYZ | FVF_LASTBETA_UBYTE4),
            Err(FvfError::BadLastBeta(0x1002))
        );
    }

    #[test]
    fn texcoord_size_bits_above_the_count_are_ignored() {
        assert_eq!(vertex_stride(FVF_XYZRHW | 0x100 | (3 << 18)).unwrap(), 24);
    }

    #[test]
    fn invalid_codes_are_errors() {
        assert!(matches!(FvfLayout::parse(0x1), Err(FvfError::Reserved0(_))));
        assert!(matches!(
            FvfLayout::parse(0x4004),
            Err(FvfError::BadPosition(..))
        ));
        assert!(matches!(
            FvfLayout::parse(FVF_XYZ | 0x900),
            Err(FvfError::TooManyTexCoords(..))
        ));
    }

    #[test]
    fn every_fvf_parses_or_errors_without_panicking() {
        let mut s: u64 = 1;
        for _ in 0..100_000 {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let fvf = (s >> 32) as u32;
            if let Ok(l) = FvfLayout::parse(fvf) {
                assert!(l.stride <= 4 * 8 + 32 + 12 + 16 + 16 * 8);
            }
        }
    }
}
