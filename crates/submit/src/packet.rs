//! GPU packets: the command-buffer format (`docs/gpu-commands.md`).
//!
//! Every packet starts with a DWORD header: bits 0–7 the opcode, bits 8–15
//! flags, bits 16–31 the packet length in DWORDs *including* the header.
//! A length field of 0 means an extended header: the second DWORD holds
//! the total length in DWORDs (≥ 2). All fields are little-endian DWORDs.
//!
//! In: opcodes and operands (the UMD, through [`Writer`]). Out: bytes, and
//! the [`RULES`] verifier table the kernel side checks every packet
//! against. Guarantee: the table is the only place that says which packets
//! user mode may send, on which engine, with which sizes and flags, and
//! which DWORDs are allocation references.

/// Opcodes.
pub mod op {
    #![allow(missing_docs)]
    pub const NOP: u8 = 0x01;
    pub const SET_REGS: u8 = 0x02;
    pub const BIND_TARGETS: u8 = 0x03;
    pub const VERTEX_FORMAT: u8 = 0x04;
    pub const SET_VERTICES: u8 = 0x05;
    pub const VERTICES_INLINE: u8 = 0x06;
    pub const SET_INDICES: u8 = 0x07;
    pub const INDICES_INLINE: u8 = 0x08;
    pub const DRAW: u8 = 0x09;
    pub const CLEAR: u8 = 0x0A;
    pub const BUFFER_COPY: u8 = 0x0B;
    pub const QUERY: u8 = 0x0C;
    pub const PRESENT: u8 = 0x0D;
    pub const SET_TEXTURE: u8 = 0x0E;
    pub const TEXTURE_COPY: u8 = 0x0F;
    pub const BIND_TEXTURE_TARGET: u8 = 0x10;
    /// Privileged (kernel side only) from here.
    pub const FENCE_SIGNAL: u8 = 0x80;
    pub const FENCE_WAIT: u8 = 0x81;
    pub const MAKE_RESIDENT: u8 = 0x82;
    pub const EVICT: u8 = 0x83;
    pub const CONTEXT_SWITCH: u8 = 0x84;
}

/// Header flag bits.
pub mod flag {
    /// BIND_TARGETS: a depth/stencil allocation is bound (DWORD 2);
    /// BIND_TEXTURE_TARGET: likewise (DWORD 4).
    pub const DEPTH: u8 = 0x01;
    /// DRAW: indexed draw (uses the bound indices).
    pub const INDEXED: u8 = 0x01;
    /// SET_TEXTURE: unbind the stage (DWORD 2 is 0 and not a reference).
    pub const UNBIND: u8 = 0x01;
}

/// An engine of the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Engine {
    /// The 3-D engine (draws, clears, copies, queries, presents).
    ThreeD,
    /// The copy engine (BUFFER_COPY and TEXTURE_COPY only).
    Copy,
}

impl Engine {
    /// Bit in [`Rule::engines`].
    pub const fn bit(self) -> u8 {
        match self {
            Engine::ThreeD => 1,
            Engine::Copy => 2,
        }
    }
    /// Index (0: 3-D, 1: copy).
    pub const fn index(self) -> usize {
        match self {
            Engine::ThreeD => 0,
            Engine::Copy => 1,
        }
    }
}

/// How a packet's length in DWORDs is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// Exactly this many DWORDs.
    Exact(u32),
    /// At least this many (the payload says the rest).
    AtLeast(u32),
}

/// How a packet accesses an allocation it references.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read only.
    Read,
    /// Written (the allocation-list entry needs WriteOperation).
    Write,
}

/// One allocation reference: the DWORD index inside the packet that the
/// kernel patches with an allocation handle, and how it is used. With
/// `only_if` the reference exists only when that header flag is set; with
/// `unless` only when that flag is clear.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefSlot {
    /// DWORD index from the header (0).
    pub dword: u32,
    /// Access.
    pub access: Access,
    /// Header flag that makes the slot present (`None`: always).
    pub only_if: Option<u8>,
    /// Header flag that makes the slot absent (`None`: never).
    pub unless: Option<u8>,
}

impl RefSlot {
    /// Does a packet with header `flags` carry this reference?
    pub const fn present(&self, flags: u8) -> bool {
        let on = match self.only_if {
            Some(f) => flags & f != 0,
            None => true,
        };
        let off = match self.unless {
            Some(f) => flags & f != 0,
            None => false,
        };
        on && !off
    }
}

