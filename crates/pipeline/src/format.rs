//! Surface formats: bit layouts, D3DFMT numbers, colour and depth encoding.
//!
//! *Input*: a [`Format`] and raw little-endian pixel bytes, or an A8R8G8B8
//! colour / a `[0, 1]` depth to store. *Output*: packed pixel values that
//! honour each format's bits exactly (the DDK's channel masks).
//! *Guarantees*: conversions are total (never panic, NaN depth becomes 0);
//! channels a format lacks read as 255 (alpha) or 0 (colour); "X" bits are
//! written as 0.
//!
//! Colour conversion rules:
//! * 8 bits → n < 8 bits keeps the top n bits (`c >> (8 − n)`), the rule the
//!   DDI states for clear colours; the pipeline uses it for every write so
//!   that a clear and a draw of the same colour produce the same bits.
//! * 8 bits → n > 8 bits (A2R10G10B10's colour channels) rounds
//!   `c · (2^n − 1) / 255` to nearest (255 → 1023).
//! * n bits → 8 bits rounds `v · 255 / (2^n − 1)` to nearest.
//!
//! *Not handled here*: texture-only formats (DXTn, luminance, bump...),
//! which are only sampled (see [`crate::texture`]).

use softhal_types::Format as D3dFormat;

/// A surface format the pipeline can render to or depth-test against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// 32-bit colour, 8 unused bits (written as 0).
    X8R8G8B8,
    /// 32-bit colour with 8-bit alpha.
    A8R8G8B8,
    /// 16-bit colour 5-6-5.
    R5G6B5,
    /// 16-bit colour 5-5-5, top bit unused.
    X1R5G5B5,
    /// 16-bit colour 5-5-5 with 1-bit alpha.
    A1R5G5B5,
    /// 16-bit colour 4-4-4 with 4-bit alpha.
    A4R4G4B4,
    /// 16-bit colour 4-4-4, top 4 bits unused.
    X4R4G4B4,
    /// 24-bit colour, 3 bytes per pixel.
    R8G8B8,
    /// 32-bit colour 10-10-10 with 2-bit alpha.
    A2R10G10B10,
    /// 8-bit alpha only.
    A8,
    /// 16-bit depth.
    D16,
    /// 16-bit lockable depth (same layout as D16).
    D16Lockable,
    /// 15-bit depth (bits 15..1) and 1-bit stencil (bit 0).
    D15S1,
    /// 24-bit depth (bits 31..8) and 8-bit stencil (bits 7..0).
    D24S8,
    /// 24-bit depth (bits 31..8), 8 unused bits.
    D24X8,
    /// 24-bit depth (bits 31..8), 4 unused bits, 4-bit stencil (bits 3..0).
    D24X4S4,
    /// 32-bit integer depth.
    D32,
    /// 32-bit float depth (lockable).
    D32FLockable,
}

/// Bit position and width of one colour channel inside a packed pixel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Channel {
    /// Lowest bit.
    pub shift: u32,
    /// Number of bits (0 = channel absent).
    pub bits: u32,
}

impl Channel {
    const NONE: Channel = Channel { shift: 0, bits: 0 };
    const fn new(shift: u32, bits: u32) -> Self {
        Channel { shift, bits }
    }
    /// Mask of this channel inside the packed pixel.
    pub(crate) fn mask(self) -> u32 {
        if self.bits == 0 {
            0
        } else {
            (u32::MAX >> (32 - self.bits)) << self.shift
        }
    }
    fn max(self) -> u32 {
        if self.bits == 0 {
            0
        } else {
            u32::MAX >> (32 - self.bits)
        }
    }
    /// 8-bit value → this channel's bits, in place.
    fn encode(self, c: u8) -> u32 {
        let c = u32::from(c);
        let v = match self.bits {
            0 => return 0,
            1..=8 => c >> (8 - self.bits),
            _ => (c * self.max() + 127) / 255,
        };
        v << self.shift
    }
    /// This channel's bits → 8-bit value (`absent` if the channel is missing).
    fn decode(self, raw: u32, absent: u8) -> u8 {
        if self.bits == 0 {
            return absent;
        }
        let max = self.max();
        let v = (raw >> self.shift) & max;
        if self.bits == 8 {
            // Exact: no rounding needed.
            return u8::try_from(v).unwrap_or(u8::MAX);
        }
        let r = (u64::from(v) * 255 + u64::from(max / 2)) / u64::from(max);
        u8::try_from(r).unwrap_or(u8::MAX)
    }
}

