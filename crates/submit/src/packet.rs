//! GPU packets: the command-buffer format (`docs/gpu-commands.md`).
//!
//! Every packet starts with a DWORD header: bits 0–7 the opcode, bits 8–15
//! flags, bits 16–31 the packet length in DWORDs *including* the header.
//! A length field of 0 means an extended header: the second DWORD holds
//! the total length in DWORDs (≥ 2). All fields are little-endian DWORDs.
//!
//! In: opcodes and operands (the UMD, through [`Writer`]), or the bytes of
//! a command buffer (the kernel's copy, a capture). Out: bytes and their
//! patch-location list ([`Writer::patch_locations`]); the [`RULES`]
//! verifier table; each packet framed ([`frame_at`]) and decoded once into
//! a typed [`Packet`] (checked zero-copy views, counts checked against the
//! length) that prints by name with its fields. Guarantees: the table is
//! the only place that says which packets user mode may send, on which
//! engine, with which sizes and flags, which DWORDs are allocation
//! references, and which function verifies the operands (`verify`);
//! decoding never panics and never reads outside the packet.

use crate::error::SubmitError;
use crate::verify;
use core::fmt;
use zerocopy::little_endian::{I32, U32};
use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

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
    pub const BLT: u8 = 0x11;
    pub const COLOR_FILL: u8 = 0x12;
    pub const GENERATE_MIPS: u8 = 0x13;
    pub const CREATE_SHADER: u8 = 0x14;
    pub const DESTROY_SHADER: u8 = 0x15;
    pub const SET_SHADER: u8 = 0x16;
    pub const SET_CONSTANTS: u8 = 0x17;
    pub const VERTEX_INPUTS: u8 = 0x18;
    pub const BIND_RENDER_TARGET: u8 = 0x19;
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
    /// SET_TEXTURE: unbind the stage (DWORD 2 is 0 and not a reference);
    /// BIND_RENDER_TARGET: unbind the render target (likewise).
    pub const UNBIND: u8 = 0x01;
}

/// An engine of the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Engine {
    /// The 3-D engine (draws, clears, copies, queries, presents).
    ThreeD,
    /// The copy engine (BUFFER_COPY, TEXTURE_COPY, BLT, COLOR_FILL and
    /// GENERATE_MIPS only).
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
#[derive(Debug, Clone, Copy)]
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
    /// The function that verifies the decoded packet's operands
    /// (`crate::verify`) and resolves its references.
    pub(crate) verify: crate::verify::Verify,
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
        verify: verify::nop,
    },
    Rule {
        opcode: op::SET_REGS,
        name: "SET_REGS",
        user: true,
        engines: THREE_D,
        size: Size::AtLeast(3),
        flags: 0,
        refs: &[],
        verify: verify::set_regs,
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
        verify: verify::bind_targets,
    },
    Rule {
        opcode: op::VERTEX_FORMAT,
        name: "VERTEX_FORMAT",
        user: true,
        engines: THREE_D,
        size: Size::Exact(18),
        flags: 0,
        refs: &[],
        verify: verify::vertex_format,
    },
    Rule {
        opcode: op::SET_VERTICES,
        name: "SET_VERTICES",
        user: true,
        engines: THREE_D,
        size: Size::Exact(4),
        flags: 0,
        refs: &[r(1, Access::Read)],
        verify: verify::set_vertices,
    },
    Rule {
        opcode: op::VERTICES_INLINE,
        name: "VERTICES_INLINE",
        user: true,
        engines: THREE_D,
        size: Size::AtLeast(2),
        flags: 0,
        refs: &[],
        verify: verify::vertices_inline,
    },
    Rule {
        opcode: op::SET_INDICES,
        name: "SET_INDICES",
        user: true,
        engines: THREE_D,
        size: Size::Exact(5),
        flags: 0,
        refs: &[r(1, Access::Read)],
        verify: verify::set_indices,
    },
    Rule {
        opcode: op::INDICES_INLINE,
        name: "INDICES_INLINE",
        user: true,
        engines: THREE_D,
        size: Size::AtLeast(3),
        flags: 0,
        refs: &[],
        verify: verify::indices_inline,
    },
    Rule {
        opcode: op::DRAW,
        name: "DRAW",
        user: true,
        engines: THREE_D,
        size: Size::Exact(5),
        flags: flag::INDEXED,
        refs: &[],
        verify: verify::draw,
    },
    Rule {
        opcode: op::CLEAR,
        name: "CLEAR",
        user: true,
        engines: THREE_D,
        size: Size::AtLeast(6),
        flags: 0,
        refs: &[],
        verify: verify::clear,
    },
    Rule {
        opcode: op::BUFFER_COPY,
        name: "BUFFER_COPY",
        user: true,
        engines: BOTH,
        size: Size::Exact(6),
        flags: 0,
        refs: &[r(1, Access::Read), r(3, Access::Write)],
        verify: verify::buffer_copy,
    },
    Rule {
        opcode: op::QUERY,
        name: "QUERY",
        user: true,
        engines: THREE_D,
        size: Size::Exact(3),
        flags: 0,
        refs: &[],
        verify: verify::query,
    },
    Rule {
        opcode: op::PRESENT,
        name: "PRESENT",
        user: true,
        engines: THREE_D,
        size: Size::Exact(2),
        flags: 0,
        refs: &[r(1, Access::Read)],
        verify: verify::present,
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
        verify: verify::set_texture,
    },
    Rule {
        opcode: op::TEXTURE_COPY,
        name: "TEXTURE_COPY",
        user: true,
        engines: BOTH,
        size: Size::Exact(16),
        flags: 0,
        refs: &[r(1, Access::Read), r(10, Access::Write)],
        verify: verify::texture_copy,
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
        verify: verify::bind_texture_target,
    },
    Rule {
        opcode: op::BLT,
        name: "BLT",
        user: true,
        engines: BOTH,
        size: Size::Exact(15),
        flags: 0,
        refs: &[r(1, Access::Read), r(8, Access::Write)],
        verify: verify::blt,
    },
    Rule {
        opcode: op::COLOR_FILL,
        name: "COLOR_FILL",
        user: true,
        engines: BOTH,
        size: Size::Exact(9),
        flags: 0,
        refs: &[r(1, Access::Write)],
        verify: verify::color_fill,
    },
    Rule {
        opcode: op::GENERATE_MIPS,
        name: "GENERATE_MIPS",
        user: true,
        engines: BOTH,
        size: Size::Exact(2),
        flags: 0,
        refs: &[r(1, Access::Write)],
        verify: verify::generate_mips,
    },
    Rule {
        opcode: op::CREATE_SHADER,
        name: "CREATE_SHADER",
        user: true,
        engines: THREE_D,
        size: Size::AtLeast(3),
        flags: 0,
        refs: &[],
        verify: verify::create_shader,
    },
    Rule {
        opcode: op::DESTROY_SHADER,
        name: "DESTROY_SHADER",
        user: true,
        engines: THREE_D,
        size: Size::Exact(2),
        flags: 0,
        refs: &[],
        verify: verify::destroy_shader,
    },
    Rule {
        opcode: op::SET_SHADER,
        name: "SET_SHADER",
        user: true,
        engines: THREE_D,
        size: Size::Exact(3),
        flags: 0,
        refs: &[],
        verify: verify::set_shader,
    },
    Rule {
        opcode: op::SET_CONSTANTS,
        name: "SET_CONSTANTS",
        user: true,
        engines: THREE_D,
        size: Size::AtLeast(5),
        flags: 0,
        refs: &[],
        verify: verify::set_constants,
    },
    Rule {
        opcode: op::VERTEX_INPUTS,
        name: "VERTEX_INPUTS",
        user: true,
        engines: THREE_D,
        size: Size::AtLeast(2),
        flags: 0,
        refs: &[],
        verify: verify::vertex_inputs,
    },
    Rule {
        opcode: op::BIND_RENDER_TARGET,
        name: "BIND_RENDER_TARGET",
        user: true,
        engines: THREE_D,
        size: Size::Exact(5),
        flags: flag::UNBIND,
        refs: &[RefSlot {
            dword: 2,
            access: Access::Write,
            only_if: None,
            unless: Some(flag::UNBIND),
        }],
        verify: verify::bind_render_target,
    },
    Rule {
        opcode: op::FENCE_SIGNAL,
        name: "FENCE_SIGNAL",
        user: false,
        engines: BOTH,
        size: Size::Exact(4),
        flags: 0,
        refs: &[],
        verify: verify::kernel_only,
    },
    Rule {
        opcode: op::FENCE_WAIT,
        name: "FENCE_WAIT",
        user: false,
        engines: BOTH,
        size: Size::Exact(4),
        flags: 0,
        refs: &[],
        verify: verify::kernel_only,
    },
    Rule {
        opcode: op::MAKE_RESIDENT,
        name: "MAKE_RESIDENT",
        user: false,
        engines: BOTH,
        size: Size::Exact(2),
        flags: 0,
        refs: &[],
        verify: verify::kernel_only,
    },
    Rule {
        opcode: op::EVICT,
        name: "EVICT",
        user: false,
        engines: BOTH,
        size: Size::Exact(2),
        flags: 0,
        refs: &[],
        verify: verify::kernel_only,
    },
    Rule {
        opcode: op::CONTEXT_SWITCH,
        name: "CONTEXT_SWITCH",
        user: false,
        engines: BOTH,
        size: Size::Exact(2),
        flags: 0,
        refs: &[],
        verify: verify::kernel_only,
    },
];

