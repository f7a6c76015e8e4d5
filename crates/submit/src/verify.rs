//! Verification: the walk over a copied command buffer and one verifier
//! per packet, named in the packet table ([`crate::packet::RULES`]).
//!
//! In: the kernel's copy of a command buffer, its engine, and the
//! allocations its references were resolved to (by patch location). Out:
//! [`Verified`] packets, owned and with allocation handles in place of
//! references (what the GPU, [`crate::gpu`], executes), or the first
//! error. Guarantees: each packet is framed and checked against its table
//! row ([`walk`]), decoded once ([`Packet::decode`]), then checked by its
//! own function against the allocations and what the submission bound so
//! far; nothing here changes kernel state (register writes are checked
//! against the register file's value rules, `regs::check`).

use crate::ddi::{AllocationListEntry, PatchLocation};
use crate::error::{Result, SubmitError};
use crate::kmd::{AllocKind, AllocationDesc, Kmd};
use crate::limits;
use crate::packet::{self, Blt, ClearFlags, ColorFill, Engine, Frame, Packet, Ref, TextureCopy};
use crate::packet::{off32, Access, ConstantBank, ShaderStage};
use crate::regs;
use crate::shader::ShaderObject;
use crate::texture::{self, Shape};
use softhal_pipeline::{self as pl, Topology, VertexLayout};
use std::collections::BTreeMap;

/// A verifier: checks one decoded packet (framed by `Frame`) and returns
/// what the GPU runs.
pub(crate) type Verify = fn(&mut Checker<'_>, &Frame<'_>, Packet<'_>) -> Result<Verified>;

/// A verified packet: operands checked, references replaced by the
/// allocation handles they were patched with, inline data copied out of
/// the command buffer. The GPU executes only these.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verified {
    /// NOP.
    Nop,
    /// SET_REGS: (register, value) pairs, each accepted by `regs::check`.
    SetRegs(Vec<(u32, u32)>),
    /// BIND_TARGETS: colour image, depth/stencil image.
    BindTargets { color: u32, depth: Option<u32> },
    /// BIND_TEXTURE_TARGET: a level of a render-target texture.
    BindTextureTarget {
        texture: u32,
        face: u32,
        level: u32,
        depth: Option<u32>,
    },
    /// BIND_RENDER_TARGET: render target `index` (1–3) is an image
    /// (`level` `None`) or a face and level of a render-target texture,
    /// or unbound (`target` `None`).
    BindRenderTarget {
        index: u32,
        target: Option<(u32, Option<(u32, u32)>)>,
    },
    /// VERTEX_FORMAT: a layout that passed `VertexLayout::validate`.
    VertexFormat(VertexLayout),
    /// SET_VERTICES: a byte range of a buffer.
    SetVertices {
        buffer: u32,
        offset: usize,
        size: usize,
    },
    /// VERTICES_INLINE: the vertex bytes.
    VerticesInline(Vec<u8>),
    /// SET_INDICES: a byte range of a buffer, index width 2 or 4.
    SetIndices {
        buffer: u32,
        offset: usize,
        size: usize,
        width: u32,
    },
    /// INDICES_INLINE: the index bytes, width 2 or 4.
    IndicesInline { width: u32, data: Vec<u8> },
    /// DRAW within the bound vertices or indices.
    Draw {
        topology: Topology,
        first: u32,
        count: u32,
        base_vertex: i32,
        indexed: bool,
    },
    /// CLEAR of the bound targets.
    Clear {
        flags: ClearFlags,
        color: u32,
        z: f32,
        stencil: u32,
        rects: Vec<pl::Rect>,
    },
    /// BUFFER_COPY inside both buffers.
    BufferCopy {
        src: u32,
        src_offset: usize,
        dst: u32,
        dst_offset: usize,
        size: usize,
    },
    /// QUERY begin (`end` false) or end.
    Query { end: bool, id: u32 },
    /// PRESENT of a colour image.
    Present,
    /// SET_TEXTURE of a stage (`None`: unbind).
    SetTexture { stage: u32, texture: Option<u32> },
    /// TEXTURE_COPY (`src` and `dst` are allocation handles).
    TextureCopy(TextureCopy),
    /// BLT (`src` and `dst` are allocation handles).
    Blt(Blt),
    /// COLOR_FILL (`dst` is an allocation handle).
    ColorFill(ColorFill),
    /// GENERATE_MIPS of a texture allocation.
    GenerateMips { texture: u32 },
    /// CREATE_SHADER: a shader the kernel validated, ready to run.
    CreateShader { id: u32, shader: ShaderObject },
    /// DESTROY_SHADER.
    DestroyShader { id: u32 },
    /// SET_SHADER (`id` 0: fixed function).
    SetShader { stage: ShaderStage, id: u32 },
    /// SET_CONSTANTS inside the stage's bank.
    SetConstants {
        stage: ShaderStage,
        bank: ConstantBank,
        first: u32,
        data: Vec<u32>,
    },
    /// VERTEX_INPUTS: the stride and the vertex-shader inputs.
    VertexInputs {
        stride: u32,
        inputs: Vec<pl::program::ShaderInput>,
    },
    /// FENCE_SIGNAL (the kernel's own).
    FenceSignal { context: u32, fence: u64 },
    /// FENCE_WAIT (the kernel's own).
    FenceWait { context: u32, fence: u64 },
    /// CONTEXT_SWITCH (the kernel's own).
    ContextSwitch { context: u32 },
}

