//! How a DWORD is shown in the text form: [`ValueKind`] and the custom
//! encodings ([`CustomKind`]).
//!
//! In: the name tables of `softhal-types` ([`EnumTable`], [`FlagsTable`],
//! made by `softhal_types::ddi_enum!`; re-exported here) and this crate's
//! own printers. Out: the kind of every DWORD-sized field or state value,
//! which [`crate::names::format_value`] and [`crate::names::parse_value`]
//! print and parse.

pub use softhal_types::ddi_enum::{EnumTable, FlagsTable};

/// How a DWORD-sized field or state value is shown in the text form.
#[derive(Debug, Clone, Copy)]
pub enum ValueKind {
    /// Plain unsigned number, printed in decimal.
    Dword,
    /// Unsigned number printed in hex (masks, colour-less bit patterns).
    Hex,
    /// Signed 32-bit number.
    Long,
    /// BOOL: printed `TRUE`/`FALSE` for 1/0, as a number otherwise.
    Bool,
    /// IEEE single stored in the DWORD, printed as a float.
    Float,
    /// A `D3DCOLOR` (A8R8G8B8), printed `0xAARRGGBB`.
    Color,
    /// A surface/object handle, printed in decimal.
    Handle,
    /// A value of a DDK enum.
    Enum(&'static EnumTable),
    /// A mask of DDK flags.
    Flags(&'static FlagsTable),
    /// A value with its own encoding (bit fields mixed with flags, e.g.
    /// `D3DFVF_*`, `D3DTA_*` arguments, `D3DTSS_TCI_*`, `D3DTTFF_*`,
    /// transform-state numbers), printed and parsed by dedicated functions.
    Custom(&'static CustomKind),
}

/// The printer and parser of a [`ValueKind::Custom`] value.
#[derive(Debug)]
pub struct CustomKind {
    /// Short name of the encoding, e.g. `D3DFVF`.
    pub name: &'static str,
    /// Prints a raw value symbolically; never fails.
    pub format: fn(u32) -> String,
    /// Parses what `format` prints (and plain numbers) back to the raw value.
    pub parse: fn(&str) -> Option<u32>,
}