/// The table row of `opcode`.
pub fn rule(opcode: u8) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.opcode == opcode)
}

/// The table name of `opcode` (`"?"` for an opcode the table does not
/// know).
pub fn name_of(opcode: u8) -> &'static str {
    rule(opcode).map_or("?", |r| r.name)
}

/// A header DWORD.
pub const fn header(opcode: u8, flags: u8, dwords: u16) -> u32 {
    (opcode as u32) | ((flags as u32) << 8) | ((dwords as u32) << 16)
}

// ------------------------------------------------------------ decoding

/// One packet as its header frames it: where it starts, opcode, flags and
/// payload. Made by [`frame_at`]; says nothing yet about the operands.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// Byte offset of the header in the command buffer.
    pub offset: usize,
    /// Opcode (header bits 0–7).
    pub opcode: u8,
    /// Flags (header bits 8–15).
    pub flags: u8,
    /// Header DWORDs: 1, or 2 for an extended header.
    pub header_dwords: usize,
    /// Byte offset of the payload in the command buffer.
    pub payload_offset: usize,
    /// The payload: the DWORDs after the header.
    pub payload: &'a [u8],
}

/// A byte offset as the u32 errors carry (saturated).
pub(crate) fn off32(o: usize) -> u32 {
    u32::try_from(o).unwrap_or(u32::MAX)
}

fn dword_at(b: &[u8], at: usize) -> u32 {
    at.checked_add(4)
        .and_then(|e| b.get(at..e))
        .and_then(|s| <[u8; 4]>::try_from(s).ok())
        .map_or(0, u32::from_le_bytes)
}

impl<'a> Frame<'a> {
    /// Payload length in DWORDs.
    pub fn payload_dwords(&self) -> usize {
        self.payload.len() / 4
    }
    /// `D3DDDIERR_INVALIDUSERBUFFER`-kind error at this packet.
    pub(crate) fn user_buffer(&self, reason: &'static str) -> SubmitError {
        SubmitError::UserBuffer {
            offset: off32(self.offset),
            reason,
        }
    }
    /// An invalid operand of this packet.
    pub(crate) fn invalid(&self, reason: &'static str) -> SubmitError {
        SubmitError::Invalid {
            offset: off32(self.offset),
            reason,
            register: None,
        }
    }
    /// A refused SET_REGS write to register `register`.
    pub(crate) fn bad_register(&self, register: u32, reason: &'static str) -> SubmitError {
        SubmitError::Invalid {
            offset: off32(self.offset),
            reason,
            register: Some(register),
        }
    }
    /// The reference in payload field at byte `field` (a reference DWORD).
    fn reference(&self, field: usize) -> Ref {
        Ref {
            offset: self.payload_offset.saturating_add(field),
        }
    }
    /// The payload as a `T` (exactly).
    fn view<T>(&self) -> Result<&'a T, SubmitError>
    where
        T: FromBytes + KnownLayout + Immutable + Unaligned + ?Sized,
    {
        T::ref_from_bytes(self.payload)
            .map_err(|_| self.user_buffer("length does not match the packet"))
    }
}

/// Frames the packet whose header is at byte `at` of `bytes` (`at <
/// bytes.len()`, on a DWORD boundary): reads the (extended) length and
/// checks the packet ends inside `bytes`. Errors are
/// `D3DDDIERR_INVALIDUSERBUFFER`s at `at`.
pub fn frame_at(bytes: &[u8], at: usize) -> Result<Frame<'_>, SubmitError> {
    let ub = |reason| SubmitError::UserBuffer {
        offset: off32(at),
        reason,
    };
    let h = dword_at(bytes, at);
    let opcode = (h & 0xFF) as u8;
    let flags = ((h >> 8) & 0xFF) as u8;
    let mut total = (h >> 16) as usize;
    let mut header_dwords = 1usize;
    if total == 0 {
        let ext = at.checked_add(8).ok_or(ub("length overflow"))?;
        if ext > bytes.len() {
            return Err(ub("extended header runs past CommandLength"));
        }
        total = dword_at(bytes, at.saturating_add(4)) as usize;
        header_dwords = 2;
        if total < 2 {
            return Err(ub("extended length below 2 DWORDs"));
        }
    }
    let end = total
        .checked_mul(4)
        .and_then(|n| at.checked_add(n))
        .ok_or(ub("length overflow"))?;
    let payload_offset = at.saturating_add(header_dwords.saturating_mul(4));
    let payload = bytes
        .get(payload_offset..end)
        .ok_or(ub("packet runs past CommandLength"))?;
    Ok(Frame {
        offset: at,
        opcode,
        flags,
        header_dwords,
        payload_offset,
        payload,
    })
}

impl Rule {
    /// Does a packet with this header size and payload fit the length
    /// rule? (Exact-size packets have a one-DWORD header.)
    pub fn fits(&self, header_dwords: usize, payload_dwords: usize) -> bool {
        match self.size {
            Size::Exact(n) => header_dwords == 1 && payload_dwords.saturating_add(1) == n as usize,
            Size::AtLeast(n) => payload_dwords.saturating_add(1) >= n as usize,
        }
    }
}

/// An allocation reference inside a packet: the byte offset, in the
/// command buffer, of the DWORD a patch location fills with an allocation
/// handle. Shown as `@offset` (the `offset` of its patch location).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ref {
    /// Byte offset of the reference DWORD.
    pub offset: usize,
}

impl fmt::Display for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}", self.offset)
    }
}

/// One register write of SET_REGS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct RegWrite {
    /// Register id (`crate::regs`).
    pub id: U32,
    /// Value.
    pub value: U32,
}

/// One CLEAR rectangle (right and bottom exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct ClearRect {
    /// Left.
    pub x1: I32,
    /// Top.
    pub y1: I32,
    /// Right.
    pub x2: I32,
    /// Bottom.
    pub y2: I32,
}

/// VERTEX_FORMAT's payload: the vertex layout in 17 DWORDs
/// ([`layout_dwords`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VertexFormatDw {
    /// The DWORDs.
    pub dwords: [U32; 17],
}

impl VertexFormatDw {
    /// The layout; `None` if a field is malformed ([`layout_from_dwords`]).
    pub fn layout(&self) -> Option<softhal_pipeline::VertexLayout> {
        layout_from_dwords(&self.dwords.map(U32::get))
    }
    /// Vertex stride in bytes (DWORD 0).
    pub fn stride(&self) -> u32 {
        self.dwords.first().map_or(0, |v| v.get())
    }
}

/// `D3DCLEAR_*` bits of a CLEAR packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClearFlags(pub u32);

