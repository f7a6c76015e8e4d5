//! # softhal-testkit: golden files, the test-data generator (and small shared checks) for softhal's test suites
//!
//! In: what a test produced (RGBA8 pixels, or text) and the path of its
//! golden file under `testdata/`. Out: nothing when they match; a panic that
//! says where and by how much they differ otherwise, after writing the
//! actual image and a difference image next to the golden (`*.actual.png`,
//! `*.diff.png`, both git-ignored) so a person can look at them.
//!
//! Rules shared by every suite:
//! - Images compare per channel with a stated tolerance (0 = exact, for
//!   integer paths; a small number for float paths, stated by the test).
//! - A missing golden is a failure. `SOFTHAL_BLESS=1` (re)writes goldens
//!   instead of comparing; look at every blessed image before committing it.
//!
//! Dev-only: no product crate depends on it.

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

/// True when the run should (re)write goldens instead of comparing.
pub fn blessing() -> bool {
    std::env::var("SOFTHAL_BLESS").is_ok_and(|v| v == "1")
}

/// The repository's `testdata/` directory.
pub fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

/// Reads an 8-bit RGBA (or RGB, expanded) PNG.
pub fn read_png(path: &Path) -> Result<(u32, u32, Vec<u8>), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder
        .read_info()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let size = reader.output_buffer_size().ok_or("PNG too large")?;
    let mut buf = vec![0; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    buf.truncate(info.buffer_size());
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks(3)
            .flat_map(|c| [c[0], c[1], c[2], 255])
            .collect(),
        other => {
            return Err(format!(
                "{}: unsupported PNG colour type {other:?}",
                path.display()
            ))
        }
    };
    Ok((info.width, info.height, rgba))
}

/// Writes 8-bit RGBA pixels as a PNG.
pub fn write_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(|e| e.to_string())?;
    w.write_image_data(rgba).map_err(|e| e.to_string())
}

/// How two images differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImageDiff {
    /// Largest per-channel difference.
    pub max_channel_diff: u8,
    /// Pixels with any channel beyond the tolerance.
    pub pixels_over: usize,
}

/// Compares two RGBA8 images of the same size.
pub fn diff_rgba(expected: &[u8], actual: &[u8], tolerance: u8) -> ImageDiff {
    let mut d = ImageDiff::default();
    for (e, a) in expected.chunks(4).zip(actual.chunks(4)) {
        let worst = e
            .iter()
            .zip(a)
            .map(|(x, y)| x.abs_diff(*y))
            .max()
            .unwrap_or(0);
        d.max_channel_diff = d.max_channel_diff.max(worst);
        if worst > tolerance {
            d.pixels_over += 1;
        }
    }
    d
}

/// Compares RGBA8 pixels with the golden PNG at `golden` (per-channel
/// `tolerance`), or writes it when blessing. Panics with a clear message on
/// a difference, after writing `*.actual.png` and `*.diff.png` beside it.
pub fn check_golden_rgba(golden: &Path, width: u32, height: u32, rgba: &[u8], tolerance: u8) {
    assert_eq!(
        rgba.len(),
        width as usize * height as usize * 4,
        "image size"
    );
    if blessing() {
        write_png(golden, width, height, rgba).unwrap_or_else(|e| panic!("bless: {e}"));
        return;
    }
    let (w, h, expected) = read_png(golden).unwrap_or_else(|e| {
        panic!("missing golden ({e}); run with SOFTHAL_BLESS=1 and look at the image")
    });
    let actual_path = golden.with_extension("actual.png");
    if (w, h) != (width, height) {
        let _ = write_png(&actual_path, width, height, rgba);
        panic!(
            "{}: golden is {w}x{h}, actual {width}x{height} (written to {})",
            golden.display(),
            actual_path.display()
        );
    }
    let d = diff_rgba(&expected, rgba, tolerance);
    if d.pixels_over > 0 {
        let _ = write_png(&actual_path, width, height, rgba);
        let diff: Vec<u8> = expected
            .chunks(4)
            .zip(rgba.chunks(4))
            .flat_map(|(e, a)| {
                let worst = e
                    .iter()
                    .zip(a)
                    .map(|(x, y)| x.abs_diff(*y))
                    .max()
                    .unwrap_or(0);
                if worst > tolerance {
                    [255, 0, 255, 255]
                } else {
                    [e[0] / 4, e[1] / 4, e[2] / 4, 255]
                }
            })
            .collect();
        let diff_path = golden.with_extension("diff.png");
        let _ = write_png(&diff_path, width, height, &diff);
        panic!(
            "{}: {} pixel(s) differ by more than {tolerance} per channel (worst {}); see {} and {}; \
             if the change is intended, rerun with SOFTHAL_BLESS=1 and look at the image",
            golden.display(),
            d.pixels_over,
            d.max_channel_diff,
            actual_path.display(),
            diff_path.display()
        );
    }
}

