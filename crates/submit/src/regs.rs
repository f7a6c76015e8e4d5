//! The GPU register file: documented register ids the GPU applies to its
//! per-context [`PipelineState`] — every field of it.
//!
//! In: `(id, value)` DWORD pairs from SET_REGS packets. Out: the context's
//! `PipelineState`. Guarantees:
//! * [`check`] accepts exactly the values [`write()`] can apply (enums hold
//!   their D3D numbers and must be in range, booleans 0/1, floats are f32
//!   bit patterns and must be finite, bounded counts and masks are
//!   range-checked), so a validated SET_REGS packet always applies in
//!   full; a refused write leaves the state unchanged;
//! * [`all_ids`] lists every register exactly once, in ascending order;
//!   writing [`encode`]`(ps)` register by register into any state gives
//!   back `ps` (for every state built from valid D3D values);
//! * [`read`] and [`write()`] decode an id with arithmetic (constant time),
//!   [`encode`] allocates one vector.
//!
//! Ids are grouped in banks (`docs/gpu-commands.md` lists them all):
//!
//! | ids | bank |
//! |---|---|
//! | 0x000–0x055 | raster-operation scalars (raster, depth, stencil, alpha test, blend, viewport) |
//! | 0x060–0x0C7 | fixed-function scalars (TEXTUREFACTOR, colour key, fog, lighting, material, vertex blend, points) |
//! | 0x100–0x12F | WORLD, VIEW, PROJECTION matrices, 16 floats each, row-major |
//! | 0x140 + 4i + j | user clip plane i, component j |
//! | 0x180 + 0x10(n − 1) + k | WORLDMATRIX(n), n = 1..3 (vertex blending), element k |
//! | 0x200 + 0x10s + k | texture matrix of stage s (D3DTS_TEXTURE0 + s), element k |
//! | 0x400 + 0x40s + t | texture stage s, field t: the D3DTSS number ([`id::tss`]) |
//! | 0x600 + 0x20i + f | light slot i, D3DLIGHT7 field f ([`id::light_field`]) |

use softhal_pipeline::fog::FogMode;
use softhal_pipeline::lighting::{LightType, MaterialSource, MAX_ACTIVE_LIGHTS};
use softhal_pipeline::stages::{ResultTarget, TextureArg, TextureOp, MAX_STAGES};
use softhal_pipeline::texgen::{TexCoordIndex, TextureTransform, VertexBlend};
use softhal_pipeline::texture::{ColorKeyMode, TextureAddress, TextureFilter};
use softhal_pipeline::{
    Blend, BlendOp, CmpFunc, CullMode, FillMode, PipelineState, ShadeMode, StencilOp, ZBufferType,
};

/// Number of user clip planes in the register file.
pub const CLIP_PLANES: u32 = softhal_pipeline::limits::MAX_USER_CLIP_PLANES as u32;
/// Number of texture stages in the register file.
pub const STAGES: u32 = MAX_STAGES as u32;
/// Number of light slots in the register file (`LIGHT_COUNT` ≤ this).
pub const LIGHTS: u32 = MAX_ACTIVE_LIGHTS as u32;

/// Register ids (see `docs/gpu-commands.md`).
pub mod id {
    #![allow(missing_docs)]
    pub const FILL_MODE: u32 = 0x000;
    pub const SHADE_MODE: u32 = 0x001;
    pub const CULL_MODE: u32 = 0x002;
    pub const LAST_PIXEL: u32 = 0x003;
    pub const SCISSOR_ENABLE: u32 = 0x004;
    pub const SCISSOR_X1: u32 = 0x005;
    pub const SCISSOR_Y1: u32 = 0x006;
    pub const SCISSOR_X2: u32 = 0x007;
    pub const SCISSOR_Y2: u32 = 0x008;
    pub const CLIPPING: u32 = 0x009;
    pub const CLIP_PLANE_ENABLE: u32 = 0x00A;
    pub const DITHER: u32 = 0x00B;
    pub const SPECULAR_ENABLE: u32 = 0x00C;
    pub const Z_ENABLE: u32 = 0x010;
    pub const Z_WRITE: u32 = 0x011;
    pub const Z_FUNC: u32 = 0x012;
    pub const Z_BIAS: u32 = 0x013;
    pub const DEPTH_BIAS: u32 = 0x014;
    pub const SLOPE_SCALE_DEPTH_BIAS: u32 = 0x015;
    pub const W_NEAR: u32 = 0x016;
    pub const W_FAR: u32 = 0x017;
    pub const STENCIL_ENABLE: u32 = 0x020;
    pub const STENCIL_FAIL: u32 = 0x021;
    pub const STENCIL_ZFAIL: u32 = 0x022;
    pub const STENCIL_PASS: u32 = 0x023;
    pub const STENCIL_FUNC: u32 = 0x024;
    pub const TWO_SIDED_STENCIL: u32 = 0x025;
    pub const CCW_STENCIL_FAIL: u32 = 0x026;
    pub const CCW_STENCIL_ZFAIL: u32 = 0x027;
    pub const CCW_STENCIL_PASS: u32 = 0x028;
    pub const CCW_STENCIL_FUNC: u32 = 0x029;
    pub const STENCIL_REF: u32 = 0x02A;
    pub const STENCIL_MASK: u32 = 0x02B;
    pub const STENCIL_WRITE_MASK: u32 = 0x02C;
    pub const ALPHA_TEST_ENABLE: u32 = 0x030;
    pub const ALPHA_FUNC: u32 = 0x031;
    pub const ALPHA_REF: u32 = 0x032;
    pub const BLEND_ENABLE: u32 = 0x040;
    pub const SRC_BLEND: u32 = 0x041;
    pub const DEST_BLEND: u32 = 0x042;
    pub const BLEND_OP: u32 = 0x043;
    pub const SEPARATE_ALPHA_BLEND: u32 = 0x044;
    pub const SRC_BLEND_ALPHA: u32 = 0x045;
    pub const DEST_BLEND_ALPHA: u32 = 0x046;
    pub const BLEND_OP_ALPHA: u32 = 0x047;
    pub const BLEND_FACTOR: u32 = 0x048;
    pub const COLOR_WRITE_ENABLE: u32 = 0x049;
    pub const VIEWPORT_X: u32 = 0x050;
    pub const VIEWPORT_Y: u32 = 0x051;
    pub const VIEWPORT_WIDTH: u32 = 0x052;
    pub const VIEWPORT_HEIGHT: u32 = 0x053;
    pub const VIEWPORT_MIN_Z: u32 = 0x054;
    pub const VIEWPORT_MAX_Z: u32 = 0x055;

