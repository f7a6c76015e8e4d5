//! Vertex input: layouts of raw vertex bytes, topologies, indices, and the
//! fetch + transform step (the geometry half of vertex processing).
//!
//! *Input*: raw little-endian vertex bytes described by a [`VertexLayout`],
//! optional 16/32-bit indices, the transforms and viewport of the state.
//! *Output*: [`Vertex`] records: for pre-transformed (XYZRHW) vertices the
//! screen position `(x, y, z, rhw)` as given; for untransformed ones the
//! clip-space position `v · World · View · Projection` plus the user clip
//! distances (computed in world space); colours as floats in 0..=255.
//! *Guarantees*: every read is bounds-checked (`get`); an index that points
//! outside the buffer yields `None` and the primitive is dropped — never a
//! panic.
//!
//! *Not handled here*: lighting, vertex blending, texture coordinate
//! generation and fog (Pipeline II: the [`VertexLayout`] already describes
//! normals, texture coordinates, point size and blend weights so that they
//! can be fetched there).

use crate::error::PipelineError;
use crate::int::usize_from;
use crate::limits;
use crate::state::{Matrix, PipelineState};

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
    /// Offset of the diffuse colour (D3DCOLOR), if present (default opaque
    /// white).
    pub diffuse: Option<u32>,
    /// Offset of the specular colour (D3DCOLOR), if present (default 0).
    /// For pre-transformed vertices its alpha is the vertex fog factor.
    pub specular: Option<u32>,
    /// Texture coordinate sets.
    pub texcoords: [Option<TexCoordElement>; limits::MAX_TEXCOORD_SETS],
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
            texcoords: tc,
        }
    }

    /// Checks that every element lies inside the stride.
    pub fn validate(&self) -> Result<(), PipelineError> {
        let bad = |reason| Err(PipelineError::BadVertexLayout { reason });
        if self.stride == 0 || self.stride > limits::MAX_VERTEX_STRIDE {
            return bad("stride is 0 or above the limit");
        }
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
            (self.point_size, 4, "point size outside the vertex"),
            (self.diffuse, 4, "diffuse outside the vertex"),
            (self.specular, 4, "specular outside the vertex"),
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

/// A fetched and transformed vertex.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Vertex {
    /// Screen `(x, y, z, rhw)` (pre-transformed) or clip `(x, y, z, w)`.
    pub pos: [f32; 4],
    /// Diffuse colour, blue, green, red, alpha in 0..=255.
    pub diffuse: [f32; 4],
    /// Specular colour, same order.
    pub specular: [f32; 4],
    /// User clip plane distances (untransformed only).
    pub dist: [f32; limits::MAX_USER_CLIP_PLANES],
}

/// Per-draw constants of the vertex stage.
#[derive(Debug, Clone, Copy)]
pub(crate) struct VertexStage {
    /// World · View · Projection.
    pub wvp: Matrix,
    /// World.
    pub world: Matrix,
    /// Enabled user clip planes (bit i = plane i).
    pub planes_enabled: u32,
    /// The planes.
    pub planes: [[f32; 4]; limits::MAX_USER_CLIP_PLANES],
    /// Pre-transformed input.
    pub pretransformed: bool,
}

impl VertexStage {
    pub(crate) fn new(state: &PipelineState, layout: &VertexLayout) -> Self {
        let t = &state.transforms;
        let planes_enabled = if state.raster.clipping {
            state.raster.clip_plane_enable & ((1 << limits::MAX_USER_CLIP_PLANES) - 1)
        } else {
            0
        };
        VertexStage {
            wvp: t.world.mul(&t.view).mul(&t.projection),
            world: t.world,
            planes_enabled,
            planes: state.raster.clip_planes,
            pretransformed: layout.is_pretransformed(),
        }
    }
}

#[inline]
fn f32_at(b: &[u8], off: usize) -> Option<f32> {
    let s = b.get(off..off.checked_add(4)?)?;
    Some(f32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

#[inline]
fn color_at(b: &[u8], off: Option<u32>, default: u32) -> [f32; 4] {
    let c = off
        .and_then(|o| {
            let o = usize_from(o);
            b.get(o..o + 4)
                .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        })
        .unwrap_or(default);
    let [b0, g, r, a] = c.to_le_bytes();
    [f32::from(b0), f32::from(g), f32::from(r), f32::from(a)]
}

/// Fetches and transforms vertex number `index`. `None` if it lies outside
/// the vertex buffer.
#[inline]
pub(crate) fn fetch(call: &DrawCall<'_>, vs: &VertexStage, index: u64) -> Option<Vertex> {
    let l = call.layout;
    let stride = usize_from(l.stride);
    let start = usize::try_from(index).ok()?.checked_mul(stride)?;
    let b = call.vertices.get(start..start.checked_add(stride)?)?;
    let p = usize_from(l.position_offset);
    let x = f32_at(b, p)?;
    let y = f32_at(b, p + 4)?;
    let z = f32_at(b, p + 8)?;
    let diffuse = color_at(b, l.diffuse, 0xFFFF_FFFF);
    let specular = color_at(b, l.specular, 0);
    let mut dist = [0.0; limits::MAX_USER_CLIP_PLANES];
    let pos = match l.position {
        PositionKind::Xyzrhw => [x, y, z, f32_at(b, p + 12)?],
        PositionKind::Xyz | PositionKind::Xyzw => {
            let w = if l.position == PositionKind::Xyzw {
                f32_at(b, p + 12)?
            } else {
                1.0
            };
            let v = [x, y, z, w];
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
        }
    };
    Some(Vertex {
        pos,
        diffuse,
        specular,
        dist,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let vs = VertexStage::new(&PipelineState::default(), &layout);
        assert!(fetch(&call, &vs, call.vertex_index(2).unwrap_or(0)).is_none());
        assert!(fetch(&call, &vs, 1).is_some());
    }
}
