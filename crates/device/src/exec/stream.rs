//! Vertex input: SETVERTEXSHADER, SETVERTEXSHADERDECL, SETSTREAMSOURCE,
//! SETSTREAMSOURCE2, SETSTREAMSOURCEUM, SETSTREAMSOURCEFREQ, SETINDICES,
//! and reading the vertex data draws use.
//!
//! In: the binding commands' records; for draws, the bound streams, the
//! vertex input (FVF, DX9 declaration or DX8 shader declaration) and the
//! call's vertex data. Out: bindings written through the state writer
//! (they are state-block state), and for draws the vertex bytes, their
//! [`VertexLayout`] and the surface they come from. Guarantees: every
//! binding is validated (stream number, stride, surface kind, FVF,
//! declaration handle) before any is written; vertex data is exactly the
//! bytes that exist (`dwVertexLength` vertices of a DP2 call, a stream from
//! its offset), and a multi-stream declaration is gathered into one
//! buffer bounded by `limits::MAX_BUFFER_BYTES`. With a vertex shader the
//! elements its input registers read ([`shader_elements`]) decide the
//! bytes and the `(register, offset, type)` inputs instead of a layout.

use super::{kind_of, Call, Exec, USERMEM};
use crate::context::{Context, StateKey};
use crate::error::{check_below, range, DeviceError, Result};
use crate::handle::Slab;
use crate::limits;
use crate::resource::{Resource, SurfaceKind};
use crate::shader::{self, ShaderCode, VsElement};
use crate::state::{DeviceState, Stream, StreamSource, VertexInput};
use softhal_pipeline::{DeclType, PositionKind, TexCoordElement, VertexLayout};
use softhal_wire::fvf::{vertex_stride, FvfLayout, PositionKind as FvfPos};
use softhal_wire::Command;
use std::borrow::Cow;

/// Converts an FVF into the pipeline's layout (stride from the FVF).
pub fn layout_from_fvf(fvf: u32) -> Result<VertexLayout> {
    let f = FvfLayout::parse(fvf)?;
    let position = match f.position {
        FvfPos::None => return Err(DeviceError::NoPosition),
        FvfPos::Xyz => PositionKind::Xyz,
        FvfPos::XyzRhw => PositionKind::Xyzrhw,
        FvfPos::Xyzw => PositionKind::Xyzw,
    };
    let mut texcoords = [None; 8];
    for (slot, &(offset, dims)) in texcoords
        .iter_mut()
        .zip(f.texcoords.iter())
        .take(f.tex_count as usize)
    {
        *slot = Some(TexCoordElement {
            offset,
            components: dims as u8,
        });
    }
    let l = VertexLayout {
        stride: f.stride,
        position,
        position_offset: 0,
        blend_weights: (f.blend_values > 0).then_some((12, f.blend_values as u8)),
        normal: f.normal,
        point_size: f.psize,
        diffuse: f.diffuse,
        specular: f.specular,
        diffuse_type: softhal_pipeline::DeclType::D3dColor,
        specular_type: softhal_pipeline::DeclType::D3dColor,
        texcoords,
        position2: None,
        normal2: None,
    };
    l.validate()?;
    Ok(l)
}

/// An FVF as the vertex input (0, or a code the device can parse).
fn fvf_input(h: u32) -> Result<VertexInput> {
    if h != 0 {
        FvfLayout::parse(h)?;
    }
    Ok(VertexInput::Fvf(h))
}

/// The vertex buffer bytes of a surface handle.
fn vb_bytes(surfaces: &Slab<Resource>, h: u32) -> Result<&[u8]> {
    let r = surfaces.get(h)?;
    match r.desc.kind {
        SurfaceKind::VertexBuffer { .. } => r.buffer(h),
        _ => Err(r.wrong(h, "vertex buffer")),
    }
}

