//! Parsing: text → a [`Capture`].
//!
//! In: untrusted text, line by line (each line split by the DP2 lexer).
//! Out: the records, each with its `expect`ed answer, or a [`TextError`]
//! naming the line; a text cut inside a line or block yields the records
//! before the cut ([`from_text_prefix`]). Guarantees: never panics; the
//! input size, line count, record count and vertex rows are bounded by
//! [`crate::limits`]; `png=` reads only files below the capture's
//! directory. Command streams go through `softhal_wire::text`.

use super::write::fmt_format;
use super::{CUT, DIRECTIVE};
use crate::error::TextError;
use crate::limits;
use crate::record::*;
use crate::replay::call_options;
use crate::vertex;
use softhal_wire::ddi_enum::ValueKind;
use softhal_wire::names::{self, codes};
use softhal_wire::text::lexer::{self, Item, Val};
use softhal_wire::text::parse_hex_word;
use std::path::Path;

struct Line<'a> {
    no: usize,
    raw: &'a str,
}

/// A parsed `key=value` line: the keyword, positional words, pairs.
struct Args {
    words: Vec<String>,
    pairs: Vec<(String, Val)>,
}

impl Args {
    fn from_items(items: Vec<Item>) -> Result<Args, String> {
        let mut a = Args {
            words: Vec::new(),
            pairs: Vec::new(),
        };
        for it in items {
            match it {
                Item::Word(w) => a.words.push(w),
                Item::Pair(k, v) => a.pairs.push((k.to_ascii_lowercase(), v)),
                Item::Group(_) => return Err("unexpected { ... } group".into()),
            }
        }
        Ok(a)
    }
    fn take(&mut self, key: &str) -> Option<Val> {
        let i = self.pairs.iter().rposition(|(k, _)| k == key)?;
        let v = self.pairs.remove(i).1;
        self.pairs.retain(|(k, _)| k != key);
        Some(v)
    }
    fn word(&mut self, key: &str) -> Result<Option<String>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(Val::Word(w)) => Ok(Some(w)),
            Some(_) => Err(format!("{key}: expected a single value")),
        }
    }
    fn parsed(
        &mut self,
        key: &str,
        f: impl Fn(&str) -> Option<u32>,
        default: u32,
    ) -> Result<u32, String> {
        match self.word(key)? {
            None => Ok(default),
            Some(w) => f(&w).ok_or_else(|| format!("{key}: cannot read {w}")),
        }
    }
    fn num(&mut self, key: &str, default: u32) -> Result<u32, String> {
        self.parsed(key, names::parse_number, default)
    }
    fn required(&mut self, key: &str) -> Result<u32, String> {
        match self.word(key)? {
            None => Err(format!("{key}= is required")),
            Some(w) => names::parse_number(&w).ok_or_else(|| format!("{key}: cannot read {w}")),
        }
    }
    fn handle(&mut self) -> Result<u32, String> {
        if self.words.is_empty() {
            return Err("expected a handle".into());
        }
        let w = self.words.remove(0);
        names::parse_number(&w).ok_or_else(|| format!("cannot read handle {w}"))
    }
    fn finish(self) -> Result<(), String> {
        if let Some(w) = self.words.first() {
            return Err(format!("unexpected word {w}"));
        }
        if let Some((k, _)) = self.pairs.first() {
            return Err(format!("unknown key {k}="));
        }
        Ok(())
    }
}

fn list_words(v: &Val, key: &str) -> Result<Vec<String>, String> {
    let Val::List(xs) = v else {
        return Err(format!("{key}: expected a list [...]"));
    };
    xs.iter()
        .map(|x| match x {
            Val::Word(w) => Ok(w.clone()),
            _ => Err(format!("{key}: nested values are not allowed")),
        })
        .collect()
}

fn parse_rstates(v: &Val) -> Result<Box<[u32; 256]>, String> {
    let mut a = Box::new([0u32; 256]);
    for w in list_words(v, "rstates")? {
        let (i, x) = w
            .split_once(':')
            .ok_or_else(|| format!("rstates: expected index:value, found {w}"))?;
        let i = names::parse_number(i)
            .filter(|i| *i < 256)
            .ok_or_else(|| format!("rstates: bad index in {w}"))?;
        let x = names::parse_number(x).ok_or_else(|| format!("rstates: bad value in {w}"))?;
        if let Some(slot) = a.get_mut(i as usize) {
            *slot = x;
        }
    }
    Ok(a)
}

