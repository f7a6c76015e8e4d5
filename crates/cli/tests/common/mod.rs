//! What the command-line test suites share: running the `softhal` binary,
//! paths inside the repository, and fresh scratch folders.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `softhal ARGS...` and returns what it did.
pub fn softhal(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_softhal"))
        .args(args)
        .output()
        .expect("run softhal")
}

/// `path` (relative to the repository root) as an argument string.
pub fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
        .to_string_lossy()
        .to_string()
}

/// `name` inside a scratch folder of its own (one per call, named after the
/// test binary and the process).
pub fn tmp(name: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "softhal-{}-{}-{n}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}
