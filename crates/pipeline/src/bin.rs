//! Binning: set-up primitives → per-tile lists, with a hard memory cap.
//!
//! *Input*: set-up records in submission order. *Output*: for every 64×64
//! screen tile the ordered list of entries `(chunk, index, fully covered)`
//! of the primitives that may touch it, and *runs*: a chunk whose
//! triangles were regrouped by tile (`setup::ChunkOut::sort_tris_by_tile`)
//! gives consecutive one-tile triangles of a tile as one two-word entry
//! (chunk, first slot; count), so that they are read sequentially; its
//! other triangles come with tile lists computed during (parallel) set-up.
//!
//! *Invariants*: entries of a tile are in submission order; a triangle is
//! only binned into tiles its edges do not trivially reject; a tile whose
//! covered part (tile ∩ bounding box) lies inside all three edges is flagged
//! fully covered so the rasterizer skips edge tests there. The total number
//! of entries never exceeds [`limits::MAX_BIN_ENTRIES`]: the caller asks
//! [`Bins::would_overflow`] first and flushes the scene when it would.

use crate::limits::{self, TILE_SHIFT, TILE_SIZE};
use crate::math::Rect;
use crate::prim::{PrimKind, PrimRef, TriSetup};

const FULL_BIT: u32 = 1 << 31;
const KIND_SHIFT: u32 = 29;
const CHUNK_SHIFT: u32 = 16;
const CHUNK_MASK: u32 = (1 << 13) - 1;

/// Packs a bin entry: fully covered (1 bit), kind (2), chunk (13), index
/// (16).
fn encode_entry(chunk: usize, kind: PrimKind, index: usize, full: bool) -> u32 {
    // chunk < MAX_SCENE_CHUNKS (2^13) and index < PRIMS_PER_CHUNK ×
    // MAX_OUTPUT_PRIMS_PER_INPUT (2^14) by construction; masks keep the
    // encoding well-formed regardless.
    ((kind as u32) << KIND_SHIFT)
        | (((chunk as u32) & CHUNK_MASK) << CHUNK_SHIFT)
        | ((index as u32) & 0xFFFF)
        | if full { FULL_BIT } else { 0 }
}

/// Kind bits of a run entry: `RUN_KIND << KIND_SHIFT | chunk << 16 |
/// first slot`, followed by a word holding the number of triangles (slots
/// `first..first + count` of the chunk's sorted `tris`, all inside this
/// tile and in submission order). A count word is below 2^29, so it never
/// reads as a run header.
pub(crate) const RUN_KIND: u32 = 3;

/// If `e` is the header of a run entry: its (chunk, first slot).
#[inline(always)]
pub(crate) fn decode_run(e: u32) -> Option<(usize, usize)> {
    ((e >> KIND_SHIFT) & 3 == RUN_KIND).then_some((
        ((e >> CHUNK_SHIFT) & CHUNK_MASK) as usize,
        (e & 0xFFFF) as usize,
    ))
}

/// Unpacks a bin entry into (chunk, kind, index, fully covered). (Run
/// headers are recognised with [`decode_run`] first.)
pub(crate) fn decode_entry(e: u32) -> (usize, PrimKind, usize, bool) {
    let kind = match (e >> KIND_SHIFT) & 3 {
        0 => PrimKind::Tri,
        1 => PrimKind::Line,
        _ => PrimKind::Point,
    };
    (
        ((e >> CHUNK_SHIFT) & CHUNK_MASK) as usize,
        kind,
        (e & 0xFFFF) as usize,
        e & FULL_BIT != 0,
    )
}

/// Inclusive pixel rectangle of a tile, clipped to the raster rectangle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tile {
    /// First column.
    pub x0: i32,
    /// First row.
    pub y0: i32,
    /// Last column.
    pub x1: i32,
    /// Last row.
    pub y1: i32,
}

/// The tile grid of a scene: tiles per row and rows, and the raster
/// rectangle the tiles are clipped to.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TileGrid {
    /// Tiles per row.
    pub tiles_x: usize,
    /// Tile rows.
    pub tiles_y: usize,
    /// Raster rectangle.
    pub rect: Rect,
}

