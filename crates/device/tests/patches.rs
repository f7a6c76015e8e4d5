//! Patches: tessellated points against the analytic surfaces, and the
//! DRAWRECTPATCH / DRAWTRIPATCH handle cache through the device.

mod common;

use common::*;
use softhal_device::exec::layout_from_fvf;
use softhal_device::patch::{self, tessellate_rect, tessellate_tri};
use softhal_device::*;

const RED: u32 = 0xFFFF_0000;

fn xyz_bytes(points: &[[f32; 3]]) -> Vec<u8> {
    points
        .iter()
        .flat_map(|p| p.iter().flat_map(|f| f.to_le_bytes()))
        .collect()
}

fn read_xyz(m: &patch::Mesh) -> Vec<[f32; 3]> {
    m.vertices
        .chunks_exact(12)
        .map(|c| {
            let f = |i: usize| f32::from_le_bytes([c[i], c[i + 1], c[i + 2], c[i + 3]]);
            [f(0), f(4), f(8)]
        })
        .collect()
}

#[test]
fn bicubic_bezier_matches_the_analytic_surface() {
    // Control net of z = u³·v² over x = u, y = v (Bernstein coefficients:
    // u³ → (0, 0, 0, 1), v² → (0, 0, 1/3, 1), u → (0, 1/3, 2/3, 1)).
    let a = [0.0, 0.0, 0.0, 1.0];
    let b = [0.0, 0.0, 1.0 / 3.0, 1.0];
    let mut ctrl = Vec::new();
    for (j, bj) in b.iter().enumerate() {
        for (i, ai) in a.iter().enumerate() {
            ctrl.push([i as f32 / 3.0, j as f32 / 3.0, ai * bj]);
        }
    }
    let layout = layout_from_fvf(0x2).unwrap();
    let m = tessellate_rect(
        &layout,
        &xyz_bytes(&ctrl),
        4,
        4,
        patch::BASIS_BEZIER,
        3,
        [7.0; 4],
        false,
    )
    .unwrap();
    let pts = read_xyz(&m);
    assert_eq!(pts.len(), 64);
    assert_eq!(m.indices.len(), 7 * 7 * 6);
    for (p, &(u, v)) in pts.iter().zip(&m.params) {
        assert!(
            (p[0] - u).abs() < 1e-5 && (p[1] - v).abs() < 1e-5,
            "{p:?} at {u},{v}"
        );
        let z = u.powi(3) * v.powi(2);
        assert!((p[2] - z).abs() < 1e-5, "z {} vs {z} at {u},{v}", p[2]);
    }
}

#[test]
fn bspline_and_catmull_rom_properties() {
    // B-spline (cubic, 6×5 irregular grid) on the plane z = 2x + 3y + 1:
    // every tessellated point stays on it (affine invariance).
    let mut ctrl = Vec::new();
    for j in 0..5 {
        for i in 0..6 {
            let (x, y) = (
                i as f32 + 0.3 * (j as f32).sin(),
                j as f32 * 1.5 + 0.2 * i as f32,
            );
            ctrl.push([x, y, 2.0 * x + 3.0 * y + 1.0]);
        }
    }
    let layout = layout_from_fvf(0x2).unwrap();
    let m = tessellate_rect(
        &layout,
        &xyz_bytes(&ctrl),
        6,
        5,
        patch::BASIS_BSPLINE,
        3,
        [5.0; 4],
        false,
    )
    .unwrap();
    for p in read_xyz(&m) {
        assert!(
            (p[2] - (2.0 * p[0] + 3.0 * p[1] + 1.0)).abs() < 1e-3,
            "{p:?}"
        );
    }
    // Uniform cubic B-spline of x_i = i starts at (0 + 4·1 + 2)/6 = 1.
    let w = patch::curve_weights(patch::BASIS_BSPLINE, 3, 6, 0.0).unwrap();
    let x0: f32 = w.iter().enumerate().map(|(i, w)| i as f32 * w).sum();
    assert!((x0 - 1.0).abs() < 1e-6);
    // Catmull-Rom interpolates the inner control points.
    for (t, k) in [(0.0, 1usize), (0.5, 2), (1.0, 3)] {
        let w = patch::curve_weights(patch::BASIS_CATMULL_ROM, 3, 5, t).unwrap();
        for (i, wi) in w.iter().enumerate() {
            assert!(
                (wi - if i == k { 1.0 } else { 0.0 }).abs() < 1e-6,
                "t={t} i={i} w={wi}"
            );
        }
    }
    // Linear B-spline = piecewise-linear interpolation.
    let w = patch::curve_weights(patch::BASIS_BSPLINE, 1, 3, 0.25).unwrap();
    assert!((w[0] - 0.5).abs() < 1e-6 && (w[1] - 0.5).abs() < 1e-6);
}

