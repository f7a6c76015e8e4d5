//! The inspector's replay: drives a [`Replayer`] record by record (and a
//! DrawPrimitives2 call draw by draw), timing each call, snapshotting the
//! render target, depth buffer and textures of each draw into thumbnails,
//! reading the device state at each draw and the GPU counters around it.
//!
//! In: a loaded capture and [`Options`]. Out: a [`Report`] (plain data the
//! HTML writer turns into pages) and the thumbnails, written through an
//! [`Output`] that counts every byte against the `--max-output-mb` budget.

use super::{MAX_SPANS_PER_DRAW, MAX_SPANS_TOTAL, THUMB_MAX};
use crate::capture_verbs::Span;
use softhal_capture::replay::{call_options, Frame, FrameKind, Refusal, Sink, Step};
use softhal_capture::{Capture, Dp2Call, Record, Replayer};
use softhal_device::state::DeviceState;
use softhal_device::{dp2, DeviceError};
use softhal_wire::names::{self, codes, RenderStateType, TextureStageStateType};
use softhal_wire::{Decoder, Opcode};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What `inspect` was asked for.
#[derive(Debug, Clone)]
pub struct Options {
    /// Frames to inspect (all when `None`).
    pub frames: Option<Span>,
    /// Draws inspected at most.
    pub max_draws: usize,
    /// Bytes written at most.
    pub max_bytes: u64,
    /// `--pixel` coordinates.
    pub pixels: Vec<(u32, u32)>,
    /// Rasterizer threads.
    pub threads: usize,
    /// GPU timeout per submission.
    pub timeout: Option<Duration>,
}

/// Where the report's files go, and how many bytes went there.
#[derive(Debug)]
pub struct Output {
    /// The report's folder.
    pub dir: PathBuf,
    /// Bytes written so far.
    pub bytes: u64,
    /// The budget.
    pub max_bytes: u64,
    /// The budget was reached: no more thumbnails.
    pub full: bool,
    /// The first file that could not be written.
    pub error: Option<String>,
    /// Texture thumbnails already written, by content checksum.
    written: HashMap<u64, String>,
}

impl Output {
    /// An output folder with a byte budget.
    pub fn new(dir: &Path, max_bytes: u64) -> Self {
        Output {
            dir: dir.to_path_buf(),
            bytes: 0,
            max_bytes,
            full: false,
            error: None,
            written: HashMap::new(),
        }
    }

    /// Writes `bytes` as `name` (counted against the budget, which text
    /// pages may overrun by one page so that the report stays navigable).
    pub fn write(&mut self, name: &str, bytes: &[u8]) {
        if self.error.is_some() {
            return;
        }
        let path = self.dir.join(name);
        match std::fs::write(&path, bytes) {
            Ok(()) => self.bytes = self.bytes.saturating_add(bytes.len() as u64),
            Err(e) => self.error = Some(format!("{}: {e}", path.display())),
        }
        if self.bytes >= self.max_bytes {
            self.full = true;
        }
    }

    /// Writes an RGBA8 thumbnail as PNG (`None` once the budget is spent).
    fn png(&mut self, name: String, img: &Thumb) -> Option<String> {
        if self.full || self.error.is_some() {
            return None;
        }
        let buf = softhal_pipeline::encode_png_rgba8(img.width, img.height, &img.rgba).ok()?;
        self.write(&name, &buf);
        self.error.is_none().then_some(name)
    }

    /// A texture thumbnail, written once per distinct content.
    fn texture_png(&mut self, img: &Thumb) -> Option<String> {
        let key = softhal_capture::fnv1a64(&img.rgba) ^ (u64::from(img.width) << 32);
        if let Some(n) = self.written.get(&key) {
            return Some(n.clone());
        }
        let name = self.png(format!("tex-{key:016x}.png"), img)?;
        self.written.insert(key, name.clone());
        Some(name)
    }
}

/// A downscaled RGBA8 image.
#[derive(Debug, Clone)]
struct Thumb {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
}

/// The thumbnail size of a `w`×`h` image: at most [`THUMB_MAX`] on a
/// side, aspect kept, never upscaled.
fn thumb_size(w: u32, h: u32) -> (u32, u32) {
    let m = w.max(h).max(1);
    if m <= THUMB_MAX {
        return (w.max(1), h.max(1));
    }
    let s = |v: u32| ((u64::from(v) * u64::from(THUMB_MAX) / u64::from(m)) as u32).max(1);
    (s(w), s(h))
}

