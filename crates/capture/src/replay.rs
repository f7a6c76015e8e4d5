//! Replaying a capture on a fresh driver.
//!
//! In: a [`Capture`] (already loaded, so structurally valid) and the thread
//! count. Out, through a [`Sink`] and one item at a time as the replay
//! produces it ([`replay_into`]): every presented frame (Flip and Present)
//! as RGBA8 with its FNV-1a 64 checksum, then each live context's render
//! target at the end; and for every record a [`Step`]: the driver's answer,
//! the refusal with the driver's reason if it refused the call, and the
//! differences from the recorded answer. The replayer keeps none of it, so
//! a replay's memory is bounded by the capture's live surfaces (plus the
//! one frame being handed over), not by its length. [`replay`] collects
//! everything into a [`Replay`] (for tests and small captures).
//!
//! Handles: the driver's handles are generational and salted per driver,
//! so a replay cannot get the recorded values back. The replayer keeps a
//! map from recorded to live handles (filled by surface and context
//! creation, emptied by destruction) and translates every call argument
//! and every handle inside the command streams: the fields the DP2 struct
//! tables mark as surface handles (`ValueKind::Handle`, except
//! `dwPaletteHandle`, a palette number), `D3DRS_TEXTUREHANDLE` values and
//! `D3DTSS_TEXTUREMAP` values (a texture bound to a stage).
//! A value not in the map is passed unchanged — a stale or made-up handle
//! stays invalid. Hand-written captures may therefore use any handle
//! numbers they like.
//!
//! Guarantees: never panics on any capture; every driver call is made with
//! the data recorded (command bytes are written into the command surface
//! only if it does not already hold them); what the driver answers is the
//! result, nothing in the capture can make the replay itself fail.
//! Not reproduced: a host's `D3dParseUnknownCommand` hook (replays run
//! without one).
//!
//! Render-callback submissions: render contexts are mapped like device
//! contexts, and each allocation-list entry is translated through the
//! surface it named when recorded (`docs/capture-format.md`, SUBMIT).

use crate::record::*;
use softhal_device::{
    Clear2Data, DeviceError, DrawPrimitives2Data, Driver, LockFlags, SurfaceDesc, SurfaceKind,
    ValidateTextureStageStateData,
};
use softhal_wire::ddi_enum::ValueKind;
use softhal_wire::names::codes;
use softhal_wire::{DecodeOptions, Decoder, Opcode};
use std::collections::HashMap;

/// Which image a [`Frame`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// A Flip or Present, in order.
    Presented,
    /// A context's render target at the end of the replay.
    Final,
    /// The render target of a DrawPrimitives2 call's context just after
    /// the call (only when the [`Sink`] asks for it,
    /// [`Sink::snapshot_after_draw`]): `call` counts DrawPrimitives2
    /// records from 1 over the whole capture, `frame` is the frame the
    /// call draws into (1 + the frames presented before it).
    Draw {
        /// 1 + the frames presented before the call.
        frame: usize,
        /// The call's number among the capture's DrawPrimitives2 records,
        /// from 1.
        call: usize,
    },
}

impl FrameKind {
    /// The file name of the `n`-th (1-based) image of this kind, the one
    /// naming scheme of replayed images: `frame-0001.png` for the first
    /// presented frame, `final-0001.png` for the first context's render
    /// target at the end; `draw-0002-0017.png` for the render target
    /// after DrawPrimitives2 call 17, which draws into frame 2 (`n` is not
    /// used: a draw snapshot carries its numbers). Every number has at
    /// least 4 digits, so the names of one replay sort in replay order.
    pub fn file_name(self, n: usize) -> String {
        match self {
            FrameKind::Presented => format!("frame-{n:04}.png"),
            FrameKind::Final => format!("final-{n:04}.png"),
            FrameKind::Draw { frame, call } => format!("draw-{frame:04}-{call:04}.png"),
        }
    }
}

/// One image produced by a replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Presented, or a final render target.
    pub kind: FrameKind,
    /// Index of the record that produced it (for end-of-replay render
    /// targets: the number of records).
    pub record: usize,
    /// The recorded handle of the surface.
    pub surface: u32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Tightly packed RGBA8.
    pub rgba: Vec<u8>,
    /// FNV-1a 64 of `rgba`.
    pub checksum: u64,
}

/// A replayed answer that differs from the recorded one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// Record index.
    pub record: usize,
    /// Record name.
    pub call: &'static str,
    /// What differs, e.g. `ddrval: recorded D3D_OK, replayed DDERR_INVALIDPARAMS`.
    pub detail: String,
}

