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
//!   VERTEX: the DDK's render and texture-stage state lists with the
//!   Direct3D 9 states placed as the Direct3D 9 documentation places them,
//!   the `groups` column of the state table in `softhal_types::state`; ALL
//!   is PIXEL and VERTEX together) with current values. A group's sampler
//!   states (`TextureStageStateType::sampler_state`) are taken on every
//!   sampler — the pixel samplers 0–15 and the vertex-texture samplers
//!   D3DVERTEXTEXTURESAMPLER0–3 (device stages 16–19); its texture states
//!   on the texture stages 0–7. No
//!   group holds a texture binding (D3DTSS_TEXTUREMAP): the DDK leaves the
//!   bound textures of a created block (and its streams) to the runtime. A
//!   recorded block holds what was set while recording, texture bindings
//!   and vertex-sampler states included.
//! * DELETE frees it. Unknown handles and out-of-order BEGIN/END fail.

use crate::context::StateKey;
use crate::limits;
use crate::state::DeviceState;
use softhal_types::state::StateGroup;
use softhal_wire::names::{
    RenderStateType as Rs, StateBlockType, TextureStageStateType as Tss, TransformStateType as Ts,
};

/// The keys of group `sb_type` (D3DSBT_ALL, PIXELSTATE, VERTEXSTATE) given
/// the current state (for the transforms and lights that exist).
pub fn group_keys(sb_type: u32, st: &DeviceState) -> Option<Vec<StateKey>> {
    let group = StateBlockType::from_raw(sb_type)?;
    // ALL is PIXELSTATE and VERTEXSTATE together.
    let (table_group, pixel, vertex) = match group {
        StateBlockType::All => (StateGroup::All, true, true),
        StateBlockType::PixelState => (StateGroup::Pixel, true, false),
        StateBlockType::VertexState => (StateGroup::Vertex, false, true),
    };
    let rs: Vec<u32> = Rs::in_group(table_group).map(Rs::raw).collect();
    let tss: Vec<Tss> = Tss::in_group(table_group).collect();
    let mut k: Vec<StateKey> = rs.into_iter().map(StateKey::Render).collect();
    // Texture states on the texture stages, sampler states on every
    // sampler (pixel samplers 0–15, the vertex-texture samplers 16–19).
    for stage in 0..limits::SAMPLER_STAGES {
        let texture_stage = stage < limits::MAX_TEXTURE_STAGES;
        k.extend(
            tss.iter()
                .filter(|t| texture_stage || t.sampler_state().is_some())
                .map(|t| StateKey::TextureStage(stage, t.raw())),
        );
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
                        assert!(stage < limits::SAMPLER_STAGES);
                        assert!(t < limits::TSS_PER_STAGE, "{g:?}: TSS {t}");
                        let want = 0x5B00_0000 | stage << 8 | t;
                        assert_eq!(dst.texture_stages[stage as usize][t as usize], want);
                    }
                    _ => {}
                }
            }
        }
    }

    /// D3DSBT_ALL's render and texture-stage states: the DDK's own list,
    /// then the Direct3D 9 states it predates (the pixel and vertex ones
    /// of the two tests below: 172-176, 178-195, 198-209).
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
        let mut want = vec![
            7, 8, 9, 10, 14, 15, 16, 19, 20, 22, 23, 24, 25, 26, 27, 28, 29, 33, 34, 35, 36, 37,
            38, 40, 47, 48, 52, 53, 54, 55, 56, 57, 58, 59, 60, 128, 129, 130, 131, 132, 133, 134,
            135, 136, 137, 139, 140, 141, 142, 143, 145, 146, 147, 148, 151, 152, 153, 154, 155,
            156, 157, 158, 159, 160, 161, 162, 163, 164, 166, 167, 168, 170, 171,
        ];
        want.extend((172..=176).chain(178..=195).chain(198..=209));
        assert_eq!(rs, want);
        let stage = |n: u32| -> Vec<u32> {
            keys.iter()
                .filter_map(|k| match k {
                    StateKey::TextureStage(s, t) if *s == n => Some(*t),
                    _ => None,
                })
                .collect()
        };
        // D3DSBT_ALL's texture-stage states: the DDK's PIXELSTATE list
        // (VERTEXSTATE's TEXCOORDINDEX and TEXTURETRANSFORMFLAGS are in
        // it), then the DX9 sampler states SRGBTEXTURE 29, ELEMENTINDEX 30
        // (pixel) and DMAPOFFSET 31 (vertex).
        let stage0 = [
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
            26, 27, 28, 29, 30, 31,
        ];
        assert_eq!(stage(0), stage0);
        assert_eq!(stage(7), stage0);
        // The pixel samplers past the texture stages (8 and 15) and
        // D3DVERTEXTEXTURESAMPLER0 and 3 (stages 16 and 19): the sampler
        // states only: ADDRESSU 13, ADDRESSV 14, BORDERCOLOR 15, the
        // filters 16-18, MIPMAPLODBIAS 19, MAXMIPLEVEL 20, MAXANISOTROPY
        // 21, ADDRESSW 25, 29-31.
        let sampler = [13, 14, 15, 16, 17, 18, 19, 20, 21, 25, 29, 30, 31];
        for n in [8, 15, 16, 19] {
            assert_eq!(stage(n), sampler, "stage {n}");
        }
        assert_eq!(stage(20), [0u32; 0]);
    }

    fn render_states_of(group: StateBlockType) -> Vec<u32> {
        group_keys(group.raw(), &DeviceState::default())
            .unwrap()
            .iter()
            .filter_map(|k| match k {
                StateKey::Render(s) => Some(*s),
                _ => None,
            })
            .collect()
    }

    /// D3DSBT_PIXELSTATE's render states, from the DDK's list: ZENABLE 7,
    /// FILLMODE 8, SHADEMODE 9, LINEPATTERN 10, ZWRITEENABLE 14,
    /// ALPHATESTENABLE 15, LASTPIXEL 16, SRCBLEND 19, DESTBLEND 20, ZFUNC 23,
    /// ALPHAREF 24, ALPHAFUNC 25, DITHERENABLE 26, ALPHABLENDENABLE 27,
    /// STIPPLEDALPHA 33, FOGSTART/END/DENSITY 36-38, EDGEANTIALIAS 40,
    /// ZBIAS 47, the stencil states 52-59, TEXTUREFACTOR 60, WRAP0-7
    /// 128-135, COLORWRITEENABLE 168, BLENDOP 171; then the Direct3D 9
    /// pixel states ("Saving Pixel State With a StateBlock"):
    /// SCISSORTESTENABLE 174, SLOPESCALEDEPTHBIAS 175,
    /// ANTIALIASEDLINEENABLE 176, TWOSIDEDSTENCILMODE 185, the CCW stencil
    /// states 186-189, COLORWRITEENABLE1-3 190-192, BLENDFACTOR 193,
    /// SRGBWRITEENABLE 194, DEPTHBIAS 195, WRAP8-15 198-205,
    /// SEPARATEALPHABLENDENABLE 206, SRCBLENDALPHA 207, DESTBLENDALPHA
    /// 208, BLENDOPALPHA 209.
    #[test]
    fn pixel_state_is_the_ddk_list() {
        let mut want = vec![
            7, 8, 9, 10, 14, 15, 16, 19, 20, 23, 24, 25, 26, 27, 33, 36, 37, 38, 40, 47, 52, 53,
            54, 55, 56, 57, 58, 59, 60, 128, 129, 130, 131, 132, 133, 134, 135, 168, 171,
        ];
        want.extend([174, 175, 176]);
        want.extend(185..=195);
        want.extend(198..=209);
        assert_eq!(render_states_of(StateBlockType::PixelState), want);
    }

    /// D3DSBT_VERTEXSTATE's render states, from the DDK's list: SHADEMODE 9,
    /// CULLMODE 22, FOGENABLE 28, SPECULARENABLE 29, FOGCOLOR 34,
    /// FOGTABLEMODE 35, FOGSTART/END/DENSITY 36-38, RANGEFOGENABLE 48,
    /// CLIPPING 136, LIGHTING 137, AMBIENT 139, FOGVERTEXMODE 140,
    /// COLORVERTEX 141, LOCALVIEWER 142, NORMALIZENORMALS 143, the four
    /// material sources 145-148, VERTEXBLEND 151, CLIPPLANEENABLE 152,
    /// SOFTWAREVERTEXPROCESSING 153, the point states 154-160,
    /// MULTISAMPLEANTIALIAS 161, MULTISAMPLEMASK 162, PATCHEDGESTYLE 163,
    /// PATCHSEGMENTS 164, POINTSIZE_MAX 166, INDEXEDVERTEXBLENDENABLE 167,
    /// TWEENFACTOR 170; then the Direct3D 9 vertex states ("Saving Vertex
    /// States With a StateBlock"): POSITIONDEGREE 172, NORMALDEGREE 173,
    /// MIN/MAXTESSELLATIONLEVEL 178-179, ADAPTIVETESS_X..W 180-183,
    /// ENABLEADAPTIVETESSELLATION 184.
    #[test]
    fn vertex_state_is_the_ddk_list() {
        let mut want = vec![
            9, 22, 28, 29, 34, 35, 36, 37, 38, 48, 136, 137, 139, 140, 141, 142, 143, 145, 146,
            147, 148, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 166,
            167, 170,
        ];
        want.extend([172, 173]);
        want.extend(178..=184);
        assert_eq!(render_states_of(StateBlockType::VertexState), want);
    }

    /// The texture-stage states of PIXELSTATE and VERTEXSTATE on a texture
    /// stage and on a vertex-texture sampler: PIXELSTATE's sampler states
    /// (ADDRESSU 13 … MAXANISOTROPY 21, ADDRESSW 25, SRGBTEXTURE 29,
    /// ELEMENTINDEX 30) are on pixel sampler 8 and on
    /// D3DVERTEXTEXTURESAMPLER0 (stage 16) too; VERTEXSTATE has
    /// TEXCOORDINDEX 11, TEXTURETRANSFORMFLAGS 24 and DMAPOFFSET 31 on
    /// stage 0 and only DMAPOFFSET on stages 8 and 16.
    #[test]
    fn sampler_states_are_on_the_vertex_samplers() {
        let stage = |g: StateBlockType, n: u32| -> Vec<u32> {
            group_keys(g.raw(), &DeviceState::default())
                .unwrap()
                .into_iter()
                .filter_map(|k| match k {
                    StateKey::TextureStage(s, t) if s == n => Some(t),
                    _ => None,
                })
                .collect()
        };
        for n in [8, 16] {
            assert_eq!(
                stage(StateBlockType::PixelState, n),
                [13, 14, 15, 16, 17, 18, 19, 20, 21, 25, 29, 30]
            );
            assert_eq!(stage(StateBlockType::VertexState, n), [31]);
        }
        assert_eq!(stage(StateBlockType::VertexState, 0), [11, 24, 31]);
    }

    #[test]
    fn unknown_group_is_none() {
        assert!(group_keys(0, &DeviceState::default()).is_none());
        assert!(group_keys(4, &DeviceState::default()).is_none());
    }
}
