//! Walking a DP2 command stream.
//!
//! In: the command bytes (exactly `dwCommandLength` bytes starting at
//! `dwCommandOffset`), the vertex stride of `dwVertexType` (needed only by the
//! two `_IMM` opcodes) and the address alignment of the first byte (the
//! `_IMM` alignment step is computed on the absolute address).
//! Out: an iterator of [`Dp2Command`]s, each with its byte offset, header,
//! exact byte extent and typed [`Command`].
//! Guarantees: never panics, never reads outside the slice, allocates
//! nothing, does all size arithmetic checked. The first command that cannot
//! be parsed yields a [`DecodeError`] carrying its offset, and iteration
//! ends. An unknown opcode is yielded as [`Command::Unknown`] and iteration
//! pauses until [`Decoder::resume_at`] says where the next command starts.

use crate::command::*;
use crate::error::{DecodeError, DecodeErrorKind};
use crate::structs::*;
use crate::Opcode;

/// What the decoder needs to know besides the bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Size in bytes of one vertex of `dwVertexType` (0 if unknown; the
    /// `_IMM` opcodes then fail with [`DecodeErrorKind::NoVertexStride`]).
    pub vertex_stride: u32,
    /// The absolute address of byte 0 of the slice, modulo 4 (only its low
    /// two bits matter). The `_IMM` opcodes align their inline vertices to a
    /// DWORD boundary of the absolute address.
    pub base_align: usize,
}

/// One decoded command and where it sits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dp2Command<'a> {
    /// Byte offset of the header in the decoded slice.
    pub offset: usize,
    /// The raw header.
    pub header: Dp2CommandHeader,
    /// Bytes from the header to the next command (for
    /// [`Command::Unknown`]: 4, the header alone).
    pub size: usize,
    /// The typed command.
    pub command: Command<'a>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Running,
    /// Paused on an unknown opcode at this offset.
    Paused(usize),
    Done,
}

/// Iterator over the commands of one DP2 stream. See the module docs.
#[derive(Debug, Clone)]
pub struct Decoder<'a> {
    bytes: &'a [u8],
    pos: usize,
    opts: DecodeOptions,
    state: State,
}

impl<'a> Decoder<'a> {
    /// A decoder over `bytes`.
    pub fn new(bytes: &'a [u8], opts: DecodeOptions) -> Self {
        Decoder {
            bytes,
            pos: 0,
            opts,
            state: State::Running,
        }
    }

    /// Offset of the next command to decode.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Continues after an unknown opcode at the offset a
    /// `D3dParseUnknownCommand` host returned. The target must lie after the
    /// unknown command's header start and within the stream (the end of the
    /// stream is allowed and ends the walk).
    pub fn resume_at(&mut self, target: usize) -> Result<(), DecodeError> {
        let current = match self.state {
            State::Paused(at) => at,
            _ => self.pos,
        };
        if target <= current || target > self.bytes.len() {
            self.state = State::Done;
            return Err(DecodeError {
                offset: current,
                opcode: self.bytes.get(current).copied(),
                kind: DecodeErrorKind::BadResume {
                    target,
                    current,
                    len: self.bytes.len(),
                },
            });
        }
        self.pos = target;
        self.state = State::Running;
        Ok(())
    }
}

impl<'a> Iterator for Decoder<'a> {
    type Item = Result<Dp2Command<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.state != State::Running || self.pos >= self.bytes.len() {
            return None;
        }
        match decode_at(self.bytes, self.pos, self.opts) {
            Ok(cmd) => {
                if matches!(cmd.command, Command::Unknown { .. }) {
                    self.state = State::Paused(self.pos);
                } else {
                    // cmd.size never exceeds the bytes left after pos; were
                    // it to, a saturated pos ends the walk.
                    self.pos = self.pos.saturating_add(cmd.size);
                }
                Some(Ok(cmd))
            }
            Err(e) => {
                self.state = State::Done;
                Some(Err(e))
            }
        }
    }
}

/// Decodes every command of a stream that must parse completely (no
/// unknown opcodes allowed). Convenience for tools and tests.
pub fn decode_all(bytes: &[u8], opts: DecodeOptions) -> Result<Vec<Dp2Command<'_>>, DecodeError> {
    let mut out = Vec::new();
    for item in Decoder::new(bytes, opts) {
        let cmd = item?;
        if let Command::Unknown { opcode } = cmd.command {
            return Err(DecodeError {
                offset: cmd.offset,
                opcode: Some(opcode),
                kind: DecodeErrorKind::UnknownOpcode { opcode },
            });
        }
        out.push(cmd);
    }
    Ok(out)
}

