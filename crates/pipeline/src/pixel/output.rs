//! The output merger: what happens to a shaded fragment, for both pixel
//! programs (the fixed-function cascade of `crate::shade` and the colour
//! paths, and the pixel shaders of `crate::pixel::shader`).
//!
//! *Input*: one fragment — pixel (x, y), colour (BGRA, 0..=255, already
//! fogged: the fog blend is the step before this one, applied by the
//! caller with [`crate::fog::apply_fog`] for fixed function and ps_1_x–2_x;
//! ps_3_0 does its own fog and gets none), its depth and facing — and the
//! draw's [`DrawCtx`]. *Output*: the depth/stencil and colour bytes of that
//! pixel updated, and [`Stats`].
//!
//! *Order* (Direct3D 9): alpha test (ALPHAFUNC against ALPHAREF) → stencil
//! test → depth test → stencil operation (fail / z-fail / pass) and depth
//! write → alpha blend (SRCBLEND/DESTBLEND/BLENDOP, separate alpha) →
//! colour write mask (COLORWRITEENABLE) → write. The routine is
//! monomorphised over the enabled features (`<DEPTH, STENCIL, ATEST,
//! BLEND>`) and the recorder `R` of the pixel watch, so that a disabled
//! step costs nothing. The fused SIMD kernels of `crate::pixel` (colour,
//! colour + depth, blended colour, textured) and the output merger over 8
//! lanes (`crate::simd::merge`) compute the same steps for the cases they
//! cover and are tested bit-identical against this one.
//! [`store_quad`] is the whole merger of a draw with none of the four
//! features (and no pixel watch): the pixel shaders' quads are stored
//! through the write mask in one call, with the bytes and counts
//! [`fragment`] would give.

use super::{BlendCtx, DrawCtx, Stats, TileTarget};
use crate::format::{load_raw, store_raw, Format};
use crate::int::clamp_u8;
use crate::state::{Blend, BlendOp};
use crate::watch::{
    discarded, AlphaTestEvent, BlendEvent, DepthEvent, Outcome, Probe, Recorder, StencilEvent,
    StencilOpSlot,
};

#[inline(always)]
fn factor(f: Blend, ch: usize, s: &[i32; 4], d: &[i32; 4], k: &[i32; 4]) -> i32 {
    match f {
        Blend::Zero => 0,
        Blend::One => 255,
        Blend::SrcColor => s[ch],
        Blend::InvSrcColor => 255 - s[ch],
        Blend::SrcAlpha | Blend::BothSrcAlpha => s[3],
        Blend::InvSrcAlpha | Blend::BothInvSrcAlpha => 255 - s[3],
        Blend::DestAlpha => d[3],
        Blend::InvDestAlpha => 255 - d[3],
        Blend::DestColor => d[ch],
        Blend::InvDestColor => 255 - d[ch],
        Blend::SrcAlphaSat => {
            if ch == 3 {
                255
            } else {
                s[3].min(255 - d[3])
            }
        }
        Blend::BlendFactor => k[ch],
        Blend::InvBlendFactor => 255 - k[ch],
        // D3D9Ex's second source: refused before a draw (see `Blend`).
        Blend::SrcColor2 | Blend::InvSrcColor2 => 0,
    }
}

#[inline(always)]
fn blend_channel(op: BlendOp, s: i32, d: i32, sf: i32, df: i32) -> i32 {
    let div = |x: i32| ((x.max(0) + 127) / 255).min(255);
    match op {
        BlendOp::Add => div(s * sf + d * df),
        BlendOp::Subtract => div(s * sf - d * df),
        BlendOp::RevSubtract => div(d * df - s * sf),
        BlendOp::Min => s.min(d),
        BlendOp::Max => s.max(d),
    }
}

/// Blends source `s` over destination `d` (BGRA, 0..=255).
#[inline]
pub(crate) fn blend(b: &BlendCtx, s: [i32; 4], d: [i32; 4]) -> [i32; 4] {
    let mut out = [0; 4];
    for (ch, o) in out.iter_mut().enumerate() {
        let (sb, db, op) = if ch == 3 {
            (b.src_a, b.dst_a, b.op_a)
        } else {
            (b.src, b.dst, b.op)
        };
        let sf = factor(sb, ch, &s, &d, &b.factor);
        let df = factor(db, ch, &s, &d, &b.factor);
        *o = blend_channel(op, s[ch], d[ch], sf, df);
    }
    out
}

#[inline(always)]
fn argb_of(c: [i32; 4]) -> u32 {
    u32::from_le_bytes([
        clamp_u8(c[0]),
        clamp_u8(c[1]),
        clamp_u8(c[2]),
        clamp_u8(c[3]),
    ])
}

#[inline(always)]
fn channels_of(argb: u32) -> [i32; 4] {
    argb.to_le_bytes().map(i32::from)
}

