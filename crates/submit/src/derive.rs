//! The GPU side's derived state: the pipeline's private
//! [`PipelineState`] computed from a context's [`RegisterFile`], one
//! dirty group at a time (llvmpipe's `LP_NEW_*` bits and
//! `llvmpipe_update_derived()`).
//!
//! In: a register file (every value already accepted by
//! [`RegisterFile::write`]) and the groups written since the last draw.
//! Out: the [`PipelineState`] fields of those groups, rebuilt; the other
//! groups are left as they are. Guarantees: `derive` of every group of a
//! file gives the same state as deriving the groups one by one in any
//! order (each group reads only its own registers); the default register
//! file derives to `PipelineState::default()`; nothing allocates.

use crate::regs::{id, Group, RegisterFile, CLIP_PLANES, LIGHTS, VERTEX_SAMPLER_STAGE};
use softhal_pipeline::cascade::{ResultArg, StageState, TextureArgument, TextureOp, MAX_STAGES};
use softhal_pipeline::fog::{FogMode, FogState};
use softhal_pipeline::lighting::{Light, LightType, Material, MaterialSource};
use softhal_pipeline::texgen::{PointState, TexCoordIndex, TextureTransformFlags, VertexBlend};
use softhal_pipeline::texture::{ColorKeyMode, SamplerState, TextureAddress, TextureFilter};
use softhal_pipeline::{
    self as pl, AlphaTestState, Blend, BlendOp, BlendState, CmpFunc, CullMode, FillMode,
    LightingParams, Matrix, PipelineState, Rect, ShadeMode, StencilFace, StencilOp, TextureStages,
    Transforms, VertexBlendState, Viewport, ZBufferType,
};
use softhal_wire::names::{
    RenderStateType as Rs, TextureStageStateType as Tss, TransformStateType as Ts,
};

impl RegisterFile {
    /// The pipeline state these registers describe: every group derived
    /// (what a GPU context draws with after these registers are written).
    pub fn derived(&self) -> PipelineState {
        let mut out = PipelineState::default();
        derive(self, crate::regs::ALL_GROUPS, &mut out);
        out
    }
}

/// Rebuilds the groups of `dirty` ([`Group::bit`]s) of `out` from `r`.
pub(crate) fn derive(r: &RegisterFile, dirty: u32, out: &mut PipelineState) {
    for g in Group::ALL {
        if dirty & g.bit() == 0 {
            continue;
        }
        match g {
            Group::Raster => out.raster = raster(r),
            Group::Depth => out.depth = depth(r),
            Group::Stencil => out.stencil = stencil(r),
            Group::AlphaTest => {
                out.alpha_test = AlphaTestState {
                    enable: b(r, Rs::AlphaTestEnable),
                    func: en(CmpFunc::from_d3d, r.rs(Rs::AlphaFunc), CmpFunc::Always),
                    reference: r.rs(Rs::AlphaRef),
                }
            }
            Group::Blend => out.blend = blend(r),
            Group::Viewport => {
                out.viewport = Viewport {
                    x: r.get(id::viewport::X).unwrap_or(0),
                    y: r.get(id::viewport::Y).unwrap_or(0),
                    width: r.get(id::viewport::WIDTH).unwrap_or(0),
                    height: r.get(id::viewport::HEIGHT).unwrap_or(0),
                    min_z: r.f(id::viewport::MIN_Z),
                    max_z: r.f(id::viewport::MAX_Z),
                }
            }
            Group::Transforms => {
                out.transforms = Transforms {
                    world: Matrix(r.transform(Ts::World)),
                    view: Matrix(r.transform(Ts::View)),
                    projection: Matrix(r.transform(Ts::Projection)),
                }
            }
            Group::Textures => out.textures = textures(r),
            Group::Fog => out.fog = fog(r),
            Group::Lighting => out.lighting = lighting(r),
            Group::VertexBlend => {
                out.vertex_blend = VertexBlendState {
                    mode: en(
                        VertexBlend::from_d3d,
                        r.rs(Rs::VertexBlend),
                        VertexBlend::default(),
                    ),
                    indexed: b(r, Rs::IndexedVertexBlendEnable),
                    worlds: [Ts::World1, Ts::World2, Ts::World3].map(|t| Matrix(r.transform(t))),
                    tween_factor: rf(r, Rs::TweenFactor),
                }
            }
            Group::Point => {
                out.point = PointState {
                    size: rf(r, Rs::PointSize),
                    min: rf(r, Rs::PointSizeMin),
                    max: rf(r, Rs::PointSizeMax),
                    scale_enable: b(r, Rs::PointScaleEnable),
                    scale: [
                        rf(r, Rs::PointScaleA),
                        rf(r, Rs::PointScaleB),
                        rf(r, Rs::PointScaleC),
                    ],
                    sprite_enable: b(r, Rs::PointSpriteEnable),
                }
            }
        }
    }
}