/// Nearest-sample downscale of `w`×`h` pixels read by `px(x, y)`.
fn thumb(w: u32, h: u32, px: impl Fn(u32, u32) -> [u8; 4]) -> Thumb {
    let (tw, th) = thumb_size(w, h);
    let mut rgba = Vec::with_capacity(tw as usize * th as usize * 4);
    for ty in 0..th {
        let y = (u64::from(ty) * u64::from(h) / u64::from(th)) as u32;
        for tx in 0..tw {
            let x = (u64::from(tx) * u64::from(w) / u64::from(tw)) as u32;
            rgba.extend_from_slice(&px(x, y));
        }
    }
    Thumb {
        width: tw,
        height: th,
        rgba,
    }
}

fn thumb_rgba(w: u32, h: u32, rgba: &[u8]) -> Thumb {
    thumb(w, h, |x, y| {
        let i = (y as usize * w as usize + x as usize) * 4;
        rgba.get(i..i + 4)
            .and_then(|p| <[u8; 4]>::try_from(p).ok())
            .unwrap_or([0; 4])
    })
}

/// One driver call of the timeline.
#[derive(Debug, Clone)]
pub struct CallInfo {
    /// Record index in the capture.
    pub record: usize,
    /// Record name (`dp2`, `clear2`, `present`, ...).
    pub name: &'static str,
    /// The record's first line in the capture's text form.
    pub text: String,
    /// Wall time of its replay, GPU work included.
    pub time: Duration,
    /// The driver refused it.
    pub refusal: Option<Refusal>,
    /// DrawPrimitives2: its commands.
    pub commands: Vec<CommandInfo>,
    /// DrawPrimitives2: its draws (indices into [`Report::draws`]).
    pub draws: Vec<usize>,
}

/// One DP2 command of a call.
#[derive(Debug, Clone)]
pub struct CommandInfo {
    /// Offset from the start of the command surface (as `dwErrorOffset`).
    pub offset: usize,
    /// The disassembler's line for it.
    pub text: String,
    /// What became of it.
    pub fate: Fate,
    /// The draw it is (index into [`Report::draws`]).
    pub draw: Option<usize>,
}

/// What became of a DP2 command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Executed.
    Done,
    /// The command the driver refused (at `dwErrorOffset`).
    Refused,
    /// After the refused command: never executed.
    NotReached,
}

/// One draw (a DP2 command that draws primitives, or a CLEAR).
#[derive(Debug, Clone)]
pub struct DrawInfo {
    /// Number from 1 over the report.
    pub number: usize,
    /// Frame (1 + frames presented before it).
    pub frame: usize,
    /// Record of its DrawPrimitives2 call.
    pub record: usize,
    /// Its command's offset in the command surface.
    pub offset: usize,
    /// Its opcode's DDK name.
    pub opcode: &'static str,
    /// Wall time of the DrawPrimitives2 piece that ends with it.
    pub time: Duration,
    /// GPU counters over the piece: primitives, pixels shaded, samples
    /// that passed depth/stencil, pixels written.
    pub primitives: u64,
    /// Pixels shaded: the fragments the primitives covered inside the
    /// viewport and scissor rectangle, before any test.
    pub pixels_shaded: u64,
    /// Samples that passed the depth/stencil tests.
    pub samples_passed: u64,
    /// Pixels whose colour was written.
    pub pixels_written: u64,
    /// Pixels whose value differs after the draw.
    pub pixels_changed: u64,
    /// The recorded handle of the render target.
    pub surface: u32,
    /// Render target size.
    pub width: u32,
    /// Render target size.
    pub height: u32,
    /// Thumbnail of the render target after the draw.
    pub target_png: Option<String>,
    /// Thumbnail of the depth buffer after the draw (grey: the nearest
    /// depth in it black, the farthest white).
    pub depth_png: Option<String>,
    /// The depths shown black and white.
    pub depth_range: (f32, f32),
    /// (stage, recorded handle, thumbnail) of each texture it samples.
    pub textures: Vec<(usize, u32, Option<String>)>,
    /// (name, before, after) since the previous draw of the context.
    pub changes: Vec<(String, String, String)>,
    /// (name, value) of every state that differs from the defaults.
    pub state: Vec<(String, String)>,
    /// Changed pixels as (y, x0, x1) runs, x1 exclusive.
    pub spans: Vec<(u32, u32, u32)>,
    /// More spans than [`MAX_SPANS_PER_DRAW`]: the list is cut.
    pub spans_cut: bool,
    /// (x, y, before, after RGBA) for each `--pixel` the draw changed.
    pub pixels: Vec<(u32, u32, [u8; 4], [u8; 4])>,
}

