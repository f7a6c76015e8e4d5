//! Pipeline state: plain Rust mirrors of the Direct3D fixed-function states.
//!
//! *Input*: values the device decoded from render states, viewport, transform
//! and clip-plane tokens (each enum has `from_d3d(u32)` taking the D3D
//! numeric value; the enums that are exactly a Direct3D enum are
//! `softhal-types`' own, re-exported here). *Output*: [`PipelineState`], read-only during a draw.
//! *Guarantees*: `Default` gives the D3D9 API defaults; every value is
//! valid by construction (unknown numbers are rejected by `from_d3d`).
//!
//! The rest of the fixed-function state (texture stages and samplers, fog,
//! lighting, texture-coordinate generation and transforms, vertex
//! blending, point size) is grouped in [`TextureStages`], [`crate::fog::FogState`],
//! [`LightingParams`], [`VertexBlendState`] and
//! [`crate::point::PointState`]; see the crate docs for the D3D mapping.

use crate::cascade::{StageState, MAX_STAGES};
use crate::fog::FogState;
use crate::lighting::{
    Light, LightType, LightingState, Material, MaterialSource, MAX_ACTIVE_LIGHTS,
};
use crate::math::{Matrix, Rect};
use crate::point::PointState;
use crate::texgen::{TexCoordIndex, TextureTransformFlags};
use crate::texture::{ColorKeyMode, SamplerState};
use crate::vertex_blend::VertexBlend;

/// The Direct3D enums the pipeline takes as they are (from
/// `softhal-types`, with `from_d3d`/`d3d`, [`CmpFunc::test`] and
/// [`StencilOp::apply`]): comparison functions, blend factors (the
/// D3D9Ex `SRCCOLOR2` pair never reaches a draw: the device honours it as
/// ONE / ZERO and the register file refuses it) and operations, stencil
/// operations, fill and shade modes, culling (`D3DCULL`; a triangle's
/// orientation is judged in screen space, y down) and depth buffering
/// (`D3DZBUFFERTYPE`: W-buffering maps the interpolated w from
/// `[w_near, w_far]` to `[0, 1]`).
pub use softhal_types::{
    Blend, BlendOp, CmpFunc, Cull as CullMode, FillMode, ShadeMode, StencilOp, ZBufferType,
};

/// The viewport (D3DDP2OP_VIEWPORTINFO + ZRANGE).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    /// Left edge in pixels.
    pub x: u32,
    /// Top edge in pixels.
    pub y: u32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Depth mapped from clip z = 0.
    pub min_z: f32,
    /// Depth mapped from clip z = w. A range with `max_z <= min_z` is
    /// treated as `min_z + 0.001` (documented D3D driver behaviour for a
    /// degenerate range).
    pub max_z: f32,
}

impl Viewport {
    /// The effective max z (see [`Viewport::max_z`]).
    pub fn effective_max_z(&self) -> f32 {
        if self.max_z > self.min_z {
            self.max_z
        } else {
            self.min_z + 0.001
        }
    }
    /// The viewport rectangle.
    pub fn rect(&self) -> Rect {
        let c = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
        Rect::new(
            c(self.x),
            c(self.y),
            c(self.x.saturating_add(self.width)),
            c(self.y.saturating_add(self.height)),
        )
    }
}

impl Default for Viewport {
    /// A huge viewport (clipped to the render target at draw time).
    fn default() -> Self {
        Viewport {
            x: 0,
            y: 0,
            width: crate::limits::MAX_DIMENSION,
            height: crate::limits::MAX_DIMENSION,
            min_z: 0.0,
            max_z: 1.0,
        }
    }
}

