//! The capture verbs: `render`, `info`, and the capture side of `asm`,
//! `disasm` and `validate`.
//!
//! In: a capture file, binary (starts with the `SHALCAP` magic) or text
//! (first directive `.capture`), see `docs/capture-format.md`. Out: PNGs
//! and checksums (`render`), counts (`info`), the other form of the capture
//! (`asm` / `disasm`), a verdict (`validate`); text or `--json` on stdout,
//! one-line errors on stderr naming the file, the record and the byte
//! offset (binary) or line (text). Exit codes: 0 ok, 1 invalid capture or
//! (`render --check`) answers that differ, 2 usage or I/O error.

use serde_json::{json, Value};
use softhal_capture::{self as capture, info, Capture};
use softhal_wire::names::codes;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Arguments of `render`.
#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// The capture (binary or text).
    pub capture: PathBuf,
    /// Directory for the PNGs (created if missing).
    #[arg(short, long, value_name = "DIR", default_value = ".")]
    pub output: PathBuf,
    /// Rasterizer threads (0 or 1: the calling thread).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::threads_arg)]
    pub threads: usize,
    /// Longest time one GPU submission may run, in milliseconds (0: no
    /// limit); work past it is stopped (its context removed) and `render`
    /// exits 1 without writing images.
    #[arg(long, value_name = "MS", default_value_t = softhal_submit::limits::DEFAULT_GPU_TIMEOUT_MS)]
    pub timeout: u64,
    /// Compare the driver's answers with the recorded ones; exit 1 on any
    /// difference.
    #[arg(long)]
    pub check: bool,
    /// No progress bar and no per-frame lines (errors and differences are
    /// still reported).
    #[arg(long)]
    pub quiet: bool,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `info`.
#[derive(clap::Args, Debug)]
pub struct InfoArgs {
    /// The capture (binary or text).
    pub capture: PathBuf,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

fn io_error(msg: &str) -> ExitCode {
    eprintln!("softhal: {msg}");
    ExitCode::from(2)
}

/// True if the file exists and starts like a capture (either form).
pub fn is_capture_file(path: &Path) -> bool {
    use std::io::Read;
    let mut head = vec![0u8; 4096];
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let n = f.read(&mut head).unwrap_or(0);
    head.truncate(n);
    if capture::binary::is_binary_capture(&head) {
        return true;
    }
    // The first directive of a text capture is within the first lines; a
    // cut in the middle of a UTF-8 character does not matter for it.
    let text = String::from_utf8_lossy(&head);
    capture::text::is_text_capture(&text)
}

/// Loads a capture, reporting errors as the verbs do (1 invalid, 2 I/O).
fn load(path: &Path) -> Result<Capture, ExitCode> {
    let meta = std::fs::metadata(path)
        .map_err(|e| io_error(&format!("cannot read {}: {e}", path.display())))?;
    if meta.len() > capture::limits::MAX_CAPTURE_BYTES {
        eprintln!(
            "{}: invalid capture: {} bytes exceed the limit of {}",
            path.display(),
            meta.len(),
            capture::limits::MAX_CAPTURE_BYTES
        );
        return Err(ExitCode::from(1));
    }
    let bytes = std::fs::read(path)
        .map_err(|e| io_error(&format!("cannot read {}: {e}", path.display())))?;
    capture::load(&bytes, path.parent()).map_err(|e| {
        eprintln!("{}: invalid capture: {e}", path.display());
        ExitCode::from(1)
    })
}

/// `softhal disasm CAPTURE`: the canonical text form on stdout.
pub fn disasm(path: &Path) -> ExitCode {
    match load(path) {
        Ok(c) => {
            print!("{}", capture::text::to_text(&c));
            ExitCode::SUCCESS
        }
        Err(code) => code,
    }
}

/// `softhal asm CAPTURE.txt -o CAPTURE.bin`.
pub fn asm(path: &Path, output: &Path) -> ExitCode {
    let c = match load(path) {
        Ok(c) => c,
        Err(code) => return code,
    };
    match std::fs::write(output, capture::binary::encode(&c)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => io_error(&format!("cannot write {}: {e}", output.display())),
    }
}

/// `softhal validate CAPTURE`: the capture loads; command streams that do
/// not decode are listed (they may be deliberate: the recorded answer says
/// what the driver made of them) but do not make the capture invalid.
pub fn validate(path: &Path, json_out: bool) -> ExitCode {
    let c = match load(path) {
        Ok(c) => c,
        Err(code) => {
            if json_out {
                println!("{}", json!({ "valid": false }));
            }
            return code;
        }
    };
    let s = info::summarize(&c);
    if json_out {
        let malformed: Vec<Value> = s
            .malformed
            .iter()
            .map(|m| json!({ "record": m.record, "error_offset": m.offset, "message": m.message }))
            .collect();
        println!(
            "{}",
            json!({ "valid": true, "capture": true, "records": s.records, "malformed_streams": malformed })
        );
    } else {
        println!(
            "{}: valid capture, {} record(s), {} DP2 call(s)",
            path.display(),
            s.records,
            s.calls.get("dp2").copied().unwrap_or(0)
        );
        for m in &s.malformed {
            println!(
                "  record {}: command stream does not decode at byte offset {}: {}",
                m.record, m.offset, m.message
            );
        }
    }
    ExitCode::SUCCESS
}

/// `softhal info CAPTURE`.
pub fn info(a: &InfoArgs) -> ExitCode {
    let c = match load(&a.capture) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let s = info::summarize(&c);
    let errors: Vec<Value> = s
        .errors
        .iter()
        .map(|e| {
            json!({
                "record": e.record,
                "call": e.call,
                "ddrval": codes::format_hresult(e.ddrval),
                "error_offset": e.error_offset,
            })
        })
        .collect();
    if a.json {
        println!(
            "{}",
            json!({
                "records": s.records,
                "calls": s.calls,
                "surfaces": s.surfaces,
                "commands": s.commands,
                "command_bytes": s.command_bytes,
                "vertex_bytes": s.vertex_bytes,
                "frames": s.frames,
                "answers": s.answers,
                "errors": errors,
            })
        );
        return ExitCode::SUCCESS;
    }
    println!("{}: {} record(s)", a.capture.display(), s.records);
    println!("calls:");
    for (k, v) in &s.calls {
        println!("  {k:<24} {v}");
    }
    println!("surfaces:");
    for (k, v) in &s.surfaces {
        println!("  {k:<24} {v}");
    }
    println!("commands:");
    for (k, v) in &s.commands {
        println!("  {k:<40} {v}");
    }
    println!(
        "command bytes {}, user-memory vertex bytes {}, frames {}",
        s.command_bytes, s.vertex_bytes, s.frames
    );
    println!("recorded answers {}, errors {}", s.answers, s.errors.len());
    for e in &s.errors {
        println!(
            "  record {} {}: {} (dwErrorOffset {})",
            e.record,
            e.call,
            codes::format_hresult(e.ddrval),
            e.error_offset
        );
    }
    ExitCode::SUCCESS
}

fn write_png(path: &Path, f: &capture::replay::Frame) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), f.width, f.height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc
        .write_header()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    w.write_image_data(&f.rgba)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    w.finish().map_err(|e| format!("{}: {e}", path.display()))
}

