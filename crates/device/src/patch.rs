//! High-order patches: basis evaluation and tessellation to triangles.
//!
//! In: control vertices (raw bytes of a [`VertexLayout`]), the patch
//! description (D3DRECTPATCH_INFO / D3DTRIPATCH_INFO: basis, degree, size),
//! per-edge segment counts and the edge style. Out: generated vertices (same
//! layout) and a triangle list of `u32` indices, drawn through the pipeline
//! by the executor. Guarantees: sizes are validated against the basis and
//! degree before anything is allocated; segment counts are clamped to
//! `1..=limits::MAX_PATCH_SEGMENTS`, so output size is bounded.
//!
//! Rect patches: control point (i, j) (i across the width = u, j down the
//! height = v). Bases:
//! * Bézier: `Width = k·degree + 1` (k spans sharing their end points);
//!   Bernstein polynomials on each span;
//! * uniform B-spline: `Width ≥ degree + 1`, `Width − degree` spans, uniform
//!   integer knots (the surface does not pass through the corner points);
//! * Catmull-Rom: cubic only, `Width ≥ 4`, `Width − 3` spans, interpolating
//!   the inner control points.
//!   Linear degree is piecewise-linear interpolation for Bézier and B-spline.
//!
//! Tri patches are Bézier triangles of the given degree with
//! `(d+1)(d+2)/2` control points in the order documented at
//! [`tri_index`].
//!
//! Segments: per-edge counts (rect: `[top v=0, right u=1, bottom v=1,
//! left u=0]`; tri: `[v=0 from W to U, w=0 from U to V, u=0 from W to V]`
//! with U, V, W the corners where u, v, w = 1 − u − v are 1 — the order
//! of the tri edges is this module's, UNCONFIRMED against the DDK) come
//! from the record (RTPATCHFLAG_HASSEGS) or D3DRS_PATCHSEGMENTS. Each edge
//! is cut with its own count. When opposite edges agree (rect) or all
//! three do (tri) that is the regular grid. Otherwise the inside is the
//! regular grid of the largest counts without its boundary (rect: the
//! larger count of each pair of opposite edges; tri: the largest), and a
//! ring of triangles stitches each edge to the outermost inside row,
//! walking both by parameter (`Stitcher`); with no inside point the two
//! many-segment edges of a rect are stitched to each other, and a tri's
//! edges are fanned around its centre. Two patches that share an edge
//! with the same count therefore share its vertices: no crack.
//! D3DPATCHEDGE_DISCRETE rounds the count up to an integer n and spaces the
//! parameter uniformly (k/n); D3DPATCHEDGE_CONTINUOUS keeps the fractional
//! count s, places the parameter at k/s for k < n and ends with a shorter
//! last segment (at the edge's end as listed above).

use crate::error::{DeviceError, Result};
use crate::limits;
use softhal_pipeline::{DeclType, PositionKind, VertexLayout};

/// D3DBASIS_BEZIER.
pub const BASIS_BEZIER: u32 = 0;
/// D3DBASIS_BSPLINE.
pub const BASIS_BSPLINE: u32 = 1;
/// D3DBASIS_CATMULL_ROM.
pub const BASIS_CATMULL_ROM: u32 = 2;

fn check_degree(degree: u32) -> Result<()> {
    if matches!(degree, 1 | 2 | 3 | 5) {
        Ok(())
    } else {
        Err(DeviceError::BadValue {
            what: "patch Degree",
            value: degree,
        })
    }
}