/// Compares text with a golden file, or writes it when blessing.
pub fn check_golden_text(golden: &Path, actual: &str) {
    if blessing() {
        std::fs::write(golden, actual)
            .unwrap_or_else(|e| panic!("bless {}: {e}", golden.display()));
        return;
    }
    let expected = std::fs::read_to_string(golden).unwrap_or_else(|e| {
        panic!(
            "missing golden {} ({e}); run with SOFTHAL_BLESS=1",
            golden.display()
        )
    });
    if expected != actual {
        let at = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .map_or_else(
                || "the line counts differ".to_string(),
                |i| format!("first difference at line {}", i + 1),
            );
        panic!(
            "{} does not match ({at}); inspect and re-bless with SOFTHAL_BLESS=1",
            golden.display()
        );
    }
}

/// The deterministic generator of every suite's random test data:
/// splitmix64 (Steele, Lea and Flood), seeded with the tuple field. Its
/// sequences are fixed forever: goldens and checksums depend on them.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    #[allow(clippy::should_implement_trait)] // not an Iterator: never ends
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Below `n` (`next() % n`; 0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// `n` random bytes (the low byte of one `next()` each).
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }

    /// The low 16 bits of `next()`.
    pub fn u16(&mut self) -> u16 {
        self.next() as u16
    }

    /// Uniform in [0, 1): the top 24 bits of `next()`.
    pub fn f(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// An opaque D3DCOLOR: the top 32 bits of `next()` with alpha 0xFF.
    pub fn color(&mut self) -> u32 {
        (self.next() >> 32) as u32 | 0xFF00_0000
    }
}

/// Checks an error type's `examples()`: exactly one example of each of its
/// `count` kinds (`strum::EnumCount::COUNT`), with distinct stable names.
pub fn check_one_example_per_kind<E>(examples: &[E], name: fn(&E) -> &'static str, count: usize) {
    let names: std::collections::BTreeSet<&str> = examples.iter().map(name).collect();
    assert_eq!(examples.len(), count, "examples: one per kind");
    assert_eq!(
        names.len(),
        count,
        "kind names: distinct, one per kind: {names:?}"
    );
}

/// The D3D enum tables' check: every `v` in `values` that `from` (a
/// `from_d3d`) accepts maps back to itself through `to` (the matching
/// `d3d`), and `from(to(x))` is `x` again; returns how many were accepted
/// (so a test also pins the table's size).
pub fn round_trip<T: Copy + PartialEq + std::fmt::Debug>(
    from: fn(u32) -> Option<T>,
    to: fn(T) -> u32,
    values: impl IntoIterator<Item = u32>,
) -> usize {
    let mut n = 0;
    for v in values {
        if let Some(x) = from(v) {
            assert_eq!(to(x), v, "{x:?}");
            assert_eq!(from(to(x)), Some(x));
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_counts_pixels_beyond_the_tolerance() {
        let a = [10, 20, 30, 255, 0, 0, 0, 255];
        let b = [12, 20, 30, 255, 0, 9, 0, 255];
        assert_eq!(
            diff_rgba(&a, &b, 2),
            ImageDiff {
                max_channel_diff: 9,
                pixels_over: 1
            }
        );
        assert_eq!(diff_rgba(&a, &b, 9).pixels_over, 0);
    }

    #[test]
    fn rng_is_splitmix64() {
        // The first outputs of splitmix64 seeded with 0 (the reference
        // implementation's published sequence).
        let mut r = Rng(0);
        assert_eq!(r.next(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn png_round_trip() {
        let p = std::env::temp_dir().join(format!("softhal-testkit-{}.png", std::process::id()));
        let px = [1, 2, 3, 4, 250, 251, 252, 253];
        write_png(&p, 2, 1, &px).unwrap();
        assert_eq!(read_png(&p).unwrap(), (2, 1, px.to_vec()));
    }
}
