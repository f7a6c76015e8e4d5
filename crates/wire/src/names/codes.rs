//! Return codes: callback results, `ddrval` HRESULTs and WDDM `D3DDDIERR_*`.
//!
//! In: the DWORD a HAL callback returns (`DDHAL_DRIVER_*`) or the HRESULT it
//! stores in `ddrval` (and what `pfnRenderCb` returns). Out: every code named
//! in the DDI as a `pub const u32` with its DDK name, and the name tables
//! [`HRESULTS`] / [`DRIVER_RETURNS`] with [`hresult_name`] and
//! [`driver_return_name`] for printing. Several names share one value
//! (`DDERR_WASSTILLDRAWING` = `D3DERR_WASSTILLDRAWING` =
//! `D3DDDIERR_WASSTILLDRAWING`, `DDERR_GENERIC` = `E_FAIL`, ...): the table
//! prints one canonical name and accepts the others when parsing.

use crate::ddi_enum::{CustomKind, EnumTable};

/// Builds an HRESULT of the DirectDraw/Direct3D facility: `0x88760000 | code`
/// (`MAKE_DDHRESULT` / `MAKE_D3DHRESULT` / `MAKE_D3DDDIHRESULT`).
pub const fn make_d3d_hresult(code: u32) -> u32 {
    0x8876_0000 | code
}

// --- Callback return values (the function result, not ddrval) ---

/// The driver did nothing; the runtime may fall back.
pub const DDHAL_DRIVER_NOTHANDLED: u32 = 0;
/// The driver handled the call; the result is in `ddrval`.
pub const DDHAL_DRIVER_HANDLED: u32 = 1;
/// DirectDraw only (colour-key hardware missing); never returned by D3D callbacks.
pub const DDHAL_DRIVER_NOCKEYHW: u32 = 2;

// --- Success ---

/// Success.
pub const D3D_OK: u32 = 0;
/// Success (DirectDraw spelling).
pub const DD_OK: u32 = 0;
/// Success (COM spelling).
pub const S_OK: u32 = 0;
/// Success code: the format cannot auto-generate mip levels (severity 0).
pub const D3DOK_NOAUTOGEN: u32 = 0x0876_086F;

// --- Small D3DHAL_* status values stored in ddrval as is ---

/// Invalid `dwhContext`.
pub const D3DHAL_CONTEXT_BAD: u32 = 0x200;
/// ContextCreate: no more contexts.
pub const D3DHAL_OUTOFCONTEXTS: u32 = 0x201;
/// Legacy execute-buffer path: abort.
pub const D3DHAL_EXECUTE_ABORT: u32 = 0x210;
/// Legacy execute-buffer path: not handled.
pub const D3DHAL_EXECUTE_UNHANDLED: u32 = 0x211;
/// Legacy execute-buffer status: normal.
pub const D3DHAL_EXECUTE_NORMAL: u32 = 0;
/// Legacy execute-buffer status: override.
pub const D3DHAL_EXECUTE_OVERRIDE: u32 = 1;

// --- COM / DirectDraw generic errors ---

/// Unspecified failure.
pub const E_FAIL: u32 = 0x8000_4005;
/// Not implemented.
pub const E_NOTIMPL: u32 = 0x8000_4001;
/// Out of memory.
pub const E_OUTOFMEMORY: u32 = 0x8007_000E;
/// Invalid argument.
pub const E_INVALIDARG: u32 = 0x8007_0057;
/// = `E_FAIL`.
pub const DDERR_GENERIC: u32 = E_FAIL;
/// = `E_NOTIMPL`.
pub const DDERR_UNSUPPORTED: u32 = E_NOTIMPL;
/// = `E_OUTOFMEMORY`.
pub const DDERR_OUTOFMEMORY: u32 = E_OUTOFMEMORY;
/// = `E_INVALIDARG` (e.g. a null command pointer).
pub const DDERR_INVALIDPARAMS: u32 = E_INVALIDARG;

// --- DDERR_* (facility 0x876) ---

