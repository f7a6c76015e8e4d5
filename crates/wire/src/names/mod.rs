//! DDK name tables: every render state, texture-stage state, FVF bit, value
//! enum, flag family and return code, by its DDK name, both ways.
//!
//! In: raw DWORDs as they travel in DP2 records and HAL calls (a state number
//! and its value, an FVF, a D3DFMT code, an HRESULT, ...). Out:
//! * closed enums made with [`crate::ddi_enum!`] — [`RenderStateType`] (173
//!   states), [`TextureStageStateType`] (33), the value enums
//!   ([`CmpFunc`], [`TextureOp`], [`Format`], ...) — each with
//!   `from_raw`/`raw`/`name`/`from_name` and a type-erased `TABLE`;
//! * [`crate::ddi_enum::FlagsTable`]s for flag families ([`CLEAR_FLAGS`],
//!   [`DP2_FLAGS`], [`WRAP_FLAGS`], [`DDPF_FLAGS`], ...);
//! * dedicated printers/parsers for encodings that mix fields and flags
//!   ([`format_fvf`], [`format_texture_arg`], [`format_texcoord_index`],
//!   [`format_ttff`], [`transform_name`]) exposed as
//!   [`ValueKind::Custom`] kinds;
//! * [`render_state_value_kind`] / [`texture_stage_value_kind`]: how each
//!   state's value is shown;
//! * [`format_value`] / [`parse_value`]: the text form of any DWORD given its
//!   [`ValueKind`];
//! * [`codes`]: HRESULT / ddrval / callback return codes as `pub const`s,
//!   with name tables and [`codes::HRESULT_KIND`] for printing them.
//!
//! Guarantees (all tested): for every table, `from_raw(v.raw()) == Some(v)`
//! and `from_name(v.name()) == Some(v)`; canonical names and values are
//! unique within a table and no spelling names two values; for every
//! [`ValueKind`] and every `u32` raw value,
//! `parse_value(kind, &format_value(kind, raw)) == Some(raw)` — bit-exact,
//! including NaN payloads, `-0.0` and subnormals for floats.
//!
//! Parsing rules shared by all kinds: surrounding whitespace is ignored,
//! names are case-insensitive and their table prefix is optional, numbers are
//! decimal or `0x` hex, `|` joins the parts of flag-like values (parts are
//! ORed; a part that reads as a number is a number, never a name).

#[cfg(test)]
macro_rules! check_ddi_enum {
    ($t:ident) => {{
        let table = &$t::TABLE;
        assert_eq!($t::ALL.len(), table.entries.len(), "{}", table.type_name);
        for v in $t::ALL.iter().copied() {
            assert_eq!($t::from_raw(v.raw()), Some(v));
            assert_eq!($t::from_name(v.name()), Some(v), "{}", v.name());
            assert_eq!(table.value_of(v.name()), Some(v.raw() as u32));
            assert_eq!(table.name_of(v.raw() as u32), Some(v.name()));
            assert_eq!(v.to_string(), v.name());
        }
        for &(value, alias) in table.aliases {
            let v = $t::from_name(alias).map(|v| v.raw() as u32);
            assert_eq!(v, Some(value), "alias {alias}");
        }
        $crate::names::tests::check_enum_table(table);
    }};
}

pub mod codes;
pub mod ddi_types;
pub mod flags;
pub mod format;
pub mod fvf_names;
pub mod render_state;
pub mod texture_stage;
pub mod values;

pub use ddi_types::*;
pub use flags::*;
pub use format::*;
pub use fvf_names::*;
pub use render_state::*;
pub use texture_stage::*;
pub use values::*;

pub use crate::ddi_enum::{CustomKind, EnumTable, FlagsTable, ValueKind};
pub use softhal_types::state::StateKind;

/// The text-form kind of a state value of kind `kind` (a column of the
/// state table, `softhal_types::state`): the same kind, with the three
/// texture-stage encodings printed by this module's own functions.
pub fn state_value_kind(kind: StateKind) -> ValueKind {
    match kind {
        StateKind::Dword => ValueKind::Dword,
        StateKind::Hex => ValueKind::Hex,
        StateKind::Bool => ValueKind::Bool,
        StateKind::Float => ValueKind::Float,
        StateKind::Color => ValueKind::Color,
        StateKind::Handle => ValueKind::Handle,
        StateKind::Enum(table) => ValueKind::Enum(table),
        StateKind::Flags(table) => ValueKind::Flags(table),
        StateKind::TextureArgument | StateKind::ResultArgument => {
            ValueKind::Custom(&TEXTURE_ARG_KIND)
        }
        StateKind::TexCoordIndex => ValueKind::Custom(&TEXCOORD_INDEX_KIND),
        StateKind::TextureTransformFlags => ValueKind::Custom(&TTFF_KIND),
    }
}