fn parse_answer(r: &Record, items: Vec<Item>) -> Result<Answer, String> {
    let mut a = Args::from_items(items)?;
    let mut ans = Answer {
        ddrval: a.parsed("ddrval", codes::parse_hresult, codes::D3D_OK)?,
        ..Answer::default()
    };
    match r {
        Record::DrawPrimitives2 { call, .. } => {
            ans.error_offset = a.num("error_offset", 0)?;
            ans.flags = a.parsed(
                "flags",
                |w| names::parse_value(ValueKind::Flags(&names::DP2_FLAGS), w),
                call.flags,
            )?;
            if let Some(v) = a.take("rstates") {
                ans.rstates = Some(parse_rstates(&v)?);
            }
        }
        Record::ValidateTextureStageState { .. } => ans.passes = a.num("passes", 0)?,
        Record::Submit { .. } => {
            ans.sizes = [
                a.num("command_buffer_size", 0)?,
                a.num("allocation_list_size", 0)?,
                a.num("patch_list_size", 0)?,
            ];
            ans.queued = a.num("queued", 0)?;
        }
        Record::Flip { .. } | Record::Present { .. } => {
            if let Some(w) = a.word("checksum")? {
                let h = w.strip_prefix("0x").unwrap_or(&w);
                ans.checksum =
                    u64::from_str_radix(h, 16).map_err(|_| format!("checksum: cannot read {w}"))?;
            }
        }
        _ => {}
    }
    a.finish()?;
    Ok(ans)
}

fn png_texels(path: &Path, format: u32) -> Result<(u32, u32, Vec<u8>), String> {
    let fmt = softhal_device::Format::from_d3dfmt(format)
        .filter(|f| f.is_color())
        .ok_or_else(|| format!("png=: format {} is not a colour format", fmt_format(format)))?;
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut dec = png::Decoder::new(std::io::BufReader::new(file));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec
        .read_info()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let (w, h) = (reader.info().width, reader.info().height);
    if u64::from(w) * u64::from(h) > limits::MAX_PNG_PIXELS {
        return Err(format!("{}: {w}x{h} is too large", path.display()));
    }
    let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let ch = match info.color_type {
        png::ColorType::Rgba => 4,
        png::ColorType::Rgb => 3,
        png::ColorType::GrayscaleAlpha => 2,
        _ => 1,
    };
    let bpp = fmt.bytes_per_pixel() as usize;
    let mut out = Vec::with_capacity(w as usize * h as usize * bpp);
    for px in buf
        .get(..info.buffer_size())
        .unwrap_or_default()
        .chunks_exact(ch)
    {
        let g = |i: usize| px.get(i).copied().unwrap_or(255);
        let (r, gr, b, a) = match ch {
            4 => (g(0), g(1), g(2), g(3)),
            3 => (g(0), g(1), g(2), 255),
            2 => (g(0), g(0), g(0), g(1)),
            _ => (g(0), g(0), g(0), 255),
        };
        let raw = fmt.encode_argb(u32::from_be_bytes([a, r, gr, b]));
        out.extend_from_slice(raw.to_le_bytes().get(..bpp).unwrap_or_default());
    }
    Ok((w, h, out))
}

struct Parser<'a> {
    lines: Vec<Line<'a>>,
    pos: usize,
    base: Option<&'a Path>,
    /// A block (`dp2`, `.vertices`, `submit`) reached the end of the input
    /// before its `.end`: the input was cut inside it.
    ran_out: bool,
}

