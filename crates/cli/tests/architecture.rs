//! Keeps ARCHITECTURE.md true: the crates it lists are exactly the
//! workspace members, and the layering rules hold in the manifests.

use std::path::Path;

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
    assert!(
        deps_of("wire").is_empty(),
        "wire must not depend on other softhal crates"
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

#[test]
fn unsafe_is_forbidden_outside_pipeline_simd() {
    for krate in ["wire", "shader", "cli"] {
        let lib = root().join("crates").join(krate).join(if krate == "cli" {
            "src/main.rs"
        } else {
            "src/lib.rs"
        });
        let text = std::fs::read_to_string(&lib).unwrap();
        assert!(
            text.contains("#![forbid(unsafe_code)]"),
            "{} lacks #![forbid(unsafe_code)]",
            lib.display()
        );
    }
    let pipeline = std::fs::read_to_string(root().join("crates/pipeline/src/lib.rs")).unwrap();
    assert!(
        pipeline.contains("#![deny(unsafe_code)]"),
        "pipeline must deny unsafe at its root"
    );
    // Only simd.rs may allow it.
    for entry in std::fs::read_dir(root().join("crates/pipeline/src")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let allows = text.contains("allow(unsafe_code)");
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        assert!(!allows || name == "simd.rs", "{name} allows unsafe code");
    }
}