impl Verified {
    /// Does the packet do work the watchdog is checked around (draws,
    /// clears, copies)?
    pub(crate) fn is_work(&self) -> bool {
        matches!(
            self,
            Verified::Draw { .. }
                | Verified::Clear { .. }
                | Verified::BufferCopy { .. }
                | Verified::TextureCopy(_)
                | Verified::Blt(_)
                | Verified::ColorFill(_)
                | Verified::GenerateMips { .. }
        )
    }
    /// Does it write a buffer or a texture (copies, and a texture target
    /// the draws and clears render into)?
    pub(crate) fn writes_shared(&self) -> bool {
        matches!(
            self,
            Verified::BufferCopy { .. }
                | Verified::TextureCopy(_)
                | Verified::BindTextureTarget { .. }
                | Verified::BindRenderTarget {
                    target: Some((_, Some(_))),
                    ..
                }
                | Verified::Blt(_)
                | Verified::ColorFill(_)
                | Verified::GenerateMips { .. }
        )
    }
}

/// Walks packet headers from `start` to the end of `dma`: framing, the
/// table row (known opcode, privilege, engine, flags, length). `privileged`:
/// a kernel buffer, which may hold privileged packets.
pub(crate) fn walk(
    dma: &[u8],
    start: usize,
    engine: Engine,
    privileged: bool,
) -> Result<Vec<Frame<'_>>> {
    let mut out = Vec::new();
    let mut at = start;
    while at < dma.len() {
        let f = packet::frame_at(dma, at)?;
        let rule = packet::rule(f.opcode).ok_or(f.invalid("unknown opcode"))?;
        if !rule.user && !privileged {
            return Err(SubmitError::Privileged {
                opcode: f.opcode,
                offset: u32::try_from(at).unwrap_or(u32::MAX),
            });
        }
        if rule.engines & engine.bit() == 0 {
            return Err(f.invalid("packet not supported by this engine"));
        }
        if f.flags & !rule.flags != 0 {
            return Err(f.invalid("reserved header flags set"));
        }
        if !rule.fits(f.header_dwords, f.payload_dwords()) {
            return Err(f.user_buffer("length does not match the packet"));
        }
        at = f.payload_offset.saturating_add(f.payload.len());
        out.push(f);
    }
    Ok(out)
}

/// What the packets so far bound (a submission starts with nothing).
#[derive(Debug, Clone, Copy, Default)]
struct Bound {
    /// A colour target is bound: its size.
    target: Option<(u32, u32)>,
    /// The sizes of render targets 1–3 bound (BIND_RENDER_TARGET).
    extra: [Option<(u32, u32)>; pl::limits::MAX_RENDER_TARGETS - 1],
    /// A depth/stencil target is bound with it.
    depth: bool,
    layout: Option<VertexLayout>,
    /// The stride of the bound vertex-shader inputs (VERTEX_INPUTS).
    input_stride: Option<u32>,
    /// Bytes of the bound vertices.
    vertex_bytes: Option<usize>,
    /// Bytes and width of the bound indices.
    indices: Option<(usize, u32)>,
}

impl Bound {
    /// A draw or clear needs a colour target, and render targets 1–3
    /// bound the size of it (`missing`: the error without one).
    fn check_targets(&self, f: &Frame<'_>, missing: &'static str) -> Result<()> {
        let size = self.target.ok_or(f.invalid(missing))?;
        if self.extra.iter().flatten().any(|s| *s != size) {
            return Err(f.invalid("render targets of different sizes"));
        }
        Ok(())
    }
}

/// The verifiers' context: the resolved references and the bindings.
pub(crate) struct Checker<'r> {
    /// Reference byte offset → (allocation handle, its description).
    resolved: &'r BTreeMap<usize, (u32, AllocationDesc)>,
    bound: Bound,
}

impl<'r> Checker<'r> {
    /// A checker for one submission whose references resolved to
    /// `resolved`.
    pub(crate) fn new(resolved: &'r BTreeMap<usize, (u32, AllocationDesc)>) -> Self {
        Checker {
            resolved,
            bound: Bound::default(),
        }
    }

