//! The fixed-function state of a context and its translation into the
//! pipeline's own types.
//!
//! In: render states, texture-stage states, transforms, viewport, lights,
//! material, clip planes, scissor, stream bindings — as DP2 commands set
//! them. Out: [`DeviceState`] (what `lpdwRStates`, state blocks and
//! snapshots see) and [`DeviceState::pipeline_state`], the
//! [`softhal_pipeline::PipelineState`] a draw runs with.
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
    fn new(nf: u32) -> Self {
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
            texture_stages: (0..limits::MAX_TEXTURE_STAGES as usize)
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
            vs_consts: Constants::new(limits::MAX_VS_CONST_F),
            ps_consts: Constants::new(limits::MAX_PS_CONST_F),
            in_scene: false,
        }
    }
}

/// A matrix for the GPU: non-finite elements (as given to SETTRANSFORM,
/// or from a MULTIPLYTRANSFORM product that overflowed) read as 0 — the
/// register file takes finite floats only.
fn finite_matrix(m: Mat) -> pl::Matrix {
    pl::Matrix(m.map(|row| row.map(|x| if x.is_finite() { x } else { 0.0 })))
}

fn finite_or(v: u32, default: f32) -> u32 {
    if f32::from_bits(v).is_finite() {
        v
    } else {
        default.to_bits()
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

    fn rs_f(&self, s: Rs) -> f32 {
        f32::from_bits(self.rs(s))
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

    /// The pipeline state a draw uses (the executor turns depth and stencil
    /// tests off when no depth buffer is bound).
    pub fn pipeline_state(&self) -> pl::PipelineState {
        let b = |s: Rs| self.rs(s) != 0;
        let cmp = |s: Rs, d: pl::CmpFunc| pl::CmpFunc::from_d3d(self.rs(s)).unwrap_or(d);
        let sop = |s: Rs| pl::StencilOp::from_d3d(self.rs(s)).unwrap_or(pl::StencilOp::Keep);
        let blend = |s: Rs, d: pl::Blend| pl::Blend::from_d3d(self.rs(s)).unwrap_or(d);
        let bop = |s: Rs| pl::BlendOp::from_d3d(self.rs(s)).unwrap_or(pl::BlendOp::Add);
        let mut st = pl::PipelineState::default();
        let r = &mut st.raster;
        r.fill_mode = pl::FillMode::from_d3d(self.rs(Rs::FillMode)).unwrap_or(pl::FillMode::Solid);
        r.shade_mode =
            pl::ShadeMode::from_d3d(self.rs(Rs::ShadeMode)).unwrap_or(pl::ShadeMode::Gouraud);
        r.cull_mode = pl::CullMode::from_d3d(self.rs(Rs::CullMode)).unwrap_or(pl::CullMode::Ccw);
        r.last_pixel = b(Rs::LastPixel);
        r.scissor_enable = b(Rs::ScissorTestEnable);
        let [l, t, rr, bb] = self.scissor;
        r.scissor = pl::Rect::new(l, t, rr, bb);
        r.clipping = b(Rs::Clipping);
        r.clip_plane_enable = self.rs(Rs::ClipPlaneEnable);
        // Non-finite coefficients read as 0 (the register file takes
        // finite floats only).
        r.clip_planes = self
            .clip_planes
            .map(|p| p.map(|x| if x.is_finite() { x } else { 0.0 }));
        r.dither = false;
        r.specular_enable = b(Rs::SpecularEnable);
        let d = &mut st.depth;
        d.z_enable =
            pl::ZBufferType::from_d3d(self.rs(Rs::ZEnable)).unwrap_or(pl::ZBufferType::ZBuffer);
        d.z_write = b(Rs::ZWriteEnable);
        d.z_func = cmp(Rs::ZFunc, pl::CmpFunc::LessEqual);
        d.z_bias = self.rs(Rs::ZBias);
        d.depth_bias = self.rs_f(Rs::DepthBias);
        d.slope_scale_depth_bias = self.rs_f(Rs::SlopeScaleDepthBias);
        d.w_near = self.w_range.0;
        d.w_far = self.w_range.1;
        let s = &mut st.stencil;
        s.enable = b(Rs::StencilEnable);
        s.front = pl::StencilFace {
            fail: sop(Rs::StencilFail),
            z_fail: sop(Rs::StencilZFail),
            pass: sop(Rs::StencilPass),
            func: cmp(Rs::StencilFunc, pl::CmpFunc::Always),
        };
        s.two_sided = b(Rs::TwoSidedStencilMode);
        s.ccw = pl::StencilFace {
            fail: sop(Rs::CcwStencilFail),
            z_fail: sop(Rs::CcwStencilZFail),
            pass: sop(Rs::CcwStencilPass),
            func: cmp(Rs::CcwStencilFunc, pl::CmpFunc::Always),
        };
        s.reference = self.rs(Rs::StencilRef);
        s.mask = self.rs(Rs::StencilMask);
        s.write_mask = self.rs(Rs::StencilWriteMask);
        st.alpha_test = pl::AlphaTestState {
            enable: b(Rs::AlphaTestEnable),
            func: cmp(Rs::AlphaFunc, pl::CmpFunc::Always),
            reference: self.rs(Rs::AlphaRef),
        };
        st.blend = pl::BlendState {
            enable: b(Rs::AlphaBlendEnable),
            src: blend(Rs::SrcBlend, pl::Blend::One),
            dst: blend(Rs::DestBlend, pl::Blend::Zero),
            op: bop(Rs::BlendOp),
            separate_alpha: b(Rs::SeparateAlphaBlendEnable),
            src_alpha: blend(Rs::SrcBlendAlpha, pl::Blend::One),
            dst_alpha: blend(Rs::DestBlendAlpha, pl::Blend::Zero),
            op_alpha: bop(Rs::BlendOpAlpha),
            factor: self.rs(Rs::BlendFactor),
            color_write_enable: self.rs(Rs::ColorWriteEnable),
        };
        let v = &self.viewport;
        st.viewport = pl::Viewport {
            x: v.x,
            y: v.y,
            width: v.width,
            height: v.height,
            min_z: v.min_z,
            max_z: v.max_z,
        };
        st.transforms = pl::Transforms {
            world: finite_matrix(self.transform(TS_WORLD)),
            view: finite_matrix(self.transform(TS_VIEW)),
            projection: finite_matrix(self.transform(TS_PROJECTION)),
        };
        st.textures = self.texture_stage_state();
        st.fog = pl::fog::FogState {
            enable: b(Rs::FogEnable),
            color: self.rs(Rs::FogColor),
            table_mode: pl::fog::FogMode::from_d3d(self.rs(Rs::FogTableMode)).unwrap_or_default(),
            vertex_mode: pl::fog::FogMode::from_d3d(self.rs(Rs::FogVertexMode)).unwrap_or_default(),
            start: self.rs_f(Rs::FogStart),
            end: self.rs_f(Rs::FogEnd),
            density: self.rs_f(Rs::FogDensity),
            range_fog: b(Rs::RangeFogEnable),
        };
        st.lighting = self.lighting_params();
        st.vertex_blend = pl::VertexBlendState {
            mode: pl::texgen::VertexBlend::from_d3d(self.rs(Rs::VertexBlend)).unwrap_or_default(),
            indexed: b(Rs::IndexedVertexBlendEnable),
            worlds: [Ts::World1, Ts::World2, Ts::World3]
                .map(|t| finite_matrix(self.transform(t.raw()))),
            tween_factor: self.rs_f(Rs::TweenFactor),
        };
        st.point = pl::texgen::PointState {
            size: self.rs_f(Rs::PointSize),
            min: self.rs_f(Rs::PointSizeMin),
            max: self.rs_f(Rs::PointSizeMax),
            scale_enable: b(Rs::PointScaleEnable),
            scale: [
                self.rs_f(Rs::PointScaleA),
                self.rs_f(Rs::PointScaleB),
                self.rs_f(Rs::PointScaleC),
            ],
            sprite_enable: b(Rs::PointSpriteEnable),
        };
        st
    }

    /// The texture handle bound to each stage (D3DTSS_TEXTUREMAP; 0 = none).
    pub fn texture_handles(&self) -> [u32; pl::stages::MAX_STAGES] {
        std::array::from_fn(|s| {
            self.texture_stages
                .get(s)
                .and_then(|t| t.get(Tss::TextureMap.raw() as usize))
                .copied()
                .unwrap_or(0)
        })
    }

    /// The texture stages, samplers, coordinate indices, texture
    /// transforms, TEXTUREFACTOR and colour-key mode. Values the pipeline
    /// has no meaning for fall back to the stage's D3D default.
    fn texture_stage_state(&self) -> pl::TextureStages {
        use pl::stages::{ResultTarget, StageState, TextureArg, TextureOp};
        use pl::texture::{SamplerState, TextureAddress, TextureFilter};
        let mut tx = pl::TextureStages::default();
        for ((s, t), ts_texture) in self
            .texture_stages
            .iter()
            .enumerate()
            .take(pl::stages::MAX_STAGES)
            .zip(TS_TEXTURE0..)
        {
            let v = |i: Tss| t.get(i.raw() as usize).copied().unwrap_or(0);
            let f = |i: Tss| f32::from_bits(finite_or(v(i), 0.0));
            let d = StageState::default_for(s);
            let op = |i: Tss, d: TextureOp| TextureOp::from_d3d(v(i)).unwrap_or(d);
            let arg = |i: Tss, d: TextureArg| TextureArg::from_d3d(v(i)).unwrap_or(d);
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
                    result: ResultTarget::from_d3d(v(Tss::ResultArg)).unwrap_or(d.result),
                    constant: pl::texture::format::argb_to_rgba(v(Tss::Constant)),
                    has_texture: false,
                };
            }
            let ds = SamplerState::default();
            let addr = |i: Tss| TextureAddress::from_d3d(v(i)).unwrap_or(ds.address_u);
            let filt = |i: Tss, d: TextureFilter| TextureFilter::from_d3d(v(i)).unwrap_or(d);
            if let Some(sm) = tx.samplers.get_mut(s) {
                *sm = SamplerState {
                    address_u: addr(Tss::AddressU),
                    address_v: addr(Tss::AddressV),
                    address_w: addr(Tss::AddressW),
                    border_color: v(Tss::BorderColor),
                    mag_filter: filt(Tss::MagFilter, ds.mag_filter),
                    min_filter: filt(Tss::MinFilter, ds.min_filter),
                    mip_filter: filt(Tss::MipFilter, ds.mip_filter),
                    mip_lod_bias: f(Tss::MipMapLodBias),
                    max_mip_level: v(Tss::MaxMipLevel),
                    max_anisotropy: v(Tss::MaxAnisotropy)
                        .clamp(1, pl::texture::limits::MAX_ANISOTROPY),
                };
            }
            if let Some(c) = tx.tex_coord_index.get_mut(s) {
                *c = pl::texgen::TexCoordIndex::from_d3d(v(Tss::TexCoordIndex)).unwrap_or(*c);
            }
            if let Some(c) = tx.transform_flags.get_mut(s) {
                *c = pl::texgen::TextureTransform::from_d3d(v(Tss::TextureTransformFlags))
                    .unwrap_or_default();
            }
            if let Some(m) = tx.matrices.get_mut(s) {
                *m = finite_matrix(self.transform(ts_texture));
            }
        }
        tx.texture_factor = self.rs(Rs::TextureFactor);
        tx.color_key = pl::texture::ColorKeyMode::from_d3d(
            self.rs(Rs::ColorKeyEnable),
            self.rs(Rs::ColorKeyBlendEnable),
        );
        tx
    }

    /// LIGHTING and its render states, the first
    /// [`pl::lighting::MAX_ACTIVE_LIGHTS`] enabled lights (in index order)
    /// and the material.
    fn lighting_params(&self) -> pl::LightingParams {
        use pl::lighting::{Light, LightType, Material, MaterialSource};
        let fv = |bits: &[u32], at: usize| {
            f32::from_bits(finite_or(bits.get(at).copied().unwrap_or(0), 0.0))
        };
        let color = |bits: &[u32], at: usize| -> [f32; 4] {
            let b = bits.get(at..).unwrap_or_default();
            std::array::from_fn(|i| fv(b, i))
        };
        let vec3 = |bits: &[u32], at: usize| -> [f32; 3] {
            let b = bits.get(at..).unwrap_or_default();
            std::array::from_fn(|i| fv(b, i))
        };
        let mut p = pl::LightingParams {
            enable: self.rs(Rs::Lighting) != 0,
            ambient: self.rs(Rs::Ambient),
            local_viewer: self.rs(Rs::LocalViewer) != 0,
            normalize_normals: self.rs(Rs::NormalizeNormals) != 0,
            color_vertex: self.rs(Rs::ColorVertex) != 0,
            ..pl::LightingParams::default()
        };
        let src = |s: Rs| MaterialSource::from_d3d(self.rs(s)).unwrap_or_default();
        p.diffuse_source = src(Rs::DiffuseMaterialSource);
        p.specular_source = src(Rs::SpecularMaterialSource);
        p.ambient_source = src(Rs::AmbientMaterialSource);
        p.emissive_source = src(Rs::EmissiveMaterialSource);
        if let Some(m) = &self.material {
            p.material = Material {
                diffuse: color(m, 0),
                ambient: color(m, 4),
                specular: color(m, 8),
                emissive: color(m, 12),
                power: fv(m, 16),
            };
        }
        let enabled = self.lights.iter().filter(|l| l.enabled);
        for (slot, l) in p.lights.iter_mut().zip(enabled) {
            *slot = match &l.data {
                Some(d) => Light {
                    kind: d
                        .first()
                        .and_then(|t| LightType::from_d3d(*t))
                        .unwrap_or(LightType::Directional),
                    diffuse: color(d, 1),
                    specular: color(d, 5),
                    ambient: color(d, 9),
                    position: vec3(d, 13),
                    direction: vec3(d, 16),
                    range: fv(d, 19),
                    falloff: fv(d, 20),
                    attenuation0: fv(d, 21),
                    attenuation1: fv(d, 22),
                    attenuation2: fv(d, 23),
                    theta: fv(d, 24),
                    phi: fv(d, 25),
                },
                // Enabled before SETLIGHT gave it data: the D3D default
                // light (white, directional, along +z).
                None => Light {
                    diffuse: [1.0, 1.0, 1.0, 0.0],
                    ..pl::NO_LIGHT
                },
            };
            // At most p.lights.len() (MAX_ACTIVE_LIGHTS) iterations.
            p.light_count = p.light_count.saturating_add(1);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use n::{CmpFunc, FillMode, VertexBlendFlags};

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

    /// The device's D3D defaults and the pipeline's own defaults describe
    /// the same initial state (until one state table generates both).
    #[test]
    fn device_defaults_are_the_pipeline_defaults() {
        assert_eq!(
            DeviceState::default().pipeline_state(),
            pl::PipelineState::default()
        );
    }

    /// The comparison above covers the defaults: changing the table's
    /// default of any state `PipelineState` has a field for (read off the
    /// pipeline's state structs: raster, depth, stencil, alpha test, blend,
    /// fog, lighting, vertex blend, point) to another honoured value makes
    /// the device's translated defaults differ from the pipeline's.
    #[test]
    fn a_changed_default_is_seen() {
        let base = DeviceState::default().pipeline_state();
        for s in [
            Rs::ZEnable,
            Rs::FillMode,
            Rs::ShadeMode,
            Rs::ZWriteEnable,
            Rs::LastPixel,
            Rs::SrcBlend,
            Rs::DestBlend,
            Rs::CullMode,
            Rs::ZFunc,
            Rs::AlphaRef,
            Rs::AlphaFunc,
            Rs::AlphaBlendEnable,
            Rs::FogEnable,
            Rs::SpecularEnable,
            Rs::FogColor,
            Rs::FogTableMode,
            Rs::FogStart,
            Rs::FogEnd,
            Rs::FogDensity,
            Rs::ZBias,
            Rs::RangeFogEnable,
            Rs::StencilEnable,
            Rs::StencilFail,
            Rs::StencilFunc,
            Rs::StencilRef,
            Rs::StencilMask,
            Rs::StencilWriteMask,
            Rs::TextureFactor,
            Rs::Clipping,
            Rs::Lighting,
            Rs::Ambient,
            Rs::FogVertexMode,
            Rs::ColorVertex,
            Rs::LocalViewer,
            Rs::NormalizeNormals,
            Rs::DiffuseMaterialSource,
            Rs::SpecularMaterialSource,
            Rs::VertexBlend,
            Rs::ClipPlaneEnable,
            Rs::PointSize,
            Rs::PointSizeMin,
            Rs::PointSpriteEnable,
            Rs::PointScaleEnable,
            Rs::PointScaleA,
            Rs::PointScaleB,
            Rs::PointScaleC,
            Rs::PointSizeMax,
            Rs::IndexedVertexBlendEnable,
            Rs::ColorWriteEnable,
            Rs::TweenFactor,
            Rs::BlendOp,
            Rs::ScissorTestEnable,
            Rs::SlopeScaleDepthBias,
            Rs::TwoSidedStencilMode,
            Rs::CcwStencilFunc,
            Rs::BlendFactor,
            Rs::DepthBias,
            Rs::SeparateAlphaBlendEnable,
            Rs::SrcBlendAlpha,
            Rs::DestBlendAlpha,
            Rs::BlendOpAlpha,
        ] {
            let d = s.info().default;
            // Another value the device keeps for this state.
            let other = [d ^ 1, d ^ 2, 0.5f32.to_bits(), 2]
                .into_iter()
                .map(|v| s.honoured(v))
                .find(|&v| v != d)
                .unwrap_or_else(|| panic!("{s}: no other honoured value"));
            let mut st = DeviceState::default();
            st.render_states[s.raw() as usize] = other;
            assert_ne!(st.pipeline_state(), base, "{s} = {other:#x}");
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
