//! Primitive set-up: screen-space vertices → rasterizer records.
//!
//! *Input*: screen-space [`Vertex`]es (`pos = (x, y, z, rhw)`, finite, inside
//! the guard band — guaranteed by [`crate::geometry`]). *Output*: [`Prim`]
//! records appended to a [`ChunkOut`]:
//! * triangles: three 64-bit edge functions in 8-bit sub-pixel fixed point
//!   with the top-left rule folded into their constant, a pixel bounding
//!   box clipped to the raster rectangle, a depth plane (bias included), an
//!   rhw plane, and diffuse colour planes in 16.16 fixed point (affine
//!   triangles) or float `attr·rhw` planes (perspective triangles);
//! * lines: the D3D9 diamond-exit pixel range along the major axis;
//! * points: one pixel, or (size > 1) a square of pixels;
//! * for shaded draws, lines and points keep their vertices' colours and
//!   texture coordinates in `ChunkOut::attrs` for the full path.
//!
//! *Invariants*: a triangle record is emitted only if its area is non-zero,
//! it survives culling and its bounding box meets the raster rectangle.
//! Orientation: a triangle is clockwise (CW) when, with y pointing down, its
//! vertices turn clockwise on screen; CW-culling removes those. Records are
//! normalised to clockwise order (the `CCW` flag remembers the original
//! orientation for two-sided stencil).
//!
//! Flat shading uses the first vertex of the primitive as assembled (see
//! [`crate::vertex::Topology`]): v[i] for strip triangle i, v[i+1] for fan
//! triangle i.

use crate::bin::TileGrid;
use crate::int::{i64_to_i32_sat, round_i64};
use crate::limits::{MAX_SORT_TILES, MAX_TILE_LIST_WORDS};
use crate::math::Rect;
use crate::prim::{
    LineSetup, PointSetup, PrimKind, PrimRef, TriExtra, TriSetup, FLAG_CCW, FLAG_PERSPECTIVE,
    FLAG_SMALL, NO_EXTRA,
};
use crate::simd::{to_fixed, PlaneGeom, SimdLevel};
use crate::state::{CullMode, FillMode};
use crate::vertex::Vertex;

/// Largest extent (exclusive, in 1/256 pixel) of the snapped vertices of a
/// [`FLAG_SMALL`] triangle in x and in y.
const SMALL_EXTENT: i64 = 1 << 15;

/// Tile-list count meaning "not computed: bin from the record".
pub(crate) const NO_TILE_LIST: u32 = u32::MAX;

/// The set-up output of one chunk of input primitives. A draw produces a
/// single kind of primitive (its topology and fill mode decide which), so
/// the order within each vector is the submission order.
#[derive(Debug, Default)]
pub(crate) struct ChunkOut {
    /// Triangles.
    pub tris: Vec<TriSetup>,
    /// Lines.
    pub lines: Vec<LineSetup>,
    /// Points.
    pub points: Vec<PointSetup>,
    /// Side records referenced by `TriSetup::extra`.
    pub extras: Vec<TriExtra>,
    /// Full-path attribute planes referenced by `TriExtra::planes`.
    pub planes: Vec<[f32; 3]>,
    /// Full-path vertex attributes of lines and points (see
    /// [`PointSetup::attrs`], [`LineSetup::attrs`]).
    pub attrs: Vec<[f32; 4]>,
    /// After [`ChunkOut::sort_tris_by_tile`] (otherwise empty): one word
    /// per triangle in submission order, see [`BinInfo`].
    pub bin_info: Vec<u32>,
    /// After the sort: the tile lists of the triangles of `bin_info` that
    /// span several tiles, in submission order: a count, then that many
    /// `(tile << 1) | fully covered` words.
    pub tile_lists: Vec<u32>,
    /// Scratch of the sort: submission index of each sorted slot.
    sort_src: Vec<u16>,
    /// Scratch of the sort: per-tile counts, then next slots (reused).
    sort_hist: Vec<u32>,
}

/// What the binner needs of a triangle of a sorted chunk, packed in a
/// `u32`: its slot in `ChunkOut::tris` (bits 0..14), the tile of its
/// bounding box's first pixel (bits 14..26, row-major) and whether the
/// bounding box lies in that one tile (bit 31).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BinInfo(pub u32);

impl BinInfo {
    /// Slot of the record in `ChunkOut::tris`.
    #[inline(always)]
    pub(crate) fn slot(self) -> usize {
        (self.0 & 0x3FFF) as usize
    }
    /// Tile index (row-major) of the bounding box's first pixel.
    #[inline(always)]
    pub(crate) fn tile(self) -> usize {
        ((self.0 >> 14) & 0xFFF) as usize
    }
    /// The bounding box lies inside that tile.
    #[inline(always)]
    pub(crate) fn single(self) -> bool {
        self.0 & (1 << 31) != 0
    }
}

