//! Parsing: text → a [`Capture`].
//!
//! In: untrusted text, line by line (each line split by the DP2 lexer).
//! Out: the records, each with its `expect`ed answer, or a [`TextError`]
//! naming the line; a text cut inside a line or block yields the records
//! before the cut ([`from_text_prefix`]). Guarantees: never panics; the
//! input size, line count, record count and vertex rows are bounded by
//! [`crate::limits`]; `png=` reads only files below the capture's
//! directory. Command streams go through `softhal_wire::text`.//!
//! The parts: this module the line loop (the header, `expect` lines, cuts)
//! and vertex rows; `records` one record → a [`Record`]; `args` the
//! `key=value` arguments of a line and `expect` answers; `png` the `png=`
//! texels of a surface.

mod args;
mod png;
mod records;

use super::{CUT, DIRECTIVE};
use crate::error::TextError;
use crate::limits;
use crate::record::*;
use crate::vertex;
use args::parse_answer;
use softhal_wire::names;
use softhal_wire::text::lexer::{self, Item};
use std::path::Path;

struct Line<'a> {
    no: usize,
    raw: &'a str,
}

struct Parser<'a> {
    lines: Vec<Line<'a>>,
    pos: usize,
    base: Option<&'a Path>,
    /// A block (`dp2`, `.vertices`, `submit`) reached the end of the input
    /// before its `.end`: the input was cut inside it.
    ran_out: bool,
}

impl<'a> Parser<'a> {
    fn next_line(&mut self) -> Option<&Line<'a>> {
        let l = self.lines.get(self.pos);
        self.pos += 1;
        self.ran_out |= l.is_none();
        l
    }

    /// Vertex rows of layout `fvf` until `.end`.
    fn rows(&mut self, fvf: u32, stop_at_end: bool) -> Result<Vec<u8>, TextError> {
        let start = self.pos;
        let layout = softhal_wire::fvf::FvfLayout::parse(fvf).map_err(|e| TextError {
            line: start,
            message: format!("vertex rows: {e}"),
        })?;
        let mut out = Vec::new();
        let mut n = 0usize;
        while let Some(l) = self.lines.get(self.pos) {
            let err = |m: String| TextError {
                line: l.no,
                message: m,
            };
            let Some((kw, items)) = lexer::parse_line(l.raw).map_err(err)? else {
                self.pos += 1;
                continue;
            };
            if kw.eq_ignore_ascii_case(".end") {
                if stop_at_end {
                    self.pos += 1;
                }
                return Ok(out);
            }
            if !kw.eq_ignore_ascii_case("vertex") {
                return Err(err(format!("expected vertex or .end, found {kw}")));
            }
            n += 1;
            if n > limits::MAX_TEXT_VERTICES {
                return Err(err("too many vertex rows".into()));
            }
            out.extend_from_slice(&vertex::parse_row(&layout, &items).map_err(err)?);
            self.pos += 1;
        }
        self.ran_out = true;
        Err(TextError {
            line: self.lines.last().map_or(1, |l| l.no),
            message: "missing .end".into(),
        })
    }
}

/// Parses a text capture. `base` is the directory `png=` paths are relative
/// to (`None`: the current directory). A capture that was cut
/// ([`from_text_prefix`]) is an error.
pub fn from_text(src: &str, base: Option<&Path>) -> Result<Capture, TextError> {
    match from_text_prefix(src, base)? {
        (c, None) => Ok(c),
        (_, Some(cut)) => Err(cut),
    }
}

/// Parses a text capture that may have been cut: every complete record
/// before the cut, and the cut if the text ends early — inside a line (the
/// last line has content but no newline after it) or inside a `dp2`,
/// `.vertices` or `submit` block (no `.end`). The text form has no end
/// marker: a cut exactly at the end of a line reads as a shorter capture.
/// Any other problem fails the whole load, as [`from_text`] does.
pub fn from_text_prefix(
    src: &str,
    base: Option<&Path>,
) -> Result<(Capture, Option<TextError>), TextError> {
    if src.len() as u64 > limits::MAX_CAPTURE_BYTES {
        return Err(TextError {
            line: 1,
            message: "capture too large".into(),
        });
    }
    let mut lines: Vec<Line<'_>> = src
        .lines()
        .take(limits::MAX_TEXT_LINES + 1)
        .enumerate()
        .map(|(i, raw)| Line { no: i + 1, raw })
        .collect();
    if lines.len() > limits::MAX_TEXT_LINES {
        return Err(TextError {
            line: limits::MAX_TEXT_LINES,
            message: "too many lines".into(),
        });
    }
    // A last line without a newline after it was cut (the canonical form
    // and every editor end lines with one), unless it holds nothing.
    let mut cut_line = None;
    if !src.is_empty() && !src.ends_with('\n') {
        if let Some(last) = lines.last() {
            if !matches!(lexer::parse_line(last.raw), Ok(None)) {
                cut_line = Some(last.no);
                lines.pop();
            }
        }
    }
    let cut_inside = |line: usize| {
        TextError {
        line,
        message: format!(
            "the capture ends inside this line (no newline after it, as every complete line has){CUT}"
        ),
    }
    };
    let mut p = Parser {
        lines,
        pos: 0,
        base,
        ran_out: false,
    };
    let mut records: Vec<Record> = Vec::new();
    let mut seen_header = false;
    while let Some(l) = p.lines.get(p.pos) {
        let no = l.no;
        let err = |m: String| TextError {
            line: no,
            message: m,
        };
        let Some((kw, items)) = lexer::parse_line(l.raw).map_err(err)? else {
            p.pos += 1;
            continue;
        };
        p.pos += 1;
        if !seen_header {
            if !kw.eq_ignore_ascii_case(DIRECTIVE) {
                return Err(err(format!("a text capture starts with `{DIRECTIVE} 1`")));
            }
            let v = match items.as_slice() {
                [Item::Word(w)] => names::parse_number(w),
                _ => None,
            };
            if v != Some(crate::binary::VERSION) {
                return Err(err(format!(
                    "{DIRECTIVE}: version {} expected",
                    crate::binary::VERSION
                )));
            }
            seen_header = true;
            continue;
        }
        if kw.eq_ignore_ascii_case("expect") {
            let r = records
                .last_mut()
                .ok_or_else(|| err("expect: no call before it".into()))?;
            let ans = parse_answer(r, items).map_err(err)?;
            match r.answer_mut() {
                Some(slot @ None) => *slot = Some(ans),
                Some(Some(_)) => return Err(err("expect: the call already has an answer".into())),
                None => return Err(err(format!("expect: {} has no answer", r.name()))),
            }
            continue;
        }
        if records.len() >= limits::MAX_RECORDS {
            return Err(err("too many records".into()));
        }
        match p.record(no, &kw, items) {
            Ok(r) => records.push(r),
            Err(e) if p.ran_out => {
                let cut = TextError {
                    line: no,
                    message: format!("the capture ends inside this record ({}){CUT}", e.message),
                };
                return Ok((Capture { records }, Some(cut)));
            }
            Err(e) => return Err(e),
        }
    }
    if let Some(line) = cut_line {
        return Ok((Capture { records }, Some(cut_inside(line))));
    }
    if !seen_header {
        return Err(TextError {
            line: 1,
            message: format!("a text capture starts with `{DIRECTIVE} 1`"),
        });
    }
    Ok((Capture { records }, None))
}
