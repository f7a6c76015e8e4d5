//! Vertex blending and tweening (D3DRS_VERTEXBLEND).
//!
//! *Input*: the VERTEXBLEND mode ([`VertexBlend`]), a vertex's stored
//! blend weights and packed matrix indices, the world(-view) matrices, the
//! TWEENFACTOR. *Output*: blended positions and normals. *Guarantees*:
//! pure, total functions; no indexing with unchecked data (matrix indices
//! out of range are skipped).
//!
//! ## Rules
//! VERTEXBLEND n weights → n + 1 matrices, the last weight is
//! `1 − Σ others`; TWEENING blends two positions by TWEENFACTOR;
//! INDEXEDVERTEXBLENDENABLE reads matrix indices from a packed DWORD.

use crate::math::Matrix;

/// VERTEXBLEND (`D3DVERTEXBLENDFLAGS`, from `softhal-types`): DISABLE
/// (world matrix 0), 1WEIGHTS..3WEIGHTS (n weights in the vertex → n + 1
/// matrices), TWEENING (two positions by TWEENFACTOR), 0WEIGHTS (one
/// matrix, weight 1).
pub use softhal_types::VertexBlendFlags as VertexBlend;

/// Number of matrices mode `blend` blends (1 for DISABLE, 0WEIGHTS and
/// TWEENING).
pub fn matrix_count(blend: VertexBlend) -> usize {
    match blend {
        VertexBlend::Weights1 => 2,
        VertexBlend::Weights2 => 3,
        VertexBlend::Weights3 => 4,
        VertexBlend::Disable | VertexBlend::Tweening | VertexBlend::Weights0 => 1,
    }
}

/// Full weights from the vertex's stored ones: with n stored weights the
/// result has n + 1 entries, the last `1 − Σ stored` (unused entries 0).
pub fn blend_weights(blend: VertexBlend, stored: &[f32]) -> [f32; 4] {
    let n = matrix_count(blend);
    let mut w = [0.0f32; 4];
    let mut sum = 0.0f32;
    for (i, o) in w.iter_mut().enumerate().take(n - 1) {
        *o = stored.get(i).copied().unwrap_or(0.0);
        sum += *o;
    }
    if let Some(last) = w.get_mut(n - 1) {
        *last = 1.0 - sum;
    }
    w
}

/// How matrix indices are packed in the vertex (INDEXEDVERTEXBLENDENABLE).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlendIndexEncoding {
    /// D3DDECLTYPE_UBYTE4: index k is byte k of the DWORD (little endian).
    Ubyte4,
    /// D3DCOLOR (FVF LASTBETA_D3DCOLOR): the DWORD is read as a colour
    /// (R, G, B, A) = (byte 2, byte 1, byte 0, byte 3), index k being the
    /// k-th of those.
    D3dColor,
}

/// The 4 matrix indices of a packed DWORD.
pub fn blend_indices(packed: u32, encoding: BlendIndexEncoding) -> [u8; 4] {
    let b = packed.to_le_bytes();
    match encoding {
        BlendIndexEncoding::Ubyte4 => b,
        BlendIndexEncoding::D3dColor => [b[2], b[1], b[0], b[3]],
    }
}

/// Blends a point (w = 1) through `weights` and `matrices` selected by
/// `indices` (use `[0, 1, 2, 3]` without indexed blending): `Σ wᵢ·(p ·
/// M[indexᵢ])`. Zero weights and indices outside `matrices` are skipped.
pub fn blend_position(
    p: [f32; 3],
    weights: [f32; 4],
    indices: [u8; 4],
    matrices: &[Matrix],
) -> [f32; 4] {
    let mut acc = [0.0f32; 4];
    for (w, i) in weights.iter().zip(indices) {
        if *w == 0.0 {
            continue;
        }
        if let Some(m) = matrices.get(usize::from(i)) {
            let t = m.transform([p[0], p[1], p[2], 1.0]);
            for (a, v) in acc.iter_mut().zip(t) {
                *a += w * v;
            }
        }
    }
    acc
}

/// Blends a normal through the upper-left 3×3 of the given matrices
/// (pass the inverse-transpose world-view matrices), as
/// [`blend_position`]. Not normalized.
pub fn blend_normal(
    n: [f32; 3],
    weights: [f32; 4],
    indices: [u8; 4],
    matrices: &[Matrix],
) -> [f32; 3] {
    let mut acc = [0.0f32; 3];
    for (w, i) in weights.iter().zip(indices) {
        if *w == 0.0 {
            continue;
        }
        if let Some(m) = matrices.get(usize::from(i)) {
            let t = m.transform([n[0], n[1], n[2], 0.0]);
            for (a, v) in acc.iter_mut().zip(t) {
                *a += w * v;
            }
        }
    }
    acc
}

/// TWEENING: `(1 − t)·a + t·b` per component (positions or normals).
pub fn tween(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}
