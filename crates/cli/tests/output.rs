//! What every verb does with its output: a closed pipe ends it quietly, and
//! `--json` means JSON on stdout in every outcome, with one name per field.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_softhal")
}

fn softhal(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .output()
        .expect("run softhal")
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("softhal-output-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
        .to_string_lossy()
        .to_string()
}

/// `softhal disasm big.shcap | head -c 1`: the reader goes away after one
/// byte; softhal must end without a panic message (the listing is ~1.2 MB,
/// far more than a pipe buffers, so its writes do meet the closed pipe).
#[test]
fn a_closed_stdout_ends_a_verb_quietly() {
    let mut src = String::from(
        ".capture 1\nsurface 0x1 render_target format=D3DFMT_X8R8G8B8 width=4 height=4\n",
    );
    for _ in 0..100_000 {
        src.push_str("present 0x1\n");
    }
    let capture = tmp("big.shcap.txt");
    std::fs::write(&capture, src).unwrap();
    let mut child = Command::new(bin())
        .args(["disasm", capture.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut one = [0u8; 1];
    out.read_exact(&mut one).unwrap();
    drop(out);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.is_empty(), "{err}");
    assert_eq!(status.code(), Some(0));
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

/// Every verb that takes `--json` answers in JSON when its input cannot
/// be read (exit 2), and names the byte offset of a bad input
/// `error_offset` in the same `error` object.
#[test]
fn json_errors_have_one_shape_in_every_verb() {
    for verb in ["disasm", "validate", "render", "info"] {
        let o = softhal(&[verb, "/nonexistent/x.shcap", "--json"]);
        assert_eq!(o.status.code(), Some(2), "{verb}");
        let v = json(&o);
        assert_eq!(v["ok"], false, "{verb}: {v}");
        assert_eq!(v["error"]["kind"], "io", "{verb}: {v}");
        assert!(v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/x.shcap"));
    }
    // A binary capture whose second record has a bad record-flags word at
    // byte 16 + 2: every capture verb reports record 0 at error_offset 18.
    let mut b = softhal(&["asm", &repo("testdata/captures/gouraud-strip.shcap.txt")]).stdout;
    assert!(b.starts_with(b"SHALCAP"));
    b[18] = 0x80;
    let bad = tmp("bad.shcap");
    std::fs::write(&bad, &b).unwrap();
    for verb in ["disasm", "validate", "render", "info"] {
        let o = softhal(&[verb, bad.to_str().unwrap(), "--json"]);
        assert_eq!(o.status.code(), Some(1), "{verb}");
        let v = json(&o);
        assert_eq!(v["ok"], false, "{verb}: {v}");
        assert_eq!(v["error"]["kind"], "invalid_capture", "{verb}: {v}");
        assert_eq!(v["error"]["error_offset"], 18, "{verb}: {v}");
        assert_eq!(v["error"]["record"], 0, "{verb}: {v}");
    }
    // A DP2 stream cut inside a command: disasm and validate both say
    // error.error_offset.
    let stream = tmp("cut.bin");
    // TRIANGLELIST (opcode 3) count 1 with its 2-byte wVStart missing: the
    // command at offset 0 is cut.
    std::fs::write(&stream, [3u8, 0, 1, 0]).unwrap();
    for verb in ["disasm", "validate"] {
        let o = softhal(&[verb, stream.to_str().unwrap(), "--json"]);
        assert_eq!(o.status.code(), Some(1), "{verb}");
        let v = json(&o);
        assert_eq!(v["ok"], false, "{verb}: {v}");
        assert_eq!(v["error"]["error_offset"], 0, "{verb}: {v}");
    }
    // Arguments clap cannot read (a missing CAPTURE, an unknown option).
    for args in [
        &["info", "--json"][..],
        &["render", "x", "--json", "--frobnicate"],
    ] {
        let o = softhal(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let v = json(&o);
        assert_eq!(v["ok"], false, "{args:?}: {v}");
        assert_eq!(v["error"]["kind"], "usage", "{args:?}: {v}");
    }
    // A usage error (an --fvf that does not parse) in JSON too.
    let o = softhal(&[
        "validate",
        stream.to_str().unwrap(),
        "--fvf",
        "NOPE",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(json(&o)["error"]["kind"], "usage");
}

/// `asm` writes to stdout without `-o`, and says that binary input is not
/// assembly (exit 1, not an I/O error).
#[test]
fn asm_writes_stdout_and_names_binary_input() {
    let o = softhal(&["asm", &repo("testdata/dp2/all-opcodes.dp2s")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!o.stdout.is_empty());
    let with_o = tmp("all.bin");
    let o2 = softhal(&[
        "asm",
        &repo("testdata/dp2/all-opcodes.dp2s"),
        "-o",
        with_o.to_str().unwrap(),
    ]);
    assert!(o2.status.success());
    assert_eq!(std::fs::read(&with_o).unwrap(), o.stdout);
    let o = softhal(&["asm", with_o.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("not DP2 assembly (binary input"), "{err}");
}
