//! The benchmark workloads (W1–W10), regenerated bit-exactly from the rules of
//! `docs/benchmarks.md`. W7 and W8 draw with shaders (`shader::corpus`) and
//! have vertex layouts of their own (`w7`, `w8`).
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

/// The vertex layout of every mesh but W10's (FVF 0x1C4, 32 bytes).
pub fn layout() -> VertexLayout {
    VertexLayout::packed(PositionKind::Xyzrhw, true, true, &[2])
}

/// The FVF of every mesh but W10's: XYZRHW | DIFFUSE | SPECULAR | TEX1.
pub const FVF: u32 = 0x1C4;
/// W10's FVF: XYZRHW | DIFFUSE | SPECULAR | TEX2 (40 bytes).
pub const FVF_W10: u32 = 0x2C4;

/// One generated vertex, as the workload rules state it (pixel-space
/// position with centres at +0.5, colour bytes, one texture coordinate
/// set, the fog value). Positions stay f64 until they are stored.
#[derive(Debug, Clone, Copy)]
struct Generated {
    x: f64,
    y: f64,
    z: f64,
    rgba: [u8; 4],
    u: f64,
    v: f64,
    fog: f64,
}

impl Generated {
    /// The 28-byte record the workloads' published data hashes are taken
    /// over: x, y, z (f32), r, g, b, a, u, v, fog (f32).
    #[cfg(test)]
    fn hashed(&self, out: &mut Vec<u8>) {
        for f in [self.x, self.y, self.z] {
            out.extend_from_slice(&(f as f32).to_le_bytes());
        }
        out.extend_from_slice(&self.rgba);
        for f in [self.u, self.v, self.fog] {
            out.extend_from_slice(&(f as f32).to_le_bytes());
        }
    }

    /// The D3D9 pre-transformed vertex (FVF 0x1C4): x − 0.5, y − 0.5, z,
    /// rhw = 1, diffuse, specular whose alpha is the fog factor, u, v.
    fn d3d(&self, out: &mut Vec<u8>) {
        self.d3d_position_colours(out, 0);
        out.extend_from_slice(&(self.u as f32).to_le_bytes());
        out.extend_from_slice(&(self.v as f32).to_le_bytes());
    }

    /// Position, diffuse and specular (its RGB `specular_rgb`, its alpha the
    /// fog factor `round(255·(1 − fog))`).
    fn d3d_position_colours(&self, out: &mut Vec<u8>, specular_rgb: u32) {
        for f in [
            (self.x - 0.5) as f32,
            (self.y - 0.5) as f32,
            self.z as f32,
            1.0f32,
        ] {
            out.extend_from_slice(&f.to_le_bytes());
        }
        let [r, g, b, a] = self.rgba;
        out.extend_from_slice(&d3dcolor(a, r, g, b).to_le_bytes());
        let fog = (255.0 * (1.0 - self.fog)).round().clamp(0.0, 255.0) as u32;
        out.extend_from_slice(&(fog << 24 | (specular_rgb & 0x00FF_FFFF)).to_le_bytes());
    }
}

fn d3dcolor(a: u8, r: u8, g: u8, b: u8) -> u32 {
    u32::from_be_bytes([a, r, g, b])
}

fn mesh(topology: Topology, primitive_count: usize, vertices: &[Generated]) -> Mesh {
    let mut out = Vec::with_capacity(vertices.len() * 32);
    for v in vertices {
        v.d3d(&mut out);
    }
    Mesh {
        topology,
        vertices: out,
        primitive_count: primitive_count as u32,
    }
}