    /// Decodes and verifies one framed packet with its table row's
    /// verifier.
    pub(crate) fn check(&mut self, f: &Frame<'_>) -> Result<Verified> {
        let rule = packet::rule(f.opcode).ok_or(f.invalid("unknown opcode"))?;
        let p = Packet::decode(f)?;
        (rule.verify)(self, f, p)
    }

    fn slot(&self, f: &Frame<'_>, r: Ref) -> Result<(u32, AllocationDesc)> {
        self.resolved
            .get(&r.offset)
            .copied()
            .ok_or(f.invalid("missing reference"))
    }

    /// The colour-target checks BIND_TARGETS and BIND_TEXTURE_TARGET
    /// share: the depth target must be a depth image covering the colour
    /// target. Returns the depth handle.
    fn bind(
        &mut self,
        f: &Frame<'_>,
        (width, height): (u32, u32),
        depth: Option<Ref>,
    ) -> Result<Option<u32>> {
        self.bound.target = Some((width, height));
        self.bound.depth = false;
        let Some(d) = depth else { return Ok(None) };
        let (h, d) = self.slot(f, d)?;
        match d.kind {
            AllocKind::Image {
                format,
                width: w,
                height: hg,
            } if format.is_depth() && w >= width && hg >= height => {}
            _ => return Err(f.invalid("depth target is not a large enough depth image")),
        }
        self.bound.depth = true;
        Ok(Some(h))
    }
}

/// The size of a buffer allocation.
fn buffer(f: &Frame<'_>, d: AllocationDesc) -> Result<u64> {
    match d.kind {
        AllocKind::Buffer { bytes } => Ok(bytes),
        AllocKind::Image { .. } => Err(f.invalid("an image where a buffer is needed")),
        AllocKind::Texture { .. } => Err(f.invalid("a texture where a buffer is needed")),
    }
}

/// Byte range `[off, off+len)` inside `size`?
fn within(off: u64, len: u64, size: u64) -> bool {
    off.checked_add(len).is_some_and(|e| e <= size)
}

/// The error of a verifier handed another packet (never happens: the
/// table names each verifier for its own opcode).
fn cannot_run(f: &Frame<'_>) -> SubmitError {
    f.invalid("packet the hardware cannot run")
}

/// NOP.
pub(crate) fn nop(_: &mut Checker<'_>, _: &Frame<'_>, _: Packet<'_>) -> Result<Verified> {
    Ok(Verified::Nop)
}

/// SET_REGS: every register id known and every value in its register's
/// range (`regs::check`; the first refused write names its register).
pub(crate) fn set_regs(_: &mut Checker<'_>, f: &Frame<'_>, p: Packet<'_>) -> Result<Verified> {
    let Packet::SetRegs(writes) = p else {
        return Err(cannot_run(f));
    };
    for w in writes {
        let id = w.id.get();
        regs::check(id, w.value.get()).map_err(|e| match e {
            regs::RegError::UnknownRegister => f.bad_register(id, "unknown register"),
            regs::RegError::BadValue => f.bad_register(id, "register value out of range"),
        })?;
    }
    Ok(Verified::SetRegs(
        writes.iter().map(|w| (w.id.get(), w.value.get())).collect(),
    ))
}

/// BIND_TARGETS: a colour image, and a depth image at least as large.
pub(crate) fn bind_targets(cx: &mut Checker<'_>, f: &Frame<'_>, p: Packet<'_>) -> Result<Verified> {
    let Packet::BindTargets { color, depth } = p else {
        return Err(cannot_run(f));
    };
    let (h, c) = cx.slot(f, color)?;
    let AllocKind::Image {
        format,
        width,
        height,
    } = c.kind
    else {
        return Err(f.invalid("render target is not an image"));
    };
    if !format.is_color() {
        return Err(f.invalid("render target format is not a colour format"));
    }
    let depth = cx.bind(f, (width, height), depth)?;
    Ok(Verified::BindTargets { color: h, depth })
}

/// BIND_TEXTURE_TARGET: an existing face and level of a render-target
/// texture, and a depth image at least as large.
pub(crate) fn bind_texture_target(
    cx: &mut Checker<'_>,
    f: &Frame<'_>,
    p: Packet<'_>,
) -> Result<Verified> {
    let Packet::BindTextureTarget {
        texture,
        face,
        level,
        depth,
    } = p
    else {
        return Err(cannot_run(f));
    };
    let (h, c) = cx.slot(f, texture)?;
    let AllocKind::Texture {
        desc,
        render_target: true,
    } = c.kind
    else {
        return Err(f.invalid("texture target is not a render-target texture"));
    };
    let (_, width, height) = texture::target_level(&desc, face, level)
        .ok_or(f.invalid("texture target face or level does not exist"))?;
    let depth = cx.bind(f, (width, height), depth)?;
    Ok(Verified::BindTextureTarget {
        texture: h,
        face,
        level,
        depth,
    })
}