/// A row of the verifier table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Opcode.
    pub opcode: u8,
    /// Name (docs, errors).
    pub name: &'static str,
    /// May a user-mode buffer contain it?
    pub user: bool,
    /// Engines that can run it ([`Engine::bit`] mask).
    pub engines: u8,
    /// Length rule.
    pub size: Size,
    /// Header flags it defines (others must be 0).
    pub flags: u8,
    /// Allocation references.
    pub refs: &'static [RefSlot],
}

const fn r(dword: u32, access: Access) -> RefSlot {
    RefSlot {
        dword,
        access,
        only_if: None,
        unless: None,
    }
}

const BOTH: u8 = 3;
const THREE_D: u8 = 1;

/// The verifier table.
pub const RULES: &[Rule] = &[
    Rule {
        opcode: op::NOP,
        name: "NOP",
        user: true,
        engines: BOTH,
        size: Size::AtLeast(1),
        flags: 0,
        refs: &[],
    },
    Rule {
        opcode: op::SET_REGS,
        name: "SET_REGS",
        user: true,
        engines: THREE_D,
        size: Size::AtLeast(3),
        flags: 0,
        refs: &[],
    },
    Rule {
        opcode: op::BIND_TARGETS,
        name: "BIND_TARGETS",
        user: true,
        engines: THREE_D,
        size: Size::Exact(3),
        flags: flag::DEPTH,
        refs: &[
            r(1, Access::Write),
            RefSlot {
                dword: 2,
                access: Access::Write,
                only_if: Some(flag::DEPTH),
                unless: None,
            },
        ],
    },
    Rule {
        opcode: op::VERTEX_FORMAT,
        name: "VERTEX_FORMAT",
        user: true,
        engines: THREE_D,
        size: Size::Exact(18),
        flags: 0,
        refs: &[],
    },
    Rule {
        opcode: op::SET_VERTICES,
        name: "SET_VERTICES",
        user: true,
        engines: THREE_D,
        size: Size::Exact(4),
        flags: 0,
        refs: &[r(1, Access::Read)],
    },
    Rule {
        opcode: op::VERTICES_INLINE,
        name: "VERTICES_INLINE",
        user: true,
        engines: THREE_D,
        size: Size::AtLeast(2),
        flags: 0,
        refs: &[],
    },
    Rule {
        opcode: op::SET_INDICES,
        name: "SET_INDICES",
        user: true,
        engines: THREE_D,
        size: Size::Exact(5),
        flags: 0,
        refs: &[r(1, Access::Read)],
    },
    Rule {
        opcode: op::INDICES_INLINE,
        name: "INDICES_INLINE",
        user: true,
        engines: THREE_D,
        size: Size::AtLeast(3),
        flags: 0,
        refs: &[],
    },
    Rule {
        opcode: op::DRAW,
        name: "DRAW",
        user: true,
        engines: THREE_D,
        size: Size::Exact(5),
        flags: flag::INDEXED,
        refs: &[],
    },
    Rule {
        opcode: op::CLEAR,
        name: "CLEAR",
        user: true,
        engines: THREE_D,
        size: Size::AtLeast(6),
        flags: 0,
        refs: &[],
    },
    Rule {
        opcode: op::BUFFER_COPY,
        name: "BUFFER_COPY",
        user: true,
        engines: BOTH,
        size: Size::Exact(6),
        flags: 0,
        refs: &[r(1, Access::Read), r(3, Access::Write)],
    },
    Rule {
        opcode: op::QUERY,
        name: "QUERY",
        user: true,
        engines: THREE_D,
        size: Size::Exact(3),
        flags: 0,
        refs: &[],
    },
    Rule {
        opcode: op::PRESENT,
        name: "PRESENT",
        user: true,
        engines: THREE_D,
        size: Size::Exact(2),
        flags: 0,
        refs: &[r(1, Access::Read)],
    },
    Rule {
        opcode: op::SET_TEXTURE,
        name: "SET_TEXTURE",
        user: true,
        engines: THREE_D,
        size: Size::Exact(3),
        flags: flag::UNBIND,
        refs: &[RefSlot {
            dword: 2,
            access: Access::Read,
            only_if: None,
            unless: Some(flag::UNBIND),
        }],
    },
    Rule {
        opcode: op::TEXTURE_COPY,
        name: "TEXTURE_COPY",
        user: true,
        engines: BOTH,
        size: Size::Exact(16),
        flags: 0,
        refs: &[r(1, Access::Read), r(10, Access::Write)],
    },
    Rule {
        opcode: op::BIND_TEXTURE_TARGET,
        name: "BIND_TEXTURE_TARGET",
        user: true,
        engines: THREE_D,
        size: Size::Exact(5),
        flags: flag::DEPTH,
        refs: &[
            r(1, Access::Write),
            RefSlot {
                dword: 4,
                access: Access::Write,
                only_if: Some(flag::DEPTH),
                unless: None,
            },
        ],
    },
    Rule {
        opcode: op::FENCE_SIGNAL,
        name: "FENCE_SIGNAL",
        user: false,
        engines: BOTH,
        size: Size::Exact(4),
        flags: 0,
        refs: &[],
    },
    Rule {
        opcode: op::FENCE_WAIT,
        name: "FENCE_WAIT",
        user: false,
        engines: BOTH,
        size: Size::Exact(4),
        flags: 0,
        refs: &[],
    },
    Rule {
        opcode: op::MAKE_RESIDENT,
        name: "MAKE_RESIDENT",
        user: false,
        engines: BOTH,
        size: Size::Exact(2),
        flags: 0,
        refs: &[],
    },
    Rule {
        opcode: op::EVICT,
        name: "EVICT",
        user: false,
        engines: BOTH,
        size: Size::Exact(2),
        flags: 0,
        refs: &[],
    },
    Rule {
        opcode: op::CONTEXT_SWITCH,
        name: "CONTEXT_SWITCH",
        user: false,
        engines: BOTH,
        size: Size::Exact(2),
        flags: 0,
        refs: &[],
    },
];

