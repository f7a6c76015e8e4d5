//! Texture formats: storage layout and texel decoding.
//!
//! *Input*: a [`TextureFormat`] and the raw little-endian bytes of one
//! texel, one 4×4 block (DXTn) or one 2×1 macro-pixel (YUY2/UYVY).
//! *Output*: RGBA texels as `[f32; 4]` (`[r, g, b, a]`), or packed
//! A8R8G8B8 (D3DCOLOR, `0xAARRGGBB`) for the formats whose channels fit in
//! 8 bits. *Guarantees*: decoding is total (short input reads missing
//! bytes as 0, never panics) and deterministic.
//!
//! ## Channel rules (D3D9)
//! Channels a format lacks read as 1, except that A8 reads its colour as 0
//! (the D3D9 rule: "the default value for formats that contain undefined
//! channels is 1, the only exception is A8, whose colour channels are 0").
//!
//! | Format | `[r, g, b, a]` |
//! |---|---|
//! | X8R8G8B8, R8G8B8, R5G6B5, X1R5G5B5, X4R4G4B4 | (R, G, B, 1) |
//! | A8R8G8B8, A1R5G5B5, A4R4G4B4 | (R, G, B, A) |
//! | A8 | (0, 0, 0, A) |
//! | L8 | (L, L, L, 1) |
//! | A8L8, A4L4 | (L, L, L, A) |
//! | P8 | palette (R, G, B, flags/255 if the palette has alpha, else 1) |
//! | A8P8 | palette (R, G, B), A from the texel |
//! | DXT1 | (R, G, B, 1), or (0, 0, 0, 0) for index 3 of a 3-colour block |
//! | DXT2/DXT3, DXT4/DXT5 | (R, G, B, A) — DXT2/4 are *not* un-premultiplied |
//! | V8U8 | (U, V, 1, 1), U and V signed in [−1, 1] |
//! | L6V5U5 | (U, V, L, 1), U, V signed, L unsigned |
//! | X8L8V8U8 | (U, V, L, 1), U, V signed, L unsigned |
//! | Q8W8V8U8 | (U, V, W, Q), all signed |
//! | R16F, R32F | (R, 1, 1, 1) |
//! | G16R16F, G32R32F, G16R16 | (R, G, 1, 1) |
//! | A16B16G16R16F, A32B32G32R32F, A16B16G16R16 | (R, G, B, A) |
//! | YUY2, UYVY | BT.601 YUV → RGB, A = 1 |
//!
//! * n-bit unsigned channels → `[0, 1]` by `v / (2^n − 1)`; for the packed
//!   A8R8G8B8 form n-bit → 8-bit rounds `v · 255 / (2^n − 1)` to nearest
//!   (5-bit 16 → 132), the same rule as [`crate::Format::decode_argb`].
//!   The float form of an 8-bit-representable format is *defined* as the
//!   packed form / 255, so both forms always agree.
//! * Signed (bump) channels are two's complement; n-bit value v maps to
//!   `v / (2^(n−1) − 1)` clamped to [−1, 1] (so −128 and −127 both give −1).
//! * Float formats are returned as stored (may be outside [0, 1], Inf or
//!   NaN): the stage cascade clamps.
//! * DXTn endpoints expand 5/6-bit channels with the rounding rule above;
//!   interpolated colours are `(2·c0 + c1 + 1) / 3` and `(c0 + c1) / 2`
//!   (integer, per 8-bit channel, rounded). DXT2 and DXT4 decode exactly
//!   like DXT3 and DXT5: the premultiplied colour is returned as stored,
//!   as D3D9 hardware samples them (the application blends with ONE /
//!   INVSRCALPHA). DXT2–5 colour blocks always use the 4-colour mode.
//!   DXT5 alpha: a0 > a1 → 6 interpolated values `((7−i)·a0 + i·a1 + 3) / 7`,
//!   otherwise 4 interpolated values `((5−i)·a0 + i·a1 + 2) / 5`, 0 and 255.
//! * YUY2 (bytes Y0 U Y1 V) and UYVY (bytes U Y0 V Y1) use the BT.601
//!   studio-swing integer conversion Microsoft documents for 8-bit YUV:
//!   C = Y − 16, D = U − 128, E = V − 128,
//!   R = (298·C + 409·E + 128) >> 8, G = (298·C − 100·D − 208·E + 128) >> 8,
//!   B = (298·C + 516·D + 128) >> 8, each clamped to 0..=255
//!   (≈ 1.164, 1.596, −0.391, −0.813, 2.018).

