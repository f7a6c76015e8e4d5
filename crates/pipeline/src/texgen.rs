//! Texture-coordinate generation and transforms (per sampling stage).
//!
//! *Input*: per-vertex data (texture coordinates, camera-space position
//! and normal) and the stage's TEXCOORDINDEX, TEXTURETRANSFORMFLAGS and
//! texture matrix, each built from D3D numbers with `from_d3d`. *Output*:
//! texture coordinates to interpolate, and their per-pixel projection.
//! *Guarantees*: pure, total functions (NaN propagates only where the
//! input was NaN; divisions by zero are defined as documented).
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
//! 2. [`TextureTransformFlags`] (TEXTURETRANSFORMFLAGS) with the stage's 4×4
//!    matrix (row vector · matrix). The input is expanded to 4 components
//!    the D3D way: the first missing component is 1 and the others 0, i.e.
//!    `(u) → (u, 1, 0, 0)`, `(u, v) → (u, v, 1, 0)`, `(u, v, w) → (u, v,
//!    w, 1)` — which is why a 2D coordinate's translation lives in the
//!    matrix's third row. Generated coordinates are 3-vectors (→ `w = 1`).
//!    COUNTn keeps n output components; with PROJECTED the rasterizer
//!    divides the first n − 1 components by the n-th per pixel
//!    ([`project`]).
//!

use crate::math::Matrix;

// Other crates name these here (their homes are `point` and
// `vertex_blend`).
pub use crate::point::{PointState, MAX_POINT_SIZE};
pub use crate::vertex_blend::VertexBlend;

/// `D3DTSS_TEXCOORDINDEX` (a coordinate set and a `D3DTSS_TCI_*` mode)
/// and `D3DTSS_TEXTURETRANSFORMFLAGS` (`D3DTTFF_*`), as `softhal-types`
/// defines them.
pub use softhal_types::{TexCoordIndex, TexCoordIndexMode, TextureTransformFlags};

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
    mode: TexCoordIndexMode,
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
        TexCoordIndexMode::PassThru => passthru,
        TexCoordIndexMode::CameraSpaceNormal => three(normal_cs),
        TexCoordIndexMode::CameraSpacePosition => three(position_cs),
        TexCoordIndexMode::CameraSpaceReflectionVector => {
            three(reflection_vector(position_cs, normal_cs, local_viewer))
        }
        TexCoordIndexMode::SphereMap => {
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
    flags: TextureTransformFlags,
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