impl ChunkOut {
    /// Empties the chunk, keeping its capacity.
    pub(crate) fn clear(&mut self) {
        self.tris.clear();
        self.lines.clear();
        self.points.clear();
        self.extras.clear();
        self.planes.clear();
        self.attrs.clear();
        self.bin_info.clear();
        self.tile_lists.clear();
    }

    /// Regroups the triangle records by the tile of their bounding box's
    /// first pixel (a stable counting sort: submission order within a
    /// tile) and fills `bin_info` (in submission order) and `tile_lists`.
    /// The rasterizer visits each tile's entries chunk by chunk; with the
    /// records of a tile next to each other, the binner bins a run of
    /// consecutive one-tile triangles as one entry and the rasterizer
    /// reads them sequentially instead of one scattered record per entry
    /// (which stalls on memory). The tile lists of the other triangles are
    /// computed here, in parallel, so that the binner reads nothing but
    /// `bin_info` and `tile_lists`, sequentially. Grids of more than
    /// [`MAX_SORT_TILES`] tiles (where the histogram would cost more than
    /// it saves) and chunks of fewer than two triangles are left as they
    /// are (`bin_info` empty).
    pub(crate) fn sort_tris_by_tile(&mut self, grid: &TileGrid, dst: &mut Vec<TriSetup>) {
        let n = self.tris.len();
        let (tiles_x, tiles_y) = (grid.tiles_x, grid.tiles_y);
        let tiles = tiles_x * tiles_y;
        if n < 2 || tiles == 0 || tiles > MAX_SORT_TILES || n > 1 << 14 {
            return;
        }
        // Tile of the first pixel, and whether the last pixel is in it
        // (bounding boxes lie inside the raster rect: non-negative).
        let key = |t: &TriSetup| -> (usize, bool) {
            let [x0, y0, x1, y1] = crate::bin::tile_range(t.bbox());
            let (tx, ty) = (x0.min(tiles_x - 1), y0.min(tiles_y - 1));
            (ty * tiles_x + tx, x0 == x1 && y0 == y1)
        };
        self.sort_hist.clear();
        self.sort_hist.resize(tiles, 0);
        self.bin_info.clear();
        self.tile_lists.clear();
        for t in &self.tris {
            let (k, single) = key(t);
            if let Some(h) = self.sort_hist.get_mut(k) {
                *h += 1;
            }
            // Provisional: the tile and the flag (slots come below).
            self.bin_info
                .push((k as u32) << 14 | u32::from(single) << 31);
        }
        let mut sum = 0u32;
        for h in self.sort_hist.iter_mut() {
            let c = *h;
            *h = sum;
            sum += c;
        }
        // Slots, and the inverse permutation (sorted slot → submission
        // index) in `sort_src`.
        self.sort_src.clear();
        self.sort_src.resize(n, 0);
        for (i, info) in self.bin_info.iter_mut().enumerate() {
            let Some(h) = self.sort_hist.get_mut(BinInfo(*info).tile()) else {
                continue;
            };
            let slot = *h as usize;
            *h += 1;
            *info |= slot as u32;
            if let Some(src) = self.sort_src.get_mut(slot) {
                *src = i as u16;
            }
        }
        // Gathered in slot order into `dst`, which becomes `tris` (and the
        // records in submission order go back to the caller's scratch):
        // the writes are sequential, the reads hit records just written.
        dst.clear();
        dst.reserve(n);
        for &i in &self.sort_src {
            if let Some(t) = self.tris.get(usize::from(i)) {
                dst.push(*t);
            }
        }
        std::mem::swap(&mut self.tris, dst);
        // Tile lists of the triangles spanning several tiles, in
        // submission order: a count, then `(tile << 1) | full` words; past
        // MAX_TILE_LIST_WORDS, `NO_TILE_LIST` (the binner then tests the
        // tiles itself).
        for &info in &self.bin_info {
            let info = BinInfo(info);
            if info.single() {
                continue;
            }
            let Some(t) = self.tris.get(info.slot()) else {
                continue;
            };
            let at = self.tile_lists.len();
            if at >= MAX_TILE_LIST_WORDS {
                self.tile_lists.push(NO_TILE_LIST);
                continue;
            }
            self.tile_lists.push(0);
            grid.tri_tiles(t, |ti, full| {
                self.tile_lists.push((ti as u32) << 1 | u32::from(full));
            });
            let count = (self.tile_lists.len() - at - 1) as u32;
            if let Some(c) = self.tile_lists.get_mut(at) {
                *c = count;
            }
        }
    }

