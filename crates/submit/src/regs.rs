//! The GPU register file: documented register ids the GPU applies to its
//! per-context [`PipelineState`].
//!
//! In: `(id, value)` DWORD pairs from SET_REGS packets. Out: the context's
//! `PipelineState`. Guarantees: [`check`] accepts exactly the values
//! [`write()`] can apply (enums in their D3D ranges, booleans 0/1, finite
//! floats), so a validated SET_REGS packet always applies in full; ids and
//! meanings are listed in `docs/gpu-commands.md`. [`encode`] reads every
//! register of a state (the UMD uses it to emit only the registers that
//! changed).

use softhal_pipeline::{
    Blend, BlendOp, CmpFunc, CullMode, FillMode, PipelineState, ShadeMode, StencilOp, ZBufferType,
};

/// Number of user clip planes in the register file.
pub const CLIP_PLANES: u32 = softhal_pipeline::limits::MAX_USER_CLIP_PLANES as u32;

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
    /// World matrix, 16 floats row-major: 0x100..=0x10F.
    pub const WORLD: u32 = 0x100;
    /// View matrix: 0x110..=0x11F.
    pub const VIEW: u32 = 0x110;
    /// Projection matrix: 0x120..=0x12F.
    pub const PROJECTION: u32 = 0x120;
    /// Clip plane i component j: 0x140 + 4i + j.
    pub const CLIP_PLANE: u32 = 0x140;
}

/// Every register id, in ascending order.
pub fn all_ids() -> impl Iterator<Item = u32> {
    (0x000..=0x00Cu32)
        .chain(0x010..=0x017)
        .chain(0x020..=0x02C)
        .chain(0x030..=0x032)
        .chain(0x040..=0x049)
        .chain(0x050..=0x055)
        .chain(0x100..0x130)
        .chain(id::CLIP_PLANE..id::CLIP_PLANE.saturating_add(CLIP_PLANES.saturating_mul(4)))
}

/// Number of registers.
pub fn count() -> usize {
    all_ids().count()
}

fn cmp_d3d(c: CmpFunc) -> u32 {
    match c {
        CmpFunc::Never => 1,
        CmpFunc::Less => 2,
        CmpFunc::Equal => 3,
        CmpFunc::LessEqual => 4,
        CmpFunc::Greater => 5,
        CmpFunc::NotEqual => 6,
        CmpFunc::GreaterEqual => 7,
        CmpFunc::Always => 8,
    }
}
fn sop_d3d(o: StencilOp) -> u32 {
    match o {
        StencilOp::Keep => 1,
        StencilOp::Zero => 2,
        StencilOp::Replace => 3,
        StencilOp::IncrSat => 4,
        StencilOp::DecrSat => 5,
        StencilOp::Invert => 6,
        StencilOp::Incr => 7,
        StencilOp::Decr => 8,
    }
}
fn blend_d3d(b: Blend) -> u32 {
    match b {
        Blend::Zero => 1,
        Blend::One => 2,
        Blend::SrcColor => 3,
        Blend::InvSrcColor => 4,
        Blend::SrcAlpha => 5,
        Blend::InvSrcAlpha => 6,
        Blend::DestAlpha => 7,
        Blend::InvDestAlpha => 8,
        Blend::DestColor => 9,
        Blend::InvDestColor => 10,
        Blend::SrcAlphaSat => 11,
        Blend::BothSrcAlpha => 12,
        Blend::BothInvSrcAlpha => 13,
        Blend::BlendFactor => 14,
        Blend::InvBlendFactor => 15,
    }
}
fn bop_d3d(b: BlendOp) -> u32 {
    match b {
        BlendOp::Add => 1,
        BlendOp::Subtract => 2,
        BlendOp::RevSubtract => 3,
        BlendOp::Min => 4,
        BlendOp::Max => 5,
    }
}

