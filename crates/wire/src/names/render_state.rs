//! `D3DRENDERSTATETYPE`: the `RenderState` field of `D3DHAL_DP2RENDERSTATE`.
//!
//! In: a render-state number (1..=209). Out: [`RenderStateType`], a closed
//! enum of all 173 values any DDK generation names (DX5 legacy, DX6/DX7
//! `D3DRENDERSTATE_*`, DX8/DX9 `D3DRS_*`, DDI-only states), and
//! [`render_state_value_kind`], how the state's DWORD is printed.
//!
//! Naming: the canonical (printed) name is the `D3DRS_*` spelling when the
//! DX8/DX9 headers have one, else the `D3DRENDERSTATE_*` spelling. Parsing
//! accepts every spelling in the headers (`D3DRENDERSTATE_BLENDENABLE`,
//! `D3DRENDERSTATE_FOGTABLESTART`, `D3DRS_POSITIONORDER`,
//! `D3DRENDERSTATE_WRAPBIAS`, ...) and, for uniformity, each of them with
//! either prefix or none (`ZENABLE`, `D3DRS_ZENABLE` and
//! `D3DRENDERSTATE_ZENABLE` all name state 7).

use super::ddi_types::DegreeType;
use super::flags::{CLIP_PLANE_FLAGS, COLOR_WRITE_FLAGS, WRAP_FLAGS};
use super::values::{
    AntialiasMode, Blend, BlendOp, CmpFunc, Cull, DebugMonitorTokens, FillMode, FogMode,
    MaterialColorSource, PatchEdgeStyle, ShadeMode, StencilOp, TextureAddress, TextureBlend,
    TextureFilter, VertexBlendFlags, ZBufferType,
};
use crate::ddi_enum::ValueKind;