    /// D3DRS_TEXTUREFACTOR (D3DCOLOR).
    pub const TEXTURE_FACTOR: u32 = 0x060;
    /// Colour keying: 0 off, 1 COLORKEYENABLE (reject), 2
    /// COLORKEYBLENDENABLE (transparent black).
    pub const COLOR_KEY: u32 = 0x061;

    pub const FOG_ENABLE: u32 = 0x070;
    pub const FOG_COLOR: u32 = 0x071;
    pub const FOG_TABLE_MODE: u32 = 0x072;
    pub const FOG_VERTEX_MODE: u32 = 0x073;
    pub const FOG_START: u32 = 0x074;
    pub const FOG_END: u32 = 0x075;
    pub const FOG_DENSITY: u32 = 0x076;
    pub const RANGE_FOG_ENABLE: u32 = 0x077;

    pub const LIGHTING: u32 = 0x080;
    /// Lights used, 0..=[`super::LIGHTS`] (the first slots of the light bank).
    pub const LIGHT_COUNT: u32 = 0x081;
    pub const AMBIENT: u32 = 0x082;
    pub const LOCAL_VIEWER: u32 = 0x083;
    pub const NORMALIZE_NORMALS: u32 = 0x084;
    pub const COLOR_VERTEX: u32 = 0x085;
    pub const DIFFUSE_MATERIAL_SOURCE: u32 = 0x086;
    pub const SPECULAR_MATERIAL_SOURCE: u32 = 0x087;
    pub const AMBIENT_MATERIAL_SOURCE: u32 = 0x088;
    pub const EMISSIVE_MATERIAL_SOURCE: u32 = 0x089;
    /// Material diffuse r, g, b, a: 0x090..=0x093.
    pub const MATERIAL_DIFFUSE: u32 = 0x090;
    /// Material ambient r, g, b, a: 0x094..=0x097.
    pub const MATERIAL_AMBIENT: u32 = 0x094;
    /// Material specular r, g, b, a: 0x098..=0x09B.
    pub const MATERIAL_SPECULAR: u32 = 0x098;
    /// Material emissive r, g, b, a: 0x09C..=0x09F.
    pub const MATERIAL_EMISSIVE: u32 = 0x09C;
    pub const MATERIAL_POWER: u32 = 0x0A0;

    /// D3DRS_VERTEXBLEND (D3DVBF: 0–3, 255, 256).
    pub const VERTEX_BLEND: u32 = 0x0B0;
    pub const INDEXED_VERTEX_BLEND: u32 = 0x0B1;
    pub const TWEEN_FACTOR: u32 = 0x0B2;

    pub const POINT_SIZE: u32 = 0x0C0;
    pub const POINT_SIZE_MIN: u32 = 0x0C1;
    pub const POINT_SIZE_MAX: u32 = 0x0C2;
    pub const POINT_SCALE_ENABLE: u32 = 0x0C3;
    pub const POINT_SCALE_A: u32 = 0x0C4;
    pub const POINT_SCALE_B: u32 = 0x0C5;
    pub const POINT_SCALE_C: u32 = 0x0C6;
    pub const POINT_SPRITE_ENABLE: u32 = 0x0C7;

    /// World matrix, 16 floats row-major: 0x100..=0x10F.
    pub const WORLD: u32 = 0x100;
    /// View matrix: 0x110..=0x11F.
    pub const VIEW: u32 = 0x110;
    /// Projection matrix: 0x120..=0x12F.
    pub const PROJECTION: u32 = 0x120;
    /// Clip plane i component j: 0x140 + 4i + j.
    pub const CLIP_PLANE: u32 = 0x140;
    /// WORLDMATRIX(1), the first vertex-blend matrix: 0x180 + 0x10(n − 1)
    /// + k for WORLDMATRIX(n), n = 1..3 ([`world_matrix`]).
    pub const WORLD_MATRIX1: u32 = 0x180;
    /// Texture matrix of stage 0: 0x200 + 0x10s + k ([`texture_matrix`]).
    pub const TEXTURE_MATRIX: u32 = 0x200;
    /// Texture stage 0: 0x400 + 0x40s + t ([`stage`], fields [`tss`]).
    pub const STAGE: u32 = 0x400;
    /// Light slot 0: 0x600 + 0x20i + f ([`light`], fields [`light_field`]).
    pub const LIGHT: u32 = 0x600;

    /// First register of WORLDMATRIX(`n`), `n` = 1..=3 (element k at + k).
    pub const fn world_matrix(n: u32) -> u32 {
        WORLD_MATRIX1.saturating_add(n.saturating_sub(1).saturating_mul(0x10))
    }
    /// First register of stage `s`'s texture matrix (element k at + k).
    pub const fn texture_matrix(s: u32) -> u32 {
        TEXTURE_MATRIX.saturating_add(s.saturating_mul(0x10))
    }
    /// Register of field `t` ([`tss`]) of texture stage `s`.
    pub const fn stage(s: u32, t: u32) -> u32 {
        STAGE
            .saturating_add(s.saturating_mul(0x40))
            .saturating_add(t)
    }
    /// Register of field `f` ([`light_field`]) of light slot `i`.
    pub const fn light(i: u32, f: u32) -> u32 {
        LIGHT
            .saturating_add(i.saturating_mul(0x20))
            .saturating_add(f)
    }

    /// Fields of a texture stage: the D3DTSS numbers of the DDI
    /// (`D3DHAL_DP2TEXTURESTAGESTATE`), the sampler states at their DX6–8
    /// texture-stage numbers. Values are D3D9's: filters are
    /// D3DTEXTUREFILTERTYPE (the UMD converts DX6 D3DTFG/TFN/TFP), CONSTANT
    /// is four floats, HAS_TEXTURE is softhal's own (the kernel overwrites
    /// it from the bound textures at draw time).
    pub mod tss {
        pub const COLOR_OP: u32 = 1;
        pub const COLOR_ARG1: u32 = 2;
        pub const COLOR_ARG2: u32 = 3;
        pub const ALPHA_OP: u32 = 4;
        pub const ALPHA_ARG1: u32 = 5;
        pub const ALPHA_ARG2: u32 = 6;
        pub const BUMP_ENV_MAT00: u32 = 7;
        pub const BUMP_ENV_MAT01: u32 = 8;
        pub const BUMP_ENV_MAT10: u32 = 9;
        pub const BUMP_ENV_MAT11: u32 = 10;
        pub const TEX_COORD_INDEX: u32 = 11;
        pub const ADDRESS_U: u32 = 13;
        pub const ADDRESS_V: u32 = 14;
        pub const BORDER_COLOR: u32 = 15;
        pub const MAG_FILTER: u32 = 16;
        pub const MIN_FILTER: u32 = 17;
        pub const MIP_FILTER: u32 = 18;
        pub const MIP_MAP_LOD_BIAS: u32 = 19;
        pub const MAX_MIP_LEVEL: u32 = 20;
        pub const MAX_ANISOTROPY: u32 = 21;
        pub const BUMP_ENV_LSCALE: u32 = 22;
        pub const BUMP_ENV_LOFFSET: u32 = 23;
        pub const TEXTURE_TRANSFORM_FLAGS: u32 = 24;
        pub const ADDRESS_W: u32 = 25;
        pub const COLOR_ARG0: u32 = 26;
        pub const ALPHA_ARG0: u32 = 27;
        pub const RESULT_ARG: u32 = 28;
        /// D3DTSS_CONSTANT r, g, b, a: 32..=35.
        pub const CONSTANT: u32 = 32;
        pub const HAS_TEXTURE: u32 = 36;
    }

