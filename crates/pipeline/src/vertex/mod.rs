//! Vertex input: layouts of raw vertex bytes, topologies, indices, and the
//! fetch + transform step (the geometry half of vertex processing).
//!
//! *Input*: raw little-endian vertex bytes described by a [`VertexLayout`],
//! optional 16/32-bit indices, the transforms and viewport of the state.
//! *Output*: [`Vertex`] records: for pre-transformed (XYZRHW) vertices the
//! screen position `(x, y, z, rhw)` as given (an rhw of 0 reads as 1); for untransformed ones the
//! clip-space position `v · World · View · Projection` plus the user clip
//! distances (computed in world space); colours as floats in 0..=255.
//! *Guarantees*: every read is bounds-checked (`get`); an index that points
//! outside the buffer yields `None` and the primitive is dropped — never a
//! panic.
//!
//! The fixed-function vertex operations happen here too: vertex blending (before
//! the transform; normals through each matrix's inverse transpose),
//! lighting in camera space (untransformed vertices; normals transformed
//! by the inverse transpose of the 4×4 World · View,
//! [`Matrix::normal_matrix`]),
//! vertex fog (written into the specular alpha), and per sampling stage
//! TEXCOORDINDEX, coordinate generation and the texture transform: this
//! module is the fixed-function implementation of the vertex program
//! ([`crate::program::VertexProgram::FixedFunction`]). The shader
//! implementation, which produces the same [`Vertex`] records from a
//! vs_1_1–vs_3_0 shader's outputs, is [`shader`].

use crate::cascade::MAX_STAGES;
use crate::error::PipelineError;
use crate::fog::{FogMode, FogSource, FogState};
use crate::int::usize_from;
use crate::lighting::LightingState;
use crate::limits;
use crate::math::Matrix;
use crate::state::PipelineState;
use crate::texgen::{TexCoordIndex, TexCoords, TextureTransformFlags};
use crate::vertex_blend::VertexBlend;

pub(crate) mod shader;

/// How the position of a vertex is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PositionKind {
    /// Untransformed `x, y, z` (w = 1), 3 floats.
    Xyz,
    /// Pre-transformed screen `x, y, z, rhw`, 4 floats. Pixel centres are at
    /// integer coordinates (D3D9): x = 0.0 is the centre of pixel 0.
    Xyzrhw,
    /// Untransformed homogeneous `x, y, z, w`, 4 floats.
    Xyzw,
}

/// The data type of a vertex element (D3DDECLTYPE; DX8's D3DVSDT_* are
/// the first eight with the same numbers). Vertex colours may be of any
/// type: [`DeclType::read`] gives the four values `(x, y, z, w)` a
/// declaration of that type means, which a colour takes as `(r, g, b, a)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DeclType {
    /// 1 float, expanded to (x, 0, 0, 1).
    Float1,
    /// 2 floats, (x, y, 0, 1).
    Float2,
    /// 3 floats, (x, y, z, 1).
    Float3,
    /// 4 floats.
    Float4,
    /// A D3DCOLOR (memory bytes B, G, R, A), expanded to RGBA / 255.
    #[default]
    D3dColor,
    /// 4 unsigned bytes, not normalized.
    Ubyte4,
    /// 2 signed shorts, (x, y, 0, 1), not normalized.
    Short2,
    /// 4 signed shorts, not normalized.
    Short4,
    /// 4 unsigned bytes / 255.
    Ubyte4n,
    /// 2 signed shorts / 32767, (x, y, 0, 1).
    Short2n,
    /// 4 signed shorts / 32767.
    Short4n,
    /// 2 unsigned shorts / 65535, (x, y, 0, 1).
    Ushort2n,
    /// 4 unsigned shorts / 65535.
    Ushort4n,
    /// 3 unsigned 10-bit integers (bits 0–9 x, 10–19 y, 20–29 z), (x, y,
    /// z, 1), not normalized.
    Udec3,
    /// 3 signed 10-bit values / 511, (x, y, z, 1).
    Dec3n,
    /// 2 half floats, (x, y, 0, 1).
    Float16x2,
    /// 4 half floats.
    Float16x4,
}

impl DeclType {
    /// From a D3DDECLTYPE value (0..=16; 17 UNUSED and above: `None`).
    pub fn from_d3d(v: u32) -> Option<Self> {
        use DeclType::*;
        Some(match v {
            0 => Float1,
            1 => Float2,
            2 => Float3,
            3 => Float4,
            4 => D3dColor,
            5 => Ubyte4,
            6 => Short2,
            7 => Short4,
            8 => Ubyte4n,
            9 => Short2n,
            10 => Short4n,
            11 => Ushort2n,
            12 => Ushort4n,
            13 => Udec3,
            14 => Dec3n,
            15 => Float16x2,
            16 => Float16x4,
            _ => return None,
        })
    }

    /// The D3DDECLTYPE value (inverse of [`DeclType::from_d3d`]).
    pub fn d3d(self) -> u32 {
        self as u32
    }

    /// Bytes of one element.
    pub fn size(self) -> u32 {
        use DeclType::*;
        match self {
            Float1 | D3dColor | Ubyte4 | Short2 | Ubyte4n | Short2n | Ushort2n | Udec3 | Dec3n
            | Float16x2 => 4,
            Float2 | Short4 | Short4n | Ushort4n | Float16x4 => 8,
            Float3 => 12,
            Float4 => 16,
        }
    }

