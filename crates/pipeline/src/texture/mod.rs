//! Textures: resources, texel formats, sampling.
//!
//! *Input*: texture descriptions and texel bytes from the device; sampler
//! state and per-pixel texture coordinates with their screen-space
//! derivatives from the raster core. *Output*: RGBA texels (`[f32; 4]`,
//! `[r, g, b, a]`), or packed D3DCOLORs on the 8-bit fast path.
//! *Guarantees*: no panics on any input (sizes checked against
//! [`limits`], every texel read bounds-checked), deterministic results.
//!
//! * [`format`](mod@format) — [`TextureFormat`] layouts and decoding (D3D9 channel
//!   rules, DXTn, YUV, bump, float), [`Palette`];
//! * [`Texture`] — 2D / cube / volume resources with mip chains,
//!   uploaded per face and level;
//! * [`sampler`] — [`SamplerState`], addressing, point / bilinear /
//!   trilinear / anisotropic filtering, LOD, cube and volume sampling,
//!   colour keying;
//! * [`fast`] — the A8R8G8B8 + bilinear + WRAP fixed-point fast path;
//! * [`sample_shader_lane`] — one lane of a shader's texture request
//!   (pixel and vertex shaders alike).

pub mod fast;
pub mod format;
pub mod limits;
mod resource;
pub mod sampler;

pub use format::{Palette, TextureFormat};
pub use resource::{
    ColorKey, LevelInfo, LevelRef, Texture, TextureDesc, TextureError, TextureKind,
};
pub use sampler::{
    apply_color_key, cube_face, lod_from_texel_derivatives, sample_2d, sample_2d_keyed,
    sample_cube, sample_volume, select_mip, ColorKeyMode, Derivatives, KeyedTexel, MipSelection,
    SamplerState, TextureAddress, TextureFilter,
};

/// One lane of a shader's texture request on `tex` with `sm`: the
/// coordinates' kind-dependent lookup (2D: u, v; cube and volume: u, v,
/// w) with the request's level rule. `texldb`'s bias scales the
/// derivatives by 2^bias (the LOD is their log2, so this adds the bias);
/// `texldl`'s level is turned into the footprint of 2^level texels (so
/// level 0 is the base level, MIPMAPLODBIAS and MAXMIPLEVEL applying as
/// for any sample).
pub(crate) fn sample_shader_lane(
    tex: &Texture,
    sm: &SamplerState,
    r: &softhal_shader::exec::SampleRequest,
    lane: usize,
) -> [f32; 4] {
    use softhal_shader::exec::LodMode;
    let (Some(c), Some(x), Some(y)) = (r.coords.get(lane), r.ddx.get(lane), r.ddy.get(lane)) else {
        return [0.0, 0.0, 0.0, 1.0];
    };
    let dv = match r.lod {
        LodMode::Gradients { bias } => {
            let k = bias.get(lane).copied().unwrap_or(0.0).exp2();
            Derivatives {
                ddx: [x[0] * k, x[1] * k, x[2] * k],
                ddy: [y[0] * k, y[1] * k, y[2] * k],
            }
        }
        LodMode::Level(level) => {
            let k = level.get(lane).copied().unwrap_or(0.0).exp2();
            Derivatives {
                ddx: [k / tex.width().max(1) as f32, 0.0, 0.0],
                ddy: [0.0, k / tex.height().max(1) as f32, 0.0],
            }
        }
    };
    match tex.kind() {
        TextureKind::Texture2D => sample_2d(tex, sm, [c[0], c[1]], &dv),
        TextureKind::Cube => sample_cube(tex, sm, [c[0], c[1], c[2]], &dv),
        TextureKind::Volume => sample_volume(tex, sm, [c[0], c[1], c[2]], &dv),
    }
}
