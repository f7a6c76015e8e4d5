//! `docs/gpu-commands.md` cannot go stale: its packet table lists every
//! opcode of the verifier table (`packet::RULES`) exactly once, with the
//! same name, user/kernel-only, engines, length rule, header flags and
//! allocation references (DWORD and access), and lists nothing else.

use softhal_submit::packet::{Access, Rule, Size, RULES};
use std::collections::BTreeSet;
use std::path::Path;

fn page() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/gpu-commands.md");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// One row of the page's packet table.
#[derive(Debug)]
struct Row {
    opcode: u8,
    name: String,
    user: bool,
    engines: u8,
    length: String,
    flags: String,
    /// (DWORD, written) of each reference.
    refs: BTreeSet<(u32, bool)>,
}

/// The rows of the table under "## Packets" (those whose first cell is an
/// opcode).
fn rows(page: &str) -> Vec<Row> {
    let section = page
        .split("\n## Packets\n")
        .nth(1)
        .expect("a \"## Packets\" section");
    let table = section.split("\n### ").next().unwrap_or(section);
    table
        .lines()
        .filter(|l| l.starts_with("| 0x"))
        .map(|l| {
            let c: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
            assert_eq!(c.len(), 7, "seven cells in {l}");
            let opcode = u8::from_str_radix(c[0].trim_start_matches("0x"), 16)
                .unwrap_or_else(|_| panic!("opcode in {l}"));
            let engines = c[3]
                .split(", ")
                .map(|e| match e {
                    "3D" => 1,
                    "C" => 2,
                    _ => panic!("engine {e} in {l}"),
                })
                .fold(0, |a, b| a | b);
            let mut refs = BTreeSet::new();
            for seg in c[6].split(';') {
                let seg = seg.trim();
                let write = if seg.contains("*ref, read*") {
                    false
                } else if seg.contains("*ref, write*") {
                    true
                } else {
                    continue;
                };
                let dword: u32 = seg
                    .split(':')
                    .next()
                    .and_then(|d| d.trim().parse().ok())
                    .unwrap_or_else(|| panic!("a reference without its DWORD in {l}"));
                refs.insert((dword, write));
            }
            Row {
                opcode,
                name: c[1].to_string(),
                user: match c[2] {
                    "yes" => true,
                    "**no**" => false,
                    u => panic!("user {u} in {l}"),
                },
                engines,
                length: c[4].to_string(),
                flags: c[5].to_string(),
                refs,
            }
        })
        .collect()
}

/// The least length a length cell allows: `N`, `≥ N`, `A + Bn, n ≥ K`
/// (A + B·K), `A + Bn` or `A + ⌈bytes/4⌉` (A).
fn least_length(cell: &str) -> (bool, u32) {
    if let Ok(n) = cell.parse() {
        return (true, n);
    }
    if let Some(n) = cell.strip_prefix("≥ ") {
        return (false, n.parse().unwrap_or_else(|_| panic!("length {cell}")));
    }
    let (expr, cond) = cell.split_once(", ").unwrap_or((cell, ""));
    let k: u32 = cond
        .strip_prefix("n ≥ ")
        .map_or(0, |k| k.parse().unwrap_or_else(|_| panic!("length {cell}")));
    let mut terms = expr.split(" + ");
    let a: u32 = terms
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("length {cell}"));
    let b: u32 = match terms.next() {
        Some(t) if t.ends_with('n') => t.trim_end_matches('n').parse().unwrap_or(1),
        Some("⌈bytes/4⌉") => 0,
        t => panic!("length {cell}: term {t:?}"),
    };
    (false, a + b * k)
}

/// The header flag bits a flags cell defines (`—`, or `bit N NAME`).
fn flag_bits(cell: &str) -> u8 {
    if cell == "—" {
        return 0;
    }
    cell.split(", ")
        .map(|f| {
            let bit: u8 = f
                .strip_prefix("bit ")
                .and_then(|r| r.split(' ').next())
                .and_then(|b| b.parse().ok())
                .unwrap_or_else(|| panic!("flags {cell}"));
            1 << bit
        })
        .fold(0, |a, b| a | b)
}

fn table_refs(r: &Rule) -> BTreeSet<(u32, bool)> {
    r.refs
        .iter()
        .map(|s| (s.dword, s.access == Access::Write))
        .collect()
}

#[test]
fn every_packet_of_the_table_has_its_row_and_every_row_a_packet() {
    let rows = rows(&page());
    let listed: Vec<u8> = rows.iter().map(|r| r.opcode).collect();
    let unique: BTreeSet<u8> = listed.iter().copied().collect();
    assert_eq!(unique.len(), listed.len(), "an opcode listed twice");
    let table: BTreeSet<u8> = RULES.iter().map(|r| r.opcode).collect();
    assert_eq!(
        unique, table,
        "the page and packet::RULES list other opcodes"
    );
}

