//! Writing: a [`Capture`] → its canonical text.
//!
//! In: records. Out: the `.capture` header line, then per record its call
//! line (and for `dp2` and `submit` the block of command lines up to
//! `.end`), then its `expect` line when it has an answer. Guarantees:
//! total; what it writes [`super::from_text`] reads back to the same
//! records (command streams the DP2 disassembler cannot list exactly are
//! written as `.raw hex:`).

use super::DIRECTIVE;
use crate::record::*;
use crate::replay::call_options;
use crate::vertex;
use softhal_wire::ddi_enum::ValueKind;
use softhal_wire::names::{self, codes};
use softhal_wire::text::format_hex as hex;
use softhal_wire::DecodeOptions;
use std::fmt::Write as _;

pub(super) fn fmt_format(f: u32) -> String {
    names::format_value(ValueKind::Enum(&names::Format::TABLE), f)
}

fn fmt_dp2_flags(f: u32) -> String {
    names::format_value(ValueKind::Flags(&names::DP2_FLAGS), f)
}

fn fmt_rstates(r: &[u32; 256]) -> String {
    let parts: Vec<String> = r
        .iter()
        .enumerate()
        .filter(|(_, v)| **v != 0)
        .map(|(i, v)| format!("{i}:{v:#x}"))
        .collect();
    format!("[{}]", parts.join(" "))
}

/// The DP2 assembly listing of `bytes` that assembles back to exactly
/// `bytes` under `opts`: the disassembly, then `.raw hex:` for whatever the
/// disassembler could not list; all of it as `.raw` if that is not exact.
pub fn exact_listing(bytes: &[u8], opts: DecodeOptions) -> String {
    let d = softhal_wire::text::disassemble(bytes, None, opts);
    let mut listing = d.text;
    if let Some(e) = &d.error {
        let _ = writeln!(
            listing,
            ".raw {}",
            hex(bytes.get(e.offset..).unwrap_or_default())
        );
    }
    if softhal_wire::text::assemble_with(&listing, opts)
        .ok()
        .as_deref()
        == Some(bytes)
    {
        return listing;
    }
    if bytes.is_empty() {
        String::new()
    } else {
        format!(".raw {}\n", hex(bytes))
    }
}

fn write_expect(out: &mut String, r: &Record) {
    let Some(a) = r.answer() else { return };
    let _ = write!(out, "expect ddrval={}", codes::format_hresult(a.ddrval));
    match r {
        Record::DrawPrimitives2 { .. } => {
            let _ = write!(
                out,
                " error_offset={} flags={}",
                a.error_offset,
                fmt_dp2_flags(a.flags)
            );
            if let Some(rs) = &a.rstates {
                let _ = write!(out, " rstates={}", fmt_rstates(rs));
            }
        }
        Record::ValidateTextureStageState { .. } => {
            let _ = write!(out, " passes={}", a.passes);
        }
        Record::Flip { .. } | Record::Present { .. } => {
            let _ = write!(out, " checksum={:#018x}", a.checksum);
        }
        Record::Submit { .. } => {
            let _ = write!(
                out,
                " command_buffer_size={} allocation_list_size={} patch_list_size={} queued={}",
                a.sizes[0], a.sizes[1], a.sizes[2], a.queued
            );
        }
        _ => {}
    }
    out.push('\n');
}

/// The text keyword of an engine code.
fn engine_word(code: u32) -> String {
    match code {
        0 => "3d".to_string(),
        1 => "copy".to_string(),
        n => n.to_string(),
    }
}

/// Command bytes per `commands hex:` line in the canonical form.
const COMMAND_LINE_BYTES: usize = 64;

/// The packets of a submission's command bytes, decoded, as comment lines
/// (`# offset: PACKET field=value …`) for people to read; the `commands
/// hex:` lines after them stay the canonical form. Decoding covers
/// CommandOffset to CommandLength and stops at the first packet that cannot be decoded
/// (printed as `# offset: error`).
fn write_packets(out: &mut String, c: &SubmitCall) {
    let start = c.command_offset as usize;
    let bytes = c
        .command_bytes
        .get(..c.command_length as usize)
        .unwrap_or(&c.command_bytes);
    if !bytes.len().is_multiple_of(4) || !start.is_multiple_of(4) || start > bytes.len() {
        return;
    }
    for p in softhal_submit::packet::decode_all(bytes, start) {
        let _ = match p {
            Ok((at, p)) => writeln!(out, "  # {at}: {p}"),
            Err(e) => writeln!(out, "  # {e}"),
        };
    }
}

