//! Tidy checks over the repository's own text: every document a comment, a
//! doc or a script names exists in the repository.
//!
//! In: every source, script and Markdown file of the repository (build
//! output, fuzz corpora and `.git` excluded). Out: a failure listing each
//! named `*.md` that a clone does not carry (a file outside the repository,
//! a renamed document), with the file and line that names it.
//!
//! A name resolves when it is a path from the repository root, a path
//! relative to the naming file's folder or a folder above it (inside the
//! repository), or a bare file name that some file of the repository has.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const SKIP_DIRS: &[&str] = &[
    ".git",
    "target",
    "corpus",
    "corpora",
    "artifacts",
    "node_modules",
];
const TEXT_EXTS: &[&str] = &["rs", "md", "sh", "toml", "py", "h", "c", "txt", "dp2s"];

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            if !SKIP_DIRS.contains(&name.as_str()) && !name.starts_with("target") {
                walk(&path, out);
            }
        } else if kind.is_file() {
            out.push(path);
        }
    }
}

/// Every `….md` token of `line`: the longest run of path characters ending
/// in `.md` (and not followed by another path character).
fn md_names(line: &str) -> Vec<String> {
    let is_path = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/');
    let chars: Vec<char> = line.chars().collect();
    let mut names = Vec::new();
    let mut i = 0;
    while i + 3 <= chars.len() {
        let ends_md = chars[i..i + 3] == ['.', 'm', 'd'];
        let next_is_path = chars
            .get(i + 3)
            .is_some_and(|&c| c.is_ascii_alphanumeric() || c == '_');
        if ends_md && !next_is_path {
            let mut start = i;
            while start > 0 && is_path(chars[start - 1]) {
                start -= 1;
            }
            // A URL is not a repository path.
            let url = start >= 1 && chars[start - 1] == ':';
            let name: String = chars[start..i + 3].iter().collect();
            if !url && name.len() > 3 && !name.starts_with("//") {
                names.push(name);
            }
        }
        i += 1;
    }
    names
}

/// True if `path`, with `.` and `..` resolved by name, is a file inside
/// `root` (a name reaching out of the repository does not count, even where
/// the file exists beside this checkout).
fn inside(root: &Path, path: &Path) -> bool {
    let mut normal = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                normal.pop();
            }
            std::path::Component::CurDir => {}
            other => normal.push(other),
        }
    }
    normal.starts_with(root) && normal.is_file()
}

#[test]
fn every_document_named_in_the_repository_exists() {
    let root = root().canonicalize().expect("repository root");
    let mut files = Vec::new();
    walk(&root, &mut files);
    assert!(
        files.iter().any(|f| f.ends_with("ARCHITECTURE.md")),
        "the walk must see the repository ({})",
        root.display()
    );
    let basenames: HashSet<String> = files
        .iter()
        .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    let mut missing = Vec::new();
    for file in &files {
        let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("");
        if !TEXT_EXTS.contains(&ext) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let rel = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        for (n, line) in text.lines().enumerate() {
            for name in md_names(line) {
                let trimmed = name.trim_start_matches("./");
                let found = if trimmed.contains('/') {
                    // From the root, or from the naming file's folder or any
                    // folder above it inside the repository (a crate's
                    // `CARGO_MANIFEST_DIR`-relative path).
                    std::iter::once(root.as_path())
                        .chain(
                            file.ancestors()
                                .skip(1)
                                .take_while(|d| d.starts_with(&root)),
                        )
                        .any(|d| inside(&root, &d.join(trimmed)))
                } else {
                    basenames.contains(trimmed)
                };
                if !found {
                    missing.push(format!("{rel}:{}: {name}", n + 1));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "documents named but not in the repository (bring the facts into docs/ and cite that):\n{}",
        missing.join("\n")
    );
}

#[test]
fn md_names_finds_paths_and_skips_urls() {
    assert_eq!(
        md_names("see `docs/limits.md` and README.md."),
        ["docs/limits.md", "README.md"]
    );
    assert_eq!(
        md_names("at https://example.invalid/a/README.md"),
        Vec::<String>::new()
    );
    assert_eq!(md_names("a .mdx file, and x.mdfoo"), Vec::<String>::new());
    // Written in two pieces so that the scan of this file does not see it.
    let outside = concat!("../shared/reference/fvf", ".md");
    assert_eq!(md_names(outside), [outside]);
    let root = root().canonicalize().expect("repository root");
    assert!(!inside(&root, &root.join(outside)));
    assert!(inside(&root, &root.join("crates/../ARCHITECTURE.md")));
}
