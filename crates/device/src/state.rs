//! The fixed-function state of a context.
//!
//! In: render states, texture-stage states, transforms, viewport, lights,
//! material, clip planes, scissor, stream bindings — as DP2 commands set
//! them. Out: [`DeviceState`] (what `lpdwRStates`, state blocks and
//! snapshots see; the UMD sends it to the GPU as register writes in
//! Direct3D numbering, `crate::umd`, and the GPU side derives the
//! pipeline's state from those).
//!
//! Render-state values are *honoured or replaced* when set
//! ([`sanitize_render_state`]): an enumerated value the DDI does not define,
//! or a feature the device does not implement, is replaced by the value the
//! device actually uses, and the replacement is what `lpdwRStates` shows.
//! Defaults and these rules are the state table's (`softhal_types::state`,
//! one row per state, listed in `docs/states.md`). BOOL states: 0 is FALSE, any
//! other value TRUE (stored as given). Legacy DX5 stage-0 render states are
//! mapped onto texture stage 0 and onto WRAP0.

use crate::error::{check_below, DeviceError, Result};
use crate::limits;
use softhal_pipeline as pl;
use softhal_wire::names::{
    self as n, RenderStateType as Rs, TextureStageStateType as Tss, TransformStateType as Ts,
    D3DTS_WORLDMATRIX_BASE,
};
use std::collections::BTreeMap;

/// A row-major 4×4 matrix (`m[r][c]` = `_{r+1}{c+1}`).
pub type Mat = [[f32; 4]; 4];

/// The identity.
pub const IDENTITY: Mat = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

/// `a · b` (row vectors: `v · a · b`).
pub fn mat_mul(a: &Mat, b: &Mat) -> Mat {
    let mut r = [[0.0f32; 4]; 4];
    for (i, row) in r.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = a.get(i).map_or(0.0, |row| {
                row.iter()
                    .zip(b.iter())
                    .map(|(x, brow)| x * brow.get(j).copied().unwrap_or(0.0))
                    .sum()
            });
        }
    }
    r
}

/// D3DTS_WORLD (DX8+ numbering, = D3DTS_WORLDMATRIX(0)).
pub const TS_WORLD: u32 = Ts::World.raw();
/// D3DTS_VIEW.
pub const TS_VIEW: u32 = Ts::View.raw();
/// D3DTS_PROJECTION.
pub const TS_PROJECTION: u32 = Ts::Projection.raw();
/// D3DTS_TEXTURE0 (TEXTURE0..7 follow it).
pub const TS_TEXTURE0: u32 = Ts::Texture0.raw();

/// `D3DTS_WORLDMATRIX(n)` for every `n` (0..=255).
const WORLD_MATRICES: std::ops::RangeInclusive<u32> =
    D3DTS_WORLDMATRIX_BASE..=D3DTS_WORLDMATRIX_BASE + 255;

/// Maps a transform id to the device's key: the DX7 world numbers
/// (WORLD_DX7, WORLD1_DX7..WORLD3_DX7) become D3DTS_WORLD..WORLD3; view,
/// projection, TEXTURE0..7 and WORLDMATRIX(n) are kept; anything else is
/// an error.
pub fn transform_key(t: u32) -> Result<u32> {
    match Ts::from_raw(t) {
        Some(Ts::WorldDx7) => Ok(Ts::World.raw()),
        Some(Ts::World1Dx7) => Ok(Ts::World1.raw()),
        Some(Ts::World2Dx7) => Ok(Ts::World2.raw()),
        Some(Ts::World3Dx7) => Ok(Ts::World3.raw()),
        Some(_) => Ok(t),
        None if WORLD_MATRICES.contains(&t) => Ok(t),
        None => Err(DeviceError::BadValue {
            what: "xfrmType",
            value: t,
        }),
    }
}

/// The viewport (VIEWPORTINFO + ZRANGE).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewportState {
    /// dwX.
    pub x: u32,
    /// dwY.
    pub y: u32,
    /// dwWidth.
    pub width: u32,
    /// dwHeight.
    pub height: u32,
    /// dvMinZ.
    pub min_z: f32,
    /// dvMaxZ.
    pub max_z: f32,
}