/// Processes one fragment at (px, py) with shaded colour `color` (BGRA,
/// 0..=255) and depth `depth` (bias included, unclamped), telling `R`
/// what each stage did (`NoRecord`: nothing, compiled away).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn fragment<
    const DEPTH: bool,
    const STENCIL: bool,
    const ATEST: bool,
    const BLEND: bool,
    R: Recorder,
>(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    px: i32,
    py: i32,
    color: [i32; 4],
    depth: f32,
    ccw: bool,
    stats: &mut Stats,
) {
    if R::ON && d.probe.is_some_and(Probe::scissored) {
        discarded::<R>(d.probe, Outcome::Scissor);
        return;
    }
    let mut rec = R::start(argb_of(color));
    if ATEST {
        let passed = d.alpha_func.test(color[3], d.alpha_ref);
        if R::ON {
            rec.alpha(AlphaTestEvent {
                func: d.alpha_func,
                reference: clamp_u8(d.alpha_ref),
                value: clamp_u8(color[3]),
                passed,
            });
        }
        if !passed {
            rec.finish(d.probe, Outcome::AlphaTest, None);
            return;
        }
    }
    if DEPTH || STENCIL {
        let fmt = d.depth_format;
        let bpp = d.depth_bpp;
        let Some(cell) = t.depth_span(py, px, 1, bpp) else {
            return;
        };
        let old = load_raw(cell, bpp);
        let mut raw = old;
        let mut s = fmt.unpack_stencil(old);
        let face = if ccw {
            &d.stencil_ccw
        } else {
            &d.stencil_front
        };
        let smax = if d.stencil_bits >= 32 {
            u32::MAX
        } else {
            (1u32 << d.stencil_bits) - 1
        };
        let wm = d.stencil_write_mask & smax;
        let apply = |s: u32, op: crate::state::StencilOp| -> u32 {
            (s & !wm) | (op.apply(s, d.stencil_ref, d.stencil_bits) & wm)
        };
        let stencil_event = |stored: u32, passed: bool, slot: StencilOpSlot, result: u32| {
            let op = match slot {
                StencilOpSlot::Fail => face.fail,
                StencilOpSlot::ZFail => face.z_fail,
                StencilOpSlot::Pass => face.pass,
            };
            StencilEvent {
                func: face.func,
                reference: d.stencil_ref,
                mask: d.stencil_mask,
                write_mask: d.stencil_write_mask,
                stored,
                passed,
                op,
                slot,
                result,
                ccw,
            }
        };
        let s_before = s;
        if STENCIL {
            let m = d.stencil_mask;
            if !face.func.test(d.stencil_ref & smax & m, s & m) {
                s = apply(s, face.fail);
                if R::ON {
                    rec.stencil(stencil_event(s_before, false, StencilOpSlot::Fail, s));
                }
                raw = fmt.pack_depth_stencil(raw, fmt.unpack_depth(raw), s);
                if raw != old {
                    store_raw(cell, bpp, raw);
                }
                rec.finish(d.probe, Outcome::Stencil, None);
                return;
            }
        }
        if DEPTH {
            let zq = fmt.quantize_depth(depth);
            let stored = fmt.unpack_depth(old);
            let pass = if fmt == Format::D32FLockable {
                d.z_func.test(f32::from_bits(zq), f32::from_bits(stored))
            } else {
                d.z_func.test(zq, stored)
            };
            if R::ON {
                rec.depth(DepthEvent {
                    func: d.z_func,
                    incoming: zq,
                    stored,
                    incoming_value: fmt.depth_to_float(zq),
                    stored_value: fmt.depth_to_float(stored),
                    passed: pass,
                    written: pass && d.z_write,
                });
            }
            if !pass {
                if STENCIL {
                    s = apply(s, face.z_fail);
                    if R::ON {
                        rec.stencil(stencil_event(s_before, true, StencilOpSlot::ZFail, s));
                    }
                    raw = fmt.pack_depth_stencil(raw, stored, s);
                    if raw != old {
                        store_raw(cell, bpp, raw);
                    }
                }
                rec.finish(d.probe, Outcome::Depth, None);
                return;
            }
            if d.z_write {
                raw = fmt.pack_depth_stencil(raw, zq, fmt.unpack_stencil(raw));
            }
        }
        if STENCIL {
            s = apply(s, face.pass);
            if R::ON {
                rec.stencil(stencil_event(s_before, true, StencilOpSlot::Pass, s));
            }
            raw = fmt.pack_depth_stencil(raw, fmt.unpack_depth(raw), s);
        }
        if raw != old {
            store_raw(cell, bpp, raw);
        }
    }
    stats.passed += 1;
    let cf = d.color_format;
    let bpp = d.color_bpp;
    let Some(cell) = t.color_span(py, px, 1, bpp) else {
        return;
    };
    let old = load_raw(cell, bpp);
    let src = if BLEND {
        let dst = channels_of(cf.decode_argb(old));
        let out = blend(&d.blend, color, dst);
        if R::ON {
            rec.blend(|| blend_event(&d.blend, color, dst, out));
        }
        out
    } else {
        color
    };
    let enc = cf.encode_argb(argb_of(src));
    let new = (old & !d.write_mask) | (enc & d.write_mask);
    store_raw(cell, bpp, new);
    stats.written += 1;
    rec.finish(d.probe, Outcome::Written, Some(new));
}