/// A call the driver refused during a replay (its `ddrval` or HRESULT is
/// not `D3D_OK`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Record index.
    pub record: usize,
    /// Record name.
    pub call: &'static str,
    /// The code the driver answered.
    pub ddrval: u32,
    /// `dwErrorOffset` (DrawPrimitives2; 0 for other calls).
    pub error_offset: u32,
    /// Why, in the driver's words (e.g. "vertex index = 7 is out of range
    /// (limit 3)"), when the call reports more than its code: not for
    /// Clear2, ValidateTextureStageState and render-callback submissions,
    /// whose only answer is the code.
    pub reason: Option<String>,
    /// The capture recorded this same code for the call: the refusal is
    /// what the capture shows, not a replay failure.
    pub recorded: bool,
}

/// What one record's replay gave.
#[derive(Debug, Clone)]
pub struct Step {
    /// Record index.
    pub index: usize,
    /// The driver's answer (`None` for records without one).
    pub answer: Option<Answer>,
    /// The call was refused.
    pub refusal: Option<Refusal>,
    /// Differences from the recorded answer.
    pub differences: Vec<Difference>,
}

/// Receives what a replay produces, one item at a time, as it is produced.
pub trait Sink {
    /// A presented frame (at its Flip / Present) or, after the last
    /// record, a live context's render target. The sink owns it: dropping
    /// it frees its pixels.
    fn frame(&mut self, frame: Frame);
    /// Record `step.index` has been replayed (after its frame, if any).
    fn step(&mut self, step: Step);
    /// DrawPrimitives2 call `call` (numbered from 1 over the capture),
    /// drawing into frame `frame` (see [`FrameKind::Draw`]), has just been
    /// made: return true to receive its context's render target now,
    /// through [`Sink::frame`], before the call's [`Step`]. Taking it
    /// waits for the GPU work submitted so far; the replay is otherwise
    /// the same. The default asks for none.
    fn snapshot_after_draw(&mut self, frame: usize, call: usize) -> bool {
        let _ = (frame, call);
        false
    }
}

/// The result of a replay, collected ([`replay`]).
#[derive(Debug, Clone, Default)]
pub struct Replay {
    /// Every Flip / Present, in order.
    pub frames: Vec<Frame>,
    /// The render target of each context alive at the end, in creation order.
    pub finals: Vec<Frame>,
    /// Render targets after draw calls (none: [`Replay`] asks for none).
    pub draws: Vec<Frame>,
    /// The driver's answer to each record (`None` for records without one).
    pub answers: Vec<Option<Answer>>,
    /// Differences from recorded answers.
    pub differences: Vec<Difference>,
    /// Calls the driver refused.
    pub refusals: Vec<Refusal>,
    /// GPU submissions the driver's watchdog stopped (each removed its
    /// context: later calls on it answered `D3DDDIERR_DEVICEREMOVED`);
    /// 0 unless some work ran past the timeout
    /// ([`replay_with_timeout`]).
    pub hangs: u64,
}

impl Sink for Replay {
    fn frame(&mut self, frame: Frame) {
        match frame.kind {
            FrameKind::Presented => self.frames.push(frame),
            FrameKind::Final => self.finals.push(frame),
            FrameKind::Draw { .. } => self.draws.push(frame),
        }
    }
    fn step(&mut self, step: Step) {
        self.answers.push(step.answer);
        self.refusals.extend(step.refusal);
        self.differences.extend(step.differences);
    }
}

fn surface_desc(s: &SurfaceSpec) -> Option<SurfaceDesc> {
    let kind = match s.kind_code()? {
        SurfaceKindCode::RenderTarget => SurfaceKind::RenderTarget,
        SurfaceKindCode::DepthStencil => SurfaceKind::DepthStencil,
        SurfaceKindCode::Texture => SurfaceKind::Texture,
        SurfaceKindCode::CubeTexture => SurfaceKind::CubeTexture,
        SurfaceKindCode::VolumeTexture => SurfaceKind::VolumeTexture,
        SurfaceKindCode::VertexBuffer => SurfaceKind::VertexBuffer { implicit: false },
        SurfaceKindCode::ImplicitVertexBuffer => SurfaceKind::VertexBuffer { implicit: true },
        SurfaceKindCode::IndexBuffer => SurfaceKind::IndexBuffer,
        SurfaceKindCode::CommandBuffer => SurfaceKind::CommandBuffer,
    };
    // The device checks the format against the kind when it creates the
    // surface (buffers ignore it).
    let format = softhal_device::D3dFormat(s.format);
    Some(SurfaceDesc {
        kind,
        format,
        width: s.width,
        height: s.height,
        depth: s.depth,
        mip_levels: s.mip_levels,
        render_target: s.render_target_usage(),
    })
}

