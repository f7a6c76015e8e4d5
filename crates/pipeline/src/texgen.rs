//! Texture-coordinate generation and transforms, point sizes and point
//! sprites, vertex blending (Pipeline II).
//!
//! *Input*: per-vertex data (texture coordinates, camera-space position
//! and normal, blend weights and indices) and the related states, each
//! built from D3D numbers with `from_d3d`. *Output*: texture coordinates
//! to interpolate, point sizes, sprite coordinates, blended positions.
//! *Guarantees*: pure, total functions (NaN propagates only where the
//! input was NaN; divisions by zero are defined as documented); no
//! indexing with unchecked data (matrix indices out of range are skipped).
//!
//! ## Texture coordinates (per stage)
//! 1. [`TexCoordIndex`]: the coordinate set (low 16 bits) and the
//!    generation mode (high bits). PASSTHRU reads the set; the others
//!    generate a 3-vector in camera space: the normal, the position, the
//!    reflection vector `R = 2(E·N)N − E` with `E = normalize(−position)`
//!    (LOCALVIEWER) or `(0, 0, −1)`, or SPHEREMAP `(Rx/m + ½, Ry/m + ½)`
//!    with `m = 2·sqrt(Rx² + Ry² + (Rz − 1)²)` (the sphere map faces the
//!    viewer, who looks down +z; this mirrors the OpenGL sphere-map
//!    formula into D3D's left-handed camera space — the sign of the v
//!    axis is UNCONFIRMED against Windows).
//! 2. [`TextureTransform`] (TEXTURETRANSFORMFLAGS) with the stage's 4×4
//!    matrix (row vector · matrix). The input is expanded to 4 components
//!    the D3D way: the first missing component is 1 and the others 0, i.e.
//!    `(u) → (u, 1, 0, 0)`, `(u, v) → (u, v, 1, 0)`, `(u, v, w) → (u, v,
//!    w, 1)` — which is why a 2D coordinate's translation lives in the
//!    matrix's third row. Generated coordinates are 3-vectors (→ `w = 1`).
//!    COUNTn keeps n output components; with PROJECTED the rasterizer
//!    divides the first n − 1 components by the n-th per pixel
//!    ([`project`]).
//!
//! ## Point size (D3D9)
//! `size = POINTSIZE` (or the vertex's PSIZE), then with POINTSCALEENABLE
//! (untransformed vertices only) `size = viewport_height · size ·
//! sqrt(1 / (A + B·d + C·d²))` with d the camera-space distance; clamped to
//! `[POINTSIZE_MIN, POINTSIZE_MAX]` and to [`MAX_POINT_SIZE`]. The vertex
//! stage computes it for every vertex of a draw that rasterizes points;
//! set-up turns points larger than one pixel into squares, and with
//! POINTSPRITEENABLE the rasterizer gives every stage the coordinates of
//! [`point_sprite_texcoord`].
//!
//! ## Vertex blending
//! VERTEXBLEND n weights → n + 1 matrices, the last weight is
//! `1 − Σ others`; TWEENING blends two positions by TWEENFACTOR;
//! INDEXEDVERTEXBLENDENABLE reads matrix indices from a packed DWORD.

use crate::state::Matrix;

/// Largest point size, in pixels (the device's MaxPointSize cap).
pub const MAX_POINT_SIZE: f32 = 256.0;

/// Texture-coordinate generation mode (D3DTSS_TCI_*).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TexGenMode {
    /// Coordinates from the vertex.
    #[default]
    PassThru,
    /// Camera-space normal.
    CameraSpaceNormal,
    /// Camera-space position.
    CameraSpacePosition,
    /// Camera-space reflection vector.
    CameraSpaceReflectionVector,
    /// Sphere-map coordinates.
    SphereMap,
}

/// D3DTSS_TEXCOORDINDEX decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TexCoordIndex {
    /// Coordinate set read by PASSTHRU (low 16 bits).
    pub set: u16,
    /// Generation mode (high 16 bits).
    pub mode: TexGenMode,
}