#[test]
fn tri_patches_match_barycentric_surfaces() {
    let layout = layout_from_fvf(0x2).unwrap();
    // Cubic Bézier triangle of f = u³ (only P_300 = 1), x = u, y = v.
    let d = 3;
    let mut ctrl = vec![[0.0f32; 3]; patch::tri_control_count(d) as usize];
    for i in 0..=d {
        for j in 0..=(d - i) {
            let p = &mut ctrl[patch::tri_index(d, i, j)];
            p[0] = i as f32 / 3.0;
            p[1] = j as f32 / 3.0;
            p[2] = if i == 3 { 1.0 } else { 0.0 };
        }
    }
    let m = tessellate_tri(&layout, &xyz_bytes(&ctrl), d, [6.0; 3], false).unwrap();
    assert_eq!(m.params.len(), 28);
    assert_eq!(m.indices.len(), 36 * 3);
    for (p, &(u, v)) in read_xyz(&m).iter().zip(&m.params) {
        assert!((p[0] - u).abs() < 1e-5 && (p[1] - v).abs() < 1e-5);
        assert!((p[2] - u.powi(3)).abs() < 1e-5, "{p:?} {u}");
    }
    assert!(tessellate_tri(&layout, &xyz_bytes(&ctrl[..9]), 3, [1.0; 3], false).is_err());
}

/// A 2×2 linear patch covering the 16×16 screen (pre-transformed).
fn screen_patch() -> Vec<u8> {
    [(0.0, 0.0), (16.0, 0.0), (0.0, 16.0), (16.0, 16.0)]
        .iter()
        .flat_map(|&(x, y)| tl(x, y, 0.5, RED))
        .collect()
}

fn vb(s: &mut Scene, bytes: &[u8]) -> u32 {
    let h = s
        .drv
        .create_vertex_buffer(bytes.len() as u32, false)
        .unwrap();
    s.drv
        .lock(h, LockFlags::default())
        .unwrap()
        .copy_from_slice(bytes);
    h
}

const INFO: &str =
    "info={ Width=2 Height=2 Stride=2 Basis=D3DBASIS_BEZIER Degree=D3DDEGREE_LINEAR }";