/// Where the inline vertices of an `_IMM` command start: the first DWORD
/// boundary (of the absolute address) at or after `at`; `None` if that
/// offset does not fit a `usize`.
pub fn imm_data_offset(at: usize, base_align: usize) -> Option<usize> {
    // Addresses and the padding are taken modulo 4.
    let misalign = (base_align.wrapping_add(at)) & 3;
    at.checked_add(misalign.wrapping_neg() & 3)
}

fn truncated(needed: u64, available: usize) -> DecodeErrorKind {
    DecodeErrorKind::TruncatedPayload { needed, available }
}

/// `n` records of `T` at the front of the payload.
fn recs<T: Dp2Struct>(payload: &[u8], n: usize) -> Result<(&[T], usize), DecodeErrorKind> {
    // n is at most 65535 records of at most a few hundred bytes.
    let needed = (n as u64).saturating_mul(T::SIZE as u64);
    let (s, _) = view_slice::<T>(payload, n).ok_or_else(|| truncated(needed, payload.len()))?;
    Ok((s, core::mem::size_of_val(s)))
}

/// One `T` at `at` in the payload.
fn one<T: Dp2Struct>(payload: &[u8], at: usize, needed: u64) -> Result<&T, DecodeErrorKind> {
    payload
        .get(at..)
        .and_then(|p| view::<T>(p))
        .map(|(t, _)| t)
        .ok_or_else(|| truncated(needed, payload.len()))
}

fn records<'a, R: VarRecord<'a>>(
    payload: &'a [u8],
    n: u16,
) -> Result<(Records<'a, R>, usize), DecodeErrorKind> {
    Records::parse(payload, n).map_err(|e| match e {
        RecordError::Need(needed) => truncated(needed, payload.len()),
        RecordError::Overflow(what) => DecodeErrorKind::CountOverflow { what },
    })
}

/// A start vertex followed by `n_idx` WORD indices.
fn start_and_indices(
    payload: &[u8],
    n_idx: usize,
) -> Result<(&Dp2StartVertex, &[Dp2Index], usize), DecodeErrorKind> {
    let needed = (n_idx as u64).saturating_mul(2).saturating_add(2);
    let start = one::<Dp2StartVertex>(payload, 0, needed)?;
    let rest = payload.get(2..).unwrap_or_default();
    let (idx, _) =
        view_slice::<Dp2Index>(rest, n_idx).ok_or_else(|| truncated(needed, payload.len()))?;
    Ok((start, idx, after_start(core::mem::size_of_val(idx), 2)?))
}

/// `len` bytes after a fixed part of `fixed` bytes (a payload length).
fn after_start(len: usize, fixed: usize) -> Result<usize, DecodeErrorKind> {
    len.checked_add(fixed)
        .ok_or(DecodeErrorKind::CountOverflow {
            what: "payload length",
        })
}

/// Decodes the command whose header is at `off`.
pub fn decode_at(
    bytes: &[u8],
    off: usize,
    opts: DecodeOptions,
) -> Result<Dp2Command<'_>, DecodeError> {
    let rest = bytes.get(off..).unwrap_or_default();
    let Some((header, payload)) = view::<Dp2CommandHeader>(rest) else {
        return Err(DecodeError {
            offset: off,
            opcode: rest.first().copied(),
            kind: DecodeErrorKind::TruncatedHeader {
                available: rest.len(),
            },
        });
    };
    let op = header.command;
    let n16 = header.count.get();
    let n = usize::from(n16);
    let wrap = |kind| DecodeError {
        offset: off,
        opcode: Some(op),
        kind,
    };
    let (command, payload_len) =
        decode_payload(op, n16, n, payload, off, bytes.len(), opts).map_err(wrap)?;
    let size = after_start(payload_len, 4).map_err(wrap)?;
    Ok(Dp2Command {
        offset: off,
        header: *header,
        size,
        command,
    })
}