    /// The values `(x, y, z, w)` of the element at the start of `b`
    /// (missing components 0, w 1); `None` if `b` is shorter than
    /// [`DeclType::size`].
    pub fn read(self, b: &[u8]) -> Option<[f32; 4]> {
        use DeclType::*;
        let n = usize_from(self.size());
        let b = b.get(..n)?;
        let f = |i: usize| f32_at(b, 4 * i).unwrap_or(0.0);
        let u16_at = |i: usize| u16::from_le_bytes([b[2 * i], b[2 * i + 1]]);
        let s16 = |i: usize| f32::from(u16_at(i) as i16);
        let u16f = |i: usize| f32::from(u16_at(i));
        let h = |i: usize| crate::texture::format::half_to_f32(u16_at(i));
        // Signed normalized: −32768 reads as −1, like −32767.
        let snorm = |x: f32, max: f32| (x / max).max(-1.0);
        let dw = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let ten = |k: u32| (dw >> (10 * k)) & 0x3FF;
        let ten_s = |k: u32| {
            let v = ten(k) as i32;
            (if v >= 512 { v - 1024 } else { v }) as f32
        };
        Some(match self {
            Float1 => [f(0), 0.0, 0.0, 1.0],
            Float2 => [f(0), f(1), 0.0, 1.0],
            Float3 => [f(0), f(1), f(2), 1.0],
            Float4 => [f(0), f(1), f(2), f(3)],
            D3dColor => [b[2], b[1], b[0], b[3]].map(|c| f32::from(c) / 255.0),
            Ubyte4 => [b[0], b[1], b[2], b[3]].map(f32::from),
            Ubyte4n => [b[0], b[1], b[2], b[3]].map(|c| f32::from(c) / 255.0),
            Short2 => [s16(0), s16(1), 0.0, 1.0],
            Short4 => [s16(0), s16(1), s16(2), s16(3)],
            Short2n => [snorm(s16(0), 32767.0), snorm(s16(1), 32767.0), 0.0, 1.0],
            Short4n => [0, 1, 2, 3].map(|i| snorm(s16(i), 32767.0)),
            Ushort2n => [u16f(0) / 65535.0, u16f(1) / 65535.0, 0.0, 1.0],
            Ushort4n => [0, 1, 2, 3].map(|i| u16f(i) / 65535.0),
            Udec3 => [ten(0) as f32, ten(1) as f32, ten(2) as f32, 1.0],
            Dec3n => [
                snorm(ten_s(0), 511.0),
                snorm(ten_s(1), 511.0),
                snorm(ten_s(2), 511.0),
                1.0,
            ],
            Float16x2 => [h(0), h(1), 0.0, 1.0],
            Float16x4 => [h(0), h(1), h(2), h(3)],
        })
    }
}

impl DeclType {
    /// [`DeclType::read`] for the `W` lanes of a wide vertex-shader run:
    /// lane `l`'s element at `offset` of `vertices[l]` into `planes[c][l]`
    /// ((0, 0, 0, 1) if the element runs past the vertex's bytes); lanes
    /// without bytes are left as they are. The same values as `read`,
    /// with the type matched once for all lanes.
    #[inline]
    pub fn read_planes<const W: usize>(
        self,
        vertices: &[Option<&[u8]>; W],
        offset: usize,
        planes: &mut [[f32; W]; 4],
    ) {
        use DeclType::*;
        let f = |b: &[u8], i: usize| f32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        match self {
            Float1 => fill::<W, 4>(vertices, offset, planes, |b| [f(b, 0), 0.0, 0.0, 1.0]),
            Float2 => fill::<W, 8>(vertices, offset, planes, |b| [f(b, 0), f(b, 4), 0.0, 1.0]),
            Float3 => fill::<W, 12>(vertices, offset, planes, |b| {
                [f(b, 0), f(b, 4), f(b, 8), 1.0]
            }),
            Float4 => fill::<W, 16>(vertices, offset, planes, |b| {
                [f(b, 0), f(b, 4), f(b, 8), f(b, 12)]
            }),
            Ubyte4 => fill::<W, 4>(vertices, offset, planes, |b| {
                [b[0], b[1], b[2], b[3]].map(f32::from)
            }),
            D3dColor => fill::<W, 4>(vertices, offset, planes, |b| {
                [b[2], b[1], b[0], b[3]].map(|c| f32::from(c) / 255.0)
            }),
            _ => {
                for (l, v) in vertices.iter().enumerate() {
                    let Some(v) = v else { continue };
                    let value = v
                        .get(offset..)
                        .and_then(|e| self.read(e))
                        .unwrap_or([0.0, 0.0, 0.0, 1.0]);
                    set_lane(planes, l, value);
                }
            }
        }
    }
}

/// Lane `l` of the four planes set to `value`.
#[inline(always)]
fn set_lane<const W: usize>(planes: &mut [[f32; W]; 4], l: usize, value: [f32; 4]) {
    for (p, x) in planes.iter_mut().zip(value) {
        if let Some(o) = p.get_mut(l) {
            *o = x;
        }
    }
}

/// [`DeclType::read_planes`] of a type of `S` bytes decoded by `decode`.
#[inline(always)]
fn fill<const W: usize, const S: usize>(
    vertices: &[Option<&[u8]>; W],
    offset: usize,
    planes: &mut [[f32; W]; 4],
    decode: impl Fn(&[u8; S]) -> [f32; 4],
) {
    for (l, v) in vertices.iter().enumerate() {
        let Some(v) = v else { continue };
        let value = v
            .get(offset..)
            .and_then(|e| e.first_chunk::<S>())
            .map_or([0.0, 0.0, 0.0, 1.0], &decode);
        set_lane(planes, l, value);
    }
}

/// One texture coordinate set: offset and number of floats (1..=4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TexCoordElement {
    /// Byte offset inside the vertex.
    pub offset: u32,
    /// Number of floats (1..=4).
    pub components: u8,
}

