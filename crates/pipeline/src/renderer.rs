//! The renderer: owns the thread pool and the bins, runs draws and clears.
//!
//! *Input*: [`RenderTargets`], a [`PipelineState`], a [`DrawCall`] (or a
//! [`Clear`]). *Output*: pixels in the surfaces and [`DrawStats`].
//!
//! A draw is processed in waves of [`limits::PRIMS_PER_WAVE`] input
//! primitives:
//! 1. *set-up* — chunks of [`limits::PRIMS_PER_CHUNK`] primitives are
//!    fetched, clipped and set up in parallel (into a per-worker scratch),
//!    then each chunk's triangle records are regrouped by tile into the
//!    chunk (`setup::ChunkOut::sort_tris_by_tile`, keeping the submission
//!    order for the binner); chunks are appended to the scene in order;
//! 2. *bin* — one thread bins every record into 64×64 tiles, in order,
//!    while the other workers set up the next wave; when the bins would
//!    exceed [`limits::MAX_BIN_ENTRIES`] the scene is flushed first;
//! 3. *rasterize* (a flush) — when the scene is large
//!    ([`limits::MAX_SCENE_BYTES`]) or the draw ends, bands of tiles (64
//!    rows each) are rasterized in parallel; each band owns its rows of the
//!    colour and depth surfaces (disjoint `&mut` slices), and each tile
//!    replays its entries in order.
//!
//! `draw` returns only after every pixel is written, so a surface can never
//! be read half-rendered. *Guarantees*: identical bytes for any thread
//! count and SIMD level; memory bounded by [`limits::SCENE_MEMORY_BOUND`];
//! no panic on any input (errors are returned before any pixel changes),
//! except [`PipelineError::Stopped`]: with a [`Watchdog`] set
//! ([`Renderer::set_watchdog`]) a draw or clear stops at the next wave,
//! chunk or tile boundary once it fires (see [`crate::watchdog`]); the
//! thread count is at most [`limits::MAX_THREADS`].

use rayon::prelude::*;
use std::sync::Arc;

use crate::bin::{Bins, Tile};
use crate::cascade::MAX_STAGES;
use crate::cascade8::FogByteTable;
use crate::error::PipelineError;
use crate::fog::{FogMode, FogSource};
use crate::geometry::{process_range, process_range_shaded, GeometryCtx};
use crate::limits::PIXEL_SAMPLERS;
use crate::limits::{self, TILE_SIZE};
use crate::math::Rect;
use crate::pixel::shader::PixelShaderCtx;
use crate::pixel::{DrawCtx, Stats, TileTarget};
use crate::prim::{PrimKind, PrimRef};
use crate::program::{PixelProgram, Programs, VertexProgram};
use crate::raster::{raster_record, raster_tile};
use crate::setup::{BinInfo, ChunkOut, SetupCtx, NO_TILE_LIST};
use crate::shade::ShadeCtx;
use crate::simd::SimdLevel;
use crate::state::{PipelineState, ShadeMode, ZBIAS_UNIT};
use crate::surface::Surface;
use crate::texture::Texture;
use crate::varying::{Varyings, MAX_VARYINGS};
use crate::vertex::shader::ShaderStage;
use crate::vertex::{DrawCall, Topology, VertexStage};
use crate::watch::{PixelHistory, PixelWatch, Probe};
use crate::watchdog::{fired, Watchdog};

thread_local! {
    /// Per-worker scratch for the set-up records of one chunk (at most
    /// `PRIMS_PER_CHUNK × MAX_OUTPUT_PRIMS_PER_INPUT` records).
    static SCRATCH: std::cell::RefCell<Vec<crate::prim::TriSetup>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The surfaces a draw renders into.
#[derive(Debug)]
pub struct RenderTargets<'a> {
    /// The render target (colour format).
    pub color: &'a mut Surface,
    /// The depth/stencil buffer (depth format), if bound. It must be at
    /// least as large as the render target.
    pub depth: Option<&'a mut Surface>,
    /// Render targets 1–3 (SETRENDERTARGET2 slots 1..=3), each in its own
    /// colour format and the size of `color`. Only a pixel shader's
    /// `oC1`–`oC3` write them (`docs/shaders.md` §13a); fixed function and
    /// ps_1_x write `color` alone.
    pub extra: [Option<&'a mut Surface>; limits::MAX_RENDER_TARGETS - 1],
}

/// Counts returned by a draw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DrawStats {
    /// Input primitives submitted (whether drawn, culled or clipped away).
    pub primitives: u64,
    /// Pixels that passed every test and were written (subject to the
    /// colour write mask).
    pub pixels_written: u64,
    /// Pixels that passed the stencil and depth tests (the occlusion-query
    /// count; equals `pixels_written` when no alpha test discards).
    pub samples_passed_depth: u64,
    /// Pixels the primitives covered inside the viewport and scissor
    /// rectangle: the fragments the pixel stage shaded, counted before
    /// the alpha, stencil and depth tests (Direct3D 10's
    /// `PSInvocations` for a pipeline that shades before it tests).
    /// At least `samples_passed_depth`.
    pub pixels_shaded: u64,
}

/// Which buffers a clear touches (D3DCLEAR_*).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClearFlags {
    /// D3DCLEAR_TARGET.
    pub target: bool,
    /// D3DCLEAR_ZBUFFER.
    pub zbuffer: bool,
    /// D3DCLEAR_STENCIL.
    pub stencil: bool,
}

impl ClearFlags {
    /// From D3DCLEAR_* bits (other bits ignored).
    pub fn from_d3d(v: u32) -> Self {
        ClearFlags {
            target: v & 1 != 0,
            zbuffer: v & 2 != 0,
            stencil: v & 4 != 0,
        }
    }
}

/// A clear request.
#[derive(Debug, Clone, Copy)]
pub struct Clear<'a> {
    /// Buffers to clear.
    pub flags: ClearFlags,
    /// Rectangles (clipped to the surfaces); empty = the whole surfaces.
    pub rects: &'a [Rect],
    /// Colour, A8R8G8B8 (converted to the target format).
    pub color: u32,
    /// Depth in `[0, 1]` (clamped, scaled to the format).
    pub z: f32,
    /// Stencil value (masked to the format's stencil bits).
    pub stencil: u32,
}

