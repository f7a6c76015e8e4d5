//! Writing DP2 command streams.
//!
//! In: typed [`Command`]s (or the builder helpers below).
//! Out: the exact bytes a Direct3D runtime would have written: 4-byte
//! header, payload, no padding between commands, the `_IMM` DWORD alignment
//! step computed on the absolute address (zero pad bytes), the unused RECT
//! slot of a `CLEAR` with N = 0 written as zeros, `bReserved` = 0.
//! Guarantees: `decode(encode(x)) == x` for every command, and
//! `encode(decode(bytes)) == bytes` for canonical streams (zero pad bytes,
//! zero `bReserved`, zero unused RECT slot). A command that cannot be encoded
//! (a count over 65535, a record whose declared size disagrees with its data)
//! is an [`EncodeError`] and leaves the stream unchanged.

use crate::command::*;
use crate::decode::{imm_data_offset, DecodeOptions};
use crate::error::EncodeError;
use crate::structs::*;
use crate::Opcode;
use zerocopy::IntoBytes;

/// Builds a DP2 command stream.
#[derive(Debug, Clone, Default)]
pub struct Encoder {
    buf: Vec<u8>,
    opts: DecodeOptions,
}

fn count16(what: &'static str, count: usize) -> Result<u16, EncodeError> {
    u16::try_from(count).map_err(|_| EncodeError::CountTooLarge { what, count })
}

impl Encoder {
    /// An empty stream. `opts` gives the vertex stride for `_IMM` commands
    /// and the alignment of the address the stream will be placed at.
    pub fn new(opts: DecodeOptions) -> Self {
        Encoder {
            buf: Vec::new(),
            opts,
        }
    }

    /// The bytes so far.
    pub fn bytes(&self) -> &[u8] {
        &self.buf
    }

    /// Consumes the encoder, returning the stream.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// Current length (the offset the next command will have).
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Appends raw bytes (for hand-made or deliberately malformed streams).
    pub fn raw(&mut self, bytes: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(bytes);
        self
    }

    /// Appends one command. On error nothing is appended.
    pub fn push(&mut self, cmd: &Command<'_>) -> Result<&mut Self, EncodeError> {
        let mark = self.buf.len();
        match self.push_inner(cmd) {
            Ok(()) => Ok(self),
            Err(e) => {
                self.buf.truncate(mark);
                Err(e)
            }
        }
    }

    fn header(&mut self, op: Opcode, count: u16) {
        self.buf.extend_from_slice(&[op.raw(), 0]);
        self.buf.extend_from_slice(&count.to_le_bytes());
    }

    fn fixed<T: Dp2Struct>(&mut self, op: Opcode, recs: &[T]) -> Result<(), EncodeError> {
        let n = count16(op.name(), recs.len())?;
        self.header(op, n);
        self.buf.extend_from_slice(recs.as_bytes());
        Ok(())
    }

    fn var<'a, R: VarRecord<'a>>(
        &mut self,
        op: Opcode,
        recs: &Records<'a, R>,
    ) -> Result<(), EncodeError> {
        let n = count16(op.name(), recs.len())?;
        self.header(op, n);
        for r in recs.iter() {
            r.encode(&mut self.buf)?;
        }
        Ok(())
    }

    fn imm(&mut self, vertices: &[u8], vertex_count: u64) -> Result<(), EncodeError> {
        let stride = self.opts.vertex_stride;
        let expected_len = vertex_count.checked_mul(u64::from(stride));
        if (stride == 0 && vertex_count > 0) || expected_len != Some(vertices.len() as u64) {
            return Err(EncodeError::BadInlineVertices {
                len: vertices.len(),
                expected: vertex_count,
                stride,
            });
        }
        let at = self.buf.len();
        let aligned =
            imm_data_offset(at, self.opts.base_align).ok_or(EncodeError::LengthTooLarge {
                what: "inline vertex offset",
                len: at,
            })?;
        self.buf.resize(aligned, 0);
        self.buf.extend_from_slice(vertices);
        Ok(())
    }