use softhal_types::Format as D3dFormat;

/// A format a texture can be created in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureFormat {
    /// 32-bit RGB, 8 unused bits.
    X8R8G8B8,
    /// 32-bit ARGB.
    A8R8G8B8,
    /// 16-bit RGB 5-6-5.
    R5G6B5,
    /// 16-bit RGB 5-5-5, top bit unused.
    X1R5G5B5,
    /// 16-bit ARGB 1-5-5-5.
    A1R5G5B5,
    /// 16-bit ARGB 4-4-4-4.
    A4R4G4B4,
    /// 16-bit RGB 4-4-4, top 4 bits unused.
    X4R4G4B4,
    /// 24-bit RGB (bytes B, G, R).
    R8G8B8,
    /// 8-bit alpha.
    A8,
    /// 8-bit luminance.
    L8,
    /// 16-bit luminance (low byte) and alpha (high byte).
    A8L8,
    /// 8-bit luminance (low nibble) and alpha (high nibble).
    A4L4,
    /// 8-bit palette index.
    P8,
    /// 16-bit palette index (low byte) and alpha (high byte).
    A8P8,
    /// BC1: 8-byte 4×4 blocks, optional 1-bit alpha.
    Dxt1,
    /// BC2 with premultiplied colour: explicit 4-bit alpha.
    Dxt2,
    /// BC2: explicit 4-bit alpha.
    Dxt3,
    /// BC3 with premultiplied colour: interpolated alpha.
    Dxt4,
    /// BC3: interpolated alpha.
    Dxt5,
    /// 16-bit signed bump du (low byte), dv (high byte).
    V8U8,
    /// 16-bit bump: signed du (bits 4..0), dv (9..5), unsigned L (15..10).
    L6V5U5,
    /// 32-bit bump: signed du (byte 0), dv (byte 1), unsigned L (byte 2).
    X8L8V8U8,
    /// 32-bit signed U, V, W, Q (bytes 0..3).
    Q8W8V8U8,
    /// 16-bit float red.
    R16F,
    /// 2 × 16-bit float (R low, G high).
    G16R16F,
    /// 4 × 16-bit float (R, G, B, A in memory order).
    A16B16G16R16F,
    /// 32-bit float red.
    R32F,
    /// 2 × 32-bit float (R, G).
    G32R32F,
    /// 4 × 32-bit float (R, G, B, A).
    A32B32G32R32F,
    /// 2 × 16-bit unsigned normalized (R low, G high).
    G16R16,
    /// 4 × 16-bit unsigned normalized (R, G, B, A in memory order).
    A16B16G16R16,
    /// Packed YUV 4:2:2, bytes U Y0 V Y1.
    Uyvy,
    /// Packed YUV 4:2:2, bytes Y0 U Y1 V.
    Yuy2,
}

/// How a format's texels are laid out in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexelLayout {
    /// One texel every `bytes` bytes.
    Packed {
        /// Bytes per texel (1..=16).
        bytes: u32,
    },
    /// 4×4 texel blocks of `bytes` bytes (DXTn).
    Block {
        /// Bytes per block (8 or 16).
        bytes: u32,
    },
    /// 2×1 texel macro-pixels of 4 bytes (YUY2, UYVY).
    MacroPixel,
}

impl TextureFormat {
    /// Every texture format (handy for tests).
    pub const ALL: [TextureFormat; 33] = [
        TextureFormat::X8R8G8B8,
        TextureFormat::A8R8G8B8,
        TextureFormat::R5G6B5,
        TextureFormat::X1R5G5B5,
        TextureFormat::A1R5G5B5,
        TextureFormat::A4R4G4B4,
        TextureFormat::X4R4G4B4,
        TextureFormat::R8G8B8,
        TextureFormat::A8,
        TextureFormat::L8,
        TextureFormat::A8L8,
        TextureFormat::A4L4,
        TextureFormat::P8,
        TextureFormat::A8P8,
        TextureFormat::Dxt1,
        TextureFormat::Dxt2,
        TextureFormat::Dxt3,
        TextureFormat::Dxt4,
        TextureFormat::Dxt5,
        TextureFormat::V8U8,
        TextureFormat::L6V5U5,
        TextureFormat::X8L8V8U8,
        TextureFormat::Q8W8V8U8,
        TextureFormat::R16F,
        TextureFormat::G16R16F,
        TextureFormat::A16B16G16R16F,
        TextureFormat::R32F,
        TextureFormat::G32R32F,
        TextureFormat::A32B32G32R32F,
        TextureFormat::G16R16,
        TextureFormat::A16B16G16R16,
        TextureFormat::Uyvy,
        TextureFormat::Yuy2,
    ];