/// One frame of the report.
#[derive(Debug, Clone, Default)]
pub struct FrameInfo {
    /// Number from 1.
    pub number: usize,
    /// Its calls, in order.
    pub calls: Vec<CallInfo>,
    /// Thumbnail of the presented image.
    pub presented_png: Option<String>,
}

/// What the report leaves out.
#[derive(Debug, Clone, Copy, Default)]
pub struct LeftOut {
    /// Calls of unselected frames (`--frames`).
    pub calls_outside_frames: usize,
    /// Draws past `--max-draws` or the byte budget.
    pub draws: usize,
}

impl LeftOut {
    /// Something was left out beyond the `--frames` selection.
    pub fn any(&self) -> bool {
        self.draws > 0
    }
}

/// Everything the pages show.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Records in the capture.
    pub records: usize,
    /// Inspected frames, in order.
    pub frames: Vec<FrameInfo>,
    /// Every inspected draw.
    pub draws: Vec<DrawInfo>,
    /// What was left out.
    pub left_out: LeftOut,
    /// GPU submissions stopped by the timeout.
    pub hangs: u64,
}

impl Report {
    /// Draws inspected.
    pub fn draw_count(&self) -> usize {
        self.draws.len()
    }
    /// Every refused call of the inspected frames, with its frame.
    pub fn refusals(&self) -> impl Iterator<Item = (usize, &CallInfo, &Refusal)> {
        self.frames.iter().flat_map(|f| {
            f.calls
                .iter()
                .filter_map(move |c| c.refusal.as_ref().map(|r| (f.number, c, r)))
        })
    }
}

/// One row of a pixel's history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixelRow {
    /// The draw's number.
    pub draw: usize,
    /// Its frame.
    pub frame: usize,
    /// Its DrawPrimitives2 record.
    pub record: usize,
    /// Its opcode.
    pub opcode: &'static str,
    /// The render target (recorded handle).
    pub surface: u32,
    /// The pixel before and after the draw (RGBA8).
    pub before: [u8; 4],
    /// After.
    pub after: [u8; 4],
}

/// The draws that wrote pixel (x, y), by the inspector's approximation: a
/// draw "wrote" the pixel if its value differs between the render target
/// just before and just after the draw (a draw that writes the value
/// already there, or whose write is masked, is not seen).
pub fn approximate_pixel_history(report: &Report, x: u32, y: u32) -> Vec<PixelRow> {
    report
        .draws
        .iter()
        .filter_map(|d| {
            let &(_, _, before, after) = d.pixels.iter().find(|p| p.0 == x && p.1 == y)?;
            Some(PixelRow {
                draw: d.number,
                frame: d.frame,
                record: d.record,
                opcode: d.opcode,
                surface: d.surface,
                before,
                after,
            })
        })
        .collect()
}