    /// Primitive `index` of `kind`.
    #[inline]
    pub(crate) fn get(&self, kind: PrimKind, index: usize) -> Option<PrimRef<'_>> {
        match kind {
            PrimKind::Tri => self.tris.get(index).map(PrimRef::Tri),
            PrimKind::Line => self.lines.get(index).map(PrimRef::Line),
            PrimKind::Point => self.points.get(index).map(PrimRef::Point),
        }
    }

    /// All primitives in order, with their kind and index.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (PrimKind, usize, PrimRef<'_>)> {
        let t = self
            .tris
            .iter()
            .enumerate()
            .map(|(i, p)| (PrimKind::Tri, i, PrimRef::Tri(p)));
        let l = self
            .lines
            .iter()
            .enumerate()
            .map(|(i, p)| (PrimKind::Line, i, PrimRef::Line(p)));
        let p = self
            .points
            .iter()
            .enumerate()
            .map(|(i, p)| (PrimKind::Point, i, PrimRef::Point(p)));
        t.chain(l).chain(p)
    }

    /// Bytes held (capacity, since vectors are reused).
    pub(crate) fn bytes(&self) -> usize {
        use std::mem::size_of;
        self.tris.capacity() * size_of::<TriSetup>()
            + self.lines.capacity() * size_of::<LineSetup>()
            + self.points.capacity() * size_of::<PointSetup>()
            + self.extras.capacity() * size_of::<TriExtra>()
            + self.planes.capacity() * size_of::<[f32; 3]>()
            + self.attrs.capacity() * size_of::<[f32; 4]>()
            + self.bin_info.capacity() * size_of::<u32>()
            + self.tile_lists.capacity() * size_of::<u32>()
            + self.sort_src.capacity() * size_of::<u16>()
            + self.sort_hist.capacity() * size_of::<u32>()
    }
}

/// Per-draw constants of set-up.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SetupCtx {
    /// The raster rectangle (non-empty).
    pub rect: Rect,
    /// Culling.
    pub cull: CullMode,
    /// Fill mode.
    pub fill: FillMode,
    /// Flat shading.
    pub flat: bool,
    /// Draw the last pixel of lines.
    pub last_pixel: bool,
    /// The specular colour is used by the pixel stage.
    pub need_specular: bool,
    /// The pixel stage needs the rhw plane (W-buffering).
    pub need_rhw: bool,
    /// Constant depth bias (DEPTHBIAS − ZBIAS·unit).
    pub depth_bias: f32,
    /// Slope-scaled depth bias factor.
    pub slope_bias: f32,
    /// Emit the full-path attribute planes (textures, fog, cascade).
    pub full: bool,
    /// The specular alpha is a fog factor: Gouraud even under flat
    /// shading.
    pub fog_alpha: bool,
    /// SIMD level of the plane kernel (`simd::color_planes`).
    pub simd: SimdLevel,
    /// Texture-coordinate sets the full path reads (the shading state's
    /// count; at most the vertices' `N`).
    pub tex_sets: usize,
}

/// Snaps a screen coordinate to 8-bit sub-pixel fixed point.
#[inline]
pub(crate) fn snap(v: f32) -> i64 {
    // Round to nearest, ties to even.
    round_i64(f64::from(v) * 256.0)
}

fn color_u8(c: [f32; 4]) -> [u8; 4] {
    c.map(|v| crate::int::clamp_u8(crate::int::round_ties_even_f32(v) as i32))
}

/// One attribute of the three vertices, as f64.
#[inline(always)]
fn attr3<const N: usize>(v: &[&Vertex<N>; 3], f: impl Fn(&Vertex<N>) -> f32) -> [f64; 3] {
    [f64::from(f(v[0])), f64::from(f(v[1])), f64::from(f(v[2]))]
}

/// Float `attr · rhw` planes of diffuse (0..4) and specular (4..8).
#[inline(never)]
fn persp_planes<const N: usize>(
    v: &[&Vertex<N>; 3],
    plane: &impl Fn([f64; 3]) -> (f64, f64, f64),
    persp: &mut [[f32; 3]; 8],
) {
    for c in 0..4 {
        let d = attr3(v, |p| p.diffuse[c] * p.pos[3]);
        let s = attr3(v, |p| p.specular[c] * p.pos[3]);
        let (a, b, e) = plane(d);
        persp[c] = [a as f32, b as f32, e as f32];
        let (a, b, e) = plane(s);
        persp[4 + c] = [a as f32, b as f32, e as f32];
    }
}

impl SetupCtx {
    /// True if triangles need nothing but edges, depth and Gouraud diffuse
    /// planes (no side record): the [`setup_plain`] case.
    pub(crate) fn plain(&self) -> bool {
        !(self.flat || self.need_specular || self.need_rhw || self.full)
    }
}

