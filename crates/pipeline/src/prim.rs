//! The rasterizer's primitive records: what set-up writes and binning and
//! rasterization read.
//!
//! *Input*: nothing (plain data). *Output*: [`TriSetup`] (with its
//! [`TriExtra`] side record), [`LineSetup`] and [`PointSetup`], the
//! triangle flags, and the borrowed [`PrimRef`] / [`PrimKind`] the binner
//! and the rasterizer dispatch on. *Guarantees*: the records are `Copy`
//! and self-contained (indices into a `setup::ChunkOut`, never pointers);
//! this module sits below `setup`, `bin` and `raster`, so none of them
//! imports another for these types.

use crate::int::i64_to_i32_sat;

/// Triangle flag: colours need per-pixel perspective division.
pub(crate) const FLAG_PERSPECTIVE: u8 = 1;
/// Triangle flag: the triangle was counter-clockwise on screen.
pub(crate) const FLAG_CCW: u8 = 2;
/// Triangle flag: the snapped vertices span less than 128 pixels in x and
/// in y, so every edge function value at a pixel of the bounding box fits
/// i32 (see `setup::setup_triangle`); the small-triangle kernel may evaluate
/// the edges in 32 bits.
pub(crate) const FLAG_SMALL: u8 = 4;

/// Index value meaning "no side record".
pub(crate) const NO_EXTRA: u32 = u32::MAX;

/// A set-up triangle: 128 bytes, aligned to a cache line, so that the
/// rasterizer loads exactly two lines per record.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(64))]
pub(crate) struct TriSetup {
    /// Edge coefficients `a/256, b/256` (a and b are multiples of 256).
    pub edge_ab: [[i32; 2]; 3],
    /// Edge constants `c`: pixel (px, py) is inside when
    /// `a·px + b·py + c ≥ 0` for all three edges.
    pub edge_c: [i64; 3],
    /// Diffuse colour planes in 16.16 fixed point, rounding bias included:
    /// `[reference, d/dx, d/dy]`, each blue, green, red, alpha.
    pub diffuse: [[i32; 4]; 3],
    /// Depth plane `(value at reference, d/dx, d/dy)`, bias included.
    pub z: [f32; 3],
    /// Inclusive pixel bounds `[x0, y0, x1, y1]`, inside the raster rect.
    /// `(x0, y0)` is also the reference pixel of every plane.
    pub bbox: [i16; 4],
    /// Index of the [`TriExtra`] side record in the chunk, or [`NO_EXTRA`].
    pub extra: u32,
    /// `FLAG_*` bits.
    pub flags: u8,
}

impl TriSetup {
    /// Edge `i` as `(a, b, c)`.
    #[inline(always)]
    pub(crate) fn edge(&self, i: usize) -> [i64; 3] {
        let [a, b] = self.edge_ab[i];
        [i64::from(a) * 256, i64::from(b) * 256, self.edge_c[i]]
    }
    /// The bounding box as i32.
    #[inline(always)]
    pub(crate) fn bbox(&self) -> [i32; 4] {
        self.bbox.map(i32::from)
    }
}

/// Side record of a triangle whose draw needs more than the diffuse colour
/// (specular, rhw, perspective colours, and for shaded draws the index of
/// its full-path planes).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TriExtra {
    /// rhw plane (perspective colours and W-buffering).
    pub rhw: [f32; 3],
    /// Constant depth bias (W-buffering, where the z plane is unused).
    pub bias: f32,
    /// Specular planes in 16.16 fixed point (when not perspective).
    pub specular: [[i32; 4]; 3],
    /// Float planes of `attr · rhw`: diffuse channels 0..4, specular 4..8
    /// (when perspective).
    pub persp: [[f32; 3]; 8],
    /// Index of the first of the triangle's full-path planes in
    /// `setup::ChunkOut::planes` ([`NO_EXTRA`] if none): `attr · rhw` planes of
    /// diffuse (4, BGRA 0..=255), specular (4; alpha = fog factor × 255,
    /// always Gouraud), then 4 per texture-coordinate set.
    pub planes: u32,
}