/// An enumerated register as its pipeline type (`or` is unreachable: the
/// register file holds only values the enumeration defines).
fn en<T>(from: fn(u32) -> Option<T>, v: u32, or: T) -> T {
    from(v).unwrap_or(or)
}

/// A BOOL render state.
fn b(r: &RegisterFile, s: Rs) -> bool {
    r.rs(s) != 0
}

/// A float render state.
fn rf(r: &RegisterFile, s: Rs) -> f32 {
    f32::from_bits(r.rs(s))
}

fn raster(r: &RegisterFile) -> pl::RasterState {
    let sc = |reg: u32| r.get(reg).unwrap_or(0) as i32;
    let mut planes = [[0.0f32; 4]; CLIP_PLANES as usize];
    for (i, p) in (0..).zip(planes.iter_mut()) {
        for (j, x) in (0..).zip(p.iter_mut()) {
            *x = r.f(id::clip_plane(i, j));
        }
    }
    pl::RasterState {
        fill_mode: en(FillMode::from_d3d, r.rs(Rs::FillMode), FillMode::Solid),
        shade_mode: en(ShadeMode::from_d3d, r.rs(Rs::ShadeMode), ShadeMode::Gouraud),
        cull_mode: en(CullMode::from_d3d, r.rs(Rs::CullMode), CullMode::Ccw),
        last_pixel: b(r, Rs::LastPixel),
        scissor_enable: b(r, Rs::ScissorTestEnable),
        scissor: Rect::new(
            sc(id::scissor::LEFT),
            sc(id::scissor::TOP),
            sc(id::scissor::RIGHT),
            sc(id::scissor::BOTTOM),
        ),
        clipping: b(r, Rs::Clipping),
        clip_plane_enable: r.rs(Rs::ClipPlaneEnable),
        clip_planes: planes,
        // DITHERENABLE is not honoured (docs/device.md).
        dither: false,
        specular_enable: b(r, Rs::SpecularEnable),
    }
}

fn depth(r: &RegisterFile) -> pl::DepthState {
    pl::DepthState {
        z_enable: en(ZBufferType::from_d3d, r.rs(Rs::ZEnable), ZBufferType::True),
        z_write: b(r, Rs::ZWriteEnable),
        z_func: en(CmpFunc::from_d3d, r.rs(Rs::ZFunc), CmpFunc::LessEqual),
        z_bias: r.rs(Rs::ZBias),
        depth_bias: rf(r, Rs::DepthBias),
        slope_scale_depth_bias: rf(r, Rs::SlopeScaleDepthBias),
        w_near: r.f(id::viewport::W_NEAR),
        w_far: r.f(id::viewport::W_FAR),
    }
}

fn stencil(r: &RegisterFile) -> pl::StencilState {
    let sop = |s: Rs| en(StencilOp::from_d3d, r.rs(s), StencilOp::Keep);
    let cmp = |s: Rs| en(CmpFunc::from_d3d, r.rs(s), CmpFunc::Always);
    pl::StencilState {
        enable: b(r, Rs::StencilEnable),
        front: StencilFace {
            fail: sop(Rs::StencilFail),
            z_fail: sop(Rs::StencilZFail),
            pass: sop(Rs::StencilPass),
            func: cmp(Rs::StencilFunc),
        },
        two_sided: b(r, Rs::TwoSidedStencilMode),
        ccw: StencilFace {
            fail: sop(Rs::CcwStencilFail),
            z_fail: sop(Rs::CcwStencilZFail),
            pass: sop(Rs::CcwStencilPass),
            func: cmp(Rs::CcwStencilFunc),
        },
        reference: r.rs(Rs::StencilRef),
        mask: r.rs(Rs::StencilMask),
        write_mask: r.rs(Rs::StencilWriteMask),
    }
}