impl TexCoordIndex {
    /// From a TEXCOORDINDEX value; `None` for an unknown mode.
    pub fn from_d3d(v: u32) -> Option<Self> {
        let mode = match v >> 16 {
            0 => TexGenMode::PassThru,
            1 => TexGenMode::CameraSpaceNormal,
            2 => TexGenMode::CameraSpacePosition,
            3 => TexGenMode::CameraSpaceReflectionVector,
            4 => TexGenMode::SphereMap,
            _ => return None,
        };
        Some(TexCoordIndex {
            set: (v & 0xFFFF) as u16,
            mode,
        })
    }

    /// The TEXCOORDINDEX value (inverse of [`TexCoordIndex::from_d3d`]):
    /// the set in the low 16 bits, the D3DTSS_TCI_* mode in the high ones.
    pub fn d3d(self) -> u32 {
        let mode: u32 = match self.mode {
            TexGenMode::PassThru => 0,
            TexGenMode::CameraSpaceNormal => 1,
            TexGenMode::CameraSpacePosition => 2,
            TexGenMode::CameraSpaceReflectionVector => 3,
            TexGenMode::SphereMap => 4,
        };
        u32::from(self.set) | (mode << 16)
    }
}

#[inline]
fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn normalize(v: [f32; 3]) -> [f32; 3] {
    let l = dot(v, v).sqrt();
    if l > 0.0 && l.is_finite() {
        v.map(|c| c / l)
    } else {
        [0.0; 3]
    }
}

/// The camera-space reflection vector `2(E·N)N − E` (see module docs);
/// `normal` is normalized first.
pub fn reflection_vector(
    position_cs: [f32; 3],
    normal_cs: [f32; 3],
    local_viewer: bool,
) -> [f32; 3] {
    let n = normalize(normal_cs);
    let e = if local_viewer {
        normalize(position_cs.map(|c| -c))
    } else {
        [0.0, 0.0, -1.0]
    };
    let k = 2.0 * dot(e, n);
    [k * n[0] - e[0], k * n[1] - e[1], k * n[2] - e[2]]
}

/// Generated (or passed-through) coordinates as a 4-vector plus the
/// number of meaningful components.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TexCoords {
    /// Components; the unused ones are 0.
    pub v: [f32; 4],
    /// How many components are meaningful (1..=4).
    pub count: u8,
}

/// Applies a generation mode. `passthru` is the vertex's coordinate set
/// (`count` components) used by PASSTHRU.
pub fn generate(
    mode: TexGenMode,
    passthru: TexCoords,
    position_cs: [f32; 3],
    normal_cs: [f32; 3],
    local_viewer: bool,
) -> TexCoords {
    let three = |v: [f32; 3]| TexCoords {
        v: [v[0], v[1], v[2], 0.0],
        count: 3,
    };
    match mode {
        TexGenMode::PassThru => passthru,
        TexGenMode::CameraSpaceNormal => three(normal_cs),
        TexGenMode::CameraSpacePosition => three(position_cs),
        TexGenMode::CameraSpaceReflectionVector => {
            three(reflection_vector(position_cs, normal_cs, local_viewer))
        }
        TexGenMode::SphereMap => {
            let r = reflection_vector(position_cs, normal_cs, local_viewer);
            let m = 2.0 * (r[0] * r[0] + r[1] * r[1] + (r[2] - 1.0) * (r[2] - 1.0)).sqrt();
            let (u, v) = if m > 0.0 {
                (r[0] / m + 0.5, r[1] / m + 0.5)
            } else {
                (0.5, 0.5)
            };
            TexCoords {
                v: [u, v, 0.0, 0.0],
                count: 2,
            }
        }
    }
}

/// D3DTSS_TEXTURETRANSFORMFLAGS decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TextureTransform {
    /// COUNTn (0 = DISABLE: no matrix, coordinates pass unchanged).
    pub count: u8,
    /// D3DTTFF_PROJECTED.
    pub projected: bool,
}

impl TextureTransform {
    /// From a D3DTTFF value (count 0..=4 in the low byte, PROJECTED
    /// 0x100); `None` for other bits or counts.
    pub fn from_d3d(v: u32) -> Option<Self> {
        if v & !0x1FF != 0 || v & 0xFF > 4 {
            return None;
        }
        Some(TextureTransform {
            count: (v & 0xFF) as u8,
            projected: v & 0x100 != 0,
        })
    }