/// The capture code of a device surface description.
pub fn spec_of(d: &SurfaceDesc) -> SurfaceSpec {
    let kind = match d.kind {
        SurfaceKind::RenderTarget => SurfaceKindCode::RenderTarget,
        SurfaceKind::DepthStencil => SurfaceKindCode::DepthStencil,
        SurfaceKind::Texture => SurfaceKindCode::Texture,
        SurfaceKind::CubeTexture => SurfaceKindCode::CubeTexture,
        SurfaceKind::VolumeTexture => SurfaceKindCode::VolumeTexture,
        SurfaceKind::VertexBuffer { implicit: false } => SurfaceKindCode::VertexBuffer,
        SurfaceKind::VertexBuffer { implicit: true } => SurfaceKindCode::ImplicitVertexBuffer,
        SurfaceKind::IndexBuffer => SurfaceKindCode::IndexBuffer,
        SurfaceKind::CommandBuffer => SurfaceKindCode::CommandBuffer,
    };
    let usage = if d.render_target {
        SurfaceSpec::RENDER_TARGET_USAGE
    } else {
        0
    };
    SurfaceSpec {
        kind: kind as u32 | usage,
        format: d.format.0,
        width: d.width,
        height: d.height,
        depth: d.depth,
        mip_levels: d.mip_levels,
    }
}

/// Translates the surface handles inside a DP2 stream with `map` (see the
/// module docs). Bytes that do not decode are left as they are.
pub fn remap_stream(bytes: &mut [u8], opts: DecodeOptions, map: &HashMap<u32, u32>) {
    if map.is_empty() {
        return;
    }
    let mut patches: Vec<(usize, &'static softhal_wire::structs::Field, u32)> = Vec::new();
    for item in Decoder::new(bytes, opts) {
        let Ok(cmd) = item else { break };
        let Some(op) = Opcode::from_raw(cmd.header.command) else {
            break;
        };
        let Some(desc) = softhal_wire::text::fixed_record(op) else {
            continue;
        };
        let n = usize::from(cmd.header.count.get());
        if desc.size == 0 || 4 + n * desc.size > cmd.size {
            continue;
        }
        for i in 0..n {
            let at = cmd.offset + 4 + i * desc.size;
            let Some(rec) = bytes.get(at..at + desc.size) else {
                continue;
            };
            // D3DRS_TEXTUREHANDLE (render state 1) and D3DTSS_TEXTUREMAP
            // (texture-stage state 0) carry texture handles as values.
            let field = |name: &str| {
                desc.fields
                    .iter()
                    .find(|f| f.name == name)
                    .and_then(|f| f.read(rec))
            };
            let is_texture_handle_state = (op == Opcode::RenderState
                && field("RenderState") == Some(1))
                || (op == Opcode::TextureStageState && field("TSState") == Some(0));
            for f in desc.fields {
                let handle_field =
                    matches!(f.kind, ValueKind::Handle) && f.name != "dwPaletteHandle";
                let state_value =
                    is_texture_handle_state && (f.name == "dwState" || f.name == "dwValue");
                if !(handle_field || state_value) {
                    continue;
                }
                if let Some(v) = f.read(rec).and_then(|v| map.get(&v)) {
                    patches.push((at, f, *v));
                }
            }
        }
    }
    for (at, f, v) in patches {
        if let Some(rec) = bytes.get_mut(at..) {
            f.write(rec, v);
        }
    }
}

/// The decode options of a recorded call's command stream.
pub fn call_options(c: &Dp2Call) -> DecodeOptions {
    let stride = softhal_wire::fvf::vertex_stride(c.vertex_type)
        .ok()
        .filter(|s| *s != 0)
        .unwrap_or(c.vertex_size);
    DecodeOptions {
        vertex_stride: stride,
        base_align: (c.command_offset & 3) as usize,
    }
}

/// Replays records one at a time.
pub struct Replayer {
    driver: Driver,
    surfaces: HashMap<u32, u32>,
    contexts: HashMap<u32, u32>,
    render_contexts: HashMap<u32, u32>,
    context_order: Vec<u32>,
    /// Why the driver refused the record being replayed, when it said.
    reason: Option<String>,
    /// DrawPrimitives2 records replayed so far.
    draw_calls: usize,
    /// Frames handed to the sink as presented so far.
    presented: usize,
}

impl std::fmt::Debug for Replayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replayer")
            .field("surfaces", &self.surfaces.len())
            .field("contexts", &self.contexts.len())
            .finish()
    }
}

impl Replayer {
    /// A replayer on a fresh driver with `threads` rasterizer threads.
    pub fn new(threads: usize) -> Result<Self, DeviceError> {
        Ok(Replayer {
            driver: Driver::new(threads)?,
            surfaces: HashMap::new(),
            contexts: HashMap::new(),
            render_contexts: HashMap::new(),
            context_order: Vec::new(),
            reason: None,
            draw_calls: 0,
            presented: 0,
        })
    }