impl TileGrid {
    /// The tile rectangle of tile (tx, ty), clipped to the raster rect.
    pub(crate) fn tile(&self, tx: usize, ty: usize) -> Tile {
        let x = (tx as i32) << TILE_SHIFT;
        let y = (ty as i32) << TILE_SHIFT;
        let r = self.rect;
        Tile {
            x0: x.max(r.x1),
            y0: y.max(r.y1),
            x1: (x + TILE_SIZE as i32 - 1).min(r.x2 - 1),
            y1: (y + TILE_SIZE as i32 - 1).min(r.y2 - 1),
        }
    }

    /// Calls `f(tile index, fully covered)`, row-major, for every tile of
    /// the triangle's bounding box that its edges do not trivially reject;
    /// fully covered: the part of the tile inside the bounding box lies
    /// inside all three edges.
    pub(crate) fn tri_tiles(&self, tri: &TriSetup, mut f: impl FnMut(usize, bool)) {
        let bb = tri.bbox();
        let [tx0, ty0, tx1, ty1] = tile_range(bb);
        for ty in ty0..=ty1.min(self.tiles_y.saturating_sub(1)) {
            for tx in tx0..=tx1.min(self.tiles_x.saturating_sub(1)) {
                let t = self.tile(tx, ty);
                // Region of the tile the triangle can touch.
                let (x0, y0) = (i64::from(t.x0.max(bb[0])), i64::from(t.y0.max(bb[1])));
                let (x1, y1) = (i64::from(t.x1.min(bb[2])), i64::from(t.y1.min(bb[3])));
                if x0 > x1 || y0 > y1 {
                    continue;
                }
                let mut full = true;
                let mut reject = false;
                for [a, b, c] in [tri.edge(0), tri.edge(1), tri.edge(2)] {
                    let (xmax, xmin) = if a > 0 { (x1, x0) } else { (x0, x1) };
                    let (ymax, ymin) = if b > 0 { (y1, y0) } else { (y0, y1) };
                    if a * xmax + b * ymax + c < 0 {
                        reject = true;
                        break;
                    }
                    if a * xmin + b * ymin + c < 0 {
                        full = false;
                    }
                }
                if !reject {
                    f(ty * self.tiles_x + tx, full);
                }
            }
        }
    }
}

/// Tile range `[tx0, ty0, tx1, ty1]` (inclusive) of a bounding box.
pub(crate) fn tile_range(b: [i32; 4]) -> [usize; 4] {
    let t = |v: i32| (v.max(0) >> TILE_SHIFT) as usize;
    [t(b[0]), t(b[1]), t(b[2]), t(b[3])]
}

/// Per-tile bins of one scene.
#[derive(Debug, Default)]
pub(crate) struct Bins {
    /// Tiles per row.
    pub tiles_x: usize,
    /// Tile rows.
    pub tiles_y: usize,
    /// Raster rectangle.
    pub rect: Rect,
    /// Entries per tile, row-major.
    pub bins: Vec<Vec<u32>>,
    /// Total entries held.
    pub entries: usize,
}

impl Bins {
    /// Prepares empty bins for a `width × height` target and raster rect.
    pub(crate) fn reset(&mut self, width: u32, height: u32, rect: Rect) {
        self.tiles_x = width.div_ceil(TILE_SIZE) as usize;
        self.tiles_y = height.div_ceil(TILE_SIZE) as usize;
        self.rect = rect;
        let n = self.tiles_x * self.tiles_y;
        self.bins.truncate(n);
        for b in &mut self.bins {
            b.clear();
        }
        self.bins.resize_with(n, Vec::new);
        self.entries = 0;
    }

    /// Empties all bins (keeping their capacity, which is bounded by the
    /// entry cap).
    pub(crate) fn clear(&mut self) {
        for b in &mut self.bins {
            b.clear();
        }
        self.entries = 0;
    }

    /// The grid of the bins.
    pub(crate) fn grid(&self) -> TileGrid {
        TileGrid {
            tiles_x: self.tiles_x,
            tiles_y: self.tiles_y,
            rect: self.rect,
        }
    }

    /// The tile rectangle of tile (tx, ty), clipped to the raster rect.
    pub(crate) fn tile(&self, tx: usize, ty: usize) -> Tile {
        self.grid().tile(tx, ty)
    }

    /// True if binning `p` could exceed the entry cap.
    pub(crate) fn would_overflow(&self, p: PrimRef<'_>) -> bool {
        let [tx0, ty0, tx1, ty1] = tile_range(p.bbox());
        let n = (tx1 + 1).saturating_sub(tx0) * (ty1 + 1).saturating_sub(ty0);
        self.entries + n > limits::MAX_BIN_ENTRIES
    }