    /// The D3DTTFF value (inverse of [`TextureTransform::from_d3d`]).
    pub fn d3d(self) -> u32 {
        u32::from(self.count) | (u32::from(self.projected) << 8)
    }
}

/// Expands coordinates to 4 components the D3D way: first missing
/// component 1, the rest 0.
pub fn expand_to_4(c: TexCoords) -> [f32; 4] {
    let n = usize::from(c.count.clamp(1, 4));
    let mut out = [0.0f32; 4];
    for (i, o) in out.iter_mut().enumerate() {
        *o = match i.cmp(&n) {
            std::cmp::Ordering::Less => c.v[i],
            std::cmp::Ordering::Equal => 1.0,
            std::cmp::Ordering::Greater => 0.0,
        };
    }
    out
}

/// Output of [`transform_tex_coords`]: what the rasterizer interpolates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TransformedTexCoords {
    /// The coordinates (components past `count` are 0).
    pub v: [f32; 4],
    /// Number of components.
    pub count: u8,
    /// Whether the rasterizer must divide by the last component
    /// ([`project`]).
    pub projected: bool,
}

/// Applies TEXTURETRANSFORMFLAGS and the stage's texture matrix.
/// DISABLE passes the coordinates unchanged (not projected).
pub fn transform_tex_coords(
    c: TexCoords,
    flags: TextureTransform,
    matrix: &Matrix,
) -> TransformedTexCoords {
    if flags.count == 0 {
        return TransformedTexCoords {
            v: c.v,
            count: c.count,
            projected: false,
        };
    }
    let t = matrix.transform(expand_to_4(c));
    let n = usize::from(flags.count);
    let mut v = [0.0f32; 4];
    for (i, o) in v.iter_mut().enumerate().take(n) {
        *o = t[i];
    }
    TransformedTexCoords {
        v,
        count: flags.count,
        projected: flags.projected && flags.count >= 2,
    }
}

/// Per-pixel projection: divides the first `count − 1` components by the
/// `count`-th (interpolated) one, when `projected`. A zero divisor gives
/// 0 for those components (never Inf/NaN from the division itself).
pub fn project(c: TransformedTexCoords) -> [f32; 4] {
    if !c.projected || c.count < 2 {
        return c.v;
    }
    let last = usize::from(c.count.min(4)) - 1;
    let q = c.v[last];
    let mut out = c.v;
    for o in out.iter_mut().take(last) {
        *o = if q != 0.0 { *o / q } else { 0.0 };
    }
    out
}

/// Point-size states.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointState {
    /// POINTSIZE.
    pub size: f32,
    /// POINTSIZE_MIN.
    pub min: f32,
    /// POINTSIZE_MAX.
    pub max: f32,
    /// POINTSCALEENABLE.
    pub scale_enable: bool,
    /// POINTSCALE_A, _B, _C.
    pub scale: [f32; 3],
    /// POINTSPRITEENABLE.
    pub sprite_enable: bool,
}

impl Default for PointState {
    /// D3D9 defaults: size 1, min 1, max 64, no scaling, A = 1, B = C = 0,
    /// no sprites.
    fn default() -> Self {
        PointState {
            size: 1.0,
            min: 1.0,
            max: 64.0,
            scale_enable: false,
            scale: [1.0, 0.0, 0.0],
            sprite_enable: false,
        }
    }
}

/// The rasterized size of a point, in pixels (module docs).
/// `vertex_size` is the vertex's PSIZE if it has one; `eye_distance` the
/// camera-space distance; scaling only applies when `pretransformed` is
/// false. A non-positive or NaN scale denominator leaves the size
/// unscaled.
pub fn point_size(
    state: &PointState,
    vertex_size: Option<f32>,
    eye_distance: f32,
    viewport_height: f32,
    pretransformed: bool,
) -> f32 {
    let mut size = vertex_size.unwrap_or(state.size);
    if state.scale_enable && !pretransformed {
        let [a, b, c] = state.scale;
        let d = eye_distance;
        let den = a + b * d + c * d * d;
        if den > 0.0 {
            size = viewport_height * size * (1.0 / den).sqrt();
        }
    }
    let hi = state.max.min(MAX_POINT_SIZE);
    let lo = state.min.min(hi);
    if size.is_nan() {
        lo.max(0.0)
    } else {
        size.clamp(lo, hi).max(0.0)
    }
}

