//! Primitive assembly and clipping: input primitives → set-up records.
//!
//! *Input*: a range of input primitives of a [`DrawCall`]. *Output*: a
//! [`ChunkOut`] with the rasterizer primitives they produce, in order.
//!
//! Steps per primitive: fetch its vertices through the (bounds-checked)
//! indices (fixed function: `vertex::fetch` per vertex; a vertex shader:
//! [`process_range_shaded`] shades the batch's vertices first) → drop it if a vertex is missing or a position is NaN/±Inf →
//! clip → project (untransformed) → set up.
//!
//! Clipping:
//! * untransformed vertices are clipped in homogeneous clip space against
//!   `0 ≤ z ≤ w` and the enabled user planes when CLIPPING is on, and
//!   always against the guard band (so that every projected coordinate fits
//!   the fixed-point rasterizer); −w ≤ x, y ≤ w is enforced by the raster
//!   rectangle (viewport ∩ render target ∩ scissor) instead of geometric
//!   clipping, which gives the same pixels;
//! * pre-transformed (XYZRHW) vertices are used as given (an rhw of 0
//!   reads as 1, see [`crate::vertex`]). A primitive with a vertex whose
//!   rhw, x, y or z is not finite is dropped. With CLIPPING on one reaching
//!   outside `0 ≤ z ≤ 1` is clipped against the near and far planes (the
//!   device reports D3DPMISCCAPS_CLIPTLVERTS), and one reaching outside the
//!   guard band is clipped against it; both in homogeneous screen space
//!   (`(x, y, z, 1)/rhw`, attributes interpolated perspective-correctly).
//!   One with a negative rhw that would need clipping is dropped, and so
//!   is a point outside (points are not clipped). User clip planes do not
//!   apply to pre-transformed vertices.
//! * points are not clipped, only accepted or rejected whole.
//!
//! A clipped polygon is drawn as a fan of triangles (solid) or, in point and
//! wireframe fill modes, as its vertices / outline (culled by the polygon's
//! orientation).

use crate::limits::{self, GUARD_BAND_MAX, GUARD_BAND_MIN, MAX_CLIP_VERTICES};
use crate::setup::{self, ChunkOut, SetupCtx};
use crate::state::{CullMode, FillMode, Viewport};
use crate::vertex::shader::ShaderStage;
use crate::vertex::{fetch, fetch_screen, DrawCall, Vertex, VertexStage};

/// Per-draw constants of the geometry stage.
#[derive(Debug, Clone)]
pub(crate) struct GeometryCtx {
    /// Vertex stage constants.
    pub vs: VertexStage,
    /// Set-up constants.
    pub setup: SetupCtx,
    /// Viewport (untransformed only).
    pub viewport: Viewport,
    /// Near/far and user-plane clipping enabled.
    pub clipping: bool,
    /// The specular alpha carries a fog factor: it stays Gouraud under
    /// flat shading.
    pub fog_alpha: bool,
    /// Bit *s*: generic varying *s* is flat (the draw's
    /// [`crate::varying::Varyings::flat_mask`]; only under flat shading).
    pub flat_varyings: u16,
}

/// A polygon being clipped (fixed capacity, no heap).
#[derive(Clone, Copy)]
struct Poly<const N: usize> {
    v: [Vertex<N>; MAX_CLIP_VERTICES],
    n: usize,
}

impl<const N: usize> Poly<N> {
    fn new(src: &[Vertex<N>]) -> Self {
        let mut v = [src[0]; MAX_CLIP_VERTICES];
        let n = src.len().min(MAX_CLIP_VERTICES);
        v[..n].copy_from_slice(&src[..n]);
        Poly { v, n }
    }
    fn verts(&self) -> &[Vertex<N>] {
        &self.v[..self.n]
    }
}

fn lerp_vertex<const N: usize>(a: &Vertex<N>, b: &Vertex<N>, t: f32) -> Vertex<N> {
    let l = |x: f32, y: f32| x + (y - x) * t;
    let mut r = *a;
    for i in 0..4 {
        r.pos[i] = l(a.pos[i], b.pos[i]);
        r.diffuse[i] = l(a.diffuse[i], b.diffuse[i]);
        r.specular[i] = l(a.specular[i], b.specular[i]);
    }
    for i in 0..limits::MAX_USER_CLIP_PLANES {
        r.dist[i] = l(a.dist[i], b.dist[i]);
    }
    r.psize = l(a.psize, b.psize);
    for k in 0..N {
        for i in 0..4 {
            r.varyings[k][i] = l(a.varyings[k][i], b.varyings[k][i]);
        }
    }
    r
}