/// One light slot (CREATELIGHT / SETLIGHT).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LightSlot {
    /// SETLIGHT ENABLE / DISABLE.
    pub enabled: bool,
    /// The D3DLIGHT7 of SETLIGHT DATA, as 26 raw DWORDs.
    pub data: Option<[u32; 26]>,
}

/// Where a vertex stream's data comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StreamSource {
    /// Unbound.
    #[default]
    None,
    /// A vertex buffer surface.
    Surface(u32),
    /// The DP2 call's user-memory vertices (SETSTREAMSOURCEUM); valid only
    /// during the call that set it.
    UserMemory,
}

/// A stream binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stream {
    /// The data.
    pub source: StreamSource,
    /// Byte offset of vertex 0 (SETSTREAMSOURCE2).
    pub offset: u32,
    /// Vertex stride in bytes.
    pub stride: u32,
    /// SETSTREAMSOURCEFREQ divider (1 = every vertex).
    pub divider: u32,
}

impl Default for Stream {
    fn default() -> Self {
        Stream {
            source: StreamSource::None,
            offset: 0,
            stride: 0,
            divider: 1,
        }
    }
}

/// What describes the vertices of stream draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VertexInput {
    /// An FVF code (SETVERTEXSHADER with an FVF, SETVERTEXSHADERDECL
    /// with bit 0 clear).
    Fvf(u32),
    /// A DX9 declaration handle.
    Decl(u32),
    /// A DX8 vertex shader handle (CREATEVERTEXSHADER).
    Shader(u32),
}

/// Shader constant registers.
#[derive(Clone, PartialEq, Eq)]
pub struct Constants {
    /// Float vectors (raw bits).
    pub f: Vec<[u32; 4]>,
    /// Integer vectors.
    pub i: Vec<[u32; 4]>,
    /// BOOLs.
    pub b: Vec<u32>,
}

/// Only the non-zero registers, with their numbers (and each bank's
/// length): the same information as every register, in a fraction of the
/// text (snapshots format whole contexts).
impl std::fmt::Debug for Constants {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        struct Sparse<'a, T>(&'a [T], T);
        impl<T: std::fmt::Debug + PartialEq> std::fmt::Debug for Sparse<'_, T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{} ", self.0.len())?;
                f.debug_map()
                    .entries(self.0.iter().enumerate().filter(|(_, v)| **v != self.1))
                    .finish()
            }
        }
        f.debug_struct("Constants")
            .field("f", &Sparse(&self.f, [0; 4]))
            .field("i", &Sparse(&self.i, [0; 4]))
            .field("b", &Sparse(&self.b, 0))
            .finish()
    }
}

impl Constants {
    /// Every register of a vertex (`vertex`) or pixel stage 0: what a new
    /// context holds.
    pub fn zeroed(vertex: bool) -> Self {
        let nf = if vertex {
            limits::MAX_VS_CONST_F
        } else {
            limits::MAX_PS_CONST_F
        };
        Constants {
            f: vec![[0; 4]; nf as usize],
            i: vec![[0; 4]; limits::MAX_CONST_I as usize],
            b: vec![0; limits::MAX_CONST_B as usize],
        }
    }
}

/// Everything a context's commands set.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceState {
    /// Render states as honoured (index = D3DRENDERSTATETYPE).
    pub render_states: Vec<u32>,
    /// Texture-stage states: `[stage][D3DTSS_*]`.
    pub texture_stages: Vec<[u32; limits::TSS_PER_STAGE as usize]>,
    /// Transforms set so far (absent = identity), by [`transform_key`].
    pub transforms: BTreeMap<u32, Mat>,
    /// Viewport and z range.
    pub viewport: ViewportState,
    /// WINFO (near, far).
    pub w_range: (f32, f32),
    /// SETMATERIAL (17 floats as raw bits).
    pub material: Option<[u32; 17]>,
    /// Light slots (CREATELIGHT grows the array).
    pub lights: Vec<LightSlot>,
    /// User clip planes.
    pub clip_planes: [[f32; 4]; limits::MAX_CLIP_PLANES as usize],
    /// SETSCISSORRECT (left, top, right, bottom).
    pub scissor: [i32; 4],
    /// Vertex streams.
    pub streams: [Stream; limits::MAX_STREAMS as usize],
    /// Index buffer and its stride (2 or 4).
    pub indices: Option<(u32, u32)>,
    /// Vertex input of stream draws.
    pub vertex_input: VertexInput,
    /// DX9 vertex shader function handle (0 = fixed function).
    pub vertex_shader_func: u32,
    /// Pixel shader handle (0 = fixed function).
    pub pixel_shader: u32,
    /// Vertex-shader constants.
    pub vs_consts: Constants,
    /// Pixel-shader constants.
    pub ps_consts: Constants,
    /// Scenes begun (SCENECAPTURE TRUE) minus ended.
    pub in_scene: bool,
}