/// A set-up line (width 1).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LineSetup {
    /// Start along the major axis, fixed point.
    pub u0: i32,
    /// Start along the minor axis, fixed point.
    pub v0: i32,
    /// Delta along the major axis (never 0).
    pub du: i32,
    /// Delta along the minor axis.
    pub dv: i32,
    /// Inclusive range of major-axis pixel coordinates drawn.
    pub p_lo: i32,
    /// See `p_lo`.
    pub p_hi: i32,
    /// Depth at both ends (bias included).
    pub z: [f32; 2],
    /// rhw at both ends.
    pub rhw: [f32; 2],
    /// Inclusive pixel bounds (for binning), inside the raster rect.
    pub bbox: [i16; 4],
    /// Diffuse at both ends (BGRA). Clipped ends are rounded to 8 bits.
    pub diffuse: [[u8; 4]; 2],
    /// Specular at both ends.
    pub specular: [[u8; 4]; 2],
    /// Diffuse in 16.16 fixed point (rounding bias included) at major
    /// pixel `p_lo`, and its step per major pixel: used when `fixed`.
    pub c_lo: [i32; 4],
    /// See `c_lo`.
    pub c_step: [i32; 4],
    /// Index of the full-path attributes in `setup::ChunkOut::attrs`
    /// ([`NO_EXTRA`] if none): those of [`PointSetup::attrs`] for the start,
    /// then for the end (flat shading: the provoking vertex's colours).
    pub attrs: u32,
    /// Affine line of at least 4 pixels: colours from `c_lo`/`c_step`.
    pub fixed: bool,
    /// Major axis is x.
    pub x_major: bool,
}

impl LineSetup {
    /// Minor-axis pixel coordinate at major coordinate `p`
    /// (`floor(v(p) + 0.5)`, exact integer arithmetic).
    #[inline]
    pub(crate) fn minor_at(&self, p: i32) -> i32 {
        let (u0, v0, du, dv) = (
            i64::from(self.u0),
            i64::from(self.v0),
            i64::from(self.du),
            i64::from(self.dv),
        );
        let mut num = v0 * du + (i64::from(p) * 256 - u0) * dv + 128 * du;
        let mut den = 256 * du;
        if den < 0 {
            num = -num;
            den = -den;
        }
        i64_to_i32_sat(num.div_euclid(den))
    }
}

/// A set-up point: one pixel (size ≤ 1), or a screen-aligned square of
/// `size` pixels centred on the vertex, covering the pixel centres of
/// `[cx − size/2, cx + size/2) × [cy − size/2, cy + size/2)` (the corners
/// snapped to 8 sub-pixel bits; left/top edges in, right/bottom out: the
/// top-left rule of the quad D3D draws).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PointSetup {
    /// Inclusive pixel bounds `[x0, y0, x1, y1]`, inside the raster rect.
    pub bbox: [i16; 4],
    /// Screen position of the vertex (sprite coordinates).
    pub center: [f32; 2],
    /// Size in pixels (sprite coordinates).
    pub size: f32,
    /// Depth (bias included).
    pub z: f32,
    /// rhw.
    pub rhw: f32,
    /// Diffuse colour, BGRA.
    pub diffuse: [u8; 4],
    /// Specular colour, BGRA.
    pub specular: [u8; 4],
    /// Index of the full-path attributes in `setup::ChunkOut::attrs`
    /// ([`NO_EXTRA`] if none): diffuse, specular (BGRA, 0..=255, alpha =
    /// fog factor × 255), then one 4-vector per texture-coordinate set.
    pub attrs: u32,
}

/// Kind of a rasterizer primitive (selects the vector of a `setup::ChunkOut`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PrimKind {
    /// A triangle.
    Tri = 0,
    /// A line.
    Line = 1,
    /// A point.
    Point = 2,
}

/// A borrowed rasterizer primitive.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PrimRef<'a> {
    /// A triangle.
    Tri(&'a TriSetup),
    /// A line.
    Line(&'a LineSetup),
    /// A point.
    Point(&'a PointSetup),
}

impl PrimRef<'_> {
    /// Inclusive pixel bounds.
    pub(crate) fn bbox(&self) -> [i32; 4] {
        match self {
            PrimRef::Tri(t) => t.bbox(),
            PrimRef::Line(l) => l.bbox.map(i32::from),
            PrimRef::Point(p) => p.bbox.map(i32::from),
        }
    }
}
