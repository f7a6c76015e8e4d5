//! Name tables: every DDK constant available both ways (value ↔ name).
//!
//! In: `ddi_enum!` declarations (here, in [`crate::values`],
//! [`crate::format`] and [`crate::state`]; in `softhal-wire` for the DP2
//! payload enums). Out: closed Rust enums whose variants carry the DDK
//! spelling, plus a type-erased [`EnumTable`] that the text form uses to
//! print and parse symbolic values, and [`FlagsTable`] for flag families.
//! Guarantee: `from_raw(v.raw()) == Some(v)`, `from_d3d(v.d3d()) ==
//! Some(v)` and `from_name(v.name()) == Some(v)` for every variant
//! (tested per table in `softhal-wire`'s name tests).

/// A type-erased view of one DDK value enum, used by the text form and the
/// disassembler to print a raw value symbolically and to parse it back.
#[derive(Debug)]
pub struct EnumTable {
    /// The DDK type name, e.g. `D3DCMPFUNC`.
    pub type_name: &'static str,
    /// The common prefix of the DDK names, e.g. `D3DCMP_` (may be empty).
    /// The parser accepts names with or without it.
    pub prefix: &'static str,
    /// `(value, canonical DDK name)` for every value, canonical names only.
    pub entries: &'static [(u32, &'static str)],
    /// `(value, alias)`: other spellings accepted when parsing
    /// (older SDK names, Wine typos), never printed.
    pub aliases: &'static [(u32, &'static str)],
}

impl EnumTable {
    /// The canonical DDK name of `value`, if the table has one.
    pub fn name_of(&self, value: u32) -> Option<&'static str> {
        self.entries
            .iter()
            .find(|(v, _)| *v == value)
            .map(|(_, n)| *n)
    }

    /// Parses a name (case-insensitive; the prefix may be omitted).
    pub fn value_of(&self, name: &str) -> Option<u32> {
        let matches = |candidate: &str| {
            candidate.eq_ignore_ascii_case(name)
                || candidate.get(self.prefix.len()..).is_some_and(|rest| {
                    candidate.len() > self.prefix.len()
                        && candidate[..self.prefix.len()].eq_ignore_ascii_case(self.prefix)
                        && rest.eq_ignore_ascii_case(name)
                })
        };
        self.entries
            .iter()
            .chain(self.aliases.iter())
            .find(|(_, n)| matches(n))
            .map(|(v, _)| *v)
    }
}

/// Declares a closed DDK value enum with its DDK names.
///
/// ```
/// softhal_types::ddi_enum! {
///     /// D3DCMPFUNC (a two-value excerpt).
///     pub enum CmpFunc: u32 = "D3DCMPFUNC", prefix "D3DCMP_" {
///         /// Never passes.
///         Never = 1 => "D3DCMP_NEVER",
///         /// Passes if less.
///         Less = 2 => "D3DCMP_LESS" | "D3DCMP_LT_ALIAS",
///     }
/// }
/// assert_eq!(CmpFunc::from_raw(2), Some(CmpFunc::Less));
/// assert_eq!(CmpFunc::Less.name(), "D3DCMP_LESS");
/// assert_eq!(CmpFunc::from_name("less"), Some(CmpFunc::Less));
/// assert_eq!(CmpFunc::from_name("D3DCMP_LT_ALIAS"), Some(CmpFunc::Less));
/// assert_eq!(CmpFunc::TABLE.name_of(1), Some("D3DCMP_NEVER"));
/// assert_eq!(CmpFunc::from_d3d(1), Some(CmpFunc::Never));
/// assert_eq!(CmpFunc::Less.d3d(), 2);
/// ```
#[macro_export]
macro_rules! ddi_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $Name:ident : $repr:ty = $type_name:literal, prefix $prefix:literal {
            $(
                $(#[$vmeta:meta])*
                $Variant:ident = $value:literal => $ddk:literal $(| $alias:literal)*
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr($repr)]
        $vis enum $Name {
            $( $(#[$vmeta])* $Variant = $value, )*
        }

        impl $Name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$Name] = &[$($Name::$Variant),*];

            /// The type-erased name table of this enum.
            pub const TABLE: $crate::ddi_enum::EnumTable = $crate::ddi_enum::EnumTable {
                type_name: $type_name,
                prefix: $prefix,
                entries: &[$(($value as u32, $ddk)),*],
                aliases: &[$($(($value as u32, $alias),)*)*],
            };

            /// The variant with this raw value, if any.
            pub const fn from_raw(value: $repr) -> Option<Self> {
                match value {
                    $($value => Some(Self::$Variant),)*
                    _ => None,
                }
            }

            /// The raw DDK value.
            pub const fn raw(self) -> $repr {
                self as $repr
            }

            /// The variant a Direct3D DWORD holds, if any (what a state
            /// or register value decodes to).
            pub const fn from_d3d(value: u32) -> Option<Self> {
                match value {
                    $($value => Some(Self::$Variant),)*
                    _ => None,
                }
            }

            /// The Direct3D DWORD of this value (inverse of `from_d3d`).
            pub const fn d3d(self) -> u32 {
                self as u32
            }

            /// The canonical DDK name, e.g. `D3DCMP_LESS`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Self::$Variant => $ddk,)*
                }
            }

            /// Parses a DDK name (case-insensitive, prefix optional, aliases accepted).
            pub fn from_name(name: &str) -> Option<Self> {
                let raw = Self::TABLE.value_of(name)?;
                Self::ALL.iter().copied().find(|v| v.raw() as u32 == raw)
            }
        }

        impl core::fmt::Display for $Name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

/// A type-erased table of DDK bit flags (e.g. `D3DFVF_*`, `D3DCLEAR_*`),
/// used to print a mask as `A|B|0x40` and to parse it back.
#[derive(Debug)]
pub struct FlagsTable {
    /// The DDK family, e.g. `D3DCLEAR`.
    pub type_name: &'static str,
    /// Common prefix of the names (accepted or omitted when parsing).
    pub prefix: &'static str,
    /// `(bits, name)`; printed greedily in order, so list multi-bit
    /// names before the single bits they contain.
    pub entries: &'static [(u32, &'static str)],
}

impl FlagsTable {
    /// Formats `value` as `NAME|NAME|0xREST` (or `0` when empty).
    pub fn format(&self, value: u32) -> String {
        let mut rest = value;
        let mut parts: Vec<String> = Vec::new();
        for &(bits, name) in self.entries {
            if bits != 0 && rest & bits == bits {
                parts.push(name.to_string());
                rest &= !bits;
            }
        }
        if rest != 0 || parts.is_empty() {
            parts.push(format!("{rest:#x}"));
        }
        parts.join("|")
    }

    /// Parses one flag name (case-insensitive, prefix optional).
    pub fn value_of(&self, name: &str) -> Option<u32> {
        self.entries.iter().find_map(|&(bits, n)| {
            let short = n
                .get(..self.prefix.len())
                .filter(|p| p.eq_ignore_ascii_case(self.prefix))
                .and_then(|_| n.get(self.prefix.len()..));
            (n.eq_ignore_ascii_case(name) || short.is_some_and(|s| s.eq_ignore_ascii_case(name)))
                .then_some(bits)
        })
    }
}