impl<'c> Exec<'_, 'c> {
    /// SETVERTEXSHADER(DECL), SETSTREAMSOURCE*, SETINDICES.
    pub(super) fn stream_command(&mut self, cmd: &Command<'c>) -> Result<()> {
        use Command as C;
        match *cmd {
            C::SetVertexShader(recs) => {
                // A DX8 shader handle also loads its declaration's
                // D3DVSD_CONST constants (registers past the bank are
                // dropped).
                let mut inputs = Vec::new();
                for r in recs {
                    let h = r.handle.get();
                    inputs.push(match self.ctx.vertex_shaders.get(&h) {
                        Some(s) => (VertexInput::Shader(h), dx8_constants(&s.decl)),
                        None => (fvf_input(h)?, Vec::new()),
                    });
                }
                self.write_state(
                    &inputs,
                    |_, _| Ok(()),
                    |w, (i, consts)| {
                        w.set(StateKey::VertexInput, |st| st.vertex_input = *i);
                        for &(reg, v) in consts {
                            w.set(StateKey::VsConstF(reg), |st| {
                                if let Some(slot) = st.vs_consts.f.get_mut(reg as usize) {
                                    *slot = v;
                                }
                            });
                        }
                    },
                )
            }
            C::SetVertexShaderDecl(recs) => {
                let mut inputs = Vec::new();
                for r in recs {
                    let h = r.handle.get();
                    inputs.push(if h & 1 != 0 {
                        if !self.ctx.decls.contains_key(&h) {
                            return Err(DeviceError::BadHandle {
                                handle: h,
                                what: "vertex declaration",
                            });
                        }
                        VertexInput::Decl(h)
                    } else {
                        fvf_input(h)?
                    });
                }
                self.set_vertex_input(&inputs)
            }
            C::SetStreamSource(recs) => {
                let v: Vec<_> = recs
                    .iter()
                    .map(|r| (r.stream.get(), r.vb_handle.get(), 0, r.stride.get()))
                    .collect();
                self.set_streams(&v, false)
            }
            C::SetStreamSource2(recs) => {
                let v: Vec<_> = recs
                    .iter()
                    .map(|r| {
                        let (s, h) = (r.stream.get(), r.vb_handle.get());
                        (s, h, r.offset.get(), r.stride.get())
                    })
                    .collect();
                self.set_streams(&v, false)
            }
            C::SetStreamSourceUm(recs) => {
                let mut v = Vec::new();
                for r in recs {
                    if r.stream.get() != 0 {
                        return Err(range(
                            "SETSTREAMSOURCEUM dwStream",
                            u64::from(r.stream.get()),
                            1,
                        ));
                    }
                    v.push((0, 0, 0, r.stride.get()));
                }
                self.set_streams(&v, true)
            }
            C::SetStreamSourceFreq(recs) => self.write_state(
                recs,
                |_, r| {
                    check_below(
                        "dwStream",
                        u64::from(r.stream.get()),
                        u64::from(limits::MAX_STREAMS),
                    )
                },
                |w, r| {
                    let s = r.stream.get();
                    w.set(StateKey::Stream(s), |st| {
                        if let Some(slot) = st.streams.get_mut(s as usize) {
                            slot.divider = r.divider.get();
                        }
                    });
                },
            ),
            C::SetIndices(recs) => self.write_state(
                recs,
                |x, r| {
                    if r.vb_handle.get() != 0 {
                        x.check_kind(r.vb_handle.get(), SurfaceKind::IndexBuffer)?;
                        if !matches!(r.stride.get(), 2 | 4) {
                            return Err(DeviceError::BadValue {
                                what: "SETINDICES dwStride",
                                value: r.stride.get(),
                            });
                        }
                    }
                    Ok(())
                },
                |w, r| {
                    let h = r.vb_handle.get();
                    w.set(StateKey::Indices, |st| {
                        st.indices = (h != 0).then_some((h, r.stride.get()));
                    });
                },
            ),
            _ => Err(super::unsupported_opcode()),
        }
    }

    fn check_vb_handle(&self, h: u32) -> Result<()> {
        if h == 0 {
            return Ok(());
        }
        match kind_of(self.surfaces, h)? {
            SurfaceKind::VertexBuffer { .. } => Ok(()),
            k => Err(DeviceError::WrongKind {
                handle: h,
                expected: "vertex buffer",
                actual: k.name(),
            }),
        }
    }

    /// The vertex input of stream draws: the last of `inputs` (validated).
    fn set_vertex_input(&mut self, inputs: &[VertexInput]) -> Result<()> {
        self.write_state(
            inputs,
            |_, _| Ok(()),
            |w, &i| w.set(StateKey::VertexInput, |st| st.vertex_input = i),
        )
    }

    /// Binds streams: `(stream, vertex buffer, offset, stride)` each, from
    /// the call's user memory when `user`.
    fn set_streams(&mut self, v: &[(u32, u32, u32, u32)], user: bool) -> Result<()> {
        self.write_state(
            v,
            |x, &(s, h, _, stride)| {
                check_below("dwStream", u64::from(s), u64::from(limits::MAX_STREAMS))?;
                check_below(
                    "dwStride",
                    u64::from(stride),
                    u64::from(limits::MAX_STREAM_STRIDE) + 1,
                )?;
                x.check_vb_handle(h)
            },
            |w, &(s, h, offset, stride)| {
                w.set(StateKey::Stream(s), |st| {
                    if let Some(slot) = st.streams.get_mut(s as usize) {
                        slot.source = if user {
                            StreamSource::UserMemory
                        } else if h == 0 {
                            StreamSource::None
                        } else {
                            StreamSource::Surface(h)
                        };
                        slot.offset = offset;
                        slot.stride = stride;
                    }
                });
            },
        )
    }
}