fn write_submit(out: &mut String, c: &SubmitCall) {
    let _ = write!(
        out,
        "submit context={:#x} flags={:#x} command_offset={} req_command_buffer_size={} req_allocation_list_size={} req_patch_list_size={}",
        c.context,
        c.flags,
        c.command_offset,
        c.req_command_buffer_size,
        c.req_allocation_list_size,
        c.req_patch_list_size
    );
    if c.command_length as usize != c.command_bytes.len() {
        let _ = write!(out, " command_length={}", c.command_length);
    }
    if c.num_allocations as usize != c.allocations.len() {
        let _ = write!(out, " num_allocations={}", c.num_allocations);
    }
    if c.num_patch_locations as usize != c.patches.len() {
        let _ = write!(out, " num_patch_locations={}", c.num_patch_locations);
    }
    out.push('\n');
    write_packets(out, c);
    for chunk in c.command_bytes.chunks(COMMAND_LINE_BYTES) {
        let _ = writeln!(out, "  commands {}", hex(chunk));
    }
    for a in &c.allocations {
        let _ = writeln!(
            out,
            "  allocation {:#x} surface={:#x} value={:#x}",
            a.handle, a.surface, a.value
        );
    }
    for p in &c.patches {
        let _ = write!(
            out,
            "  patch index={} offset={}",
            p.allocation_index, p.patch_offset
        );
        for (k, v) in [
            ("slot", p.slot_id),
            ("driver", p.driver_id),
            ("allocation_offset", p.allocation_offset),
            ("split", p.split_offset),
        ] {
            if v != 0 {
                let _ = write!(out, " {k}={v:#x}");
            }
        }
        out.push('\n');
    }
    out.push_str(".end\n");
}