impl<'a> Parser<'a> {
    fn next_line(&mut self) -> Option<&Line<'a>> {
        let l = self.lines.get(self.pos);
        self.pos += 1;
        self.ran_out |= l.is_none();
        l
    }

    /// Vertex rows of layout `fvf` until `.end`.
    fn rows(&mut self, fvf: u32, stop_at_end: bool) -> Result<Vec<u8>, TextError> {
        let start = self.pos;
        let layout = softhal_wire::fvf::FvfLayout::parse(fvf).map_err(|e| TextError {
            line: start,
            message: format!("vertex rows: {e}"),
        })?;
        let mut out = Vec::new();
        let mut n = 0usize;
        while let Some(l) = self.lines.get(self.pos) {
            let err = |m: String| TextError {
                line: l.no,
                message: m,
            };
            let Some((kw, items)) = lexer::parse_line(l.raw).map_err(err)? else {
                self.pos += 1;
                continue;
            };
            if kw.eq_ignore_ascii_case(".end") {
                if stop_at_end {
                    self.pos += 1;
                }
                return Ok(out);
            }
            if !kw.eq_ignore_ascii_case("vertex") {
                return Err(err(format!("expected vertex or .end, found {kw}")));
            }
            n += 1;
            if n > limits::MAX_TEXT_VERTICES {
                return Err(err("too many vertex rows".into()));
            }
            out.extend_from_slice(&vertex::parse_row(&layout, &items).map_err(err)?);
            self.pos += 1;
        }
        self.ran_out = true;
        Err(TextError {
            line: self.lines.last().map_or(1, |l| l.no),
            message: "missing .end".into(),
        })
    }

    fn surface(&mut self, no: usize, items: Vec<Item>) -> Result<Record, TextError> {
        let err = |m: String| TextError {
            line: no,
            message: m,
        };
        let mut a = Args::from_items(items).map_err(err)?;
        let handle = a.handle().map_err(err)?;
        let kind = if let Some(k) = a.word("kind").map_err(err)? {
            names::parse_number(&k).ok_or_else(|| err(format!("kind: cannot read {k}")))?
        } else {
            if a.words.is_empty() {
                return Err(err(
                    "surface: expected a kind (render_target, texture, vertex_buffer, ...)".into(),
                ));
            }
            let w = a.words.remove(0);
            SurfaceKindCode::from_keyword(&w)
                .ok_or_else(|| err(format!("unknown surface kind {w}")))? as u32
        };
        let kind = match a.word("usage").map_err(err)?.as_deref() {
            None => kind,
            Some("render_target") => kind | SurfaceSpec::RENDER_TARGET_USAGE,
            Some(u) => return Err(err(format!("usage: unknown usage {u} (render_target)"))),
        };
        let buffer = SurfaceKindCode::from_code(kind).is_some_and(SurfaceKindCode::is_buffer);
        let format = a
            .parsed(
                "format",
                |w| names::parse_value(ValueKind::Enum(&names::Format::TABLE), w),
                0,
            )
            .map_err(err)?;
        let size = match a.word("size").map_err(err)? {
            Some(w) => {
                Some(names::parse_number(&w).ok_or_else(|| err(format!("size: cannot read {w}")))?)
            }
            None => None,
        };
        let width = a.word("width").map_err(err)?;
        let mut spec = SurfaceSpec {
            kind,
            format,
            width: 0,
            height: a.num("height", 1).map_err(err)?,
            depth: a.num("depth", 1).map_err(err)?,
            mip_levels: a.num("levels", 1).map_err(err)?,
        };
        let mut init = Vec::new();
        if let Some(d) = a.word("data").map_err(err)? {
            init = parse_hex_word(&d).map_err(err)?;
        }
        for (key, width_bytes) in [("u8", 1usize), ("u16", 2), ("u32", 4), ("f32", 4)] {
            if let Some(v) = a.take(key) {
                for w in list_words(&v, key).map_err(err)? {
                    let x = if key == "f32" {
                        names::parse_float_bits(&w)
                    } else {
                        names::parse_number(&w)
                    }
                    .filter(|x| width_bytes == 4 || *x < 1 << (8 * width_bytes))
                    .ok_or_else(|| err(format!("{key}: cannot read {w}")))?;
                    init.extend_from_slice(x.to_le_bytes().get(..width_bytes).unwrap_or_default());
                }
            }
        }
        let mut png_size = None;
        if let Some(p) = a.word("png").map_err(err)? {
            // A capture is untrusted: it may only name files beside it, never
            // an absolute path or one that climbs out with `..` (which would
            // let a capture read any host file into texels).
            let rel = Path::new(&p);
            let confined = rel
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
            if !confined {
                return Err(err(format!(
                    "png={p}: must be a relative path inside the capture's directory (no `..`, no absolute path)"
                )));
            }
            let path = match self.base {
                Some(b) => b.join(rel),
                None => rel.to_path_buf(),
            };
            let (w, h, t) = png_texels(&path, format).map_err(err)?;
            png_size = Some((w, h));
            init.extend_from_slice(&t);
        }
        let fvf = match a.word("fvf").map_err(err)? {
            Some(w) => Some(
                names::parse_fvf(&w)
                    .or_else(|| names::parse_number(&w))
                    .ok_or_else(|| err(format!("fvf: cannot read {w}")))?,
            ),
            None => None,
        };
        a.finish().map_err(err)?;
        if let Some(f) = fvf {
            init.extend_from_slice(&self.rows(f, true)?);
        }
        spec.width = match (size, width, png_size) {
            (Some(s), _, _) => s,
            (None, Some(w), _) => {
                names::parse_number(&w).ok_or_else(|| err(format!("width: cannot read {w}")))?
            }
            (None, None, Some((w, h))) => {
                if spec.height == 1 {
                    spec.height = h;
                }
                w
            }
            (None, None, None) if buffer => {
                u32::try_from(init.len()).map_err(|_| err("data too large".into()))?
            }
            _ => {
                return Err(err(
                    "surface: width= (or size= for buffers) is required".into()
                ))
            }
        };
        Ok(Record::CreateSurface {
            handle,
            spec,
            init,
            answer: None,
        })
    }

    fn dp2(&mut self, no: usize, items: Vec<Item>) -> Result<Record, TextError> {
        let err = |m: String| TextError {
            line: no,
            message: m,
        };
        let mut a = Args::from_items(items).map_err(err)?;
        let mut c = Dp2Call {
            context: a.required("context").map_err(err)?,
            commands: a.required("commands").map_err(err)?,
            command_offset: a.num("command_offset", 0).map_err(err)?,
            vertex_type: a
                .parsed(
                    "fvf",
                    |w| names::parse_fvf(w).or_else(|| names::parse_number(w)),
                    0,
                )
                .map_err(err)?,
            flags: a
                .parsed(
                    "flags",
                    |w| names::parse_value(ValueKind::Flags(&names::DP2_FLAGS), w),
                    0,
                )
                .map_err(err)?,
            vertex_surface: a.num("vertex_surface", 0).map_err(err)?,
            vertex_offset: a.num("vertex_offset", 0).map_err(err)?,
            req_vertex_buf_size: a.num("req_vertex_buf_size", 0).map_err(err)?,
            req_command_buf_size: a.num("req_command_buf_size", 0).map_err(err)?,
            vertex_size: a.num("vertex_size", 0).map_err(err)?,
            ..Dp2Call::default()
        };
        let vertex_length = match a.word("vertex_length").map_err(err)? {
            Some(w) => Some(
                names::parse_number(&w)
                    .ok_or_else(|| err(format!("vertex_length: cannot read {w}")))?,
            ),
            None => None,
        };
        let command_length = match a.word("command_length").map_err(err)? {
            Some(w) => Some(
                names::parse_number(&w)
                    .ok_or_else(|| err(format!("command_length: cannot read {w}")))?,
            ),
            None => None,
        };
        if let Some(v) = a.take("rstates") {
            c.rstates = Some(parse_rstates(&v).map_err(err)?);
        }
        a.finish().map_err(err)?;
        // The command stream: assembly lines up to `.vertices` or `.end`.
        let mut src = String::new();
        let first = self.pos + 1;
        let mut ended = false;
        while let Some(l) = self.next_line() {
            let t = l.raw.trim();
            let head = t.split_whitespace().next().unwrap_or("");
            if head.eq_ignore_ascii_case(".end") {
                ended = true;
                break;
            }
            if head.eq_ignore_ascii_case(".vertices") {
                let no = l.no;
                let rest = t.get(head.len()..).unwrap_or("").trim();
                let rest = rest.split(['#', ';']).next().unwrap_or("").trim();
                if rest.is_empty() {
                    c.user_vertices = Some(self.rows(c.vertex_type, true)?);
                } else {
                    c.user_vertices = Some(parse_hex_word(rest).map_err(|m| TextError {
                        line: no,
                        message: m,
                    })?);
                    match self.next_line() {
                        Some(l) if l.raw.trim().eq_ignore_ascii_case(".end") => {}
                        Some(l) => {
                            return Err(TextError {
                                line: l.no,
                                message: "expected .end after .vertices hex:...".into(),
                            })
                        }
                        None => return Err(err("missing .end".into())),
                    }
                }
                ended = true;
                break;
            }
            src.push_str(l.raw);
            src.push('\n');
        }
        if !ended {
            return Err(err("dp2: missing .end".into()));
        }
        c.command_bytes =
            softhal_wire::text::assemble_with(&src, call_options(&c)).map_err(|e| TextError {
                line: first + e.line - 1,
                message: e.message,
            })?;
        c.command_length = match command_length {
            Some(n) => n,
            None => {
                u32::try_from(c.command_bytes.len()).map_err(|_| err("stream too large".into()))?
            }
        };
        c.vertex_length = match vertex_length {
            Some(n) => n,
            None => match (&c.user_vertices, vertex::row_layout(c.vertex_type, &[])) {
                (Some(v), Some(l)) => (v.len() / l.stride as usize) as u32,
                _ => 0,
            },
        };
        Ok(Record::DrawPrimitives2 {
            call: Box::new(c),
            answer: None,
        })
    }

    /// A `submit` block: the call line, then `commands`, `allocation` and
    /// `patch` lines up to `.end`.
    fn submit(&mut self, no: usize, items: Vec<Item>) -> Result<Record, TextError> {
        let err = |m: String| TextError {
            line: no,
            message: m,
        };
        let mut a = Args::from_items(items).map_err(err)?;
        let mut c = SubmitCall {
            context: a.num("context", 0).map_err(err)?,
            flags: a.num("flags", 0).map_err(err)?,
            command_offset: a.num("command_offset", 0).map_err(err)?,
            req_command_buffer_size: a.num("req_command_buffer_size", 0).map_err(err)?,
            req_allocation_list_size: a.num("req_allocation_list_size", 0).map_err(err)?,
            req_patch_list_size: a.num("req_patch_list_size", 0).map_err(err)?,
            ..SubmitCall::default()
        };
        let mut counts = [None; 3];
        for (slot, key) in
            counts
                .iter_mut()
                .zip(["command_length", "num_allocations", "num_patch_locations"])
        {
            if let Some(w) = a.word(key).map_err(err)? {
                *slot = Some(
                    names::parse_number(&w)
                        .ok_or_else(|| err(format!("{key}: cannot read {w}")))?,
                );
            }
        }
        a.finish().map_err(err)?;
        let mut ended = false;
        while let Some(l) = self.next_line() {
            let no = l.no;
            let err = |m: String| TextError {
                line: no,
                message: m,
            };
            let Some((kw, items)) = lexer::parse_line(l.raw).map_err(err)? else {
                continue;
            };
            let mut a = Args::from_items(items).map_err(err)?;
            match kw.to_ascii_lowercase().as_str() {
                ".end" => {
                    a.finish().map_err(err)?;
                    ended = true;
                    break;
                }
                "commands" => {
                    if a.words.len() != 1 {
                        return Err(err("commands: expected one hex:<bytes> word".into()));
                    }
                    let w = a.words.remove(0);
                    c.command_bytes
                        .extend_from_slice(&parse_hex_word(&w).map_err(err)?);
                    if c.command_bytes.len() as u64 > limits::MAX_RECORD_BYTES {
                        return Err(err("commands: too many bytes".into()));
                    }
                }
                "allocation" => c.allocations.push(SubmitAllocation {
                    handle: a.handle().map_err(err)?,
                    surface: a.num("surface", 0).map_err(err)?,
                    value: a.num("value", 0).map_err(err)?,
                }),
                "patch" => c.patches.push(softhal_submit::PatchLocation {
                    allocation_index: a.required("index").map_err(err)?,
                    patch_offset: a.required("offset").map_err(err)?,
                    slot_id: a.num("slot", 0).map_err(err)?,
                    driver_id: a.num("driver", 0).map_err(err)?,
                    allocation_offset: a.num("allocation_offset", 0).map_err(err)?,
                    split_offset: a.num("split", 0).map_err(err)?,
                }),
                other => {
                    return Err(err(format!(
                        "submit: expected commands, allocation, patch or .end, found {other}"
                    )))
                }
            }
            a.finish().map_err(err)?;
        }
        if !ended {
            return Err(err("submit: missing .end".into()));
        }
        let len = |n: usize| u32::try_from(n).map_err(|_| err("submit: too large".into()));
        c.command_length = match counts[0] {
            Some(n) => n,
            None => len(c.command_bytes.len())?,
        };
        c.num_allocations = match counts[1] {
            Some(n) => n,
            None => len(c.allocations.len())?,
        };
        c.num_patch_locations = match counts[2] {
            Some(n) => n,
            None => len(c.patches.len())?,
        };
        Ok(Record::Submit {
            call: Box::new(c),
            answer: None,
        })
    }

    fn record(&mut self, no: usize, kw: &str, items: Vec<Item>) -> Result<Record, TextError> {
        let err = |m: String| TextError {
            line: no,
            message: m,
        };
        let simple = |items: Vec<Item>| -> Result<u32, TextError> {
            let mut a = Args::from_items(items).map_err(err)?;
            let h = a.handle().map_err(err)?;
            a.finish().map_err(err)?;
            Ok(h)
        };
        let kw = kw.to_ascii_lowercase();
        Ok(match kw.as_str() {
            "surface" => return self.surface(no, items),
            "dp2" => return self.dp2(no, items),
            "submit" => return self.submit(no, items),
            "render_context" => {
                let mut a = Args::from_items(items).map_err(err)?;
                let handle = a.handle().map_err(err)?;
                let engine = match a.word("engine").map_err(err)?.as_deref() {
                    None | Some("3d") => 0,
                    Some("copy") => 1,
                    Some(w) => names::parse_number(w)
                        .ok_or_else(|| err(format!("engine: expected 3d or copy, found {w}")))?,
                };
                a.finish().map_err(err)?;
                Record::RenderContextCreate {
                    handle,
                    engine,
                    answer: None,
                }
            }
            "render_context_destroy" => Record::RenderContextDestroy {
                handle: simple(items)?,
                answer: None,
            },
            "color_key" => {
                let mut a = Args::from_items(items).map_err(err)?;
                let handle = a.handle().map_err(err)?;
                let num = |a: &mut Args, key: &str| -> Result<u32, TextError> {
                    match a.word(key).map_err(err)? {
                        None => Ok(0),
                        Some(w) => names::parse_number(&w)
                            .ok_or_else(|| err(format!("{key}: expected a number, found {w}"))),
                    }
                };
                let (enable, low, high) = (
                    num(&mut a, "enable")?,
                    num(&mut a, "low")?,
                    num(&mut a, "high")?,
                );
                a.finish().map_err(err)?;
                Record::SetColorKey {
                    handle,
                    enable,
                    low,
                    high,
                    answer: None,
                }
            }
            "dx_version" => Record::DxVersion {
                version: simple(items)?,
            },
            "destroy" => Record::DestroySurface {
                handle: simple(items)?,
                answer: None,
            },
            "context_destroy" => Record::ContextDestroy {
                handle: simple(items)?,
                answer: None,
            },
            "flip" => Record::Flip {
                handle: simple(items)?,
                answer: None,
            },
            "present" => Record::Present {
                handle: simple(items)?,
                answer: None,
            },
            "complete_flips" | "complete_work" => {
                Args::from_items(items)
                    .and_then(Args::finish)
                    .map_err(err)?;
                if kw == "complete_flips" {
                    Record::CompleteFlips
                } else {
                    Record::CompleteWork
                }
            }
            "lock" => {
                let mut a = Args::from_items(items).map_err(err)?;
                let handle = a.handle().map_err(err)?;
                let api = match a.word("api").map_err(err)?.as_deref() {
                    None | Some("lock") => LockApi::Lock,
                    Some("lock_level") => LockApi::LockLevel,
                    Some(o) => {
                        return Err(err(format!("api: expected lock or lock_level, found {o}")))
                    }
                };
                let r = Record::Lock {
                    handle,
                    api,
                    face: a.num("face", 0).map_err(err)?,
                    level: a.num("level", 0).map_err(err)?,
                    flags: a.num("flags", 0).map_err(err)?,
                    answer: None,
                };
                a.finish().map_err(err)?;
                r
            }
            "unlock" => {
                let mut a = Args::from_items(items).map_err(err)?;
                let handle = a.handle().map_err(err)?;
                let bytes = match a.word("data").map_err(err)? {
                    Some(w) => parse_hex_word(&w).map_err(err)?,
                    None => Vec::new(),
                };
                let r = Record::Unlock {
                    handle,
                    face: a.num("face", 0).map_err(err)?,
                    level: a.num("level", 0).map_err(err)?,
                    offset: a.num("offset", 0).map_err(err)?,
                    bytes,
                    answer: None,
                };
                a.finish().map_err(err)?;
                r
            }
            "attached" => {
                let mut a = Args::from_items(items).map_err(err)?;
                let handle = a.handle().map_err(err)?;
                let r = Record::AttachedSurface {
                    handle,
                    texture: a.required("texture").map_err(err)?,
                    face: a.num("face", 0).map_err(err)?,
                    level: a.num("level", 0).map_err(err)?,
                    answer: None,
                };
                a.finish().map_err(err)?;
                r
            }
            "context" => {
                let mut a = Args::from_items(items).map_err(err)?;
                let handle = a.handle().map_err(err)?;
                let r = Record::ContextCreate {
                    handle,
                    render_target: a.required("target").map_err(err)?,
                    depth: a.num("depth", 0).map_err(err)?,
                    answer: None,
                };
                a.finish().map_err(err)?;
                r
            }
            "clear2" => {
                let mut a = Args::from_items(items).map_err(err)?;
                let mut c = Clear2Call {
                    context: a.required("context").map_err(err)?,
                    flags: a
                        .parsed(
                            "flags",
                            |w| names::parse_value(ValueKind::Flags(&names::CLEAR_FLAGS), w),
                            0,
                        )
                        .map_err(err)?,
                    color: a.num("color", 0).map_err(err)?,
                    depth_bits: a
                        .parsed("depth", names::parse_float_bits, 1.0f32.to_bits())
                        .map_err(err)?,
                    stencil: a.num("stencil", 0).map_err(err)?,
                    rects: Vec::new(),
                };
                if let Some(v) = a.take("rects") {
                    let ws = list_words(&v, "rects").map_err(err)?;
                    if ws.len() % 4 != 0 {
                        return Err(err("rects: expected x1 y1 x2 y2 per rectangle".into()));
                    }
                    if ws.len() / 4 > limits::MAX_CLEAR_RECTS as usize {
                        return Err(err("rects: too many rectangles".into()));
                    }
                    for q in ws.chunks_exact(4) {
                        let mut r = [0i32; 4];
                        for (slot, w) in r.iter_mut().zip(q) {
                            *slot = names::parse_signed(w)
                                .ok_or_else(|| err(format!("rects: cannot read {w}")))?
                                as i32;
                        }
                        c.rects.push(r);
                    }
                }
                a.finish().map_err(err)?;
                Record::Clear2 {
                    call: c,
                    answer: None,
                }
            }
            "validate_tss" => {
                let mut a = Args::from_items(items).map_err(err)?;
                let r = Record::ValidateTextureStageState {
                    context: a.required("context").map_err(err)?,
                    flags: a.num("flags", 0).map_err(err)?,
                    reserved: a.num("reserved", 0).map_err(err)?,
                    answer: None,
                };
                a.finish().map_err(err)?;
                r
            }
            _ => return Err(err(format!("unknown record {kw}"))),
        })
    }
}