/// Number of spans of `n` control points for a basis and degree, or an
/// error if `n` does not fit the basis.
pub fn spans(basis: u32, degree: u32, n: u32) -> Result<u32> {
    check_degree(degree)?;
    let bad = || DeviceError::BadValue {
        what: "patch control-point count",
        value: n,
    };
    // degree ≥ 1 (check_degree), so n > degree makes n − 1 and n − degree
    // positive and the division defined.
    match basis {
        BASIS_BEZIER => {
            let inner = n.checked_sub(1).filter(|_| n > degree).ok_or_else(bad)?;
            if inner.checked_rem(degree) != Some(0) {
                return Err(bad());
            }
            inner.checked_div(degree).ok_or_else(bad)
        }
        BASIS_BSPLINE => n.checked_sub(degree).filter(|_| n > degree).ok_or_else(bad),
        BASIS_CATMULL_ROM => {
            if degree != 3 {
                return Err(DeviceError::BadValue {
                    what: "Catmull-Rom degree (cubic only)",
                    value: degree,
                });
            }
            n.checked_sub(3).filter(|&s| s >= 1).ok_or_else(bad)
        }
        _ => Err(DeviceError::BadValue {
            what: "patch Basis",
            value: basis,
        }),
    }
}

fn binomial(n: u32, k: u32) -> f32 {
    let (n, mut r) = (f64::from(n), 1.0f64);
    for i in 0..k {
        let i = f64::from(i);
        r = r * (n - i) / (i + 1.0);
    }
    r as f32
}

/// Uniform B-spline basis of degree `d` on one span at local `u`: the
/// `d + 1` weights of the span's control points.
fn bspline_weights(d: u32, u: f32) -> Vec<f32> {
    // d is a checked degree (1, 2, 3 or 5): the sizes below are tiny.
    let d = d as usize;
    let x = d as f32 + u;
    // N[j] for j in 0..=2d, degree 0: only the span [d, d+1) is 1.
    let mut n: Vec<f32> = (0..=d.saturating_mul(2))
        .map(|j| if j == d { 1.0 } else { 0.0 })
        .collect();
    for p in 1..=d {
        let pf = p as f32;
        let mut next = vec![0.0f32; n.len()];
        for (j, pair) in n.windows(2).enumerate() {
            let jf = j as f32;
            let a = (x - jf) / pf * pair.first().copied().unwrap_or(0.0);
            let b = (jf + pf + 1.0 - x) / pf * pair.get(1).copied().unwrap_or(0.0);
            if let Some(slot) = next.get_mut(j) {
                *slot = a + b;
            }
        }
        n = next;
    }
    n.truncate(d.saturating_add(1));
    n
}

/// Weights of all `n` control points of one row at parameter `t ∈ [0, 1]`.
pub fn curve_weights(basis: u32, degree: u32, n: u32, t: f32) -> Result<Vec<f32>> {
    let spans = spans(basis, degree, n)?;
    let t = t.clamp(0.0, 1.0);
    let x = t * spans as f32;
    // spans ≥ 1; s < spans, so every index put below is < n. A saturated
    // index would lie outside `w` and be ignored.
    let s = (x.floor() as u32).min(spans.saturating_sub(1));
    let u = x - s as f32;
    let mut w = vec![0.0f32; n as usize];
    let mut put = |i: u32, v: f32| {
        if let Some(slot) = w.get_mut(i as usize) {
            *slot += v;
        }
    };
    match basis {
        BASIS_BEZIER => {
            let first = s.saturating_mul(degree);
            for i in 0..=degree {
                let b = binomial(degree, i)
                    * u.powi(i as i32)
                    * (1.0 - u).powi(degree.saturating_sub(i) as i32);
                put(first.saturating_add(i), b);
            }
        }
        BASIS_BSPLINE => {
            for (v, i) in bspline_weights(degree, u).into_iter().zip(s..) {
                put(i, v);
            }
        }
        _ => {
            let (u2, u3) = (u * u, u * u * u);
            put(s, 0.5 * (-u3 + 2.0 * u2 - u));
            put(s.saturating_add(1), 0.5 * (3.0 * u3 - 5.0 * u2 + 2.0));
            put(s.saturating_add(2), 0.5 * (-3.0 * u3 + 4.0 * u2 + u));
            put(s.saturating_add(3), 0.5 * (u3 - u2));
        }
    }
    Ok(w)
}