/// Writes one record (and its `expect` line).
pub fn write_record(out: &mut String, r: &Record) {
    match r {
        Record::CreateSurface {
            handle, spec, init, ..
        } => {
            let k = spec.kind_code();
            let _ = write!(out, "surface {handle:#x} ");
            match k {
                Some(k) => {
                    out.push_str(k.keyword());
                    if spec.render_target_usage() {
                        out.push_str(" usage=render_target");
                    }
                }
                None => {
                    let _ = write!(out, "kind={}", spec.kind);
                }
            }
            let buffer = k.is_some_and(SurfaceKindCode::is_buffer);
            if !buffer || spec.format != 0 {
                let _ = write!(out, " format={}", fmt_format(spec.format));
            }
            if buffer {
                let _ = write!(out, " size={}", spec.width);
            } else {
                let _ = write!(out, " width={}", spec.width);
            }
            for (n, v) in [
                ("height", spec.height),
                ("depth", spec.depth),
                ("levels", spec.mip_levels),
            ] {
                if v != 1 {
                    let _ = write!(out, " {n}={v}");
                }
            }
            if !init.is_empty() {
                let _ = write!(out, " data={}", hex(init));
            }
            out.push('\n');
        }
        Record::DestroySurface { handle, .. } => {
            let _ = writeln!(out, "destroy {handle:#x}");
        }
        Record::Lock {
            handle,
            api,
            face,
            level,
            flags,
            ..
        } => {
            let api = match api {
                LockApi::Lock => "lock",
                LockApi::LockLevel => "lock_level",
            };
            let _ = writeln!(
                out,
                "lock {handle:#x} api={api} face={face} level={level} flags={flags:#x}"
            );
        }
        Record::Unlock {
            handle,
            face,
            level,
            offset,
            bytes,
            ..
        } => {
            let _ = writeln!(
                out,
                "unlock {handle:#x} face={face} level={level} offset={offset} data={}",
                hex(bytes)
            );
        }
        Record::ContextCreate {
            handle,
            render_target,
            depth,
            ..
        } => {
            let _ = writeln!(
                out,
                "context {handle:#x} target={render_target:#x} depth={depth:#x}"
            );
        }
        Record::AttachedSurface {
            handle,
            texture,
            face,
            level,
            ..
        } => {
            let _ = writeln!(
                out,
                "attached {handle:#x} texture={texture:#x} face={face} level={level}"
            );
        }
        Record::ContextDestroy { handle, .. } => {
            let _ = writeln!(out, "context_destroy {handle:#x}");
        }
        Record::DrawPrimitives2 { call: c, .. } => {
            let _ = write!(
                out,
                "dp2 context={:#x} commands={:#x} command_offset={} fvf={} flags={} vertex_surface={:#x} vertex_offset={} vertex_length={} req_vertex_buf_size={} req_command_buf_size={} vertex_size={}",
                c.context,
                c.commands,
                c.command_offset,
                names::format_fvf(c.vertex_type),
                fmt_dp2_flags(c.flags),
                c.vertex_surface,
                c.vertex_offset,
                c.vertex_length,
                c.req_vertex_buf_size,
                c.req_command_buf_size,
                c.vertex_size
            );
            if c.command_length as usize != c.command_bytes.len() {
                let _ = write!(out, " command_length={}", c.command_length);
            }
            if let Some(rs) = &c.rstates {
                let _ = write!(out, " rstates={}", fmt_rstates(rs));
            }
            out.push('\n');
            for line in exact_listing(&c.command_bytes, call_options(c)).lines() {
                let _ = writeln!(out, "  {line}");
            }
            if let Some(v) = &c.user_vertices {
                match vertex::row_layout(c.vertex_type, v) {
                    Some(l) if !v.is_empty() => {
                        out.push_str(".vertices\n");
                        vertex::format_rows(&l, v, "  ", out);
                    }
                    _ => {
                        let _ = writeln!(out, ".vertices {}", hex(v));
                    }
                }
            }
            out.push_str(".end\n");
        }
        Record::Clear2 { call: c, .. } => {
            let rects: Vec<String> = c
                .rects
                .iter()
                .map(|r| format!("{} {} {} {}", r[0], r[1], r[2], r[3]))
                .collect();
            let _ = writeln!(
                out,
                "clear2 context={:#x} flags={} color=0x{:08X} depth={} stencil={} rects=[{}]",
                c.context,
                names::format_value(ValueKind::Flags(&names::CLEAR_FLAGS), c.flags),
                c.color,
                names::format_float_bits(c.depth_bits),
                c.stencil,
                rects.join("  ")
            );
        }
        Record::ValidateTextureStageState {
            context,
            flags,
            reserved,
            ..
        } => {
            let _ = writeln!(
                out,
                "validate_tss context={context:#x} flags={flags:#x} reserved={reserved:#x}"
            );
        }
        Record::Flip { handle, .. } => {
            let _ = writeln!(out, "flip {handle:#x}");
        }
        Record::CompleteFlips => out.push_str("complete_flips\n"),
        Record::Present { handle, .. } => {
            let _ = writeln!(out, "present {handle:#x}");
        }
        Record::CompleteWork => out.push_str("complete_work\n"),
        Record::Submit { call, .. } => write_submit(out, call),
        Record::RenderContextCreate { handle, engine, .. } => {
            let _ = writeln!(
                out,
                "render_context {handle:#x} engine={}",
                engine_word(*engine)
            );
        }
        Record::RenderContextDestroy { handle, .. } => {
            let _ = writeln!(out, "render_context_destroy {handle:#x}");
        }
        Record::SetColorKey {
            handle,
            enable,
            low,
            high,
            ..
        } => {
            let _ = writeln!(
                out,
                "color_key {handle:#x} enable={enable} low={low:#x} high={high:#x}"
            );
        }
        Record::DxVersion { version } => {
            let _ = writeln!(out, "dx_version {version:#x}");
        }
    }
    write_expect(out, r);
}

/// The canonical text form of a capture.
pub fn to_text(c: &Capture) -> String {
    let mut out = format!("{DIRECTIVE} {}\n", crate::binary::VERSION);
    for r in &c.records {
        write_record(&mut out, r);
    }
    out
}
