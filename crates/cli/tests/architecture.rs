//! Keeps ARCHITECTURE.md true: the crates it lists are exactly the
//! workspace members, the layering rules hold in the manifests, and every
//! crate's `unsafe` rule holds in its sources (read from each crate root
//! and module file).

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn workspace_members() -> Vec<String> {
    let toml = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let line = toml
        .lines()
        .find(|l| l.trim_start().starts_with("members"))
        .expect("members line");
    line.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

fn documented_crates() -> Vec<String> {
    let doc = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    doc.lines()
        .filter_map(|l| l.strip_prefix("| `crates/"))
        .filter_map(|l| l.split('`').next())
        .map(|name| format!("crates/{name}"))
        .collect()
}

#[test]
fn architecture_lists_exactly_the_workspace_crates() {
    let mut members = workspace_members();
    let mut documented = documented_crates();
    members.sort();
    documented.sort();
    assert!(!members.is_empty());
    assert_eq!(
        documented, members,
        "ARCHITECTURE.md's crate table and Cargo.toml's members differ"
    );
    for m in &members {
        assert!(
            root().join(m).join("Cargo.toml").exists(),
            "{m} has no Cargo.toml"
        );
    }
}

/// The softhal crates `krate` depends on in its `[dependencies]` section
/// (dev-dependencies such as the test kit are not layering).
fn deps_of(krate: &str) -> Vec<String> {
    let toml =
        std::fs::read_to_string(root().join("crates").join(krate).join("Cargo.toml")).unwrap();
    let mut section = String::new();
    let mut deps = Vec::new();
    for line in toml.lines().map(str::trim_start) {
        if line.starts_with('[') {
            section = line.to_string();
        } else if section == "[dependencies]" && line.starts_with("softhal-") {
            if let Some(name) = line.split(['.', ' ', '=']).next() {
                deps.push(name.to_string());
            }
        }
    }
    deps
}

#[test]
fn pipeline_never_sees_dp2_and_wire_knows_nothing_of_rendering() {
    assert!(
        !deps_of("pipeline").iter().any(|d| d == "softhal-wire"),
        "pipeline must not depend on wire"
    );
    assert_eq!(
        deps_of("wire"),
        ["softhal-types", "softhal-shader"],
        "wire must depend on no softhal crate but the shared vocabulary and the \
         shader tokens (their assembly text), both leaves that know nothing of rendering"
    );
    assert!(
        deps_of("types").is_empty(),
        "types (the shared vocabulary) must not depend on other softhal crates"
    );
    assert!(
        deps_of("shader").is_empty(),
        "shader must not depend on other softhal crates"
    );
    assert!(
        deps_of("cli").iter().any(|d| d == "softhal-wire"),
        "the check must see real dependencies"
    );
}

/// The module file a `crate::a::b` path of the concept table stands for:
/// each lowercase segment is a module file (`a.rs` or `a/mod.rs`) under the
/// one before, until a segment that is not, which must then be an item
/// named in the last module file (or the crate root) (a function such as
/// `capture::replay_into`). Returns the failure, if any.
fn resolve_path(krate: &str, path: &str) -> Result<(), String> {
    let src = root().join("crates").join(krate).join("src");
    let mut dir = src.clone();
    let mut file: Option<PathBuf> = ["lib.rs", "main.rs"]
        .iter()
        .map(|f| src.join(f))
        .find(|f| f.is_file());
    for seg in path.split("::").filter(|s| !s.is_empty()) {
        if !seg
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        {
            break; // a type, trait or constant: named, not a module
        }
        let flat = dir.join(format!("{seg}.rs"));
        let nested = dir.join(seg).join("mod.rs");
        if flat.is_file() || nested.is_file() {
            file = Some(if flat.is_file() { flat } else { nested });
            dir = dir.join(seg);
            continue;
        }
        let Some(parent) = file.as_ref() else {
            return Err(format!("{krate}::{path}: no module file for `{seg}`"));
        };
        let text = std::fs::read_to_string(parent).unwrap();
        let named = ["fn ", "mod ", "const ", "static ", "macro_rules! "]
            .iter()
            .any(|k| text.contains(&format!("{k}{seg}")))
            || text.contains(&format!("{seg}::"))
            || text.contains(&format!("{seg},"))
            || text.contains(&format!("{seg}}}"));
        if !named {
            return Err(format!(
                "{krate}::{path}: `{seg}` is neither a module nor named in {}",
                parent.display()
            ));
        }
        break;
    }
    Ok(())
}

#[test]
fn concept_table_names_existing_modules() {
    let doc = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let table = doc
        .split("## Where each concept lives")
        .nth(1)
        .and_then(|t| t.split("\n## ").next())
        .expect("concept table");
    let crates = documented_crates();
    let mut named = 0;
    let mut problems = Vec::new();
    for part in table.split('`').skip(1).step_by(2) {
        // every `crate::path` inside a code span
        for word in part.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':')) {
            let Some((krate, path)) = word.split_once("::") else {
                continue;
            };
            if !crates.iter().any(|c| c == &format!("crates/{krate}")) {
                continue;
            }
            named += 1;
            if let Err(e) = resolve_path(krate, path) {
                problems.push(e);
            }
        }
    }
    assert!(
        problems.is_empty(),
        "ARCHITECTURE.md names what does not exist:\n{}",
        problems.join("\n")
    );
    assert!(
        named >= 100,
        "only {named} module paths named in the concept table"
    );
}

