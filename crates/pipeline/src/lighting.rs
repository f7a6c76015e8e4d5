//! Fixed-function vertex lighting (D3DRS_LIGHTING).
//!
//! *Input*: a vertex's camera-space position and normal, its optional
//! diffuse and specular colours, and a [`LightingState`] (lights in
//! camera space, material, AMBIENT, LOCALVIEWER, NORMALIZENORMALS,
//! COLORVERTEX and the *MATERIALSOURCE states). *Output*: the lit diffuse
//! and specular colours `[r, g, b, a]` in [0, 1]. *Guarantees*: a pure,
//! total function; NaN intermediate values read as 0, results are clamped
//! to [0, 1]; at most [`MAX_ACTIVE_LIGHTS`] lights are used.
//!
//! ## Equations (D3D9, camera space: the camera is at the origin looking
//! down +z)
//! With material colours `Md, Ma, Ms, Me` (after the material-source rules
//! below), power `P`, global ambient `Ga`, and for each light i its colours
//! `Ld, Ls, La`, attenuation `Att` and spot factor `Spot`:
//! * `diffuse.rgb = Me + Ma·Ga + Σ Att·Spot·(Ma·La + Md·Ld·max(N·L, 0))`
//! * `specular.rgb = Σ Att·Spot·Ms·Ls·(N·H)^P`, only where `N·L > 0`
//!   and `N·H > 0`; a power `P = 0` is the exponent 0 (the highlight is
//!   `Ms·Ls` wherever `N·H > 0`), not "no specular"
//! * `diffuse.a = Md.a`, `specular.a = Ms.a` (vertex fog overwrites the
//!   specular alpha later).
//!
//! * L: unit vector from the vertex to the light (point, spot), or
//!   `−direction` (directional).
//! * H: `normalize(L + V)`, with `V = normalize(−position)` under
//!   LOCALVIEWER, else `V = (0, 0, −1)` (towards a viewer infinitely far
//!   behind the camera plane).
//! * N: the normal as given, normalized first only when NORMALIZENORMALS
//!   is set (the caller transforms it to camera space).
//! * Att (point, spot): `1 / (a0 + a1·d + a2·d²)` for `d ≤ range`, 0
//!   beyond; a non-positive denominator gives 1. Directional: 1.
//! * Spot: with `rho = −L · normalize(direction)`: 1 if
//!   `rho > cos(θ/2)`, 0 if `rho ≤ cos(φ/2)`, else
//!   `((rho − cos(φ/2)) / (cos(θ/2) − cos(φ/2)))^falloff`. Others: 1.
//!
//! ## Material sources
//! With COLORVERTEX on, a *MATERIALSOURCE of COLOR1 takes the vertex
//! diffuse and COLOR2 the vertex specular — if the vertex has that colour;
//! otherwise (and with COLORVERTEX off, or MATERIAL) the material colour
//! is used.

/// Largest number of lights used for one vertex (D3D9 hardware commonly
/// reports MaxActiveLights = 8). Further enabled lights are ignored.
pub const MAX_ACTIVE_LIGHTS: usize = 8;

/// A light type (`D3DLIGHTTYPE`, from `softhal-types`). Only the
/// `D3DLIGHT7` types ([`LightType::is_dx7`]) reach a draw: the device and
/// the register file refuse the DX5 PARALLELPOINT and GLSPOT.
pub use softhal_types::LightType;

/// A light (D3DLIGHT7), with position and direction already in camera
/// space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Light {
    /// Type.
    pub kind: LightType,
    /// Diffuse colour `[r, g, b, a]`.
    pub diffuse: [f32; 4],
    /// Specular colour.
    pub specular: [f32; 4],
    /// Ambient colour.
    pub ambient: [f32; 4],
    /// Position (point, spot), camera space.
    pub position: [f32; 3],
    /// Direction (spot, directional), camera space.
    pub direction: [f32; 3],
    /// Range (point, spot).
    pub range: f32,
    /// Spot falloff exponent.
    pub falloff: f32,
    /// Constant attenuation.
    pub attenuation0: f32,
    /// Linear attenuation.
    pub attenuation1: f32,
    /// Quadratic attenuation.
    pub attenuation2: f32,
    /// Inner cone angle (radians).
    pub theta: f32,
    /// Outer cone angle (radians).
    pub phi: f32,
}

/// A material (D3DMATERIAL7).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Material {
    /// Diffuse.
    pub diffuse: [f32; 4],
    /// Ambient.
    pub ambient: [f32; 4],
    /// Specular.
    pub specular: [f32; 4],
    /// Emissive.
    pub emissive: [f32; 4],
    /// Specular power.
    pub power: f32,
}

/// Where a material colour comes from (`D3DMATERIALCOLORSOURCE`, from
/// `softhal-types`; its `Default` is `D3DMCS_MATERIAL`).
pub use softhal_types::MaterialColorSource as MaterialSource;

/// Everything lighting reads.
#[derive(Debug, Clone, PartialEq)]
pub struct LightingState {
    /// Enabled lights, in camera space (only the first
    /// [`MAX_ACTIVE_LIGHTS`] are used).
    pub lights: Vec<Light>,
    /// The material.
    pub material: Material,
    /// D3DRS_AMBIENT as `[r, g, b, a]`.
    pub ambient: [f32; 4],
    /// LOCALVIEWER.
    pub local_viewer: bool,
    /// NORMALIZENORMALS.
    pub normalize_normals: bool,
    /// COLORVERTEX.
    pub color_vertex: bool,
    /// DIFFUSEMATERIALSOURCE.
    pub diffuse_source: MaterialSource,
    /// SPECULARMATERIALSOURCE.
    pub specular_source: MaterialSource,
    /// AMBIENTMATERIALSOURCE.
    pub ambient_source: MaterialSource,
    /// EMISSIVEMATERIALSOURCE.
    pub emissive_source: MaterialSource,
}

