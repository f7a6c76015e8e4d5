//! Replaying every capture in `testdata/captures` gives the checked-in
//! golden PNGs (`testdata/goldens/captures/NAME-frame-0001.png` and
//! `NAME-final-0001.png`: the capture's name and `softhal render`'s file name, per-channel tolerance 2) and the checked-in FNV-1a 64
//! checksums (`testdata/goldens/captures/checksums.txt`, exact), at 1 and
//! at 3 threads, with every recorded answer matched.
//!
//! Regenerate with `SOFTHAL_BLESS=1 cargo test -p softhal-capture --test
//! goldens` — and look at the images before committing them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Largest difference allowed per colour channel against a golden PNG.
const TOLERANCE: u8 = 2;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn captures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("testdata/captures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().to_string();
            n.ends_with(".shcap.txt") || n.ends_with(".shcap")
        })
        .collect();
    v.sort();
    v
}

fn stem(p: &Path) -> String {
    let n = p.file_name().unwrap().to_string_lossy().to_string();
    n.trim_end_matches(".txt")
        .trim_end_matches(".shcap")
        .to_string()
}

#[test]
fn every_capture_replays_to_its_goldens() {
    let bless = softhal_testkit::blessing();
    let dir = root().join("testdata/goldens/captures");
    let sums_path = dir.join("checksums.txt");
    let recorded: BTreeMap<String, String> = std::fs::read_to_string(&sums_path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once(' '))
        .map(|(k, v)| (k.to_string(), v.trim().to_string()))
        .collect();
    let mut sums = BTreeMap::new();
    let files = captures();
    assert!(files.len() >= 3, "expected at least 3 example captures");
    for path in files {
        let name = stem(&path);
        let c = softhal_capture::load(&std::fs::read(&path).unwrap(), path.parent())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let r1 = softhal_capture::replay(&c, 1, |_, _| {}).unwrap();
        let r3 = softhal_capture::replay(&c, 3, |_, _| {}).unwrap();
        assert!(
            r1.differences.is_empty(),
            "{name}: answers differ from the recorded ones: {:?}",
            r1.differences
        );
        assert!(!r1.frames.is_empty(), "{name}: presents nothing");
        let images = r1
            .frames
            .iter()
            .enumerate()
            .map(|(i, f)| (golden_key(&name, f, i), f))
            .chain(
                r1.finals
                    .iter()
                    .enumerate()
                    .map(|(i, f)| (golden_key(&name, f, i), f)),
            )
            .collect::<Vec<_>>();
        let threaded: Vec<u64> = r3
            .frames
            .iter()
            .chain(&r3.finals)
            .map(|f| f.checksum)
            .collect();
        let single: Vec<u64> = images.iter().map(|(_, f)| f.checksum).collect();
        assert_eq!(single, threaded, "{name}: 1 and 3 threads differ");
        for (key, f) in images {
            let png = dir.join(format!("{key}.png"));
            let sum = format!("{:016x}", f.checksum);
            softhal_testkit::check_golden_rgba(&png, f.width, f.height, &f.rgba, TOLERANCE);
            if !bless {
                assert_eq!(
                    recorded.get(&key),
                    Some(&sum),
                    "{key}: checksum (re-bless with SOFTHAL_BLESS=1 if the pipeline changed on purpose)"
                );
            }
            sums.insert(key, sum);
        }
    }
    if bless {
        let mut out = String::from("# FNV-1a 64 of the RGBA8 bytes of each replayed image (softhal render prints the same)\n");
        for (k, v) in &sums {
            out.push_str(&format!("{k} {v}\n"));
        }
        std::fs::write(sums_path, out).unwrap();
    }
}

/// The golden of the `i`-th (0-based) image of its kind: the capture's
/// name, then the file name `softhal render` gives the image, without
/// `.png`.
fn golden_key(name: &str, f: &softhal_capture::Frame, i: usize) -> String {
    let file = f.kind.file_name(i + 1);
    format!("{name}-{}", file.trim_end_matches(".png"))
}
