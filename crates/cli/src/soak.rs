//! `softhal soak`: a bounded load test of one driver with several contexts.
//!
//! In: a duration, a context count, a seed. Out: a report (text or JSON)
//! of what ran and whether the device held up; exit status 0 when every
//! check passed, 1 otherwise.
//!
//! Each iteration submits one DrawPrimitives2 call to the next context
//! (round robin), drawn from three classes (weights 70/20/10, chosen with a
//! seeded splitmix64, so a run is reproducible up to timing):
//! * **valid** streams — clears, strips, fans, lists, lines, points, state
//!   blocks, queries, with fresh random vertices — which must succeed on a
//!   context no other class has touched since it was created (a mutated
//!   stream may legitimately leave a context recording a state block);
//!   touched ("tainted") contexts are destroyed and recreated every
//!   `RECREATE_EVERY` iterations;
//! * **mutated** streams — a valid stream with 1–8 bytes flipped, then
//!   possibly truncated or spliced with another — any answer is fine;
//! * **adversarial** streams — primitive counts far beyond the vertices,
//!   NaN / infinite / huge vertices, unknown opcodes, random bytes, call
//!   ranges beyond the command surface, and handle churn (a texture and a
//!   vertex buffer created, bound, destroyed, then named again).
//!
//! Every call runs inside `catch_unwind`; a panic is counted (it must
//! never happen). Every `CANARY_EVERY` iterations a separate canary
//! context renders a fixed scene and its pixels are compared bit-exactly
//! with its first rendering (no state leaks across contexts, P9).
//! Resident memory is read from `/proc/self/statm` after set-up and at the
//! end; after the churn objects and every context are destroyed the
//! driver's surface and context counts must be back to their baseline.
//!
//! At every canary check the replay oracle runs too: a capture presenting
//! one render target `REPLAY_PRESENTS` times is cut at a random byte of its
//! binary form; the cut must be reported, the records before it must be
//! the capture's own, and they must replay with every presented frame
//! handed over at its Present, before the next record runs (frames
//! stream: a replay holds no frame list, so its memory does not grow with
//! the capture's length).
//!
//! Progress (seconds, iterations, calls, panics and unexpected answers so
//! far) is shown on stderr when it is a terminal and `--json` is not given.
//! This is a tool, not a timed test: nothing asserts on speed.

use crate::workloads::SplitMix64;
use clap::Args;
use softhal_device::{DrawPrimitives2Data, Driver, Format};
use softhal_wire::names::codes;
use softhal_wire::DecodeOptions;
use std::io::IsTerminal;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Arguments of `softhal soak`.
#[derive(Args, Debug)]
pub struct SoakArgs {
    /// How long to run, in seconds.
    #[arg(long, default_value_t = 10)]
    pub seconds: u64,
    /// Contexts submitted to (besides the canary).
    #[arg(long, default_value_t = 4)]
    pub contexts: usize,
    /// Renderer threads of the driver (0 or 1: the calling thread).
    #[arg(long, default_value_t = crate::DEFAULT_THREADS, value_parser = crate::threads_arg)]
    pub threads: usize,
    /// Seed of the stream choices and mutations.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The GPU timeout of one submission, in milliseconds (default: the
    /// driver's, 2,000). A context whose work the timeout stops is removed
    /// and the soak recreates it (`device_removals`); on a loaded machine a
    /// larger value keeps the soak about the streams.
    #[arg(long, value_name = "MS")]
    pub gpu_timeout_ms: Option<u64>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Iterations between canary checks.
const CANARY_EVERY: u64 = 500;
/// Iterations between recreations of the contexts mutated or adversarial
/// streams have touched.
const RECREATE_EVERY: u64 = 256;
/// Render-target size of every context.
const SIZE: u32 = 64;
/// Bytes per vertex (XYZRHW | DIFFUSE).
const STRIDE: usize = 20;
/// The vertex format of every stream.
const FVF: u32 = 0x44;

/// The report (`--json` prints it as one object).
#[derive(Debug, Default, serde::Serialize)]
pub struct Report {
    /// Wall time of the loop, in seconds.
    pub seconds: f64,
    /// Contexts submitted to (besides the canary).
    pub contexts: usize,
    /// Iterations run.
    pub iterations: u64,
    /// DrawPrimitives2 calls made (canary included).
    pub calls: u64,
    /// DrawPrimitives2 calls per second.
    pub calls_per_second: f64,
    /// Valid streams submitted.
    pub valid: u64,
    /// Mutated streams submitted.
    pub mutated: u64,
    /// Adversarial streams submitted.
    pub adversarial: u64,
    /// Panics caught (must be 0).
    pub panics: u64,
    /// Valid streams that did not succeed on a context only valid streams
    /// had touched, or adversarial ones whose answer was not the expected
    /// one (must be 0).
    pub unexpected_status: u64,
    /// Valid streams that failed on a context a mutated or adversarial
    /// stream had left in some state (e.g. recording a state block): not
    /// an error, counted for information.
    pub valid_failed_on_tainted: u64,
    /// Contexts destroyed and recreated (the tainted ones, every
    /// `RECREATE_EVERY` iterations).
    pub context_recreations: u64,
    /// Contexts the GPU watchdog removed (a submission ran past the GPU
    /// timeout, as on a starved machine) and the soak recreated, as a host
    /// recovering from `D3DDDIERR_DEVICEREMOVED` does. Not an error: the
    /// removal is the documented outcome of a timeout.
    pub device_removals: u64,
    /// The first unexpected status, described.
    pub first_unexpected: Option<String>,
    /// Canary renderings compared.
    pub canary_checks: u64,
    /// Canary renderings that differed from the first (must be 0).
    pub canary_mismatches: u64,
    /// Handle-churn cycles (create, bind, destroy, reuse).
    pub churn_cycles: u64,
    /// Churn cycles after which the surface or allocation count was not back to its
    /// baseline (must be 0).
    pub churn_leaks: u64,
    /// Resident set after set-up, KiB.
    pub rss_start_kib: u64,
    /// Resident set at the end of the loop, KiB.
    pub rss_end_kib: u64,
    /// Largest resident set seen at a canary check, KiB.
    pub rss_peak_kib: u64,
    /// `rss_end_kib - rss_start_kib` (may be negative).
    pub rss_growth_kib: i64,
    /// Resident set at the first canary check past half the duration,
    /// KiB.
    pub rss_half_kib: u64,
    /// `rss_end_kib - rss_half_kib`: growth in the second half (a
    /// plateau is ≈ 0; a leak keeps growing).
    pub rss_growth_second_half_kib: i64,
    /// Live surfaces of a fresh driver before set-up (0).
    pub surfaces_baseline: usize,
    /// Kernel GPU contexts of a fresh driver (its own two).
    pub gpu_contexts_baseline: usize,
    /// Kernel allocations of a fresh driver.
    pub allocations_baseline: usize,
    /// Live surfaces after tearing everything down.
    pub surfaces_end: usize,
    /// Live contexts after tearing everything down.
    pub contexts_end: usize,
    /// Kernel GPU contexts after tearing everything down.
    pub gpu_contexts_end: usize,
    /// Kernel allocations after tearing everything down.
    pub allocations_end: usize,
    /// Register shadows the driver keeps after tearing everything down
    /// (0).
    pub register_shadows_end: usize,
    /// Everything the driver holds (`Driver::object_counts`: surfaces,
    /// contexts, GPU contexts, allocations, register shadows) back to
    /// its value for a fresh driver.
    pub objects_back_to_baseline: bool,
    /// Median latency of one call, microseconds.
    pub p50_us: u64,
    /// 99th-percentile latency of one call, microseconds.
    pub p99_us: u64,
    /// Slowest call, microseconds.
    pub max_us: u64,
    /// Replay-oracle runs (a cut capture replayed, at each canary check).
    pub replay_checks: u64,
    /// Replay-oracle runs that failed: a cut not reported, records that
    /// are not the capture's own, or a frame not handed over at its
    /// Present (must be 0).
    pub replay_failures: u64,
    /// The first replay-oracle failure, described.
    pub first_replay_failure: Option<String>,
    /// Every check passed (`ok`, as in every verb's JSON).
    pub ok: bool,
}

/// Resident set size in KiB (`/proc/self/statm`; 0 where unavailable).
pub fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .nth(1)
                .and_then(|v| v.parse::<u64>().ok())
        })
        .map_or(0, |pages| pages * 4)
}