    /// The driver (for inspection).
    pub fn driver(&self) -> &Driver {
        &self.driver
    }

    /// The driver, mutably (for tools that inspect it between records:
    /// waiting for the GPU, reading counters and images).
    pub fn driver_mut(&mut self) -> &mut Driver {
        &mut self.driver
    }

    /// The live handle of recorded surface `h` (itself if the replay does
    /// not know it).
    pub fn live_surface(&self, h: u32) -> u32 {
        self.s(h)
    }

    /// The live handle of recorded device context `h` (itself if the
    /// replay does not know it).
    pub fn live_context(&self, h: u32) -> u32 {
        self.c(h)
    }

    /// Frames presented so far.
    pub(crate) fn frames_presented(&self) -> usize {
        self.presented
    }

    /// DrawPrimitives2 records replayed so far.
    pub(crate) fn draw_calls(&self) -> usize {
        self.draw_calls
    }

    fn s(&self, h: u32) -> u32 {
        self.surfaces.get(&h).copied().unwrap_or(h)
    }
    fn c(&self, h: u32) -> u32 {
        self.contexts.get(&h).copied().unwrap_or(h)
    }

    /// The code of a call's result, keeping the driver's reason for a
    /// refusal.
    fn ok_or(&mut self, r: Result<(), DeviceError>) -> u32 {
        match r {
            Ok(()) => codes::D3D_OK,
            Err(e) => self.refused(&e),
        }
    }

    /// The code of a refusal, keeping its reason.
    fn refused(&mut self, e: &DeviceError) -> u32 {
        self.reason.get_or_insert_with(|| e.to_string());
        e.ddrval()
    }

    /// Writes `bytes` at `offset` of plane (face, level) of live surface `h`
    /// (an image's plane in tight rows, as [`crate::observer::plane`]).
    fn write_plane(&mut self, h: u32, face: u32, level: u32, offset: u32, bytes: &[u8]) -> u32 {
        let is_buffer = self
            .driver
            .surface(h)
            .is_ok_and(|r| r.desc.kind.is_buffer());
        // An image's tight row, when its pitch is wider.
        let tight_row = self
            .driver
            .image(h)
            .ok()
            .map(|s| (s.row_bytes(), s.row_bytes() * s.height() as usize))
            .filter(|_| face == 0 && level == 0);
        let plane = if is_buffer {
            self.driver.lock(h, LockFlags::default()).map(|b| (b, 0))
        } else {
            self.driver.lock_level(h, face, level)
        };
        let mut outside = None;
        let r = match plane {
            Ok((p, pitch)) => {
                let start = offset as usize;
                let (written, size) = match tight_row {
                    Some((row, size)) if row != pitch => (
                        softhal_pipeline::write_tight_rows(p, pitch, row, start, bytes),
                        size,
                    ),
                    _ => {
                        let size = p.len();
                        let dst = p.get_mut(start..start.saturating_add(bytes.len()));
                        (dst.map(|d| d.copy_from_slice(bytes)).is_some(), size)
                    }
                };
                if written {
                    codes::D3D_OK
                } else {
                    outside = Some(format!(
                        "{} byte(s) at offset {offset} end past the {size} byte(s) locked",
                        bytes.len()
                    ));
                    codes::DDERR_INVALIDPARAMS
                }
            }
            Err(e) => self.refused(&e),
        };
        if let Some(why) = outside {
            self.reason.get_or_insert(why);
        }
        let _ = self.driver.unlock(h);
        r
    }

    /// Fills a new surface with its initial contents (storage order).
    fn fill(&mut self, h: u32, init: &[u8]) -> u32 {
        if init.is_empty() {
            return codes::D3D_OK;
        }
        let r = match self.driver.surface(h) {
            Ok(r) => r,
            Err(e) => return self.refused(&e),
        };
        if r.desc.kind.is_buffer() {
            return self.write_plane(h, 0, 0, 0, init);
        }
        let (faces, levels) = (r.faces(), r.desc.mip_levels.max(1));
        let mut rest = init;
        for face in 0..faces {
            for level in 0..levels {
                if rest.is_empty() {
                    return codes::D3D_OK;
                }
                let size = match self.driver.lock_level(h, face, level) {
                    Ok((b, _)) => b.len(),
                    Err(e) => return self.refused(&e),
                };
                // An image's plane is held in tight rows.
                let size = match self.driver.image(h) {
                    Ok(s) => s.row_bytes() * s.height() as usize,
                    Err(_) => size,
                };
                let _ = self.driver.unlock(h);
                let (now, later) = rest.split_at(size.min(rest.len()));
                let r = self.write_plane(h, face, level, 0, now);
                if r != codes::D3D_OK {
                    return r;
                }
                rest = later;
            }
        }
        if rest.is_empty() {
            codes::D3D_OK
        } else {
            self.reason.get_or_insert_with(|| {
                format!(
                    "the initial contents are {} byte(s) longer than the surface",
                    rest.len()
                )
            });
            codes::DDERR_INVALIDPARAMS
        }
    }

