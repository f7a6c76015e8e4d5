//! `softhal compare`: how two images, or two folders of replayed images,
//! differ.
//!
//! In: two PNGs, or two folders whose PNGs are paired by file name (a
//! replay's `frame-0001.png` … from two builds, or a replay and its
//! goldens); a tolerance. Out: per image and per channel (R, G, B, A) the
//! count of pixels whose channel differs by more than the tolerance, the
//! largest difference and the PSNR; the images present on one side only;
//! optionally a difference image per differing pair (`--diff DIR`); text
//! or one JSON object on stdout. Pixels are compared, not files: two
//! encodings of the same pixels are identical. Exit codes: 0 every pair
//! within the tolerance, 1 a pixel beyond it, a size that differs or an
//! image missing on one side, 2 usage or I/O error (a PNG that cannot be
//! read included).
//!
//! The same comparison ([`compare`]) tells `softhal render --check
//! --against DIR` where a replayed frame differs from its golden.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `compare`.
#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// The reference: a PNG or a folder of PNGs.
    pub a: PathBuf,
    /// The image(s) compared with it: a PNG, or a folder (paired with A's
    /// PNGs by file name).
    pub b: PathBuf,
    /// Largest per-channel difference that still counts as equal (0 to
    /// 255).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub tolerance: u8,
    /// Write a difference image for each pair that differs into DIR
    /// (created if missing), named after the image: pixels beyond the
    /// tolerance in red, the others as A's luminance at a quarter of its
    /// brightness.
    #[arg(long, value_name = "DIR")]
    pub diff: Option<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

/// An RGBA8 image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Tightly packed RGBA8.
    pub rgba: Vec<u8>,
}

/// Reads a PNG of any colour type and bit depth as RGBA8 (16-bit samples
/// keep their high byte, grey is copied to R, G and B, a missing alpha is
/// 255).
pub fn read_png(path: &Path) -> Result<Image, String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let file = std::fs::File::open(path).map_err(|e| err(&e))?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(|e| err(&e))?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| err(&"image too large"))?;
    let mut buf = vec![0; size];
    let info = reader.next_frame(&mut buf).map_err(|e| err(&e))?;
    buf.truncate(info.buffer_size());
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|c| [c[0], c[1], c[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => buf
            .chunks_exact(2)
            .flat_map(|c| [c[0], c[0], c[0], c[1]])
            .collect(),
        png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => return Err(err(&"palette not expanded")),
    };
    Ok(Image {
        width: info.width,
        height: info.height,
        rgba,
    })
}

/// Writes an RGBA8 image as a PNG ([`write_rgba_png`]).
pub fn write_png(path: &Path, img: &Image) -> Result<(), String> {
    write_rgba_png(path, img.width, img.height, &img.rgba)
}

/// Writes tightly packed RGBA8 pixels as a PNG file with the pipeline's
/// one encoder: every PNG file the command line writes goes through here.
pub fn write_rgba_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let bytes = softhal_pipeline::encode_png_rgba8(width, height, rgba).map_err(|e| err(&e))?;
    std::fs::write(path, bytes).map_err(|e| err(&e))
}

/// One channel's differences over an image.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Channel {
    /// Pixels whose channel differs by more than the tolerance.
    pub differing: u64,
    /// The largest difference (whatever the tolerance).
    pub max: u8,
    /// Sum of the squared differences.
    pub sum_sq: u64,
}

/// PSNR in dB of a sum of squared 8-bit differences over `samples`
/// samples: `10·log10(255² / MSE)`; `None` (infinite) when identical.
pub fn psnr(sum_sq: u64, samples: u64) -> Option<f64> {
    if sum_sq == 0 || samples == 0 {
        return None;
    }
    let mse = sum_sq as f64 / samples as f64;
    Some(10.0 * (255.0f64 * 255.0 / mse).log10())
}

/// How image B differs from image A.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// A's size.
    pub size_a: (u32, u32),
    /// B's size.
    pub size_b: (u32, u32),
    /// R, G, B, A (all zero when the sizes differ: nothing is compared).
    pub channels: [Channel; 4],
    /// Pixels with any channel beyond the tolerance.
    pub differing: u64,
}

impl Comparison {
    /// The sizes differ or some pixel is beyond the tolerance.
    pub fn differs(&self) -> bool {
        self.size_a != self.size_b || self.differing > 0
    }

    fn pixels(&self) -> u64 {
        u64::from(self.size_a.0) * u64::from(self.size_a.1)
    }

    /// The PSNR of all four channels together (`None`: identical).
    pub fn psnr(&self) -> Option<f64> {
        let sum = self.channels.iter().map(|c| c.sum_sq).sum();
        psnr(sum, self.pixels() * 4)
    }