/// The table row of `opcode`.
pub fn rule(opcode: u8) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.opcode == opcode)
}

/// A header DWORD.
pub const fn header(opcode: u8, flags: u8, dwords: u16) -> u32 {
    (opcode as u32) | ((flags as u32) << 8) | ((dwords as u32) << 16)
}

/// The vertex layout as VERTEX_FORMAT carries it (17 DWORDs; `NONE` for
/// absent elements).
pub const NONE: u32 = u32::MAX;

/// Encodes a layout into VERTEX_FORMAT's payload.
pub fn layout_dwords(l: &softhal_pipeline::VertexLayout) -> [u32; 17] {
    use softhal_pipeline::PositionKind as P;
    let o = |x: Option<u32>| x.unwrap_or(NONE);
    // Colours: offset in bits 0..24, type in bits 24..32 (0 D3DCOLOR, else
    // D3DDECLTYPE + 1 for the other types).
    let colour = |x: Option<u32>, t: softhal_pipeline::DeclType| {
        x.map_or(NONE, |off| {
            let code = match t {
                softhal_pipeline::DeclType::D3dColor => 0,
                t => t.d3d().saturating_add(1),
            };
            (off & 0x00FF_FFFF) | code << 24
        })
    };
    let mut d = [NONE; 17];
    // DWORD 2: position kind in bits 0..8; the tweening streams' offsets
    // + 1 in bits 8..20 (second position) and 20..32 (second normal), 0 =
    // absent, 0xFFF = an offset beyond 4093 (never inside a valid stride).
    let off12 = |x: Option<u32>| {
        x.map_or(0, |v| {
            if v < 0xFFE {
                v.saturating_add(1)
            } else {
                0xFFF
            }
        })
    };
    let head = [
        l.stride,
        match l.position {
            P::Xyz => 0,
            P::Xyzrhw => 1,
            P::Xyzw => 2,
        } | off12(l.position2) << 8
            | off12(l.normal2) << 20,
        l.position_offset,
        l.blend_weights.map_or(NONE, |(off, _)| off),
        l.blend_weights.map_or(0, |(_, n)| u32::from(n)),
        o(l.normal),
        o(l.point_size),
        colour(l.diffuse, l.diffuse_type),
        colour(l.specular, l.specular_type),
    ];
    // Texture sets: offset in bits 0..24, components in bits 24..32.
    let tex = l.texcoords.iter().map(|t| match t {
        Some(t) => (t.offset & 0x00FF_FFFF) | (u32::from(t.components) << 24),
        None => NONE,
    });
    for (dst, v) in d.iter_mut().zip(head.into_iter().chain(tex)) {
        *dst = v;
    }
    d
}

