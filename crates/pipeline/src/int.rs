//! Named numeric conversions used across the pipeline.
//!
//! *Input*: floats and wide integers. *Output*: narrower integers,
//! saturating. *Guarantee*: every conversion here is total (NaN → 0,
//! out-of-range values clamp), so data-dependent values never panic or
//! wrap silently where that would matter.

/// f32 → u32, saturating (NaN → 0).
#[inline]
pub(crate) fn f32_to_u32_sat(v: f32) -> u32 {
    // `as` from float saturates and maps NaN to 0 by definition.
    v as u32
}

/// f64 → u32, saturating (NaN → 0).
#[inline]
pub(crate) fn f64_to_u32_sat(v: f64) -> u32 {
    v as u32
}

/// i64 → i32, saturating.
#[inline]
pub(crate) fn i64_to_i32_sat(v: i64) -> i32 {
    v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// u32 → usize (lossless on every supported target: usize ≥ 32 bits).
#[inline]
pub(crate) fn usize_from(v: u32) -> usize {
    v as usize
}

/// i32 known to be ≥ 0 → usize; negative values become 0.
#[inline]
pub(crate) fn usize_from_i32(v: i32) -> usize {
    v.max(0) as usize
}

/// Clamps to `[0, 255]`.
#[inline]
pub(crate) fn clamp_u8(v: i32) -> u8 {
    v.clamp(0, 255) as u8
}

/// Rounds to the nearest integer, ties to even, without a libm call
/// (identical to `f32::round_ties_even` and to the SSE conversion
/// `cvtps2dq` under the default rounding mode, for finite inputs).
#[inline(always)]
pub(crate) fn round_ties_even_f32(x: f32) -> f32 {
    const M: f32 = 8_388_608.0; // 2^23: above it every f32 is an integer.
    let a = x.abs();
    if a < M {
        // Adding 2^23 rounds to an integer (ties to even) exactly once.
        ((a + M) - M).copysign(x)
    } else {
        x
    }
}

/// Rounds to the nearest integer (ties to even) as i64, saturating, NaN →
/// 0, without a libm call or a float→int conversion for |x| < 2^51: adding
/// 1.5·2^52 leaves the rounded integer in the low mantissa bits.
#[inline(always)]
pub(crate) fn round_i64(x: f64) -> i64 {
    const M: f64 = 6_755_399_441_055_744.0; // 1.5·2^52
    const LIM: f64 = 2_251_799_813_685_248.0; // 2^51
    if x.abs() < LIM {
        ((x + M).to_bits() as i64).wrapping_sub(M.to_bits() as i64)
    } else {
        x as i64
    }
}

/// f32 → i32 rounded toward zero as x86's `cvttps2dq` does: `i32::MIN`
/// (the "integer indefinite") for NaN and for values outside the i32
/// range. The scalar vector level's `trunc_i32`, and what a table indexed
/// by that instruction's lanes is built with.
#[inline(always)]
pub(crate) fn trunc_i32_indefinite(x: f32) -> i32 {
    let t = x.trunc();
    // In range (NaN is not): exact, since `t` is an integer.
    if (-2_147_483_648.0..2_147_483_648.0).contains(&t) {
        t as i32
    } else {
        i32::MIN
    }
}

/// A colour value in 0..=255 as float → rounded (ties to even) and clamped
/// channel value.
#[inline(always)]
pub(crate) fn channel_from_f32(v: f32) -> i32 {
    i32::from(clamp_u8(round_ties_even_f32(v) as i32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_helpers() {
        for x in [
            0.0f32,
            0.5,
            1.5,
            2.5,
            3.49,
            -0.5,
            -1.5,
            8_388_607.5,
            16_777_215.0,
            1e30,
            -7.51,
        ] {
            assert_eq!(round_ties_even_f32(x), x.round_ties_even(), "{x}");
        }
        for x in [
            0.0f64,
            -0.5,
            -0.6,
            0.5,
            1.5,
            2.5,
            -2.5,
            7.49,
            -1e15 - 0.5,
            3e15 + 0.5,
        ] {
            assert_eq!(round_i64(x), x.round_ties_even() as i64, "{x}");
        }
        assert_eq!(round_i64(f64::NAN), 0);
        assert_eq!(round_i64(1e300), i64::MAX);
        assert_eq!(round_i64(-1e300), i64::MIN);
    }
}