#[test]
fn rect_patch_cache_cases() {
    let mut s = Scene::new(16, 16, false);
    let h = vb(&mut s, &screen_patch());
    let bind = format!("{NOCULL}SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCE {{ dwStream=0 dwVBHandle={h} dwStride=20 }}\n");
    let prims = |s: &Scene| s.drv.context(s.ctx).unwrap().stats.primitives;
    let cached = |s: &Scene| s.drv.context(s.ctx).unwrap().patches.len();
    // 1. Dynamic patch (handle 0): drawn, nothing cached. PATCHSEGMENTS = 4.
    s.run(&format!("{bind}RENDERSTATE {{ RenderState=D3DRS_PATCHSEGMENTS dwState=4.0 }}\nDRAWRECTPATCH {{ Handle=0 {INFO} }}"), &[]).ok();
    assert_eq!(s.count(RED), 256);
    assert_eq!((prims(&s), cached(&s)), (32, 0));
    // 2. New handle with info: drawn and cached; per-edge segments.
    s.run(&format!("DRAWRECTPATCH {{ Handle=5 segs={{ segs[0]=2.0 segs[1]=1.0 segs[2]=2.0 segs[3]=1.0 }} {INFO} }}"), &[]).ok();
    assert_eq!((prims(&s), cached(&s)), (32 + 4, 1));
    // 4. Known handle without info: from the cache, streams ignored.
    s.run(
        "SETSTREAMSOURCE { dwStream=0 dwVBHandle=0 dwStride=20 }\nDRAWRECTPATCH { Handle=5 }",
        &[],
    )
    .ok();
    assert_eq!(prims(&s), 36 + 32);
    // New handle without info: ignored, allocates nothing.
    s.run("DRAWRECTPATCH { Handle=6 }", &[]).ok();
    assert_eq!((prims(&s), cached(&s)), (68, 1));
    // 3. Known handle with info: recached (here from a stream again).
    s.run(&format!("{bind}DRAWRECTPATCH {{ Handle=5 segs={{ segs[0]=1.0 segs[1]=1.0 segs[2]=1.0 segs[3]=1.0 }} {INFO} }}\nDRAWRECTPATCH {{ Handle=5 }}"), &[]).ok();
    assert_eq!(prims(&s), 68 + 2 + 32);
    // DELETERTPATCH frees it; a later draw of the handle is ignored.
    s.run(
        "RENDERSTATE { RenderState=D3DRS_DELETERTPATCH dwState=5 }\nDRAWRECTPATCH { Handle=5 }",
        &[],
    )
    .ok();
    assert_eq!((prims(&s), cached(&s)), (102, 0));
    // Edge style: continuous 2.5 segments → 3 per edge → 18 triangles.
    s.run(&format!("{bind}RENDERSTATE {{ RenderState=D3DRS_PATCHEDGESTYLE dwState=D3DPATCHEDGE_CONTINUOUS }} {{ RenderState=D3DRS_PATCHSEGMENTS dwState=2.5 }}\nDRAWRECTPATCH {{ Handle=0 {INFO} }}"), &[]).ok();
    assert_eq!(prims(&s), 120);
}

#[test]
fn rect_patch_errors() {
    let mut s = Scene::new(16, 16, false);
    let h = vb(&mut s, &screen_patch());
    let bind = format!("SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCE {{ dwStream=0 dwVBHandle={h} dwStride=20 }}\n");
    let at = asm(&bind).len() as u32;
    for bad in [
        "DRAWRECTPATCH { Handle=0 }",
        "DRAWRECTPATCH { Handle=0 info={ Width=3 Height=2 Stride=3 Basis=D3DBASIS_BEZIER Degree=D3DDEGREE_CUBIC } }",
        "DRAWRECTPATCH { Handle=0 info={ Width=2 Height=2 Stride=2 Basis=7 Degree=D3DDEGREE_LINEAR } }",
        "DRAWRECTPATCH { Handle=0 info={ Width=2 Height=2 Stride=2 Basis=D3DBASIS_BEZIER Degree=4 } }",
        "DRAWRECTPATCH { Handle=0 info={ Width=2 Height=2 Stride=2 Basis=D3DBASIS_CATMULL_ROM Degree=D3DDEGREE_LINEAR } }",
        "DRAWRECTPATCH { Handle=0 info={ Width=2 Height=2 Stride=3 Basis=D3DBASIS_BEZIER Degree=D3DDEGREE_LINEAR } }",
        "DRAWRECTPATCH { Handle=0 info={ StartVertexOffsetWidth=1 Width=2 Height=2 Stride=2 Basis=D3DBASIS_BEZIER Degree=D3DDEGREE_LINEAR } }",
        "DRAWRECTPATCH { Handle=9 info={ Width=40 Height=40 Stride=40 Basis=D3DBASIS_BSPLINE Degree=D3DDEGREE_CUBIC } }",
        "DRAWTRIPATCH { Handle=0 info={ NumVertices=3 Basis=D3DBASIS_BSPLINE Degree=D3DDEGREE_LINEAR } }",
        "DRAWTRIPATCH { Handle=0 info={ NumVertices=4 Basis=D3DBASIS_BEZIER Degree=D3DDEGREE_LINEAR } }",
        "DRAWTRIPATCH { Handle=0 }",
    ] {
        s.run(&format!("{bind}{bad}"), &[]).unparsed_at(at);
        assert!(s.drv.context(s.ctx).unwrap().patches.is_empty(), "{bad}");
    }
    // Truncated record (HASINFO set, info missing).
    let b = asm(&format!("DRAWRECTPATCH {{ Handle=0 {INFO} }}"));
    s.run_bytes(&b[..b.len() - 4], &[]).unparsed_at(0);
    // A rect handle drawn as a tri patch.
    s.run(
        &format!("{bind}DRAWRECTPATCH {{ Handle=3 {INFO} }}\nDRAWTRIPATCH {{ Handle=3 }}"),
        &[],
    )
    .unparsed_at(at + 8 + 28 + 4);
}