    /// Fields of a light slot, in D3DLIGHT7 order.
    pub mod light_field {
        /// D3DLIGHTTYPE 1–3.
        pub const TYPE: u32 = 0x00;
        /// r, g, b, a at + 0..=3.
        pub const DIFFUSE: u32 = 0x01;
        pub const SPECULAR: u32 = 0x05;
        pub const AMBIENT: u32 = 0x09;
        /// x, y, z at + 0..=2 (world space).
        pub const POSITION: u32 = 0x0D;
        pub const DIRECTION: u32 = 0x10;
        pub const RANGE: u32 = 0x13;
        pub const FALLOFF: u32 = 0x14;
        pub const ATTENUATION0: u32 = 0x15;
        pub const ATTENUATION1: u32 = 0x16;
        pub const ATTENUATION2: u32 = 0x17;
        pub const THETA: u32 = 0x18;
        pub const PHI: u32 = 0x19;
    }
}

/// The fields of one texture stage, ascending ([`id::tss`]).
fn stage_fields() -> impl Iterator<Item = u32> + Clone {
    (id::tss::COLOR_OP..=id::tss::TEX_COORD_INDEX)
        .chain(id::tss::ADDRESS_U..=id::tss::RESULT_ARG)
        .chain(id::tss::CONSTANT..=id::tss::HAS_TEXTURE)
}

/// The fields of one light slot, ascending ([`id::light_field`]).
fn light_fields() -> impl Iterator<Item = u32> + Clone {
    id::light_field::TYPE..=id::light_field::PHI
}

/// Every register id, in ascending order.
pub fn all_ids() -> impl Iterator<Item = u32> + Clone {
    let stages = (0..STAGES).flat_map(|s| stage_fields().map(move |t| id::stage(s, t)));
    let lights = (0..LIGHTS).flat_map(|i| light_fields().map(move |f| id::light(i, f)));
    (0x000..=0x00Cu32)
        .chain(0x010..=0x017)
        .chain(0x020..=0x02C)
        .chain(0x030..=0x032)
        .chain(0x040..=0x049)
        .chain(0x050..=0x055)
        .chain(id::TEXTURE_FACTOR..=id::COLOR_KEY)
        .chain(id::FOG_ENABLE..=id::RANGE_FOG_ENABLE)
        .chain(id::LIGHTING..=id::EMISSIVE_MATERIAL_SOURCE)
        .chain(id::MATERIAL_DIFFUSE..=id::MATERIAL_POWER)
        .chain(id::VERTEX_BLEND..=id::TWEEN_FACTOR)
        .chain(id::POINT_SIZE..=id::POINT_SPRITE_ENABLE)
        .chain(id::WORLD..0x130)
        .chain(id::CLIP_PLANE..id::CLIP_PLANE.saturating_add(CLIP_PLANES.saturating_mul(4)))
        .chain(id::WORLD_MATRIX1..id::world_matrix(4))
        .chain(id::TEXTURE_MATRIX..id::texture_matrix(STAGES))
        .chain(stages)
        .chain(lights)
}

/// Number of registers (the length of [`all_ids`] and [`encode`]).
pub const COUNT: usize = 813;

/// Number of registers ([`COUNT`]).
pub fn count() -> usize {
    COUNT
}

/// Why a register write is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegError {
    /// No register has this id.
    UnknownRegister,
    /// The value is outside the register's range.
    BadValue,
}

/// A `PipelineState` field seen as a register.
trait Field {
    /// The register value.
    fn get(&self) -> u32;
    /// Parses `v` and stores it; on error `self` is unchanged.
    fn set(&mut self, v: u32) -> Result<(), RegError>;
}

/// Enums hold their D3D number.
macro_rules! d3d_fields {
    ($($t:ty),* $(,)?) => {$(
        impl Field for $t {
            fn get(&self) -> u32 {
                self.d3d()
            }
            fn set(&mut self, v: u32) -> Result<(), RegError> {
                *self = <$t>::from_d3d(v).ok_or(RegError::BadValue)?;
                Ok(())
            }
        }
    )*};
}

d3d_fields!(
    FillMode,
    ShadeMode,
    CullMode,
    ZBufferType,
    CmpFunc,
    StencilOp,
    Blend,
    BlendOp,
    TextureOp,
    TextureArg,
    ResultTarget,
    TextureAddress,
    TextureFilter,
    TexCoordIndex,
    TextureTransform,
    FogMode,
    LightType,
    MaterialSource,
    VertexBlend,
);

impl Field for bool {
    fn get(&self) -> u32 {
        u32::from(*self)
    }
    fn set(&mut self, v: u32) -> Result<(), RegError> {
        *self = match v {
            0 => false,
            1 => true,
            _ => return Err(RegError::BadValue),
        };
        Ok(())
    }
}

impl Field for f32 {
    fn get(&self) -> u32 {
        self.to_bits()
    }
    fn set(&mut self, v: u32) -> Result<(), RegError> {
        let x = f32::from_bits(v);
        if !x.is_finite() {
            return Err(RegError::BadValue);
        }
        *self = x;
        Ok(())
    }
}

impl Field for u32 {
    fn get(&self) -> u32 {
        *self
    }
    fn set(&mut self, v: u32) -> Result<(), RegError> {
        *self = v;
        Ok(())
    }
}

/// Scissor edges: the i32's bits.
impl Field for i32 {
    fn get(&self) -> u32 {
        *self as u32
    }
    fn set(&mut self, v: u32) -> Result<(), RegError> {
        *self = v as i32;
        Ok(())
    }
}

/// The light count (range-checked by [`write`], see [`bound`]).
impl Field for usize {
    fn get(&self) -> u32 {
        u32::try_from(*self).unwrap_or(u32::MAX)
    }
    fn set(&mut self, v: u32) -> Result<(), RegError> {
        *self = usize::try_from(v).map_err(|_| RegError::BadValue)?;
        Ok(())
    }
}