/// The D3DTSS defaults of stage `s` (the state table's, see
/// `softhal_types::state`: stage 0 modulates, the others are off).
/// D3DDMAPSAMPLER, the displacement-map sampler's number in a
/// TEXTURESTAGESTATE's `wStage`: accepted and not kept (softhal does no
/// displacement mapping).
pub const D3DDMAPSAMPLER: u32 = 256;
/// D3DVERTEXTEXTURESAMPLER0 (= D3DDMAPSAMPLER + 1), the first
/// vertex-texture sampler's number in `wStage`; the samplers
/// D3DVERTEXTEXTURESAMPLER0–3 are kept as stages
/// `PIXEL_SAMPLERS..SAMPLER_STAGES` of the device state.
pub const D3DVERTEXTEXTURESAMPLER0: u32 = D3DDMAPSAMPLER + 1;

// The device's stages are the GPU register file's.
const _: () = assert!(limits::SAMPLER_STAGES == softhal_submit::regs::STAGES);

/// The device-state stage a TEXTURESTAGESTATE `wStage` addresses:
/// `Some(Some(s))` a kept stage (0–15 the pixel samplers, of which 0–7
/// are the texture stages; 16–19 D3DVERTEXTEXTURESAMPLER0–3),
/// `Some(None)` D3DDMAPSAMPLER (accepted, dropped), `None` no such stage.
pub fn stage_of(w_stage: u32) -> Option<Option<u32>> {
    if w_stage < limits::PIXEL_SAMPLERS {
        return Some(Some(w_stage));
    }
    if w_stage == D3DDMAPSAMPLER {
        return Some(None);
    }
    let stage = w_stage
        .checked_sub(D3DVERTEXTEXTURESAMPLER0)?
        .checked_add(limits::PIXEL_SAMPLERS)?;
    (stage < limits::SAMPLER_STAGES).then_some(Some(stage))
}

fn default_stage(s: usize) -> [u32; limits::TSS_PER_STAGE as usize] {
    let mut t = [0u32; limits::TSS_PER_STAGE as usize];
    for state in Tss::ALL {
        if let Some(slot) = t.get_mut(state.raw() as usize) {
            *slot = state.info().default.for_stage(s as u32);
        }
    }
    t
}

impl Default for DeviceState {
    fn default() -> Self {
        // The state table's Direct3D defaults; unassigned numbers are 0.
        let mut rs = vec![0u32; limits::MAX_RENDER_STATES as usize];
        for s in Rs::ALL {
            if let Some(slot) = rs.get_mut(s.raw() as usize) {
                *slot = s.info().default;
            }
        }
        DeviceState {
            render_states: rs,
            texture_stages: (0..limits::SAMPLER_STAGES as usize)
                .map(default_stage)
                .collect(),
            transforms: BTreeMap::new(),
            viewport: ViewportState {
                x: 0,
                y: 0,
                width: pl::limits::MAX_DIMENSION,
                height: pl::limits::MAX_DIMENSION,
                min_z: 0.0,
                max_z: 1.0,
            },
            w_range: (0.0, 1.0),
            material: None,
            lights: Vec::new(),
            clip_planes: [[0.0; 4]; limits::MAX_CLIP_PLANES as usize],
            scissor: [0, 0, i32::MAX, i32::MAX],
            streams: [Stream::default(); limits::MAX_STREAMS as usize],
            indices: None,
            vertex_input: VertexInput::Fvf(0),
            vertex_shader_func: 0,
            pixel_shader: 0,
            vs_consts: Constants::zeroed(true),
            ps_consts: Constants::zeroed(false),
            in_scene: false,
        }
    }
}

