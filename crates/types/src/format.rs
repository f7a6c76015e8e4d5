//! `D3DFORMAT`: surface, buffer and depth formats (`D3DFMT_*`).
//!
//! In: a D3DFMT number (from a DX8+ format list, a `DDPF_D3DFORMAT` /
//! `DDPF_FOURCC` pixel format, ...). Out: [`Format`], a closed enum of the 70
//! codes of the DX8/DX9 headers plus the DDI-only depth formats of
//! `d3dhal.h`; the `D3DFMT_INTERNAL_*` spellings are parse-only aliases.
//! FOURCC formats have the four characters packed first-character-lowest
//! ([`make_fourcc`]).

/// Packs a FOURCC code: `a | b << 8 | c << 16 | d << 24`.
pub const fn make_fourcc(a: u8, b: u8, c: u8, d: u8) -> u32 {
    (a as u32) | (b as u32) << 8 | (c as u32) << 16 | (d as u32) << 24
}

/// `D3DFMT_A1_SURFACE_MAXWIDTH`: a size limit of `D3DFMT_A1` surfaces, not a format.
pub const D3DFMT_A1_SURFACE_MAXWIDTH: u32 = 8192;
/// `D3DFMT_A1_SURFACE_MAXHEIGHT`: a size limit of `D3DFMT_A1` surfaces, not a format.
pub const D3DFMT_A1_SURFACE_MAXHEIGHT: u32 = 2048;

