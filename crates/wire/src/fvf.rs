//! Flexible vertex formats: `dwVertexType` → vertex size and field offsets.
//!
//! In: an FVF code (`D3DFVF_*` bits). Out: an [`FvfLayout`] with the stride
//! and the byte offset of every component, in the fixed DDK order
//! (position, blend weights, normal, point size, diffuse, specular, fog,
//! texture coordinates), and the vertex declaration the FVF stands for when
//! a programmable vertex shader reads it ([`FvfLayout::elements`]).
//! Guarantee: an FVF this module accepts has a stride of at most 4 + 32 +
//! 12 + 4 + 4 + 4 + 4 + 8×16 bytes; an invalid code is an [`FvfError`],
//! never a panic. Rules: `docs/dp2-wire.md` §7; the declaration:
//! `docs/device.md` ("An FVF as a vertex declaration").

use crate::names::{DeclType, DeclUsage};
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

/// One element of the vertex declaration an FVF stands for: a
/// `D3DVERTEXELEMENT9` of stream 0 with `D3DDECLMETHOD_DEFAULT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FvfElement {
    /// Byte offset in the vertex.
    pub offset: u32,
    /// `D3DDECLTYPE`.
    pub decl_type: DeclType,
    /// `D3DDECLUSAGE`.
    pub usage: DeclUsage,
    /// Usage index.
    pub usage_index: u8,
}