/// The full per-stage history of pixel (x, y): every draw that touched
/// it with the outcome of each stage (scissor, alpha, stencil, depth,
/// blend, write mask).
///
/// The rows come from the pipeline's pixel watch
/// (`softhal_capture::pixel_history`: every draw that produced a fragment
/// at the pixel, each fragment's tests with the values compared, its
/// shaded colour and blend), in the words `softhal pixel-history` prints;
/// `None` when the replay cannot run (the report then shows
/// [`approximate_pixel_history`]).
///
/// Each row is one line of text, shown escaped in a `pixel-stage-row` of
/// the pixel's table.
pub fn full_pixel_history(
    capture: &Capture,
    x: u32,
    y: u32,
    threads: usize,
) -> Option<Vec<String>> {
    let report = softhal_capture::pixel_history(capture, (x, y), None, threads).ok()?;
    Some(
        report
            .draws
            .iter()
            .flat_map(|d| {
                crate::pixel_history::draw_text(d)
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect(),
    )
}

/// Receives frames and steps from the replayer.
#[derive(Default)]
struct EventSink {
    presented: usize,
    /// A frame presented by the last step, with its thumbnail.
    presented_now: Option<Frame>,
    refusal: Option<Refusal>,
}

impl Sink for EventSink {
    fn frame(&mut self, f: Frame) {
        if f.kind == FrameKind::Presented {
            self.presented += 1;
            self.presented_now = Some(f);
        }
    }
    fn step(&mut self, step: Step) {
        self.refusal = step.refusal;
    }
}

/// The state of one context at a draw, as (name, value) by DDK names.
fn state_entries(s: &DeviceState) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for (i, v) in s.render_states.iter().enumerate() {
        let i = i as u32;
        let name = RenderStateType::TABLE
            .name_of(i)
            .map_or_else(|| format!("D3DRS_{i}"), str::to_string);
        let kind = names::render_state_value_kind(i);
        m.insert(name, names::format_value(kind, *v));
    }
    for (stage, tss) in s.texture_stages.iter().enumerate() {
        for (i, v) in tss.iter().enumerate() {
            let i = i as u32;
            let name = TextureStageStateType::TABLE
                .name_of(i)
                .map_or_else(|| format!("D3DTSS_{i}"), str::to_string);
            let kind = names::texture_stage_value_kind(i);
            m.insert(
                format!("stage {stage} {name}"),
                names::format_value(kind, *v),
            );
        }
    }
    for (k, mat) in &s.transforms {
        m.insert(names::ddi_types::transform_name(*k), format!("{mat:?}"));
    }
    let v = &s.viewport;
    m.insert(
        "viewport (VIEWPORTINFO, ZRANGE)".into(),
        format!(
            "dwX={} dwY={} dwWidth={} dwHeight={} dvMinZ={} dvMaxZ={}",
            v.x, v.y, v.width, v.height, v.min_z, v.max_z
        ),
    );
    m.insert("WINFO".into(), format!("{:?}", s.w_range));
    if let Some(mat) = &s.material {
        let f: Vec<String> = mat.iter().map(|b| names::format_float_bits(*b)).collect();
        m.insert("material (D3DMATERIAL7)".into(), f.join(" "));
    }
    for (i, l) in s.lights.iter().enumerate() {
        m.insert(format!("light {i}"), format!("{l:?}"));
    }
    m.insert("scissor".into(), format!("{:?}", s.scissor));
    m.insert("vertex input".into(), format!("{:?}", s.vertex_input));
    m.insert("streams".into(), format!("{:?}", s.streams));
    m.insert("indices".into(), format!("{:?}", s.indices));
    m.insert(
        "vertex shader function".into(),
        s.vertex_shader_func.to_string(),
    );
    m.insert("pixel shader".into(), s.pixel_shader.to_string());
    let consts = |c: &softhal_device::state::Constants| {
        format!("{:016x}", softhal_capture::fnv1a64(&consts_bytes(c)))
    };
    m.insert(
        "vertex shader constants (FNV-1a 64)".into(),
        consts(&s.vs_consts),
    );
    m.insert(
        "pixel shader constants (FNV-1a 64)".into(),
        consts(&s.ps_consts),
    );
    m
}

fn consts_bytes(c: &softhal_device::state::Constants) -> Vec<u8> {
    let mut b = Vec::new();
    for v in c.f.iter().chain(c.i.iter()) {
        for w in v {
            b.extend_from_slice(&w.to_le_bytes());
        }
    }
    for w in &c.b {
        b.extend_from_slice(&w.to_le_bytes());
    }
    b
}

/// The state entries that differ from the device defaults.
fn non_default(
    now: &BTreeMap<String, String>,
    defaults: &BTreeMap<String, String>,
) -> Vec<(String, String)> {
    now.iter()
        .filter(|(k, v)| defaults.get(*k) != Some(*v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The entries that differ between two states.
fn changes(
    before: &BTreeMap<String, String>,
    now: &BTreeMap<String, String>,
) -> Vec<(String, String, String)> {
    now.iter()
        .filter_map(|(k, v)| {
            let b = before.get(k).cloned().unwrap_or_default();
            (b != *v).then(|| (k.clone(), b, v.clone()))
        })
        .collect()
}

/// The stages a draw samples: from stage 0 up to the first whose
/// D3DTSS_COLOROP is D3DTOP_DISABLE, those with a texture bound.
fn sampled_stages(s: &DeviceState) -> Vec<(usize, u32)> {
    let color_op = TextureStageStateType::ColorOp.raw() as usize;
    let disable = names::TextureOp::Disable.raw();
    let handles = s.texture_handles();
    s.texture_stages
        .iter()
        .take_while(|t| t.get(color_op).copied() != Some(disable))
        .enumerate()
        .filter_map(|(i, _)| handles.get(i).copied().filter(|h| *h != 0).map(|h| (i, h)))
        .collect()
}

/// Changed pixels between two images of the same size as runs (at most
/// `max` kept; the flag says some were not).
fn changed_spans(
    w: u32,
    h: u32,
    a: &[u8],
    b: &[u8],
    max: usize,
) -> (Vec<(u32, u32, u32)>, u64, bool) {
    let mut spans = Vec::new();
    let mut count = 0u64;
    let mut cut = false;
    let row = w as usize * 4;
    for y in 0..h {
        let start = y as usize * row;
        let (Some(ra), Some(rb)) = (a.get(start..start + row), b.get(start..start + row)) else {
            break;
        };
        if ra == rb {
            continue;
        }
        let mut run: Option<u32> = None;
        for x in 0..=w {
            let differs = x < w && {
                let i = x as usize * 4;
                ra.get(i..i + 4) != rb.get(i..i + 4)
            };
            match (differs, run) {
                (true, None) => run = Some(x),
                (false, Some(x0)) => {
                    count += u64::from(x - x0);
                    if spans.len() < max {
                        spans.push((y, x0, x));
                    } else {
                        cut = true;
                    }
                    run = None;
                }
                _ => {}
            }
        }
    }
    (spans, count, cut)
}

/// The inspector's replay of a whole capture.
struct Inspector<'a> {
    opts: &'a Options,
    out: &'a mut Output,
    rp: Replayer,
    sink: EventSink,
    report: Report,
    /// The last state seen at a draw, per recorded context.
    last_state: HashMap<u32, BTreeMap<String, String>>,
    defaults: BTreeMap<String, String>,
    current: FrameInfo,
    /// Changed-pixel spans kept so far (bounded by [`MAX_SPANS_TOTAL`]).
    spans_kept: usize,
}

/// Replays `c` and builds the report, writing thumbnails into `out`.
pub fn inspect(c: &Capture, opts: &Options, out: &mut Output) -> Result<Report, DeviceError> {
    let mut rp = Replayer::new(opts.threads)?;
    rp.driver_mut().set_gpu_timeout(opts.timeout);
    let mut ins = Inspector {
        opts,
        out,
        rp,
        sink: EventSink::default(),
        report: Report {
            records: c.records.len(),
            ..Report::default()
        },
        last_state: HashMap::new(),
        defaults: state_entries(&DeviceState::default()),
        current: FrameInfo {
            number: 1,
            ..FrameInfo::default()
        },
        spans_kept: 0,
    };
    for (i, rec) in c.records.iter().enumerate() {
        ins.record(i, rec);
    }
    ins.rp.driver_mut().wait_for_gpu();
    let hangs = ins.rp.driver().kmd().stats().hangs;
    let mut report = ins.report;
    if !ins.current.calls.is_empty() && selected(opts, ins.current.number) {
        report.frames.push(ins.current);
    }
    report.hangs = hangs;
    Ok(report)
}

fn selected(opts: &Options, frame: usize) -> bool {
    opts.frames.is_none_or(|s| s.contains(frame))
}

fn first_line(r: &Record) -> String {
    let mut t = String::new();
    softhal_capture::text::write_record(&mut t, r);
    bounded(t.lines().next().unwrap_or_default().to_string(), 160)
}

/// `s` cut to `max` characters, saying how many were left out.
fn bounded(s: String, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s;
    }
    let mut short: String = s.chars().take(max).collect();
    short.push_str(&format!(" … ({} more characters)", n - max));
    short
}

impl Inspector<'_> {
    fn frame_selected(&self) -> bool {
        selected(self.opts, self.current.number)
    }

    fn can_inspect_draw(&self) -> bool {
        self.report.draws.len() < self.opts.max_draws && !self.out.full
    }

    fn record(&mut self, i: usize, rec: &Record) {
        if !self.frame_selected() {
            self.report.left_out.calls_outside_frames += 1;
            self.plain_step(i, rec);
            self.after_step();
            return;
        }
        let call = match rec {
            Record::DrawPrimitives2 { call, answer } => self.dp2(i, rec, call, answer.as_ref()),
            _ => {
                let time = self.plain_step(i, rec);
                CallInfo {
                    record: i,
                    name: rec.name(),
                    text: first_line(rec),
                    time,
                    refusal: self.sink.refusal.take(),
                    commands: Vec::new(),
                    draws: Vec::new(),
                }
            }
        };
        self.current.calls.push(call);
        self.after_step();
    }

    /// After a step: a presented frame closes the current frame.
    fn after_step(&mut self) {
        if let Some(f) = self.sink.presented_now.take() {
            let sel = self.frame_selected();
            if sel {
                let t = thumb_rgba(f.width, f.height, &f.rgba);
                self.current.presented_png = self
                    .out
                    .png(format!("frame-{:04}.png", self.current.number), &t);
            }
            let next = FrameInfo {
                number: self.sink.presented + 1,
                ..FrameInfo::default()
            };
            let done = std::mem::replace(&mut self.current, next);
            if sel {
                self.report.frames.push(done);
            }
        }
    }

    /// Replays one record as it is, timing it with its GPU work.
    fn plain_step(&mut self, i: usize, rec: &Record) -> Duration {
        self.sink.refusal = None;
        let t0 = Instant::now();
        self.rp.step(i, rec, &mut self.sink);
        self.rp.driver_mut().wait_for_gpu();
        t0.elapsed()
    }

    /// A DrawPrimitives2 call: its commands, replayed draw by draw.
    fn dp2(
        &mut self,
        i: usize,
        rec: &Record,
        c: &Dp2Call,
        recorded: Option<&softhal_capture::Answer>,
    ) -> CallInfo {
        let opts = call_options(c);
        let base = c.command_offset as usize;
        let mut commands = Vec::new();
        // Piece ends (exclusive byte offsets into the call's bytes): just
        // after each draw or CLEAR.
        let mut ends = Vec::new();
        let mut decoded_to = 0usize;
        for item in Decoder::new(&c.command_bytes, opts) {
            let Ok(cmd) = item else { break };
            let op = Opcode::from_raw(cmd.header.command);
            let is_draw = op.is_some_and(|o| o.draws_primitives() || o == Opcode::Clear);
            commands.push(CommandInfo {
                offset: base + cmd.offset,
                text: bounded(softhal_wire::text::format_command(&cmd), 600),
                fate: Fate::Done,
                draw: None,
            });
            decoded_to = cmd.offset + cmd.size;
            if is_draw {
                ends.push((decoded_to, commands.len() - 1, op.map_or("", |o| o.name())));
            }
        }
        if decoded_to < c.command_bytes.len() {
            commands.push(CommandInfo {
                offset: base + decoded_to,
                text: format!(
                    "({} byte(s) that do not decode)",
                    c.command_bytes.len() - decoded_to
                ),
                fate: Fate::Done,
                draw: None,
            });
        }
        let mut info = CallInfo {
            record: i,
            name: rec.name(),
            text: first_line(rec),
            time: Duration::ZERO,
            refusal: None,
            commands,
            draws: Vec::new(),
        };
        // Splitting needs the bytes of the whole call (a capture records
        // them; a hand-written one could record fewer).
        let split = !ends.is_empty()
            && self.can_inspect_draw()
            && c.command_bytes.len() == c.command_length as usize;
        if !split {
            info.time = self.plain_step(i, rec);
            info.refusal = self.sink.refusal.take();
            if !ends.is_empty() {
                self.report.left_out.draws += ends.len();
            }
            mark_refused(&mut info);
            return info;
        }
        let mut start = 0usize;
        let mut rstates = c.rstates.clone();
        let mut pieces: Vec<(usize, Option<(usize, &'static str)>)> = ends
            .iter()
            .map(|&(e, ci, name)| (e, Some((ci, name))))
            .collect();
        if start < c.command_bytes.len() && ends.last().is_none_or(|l| l.0 < c.command_bytes.len())
        {
            pieces.push((c.command_bytes.len(), None));
        }
        // Buffer swaps and size requests happen once, at the end of the
        // call: only its last piece asks for them.
        let end_of_call = dp2::D3DHALDP2_SWAPVERTEXBUFFER
            | dp2::D3DHALDP2_SWAPCOMMANDBUFFER
            | dp2::D3DHALDP2_REQVERTEXBUFSIZE
            | dp2::D3DHALDP2_REQCOMMANDBUFSIZE;
        let last = pieces.len();
        for (n, (end, draw)) in pieces.into_iter().enumerate() {
            let Some(bytes) = c.command_bytes.get(start..end) else {
                break;
            };
            let flags = if n + 1 == last {
                c.flags
            } else {
                c.flags & !end_of_call
            };
            let piece = Dp2Call {
                command_offset: c.command_offset + start as u32,
                command_length: bytes.len() as u32,
                command_bytes: bytes.to_vec(),
                rstates: rstates.clone(),
                flags,
                ..c.clone()
            };
            let piece_rec = Record::DrawPrimitives2 {
                call: Box::new(piece),
                answer: None,
            };
            let inspect = draw.is_some() && self.can_inspect_draw();
            let snap = if inspect {
                self.before(c.context)
            } else {
                None
            };
            let counters0 = self.counters(c.context);
            self.sink.refusal = None;
            let t0 = Instant::now();
            let ans = self.rp.step(i, &piece_rec, &mut self.sink);
            self.rp.driver_mut().wait_for_gpu();
            let time = t0.elapsed();
            info.time += time;
            if let Some(a) = &ans {
                rstates = a.rstates.clone().or(rstates);
            }
            let refusal = self.sink.refusal.take();
            match (draw, inspect) {
                (Some((ci, opcode)), true) => {
                    let counters1 = self.counters(c.context);
                    let d = self.after(
                        i,
                        c.context,
                        ci,
                        opcode,
                        time,
                        snap,
                        counters0,
                        counters1,
                        info.commands.get(ci).map_or(0, |x| x.offset),
                    );
                    if let Some(cmd) = info.commands.get_mut(ci) {
                        cmd.draw = Some(d);
                    }
                    info.draws.push(d);
                }
                (Some(_), false) => self.report.left_out.draws += 1,
                _ => {}
            }
            if let Some(mut r) = refusal {
                r.recorded = recorded.is_some_and(|a| a.ddrval == r.ddrval);
                info.refusal = Some(r);
                break;
            }
            start = end;
        }
        mark_refused(&mut info);
        info
    }

    fn counters(&mut self, ctx: u32) -> softhal_submit::ContextCounters {
        let live = self.rp.live_context(ctx);
        self.rp.driver_mut().gpu_counters(live).unwrap_or_default()
    }

    /// The render target of recorded context `ctx` before a draw.
    fn before(&mut self, ctx: u32) -> Option<(u32, u32, u32, Vec<u8>)> {
        let live = self.rp.live_context(ctx);
        let d = self.rp.driver();
        let rt = d.context(live).ok()?.render_target;
        let img = d.image(rt).ok()?;
        Some((rt, img.width(), img.height(), img.to_rgba8()))
    }

    #[allow(clippy::too_many_arguments)]
    fn after(
        &mut self,
        record: usize,
        ctx: u32,
        _cmd_index: usize,
        opcode: &'static str,
        time: Duration,
        before: Option<(u32, u32, u32, Vec<u8>)>,
        c0: softhal_submit::ContextCounters,
        c1: softhal_submit::ContextCounters,
        offset: usize,
    ) -> usize {
        let number = self.report.draws.len() + 1;
        let live = self.rp.live_context(ctx);
        let mut d = DrawInfo {
            number,
            frame: self.current.number,
            record,
            offset,
            opcode,
            time,
            primitives: c1.primitives.saturating_sub(c0.primitives),
            pixels_shaded: c1.pixels_shaded.saturating_sub(c0.pixels_shaded),
            samples_passed: c1.samples_passed.saturating_sub(c0.samples_passed),
            pixels_written: c1.pixels_written.saturating_sub(c0.pixels_written),
            pixels_changed: 0,
            surface: 0,
            width: 0,
            height: 0,
            target_png: None,
            depth_png: None,
            depth_range: (0.0, 1.0),
            textures: Vec::new(),
            changes: Vec::new(),
            state: Vec::new(),
            spans: Vec::new(),
            spans_cut: false,
            pixels: Vec::new(),
        };
        let driver = self.rp.driver();
        let Ok(context) = driver.context(live) else {
            self.report.draws.push(d);
            return number - 1;
        };
        let (rt, depth) = (context.render_target, context.depth);
        let state = context.state.clone();
        let after = driver
            .image(rt)
            .ok()
            .map(|img| (img.width(), img.height(), img.to_rgba8()));
        let depth_thumb = depth.and_then(|h| driver.image(h).ok()).map(|z| {
            // Grey, stretched so that the nearest depth in the image is
            // black and the farthest white (depth buffers crowd near 1).
            let t = thumb(z.width(), z.height(), |x, y| {
                let v = z.read_depth(x, y).unwrap_or(0.0).clamp(0.0, 1.0);
                v.to_le_bytes()
            });
            let vals: Vec<f32> = t
                .rgba
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            let lo = vals.iter().copied().fold(1.0f32, f32::min);
            let hi = vals.iter().copied().fold(0.0f32, f32::max);
            // One depth everywhere: shown as itself (0 black, 1 white).
            let (lo, hi) = if hi > lo { (lo, hi) } else { (0.0, 1.0) };
            let rgba = vals
                .iter()
                .flat_map(|v| {
                    let g = (((v - lo) / (hi - lo)).clamp(0.0, 1.0) * 255.0).round() as u8;
                    [g, g, g, 255]
                })
                .collect();
            (Thumb { rgba, ..t }, lo, hi)
        });
        let tex_thumbs: Vec<(usize, u32, Option<Thumb>)> = sampled_stages(&state)
            .into_iter()
            .map(|(stage, h)| {
                let t = driver
                    .surface(h)
                    .ok()
                    .and_then(|r| r.texture())
                    .and_then(|t| {
                        let l = t.level(0, 0)?;
                        let (w, h, _) = t.level_size(0)?;
                        Some(thumb(w, h, |x, y| {
                            l.texel(x, y, 0)
                                .map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8)
                        }))
                    });
                (stage, h, t)
            })
            .collect();
        d.surface = self.recorded_surface(rt);
        if let Some((w, h, rgba)) = &after {
            d.width = *w;
            d.height = *h;
            if let Some((brt, bw, bh, b)) = &before {
                if *brt == rt && *bw == *w && *bh == *h {
                    let max =
                        MAX_SPANS_PER_DRAW.min(MAX_SPANS_TOTAL.saturating_sub(self.spans_kept));
                    let (spans, count, cut) = changed_spans(*w, *h, b, rgba, max);
                    self.spans_kept += spans.len();
                    d.spans = spans;
                    d.pixels_changed = count;
                    d.spans_cut = cut;
                    for &(x, y) in &self.opts.pixels {
                        if x < *w && y < *h {
                            let i = (y as usize * *w as usize + x as usize) * 4;
                            let px = |v: &[u8]| {
                                v.get(i..i + 4)
                                    .and_then(|p| <[u8; 4]>::try_from(p).ok())
                                    .unwrap_or_default()
                            };
                            let (pb, pa) = (px(b), px(rgba));
                            if pb != pa {
                                d.pixels.push((x, y, pb, pa));
                            }
                        }
                    }
                }
            }
            let t = thumb_rgba(*w, *h, rgba);
            d.target_png = self.out.png(format!("draw-{number:05}.png"), &t);
        }
        if let Some((t, lo, hi)) = depth_thumb {
            d.depth_png = self.out.png(format!("draw-{number:05}-depth.png"), &t);
            d.depth_range = (lo, hi);
        }
        for (stage, h, t) in tex_thumbs {
            let png = t.and_then(|t| self.out.texture_png(&t));
            d.textures.push((stage, self.recorded_surface(h), png));
        }
        let now = state_entries(&state);
        let prev = self.last_state.get(&ctx).unwrap_or(&self.defaults);
        d.changes = changes(prev, &now);
        d.state = non_default(&now, &self.defaults);
        self.last_state.insert(ctx, now);
        self.report.draws.push(d);
        number - 1
    }

    fn recorded_surface(&self, live: u32) -> u32 {
        self.rp.recorded_surface(live)
    }
}

/// Marks the command at the refusal's `dwErrorOffset` refused and those
/// after it not reached.
fn mark_refused(info: &mut CallInfo) {
    let Some(r) = &info.refusal else { return };
    if info.name != "dp2" || r.ddrval == codes::D3D_OK {
        return;
    }
    let at = r.error_offset as usize;
    for c in &mut info.commands {
        if c.offset == at {
            c.fate = Fate::Refused;
        } else if c.offset > at {
            c.fate = Fate::NotReached;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thumbnails_are_bounded_and_keep_the_aspect() {
        assert_eq!(thumb_size(64, 64), (64, 64));
        assert_eq!(thumb_size(640, 480), (192, 144));
        assert_eq!(thumb_size(4096, 1), (192, 1));
        assert_eq!(thumb_size(0, 0), (1, 1));
    }

    #[test]
    fn changed_pixels_become_runs() {
        // 4×2: row 0 pixels 1 and 2 change, row 1 pixel 3 changes.
        let a = vec![0u8; 4 * 2 * 4];
        let mut b = a.clone();
        b[4] = 1;
        b[8 + 3] = 9;
        b[16 + 12] = 5;
        let (spans, n, cut) = changed_spans(4, 2, &a, &b, 10);
        assert_eq!(spans, vec![(0, 1, 3), (1, 3, 4)]);
        assert_eq!(n, 3);
        assert!(!cut);
        // A bound keeps the first runs, counts every pixel and says so.
        let (spans, n, cut) = changed_spans(4, 2, &a, &b, 1);
        assert_eq!(spans, vec![(0, 1, 3)]);
        assert_eq!(n, 3);
        assert!(cut);
    }
}