    /// The format for a D3DFORMAT number (FOURCC codes for DXTn and YUV),
    /// `None` if textures of it are not supported.
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
            TextureFormat::R8G8B8 => D3dFormat::R8G8B8,
            TextureFormat::A8R8G8B8 => D3dFormat::A8R8G8B8,
            TextureFormat::X8R8G8B8 => D3dFormat::X8R8G8B8,
            TextureFormat::R5G6B5 => D3dFormat::R5G6B5,
            TextureFormat::X1R5G5B5 => D3dFormat::X1R5G5B5,
            TextureFormat::A1R5G5B5 => D3dFormat::A1R5G5B5,
            TextureFormat::A4R4G4B4 => D3dFormat::A4R4G4B4,
            TextureFormat::A8 => D3dFormat::A8,
            TextureFormat::X4R4G4B4 => D3dFormat::X4R4G4B4,
            TextureFormat::G16R16 => D3dFormat::G16R16,
            TextureFormat::A16B16G16R16 => D3dFormat::A16B16G16R16,
            TextureFormat::A8P8 => D3dFormat::A8P8,
            TextureFormat::P8 => D3dFormat::P8,
            TextureFormat::L8 => D3dFormat::L8,
            TextureFormat::A8L8 => D3dFormat::A8L8,
            TextureFormat::A4L4 => D3dFormat::A4L4,
            TextureFormat::V8U8 => D3dFormat::V8U8,
            TextureFormat::L6V5U5 => D3dFormat::L6V5U5,
            TextureFormat::X8L8V8U8 => D3dFormat::X8L8V8U8,
            TextureFormat::Q8W8V8U8 => D3dFormat::Q8W8V8U8,
            TextureFormat::R16F => D3dFormat::R16F,
            TextureFormat::G16R16F => D3dFormat::G16R16F,
            TextureFormat::A16B16G16R16F => D3dFormat::A16B16G16R16F,
            TextureFormat::R32F => D3dFormat::R32F,
            TextureFormat::G32R32F => D3dFormat::G32R32F,
            TextureFormat::A32B32G32R32F => D3dFormat::A32B32G32R32F,
            TextureFormat::Dxt1 => D3dFormat::Dxt1,
            TextureFormat::Dxt2 => D3dFormat::Dxt2,
            TextureFormat::Dxt3 => D3dFormat::Dxt3,
            TextureFormat::Dxt4 => D3dFormat::Dxt4,
            TextureFormat::Dxt5 => D3dFormat::Dxt5,
            TextureFormat::Uyvy => D3dFormat::Uyvy,
            TextureFormat::Yuy2 => D3dFormat::Yuy2,
        }
    }

    /// Memory layout of the format.
    pub fn layout(self) -> TexelLayout {
        use TextureFormat as F;
        let packed = |bytes| TexelLayout::Packed { bytes };
        match self {
            F::A8 | F::L8 | F::A4L4 | F::P8 => packed(1),
            F::R5G6B5
            | F::X1R5G5B5
            | F::A1R5G5B5
            | F::A4R4G4B4
            | F::X4R4G4B4
            | F::A8L8
            | F::A8P8
            | F::V8U8
            | F::L6V5U5
            | F::R16F => packed(2),
            F::R8G8B8 => packed(3),
            F::X8R8G8B8
            | F::A8R8G8B8
            | F::X8L8V8U8
            | F::Q8W8V8U8
            | F::G16R16F
            | F::R32F
            | F::G16R16 => packed(4),
            F::A16B16G16R16F | F::G32R32F | F::A16B16G16R16 => packed(8),
            F::A32B32G32R32F => packed(16),
            F::Dxt1 => TexelLayout::Block { bytes: 8 },
            F::Dxt2 | F::Dxt3 | F::Dxt4 | F::Dxt5 => TexelLayout::Block { bytes: 16 },
            F::Uyvy | F::Yuy2 => TexelLayout::MacroPixel,
        }
    }

    /// Bytes of one row of `width` texels (one row of 4×4 blocks for DXTn),
    /// `None` on overflow. Rows are tightly packed.
    pub fn row_bytes(self, width: u32) -> Option<u64> {
        let w = u64::from(width);
        match self.layout() {
            TexelLayout::Packed { bytes } => w.checked_mul(u64::from(bytes)),
            TexelLayout::Block { bytes } => w.div_ceil(4).checked_mul(u64::from(bytes)),
            TexelLayout::MacroPixel => w.div_ceil(2).checked_mul(4),
        }
    }

    /// Number of rows of storage for `height` texels (rows of blocks for
    /// DXTn).
    pub fn row_count(self, height: u32) -> u32 {
        match self.layout() {
            TexelLayout::Block { .. } => height.div_ceil(4),
            _ => height,
        }
    }

    /// True for block-compressed formats (DXT1–5).
    pub fn is_compressed(self) -> bool {
        matches!(self.layout(), TexelLayout::Block { .. })
    }

    /// True if every channel fits in 8 unsigned bits, i.e. the texel has an
    /// exact packed A8R8G8B8 form ([`decode_argb8`] returns `Some`).
    pub fn is_argb8(self) -> bool {
        use TextureFormat as F;
        !matches!(
            self,
            F::V8U8
                | F::L6V5U5
                | F::X8L8V8U8
                | F::Q8W8V8U8
                | F::R16F
                | F::G16R16F
                | F::A16B16G16R16F
                | F::R32F
                | F::G32R32F
                | F::A32B32G32R32F
                | F::G16R16
                | F::A16B16G16R16
        )
    }

    /// True for the signed bump formats (V8U8, L6V5U5, X8L8V8U8, Q8W8V8U8).
    pub fn is_bump(self) -> bool {
        use TextureFormat as F;
        matches!(self, F::V8U8 | F::L6V5U5 | F::X8L8V8U8 | F::Q8W8V8U8)
    }

    /// True for the floating-point formats (R16F … A32B32G32R32F), whose
    /// texels may lie outside [−1, 1].
    pub fn is_float(self) -> bool {
        use TextureFormat as F;
        matches!(
            self,
            F::R16F | F::G16R16F | F::A16B16G16R16F | F::R32F | F::G32R32F | F::A32B32G32R32F
        )
    }

    /// True for palettized formats (P8, A8P8).
    pub fn is_palettized(self) -> bool {
        matches!(self, TextureFormat::P8 | TextureFormat::A8P8)
    }

    /// True if the format carries alpha (used by the legacy
    /// TEXTUREMAPBLEND mapping). Palettized formats report `false` (P8's
    /// alpha depends on the palette; A8P8 reports `true`).
    pub fn has_alpha(self) -> bool {
        use TextureFormat as F;
        matches!(
            self,
            F::A8R8G8B8
                | F::A1R5G5B5
                | F::A4R4G4B4
                | F::A8
                | F::A8L8
                | F::A4L4
                | F::A8P8
                | F::Dxt1
                | F::Dxt2
                | F::Dxt3
                | F::Dxt4
                | F::Dxt5
                | F::A16B16G16R16F
                | F::A32B32G32R32F
                | F::A16B16G16R16
        )
    }
}