/// BIND_RENDER_TARGET: slot 1–3; a colour image (face and level 0) or
/// an existing face and level of a render-target texture; with UNBIND,
/// DWORD 2 is 0. The size is checked against render target 0 by each
/// DRAW and CLEAR.
pub(crate) fn bind_render_target(
    cx: &mut Checker<'_>,
    f: &Frame<'_>,
    p: Packet<'_>,
) -> Result<Verified> {
    let Packet::BindRenderTarget {
        rt_index,
        target,
        face,
        level,
        unbound,
    } = p
    else {
        return Err(cannot_run(f));
    };
    let slot = (rt_index as usize)
        .checked_sub(1)
        .filter(|i| *i < cx.bound.extra.len())
        .ok_or(f.invalid("render-target index is not 1, 2 or 3"))?;
    let Some(t) = target else {
        if unbound != 0 || face != 0 || level != 0 {
            return Err(f.invalid("UNBIND with a target"));
        }
        if let Some(e) = cx.bound.extra.get_mut(slot) {
            *e = None;
        }
        return Ok(Verified::BindRenderTarget {
            index: rt_index,
            target: None,
        });
    };
    let (h, d) = cx.slot(f, t)?;
    let (size, level_of) = match d.kind {
        AllocKind::Image {
            format,
            width,
            height,
        } if format.is_color() && face == 0 && level == 0 => ((width, height), None),
        AllocKind::Image { .. } => {
            return Err(f.invalid("render target is not a colour image (face and level 0)"))
        }
        AllocKind::Texture {
            desc,
            render_target: true,
        } => {
            let (_, w, hg) = texture::target_level(&desc, face, level)
                .ok_or(f.invalid("texture target face or level does not exist"))?;
            ((w, hg), Some((face, level)))
        }
        _ => return Err(f.invalid("render target is not an image or a render-target texture")),
    };
    if let Some(e) = cx.bound.extra.get_mut(slot) {
        *e = Some(size);
    }
    Ok(Verified::BindRenderTarget {
        index: rt_index,
        target: Some((h, level_of)),
    })
}

/// VERTEX_FORMAT: well-formed, every element inside the vertex.
pub(crate) fn vertex_format(
    cx: &mut Checker<'_>,
    f: &Frame<'_>,
    p: Packet<'_>,
) -> Result<Verified> {
    let Packet::VertexFormat(v) = p else {
        return Err(cannot_run(f));
    };
    let l = v.layout().ok_or(f.invalid("malformed vertex format"))?;
    l.validate()
        .map_err(|_| f.invalid("vertex format outside the vertex"))?;
    cx.bound.layout = Some(l);
    Ok(Verified::VertexFormat(l))
}

/// SET_VERTICES: a range inside a buffer.
pub(crate) fn set_vertices(cx: &mut Checker<'_>, f: &Frame<'_>, p: Packet<'_>) -> Result<Verified> {
    let Packet::SetVertices {
        buffer: b,
        offset,
        size,
    } = p
    else {
        return Err(cannot_run(f));
    };
    let (h, d) = cx.slot(f, b)?;
    let bytes = buffer(f, d)?;
    if !within(u64::from(offset), u64::from(size), bytes) {
        return Err(f.invalid("vertex range outside the allocation"));
    }
    cx.bound.vertex_bytes = Some(size as usize);
    Ok(Verified::SetVertices {
        buffer: h,
        offset: offset as usize,
        size: size as usize,
    })
}

/// VERTICES_INLINE (the byte count was checked by decoding).
pub(crate) fn vertices_inline(
    cx: &mut Checker<'_>,
    f: &Frame<'_>,
    p: Packet<'_>,
) -> Result<Verified> {
    let Packet::VerticesInline(data) = p else {
        return Err(cannot_run(f));
    };
    cx.bound.vertex_bytes = Some(data.len());
    Ok(Verified::VerticesInline(data.to_vec()))
}

fn index_width(f: &Frame<'_>, width: u32) -> Result<()> {
    if matches!(width, 2 | 4) {
        Ok(())
    } else {
        Err(f.invalid("index width is not 2 or 4"))
    }
}

/// SET_INDICES: a range inside a buffer, width 2 or 4.
pub(crate) fn set_indices(cx: &mut Checker<'_>, f: &Frame<'_>, p: Packet<'_>) -> Result<Verified> {
    let Packet::SetIndices {
        buffer: b,
        offset,
        size,
        width,
    } = p
    else {
        return Err(cannot_run(f));
    };
    let (h, d) = cx.slot(f, b)?;
    let bytes = buffer(f, d)?;
    if !within(u64::from(offset), u64::from(size), bytes) {
        return Err(f.invalid("index range outside the allocation"));
    }
    index_width(f, width)?;
    cx.bound.indices = Some((size as usize, width));
    Ok(Verified::SetIndices {
        buffer: h,
        offset: offset as usize,
        size: size as usize,
        width,
    })
}