/// The value of register `reg` in `ps` (`None`: no such register).
pub fn read(ps: &PipelineState, reg: u32) -> Option<u32> {
    use id::*;
    let r = &ps.raster;
    let d = &ps.depth;
    let s = &ps.stencil;
    let b = &ps.blend;
    let v = &ps.viewport;
    let f = f32::to_bits;
    Some(match reg {
        FILL_MODE => match r.fill_mode {
            FillMode::Point => 1,
            FillMode::Wireframe => 2,
            FillMode::Solid => 3,
        },
        SHADE_MODE => match r.shade_mode {
            ShadeMode::Flat => 1,
            ShadeMode::Gouraud => 2,
            ShadeMode::Phong => 3,
        },
        CULL_MODE => match r.cull_mode {
            CullMode::None => 1,
            CullMode::Cw => 2,
            CullMode::Ccw => 3,
        },
        LAST_PIXEL => u32::from(r.last_pixel),
        SCISSOR_ENABLE => u32::from(r.scissor_enable),
        SCISSOR_X1 => r.scissor.x1 as u32,
        SCISSOR_Y1 => r.scissor.y1 as u32,
        SCISSOR_X2 => r.scissor.x2 as u32,
        SCISSOR_Y2 => r.scissor.y2 as u32,
        CLIPPING => u32::from(r.clipping),
        CLIP_PLANE_ENABLE => r.clip_plane_enable,
        DITHER => u32::from(r.dither),
        SPECULAR_ENABLE => u32::from(r.specular_enable),
        Z_ENABLE => match d.z_enable {
            ZBufferType::Disabled => 0,
            ZBufferType::ZBuffer => 1,
            ZBufferType::WBuffer => 2,
        },
        Z_WRITE => u32::from(d.z_write),
        Z_FUNC => cmp_d3d(d.z_func),
        Z_BIAS => d.z_bias,
        DEPTH_BIAS => f(d.depth_bias),
        SLOPE_SCALE_DEPTH_BIAS => f(d.slope_scale_depth_bias),
        W_NEAR => f(d.w_near),
        W_FAR => f(d.w_far),
        STENCIL_ENABLE => u32::from(s.enable),
        STENCIL_FAIL => sop_d3d(s.front.fail),
        STENCIL_ZFAIL => sop_d3d(s.front.z_fail),
        STENCIL_PASS => sop_d3d(s.front.pass),
        STENCIL_FUNC => cmp_d3d(s.front.func),
        TWO_SIDED_STENCIL => u32::from(s.two_sided),
        CCW_STENCIL_FAIL => sop_d3d(s.ccw.fail),
        CCW_STENCIL_ZFAIL => sop_d3d(s.ccw.z_fail),
        CCW_STENCIL_PASS => sop_d3d(s.ccw.pass),
        CCW_STENCIL_FUNC => cmp_d3d(s.ccw.func),
        STENCIL_REF => s.reference,
        STENCIL_MASK => s.mask,
        STENCIL_WRITE_MASK => s.write_mask,
        ALPHA_TEST_ENABLE => u32::from(ps.alpha_test.enable),
        ALPHA_FUNC => cmp_d3d(ps.alpha_test.func),
        ALPHA_REF => ps.alpha_test.reference,
        BLEND_ENABLE => u32::from(b.enable),
        SRC_BLEND => blend_d3d(b.src),
        DEST_BLEND => blend_d3d(b.dst),
        BLEND_OP => bop_d3d(b.op),
        SEPARATE_ALPHA_BLEND => u32::from(b.separate_alpha),
        SRC_BLEND_ALPHA => blend_d3d(b.src_alpha),
        DEST_BLEND_ALPHA => blend_d3d(b.dst_alpha),
        BLEND_OP_ALPHA => bop_d3d(b.op_alpha),
        BLEND_FACTOR => b.factor,
        COLOR_WRITE_ENABLE => b.color_write_enable,
        VIEWPORT_X => v.x,
        VIEWPORT_Y => v.y,
        VIEWPORT_WIDTH => v.width,
        VIEWPORT_HEIGHT => v.height,
        VIEWPORT_MIN_Z => f(v.min_z),
        VIEWPORT_MAX_Z => f(v.max_z),
        0x100..=0x12F => {
            let m = match reg & !0xF {
                WORLD => &ps.transforms.world,
                VIEW => &ps.transforms.view,
                _ => &ps.transforms.projection,
            };
            let i = (reg & 0xF) as usize;
            f(*m.0.get(i / 4)?.get(i % 4)?)
        }
        _ if reg >= CLIP_PLANE => {
            let i = reg.checked_sub(CLIP_PLANE)? as usize;
            f(*r.clip_planes.get(i / 4)?.get(i % 4)?)
        }
        _ => return None,
    })
}