/// A 256-entry palette for P8 / A8P8 textures.
///
/// Entries are PALETTEENTRY bytes in memory order `[red, green, blue,
/// flags]`. When `has_alpha` is true (the DDraw palette was created with
/// DDPCAPS_ALPHA) the flags byte is the entry's alpha; otherwise alpha is
/// 255 (P8) and the flags byte is ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Palette {
    /// The entries, `[r, g, b, flags]`.
    pub entries: [[u8; 4]; super::limits::PALETTE_ENTRIES],
    /// Whether `flags` holds alpha.
    pub has_alpha: bool,
}

impl Default for Palette {
    fn default() -> Self {
        Palette {
            entries: [[0, 0, 0, 0]; super::limits::PALETTE_ENTRIES],
            has_alpha: false,
        }
    }
}

impl Palette {
    /// Builds a palette from up to 256 PALETTEENTRY records (4 bytes each,
    /// R, G, B, flags) starting at entry `start`; entries not given stay
    /// black. Extra bytes are ignored.
    pub fn from_bytes(bytes: &[u8], start: usize, has_alpha: bool) -> Self {
        let mut p = Palette {
            has_alpha,
            ..Palette::default()
        };
        p.update(bytes, start);
        p
    }

    /// Overwrites entries from `start` with 4-byte PALETTEENTRY records
    /// (D3DDP2OP_UPDATEPALETTE); entries past 255 are ignored.
    pub fn update(&mut self, bytes: &[u8], start: usize) {
        for (entry, chunk) in self
            .entries
            .iter_mut()
            .skip(start)
            .zip(bytes.chunks_exact(4))
        {
            entry.copy_from_slice(chunk);
        }
    }