    /// The JSON of one comparison (`psnr: null` means identical, infinite).
    pub fn to_json(&self) -> Value {
        let channels: serde_json::Map<String, Value> = ["r", "g", "b", "a"]
            .iter()
            .zip(&self.channels)
            .map(|(name, c)| {
                (
                    (*name).to_string(),
                    json!({
                        "differing": c.differing,
                        "max": c.max,
                        "psnr": psnr(c.sum_sq, self.pixels()),
                    }),
                )
            })
            .collect();
        json!({
            "identical": !self.differs(),
            "size_a": [self.size_a.0, self.size_a.1],
            "size_b": [self.size_b.0, self.size_b.1],
            "pixels": self.pixels(),
            "differing": self.differing,
            "max": self.channels.iter().map(|c| c.max).max().unwrap_or(0),
            "psnr": self.psnr(),
            "channels": channels,
        })
    }

    /// One line: `identical`, the size mismatch, or the counts per channel.
    pub fn summary(&self) -> String {
        if self.size_a != self.size_b {
            return format!(
                "sizes differ: {}x{} and {}x{}",
                self.size_a.0, self.size_a.1, self.size_b.0, self.size_b.1
            );
        }
        let db = |p: Option<f64>| p.map_or("inf".to_string(), |p| format!("{p:.2} dB"));
        let per: Vec<String> = ["R", "G", "B", "A"]
            .iter()
            .zip(&self.channels)
            .map(|(n, c)| {
                format!(
                    "{n} {} px max {} PSNR {}",
                    c.differing,
                    c.max,
                    db(psnr(c.sum_sq, self.pixels()))
                )
            })
            .collect();
        let head = if self.differs() {
            format!("{} of {} pixel(s) differ", self.differing, self.pixels())
        } else {
            "identical".to_string()
        };
        format!("{head}; {}; PSNR {}", per.join(", "), db(self.psnr()))
    }
}

/// Compares B with A, pixel by pixel: a channel differs when its values
/// are more than `tolerance` apart.
pub fn compare(a: &Image, b: &Image, tolerance: u8) -> Comparison {
    let mut c = Comparison {
        size_a: (a.width, a.height),
        size_b: (b.width, b.height),
        channels: [Channel::default(); 4],
        differing: 0,
    };
    if c.size_a != c.size_b {
        return c;
    }
    for (pa, pb) in a.rgba.chunks_exact(4).zip(b.rgba.chunks_exact(4)) {
        let mut any = false;
        for ((ch, x), y) in c.channels.iter_mut().zip(pa).zip(pb) {
            let d = x.abs_diff(*y);
            ch.max = ch.max.max(d);
            ch.sum_sq += u64::from(d) * u64::from(d);
            if d > tolerance {
                ch.differing += 1;
                any = true;
            }
        }
        c.differing += u64::from(any);
    }
    c
}

/// The difference image of two images of one size: pixels with a channel
/// beyond `tolerance` are opaque red, the others A's luminance
/// (`(R·77 + G·150 + B·29) / 256 / 4`) as opaque grey.
pub fn diff_image(a: &Image, b: &Image, tolerance: u8) -> Image {
    let rgba = a
        .rgba
        .chunks_exact(4)
        .zip(b.rgba.chunks_exact(4))
        .flat_map(|(pa, pb)| {
            if pa.iter().zip(pb).any(|(x, y)| x.abs_diff(*y) > tolerance) {
                [255, 0, 0, 255]
            } else {
                let l = (u32::from(pa[0]) * 77 + u32::from(pa[1]) * 150 + u32::from(pa[2]) * 29)
                    / 256
                    / 4;
                let l = l as u8;
                [l, l, l, 255]
            }
        })
        .collect();
    Image {
        width: a.width,
        height: a.height,
        rgba,
    }
}