    fn frame(&mut self, kind: FrameKind, index: usize, recorded: u32, live: u32) -> Option<Frame> {
        let img = self.driver.image(live).ok()?;
        let rgba = img.to_rgba8();
        Some(Frame {
            kind,
            record: index,
            surface: recorded,
            width: img.width(),
            height: img.height(),
            checksum: fnv1a64(&rgba),
            rgba,
        })
    }

    /// Replays record `index`: a presented frame goes to `sink` at once,
    /// then the record's [`Step`]; also returns the driver's answer.
    pub fn step(&mut self, index: usize, r: &Record, sink: &mut dyn Sink) -> Option<Answer> {
        self.reason = None;
        let status = |ddrval: u32| {
            Some(Answer {
                ddrval,
                ..Answer::default()
            })
        };
        let ans = match r {
            Record::CreateSurface {
                handle, spec, init, ..
            } => match surface_desc(spec) {
                None => status(if spec.kind_code().is_none() {
                    codes::DDERR_INVALIDPARAMS
                } else {
                    codes::DDERR_INVALIDPIXELFORMAT
                }),
                Some(d) => match self.driver.create_surface(d) {
                    Ok(h) => {
                        self.surfaces.insert(*handle, h);
                        status(self.fill(h, init))
                    }
                    Err(e) => status(self.refused(&e)),
                },
            },
            Record::DestroySurface { handle, .. } => {
                let r = self.driver.destroy_surface(self.s(*handle));
                if r.is_ok() {
                    self.surfaces.remove(handle);
                }
                status(self.ok_or(r))
            }
            Record::Lock {
                handle,
                api,
                face,
                level,
                flags,
                ..
            } => {
                let h = self.s(*handle);
                let r = match api {
                    LockApi::Lock => self
                        .driver
                        .lock(
                            h,
                            LockFlags {
                                discard: flags & 1 != 0,
                                no_overwrite: flags & 2 != 0,
                            },
                        )
                        .map(|_| ()),
                    LockApi::LockLevel => self.driver.lock_level(h, *face, *level).map(|_| ()),
                };
                status(self.ok_or(r))
            }
            Record::Unlock {
                handle,
                face,
                level,
                offset,
                bytes,
                ..
            } => {
                let h = self.s(*handle);
                let w = if bytes.is_empty() {
                    codes::D3D_OK
                } else {
                    self.write_plane(h, *face, *level, *offset, bytes)
                };
                let u = self.driver.unlock(h);
                let u = self.ok_or(u);
                status(if u != codes::D3D_OK { u } else { w })
            }
            Record::ContextCreate {
                handle,
                render_target,
                depth,
                ..
            } => {
                let d = (*depth != 0).then(|| self.s(*depth));
                match self.driver.context_create(self.s(*render_target), d) {
                    Ok(h) => {
                        self.contexts.insert(*handle, h);
                        self.context_order.push(*handle);
                        status(codes::D3D_OK)
                    }
                    Err(e) => {
                        self.refused(&e);
                        status(Driver::context_create_ddrval(&e))
                    }
                }
            }
            Record::ContextDestroy { handle, .. } => {
                let r = self.driver.context_destroy(self.c(*handle));
                if r.is_ok() {
                    self.contexts.remove(handle);
                    self.context_order.retain(|h| h != handle);
                }
                status(match r {
                    Ok(()) => codes::D3D_OK,
                    Err(e) => {
                        self.refused(&e);
                        codes::D3DHAL_CONTEXT_BAD
                    }
                })
            }
            Record::DrawPrimitives2 { call, .. } => {
                let ans = self.dp2(call);
                self.draw_calls = self.draw_calls.saturating_add(1);
                let (frame, n) = (self.presented.saturating_add(1), self.draw_calls);
                if sink.snapshot_after_draw(frame, n) {
                    self.driver.wait_for_gpu();
                    let rt = self
                        .driver
                        .context(self.c(call.context))
                        .map(|ctx| ctx.render_target);
                    if let Ok(rt) = rt {
                        let recorded = self.recorded_surface(rt);
                        let kind = FrameKind::Draw { frame, call: n };
                        if let Some(f) = self.frame(kind, index, recorded, rt) {
                            sink.frame(f);
                        }
                    }
                }
                Some(ans)
            }
            Record::Clear2 { call: c, .. } => {
                let mut d = Clear2Data {
                    dwh_context: self.c(c.context),
                    dw_flags: c.flags,
                    dw_fill_color: c.color,
                    dv_fill_depth: f32::from_bits(c.depth_bits),
                    dw_fill_stencil: c.stencil,
                    lp_rects: &c.rects,
                    ddrval: 0,
                };
                self.driver.clear2(&mut d);
                status(d.ddrval)
            }
            Record::ValidateTextureStageState {
                context,
                flags,
                reserved,
                ..
            } => {
                let mut d = ValidateTextureStageStateData {
                    dwh_context: self.c(*context),
                    dw_flags: *flags,
                    dw_reserved: *reserved,
                    ..Default::default()
                };
                self.driver.validate_texture_stage_state(&mut d);
                Some(Answer {
                    ddrval: d.ddrval,
                    passes: d.dw_num_passes,
                    ..Answer::default()
                })
            }
            Record::Flip { handle, .. } | Record::Present { handle, .. } => {
                let h = self.s(*handle);
                let r = if matches!(r, Record::Flip { .. }) {
                    self.driver.flip(h)
                } else {
                    self.driver.present(h).map(|_| ())
                };
                match r {
                    Ok(()) => {
                        let f = self.frame(FrameKind::Presented, index, *handle, h);
                        let checksum = f.as_ref().map_or(0, |f| f.checksum);
                        if let Some(f) = f {
                            self.presented = self.presented.saturating_add(1);
                            sink.frame(f);
                        }
                        Some(Answer {
                            ddrval: codes::D3D_OK,
                            checksum,
                            ..Answer::default()
                        })
                    }
                    Err(e) => status(self.refused(&e)),
                }
            }
            Record::CompleteFlips => {
                self.driver.complete_flips();
                None
            }
            Record::CompleteWork => {
                self.driver.complete_work();
                None
            }
            Record::SetColorKey {
                handle,
                enable,
                low,
                high,
                ..
            } => {
                let key = (*enable != 0).then_some((*low, *high));
                let r = self.driver.set_color_key(self.s(*handle), key);
                status(self.ok_or(r))
            }
            Record::DxVersion { version } => {
                self.driver.notify_dx_version(*version);
                None
            }
            Record::AttachedSurface {
                handle,
                texture,
                face,
                level,
                ..
            } => {
                let r = self
                    .driver
                    .attached_surface(self.s(*texture), *face, *level);
                if let Ok(h) = r {
                    self.surfaces.insert(*handle, h);
                }
                status(crate::observer::ddrval(&r))
            }
            Record::Submit { call, .. } => Some(self.submit(call)),
            Record::RenderContextCreate { handle, engine, .. } => {
                match crate::observer::engine_of(*engine) {
                    None => status(codes::E_INVALIDARG),
                    Some(e) => match self.driver.render_context_create(e) {
                        Ok(h) => {
                            self.render_contexts.insert(*handle, h);
                            status(codes::D3D_OK)
                        }
                        Err(e) => status(self.refused(&e)),
                    },
                }
            }
            Record::RenderContextDestroy { handle, .. } => {
                let live = self.render_contexts.get(handle).copied().unwrap_or(0);
                let r = self.driver.render_context_destroy(live);
                if r.is_ok() {
                    self.render_contexts.remove(handle);
                }
                status(self.ok_or(r))
            }
        };
        let mut differences = Vec::new();
        if let (Some(rec), Some(got)) = (r.answer(), ans.as_ref()) {
            for detail in compare(r, rec, got) {
                tracing::warn!(record = index, call = r.name(), %detail, "replayed answer differs from the recorded one");
                differences.push(Difference {
                    record: index,
                    call: r.name(),
                    detail,
                });
            }
        }
        let refusal = ans
            .as_ref()
            .filter(|a| a.ddrval != codes::D3D_OK)
            .map(|a| Refusal {
                record: index,
                call: r.name(),
                ddrval: a.ddrval,
                error_offset: a.error_offset,
                reason: self.reason.take(),
                recorded: r.answer().is_some_and(|rec| rec.ddrval == a.ddrval),
            });
        sink.step(Step {
            index,
            answer: ans.clone(),
            refusal,
            differences,
        });
        ans
    }

