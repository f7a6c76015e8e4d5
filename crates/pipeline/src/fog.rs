//! Fog: vertex and table (pixel) fog factors, their precedence, and the
//! fog blend.
//!
//! *Input*: the fog render states ([`FogState`], enums built with
//! `from_d3d`), per-vertex camera-space positions or per-pixel depths.
//! *Output*: fog factors `f` in [0, 1] (1 = no fog, 0 = fully fogged) and
//! fogged colours. *Guarantees*: pure, total functions; every factor is
//! finite and in [0, 1] (NaN inputs give 1, i.e. no fog).
//!
//! ## Formulas (D3D9)
//! * LINEAR: `f = (end − d) / (end − start)`; when `end == start`,
//!   table fog gives `f = 1` for `d < end` and 0 otherwise, and vertex fog
//!   gives `f = 0` for every vertex (everything is fully fogged, as
//!   Windows drivers do: the per-vertex step is never interpolated across
//!   a primitive).
//! * EXP: `f = e^(−density·d)`; EXP2: `f = e^(−(density·d)²)`.
//! * All clamped to [0, 1].
//!
//! ## Which fog applies ([`FogState::source`])
//! 1. FOGENABLE off → no fog.
//! 2. FOGTABLEMODE ≠ NONE → **table (pixel) fog**: computed per pixel from
//!    the depth; it wins over vertex fog.
//! 3. Otherwise, for untransformed vertices with FOGVERTEXMODE ≠ NONE →
//!    **vertex fog**: computed per vertex ([`vertex_fog_factor`]), stored
//!    in the specular alpha, interpolated.
//! 4. Otherwise (pre-transformed XYZRHW vertices, or both modes NONE) →
//!    the vertex's **specular alpha** is the fog factor (the application
//!    computed it), interpolated.
//!
//! Vertex fog distance is the camera-space depth `|z|` (with CLIPPING
//! FALSE geometry behind the eye is drawn, and is fogged by its distance,
//! not by a negative z), or with RANGEFOGENABLE the camera-space distance
//! `sqrt(x² + y² + z²)`. Table fog uses the
//! post-projection depth z (in [0, 1]) when the projection matrix is
//! affine (`_14 = _24 = _34 = 0`, `_44 = 1`, an orthogonal projection),
//! else the eye-space depth w (= 1/rhw) ([`table_fog_uses_w`]); FOGSTART /
//! FOGEND are in the same units. Pre-transformed vertices use z.
//!
//! ## Fog and flat shading
//! The fog factor is always interpolated across the primitive (Gouraud),
//! even with SHADEMODE = FLAT, and also when it comes from the specular
//! alpha: flat shading applies to the diffuse and specular *colours*
//! only. This is Direct3D's behaviour as reproduced by Wine's
//! fixed-function implementation (fog coordinates are never flat
//! interpolated); the raster core must therefore keep a Gouraud plane for
//! the fog factor even when the colour planes are flat.
//!
//! ## Blend
//! `final.rgb = f · colour.rgb + (1 − f) · fogcolour.rgb`, alpha unchanged
//! ([`apply_fog`]), after the texture cascade and specular add, before
//! alpha test and blending.

use crate::math::Matrix;

/// A fog formula (`D3DFOGMODE`, from `softhal-types`; its `Default` is
/// `D3DFOG_NONE`, the default of both fog-mode states).
pub use softhal_types::FogMode;

/// The fog render states.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FogState {
    /// FOGENABLE.
    pub enable: bool,
    /// FOGCOLOR (D3DCOLOR; alpha ignored).
    pub color: u32,
    /// FOGTABLEMODE (pixel fog).
    pub table_mode: FogMode,
    /// FOGVERTEXMODE.
    pub vertex_mode: FogMode,
    /// FOGSTART.
    pub start: f32,
    /// FOGEND.
    pub end: f32,
    /// FOGDENSITY.
    pub density: f32,
    /// RANGEFOGENABLE.
    pub range_fog: bool,
}