    fn start_indices(
        &mut self,
        op: Opcode,
        count: u16,
        start: &Dp2StartVertex,
        indices: &[Dp2Index],
        extra: u64,
    ) -> Result<(), EncodeError> {
        if Some(indices.len() as u64) != u64::from(count).checked_add(extra) {
            return Err(EncodeError::Inconsistent(
                "indexed strip/fan: index count must be N+1 (lines) or N+2 (triangles)",
            ));
        }
        self.header(op, count);
        self.buf.extend_from_slice(start.as_bytes());
        self.buf.extend_from_slice(indices.as_bytes());
        Ok(())
    }

    #[allow(clippy::too_many_lines)]
    fn push_inner(&mut self, cmd: &Command<'_>) -> Result<(), EncodeError> {
        use Command as C;
        match *cmd {
            C::Points(r) => self.fixed(Opcode::Points, r),
            C::IndexedLineList(r) => self.fixed(Opcode::IndexedLineList, r),
            C::IndexedTriangleList(r) => self.fixed(Opcode::IndexedTriangleList, r),
            C::Reserved0 { count } => {
                self.header(Opcode::Reserved0, count);
                Ok(())
            }
            C::RenderState(r) => self.fixed(Opcode::RenderState, r),
            C::LineList { count, start } => self.single(Opcode::LineList, count, start),
            C::LineStrip { count, start } => self.single(Opcode::LineStrip, count, start),
            C::TriangleList { count, start } => self.single(Opcode::TriangleList, count, start),
            C::TriangleStrip { count, start } => self.single(Opcode::TriangleStrip, count, start),
            C::TriangleFan { count, start } => self.single(Opcode::TriangleFan, count, start),
            C::IndexedLineStrip {
                count,
                start,
                indices,
            } => self.start_indices(Opcode::IndexedLineStrip, count, start, indices, 1),
            C::IndexedTriangleStrip {
                count,
                start,
                indices,
            } => self.start_indices(Opcode::IndexedTriangleStrip, count, start, indices, 2),
            C::IndexedTriangleFan {
                count,
                start,
                indices,
            } => self.start_indices(Opcode::IndexedTriangleFan, count, start, indices, 2),
            C::TriangleFanImm {
                count,
                edge_flags,
                vertices,
            } => {
                self.header(Opcode::TriangleFanImm, count);
                self.buf.extend_from_slice(edge_flags.as_bytes());
                self.imm(vertices, u64::from(count) + 2)
            }
            C::LineListImm { count, vertices } => {
                self.header(Opcode::LineListImm, count);
                self.imm(vertices, 2 * u64::from(count))
            }
            C::TextureStageState(r) => self.fixed(Opcode::TextureStageState, r),
            C::IndexedTriangleList2 { start, triangles } => {
                let n = count16("INDEXEDTRIANGLELIST2 triangles", triangles.len())?;
                self.header(Opcode::IndexedTriangleList2, n);
                self.buf.extend_from_slice(start.as_bytes());
                self.buf.extend_from_slice(triangles.as_bytes());
                Ok(())
            }
            C::IndexedLineList2 { start, lines } => {
                let n = count16("INDEXEDLINELIST2 lines", lines.len())?;
                self.header(Opcode::IndexedLineList2, n);
                self.buf.extend_from_slice(start.as_bytes());
                self.buf.extend_from_slice(lines.as_bytes());
                Ok(())
            }
            C::ViewportInfo(r) => self.fixed(Opcode::ViewportInfo, r),
            C::WInfo(r) => self.fixed(Opcode::WInfo, r),
            C::SetPalette(r) => self.fixed(Opcode::SetPalette, r),
            C::UpdatePalette {
                count,
                update,
                entries,
            } => {
                if usize::from(update.num_entries.get()) != entries.len() {
                    return Err(EncodeError::Inconsistent(
                        "UPDATEPALETTE: wNumEntries ≠ entries given",
                    ));
                }
                self.header(Opcode::UpdatePalette, count);
                self.buf.extend_from_slice(update.as_bytes());
                self.buf.extend_from_slice(entries.as_bytes());
                Ok(())
            }
            C::ZRange(r) => self.fixed(Opcode::ZRange, r),
            C::SetMaterial(r) => self.fixed(Opcode::SetMaterial, r),
            C::SetLight(r) => self.var(Opcode::SetLight, &r),
            C::CreateLight(r) => self.fixed(Opcode::CreateLight, r),
            C::SetTransform(r) => self.fixed(Opcode::SetTransform, r),
            C::Ext(r) => self.fixed(Opcode::Ext, r),
            C::TexBlt(r) => self.fixed(Opcode::TexBlt, r),
            C::StateSet(r) => self.fixed(Opcode::StateSet, r),
            C::SetPriority(r) => self.fixed(Opcode::SetPriority, r),
            C::SetRenderTarget(r) => self.fixed(Opcode::SetRenderTarget, r),
            C::Clear { clear, rects } => {
                let n = count16("CLEAR rects", rects.len())?;
                self.header(Opcode::Clear, n);
                self.buf.extend_from_slice(clear.as_bytes());
                if rects.is_empty() {
                    self.buf.extend_from_slice(&[0u8; 16]);
                } else {
                    self.buf.extend_from_slice(rects.as_bytes());
                }
                Ok(())
            }
            C::SetTexLod(r) => self.fixed(Opcode::SetTexLod, r),
            C::SetClipPlane(r) => self.fixed(Opcode::SetClipPlane, r),
            C::CreateVertexShader(r) => self.var(Opcode::CreateVertexShader, &r),
            C::DeleteVertexShader(r) => self.fixed(Opcode::DeleteVertexShader, r),
            C::SetVertexShader(r) => self.fixed(Opcode::SetVertexShader, r),
            C::SetVertexShaderConst(r) => self.var(Opcode::SetVertexShaderConst, &r),
            C::SetStreamSource(r) => self.fixed(Opcode::SetStreamSource, r),
            C::SetStreamSourceUm(r) => self.fixed(Opcode::SetStreamSourceUm, r),
            C::SetIndices(r) => self.fixed(Opcode::SetIndices, r),
            C::DrawPrimitive(r) => self.fixed(Opcode::DrawPrimitive, r),
            C::DrawIndexedPrimitive(r) => self.fixed(Opcode::DrawIndexedPrimitive, r),
            C::CreatePixelShader(r) => self.var(Opcode::CreatePixelShader, &r),
            C::DeletePixelShader(r) => self.fixed(Opcode::DeletePixelShader, r),
            C::SetPixelShader(r) => self.fixed(Opcode::SetPixelShader, r),
            C::SetPixelShaderConst(r) => self.var(Opcode::SetPixelShaderConst, &r),
            C::ClippedTriangleFan(r) => self.fixed(Opcode::ClippedTriangleFan, r),
            C::DrawPrimitive2(r) => self.fixed(Opcode::DrawPrimitive2, r),
            C::DrawIndexedPrimitive2(r) => self.fixed(Opcode::DrawIndexedPrimitive2, r),
            C::DrawRectPatch(r) => self.var(Opcode::DrawRectPatch, &r),
            C::DrawTriPatch(r) => self.var(Opcode::DrawTriPatch, &r),
            C::VolumeBlt(r) => self.fixed(Opcode::VolumeBlt, r),
            C::BufferBlt(r) => self.fixed(Opcode::BufferBlt, r),
            C::MultiplyTransform(r) => self.fixed(Opcode::MultiplyTransform, r),
            C::AddDirtyRect(r) => self.fixed(Opcode::AddDirtyRect, r),
            C::AddDirtyBox(r) => self.fixed(Opcode::AddDirtyBox, r),
            C::CreateVertexShaderDecl(r) => self.var(Opcode::CreateVertexShaderDecl, &r),
            C::DeleteVertexShaderDecl(r) => self.fixed(Opcode::DeleteVertexShaderDecl, r),
            C::SetVertexShaderDecl(r) => self.fixed(Opcode::SetVertexShaderDecl, r),
            C::CreateVertexShaderFunc(r) => self.var(Opcode::CreateVertexShaderFunc, &r),
            C::DeleteVertexShaderFunc(r) => self.fixed(Opcode::DeleteVertexShaderFunc, r),
            C::SetVertexShaderFunc(r) => self.fixed(Opcode::SetVertexShaderFunc, r),
            C::SetVertexShaderConstI(r) => self.var(Opcode::SetVertexShaderConstI, &r),
            C::SetScissorRect(r) => self.fixed(Opcode::SetScissorRect, r),
            C::SetStreamSource2(r) => self.fixed(Opcode::SetStreamSource2, r),
            C::Blt(r) => self.fixed(Opcode::Blt, r),
            C::ColorFill(r) => self.fixed(Opcode::ColorFill, r),
            C::SetVertexShaderConstB(r) => self.var(Opcode::SetVertexShaderConstB, &r),
            C::CreateQuery(r) => self.fixed(Opcode::CreateQuery, r),
            C::SetRenderTarget2(r) => self.fixed(Opcode::SetRenderTarget2, r),
            C::SetDepthStencil(r) => self.fixed(Opcode::SetDepthStencil, r),
            C::ResponseContinue { count, extra } => {
                let total = extra
                    .len()
                    .checked_add(8)
                    .and_then(|t| u32::try_from(t).ok())
                    .ok_or(EncodeError::LengthTooLarge {
                        what: "response",
                        len: extra.len(),
                    })?;
                self.header(Opcode::ResponseContinue, count);
                self.buf.extend_from_slice(&total.to_le_bytes());
                self.buf.extend_from_slice(extra);
                Ok(())
            }
            C::ResponseQuery(r) => {
                let n = count16("RESPONSEQUERY entries", r.len())?;
                let body = r.as_bytes();
                let total = body
                    .len()
                    .checked_add(8)
                    .and_then(|t| u32::try_from(t).ok())
                    .ok_or(EncodeError::LengthTooLarge {
                        what: "response",
                        len: body.len(),
                    })?;
                self.header(Opcode::ResponseQuery, n);
                self.buf.extend_from_slice(&total.to_le_bytes());
                for e in r.iter() {
                    e.encode(&mut self.buf)?;
                }
                Ok(())
            }
            C::GenerateMipSubLevels(r) => self.fixed(Opcode::GenerateMipSubLevels, r),
            C::DeleteQuery(r) => self.fixed(Opcode::DeleteQuery, r),
            C::IssueQuery(r) => self.fixed(Opcode::IssueQuery, r),
            C::SetPixelShaderConstI(r) => self.var(Opcode::SetPixelShaderConstI, &r),
            C::SetPixelShaderConstB(r) => self.var(Opcode::SetPixelShaderConstB, &r),
            C::SetStreamSourceFreq(r) => self.fixed(Opcode::SetStreamSourceFreq, r),
            C::SurfaceBlt(r) => self.fixed(Opcode::SurfaceBlt, r),
            C::SetConvolutionKernelMono(r) => self.var(Opcode::SetConvolutionKernelMono, &r),
            C::ComposeRects(r) => self.fixed(Opcode::ComposeRects, r),
            C::Unknown { opcode } => Err(EncodeError::Unknown(opcode)),
        }
    }