/// W1's vertices: 200,000 independent triangles of area 20 px².
fn w1_vertices() -> Vec<Generated> {
    const N: usize = 200_000;
    let mut g = SplitMix64::new(0x5EED_0001);
    let r = (4.0 * 20.0 / (3.0 * 3f64.sqrt())).sqrt();
    let mut out = Vec::with_capacity(N * 3);
    for _ in 0..N {
        let cx = 8.0 + g.f() * (1024.0 - 16.0);
        let cy = 8.0 + g.f() * (768.0 - 16.0);
        let z = g.f();
        let theta = g.f() * 2.0 * PI;
        for k in [0.0, 1.0, 2.0] {
            let a = theta + k * 2.0 * PI / 3.0;
            let (rr, gg, bb) = (g.u8(), g.u8(), g.u8());
            out.push(Generated {
                x: cx + r * a.cos(),
                y: cy + r * a.sin(),
                z,
                rgba: [rr, gg, bb, 255],
                u: 0.0,
                v: 0.0,
                fog: 0.0,
            });
        }
    }
    out
}

/// W1 `small-tris`: 200,000 independent triangles of area 20 px².
pub fn w1() -> Mesh {
    mesh(Topology::TriangleList, 200_000, &w1_vertices())
}

/// The corners TL, TR, BR, BL of the full-screen quads, and the order of
/// the two triangles (TL, TR, BR) and (TL, BR, BL).
const QUAD_CORNERS: [(f64, f64); 4] = [(0.0, 0.0), (1024.0, 0.0), (1024.0, 768.0), (0.0, 768.0)];
const QUAD_ORDER: [usize; 6] = [0, 1, 2, 0, 2, 3];
/// Quads per frame of W2–W5, W9, W10.
const QUADS: usize = 200;

/// The vertices of the 200 full-screen quads (W2–W5, W9, W10), in draw
/// order.
fn quad_vertices() -> Vec<Generated> {
    let mut g = SplitMix64::new(0x5EED_0002);
    let mut out = Vec::with_capacity(QUADS * 6);
    for i in 0..QUADS {
        let z = 0.9 - 0.004 * i as f64;
        let u0 = g.f();
        let v0 = g.f();
        let tex = [
            (u0, v0),
            (u0 + 4.0, v0),
            (u0 + 4.0, v0 + 3.0),
            (u0, v0 + 3.0),
        ];
        let mut colours = [([0u8; 4], 0.0f64); 4];
        for c in colours.iter_mut() {
            let (r, gg, b) = (g.u8(), g.u8(), g.u8());
            let a = 64 + (g.u8() >> 1);
            *c = ([r, gg, b, a], g.f());
        }
        for k in QUAD_ORDER {
            let ((x, y), (u, v), (rgba, fog)) = (QUAD_CORNERS[k], tex[k], colours[k]);
            out.push(Generated {
                x,
                y,
                z,
                rgba,
                u,
                v,
                fog,
            });
        }
    }
    out
}

/// The 200 full-screen quads shared by W2–W5 and W9 (400 triangles).
pub fn quads() -> Mesh {
    mesh(Topology::TriangleList, QUADS * 2, &quad_vertices())
}

/// W10's per-vertex additions, from its own generator: the light-map
/// coordinates (u1, v1) and the specular colour of each vertex of
/// [`quad_vertices`], in the same order.
fn w10_extras(quads: &[Generated]) -> Vec<((f32, f32), [u8; 3])> {
    let mut g = SplitMix64::new(0x5EED_000A);
    let mut out = Vec::with_capacity(quads.len());
    for quad in quads.chunks(6) {
        let (du, dv) = (g.f(), g.f());
        let mut spec = [[0u8; 3]; 4];
        for s in spec.iter_mut() {
            *s = [g.u8() >> 2, g.u8() >> 2, g.u8() >> 2];
        }
        for (v, k) in quad.iter().zip(QUAD_ORDER) {
            // (u, v) as stored (f32), then 0.5·u + du in f64, rounded once.
            let (u, vv) = (f64::from(v.u as f32), f64::from(v.v as f32));
            let uv1 = ((0.5 * u + du) as f32, (0.5 * vv + dv) as f32);
            out.push((uv1, spec[k]));
        }
    }
    out
}

