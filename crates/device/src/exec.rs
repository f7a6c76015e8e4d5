//! Executing one decoded DP2 command against a context.
//!
//! In: a [`Command`] the walker decoded, the context, the driver's surfaces
//! and renderer, and the call's data (flags, vertex source, lpdwRStates).
//! Out: the command's effect, or an error that leaves **no** effect: every
//! handler validates all of its records (handles, indices, ranges, enum
//! values) before it changes anything, so a failing command never takes
//! partial effect (prefix semantics).
//!
//! Rendering goes through the pipeline: the executor translates DP2 state
//! into [`softhal_pipeline::PipelineState`], vertex formats into
//! [`VertexLayout`], and primitive opcodes into [`DrawCall`]s, after
//! checking every vertex index and range against the data that exists.

use crate::context::{
    CachedPatch, Context, Query, QueryKind, Response, StateBlock, StateKey, VertexShader8,
};
use crate::error::{check_below, range, DeviceError, Result};
use crate::handle::Slab;
use crate::limits;
use crate::patch;
use crate::resource::{Resource, SurfaceKind};
use crate::shader::{self, ShaderKind};
use crate::state::{self, DeviceState, LightSlot, Stream, StreamSource, VertexInput};
use crate::stateblock;
use softhal_pipeline::{
    self as pl, DrawCall, Indices, PositionKind, TexCoordElement, Topology, VertexLayout,
};
use softhal_wire::command::CodeHead;
use softhal_wire::fvf::{FvfLayout, PositionKind as FvfPos};
use softhal_wire::names::QueryType;
use softhal_wire::structs::*;
use softhal_wire::{Command, Records};
use std::borrow::Cow;
use std::collections::BTreeSet;

use crate::dp2::{D3DHALDP2_EXECUTEBUFFER as EXECUTEBUFFER, D3DHALDP2_USERMEMVERTICES as USERMEM};

/// The parts of the DP2 call the executor needs.
pub(crate) struct Call<'c> {
    pub flags: u32,
    pub fvf: u32,
    pub user: Option<&'c [u8]>,
    pub vertex_surface: u32,
    pub vertex_offset: u32,
    pub vertex_length: u32,
    pub rstates: Option<&'c mut [u32; 256]>,
}

/// The executor of one DP2 call.
pub(crate) struct Exec<'x, 'c> {
    /// The GPU (kernel side and the UMD's command buffer).
    pub gpu: &'x mut crate::gpu::Gpu,
    /// The device context handle (selects the GPU context).
    pub ctx_h: u32,
    pub surfaces: &'x mut Slab<Resource>,
    pub ctx: &'x mut Context,
    pub call: &'x mut Call<'c>,
}

/// One validated pipeline draw.
struct DrawReq<'v> {
    topology: Topology,
    vertices: Cow<'v, [u8]>,
    layout: VertexLayout,
    /// Index bytes and whether they are 32-bit.
    indices: Option<(Cow<'v, [u8]>, bool)>,
    first: u32,
    count: u32,
    base_vertex: i32,
    /// The vertex surface and the byte offset `vertices` starts at (None:
    /// user memory or generated data, copied into the command buffer).
    vsrc: Option<(u32, u32)>,
    /// Likewise for the indices.
    isrc: Option<(u32, u32)>,
}

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

fn topology(prim_type: u32) -> Result<Topology> {
    Topology::from_d3d(prim_type).ok_or(DeviceError::BadValue {
        what: "primType",
        value: prim_type,
    })
}

fn kind_of(surfaces: &Slab<Resource>, h: u32) -> Result<SurfaceKind> {
    Ok(surfaces.get(h)?.desc.kind)
}

/// The vertex buffer bytes of a surface handle.
fn vb_bytes(surfaces: &Slab<Resource>, h: u32) -> Result<&[u8]> {
    let r = surfaces.get(h)?;
    match r.desc.kind {
        SurfaceKind::VertexBuffer { .. } => r.buffer(h),
        _ => Err(r.wrong(h, "vertex buffer")),
    }
}

fn rect_of(r: &Rect) -> pl::Rect {
    pl::Rect::new(r.left.get(), r.top.get(), r.right.get(), r.bottom.get())
}

fn xf_matrix(t: &Dp2SetTransform) -> state::Mat {
    t.matrix()
}

/// DDRAWIPAL_ALPHA: the palette's flags byte is alpha.
const DDRAWIPAL_ALPHA: u32 = 0x2000;

/// A texture palette from a context palette (PALETTEENTRY DWORDs, bytes R,
/// G, B, flags) and the SETPALETTE flags.
fn texture_palette(entries: &[u32], flags: u32) -> pl::texture::Palette {
    let bytes: Vec<u8> = entries.iter().flat_map(|e| e.to_le_bytes()).collect();
    pl::texture::Palette::from_bytes(&bytes, 0, flags & DDRAWIPAL_ALPHA != 0)
}

fn light_bits(l: &D3dLight7) -> [u32; 26] {
    let mut out = [0u32; 26];
    for (o, c) in out
        .iter_mut()
        .zip(zerocopy::IntoBytes::as_bytes(l).chunks_exact(4))
    {
        *o = crate::le_u32(c);
    }
    out
}

impl<'x, 'c> Exec<'x, 'c> {
    /// The state that state commands change (the block being recorded, or
    /// the context's), the key recorder, and lpdwRStates when it must be
    /// updated.
    #[allow(clippy::type_complexity)]
    fn target(
        &mut self,
    ) -> (
        &mut DeviceState,
        Option<&mut BTreeSet<StateKey>>,
        Option<&mut [u32; 256]>,
    ) {
        let exec_buffer = self.call.flags & EXECUTEBUFFER != 0;
        match &mut self.ctx.recording {
            Some((_, b)) => (&mut b.values, Some(&mut b.keys), None),
            None => {
                let rs = if exec_buffer {
                    self.call.rstates.as_deref_mut()
                } else {
                    None
                };
                (&mut self.ctx.state, None, rs)
            }
        }
    }

