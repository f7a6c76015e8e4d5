//! The arithmetic of the shader instructions, one function per formula of
//! the Direct3D 9 assembly reference (`docs/shaders.md` §11), shared by
//! the reference interpreter and the register-plane executor so that both
//! compute every value the same way, in the same order.
//!
//! - In: `f32` components (a source already swizzled).
//! - Out: results; no function reads memory or panics, whatever the value
//!   (NaN, ±∞, 0).

use super::lane::Vec4;
use crate::ir::SrcModifier;

/// A source modifier applied to one component (`_dz`/`_dw`, which divide
/// by another component, and `!`, which is boolean, leave it as it is).
#[inline]
pub fn modify(m: SrcModifier, x: f32) -> f32 {
    match m {
        SrcModifier::None | SrcModifier::Not | SrcModifier::Dz | SrcModifier::Dw => x,
        SrcModifier::Neg => -x,
        SrcModifier::Bias => x - 0.5,
        SrcModifier::BiasNeg => -(x - 0.5),
        SrcModifier::Sign => 2.0 * x - 1.0,
        SrcModifier::SignNeg => -(2.0 * x - 1.0),
        SrcModifier::Comp => 1.0 - x,
        SrcModifier::X2 => 2.0 * x,
        SrcModifier::X2Neg => -2.0 * x,
        SrcModifier::Abs => x.abs(),
        SrcModifier::AbsNeg => -x.abs(),
    }
}

/// `min`: x when x < y, else y.
#[inline]
pub fn min(x: f32, y: f32) -> f32 {
    if x < y {
        x
    } else {
        y
    }
}

/// `max`: x when x ≥ y, else y.
#[inline]
pub fn max(x: f32, y: f32) -> f32 {
    if x >= y {
        x
    } else {
        y
    }
}

/// `slt`: 1 when x < y.
#[inline]
pub fn slt(x: f32, y: f32) -> f32 {
    if x < y {
        1.0
    } else {
        0.0
    }
}

/// `sge`: 1 when x ≥ y.
#[inline]
pub fn sge(x: f32, y: f32) -> f32 {
    if x >= y {
        1.0
    } else {
        0.0
    }
}

/// `lrp`: f·(x − y) + y.
#[inline]
pub fn lrp(f: f32, x: f32, y: f32) -> f32 {
    f * (x - y) + y
}

/// `cnd`: y when x > 0.5, else z.
#[inline]
pub fn cnd(x: f32, y: f32, z: f32) -> f32 {
    if x > 0.5 {
        y
    } else {
        z
    }
}

/// `cmp`: y when x ≥ 0, else z.
#[inline]
pub fn cmp(x: f32, y: f32, z: f32) -> f32 {
    if x >= 0.0 {
        y
    } else {
        z
    }
}

/// `frc`: x − ⌊x⌋.
#[inline]
pub fn frc(x: f32) -> f32 {
    x - x.floor()
}

/// `sgn`: −1, 0 or 1.
#[inline]
pub fn sgn(x: f32) -> f32 {
    if x < 0.0 {
        -1.0
    } else if x > 0.0 {
        1.0
    } else {
        0.0
    }
}

/// `pow`: |x|^y.
#[inline]
pub fn pow(x: f32, y: f32) -> f32 {
    x.abs().powf(y)
}

/// `a / b`, with the largest float for a zero divisor (the convention of
/// `rcp` and `rsq`).
#[inline]
pub fn divide(a: f32, b: f32) -> f32 {
    if b == 0.0 {
        f32::MAX
    } else {
        a / b
    }
}

/// `rcp`: exactly 1 for 1, the largest float for 0.
#[inline]
pub fn rcp(x: f32) -> f32 {
    if x == 0.0 {
        f32::MAX
    } else if x == 1.0 {
        1.0
    } else {
        1.0 / x
    }
}

/// `rsq`: of |x|; exactly 1 for 1, the largest float for 0.
#[inline]
pub fn rsq(x: f32) -> f32 {
    let x = x.abs();
    if x == 0.0 {
        f32::MAX
    } else if x == 1.0 {
        1.0
    } else {
        1.0 / x.sqrt()
    }
}

/// `log`: log2 |x|, the most negative float for 0.
#[inline]
pub fn log2_abs(x: f32) -> f32 {
    let x = x.abs();
    if x == 0.0 {
        -f32::MAX
    } else {
        x.log2()
    }
}

/// `nrm`'s factor from the squared length `f`: 1/√f, the largest float
/// for 0.
#[inline]
pub fn nrm_factor(f: f32) -> f32 {
    if f == 0.0 {
        f32::MAX
    } else {
        1.0 / f.sqrt()
    }
}