/// Latencies in 1 µs buckets up to 65.5 ms (a fixed allocation, so the
/// histogram does not grow the resident set it is measuring).
struct Histogram {
    buckets: Vec<u64>,
    max: u64,
    n: u64,
}

impl Histogram {
    fn new() -> Self {
        Histogram {
            buckets: vec![0; 1 << 16],
            max: 0,
            n: 0,
        }
    }
    fn add(&mut self, d: Duration) {
        let us = u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
        self.max = self.max.max(us);
        self.n += 1;
        let i = usize::try_from(us)
            .unwrap_or(usize::MAX)
            .min(self.buckets.len() - 1);
        self.buckets[i] += 1;
    }
    fn quantile(&self, q: f64) -> u64 {
        let want = ((self.n as f64) * q).ceil() as u64;
        let mut seen = 0;
        for (i, c) in self.buckets.iter().enumerate() {
            seen += c;
            if seen >= want.max(1) {
                return i as u64;
            }
        }
        self.max
    }
}

fn asm(src: &str) -> Vec<u8> {
    let opts = DecodeOptions {
        vertex_stride: STRIDE as u32,
        base_align: 0,
    };
    // The templates below are fixed text; the smoke test runs each.
    softhal_wire::text::assemble_with(src, opts).unwrap_or_default()
}

/// One pre-transformed vertex.
fn vertex(x: f32, y: f32, z: f32, color: u32) -> [u8; STRIDE] {
    let mut v = [0u8; STRIDE];
    for (i, f) in [x, y, z, 1.0].iter().enumerate() {
        v[i * 4..i * 4 + 4].copy_from_slice(&f.to_le_bytes());
    }
    v[16..].copy_from_slice(&color.to_le_bytes());
    v
}

fn random_vertices(rng: &mut SplitMix64, n: usize) -> Vec<u8> {
    let s = SIZE as f64;
    (0..n)
        .flat_map(|_| {
            let x = (rng.f() * (s + 16.0) - 8.0) as f32;
            let y = (rng.f() * (s + 16.0) - 8.0) as f32;
            let z = rng.f() as f32;
            vertex(x, y, z, rng.next_u64() as u32 | 0xFF00_0000)
        })
        .collect()
}

