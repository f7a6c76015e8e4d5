//! Vertex rows: FVF vertices as named fields (`vertex x=0.0 y=0.0 z=0.5
//! rhw=1.0 diffuse=0xFF00FF00`).
//!
//! In: an FVF code and vertex bytes ([`format_rows`]) or rows of
//! `name=value` items ([`parse_row`]). Out: one text line per vertex, or
//! the vertex bytes. The fields and their order come from
//! `softhal_wire::fvf::FvfLayout`; every byte of a vertex belongs to exactly
//! one field, so any bytes round-trip exactly (floats print as the shortest
//! decimal that reads back to the same bits, NaNs as `f32:0x...`).
//!
//! Field names: `x y z` then `rhw` (XYZRHW) or `w` (XYZW); blend values
//! `b0`…`b4` (the last one is hex when it holds LASTBETA indices); `nx ny
//! nz`; `psize`; `diffuse`, `specular` (colours, `0xAARRGGBB`); `fog`;
//! texture coordinates `tex0=[u v]` … `tex7=[...]` with as many floats as
//! the set has dimensions. Omitted fields are 0.

use softhal_wire::fvf::{FvfLayout, LastBeta, PositionKind};
use softhal_wire::names;
use softhal_wire::text::lexer::{Item, Val};
use std::fmt::Write as _;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Float,
    Color,
    Hex,
}

/// One named scalar field: name, byte offset, kind; or a list field.
enum Slot {
    Scalar(String, u32, Kind),
    List(String, u32, u32),
}

fn slots(l: &FvfLayout) -> Vec<Slot> {
    let mut s = Vec::new();
    let f = |n: &str, o: u32| Slot::Scalar(n.to_string(), o, Kind::Float);
    match l.position {
        PositionKind::None => {}
        PositionKind::Xyz => s.extend([f("x", 0), f("y", 4), f("z", 8)]),
        PositionKind::XyzRhw => s.extend([f("x", 0), f("y", 4), f("z", 8), f("rhw", 12)]),
        PositionKind::Xyzw => s.extend([f("x", 0), f("y", 4), f("z", 8), f("w", 12)]),
    }
    for i in 0..l.blend_values {
        let last = i + 1 == l.blend_values && l.last_beta != LastBeta::Weight;
        let k = if last { Kind::Hex } else { Kind::Float };
        s.push(Slot::Scalar(format!("b{i}"), 12 + 4 * i, k));
    }
    if let Some(o) = l.normal {
        s.extend([f("nx", o), f("ny", o + 4), f("nz", o + 8)]);
    }
    if let Some(o) = l.psize {
        s.push(f("psize", o));
    }
    if let Some(o) = l.diffuse {
        s.push(Slot::Scalar("diffuse".into(), o, Kind::Color));
    }
    if let Some(o) = l.specular {
        s.push(Slot::Scalar("specular".into(), o, Kind::Color));
    }
    if let Some(o) = l.fog {
        s.push(f("fog", o));
    }
    for (i, (o, d)) in l.texcoords.iter().take(l.tex_count as usize).enumerate() {
        s.push(Slot::List(format!("tex{i}"), *o, *d));
    }
    s
}

fn rd(v: &[u8], o: u32) -> u32 {
    v.get(o as usize..o as usize + 4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map_or(0, u32::from_le_bytes)
}

fn wr(v: &mut [u8], o: u32, x: u32) {
    if let Some(b) = v.get_mut(o as usize..o as usize + 4) {
        b.copy_from_slice(&x.to_le_bytes());
    }
}

fn fmt(kind: Kind, raw: u32) -> String {
    match kind {
        Kind::Float => names::format_float_bits(raw),
        Kind::Color => format!("0x{raw:08X}"),
        Kind::Hex => format!("{raw:#x}"),
    }
}

/// The layout to use for rows, if `bytes` can be written as rows of `fvf`
/// (a valid FVF with a non-zero stride dividing the length).
pub fn row_layout(fvf: u32, bytes: &[u8]) -> Option<FvfLayout> {
    let l = FvfLayout::parse(fvf).ok()?;
    (l.stride > 0 && bytes.len().is_multiple_of(l.stride as usize)).then_some(l)
}

/// One `vertex ...` line (without newline) per vertex of `bytes`.
pub fn format_rows(l: &FvfLayout, bytes: &[u8], indent: &str, out: &mut String) {
    let slots = slots(l);
    for v in bytes.chunks_exact(l.stride as usize) {
        out.push_str(indent);
        out.push_str("vertex");
        for s in &slots {
            match s {
                Slot::Scalar(n, o, k) => {
                    let _ = write!(out, " {n}={}", fmt(*k, rd(v, *o)));
                }
                Slot::List(n, o, d) => {
                    let _ = write!(out, " {n}=[");
                    for j in 0..*d {
                        if j > 0 {
                            out.push(' ');
                        }
                        out.push_str(&names::format_float_bits(rd(v, o + 4 * j)));
                    }
                    out.push(']');
                }
            }
        }
        out.push('\n');
    }
}

fn word(v: &Val) -> Result<&str, String> {
    match v {
        Val::Word(w) => Ok(w),
        _ => Err("expected a single value".into()),
    }
}

fn parse_scalar(kind: Kind, w: &str) -> Option<u32> {
    match kind {
        Kind::Float => names::parse_float_bits(w),
        Kind::Color | Kind::Hex => names::parse_number(w),
    }
}

/// Parses the items of one `vertex` line into a vertex of layout `l`.
pub fn parse_row(l: &FvfLayout, items: &[Item]) -> Result<Vec<u8>, String> {
    let slots = slots(l);
    let mut v = vec![0u8; l.stride as usize];
    for it in items {
        let Item::Pair(k, val) = it else {
            return Err("vertex: expected name=value".into());
        };
        let slot = slots
            .iter()
            .find(|s| match s {
                Slot::Scalar(n, ..) | Slot::List(n, ..) => n.eq_ignore_ascii_case(k),
            })
            .ok_or_else(|| {
                let known: Vec<&str> = slots
                    .iter()
                    .map(|s| match s {
                        Slot::Scalar(n, ..) | Slot::List(n, ..) => n.as_str(),
                    })
                    .collect();
                format!(
                    "vertex: FVF {} has no field {k} (fields: {})",
                    names::format_fvf(l.fvf),
                    known.join(" ")
                )
            })?;
        match slot {
            Slot::Scalar(n, o, kind) => {
                let w = word(val)?;
                let raw = parse_scalar(*kind, w)
                    .ok_or_else(|| format!("vertex: {n}: cannot read {w}"))?;
                wr(&mut v, *o, raw);
            }
            Slot::List(n, o, d) => {
                let Val::List(xs) = val else {
                    return Err(format!("vertex: {n} takes a list [..] of {d} float(s)"));
                };
                if xs.len() != *d as usize {
                    return Err(format!(
                        "vertex: {n} has {d} dimension(s), {} value(s) given",
                        xs.len()
                    ));
                }
                for (j, x) in xs.iter().enumerate() {
                    let w = word(x)?;
                    let raw = names::parse_float_bits(w)
                        .ok_or_else(|| format!("vertex: {n}: cannot read {w}"))?;
                    wr(&mut v, o + 4 * j as u32, raw);
                }
            }
        }
    }
    Ok(v)
}
