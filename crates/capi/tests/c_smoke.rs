//! Builds `tests/c/smoke.c` with the system C compiler against the
//! `libsofthal.a` cargo just built, runs it, and runs it again under
//! AddressSanitizer (when the compiler supports it); replays the capture
//! the C program recorded and checks that the replay renders the same
//! pixels and gives the same answers; also checks that `softhal.h`
//! compiles in its other modes (C++, SOFTHAL_USE_SYSTEM_DDI_TYPES) and
//! links against `libsofthal.so`.
//!
//! `cargo test --workspace --release` covers all of it; no network.

use std::path::{Path, PathBuf};
use std::process::Command;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn include_dir() -> PathBuf {
    manifest().join("../../include")
}

/// The directory holding the library artifacts of this build: cargo
/// writes them to target/<profile>/deps and usually copies them up to
/// target/<profile>; prefer the former (always this build's).
fn artifact_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/c_smoke-<hash>
    let deps = exe.parent().unwrap().to_path_buf();
    if deps.join("libsofthal.a").exists() {
        return deps;
    }
    deps.parent().map(Path::to_path_buf).unwrap()
}

fn out_dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("capi-c");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".to_string())
}

/// Libraries a Rust staticlib needs on this platform.
fn native_libs() -> &'static [&'static str] {
    if cfg!(target_os = "macos") {
        &["-lSystem", "-lc", "-lm"]
    } else {
        &["-lpthread", "-ldl", "-lm", "-lrt", "-lutil"]
    }
}

fn run(cmd: &mut Command) -> std::process::Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    if !out.status.success() {
        panic!(
            "{cmd:?} failed ({})\n--- stdout\n{}\n--- stderr\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out
}

fn build_smoke(compiler: &str, extra: &[&str], name: &str) -> PathBuf {
    build_c("smoke.c", compiler, extra, name)
}

/// Builds `tests/c/SOURCE` against `libsofthal.a` into `out_dir()/NAME`.
fn build_c(source: &str, compiler: &str, extra: &[&str], name: &str) -> PathBuf {
    let lib = artifact_dir().join("libsofthal.a");
    assert!(lib.exists(), "{} not built", lib.display());
    let exe = out_dir().join(name);
    let mut cmd = Command::new(compiler);
    cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-g"])
        .args(extra)
        .arg("-I")
        .arg(include_dir())
        .arg("-I")
        .arg(manifest().join("tests/c"))
        .arg(manifest().join("tests/c").join(source))
        .arg(&lib)
        .args(native_libs())
        .arg("-o")
        .arg(&exe);
    run(&mut cmd);
    exe
}

/// Replays a capture recorded by the C program: every recorded answer —
/// `ddrval`s, DP2 error offsets, render-callback sizes, and the checksums
/// of the presented frames — is given again.
fn replays_identically(path: &Path) {
    let bytes = std::fs::read(path).unwrap();
    let capture = softhal_capture::load(&bytes, None).unwrap();
    let names: Vec<&str> = capture.records.iter().map(|r| r.name()).collect();
    for want in [
        "surface",
        "lock",
        "unlock",
        "context",
        "dp2",
        "clear2",
        "render_context",
        "submit",
        "flip",
        "complete_flips",
        "present",
        "render_context_destroy",
        "context_destroy",
        "destroy",
    ] {
        assert!(names.contains(&want), "no {want} record in {names:?}");
    }
    let frames = capture
        .records
        .iter()
        .filter_map(|r| {
            r.answer()
                .filter(|_| matches!(r.name(), "flip" | "present"))
        })
        .filter(|a| a.checksum != 0)
        .count();
    assert_eq!(frames, 3, "two presents and a flip, each with its checksum");
    for threads in [1, 3] {
        let replay = softhal_capture::replay(&capture, threads, |_, _| {}).unwrap();
        assert!(replay.differences.is_empty(), "{:#?}", replay.differences);
        assert_eq!(replay.frames.len(), 3);
    }
    // The text form says the same.
    let text = softhal_capture::text::to_text(&capture);
    assert_eq!(
        softhal_capture::text::from_text(&text, None).unwrap(),
        capture
    );
}

#[test]
fn c_smoke_program_passes() {
    let exe = build_smoke(&cc(), &[], "smoke");
    let capture = out_dir().join("smoke.shcap");
    let _ = std::fs::remove_file(&capture);
    let out = run(Command::new(&exe).arg(&capture));
    assert!(String::from_utf8_lossy(&out.stdout).contains("all checks passed"));
    replays_identically(&capture);
}

/// The C host of `docs/embedding.md` (`tests/c/embedding.c`, which the
/// tutorial shows whole): it builds, runs, and its capture replays with
/// the same answers and the checksum of the frame it presented.
#[test]
fn the_embedding_tutorial_c_host_runs_and_its_capture_replays() {
    let exe = build_c("embedding.c", &cc(), &[], "embedding");
    let capture = out_dir().join("embedding.shcap");
    let _ = std::fs::remove_file(&capture);
    let out = run(Command::new(&exe).arg(&capture));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("corner rgba 203040ff"), "{text}");
    assert!(text.contains("D3DCULL_NONE"), "{text}");
    assert!(text.contains("embedding: wrote"), "{text}");
    let bytes = std::fs::read(&capture).unwrap();
    let c = softhal_capture::load(&bytes, None).unwrap();
    let replay = softhal_capture::replay(&c, 1, |_, _| {}).unwrap();
    assert!(replay.differences.is_empty(), "{:#?}", replay.differences);
    assert_eq!(replay.frames.len(), 1);
    assert_eq!(&replay.frames[0].rgba[..4], &[0x20, 0x30, 0x40, 0xff]);
    let doc = std::fs::read_to_string(manifest().join("../../docs/embedding.md")).unwrap();
    let src = std::fs::read_to_string(manifest().join("tests/c/embedding.c")).unwrap();
    assert!(
        doc.contains(&src),
        "docs/embedding.md must show tests/c/embedding.c whole"
    );
}

