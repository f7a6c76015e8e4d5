//! The inspector's pages: `index.html` and one `frame-NNNN.html` per
//! inspected frame, built with plain string writes.
//!
//! In: a [`Report`]. Out: HTML files through the [`Output`] (so they count
//! against the byte budget). Every piece of text from the capture, the
//! driver or the file system goes through [`escape`]; the only script is
//! the fixed [`PIXEL_SCRIPT`], and the data it reads is numbers only
//! (written by [`spans_json`]), so a capture cannot put markup or script
//! into a page. Each page carries a Content-Security-Policy that allows
//! nothing from the network.

use super::model::Options;
use super::model::{approximate_pixel_history, CallInfo, DrawInfo, Fate, Output, Report};
use softhal_wire::names::codes;
use std::fmt::Write as _;
use std::path::Path;

/// Escapes text for HTML element content and attribute values (`&`, `<`,
/// `>`, `"`, `'`).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#111;background:#fafafa}\
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.5em}table{border-collapse:collapse}\
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}\
code,pre{font:12px ui-monospace,monospace;overflow-wrap:anywhere}.call{border:1px solid #bbb;margin:.25em 0;padding:.1em .6em;background:#fff}\
.call.refused,.cmd.refused,tr.refused{background:#fde2e2}.error-marker{color:#fff;background:#c00;padding:0 .4em;font-weight:bold}\
.cmd.not-reached{color:#999;text-decoration:line-through}.draw{border-left:4px solid #36c;margin:.4em 0;padding:.2em .6em;background:#f2f6ff}\
img.thumb{image-rendering:pixelated;border:1px solid #888;min-width:96px;cursor:crosshair;vertical-align:top}\
.thumbs span{display:inline-block;margin-right:.8em;font-size:12px}.note{color:#555;font-size:12px}\
#pixel-panel{position:sticky;top:0;background:#ffe;border:1px solid #cc9;padding:.3em .6em;margin:.5em 0}\
.changes li,.state li{font:12px ui-monospace,monospace}";

/// The click-to-history script of the frame pages: a click on a render
/// target thumbnail (or `#pixel=X,Y` in the address) lists the draws of
/// the page whose target changed at that pixel, from the numbers in the
/// `spans` JSON block. It builds DOM nodes with `textContent` only.
const PIXEL_SCRIPT: &str = r#"(function(){
var data=JSON.parse(document.getElementById('spans').textContent);
function hits(d,x,y){for(var i=0;i<d.spans.length;i++){var s=d.spans[i];if(s[0]===y&&x>=s[1]&&x<s[2])return true;}return false;}
function show(x,y,surface){
 document.getElementById('pixel-xy').textContent=x+','+y+(surface!==null?' of surface 0x'+surface.toString(16):'');
 var ul=document.getElementById('pixel-draws');ul.textContent='';var n=0;
 data.draws.forEach(function(d){if(surface!==null&&d.surface!==surface)return;if(!hits(d,x,y))return;n++;
  var li=document.createElement('li');li.className='pixel-row';
  var a=document.createElement('a');a.href='#draw-'+d.n;a.textContent='draw '+d.n+' ('+d.op+', record '+d.record+')'+(d.cut?' [change list cut]':'');
  li.appendChild(a);ul.appendChild(li);});
 document.getElementById('pixel-count').textContent=n;
 document.getElementById('pixel-cmd').textContent=data.command+' --pixel '+x+','+y;
 document.getElementById('pixel-panel').hidden=false;}
document.querySelectorAll('img.rt-thumb').forEach(function(img){img.addEventListener('click',function(e){
 var w=+img.dataset.w,h=+img.dataset.h;var x=Math.min(w-1,Math.floor(e.offsetX*w/img.clientWidth));var y=Math.min(h-1,Math.floor(e.offsetY*h/img.clientHeight));
 show(x,y,+img.dataset.surface);});});
var m=/pixel=(\d+),(\d+)/.exec(location.hash);if(m)show(+m[1],+m[2],null);
})();"#;

fn page_head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n\
<title>{}</title><style>{STYLE}</style></head><body>\n",
        escape(title)
    )
}

fn frame_file(n: usize) -> String {
    format!("frame-{n:04}.html")
}

fn micros(d: std::time::Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

fn rgba_hex(p: [u8; 4]) -> String {
    format!("#{:02x}{:02x}{:02x}{:02x}", p[0], p[1], p[2], p[3])
}

/// The command line that adds pixel history for this capture and folder.
fn inspect_command(capture: &Path, dir: &Path) -> String {
    format!(
        "softhal inspect {} -o {}",
        shell_quote(&capture.display().to_string()),
        shell_quote(&dir.display().to_string())
    )
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:=".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn refusal_cells(r: &softhal_capture::Refusal) -> String {
    format!(
        "<span class=\"error-marker\">REFUSED</span> ddrval <code>{}</code>, dwErrorOffset <code>{}</code>{}{}",
        escape(&codes::format_hresult(r.ddrval)),
        r.error_offset,
        r.reason
            .as_ref()
            .map_or(String::new(), |w| format!(": {}", escape(w))),
        if r.recorded { " (as the capture recorded)" } else { " (the capture did not record a refusal)" }
    )
}

/// Writes `index.html` and every frame page.
pub fn write_report(
    r: &Report,
    capture: &Path,
    cut: Option<&str>,
    opts: &Options,
    full: &[Option<Vec<String>>],
    out: &mut Output,
) -> Result<(), String> {
    let name = capture.display().to_string();
    let command = inspect_command(capture, &out.dir);
    let mut h = page_head(&format!("softhal inspect: {name}"));
    let _ = writeln!(
        h,
        "<h1>softhal inspect: <code>{}</code></h1>\n<p>{} record(s), {} frame(s) inspected, <span id=\"draw-total\">{}</span> draw(s), {} refused call(s){}.</p>",
        escape(&name),
        r.records,
        r.frames.len(),
        r.draw_count(),
        r.refusals().count(),
        if r.hangs > 0 {
            format!(", {} GPU submission(s) stopped by the timeout", r.hangs)
        } else {
            String::new()
        }
    );
    if let Some(c) = cut {
        let _ = writeln!(
            h,
            "<p class=\"refused\"><span class=\"error-marker\">CUT</span> {}</p>",
            escape(c)
        );
    }
    let _ = writeln!(
        h,
        "<p class=\"note\">Bounds: at most {} draw(s) inspected (<code>--max-draws</code>), at most {} MiB written (<code>--max-output-mb</code>), thumbnails at most {} pixels on a side. Times are wall time of the replay (GPU work included).</p>",
        opts.max_draws,
        opts.max_bytes >> 20,
        super::THUMB_MAX
    );
    if r.left_out.draws > 0 || out.full {
        let _ = writeln!(
            h,
            "<p class=\"refused\" id=\"left-out\">Left out: {} draw(s) past the limits{}.</p>",
            r.left_out.draws,
            if out.full {
                "; the byte budget was reached, later thumbnails are missing"
            } else {
                ""
            }
        );
    }
    if r.left_out.calls_outside_frames > 0 {
        let _ = writeln!(
            h,
            "<p class=\"note\">{} call(s) outside <code>--frames</code> were replayed, not shown.</p>",
            r.left_out.calls_outside_frames
        );
    }
    h.push_str("<h2>Refused calls</h2>\n");
    let refusals: Vec<_> = r.refusals().collect();
    if refusals.is_empty() {
        h.push_str("<p>None.</p>\n");
    } else {
        h.push_str("<table><tr><th>frame</th><th>record</th><th>call</th><th>answer</th></tr>\n");
        for (f, c, rf) in refusals {
            let _ = writeln!(
                h,
                "<tr class=\"refused\"><td><a href=\"{}#r{}\">{f}</a></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                frame_file(f),
                c.record,
                c.record,
                escape(c.name),
                refusal_cells(rf)
            );
        }
        h.push_str("</table>\n");
    }
    h.push_str("<h2>Frames</h2>\n<table><tr><th>frame</th><th>calls</th><th>draws</th><th>time</th><th>presented</th></tr>\n");
    for f in &r.frames {
        let draws: usize = f.calls.iter().map(|c| c.draws.len()).sum();
        let time: std::time::Duration = f.calls.iter().map(|c| c.time).sum();
        let img = f
            .presented_png
            .as_ref()
            .map_or(String::from("(not presented)"), |p| {
                format!(
                    "<img class=\"thumb\" src=\"{}\" alt=\"frame {}\">",
                    escape(p),
                    f.number
                )
            });
        let bad = f.calls.iter().any(|c| c.refusal.is_some());
        let _ = writeln!(
            h,
            "<tr class=\"frame-row{}\"><td><a href=\"{}\">frame {}</a></td><td>{}</td><td>{draws}</td><td>{}</td><td>{img}</td></tr>",
            if bad { " refused" } else { "" },
            frame_file(f.number),
            f.number,
            f.calls.len(),
            micros(time)
        );
    }
    h.push_str("</table>\n");
    h.push_str("<h2 id=\"pixel-history\">Pixel history</h2>\n");
    h.push_str("<p class=\"note\">Approximation: a draw is listed as having written a pixel when the pixel differs in its render target between just before and just after the draw (a draw that writes the value already there is not seen). Click a render-target thumbnail on a frame page for the same list there.</p>\n");
    if opts.pixels.is_empty() {
        let _ = writeln!(
            h,
            "<p>Add <code>--pixel X,Y</code>: <code>{}</code></p>",
            escape(&format!("{command} --pixel 0,0"))
        );
    }
    for (i, &(x, y)) in opts.pixels.iter().enumerate() {
        let _ = writeln!(
            h,
            "<h3>Pixel {x},{y}</h3>\n<p>Full command: <code>{}</code></p>",
            escape(&format!("{command} --pixel {x},{y}"))
        );
        // The full per-stage history (the pipeline's pixel watch)
        // replaces the approximation when its replay ran.
        if let Some(Some(stages)) = full.get(i) {
            h.push_str("<table class=\"pixel-history full\">\n");
            for row in stages {
                let _ = writeln!(
                    h,
                    "<tr class=\"pixel-stage-row\"><td><code>{}</code></td></tr>",
                    escape(row)
                );
            }
            h.push_str("</table>\n");
            continue;
        }
        let rows = approximate_pixel_history(r, x, y);
        let _ = writeln!(
            h,
            "<table class=\"pixel-history\" data-x=\"{x}\" data-y=\"{y}\"><tr><th>draw</th><th>frame</th><th>record</th><th>command</th><th>surface</th><th>before</th><th>after</th></tr>"
        );
        for row in &rows {
            let _ = writeln!(
                h,
                "<tr class=\"pixel-row\"><td><a href=\"{}#draw-{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{:#x}</td><td><code>{}</code></td><td><code>{}</code></td></tr>",
                frame_file(row.frame),
                row.draw,
                row.draw,
                row.frame,
                row.record,
                escape(row.opcode),
                row.surface,
                rgba_hex(row.before),
                rgba_hex(row.after)
            );
        }
        h.push_str("</table>\n");
        if rows.is_empty() {
            h.push_str("<p>No inspected draw changed this pixel.</p>\n");
        }
    }
    h.push_str("</body></html>\n");
    out.write("index.html", h.as_bytes());
    for (i, f) in r.frames.iter().enumerate() {
        let prev = i
            .checked_sub(1)
            .and_then(|p| r.frames.get(p))
            .map(|p| p.number);
        let next = r.frames.get(i + 1).map(|p| p.number);
        let page = frame_page(r, f, prev, next, &command, &name);
        out.write(&frame_file(f.number), page.as_bytes());
    }
    match &out.error {
        Some(e) => Err(e.clone()),
        None => Ok(()),
    }
}

/// The JSON the pixel script reads: numbers and fixed strings only.
fn spans_json(r: &Report, calls: &[CallInfo], command: &str) -> String {
    let draws: Vec<serde_json::Value> = calls
        .iter()
        .flat_map(|c| c.draws.iter())
        .filter_map(|&d| r.draws.get(d))
        .map(|d| {
            let spans: Vec<[u32; 3]> = d.spans.iter().map(|&(y, a, b)| [y, a, b]).collect();
            serde_json::json!({"n": d.number, "record": d.record, "op": d.opcode, "surface": d.surface, "cut": d.spans_cut, "spans": spans})
        })
        .collect();
    let v = serde_json::json!({ "command": command, "draws": draws });
    // Inside <script>: no "<" may appear (JSON allows \u003c).
    v.to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

fn frame_page(
    r: &Report,
    f: &super::model::FrameInfo,
    prev: Option<usize>,
    next: Option<usize>,
    command: &str,
    name: &str,
) -> String {
    let mut h = page_head(&format!("frame {} of {name}", f.number));
    let nav = |n: Option<usize>, label: &str| {
        n.map_or(String::new(), |n| {
            format!(" · <a href=\"{}\">{label}</a>", frame_file(n))
        })
    };
    let _ = writeln!(
        h,
        "<p><a href=\"index.html\">index</a>{}{}</p>\n<h1>Frame {} of <code>{}</code></h1>",
        nav(prev, "previous frame"),
        nav(next, "next frame"),
        f.number,
        escape(name)
    );
    h.push_str("<div id=\"pixel-panel\" hidden>Pixel <b id=\"pixel-xy\"></b>: <span id=\"pixel-count\"></span> draw(s) of this frame changed it (approximation: the pixel differs between just before and just after the draw). <ul id=\"pixel-draws\"></ul>Full history: <code id=\"pixel-cmd\"></code></div>\n");
    h.push_str("<p class=\"note\">Click a render-target thumbnail to list the draws of this frame that changed that pixel.</p>\n");
    // Runs of minor calls (surfaces, locks, contexts, ...) fold into one
    // line each, so that the draws stay near the top of the page.
    let minor = |c: &CallInfo| {
        c.refusal.is_none() && !matches!(c.name, "dp2" | "clear2" | "present" | "flip" | "submit")
    };
    let mut i = 0;
    while let Some(c) = f.calls.get(i) {
        let run = f.calls[i..].iter().take_while(|c| minor(c)).count();
        if run < 3 {
            call_html(&mut h, r, c);
            i += 1;
            continue;
        }
        let calls = &f.calls[i..i + run];
        let mut kinds: Vec<(&str, usize)> = Vec::new();
        for c in calls {
            match kinds.iter_mut().find(|k| k.0 == c.name) {
                Some(k) => k.1 += 1,
                None => kinds.push((c.name, 1)),
            }
        }
        let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} ×{n}")).collect();
        let time: std::time::Duration = calls.iter().map(|c| c.time).sum();
        let _ = writeln!(
            h,
            "<details class=\"minor\"><summary>records {}–{}: {run} calls ({}) · {}</summary>",
            c.record,
            calls.last().map_or(c.record, |l| l.record),
            escape(&kinds.join(", ")),
            micros(time)
        );
        for c in calls {
            call_html(&mut h, r, c);
        }
        h.push_str("</details>\n");
        i += run;
    }
    let _ = writeln!(
        h,
        "<script type=\"application/json\" id=\"spans\">{}</script>\n<script>{PIXEL_SCRIPT}</script>",
        spans_json(r, &f.calls, command)
    );
    h.push_str("</body></html>\n");
    h
}

fn call_html(h: &mut String, r: &Report, c: &CallInfo) {
    let _ = writeln!(
        h,
        "<div class=\"call{}\" id=\"r{}\"><b>record {}</b> <code>{}</code> · {}",
        if c.refusal.is_some() { " refused" } else { "" },
        c.record,
        c.record,
        escape(&c.text),
        micros(c.time)
    );
    if let Some(rf) = &c.refusal {
        let _ = writeln!(h, "<div>{}</div>", refusal_cells(rf));
    }
    if !c.commands.is_empty() {
        h.push_str("<table class=\"commands\"><tr><th>offset</th><th>command</th></tr>\n");
        for cmd in &c.commands {
            let (class, mark) = match cmd.fate {
                Fate::Done => ("", ""),
                Fate::Refused => (" refused", "<span class=\"error-marker\">REFUSED</span> "),
                Fate::NotReached => (" not-reached", ""),
            };
            let _ = write!(
                h,
                "<tr class=\"cmd{class}\"><td>{}</td><td>{mark}<code>{}</code>",
                cmd.offset,
                escape(&cmd.text)
            );
            if let Some(d) = cmd.draw.and_then(|d| r.draws.get(d)) {
                draw_html(h, d);
            }
            h.push_str("</td></tr>\n");
        }
        h.push_str("</table>\n");
    }
    h.push_str("</div>\n");
}

fn draw_html(h: &mut String, d: &DrawInfo) {
    let _ = write!(
        h,
        "<div class=\"draw\" id=\"draw-{}\"><b>draw {}</b> ({} at offset {}) · {} · primitives {} · pixels shaded {} · pixels passing depth/stencil {} · pixels written {} · pixels changed {}<div class=\"thumbs\">",
        d.number,
        d.number,
        escape(d.opcode),
        d.offset,
        micros(d.time),
        d.primitives,
        d.pixels_shaded,
        d.samples_passed,
        d.pixels_written,
        d.pixels_changed
    );
    if let Some(p) = &d.target_png {
        let _ = write!(
            h,
            "<span>render target {:#x} ({}×{})<br><img class=\"thumb rt-thumb\" src=\"{}\" data-w=\"{}\" data-h=\"{}\" data-surface=\"{}\" data-draw=\"{}\" alt=\"render target after draw {}\" width=\"{}\"></span>",
            d.surface,
            d.width,
            d.height,
            escape(p),
            d.width,
            d.height,
            d.surface,
            d.number,
            d.number,
            d.width.clamp(96, super::THUMB_MAX)
        );
    }
    if let Some(p) = &d.depth_png {
        let _ = write!(
            h,
            "<span>depth {:.4} (black) to {:.4} (white)<br><img class=\"thumb\" src=\"{}\" alt=\"depth after draw {}\" width=\"{}\"></span>",
            d.depth_range.0,
            d.depth_range.1,
            escape(p),
            d.number,
            d.width.clamp(96, super::THUMB_MAX)
        );
    }
    for (stage, handle, png) in &d.textures {
        let img = png.as_ref().map_or(String::from("(no image)"), |p| {
            format!(
                "<img class=\"thumb\" src=\"{}\" alt=\"texture\">",
                escape(p)
            )
        });
        let _ = write!(
            h,
            "<span>stage {stage}: texture {handle:#x}<br>{img}</span>"
        );
    }
    h.push_str("</div>");
    let _ = write!(h, "<details class=\"changes\" open><summary>{} state change(s) since the previous draw</summary><ul>", d.changes.len());
    for (k, b, a) in &d.changes {
        let _ = write!(
            h,
            "<li>{}: {} → {}</li>",
            escape(k),
            escape(if b.is_empty() { "(unset)" } else { b }),
            escape(a)
        );
    }
    let _ = write!(h, "</ul></details><details class=\"state\"><summary>state in force ({} value(s) differ from the device defaults)</summary><ul>", d.state.len());
    for (k, v) in &d.state {
        let _ = write!(h, "<li>{} = {}</li>", escape(k), escape(v));
    }
    h.push_str("</ul></details></div>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_neutralises_markup() {
        assert_eq!(
            escape("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        assert_eq!(escape("D3DRS_ZENABLE"), "D3DRS_ZENABLE");
    }

    #[test]
    fn shell_quoting_keeps_plain_paths() {
        assert_eq!(
            shell_quote("testdata/samples/demo.shcap"),
            "testdata/samples/demo.shcap"
        );
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }
}