/// The end of `count` vertices of `stride` bytes from byte `offset`. It
/// saturates: every caller compares it with the bytes that exist, and a
/// saturated end is past them.
pub(super) fn vertex_bytes(offset: u64, count: u64, stride: u32) -> u64 {
    offset.saturating_add(count.saturating_mul(u64::from(stride)))
}

/// Vertex bytes, their layout, and the vertex surface and byte offset they
/// start at (`None`: user memory).
pub(super) type VertexInputData<'s> = (Cow<'s, [u8]>, VertexLayout, Option<(u32, u32)>);

/// `c` from byte `from` on, borrowed when `c` is.
pub(super) fn tail<'s>(c: &Cow<'s, [u8]>, from: usize) -> Cow<'s, [u8]> {
    match c {
        Cow::Borrowed(b) => Cow::Borrowed(b.get(from..).unwrap_or_default()),
        Cow::Owned(o) => Cow::Owned(o.get(from..).unwrap_or_default().to_vec()),
    }
}

/// The DP2 call's vertex data: exactly `dwVertexLength` vertices of the
/// FVF stride at `dwVertexOffset` of the user memory or vertex surface.
pub(super) fn dp2_vertices<'s>(
    surfaces: &'s Slab<Resource>,
    call: &'s Call<'_>,
) -> Result<VertexInputData<'s>> {
    let layout = layout_from_fvf(call.fvf)?;
    let need = vertex_bytes(
        u64::from(call.vertex_offset),
        u64::from(call.vertex_length),
        layout.stride,
    );
    let base: &[u8] = if call.flags & USERMEM != 0 {
        call.user.ok_or(DeviceError::InvalidParams(
            "USERMEMVERTICES without user memory",
        ))?
    } else {
        vb_bytes(surfaces, call.vertex_surface)?
    };
    if need > base.len() as u64 {
        return Err(range(
            "dwVertexOffset + dwVertexLength vertices (bytes)",
            need,
            base.len() as u64,
        ));
    }
    let src = (call.flags & USERMEM == 0).then_some((call.vertex_surface, call.vertex_offset));
    Ok((
        Cow::Borrowed(
            base.get(call.vertex_offset as usize..need as usize)
                .unwrap_or_default(),
        ),
        layout,
        src,
    ))
}

/// A stream's bytes (from its offset), stride and (surface, offset).
type StreamBytes<'s> = (&'s [u8], u32, Option<(u32, u32)>);

/// The data of stream `stream` from its offset, its stride (`min_stride`
/// when the stream's stride is 0) and its surface (for referencing it).
fn stream_bytes<'s>(
    surfaces: &'s Slab<Resource>,
    st: &DeviceState,
    call: &'s Call<'_>,
    stream: u32,
    min_stride: u32,
) -> Result<StreamBytes<'s>> {
    let s: &Stream =
        st.streams
            .get(stream as usize)
            .ok_or(range("stream", u64::from(stream), 16))?;
    if s.divider != 1 && s.divider != 0 {
        // D3D9 instancing needs vs_3_0; programmable shaders are not
        // implemented.
        return Err(DeviceError::Unsupported(
            "stream frequency dividers (instancing)",
        ));
    }
    let stride = if s.stride == 0 { min_stride } else { s.stride };
    if stride < min_stride {
        return Err(range(
            "stream stride smaller than the vertex",
            u64::from(stride),
            u64::from(min_stride),
        ));
    }
    let (data, sh): (&[u8], u32) = match s.source {
        StreamSource::None => return Err(DeviceError::InvalidParams("vertex stream not bound")),
        StreamSource::Surface(h) => (vb_bytes(surfaces, h)?, h),
        StreamSource::UserMemory => {
            let user = call.user.filter(|_| call.flags & USERMEM != 0).ok_or(
                DeviceError::InvalidParams("user-memory stream outside a USERMEMVERTICES call"),
            )?;
            let need = vertex_bytes(
                u64::from(call.vertex_offset),
                u64::from(call.vertex_length),
                stride,
            );
            if need > user.len() as u64 {
                return Err(range("user-memory stream bytes", need, user.len() as u64));
            }
            return Ok((
                user.get(call.vertex_offset as usize..need as usize)
                    .unwrap_or_default(),
                stride,
                None,
            ));
        }
    };
    let data = data.get(s.offset as usize..).ok_or(range(
        "stream offset",
        u64::from(s.offset),
        data.len() as u64,
    ))?;
    Ok((data, stride, Some((sh, s.offset))))
}