const PRELUDE: &str = "VIEWPORTINFO { dwX=0 dwY=0 dwWidth=64 dwHeight=64 }\n\
    ZRANGE { dvMinZ=0.0 dvMaxZ=1.0 }\n\
    RENDERSTATE { RenderState=ZENABLE dwState=TRUE } { RenderState=ZFUNC dwState=LESSEQUAL } { RenderState=CULLMODE dwState=NONE }\n";

/// The valid stream templates: (assembly, vertices needed).
fn valid_templates() -> Vec<(Vec<u8>, usize)> {
    let t = |body: &str, n: usize| (asm(&format!("{PRELUDE}{body}")), n);
    vec![
        t("CLEAR { dwFlags=TARGET|ZBUFFER dwFillColor=0xFF203040 dvFillDepth=1.0 } { left=0 top=0 right=64 bottom=64 }\nTRIANGLELIST count=4 wVStart=0\n", 12),
        t("TRIANGLESTRIP count=6 wVStart=0\nTRIANGLEFAN count=4 wVStart=2\n", 8),
        t("LINELIST count=3 wVStart=0\nLINESTRIP count=4 wVStart=1\nPOINTS { wCount=6 wVStart=0 }\n", 6),
        t("RENDERSTATE { RenderState=SHADEMODE dwState=FLAT } { RenderState=ALPHABLENDENABLE dwState=TRUE } { RenderState=SRCBLEND dwState=SRCALPHA } { RenderState=DESTBLEND dwState=INVSRCALPHA }\nTRIANGLELIST count=2 wVStart=0\nRENDERSTATE { RenderState=ALPHABLENDENABLE dwState=FALSE } { RenderState=SHADEMODE dwState=GOURAUD }\n", 6),
        t("STATESET { dwOperation=D3DHAL_STATESETBEGIN dwParam=77 sbType=D3DSBT_ALL }\nRENDERSTATE { RenderState=FILLMODE dwState=WIREFRAME }\nSTATESET { dwOperation=D3DHAL_STATESETEND dwParam=77 sbType=D3DSBT_ALL }\nSTATESET { dwOperation=D3DHAL_STATESETEXECUTE dwParam=77 sbType=D3DSBT_ALL }\nTRIANGLELIST count=1 wVStart=0\nRENDERSTATE { RenderState=FILLMODE dwState=SOLID }\nSTATESET { dwOperation=D3DHAL_STATESETDELETE dwParam=77 sbType=D3DSBT_ALL }\n", 3),
        t("CREATEQUERY { dwQueryID=9 QueryType=D3DQUERYTYPE_OCCLUSION }\nISSUEQUERY { dwQueryID=9 dwFlags=D3DISSUE_BEGIN }\nTRIANGLELIST count=2 wVStart=0\nDELETEQUERY { dwQueryID=9 }\n", 6),
        t("INDEXEDTRIANGLELIST { wV1=0 wV2=1 wV3=2 wFlags=0x700 } { wV1=2 wV2=3 wV3=0 wFlags=0x700 }\n", 4),
    ]
}

/// Presents of the replay oracle's capture.
const REPLAY_PRESENTS: usize = 40;

/// The replay oracle's capture: a cleared 64 × 64 target presented
/// `REPLAY_PRESENTS` times, in binary form.
fn replay_capture() -> Vec<u8> {
    let mut src = String::from(
        ".capture 1\nsurface 0x1 render_target format=D3DFMT_X8R8G8B8 width=64 height=64\ncontext 0x10 target=0x1\nclear2 context=0x10 flags=D3DCLEAR_TARGET color=0xFF336699 rects=[0 0 64 64]\n",
    );
    for _ in 0..REPLAY_PRESENTS {
        src.push_str("present 0x1\n");
    }
    softhal_capture::text::from_text(&src, None)
        .map(|c| softhal_capture::binary::encode(&c))
        .unwrap_or_default()
}

/// One run of the replay oracle on `bytes` cut at `cut`: `Err` describes
/// the first broken promise.
pub fn replay_oracle(bytes: &[u8], cut: usize, threads: usize) -> Result<(), String> {
    use softhal_capture::{replay, Sink};
    let whole = softhal_capture::load(bytes, None).map_err(|e| format!("whole: {e}"))?;
    let part = bytes.get(..cut).ok_or("cut past the end")?;
    let loaded =
        softhal_capture::load_prefix(part, None).map_err(|e| format!("cut at {cut}: {e}"))?;
    if (cut < bytes.len()) != loaded.cut.is_some() {
        return Err(format!("cut at {cut} of {}: not reported", bytes.len()));
    }
    let n = loaded.capture.records.len();
    if whole.records.get(..n) != Some(loaded.capture.records.as_slice()) {
        return Err(format!(
            "cut at {cut}: the {n} records kept are not the capture's"
        ));
    }
    /// Checks that each frame arrives before the next record runs.
    struct Streaming {
        steps: usize,
        error: Option<String>,
    }
    impl Sink for Streaming {
        fn frame(&mut self, f: replay::Frame) {
            if f.kind == replay::FrameKind::Presented && f.record != self.steps {
                self.error.get_or_insert(format!(
                    "the frame of record {} arrived after {} record(s)",
                    f.record, self.steps
                ));
            }
        }
        fn step(&mut self, step: replay::Step) {
            self.steps = step.index + 1;
        }
    }
    let mut sink = Streaming {
        steps: 0,
        error: None,
    };
    softhal_capture::replay_into(&loaded.capture, threads, None, &mut sink)
        .map_err(|e| format!("driver: {e}"))?;
    match sink.error {
        Some(e) => Err(e),
        None if sink.steps != n => Err(format!("{} of {n} records replayed", sink.steps)),
        None => Ok(()),
    }
}