#[test]
fn concept_table_check_catches_a_missing_module() {
    assert!(resolve_path("pipeline", "fog").is_ok());
    assert!(resolve_path("pipeline", "no_such_module").is_err());
    assert!(resolve_path("capture", "replay_into").is_ok());
    assert!(resolve_path("capture", "no_such_function_anywhere").is_err());
}

#[test]
fn state_walkthrough_names_existing_files() {
    let doc = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let section = doc
        .split("## Following one state")
        .nth(1)
        .and_then(|t| t.split("\n## ").next())
        .expect("the state walk-through section");
    let mut files = 0;
    for part in section.split('`').skip(1).step_by(2) {
        if part.starts_with("crates/") && part.ends_with(".rs") {
            assert!(
                root().join(part).is_file(),
                "ARCHITECTURE.md's state walk-through names {part}, which does not exist"
            );
            files += 1;
        }
    }
    assert!(files >= 8, "the walk-through names only {files} files");
}

/// The crate roots of a workspace member (`src/lib.rs`, `src/main.rs`,
/// `src/bin/*.rs`: every file rustc starts a product crate from).
fn crate_roots(member: &str) -> Vec<PathBuf> {
    let src = root().join(member).join("src");
    let mut roots: Vec<PathBuf> = ["lib.rs", "main.rs"]
        .iter()
        .map(|f| src.join(f))
        .filter(|p| p.is_file())
        .collect();
    if src.join("bin").is_dir() {
        roots.extend(rust_files(&src.join("bin")));
    }
    assert!(!roots.is_empty(), "{member}: no crate root");
    roots
}

/// The lint levels a file sets for the whole of its module with inner
/// attributes (`#![forbid(a, b)]` → `("forbid", "a")`, `("forbid", "b")`),
/// attributes spanning several lines included.
fn inner_lint_levels(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("#![") {
        let attr = &rest[at + 3..];
        let end = attr.find(")]").map_or(attr.len(), |e| e + 1);
        let body = &attr[..end];
        rest = &attr[end..];
        let Some((level, lints)) = body.split_once('(') else {
            continue;
        };
        let level = level.trim();
        if !["allow", "warn", "deny", "forbid", "expect"].contains(&level) {
            continue;
        }
        let lints: Vec<&str> = lints
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect();
        for lint in lints.join(" ").trim_end_matches(')').split(',') {
            let lint = lint.trim();
            if !lint.is_empty() {
                out.push((level.to_string(), lint.to_string()));
            }
        }
    }
    out
}

/// True if `text` sets `lint` to `deny` or `forbid` for its whole module.
fn denies(text: &str, lint: &str) -> bool {
    inner_lint_levels(text)
        .iter()
        .any(|(level, l)| l == lint && (level == "deny" || level == "forbid"))
}

/// True if `text` lowers `unsafe_code` anywhere (inner or outer attribute,
/// `allow` or `expect`).
fn relaxes_unsafe(text: &str) -> bool {
    ["allow(unsafe_code", "expect(unsafe_code"]
        .iter()
        .any(|a| text.replace(char::is_whitespace, "").contains(a))
}

#[test]
fn every_crate_but_pipeline_and_capi_forbids_unsafe() {
    let members = workspace_members();
    assert!(members.len() >= 8, "members: {members:?}");
    for member in members {
        if member == "crates/pipeline" || member == "crates/capi" {
            continue;
        }
        for lib in crate_roots(&member) {
            let text = std::fs::read_to_string(&lib).unwrap();
            let forbids = inner_lint_levels(&text)
                .iter()
                .any(|(level, l)| l == "unsafe_code" && level == "forbid");
            assert!(
                forbids || denies(&text, "unsafe_code"),
                "{} lacks #![forbid(unsafe_code)]",
                lib.display()
            );
        }
        // A `deny` could be lowered again inside; `forbid` cannot, but no
        // file of these crates may even try.
        for path in rust_files(&root().join(&member).join("src")) {
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                !relaxes_unsafe(&text),
                "{} allows unsafe code",
                path.display()
            );
        }
    }
}