/// The same program under AddressSanitizer (gcc or clang), clean. Skipped
/// (with a message) only if the compiler cannot build an ASan binary here.
#[test]
fn c_smoke_program_is_asan_clean() {
    let compiler = cc();
    let probe_src = out_dir().join("asan_probe.c");
    std::fs::write(&probe_src, "int main(void){return 0;}\n").unwrap();
    let probe = out_dir().join("asan_probe");
    let ok = Command::new(&compiler)
        .args(["-fsanitize=address"])
        .arg(&probe_src)
        .arg("-o")
        .arg(&probe)
        .status()
        .is_ok_and(|s| s.success())
        && Command::new(&probe).status().is_ok_and(|s| s.success());
    if !ok {
        eprintln!("SKIPPED: {compiler} cannot build AddressSanitizer binaries here");
        return;
    }
    let exe = build_smoke(
        &compiler,
        &["-fsanitize=address", "-fno-omit-frame-pointer"],
        "smoke-asan",
    );
    let capture = out_dir().join("smoke-asan.shcap");
    let out = run(Command::new(&exe).arg(&capture).env(
        "ASAN_OPTIONS",
        "detect_leaks=1:abort_on_error=0:halt_on_error=1",
    ));
    assert!(String::from_utf8_lossy(&out.stdout).contains("all checks passed"));
    replays_identically(&capture);
}

/// The header in its other modes: C++, and a host that has the DDK types.
#[test]
fn header_compiles_in_every_mode() {
    let inc = include_dir();
    let dir = manifest().join("tests/c");
    // A host with its own DDK types: only softhal's functions come from softhal.h.
    run(Command::new(cc())
        .args([
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-fsyntax-only",
            "-I",
        ])
        .arg(&inc)
        .arg(dir.join("system_types.c")));
    // Strict C11.
    run(Command::new(cc())
        .args([
            "-std=c11",
            "-pedantic",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-fsyntax-only",
            "-I",
        ])
        .arg(&inc)
        .arg(dir.join("header_only.c")));
    // C++ (if a C++ compiler is present).
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    if Command::new(&cxx)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        run(Command::new(&cxx)
            .args([
                "-std=c++17",
                "-Wall",
                "-Werror",
                "-fsyntax-only",
                "-x",
                "c++",
                "-I",
            ])
            .arg(&inc)
            .arg(dir.join("header_only.c")));
    }
}

/// `libsofthal.so` links and exports the entry points.
#[test]
#[cfg(target_os = "linux")]
fn shared_library_links() {
    let so_dir = artifact_dir();
    assert!(so_dir.join("libsofthal.so").exists());
    let exe = out_dir().join("header-only-so");
    run(Command::new(cc())
        .args(["-std=c11", "-I"])
        .arg(include_dir())
        .arg(manifest().join("tests/c/header_only.c"))
        .arg("-L")
        .arg(&so_dir)
        .arg("-lsofthal")
        .arg(format!("-Wl,-rpath,{}", so_dir.display()))
        .arg("-o")
        .arg(&exe));
    let out = run(&mut Command::new(&exe));
    assert!(String::from_utf8_lossy(&out.stdout).contains("softhal 0x00030000"));
}