/// INDICES_INLINE: width 2 or 4.
pub(crate) fn indices_inline(
    cx: &mut Checker<'_>,
    f: &Frame<'_>,
    p: Packet<'_>,
) -> Result<Verified> {
    let Packet::IndicesInline { width, data } = p else {
        return Err(cannot_run(f));
    };
    index_width(f, width)?;
    cx.bound.indices = Some((data.len(), width));
    Ok(Verified::IndicesInline {
        width,
        data: data.to_vec(),
    })
}

/// DRAW: a known topology, a target, a vertex format and vertices bound,
/// and every vertex (or index) it reads inside what is bound.
pub(crate) fn draw(cx: &mut Checker<'_>, f: &Frame<'_>, p: Packet<'_>) -> Result<Verified> {
    let Packet::Draw {
        topology,
        first,
        count,
        base_vertex,
        indexed,
    } = p
    else {
        return Err(cannot_run(f));
    };
    let b = &cx.bound;
    let t = Topology::from_d3d(topology).ok_or(f.invalid("bad topology"))?;
    b.check_targets(f, "draw without render target")?;
    // The GPU reads the vertices with the stride of VERTEX_FORMAT (fixed
    // function) or of VERTEX_INPUTS (a vertex shader): every bound one
    // must hold the vertices.
    let stride = b
        .layout
        .map(|l| l.stride)
        .into_iter()
        .chain(b.input_stride)
        .max()
        .ok_or(f.invalid("draw without vertex format"))?;
    let vlen = b.vertex_bytes.ok_or(f.invalid("draw without vertices"))?;
    let need = u64::from(first).saturating_add(t.vertex_count(count));
    let have = if indexed {
        let (ilen, w) = b.indices.ok_or(f.invalid("indexed draw without indices"))?;
        (ilen as u64).checked_div(u64::from(w)).unwrap_or(0)
    } else {
        (vlen as u64).checked_div(u64::from(stride)).unwrap_or(0)
    };
    if need > have {
        return Err(f.invalid("draw reads past its vertices or indices"));
    }
    Ok(Verified::Draw {
        topology: t,
        first,
        count,
        base_vertex,
        indexed,
    })
}

/// CREATE_SHADER: an id other than 0 and tokens that pass every rule of
/// their version (`softhal_shader::parse_and_validate`: the kernel does
/// not trust the UMD's validation); the shader is prepared to run here,
/// once, and the GPU keeps it under its id.
pub(crate) fn create_shader(_: &mut Checker<'_>, f: &Frame<'_>, p: Packet<'_>) -> Result<Verified> {
    let Packet::CreateShader { id, tokens } = p else {
        return Err(cannot_run(f));
    };
    if id == 0 {
        return Err(f.invalid("shader id 0 is fixed function"));
    }
    if tokens.len() > limits::MAX_SHADER_DWORDS {
        return Err(SubmitError::Limit {
            what: "shader tokens",
            value: tokens.len() as u64,
            limit: limits::MAX_SHADER_DWORDS as u64,
        });
    }
    let tokens: Vec<u32> = tokens.iter().map(|t| t.get()).collect();
    let shader = softhal_shader::parse_and_validate(&tokens).map_err(|e| SubmitError::Shader {
        offset: off32(f.offset),
        dword: u32::try_from(e.dword).unwrap_or(u32::MAX),
        rule: e.kind(),
    })?;
    Ok(Verified::CreateShader {
        id,
        shader: ShaderObject::new(shader, tokens.len()),
    })
}

/// DESTROY_SHADER (an unknown id is the GPU's fault to count: the kernel
/// does not track the context's objects).
pub(crate) fn destroy_shader(
    _: &mut Checker<'_>,
    f: &Frame<'_>,
    p: Packet<'_>,
) -> Result<Verified> {
    let Packet::DestroyShader { id } = p else {
        return Err(cannot_run(f));
    };
    Ok(Verified::DestroyShader { id })
}

/// SET_SHADER: a known stage.
pub(crate) fn set_shader(_: &mut Checker<'_>, f: &Frame<'_>, p: Packet<'_>) -> Result<Verified> {
    let Packet::SetShader { stage, id } = p else {
        return Err(cannot_run(f));
    };
    let stage = ShaderStage::from_u32(stage).ok_or(f.invalid("unknown shader stage"))?;
    Ok(Verified::SetShader { stage, id })
}

