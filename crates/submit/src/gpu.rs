//! The GPU's command processor: executes verified packets.
//!
//! In: one queued submission ([`crate::schedule::Queued`]: its
//! [`Verified`] packets, its context and fence) and the memory its job
//! carries. Out: pixels and texels in that memory, the context's registers,
//! counters and queries, fences executed, faults counted. Guarantees: only
//! packets [`crate::verify`] produced run (the kernel's own FENCE_WAIT,
//! CONTEXT_SWITCH and FENCE_SIGNAL around each submission included); every
//! memory access is still checked (an allocation changed behind the
//! kernel's back is a fault, never a panic); the watchdog is checked
//! around each packet that does work, and a submission it stops leaves
//! its context hung.

use crate::derive::derive;
use crate::kmd::{ContextCounters, GpuStats, WatchedDraw};
use crate::memory::VideoMemory;
use crate::packet::Engine;
use crate::regs::{self, RegisterFile};
use crate::schedule::Queued;
use crate::shader::ShaderState;
use crate::texture;
use crate::verify::Verified;
use softhal_pipeline::limits::PIXEL_SAMPLERS;
use softhal_pipeline::program::ShaderInput;
use softhal_pipeline::program::VERTEX_SAMPLERS;
use softhal_pipeline::stages::MAX_STAGES;
use softhal_pipeline::texture::Texture;
use softhal_pipeline::{
    self as pl, Indices, PipelineState, RenderTargets, Renderer, Surface, Topology, VertexLayout,
};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// A context's registers and counters as the GPU (the execution half)
/// holds them.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ExecCtx {
    /// The registers SET_REGS wrote (with the groups written since the
    /// last draw marked dirty).
    pub(crate) regs: RegisterFile,
    /// The pipeline state derived from `regs` (up to date for the groups
    /// `regs` does not mark dirty).
    pub(crate) state: PipelineState,
    pub(crate) executed: u64,
    pub(crate) counters: ContextCounters,
    pub(crate) queries: BTreeMap<u32, (u64, Option<u64>)>,
    /// A submission of this context was stopped by the watchdog.
    pub(crate) hung: bool,
    /// Its shader objects, bound shaders and constants.
    pub(crate) shaders: ShaderState,
}

/// The execution half of the GPU: the pixel engine, the per-context
/// register state and counters. It travels with each job to the worker
/// and comes back with the result (at most one job is in flight), so
/// there is never shared mutable state.
pub(crate) struct ExecState {
    pub(crate) renderer: Renderer,
    pub(crate) ctxs: BTreeMap<u32, ExecCtx>,
    pub(crate) last_on_engine: [Option<u32>; 2],
    /// Only `executed`, `context_switches`, `faults`, `paging` and
    /// `hangs` are counted here.
    pub(crate) stats: GpuStats,
    /// The host's cancellation flag (shared with [`Kmd::cancel_handle`]).
    pub(crate) cancel: pl::CancelHandle,
    /// Time each submission may run (`None`: unlimited).
    pub(crate) timeout: Option<Duration>,
    /// The pixels every draw watches (a debugging option of the kernel
    /// side, [`crate::Kmd::set_pixel_watch`]; never set by a packet).
    pub(crate) watch: Option<pl::PixelWatch>,
    /// The watched draws' histories not yet taken (at most
    /// [`crate::limits::MAX_WATCHED_EVENTS`] events; later draws are
    /// counted in `watched_dropped`).
    pub(crate) watched: Vec<WatchedDraw>,
    /// Watched draws whose history did not fit in `watched`.
    pub(crate) watched_dropped: u64,
    /// Events in `watched`.
    pub(crate) watched_events: usize,
}