/// Colour layout: (alpha, red, green, blue).
type ColorLayout = [Channel; 4];

/// Depth/stencil layout of a depth format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DepthLayout {
    /// Depth channel (for D32F the whole 32 bits hold an f32).
    pub depth: Channel,
    /// Stencil channel (bits 0 if none).
    pub stencil: Channel,
    /// Depth stored as IEEE f32.
    pub float: bool,
}

impl Format {
    /// Every format, in D3DFMT order (handy for tests).
    pub const ALL: [Format; 18] = [
        Format::R8G8B8,
        Format::A8R8G8B8,
        Format::X8R8G8B8,
        Format::R5G6B5,
        Format::X1R5G5B5,
        Format::A1R5G5B5,
        Format::A4R4G4B4,
        Format::A8,
        Format::X4R4G4B4,
        Format::A2R10G10B10,
        Format::D16Lockable,
        Format::D32,
        Format::D15S1,
        Format::D24S8,
        Format::D24X8,
        Format::D24X4S4,
        Format::D16,
        Format::D32FLockable,
    ];

    /// The format for a D3DFORMAT number, if the pipeline supports it.
    pub fn from_d3dfmt(value: u32) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.d3dfmt() == value)
    }

    /// The D3DFORMAT number of this format.
    pub fn d3dfmt(self) -> u32 {
        self.d3d_format().raw()
    }

    /// The `D3DFORMAT` of this format (its number is written once, in
    /// `softhal_types::format`).
    pub fn d3d_format(self) -> D3dFormat {
        match self {
            Format::R8G8B8 => D3dFormat::R8G8B8,
            Format::A8R8G8B8 => D3dFormat::A8R8G8B8,
            Format::X8R8G8B8 => D3dFormat::X8R8G8B8,
            Format::R5G6B5 => D3dFormat::R5G6B5,
            Format::X1R5G5B5 => D3dFormat::X1R5G5B5,
            Format::A1R5G5B5 => D3dFormat::A1R5G5B5,
            Format::A4R4G4B4 => D3dFormat::A4R4G4B4,
            Format::A8 => D3dFormat::A8,
            Format::X4R4G4B4 => D3dFormat::X4R4G4B4,
            Format::A2R10G10B10 => D3dFormat::A2R10G10B10,
            Format::D16Lockable => D3dFormat::D16Lockable,
            Format::D32 => D3dFormat::D32,
            Format::D15S1 => D3dFormat::D15S1,
            Format::D24S8 => D3dFormat::D24S8,
            Format::D24X8 => D3dFormat::D24X8,
            Format::D24X4S4 => D3dFormat::D24X4S4,
            Format::D16 => D3dFormat::D16,
            Format::D32FLockable => D3dFormat::D32FLockable,
        }
    }

    /// Bytes per pixel.
    pub fn bytes_per_pixel(self) -> u32 {
        match self {
            Format::A8 => 1,
            Format::R5G6B5
            | Format::X1R5G5B5
            | Format::A1R5G5B5
            | Format::A4R4G4B4
            | Format::X4R4G4B4
            | Format::D16
            | Format::D16Lockable
            | Format::D15S1 => 2,
            Format::R8G8B8 => 3,
            Format::X8R8G8B8
            | Format::A8R8G8B8
            | Format::A2R10G10B10
            | Format::D24S8
            | Format::D24X8
            | Format::D24X4S4
            | Format::D32
            | Format::D32FLockable => 4,
        }
    }

    /// True for depth/stencil formats.
    pub fn is_depth(self) -> bool {
        self.depth_layout().is_some()
    }

    /// True for render-target (colour) formats.
    pub fn is_color(self) -> bool {
        !self.is_depth()
    }

    /// Number of depth bits (0 for colour formats).
    pub fn depth_bits(self) -> u32 {
        self.depth_layout().map_or(0, |l| l.depth.bits)
    }

    /// Number of stencil bits (0 if the format has no stencil).
    pub fn stencil_bits(self) -> u32 {
        self.depth_layout().map_or(0, |l| l.stencil.bits)
    }

    /// Colour channel layout (alpha, red, green, blue); `None` for depth.
    pub(crate) fn color_layout(self) -> Option<ColorLayout> {
        let c = Channel::new;
        let n = Channel::NONE;
        Some(match self {
            Format::X8R8G8B8 | Format::R8G8B8 => [n, c(16, 8), c(8, 8), c(0, 8)],
            Format::A8R8G8B8 => [c(24, 8), c(16, 8), c(8, 8), c(0, 8)],
            Format::R5G6B5 => [n, c(11, 5), c(5, 6), c(0, 5)],
            Format::X1R5G5B5 => [n, c(10, 5), c(5, 5), c(0, 5)],
            Format::A1R5G5B5 => [c(15, 1), c(10, 5), c(5, 5), c(0, 5)],
            Format::A4R4G4B4 => [c(12, 4), c(8, 4), c(4, 4), c(0, 4)],
            Format::X4R4G4B4 => [n, c(8, 4), c(4, 4), c(0, 4)],
            Format::A2R10G10B10 => [c(30, 2), c(20, 10), c(10, 10), c(0, 10)],
            Format::A8 => [c(0, 8), n, n, n],
            _ => return None,
        })
    }

    /// Depth/stencil layout; `None` for colour formats.
    pub(crate) fn depth_layout(self) -> Option<DepthLayout> {
        let c = Channel::new;
        let n = Channel::NONE;
        let d = |depth, stencil| DepthLayout {
            depth,
            stencil,
            float: false,
        };
        Some(match self {
            Format::D16 | Format::D16Lockable => d(c(0, 16), n),
            Format::D15S1 => d(c(1, 15), c(0, 1)),
            Format::D24S8 => d(c(8, 24), c(0, 8)),
            Format::D24X8 => d(c(8, 24), n),
            Format::D24X4S4 => d(c(8, 24), c(0, 4)),
            Format::D32 => d(c(0, 32), n),
            Format::D32FLockable => DepthLayout {
                depth: c(0, 32),
                stencil: n,
                float: true,
            },
            _ => return None,
        })
    }

    /// Encodes an A8R8G8B8 colour (D3DCOLOR) into this format's packed bits.
    /// Returns 0 for depth formats.
    pub fn encode_argb(self, argb: u32) -> u32 {
        let Some(l) = self.color_layout() else {
            return 0;
        };
        let [a, r, g, b] = argb.to_be_bytes();
        l[0].encode(a) | l[1].encode(r) | l[2].encode(g) | l[3].encode(b)
    }

    /// Decodes this format's packed bits into an A8R8G8B8 colour. Missing
    /// alpha reads as 255, missing colour channels as 0.
    pub fn decode_argb(self, raw: u32) -> u32 {
        let Some(l) = self.color_layout() else {
            return 0;
        };
        u32::from_be_bytes([
            l[0].decode(raw, 255),
            l[1].decode(raw, 0),
            l[2].decode(raw, 0),
            l[3].decode(raw, 0),
        ])
    }

    /// Packed-bit mask of the channels enabled by a D3DCOLORWRITEENABLE
    /// mask (bit 0 red, 1 green, 2 blue, 3 alpha).
    pub(crate) fn write_mask(self, color_write_enable: u32) -> u32 {
        let Some(l) = self.color_layout() else {
            return 0;
        };
        let mut m = 0;
        if color_write_enable & 1 != 0 {
            m |= l[1].mask();
        }
        if color_write_enable & 2 != 0 {
            m |= l[2].mask();
        }
        if color_write_enable & 4 != 0 {
            m |= l[3].mask();
        }
        if color_write_enable & 8 != 0 {
            m |= l[0].mask();
        }
        m
    }

    /// Quantizes a depth in `[0, 1]` to this format's depth channel value
    /// (not shifted into place). NaN becomes 0; values are clamped.
    ///
    /// Formats of up to 24 bits round `z · (2^n − 1)` in f32 (ties to even),
    /// D32 in f64; D32F returns the f32 bits.
    pub fn quantize_depth(self, z: f32) -> u32 {
        let Some(l) = self.depth_layout() else {
            return 0;
        };
        let z = if z.is_nan() { 0.0 } else { z.clamp(0.0, 1.0) };
        if l.float {
            // + 0.0 turns -0.0 into +0.0 so that bit patterns order like
            // the values.
            return (z + 0.0).to_bits();
        }
        if l.depth.bits <= 24 {
            // Exact conversion: max < 2^24 is representable in f32.
            let max = l.depth.max() as f32;
            crate::int::f32_to_u32_sat(crate::int::round_ties_even_f32(z * max))
        } else {
            let max = f64::from(l.depth.max());
            crate::int::f64_to_u32_sat((f64::from(z) * max).round_ties_even())
        }
    }

    /// Converts a stored (unshifted) depth channel value back to `[0, 1]`.
    pub fn depth_to_float(self, value: u32) -> f32 {
        let Some(l) = self.depth_layout() else {
            return 0.0;
        };
        if l.float {
            return f32::from_bits(value);
        }
        (f64::from(value) / f64::from(l.depth.max())) as f32
    }

    /// Packs depth (unshifted channel value) and stencil into a raw value,
    /// keeping the bits of `old` that belong to neither (X bits).
    pub(crate) fn pack_depth_stencil(self, old: u32, depth: u32, stencil: u32) -> u32 {
        let Some(l) = self.depth_layout() else {
            return old;
        };
        let dm = l.depth.mask();
        let sm = l.stencil.mask();
        (old & !(dm | sm)) | ((depth << l.depth.shift) & dm) | ((stencil << l.stencil.shift) & sm)
    }

    /// Unshifted depth channel of a raw depth/stencil value.
    pub(crate) fn unpack_depth(self, raw: u32) -> u32 {
        self.depth_layout()
            .map_or(0, |l| (raw & l.depth.mask()) >> l.depth.shift)
    }

    /// Unshifted stencil channel of a raw depth/stencil value.
    pub(crate) fn unpack_stencil(self, raw: u32) -> u32 {
        self.depth_layout()
            .map_or(0, |l| (raw & l.stencil.mask()) >> l.stencil.shift)
    }
}

