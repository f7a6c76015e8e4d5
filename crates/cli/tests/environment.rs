//! `docs/environment.md` lists every environment variable softhal reads:
//! each `std::env::var` / `var_os` of the sources (crates and fuzz
//! targets) names a documented variable, and each documented variable is
//! read somewhere.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if p.is_dir() && name != "target" && !name.starts_with('.') {
            rust_files(&p, out);
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

/// The string literal at the start of `s` (after `"`), if any.
fn literal(s: &str) -> Option<&str> {
    s.strip_prefix('"')?.split('"').next()
}

/// The variables `src` reads: `env::var("X")`, `env::var_os("X")`, or the
/// same with a constant defined in the file as `const NAME: &str = "X"`.
fn read_in(src: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for call in ["env::var(", "env::var_os("] {
        for (i, _) in src.match_indices(call) {
            let arg = src[i + call.len()..].trim_start();
            if let Some(name) = literal(arg) {
                names.insert(name.to_string());
                continue;
            }
            let ident: String = arg
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if ident.is_empty() {
                continue;
            }
            let def = format!("const {ident}: &str = ");
            let value = src
                .find(&def)
                .and_then(|at| literal(&src[at + def.len()..]))
                .unwrap_or_else(|| panic!("env::var({ident}): no `{def}\"…\"` in the same file"));
            names.insert(value.to_string());
        }
    }
    names
}

#[test]
fn every_variable_read_is_documented_and_every_documented_one_is_read() {
    let mut files = Vec::new();
    rust_files(&root().join("crates"), &mut files);
    rust_files(&root().join("fuzz"), &mut files);
    let this = Path::new(file!()).file_name().unwrap();
    let mut read = BTreeSet::new();
    for f in &files {
        if f.file_name() == Some(this) {
            continue;
        }
        read.extend(read_in(&std::fs::read_to_string(f).unwrap()));
    }
    let doc = std::fs::read_to_string(root().join("docs/environment.md")).unwrap();
    let documented: BTreeSet<String> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    assert!(read.contains("SOFTHAL_CAPTURE"), "{read:?}");
    assert!(read.contains("SOFTHAL_BLESS"), "{read:?}");
    assert!(read.contains("SOFTHAL_LOG"), "{read:?}");
    let undocumented: Vec<&String> = read.difference(&documented).collect();
    let unread: Vec<&String> = documented.difference(&read).collect();
    assert!(
        undocumented.is_empty(),
        "read but not in docs/environment.md: {undocumented:?}"
    );
    assert!(
        unread.is_empty(),
        "in docs/environment.md but read nowhere: {unread:?}"
    );
}

#[test]
fn the_scanner_reads_literals_and_constants() {
    let src = concat!(
        "let a = std::env::",
        "var(\"A_1\");\n",
        "const B: &str = \"B_2\";\nlet b = env::",
        "var_os(B);\n",
    );
    let got: Vec<String> = read_in(src).into_iter().collect();
    assert_eq!(got, ["A_1", "B_2"]);
}