/// The canary: a fixed scene on its own context.
fn canary_stream() -> (Vec<u8>, Vec<u8>) {
    let cmds = asm(&format!(
        "{PRELUDE}CLEAR {{ dwFlags=TARGET|ZBUFFER dwFillColor=0xFF000000 dvFillDepth=1.0 }} {{ left=0 top=0 right=64 bottom=64 }}\nTRIANGLESTRIP count=2 wVStart=0\nTRIANGLELIST count=1 wVStart=4\n"
    ));
    let mut v = Vec::new();
    for (x, y, z, c) in [
        (4.0, 4.0, 0.5, 0xFFFF0000),
        (60.0, 4.0, 0.5, 0xFF00FF00),
        (4.0, 60.0, 0.5, 0xFF0000FF),
        (60.0, 60.0, 0.5, 0xFFFFFFFF),
        (10.0, 50.0, 0.25, 0xFFFFFF00),
        (32.0, 2.0, 0.25, 0xFF00FFFF),
        (54.0, 50.0, 0.25, 0xFFFF00FF),
    ] {
        v.extend_from_slice(&vertex(x, y, z, c));
    }
    (cmds, v)
}

/// What an adversarial stream must answer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Expect {
    /// Any answer (no panic is the only requirement).
    Any,
    /// `D3DERR_COMMAND_UNPARSED` at a command.
    Unparsed,
    /// `DDERR_INVALIDPARAMS` (a call-level range error).
    InvalidParams,
}

/// The device, the contexts and the counters of one run.
struct Soak {
    driver: Driver,
    /// (context, render target, depth, tainted by a non-valid stream).
    contexts: Vec<(u32, u32, u32, bool)>,
    surfaces: Vec<u32>,
    /// (context, render target, depth) of the canary.
    canary: (u32, u32, u32),
    rng: SplitMix64,
    valid: Vec<(Vec<u8>, usize)>,
    hist: Histogram,
    report: Report,
}

impl Soak {
    /// One DrawPrimitives2 call; `None` if it panicked.
    fn call(
        &mut self,
        ctx: u32,
        cmds: &[u8],
        verts: &[u8],
        offset: u32,
        length: u32,
    ) -> Option<(u32, u32)> {
        let start = Instant::now();
        let driver = &mut self.driver;
        let r = catch_unwind(AssertUnwindSafe(|| {
            let cb = driver.create_command_buffer_with(cmds).ok()?;
            let mut d = DrawPrimitives2Data::new(ctx, cb, length).with_user_vertices(
                FVF,
                verts,
                (verts.len() / STRIDE) as u32,
            );
            d.dw_command_offset = offset;
            d.ddrval = STRIDE as u32;
            driver.draw_primitives2(&mut d);
            let _ = driver.destroy_surface(cb);
            Some((d.ddrval, d.dw_error_offset))
        }));
        self.hist.add(start.elapsed());
        self.report.calls += 1;
        match r {
            Ok(Some((codes::D3DDDIERR_DEVICEREMOVED, _))) if self.driver.context_removed(ctx) => {
                self.recover_removed(ctx);
                None
            }
            Ok(answer) => answer,
            Err(_) => {
                self.report.panics += 1;
                None
            }
        }
    }

    /// Context `ctx` was removed by the GPU watchdog: destroy it and create
    /// another on the same surfaces, as a host does after
    /// `D3DDDIERR_DEVICEREMOVED`.
    fn recover_removed(&mut self, ctx: u32) {
        self.report.device_removals += 1;
        let _ = self.driver.context_destroy(ctx);
        let targets = if self.canary.0 == ctx {
            Some((self.canary.1, self.canary.2))
        } else {
            self.contexts
                .iter()
                .find(|c| c.0 == ctx)
                .map(|&(_, rt, z, _)| (rt, z))
        };
        let Some((rt, z)) = targets else { return };
        match self.driver.context_create(rt, Some(z)) {
            Ok(n) if self.canary.0 == ctx => self.canary.0 = n,
            Ok(n) => {
                if let Some(c) = self.contexts.iter_mut().find(|c| c.0 == ctx) {
                    *c = (n, rt, z, false);
                }
            }
            Err(e) => self.unexpected(format!("recreating a removed context failed: {e}")),
        }
    }

    fn unexpected(&mut self, what: String) {
        self.report.unexpected_status += 1;
        if self.report.first_unexpected.is_none() {
            self.report.first_unexpected = Some(what);
        }
    }

    fn valid(&mut self, ctx: u32, tainted: bool) {
        self.report.valid += 1;
        let i = (self.rng.next_u64() % self.valid.len() as u64) as usize;
        let (cmds, n) = self.valid[i].clone();
        let verts = random_vertices(&mut self.rng, n);
        if let Some((ddrval, off)) = self.call(ctx, &cmds, &verts, 0, cmds.len() as u32) {
            if ddrval != codes::D3D_OK && tainted {
                self.report.valid_failed_on_tainted += 1;
            } else if ddrval != codes::D3D_OK {
                let why = self
                    .driver
                    .last_error()
                    .map(|f| f.error.to_string())
                    .unwrap_or_default();
                self.unexpected(format!(
                    "valid stream {i} answered {} at {off}: {why}",
                    codes::format_hresult(ddrval)
                ));
            }
        }
    }

