//! Decode throughput of the DP2 wire layer.
//!
//! Two synthetic streams of a little over 1 MiB each, built with
//! [`softhal_wire::Encoder`] the way a DX7–DX9 runtime fills its command
//! buffers:
//!
//! * `render_state_heavy`: RENDERSTATE and TEXTURESTAGESTATE commands of
//!   1–8 records each, with a VIEWPORTINFO and a SETTRANSFORM every few
//!   commands (many small commands: this measures per-command overhead);
//! * `primitive_heavy`: INDEXEDTRIANGLELIST2, TRIANGLELIST,
//!   DRAWINDEXEDPRIMITIVE and INDEXEDTRIANGLESTRIP with realistic counts, and
//!   some TRIANGLEFAN_IMM with inline vertices of a 20-byte FVF
//!   (`D3DFVF_XYZRHW|D3DFVF_DIFFUSE`).
//!
//! The benchmark walks every command with [`Decoder`] and touches each
//! payload view (record counts and byte lengths are summed into a
//! `black_box`ed total). Throughput is reported in bytes of command stream.
//!
//! Run: `cargo bench -p softhal-wire --bench decode`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use softhal_wire::structs::{
    Dp2DrawIndexedPrimitive, Dp2Index, Dp2IndexedTriangleList2, Dp2SetTransform, Dp2StartVertex,
};
use softhal_wire::{Command, DecodeOptions, Decoder, Encoder, Opcode};
use std::hint::black_box;

/// Vertex stride of `D3DFVF_XYZRHW|D3DFVF_DIFFUSE`.
const STRIDE: u32 = 20;
const OPTS: DecodeOptions = DecodeOptions {
    vertex_stride: STRIDE,
    base_align: 0,
};
/// Minimum size of each stream.
const MIN_BYTES: usize = 1 << 20;

/// A small deterministic generator (xorshift64*), so that every run
/// measures the same bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + (self.next() % u64::from(hi - lo + 1)) as u32
    }
}

/// RENDERSTATE / TEXTURESTAGESTATE commands of 1–8 records, with a
/// VIEWPORTINFO and a SETTRANSFORM now and then.
fn render_state_heavy() -> Vec<u8> {
    let mut rng = Rng(0x5EED_0001);
    let mut e = Encoder::new(OPTS);
    // Commands since the last VIEWPORTINFO / SETTRANSFORM.
    let (mut since_viewport, mut since_transform) = (0u32, 0u32);
    while e.len() < MIN_BYTES {
        since_viewport += 1;
        since_transform += 1;
        let n = rng.range(1, 8) as usize;
        // One command in three sets texture-stage states.
        if rng.range(0, 2) == 0 {
            let tss: Vec<(u16, u16, u32)> = (0..n)
                .map(|_| {
                    (
                        rng.range(0, 7) as u16,
                        rng.range(1, 32) as u16,
                        rng.range(0, 0xFFFF),
                    )
                })
                .collect();
            e.texture_stage_states(&tss).expect("TEXTURESTAGESTATE");
        } else {
            let rs: Vec<(u32, u32)> = (0..n)
                .map(|_| (rng.range(7, 209), rng.range(0, 0xFFFF)))
                .collect();
            e.render_states(&rs).expect("RENDERSTATE");
        }
        if since_viewport == 16 {
            since_viewport = 0;
            e.viewport(0, 0, 640, 480).expect("VIEWPORTINFO");
        }
        if since_transform == 24 {
            since_transform = 0;
            let s = rng.range(1, 4) as f32;
            let m = [
                [s, 0.0, 0.0, 0.0],
                [0.0, s, 0.0, 0.0],
                [0.0, 0.0, s, 0.0],
                [0.0, 0.0, 0.0, 1.0],
            ];
            // D3DTS_WORLD = 256.
            e.push(&Command::SetTransform(&[Dp2SetTransform::from_matrix(
                256, m,
            )]))
            .expect("SETTRANSFORM");
        }
    }
    e.into_bytes()
}