    fn dp2(&mut self, c: &Dp2Call) -> Answer {
        let opts = call_options(c);
        let mut bytes = c.command_bytes.clone();
        remap_stream(&mut bytes, opts, &self.surfaces);
        let cmd = self.s(c.commands);
        // Put the command bytes where the call says they are, unless they
        // are there already (recorded locks wrote them) or do not fit.
        let needs_write = self.driver.surface(cmd).ok().and_then(|r| {
            let b = r.buffer(cmd).ok()?;
            let start = c.command_offset as usize;
            let cur = b.get(start..start.checked_add(bytes.len())?)?;
            Some(cur != bytes.as_slice())
        });
        if needs_write == Some(true) {
            if let Ok(b) = self.driver.lock(
                cmd,
                LockFlags {
                    discard: false,
                    no_overwrite: true,
                },
            ) {
                let start = c.command_offset as usize;
                if let Some(dst) = b.get_mut(start..start + bytes.len()) {
                    dst.copy_from_slice(&bytes);
                }
            }
            let _ = self.driver.unlock(cmd);
        }
        let mut rstates = c.rstates.clone();
        let mut d = DrawPrimitives2Data::new(self.c(c.context), cmd, c.command_length);
        d.dw_flags = c.flags;
        d.dw_vertex_type = c.vertex_type;
        d.dw_command_offset = c.command_offset;
        d.lp_dd_vertex = self.s(c.vertex_surface);
        d.lp_vertices = c.user_vertices.as_deref();
        d.dw_vertex_offset = c.vertex_offset;
        d.dw_vertex_length = c.vertex_length;
        d.dw_req_vertex_buf_size = c.req_vertex_buf_size;
        d.dw_req_command_buf_size = c.req_command_buf_size;
        d.lpdw_r_states = rstates.as_deref_mut();
        d.ddrval = c.vertex_size;
        self.driver.draw_primitives2(&mut d);
        let (ddrval, error_offset, flags) = (d.ddrval, d.dw_error_offset, d.dw_flags);
        if ddrval != codes::D3D_OK {
            self.reason = self.driver.last_error().map(|f| f.error.to_string());
        }
        Answer {
            ddrval,
            error_offset,
            flags,
            rstates,
            ..Answer::default()
        }
    }