/// `softhal render`.
pub fn render(a: &RenderArgs) -> ExitCode {
    let c = match load(&a.capture) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if let Err(e) = std::fs::create_dir_all(&a.output) {
        return io_error(&format!("cannot create {}: {e}", a.output.display()));
    }
    // The progress bar appears only once the replay has run for a second,
    // and never with --quiet or when stdout is not a terminal.
    let show_bar = !a.quiet && !a.json && std::io::stdout().is_terminal();
    let start = Instant::now();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let timeout = (a.timeout != 0).then(|| Duration::from_millis(a.timeout));
    let result = capture::replay_with_timeout(&c, a.threads, timeout, |done, total| {
        if !show_bar {
            return;
        }
        if bar.is_none() && start.elapsed() > Duration::from_secs(1) {
            let b = indicatif::ProgressBar::new(total as u64);
            b.set_message("replaying");
            bar = Some(b);
        }
        if let Some(b) = &bar {
            b.set_position(done as u64);
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let r = match result {
        Ok(r) => r,
        Err(e) => return io_error(&format!("cannot start the driver: {e}")),
    };
    if r.hangs > 0 {
        eprintln!(
            "softhal: {}: GPU work ran past --timeout {} ms: {} submission(s) stopped, their context(s) removed (D3DDDIERR_DEVICEREMOVED); no images written",
            a.capture.display(),
            a.timeout,
            r.hangs
        );
        return ExitCode::from(1);
    }
    let mut images = Vec::new();
    for (i, f) in r.frames.iter().enumerate() {
        images.push((
            "frame",
            i + 1,
            a.output.join(format!("frame-{:04}.png", i + 1)),
            f,
        ));
    }
    for (i, f) in r.finals.iter().enumerate() {
        images.push((
            "final",
            i + 1,
            a.output.join(format!("final-{}.png", i + 1)),
            f,
        ));
    }
    let mut listed = Vec::new();
    for (kind, n, path, f) in &images {
        if let Err(e) = write_png(path, f) {
            return io_error(&format!("cannot write {e}"));
        }
        listed.push(json!({
            "kind": kind,
            "index": n,
            "record": f.record,
            "surface": format!("{:#x}", f.surface),
            "width": f.width,
            "height": f.height,
            "checksum": format!("{:016x}", f.checksum),
            "png": path.display().to_string(),
        }));
        if !a.json && !a.quiet {
            println!(
                "{kind} {n}: record {} surface {:#x} {}x{} fnv1a64={:016x} {}",
                f.record,
                f.surface,
                f.width,
                f.height,
                f.checksum,
                path.display()
            );
        }
    }
    let differ = a.check && !r.differences.is_empty();
    if a.json {
        let diffs: Vec<Value> = r
            .differences
            .iter()
            .map(|d| json!({ "record": d.record, "call": d.call, "detail": d.detail }))
            .collect();
        println!(
            "{}",
            json!({
                "images": listed,
                "checked": a.check,
                "differences": if a.check { diffs } else { Vec::new() },
                "ok": !differ,
            })
        );
    } else if a.check {
        for d in &r.differences {
            eprintln!(
                "{}: record {} ({}): {}",
                a.capture.display(),
                d.record,
                d.call,
                d.detail
            );
        }
        if !differ && !a.quiet {
            println!(
                "check: all {} recorded answer(s) match",
                c.records.iter().filter(|r| r.answer().is_some()).count()
            );
        }
    }
    if differ {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
