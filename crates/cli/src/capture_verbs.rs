//! The capture verbs: `render`, `info`, and the capture side of `asm`,
//! `disasm` and `validate`.
//!
//! In: a capture file, binary (starts with the `SHALCAP` magic) or text
//! (first directive `.capture`), see `docs/capture-format.md`. Out: PNGs
//! and checksums (`render`), counts (`info`), the other form of the capture
//! (`asm` / `disasm`), a verdict (`validate`); text or `--json` on stdout,
//! one-line errors on stderr naming the file, the record and the byte
//! offset (binary) or line (text). `render` streams: each image is written
//! as the replay presents it and its pixels dropped, so its memory is the
//! capture's live surfaces, not its length; a cut capture replays every
//! complete record before the cut, then reports the cut. Exit codes: 0 ok,
//! 1 invalid or cut capture, (`render`) a call the driver refused that the
//! capture did not record as refused, (`render --check`) answers that
//! differ; 2 usage or I/O error.

use serde_json::{json, Value};
use softhal_capture::{self as capture, info, replay, Capture, FrameKind};
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
    #[arg(long, value_name = "N", default_value_t = crate::DEFAULT_THREADS, value_parser = crate::threads_arg)]
    pub threads: usize,
    /// Longest time one GPU submission may run, in milliseconds (0: no
    /// limit); work past it is stopped (its context removed), the images
    /// presented before it are written, and `render` exits 1.
    #[arg(long, value_name = "MS", default_value_t = softhal_submit::limits::DEFAULT_GPU_TIMEOUT_MS)]
    pub timeout: u64,
    /// Compare the driver's answers with the recorded ones; exit 1 on any
    /// difference.
    #[arg(long)]
    pub check: bool,
    /// Exit 0 even when the driver refused calls the capture did not
    /// record as refused (they are still reported).
    #[arg(long)]
    pub allow_refused: bool,
    /// Exit 0 for a cut capture whose complete records replayed (the cut
    /// is still reported).
    #[arg(long)]
    pub allow_truncated: bool,
    /// No progress bar and no per-frame lines (errors and differences are
    /// still reported).
    #[arg(long)]
    pub quiet: bool,
    /// Write only the presented frames A..B (numbered from 1 as in their
    /// file names, inclusive: `3`, `2..5`, `2..`, `..4`); the replay still
    /// runs every record. Draw snapshots are limited to these frames too.
    #[arg(long, value_name = "A..B", value_parser = span_arg)]
    pub frames: Option<Span>,
    /// Snapshot the render target after DrawPrimitives2 calls A..B
    /// (numbered from 1 over the whole capture, inclusive), as
    /// `draw-FFFF-CCCC.png`: frame F, call C.
    #[arg(long, value_name = "A..B", value_parser = span_arg)]
    pub calls: Option<Span>,
    /// Snapshot the render target after every DrawPrimitives2 call (of the
    /// selected frames and calls), as `draw-FFFF-CCCC.png`.
    #[arg(long)]
    pub every_draw: bool,
    /// Encode no PNG (and create no folder): only the FNV-1a 64 checksum
    /// of each selected image, for CI.
    #[arg(long)]
    pub checksums_only: bool,
    /// With --check: compare each presented frame and final image with
    /// the PNG of the same name in DIR (`frame-0001.png`, or
    /// `CAPTURE-frame-0001.png` as in testdata/goldens/captures, CAPTURE
    /// the capture's file name without `.shcap` / `.shcap.txt`), and
    /// report per channel where they differ (as `softhal compare`).
    #[arg(long, value_name = "DIR", requires = "check")]
    pub against: Option<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

/// An inclusive range of 1-based numbers (`--frames`, `--calls`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// First number in the range.
    pub first: usize,
    /// Last number in the range.
    pub last: usize,
}

impl Span {
    /// `n` is in the range.
    pub fn contains(self, n: usize) -> bool {
        (self.first..=self.last).contains(&n)
    }
}

