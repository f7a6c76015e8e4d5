//! Drawing: the DX6 primitives (vertices of the DP2 call, indices and
//! `_IMM` vertices in the command) and the DX8/DX9 stream draws
//! (DRAWPRIMITIVE, DRAWPRIMITIVE2, CLIPPEDTRIANGLEFAN,
//! DRAWINDEXEDPRIMITIVE, DRAWINDEXEDPRIMITIVE2), lowered into GPU packets.
//!
//! In: the draw records, the bound targets, streams, indices and state.
//! Out: draws submitted through the UMD (`crate::umd`) with the pipeline
//! state of the context, and the context's draw and primitive counts.
//! Guarantees: every vertex index, start vertex, index range and stream
//! range of the whole command is checked against the data that exists
//! (and every draw against the pipeline's own `DrawCall::validate`) before
//! the first is submitted. With shaders bound the UMD also gets the
//! shaders, their constants and the vertex shader's inputs; the DX6
//! primitives (vertices described by an FVF) with a vertex shader bound
//! fail.

use super::stream::{
    dp2_vertices, layout_from_fvf, shader_elements, shader_inputs, stream_input, tail,
    vertex_bytes, vertex_shader,
};
use super::{Call, Exec};
use crate::context::Context;
use crate::error::{range, DeviceError, Result};
use crate::handle::Slab;
use crate::resource::{Resource, SurfaceKind};
use softhal_pipeline::{DrawCall, Indices, Topology, VertexLayout};
use softhal_wire::names::PrimitiveType;
use softhal_wire::structs::{Dp2Index, Dp2StartVertex};
use softhal_wire::Command;
use std::borrow::Cow;

/// One validated pipeline draw.
pub(super) struct DrawReq<'v> {
    pub topology: Topology,
    pub vertices: Cow<'v, [u8]>,
    pub layout: VertexLayout,
    /// Index bytes and whether they are 32-bit.
    pub indices: Option<(Cow<'v, [u8]>, bool)>,
    pub first: u32,
    pub count: u32,
    pub base_vertex: i32,
    /// The vertex surface and the byte offset `vertices` starts at (None:
    /// user memory or generated data, copied into the command buffer).
    pub vsrc: Option<(u32, u32)>,
    /// Likewise for the indices.
    pub isrc: Option<(u32, u32)>,
}

fn topology(prim_type: u32) -> Result<Topology> {
    Topology::from_d3d(prim_type).ok_or(DeviceError::BadValue {
        what: "primType",
        value: prim_type,
    })
}

