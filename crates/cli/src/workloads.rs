//! The W1–W6 benchmark workloads, regenerated bit-exactly from the rules of
//! `docs/benchmarks.md`.
//!
//! In: nothing (each mesh has its own splitmix64 seed). Out: vertex bytes in
//! the D3D9 pre-transformed convention — `XYZRHW | DIFFUSE | SPECULAR |
//! TEX1(2)`, 32 bytes per vertex: screen x, y with 0.5 subtracted (D3D9
//! pixel centres are at integer coordinates, the workloads' at +0.5), z,
//! rhw = 1, diffuse and specular as D3DCOLOR (0xAARRGGBB, little-endian),
//! u, v. The per-vertex fog value `c` of W2–W5 is stored as the specular
//! alpha `round(255·(1 − c))` (D3D9 vertex fog factor). Pure data: no
//! rendering here. Geometry is computed in f64 and rounded to f32 only when
//! stored.

use softhal_pipeline::{PositionKind, Topology, VertexLayout};

/// splitmix64, exactly as `docs/benchmarks.md` ("Random numbers") defines it.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator with state `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    /// The next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform f64 in [0, 1).
    pub fn f(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// Uniform byte.
    pub fn u8(&mut self) -> u8 {
        (self.next_u64() >> 56) as u8
    }
}

/// π as `docs/benchmarks.md` states it (3.14159265358979323846, which rounds to
/// exactly this f64).
const PI: f64 = std::f64::consts::PI;

/// Target width of every workload.
pub const WIDTH: u32 = 1024;
/// Target height of every workload.
pub const HEIGHT: u32 = 768;

/// One workload's mesh (one non-indexed draw call).
#[derive(Debug, Clone)]
pub struct Mesh {
    /// Topology of the draw.
    pub topology: Topology,
    /// Vertex bytes.
    pub vertices: Vec<u8>,
    /// Number of primitives.
    pub primitive_count: u32,
}

/// The vertex layout of every mesh.
pub fn layout() -> VertexLayout {
    VertexLayout::packed(PositionKind::Xyzrhw, true, true, &[2])
}

fn d3dcolor(a: u8, r: u8, g: u8, b: u8) -> u32 {
    u32::from_be_bytes([a, r, g, b])
}

#[allow(clippy::too_many_arguments)]
fn push_vertex(
    out: &mut Vec<u8>,
    x: f64,
    y: f64,
    z: f64,
    diffuse: u32,
    specular: u32,
    u: f64,
    v: f64,
) {
    for f in [(x - 0.5) as f32, (y - 0.5) as f32, z as f32, 1.0f32] {
        out.extend_from_slice(&f.to_le_bytes());
    }
    out.extend_from_slice(&diffuse.to_le_bytes());
    out.extend_from_slice(&specular.to_le_bytes());
    out.extend_from_slice(&(u as f32).to_le_bytes());
    out.extend_from_slice(&(v as f32).to_le_bytes());
}

/// Specular colour carrying the vertex fog factor for fog coordinate `c`.
fn fog_specular(c: f64) -> u32 {
    let f = (255.0 * (1.0 - c)).round().clamp(0.0, 255.0) as u8;
    d3dcolor(f, 0, 0, 0)
}

/// W1 `small-tris`: 200,000 independent triangles of area 20 px².
pub fn w1() -> Mesh {
    const N: usize = 200_000;
    let mut g = SplitMix64::new(0x5EED_0001);
    let r = (4.0 * 20.0 / (3.0 * 3f64.sqrt())).sqrt();
    let mut out = Vec::with_capacity(N * 3 * 32);
    for _ in 0..N {
        let cx = 8.0 + g.f() * (1024.0 - 16.0);
        let cy = 8.0 + g.f() * (768.0 - 16.0);
        let z = g.f();
        let theta = g.f() * 2.0 * PI;
        let pos: [(f64, f64); 3] = [0.0, 1.0, 2.0].map(|k| {
            let a = theta + k * 2.0 * PI / 3.0;
            (cx + r * a.cos(), cy + r * a.sin())
        });
        for (x, y) in pos {
            let (rr, gg, bb) = (g.u8(), g.u8(), g.u8());
            push_vertex(
                &mut out,
                x,
                y,
                z,
                d3dcolor(255, rr, gg, bb),
                fog_specular(0.0),
                0.0,
                0.0,
            );
        }
    }
    Mesh {
        topology: Topology::TriangleList,
        vertices: out,
        primitive_count: N as u32,
    }
}

