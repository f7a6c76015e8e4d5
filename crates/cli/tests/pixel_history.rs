//! `softhal pixel-history` as a user runs it, on
//! `testdata/captures/gouraud-strip.shcap.txt`: at (20, 30) the near strip
//! (z = 0.25, command at byte 116) writes, then the far band (z = 0.75,
//! byte 122) fails D3DCMP_LESS (offsets counted by hand in
//! `crates/capture/tests/pixel_history.rs`); JSON shape, DDK names, an
//! uncovered pixel, and usage errors.

mod common;
use common::{repo, softhal};
use serde_json::Value;

const STRIP: &str = "testdata/captures/gouraud-strip.shcap.txt";

#[test]
fn text_names_the_commands_and_the_depth_test() {
    let o = softhal(&["pixel-history", &repo(STRIP), "--pixel", "20,30"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("2 draw(s) covered it"), "{out}");
    assert!(
        out.contains("D3DDP2OP_TRIANGLESTRIP at offset 116"),
        "{out}"
    );
    assert!(
        out.contains("D3DDP2OP_TRIANGLESTRIP at offset 122"),
        "{out}"
    );
    assert!(
        out.contains(
            "D3DCMP_LESS: incoming 0.750000 (0xbfffff) vs stored 0.250000 (0x400000): FAIL"
        ),
        "{out}"
    );
    assert!(out.contains("D3DCOLOR 0xff102030"), "{out}");
}

#[test]
fn json_holds_the_report() {
    let o = softhal(&[
        "pixel-history",
        &repo(STRIP),
        "--pixel",
        "20,30",
        "--frame",
        "1",
        "--json",
    ]);
    assert!(o.status.success());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!((v["x"].as_u64(), v["y"].as_u64()), (Some(20), Some(30)));
    let draws = v["draws"].as_array().unwrap();
    assert_eq!(draws.len(), 2);
    assert_eq!(draws[1]["command_offset"], 122);
    let e = &draws[1]["events"][0];
    assert_eq!(e["outcome"], "depth");
    assert_eq!(e["depth"]["func"], "D3DCMP_LESS");
    assert_eq!(e["depth"]["incoming"], 12_582_911);
    assert_eq!(e["depth"]["stored"], 4_194_304);
    assert_eq!(draws[1]["before"], draws[0]["after"]);
}

#[test]
fn an_uncovered_pixel_has_an_empty_history() {
    let o = softhal(&["pixel-history", &repo(STRIP), "--pixel", "2,2", "--json"]);
    assert!(o.status.success());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["draws"].as_array().map(Vec::len), Some(0));
}

#[test]
fn a_bad_pixel_is_a_usage_error() {
    let o = softhal(&["pixel-history", &repo(STRIP), "--pixel", "20"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("expected X,Y"));
}