    fn single(&mut self, op: Opcode, count: u16, start: &Dp2LineList) -> Result<(), EncodeError> {
        self.header(op, count);
        self.buf.extend_from_slice(start.as_bytes());
        Ok(())
    }

    // ------------------------------------------------------------ builders

    /// `D3DDP2OP_RENDERSTATE` with `(state, value)` pairs.
    pub fn render_states(&mut self, states: &[(u32, u32)]) -> Result<&mut Self, EncodeError> {
        let recs: Vec<Dp2RenderState> = states
            .iter()
            .map(|&(s, v)| Dp2RenderState {
                state: s.into(),
                value: v.into(),
            })
            .collect();
        self.push(&Command::RenderState(&recs))
    }

    /// `D3DDP2OP_TEXTURESTAGESTATE` with `(stage, state, value)` triples.
    pub fn texture_stage_states(
        &mut self,
        states: &[(u16, u16, u32)],
    ) -> Result<&mut Self, EncodeError> {
        let recs: Vec<Dp2TextureStageState> = states
            .iter()
            .map(|&(st, s, v)| Dp2TextureStageState {
                stage: st.into(),
                state: s.into(),
                value: v.into(),
            })
            .collect();
        self.push(&Command::TextureStageState(&recs))
    }

    /// `D3DDP2OP_VIEWPORTINFO` with one viewport.
    pub fn viewport(
        &mut self,
        x: u32,
        y: u32,
        width: u32,
        height: u32,
    ) -> Result<&mut Self, EncodeError> {
        let v = [Dp2ViewportInfo {
            x: x.into(),
            y: y.into(),
            width: width.into(),
            height: height.into(),
        }];
        self.push(&Command::ViewportInfo(&v))
    }

