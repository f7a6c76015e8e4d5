//! The render-state rows of the state table (`D3DRENDERSTATETYPE`,
//! the `RenderState` field of `D3DHAL_DP2RENDERSTATE`).
//!
//! In: a render-state number (1..=209). Out: [`RenderStateType`], a closed
//! enum of all 173 values any DDK generation names (DX5 legacy, DX6/DX7
//! `D3DRENDERSTATE_*`, DX8/DX9 `D3DRS_*`, DDI-only states), each with its
//! row: value kind, Direct3D default, what the device honours, state-block
//! groups, what reads it (see [`super`]).
//!
//! Naming: the canonical (printed) name is the `D3DRS_*` spelling when the
//! DX8/DX9 headers have one, else the `D3DRENDERSTATE_*` spelling. Parsing
//! accepts every spelling in the headers and, for uniformity, each of them
//! with either prefix or none (`ZENABLE`, `D3DRS_ZENABLE` and
//! `D3DRENDERSTATE_ZENABLE` all name state 7).
//!
//! Defaults are the Direct3D 9 documentation's (`D3DRENDERSTATETYPE`);
//! states it gives no default for start at 0. The blend-factor range stops
//! at `D3DBLEND_INVBLENDFACTOR`: the D3D9Ex dual-source `SRCCOLOR2` and
//! `INVSRCCOLOR2` are not implemented.

use super::Honour::{self, *};
use super::StateKind::*;
use super::{f, state_table, BOTH, NONE, PIXEL, TRUE, VERTEX};
use crate::flags::{CLIP_PLANE_FLAGS, COLOR_WRITE_FLAGS, WRAP_FLAGS};
use crate::values::*;

/// `SRCBLEND`, `SRCBLENDALPHA`: `D3DBLEND_ZERO..=INVBLENDFACTOR`, else ONE.
const BLEND_FACTOR_OR_ONE: Honour = InRange {
    lo: Blend::Zero.raw(),
    hi: Blend::InvBlendFactor.raw(),
    fallback: Blend::One.raw(),
};
/// `DESTBLEND`, `DESTBLENDALPHA`: `D3DBLEND_ZERO..=INVBLENDFACTOR`, else ZERO.
const BLEND_FACTOR_OR_ZERO: Honour = InRange {
    lo: Blend::Zero.raw(),
    hi: Blend::InvBlendFactor.raw(),
    fallback: Blend::Zero.raw(),
};