crate::ddi_enum! {
    /// A surface/buffer format (`D3DFORMAT`).
    pub enum Format: u32 = "D3DFORMAT", prefix "D3DFMT_" {
        /// `D3DFMT_UNKNOWN` = 0.
        Unknown = 0 => "D3DFMT_UNKNOWN",
        /// `D3DFMT_R8G8B8` = 20.
        R8G8B8 = 20 => "D3DFMT_R8G8B8",
        /// `D3DFMT_A8R8G8B8` = 21.
        A8R8G8B8 = 21 => "D3DFMT_A8R8G8B8",
        /// `D3DFMT_X8R8G8B8` = 22.
        X8R8G8B8 = 22 => "D3DFMT_X8R8G8B8",
        /// `D3DFMT_R5G6B5` = 23.
        R5G6B5 = 23 => "D3DFMT_R5G6B5",
        /// `D3DFMT_X1R5G5B5` = 24.
        X1R5G5B5 = 24 => "D3DFMT_X1R5G5B5",
        /// `D3DFMT_A1R5G5B5` = 25.
        A1R5G5B5 = 25 => "D3DFMT_A1R5G5B5",
        /// `D3DFMT_A4R4G4B4` = 26.
        A4R4G4B4 = 26 => "D3DFMT_A4R4G4B4",
        /// `D3DFMT_R3G3B2` = 27.
        R3G3B2 = 27 => "D3DFMT_R3G3B2",
        /// `D3DFMT_A8` = 28.
        A8 = 28 => "D3DFMT_A8",
        /// `D3DFMT_A8R3G3B2` = 29.
        A8R3G3B2 = 29 => "D3DFMT_A8R3G3B2",
        /// `D3DFMT_X4R4G4B4` = 30.
        X4R4G4B4 = 30 => "D3DFMT_X4R4G4B4",
        /// `D3DFMT_A2B10G10R10` = 31.
        A2B10G10R10 = 31 => "D3DFMT_A2B10G10R10",
        /// `D3DFMT_A8B8G8R8` = 32.
        A8B8G8R8 = 32 => "D3DFMT_A8B8G8R8",
        /// `D3DFMT_X8B8G8R8` = 33.
        X8B8G8R8 = 33 => "D3DFMT_X8B8G8R8",
        /// `D3DFMT_G16R16` = 34.
        G16R16 = 34 => "D3DFMT_G16R16",
        /// `D3DFMT_A2R10G10B10` = 35.
        A2R10G10B10 = 35 => "D3DFMT_A2R10G10B10",
        /// `D3DFMT_A16B16G16R16` = 36.
        A16B16G16R16 = 36 => "D3DFMT_A16B16G16R16",
        /// `D3DFMT_A8P8` = 40.
        A8P8 = 40 => "D3DFMT_A8P8",
        /// `D3DFMT_P8` = 41.
        P8 = 41 => "D3DFMT_P8",
        /// `D3DFMT_L8` = 50.
        L8 = 50 => "D3DFMT_L8",
        /// `D3DFMT_A8L8` = 51.
        A8L8 = 51 => "D3DFMT_A8L8",
        /// `D3DFMT_A4L4` = 52.
        A4L4 = 52 => "D3DFMT_A4L4",
        /// `D3DFMT_V8U8` = 60.
        V8U8 = 60 => "D3DFMT_V8U8",
        /// `D3DFMT_L6V5U5` = 61.
        L6V5U5 = 61 => "D3DFMT_L6V5U5",
        /// `D3DFMT_X8L8V8U8` = 62.
        X8L8V8U8 = 62 => "D3DFMT_X8L8V8U8",
        /// `D3DFMT_Q8W8V8U8` = 63. Passed as FOURCC.
        Q8W8V8U8 = 63 => "D3DFMT_Q8W8V8U8",
        /// `D3DFMT_V16U16` = 64. Passed as FOURCC.
        V16U16 = 64 => "D3DFMT_V16U16",
        /// `D3DFMT_W11V11U10` = 65. DX8.1 API only, kept in `d3dhal.h` for drivers; passed as FOURCC.
        W11V11U10 = 65 => "D3DFMT_W11V11U10",
        /// `D3DFMT_A2W10V10U10` = 67.
        A2W10V10U10 = 67 => "D3DFMT_A2W10V10U10",
        /// `D3DFMT_D16_LOCKABLE` = 70.
        D16Lockable = 70 => "D3DFMT_D16_LOCKABLE",
        /// `D3DFMT_D32` = 71. API + DDI.
        D32 = 71 => "D3DFMT_D32" | "D3DFMT_INTERNAL_D32",
        /// `D3DFMT_S1D15` = 72. DDI only: stencil in the MSB.
        S1D15 = 72 => "D3DFMT_S1D15" | "D3DFMT_INTERNAL_S1D15",
        /// `D3DFMT_D15S1` = 73.
        D15S1 = 73 => "D3DFMT_D15S1" | "D3DFMT_INTERNAL_D15S1",
        /// `D3DFMT_S8D24` = 74. DDI only: stencil in top byte.
        S8D24 = 74 => "D3DFMT_S8D24" | "D3DFMT_INTERNAL_S8D24",
        /// `D3DFMT_D24S8` = 75.
        D24S8 = 75 => "D3DFMT_D24S8" | "D3DFMT_INTERNAL_D24S8",
        /// `D3DFMT_X8D24` = 76. DDI only.
        X8D24 = 76 => "D3DFMT_X8D24" | "D3DFMT_INTERNAL_X8D24",
        /// `D3DFMT_D24X8` = 77.
        D24X8 = 77 => "D3DFMT_D24X8" | "D3DFMT_INTERNAL_D24X8",
        /// `D3DFMT_X4S4D24` = 78. DDI only.
        X4S4D24 = 78 => "D3DFMT_X4S4D24",
        /// `D3DFMT_D24X4S4` = 79.
        D24X4S4 = 79 => "D3DFMT_D24X4S4",
        /// `D3DFMT_D16` = 80.
        D16 = 80 => "D3DFMT_D16",
        /// `D3DFMT_L16` = 81.
        L16 = 81 => "D3DFMT_L16",
        /// `D3DFMT_D32F_LOCKABLE` = 82.
        D32FLockable = 82 => "D3DFMT_D32F_LOCKABLE",
        /// `D3DFMT_D24FS8` = 83.
        D24FS8 = 83 => "D3DFMT_D24FS8",
        /// `D3DFMT_D32_LOCKABLE` = 84.
        D32Lockable = 84 => "D3DFMT_D32_LOCKABLE",
        /// `D3DFMT_S8_LOCKABLE` = 85.
        S8Lockable = 85 => "D3DFMT_S8_LOCKABLE",
        /// `D3DFMT_VERTEXDATA` = 100. Buffer.
        VertexData = 100 => "D3DFMT_VERTEXDATA",
        /// `D3DFMT_INDEX16` = 101. Buffer.
        Index16 = 101 => "D3DFMT_INDEX16",
        /// `D3DFMT_INDEX32` = 102. Buffer.
        Index32 = 102 => "D3DFMT_INDEX32",
        /// `D3DFMT_Q16W16V16U16` = 110.
        Q16W16V16U16 = 110 => "D3DFMT_Q16W16V16U16",
        /// `D3DFMT_R16F` = 111.
        R16F = 111 => "D3DFMT_R16F",
        /// `D3DFMT_G16R16F` = 112.
        G16R16F = 112 => "D3DFMT_G16R16F",
        /// `D3DFMT_A16B16G16R16F` = 113.
        A16B16G16R16F = 113 => "D3DFMT_A16B16G16R16F",
        /// `D3DFMT_R32F` = 114.
        R32F = 114 => "D3DFMT_R32F",
        /// `D3DFMT_G32R32F` = 115.
        G32R32F = 115 => "D3DFMT_G32R32F",
        /// `D3DFMT_A32B32G32R32F` = 116.
        A32B32G32R32F = 116 => "D3DFMT_A32B32G32R32F",
        /// `D3DFMT_CxV8U8` = 117.
        CxV8U8 = 117 => "D3DFMT_CxV8U8",
        /// `D3DFMT_A1` = 118. D3D9Ex.
        A1 = 118 => "D3DFMT_A1",
        /// `D3DFMT_A2B10G10R10_XR_BIAS` = 119. D3D9Ex.
        A2B10G10R10XrBias = 119 => "D3DFMT_A2B10G10R10_XR_BIAS",
        /// `D3DFMT_BINARYBUFFER` = 199. D3D9Ex.
        BinaryBuffer = 199 => "D3DFMT_BINARYBUFFER",
        /// `D3DFMT_MULTI2_ARGB8` = 0x3154454D. FOURCC `MET1`.
        Multi2Argb8 = 0x3154454D => "D3DFMT_MULTI2_ARGB8",
        /// `D3DFMT_DXT1` = 0x31545844. FOURCC `DXT1`.
        Dxt1 = 0x31545844 => "D3DFMT_DXT1",
        /// `D3DFMT_DXT2` = 0x32545844. FOURCC `DXT2`.
        Dxt2 = 0x32545844 => "D3DFMT_DXT2",
        /// `D3DFMT_YUY2` = 0x32595559. FOURCC `YUY2`.
        Yuy2 = 0x32595559 => "D3DFMT_YUY2",
        /// `D3DFMT_DXT3` = 0x33545844. FOURCC `DXT3`.
        Dxt3 = 0x33545844 => "D3DFMT_DXT3",
        /// `D3DFMT_DXT4` = 0x34545844. FOURCC `DXT4`.
        Dxt4 = 0x34545844 => "D3DFMT_DXT4",
        /// `D3DFMT_DXT5` = 0x35545844. FOURCC `DXT5`.
        Dxt5 = 0x35545844 => "D3DFMT_DXT5",
        /// `D3DFMT_G8R8_G8B8` = 0x42475247. FOURCC `GRGB`.
        G8R8G8B8 = 0x42475247 => "D3DFMT_G8R8_G8B8",
        /// `D3DFMT_R8G8_B8G8` = 0x47424752. FOURCC `RGBG`.
        R8G8B8G8 = 0x47424752 => "D3DFMT_R8G8_B8G8",
        /// `D3DFMT_UYVY` = 0x59565955. FOURCC `UYVY`.
        Uyvy = 0x59565955 => "D3DFMT_UYVY",
    }
}

impl Format {
    /// Whether the code is a FOURCC (upper 16 bits non-zero) rather than a
    /// small D3DFMT number.
    pub const fn is_fourcc(self) -> bool {
        self.raw() > 0xFFFF
    }
}
