//! `docs/README.md` is the index of the documentation: it links every
//! file of `docs/`, and every file it links exists.

use std::collections::BTreeSet;
use std::path::Path;

#[test]
fn the_docs_index_lists_every_document() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    let files: BTreeSet<String> = std::fs::read_dir(&docs)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".md") && n != "README.md")
        .collect();
    let index = std::fs::read_to_string(docs.join("README.md")).unwrap();
    let linked: BTreeSet<String> = index
        .split("](")
        .skip(1)
        .filter_map(|s| s.split(')').next())
        .map(str::to_string)
        .collect();
    assert_eq!(
        linked, files,
        "docs/README.md links (left) vs docs/*.md (right)"
    );
}