/// Parameter values along one direction for segment count `segs` and edge
/// style (0 discrete, 1 continuous): `n + 1` values from 0 to 1.
pub fn params(segs: f32, continuous: bool) -> Vec<f32> {
    let max = limits::MAX_PATCH_SEGMENTS as f32;
    let s = if segs.is_finite() {
        segs.clamp(1.0, max)
    } else {
        1.0
    };
    let n = s.ceil() as u32;
    (0..=n)
        .map(|k| {
            if k == n {
                1.0
            } else if continuous {
                k as f32 / s
            } else {
                k as f32 / n as f32
            }
        })
        .collect()
}

/// Float fields (offset, count) of a layout, for interpolation.
fn float_fields(l: &VertexLayout) -> Vec<(u32, u32)> {
    let mut f = vec![(
        l.position_offset,
        if l.position == PositionKind::Xyz {
            3
        } else {
            4
        },
    )];
    if let Some((o, n)) = l.blend_weights {
        f.push((o, u32::from(n)));
    }
    if let Some(o) = l.normal {
        f.push((o, 3));
    }
    if let Some(o) = l.point_size {
        f.push((o, 1));
    }
    for t in l.texcoords.iter().flatten() {
        f.push((t.offset, u32::from(t.components)));
    }
    // Colours of a float type (a declaration's) blend as floats.
    for (o, t) in [(l.diffuse, l.diffuse_type), (l.specular, l.specular_type)] {
        let n = match t {
            DeclType::Float1 => 1,
            DeclType::Float2 => 2,
            DeclType::Float3 => 3,
            DeclType::Float4 => 4,
            _ => continue,
        };
        if let Some(o) = o {
            f.push((o, n));
        }
    }
    f
}

/// Colours blended byte by byte: D3DCOLOR and the byte types. Colours of
/// the short, packed and half types keep the first control point's value.
fn byte_colours(l: &VertexLayout) -> impl Iterator<Item = u32> {
    [(l.diffuse, l.diffuse_type), (l.specular, l.specular_type)]
        .into_iter()
        .filter(|(_, t)| matches!(t, DeclType::D3dColor | DeclType::Ubyte4 | DeclType::Ubyte4n))
        .filter_map(|(o, _)| o)
}

fn rd(b: &[u8], o: usize) -> f32 {
    f32::from_bits(b.get(o..).map_or(0, crate::le_u32))
}

/// Writes the weighted combination of `ctrl` vertices into `out`.
fn blend_vertex(l: &VertexLayout, ctrl: &[&[u8]], w: &[f32], out: &mut [u8]) {
    if let Some(first) = ctrl.first() {
        let n = out.len().min(first.len());
        if let (Some(dst), Some(src)) = (out.get_mut(..n), first.get(..n)) {
            dst.copy_from_slice(src);
        }
    }
    // Offsets saturate: a saturated offset reads 0 and writes nothing.
    for (o, count) in float_fields(l) {
        for c in 0..count as usize {
            let at = (o as usize).saturating_add(c.saturating_mul(4));
            let v: f32 = ctrl
                .iter()
                .zip(w)
                .filter(|(_, &wi)| wi != 0.0)
                .map(|(cv, &wi)| wi * rd(cv, at))
                .sum();
            if let Some(d) = out.get_mut(at..at.saturating_add(4)) {
                d.copy_from_slice(&v.to_le_bytes());
            }
        }
    }
    for o in byte_colours(l) {
        for byte in 0..4usize {
            let at = (o as usize).saturating_add(byte);
            let v: f32 = ctrl
                .iter()
                .zip(w)
                .map(|(cv, &wi)| wi * f32::from(cv.get(at).copied().unwrap_or(0)))
                .sum();
            if let Some(d) = out.get_mut(at) {
                *d = v.round().clamp(0.0, 255.0) as u8;
            }
        }
    }
}