#[allow(clippy::too_many_lines)]
fn decode_payload<'a>(
    op: u8,
    n16: u16,
    n: usize,
    payload: &'a [u8],
    off: usize,
    stream_len: usize,
    opts: DecodeOptions,
) -> Result<(Command<'a>, usize), DecodeErrorKind> {
    use Command as C;
    let Some(opcode) = Opcode::from_raw(op) else {
        return Ok((C::Unknown { opcode: op }, 0));
    };
    macro_rules! fixed {
        ($variant:ident) => {{
            let (s, len) = recs(payload, n)?;
            (C::$variant(s), len)
        }};
    }
    macro_rules! var {
        ($variant:ident) => {{
            let (r, len) = records(payload, n16)?;
            (C::$variant(r), len)
        }};
    }
    // n ≤ 65535: the index and vertex counts below cannot overflow.
    let count_plus = |k: usize| {
        n.checked_add(k).ok_or(DecodeErrorKind::CountOverflow {
            what: "index count",
        })
    };
    macro_rules! single_start {
        ($variant:ident) => {{
            let start = one::<Dp2LineList>(payload, 0, 2)?;
            (C::$variant { count: n16, start }, 2)
        }};
    }
    Ok(match opcode {
        Opcode::Points => fixed!(Points),
        Opcode::IndexedLineList => fixed!(IndexedLineList),
        Opcode::IndexedTriangleList => fixed!(IndexedTriangleList),
        Opcode::Reserved0 => (C::Reserved0 { count: n16 }, 0),
        Opcode::RenderState => fixed!(RenderState),
        Opcode::LineList => single_start!(LineList),
        Opcode::LineStrip => single_start!(LineStrip),
        Opcode::TriangleList => single_start!(TriangleList),
        Opcode::TriangleStrip => single_start!(TriangleStrip),
        Opcode::TriangleFan => single_start!(TriangleFan),
        Opcode::IndexedLineStrip => {
            let (start, indices, len) = start_and_indices(payload, count_plus(1)?)?;
            (
                C::IndexedLineStrip {
                    count: n16,
                    start,
                    indices,
                },
                len,
            )
        }
        Opcode::IndexedTriangleStrip => {
            let (start, indices, len) = start_and_indices(payload, count_plus(2)?)?;
            (
                C::IndexedTriangleStrip {
                    count: n16,
                    start,
                    indices,
                },
                len,
            )
        }
        Opcode::IndexedTriangleFan => {
            let (start, indices, len) = start_and_indices(payload, count_plus(2)?)?;
            (
                C::IndexedTriangleFan {
                    count: n16,
                    start,
                    indices,
                },
                len,
            )
        }
        Opcode::TriangleFanImm => {
            let edge_flags = one::<Dp2TriangleFanImm>(payload, 0, 4)?;
            let (vertices, len) =
                imm_vertices(payload, off, 8, count_plus(2)? as u64, stream_len, opts)?;
            (
                C::TriangleFanImm {
                    count: n16,
                    edge_flags,
                    vertices,
                },
                len,
            )
        }
        Opcode::LineListImm => {
            let vertex_count = (n as u64)
                .checked_mul(2)
                .ok_or(DecodeErrorKind::CountOverflow {
                    what: "inline vertex count",
                })?;
            let (vertices, len) = imm_vertices(payload, off, 4, vertex_count, stream_len, opts)?;
            (
                C::LineListImm {
                    count: n16,
                    vertices,
                },
                len,
            )
        }
        Opcode::TextureStageState => fixed!(TextureStageState),
        Opcode::IndexedTriangleList2 => {
            let needed = (n as u64).saturating_mul(6).saturating_add(2);
            let start = one::<Dp2StartVertex>(payload, 0, needed)?;
            let (triangles, len) = recs(payload.get(2..).unwrap_or_default(), n)
                .map_err(|_| truncated(needed, payload.len()))?;
            (
                C::IndexedTriangleList2 { start, triangles },
                after_start(len, 2)?,
            )
        }
        Opcode::IndexedLineList2 => {
            let needed = (n as u64).saturating_mul(4).saturating_add(2);
            let start = one::<Dp2StartVertex>(payload, 0, needed)?;
            let (lines, len) = recs(payload.get(2..).unwrap_or_default(), n)
                .map_err(|_| truncated(needed, payload.len()))?;
            (C::IndexedLineList2 { start, lines }, after_start(len, 2)?)
        }
        Opcode::ViewportInfo => fixed!(ViewportInfo),
        Opcode::WInfo => fixed!(WInfo),
        Opcode::SetPalette => fixed!(SetPalette),
        Opcode::UpdatePalette => {
            let update = one::<Dp2UpdatePalette>(payload, 0, 8)?;
            let k = usize::from(update.num_entries.get());
            let needed = (k as u64).saturating_mul(4).saturating_add(8);
            let (entries, len) = recs(payload.get(8..).unwrap_or_default(), k)
                .map_err(|_| truncated(needed, payload.len()))?;
            (
                C::UpdatePalette {
                    count: n16,
                    update,
                    entries,
                },
                after_start(len, 8)?,
            )
        }
        Opcode::ZRange => fixed!(ZRange),
        Opcode::SetMaterial => fixed!(SetMaterial),
        Opcode::SetLight => var!(SetLight),
        Opcode::CreateLight => fixed!(CreateLight),
        Opcode::SetTransform => fixed!(SetTransform),
        Opcode::Ext => fixed!(Ext),
        Opcode::TexBlt => fixed!(TexBlt),
        Opcode::StateSet => fixed!(StateSet),
        Opcode::SetPriority => fixed!(SetPriority),
        Opcode::SetRenderTarget => fixed!(SetRenderTarget),
        Opcode::Clear => {
            // 16-byte head + max(N, 1) RECT slots (N = 0 still carries one).
            let slots = n.max(1);
            let needed = (slots as u64).saturating_mul(16).saturating_add(16);
            let clear = one::<Dp2Clear>(payload, 0, needed)?;
            let (all, len) = recs::<Rect>(payload.get(16..).unwrap_or_default(), slots)
                .map_err(|_| truncated(needed, payload.len()))?;
            let rects = all.get(..n).unwrap_or_default();
            (C::Clear { clear, rects }, after_start(len, 16)?)
        }
        Opcode::SetTexLod => fixed!(SetTexLod),
        Opcode::SetClipPlane => fixed!(SetClipPlane),
        Opcode::CreateVertexShader => var!(CreateVertexShader),
        Opcode::DeleteVertexShader => fixed!(DeleteVertexShader),
        Opcode::SetVertexShader => fixed!(SetVertexShader),
        Opcode::SetVertexShaderConst => var!(SetVertexShaderConst),
        Opcode::SetStreamSource => fixed!(SetStreamSource),
        Opcode::SetStreamSourceUm => fixed!(SetStreamSourceUm),
        Opcode::SetIndices => fixed!(SetIndices),
        Opcode::DrawPrimitive => fixed!(DrawPrimitive),
        Opcode::DrawIndexedPrimitive => fixed!(DrawIndexedPrimitive),
        Opcode::CreatePixelShader => var!(CreatePixelShader),
        Opcode::DeletePixelShader => fixed!(DeletePixelShader),
        Opcode::SetPixelShader => fixed!(SetPixelShader),
        Opcode::SetPixelShaderConst => var!(SetPixelShaderConst),
        Opcode::ClippedTriangleFan => fixed!(ClippedTriangleFan),
        Opcode::DrawPrimitive2 => fixed!(DrawPrimitive2),
        Opcode::DrawIndexedPrimitive2 => fixed!(DrawIndexedPrimitive2),
        Opcode::DrawRectPatch => var!(DrawRectPatch),
        Opcode::DrawTriPatch => var!(DrawTriPatch),
        Opcode::VolumeBlt => fixed!(VolumeBlt),
        Opcode::BufferBlt => fixed!(BufferBlt),
        Opcode::MultiplyTransform => fixed!(MultiplyTransform),
        Opcode::AddDirtyRect => fixed!(AddDirtyRect),
        Opcode::AddDirtyBox => fixed!(AddDirtyBox),
        Opcode::CreateVertexShaderDecl => var!(CreateVertexShaderDecl),
        Opcode::DeleteVertexShaderDecl => fixed!(DeleteVertexShaderDecl),
        Opcode::SetVertexShaderDecl => fixed!(SetVertexShaderDecl),
        Opcode::CreateVertexShaderFunc => var!(CreateVertexShaderFunc),
        Opcode::DeleteVertexShaderFunc => fixed!(DeleteVertexShaderFunc),
        Opcode::SetVertexShaderFunc => fixed!(SetVertexShaderFunc),
        Opcode::SetVertexShaderConstI => var!(SetVertexShaderConstI),
        Opcode::SetScissorRect => fixed!(SetScissorRect),
        Opcode::SetStreamSource2 => fixed!(SetStreamSource2),
        Opcode::Blt => fixed!(Blt),
        Opcode::ColorFill => fixed!(ColorFill),
        Opcode::SetVertexShaderConstB => var!(SetVertexShaderConstB),
        Opcode::CreateQuery => fixed!(CreateQuery),
        Opcode::SetRenderTarget2 => fixed!(SetRenderTarget2),
        Opcode::SetDepthStencil => fixed!(SetDepthStencil),
        Opcode::ResponseContinue => {
            let (_, payload_len, body) = response_body(payload)?;
            (
                C::ResponseContinue {
                    count: n16,
                    extra: body,
                },
                payload_len,
            )
        }
        Opcode::ResponseQuery => {
            let (total_u32, payload_len, body) = response_body(payload)?;
            let (entries, used) =
                Records::<ResponseEntry>::parse(body, n16).map_err(|e| match e {
                    RecordError::Need(need) => DecodeErrorKind::BadResponseSize {
                        total_size: total_u32,
                        needed: need.saturating_add(8),
                    },
                    RecordError::Overflow(what) => DecodeErrorKind::CountOverflow { what },
                })?;
            if used != body.len() {
                return Err(DecodeErrorKind::BadResponseSize {
                    total_size: total_u32,
                    needed: (used as u64).saturating_add(8),
                });
            }
            (C::ResponseQuery(entries), payload_len)
        }
        Opcode::GenerateMipSubLevels => fixed!(GenerateMipSubLevels),
        Opcode::DeleteQuery => fixed!(DeleteQuery),
        Opcode::IssueQuery => fixed!(IssueQuery),
        Opcode::SetPixelShaderConstI => var!(SetPixelShaderConstI),
        Opcode::SetPixelShaderConstB => var!(SetPixelShaderConstB),
        Opcode::SetStreamSourceFreq => fixed!(SetStreamSourceFreq),
        Opcode::SurfaceBlt => fixed!(SurfaceBlt),
        Opcode::SetConvolutionKernelMono => var!(SetConvolutionKernelMono),
        Opcode::ComposeRects => fixed!(ComposeRects),
    })
}

