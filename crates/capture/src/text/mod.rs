//! The text form of captures: the DP2 assembly language extended with
//! declarations of surfaces, contexts, calls and expected answers
//! (`docs/capture-format.md`, "Text form").
//!
//! In: a [`Capture`] ([`to_text`]) or source text ([`from_text`],
//! untrusted). Out: text, or a [`Capture`] / a [`TextError`] with the line.
//! Guarantees: `from_text(to_text(c)) == c` for every capture (command
//! streams that the DP2 disassembler cannot list exactly fall back to
//! `.raw hex:`, so the round trip is byte-exact even for malformed
//! streams); parsing never panics and is bounded by [`crate::limits`].
//! Command streams are written in the DP2 assembly language and go through
//! `softhal_wire::text` — there is no second assembler here.
//!
//! The writer is `write`, the parser `parse`; both share the header
//! directive and the decode options of a call's command stream.

mod parse;
mod write;

pub use parse::{from_text, from_text_prefix};
pub use write::{exact_listing, to_text, write_record};

#[cfg(doc)]
use crate::error::TextError;

/// How the message of a [`TextError`] for a cut ends
/// ([`from_text_prefix`]).
pub const CUT: &str = ": it was cut";

/// The directive that starts every text capture.
pub const DIRECTIVE: &str = ".capture";

/// True when the first line that is not blank or a comment is `.capture`.
pub fn is_text_capture(src: &str) -> bool {
    src.lines()
        .map(|l| {
            let l = l.trim_start();
            l.split(['#', ';']).next().unwrap_or("").trim()
        })
        .find(|l| !l.is_empty())
        .is_some_and(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|w| w.eq_ignore_ascii_case(DIRECTIVE))
        })
}
