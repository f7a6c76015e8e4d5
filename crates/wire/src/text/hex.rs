//! The `hex:` blob: raw bytes written as `hex:` and two hex digits per
//! byte, shared by DP2 assembly and the text form of captures.
//!
//! In: bytes, or an untrusted word. Out: the word, or the bytes (or a
//! message saying what is wrong). Guarantees: `parse_hex_word(&format_hex(b))
//! == Ok(b)`; never panics.

use std::fmt::Write as _;

/// `hex:` followed by two lower-case hex digits per byte.
pub fn format_hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len().saturating_mul(2).saturating_add(4));
    s.push_str("hex:");
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Reads a word written `hex:0a1B...` (the prefix in lower case, digits of
/// either case, an even number of them).
pub fn parse_hex_word(w: &str) -> Result<Vec<u8>, String> {
    let h = w
        .strip_prefix("hex:")
        .ok_or_else(|| format!("expected hex:<bytes>, found {w}"))?;
    if h.len() % 2 != 0 {
        return Err(format!("odd number of hex digits in {w}"));
    }
    h.as_bytes()
        .chunks(2)
        .map(|p| {
            core::str::from_utf8(p)
                .ok()
                .and_then(|p| u8::from_str_radix(p, 16).ok())
                .ok_or_else(|| format!("bad hex in {w}"))
        })
        .collect()
}
