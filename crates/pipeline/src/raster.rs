//! Rasterization of binned primitives inside one tile.
//!
//! *Input*: a tile rectangle, the bin entries of that tile (in submission
//! order) and the set-up records they point to. *Output*: spans and
//! fragments handed to [`crate::pixel`].
//!
//! *Triangles*: a tile flagged fully covered at binning is shaded row by
//! row without any edge test. Otherwise each edge is walked exactly: for
//! edge `a·x + b·y + c ≥ 0` and row y the covered columns are
//! `x ≥ ⌈−(b·y + c)/a⌉` (a > 0) or `x ≤ ⌊(b·y + c)/−a⌋` (a < 0); the
//! quotient and remainder are stepped from row to row with additions only
//! (one 64-bit division per edge per tile). Because the top-left rule is in
//! the edge constants and all arithmetic is exact integer arithmetic, two
//! triangles sharing an edge never both cover a pixel centre on it and never
//! leave a gap.
//!
//! *Lines*: D3D9 diamond-exit rule along the major axis (see
//! [`crate::setup::LineSetup`]); *points*: one pixel.
//!
//! *Guarantee*: only pixels inside the tile rectangle (which lies inside the
//! raster rectangle) are touched; each tile is processed by one worker, in
//! submission order, so results do not depend on the thread count.

use crate::bin::{decode_entry, Tile};
use crate::pixel::{tri_span, DrawCtx, Stats, TileTarget};
use crate::setup::{ChunkOut, LineSetup, PointSetup, PrimRef, TriExtra, TriSetup};

/// Exact incremental edge walker for one triangle edge.
#[derive(Debug, Clone, Copy)]
struct Walker {
    /// +1: lower bound on x; −1: upper bound; 0: whole row in/out.
    kind: i8,
    q: i64,
    r: i64,
    d: i64,
    qs: i64,
    rs: i64,
}

impl Walker {
    fn new(e: [i64; 3], y: i32) -> Self {
        let [a, b, c] = e;
        let k = b * i64::from(y) + c;
        if a == 0 {
            return Walker {
                kind: 0,
                q: k,
                r: 0,
                d: 1,
                qs: b,
                rs: 0,
            };
        }
        let (kind, d, m, s) = if a > 0 {
            (1, a, a - 1 - k, -b)
        } else {
            (-1, -a, k, b)
        };
        Walker {
            kind,
            q: m.div_euclid(d),
            r: m.rem_euclid(d),
            d,
            qs: s.div_euclid(d),
            rs: s.rem_euclid(d),
        }
    }

    #[inline(always)]
    fn apply(&self, lo: &mut i64, hi: &mut i64) {
        match self.kind {
            1 => *lo = (*lo).max(self.q),
            -1 => *hi = (*hi).min(self.q),
            _ => {
                if self.q < 0 {
                    *hi = *lo - 1;
                }
            }
        }
    }

    #[inline(always)]
    fn step(&mut self) {
        if self.kind == 0 {
            self.q += self.qs;
            return;
        }
        self.q += self.qs;
        self.r += self.rs;
        if self.r >= self.d {
            self.q += 1;
            self.r -= self.d;
        }
    }
}

/// How many bin entries ahead set-up records are prefetched.
const PREFETCH_AHEAD: usize = 4;

/// Tiles with at least this many entries get their pixels prefetched.
const PREFETCH_TILE_MIN: usize = 16;

/// Rasterizes every entry of one tile.
pub(crate) fn raster_tile(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    tile: &Tile,
    entries: &[u32],
    scene: &[ChunkOut],
    stats: &mut Stats,
) {
    if entries.len() >= PREFETCH_TILE_MIN {
        let (cb, db) = d.bpps();
        t.prefetch_rect([tile.x0, tile.y0, tile.x1, tile.y1], cb, db);
    }
    for (i, &e) in entries.iter().enumerate() {
        // Set-up records are visited in tile order, not memory order:
        // start loading the one a few entries ahead.
        if let Some(&ahead) = entries.get(i + PREFETCH_AHEAD) {
            let (ca, ka, pa, _) = decode_entry(ahead);
            match scene.get(ca).and_then(|c| c.get(ka, pa)) {
                Some(PrimRef::Tri(p)) => crate::simd::prefetch(p),
                Some(PrimRef::Line(p)) => crate::simd::prefetch(p),
                Some(PrimRef::Point(p)) => crate::simd::prefetch(p),
                None => {}
            }
        }
        let (ci, kind, pi, full) = decode_entry(e);
        let Some(chunk) = scene.get(ci) else {
            continue;
        };
        match chunk.get(kind, pi) {
            Some(PrimRef::Tri(tri)) => {
                let extra = chunk.extras.get(crate::int::usize_from(tri.extra));
                raster_tri(t, d, tile, tri, extra, full, stats);
            }
            Some(PrimRef::Line(l)) => raster_line(t, d, tile, l, stats),
            Some(PrimRef::Point(p)) => raster_point(t, d, tile, p, stats),
            None => {}
        }
    }
}

fn raster_tri(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    tile: &Tile,
    tri: &TriSetup,
    extra: Option<&TriExtra>,
    full: bool,
    stats: &mut Stats,
) {
    let bb = tri.bbox();
    let x0 = tile.x0.max(bb[0]);
    let x1 = tile.x1.min(bb[2]);
    let y0 = tile.y0.max(bb[1]);
    let y1 = tile.y1.min(bb[3]);
    if x0 > x1 || y0 > y1 {
        return;
    }
    if full {
        for py in y0..=y1 {
            tri_span(t, d, tri, extra, py, x0, x1, stats);
        }
        return;
    }
    let mut w = [
        Walker::new(tri.edge(0), y0),
        Walker::new(tri.edge(1), y0),
        Walker::new(tri.edge(2), y0),
    ];
    for py in y0..=y1 {
        let mut lo = i64::from(x0);
        let mut hi = i64::from(x1);
        for e in &w {
            e.apply(&mut lo, &mut hi);
        }
        if lo <= hi {
            // lo, hi are within [x0, x1] here.
            tri_span(t, d, tri, extra, py, lo as i32, hi as i32, stats);
        }
        for e in &mut w {
            e.step();
        }
    }
}