/// The software rasterizer.
pub struct Renderer {
    pool: Option<rayon::ThreadPool>,
    /// The pool's threads, joined when the renderer is dropped.
    workers: Vec<std::thread::JoinHandle<()>>,
    threads: usize,
    simd: SimdLevel,
    bins: Bins,
    scene: Vec<ChunkOut>,
    /// Checked at wave, chunk and tile boundaries (`None`: never stops).
    watchdog: Option<Watchdog>,
    /// Pixel shaders that equal a fixed-function stage draw as it
    /// (`program::matched`).
    match_programs: bool,
    /// The table-fog factor lookups of the latest EXP and EXP2 densities.
    fog_bytes: FogByteCache,
}

/// The [`FogByteTable`]s of the last [`FogByteCache::KEEP`] (formula,
/// FOGDENSITY) pairs table fog drew with: a table takes about 8,000
/// `exp` calls to build, and a frame's draws share a few densities.
#[derive(Default)]
struct FogByteCache {
    /// Most recently used last; `None` where a pair has no table.
    tables: Vec<(FogMode, u32, Option<Arc<FogByteTable>>)>,
}

impl FogByteCache {
    /// Pairs kept.
    const KEEP: usize = 4;

    /// The table of `state`'s table fog, when it is on with EXP or EXP2
    /// and the pair has one.
    fn get(&mut self, state: &PipelineState) -> Option<Arc<FogByteTable>> {
        let fog = &state.fog;
        if !fog.enable || !matches!(fog.table_mode, FogMode::Exp | FogMode::Exp2) {
            return None;
        }
        let key = (fog.table_mode, fog.density.to_bits());
        let entry = match self.tables.iter().position(|e| (e.0, e.1) == key) {
            Some(i) => self.tables.remove(i),
            None => {
                if self.tables.len() == Self::KEEP {
                    self.tables.remove(0);
                }
                let table = FogByteTable::new(fog.table_mode, fog.density).map(Arc::new);
                (key.0, key.1, table)
            }
        };
        let table = entry.2.clone();
        self.tables.push(entry);
        table
    }
}

/// Joins the threads in `workers` (after their pool is gone).
fn join_all(workers: &mut Vec<std::thread::JoinHandle<()>>) {
    for w in workers.drain(..) {
        // A worker that panicked has nothing left to clean up.
        let _ = w.join();
    }
}

impl Drop for Renderer {
    /// Ends the pool and waits until each of its threads has exited.
    fn drop(&mut self) {
        drop(self.pool.take());
        join_all(&mut self.workers);
    }
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer")
            .field("threads", &self.threads)
            .field("simd", &self.simd)
            .finish()
    }
}

impl Renderer {
    /// A renderer using `threads` worker threads (0 or 1: everything runs
    /// on the calling thread; more than [`limits::MAX_THREADS`] is
    /// refused with [`PipelineError::TooManyThreads`], nothing spawned).
    /// SIMD is enabled unless the environment variable
    /// `SOFTHAL_NO_SIMD=1` is set.
    pub fn new(threads: usize) -> Result<Self, PipelineError> {
        if threads > limits::MAX_THREADS {
            return Err(PipelineError::TooManyThreads {
                requested: threads as u64,
                max: limits::MAX_THREADS as u64,
            });
        }
        let threads = threads.max(1);
        let mut workers = Vec::new();
        let pool = if threads > 1 {
            // The threads are spawned here (not by rayon) so that dropping
            // the renderer can join them: nothing of a renderer runs after
            // its drop returns (a host may unload the library then).
            let built = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .spawn_handler(|thread| {
                    let name = format!("softhal-raster-{}", thread.index());
                    workers.push(
                        std::thread::Builder::new()
                            .name(name)
                            .spawn(move || thread.run())?,
                    );
                    Ok(())
                })
                .build();
            match built {
                Ok(pool) => Some(pool),
                Err(e) => {
                    join_all(&mut workers);
                    return Err(PipelineError::ThreadPool(e.to_string()));
                }
            }
        } else {
            None
        };
        let no_simd = std::env::var("SOFTHAL_NO_SIMD").is_ok_and(|v| v == "1");
        Ok(Renderer {
            pool,
            workers,
            threads,
            simd: if no_simd {
                SimdLevel::Scalar
            } else {
                SimdLevel::detect()
            },
            bins: Bins::default(),
            scene: Vec::new(),
            watchdog: None,
            match_programs: true,
            fog_bytes: FogByteCache::default(),
        })
    }

    /// Sets (or removes) the watchdog later draws and clears check: once
    /// it fires they stop at the next boundary and return
    /// [`PipelineError::Stopped`] (see [`crate::watchdog`]).
    pub fn set_watchdog(&mut self, watchdog: Option<Watchdog>) {
        self.watchdog = watchdog;
    }

    /// Whether the watchdog has fired (false without one).
    fn stop_now(&self) -> bool {
        fired(self.watchdog.as_ref())
    }

    /// Number of worker threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Enables (best level the CPU has) or disables (scalar twins) SIMD.
    pub fn set_simd(&mut self, enabled: bool) {
        self.simd = if enabled {
            SimdLevel::detect()
        } else {
            SimdLevel::Scalar
        };
    }

    /// Forces a SIMD level (clamped to what the CPU supports).
    pub fn set_simd_level(&mut self, level: SimdLevel) {
        self.simd = level.clamp_to_cpu();
    }

    /// The SIMD level in use.
    pub fn simd_level(&self) -> SimdLevel {
        self.simd
    }

    /// Enables (the default) or disables drawing a pixel shader that
    /// equals a fixed-function texture stage as that stage
    /// (`program::matched`, `docs/shaders.md` §13b); disabled, every
    /// pixel shader runs on the shader path (what the fast path is
    /// compared with).
    pub fn set_program_matching(&mut self, enabled: bool) {
        self.match_programs = enabled;
    }