/// The value the device honours for render state `state` set to `value`:
/// the state table's rule for it (`RenderStateType::honoured`, one
/// `Honour` per row of `softhal_types::state`); an unassigned number is
/// stored as given. See the module docs.
pub fn sanitize_render_state(state: u32, value: u32) -> u32 {
    Rs::from_raw(state).map_or(value, |s| s.honoured(value))
}

// The table keeps the planes of D3DRS_CLIPPLANEENABLE the device has.
const _: () = assert!(matches!(
    Rs::ClipPlaneEnable.info().honour,
    softhal_types::state::Honour::Mask(m) if m == (1 << limits::MAX_CLIP_PLANES) - 1
));

/// `D3DWRAP_U` / `D3DWRAP_V`: bits of `D3DRS_WRAP0`.
const WRAP_U: u32 = 1;
const WRAP_V: u32 = 2;

/// Side effects of a legacy stage-0 render state on texture stage 0 and
/// WRAP0: `(stage-0 TSS number, value)` pairs and an optional WRAP0 bit.
pub fn legacy_mapping(state: u32, value: u32, wrap0: u32) -> (Vec<(usize, u32)>, Option<u32>) {
    use n::{TextureArg as Arg, TextureBlend as Tb, TextureFilter as F};
    use n::{TextureFilterType as Filter, TextureOp as Op};
    let on = |b: u32, bit: u32| if value != 0 { b | bit } else { b & !bit };
    let tss = |pairs: &[(Tss, u32)]| -> Vec<(usize, u32)> {
        pairs.iter().map(|&(t, v)| (t.raw() as usize, v)).collect()
    };
    let Some(s) = Rs::from_raw(state) else {
        return (Vec::new(), None);
    };
    match s {
        Rs::TextureHandle => (tss(&[(Tss::TextureMap, value)]), None),
        Rs::TextureAddress => (tss(&[(Tss::AddressU, value), (Tss::AddressV, value)]), None),
        Rs::WrapU => (Vec::new(), Some(on(wrap0, WRAP_U))),
        Rs::WrapV => (Vec::new(), Some(on(wrap0, WRAP_V))),
        Rs::TextureMag => {
            let mag = if value == F::Linear.raw() {
                Filter::Linear
            } else {
                Filter::Point
            };
            (tss(&[(Tss::MagFilter, mag.raw())]), None)
        }
        Rs::TextureMin => {
            let (min, mip) = match F::from_raw(value) {
                Some(F::Nearest) | None => (Filter::Point, Filter::None),
                Some(F::Linear) => (Filter::Linear, Filter::None),
                Some(F::MipNearest) => (Filter::Point, Filter::Point),
                Some(F::MipLinear) => (Filter::Linear, Filter::Point),
                Some(F::LinearMipNearest) => (Filter::Point, Filter::Linear),
                Some(F::LinearMipLinear) => (Filter::Linear, Filter::Linear),
            };
            let pairs = [(Tss::MinFilter, min.raw()), (Tss::MipFilter, mip.raw())];
            (tss(&pairs), None)
        }
        Rs::TextureMapBlend => {
            // (COLOROP, ALPHAOP) with ARG1 = TEXTURE, ARG2 = DIFFUSE.
            let (c, a) = match Tb::from_raw(value) {
                Some(Tb::Decal | Tb::DecalMask | Tb::Copy) => (Op::SelectArg1, Op::SelectArg1),
                Some(Tb::Modulate | Tb::ModulateMask) | None => (Op::Modulate, Op::SelectArg1),
                Some(Tb::DecalAlpha) => (Op::BlendTextureAlpha, Op::SelectArg2),
                Some(Tb::ModulateAlpha) => (Op::Modulate, Op::Modulate),
                Some(Tb::Add) => (Op::Add, Op::SelectArg2),
            };
            let pairs = [
                (Tss::ColorOp, c.raw()),
                (Tss::ColorArg1, Arg::Texture.raw()),
                (Tss::ColorArg2, Arg::Diffuse.raw()),
                (Tss::AlphaOp, a.raw()),
                (Tss::AlphaArg1, Arg::Texture.raw()),
                (Tss::AlphaArg2, Arg::Diffuse.raw()),
            ];
            (tss(&pairs), None)
        }
        Rs::BorderColor => (tss(&[(Tss::BorderColor, value)]), None),
        Rs::TextureAddressU => (tss(&[(Tss::AddressU, value)]), None),
        Rs::TextureAddressV => (tss(&[(Tss::AddressV, value)]), None),
        Rs::MipMapLodBias => (tss(&[(Tss::MipMapLodBias, value)]), None),
        Rs::Anisotropy => (tss(&[(Tss::MaxAnisotropy, value)]), None),
        _ => (Vec::new(), None),
    }
}