crate::ddi_enum! {
    /// A render state (`D3DRENDERSTATETYPE`), DDI view (1..=209, 173 values).
    pub enum RenderStateType: u32 = "D3DRENDERSTATETYPE", prefix "D3DRS_" {
        /// `D3DRENDERSTATE_TEXTUREHANDLE` (1): handle. Legacy stage-0 texture handle (DX5-interface apps); drivers map it and the other legacy stage-0 states (3, 4, 17, 18, 21, 43-46, 49) onto texture stage 0.
        TextureHandle = 1 => "D3DRENDERSTATE_TEXTUREHANDLE" | "D3DRS_TEXTUREHANDLE",
        /// `D3DRENDERSTATE_ANTIALIAS` (2): `D3DANTIALIASMODE`. Legacy.
        Antialias = 2 => "D3DRENDERSTATE_ANTIALIAS" | "D3DRS_ANTIALIAS",
        /// `D3DRENDERSTATE_TEXTUREADDRESS` (3): `D3DTEXTUREADDRESS`. Legacy, sets U and V of stage 0.
        TextureAddress = 3 => "D3DRENDERSTATE_TEXTUREADDRESS" | "D3DRS_TEXTUREADDRESS",
        /// `D3DRENDERSTATE_TEXTUREPERSPECTIVE` (4): BOOL. Legacy perspective correction.
        TexturePerspective = 4 => "D3DRENDERSTATE_TEXTUREPERSPECTIVE" | "D3DRS_TEXTUREPERSPECTIVE",
        /// `D3DRENDERSTATE_WRAPU` (5): BOOL. Legacy, = D3DWRAP_U bit of WRAP0.
        WrapU = 5 => "D3DRENDERSTATE_WRAPU" | "D3DRS_WRAPU",
        /// `D3DRENDERSTATE_WRAPV` (6): BOOL. Legacy, = D3DWRAP_V bit of WRAP0.
        WrapV = 6 => "D3DRENDERSTATE_WRAPV" | "D3DRS_WRAPV",
        /// `D3DRS_ZENABLE` (7): `D3DZBUFFERTYPE`. BOOL in DX6 (0/1); 2 = W-buffer.
        ZEnable = 7 => "D3DRS_ZENABLE" | "D3DRENDERSTATE_ZENABLE",
        /// `D3DRS_FILLMODE` (8): `D3DFILLMODE`.
        FillMode = 8 => "D3DRS_FILLMODE" | "D3DRENDERSTATE_FILLMODE",
        /// `D3DRS_SHADEMODE` (9): `D3DSHADEMODE`.
        ShadeMode = 9 => "D3DRS_SHADEMODE" | "D3DRENDERSTATE_SHADEMODE",
        /// `D3DRS_LINEPATTERN` (10): hex bit pattern. Retired in DX9 API but still in DDI headers.
        LinePattern = 10 => "D3DRS_LINEPATTERN" | "D3DRENDERSTATE_LINEPATTERN",
        /// `D3DRENDERSTATE_MONOENABLE` (11): BOOL. Legacy.
        MonoEnable = 11 => "D3DRENDERSTATE_MONOENABLE" | "D3DRS_MONOENABLE",
        /// `D3DRENDERSTATE_ROP2` (12): DWORD. Legacy.
        Rop2 = 12 => "D3DRENDERSTATE_ROP2" | "D3DRS_ROP2",
        /// `D3DRENDERSTATE_PLANEMASK` (13): hex bit pattern. Legacy plane mask.
        PlaneMask = 13 => "D3DRENDERSTATE_PLANEMASK" | "D3DRS_PLANEMASK",
        /// `D3DRS_ZWRITEENABLE` (14): BOOL.
        ZWriteEnable = 14 => "D3DRS_ZWRITEENABLE" | "D3DRENDERSTATE_ZWRITEENABLE",
        /// `D3DRS_ALPHATESTENABLE` (15): BOOL.
        AlphaTestEnable = 15 => "D3DRS_ALPHATESTENABLE" | "D3DRENDERSTATE_ALPHATESTENABLE",
        /// `D3DRS_LASTPIXEL` (16): BOOL. Draw last pixel of lines.
        LastPixel = 16 => "D3DRS_LASTPIXEL" | "D3DRENDERSTATE_LASTPIXEL",
        /// `D3DRENDERSTATE_TEXTUREMAG` (17): `D3DTEXTUREFILTER`. Legacy, stage 0 mag filter.
        TextureMag = 17 => "D3DRENDERSTATE_TEXTUREMAG" | "D3DRS_TEXTUREMAG",
        /// `D3DRENDERSTATE_TEXTUREMIN` (18): `D3DTEXTUREFILTER`. Legacy, stage 0 min/mip filter.
        TextureMin = 18 => "D3DRENDERSTATE_TEXTUREMIN" | "D3DRS_TEXTUREMIN",
        /// `D3DRS_SRCBLEND` (19): `D3DBLEND`.
        SrcBlend = 19 => "D3DRS_SRCBLEND" | "D3DRENDERSTATE_SRCBLEND",
        /// `D3DRS_DESTBLEND` (20): `D3DBLEND`.
        DestBlend = 20 => "D3DRS_DESTBLEND" | "D3DRENDERSTATE_DESTBLEND",
        /// `D3DRENDERSTATE_TEXTUREMAPBLEND` (21): `D3DTEXTUREBLEND`. Legacy stage-0 blend mode.
        TextureMapBlend = 21 => "D3DRENDERSTATE_TEXTUREMAPBLEND" | "D3DRS_TEXTUREMAPBLEND",
        /// `D3DRS_CULLMODE` (22): `D3DCULL`.
        CullMode = 22 => "D3DRS_CULLMODE" | "D3DRENDERSTATE_CULLMODE",
        /// `D3DRS_ZFUNC` (23): `D3DCMPFUNC`.
        ZFunc = 23 => "D3DRS_ZFUNC" | "D3DRENDERSTATE_ZFUNC",
        /// `D3DRS_ALPHAREF` (24): DWORD. Alpha test reference, 0x00-0xFF.
        AlphaRef = 24 => "D3DRS_ALPHAREF" | "D3DRENDERSTATE_ALPHAREF",
        /// `D3DRS_ALPHAFUNC` (25): `D3DCMPFUNC`.
        AlphaFunc = 25 => "D3DRS_ALPHAFUNC" | "D3DRENDERSTATE_ALPHAFUNC",
        /// `D3DRS_DITHERENABLE` (26): BOOL.
        DitherEnable = 26 => "D3DRS_DITHERENABLE" | "D3DRENDERSTATE_DITHERENABLE",
        /// `D3DRS_ALPHABLENDENABLE` (27): BOOL. BLENDENABLE is an older name of the same value.
        AlphaBlendEnable = 27 => "D3DRS_ALPHABLENDENABLE" | "D3DRENDERSTATE_ALPHABLENDENABLE" | "D3DRS_BLENDENABLE" | "D3DRENDERSTATE_BLENDENABLE",
        /// `D3DRS_FOGENABLE` (28): BOOL.
        FogEnable = 28 => "D3DRS_FOGENABLE" | "D3DRENDERSTATE_FOGENABLE",
        /// `D3DRS_SPECULARENABLE` (29): BOOL.
        SpecularEnable = 29 => "D3DRS_SPECULARENABLE" | "D3DRENDERSTATE_SPECULARENABLE",
        /// `D3DRS_ZVISIBLE` (30): BOOL. Retired; W keeps D3DRS_ZVISIBLE.
        ZVisible = 30 => "D3DRS_ZVISIBLE" | "D3DRENDERSTATE_ZVISIBLE",
        /// `D3DRENDERSTATE_SUBPIXEL` (31): BOOL. Legacy.
        SubPixel = 31 => "D3DRENDERSTATE_SUBPIXEL" | "D3DRS_SUBPIXEL",
        /// `D3DRENDERSTATE_SUBPIXELX` (32): DWORD. Legacy.
        SubPixelX = 32 => "D3DRENDERSTATE_SUBPIXELX" | "D3DRS_SUBPIXELX",
        /// `D3DRENDERSTATE_STIPPLEDALPHA` (33): BOOL. Stippled alpha.
        StippledAlpha = 33 => "D3DRENDERSTATE_STIPPLEDALPHA" | "D3DRS_STIPPLEDALPHA",
        /// `D3DRS_FOGCOLOR` (34): D3DCOLOR.
        FogColor = 34 => "D3DRS_FOGCOLOR" | "D3DRENDERSTATE_FOGCOLOR",
        /// `D3DRS_FOGTABLEMODE` (35): `D3DFOGMODE`. Pixel (table) fog.
        FogTableMode = 35 => "D3DRS_FOGTABLEMODE" | "D3DRENDERSTATE_FOGTABLEMODE",
        /// `D3DRS_FOGSTART` (36): float.
        FogStart = 36 => "D3DRS_FOGSTART" | "D3DRENDERSTATE_FOGSTART" | "D3DRS_FOGTABLESTART" | "D3DRENDERSTATE_FOGTABLESTART",
        /// `D3DRS_FOGEND` (37): float.
        FogEnd = 37 => "D3DRS_FOGEND" | "D3DRENDERSTATE_FOGEND" | "D3DRS_FOGTABLEEND" | "D3DRENDERSTATE_FOGTABLEEND",
        /// `D3DRS_FOGDENSITY` (38): float.
        FogDensity = 38 => "D3DRS_FOGDENSITY" | "D3DRENDERSTATE_FOGDENSITY" | "D3DRS_FOGTABLEDENSITY" | "D3DRENDERSTATE_FOGTABLEDENSITY",
        /// `D3DRENDERSTATE_STIPPLEENABLE` (39): BOOL. Legacy stipple enable.
        StippleEnable = 39 => "D3DRENDERSTATE_STIPPLEENABLE" | "D3DRS_STIPPLEENABLE",
        /// `D3DRS_EDGEANTIALIAS` (40): BOOL. Retired in DX9 (D3DRS_EDGEANTIALIAS only in M d3d8types).
        EdgeAntialias = 40 => "D3DRS_EDGEANTIALIAS" | "D3DRENDERSTATE_EDGEANTIALIAS",
        /// `D3DRENDERSTATE_COLORKEYENABLE` (41): BOOL. DX6/7 colour key enable.
        ColorKeyEnable = 41 => "D3DRENDERSTATE_COLORKEYENABLE" | "D3DRS_COLORKEYENABLE",
        /// `D3DRENDERSTATE_OLDALPHABLENDENABLE` (42): BOOL. W only (old alpha-blend enable); UNCONFIRMED use.
        OldAlphaBlendEnable = 42 => "D3DRENDERSTATE_OLDALPHABLENDENABLE" | "D3DRS_OLDALPHABLENDENABLE",
        /// `D3DRENDERSTATE_BORDERCOLOR` (43): D3DCOLOR. Legacy, stage 0 border colour.
        BorderColor = 43 => "D3DRENDERSTATE_BORDERCOLOR" | "D3DRS_BORDERCOLOR",
        /// `D3DRENDERSTATE_TEXTUREADDRESSU` (44): `D3DTEXTUREADDRESS`. Legacy stage 0 U.
        TextureAddressU = 44 => "D3DRENDERSTATE_TEXTUREADDRESSU" | "D3DRS_TEXTUREADDRESSU",
        /// `D3DRENDERSTATE_TEXTUREADDRESSV` (45): `D3DTEXTUREADDRESS`. Legacy stage 0 V.
        TextureAddressV = 45 => "D3DRENDERSTATE_TEXTUREADDRESSV" | "D3DRS_TEXTUREADDRESSV",
        /// `D3DRENDERSTATE_MIPMAPLODBIAS` (46): float. Legacy stage 0 mip LOD bias.
        MipMapLodBias = 46 => "D3DRENDERSTATE_MIPMAPLODBIAS" | "D3DRS_MIPMAPLODBIAS",
        /// `D3DRS_ZBIAS` (47): DWORD. Retired DX9 (replaced by DEPTHBIAS 195); W keeps D3DRS_ZBIAS.
        ZBias = 47 => "D3DRS_ZBIAS" | "D3DRENDERSTATE_ZBIAS",
        /// `D3DRS_RANGEFOGENABLE` (48): BOOL.
        RangeFogEnable = 48 => "D3DRS_RANGEFOGENABLE" | "D3DRENDERSTATE_RANGEFOGENABLE",
        /// `D3DRENDERSTATE_ANISOTROPY` (49): DWORD. Legacy stage 0 max anisotropy.
        Anisotropy = 49 => "D3DRENDERSTATE_ANISOTROPY" | "D3DRS_ANISOTROPY",
        /// `D3DRENDERSTATE_FLUSHBATCH` (50): BOOL. Legacy flush-batch hint.
        FlushBatch = 50 => "D3DRENDERSTATE_FLUSHBATCH" | "D3DRS_FLUSHBATCH",
        /// `D3DRENDERSTATE_TRANSLUCENTSORTINDEPENDENT` (51): BOOL. Legacy.
        TranslucentSortIndependent = 51 => "D3DRENDERSTATE_TRANSLUCENTSORTINDEPENDENT" | "D3DRS_TRANSLUCENTSORTINDEPENDENT",
        /// `D3DRS_STENCILENABLE` (52): BOOL.
        StencilEnable = 52 => "D3DRS_STENCILENABLE" | "D3DRENDERSTATE_STENCILENABLE",
        /// `D3DRS_STENCILFAIL` (53): `D3DSTENCILOP`.
        StencilFail = 53 => "D3DRS_STENCILFAIL" | "D3DRENDERSTATE_STENCILFAIL",
        /// `D3DRS_STENCILZFAIL` (54): `D3DSTENCILOP`.
        StencilZFail = 54 => "D3DRS_STENCILZFAIL" | "D3DRENDERSTATE_STENCILZFAIL",
        /// `D3DRS_STENCILPASS` (55): `D3DSTENCILOP`.
        StencilPass = 55 => "D3DRS_STENCILPASS" | "D3DRENDERSTATE_STENCILPASS",
        /// `D3DRS_STENCILFUNC` (56): `D3DCMPFUNC`.
        StencilFunc = 56 => "D3DRS_STENCILFUNC" | "D3DRENDERSTATE_STENCILFUNC",
        /// `D3DRS_STENCILREF` (57): DWORD.
        StencilRef = 57 => "D3DRS_STENCILREF" | "D3DRENDERSTATE_STENCILREF",
        /// `D3DRS_STENCILMASK` (58): hex bit pattern.
        StencilMask = 58 => "D3DRS_STENCILMASK" | "D3DRENDERSTATE_STENCILMASK",
        /// `D3DRS_STENCILWRITEMASK` (59): hex bit pattern.
        StencilWriteMask = 59 => "D3DRS_STENCILWRITEMASK" | "D3DRENDERSTATE_STENCILWRITEMASK",
        /// `D3DRS_TEXTUREFACTOR` (60): D3DCOLOR. TFACTOR.
        TextureFactor = 60 => "D3DRS_TEXTUREFACTOR" | "D3DRENDERSTATE_TEXTUREFACTOR",
        /// `D3DRENDERSTATE_EVICTMANAGEDTEXTURES` (61): BOOL. DDI only: evict all driver-managed textures.
        EvictManagedTextures = 61 => "D3DRENDERSTATE_EVICTMANAGEDTEXTURES" | "D3DRS_EVICTMANAGEDTEXTURES",
        /// `D3DRENDERSTATE_SCENECAPTURE` (62): BOOL. DDI only: replaces SceneCapture callback; non-zero = begin scene, 0 = end scene.
        SceneCapture = 62 => "D3DRENDERSTATE_SCENECAPTURE" | "D3DRS_SCENECAPTURE",
        /// `D3DRENDERSTATE_STIPPLEPATTERN00` (64): hex bit pattern. Legacy stipple pattern row 0.
        StipplePattern00 = 64 => "D3DRENDERSTATE_STIPPLEPATTERN00" | "D3DRS_STIPPLEPATTERN00",
        /// `D3DRENDERSTATE_STIPPLEPATTERN01` (65): hex bit pattern. Legacy stipple pattern row 1.
        StipplePattern01 = 65 => "D3DRENDERSTATE_STIPPLEPATTERN01" | "D3DRS_STIPPLEPATTERN01",
        /// `D3DRENDERSTATE_STIPPLEPATTERN02` (66): hex bit pattern. Legacy stipple pattern row 2.
        StipplePattern02 = 66 => "D3DRENDERSTATE_STIPPLEPATTERN02" | "D3DRS_STIPPLEPATTERN02",
        /// `D3DRENDERSTATE_STIPPLEPATTERN03` (67): hex bit pattern. Legacy stipple pattern row 3.
        StipplePattern03 = 67 => "D3DRENDERSTATE_STIPPLEPATTERN03" | "D3DRS_STIPPLEPATTERN03",
        /// `D3DRENDERSTATE_STIPPLEPATTERN04` (68): hex bit pattern. Legacy stipple pattern row 4.
        StipplePattern04 = 68 => "D3DRENDERSTATE_STIPPLEPATTERN04" | "D3DRS_STIPPLEPATTERN04",
        /// `D3DRENDERSTATE_STIPPLEPATTERN05` (69): hex bit pattern. Legacy stipple pattern row 5.
        StipplePattern05 = 69 => "D3DRENDERSTATE_STIPPLEPATTERN05" | "D3DRS_STIPPLEPATTERN05",
        /// `D3DRENDERSTATE_STIPPLEPATTERN06` (70): hex bit pattern. Legacy stipple pattern row 6.
        StipplePattern06 = 70 => "D3DRENDERSTATE_STIPPLEPATTERN06" | "D3DRS_STIPPLEPATTERN06",
        /// `D3DRENDERSTATE_STIPPLEPATTERN07` (71): hex bit pattern. Legacy stipple pattern row 7.
        StipplePattern07 = 71 => "D3DRENDERSTATE_STIPPLEPATTERN07" | "D3DRS_STIPPLEPATTERN07",
        /// `D3DRENDERSTATE_STIPPLEPATTERN08` (72): hex bit pattern. Legacy stipple pattern row 8.
        StipplePattern08 = 72 => "D3DRENDERSTATE_STIPPLEPATTERN08" | "D3DRS_STIPPLEPATTERN08",
        /// `D3DRENDERSTATE_STIPPLEPATTERN09` (73): hex bit pattern. Legacy stipple pattern row 9.
        StipplePattern09 = 73 => "D3DRENDERSTATE_STIPPLEPATTERN09" | "D3DRS_STIPPLEPATTERN09",
        /// `D3DRENDERSTATE_STIPPLEPATTERN10` (74): hex bit pattern. Legacy stipple pattern row 10.
        StipplePattern10 = 74 => "D3DRENDERSTATE_STIPPLEPATTERN10" | "D3DRS_STIPPLEPATTERN10",
        /// `D3DRENDERSTATE_STIPPLEPATTERN11` (75): hex bit pattern. Legacy stipple pattern row 11.
        StipplePattern11 = 75 => "D3DRENDERSTATE_STIPPLEPATTERN11" | "D3DRS_STIPPLEPATTERN11",
        /// `D3DRENDERSTATE_STIPPLEPATTERN12` (76): hex bit pattern. Legacy stipple pattern row 12.
        StipplePattern12 = 76 => "D3DRENDERSTATE_STIPPLEPATTERN12" | "D3DRS_STIPPLEPATTERN12",
        /// `D3DRENDERSTATE_STIPPLEPATTERN13` (77): hex bit pattern. Legacy stipple pattern row 13.
        StipplePattern13 = 77 => "D3DRENDERSTATE_STIPPLEPATTERN13" | "D3DRS_STIPPLEPATTERN13",
        /// `D3DRENDERSTATE_STIPPLEPATTERN14` (78): hex bit pattern. Legacy stipple pattern row 14.
        StipplePattern14 = 78 => "D3DRENDERSTATE_STIPPLEPATTERN14" | "D3DRS_STIPPLEPATTERN14",
        /// `D3DRENDERSTATE_STIPPLEPATTERN15` (79): hex bit pattern. Legacy stipple pattern row 15.
        StipplePattern15 = 79 => "D3DRENDERSTATE_STIPPLEPATTERN15" | "D3DRS_STIPPLEPATTERN15",
        /// `D3DRENDERSTATE_STIPPLEPATTERN16` (80): hex bit pattern. Legacy stipple pattern row 16.
        StipplePattern16 = 80 => "D3DRENDERSTATE_STIPPLEPATTERN16" | "D3DRS_STIPPLEPATTERN16",
        /// `D3DRENDERSTATE_STIPPLEPATTERN17` (81): hex bit pattern. Legacy stipple pattern row 17.
        StipplePattern17 = 81 => "D3DRENDERSTATE_STIPPLEPATTERN17" | "D3DRS_STIPPLEPATTERN17",
        /// `D3DRENDERSTATE_STIPPLEPATTERN18` (82): hex bit pattern. Legacy stipple pattern row 18.
        StipplePattern18 = 82 => "D3DRENDERSTATE_STIPPLEPATTERN18" | "D3DRS_STIPPLEPATTERN18",
        /// `D3DRENDERSTATE_STIPPLEPATTERN19` (83): hex bit pattern. Legacy stipple pattern row 19.
        StipplePattern19 = 83 => "D3DRENDERSTATE_STIPPLEPATTERN19" | "D3DRS_STIPPLEPATTERN19",
        /// `D3DRENDERSTATE_STIPPLEPATTERN20` (84): hex bit pattern. Legacy stipple pattern row 20.
        StipplePattern20 = 84 => "D3DRENDERSTATE_STIPPLEPATTERN20" | "D3DRS_STIPPLEPATTERN20",
        /// `D3DRENDERSTATE_STIPPLEPATTERN21` (85): hex bit pattern. Legacy stipple pattern row 21.
        StipplePattern21 = 85 => "D3DRENDERSTATE_STIPPLEPATTERN21" | "D3DRS_STIPPLEPATTERN21",
        /// `D3DRENDERSTATE_STIPPLEPATTERN22` (86): hex bit pattern. Legacy stipple pattern row 22.
        StipplePattern22 = 86 => "D3DRENDERSTATE_STIPPLEPATTERN22" | "D3DRS_STIPPLEPATTERN22",
        /// `D3DRENDERSTATE_STIPPLEPATTERN23` (87): hex bit pattern. Legacy stipple pattern row 23.
        StipplePattern23 = 87 => "D3DRENDERSTATE_STIPPLEPATTERN23" | "D3DRS_STIPPLEPATTERN23",
        /// `D3DRENDERSTATE_STIPPLEPATTERN24` (88): hex bit pattern. Legacy stipple pattern row 24.
        StipplePattern24 = 88 => "D3DRENDERSTATE_STIPPLEPATTERN24" | "D3DRS_STIPPLEPATTERN24",
        /// `D3DRENDERSTATE_STIPPLEPATTERN25` (89): hex bit pattern. Legacy stipple pattern row 25.
        StipplePattern25 = 89 => "D3DRENDERSTATE_STIPPLEPATTERN25" | "D3DRS_STIPPLEPATTERN25",
        /// `D3DRENDERSTATE_STIPPLEPATTERN26` (90): hex bit pattern. Legacy stipple pattern row 26.
        StipplePattern26 = 90 => "D3DRENDERSTATE_STIPPLEPATTERN26" | "D3DRS_STIPPLEPATTERN26",
        /// `D3DRENDERSTATE_STIPPLEPATTERN27` (91): hex bit pattern. Legacy stipple pattern row 27.
        StipplePattern27 = 91 => "D3DRENDERSTATE_STIPPLEPATTERN27" | "D3DRS_STIPPLEPATTERN27",
        /// `D3DRENDERSTATE_STIPPLEPATTERN28` (92): hex bit pattern. Legacy stipple pattern row 28.
        StipplePattern28 = 92 => "D3DRENDERSTATE_STIPPLEPATTERN28" | "D3DRS_STIPPLEPATTERN28",
        /// `D3DRENDERSTATE_STIPPLEPATTERN29` (93): hex bit pattern. Legacy stipple pattern row 29.
        StipplePattern29 = 93 => "D3DRENDERSTATE_STIPPLEPATTERN29" | "D3DRS_STIPPLEPATTERN29",
        /// `D3DRENDERSTATE_STIPPLEPATTERN30` (94): hex bit pattern. Legacy stipple pattern row 30.
        StipplePattern30 = 94 => "D3DRENDERSTATE_STIPPLEPATTERN30" | "D3DRS_STIPPLEPATTERN30",
        /// `D3DRENDERSTATE_STIPPLEPATTERN31` (95): hex bit pattern. Legacy stipple pattern row 31.
        StipplePattern31 = 95 => "D3DRENDERSTATE_STIPPLEPATTERN31" | "D3DRS_STIPPLEPATTERN31",
        /// `D3DRS_WRAP0` (128): `D3DWRAP*` bits. WRAPBIAS = 128; WRAP0..7 = 128..135.
        Wrap0 = 128 => "D3DRS_WRAP0" | "D3DRENDERSTATE_WRAP0" | "D3DRS_WRAPBIAS" | "D3DRENDERSTATE_WRAPBIAS",
        /// `D3DRS_WRAP1` (129): `D3DWRAP*` bits. Tex coord set 1.
        Wrap1 = 129 => "D3DRS_WRAP1" | "D3DRENDERSTATE_WRAP1",
        /// `D3DRS_WRAP2` (130): `D3DWRAP*` bits. Tex coord set 2.
        Wrap2 = 130 => "D3DRS_WRAP2" | "D3DRENDERSTATE_WRAP2",
        /// `D3DRS_WRAP3` (131): `D3DWRAP*` bits. Tex coord set 3.
        Wrap3 = 131 => "D3DRS_WRAP3" | "D3DRENDERSTATE_WRAP3",
        /// `D3DRS_WRAP4` (132): `D3DWRAP*` bits. Tex coord set 4.
        Wrap4 = 132 => "D3DRS_WRAP4" | "D3DRENDERSTATE_WRAP4",
        /// `D3DRS_WRAP5` (133): `D3DWRAP*` bits. Tex coord set 5.
        Wrap5 = 133 => "D3DRS_WRAP5" | "D3DRENDERSTATE_WRAP5",
        /// `D3DRS_WRAP6` (134): `D3DWRAP*` bits. Tex coord set 6.
        Wrap6 = 134 => "D3DRS_WRAP6" | "D3DRENDERSTATE_WRAP6",
        /// `D3DRS_WRAP7` (135): `D3DWRAP*` bits. Tex coord set 7.
        Wrap7 = 135 => "D3DRS_WRAP7" | "D3DRENDERSTATE_WRAP7",
        /// `D3DRS_CLIPPING` (136): BOOL.
        Clipping = 136 => "D3DRS_CLIPPING" | "D3DRENDERSTATE_CLIPPING",
        /// `D3DRS_LIGHTING` (137): BOOL.
        Lighting = 137 => "D3DRS_LIGHTING" | "D3DRENDERSTATE_LIGHTING",
        /// `D3DRENDERSTATE_EXTENTS` (138): BOOL. Legacy extents tracking.
        Extents = 138 => "D3DRENDERSTATE_EXTENTS" | "D3DRS_EXTENTS",
        /// `D3DRS_AMBIENT` (139): D3DCOLOR.
        Ambient = 139 => "D3DRS_AMBIENT" | "D3DRENDERSTATE_AMBIENT",
        /// `D3DRS_FOGVERTEXMODE` (140): `D3DFOGMODE`. Vertex fog mode.
        FogVertexMode = 140 => "D3DRS_FOGVERTEXMODE" | "D3DRENDERSTATE_FOGVERTEXMODE",
        /// `D3DRS_COLORVERTEX` (141): BOOL.
        ColorVertex = 141 => "D3DRS_COLORVERTEX" | "D3DRENDERSTATE_COLORVERTEX",
        /// `D3DRS_LOCALVIEWER` (142): BOOL.
        LocalViewer = 142 => "D3DRS_LOCALVIEWER" | "D3DRENDERSTATE_LOCALVIEWER",
        /// `D3DRS_NORMALIZENORMALS` (143): BOOL.
        NormalizeNormals = 143 => "D3DRS_NORMALIZENORMALS" | "D3DRENDERSTATE_NORMALIZENORMALS",
        /// `D3DRENDERSTATE_COLORKEYBLENDENABLE` (144): BOOL. DX6/7.
        ColorKeyBlendEnable = 144 => "D3DRENDERSTATE_COLORKEYBLENDENABLE" | "D3DRS_COLORKEYBLENDENABLE",
        /// `D3DRS_DIFFUSEMATERIALSOURCE` (145): `D3DMATERIALCOLORSOURCE`.
        DiffuseMaterialSource = 145 => "D3DRS_DIFFUSEMATERIALSOURCE" | "D3DRENDERSTATE_DIFFUSEMATERIALSOURCE",
        /// `D3DRS_SPECULARMATERIALSOURCE` (146): `D3DMATERIALCOLORSOURCE`.
        SpecularMaterialSource = 146 => "D3DRS_SPECULARMATERIALSOURCE" | "D3DRENDERSTATE_SPECULARMATERIALSOURCE",
        /// `D3DRS_AMBIENTMATERIALSOURCE` (147): `D3DMATERIALCOLORSOURCE`.
        AmbientMaterialSource = 147 => "D3DRS_AMBIENTMATERIALSOURCE" | "D3DRENDERSTATE_AMBIENTMATERIALSOURCE",
        /// `D3DRS_EMISSIVEMATERIALSOURCE` (148): `D3DMATERIALCOLORSOURCE`.
        EmissiveMaterialSource = 148 => "D3DRS_EMISSIVEMATERIALSOURCE" | "D3DRENDERSTATE_EMISSIVEMATERIALSOURCE",
        /// `D3DRS_VERTEXBLEND` (151): `D3DVERTEXBLENDFLAGS`.
        VertexBlend = 151 => "D3DRS_VERTEXBLEND" | "D3DRENDERSTATE_VERTEXBLEND",
        /// `D3DRS_CLIPPLANEENABLE` (152): `D3DCLIPPLANEn` bits. Bit i enables user clip plane i (0x1..0x20 named; up to 32).
        ClipPlaneEnable = 152 => "D3DRS_CLIPPLANEENABLE" | "D3DRENDERSTATE_CLIPPLANEENABLE",
        /// `D3DRS_SOFTWAREVERTEXPROCESSING` (153): BOOL. DX8 only (retired DX9); W keeps it.
        SoftwareVertexProcessing = 153 => "D3DRS_SOFTWAREVERTEXPROCESSING" | "D3DRENDERSTATE_SOFTWAREVERTEXPROCESSING",
        /// `D3DRS_POINTSIZE` (154): float.
        PointSize = 154 => "D3DRS_POINTSIZE" | "D3DRENDERSTATE_POINTSIZE",
        /// `D3DRS_POINTSIZE_MIN` (155): float.
        PointSizeMin = 155 => "D3DRS_POINTSIZE_MIN" | "D3DRENDERSTATE_POINTSIZE_MIN",
        /// `D3DRS_POINTSPRITEENABLE` (156): BOOL.
        PointSpriteEnable = 156 => "D3DRS_POINTSPRITEENABLE" | "D3DRENDERSTATE_POINTSPRITEENABLE",
        /// `D3DRS_POINTSCALEENABLE` (157): BOOL.
        PointScaleEnable = 157 => "D3DRS_POINTSCALEENABLE" | "D3DRENDERSTATE_POINTSCALEENABLE",
        /// `D3DRS_POINTSCALE_A` (158): float.
        PointScaleA = 158 => "D3DRS_POINTSCALE_A" | "D3DRENDERSTATE_POINTSCALE_A",
        /// `D3DRS_POINTSCALE_B` (159): float.
        PointScaleB = 159 => "D3DRS_POINTSCALE_B" | "D3DRENDERSTATE_POINTSCALE_B",
        /// `D3DRS_POINTSCALE_C` (160): float.
        PointScaleC = 160 => "D3DRS_POINTSCALE_C" | "D3DRENDERSTATE_POINTSCALE_C",
        /// `D3DRS_MULTISAMPLEANTIALIAS` (161): BOOL.
        MultisampleAntialias = 161 => "D3DRS_MULTISAMPLEANTIALIAS" | "D3DRENDERSTATE_MULTISAMPLEANTIALIAS",
        /// `D3DRS_MULTISAMPLEMASK` (162): hex bit pattern. Sample mask.
        MultisampleMask = 162 => "D3DRS_MULTISAMPLEMASK" | "D3DRENDERSTATE_MULTISAMPLEMASK",
        /// `D3DRS_PATCHEDGESTYLE` (163): `D3DPATCHEDGESTYLE`.
        PatchEdgeStyle = 163 => "D3DRS_PATCHEDGESTYLE" | "D3DRENDERSTATE_PATCHEDGESTYLE",
        /// `D3DRS_PATCHSEGMENTS` (164): float. DX8 N-patch/RT-patch segments; retired DX9 API, still in DDI.
        PatchSegments = 164 => "D3DRS_PATCHSEGMENTS" | "D3DRENDERSTATE_PATCHSEGMENTS",
        /// `D3DRS_DEBUGMONITORTOKEN` (165): `D3DDEBUGMONITORTOKENS`. Debug only.
        DebugMonitorToken = 165 => "D3DRS_DEBUGMONITORTOKEN" | "D3DRENDERSTATE_DEBUGMONITORTOKEN",
        /// `D3DRS_POINTSIZE_MAX` (166): float.
        PointSizeMax = 166 => "D3DRS_POINTSIZE_MAX" | "D3DRENDERSTATE_POINTSIZE_MAX",
        /// `D3DRS_INDEXEDVERTEXBLENDENABLE` (167): BOOL.
        IndexedVertexBlendEnable = 167 => "D3DRS_INDEXEDVERTEXBLENDENABLE" | "D3DRENDERSTATE_INDEXEDVERTEXBLENDENABLE",
        /// `D3DRS_COLORWRITEENABLE` (168): `D3DCOLORWRITEENABLE_*` bits. RT 0.
        ColorWriteEnable = 168 => "D3DRS_COLORWRITEENABLE" | "D3DRENDERSTATE_COLORWRITEENABLE",
        /// `D3DRS_DELETERTPATCH` (169): handle. DDI only: delete cached RT/tri patch with this handle.
        DeleteRtPatch = 169 => "D3DRS_DELETERTPATCH" | "D3DRENDERSTATE_DELETERTPATCH",
        /// `D3DRS_TWEENFACTOR` (170): float.
        TweenFactor = 170 => "D3DRS_TWEENFACTOR" | "D3DRENDERSTATE_TWEENFACTOR",
        /// `D3DRS_BLENDOP` (171): `D3DBLENDOP`.
        BlendOp = 171 => "D3DRS_BLENDOP" | "D3DRENDERSTATE_BLENDOP",
        /// `D3DRS_POSITIONDEGREE` (172): `D3DDEGREETYPE`. DX8 name POSITIONORDER (`D3DORDERTYPE`).
        PositionDegree = 172 => "D3DRS_POSITIONDEGREE" | "D3DRENDERSTATE_POSITIONDEGREE" | "D3DRS_POSITIONORDER" | "D3DRENDERSTATE_POSITIONORDER",
        /// `D3DRS_NORMALDEGREE` (173): `D3DDEGREETYPE`. DX8 name NORMALORDER.
        NormalDegree = 173 => "D3DRS_NORMALDEGREE" | "D3DRENDERSTATE_NORMALDEGREE" | "D3DRS_NORMALORDER" | "D3DRENDERSTATE_NORMALORDER",
        /// `D3DRS_SCISSORTESTENABLE` (174): BOOL.
        ScissorTestEnable = 174 => "D3DRS_SCISSORTESTENABLE" | "D3DRENDERSTATE_SCISSORTESTENABLE",
        /// `D3DRS_SLOPESCALEDEPTHBIAS` (175): float.
        SlopeScaleDepthBias = 175 => "D3DRS_SLOPESCALEDEPTHBIAS" | "D3DRENDERSTATE_SLOPESCALEDEPTHBIAS",
        /// `D3DRS_ANTIALIASEDLINEENABLE` (176): BOOL.
        AntialiasedLineEnable = 176 => "D3DRS_ANTIALIASEDLINEENABLE" | "D3DRENDERSTATE_ANTIALIASEDLINEENABLE",
        /// `D3DRS_MINTESSELLATIONLEVEL` (178): float.
        MinTessellationLevel = 178 => "D3DRS_MINTESSELLATIONLEVEL" | "D3DRENDERSTATE_MINTESSELLATIONLEVEL",
        /// `D3DRS_MAXTESSELLATIONLEVEL` (179): float.
        MaxTessellationLevel = 179 => "D3DRS_MAXTESSELLATIONLEVEL" | "D3DRENDERSTATE_MAXTESSELLATIONLEVEL",
        /// `D3DRS_ADAPTIVETESS_X` (180): float.
        AdaptiveTessX = 180 => "D3DRS_ADAPTIVETESS_X" | "D3DRENDERSTATE_ADAPTIVETESS_X",
        /// `D3DRS_ADAPTIVETESS_Y` (181): float.
        AdaptiveTessY = 181 => "D3DRS_ADAPTIVETESS_Y" | "D3DRENDERSTATE_ADAPTIVETESS_Y",
        /// `D3DRS_ADAPTIVETESS_Z` (182): float.
        AdaptiveTessZ = 182 => "D3DRS_ADAPTIVETESS_Z" | "D3DRENDERSTATE_ADAPTIVETESS_Z",
        /// `D3DRS_ADAPTIVETESS_W` (183): float.
        AdaptiveTessW = 183 => "D3DRS_ADAPTIVETESS_W" | "D3DRENDERSTATE_ADAPTIVETESS_W",
        /// `D3DRS_ENABLEADAPTIVETESSELLATION` (184): BOOL.
        EnableAdaptiveTessellation = 184 => "D3DRS_ENABLEADAPTIVETESSELLATION" | "D3DRENDERSTATE_ENABLEADAPTIVETESSELLATION",
        /// `D3DRS_TWOSIDEDSTENCILMODE` (185): BOOL.
        TwoSidedStencilMode = 185 => "D3DRS_TWOSIDEDSTENCILMODE" | "D3DRENDERSTATE_TWOSIDEDSTENCILMODE",
        /// `D3DRS_CCW_STENCILFAIL` (186): `D3DSTENCILOP`.
        CcwStencilFail = 186 => "D3DRS_CCW_STENCILFAIL" | "D3DRENDERSTATE_CCW_STENCILFAIL",
        /// `D3DRS_CCW_STENCILZFAIL` (187): `D3DSTENCILOP`.
        CcwStencilZFail = 187 => "D3DRS_CCW_STENCILZFAIL" | "D3DRENDERSTATE_CCW_STENCILZFAIL",
        /// `D3DRS_CCW_STENCILPASS` (188): `D3DSTENCILOP`.
        CcwStencilPass = 188 => "D3DRS_CCW_STENCILPASS" | "D3DRENDERSTATE_CCW_STENCILPASS",
        /// `D3DRS_CCW_STENCILFUNC` (189): `D3DCMPFUNC`.
        CcwStencilFunc = 189 => "D3DRS_CCW_STENCILFUNC" | "D3DRENDERSTATE_CCW_STENCILFUNC",
        /// `D3DRS_COLORWRITEENABLE1` (190): `D3DCOLORWRITEENABLE_*` bits. RT 1.
        ColorWriteEnable1 = 190 => "D3DRS_COLORWRITEENABLE1" | "D3DRENDERSTATE_COLORWRITEENABLE1",
        /// `D3DRS_COLORWRITEENABLE2` (191): `D3DCOLORWRITEENABLE_*` bits. RT 2.
        ColorWriteEnable2 = 191 => "D3DRS_COLORWRITEENABLE2" | "D3DRENDERSTATE_COLORWRITEENABLE2",
        /// `D3DRS_COLORWRITEENABLE3` (192): `D3DCOLORWRITEENABLE_*` bits. RT 3.
        ColorWriteEnable3 = 192 => "D3DRS_COLORWRITEENABLE3" | "D3DRENDERSTATE_COLORWRITEENABLE3",
        /// `D3DRS_BLENDFACTOR` (193): D3DCOLOR.
        BlendFactor = 193 => "D3DRS_BLENDFACTOR" | "D3DRENDERSTATE_BLENDFACTOR",
        /// `D3DRS_SRGBWRITEENABLE` (194): BOOL.
        SrgbWriteEnable = 194 => "D3DRS_SRGBWRITEENABLE" | "D3DRENDERSTATE_SRGBWRITEENABLE",
        /// `D3DRS_DEPTHBIAS` (195): float. Replaces ZBIAS.
        DepthBias = 195 => "D3DRS_DEPTHBIAS" | "D3DRENDERSTATE_DEPTHBIAS",
        /// `D3DRS_MAXVERTEXSHADERINST` (196): DWORD. DDI only: max vs_3_0 instructions executed; default 0xFFFFFFFF (D3DINFINITEINSTRUCTIONS).
        MaxVertexShaderInst = 196 => "D3DRS_MAXVERTEXSHADERINST" | "D3DRENDERSTATE_MAXVERTEXSHADERINST",
        /// `D3DRS_MAXPIXELSHADERINST` (197): DWORD. DDI only: max ps_3_0 instructions executed; default 0xFFFFFFFF.
        MaxPixelShaderInst = 197 => "D3DRS_MAXPIXELSHADERINST" | "D3DRENDERSTATE_MAXPIXELSHADERINST",
        /// `D3DRS_WRAP8` (198): `D3DWRAP*` bits. Tex coord set 8.
        Wrap8 = 198 => "D3DRS_WRAP8" | "D3DRENDERSTATE_WRAP8",
        /// `D3DRS_WRAP9` (199): `D3DWRAP*` bits. Tex coord set 9.
        Wrap9 = 199 => "D3DRS_WRAP9" | "D3DRENDERSTATE_WRAP9",
        /// `D3DRS_WRAP10` (200): `D3DWRAP*` bits. Tex coord set 10.
        Wrap10 = 200 => "D3DRS_WRAP10" | "D3DRENDERSTATE_WRAP10",
        /// `D3DRS_WRAP11` (201): `D3DWRAP*` bits. Tex coord set 11.
        Wrap11 = 201 => "D3DRS_WRAP11" | "D3DRENDERSTATE_WRAP11",
        /// `D3DRS_WRAP12` (202): `D3DWRAP*` bits. Tex coord set 12.
        Wrap12 = 202 => "D3DRS_WRAP12" | "D3DRENDERSTATE_WRAP12",
        /// `D3DRS_WRAP13` (203): `D3DWRAP*` bits. Tex coord set 13.
        Wrap13 = 203 => "D3DRS_WRAP13" | "D3DRENDERSTATE_WRAP13",
        /// `D3DRS_WRAP14` (204): `D3DWRAP*` bits. Tex coord set 14.
        Wrap14 = 204 => "D3DRS_WRAP14" | "D3DRENDERSTATE_WRAP14",
        /// `D3DRS_WRAP15` (205): `D3DWRAP*` bits. Tex coord set 15.
        Wrap15 = 205 => "D3DRS_WRAP15" | "D3DRENDERSTATE_WRAP15",
        /// `D3DRS_SEPARATEALPHABLENDENABLE` (206): BOOL.
        SeparateAlphaBlendEnable = 206 => "D3DRS_SEPARATEALPHABLENDENABLE" | "D3DRENDERSTATE_SEPARATEALPHABLENDENABLE",
        /// `D3DRS_SRCBLENDALPHA` (207): `D3DBLEND`.
        SrcBlendAlpha = 207 => "D3DRS_SRCBLENDALPHA" | "D3DRENDERSTATE_SRCBLENDALPHA",
        /// `D3DRS_DESTBLENDALPHA` (208): `D3DBLEND`.
        DestBlendAlpha = 208 => "D3DRS_DESTBLENDALPHA" | "D3DRENDERSTATE_DESTBLENDALPHA",
        /// `D3DRS_BLENDOPALPHA` (209): `D3DBLENDOP`.
        BlendOpAlpha = 209 => "D3DRS_BLENDOPALPHA" | "D3DRENDERSTATE_BLENDOPALPHA",
    }
}