/// Rasterizer state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RasterState {
    /// D3DRS_FILLMODE.
    pub fill_mode: FillMode,
    /// D3DRS_SHADEMODE.
    pub shade_mode: ShadeMode,
    /// D3DRS_CULLMODE.
    pub cull_mode: CullMode,
    /// D3DRS_LASTPIXEL: draw the last pixel of lines.
    pub last_pixel: bool,
    /// D3DRS_SCISSORTESTENABLE.
    pub scissor_enable: bool,
    /// The scissor rectangle.
    pub scissor: Rect,
    /// D3DRS_CLIPPING: clip untransformed primitives (near/far, guard band,
    /// user planes). When false, primitives are still clipped against the
    /// guard band (a memory-safety requirement, not an option).
    pub clipping: bool,
    /// D3DRS_CLIPPLANEENABLE (bit i enables plane i; bits ≥ 6 ignored).
    pub clip_plane_enable: u32,
    /// User clip planes (A, B, C, D) in world space for untransformed
    /// vertices: a point is kept where A·x + B·y + C·z + D·w ≥ 0.
    pub clip_planes: [[f32; 4]; crate::limits::MAX_USER_CLIP_PLANES],
    /// D3DRS_DITHERENABLE. Accepted and ignored: the pipeline never dithers
    /// (output must be deterministic and exact).
    pub dither: bool,
    /// D3DRS_SPECULARENABLE: add the specular colour to the diffuse.
    pub specular_enable: bool,
}

impl Default for RasterState {
    fn default() -> Self {
        RasterState {
            fill_mode: FillMode::Solid,
            shade_mode: ShadeMode::Gouraud,
            cull_mode: CullMode::Ccw,
            last_pixel: true,
            scissor_enable: false,
            scissor: Rect::new(0, 0, i32::MAX, i32::MAX),
            clipping: true,
            clip_plane_enable: 0,
            clip_planes: [[0.0; 4]; crate::limits::MAX_USER_CLIP_PLANES],
            dither: false,
            specular_enable: false,
        }
    }
}

/// Depth-buffer state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DepthState {
    /// D3DRS_ZENABLE.
    pub z_enable: ZBufferType,
    /// D3DRS_ZWRITEENABLE.
    pub z_write: bool,
    /// D3DRS_ZFUNC.
    pub z_func: CmpFunc,
    /// Legacy D3DRS_ZBIAS (0..=16, larger = closer): subtracts
    /// `z_bias × ZBIAS_UNIT` from the depth.
    pub z_bias: u32,
    /// D3DRS_DEPTHBIAS: added to the depth.
    pub depth_bias: f32,
    /// D3DRS_SLOPESCALEDEPTHBIAS: times max(|dz/dx|, |dz/dy|), added.
    pub slope_scale_depth_bias: f32,
    /// WINFO near w (W-buffering).
    pub w_near: f32,
    /// WINFO far w (W-buffering); `w_far <= w_near` is treated as
    /// `w_near + 0.001`.
    pub w_far: f32,
}

/// Depth offset of one legacy ZBIAS step: 2^-16 (one D16 step).
pub const ZBIAS_UNIT: f32 = 1.0 / 65536.0;

impl Default for DepthState {
    fn default() -> Self {
        DepthState {
            z_enable: ZBufferType::True,
            z_write: true,
            z_func: CmpFunc::LessEqual,
            z_bias: 0,
            depth_bias: 0.0,
            slope_scale_depth_bias: 0.0,
            w_near: 0.0,
            w_far: 1.0,
        }
    }
}

/// Stencil operations and function for one face.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StencilFace {
    /// Operation when the stencil test fails.
    pub fail: StencilOp,
    /// Operation when the stencil test passes and the depth test fails.
    pub z_fail: StencilOp,
    /// Operation when both pass.
    pub pass: StencilOp,
    /// Comparison `(ref & mask) FUNC (stencil & mask)`.
    pub func: CmpFunc,
}

impl Default for StencilFace {
    fn default() -> Self {
        StencilFace {
            fail: StencilOp::Keep,
            z_fail: StencilOp::Keep,
            pass: StencilOp::Keep,
            func: CmpFunc::Always,
        }
    }
}

/// Stencil state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StencilState {
    /// D3DRS_STENCILENABLE.
    pub enable: bool,
    /// Clockwise (front) face: STENCILFAIL/ZFAIL/PASS/FUNC.
    pub front: StencilFace,
    /// D3DRS_TWOSIDEDSTENCILMODE.
    pub two_sided: bool,
    /// Counter-clockwise face: CCW_STENCILFAIL/ZFAIL/PASS/FUNC.
    pub ccw: StencilFace,
    /// D3DRS_STENCILREF.
    pub reference: u32,
    /// D3DRS_STENCILMASK.
    pub mask: u32,
    /// D3DRS_STENCILWRITEMASK.
    pub write_mask: u32,
}