/// A declaration reading several streams: every vertex that exists in all
/// of them, gathered into one interleaved buffer (docs/device.md).
fn gather_streams<'s>(
    surfaces: &'s Slab<Resource>,
    st: &DeviceState,
    call: &'s Call<'_>,
    elems: &[shader::GatherElement],
    layout: VertexLayout,
) -> Result<VertexInputData<'s>> {
    let mut streams: Vec<(u32, &[u8], u32)> = Vec::new();
    for e in elems {
        if streams.iter().any(|(s, _, _)| *s == e.stream) {
            continue;
        }
        let end = elems
            .iter()
            .filter(|x| x.stream == e.stream)
            // A saturated end is larger than any stride: rejected below.
            .map(|x| x.src_offset.saturating_add(x.size))
            .max()
            .unwrap_or(0);
        let (data, stride, _) = stream_bytes(surfaces, st, call, e.stream, end)?;
        streams.push((e.stream, data, stride));
    }
    // Vertex v exists when every element of it lies inside its stream.
    let mut n = u64::MAX;
    for e in elems {
        let Some((_, data, stride)) = streams.iter().find(|(s, _, _)| *s == e.stream) else {
            continue;
        };
        let end = u64::from(e.src_offset).saturating_add(u64::from(e.size));
        let len = data.len() as u64;
        // len ≥ end: one vertex, plus one per whole stride after it.
        let count = len
            .checked_sub(end)
            .and_then(|room| room.checked_div(u64::from((*stride).max(1))))
            .map_or(0, |more| more.saturating_add(1));
        n = n.min(count);
    }
    let n = if n == u64::MAX { 0 } else { n };
    let bytes = n.saturating_mul(u64::from(layout.stride));
    if bytes > limits::MAX_BUFFER_BYTES {
        return Err(DeviceError::Limit {
            what: "gathered vertex bytes of a multi-stream declaration",
            max: limits::MAX_BUFFER_BYTES,
        });
    }
    let lstride = layout.stride as usize;
    let mut out = vec![0u8; bytes as usize];
    for e in elems {
        let Some((_, data, stride)) = streams.iter().find(|(s, _, _)| *s == e.stream) else {
            continue;
        };
        let (src_stride, size) = (*stride as usize, e.size as usize);
        for v in 0..n as usize {
            let from = v
                .checked_mul(src_stride)
                .and_then(|b| b.checked_add(e.src_offset as usize));
            let to = v
                .checked_mul(lstride)
                .and_then(|b| b.checked_add(e.dst_offset as usize));
            let src = from.and_then(|f| data.get(f..)).and_then(|b| b.get(..size));
            let dst = match to {
                Some(t) => out.get_mut(t..).and_then(|b| b.get_mut(..size)),
                None => None,
            };
            if let (Some(src), Some(dst)) = (src, dst) {
                dst.copy_from_slice(src);
            }
        }
    }
    Ok((Cow::Owned(out), layout, None))
}

/// The D3DVSD_CONST registers of a DX8 declaration, one `(register,
/// value)` each.
fn dx8_constants(d: &shader::Dx8Decl) -> Vec<(u32, [u32; 4])> {
    let mut out = Vec::new();
    for (first, data) in &d.constants {
        let values = data
            .chunks_exact(4)
            .filter_map(|c| <[u32; 4]>::try_from(c).ok());
        for (r, v) in (*first..).zip(values) {
            out.push((r, v));
        }
    }
    out
}