fn raster_line(t: &mut TileTarget<'_>, d: &DrawCtx, tile: &Tile, l: &LineSetup, stats: &mut Stats) {
    let (mlo, mhi, nlo, nhi) = if l.x_major {
        (tile.x0, tile.x1, tile.y0, tile.y1)
    } else {
        (tile.y0, tile.y1, tile.x0, tile.x1)
    };
    let p0 = l.p_lo.max(mlo);
    let p1 = l.p_hi.min(mhi);
    if p0 > p1 {
        return;
    }
    // Minor coordinate m(p) = floor(num(p) / den), stepped exactly like an
    // edge (see `LineSetup::minor_at`).
    let (u0, v0, du, dv) = (
        i64::from(l.u0),
        i64::from(l.v0),
        i64::from(l.du),
        i64::from(l.dv),
    );
    let (mut num0, mut step) = (
        v0 * du + (i64::from(p0) * 256 - u0) * dv + 128 * du,
        256 * dv,
    );
    let mut den = 256 * du;
    if den < 0 {
        num0 = -num0;
        step = -step;
        den = -den;
    }
    let mut m = Walker {
        kind: 1,
        q: num0.div_euclid(den),
        r: num0.rem_euclid(den),
        d: den,
        qs: step.div_euclid(den),
        rs: step.rem_euclid(den),
    };
    let (r0, r1) = (l.rhw[0], l.rhw[1]);
    let affine = r0 == r1;
    let inv_r0 = 1.0 / r0;
    let inv_du = 1.0 / f64::from(l.du);
    let ca = l.diffuse[0].map(|c| f32::from(c) * r0);
    let cb = l.diffuse[1].map(|c| f32::from(c) * r1);
    let sa = l.specular[0].map(|c| f32::from(c) * r0);
    let sb = l.specular[1].map(|c| f32::from(c) * r1);
    let direct = d.direct_color32();
    for p in p0..=p1 {
        let mi = m.q;
        m.step();
        if mi < i64::from(nlo) || mi > i64::from(nhi) {
            continue;
        }
        // In range of an i32 tile coordinate after the check above.
        let mi = mi as i32;
        let (px, py) = if l.x_major { (p, mi) } else { (mi, p) };
        let tt = ((f64::from(p) * 256.0 - f64::from(l.u0)) * inv_du).clamp(0.0, 1.0) as f32;
        let r = r0 + (r1 - r0) * tt;
        // With equal rhw at both ends r == r0 exactly, so the shortcut gives
        // the same value as the division.
        let inv = if affine { inv_r0 } else { 1.0 / r };
        let mut c = [0i32; 4];
        for (ch, out) in c.iter_mut().enumerate() {
            *out = crate::int::channel_from_f32((ca[ch] + (cb[ch] - ca[ch]) * tt) * inv);
        }
        if let Some(and_mask) = direct {
            if let Some(px4) = t.color_span(py, px, 1, 4) {
                let v = u32::from_le_bytes(c.map(|x| x as u8)) & and_mask;
                px4.copy_from_slice(&v.to_le_bytes());
                stats.written += 1;
                stats.passed += 1;
            }
            continue;
        }
        if d.specular_add() {
            for ch in 0..3 {
                let s = crate::int::channel_from_f32((sa[ch] + (sb[ch] - sa[ch]) * tt) * inv);
                c[ch] = (c[ch] + s).min(255);
            }
        }
        let depth = if d.w_buffer() {
            d.w_depth(1.0 / r)
        } else {
            l.z[0] + (l.z[1] - l.z[0]) * tt
        };
        (d.frag)(t, d, px, py, c, depth, false, stats);
    }
}

fn raster_point(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    tile: &Tile,
    p: &PointSetup,
    stats: &mut Stats,
) {
    if p.x < tile.x0 || p.x > tile.x1 || p.y < tile.y0 || p.y > tile.y1 {
        return;
    }
    let mut c = p.diffuse.map(i32::from);
    if d.specular_add() {
        for (ch, s) in c.iter_mut().zip(p.specular).take(3) {
            *ch = (*ch + i32::from(s)).min(255);
        }
    }
    let depth = if d.w_buffer() {
        d.w_depth(1.0 / p.rhw)
    } else {
        p.z
    };
    (d.frag)(t, d, p.x, p.y, c, depth, false, stats);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walker agrees with direct evaluation of the edge function.
    #[test]
    fn walker_matches_direct_evaluation() {
        let edges = [
            [3i64 * 256, -5 * 256, 1234],
            [-7 * 256, 2 * 256, -99],
            [0, 256, -300],
            [0, -256, 5000],
            [256 * 1000, 256 * 3, -1],
        ];
        for e in edges {
            let mut w = Walker::new(e, -20);
            for y in -20..40 {
                let (mut lo, mut hi) = (-100i64, 100i64);
                w.apply(&mut lo, &mut hi);
                for x in -100..=100i64 {
                    let inside = e[0] * x + e[1] * i64::from(y) + e[2] >= 0;
                    assert_eq!(inside, x >= lo && x <= hi, "edge {e:?} at ({x}, {y})");
                }
                w.step();
            }
        }
    }
}