/// Parses a text capture. `base` is the directory `png=` paths are relative
/// to (`None`: the current directory). A capture that was cut
/// ([`from_text_prefix`]) is an error.
pub fn from_text(src: &str, base: Option<&Path>) -> Result<Capture, TextError> {
    match from_text_prefix(src, base)? {
        (c, None) => Ok(c),
        (_, Some(cut)) => Err(cut),
    }
}

/// Parses a text capture that may have been cut: every complete record
/// before the cut, and the cut if the text ends early — inside a line (the
/// last line has content but no newline after it) or inside a `dp2`,
/// `.vertices` or `submit` block (no `.end`). The text form has no end
/// marker: a cut exactly at the end of a line reads as a shorter capture.
/// Any other problem fails the whole load, as [`from_text`] does.
pub fn from_text_prefix(
    src: &str,
    base: Option<&Path>,
) -> Result<(Capture, Option<TextError>), TextError> {
    if src.len() as u64 > limits::MAX_CAPTURE_BYTES {
        return Err(TextError {
            line: 1,
            message: "capture too large".into(),
        });
    }
    let mut lines: Vec<Line<'_>> = src
        .lines()
        .take(limits::MAX_TEXT_LINES + 1)
        .enumerate()
        .map(|(i, raw)| Line { no: i + 1, raw })
        .collect();
    if lines.len() > limits::MAX_TEXT_LINES {
        return Err(TextError {
            line: limits::MAX_TEXT_LINES,
            message: "too many lines".into(),
        });
    }
    // A last line without a newline after it was cut (the canonical form
    // and every editor end lines with one), unless it holds nothing.
    let mut cut_line = None;
    if !src.is_empty() && !src.ends_with('\n') {
        if let Some(last) = lines.last() {
            if !matches!(lexer::parse_line(last.raw), Ok(None)) {
                cut_line = Some(last.no);
                lines.pop();
            }
        }
    }
    let cut_inside = |line: usize| {
        TextError {
        line,
        message: format!(
            "the capture ends inside this line (no newline after it, as every complete line has){CUT}"
        ),
    }
    };
    let mut p = Parser {
        lines,
        pos: 0,
        base,
        ran_out: false,
    };
    let mut records: Vec<Record> = Vec::new();
    let mut seen_header = false;
    while let Some(l) = p.lines.get(p.pos) {
        let no = l.no;
        let err = |m: String| TextError {
            line: no,
            message: m,
        };
        let Some((kw, items)) = lexer::parse_line(l.raw).map_err(err)? else {
            p.pos += 1;
            continue;
        };
        p.pos += 1;
        if !seen_header {
            if !kw.eq_ignore_ascii_case(DIRECTIVE) {
                return Err(err(format!("a text capture starts with `{DIRECTIVE} 1`")));
            }
            let v = match items.as_slice() {
                [Item::Word(w)] => names::parse_number(w),
                _ => None,
            };
            if v != Some(crate::binary::VERSION) {
                return Err(err(format!(
                    "{DIRECTIVE}: version {} expected",
                    crate::binary::VERSION
                )));
            }
            seen_header = true;
            continue;
        }
        if kw.eq_ignore_ascii_case("expect") {
            let r = records
                .last_mut()
                .ok_or_else(|| err("expect: no call before it".into()))?;
            let ans = parse_answer(r, items).map_err(err)?;
            match r.answer_mut() {
                Some(slot @ None) => *slot = Some(ans),
                Some(Some(_)) => return Err(err("expect: the call already has an answer".into())),
                None => return Err(err(format!("expect: {} has no answer", r.name()))),
            }
            continue;
        }
        if records.len() >= limits::MAX_RECORDS {
            return Err(err("too many records".into()));
        }
        match p.record(no, &kw, items) {
            Ok(r) => records.push(r),
            Err(e) if p.ran_out => {
                let cut = TextError {
                    line: no,
                    message: format!("the capture ends inside this record ({}){CUT}", e.message),
                };
                return Ok((Capture { records }, Some(cut)));
            }
            Err(e) => return Err(e),
        }
    }
    if let Some(line) = cut_line {
        return Ok((Capture { records }, Some(cut_inside(line))));
    }
    if !seen_header {
        return Err(TextError {
            line: 1,
            message: format!("a text capture starts with `{DIRECTIVE} 1`"),
        });
    }
    Ok((Capture { records }, None))
}