/// Generated geometry: vertices in the control layout, triangle indices.
#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    /// Vertex bytes (`stride` each).
    pub vertices: Vec<u8>,
    /// Triangle list indices.
    pub indices: Vec<u32>,
    /// The (u, v) parameter of each vertex.
    pub params: Vec<(f32, f32)>,
}

/// Tessellates a rect patch. `ctrl` holds `width × height` control vertices
/// (row-major, `layout.stride` bytes each).
#[allow(clippy::too_many_arguments)]
pub fn tessellate_rect(
    layout: &VertexLayout,
    ctrl: &[u8],
    width: u32,
    height: u32,
    basis: u32,
    degree: u32,
    segs: [f32; 4],
    continuous: bool,
) -> Result<Mesh> {
    spans(basis, degree, width)?;
    spans(basis, degree, height)?;
    let stride = layout.stride as usize;
    let count = control_bytes(
        ctrl,
        (width as usize).saturating_mul(height as usize),
        stride,
    )?;
    // At most MAX_PATCH_SEGMENTS + 1 parameters each way and per edge.
    let edge = segs.map(|s| params(s, continuous));
    let [top, right, bottom, left] = &edge;
    let us = params(segs[0].max(segs[2]), continuous);
    let vs = params(segs[1].max(segs[3]), continuous);
    let cv: Vec<&[u8]> = ctrl.chunks_exact(stride.max(1)).take(count).collect();
    let weights = |u: f32, v: f32| -> Result<Vec<f32>> {
        let wu = curve_weights(basis, degree, width, u)?;
        let wv = curve_weights(basis, degree, height, v)?;
        // Control point c = row × width + column weighs wu[column] × wv[row].
        Ok(wv
            .iter()
            .flat_map(|&b| wu.iter().map(move |&a| a * b))
            .take(count)
            .collect())
    };
    if top == bottom && right == left {
        // Opposite edges agree: the regular grid gives every edge its own
        // count.
        let mut mesh = Mesh {
            vertices: Vec::new(),
            indices: Vec::new(),
            params: Vec::new(),
        };
        for &v in &vs {
            for &u in &us {
                mesh.params.push((u, v));
            }
        }
        evaluate(layout, &cv, &mut mesh, |(u, v)| weights(u, v))?;
        let nu = u32::try_from(us.len()).map_err(|_| too_many_vertices())?;
        let nv = u32::try_from(vs.len()).map_err(|_| too_many_vertices())?;
        mesh.indices = grid_indices(nu, nv).ok_or(too_many_vertices())?;
        return Ok(mesh);
    }
    let mut m = Stitcher::default();
    let c00 = m.point(0.0, 0.0);
    let c10 = m.point(1.0, 0.0);
    let c01 = m.point(0.0, 1.0);
    let c11 = m.point(1.0, 1.0);
    let top = m.edge(top, c00, c10, |t| (t, 0.0), |_, t| t);
    let bottom = m.edge(bottom, c01, c11, |t| (t, 1.0), |_, t| t);
    let left = m.edge(left, c00, c01, |t| (0.0, t), |_, t| t);
    let right = m.edge(right, c10, c11, |t| (1.0, t), |_, t| t);
    let (nu, nv) = (us.len().saturating_sub(1), vs.len().saturating_sub(1));
    if nu < 2 || nv < 2 {
        // No interior point: join the two edges that have more than one
        // segment (the others are single segments).
        if nv < 2 {
            m.stitch(&top, &bottom);
        } else {
            m.stitch(&left, &right);
        }
    } else {
        // Interior points (us[i], vs[j]), 0 < i < nu, 0 < j < nv; the
        // regular grid between them, then a ring of triangles joining each
        // edge (its own count) to the outermost interior row or column.
        let mut inner = Vec::new();
        for &v in vs.get(1..nv).unwrap_or_default() {
            for &u in us.get(1..nu).unwrap_or_default() {
                inner.push((m.point(u, v), u, v));
            }
        }
        // nu, nv ≥ 2 here.
        let (iw, ih) = (nu.saturating_sub(1), nv.saturating_sub(1));
        let at = |i: usize, j: usize| {
            inner
                .get(j.saturating_mul(iw).saturating_add(i))
                .copied()
                .unwrap_or((0, 0.0, 0.0))
        };
        for j in 0..ih.saturating_sub(1) {
            for i in 0..iw.saturating_sub(1) {
                let (a, b, c, d) = (
                    at(i, j).0,
                    at(i.saturating_add(1), j).0,
                    at(i, j.saturating_add(1)).0,
                    at(i.saturating_add(1), j.saturating_add(1)).0,
                );
                m.tri(a, b, c);
                m.tri(b, d, c);
            }
        }
        let row =
            |j: usize| -> Vec<(u32, f32)> { (0..iw).map(|i| (at(i, j).0, at(i, j).1)).collect() };
        let col =
            |i: usize| -> Vec<(u32, f32)> { (0..ih).map(|j| (at(i, j).0, at(i, j).2)).collect() };
        m.stitch(&top, &row(0));
        m.stitch(&bottom, &row(ih.saturating_sub(1)));
        m.stitch(&left, &col(0));
        m.stitch(&right, &col(iw.saturating_sub(1)));
    }
    m.finish(layout, &cv, |(u, v)| weights(u, v))
}

