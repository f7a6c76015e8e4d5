//! The `disasm`, `validate` and `asm` verbs as a user runs them: exit
//! codes, JSON shapes, error messages naming file, offset and command.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn softhal(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_softhal"))
        .args(args)
        .output()
        .expect("run softhal")
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

/// A fresh path per call: tests run in parallel threads of one process.
fn tmp(name: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("softhal-cli-test-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn assembled_all_opcodes() -> PathBuf {
    let out = tmp("all.bin");
    let o = softhal(&[
        "asm",
        repo("testdata/dp2/all-opcodes.dp2s").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&o.stdout)))
}

#[test]
fn asm_then_disasm_reproduces_the_golden() {
    let bin = assembled_all_opcodes();
    let o = softhal(&["disasm", bin.to_str().unwrap(), "--fvf", "0x44"]);
    assert_eq!(o.status.code(), Some(0));
    let golden = std::fs::read_to_string(repo("testdata/dp2/all-opcodes.disasm")).unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), golden);
}

#[test]
fn disasm_json_lists_every_command() {
    let bin = assembled_all_opcodes();
    let o = softhal(&[
        "disasm",
        bin.to_str().unwrap(),
        "--fvf",
        "D3DFVF_XYZRHW|D3DFVF_DIFFUSE",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    assert!(v["error"].is_null());
    let cmds = v["commands"].as_array().unwrap();
    assert_eq!(cmds.len(), 84);
    assert_eq!(cmds[0]["offset"], 0);
    assert_eq!(cmds[0]["op"], "D3DDP2OP_POINTS");
    assert_eq!(cmds[0]["opcode"], 1);
    assert_eq!(cmds[0]["count"], 2);
    assert_eq!(cmds[0]["size"], 12);
    let rs = cmds
        .iter()
        .find(|c| c["op"] == "D3DDP2OP_RENDERSTATE")
        .unwrap();
    assert!(rs["args"]
        .as_str()
        .unwrap()
        .contains("RenderState=D3DRS_ZENABLE dwState=D3DZB_TRUE"));
}

#[test]
fn a_truncated_stream_is_reported_at_the_cut_command() {
    let bin = assembled_all_opcodes();
    let bytes = std::fs::read(&bin).unwrap();
    // Cut inside the RENDERSTATE command at offset 0x28 (its payload is 24 bytes).
    let cut = tmp("cut.bin");
    std::fs::write(&cut, &bytes[..0x28 + 10]).unwrap();

    let o = softhal(&["validate", cut.to_str().unwrap(), "--fvf", "0x44", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["valid"], false);
    assert_eq!(v["error"]["error_offset"], 0x28);
    assert_eq!(v["error"]["opcode"], 8);
    assert_eq!(v["error"]["kind"], "truncated_payload");

    let o = softhal(&["validate", cut.to_str().unwrap(), "--fvf", "0x44"]);
    assert_eq!(o.status.code(), Some(1));
    let msg = String::from_utf8_lossy(&o.stderr);
    assert!(
        msg.contains("cut.bin")
            && msg.contains("offset 40")
            && msg.contains("D3DDP2OP_RENDERSTATE"),
        "{msg}"
    );

    let o = softhal(&["disasm", cut.to_str().unwrap(), "--fvf", "0x44", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["commands"].as_array().unwrap().len(), 4);
    assert_eq!(v["error"]["error_offset"], 0x28);
    assert_eq!(v["error"]["kind"], "truncated_payload");
}

#[test]
fn unknown_opcodes_end_the_walk() {
    let f = tmp("unknown.bin");
    std::fs::write(&f, [8, 0, 1, 0, 7, 0, 0, 0, 1, 0, 0, 0, 0xC8, 0, 0, 0]).unwrap();
    let o = softhal(&["validate", f.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(
        (
            v["error"]["error_offset"].as_u64(),
            v["error"]["kind"].as_str()
        ),
        (Some(12), Some("unknown_opcode"))
    );
    assert_eq!(v["error"]["opcode"], 200);
}

#[test]
fn a_valid_stream_validates() {
    let bin = assembled_all_opcodes();
    let o = softhal(&["validate", bin.to_str().unwrap(), "--fvf", "0x44", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(json(&o)["valid"], true);
}

#[test]
fn usage_and_io_errors_exit_2() {
    assert_eq!(
        softhal(&["validate", "/nonexistent/file.bin"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(softhal(&["validate"]).status.code(), Some(2));
    let bin = assembled_all_opcodes();
    assert_eq!(
        softhal(&["disasm", bin.to_str().unwrap(), "--fvf", "nonsense"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn asm_errors_name_the_line() {
    let src = tmp("bad.dp2s");
    std::fs::write(
        &src,
        "RENDERSTATE { RenderState=ZENABLE }\nRENDERSTATE { NoSuchField=1 }\n",
    )
    .unwrap();
    let o = softhal(&[
        "asm",
        src.to_str().unwrap(),
        "-o",
        tmp("bad.bin").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let msg = String::from_utf8_lossy(&o.stderr);
    assert!(
        msg.contains("bad.dp2s:2:") && msg.contains("NoSuchField"),
        "{msg}"
    );
}

/// Found in review: `--fvf 44` must mean 0x44, not decimal 44.
#[test]
fn fvf_digits_are_hex() {
    let bin = assembled_all_opcodes();
    let a = softhal(&["disasm", bin.to_str().unwrap(), "--fvf", "44"]);
    let b = softhal(&["disasm", bin.to_str().unwrap(), "--fvf", "0x44"]);
    assert_eq!(a.status.code(), Some(0));
    assert_eq!(a.stdout, b.stdout);
}