    /// Draws primitives without textures. Returns when all pixels are
    /// written.
    pub fn draw(
        &mut self,
        targets: &mut RenderTargets<'_>,
        state: &PipelineState,
        call: &DrawCall<'_>,
    ) -> Result<DrawStats, PipelineError> {
        self.draw_textured(targets, state, call, &[None; MAX_STAGES])
    }

    /// Draws primitives with the textures bound to the 8 stages
    /// (SETTEXTURESTAGE), fixed function at both programmable stages.
    /// Returns when all pixels are written.
    pub fn draw_textured(
        &mut self,
        targets: &mut RenderTargets<'_>,
        state: &PipelineState,
        call: &DrawCall<'_>,
        textures: &[Option<&Texture>; MAX_STAGES],
    ) -> Result<DrawStats, PipelineError> {
        let samplers = sampler_textures(textures);
        self.draw_programs(targets, state, call, &samplers, &Programs::FIXED_FUNCTION)
    }

    /// Draws primitives with the textures bound to the 16 pixel samplers
    /// (the first 8 are the texture stages') and the vertex and pixel
    /// `programs`: at each stage fixed function or a
    /// shader (a vertex shader run four vertices at a time,
    /// `vertex::shader`; a pixel shader run in 2×2 quads,
    /// `pixel::shader`), then the output merger. Returns when all pixels
    /// are written. With a vertex shader only `call.layout.stride` is read
    /// of the layout: the shader's inputs say where its registers come
    /// from. A pixel shader that equals a fixed-function texture stage
    /// draws as that stage (`program::matched`, unless
    /// [`Renderer::set_program_matching`] turned it off).
    pub fn draw_programs(
        &mut self,
        targets: &mut RenderTargets<'_>,
        state: &PipelineState,
        call: &DrawCall<'_>,
        textures: &[Option<&Texture>; PIXEL_SAMPLERS],
        programs: &Programs<'_>,
    ) -> Result<DrawStats, PipelineError> {
        // A pixel shader that equals a fixed-function stage draws as it,
        // with the state derived once here (`program::matched`).
        let matched = match programs.pixel {
            PixelProgram::Shader { program, .. } if self.match_programs => {
                let vs = matches!(programs.vertex, VertexProgram::Shader { .. });
                crate::program::matched::fixed_function(program, state, textures, vs)
            }
            _ => None,
        };
        let as_fixed_function;
        let (state, textures, programs) = match &matched {
            Some(m) => {
                as_fixed_function = Programs {
                    vertex: programs.vertex,
                    pixel: PixelProgram::FixedFunction,
                };
                (&m.state, &m.textures, &as_fixed_function)
            }
            None => (state, textures, programs),
        };
        let vertex_shader = match programs.vertex {
            VertexProgram::FixedFunction => {
                call.validate()?;
                None
            }
            VertexProgram::Shader {
                program,
                constants,
                inputs,
                textures: vertex_textures,
            } => {
                call.validate_buffers()?;
                Some(ShaderStage::new(
                    program,
                    constants,
                    inputs,
                    vertex_textures,
                    state,
                    call,
                    rasterizes_points(state, call),
                    vertex_output_fog(state, true),
                    self.watchdog.as_ref(),
                )?)
            }
        };
        let color_format = targets.color.format();
        if !color_format.is_color() {
            return Err(PipelineError::BadFormat {
                format: color_format,
                usage: "render target",
            });
        }
        let (cw, ch) = (targets.color.width(), targets.color.height());
        let depth_format = match &targets.depth {
            Some(d) => {
                if !d.format().is_depth() {
                    return Err(PipelineError::BadFormat {
                        format: d.format(),
                        usage: "depth/stencil",
                    });
                }
                if d.width() < cw || d.height() < ch {
                    return Err(PipelineError::DepthTooSmall {
                        depth_w: d.width(),
                        depth_h: d.height(),
                        color_w: cw,
                        color_h: ch,
                    });
                }
                Some(d.format())
            }
            None => None,
        };
        check_extra_targets(targets)?;
        let mut stats = DrawStats {
            primitives: u64::from(call.primitive_count),
            ..DrawStats::default()
        };
        let mut rect = Rect::new(0, 0, cw as i32, ch as i32).intersect(state.viewport.rect());
        if state.raster.scissor_enable {
            rect = rect.intersect(state.raster.scissor);
        }
        if rect.is_empty() || call.primitive_count == 0 {
            return Ok(stats);
        }
        if self.stop_now() {
            return Err(PipelineError::Stopped);
        }
        let wd = self.watchdog.as_ref();
        let pretransformed = call.layout.is_pretransformed();
        let shaded = vertex_shader.is_some();
        let shader = match programs.pixel {
            PixelProgram::FixedFunction => None,
            PixelProgram::Shader { program, .. } if program.profile().is_vertex() => {
                return Err(PipelineError::BadProgram {
                    reason: "a vertex shader bound as the pixel program",
                })
            }
            PixelProgram::Shader { program, constants } => Some((program, constants)),
        };
        let (shade, sets) = match shader {
            Some(_) => {
                let (s, n) =
                    ShadeCtx::for_pixel_shader(state, textures, pretransformed || shaded, shaded);
                (Some(s), n)
            }
            None => match ShadeCtx::build(state, textures, pretransformed, shaded) {
                Some((s, n)) => (Some(s), n),
                None => (None, 0),
            },
        };
        // The generic varyings, linked once for the draw: a vertex shader
        // feeding ps_3_0 writes exactly the ps_3_0 inputs (by semantic);
        // otherwise the vertex stage writes the texture-coordinate sets
        // and the pixel program reads them (ps_3_0 after fixed-function
        // vertex processing: by semantic from those).
        let ps3_inputs = shader.and_then(|(program, _)| {
            Varyings::ps3_inputs(program, state.raster.shade_mode == ShadeMode::Flat)
        });
        let varyings = match ps3_inputs {
            Some(inputs) if shaded => inputs,
            _ => Varyings::texcoords(sets),
        };
        let sets = varyings.count();
        let vertex_shader = vertex_shader.map(|v| v.link(&varyings));
        let extra_formats = targets
            .extra
            .each_ref()
            .map(|t| t.as_ref().map(|s| s.format()));
        let shader = shader.map(|(program, constants)| {
            PixelShaderCtx::new(program, constants, &varyings)
                .with_targets(&extra_formats, &state.blend.color_write_enable_rt)
        });
        let full = shade.is_some();
        let fog_alpha = vertex_output_fog(state, pretransformed || shaded);
        let fog_bytes = self.fog_bytes.get(state);
        let mut dctx = DrawCtx::new(
            state,
            color_format,
            depth_format,
            self.simd,
            shade,
            fog_bytes.as_deref(),
        );
        if let Some(ps) = &shader {
            dctx = dctx.with_pixel_shader(ps);
        }
        let mut gctx = geometry_ctx(state, call, rect, full, fog_alpha, sets, self.simd);
        gctx.flat_varyings = varyings.flat_mask();
        if shaded {
            // A shader's oPos is a clip-space position, whatever the layout.
            gctx.vs.pretransformed = false;
        }
        let vertex_shader = vertex_shader.as_ref();
        self.bins.reset(cw, ch, rect);
        let grid = self.bins.grid();
        let total = u64::from(call.primitive_count);
        let mut acc = Stats::default();
        // Reuse the chunk outputs of earlier waves and draws.
        let mut scene = std::mem::take(&mut self.scene);
        let pool = self.pool.as_ref();
        let bins = &mut self.bins;
        let wave_ranges = |start: u64| -> Vec<std::ops::Range<u64>> {
            let end = (start + limits::PRIMS_PER_WAVE as u64).min(total);
            (start..end)
                .step_by(limits::PRIMS_PER_CHUNK)
                .map(|s| s..(s + limits::PRIMS_PER_CHUNK as u64).min(end))
                .collect()
        };
        let setup = |chunks: &mut [ChunkOut], ranges: &[std::ops::Range<u64>]| {
            let work = |(out, r): (&mut ChunkOut, &std::ops::Range<u64>)| {
                out.clear();
                if fired(wd) {
                    return;
                }
                // Set-up writes its records into this worker's scratch
                // (warm in cache); the tile sort then gathers them into the
                // chunk's own vector (see `ChunkOut::sort_tris_by_tile`).
                SCRATCH.with(|cell| {
                    let mut none = Vec::new();
                    let mut guard = cell.try_borrow_mut();
                    let scratch = match guard.as_deref_mut() {
                        Ok(s) => s,
                        Err(_) => &mut none,
                    };
                    std::mem::swap(&mut out.tris, scratch);
                    out.tris.clear();
                    set_up(&gctx, vertex_shader, call, r.clone(), out, sets);
                    out.sort_tris_by_tile(&grid, scratch);
                });
            };
            match pool {
                Some(_) => chunks.par_iter_mut().zip(ranges.par_iter()).for_each(work),
                None => chunks.iter_mut().zip(ranges.iter()).for_each(work),
            }
        };
        let in_pool = |f: &mut (dyn FnMut() + Send)| match pool {
            Some(p) => p.install(f),
            None => f(),
        };
        // Wave `cur` (chunks `used..used + cur.len()`) is set up; bin it
        // while the next wave is set up in parallel, unless the scene must
        // be flushed after it.
        let mut used = 0usize;
        let mut scene_bytes = 0usize;
        let mut cur = wave_ranges(0);
        if scene.len() < cur.len() {
            scene.resize_with(cur.len(), ChunkOut::default);
        }
        in_pool(&mut || setup(&mut scene[..cur.len()], &cur));
        let mut stopped = false;
        while !cur.is_empty() {
            if fired(wd) {
                stopped = true;
                break;
            }
            let chunks = used..used + cur.len();
            let next_start = cur.last().map_or(total, |r| r.end);
            let bytes_after: usize = scene_bytes
                + scene[chunks.clone()]
                    .iter()
                    .map(ChunkOut::bytes)
                    .sum::<usize>();
            let flush_after = next_start >= total
                || bytes_after > limits::MAX_SCENE_BYTES
                || chunks.end + limits::PRIMS_PER_WAVE / limits::PRIMS_PER_CHUNK
                    > limits::MAX_SCENE_CHUNKS;
            let next = if flush_after {
                Vec::new()
            } else {
                wave_ranges(next_start)
            };
            if scene.len() < chunks.end + next.len() {
                scene.resize_with(chunks.end + next.len(), ChunkOut::default);
            }
            let (done, rest) = scene.split_at_mut(chunks.end);
            let done: &[ChunkOut] = done;
            let next_chunks = &mut rest[..next.len()];
            let mut bin_stats = Stats::default();
            let mut bin = || {
                for ci in chunks.clone() {
                    if fired(wd) {
                        break;
                    }
                    let Some(chunk) = done.get(ci) else {
                        continue;
                    };
                    if !chunk.bin_info.is_empty() {
                        // A sorted chunk: one-tile triangles extend runs,
                        // the others take their precomputed tile lists.
                        let mut lists = chunk.tile_lists.as_slice();
                        for &info in &chunk.bin_info {
                            let info = BinInfo(info);
                            if info.single() {
                                if bins.would_overflow_by(2) {
                                    bin_stats =
                                        bin_stats + flush(pool, bins, targets, done, &dctx, wd);
                                }
                                bins.add_to_run(ci, info.tile(), info.slot());
                                continue;
                            }
                            let Some((&count, rest)) = lists.split_first() else {
                                break;
                            };
                            if count == NO_TILE_LIST {
                                lists = rest;
                                if let Some(t) = chunk.tris.get(info.slot()) {
                                    let prim = PrimRef::Tri(t);
                                    if bins.would_overflow(prim) {
                                        bin_stats =
                                            bin_stats + flush(pool, bins, targets, done, &dctx, wd);
                                    }
                                    bins.add(ci, PrimKind::Tri, info.slot(), prim);
                                }
                                continue;
                            }
                            let (tiles, rest) = rest.split_at(rest.len().min(count as usize));
                            lists = rest;
                            if bins.would_overflow_by(tiles.len()) {
                                bin_stats = bin_stats + flush(pool, bins, targets, done, &dctx, wd);
                            }
                            bins.add_tile_list(ci, info.slot(), tiles);
                        }
                        continue;
                    }
                    for (kind, pi, prim) in chunk.iter() {
                        if bins.would_overflow(prim) {
                            bin_stats = bin_stats + flush(pool, bins, targets, done, &dctx, wd);
                        }
                        bins.add(ci, kind, pi, prim);
                    }
                }
            };
            match pool {
                Some(p) if !next.is_empty() => {
                    p.install(|| rayon::join(&mut bin, || setup(&mut *next_chunks, &next)));
                }
                Some(p) => p.install(&mut bin),
                // One thread: everything inline, in order.
                None => {
                    bin();
                    setup(next_chunks, &next);
                }
            }
            acc = acc + bin_stats;
            scene_bytes = bytes_after;
            used = chunks.end;
            if flush_after {
                acc = acc + flush(pool, bins, targets, &scene[..used], &dctx, wd);
                used = 0;
                scene_bytes = 0;
                cur = if next_start < total {
                    wave_ranges(next_start)
                } else {
                    Vec::new()
                };
                if scene.len() < cur.len() {
                    scene.resize_with(cur.len(), ChunkOut::default);
                }
                in_pool(&mut || setup(&mut scene[..cur.len()], &cur));
            } else {
                cur = next;
            }
        }
        // Keep at most MAX_SCENE_BYTES of capacity for later draws.
        let mut kept = 0usize;
        scene.retain(|c| {
            kept += c.bytes();
            kept <= limits::MAX_SCENE_BYTES
        });
        self.scene = scene;
        if stopped || fired(wd) {
            self.bins.clear();
            return Err(PipelineError::Stopped);
        }
        stats.pixels_written = acc.written;
        stats.samples_passed_depth = acc.passed;
        stats.pixels_shaded = acc.shaded;
        Ok(stats)
    }