/// SET_CONSTANTS: a known stage and bank, registers `first..first+count`
/// inside the bank's registers for that stage (the most any version of the
/// stage has, `softhal_shader::valid::stage_register_count`).
pub(crate) fn set_constants(_: &mut Checker<'_>, f: &Frame<'_>, p: Packet<'_>) -> Result<Verified> {
    use softhal_shader::ir::RegisterType as R;
    let Packet::SetConstants {
        stage,
        bank,
        first,
        count,
        data,
    } = p
    else {
        return Err(cannot_run(f));
    };
    let stage = ShaderStage::from_u32(stage).ok_or(f.invalid("unknown shader stage"))?;
    let bank = ConstantBank::from_u32(bank).ok_or(f.invalid("unknown constant bank"))?;
    let ty = match bank {
        ConstantBank::Float => R::Const,
        ConstantBank::Int => R::ConstInt,
        ConstantBank::Bool => R::ConstBool,
    };
    let registers = softhal_shader::valid::stage_register_count(stage == ShaderStage::Vertex, ty);
    if u64::from(first).saturating_add(u64::from(count)) > u64::from(registers) {
        return Err(f.invalid("constant registers past the stage's bank"));
    }
    Ok(Verified::SetConstants {
        stage,
        bank,
        first,
        data: data.iter().map(|d| d.get()).collect(),
    })
}

/// VERTEX_INPUTS: a stride the pipeline accepts, at most one element per
/// input register of a vertex shader, each a known `D3DDECLTYPE` inside the
/// vertex.
pub(crate) fn vertex_inputs(
    cx: &mut Checker<'_>,
    f: &Frame<'_>,
    p: Packet<'_>,
) -> Result<Verified> {
    use softhal_shader::ir::RegisterType as R;
    let Packet::VertexInputs { stride, inputs } = p else {
        return Err(cannot_run(f));
    };
    if stride == 0 || stride > pl::limits::MAX_VERTEX_STRIDE {
        return Err(f.invalid("vertex stride out of range"));
    }
    let registers = softhal_shader::valid::stage_register_count(true, R::Input);
    let mut seen = 0u64;
    let mut out = Vec::with_capacity(inputs.len());
    for i in inputs {
        let register = i.register.get();
        if register >= u32::from(registers) {
            return Err(f.invalid("vertex input register out of range"));
        }
        let bit = 1u64 << register;
        if seen & bit != 0 {
            return Err(f.invalid("vertex input register named twice"));
        }
        seen |= bit;
        let ty = pl::DeclType::from_d3d(i.ty.get()).ok_or(f.invalid("unknown D3DDECLTYPE"))?;
        let offset = i.offset.get();
        if offset.checked_add(ty.size()).is_none_or(|e| e > stride) {
            return Err(f.invalid("vertex input outside the vertex"));
        }
        out.push(pl::program::ShaderInput {
            register: register as u8,
            offset,
            ty,
        });
    }
    cx.bound.input_stride = Some(stride);
    Ok(Verified::VertexInputs {
        stride,
        inputs: out,
    })
}

/// CLEAR: at most `MAX_CLEAR_RECTS` rectangles, defined flags, a target
/// (and a depth target for depth/stencil), a finite depth.
pub(crate) fn clear(cx: &mut Checker<'_>, f: &Frame<'_>, p: Packet<'_>) -> Result<Verified> {
    let Packet::Clear {
        flags,
        color,
        z,
        stencil,
        rects,
    } = p
    else {
        return Err(cannot_run(f));
    };
    if rects.len() > limits::MAX_CLEAR_RECTS as usize {
        return Err(SubmitError::Limit {
            what: "CLEAR rectangles",
            value: rects.len() as u64,
            limit: u64::from(limits::MAX_CLEAR_RECTS),
        });
    }
    if flags.any(!ClearFlags::DEFINED) {
        return Err(f.invalid("undefined clear flags"));
    }
    cx.bound.check_targets(f, "clear without render target")?;
    if flags.any(ClearFlags::ZBUFFER | ClearFlags::STENCIL) && !cx.bound.depth {
        return Err(f.invalid("depth/stencil clear without depth target"));
    }
    if flags.any(ClearFlags::ZBUFFER) && !z.is_finite() {
        return Err(f.invalid("clear depth is not finite"));
    }
    Ok(Verified::Clear {
        flags,
        color,
        z,
        stencil,
        rects: rects
            .iter()
            .map(|r| pl::Rect::new(r.x1.get(), r.y1.get(), r.x2.get(), r.y2.get()))
            .collect(),
    })
}

/// BUFFER_COPY: both ranges inside their buffers.
pub(crate) fn buffer_copy(cx: &mut Checker<'_>, f: &Frame<'_>, p: Packet<'_>) -> Result<Verified> {
    let Packet::BufferCopy {
        src,
        src_offset,
        dst,
        dst_offset,
        size,
    } = p
    else {
        return Err(cannot_run(f));
    };
    let (hs, s) = cx.slot(f, src)?;
    let (hd, d) = cx.slot(f, dst)?;
    let (ss, ds) = (buffer(f, s)?, buffer(f, d)?);
    let n = u64::from(size);
    if !within(u64::from(src_offset), n, ss) || !within(u64::from(dst_offset), n, ds) {
        return Err(f.invalid("copy range outside an allocation"));
    }
    Ok(Verified::BufferCopy {
        src: hs,
        src_offset: src_offset as usize,
        dst: hd,
        dst_offset: dst_offset as usize,
        size: size as usize,
    })
}