/// vs_1_1 `expp` on the replicated source w: 2^floor(w), its fraction,
/// 2^w to partial precision (the low 8 mantissa bits cleared), 1.
pub fn expp_vs1(v: Vec4) -> Vec4 {
    let w = v[0];
    let floor = w.floor();
    let partial = f32::from_bits(w.exp2().to_bits() & 0xFFFF_FF00);
    [floor.exp2(), w - floor, partial, 1.0]
}

/// vs_1_1 `logp` on the replicated source w: exponent, mantissa in [1, 2),
/// log2 |w| to partial precision, 1; for 0 the most negative float, 1, the
/// most negative float, 1; for a NaN, NaN in the first three parts and 1
/// (which NaN an operation returns is not deterministic — the compiler may
/// swap the operands of `a + b` — so a NaN's payload bits must not become
/// a number's mantissa).
pub fn logp_vs1(v: Vec4) -> Vec4 {
    let w = v[0].abs();
    if w == 0.0 {
        return [-f32::MAX, 1.0, -f32::MAX, 1.0];
    }
    if w.is_nan() {
        return [f32::NAN, f32::NAN, f32::NAN, 1.0];
    }
    let bits = w.to_bits();
    let exponent = ((bits >> 23) & 0xFF) as f32 - 127.0;
    let mantissa = f32::from_bits((bits & 0x007F_FFFF) | 0x3F80_0000);
    let partial = f32::from_bits(w.log2().to_bits() & 0xFFFF_FF00);
    [exponent, mantissa, partial, 1.0]
}

/// `lit`: lighting coefficients from N·L (x), N·H (y) and the power (w,
/// clamped to ±127.9961).
pub fn lit(v: Vec4) -> Vec4 {
    const MAX_POWER: f32 = 127.9961;
    let power = v[3].clamp(-MAX_POWER, MAX_POWER);
    let mut out = [1.0, 0.0, 0.0, 1.0];
    if v[0] > 0.0 {
        out[1] = v[0];
        if v[1] > 0.0 {
            out[2] = v[1].powf(power);
        }
    }
    out
}

/// `sincos`: cos x, sin x, 0, 0 of the source's x.
pub fn sincos(v: Vec4) -> Vec4 {
    [v[0].cos(), v[0].sin(), 0.0, 0.0]
}

/// The factor of a ps_1_x result shift (`_x2 _x4 _x8 _d2 _d4 _d8`: 1, 2,
/// 3, −1, −2, −3), 1 for none.
#[inline]
pub fn shift_scale(shift: i8) -> f32 {
    match shift {
        1 => 2.0,
        2 => 4.0,
        3 => 8.0,
        -1 => 0.5,
        -2 => 0.25,
        -3 => 0.125,
        _ => 1.0,
    }
}

/// A value written to `a0`: floor (vs_1_1 `mov`), or rounded to nearest
/// (`mova`), converted with saturation (NaN → 0).
#[inline]
pub fn to_address(x: f32, round: bool) -> i32 {
    let x = if round { (x + 0.5).floor() } else { x.floor() };
    x as i32
}

/// `texldp`'s projection: x, y, z divided by w, unless w is 0.
#[inline]
pub fn project(c: Vec4) -> Vec4 {
    project_on(c, 3)
}

/// A projection by component `k` (1..=3): the components before it
/// divided by it, unless it is 0 (then `c` unchanged); the others kept.
/// `texldp` is `k` = 3; a ps_1_1–1_3 stage with D3DTTFF_PROJECTED divides
/// by its last counted coordinate.
#[inline]
pub fn project_on(c: Vec4, k: usize) -> Vec4 {
    let q = c.get(k).copied().unwrap_or(1.0);
    if q == 0.0 {
        return c;
    }
    let mut out = c;
    for o in out.iter_mut().take(k) {
        *o /= q;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two NaNs that differ only in their payload give the same `logp`:
    /// NaN, NaN, NaN, 1 (the mantissa part is not read from the payload).
    #[test]
    fn logp_of_any_nan_is_nan_nan_nan_one() {
        for bits in [0x7FC0_0000, 0x7FC0_0001, 0xFFC0_0000, 0x7F80_0001] {
            let r = logp_vs1([f32::from_bits(bits), 0.0, 0.0, 0.0]);
            assert!(r[..3].iter().all(|x| x.is_nan()), "{bits:#x}: {r:?}");
            assert_eq!(r[3], 1.0);
        }
    }
}
