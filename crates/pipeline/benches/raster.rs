//! Criterion benchmarks of the pipeline on reduced W1/W2/W5/W6-like scenes
//! (256×192 targets, a tenth of the primitives). The full-size workloads
//! with the reference timing rules are `softhal bench`.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use softhal_pipeline::{
    Clear, ClearFlags, CmpFunc, CullMode, DrawCall, Format, PipelineState, PositionKind,
    RenderTargets, Renderer, Surface, Topology, VertexLayout, ZBufferType,
};

const W: u32 = 256;
const H: u32 = 192;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn f(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn push(out: &mut Vec<u8>, x: f32, y: f32, z: f32, c: u32) {
    for f in [x - 0.5, y - 0.5, z, 1.0] {
        out.extend_from_slice(&f.to_le_bytes());
    }
    out.extend_from_slice(&c.to_le_bytes());
}

/// 20-pixel triangles, like W1.
fn small_tris(n: usize) -> Vec<u8> {
    let mut g = Rng(1);
    let r = (4.0f32 * 20.0 / (3.0 * 3f32.sqrt())).sqrt();
    let mut out = Vec::new();
    for _ in 0..n {
        let (cx, cy, z, t) = (
            4.0 + g.f() * (W as f32 - 8.0),
            4.0 + g.f() * (H as f32 - 8.0),
            g.f(),
            g.f() * std::f32::consts::TAU,
        );
        for k in 0..3 {
            let a = t + k as f32 * std::f32::consts::TAU / 3.0;
            push(
                &mut out,
                cx + r * a.cos(),
                cy + r * a.sin(),
                z,
                (g.next() >> 32) as u32 | 0xFF00_0000,
            );
        }
    }
    out
}

/// Full-target quads with decreasing z, like W2/W5.
fn quads(n: usize) -> Vec<u8> {
    let mut g = Rng(2);
    let mut out = Vec::new();
    for i in 0..n {
        let z = 0.9 - 0.004 * i as f32;
        let c: Vec<u32> = (0..4).map(|_| (g.next() >> 32) as u32).collect();
        let p = [
            (0.0, 0.0),
            (W as f32, 0.0),
            (W as f32, H as f32),
            (0.0, H as f32),
        ];
        for k in [0, 1, 2, 0, 2, 3] {
            push(&mut out, p[k].0, p[k].1, z, c[k]);
        }
    }
    out
}

/// 30-pixel lines, like W6.
fn lines(n: usize) -> Vec<u8> {
    let mut g = Rng(6);
    let mut out = Vec::new();
    for _ in 0..n {
        let (x, y, t) = (
            16.0 + g.f() * (W as f32 - 32.0),
            16.0 + g.f() * (H as f32 - 32.0),
            g.f() * std::f32::consts::TAU,
        );
        push(&mut out, x, y, 0.5, 0xFFFF_FFFF);
        push(
            &mut out,
            x + 30.0 * t.cos(),
            y + 30.0 * t.sin(),
            0.5,
            0xFF00_80FF,
        );
    }
    out
}

fn scene(
    c: &mut Criterion,
    name: &str,
    topo: Topology,
    verts: &[u8],
    prims: u32,
    depth: Option<CmpFunc>,
) {
    let layout = VertexLayout::packed(PositionKind::Xyzrhw, true, false, &[]);
    let mut st = PipelineState::default();
    st.raster.cull_mode = CullMode::None;
    st.raster.last_pixel = false;
    match depth {
        Some(f) => st.depth.z_func = f,
        None => st.depth.z_enable = ZBufferType::False,
    }
    let mut color = Surface::new(Format::A8R8G8B8, W, H).expect("surface");
    let mut zbuf = Surface::new(Format::D24S8, W, H).expect("surface");
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(u64::from(prims)));
    for threads in [1usize, 2] {
        let mut r = Renderer::new(threads).expect("renderer");
        g.bench_function(format!("threads{threads}"), |b| {
            b.iter(|| {
                let clear = Clear {
                    flags: ClearFlags::from_d3d(7),
                    rects: &[],
                    color: 0xFF00_0000,
                    z: 1.0,
                    stencil: 0,
                };
                r.clear(Some(&mut color), Some(&mut zbuf), &clear)
                    .expect("clear");
                let call = DrawCall::new(topo, verts, &layout, prims);
                let mut t = RenderTargets {
                    color: &mut color,
                    depth: Some(&mut zbuf),
                    extra: Default::default(),
                };
                r.draw(&mut t, &st, &call).expect("draw")
            })
        });
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    scene(
        c,
        "w1_small_tris",
        Topology::TriangleList,
        &small_tris(20_000),
        20_000,
        Some(CmpFunc::Less),
    );
    scene(
        c,
        "w2_fill_gouraud",
        Topology::TriangleList,
        &quads(20),
        40,
        None,
    );
    scene(
        c,
        "w5_fill_depth",
        Topology::TriangleList,
        &quads(20),
        40,
        Some(CmpFunc::LessEqual),
    );
    scene(
        c,
        "w6_lines",
        Topology::LineList,
        &lines(10_000),
        10_000,
        None,
    );
}

criterion_group! {
    name = raster;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(2));
    targets = benches
}
criterion_main!(raster);