    fn mutated(&mut self, ctx: u32) {
        self.report.mutated += 1;
        let i = (self.rng.next_u64() % self.valid.len() as u64) as usize;
        let (mut cmds, n) = self.valid[i].clone();
        for _ in 0..1 + self.rng.next_u64() % 8 {
            if cmds.is_empty() {
                break;
            }
            let at = (self.rng.next_u64() % cmds.len() as u64) as usize;
            cmds[at] ^= 1 << (self.rng.next_u64() % 8);
        }
        match self.rng.next_u64() % 4 {
            0 => cmds.truncate((self.rng.next_u64() % (cmds.len() as u64 + 1)) as usize),
            1 => {
                let j = (self.rng.next_u64() % self.valid.len() as u64) as usize;
                let other = self.valid[j].0.clone();
                let cut = (self.rng.next_u64() % (other.len() as u64 + 1)) as usize;
                cmds.extend_from_slice(&other[cut..]);
            }
            _ => {}
        }
        let verts = random_vertices(&mut self.rng, n);
        let _ = self.call(ctx, &cmds, &verts, 0, cmds.len() as u32);
    }

    fn adversarial(&mut self, ctx: u32) {
        self.report.adversarial += 1;
        let few = random_vertices(&mut self.rng, 3);
        let (cmds, verts, offset, length, expect) = match self.rng.next_u64() % 7 {
            0 => {
                let c = asm("TRIANGLELIST count=65535 wVStart=0\n");
                let l = c.len() as u32;
                (c, few, 0, l, Expect::Unparsed)
            }
            1 => {
                let mut v = Vec::new();
                for (x, y) in [
                    (f32::NAN, 0.0),
                    (1e30, -1e30),
                    (f32::INFINITY, 5.0),
                    (-1e38, 1e38),
                    (0.0, f32::NEG_INFINITY),
                    (3e9, 3e9),
                ] {
                    v.extend_from_slice(&vertex(x, y, 0.5, 0xFFFFFFFF));
                }
                let c = asm(&format!("{PRELUDE}TRIANGLELIST count=2 wVStart=0\nPOINTS {{ wCount=6 wVStart=0 }}\nLINELIST count=3 wVStart=0\n"));
                let l = c.len() as u32;
                (c, v, 0, l, Expect::Any)
            }
            2 => {
                // An opcode no D3D version defines, and no hook installed.
                let c = vec![0xEE, 0, 1, 0, 0, 0, 0, 0];
                (c, few, 0, 8, Expect::Unparsed)
            }
            3 => {
                let n = 16 + (self.rng.next_u64() % 496) as usize;
                let c: Vec<u8> = (0..n).map(|_| self.rng.u8()).collect();
                let l = c.len() as u32;
                (c, few, 0, l, Expect::Any)
            }
            4 => {
                // A call range past the end of the command surface.
                let c = asm("TRIANGLELIST count=1 wVStart=0\n");
                let l = c.len() as u32 + 1 + (self.rng.next_u64() % 1000) as u32;
                (c, few, 0, l, Expect::InvalidParams)
            }
            5 => {
                // Many full-target triangles: a work-heavy but valid call.
                let c = asm(&format!("{PRELUDE}TRIANGLELIST count=200 wVStart=0\n"));
                let l = c.len() as u32;
                let v: Vec<u8> = (0..600)
                    .flat_map(|i| match i % 3 {
                        0 => vertex(-100.0, -100.0, 0.5, 0xFF00FF00),
                        1 => vertex(300.0, -100.0, 0.5, 0xFF00FF00),
                        _ => vertex(-100.0, 300.0, 0.5, 0xFF00FF00),
                    })
                    .collect();
                (c, v, 0, l, Expect::Any)
            }
            _ => {
                self.churn(ctx);
                return;
            }
        };
        if let Some((ddrval, off)) = self.call(ctx, &cmds, &verts, offset, length) {
            let ok = match expect {
                Expect::Any => true,
                Expect::Unparsed => ddrval == codes::D3DERR_COMMAND_UNPARSED,
                Expect::InvalidParams => ddrval == codes::DDERR_INVALIDPARAMS,
            };
            if !ok {
                self.unexpected(format!(
                    "adversarial stream expecting {expect:?} answered {} at {off}",
                    codes::format_hresult(ddrval)
                ));
            }
        }
    }