    /// `D3DDP2OP_ZRANGE`.
    pub fn zrange(&mut self, min_z: f32, max_z: f32) -> Result<&mut Self, EncodeError> {
        let z = [Dp2ZRange {
            min_z: F32Le::new(min_z),
            max_z: F32Le::new(max_z),
        }];
        self.push(&Command::ZRange(&z))
    }

    /// A primitive opcode whose payload is one start vertex
    /// (LINELIST, LINESTRIP, TRIANGLELIST, TRIANGLESTRIP, TRIANGLEFAN).
    pub fn primitive(
        &mut self,
        op: Opcode,
        count: u16,
        v_start: u16,
    ) -> Result<&mut Self, EncodeError> {
        let start = Dp2LineList {
            v_start: v_start.into(),
        };
        let cmd = match op {
            Opcode::LineList => Command::LineList {
                count,
                start: &start,
            },
            Opcode::LineStrip => Command::LineStrip {
                count,
                start: &start,
            },
            Opcode::TriangleList => Command::TriangleList {
                count,
                start: &start,
            },
            Opcode::TriangleStrip => Command::TriangleStrip {
                count,
                start: &start,
            },
            Opcode::TriangleFan => Command::TriangleFan {
                count,
                start: &start,
            },
            _ => {
                return Err(EncodeError::Inconsistent(
                    "primitive(): not a start-vertex primitive opcode",
                ))
            }
        };
        self.push(&cmd)
    }