impl<'c> Exec<'_, 'c> {
    /// The DX6 primitives and the DX8 stream draws.
    pub(super) fn draw_command(&mut self, cmd: &Command<'c>) -> Result<()> {
        use Command as C;
        match *cmd {
            // DX6 primitives
            C::Points(recs) => self.dx6_draw(|n| {
                let mut v = Vec::new();
                for r in recs {
                    let (c, s) = (u32::from(r.count.get()), u32::from(r.v_start.get()));
                    check_range("POINTS", s, c, n)?;
                    v.push((Topology::PointList, s, c));
                }
                Ok(v)
            }),
            C::LineList { count, start } => {
                self.dx6_seq(Topology::LineList, count, start.v_start.get())
            }
            C::LineStrip { count, start } => {
                self.dx6_seq(Topology::LineStrip, count, start.v_start.get())
            }
            C::TriangleList { count, start } => {
                self.dx6_seq(Topology::TriangleList, count, start.v_start.get())
            }
            C::TriangleStrip { count, start } => {
                self.dx6_seq(Topology::TriangleStrip, count, start.v_start.get())
            }
            C::TriangleFan { count, start } => {
                self.dx6_seq(Topology::TriangleFan, count, start.v_start.get())
            }
            C::IndexedLineList(recs) => {
                let idx: Vec<u16> = recs.iter().flat_map(|r| [r.v1.get(), r.v2.get()]).collect();
                self.dx6_indexed(Topology::LineList, recs.len() as u32, 0, idx)
            }
            C::IndexedTriangleList(recs) => {
                let idx: Vec<u16> = recs
                    .iter()
                    .flat_map(|r| [r.v1.get(), r.v2.get(), r.v3.get()])
                    .collect();
                self.dx6_indexed(Topology::TriangleList, recs.len() as u32, 0, idx)
            }
            C::IndexedTriangleList2 { start, triangles } => {
                let idx: Vec<u16> = triangles
                    .iter()
                    .flat_map(|r| [r.v1.get(), r.v2.get(), r.v3.get()])
                    .collect();
                self.dx6_indexed(
                    Topology::TriangleList,
                    triangles.len() as u32,
                    start.v_start.get(),
                    idx,
                )
            }
            C::IndexedLineList2 { start, lines } => {
                let idx: Vec<u16> = lines
                    .iter()
                    .flat_map(|r| [r.v1.get(), r.v2.get()])
                    .collect();
                self.dx6_indexed(
                    Topology::LineList,
                    lines.len() as u32,
                    start.v_start.get(),
                    idx,
                )
            }
            C::IndexedLineStrip {
                count,
                start,
                indices,
            } => self.dx6_indexed_run(Topology::LineStrip, count, start, indices),
            C::IndexedTriangleStrip {
                count,
                start,
                indices,
            } => self.dx6_indexed_run(Topology::TriangleStrip, count, start, indices),
            C::IndexedTriangleFan {
                count,
                start,
                indices,
            } => self.dx6_indexed_run(Topology::TriangleFan, count, start, indices),
            C::TriangleFanImm {
                count, vertices, ..
            } => self.imm_draw(Topology::TriangleFan, u32::from(count), vertices),
            C::LineListImm { count, vertices } => {
                self.imm_draw(Topology::LineList, u32::from(count), vertices)
            }

            // DX8 stream draws
            C::DrawPrimitive(recs) => self.stream_draw(|s0, stride| {
                // A stride of 0 holds no vertex.
                let n = (s0.len() as u64)
                    .checked_div(u64::from(stride))
                    .unwrap_or(0);
                let mut v = Vec::new();
                for r in recs {
                    let t = topology(r.prim_type.get())?;
                    // Needs saturate: a saturated need is never ≤ n.
                    let need = u64::from(r.v_start.get())
                        .saturating_add(t.vertex_count(r.primitive_count.get()));
                    if need > n {
                        return Err(range("DRAWPRIMITIVE vertices", need, n));
                    }
                    v.push(StreamDraw::Seq {
                        t,
                        start: r.v_start.get(),
                        count: r.primitive_count.get(),
                        byte_offset: 0,
                    });
                }
                Ok(v)
            }),
            C::DrawPrimitive2(recs) => {
                let v: Vec<_> = recs
                    .iter()
                    .map(|r| {
                        let (off, n) = (r.first_vertex_offset.get(), r.primitive_count.get());
                        (r.prim_type.get(), off, n)
                    })
                    .collect();
                self.offset_draws("DRAWPRIMITIVE2 vertex bytes", &v)
            }
            C::ClippedTriangleFan(recs) => {
                let fan = PrimitiveType::TriangleFan.raw();
                let v: Vec<_> = recs
                    .iter()
                    .map(|r| (fan, r.first_vertex_offset.get(), r.primitive_count.get()))
                    .collect();
                self.offset_draws("CLIPPEDTRIANGLEFAN vertex bytes", &v)
            }
            C::DrawIndexedPrimitive(recs) => {
                let v: Vec<IndexedDraw> = recs
                    .iter()
                    .map(|r| IndexedDraw {
                        prim_type: r.prim_type.get(),
                        count: r.primitive_count.get(),
                        start_byte: u64::from(r.start_index.get()),
                        start_in_indices: true,
                        base: i64::from(r.base_vertex_index.get()),
                        base_in_bytes: false,
                    })
                    .collect();
                self.indexed_stream_draw(&v)
            }
            C::DrawIndexedPrimitive2(recs) => {
                let v: Vec<IndexedDraw> = recs
                    .iter()
                    .map(|r| IndexedDraw {
                        prim_type: r.prim_type.get(),
                        count: r.primitive_count.get(),
                        start_byte: u64::from(r.start_index_offset.get()),
                        start_in_indices: false,
                        base: i64::from(r.base_vertex_offset.get()),
                        base_in_bytes: true,
                    })
                    .collect();
                self.indexed_stream_draw(&v)
            }
            _ => Err(super::unsupported_opcode()),
        }
    }

    /// Takes the render targets, builds the draws with `f` (which validates
    /// everything), runs them through the pipeline, restores the targets.
    pub(super) fn draw_with<F>(&mut self, f: F) -> Result<()>
    where
        F: for<'s> FnOnce(
            &'s Slab<Resource>,
            &'s Context,
            &'s Call<'c>,
        ) -> Result<Vec<DrawReq<'s>>>,
    {
        let rt = self.ctx.render_target;
        let dh = self.ctx.depth;
        self.check_color_target(rt)?;
        if let Some(h) = dh {
            self.check_kind(h, SurfaceKind::DepthStencil)?;
        }
        let (prims, n) = run_draws(self, (rt, dh), f)?;
        self.ctx.stats.draws = self.ctx.stats.draws.saturating_add(n);
        self.ctx.stats.primitives = self.ctx.stats.primitives.saturating_add(prims);
        Ok(())
    }

    fn dx6_seq(&mut self, t: Topology, count: u16, start: u16) -> Result<()> {
        self.dx6_draw(|n| {
            let (s, c) = (u32::from(start), u32::from(count));
            // A WORD and a vertex count of a WORD cannot overflow a u64.
            let need = u64::from(s).saturating_add(t.vertex_count(c));
            if need > u64::from(n) {
                return Err(range("vertex index", need.saturating_sub(1), u64::from(n)));
            }
            Ok(vec![(t, s, c)])
        })
    }

    /// DX6 non-indexed draws: `f(dwVertexLength)` returns (topology, first,
    /// primitive count) triples, validated.
    /// The DX6 primitives read vertices an FVF describes: not with a
    /// vertex shader.
    fn no_vertex_shader(&self) -> Result<()> {
        if vertex_shader(self.ctx)?.is_some() {
            return Err(DeviceError::Unsupported(
                "DX6 primitives with a programmable vertex shader (use the stream draws)",
            ));
        }
        Ok(())
    }

    fn dx6_draw(&mut self, f: impl FnOnce(u32) -> Result<Vec<(Topology, u32, u32)>>) -> Result<()> {
        self.no_vertex_shader()?;
        self.draw_with(move |surfaces, _ctx, call| {
            let (bytes, layout, vsrc) = dp2_vertices(surfaces, call)?;
            let list = f(call.vertex_length)?;
            Ok(list
                .into_iter()
                .map(|(topology, first, count)| DrawReq {
                    topology,
                    vertices: bytes.clone(),
                    layout,
                    indices: None,
                    first,
                    count,
                    base_vertex: 0,
                    vsrc,
                    isrc: None,
                })
                .collect())
        })
    }

    fn dx6_indexed(&mut self, t: Topology, count: u32, start: u16, idx: Vec<u16>) -> Result<()> {
        self.no_vertex_shader()?;
        self.draw_with(move |surfaces, _ctx, call| {
            let (bytes, layout, vsrc) = dp2_vertices(surfaces, call)?;
            let n = u64::from(call.vertex_length);
            // Two WORDs cannot overflow a u32.
            for &i in &idx {
                let v = u64::from(start).saturating_add(u64::from(i));
                if v >= n {
                    return Err(range("vertex index", v, n));
                }
            }
            let owned: Vec<u8> = idx
                .iter()
                .flat_map(|i| u32::from(*i).saturating_add(u32::from(start)).to_le_bytes())
                .collect();
            Ok(vec![DrawReq {
                topology: t,
                vertices: bytes,
                layout,
                indices: Some((Cow::Owned(owned), true)),
                first: 0,
                count,
                base_vertex: 0,
                vsrc,
                isrc: None,
            }])
        })
    }

    /// The DX6 indexed strips and fans: `count` primitives over `indices`
    /// biased by `start`.
    fn dx6_indexed_run(
        &mut self,
        t: Topology,
        count: u16,
        start: &Dp2StartVertex,
        indices: &[Dp2Index],
    ) -> Result<()> {
        let idx: Vec<u16> = indices.iter().map(|i| i.index.get()).collect();
        self.dx6_indexed(t, u32::from(count), start.v_start.get(), idx)
    }

    fn imm_draw(&mut self, t: Topology, count: u32, vertices: &'c [u8]) -> Result<()> {
        self.no_vertex_shader()?;
        let layout = layout_from_fvf(self.call.fvf)?;
        self.draw_with(move |_s, _c, _call| {
            Ok(vec![DrawReq {
                topology: t,
                vertices: Cow::Borrowed(vertices),
                layout,
                indices: None,
                first: 0,
                count,
                base_vertex: 0,
                vsrc: None,
                isrc: None,
            }])
        })
    }

    /// DRAWPRIMITIVE2 and CLIPPEDTRIANGLEFAN: `(primType, byte offset of
    /// the first vertex in stream 0, primitive count)` per draw; `what`
    /// names the bytes a draw reaching past stream 0 needs.
    fn offset_draws(&mut self, what: &'static str, draws: &[(u32, u32, u32)]) -> Result<()> {
        self.stream_draw(|s0, stride| {
            let mut v = Vec::new();
            for &(prim_type, offset, count) in draws {
                let t = topology(prim_type)?;
                let need = vertex_bytes(u64::from(offset), t.vertex_count(count), stride);
                if count > 0 && need > s0.len() as u64 {
                    return Err(range(what, need, s0.len() as u64));
                }
                v.push(StreamDraw::Seq {
                    t,
                    start: 0,
                    count,
                    byte_offset: offset,
                });
            }
            Ok(v)
        })
    }

    fn stream_draw(&mut self, f: impl FnOnce(&[u8], u32) -> Result<Vec<StreamDraw>>) -> Result<()> {
        self.draw_with(move |surfaces, ctx, call| {
            let (s0, layout, src0) = stream_input(surfaces, ctx, call)?;
            let list = f(&s0, layout.stride)?;
            let mut v = Vec::new();
            for d in list {
                let StreamDraw::Seq {
                    t,
                    start,
                    count,
                    byte_offset,
                } = d;
                v.push(DrawReq {
                    topology: t,
                    vertices: tail(&s0, byte_offset as usize),
                    layout,
                    indices: None,
                    first: start,
                    count,
                    base_vertex: 0,
                    vsrc: src0.map(|(h, o)| (h, o.saturating_add(byte_offset))),
                    isrc: None,
                });
            }
            Ok(v)
        })
    }

    fn indexed_stream_draw(&mut self, list: &[IndexedDraw]) -> Result<()> {
        self.draw_with(move |surfaces, ctx, call| {
            let (s0, layout, src0) = stream_input(surfaces, ctx, call)?;
            let (ih, istride) = ctx
                .state
                .indices
                .ok_or(DeviceError::InvalidParams("no index buffer bound"))?;
            let ib = surfaces.get(ih)?.buffer(ih)?;
            let stride = u64::from(layout.stride);
            let mut v = Vec::new();
            for d in list {
                let t = topology(d.prim_type)?;
                let n = t.vertex_count(d.count);
                // Sizes saturate: a saturated end is past the buffer.
                let start = if d.start_in_indices {
                    d.start_byte.saturating_mul(u64::from(istride))
                } else {
                    d.start_byte
                };
                let end = start.saturating_add(n.saturating_mul(u64::from(istride)));
                if end > ib.len() as u64 {
                    return Err(range("index buffer bytes", end, ib.len() as u64));
                }
                let slice = ib.get(start as usize..end as usize).unwrap_or_default();
                let ix = if istride == 2 {
                    Indices::U16(slice)
                } else {
                    Indices::U32(slice)
                };
                // Vertex k's byte offset in stream 0: base + k·stride (indices
                // in vertices) or base_bytes + k·stride.
                // An i32 or u32 base times a u32 stride, plus a u32 index
                // times it, stays far inside an i64; a saturated offset
                // would fail the range check all the same.
                let base_bytes = if d.base_in_bytes {
                    d.base
                } else {
                    d.base.saturating_mul(stride as i64)
                };
                for k in 0..ix.len() {
                    let i = i64::from(ix.get(k).unwrap_or(0));
                    let off = base_bytes.saturating_add(i.saturating_mul(stride as i64));
                    if off < 0 || (off as u64).saturating_add(stride) > s0.len() as u64 {
                        return Err(range(
                            "vertex of index",
                            i.max(0) as u64,
                            (s0.len() as u64).checked_div(stride.max(1)).unwrap_or(0),
                        ));
                    }
                }
                let bad_base = || range("BaseVertexIndex", d.base.unsigned_abs(), i32::MAX as u64);
                // A stride of 0 (no vertex layout has one) is an error, not
                // a division by zero.
                let s = base_bytes
                    .checked_rem_euclid(stride as i64)
                    .ok_or_else(bad_base)?;
                let base_vertex = base_bytes
                    .checked_sub(s)
                    .and_then(|b| b.checked_div(stride as i64))
                    .and_then(|v| i32::try_from(v).ok())
                    .ok_or_else(bad_base)?;
                v.push(DrawReq {
                    topology: t,
                    vertices: tail(&s0, s as usize),
                    layout,
                    indices: Some((Cow::Borrowed(slice), istride == 4)),
                    first: 0,
                    count: d.count,
                    base_vertex,
                    vsrc: src0.map(|(h, o)| (h, o.saturating_add(s as u32))),
                    isrc: Some((ih, start as u32)),
                });
            }
            Ok(v)
        })
    }
}

