//! One record of a text capture: its keyword and arguments → a
//! [`Record`] (`surface`, `dp2` with its command block, `submit` with its
//! GPU packets and lists, and the one-line calls).
//!
//! In: the record's first line (split by the DP2 lexer) and, for blocks,
//! the lines after it through the [`Parser`]. Out: the record without its
//! answer (an `expect` line after it adds that), or a [`TextError`] naming
//! the line. Bounded by [`crate::limits`]; never panics.

use super::args::{list_words, parse_rstates, Args};
use super::png::png_texels;
use super::Parser;
use crate::error::TextError;
use crate::limits;
use crate::record::*;
use crate::replay::call_options;
use crate::vertex;
use softhal_wire::ddi_enum::ValueKind;
use softhal_wire::names;
use softhal_wire::text::lexer::{self, Item};
use softhal_wire::text::parse_hex_word;
use std::path::Path;

impl Parser<'_> {
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

    pub(super) fn record(
        &mut self,
        no: usize,
        kw: &str,
        items: Vec<Item>,
    ) -> Result<Record, TextError> {
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