/// W10 `fill-multitexture`: the W2 quads with a specular colour and a
/// second texture-coordinate set (FVF 0x2C4, 40 bytes per vertex).
pub fn w10() -> Mesh {
    let quads = quad_vertices();
    let mut out = Vec::with_capacity(quads.len() * 40);
    for (v, ((u1, v1), [r, g, b])) in quads.iter().zip(w10_extras(&quads)) {
        v.d3d_position_colours(&mut out, u32::from_be_bytes([0, r, g, b]));
        for f in [v.u as f32, v.v as f32, u1, v1] {
            out.extend_from_slice(&f.to_le_bytes());
        }
    }
    Mesh {
        topology: Topology::TriangleList,
        vertices: out,
        primitive_count: (QUADS * 2) as u32,
    }
}

/// W7's vertex stride: position, normal (FLOAT3 each), blend weights
/// (FLOAT4), blend indices (UBYTE4).
pub const W7_STRIDE: u32 = 44;
/// W7's triangles.
const W7_TRIANGLES: usize = 300_000;

/// W7 `vs-skinning`: the 64 bones (rows 0, 1, 2 of each: the constants
/// c9 … c200) and the 900,000 vertices of 300,000 independent triangles
/// (44 bytes each: the declaration of `docs/benchmarks.md`, which is also
/// the layout its data hash is taken over).
pub fn w7() -> (Mesh, Vec<[[f32; 4]; 3]>) {
    let mut g = SplitMix64::new(0x5EED_0007);
    let bones: Vec<[[f32; 4]; 3]> = (0..64)
        .map(|_| {
            let a = (g.f() - 0.5) * 0.3;
            let tx = (g.f() - 0.5) * 16.0;
            let ty = (g.f() - 0.5) * 16.0;
            let tz = (g.f() - 0.5) * 0.04;
            let (s, c) = a.sin_cos();
            [
                [c, -s, 0.0, ((512.0 - c * 512.0) + s * 384.0) + tx],
                [s, c, 0.0, ((384.0 - s * 512.0) - c * 384.0) + ty],
                [0.0, 0.0, 1.0, tz],
            ]
            .map(|row| row.map(|v| v as f32))
        })
        .collect();
    let r = (8.0 / (3.0 * 3f64.sqrt())).sqrt();
    let third = 2.0 * PI / 3.0;
    let mut out = Vec::with_capacity(W7_TRIANGLES * 3 * W7_STRIDE as usize);
    for _ in 0..W7_TRIANGLES {
        let cx = 80.0 + g.f() * 864.0;
        let cy = 80.0 + g.f() * 608.0;
        let z = 0.05 + 0.9 * g.f();
        let theta = g.f() * 2.0 * PI;
        let pos: [[f64; 3]; 3] = std::array::from_fn(|k| {
            let t = theta + k as f64 * third;
            [cx + r * t.cos(), cy + r * t.sin(), z]
        });
        let mut normals = [[0.0f64; 3]; 3];
        for n in normals.iter_mut() {
            let phi = g.f() * 2.0 * PI;
            let nz = -(0.2 + 0.8 * g.f());
            let rr = (1.0 - nz * nz).sqrt();
            *n = [rr * phi.cos(), rr * phi.sin(), nz];
        }
        let indices: [u8; 4] = std::array::from_fn(|_| g.u8() >> 2);
        let w: [f64; 4] = std::array::from_fn(|_| 0.05 + g.f());
        let sum = ((w[0] + w[1]) + w[2]) + w[3];
        for (p, n) in pos.iter().zip(normals) {
            for v in p.iter().chain(&n).copied().chain(w.iter().map(|x| x / sum)) {
                out.extend_from_slice(&(v as f32).to_le_bytes());
            }
            out.extend_from_slice(&indices);
        }
    }
    let mesh = Mesh {
        topology: Topology::TriangleList,
        vertices: out,
        primitive_count: W7_TRIANGLES as u32,
    };
    (mesh, bones)
}