    /// A render-callback submission: the recorded buffers, with the render
    /// context and every allocation-list entry translated (an entry names
    /// the allocation of the surface it named when recorded; a context or
    /// surface the replay does not know becomes 0, which is never valid, so
    /// an invalid handle stays invalid).
    fn submit(&mut self, c: &SubmitCall) -> Answer {
        let allocation_list = c
            .allocations
            .iter()
            .map(|a| softhal_submit::AllocationListEntry {
                h_allocation: self
                    .surfaces
                    .get(&a.surface)
                    .and_then(|s| self.driver.allocation_of(*s))
                    .unwrap_or(0),
                value: a.value,
            })
            .collect();
        let mut rd = softhal_submit::RenderData {
            command_length: c.command_length,
            command_offset: c.command_offset,
            num_allocations: c.num_allocations,
            num_patch_locations: c.num_patch_locations,
            command_buffer: c.command_bytes.clone(),
            new_command_buffer_size: c.req_command_buffer_size,
            allocation_list,
            new_allocation_list_size: c.req_allocation_list_size,
            patch_location_list: c.patches.clone(),
            new_patch_location_list_size: c.req_patch_list_size,
            flags: c.flags,
            h_context: (c.context != 0)
                .then(|| self.render_contexts.get(&c.context).copied().unwrap_or(0)),
            ..softhal_submit::RenderData::default()
        };
        let hr = self.driver.render(&mut rd);
        crate::observer::submit_answer(&rd, hr)
    }

    /// Ends the replay: waits for the GPU work in flight, hands each live
    /// context's render target to `sink`, and returns how many GPU
    /// submissions the driver's watchdog stopped (each removed its context).
    pub fn finish(mut self, records: usize, sink: &mut dyn Sink) -> u64 {
        self.driver.wait_for_gpu();
        let hangs = self.driver.kmd().stats().hangs;
        for rec in self.context_order.clone() {
            let live = self.c(rec);
            let Ok(ctx) = self.driver.context(live) else {
                continue;
            };
            let rt = ctx.render_target;
            let recorded = self.recorded_surface(rt);
            if let Some(f) = self.frame(FrameKind::Final, records, recorded, rt) {
                sink.frame(f);
            }
        }
        hangs
    }
}

impl Replayer {
    /// The recorded handle of live surface `live` (itself if unknown).
    pub fn recorded_surface(&self, live: u32) -> u32 {
        self.surfaces
            .iter()
            .find(|(_, v)| **v == live)
            .map_or(live, |(k, _)| *k)
    }
}