impl ClearFlags {
    /// D3DCLEAR_TARGET.
    pub const TARGET: u32 = 0x1;
    /// D3DCLEAR_ZBUFFER.
    pub const ZBUFFER: u32 = 0x2;
    /// D3DCLEAR_STENCIL.
    pub const STENCIL: u32 = 0x4;
    /// Only these bits are defined.
    pub const DEFINED: u32 = Self::TARGET | Self::ZBUFFER | Self::STENCIL;
    /// Any bit of `bits` set?
    pub const fn any(self, bits: u32) -> bool {
        self.0 & bits != 0
    }
}

impl fmt::Display for ClearFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = softhal_wire::names::CLEAR_FLAGS.format(self.0);
        f.write_str(&names.replace("D3DCLEAR_", ""))
    }
}

/// A GPU packet, decoded once from the (copied) command buffer: fields
/// named by what they are, variable parts as checked zero-copy views of
/// the bytes. Decoding checks only what the bytes themselves say (counts
/// against the length); the verifier ([`Rule`]'s function) checks the
/// operands against the allocations and the bindings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Packet<'a> {
    /// NOP (any payload, ignored).
    Nop,
    /// SET_REGS: register writes in order.
    SetRegs(&'a [RegWrite]),
    /// BIND_TARGETS: the colour image (and depth/stencil image).
    BindTargets {
        /// Colour target.
        color: Ref,
        /// Depth/stencil target (the DEPTH flag).
        depth: Option<Ref>,
    },
    /// VERTEX_FORMAT: the vertex layout of later draws.
    VertexFormat(&'a VertexFormatDw),
    /// SET_VERTICES: `size` bytes at `offset` of a buffer.
    SetVertices {
        /// The buffer.
        buffer: Ref,
        /// Byte offset.
        offset: u32,
        /// Bytes.
        size: u32,
    },
    /// VERTICES_INLINE: vertex bytes in the packet.
    VerticesInline(&'a [u8]),
    /// SET_INDICES: `size` bytes of `width`-byte indices at `offset` of a
    /// buffer.
    SetIndices {
        /// The buffer.
        buffer: Ref,
        /// Byte offset.
        offset: u32,
        /// Bytes.
        size: u32,
        /// Index width in bytes (2 or 4).
        width: u32,
    },
    /// INDICES_INLINE: index bytes in the packet.
    IndicesInline {
        /// Index width in bytes (2 or 4).
        width: u32,
        /// The indices.
        data: &'a [u8],
    },
    /// DRAW.
    Draw {
        /// `D3DPRIMITIVETYPE`.
        topology: u32,
        /// First vertex (or index).
        first: u32,
        /// Primitives.
        count: u32,
        /// Added to each index.
        base_vertex: i32,
        /// Indexed (the INDEXED flag): reads the bound indices.
        indexed: bool,
    },
    /// CLEAR of the bound targets.
    Clear {
        /// What to clear.
        flags: ClearFlags,
        /// Colour (D3DCOLOR).
        color: u32,
        /// Depth.
        z: f32,
        /// Stencil.
        stencil: u32,
        /// Rectangles (none: the whole target).
        rects: &'a [ClearRect],
    },
    /// BUFFER_COPY of `size` bytes.
    BufferCopy {
        /// Source buffer.
        src: Ref,
        /// Source byte offset.
        src_offset: u32,
        /// Destination buffer.
        dst: Ref,
        /// Destination byte offset.
        dst_offset: u32,
        /// Bytes.
        size: u32,
    },
    /// QUERY: begin (0) or end (1) occlusion query `id`.
    Query {
        /// 0 begin, 1 end.
        operation: u32,
        /// Query id.
        id: u32,
    },
    /// PRESENT of a colour image.
    Present {
        /// The image.
        image: Ref,
    },
    /// SET_TEXTURE: bind a texture to a stage, or unbind it (UNBIND flag).
    SetTexture {
        /// Texture stage.
        stage: u32,
        /// The texture (`None`: UNBIND).
        texture: Option<Ref>,
        /// DWORD 2 of an UNBIND packet (must be 0).
        unbound: u32,
    },
    /// TEXTURE_COPY of a box between texture levels.
    TextureCopy {
        /// Source texture.
        src: Ref,
        /// Destination texture.
        dst: Ref,
        /// The box (its `src`/`dst` are the reference DWORDs as they stand).
        copy: TextureCopy,
    },
    /// BIND_TEXTURE_TARGET: a face and level of a render-target texture
    /// as the colour target (and a depth/stencil image).
    BindTextureTarget {
        /// The texture.
        texture: Ref,
        /// Cube face (0 otherwise).
        face: u32,
        /// Mip level.
        level: u32,
        /// Depth/stencil target (the DEPTH flag).
        depth: Option<Ref>,
    },
    /// BIND_RENDER_TARGET: render target 1–3 (an image, or a face and
    /// level of a render-target texture), or unbind it (UNBIND flag).
    BindRenderTarget {
        /// The render-target slot (SETRENDERTARGET2's RTIndex, 1–3).
        rt_index: u32,
        /// The image or texture (`None`: UNBIND).
        target: Option<Ref>,
        /// Cube face (0 otherwise).
        face: u32,
        /// Mip level (0 for an image).
        level: u32,
        /// DWORD 2 of an UNBIND packet (must be 0).
        unbound: u32,
    },
    /// BLT: a rectangle of a surface stretched onto a rectangle of
    /// another (or the same) surface.
    Blt {
        /// Source image or texture.
        src: Ref,
        /// Destination image or texture.
        dst: Ref,
        /// The operands (its `src`/`dst` are the reference DWORDs as they
        /// stand).
        blt: Blt,
    },
    /// COLOR_FILL of a rectangle of a surface.
    ColorFill {
        /// Destination image or texture.
        dst: Ref,
        /// The operands (its `dst` is the reference DWORD as it stands).
        fill: ColorFill,
    },
    /// GENERATE_MIPS: levels 1.. of a texture from level 0.
    GenerateMips {
        /// The texture.
        texture: Ref,
    },
    /// CREATE_SHADER: shader object `id` of the context is the shader
    /// these Direct3D tokens describe (replacing an object of that id).
    CreateShader {
        /// The object's id (not 0).
        id: u32,
        /// The token stream (version token first).
        tokens: &'a [U32],
    },
    /// DESTROY_SHADER: shader object `id` of the context is gone.
    DestroyShader {
        /// The object's id.
        id: u32,
    },
    /// SET_SHADER: the shader object later draws run at a stage.
    SetShader {
        /// [`ShaderStage`] number (0 vertex, 1 pixel).
        stage: u32,
        /// The object's id; 0 = fixed function.
        id: u32,
    },
    /// SET_CONSTANTS: `count` constant registers of a stage's bank from
    /// register `first` on.
    SetConstants {
        /// [`ShaderStage`] number (0 vertex, 1 pixel).
        stage: u32,
        /// [`ConstantBank`] number (0 float, 1 integer, 2 BOOL).
        bank: u32,
        /// First register.
        first: u32,
        /// Registers.
        count: u32,
        /// The values: 4 DWORDs a register (float bits or integers), 1 a
        /// BOOL register.
        data: &'a [U32],
    },
    /// VERTEX_INPUTS: the vertex-shader input registers of later draws
    /// and the vertex stride (instead of VERTEX_FORMAT, for draws with a
    /// vertex shader).
    VertexInputs {
        /// Bytes per vertex.
        stride: u32,
        /// One element per input register.
        inputs: &'a [VertexInputDw],
    },
    /// FENCE_SIGNAL (kernel only).
    FenceSignal {
        /// Context.
        context: u32,
        /// Fence value.
        fence: u64,
    },
    /// FENCE_WAIT (kernel only).
    FenceWait {
        /// Context.
        context: u32,
        /// Fence value.
        fence: u64,
    },
    /// MAKE_RESIDENT (kernel only).
    MakeResident {
        /// Allocation handle.
        allocation: u32,
    },
    /// EVICT (kernel only).
    Evict {
        /// Allocation handle.
        allocation: u32,
    },
    /// CONTEXT_SWITCH (kernel only).
    ContextSwitch {
        /// The context the engine switches to.
        context: u32,
    },
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct BindTargetsDw {
    color: U32,
    depth: U32,
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct SetVerticesDw {
    buffer: U32,
    offset: U32,
    size: U32,
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct SetIndicesDw {
    buffer: U32,
    offset: U32,
    size: U32,
    width: U32,
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct DrawDw {
    topology: U32,
    first: U32,
    count: U32,
    base_vertex: I32,
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct ClearDw {
    flags: U32,
    color: U32,
    z: U32,
    stencil: U32,
    rect_count: U32,
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct BufferCopyDw {
    src: U32,
    src_offset: U32,
    dst: U32,
    dst_offset: U32,
    size: U32,
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct QueryDw {
    operation: U32,
    id: U32,
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct SetTextureDw {
    stage: U32,
    texture: U32,
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct TextureCopyDw {
    dwords: [U32; 15],
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct BltDw {
    dwords: [U32; 14],
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct ColorFillDw {
    dwords: [U32; 8],
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct BindTextureTargetDw {
    texture: U32,
    face: U32,
    level: U32,
    depth: U32,
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct BindRenderTargetDw {
    rt_index: U32,
    target: U32,
    face: U32,
    level: U32,
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct FenceDw {
    context: U32,
    low: U32,
    high: U32,
}

/// The stage a SET_SHADER or SET_CONSTANTS packet addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShaderStage {
    /// The vertex stage (0).
    Vertex,
    /// The pixel stage (1).
    Pixel,
}

impl ShaderStage {
    /// The stage of packet number `n`.
    pub const fn from_u32(n: u32) -> Option<ShaderStage> {
        match n {
            0 => Some(ShaderStage::Vertex),
            1 => Some(ShaderStage::Pixel),
            _ => None,
        }
    }
    /// Its packet number.
    pub const fn number(self) -> u32 {
        match self {
            ShaderStage::Vertex => 0,
            ShaderStage::Pixel => 1,
        }
    }
    /// Index (0 vertex, 1 pixel).
    pub const fn index(self) -> usize {
        self.number() as usize
    }
}

/// The constant bank a SET_CONSTANTS packet writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConstantBank {
    /// `c#`: four float DWORDs a register (0).
    Float,
    /// `i#`: four integer DWORDs a register (1).
    Int,
    /// `b#`: one DWORD a register, 0 false, anything else true (2).
    Bool,
}

impl ConstantBank {
    /// The bank of packet number `n`.
    pub const fn from_u32(n: u32) -> Option<ConstantBank> {
        match n {
            0 => Some(ConstantBank::Float),
            1 => Some(ConstantBank::Int),
            2 => Some(ConstantBank::Bool),
            _ => None,
        }
    }
    /// Its packet number.
    pub const fn number(self) -> u32 {
        match self {
            ConstantBank::Float => 0,
            ConstantBank::Int => 1,
            ConstantBank::Bool => 2,
        }
    }
    /// DWORDs per register.
    pub const fn dwords(self) -> usize {
        match self {
            ConstantBank::Bool => 1,
            _ => 4,
        }
    }
}

/// One element of VERTEX_INPUTS: input register `v#register` reads
/// `ty` (a `D3DDECLTYPE`) at byte `offset` of each vertex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct VertexInputDw {
    /// The input register number.
    pub register: U32,
    /// Byte offset in the vertex.
    pub offset: U32,
    /// `D3DDECLTYPE`.
    pub ty: U32,
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct SetShaderDw {
    stage: U32,
    id: U32,
}

#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct SetConstantsDw {
    stage: U32,
    bank: U32,
    first: U32,
    count: U32,
}

/// One DWORD (the payload of MAKE_RESIDENT, EVICT, CONTEXT_SWITCH, PRESENT).
#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct OneDw {
    value: U32,
}

/// The byte count (and for indices, the width) before inline data.
#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct InlineDw {
    bytes: U32,
}

/// Byte offset of TEXTURE_COPY's destination reference in its payload
/// (DWORD 10 of the packet).
const TEXTURE_COPY_DST: usize = 36;

/// Byte offset of BLT's destination reference in its payload (DWORD 8 of
/// the packet).
const BLT_DST: usize = 28;

impl<'a> Packet<'a> {
    /// Decodes a framed packet whose length fits its [`Rule`]. Errors
    /// (`D3DDDIERR_INVALIDUSERBUFFER` kind) when the payload's own counts
    /// disagree with its length; unknown opcodes are the caller's
    /// ([`rule`]) to reject.
    pub fn decode(f: &Frame<'a>) -> Result<Packet<'a>, SubmitError> {
        use core::mem::offset_of;
        let depth = |field| (f.flags & flag::DEPTH != 0).then(|| f.reference(field));
        Ok(match f.opcode {
            op::SET_REGS => {
                if !f.payload_dwords().is_multiple_of(2) {
                    return Err(f.user_buffer("SET_REGS payload is not (id, value) pairs"));
                }
                Packet::SetRegs(f.view::<[RegWrite]>()?)
            }
            op::BIND_TARGETS => {
                f.view::<BindTargetsDw>()?;
                Packet::BindTargets {
                    color: f.reference(offset_of!(BindTargetsDw, color)),
                    depth: depth(offset_of!(BindTargetsDw, depth)),
                }
            }
            op::VERTEX_FORMAT => Packet::VertexFormat(f.view::<VertexFormatDw>()?),
            op::SET_VERTICES => {
                let d = f.view::<SetVerticesDw>()?;
                Packet::SetVertices {
                    buffer: f.reference(offset_of!(SetVerticesDw, buffer)),
                    offset: d.offset.get(),
                    size: d.size.get(),
                }
            }
            op::VERTICES_INLINE | op::INDICES_INLINE => {
                let indices = f.opcode == op::INDICES_INLINE;
                let bad = || f.user_buffer("inline byte count does not match the packet");
                let (head, rest) = InlineDw::ref_from_prefix(f.payload).map_err(|_| bad())?;
                let (width, rest) = if indices {
                    let (w, rest) = InlineDw::ref_from_prefix(rest).map_err(|_| bad())?;
                    (w.bytes.get(), rest)
                } else {
                    (0, rest)
                };
                let n = head.bytes.get() as usize;
                if n.div_ceil(4).checked_mul(4) != Some(rest.len()) {
                    return Err(bad());
                }
                let data = rest.get(..n).ok_or_else(bad)?;
                if indices {
                    Packet::IndicesInline { width, data }
                } else {
                    Packet::VerticesInline(data)
                }
            }
            op::SET_INDICES => {
                let d = f.view::<SetIndicesDw>()?;
                Packet::SetIndices {
                    buffer: f.reference(offset_of!(SetIndicesDw, buffer)),
                    offset: d.offset.get(),
                    size: d.size.get(),
                    width: d.width.get(),
                }
            }
            op::DRAW => {
                let d = f.view::<DrawDw>()?;
                Packet::Draw {
                    topology: d.topology.get(),
                    first: d.first.get(),
                    count: d.count.get(),
                    base_vertex: d.base_vertex.get(),
                    indexed: f.flags & flag::INDEXED != 0,
                }
            }
            op::CLEAR => {
                let bad = || f.user_buffer("CLEAR rectangle count does not match the packet");
                let (d, rest) = ClearDw::ref_from_prefix(f.payload).map_err(|_| bad())?;
                let n = d.rect_count.get() as usize;
                let rects = <[ClearRect]>::ref_from_bytes_with_elems(rest, n).map_err(|_| bad())?;
                Packet::Clear {
                    flags: ClearFlags(d.flags.get()),
                    color: d.color.get(),
                    z: f32::from_bits(d.z.get()),
                    stencil: d.stencil.get(),
                    rects,
                }
            }
            op::BUFFER_COPY => {
                let d = f.view::<BufferCopyDw>()?;
                Packet::BufferCopy {
                    src: f.reference(offset_of!(BufferCopyDw, src)),
                    src_offset: d.src_offset.get(),
                    dst: f.reference(offset_of!(BufferCopyDw, dst)),
                    dst_offset: d.dst_offset.get(),
                    size: d.size.get(),
                }
            }
            op::QUERY => {
                let d = f.view::<QueryDw>()?;
                Packet::Query {
                    operation: d.operation.get(),
                    id: d.id.get(),
                }
            }
            op::PRESENT => {
                f.view::<OneDw>()?;
                Packet::Present {
                    image: f.reference(offset_of!(OneDw, value)),
                }
            }
            op::SET_TEXTURE => {
                let d = f.view::<SetTextureDw>()?;
                let unbind = f.flags & flag::UNBIND != 0;
                Packet::SetTexture {
                    stage: d.stage.get(),
                    texture: (!unbind).then(|| f.reference(offset_of!(SetTextureDw, texture))),
                    unbound: if unbind { d.texture.get() } else { 0 },
                }
            }
            op::TEXTURE_COPY => {
                let d = f.view::<TextureCopyDw>()?;
                let copy = TextureCopy::from_payload(&d.dwords.map(U32::get));
                Packet::TextureCopy {
                    src: f.reference(0),
                    dst: f.reference(TEXTURE_COPY_DST),
                    copy,
                }
            }
            op::BIND_TEXTURE_TARGET => {
                let d = f.view::<BindTextureTargetDw>()?;
                Packet::BindTextureTarget {
                    texture: f.reference(offset_of!(BindTextureTargetDw, texture)),
                    face: d.face.get(),
                    level: d.level.get(),
                    depth: depth(offset_of!(BindTextureTargetDw, depth)),
                }
            }
            op::BIND_RENDER_TARGET => {
                let d = f.view::<BindRenderTargetDw>()?;
                let unbind = f.flags & flag::UNBIND != 0;
                Packet::BindRenderTarget {
                    rt_index: d.rt_index.get(),
                    target: (!unbind).then(|| f.reference(offset_of!(BindRenderTargetDw, target))),
                    face: d.face.get(),
                    level: d.level.get(),
                    unbound: if unbind { d.target.get() } else { 0 },
                }
            }
            op::BLT => {
                let d = f.view::<BltDw>()?;
                Packet::Blt {
                    src: f.reference(0),
                    dst: f.reference(BLT_DST),
                    blt: Blt::from_payload(&d.dwords.map(U32::get)),
                }
            }
            op::COLOR_FILL => {
                let d = f.view::<ColorFillDw>()?;
                Packet::ColorFill {
                    dst: f.reference(0),
                    fill: ColorFill::from_payload(&d.dwords.map(U32::get)),
                }
            }
            op::GENERATE_MIPS => {
                f.view::<OneDw>()?;
                Packet::GenerateMips {
                    texture: f.reference(0),
                }
            }
            op::CREATE_SHADER => {
                let bad = || f.user_buffer("CREATE_SHADER without tokens");
                let (id, tokens) = OneDw::ref_from_prefix(f.payload).map_err(|_| bad())?;
                let tokens = <[U32]>::ref_from_bytes(tokens).map_err(|_| bad())?;
                Packet::CreateShader {
                    id: id.value.get(),
                    tokens,
                }
            }
            op::DESTROY_SHADER => Packet::DestroyShader {
                id: f.view::<OneDw>()?.value.get(),
            },
            op::SET_SHADER => {
                let d = f.view::<SetShaderDw>()?;
                Packet::SetShader {
                    stage: d.stage.get(),
                    id: d.id.get(),
                }
            }
            op::SET_CONSTANTS => {
                let bad = || f.user_buffer("SET_CONSTANTS count does not match the packet");
                let (d, rest) = SetConstantsDw::ref_from_prefix(f.payload).map_err(|_| bad())?;
                // An unknown bank is the verifier's to refuse; its data
                // is framed as four DWORDs a register.
                let per = ConstantBank::from_u32(d.bank.get()).map_or(4, ConstantBank::dwords);
                let n = (d.count.get() as usize).checked_mul(per).ok_or_else(bad)?;
                let data = <[U32]>::ref_from_bytes_with_elems(rest, n).map_err(|_| bad())?;
                Packet::SetConstants {
                    stage: d.stage.get(),
                    bank: d.bank.get(),
                    first: d.first.get(),
                    count: d.count.get(),
                    data,
                }
            }
            op::VERTEX_INPUTS => {
                let bad = || {
                    f.user_buffer("VERTEX_INPUTS payload is not (register, offset, type) triples")
                };
                let (stride, rest) = OneDw::ref_from_prefix(f.payload).map_err(|_| bad())?;
                Packet::VertexInputs {
                    stride: stride.value.get(),
                    inputs: <[VertexInputDw]>::ref_from_bytes(rest).map_err(|_| bad())?,
                }
            }
            op::FENCE_SIGNAL | op::FENCE_WAIT => {
                let d = f.view::<FenceDw>()?;
                let (context, fence) = (
                    d.context.get(),
                    u64::from(d.low.get()) | (u64::from(d.high.get()) << 32),
                );
                if f.opcode == op::FENCE_SIGNAL {
                    Packet::FenceSignal { context, fence }
                } else {
                    Packet::FenceWait { context, fence }
                }
            }
            op::MAKE_RESIDENT | op::EVICT | op::CONTEXT_SWITCH => {
                let v = f.view::<OneDw>()?.value.get();
                match f.opcode {
                    op::MAKE_RESIDENT => Packet::MakeResident { allocation: v },
                    op::EVICT => Packet::Evict { allocation: v },
                    _ => Packet::ContextSwitch { context: v },
                }
            }
            _ => Packet::Nop,
        })
    }

    /// The packet's opcode.
    pub fn opcode(&self) -> u8 {
        match self {
            Packet::Nop => op::NOP,
            Packet::SetRegs(_) => op::SET_REGS,
            Packet::BindTargets { .. } => op::BIND_TARGETS,
            Packet::VertexFormat(_) => op::VERTEX_FORMAT,
            Packet::SetVertices { .. } => op::SET_VERTICES,
            Packet::VerticesInline(_) => op::VERTICES_INLINE,
            Packet::SetIndices { .. } => op::SET_INDICES,
            Packet::IndicesInline { .. } => op::INDICES_INLINE,
            Packet::Draw { .. } => op::DRAW,
            Packet::Clear { .. } => op::CLEAR,
            Packet::BufferCopy { .. } => op::BUFFER_COPY,
            Packet::Query { .. } => op::QUERY,
            Packet::Present { .. } => op::PRESENT,
            Packet::SetTexture { .. } => op::SET_TEXTURE,
            Packet::TextureCopy { .. } => op::TEXTURE_COPY,
            Packet::BindTextureTarget { .. } => op::BIND_TEXTURE_TARGET,
            Packet::BindRenderTarget { .. } => op::BIND_RENDER_TARGET,
            Packet::Blt { .. } => op::BLT,
            Packet::ColorFill { .. } => op::COLOR_FILL,
            Packet::GenerateMips { .. } => op::GENERATE_MIPS,
            Packet::CreateShader { .. } => op::CREATE_SHADER,
            Packet::DestroyShader { .. } => op::DESTROY_SHADER,
            Packet::SetShader { .. } => op::SET_SHADER,
            Packet::SetConstants { .. } => op::SET_CONSTANTS,
            Packet::VertexInputs { .. } => op::VERTEX_INPUTS,
            Packet::FenceSignal { .. } => op::FENCE_SIGNAL,
            Packet::FenceWait { .. } => op::FENCE_WAIT,
            Packet::MakeResident { .. } => op::MAKE_RESIDENT,
            Packet::Evict { .. } => op::EVICT,
            Packet::ContextSwitch { .. } => op::CONTEXT_SWITCH,
        }
    }

    /// The packet's name (from the table).
    pub fn name(&self) -> &'static str {
        name_of(self.opcode())
    }

    /// The allocation references it carries, in packet order.
    pub fn refs(&self) -> Vec<Ref> {
        match *self {
            Packet::BindTargets { color, depth } => {
                [Some(color), depth].into_iter().flatten().collect()
            }
            Packet::SetVertices { buffer, .. } | Packet::SetIndices { buffer, .. } => vec![buffer],
            Packet::BufferCopy { src, dst, .. }
            | Packet::TextureCopy { src, dst, .. }
            | Packet::Blt { src, dst, .. } => vec![src, dst],
            Packet::ColorFill { dst, .. } => vec![dst],
            Packet::GenerateMips { texture } => vec![texture],
            Packet::Present { image } => vec![image],
            Packet::SetTexture { texture, .. } => texture.into_iter().collect(),
            Packet::BindRenderTarget { target, .. } => target.into_iter().collect(),
            Packet::BindTextureTarget { texture, depth, .. } => {
                [Some(texture), depth].into_iter().flatten().collect()
            }
            _ => Vec::new(),
        }
    }
}

/// The name of a `D3DPRIMITIVETYPE` without its prefix (or the number).
fn topology_name(v: u32) -> String {
    match softhal_wire::names::PrimitiveType::from_raw(v) {
        Some(t) => t.name().trim_start_matches("D3DPT_").to_string(),
        None => v.to_string(),
    }
}

impl fmt::Display for Packet<'_> {
    /// The packet's name, then its fields as `name=value`
    /// (`CLEAR flags=TARGET|ZBUFFER color=0xff203040 z=1 stencil=0
    /// rects=1`); references as `@offset`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        let depth = |f: &mut fmt::Formatter<'_>, d: &Option<Ref>| match d {
            Some(d) => write!(f, " depth={d}"),
            None => Ok(()),
        };
        match self {
            Packet::Nop => Ok(()),
            Packet::SetRegs(r) => write!(f, " regs={}", r.len()),
            Packet::BindTargets { color, depth: d } => {
                write!(f, " color={color}")?;
                depth(f, d)
            }
            Packet::VertexFormat(v) => write!(f, " stride={}", v.stride()),
            Packet::SetVertices {
                buffer,
                offset,
                size,
            } => write!(f, " buffer={buffer} offset={offset} size={size}"),
            Packet::VerticesInline(d) => write!(f, " bytes={}", d.len()),
            Packet::SetIndices {
                buffer,
                offset,
                size,
                width,
            } => write!(
                f,
                " buffer={buffer} offset={offset} size={size} width={width}"
            ),
            Packet::IndicesInline { width, data } => {
                write!(f, " width={width} bytes={}", data.len())
            }
            Packet::Draw {
                topology,
                first,
                count,
                base_vertex,
                indexed,
            } => {
                write!(
                    f,
                    " topology={} first={first} count={count}",
                    topology_name(*topology)
                )?;
                if *base_vertex != 0 {
                    write!(f, " base_vertex={base_vertex}")?;
                }
                if *indexed {
                    f.write_str(" INDEXED")?;
                }
                Ok(())
            }
            Packet::Clear {
                flags,
                color,
                z,
                stencil,
                rects,
            } => write!(
                f,
                " flags={flags} color={color:#010x} z={z} stencil={stencil} rects={}",
                rects.len()
            ),
            Packet::BufferCopy {
                src,
                src_offset,
                dst,
                dst_offset,
                size,
            } => write!(
                f,
                " src={src} src_offset={src_offset} dst={dst} dst_offset={dst_offset} size={size}"
            ),
            Packet::Query { operation, id } => match operation {
                0 => write!(f, " BEGIN id={id}"),
                1 => write!(f, " END id={id}"),
                o => write!(f, " operation={o} id={id}"),
            },
            Packet::Present { image } => write!(f, " image={image}"),
            Packet::SetTexture {
                stage,
                texture,
                unbound,
            } => match texture {
                Some(t) => write!(f, " stage={stage} texture={t}"),
                None if *unbound == 0 => write!(f, " stage={stage} UNBIND"),
                None => write!(f, " stage={stage} UNBIND texture={unbound:#x}"),
            },
            Packet::TextureCopy { src, dst, copy: c } => write!(
                f,
                " src={src} face={} level={} at={},{},{} size={}x{}x{} dst={dst} face={} level={} to={},{},{}",
                c.sf, c.sl, c.x, c.y, c.z, c.w, c.h, c.d, c.df, c.dl, c.dx, c.dy, c.dz
            ),
            Packet::BindTextureTarget {
                texture,
                face,
                level,
                depth: d,
            } => {
                write!(f, " texture={texture} face={face} level={level}")?;
                depth(f, d)
            }
            Packet::BindRenderTarget {
                rt_index,
                target,
                face,
                level,
                unbound,
            } => match target {
                Some(t) => write!(f, " rt={rt_index} target={t} face={face} level={level}"),
                None if *unbound == 0 => write!(f, " rt={rt_index} UNBIND"),
                None => write!(f, " rt={rt_index} UNBIND target={unbound:#x}"),
            },
            Packet::Blt { src, dst, blt: b } => {
                let [l, t, r, bt] = b.src_rect;
                let [dl, dt, dr, db] = b.dst_rect;
                write!(
                    f,
                    " src={src} face={} level={} rect={l},{t},{r},{bt} dst={dst} face={} level={} rect={dl},{dt},{dr},{db}",
                    b.src_face, b.src_level, b.dst_face, b.dst_level
                )
            }
            Packet::ColorFill { dst, fill: c } => {
                let [l, t, r, b] = c.rect;
                write!(
                    f,
                    " dst={dst} face={} level={} rect={l},{t},{r},{b} color={:#010x}",
                    c.face, c.level, c.color
                )
            }
            Packet::GenerateMips { texture } => write!(f, " texture={texture}"),
            Packet::CreateShader { id, tokens } => {
                let version = tokens.first().map_or(0, |t| t.get());
                write!(f, " id={id} version={version:#010x} tokens={}", tokens.len())
            }
            Packet::DestroyShader { id } => write!(f, " id={id}"),
            Packet::SetShader { stage, id } => {
                match ShaderStage::from_u32(*stage) {
                    Some(ShaderStage::Vertex) => f.write_str(" VERTEX")?,
                    Some(ShaderStage::Pixel) => f.write_str(" PIXEL")?,
                    None => write!(f, " stage={stage}")?,
                }
                match id {
                    0 => f.write_str(" FIXED_FUNCTION"),
                    id => write!(f, " id={id}"),
                }
            }
            Packet::SetConstants {
                stage,
                bank,
                first,
                count,
                ..
            } => {
                match ShaderStage::from_u32(*stage) {
                    Some(ShaderStage::Vertex) => f.write_str(" VERTEX")?,
                    Some(ShaderStage::Pixel) => f.write_str(" PIXEL")?,
                    None => write!(f, " stage={stage}")?,
                }
                match ConstantBank::from_u32(*bank) {
                    Some(ConstantBank::Float) => f.write_str(" FLOAT")?,
                    Some(ConstantBank::Int) => f.write_str(" INT")?,
                    Some(ConstantBank::Bool) => f.write_str(" BOOL")?,
                    None => write!(f, " bank={bank}")?,
                }
                write!(f, " first={first} count={count}")
            }
            Packet::VertexInputs { stride, inputs } => {
                write!(f, " stride={stride}")?;
                for i in *inputs {
                    write!(
                        f,
                        " v{}@{}:{}",
                        i.register.get(),
                        i.offset.get(),
                        i.ty.get()
                    )?;
                }
                Ok(())
            }
            Packet::FenceSignal { context, fence } | Packet::FenceWait { context, fence } => {
                write!(f, " context={context} fence={fence}")
            }
            Packet::MakeResident { allocation } | Packet::Evict { allocation } => {
                write!(f, " allocation={allocation:#x}")
            }
            Packet::ContextSwitch { context } => write!(f, " context={context}"),
        }
    }
}

/// The packets of `bytes` from byte `start`, decoded for people to read
/// (capture text, tools): each as `(offset, packet)`, or the first
/// framing or decoding error, after which the walk stops. Engine and
/// privilege are not checked here (the kernel's walk does).
pub fn decode_all(bytes: &[u8], start: usize) -> Vec<Result<(usize, Packet<'_>), SubmitError>> {
    let mut out = Vec::new();
    let mut at = start;
    while at < bytes.len() {
        let p = frame_at(bytes, at).and_then(|f| {
            let r = rule(f.opcode).ok_or(f.invalid("unknown opcode"))?;
            if !r.fits(f.header_dwords, f.payload_dwords()) {
                return Err(f.user_buffer("length does not match the packet"));
            }
            Ok((f, Packet::decode(&f)?))
        });
        match p {
            Ok((f, p)) => {
                out.push(Ok((at, p)));
                at = f.payload_offset.saturating_add(f.payload.len());
            }
            Err(e) => {
                out.push(Err(e));
                break;
            }
        }
    }
    out
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

/// BLT operands: rectangle `src_rect` of face `src_face`, level
/// `src_level` of allocation `src` (an image, or a texture) stretched onto
/// rectangle `dst_rect` of face `dst_face`, level `dst_level` of `dst`.
/// Rectangles are `[left, top, right, bottom]`, right and bottom
/// exclusive. `src` and `dst` are allocation-list indices (`dst` needs
/// WriteOperation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Blt {
    /// Source allocation-list index.
    pub src: u32,
    /// Source face (0 unless a cube).
    pub src_face: u32,
    /// Source level (0 for an image).
    pub src_level: u32,
    /// Source rectangle.
    pub src_rect: [u32; 4],
    /// Destination allocation-list index.
    pub dst: u32,
    /// Destination face.
    pub dst_face: u32,
    /// Destination level.
    pub dst_level: u32,
    /// Destination rectangle.
    pub dst_rect: [u32; 4],
}

impl Blt {
    /// The operands of a BLT packet's payload (DWORDs 1–14, the
    /// references as they stand).
    pub fn from_payload(p: &[u32; 14]) -> Self {
        let [src, src_face, src_level, sl, st, sr, sb, dst, dst_face, dst_level, dl, dt, dr, db] =
            *p;
        Blt {
            src,
            src_face,
            src_level,
            src_rect: [sl, st, sr, sb],
            dst,
            dst_face,
            dst_level,
            dst_rect: [dl, dt, dr, db],
        }
    }
}

/// COLOR_FILL operands: rectangle `rect` (`[left, top, right, bottom]`,
/// right and bottom exclusive) of face `face`, level `level` of allocation
/// `dst` filled with `color` (A8R8G8B8). `dst` is an allocation-list index
/// (with WriteOperation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ColorFill {
    /// Destination allocation-list index.
    pub dst: u32,
    /// Face (0 unless a cube).
    pub face: u32,
    /// Level (0 for an image).
    pub level: u32,
    /// The rectangle.
    pub rect: [u32; 4],
    /// The colour, A8R8G8B8.
    pub color: u32,
}

impl ColorFill {
    /// The operands of a COLOR_FILL packet's payload (DWORDs 1–8).
    pub fn from_payload(p: &[u32; 8]) -> Self {
        let [dst, face, level, l, t, r, b, color] = *p;
        ColorFill {
            dst,
            face,
            level,
            rect: [l, t, r, b],
            color,
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
    /// The patch-location list for the references written so far: one
    /// `D3DDDI_PATCHLOCATIONLIST` entry per reference, in order (the
    /// reserved fields 0).
    pub fn patch_locations(&self) -> Vec<crate::ddi::PatchLocation> {
        self.refs
            .iter()
            .map(|r| crate::ddi::PatchLocation {
                allocation_index: r.index,
                patch_offset: r.offset,
                ..crate::ddi::PatchLocation::default()
            })
            .collect()
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
    /// BIND_RENDER_TARGET: render target `rt_index` (1–3) is face `face`,
    /// level `level` of allocation-list entry `index` (an image: 0, 0; a
    /// render-target texture), or unbound (`None`: the UNBIND flag, no
    /// reference).
    pub fn bind_render_target(&mut self, rt_index: u32, target: Option<(u32, u32, u32)>) {
        match target {
            Some((i, face, level)) => {
                self.head(op::BIND_RENDER_TARGET, 0, 5);
                self.dw(rt_index);
                self.reference(i);
                self.dw(face);
                self.dw(level);
            }
            None => {
                self.head(op::BIND_RENDER_TARGET, flag::UNBIND, 5);
                for v in [rt_index, 0, 0, 0] {
                    self.dw(v);
                }
            }
        }
    }
    /// BLT (`b.src` and `b.dst` are allocation-list indices; both become
    /// references).
    pub fn blt(&mut self, b: Blt) {
        self.head(op::BLT, 0, 15);
        self.reference(b.src);
        for v in [b.src_face, b.src_level].into_iter().chain(b.src_rect) {
            self.dw(v);
        }
        self.reference(b.dst);
        for v in [b.dst_face, b.dst_level].into_iter().chain(b.dst_rect) {
            self.dw(v);
        }
    }
    /// COLOR_FILL (`c.dst` is an allocation-list index).
    pub fn color_fill(&mut self, c: ColorFill) {
        self.head(op::COLOR_FILL, 0, 9);
        self.reference(c.dst);
        for v in [c.face, c.level].into_iter().chain(c.rect) {
            self.dw(v);
        }
        self.dw(c.color);
    }
    /// GENERATE_MIPS of the texture at allocation-list index `texture`.
    pub fn generate_mips(&mut self, texture: u32) {
        self.head(op::GENERATE_MIPS, 0, 2);
        self.reference(texture);
    }
    /// CREATE_SHADER: object `id` (not 0) is the shader of `tokens`.
    pub fn create_shader(&mut self, id: u32, tokens: &[u32]) {
        self.head(op::CREATE_SHADER, 0, tokens.len().saturating_add(2));
        self.dw(id);
        for &t in tokens {
            self.dw(t);
        }
    }
    /// DESTROY_SHADER of object `id`.
    pub fn destroy_shader(&mut self, id: u32) {
        self.head(op::DESTROY_SHADER, 0, 2);
        self.dw(id);
    }
    /// SET_SHADER: object `id` (0: fixed function) runs at `stage`.
    pub fn set_shader(&mut self, stage: ShaderStage, id: u32) {
        self.head(op::SET_SHADER, 0, 3);
        self.dw(stage.number());
        self.dw(id);
    }
    /// SET_CONSTANTS: registers `first..` of a bank from `data`
    /// ([`ConstantBank::dwords`] DWORDs a register; a partial register at
    /// the end is dropped).
    pub fn set_constants(
        &mut self,
        stage: ShaderStage,
        bank: ConstantBank,
        first: u32,
        data: &[u32],
    ) {
        let per = bank.dwords();
        let count = data.len().checked_div(per).unwrap_or(0);
        let data = data.get(..count.saturating_mul(per)).unwrap_or_default();
        self.head(op::SET_CONSTANTS, 0, data.len().saturating_add(5));
        self.dw(stage.number());
        self.dw(bank.number());
        self.dw(first);
        self.dw(u32::try_from(count).unwrap_or(u32::MAX));
        for &v in data {
            self.dw(v);
        }
    }
    /// VERTEX_INPUTS: `stride` and `(register, offset, D3DDECLTYPE)`
    /// elements.
    pub fn vertex_inputs(&mut self, stride: u32, inputs: &[(u32, u32, u32)]) {
        self.head(
            op::VERTEX_INPUTS,
            0,
            inputs.len().saturating_mul(3).saturating_add(2),
        );
        self.dw(stride);
        for &(r, o, t) in inputs {
            self.dw(r);
            self.dw(o);
            self.dw(t);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// One packet of each user opcode (with and without its optional
    /// references), as the UMD writes them.
    fn every_user_packet() -> Writer {
        let mut w = Writer::new();
        w.nop(2);
        w.set_regs(&[(1, 2), (3, 4)]);
        w.bind_targets(0, None);
        w.bind_targets(0, Some(1));
        w.vertex_format(&softhal_pipeline::VertexLayout::packed(
            softhal_pipeline::PositionKind::Xyz,
            true,
            false,
            &[],
        ));
        w.set_vertices(2, 0, 48);
        w.vertices_inline(&[1, 2, 3, 4, 5]);
        w.set_indices(3, 4, 12, 2);
        w.indices_inline(&[0, 0, 1, 0, 2, 0], 2);
        w.draw(4, 0, 1, -1, true);
        w.clear_targets(3, 0xff20_3040, 1.0, 0, &[[0, 0, 8, 8]]);
        w.buffer_copy(2, 0, 3, 16, 8);
        w.query(true, 7);
        w.present(0);
        w.set_texture(1, Some(4));
        w.set_texture(2, None);
        w.texture_copy(TextureCopy {
            src: 4,
            dst: 5,
            w: 4,
            h: 4,
            ..TextureCopy::default()
        });
        w.bind_texture_target(5, 0, 1, Some(1));
        w.bind_texture_target(5, 0, 1, None);
        w.bind_render_target(2, Some((5, 0, 1)));
        w.bind_render_target(3, None);
        w.blt(Blt {
            src: 0,
            dst: 4,
            src_rect: [0, 0, 4, 4],
            dst_level: 1,
            dst_rect: [1, 1, 3, 2],
            ..Blt::default()
        });
        w.color_fill(ColorFill {
            dst: 4,
            face: 2,
            rect: [0, 0, 2, 2],
            color: 0xff00_ff00,
            ..ColorFill::default()
        });
        w.generate_mips(4);
        // vs_1_1: mov oPos, v0.
        w.create_shader(
            3,
            &[
                0xFFFE_0101,
                0x0000_0001,
                0xC00F_0000,
                0x90E4_0000,
                0x0000_FFFF,
            ],
        );
        w.destroy_shader(3);
        w.set_shader(ShaderStage::Vertex, 3);
        w.set_shader(ShaderStage::Pixel, 0);
        w.set_constants(ShaderStage::Pixel, ConstantBank::Bool, 2, &[1, 0]);
        w.vertex_inputs(20, &[(0, 0, 3), (5, 16, 4)]);
        w
    }

    #[test]
    fn decoded_references_are_the_ones_the_table_and_the_writer_name() {
        let w = every_user_packet();
        let mut from_decode = Vec::new();
        let mut from_table = Vec::new();
        for p in decode_all(&w.bytes, 0) {
            let (at, p) = p.unwrap_or_else(|e| panic!("{e}"));
            let f = frame_at(&w.bytes, at).unwrap_or_else(|e| panic!("{e}"));
            let r = rule(p.opcode()).unwrap_or_else(|| panic!("no rule"));
            for s in r.refs.iter().filter(|s| s.present(f.flags)) {
                from_table.push(f.payload_offset + (s.dword as usize - 1) * 4);
            }
            from_decode.extend(p.refs().iter().map(|r| r.offset));
        }
        let from_writer: Vec<usize> = w.refs.iter().map(|r| r.offset as usize).collect();
        assert_eq!(from_decode, from_writer);
        assert_eq!(from_table, from_writer);
    }

    #[test]
    fn every_table_opcode_decodes_to_its_own_variant() {
        let w = every_user_packet();
        let seen: Vec<u8> = decode_all(&w.bytes, 0)
            .into_iter()
            .map(|p| p.map(|(_, p)| p.opcode()).unwrap_or(0))
            .collect();
        for r in RULES.iter().filter(|r| r.user) {
            assert!(seen.contains(&r.opcode), "{} not covered", r.name);
        }
        let mut k = Writer::new();
        k.raw(op::FENCE_SIGNAL, 0, &[1, 5, 1]);
        k.raw(op::FENCE_WAIT, 0, &[2, 6, 0]);
        k.raw(op::MAKE_RESIDENT, 0, &[9]);
        k.raw(op::EVICT, 0, &[9]);
        k.raw(op::CONTEXT_SWITCH, 0, &[3]);
        let text: Vec<String> = decode_all(&k.bytes, 0)
            .into_iter()
            .map(|p| p.map(|(_, p)| p.to_string()).unwrap_or_default())
            .collect();
        assert_eq!(
            text,
            [
                "FENCE_SIGNAL context=1 fence=4294967301",
                "FENCE_WAIT context=2 fence=6",
                "MAKE_RESIDENT allocation=0x9",
                "EVICT allocation=0x9",
                "CONTEXT_SWITCH context=3",
            ]
        );
    }

    #[test]
    fn packets_print_by_name_with_their_fields() {
        let w = every_user_packet();
        let text: Vec<String> = decode_all(&w.bytes, 0)
            .into_iter()
            .map(|p| {
                p.map(|(_, p)| p.to_string())
                    .unwrap_or_else(|e| e.to_string())
            })
            .collect();
        assert_eq!(
            text,
            [
                "NOP",
                "SET_REGS regs=2",
                "BIND_TARGETS color=@36",
                "BIND_TARGETS color=@48 depth=@52",
                "VERTEX_FORMAT stride=16",
                "SET_VERTICES buffer=@132 offset=0 size=48",
                "VERTICES_INLINE bytes=5",
                "SET_INDICES buffer=@164 offset=4 size=12 width=2",
                "INDICES_INLINE width=2 bytes=6",
                "DRAW topology=TRIANGLELIST first=0 count=1 base_vertex=-1 INDEXED",
                "CLEAR flags=TARGET|ZBUFFER color=0xff203040 z=1 stencil=0 rects=1",
                "BUFFER_COPY src=@264 src_offset=0 dst=@272 dst_offset=16 size=8",
                "QUERY END id=7",
                "PRESENT image=@300",
                "SET_TEXTURE stage=1 texture=@312",
                "SET_TEXTURE stage=2 UNBIND",
                "TEXTURE_COPY src=@332 face=0 level=0 at=0,0,0 size=4x4x1 dst=@368 face=0 level=0 to=0,0,0",
                "BIND_TEXTURE_TARGET texture=@396 face=0 level=1 depth=@408",
                "BIND_TEXTURE_TARGET texture=@416 face=0 level=1",
                // The packet at 432 (5 DWORDs): its reference is DWORD 2.
                "BIND_RENDER_TARGET rt=2 target=@440 face=0 level=1",
                "BIND_RENDER_TARGET rt=3 UNBIND",
                // Two 20-byte packets more before these: 40 bytes later.
                "BLT src=@476 face=0 level=0 rect=0,0,4,4 dst=@504 face=0 level=1 rect=1,1,3,2",
                "COLOR_FILL dst=@536 face=2 level=0 rect=0,0,2,2 color=0xff00ff00",
                "GENERATE_MIPS texture=@572",
                "CREATE_SHADER id=3 version=0xfffe0101 tokens=5",
                "DESTROY_SHADER id=3",
                "SET_SHADER VERTEX id=3",
                "SET_SHADER PIXEL FIXED_FUNCTION",
                "SET_CONSTANTS PIXEL BOOL first=2 count=2",
                "VERTEX_INPUTS stride=20 v0@0:3 v5@16:4",
            ]
        );
    }

    #[test]
    fn counts_that_disagree_with_the_length_are_user_buffer_errors() {
        let mut w = Writer::new();
        w.raw(op::CLEAR, 0, &[1, 0, 0, 0, 2, 0, 0, 1, 1]);
        let r = decode_all(&w.bytes, 0);
        assert!(matches!(
            r.first(),
            Some(Err(SubmitError::UserBuffer { offset: 0, reason })) if reason.contains("CLEAR")
        ));
        let mut w = Writer::new();
        w.raw(op::VERTICES_INLINE, 0, &[9, 0]);
        assert!(matches!(
            decode_all(&w.bytes, 0).first(),
            Some(Err(SubmitError::UserBuffer { .. }))
        ));
        // SET_CONSTANTS of 2 BOOL registers with 3 DWORDs; VERTEX_INPUTS
        // with a partial triple.
        for payload in [&[0u32, 2, 0, 2, 1, 1, 1][..], &[0, 2, 0, 2][..]] {
            let mut w = Writer::new();
            w.raw(op::SET_CONSTANTS, 0, payload);
            assert!(matches!(
                decode_all(&w.bytes, 0).first(),
                Some(Err(SubmitError::UserBuffer { .. }))
            ));
        }
        let mut w = Writer::new();
        w.raw(op::VERTEX_INPUTS, 0, &[16, 0, 0]);
        assert!(matches!(
            decode_all(&w.bytes, 0).first(),
            Some(Err(SubmitError::UserBuffer { .. }))
        ));
    }
}