/// QUERY: begin or end, an id below `MAX_QUERIES`.
pub(crate) fn query(_: &mut Checker<'_>, f: &Frame<'_>, p: Packet<'_>) -> Result<Verified> {
    let Packet::Query { operation, id } = p else {
        return Err(cannot_run(f));
    };
    if operation > 1 || id >= limits::MAX_QUERIES {
        return Err(f.invalid("bad query operation or id"));
    }
    Ok(Verified::Query {
        end: operation == 1,
        id,
    })
}

/// PRESENT: a colour image.
pub(crate) fn present(cx: &mut Checker<'_>, f: &Frame<'_>, p: Packet<'_>) -> Result<Verified> {
    let Packet::Present { image } = p else {
        return Err(cannot_run(f));
    };
    let (_, d) = cx.slot(f, image)?;
    if !matches!(d.kind, AllocKind::Image { format, .. } if format.is_color()) {
        return Err(f.invalid("present of a non-colour allocation"));
    }
    Ok(Verified::Present)
}

/// SET_TEXTURE: a stage 0–19 (0–15 the pixel samplers, 0–7 of them the
/// texture stages; 16–19 the vertex-texture samplers
/// D3DVERTEXTEXTURESAMPLER0–3) and a texture (or
/// UNBIND with DWORD 2 = 0).
pub(crate) fn set_texture(cx: &mut Checker<'_>, f: &Frame<'_>, p: Packet<'_>) -> Result<Verified> {
    let Packet::SetTexture {
        stage,
        texture,
        unbound,
    } = p
    else {
        return Err(cannot_run(f));
    };
    if stage >= regs::STAGES {
        return Err(f.invalid("texture stage is not 0–19"));
    }
    let texture = match texture {
        None => {
            if unbound != 0 {
                return Err(f.invalid("SET_TEXTURE UNBIND with a texture DWORD"));
            }
            None
        }
        Some(t) => {
            let (h, d) = cx.slot(f, t)?;
            if !matches!(d.kind, AllocKind::Texture { .. }) {
                return Err(f.invalid("SET_TEXTURE of an allocation that is not a texture"));
            }
            Some(h)
        }
    };
    Ok(Verified::SetTexture { stage, texture })
}

/// TEXTURE_COPY: two textures and a box the copy rule accepts
/// (`texture::plan_copy`).
pub(crate) fn texture_copy(cx: &mut Checker<'_>, f: &Frame<'_>, p: Packet<'_>) -> Result<Verified> {
    let Packet::TextureCopy { src, dst, copy } = p else {
        return Err(cannot_run(f));
    };
    let (hs, s) = cx.slot(f, src)?;
    let (hd, d) = cx.slot(f, dst)?;
    let (AllocKind::Texture { desc: sd, .. }, AllocKind::Texture { desc: dd, .. }) =
        (s.kind, d.kind)
    else {
        return Err(f.invalid("TEXTURE_COPY of an allocation that is not a texture"));
    };
    texture::plan_copy(&Shape::of_desc(&sd), &Shape::of_desc(&dd), &copy)
        .map_err(|reason| f.invalid(reason))?;
    Ok(Verified::TextureCopy(TextureCopy {
        src: hs,
        dst: hd,
        ..copy
    }))
}

/// BLT: two images or textures, rectangles and formats the blitter rule
/// accepts (`blit::check_blt`).
pub(crate) fn blt(cx: &mut Checker<'_>, f: &Frame<'_>, p: Packet<'_>) -> Result<Verified> {
    let Packet::Blt { src, dst, blt } = p else {
        return Err(cannot_run(f));
    };
    let (hs, s) = cx.slot(f, src)?;
    let (hd, d) = cx.slot(f, dst)?;
    crate::blit::check_blt(&s.kind, &d.kind, &blt).map_err(|reason| f.invalid(reason))?;
    Ok(Verified::Blt(Blt {
        src: hs,
        dst: hd,
        ..blt
    }))
}

/// COLOR_FILL: a rectangle of an image or texture of a colour format
/// (`blit::check_fill`).
pub(crate) fn color_fill(cx: &mut Checker<'_>, f: &Frame<'_>, p: Packet<'_>) -> Result<Verified> {
    let Packet::ColorFill { dst, fill } = p else {
        return Err(cannot_run(f));
    };
    let (hd, d) = cx.slot(f, dst)?;
    crate::blit::check_fill(&d.kind, &fill).map_err(|reason| f.invalid(reason))?;
    Ok(Verified::ColorFill(ColorFill { dst: hd, ..fill }))
}