fn blend(r: &RegisterFile) -> BlendState {
    let bl = |s: Rs, d: Blend| en(Blend::from_d3d, r.rs(s), d);
    let bop = |s: Rs| en(BlendOp::from_d3d, r.rs(s), BlendOp::Add);
    BlendState {
        enable: b(r, Rs::AlphaBlendEnable),
        src: bl(Rs::SrcBlend, Blend::One),
        dst: bl(Rs::DestBlend, Blend::Zero),
        op: bop(Rs::BlendOp),
        separate_alpha: b(r, Rs::SeparateAlphaBlendEnable),
        src_alpha: bl(Rs::SrcBlendAlpha, Blend::One),
        dst_alpha: bl(Rs::DestBlendAlpha, Blend::Zero),
        op_alpha: bop(Rs::BlendOpAlpha),
        factor: r.rs(Rs::BlendFactor),
        color_write_enable: r.rs(Rs::ColorWriteEnable),
        color_write_enable_rt: [
            r.rs(Rs::ColorWriteEnable1),
            r.rs(Rs::ColorWriteEnable2),
            r.rs(Rs::ColorWriteEnable3),
        ],
    }
}

fn fog(r: &RegisterFile) -> FogState {
    FogState {
        enable: b(r, Rs::FogEnable),
        color: r.rs(Rs::FogColor),
        table_mode: en(
            FogMode::from_d3d,
            r.rs(Rs::FogTableMode),
            FogMode::default(),
        ),
        vertex_mode: en(
            FogMode::from_d3d,
            r.rs(Rs::FogVertexMode),
            FogMode::default(),
        ),
        start: rf(r, Rs::FogStart),
        end: rf(r, Rs::FogEnd),
        density: rf(r, Rs::FogDensity),
        range_fog: b(r, Rs::RangeFogEnable),
    }
}

/// The sampler state of register-file stage `s` (D3DTSS_ADDRESSU …
/// MAXANISOTROPY; out-of-range values keep the defaults).
fn sampler(r: &RegisterFile, s: usize) -> SamplerState {
    let v = |t: Tss| r.tss(s, t);
    let ds = SamplerState::default();
    let addr = |t: Tss| en(TextureAddress::from_d3d, v(t), ds.address_u);
    let filt = |t: Tss, d: TextureFilter| en(TextureFilter::from_d3d, v(t), d);
    SamplerState {
        address_u: addr(Tss::AddressU),
        address_v: addr(Tss::AddressV),
        address_w: addr(Tss::AddressW),
        border_color: v(Tss::BorderColor),
        mag_filter: filt(Tss::MagFilter, ds.mag_filter),
        min_filter: filt(Tss::MinFilter, ds.min_filter),
        mip_filter: filt(Tss::MipFilter, ds.mip_filter),
        mip_lod_bias: f32::from_bits(v(Tss::MipMapLodBias)),
        max_mip_level: v(Tss::MaxMipLevel),
        max_anisotropy: v(Tss::MaxAnisotropy).clamp(1, pl::texture::limits::MAX_ANISOTROPY),
    }
}