/// The vertex shader a draw runs (`None`: fixed-function vertex
/// processing): the DX9 function set with SETVERTEXSHADERFUNC, or the code
/// of the DX8 shader set with SETVERTEXSHADER.
pub(super) fn vertex_shader(ctx: &Context) -> Result<Option<&ShaderCode>> {
    let st = &ctx.state;
    if st.vertex_shader_func != 0 {
        return ctx
            .vs_funcs
            .get(&st.vertex_shader_func)
            .map(Some)
            .ok_or(DeviceError::BadHandle {
                handle: st.vertex_shader_func,
                what: "vertex shader function",
            });
    }
    match st.vertex_input {
        VertexInput::Shader(h) => Ok(ctx
            .vertex_shaders
            .get(&h)
            .ok_or(DeviceError::BadHandle {
                handle: h,
                what: "vertex shader",
            })?
            .code
            .as_ref()),
        _ => Ok(None),
    }
}

/// The elements the input registers of vertex shader `code` read, for the
/// context's vertex input: a DX8 shader's D3DVSD_REG mapping; with a DX9
/// declaration, or an FVF as the declaration it stands for
/// ([`FvfLayout::elements`]), the elements matched to the shader's
/// `dcl_usage[n] v#` by [`usage_matched`]. FVF 0 (no vertex format at all)
/// fails (docs/device.md).
pub(super) fn shader_elements(ctx: &Context, code: &ShaderCode) -> Result<Vec<VsElement>> {
    match ctx.state.vertex_input {
        VertexInput::Shader(h) => Ok(ctx
            .vertex_shaders
            .get(&h)
            .map(|s| s.decl.elements.clone())
            .unwrap_or_default()),
        VertexInput::Decl(h) => {
            let d = ctx.decls.get(&h).ok_or(DeviceError::BadHandle {
                handle: h,
                what: "vertex declaration",
            })?;
            Ok(usage_matched(code, &d.elements))
        }
        VertexInput::Fvf(0) => Err(DeviceError::InvalidParams(
            "a vertex shader draw without a vertex declaration or FVF",
        )),
        VertexInput::Fvf(f) => {
            let elements: Vec<[u32; 6]> = FvfLayout::parse(f)?
                .elements()
                .iter()
                .map(|e| {
                    [
                        0,
                        e.offset,
                        u32::from(e.decl_type.raw()),
                        0,
                        u32::from(e.usage.raw()),
                        u32::from(e.usage_index),
                    ]
                })
                .collect();
            Ok(usage_matched(code, &elements))
        }
    }
}

/// For each `dcl_usage[n] v#` of vertex shader `code`, the first of
/// `elements` (D3DVERTEXELEMENT9 fields: stream, offset, type, method,
/// usage, usage index) of that usage and usage index. An input no element
/// matches, or a register the shader reads without declaring it (a
/// DirectX 8 vs_1_1), is left out: it reads (0, 0, 0, 1)
/// (`docs/device.md`).
fn usage_matched(code: &ShaderCode, elements: &[[u32; 6]]) -> Vec<VsElement> {
    let mut out = Vec::new();
    for i in &code.inputs {
        let e = elements.iter().find(|e| e[4] == i.usage && e[5] == i.index);
        if let Some(&[stream, offset, ty, ..]) = e {
            out.push(VsElement {
                stream,
                offset,
                ty,
                register: i.register,
            });
        }
    }
    out
}

/// The vertex bytes a vertex shader reads and where each input register
/// is in them: the stream of `elements` from its offset when they all read
/// one stream, else the streams gathered into one interleaved vertex (as
/// for a multi-stream declaration, `gather_streams`). The layout carries
/// only the stride; [`shader_inputs`] says where each register is.
pub(super) fn shader_stream_input<'s>(
    surfaces: &'s Slab<Resource>,
    st: &DeviceState,
    call: &'s Call<'_>,
    elements: &[VsElement],
) -> Result<VertexInputData<'s>> {
    let size = |e: &VsElement| {
        DeclType::from_d3d(e.ty)
            .map(DeclType::size)
            .ok_or(DeviceError::BadValue {
                what: "vertex element type",
                value: e.ty,
            })
    };
    let inputs = shader_inputs(elements)?;
    let first = elements.first().map_or(0, |e| e.stream);
    if elements.iter().all(|e| e.stream == first) {
        let mut end = 0u32;
        for e in elements {
            end = end.max(e.offset.saturating_add(size(e)?));
        }
        // An FVF says the vertex size, as for fixed function (a stream
        // stride of 0 uses it, a smaller one fails); a declaration of no
        // element still reads vertices of one byte.
        let vertex = match st.vertex_input {
            VertexInput::Fvf(f) => vertex_stride(f)?,
            _ => 0,
        };
        let (data, stride, src) = stream_bytes(surfaces, st, call, first, end.max(vertex).max(1))?;
        return Ok((Cow::Borrowed(data), stride_layout(stride), src));
    }
    let mut gather = Vec::with_capacity(elements.len());
    let mut stride = 0u32;
    for (e, &(_, dst_offset, _)) in elements.iter().zip(&inputs) {
        let size = size(e)?;
        gather.push(shader::GatherElement {
            stream: e.stream,
            src_offset: e.offset,
            dst_offset,
            size,
        });
        stride = stride.max(dst_offset.saturating_add(size));
    }
    gather_streams(surfaces, st, call, &gather, stride_layout(stride))
}