/// COLOR_KEY: 0 off, 1 reject (COLORKEYENABLE), 2 blend
/// (COLORKEYBLENDENABLE).
impl Field for ColorKeyMode {
    fn get(&self) -> u32 {
        match self {
            ColorKeyMode::Off => 0,
            ColorKeyMode::Reject => 1,
            ColorKeyMode::Blend => 2,
        }
    }
    fn set(&mut self, v: u32) -> Result<(), RegError> {
        *self = match v {
            0 => ColorKeyMode::Off,
            1 => ColorKeyMode::Reject,
            2 => ColorKeyMode::Blend,
            _ => return Err(RegError::BadValue),
        };
        Ok(())
    }
}

/// The largest value of the registers whose range is narrower than their
/// field's type.
fn bound(reg: u32) -> Option<u32> {
    match reg {
        id::CLIP_PLANE_ENABLE => Some((1u32 << CLIP_PLANES).wrapping_sub(1)),
        id::LIGHT_COUNT => Some(LIGHTS),
        _ => None,
    }
}

/// The field behind register `reg` of `ps`, as `&dyn Field` (`get`) or
/// `&mut dyn Field` (`get_mut, mut`): one table for [`read`] and [`write`],
/// decoded with arithmetic. Evaluates to `Option<&(mut) dyn Field>`.
macro_rules! field {
    ($ps:expr, $reg:expr, $get:ident $(, $m:tt)?) => {
        (|| -> Option<&$($m)? dyn Field> {
            use id::*;
            let ps = $ps;
            let reg: u32 = $reg;
            // Register `reg` in a bank at `base` with `stride` registers
            // per entry: (entry, field).
            let bank = |base: u32, stride: u32| {
                let off = reg.wrapping_sub(base);
                Some((off.checked_div(stride)? as usize, off.checked_rem(stride)?))
            };
            Some(match reg {
                FILL_MODE => &$($m)? ps.raster.fill_mode,
                SHADE_MODE => &$($m)? ps.raster.shade_mode,
                CULL_MODE => &$($m)? ps.raster.cull_mode,
                LAST_PIXEL => &$($m)? ps.raster.last_pixel,
                SCISSOR_ENABLE => &$($m)? ps.raster.scissor_enable,
                SCISSOR_X1 => &$($m)? ps.raster.scissor.x1,
                SCISSOR_Y1 => &$($m)? ps.raster.scissor.y1,
                SCISSOR_X2 => &$($m)? ps.raster.scissor.x2,
                SCISSOR_Y2 => &$($m)? ps.raster.scissor.y2,
                CLIPPING => &$($m)? ps.raster.clipping,
                CLIP_PLANE_ENABLE => &$($m)? ps.raster.clip_plane_enable,
                DITHER => &$($m)? ps.raster.dither,
                SPECULAR_ENABLE => &$($m)? ps.raster.specular_enable,
                Z_ENABLE => &$($m)? ps.depth.z_enable,
                Z_WRITE => &$($m)? ps.depth.z_write,
                Z_FUNC => &$($m)? ps.depth.z_func,
                Z_BIAS => &$($m)? ps.depth.z_bias,
                DEPTH_BIAS => &$($m)? ps.depth.depth_bias,
                SLOPE_SCALE_DEPTH_BIAS => &$($m)? ps.depth.slope_scale_depth_bias,
                W_NEAR => &$($m)? ps.depth.w_near,
                W_FAR => &$($m)? ps.depth.w_far,
                STENCIL_ENABLE => &$($m)? ps.stencil.enable,
                STENCIL_FAIL => &$($m)? ps.stencil.front.fail,
                STENCIL_ZFAIL => &$($m)? ps.stencil.front.z_fail,
                STENCIL_PASS => &$($m)? ps.stencil.front.pass,
                STENCIL_FUNC => &$($m)? ps.stencil.front.func,
                TWO_SIDED_STENCIL => &$($m)? ps.stencil.two_sided,
                CCW_STENCIL_FAIL => &$($m)? ps.stencil.ccw.fail,
                CCW_STENCIL_ZFAIL => &$($m)? ps.stencil.ccw.z_fail,
                CCW_STENCIL_PASS => &$($m)? ps.stencil.ccw.pass,
                CCW_STENCIL_FUNC => &$($m)? ps.stencil.ccw.func,
                STENCIL_REF => &$($m)? ps.stencil.reference,
                STENCIL_MASK => &$($m)? ps.stencil.mask,
                STENCIL_WRITE_MASK => &$($m)? ps.stencil.write_mask,
                ALPHA_TEST_ENABLE => &$($m)? ps.alpha_test.enable,
                ALPHA_FUNC => &$($m)? ps.alpha_test.func,
                ALPHA_REF => &$($m)? ps.alpha_test.reference,
                BLEND_ENABLE => &$($m)? ps.blend.enable,
                SRC_BLEND => &$($m)? ps.blend.src,
                DEST_BLEND => &$($m)? ps.blend.dst,
                BLEND_OP => &$($m)? ps.blend.op,
                SEPARATE_ALPHA_BLEND => &$($m)? ps.blend.separate_alpha,
                SRC_BLEND_ALPHA => &$($m)? ps.blend.src_alpha,
                DEST_BLEND_ALPHA => &$($m)? ps.blend.dst_alpha,
                BLEND_OP_ALPHA => &$($m)? ps.blend.op_alpha,
                BLEND_FACTOR => &$($m)? ps.blend.factor,
                COLOR_WRITE_ENABLE => &$($m)? ps.blend.color_write_enable,
                VIEWPORT_X => &$($m)? ps.viewport.x,
                VIEWPORT_Y => &$($m)? ps.viewport.y,
                VIEWPORT_WIDTH => &$($m)? ps.viewport.width,
                VIEWPORT_HEIGHT => &$($m)? ps.viewport.height,
                VIEWPORT_MIN_Z => &$($m)? ps.viewport.min_z,
                VIEWPORT_MAX_Z => &$($m)? ps.viewport.max_z,
                TEXTURE_FACTOR => &$($m)? ps.textures.texture_factor,
                COLOR_KEY => &$($m)? ps.textures.color_key,
                FOG_ENABLE => &$($m)? ps.fog.enable,
                FOG_COLOR => &$($m)? ps.fog.color,
                FOG_TABLE_MODE => &$($m)? ps.fog.table_mode,
                FOG_VERTEX_MODE => &$($m)? ps.fog.vertex_mode,
                FOG_START => &$($m)? ps.fog.start,
                FOG_END => &$($m)? ps.fog.end,
                FOG_DENSITY => &$($m)? ps.fog.density,
                RANGE_FOG_ENABLE => &$($m)? ps.fog.range_fog,
                LIGHTING => &$($m)? ps.lighting.enable,
                LIGHT_COUNT => &$($m)? ps.lighting.light_count,
                AMBIENT => &$($m)? ps.lighting.ambient,
                LOCAL_VIEWER => &$($m)? ps.lighting.local_viewer,
                NORMALIZE_NORMALS => &$($m)? ps.lighting.normalize_normals,
                COLOR_VERTEX => &$($m)? ps.lighting.color_vertex,
                DIFFUSE_MATERIAL_SOURCE => &$($m)? ps.lighting.diffuse_source,
                SPECULAR_MATERIAL_SOURCE => &$($m)? ps.lighting.specular_source,
                AMBIENT_MATERIAL_SOURCE => &$($m)? ps.lighting.ambient_source,
                EMISSIVE_MATERIAL_SOURCE => &$($m)? ps.lighting.emissive_source,
                MATERIAL_DIFFUSE..=0x09F => {
                    let (which, k) = bank(MATERIAL_DIFFUSE, 4)?;
                    let mat = &$($m)? ps.lighting.material;
                    let c = match which {
                        0 => &$($m)? mat.diffuse,
                        1 => &$($m)? mat.ambient,
                        2 => &$($m)? mat.specular,
                        _ => &$($m)? mat.emissive,
                    };
                    c.$get(k as usize)?
                }
                MATERIAL_POWER => &$($m)? ps.lighting.material.power,
                VERTEX_BLEND => &$($m)? ps.vertex_blend.mode,
                INDEXED_VERTEX_BLEND => &$($m)? ps.vertex_blend.indexed,
                TWEEN_FACTOR => &$($m)? ps.vertex_blend.tween_factor,
                POINT_SIZE => &$($m)? ps.point.size,
                POINT_SIZE_MIN => &$($m)? ps.point.min,
                POINT_SIZE_MAX => &$($m)? ps.point.max,
                POINT_SCALE_ENABLE => &$($m)? ps.point.scale_enable,
                POINT_SCALE_A..=POINT_SCALE_C => {
                    ps.point.scale.$get(reg.wrapping_sub(POINT_SCALE_A) as usize)?
                }
                POINT_SPRITE_ENABLE => &$($m)? ps.point.sprite_enable,
                WORLD..=0x12F => {
                    let (which, k) = bank(WORLD, 0x10)?;
                    let t = &$($m)? ps.transforms;
                    let mat = match which {
                        0 => &$($m)? t.world,
                        1 => &$($m)? t.view,
                        _ => &$($m)? t.projection,
                    };
                    let k = k as usize;
                    mat.0.$get(k / 4)?.$get(k % 4)?
                }
                CLIP_PLANE..=0x17F => {
                    let (p, j) = bank(CLIP_PLANE, 4)?;
                    ps.raster.clip_planes.$get(p)?.$get(j as usize)?
                }
                WORLD_MATRIX1..=0x1AF => {
                    let (n, k) = bank(WORLD_MATRIX1, 0x10)?;
                    let k = k as usize;
                    ps.vertex_blend.worlds.$get(n)?.0.$get(k / 4)?.$get(k % 4)?
                }
                TEXTURE_MATRIX..=0x27F => {
                    let (s, k) = bank(TEXTURE_MATRIX, 0x10)?;
                    let k = k as usize;
                    ps.textures.matrices.$get(s)?.0.$get(k / 4)?.$get(k % 4)?
                }
                STAGE..=0x5FF => {
                    use id::tss::*;
                    let (s, t) = bank(STAGE, 0x40)?;
                    let tx = &$($m)? ps.textures;
                    let st = tx.stages.$get(s)?;
                    let smp = tx.samplers.$get(s)?;
                    match t {
                        COLOR_OP => &$($m)? st.color_op,
                        COLOR_ARG1 => &$($m)? st.color_arg1,
                        COLOR_ARG2 => &$($m)? st.color_arg2,
                        ALPHA_OP => &$($m)? st.alpha_op,
                        ALPHA_ARG1 => &$($m)? st.alpha_arg1,
                        ALPHA_ARG2 => &$($m)? st.alpha_arg2,
                        BUMP_ENV_MAT00..=BUMP_ENV_MAT11 => {
                            let k = t.wrapping_sub(BUMP_ENV_MAT00) as usize;
                            st.bump_env_mat.$get(k / 2)?.$get(k % 2)?
                        }
                        TEX_COORD_INDEX => tx.tex_coord_index.$get(s)?,
                        ADDRESS_U => &$($m)? smp.address_u,
                        ADDRESS_V => &$($m)? smp.address_v,
                        BORDER_COLOR => &$($m)? smp.border_color,
                        MAG_FILTER => &$($m)? smp.mag_filter,
                        MIN_FILTER => &$($m)? smp.min_filter,
                        MIP_FILTER => &$($m)? smp.mip_filter,
                        MIP_MAP_LOD_BIAS => &$($m)? smp.mip_lod_bias,
                        MAX_MIP_LEVEL => &$($m)? smp.max_mip_level,
                        MAX_ANISOTROPY => &$($m)? smp.max_anisotropy,
                        BUMP_ENV_LSCALE => &$($m)? st.bump_lscale,
                        BUMP_ENV_LOFFSET => &$($m)? st.bump_loffset,
                        TEXTURE_TRANSFORM_FLAGS => tx.transform_flags.$get(s)?,
                        ADDRESS_W => &$($m)? smp.address_w,
                        COLOR_ARG0 => &$($m)? st.color_arg0,
                        ALPHA_ARG0 => &$($m)? st.alpha_arg0,
                        RESULT_ARG => &$($m)? st.result,
                        CONSTANT..=0x23 => st.constant.$get(t.wrapping_sub(CONSTANT) as usize)?,
                        HAS_TEXTURE => &$($m)? st.has_texture,
                        _ => return None,
                    }
                }
                LIGHT..=0x6FF => {
                    use id::light_field::*;
                    let (i, f) = bank(LIGHT, 0x20)?;
                    let l = ps.lighting.lights.$get(i)?;
                    let at = |base: u32| f.wrapping_sub(base) as usize;
                    match f {
                        TYPE => &$($m)? l.kind,
                        DIFFUSE..=0x04 => l.diffuse.$get(at(DIFFUSE))?,
                        SPECULAR..=0x08 => l.specular.$get(at(SPECULAR))?,
                        AMBIENT..=0x0C => l.ambient.$get(at(AMBIENT))?,
                        POSITION..=0x0F => l.position.$get(at(POSITION))?,
                        DIRECTION..=0x12 => l.direction.$get(at(DIRECTION))?,
                        RANGE => &$($m)? l.range,
                        FALLOFF => &$($m)? l.falloff,
                        ATTENUATION0 => &$($m)? l.attenuation0,
                        ATTENUATION1 => &$($m)? l.attenuation1,
                        ATTENUATION2 => &$($m)? l.attenuation2,
                        THETA => &$($m)? l.theta,
                        PHI => &$($m)? l.phi,
                        _ => return None,
                    }
                }
                _ => return None,
            })
        })()
    };
}

