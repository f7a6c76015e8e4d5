//! Pixel history of a capture: every draw that covered one pixel.
//!
//! In: a loaded [`Capture`], a pixel `(x, y)` of the render targets, the
//! frames to look at and the rasterizer thread count. Out: a
//! [`PixelHistoryReport`]: for each DrawPrimitives2 command (in the frames
//! asked for) whose draws produced a fragment at the pixel, the frame, the
//! call and record numbers, the command's offset in the command buffer and
//! its DDK opcode name, the render target, the pixel's value before and
//! after the draw, and one [`EventReport`] per fragment — the primitive,
//! the test that rejected it (scissor, colour key, alpha test, stencil,
//! depth, with the values compared and DDK names for functions, operations
//! and blend factors), the shaded colour, the blend inputs, factors and
//! result, and the value written. Serializable (`serde`) for JSON.
//!
//! How: the capture is replayed as [`crate::replay_into`] replays it, with
//! the driver's pixel watch set (`softhal_device::Driver::set_pixel_watch`,
//! a debugging option of the driver: nothing in the capture can set it)
//! while a frame asked for is being drawn; the pixels drawn are the same.
//! Guarantees: as the replay, never panics on any capture; the report is
//! bounded by the driver's caps on watched events
//! (`softhal_submit::limits::MAX_WATCHED_EVENTS` per DrawPrimitives2 call,
//! `softhal_pipeline::limits::MAX_PIXEL_EVENTS` per draw).

use crate::record::{Capture, Record};
use crate::replay::{Frame, Replayer, Sink, Step};
use serde::Serialize;
use softhal_device::{DeviceError, DrawHistory};
use softhal_pipeline::watch::{Outcome, PixelEvent, StencilOpSlot};
use softhal_pipeline::{Format, PixelWatch};
use softhal_wire::names::{Blend, BlendOp, CmpFunc, RenderStateType, StencilOp};
use softhal_wire::Opcode;

/// The pixel history of a capture ([`pixel_history`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PixelHistoryReport {
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
    /// The DrawPrimitives2 commands whose draws produced a fragment at the
    /// pixel, in replay order.
    pub draws: Vec<DrawReport>,
}

/// One pipeline draw of a DrawPrimitives2 command at the pixel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DrawReport {
    /// The frame drawn into: 1 + the frames presented before the call.
    pub frame: usize,
    /// The DrawPrimitives2 call, numbered from 1 over the capture (as
    /// `softhal render --every-draw` numbers them).
    pub call: usize,
    /// The capture record of the call (from 0).
    pub record: usize,
    /// The command's byte offset from the start of the command buffer
    /// (as `dwErrorOffset` counts).
    pub command_offset: u32,
    /// The command's opcode, e.g. `D3DDP2OP_TRIANGLELIST`.
    pub opcode: String,
    /// Its pipeline draw within the command (from 0; DX6 indexed commands
    /// may make several).
    pub draw: usize,
    /// The render target (its handle in the capture).
    pub render_target: u32,
    /// The render target's format, e.g. `D3DFMT_A8R8G8B8`.
    pub format: String,
    /// The pixel's raw value in the target before the draw.
    pub before: Option<u32>,
    /// The pixel's raw value after the draw.
    pub after: Option<u32>,
    /// `before` as D3DCOLOR (0xAARRGGBB; alpha 0xFF for formats without).
    pub before_argb: Option<u32>,
    /// `after` as D3DCOLOR.
    pub after_argb: Option<u32>,
    /// The depth/stencil buffer's raw value before the draw.
    pub depth_before: Option<u32>,
    /// The depth/stencil buffer's raw value after the draw.
    pub depth_after: Option<u32>,
    /// One event per fragment, in processing order.
    pub events: Vec<EventReport>,
    /// Fragments beyond the per-draw cap, not listed.
    pub events_dropped: u64,
    /// The recorded fragments end with the value the draw left (false only
    /// where a fused kernel rounds differently from the generic loop:
    /// `docs/pixel-history.md`).
    pub matches_target: bool,
}

/// One fragment ([`softhal_pipeline::PixelEvent`] with DDK names).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EventReport {
    /// The input primitive within the draw (from 0).
    pub primitive: u32,
    /// `written`, `scissor`, `color_key`, `alpha_test`, `stencil` or
    /// `depth` (the test that rejected it).
    pub outcome: &'static str,
    /// The shaded colour (D3DCOLOR), before blending.
    pub shaded: Option<u32>,
    /// The alpha test, when enabled.
    pub alpha_test: Option<AlphaTestReport>,
    /// The stencil test and operation, when enabled.
    pub stencil: Option<StencilReport>,
    /// The depth test, when enabled.
    pub depth: Option<DepthReport>,
    /// Blending, when enabled and reached.
    pub blend: Option<BlendReport>,
    /// The raw value written to the target.
    pub written: Option<u32>,
}