/// Blends the vertex of every parameter point of `mesh` (weights from
/// `weights`) into `mesh.vertices`.
fn evaluate(
    layout: &VertexLayout,
    cv: &[&[u8]],
    mesh: &mut Mesh,
    weights: impl Fn((f32, f32)) -> Result<Vec<f32>>,
) -> Result<()> {
    let stride = layout.stride as usize;
    let bytes = mesh
        .params
        .len()
        .checked_mul(stride)
        .ok_or(too_many_vertices())?;
    mesh.vertices = vec![0; bytes];
    for (out, &p) in mesh
        .vertices
        .chunks_exact_mut(stride.max(1))
        .zip(&mesh.params)
    {
        blend_vertex(layout, cv, &weights(p)?, out);
    }
    Ok(())
}

/// Builds a tessellation with per-edge segment counts: parameter points,
/// and triangles all wound like the regular grid's (positive area in
/// (u, v)).
#[derive(Default)]
struct Stitcher {
    params: Vec<(f32, f32)>,
    indices: Vec<u32>,
}

impl Stitcher {
    /// A new point at (u, v); its index.
    fn point(&mut self, u: f32, v: f32) -> u32 {
        self.params.push((u, v));
        // At most a few thousand points (MAX_PATCH_SEGMENTS per edge).
        u32::try_from(self.params.len().saturating_sub(1)).unwrap_or(u32::MAX)
    }

    /// The triangle (a, b, c), turned to the grid's winding; a degenerate
    /// one (zero area in (u, v)) is left out.
    fn tri(&mut self, a: u32, b: u32, c: u32) {
        let p = |i: u32| self.params.get(i as usize).copied().unwrap_or_default();
        let (pa, pb, pc) = (p(a), p(b), p(c));
        let cross = (pb.0 - pa.0) * (pc.1 - pa.1) - (pb.1 - pa.1) * (pc.0 - pa.0);
        if cross > 0.0 {
            self.indices.extend_from_slice(&[a, b, c]);
        } else if cross < 0.0 {
            self.indices.extend_from_slice(&[a, c, b]);
        }
    }

    /// The points of one edge with parameters `ts` (0 to 1), from corner
    /// `first` to corner `last` (shared with the neighbouring edges):
    /// `(index, parameter along the stitch)` where `at(t)` is the point
    /// and `key(point, t)` the parameter.
    fn edge(
        &mut self,
        ts: &[f32],
        first: u32,
        last: u32,
        at: impl Fn(f32) -> (f32, f32),
        key: impl Fn((f32, f32), f32) -> f32,
    ) -> Vec<(u32, f32)> {
        let n = ts.len().saturating_sub(1);
        let mut out = Vec::with_capacity(ts.len());
        for (k, &t) in ts.iter().enumerate() {
            let i = if k == 0 {
                first
            } else if k == n {
                last
            } else {
                let (u, v) = at(t);
                self.point(u, v)
            };
            out.push((i, key(at(t), t)));
        }
        out
    }