/// The render target is being flipped.
pub const DDERR_WASSTILLDRAWING: u32 = make_d3d_hresult(540);
/// = `DDERR_WASSTILLDRAWING`.
pub const D3DERR_WASSTILLDRAWING: u32 = DDERR_WASSTILLDRAWING;
/// Surface memory lost.
pub const DDERR_SURFACELOST: u32 = make_d3d_hresult(450);
/// Not currently available.
pub const DDERR_CURRENTLYNOTAVAIL: u32 = make_d3d_hresult(40);
/// Invalid object.
pub const DDERR_INVALIDOBJECT: u32 = make_d3d_hresult(130);
/// An exception was raised.
pub const DDERR_EXCEPTION: u32 = make_d3d_hresult(55);
/// The surface cannot be locked.
pub const DDERR_CANTLOCKSURFACE: u32 = make_d3d_hresult(435);
/// Unsupported format.
pub const DDERR_UNSUPPORTEDFORMAT: u32 = make_d3d_hresult(510);
/// Out of video memory.
pub const DDERR_OUTOFVIDEOMEMORY: u32 = make_d3d_hresult(380);
/// = `DDERR_OUTOFVIDEOMEMORY`.
pub const D3DERR_OUTOFVIDEOMEMORY: u32 = DDERR_OUTOFVIDEOMEMORY;
/// Invalid pixel format.
pub const DDERR_INVALIDPIXELFORMAT: u32 = make_d3d_hresult(145);

// --- D3DERR_* ---

/// An unknown DP2 command that `D3dParseUnknownCommand` could not parse.
pub const D3DERR_COMMAND_UNPARSED: u32 = make_d3d_hresult(3000);
/// Unsupported FVF.
pub const D3DERR_INVALIDVERTEXFORMAT: u32 = make_d3d_hresult(2048);
/// ValidateTextureStageState: wrong texture format.
pub const D3DERR_WRONGTEXTUREFORMAT: u32 = make_d3d_hresult(2072);
/// ValidateTextureStageState: unsupported colour operation.
pub const D3DERR_UNSUPPORTEDCOLOROPERATION: u32 = make_d3d_hresult(2073);
/// ValidateTextureStageState: unsupported colour argument.
pub const D3DERR_UNSUPPORTEDCOLORARG: u32 = make_d3d_hresult(2074);
/// ValidateTextureStageState: unsupported alpha operation.
pub const D3DERR_UNSUPPORTEDALPHAOPERATION: u32 = make_d3d_hresult(2075);
/// ValidateTextureStageState: unsupported alpha argument.
pub const D3DERR_UNSUPPORTEDALPHAARG: u32 = make_d3d_hresult(2076);
/// ValidateTextureStageState: too many operations.
pub const D3DERR_TOOMANYOPERATIONS: u32 = make_d3d_hresult(2077);
/// ValidateTextureStageState: conflicting texture filters.
pub const D3DERR_CONFLICTINGTEXTUREFILTER: u32 = make_d3d_hresult(2078);
/// ValidateTextureStageState: unsupported factor value.
pub const D3DERR_UNSUPPORTEDFACTORVALUE: u32 = make_d3d_hresult(2079);
/// ValidateTextureStageState: conflicting render state.
pub const D3DERR_CONFLICTINGRENDERSTATE: u32 = make_d3d_hresult(2081);
/// ValidateTextureStageState: unsupported texture filter.
pub const D3DERR_UNSUPPORTEDTEXTUREFILTER: u32 = make_d3d_hresult(2082);
/// Too many primitives.
pub const D3DERR_TOOMANYPRIMITIVES: u32 = make_d3d_hresult(2083);
/// Invalid matrix.
pub const D3DERR_INVALIDMATRIX: u32 = make_d3d_hresult(2084);
/// Too many vertices.
pub const D3DERR_TOOMANYVERTICES: u32 = make_d3d_hresult(2085);
/// Conflicting texture palettes.
pub const D3DERR_CONFLICTINGTEXTUREPALETTE: u32 = make_d3d_hresult(2086);
/// Internal driver error.
pub const D3DERR_DRIVERINTERNALERROR: u32 = make_d3d_hresult(2087);
/// Invalid state block.
pub const D3DERR_INVALIDSTATEBLOCK: u32 = make_d3d_hresult(2100);
/// Already recording a state block.
pub const D3DERR_INBEGINSTATEBLOCK: u32 = make_d3d_hresult(2101);
/// Not recording a state block.
pub const D3DERR_NOTINBEGINSTATEBLOCK: u32 = make_d3d_hresult(2102);
/// Not found.
pub const D3DERR_NOTFOUND: u32 = make_d3d_hresult(2150);
/// More data than fits.
pub const D3DERR_MOREDATA: u32 = make_d3d_hresult(2151);
/// Device lost.
pub const D3DERR_DEVICELOST: u32 = make_d3d_hresult(2152);
/// Device lost and not yet reset.
pub const D3DERR_DEVICENOTRESET: u32 = make_d3d_hresult(2153);
/// Not available.
pub const D3DERR_NOTAVAILABLE: u32 = make_d3d_hresult(2154);
/// Invalid device.
pub const D3DERR_INVALIDDEVICE: u32 = make_d3d_hresult(2155);
/// Invalid call.
pub const D3DERR_INVALIDCALL: u32 = make_d3d_hresult(2156);
/// The driver rejected the call.
pub const D3DERR_DRIVERINVALIDCALL: u32 = make_d3d_hresult(2157);
/// D3D9Ex: device removed.
pub const D3DERR_DEVICEREMOVED: u32 = make_d3d_hresult(2160);
/// D3D9Ex: device hung.
pub const D3DERR_DEVICEHUNG: u32 = make_d3d_hresult(2164);