/// `value func reference` (D3DRS_ALPHAFUNC, D3DRS_ALPHAREF).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlphaTestReport {
    /// e.g. `D3DCMP_GREATER`.
    pub func: &'static str,
    /// D3DRS_ALPHAREF.
    pub reference: u8,
    /// The fragment's alpha.
    pub value: u8,
    /// The test passed.
    pub passed: bool,
}

/// `(reference & mask) func (stored & mask)`, then one operation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StencilReport {
    /// e.g. `D3DCMP_EQUAL`.
    pub func: &'static str,
    /// D3DRS_STENCILREF.
    pub reference: u32,
    /// D3DRS_STENCILMASK.
    pub mask: u32,
    /// D3DRS_STENCILWRITEMASK.
    pub write_mask: u32,
    /// The stored value before the fragment.
    pub stored: u32,
    /// The test passed.
    pub passed: bool,
    /// The render state whose operation applied, e.g. `D3DRS_STENCILFAIL`
    /// (`D3DRS_CCW_STENCIL*` for counter-clockwise primitives).
    pub state: &'static str,
    /// The operation, e.g. `D3DSTENCILOP_INCR`.
    pub op: &'static str,
    /// The stored value after it.
    pub result: u32,
}

/// `incoming func stored` (D3DRS_ZFUNC), in the buffer's format.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DepthReport {
    /// e.g. `D3DCMP_LESSEQUAL`.
    pub func: &'static str,
    /// The fragment's depth, quantized to the buffer's format.
    pub incoming: u32,
    /// The stored depth.
    pub stored: u32,
    /// `incoming` in `[0, 1]`.
    pub incoming_value: f32,
    /// `stored` in `[0, 1]`.
    pub stored_value: f32,
    /// The test passed.
    pub passed: bool,
    /// The depth was written.
    pub written: bool,
}

/// `result = src × src_weight op dst × dst_weight` (colours and weights
/// as D3DCOLOR; a weight of 0xFF is 1).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BlendReport {
    /// The shaded colour.
    pub src: u32,
    /// The target's colour.
    pub dst: u32,
    /// D3DRS_SRCBLEND, e.g. `D3DBLEND_SRCALPHA`.
    pub src_blend: &'static str,
    /// D3DRS_DESTBLEND.
    pub dest_blend: &'static str,
    /// D3DRS_BLENDOP.
    pub blend_op: &'static str,
    /// The alpha channel's source factor (D3DRS_SRCBLENDALPHA or SRCBLEND).
    pub src_blend_alpha: &'static str,
    /// The alpha channel's destination factor.
    pub dest_blend_alpha: &'static str,
    /// The alpha channel's operation.
    pub blend_op_alpha: &'static str,
    /// The source factor's value per channel.
    pub src_weight: u32,
    /// The destination factor's value per channel.
    pub dst_weight: u32,
    /// The blended colour.
    pub result: u32,
}

fn cmp_name(f: softhal_pipeline::CmpFunc) -> &'static str {
    CmpFunc::from_raw(f.d3d()).map_or("?", CmpFunc::name)
}

fn blend_name(b: softhal_pipeline::Blend) -> &'static str {
    Blend::from_raw(b.d3d()).map_or("?", Blend::name)
}

fn op_name(o: softhal_pipeline::BlendOp) -> &'static str {
    BlendOp::from_raw(o.d3d()).map_or("?", BlendOp::name)
}

/// The DDK names of an outcome as [`EventReport::outcome`] spells them.
pub fn outcome_name(o: Outcome) -> &'static str {
    match o {
        Outcome::Written => "written",
        Outcome::Scissor => "scissor",
        Outcome::ColorKey => "color_key",
        Outcome::AlphaTest => "alpha_test",
        Outcome::Stencil => "stencil",
        Outcome::Depth => "depth",
    }
}