    /// Creates a texture and a vertex buffer, binds and draws with them,
    /// destroys them, then names the stale handles again.
    fn churn(&mut self, ctx: u32) {
        self.report.churn_cycles += 1;
        let counts = |d: &Driver| {
            let c = d.object_counts();
            (c.surfaces, c.allocations)
        };
        let before = counts(&self.driver);
        let w = 1 + (self.rng.next_u64() % 32) as u32;
        let tex = self.driver.create_texture(Format::A8R8G8B8, w, w, 0);
        let vb = self
            .driver
            .create_vertex_buffer(256, self.rng.next_u64().is_multiple_of(2));
        let (tex, vb) = match (tex, vb) {
            (Ok(t), Ok(v)) => (t, v),
            _ => {
                self.unexpected("churn: small surfaces could not be created".into());
                return;
            }
        };
        let bind = asm(&format!(
            "{PRELUDE}TEXTURESTAGESTATE {{ wStage=0 TSState=D3DTSS_TEXTUREMAP dwValue={tex} }}\nSETSTREAMSOURCE {{ dwStream=0 dwVBHandle={vb} dwStride=20 }}\nTRIANGLELIST count=1 wVStart=0\n"
        ));
        let verts = random_vertices(&mut self.rng, 3);
        let _ = self.call(ctx, &bind, &verts, 0, bind.len() as u32);
        let _ = self.driver.destroy_surface(tex);
        let _ = self.driver.destroy_surface(vb);
        // The same commands again: the handles are stale now.
        let _ = self.call(ctx, &bind, &verts, 0, bind.len() as u32);
        // Unbind so that later streams do not keep naming them.
        let unbind = asm("TEXTURESTAGESTATE { wStage=0 TSState=D3DTSS_TEXTUREMAP dwValue=0 }\n");
        let _ = self.call(ctx, &unbind, &[], 0, unbind.len() as u32);
        if counts(&self.driver) != before {
            self.report.churn_leaks += 1;
        }
    }

    /// Destroys every tainted context and creates a fresh one on the same
    /// surfaces (context churn; the device must not keep anything of it).
    fn recreate_tainted(&mut self) {
        for i in 0..self.contexts.len() {
            let (c, rt, z, tainted) = self.contexts[i];
            if !tainted {
                continue;
            }
            let _ = self.driver.context_destroy(c);
            match self.driver.context_create(rt, Some(z)) {
                Ok(n) => self.contexts[i] = (n, rt, z, false),
                Err(e) => self.unexpected(format!("context recreation failed: {e}")),
            }
            self.report.context_recreations += 1;
        }
    }

    /// One run of the replay oracle, cut at a random byte past the magic
    /// (a shorter prefix is not recognisable as a capture).
    fn replay_check(&mut self, bytes: &[u8], threads: usize) {
        let magic = softhal_capture::binary::MAGIC.len();
        let span = bytes.len().saturating_sub(magic) as u64 + 1;
        let cut = magic + (self.rng.next_u64() % span) as usize;
        self.report.replay_checks += 1;
        if let Err(e) = replay_oracle(bytes, cut, threads) {
            self.report.replay_failures += 1;
            self.report.first_replay_failure.get_or_insert(e);
        }
    }

    /// Renders the canary scene; returns its pixels. A canary context the
    /// watchdog removed is recreated and the scene drawn once more.
    fn canary(&mut self) -> Option<Vec<u8>> {
        let (cmds, verts) = canary_stream();
        let before = self.report.device_removals;
        let mut answer = self.call(self.canary.0, &cmds, &verts, 0, cmds.len() as u32);
        if answer.is_none() && self.report.device_removals > before {
            answer = self.call(self.canary.0, &cmds, &verts, 0, cmds.len() as u32);
        }
        let (ddrval, _) = answer?;
        let rt = self.canary.1;
        if ddrval != codes::D3D_OK {
            self.unexpected(format!("canary answered {}", codes::format_hresult(ddrval)));
        }
        self.driver.read_rgba8(rt).ok()
    }
}