/// Byte layout of one vertex (what an FVF code or a declaration describes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VertexLayout {
    /// Distance between vertices in bytes.
    pub stride: u32,
    /// Position kind.
    pub position: PositionKind,
    /// Byte offset of the position.
    pub position_offset: u32,
    /// Blend weights: offset and count of floats (1..=5), if present.
    pub blend_weights: Option<(u32, u8)>,
    /// Offset of the normal (3 floats), if present.
    pub normal: Option<u32>,
    /// Offset of the point size (1 float), if present.
    pub point_size: Option<u32>,
    /// Offset of the diffuse colour, if present (default opaque white).
    pub diffuse: Option<u32>,
    /// Offset of the specular colour, if present (default 0). For
    /// pre-transformed vertices its alpha is the vertex fog factor.
    pub specular: Option<u32>,
    /// The type of the diffuse colour (an FVF's is D3DCOLOR; a
    /// declaration may give any [`DeclType`]: its `(x, y, z, w)` are
    /// `(r, g, b, a)`, saturated to [0, 1]).
    pub diffuse_type: DeclType,
    /// The type of the specular colour (as `diffuse_type`).
    pub specular_type: DeclType,
    /// Texture coordinate sets.
    pub texcoords: [Option<TexCoordElement>; limits::MAX_TEXCOORD_SETS],
    /// Offset of the second position (3 floats x, y, z; the declaration's
    /// POSITION usage index 1), if present: with VERTEXBLEND = TWEENING an
    /// untransformed vertex's x, y, z are `lerp(position, position2,
    /// TWEENFACTOR)` (w keeps the first position's).
    pub position2: Option<u32>,
    /// Offset of the second normal (3 floats; NORMAL usage index 1), if
    /// present: tweened with the normal like `position2`.
    pub normal2: Option<u32>,
}

impl VertexLayout {
    /// A packed layout in FVF order: position, diffuse, specular, then
    /// texture coordinate sets of the given sizes.
    pub fn packed(position: PositionKind, diffuse: bool, specular: bool, texcoords: &[u8]) -> Self {
        let mut off = match position {
            PositionKind::Xyz => 12,
            PositionKind::Xyzrhw | PositionKind::Xyzw => 16,
        };
        let mut take = |present: bool, size: u32| {
            present.then(|| {
                let o = off;
                off += size;
                o
            })
        };
        let diffuse = take(diffuse, 4);
        let specular = take(specular, 4);
        let mut tc = [None; limits::MAX_TEXCOORD_SETS];
        for (slot, &n) in tc.iter_mut().zip(texcoords) {
            *slot = take(true, 4 * u32::from(n)).map(|offset| TexCoordElement {
                offset,
                components: n,
            });
        }
        VertexLayout {
            stride: off,
            position,
            position_offset: 0,
            blend_weights: None,
            normal: None,
            point_size: None,
            diffuse,
            specular,
            diffuse_type: DeclType::D3dColor,
            specular_type: DeclType::D3dColor,
            texcoords: tc,
            position2: None,
            normal2: None,
        }
    }

    /// Checks that every element lies inside the stride.
    pub fn validate(&self) -> Result<(), PipelineError> {
        let bad = |reason| Err(PipelineError::BadVertexLayout { reason });
        self.validate_stride()?;
        let fits = |off: u32, size: u32| off.checked_add(size).is_some_and(|e| e <= self.stride);
        let pos_size = match self.position {
            PositionKind::Xyz => 12,
            _ => 16,
        };
        if !fits(self.position_offset, pos_size) {
            return bad("position outside the vertex");
        }
        if let Some((o, n)) = self.blend_weights {
            if !(1..=5).contains(&n) || !fits(o, 4 * u32::from(n)) {
                return bad("blend weights outside the vertex or bad count");
            }
        }
        for (o, size, what) in [
            (self.normal, 12, "normal outside the vertex"),
            (self.position2, 12, "second position outside the vertex"),
            (self.normal2, 12, "second normal outside the vertex"),
            (self.point_size, 4, "point size outside the vertex"),
            (
                self.diffuse,
                self.diffuse_type.size(),
                "diffuse outside the vertex",
            ),
            (
                self.specular,
                self.specular_type.size(),
                "specular outside the vertex",
            ),
        ] {
            if o.is_some_and(|o| !fits(o, size)) {
                return bad(what);
            }
        }
        for t in self.texcoords.iter().flatten() {
            if !(1..=4).contains(&t.components) || !fits(t.offset, 4 * u32::from(t.components)) {
                return bad("texture coordinates outside the vertex or bad count");
            }
        }
        Ok(())
    }

    /// Checks the stride alone (what a draw through a vertex shader reads
    /// of the layout).
    pub fn validate_stride(&self) -> Result<(), PipelineError> {
        if self.stride == 0 || self.stride > limits::MAX_VERTEX_STRIDE {
            return Err(PipelineError::BadVertexLayout {
                reason: "stride is 0 or above the limit",
            });
        }
        Ok(())
    }

    /// True for pre-transformed (screen-space) vertices.
    pub fn is_pretransformed(&self) -> bool {
        self.position == PositionKind::Xyzrhw
    }
}

/// Primitive topology (D3DPRIMITIVETYPE).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Topology {
    /// Independent points.
    PointList,
    /// Independent lines (2 vertices each).
    LineList,
    /// Connected lines: line i = (v[i], v[i+1]).
    LineStrip,
    /// Independent triangles (3 vertices each).
    TriangleList,
    /// Triangle strip: triangle i = (v[i], v[i+1], v[i+2]) for even i and
    /// (v[i], v[i+2], v[i+1]) for odd i, so all have the same winding.
    TriangleStrip,
    /// Triangle fan: triangle i = (v[i+1], v[i+2], v[0]).
    TriangleFan,
}