impl EventReport {
    /// The event with DDK names.
    pub fn from_event(e: &PixelEvent) -> Self {
        EventReport {
            primitive: e.primitive,
            outcome: outcome_name(e.outcome),
            shaded: e.shaded,
            alpha_test: e.alpha_test.map(|a| AlphaTestReport {
                func: cmp_name(a.func),
                reference: a.reference,
                value: a.value,
                passed: a.passed,
            }),
            stencil: e.stencil.map(|s| {
                let state = match (s.slot, s.ccw) {
                    (StencilOpSlot::Fail, false) => RenderStateType::StencilFail,
                    (StencilOpSlot::ZFail, false) => RenderStateType::StencilZFail,
                    (StencilOpSlot::Pass, false) => RenderStateType::StencilPass,
                    (StencilOpSlot::Fail, true) => RenderStateType::CcwStencilFail,
                    (StencilOpSlot::ZFail, true) => RenderStateType::CcwStencilZFail,
                    (StencilOpSlot::Pass, true) => RenderStateType::CcwStencilPass,
                };
                StencilReport {
                    func: cmp_name(s.func),
                    reference: s.reference,
                    mask: s.mask,
                    write_mask: s.write_mask,
                    stored: s.stored,
                    passed: s.passed,
                    state: state.name(),
                    op: StencilOp::from_raw(s.op.d3d()).map_or("?", StencilOp::name),
                    result: s.result,
                }
            }),
            depth: e.depth.map(|d| DepthReport {
                func: cmp_name(d.func),
                incoming: d.incoming,
                stored: d.stored,
                incoming_value: d.incoming_value,
                stored_value: d.stored_value,
                passed: d.passed,
                written: d.written,
            }),
            blend: e.blend.map(|b| BlendReport {
                src: b.src,
                dst: b.dst,
                src_blend: blend_name(b.src_factor),
                dest_blend: blend_name(b.dst_factor),
                blend_op: op_name(b.op),
                src_blend_alpha: blend_name(b.src_factor_alpha),
                dest_blend_alpha: blend_name(b.dst_factor_alpha),
                blend_op_alpha: op_name(b.op_alpha),
                src_weight: b.src_weight,
                dst_weight: b.dst_weight,
                result: b.result,
            }),
            written: e.written,
        }
    }
}

/// A sink that keeps nothing (the history is read from the driver).
struct Discard;

impl Sink for Discard {
    fn frame(&mut self, _frame: Frame) {}
    fn step(&mut self, _step: Step) {}
}

/// Replays `capture` on a fresh driver with `threads` rasterizer threads
/// and returns the history of pixel `(x, y)` in the frames `frames`
/// (`None`: every frame; frame `n` is the one drawn after `n − 1`
/// presents, as in [`crate::FrameKind::Draw`]). Draws into any render
/// target (render-to-texture included) are watched at that pixel; draws
/// that produced no fragment there are left out. The pixels replayed are
/// the same as [`crate::replay_into`]'s. Fails only if the driver cannot
/// be created (`threads` above the pipeline's limit).
pub fn pixel_history(
    capture: &Capture,
    (x, y): (u32, u32),
    frames: Option<std::ops::RangeInclusive<usize>>,
    threads: usize,
) -> Result<PixelHistoryReport, DeviceError> {
    let mut r = Replayer::new(threads)?;
    let mut report = PixelHistoryReport {
        x,
        y,
        draws: Vec::new(),
    };
    let wanted = |f: usize| frames.as_ref().is_none_or(|fr| fr.contains(&f));
    let mut watching = false;
    for (i, rec) in capture.records.iter().enumerate() {
        let frame = r.frames_presented().saturating_add(1);
        let want = wanted(frame) && matches!(rec, Record::DrawPrimitives2 { .. });
        if want != watching {
            r.driver_mut()
                .set_pixel_watch(want.then(|| PixelWatch::new(&[(x, y)])).flatten());
            watching = want;
        }
        r.step(i, rec, &mut Discard);
        if !watching {
            continue;
        }
        let call = r.draw_calls();
        for cmd in r.driver_mut().take_pixel_history() {
            for (n, d) in cmd.draws.iter().enumerate() {
                if let Some(dr) =
                    draw_report(&r, frame, call, i, cmd.command_offset, cmd.opcode, n, d)
                {
                    report.draws.push(dr);
                }
            }
        }
    }
    Ok(report)
}

/// The report of draw `n` of a command, if it produced a fragment at the
/// pixel.
#[allow(clippy::too_many_arguments)]
fn draw_report(
    r: &Replayer,
    frame: usize,
    call: usize,
    record: usize,
    command_offset: u32,
    opcode: u8,
    n: usize,
    d: &DrawHistory,
) -> Option<DrawReport> {
    let p = d.pixels.first().filter(|p| !p.events.is_empty())?;
    let format = r
        .driver()
        .surface(d.render_target)
        .ok()
        .and_then(|s| s.desc.format.target());
    let argb = |v: Option<u32>| Some(format?.decode_argb(v?));
    Some(DrawReport {
        frame,
        call,
        record,
        command_offset,
        opcode: Opcode::from_raw(opcode)
            .map_or_else(|| format!("0x{opcode:02x}"), |o| o.name().to_string()),
        draw: n,
        render_target: r.recorded_surface(d.render_target),
        format: format.map_or_else(String::new, format_name),
        before: p.color_before,
        after: p.color_after,
        before_argb: argb(p.color_before),
        after_argb: argb(p.color_after),
        depth_before: p.depth_before,
        depth_after: p.depth_after,
        events: p.events.iter().map(EventReport::from_event).collect(),
        events_dropped: p.events_dropped,
        matches_target: p.matches_target,
    })
}

/// The DDK name of a render-target format, e.g. `D3DFMT_X8R8G8B8`.
fn format_name(f: Format) -> String {
    softhal_wire::names::Format::from_raw(f.d3dfmt())
        .map_or_else(|| format!("{f:?}"), |n| n.name().to_string())
}