/// What the packets executed so far bound (a submission starts with
/// nothing); inline vertices and indices borrow the verified packets.
#[derive(Debug, Clone, Copy, Default)]
struct Bind<'p> {
    color: Option<u32>,
    /// (face, level) when the colour target is a texture level
    /// (BIND_TEXTURE_TARGET); `None` for an image.
    color_level: Option<(u32, u32)>,
    depth: Option<u32>,
    /// Render targets 1–3 (BIND_RENDER_TARGET): an image, or a texture
    /// level (face, level).
    extra: [Option<TargetRef>; pl::limits::MAX_RENDER_TARGETS - 1],
    layout: Option<VertexLayout>,
    /// The stride and input registers of vertex-shader draws
    /// (VERTEX_INPUTS).
    inputs: Option<(u32, &'p [ShaderInput])>,
    /// Vertex source.
    verts: Option<Source<'p>>,
    /// Index source and width.
    idx: Option<(Source<'p>, u32)>,
    /// Texture allocation bound to each stage (SET_TEXTURE): the stages
    /// 0–15 the pixel samplers (0–7 also the texture stages'), then the
    /// vertex-texture samplers (`regs::STAGES` in all).
    textures: [Option<u32>; regs::STAGES as usize],
}

/// A colour target as bound: an allocation, with (face, level) when it
/// is a texture level.
type TargetRef = (u32, Option<(u32, u32)>);

/// Where vertices or indices come from.
#[derive(Debug, Clone, Copy)]
enum Source<'p> {
    /// `len` bytes at `offset` of a buffer allocation.
    Buffer { h: u32, offset: usize, len: usize },
    /// Bytes that travelled in the command buffer.
    Inline(&'p [u8]),
}

/// The colour target of a draw or clear: an image moved out of video
/// memory, or a texture level (`level`: face, level) as a surface — its
/// bytes moved out of the texture, or copied when `copy` (the draw also
/// samples the texture, and sees the level as it was before the draw).
fn take_target(
    mem: &mut dyn VideoMemory,
    h: u32,
    level: Option<(u32, u32)>,
    copy: bool,
) -> Option<Surface> {
    let Some((face, lv)) = level else {
        return mem.take_image(h);
    };
    let t = mem.texture_mut(h)?;
    let (format, w, hgt) = texture::target_level(&t.desc(), face, lv)?;
    let pitch = t.level_info(lv)?.row_pitch as u64;
    let bytes = if copy {
        t.level_bytes(face, lv)?.to_vec()
    } else {
        t.take_level(face, lv)?
    };
    match Surface::from_bytes(format, w, hgt, pitch, bytes) {
        Ok(s) => Some(s),
        Err((_, bytes)) => {
            if !copy {
                t.put_level(face, lv, bytes);
            }
            None
        }
    }
}

/// Puts a target taken with [`take_target`] back; false if it could not be.
fn put_target(mem: &mut dyn VideoMemory, h: u32, level: Option<(u32, u32)>, s: Surface) -> bool {
    let Some((face, lv)) = level else {
        mem.put_image(h, s);
        return true;
    };
    mem.texture_mut(h)
        .is_some_and(|t| t.put_level(face, lv, s.into_bytes()))
}

/// Render targets 1–3 of `b`, taken out of video memory (a texture level
/// the draw also samples is copied, as for target 0). A bound target
/// that cannot be taken (gone, or the same image or level as another
/// target) is `Some(None)`: the draw or clear faults.
fn take_extra(
    mem: &mut dyn VideoMemory,
    b: &Bind<'_>,
) -> [Option<Option<Surface>>; pl::limits::MAX_RENDER_TARGETS - 1] {
    b.extra.map(|t| {
        t.map(|(h, level)| {
            let sampled = b.textures.contains(&Some(h));
            take_target(mem, h, level, sampled)
        })
    })
}

/// Gives render targets 1–3 back; false if one was bound but could not
/// be taken (the draw or clear did nothing with it) or put back.
fn put_extra(
    mem: &mut dyn VideoMemory,
    b: &Bind<'_>,
    extra: [Option<Option<Surface>>; pl::limits::MAX_RENDER_TARGETS - 1],
) -> bool {
    let mut ok = true;
    for (t, s) in b.extra.iter().zip(extra) {
        match (t, s) {
            (Some((h, level)), Some(Some(s))) => ok &= put_target(mem, *h, *level, s),
            (Some(_), _) => ok = false,
            (None, _) => {}
        }
    }
    ok
}

impl ExecState {
    pub(crate) fn new(renderer: Renderer) -> Self {
        ExecState {
            renderer,
            ctxs: BTreeMap::new(),
            last_on_engine: [None, None],
            stats: GpuStats::default(),
            cancel: pl::CancelHandle::new(),
            timeout: None,
            watch: None,
            watched: Vec::new(),
            watched_dropped: 0,
            watched_events: 0,
        }
    }

    pub(crate) fn execute(&mut self, engine: Engine, q: Queued, mem: &mut dyn VideoMemory) {
        // The kernel's own packets around the user buffer.
        let mut pro = Vec::new();
        if self.last_on_engine.get(engine.index()).copied().flatten() != Some(q.ctx) {
            pro.push(Verified::ContextSwitch { context: q.ctx });
        }
        for &(context, fence) in &q.waits {
            pro.push(Verified::FenceWait { context, fence });
        }
        let epi = [Verified::FenceSignal {
            context: q.ctx,
            fence: q.fence,
        }];
        if self.ctxs.get(&q.ctx).is_some_and(|c| c.hung) {
            // A hung context's queued work is skipped; its fence is still
            // signalled so that nothing waits for it forever.
            self.run(engine, q.ctx, &epi, mem, None);
            self.stats.executed = self.stats.executed.saturating_add(1);
            return;
        }
        self.run(engine, q.ctx, &pro, mem, None);
        if !q.null {
            let wd = pl::Watchdog {
                cancel: self.cancel.clone(),
                deadline: self.timeout.and_then(|t| Instant::now().checked_add(t)),
            };
            self.renderer.set_watchdog(Some(wd.clone()));
            let stopped = self.run(engine, q.ctx, &q.packets, mem, Some(&wd));
            self.renderer.set_watchdog(None);
            if stopped {
                // The cancellation (if that was it) is spent on this
                // submission; the rest of the job runs.
                self.cancel.take();
                self.ctxs.entry(q.ctx).or_default().hung = true;
                self.stats.hangs = self.stats.hangs.saturating_add(1);
                tracing::warn!(
                    context = q.ctx,
                    fence = q.fence,
                    "GPU submission stopped by the watchdog (deadline or cancel): context removed, later calls on it answer D3DDDIERR_DEVICEREMOVED"
                );
            }
        }
        self.run(engine, q.ctx, &epi, mem, None);
        self.stats.executed = self.stats.executed.saturating_add(1);
    }

    /// Counts one copy-engine operation (BLT, COLOR_FILL, GENERATE_MIPS)
    /// of context `ctx_h`.
    fn count_copy(&mut self, ctx_h: u32) {
        let c = self.ctxs.entry(ctx_h).or_default();
        c.counters.copies = c.counters.copies.saturating_add(1);
    }

    pub(crate) fn fault(&mut self) {
        self.stats.faults = self.stats.faults.saturating_add(1);
    }

    /// Executes verified packets (every access to memory is still
    /// checked). With a watchdog (user submissions; the kernel's own
    /// packets have none), it is checked before and after each packet
    /// that does work (draws, clears, copies); returns true when it fired
    /// (the rest of the packets did not run).
    fn run(
        &mut self,
        engine: Engine,
        ctx_h: u32,
        packets: &[Verified],
        mem: &mut dyn VideoMemory,
        wd: Option<&pl::Watchdog>,
    ) -> bool {
        let fired = || wd.is_some_and(pl::Watchdog::fired);
        let mut b = Bind::default();
        for p in packets {
            let work = p.is_work();
            if work && fired() {
                return true;
            }
            let ok = match p {
                Verified::Nop => true,
                Verified::ContextSwitch { context } => {
                    if let Some(slot) = self.last_on_engine.get_mut(engine.index()) {
                        *slot = Some(*context);
                    }
                    self.stats.context_switches = self.stats.context_switches.saturating_add(1);
                    true
                }
                Verified::FenceWait { context, fence } => {
                    self.ctxs.get(context).is_none_or(|c| c.executed >= *fence)
                }
                Verified::FenceSignal { context, fence } => {
                    let c = self.ctxs.entry(*context).or_default();
                    c.executed = c.executed.max(*fence);
                    true
                }
                Verified::SetRegs(writes) => {
                    let c = self.ctxs.entry(ctx_h).or_default();
                    writes.iter().all(|&(r, v)| c.regs.write(r, v).is_ok())
                }
                Verified::BindTargets { color, depth } => {
                    b.color = Some(*color);
                    b.color_level = None;
                    b.depth = *depth;
                    true
                }
                Verified::BindTextureTarget {
                    texture,
                    face,
                    level,
                    depth,
                } => {
                    b.color = Some(*texture);
                    b.color_level = Some((*face, *level));
                    b.depth = *depth;
                    true
                }
                Verified::BindRenderTarget { index, target } => {
                    if let Some(slot) = (*index as usize)
                        .checked_sub(1)
                        .and_then(|i| b.extra.get_mut(i))
                    {
                        *slot = *target;
                    }
                    true
                }
                Verified::VertexFormat(l) => {
                    b.layout = Some(*l);
                    true
                }
                Verified::VertexInputs { stride, inputs } => {
                    b.inputs = Some((*stride, inputs));
                    true
                }
                Verified::CreateShader { id, shader } => self
                    .ctxs
                    .entry(ctx_h)
                    .or_default()
                    .shaders
                    .create(*id, shader),
                Verified::DestroyShader { id } => {
                    self.ctxs.entry(ctx_h).or_default().shaders.destroy(*id)
                }
                Verified::SetShader { stage, id } => {
                    self.ctxs
                        .entry(ctx_h)
                        .or_default()
                        .shaders
                        .bind(*stage, *id);
                    true
                }
                Verified::SetConstants {
                    stage,
                    bank,
                    first,
                    data,
                } => {
                    self.ctxs
                        .entry(ctx_h)
                        .or_default()
                        .shaders
                        .set_constants(*stage, *bank, *first, data);
                    true
                }
                Verified::SetVertices {
                    buffer,
                    offset,
                    size,
                } => {
                    b.verts = Some(Source::Buffer {
                        h: *buffer,
                        offset: *offset,
                        len: *size,
                    });
                    true
                }
                Verified::VerticesInline(data) => {
                    b.verts = Some(Source::Inline(data));
                    true
                }
                Verified::SetIndices {
                    buffer,
                    offset,
                    size,
                    width,
                } => {
                    b.idx = Some((
                        Source::Buffer {
                            h: *buffer,
                            offset: *offset,
                            len: *size,
                        },
                        *width,
                    ));
                    true
                }
                Verified::IndicesInline { width, data } => {
                    b.idx = Some((Source::Inline(data), *width));
                    true
                }
                Verified::Draw {
                    topology,
                    first,
                    count,
                    base_vertex,
                    indexed,
                } => {
                    let call = DrawArgs {
                        topology: *topology,
                        first: *first,
                        count: *count,
                        base_vertex: *base_vertex,
                        indexed: *indexed,
                    };
                    self.draw(ctx_h, &b, &call, mem)
                }
                Verified::Clear {
                    flags,
                    color,
                    z,
                    stencil,
                    rects,
                } => {
                    let req = pl::Clear {
                        flags: pl::ClearFlags::from_d3d(flags.0),
                        rects,
                        color: *color,
                        z: *z,
                        stencil: *stencil,
                    };
                    self.clear(ctx_h, &b, &req, mem)
                }
                Verified::BufferCopy {
                    src,
                    src_offset,
                    dst,
                    dst_offset,
                    size,
                } => {
                    let ok = mem.copy_buffer(*src, *src_offset, *dst, *dst_offset, *size);
                    let c = self.ctxs.entry(ctx_h).or_default();
                    c.counters.copies = c.counters.copies.saturating_add(1);
                    ok
                }
                Verified::Query { end, id } => {
                    let c = self.ctxs.entry(ctx_h).or_default();
                    let now = c.counters.samples_passed;
                    if *end {
                        let begin = c.queries.get(id).map_or(now, |q| q.0);
                        c.queries
                            .insert(*id, (begin, Some(now.saturating_sub(begin))));
                    } else {
                        c.queries.insert(*id, (now, None));
                    }
                    true
                }
                Verified::Present => {
                    let c = self.ctxs.entry(ctx_h).or_default();
                    c.counters.presents = c.counters.presents.saturating_add(1);
                    true
                }
                Verified::SetTexture { stage, texture } => {
                    match b.textures.get_mut(*stage as usize) {
                        Some(slot) => {
                            *slot = *texture;
                            true
                        }
                        None => false,
                    }
                }
                Verified::TextureCopy(c) => {
                    let ok = texture::copy(mem, c.src, c.dst, c);
                    let c = self.ctxs.entry(ctx_h).or_default();
                    c.counters.copies = c.counters.copies.saturating_add(1);
                    ok
                }
                Verified::Blt(b) => {
                    let ok = crate::blit::run_blt(mem, b);
                    self.count_copy(ctx_h);
                    ok
                }
                Verified::ColorFill(c) => {
                    let ok = crate::blit::run_fill(mem, c);
                    self.count_copy(ctx_h);
                    ok
                }
                Verified::GenerateMips { texture } => {
                    let ok = crate::blit::run_mips(mem, *texture);
                    self.count_copy(ctx_h);
                    ok
                }
            };
            if work && fired() {
                // Stopped inside (or right after) this packet: not a
                // fault of the packet.
                return true;
            }
            if !ok {
                self.fault();
            }
        }
        false
    }

    fn draw(&mut self, ctx_h: u32, b: &Bind<'_>, d: &DrawArgs, mem: &mut dyn VideoMemory) -> bool {
        let ctx = self.ctxs.entry(ctx_h).or_default();
        // A vertex shader reads the vertices as VERTEX_INPUTS says (only
        // the stride of the layout is read); fixed function as
        // VERTEX_FORMAT says.
        let layout = if ctx.shaders.vertex_bound() {
            b.inputs.map(|(stride, _)| VertexLayout {
                stride,
                ..VertexLayout::packed(pl::PositionKind::Xyz, false, false, &[])
            })
        } else {
            b.layout
        };
        let (Some(ch), Some(layout), Some(vs)) = (b.color, layout, b.verts) else {
            return false;
        };
        // Only the groups written since the last draw are derived again.
        let dirty = ctx.regs.take_dirty();
        if dirty != 0 {
            derive(&ctx.regs, dirty, &mut ctx.state);
        }
        // A texture level that is also sampled by this draw is copied: the
        // draw samples its contents as of the start of the draw.
        let sampled = b.textures.contains(&Some(ch));
        let Some(mut color) = take_target(mem, ch, b.color_level, sampled) else {
            return false;
        };
        let mut extra = take_extra(mem, b);
        let extra_ok = extra.iter().all(|e| !matches!(e, Some(None)));
        let mut depth = b.depth.and_then(|d| mem.take_image(d));
        let mut missing = false;
        let result = {
            // Looked up now: a texture that vanished reads as unbound.
            let mut texture_at = |i: usize| {
                let h = b.textures.get(i).copied().flatten()?;
                let t = mem.texture(h);
                missing |= t.is_none();
                t
            };
            let textures: [Option<&Texture>; PIXEL_SAMPLERS] = std::array::from_fn(&mut texture_at);
            // Fixed function samples the texture stages' (the first).
            let stage_textures: [Option<&Texture>; MAX_STAGES] =
                std::array::from_fn(|i| textures.get(i).copied().flatten());
            let vertex_textures: [Option<&Texture>; VERTEX_SAMPLERS] = std::array::from_fn(|i| {
                texture_at((regs::VERTEX_SAMPLER_STAGE as usize).saturating_add(i))
            });
            let mem: &dyn VideoMemory = mem;
            let bytes = |src| source_bytes(mem, src);
            let verts = bytes(vs);
            let indices = match b.idx {
                Some((src, w)) if d.indexed => bytes(src).map(|s| {
                    Some(if w == 2 {
                        Indices::U16(s)
                    } else {
                        Indices::U32(s)
                    })
                }),
                _ if d.indexed => None,
                _ => Some(None),
            };
            match (verts, indices) {
                (Some(v), Some(ix)) if extra_ok => {
                    let call = pl::DrawCall {
                        topology: d.topology,
                        vertices: v,
                        layout: &layout,
                        indices: ix,
                        first: d.first,
                        primitive_count: d.count,
                        base_vertex: d.base_vertex,
                    };
                    let mut targets = RenderTargets {
                        color: &mut color,
                        depth: depth.as_mut(),
                        extra: extra
                            .each_mut()
                            .map(|e| e.as_mut().and_then(Option::as_mut)),
                    };
                    // Chosen once per draw: a watched draw renders the
                    // same pixels and also replays the watched ones.
                    // A draw with a shader bound is not watched.
                    match &self.watch {
                        _ if ctx.shaders.any_bound() => {
                            let inputs = b.inputs.map_or(&[][..], |(_, i)| i);
                            match ctx.shaders.programs(inputs, vertex_textures) {
                                Some(programs) => self
                                    .renderer
                                    .draw_programs(
                                        &mut targets,
                                        &ctx.state,
                                        &call,
                                        &textures,
                                        &programs,
                                    )
                                    .ok(),
                                None => None,
                            }
                        }
                        None => self
                            .renderer
                            .draw_textured(&mut targets, &ctx.state, &call, &stage_textures)
                            .ok(),
                        Some(w) => self
                            .renderer
                            .draw_watched(&mut targets, &ctx.state, &call, &stage_textures, w)
                            .ok()
                            .map(|(stats, pixels)| {
                                let n: usize = pixels.iter().map(|p| p.events.len()).sum();
                                let total = self.watched_events.saturating_add(n);
                                if total <= crate::limits::MAX_WATCHED_EVENTS {
                                    self.watched_events = total;
                                    self.watched.push(WatchedDraw {
                                        context: ctx_h,
                                        target: ch,
                                        pixels,
                                    });
                                } else {
                                    self.watched_dropped = self.watched_dropped.saturating_add(1);
                                }
                                stats
                            }),
                    }
                }
                _ => None,
            }
        };
        let put = put_target(mem, ch, b.color_level, color) & put_extra(mem, b, extra);
        if let (Some(h), Some(d)) = (b.depth, depth) {
            mem.put_image(h, d);
        }
        match result.filter(|_| put) {
            Some(s) => {
                let k = &mut ctx.counters;
                if d.count > 0 {
                    k.draws = k.draws.saturating_add(1);
                }
                k.primitives = k.primitives.saturating_add(s.primitives);
                k.samples_passed = k.samples_passed.saturating_add(s.samples_passed_depth);
                k.pixels_written = k.pixels_written.saturating_add(s.pixels_written);
                k.pixels_shaded = k.pixels_shaded.saturating_add(s.pixels_shaded);
                !missing
            }
            None => false,
        }
    }

    fn clear(
        &mut self,
        ctx_h: u32,
        b: &Bind<'_>,
        req: &pl::Clear<'_>,
        mem: &mut dyn VideoMemory,
    ) -> bool {
        let Some(ch) = b.color else {
            return false;
        };
        let mut color = take_target(mem, ch, b.color_level, false);
        let mut extra = take_extra(mem, b);
        let mut depth = b.depth.and_then(|d| mem.take_image(d));
        // D3DCLEAR_TARGET clears every bound render target.
        let extra_ok = extra.iter().all(|e| !matches!(e, Some(None)));
        let ok = match color.as_mut() {
            Some(c) if extra_ok => {
                let mut targets = RenderTargets {
                    color: c,
                    depth: None,
                    extra: extra
                        .each_mut()
                        .map(|e| e.as_mut().and_then(Option::as_mut)),
                };
                self.renderer.clear_extra(&mut targets, req).is_ok()
                    && self.renderer.clear(Some(c), depth.as_mut(), req).is_ok()
            }
            _ => false,
        };
        let ok = put_extra(mem, b, extra) && ok;
        let ok = match color {
            Some(c) => put_target(mem, ch, b.color_level, c) && ok,
            None => ok,
        };
        if let (Some(h), Some(d)) = (b.depth, depth) {
            mem.put_image(h, d);
        }
        let c = self.ctxs.entry(ctx_h).or_default();
        c.counters.clears = c.counters.clears.saturating_add(1);
        ok
    }
}

/// The bytes of a vertex or index source (`None`: the buffer vanished or
/// shrank).
fn source_bytes<'m>(mem: &'m dyn VideoMemory, src: Source<'m>) -> Option<&'m [u8]> {
    match src {
        Source::Buffer { h, offset, len } => mem.buffer(h)?.get(offset..offset.checked_add(len)?),
        Source::Inline(data) => Some(data),
    }
}

/// A verified DRAW's operands.
struct DrawArgs {
    topology: Topology,
    first: u32,
    count: u32,
    base_vertex: i32,
    indexed: bool,
}