/// Prefix of the raw-bits spelling of a float ([`ValueKind::Float`]) that has
/// no exact decimal form: every NaN prints as `f32:0x7FC00001` (the IEEE bit
/// pattern, 8 hex digits).
pub const FLOAT_BITS_PREFIX: &str = "f32:";

/// Prints `raw` according to `kind`:
///
/// | kind | text |
/// |---|---|
/// | `Dword`, `Handle` | decimal |
/// | `Hex` | `0x` + lower-case hex |
/// | `Long` | signed decimal |
/// | `Bool` | `TRUE` / `FALSE` for 1 / 0, decimal otherwise |
/// | `Float` | shortest decimal that reads back to the same bits (`1.0`, `-0.0`, `1e-45`, `inf`, `-inf`); NaNs as `f32:0xXXXXXXXX` |
/// | `Color` | `0xAARRGGBB` (8 upper-case hex digits) |
/// | `Enum` | canonical name, decimal if the table has none |
/// | `Flags` | [`FlagsTable::format`] (`A|B|0xREST`, `0x0` when empty) |
/// | `Custom` | the kind's own printer |
pub fn format_value(kind: ValueKind, raw: u32) -> String {
    match kind {
        ValueKind::Dword | ValueKind::Handle => raw.to_string(),
        ValueKind::Hex => format!("{raw:#x}"),
        ValueKind::Long => (raw as i32).to_string(),
        ValueKind::Bool => match raw {
            0 => "FALSE".to_string(),
            1 => "TRUE".to_string(),
            other => other.to_string(),
        },
        ValueKind::Float => format_float_bits(raw),
        ValueKind::Color => format!("0x{raw:08X}"),
        ValueKind::Enum(table) => table
            .name_of(raw)
            .map_or_else(|| raw.to_string(), str::to_string),
        ValueKind::Flags(table) => table.format(raw),
        ValueKind::Custom(custom) => (custom.format)(raw),
    }
}

/// Parses the text form of a value of kind `kind` back to the raw DWORD.
///
/// Every kind accepts a plain number (decimal or `0x` hex) meaning the raw
/// DWORD, with these additions: `Long` also takes negative decimals
/// (two's complement); `Bool` takes `TRUE`/`FALSE`; `Float` takes decimal
/// floats (`1`, `-0.5`, `1e-3`, `inf`, `NaN`) as values and `0x...` /
/// `f32:0x...` as raw bits; `Enum` takes names and aliases; `Flags` takes
/// `|`-joined names and numbers; `Custom` defers to the kind's parser.
/// Returns `None` for anything else (including out-of-range numbers).
pub fn parse_value(kind: ValueKind, text: &str) -> Option<u32> {
    let text = text.trim();
    match kind {
        ValueKind::Dword | ValueKind::Handle | ValueKind::Hex | ValueKind::Color => {
            parse_number(text)
        }
        ValueKind::Long => parse_signed(text),
        ValueKind::Bool => {
            if text.eq_ignore_ascii_case("TRUE") {
                Some(1)
            } else if text.eq_ignore_ascii_case("FALSE") {
                Some(0)
            } else {
                parse_number(text)
            }
        }
        ValueKind::Float => parse_float_bits(text),
        ValueKind::Enum(table) => parse_number(text).or_else(|| table.value_of(text)),
        ValueKind::Flags(table) => parse_or_list(text, |token| table.value_of(token)),
        ValueKind::Custom(custom) => (custom.parse)(text),
    }
}

/// Prints the float whose IEEE bits are `bits` so that [`parse_float_bits`]
/// gives the same bits back: the shortest round-tripping decimal for finite
/// values (`{:?}`), `inf`/`-inf`, and `f32:0xXXXXXXXX` for every NaN.
pub fn format_float_bits(bits: u32) -> String {
    let f = f32::from_bits(bits);
    if f.is_nan() {
        format!("{FLOAT_BITS_PREFIX}0x{bits:08X}")
    } else {
        format!("{f:?}")
    }
}

