//! `softhal bench --path dp2` drives the workloads as real DP2 streams
//! through `DrawPrimitives2`; it must render exactly the frame the direct
//! pipeline path renders (same checksum), or the DP2 figure would not be
//! measuring the same work.

use std::process::Command;

fn checksum(path: &str) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_softhal"))
        .args([
            "bench",
            "--workload",
            "W6",
            "--frames",
            "1",
            "--json",
            "--path",
            path,
        ])
        .output()
        .expect("run softhal bench");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON line");
    assert_eq!(v["path"], path);
    assert_eq!(v["workload"], "W6");
    v["checksum"].as_str().expect("checksum").to_string()
}

#[test]
fn the_dp2_path_renders_the_same_frame_as_the_pipeline_path() {
    assert_eq!(checksum("dp2"), checksum("pipeline"));
}