/// [`setup_triangle`] for a [`SetupCtx::plain`] draw, specialised: the same
/// arithmetic in the same order, without the side-record and flat-shading
/// branches. Returns `false` (having pushed nothing) for a triangle it does
/// not handle — not affine, or a colour plane out of the 16.16 range —
/// which the caller then gives to [`setup_triangle`].
///
/// Never inlined: whether it was depended on how the crate happened to be
/// split into code-generation units, and inlined into `process_range` it
/// kept that loop's array maps out of line (W1: +5 % instructions).
#[inline(never)]
pub(crate) fn setup_plain(
    ctx: &SetupCtx,
    pos: &[[f32; 4]; 3],
    diffuse: &[[f32; 4]; 3],
    out: &mut ChunkOut,
) -> bool {
    let xs = [snap(pos[0][0]), snap(pos[1][0]), snap(pos[2][0])];
    let ys = [snap(pos[0][1]), snap(pos[1][1]), snap(pos[2][1])];
    let area = (xs[1] - xs[0]) * (ys[2] - ys[0]) - (xs[2] - xs[0]) * (ys[1] - ys[0]);
    if area == 0 {
        return true;
    }
    let cw = area > 0;
    match ctx.cull {
        CullMode::Cw if cw => return true,
        CullMode::Ccw if !cw => return true,
        _ => {}
    }
    if !(pos[0][3] == pos[1][3] && pos[1][3] == pos[2][3]) {
        return false;
    }
    let o = if cw { [0, 1, 2] } else { [0, 2, 1] };
    let (xs, ys) = (o.map(|i| xs[i]), o.map(|i| ys[i]));
    let (z, c) = (o.map(|i| f64::from(pos[i][2])), o.map(|i| diffuse[i]));
    let (minx, maxx) = (xs[0].min(xs[1]).min(xs[2]), xs[0].max(xs[1]).max(xs[2]));
    let (miny, maxy) = (ys[0].min(ys[1]).min(ys[2]), ys[0].max(ys[1]).max(ys[2]));
    let r = ctx.rect;
    // `div_euclid(256)` of the general path is an arithmetic shift; the
    // bounds are compared in i64 and fit i32 once inside the rect.
    let bx0 = ((minx + 255) >> 8).max(i64::from(r.x1));
    let bx1 = (maxx >> 8).min(i64::from(r.x2) - 1);
    let by0 = ((miny + 255) >> 8).max(i64::from(r.y1));
    let by1 = (maxy >> 8).min(i64::from(r.y2) - 1);
    if bx0 > bx1 || by0 > by1 {
        return true;
    }
    let fx = xs.map(|x| x as f64 * (1.0 / 256.0));
    let fy = ys.map(|y| y as f64 * (1.0 / 256.0));
    let (dx1, dy1, dx2, dy2) = (fx[1] - fx[0], fy[1] - fy[0], fx[2] - fx[0], fy[2] - fy[0]);
    let geom = PlaneGeom {
        dx1,
        dy1,
        dx2,
        dy2,
        inv: 1.0 / (dx1 * dy2 - dx2 * dy1),
        rx: bx0 as f64 - fx[0],
        ry: by0 as f64 - fy[0],
    };
    let Some(diffuse) = crate::simd::color_planes(ctx.simd, &c, &geom) else {
        return false;
    };
    let (zr, zx, zy) = geom.plane(z);
    let bias = f64::from(ctx.depth_bias) + f64::from(ctx.slope_bias) * zx.abs().max(zy.abs());
    let mut edge_ab = [[0i32; 2]; 3];
    let mut edge_c = [0i64; 3];
    for i in 0..3 {
        let (a, b) = (i, (i + 1) % 3);
        let (dx, dy) = (xs[b] - xs[a], ys[b] - ys[a]);
        let top_left = dy < 0 || (dy == 0 && dx > 0);
        edge_ab[i] = [i64_to_i32_sat(-dy), i64_to_i32_sat(dx)];
        edge_c[i] = dy * xs[a] - dx * ys[a] - i64::from(!top_left);
    }
    let mut flags = if cw { 0 } else { FLAG_CCW };
    if maxx - minx < SMALL_EXTENT && maxy - miny < SMALL_EXTENT {
        flags |= FLAG_SMALL;
    }
    // Inside the raster rect (< MAX_DIMENSION): fits i16.
    let b16 = |v: i64| v.clamp(0, i64::from(i16::MAX)) as i16;
    out.tris.push(TriSetup {
        edge_ab,
        edge_c,
        diffuse,
        z: [(zr + bias) as f32, zx as f32, zy as f32],
        bbox: [b16(bx0), b16(by0), b16(bx1), b16(by1)],
        extra: NO_EXTRA,
        flags,
    });
    true
}