/// The value of register `reg` in `ps` (`None`: no such register).
pub fn read(ps: &PipelineState, reg: u32) -> Option<u32> {
    field!(ps, reg, get).map(Field::get)
}

/// Checks a write without applying it.
pub fn check(reg: u32, value: u32) -> Result<(), RegError> {
    let mut scratch = PipelineState::default();
    write(&mut scratch, reg, value)
}

/// Applies `value` to register `reg` of `ps`. On error `ps` is unchanged.
pub fn write(ps: &mut PipelineState, reg: u32, value: u32) -> Result<(), RegError> {
    let f = field!(ps, reg, get_mut, mut).ok_or(RegError::UnknownRegister)?;
    if bound(reg).is_some_and(|max| value > max) {
        return Err(RegError::BadValue);
    }
    f.set(value)
}

/// Every register of `PipelineState::default()`, in [`all_ids`] order
/// (what a new GPU context starts from), computed once.
pub fn default_encoding() -> &'static [u32] {
    static DEFAULT: std::sync::OnceLock<Vec<u32>> = std::sync::OnceLock::new();
    DEFAULT.get_or_init(|| encode(&PipelineState::default()))
}

/// Every register of `ps`, in [`all_ids`] order.
pub fn encode(ps: &PipelineState) -> Vec<u32> {
    let mut out = Vec::with_capacity(COUNT);
    out.extend(all_ids().map(|r| read(ps, r).unwrap_or(0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use softhal_pipeline::lighting::{Light, Material};
    use softhal_pipeline::stages::StageState;
    use softhal_pipeline::texture::SamplerState;
    use softhal_pipeline::{
        AlphaTestState, BlendState, DepthState, LightingParams, Matrix, RasterState, Rect,
        StencilFace, StencilState, TextureStages, Transforms, VertexBlendState, Viewport,
    };

    #[test]
    fn every_register_round_trips() {
        assert_eq!(default_encoding(), encode(&PipelineState::default()));
        let mut ps = PipelineState::default();
        ps.blend.src = Blend::SrcAlpha;
        ps.transforms.view.0[3][2] = 5.0;
        ps.raster.clip_planes[5][3] = -2.0;
        ps.viewport.max_z = 0.5;
        ps.textures.stages[7].constant[3] = 0.25;
        ps.lighting.lights[7].phi = 1.5;
        let mut out = PipelineState::default();
        for (reg, v) in all_ids().zip(encode(&ps)) {
            write(&mut out, reg, v).unwrap();
        }
        assert_eq!(out, ps);
        assert_eq!(check(0x0FF, 0), Err(RegError::UnknownRegister));
        assert_eq!(check(id::Z_FUNC, 9), Err(RegError::BadValue));
        assert_eq!(
            check(id::W_FAR, f32::NAN.to_bits()),
            Err(RegError::BadValue)
        );
    }

    /// `all_ids` is ascending, has [`COUNT`] entries, and names exactly the
    /// ids `read` knows (every id below 0x10000 is tried).
    #[test]
    fn all_ids_is_exactly_the_register_file() {
        let ids: Vec<u32> = all_ids().collect();
        assert_eq!(ids.len(), COUNT);
        assert_eq!(count(), COUNT);
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        let ps = PipelineState::default();
        let known: Vec<u32> = (0..0x1_0000).filter(|&r| read(&ps, r).is_some()).collect();
        assert_eq!(known, ids);
        assert_eq!(encode(&ps).len(), COUNT);
    }

    #[test]
    fn banks_are_addressed_by_arithmetic() {
        use id::{light_field as lf, tss};
        let mut ps = PipelineState::default();
        let f = |x: f32| x.to_bits();
        let writes = [
            (id::stage(3, tss::COLOR_OP), TextureOp::Lerp.d3d()),
            (id::stage(3, tss::ALPHA_ARG0), 0x25),
            (id::stage(2, tss::MAG_FILTER), 2),
            (id::stage(7, tss::ADDRESS_W), 4),
            (id::stage(6, tss::TEX_COORD_INDEX), 0x0003_0001),
            (id::stage(5, tss::TEXTURE_TRANSFORM_FLAGS), 0x102),
            (id::stage(1, tss::BUMP_ENV_MAT10), f(-0.5)),
            (id::stage(1, tss::CONSTANT + 2), f(0.75)),
            (id::stage(4, tss::HAS_TEXTURE), 1),
            (id::texture_matrix(4) + 13, f(9.0)),
            (id::world_matrix(3) + 4, f(-3.0)),
            (id::light(2, lf::TYPE), 2),
            (id::light(2, lf::DIRECTION + 1), f(-1.0)),
            (id::light(6, lf::ATTENUATION2), f(0.125)),
            (id::LIGHT_COUNT, 3),
            (id::MATERIAL_SPECULAR + 1, f(0.5)),
            (id::POINT_SCALE_C, f(2.0)),
            (id::FOG_TABLE_MODE, 3),
            (id::COLOR_KEY, 2),
            (id::VERTEX_BLEND, 256),
        ];
        for (reg, v) in writes {
            write(&mut ps, reg, v).unwrap();
        }
        let t = &ps.textures;
        assert_eq!(t.stages[3].color_op, TextureOp::Lerp);
        assert!(t.stages[3].alpha_arg0.alpha_replicate);
        assert_eq!(t.samplers[2].mag_filter, TextureFilter::Linear);
        assert_eq!(t.samplers[7].address_w, TextureAddress::Border);
        assert_eq!(t.tex_coord_index[6].set, 1);
        assert_eq!(t.transform_flags[5].count, 2);
        assert!(t.transform_flags[5].projected);
        assert_eq!(t.stages[1].bump_env_mat[1][0], -0.5);
        assert_eq!(t.stages[1].constant[2], 0.75);
        assert!(t.stages[4].has_texture);
        assert_eq!(t.matrices[4].0[3][1], 9.0);
        assert_eq!(t.color_key, ColorKeyMode::Blend);
        assert_eq!(ps.vertex_blend.worlds[2].0[1][0], -3.0);
        assert_eq!(ps.lighting.lights[2].kind, LightType::Spot);
        assert_eq!(ps.lighting.lights[2].direction[1], -1.0);
        assert_eq!(ps.lighting.lights[6].attenuation2, 0.125);
        assert_eq!(ps.lighting.light_count, 3);
        assert_eq!(ps.lighting.material.specular[1], 0.5);
        assert_eq!(ps.point.scale[2], 2.0);
        assert_eq!(ps.fog.table_mode, FogMode::Linear);
        assert_eq!(ps.vertex_blend.mode, VertexBlend::ZeroWeights);
    }

    #[test]
    fn ranges_are_checked_and_refusals_change_nothing() {
        use id::{light_field as lf, tss};
        let bad = [
            (id::LIGHT_COUNT, LIGHTS + 1),
            (id::CLIP_PLANE_ENABLE, 1 << CLIP_PLANES),
            (id::COLOR_KEY, 3),
            (id::VERTEX_BLEND, 4),
            (id::FOG_VERTEX_MODE, 4),
            (id::FOG_DENSITY, f32::INFINITY.to_bits()),
            (id::stage(0, tss::COLOR_OP), 27),
            (id::stage(0, tss::COLOR_ARG1), 7),
            (id::stage(0, tss::RESULT_ARG), 2),
            (id::stage(0, tss::MIN_FILTER), 8),
            (id::stage(0, tss::TEX_COORD_INDEX), 5 << 16),
            (id::stage(0, tss::TEXTURE_TRANSFORM_FLAGS), 5),
            (id::stage(0, tss::HAS_TEXTURE), 2),
            (id::light(0, lf::TYPE), 4),
            (id::light(7, lf::PHI), f32::NAN.to_bits()),
            (id::DIFFUSE_MATERIAL_SOURCE, 3),
        ];
        for (reg, v) in bad {
            let mut ps = PipelineState::default();
            assert_eq!(write(&mut ps, reg, v), Err(RegError::BadValue), "{reg:#x}");
            assert_eq!(ps, PipelineState::default());
        }
        for reg in [
            id::stage(0, 12),
            id::stage(0, 0),
            id::stage(0, 37),
            id::stage(7, 0x3F),
            id::light(0, 0x1A),
            id::light(8, lf::TYPE),
            0x158,
            0x1B0,
            0x280,
            0x0A1,
            u32::MAX,
        ] {
            assert_eq!(check(reg, 0), Err(RegError::UnknownRegister), "{reg:#x}");
        }
        assert_eq!(check(id::LIGHT_COUNT, LIGHTS), Ok(()));
        assert_eq!(check(id::CLIP_PLANE_ENABLE, 0x3F), Ok(()));
    }

    /// Draws `PipelineState`s field by field from random words, every
    /// enum through its `from_d3d` (so only valid values), every float
    /// finite. Struct literals without `..` make a new field a compile
    /// error here.
    struct Gen<'a>(std::slice::Iter<'a, u32>);

    impl Gen<'_> {
        fn u(&mut self) -> u32 {
            self.0.next().copied().unwrap_or(0)
        }
        fn b(&mut self) -> bool {
            self.u() & 1 == 1
        }
        fn f(&mut self) -> f32 {
            let x = f32::from_bits(self.u());
            if x.is_finite() {
                x
            } else {
                -0.0
            }
        }
        fn f4(&mut self) -> [f32; 4] {
            [self.f(), self.f(), self.f(), self.f()]
        }
        fn f3(&mut self) -> [f32; 3] {
            [self.f(), self.f(), self.f()]
        }
        fn pick<T>(&mut self, from: fn(u32) -> Option<T>, values: &[u32]) -> T {
            let v = values[self.u() as usize % values.len()];
            from(v).unwrap()
        }
        fn range<T>(&mut self, from: fn(u32) -> Option<T>, lo: u32, hi: u32) -> T {
            let v = lo + self.u() % (hi - lo + 1);
            from(v).unwrap()
        }
        fn matrix(&mut self) -> Matrix {
            Matrix([self.f4(), self.f4(), self.f4(), self.f4()])
        }
        fn arg(&mut self) -> TextureArg {
            let v = self.u();
            TextureArg::from_d3d((v % 7) | (v >> 8 & 0x30)).unwrap()
        }
        fn stage(&mut self) -> StageState {
            let op = |g: &mut Self| g.range(TextureOp::from_d3d, 1, 26);
            StageState {
                color_op: op(self),
                color_arg0: self.arg(),
                color_arg1: self.arg(),
                color_arg2: self.arg(),
                alpha_op: op(self),
                alpha_arg0: self.arg(),
                alpha_arg1: self.arg(),
                alpha_arg2: self.arg(),
                result: self.pick(ResultTarget::from_d3d, &[1, 5]),
                bump_env_mat: [[self.f(), self.f()], [self.f(), self.f()]],
                bump_lscale: self.f(),
                bump_loffset: self.f(),
                constant: self.f4(),
                has_texture: self.b(),
            }
        }
        fn sampler(&mut self) -> SamplerState {
            let a = |g: &mut Self| g.range(TextureAddress::from_d3d, 1, 5);
            let f = |g: &mut Self| g.range(TextureFilter::from_d3d, 0, 7);
            SamplerState {
                address_u: a(self),
                address_v: a(self),
                address_w: a(self),
                border_color: self.u(),
                mag_filter: f(self),
                min_filter: f(self),
                mip_filter: f(self),
                mip_lod_bias: self.f(),
                max_mip_level: self.u(),
                max_anisotropy: self.u(),
            }
        }
        fn light(&mut self) -> Light {
            Light {
                kind: self.range(LightType::from_d3d, 1, 3),
                diffuse: self.f4(),
                specular: self.f4(),
                ambient: self.f4(),
                position: self.f3(),
                direction: self.f3(),
                range: self.f(),
                falloff: self.f(),
                attenuation0: self.f(),
                attenuation1: self.f(),
                attenuation2: self.f(),
                theta: self.f(),
                phi: self.f(),
            }
        }
        fn face(&mut self) -> StencilFace {
            let op = |g: &mut Self| g.range(StencilOp::from_d3d, 1, 8);
            StencilFace {
                fail: op(self),
                z_fail: op(self),
                pass: op(self),
                func: self.range(CmpFunc::from_d3d, 1, 8),
            }
        }
        fn state(&mut self) -> PipelineState {
            let cmp = |g: &mut Self| g.range(CmpFunc::from_d3d, 1, 8);
            let blend = |g: &mut Self| g.range(Blend::from_d3d, 1, 15);
            let bop = |g: &mut Self| g.range(BlendOp::from_d3d, 1, 5);
            let fog = |g: &mut Self| g.range(FogMode::from_d3d, 0, 3);
            let mcs = |g: &mut Self| g.range(MaterialSource::from_d3d, 0, 2);
            let mut stages = [StageState::default_for(0); MAX_STAGES];
            stages.iter_mut().for_each(|s| *s = self.stage());
            let mut samplers = [SamplerState::default(); MAX_STAGES];
            samplers.iter_mut().for_each(|s| *s = self.sampler());
            let mut tci = [TexCoordIndex::default(); MAX_STAGES];
            for t in &mut tci {
                let v = (self.u() & 0xFFFF) | (self.u() % 5) << 16;
                *t = TexCoordIndex::from_d3d(v).unwrap();
            }
            let mut ttf = [TextureTransform::default(); MAX_STAGES];
            for t in &mut ttf {
                let v = (self.u() % 5) | (self.u() & 0x100);
                *t = TextureTransform::from_d3d(v).unwrap();
            }
            let mut matrices = [Matrix::IDENTITY; MAX_STAGES];
            matrices.iter_mut().for_each(|m| *m = self.matrix());
            let mut lights = [softhal_pipeline::NO_LIGHT; MAX_ACTIVE_LIGHTS];
            lights.iter_mut().for_each(|l| *l = self.light());
            PipelineState {
                raster: RasterState {
                    fill_mode: self.range(FillMode::from_d3d, 1, 3),
                    shade_mode: self.range(ShadeMode::from_d3d, 1, 3),
                    cull_mode: self.range(CullMode::from_d3d, 1, 3),
                    last_pixel: self.b(),
                    scissor_enable: self.b(),
                    scissor: Rect::new(
                        self.u() as i32,
                        self.u() as i32,
                        self.u() as i32,
                        self.u() as i32,
                    ),
                    clipping: self.b(),
                    clip_plane_enable: self.u() & 0x3F,
                    clip_planes: [
                        self.f4(),
                        self.f4(),
                        self.f4(),
                        self.f4(),
                        self.f4(),
                        self.f4(),
                    ],
                    dither: self.b(),
                    specular_enable: self.b(),
                },
                depth: DepthState {
                    z_enable: self.range(ZBufferType::from_d3d, 0, 2),
                    z_write: self.b(),
                    z_func: cmp(self),
                    z_bias: self.u(),
                    depth_bias: self.f(),
                    slope_scale_depth_bias: self.f(),
                    w_near: self.f(),
                    w_far: self.f(),
                },
                stencil: StencilState {
                    enable: self.b(),
                    front: self.face(),
                    two_sided: self.b(),
                    ccw: self.face(),
                    reference: self.u(),
                    mask: self.u(),
                    write_mask: self.u(),
                },
                alpha_test: AlphaTestState {
                    enable: self.b(),
                    func: cmp(self),
                    reference: self.u(),
                },
                blend: BlendState {
                    enable: self.b(),
                    src: blend(self),
                    dst: blend(self),
                    op: bop(self),
                    separate_alpha: self.b(),
                    src_alpha: blend(self),
                    dst_alpha: blend(self),
                    op_alpha: bop(self),
                    factor: self.u(),
                    color_write_enable: self.u(),
                },
                viewport: Viewport {
                    x: self.u(),
                    y: self.u(),
                    width: self.u(),
                    height: self.u(),
                    min_z: self.f(),
                    max_z: self.f(),
                },
                transforms: Transforms {
                    world: self.matrix(),
                    view: self.matrix(),
                    projection: self.matrix(),
                },
                textures: TextureStages {
                    stages,
                    samplers,
                    tex_coord_index: tci,
                    transform_flags: ttf,
                    matrices,
                    texture_factor: self.u(),
                    color_key: [ColorKeyMode::Off, ColorKeyMode::Reject, ColorKeyMode::Blend]
                        [self.u() as usize % 3],
                },
                fog: softhal_pipeline::fog::FogState {
                    enable: self.b(),
                    color: self.u(),
                    table_mode: fog(self),
                    vertex_mode: fog(self),
                    start: self.f(),
                    end: self.f(),
                    density: self.f(),
                    range_fog: self.b(),
                },
                lighting: LightingParams {
                    enable: self.b(),
                    lights,
                    light_count: self.u() as usize % (MAX_ACTIVE_LIGHTS + 1),
                    material: Material {
                        diffuse: self.f4(),
                        ambient: self.f4(),
                        specular: self.f4(),
                        emissive: self.f4(),
                        power: self.f(),
                    },
                    ambient: self.u(),
                    local_viewer: self.b(),
                    normalize_normals: self.b(),
                    color_vertex: self.b(),
                    diffuse_source: mcs(self),
                    specular_source: mcs(self),
                    ambient_source: mcs(self),
                    emissive_source: mcs(self),
                },
                vertex_blend: VertexBlendState {
                    mode: self.pick(VertexBlend::from_d3d, &[0, 1, 2, 3, 255, 256]),
                    indexed: self.b(),
                    worlds: [self.matrix(), self.matrix(), self.matrix()],
                    tween_factor: self.f(),
                },
                point: softhal_pipeline::texgen::PointState {
                    size: self.f(),
                    min: self.f(),
                    max: self.f(),
                    scale_enable: self.b(),
                    scale: self.f3(),
                    sprite_enable: self.b(),
                },
            }
        }
    }

    /// Words enough for one state (more than it draws).
    const WORDS: usize = 2048;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Writing `encode(ps)` register by register into a default state
        /// gives back `ps`, bit for bit.
        #[test]
        fn encode_then_write_gives_back_any_valid_state(
            words in proptest::collection::vec(any::<u32>(), WORDS)
        ) {
            let ps = Gen(words.iter()).state();
            let regs = encode(&ps);
            prop_assert_eq!(regs.len(), COUNT);
            let mut out = PipelineState::default();
            for (reg, v) in all_ids().zip(regs.iter().copied()) {
                prop_assert_eq!(check(reg, v), Ok(()));
                prop_assert_eq!(write(&mut out, reg, v), Ok(()));
            }
            prop_assert_eq!(out, ps);
            prop_assert_eq!(encode(&out), regs);
        }

        /// Any (id, value) is either refused by `check` (and then `write`
        /// refuses it too and changes nothing) or applies; reading the
        /// register back and writing that value again is a no-op.
        #[test]
        fn any_pair_is_refused_or_applies(
            reg in prop_oneof![any::<u32>(), 0u32..0x800],
            value in prop_oneof![any::<u32>(), 0u32..0x400, any::<f32>().prop_map(f32::to_bits)],
            words in proptest::collection::vec(any::<u32>(), WORDS),
        ) {
            let before = Gen(words.iter()).state();
            let mut ps = before;
            let checked = check(reg, value);
            let written = write(&mut ps, reg, value);
            prop_assert_eq!(checked, written);
            match written {
                Err(_) => prop_assert_eq!(ps, before),
                Ok(()) => {
                    let back = read(&ps, reg).unwrap();
                    let mut again = ps;
                    prop_assert_eq!(write(&mut again, reg, back), Ok(()));
                    prop_assert_eq!(again, ps);
                    // Only that register changed.
                    let (a, b) = (encode(&before), encode(&ps));
                    for ((r, x), y) in all_ids().zip(a).zip(b) {
                        if r != reg {
                            prop_assert_eq!(x, y, "register {:#x}", r);
                        }
                    }
                }
            }
        }
    }
}