fn compare(r: &Record, rec: &Answer, got: &Answer) -> Vec<String> {
    let mut d = Vec::new();
    if rec.ddrval != got.ddrval {
        d.push(format!(
            "ddrval: recorded {}, replayed {}",
            codes::format_hresult(rec.ddrval),
            codes::format_hresult(got.ddrval)
        ));
    }
    match r {
        Record::DrawPrimitives2 { .. } => {
            if rec.error_offset != got.error_offset {
                d.push(format!(
                    "dwErrorOffset: recorded {}, replayed {}",
                    rec.error_offset, got.error_offset
                ));
            }
            if rec.flags != got.flags {
                d.push(format!(
                    "dwFlags: recorded {:#x}, replayed {:#x}",
                    rec.flags, got.flags
                ));
            }
            if let (Some(a), Some(b)) = (&rec.rstates, &got.rstates) {
                if let Some(i) = (0..256).find(|i| a.get(*i) != b.get(*i)) {
                    d.push(format!("lpdwRStates[{i}] differs"));
                }
            }
        }
        Record::ValidateTextureStageState { .. } if rec.passes != got.passes => {
            d.push(format!(
                "dwNumPasses: recorded {}, replayed {}",
                rec.passes, got.passes
            ));
        }
        Record::Submit { .. } => {
            let names = [
                "NewCommandBufferSize",
                "NewAllocationListSize",
                "NewPatchLocationListSize",
            ];
            for ((n, a), b) in names.iter().zip(rec.sizes).zip(got.sizes) {
                if a != b {
                    d.push(format!("{n}: recorded {a}, replayed {b}"));
                }
            }
            if rec.queued != got.queued {
                d.push(format!(
                    "QueuedBufferCount: recorded {}, replayed {}",
                    rec.queued, got.queued
                ));
            }
        }
        Record::Flip { .. } | Record::Present { .. }
            if rec.checksum != 0 && rec.checksum != got.checksum =>
        {
            d.push(format!(
                "frame checksum: recorded {:016x}, replayed {:016x}",
                rec.checksum, got.checksum
            ));
        }
        _ => {}
    }
    d
}

/// Replays a whole capture into `sink` on a new driver: each presented
/// frame as it is presented, each record's [`Step`], then the final render
/// targets. `timeout`: `None` keeps the driver's default GPU timeout
/// (`softhal_submit::limits::DEFAULT_GPU_TIMEOUT_MS`), `Some(t)` sets `t`
/// (`Some(None)`: no limit). Returns the GPU submissions the watchdog
/// stopped.
fn stream(
    c: &Capture,
    threads: usize,
    timeout: Option<Option<std::time::Duration>>,
    sink: &mut dyn Sink,
) -> Result<u64, DeviceError> {
    let mut r = Replayer::new(threads)?;
    if let Some(t) = timeout {
        r.driver.set_gpu_timeout(t);
    }
    for (i, rec) in c.records.iter().enumerate() {
        r.step(i, rec, sink);
    }
    Ok(r.finish(c.records.len(), sink))
}

/// Replays a whole capture into `sink`: each presented frame as it is
/// presented, each record's [`Step`], then the final render targets. One
/// GPU submission may run for `timeout` (`None`: no limit); returns the
/// submissions the watchdog stopped (each removed its context).
pub fn replay_into(
    c: &Capture,
    threads: usize,
    timeout: Option<std::time::Duration>,
    sink: &mut dyn Sink,
) -> Result<u64, DeviceError> {
    stream(c, threads, Some(timeout), sink)
}

/// Replays a whole capture and collects everything in memory (frames
/// included: for tests and small captures; [`replay_into`] streams);
/// `progress(done, total)` is called after each record. The driver's GPU
/// timeout is its default (`softhal_submit::limits::DEFAULT_GPU_TIMEOUT_MS`).
pub fn replay(
    c: &Capture,
    threads: usize,
    progress: impl FnMut(usize, usize),
) -> Result<Replay, DeviceError> {
    collect(c, threads, None, progress)
}

/// [`replay`] with the time one GPU submission may run (`None`: no
/// limit); work past it is stopped and counted in [`Replay::hangs`].
pub fn replay_with_timeout(
    c: &Capture,
    threads: usize,
    timeout: Option<std::time::Duration>,
    progress: impl FnMut(usize, usize),
) -> Result<Replay, DeviceError> {
    collect(c, threads, Some(timeout), progress)
}

fn collect(
    c: &Capture,
    threads: usize,
    timeout: Option<Option<std::time::Duration>>,
    progress: impl FnMut(usize, usize),
) -> Result<Replay, DeviceError> {
    struct Collect<P> {
        out: Replay,
        total: usize,
        progress: P,
    }
    impl<P: FnMut(usize, usize)> Sink for Collect<P> {
        fn frame(&mut self, frame: Frame) {
            self.out.frame(frame);
        }
        fn step(&mut self, step: Step) {
            let done = step.index + 1;
            self.out.step(step);
            (self.progress)(done, self.total);
        }
    }
    let mut sink = Collect {
        out: Replay::default(),
        total: c.records.len(),
        progress,
    };
    sink.out.hangs = stream(c, threads, timeout, &mut sink)?;
    Ok(sink.out)
}