#[test]
fn tri_patch_through_the_device() {
    let mut s = Scene::new(16, 16, false);
    let h = vb(
        &mut s,
        &[
            tl(0.0, 0.0, 0.5, RED),
            tl(16.0, 0.0, 0.5, RED),
            tl(0.0, 16.0, 0.5, RED),
        ]
        .concat(),
    );
    s.run(&format!("{NOCULL}SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCE {{ dwStream=0 dwVBHandle={h} dwStride=20 }}\nDRAWTRIPATCH {{ Handle=4 segs={{ segs[0]=3.0 segs[1]=3.0 segs[2]=3.0 }} info={{ NumVertices=3 Basis=D3DBASIS_BEZIER Degree=D3DDEGREE_LINEAR }} }}\nDRAWTRIPATCH {{ Handle=4 }}"), &[]).ok();
    let c = s.drv.context(s.ctx).unwrap();
    // 9 triangles with 3 segments, then 1 from the cache with D3DRS_PATCHSEGMENTS = 1.
    assert_eq!((c.stats.primitives, c.patches.len()), (10, 1));
    assert_eq!(s.px(2, 2), RED);
    assert_eq!(s.px(14, 14), 0);
}

#[test]
fn a_full_patch_cache_evicts_the_least_recently_used_patch() {
    // The cache holds MAX_CACHED_PATCHES (256) patches. Caching more never
    // fails a draw (nor loses the rest of the command buffer): the least
    // recently used patch is evicted. Each 2×2 linear patch is 2 triangles
    // (PATCHSEGMENTS 1).
    let mut s = Scene::new(16, 16, false);
    let h = vb(&mut s, &screen_patch());
    let bind = format!("{NOCULL}SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCE {{ dwStream=0 dwVBHandle={h} dwStride=20 }}\n");
    let fill: String = (1..=256)
        .map(|h| format!("DRAWRECTPATCH {{ Handle={h} {INFO} }}\n"))
        .collect();
    s.run(&format!("{bind}{fill}"), &[]).ok();
    let c = s.drv.context(s.ctx).unwrap();
    assert_eq!((c.patches.len(), c.stats.primitives), (256, 512));
    // Handle 1 is used again (drawn from the cache); 2 and 3 are now the
    // least recently used. Two new handles evict them, and the CLEAR after
    // them still runs.
    s.run(
        &format!(
            "{bind}DRAWRECTPATCH {{ Handle=1 }}\nDRAWRECTPATCH {{ Handle=1000 {INFO} }}\n\
             DRAWRECTPATCH {{ Handle=1001 {INFO} }}\n\
             CLEAR {{ dwFlags=D3DCLEAR_TARGET dwFillColor=0xff00ff00 }}"
        ),
        &[],
    )
    .ok();
    let c = s.drv.context(s.ctx).unwrap();
    assert_eq!(c.patches.len(), 256);
    assert_eq!(c.stats.primitives, 512 + 6);
    for (h, cached) in [
        (1, true),
        (2, false),
        (3, false),
        (4, true),
        (1000, true),
        (1001, true),
    ] {
        assert_eq!(c.patches.contains_key(&h), cached, "handle {h}");
    }
    assert_eq!(s.count(0xff00_ff00), 256, "the CLEAR after the patches ran");
    // An evicted handle drawn without info draws nothing, like an unknown
    // one; D3DRS_DELETERTPATCH still frees a handle.
    s.run(
        "DRAWRECTPATCH { Handle=2 }\nRENDERSTATE { RenderState=D3DRS_DELETERTPATCH dwState=4 }",
        &[],
    )
    .ok();
    let c = s.drv.context(s.ctx).unwrap();
    assert_eq!((c.stats.primitives, c.patches.len()), (518, 255));
    assert!(!c.patches.contains_key(&4));
}