/// Sets up a solid triangle (`v[0]` is the provoking vertex).
pub(crate) fn setup_triangle<const N: usize>(
    ctx: &SetupCtx,
    v: [&Vertex<N>; 3],
    out: &mut ChunkOut,
) {
    if ctx.plain() {
        let pos = [v[0].pos, v[1].pos, v[2].pos];
        let diffuse = [v[0].diffuse, v[1].diffuse, v[2].diffuse];
        if setup_plain(ctx, &pos, &diffuse, out) {
            return;
        }
    }
    let xs = [snap(v[0].pos[0]), snap(v[1].pos[0]), snap(v[2].pos[0])];
    let ys = [snap(v[0].pos[1]), snap(v[1].pos[1]), snap(v[2].pos[1])];
    let area = (xs[1] - xs[0]) * (ys[2] - ys[0]) - (xs[2] - xs[0]) * (ys[1] - ys[0]);
    if area == 0 {
        return;
    }
    let cw = area > 0;
    match ctx.cull {
        CullMode::Cw if cw => return,
        CullMode::Ccw if !cw => return,
        _ => {}
    }
    let provoking = v[0];
    // Normalise to clockwise order so that every edge function is positive
    // inside.
    let o = if cw { [0, 1, 2] } else { [0, 2, 1] };
    let (xs, ys, v) = (o.map(|i| xs[i]), o.map(|i| ys[i]), o.map(|i| v[i]));

    let mut edge_ab = [[0i32; 2]; 3];
    let mut edge_c = [0i64; 3];
    for i in 0..3 {
        let (a, b) = (i, (i + 1) % 3);
        let dx = xs[b] - xs[a];
        let dy = ys[b] - ys[a];
        // Top edge: horizontal with the inside below (dx > 0 when
        // clockwise); left edge: going up (dy < 0).
        let top_left = dy < 0 || (dy == 0 && dx > 0);
        // |dx|, |dy| < 2^24 inside the guard band: they fit i32.
        edge_ab[i] = [i64_to_i32_sat(-dy), i64_to_i32_sat(dx)];
        edge_c[i] = dy * xs[a] - dx * ys[a] - i64::from(!top_left);
    }

    let r = ctx.rect;
    let minx = xs.iter().copied().min().unwrap_or(0);
    let maxx = xs.iter().copied().max().unwrap_or(0);
    let miny = ys.iter().copied().min().unwrap_or(0);
    let maxy = ys.iter().copied().max().unwrap_or(0);
    let bx0 = i64_to_i32_sat((minx + 255).div_euclid(256)).max(r.x1);
    let bx1 = i64_to_i32_sat(maxx.div_euclid(256)).min(r.x2 - 1);
    let by0 = i64_to_i32_sat((miny + 255).div_euclid(256)).max(r.y1);
    let by1 = i64_to_i32_sat(maxy.div_euclid(256)).min(r.y2 - 1);
    if bx0 > bx1 || by0 > by1 {
        return;
    }

    // Attribute planes on the snapped positions, in f64 (scaling by 2^-8
    // is exact: the same values as a division by 256).
    let fx = xs.map(|x| x as f64 * (1.0 / 256.0));
    let fy = ys.map(|y| y as f64 * (1.0 / 256.0));
    let (dx1, dy1, dx2, dy2) = (fx[1] - fx[0], fy[1] - fy[0], fx[2] - fx[0], fy[2] - fy[0]);
    let geom = PlaneGeom {
        dx1,
        dy1,
        dx2,
        dy2,
        inv: 1.0 / (dx1 * dy2 - dx2 * dy1),
        rx: f64::from(bx0) - fx[0],
        ry: f64::from(by0) - fy[0],
    };
    let plane = |a: [f64; 3]| geom.plane(a);

    let (zr, zx, zy) = plane(attr3(&v, |p| p.pos[2]));
    let bias = f64::from(ctx.depth_bias) + f64::from(ctx.slope_bias) * zx.abs().max(zy.abs());
    let rhw_vals = attr3(&v, |p| p.pos[3]);

    let mut flags = if cw { 0 } else { FLAG_CCW };
    // 32-bit edge values: for edge (a → b) at pixel (px, py) of the
    // bounding box, E = dy·(x_a − 256·px) − dx·(y_a − 256·py) − bias. The
    // box lies inside the snapped vertices' extent (256·bx0 ≥ minx,
    // 256·bx1 ≤ maxx, likewise in y), so |x_a − 256·px| and |dx| are at
    // most Wx = maxx − minx, the y terms at most Wy, and
    // |E| ≤ 2·Wx·Wy + 1 < 2·2^30 = 2^31 when Wx, Wy < 2^15. The steps
    // a = −256·dy and b = 256·dx then fit i32 as well.
    if maxx - minx < SMALL_EXTENT && maxy - miny < SMALL_EXTENT {
        flags |= FLAG_SMALL;
    }
    let affine = rhw_vals[0] == rhw_vals[1] && rhw_vals[1] == rhw_vals[2];

    let mut diffuse = [[0i32; 4]; 3];
    let mut specular = [[0i32; 4]; 3];
    let mut persp = [[0f32; 3]; 8];
    if ctx.flat {
        for c in 0..4 {
            let cd = f64::from(provoking.diffuse[c]);
            let cs = f64::from(provoking.specular[c]);
            diffuse[0][c] = to_fixed(cd, 0.0, 0.0).map_or(0, |f| f[0]);
            specular[0][c] = to_fixed(cs, 0.0, 0.0).map_or(0, |f| f[0]);
        }
        if ctx.fog_alpha {
            // The fog factor stays Gouraud under flat shading.
            let (r0, gx, gy) = plane(attr3(&v, |p| p.specular[3]));
            match to_fixed(r0, gx, gy) {
                Some(f) => {
                    for k in 0..3 {
                        specular[k][3] = f[k];
                    }
                }
                None => flags |= FLAG_PERSPECTIVE,
            }
        }
    } else if let Some(d) = (affine && !ctx.need_specular)
        .then(|| {
            let c = [v[0].diffuse, v[1].diffuse, v[2].diffuse];
            crate::simd::color_planes(ctx.simd, &c, &geom)
        })
        .flatten()
    {
        // The four diffuse planes at once (exactly the per-channel loop
        // below; a triangle that does not fit takes that loop).
        diffuse = d;
    } else {
        let mut ok = affine;
        if ok {
            'ch: for c in 0..4 {
                let (r0, gx, gy) = plane(attr3(&v, |p| p.diffuse[c]));
                let Some(f) = to_fixed(r0, gx, gy) else {
                    ok = false;
                    break 'ch;
                };
                for k in 0..3 {
                    diffuse[k][c] = f[k];
                }
                if ctx.need_specular {
                    let (r0, gx, gy) = plane(attr3(&v, |p| p.specular[c]));
                    let Some(f) = to_fixed(r0, gx, gy) else {
                        ok = false;
                        break 'ch;
                    };
                    for k in 0..3 {
                        specular[k][c] = f[k];
                    }
                }
            }
        }
        if !ok {
            flags |= FLAG_PERSPECTIVE;
            persp_planes(&v, &plane, &mut persp);
        }
    }

    let extra = if flags & FLAG_PERSPECTIVE != 0 || ctx.need_specular || ctx.need_rhw || ctx.full {
        let (wr, wx, wy) = plane(rhw_vals);
        let planes = if ctx.full {
            let first = u32::try_from(out.planes.len()).unwrap_or(NO_EXTRA);
            let mut push = |a: [f64; 3]| {
                let (r0, gx, gy) = plane(a);
                out.planes.push([r0 as f32, gx as f32, gy as f32]);
            };
            for c in 0..4 {
                if ctx.flat {
                    let k = provoking.diffuse[c];
                    push(attr3(&v, |p| k * p.pos[3]));
                } else {
                    push(attr3(&v, |p| p.diffuse[c] * p.pos[3]));
                }
            }
            for c in 0..4 {
                if ctx.flat && !(c == 3 && ctx.fog_alpha) {
                    let k = provoking.specular[c];
                    push(attr3(&v, |p| k * p.pos[3]));
                } else {
                    push(attr3(&v, |p| p.specular[c] * p.pos[3]));
                }
            }
            for t in 0..N {
                for c in 0..4 {
                    push(attr3(&v, |p| p.varyings[t][c] * p.pos[3]));
                }
            }
            first
        } else {
            NO_EXTRA
        };
        let idx = u32::try_from(out.extras.len()).unwrap_or(NO_EXTRA);
        out.extras.push(TriExtra {
            rhw: [wr as f32, wx as f32, wy as f32],
            bias: bias as f32,
            specular,
            persp,
            planes,
        });
        idx
    } else {
        NO_EXTRA
    };

    // The bounding box lies inside the raster rect (< MAX_DIMENSION), so
    // it fits i16.
    let b16 = |v: i32| v.clamp(0, i32::from(i16::MAX)) as i16;
    out.tris.push(TriSetup {
        edge_ab,
        edge_c,
        diffuse,
        z: [(zr + bias) as f32, zx as f32, zy as f32],
        bbox: [b16(bx0), b16(by0), b16(bx1), b16(by1)],
        extra,
        flags,
    });
}