/// Runs the soak; returns the report (also used by the smoke test).
pub fn soak(a: &SoakArgs) -> Result<Report, String> {
    let mut driver = Driver::new(a.threads).map_err(|e| e.to_string())?;
    if let Some(ms) = a.gpu_timeout_ms {
        driver.set_gpu_timeout(Some(Duration::from_millis(ms)));
    }
    let baseline = driver.object_counts();
    let mut surfaces = Vec::new();
    let mut contexts = Vec::new();
    let mut target = |driver: &mut Driver| -> Result<(u32, u32), String> {
        let rt = driver
            .create_render_target(Format::X8R8G8B8, SIZE, SIZE)
            .map_err(|e| e.to_string())?;
        let z = driver
            .create_depth_stencil(Format::D24S8, SIZE, SIZE)
            .map_err(|e| e.to_string())?;
        surfaces.extend([rt, z]);
        let c = driver
            .context_create(rt, Some(z))
            .map_err(|e| e.to_string())?;
        Ok((c, rt))
    };
    for _ in 0..a.contexts.max(1) {
        let (c, rt) = target(&mut driver)?;
        let z = driver.context(c).ok().and_then(|x| x.depth).unwrap_or(0);
        contexts.push((c, rt, z, false));
    }
    let canary = {
        let (c, rt) = target(&mut driver)?;
        let z = driver.context(c).ok().and_then(|x| x.depth).unwrap_or(0);
        (c, rt, z)
    };
    let mut s = Soak {
        driver,
        contexts,
        surfaces,
        canary,
        rng: SplitMix64::new(a.seed),
        valid: valid_templates(),
        hist: Histogram::new(),
        report: Report {
            contexts: a.contexts.max(1),
            surfaces_baseline: baseline.surfaces,
            gpu_contexts_baseline: baseline.gpu_contexts,
            allocations_baseline: baseline.allocations,
            ..Report::default()
        },
    };
    let reference = s.canary().unwrap_or_default();
    s.report.rss_start_kib = rss_kib();
    s.report.rss_peak_kib = s.report.rss_start_kib;
    let replay_bytes = replay_capture();
    let bar = (!a.json && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(a.seconds);
        b.set_style(
            indicatif::ProgressStyle::with_template("soak [{bar:30}] {pos}/{len} s, {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        b
    });
    let start = Instant::now();
    let budget = Duration::from_secs(a.seconds);
    let mut i = 0u64;
    let mut half = None;
    while start.elapsed() < budget {
        let k = (i % s.contexts.len() as u64) as usize;
        let (ctx, _, _, tainted) = s.contexts[k];
        match s.rng.next_u64() % 10 {
            0..=6 => s.valid(ctx, tainted),
            7 | 8 => {
                s.contexts[k].3 = true;
                s.mutated(ctx)
            }
            _ => {
                s.contexts[k].3 = true;
                s.adversarial(ctx)
            }
        }
        i += 1;
        if i.is_multiple_of(RECREATE_EVERY) {
            s.recreate_tainted();
        }
        if i.is_multiple_of(CANARY_EVERY) {
            s.replay_check(&replay_bytes, a.threads);
            if let Some(b) = &bar {
                b.set_position(start.elapsed().as_secs().min(a.seconds));
                b.set_message(format!(
                    "{i} iterations, {} calls, {} panics, {} unexpected answers",
                    s.report.calls, s.report.panics, s.report.unexpected_status
                ));
            }
            s.report.canary_checks += 1;
            if s.canary().as_ref() != Some(&reference) {
                s.report.canary_mismatches += 1;
            }
            let rss = rss_kib();
            s.report.rss_peak_kib = s.report.rss_peak_kib.max(rss);
            if half.is_none() && start.elapsed() >= budget / 2 {
                half = Some(rss);
            }
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let elapsed = start.elapsed().as_secs_f64();
    s.report.canary_checks += 1;
    if s.canary().as_ref() != Some(&reference) {
        s.report.canary_mismatches += 1;
    }
    s.replay_check(&replay_bytes, a.threads);
    s.report.rss_end_kib = rss_kib();
    s.report.rss_peak_kib = s.report.rss_peak_kib.max(s.report.rss_end_kib);

    // Tear down: every context, every surface; counts back to baseline.
    for c in s.contexts.iter().map(|c| c.0).chain([s.canary.0]) {
        let _ = s.driver.context_destroy(c);
    }
    for h in &s.surfaces {
        let _ = s.driver.destroy_surface(*h);
    }
    let end = s.driver.object_counts();
    let mut r = s.report;
    r.iterations = i;
    r.seconds = elapsed;
    r.calls_per_second = r.calls as f64 / elapsed.max(1e-9);
    r.rss_growth_kib = r.rss_end_kib as i64 - r.rss_start_kib as i64;
    r.rss_half_kib = half.unwrap_or(r.rss_end_kib);
    r.rss_growth_second_half_kib = r.rss_end_kib as i64 - r.rss_half_kib as i64;
    r.surfaces_end = end.surfaces;
    r.contexts_end = end.contexts;
    r.gpu_contexts_end = end.gpu_contexts;
    r.allocations_end = end.allocations;
    r.register_shadows_end = end.register_shadows;
    r.objects_back_to_baseline = end == baseline;
    r.p50_us = s.hist.quantile(0.5);
    r.p99_us = s.hist.quantile(0.99);
    r.max_us = s.hist.max;
    r.ok = r.panics == 0
        && r.unexpected_status == 0
        && r.canary_mismatches == 0
        && r.churn_leaks == 0
        && r.replay_failures == 0
        && r.objects_back_to_baseline;
    Ok(r)
}

/// `softhal soak`.
pub fn run(a: &SoakArgs) -> ExitCode {
    // Panics are counted, not printed one by one.
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = soak(a);
    std::panic::set_hook(quiet);
    let r = match r {
        Ok(r) => r,
        Err(e) => {
            let m = format!("soak: set-up failed: {e}");
            return crate::fail(a.json, 2, "setup", &m, serde_json::Value::Null);
        }
    };
    if a.json {
        println!("{}", serde_json::to_string(&r).unwrap_or_default());
    } else {
        println!(
            "soak: {:.1} s, {} contexts, {} iterations, {} calls ({:.0} calls/s; p50 {} µs, p99 {} µs, max {} µs)",
            r.seconds, r.contexts, r.iterations, r.calls, r.calls_per_second, r.p50_us, r.p99_us, r.max_us
        );
        println!(
            "streams: {} valid, {} mutated, {} adversarial ({} churn cycles)",
            r.valid, r.mutated, r.adversarial, r.churn_cycles
        );
        println!(
            "panics {}, unexpected answers {}, canary mismatches {}/{}, churn leaks {}",
            r.panics, r.unexpected_status, r.canary_mismatches, r.canary_checks, r.churn_leaks
        );
        println!(
            "valid streams failing on tainted contexts {} (informational), contexts recreated {}, removed by the GPU timeout and recreated {}",
            r.valid_failed_on_tainted, r.context_recreations, r.device_removals
        );
        if let Some(u) = &r.first_unexpected {
            println!("first unexpected answer: {u}");
        }
        println!(
            "replay oracle: {} cut captures replayed, {} failures",
            r.replay_checks, r.replay_failures
        );
        if let Some(u) = &r.first_replay_failure {
            println!("first replay failure: {u}");
        }
        println!(
            "rss: {} KiB → {} KiB at half time → {} KiB ({:+} KiB in all, {:+} KiB in the second half; peak {} KiB)",
            r.rss_start_kib, r.rss_half_kib, r.rss_end_kib, r.rss_growth_kib, r.rss_growth_second_half_kib, r.rss_peak_kib
        );
        println!(
            "objects at the end: surfaces {} → {}, contexts {}, GPU contexts {} → {}, allocations {} → {}, register shadows {}",
            r.surfaces_baseline, r.surfaces_end, r.contexts_end, r.gpu_contexts_baseline, r.gpu_contexts_end,
            r.allocations_baseline, r.allocations_end, r.register_shadows_end
        );
        println!("{}", if r.ok { "PASS" } else { "FAIL" });
    }
    if r.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_valid_template_assembles_and_succeeds() {
        let mut driver = Driver::new(1).expect("a driver");
        let rt = driver
            .create_render_target(Format::X8R8G8B8, SIZE, SIZE)
            .expect("rt");
        let z = driver
            .create_depth_stencil(Format::D24S8, SIZE, SIZE)
            .expect("z");
        let ctx = driver.context_create(rt, Some(z)).expect("ctx");
        let mut rng = SplitMix64::new(3);
        for (i, (cmds, n)) in valid_templates().into_iter().enumerate() {
            assert!(!cmds.is_empty(), "template {i} does not assemble");
            let verts = random_vertices(&mut rng, n);
            let cb = driver.create_command_buffer_with(&cmds).expect("cb");
            let mut d = DrawPrimitives2Data::new(ctx, cb, cmds.len() as u32)
                .with_user_vertices(FVF, &verts, n as u32);
            d.ddrval = STRIDE as u32;
            driver.draw_primitives2(&mut d);
            assert_eq!(
                d.ddrval,
                codes::D3D_OK,
                "template {i}: {:?}",
                driver.last_error()
            );
        }
        assert!(!canary_stream().0.is_empty());
        // The adversarial streams that are assembled from text assemble.
        for src in [
            "TRIANGLELIST count=65535 wVStart=0\n".to_string(),
            format!("{PRELUDE}TRIANGLELIST count=2 wVStart=0\nPOINTS {{ wCount=6 wVStart=0 }}\nLINELIST count=3 wVStart=0\n"),
            format!("{PRELUDE}TRIANGLELIST count=200 wVStart=0\n"),
        ] {
            assert!(!asm(&src).is_empty(), "{src}");
        }
    }

    /// A cut anywhere past the magic of the oracle's capture is reported,
    /// keeps the capture's own records and replays them streaming; the
    /// whole capture replays all of its 43 records (surface, context,
    /// Clear2, 40 presents).
    #[test]
    fn the_replay_oracle_holds_at_every_cut() {
        let bytes = replay_capture();
        assert!(!bytes.is_empty());
        let magic = softhal_capture::binary::MAGIC.len();
        for cut in magic..=bytes.len() {
            replay_oracle(&bytes, cut, 1).unwrap_or_else(|e| panic!("cut {cut}: {e}"));
        }
        let whole = softhal_capture::load(&bytes, None).expect("loads");
        assert_eq!(whole.records.len(), 3 + REPLAY_PRESENTS);
    }

    /// The smoke test of the tool: a one-second run, every JSON field
    /// present, no panic, every check passing.
    #[test]
    fn a_one_second_soak_passes_and_reports_every_field() {
        let args = SoakArgs {
            seconds: 1,
            contexts: 2,
            threads: 1,
            seed: 7,
            gpu_timeout_ms: None,
            json: true,
        };
        let r = soak(&args).expect("set-up succeeds");
        let v = serde_json::to_value(&r).expect("serializable");
        for field in [
            "seconds",
            "contexts",
            "iterations",
            "calls",
            "calls_per_second",
            "valid",
            "mutated",
            "adversarial",
            "panics",
            "unexpected_status",
            "valid_failed_on_tainted",
            "context_recreations",
            "device_removals",
            "canary_checks",
            "canary_mismatches",
            "churn_cycles",
            "churn_leaks",
            "rss_start_kib",
            "rss_end_kib",
            "rss_peak_kib",
            "rss_growth_kib",
            "rss_half_kib",
            "rss_growth_second_half_kib",
            "surfaces_baseline",
            "surfaces_end",
            "contexts_end",
            "gpu_contexts_baseline",
            "gpu_contexts_end",
            "allocations_baseline",
            "allocations_end",
            "register_shadows_end",
            "objects_back_to_baseline",
            "p50_us",
            "p99_us",
            "max_us",
            "replay_checks",
            "replay_failures",
            "ok",
        ] {
            assert!(v.get(field).is_some(), "missing field {field}");
        }
        assert_eq!(r.panics, 0);
        assert!(r.iterations > 0 && r.calls >= r.iterations);
        assert!(r.canary_checks >= 1);
        assert!(r.replay_checks >= 1);
        assert!(r.ok, "{r:?}");
    }

    #[test]
    fn contexts_the_gpu_timeout_removes_are_recreated_and_nothing_leaks() {
        // A zero timeout stops every submission with work: every context
        // that draws is removed. The soak must recreate each as a host
        // would, count it, and judge no removal as an unexpected answer.
        let args = SoakArgs {
            seconds: 1,
            contexts: 2,
            threads: 1,
            seed: 3,
            gpu_timeout_ms: Some(0),
            json: true,
        };
        let r = soak(&args).expect("set-up succeeds");
        assert_eq!(r.panics, 0);
        assert!(r.device_removals > 0, "{r:?}");
        assert_eq!(r.unexpected_status, 0, "{:?}", r.first_unexpected);
        assert!(r.objects_back_to_baseline, "{r:?}");
    }
}