/// Parses `A..B`, `A..`, `..B` or `A` (1-based, inclusive, A ≤ B).
pub(crate) fn span_arg(s: &str) -> Result<Span, String> {
    let num = |t: &str, empty: usize| -> Result<usize, String> {
        if t.is_empty() {
            return Ok(empty);
        }
        match t.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(format!("{t:?} is not a number from 1")),
        }
    };
    let (first, last) = match s.split_once("..") {
        Some((a, b)) => (num(a, 1)?, num(b, usize::MAX)?),
        None if !s.is_empty() => {
            let n = num(s, 1)?;
            (n, n)
        }
        None => return Err("expected A..B, A.., ..B or A".into()),
    };
    if first > last {
        return Err(format!("{s}: the range is empty ({first} > {last})"));
    }
    Ok(Span { first, last })
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

fn io_error(json_out: bool, msg: &str) -> ExitCode {
    crate::fail(json_out, 2, "io", msg, Value::Null)
}

/// Where a capture load failed, for `--json` (`record` and `error_offset`
/// for the binary form, `line` for the text form).
fn load_error_detail(e: &capture::AnyLoadError) -> Value {
    match e {
        capture::AnyLoadError::Binary(b) => json!({ "record": b.record, "error_offset": b.offset }),
        capture::AnyLoadError::Text(t) => json!({ "line": t.line }),
        capture::AnyLoadError::NotACapture => Value::Null,
    }
}

