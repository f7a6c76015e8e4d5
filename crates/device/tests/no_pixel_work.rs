//! The device writes no pixels (ARCHITECTURE.md: pixels are read and
//! written only on the GPU side, by the pipeline): no source file of
//! `crates/device/src` calls the pipeline's per-pixel encode/decode
//! functions, its pixel accessors or its blitter. The device validates
//! and lowers; the GPU runs the packets.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn device_sources_do_no_pixel_work() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    assert!(files.len() > 10, "found the device sources");
    let calls = [
        ".encode_argb(",
        ".decode_argb(",
        ".read_pixel(",
        ".write_pixel(",
        "blit::stretch",
        "blit::fill",
        "blit::generate_mips",
    ];
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            for c in calls.iter().filter(|c| line.contains(**c)) {
                found.push(format!("{}:{}: {c}", f.display(), n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "pixel work in the device:\n{}",
        found.join("\n")
    );
}