/// The texture stages, the pixel and vertex samplers, coordinate indices,
/// texture transforms,
/// TEXTUREFACTOR and colour-key mode. `has_texture` is the pipeline's
/// (it is set at draw time from the bound textures).
fn textures(r: &RegisterFile) -> TextureStages {
    let mut tx = TextureStages::default();
    let tex_ts = (Ts::Texture0.raw()..).filter_map(Ts::from_raw);
    for (s, ts_texture) in (0..MAX_STAGES).zip(tex_ts) {
        let v = |t: Tss| r.tss(s, t);
        let f = |t: Tss| f32::from_bits(v(t));
        let d = StageState::default_for(s);
        let op = |t: Tss, d: TextureOp| en(TextureOp::from_d3d, v(t), d);
        let arg = |t: Tss, d: TextureArgument| en(TextureArgument::from_d3d, v(t), d);
        if let Some(st) = tx.stages.get_mut(s) {
            *st = StageState {
                color_op: op(Tss::ColorOp, d.color_op),
                color_arg1: arg(Tss::ColorArg1, d.color_arg1),
                color_arg2: arg(Tss::ColorArg2, d.color_arg2),
                alpha_op: op(Tss::AlphaOp, d.alpha_op),
                alpha_arg1: arg(Tss::AlphaArg1, d.alpha_arg1),
                alpha_arg2: arg(Tss::AlphaArg2, d.alpha_arg2),
                bump_env_mat: [
                    [f(Tss::BumpEnvMat00), f(Tss::BumpEnvMat01)],
                    [f(Tss::BumpEnvMat10), f(Tss::BumpEnvMat11)],
                ],
                bump_lscale: f(Tss::BumpEnvLScale),
                bump_loffset: f(Tss::BumpEnvLOffset),
                color_arg0: arg(Tss::ColorArg0, d.color_arg0),
                alpha_arg0: arg(Tss::AlphaArg0, d.alpha_arg0),
                result: en(ResultArg::from_d3d, v(Tss::ResultArg), d.result),
                constant: pl::texture::format::argb_to_rgba(v(Tss::Constant)),
                has_texture: false,
            };
        }
        if let Some(sm) = tx.samplers.get_mut(s) {
            *sm = sampler(r, s);
        }
        if let Some(c) = tx.tex_coord_index.get_mut(s) {
            *c = en(TexCoordIndex::from_d3d, v(Tss::TexCoordIndex), *c);
        }
        if let Some(c) = tx.transform_flags.get_mut(s) {
            *c = en(
                TextureTransformFlags::from_d3d,
                v(Tss::TextureTransformFlags),
                TextureTransformFlags::default(),
            );
        }
        if let Some(m) = tx.matrices.get_mut(s) {
            *m = Matrix(r.transform(ts_texture));
        }
    }
    // The pixel samplers past the texture stages (ps_2_0+ `s8`–`s15`).
    for (s, sm) in tx.samplers.iter_mut().enumerate().skip(MAX_STAGES) {
        *sm = sampler(r, s);
    }
    for (i, sm) in tx.vertex_samplers.iter_mut().enumerate() {
        *sm = sampler(r, (VERTEX_SAMPLER_STAGE as usize).saturating_add(i));
    }
    tx.texture_factor = r.rs(Rs::TextureFactor);
    tx.color_key = ColorKeyMode::from_d3d(r.rs(Rs::ColorKeyEnable), r.rs(Rs::ColorKeyBlendEnable));
    tx
}