/// W8's FVF: XYZRHW | DIFFUSE | TEX3 | TEXCOORDSIZE2(0) |
/// TEXCOORDSIZE3(1) | TEXCOORDSIZE4(2) (56 bytes per vertex).
pub const FVF_W8: u32 = 0x0024_0344;
/// W8's quads: the first 50 of W2's.
const W8_QUADS: usize = 50;

/// W8's vertices as `docs/benchmarks.md` hashes them (draw order): x, y,
/// z; r, g, b, a; u, v; L; V; fog — and as the D3D9 vertex (FVF_W8):
/// x − 0.5, y − 0.5, z, rhw = 1, diffuse, t0 = (u, v), t1 = L,
/// t2 = (V, fog).
fn w8_vertices() -> Vec<(Generated, [f32; 3], [f32; 3])> {
    let mut g = SplitMix64::new(0x5EED_0008);
    let quads = quad_vertices();
    let mut out = Vec::with_capacity(W8_QUADS * 6);
    for quad in quads.chunks(6).take(W8_QUADS) {
        let mut lv = [([0.0f32; 3], [0.0f32; 3]); 4];
        for c in lv.iter_mut() {
            let mut vec3 =
                || [2.0 * g.f() - 1.0, 2.0 * g.f() - 1.0, 0.25 + g.f()].map(|x| x as f32);
            let l = vec3();
            *c = (l, vec3());
        }
        for (v, k) in quad.iter().zip(QUAD_ORDER) {
            out.push((*v, lv[k].0, lv[k].1));
        }
    }
    out
}

/// W8 `ps-lighting`: 50 full-screen quads for the normal-mapping pixel
/// shader (FVF_W8, 56 bytes per vertex).
pub fn w8() -> Mesh {
    let mut out = Vec::with_capacity(W8_QUADS * 6 * 56);
    for (v, l, e) in w8_vertices() {
        for f in [(v.x - 0.5) as f32, (v.y - 0.5) as f32, v.z as f32, 1.0] {
            out.extend_from_slice(&f.to_le_bytes());
        }
        let [r, gg, b, a] = v.rgba;
        out.extend_from_slice(&d3dcolor(a, r, gg, b).to_le_bytes());
        let t2 = [e[0], e[1], e[2], v.fog as f32];
        for f in [v.u as f32, v.v as f32].iter().chain(&l).chain(&t2) {
            out.extend_from_slice(&f.to_le_bytes());
        }
    }
    Mesh {
        topology: Topology::TriangleList,
        vertices: out,
        primitive_count: (W8_QUADS * 2) as u32,
    }
}

/// The W8 normal map: in each 32 × 32 cell, dx = (x AND 31) − 16,
/// dy = (y AND 31) − 16, R = 128 + 4·dx, G = 128 + 4·dy, B = 192,
/// A = 255 − 8·max(|dx|, |dy|) (the gloss).
pub fn w8_normal_map() -> Vec<u32> {
    texture_256(|x, y| {
        let (dx, dy) = ((x & 31) as i32 - 16, (y & 31) as i32 - 16);
        let a = 255 - 8 * dx.abs().max(dy.abs());
        [128 + 4 * dx, 128 + 4 * dy, 192, a].map(|c| c as u32)
    })
}

/// W6's vertices: 100,000 independent lines of 30 px.
fn w6_vertices() -> Vec<Generated> {
    const N: usize = 100_000;
    let mut g = SplitMix64::new(0x5EED_0006);
    let mut out = Vec::with_capacity(N * 2);
    for _ in 0..N {
        let x0 = 32.0 + g.f() * (1024.0 - 64.0);
        let y0 = 32.0 + g.f() * (768.0 - 64.0);
        let theta = g.f() * 2.0 * PI;
        let (x1, y1) = (x0 + 30.0 * theta.cos(), y0 + 30.0 * theta.sin());
        for (x, y) in [(x0, y0), (x1, y1)] {
            let (r, gg, b) = (g.u8(), g.u8(), g.u8());
            out.push(Generated {
                x,
                y,
                z: 0.5,
                rgba: [r, gg, b, 255],
                u: 0.0,
                v: 0.0,
                fog: 0.0,
            });
        }
    }
    out
}