/// Clips a polygon against `dist(v) ≥ 0` (Sutherland–Hodgman).
fn clip_poly<const N: usize>(p: &Poly<N>, dist: &dyn Fn(&Vertex<N>) -> f32) -> Poly<N> {
    let mut out = Poly { v: p.v, n: 0 };
    let n = p.n;
    for i in 0..n {
        let a = &p.v[i];
        let b = &p.v[(i + 1) % n];
        let (da, db) = (dist(a), dist(b));
        if da >= 0.0 && out.n < MAX_CLIP_VERTICES {
            out.v[out.n] = *a;
            out.n += 1;
        }
        if (da >= 0.0) != (db >= 0.0) && out.n < MAX_CLIP_VERTICES {
            // Always interpolate from the inside vertex, so that an edge
            // shared by two polygons is cut at bit-identical points.
            out.v[out.n] = if da >= 0.0 {
                lerp_vertex(a, b, da / (da - db))
            } else {
                lerp_vertex(b, a, db / (db - da))
            };
            out.n += 1;
        }
    }
    out
}

/// The clip planes of untransformed geometry as distance functions.
/// Returns the number of planes written into `planes`.
fn clip_planes(ctx: &GeometryCtx, planes: &mut [[f32; 5]; 12]) -> usize {
    // Plane k: dist = p[0]·x + p[1]·y + p[2]·z + p[3]·w + p[4]·(user
    // distance index + 1, 0 = none), encoded for a closure below.
    let vp = &ctx.viewport;
    let w = vp.width.max(1) as f32;
    let h = vp.height.max(1) as f32;
    let (vx, vy) = (vp.x as f32, vp.y as f32);
    // Screen x = vx + (1 + x/w)·W/2 ∈ [GB_MIN, GB_MAX].
    let kx_min = (GUARD_BAND_MIN - vx) * 2.0 / w - 1.0;
    let kx_max = (GUARD_BAND_MAX - vx) * 2.0 / w - 1.0;
    // Screen y = vy + (1 − y/w)·H/2.
    let ky_min = 1.0 - (GUARD_BAND_MAX - vy) * 2.0 / h;
    let ky_max = 1.0 - (GUARD_BAND_MIN - vy) * 2.0 / h;
    let mut n = 0;
    let mut push = |p: [f32; 5]| {
        planes[n] = p;
        n += 1;
    };
    push([1.0, 0.0, 0.0, -kx_min, 0.0]);
    push([-1.0, 0.0, 0.0, kx_max, 0.0]);
    push([0.0, 1.0, 0.0, -ky_min, 0.0]);
    push([0.0, -1.0, 0.0, ky_max, 0.0]);
    if ctx.clipping {
        push([0.0, 0.0, 1.0, 0.0, 0.0]);
        push([0.0, 0.0, -1.0, 1.0, 0.0]);
        for i in 0..limits::MAX_USER_CLIP_PLANES {
            if ctx.vs.planes_enabled & (1 << i) != 0 {
                push([0.0, 0.0, 0.0, 0.0, (i + 1) as f32]);
            }
        }
    }
    n
}

#[inline]
fn plane_dist<const N: usize>(p: &[f32; 5], v: &Vertex<N>) -> f32 {
    if p[4] > 0.0 {
        let i = (p[4] as usize)
            .saturating_sub(1)
            .min(limits::MAX_USER_CLIP_PLANES - 1);
        v.dist[i]
    } else {
        p[0] * v.pos[0] + p[1] * v.pos[1] + p[2] * v.pos[2] + p[3] * v.pos[3]
    }
}

