//! `softhal demo` as a newcomer runs it: it renders without error, writes a
//! PNG, and the picture matches the checked-in golden (per-channel
//! tolerance 0: the pipeline is deterministic at every thread count and
//! SIMD level, so any change is a real change to look at).

use std::process::Command;

#[test]
fn the_demo_renders_its_golden_picture_at_1_and_2_threads() {
    let golden = softhal_testkit::testdata().join("goldens/demo/demo-320x240.png");
    for threads in ["1", "2"] {
        let out =
            std::env::temp_dir().join(format!("softhal-demo-{}-{threads}.png", std::process::id()));
        let o = Command::new(env!("CARGO_BIN_EXE_softhal"))
            .args([
                "demo",
                "--width",
                "320",
                "--height",
                "240",
                "--threads",
                threads,
                "-o",
            ])
            .arg(&out)
            .output()
            .expect("run softhal demo");
        assert!(
            o.status.success(),
            "demo failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let (w, h, rgba) = softhal_testkit::read_png(&out).expect("demo PNG");
        softhal_testkit::check_golden_rgba(&golden, w, h, &rgba, 0);
    }
}