    /// True if adding `n` entry words could exceed the entry cap.
    pub(crate) fn would_overflow_by(&self, n: usize) -> bool {
        self.entries + n > limits::MAX_BIN_ENTRIES
    }

    /// Bins the one-tile triangle in `slot` of sorted chunk `chunk` into
    /// `tile` (row-major): it extends the tile's last entry when that is a
    /// run of the same chunk ending just before `slot` (the sort keeps a
    /// tile's triangles consecutive in submission order), else starts a
    /// run (two words).
    pub(crate) fn add_to_run(&mut self, chunk: usize, tile: usize, slot: usize) {
        let Some(b) = self.bins.get_mut(tile) else {
            return;
        };
        if let [.., head, count] = b.as_mut_slice() {
            if let Some((c, first)) = decode_run(*head) {
                if c == chunk && first + *count as usize == slot {
                    *count += 1;
                    return;
                }
            }
        }
        b.push(
            (RUN_KIND << KIND_SHIFT)
                | (((chunk as u32) & CHUNK_MASK) << CHUNK_SHIFT)
                | (slot as u32 & 0xFFFF),
        );
        b.push(1);
        self.entries += 2;
    }

    fn push(&mut self, tx: usize, ty: usize, e: u32) {
        if tx < self.tiles_x && ty < self.tiles_y {
            if let Some(b) = self.bins.get_mut(ty * self.tiles_x + tx) {
                b.push(e);
                self.entries += 1;
            }
        }
    }

    /// Bins primitive `index` of `kind` of chunk `chunk`.
    pub(crate) fn add(&mut self, chunk: usize, kind: PrimKind, index: usize, p: PrimRef<'_>) {
        let [tx0, ty0, tx1, ty1] = tile_range(p.bbox());
        if tx0 == tx1 && ty0 == ty1 {
            self.push(tx0, ty0, encode_entry(chunk, kind, index, false));
            return;
        }
        let PrimRef::Tri(tri) = p else {
            for ty in ty0..=ty1 {
                for tx in tx0..=tx1 {
                    self.push(tx, ty, encode_entry(chunk, kind, index, false));
                }
            }
            return;
        };
        self.grid().tri_tiles(tri, |ti, full| {
            self.push_tile(ti, encode_entry(chunk, kind, index, full));
        });
    }

    /// Appends entry `e` to tile `ti` (row-major).
    pub(crate) fn push_tile(&mut self, ti: usize, e: u32) {
        if let Some(b) = self.bins.get_mut(ti) {
            b.push(e);
            self.entries += 1;
        }
    }

    /// Bins triangle `slot` of chunk `chunk` with the tile list the chunk
    /// computed for it (`(tile << 1) | full` words, see
    /// `ChunkOut::sort_tris_by_tile`).
    pub(crate) fn add_tile_list(&mut self, chunk: usize, slot: usize, tiles: &[u32]) {
        for &w in tiles {
            let e = encode_entry(chunk, PrimKind::Tri, slot, w & 1 != 0);
            self.push_tile((w >> 1) as usize, e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_round_trip() {
        for (c, k, i, f) in [
            (0, PrimKind::Tri, 0, false),
            (8191, PrimKind::Point, 16383, true),
            (5, PrimKind::Line, 77, false),
        ] {
            assert_eq!(decode_entry(encode_entry(c, k, i, f)), (c, k, i, f));
        }
    }

    #[test]
    fn overflow_is_predicted_before_binning() {
        use crate::prim::PointSetup;
        let mut b = Bins::default();
        b.reset(128, 128, Rect::new(0, 0, 128, 128));
        let p = PointSetup {
            bbox: [70, 3, 70, 3],
            center: [70.0, 3.0],
            size: 1.0,
            z: 0.0,
            rhw: 1.0,
            diffuse: [0; 4],
            specular: [0; 4],
            attrs: crate::prim::NO_EXTRA,
        };
        assert!(!b.would_overflow(PrimRef::Point(&p)));
        b.entries = limits::MAX_BIN_ENTRIES;
        assert!(b.would_overflow(PrimRef::Point(&p)));
        b.clear();
        assert_eq!(b.entries, 0);
        b.add(0, PrimKind::Point, 5, PrimRef::Point(&p));
        assert_eq!(b.entries, 1);
        assert_eq!(b.bins[1].len(), 1);
        assert_eq!(decode_entry(b.bins[1][0]), (0, PrimKind::Point, 5, false));
    }
}