/// Size of the driver's render-state array (`D3DHAL_MAX_RSTATES`).
pub const D3DHAL_MAX_RSTATES: u32 = 256;

/// Legacy override bias (`D3DSTATE_OVERRIDE_BIAS`): execute-buffer state + 256
/// meant "override"; not used on the DP2 path.
pub const D3DSTATE_OVERRIDE_BIAS: u32 = 256;

/// `D3DRENDERSTATE_WRAPBIAS`: `D3DRENDERSTATE_WRAP0` (WRAPn = WRAPBIAS + n for n < 8).
pub const D3DRENDERSTATE_WRAPBIAS: u32 = 128;

/// First stipple-pattern state (`D3DRENDERSTATE_STIPPLEPATTERN(y)` = 64 + y).
pub const D3DRENDERSTATE_STIPPLEPATTERN_BASE: u32 = 64;

impl RenderStateType {
    /// How this state's DWORD value is printed and parsed.
    pub fn value_kind(self) -> ValueKind {
        match self {
            Self::TextureHandle | Self::DeleteRtPatch => ValueKind::Handle,
            Self::Antialias => ValueKind::Enum(&AntialiasMode::TABLE),
            Self::TextureAddress | Self::TextureAddressU | Self::TextureAddressV => {
                ValueKind::Enum(&TextureAddress::TABLE)
            }
            Self::TexturePerspective
            | Self::WrapU
            | Self::WrapV
            | Self::MonoEnable
            | Self::ZWriteEnable
            | Self::AlphaTestEnable
            | Self::LastPixel
            | Self::DitherEnable
            | Self::AlphaBlendEnable
            | Self::FogEnable
            | Self::SpecularEnable
            | Self::ZVisible
            | Self::SubPixel
            | Self::StippledAlpha
            | Self::StippleEnable
            | Self::EdgeAntialias
            | Self::ColorKeyEnable
            | Self::OldAlphaBlendEnable
            | Self::RangeFogEnable
            | Self::FlushBatch
            | Self::TranslucentSortIndependent
            | Self::StencilEnable
            | Self::EvictManagedTextures
            | Self::SceneCapture
            | Self::Clipping
            | Self::Lighting
            | Self::Extents
            | Self::ColorVertex
            | Self::LocalViewer
            | Self::NormalizeNormals
            | Self::ColorKeyBlendEnable
            | Self::SoftwareVertexProcessing
            | Self::PointSpriteEnable
            | Self::PointScaleEnable
            | Self::MultisampleAntialias
            | Self::IndexedVertexBlendEnable
            | Self::ScissorTestEnable
            | Self::AntialiasedLineEnable
            | Self::EnableAdaptiveTessellation
            | Self::TwoSidedStencilMode
            | Self::SrgbWriteEnable
            | Self::SeparateAlphaBlendEnable => ValueKind::Bool,
            Self::ZEnable => ValueKind::Enum(&ZBufferType::TABLE),
            Self::FillMode => ValueKind::Enum(&FillMode::TABLE),
            Self::ShadeMode => ValueKind::Enum(&ShadeMode::TABLE),
            Self::LinePattern
            | Self::PlaneMask
            | Self::StencilMask
            | Self::StencilWriteMask
            | Self::StipplePattern00
            | Self::StipplePattern01
            | Self::StipplePattern02
            | Self::StipplePattern03
            | Self::StipplePattern04
            | Self::StipplePattern05
            | Self::StipplePattern06
            | Self::StipplePattern07
            | Self::StipplePattern08
            | Self::StipplePattern09
            | Self::StipplePattern10
            | Self::StipplePattern11
            | Self::StipplePattern12
            | Self::StipplePattern13
            | Self::StipplePattern14
            | Self::StipplePattern15
            | Self::StipplePattern16
            | Self::StipplePattern17
            | Self::StipplePattern18
            | Self::StipplePattern19
            | Self::StipplePattern20
            | Self::StipplePattern21
            | Self::StipplePattern22
            | Self::StipplePattern23
            | Self::StipplePattern24
            | Self::StipplePattern25
            | Self::StipplePattern26
            | Self::StipplePattern27
            | Self::StipplePattern28
            | Self::StipplePattern29
            | Self::StipplePattern30
            | Self::StipplePattern31
            | Self::MultisampleMask => ValueKind::Hex,
            Self::Rop2
            | Self::AlphaRef
            | Self::SubPixelX
            | Self::ZBias
            | Self::Anisotropy
            | Self::StencilRef
            | Self::MaxVertexShaderInst
            | Self::MaxPixelShaderInst => ValueKind::Dword,
            Self::TextureMag | Self::TextureMin => ValueKind::Enum(&TextureFilter::TABLE),
            Self::SrcBlend | Self::DestBlend | Self::SrcBlendAlpha | Self::DestBlendAlpha => {
                ValueKind::Enum(&Blend::TABLE)
            }
            Self::TextureMapBlend => ValueKind::Enum(&TextureBlend::TABLE),
            Self::CullMode => ValueKind::Enum(&Cull::TABLE),
            Self::ZFunc | Self::AlphaFunc | Self::StencilFunc | Self::CcwStencilFunc => {
                ValueKind::Enum(&CmpFunc::TABLE)
            }
            Self::FogColor
            | Self::BorderColor
            | Self::TextureFactor
            | Self::Ambient
            | Self::BlendFactor => ValueKind::Color,
            Self::FogTableMode | Self::FogVertexMode => ValueKind::Enum(&FogMode::TABLE),
            Self::FogStart
            | Self::FogEnd
            | Self::FogDensity
            | Self::MipMapLodBias
            | Self::PointSize
            | Self::PointSizeMin
            | Self::PointScaleA
            | Self::PointScaleB
            | Self::PointScaleC
            | Self::PatchSegments
            | Self::PointSizeMax
            | Self::TweenFactor
            | Self::SlopeScaleDepthBias
            | Self::MinTessellationLevel
            | Self::MaxTessellationLevel
            | Self::AdaptiveTessX
            | Self::AdaptiveTessY
            | Self::AdaptiveTessZ
            | Self::AdaptiveTessW
            | Self::DepthBias => ValueKind::Float,
            Self::StencilFail
            | Self::StencilZFail
            | Self::StencilPass
            | Self::CcwStencilFail
            | Self::CcwStencilZFail
            | Self::CcwStencilPass => ValueKind::Enum(&StencilOp::TABLE),
            Self::Wrap0
            | Self::Wrap1
            | Self::Wrap2
            | Self::Wrap3
            | Self::Wrap4
            | Self::Wrap5
            | Self::Wrap6
            | Self::Wrap7
            | Self::Wrap8
            | Self::Wrap9
            | Self::Wrap10
            | Self::Wrap11
            | Self::Wrap12
            | Self::Wrap13
            | Self::Wrap14
            | Self::Wrap15 => ValueKind::Flags(&WRAP_FLAGS),
            Self::DiffuseMaterialSource
            | Self::SpecularMaterialSource
            | Self::AmbientMaterialSource
            | Self::EmissiveMaterialSource => ValueKind::Enum(&MaterialColorSource::TABLE),
            Self::VertexBlend => ValueKind::Enum(&VertexBlendFlags::TABLE),
            Self::ClipPlaneEnable => ValueKind::Flags(&CLIP_PLANE_FLAGS),
            Self::PatchEdgeStyle => ValueKind::Enum(&PatchEdgeStyle::TABLE),
            Self::DebugMonitorToken => ValueKind::Enum(&DebugMonitorTokens::TABLE),
            Self::ColorWriteEnable
            | Self::ColorWriteEnable1
            | Self::ColorWriteEnable2
            | Self::ColorWriteEnable3 => ValueKind::Flags(&COLOR_WRITE_FLAGS),
            Self::BlendOp | Self::BlendOpAlpha => ValueKind::Enum(&BlendOp::TABLE),
            Self::PositionDegree | Self::NormalDegree => ValueKind::Enum(&DegreeType::TABLE),
        }
    }
}

/// How the DWORD value of render state `state` is printed and parsed.
///
/// Enumerated states give their value enum, BOOL states `Bool`, float states
/// `Float`, colours `Color`, handles `Handle`, bit masks (`WRAPn`,
/// `COLORWRITEENABLEn`, `CLIPPLANEENABLE`) their flag table, other masks and
/// packed patterns (`LINEPATTERN`, `PLANEMASK`, stencil masks,
/// `MULTISAMPLEMASK`, stipple rows) `Hex`, plain counts `Dword`. An unknown
/// state number gives `Hex`.
pub fn render_state_value_kind(state: u32) -> ValueKind {
    RenderStateType::from_raw(state).map_or(ValueKind::Hex, RenderStateType::value_kind)
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
            let kind = s.value_kind();
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
