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

/// A thread count above `softhal_pipeline::limits::MAX_THREADS` (256) is a
/// usage error for every verb that takes `--threads`: exit 2 with a
/// message naming the limit, before any thread is spawned or file written
/// (before the limit, `demo --threads 100000` tried to spawn them all).
#[test]
fn thread_counts_above_the_limit_are_usage_errors() {
    let out = std::env::temp_dir().join(format!("softhal-demo-threads-{}.png", std::process::id()));
    let capture = softhal_testkit::testdata().join("captures/gouraud-strip.shcap.txt");
    let runs: [Vec<std::ffi::OsString>; 4] = [
        vec!["demo".into(), "-o".into(), out.clone().into()],
        vec![
            "render".into(),
            capture.into(),
            "-o".into(),
            std::env::temp_dir().into(),
        ],
        vec!["bench".into(), "--workload".into(), "W1".into()],
        vec!["soak".into()],
    ];
    for args in runs {
        for threads in ["100000", "257", "4294967295"] {
            let o = Command::new(env!("CARGO_BIN_EXE_softhal"))
                .args(&args)
                .args(["--threads", threads])
                .output()
                .expect("run softhal");
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{args:?} {threads}: {err}");
            assert!(err.contains("from 0 to 256"), "{args:?} {threads}: {err}");
        }
    }
    assert!(!out.exists());
}

/// `softhal demo --capture` records the scene; `softhal render` replays it
/// to the pixels of the demo's own PNG (and of its golden), and the
/// capture shipped as `testdata/samples/demo.shcap` is that recording
/// (`--check`: its recorded frame checksum too).
#[test]
fn the_demo_capture_replays_to_the_demo_picture() {
    let dir = std::env::temp_dir().join(format!("softhal-demo-capture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("demo.png");
    let cap = dir.join("demo.shcap");
    let out = dir.join("replay");
    let run = |args: &[&std::ffi::OsStr]| {
        let o = Command::new(env!("CARGO_BIN_EXE_softhal"))
            .args(args)
            .output()
            .expect("run softhal");
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    run(&[
        "demo".as_ref(),
        "--width".as_ref(),
        "320".as_ref(),
        "--height".as_ref(),
        "240".as_ref(),
        "-o".as_ref(),
        png.as_os_str(),
        "--capture".as_ref(),
        cap.as_os_str(),
    ]);
    let shipped = softhal_testkit::testdata().join("samples/demo.shcap");
    let golden = softhal_testkit::testdata().join("goldens/demo/demo-320x240.png");
    let (_, _, demo) = softhal_testkit::read_png(&png).unwrap();
    let (_, _, gold) = softhal_testkit::read_png(&golden).unwrap();
    assert!(demo == gold, "the demo differs from its golden");
    for c in [&cap, &shipped] {
        run(&[
            "render".as_ref(),
            c.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
            "--check".as_ref(),
            "--quiet".as_ref(),
        ]);
        let (w, h, replayed) = softhal_testkit::read_png(&out.join("frame-0001.png")).unwrap();
        assert_eq!((w, h), (320, 240));
        assert!(
            replayed == demo,
            "{}: the replay differs from the demo",
            c.display()
        );
    }
    assert!(std::fs::metadata(&shipped).unwrap().len() < 200 * 1024);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What the shipped `testdata/samples/demo.shcap` holds, worked out from
/// the scene (`crates/cli/src/demo.rs`), as `softhal info` and `softhal
/// inspect` report it.
#[test]
fn the_demo_capture_holds_the_scenes_calls_draws_and_shaders() {
    let shipped = softhal_testkit::testdata().join("samples/demo.shcap");
    let run = |args: &[&std::ffi::OsStr]| -> serde_json::Value {
        let o = Command::new(env!("CARGO_BIN_EXE_softhal"))
            .args(args)
            .output()
            .expect("run softhal");
        assert!(o.status.success(), "{args:?}");
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let info = run(&["info".as_ref(), shipped.as_os_str(), "--json".as_ref()]);
    // One DrawPrimitives2 call per part of the scene: backdrop, ground,
    // lit sphere, banner patch, skinned tube, objects, glass and fence,
    // plaque, badge.
    assert_eq!(info["calls"]["dp2"], 9);
    // Surfaces: the render target, the depth buffer, six textures (ground,
    // light map, marble, banner, rivets, scales), the tube's index buffer
    // and one command buffer per call.
    assert_eq!(info["calls"]["surface"], 1 + 1 + 6 + 1 + 9);
    assert_eq!(info["commands"]["D3DDP2OP_DRAWINDEXEDPRIMITIVE"], 1);
    assert_eq!(info["commands"]["D3DDP2OP_SETVERTEXSHADERCONST"], 4);
    let shaders = info["shaders"].as_array().unwrap();
    assert_eq!(shaders.len(), 2);
    // The tube's DirectX 8 shader: created with its declaration, 23
    // instructions of vs_1_1 (`TUBE_VS`, one per line).
    let vs = &shaders[0];
    assert_eq!(vs["command"], "D3DDP2OP_CREATEVERTEXSHADER");
    assert_eq!(vs["handle"], 0x30);
    assert_eq!(vs["version"], "vs_1_1");
    assert_eq!(vs["instructions"], 23);
    assert_eq!(vs["valid"], true);
    // Position FLOAT3 (12 bytes), weight FLOAT1 (4), bone offsets UBYTE4
    // (4), normal D3DCOLOR (4), then (u, v): offsets 0, 12, 16, 20, 24;
    // one constant register (c7).
    let decl = &vs["declaration"];
    assert_eq!(decl["constants"], 1);
    let elements: Vec<_> = decl["elements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["offset"].as_u64().unwrap(),
                e["register"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(elements, [(0, 0), (12, 1), (16, 2), (20, 3), (24, 7)]);
    // The plaque's pixel shader.
    assert_eq!(shaders[1]["command"], "D3DDP2OP_CREATEPIXELSHADER");
    assert_eq!(shaders[1]["version"], "ps_2_0");
    // Draws (commands that draw, and CLEAR): backdrop 5 (the clear, sky
    // and ground strips, the stars, the sun), ground 1, sphere 1, banner
    // 1, tube 1, objects 4 (two cubes, the pyramid, the ribbon), glass 3
    // and fence 14 strips, plaque 1, badge 2: 33.
    let dir = std::env::temp_dir().join(format!("softhal-demo-inspect-{}", std::process::id()));
    let report = run(&[
        "inspect".as_ref(),
        shipped.as_os_str(),
        "-o".as_ref(),
        dir.as_os_str(),
        "--json".as_ref(),
    ]);
    assert_eq!(report["frames"], 1);
    assert_eq!(report["draws"], 33);
    assert_eq!(report["refusals"], 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