/// Twice the signed (u, v) area of each triangle of `m`.
fn param_areas(m: &patch::Mesh) -> Vec<f32> {
    m.indices
        .chunks_exact(3)
        .map(|t| {
            let p = |i: u32| m.params[i as usize];
            let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
            (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
        })
        .collect()
}

/// The parameters of the mesh points on which `on` holds, sorted.
fn edge_points(
    m: &patch::Mesh,
    on: impl Fn((f32, f32)) -> bool,
    key: fn((f32, f32)) -> f32,
) -> Vec<f32> {
    let mut t: Vec<f32> = m
        .params
        .iter()
        .copied()
        .filter(|&p| on(p))
        .map(key)
        .collect();
    t.sort_by(f32::total_cmp);
    t
}

#[test]
fn each_patch_edge_has_its_own_segment_count() {
    // D3DHALDP2_HASSEGS gives one count per edge (rect: v = 0, u = 1,
    // v = 1, u = 0; tri: v = 0, w = 0, u = 0). Under the discrete style an
    // edge of n segments has the n + 1 points k/n. The triangles tile the
    // parameter domain once: all wound alike (positive (u, v) area), and
    // their areas add up to the domain's, 1 (rect) or 1/2 (tri).
    let layout = layout_from_fvf(0x2).unwrap();
    let ctrl = xyz_bytes(&[
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 1.0, 0.0],
    ]);
    let m = tessellate_rect(
        &layout,
        &ctrl,
        2,
        2,
        patch::BASIS_BEZIER,
        1,
        [1.0, 2.0, 3.0, 4.0],
        false,
    )
    .unwrap();
    let near = |a: &[f32], b: &[f32]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
    };
    let k = |n: u32| (0..=n).map(|k| k as f32 / n as f32).collect::<Vec<_>>();
    assert!(
        near(&edge_points(&m, |p| p.1 == 0.0, |p| p.0), &k(1)),
        "top: 1"
    );
    assert!(
        near(&edge_points(&m, |p| p.0 == 1.0, |p| p.1), &k(2)),
        "right: 2"
    );
    assert!(
        near(&edge_points(&m, |p| p.1 == 1.0, |p| p.0), &k(3)),
        "bottom: 3"
    );
    assert!(
        near(&edge_points(&m, |p| p.0 == 0.0, |p| p.1), &k(4)),
        "left: 4"
    );
    let areas = param_areas(&m);
    assert!(areas.iter().all(|&a| a > 0.0), "{areas:?}");
    assert!((areas.iter().sum::<f32>() / 2.0 - 1.0).abs() < 1e-5);
    // Fractional counts round up (discrete): 2.5 → 3.
    let m = tessellate_rect(
        &layout,
        &ctrl,
        2,
        2,
        patch::BASIS_BEZIER,
        1,
        [2.5, 1.0, 1.0, 1.0],
        false,
    )
    .unwrap();
    assert!(near(&edge_points(&m, |p| p.1 == 0.0, |p| p.0), &k(3)));
    // Tri patch, linear, edges 1, 2, 3 (and 4, 1, 2: with interior points).
    let tri = xyz_bytes(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]);
    for segs in [[1.0, 2.0, 3.0], [4.0, 1.0, 2.0]] {
        let m = tessellate_tri(&layout, &tri, 1, segs, false).unwrap();
        let [s0, s1, s2] = segs.map(|s| s as u32);
        assert!(
            near(&edge_points(&m, |p| p.1 == 0.0, |p| p.0), &k(s0)),
            "{segs:?} edge 0"
        );
        assert!(
            near(&edge_points(&m, |p| p.0 == 0.0, |p| p.1), &k(s2)),
            "{segs:?} edge 2"
        );
        let on_w0 = edge_points(&m, |p| (p.0 + p.1 - 1.0).abs() < 1e-6, |p| p.1);
        assert!(near(&on_w0, &k(s1)), "{segs:?} edge 1: {on_w0:?}");
        let areas = param_areas(&m);
        assert!(areas.iter().all(|&a| a > 0.0), "{areas:?}");
        assert!(
            (areas.iter().sum::<f32>() / 2.0 - 0.5).abs() < 1e-5,
            "{segs:?}"
        );
    }
}

