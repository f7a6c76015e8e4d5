//! Texture-stage values that are more than one enum: a `D3DTA_*`
//! argument with its modifiers, the `D3DTSS_RESULTARG` register, a
//! `D3DTSS_TEXCOORDINDEX` (set and generation mode) and
//! `D3DTSS_TEXTURETRANSFORMFLAGS` (count and projection).
//!
//! In: the DWORD of one of these texture-stage states. Out: a typed value
//! (`from_d3d`) and back (`d3d`), the selectors and modes taken from the
//! [`crate::values`] tables, the bit fields written here once
//! ([`D3DTA_SELECTMASK`], [`D3DTA_COMPLEMENT`], [`D3DTA_ALPHAREPLICATE`],
//! [`D3DTTFF_PROJECTED`]). Guarantee: `from_d3d(v.d3d()) == Some(v)`;
//! `from_d3d` of any `u32` is `None` or a value, never a panic.

use crate::values::{TexCoordIndexMode, TextureArg};

/// `D3DTA_SELECTMASK`: the selector bits of a texture argument.
pub const D3DTA_SELECTMASK: u32 = 0xF;
/// `D3DTA_COMPLEMENT`: the argument is `1 − x`.
pub const D3DTA_COMPLEMENT: u32 = 0x10;
/// `D3DTA_ALPHAREPLICATE`: the argument's alpha is copied into RGB.
pub const D3DTA_ALPHAREPLICATE: u32 = 0x20;
/// `D3DTTFF_PROJECTED`: the coordinates are divided by their last
/// component.
pub const D3DTTFF_PROJECTED: u32 = 0x100;
/// `D3DTTFF_COUNT4`: the largest coordinate count of
/// `D3DTSS_TEXTURETRANSFORMFLAGS` (bits 7:0).
pub const D3DTTFF_COUNT_MAX: u32 = 4;

/// A texture argument (`D3DTSS_COLORARG*`, `D3DTSS_ALPHAARG*`): a
/// `D3DTA_*` selector and its modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextureArgument {
    /// What to read (bits 3:0).
    pub source: TextureArg,
    /// `D3DTA_COMPLEMENT`.
    pub complement: bool,
    /// `D3DTA_ALPHAREPLICATE`.
    pub alpha_replicate: bool,
}

impl TextureArgument {
    /// An argument without modifiers.
    pub const fn new(source: TextureArg) -> Self {
        TextureArgument {
            source,
            complement: false,
            alpha_replicate: false,
        }
    }

    /// From a `D3DTA_*` value: a defined selector and the two modifier
    /// bits; `None` for any other selector or bit.
    pub const fn from_d3d(v: u32) -> Option<Self> {
        if v & !(D3DTA_SELECTMASK | D3DTA_COMPLEMENT | D3DTA_ALPHAREPLICATE) != 0 {
            return None;
        }
        match TextureArg::from_d3d(v & D3DTA_SELECTMASK) {
            Some(source) => Some(TextureArgument {
                source,
                complement: v & D3DTA_COMPLEMENT != 0,
                alpha_replicate: v & D3DTA_ALPHAREPLICATE != 0,
            }),
            None => None,
        }
    }

    /// The `D3DTA_*` value (inverse of [`TextureArgument::from_d3d`]).
    pub const fn d3d(self) -> u32 {
        let c = if self.complement { D3DTA_COMPLEMENT } else { 0 };
        let a = if self.alpha_replicate {
            D3DTA_ALPHAREPLICATE
        } else {
            0
        };
        self.source.d3d() | c | a
    }
}

/// Where a stage writes its result (`D3DTSS_RESULTARG`): one of the two
/// writable `D3DTA_*` registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ResultArg {
    /// `D3DTA_CURRENT` (the Direct3D default).
    #[default]
    Current,
    /// `D3DTA_TEMP`.
    Temp,
}

impl ResultArg {
    /// From a `D3DTA_*` value: CURRENT or TEMP, nothing else (no
    /// modifiers).
    pub const fn from_d3d(v: u32) -> Option<Self> {
        match TextureArg::from_d3d(v) {
            Some(TextureArg::Current) => Some(ResultArg::Current),
            Some(TextureArg::Temp) => Some(ResultArg::Temp),
            _ => None,
        }
    }

    /// The `D3DTA_*` value (inverse of [`ResultArg::from_d3d`]).
    pub const fn d3d(self) -> u32 {
        match self {
            ResultArg::Current => TextureArg::Current.d3d(),
            ResultArg::Temp => TextureArg::Temp.d3d(),
        }
    }
}

/// `D3DTSS_PASSTHRU`: coordinates come from the vertex. What a
/// `D3DTSS_TEXCOORDINDEX` without mode bits means.
impl Default for TexCoordIndexMode {
    fn default() -> Self {
        TexCoordIndexMode::PassThru
    }
}

/// `D3DTSS_TEXCOORDINDEX`: the coordinate set read by PASSTHRU (bits
/// 15:0) and the `D3DTSS_TCI_*` generation mode (bits 31:16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TexCoordIndex {
    /// Coordinate set (bits 15:0).
    pub set: u16,
    /// Generation mode (bits 31:16).
    pub mode: TexCoordIndexMode,
}