impl Default for StencilState {
    fn default() -> Self {
        StencilState {
            enable: false,
            front: StencilFace::default(),
            two_sided: false,
            ccw: StencilFace::default(),
            reference: 0,
            mask: u32::MAX,
            write_mask: u32::MAX,
        }
    }
}

/// Alpha test state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlphaTestState {
    /// D3DRS_ALPHATESTENABLE.
    pub enable: bool,
    /// D3DRS_ALPHAFUNC: passes when `alpha FUNC reference`.
    pub func: CmpFunc,
    /// D3DRS_ALPHAREF (0..=255; higher bits ignored).
    pub reference: u32,
}

impl Default for AlphaTestState {
    fn default() -> Self {
        AlphaTestState {
            enable: false,
            func: CmpFunc::Always,
            reference: 0,
        }
    }
}

/// Blending and colour-write state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlendState {
    /// D3DRS_ALPHABLENDENABLE.
    pub enable: bool,
    /// D3DRS_SRCBLEND.
    pub src: Blend,
    /// D3DRS_DESTBLEND.
    pub dst: Blend,
    /// D3DRS_BLENDOP.
    pub op: BlendOp,
    /// D3DRS_SEPARATEALPHABLENDENABLE.
    pub separate_alpha: bool,
    /// D3DRS_SRCBLENDALPHA.
    pub src_alpha: Blend,
    /// D3DRS_DESTBLENDALPHA.
    pub dst_alpha: Blend,
    /// D3DRS_BLENDOPALPHA.
    pub op_alpha: BlendOp,
    /// D3DRS_BLENDFACTOR (D3DCOLOR).
    pub factor: u32,
    /// D3DRS_COLORWRITEENABLE (bit 0 R, 1 G, 2 B, 3 A): render target 0.
    pub color_write_enable: u32,
    /// D3DRS_COLORWRITEENABLE1..3: render targets 1–3
    /// (D3DPMISCCAPS_INDEPENDENTWRITEMASKS).
    pub color_write_enable_rt: [u32; 3],
}

impl Default for BlendState {
    fn default() -> Self {
        BlendState {
            enable: false,
            src: Blend::One,
            dst: Blend::Zero,
            op: BlendOp::Add,
            separate_alpha: false,
            src_alpha: Blend::One,
            dst_alpha: Blend::Zero,
            op_alpha: BlendOp::Add,
            factor: 0xFFFF_FFFF,
            color_write_enable: 0xF,
            color_write_enable_rt: [0xF; 3],
        }
    }
}

/// World, view and projection transforms (untransformed vertices only).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Transforms {
    /// The world matrix to use (for indexed world matrices 256 + n the
    /// device passes the selected one).
    pub world: Matrix,
    /// D3DTS_VIEW.
    pub view: Matrix,
    /// D3DTS_PROJECTION.
    pub projection: Matrix,
}