/// A response record: `dwTotalSize` (≥ 8, counted from the header), the
/// payload length it implies (`dwTotalSize` − 4) and the bytes after the
/// 8-byte record head that it covers.
fn response_body(payload: &[u8]) -> Result<(u32, usize, &[u8]), DecodeErrorKind> {
    let tail = one::<Dp2ResponseTail>(payload, 0, 4)?;
    let total = tail.total_size.get();
    let too_small = DecodeErrorKind::BadResponseSize {
        total_size: total,
        needed: 8,
    };
    if total < 8 {
        return Err(too_small);
    }
    // total ≥ 8, so the subtraction cannot fail.
    let payload_len = total.checked_sub(4).ok_or(too_small)?;
    let payload_usize = usize::try_from(payload_len)
        .map_err(|_| truncated(u64::from(payload_len), payload.len()))?;
    let body = payload
        .get(4..payload_usize)
        .ok_or_else(|| truncated(u64::from(payload_len), payload.len()))?;
    Ok((total, payload_usize, body))
}

/// Inline vertices of an `_IMM` command: the fixed part ends `fixed_end`
/// bytes after the header; the vertices start at the next absolute DWORD
/// boundary and occupy `vertex_count × stride` bytes.
fn imm_vertices(
    payload: &[u8],
    off: usize,
    fixed_end: usize,
    vertex_count: u64,
    stream_len: usize,
    opts: DecodeOptions,
) -> Result<(&[u8], usize), DecodeErrorKind> {
    let stride = u64::from(opts.vertex_stride);
    if stride == 0 && vertex_count > 0 {
        return Err(DecodeErrorKind::NoVertexStride);
    }
    let needed = vertex_count
        .checked_mul(stride)
        .ok_or(DecodeErrorKind::CountOverflow {
            what: "inline vertex bytes",
        })?;
    let overflow = DecodeErrorKind::CountOverflow {
        what: "inline vertex offset",
    };
    let data_offset = off
        .checked_add(fixed_end)
        .and_then(|at| imm_data_offset(at, opts.base_align))
        .ok_or(overflow.clone())?;
    // Offset of the vertices within the payload (the payload starts at off +
    // 4; data_offset ≥ off + fixed_end ≥ off + 4).
    let in_payload = data_offset
        .checked_sub(off)
        .and_then(|d| d.checked_sub(4))
        .ok_or(overflow)?;
    let past_end = || DecodeErrorKind::ImmDataPastEnd {
        data_offset,
        needed,
        available: stream_len.saturating_sub(data_offset),
    };
    let len = usize::try_from(needed).map_err(|_| past_end())?;
    let end = in_payload.checked_add(len).ok_or_else(past_end)?;
    let vertices = payload.get(in_payload..end).ok_or_else(past_end)?;
    Ok((vertices, end))
}