    /// Draws like [`Renderer::draw_textured`] — the same pixels, byte for
    /// byte — and returns, besides the statistics, the history of each
    /// watched pixel (`crate::watch`): its values before and after the
    /// draw and one event per fragment the draw produced there. A watched
    /// pixel outside the render target has no events and no values.
    pub fn draw_watched(
        &mut self,
        targets: &mut RenderTargets<'_>,
        state: &PipelineState,
        call: &DrawCall<'_>,
        textures: &[Option<&Texture>; MAX_STAGES],
        watch: &PixelWatch,
    ) -> Result<(DrawStats, Vec<PixelHistory>), PipelineError> {
        let read = |t: &RenderTargets<'_>, (x, y): (u32, u32)| {
            (
                t.color.read_pixel(x, y),
                t.depth.as_ref().and_then(|d| d.read_pixel(x, y)),
            )
        };
        let before: Vec<_> = watch.pixels().iter().map(|&p| read(targets, p)).collect();
        let stats = self.draw_textured(targets, state, call, textures)?;
        let samplers = sampler_textures(textures);
        let mut out = self.replay_watched(targets, state, call, &samplers, watch, &before)?;
        for h in &mut out {
            let (c, z) = read(targets, (h.x, h.y));
            h.matches_target = (h.color_after, h.depth_after) == (c, z);
            h.color_after = c;
            h.depth_after = z;
        }
        Ok((stats, out))
    }

    /// Replays `call` one primitive at a time at each watched pixel, on a
    /// copy of the pixel's values `before` the draw, recording events (see
    /// `crate::watch`). `color_after` / `depth_after` are the replay's.
    fn replay_watched(
        &self,
        targets: &RenderTargets<'_>,
        state: &PipelineState,
        call: &DrawCall<'_>,
        textures: &[Option<&Texture>; PIXEL_SAMPLERS],
        watch: &PixelWatch,
        before: &[(Option<u32>, Option<u32>)],
    ) -> Result<Vec<PixelHistory>, PipelineError> {
        let color_format = targets.color.format();
        let depth_format = targets.depth.as_ref().map(|d| d.format());
        let (cw, ch) = (targets.color.width(), targets.color.height());
        // Inside the viewport and target, and inside the scissor rectangle
        // too: the draw's raster rectangle (as in `draw_textured`).
        let outer = Rect::new(0, 0, cw as i32, ch as i32).intersect(state.viewport.rect());
        let inner = if state.raster.scissor_enable {
            outer.intersect(state.raster.scissor)
        } else {
            outer
        };
        let inside = |r: Rect, x: i32, y: i32| x >= r.x1 && x < r.x2 && y >= r.y1 && y < r.y2;
        let pretransformed = call.layout.is_pretransformed();
        let (shade, sets) = match ShadeCtx::build(state, textures, pretransformed, false) {
            Some((s, n)) => (Some(s), n),
            None => (None, 0),
        };
        let full = shade.is_some();
        let fog_alpha = vertex_output_fog(state, pretransformed);
        let probe = Probe::default();
        let dctx = DrawCtx::new(state, color_format, depth_format, self.simd, shade, None)
            .recording(&probe);
        let (cbpp, dbpp) = dctx.bpps();
        let g_inner = geometry_ctx(state, call, inner, full, fog_alpha, sets, self.simd);
        let g_outer = geometry_ctx(state, call, outer, full, fog_alpha, sets, self.simd);
        /// One watched pixel's replay: its copy of the target's values
        /// (columns 0..=x of row y; only column x is used).
        struct Pixel {
            hist: PixelHistory,
            color: Vec<u8>,
            depth: Vec<u8>,
            active: bool,
            scissored: bool,
        }
        let mut px: Vec<Pixel> = watch
            .pixels()
            .iter()
            .zip(before)
            .map(|(&(x, y), &(c, z))| {
                let (xi, yi) = (x as i32, y as i32);
                let active = c.is_some() && inside(outer, xi, yi);
                let cells = |bpp: usize, v: Option<u32>| {
                    let mut b = vec![0u8; if active { (x as usize + 1) * bpp } else { 0 }];
                    if let (Some(v), Some(cell)) = (v, b.get_mut(x as usize * bpp..)) {
                        crate::format::store_raw(cell, bpp, v);
                    }
                    b
                };
                Pixel {
                    hist: PixelHistory {
                        x,
                        y,
                        color_before: c,
                        color_after: c,
                        depth_before: z,
                        depth_after: z,
                        events: Vec::new(),
                        events_dropped: 0,
                        matches_target: true,
                    },
                    color: cells(cbpp, c),
                    depth: if z.is_some() {
                        cells(dbpp, z)
                    } else {
                        Vec::new()
                    },
                    active,
                    scissored: !inside(inner, xi, yi),
                }
            })
            .collect();
        let need_inner = px.iter().any(|p| p.active && !p.scissored);
        let need_outer = px.iter().any(|p| p.active && p.scissored);
        let mut chunk_inner = ChunkOut::default();
        let mut chunk_outer = ChunkOut::default();
        let mut stats = Stats::default();
        let wd = self.watchdog.as_ref();
        for i in 0..u64::from(call.primitive_count) {
            if !(need_inner || need_outer) {
                break;
            }
            if i % limits::WATCHDOG_CHECK_ENTRIES as u64 == 0 && fired(wd) {
                return Err(PipelineError::Stopped);
            }
            for (need, g, chunk) in [
                (need_inner, &g_inner, &mut chunk_inner),
                (need_outer, &g_outer, &mut chunk_outer),
            ] {
                if need {
                    chunk.clear();
                    set_up(g, None, call, i..i + 1, chunk, sets);
                }
            }
            for p in px.iter_mut().filter(|p| p.active) {
                let chunk = if p.scissored {
                    &chunk_outer
                } else {
                    &chunk_inner
                };
                let (x, y) = (p.hist.x as i32, p.hist.y as i32);
                let tile = Tile {
                    x0: x,
                    y0: y,
                    x1: x,
                    y1: y,
                };
                probe.begin(i as u32, p.scissored);
                let (cp, dp) = (p.color.len(), p.depth.len());
                // The replay is of fixed-function draws: target 0 only.
                let mut t = TileTarget {
                    color: &mut p.color,
                    color_pitch: cp,
                    depth: &mut p.depth,
                    depth_pitch: dp,
                    y0: y,
                    extra: Default::default(),
                    extra_pitch: [0; limits::MAX_RENDER_TARGETS - 1],
                };
                for (_, _, prim) in chunk.iter() {
                    raster_record(&mut t, &dctx, &tile, chunk, prim, &mut stats);
                }
                for ev in probe.take() {
                    if p.hist.events.len() < limits::MAX_PIXEL_EVENTS {
                        p.hist.events.push(ev);
                    } else {
                        p.hist.events_dropped = p.hist.events_dropped.saturating_add(1);
                    }
                }
            }
        }
        let replayed = |b: &[u8], x: u32, bpp: usize| {
            b.get(x as usize * bpp..)
                .filter(|c| c.len() >= bpp)
                .map(|c| crate::format::load_raw(c, bpp))
        };
        Ok(px
            .into_iter()
            .map(|p| {
                let mut h = p.hist;
                if p.active {
                    let c = replayed(&p.color, h.x, cbpp);
                    let z = if h.depth_before.is_some() {
                        replayed(&p.depth, h.x, dbpp)
                    } else {
                        None
                    };
                    h.color_after = c;
                    h.depth_after = z;
                }
                h
            })
            .collect())
    }

    /// Clears the colour and/or depth/stencil surfaces over a list of
    /// rectangles.
    pub fn clear(
        &mut self,
        color: Option<&mut Surface>,
        depth: Option<&mut Surface>,
        clear: &Clear<'_>,
    ) -> Result<(), PipelineError> {
        if self.stop_now() {
            return Err(PipelineError::Stopped);
        }
        if let Some(c) = color {
            if clear.flags.target {
                if !c.format().is_color() {
                    return Err(PipelineError::BadFormat {
                        format: c.format(),
                        usage: "render target",
                    });
                }
                self.fill_color(c, clear);
            }
        }
        if let Some(z) = depth {
            if clear.flags.zbuffer || clear.flags.stencil {
                let f = z.format();
                let Some(l) = f.depth_layout() else {
                    return Err(PipelineError::BadFormat {
                        format: f,
                        usage: "depth/stencil",
                    });
                };
                let mut mask = 0;
                if clear.flags.zbuffer {
                    mask |= l.depth.mask();
                }
                if clear.flags.stencil {
                    mask |= l.stencil.mask();
                }
                let raw = f.pack_depth_stencil(0, f.quantize_depth(clear.z), clear.stencil);
                if mask != 0 {
                    self.fill(z, clear.rects, raw, mask);
                }
            }
        }
        if self.stop_now() {
            return Err(PipelineError::Stopped);
        }
        Ok(())
    }

    /// Clears render targets 1–3 (D3DCLEAR_TARGET clears every bound
    /// render target; `Renderer::clear` clears target 0): each must be a
    /// colour format the size of target 0, checked before any is written.
    pub fn clear_extra(
        &mut self,
        targets: &mut RenderTargets<'_>,
        clear: &Clear<'_>,
    ) -> Result<(), PipelineError> {
        check_extra_targets(targets)?;
        if !clear.flags.target {
            return Ok(());
        }
        for s in targets.extra.iter_mut().flatten() {
            if self.stop_now() {
                return Err(PipelineError::Stopped);
            }
            self.fill_color(s, clear);
        }
        Ok(())
    }

    /// Fills the rectangles of a colour surface with the clear colour.
    fn fill_color(&self, c: &mut Surface, clear: &Clear<'_>) {
        let raw = c.format().encode_argb(clear.color);
        let bpp = c.format().bytes_per_pixel();
        let all = u32::MAX >> (32 - 8 * bpp);
        self.fill(c, clear.rects, raw, all);
    }

    /// Sets the `mask` bits of every pixel in `rects` to those of `raw`.
    fn fill(&self, s: &mut Surface, rects: &[Rect], raw: u32, mask: u32) {
        let full = Rect::new(0, 0, s.width() as i32, s.height() as i32);
        let whole = [full];
        let rects = if rects.is_empty() { &whole[..] } else { rects };
        let bpp = s.format().bytes_per_pixel() as usize;
        let all = u32::MAX >> (32 - 8 * bpp as u32);
        let pitch = s.pitch();
        let bytes = raw.to_le_bytes();
        let wd = self.watchdog.as_ref();
        let fill_row = |row: &mut [u8], y: i32| {
            // A CLEAR can be long (4096 rectangles of a large surface):
            // the watchdog is checked once per row.
            if fired(wd) {
                return;
            }
            for r in rects {
                let r = r.intersect(full);
                if r.is_empty() || y < r.y1 || y >= r.y2 {
                    continue;
                }
                let (a, b) = (r.x1 as usize * bpp, r.x2 as usize * bpp);
                let Some(px) = row.get_mut(a..b) else {
                    continue;
                };
                if mask & all == all {
                    // Fixed-size copies so the loops compile to plain stores.
                    match bpp {
                        4 => px
                            .chunks_exact_mut(4)
                            .for_each(|p| p.copy_from_slice(&bytes)),
                        3 => {
                            let b3 = [bytes[0], bytes[1], bytes[2]];
                            px.chunks_exact_mut(3).for_each(|p| p.copy_from_slice(&b3));
                        }
                        2 => {
                            let b2 = [bytes[0], bytes[1]];
                            px.chunks_exact_mut(2).for_each(|p| p.copy_from_slice(&b2));
                        }
                        _ => px.fill(bytes[0]),
                    }
                } else {
                    for p in px.chunks_exact_mut(bpp) {
                        let old = crate::format::load_raw(p, bpp);
                        crate::format::store_raw(p, bpp, (old & !mask) | (raw & mask));
                    }
                }
            }
        };
        match &self.pool {
            Some(p) => p.install(|| {
                s.bytes_mut()
                    .par_chunks_mut(pitch)
                    .enumerate()
                    .for_each(|(y, row)| fill_row(row, y as i32));
            }),
            None => s
                .bytes_mut()
                .chunks_mut(pitch)
                .enumerate()
                .for_each(|(y, row)| fill_row(row, y as i32)),
        }
    }
}