/// Parses a float: a decimal float (also `inf`, `-inf`, `NaN`) gives its
/// IEEE bits; `0x...` or `f32:0x...` gives the raw bits as written.
pub fn parse_float_bits(text: &str) -> Option<u32> {
    let text = text.trim();
    if let Some(raw) = strip_prefix_ci(text, FLOAT_BITS_PREFIX) {
        return parse_number(raw);
    }
    if strip_prefix_ci(text, "0x").is_some() {
        return parse_number(text);
    }
    text.parse::<f32>().ok().map(f32::to_bits)
}

/// Parses an unsigned number: decimal digits, or `0x`/`0X` and hex digits.
/// No sign, no separators; `None` when empty or out of `u32` range.
pub fn parse_number(text: &str) -> Option<u32> {
    let text = text.trim();
    if let Some(hex) = strip_prefix_ci(text, "0x") {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(hex, 16).ok()
    } else {
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        text.parse().ok()
    }
}

/// Parses a signed number as its 32-bit two's-complement pattern: `-N`
/// (N up to 2^31, decimal or hex) or any unsigned [`parse_number`] form.
pub fn parse_signed(text: &str) -> Option<u32> {
    let text = text.trim();
    match text.strip_prefix('-') {
        Some(magnitude) => {
            let m = parse_number(magnitude)?;
            (m <= 0x8000_0000).then(|| m.wrapping_neg())
        }
        None => parse_number(text),
    }
}

/// `text` without `prefix`, compared ASCII-case-insensitively.
pub(crate) fn strip_prefix_ci<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    text.get(..prefix.len())
        .filter(|head| head.eq_ignore_ascii_case(prefix))
        .and_then(|_| text.get(prefix.len()..))
}