impl Topology {
    /// From a D3DPRIMITIVETYPE value (1..=6).
    pub fn from_d3d(v: u32) -> Option<Self> {
        Some(match v {
            1 => Topology::PointList,
            2 => Topology::LineList,
            3 => Topology::LineStrip,
            4 => Topology::TriangleList,
            5 => Topology::TriangleStrip,
            6 => Topology::TriangleFan,
            _ => return None,
        })
    }

    /// Vertices (or indices) consumed by `prims` primitives.
    pub fn vertex_count(self, prims: u32) -> u64 {
        let p = u64::from(prims);
        if p == 0 {
            return 0;
        }
        match self {
            Topology::PointList => p,
            Topology::LineList => 2 * p,
            Topology::LineStrip => p + 1,
            Topology::TriangleList => 3 * p,
            Topology::TriangleStrip | Topology::TriangleFan => p + 2,
        }
    }

    /// Number of vertices of one primitive.
    pub(crate) fn arity(self) -> usize {
        match self {
            Topology::PointList => 1,
            Topology::LineList | Topology::LineStrip => 2,
            _ => 3,
        }
    }

    /// Positions (relative to the first vertex/index of the draw) of the
    /// vertices of primitive `p`, in the order the primitive uses them.
    /// The first is the provoking vertex for flat shading.
    #[inline]
    pub(crate) fn element(self, p: u64) -> [u64; 3] {
        match self {
            Topology::PointList => [p, 0, 0],
            Topology::LineList => [2 * p, 2 * p + 1, 0],
            Topology::LineStrip => [p, p + 1, 0],
            Topology::TriangleList => [3 * p, 3 * p + 1, 3 * p + 2],
            Topology::TriangleStrip => {
                if p & 1 == 0 {
                    [p, p + 1, p + 2]
                } else {
                    [p, p + 2, p + 1]
                }
            }
            Topology::TriangleFan => [p + 1, p + 2, 0],
        }
    }
}

/// Index data: raw little-endian bytes of 16- or 32-bit indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Indices<'a> {
    /// 16-bit indices.
    U16(&'a [u8]),
    /// 32-bit indices.
    U32(&'a [u8]),
}

impl Indices<'_> {
    /// Number of whole indices.
    pub fn len(&self) -> u64 {
        match self {
            Indices::U16(b) => (b.len() / 2) as u64,
            Indices::U32(b) => (b.len() / 4) as u64,
        }
    }
    /// True if there is no index.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Index number `i`, `None` beyond the end.
    #[inline]
    pub fn get(&self, i: u64) -> Option<u32> {
        let i = usize::try_from(i).ok()?;
        match self {
            Indices::U16(b) => {
                let s = b.get(i.checked_mul(2)?..i.checked_mul(2)?.checked_add(2)?)?;
                Some(u32::from(u16::from_le_bytes([s[0], s[1]])))
            }
            Indices::U32(b) => {
                let s = b.get(i.checked_mul(4)?..i.checked_mul(4)?.checked_add(4)?)?;
                Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
            }
        }
    }
}

/// One draw call's geometry input.
#[derive(Debug, Clone, Copy)]
pub struct DrawCall<'a> {
    /// Topology.
    pub topology: Topology,
    /// Raw vertex bytes (vertex `i` starts at `i × stride`).
    pub vertices: &'a [u8],
    /// Their layout.
    pub layout: &'a VertexLayout,
    /// Indices, or `None` for a non-indexed draw.
    pub indices: Option<Indices<'a>>,
    /// First vertex (non-indexed) or first index (indexed).
    pub first: u32,
    /// Number of primitives.
    pub primitive_count: u32,
    /// Added to every index (BaseVertexIndex); ignored when non-indexed.
    pub base_vertex: i32,
}

