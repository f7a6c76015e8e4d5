//! `softhal compare` and `softhal render`'s selection options as a user
//! runs them: small PNGs made here with numbers worked out by hand, and the
//! example captures of `testdata/captures/` with their recorded checksums.

use std::path::Path;
use std::process::Output;

mod common;
use common::{repo, softhal, tmp};

fn json(o: &Output) -> serde_json::Value {
    let out = String::from_utf8_lossy(&o.stdout);
    serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("{e}: {out}{}", String::from_utf8_lossy(&o.stderr)))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The 2×2 image of the hand-worked example.
const A: [u8; 16] = [10, 20, 30, 255, 40, 50, 60, 255, 0, 0, 0, 255, 9, 9, 9, 9];

/// Writes `rgb` (no alpha) as an RGB PNG: another encoding of the same
/// opaque pixels.
fn write_rgb_png(path: &Path, w: u32, h: u32, rgb: &[u8]) {
    let file = std::fs::File::create(path).unwrap();
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Fastest);
    let mut wr = enc.write_header().unwrap();
    wr.write_image_data(rgb).unwrap();
}

/// One channel off by 3 in one pixel of a 2×2 image: 1 differing pixel,
/// max 3; green's MSE = 3² / 4 = 2.25, PSNR = 10·log10(255² / 2.25) =
/// 44.6090 dB; over all 16 samples MSE = 9 / 16, PSNR = 50.6296 dB.
#[test]
fn compare_two_pngs_reports_counts_max_and_psnr_per_channel() {
    let a = tmp("a.png");
    let b = tmp("b.png");
    softhal_testkit::write_png(&a, 2, 2, &A).unwrap();
    let mut px = A;
    px[5] = 53;
    softhal_testkit::write_png(&b, 2, 2, &px).unwrap();
    let diffs = tmp("diffs");
    let o = softhal(&["compare", s(&a), s(&b), "--json", "--diff", s(&diffs)]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["ok"], false);
    assert_eq!(v["differing"], 1);
    let img = &v["images"][0];
    assert_eq!(img["identical"], false);
    assert_eq!(img["pixels"], 4);
    assert_eq!(img["differing"], 1);
    assert_eq!(img["max"], 3);
    let g = &img["channels"]["g"];
    assert_eq!(g["differing"], 1);
    assert_eq!(g["max"], 3);
    assert!((g["psnr"].as_f64().unwrap() - 44.6090).abs() < 1e-4, "{g}");
    assert!((img["psnr"].as_f64().unwrap() - 50.6296).abs() < 1e-4);
    for c in ["r", "b", "a"] {
        assert_eq!(img["channels"][c]["differing"], 0, "{c}");
        assert_eq!(img["channels"][c]["max"], 0, "{c}");
        assert!(img["channels"][c]["psnr"].is_null(), "{c}");
    }
    // The difference image: pixel 1 red, the others A's luminance / 4:
    // (10·77 + 20·150 + 30·29) / 256 / 4 = 4, 0, and 9 / 4 = 2.
    let (w, h, d) = softhal_testkit::read_png(&diffs.join("b.png")).unwrap();
    assert_eq!((w, h), (2, 2));
    assert_eq!(
        d,
        [4, 4, 4, 255, 255, 0, 0, 255, 0, 0, 0, 255, 2, 2, 2, 255]
    );
    // Text output says the same.
    let o = softhal(&["compare", s(&a), s(&b)]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("1 of 4 pixel(s) differ"), "{out}");
    assert!(out.contains("G 1 px max 3 PSNR 44.61 dB"), "{out}");
    // Within tolerance 3: equal (exit 0), the max still reported.
    let o = softhal(&["compare", s(&a), s(&b), "--tolerance", "3", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    assert_eq!(v["ok"], true);
    assert_eq!(v["images"][0]["max"], 3);
}

#[test]
fn another_encoding_of_the_same_pixels_is_identical() {
    let a = tmp("rgba.png");
    let b = tmp("rgb.png");
    let opaque: Vec<u8> = [1u8, 2, 3, 250, 251, 252].to_vec();
    let rgba: Vec<u8> = opaque
        .chunks(3)
        .flat_map(|c| [c[0], c[1], c[2], 255])
        .collect();
    softhal_testkit::write_png(&a, 2, 1, &rgba).unwrap();
    write_rgb_png(&b, 2, 1, &opaque);
    assert_ne!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let o = softhal(&["compare", s(&a), s(&b), "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    assert_eq!(v["ok"], true);
    assert_eq!(v["images"][0]["identical"], true);
    assert!(v["images"][0]["psnr"].is_null());
    // Sizes that differ: exit 1, whatever the tolerance.
    let c = tmp("one.png");
    softhal_testkit::write_png(&c, 1, 1, &[1, 2, 3, 255]).unwrap();
    let o = softhal(&["compare", s(&a), s(&c), "--tolerance", "255", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(json(&o)["images"][0]["size_b"], serde_json::json!([1, 1]));
}

#[test]
fn compare_folders_pairs_by_name_and_reports_missing_images() {
    let a = tmp("a");
    let b = tmp("b");
    softhal_testkit::write_png(&a.join("frame-0001.png"), 2, 2, &A).unwrap();
    softhal_testkit::write_png(&b.join("frame-0001.png"), 2, 2, &A).unwrap();
    softhal_testkit::write_png(&a.join("frame-0002.png"), 2, 2, &A).unwrap();
    softhal_testkit::write_png(&b.join("final-0001.png"), 2, 2, &A).unwrap();
    let o = softhal(&["compare", s(&a), s(&b), "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["ok"], false);
    assert_eq!(v["compared"], 1);
    assert_eq!(v["differing"], 0);
    assert_eq!(v["only_in_a"], serde_json::json!(["frame-0002.png"]));
    assert_eq!(v["only_in_b"], serde_json::json!(["final-0001.png"]));
    // The same pairs without the strays: exit 0.
    std::fs::remove_file(a.join("frame-0002.png")).unwrap();
    std::fs::remove_file(b.join("final-0001.png")).unwrap();
    let o = softhal(&["compare", s(&a), s(&b)]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn compare_usage_and_io_errors_exit_2_with_the_json_error_shape() {
    let a = tmp("x.png");
    softhal_testkit::write_png(&a, 1, 1, &[0, 0, 0, 255]).unwrap();
    let not_png = tmp("not.png");
    std::fs::write(&not_png, b"hello").unwrap();
    for (b, kind) in [
        ("/nonexistent/y.png", "io"),
        (s(&not_png), "io"),
        (a.parent().unwrap().to_str().unwrap(), "usage"),
    ] {
        let o = softhal(&["compare", s(&a), b, "--json"]);
        assert_eq!(o.status.code(), Some(2), "{b}");
        let v = json(&o);
        assert_eq!(v["ok"], false, "{b}");
        assert_eq!(v["error"]["kind"], kind, "{b}: {v}");
        assert!(v["error"]["message"].as_str().unwrap().len() > 5);
    }
    let o = softhal(&["compare", s(&a), s(&a), "--tolerance", "256", "--json"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(json(&o)["error"]["kind"], "usage");
}

/// The recorded checksum of `name` (`flip-and-locks-frame-0002`).
fn golden_checksum(name: &str) -> String {
    let t = std::fs::read_to_string(repo("testdata/goldens/captures/checksums.txt")).unwrap();
    t.lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .unwrap()
        .to_string()
}

fn names(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    n.sort();
    n
}

/// flip-and-locks: DrawPrimitives2 call 1 draws frame 1 (presented at
/// record 8), call 2 is refused (a flip is pending) and call 3 draws
/// frame 2.
#[test]
fn render_every_draw_writes_one_snapshot_per_draw_call_named_by_frame_and_call() {
    let cap = repo("testdata/captures/flip-and-locks.shcap.txt");
    let out = tmp("every");
    let o = softhal(&["render", &cap, "-o", s(&out), "--every-draw", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        names(&out),
        [
            "draw-0001-0001.png",
            "draw-0002-0002.png",
            "draw-0002-0003.png",
            "final-0001.png",
            "frame-0001.png",
            "frame-0002.png"
        ]
    );
    let v = json(&o);
    let draws: Vec<&serde_json::Value> = v["images"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "draw")
        .collect();
    assert_eq!(draws.len(), 3);
    assert_eq!(
        (draws[2]["frame"].as_u64(), draws[2]["call"].as_u64()),
        (Some(2), Some(3))
    );
    // After the call that drew frame 1 the target holds frame 1; after
    // the last call, frame 2.
    assert_eq!(
        draws[0]["checksum"],
        golden_checksum("flip-and-locks-frame-0001")
    );
    assert_eq!(
        draws[2]["checksum"],
        golden_checksum("flip-and-locks-frame-0002")
    );

    // --calls 3 alone: one snapshot; --frames 1 --every-draw: frame 1's
    // image and its one call.
    let out = tmp("calls");
    let o = softhal(&["render", &cap, "-o", s(&out), "--calls", "3", "--quiet"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        names(&out),
        [
            "draw-0002-0003.png",
            "final-0001.png",
            "frame-0001.png",
            "frame-0002.png"
        ]
    );
    let out = tmp("frames");
    let o = softhal(&[
        "render",
        &cap,
        "-o",
        s(&out),
        "--frames",
        "1..1",
        "--every-draw",
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        names(&out),
        ["draw-0001-0001.png", "final-0001.png", "frame-0001.png"]
    );
}

#[test]
fn render_checksums_only_writes_nothing_and_reports_the_recorded_checksums() {
    let cap = repo("testdata/captures/flip-and-locks.shcap.txt");
    let out = tmp("never-created");
    let o = softhal(&[
        "render",
        &cap,
        "-o",
        s(&out),
        "--checksums-only",
        "--frames",
        "2..",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!out.exists());
    let v = json(&o);
    let images = v["images"].as_array().unwrap();
    assert_eq!(images.len(), 2);
    assert_eq!(images[0]["kind"], "frame");
    assert_eq!(images[0]["index"], 2);
    assert!(images[0]["png"].is_null());
    assert_eq!(
        images[0]["checksum"],
        golden_checksum("flip-and-locks-frame-0002")
    );
    assert_eq!(images[1]["kind"], "final");
    assert_eq!(
        images[1]["checksum"],
        golden_checksum("flip-and-locks-final-0001")
    );
    // Text: one line per image with its checksum and no file.
    let o = softhal(&["render", &cap, "--checksums-only"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(&format!(
            "frame 1: record 8 surface 0x1 48x32 fnv1a64={}\n",
            golden_checksum("flip-and-locks-frame-0001")
        )),
        "{text}"
    );
    // Ranges that are empty or start at 0 are usage errors.
    for r in ["0..2", "3..2", "x", ""] {
        let o = softhal(&["render", &cap, "--checksums-only", "--frames", r, "--json"]);
        assert_eq!(o.status.code(), Some(2), "{r}");
        assert_eq!(json(&o)["error"]["kind"], "usage", "{r}");
    }
}

/// `--check` says which frame a checksum difference is about, and with
/// `--against` how its pixels differ from the golden, per channel.
#[test]
fn render_check_names_the_frame_and_compares_with_the_goldens() {
    let cap = repo("testdata/captures/gouraud-strip.shcap.txt");
    let goldens = repo("testdata/goldens/captures");
    let out = tmp("ok");
    let o = softhal(&[
        "render",
        &cap,
        "-o",
        s(&out),
        "--check",
        "--against",
        &goldens,
        "--json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v = json(&o);
    assert_eq!(v["golden_differences"], serde_json::json!([]));
    assert_eq!(v["images"][0]["against"]["identical"], true);

    // A golden folder whose frame has one pixel's red channel off by 40.
    let (w, h, mut px) = softhal_testkit::read_png(Path::new(&format!(
        "{goldens}/gouraud-strip-frame-0001.png"
    )))
    .unwrap();
    px[0] = if px[0] >= 128 { px[0] - 40 } else { px[0] + 40 };
    let bad = tmp("goldens");
    softhal_testkit::write_png(&bad.join("frame-0001.png"), w, h, &px).unwrap();
    // And a capture whose recorded frame checksum is wrong.
    let src = std::fs::read_to_string(&cap).unwrap();
    assert!(src.contains("present 0x1\n"));
    let tampered = tmp("gouraud-strip.shcap.txt");
    let wrong = "present 0x1\nexpect ddrval=D3D_OK checksum=0x0123456789abcdef\n";
    std::fs::write(&tampered, src.replace("present 0x1\n", wrong)).unwrap();
    let o = softhal(&[
        "render",
        s(&tampered),
        "-o",
        s(&tmp("bad")),
        "--check",
        "--against",
        s(&bad),
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    let d = &v["differences"][0];
    assert_eq!(d["frame"], 1, "{v}");
    assert!(d["detail"].as_str().unwrap().contains("frame checksum"));
    let g = &v["golden_differences"][0];
    assert_eq!(g["differing"], 1, "{g}");
    assert_eq!(g["channels"]["r"]["differing"], 1);
    assert_eq!(g["channels"]["r"]["max"], 40);
    assert_eq!(g["channels"]["g"]["max"], 0);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("frame 1)"), "{err}");
    assert!(err.contains("frame-0001.png differs from"), "{err}");
    // --against needs --check.
    let o = softhal(&["render", &cap, "--against", &goldens]);
    assert_eq!(o.status.code(), Some(2));
}