impl Default for FogState {
    /// D3D9 defaults: disabled, colour 0, both modes NONE, start 0, end 1,
    /// density 1, no range fog.
    fn default() -> Self {
        FogState {
            enable: false,
            color: 0,
            table_mode: FogMode::None,
            vertex_mode: FogMode::None,
            start: 0.0,
            end: 1.0,
            density: 1.0,
            range_fog: false,
        }
    }
}

/// Where the fog factor of a draw comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FogSource {
    /// No fog.
    None,
    /// Per-pixel table fog with this mode ([`table_fog_factor`]).
    Table(FogMode),
    /// Per-vertex fog with this mode ([`vertex_fog_factor`]), interpolated.
    Vertex(FogMode),
    /// The interpolated specular alpha is the factor.
    SpecularAlpha,
}

impl FogState {
    /// The precedence rules of the module docs; `pretransformed` is true
    /// for XYZRHW vertices.
    pub fn source(&self, pretransformed: bool) -> FogSource {
        if !self.enable {
            FogSource::None
        } else if self.table_mode != FogMode::None {
            FogSource::Table(self.table_mode)
        } else if !pretransformed && self.vertex_mode != FogMode::None {
            FogSource::Vertex(self.vertex_mode)
        } else {
            FogSource::SpecularAlpha
        }
    }
}

/// The fog factor of distance `d` under `mode` (formulas in the module
/// docs); [`FogMode::None`] gives 1.
pub fn fog_factor(mode: FogMode, d: f32, start: f32, end: f32, density: f32) -> f32 {
    let f = match mode {
        FogMode::None => 1.0,
        FogMode::Linear => {
            if end == start {
                if d < end {
                    1.0
                } else {
                    0.0
                }
            } else {
                (end - d) / (end - start)
            }
        }
        FogMode::Exp => (-(density * d)).exp(),
        FogMode::Exp2 => {
            let x = density * d;
            (-(x * x)).exp()
        }
    };
    if f.is_nan() {
        1.0
    } else {
        f.clamp(0.0, 1.0)
    }
}

/// Vertex fog factor of a camera-space position: distance `|z|`, or the
/// Euclidean distance with RANGEFOGENABLE; LINEAR with FOGSTART = FOGEND
/// is 0 (fully fogged) whatever the distance (module docs).
pub fn vertex_fog_factor(state: &FogState, mode: FogMode, position_cs: [f32; 3]) -> f32 {
    if mode == FogMode::Linear && state.start == state.end {
        return 0.0;
    }
    let [x, y, z] = position_cs;
    let d = if state.range_fog {
        (x * x + y * y + z * z).sqrt()
    } else {
        z.abs()
    };
    fog_factor(mode, d, state.start, state.end, state.density)
}

/// True when table fog must use the eye-space w rather than the
/// post-projection z: the projection is not affine (see module docs).
pub fn table_fog_uses_w(projection: &Matrix) -> bool {
    let m = &projection.0;
    !(m[0][3] == 0.0 && m[1][3] == 0.0 && m[2][3] == 0.0 && m[3][3] == 1.0)
}

/// Table (pixel) fog factor from the pixel's depth z (post-projection,
/// [0, 1]) or eye-space w, chosen by `use_w`.
pub fn table_fog_factor(state: &FogState, mode: FogMode, z: f32, w: f32, use_w: bool) -> f32 {
    let d = if use_w { w } else { z };
    fog_factor(mode, d, state.start, state.end, state.density)
}

/// The fog blend: `rgb = f·rgb + (1 − f)·fog_rgb`, alpha unchanged. `f`
/// is clamped to [0, 1] (NaN → 1). `fog_color` is a D3DCOLOR.
pub fn apply_fog(color: [f32; 4], fog_color: u32, f: f32) -> [f32; 4] {
    let f = if f.is_nan() { 1.0 } else { f.clamp(0.0, 1.0) };
    let [_, r, g, b] = fog_color.to_be_bytes();
    let fc = [r, g, b].map(|c| f32::from(c) / 255.0);
    [
        f * color[0] + (1.0 - f) * fc[0],
        f * color[1] + (1.0 - f) * fc[1],
        f * color[2] + (1.0 - f) * fc[2],
        color[3],
    ]
}