fn invalid_capture(json_out: bool, path: &Path, e: &capture::AnyLoadError) -> ExitCode {
    let kind = if e.is_cut() {
        "cut_capture"
    } else {
        "invalid_capture"
    };
    let m = format!("{}: invalid capture: {e}", path.display());
    crate::fail(json_out, 1, kind, &m, load_error_detail(e))
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

/// Loads a capture that may have been cut, reporting other errors as the
/// verbs do (1 invalid, 2 I/O).
pub(crate) fn load_prefix(path: &Path, json_out: bool) -> Result<capture::Loaded, ExitCode> {
    let meta = std::fs::metadata(path)
        .map_err(|e| io_error(json_out, &format!("cannot read {}: {e}", path.display())))?;
    if meta.len() > capture::limits::MAX_CAPTURE_BYTES {
        let m = format!(
            "{}: invalid capture: {} bytes exceed the limit of {}",
            path.display(),
            meta.len(),
            capture::limits::MAX_CAPTURE_BYTES
        );
        return Err(crate::fail(json_out, 1, "invalid_capture", &m, Value::Null));
    }
    let bytes = std::fs::read(path)
        .map_err(|e| io_error(json_out, &format!("cannot read {}: {e}", path.display())))?;
    capture::load_prefix(&bytes, path.parent()).map_err(|e| invalid_capture(json_out, path, &e))
}

/// Loads a whole capture (a cut is an error).
pub(crate) fn load(path: &Path, json_out: bool) -> Result<Capture, ExitCode> {
    match load_prefix(path, json_out)? {
        capture::Loaded { capture, cut: None } => Ok(capture),
        capture::Loaded { cut: Some(e), .. } => Err(invalid_capture(json_out, path, &e)),
    }
}

/// `softhal disasm CAPTURE`: the canonical text form on stdout (`--json`:
/// `{"ok": true, "records": N, "text": ...}`).
pub fn disasm(path: &Path, json_out: bool) -> ExitCode {
    match load(path, json_out) {
        Ok(c) => {
            let text = capture::text::to_text(&c);
            if json_out {
                println!(
                    "{}",
                    json!({ "ok": true, "records": c.records.len(), "text": text })
                );
            } else {
                print!("{text}");
            }
            ExitCode::SUCCESS
        }
        Err(code) => code,
    }
}

/// `softhal asm CAPTURE.txt -o CAPTURE.bin` (stdout without `-o`).
pub fn asm(path: &Path, output: Option<&Path>) -> ExitCode {
    match load(path, false) {
        Ok(c) => crate::dp2::write_output(output, &capture::binary::encode(&c)),
        Err(code) => code,
    }
}

/// `softhal validate CAPTURE`: the capture loads; command streams that do
/// not decode are listed (they may be deliberate: the recorded answer says
/// what the driver made of them) but do not make the capture invalid.
pub fn validate(path: &Path, json_out: bool) -> ExitCode {
    let c = match load(path, json_out) {
        Ok(c) => c,
        Err(code) => return code,
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
            json!({ "ok": true, "valid": true, "capture": true, "records": s.records, "malformed_streams": malformed })
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

/// A DX8 declaration's elements as JSON: stream, offset, `D3DVSDT_` type,
/// register and its `D3DVSDE_` name.
fn declaration_json(d: &info::DeclarationSummary) -> Value {
    let elements: Vec<Value> = d
        .elements
        .iter()
        .map(|e| {
            json!({
                "stream": e.stream,
                "offset": e.offset,
                "type": e.ty.name(),
                "register": e.register,
                "register_name": softhal_shader::decl8::register_name(e.register),
            })
        })
        .collect();
    json!({ "elements": elements, "constants": d.constants, "error": d.error })
}

/// A DX8 declaration's elements, one a line, under its shader's line.
fn print_declaration(d: &info::DeclarationSummary) {
    if let Some(e) = &d.error {
        println!("    declaration: invalid: {e}");
        return;
    }
    println!(
        "    declaration: {} element(s), {} constant register(s)",
        d.elements.len(),
        d.constants
    );
    for e in &d.elements {
        println!(
            "      stream {} offset {}: {} -> v{} ({})",
            e.stream,
            e.offset,
            e.ty.name(),
            e.register,
            softhal_shader::decl8::register_name(e.register).unwrap_or("?"),
        );
    }
}

/// `softhal info CAPTURE`.
pub fn info(a: &InfoArgs) -> ExitCode {
    let c = match load(&a.capture, a.json) {
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
    let shaders: Vec<Value> = s
        .shaders
        .iter()
        .map(|sh| {
            json!({
                "record": sh.record,
                "command": sh.opcode.name(),
                "handle": sh.handle,
                "kind": sh.kind,
                "version": sh.version,
                "instructions": sh.instructions,
                "valid": sh.error.is_none(),
                "error": sh.error,
                "declaration": sh.declaration.as_ref().map(declaration_json),
            })
        })
        .collect();
    if a.json {
        println!(
            "{}",
            json!({
                "ok": true,
                "records": s.records,
                "shaders": shaders,
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
    println!("shaders: {}", s.shaders.len());
    for sh in &s.shaders {
        let instructions = sh.instructions.map_or_else(
            || "? instructions".to_string(),
            |n| format!("{n} instructions"),
        );
        let validity = sh
            .error
            .as_ref()
            .map_or_else(|| "valid".to_string(), |e| format!("invalid: {e}"));
        println!(
            "  record {} handle {:#x} {} {} ({}), {instructions}, {validity}",
            sh.record,
            sh.handle,
            sh.kind,
            sh.version.unwrap_or("no version"),
            sh.opcode.name(),
        );
        if let Some(d) = &sh.declaration {
            print_declaration(d);
        }
    }
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

pub(crate) fn write_png(path: &Path, f: &capture::replay::Frame) -> Result<(), String> {
    crate::compare::write_rgba_png(path, f.width, f.height, &f.rgba)
}

/// The golden of image `file` of `capture` in `dir`: `dir/file`, or
/// `dir/STEM-file` (STEM: the capture's file name without `.shcap.txt` /
/// `.shcap`), whichever exists.
fn golden_path(dir: &Path, capture: &Path, file: &str) -> Option<PathBuf> {
    let name = capture.file_name()?.to_string_lossy().to_string();
    let stem = name
        .strip_suffix(".shcap.txt")
        .or_else(|| name.strip_suffix(".shcap"))
        .unwrap_or(&name);
    [dir.join(file), dir.join(format!("{stem}-{file}"))]
        .into_iter()
        .find(|p| p.is_file())
}

/// The sink of `render`: writes each selected image as the replay
/// produces it and drops its pixels; keeps the lists that are reported at
/// the end.
struct RenderSink<'a> {
    a: &'a RenderArgs,
    presented: usize,
    finals: usize,
    images: Vec<Value>,
    /// Each difference from a recorded answer, with the presented frame
    /// it is about (a frame checksum).
    differences: Vec<(replay::Difference, Option<usize>)>,
    /// The record and number of the last presented frame.
    last_presented: Option<(usize, usize)>,
    /// Images that differ from their golden (`--against`): message, JSON.
    golden_differences: Vec<(String, Value)>,
    refusals: Vec<replay::Refusal>,
    /// The first PNG that could not be written or golden that could not
    /// be read (the replay goes on; no further images are written).
    write_error: Option<String>,
    progress: Progress,
}

impl RenderSink<'_> {
    /// `--against`: how `f` differs from its golden (`None`: no golden).
    fn against(&mut self, f: &replay::Frame, file: &str) -> Option<Value> {
        let dir = self.a.against.as_ref()?;
        let Some(path) = golden_path(dir, &self.a.capture, file) else {
            return Some(json!({ "golden": null }));
        };
        let golden = match crate::compare::read_png(&path) {
            Ok(g) => g,
            Err(e) => {
                self.write_error.get_or_insert(e);
                return None;
            }
        };
        let got = crate::compare::Image {
            width: f.width,
            height: f.height,
            rgba: f.rgba.clone(),
        };
        let c = crate::compare::compare(&golden, &got, 0);
        let mut v = c.to_json();
        if let Value::Object(m) = &mut v {
            m.insert("golden".into(), json!(path.display().to_string()));
        }
        if c.differs() {
            let m = format!("{file} differs from {}: {}", path.display(), c.summary());
            self.golden_differences.push((m, v.clone()));
        }
        Some(v)
    }
}

impl replay::Sink for RenderSink<'_> {
    fn frame(&mut self, f: replay::Frame) {
        let (n, kind) = match f.kind {
            FrameKind::Presented => {
                self.presented += 1;
                self.last_presented = Some((f.record, self.presented));
                (self.presented, "frame")
            }
            FrameKind::Final => {
                self.finals += 1;
                (self.finals, "final")
            }
            FrameKind::Draw { call, .. } => (call, "draw"),
        };
        self.progress.frame(self.presented);
        if f.kind == FrameKind::Presented && self.a.frames.is_some_and(|s| !s.contains(n)) {
            return;
        }
        if self.write_error.is_some() {
            return;
        }
        let file = f.kind.file_name(n);
        let png = if self.a.checksums_only {
            None
        } else {
            let path = self.a.output.join(&file);
            if let Err(e) = write_png(&path, &f) {
                self.write_error = Some(e);
                return;
            }
            Some(path.display().to_string())
        };
        let against = match f.kind {
            FrameKind::Draw { .. } => None,
            _ => self.against(&f, &file),
        };
        let label = match f.kind {
            FrameKind::Draw { frame, call } => format!("draw {frame}/{call}"),
            _ => format!("{kind} {n}"),
        };
        if !self.a.json && !self.a.quiet {
            self.progress.println(&format!(
                "{label}: record {} surface {:#x} {}x{} fnv1a64={:016x}{}",
                f.record,
                f.surface,
                f.width,
                f.height,
                f.checksum,
                png.as_ref().map_or(String::new(), |p| format!(" {p}"))
            ));
        }
        let mut v = json!({
            "kind": kind,
            "index": n,
            "record": f.record,
            "surface": format!("{:#x}", f.surface),
            "width": f.width,
            "height": f.height,
            "checksum": format!("{:016x}", f.checksum),
            "png": png,
        });
        if let (FrameKind::Draw { frame, call }, Value::Object(m)) = (f.kind, &mut v) {
            m.insert("frame".into(), json!(frame));
            m.insert("call".into(), json!(call));
        }
        if let (Some(c), Value::Object(m)) = (against, &mut v) {
            m.insert("against".into(), c);
        }
        self.images.push(v);
    }

    fn step(&mut self, step: replay::Step) {
        self.progress.record(step.index + 1);
        self.refusals.extend(step.refusal);
        let frame = self
            .last_presented
            .filter(|(record, _)| *record == step.index)
            .map(|(_, n)| n);
        self.differences
            .extend(step.differences.into_iter().map(|d| (d, frame)));
    }

    fn snapshot_after_draw(&mut self, frame: usize, call: usize) -> bool {
        let a = self.a;
        (a.every_draw || a.calls.is_some())
            && a.calls.is_none_or(|s| s.contains(call))
            && a.frames.is_none_or(|s| s.contains(frame))
    }
}

/// `render`'s progress bar on stderr: the frames presented of those the
/// capture presents (records replayed for a capture that presents none),
/// the record being replayed, elapsed time and ETA. It appears once the
/// replay has run for a second, never with `--quiet` or `--json`, and only
/// on a terminal.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    enabled: bool,
    start: Instant,
    records: usize,
    frames: u64,
    done: usize,
    presented: usize,
}

impl Progress {
    fn new(enabled: bool, records: usize, frames: u64) -> Self {
        Progress {
            bar: None,
            enabled: enabled && std::io::stderr().is_terminal(),
            start: Instant::now(),
            records,
            frames,
            done: 0,
            presented: 0,
        }
    }
    fn record(&mut self, done: usize) {
        self.done = done;
        if self.enabled && self.bar.is_none() && self.start.elapsed() > Duration::from_secs(1) {
            let (len, unit) = if self.frames > 0 {
                (self.frames, "frames")
            } else {
                (self.records as u64, "records")
            };
            let pos = if self.frames > 0 {
                self.presented
            } else {
                self.done
            };
            let b = indicatif::ProgressBar::new(len)
                .with_position(pos as u64)
                .with_message(format!("record {}/{}", self.done, self.records))
                .with_elapsed(self.start.elapsed());
            b.set_style(
                indicatif::ProgressStyle::with_template(&format!(
                    "replaying [{{bar:30}}] {{pos}}/{{len}} {unit} ({{msg}}), {{elapsed}} elapsed, ETA {{eta}}"
                ))
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            self.bar = Some(b);
        }
        self.draw();
    }
    fn frame(&mut self, presented: usize) {
        self.presented = presented;
        self.draw();
    }
    fn draw(&self) {
        if let Some(b) = &self.bar {
            let pos = if self.frames > 0 {
                self.presented
            } else {
                self.done
            };
            b.set_position(pos as u64);
            b.set_message(format!("record {}/{}", self.done, self.records));
        }
    }
    fn println(&self, line: &str) {
        match &self.bar {
            Some(b) => b.suspend(|| println!("{line}")),
            None => println!("{line}"),
        }
    }
    fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}

/// `softhal render`: replays the capture (every complete record of a cut
/// one), writing each image as it is produced.
pub fn render(a: &RenderArgs) -> ExitCode {
    let capture::Loaded { capture: c, cut } = match load_prefix(&a.capture, a.json) {
        Ok(l) => l,
        Err(code) => return code,
    };
    if !a.checksums_only {
        if let Err(e) = std::fs::create_dir_all(&a.output) {
            return io_error(
                a.json,
                &format!("cannot create {}: {e}", a.output.display()),
            );
        }
    }
    let frames = info::summarize(&c).frames;
    let mut sink = RenderSink {
        a,
        presented: 0,
        finals: 0,
        images: Vec::new(),
        differences: Vec::new(),
        last_presented: None,
        golden_differences: Vec::new(),
        refusals: Vec::new(),
        write_error: None,
        progress: Progress::new(!a.quiet && !a.json, c.records.len(), frames),
    };
    let timeout = (a.timeout != 0).then(|| std::time::Duration::from_millis(a.timeout));
    let result = capture::replay_into(&c, a.threads, timeout, &mut sink);
    sink.progress.finish();
    let hangs = match result {
        Ok(h) => h,
        Err(e) => {
            return crate::fail(
                a.json,
                2,
                "driver",
                &format!("cannot start the driver: {e}"),
                Value::Null,
            )
        }
    };
    if let Some(e) = &sink.write_error {
        return io_error(a.json, &format!("cannot write {e}"));
    }
    let name = a.capture.display();
    // Refusals the capture recorded as refused are what it shows; the
    // others mean the replay did not do what the capture did.
    let unexpected = sink.refusals.iter().filter(|r| !r.recorded).count();
    let differ = a.check && (!sink.differences.is_empty() || !sink.golden_differences.is_empty());
    let failed = differ
        || hangs > 0
        || (unexpected > 0 && !a.allow_refused)
        || (cut.is_some() && !a.allow_truncated);
    if hangs > 0 {
        eprintln!(
            "{name}: GPU work ran past --timeout {} ms: {hangs} submission(s) stopped, their context(s) removed (D3DDDIERR_DEVICEREMOVED)",
            a.timeout
        );
    }
    for r in &sink.refusals {
        let offset = if r.call == "dp2" {
            format!(" at dwErrorOffset {}", r.error_offset)
        } else {
            String::new()
        };
        let reason = r
            .reason
            .as_ref()
            .map_or(String::new(), |w| format!(": {w}"));
        eprintln!(
            "{name}: record {} ({}) refused{}: {}{offset}{reason}",
            r.record,
            r.call,
            if r.recorded { " as recorded" } else { "" },
            codes::format_hresult(r.ddrval),
        );
    }
    if a.check {
        for (d, frame) in &sink.differences {
            let at = frame.map_or(String::new(), |n| format!(", frame {n}"));
            eprintln!("{name}: record {} ({}{at}): {}", d.record, d.call, d.detail);
        }
        for (m, _) in &sink.golden_differences {
            eprintln!("{name}: {m}");
        }
    }
    if let Some(e) = &cut {
        eprintln!(
            "{name}: cut capture: replayed the {} complete record(s) before the cut; {e}",
            c.records.len()
        );
    }
    if a.json {
        let diffs: Vec<Value> = sink
            .differences
            .iter()
            .map(|(d, frame)| {
                let mut v = json!({ "record": d.record, "call": d.call, "detail": d.detail });
                if let (Some(n), Value::Object(m)) = (frame, &mut v) {
                    m.insert("frame".into(), json!(n));
                }
                v
            })
            .collect();
        let refusals: Vec<Value> = sink
            .refusals
            .iter()
            .map(|r| {
                json!({
                    "record": r.record,
                    "call": r.call,
                    "ddrval": codes::format_hresult(r.ddrval),
                    "error_offset": r.error_offset,
                    "reason": r.reason,
                    "recorded": r.recorded,
                })
            })
            .collect();
        let cut_json = cut
            .as_ref()
            .map(|e| crate::error_json("cut_capture", &e.to_string(), load_error_detail(e)));
        let mut out = json!({
                "ok": !failed,
                "images": sink.images,
                "records": c.records.len(),
                "checked": a.check,
                "differences": if a.check { diffs } else { Vec::new() },
                "refusals": refusals,
                "cut": cut_json,
                "gpu_timeouts": hangs,
        });
        if let (Some(_), Value::Object(m)) = (&a.against, &mut out) {
            let g: Vec<Value> = sink
                .golden_differences
                .iter()
                .map(|(_, v)| v.clone())
                .collect();
            m.insert("golden_differences".into(), Value::Array(g));
        }
        println!("{out}");
    } else if a.check
        && sink.differences.is_empty()
        && sink.golden_differences.is_empty()
        && !a.quiet
    {
        println!(
            "check: all {} recorded answer(s) match",
            c.records.iter().filter(|r| r.answer().is_some()).count()
        );
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
