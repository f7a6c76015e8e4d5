//! State blocks (D3DDP2OP_STATESET): record, execute, capture, create.
//!
//! In: STATESET records and, while recording, the state commands that
//! follow BEGIN. Out: blocks holding a set of [`StateKey`]s and their
//! values. Semantics (choices where the DDK is silent, see docs/device.md):
//! * BEGIN starts recording into block `dwParam`; until END, state commands
//!   are validated exactly as usual but change the block, not the context
//!   (and do not update `lpdwRStates`). Non-state commands (draws, clears,
//!   blts, object creation) execute normally.
//! * END stores the block (replacing one of the same handle).
//! * EXECUTE applies every key of the block to the context (render states
//!   also go to `lpdwRStates` under D3DHALDP2_EXECUTEBUFFER).
//! * CAPTURE re-reads the current values of the block's keys.
//! * CREATE makes block `dwParam` holding the group `sbType` (ALL, PIXEL,
//!   VERTEX: the DDK's state lists below; ALL is PIXEL and VERTEX
//!   together) with current values.
//! * DELETE frees it. Unknown handles and out-of-order BEGIN/END fail.

use crate::context::StateKey;
use crate::limits;
use crate::state::DeviceState;
use softhal_wire::names::{
    RenderStateType as Rs, StateBlockType, TextureStageStateType as Tss, TransformStateType as Ts,
};

/// D3DSBT_PIXELSTATE texture-stage states.
pub const PIXEL_TSS: &[Tss] = &[
    Tss::ColorOp,
    Tss::ColorArg1,
    Tss::ColorArg2,
    Tss::AlphaOp,
    Tss::AlphaArg1,
    Tss::AlphaArg2,
    Tss::BumpEnvMat00,
    Tss::BumpEnvMat01,
    Tss::BumpEnvMat10,
    Tss::BumpEnvMat11,
    Tss::TexCoordIndex,
    Tss::AddressU,
    Tss::AddressV,
    Tss::BorderColor,
    Tss::MagFilter,
    Tss::MinFilter,
    Tss::MipFilter,
    Tss::MipMapLodBias,
    Tss::MaxMipLevel,
    Tss::MaxAnisotropy,
    Tss::BumpEnvLScale,
    Tss::BumpEnvLOffset,
    Tss::TextureTransformFlags,
    Tss::AddressW,
    Tss::ColorArg0,
    Tss::AlphaArg0,
    Tss::ResultArg,
];
/// D3DSBT_PIXELSTATE render states.
pub const PIXEL_RS: &[Rs] = &[
    Rs::ZEnable,
    Rs::FillMode,
    Rs::ShadeMode,
    Rs::LinePattern,
    Rs::ZWriteEnable,
    Rs::AlphaTestEnable,
    Rs::LastPixel,
    Rs::SrcBlend,
    Rs::DestBlend,
    Rs::ZFunc,
    Rs::AlphaRef,
    Rs::AlphaFunc,
    Rs::DitherEnable,
    Rs::AlphaBlendEnable,
    Rs::StippledAlpha,
    Rs::FogStart,
    Rs::FogEnd,
    Rs::FogDensity,
    Rs::EdgeAntialias,
    Rs::ZBias,
    Rs::StencilEnable,
    Rs::StencilFail,
    Rs::StencilZFail,
    Rs::StencilPass,
    Rs::StencilFunc,
    Rs::StencilRef,
    Rs::StencilMask,
    Rs::StencilWriteMask,
    Rs::TextureFactor,
    Rs::Wrap0,
    Rs::Wrap1,
    Rs::Wrap2,
    Rs::Wrap3,
    Rs::Wrap4,
    Rs::Wrap5,
    Rs::Wrap6,
    Rs::Wrap7,
    Rs::ColorWriteEnable,
    Rs::BlendOp,
];
/// D3DSBT_VERTEXSTATE render states.
pub const VERTEX_RS: &[Rs] = &[
    Rs::ShadeMode,
    Rs::CullMode,
    Rs::FogEnable,
    Rs::SpecularEnable,
    Rs::FogColor,
    Rs::FogTableMode,
    Rs::FogStart,
    Rs::FogEnd,
    Rs::FogDensity,
    Rs::RangeFogEnable,
    Rs::Clipping,
    Rs::Lighting,
    Rs::Ambient,
    Rs::FogVertexMode,
    Rs::ColorVertex,
    Rs::LocalViewer,
    Rs::NormalizeNormals,
    Rs::DiffuseMaterialSource,
    Rs::SpecularMaterialSource,
    Rs::AmbientMaterialSource,
    Rs::EmissiveMaterialSource,
    Rs::VertexBlend,
    Rs::ClipPlaneEnable,
    Rs::SoftwareVertexProcessing,
    Rs::PointSize,
    Rs::PointSizeMin,
    Rs::PointSpriteEnable,
    Rs::PointScaleEnable,
    Rs::PointScaleA,
    Rs::PointScaleB,
    Rs::PointScaleC,
    Rs::MultisampleAntialias,
    Rs::MultisampleMask,
    Rs::PatchEdgeStyle,
    Rs::PatchSegments,
    Rs::PointSizeMax,
    Rs::IndexedVertexBlendEnable,
    Rs::TweenFactor,
];
/// D3DSBT_VERTEXSTATE texture-stage states.
pub const VERTEX_TSS: &[Tss] = &[Tss::TexCoordIndex, Tss::TextureTransformFlags];