/// Projects a clip-space vertex to the screen; `None` if the result is not
/// finite.
fn project<const N: usize>(vp: &Viewport, v: &Vertex<N>) -> Option<Vertex<N>> {
    let rhw = 1.0 / v.pos[3];
    let w = vp.width as f32;
    let h = vp.height as f32;
    let x = vp.x as f32 + (1.0 + v.pos[0] * rhw) * w * 0.5;
    let y = vp.y as f32 + (1.0 - v.pos[1] * rhw) * h * 0.5;
    let max_z = vp.effective_max_z();
    let z = vp.min_z + v.pos[2] * rhw * (max_z - vp.min_z);
    if !(x.is_finite() && y.is_finite() && z.is_finite() && rhw.is_finite()) {
        return None;
    }
    let mut r = *v;
    // Clipping arithmetic may overshoot the guard band by rounding; clamp.
    r.pos = [
        x.clamp(GUARD_BAND_MIN, GUARD_BAND_MAX),
        y.clamp(GUARD_BAND_MIN, GUARD_BAND_MAX),
        z,
        rhw,
    ];
    Some(r)
}

fn finite<const N: usize>(v: &Vertex<N>) -> bool {
    v.pos.iter().all(|c| c.is_finite())
}

fn in_guard_band<const N: usize>(v: &Vertex<N>) -> bool {
    (GUARD_BAND_MIN..=GUARD_BAND_MAX).contains(&v.pos[0])
        && (GUARD_BAND_MIN..=GUARD_BAND_MAX).contains(&v.pos[1])
}

/// Screen-space polygon (from pre-transformed vertices) → homogeneous form
/// so that linear clipping interpolates perspective-correctly.
fn to_homogeneous<const N: usize>(v: &Vertex<N>) -> Vertex<N> {
    let w = 1.0 / v.pos[3];
    let mut r = *v;
    r.pos = [v.pos[0] * w, v.pos[1] * w, v.pos[2] * w, w];
    r
}

fn from_homogeneous<const N: usize>(v: &Vertex<N>) -> Option<Vertex<N>> {
    let rhw = 1.0 / v.pos[3];
    let mut r = *v;
    r.pos = [v.pos[0] * rhw, v.pos[1] * rhw, v.pos[2] * rhw, rhw];
    if !finite(&r) {
        return None;
    }
    r.pos[0] = r.pos[0].clamp(GUARD_BAND_MIN, GUARD_BAND_MAX);
    r.pos[1] = r.pos[1].clamp(GUARD_BAND_MIN, GUARD_BAND_MAX);
    Some(r)
}

/// Emits a screen-space polygon: fan triangles or outline/points.
fn emit_polygon<const N: usize>(ctx: &SetupCtx, verts: &[Vertex<N>], out: &mut ChunkOut) {
    if verts.len() < 3 {
        return;
    }
    match ctx.fill {
        FillMode::Solid => {
            for i in 1..verts.len() - 1 {
                setup::setup_triangle(ctx, [&verts[0], &verts[i], &verts[i + 1]], out);
            }
        }
        FillMode::Wireframe | FillMode::Point => {
            let area = setup::polygon_area(verts);
            if area == 0 {
                return;
            }
            match ctx.cull {
                CullMode::Cw if area > 0 => return,
                CullMode::Ccw if area < 0 => return,
                _ => {}
            }
            let flat = ctx.flat.then_some(&verts[0]);
            for i in 0..verts.len() {
                if ctx.fill == FillMode::Point {
                    let mut p = verts[i];
                    if let Some(f) = flat {
                        p.diffuse = f.diffuse;
                        // A fog factor in the specular alpha stays the
                        // vertex's own (as in `process_prim`).
                        let a = p.specular[3];
                        p.specular = f.specular;
                        if ctx.fog_alpha {
                            p.specular[3] = a;
                        }
                    }
                    setup::setup_point(ctx, &p, out);
                } else {
                    let b = &verts[(i + 1) % verts.len()];
                    setup::setup_line(ctx, &verts[i], b, false, flat, out);
                }
            }
        }
    }
}

/// Processes input primitives `range` of `call` into `out`.
pub(crate) fn process_range<const N: usize>(
    ctx: &GeometryCtx,
    call: &DrawCall<'_>,
    range: std::ops::Range<u64>,
    out: &mut ChunkOut,
) {
    let arity = call.topology.arity();
    let mut planes = [[0f32; 5]; 12];
    let nplanes = if ctx.vs.pretransformed {
        0
    } else {
        clip_planes(ctx, &mut planes)
    };
    let planes = &planes[..nplanes];
    if N == 0
        && ctx.vs.pretransformed
        && arity == 3
        && ctx.setup.fill == FillMode::Solid
        && ctx.setup.plain()
    {
        process_screen_tris::<N>(ctx, call, range, planes, out);
        return;
    }
    if N == 0 && ctx.vs.pretransformed && arity == 2 && ctx.setup.plain() {
        process_screen_lines::<N>(ctx, call, range, planes, out);
        return;
    }
    for p in range {
        process_prim::<N>(ctx, call, p, planes, out);
    }
}