/// Texture-stage state of the 8 stages (D3DTSS_*), the sampler states of
/// the 16 pixel samplers (the stages' first), TEXTUREFACTOR and colour
/// keying.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextureStages {
    /// COLOROP … RESULTARG, BUMPENVMAT*, BUMPENVL*, CONSTANT of each stage.
    /// `has_texture` is overwritten at draw time from the bound textures.
    pub stages: [StageState; MAX_STAGES],
    /// ADDRESSU/V/W, BORDERCOLOR, MAG/MIN/MIPFILTER, MIPMAPLODBIAS,
    /// MAXMIPLEVEL, MAXANISOTROPY of each pixel sampler (`s0`–`s15` of
    /// ps_2_0+; sampler `n` < 8 is texture stage `n`'s).
    pub samplers: [SamplerState; crate::limits::PIXEL_SAMPLERS],
    /// D3DTSS_TEXCOORDINDEX of each stage (default: set = stage number).
    pub tex_coord_index: [TexCoordIndex; MAX_STAGES],
    /// D3DTSS_TEXTURETRANSFORMFLAGS of each stage.
    pub transform_flags: [TextureTransformFlags; MAX_STAGES],
    /// D3DTS_TEXTURE0..7 matrices.
    pub matrices: [Matrix; MAX_STAGES],
    /// The sampler states of the vertex-texture samplers
    /// D3DVERTEXTEXTURESAMPLER0–3 (a vs_3_0 shader's `s0`–`s3`).
    pub vertex_samplers: [SamplerState; crate::program::VERTEX_SAMPLERS],
    /// D3DRS_TEXTUREFACTOR (D3DCOLOR).
    pub texture_factor: u32,
    /// COLORKEYENABLE / COLORKEYBLENDENABLE (stage textures with a colour
    /// key only).
    pub color_key: ColorKeyMode,
}

impl Default for TextureStages {
    fn default() -> Self {
        TextureStages {
            stages: std::array::from_fn(StageState::default_for),
            samplers: [SamplerState::default(); crate::limits::PIXEL_SAMPLERS],
            tex_coord_index: std::array::from_fn(|i| TexCoordIndex {
                set: i as u16,
                mode: crate::texgen::TexCoordIndexMode::PassThru,
            }),
            transform_flags: [TextureTransformFlags::default(); MAX_STAGES],
            matrices: [Matrix::IDENTITY; MAX_STAGES],
            vertex_samplers: [SamplerState::default(); crate::program::VERTEX_SAMPLERS],
            texture_factor: 0xFFFF_FFFF,
            color_key: ColorKeyMode::Off,
        }
    }
}

/// Lighting state in a fixed-size, copyable form (D3DRS_LIGHTING and the
/// related render states, the enabled lights and the material). Lights
/// are given in **world space** as D3DLIGHT9 gives them; the pipeline
/// moves them to camera space with the VIEW matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LightingParams {
    /// D3DRS_LIGHTING (untransformed vertices only).
    pub enable: bool,
    /// The enabled lights (the first `light_count` entries are used).
    pub lights: [Light; MAX_ACTIVE_LIGHTS],
    /// Number of enabled lights in `lights`.
    pub light_count: usize,
    /// The material.
    pub material: Material,
    /// D3DRS_AMBIENT (D3DCOLOR).
    pub ambient: u32,
    /// D3DRS_LOCALVIEWER.
    pub local_viewer: bool,
    /// D3DRS_NORMALIZENORMALS.
    pub normalize_normals: bool,
    /// D3DRS_COLORVERTEX.
    pub color_vertex: bool,
    /// D3DRS_DIFFUSEMATERIALSOURCE.
    pub diffuse_source: MaterialSource,
    /// D3DRS_SPECULARMATERIALSOURCE.
    pub specular_source: MaterialSource,
    /// D3DRS_AMBIENTMATERIALSOURCE.
    pub ambient_source: MaterialSource,
    /// D3DRS_EMISSIVEMATERIALSOURCE.
    pub emissive_source: MaterialSource,
}

/// A light that contributes nothing (filler of unused light slots).
pub const NO_LIGHT: Light = Light {
    kind: LightType::Directional,
    diffuse: [0.0; 4],
    specular: [0.0; 4],
    ambient: [0.0; 4],
    position: [0.0; 3],
    direction: [0.0, 0.0, 1.0],
    range: 0.0,
    falloff: 0.0,
    attenuation0: 0.0,
    attenuation1: 0.0,
    attenuation2: 0.0,
    theta: 0.0,
    phi: 0.0,
};

impl Default for LightingParams {
    /// D3D9 defaults (LIGHTING is TRUE in D3D9, but the device sets it
    /// from the stream; the pipeline default is off).
    fn default() -> Self {
        let l = LightingState::default();
        LightingParams {
            enable: false,
            lights: [NO_LIGHT; MAX_ACTIVE_LIGHTS],
            light_count: 0,
            material: l.material,
            ambient: 0,
            local_viewer: l.local_viewer,
            normalize_normals: l.normalize_normals,
            color_vertex: l.color_vertex,
            diffuse_source: l.diffuse_source,
            specular_source: l.specular_source,
            ambient_source: l.ambient_source,
            emissive_source: l.emissive_source,
        }
    }
}