#[test]
fn every_row_says_what_the_table_says() {
    for row in rows(&page()) {
        let r = RULES
            .iter()
            .find(|r| r.opcode == row.opcode)
            .unwrap_or_else(|| panic!("{row:?} is not in packet::RULES"));
        let at = format!("{:#04x} {}", r.opcode, r.name);
        assert_eq!(row.name, r.name, "{at}: name");
        assert_eq!(row.user, r.user, "{at}: user");
        assert_eq!(row.engines, r.engines, "{at}: engines");
        let (exact, least) = least_length(&row.length);
        match r.size {
            Size::Exact(n) => assert!(exact && least == n, "{at}: length {} ≠ {n}", row.length),
            Size::AtLeast(n) => assert!(
                !exact && least == n,
                "{at}: length {} does not start at {n}",
                row.length
            ),
        }
        assert_eq!(flag_bits(&row.flags), r.flags, "{at}: flags {}", row.flags);
        assert_eq!(row.refs, table_refs(r), "{at}: references");
    }
}

#[test]
fn the_length_cells_are_read_as_documented() {
    assert_eq!(least_length("5"), (true, 5));
    assert_eq!(least_length("≥ 1"), (false, 1));
    assert_eq!(least_length("1 + 2n, n ≥ 1"), (false, 3));
    assert_eq!(least_length("6 + 4n"), (false, 6));
    assert_eq!(least_length("3 + ⌈bytes/4⌉"), (false, 3));
    assert_eq!(flag_bits("bit 0 DEPTH"), 1);
    assert_eq!(flag_bits("—"), 0);
}

/// The register tables of "## Register file": one row per render state and
/// per texture-stage state of the register file (id, DDK name, value,
/// group), as the code states them.
fn register_rows() -> (BTreeSet<String>, BTreeSet<String>) {
    use softhal_submit::regs::{self, id, Value};
    use softhal_wire::names::RenderStateType as Rs;
    let value = |v: Value| match v {
        Value::Bool => "BOOL: 0 or 1".to_string(),
        Value::Dword => "any DWORD".to_string(),
        Value::Float => "finite float".to_string(),
        Value::Mask(m) => format!("mask inside {m:#x}"),
        Value::AtMost(n) => format!("at most {n}"),
        Value::Enum { name, fallback, .. } => {
            format!("`{name}` value (undefined: the device sends {fallback})")
        }
    };
    let rs = (0..=0xFFu32)
        .filter_map(|n| {
            let (v, g) = regs::rule(id::rs(n))?;
            let name = Rs::from_raw(n).map_or("?", Rs::name);
            Some(format!(
                "| {:#06x} | {n} | {name} | {} | {g:?} |",
                id::rs(n),
                value(v)
            ))
        })
        .collect();
    let tss = regs::STAGE_STATES
        .iter()
        .map(|t| {
            let (v, _) = regs::rule(id::tss(1, t.raw())).unwrap();
            format!("| {} | {} | {} |", t.raw(), t.name(), value(v))
        })
        .collect();
    (rs, tss)
}

/// The rows of the table under `### {title}` (those starting "| 0x" or a
/// digit).
fn section_rows(page: &str, title: &str) -> BTreeSet<String> {
    let section = page
        .split(&format!("\n### {title}\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("a \"### {title}\" section"));
    let table = section.split("\n#").next().unwrap_or(section);
    table
        .lines()
        .filter(|l| l.starts_with("| ") && l.chars().nth(2).is_some_and(|c| c.is_ascii_digit()))
        .map(str::to_string)
        .collect()
}

/// The page's render-state and texture-stage tables are the register
/// file's, row for row, both ways (a state added to or removed from the
/// register file, or a value rule changed, fails here until the page says
/// so).
#[test]
fn the_register_tables_are_the_register_file() {
    let page = page();
    let (rs, tss) = register_rows();
    let doc_rs = section_rows(&page, "Render states");
    let doc_tss = section_rows(&page, "Texture-stage states");
    let show = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join("\n");
    assert!(doc_rs == rs, "render-state table should be:\n{}", show(&rs));
    assert!(
        doc_tss == tss,
        "texture-stage table should be:\n{}",
        show(&tss)
    );
}

/// The bank table gives each bank's first id as `regs::bank` does.
#[test]
fn the_bank_table_is_the_code() {
    use softhal_submit::regs::bank;
    let want: BTreeSet<String> = [
        bank::RENDER_STATE,
        bank::TEXTURE_STAGE,
        bank::TRANSFORM,
        bank::LIGHT,
        bank::MATERIAL,
        bank::VIEWPORT,
        bank::WINFO,
        bank::CLIP_PLANE,
        bank::SCISSOR,
    ]
    .iter()
    .map(|b| format!("{b:#06x}"))
    .collect();
    let got: BTreeSet<String> = section_rows(&page(), "Banks")
        .iter()
        .map(|l| {
            l.split(" | ")
                .next()
                .unwrap()
                .trim_start_matches("| ")
                .to_string()
        })
        .collect();
    assert_eq!(got, want);
}