/// The keys of group `sb_type` (D3DSBT_ALL, PIXELSTATE, VERTEXSTATE) given
/// the current state (for the transforms and lights that exist).
pub fn group_keys(sb_type: u32, st: &DeviceState) -> Option<Vec<StateKey>> {
    let group = StateBlockType::from_raw(sb_type)?;
    // ALL is PIXELSTATE and VERTEXSTATE together.
    let (rs, tss, pixel, vertex): (&[&[Rs]], &[&[Tss]], bool, bool) = match group {
        StateBlockType::All => (&[PIXEL_RS, VERTEX_RS], &[PIXEL_TSS, VERTEX_TSS], true, true),
        StateBlockType::PixelState => (&[PIXEL_RS], &[PIXEL_TSS], true, false),
        StateBlockType::VertexState => (&[VERTEX_RS], &[VERTEX_TSS], false, true),
    };
    let mut rs: Vec<u32> = rs.iter().flat_map(|l| l.iter().map(|s| s.raw())).collect();
    let mut tss: Vec<u32> = tss.iter().flat_map(|l| l.iter().map(|t| t.raw())).collect();
    for v in [&mut rs, &mut tss] {
        v.sort_unstable();
        v.dedup();
    }
    let mut k: Vec<StateKey> = rs.into_iter().map(StateKey::Render).collect();
    for stage in 0..limits::MAX_TEXTURE_STAGES {
        k.extend(tss.iter().map(|&t| StateKey::TextureStage(stage, t)));
    }
    if pixel {
        k.push(StateKey::PixelShader);
        k.extend((0..limits::MAX_PS_CONST_F).map(StateKey::PsConstF));
        k.extend((0..limits::MAX_CONST_I).map(StateKey::PsConstI));
        k.extend((0..limits::MAX_CONST_B).map(StateKey::PsConstB));
    }
    if vertex {
        k.extend((0..st.lights.len() as u32).map(StateKey::Light));
        k.push(StateKey::VertexInput);
        k.push(StateKey::VertexShaderFunc);
        k.extend((0..limits::MAX_VS_CONST_F).map(StateKey::VsConstF));
        k.extend((0..limits::MAX_CONST_I).map(StateKey::VsConstI));
        k.extend((0..limits::MAX_CONST_B).map(StateKey::VsConstB));
    }
    if group == StateBlockType::All {
        k.push(StateKey::Viewport);
        k.push(StateKey::WInfo);
        k.push(StateKey::Material);
        k.extend((0..limits::MAX_CLIP_PLANES).map(StateKey::ClipPlane));
        // View, projection, world and the texture transforms, and every
        // other transform set so far.
        let mut t: Vec<u32> = [Ts::View, Ts::Projection, Ts::World]
            .iter()
            .map(|t| t.raw())
            .collect();
        t.extend(Ts::Texture0.raw()..=Ts::Texture7.raw());
        t.extend(st.transforms.keys().copied());
        t.sort_unstable();
        t.dedup();
        k.extend(t.into_iter().map(StateKey::Transform));
    }
    Some(k)
}

fn cp<T: Copy>(dst: &mut [T], src: &[T], i: u32) {
    if let (Some(d), Some(s)) = (dst.get_mut(i as usize), src.get(i as usize)) {
        *d = *s;
    }
}

