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
//!   VERTEX: the DDK's state-block groups, listed below) with current values.
//! * DELETE frees it. Unknown handles and out-of-order BEGIN/END fail.

use crate::context::StateKey;
use crate::limits;
use crate::state::DeviceState;

/// D3DSBT_ALL render states.
pub const ALL_RS: &[u32] = &[
    7, 8, 9, 10, 14, 15, 16, 19, 20, 22, 23, 24, 25, 26, 27, 28, 29, 33, 34, 35, 36, 37, 38, 40,
    47, 48, 52, 53, 54, 55, 56, 57, 58, 59, 60, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137,
    139, 140, 141, 142, 143, 145, 146, 147, 148, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160,
    161, 162, 163, 164, 166, 167, 168, 170, 171,
];
/// D3DSBT_ALL / PIXELSTATE texture-stage states.
pub const PIXEL_TSS: &[u32] = &[
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
    28,
];
/// D3DSBT_PIXELSTATE render states.
pub const PIXEL_RS: &[u32] = &[
    7, 8, 9, 10, 14, 15, 16, 19, 20, 23, 24, 25, 26, 27, 33, 36, 37, 38, 40, 47, 52, 53, 54, 55,
    56, 57, 58, 59, 60, 128, 129, 130, 131, 132, 133, 134, 135, 168, 171,
];
/// D3DSBT_VERTEXSTATE render states.
pub const VERTEX_RS: &[u32] = &[
    9, 22, 28, 29, 34, 35, 36, 37, 38, 48, 136, 137, 139, 140, 141, 142, 143, 145, 146, 147, 148,
    151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 166, 167, 170,
];
/// D3DSBT_VERTEXSTATE texture-stage states.
pub const VERTEX_TSS: &[u32] = &[11, 24];

/// The keys of group `sb_type` (1 ALL, 2 PIXELSTATE, 3 VERTEXSTATE) given
/// the current state (for the transforms and lights that exist).
pub fn group_keys(sb_type: u32, st: &DeviceState) -> Option<Vec<StateKey>> {
    let (rs, tss, pixel, vertex): (&[u32], &[u32], bool, bool) = match sb_type {
        1 => (ALL_RS, PIXEL_TSS, true, true),
        2 => (PIXEL_RS, PIXEL_TSS, true, false),
        3 => (VERTEX_RS, VERTEX_TSS, false, true),
        _ => return None,
    };
    let mut k: Vec<StateKey> = rs.iter().map(|&s| StateKey::Render(s)).collect();
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
    if sb_type == 1 {
        k.push(StateKey::Viewport);
        k.push(StateKey::WInfo);
        k.push(StateKey::Material);
        k.extend((0..limits::MAX_CLIP_PLANES).map(StateKey::ClipPlane));
        let mut t: Vec<u32> = vec![2, 3, 256];
        t.extend(16..=23);
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