/// The output merger of a draw whose fragments meet no test and no blend
/// (no depth, stencil or alpha test, no blending, no pixel watch,
/// [`DrawCtx::plain_store`]): the colours `bgra` (BGRA, 0..=255) of the
/// lanes in `lanes` of the 2×2 quad at (x, y) (lane = x + 2y) stored
/// through the colour write mask, each counted as passed and written —
/// the bytes and counts [`fragment`] gives each of them, without its
/// per-fragment dispatch.
pub(crate) fn store_quad(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    x: i32,
    y: i32,
    bgra: &[[i32; 4]; 4],
    lanes: u8,
    stats: &mut Stats,
) {
    let (cf, bpp, wm) = (d.color_format, d.color_bpp, d.write_mask);
    // A8R8G8B8 written whole: its encoding is the colour itself.
    let whole_argb = cf == Format::A8R8G8B8 && bpp == 4 && wm == u32::MAX;
    for row in 0..2usize {
        let pair = (lanes >> (2 * row)) & 3;
        if pair == 0 {
            continue;
        }
        // Both pixels of the row when both are covered (then both are
        // inside the target), else the one.
        let (x0, n) = match pair {
            1 => (x, 1),
            2 => (x + 1, 1),
            _ => (x, 2),
        };
        stats.passed += n as u64;
        let Some(cells) = t.color_span(y + row as i32, x0, n, bpp) else {
            continue;
        };
        let first = 2 * row + usize::from(pair == 2);
        for (cell, c) in cells.chunks_exact_mut(bpp).zip(&bgra[first..]) {
            if whole_argb {
                store_raw(cell, 4, argb_of(*c));
                continue;
            }
            let old = load_raw(cell, bpp);
            let enc = cf.encode_argb(argb_of(*c));
            store_raw(cell, bpp, (old & !wm) | (enc & wm));
        }
        stats.written += n as u64;
    }
}

/// Render target 1–3 as a pixel shader's `oC1`–`oC3` writes it: its own
/// format and write mask (D3DRS_COLORWRITEENABLE1..3), the draw's blend.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ColorTarget {
    format: crate::format::Format,
    bpp: usize,
    write_mask: u32,
}

impl ColorTarget {
    /// A target in `format` written with the channels of
    /// `color_write_enable` (D3DCOLORWRITEENABLE bits).
    pub(crate) fn new(format: crate::format::Format, color_write_enable: u32) -> Self {
        let bpp = format.bytes_per_pixel() as usize;
        let write_mask = if color_write_enable & 0xF == 0xF {
            // Whole pixel, as target 0: X bits are written as 0 too.
            u32::MAX >> (32 - 8 * bpp as u32)
        } else {
            format.write_mask(color_write_enable)
        };
        ColorTarget {
            format,
            bpp,
            write_mask,
        }
    }
}

/// Writes the colour `color` (BGRA, 0..=255; not fogged) of a fragment
/// that passed the alpha, stencil and depth tests of target 0 into pixel
/// (px, py) of render target `i` + 1: blended over it with the draw's
/// blend state when blending is on (D3DPMISCCAPS_MRTPOSTPIXELSHADERBLENDING),
/// then its write mask. Nothing is recorded for the pixel watch (it
/// watches target 0).
#[inline]
pub(crate) fn write_target(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    i: usize,
    ct: &ColorTarget,
    px: i32,
    py: i32,
    color: [i32; 4],
) {
    let Some(cell) = t.extra_pixel(i, py, px, ct.bpp) else {
        return;
    };
    let old = load_raw(cell, ct.bpp);
    let src = if d.features[3] {
        blend(&d.blend, color, channels_of(ct.format.decode_argb(old)))
    } else {
        color
    };
    let enc = ct.format.encode_argb(argb_of(src));
    store_raw(cell, ct.bpp, (old & !ct.write_mask) | (enc & ct.write_mask));
}

/// The record of one blend (the replay of a watched pixel only).
fn blend_event(b: &BlendCtx, s: [i32; 4], d: [i32; 4], out: [i32; 4]) -> BlendEvent {
    let weights = |rgb: Blend, a: Blend| {
        let mut w = [0i32; 4];
        for (ch, o) in w.iter_mut().enumerate() {
            let f = if ch == 3 { a } else { rgb };
            *o = factor(f, ch, &s, &d, &b.factor);
        }
        argb_of(w)
    };
    BlendEvent {
        src: argb_of(s),
        dst: argb_of(d),
        src_factor: b.src,
        dst_factor: b.dst,
        op: b.op,
        src_factor_alpha: b.src_a,
        dst_factor_alpha: b.dst_a,
        op_alpha: b.op_a,
        src_weight: weights(b.src, b.src_a),
        dst_weight: weights(b.dst, b.dst_a),
        result: argb_of(out),
    }
}