/// Indexed and non-indexed draws with realistic counts, and some
/// TRIANGLEFAN_IMM with inline 20-byte vertices.
fn primitive_heavy() -> Vec<u8> {
    let mut rng = Rng(0x5EED_0002);
    let mut e = Encoder::new(OPTS);
    let start = Dp2StartVertex { v_start: 0.into() };
    while e.len() < MIN_BYTES {
        match rng.next() % 10 {
            // INDEXEDTRIANGLELIST2: 16–512 triangles (the DX7 workhorse).
            0..=3 => {
                let n = rng.range(16, 512);
                let tris: Vec<Dp2IndexedTriangleList2> = (0..n)
                    .map(|t| {
                        let b = (t % 1000) as u16;
                        Dp2IndexedTriangleList2 {
                            v1: b.into(),
                            v2: (b + 1).into(),
                            v3: (b + 2).into(),
                        }
                    })
                    .collect();
                e.push(&Command::IndexedTriangleList2 {
                    start: &start,
                    triangles: &tris,
                })
                .expect("INDEXEDTRIANGLELIST2");
            }
            // TRIANGLELIST: 1–300 triangles from the vertex buffer.
            4 | 5 => {
                let n = rng.range(1, 300) as u16;
                e.primitive(Opcode::TriangleList, n, rng.range(0, 1000) as u16)
                    .expect("TRIANGLELIST");
            }
            // DRAWINDEXEDPRIMITIVE: 1–3 records.
            6 | 7 => {
                let recs: Vec<Dp2DrawIndexedPrimitive> = (0..rng.range(1, 3))
                    .map(|_| Dp2DrawIndexedPrimitive {
                        prim_type: 4.into(), // D3DPT_TRIANGLELIST
                        base_vertex_index: 0.into(),
                        min_index: 0.into(),
                        num_vertices: rng.range(3, 4096).into(),
                        start_index: rng.range(0, 30_000).into(),
                        primitive_count: rng.range(1, 2000).into(),
                    })
                    .collect();
                e.push(&Command::DrawIndexedPrimitive(&recs))
                    .expect("DRAWINDEXEDPRIMITIVE");
            }
            // INDEXEDTRIANGLESTRIP: 8–256 triangles.
            8 => {
                let n = rng.range(8, 256);
                let idx: Vec<Dp2Index> = (0..n + 2)
                    .map(|k| Dp2Index {
                        index: (k as u16).into(),
                    })
                    .collect();
                e.push(&Command::IndexedTriangleStrip {
                    count: n as u16,
                    start: &start,
                    indices: &idx,
                })
                .expect("INDEXEDTRIANGLESTRIP");
            }
            // TRIANGLEFAN_IMM: 2–14 triangles of inline vertices.
            _ => {
                let n = rng.range(2, 14) as u16;
                let verts = vec![0x3Fu8; (usize::from(n) + 2) * STRIDE as usize];
                e.triangle_fan_imm(n, 0x7, &verts).expect("TRIANGLEFAN_IMM");
            }
        }
    }
    e.into_bytes()
}

/// Walks the stream and touches every payload view: returns the sum of the
/// record counts and payload byte lengths, so nothing can be skipped.
fn walk(bytes: &[u8]) -> usize {
    let mut total = 0usize;
    for item in Decoder::new(bytes, OPTS) {
        let cmd = match item {
            Ok(c) => c,
            Err(e) => panic!("benchmark stream does not decode: {e}"),
        };
        total += cmd.size;
        total += match cmd.command {
            Command::RenderState(r) => r.len() + r.last().map_or(0, |s| s.value.get() as usize),
            Command::TextureStageState(r) => {
                r.len() + r.last().map_or(0, |s| s.value.get() as usize)
            }
            Command::ViewportInfo(r) => r.len() + r.last().map_or(0, |v| v.width.get() as usize),
            Command::SetTransform(r) => {
                r.len() + r.first().map_or(0, |t| t.transform_type.get() as usize)
            }
            Command::IndexedTriangleList2 { start, triangles } => {
                usize::from(start.v_start.get())
                    + triangles.len()
                    + triangles.last().map_or(0, |t| usize::from(t.v3.get()))
            }
            Command::TriangleList { count, start } => {
                usize::from(count) + usize::from(start.v_start.get())
            }
            Command::DrawIndexedPrimitive(r) => {
                r.len() + r.last().map_or(0, |d| d.primitive_count.get() as usize)
            }
            Command::IndexedTriangleStrip {
                count,
                start,
                indices,
            } => usize::from(count) + usize::from(start.v_start.get()) + indices.len(),
            Command::TriangleFanImm {
                count,
                edge_flags,
                vertices,
            } => usize::from(count) + edge_flags.edge_flags.get() as usize + vertices.len(),
            other => panic!("unexpected command in benchmark stream: {other:?}"),
        };
    }
    total
}

fn bench_decode(c: &mut Criterion) {
    let streams = [
        ("render_state_heavy", render_state_heavy()),
        ("primitive_heavy", primitive_heavy()),
    ];
    let mut group = c.benchmark_group("decode");
    for (name, bytes) in &streams {
        assert!(bytes.len() >= MIN_BYTES);
        // Sanity: the walk covers the whole stream.
        let commands = Decoder::new(bytes, OPTS).count();
        let covered: usize = Decoder::new(bytes, OPTS)
            .map(|c| c.map_or(0, |c| c.size))
            .sum();
        assert_eq!(
            covered,
            bytes.len(),
            "{name}: decoded extents must cover the stream"
        );
        eprintln!("{name}: {} bytes, {commands} commands", bytes.len());
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(*name, |b| b.iter(|| walk(black_box(bytes))));
    }
    group.finish();
}

criterion_group!(benches, bench_decode);
criterion_main!(benches);