impl LightingParams {
    /// The [`LightingState`] `light_vertex` reads, with the lights moved
    /// to camera space by `view`.
    pub fn camera_space(&self, view: &Matrix) -> LightingState {
        let lights = self
            .lights
            .iter()
            .take(self.light_count.min(MAX_ACTIVE_LIGHTS))
            .map(|l| {
                let p = view.transform([l.position[0], l.position[1], l.position[2], 1.0]);
                let d = view.transform([l.direction[0], l.direction[1], l.direction[2], 0.0]);
                Light {
                    position: [p[0], p[1], p[2]],
                    direction: [d[0], d[1], d[2]],
                    ..*l
                }
            })
            .collect();
        LightingState {
            lights,
            material: self.material,
            ambient: crate::texture::format::argb_to_rgba(self.ambient),
            local_viewer: self.local_viewer,
            normalize_normals: self.normalize_normals,
            color_vertex: self.color_vertex,
            diffuse_source: self.diffuse_source,
            specular_source: self.specular_source,
            ambient_source: self.ambient_source,
            emissive_source: self.emissive_source,
        }
    }
}

/// Vertex blending (D3DRS_VERTEXBLEND, INDEXEDVERTEXBLENDENABLE, the world
/// matrices 0..3, TWEENFACTOR).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct VertexBlendState {
    /// D3DRS_VERTEXBLEND. `Weights(n)` needs `n` blend weights in the
    /// vertex layout; TWEENING needs `VertexLayout::position2` (without it
    /// the vertex is not blended).
    pub mode: VertexBlend,
    /// D3DRS_INDEXEDVERTEXBLENDENABLE: the last blend "weight" of the
    /// layout is a packed UBYTE4 of matrix indices (indices ≥ 4 select no
    /// matrix: only world matrices 0..3 are held).
    pub indexed: bool,
    /// D3DTS_WORLDMATRIX(1..3); world matrix 0 is [`Transforms::world`].
    pub worlds: [Matrix; 3],
    /// D3DRS_TWEENFACTOR: 0 = first position/normal, 1 = second.
    pub tween_factor: f32,
}

/// Everything a draw call reads besides vertices, indices and surfaces.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PipelineState {
    /// Rasterizer state.
    pub raster: RasterState,
    /// Depth state.
    pub depth: DepthState,
    /// Stencil state.
    pub stencil: StencilState,
    /// Alpha test.
    pub alpha_test: AlphaTestState,
    /// Blending and colour writes.
    pub blend: BlendState,
    /// Viewport.
    pub viewport: Viewport,
    /// Transforms.
    pub transforms: Transforms,
    /// Texture stages, samplers, TEXTUREFACTOR, colour key.
    pub textures: TextureStages,
    /// Fog render states.
    pub fog: FogState,
    /// Lighting.
    pub lighting: LightingParams,
    /// Vertex blending.
    pub vertex_blend: VertexBlendState,
    /// Point size and sprites (POINTSIZE*, POINTSCALE*, POINTSPRITEENABLE).
    pub point: PointState,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stencil_ops() {
        use StencilOp::*;
        assert_eq!(IncrSat.apply(255, 0, 8), 255);
        assert_eq!(Incr.apply(255, 0, 8), 0);
        assert_eq!(DecrSat.apply(0, 0, 8), 0);
        assert_eq!(Decr.apply(0, 0, 8), 255);
        assert_eq!(Decr.apply(0, 0, 4), 15);
        assert_eq!(Invert.apply(0x0F, 0, 8), 0xF0);
        assert_eq!(Invert.apply(1, 0, 1), 0);
        assert_eq!(Replace.apply(3, 0x1FF, 8), 0xFF);
        assert_eq!(Zero.apply(9, 1, 8), 0);
        assert_eq!(Keep.apply(9, 1, 8), 9);
    }
}