/// Pre-transformed solid triangles of a plain draw (see
/// [`SetupCtx::plain`]): positions and diffuse colours are fetched and set
/// up directly ([`setup::setup_plain`]); a triangle that is invalid is
/// dropped exactly as [`process_prim`] drops it, and one that needs
/// clipping or the general set-up goes to [`process_prim`].
fn process_screen_tris<const N: usize>(
    ctx: &GeometryCtx,
    call: &DrawCall<'_>,
    range: std::ops::Range<u64>,
    planes: &[[f32; 5]],
    out: &mut ChunkOut,
) {
    'prims: for p in range {
        let el = call.topology.element(p);
        let mut pos = [[0f32; 4]; 3];
        let mut diffuse = [[0f32; 4]; 3];
        for k in 0..3 {
            let Some((ps, c, _)) = call
                .vertex_index(el[k])
                .and_then(|i| fetch_screen::<false>(call, i))
            else {
                continue 'prims;
            };
            if !ps.iter().all(|x| x.is_finite()) {
                continue 'prims;
            }
            pos[k] = ps;
            diffuse[k] = c;
        }
        let gb = |x: f32| (GUARD_BAND_MIN..=GUARD_BAND_MAX).contains(&x);
        if !(pos
            .iter()
            .all(|p| gb(p[0]) && gb(p[1]) && !z_clipped(ctx, p[2]))
            && setup::setup_plain(&ctx.setup, &pos, &diffuse, out))
        {
            process_prim_cold::<N>(ctx, call, p, planes, out);
        }
    }
}

/// Pre-transformed lines of a plain draw (see [`SetupCtx::plain`]): each
/// vertex's position and colours are fetched straight into the vertex
/// set-up reads ([`fetch_screen`], what [`fetch`] gives a pre-transformed
/// vertex) and a line inside the guard band and depth range is set up
/// directly; a line with a vertex outside the buffer or a non-finite
/// position is dropped, and one that needs clipping goes to
/// [`process_prim`], exactly as [`process_prim`] would treat them. W6's
/// vertex stage: building each vertex through the general fetch and
/// returning it cost about a fifth of its time (store forwarding).
fn process_screen_lines<const N: usize>(
    ctx: &GeometryCtx,
    call: &DrawCall<'_>,
    range: std::ops::Range<u64>,
    planes: &[[f32; 5]],
    out: &mut ChunkOut,
) {
    'prims: for p in range {
        let el = call.topology.element(p);
        let mut v = [Vertex::<N>::ZERO; 2];
        for (k, vx) in v.iter_mut().enumerate() {
            let Some((pos, diffuse, specular)) = call
                .vertex_index(el[k])
                .and_then(|i| fetch_screen::<true>(call, i))
            else {
                continue 'prims;
            };
            vx.pos = pos;
            vx.diffuse = diffuse;
            vx.specular = specular;
            if !finite(vx) {
                continue 'prims;
            }
        }
        if v.iter()
            .all(|x| in_guard_band(x) && !z_clipped(ctx, x.pos[2]))
        {
            let [a, b] = &v;
            setup::setup_line(&ctx.setup, a, b, ctx.setup.last_pixel, None, out);
        } else {
            process_prim_cold::<N>(ctx, call, p, planes, out);
        }
    }
}

/// [`process_prim`] out of line, for the rare triangles the screen-space
/// fast loop hands back.
#[inline(never)]
fn process_prim_cold<const N: usize>(
    ctx: &GeometryCtx,
    call: &DrawCall<'_>,
    p: u64,
    planes: &[[f32; 5]],
    out: &mut ChunkOut,
) {
    process_prim::<N>(ctx, call, p, planes, out);
}

/// Fetches, clips and sets up input primitive `p` of `call` into `out`
/// (fixed-function vertex processing).
#[inline(always)]
fn process_prim<const N: usize>(
    ctx: &GeometryCtx,
    call: &DrawCall<'_>,
    p: u64,
    planes: &[[f32; 5]],
    out: &mut ChunkOut,
) {
    process_prim_with::<N, _>(
        ctx,
        call,
        p,
        planes,
        out,
        // Inlined so that the vertex is built where it is kept: returned
        // from an out-of-line call, it was read back right after its
        // stores and stalled on store forwarding (W6's vertex stage).
        #[inline(always)]
        |vi| fetch(call, &ctx.vs, vi),
    );
}