/// The texture-stage states a TEXTURESTAGESTATE record sets: the record
/// itself, D3DTSS_ADDRESS (DX6/7) also setting ADDRESSU and ADDRESSV, and,
/// for runtimes before DX8 (`dx_version < 0x800`), the DX6/7 filter values
/// (D3DTFG_*, D3DTFN_*, D3DTFP_*) stored as their DX8 D3DTEXF_* equivalents
/// (an undefined value keeps the stage's filter default).
pub fn texture_stage_writes(tss: u32, value: u32, dx_version: u32) -> Vec<(u32, u32)> {
    use n::{TextureFilterType as Filter, TextureMagFilter as Mag};
    use n::{TextureMinFilter as Min, TextureMipFilter as Mip};
    let dx6 = dx_version < 0x800;
    match Tss::from_raw(tss) {
        Some(Tss::Address) => vec![
            (tss, value),
            (Tss::AddressU.raw(), value),
            (Tss::AddressV.raw(), value),
        ],
        Some(Tss::MagFilter) if dx6 => {
            let f = match Mag::from_raw(value) {
                Some(Mag::Point) | None => Filter::Point,
                Some(Mag::Linear | Mag::FlatCubic | Mag::GaussianCubic) => Filter::Linear,
                Some(Mag::Anisotropic) => Filter::Anisotropic,
            };
            vec![(tss, f.raw())]
        }
        Some(Tss::MinFilter) if dx6 => {
            let f = match Min::from_raw(value) {
                Some(Min::Point) | None => Filter::Point,
                Some(Min::Linear) => Filter::Linear,
                Some(Min::Anisotropic) => Filter::Anisotropic,
            };
            vec![(tss, f.raw())]
        }
        Some(Tss::MipFilter) if dx6 => {
            let f = match Mip::from_raw(value) {
                Some(Mip::None) | None => Filter::None,
                Some(Mip::Point) => Filter::Point,
                Some(Mip::Linear) => Filter::Linear,
            };
            vec![(tss, f.raw())]
        }
        _ => vec![(tss, value)],
    }
}

impl DeviceState {
    /// Render state `s`.
    pub fn rs(&self, s: Rs) -> u32 {
        self.render_states
            .get(s.raw() as usize)
            .copied()
            .unwrap_or(0)
    }

    /// Sets render state `state` (already sanitized) and applies its legacy
    /// side effects. `state` must be below 256 (checked).
    pub fn set_render_state(&mut self, state: u32, value: u32) -> Result<()> {
        check_below(
            "RenderState",
            u64::from(state),
            u64::from(limits::MAX_RENDER_STATES),
        )?;
        let wrap0 = self.rs(Rs::Wrap0);
        let (tss, wrap) = legacy_mapping(state, value, wrap0);
        if let Some(slot) = self.render_states.get_mut(state as usize) {
            *slot = value;
        }
        if let Some(stage0) = self.texture_stages.get_mut(0) {
            for (t, v) in tss {
                if let Some(slot) = stage0.get_mut(t) {
                    *slot = v;
                }
            }
        }
        if let (Some(w), Some(slot)) = (wrap, self.render_states.get_mut(Rs::Wrap0.raw() as usize))
        {
            *slot = w;
        }
        if state == Rs::SceneCapture.raw() {
            self.in_scene = value != 0;
        }
        Ok(())
    }

    /// A transform (identity when never set).
    pub fn transform(&self, key: u32) -> Mat {
        self.transforms.get(&key).copied().unwrap_or(IDENTITY)
    }