    /// The state being read by validation of state commands.
    fn target_ref(&self) -> &DeviceState {
        match &self.ctx.recording {
            Some((_, b)) => &b.values,
            None => &self.ctx.state,
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

    /// Executes one command.
    #[allow(clippy::too_many_lines)]
    pub fn execute(&mut self, cmd: &Command<'c>) -> Result<()> {
        use Command as C;
        match *cmd {
            C::RenderState(recs) => self.render_states(recs),
            C::TextureStageState(recs) => {
                for r in recs {
                    check_below(
                        "wStage",
                        u64::from(r.stage.get()),
                        u64::from(limits::MAX_TEXTURE_STAGES),
                    )?;
                    check_below(
                        "TSState",
                        u64::from(r.state.get()),
                        u64::from(limits::TSS_PER_STAGE),
                    )?;
                }
                let dx = self.ctx.dx_version;
                let (st, mut keys, _) = self.target();
                for r in recs {
                    let s = u32::from(r.stage.get());
                    for (t, v) in
                        state::texture_stage_writes(u32::from(r.state.get()), r.value.get(), dx)
                    {
                        if let Some(slot) = st
                            .texture_stages
                            .get_mut(s as usize)
                            .and_then(|a| a.get_mut(t as usize))
                        {
                            *slot = v;
                        }
                        if let Some(k) = keys.as_deref_mut() {
                            k.insert(StateKey::TextureStage(s, t));
                        }
                    }
                }
                Ok(())
            }
            C::ViewportInfo(recs) => {
                let (st, keys, _) = self.target();
                if let Some(v) = recs.last() {
                    st.viewport.x = v.x.get();
                    st.viewport.y = v.y.get();
                    st.viewport.width = v.width.get();
                    st.viewport.height = v.height.get();
                    if let Some(k) = keys {
                        k.insert(StateKey::Viewport);
                    }
                }
                Ok(())
            }
            C::ZRange(recs) => {
                for r in recs {
                    let (a, b) = (r.min_z.get(), r.max_z.get());
                    if !a.is_finite() || !b.is_finite() {
                        return Err(DeviceError::BadValue {
                            what: "ZRANGE",
                            value: r.min_z.bits(),
                        });
                    }
                }
                let (st, keys, _) = self.target();
                if let Some(r) = recs.last() {
                    st.viewport.min_z = r.min_z.get();
                    st.viewport.max_z = r.max_z.get();
                    if let Some(k) = keys {
                        k.insert(StateKey::Viewport);
                    }
                }
                Ok(())
            }
            C::WInfo(recs) => {
                for r in recs {
                    if !r.w_near.get().is_finite() || !r.w_far.get().is_finite() {
                        return Err(DeviceError::BadValue {
                            what: "WINFO",
                            value: r.w_near.bits(),
                        });
                    }
                }
                let (st, keys, _) = self.target();
                if let Some(r) = recs.last() {
                    st.w_range = (r.w_near.get(), r.w_far.get());
                    if let Some(k) = keys {
                        k.insert(StateKey::WInfo);
                    }
                }
                Ok(())
            }
            C::SetMaterial(recs) => {
                let (st, keys, _) = self.target();
                if let Some(m) = recs.last() {
                    let mut bits = [0u32; 17];
                    for (o, c) in bits
                        .iter_mut()
                        .zip(zerocopy::IntoBytes::as_bytes(m).chunks_exact(4))
                    {
                        *o = crate::le_u32(c);
                    }
                    st.material = Some(bits);
                    if let Some(k) = keys {
                        k.insert(StateKey::Material);
                    }
                }
                Ok(())
            }
            C::CreateLight(recs) => {
                for r in recs {
                    check_below(
                        "CREATELIGHT dwIndex",
                        u64::from(r.index.get()),
                        u64::from(limits::MAX_LIGHTS),
                    )?;
                }
                let (st, mut keys, _) = self.target();
                for r in recs {
                    let i = r.index.get() as usize;
                    if let Some(len) = i.checked_add(1).filter(|&n| st.lights.len() < n) {
                        st.lights.resize(
                            len,
                            LightSlot {
                                enabled: false,
                                data: None,
                            },
                        );
                    }
                    if let Some(k) = keys.as_deref_mut() {
                        k.insert(StateKey::Light(i as u32));
                    }
                }
                Ok(())
            }
            C::SetLight(recs) => self.set_lights(recs),
            C::SetTransform(recs) | C::MultiplyTransform(recs) => {
                let multiply = matches!(cmd, C::MultiplyTransform(_));
                let mut keys_v = Vec::new();
                for r in recs {
                    keys_v.push(state::transform_key(r.transform_type.get())?);
                }
                let (st, mut keys, _) = self.target();
                for (r, key) in recs.iter().zip(keys_v) {
                    let m = xf_matrix(r);
                    let v = if multiply {
                        state::mat_mul(&m, &st.transform(key))
                    } else {
                        m
                    };
                    st.transforms.insert(key, v);
                    if let Some(k) = keys.as_deref_mut() {
                        k.insert(StateKey::Transform(key));
                    }
                }
                Ok(())
            }
            C::SetClipPlane(recs) => {
                for r in recs {
                    check_below(
                        "SETCLIPPLANE dwIndex",
                        u64::from(r.index.get()),
                        u64::from(limits::MAX_CLIP_PLANES),
                    )?;
                }
                let (st, mut keys, _) = self.target();
                for r in recs {
                    let i = r.index.get();
                    if let Some(p) = st.clip_planes.get_mut(i as usize) {
                        *p = [r.a.get(), r.b.get(), r.c.get(), r.d.get()];
                    }
                    if let Some(k) = keys.as_deref_mut() {
                        k.insert(StateKey::ClipPlane(i));
                    }
                }
                Ok(())
            }
            C::SetScissorRect(recs) => {
                let (st, keys, _) = self.target();
                if let Some(r) = recs.last() {
                    st.scissor = [r.left.get(), r.top.get(), r.right.get(), r.bottom.get()];
                    if let Some(k) = keys {
                        k.insert(StateKey::Scissor);
                    }
                }
                Ok(())
            }
            C::SetVertexShader(recs) => {
                let mut inputs = Vec::new();
                for r in recs {
                    let h = r.handle.get();
                    inputs.push(if self.ctx.vertex_shaders.contains_key(&h) {
                        VertexInput::Shader(h)
                    } else {
                        if h != 0 {
                            FvfLayout::parse(h)?;
                        }
                        VertexInput::Fvf(h)
                    });
                }
                self.set_vertex_input(&inputs)
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
                        if h != 0 {
                            FvfLayout::parse(h)?;
                        }
                        VertexInput::Fvf(h)
                    });
                }
                self.set_vertex_input(&inputs)
            }
            C::SetVertexShaderFunc(recs) => {
                for r in recs {
                    let h = r.handle.get();
                    if h != 0 && !self.ctx.vs_funcs.contains_key(&h) {
                        return Err(DeviceError::BadHandle {
                            handle: h,
                            what: "vertex shader function",
                        });
                    }
                }
                let (st, keys, _) = self.target();
                if let Some(r) = recs.last() {
                    st.vertex_shader_func = r.handle.get();
                    if let Some(k) = keys {
                        k.insert(StateKey::VertexShaderFunc);
                    }
                }
                Ok(())
            }
            C::SetPixelShader(recs) => {
                for r in recs {
                    let h = r.handle.get();
                    if h != 0 && !self.ctx.pixel_shaders.contains_key(&h) {
                        return Err(DeviceError::BadHandle {
                            handle: h,
                            what: "pixel shader",
                        });
                    }
                }
                let (st, keys, _) = self.target();
                if let Some(r) = recs.last() {
                    st.pixel_shader = r.handle.get();
                    if let Some(k) = keys {
                        k.insert(StateKey::PixelShader);
                    }
                }
                Ok(())
            }
            C::SetVertexShaderConst(r) => self.consts_v(r, true, 0),
            C::SetVertexShaderConstI(r) => self.consts_v(r, true, 1),
            C::SetPixelShaderConst(r) => self.consts_v(r, false, 0),
            C::SetPixelShaderConstI(r) => self.consts_v(r, false, 1),
            C::SetVertexShaderConstB(r) => self.consts_b(r, true),
            C::SetPixelShaderConstB(r) => self.consts_b(r, false),
            C::SetStreamSource(recs) => {
                let mut v = Vec::new();
                for r in recs {
                    v.push((r.stream.get(), r.vb_handle.get(), 0, r.stride.get()));
                }
                self.set_streams(&v, false)
            }
            C::SetStreamSource2(recs) => {
                let mut v = Vec::new();
                for r in recs {
                    v.push((
                        r.stream.get(),
                        r.vb_handle.get(),
                        r.offset.get(),
                        r.stride.get(),
                    ));
                }
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
            C::SetStreamSourceFreq(recs) => {
                for r in recs {
                    check_below(
                        "dwStream",
                        u64::from(r.stream.get()),
                        u64::from(limits::MAX_STREAMS),
                    )?;
                }
                let (st, mut keys, _) = self.target();
                for r in recs {
                    let s = r.stream.get();
                    if let Some(slot) = st.streams.get_mut(s as usize) {
                        slot.divider = r.divider.get();
                    }
                    if let Some(k) = keys.as_deref_mut() {
                        k.insert(StateKey::Stream(s));
                    }
                }
                Ok(())
            }
            C::SetIndices(recs) => {
                for r in recs {
                    let h = r.vb_handle.get();
                    if h != 0 {
                        let k = kind_of(self.surfaces, h)?;
                        if k != SurfaceKind::IndexBuffer {
                            return Err(DeviceError::WrongKind {
                                handle: h,
                                expected: "index buffer",
                                actual: k.name(),
                            });
                        }
                        if !matches!(r.stride.get(), 2 | 4) {
                            return Err(DeviceError::BadValue {
                                what: "SETINDICES dwStride",
                                value: r.stride.get(),
                            });
                        }
                    }
                }
                let (st, keys, _) = self.target();
                if let Some(r) = recs.last() {
                    let h = r.vb_handle.get();
                    st.indices = (h != 0).then_some((h, r.stride.get()));
                    if let Some(k) = keys {
                        k.insert(StateKey::Indices);
                    }
                }
                Ok(())
            }

            // ---------------------------------------------- DX6 primitives
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
            } => {
                let idx: Vec<u16> = indices.iter().map(|i| i.index.get()).collect();
                self.dx6_indexed(
                    Topology::LineStrip,
                    u32::from(count),
                    start.v_start.get(),
                    idx,
                )
            }
            C::IndexedTriangleStrip {
                count,
                start,
                indices,
            } => {
                let idx: Vec<u16> = indices.iter().map(|i| i.index.get()).collect();
                self.dx6_indexed(
                    Topology::TriangleStrip,
                    u32::from(count),
                    start.v_start.get(),
                    idx,
                )
            }
            C::IndexedTriangleFan {
                count,
                start,
                indices,
            } => {
                let idx: Vec<u16> = indices.iter().map(|i| i.index.get()).collect();
                self.dx6_indexed(
                    Topology::TriangleFan,
                    u32::from(count),
                    start.v_start.get(),
                    idx,
                )
            }
            C::TriangleFanImm {
                count, vertices, ..
            } => self.imm_draw(Topology::TriangleFan, u32::from(count), vertices),
            C::LineListImm { count, vertices } => {
                self.imm_draw(Topology::LineList, u32::from(count), vertices)
            }

            // ---------------------------------------------- DX8 stream draws
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
            C::DrawPrimitive2(recs) => self.stream_draw(|s0, stride| {
                let mut v = Vec::new();
                for r in recs {
                    let t = topology(r.prim_type.get())?;
                    let off = u64::from(r.first_vertex_offset.get());
                    let need = vertex_bytes(off, t.vertex_count(r.primitive_count.get()), stride);
                    if r.primitive_count.get() > 0 && need > s0.len() as u64 {
                        return Err(range("DRAWPRIMITIVE2 vertex bytes", need, s0.len() as u64));
                    }
                    v.push(StreamDraw::Seq {
                        t,
                        start: 0,
                        count: r.primitive_count.get(),
                        byte_offset: r.first_vertex_offset.get(),
                    });
                }
                Ok(v)
            }),
            C::ClippedTriangleFan(recs) => self.stream_draw(|s0, stride| {
                let mut v = Vec::new();
                for r in recs {
                    let t = Topology::TriangleFan;
                    let off = u64::from(r.first_vertex_offset.get());
                    let need = vertex_bytes(off, t.vertex_count(r.primitive_count.get()), stride);
                    if r.primitive_count.get() > 0 && need > s0.len() as u64 {
                        return Err(range(
                            "CLIPPEDTRIANGLEFAN vertex bytes",
                            need,
                            s0.len() as u64,
                        ));
                    }
                    v.push(StreamDraw::Seq {
                        t,
                        start: 0,
                        count: r.primitive_count.get(),
                        byte_offset: r.first_vertex_offset.get(),
                    });
                }
                Ok(v)
            }),
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

            // ---------------------------------------------- targets, clear
            C::SetRenderTarget(recs) => {
                for r in recs {
                    self.check_targets(r.render_target.get(), r.z_buffer.get())?;
                }
                if let Some(r) = recs.last() {
                    self.ctx.render_target = r.render_target.get();
                    self.ctx.depth = (r.z_buffer.get() != 0).then_some(r.z_buffer.get());
                }
                Ok(())
            }
            C::SetRenderTarget2(recs) => {
                for r in recs {
                    let (i, h) = (r.rt_index.get(), r.render_target.get());
                    check_below("RTIndex", u64::from(i), 4)?;
                    if i == 0 || h != 0 {
                        self.check_color_target(h)?;
                    }
                }
                for r in recs {
                    let (i, h) = (r.rt_index.get(), r.render_target.get());
                    if i == 0 {
                        self.ctx.render_target = h;
                    } else if let Some(slot) = (i as usize)
                        .checked_sub(1)
                        .and_then(|j| self.ctx.extra_targets.get_mut(j))
                    {
                        *slot = h;
                    }
                }
                Ok(())
            }
            C::SetDepthStencil(recs) => {
                for r in recs {
                    self.check_targets(self.ctx.render_target, r.z_buffer.get())?;
                }
                if let Some(r) = recs.last() {
                    self.ctx.depth = (r.z_buffer.get() != 0).then_some(r.z_buffer.get());
                }
                Ok(())
            }
            C::Clear { clear, rects } => {
                let rs: Vec<pl::Rect> = rects.iter().map(rect_of).collect();
                crate::blt::clear(
                    self.gpu,
                    self.ctx_h,
                    self.surfaces,
                    self.ctx,
                    clear.flags.get(),
                    clear.fill_color.get(),
                    clear.fill_depth.get(),
                    clear.fill_stencil.get(),
                    &rs,
                )
            }

            // ---------------------------------------------- state blocks
            C::StateSet(recs) => {
                if recs.len() <= 1 {
                    // One record checks everything before it changes anything.
                    return recs.iter().try_for_each(|r| self.state_set(r));
                }
                // Several records: a failing one must leave none of them
                // applied (prefix semantics), so restore what they touch.
                let saved = (
                    self.ctx.recording.clone(),
                    self.ctx.state_blocks.clone(),
                    self.ctx.state.clone(),
                );
                for r in recs {
                    if let Err(e) = self.state_set(r) {
                        (self.ctx.recording, self.ctx.state_blocks, self.ctx.state) = saved;
                        return Err(e);
                    }
                }
                Ok(())
            }

            // ---------------------------------------------- blts
            C::BufferBlt(recs) => {
                crate::blt::buffer_blt_check(self.surfaces, recs)?;
                let copies: Vec<crate::gpu::GpuCopy> = recs
                    .iter()
                    .map(|r| crate::gpu::GpuCopy::Buffer {
                        src: r.src_surface.get(),
                        src_offset: r.src_offset.get(),
                        dst: r.dest_surface.get(),
                        dst_offset: r.dest_offset.get(),
                        bytes: r.src_size.get(),
                    })
                    .collect();
                self.gpu.copies(self.ctx_h, self.surfaces, &copies)?;
                // Later commands of this call may read the copied bytes on
                // the CPU (index validation, patches): let the GPU run.
                self.gpu.finish(self.surfaces)
            }
            C::TexBlt(_) | C::VolumeBlt(_) => {
                // Validated here with the kernel's own rule, copied by the
                // GPU's copy engine in stream order (no CPU wait).
                let (copies, preloads) = match *cmd {
                    C::TexBlt(recs) => crate::blt::tex_blt(self.surfaces, recs)?,
                    C::VolumeBlt(recs) => (crate::blt::volume_blt(self.surfaces, recs)?, 0),
                    _ => (Vec::new(), 0),
                };
                if !copies.is_empty() {
                    self.gpu.copies(self.ctx_h, self.surfaces, &copies)?;
                }
                self.ctx.stats.preloads = self.ctx.stats.preloads.saturating_add(preloads);
                Ok(())
            }
            C::Blt(_) | C::SurfaceBlt(_) | C::ColorFill(_) | C::GenerateMipSubLevels(_) => {
                // CPU blts: the GPU finishes what it was given first.
                self.gpu.finish(self.surfaces)?;
                match *cmd {
                    C::Blt(recs) | C::SurfaceBlt(recs) => crate::blt::blt(self.surfaces, recs),
                    C::ColorFill(recs) => crate::blt::color_fill(self.surfaces, recs),
                    C::GenerateMipSubLevels(recs) => crate::blt::generate_mips(self.surfaces, recs),
                    _ => Ok(()),
                }
            }

            // ---------------------------------------------- recorded only
            C::SetTexLod(recs) => {
                for r in recs {
                    self.surfaces.get(r.surface.get())?;
                }
                // The clamp applies to draws after this command only.
                self.gpu.finish(self.surfaces)?;
                for r in recs {
                    if let Ok(s) = self.surfaces.get_mut(r.surface.get()) {
                        s.lod = r.lod.get();
                        if let Some(t) = s.texture_mut() {
                            t.set_lod(r.lod.get());
                        }
                    }
                }
                Ok(())
            }
            C::SetPriority(recs) => {
                for r in recs {
                    self.surfaces.get(r.surface.get())?;
                }
                for r in recs {
                    if let Ok(s) = self.surfaces.get_mut(r.surface.get()) {
                        s.priority = r.priority.get();
                    }
                }
                Ok(())
            }
            C::AddDirtyRect(recs) => {
                for r in recs {
                    self.surfaces.get(r.surface.get())?;
                }
                for r in recs {
                    if let Ok(s) = self.surfaces.get_mut(r.surface.get()) {
                        let g = |v: zerocopy::little_endian::I32| i64::from(v.get());
                        s.add_dirty([g(r.left), g(r.top), 0, g(r.right), g(r.bottom), 1]);
                    }
                }
                Ok(())
            }
            C::AddDirtyBox(recs) => {
                for r in recs {
                    self.surfaces.get(r.surface.get())?;
                }
                for r in recs {
                    if let Ok(s) = self.surfaces.get_mut(r.surface.get()) {
                        let g = |v: zerocopy::little_endian::U32| i64::from(v.get());
                        s.add_dirty([
                            g(r.left),
                            g(r.top),
                            g(r.front),
                            g(r.right),
                            g(r.bottom),
                            g(r.back),
                        ]);
                    }
                }
                Ok(())
            }
            C::Ext(recs) => {
                self.ctx.stats.ext_tokens =
                    self.ctx.stats.ext_tokens.saturating_add(recs.len() as u64);
                Ok(())
            }
            C::SetPalette(recs) => {
                // The palettes the whole command creates count against the
                // cap (not each record against the palettes before it).
                let mut new = std::collections::BTreeSet::new();
                for r in recs {
                    self.surfaces.get(r.surface_handle.get())?;
                    let p = r.palette_handle.get();
                    if p != 0 && !self.ctx.palettes.contains_key(&p) {
                        new.insert(p);
                    }
                    if self.ctx.palettes.len().saturating_add(new.len()) > limits::MAX_PALETTES {
                        return Err(DeviceError::Limit {
                            what: "palettes",
                            max: limits::MAX_PALETTES as u64,
                        });
                    }
                }
                // Draws before this command keep the old palette.
                self.gpu.finish(self.surfaces)?;
                for r in recs {
                    let p = r.palette_handle.get();
                    let entries = (p != 0).then(|| {
                        self.ctx
                            .palettes
                            .entry(p)
                            .or_insert_with(|| vec![0; limits::PALETTE_ENTRIES as usize])
                            .clone()
                    });
                    if let Ok(s) = self.surfaces.get_mut(r.surface_handle.get()) {
                        let flags = r.palette_flags.get();
                        s.palette = (p != 0).then_some((p, flags));
                        if let Some(t) = s.texture_mut() {
                            t.set_palette(entries.as_deref().map(|e| texture_palette(e, flags)));
                        }
                    }
                }
                Ok(())
            }
            C::UpdatePalette {
                update, entries, ..
            } => {
                let p = update.palette_handle.get();
                let start = u32::from(update.start_index.get());
                // A WORD start and a WORD count cannot overflow a u64.
                let end = u64::from(start).saturating_add(entries.len() as u64);
                if end > u64::from(limits::PALETTE_ENTRIES) {
                    return Err(range("UPDATEPALETTE entries", end, 257));
                }
                if p == 0 {
                    return Err(DeviceError::BadHandle {
                        handle: 0,
                        what: "palette",
                    });
                }
                if !self.ctx.palettes.contains_key(&p)
                    && self.ctx.palettes.len() >= limits::MAX_PALETTES
                {
                    return Err(DeviceError::Limit {
                        what: "palettes",
                        max: limits::MAX_PALETTES as u64,
                    });
                }
                let pal = self
                    .ctx
                    .palettes
                    .entry(p)
                    .or_insert_with(|| vec![0; limits::PALETTE_ENTRIES as usize]);
                for (slot, e) in pal.iter_mut().skip(start as usize).zip(entries) {
                    *slot = e.entry.get();
                }
                let pal = pal.clone();
                // Textures using the palette see the new entries from the
                // next draw on.
                self.gpu.finish(self.surfaces)?;
                for (_, s) in self.surfaces.iter_mut() {
                    if let Some((h, flags)) = s.palette {
                        if h == p {
                            if let Some(t) = s.texture_mut() {
                                t.set_palette(Some(texture_palette(&pal, flags)));
                            }
                        }
                    }
                }
                Ok(())
            }
            C::SetConvolutionKernelMono(recs) => {
                let mut last = None;
                for r in recs.iter() {
                    let (w, h) = (r.head.width.get(), r.head.height.get());
                    if w == 0 || h == 0 || w > 7 || h > 7 {
                        return Err(DeviceError::BadValue {
                            what: "convolution kernel size",
                            value: w.max(h),
                        });
                    }
                    let bits = |o: Option<&[F32Le]>, n: u32| {
                        o.map_or(vec![1.0f32.to_bits(); n as usize], |w| {
                            w.iter().map(|f| f.bits()).collect()
                        })
                    };
                    last = Some((w, h, bits(r.row_weights, w), bits(r.col_weights, h)));
                }
                if last.is_some() {
                    self.ctx.convolution = last;
                }
                Ok(())
            }
            C::ComposeRects(_) => Err(DeviceError::Unsupported("D3DDP2OP_COMPOSERECTS")),
            C::Reserved0 { .. } => Err(DeviceError::Unsupported(
                "D3DDP2OP_RESERVED0 is never sent to a driver",
            )),
            C::ResponseQuery(_) | C::ResponseContinue { .. } => Err(DeviceError::Unsupported(
                "response records are written by the driver, never parsed",
            )),

            // ---------------------------------------------- shader objects
            C::CreateVertexShader(recs) => {
                self.check_shader_budget(recs.as_bytes().len())?;
                let mut v = Vec::new();
                for r in recs.iter() {
                    let h = r.head.handle.get();
                    let decl = shader::parse_dx8_decl(r.decl)?;
                    if !r.code.is_empty() {
                        shader::validate_shader(r.code, ShaderKind::Vertex)?;
                    }
                    v.push((
                        h,
                        VertexShader8 {
                            decl,
                            code: r.code.to_vec(),
                        },
                    ));
                }
                insert_objects(
                    &mut self.ctx.vertex_shaders,
                    v,
                    "vertex shaders",
                    limits::MAX_SHADER_OBJECTS,
                )
            }
            C::DeleteVertexShader(recs) => delete_objects(
                &mut self.ctx.vertex_shaders,
                recs.iter().map(|r| r.handle.get()),
                "vertex shader",
            ),
            C::CreateVertexShaderDecl(recs) => {
                self.check_shader_budget(recs.as_bytes().len())?;
                let mut v = Vec::new();
                for r in recs.iter() {
                    let els: Vec<[u32; 6]> = r
                        .elements
                        .iter()
                        .map(|e| {
                            [
                                u32::from(e.stream.get()),
                                u32::from(e.offset.get()),
                                u32::from(e.decl_type),
                                u32::from(e.method),
                                u32::from(e.usage),
                                u32::from(e.usage_index),
                            ]
                        })
                        .collect();
                    v.push((r.head.handle.get(), shader::parse_decl9(&els)?));
                }
                insert_objects(
                    &mut self.ctx.decls,
                    v,
                    "vertex declarations",
                    limits::MAX_SHADER_OBJECTS,
                )
            }
            C::DeleteVertexShaderDecl(recs) => delete_objects(
                &mut self.ctx.decls,
                recs.iter().map(|r| r.handle.get()),
                "vertex declaration",
            ),
            C::CreateVertexShaderFunc(recs) => {
                self.check_shader_budget(recs.as_bytes().len())?;
                let v = validated_code_objects(&recs, ShaderKind::Vertex)?;
                insert_objects(
                    &mut self.ctx.vs_funcs,
                    v,
                    "vertex shader functions",
                    limits::MAX_SHADER_OBJECTS,
                )
            }
            C::DeleteVertexShaderFunc(recs) => delete_objects(
                &mut self.ctx.vs_funcs,
                recs.iter().map(|r| r.handle.get()),
                "vertex shader function",
            ),
            C::CreatePixelShader(recs) => {
                self.check_shader_budget(recs.as_bytes().len())?;
                let v = validated_code_objects(&recs, ShaderKind::Pixel)?;
                insert_objects(
                    &mut self.ctx.pixel_shaders,
                    v,
                    "pixel shaders",
                    limits::MAX_SHADER_OBJECTS,
                )
            }
            C::DeletePixelShader(recs) => delete_objects(
                &mut self.ctx.pixel_shaders,
                recs.iter().map(|r| r.handle.get()),
                "pixel shader",
            ),

            // ---------------------------------------------- queries
            C::CreateQuery(recs) => {
                let mut v = Vec::new();
                for r in recs {
                    let kind = match QueryType::from_raw(r.query_type.get()) {
                        Some(QueryType::VCache) => QueryKind::VCache,
                        Some(QueryType::Event) => QueryKind::Event,
                        Some(QueryType::Occlusion) => QueryKind::Occlusion,
                        _ => {
                            return Err(DeviceError::Unsupported(
                                "query type (EVENT, OCCLUSION and VCACHE only)",
                            ))
                        }
                    };
                    v.push((
                        r.query_id.get(),
                        Query {
                            kind,
                            begun_at: None,
                        },
                    ));
                }
                insert_objects(&mut self.ctx.queries, v, "queries", limits::MAX_QUERIES)
            }
            C::DeleteQuery(recs) => {
                let ids: Vec<u32> = recs.iter().map(|r| r.query_id.get()).collect();
                delete_objects(&mut self.ctx.queries, ids.iter().copied(), "query")?;
                self.ctx.responses.retain(|r| !ids.contains(&r.query_id));
                Ok(())
            }
            C::IssueQuery(recs) => self.issue_queries(recs),

            // ---------------------------------------------- patches
            C::DrawRectPatch(recs) => self.rect_patches(recs),
            C::DrawTriPatch(recs) => self.tri_patches(recs),

            C::Unknown { opcode } => Err(DeviceError::UnknownCommand { opcode }),
            _ => Err(DeviceError::Unsupported("opcode")),
        }
    }

    /// Fails when storing `more` bytes of tokens would exceed the
    /// per-context budget.
    fn check_shader_budget(&self, more: usize) -> Result<()> {
        // Byte counts saturate: a saturated total is over the cap.
        let c = &*self.ctx;
        let held = c
            .vertex_shaders
            .values()
            .map(|s| s.code.len().saturating_add(64))
            .chain(c.vs_funcs.values().map(Vec::len))
            .chain(c.pixel_shaders.values().map(Vec::len))
            .chain(
                c.decls
                    .values()
                    .map(|d| d.elements.len().saturating_mul(24)),
            )
            .fold(0usize, usize::saturating_add);
        if held.saturating_add(more) > limits::MAX_SHADER_CACHE_BYTES {
            return Err(DeviceError::Limit {
                what: "shader bytes per context",
                max: limits::MAX_SHADER_CACHE_BYTES as u64,
            });
        }
        Ok(())
    }

    fn render_states(&mut self, recs: &[Dp2RenderState]) -> Result<()> {
        for r in recs {
            check_below(
                "RenderState",
                u64::from(r.state.get()),
                u64::from(limits::MAX_RENDER_STATES),
            )?;
        }
        let recording = self.ctx.recording.is_some();
        let mut deleted = Vec::new();
        let mut scenes = 0u64;
        {
            let (st, mut keys, mut rstates) = self.target();
            for r in recs {
                let s = r.state.get();
                let v = state::sanitize_render_state(s, r.value.get());
                let was_in_scene = st.in_scene;
                st.set_render_state(s, v)?;
                if s == 62 && was_in_scene && !st.in_scene {
                    scenes = scenes.saturating_add(1);
                }
                if s == 169 && !recording {
                    deleted.push(v);
                }
                if let Some(k) = keys.as_deref_mut() {
                    k.insert(StateKey::Render(s));
                }
                if let Some(slot) = rstates.as_deref_mut().and_then(|a| a.get_mut(s as usize)) {
                    *slot = v;
                }
            }
        }
        for h in deleted {
            self.ctx.patches.remove(&h);
        }
        self.ctx.stats.scenes = self.ctx.stats.scenes.saturating_add(scenes);
        Ok(())
    }

    fn set_lights(
        &mut self,
        recs: Records<'c, softhal_wire::command::SetLightRecord<'c>>,
    ) -> Result<()> {
        let n = self.target_ref().lights.len() as u64;
        for r in recs.iter() {
            let i = u64::from(r.head.index.get());
            if i >= n {
                return Err(range("SETLIGHT dwIndex (not created)", i, n));
            }
            let dt = r.head.data_type.get();
            if dt > 2 {
                return Err(DeviceError::BadValue {
                    what: "SETLIGHT dwDataType",
                    value: dt,
                });
            }
            if let Some(l) = r.light {
                let t = l.light_type.get();
                if !(1..=3).contains(&t) {
                    return Err(DeviceError::BadValue {
                        what: "D3DLIGHT7.dltType",
                        value: t,
                    });
                }
            }
        }
        let (st, mut keys, _) = self.target();
        for r in recs.iter() {
            let i = r.head.index.get();
            if let Some(slot) = st.lights.get_mut(i as usize) {
                match r.head.data_type.get() {
                    0 => slot.enabled = true,
                    1 => slot.enabled = false,
                    _ => slot.data = r.light.map(light_bits),
                }
            }
            if let Some(k) = keys.as_deref_mut() {
                k.insert(StateKey::Light(i));
            }
        }
        Ok(())
    }

    fn set_vertex_input(&mut self, inputs: &[VertexInput]) -> Result<()> {
        let (st, keys, _) = self.target();
        if let Some(i) = inputs.last() {
            st.vertex_input = *i;
            if let Some(k) = keys {
                k.insert(StateKey::VertexInput);
            }
        }
        Ok(())
    }

    fn consts_v(
        &mut self,
        recs: Records<'c, softhal_wire::command::ShaderConstRecord<'c>>,
        vs: bool,
        kind: u32,
    ) -> Result<()> {
        let limit = match (vs, kind) {
            (true, 0) => limits::MAX_VS_CONST_F,
            (false, 0) => limits::MAX_PS_CONST_F,
            _ => limits::MAX_CONST_I,
        };
        for r in recs.iter() {
            // Two u32s cannot overflow a u64.
            let end =
                u64::from(r.head.register.get()).saturating_add(u64::from(r.head.count.get()));
            if end > u64::from(limit) {
                return Err(range("shader constant register", end, u64::from(limit) + 1));
            }
        }
        let (st, mut keys, _) = self.target();
        for r in recs.iter() {
            let c = if vs {
                &mut st.vs_consts
            } else {
                &mut st.ps_consts
            };
            let arr = if kind == 0 { &mut c.f } else { &mut c.i };
            // register + count ≤ limit (checked above).
            let reg = r.head.register.get();
            for (v, rr) in r.data.chunks_exact(4).zip(reg..) {
                if let Some(slot) = arr.get_mut(rr as usize) {
                    let g = |i: usize| v.get(i).map_or(0, |d| d.value.get());
                    *slot = [g(0), g(1), g(2), g(3)];
                }
                if let Some(keys) = keys.as_deref_mut() {
                    keys.insert(match (vs, kind) {
                        (true, 0) => StateKey::VsConstF(rr),
                        (true, _) => StateKey::VsConstI(rr),
                        (false, 0) => StateKey::PsConstF(rr),
                        (false, _) => StateKey::PsConstI(rr),
                    });
                }
            }
        }
        Ok(())
    }

    fn consts_b(
        &mut self,
        recs: Records<'c, softhal_wire::command::ShaderConstBRecord<'c>>,
        vs: bool,
    ) -> Result<()> {
        for r in recs.iter() {
            // Two u32s cannot overflow a u64.
            let end =
                u64::from(r.head.register.get()).saturating_add(u64::from(r.head.count.get()));
            if end > u64::from(limits::MAX_CONST_B) {
                return Err(range(
                    "BOOL constant register",
                    end,
                    u64::from(limits::MAX_CONST_B) + 1,
                ));
            }
        }
        let (st, mut keys, _) = self.target();
        for r in recs.iter() {
            let c = if vs {
                &mut st.vs_consts
            } else {
                &mut st.ps_consts
            };
            // register + count ≤ MAX_CONST_B (checked above).
            let reg = r.head.register.get();
            for (v, rr) in r.data.iter().zip(reg..) {
                if let Some(slot) = c.b.get_mut(rr as usize) {
                    *slot = v.value.get();
                }
                if let Some(keys) = keys.as_deref_mut() {
                    keys.insert(if vs {
                        StateKey::VsConstB(rr)
                    } else {
                        StateKey::PsConstB(rr)
                    });
                }
            }
        }
        Ok(())
    }

    fn set_streams(&mut self, v: &[(u32, u32, u32, u32)], user: bool) -> Result<()> {
        for &(s, h, _, stride) in v {
            check_below("dwStream", u64::from(s), u64::from(limits::MAX_STREAMS))?;
            check_below(
                "dwStride",
                u64::from(stride),
                u64::from(limits::MAX_STREAM_STRIDE) + 1,
            )?;
            self.check_vb_handle(h)?;
        }
        let (st, mut keys, _) = self.target();
        for &(s, h, offset, stride) in v {
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
            if let Some(k) = keys.as_deref_mut() {
                k.insert(StateKey::Stream(s));
            }
        }
        Ok(())
    }

    fn check_kind(&self, h: u32, kind: SurfaceKind) -> Result<()> {
        let k = kind_of(self.surfaces, h)?;
        if k != kind {
            return Err(DeviceError::WrongKind {
                handle: h,
                expected: kind.name(),
                actual: k.name(),
            });
        }
        Ok(())
    }

    /// A colour render target: a render target or a texture with
    /// render-target usage.
    fn check_color_target(&self, h: u32) -> Result<()> {
        let r = self.surfaces.get(h)?;
        if !r.is_color_target() {
            return Err(r.wrong(h, SurfaceKind::RenderTarget.name()));
        }
        Ok(())
    }

    fn check_targets(&self, rt: u32, z: u32) -> Result<()> {
        self.check_color_target(rt)?;
        if z != 0 {
            self.check_kind(z, SurfaceKind::DepthStencil)?;
            // The descriptions (the images may be on the GPU worker).
            let c = &self.surfaces.get(rt)?.desc;
            let d = &self.surfaces.get(z)?.desc;
            if d.width < c.width || d.height < c.height {
                return Err(DeviceError::InvalidParams(
                    "depth buffer smaller than the render target",
                ));
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------ drawing

    /// Takes the render targets, builds the draws with `f` (which validates
    /// everything), runs them through the pipeline, restores the targets.
    fn draw_with<F>(&mut self, f: F) -> Result<()>
    where
        F: for<'s> FnOnce(
            &'s Slab<Resource>,
            &'s Context,
            &'s Call<'c>,
        ) -> Result<Vec<DrawReq<'s>>>,
    {
        let st = &self.ctx.state;
        if st.pixel_shader != 0 || st.vertex_shader_func != 0 {
            return Err(DeviceError::Unsupported(
                "drawing with a programmable shader bound",
            ));
        }
        let rt = self.ctx.render_target;
        let dh = self.ctx.depth;
        self.check_color_target(rt)?;
        if let Some(h) = dh {
            self.check_kind(h, SurfaceKind::DepthStencil)?;
        }
        let (prims, n) = run_draws(
            self.gpu,
            self.ctx_h,
            self.surfaces,
            self.ctx,
            self.call,
            (rt, dh),
            f,
        )?;
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
    fn dx6_draw(&mut self, f: impl FnOnce(u32) -> Result<Vec<(Topology, u32, u32)>>) -> Result<()> {
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

    fn imm_draw(&mut self, t: Topology, count: u32, vertices: &'c [u8]) -> Result<()> {
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

    // ------------------------------------------------------------ state sets

    fn state_set(&mut self, r: &Dp2StateSet) -> Result<()> {
        let (op, h, sbt) = (r.operation.get(), r.param.get(), r.sb_type.get());
        match op {
            0 => {
                if self.ctx.recording.is_some() {
                    return Err(DeviceError::StateBlock("BEGIN while recording"));
                }
                if !self.ctx.state_blocks.contains_key(&h)
                    && self.ctx.state_blocks.len() >= limits::MAX_STATE_BLOCKS
                {
                    return Err(DeviceError::Limit {
                        what: "state blocks",
                        max: limits::MAX_STATE_BLOCKS as u64,
                    });
                }
                self.ctx.recording = Some((
                    h,
                    StateBlock {
                        keys: BTreeSet::new(),
                        values: Box::new(self.ctx.state.clone()),
                    },
                ));
                Ok(())
            }
            1 => {
                let (rh, block) = self
                    .ctx
                    .recording
                    .take()
                    .ok_or(DeviceError::StateBlock("END without BEGIN"))?;
                self.ctx.state_blocks.insert(rh, block);
                Ok(())
            }
            2 => {
                if self.ctx.state_blocks.remove(&h).is_none() {
                    return Err(DeviceError::BadHandle {
                        handle: h,
                        what: "state block",
                    });
                }
                Ok(())
            }
            3 => {
                let block = self
                    .ctx
                    .state_blocks
                    .get(&h)
                    .ok_or(DeviceError::BadHandle {
                        handle: h,
                        what: "state block",
                    })?
                    .clone();
                if self.ctx.recording.is_some() {
                    return Err(DeviceError::StateBlock("EXECUTE while recording"));
                }
                self.apply_block(&block);
                Ok(())
            }
            4 => {
                let block = self
                    .ctx
                    .state_blocks
                    .get_mut(&h)
                    .ok_or(DeviceError::BadHandle {
                        handle: h,
                        what: "state block",
                    })?;
                for k in block.keys.clone() {
                    stateblock::copy_key(k, &self.ctx.state, &mut block.values);
                }
                Ok(())
            }
            5 => {
                let keys =
                    stateblock::group_keys(sbt, &self.ctx.state).ok_or(DeviceError::BadValue {
                        what: "sbType",
                        value: sbt,
                    })?;
                if !self.ctx.state_blocks.contains_key(&h)
                    && self.ctx.state_blocks.len() >= limits::MAX_STATE_BLOCKS
                {
                    return Err(DeviceError::Limit {
                        what: "state blocks",
                        max: limits::MAX_STATE_BLOCKS as u64,
                    });
                }
                let block = StateBlock {
                    keys: keys.into_iter().collect(),
                    values: Box::new(self.ctx.state.clone()),
                };
                self.ctx.state_blocks.insert(h, block);
                Ok(())
            }
            _ => Err(DeviceError::BadValue {
                what: "STATESET dwOperation",
                value: op,
            }),
        }
    }

    fn apply_block(&mut self, block: &StateBlock) {
        let exec_buffer = self.call.flags & EXECUTEBUFFER != 0;
        for &k in &block.keys {
            if let StateKey::Render(s) = k {
                let v = block
                    .values
                    .render_states
                    .get(s as usize)
                    .copied()
                    .unwrap_or(0);
                let _ = self.ctx.state.set_render_state(s, v);
                if exec_buffer {
                    if let Some(slot) = self
                        .call
                        .rstates
                        .as_deref_mut()
                        .and_then(|a| a.get_mut(s as usize))
                    {
                        *slot = v;
                    }
                }
            } else {
                stateblock::copy_key(k, &block.values, &mut self.ctx.state);
            }
        }
    }

    // ------------------------------------------------------------ queries

    fn issue_queries(&mut self, recs: &[Dp2IssueQuery]) -> Result<()> {
        for r in recs {
            let q = self
                .ctx
                .queries
                .get(&r.query_id.get())
                .ok_or(DeviceError::BadHandle {
                    handle: r.query_id.get(),
                    what: "query",
                })?;
            let f = r.flags.get();
            if f & !3 != 0 {
                return Err(DeviceError::BadValue {
                    what: "ISSUEQUERY dwFlags",
                    value: f,
                });
            }
            if f & 2 != 0 && q.kind != QueryKind::Occlusion {
                return Err(DeviceError::BadValue {
                    what: "ISSUEQUERY BEGIN on a query without BEGIN",
                    value: f,
                });
            }
        }
        let ends = recs.iter().filter(|r| r.flags.get() & 1 != 0).count();
        if self.ctx.responses.len().saturating_add(ends) > limits::MAX_PENDING_RESPONSES {
            return Err(DeviceError::Limit {
                what: "pending query responses",
                max: limits::MAX_PENDING_RESPONSES as u64,
            });
        }
        // The occlusion counter is a GPU counter: run what was submitted.
        self.gpu.finish(self.surfaces)?;
        self.ctx.stats.samples_passed = self.gpu.samples_passed(self.ctx_h);
        let now = self.ctx.stats.samples_passed;
        for r in recs {
            let id = r.query_id.get();
            let f = r.flags.get();
            let Some(q) = self.ctx.queries.get_mut(&id) else {
                continue;
            };
            if f & 1 != 0 {
                let data = match q.kind {
                    QueryKind::Event => 1u32.to_le_bytes().to_vec(),
                    QueryKind::Occlusion => {
                        // The counter only grows (as the kernel's QUERY does).
                        let n = now.saturating_sub(q.begun_at.unwrap_or(now));
                        (n.min(u64::from(u32::MAX)) as u32).to_le_bytes().to_vec()
                    }
                    QueryKind::VCache => [0x4843_4143u32, 0, 0, 0]
                        .iter()
                        .flat_map(|v| v.to_le_bytes())
                        .collect(),
                };
                q.begun_at = None;
                self.ctx.responses.retain(|x| x.query_id != id);
                self.ctx
                    .responses
                    .push_back(Response { query_id: id, data });
            }
            if f & 2 != 0 {
                q.begun_at = Some(now);
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------ patches

    fn segs_rs(&self) -> (f32, bool) {
        let st = &self.ctx.state;
        (
            f32::from_bits(st.render_states.get(164).copied().unwrap_or(0)),
            st.render_states.get(163).copied().unwrap_or(0) == 1,
        )
    }

    /// The control data of a rect patch described by `info`, read from
    /// the current streams (validated: basis, degree, size, every control
    /// vertex inside stream 0). With `copy` false only validates (the
    /// control bytes stay empty), so that validating a whole command holds
    /// no control data.
    fn rect_control(&self, info: &D3dRectPatchInfo, copy: bool) -> Result<CachedPatch> {
        let (w, hgt) = (info.width.get(), info.height.get());
        let (basis, degree) = (info.basis.get(), info.degree.get());
        patch::spans(basis, degree, w)?;
        patch::spans(basis, degree, hgt)?;
        // Two u32s cannot overflow a u64.
        let count = u64::from(w).saturating_mul(u64::from(hgt));
        if count > u64::from(limits::MAX_PATCH_CONTROL_POINTS) {
            return Err(range(
                "patch control points",
                count,
                u64::from(limits::MAX_PATCH_CONTROL_POINTS) + 1,
            ));
        }
        let (s0, layout, _) = stream_input(self.surfaces, self.ctx, self.call)?;
        let stride = layout.stride as usize;
        let n = s0.len().checked_div(stride.max(1)).unwrap_or(0);
        // The capacity is only a hint.
        let mut control = Vec::with_capacity(if copy {
            (count as usize).checked_mul(stride).unwrap_or(0)
        } else {
            0
        });
        for j in 0..hgt {
            for i in 0..w {
                // Untrusted DWORDs: (row + j) × stride + column + i can
                // exceed a u64; it saturates, and a saturated index is
                // never < n.
                let v = u64::from(info.start_vertex_offset_height.get())
                    .saturating_add(u64::from(j))
                    .saturating_mul(u64::from(info.stride.get()))
                    .saturating_add(u64::from(info.start_vertex_offset_width.get()))
                    .saturating_add(u64::from(i));
                if v >= n as u64 {
                    return Err(range("patch control vertex", v, n as u64));
                }
                if copy {
                    let vertex = (v as usize)
                        .checked_mul(stride)
                        .and_then(|at| s0.get(at..))
                        .and_then(|b| b.get(..stride));
                    control.extend_from_slice(vertex.unwrap_or_default());
                }
            }
        }
        Ok(CachedPatch {
            rect: true,
            layout,
            control,
            size: (w, hgt),
            basis,
            degree,
            last_used: 0,
        })
    }

    /// The control data of a tri patch described by `info` (as
    /// [`Self::rect_control`]).
    fn tri_control(&self, info: &D3dTriPatchInfo, copy: bool) -> Result<CachedPatch> {
        let (basis, degree) = (info.basis.get(), info.degree.get());
        if basis != patch::BASIS_BEZIER {
            return Err(DeviceError::BadValue {
                what: "tri patch Basis (Bézier only)",
                value: basis,
            });
        }
        if !matches!(degree, 1 | 2 | 3 | 5) {
            return Err(DeviceError::BadValue {
                what: "patch Degree",
                value: degree,
            });
        }
        let count = patch::tri_control_count(degree);
        if info.num_vertices.get() != count {
            return Err(DeviceError::BadValue {
                what: "tri patch NumVertices",
                value: info.num_vertices.get(),
            });
        }
        let (s0, layout, _) = stream_input(self.surfaces, self.ctx, self.call)?;
        let stride = layout.stride as usize;
        let n = s0.len().checked_div(stride.max(1)).unwrap_or(0) as u64;
        let first = u64::from(info.start_vertex_offset.get());
        // Two u32s cannot overflow a u64; count ≥ 3.
        let end = first.saturating_add(u64::from(count));
        if end > n {
            return Err(range("patch control vertex", end.saturating_sub(1), n));
        }
        let control = if copy {
            let lo = (first as usize).checked_mul(stride);
            let hi = (end as usize).checked_mul(stride);
            lo.zip(hi)
                .and_then(|(lo, hi)| s0.get(lo..hi))
                .unwrap_or_default()
                .to_vec()
        } else {
            Vec::new()
        };
        Ok(CachedPatch {
            rect: false,
            layout,
            control,
            size: (count, 1),
            basis,
            degree,
            last_used: 0,
        })
    }

    /// What a patch record without info does: draw cached patch `h` if it
    /// is of the right kind, nothing for an unknown handle; handle 0 and a
    /// handle of the other kind are errors.
    fn cached_patch_plan(&self, h: u32, rect: bool) -> Result<PatchPlan> {
        if h == 0 {
            return Err(DeviceError::InvalidParams(
                "dynamic patch (handle 0) without RTPATCHFLAG_HASINFO",
            ));
        }
        let kind = |rect: bool| if rect { "rect patch" } else { "tri patch" };
        match self.ctx.patches.get(&h) {
            Some(p) if p.rect == rect => Ok(PatchPlan::Cached),
            Some(p) => Err(DeviceError::WrongKind {
                handle: h,
                expected: kind(rect),
                actual: kind(p.rect),
            }),
            // A new handle without info: ignored, allocates nothing.
            None => Ok(PatchPlan::Ignore),
        }
    }

    fn rect_patches(
        &mut self,
        recs: Records<'c, softhal_wire::command::RectPatchRecord<'c>>,
    ) -> Result<()> {
        let (default_seg, continuous) = self.segs_rs();
        // Validate every record first (no control data held), then draw
        // and cache them one at a time.
        let mut plans = Vec::new();
        for r in recs.iter() {
            let h = r.head.handle.get();
            let plan = match r.info {
                Some(info) => {
                    self.rect_control(info, false)?;
                    PatchPlan::Info
                }
                None => self.cached_patch_plan(h, true)?,
            };
            plans.push(plan);
        }
        for (r, plan) in recs.iter().zip(plans) {
            let h = r.head.handle.get();
            let segs = r.segments.map_or([default_seg; 4], |s| {
                [s.s0.get(), s.s1.get(), s.s2.get(), s.s3.get()]
            });
            let tess = |p: &CachedPatch| {
                patch::tessellate_rect(
                    &p.layout, &p.control, p.size.0, p.size.1, p.basis, p.degree, segs, continuous,
                )
            };
            self.draw_patch(h, r.info.map(|i| self.rect_control(i, true)), plan, tess)?;
        }
        Ok(())
    }

    fn tri_patches(
        &mut self,
        recs: Records<'c, softhal_wire::command::TriPatchRecord<'c>>,
    ) -> Result<()> {
        let (default_seg, continuous) = self.segs_rs();
        let mut plans = Vec::new();
        for r in recs.iter() {
            let h = r.head.handle.get();
            let plan = match r.info {
                Some(info) => {
                    self.tri_control(info, false)?;
                    PatchPlan::Info
                }
                None => self.cached_patch_plan(h, false)?,
            };
            plans.push(plan);
        }
        for (r, plan) in recs.iter().zip(plans) {
            let h = r.head.handle.get();
            let segs = r
                .segments
                .map_or([default_seg; 3], |s| [s.s0.get(), s.s1.get(), s.s2.get()]);
            let tess = |p: &CachedPatch| {
                patch::tessellate_tri(&p.layout, &p.control, p.degree, segs, continuous)
            };
            self.draw_patch(h, r.info.map(|i| self.tri_control(i, true)), plan, tess)?;
        }
        Ok(())
    }

    /// Draws one validated patch record: `fresh` is the patch its info
    /// describes (if it has info), else patch `h` comes from the cache
    /// (gone if evicted since validation: then nothing is drawn). A patch
    /// with info and a non-zero handle is cached afterwards
    /// ([`Self::cache_patch`]).
    fn draw_patch(
        &mut self,
        h: u32,
        fresh: Option<Result<CachedPatch>>,
        plan: PatchPlan,
        tess: impl Fn(&CachedPatch) -> Result<patch::Mesh>,
    ) -> Result<()> {
        match (plan, fresh) {
            (PatchPlan::Info, Some(p)) => {
                let p = p?;
                let mesh = tess(&p)?;
                self.draw_meshes(vec![(p.layout, mesh)])?;
                if h != 0 {
                    self.cache_patch(h, p);
                }
            }
            (PatchPlan::Cached, _) => {
                let clock = self.tick_patch_clock();
                let Some(p) = self.ctx.patches.get_mut(&h) else {
                    return Ok(());
                };
                p.last_used = clock;
                let m = (p.layout, tess(p)?);
                self.draw_meshes(vec![m])?;
            }
            _ => {}
        }
        Ok(())
    }

    /// The next value of the context's patch-use clock.
    fn tick_patch_clock(&mut self) -> u64 {
        self.ctx.patch_clock = self.ctx.patch_clock.saturating_add(1);
        self.ctx.patch_clock
    }

    /// Caches patch `p` under handle `h` (replacing what `h` held), then
    /// evicts the least recently used other patches until the cache is
    /// within `MAX_CACHED_PATCHES` patches and `MAX_PATCH_CACHE_BYTES` of
    /// control data. A full cache never fails a draw: an evicted handle
    /// drawn later without info draws nothing, like an unknown one.
    fn cache_patch(&mut self, h: u32, mut p: CachedPatch) {
        p.last_used = self.tick_patch_clock();
        let patches = &mut self.ctx.patches;
        patches.insert(h, p);
        loop {
            let held = patches
                .values()
                .map(|p| p.control.len())
                .fold(0usize, usize::saturating_add);
            if patches.len() <= limits::MAX_CACHED_PATCHES && held <= limits::MAX_PATCH_CACHE_BYTES
            {
                break;
            }
            let victim = patches
                .iter()
                .filter(|(k, _)| **k != h)
                .min_by_key(|(_, p)| p.last_used)
                .map(|(k, _)| *k);
            match victim {
                Some(v) => {
                    patches.remove(&v);
                }
                None => break,
            }
        }
    }

    fn draw_meshes(&mut self, meshes: Vec<(VertexLayout, patch::Mesh)>) -> Result<()> {
        if meshes.is_empty() {
            return Ok(());
        }
        self.ctx.stats.patches = self.ctx.stats.patches.saturating_add(meshes.len() as u64);
        self.draw_with(move |_s, _c, _call| {
            Ok(meshes
                .into_iter()
                .map(|(l, m)| {
                    let count = (m.indices.len() / 3) as u32;
                    let ix: Vec<u8> = m.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
                    DrawReq {
                        topology: Topology::TriangleList,
                        vertices: Cow::Owned(m.vertices),
                        layout: l,
                        indices: Some((Cow::Owned(ix), true)),
                        first: 0,
                        count,
                        base_vertex: 0,
                        vsrc: None,
                        isrc: None,
                    }
                })
                .collect())
        })
    }
}

/// What a validated patch record does.
enum PatchPlan {
    /// Drawn from its info (and cached under a non-zero handle).
    Info,
    /// Drawn from the cache.
    Cached,
    /// A new handle without info: nothing.
    Ignore,
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

/// The end of `count` vertices of `stride` bytes from byte `offset`. It
/// saturates: every caller compares it with the bytes that exist, and a
/// saturated end is past them.
fn vertex_bytes(offset: u64, count: u64, stride: u32) -> u64 {
    offset.saturating_add(count.saturating_mul(u64::from(stride)))
}

/// Vertex bytes, their layout, and the vertex surface and byte offset they
/// start at (`None`: user memory).
type VertexInputData<'s> = (Cow<'s, [u8]>, VertexLayout, Option<(u32, u32)>);

/// `c` from byte `from` on, borrowed when `c` is.
fn tail<'s>(c: &Cow<'s, [u8]>, from: usize) -> Cow<'s, [u8]> {
    match c {
        Cow::Borrowed(b) => Cow::Borrowed(b.get(from..).unwrap_or_default()),
        Cow::Owned(o) => Cow::Owned(o.get(from..).unwrap_or_default().to_vec()),
    }
}

/// The DP2 call's vertex data: exactly `dwVertexLength` vertices of the
/// FVF stride at `dwVertexOffset` of the user memory or vertex surface.
fn dp2_vertices<'s>(
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
            let user =
                call.user
                    .filter(|_| call.flags & 1 != 0)
                    .ok_or(DeviceError::InvalidParams(
                        "user-memory stream outside a USERMEMVERTICES call",
                    ))?;
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

/// The vertex data (stream 0 from its offset, or the streams of a
/// multi-stream declaration gathered) and the layout of stream draws.
fn stream_input<'s>(
    surfaces: &'s Slab<Resource>,
    ctx: &'s Context,
    call: &'s Call<'_>,
) -> Result<VertexInputData<'s>> {
    let st = &ctx.state;
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
            if !s.code.is_empty() {
                return Err(DeviceError::Unsupported(
                    "drawing with a programmable vertex shader",
                ));
            }
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

/// Validates the draws `f` builds, then lowers them into GPU packets.
/// Returns (primitives, pipeline draws) as the GPU will count them.
#[allow(clippy::too_many_arguments)]
fn run_draws<'c, F>(
    gpu: &mut crate::gpu::Gpu,
    ctx_h: u32,
    surfaces: &mut Slab<Resource>,
    ctx: &Context,
    call: &Call<'c>,
    targets: (u32, Option<u32>),
    f: F,
) -> Result<(u64, u64)>
where
    F: for<'s> FnOnce(&'s Slab<Resource>, &'s Context, &'s Call<'c>) -> Result<Vec<DrawReq<'s>>>,
{
    use crate::gpu::LoweredDraw;
    let color = surfaces.get(targets.0)?.target_of(targets.0);
    let mut ps = ctx.state.pipeline_state();
    if targets.1.is_none() {
        ps.depth.z_enable = pl::ZBufferType::Disabled;
        ps.stencil.enable = false;
    }
    // D3DTSS_TEXTUREMAP of each stage: a handle that is not a live texture
    // (never created, destroyed, or another kind of surface) samples as no
    // texture (docs/device.md).
    let textures = ctx
        .state
        .texture_handles()
        .map(|h| (h != 0 && surfaces.get(h).is_ok_and(|r| r.texture().is_some())).then_some(h));
    // The requests borrow the surfaces; the lowered packets own copies of
    // inline data, so build them first, then submit.
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
        dc.validate()?;
        if r.count > 0 {
            prims = prims.saturating_add(u64::from(r.count));
            n = n.saturating_add(1);
        }
    }
    fn src(s: Option<(u32, u32)>, b: &[u8]) -> crate::gpu::Src<'_> {
        match s {
            Some((h, offset)) => crate::gpu::Src::Surface {
                h,
                offset,
                bytes: b,
            },
            None => crate::gpu::Src::Inline(b),
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
    gpu.draws_from((color, targets.1), &textures, &ps, &lowered)?;
    drop(lowered);
    drop(reqs);
    gpu.settle(surfaces)?;
    Ok((prims, n))
}

fn topology_d3d(t: Topology) -> u32 {
    match t {
        Topology::PointList => 1,
        Topology::LineList => 2,
        Topology::LineStrip => 3,
        Topology::TriangleList => 4,
        Topology::TriangleStrip => 5,
        Topology::TriangleFan => 6,
    }
}

fn insert_objects<T>(
    map: &mut std::collections::BTreeMap<u32, T>,
    v: Vec<(u32, T)>,
    what: &'static str,
    cap: usize,
) -> Result<()> {
    let new = v.iter().filter(|(h, _)| !map.contains_key(h)).count();
    if map.len().saturating_add(new) > cap {
        return Err(DeviceError::Limit {
            what,
            max: cap as u64,
        });
    }
    for (h, o) in v {
        map.insert(h, o);
    }
    Ok(())
}

fn delete_objects<T>(
    map: &mut std::collections::BTreeMap<u32, T>,
    handles: impl Iterator<Item = u32> + Clone,
    what: &'static str,
) -> Result<()> {
    for h in handles.clone() {
        if !map.contains_key(&h) {
            return Err(DeviceError::BadHandle { handle: h, what });
        }
    }
    for h in handles {
        map.remove(&h);
    }
    Ok(())
}

/// Validates the token stream of every CREATEPIXELSHADER /
/// CREATEVERTEXSHADERFUNC record and returns `(handle, tokens)` pairs.
fn validated_code_objects<H: CodeHead>(
    recs: &softhal_wire::Records<'_, softhal_wire::command::ShaderCodeRecord<'_, H>>,
    kind: ShaderKind,
) -> Result<Vec<(u32, Vec<u8>)>, DeviceError> {
    let mut v = Vec::new();
    for r in recs.iter() {
        shader::validate_shader(r.code, kind)?;
        v.push((r.head.handle(), r.code.to_vec()));
    }
    Ok(v)
}