/// GENERATE_MIPS: a 2-D or cube texture of a colour format
/// (`blit::check_mips`).
pub(crate) fn generate_mips(
    cx: &mut Checker<'_>,
    f: &Frame<'_>,
    p: Packet<'_>,
) -> Result<Verified> {
    let Packet::GenerateMips { texture } = p else {
        return Err(cannot_run(f));
    };
    let (h, d) = cx.slot(f, texture)?;
    crate::blit::check_mips(&d.kind).map_err(|reason| f.invalid(reason))?;
    Ok(Verified::GenerateMips { texture: h })
}

/// The privileged packets: never in a user buffer (the walk refuses them
/// first), and the kernel makes its own as [`Verified`] directly.
pub(crate) fn kernel_only(_: &mut Checker<'_>, f: &Frame<'_>, _: Packet<'_>) -> Result<Verified> {
    Err(cannot_run(f))
}

impl Kmd {
    /// Validates the copied submission; returns its verified packets,
    /// their references resolved to allocation handles.
    pub(crate) fn validate(
        &self,
        dma: &[u8],
        start: usize,
        engine: Engine,
        list: &[AllocationListEntry],
        patches: &[PatchLocation],
    ) -> Result<Vec<Verified>> {
        // 1. The allocation list.
        for e in list {
            if e.value & !0x1F != 0 {
                return Err(SubmitError::InvalidArg("reserved allocation-list bits set"));
            }
            let a = self
                .allocs
                .get(&e.h_allocation)
                .ok_or(SubmitError::Handle {
                    reason: "allocation-list entry names no live allocation",
                    value: e.h_allocation,
                })?;
            if a.locked && !a.desc.cpu_visible {
                return Err(SubmitError::Locked(e.h_allocation));
            }
        }
        // 2. Packet structure, and where the references are.
        let frames = walk(dma, start, engine, false)?;
        let mut slots: BTreeMap<usize, (Access, Option<u32>)> = BTreeMap::new();
        for f in &frames {
            let rule = crate::packet::rule(f.opcode).ok_or(f.invalid("unknown opcode"))?;
            for s in rule.refs {
                if !s.present(f.flags) {
                    continue;
                }
                let at = (s.dword as usize)
                    .checked_sub(1)
                    .and_then(|i| i.checked_mul(4))
                    .and_then(|b| f.payload_offset.checked_add(b))
                    .ok_or(f.user_buffer("reference outside the packet"))?;
                slots.insert(at, (s.access, None));
            }
        }
        // 3. Patch locations.
        for pl in patches {
            if pl.slot_id != 0
                || pl.driver_id != 0
                || pl.allocation_offset != 0
                || pl.split_offset != 0
            {
                return Err(SubmitError::InvalidArg(
                    "reserved patch-location fields set",
                ));
            }
            if pl.allocation_index as usize >= list.len() {
                return Err(SubmitError::Handle {
                    reason: "patch location names an entry outside the allocation list",
                    value: pl.allocation_index,
                });
            }
            let at = pl.patch_offset as usize;
            let inside = at >= start
                && at.is_multiple_of(4)
                && at.checked_add(4).is_some_and(|e| e <= dma.len());
            if !inside {
                return Err(SubmitError::UserBuffer {
                    offset: pl.patch_offset,
                    reason: "patch location outside the command buffer",
                });
            }
            let slot = slots.get_mut(&at).ok_or(SubmitError::UserBuffer {
                offset: pl.patch_offset,
                reason: "patch location is not an allocation reference",
            })?;
            if slot.1.replace(pl.allocation_index).is_some() {
                return Err(SubmitError::UserBuffer {
                    offset: pl.patch_offset,
                    reason: "two patch locations for one reference",
                });
            }
        }
        // 4. Every reference patched; writes only through writable entries.
        let mut resolved: BTreeMap<usize, (u32, AllocationDesc)> = BTreeMap::new();
        for (&at, &(access, idx)) in &slots {
            let idx = idx.ok_or(SubmitError::Handle {
                reason: "allocation reference without a patch location",
                value: off32(at),
            })?;
            let e = list.get(idx as usize).ok_or(SubmitError::Handle {
                reason: "patch location names an entry outside the allocation list",
                value: idx,
            })?;
            if access == Access::Write && e.value & AllocationListEntry::WRITE == 0 {
                return Err(SubmitError::Handle {
                    reason: "write through an allocation-list entry without WriteOperation",
                    value: e.h_allocation,
                });
            }
            let a = self
                .allocs
                .get(&e.h_allocation)
                .ok_or(SubmitError::Handle {
                    reason: "allocation-list entry names no live allocation",
                    value: e.h_allocation,
                })?;
            resolved.insert(at, (e.h_allocation, a.desc));
        }
        // 5. Each packet decoded and verified by its table row's verifier,
        // with the bindings a submission starts from (none).
        let mut cx = Checker::new(&resolved);
        frames.iter().map(|f| cx.check(f)).collect()
    }
}