// --- D3DDDIERR_* (WDDM pfnRenderCb and friends) ---

/// The kernel driver found a privileged instruction.
pub const D3DDDIERR_PRIVILEGEDINSTRUCTION: u32 = make_d3d_hresult(2161);
/// An instruction the hardware cannot execute (header name).
pub const D3DDDIERR_INVALIDINSTRUCTION: u32 = make_d3d_hresult(2162);
/// = `D3DDDIERR_INVALIDINSTRUCTION` (documentation name).
pub const D3DDDIERR_ILLEGALINSTRUCTION: u32 = D3DDDIERR_INVALIDINSTRUCTION;
/// Invalid handle in the command buffer.
pub const D3DDDIERR_INVALIDHANDLE: u32 = make_d3d_hresult(2163);
/// Command or data underrun/overrun.
pub const D3DDDIERR_INVALIDUSERBUFFER: u32 = make_d3d_hresult(2169);
/// Incompatible private format.
pub const D3DDDIERR_INCOMPATIBLEPRIVATEFORMAT: u32 = make_d3d_hresult(2170);
/// Unsupported overlay.
pub const D3DDDIERR_UNSUPPORTEDOVERLAY: u32 = make_d3d_hresult(2171);
/// Unsupported overlay format.
pub const D3DDDIERR_UNSUPPORTEDOVERLAYFORMAT: u32 = make_d3d_hresult(2172);
/// Unsupported crypto.
pub const D3DDDIERR_UNSUPPORTEDCRYPTO: u32 = make_d3d_hresult(2174);
/// Application error.
pub const D3DDDIERR_APPLICATIONERROR: u32 = make_d3d_hresult(2181);
/// Out of hardware-protected memory.
pub const D3DDDIERR_OUTOFHWPROTECTEDMEMORY: u32 = make_d3d_hresult(2183);
/// = `DDERR_OUTOFVIDEOMEMORY`.
pub const D3DDDIERR_OUTOFVIDEOMEMORY: u32 = DDERR_OUTOFVIDEOMEMORY;
/// = `DDERR_WASSTILLDRAWING`.
pub const D3DDDIERR_WASSTILLDRAWING: u32 = DDERR_WASSTILLDRAWING;
/// = `D3DERR_NOTAVAILABLE`.
pub const D3DDDIERR_NOTAVAILABLE: u32 = D3DERR_NOTAVAILABLE;
/// = `D3DERR_INVALIDCALL`.
pub const D3DDDIERR_INVALIDCALL: u32 = D3DERR_INVALIDCALL;
/// = `D3DERR_DEVICEREMOVED`.
pub const D3DDDIERR_DEVICEREMOVED: u32 = D3DERR_DEVICEREMOVED;
/// An allocation in the list is locked and could not be moved
/// (= `ERROR_GRAPHICS_CANT_RENDER_LOCKED_ALLOCATION`).
pub const D3DDDIERR_CANTRENDERLOCKEDALLOCATION: u32 = 0xC026_2111;
/// = `D3DDDIERR_CANTRENDERLOCKEDALLOCATION`.
pub const ERROR_GRAPHICS_CANT_RENDER_LOCKED_ALLOCATION: u32 = D3DDDIERR_CANTRENDERLOCKEDALLOCATION;
/// A pinned allocation cannot be evicted
/// (= `ERROR_GRAPHICS_CANT_EVICT_PINNED_ALLOCATION`).
pub const D3DDDIERR_CANTEVICTPINNEDALLOCATION: u32 = 0xC026_2109;
/// = `D3DDDIERR_CANTEVICTPINNEDALLOCATION`.
pub const ERROR_GRAPHICS_CANT_EVICT_PINNED_ALLOCATION: u32 = D3DDDIERR_CANTEVICTPINNEDALLOCATION;