impl Default for LightingState {
    /// D3D9 defaults: no lights, zero material, ambient 0, LOCALVIEWER on,
    /// NORMALIZENORMALS off, COLORVERTEX on, diffuse ← COLOR1, specular ←
    /// COLOR2, ambient and emissive ← MATERIAL.
    fn default() -> Self {
        LightingState {
            lights: Vec::new(),
            material: Material::default(),
            ambient: [0.0; 4],
            local_viewer: true,
            normalize_normals: false,
            color_vertex: true,
            diffuse_source: MaterialSource::Color1,
            specular_source: MaterialSource::Color2,
            ambient_source: MaterialSource::Material,
            emissive_source: MaterialSource::Material,
        }
    }
}

#[inline]
fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Unit vector, or zero for a zero/NaN vector.
#[inline]
fn normalize(v: [f32; 3]) -> [f32; 3] {
    let l = dot(v, v).sqrt();
    if l > 0.0 && l.is_finite() {
        v.map(|c| c / l)
    } else {
        [0.0; 3]
    }
}

#[inline]
fn finite_or_zero(x: f32) -> f32 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

/// Lights one vertex; see the module docs for the equations. Returns
/// (diffuse, specular).
pub fn light_vertex(
    position_cs: [f32; 3],
    normal_cs: [f32; 3],
    vertex_diffuse: Option<[f32; 4]>,
    vertex_specular: Option<[f32; 4]>,
    state: &LightingState,
) -> ([f32; 4], [f32; 4]) {
    let m = &state.material;
    let pick = |src: MaterialSource, material: [f32; 4]| -> [f32; 4] {
        if !state.color_vertex {
            return material;
        }
        match src {
            MaterialSource::Material => material,
            MaterialSource::Color1 => vertex_diffuse.unwrap_or(material),
            MaterialSource::Color2 => vertex_specular.unwrap_or(material),
        }
    };
    let md = pick(state.diffuse_source, m.diffuse);
    let ms = pick(state.specular_source, m.specular);
    let ma = pick(state.ambient_source, m.ambient);
    let me = pick(state.emissive_source, m.emissive);
    let n = if state.normalize_normals {
        normalize(normal_cs)
    } else {
        normal_cs
    };
    let v = if state.local_viewer {
        normalize(position_cs.map(|c| -c))
    } else {
        [0.0, 0.0, -1.0]
    };
    let mut amb = [0.0f32; 3];
    let mut dif = [0.0f32; 3];
    let mut spe = [0.0f32; 3];
    for light in state.lights.iter().take(MAX_ACTIVE_LIGHTS) {
        let (l, atten) = match light.kind {
            LightType::Directional => (normalize(light.direction.map(|c| -c)), 1.0),
            // Refused before a draw (see [`LightType`]): no light.
            LightType::ParallelPoint | LightType::GlSpot => continue,
            LightType::Point | LightType::Spot => {
                let to = [
                    light.position[0] - position_cs[0],
                    light.position[1] - position_cs[1],
                    light.position[2] - position_cs[2],
                ];
                let d = dot(to, to).sqrt();
                if d > light.range || d.is_nan() {
                    continue;
                }
                let den = light.attenuation0 + light.attenuation1 * d + light.attenuation2 * d * d;
                let att = if den > 0.0 { 1.0 / den } else { 1.0 };
                (normalize(to), finite_or_zero(att))
            }
        };
        let spot = if light.kind == LightType::Spot {
            let rho = -dot(l, normalize(light.direction));
            let cos_theta = (light.theta * 0.5).cos();
            let cos_phi = (light.phi * 0.5).cos();
            if rho > cos_theta {
                1.0
            } else if rho <= cos_phi {
                0.0
            } else {
                let t = (rho - cos_phi) / (cos_theta - cos_phi);
                finite_or_zero(t.powf(light.falloff)).clamp(0.0, 1.0)
            }
        } else {
            1.0
        };
        let k = atten * spot;
        if k == 0.0 {
            continue;
        }
        let ndl = dot(n, l);
        for (a, la) in amb.iter_mut().zip(light.ambient) {
            *a += k * la;
        }
        if ndl > 0.0 {
            for (d, ld) in dif.iter_mut().zip(light.diffuse) {
                *d += k * ndl * ld;
            }
            let h = normalize([l[0] + v[0], l[1] + v[1], l[2] + v[2]]);
            let ndh = dot(n, h);
            if ndh > 0.0 {
                // Power 0 is the exponent 0: (N·H)^0 = 1.
                let s = finite_or_zero(ndh.powf(m.power));
                for (sp, ls) in spe.iter_mut().zip(light.specular) {
                    *sp += k * s * ls;
                }
            }
        }
    }
    let sat = |x: f32| if x > 0.0 { x.min(1.0) } else { 0.0 };
    let mut diffuse = [0.0f32; 4];
    let mut specular = [0.0f32; 4];
    for c in 0..3 {
        diffuse[c] = sat(me[c] + ma[c] * (state.ambient[c] + amb[c]) + md[c] * dif[c]);
        specular[c] = sat(ms[c] * spe[c]);
    }
    diffuse[3] = sat(md[3]);
    specular[3] = sat(ms[3]);
    (diffuse, specular)
}