/// Render targets 1–3 are colour surfaces the size of target 0.
fn check_extra_targets(targets: &RenderTargets<'_>) -> Result<(), PipelineError> {
    let (cw, ch) = (targets.color.width(), targets.color.height());
    for (i, s) in targets.extra.iter().enumerate() {
        let Some(s) = s else {
            continue;
        };
        if !s.format().is_color() {
            return Err(PipelineError::BadFormat {
                format: s.format(),
                usage: "render target",
            });
        }
        if (s.width(), s.height()) != (cw, ch) {
            return Err(PipelineError::TargetSizeMismatch {
                index: i as u32 + 1,
                width: s.width(),
                height: s.height(),
                color_w: cw,
                color_h: ch,
            });
        }
    }
    Ok(())
}

/// The geometry stages' constants of a draw rasterized inside `rect`
/// (`full`: the draw shades the full way; `fog_alpha`: its specular alpha
/// carries a fog factor; `sets`: texture-coordinate sets interpolated).
fn geometry_ctx(
    state: &PipelineState,
    call: &DrawCall<'_>,
    rect: Rect,
    full: bool,
    fog_alpha: bool,
    sets: usize,
    simd: SimdLevel,
) -> GeometryCtx {
    let ds = &state.depth;
    GeometryCtx {
        vs: VertexStage::new(state, call.layout, rasterizes_points(state, call)),
        setup: SetupCtx {
            rect,
            cull: state.raster.cull_mode,
            fill: state.raster.fill_mode,
            flat: state.raster.shade_mode == ShadeMode::Flat,
            last_pixel: state.raster.last_pixel,
            need_specular: state.raster.specular_enable || (full && fog_alpha),
            need_rhw: ds.z_enable == crate::state::ZBufferType::UseW,
            depth_bias: ds.depth_bias - ds.z_bias.min(16) as f32 * ZBIAS_UNIT,
            slope_bias: ds.slope_scale_depth_bias,
            full,
            fog_alpha: full && fog_alpha,
            simd,
            tex_sets: sets,
        },
        viewport: state.viewport,
        clipping: state.raster.clipping,
        fog_alpha: full && fog_alpha,
        flat_varyings: 0,
    }
}

