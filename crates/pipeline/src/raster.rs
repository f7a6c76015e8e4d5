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
//! Horizontal edges only restrict the row range; the walk is specialised
//! for the usual one-lower/two-upper (or two-lower/one-upper) bounds, and
//! all spans of a triangle in a tile go to the pixel stage in one call.
//!
//! *Small triangles* (`prim::FLAG_SMALL`, part in the tile at most
//! [`crate::simd::SMALL_MAX`] pixels square) of draws on the colour +
//! 24-bit depth fast path skip the walk: the coverage-mask kernel
//! ([`crate::simd::SmallTri`]) evaluates the same edge functions in 32 bits
//! at every pixel of the part, 8 lanes at a time (scalar and AVX2 levels;
//! the SSE levels keep the walk — the pixels are the same).
//!
//! *Lines*: D3D9 diamond-exit rule along the major axis (see
//! [`crate::prim::LineSetup`]), the minor coordinate stepped exactly like
//! an edge; affine lines of 4+ pixels interpolate colour in 16.16 fixed
//! point. *Points*: one pixel, or the pixels of their square. Lines and points
//! of shaded draws (textures, a non-identity cascade, fog) go through the
//! full path per pixel (`shade::line_pixel_full`, `shade::point_full`).
//!
//! *Guarantee*: only pixels inside the tile rectangle (which lies inside the
//! raster rectangle) are touched; each tile is processed by one worker, in
//! submission order, so results do not depend on the thread count.

use crate::bin::{decode_entry, decode_run, Tile};
use crate::limits::WATCHDOG_CHECK_ENTRIES;
use crate::pixel::{tri_spans, DrawCtx, Stats, TileTarget};
use crate::prim::{
    LineSetup, PointSetup, PrimRef, TriExtra, TriSetup, FLAG_PERSPECTIVE, FLAG_SMALL,
};
use crate::setup::ChunkOut;
use crate::simd::{SmallTri, Span, SMALL_MAX};
use crate::watchdog::{fired, Watchdog};

/// Exact incremental edge walker: the bound `q(y) = floor(M(y) / d)` with
/// `M(y + 1) = M(y) + s`, kept as quotient and remainder.
#[derive(Debug, Clone, Copy, Default)]
struct Walker {
    q: i64,
    r: i64,
    d: i64,
    qs: i64,
    rs: i64,
}

impl Walker {
    /// Walker of `floor((m + s·(y − y0)) / d)` from row `y0` (d > 0).
    fn new(m: i64, s: i64, d: i64) -> Self {
        Walker {
            q: m.div_euclid(d),
            r: m.rem_euclid(d),
            d,
            qs: s.div_euclid(d),
            rs: s.rem_euclid(d),
        }
    }

    /// [`Walker::new`] for |s| ≤ d (lines: |dv| ≤ |du|), with one
    /// division instead of two.
    fn with_small_step(m: i64, s: i64, d: i64) -> Self {
        if s.abs() > d {
            return Walker::new(m, s, d);
        }
        let qs = if s < 0 { -1 } else { i64::from(s >= d) };
        Walker {
            q: m.div_euclid(d),
            r: m.rem_euclid(d),
            d,
            qs,
            rs: s - qs * d,
        }
    }

    /// For edge `a·x + b·y + c ≥ 0` (a ≠ 0) at row `y`: the lowest covered
    /// column (a > 0) or the highest (a < 0).
    fn for_edge([a, b, c]: [i64; 3], y: i32) -> Self {
        let k = b * i64::from(y) + c;
        if a > 0 {
            // x ≥ ceil(−k / a) = floor((a − 1 − k) / a)
            Walker::new(a - 1 - k, -b, a)
        } else {
            // x ≤ floor(k / −a)
            Walker::new(k, b, -a)
        }
    }

    #[inline(always)]
    fn step(&mut self) {
        self.step_delta();
    }

    /// [`Walker::step`], returning how much the bound moved.
    #[inline(always)]
    fn step_delta(&mut self) -> i64 {
        self.r += self.rs;
        let wrap = i64::from(self.r >= self.d);
        let dq = self.qs + wrap;
        self.q += dq;
        self.r -= wrap * self.d;
        dq
    }
}