    /// Triangles joining polyline `a` to polyline `b`, both ordered by
    /// their parameter: walks both, always advancing the one whose next
    /// point has the smaller parameter.
    fn stitch(&mut self, a: &[(u32, f32)], b: &[(u32, f32)]) {
        let (mut i, mut j) = (0usize, 0usize);
        let (la, lb) = (a.len().saturating_sub(1), b.len().saturating_sub(1));
        while i < la || j < lb {
            let (Some(&(ai, _)), Some(&(bj, _))) = (a.get(i), b.get(j)) else {
                return;
            };
            let next_a = a.get(i.saturating_add(1)).filter(|_| i < la);
            let next_b = b.get(j.saturating_add(1)).filter(|_| j < lb);
            match (next_a, next_b) {
                (Some(&(an, ta)), Some(&(_, tb))) if ta <= tb => {
                    self.tri(ai, an, bj);
                    i = i.saturating_add(1);
                }
                (_, Some(&(bn, _))) => {
                    self.tri(ai, bn, bj);
                    j = j.saturating_add(1);
                }
                (Some(&(an, _)), None) => {
                    self.tri(ai, an, bj);
                    i = i.saturating_add(1);
                }
                (None, None) => return,
            }
        }
    }

    /// The mesh: every point evaluated with `weights`.
    fn finish(
        self,
        layout: &VertexLayout,
        cv: &[&[u8]],
        weights: impl Fn((f32, f32)) -> Result<Vec<f32>>,
    ) -> Result<Mesh> {
        let mut mesh = Mesh {
            vertices: Vec::new(),
            indices: self.indices,
            params: self.params,
        };
        evaluate(layout, cv, &mut mesh, weights)?;
        Ok(mesh)
    }
}

/// Checks that `ctrl` holds `count` control vertices of `stride` bytes;
/// returns `count`. (A saturated size never fits.)
fn control_bytes(ctrl: &[u8], count: usize, stride: usize) -> Result<usize> {
    let need = count.saturating_mul(stride);
    if ctrl.len() < need {
        return Err(DeviceError::OutOfRange {
            what: "patch control data",
            value: need as u64,
            limit: ctrl.len() as u64,
        });
    }
    Ok(count)
}

/// A mesh whose vertex or index numbers would not fit (ruled out by
/// MAX_PATCH_SEGMENTS; checked all the same).
fn too_many_vertices() -> DeviceError {
    DeviceError::Limit {
        what: "patch vertices",
        max: u64::from(u32::MAX),
    }
}

/// Triangle-list indices of a row-major grid of `nu × nv` vertices, two
/// triangles per cell; `None` if an index does not fit a `u32`.
fn grid_indices(nu: u32, nv: u32) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for j in 0..nv.saturating_sub(1) {
        for i in 0..nu.saturating_sub(1) {
            let a = j.checked_mul(nu)?.checked_add(i)?;
            let (b, c) = (a.checked_add(1)?, a.checked_add(nu)?);
            let d = c.checked_add(1)?;
            out.extend_from_slice(&[a, b, c, b, d, c]);
        }
    }
    Some(out)
}

/// Index of control point (i, j, k) (i + j + k = d, weights u^i v^j w^k)
/// in a tri patch's control array: rows by i from d down to 0, within a row
/// j from d − i down to 0. Defined for i + j ≤ d (the arithmetic saturates
/// outside that).
pub fn tri_index(d: u32, i: u32, j: u32) -> usize {
    // rows before row i: sizes for i' in (i+1)..=d are (d - i' + 1)
    let before = (i.saturating_add(1)..=d)
        .map(|ip| d.saturating_sub(ip).saturating_add(1))
        .fold(0u32, u32::saturating_add);
    before.saturating_add(d.saturating_sub(i).saturating_sub(j)) as usize
}