/// Whether a draw rasterizes points (a point list, or triangles in POINT
/// fill mode): its vertices carry a point size.
fn rasterizes_points(state: &PipelineState, call: &DrawCall<'_>) -> bool {
    call.topology == Topology::PointList
        || (call.topology.arity() == 3 && state.raster.fill_mode == crate::state::FillMode::Point)
}

/// Whether the fog factor of a draw is a vertex output carried in the
/// specular alpha (vertex fog, or the specular alpha itself); `screen`:
/// the vertices are pre-transformed or come from a vertex shader.
fn vertex_output_fog(state: &PipelineState, screen: bool) -> bool {
    matches!(
        state.fog.source(screen),
        FogSource::Vertex(_) | FogSource::SpecularAlpha
    )
}

/// Sets up the input primitives `range` of `call` into `out`, with `sets`
/// texture-coordinate sets, through the fixed-function vertex stage or
/// `shader`.
fn set_up(
    g: &GeometryCtx,
    shader: Option<&ShaderStage<'_>>,
    call: &DrawCall<'_>,
    range: std::ops::Range<u64>,
    out: &mut ChunkOut,
    sets: usize,
) {
    if let Some(sh) = shader {
        match sets {
            0 => process_range_shaded::<0>(g, sh, call, range, out),
            1 => process_range_shaded::<1>(g, sh, call, range, out),
            2 => process_range_shaded::<2>(g, sh, call, range, out),
            3..=MAX_STAGES => process_range_shaded::<MAX_STAGES>(g, sh, call, range, out),
            _ => process_range_shaded::<MAX_VARYINGS>(g, sh, call, range, out),
        }
        return;
    }
    match sets {
        0 => process_range::<0>(g, call, range, out),
        1 => process_range::<1>(g, call, range, out),
        2 => process_range::<2>(g, call, range, out),
        _ => process_range::<MAX_STAGES>(g, call, range, out),
    }
}