/// Where each input register of a vertex shader reading `elements` is in
/// the vertices [`shader_stream_input`] gives: `(register, offset,
/// D3DDECLTYPE)`; the element's own offset when all read one stream, else
/// the elements packed in declaration order.
pub(super) fn shader_inputs(elements: &[VsElement]) -> Result<crate::umd::ShaderInputs> {
    let first = elements.first().map_or(0, |e| e.stream);
    let single = elements.iter().all(|e| e.stream == first);
    let mut out = Vec::with_capacity(elements.len());
    let mut dst = 0u32;
    for e in elements {
        let size = DeclType::from_d3d(e.ty)
            .map(DeclType::size)
            .ok_or(DeviceError::BadValue {
                what: "vertex element type",
                value: e.ty,
            })?;
        out.push((
            u32::from(e.register),
            if single { e.offset } else { dst },
            e.ty,
        ));
        // At most 64 elements of at most 16 bytes.
        dst = dst.saturating_add(size);
    }
    Ok(out)
}

/// A layout that says only the stride (the vertex-shader path reads no
/// more of it).
fn stride_layout(stride: u32) -> VertexLayout {
    VertexLayout {
        stride,
        ..VertexLayout::packed(PositionKind::Xyz, false, false, &[])
    }
}

/// The vertex data (stream 0 from its offset, or the streams of a
/// multi-stream declaration gathered) and the layout of stream draws.
pub(super) fn stream_input<'s>(
    surfaces: &'s Slab<Resource>,
    ctx: &'s Context,
    call: &'s Call<'_>,
) -> Result<VertexInputData<'s>> {
    let st = &ctx.state;
    if let Some(code) = vertex_shader(ctx)? {
        let elements = shader_elements(ctx, code)?;
        return shader_stream_input(surfaces, st, call, &elements);
    }
    let (stream, mut layout) = match st.vertex_input {
        VertexInput::Fvf(f) => (0u32, layout_from_fvf(f)?),
        VertexInput::Decl(h) => {
            let d = ctx.decls.get(&h).ok_or(DeviceError::BadHandle {
                handle: h,
                what: "vertex declaration",
            })?;
            match (d.single, &d.gathered) {
                (Some(single), _) => single,
                (None, Some((elems, layout))) => {
                    // (Vertex-shader draws take `shader_stream_input`.)
                    return gather_streams(surfaces, st, call, elems, *layout);
                }
                (None, None) => {
                    return Err(DeviceError::Unsupported("declarations without a position"))
                }
            }
        }
        VertexInput::Shader(h) => {
            let s = ctx.vertex_shaders.get(&h).ok_or(DeviceError::BadHandle {
                handle: h,
                what: "vertex shader",
            })?;
            let l = s.decl.layout.ok_or(DeviceError::Unsupported(
                "DX8 declaration reading several streams",
            ))?;
            (s.decl.stream, l)
        }
    };
    let (data, stride, src) = stream_bytes(surfaces, st, call, stream, layout.stride)?;
    layout.stride = stride;
    Ok((Cow::Borrowed(data), layout, src))
}

/// The control vertices of a patch (DRAWRECTPATCH, DRAWTRIPATCH): as
/// [`stream_input`], for fixed-function vertex processing only (patches
/// with a vertex shader bound fail).
pub(super) fn patch_stream_input<'s>(
    surfaces: &'s Slab<Resource>,
    ctx: &'s Context,
    call: &'s Call<'_>,
) -> Result<VertexInputData<'s>> {
    if vertex_shader(ctx)?.is_some() {
        return Err(DeviceError::Unsupported(
            "patches with a programmable vertex shader",
        ));
    }
    stream_input(surfaces, ctx, call)
}