    /// The D3DCOLOR (`0xAARRGGBB`) of entry `index` (alpha 255 unless the
    /// palette has alpha).
    pub fn argb(&self, index: u8) -> u32 {
        let [r, g, b, f] = self.entries[usize::from(index)];
        let a = if self.has_alpha { f } else { 255 };
        u32::from_be_bytes([a, r, g, b])
    }
}

/// Reads `N` little-endian bytes at `at`; missing bytes read as 0.
#[inline]
fn le<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    let mut out = [0u8; N];
    if let Some(src) = bytes.get(at..) {
        let n = src.len().min(N);
        out[..n].copy_from_slice(&src[..n]);
    }
    out
}

#[inline]
fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(le::<2>(bytes, at))
}

#[inline]
fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(le::<4>(bytes, at))
}

/// n-bit value (`v ≤ 2^n − 1`) → 8 bits, rounded to nearest.
#[inline]
fn expand(v: u32, bits: u32) -> u32 {
    let max = (1u32 << bits) - 1;
    ((v & max) * 255 + max / 2) / max
}

/// Packs 8-bit channels into a D3DCOLOR.
#[inline]
fn argb(a: u32, r: u32, g: u32, b: u32) -> u32 {
    (a & 0xFF) << 24 | (r & 0xFF) << 16 | (g & 0xFF) << 8 | (b & 0xFF)
}

/// Unpacks a D3DCOLOR into `[r, g, b, a]` in [0, 1].
#[inline]
pub fn argb_to_rgba(c: u32) -> [f32; 4] {
    let [a, r, g, b] = c.to_be_bytes();
    [
        f32::from(r) / 255.0,
        f32::from(g) / 255.0,
        f32::from(b) / 255.0,
        f32::from(a) / 255.0,
    ]
}

