//! `docs/states.md` cannot go stale: below its marker line it is exactly
//! the text this test generates from the state table
//! (`softhal_types::state`), one row per render state and per
//! texture-stage state, so a row added, removed or changed on either side
//! fails. `SOFTHAL_BLESS=1` rewrites the generated part.

use softhal_types::state::{Groups, Honour, Reader, StageDefault, StateKind};
use softhal_wire::names::{
    self, state_value_kind, RenderStateType, TextureStageStateType, ValueKind,
};
use std::fmt::Write as _;
use std::path::Path;

const MARKER: &str = "<!-- generated from softhal_types::state by crates/wire/tests/states_doc.rs (SOFTHAL_BLESS=1 rewrites it); do not edit below -->\n";

fn kind_text(kind: StateKind) -> String {
    match kind {
        StateKind::Dword => "DWORD".into(),
        StateKind::Hex => "bit pattern".into(),
        StateKind::Bool => "BOOL".into(),
        StateKind::Float => "float".into(),
        StateKind::Color => "D3DCOLOR".into(),
        StateKind::Handle => "handle".into(),
        StateKind::Enum(t) => format!("`{}`", t.type_name),
        StateKind::Flags(t) => format!("`{}` flags", t.type_name),
        StateKind::TextureArgument => "`D3DTA_*` argument".into(),
        StateKind::ResultArgument => "`D3DTA_CURRENT` or `D3DTA_TEMP`".into(),
        StateKind::TexCoordIndex => "index and `D3DTSS_TCI_*`".into(),
        StateKind::TextureTransformFlags => "`D3DTTFF_*`".into(),
    }
}

/// A value as the text form prints it.
fn value(kind: StateKind, v: u32) -> String {
    format!("`{}`", names::format_value(state_value_kind(kind), v))
}

fn honour_text(kind: StateKind, h: Honour) -> String {
    let float = |bits: u32| names::format_value(ValueKind::Float, bits);
    match h {
        Honour::AsGiven => "as given".into(),
        Honour::InEnum(fallback) => format!("defined values; others → {}", value(kind, fallback)),
        Honour::InRange { lo, hi, fallback } => format!(
            "{} ..= {}; others → {}",
            value(kind, lo),
            value(kind, hi),
            value(kind, fallback)
        ),
        Honour::AtMost(max) => format!("at most {max}"),
        Honour::Mask(mask) => format!("bits `{mask:#x}` kept"),
        Honour::Finite(fallback) => format!("finite; others → `{}`", float(fallback)),
        Honour::FiniteNonNegative(fallback) => {
            format!("finite and ≥ 0; others → `{}`", float(fallback))
        }
        Honour::Off => "`0` (not implemented: off)".into(),
    }
}

fn groups_text(g: Groups) -> &'static str {
    match (g.pixel, g.vertex) {
        (true, true) => "PIXEL, VERTEX",
        (true, false) => "PIXEL",
        (false, true) => "VERTEX",
        (false, false) => "",
    }
}

fn reader_text(r: Reader) -> &'static str {
    match r {
        Reader::Pipeline => "pipeline",
        Reader::Device => "device",
        Reader::Kept => "kept only",
    }
}

fn generated() -> String {
    let mut out = String::new();
    out.push_str("\n## Render states\n\n");
    out.push_str("| # | state | value | default | honoured | state blocks | read by |\n");
    out.push_str("|---|---|---|---|---|---|---|\n");
    for s in RenderStateType::ALL {
        let i = s.info();
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {} | {} | {} | {} |",
            s.raw(),
            s.name(),
            kind_text(i.kind),
            value(i.kind, i.default),
            honour_text(i.kind, i.honour),
            groups_text(i.groups),
            reader_text(i.reads)
        );
    }
    out.push_str("\n## Texture-stage states\n\n");
    out.push_str("| # | state | value | default | honoured | state blocks | read by |\n");
    out.push_str("|---|---|---|---|---|---|---|\n");
    for s in TextureStageStateType::ALL {
        let i = s.info();
        let default = match i.default {
            StageDefault::All(v) => value(i.kind, v),
            StageDefault::Stage0(first, rest) => format!(
                "stage 0: {}; others: {}",
                value(i.kind, first),
                value(i.kind, rest)
            ),
            StageDefault::StageIndex => "the stage's number".into(),
        };
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {} | {} | {} | {} |",
            s.raw(),
            s.name(),
            kind_text(i.kind),
            default,
            honour_text(i.kind, i.honour),
            groups_text(i.groups),
            reader_text(i.reads)
        );
    }
    out
}

#[test]
fn states_md_is_the_state_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/states.md");
    let page = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (head, body) = page
        .split_once(MARKER)
        .unwrap_or_else(|| panic!("{}: no marker line", path.display()));
    let want = generated();
    if body != want && std::env::var_os("SOFTHAL_BLESS").is_some() {
        std::fs::write(&path, format!("{head}{MARKER}{want}")).unwrap();
        return;
    }
    assert!(
        body == want,
        "docs/states.md differs from the state table (SOFTHAL_BLESS=1 rewrites it); first differing line: {:?}",
        body.lines()
            .zip(want.lines())
            .find(|(a, b)| a != b)
            .or_else(|| (body.lines().count() != want.lines().count()).then_some(("(length)", "(length)")))
    );
}

/// Spot checks of the generated text against the Direct3D documentation,
/// so the generator itself is tested: D3DRS_FOGSTART (36) is a float
/// defaulting to 0.0, kept when finite, in both state-block groups;
/// D3DRS_ZFUNC (23) defaults to D3DCMP_LESSEQUAL; D3DTSS_COLOROP modulates
/// on stage 0 and is off elsewhere; all three reach the pipeline, while
/// D3DRS_DITHERENABLE (26) is only kept (dithering is not implemented).
#[test]
fn generated_rows_say_what_the_documentation_says() {
    let g = generated();
    assert!(g.contains(
        "| 36 | `D3DRS_FOGSTART` | float | `0.0` | finite; others → `0.0` | PIXEL, VERTEX | pipeline |"
    ));
    assert!(g.contains(
        "| 23 | `D3DRS_ZFUNC` | `D3DCMPFUNC` | `D3DCMP_LESSEQUAL` | defined values; others → `D3DCMP_LESSEQUAL` | PIXEL | pipeline |"
    ));
    assert!(g.contains(
        "| 1 | `D3DTSS_COLOROP` | `D3DTEXTUREOP` | stage 0: `D3DTOP_MODULATE`; others: `D3DTOP_DISABLE` | as given | PIXEL | pipeline |"
    ));
    assert!(g.contains(
        "| 26 | `D3DRS_DITHERENABLE` | BOOL | `FALSE` | `0` (not implemented: off) | PIXEL | kept only |"
    ));
    assert_eq!(
        g.lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| # "))
            .count(),
        173 + 33
    );
}
