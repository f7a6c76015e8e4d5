//! The capture verbs as a user runs them: `render`, `info`, and `asm` /
//! `disasm` / `validate` on captures — exit codes, JSON shapes, messages.

use std::path::Path;
use std::process::Output;

mod common;
use common::{repo, softhal, tmp};

/// `softhal render CAPTURE -o DIR EXTRA...`.
fn render(capture: &str, dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["render", capture, "-o", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    softhal(&args)
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

#[test]
fn render_writes_pngs_and_checksums_and_checks_answers() {
    let dir = tmp("out");
    let o = softhal(&[
        "render",
        &repo("testdata/captures/malformed-call.shcap.txt"),
        "-o",
        dir.to_str().unwrap(),
        "--check",
        "--json",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ok"], true);
    let images = v["images"].as_array().unwrap();
    assert_eq!(images.len(), 2);
    assert_eq!(images[0]["checksum"].as_str().unwrap().len(), 16);
    assert!(dir.join("frame-0001.png").exists());
    assert!(dir.join("final-0001.png").exists());
    // Human output: one line per image with the checksum.
    let o = softhal(&[
        "render",
        &repo("testdata/captures/gouraud-strip.shcap.txt"),
        "-o",
        dir.to_str().unwrap(),
        "--check",
    ]);
    let (out, _) = text(&o);
    assert!(out.contains("fnv1a64="), "{out}");
    assert!(out.contains("check: all"), "{out}");
}

#[test]
fn render_check_fails_when_an_answer_differs() {
    let src = std::fs::read_to_string(repo("testdata/captures/malformed-call.shcap.txt")).unwrap();
    let tampered = tmp("tampered.shcap.txt");
    std::fs::write(&tampered, src.replace("error_offset=22", "error_offset=20")).unwrap();
    let dir = tmp("out");
    let o = softhal(&[
        "render",
        tampered.to_str().unwrap(),
        "-o",
        dir.to_str().unwrap(),
        "--check",
        "--quiet",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(
        err.contains("record 4 (dp2): dwErrorOffset: recorded 20, replayed 22"),
        "{err}"
    );
    // Without --check the same replay succeeds.
    let o = softhal(&[
        "render",
        tampered.to_str().unwrap(),
        "-o",
        dir.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn asm_and_disasm_convert_captures_both_ways_byte_exact() {
    let bin = tmp("a.shcap");
    let o = softhal(&[
        "asm",
        &repo("testdata/captures/indexed-stream-mesh.shcap.txt"),
        "-o",
        bin.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o).1);
    let o = softhal(&["disasm", bin.to_str().unwrap()]);
    assert!(o.status.success());
    let listing = tmp("a.shcap.txt");
    std::fs::write(&listing, &o.stdout).unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).starts_with(".capture 1\n"));
    let bin2 = tmp("b.shcap");
    let o = softhal(&[
        "asm",
        listing.to_str().unwrap(),
        "-o",
        bin2.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert_eq!(std::fs::read(&bin).unwrap(), std::fs::read(&bin2).unwrap());
    // validate and info accept both forms.
    let o = softhal(&["validate", bin.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["valid"].as_bool(), v["capture"].as_bool()),
        (Some(true), Some(true))
    );
    let o = softhal(&["info", listing.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["commands"]["D3DDP2OP_DRAWINDEXEDPRIMITIVE"], 1);
    assert_eq!(v["surfaces"]["vertex_buffer"], 1);
}

#[test]
fn info_reports_recorded_errors() {
    let o = softhal(&["info", &repo("testdata/captures/malformed-call.shcap.txt")]);
    let (out, _) = text(&o);
    assert!(o.status.success());
    assert!(out.contains("D3DDP2OP_TRIANGLELIST"), "{out}");
    assert!(
        out.contains("record 4 dp2: D3DERR_COMMAND_UNPARSED (dwErrorOffset 22)"),
        "{out}"
    );
    let o = softhal(&[
        "validate",
        &repo("testdata/captures/malformed-call.shcap.txt"),
    ]);
    let (out, _) = text(&o);
    assert!(
        out.contains("record 4: command stream does not decode at byte offset 22"),
        "{out}"
    );
}

#[test]
fn invalid_captures_exit_1_with_record_and_offset_io_errors_exit_2() {
    let bin = tmp("c.shcap");
    let o = softhal(&[
        "asm",
        &repo("testdata/captures/gouraud-strip.shcap.txt"),
        "-o",
        bin.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let mut b = std::fs::read(&bin).unwrap();
    b.truncate(b.len() - 12); // drop the END record
    let cut = tmp("cut.shcap");
    std::fs::write(&cut, &b).unwrap();
    for verb in ["info", "disasm", "validate"] {
        let o = softhal(&[verb, cut.to_str().unwrap()]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{verb}: {err}");
        assert!(err.contains("invalid capture: record"), "{verb}: {err}");
        assert!(err.contains("byte offset"), "{verb}: {err}");
        assert_eq!(err.lines().count(), 1, "{verb}: one line: {err}");
    }
    let bad_text = tmp("bad.shcap.txt");
    std::fs::write(&bad_text, ".capture 1\nsurface 1 blob width=3\n").unwrap();
    let o = softhal(&["render", bad_text.to_str().unwrap()]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(err.contains("line 2: unknown surface kind blob"), "{err}");
    let o = softhal(&["render", "/nonexistent/x.shcap"]);
    assert_eq!(o.status.code(), Some(2));
    let o = softhal(&["info"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn every_capture_verb_has_help_with_an_example() {
    for verb in ["render", "info", "asm", "disasm", "validate"] {
        let o = softhal(&[verb, "--help"]);
        let (out, _) = text(&o);
        assert!(o.status.success());
        assert!(out.contains("Example:"), "{verb}");
        assert!(out.contains("capture"), "{verb}: {out}");
    }
}

/// A capture cut inside its last record: `render` replays every complete
/// record before the cut (gouraud-strip: surface, command buffer, context,
/// the DP2 call; the cut record is its Present), writes what they produce
/// (no presented frame, the context's final render target), reports the
/// cut with the record and byte offset, and exits 1 — 0 with
/// `--allow-truncated`.
#[test]
fn render_replays_a_cut_capture_up_to_the_cut_and_reports_it() {
    // The binary form, on stdout.
    let mut b = softhal(&["asm", &repo("testdata/captures/gouraud-strip.shcap.txt")]).stdout;
    // Walk the record headers (16-byte file header; each record: type u16,
    // flags u16, length u32, payload) to the last one before END (12
    // bytes): the PRESENT. Keep 2 bytes of it.
    let end = b.len() - 12;
    let mut present = 16;
    while present
        + 8
        + (u32::from_le_bytes(b[present + 4..present + 8].try_into().unwrap()) as usize)
        < end
    {
        present += 8 + u32::from_le_bytes(b[present + 4..present + 8].try_into().unwrap()) as usize;
    }
    b.truncate(present + 2);
    let cut = tmp("cut.shcap");
    std::fs::write(&cut, &b).unwrap();
    let dir = tmp("out");
    let o = render(cut.to_str().unwrap(), &dir, &["--json"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ok"], false);
    let records = v["records"].as_u64().unwrap();
    assert_eq!(v["cut"]["kind"], "cut_capture");
    assert_eq!(v["cut"]["record"].as_u64(), Some(records));
    assert_eq!(v["cut"]["error_offset"].as_u64(), Some(present as u64));
    let images = v["images"].as_array().unwrap();
    assert_eq!(images.len(), 1, "{out}");
    assert_eq!(images[0]["kind"], "final");
    assert!(dir.join("final-0001.png").exists());
    assert!(err.contains("cut capture: replayed the"), "{err}");
    assert!(err.contains(&format!("byte offset {present}")), "{err}");
    let o = render(
        cut.to_str().unwrap(),
        &dir,
        &["--allow-truncated", "--quiet"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
}

/// The driver refusing calls the capture did not record as refused makes
/// `render` exit 1 and name each call with the driver's reason; recorded
/// refusals (malformed-call: its second DP2 call) do not.
#[test]
fn render_reports_refused_calls_with_the_drivers_reason() {
    // Record 3 draws vertices 5–7 of 3; record 4 is a render target 0
    // pixels wide (see the file).
    let capture = repo("testdata/refused/out-of-range.shcap.txt");
    let dir = tmp("out");
    let o = render(&capture, &dir, &["--json"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ok"], false);
    let r = &v["refusals"][0];
    // Vertices 5, 6, 7 of a 3-vertex buffer: D3DERR_COMMAND_UNPARSED at
    // the command (dwErrorOffset 0).
    assert_eq!(r["record"], 3);
    assert_eq!(r["call"], "dp2");
    assert_eq!(r["ddrval"], "D3DERR_COMMAND_UNPARSED");
    assert_eq!(r["error_offset"], 0);
    assert!(
        r["reason"]
            .as_str()
            .unwrap()
            .contains("vertex index = 7 is out of range"),
        "{r}"
    );
    assert!(err.contains("record 3 (dp2) refused: D3DERR_COMMAND_UNPARSED at dwErrorOffset 0: vertex index = 7 is out of range"), "{err}");
    assert_eq!(v["refusals"][1]["record"], 4);
    assert_eq!(v["refusals"][1]["call"], "surface");
    let o = render(&capture, &dir, &["--allow-refused", "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    let o = render(
        &repo("testdata/captures/malformed-call.shcap.txt"),
        &dir,
        &["--quiet"],
    );
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains(
            "record 4 (dp2) refused as recorded: D3DERR_COMMAND_UNPARSED at dwErrorOffset 22"
        ),
        "{err}"
    );
}

/// A capture whose one DP2 call draws 8192 alpha-blended triangles each
/// covering a 4096² target (≈ 1.4·10¹¹ blended pixels: tens of minutes of
/// work). `render --timeout 200` stops it: exit 1 with a message naming
/// the timeout and D3DDDIERR_DEVICEREMOVED, within the budget plus a
/// generous slack (process start, loading, set-up on a loaded machine).
#[test]
fn render_timeout_stops_a_capture_that_would_run_for_minutes() {
    let mut cap = String::from(
        ".capture 1\n\
         surface 0x1 render_target format=D3DFMT_A8R8G8B8 width=4096 height=4096\n\
         surface 0x3 command_buffer size=131072\n\
         context 0x10 target=0x1\n\
         dp2 context=0x10 commands=0x3 fvf=D3DFVF_XYZRHW|D3DFVF_DIFFUSE flags=D3DHALDP2_USERMEMVERTICES\n\
         \x20 RENDERSTATE { RenderState=CULLMODE dwState=NONE } { RenderState=ALPHABLENDENABLE dwState=TRUE } { RenderState=SRCBLEND dwState=SRCALPHA } { RenderState=DESTBLEND dwState=INVSRCALPHA }\n",
    );
    for _ in 0..8192 {
        cap.push_str("  TRIANGLELIST count=1 wVStart=0\n");
    }
    cap.push_str(
        ".vertices\n\
         \x20 vertex x=0.0 y=0.0 z=0.5 rhw=1.0 diffuse=0x80FFFFFF\n\
         \x20 vertex x=8192.0 y=0.0 z=0.5 rhw=1.0 diffuse=0x80FFFFFF\n\
         \x20 vertex x=0.0 y=8192.0 z=0.5 rhw=1.0 diffuse=0x80FFFFFF\n\
         .end\n\
         present 0x1\n",
    );
    let path = tmp("long.shcap.txt");
    std::fs::write(&path, cap).unwrap();
    let dir = tmp("long-out");
    let t0 = std::time::Instant::now();
    let o = softhal(&[
        "render",
        path.to_str().unwrap(),
        "-o",
        dir.to_str().unwrap(),
        "--timeout",
        "200",
    ]);
    let took = t0.elapsed();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(err.contains("--timeout 200 ms"), "{err}");
    assert!(err.contains("D3DDDIERR_DEVICEREMOVED"), "{err}");
    // Frames stream out as they are presented: the Present after the
    // stopped call still shows the target as the driver left it.
    assert!(dir.join("frame-0001.png").exists());
    assert!(
        took < std::time::Duration::from_secs(20),
        "stopped after {took:?}"
    );
}