/// Processes input primitives `range` of `call` into `out` through a
/// vertex shader: the vertices the range uses are shaded first (each
/// vertex number once, four per run), then every primitive is assembled,
/// clipped and set up from them exactly as fixed function's are.
///
/// Never inlined: whether it was depended on how the crate happened to be
/// split into code-generation units (inlined into `renderer::set_up`, all
/// five instances at once, when `simd::depth24` moved onto the vector
/// layer).
#[inline(never)]
pub(crate) fn process_range_shaded<const N: usize>(
    ctx: &GeometryCtx,
    shader: &ShaderStage<'_>,
    call: &DrawCall<'_>,
    range: std::ops::Range<u64>,
    out: &mut ChunkOut,
) {
    let arity = call.topology.arity();
    // A plain loop, not `flat_map(…).collect()`: the adapter's `next` was
    // left out of line depending on the crate's split into
    // code-generation units (+66 M on W7).
    let mut indices: Vec<u64> = Vec::new();
    for p in range.clone() {
        let el = call.topology.element(p);
        for &v in el.iter().take(arity) {
            if let Some(i) = call.vertex_index(v) {
                indices.push(i);
            }
        }
    }
    indices.sort_unstable();
    indices.dedup();
    let mut shaded = Vec::with_capacity(indices.len());
    shader.shade::<N>(call, &indices, &mut shaded);
    let mut planes = [[0f32; 5]; 12];
    let nplanes = clip_planes(ctx, &mut planes);
    let planes = &planes[..nplanes];
    for p in range {
        process_prim_with::<N, _>(
            ctx,
            call,
            p,
            planes,
            out,
            #[inline(always)]
            |vi: u64| {
                let i = indices.binary_search(&vi).ok()?;
                shaded.get(i).copied().flatten()
            },
        );
    }
}

/// Assembles, clips and sets up input primitive `p` of `call` into `out`,
/// with the vertex of each vertex number from `vertex`.
#[inline(always)]
fn process_prim_with<const N: usize, F: Fn(u64) -> Option<Vertex<N>>>(
    ctx: &GeometryCtx,
    call: &DrawCall<'_>,
    p: u64,
    planes: &[[f32; 5]],
    out: &mut ChunkOut,
    vertex: F,
) {
    let arity = call.topology.arity();
    let el = call.topology.element(p);
    let mut v = [Vertex::<N>::ZERO; 3];
    for k in 0..arity {
        let Some(vi) = call.vertex_index(el[k]) else {
            return;
        };
        let Some(vx) = vertex(vi) else {
            return;
        };
        if !finite(&vx) {
            return;
        }
        v[k] = vx;
    }
    if ctx.setup.flat && arity > 1 {
        for k in 1..arity {
            v[k].diffuse = v[0].diffuse;
            let a = v[k].specular[3];
            v[k].specular = v[0].specular;
            if ctx.fog_alpha {
                v[k].specular[3] = a;
            }
            // Flat generic varyings (COLOR inputs of ps_3_0) likewise.
            let mut m = ctx.flat_varyings;
            while m != 0 {
                let s = m.trailing_zeros() as usize;
                m &= m - 1;
                let first = v[0].varyings.get(s).copied();
                if let (Some(f), Some(o)) = (first, v[k].varyings.get_mut(s)) {
                    *o = f;
                }
            }
        }
    }
    let verts = &v[..arity];
    if ctx.vs.pretransformed {
        if verts
            .iter()
            .all(|x| in_guard_band(x) && !z_clipped(ctx, x.pos[2]))
        {
            emit_direct(&ctx.setup, verts, out);
        } else if arity == 1 || verts.iter().any(|x| x.pos[3] < 0.0) {
            // Dropped: a point outside the guard band is outside the
            // target, one outside [0, 1] in z is clipped away; negative
            // rhw cannot be clipped in screen space.
        } else {
            let hom: [Vertex<N>; 3] = v.map(|x| to_homogeneous(&x));
            let (planes, n) = screen_clip_planes(ctx.clipping);
            clip_and_emit(
                &ctx.setup,
                &hom[..arity],
                &planes[..n],
                &|x| from_homogeneous(x),
                out,
            );
        }
    } else {
        // Outcodes.
        let mut and_out = u32::MAX;
        let mut or_out = 0u32;
        for x in verts {
            let mut code = 0;
            for (i, pl) in planes.iter().enumerate() {
                if plane_dist(pl, x) < 0.0 {
                    code |= 1 << i;
                }
            }
            and_out &= code;
            or_out |= code;
        }
        if and_out != 0 {
            return;
        }
        let vp = ctx.viewport;
        if or_out == 0 {
            let mut s = v;
            for k in 0..arity {
                match project(&vp, &v[k]) {
                    Some(x) => s[k] = x,
                    None => return,
                }
            }
            emit_direct(&ctx.setup, &s[..arity], out);
        } else if arity > 1 {
            clip_and_emit(&ctx.setup, verts, planes, &|x| project(&vp, x), out);
        }
    }
}