/// The 200 full-screen quads shared by W2–W5 (400 triangles).
pub fn quads() -> Mesh {
    const N: usize = 200;
    let mut g = SplitMix64::new(0x5EED_0002);
    let mut out = Vec::with_capacity(N * 6 * 32);
    for i in 0..N {
        let z = 0.9 - 0.004 * i as f64;
        let u0 = g.f();
        let v0 = g.f();
        let corners = [(0.0, 0.0), (1024.0, 0.0), (1024.0, 768.0), (0.0, 768.0)];
        let tex = [
            (u0, v0),
            (u0 + 4.0, v0),
            (u0 + 4.0, v0 + 3.0),
            (u0, v0 + 3.0),
        ];
        let mut colors = [(0u32, 0u32); 4];
        for c in colors.iter_mut() {
            let (r, gg, b) = (g.u8(), g.u8(), g.u8());
            let a = 64 + (g.u8() >> 1);
            let fog = g.f();
            *c = (d3dcolor(a, r, gg, b), fog_specular(fog));
        }
        for k in [0usize, 1, 2, 0, 2, 3] {
            let ((x, y), (u, v), (d, s)) = (corners[k], tex[k], colors[k]);
            push_vertex(&mut out, x, y, z, d, s, u, v);
        }
    }
    Mesh {
        topology: Topology::TriangleList,
        vertices: out,
        primitive_count: (N * 2) as u32,
    }
}

/// W6 `lines`: 100,000 independent lines of 30 px.
pub fn w6() -> Mesh {
    const N: usize = 100_000;
    let mut g = SplitMix64::new(0x5EED_0006);
    let mut out = Vec::with_capacity(N * 2 * 32);
    for _ in 0..N {
        let x0 = 32.0 + g.f() * (1024.0 - 64.0);
        let y0 = 32.0 + g.f() * (768.0 - 64.0);
        let theta = g.f() * 2.0 * PI;
        let (x1, y1) = (x0 + 30.0 * theta.cos(), y0 + 30.0 * theta.sin());
        for (x, y) in [(x0, y0), (x1, y1)] {
            let (r, gg, b) = (g.u8(), g.u8(), g.u8());
            push_vertex(
                &mut out,
                x,
                y,
                0.5,
                d3dcolor(255, r, gg, b),
                fog_specular(0.0),
                0.0,
                0.0,
            );
        }
    }
    Mesh {
        topology: Topology::LineList,
        vertices: out,
        primitive_count: N as u32,
    }
}

/// The W3/W4 texture: 256 × 256 A8R8G8B8 texels, row-major, D3DCOLOR
/// values (R = x, G = y, B = x XOR y, A = 128 + ((x + y) AND 127)).
pub fn w3_texture() -> Vec<u32> {
    let mut t = Vec::with_capacity(256 * 256);
    for y in 0..256u32 {
        for x in 0..256u32 {
            let a = 128 + ((x + y) & 127);
            t.push(a << 24 | x << 16 | y << 8 | (x ^ y));
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // splitmix64 with seed 0: first output 0xE220A8397B1DCDAF.
        let mut g = SplitMix64::new(0);
        assert_eq!(g.next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn mesh_sizes() {
        let w1 = w1();
        assert_eq!(w1.vertices.len(), 600_000 * 32);
        assert_eq!(w1.primitive_count, 200_000);
        let q = quads();
        assert_eq!(q.vertices.len(), 1200 * 32);
        let w6 = w6();
        assert_eq!(w6.vertices.len(), 200_000 * 32);
        assert_eq!(layout().stride, 32);
        assert_eq!(w3_texture()[257], 0x82_01_01_00);
    }

    #[test]
    fn quad_covers_the_target() {
        let q = quads();
        let f = |i: usize| {
            f32::from_le_bytes([
                q.vertices[i],
                q.vertices[i + 1],
                q.vertices[i + 2],
                q.vertices[i + 3],
            ])
        };
        // Second vertex of the first quad: TR at (1024, 0) - 0.5.
        assert_eq!((f(32), f(36)), (1023.5, -0.5));
        assert_eq!(f(8), 0.9);
        assert_eq!(f(12), 1.0);
    }
}