/// Sets up a line from `a` to `b`. `colors` overrides both ends' colours
/// (flat shading: the provoking vertex's). `last_pixel` includes the end
/// pixel.
pub(crate) fn setup_line<const N: usize>(
    ctx: &SetupCtx,
    a: &Vertex<N>,
    b: &Vertex<N>,
    last_pixel: bool,
    flat: Option<&Vertex<N>>,
    out: &mut ChunkOut,
) {
    let (x0, y0, x1, y1) = (
        snap(a.pos[0]),
        snap(a.pos[1]),
        snap(b.pos[0]),
        snap(b.pos[1]),
    );
    let x_major = (x1 - x0).abs() >= (y1 - y0).abs();
    let (u0, v0, u1, v1) = if x_major {
        (x0, y0, x1, y1)
    } else {
        (y0, x0, y1, x1)
    };
    let du = u1 - u0;
    let dv = v1 - v0;
    let fa = flat.unwrap_or(a);
    let fb = flat.unwrap_or(b);
    let s = i64_to_i32_sat((u0 + 128).div_euclid(256));
    let e = i64_to_i32_sat((u1 + 128).div_euclid(256));
    let z = [a.pos[2] + ctx.depth_bias, b.pos[2] + ctx.depth_bias];
    let mut l = if du == 0 {
        // Zero length: only the last pixel, if requested, as a one-pixel
        // line at the end point with the end's attributes.
        if !last_pixel {
            return;
        }
        let m = i64_to_i32_sat((v1 + 128).div_euclid(256));
        LineSetup {
            u0: e.saturating_mul(256),
            v0: m.saturating_mul(256),
            du: 1,
            dv: 0,
            p_lo: e,
            p_hi: e,
            z: [z[1]; 2],
            rhw: [b.pos[3]; 2],
            bbox: [0; 4],
            diffuse: [color_u8(fb.diffuse); 2],
            specular: [color_u8(fb.specular); 2],
            c_lo: [0; 4],
            c_step: [0; 4],
            attrs: NO_EXTRA,
            fixed: false,
            x_major,
        }
    } else {
        let (p_lo, p_hi) = if du > 0 {
            (s, if last_pixel { e } else { e - 1 })
        } else {
            (if last_pixel { e } else { e + 1 }, s)
        };
        if p_lo > p_hi {
            return;
        }
        // Inside the guard band every fixed-point value fits i32.
        LineSetup {
            u0: i64_to_i32_sat(u0),
            v0: i64_to_i32_sat(v0),
            du: i64_to_i32_sat(du),
            dv: i64_to_i32_sat(dv),
            p_lo,
            p_hi,
            z,
            rhw: [a.pos[3], b.pos[3]],
            bbox: [0; 4],
            diffuse: [color_u8(fa.diffuse), color_u8(fb.diffuse)],
            specular: [color_u8(fa.specular), color_u8(fb.specular)],
            c_lo: [0; 4],
            c_step: [0; 4],
            attrs: NO_EXTRA,
            fixed: false,
            x_major,
        }
    };
    let (p_lo, p_hi) = (l.p_lo, l.p_hi);
    // Affine lines of at least 4 pixels interpolate the diffuse colour in
    // 16.16 fixed point along the major axis (every pixel path uses these
    // values); short or perspective lines use the float formula.
    l.fixed = l.rhw[0] == l.rhw[1] && l.du.unsigned_abs() >= 4 * 256;
    if l.fixed {
        let inv_du = 1.0 / f64::from(l.du);
        let t0 = (f64::from(p_lo) * 256.0 - f64::from(l.u0)) * inv_du;
        for ch in 0..4 {
            let (c0, c1) = (f64::from(l.diffuse[0][ch]), f64::from(l.diffuse[1][ch]));
            // |step| ≤ 255·2^16/4 and |start| ≤ 2^25: no wrap.
            l.c_lo[ch] = round_i64((c0 + (c1 - c0) * t0) * 65536.0 + 32768.0) as i32;
            l.c_step[ch] = round_i64((c1 - c0) * 256.0 * inv_du * 65536.0) as i32;
        }
    }
    let (m0, m1) = (l.minor_at(p_lo), l.minor_at(p_hi));
    let (mlo, mhi) = (m0.min(m1), m0.max(m1));
    let [bx0, by0, bx1, by1] = if x_major {
        [p_lo, mlo, p_hi, mhi]
    } else {
        [mlo, p_lo, mhi, p_hi]
    };
    let r = ctx.rect;
    let bb = [
        bx0.max(r.x1),
        by0.max(r.y1),
        bx1.min(r.x2 - 1),
        by1.min(r.y2 - 1),
    ];
    if bb[0] > bb[2] || bb[1] > bb[3] {
        return;
    }
    // Inside the raster rect: fits i16.
    l.bbox = bb.map(|v| v.clamp(0, i32::from(i16::MAX)) as i16);
    if ctx.full {
        l.attrs = u32::try_from(out.attrs.len()).unwrap_or(NO_EXTRA);
        if du == 0 {
            push_attrs(ctx, b, fb, out);
            push_attrs(ctx, b, fb, out);
        } else {
            push_attrs(ctx, a, fa, out);
            push_attrs(ctx, b, fb, out);
        }
    }
    out.lines.push(l);
}