/// Decodes VERTEX_FORMAT's payload; `None` if a field is malformed (the
/// caller also runs `VertexLayout::validate`).
pub fn layout_from_dwords(d: &[u32]) -> Option<softhal_pipeline::VertexLayout> {
    use softhal_pipeline::{PositionKind as P, TexCoordElement, VertexLayout};
    let g = |i: usize| d.get(i).copied();
    let opt = |i: usize| g(i).map(|v| (v != NONE).then_some(v));
    let kind = g(1)?;
    let position = match kind & 0xFF {
        0 => P::Xyz,
        1 => P::Xyzrhw,
        2 => P::Xyzw,
        _ => return None,
    };
    let off12 = |v: u32| match v & 0xFFF {
        0 => None,
        0xFFF => Some(u32::MAX),
        o => Some(o.saturating_sub(1)),
    };
    let blend = match (opt(3)?, g(4)?) {
        (None, 0) => None,
        (Some(o), n @ 1..=5) => Some((o, n as u8)),
        _ => return None,
    };
    let colour = |i: usize| -> Option<(Option<u32>, softhal_pipeline::DeclType)> {
        let v = g(i)?;
        if v == NONE {
            return Some((None, softhal_pipeline::DeclType::D3dColor));
        }
        let t = match v >> 24 {
            0 => softhal_pipeline::DeclType::D3dColor,
            c => softhal_pipeline::DeclType::from_d3d(c.saturating_sub(1))
                .filter(|t| *t != softhal_pipeline::DeclType::D3dColor)?,
        };
        Some((Some(v & 0x00FF_FFFF), t))
    };
    let (diffuse, diffuse_type) = colour(7)?;
    let (specular, specular_type) = colour(8)?;
    let mut texcoords = [None; softhal_pipeline::limits::MAX_TEXCOORD_SETS];
    for (i, t) in texcoords.iter_mut().enumerate() {
        let v = g(9usize.checked_add(i)?)?;
        if v != NONE {
            *t = Some(TexCoordElement {
                offset: v & 0x00FF_FFFF,
                components: (v >> 24) as u8,
            });
        }
    }
    Some(VertexLayout {
        stride: g(0)?,
        position,
        position_offset: g(2)?,
        blend_weights: blend,
        normal: opt(5)?,
        point_size: opt(6)?,
        diffuse,
        specular,
        diffuse_type,
        specular_type,
        texcoords,
        position2: off12(kind >> 8),
        normal2: off12(kind >> 20),
    })
}

/// TEXTURE_COPY operands: a box of `w × h × d` texels from face `sf`
/// level `sl` of texture allocation `src` at `(x, y, z)` to face `df`
/// level `dl` of texture allocation `dst` at `(dx, dy, dz)`. `src` and
/// `dst` are allocation-list indices (`dst` needs WriteOperation). For
/// 2-D and cube textures use `z = 0, d = 1, dz = 0` (the default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureCopy {
    /// Source allocation-list index.
    pub src: u32,
    /// Source face (0 unless a cube: D3DCUBEMAP_FACES 0–5).
    pub sf: u32,
    /// Source level.
    pub sl: u32,
    /// Source x.
    pub x: u32,
    /// Source y.
    pub y: u32,
    /// Source slice (volumes).
    pub z: u32,
    /// Width in texels.
    pub w: u32,
    /// Height in texels.
    pub h: u32,
    /// Depth in slices (1 for 2-D and cube textures).
    pub d: u32,
    /// Destination allocation-list index.
    pub dst: u32,
    /// Destination face.
    pub df: u32,
    /// Destination level.
    pub dl: u32,
    /// Destination x.
    pub dx: u32,
    /// Destination y.
    pub dy: u32,
    /// Destination slice.
    pub dz: u32,
}

impl Default for TextureCopy {
    /// Everything 0 except `d = 1` (one slice).
    fn default() -> Self {
        TextureCopy {
            src: 0,
            sf: 0,
            sl: 0,
            x: 0,
            y: 0,
            z: 0,
            w: 0,
            h: 0,
            d: 1,
            dst: 0,
            df: 0,
            dl: 0,
            dx: 0,
            dy: 0,
            dz: 0,
        }
    }
}