state_table! {
    /// A render state (`D3DRENDERSTATETYPE`), DDI view (1..=209, 173 values).
    pub enum RenderStateType: u32 = "D3DRENDERSTATETYPE", prefix "D3DRS_", default u32 {
        /// `D3DRENDERSTATE_TEXTUREHANDLE` (1): handle. Legacy stage-0 texture handle (DX5-interface apps); drivers map it and the other legacy stage-0 states (3, 4, 17, 18, 21, 43-46, 49) onto texture stage 0.
        TextureHandle = 1 => "D3DRENDERSTATE_TEXTUREHANDLE" | "D3DRS_TEXTUREHANDLE"
            ; kind Handle, default 0, honour AsGiven, groups NONE, reads Device,
        /// `D3DRENDERSTATE_ANTIALIAS` (2): `D3DANTIALIASMODE`. Legacy.
        Antialias = 2 => "D3DRENDERSTATE_ANTIALIAS" | "D3DRS_ANTIALIAS"
            ; kind Enum(&AntialiasMode::TABLE), default 0, honour Off, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_TEXTUREADDRESS` (3): `D3DTEXTUREADDRESS`. Legacy, sets U and V of stage 0.
        TextureAddress = 3 => "D3DRENDERSTATE_TEXTUREADDRESS" | "D3DRS_TEXTUREADDRESS"
            ; kind Enum(&TextureAddress::TABLE), default 0, honour AsGiven, groups NONE, reads Device,
        /// `D3DRENDERSTATE_TEXTUREPERSPECTIVE` (4): BOOL. Legacy perspective correction.
        TexturePerspective = 4 => "D3DRENDERSTATE_TEXTUREPERSPECTIVE" | "D3DRS_TEXTUREPERSPECTIVE"
            ; kind Bool, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_WRAPU` (5): BOOL. Legacy, = D3DWRAP_U bit of WRAP0.
        WrapU = 5 => "D3DRENDERSTATE_WRAPU" | "D3DRS_WRAPU"
            ; kind Bool, default 0, honour AsGiven, groups NONE, reads Device,
        /// `D3DRENDERSTATE_WRAPV` (6): BOOL. Legacy, = D3DWRAP_V bit of WRAP0.
        WrapV = 6 => "D3DRENDERSTATE_WRAPV" | "D3DRS_WRAPV"
            ; kind Bool, default 0, honour AsGiven, groups NONE, reads Device,
        /// `D3DRS_ZENABLE` (7): `D3DZBUFFERTYPE`. BOOL in DX6 (0/1); 2 = W-buffer.
        ZEnable = 7 => "D3DRS_ZENABLE" | "D3DRENDERSTATE_ZENABLE"
            ; kind Enum(&ZBufferType::TABLE), default ZBufferType::True.raw(), honour InEnum(ZBufferType::True.raw()), groups PIXEL, reads Pipeline,
        /// `D3DRS_FILLMODE` (8): `D3DFILLMODE`.
        FillMode = 8 => "D3DRS_FILLMODE" | "D3DRENDERSTATE_FILLMODE"
            ; kind Enum(&FillMode::TABLE), default FillMode::Solid.raw(), honour InEnum(FillMode::Solid.raw()), groups PIXEL, reads Pipeline,
        /// `D3DRS_SHADEMODE` (9): `D3DSHADEMODE`.
        ShadeMode = 9 => "D3DRS_SHADEMODE" | "D3DRENDERSTATE_SHADEMODE"
            ; kind Enum(&ShadeMode::TABLE), default ShadeMode::Gouraud.raw(), honour InEnum(ShadeMode::Gouraud.raw()), groups BOTH, reads Pipeline,
        /// `D3DRS_LINEPATTERN` (10): hex bit pattern. Retired in DX9 API but still in DDI headers.
        LinePattern = 10 => "D3DRS_LINEPATTERN" | "D3DRENDERSTATE_LINEPATTERN"
            ; kind Hex, default 0, honour AsGiven, groups PIXEL, reads Kept,
        /// `D3DRENDERSTATE_MONOENABLE` (11): BOOL. Legacy.
        MonoEnable = 11 => "D3DRENDERSTATE_MONOENABLE" | "D3DRS_MONOENABLE"
            ; kind Bool, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_ROP2` (12): DWORD. Legacy.
        Rop2 = 12 => "D3DRENDERSTATE_ROP2" | "D3DRS_ROP2"
            ; kind Dword, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_PLANEMASK` (13): hex bit pattern. Legacy plane mask.
        PlaneMask = 13 => "D3DRENDERSTATE_PLANEMASK" | "D3DRS_PLANEMASK"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRS_ZWRITEENABLE` (14): BOOL.
        ZWriteEnable = 14 => "D3DRS_ZWRITEENABLE" | "D3DRENDERSTATE_ZWRITEENABLE"
            ; kind Bool, default TRUE, honour AsGiven, groups PIXEL, reads Pipeline,
        /// `D3DRS_ALPHATESTENABLE` (15): BOOL.
        AlphaTestEnable = 15 => "D3DRS_ALPHATESTENABLE" | "D3DRENDERSTATE_ALPHATESTENABLE"
            ; kind Bool, default 0, honour AsGiven, groups PIXEL, reads Pipeline,
        /// `D3DRS_LASTPIXEL` (16): BOOL. Draw last pixel of lines.
        LastPixel = 16 => "D3DRS_LASTPIXEL" | "D3DRENDERSTATE_LASTPIXEL"
            ; kind Bool, default TRUE, honour AsGiven, groups PIXEL, reads Pipeline,
        /// `D3DRENDERSTATE_TEXTUREMAG` (17): `D3DTEXTUREFILTER`. Legacy, stage 0 mag filter.
        TextureMag = 17 => "D3DRENDERSTATE_TEXTUREMAG" | "D3DRS_TEXTUREMAG"
            ; kind Enum(&TextureFilter::TABLE), default 0, honour AsGiven, groups NONE, reads Device,
        /// `D3DRENDERSTATE_TEXTUREMIN` (18): `D3DTEXTUREFILTER`. Legacy, stage 0 min/mip filter.
        TextureMin = 18 => "D3DRENDERSTATE_TEXTUREMIN" | "D3DRS_TEXTUREMIN"
            ; kind Enum(&TextureFilter::TABLE), default 0, honour AsGiven, groups NONE, reads Device,
        /// `D3DRS_SRCBLEND` (19): `D3DBLEND`.
        SrcBlend = 19 => "D3DRS_SRCBLEND" | "D3DRENDERSTATE_SRCBLEND"
            ; kind Enum(&Blend::TABLE), default Blend::One.raw(), honour BLEND_FACTOR_OR_ONE, groups PIXEL, reads Pipeline,
        /// `D3DRS_DESTBLEND` (20): `D3DBLEND`.
        DestBlend = 20 => "D3DRS_DESTBLEND" | "D3DRENDERSTATE_DESTBLEND"
            ; kind Enum(&Blend::TABLE), default Blend::Zero.raw(), honour BLEND_FACTOR_OR_ZERO, groups PIXEL, reads Pipeline,
        /// `D3DRENDERSTATE_TEXTUREMAPBLEND` (21): `D3DTEXTUREBLEND`. Legacy stage-0 blend mode.
        TextureMapBlend = 21 => "D3DRENDERSTATE_TEXTUREMAPBLEND" | "D3DRS_TEXTUREMAPBLEND"
            ; kind Enum(&TextureBlend::TABLE), default 0, honour AsGiven, groups NONE, reads Device,
        /// `D3DRS_CULLMODE` (22): `D3DCULL`.
        CullMode = 22 => "D3DRS_CULLMODE" | "D3DRENDERSTATE_CULLMODE"
            ; kind Enum(&Cull::TABLE), default Cull::Ccw.raw(), honour InEnum(Cull::Ccw.raw()), groups VERTEX, reads Pipeline,
        /// `D3DRS_ZFUNC` (23): `D3DCMPFUNC`.
        ZFunc = 23 => "D3DRS_ZFUNC" | "D3DRENDERSTATE_ZFUNC"
            ; kind Enum(&CmpFunc::TABLE), default CmpFunc::LessEqual.raw(), honour InEnum(CmpFunc::LessEqual.raw()), groups PIXEL, reads Pipeline,
        /// `D3DRS_ALPHAREF` (24): DWORD. Alpha test reference, 0x00-0xFF.
        AlphaRef = 24 => "D3DRS_ALPHAREF" | "D3DRENDERSTATE_ALPHAREF"
            ; kind Dword, default 0, honour Mask(0xFF), groups PIXEL, reads Pipeline,
        /// `D3DRS_ALPHAFUNC` (25): `D3DCMPFUNC`.
        AlphaFunc = 25 => "D3DRS_ALPHAFUNC" | "D3DRENDERSTATE_ALPHAFUNC"
            ; kind Enum(&CmpFunc::TABLE), default CmpFunc::Always.raw(), honour InEnum(CmpFunc::Always.raw()), groups PIXEL, reads Pipeline,
        /// `D3DRS_DITHERENABLE` (26): BOOL.
        DitherEnable = 26 => "D3DRS_DITHERENABLE" | "D3DRENDERSTATE_DITHERENABLE"
            ; kind Bool, default 0, honour Off, groups PIXEL, reads Kept,
        /// `D3DRS_ALPHABLENDENABLE` (27): BOOL. BLENDENABLE is an older name of the same value.
        AlphaBlendEnable = 27 => "D3DRS_ALPHABLENDENABLE" | "D3DRENDERSTATE_ALPHABLENDENABLE" | "D3DRS_BLENDENABLE" | "D3DRENDERSTATE_BLENDENABLE"
            ; kind Bool, default 0, honour AsGiven, groups PIXEL, reads Pipeline,
        /// `D3DRS_FOGENABLE` (28): BOOL.
        FogEnable = 28 => "D3DRS_FOGENABLE" | "D3DRENDERSTATE_FOGENABLE"
            ; kind Bool, default 0, honour AsGiven, groups VERTEX, reads Pipeline,
        /// `D3DRS_SPECULARENABLE` (29): BOOL.
        SpecularEnable = 29 => "D3DRS_SPECULARENABLE" | "D3DRENDERSTATE_SPECULARENABLE"
            ; kind Bool, default 0, honour AsGiven, groups VERTEX, reads Pipeline,
        /// `D3DRS_ZVISIBLE` (30): BOOL. Retired; W keeps D3DRS_ZVISIBLE.
        ZVisible = 30 => "D3DRS_ZVISIBLE" | "D3DRENDERSTATE_ZVISIBLE"
            ; kind Bool, default 0, honour Off, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_SUBPIXEL` (31): BOOL. Legacy.
        SubPixel = 31 => "D3DRENDERSTATE_SUBPIXEL" | "D3DRS_SUBPIXEL"
            ; kind Bool, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_SUBPIXELX` (32): DWORD. Legacy.
        SubPixelX = 32 => "D3DRENDERSTATE_SUBPIXELX" | "D3DRS_SUBPIXELX"
            ; kind Dword, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEDALPHA` (33): BOOL. Stippled alpha.
        StippledAlpha = 33 => "D3DRENDERSTATE_STIPPLEDALPHA" | "D3DRS_STIPPLEDALPHA"
            ; kind Bool, default 0, honour Off, groups PIXEL, reads Kept,
        /// `D3DRS_FOGCOLOR` (34): D3DCOLOR.
        FogColor = 34 => "D3DRS_FOGCOLOR" | "D3DRENDERSTATE_FOGCOLOR"
            ; kind Color, default 0, honour AsGiven, groups VERTEX, reads Pipeline,
        /// `D3DRS_FOGTABLEMODE` (35): `D3DFOGMODE`. Pixel (table) fog.
        FogTableMode = 35 => "D3DRS_FOGTABLEMODE" | "D3DRENDERSTATE_FOGTABLEMODE"
            ; kind Enum(&FogMode::TABLE), default 0, honour InEnum(FogMode::None.raw()), groups VERTEX, reads Pipeline,
        /// `D3DRS_FOGSTART` (36): float.
        FogStart = 36 => "D3DRS_FOGSTART" | "D3DRENDERSTATE_FOGSTART" | "D3DRS_FOGTABLESTART" | "D3DRENDERSTATE_FOGTABLESTART"
            ; kind Float, default f(0.0), honour Finite(f(0.0)), groups BOTH, reads Pipeline,
        /// `D3DRS_FOGEND` (37): float.
        FogEnd = 37 => "D3DRS_FOGEND" | "D3DRENDERSTATE_FOGEND" | "D3DRS_FOGTABLEEND" | "D3DRENDERSTATE_FOGTABLEEND"
            ; kind Float, default f(1.0), honour Finite(f(1.0)), groups BOTH, reads Pipeline,
        /// `D3DRS_FOGDENSITY` (38): float.
        FogDensity = 38 => "D3DRS_FOGDENSITY" | "D3DRENDERSTATE_FOGDENSITY" | "D3DRS_FOGTABLEDENSITY" | "D3DRENDERSTATE_FOGTABLEDENSITY"
            ; kind Float, default f(1.0), honour Finite(f(1.0)), groups BOTH, reads Pipeline,
        /// `D3DRENDERSTATE_STIPPLEENABLE` (39): BOOL. Legacy stipple enable.
        StippleEnable = 39 => "D3DRENDERSTATE_STIPPLEENABLE" | "D3DRS_STIPPLEENABLE"
            ; kind Bool, default 0, honour Off, groups NONE, reads Kept,
        /// `D3DRS_EDGEANTIALIAS` (40): BOOL. Retired in DX9 (D3DRS_EDGEANTIALIAS only in M d3d8types).
        EdgeAntialias = 40 => "D3DRS_EDGEANTIALIAS" | "D3DRENDERSTATE_EDGEANTIALIAS"
            ; kind Bool, default 0, honour Off, groups PIXEL, reads Kept,
        /// `D3DRENDERSTATE_COLORKEYENABLE` (41): BOOL. DX6/7 colour key enable.
        ColorKeyEnable = 41 => "D3DRENDERSTATE_COLORKEYENABLE" | "D3DRS_COLORKEYENABLE"
            ; kind Bool, default 0, honour AsGiven, groups NONE, reads Pipeline,
        /// `D3DRENDERSTATE_OLDALPHABLENDENABLE` (42): BOOL. W only (old alpha-blend enable); UNCONFIRMED use.
        OldAlphaBlendEnable = 42 => "D3DRENDERSTATE_OLDALPHABLENDENABLE" | "D3DRS_OLDALPHABLENDENABLE"
            ; kind Bool, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_BORDERCOLOR` (43): D3DCOLOR. Legacy, stage 0 border colour.
        BorderColor = 43 => "D3DRENDERSTATE_BORDERCOLOR" | "D3DRS_BORDERCOLOR"
            ; kind Color, default 0, honour AsGiven, groups NONE, reads Device,
        /// `D3DRENDERSTATE_TEXTUREADDRESSU` (44): `D3DTEXTUREADDRESS`. Legacy stage 0 U.
        TextureAddressU = 44 => "D3DRENDERSTATE_TEXTUREADDRESSU" | "D3DRS_TEXTUREADDRESSU"
            ; kind Enum(&TextureAddress::TABLE), default 0, honour AsGiven, groups NONE, reads Device,
        /// `D3DRENDERSTATE_TEXTUREADDRESSV` (45): `D3DTEXTUREADDRESS`. Legacy stage 0 V.
        TextureAddressV = 45 => "D3DRENDERSTATE_TEXTUREADDRESSV" | "D3DRS_TEXTUREADDRESSV"
            ; kind Enum(&TextureAddress::TABLE), default 0, honour AsGiven, groups NONE, reads Device,
        /// `D3DRENDERSTATE_MIPMAPLODBIAS` (46): float. Legacy stage 0 mip LOD bias.
        MipMapLodBias = 46 => "D3DRENDERSTATE_MIPMAPLODBIAS" | "D3DRS_MIPMAPLODBIAS"
            ; kind Float, default 0, honour AsGiven, groups NONE, reads Device,
        /// `D3DRS_ZBIAS` (47): DWORD. Retired DX9 (replaced by DEPTHBIAS 195); W keeps D3DRS_ZBIAS.
        ZBias = 47 => "D3DRS_ZBIAS" | "D3DRENDERSTATE_ZBIAS"
            ; kind Dword, default 0, honour AtMost(16), groups PIXEL, reads Pipeline,
        /// `D3DRS_RANGEFOGENABLE` (48): BOOL.
        RangeFogEnable = 48 => "D3DRS_RANGEFOGENABLE" | "D3DRENDERSTATE_RANGEFOGENABLE"
            ; kind Bool, default 0, honour AsGiven, groups VERTEX, reads Pipeline,
        /// `D3DRENDERSTATE_ANISOTROPY` (49): DWORD. Legacy stage 0 max anisotropy.
        Anisotropy = 49 => "D3DRENDERSTATE_ANISOTROPY" | "D3DRS_ANISOTROPY"
            ; kind Dword, default 0, honour AsGiven, groups NONE, reads Device,
        /// `D3DRENDERSTATE_FLUSHBATCH` (50): BOOL. Legacy flush-batch hint.
        FlushBatch = 50 => "D3DRENDERSTATE_FLUSHBATCH" | "D3DRS_FLUSHBATCH"
            ; kind Bool, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_TRANSLUCENTSORTINDEPENDENT` (51): BOOL. Legacy.
        TranslucentSortIndependent = 51 => "D3DRENDERSTATE_TRANSLUCENTSORTINDEPENDENT" | "D3DRS_TRANSLUCENTSORTINDEPENDENT"
            ; kind Bool, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRS_STENCILENABLE` (52): BOOL.
        StencilEnable = 52 => "D3DRS_STENCILENABLE" | "D3DRENDERSTATE_STENCILENABLE"
            ; kind Bool, default 0, honour AsGiven, groups PIXEL, reads Pipeline,
        /// `D3DRS_STENCILFAIL` (53): `D3DSTENCILOP`.
        StencilFail = 53 => "D3DRS_STENCILFAIL" | "D3DRENDERSTATE_STENCILFAIL"
            ; kind Enum(&StencilOp::TABLE), default StencilOp::Keep.raw(), honour InEnum(StencilOp::Keep.raw()), groups PIXEL, reads Pipeline,
        /// `D3DRS_STENCILZFAIL` (54): `D3DSTENCILOP`.
        StencilZFail = 54 => "D3DRS_STENCILZFAIL" | "D3DRENDERSTATE_STENCILZFAIL"
            ; kind Enum(&StencilOp::TABLE), default StencilOp::Keep.raw(), honour InEnum(StencilOp::Keep.raw()), groups PIXEL, reads Pipeline,
        /// `D3DRS_STENCILPASS` (55): `D3DSTENCILOP`.
        StencilPass = 55 => "D3DRS_STENCILPASS" | "D3DRENDERSTATE_STENCILPASS"
            ; kind Enum(&StencilOp::TABLE), default StencilOp::Keep.raw(), honour InEnum(StencilOp::Keep.raw()), groups PIXEL, reads Pipeline,
        /// `D3DRS_STENCILFUNC` (56): `D3DCMPFUNC`.
        StencilFunc = 56 => "D3DRS_STENCILFUNC" | "D3DRENDERSTATE_STENCILFUNC"
            ; kind Enum(&CmpFunc::TABLE), default CmpFunc::Always.raw(), honour InEnum(CmpFunc::Always.raw()), groups PIXEL, reads Pipeline,
        /// `D3DRS_STENCILREF` (57): DWORD.
        StencilRef = 57 => "D3DRS_STENCILREF" | "D3DRENDERSTATE_STENCILREF"
            ; kind Dword, default 0, honour AsGiven, groups PIXEL, reads Pipeline,
        /// `D3DRS_STENCILMASK` (58): hex bit pattern.
        StencilMask = 58 => "D3DRS_STENCILMASK" | "D3DRENDERSTATE_STENCILMASK"
            ; kind Hex, default u32::MAX, honour AsGiven, groups PIXEL, reads Pipeline,
        /// `D3DRS_STENCILWRITEMASK` (59): hex bit pattern.
        StencilWriteMask = 59 => "D3DRS_STENCILWRITEMASK" | "D3DRENDERSTATE_STENCILWRITEMASK"
            ; kind Hex, default u32::MAX, honour AsGiven, groups PIXEL, reads Pipeline,
        /// `D3DRS_TEXTUREFACTOR` (60): D3DCOLOR. TFACTOR.
        TextureFactor = 60 => "D3DRS_TEXTUREFACTOR" | "D3DRENDERSTATE_TEXTUREFACTOR"
            ; kind Color, default u32::MAX, honour AsGiven, groups PIXEL, reads Pipeline,
        /// `D3DRENDERSTATE_EVICTMANAGEDTEXTURES` (61): BOOL. DDI only: evict all driver-managed textures.
        EvictManagedTextures = 61 => "D3DRENDERSTATE_EVICTMANAGEDTEXTURES" | "D3DRS_EVICTMANAGEDTEXTURES"
            ; kind Bool, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_SCENECAPTURE` (62): BOOL. DDI only: replaces SceneCapture callback; non-zero = begin scene, 0 = end scene.
        SceneCapture = 62 => "D3DRENDERSTATE_SCENECAPTURE" | "D3DRS_SCENECAPTURE"
            ; kind Bool, default 0, honour AsGiven, groups NONE, reads Device,
        /// `D3DRENDERSTATE_STIPPLEPATTERN00` (64): hex bit pattern. Legacy stipple pattern row 0.
        StipplePattern00 = 64 => "D3DRENDERSTATE_STIPPLEPATTERN00" | "D3DRS_STIPPLEPATTERN00"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN01` (65): hex bit pattern. Legacy stipple pattern row 1.
        StipplePattern01 = 65 => "D3DRENDERSTATE_STIPPLEPATTERN01" | "D3DRS_STIPPLEPATTERN01"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN02` (66): hex bit pattern. Legacy stipple pattern row 2.
        StipplePattern02 = 66 => "D3DRENDERSTATE_STIPPLEPATTERN02" | "D3DRS_STIPPLEPATTERN02"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN03` (67): hex bit pattern. Legacy stipple pattern row 3.
        StipplePattern03 = 67 => "D3DRENDERSTATE_STIPPLEPATTERN03" | "D3DRS_STIPPLEPATTERN03"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN04` (68): hex bit pattern. Legacy stipple pattern row 4.
        StipplePattern04 = 68 => "D3DRENDERSTATE_STIPPLEPATTERN04" | "D3DRS_STIPPLEPATTERN04"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN05` (69): hex bit pattern. Legacy stipple pattern row 5.
        StipplePattern05 = 69 => "D3DRENDERSTATE_STIPPLEPATTERN05" | "D3DRS_STIPPLEPATTERN05"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN06` (70): hex bit pattern. Legacy stipple pattern row 6.
        StipplePattern06 = 70 => "D3DRENDERSTATE_STIPPLEPATTERN06" | "D3DRS_STIPPLEPATTERN06"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN07` (71): hex bit pattern. Legacy stipple pattern row 7.
        StipplePattern07 = 71 => "D3DRENDERSTATE_STIPPLEPATTERN07" | "D3DRS_STIPPLEPATTERN07"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN08` (72): hex bit pattern. Legacy stipple pattern row 8.
        StipplePattern08 = 72 => "D3DRENDERSTATE_STIPPLEPATTERN08" | "D3DRS_STIPPLEPATTERN08"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN09` (73): hex bit pattern. Legacy stipple pattern row 9.
        StipplePattern09 = 73 => "D3DRENDERSTATE_STIPPLEPATTERN09" | "D3DRS_STIPPLEPATTERN09"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN10` (74): hex bit pattern. Legacy stipple pattern row 10.
        StipplePattern10 = 74 => "D3DRENDERSTATE_STIPPLEPATTERN10" | "D3DRS_STIPPLEPATTERN10"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN11` (75): hex bit pattern. Legacy stipple pattern row 11.
        StipplePattern11 = 75 => "D3DRENDERSTATE_STIPPLEPATTERN11" | "D3DRS_STIPPLEPATTERN11"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN12` (76): hex bit pattern. Legacy stipple pattern row 12.
        StipplePattern12 = 76 => "D3DRENDERSTATE_STIPPLEPATTERN12" | "D3DRS_STIPPLEPATTERN12"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN13` (77): hex bit pattern. Legacy stipple pattern row 13.
        StipplePattern13 = 77 => "D3DRENDERSTATE_STIPPLEPATTERN13" | "D3DRS_STIPPLEPATTERN13"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN14` (78): hex bit pattern. Legacy stipple pattern row 14.
        StipplePattern14 = 78 => "D3DRENDERSTATE_STIPPLEPATTERN14" | "D3DRS_STIPPLEPATTERN14"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN15` (79): hex bit pattern. Legacy stipple pattern row 15.
        StipplePattern15 = 79 => "D3DRENDERSTATE_STIPPLEPATTERN15" | "D3DRS_STIPPLEPATTERN15"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN16` (80): hex bit pattern. Legacy stipple pattern row 16.
        StipplePattern16 = 80 => "D3DRENDERSTATE_STIPPLEPATTERN16" | "D3DRS_STIPPLEPATTERN16"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN17` (81): hex bit pattern. Legacy stipple pattern row 17.
        StipplePattern17 = 81 => "D3DRENDERSTATE_STIPPLEPATTERN17" | "D3DRS_STIPPLEPATTERN17"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN18` (82): hex bit pattern. Legacy stipple pattern row 18.
        StipplePattern18 = 82 => "D3DRENDERSTATE_STIPPLEPATTERN18" | "D3DRS_STIPPLEPATTERN18"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN19` (83): hex bit pattern. Legacy stipple pattern row 19.
        StipplePattern19 = 83 => "D3DRENDERSTATE_STIPPLEPATTERN19" | "D3DRS_STIPPLEPATTERN19"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN20` (84): hex bit pattern. Legacy stipple pattern row 20.
        StipplePattern20 = 84 => "D3DRENDERSTATE_STIPPLEPATTERN20" | "D3DRS_STIPPLEPATTERN20"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN21` (85): hex bit pattern. Legacy stipple pattern row 21.
        StipplePattern21 = 85 => "D3DRENDERSTATE_STIPPLEPATTERN21" | "D3DRS_STIPPLEPATTERN21"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN22` (86): hex bit pattern. Legacy stipple pattern row 22.
        StipplePattern22 = 86 => "D3DRENDERSTATE_STIPPLEPATTERN22" | "D3DRS_STIPPLEPATTERN22"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN23` (87): hex bit pattern. Legacy stipple pattern row 23.
        StipplePattern23 = 87 => "D3DRENDERSTATE_STIPPLEPATTERN23" | "D3DRS_STIPPLEPATTERN23"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN24` (88): hex bit pattern. Legacy stipple pattern row 24.
        StipplePattern24 = 88 => "D3DRENDERSTATE_STIPPLEPATTERN24" | "D3DRS_STIPPLEPATTERN24"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN25` (89): hex bit pattern. Legacy stipple pattern row 25.
        StipplePattern25 = 89 => "D3DRENDERSTATE_STIPPLEPATTERN25" | "D3DRS_STIPPLEPATTERN25"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN26` (90): hex bit pattern. Legacy stipple pattern row 26.
        StipplePattern26 = 90 => "D3DRENDERSTATE_STIPPLEPATTERN26" | "D3DRS_STIPPLEPATTERN26"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN27` (91): hex bit pattern. Legacy stipple pattern row 27.
        StipplePattern27 = 91 => "D3DRENDERSTATE_STIPPLEPATTERN27" | "D3DRS_STIPPLEPATTERN27"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN28` (92): hex bit pattern. Legacy stipple pattern row 28.
        StipplePattern28 = 92 => "D3DRENDERSTATE_STIPPLEPATTERN28" | "D3DRS_STIPPLEPATTERN28"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN29` (93): hex bit pattern. Legacy stipple pattern row 29.
        StipplePattern29 = 93 => "D3DRENDERSTATE_STIPPLEPATTERN29" | "D3DRS_STIPPLEPATTERN29"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN30` (94): hex bit pattern. Legacy stipple pattern row 30.
        StipplePattern30 = 94 => "D3DRENDERSTATE_STIPPLEPATTERN30" | "D3DRS_STIPPLEPATTERN30"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRENDERSTATE_STIPPLEPATTERN31` (95): hex bit pattern. Legacy stipple pattern row 31.
        StipplePattern31 = 95 => "D3DRENDERSTATE_STIPPLEPATTERN31" | "D3DRS_STIPPLEPATTERN31"
            ; kind Hex, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRS_WRAP0` (128): `D3DWRAP*` bits. WRAPBIAS = 128; WRAP0..7 = 128..135.
        Wrap0 = 128 => "D3DRS_WRAP0" | "D3DRENDERSTATE_WRAP0" | "D3DRS_WRAPBIAS" | "D3DRENDERSTATE_WRAPBIAS"
            ; kind Flags(&WRAP_FLAGS), default 0, honour AsGiven, groups PIXEL, reads Kept,
        /// `D3DRS_WRAP1` (129): `D3DWRAP*` bits. Tex coord set 1.
        Wrap1 = 129 => "D3DRS_WRAP1" | "D3DRENDERSTATE_WRAP1"
            ; kind Flags(&WRAP_FLAGS), default 0, honour AsGiven, groups PIXEL, reads Kept,
        /// `D3DRS_WRAP2` (130): `D3DWRAP*` bits. Tex coord set 2.
        Wrap2 = 130 => "D3DRS_WRAP2" | "D3DRENDERSTATE_WRAP2"
            ; kind Flags(&WRAP_FLAGS), default 0, honour AsGiven, groups PIXEL, reads Kept,
        /// `D3DRS_WRAP3` (131): `D3DWRAP*` bits. Tex coord set 3.
        Wrap3 = 131 => "D3DRS_WRAP3" | "D3DRENDERSTATE_WRAP3"
            ; kind Flags(&WRAP_FLAGS), default 0, honour AsGiven, groups PIXEL, reads Kept,
        /// `D3DRS_WRAP4` (132): `D3DWRAP*` bits. Tex coord set 4.
        Wrap4 = 132 => "D3DRS_WRAP4" | "D3DRENDERSTATE_WRAP4"
            ; kind Flags(&WRAP_FLAGS), default 0, honour AsGiven, groups PIXEL, reads Kept,
        /// `D3DRS_WRAP5` (133): `D3DWRAP*` bits. Tex coord set 5.
        Wrap5 = 133 => "D3DRS_WRAP5" | "D3DRENDERSTATE_WRAP5"
            ; kind Flags(&WRAP_FLAGS), default 0, honour AsGiven, groups PIXEL, reads Kept,
        /// `D3DRS_WRAP6` (134): `D3DWRAP*` bits. Tex coord set 6.
        Wrap6 = 134 => "D3DRS_WRAP6" | "D3DRENDERSTATE_WRAP6"
            ; kind Flags(&WRAP_FLAGS), default 0, honour AsGiven, groups PIXEL, reads Kept,
        /// `D3DRS_WRAP7` (135): `D3DWRAP*` bits. Tex coord set 7.
        Wrap7 = 135 => "D3DRS_WRAP7" | "D3DRENDERSTATE_WRAP7"
            ; kind Flags(&WRAP_FLAGS), default 0, honour AsGiven, groups PIXEL, reads Kept,
        /// `D3DRS_CLIPPING` (136): BOOL.
        Clipping = 136 => "D3DRS_CLIPPING" | "D3DRENDERSTATE_CLIPPING"
            ; kind Bool, default TRUE, honour AsGiven, groups VERTEX, reads Pipeline,
        /// `D3DRS_LIGHTING` (137): BOOL.
        Lighting = 137 => "D3DRS_LIGHTING" | "D3DRENDERSTATE_LIGHTING"
            ; kind Bool, default 0, honour AsGiven, groups VERTEX, reads Pipeline,
        /// `D3DRENDERSTATE_EXTENTS` (138): BOOL. Legacy extents tracking.
        Extents = 138 => "D3DRENDERSTATE_EXTENTS" | "D3DRS_EXTENTS"
            ; kind Bool, default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRS_AMBIENT` (139): D3DCOLOR.
        Ambient = 139 => "D3DRS_AMBIENT" | "D3DRENDERSTATE_AMBIENT"
            ; kind Color, default 0, honour AsGiven, groups VERTEX, reads Pipeline,
        /// `D3DRS_FOGVERTEXMODE` (140): `D3DFOGMODE`. Vertex fog mode.
        FogVertexMode = 140 => "D3DRS_FOGVERTEXMODE" | "D3DRENDERSTATE_FOGVERTEXMODE"
            ; kind Enum(&FogMode::TABLE), default 0, honour InEnum(FogMode::None.raw()), groups VERTEX, reads Pipeline,
        /// `D3DRS_COLORVERTEX` (141): BOOL.
        ColorVertex = 141 => "D3DRS_COLORVERTEX" | "D3DRENDERSTATE_COLORVERTEX"
            ; kind Bool, default TRUE, honour AsGiven, groups VERTEX, reads Pipeline,
        /// `D3DRS_LOCALVIEWER` (142): BOOL.
        LocalViewer = 142 => "D3DRS_LOCALVIEWER" | "D3DRENDERSTATE_LOCALVIEWER"
            ; kind Bool, default TRUE, honour AsGiven, groups VERTEX, reads Pipeline,
        /// `D3DRS_NORMALIZENORMALS` (143): BOOL.
        NormalizeNormals = 143 => "D3DRS_NORMALIZENORMALS" | "D3DRENDERSTATE_NORMALIZENORMALS"
            ; kind Bool, default 0, honour AsGiven, groups VERTEX, reads Pipeline,
        /// `D3DRENDERSTATE_COLORKEYBLENDENABLE` (144): BOOL. DX6/7.
        ColorKeyBlendEnable = 144 => "D3DRENDERSTATE_COLORKEYBLENDENABLE" | "D3DRS_COLORKEYBLENDENABLE"
            ; kind Bool, default 0, honour AsGiven, groups NONE, reads Pipeline,
        /// `D3DRS_DIFFUSEMATERIALSOURCE` (145): `D3DMATERIALCOLORSOURCE`.
        DiffuseMaterialSource = 145 => "D3DRS_DIFFUSEMATERIALSOURCE" | "D3DRENDERSTATE_DIFFUSEMATERIALSOURCE"
            ; kind Enum(&MaterialColorSource::TABLE), default MaterialColorSource::Color1.raw(), honour InEnum(MaterialColorSource::Material.raw()), groups VERTEX, reads Pipeline,
        /// `D3DRS_SPECULARMATERIALSOURCE` (146): `D3DMATERIALCOLORSOURCE`.
        SpecularMaterialSource = 146 => "D3DRS_SPECULARMATERIALSOURCE" | "D3DRENDERSTATE_SPECULARMATERIALSOURCE"
            ; kind Enum(&MaterialColorSource::TABLE), default MaterialColorSource::Color2.raw(), honour InEnum(MaterialColorSource::Material.raw()), groups VERTEX, reads Pipeline,
        /// `D3DRS_AMBIENTMATERIALSOURCE` (147): `D3DMATERIALCOLORSOURCE`.
        AmbientMaterialSource = 147 => "D3DRS_AMBIENTMATERIALSOURCE" | "D3DRENDERSTATE_AMBIENTMATERIALSOURCE"
            ; kind Enum(&MaterialColorSource::TABLE), default 0, honour InEnum(MaterialColorSource::Material.raw()), groups VERTEX, reads Pipeline,
        /// `D3DRS_EMISSIVEMATERIALSOURCE` (148): `D3DMATERIALCOLORSOURCE`.
        EmissiveMaterialSource = 148 => "D3DRS_EMISSIVEMATERIALSOURCE" | "D3DRENDERSTATE_EMISSIVEMATERIALSOURCE"
            ; kind Enum(&MaterialColorSource::TABLE), default 0, honour InEnum(MaterialColorSource::Material.raw()), groups VERTEX, reads Pipeline,
        /// `D3DRS_VERTEXBLEND` (151): `D3DVERTEXBLENDFLAGS`.
        VertexBlend = 151 => "D3DRS_VERTEXBLEND" | "D3DRENDERSTATE_VERTEXBLEND"
            ; kind Enum(&VertexBlendFlags::TABLE), default 0, honour InEnum(VertexBlendFlags::Disable.raw()), groups VERTEX, reads Pipeline,
        /// `D3DRS_CLIPPLANEENABLE` (152): `D3DCLIPPLANEn` bits. Bit i enables user clip plane i (0x1..0x20 named; up to 32).
        ClipPlaneEnable = 152 => "D3DRS_CLIPPLANEENABLE" | "D3DRENDERSTATE_CLIPPLANEENABLE"
            ; kind Flags(&CLIP_PLANE_FLAGS), default 0, honour Mask(0x3F), groups VERTEX, reads Pipeline,
        /// `D3DRS_SOFTWAREVERTEXPROCESSING` (153): BOOL. DX8 only (retired DX9); W keeps it.
        SoftwareVertexProcessing = 153 => "D3DRS_SOFTWAREVERTEXPROCESSING" | "D3DRENDERSTATE_SOFTWAREVERTEXPROCESSING"
            ; kind Bool, default 0, honour AsGiven, groups VERTEX, reads Kept,
        /// `D3DRS_POINTSIZE` (154): float.
        PointSize = 154 => "D3DRS_POINTSIZE" | "D3DRENDERSTATE_POINTSIZE"
            ; kind Float, default f(1.0), honour Finite(f(1.0)), groups VERTEX, reads Pipeline,
        /// `D3DRS_POINTSIZE_MIN` (155): float.
        PointSizeMin = 155 => "D3DRS_POINTSIZE_MIN" | "D3DRENDERSTATE_POINTSIZE_MIN"
            ; kind Float, default f(1.0), honour Finite(f(1.0)), groups VERTEX, reads Pipeline,
        /// `D3DRS_POINTSPRITEENABLE` (156): BOOL.
        PointSpriteEnable = 156 => "D3DRS_POINTSPRITEENABLE" | "D3DRENDERSTATE_POINTSPRITEENABLE"
            ; kind Bool, default 0, honour AsGiven, groups VERTEX, reads Pipeline,
        /// `D3DRS_POINTSCALEENABLE` (157): BOOL.
        PointScaleEnable = 157 => "D3DRS_POINTSCALEENABLE" | "D3DRENDERSTATE_POINTSCALEENABLE"
            ; kind Bool, default 0, honour AsGiven, groups VERTEX, reads Pipeline,
        /// `D3DRS_POINTSCALE_A` (158): float.
        PointScaleA = 158 => "D3DRS_POINTSCALE_A" | "D3DRENDERSTATE_POINTSCALE_A"
            ; kind Float, default f(1.0), honour Finite(f(1.0)), groups VERTEX, reads Pipeline,
        /// `D3DRS_POINTSCALE_B` (159): float.
        PointScaleB = 159 => "D3DRS_POINTSCALE_B" | "D3DRENDERSTATE_POINTSCALE_B"
            ; kind Float, default 0, honour Finite(f(0.0)), groups VERTEX, reads Pipeline,
        /// `D3DRS_POINTSCALE_C` (160): float.
        PointScaleC = 160 => "D3DRS_POINTSCALE_C" | "D3DRENDERSTATE_POINTSCALE_C"
            ; kind Float, default 0, honour Finite(f(0.0)), groups VERTEX, reads Pipeline,
        /// `D3DRS_MULTISAMPLEANTIALIAS` (161): BOOL.
        MultisampleAntialias = 161 => "D3DRS_MULTISAMPLEANTIALIAS" | "D3DRENDERSTATE_MULTISAMPLEANTIALIAS"
            ; kind Bool, default 0, honour Off, groups VERTEX, reads Kept,
        /// `D3DRS_MULTISAMPLEMASK` (162): hex bit pattern. Sample mask.
        MultisampleMask = 162 => "D3DRS_MULTISAMPLEMASK" | "D3DRENDERSTATE_MULTISAMPLEMASK"
            ; kind Hex, default u32::MAX, honour AsGiven, groups VERTEX, reads Kept,
        /// `D3DRS_PATCHEDGESTYLE` (163): `D3DPATCHEDGESTYLE`.
        PatchEdgeStyle = 163 => "D3DRS_PATCHEDGESTYLE" | "D3DRENDERSTATE_PATCHEDGESTYLE"
            ; kind Enum(&PatchEdgeStyle::TABLE), default 0, honour InEnum(PatchEdgeStyle::Discrete.raw()), groups VERTEX, reads Device,
        /// `D3DRS_PATCHSEGMENTS` (164): float. DX8 N-patch/RT-patch segments; retired DX9 API, still in DDI.
        PatchSegments = 164 => "D3DRS_PATCHSEGMENTS" | "D3DRENDERSTATE_PATCHSEGMENTS"
            ; kind Float, default f(1.0), honour FiniteNonNegative(f(1.0)), groups VERTEX, reads Device,
        /// `D3DRS_DEBUGMONITORTOKEN` (165): `D3DDEBUGMONITORTOKENS`. Debug only.
        DebugMonitorToken = 165 => "D3DRS_DEBUGMONITORTOKEN" | "D3DRENDERSTATE_DEBUGMONITORTOKEN"
            ; kind Enum(&DebugMonitorTokens::TABLE), default 0, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRS_POINTSIZE_MAX` (166): float.
        PointSizeMax = 166 => "D3DRS_POINTSIZE_MAX" | "D3DRENDERSTATE_POINTSIZE_MAX"
            ; kind Float, default f(64.0), honour Finite(f(64.0)), groups VERTEX, reads Pipeline,
        /// `D3DRS_INDEXEDVERTEXBLENDENABLE` (167): BOOL.
        IndexedVertexBlendEnable = 167 => "D3DRS_INDEXEDVERTEXBLENDENABLE" | "D3DRENDERSTATE_INDEXEDVERTEXBLENDENABLE"
            ; kind Bool, default 0, honour AsGiven, groups VERTEX, reads Pipeline,
        /// `D3DRS_COLORWRITEENABLE` (168): `D3DCOLORWRITEENABLE_*` bits. RT 0.
        ColorWriteEnable = 168 => "D3DRS_COLORWRITEENABLE" | "D3DRENDERSTATE_COLORWRITEENABLE"
            ; kind Flags(&COLOR_WRITE_FLAGS), default 0xF, honour Mask(0xF), groups PIXEL, reads Pipeline,
        /// `D3DRS_DELETERTPATCH` (169): handle. DDI only: delete cached RT/tri patch with this handle.
        DeleteRtPatch = 169 => "D3DRS_DELETERTPATCH" | "D3DRENDERSTATE_DELETERTPATCH"
            ; kind Handle, default 0, honour AsGiven, groups NONE, reads Device,
        /// `D3DRS_TWEENFACTOR` (170): float.
        TweenFactor = 170 => "D3DRS_TWEENFACTOR" | "D3DRENDERSTATE_TWEENFACTOR"
            ; kind Float, default 0, honour Finite(f(0.0)), groups VERTEX, reads Pipeline,
        /// `D3DRS_BLENDOP` (171): `D3DBLENDOP`.
        BlendOp = 171 => "D3DRS_BLENDOP" | "D3DRENDERSTATE_BLENDOP"
            ; kind Enum(&BlendOp::TABLE), default BlendOp::Add.raw(), honour InEnum(BlendOp::Add.raw()), groups PIXEL, reads Pipeline,
        /// `D3DRS_POSITIONDEGREE` (172): `D3DDEGREETYPE`. DX8 name POSITIONORDER (`D3DORDERTYPE`).
        PositionDegree = 172 => "D3DRS_POSITIONDEGREE" | "D3DRENDERSTATE_POSITIONDEGREE" | "D3DRS_POSITIONORDER" | "D3DRENDERSTATE_POSITIONORDER"
            ; kind Enum(&DegreeType::TABLE), default DegreeType::Cubic.raw(), honour InEnum(DegreeType::Cubic.raw()), groups VERTEX, reads Kept,
        /// `D3DRS_NORMALDEGREE` (173): `D3DDEGREETYPE`. DX8 name NORMALORDER.
        NormalDegree = 173 => "D3DRS_NORMALDEGREE" | "D3DRENDERSTATE_NORMALDEGREE" | "D3DRS_NORMALORDER" | "D3DRENDERSTATE_NORMALORDER"
            ; kind Enum(&DegreeType::TABLE), default DegreeType::Linear.raw(), honour InEnum(DegreeType::Linear.raw()), groups VERTEX, reads Kept,
        /// `D3DRS_SCISSORTESTENABLE` (174): BOOL.
        ScissorTestEnable = 174 => "D3DRS_SCISSORTESTENABLE" | "D3DRENDERSTATE_SCISSORTESTENABLE"
            ; kind Bool, default 0, honour AsGiven, groups PIXEL, reads Pipeline,
        /// `D3DRS_SLOPESCALEDEPTHBIAS` (175): float.
        SlopeScaleDepthBias = 175 => "D3DRS_SLOPESCALEDEPTHBIAS" | "D3DRENDERSTATE_SLOPESCALEDEPTHBIAS"
            ; kind Float, default 0, honour Finite(f(0.0)), groups PIXEL, reads Pipeline,
        /// `D3DRS_ANTIALIASEDLINEENABLE` (176): BOOL.
        AntialiasedLineEnable = 176 => "D3DRS_ANTIALIASEDLINEENABLE" | "D3DRENDERSTATE_ANTIALIASEDLINEENABLE"
            ; kind Bool, default 0, honour Off, groups PIXEL, reads Kept,
        /// `D3DRS_MINTESSELLATIONLEVEL` (178): float.
        MinTessellationLevel = 178 => "D3DRS_MINTESSELLATIONLEVEL" | "D3DRENDERSTATE_MINTESSELLATIONLEVEL"
            ; kind Float, default f(1.0), honour AsGiven, groups VERTEX, reads Kept,
        /// `D3DRS_MAXTESSELLATIONLEVEL` (179): float.
        MaxTessellationLevel = 179 => "D3DRS_MAXTESSELLATIONLEVEL" | "D3DRENDERSTATE_MAXTESSELLATIONLEVEL"
            ; kind Float, default f(1.0), honour AsGiven, groups VERTEX, reads Kept,
        /// `D3DRS_ADAPTIVETESS_X` (180): float.
        AdaptiveTessX = 180 => "D3DRS_ADAPTIVETESS_X" | "D3DRENDERSTATE_ADAPTIVETESS_X"
            ; kind Float, default 0, honour AsGiven, groups VERTEX, reads Kept,
        /// `D3DRS_ADAPTIVETESS_Y` (181): float.
        AdaptiveTessY = 181 => "D3DRS_ADAPTIVETESS_Y" | "D3DRENDERSTATE_ADAPTIVETESS_Y"
            ; kind Float, default 0, honour AsGiven, groups VERTEX, reads Kept,
        /// `D3DRS_ADAPTIVETESS_Z` (182): float.
        AdaptiveTessZ = 182 => "D3DRS_ADAPTIVETESS_Z" | "D3DRENDERSTATE_ADAPTIVETESS_Z"
            ; kind Float, default 0, honour AsGiven, groups VERTEX, reads Kept,
        /// `D3DRS_ADAPTIVETESS_W` (183): float.
        AdaptiveTessW = 183 => "D3DRS_ADAPTIVETESS_W" | "D3DRENDERSTATE_ADAPTIVETESS_W"
            ; kind Float, default f(1.0), honour AsGiven, groups VERTEX, reads Kept,
        /// `D3DRS_ENABLEADAPTIVETESSELLATION` (184): BOOL.
        EnableAdaptiveTessellation = 184 => "D3DRS_ENABLEADAPTIVETESSELLATION" | "D3DRENDERSTATE_ENABLEADAPTIVETESSELLATION"
            ; kind Bool, default 0, honour Off, groups VERTEX, reads Kept,
        /// `D3DRS_TWOSIDEDSTENCILMODE` (185): BOOL.
        TwoSidedStencilMode = 185 => "D3DRS_TWOSIDEDSTENCILMODE" | "D3DRENDERSTATE_TWOSIDEDSTENCILMODE"
            ; kind Bool, default 0, honour AsGiven, groups PIXEL, reads Pipeline,
        /// `D3DRS_CCW_STENCILFAIL` (186): `D3DSTENCILOP`.
        CcwStencilFail = 186 => "D3DRS_CCW_STENCILFAIL" | "D3DRENDERSTATE_CCW_STENCILFAIL"
            ; kind Enum(&StencilOp::TABLE), default StencilOp::Keep.raw(), honour InEnum(StencilOp::Keep.raw()), groups PIXEL, reads Pipeline,
        /// `D3DRS_CCW_STENCILZFAIL` (187): `D3DSTENCILOP`.
        CcwStencilZFail = 187 => "D3DRS_CCW_STENCILZFAIL" | "D3DRENDERSTATE_CCW_STENCILZFAIL"
            ; kind Enum(&StencilOp::TABLE), default StencilOp::Keep.raw(), honour InEnum(StencilOp::Keep.raw()), groups PIXEL, reads Pipeline,
        /// `D3DRS_CCW_STENCILPASS` (188): `D3DSTENCILOP`.
        CcwStencilPass = 188 => "D3DRS_CCW_STENCILPASS" | "D3DRENDERSTATE_CCW_STENCILPASS"
            ; kind Enum(&StencilOp::TABLE), default StencilOp::Keep.raw(), honour InEnum(StencilOp::Keep.raw()), groups PIXEL, reads Pipeline,
        /// `D3DRS_CCW_STENCILFUNC` (189): `D3DCMPFUNC`.
        CcwStencilFunc = 189 => "D3DRS_CCW_STENCILFUNC" | "D3DRENDERSTATE_CCW_STENCILFUNC"
            ; kind Enum(&CmpFunc::TABLE), default CmpFunc::Always.raw(), honour InEnum(CmpFunc::Always.raw()), groups PIXEL, reads Pipeline,
        /// `D3DRS_COLORWRITEENABLE1` (190): `D3DCOLORWRITEENABLE_*` bits. RT 1.
        ColorWriteEnable1 = 190 => "D3DRS_COLORWRITEENABLE1" | "D3DRENDERSTATE_COLORWRITEENABLE1"
            ; kind Flags(&COLOR_WRITE_FLAGS), default 0xF, honour Mask(0xF), groups PIXEL, reads Pipeline,
        /// `D3DRS_COLORWRITEENABLE2` (191): `D3DCOLORWRITEENABLE_*` bits. RT 2.
        ColorWriteEnable2 = 191 => "D3DRS_COLORWRITEENABLE2" | "D3DRENDERSTATE_COLORWRITEENABLE2"
            ; kind Flags(&COLOR_WRITE_FLAGS), default 0xF, honour Mask(0xF), groups PIXEL, reads Pipeline,
        /// `D3DRS_COLORWRITEENABLE3` (192): `D3DCOLORWRITEENABLE_*` bits. RT 3.
        ColorWriteEnable3 = 192 => "D3DRS_COLORWRITEENABLE3" | "D3DRENDERSTATE_COLORWRITEENABLE3"
            ; kind Flags(&COLOR_WRITE_FLAGS), default 0xF, honour Mask(0xF), groups PIXEL, reads Pipeline,
        /// `D3DRS_BLENDFACTOR` (193): D3DCOLOR.
        BlendFactor = 193 => "D3DRS_BLENDFACTOR" | "D3DRENDERSTATE_BLENDFACTOR"
            ; kind Color, default u32::MAX, honour AsGiven, groups PIXEL, reads Pipeline,
        /// `D3DRS_SRGBWRITEENABLE` (194): BOOL.
        SrgbWriteEnable = 194 => "D3DRS_SRGBWRITEENABLE" | "D3DRENDERSTATE_SRGBWRITEENABLE"
            ; kind Bool, default 0, honour Off, groups PIXEL, reads Kept,
        /// `D3DRS_DEPTHBIAS` (195): float. Replaces ZBIAS.
        DepthBias = 195 => "D3DRS_DEPTHBIAS" | "D3DRENDERSTATE_DEPTHBIAS"
            ; kind Float, default 0, honour Finite(f(0.0)), groups PIXEL, reads Pipeline,
        /// `D3DRS_MAXVERTEXSHADERINST` (196): DWORD. DDI only: max vs_3_0 instructions executed; default 0xFFFFFFFF (D3DINFINITEINSTRUCTIONS).
        MaxVertexShaderInst = 196 => "D3DRS_MAXVERTEXSHADERINST" | "D3DRENDERSTATE_MAXVERTEXSHADERINST"
            ; kind Dword, default u32::MAX, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRS_MAXPIXELSHADERINST` (197): DWORD. DDI only: max ps_3_0 instructions executed; default 0xFFFFFFFF.
        MaxPixelShaderInst = 197 => "D3DRS_MAXPIXELSHADERINST" | "D3DRENDERSTATE_MAXPIXELSHADERINST"
            ; kind Dword, default u32::MAX, honour AsGiven, groups NONE, reads Kept,
        /// `D3DRS_WRAP8` (198): `D3DWRAP*` bits. Tex coord set 8.
        Wrap8 = 198 => "D3DRS_WRAP8" | "D3DRENDERSTATE_WRAP8"
            ; kind Flags(&WRAP_FLAGS), default 0, honour AsGiven, groups PIXEL, reads Kept,
        /// `D3DRS_WRAP9` (199): `D3DWRAP*` bits. Tex coord set 9.
        Wrap9 = 199 => "D3DRS_WRAP9" | "D3DRENDERSTATE_WRAP9"
            ; kind Flags(&WRAP_FLAGS), default 0, honour AsGiven, groups PIXEL, reads Kept,
        /// `D3DRS_WRAP10` (200): `D3DWRAP*` bits. Tex coord set 10.
        Wrap10 = 200 => "D3DRS_WRAP10" | "D3DRENDERSTATE_WRAP10"
            ; kind Flags(&WRAP_FLAGS), default 0, honour AsGiven, groups PIXEL, reads Kept,
        /// `D3DRS_WRAP11` (201): `D3DWRAP*` bits. Tex coord set 11.
        Wrap11 = 201 => "D3DRS_WRAP11" | "D3DRENDERSTATE_WRAP11"
            ; kind Flags(&WRAP_FLAGS), default 0, honour AsGiven, groups PIXEL, reads Kept,
        /// `D3DRS_WRAP12` (202): `D3DWRAP*` bits. Tex coord set 12.
        Wrap12 = 202 => "D3DRS_WRAP12" | "D3DRENDERSTATE_WRAP12"
            ; kind Flags(&WRAP_FLAGS), default 0, honour AsGiven, groups PIXEL, reads Kept,
        /// `D3DRS_WRAP13` (203): `D3DWRAP*` bits. Tex coord set 13.
        Wrap13 = 203 => "D3DRS_WRAP13" | "D3DRENDERSTATE_WRAP13"
            ; kind Flags(&WRAP_FLAGS), default 0, honour AsGiven, groups PIXEL, reads Kept,
        /// `D3DRS_WRAP14` (204): `D3DWRAP*` bits. Tex coord set 14.
        Wrap14 = 204 => "D3DRS_WRAP14" | "D3DRENDERSTATE_WRAP14"
            ; kind Flags(&WRAP_FLAGS), default 0, honour AsGiven, groups PIXEL, reads Kept,
        /// `D3DRS_WRAP15` (205): `D3DWRAP*` bits. Tex coord set 15.
        Wrap15 = 205 => "D3DRS_WRAP15" | "D3DRENDERSTATE_WRAP15"
            ; kind Flags(&WRAP_FLAGS), default 0, honour AsGiven, groups PIXEL, reads Kept,
        /// `D3DRS_SEPARATEALPHABLENDENABLE` (206): BOOL.
        SeparateAlphaBlendEnable = 206 => "D3DRS_SEPARATEALPHABLENDENABLE" | "D3DRENDERSTATE_SEPARATEALPHABLENDENABLE"
            ; kind Bool, default 0, honour AsGiven, groups PIXEL, reads Pipeline,
        /// `D3DRS_SRCBLENDALPHA` (207): `D3DBLEND`.
        SrcBlendAlpha = 207 => "D3DRS_SRCBLENDALPHA" | "D3DRENDERSTATE_SRCBLENDALPHA"
            ; kind Enum(&Blend::TABLE), default Blend::One.raw(), honour BLEND_FACTOR_OR_ONE, groups PIXEL, reads Pipeline,
        /// `D3DRS_DESTBLENDALPHA` (208): `D3DBLEND`.
        DestBlendAlpha = 208 => "D3DRS_DESTBLENDALPHA" | "D3DRENDERSTATE_DESTBLENDALPHA"
            ; kind Enum(&Blend::TABLE), default Blend::Zero.raw(), honour BLEND_FACTOR_OR_ZERO, groups PIXEL, reads Pipeline,
        /// `D3DRS_BLENDOPALPHA` (209): `D3DBLENDOP`.
        BlendOpAlpha = 209 => "D3DRS_BLENDOPALPHA" | "D3DRENDERSTATE_BLENDOPALPHA"
            ; kind Enum(&BlendOp::TABLE), default BlendOp::Add.raw(), honour InEnum(BlendOp::Add.raw()), groups PIXEL, reads Pipeline,
    }
}

/// Legacy override bias (`D3DSTATE_OVERRIDE_BIAS`): execute-buffer state + 256
/// meant "override"; not used on the DP2 path.
pub const D3DSTATE_OVERRIDE_BIAS: u32 = 256;

/// `D3DRENDERSTATE_WRAPBIAS`: `D3DRENDERSTATE_WRAP0` (WRAPn = WRAPBIAS + n for n < 8).
pub const D3DRENDERSTATE_WRAPBIAS: u32 = 128;

/// First stipple-pattern state (`D3DRENDERSTATE_STIPPLEPATTERN(y)` = 64 + y).
pub const D3DRENDERSTATE_STIPPLEPATTERN_BASE: u32 = 64;

impl RenderStateType {
    /// The value the device honours when this state is set to `value`
    /// (the row's [`Honour`] rule applied to its kind).
    pub fn honoured(self, value: u32) -> u32 {
        let info = self.info();
        info.honour.apply(info.kind, value)
    }
}