/// Control points of a tri patch of degree `d` (saturating; degrees are
/// 1, 2, 3 or 5).
pub fn tri_control_count(d: u32) -> u32 {
    d.saturating_add(1).saturating_mul(d.saturating_add(2)) / 2
}

/// Tessellates a Bézier triangle patch.
pub fn tessellate_tri(
    layout: &VertexLayout,
    ctrl: &[u8],
    degree: u32,
    segs: [f32; 3],
    continuous: bool,
) -> Result<Mesh> {
    check_degree(degree)?;
    let stride = layout.stride as usize;
    let count = control_bytes(ctrl, tri_control_count(degree) as usize, stride)?;
    // At most MAX_PATCH_SEGMENTS + 1 parameters (at least 2).
    let edge = segs.map(|s| params(s, continuous));
    let ps = params(segs[0].max(segs[1]).max(segs[2]), continuous);
    let n = ps.len().saturating_sub(1);
    let cv: Vec<&[u8]> = ctrl.chunks_exact(stride.max(1)).take(count).collect();
    let weights = |(u, v): (f32, f32)| -> Result<Vec<f32>> {
        let w3 = (1.0 - u - v).max(0.0);
        let mut w = vec![0.0f32; count];
        // i + j + k = degree: the subtractions cannot go below 0.
        for i in 0..=degree {
            let rest = degree.saturating_sub(i);
            for j in 0..=rest {
                let k = rest.saturating_sub(j);
                let coef = binomial(degree, i) * binomial(rest, j);
                let val = coef * u.powi(i as i32) * v.powi(j as i32) * w3.powi(k as i32);
                if let Some(slot) = w.get_mut(tri_index(degree, i, j)) {
                    *slot = val;
                }
            }
        }
        Ok(w)
    };
    if edge.iter().all(|e| *e == ps) {
        // Every edge has the count of the grid: the regular triangular grid.
        let mut mesh = Mesh {
            vertices: Vec::new(),
            indices: Vec::new(),
            params: Vec::new(),
        };
        let mut row_start = Vec::new();
        for a in 0..=n {
            row_start.push(mesh.params.len() as u32);
            for b in 0..=n.saturating_sub(a) {
                let u = ps.get(a).copied().unwrap_or(1.0);
                let v = ps.get(b).copied().unwrap_or(1.0);
                let (u, v) = if u + v > 1.0 { (u, 1.0 - u) } else { (u, v) };
                mesh.params.push((u, v));
            }
        }
        evaluate(layout, &cv, &mut mesh, weights)?;
        mesh.indices = tri_indices(&row_start).ok_or(too_many_vertices())?;
        return Ok(mesh);
    }
    let mut m = Stitcher::default();
    let cw = m.point(0.0, 0.0);
    let cu = m.point(1.0, 0.0);
    let cv_ = m.point(0.0, 1.0);
    let [e0, e1, e2] = &edge;
    // Edge 0: v = 0 from W to U (by u); edge 1: w = 0 from U to V (by v);
    // edge 2: u = 0 from W to V (by v).
    let e0 = m.edge(e0, cw, cu, |t| (t, 0.0), |_, t| t);
    let e1 = m.edge(e1, cu, cv_, |t| (1.0 - t, t), |_, t| t);
    let e2 = m.edge(e2, cw, cv_, |t| (0.0, t), |_, t| t);
    if n < 3 {
        // No interior point: a fan of every edge segment around the
        // centre.
        let c = m.point(1.0 / 3.0, 1.0 / 3.0);
        for e in [&e0, &e1, &e2] {
            for w in e.windows(2) {
                if let [(a, _), (b, _)] = w {
                    m.tri(*a, *b, c);
                }
            }
        }
    } else {
        // Interior points (ps[a], ps[b]), a, b ≥ 1, a + b ≤ n − 1; the
        // regular grid between them, then a ring joining each edge (its
        // own count) to the outermost interior points.
        let mut inner = std::collections::BTreeMap::new();
        for a in 1..n {
            for b in 1..n.saturating_sub(a) {
                let (u, v) = (
                    ps.get(a).copied().unwrap_or(0.0),
                    ps.get(b).copied().unwrap_or(0.0),
                );
                inner.insert((a, b), (m.point(u, v), u, v));
            }
        }
        let at = |a: usize, b: usize| inner.get(&(a, b)).copied();
        for a in 1..n {
            for b in 1..n {
                if let (Some(p), Some(q), Some(r)) = (
                    at(a, b),
                    at(a.saturating_add(1), b),
                    at(a, b.saturating_add(1)),
                ) {
                    m.tri(p.0, q.0, r.0);
                    if let Some(d) = at(a.saturating_add(1), b.saturating_add(1)) {
                        m.tri(q.0, d.0, r.0);
                    }
                }
            }
        }
        // n ≥ 3 here.
        let last = n.saturating_sub(2);
        let side0: Vec<(u32, f32)> = (1..=last)
            .filter_map(|a| at(a, 1))
            .map(|p| (p.0, p.1))
            .collect();
        let side1: Vec<(u32, f32)> = (1..=last)
            .filter_map(|b| at(n.saturating_sub(1).saturating_sub(b), b))
            .map(|p| (p.0, p.2))
            .collect();
        let side2: Vec<(u32, f32)> = (1..=last)
            .filter_map(|b| at(1, b))
            .map(|p| (p.0, p.2))
            .collect();
        m.stitch(&e0, &side0);
        m.stitch(&e1, &side1);
        m.stitch(&e2, &side2);
    }
    m.finish(layout, &cv, weights)
}

