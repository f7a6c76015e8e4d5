//! `softhal bench --path dp2` drives the workloads as real DP2 streams
//! through `DrawPrimitives2`; it must render exactly the frame the direct
//! pipeline path renders (same checksum), or the DP2 figure would not be
//! measuring the same work.

use std::process::Command;

fn checksum(workload: &str, path: &str) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_softhal"))
        .args([
            "bench",
            "--workload",
            workload,
            "--frames",
            "1",
            "--noise-control",
            "false",
            "--json",
            "--path",
            path,
        ])
        .output()
        .expect("run softhal bench");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON line");
    assert_eq!(v["path"], path);
    assert_eq!(v["workload"], workload);
    // softhal's figures only: ratios to the peers come from an
    // interleaved run with their harness, never from stored figures.
    for peer_field in ["llvmpipe", "lavapipe", "ratio"] {
        assert!(
            v.get(peer_field).is_none(),
            "{workload}: {peer_field} in {v}"
        );
    }
    v["checksum"].as_str().expect("checksum").to_string()
}

#[test]
fn the_dp2_path_renders_the_same_frame_as_the_pipeline_path() {
    // W3/W4: a texture bound and sampled through DP2; W5: fog and the
    // depth test; W6: lines; W9: the blended Gouraud kernel.
    for w in ["W3", "W4", "W5", "W6", "W9"] {
        assert_eq!(checksum(w, "dp2"), checksum(w, "pipeline"), "{w}");
    }
}

#[test]
fn the_shader_workloads_have_no_pipeline_path() {
    // W7 and W8 draw with shaders, which reach the pipeline only through
    // DrawPrimitives2: asking for the direct path is an error that says so.
    let o = Command::new(env!("CARGO_BIN_EXE_softhal"))
        .args([
            "bench",
            "--workload",
            "W7",
            "--path",
            "pipeline",
            "--frames",
            "1",
        ])
        .output()
        .expect("run softhal bench");
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("W7") && err.contains("--path dp2"), "{err}");
}

#[test]
fn sweep_only_measures_the_named_combinations() {
    // `--only` keeps the rows whose name contains the text: "flat shading"
    // is one combination, so one row and the summary of its texture count.
    let o = Command::new(env!("CARGO_BIN_EXE_softhal"))
        .args([
            "bench",
            "--sweep",
            "--only",
            "flat shading",
            "--frames",
            "1",
            "--noise-control",
            "false",
            "--json",
        ])
        .output()
        .expect("run softhal bench --sweep");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let rows: Vec<_> = lines
        .iter()
        .filter(|v| v.get("summary").is_none())
        .collect();
    assert_eq!(rows.len(), 1, "{lines:?}");
    assert_eq!(rows[0]["combination"], "flat shading");
    assert_eq!(rows[0]["textures"], 0);
}
