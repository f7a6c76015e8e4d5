//! Summaries of captures (`softhal info`).
//!
//! In: a loaded [`Capture`]. Out: [`Summary`]: records per kind, DP2 calls,
//! commands per opcode (DDK names), surfaces by kind, bytes of command and
//! vertex data, and the recorded answers that were errors. Guarantee: only
//! decodes (bounded by the capture's own bytes), never renders.

use crate::record::*;
use crate::replay::call_options;
use softhal_wire::names::codes;
use softhal_wire::{Command, Decoder, Opcode};
use std::collections::BTreeMap;

/// A recorded answer that was not `D3D_OK`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedError {
    /// Record index.
    pub record: usize,
    /// Record name.
    pub call: &'static str,
    /// `ddrval`.
    pub ddrval: u32,
    /// `dwErrorOffset` (DrawPrimitives2; 0 otherwise).
    pub error_offset: u32,
}

/// A command stream that does not decode (as the wire layer sees it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MalformedStream {
    /// Record index.
    pub record: usize,
    /// Offset in the command surface (including `dwCommandOffset`).
    pub offset: u64,
    /// The decoder's message.
    pub message: String,
}

/// What a capture holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Records (excluding the END record).
    pub records: usize,
    /// Records per kind (text-form keyword).
    pub calls: BTreeMap<&'static str, u64>,
    /// Surfaces created, per kind keyword.
    pub surfaces: BTreeMap<&'static str, u64>,
    /// DP2 commands per opcode (`D3DDP2OP_` names; unknown opcodes as
    /// `opcode N`).
    pub commands: BTreeMap<String, u64>,
    /// Total command bytes.
    pub command_bytes: u64,
    /// Total user-memory vertex bytes.
    pub vertex_bytes: u64,
    /// Frames presented (Flip + Present).
    pub frames: u64,
    /// Records with a recorded answer.
    pub answers: u64,
    /// Recorded answers that are errors.
    pub errors: Vec<RecordedError>,
    /// Command streams that do not decode.
    pub malformed: Vec<MalformedStream>,
}

/// Summarizes a capture.
pub fn summarize(c: &Capture) -> Summary {
    let mut s = Summary {
        records: c.records.len(),
        ..Summary::default()
    };
    for (i, r) in c.records.iter().enumerate() {
        *s.calls.entry(r.name()).or_default() += 1;
        if let Some(a) = r.answer() {
            s.answers += 1;
            if a.ddrval != codes::D3D_OK {
                s.errors.push(RecordedError {
                    record: i,
                    call: r.name(),
                    ddrval: a.ddrval,
                    error_offset: a.error_offset,
                });
            }
        }
        match r {
            Record::CreateSurface { spec, .. } => {
                let k = spec.kind_code().map_or("unknown", |k| k.keyword());
                *s.surfaces.entry(k).or_default() += 1;
            }
            Record::Flip { .. } | Record::Present { .. } => s.frames += 1,
            Record::DrawPrimitives2 { call, .. } => {
                s.command_bytes += call.command_bytes.len() as u64;
                s.vertex_bytes += call.user_vertices.as_ref().map_or(0, |v| v.len() as u64);
                for item in Decoder::new(&call.command_bytes, call_options(call)) {
                    match item {
                        Ok(cmd) => {
                            if let Command::Unknown { opcode } = cmd.command {
                                *s.commands.entry(format!("opcode {opcode}")).or_default() += 1;
                                s.malformed.push(MalformedStream {
                                    record: i,
                                    offset: u64::from(call.command_offset) + cmd.offset as u64,
                                    message: format!("unknown opcode {opcode}"),
                                });
                                break;
                            }
                            let name = Opcode::from_raw(cmd.header.command).map_or_else(
                                || format!("opcode {}", cmd.header.command),
                                |o| o.name().to_string(),
                            );
                            *s.commands.entry(name).or_default() += 1;
                        }
                        Err(e) => {
                            s.malformed.push(MalformedStream {
                                record: i,
                                offset: u64::from(call.command_offset) + e.offset as u64,
                                message: e.to_string(),
                            });
                            break;
                        }
                    }
                }
            }
            _ => {}
        }
    }
    s
}