/// Parses `A|B|...`: each trimmed part is a number or, failing that, what
/// `name` makes of it; the parts are ORed. `None` if any part is neither.
pub(crate) fn parse_or_list(text: &str, mut name: impl FnMut(&str) -> Option<u32>) -> Option<u32> {
    let mut value = 0;
    for token in text.split('|') {
        let token = token.trim();
        value |= parse_number(token).or_else(|| name(token))?;
    }
    Some(value)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// Name keys under which `value_of` can find `name`: the full name and,
    /// when it carries the prefix, the short form.
    fn keys(prefix: &str, name: &str) -> Vec<String> {
        let mut k = vec![name.to_ascii_uppercase()];
        if let Some(short) = strip_prefix_ci(name, prefix) {
            if !short.is_empty() && short.len() != name.len() {
                k.push(short.to_ascii_uppercase());
            }
        }
        k
    }

    /// Structural checks of an enum table: unique values, unique names,
    /// aliases resolve to their value, no spelling names two values.
    pub(crate) fn check_enum_table(table: &'static EnumTable) {
        let mut values = HashMap::new();
        for &(v, n) in table.entries {
            assert!(!n.is_empty(), "{}: empty name", table.type_name);
            if let Some(other) = values.insert(v, n) {
                panic!("{}: value {v:#x} named {other} and {n}", table.type_name);
            }
        }
        let mut seen: HashMap<String, u32> = HashMap::new();
        for &(v, n) in table.entries.iter().chain(table.aliases) {
            assert!(
                values.contains_key(&v),
                "{}: alias {n} of unknown value {v:#x}",
                table.type_name
            );
            for key in keys(table.prefix, n) {
                if let Some(&other) = seen.get(&key) {
                    assert_eq!(
                        other, v,
                        "{}: spelling {key} names {other:#x} and {v:#x}",
                        table.type_name
                    );
                }
                seen.insert(key, v);
            }
            assert_eq!(table.value_of(n), Some(v), "{}: {n}", table.type_name);
        }
        for &(v, n) in table.entries {
            assert_eq!(table.name_of(v), Some(n));
            let text = format_value(ValueKind::Enum(table), v);
            assert_eq!(text, n);
        }
    }

    /// Structural checks of a flag table: unique names, every name parses to
    /// its own bits, no spelling names two different bit sets.
    pub(crate) fn check_flags_table(table: &'static FlagsTable) {
        let mut seen: HashMap<String, u32> = HashMap::new();
        for &(bits, n) in table.entries {
            for key in keys(table.prefix, n) {
                if let Some(&other) = seen.get(&key) {
                    panic!(
                        "{}: spelling {key} used for {other:#x} and {bits:#x}",
                        table.type_name
                    );
                }
                seen.insert(key, bits);
            }
            assert_eq!(table.value_of(n), Some(bits), "{}: {n}", table.type_name);
            assert_eq!(parse_value(ValueKind::Flags(table), n), Some(bits), "{n}");
            if bits != 0 {
                let printed = table.format(bits);
                assert_eq!(parse_value(ValueKind::Flags(table), &printed), Some(bits));
            }
        }
    }

    /// Every kind with a representative table, for the round-trip properties.
    fn all_kinds() -> Vec<ValueKind> {
        let mut kinds = vec![
            ValueKind::Dword,
            ValueKind::Hex,
            ValueKind::Long,
            ValueKind::Bool,
            ValueKind::Float,
            ValueKind::Color,
            ValueKind::Handle,
            ValueKind::Enum(&CmpFunc::TABLE),
            ValueKind::Enum(&VertexBlendFlags::TABLE),
            ValueKind::Enum(&Format::TABLE),
            ValueKind::Enum(&RenderStateType::TABLE),
            ValueKind::Enum(&TexCoordIndexMode::TABLE),
            ValueKind::Enum(&codes::HRESULTS),
            ValueKind::Flags(&CLEAR_FLAGS),
            ValueKind::Flags(&WRAP_FLAGS),
            ValueKind::Flags(&PALETTE_FLAGS),
            ValueKind::Flags(&CLIP_PLANE_FLAGS),
            ValueKind::Flags(&FVF_FLAGS),
            ValueKind::Custom(&FVF_KIND),
            ValueKind::Custom(&TEXTURE_ARG_KIND),
            ValueKind::Custom(&TEXCOORD_INDEX_KIND),
            ValueKind::Custom(&TTFF_KIND),
            ValueKind::Custom(&TRANSFORM_KIND),
            ValueKind::Custom(&codes::HRESULT_KIND),
        ];
        kinds.extend(
            RenderStateType::ALL
                .iter()
                .map(|s| render_state_value_kind(s.raw())),
        );
        kinds.extend(
            TextureStageStateType::ALL
                .iter()
                .map(|s| texture_stage_value_kind(s.raw())),
        );
        kinds
    }

    const SPECIAL_VALUES: &[u32] = &[
        0,
        1,
        2,
        0x7F,
        0x80,
        0xFF,
        0x100,
        0xFFFF,
        0x1_0000,
        0x7FFF_FFFF,
        0x8000_0000,
        0x8000_0001,
        0xFFFF_FFFE,
        0xFFFF_FFFF,
        // floats: +-0, +-1, +-inf, NaNs with payloads and sign, subnormals, extremes
        0x3F80_0000,
        0xBF80_0000,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0xFFC0_0000,
        0x7FC0_0001,
        0x7F80_0001,
        0xFF80_0001,
        0x7FBF_FFFF,
        0x0000_0001,
        0x8000_0001,
        0x007F_FFFF,
        0x0080_0000,
        0x7F7F_FFFF,
        0xFF7F_FFFF,
        0x3DCC_CCCD,
        // enum and code values
        0x3154_5844,
        0x8876_0BB8,
        0x1C4,
        0x3_0000,
    ];

    #[test]
    fn special_values_round_trip_for_every_kind() {
        for kind in all_kinds() {
            for &raw in SPECIAL_VALUES
                .iter()
                .chain(&[3, 4, 5, 6, 7, 8, 0x10, 0x20, 0x30, 255, 256, 257])
            {
                let text = format_value(kind, raw);
                assert_eq!(
                    parse_value(kind, &text),
                    Some(raw),
                    "{kind:?}: {raw:#x} -> {text}"
                );
            }
        }
    }

    #[test]
    fn simple_kinds_print_as_documented() {
        assert_eq!(format_value(ValueKind::Dword, 42), "42");
        assert_eq!(format_value(ValueKind::Hex, 0xABC), "0xabc");
        assert_eq!(format_value(ValueKind::Long, 0xFFFF_FFFF), "-1");
        assert_eq!(format_value(ValueKind::Long, 0x8000_0000), "-2147483648");
        assert_eq!(format_value(ValueKind::Bool, 1), "TRUE");
        assert_eq!(format_value(ValueKind::Bool, 0), "FALSE");
        assert_eq!(format_value(ValueKind::Bool, 7), "7");
        assert_eq!(format_value(ValueKind::Color, 0xFF00_80FF), "0xFF0080FF");
        assert_eq!(format_value(ValueKind::Color, 0x12), "0x00000012");
        assert_eq!(format_value(ValueKind::Handle, 9), "9");
        assert_eq!(
            format_value(ValueKind::Enum(&CmpFunc::TABLE), 4),
            "D3DCMP_LESSEQUAL"
        );
        assert_eq!(format_value(ValueKind::Enum(&CmpFunc::TABLE), 99), "99");
        assert_eq!(format_value(ValueKind::Flags(&CLEAR_FLAGS), 0), "0x0");
        assert_eq!(
            format_value(ValueKind::Flags(&CLEAR_FLAGS), 0x13),
            "D3DCLEAR_TARGET|D3DCLEAR_ZBUFFER|0x10"
        );
        assert_eq!(
            format_value(ValueKind::Custom(&FVF_KIND), 0x1C4),
            "D3DFVF_XYZRHW|D3DFVF_DIFFUSE|D3DFVF_SPECULAR|D3DFVF_TEX1"
        );
    }

    #[test]
    fn floats_print_as_documented() {
        let f = |v: f32| format_value(ValueKind::Float, v.to_bits());
        assert_eq!(f(1.0), "1.0");
        assert_eq!(f(-0.0), "-0.0");
        assert_eq!(f(0.0), "0.0");
        assert_eq!(f(0.1), "0.1");
        assert_eq!(f(f32::INFINITY), "inf");
        assert_eq!(f(f32::NEG_INFINITY), "-inf");
        assert_eq!(
            format_value(ValueKind::Float, 0x7FC0_0000),
            "f32:0x7FC00000"
        );
        assert_eq!(
            format_value(ValueKind::Float, 0xFFC0_0001),
            "f32:0xFFC00001"
        );
        assert_eq!(
            format_value(ValueKind::Float, 0x7F80_0001),
            "f32:0x7F800001"
        );
        assert_eq!(parse_value(ValueKind::Float, "1"), Some(0x3F80_0000));
        assert_eq!(parse_value(ValueKind::Float, "-0.5"), Some(0xBF00_0000));
        assert_eq!(parse_value(ValueKind::Float, "1e-45"), Some(1));
        assert_eq!(parse_value(ValueKind::Float, "-0.0"), Some(0x8000_0000));
        assert_eq!(
            parse_value(ValueKind::Float, "0x3F800000"),
            Some(0x3F80_0000)
        );
        assert_eq!(
            parse_value(ValueKind::Float, "F32:0x7fc00001"),
            Some(0x7FC0_0001)
        );
        assert_eq!(
            parse_value(ValueKind::Float, "NaN"),
            Some(f32::NAN.to_bits())
        );
        assert_eq!(parse_value(ValueKind::Float, "inf"), Some(0x7F80_0000));
        assert_eq!(parse_value(ValueKind::Float, "-inf"), Some(0xFF80_0000));
        assert_eq!(parse_value(ValueKind::Float, "one"), None);
        assert_eq!(parse_value(ValueKind::Float, "f32:"), None);
        assert_eq!(parse_value(ValueKind::Float, ""), None);
    }

    #[test]
    fn parse_accepts_documented_forms() {
        assert_eq!(parse_value(ValueKind::Dword, " 17 "), Some(17));
        assert_eq!(parse_value(ValueKind::Dword, "0x11"), Some(17));
        assert_eq!(parse_value(ValueKind::Dword, "0X11"), Some(17));
        assert_eq!(parse_value(ValueKind::Dword, "-1"), None);
        assert_eq!(parse_value(ValueKind::Dword, "+1"), None);
        assert_eq!(parse_value(ValueKind::Dword, "4294967296"), None);
        assert_eq!(parse_value(ValueKind::Dword, "0x100000000"), None);
        assert_eq!(parse_value(ValueKind::Dword, "0x"), None);
        assert_eq!(parse_value(ValueKind::Dword, ""), None);
        assert_eq!(parse_value(ValueKind::Long, "-1"), Some(0xFFFF_FFFF));
        assert_eq!(
            parse_value(ValueKind::Long, "-2147483648"),
            Some(0x8000_0000)
        );
        assert_eq!(parse_value(ValueKind::Long, "-2147483649"), None);
        assert_eq!(
            parse_value(ValueKind::Long, "4294967295"),
            Some(0xFFFF_FFFF)
        );
        assert_eq!(parse_value(ValueKind::Long, "--1"), None);
        assert_eq!(parse_value(ValueKind::Bool, "true"), Some(1));
        assert_eq!(parse_value(ValueKind::Bool, "False"), Some(0));
        assert_eq!(parse_value(ValueKind::Bool, "2"), Some(2));
        assert_eq!(
            parse_value(ValueKind::Color, "0xFF000000"),
            Some(0xFF00_0000)
        );
        assert_eq!(
            parse_value(ValueKind::Enum(&CmpFunc::TABLE), "less"),
            Some(2)
        );
        assert_eq!(
            parse_value(ValueKind::Enum(&CmpFunc::TABLE), "D3DCMP_LESS"),
            Some(2)
        );
        assert_eq!(
            parse_value(ValueKind::Enum(&CmpFunc::TABLE), "12"),
            Some(12)
        );
        assert_eq!(
            parse_value(ValueKind::Enum(&CmpFunc::TABLE), "D3DCMP_BOGUS"),
            None
        );
        assert_eq!(
            parse_value(ValueKind::Flags(&CLEAR_FLAGS), "TARGET | D3DCLEAR_STENCIL"),
            Some(5)
        );
        assert_eq!(
            parse_value(ValueKind::Flags(&CLEAR_FLAGS), "TARGET|0x100"),
            Some(0x101)
        );
        assert_eq!(
            parse_value(ValueKind::Flags(&CLEAR_FLAGS), "TARGET||STENCIL"),
            None
        );
        assert_eq!(
            parse_value(ValueKind::Flags(&CLIP_PLANE_FLAGS), "0"),
            Some(0)
        );
        assert_eq!(
            parse_value(ValueKind::Flags(&PALETTE_FLAGS), "DDRAWIPAL_16"),
            Some(2)
        );
        assert_eq!(
            parse_value(ValueKind::Flags(&PALETTE_FLAGS), "16"),
            Some(16)
        );
        assert_eq!(
            parse_value(ValueKind::Enum(&codes::HRESULTS), "D3DERR_COMMAND_UNPARSED"),
            Some(0x8876_0BB8)
        );
    }

    proptest! {
        #[test]
        fn every_kind_round_trips(raw in any::<u32>()) {
            for kind in all_kinds() {
                let text = format_value(kind, raw);
                prop_assert_eq!(parse_value(kind, &text), Some(raw), "{:?}: {}", kind, text);
            }
        }

        #[test]
        fn small_values_round_trip(raw in 0u32..1024) {
            for kind in all_kinds() {
                let text = format_value(kind, raw);
                prop_assert_eq!(parse_value(kind, &text), Some(raw), "{:?}: {}", kind, text);
            }
        }

        #[test]
        fn floats_round_trip_bit_exactly(f in any::<f32>()) {
            let bits = f.to_bits();
            prop_assert_eq!(parse_float_bits(&format_float_bits(bits)), Some(bits));
        }

        #[test]
        fn nan_payloads_round_trip(payload in 1u32..0x80_0000, sign in any::<bool>()) {
            let bits = 0x7F80_0000 | payload | if sign { 0x8000_0000 } else { 0 };
            let text = format_value(ValueKind::Float, bits);
            prop_assert!(text.starts_with(FLOAT_BITS_PREFIX));
            prop_assert_eq!(parse_value(ValueKind::Float, &text), Some(bits));
        }

        #[test]
        fn subnormals_round_trip(m in 1u32..0x80_0000, sign in any::<bool>()) {
            let bits = m | if sign { 0x8000_0000 } else { 0 };
            let text = format_value(ValueKind::Float, bits);
            prop_assert!(!text.starts_with(FLOAT_BITS_PREFIX));
            prop_assert_eq!(parse_value(ValueKind::Float, &text), Some(bits));
        }

        #[test]
        fn long_round_trips(v in any::<i32>()) {
            let text = format_value(ValueKind::Long, v as u32);
            prop_assert_eq!(text.clone(), v.to_string());
            prop_assert_eq!(parse_value(ValueKind::Long, &text), Some(v as u32));
        }
    }
}