/// The render target as RGBA8 bytes.
fn rgba(s: &Scene) -> Vec<u8> {
    (0..s.h)
        .flat_map(|y| (0..s.w).map(move |x| (x, y)))
        .flat_map(|(x, y)| {
            let [a, r, g, b] = s.px(x, y).to_be_bytes();
            [r, g, b, a]
        })
        .collect()
}

#[test]
fn mixed_segment_counts_in_wireframe() {
    // A linear rect patch with edges of 1 (top), 2 (right), 3 (bottom)
    // and 4 (left) segments, and a linear tri patch with 1, 2, 3, drawn in
    // D3DFILL_WIREFRAME. The golden (looked at) shows each edge cut in its
    // own count, the inside grid (3 × 4 cells less its boundary for the
    // rect; the one inside point of a 3-segment tri) and the ring of
    // triangles stitching it to the edges.
    let mut s = Scene::new(64, 32, false);
    let v: Vec<u8> = [
        (1.0, 1.0),
        (30.0, 1.0),
        (1.0, 30.0),
        (30.0, 30.0),
        (34.0, 30.0),
        (62.0, 30.0),
        (34.0, 1.0),
    ]
    .iter()
    .flat_map(|&(x, y)| tl(x, y, 0.5, 0xffffffff))
    .collect();
    let h = vb(&mut s, &v);
    s.run(
        &format!(
            "{NOCULL}CLEAR {{ dwFlags=D3DCLEAR_TARGET dwFillColor=0xff000000 }}\n\
             RENDERSTATE {{ RenderState=D3DRS_FILLMODE dwState=D3DFILL_WIREFRAME }}\n\
             SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCE {{ dwStream=0 dwVBHandle={h} dwStride=20 }}\n\
             DRAWRECTPATCH {{ Handle=0 segs={{ segs[0]=1.0 segs[1]=2.0 segs[2]=3.0 segs[3]=4.0 }} {INFO} }}\n\
             DRAWTRIPATCH {{ Handle=0 segs={{ segs[0]=1.0 segs[1]=2.0 segs[2]=3.0 }} info={{ StartVertexOffset=4 NumVertices=3 Basis=D3DBASIS_BEZIER Degree=D3DDEGREE_LINEAR }} }}"
        ),
        &[],
    )
    .ok();
    let golden = softhal_testkit::testdata().join("goldens/device/patches_mixed_segments.png");
    softhal_testkit::check_golden_rgba(&golden, s.w, s.h, &rgba(&s), 0);
}