/// The PNG file names in a folder, sorted.
fn pngs(dir: &Path) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries {
        let e = e.map_err(|e| format!("{}: {e}", dir.display()))?;
        let name = e.file_name().to_string_lossy().to_string();
        if name.to_ascii_lowercase().ends_with(".png") && e.path().is_file() {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// `softhal compare A B`.
pub fn run(args: &CompareArgs) -> ExitCode {
    let io = |m: String| crate::fail(args.json, 2, "io", &m, Value::Null);
    let (a_dir, b_dir) = (args.a.is_dir(), args.b.is_dir());
    if a_dir != b_dir {
        let m = format!(
            "compare two PNGs or two folders: {} is {}, {} is {}",
            args.a.display(),
            if a_dir { "a folder" } else { "not a folder" },
            args.b.display(),
            if b_dir { "a folder" } else { "not a folder" },
        );
        return crate::fail(args.json, 2, "usage", &m, Value::Null);
    }
    // (name shown, A's path, B's path) of each pair; names on one side only.
    let mut pairs: Vec<(String, PathBuf, PathBuf)> = Vec::new();
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    if a_dir {
        let (na, nb) = match (pngs(&args.a), pngs(&args.b)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => return io(format!("cannot read {e}")),
        };
        for n in &na {
            if nb.contains(n) {
                pairs.push((n.clone(), args.a.join(n), args.b.join(n)));
            } else {
                only_a.push(n.clone());
            }
        }
        only_b.extend(nb.into_iter().filter(|n| !na.contains(n)));
    } else {
        let name = args
            .b
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().to_string());
        pairs.push((name, args.a.clone(), args.b.clone()));
    }
    if let Some(d) = &args.diff {
        if let Err(e) = std::fs::create_dir_all(d) {
            return io(format!("cannot create {}: {e}", d.display()));
        }
    }
    let mut results = Vec::new();
    let mut differ = 0usize;
    for (name, pa, pb) in &pairs {
        let (a, b) = match (read_png(pa), read_png(pb)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => return io(format!("cannot read {e}")),
        };
        let c = compare(&a, &b, args.tolerance);
        let mut diff_path = None;
        if c.differs() {
            differ += 1;
            if let (Some(dir), true) = (&args.diff, c.size_a == c.size_b) {
                let p = dir.join(name);
                if let Err(e) = write_png(&p, &diff_image(&a, &b, args.tolerance)) {
                    return io(format!("cannot write {e}"));
                }
                diff_path = Some(p.display().to_string());
            }
        }
        if !args.json {
            println!("{name}: {}", c.summary());
        }
        let mut v = c.to_json();
        if let Value::Object(m) = &mut v {
            m.insert("name".into(), json!(name));
            m.insert("diff".into(), json!(diff_path));
        }
        results.push(v);
    }
    let missing = only_a.len() + only_b.len();
    let ok = differ == 0 && missing == 0;
    if args.json {
        println!(
            "{}",
            json!({
                "ok": ok,
                "tolerance": args.tolerance,
                "compared": pairs.len(),
                "differing": differ,
                "images": results,
                "only_in_a": only_a,
                "only_in_b": only_b,
            })
        );
    } else {
        for n in &only_a {
            println!("{n}: only in {}", args.a.display());
        }
        for n in &only_b {
            println!("{n}: only in {}", args.b.display());
        }
        println!(
            "{} image(s) compared, {differ} differ beyond tolerance {}, {missing} missing on one side",
            pairs.len(),
            args.tolerance
        );
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn img(w: u32, h: u32, rgba: &[u8]) -> Image {
        Image {
            width: w,
            height: h,
            rgba: rgba.to_vec(),
        }
    }

    /// A 2×2 image whose pixel 1 has green off by 3 (tolerance 0): one
    /// pixel differs, max 3; green's MSE over 4 pixels is 9/4 = 2.25, so
    /// PSNR(G) = 10·log10(65025 / 2.25) = 10·log10(28900) = 44.6090 dB;
    /// over all 16 samples MSE = 9/16 = 0.5625, PSNR = 10·log10(115600) =
    /// 50.6296 dB.
    #[test]
    fn one_channel_off_by_3_in_a_2x2_image() {
        let a = img(
            2,
            2,
            &[10, 20, 30, 255, 40, 50, 60, 255, 0, 0, 0, 255, 9, 9, 9, 9],
        );
        let mut b = a.clone();
        b.rgba[5] = 53;
        let c = compare(&a, &b, 0);
        assert!(c.differs());
        assert_eq!(c.differing, 1);
        assert_eq!(c.channels[1].differing, 1);
        assert_eq!(c.channels[1].max, 3);
        assert_eq!(c.channels[1].sum_sq, 9);
        for i in [0, 2, 3] {
            assert_eq!(c.channels[i], Channel::default());
        }
        let g = psnr(c.channels[1].sum_sq, 4).unwrap();
        assert!((g - 44.6090).abs() < 1e-4, "{g}");
        let all = c.psnr().unwrap();
        assert!((all - 50.6296).abs() < 1e-4, "{all}");
        // Within a tolerance of 3 the images are equal, and the max is
        // still reported.
        let c = compare(&a, &b, 3);
        assert!(!c.differs());
        assert_eq!(c.channels[1].max, 3);
        // The difference image: pixel 1 red, pixel 0 A's luminance / 4:
        // (10·77 + 20·150 + 30·29) / 256 = 4640 / 256 = 18, / 4 = 4.
        let d = diff_image(&a, &b, 0);
        assert_eq!(&d.rgba[0..8], &[4, 4, 4, 255, 255, 0, 0, 255]);
        // Pixel 3 (9, 9, 9): 9·256 / 256 = 9, / 4 = 2.
        assert_eq!(&d.rgba[12..16], &[2, 2, 2, 255]);
    }

    #[test]
    fn identical_images_have_infinite_psnr_and_sizes_must_match() {
        let a = img(1, 1, &[1, 2, 3, 4]);
        let c = compare(&a, &a, 0);
        assert!(!c.differs());
        assert_eq!(c.psnr(), None);
        assert!(c.summary().starts_with("identical"));
        let b = img(1, 2, &[1, 2, 3, 4, 5, 6, 7, 8]);
        let c = compare(&a, &b, 255);
        assert!(c.differs());
        assert_eq!(c.summary(), "sizes differ: 1x1 and 1x2");
    }
}