/// `text` without its line comments (doc comments included), so that a
/// comment naming `unsafe` is not taken for code.
fn without_comments(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn pipeline_allows_unsafe_only_in_its_simd_tree() {
    let src = root().join("crates/pipeline/src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    assert!(
        denies(&lib, "unsafe_code"),
        "pipeline must deny unsafe at its root"
    );
    assert!(
        denies(&lib, "unsafe_op_in_unsafe_fn"),
        "pipeline must deny unsafe operations outside unsafe blocks at its root"
    );
    // The simd module tree allows it once, at its top, for itself only.
    let simd = std::fs::read_to_string(src.join("simd/mod.rs")).unwrap();
    assert!(
        inner_lint_levels(&simd)
            .iter()
            .any(|(level, l)| l == "unsafe_code" && level == "allow"),
        "pipeline's simd/mod.rs must carry the one #![allow(unsafe_code)]"
    );
    for path in rust_files(&src) {
        let text = std::fs::read_to_string(&path).unwrap();
        let in_simd = path.starts_with(src.join("simd"));
        assert!(
            !relaxes_unsafe(&text) || path == src.join("simd/mod.rs"),
            "{} allows unsafe code",
            path.display()
        );
        let code = without_comments(&text);
        assert!(
            in_simd || !code.contains("unsafe {") && !code.contains("unsafe fn"),
            "{} contains unsafe code outside pipeline::simd",
            path.display()
        );
    }
}

/// Every kernel of `pipeline::simd` is written over the vector layer
/// `simd/wide/` and forbids `unsafe`; the module root `mod.rs` (which
/// cannot forbid `unsafe` for its children) holds none: hand-written
/// intrinsics live only in the layer's levels.
#[test]
fn pipeline_simd_unsafe_lives_in_the_vector_layer() {
    let simd = root().join("crates/pipeline/src/simd");
    let wide = simd.join("wide");
    assert!(
        wide.join("mod.rs").is_file(),
        "the vector layer simd/wide/ is missing"
    );
    let mut kernels = 0;
    for path in rust_files(&simd) {
        let rel = path.strip_prefix(&simd).unwrap();
        if path.starts_with(&wide) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        if rel == Path::new("mod.rs") {
            let code = without_comments(&text);
            assert!(
                !code.contains("unsafe {") && !code.contains("unsafe fn"),
                "simd/mod.rs holds unsafe code: it belongs in the vector layer"
            );
            continue;
        }
        assert!(
            inner_lint_levels(&text)
                .iter()
                .any(|(level, l)| l == "unsafe_code" && level == "forbid"),
            "{} is a kernel over the vector layer and must carry #![forbid(unsafe_code)]",
            path.display()
        );
        kernels += 1;
    }
    assert!(kernels >= 1, "no kernel is written over the vector layer");
}

#[test]
fn capi_denies_unsafe_operations_outside_unsafe_blocks() {
    let lib = std::fs::read_to_string(root().join("crates/capi/src/lib.rs")).unwrap();
    assert!(
        denies(&lib, "unsafe_op_in_unsafe_fn"),
        "capi must deny unsafe_op_in_unsafe_fn at its root"
    );
}

#[test]
fn lint_levels_are_read_from_inner_attributes() {
    let text = "//! doc\n#![forbid(unsafe_code)]\n#![deny(\n    clippy::unwrap_used, // no unwrap\n    unsafe_op_in_unsafe_fn,\n)]\n#[allow(dead_code)]\nfn f() {}\n";
    let levels = inner_lint_levels(text);
    assert_eq!(
        levels,
        [
            ("forbid".to_string(), "unsafe_code".to_string()),
            ("deny".to_string(), "clippy::unwrap_used".to_string()),
            ("deny".to_string(), "unsafe_op_in_unsafe_fn".to_string()),
        ]
    );
    assert!(denies(text, "unsafe_code") && denies(text, "unsafe_op_in_unsafe_fn"));
    assert!(!denies("#![allow(unsafe_code)]", "unsafe_code"));
    assert!(relaxes_unsafe("#[allow( unsafe_code )]\nmod x;"));
}

/// Every `.rs` file under `dir`, recursively, in a stable order.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}