/// Triangle-list indices of a triangular grid whose rows (of n + 1, n, …,
/// 1 vertices) start at `row_start`; `None` if an index does not fit a
/// `u32`.
fn tri_indices(row_start: &[u32]) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    // Row a has len1 + 1 points and row a + 1 has len1, for len1 = n − a.
    for (rows, len1) in row_start.windows(2).zip((1..row_start.len()).rev()) {
        let (r0, r1) = (*rows.first()?, *rows.get(1)?);
        let len1 = u32::try_from(len1).ok()?;
        for b in 0..len1 {
            let (p, q) = (r0.checked_add(b)?, r1.checked_add(b)?);
            let p1 = p.checked_add(1)?;
            out.extend_from_slice(&[p, p1, q]);
            if b.checked_add(1)? < len1 {
                out.extend_from_slice(&[p1, q.checked_add(1)?, q]);
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_partition_unity() {
        for (basis, deg, n) in [
            (0, 3, 4),
            (0, 3, 7),
            (1, 3, 6),
            (1, 5, 8),
            (2, 3, 5),
            (0, 1, 3),
            (1, 2, 4),
        ] {
            for k in 0..=20 {
                let w = curve_weights(basis, deg, n, k as f32 / 20.0).unwrap();
                let s: f32 = w.iter().sum();
                assert!((s - 1.0).abs() < 1e-5, "{basis} {deg} {n}: {s}");
            }
        }
        assert!(spans(0, 3, 5).is_err());
        assert!(spans(2, 2, 5).is_err());
        assert!(spans(3, 3, 5).is_err());
        assert!(spans(0, 4, 5).is_err());
    }

    #[test]
    fn edge_styles() {
        assert_eq!(params(2.0, false), vec![0.0, 0.5, 1.0]);
        assert_eq!(params(2.5, false).len(), 4);
        let c = params(2.5, true);
        assert_eq!(c, vec![0.0, 0.4, 0.8, 1.0]);
        assert_eq!(params(f32::NAN, false), vec![0.0, 1.0]);
        assert_eq!(
            params(1e9, false).len() as u32,
            limits::MAX_PATCH_SEGMENTS + 1
        );
    }
}
