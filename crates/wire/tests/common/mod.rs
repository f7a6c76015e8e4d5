//! Shared test helpers: a deterministic generator of random canonical DP2
//! streams covering every opcode.
#![allow(dead_code)]

use softhal_wire::{DecodeOptions, Opcode};

/// The shared deterministic generator (splitmix64, from `softhal_testkit`).
pub use softhal_testkit::Rng;

fn header(out: &mut Vec<u8>, op: u8, count: u16) {
    out.extend_from_slice(&[op, 0]);
    out.extend_from_slice(&count.to_le_bytes());
}

fn pad_to_dword(out: &mut Vec<u8>, base_align: usize) {
    while (base_align + out.len()) & 3 != 0 {
        out.push(0);
    }
}

/// Appends one random canonical command with opcode `op` to `out`.
pub fn random_command(rng: &mut Rng, op: Opcode, out: &mut Vec<u8>, opts: DecodeOptions) {
    use Opcode as O;
    let small = |rng: &mut Rng| rng.below(4) as u16;
    if let Some(d) = softhal_wire::text::fixed_record(op) {
        let n = small(rng);
        header(out, op.raw(), n);
        let b = rng.bytes(d.size * usize::from(n));
        out.extend_from_slice(&b);
        return;
    }
    match op {
        O::Reserved0 => header(out, op.raw(), rng.u16()),
        O::LineList | O::LineStrip | O::TriangleList | O::TriangleStrip | O::TriangleFan => {
            header(out, op.raw(), rng.u16());
            out.extend_from_slice(&rng.bytes(2));
        }
        O::IndexedLineStrip | O::IndexedTriangleStrip | O::IndexedTriangleFan => {
            let n = small(rng);
            let extra = if op == O::IndexedLineStrip { 1 } else { 2 };
            header(out, op.raw(), n);
            out.extend_from_slice(&rng.bytes(2 + 2 * (usize::from(n) + extra)));
        }
        O::TriangleFanImm | O::LineListImm => {
            let n = small(rng);
            header(out, op.raw(), n);
            let verts = if op == O::TriangleFanImm {
                out.extend_from_slice(&rng.bytes(4));
                usize::from(n) + 2
            } else {
                2 * usize::from(n)
            };
            pad_to_dword(out, opts.base_align);
            let b = rng.bytes(verts * opts.vertex_stride as usize);
            out.extend_from_slice(&b);
        }
        O::IndexedTriangleList2 | O::IndexedLineList2 => {
            let n = small(rng);
            header(out, op.raw(), n);
            let per = if op == O::IndexedTriangleList2 { 6 } else { 4 };
            out.extend_from_slice(&rng.bytes(2 + per * usize::from(n)));
        }
        O::UpdatePalette => {
            header(out, op.raw(), rng.u16());
            let k = small(rng);
            out.extend_from_slice(&rng.bytes(4));
            out.extend_from_slice(&rng.u16().to_le_bytes());
            out.extend_from_slice(&k.to_le_bytes());
            out.extend_from_slice(&rng.bytes(4 * usize::from(k)));
        }
        O::Clear => {
            let n = small(rng);
            header(out, op.raw(), n);
            out.extend_from_slice(&rng.bytes(16));
            if n == 0 {
                out.extend_from_slice(&[0; 16]);
            } else {
                out.extend_from_slice(&rng.bytes(16 * usize::from(n)));
            }
        }
        O::SetLight => {
            let n = small(rng);
            header(out, op.raw(), n);
            for _ in 0..n {
                out.extend_from_slice(&rng.bytes(4));
                let t = rng.below(4) as u32;
                out.extend_from_slice(&t.to_le_bytes());
                if t == 2 {
                    out.extend_from_slice(&rng.bytes(104));
                }
            }
        }
        O::CreateVertexShader => {
            let n = small(rng);
            header(out, op.raw(), n);
            for _ in 0..n {
                let (d, c) = (rng.below(12) as u32, rng.below(12) as u32);
                out.extend_from_slice(&rng.bytes(4));
                out.extend_from_slice(&d.to_le_bytes());
                out.extend_from_slice(&c.to_le_bytes());
                out.extend_from_slice(&rng.bytes((d + c) as usize));
            }
        }
        O::SetVertexShaderConst
        | O::SetPixelShaderConst
        | O::SetVertexShaderConstI
        | O::SetPixelShaderConstI
        | O::SetVertexShaderConstB
        | O::SetPixelShaderConstB => {
            let per = if matches!(op, O::SetVertexShaderConstB | O::SetPixelShaderConstB) {
                4
            } else {
                16
            };
            let n = small(rng);
            header(out, op.raw(), n);
            for _ in 0..n {
                let c = rng.below(3) as u32;
                out.extend_from_slice(&rng.bytes(4));
                out.extend_from_slice(&c.to_le_bytes());
                out.extend_from_slice(&rng.bytes(per * c as usize));
            }
        }
        O::CreatePixelShader | O::CreateVertexShaderFunc | O::ResponseQuery => {
            let n = small(rng);
            let total_at = out.len() + 4;
            header(out, op.raw(), n);
            if op == O::ResponseQuery {
                out.extend_from_slice(&[0; 4]);
            }
            for _ in 0..n {
                let c = rng.below(12) as u32;
                out.extend_from_slice(&rng.bytes(4));
                out.extend_from_slice(&c.to_le_bytes());
                out.extend_from_slice(&rng.bytes(c as usize));
            }
            if op == O::ResponseQuery {
                let total = (out.len() - total_at + 4) as u32;
                out[total_at..total_at + 4].copy_from_slice(&total.to_le_bytes());
            }
        }
        O::ResponseContinue => {
            header(out, op.raw(), rng.below(3) as u16);
            let extra = rng.below(6) as u32;
            out.extend_from_slice(&(8 + extra).to_le_bytes());
            out.extend_from_slice(&rng.bytes(extra as usize));
        }
        O::DrawRectPatch | O::DrawTriPatch => {
            let n = small(rng);
            header(out, op.raw(), n);
            let (s, i) = if op == O::DrawRectPatch {
                (16, 28)
            } else {
                (12, 16)
            };
            for _ in 0..n {
                let flags = rng.below(4) as u32 | ((rng.below(2) as u32) << 7);
                out.extend_from_slice(&rng.bytes(4));
                out.extend_from_slice(&flags.to_le_bytes());
                if flags & 1 != 0 {
                    out.extend_from_slice(&rng.bytes(s));
                }
                if flags & 2 != 0 {
                    out.extend_from_slice(&rng.bytes(i));
                }
            }
        }
        O::CreateVertexShaderDecl => {
            let n = small(rng);
            header(out, op.raw(), n);
            for _ in 0..n {
                let k = rng.below(4) as u32;
                out.extend_from_slice(&rng.bytes(4));
                out.extend_from_slice(&k.to_le_bytes());
                out.extend_from_slice(&rng.bytes(8 * k as usize));
            }
        }
        O::SetConvolutionKernelMono => {
            let n = small(rng);
            header(out, op.raw(), n);
            for _ in 0..n {
                let (w, h, f) = (
                    rng.below(8) as u32,
                    rng.below(8) as u32,
                    rng.below(4) as u32,
                );
                out.extend_from_slice(&w.to_le_bytes());
                out.extend_from_slice(&h.to_le_bytes());
                out.extend_from_slice(&f.to_le_bytes());
                let words = if f & 1 != 0 { w } else { 0 } + if f & 2 != 0 { h } else { 0 };
                out.extend_from_slice(&rng.bytes(4 * words as usize));
            }
        }
        other => panic!("generator misses {}", other.name()),
    }
}

/// A random canonical stream of `len` commands.
pub fn random_stream(seed: u64, len: usize, opts: DecodeOptions) -> Vec<u8> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for _ in 0..len {
        let op = Opcode::ALL[rng.below(Opcode::ALL.len() as u64) as usize];
        random_command(&mut rng, op, &mut out, opts);
    }
    out
}

/// Reads a test data file from the repository's `testdata/`.
pub fn testdata(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(path)
}

/// Compares `actual` with a golden file (see `softhal_testkit`).
pub use softhal_testkit::check_golden_text as check_golden;