/// Point-sprite texture coordinates of a pixel centre `(x, y)` on a sprite
/// of `size` pixels centred on `(cx, cy)`: u runs 0 → 1 left to right, v
/// 0 → 1 top to bottom. A zero size gives (0.5, 0.5).
pub fn point_sprite_texcoord(x: f32, y: f32, cx: f32, cy: f32, size: f32) -> [f32; 2] {
    if size <= 0.0 || size.is_nan() {
        return [0.5, 0.5];
    }
    [(x - cx) / size + 0.5, (y - cy) / size + 0.5]
}

/// VERTEXBLEND (D3DVERTEXBLENDFLAGS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum VertexBlend {
    /// No blending (world matrix 0).
    #[default]
    Disable,
    /// 1, 2 or 3 weights in the vertex → 2, 3 or 4 matrices.
    Weights(u8),
    /// Tween between two positions by TWEENFACTOR.
    Tweening,
    /// One matrix, weight 1 (D3DVBF_0WEIGHTS).
    ZeroWeights,
}

impl VertexBlend {
    /// From a D3DVBF value: 0, 1..=3, 255 (TWEENING), 256 (0WEIGHTS).
    pub fn from_d3d(v: u32) -> Option<Self> {
        Some(match v {
            0 => VertexBlend::Disable,
            1..=3 => VertexBlend::Weights(v as u8),
            255 => VertexBlend::Tweening,
            256 => VertexBlend::ZeroWeights,
            _ => return None,
        })
    }

    /// The D3DVBF value (inverse of [`VertexBlend::from_d3d`]).
    pub fn d3d(self) -> u32 {
        match self {
            VertexBlend::Disable => 0,
            VertexBlend::Weights(n) => u32::from(n),
            VertexBlend::Tweening => 255,
            VertexBlend::ZeroWeights => 256,
        }
    }

    /// Number of matrices blended (1 for DISABLE, 0WEIGHTS and TWEENING).
    pub fn matrix_count(self) -> usize {
        match self {
            VertexBlend::Weights(n) => usize::from(n.min(3)) + 1,
            _ => 1,
        }
    }
}

/// Full weights from the vertex's stored ones: with n stored weights the
/// result has n + 1 entries, the last `1 − Σ stored` (unused entries 0).
pub fn blend_weights(blend: VertexBlend, stored: &[f32]) -> [f32; 4] {
    let n = blend.matrix_count();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `v` in `values` that `from` accepts maps back to itself
    /// through `to`; returns how many were accepted.
    fn round_trip<T: Copy + PartialEq + std::fmt::Debug>(
        from: fn(u32) -> Option<T>,
        to: fn(T) -> u32,
        values: impl IntoIterator<Item = u32>,
    ) -> usize {
        let mut n = 0;
        for v in values {
            if let Some(x) = from(v) {
                assert_eq!(to(x), v, "{x:?}");
                assert_eq!(from(to(x)), Some(x));
                n += 1;
            }
        }
        n
    }

    #[test]
    fn d3d_is_the_inverse_of_from_d3d() {
        let tci = (0u32..=6).flat_map(|m| [0u32, 1, 7, 0xFFFF].map(|s| (m << 16) | s));
        assert_eq!(
            round_trip(TexCoordIndex::from_d3d, TexCoordIndex::d3d, tci),
            20
        );
        // COUNT 0..=4, with and without PROJECTED.
        assert_eq!(
            round_trip(TextureTransform::from_d3d, TextureTransform::d3d, 0..=0x3FF),
            10
        );
        assert_eq!(
            round_trip(VertexBlend::from_d3d, VertexBlend::d3d, 0..=300),
            6
        );
    }
}