/// True if a pre-transformed z lies outside the near and far planes
/// (`0 ≤ z ≤ 1`) and CLIPPING is on.
#[inline]
fn z_clipped(ctx: &GeometryCtx, z: f32) -> bool {
    ctx.clipping && !(0.0..=1.0).contains(&z)
}

/// Clip planes of homogeneous screen coordinates: the guard band
/// (x − GB_MIN·w ≥ 0, GB_MAX·w − x ≥ 0, same for y), then with CLIPPING
/// on the near and far planes (z ≥ 0, w − z ≥ 0).
fn screen_clip_planes(clipping: bool) -> ([[f32; 5]; 6], usize) {
    let p = [
        [1.0, 0.0, 0.0, -GUARD_BAND_MIN, 0.0],
        [-1.0, 0.0, 0.0, GUARD_BAND_MAX, 0.0],
        [0.0, 1.0, 0.0, -GUARD_BAND_MIN, 0.0],
        [0.0, -1.0, 0.0, GUARD_BAND_MAX, 0.0],
        [0.0, 0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, -1.0, 1.0, 0.0],
    ];
    (p, if clipping { 6 } else { 4 })
}

fn emit_direct<const N: usize>(ctx: &SetupCtx, verts: &[Vertex<N>], out: &mut ChunkOut) {
    match verts {
        [a] => setup::setup_point(ctx, a, out),
        [a, b] => setup::setup_line(ctx, a, b, ctx.last_pixel, ctx.flat.then_some(a), out),
        [a, b, c] => match ctx.fill {
            FillMode::Solid => setup::setup_triangle(ctx, [a, b, c], out),
            _ => emit_polygon(ctx, verts, out),
        },
        _ => {}
    }
}

fn clip_and_emit<const N: usize>(
    ctx: &SetupCtx,
    verts: &[Vertex<N>],
    planes: &[[f32; 5]],
    back: &dyn Fn(&Vertex<N>) -> Option<Vertex<N>>,
    out: &mut ChunkOut,
) {
    if verts.len() == 2 {
        // Segment clipping (parametric).
        let (a, b) = (&verts[0], &verts[1]);
        let (mut t0, mut t1) = (0.0f32, 1.0f32);
        for pl in planes {
            let (da, db) = (plane_dist(pl, a), plane_dist(pl, b));
            if da < 0.0 && db < 0.0 {
                return;
            }
            if da < 0.0 {
                t0 = t0.max(da / (da - db));
            } else if db < 0.0 {
                t1 = t1.min(da / (da - db));
            }
        }
        if t0 > t1 {
            return;
        }
        let (Some(ca), Some(cb)) = (back(&lerp_vertex(a, b, t0)), back(&lerp_vertex(a, b, t1)))
        else {
            return;
        };
        // The end pixel rule applies to the original end only.
        let last = ctx.last_pixel && t1 >= 1.0;
        setup::setup_line(ctx, &ca, &cb, last, ctx.flat.then_some(&ca), out);
        return;
    }
    let mut poly = Poly::new(verts);
    for pl in planes {
        poly = clip_poly(&poly, &|x| plane_dist(pl, x));
        if poly.n < 3 {
            return;
        }
    }
    let mut screen = [poly.v[0]; MAX_CLIP_VERTICES];
    for (i, x) in poly.verts().iter().enumerate() {
        match back(x) {
            Some(s) => screen[i] = s,
            None => return,
        }
    }
    emit_polygon(ctx, &screen[..poly.n], out);
}