/// Walks rows `y0..=y1` with `NL` lower and `NH` upper column bounds,
/// clamped to `[x0, x1]`, appending one span per non-empty row.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn walk<const NL: usize, const NH: usize>(
    lows: &mut [Walker; NL],
    highs: &mut [Walker; NH],
    x0: i32,
    x1: i32,
    y0: i32,
    y1: i32,
    spans: &mut Spans,
    k: &mut usize,
) {
    for py in y0..=y1 {
        let mut lo = i64::from(x0);
        let mut hi = i64::from(x1);
        for w in lows.iter() {
            lo = lo.max(w.q);
        }
        for w in highs.iter() {
            hi = hi.min(w.q);
        }
        if lo <= hi {
            if let Some(s) = spans.get_mut(*k) {
                // lo, hi are within [x0, x1] here.
                *s = Span {
                    y: py,
                    x: lo as i32,
                    n: (hi - lo + 1) as u32,
                };
                *k += 1;
            }
        }
        for w in lows.iter_mut() {
            w.step();
        }
        for w in highs.iter_mut() {
            w.step();
        }
    }
}

/// How many bin entries ahead set-up records are prefetched.
const PREFETCH_ENTRIES: usize = 3;

/// How many records of a run are prefetched ahead (and at its start).
const RUN_PREFETCH: usize = 2;

/// Tiles with at least this many entries get their pixels prefetched.
const PREFETCH_TILE_MIN: usize = 16;

/// Rasterizes every entry of one tile. Kept out of line: inlined into
/// the renderer's tile loop it made W6's line loop cost about 4 % more
/// instructions (callgrind).
#[inline(never)]
pub(crate) fn raster_tile(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    tile: &Tile,
    entries: &[u32],
    scene: &[ChunkOut],
    stats: &mut Stats,
    wd: Option<&Watchdog>,
) {
    if entries.len() >= PREFETCH_TILE_MIN {
        let (cb, db) = d.bpps();
        t.prefetch_rect([tile.x0, tile.y0, tile.x1, tile.y1], cb, db);
    }
    let mut spans: Spans = [Span::default(); crate::limits::TILE_SIZE as usize];
    // Set-up records are visited in tile order, not memory order: a
    // cursor runs `PREFETCH_ENTRIES` entries ahead and starts loading the
    // records of each entry it passes (a run's first records, an index
    // entry's record).
    let mut ahead = 0;
    for _ in 0..PREFETCH_ENTRIES {
        ahead = prefetch_entry(entries, ahead, scene);
    }
    let mut i = 0;
    let mut next_check = WATCHDOG_CHECK_ENTRIES;
    while let Some(&e) = entries.get(i) {
        if i >= next_check {
            if fired(wd) {
                return;
            }
            next_check = i + WATCHDOG_CHECK_ENTRIES;
        }
        ahead = prefetch_entry(entries, ahead, scene);
        if let Some((ci, first)) = decode_run(e) {
            // A run of one-tile triangles: consecutive records.
            let count = entries.get(i + 1).map_or(0, |&c| c as usize);
            i += 2;
            let Some(chunk) = scene.get(ci) else {
                continue;
            };
            let Some(run) = chunk.tris.get(first..first + count) else {
                continue;
            };
            for (k, tri) in run.iter().enumerate() {
                if let Some(p) = run.get(k + RUN_PREFETCH) {
                    crate::simd::prefetch(p);
                }
                raster_tri_entry(t, d, tile, chunk, tri, false, &mut spans, stats);
            }
            continue;
        }
        i += 1;
        let (ci, kind, pi, full) = decode_entry(e);
        let Some(chunk) = scene.get(ci) else {
            continue;
        };
        match chunk.get(kind, pi) {
            Some(PrimRef::Tri(tri)) => {
                raster_tri_entry(t, d, tile, chunk, tri, full, &mut spans, stats);
            }
            Some(PrimRef::Line(l)) => raster_line(t, d, tile, chunk, l, stats),
            Some(PrimRef::Point(p)) => raster_point(t, d, tile, chunk, p, stats),
            None => {}
        }
    }
}