/// Rasterizes everything binned, then empties the bins.
fn flush(
    pool: Option<&rayon::ThreadPool>,
    bins: &mut Bins,
    targets: &mut RenderTargets<'_>,
    scene: &[ChunkOut],
    d: &DrawCtx,
    wd: Option<&Watchdog>,
) -> Stats {
    if bins.entries == 0 {
        return Stats::default();
    }
    let band = TILE_SIZE as usize;
    let cp = targets.color.pitch();
    let rect = bins.rect;
    let ty0 = (rect.y1.max(0) as usize) / band;
    let ty1 = ((rect.y2 - 1).max(0) as usize) / band;
    let (dp, depth_bytes): (usize, &mut [u8]) = match targets.depth.as_deref_mut() {
        Some(s) => (s.pitch(), s.bytes_mut()),
        None => (0, &mut []),
    };
    let mut depth_bands: Vec<&mut [u8]> = if dp > 0 {
        depth_bytes.chunks_mut(dp * band).collect()
    } else {
        Vec::new()
    };
    // Render targets 1–3, cut into the same bands (their rows are taken
    // only by draws whose pixel shader writes them).
    let mut extra_pitch = [0usize; limits::MAX_RENDER_TARGETS - 1];
    let mut extra_bands: [Vec<&mut [u8]>; limits::MAX_RENDER_TARGETS - 1] = Default::default();
    for ((s, p), b) in targets
        .extra
        .iter_mut()
        .zip(&mut extra_pitch)
        .zip(&mut extra_bands)
    {
        if let Some(s) = s.as_deref_mut() {
            *p = s.pitch();
            *b = s.bytes_mut().chunks_mut(*p * band).collect();
        }
    }
    type Job<'b> = (
        usize,
        &'b mut [u8],
        &'b mut [u8],
        [&'b mut [u8]; limits::MAX_RENDER_TARGETS - 1],
    );
    let mut jobs: Vec<Job<'_>> = Vec::new();
    for (ty, c) in targets.color.bytes_mut().chunks_mut(cp * band).enumerate() {
        if ty < ty0 || ty > ty1 {
            continue;
        }
        let Some(row) = bins.bins.get(ty * bins.tiles_x..(ty + 1) * bins.tiles_x) else {
            continue;
        };
        if row.iter().all(Vec::is_empty) {
            continue;
        }
        let dz: &mut [u8] = match depth_bands.get_mut(ty) {
            Some(z) => std::mem::take(z),
            None => &mut [],
        };
        let extra = extra_bands
            .each_mut()
            .map(|b| b.get_mut(ty).map_or(&mut [][..], std::mem::take));
        jobs.push((ty, c, dz, extra));
    }
    let bins_ref: &Bins = bins;
    let work = |(ty, c, z, extra): Job<'_>| -> Stats {
        let mut t = TileTarget {
            color: c,
            color_pitch: cp,
            depth: z,
            depth_pitch: dp,
            y0: (ty * band) as i32,
            extra,
            extra_pitch,
        };
        let mut s = Stats::default();
        for tx in 0..bins_ref.tiles_x {
            let Some(entries) = bins_ref.bins.get(ty * bins_ref.tiles_x + tx) else {
                continue;
            };
            if entries.is_empty() {
                continue;
            }
            let tile = bins_ref.tile(tx, ty);
            if tile.x0 > tile.x1 || tile.y0 > tile.y1 {
                continue;
            }
            if fired(wd) {
                break;
            }
            raster_tile(&mut t, d, &tile, entries, scene, &mut s, wd);
        }
        s
    };
    let total = match pool {
        Some(p) => p.install(|| {
            jobs.into_par_iter()
                .map(work)
                .reduce(Stats::default, |a, b| a + b)
        }),
        None => jobs
            .into_iter()
            .map(work)
            .fold(Stats::default(), |a, b| a + b),
    };
    bins.clear();
    total
}

