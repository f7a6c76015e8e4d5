//! Flag families that are values of render states.
//!
//! In: the DWORD of `D3DRS_WRAP0..15`, `D3DRS_COLORWRITEENABLE[1..3]` or
//! `D3DRS_CLIPPLANEENABLE`. Out: their [`FlagsTable`]s (the DDK name of each
//! bit), used by the state table's value kinds ([`crate::state`]) and by
//! the text form. The other flag families (DP2 record flags, FVF, ...)
//! belong to the DP2 wire format and live in `softhal-wire`.

use crate::ddi_enum::FlagsTable;

/// `D3DWRAP*`: value of `D3DRS_WRAP0..15`. Printed as `D3DWRAP_U/V/W` and
/// `D3DWRAPCOORD_3`; the `D3DWRAPCOORD_0..2` spellings parse too.
pub static WRAP_FLAGS: FlagsTable = FlagsTable {
    type_name: "D3DWRAP",
    prefix: "D3DWRAP_",
    entries: &[
        (0x1, "D3DWRAP_U"),
        (0x2, "D3DWRAP_V"),
        (0x4, "D3DWRAP_W"),
        (0x8, "D3DWRAPCOORD_3"),
        // Parse-only spellings: printing never reaches them because the
        // bits are consumed by the entries above.
        (0x1, "D3DWRAPCOORD_0"),
        (0x2, "D3DWRAPCOORD_1"),
        (0x4, "D3DWRAPCOORD_2"),
    ],
};

/// `D3DCOLORWRITEENABLE_*`: value of `D3DRS_COLORWRITEENABLE[1..3]`.
pub static COLOR_WRITE_FLAGS: FlagsTable = FlagsTable {
    type_name: "D3DCOLORWRITEENABLE",
    prefix: "D3DCOLORWRITEENABLE_",
    entries: &[
        (0x1, "D3DCOLORWRITEENABLE_RED"),
        (0x2, "D3DCOLORWRITEENABLE_GREEN"),
        (0x4, "D3DCOLORWRITEENABLE_BLUE"),
        (0x8, "D3DCOLORWRITEENABLE_ALPHA"),
    ],
};

/// `D3DCLIPPLANEn`: value of `D3DRS_CLIPPLANEENABLE` (planes 6..31 have no
/// DDK name and print as hex).
pub static CLIP_PLANE_FLAGS: FlagsTable = FlagsTable {
    type_name: "D3DCLIPPLANE",
    prefix: "",
    entries: &[
        (0x1, "D3DCLIPPLANE0"),
        (0x2, "D3DCLIPPLANE1"),
        (0x4, "D3DCLIPPLANE2"),
        (0x8, "D3DCLIPPLANE3"),
        (0x10, "D3DCLIPPLANE4"),
        (0x20, "D3DCLIPPLANE5"),
    ],
};