/// Rasterizes one set-up record of `chunk` at the single pixel `tile`
/// (a 1×1 tile: the replay of a watched pixel, `crate::watch`), with the
/// same edge walk, line and point rules as [`raster_tile`].
pub(crate) fn raster_record(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    tile: &Tile,
    chunk: &ChunkOut,
    prim: PrimRef<'_>,
    stats: &mut Stats,
) {
    let mut spans: Spans = [Span::default(); crate::limits::TILE_SIZE as usize];
    match prim {
        PrimRef::Tri(tri) => raster_tri_entry(t, d, tile, chunk, tri, false, &mut spans, stats),
        PrimRef::Line(l) => raster_line(t, d, tile, chunk, l, stats),
        PrimRef::Point(p) => raster_point(t, d, tile, chunk, p, stats),
    }
}

/// Starts loading the set-up records of the entry at word `at` of a
/// tile's entries (a hint) and returns the position of the next entry.
#[inline(always)]
fn prefetch_entry(entries: &[u32], at: usize, scene: &[ChunkOut]) -> usize {
    let Some(&e) = entries.get(at) else {
        return at;
    };
    if let Some((ci, first)) = decode_run(e) {
        let count = entries.get(at + 1).map_or(0, |&c| c as usize);
        if let Some(c) = scene.get(ci) {
            for t in c.tris.iter().skip(first).take(count.min(RUN_PREFETCH)) {
                crate::simd::prefetch(t);
            }
        }
        return at + 2;
    }
    let (ca, ka, pa, _) = decode_entry(e);
    match scene.get(ca).and_then(|c| c.get(ka, pa)) {
        Some(PrimRef::Tri(p)) => crate::simd::prefetch(p),
        Some(PrimRef::Line(p)) => crate::simd::prefetch(p),
        Some(PrimRef::Point(p)) => crate::simd::prefetch(p),
        None => {}
    }
    at + 1
}

/// Rasterizes triangle `tri` of `chunk` in `tile` (with its side record
/// and planes, if any).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn raster_tri_entry(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    tile: &Tile,
    chunk: &ChunkOut,
    tri: &TriSetup,
    full: bool,
    spans: &mut Spans,
    stats: &mut Stats,
) {
    let extra = chunk.extras.get(crate::int::usize_from(tri.extra));
    let planes = extra
        .and_then(|e| chunk.planes.get(crate::int::usize_from(e.planes)..))
        .unwrap_or(&[]);
    raster_tri(t, d, tile, tri, extra, planes, full, spans, stats);
}

/// Span buffer of one tile: at most one span per row.
type Spans = [Span; crate::limits::TILE_SIZE as usize];