/// The pixel samplers' textures of a draw with textures on the texture
/// stages only (samplers 8–15 unbound).
fn sampler_textures<'t>(
    stages: &[Option<&'t Texture>; MAX_STAGES],
) -> [Option<&'t Texture>; PIXEL_SAMPLERS] {
    std::array::from_fn(|i| stages.get(i).copied().flatten())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Incremented by each worker thread's thread-local as the thread
    /// exits.
    static EXITED: AtomicUsize = AtomicUsize::new(0);

    struct OnExit;
    impl Drop for OnExit {
        fn drop(&mut self) {
            EXITED.fetch_add(1, Ordering::SeqCst);
        }
    }

    thread_local! {
        static MARK: std::cell::RefCell<Option<OnExit>> = const { std::cell::RefCell::new(None) };
    }

    /// Dropping a renderer returns only after each of its threads has
    /// exited (thread-locals destroyed): nothing of it runs afterwards.
    #[test]
    fn dropping_a_renderer_joins_its_threads() {
        let r = Renderer::new(3).unwrap();
        let pool = r.pool.as_ref().unwrap();
        pool.broadcast(|_| MARK.with(|m| *m.borrow_mut() = Some(OnExit)));
        assert_eq!(EXITED.load(Ordering::SeqCst), 0);
        drop(r);
        assert_eq!(EXITED.load(Ordering::SeqCst), 3);
    }
}