    /// The texture handle bound to each stage (D3DTSS_TEXTUREMAP; 0 =
    /// none): the texture stages, then the vertex-texture samplers.
    pub fn texture_handles(&self) -> [u32; limits::SAMPLER_STAGES as usize] {
        std::array::from_fn(|s| {
            self.texture_stages
                .get(s)
                .and_then(|t| t.get(Tss::TextureMap.raw() as usize))
                .copied()
                .unwrap_or(0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use n::{CmpFunc, FillMode, VertexBlendFlags};
    use softhal_types::state::Reader;

    #[test]
    fn sanitize_replaces_undefined_values() {
        let sanitize = |s: Rs, v: u32| sanitize_render_state(s.raw(), v);
        assert_eq!(sanitize(Rs::ZEnable, 9), 1);
        assert_eq!(sanitize(Rs::ZEnable, 2), 2);
        assert_eq!(sanitize(Rs::ZFunc, 0), CmpFunc::LessEqual.raw());
        assert_eq!(sanitize(Rs::ZBias, 40), 16);
        assert_eq!(sanitize(Rs::Lighting, 1), 1); // honoured
        assert_eq!(
            sanitize(Rs::VertexBlend, VertexBlendFlags::Tweening.raw()),
            VertexBlendFlags::Tweening.raw()
        );
        // Undefined → DISABLE.
        assert_eq!(
            sanitize(Rs::VertexBlend, 4),
            VertexBlendFlags::Disable.raw()
        );
        assert_eq!(sanitize(Rs::PointSpriteEnable, 1), 1);
        assert_eq!(sanitize(Rs::MultisampleAntialias, 1), 0); // not implemented
        assert_eq!(sanitize_render_state(63, 1234), 1234); // unassigned number
        assert_eq!(sanitize(Rs::ClipPlaneEnable, 0xFF), 0x3F);
        assert_eq!(sanitize(Rs::FillMode, 0), FillMode::Solid.raw());
    }

    #[test]
    fn the_numbers_are_the_ddk_numbers() {
        assert_eq!(
            [
                Rs::ZEnable,
                Rs::ZFunc,
                Rs::ZBias,
                Rs::Lighting,
                Rs::VertexBlend
            ]
            .map(Rs::raw),
            [7, 23, 47, 137, 151]
        );
        assert_eq!(
            [
                Rs::PointSpriteEnable,
                Rs::MultisampleAntialias,
                Rs::ClipPlaneEnable
            ]
            .map(Rs::raw),
            [156, 161, 152]
        );
        assert_eq!(TS_WORLD, 256);
        assert_eq!(TS_TEXTURE0, 16);
    }

    #[test]
    fn legacy_states_map_onto_stage_zero() {
        let mut s = DeviceState::default();
        s.set_render_state(Rs::TextureAddressU.raw(), 3).unwrap();
        assert_eq!(s.texture_stages[0][Tss::AddressU.raw() as usize], 3);
        s.set_render_state(Rs::WrapU.raw(), 1).unwrap();
        assert_eq!(s.rs(Rs::Wrap0), WRAP_U);
        s.set_render_state(Rs::WrapV.raw(), 7).unwrap();
        assert_eq!(s.rs(Rs::Wrap0), WRAP_U | WRAP_V);
        s.set_render_state(Rs::WrapU.raw(), 0).unwrap();
        assert_eq!(s.rs(Rs::Wrap0), WRAP_V);
        assert!(s.set_render_state(256, 0).is_err());
    }

    /// The pipeline state a GPU context derives from the registers of
    /// the device's defaults (the UMD's `registers_of`) is the pipeline's
    /// own default state: the defaults of the state table and of
    /// `PipelineState` agree.
    fn derived(st: &DeviceState) -> pl::PipelineState {
        crate::umd::registers_of(st, true).derived()
    }

    #[test]
    fn device_defaults_are_the_pipeline_defaults() {
        assert_eq!(
            derived(&DeviceState::default()),
            pl::PipelineState::default()
        );
    }

    /// The render states whose row of the state table says the pipeline
    /// reads them (`Reader::Pipeline`). The states the device keeps for
    /// itself or only stores (DITHERENABLE, LINEPATTERN, the legacy stage-0
    /// states, SCENECAPTURE, ...) are excluded by their rows, not here.
    fn render_states_the_pipeline_reads() -> Vec<Rs> {
        Rs::ALL
            .iter()
            .copied()
            .filter(|s| s.info().reads == Reader::Pipeline)
            .collect()
    }

    /// The comparison above covers the defaults: changing the table's
    /// default of any render state the table says the pipeline reads to
    /// another honoured value makes the device's translated defaults
    /// differ from the pipeline's. A state added to the table as read by
    /// the pipeline and not wired to it fails here.
    #[test]
    fn a_changed_default_is_seen() {
        let base = derived(&DeviceState::default());
        let states = render_states_the_pipeline_reads();
        // The register file's render states (raster, depth, stencil,
        // alpha test, blend with the MRT write masks, TEXTUREFACTOR and
        // colour keying, fog, lighting, vertex blend, points): 74.
        assert_eq!(states.len(), 74, "{states:?}");
        for s in states {
            let d = s.info().default;
            // Another value the device keeps for this state.
            let other = [d ^ 1, d ^ 2, 0.5f32.to_bits(), 2]
                .into_iter()
                .map(|v| s.honoured(v))
                .find(|&v| v != d)
                .unwrap_or_else(|| panic!("{s}: no other honoured value"));
            let mut st = DeviceState::default();
            st.render_states[s.raw() as usize] = other;
            assert_ne!(derived(&st), base, "{s} = {other:#x}");
        }
    }

    /// The table's `reads` column and the GPU register file agree: a
    /// render or texture-stage state is a register exactly when the table
    /// says the pipeline reads it (so a state the pipeline reads cannot
    /// be left out of the table's column, nor the column name a state the
    /// register file does not carry).
    #[test]
    fn the_pipeline_reads_the_register_file_states() {
        use softhal_submit::regs::{all_ids, id};
        let ids: std::collections::BTreeSet<u32> = all_ids().collect();
        for s in Rs::ALL {
            let pipeline = s.info().reads == Reader::Pipeline;
            assert_eq!(ids.contains(&id::rs(s.raw())), pipeline, "{s}");
        }
        for t in Tss::ALL {
            let pipeline = t.info().reads == Reader::Pipeline;
            assert_eq!(ids.contains(&id::tss(0, t.raw())), pipeline, "{t}");
        }
    }

    /// The same for the texture-stage states: every state the table says
    /// the pipeline reads has a field in the pipeline's stage, sampler or
    /// texture-coordinate state, so giving stage 0 (whose COLOROP and
    /// ALPHAOP defaults are its own) or stage 1 another value than its
    /// default makes the translated defaults differ from the pipeline's.
    #[test]
    fn a_changed_texture_stage_default_is_seen() {
        let base = derived(&DeviceState::default());
        let states: Vec<Tss> = Tss::ALL
            .iter()
            .copied()
            .filter(|t| t.info().reads == Reader::Pipeline)
            .collect();
        // D3DTSS_COLOROP 1 … TEXCOORDINDEX 11, ADDRESSU 13 … RESULTARG 28
        // and CONSTANT 32: 28 states.
        assert_eq!(states.len(), 28, "{states:?}");
        for stage in [0usize, 1] {
            for &t in &states {
                let info = t.info();
                let d = info.default.for_stage(stage as u32);
                // Another value of this state's kind (`d ^ 2` first: 0
                // and 1 mean the same D3DTSS_MAXANISOTROPY).
                let other = [d ^ 2, d ^ 1, d ^ 4, 0.5f32.to_bits(), 3]
                    .into_iter()
                    .find(|&v| v != d && info.kind.defines(v))
                    .unwrap_or_else(|| panic!("{t}: no other value"));
                let mut st = DeviceState::default();
                st.texture_stages[stage][t.raw() as usize] = other;
                assert_ne!(derived(&st), base, "stage {stage} {t} = {other:#x}");
            }
        }
    }

    /// A default is a value the device honours as given.
    #[test]
    fn render_state_defaults_are_honoured_as_given() {
        let d = DeviceState::default();
        for (s, &v) in d.render_states.iter().enumerate() {
            let s = s as u32;
            assert_eq!(sanitize_render_state(s, v), v, "render state {s}");
        }
    }

    #[test]
    fn dx7_world_numbers() {
        assert_eq!(transform_key(Ts::WorldDx7.raw()).unwrap(), TS_WORLD);
        assert_eq!(
            transform_key(Ts::World3Dx7.raw()).unwrap(),
            Ts::World3.raw()
        );
        assert!(transform_key(7).is_err());
        assert!(transform_key(512).is_err());
    }
}
