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

use crate::math::Matrix;

// Other crates name these here (their homes are `point` and
// `vertex_blend`).
pub use crate::point::{PointState, MAX_POINT_SIZE};
pub use crate::vertex_blend::VertexBlend;

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

#[cfg(test)]
mod tests {
    use super::*;
    use softhal_testkit::round_trip;

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