#[allow(clippy::too_many_arguments)]
fn raster_tri(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    tile: &Tile,
    tri: &TriSetup,
    extra: Option<&TriExtra>,
    planes: &[[f32; 3]],
    full: bool,
    spans: &mut Spans,
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
    if d.small
        && tri.flags & (FLAG_SMALL | FLAG_PERSPECTIVE) == FLAG_SMALL
        && x1 - x0 < SMALL_MAX
        && y1 - y0 < SMALL_MAX
        && d.tex_fast.is_none()
    {
        small_tri(t, d, tri, [x0, y0, x1, y1], stats);
        return;
    }
    let mut k = 0;
    if full {
        for py in y0..=y1 {
            if let Some(s) = spans.get_mut(k) {
                *s = Span {
                    y: py,
                    x: x0,
                    n: (x1 - x0 + 1) as u32,
                };
                k += 1;
            }
        }
    } else {
        // Horizontal edges (a = 0) only restrict the rows; the others bound
        // the columns from below (a > 0) or above (a < 0).
        let (mut ya, mut yb) = (i64::from(y0), i64::from(y1));
        let mut lo_e = [[0i64; 3]; 3];
        let mut hi_e = [[0i64; 3]; 3];
        let (mut nl, mut nh) = (0usize, 0usize);
        for i in 0..3 {
            let e = tri.edge(i);
            let [a, b, c] = e;
            if a == 0 {
                if b > 0 {
                    ya = ya.max((-c + b - 1).div_euclid(b));
                } else if b < 0 {
                    yb = yb.min(c.div_euclid(-b));
                } else if c < 0 {
                    return;
                }
            } else if a > 0 {
                lo_e[nl] = e;
                nl += 1;
            } else {
                hi_e[nh] = e;
                nh += 1;
            }
        }
        if ya > yb {
            return;
        }
        // Within [y0, y1] after the clamps above.
        let (ya, yb) = (ya as i32, yb as i32);
        let wl = |i: usize| Walker::for_edge(lo_e[i], ya);
        let wh = |i: usize| Walker::for_edge(hi_e[i], ya);
        match (nl, nh) {
            (1, 2) => walk(
                &mut [wl(0)],
                &mut [wh(0), wh(1)],
                x0,
                x1,
                ya,
                yb,
                spans,
                &mut k,
            ),
            (2, 1) => walk(
                &mut [wl(0), wl(1)],
                &mut [wh(0)],
                x0,
                x1,
                ya,
                yb,
                spans,
                &mut k,
            ),
            (1, 1) => walk(&mut [wl(0)], &mut [wh(0)], x0, x1, ya, yb, spans, &mut k),
            _ => {
                // Not reachable for a non-degenerate triangle; handled
                // generally anyway.
                let mut l3 = [0, 1, 2].map(wl);
                let mut h3 = [0, 1, 2].map(wh);
                for py in ya..=yb {
                    let mut lo = i64::from(x0);
                    let mut hi = i64::from(x1);
                    for w in &l3[..nl] {
                        lo = lo.max(w.q);
                    }
                    for w in &h3[..nh] {
                        hi = hi.min(w.q);
                    }
                    if lo <= hi {
                        if let Some(s) = spans.get_mut(k) {
                            *s = Span {
                                y: py,
                                x: lo as i32,
                                n: (hi - lo + 1) as u32,
                            };
                            k += 1;
                        }
                    }
                    l3[..nl].iter_mut().for_each(Walker::step);
                    h3[..nh].iter_mut().for_each(Walker::step);
                }
            }
        }
    }
    let spans = &spans[..k];
    stats.shaded += spans.iter().map(|s| u64::from(s.n)).sum::<u64>();
    tri_spans(t, d, tri, extra, planes, spans, stats);
}

/// A small affine triangle through the coverage-mask kernel (see
/// [`crate::simd::SmallTri`]) over the region `[x0, y0, x1, y1]` (inside
/// its bounding box and the tile).
fn small_tri(t: &mut TileTarget<'_>, d: &DrawCtx, tri: &TriSetup, r: [i32; 4], stats: &mut Stats) {
    let [x0, y0, x1, y1] = r;
    // FLAG_SMALL: the value at (x0, y0) (inside the bounding box) and the
    // steps fit i32, so the truncating conversions are exact.
    let e = |i: usize| {
        let [a, b, c] = tri.edge(i);
        [
            (a * i64::from(x0) + b * i64::from(y0) + c) as i32,
            a as i32,
            b as i32,
        ]
    };
    let bb = tri.bbox();
    let s = SmallTri {
        edges: [e(0), e(1), e(2)],
        x0,
        y0,
        x1,
        y1,
        diffuse: tri.diffuse,
        z: tri.z,
        rx: bb[0],
        ry: bb[1],
        func: d.z_func(),
        write: d.z_write(),
        and_mask: d.and_mask(),
    };
    let mut band = t.band_rows();
    let (passed, covered) = crate::simd::small_tri_depth24(d.simd, &mut band, &s);
    stats.written += u64::from(passed);
    stats.passed += u64::from(passed);
    stats.shaded += u64::from(covered);
}