/// Reads a little-endian packed pixel of `bpp` (1..=4) bytes. Missing
/// bytes read as 0 (never panics).
#[inline]
pub(crate) fn load_raw(bytes: &[u8], bpp: usize) -> u32 {
    let mut b = [0u8; 4];
    let n = bpp.min(4).min(bytes.len());
    b[..n].copy_from_slice(&bytes[..n]);
    u32::from_le_bytes(b)
}

/// Writes a little-endian packed pixel of `bpp` (1..=4) bytes (as many as
/// `bytes` holds).
#[inline]
pub(crate) fn store_raw(bytes: &mut [u8], bpp: usize, value: u32) {
    let b = value.to_le_bytes();
    let n = bpp.min(4).min(bytes.len());
    bytes[..n].copy_from_slice(&b[..n]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d3dfmt_round_trip() {
        for f in Format::ALL {
            assert_eq!(Format::from_d3dfmt(f.d3dfmt()), Some(f));
        }
        assert_eq!(Format::from_d3dfmt(0), None);
        assert_eq!(Format::from_d3dfmt(0x3154_5844), None);
    }

    #[test]
    fn masks_match_formats_md() {
        let m = |f: Format| f.color_layout().map(|l| l.map(Channel::mask));
        assert_eq!(m(Format::R5G6B5), Some([0, 0xF800, 0x07E0, 0x001F]));
        assert_eq!(m(Format::A1R5G5B5), Some([0x8000, 0x7C00, 0x03E0, 0x001F]));
        assert_eq!(m(Format::A4R4G4B4), Some([0xF000, 0x0F00, 0x00F0, 0x000F]));
        assert_eq!(
            m(Format::A2R10G10B10),
            Some([0xC000_0000, 0x3FF0_0000, 0x000F_FC00, 0x0000_03FF])
        );
        let d = |f: Format| f.depth_layout().map(|l| (l.depth.mask(), l.stencil.mask()));
        assert_eq!(d(Format::D15S1), Some((0xFFFE, 0x0001)));
        assert_eq!(d(Format::D24S8), Some((0xFFFF_FF00, 0xFF)));
        assert_eq!(d(Format::D24X4S4), Some((0xFFFF_FF00, 0x0F)));
        assert_eq!(d(Format::D32), Some((0xFFFF_FFFF, 0)));
    }

    #[test]
    fn clear_colour_rule_keeps_top_bits() {
        // The DDK's clear-colour rule: an n-bit channel keeps the top bits, c >> (8 - n).
        assert_eq!(Format::R5G6B5.encode_argb(0xFF_FF_FF_FF), 0xFFFF);
        assert_eq!(
            Format::R5G6B5.encode_argb(0x00_87_43_21),
            (0x87 >> 3) << 11 | (0x43 >> 2) << 5 | (0x21 >> 3)
        );
        assert_eq!(Format::A4R4G4B4.encode_argb(0x9F_8F_7F_6F), 0x9876);
        assert_eq!(Format::X8R8G8B8.encode_argb(0xAB_12_34_56), 0x0012_3456);
        assert_eq!(
            Format::A2R10G10B10.encode_argb(0xFF_FF_00_80),
            0xC000_0000 | 0x3FF << 20 | 514
        );
        assert_eq!(Format::A8.encode_argb(0x7F_FF_FF_FF), 0x7F);
    }

    #[test]
    fn depth_quantization() {
        assert_eq!(Format::D16.quantize_depth(1.0), 0xFFFF);
        assert_eq!(Format::D24S8.quantize_depth(1.0), 0xFF_FFFF);
        assert_eq!(Format::D24S8.quantize_depth(0.5), 0x80_0000);
        assert_eq!(Format::D32.quantize_depth(1.0), u32::MAX);
        assert_eq!(Format::D15S1.quantize_depth(2.0), 0x7FFF);
        assert_eq!(Format::D16.quantize_depth(f32::NAN), 0);
        assert_eq!(Format::D32FLockable.quantize_depth(0.25), 0.25f32.to_bits());
        let raw = Format::D24S8.pack_depth_stencil(0, 0x12_3456, 0x78);
        assert_eq!(raw, 0x1234_5678);
        assert_eq!(Format::D24S8.unpack_depth(raw), 0x12_3456);
        assert_eq!(Format::D24S8.unpack_stencil(raw), 0x78);
        let raw = Format::D15S1.pack_depth_stencil(0, 0x7FFF, 1);
        assert_eq!(raw, 0xFFFF);
        // X bits of D24X4S4 (7..4) are preserved.
        assert_eq!(Format::D24X4S4.pack_depth_stencil(0xF0, 0, 0x3), 0xF3);
    }
}