    /// `D3DDP2OP_CLEAR`.
    pub fn clear(
        &mut self,
        flags: u32,
        color: u32,
        depth: f32,
        stencil: u32,
        rects: &[[i32; 4]],
    ) -> Result<&mut Self, EncodeError> {
        let clear = Dp2Clear {
            flags: flags.into(),
            fill_color: color.into(),
            fill_depth: F32Le::new(depth),
            fill_stencil: stencil.into(),
        };
        let rects: Vec<Rect> = rects
            .iter()
            .map(|r| Rect {
                left: r[0].into(),
                top: r[1].into(),
                right: r[2].into(),
                bottom: r[3].into(),
            })
            .collect();
        self.push(&Command::Clear {
            clear: &clear,
            rects: &rects,
        })
    }

    /// `D3DDP2OP_TRIANGLEFAN_IMM` with inline vertex bytes.
    pub fn triangle_fan_imm(
        &mut self,
        count: u16,
        edge_flags: u32,
        vertices: &[u8],
    ) -> Result<&mut Self, EncodeError> {
        let ef = Dp2TriangleFanImm {
            edge_flags: edge_flags.into(),
        };
        self.push(&Command::TriangleFanImm {
            count,
            edge_flags: &ef,
            vertices,
        })
    }

    /// `D3DDP2OP_LINELIST_IMM` with inline vertex bytes.
    pub fn line_list_imm(&mut self, count: u16, vertices: &[u8]) -> Result<&mut Self, EncodeError> {
        self.push(&Command::LineListImm { count, vertices })
    }
}

/// Encodes a whole list of commands.
pub fn encode_all(cmds: &[Command<'_>], opts: DecodeOptions) -> Result<Vec<u8>, EncodeError> {
    let mut e = Encoder::new(opts);
    for c in cmds {
        e.push(c)?;
    }
    Ok(e.into_bytes())
}