/// W6 `lines`: 100,000 independent lines of 30 px.
pub fn w6() -> Mesh {
    mesh(Topology::LineList, 100_000, &w6_vertices())
}

/// The W3/W4/W10 colour map: 256 × 256 A8R8G8B8 texels, row-major,
/// D3DCOLOR values (R = x, G = y, B = x XOR y, A = 128 + ((x + y) AND 127)).
pub fn w3_texture() -> Vec<u32> {
    texture_256(|x, y| [x, y, x ^ y, 128 + ((x + y) & 127)])
}

/// The W10 light map: 256 × 256 A8R8G8B8 texels, row-major, grey
/// `L = 64 + (((x AND 63)·(y AND 63)) >> 5)`, alpha 255.
pub fn w10_light_map() -> Vec<u32> {
    texture_256(|x, y| {
        let l = 64 + (((x & 63) * (y & 63)) >> 5);
        [l, l, l, 255]
    })
}

/// A 256 × 256 texture of D3DCOLOR texels from `rgba(x, y)` (channels
/// 0..=255), row 0 first.
fn texture_256(rgba: impl Fn(u32, u32) -> [u32; 4]) -> Vec<u32> {
    let mut t = Vec::with_capacity(256 * 256);
    for y in 0..256u32 {
        for x in 0..256u32 {
            let [r, g, b, a] = rgba(x, y);
            t.push(a << 24 | r << 16 | g << 8 | b);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use softhal_capture::fnv1a64;

    fn hashed(vertices: &[Generated]) -> Vec<u8> {
        let mut out = Vec::new();
        for v in vertices {
            v.hashed(&mut out);
        }
        out
    }

    fn texture_bytes(texels: &[u32]) -> Vec<u8> {
        // RGBA8, row 0 first.
        texels
            .iter()
            .flat_map(|&c| {
                let [a, r, g, b] = c.to_be_bytes();
                [r, g, b, a]
            })
            .collect()
    }

    // The published FNV-1a 64 hashes of the generated data (the workload
    // definitions' table of reference values): regenerating any other value
    // would benchmark other work.

    #[test]
    fn w1_data_hash() {
        let b = hashed(&w1_vertices());
        assert_eq!(b.len(), 16_800_000);
        assert_eq!(fnv1a64(&b), 0x4a35_1dcd_744d_81d7);
    }

    #[test]
    fn quad_data_hash() {
        let b = hashed(&quad_vertices());
        assert_eq!(b.len(), 33_600);
        assert_eq!(fnv1a64(&b), 0xdff3_9ddc_a826_c628);
    }

    #[test]
    fn w6_data_hash() {
        let b = hashed(&w6_vertices());
        assert_eq!(b.len(), 5_600_000);
        assert_eq!(fnv1a64(&b), 0x915b_956d_9ce6_2444);
    }

    #[test]
    fn texture_hashes() {
        assert_eq!(
            fnv1a64(&texture_bytes(&w3_texture())),
            0xe462_cfbb_6766_c325
        );
        assert_eq!(
            fnv1a64(&texture_bytes(&w10_light_map())),
            0x9edc_aae7_2e0b_a225
        );
    }

    #[test]
    fn w7_data_hashes() {
        let (mesh, bones) = w7();
        let b: Vec<u8> = bones
            .iter()
            .flatten()
            .flatten()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        assert_eq!(b.len(), 3_072);
        assert_eq!(fnv1a64(&b), 0xf237_78a3_fa76_eef7);
        assert_eq!(mesh.vertices.len(), 39_600_000);
        assert_eq!(fnv1a64(&mesh.vertices), 0x1dee_547a_639f_96c8);
    }

    #[test]
    fn w8_data_hashes() {
        // x, y, z; r, g, b, a; u, v; L; V; fog.
        let mut b = Vec::new();
        for (v, l, e) in w8_vertices() {
            for f in [v.x, v.y, v.z] {
                b.extend_from_slice(&(f as f32).to_le_bytes());
            }
            b.extend_from_slice(&v.rgba);
            let tail = [
                v.u as f32,
                v.v as f32,
                l[0],
                l[1],
                l[2],
                e[0],
                e[1],
                e[2],
                v.fog as f32,
            ];
            for f in tail {
                b.extend_from_slice(&f.to_le_bytes());
            }
        }
        assert_eq!(b.len(), 15_600);
        assert_eq!(fnv1a64(&b), 0x645a_7b5e_abab_08a8);
        assert_eq!(
            fnv1a64(&texture_bytes(&w8_normal_map())),
            0x5304_c4c3_96b9_f325
        );
        // The D3D9 vertices: 56 bytes each (FVF_W8).
        assert_eq!(w8().vertices.len(), 300 * 56);
        assert_eq!(softhal_wire::fvf::vertex_stride(FVF_W8).ok(), Some(56));
    }

    #[test]
    fn w10_data_hash() {
        // x, y, z; r, g, b, a; sr, sg, sb, sa = 0; u, v, u1, v1, fog.
        let quads = quad_vertices();
        let mut b = Vec::new();
        for (v, ((u1, v1), [sr, sg, sb])) in quads.iter().zip(w10_extras(&quads)) {
            for f in [v.x, v.y, v.z] {
                b.extend_from_slice(&(f as f32).to_le_bytes());
            }
            b.extend_from_slice(&v.rgba);
            b.extend_from_slice(&[sr, sg, sb, 0]);
            for f in [v.u as f32, v.v as f32, u1, v1, v.fog as f32] {
                b.extend_from_slice(&f.to_le_bytes());
            }
        }
        assert_eq!(b.len(), 48_000);
        assert_eq!(fnv1a64(&b), 0xafef_8f71_4355_6239);
    }

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
        assert_eq!(w10().vertices.len(), 1200 * 40);
        assert_eq!(w3_texture()[257], 0x82_01_01_00);
    }

    fn f32_at(b: &[u8], i: usize) -> f32 {
        f32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
    }

    #[test]
    fn quad_covers_the_target() {
        let q = quads();
        // Second vertex of the first quad: TR at (1024, 0) - 0.5.
        assert_eq!(
            (f32_at(&q.vertices, 32), f32_at(&q.vertices, 36)),
            (1023.5, -0.5)
        );
        assert_eq!(f32_at(&q.vertices, 8), 0.9);
        assert_eq!(f32_at(&q.vertices, 12), 1.0);
    }

    #[test]
    fn w10_vertex_layout() {
        // x, y, z, rhw, diffuse, specular (fog factor in alpha), u, v, u1, v1.
        let w = w10();
        let q = quads();
        // Position, diffuse and the fog factor are W2's.
        assert_eq!(w.vertices[0..20], q.vertices[0..20]);
        assert_eq!(w.vertices[23], q.vertices[23]);
        // Stage-0 coordinates are W2's; stage-1 are 0.5·u + du.
        assert_eq!(w.vertices[24..32], q.vertices[24..32]);
        let (u, u1) = (f32_at(&w.vertices, 24), f32_at(&w.vertices, 32));
        let du = f64::from(u1) - 0.5 * f64::from(u);
        assert!((0.0..1.0).contains(&du), "du = {du}");
        // Specular colour channels are 0..=63.
        assert!(w.vertices[20..23].iter().all(|&c| c < 64));
    }
}