/// Rasterizes line `l` in one tile. Inlined into both callers (the tile
/// loop and the pixel-watch replay): as an outlined function called from
/// two places it ran about 1.5× the instructions on W6.
#[inline(always)]
fn raster_line(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    tile: &Tile,
    chunk: &ChunkOut,
    l: &LineSetup,
    stats: &mut Stats,
) {
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
    let mut m = Walker::with_small_step(num0, step, den);
    let (r0, r1) = (l.rhw[0], l.rhw[1]);
    let affine = r0 == r1;
    let inv_du = 1.0 / f64::from(l.du);
    let direct = d.direct_color32();
    let fixed = l.fixed;
    let k0 = p0 - l.p_lo;
    // Written out, not `array::map` (see `pixel::fixed_start`).
    let at = |ch: usize| l.c_lo[ch].wrapping_add(l.c_step[ch].wrapping_mul(k0));
    let cstart = [at(0), at(1), at(2), at(3)];
    let cstep = l.c_step;
    if let (true, Some(and_mask)) = (fixed, direct) {
        // The common case (W6): fixed-point colour written straight into
        // a 32-bit target.
        let args = ([cstart, cstep], [p0, p1], [nlo, nhi], and_mask);
        let written = if l.x_major {
            line_direct32::<true>(t, m, args)
        } else {
            line_direct32::<false>(t, m, args)
        };
        // No test can reject a pixel here: each one covered was written.
        stats.written += written;
        stats.passed += written;
        stats.shaded += written;
        return;
    }
    let full = d
        .shade
        .is_some()
        .then(|| chunk.attrs.get(crate::int::usize_from(l.attrs)..))
        .flatten();
    if let Some(attrs) = full {
        // Textured / fogged lines: the full path per pixel.
        let param =
            |p: i32| ((f64::from(p) * 256.0 - f64::from(l.u0)) * inv_du).clamp(0.0, 1.0) as f32;
        for p in p0..=p1 {
            let mi = m.q;
            m.step();
            if mi < i64::from(nlo) || mi > i64::from(nhi) {
                continue;
            }
            // In range of an i32 tile coordinate after the check above.
            let mi = mi as i32;
            let pxy = if l.x_major { (p, mi) } else { (mi, p) };
            stats.shaded += 1;
            let q = p & !1;
            crate::shade::line_pixel_full(
                t,
                d,
                l,
                attrs,
                l.x_major,
                pxy,
                (param(p), [param(q), param(q + 1)]),
                stats,
            );
        }
        return;
    }
    let inv_r0 = 1.0 / r0;
    let ca = l.diffuse[0].map(|c| f32::from(c) * r0);
    let cb = l.diffuse[1].map(|c| f32::from(c) * r1);
    let sa = l.specular[0].map(|c| f32::from(c) * r0);
    let sb = l.specular[1].map(|c| f32::from(c) * r1);
    for p in p0..=p1 {
        let mi = m.q;
        m.step();
        if mi < i64::from(nlo) || mi > i64::from(nhi) {
            continue;
        }
        // In range of an i32 tile coordinate after the check above.
        let mi = mi as i32;
        let (px, py) = if l.x_major { (p, mi) } else { (mi, p) };
        stats.shaded += 1;
        let tt = ((f64::from(p) * 256.0 - f64::from(l.u0)) * inv_du).clamp(0.0, 1.0) as f32;
        let r = r0 + (r1 - r0) * tt;
        // With equal rhw at both ends r == r0 exactly, so the shortcut gives
        // the same value as the division.
        let inv = if affine { inv_r0 } else { 1.0 / r };
        let mut c = [0i32; 4];
        if fixed {
            let k = p - p0;
            for (ch, out) in c.iter_mut().enumerate() {
                let v = cstart[ch].wrapping_add(cstep[ch].wrapping_mul(k));
                *out = i32::from(crate::int::clamp_u8(v >> 16));
            }
        } else {
            for (ch, out) in c.iter_mut().enumerate() {
                *out = crate::int::channel_from_f32((ca[ch] + (cb[ch] - ca[ch]) * tt) * inv);
            }
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

/// The pixels `p0..=p1` (major axis: x when `X_MAJOR`) of a line with
/// fixed-point colour (`c[0]` at `p0`, stepping `c[1]`) written straight
/// into a 32-bit target, the minor coordinate from `m`, skipping pixels
/// whose minor coordinate is outside `n` (the tile). Returns the pixels
/// written.
///
/// The minor coordinate `floor((num + step·k) / den)` is monotonic in
/// `k`, so the pixels inside `n` are one run: the loop skips to its start,
/// then writes until it ends, stepping the pixel's byte offset (one
/// pixel along the major axis plus the walker's move across it) instead
/// of recomputing it, and packing the colour once per pixel. The same
/// pixels and bytes as testing every pixel against `n`.
///
/// Kept out of line: inlined into the tile loop, its register allocation
/// followed unrelated changes there (callgrind on W6 moved by +4 % and
/// +27 % with changes elsewhere in `raster_tile`); on its own it is one
/// call per line and tile. One instantiation per major axis, so the pixel
/// loop does not choose its steps per pixel.
#[inline(never)]
fn line_direct32<const X_MAJOR: bool>(
    t: &mut TileTarget<'_>,
    mut m: Walker,
    (c, [p0, p1], [nlo, nhi], and_mask): ([[i32; 4]; 2], [i32; 2], [i32; 2], u32),
) -> u64 {
    let [cstart, cstep] = c;
    // `q` is inside `n` exactly when `q − nlo`, unsigned, is at most this.
    let width = i64::from(nhi).wrapping_sub(i64::from(nlo)) as u64;
    let outside = |q: i64| q.wrapping_sub(i64::from(nlo)) as u64 > width;
    let mut p = p0;
    while p <= p1 && outside(m.q) {
        m.step();
        p += 1;
    }
    if p > p1 {
        return 0;
    }
    let k = p - p0;
    let mut v = [
        cstart[0].wrapping_add(cstep[0].wrapping_mul(k)),
        cstart[1].wrapping_add(cstep[1].wrapping_mul(k)),
        cstart[2].wrapping_add(cstep[2].wrapping_mul(k)),
        cstart[3].wrapping_add(cstep[3].wrapping_mul(k)),
    ];
    // Inside `n` after the loop above: an i32 tile coordinate.
    let mi = m.q as i32;
    let (px, py) = if X_MAJOR { (p, mi) } else { (mi, p) };
    let pitch = isize::try_from(t.color_pitch).unwrap_or(isize::MAX);
    let (along, across) = if X_MAJOR { (4, pitch) } else { (pitch, 4) };
    // Within the band (a tile row ≥ `y0`, a column ≥ 0): fits isize.
    let mut at = (crate::int::usize_from_i32(py - t.y0) * t.color_pitch
        + crate::int::usize_from_i32(px) * 4) as isize;
    let mut written = 0u64;
    for _ in p..p1 + 1 {
        if outside(m.q) {
            break;
        }
        if let Some(px4) = t
            .color
            .get_mut(at as usize..)
            .and_then(<[u8]>::first_chunk_mut::<4>)
        {
            *px4 = (crate::simd::pack_pixel_sse2(&v, and_mask)).to_le_bytes();
            written += 1;
        }
        let dq = m.step_delta() as isize;
        at = at.wrapping_add(along).wrapping_add(dq.wrapping_mul(across));
        for (a, s) in v.iter_mut().zip(cstep) {
            *a = a.wrapping_add(s);
        }
    }
    written
}

/// Rasterizes point `p` in one tile (inlined into both callers, as
/// [`raster_line`]).
#[inline(always)]
fn raster_point(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    tile: &Tile,
    chunk: &ChunkOut,
    p: &PointSetup,
    stats: &mut Stats,
) {
    let [bx0, by0, bx1, by1] = p.bbox.map(i32::from);
    let (x0, y0) = (bx0.max(tile.x0), by0.max(tile.y0));
    let (x1, y1) = (bx1.min(tile.x1), by1.min(tile.y1));
    if x0 > x1 || y0 > y1 {
        return;
    }
    // Both within the tile: the square's pixels in this tile.
    stats.shaded += ((x1 - x0 + 1) as u64) * ((y1 - y0 + 1) as u64);
    if d.shade.is_some() {
        if let Some(attrs) = chunk.attrs.get(crate::int::usize_from(p.attrs)..) {
            crate::shade::point_full(t, d, p, attrs, [x0, y0, x1, y1], stats);
            return;
        }
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
    for py in y0..=y1 {
        for px in x0..=x1 {
            (d.frag)(t, d, px, py, c, depth, false, stats);
        }
    }
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
            [256 * 1000, 256 * 3, -1],
            [-256 * 9999, -256 * 7, 123_456_789],
        ];
        for e in edges {
            let mut w = Walker::for_edge(e, -20);
            for y in -20..40 {
                for x in -100..=100i64 {
                    let inside = e[0] * x + e[1] * i64::from(y) + e[2] >= 0;
                    let bound = if e[0] > 0 { x >= w.q } else { x <= w.q };
                    assert_eq!(inside, bound, "edge {e:?} at ({x}, {y})");
                }
                w.step();
            }
        }
    }
}