/// Stream-draw plans.
enum StreamDraw {
    Seq {
        t: Topology,
        start: u32,
        count: u32,
        byte_offset: u32,
    },
}

struct IndexedDraw {
    prim_type: u32,
    count: u32,
    start_byte: u64,
    start_in_indices: bool,
    base: i64,
    base_in_bytes: bool,
}

fn check_range(what: &'static str, start: u32, count: u32, n: u32) -> Result<()> {
    // Two u32s cannot overflow a u64.
    let end = u64::from(start).saturating_add(u64::from(count));
    if end > u64::from(n) {
        return Err(DeviceError::OutOfRange {
            what,
            value: end.saturating_sub(1),
            limit: u64::from(n),
        });
    }
    Ok(())
}

/// Validates the draws `f` builds, then lowers them into GPU packets.
/// Returns (primitives, pipeline draws) as the GPU will count them.
/// (A function of the executor's fields, not a method: `f` borrows the
/// surfaces, context and call while the GPU is written.)
fn run_draws<'c, F>(x: &mut Exec<'_, 'c>, targets: (u32, Option<u32>), f: F) -> Result<(u64, u64)>
where
    F: for<'s> FnOnce(&'s Slab<Resource>, &'s Context, &'s Call<'c>) -> Result<Vec<DrawReq<'s>>>,
{
    let Exec {
        gpu,
        ctx_h,
        surfaces,
        ctx,
        call,
    } = x;
    let (gpu, ctx_h, surfaces, ctx, call) = (&mut **gpu, *ctx_h, &mut **surfaces, &**ctx, &**call);
    use crate::umd::LoweredDraw;
    let color = surfaces.get(targets.0)?.target_of(targets.0);
    let extra = ctx.extra_targets(surfaces)?;
    // D3DTSS_TEXTUREMAP of each stage: a handle that is not a live texture
    // (never created, destroyed, or another kind of surface) samples as no
    // texture (docs/device.md).
    let textures = ctx
        .state
        .texture_handles()
        .map(|h| (h != 0 && surfaces.get(h).is_ok_and(|r| r.texture().is_some())).then_some(h));
    // The requests borrow the surfaces; the lowered packets own copies of
    // inline data, so build them first, then submit.
    // The shaders bound (none for a fixed-function draw: nothing is
    // allocated then).
    let vs = vertex_shader(ctx)?;
    let ps = match ctx.state.pixel_shader {
        0 => None,
        h => Some(ctx.pixel_shaders.get(&h).ok_or(DeviceError::BadHandle {
            handle: h,
            what: "pixel shader",
        })?),
    };
    let inputs = match vs {
        Some(code) => shader_inputs(&shader_elements(ctx, code)?)?,
        None => Vec::new(),
    };
    let shaders = crate::umd::ShaderBinding {
        vertex: vs,
        pixel: ps,
        vs_consts: &ctx.state.vs_consts,
        ps_consts: &ctx.state.ps_consts,
        inputs,
    };
    let gctx = gpu.context(ctx_h)?;
    gpu.begin(gctx, surfaces)?;
    let shared: &Slab<Resource> = surfaces;
    let reqs = f(shared, ctx, call)?;
    let mut prims = 0u64;
    let mut n = 0u64;
    for r in &reqs {
        let dc = DrawCall {
            topology: r.topology,
            vertices: &r.vertices,
            layout: &r.layout,
            indices: r.indices.as_ref().map(|(b, wide)| {
                if *wide {
                    Indices::U32(b)
                } else {
                    Indices::U16(b)
                }
            }),
            first: r.first,
            primitive_count: r.count,
            base_vertex: r.base_vertex,
        };
        // A vertex shader reads only the stride of the layout.
        if shaders.vertex.is_some() {
            dc.validate_buffers()?;
        } else {
            dc.validate()?;
        }
        if r.count > 0 {
            prims = prims.saturating_add(u64::from(r.count));
            n = n.saturating_add(1);
        }
    }
    fn src(s: Option<(u32, u32)>, b: &[u8]) -> crate::umd::Src<'_> {
        match s {
            Some((h, offset)) => crate::umd::Src::Surface {
                h,
                offset,
                bytes: b,
            },
            None => crate::umd::Src::Inline(b),
        }
    }
    let lowered: Vec<LoweredDraw<'_>> = reqs
        .iter()
        .map(|r| LoweredDraw {
            topology: topology_d3d(r.topology),
            layout: r.layout,
            vertices: src(r.vsrc, &r.vertices),
            indices: r
                .indices
                .as_ref()
                .map(|(b, wide)| (src(r.isrc, b), if *wide { 4 } else { 2 })),
            first: r.first,
            count: r.count,
            base_vertex: r.base_vertex,
        })
        .collect();
    // Inline data is copied into the UMD's command buffer here; the
    // borrows of `surfaces` end with `lowered`.
    gpu.draws_from(
        (color, targets.1),
        &extra,
        &textures,
        &ctx.state,
        &shaders,
        &lowered,
    )?;
    drop(lowered);
    drop(reqs);
    gpu.settle(surfaces)?;
    Ok((prims, n))
}

/// The D3DPRIMITIVETYPE of a topology (GPU packets carry D3D numbers).
fn topology_d3d(t: Topology) -> u32 {
    match t {
        Topology::PointList => PrimitiveType::PointList,
        Topology::LineList => PrimitiveType::LineList,
        Topology::LineStrip => PrimitiveType::LineStrip,
        Topology::TriangleList => PrimitiveType::TriangleList,
        Topology::TriangleStrip => PrimitiveType::TriangleStrip,
        Topology::TriangleFan => PrimitiveType::TriangleFan,
    }
    .raw()
}