/// Pushes the full-path attributes of a vertex (see
/// [`PointSetup::attrs`]); `colors` supplies diffuse and specular.
fn push_attrs<const N: usize>(
    ctx: &SetupCtx,
    v: &Vertex<N>,
    colors: &Vertex<N>,
    out: &mut ChunkOut,
) {
    let mut specular = colors.specular;
    if ctx.fog_alpha {
        // The fog factor stays the vertex's own under flat shading.
        specular[3] = v.specular[3];
    }
    out.attrs.push(colors.diffuse);
    out.attrs.push(specular);
    for t in v.varyings.iter().take(ctx.tex_sets) {
        out.attrs.push(*t);
    }
}

/// Sets up a point: for size ≤ 1 the pixel whose centre is nearest, else
/// the square of [`PointSetup`].
pub(crate) fn setup_point<const N: usize>(ctx: &SetupCtx, v: &Vertex<N>, out: &mut ChunkOut) {
    let r = ctx.rect;
    let (x0, y0, x1, y1) = if v.psize > 1.0 && v.psize.is_finite() {
        // Corners snapped like triangle vertices; pixel centres p·256 in
        // [lo, hi) → p from ceil(lo/256) to ceil(hi/256) − 1.
        let h = f64::from(v.psize) * 0.5;
        let span = |c: f32| {
            let lo = round_i64((f64::from(c) - h) * 256.0);
            let hi = round_i64((f64::from(c) + h) * 256.0);
            ((lo + 255) >> 8, ((hi + 255) >> 8) - 1)
        };
        let ((x0, x1), (y0, y1)) = (span(v.pos[0]), span(v.pos[1]));
        (x0, y0, x1, y1)
    } else {
        let x = (snap(v.pos[0]) + 128).div_euclid(256);
        let y = (snap(v.pos[1]) + 128).div_euclid(256);
        (x, y, x, y)
    };
    let (x0, y0) = (x0.max(i64::from(r.x1)), y0.max(i64::from(r.y1)));
    let (x1, y1) = (x1.min(i64::from(r.x2) - 1), y1.min(i64::from(r.y2) - 1));
    if x0 > x1 || y0 > y1 {
        return;
    }
    let attrs = if ctx.full {
        let i = u32::try_from(out.attrs.len()).unwrap_or(NO_EXTRA);
        push_attrs(ctx, v, v, out);
        i
    } else {
        NO_EXTRA
    };
    // Inside the raster rect (< MAX_DIMENSION): fits i16.
    let b16 = |v: i64| v.clamp(0, i64::from(i16::MAX)) as i16;
    out.points.push(PointSetup {
        bbox: [b16(x0), b16(y0), b16(x1), b16(y1)],
        center: [v.pos[0], v.pos[1]],
        size: v.psize,
        z: v.pos[2] + ctx.depth_bias,
        rhw: v.pos[3],
        diffuse: color_u8(v.diffuse),
        specular: color_u8(v.specular),
        attrs,
    });
}

/// Signed doubled area of a screen polygon on snapped coordinates
/// (positive = clockwise on screen).
pub(crate) fn polygon_area<const N: usize>(verts: &[Vertex<N>]) -> i128 {
    let n = verts.len();
    let mut s: i128 = 0;
    for i in 0..n {
        let a = &verts[i];
        let b = &verts[(i + 1) % n];
        s += i128::from(snap(a.pos[0])) * i128::from(snap(b.pos[1]))
            - i128::from(snap(b.pos[0])) * i128::from(snap(a.pos[1]));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_fit_the_limit() {
        assert_eq!(std::mem::size_of::<TriSetup>(), 128);
        assert!(std::mem::size_of::<LineSetup>() <= 104);
        assert!(std::mem::size_of::<PointSetup>() <= crate::limits::MAX_SETUP_RECORD_BYTES);
        assert!(std::mem::size_of::<TriExtra>() <= crate::limits::MAX_SETUP_RECORD_BYTES);
    }
}