/// `ddrval` / HRESULT names: one canonical name per value, other spellings as
/// parse-only aliases. Includes the small `D3DHAL_*` status values that are
/// stored in `ddrval` as is.
pub static HRESULTS: EnumTable = EnumTable {
    type_name: "HRESULT",
    prefix: "",
    entries: &[
        (D3D_OK, "D3D_OK"),
        (D3DOK_NOAUTOGEN, "D3DOK_NOAUTOGEN"),
        (D3DHAL_CONTEXT_BAD, "D3DHAL_CONTEXT_BAD"),
        (D3DHAL_OUTOFCONTEXTS, "D3DHAL_OUTOFCONTEXTS"),
        (D3DHAL_EXECUTE_ABORT, "D3DHAL_EXECUTE_ABORT"),
        (D3DHAL_EXECUTE_UNHANDLED, "D3DHAL_EXECUTE_UNHANDLED"),
        (E_FAIL, "E_FAIL"),
        (E_NOTIMPL, "E_NOTIMPL"),
        (E_OUTOFMEMORY, "E_OUTOFMEMORY"),
        (E_INVALIDARG, "E_INVALIDARG"),
        (DDERR_WASSTILLDRAWING, "DDERR_WASSTILLDRAWING"),
        (DDERR_SURFACELOST, "DDERR_SURFACELOST"),
        (DDERR_CURRENTLYNOTAVAIL, "DDERR_CURRENTLYNOTAVAIL"),
        (DDERR_INVALIDOBJECT, "DDERR_INVALIDOBJECT"),
        (DDERR_EXCEPTION, "DDERR_EXCEPTION"),
        (DDERR_CANTLOCKSURFACE, "DDERR_CANTLOCKSURFACE"),
        (DDERR_UNSUPPORTEDFORMAT, "DDERR_UNSUPPORTEDFORMAT"),
        (DDERR_OUTOFVIDEOMEMORY, "DDERR_OUTOFVIDEOMEMORY"),
        (DDERR_INVALIDPIXELFORMAT, "DDERR_INVALIDPIXELFORMAT"),
        (D3DERR_COMMAND_UNPARSED, "D3DERR_COMMAND_UNPARSED"),
        (D3DERR_INVALIDVERTEXFORMAT, "D3DERR_INVALIDVERTEXFORMAT"),
        (D3DERR_WRONGTEXTUREFORMAT, "D3DERR_WRONGTEXTUREFORMAT"),
        (
            D3DERR_UNSUPPORTEDCOLOROPERATION,
            "D3DERR_UNSUPPORTEDCOLOROPERATION",
        ),
        (D3DERR_UNSUPPORTEDCOLORARG, "D3DERR_UNSUPPORTEDCOLORARG"),
        (
            D3DERR_UNSUPPORTEDALPHAOPERATION,
            "D3DERR_UNSUPPORTEDALPHAOPERATION",
        ),
        (D3DERR_UNSUPPORTEDALPHAARG, "D3DERR_UNSUPPORTEDALPHAARG"),
        (D3DERR_TOOMANYOPERATIONS, "D3DERR_TOOMANYOPERATIONS"),
        (
            D3DERR_CONFLICTINGTEXTUREFILTER,
            "D3DERR_CONFLICTINGTEXTUREFILTER",
        ),
        (
            D3DERR_UNSUPPORTEDFACTORVALUE,
            "D3DERR_UNSUPPORTEDFACTORVALUE",
        ),
        (
            D3DERR_CONFLICTINGRENDERSTATE,
            "D3DERR_CONFLICTINGRENDERSTATE",
        ),
        (
            D3DERR_UNSUPPORTEDTEXTUREFILTER,
            "D3DERR_UNSUPPORTEDTEXTUREFILTER",
        ),
        (D3DERR_TOOMANYPRIMITIVES, "D3DERR_TOOMANYPRIMITIVES"),
        (D3DERR_INVALIDMATRIX, "D3DERR_INVALIDMATRIX"),
        (D3DERR_TOOMANYVERTICES, "D3DERR_TOOMANYVERTICES"),
        (
            D3DERR_CONFLICTINGTEXTUREPALETTE,
            "D3DERR_CONFLICTINGTEXTUREPALETTE",
        ),
        (D3DERR_DRIVERINTERNALERROR, "D3DERR_DRIVERINTERNALERROR"),
        (D3DERR_INVALIDSTATEBLOCK, "D3DERR_INVALIDSTATEBLOCK"),
        (D3DERR_INBEGINSTATEBLOCK, "D3DERR_INBEGINSTATEBLOCK"),
        (D3DERR_NOTINBEGINSTATEBLOCK, "D3DERR_NOTINBEGINSTATEBLOCK"),
        (D3DERR_NOTFOUND, "D3DERR_NOTFOUND"),
        (D3DERR_MOREDATA, "D3DERR_MOREDATA"),
        (D3DERR_DEVICELOST, "D3DERR_DEVICELOST"),
        (D3DERR_DEVICENOTRESET, "D3DERR_DEVICENOTRESET"),
        (D3DERR_NOTAVAILABLE, "D3DERR_NOTAVAILABLE"),
        (D3DERR_INVALIDDEVICE, "D3DERR_INVALIDDEVICE"),
        (D3DERR_INVALIDCALL, "D3DERR_INVALIDCALL"),
        (D3DERR_DRIVERINVALIDCALL, "D3DERR_DRIVERINVALIDCALL"),
        (D3DERR_DEVICEREMOVED, "D3DERR_DEVICEREMOVED"),
        (D3DERR_DEVICEHUNG, "D3DERR_DEVICEHUNG"),
        (
            D3DDDIERR_PRIVILEGEDINSTRUCTION,
            "D3DDDIERR_PRIVILEGEDINSTRUCTION",
        ),
        (D3DDDIERR_INVALIDINSTRUCTION, "D3DDDIERR_INVALIDINSTRUCTION"),
        (D3DDDIERR_INVALIDHANDLE, "D3DDDIERR_INVALIDHANDLE"),
        (D3DDDIERR_INVALIDUSERBUFFER, "D3DDDIERR_INVALIDUSERBUFFER"),
        (
            D3DDDIERR_INCOMPATIBLEPRIVATEFORMAT,
            "D3DDDIERR_INCOMPATIBLEPRIVATEFORMAT",
        ),
        (D3DDDIERR_UNSUPPORTEDOVERLAY, "D3DDDIERR_UNSUPPORTEDOVERLAY"),
        (
            D3DDDIERR_UNSUPPORTEDOVERLAYFORMAT,
            "D3DDDIERR_UNSUPPORTEDOVERLAYFORMAT",
        ),
        (D3DDDIERR_UNSUPPORTEDCRYPTO, "D3DDDIERR_UNSUPPORTEDCRYPTO"),
        (D3DDDIERR_APPLICATIONERROR, "D3DDDIERR_APPLICATIONERROR"),
        (
            D3DDDIERR_OUTOFHWPROTECTEDMEMORY,
            "D3DDDIERR_OUTOFHWPROTECTEDMEMORY",
        ),
        (
            D3DDDIERR_CANTRENDERLOCKEDALLOCATION,
            "D3DDDIERR_CANTRENDERLOCKEDALLOCATION",
        ),
        (
            D3DDDIERR_CANTEVICTPINNEDALLOCATION,
            "D3DDDIERR_CANTEVICTPINNEDALLOCATION",
        ),
    ],
    aliases: &[
        (DD_OK, "DD_OK"),
        (S_OK, "S_OK"),
        (DDERR_GENERIC, "DDERR_GENERIC"),
        (DDERR_UNSUPPORTED, "DDERR_UNSUPPORTED"),
        (DDERR_OUTOFMEMORY, "DDERR_OUTOFMEMORY"),
        (DDERR_INVALIDPARAMS, "DDERR_INVALIDPARAMS"),
        (D3DERR_WASSTILLDRAWING, "D3DERR_WASSTILLDRAWING"),
        (D3DDDIERR_WASSTILLDRAWING, "D3DDDIERR_WASSTILLDRAWING"),
        (D3DERR_OUTOFVIDEOMEMORY, "D3DERR_OUTOFVIDEOMEMORY"),
        (D3DDDIERR_OUTOFVIDEOMEMORY, "D3DDDIERR_OUTOFVIDEOMEMORY"),
        (D3DDDIERR_NOTAVAILABLE, "D3DDDIERR_NOTAVAILABLE"),
        (D3DDDIERR_INVALIDCALL, "D3DDDIERR_INVALIDCALL"),
        (D3DDDIERR_DEVICEREMOVED, "D3DDDIERR_DEVICEREMOVED"),
        (D3DDDIERR_ILLEGALINSTRUCTION, "D3DDDIERR_ILLEGALINSTRUCTION"),
        (
            ERROR_GRAPHICS_CANT_RENDER_LOCKED_ALLOCATION,
            "ERROR_GRAPHICS_CANT_RENDER_LOCKED_ALLOCATION",
        ),
        (
            ERROR_GRAPHICS_CANT_EVICT_PINNED_ALLOCATION,
            "ERROR_GRAPHICS_CANT_EVICT_PINNED_ALLOCATION",
        ),
        (D3DHAL_EXECUTE_NORMAL, "D3DHAL_EXECUTE_NORMAL"),
    ],
};