/// Converts an IEEE half (binary16) to f32 exactly (subnormals, Inf and
/// NaN included).
pub fn half_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1F);
    let man = u32::from(h & 0x3FF);
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: value = m · 2^-24, exact in f32.
            let v = m as f32 * (1.0 / 16_777_216.0);
            return if sign != 0 { -v } else { v };
        }
        (0x1F, m) => sign | 0x7F80_0000 | (m << 13),
        (e, m) => sign | ((e + 127 - 15) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// Signed n-bit two's-complement field → [−1, 1] (`v / (2^(n−1) − 1)`,
/// clamped).
#[inline]
fn snorm(v: u32, bits: u32) -> f32 {
    let shift = 32 - bits;
    // Sign-extend the low `bits` bits.
    let s = ((v << shift) as i32) >> shift;
    let max = ((1u32 << (bits - 1)) - 1) as f32;
    (s as f32 / max).clamp(-1.0, 1.0)
}

#[inline]
fn unorm(v: u32, bits: u32) -> f32 {
    let max = if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    (v & max) as f32 / max as f32
}

/// Decodes one texel of a packed (non-block, non-YUV) format to D3DCOLOR.
/// `bytes` starts at the texel. `None` if the format has no exact 8-bit
/// form or is not packed.
fn packed_argb8(format: TextureFormat, bytes: &[u8], palette: Option<&Palette>) -> Option<u32> {
    use TextureFormat as F;
    let v16 = || u32::from(u16_at(bytes, 0));
    let b0 = || u32::from(le::<1>(bytes, 0)[0]);
    Some(match format {
        F::A8R8G8B8 => u32_at(bytes, 0),
        F::X8R8G8B8 => u32_at(bytes, 0) | 0xFF00_0000,
        F::R8G8B8 => {
            let [b, g, r] = le::<3>(bytes, 0);
            argb(255, r.into(), g.into(), b.into())
        }
        F::R5G6B5 => {
            let v = v16();
            argb(255, expand(v >> 11, 5), expand(v >> 5, 6), expand(v, 5))
        }
        F::X1R5G5B5 | F::A1R5G5B5 => {
            let v = v16();
            let a = if format == F::X1R5G5B5 || v & 0x8000 != 0 {
                255
            } else {
                0
            };
            argb(a, expand(v >> 10, 5), expand(v >> 5, 5), expand(v, 5))
        }
        F::A4R4G4B4 | F::X4R4G4B4 => {
            let v = v16();
            let a = if format == F::X4R4G4B4 {
                255
            } else {
                expand(v >> 12, 4)
            };
            argb(a, expand(v >> 8, 4), expand(v >> 4, 4), expand(v, 4))
        }
        F::A8 => argb(b0(), 0, 0, 0),
        F::L8 => {
            let l = b0();
            argb(255, l, l, l)
        }
        F::A8L8 => {
            let v = v16();
            let l = v & 0xFF;
            argb(v >> 8, l, l, l)
        }
        F::A4L4 => {
            let v = b0();
            let l = expand(v, 4);
            argb(expand(v >> 4, 4), l, l, l)
        }
        F::P8 => palette.map_or(0xFF00_0000, |p| p.argb(le::<1>(bytes, 0)[0])),
        F::A8P8 => {
            let [i, a] = le::<2>(bytes, 0);
            let rgb = palette.map_or(0, |p| p.argb(i) & 0x00FF_FFFF);
            u32::from(a) << 24 | rgb
        }
        _ => return None,
    })
}

/// Decodes one texel of a packed format to `[r, g, b, a]`.
fn packed_rgba(format: TextureFormat, bytes: &[u8], palette: Option<&Palette>) -> [f32; 4] {
    use TextureFormat as F;
    if let Some(c) = packed_argb8(format, bytes, palette) {
        return argb_to_rgba(c);
    }
    let h = |i: usize| half_to_f32(u16_at(bytes, 2 * i));
    let f = |i: usize| f32::from_bits(u32_at(bytes, 4 * i));
    let n16 = |i: usize| unorm(u32::from(u16_at(bytes, 2 * i)), 16);
    match format {
        F::V8U8 => {
            let v = u32::from(u16_at(bytes, 0));
            [snorm(v, 8), snorm(v >> 8, 8), 1.0, 1.0]
        }
        F::L6V5U5 => {
            let v = u32::from(u16_at(bytes, 0));
            [snorm(v, 5), snorm(v >> 5, 5), unorm(v >> 10, 6), 1.0]
        }
        F::X8L8V8U8 => {
            let v = u32_at(bytes, 0);
            [snorm(v, 8), snorm(v >> 8, 8), unorm(v >> 16, 8), 1.0]
        }
        F::Q8W8V8U8 => {
            let v = u32_at(bytes, 0);
            [
                snorm(v, 8),
                snorm(v >> 8, 8),
                snorm(v >> 16, 8),
                snorm(v >> 24, 8),
            ]
        }
        F::R16F => [h(0), 1.0, 1.0, 1.0],
        F::G16R16F => [h(0), h(1), 1.0, 1.0],
        F::A16B16G16R16F => [h(0), h(1), h(2), h(3)],
        F::R32F => [f(0), 1.0, 1.0, 1.0],
        F::G32R32F => [f(0), f(1), 1.0, 1.0],
        F::A32B32G32R32F => [f(0), f(1), f(2), f(3)],
        F::G16R16 => [n16(0), n16(1), 1.0, 1.0],
        F::A16B16G16R16 => [n16(0), n16(1), n16(2), n16(3)],
        _ => [0.0, 0.0, 0.0, 0.0],
    }
}

/// The 4 colours (D3DCOLOR) of a DXT colour block. `three_colour_ok`:
/// DXT1 allows the c0 ≤ c1 mode (index 3 = transparent black).
fn dxt_palette(block: &[u8], three_colour_ok: bool) -> [u32; 4] {
    let c0 = u32::from(u16_at(block, 0));
    let c1 = u32::from(u16_at(block, 2));
    let rgb = |c: u32| [expand(c >> 11, 5), expand(c >> 5, 6), expand(c, 5)];
    let (p0, p1) = (rgb(c0), rgb(c1));
    let mix = |w0: u32, w1: u32, d: u32| {
        let ch = |i: usize| (w0 * p0[i] + w1 * p1[i] + d / 2) / d;
        argb(255, ch(0), ch(1), ch(2))
    };
    let e0 = argb(255, p0[0], p0[1], p0[2]);
    let e1 = argb(255, p1[0], p1[1], p1[2]);
    if c0 > c1 || !three_colour_ok {
        // (2·c0 + c1 + 1) / 3: d = 3 → d / 2 = 1.
        [e0, e1, mix(2, 1, 3), mix(1, 2, 3)]
    } else {
        // (c0 + c1 + 1) / 2 and transparent black.
        [e0, e1, mix(1, 1, 2), 0]
    }
}

/// Colour (D3DCOLOR, alpha 255 except DXT1 transparent) of texel (x, y)
/// (0..4) of a colour block.
fn dxt_colour(block: &[u8], x: u32, y: u32, three_colour_ok: bool) -> u32 {
    let pal = dxt_palette(block, three_colour_ok);
    let bits = u32_at(block, 4);
    let idx = (bits >> (2 * (4 * (y & 3) + (x & 3)))) & 3;
    pal[idx as usize]
}

/// Alpha (0..=255) of texel (x, y) of a DXT4/5 interpolated alpha block.
fn dxt5_alpha(block: &[u8], x: u32, y: u32) -> u32 {
    let [a0, a1] = le::<2>(block, 0);
    let (a0, a1) = (u32::from(a0), u32::from(a1));
    let b = le::<6>(block, 2);
    let mut bits = 0u64;
    for (i, v) in b.iter().enumerate() {
        bits |= u64::from(*v) << (8 * i);
    }
    let idx = ((bits >> (3 * (4 * (y & 3) + (x & 3)))) & 7) as u32;
    match idx {
        0 => a0,
        1 => a1,
        i if a0 > a1 => ((8 - i) * a0 + (i - 1) * a1 + 3) / 7,
        6 => 0,
        7 => 255,
        i => ((6 - i) * a0 + (i - 1) * a1 + 2) / 5,
    }
}

/// Decodes texel (x, y) (0..4 inside the block) of one DXTn block.
pub fn decode_dxt_block_texel(format: TextureFormat, block: &[u8], x: u32, y: u32) -> u32 {
    use TextureFormat as F;
    match format {
        F::Dxt1 => dxt_colour(block, x, y, true),
        F::Dxt2 | F::Dxt3 => {
            let rgb = dxt_colour(block.get(8..).unwrap_or(&[]), x, y, false) & 0x00FF_FFFF;
            let bits = u64::from_le_bytes(le::<8>(block, 0));
            let a = ((bits >> (4 * (4 * (y & 3) + (x & 3)))) & 0xF) as u32;
            (a * 17) << 24 | rgb
        }
        F::Dxt4 | F::Dxt5 => {
            let rgb = dxt_colour(block.get(8..).unwrap_or(&[]), x, y, false) & 0x00FF_FFFF;
            dxt5_alpha(block, x, y) << 24 | rgb
        }
        _ => 0,
    }
}

/// BT.601 studio-swing YUV → D3DCOLOR (alpha 255), see the module docs.
pub fn yuv_to_argb(y: u8, u: u8, v: u8) -> u32 {
    let c = i32::from(y) - 16;
    let d = i32::from(u) - 128;
    let e = i32::from(v) - 128;
    let cl = |x: i32| (x >> 8).clamp(0, 255) as u32;
    argb(
        255,
        cl(298 * c + 409 * e + 128),
        cl(298 * c - 100 * d - 208 * e + 128),
        cl(298 * c + 516 * d + 128),
    )
}

/// Decodes texel `x` (0 or 1: which half) of one 4-byte YUY2/UYVY
/// macro-pixel.
pub fn decode_macro_pixel(format: TextureFormat, mp: &[u8], x: u32) -> u32 {
    let [b0, b1, b2, b3] = le::<4>(mp, 0);
    let (y0, u, y1, v) = match format {
        TextureFormat::Uyvy => (b1, b0, b3, b2),
        _ => (b0, b1, b2, b3),
    };
    yuv_to_argb(if x & 1 == 0 { y0 } else { y1 }, u, v)
}

/// Decodes texel (x, y) of a tightly addressed 2D image: `bytes` is one
/// slice with rows `row_pitch` bytes apart (rows of blocks for DXTn).
/// Packed A8R8G8B8 form; `None` for formats without one ([`TextureFormat::is_argb8`])
/// or coordinates outside the data.
pub fn decode_argb8(
    format: TextureFormat,
    bytes: &[u8],
    row_pitch: usize,
    x: u32,
    y: u32,
    palette: Option<&Palette>,
) -> Option<u32> {
    let (x, y) = (x as usize, y as usize);
    match format.layout() {
        TexelLayout::Packed { bytes: bpp } => {
            let at = y
                .checked_mul(row_pitch)?
                .checked_add(x.checked_mul(bpp as usize)?)?;
            packed_argb8(format, bytes.get(at..)?, palette)
        }
        TexelLayout::Block { bytes: bb } => {
            let at = (y / 4)
                .checked_mul(row_pitch)?
                .checked_add((x / 4).checked_mul(bb as usize)?)?;
            let block = bytes.get(at..at.checked_add(bb as usize)?)?;
            Some(decode_dxt_block_texel(
                format,
                block,
                x as u32 & 3,
                y as u32 & 3,
            ))
        }
        TexelLayout::MacroPixel => {
            let at = y
                .checked_mul(row_pitch)?
                .checked_add((x / 2).checked_mul(4)?)?;
            let mp = bytes.get(at..at.checked_add(4)?)?;
            Some(decode_macro_pixel(format, mp, x as u32))
        }
    }
}

/// Decodes texel (x, y) of one 2D slice to `[r, g, b, a]` (see
/// [`decode_argb8`] for the addressing). Coordinates outside the data
/// give `[0, 0, 0, 0]`.
pub fn decode_rgba(
    format: TextureFormat,
    bytes: &[u8],
    row_pitch: usize,
    x: u32,
    y: u32,
    palette: Option<&Palette>,
) -> [f32; 4] {
    if format.is_argb8() {
        return decode_argb8(format, bytes, row_pitch, x, y, palette)
            .map_or([0.0; 4], argb_to_rgba);
    }
    let TexelLayout::Packed { bytes: bpp } = format.layout() else {
        return [0.0; 4];
    };
    let at = (y as usize)
        .checked_mul(row_pitch)
        .and_then(|r| r.checked_add((x as usize).checked_mul(bpp as usize)?));
    match at.and_then(|a| bytes.get(a..)) {
        Some(src) if src.len() >= bpp as usize => packed_rgba(format, src, palette),
        _ => [0.0; 4],
    }
}

/// The raw bits (up to 32) of texel (x, y) of a packed format, for colour
/// keying; `None` for DXTn/YUV, formats wider than 32 bits, or outside the
/// data.
pub fn raw_texel(
    format: TextureFormat,
    bytes: &[u8],
    row_pitch: usize,
    x: u32,
    y: u32,
) -> Option<u32> {
    let TexelLayout::Packed { bytes: bpp } = format.layout() else {
        return None;
    };
    if bpp > 4 {
        return None;
    }
    let at = (y as usize)
        .checked_mul(row_pitch)?
        .checked_add((x as usize).checked_mul(bpp as usize)?)?;
    let src = bytes.get(at..at.checked_add(bpp as usize)?)?;
    let mut b = [0u8; 4];
    b[..src.len()].copy_from_slice(src);
    Some(u32::from_le_bytes(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fourcc_numbers_match_formats_md() {
        assert_eq!(TextureFormat::Dxt1.d3dfmt(), 0x3154_5844);
        assert_eq!(TextureFormat::Dxt5.d3dfmt(), 0x3554_5844);
        assert_eq!(TextureFormat::Yuy2.d3dfmt(), 0x3259_5559);
        assert_eq!(TextureFormat::Uyvy.d3dfmt(), 0x5956_5955);
        for f in TextureFormat::ALL {
            assert_eq!(TextureFormat::from_d3dfmt(f.d3dfmt()), Some(f));
        }
        assert_eq!(TextureFormat::from_d3dfmt(0), None);
    }

    #[test]
    fn half_floats() {
        assert_eq!(half_to_f32(0x3C00), 1.0);
        assert_eq!(half_to_f32(0xC000), -2.0);
        assert_eq!(half_to_f32(0x3800), 0.5);
        assert_eq!(half_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(half_to_f32(0x7C00), f32::INFINITY);
        assert!(half_to_f32(0x7E00).is_nan());
        assert_eq!(half_to_f32(0x7BFF), 65504.0);
    }

    #[test]
    fn expand_rounds() {
        assert_eq!(expand(16, 5), 132);
        assert_eq!(expand(31, 5), 255);
        assert_eq!(expand(32, 6), 130);
        assert_eq!(expand(8, 4), 136);
    }

    #[test]
    fn snorm_clamps() {
        assert_eq!(snorm(0x80, 8), -1.0);
        assert_eq!(snorm(0x81, 8), -1.0);
        assert_eq!(snorm(0x7F, 8), 1.0);
        assert_eq!(snorm(0x10, 5), -1.0);
        assert_eq!(snorm(0x0F, 5), 1.0);
    }
}
