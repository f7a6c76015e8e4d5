//! `softhal pixel-history`: every draw of a capture that covered one pixel.
//!
//! In: a capture file (binary or text), `--pixel X,Y`, optionally
//! `--frame N` (or a range `A..B`), `--threads`. Out: for each
//! DrawPrimitives2 command whose draws produced a fragment at the pixel —
//! frame, call, record, the command's DDK opcode and byte offset, the
//! render target and its format, the pixel before and after — one line
//! per fragment and one per stage it reached, in DDK names (compare
//! functions, stencil operations and the render state that chose them,
//! blend factors and operations); or, with `--json`, `{"ok": true, ...}`
//! holding `softhal_capture::PixelHistoryReport`. Exit codes: 0 (an empty
//! history included), 1 invalid or cut capture, 2 usage or I/O error.
//! The replay is `softhal_capture::pixel_history` (`docs/pixel-history.md`).

use crate::capture_verbs::{load, span_arg, Span};
use serde_json::{json, Value};
use softhal_capture::history::{DrawReport, EventReport};
use softhal_capture::pixel_history;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `pixel-history`.
#[derive(clap::Args, Debug)]
pub struct PixelHistoryArgs {
    /// The capture (binary or text).
    pub capture: PathBuf,
    /// The pixel, `X,Y` (column, row of the render target).
    #[arg(long, value_name = "X,Y", value_parser = pixel_arg)]
    pub pixel: (u32, u32),
    /// Only the draws into frame N (1 + the frames presented before the
    /// draw), or frames A..B (`3`, `2..5`, `2..`, `..4`).
    #[arg(long, value_name = "N", value_parser = span_arg)]
    pub frame: Option<Span>,
    /// Rasterizer threads (0 or 1: the calling thread).
    #[arg(long, value_name = "N", default_value_t = crate::DEFAULT_THREADS, value_parser = crate::threads_arg)]
    pub threads: usize,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

/// Parses `X,Y`.
fn pixel_arg(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("{s:?}: expected X,Y (two whole numbers, e.g. 20,30)");
    let (x, y) = s.split_once(',').ok_or_else(bad)?;
    Ok((
        x.trim().parse().map_err(|_| bad())?,
        y.trim().parse().map_err(|_| bad())?,
    ))
}

/// `softhal pixel-history`.
pub fn run(a: &PixelHistoryArgs) -> ExitCode {
    let c = match load(&a.capture, a.json) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let frames = a.frame.map(|s| s.first..=s.last);
    let report = match pixel_history(&c, a.pixel, frames, a.threads) {
        Ok(r) => r,
        Err(e) => {
            return crate::fail(a.json, 2, "driver", &e.to_string(), Value::Null);
        }
    };
    if a.json {
        let mut v = serde_json::to_value(&report).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("ok".into(), json!(true));
        }
        println!("{v}");
        return ExitCode::SUCCESS;
    }
    let (x, y) = a.pixel;
    println!(
        "pixel ({x}, {y}) of {}: {} draw(s) covered it",
        a.capture.display(),
        report.draws.len()
    );
    for d in &report.draws {
        print!("{}", draw_text(d));
    }
    ExitCode::SUCCESS
}

fn hex(v: Option<u32>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("0x{v:08x}"))
}

fn verdict(passed: bool) -> &'static str {
    if passed {
        "pass"
    } else {
        "FAIL"
    }
}

/// One draw's history as text lines (what `softhal pixel-history` prints
/// and `softhal inspect` shows in its pixel-history rows).
pub(crate) fn draw_text(d: &DrawReport) -> String {
    let mut out = String::new();
    out.push('\n');
    let _ = writeln!(
        out,
        "frame {}, call {} (record {}): {} at offset {}{}, render target 0x{:x} ({})",
        d.frame,
        d.call,
        d.record,
        d.opcode,
        d.command_offset,
        if d.draw > 0 {
            format!(" (draw {})", d.draw)
        } else {
            String::new()
        },
        d.render_target,
        d.format
    );
    let _ = writeln!(
        out,
        "  colour {} -> {} (D3DCOLOR {} -> {})",
        hex(d.before),
        hex(d.after),
        hex(d.before_argb),
        hex(d.after_argb)
    );
    if d.depth_before.is_some() {
        let _ = writeln!(
            out,
            "  depth/stencil {} -> {}",
            hex(d.depth_before),
            hex(d.depth_after)
        );
    }
    for e in &d.events {
        event_text(&mut out, e);
    }
    if d.events_dropped > 0 {
        let _ = writeln!(out, "  ... {} more fragment(s) not kept", d.events_dropped);
    }
    if !d.matches_target {
        let _ = writeln!(out,"  note: the fused kernel this draw took rounds differently from the recorded generic loop (docs/pixel-history.md)");
    }
    out
}

fn event_text(out: &mut String, e: &EventReport) {
    let _ = writeln!(out, "  primitive {}: {}", e.primitive, e.outcome);
    if let Some(c) = e.shaded {
        let _ = writeln!(out, "    shaded      0x{c:08x}");
    }
    if let Some(a) = &e.alpha_test {
        let _ = writeln!(
            out,
            "    alpha test  {}: alpha 0x{:02x} vs D3DRS_ALPHAREF 0x{:02x}: {}",
            a.func,
            a.value,
            a.reference,
            verdict(a.passed)
        );
    }
    if let Some(s) = &e.stencil {
        let _ = writeln!(out,
            "    stencil     {}: (ref 0x{:x} & mask 0x{:x}) vs (stored 0x{:x} & mask): {}; {} = {}: 0x{:x} -> 0x{:x} (write mask 0x{:x})",
            s.func,
            s.reference,
            s.mask,
            s.stored,
            verdict(s.passed),
            s.state,
            s.op,
            s.stored,
            s.result,
            s.write_mask
        );
    }
    if let Some(z) = &e.depth {
        let _ = writeln!(
            out,
            "    depth       {}: incoming {:.6} (0x{:x}) vs stored {:.6} (0x{:x}): {}{}",
            z.func,
            z.incoming_value,
            z.incoming,
            z.stored_value,
            z.stored,
            verdict(z.passed),
            if z.written { ", written" } else { "" }
        );
    }
    if let Some(b) = &e.blend {
        let _ = writeln!(out,
            "    blend       src 0x{:08x} x {} (0x{:08x}) {} dst 0x{:08x} x {} (0x{:08x}) = 0x{:08x}",
            b.src,
            b.src_blend,
            b.src_weight,
            b.blend_op,
            b.dst,
            b.dest_blend,
            b.dst_weight,
            b.result
        );
        if (b.src_blend_alpha, b.dest_blend_alpha, b.blend_op_alpha)
            != (b.src_blend, b.dest_blend, b.blend_op)
        {
            let _ = writeln!(
                out,
                "    blend alpha {} / {} / {}",
                b.src_blend_alpha, b.dest_blend_alpha, b.blend_op_alpha
            );
        }
    }
    if let Some(w) = e.written {
        let _ = writeln!(out, "    written     0x{w:08x}");
    }
}
