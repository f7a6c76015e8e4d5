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
//! * [`fast`] — the A8R8G8B8 + bilinear + WRAP fixed-point fast path.

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