/// Names of the DWORD a HAL callback returns (`DDHAL_DRIVER_*`).
pub static DRIVER_RETURNS: EnumTable = EnumTable {
    type_name: "DDHAL_DRIVER",
    prefix: "DDHAL_DRIVER_",
    entries: &[
        (DDHAL_DRIVER_NOTHANDLED, "DDHAL_DRIVER_NOTHANDLED"),
        (DDHAL_DRIVER_HANDLED, "DDHAL_DRIVER_HANDLED"),
        (DDHAL_DRIVER_NOCKEYHW, "DDHAL_DRIVER_NOCKEYHW"),
    ],
    aliases: &[],
};

/// The canonical DDK name of a `ddrval` / HRESULT value, if it has one.
pub fn hresult_name(value: u32) -> Option<&'static str> {
    HRESULTS.name_of(value)
}

/// The value of an HRESULT name (canonical or alias, case-insensitive).
pub fn hresult_value(name: &str) -> Option<u32> {
    HRESULTS.value_of(name)
}

/// The DDK name of a callback return value (`DDHAL_DRIVER_*`), if any.
pub fn driver_return_name(value: u32) -> Option<&'static str> {
    DRIVER_RETURNS.name_of(value)
}

/// Prints an HRESULT: its canonical name, else `0x` and 8 upper-case hex digits.
pub fn format_hresult(value: u32) -> String {
    hresult_name(value).map_or_else(|| format!("0x{value:08X}"), str::to_string)
}