/// LIGHTING and its render states, the enabled light slots (in slot
/// order) and the material.
fn lighting(r: &RegisterFile) -> LightingParams {
    use id::light_field as lf;
    let src = |s: Rs| en(MaterialSource::from_d3d, r.rs(s), MaterialSource::default());
    let mat = |k: u32| r.f(id::material(k));
    let m4 = |at: u32| std::array::from_fn(|i| mat(at.saturating_add(i as u32)));
    let mut p = LightingParams {
        enable: b(r, Rs::Lighting),
        ambient: r.rs(Rs::Ambient),
        local_viewer: b(r, Rs::LocalViewer),
        normalize_normals: b(r, Rs::NormalizeNormals),
        color_vertex: b(r, Rs::ColorVertex),
        diffuse_source: src(Rs::DiffuseMaterialSource),
        specular_source: src(Rs::SpecularMaterialSource),
        ambient_source: src(Rs::AmbientMaterialSource),
        emissive_source: src(Rs::EmissiveMaterialSource),
        material: Material {
            diffuse: m4(id::material_field::DIFFUSE),
            ambient: m4(id::material_field::AMBIENT),
            specular: m4(id::material_field::SPECULAR),
            emissive: m4(id::material_field::EMISSIVE),
            power: mat(id::material_field::POWER),
        },
        ..LightingParams::default()
    };
    let enabled = (0..LIGHTS).filter(|&i| r.get(id::light(i, lf::ENABLE)) == Some(1));
    for (slot, i) in p.lights.iter_mut().zip(enabled) {
        let fv = |f: u32| r.f(id::light(i, f));
        let v3 = |at: u32| std::array::from_fn(|k| fv(at.saturating_add(k as u32)));
        let v4 = |at: u32| std::array::from_fn(|k| fv(at.saturating_add(k as u32)));
        *slot = Light {
            kind: en(
                LightType::from_d3d,
                r.get(id::light(i, lf::TYPE)).unwrap_or(0),
                LightType::Directional,
            ),
            diffuse: v4(lf::DIFFUSE),
            specular: v4(lf::SPECULAR),
            ambient: v4(lf::AMBIENT),
            position: v3(lf::POSITION),
            direction: v3(lf::DIRECTION),
            range: fv(lf::RANGE),
            falloff: fv(lf::FALLOFF),
            attenuation0: fv(lf::ATTENUATION0),
            attenuation1: fv(lf::ATTENUATION1),
            attenuation2: fv(lf::ATTENUATION2),
            theta: fv(lf::THETA),
            phi: fv(lf::PHI),
        };
        // At most p.lights.len() (MAX_ACTIVE_LIGHTS) iterations.
        p.light_count = p.light_count.saturating_add(1);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regs::ALL_GROUPS;

    /// The register file's defaults are the pipeline's defaults.
    #[test]
    fn default_registers_derive_the_default_state() {
        let mut out = PipelineState::default();
        out.fog.end = 123.0; // overwritten: every group is derived
        derive(&RegisterFile::default(), ALL_GROUPS, &mut out);
        assert_eq!(out, PipelineState::default());
    }

    /// Only dirty groups are re-derived; a write marks its own group.
    #[test]
    fn writes_mark_their_group_and_derive_touches_only_dirty_groups() {
        let mut r = RegisterFile::default();
        r.take_dirty();
        // D3DRS_FOGSTART = 36; 2.5f32 = 0x4020_0000.
        r.write(id::rs(36), 0x4020_0000).unwrap();
        assert_eq!(r.dirty(), Group::Fog.bit());
        // D3DRS_ZFUNC = 23, D3DCMP_GREATER = 5.
        r.write(id::rs(23), 5).unwrap();
        assert_eq!(r.dirty(), Group::Fog.bit() | Group::Depth.bit());
        let mut out = PipelineState::default();
        derive(&r, Group::Fog.bit(), &mut out);
        assert_eq!(out.fog.start, 2.5);
        assert_eq!(out.depth.z_func, CmpFunc::LessEqual); // not derived yet
        derive(&r, r.dirty(), &mut out);
        assert_eq!(out.depth.z_func, CmpFunc::Greater);
        // Writing a register its current value dirties nothing.
        r.take_dirty();
        r.write(id::rs(23), 5).unwrap();
        assert_eq!(r.dirty(), 0);
    }

    /// Lights: the enabled slots, in slot order; TEXTURE3's matrix feeds
    /// stage 3; WORLD2 feeds the second vertex-blend matrix.
    #[test]
    fn lights_and_transforms_land_where_the_ddi_numbers_say() {
        use id::light_field as lf;
        let mut r = RegisterFile::default();
        // Slot 5 enabled, a point light (D3DLIGHT_POINT = 1) with range 7.
        r.write(id::light(5, lf::ENABLE), 1).unwrap();
        r.write(id::light(5, lf::TYPE), 1).unwrap();
        r.write(id::light(5, lf::RANGE), 7.0f32.to_bits()).unwrap();
        // D3DTS_TEXTURE3 = 19, element _42 = row 3, column 1 = 13.
        r.write(id::transform(19, 13), 9.0f32.to_bits()).unwrap();
        // D3DTS_WORLD2 = 258, element _21 = 4.
        r.write(id::transform(258, 4), (-3.0f32).to_bits()).unwrap();
        let mut out = PipelineState::default();
        derive(&r, r.dirty(), &mut out);
        assert_eq!(out.lighting.light_count, 1);
        assert_eq!(out.lighting.lights[0].kind, LightType::Point);
        assert_eq!(out.lighting.lights[0].range, 7.0);
        assert_eq!(out.textures.matrices[3].0[3][1], 9.0);
        assert_eq!(out.vertex_blend.worlds[1].0[1][0], -3.0);
    }
}