/// Why a register write is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegError {
    /// No register has this id.
    UnknownRegister,
    /// The value is outside the register's range.
    BadValue,
}

fn boolean(v: u32) -> Result<bool, RegError> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(RegError::BadValue),
    }
}
fn finite(v: u32) -> Result<f32, RegError> {
    let x = f32::from_bits(v);
    if x.is_finite() {
        Ok(x)
    } else {
        Err(RegError::BadValue)
    }
}
fn opt<T>(v: Option<T>) -> Result<T, RegError> {
    v.ok_or(RegError::BadValue)
}

/// Checks a write without applying it.
pub fn check(reg: u32, value: u32) -> Result<(), RegError> {
    let mut scratch = PipelineState::default();
    write(&mut scratch, reg, value)
}

/// Applies `value` to register `reg` of `ps`. On error `ps` is unchanged.
pub fn write(ps: &mut PipelineState, reg: u32, value: u32) -> Result<(), RegError> {
    use id::*;
    let r = &mut ps.raster;
    let d = &mut ps.depth;
    let s = &mut ps.stencil;
    let b = &mut ps.blend;
    let v = &mut ps.viewport;
    match reg {
        FILL_MODE => r.fill_mode = opt(FillMode::from_d3d(value))?,
        SHADE_MODE => r.shade_mode = opt(ShadeMode::from_d3d(value))?,
        CULL_MODE => r.cull_mode = opt(CullMode::from_d3d(value))?,
        LAST_PIXEL => r.last_pixel = boolean(value)?,
        SCISSOR_ENABLE => r.scissor_enable = boolean(value)?,
        SCISSOR_X1 => r.scissor.x1 = value as i32,
        SCISSOR_Y1 => r.scissor.y1 = value as i32,
        SCISSOR_X2 => r.scissor.x2 = value as i32,
        SCISSOR_Y2 => r.scissor.y2 = value as i32,
        CLIPPING => r.clipping = boolean(value)?,
        CLIP_PLANE_ENABLE => {
            if value >> CLIP_PLANES != 0 {
                return Err(RegError::BadValue);
            }
            r.clip_plane_enable = value;
        }
        DITHER => r.dither = boolean(value)?,
        SPECULAR_ENABLE => r.specular_enable = boolean(value)?,
        Z_ENABLE => d.z_enable = opt(ZBufferType::from_d3d(value))?,
        Z_WRITE => d.z_write = boolean(value)?,
        Z_FUNC => d.z_func = opt(CmpFunc::from_d3d(value))?,
        Z_BIAS => d.z_bias = value,
        DEPTH_BIAS => d.depth_bias = finite(value)?,
        SLOPE_SCALE_DEPTH_BIAS => d.slope_scale_depth_bias = finite(value)?,
        W_NEAR => d.w_near = finite(value)?,
        W_FAR => d.w_far = finite(value)?,
        STENCIL_ENABLE => s.enable = boolean(value)?,
        STENCIL_FAIL => s.front.fail = opt(StencilOp::from_d3d(value))?,
        STENCIL_ZFAIL => s.front.z_fail = opt(StencilOp::from_d3d(value))?,
        STENCIL_PASS => s.front.pass = opt(StencilOp::from_d3d(value))?,
        STENCIL_FUNC => s.front.func = opt(CmpFunc::from_d3d(value))?,
        TWO_SIDED_STENCIL => s.two_sided = boolean(value)?,
        CCW_STENCIL_FAIL => s.ccw.fail = opt(StencilOp::from_d3d(value))?,
        CCW_STENCIL_ZFAIL => s.ccw.z_fail = opt(StencilOp::from_d3d(value))?,
        CCW_STENCIL_PASS => s.ccw.pass = opt(StencilOp::from_d3d(value))?,
        CCW_STENCIL_FUNC => s.ccw.func = opt(CmpFunc::from_d3d(value))?,
        STENCIL_REF => s.reference = value,
        STENCIL_MASK => s.mask = value,
        STENCIL_WRITE_MASK => s.write_mask = value,
        ALPHA_TEST_ENABLE => ps.alpha_test.enable = boolean(value)?,
        ALPHA_FUNC => ps.alpha_test.func = opt(CmpFunc::from_d3d(value))?,
        ALPHA_REF => ps.alpha_test.reference = value,
        BLEND_ENABLE => b.enable = boolean(value)?,
        SRC_BLEND => b.src = opt(Blend::from_d3d(value))?,
        DEST_BLEND => b.dst = opt(Blend::from_d3d(value))?,
        BLEND_OP => b.op = opt(BlendOp::from_d3d(value))?,
        SEPARATE_ALPHA_BLEND => b.separate_alpha = boolean(value)?,
        SRC_BLEND_ALPHA => b.src_alpha = opt(Blend::from_d3d(value))?,
        DEST_BLEND_ALPHA => b.dst_alpha = opt(Blend::from_d3d(value))?,
        BLEND_OP_ALPHA => b.op_alpha = opt(BlendOp::from_d3d(value))?,
        BLEND_FACTOR => b.factor = value,
        COLOR_WRITE_ENABLE => b.color_write_enable = value,
        VIEWPORT_X => v.x = value,
        VIEWPORT_Y => v.y = value,
        VIEWPORT_WIDTH => v.width = value,
        VIEWPORT_HEIGHT => v.height = value,
        VIEWPORT_MIN_Z => v.min_z = finite(value)?,
        VIEWPORT_MAX_Z => v.max_z = finite(value)?,
        0x100..=0x12F => {
            let x = finite(value)?;
            let m = match reg & !0xF {
                WORLD => &mut ps.transforms.world,
                VIEW => &mut ps.transforms.view,
                _ => &mut ps.transforms.projection,
            };
            let i = (reg & 0xF) as usize;
            *m.0.get_mut(i / 4)
                .and_then(|row| row.get_mut(i % 4))
                .ok_or(RegError::UnknownRegister)? = x;
        }
        _ if reg >= CLIP_PLANE => {
            let x = finite(value)?;
            let i = reg
                .checked_sub(CLIP_PLANE)
                .ok_or(RegError::UnknownRegister)? as usize;
            *r.clip_planes
                .get_mut(i / 4)
                .and_then(|p| p.get_mut(i % 4))
                .ok_or(RegError::UnknownRegister)? = x;
        }
        _ => return Err(RegError::UnknownRegister),
    }
    Ok(())
}

/// Every register of `ps`, in [`all_ids`] order.
pub fn encode(ps: &PipelineState) -> Vec<u32> {
    all_ids().map(|r| read(ps, r).unwrap_or(0)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_register_round_trips() {
        let mut ps = PipelineState::default();
        ps.blend.src = Blend::SrcAlpha;
        ps.transforms.view.0[3][2] = 5.0;
        ps.raster.clip_planes[5][3] = -2.0;
        ps.viewport.max_z = 0.5;
        let mut out = PipelineState::default();
        for (reg, v) in all_ids().zip(encode(&ps)) {
            write(&mut out, reg, v).unwrap();
        }
        assert_eq!(out, ps);
        assert_eq!(count(), encode(&ps).len());
        assert_eq!(check(0x0FF, 0), Err(RegError::UnknownRegister));
        assert_eq!(check(id::Z_FUNC, 9), Err(RegError::BadValue));
        assert_eq!(
            check(id::W_FAR, f32::NAN.to_bits()),
            Err(RegError::BadValue)
        );
    }
}