/// Parses an HRESULT: any name or alias, or a number (decimal or `0x` hex).
pub fn parse_hresult(text: &str) -> Option<u32> {
    let text = text.trim();
    super::parse_number(text).or_else(|| hresult_value(text))
}

/// [`crate::ddi_enum::ValueKind::Custom`] encoding of `ddrval` / HRESULT
/// values (unknown codes print in hex rather than decimal).
pub static HRESULT_KIND: CustomKind = CustomKind {
    name: "HRESULT",
    format: format_hresult,
    parse: parse_hresult,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_round_trip() {
        super::super::tests::check_enum_table(&HRESULTS);
        super::super::tests::check_enum_table(&DRIVER_RETURNS);
    }

    #[test]
    fn spot_checks() {
        assert_eq!(D3DERR_COMMAND_UNPARSED, 0x8876_0BB8);
        assert_eq!(DDERR_WASSTILLDRAWING, 0x8876_021C);
        assert_eq!(DDERR_SURFACELOST, 0x8876_01C2);
        assert_eq!(DDERR_CURRENTLYNOTAVAIL, 0x8876_0028);
        assert_eq!(DDERR_INVALIDOBJECT, 0x8876_0082);
        assert_eq!(DDERR_EXCEPTION, 0x8876_0037);
        assert_eq!(DDERR_CANTLOCKSURFACE, 0x8876_01B3);
        assert_eq!(DDERR_UNSUPPORTEDFORMAT, 0x8876_01FE);
        assert_eq!(DDERR_OUTOFVIDEOMEMORY, 0x8876_017C);
        assert_eq!(DDERR_INVALIDPIXELFORMAT, 0x8876_0091);
        assert_eq!(D3DERR_INVALIDVERTEXFORMAT, 0x8876_0800);
        assert_eq!(D3DERR_UNSUPPORTEDTEXTUREFILTER, 0x8876_0822);
        assert_eq!(D3DERR_CONFLICTINGTEXTUREPALETTE, 0x8876_0826);
        assert_eq!(D3DERR_DRIVERINTERNALERROR, 0x8876_0827);
        assert_eq!(D3DERR_NOTINBEGINSTATEBLOCK, 0x8876_0836);
        assert_eq!(D3DERR_INVALIDCALL, 0x8876_086C);
        assert_eq!(D3DERR_DEVICEHUNG, 0x8876_0874);
        assert_eq!(D3DOK_NOAUTOGEN, 0x0876_086F);
        assert_eq!(D3DDDIERR_PRIVILEGEDINSTRUCTION, 0x8876_0871);
        assert_eq!(D3DDDIERR_INVALIDINSTRUCTION, 0x8876_0872);
        assert_eq!(D3DDDIERR_INVALIDHANDLE, 0x8876_0873);
        assert_eq!(D3DDDIERR_INVALIDUSERBUFFER, 0x8876_0879);
        assert_eq!(D3DDDIERR_INCOMPATIBLEPRIVATEFORMAT, 0x8876_087A);
        assert_eq!(D3DDDIERR_UNSUPPORTEDOVERLAY, 0x8876_087B);
        assert_eq!(D3DDDIERR_UNSUPPORTEDOVERLAYFORMAT, 0x8876_087C);
        assert_eq!(D3DDDIERR_UNSUPPORTEDCRYPTO, 0x8876_087E);
        assert_eq!(D3DDDIERR_APPLICATIONERROR, 0x8876_0885);
        assert_eq!(D3DDDIERR_OUTOFHWPROTECTEDMEMORY, 0x8876_0887);
        assert_eq!(D3DDDIERR_CANTRENDERLOCKEDALLOCATION, 3_223_724_305);
        assert_eq!(D3DDDIERR_CANTEVICTPINNEDALLOCATION, 3_223_724_297);
        assert_eq!(D3DDDIERR_DEVICEREMOVED, 2_289_436_784);
        assert_eq!(E_OUTOFMEMORY, 2_147_942_414);
        assert_eq!(E_INVALIDARG, 2_147_942_487);
        assert_eq!(E_FAIL, 2_147_500_037);
        assert_eq!(E_NOTIMPL, 2_147_500_033);
        assert_eq!(D3DHAL_CONTEXT_BAD, 512);
        assert_eq!(D3DHAL_EXECUTE_UNHANDLED, 529);

        assert_eq!(hresult_name(0x8876_0BB8), Some("D3DERR_COMMAND_UNPARSED"));
        assert_eq!(hresult_name(0), Some("D3D_OK"));
        assert_eq!(
            hresult_name(D3DDDIERR_WASSTILLDRAWING),
            Some("DDERR_WASSTILLDRAWING")
        );
        assert_eq!(hresult_name(DDERR_GENERIC), Some("E_FAIL"));
        assert_eq!(hresult_name(0x1234_5678), None);
        assert_eq!(
            hresult_value("D3DDDIERR_ILLEGALINSTRUCTION"),
            Some(0x8876_0872)
        );
        assert_eq!(hresult_value("dd_ok"), Some(0));
        assert_eq!(hresult_value("D3DERR_WASSTILLDRAWING"), Some(0x8876_021C));
        assert_eq!(driver_return_name(1), Some("DDHAL_DRIVER_HANDLED"));
        assert_eq!(driver_return_name(3), None);
        assert_eq!(format_hresult(0x8876_0BB8), "D3DERR_COMMAND_UNPARSED");
        assert_eq!(format_hresult(0x8876_0001), "0x88760001");
        assert_eq!(parse_hresult("D3DDDIERR_INVALIDCALL"), Some(0x8876_086C));
        assert_eq!(parse_hresult("0x88760001"), Some(0x8876_0001));
    }
}
