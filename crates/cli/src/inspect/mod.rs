//! `softhal inspect`: a static HTML report of what the driver did with a
//! captured frame (an event browser in the manner of RenderDoc's, read
//! from `file://`, no server).
//!
//! In: a capture (either form, untrusted) and the selection options
//! (`--frames`, shared with `render`; `--max-draws`; `--pixel X,Y`). Out:
//! `DIR/index.html` (summary, refused calls, one row per frame, the pixel
//! history of each `--pixel`), `DIR/frame-0001.html`… (the timeline of one
//! frame: every driver call with its wall time and answer; for
//! DrawPrimitives2 every command in its disassembler text; for every draw
//! the render target after it, the depth buffer as grey, the textures of
//! the stages it uses, its counts, the state changes since the previous
//! draw and the state in force) and the thumbnails (PNG) beside them.
//!
//! How draws are seen one at a time: a DrawPrimitives2 call whose
//! commands hold several draws (or CLEARs) is replayed as consecutive
//! DrawPrimitives2 calls over the same command surface, each ending just
//! after one draw, with the same vertices, flags and `lpdwRStates`; the
//! device's state persists across calls, so the pixels are those of the
//! whole call (tested: the final frames' checksums equal `render`'s). After
//! a refused piece the rest of the call is not executed, as the DDI's
//! prefix semantics say.
//!
//! Guarantees: every string that reaches HTML goes through
//! [`html::escape`] (capture contents are untrusted); the pages load no
//! script, style, font or image from anywhere but `DIR` (a
//! Content-Security-Policy forbids the rest); the output is bounded:
//! thumbnails at most [`THUMB_MAX`] pixels on a side, at most
//! `--max-draws` draws inspected (default [`DEFAULT_MAX_DRAWS`]) and at
//! most `--max-output-mb` MiB written (default [`DEFAULT_MAX_OUTPUT_MB`]);
//! what is left out is said in the report. Clicked pixels get an
//! approximate history ([`approximate_pixel_history`]); `--pixel X,Y`
//! gets the full per-stage one ([`full_pixel_history`], the pipeline's
//! pixel watch).

mod html;
mod model;

use crate::capture_verbs::Span;
use serde_json::Value;
use std::path::PathBuf;
use std::process::ExitCode;

/// Longest side of a thumbnail, in pixels (larger images are downscaled).
pub const THUMB_MAX: u32 = 192;
/// Draws inspected unless `--max-draws` says otherwise.
pub const DEFAULT_MAX_DRAWS: usize = 2000;
/// MiB of report written unless `--max-output-mb` says otherwise.
pub const DEFAULT_MAX_OUTPUT_MB: u64 = 256;
/// Changed-pixel spans kept per draw for the click-to-history of the
/// pages (a draw that changes more is marked as such).
pub const MAX_SPANS_PER_DRAW: usize = 1 << 16;
/// Changed-pixel spans kept over the whole report (12 bytes each in
/// memory, about 15 in the pages); later draws keep none and say so.
pub const MAX_SPANS_TOTAL: usize = 1 << 20;

/// Arguments of `inspect`.
#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// The capture (binary or text).
    pub capture: PathBuf,
    /// Directory for index.html, frame-NNNN.html and the thumbnails
    /// (created if missing).
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// Inspect only the presented frames A..B (numbered from 1, inclusive:
    /// `3`, `2..5`, `2..`, `..4`); the replay still runs every record.
    #[arg(long, value_name = "A..B", value_parser = crate::capture_verbs::span_arg)]
    pub frames: Option<Span>,
    /// Inspect at most N draws (later ones are replayed, not shown).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_DRAWS)]
    pub max_draws: usize,
    /// Stop writing thumbnails and pages once the report reaches this many
    /// MiB (the index still says what was left out).
    #[arg(long, value_name = "MIB", default_value_t = DEFAULT_MAX_OUTPUT_MB)]
    pub max_output_mb: u64,
    /// Add a "pixel history" section for pixel X,Y of the render targets
    /// (repeatable).
    #[arg(long, value_name = "X,Y", value_parser = pixel_arg)]
    pub pixel: Vec<(u32, u32)>,
    /// Rasterizer threads (0 or 1: the calling thread).
    #[arg(long, value_name = "N", default_value_t = crate::DEFAULT_THREADS, value_parser = crate::threads_arg)]
    pub threads: usize,
    /// Longest time one GPU submission may run, in milliseconds (0: no
    /// limit).
    #[arg(long, value_name = "MS", default_value_t = softhal_submit::limits::DEFAULT_GPU_TIMEOUT_MS)]
    pub timeout: u64,
    /// Print a JSON summary on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Parses `X,Y` (two non-negative integers).
fn pixel_arg(s: &str) -> Result<(u32, u32), String> {
    let (x, y) = s
        .split_once(',')
        .ok_or_else(|| format!("{s:?}: expected X,Y"))?;
    let n = |t: &str| {
        t.trim()
            .parse::<u32>()
            .map_err(|_| format!("{t:?} is not a pixel coordinate"))
    };
    Ok((n(x)?, n(y)?))
}

/// `softhal inspect`.
pub fn run(a: &InspectArgs) -> ExitCode {
    let loaded = match crate::capture_verbs::load_prefix(&a.capture, a.json) {
        Ok(l) => l,
        Err(code) => return code,
    };
    if let Err(e) = std::fs::create_dir_all(&a.output) {
        let m = format!("cannot create {}: {e}", a.output.display());
        return crate::fail(a.json, 2, "io", &m, Value::Null);
    }
    let opts = model::Options {
        frames: a.frames,
        max_draws: a.max_draws,
        max_bytes: a.max_output_mb.saturating_mul(1 << 20),
        pixels: a.pixel.clone(),
        threads: a.threads,
        timeout: (a.timeout != 0).then(|| std::time::Duration::from_millis(a.timeout)),
    };
    let mut out = model::Output::new(&a.output, opts.max_bytes);
    let report = match model::inspect(&loaded.capture, &opts, &mut out) {
        Ok(r) => r,
        Err(e) => {
            let m = format!("cannot start the driver: {e}");
            return crate::fail(a.json, 2, "driver", &m, Value::Null);
        }
    };
    let cut = loaded.cut.as_ref().map(|e| e.to_string());
    let full: Vec<Option<Vec<String>>> = a
        .pixel
        .iter()
        .map(|&(x, y)| model::full_pixel_history(&loaded.capture, x, y, a.threads))
        .collect();
    let written = html::write_report(&report, &a.capture, cut.as_deref(), &opts, &full, &mut out);
    if let Some(e) = out.error.as_ref().or(written.err().as_ref()) {
        return crate::fail(a.json, 2, "io", &format!("cannot write {e}"), Value::Null);
    }
    let index = a.output.join("index.html");
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "ok": true,
                "index": index.display().to_string(),
                "frames": report.frames.len(),
                "draws": report.draw_count(),
                "refusals": report.refusals().count(),
                "bytes": out.bytes,
                "truncated": report.left_out.any() || out.full,
            })
        );
    } else {
        println!(
            "{}: {} frame(s), {} draw(s), {} refused call(s); {} bytes",
            index.display(),
            report.frames.len(),
            report.draw_count(),
            report.refusals().count(),
            out.bytes
        );
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixel_coordinates_parse() {
        assert_eq!(pixel_arg("10,20"), Ok((10, 20)));
        assert_eq!(pixel_arg(" 0 , 7"), Ok((0, 7)));
        assert!(pixel_arg("10").is_err());
        assert!(pixel_arg("-1,2").is_err());
        assert!(pixel_arg("a,b").is_err());
    }
}