/// `D3DDECLTYPE_FLOAT1`..`FLOAT4` for 1..=4 floats.
fn float_type(floats: u32) -> DeclType {
    match floats {
        0 | 1 => DeclType::Float1,
        2 => DeclType::Float2,
        3 => DeclType::Float3,
        _ => DeclType::Float4,
    }
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

impl FvfLayout {
    /// The vertex declaration this FVF is equivalent to, element by
    /// element in vertex order, as the Direct3D 9 runtime converts an FVF
    /// (`SetFVF`): POSITION0 FLOAT3 (`XYZW`: FLOAT4; `XYZRHW`: POSITIONT0
    /// FLOAT4); the betas of `XYZBn` as BLENDWEIGHT0 of n floats, or of
    /// n − 1 floats and BLENDINDICES0 UBYTE4 / D3DCOLOR for the last beta
    /// under `LASTBETA_UBYTE4` / `LASTBETA_D3DCOLOR` (`XYZB5` without
    /// either: FLOAT4 weights and a FLOAT1 BLENDINDICES0); NORMAL0 FLOAT3,
    /// PSIZE0 FLOAT1, COLOR0 and COLOR1 D3DCOLOR, the DDI-only fog value as
    /// FOG0 FLOAT1, TEXCOORDi of the set's 1–4 floats. Every offset is the
    /// one [`FvfLayout::parse`] computed.
    pub fn elements(&self) -> Vec<FvfElement> {
        let mut out = Vec::with_capacity(16);
        let mut push = |offset: u32, decl_type, usage, usage_index| {
            out.push(FvfElement {
                offset,
                decl_type,
                usage,
                usage_index,
            })
        };
        match self.position {
            PositionKind::None => {}
            PositionKind::Xyz => push(0, DeclType::Float3, DeclUsage::Position, 0),
            PositionKind::XyzRhw => push(0, DeclType::Float4, DeclUsage::PositionT, 0),
            PositionKind::Xyzw => push(0, DeclType::Float4, DeclUsage::Position, 0),
        }
        if self.blend_values > 0 {
            // The betas follow the xyz position (12 bytes), 4 bytes each.
            let (weights, indices) = match self.last_beta {
                LastBeta::Weight if self.blend_values == 5 => (4, Some(DeclType::Float1)),
                LastBeta::Weight => (self.blend_values, None),
                LastBeta::UByte4 => (self.blend_values.saturating_sub(1), Some(DeclType::UByte4)),
                LastBeta::D3dColor => (
                    self.blend_values.saturating_sub(1),
                    Some(DeclType::D3dColor),
                ),
            };
            if weights > 0 {
                push(12, float_type(weights), DeclUsage::BlendWeight, 0);
            }
            if let Some(t) = indices {
                let at = weights.saturating_mul(4).saturating_add(12);
                push(at, t, DeclUsage::BlendIndices, 0);
            }
        }
        let singles = [
            (self.normal, DeclType::Float3, DeclUsage::Normal, 0),
            (self.psize, DeclType::Float1, DeclUsage::PSize, 0),
            (self.diffuse, DeclType::D3dColor, DeclUsage::Color, 0),
            (self.specular, DeclType::D3dColor, DeclUsage::Color, 1),
            (self.fog, DeclType::Float1, DeclUsage::Fog, 0),
        ];
        for (offset, t, usage, index) in singles {
            if let Some(o) = offset {
                push(o, t, usage, index);
            }
        }
        for (set, &(offset, dims)) in
            (0u8..).zip(self.texcoords.iter().take(self.tex_count as usize))
        {
            push(offset, float_type(dims), DeclUsage::TexCoord, set);
        }
        out
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

    fn el(offset: u32, decl_type: DeclType, usage: DeclUsage, usage_index: u8) -> FvfElement {
        FvfElement {
            offset,
            decl_type,
            usage,
            usage_index,
        }
    }

    fn elements(fvf: u32) -> Vec<FvfElement> {
        FvfLayout::parse(fvf).unwrap().elements()
    }

    #[test]
    fn an_fvf_stands_for_the_declaration_of_its_components_in_vertex_order() {
        use DeclType::*;
        use DeclUsage::*;
        // XYZ | DIFFUSE | TEX1: xyz 12 bytes, the colour 4, (u, v) 8.
        assert_eq!(
            elements(FVF_XYZ | FVF_DIFFUSE | 0x100),
            [
                el(0, Float3, Position, 0),
                el(12, D3dColor, Color, 0),
                el(16, Float2, TexCoord, 0)
            ]
        );
        // XYZRHW is the transformed position; XYZW a 4-float POSITION0.
        assert_eq!(elements(FVF_XYZRHW), [el(0, Float4, PositionT, 0)]);
        assert_eq!(elements(FVF_XYZW), [el(0, Float4, Position, 0)]);
        // XYZ | NORMAL | PSIZE | SPECULAR: normal at 12, the point size
        // after it at 24, the specular colour (COLOR1) at 28.
        assert_eq!(
            elements(FVF_XYZ | FVF_NORMAL | FVF_PSIZE | FVF_SPECULAR),
            [
                el(0, Float3, Position, 0),
                el(12, Float3, Normal, 0),
                el(24, Float1, PSize, 0),
                el(28, D3dColor, Color, 1)
            ]
        );
        // The DDI-only fog float (after the specular colour) is FOG0.
        assert_eq!(
            elements(FVF_XYZRHW | FVF_DIFFUSE | FVF_SPECULAR | FVF_FOG | 0x100)[3..],
            [el(24, Float1, Fog, 0), el(28, Float2, TexCoord, 0)]
        );
        // No component, no element.
        assert!(elements(0).is_empty());
    }

    #[test]
    fn betas_become_blend_weights_and_the_last_one_blend_indices() {
        use DeclType::*;
        use DeclUsage::*;
        let pos = el(0, Float3, Position, 0);
        // XYZB2: two float weights after xyz.
        assert_eq!(elements(0x8), [pos, el(12, Float2, BlendWeight, 0)]);
        // XYZB1 | LASTBETA_UBYTE4: the only beta is the indices.
        assert_eq!(
            elements(0x6 | FVF_LASTBETA_UBYTE4),
            [pos, el(12, UByte4, BlendIndices, 0)]
        );
        // XYZB3 | LASTBETA_D3DCOLOR: 2 weights (8 bytes), then the indices
        // at 12 + 8 = 20.
        assert_eq!(
            elements(0xA | FVF_LASTBETA_D3DCOLOR),
            [
                pos,
                el(12, Float2, BlendWeight, 0),
                el(20, D3dColor, BlendIndices, 0)
            ]
        );
        // XYZB4 | LASTBETA_UBYTE4: 3 weights, the indices at 24.
        assert_eq!(
            elements(0xC | FVF_LASTBETA_UBYTE4),
            [
                pos,
                el(12, Float3, BlendWeight, 0),
                el(24, UByte4, BlendIndices, 0)
            ]
        );
        // XYZB5 without a LASTBETA flag: 4 weights and a float index at 28.
        assert_eq!(
            elements(0xE),
            [
                pos,
                el(12, Float4, BlendWeight, 0),
                el(28, Float1, BlendIndices, 0)
            ]
        );
    }

    #[test]
    fn texture_coordinate_sets_take_their_texcoordsize() {
        use DeclType::*;
        use DeclUsage::TexCoord;
        // TEX4 with TEXCOORDSIZE1(0) (3 << 16), TEXCOORDSIZE3(1) (1 << 18),
        // TEXCOORDSIZE2(2) (0), TEXCOORDSIZE4(3) (2 << 22): 4, 12, 8 and 16
        // bytes from offset 0.
        let fvf = 0x400 | (3 << 16) | (1 << 18) | (2 << 22);
        assert_eq!(
            elements(fvf),
            [
                el(0, Float1, TexCoord, 0),
                el(4, Float3, TexCoord, 1),
                el(16, Float2, TexCoord, 2),
                el(24, Float4, TexCoord, 3)
            ]
        );
        // XYZB4 | DIFFUSE | SPECULAR | TEX2 with TEXCOORDSIZE3(1): xyz, 4
        // weights (16 bytes), the colours at 28 and 32, set 0 (2 floats)
        // at 36, set 1 (3 floats) at 44.
        let fvf = 0xC | FVF_DIFFUSE | FVF_SPECULAR | 0x200 | (1 << 18);
        let e = elements(fvf);
        assert_eq!(
            e.iter()
                .map(|e| (e.offset, e.usage_index))
                .collect::<Vec<_>>(),
            [(0, 0), (12, 0), (28, 0), (32, 1), (36, 0), (44, 1)]
        );
        assert_eq!((e[4].decl_type, e[5].decl_type), (Float2, Float3));
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