/// Copies the value of `key` from `src` to `dst`.
pub fn copy_key(key: StateKey, src: &DeviceState, dst: &mut DeviceState) {
    match key {
        StateKey::Render(s) => cp(&mut dst.render_states, &src.render_states, s),
        StateKey::TextureStage(stage, t) => {
            if let (Some(d), Some(s)) = (
                dst.texture_stages.get_mut(stage as usize),
                src.texture_stages.get(stage as usize),
            ) {
                cp(d, s, t);
            }
        }
        StateKey::Transform(t) => match src.transforms.get(&t) {
            Some(m) => {
                dst.transforms.insert(t, *m);
            }
            None => {
                dst.transforms.remove(&t);
            }
        },
        StateKey::Viewport => dst.viewport = src.viewport,
        StateKey::WInfo => dst.w_range = src.w_range,
        StateKey::Material => dst.material = src.material,
        StateKey::Light(i) => {
            if let Some(l) = src.lights.get(i as usize) {
                if let Some(len) = (i as usize)
                    .checked_add(1)
                    .filter(|&n| dst.lights.len() < n)
                {
                    dst.lights.resize(
                        len,
                        crate::state::LightSlot {
                            enabled: false,
                            data: None,
                        },
                    );
                }
                if let Some(d) = dst.lights.get_mut(i as usize) {
                    *d = *l;
                }
            }
        }
        StateKey::ClipPlane(i) => cp(&mut dst.clip_planes, &src.clip_planes, i),
        StateKey::Scissor => dst.scissor = src.scissor,
        StateKey::Stream(i) => cp(&mut dst.streams, &src.streams, i),
        StateKey::Indices => dst.indices = src.indices,
        StateKey::VertexInput => dst.vertex_input = src.vertex_input,
        StateKey::VertexShaderFunc => dst.vertex_shader_func = src.vertex_shader_func,
        StateKey::PixelShader => dst.pixel_shader = src.pixel_shader,
        StateKey::VsConstF(r) => cp(&mut dst.vs_consts.f, &src.vs_consts.f, r),
        StateKey::VsConstI(r) => cp(&mut dst.vs_consts.i, &src.vs_consts.i, r),
        StateKey::VsConstB(r) => cp(&mut dst.vs_consts.b, &src.vs_consts.b, r),
        StateKey::PsConstF(r) => cp(&mut dst.ps_consts.f, &src.ps_consts.f, r),
        StateKey::PsConstI(r) => cp(&mut dst.ps_consts.i, &src.ps_consts.i, r),
        StateKey::PsConstB(r) => cp(&mut dst.ps_consts.b, &src.ps_consts.b, r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GROUPS: [StateBlockType; 3] = [
        StateBlockType::All,
        StateBlockType::PixelState,
        StateBlockType::VertexState,
    ];

    /// A state with a value in every slot that differs from the default.
    fn marked() -> DeviceState {
        let mut st = DeviceState::default();
        for (i, v) in st.render_states.iter_mut().enumerate() {
            *v = 0x5A00_0000 | i as u32;
        }
        for (stage, t) in st.texture_stages.iter_mut().enumerate() {
            for (i, v) in t.iter_mut().enumerate() {
                *v = 0x5B00_0000 | (stage as u32) << 8 | i as u32;
            }
        }
        st
    }

    /// Every render and texture-stage state of every group is one the
    /// device stores: a named DDI state, inside the state arrays, and
    /// copied by [`copy_key`].
    #[test]
    fn groups_hold_only_states_the_device_knows() {
        let src = marked();
        for g in GROUPS {
            let keys = group_keys(g.raw(), &src).unwrap();
            assert!(!keys.is_empty());
            for k in keys {
                let mut dst = DeviceState::default();
                copy_key(k, &src, &mut dst);
                match k {
                    StateKey::Render(s) => {
                        assert!(Rs::from_raw(s).is_some(), "{g:?}: render state {s}");
                        assert!(s < limits::MAX_RENDER_STATES, "{g:?}: {s}");
                        assert_eq!(dst.render_states[s as usize], 0x5A00_0000 | s);
                    }
                    StateKey::TextureStage(stage, t) => {
                        assert!(Tss::from_raw(t).is_some(), "{g:?}: TSS {t}");
                        assert!(stage < limits::MAX_TEXTURE_STAGES);
                        assert!(t < limits::TSS_PER_STAGE, "{g:?}: TSS {t}");
                        let want = 0x5B00_0000 | stage << 8 | t;
                        assert_eq!(dst.texture_stages[stage as usize][t as usize], want);
                    }
                    _ => {}
                }
            }
        }
    }

    /// D3DSBT_ALL's render and texture-stage states: the DDK's own list.
    #[test]
    fn all_is_the_ddk_list() {
        let keys = group_keys(StateBlockType::All.raw(), &DeviceState::default()).unwrap();
        let rs: Vec<u32> = keys
            .iter()
            .filter_map(|k| match k {
                StateKey::Render(s) => Some(*s),
                _ => None,
            })
            .collect();
        assert_eq!(
            rs,
            [
                7, 8, 9, 10, 14, 15, 16, 19, 20, 22, 23, 24, 25, 26, 27, 28, 29, 33, 34, 35, 36,
                37, 38, 40, 47, 48, 52, 53, 54, 55, 56, 57, 58, 59, 60, 128, 129, 130, 131, 132,
                133, 134, 135, 136, 137, 139, 140, 141, 142, 143, 145, 146, 147, 148, 151, 152,
                153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 166, 167, 168, 170,
                171,
            ]
        );
        let stage0: Vec<u32> = keys
            .iter()
            .filter_map(|k| match k {
                StateKey::TextureStage(0, t) => Some(*t),
                _ => None,
            })
            .collect();
        let pixel: Vec<u32> = PIXEL_TSS.iter().map(|t| t.raw()).collect();
        assert_eq!(stage0, pixel);
        for t in VERTEX_TSS {
            assert!(PIXEL_TSS.contains(t), "{t:?}");
        }
    }

    #[test]
    fn unknown_group_is_none() {
        assert!(group_keys(0, &DeviceState::default()).is_none());
        assert!(group_keys(4, &DeviceState::default()).is_none());
    }
}