impl TextureCopy {
    /// The operands of a TEXTURE_COPY packet's payload (DWORDs 1–15, the
    /// references as they stand: indices before patching, handles after).
    pub fn from_payload(p: &[u32; 15]) -> Self {
        let [src, sf, sl, x, y, z, w, h, d, dst, df, dl, dx, dy, dz] = *p;
        TextureCopy {
            src,
            sf,
            sl,
            x,
            y,
            z,
            w,
            h,
            d,
            dst,
            df,
            dl,
            dx,
            dy,
            dz,
        }
    }
}

/// A reference the UMD recorded: byte offset of the DWORD to patch and the
/// allocation-list index it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingRef {
    /// Byte offset in the command buffer.
    pub offset: u32,
    /// Allocation-list index.
    pub index: u32,
}

/// Writes packets into a byte vector (the UMD side). Reference DWORDs are
/// written as 0 and reported through [`Writer::refs`] for the patch list.
#[derive(Debug, Default, Clone)]
pub struct Writer {
    /// The bytes written.
    pub bytes: Vec<u8>,
    /// References to patch.
    pub refs: Vec<PendingRef>,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Writer::default()
    }
    /// Clears bytes and references (keeps capacity).
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.refs.clear();
    }
    fn dw(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    fn head(&mut self, opcode: u8, flags: u8, dwords: usize) {
        match u16::try_from(dwords) {
            Ok(n) if n > 0 => self.dw(header(opcode, flags, n)),
            _ => {
                self.dw(header(opcode, flags, 0));
                self.dw(u32::try_from(dwords.saturating_add(1)).unwrap_or(u32::MAX));
            }
        }
    }
    fn reference(&mut self, index: u32) {
        let offset = u32::try_from(self.bytes.len()).unwrap_or(u32::MAX);
        self.refs.push(PendingRef { offset, index });
        self.dw(0);
    }
    /// NOP with `pad` payload DWORDs.
    pub fn nop(&mut self, pad: usize) {
        self.head(op::NOP, 0, pad.saturating_add(1));
        for _ in 0..pad {
            self.dw(0);
        }
    }
    /// SET_REGS.
    pub fn set_regs(&mut self, pairs: &[(u32, u32)]) {
        if pairs.is_empty() {
            return;
        }
        self.head(
            op::SET_REGS,
            0,
            pairs.len().saturating_mul(2).saturating_add(1),
        );
        for &(r, v) in pairs {
            self.dw(r);
            self.dw(v);
        }
    }
    /// BIND_TARGETS: colour (and depth) allocation-list indices.
    pub fn bind_targets(&mut self, color: u32, depth: Option<u32>) {
        self.head(
            op::BIND_TARGETS,
            if depth.is_some() { flag::DEPTH } else { 0 },
            3,
        );
        self.reference(color);
        match depth {
            Some(d) => self.reference(d),
            None => self.dw(0),
        }
    }
    /// VERTEX_FORMAT.
    pub fn vertex_format(&mut self, l: &softhal_pipeline::VertexLayout) {
        self.head(op::VERTEX_FORMAT, 0, 18);
        for v in layout_dwords(l) {
            self.dw(v);
        }
    }
    /// SET_VERTICES: `size` bytes at `offset` of allocation-list entry `index`.
    pub fn set_vertices(&mut self, index: u32, offset: u32, size: u32) {
        self.head(op::SET_VERTICES, 0, 4);
        self.reference(index);
        self.dw(offset);
        self.dw(size);
    }
    fn inline(&mut self, opcode: u8, pre: &[u32], data: &[u8]) {
        let dwords = data.len().div_ceil(4);
        self.head(
            opcode,
            0,
            dwords.saturating_add(pre.len()).saturating_add(2),
        );
        self.dw(u32::try_from(data.len()).unwrap_or(u32::MAX));
        for &p in pre {
            self.dw(p);
        }
        self.bytes.extend_from_slice(data);
        let pad = dwords.saturating_mul(4).saturating_sub(data.len());
        self.bytes.resize(self.bytes.len().saturating_add(pad), 0);
    }
    /// VERTICES_INLINE: the bytes travel in the command buffer.
    pub fn vertices_inline(&mut self, data: &[u8]) {
        self.inline(op::VERTICES_INLINE, &[], data);
    }
    /// SET_INDICES: `size` bytes of `width`-byte indices.
    pub fn set_indices(&mut self, index: u32, offset: u32, size: u32, width: u32) {
        self.head(op::SET_INDICES, 0, 5);
        self.reference(index);
        self.dw(offset);
        self.dw(size);
        self.dw(width);
    }
    /// INDICES_INLINE.
    pub fn indices_inline(&mut self, data: &[u8], width: u32) {
        self.inline(op::INDICES_INLINE, &[width], data);
    }
    /// DRAW.
    pub fn draw(&mut self, topology: u32, first: u32, count: u32, base_vertex: i32, indexed: bool) {
        self.head(op::DRAW, if indexed { flag::INDEXED } else { 0 }, 5);
        self.dw(topology);
        self.dw(first);
        self.dw(count);
        self.dw(base_vertex as u32);
    }
    /// CLEAR of the bound targets (`rects` as x1, y1, x2, y2).
    pub fn clear_targets(
        &mut self,
        flags: u32,
        color: u32,
        z: f32,
        stencil: u32,
        rects: &[[i32; 4]],
    ) {
        self.head(
            op::CLEAR,
            0,
            rects.len().saturating_mul(4).saturating_add(6),
        );
        self.dw(flags);
        self.dw(color);
        self.dw(z.to_bits());
        self.dw(stencil);
        self.dw(u32::try_from(rects.len()).unwrap_or(u32::MAX));
        for r in rects {
            for &v in r {
                self.dw(v as u32);
            }
        }
    }
    /// BUFFER_COPY of `size` bytes.
    pub fn buffer_copy(&mut self, src: u32, src_offset: u32, dst: u32, dst_offset: u32, size: u32) {
        self.head(op::BUFFER_COPY, 0, 6);
        self.reference(src);
        self.dw(src_offset);
        self.reference(dst);
        self.dw(dst_offset);
        self.dw(size);
    }
    /// QUERY: `end` false = begin.
    pub fn query(&mut self, end: bool, id: u32) {
        self.head(op::QUERY, 0, 3);
        self.dw(u32::from(end));
        self.dw(id);
    }
    /// PRESENT.
    pub fn present(&mut self, index: u32) {
        self.head(op::PRESENT, 0, 2);
        self.reference(index);
    }
    /// SET_TEXTURE: binds allocation-list entry `index` (a texture
    /// allocation) to texture stage `stage` until the end of the
    /// submission, or unbinds the stage (`None`: the UNBIND flag, no
    /// reference).
    pub fn set_texture(&mut self, stage: u32, index: Option<u32>) {
        match index {
            Some(i) => {
                self.head(op::SET_TEXTURE, 0, 3);
                self.dw(stage);
                self.reference(i);
            }
            None => {
                self.head(op::SET_TEXTURE, flag::UNBIND, 3);
                self.dw(stage);
                self.dw(0);
            }
        }
    }
    /// TEXTURE_COPY (`c.src` and `c.dst` are allocation-list indices;
    /// both become references).
    pub fn texture_copy(&mut self, c: TextureCopy) {
        self.head(op::TEXTURE_COPY, 0, 16);
        self.reference(c.src);
        for v in [c.sf, c.sl, c.x, c.y, c.z, c.w, c.h, c.d] {
            self.dw(v);
        }
        self.reference(c.dst);
        for v in [c.df, c.dl, c.dx, c.dy, c.dz] {
            self.dw(v);
        }
    }
    /// BIND_TEXTURE_TARGET: face `face`, level `level` of the render-target
    /// texture at allocation-list index `color` (and a depth index).
    pub fn bind_texture_target(&mut self, color: u32, face: u32, level: u32, depth: Option<u32>) {
        self.head(
            op::BIND_TEXTURE_TARGET,
            if depth.is_some() { flag::DEPTH } else { 0 },
            5,
        );
        self.reference(color);
        self.dw(face);
        self.dw(level);
        match depth {
            Some(d) => self.reference(d),
            None => self.dw(0),
        }
    }
    /// A raw packet (tests, the kernel's own packets).
    pub fn raw(&mut self, opcode: u8, flags: u8, payload: &[u32]) {
        self.head(opcode, flags, payload.len().saturating_add(1));
        for &p in payload {
            self.dw(p);
        }
    }
}