impl TexCoordIndex {
    /// From a `D3DTSS_TEXCOORDINDEX` value; `None` for an undefined mode.
    pub const fn from_d3d(v: u32) -> Option<Self> {
        match TexCoordIndexMode::from_d3d(v & 0xFFFF_0000) {
            Some(mode) => Some(TexCoordIndex {
                set: (v & 0xFFFF) as u16,
                mode,
            }),
            None => None,
        }
    }

    /// The `D3DTSS_TEXCOORDINDEX` value (inverse of
    /// [`TexCoordIndex::from_d3d`]).
    pub const fn d3d(self) -> u32 {
        self.set as u32 | self.mode.d3d()
    }
}

/// `D3DTSS_TEXTURETRANSFORMFLAGS`: how many transformed coordinates the
/// rasteriser uses (`D3DTTFF_COUNTn`, 0 = `D3DTTFF_DISABLE`: no matrix)
/// and `D3DTTFF_PROJECTED`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TextureTransformFlags {
    /// `D3DTTFF_COUNTn` (0..=4).
    pub count: u8,
    /// `D3DTTFF_PROJECTED`.
    pub projected: bool,
}

impl TextureTransformFlags {
    /// From a `D3DTTFF_*` value (count 0..=4 in bits 7:0, PROJECTED);
    /// `None` for other bits or counts.
    pub const fn from_d3d(v: u32) -> Option<Self> {
        if v & !(D3DTTFF_PROJECTED | 0xFF) != 0 || v & 0xFF > D3DTTFF_COUNT_MAX {
            return None;
        }
        Some(TextureTransformFlags {
            count: (v & 0xFF) as u8,
            projected: v & D3DTTFF_PROJECTED != 0,
        })
    }

    /// The `D3DTTFF_*` value (inverse of
    /// [`TextureTransformFlags::from_d3d`]).
    pub const fn d3d(self) -> u32 {
        self.count as u32 | if self.projected { D3DTTFF_PROJECTED } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every DWORD a decoder accepts comes back unchanged, and the counts
    /// of accepted values are the DDK's: 7 selectors × 2 modifiers × 2
    /// = 28 arguments, 2 result registers, 5 modes (× 65 536 sets, tried
    /// on set 3 here), 5 counts × 2 = 10 transform flags.
    #[test]
    fn round_trips() {
        let n = |f: &dyn Fn(u32) -> Option<u32>, range: std::ops::Range<u32>| {
            range
                .filter(|&v| match f(v) {
                    Some(back) => {
                        assert_eq!(back, v);
                        true
                    }
                    None => false,
                })
                .count()
        };
        assert_eq!(
            n(
                &|v| TextureArgument::from_d3d(v).map(|a| a.d3d()),
                0..0x1000
            ),
            28
        );
        assert_eq!(
            n(&|v| ResultArg::from_d3d(v).map(|a| a.d3d()), 0..0x1000),
            2
        );
        assert_eq!(
            n(
                &|v| TextureTransformFlags::from_d3d(v).map(|a| a.d3d()),
                0..0x1000
            ),
            10
        );
        let tci = |v: u32| TexCoordIndex::from_d3d(v).map(|t| t.d3d());
        assert_eq!(
            (0..8u32).filter(|m| tci((m << 16) | 3).is_some()).count(),
            5
        );
        // D3DTA_TEXTURE | D3DTA_COMPLEMENT = 0x12; selector 7 is undefined.
        assert_eq!(
            TextureArgument::from_d3d(0x12).map(|a| (a.source, a.complement, a.alpha_replicate)),
            Some((TextureArg::Texture, true, false))
        );
        // D3DTA_CONSTANT | D3DTA_ALPHAREPLICATE = 0x26.
        assert_eq!(
            TextureArgument::from_d3d(0x26).map(|a| (a.source, a.alpha_replicate)),
            Some((TextureArg::Constant, true))
        );
        // Selector 7 and bit 0x40 are undefined.
        assert_eq!(TextureArgument::from_d3d(7), None);
        assert_eq!(TextureArgument::from_d3d(0x40), None);
        // RESULTARG: D3DTA_TEMP (5) yes, D3DTA_TEXTURE (2) no.
        assert_eq!(ResultArg::from_d3d(5), Some(ResultArg::Temp));
        assert_eq!(ResultArg::from_d3d(2), None);
        // D3DTSS_TCI_CAMERASPACEREFLECTIONVECTOR | 1 = 0x30001; mode 5
        // is undefined.
        assert_eq!(
            TexCoordIndex::from_d3d(0x3_0001).map(|t| (t.set, t.mode)),
            Some((1, TexCoordIndexMode::CameraSpaceReflectionVector))
        );
        assert_eq!(TexCoordIndex::from_d3d(0x5_0000), None);
        // COUNT3 | PROJECTED = 0x103; COUNT5 and bit 0x200 do not exist.
        assert_eq!(
            TextureTransformFlags::from_d3d(0x103).map(|t| (t.count, t.projected)),
            Some((3, true))
        );
        assert_eq!(TextureTransformFlags::from_d3d(5), None);
        assert_eq!(TextureTransformFlags::from_d3d(0x200), None);
    }
}