#[test]
fn neighbouring_patches_sharing_an_edge_count_meet_without_cracks() {
    // Two bicubic Bézier patches (pre-transformed control points) share a
    // curved column: x = 30, 40, 20, 30 at y = 2, 22, 42, 62. Patch A's
    // edges have 3, 5, 2, 7 segments (top, right = the shared edge,
    // bottom, left), patch B's 4, 1, 6, 5 (left = the shared edge): the
    // shared edge has 5 segments on both sides, while the grids inside
    // differ (7 and 5 rows). With additive blending (ONE, ONE) of 0x40
    // grey, a pixel covered once is 0x40, a crack 0 and an overlap 0x80:
    // every pixel inside the union (x 3..=61, y 3..=61; the outer edges are
    // straight) must be 0x40.
    let shared = [30.0f32, 40.0, 20.0, 30.0];
    let mut ctrl = Vec::new();
    for (x0, from_shared) in [(2.0f32, false), (62.0, true)] {
        for (j, &sx) in shared.iter().enumerate() {
            let y = 2.0 + 20.0 * j as f32;
            for i in 0..4 {
                let t = i as f32 / 3.0;
                let x = if from_shared {
                    sx + (x0 - sx) * t
                } else {
                    x0 + (sx - x0) * t
                };
                ctrl.extend(tl(x, y, 0.5, 0xff40_4040));
            }
        }
    }
    let mut s = Scene::new(64, 64, false);
    let h = vb(&mut s, &ctrl);
    let info = |start: u32| {
        format!("info={{ StartVertexOffsetHeight={start} Width=4 Height=4 Stride=4 Basis=D3DBASIS_BEZIER Degree=D3DDEGREE_CUBIC }}")
    };
    s.run(
        &format!(
            "{NOCULL}RENDERSTATE {{ RenderState=D3DRS_ALPHABLENDENABLE dwState=TRUE }} \
             {{ RenderState=D3DRS_SRCBLEND dwState=D3DBLEND_ONE }} {{ RenderState=D3DRS_DESTBLEND dwState=D3DBLEND_ONE }}\n\
             SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCE {{ dwStream=0 dwVBHandle={h} dwStride=20 }}\n\
             DRAWRECTPATCH {{ Handle=0 segs={{ segs[0]=3.0 segs[1]=5.0 segs[2]=2.0 segs[3]=7.0 }} {} }}\n\
             DRAWRECTPATCH {{ Handle=0 segs={{ segs[0]=4.0 segs[1]=1.0 segs[2]=6.0 segs[3]=5.0 }} {} }}",
            info(0),
            info(4)
        ),
        &[],
    )
    .ok();
    let mut bad = Vec::new();
    for y in 3..=61 {
        for x in 3..=61 {
            let c = s.px(x, y) & 0xff_ffff;
            if c != 0x40_4040 {
                bad.push((x, y, c));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} pixels not covered exactly once: {:?}",
        bad.len(),
        &bad[..bad.len().min(8)]
    );
}

#[test]
fn the_patch_cache_stays_within_its_byte_bound() {
    // MAX_PATCH_CACHE_BYTES (16 MiB) of control data: a 32 × 32 linear
    // patch read with a 256-byte stream stride holds 1024 × 256 B =
    // 256 KiB, so 64 of them fill the cache; the 65th evicts the least
    // recently used (handle 1), and nothing fails.
    const STRIDE: usize = 256;
    let per_patch = 1024 * STRIDE;
    assert_eq!(limits::MAX_PATCH_CACHE_BYTES / per_patch, 64);
    let mut s = Scene::new(8, 8, false);
    let h = vb(&mut s, &vec![0u8; 1024 * STRIDE]);
    let info =
        "info={ Width=32 Height=32 Stride=32 Basis=D3DBASIS_BEZIER Degree=D3DDEGREE_LINEAR }";
    let draws: String = (1..=65)
        .map(|h| format!("DRAWRECTPATCH {{ Handle={h} {info} }}\n"))
        .collect();
    s.run(
        &format!("SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCE {{ dwStream=0 dwVBHandle={h} dwStride={STRIDE} }}\n{draws}"),
        &[],
    )
    .ok();
    let c = s.drv.context(s.ctx).unwrap();
    let held: usize = c.patches.values().map(|p| p.control.len()).sum();
    assert_eq!((c.patches.len(), held), (64, limits::MAX_PATCH_CACHE_BYTES));
    assert!(!c.patches.contains_key(&1) && c.patches.contains_key(&65));
}