impl DrawCall<'_> {
    /// A non-indexed draw of `primitive_count` primitives from vertex 0.
    pub fn new<'a>(
        topology: Topology,
        vertices: &'a [u8],
        layout: &'a VertexLayout,
        primitive_count: u32,
    ) -> DrawCall<'a> {
        DrawCall {
            topology,
            vertices,
            layout,
            indices: None,
            first: 0,
            primitive_count,
            base_vertex: 0,
        }
    }

    /// Checks the layout and the buffer sizes. Indexed draws check the
    /// index range here; individual index values are checked when fetched.
    pub fn validate(&self) -> Result<(), PipelineError> {
        self.layout.validate()?;
        self.validate_buffers()
    }

    /// Checks the vertex and index buffer sizes (not the layout's
    /// elements: a draw through a vertex shader reads only the stride).
    pub fn validate_buffers(&self) -> Result<(), PipelineError> {
        self.layout.validate_stride()?;
        let needed = u64::from(self.first) + self.topology.vertex_count(self.primitive_count);
        match self.indices {
            None => {
                let available = self.vertices.len() as u64 / u64::from(self.layout.stride);
                if needed > available {
                    return Err(PipelineError::VertexBufferTooSmall { needed, available });
                }
            }
            Some(ix) => {
                if needed > ix.len() {
                    return Err(PipelineError::IndexBufferTooSmall {
                        needed,
                        available: ix.len(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The vertex number used at stream position `s` (relative to
    /// `first`), `None` if it is outside the index or vertex buffer.
    #[inline]
    pub(crate) fn vertex_index(&self, s: u64) -> Option<u64> {
        let s = s.checked_add(u64::from(self.first))?;
        match self.indices {
            None => Some(s),
            Some(ix) => {
                let v = i64::from(ix.get(s)?) + i64::from(self.base_vertex);
                u64::try_from(v).ok()
            }
        }
    }
}

/// A fetched and transformed vertex: position, the two colours of the
/// fixed-function pixel stages, and `N` generic varyings whose semantics
/// the draw's [`crate::varying::Varyings`] gives (fixed function: one
/// texture-coordinate set per sampling stage; 0 for untextured draws, so
/// that untextured draws move no extra bytes).
///
/// Aligned to 16 bytes so that its size is a multiple of 16 (76 → 80
/// bytes without varyings): a copy is then whole 16-byte moves at the
/// same offsets as the stores that wrote it, which the CPU forwards; with
/// 76 bytes the copies overlap their last move, and reading a vertex just
/// written stalled on store forwarding (measured on W6's vertex stage).
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(align(16))]
pub(crate) struct Vertex<const N: usize = 0> {
    /// Screen `(x, y, z, rhw)` (pre-transformed) or clip `(x, y, z, w)`.
    pub pos: [f32; 4],
    /// Diffuse colour, blue, green, red, alpha in 0..=255.
    pub diffuse: [f32; 4],
    /// Specular colour, same order. Its alpha is the fog factor × 255
    /// when fog is on (vertex fog writes it).
    pub specular: [f32; 4],
    /// User clip plane distances (untransformed only).
    pub dist: [f32; limits::MAX_USER_CLIP_PLANES],
    /// Point size in pixels ([`crate::point::point_size`]) when the draw
    /// rasterizes points, else 1.
    pub psize: f32,
    /// The generic varyings (fixed function: slot *i* = the texture
    /// coordinates of stage *i*, after TEXCOORDINDEX, generation and the
    /// texture transform; a vertex shader: its outputs by semantic).
    pub varyings: [[f32; 4]; N],
}

impl<const N: usize> Vertex<N> {
    /// An all-zero vertex.
    pub(crate) const ZERO: Self = Vertex {
        pos: [0.0; 4],
        diffuse: [0.0; 4],
        specular: [0.0; 4],
        dist: [0.0; limits::MAX_USER_CLIP_PLANES],
        psize: 1.0,
        varyings: [[0.0; 4]; N],
    };
}

/// Point-size inputs of a draw that rasterizes points.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PointParams {
    /// POINTSIZE*, POINTSCALE*.
    pub state: crate::point::PointState,
    /// Viewport height (pixels) for POINTSCALEENABLE.
    pub viewport_height: f32,
}

/// Per-stage texture-coordinate processing of a draw.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TexStage {
    /// TEXCOORDINDEX.
    pub index: TexCoordIndex,
    /// TEXTURETRANSFORMFLAGS.
    pub flags: TextureTransformFlags,
    /// The texture matrix.
    pub matrix: Matrix,
}

/// Per-draw constants of the vertex stage.
#[derive(Debug, Clone)]
pub(crate) struct VertexStage {
    /// World · View · Projection.
    pub wvp: Matrix,
    /// World.
    pub world: Matrix,
    /// World · View (camera space).
    pub world_view: Matrix,
    /// View · Projection (after vertex blending).
    pub view_proj: Matrix,
    /// View.
    pub view: Matrix,
    /// Enabled user clip planes (bit i = plane i).
    pub planes_enabled: u32,
    /// The planes.
    pub planes: [[f32; 4]; limits::MAX_USER_CLIP_PLANES],
    /// Pre-transformed input.
    pub pretransformed: bool,
    /// Lighting (untransformed vertices with LIGHTING on).
    pub lighting: Option<LightingState>,
    /// Vertex fog written into the specular alpha.
    pub vertex_fog: Option<(FogState, FogMode)>,
    /// Vertex blending: mode, indexed, world matrices 0..3.
    pub blend: Option<(VertexBlend, bool, [Matrix; 4])>,
    /// TWEENFACTOR when tweening (VERTEXBLEND = TWEENING, untransformed
    /// vertices with a second position).
    pub tween: Option<f32>,
    /// Normal matrix of World · View (its inverse transpose, see
    /// [`Matrix::normal_matrix`]): object-space normal → camera space.
    pub normal_matrix: Matrix,
    /// Normal matrices of world matrix i · View, for blended normals.
    pub blend_normal_matrices: [Matrix; 4],
    /// Camera-space position/normal needed (lighting, fog, generation,
    /// point scaling).
    pub need_camera: bool,
    /// Point sizes, when the draw rasterizes points.
    pub point: Option<PointParams>,
    /// Texture-coordinate processing of the sampling stages.
    pub tex: [TexStage; MAX_STAGES],
}

impl VertexStage {
    /// The vertex stage of a draw; `points`: the draw rasterizes points
    /// (a point list, or triangles in POINT fill mode).
    pub(crate) fn new(state: &PipelineState, layout: &VertexLayout, points: bool) -> Self {
        let t = &state.transforms;
        let planes_enabled = if state.raster.clipping {
            state.raster.clip_plane_enable & ((1 << limits::MAX_USER_CLIP_PLANES) - 1)
        } else {
            0
        };
        let pretransformed = layout.is_pretransformed();
        let lighting = (state.lighting.enable && !pretransformed)
            .then(|| state.lighting.camera_space(&t.view));
        let vertex_fog = match state.fog.source(pretransformed) {
            FogSource::Vertex(m) => Some((state.fog, m)),
            _ => None,
        };
        let vb = &state.vertex_blend;
        let blend = match vb.mode {
            VertexBlend::Weights1 | VertexBlend::Weights2 | VertexBlend::Weights3
                if !pretransformed && layout.blend_weights.is_some() =>
            {
                Some((
                    vb.mode,
                    vb.indexed,
                    [t.world, vb.worlds[0], vb.worlds[1], vb.worlds[2]],
                ))
            }
            _ => None,
        };
        let ts = &state.textures;
        let tex = std::array::from_fn(|i| TexStage {
            index: ts.tex_coord_index[i],
            flags: ts.transform_flags[i],
            matrix: ts.matrices[i],
        });
        let texgen = tex
            .iter()
            .any(|s: &TexStage| s.index.mode != crate::texgen::TexCoordIndexMode::PassThru);
        let tween =
            (vb.mode == VertexBlend::Tweening && !pretransformed && layout.position2.is_some())
                .then_some(vb.tween_factor);
        let blend_normal_matrices = match &blend {
            Some((_, _, worlds)) => worlds.map(|w| w.mul(&t.view).normal_matrix()),
            None => [Matrix::IDENTITY; 4],
        };
        VertexStage {
            normal_matrix: t.world.mul(&t.view).normal_matrix(),
            blend_normal_matrices,
            wvp: t.world.mul(&t.view).mul(&t.projection),
            world: t.world,
            world_view: t.world.mul(&t.view),
            view_proj: t.view.mul(&t.projection),
            view: t.view,
            planes_enabled,
            planes: state.raster.clip_planes,
            pretransformed,
            need_camera: !pretransformed
                && (lighting.is_some()
                    || vertex_fog.is_some()
                    || texgen
                    || (points && state.point.scale_enable)),
            point: points.then_some(PointParams {
                state: state.point,
                viewport_height: state.viewport.height as f32,
            }),
            lighting,
            vertex_fog,
            blend,
            tween,
            tex,
        }
    }
}

#[inline]
fn f32_at(b: &[u8], off: usize) -> Option<f32> {
    let s = b.get(off..off.checked_add(4)?)?;
    Some(f32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

#[inline]
fn u32_at(b: &[u8], off: Option<u32>) -> Option<u32> {
    let o = usize_from(off?);
    b.get(o..o.checked_add(4)?)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// The colour of type `ty` at `off` (blue, green, red, alpha in
/// 0..=255), `default` (a D3DCOLOR) when absent or outside `b`.
#[inline]
fn color_at(b: &[u8], off: Option<u32>, ty: DeclType, default: u32) -> [f32; 4] {
    if ty != DeclType::D3dColor {
        if let Some(c) = color_of_type(b, off, ty) {
            return c;
        }
    }
    let c = u32_at(b, off).unwrap_or(default);
    let [b0, g, r, a] = c.to_le_bytes();
    [f32::from(b0), f32::from(g), f32::from(r), f32::from(a)]
}

/// A colour of a declaration type other than D3DCOLOR: `(x, y, z, w)` of
/// [`DeclType::read`] as `(r, g, b, a)`, saturated (NaN → 0), × 255.
#[cold]
fn color_of_type(b: &[u8], off: Option<u32>, ty: DeclType) -> Option<[f32; 4]> {
    let [r, g, bl, a] = ty.read(b.get(usize_from(off?)..)?)?;
    let sat = |x: f32| if x > 0.0 { x.min(1.0) * 255.0 } else { 0.0 };
    Some([sat(bl), sat(g), sat(r), sat(a)])
}

/// BGRA 0..=255 → RGBA 0..=1.
#[inline]
fn bgra_to_rgba(c: [f32; 4]) -> [f32; 4] {
    [c[2] / 255.0, c[1] / 255.0, c[0] / 255.0, c[3] / 255.0]
}

/// RGBA 0..=1 → BGRA 0..=255.
#[inline]
fn rgba_to_bgra(c: [f32; 4]) -> [f32; 4] {
    [c[2] * 255.0, c[1] * 255.0, c[0] * 255.0, c[3] * 255.0]
}

/// Tweening, vertex blending, camera-space position and normal, lighting
/// and vertex fog of one untransformed vertex (kept out of line: Pipeline
/// I draws never call it). Returns the clip position, camera-space
/// position and normal.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn vertex_ops(
    b: &[u8],
    l: &VertexLayout,
    vs: &VertexStage,
    v: [f32; 4],
    diffuse: &mut [f32; 4],
    specular: &mut [f32; 4],
    dist: &mut [f32; limits::MAX_USER_CLIP_PLANES],
) -> Option<([f32; 4], [f32; 3], [f32; 3])> {
    let vec3 = |off: Option<u32>| -> Option<[f32; 3]> {
        let o = usize_from(off?);
        Some([f32_at(b, o)?, f32_at(b, o + 4)?, f32_at(b, o + 8)?])
    };
    let mut normal = vec3(l.normal);
    let mut v = v;
    // Tweening: position (and normal) between the two streams.
    if let Some(t) = vs.tween {
        let p2 = vec3(l.position2)?;
        let p = crate::vertex_blend::tween([v[0], v[1], v[2]], p2, t);
        v = [p[0], p[1], p[2], v[3]];
        if let (Some(n), Some(n2)) = (normal, vec3(l.normal2)) {
            normal = Some(crate::vertex_blend::tween(n, n2, t));
        }
    }
    let [x, y, z, _] = v;
    let mut cs = [0.0f32; 3];
    let mut ncs = [0.0f32; 3];
    // Vertex blending: world-space position and normal.
    let blended = vs.blend.as_ref().and_then(|(mode, indexed, worlds)| {
        let (wo, wn) = l.blend_weights?;
        let wo = usize_from(wo);
        let count = usize::from(wn);
        let mut stored = [0.0f32; 5];
        for (i, s) in stored.iter_mut().enumerate().take(count) {
            *s = f32_at(b, wo + 4 * i)?;
        }
        let (nw, idx) = if *indexed && count >= 1 {
            let packed = u32_at(b, Some((wo + 4 * (count - 1)) as u32))?;
            (
                count - 1,
                crate::vertex_blend::blend_indices(
                    packed,
                    crate::vertex_blend::BlendIndexEncoding::Ubyte4,
                ),
            )
        } else {
            (count, [0, 1, 2, 3])
        };
        let weights = crate::vertex_blend::blend_weights(*mode, &stored[..nw]);
        let wp = crate::vertex_blend::blend_position([x, y, z], weights, idx, worlds);
        // Camera-space normal: blended through each matrix's normal
        // matrix (world i · View, inverse transposed).
        let ncs = normal
            .map(|n| crate::vertex_blend::blend_normal(n, weights, idx, &vs.blend_normal_matrices));
        Some((wp, ncs))
    });
    let wp = match &blended {
        Some((wp, _)) => *wp,
        None if vs.planes_enabled != 0 => vs.world.transform(v),
        None => v,
    };
    if vs.planes_enabled != 0 {
        for (i, d) in dist.iter_mut().enumerate() {
            if vs.planes_enabled & (1 << i) != 0 {
                let pl = vs.planes[i];
                *d = pl[0] * wp[0] + pl[1] * wp[1] + pl[2] * wp[2] + pl[3] * wp[3];
            }
        }
    }
    if vs.need_camera {
        let (c4, n3) = match &blended {
            Some((wp, ncs)) => (vs.view.transform(*wp), *ncs),
            None => (
                vs.world_view.transform(v),
                normal.map(|n| {
                    let t = vs.normal_matrix.transform([n[0], n[1], n[2], 0.0]);
                    [t[0], t[1], t[2]]
                }),
            ),
        };
        cs = [c4[0], c4[1], c4[2]];
        if let Some(n) = n3 {
            ncs = n;
        }
        if let Some(ls) = &vs.lighting {
            let vd = l.diffuse.map(|_| bgra_to_rgba(*diffuse));
            let vsp = l.specular.map(|_| bgra_to_rgba(*specular));
            let (d, s) = crate::lighting::light_vertex(cs, ncs, vd, vsp, ls);
            *diffuse = rgba_to_bgra(d);
            *specular = rgba_to_bgra(s);
        }
        if let Some((fs, mode)) = &vs.vertex_fog {
            specular[3] = 255.0 * crate::fog::vertex_fog_factor(fs, *mode, cs);
        }
    }
    let pos = match &blended {
        Some((wp, _)) => vs.view_proj.transform(*wp),
        None => vs.wvp.transform(v),
    };
    Some((pos, cs, ncs))
}

/// The rhw a pre-transformed vertex is drawn with: as given, except that
/// 0 (either sign) reads as 1. Windows drivers draw such vertices: with
/// `w = 1/rhw` they leave the position undivided, i.e. take `w = 1`, so
/// the primitive appears (affine) and table fog uses z.
#[inline(always)]
fn rhw_or_1(rhw: f32) -> f32 {
    if rhw == 0.0 {
        1.0
    } else {
        rhw
    }
}

/// The screen position, diffuse colour and, when `SPECULAR`, specular
/// colour (else zero) of pre-transformed vertex number `index` (what
/// [`fetch`] gives for them, without the rest of the record). `None` if
/// it lies outside the vertex buffer.
#[inline(always)]
pub(crate) fn fetch_screen<const SPECULAR: bool>(
    call: &DrawCall<'_>,
    index: u64,
) -> Option<([f32; 4], [f32; 4], [f32; 4])> {
    let l = call.layout;
    let stride = usize_from(l.stride);
    let start = usize::try_from(index).ok()?.checked_mul(stride)?;
    let b = call.vertices.get(start..start.checked_add(stride)?)?;
    let p = usize_from(l.position_offset);
    let q: &[u8; 16] = b.get(p..)?.first_chunk()?;
    let f = |i: usize| f32::from_le_bytes([q[i], q[i + 1], q[i + 2], q[i + 3]]);
    Some((
        [f(0), f(4), f(8), rhw_or_1(f(12))],
        color_at(b, l.diffuse, l.diffuse_type, 0xFFFF_FFFF),
        if SPECULAR {
            color_at(b, l.specular, l.specular_type, 0)
        } else {
            [0.0; 4]
        },
    ))
}

/// Fetches and transforms vertex number `index`. `None` if it lies outside
/// the vertex buffer.
#[inline(always)]
pub(crate) fn fetch<const N: usize>(
    call: &DrawCall<'_>,
    vs: &VertexStage,
    index: u64,
) -> Option<Vertex<N>> {
    let l = call.layout;
    let stride = usize_from(l.stride);
    let start = usize::try_from(index).ok()?.checked_mul(stride)?;
    let b = call.vertices.get(start..start.checked_add(stride)?)?;
    let p = usize_from(l.position_offset);
    let x = f32_at(b, p)?;
    let y = f32_at(b, p + 4)?;
    let z = f32_at(b, p + 8)?;
    let mut diffuse = color_at(b, l.diffuse, l.diffuse_type, 0xFFFF_FFFF);
    let mut specular = color_at(b, l.specular, l.specular_type, 0);
    let mut dist = [0.0; limits::MAX_USER_CLIP_PLANES];
    let mut cs = [0.0f32; 3];
    let mut ncs = [0.0f32; 3];
    let pos = match l.position {
        PositionKind::Xyzrhw => [x, y, z, rhw_or_1(f32_at(b, p + 12)?)],
        PositionKind::Xyz | PositionKind::Xyzw => {
            let w = if l.position == PositionKind::Xyzw {
                f32_at(b, p + 12)?
            } else {
                1.0
            };
            let v = [x, y, z, w];
            if vs.blend.is_none() && vs.tween.is_none() && !vs.need_camera {
                // The colour path: transform (and user clip distances) only.
                if vs.planes_enabled != 0 {
                    let wp = vs.world.transform(v);
                    for (i, d) in dist.iter_mut().enumerate() {
                        if vs.planes_enabled & (1 << i) != 0 {
                            let pl = vs.planes[i];
                            *d = pl[0] * wp[0] + pl[1] * wp[1] + pl[2] * wp[2] + pl[3] * wp[3];
                        }
                    }
                }
                vs.wvp.transform(v)
            } else {
                let (pos, c, n) = vertex_ops(b, l, vs, v, &mut diffuse, &mut specular, &mut dist)?;
                cs = c;
                ncs = n;
                pos
            }
        }
    };
    let mut tex = [[0.0f32; 4]; N];
    for (out, ts) in tex.iter_mut().zip(&vs.tex).take(N) {
        let set = l
            .texcoords
            .get(usize::from(ts.index.set))
            .copied()
            .flatten();
        let mut pass = TexCoords {
            v: [0.0; 4],
            count: 2,
        };
        if let Some(e) = set {
            let o = usize_from(e.offset);
            pass.count = e.components.clamp(1, 4);
            for (i, c) in pass.v.iter_mut().enumerate().take(usize::from(pass.count)) {
                *c = f32_at(b, o + 4 * i)?;
            }
        }
        let g = crate::texgen::generate(
            ts.index.mode,
            pass,
            cs,
            ncs,
            vs.lighting.as_ref().is_none_or(|l| l.local_viewer),
        );
        *out = crate::texgen::transform_tex_coords(g, ts.flags, &ts.matrix).v;
    }
    let psize = match &vs.point {
        None => 1.0,
        Some(pp) => {
            let own = l.point_size.and_then(|o| f32_at(b, usize_from(o)));
            let eye = (cs[0] * cs[0] + cs[1] * cs[1] + cs[2] * cs[2]).sqrt();
            crate::point::point_size(
                &pp.state,
                own,
                eye,
                pp.viewport_height,
                l.is_pretransformed(),
            )
        }
    };
    Some(Vertex {
        pos,
        diffuse,
        specular,
        dist,
        psize,
        varyings: tex,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `read_planes` gives every lane what `read` gives its element, for
    /// every D3DDECLTYPE: lanes without bytes untouched, an element cut
    /// short by the vertex's end (0, 0, 0, 1).
    #[test]
    fn read_planes_is_read_lane_by_lane() {
        // 20 bytes of varied bit patterns (NaN, denormal, ±, halves).
        let bytes: Vec<u8> = (0u32..20).map(|i| (i * 73 + 41) as u8 ^ 0x5A).collect();
        for t in (0..=16).filter_map(DeclType::from_d3d) {
            for offset in [0usize, 3, 8, 12] {
                // Lane 0: whole; 1: none; 2: cut to 14 bytes; 3: to 4.
                let vertices = [
                    Some(&bytes[..]),
                    None,
                    Some(&bytes[..14]),
                    Some(&bytes[..4]),
                ];
                let mut planes = [[7.0f32; 4]; 4];
                t.read_planes(&vertices, offset, &mut planes);
                for (l, v) in vertices.iter().enumerate() {
                    let want = match v {
                        None => [7.0; 4],
                        Some(v) => v
                            .get(offset..)
                            .and_then(|e| t.read(e))
                            .unwrap_or([0.0, 0.0, 0.0, 1.0]),
                    };
                    let got: [f32; 4] = std::array::from_fn(|c| planes[c][l]);
                    assert_eq!(
                        got.map(f32::to_bits),
                        want.map(f32::to_bits),
                        "{t:?} offset {offset} lane {l}"
                    );
                }
            }
        }
    }

    #[test]
    fn layout_validation() {
        let l = VertexLayout::packed(PositionKind::Xyzrhw, true, true, &[2, 4]);
        assert_eq!(l.stride, 16 + 8 + 8 + 16);
        assert!(l.validate().is_ok());
        let mut bad = l;
        bad.stride = 20;
        assert!(bad.validate().is_err());
        bad.stride = 0;
        assert!(bad.validate().is_err());
        let mut bad = l;
        bad.diffuse = Some(u32::MAX - 1);
        assert!(bad.validate().is_err());
        let mut tween = l;
        tween.position2 = Some(l.stride - 12);
        tween.normal2 = Some(0);
        assert!(tween.validate().is_ok());
        tween.position2 = Some(l.stride - 8);
        assert!(tween.validate().is_err());
        tween.position2 = None;
        tween.normal2 = Some(u32::MAX);
        assert!(tween.validate().is_err());
    }

    #[test]
    fn strip_and_fan_order() {
        assert_eq!(Topology::TriangleStrip.element(0), [0, 1, 2]);
        assert_eq!(Topology::TriangleStrip.element(1), [1, 3, 2]);
        assert_eq!(Topology::TriangleFan.element(0), [1, 2, 0]);
        assert_eq!(Topology::TriangleFan.element(3), [4, 5, 0]);
        assert_eq!(Topology::TriangleStrip.vertex_count(4), 6);
        assert_eq!(Topology::LineStrip.vertex_count(0), 0);
    }

    #[test]
    fn indices_are_bounds_checked() {
        let b = [1u8, 0, 2, 0, 3];
        let ix = Indices::U16(&b);
        assert_eq!(ix.len(), 2);
        assert_eq!(ix.get(1), Some(2));
        assert_eq!(ix.get(2), None);
        assert_eq!(ix.get(u64::MAX), None);
        let layout = VertexLayout::packed(PositionKind::Xyzrhw, false, false, &[]);
        let verts = [0u8; 32];
        let mut call = DrawCall::new(Topology::TriangleList, &verts, &layout, 1);
        assert!(call.validate().is_err());
        call.indices = Some(Indices::U16(&[0, 0, 1, 0, 9, 0]));
        assert!(call.validate().is_ok());
        let vs = VertexStage::new(&PipelineState::default(), &layout, false);
        assert!(fetch::<0>(&call, &vs, call.vertex_index(2).unwrap_or(0)).is_none());
        assert!(fetch::<0>(&call, &vs, 1).is_some());
    }
}
