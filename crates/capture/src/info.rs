//! Summaries of captures (`softhal info`).
//!
//! In: a loaded [`Capture`]. Out: [`Summary`]: records per kind, DP2 calls,
//! commands per opcode (DDK names), surfaces by kind, bytes of command and
//! vertex data, the shaders the capture creates (handle, kind, version,
//! instruction count, whether they validate; a DX8 shader's declaration
//! elements), and the recorded answers
//! that were errors. Guarantee: only decodes and validates (bounded by the
//! capture's own bytes), never renders.

use crate::record::*;
use crate::replay::call_options;
use softhal_wire::command::CodeHead;
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

/// A shader a capture creates (CREATEVERTEXSHADER, CREATEVERTEXSHADERFUNC
/// or CREATEPIXELSHADER).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShaderSummary {
    /// Record index of the DrawPrimitives2 call.
    pub record: usize,
    /// The creating command.
    pub opcode: Opcode,
    /// `dwHandle`.
    pub handle: u32,
    /// `vertex` or `pixel`, from the creating command.
    pub kind: &'static str,
    /// The version named by the first token (`vs_2_0`), if it names one.
    pub version: Option<&'static str>,
    /// Instructions other than declarations and definitions, if the tokens
    /// parse.
    pub instructions: Option<usize>,
    /// Why the driver would refuse it (the shader crate's error), or
    /// `None` when it validates.
    pub error: Option<String>,
    /// CREATEVERTEXSHADER: its DirectX 8 declaration.
    pub declaration: Option<DeclarationSummary>,
}

/// A DX8 shader's declaration (the `D3DVSD_*` tokens of
/// CREATEVERTEXSHADER).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclarationSummary {
    /// The `D3DVSD_REG` elements (stream, offset, type, register), when
    /// the declaration decodes.
    pub elements: Vec<softhal_shader::decl8::Element>,
    /// Constant registers `D3DVSD_CONST` loads.
    pub constants: usize,
    /// Why the declaration does not decode (the shader crate's error), or
    /// `None`.
    pub error: Option<String>,
}

impl DeclarationSummary {
    fn of(decl: &[u8]) -> DeclarationSummary {
        let parsed = softhal_shader::tokens_from_le_bytes(decl)
            .ok_or_else(|| "size is not a multiple of 4".to_string())
            .and_then(|t| softhal_shader::decl8::parse(&t).map_err(|e| e.to_string()));
        match parsed {
            Ok(d) => DeclarationSummary {
                elements: d.elements,
                constants: d.constants.len(),
                error: None,
            },
            Err(e) => DeclarationSummary {
                elements: Vec::new(),
                constants: 0,
                error: Some(e),
            },
        }
    }
}

impl ShaderSummary {
    fn of(record: usize, opcode: Opcode, handle: u32, code: &[u8]) -> ShaderSummary {
        let kind = if opcode == Opcode::CreatePixelShader {
            "pixel"
        } else {
            "vertex"
        };
        let tokens = softhal_shader::tokens_from_le_bytes(code);
        let version = tokens
            .as_deref()
            .and_then(|t| t.first())
            .and_then(|t| softhal_shader::Profile::from_token(*t))
            .map(softhal_shader::Profile::name);
        let (instructions, error) = match tokens.as_deref().map(softhal_shader::parse) {
            None => (None, Some("size is not a multiple of 4".to_string())),
            Some(Err(e)) => (None, Some(e.to_string())),
            Some(Ok(shader)) => {
                let n = shader
                    .instructions
                    .iter()
                    .filter(|i| !i.opcode.is_declaration())
                    .count();
                let error = softhal_shader::validate(shader)
                    .err()
                    .map(|e| e.to_string());
                (Some(n), error)
            }
        };
        ShaderSummary {
            record,
            opcode,
            handle,
            kind,
            version,
            instructions,
            error,
            declaration: None,
        }
    }
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
    /// The shaders created, in the order of their commands.
    pub shaders: Vec<ShaderSummary>,
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
                            shaders_of(i, &cmd.command, &mut s.shaders);
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

/// The shaders one DP2 command creates.
fn shaders_of(record: usize, cmd: &Command<'_>, out: &mut Vec<ShaderSummary>) {
    match cmd {
        Command::CreateVertexShader(r) => out.extend(r.iter().map(|rec| ShaderSummary {
            declaration: Some(DeclarationSummary::of(rec.decl)),
            ..ShaderSummary::of(
                record,
                Opcode::CreateVertexShader,
                rec.head.handle.get(),
                rec.code,
            )
        })),
        Command::CreateVertexShaderFunc(r) => out.extend(r.iter().map(|rec| {
            ShaderSummary::of(
                record,
                Opcode::CreateVertexShaderFunc,
                rec.head.handle(),
                rec.code,
            )
        })),
        Command::CreatePixelShader(r) => out.extend(r.iter().map(|rec| {
            ShaderSummary::of(
                record,
                Opcode::CreatePixelShader,
                rec.head.handle(),
                rec.code,
            )
        })),
        _ => {}
    }
}
