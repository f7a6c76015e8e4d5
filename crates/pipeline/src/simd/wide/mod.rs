//! The safe vector layer: 8-lane value types (`i32`, `f32`, lane masks)
//! and 4-lane `f64` with one implementation per instruction-set level,
//! and the marker values that prove a level is available.
//!
//! *Input*: a [`SimdLevel`] (detected at run time, or requested and
//! clamped) and a [`Kernel`]: a span kernel written once as
//! `fn k<S: Simd>(s: S, …)`. *Output*: the kernel's result, computed with
//! the vector types of the best level the CPU has up to the one asked for.
//! *Guarantees*:
//! * every operation gives the same bits at every level (the scalar
//!   implementation is the specification; the proptests below compare the
//!   others with it, operation by operation);
//! * a marker ([`Avx2`], [`Sse2`]) and every vector value of its level can
//!   only be made after `is_x86_feature_detected!` saw the level's
//!   features, so holding one is the proof that its intrinsics may run:
//!   the `unsafe` of the vector kernels lives here, in the level files
//!   (`avx2.rs`, `sse2.rs`), each block with a `// SAFETY:` line, and the
//!   kernels written over [`Simd`] are safe code (`#![forbid(unsafe_code)]`);
//! * [`SimdLevel::dispatch`] enters a level once per call: the kernel is
//!   instantiated inside one `#[target_feature]` function per level, where
//!   every operation is inlined (all are `#[inline(always)]`), so a kernel
//!   compiles to the same instructions as hand-written intrinsics.
//!
//! # Why our own layer
//!
//! softhal picks the level at run time ([`SimdLevel::detect`],
//! `Renderer::set_simd_level`, `SOFTHAL_NO_SIMD`) and requires the same
//! bytes at every level. Of the crates that could carry this:
//! * `wide` (tiny-skia's) chooses its implementation at *compile* time with
//!   `cfg(target_feature)`: inside a `#[target_feature(enable = "avx2")]`
//!   function of a baseline build its `i32x8` is still the SSE2 (or
//!   scalar) one, so it cannot give run-time selection at all;
//! * `pulp` (faer's) has the right shape (a `Simd` marker per level,
//!   `WithSimd` entered once through `#[target_feature]`), but its vector
//!   API is built for float linear algebra: no in-lane i32 → u8
//!   saturating packs, no masked partial stores, and its AVX2 level
//!   (`V3`) also requires FMA, which softhal's AVX2 level does not (and
//!   must not use: the twins round each product separately);
//! * `fearless_simd` (linebender's) is the model of the marker-value
//!   pattern used here, but it is pre-1.0 with a changing, generated API
//!   of hundreds of types, and it lacks the pixel packs as well.
//!
//! The operations the span kernels need are few; this file and one file
//! per level (about 250 lines each) carry them, with the scalar
//! implementation as the executable specification.
//!
//! Lane order: lane 0 is the lowest memory address (the first pixel).
// The layer carries the operations the next kernels to be written over it
// need (the f32 planes of `tex_modulate`, the compares and selects of the
// depth and blend kernels); they are tested per level below before any
// kernel uses them.
#![cfg_attr(not(test), allow(dead_code))]
use super::SimdLevel;
use std::ops::{Add, BitAnd, BitOr, BitXor, Not, Sub};

#[cfg(target_arch = "x86_64")]
mod avx2;
mod scalar;
#[cfg(target_arch = "x86_64")]
mod sse2;

#[cfg(target_arch = "x86_64")]
pub(crate) use avx2::Avx2;
pub(crate) use scalar::Scalar;
#[cfg(target_arch = "x86_64")]
pub(crate) use sse2::Sse2;

/// A kernel written once over the vector types of any level.
pub(crate) trait Kernel {
    /// What the kernel returns.
    type Output;
    /// Runs the kernel with the vector types of level `S`. Implementations
    /// must be `#[inline(always)]` so that the body is compiled inside the
    /// level's `#[target_feature]` entry.
    fn run<S: Simd>(self, s: S) -> Self::Output;
}

/// A proof that an instruction-set level is available, and the
/// constructors of its vector types.
pub(crate) trait Simd: Copy {
    /// Eight i32 lanes (also used for u32 data: the bits are the same).
    type I32x8: I32x8<Mask = Self::M32x8, F32 = Self::F32x8>;
    /// Eight f32 lanes.
    type F32x8: F32x8<Mask = Self::M32x8, I32 = Self::I32x8>;
    /// Eight lane masks (each lane all ones or all zeros).
    type M32x8: M32x8;

    /// Runs `k` with this level's features enabled.
    fn vectorize<K: Kernel>(self, k: K) -> K::Output;
    /// Every lane `v`.
    fn splat_i32(self, v: i32) -> Self::I32x8;
    /// Lane `i` is `v[i]`.
    fn i32x8(self, v: [i32; 8]) -> Self::I32x8;
    /// Lane `i` is the little-endian i32 at bytes `4i..4i + 4` of `src`
    /// (the inverse of [`I32x8::store`]).
    fn load_i32(self, src: &[u8; 32]) -> Self::I32x8;
    /// Lanes 0..4 and 4..8 are both `v` (one BGRA pixel per half).
    fn repeat4_i32(self, v: [i32; 4]) -> Self::I32x8;
    /// Every lane `v`.
    fn splat_f32(self, v: f32) -> Self::F32x8;
    /// Lane `i` is `v[i]`.
    fn f32x8(self, v: [f32; 8]) -> Self::F32x8;

    // The f64 lanes of `simd::planes`.
    /// Four f64 lanes.
    type F64x4: F64x4;
    /// Every lane `v`.
    fn splat_f64(self, v: f64) -> Self::F64x4;
    /// Lane `i` is `v[i]` widened to f64 (exact).
    fn f64x4_from_f32(self, v: &[f32; 4]) -> Self::F64x4;

    // The partial load of `simd::blend`.
    /// Lane `i < min(8, src.len() / 4)` is the little-endian i32 at bytes
    /// `4i..4i + 4` of `src`, the other lanes 0 (the inverse of
    /// [`I32x8::store_prefix`]); no byte past those lanes is read.
    fn load_i32_prefix(self, src: &[u8]) -> Self::I32x8;

    // The texel fetch of `simd::tex_modulate`.
    /// Lane `i` is the little-endian u32 at index `min(idx[i] as u32,
    /// n − 1)` of `data` read as u32s, `n = min(data.len() / 4, 2^31)`
    /// (so an index past the end, or negative, reads the last one); every
    /// lane 0 when `data` holds no whole u32. No byte outside `data` is
    /// read.
    fn gather_u32(self, data: &[u8], idx: Self::I32x8) -> Self::I32x8;

    // The 16-bit colour and depth rows of `simd::merge`.
    /// Lane `i` is the little-endian u16 at bytes `2i..2i + 2` of `src`,
    /// zero-extended (the inverse of [`I32x8::store_u16x8`]).
    fn load_u16x8(self, src: &[u8; 16]) -> Self::I32x8;
}

/// Eight i32 lanes; `+`, `-` wrap, `&`, `|`, `^` are bitwise.
pub(crate) trait I32x8:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
{
    /// The mask type of the level.
    type Mask: M32x8;
    /// The f32 type of the level.
    type F32: F32x8;

    /// Each lane shifted left by `N` (0 ≤ N < 32).
    fn shl<const N: i32>(self) -> Self;
    /// Each lane shifted right by `N`, copying the sign bit (0 ≤ N < 32).
    fn shr<const N: i32>(self) -> Self;
    /// Each lane shifted right by `N`, filling with zeros (0 ≤ N < 32).
    fn shr_logical<const N: i32>(self) -> Self;
    /// Lane-wise product, its low 32 bits (wrapping).
    fn mul(self, o: Self) -> Self;
    /// Lane-wise signed minimum.
    fn min(self, o: Self) -> Self;
    /// Lane-wise signed maximum.
    fn max(self, o: Self) -> Self;
    /// Lanes where `self == o`.
    fn simd_eq(self, o: Self) -> Self::Mask;
    /// Lanes where `self > o` (signed).
    fn simd_gt(self, o: Self) -> Self::Mask;
    /// Lane `i` is `a[i]` where `m` is set, else `b[i]`.
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
    /// Each lane converted to the nearest f32 (ties to even).
    fn to_f32(self) -> Self::F32;
    /// Four vectors of i32 channels packed to bytes, each clamped to
    /// `0..=255`: lane `p` of the result holds the four bytes
    /// `v[p % 4][4·(p / 4) + l]`, `l = 0..4`, in memory order. With one
    /// BGRA pixel per half of each input (pixel `k` in the low half of
    /// `v[k]`, pixel `k + 4` in its high half) the result is pixels 0..8
    /// in order: the in-half arrangement that AVX2's packs make cheap.
    fn pack_u8_sat(v: [Self; 4]) -> Self;
    /// The lanes as an array.
    fn to_array(self) -> [i32; 8];
    /// Writes the 8 lanes, little-endian, to `dst`.
    fn store(self, dst: &mut [u8; 32]);
    /// Writes the first `min(8, dst.len() / 4)` lanes, little-endian, to
    /// the start of `dst`; no other byte of `dst` is touched.
    fn store_prefix(self, dst: &mut [u8]);

    // The 16-bit lanes of `simd::blend`: the vector as sixteen u16 lanes
    // (u16 lane 2k is the low half of i32 lane k) in two halves of eight
    // (i32 lanes 0..4 and 4..8), as AVX2 arranges them.
    /// Bytes 0..8 of each half, zero-extended to the half's u16 lanes.
    fn widen_lo_u8_u16(self) -> Self;
    /// Bytes 8..16 of each half, zero-extended to the half's u16 lanes.
    fn widen_hi_u8_u16(self) -> Self;
    /// The u16 lanes of `lo` and `hi` read as i16 and clamped to
    /// `0..=255`: bytes 0..8 of each half from `lo`'s half, bytes 8..16
    /// from `hi`'s (so it undoes the two widens).
    fn pack_i16_u8_sat(lo: Self, hi: Self) -> Self;
    /// u16 lane-wise product, its low 16 bits.
    fn mul_lo_u16(self, o: Self) -> Self;
    /// u16 lane-wise product (unsigned), its high 16 bits.
    fn mul_hi_u16(self, o: Self) -> Self;
    /// u16 lane-wise sum, saturating at 65 535.
    fn add_sat_u16(self, o: Self) -> Self;
    /// Each u16 lane shifted right by `N`, filling with zeros (0 ≤ N < 16).
    fn shr_u16<const N: i32>(self) -> Self;
    /// Each group of four u16 lanes (one widened BGRA pixel) set to its
    /// fourth (the alpha).
    fn splat_alpha_u16(self) -> Self;

    // The bilinear filter of `simd::tex_modulate`: more u16 lanes (as
    // above) and 64-bit interleaves.
    /// u16 lane-wise sum, wrapping.
    fn add_u16(self, o: Self) -> Self;
    /// u16 lane-wise difference, wrapping.
    fn sub_u16(self, o: Self) -> Self;
    /// Each u16 lane shifted left by `N` (0 ≤ N < 16).
    fn shl_u16<const N: i32>(self) -> Self;
    /// Each u16 lane, read as i16, clamped to the same lanes of `lo` and
    /// `hi` (as i16): `min(max(self, lo), hi)`.
    fn clamp_i16(self, lo: Self, hi: Self) -> Self;
    /// i32 lanes of `a` and `b` clamped to the i16 range, as u16 lanes:
    /// half `h` of the result is half `h` of `a` (u16 lanes 0..4), then
    /// half `h` of `b` (u16 lanes 4..8).
    fn pack_i32_i16_sat(a: Self, b: Self) -> Self;
    /// The low u16 of i32 lanes `4h` and `4h + 1` each repeated over four
    /// u16 lanes of half `h`: one value per pixel of pixels 0, 1 | 4, 5
    /// spread over its channels, the arrangement of
    /// [`Self::widen_lo_u8_u16`] of 8 packed pixels.
    fn spread_lo_u16(self) -> Self;
    /// As [`Self::spread_lo_u16`] with i32 lanes `4h + 2`, `4h + 3`
    /// (pixels 2, 3 | 6, 7, the arrangement of [`Self::widen_hi_u8_u16`]).
    fn spread_hi_u16(self) -> Self;
    /// Half `h` of the result is i32 lanes `4h`, `4h + 1` of `self`, then
    /// those of `o`.
    fn zip_lo_i64(self, o: Self) -> Self;
    /// Half `h` of the result is i32 lanes `4h + 2`, `4h + 3` of `self`,
    /// then those of `o`.
    fn zip_hi_i64(self, o: Self) -> Self;

    // The output merger of `simd::merge`: 16-bit rows, the subtracting
    // blend operations, MIN/MAX and the specular add on packed pixels.
    /// Writes the low 16 bits of lane `i`, little-endian, to bytes
    /// `2i..2i + 2` of `dst`.
    fn store_u16x8(self, dst: &mut [u8; 16]);
    /// u16 lane-wise difference, saturating at 0.
    fn sub_sat_u16(self, o: Self) -> Self;
    /// u8 lane-wise sum, saturating at 255.
    fn add_sat_u8(self, o: Self) -> Self;
    /// u8 lane-wise unsigned minimum.
    fn min_u8(self, o: Self) -> Self;
    /// u8 lane-wise unsigned maximum.
    fn max_u8(self, o: Self) -> Self;
}

/// Eight f32 lanes; `+`, `-` and `*` are IEEE operations (round to
/// nearest even, no fused multiply-add).
pub(crate) trait F32x8: Copy + Add<Output = Self> + Sub<Output = Self> {
    /// The mask type of the level.
    type Mask: M32x8;
    /// The i32 type of the level.
    type I32: I32x8;

    /// Lane-wise product.
    fn mul(self, o: Self) -> Self;
    /// Lane-wise `if self < o { self } else { o }` (so `o` when either is
    /// NaN, as `minps`).
    fn min(self, o: Self) -> Self;
    /// Lane-wise `if self > o { self } else { o }` (so `o` when either is
    /// NaN, as `maxps`).
    fn max(self, o: Self) -> Self;
    /// Lanes where `self < o` (false for NaN).
    fn simd_lt(self, o: Self) -> Self::Mask;
    /// Each lane rounded to the nearest integer, ties to even;
    /// `i32::MIN` for NaN and for values outside the i32 range (the x86
    /// "integer indefinite").
    fn round_i32(self) -> Self::I32;
    /// The lanes as an array.
    fn to_array(self) -> [f32; 8];

    // The texture coordinates of `simd::tex_modulate`.
    /// Lane-wise IEEE quotient.
    fn div(self, o: Self) -> Self;
    /// Each lane rounded toward −∞ (NaN and infinities kept, −0.0 stays
    /// −0.0).
    fn floor(self) -> Self;
    /// Each lane rounded toward zero; `i32::MIN` for NaN and for values
    /// outside the i32 range (as `cvttps2dq`).
    fn trunc_i32(self) -> Self::I32;
    /// Each NaN lane replaced by +0.0, the others kept.
    fn nan_to_zero(self) -> Self;

    // The table-fog lookup of `simd::cascade8`.
    /// Each lane's IEEE bits as an i32 (`f32::to_bits`).
    fn to_bits(self) -> Self::I32;
}

/// Eight lane masks.
pub(crate) trait M32x8:
    Copy + BitAnd<Output = Self> + BitOr<Output = Self> + Not<Output = Self>
{
    /// Bit `i` is set when lane `i` is.
    fn bitmask(self) -> u32;
}

/// Four f64 lanes; `+`, `-` and `*` are IEEE operations (round to nearest
/// even, no fused multiply-add).
pub(crate) trait F64x4: Copy + Add<Output = Self> + Sub<Output = Self> {
    /// Lane-wise product.
    fn mul(self, o: Self) -> Self;
    /// Each lane with its sign bit cleared.
    fn abs(self) -> Self;
    /// Bit `i` is set when lane `i` of `self` is less than that of `o`
    /// (false for NaN).
    fn lt_bitmask(self, o: Self) -> u32;
    /// The low 32 bits of `bits(x + 1.5·2^52) − bits(1.5·2^52)` per lane
    /// (64-bit wrapping difference): for |x| < 2^51 the low 32 bits of `x`
    /// rounded to the nearest integer, ties to even (the fast path of
    /// `int::round_i64`); defined, meaningless bits for other lanes.
    fn round_i64_low32(self) -> [i32; 4];
    /// The lanes as an array.
    fn to_array(self) -> [f64; 4];
}

impl SimdLevel {
    /// Runs `k` at the best level the CPU has that is not above `self`
    /// (the markers check the CPU, so a level above it is never entered).
    ///
    /// Inlined into each kernel's entry point so that a call at the AVX2
    /// level costs the feature check and one call; the other levels are
    /// out of line.
    #[inline(always)]
    pub(crate) fn dispatch<K: Kernel>(self, k: K) -> K::Output {
        #[cfg(target_arch = "x86_64")]
        if self >= SimdLevel::Avx2 {
            if let Some(s) = Avx2::new() {
                return s.vectorize(k);
            }
        }
        self.dispatch_below_avx2(k)
    }

    /// [`Self::dispatch`] below AVX2.
    #[inline(never)]
    fn dispatch_below_avx2<K: Kernel>(self, k: K) -> K::Output {
        #[cfg(target_arch = "x86_64")]
        if self >= SimdLevel::Sse2 {
            if let Some(s) = Sse2::new() {
                return s.vectorize(k);
            }
        }
        Scalar.vectorize(k)
    }
}

/// Asks the CPU to start loading the cache lines of `v` (a pure hint: no
/// effect on results; nothing where the target has no prefetch).
#[inline(always)]
pub(crate) fn prefetch<T>(v: &T) {
    #[cfg(target_arch = "x86_64")]
    sse2::prefetch(v);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = v;
}

/// One BGRA pixel of 16.16 channels packed to bytes: byte `c` of the
/// little-endian result is `v[c] >> 16` clamped to `0..=255`. On x86-64
/// with SSE2's saturating packs (baseline, no level needed): i32 → i16
/// saturating to ±32 767, then i16 → u8 saturating to 0..=255, the same
/// as clamping `v >> 16` directly.
#[inline(always)]
pub(crate) fn pack_pixel_u8_sat(v: &[i32; 4]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    return sse2::pack_pixel_u8_sat(v);
    #[cfg(not(target_arch = "x86_64"))]
    u32::from_le_bytes([0, 1, 2, 3].map(|c| crate::int::clamp_u8(v[c] >> 16)))
}

#[cfg(test)]
mod tests {
    //! Every operation of every level the CPU has against the scalar
    //! implementation, and the scalar implementation against worked
    //! examples.
    use super::*;
    use proptest::prelude::*;

    /// What one test computes at one level, as plain lanes.
    trait Probe {
        fn at<S: Simd>(&self, s: S) -> Vec<u32>;
    }

    struct Run<'a, P>(&'a P);
    impl<P: Probe> Kernel for Run<'_, P> {
        type Output = Vec<u32>;
        #[inline(always)]
        fn run<S: Simd>(self, s: S) -> Vec<u32> {
            self.0.at(s)
        }
    }

    /// The result at every level, scalar first.
    fn every_level<P: Probe>(p: &P) -> Vec<(SimdLevel, Vec<u32>)> {
        [SimdLevel::Scalar, SimdLevel::Sse2, SimdLevel::Avx2]
            .into_iter()
            .map(|l| (l.clamp_to_cpu(), l.clamp_to_cpu().dispatch(Run(p))))
            .collect()
    }

    fn bits_i(v: [i32; 8]) -> Vec<u32> {
        v.iter().map(|&x| x as u32).collect()
    }
    fn bits_f(v: [f32; 8]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// The lanes of `v` as little-endian bytes.
    fn bytes_of(v: [i32; 8]) -> [u8; 32] {
        std::array::from_fn(|i| v[i / 4].to_le_bytes()[i % 4])
    }

    /// Every i32 operation on `a`, `b`, one after the other.
    struct IntOps([i32; 8], [i32; 8]);
    impl Probe for IntOps {
        fn at<S: Simd>(&self, s: S) -> Vec<u32> {
            let (a, b) = (s.i32x8(self.0), s.i32x8(self.1));
            let mut out = Vec::new();
            for v in [
                a + b,
                a - b,
                a & b,
                a | b,
                a ^ b,
                a.mul(b),
                s.load_i32(&bytes_of(self.1)),
                a.shl::<3>(),
                a.shr::<16>(),
                a.shr_logical::<16>(),
                a.min(b),
                a.max(b),
                S::I32x8::select(a.simd_gt(b), a, b),
                S::I32x8::select(a.simd_eq(b) | !a.simd_gt(b), b, a),
                S::I32x8::pack_u8_sat([a, b, a.shr::<8>(), b.shr::<20>()]),
                s.repeat4_i32([self.0[0], self.0[1], self.0[2], self.0[3]]),
                s.splat_i32(self.1[7]),
            ] {
                out.extend(bits_i(v.to_array()));
            }
            let mut bytes = [0x5Au8; 32];
            a.store(&mut bytes);
            out.extend(bytes.iter().map(|&x| u32::from(x)));
            for n in [0, 3, 13, 31, 40] {
                let mut tail = vec![0xA5u8; n];
                b.store_prefix(&mut tail);
                out.extend(tail.iter().map(|&x| u32::from(x)));
            }
            out.push(a.simd_gt(b).bitmask());
            out.push((a.simd_eq(b) & !a.simd_gt(b)).bitmask());
            out.extend(bits_f(a.to_f32().to_array()));
            out
        }
    }

    /// Every f32 operation on `a`, `b`.
    struct FloatOps([f32; 8], [f32; 8]);
    impl Probe for FloatOps {
        fn at<S: Simd>(&self, s: S) -> Vec<u32> {
            let (a, b) = (s.f32x8(self.0), s.f32x8(self.1));
            let mut out = Vec::new();
            for v in [
                a + b,
                a - b,
                a.mul(b),
                a.min(b),
                a.max(b),
                s.splat_f32(self.1[2]),
            ] {
                out.extend(bits_f(v.to_array()));
            }
            out.extend(bits_i(a.round_i32().to_array()));
            out.extend(bits_i(a.mul(b).round_i32().to_array()));
            out.push(a.simd_lt(b).bitmask());
            out
        }
    }

    fn assert_levels_agree<P: Probe>(p: &P) -> Result<(), TestCaseError> {
        let all = every_level(p);
        for (level, got) in &all[1..] {
            prop_assert_eq!(got, &all[0].1, "{:?} differs from scalar", level);
        }
        Ok(())
    }

    /// f32 values with the interesting cases well represented.
    fn float() -> impl Strategy<Value = f32> {
        prop_oneof![
            any::<f32>(),
            -300.0f32..300.0,
            Just(0.5f32),
            Just(-2.5f32),
            Just(-0.0f32),
            Just(f32::NAN),
            Just(3.0e9f32),
        ]
    }

    proptest! {
        #[test]
        fn int_ops_agree_at_every_level(
            a in proptest::array::uniform8(any::<i32>()),
            b in proptest::array::uniform8(prop_oneof![any::<i32>(), -300i32..300]),
        ) {
            assert_levels_agree(&IntOps(a, b))?;
            assert_levels_agree(&IntOps(a, a))?;
        }

        #[test]
        fn float_ops_agree_at_every_level(
            a in proptest::array::uniform8(float()),
            b in proptest::array::uniform8(float()),
        ) {
            assert_levels_agree(&FloatOps(a, b))?;
        }
    }

    #[test]
    fn pack_takes_one_pixel_per_half_of_each_input() {
        // Input k holds pixel k (lanes 0..4) and pixel k+4 (lanes 4..8),
        // channel c of pixel p being 16·p + c; pixel 7's red (lane 6 of
        // input 3) is 300 and pixel 1's blue (lane 0 of input 1) is −5,
        // which clamp to 255 and 0. The packed lanes are pixels 0..8,
        // bytes in channel order.
        let s = Scalar;
        let v: [_; 4] = std::array::from_fn(|k| {
            let mut l: [i32; 8] =
                std::array::from_fn(|i| 16 * (k as i32 + 4 * (i as i32 / 4)) + i as i32 % 4);
            if k == 3 {
                l[6] = 300;
            }
            if k == 1 {
                l[0] = -5;
            }
            s.i32x8(l)
        });
        let got = <Scalar as Simd>::I32x8::pack_u8_sat(v).to_array();
        let want: [u32; 8] = [
            0x0302_0100,
            0x1312_1100, // blue −5 → 0
            0x2322_2120,
            0x3332_3130,
            0x4342_4140,
            0x5352_5150,
            0x6362_6160,
            0x73FF_7170, // red 300 → 255
        ];
        assert_eq!(got.map(|x| x as u32), want);
    }

    #[test]
    fn store_prefix_writes_whole_lanes_only() {
        // 13 bytes hold 3 whole lanes (12 bytes); byte 12 keeps its value.
        let v = Scalar.i32x8([0x0403_0201, 0x0807_0605, 0x0C0B_0A09, -1, -1, -1, -1, -1]);
        let mut dst = [0xEEu8; 13];
        v.store_prefix(&mut dst);
        assert_eq!(dst, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0xEE]);
    }

    #[test]
    fn mul_keeps_the_low_32_bits_and_load_reads_little_endian() {
        // 0x1_0001 · 0x1_0001 = 0x1_0002_0001 → 0x0002_0001; −3 · 7 = −21;
        // i32::MIN · −1 = 2^31 → i32::MIN (wrapped).
        let a = Scalar.i32x8([0x1_0001, -3, i32::MIN, 0, 1, 2, 3, 4]);
        let b = Scalar.i32x8([0x1_0001, 7, -1, 9, 1, 2, 3, 4]);
        assert_eq!(
            a.mul(b).to_array(),
            [0x0002_0001, -21, i32::MIN, 0, 1, 4, 9, 16]
        );
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&[1, 2, 3, 4, 0xFF, 0xFF, 0xFF, 0xFF]);
        let v = Scalar.load_i32(&bytes).to_array();
        assert_eq!(&v[..3], &[0x0403_0201, -1, 0]);
    }

    #[test]
    fn round_is_ties_to_even_with_integer_indefinite() {
        // 0.5 → 0, 1.5 → 2, −2.5 → −2 (ties to even); NaN and 3e9 (above
        // i32::MAX) give i32::MIN as cvtps2dq does.
        let v = Scalar.f32x8([0.5, 1.5, -2.5, 2.6, f32::NAN, 3.0e9, -3.0e9, -0.4]);
        assert_eq!(
            v.round_i32().to_array(),
            [0, 2, -2, 3, i32::MIN, i32::MIN, i32::MIN, 0]
        );
    }

    #[test]
    fn float_min_max_return_the_second_operand_on_nan() {
        // minps/maxps: `a < b ? a : b`; a comparison with NaN is false.
        let (a, b) = (Scalar.splat_f32(f32::NAN), Scalar.splat_f32(1.0));
        assert_eq!(a.min(b).to_array(), [1.0; 8]);
        assert!(b.max(a).to_array()[0].is_nan());
    }

    /// Every f64 operation on `a`, `b` (each lane as its two 32-bit
    /// halves).
    struct F64Ops([f32; 4], [f32; 4], f64);
    impl Probe for F64Ops {
        fn at<S: Simd>(&self, s: S) -> Vec<u32> {
            let (a, b) = (s.f64x4_from_f32(&self.0), s.f64x4_from_f32(&self.1));
            let k = s.splat_f64(self.2);
            let mut out = Vec::new();
            for v in [a + b, a - b, a.mul(k), a.mul(b).abs(), k, (a - k).abs()] {
                for x in v.to_array() {
                    let x = x.to_bits();
                    out.extend([x as u32, (x >> 32) as u32]);
                }
            }
            for v in [a, a.mul(k), b.mul(k) + k] {
                out.extend(v.round_i64_low32().map(|x| x as u32));
            }
            out.push(a.lt_bitmask(b));
            out.push(a.abs().lt_bitmask(k));
            out
        }
    }

    /// f64 scales with the planes' cases: 16.16 (65536), huge, NaN.
    fn scale() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<f64>(),
            -1e6f64..1e6,
            Just(65536.0f64),
            Just(-0.5f64),
            Just(f64::NAN),
            Just(3.0e15f64),
        ]
    }

    proptest! {
        #[test]
        fn f64_ops_agree_at_every_level(
            a in proptest::array::uniform4(float()),
            b in proptest::array::uniform4(float()),
            k in scale(),
        ) {
            assert_levels_agree(&F64Ops(a, b, k))?;
        }
    }

    #[test]
    fn round_i64_low32_is_ties_to_even_and_wraps_to_the_low_bits() {
        // 2.5 → 2 and −3.5 → −4 (ties to even); 2^32 + 7.25 → 2^32 + 7,
        // whose low 32 bits are 7; −1 → 0xFFFF_FFFF.
        let v = Scalar.f64x4_from_f32(&[2.5, -3.5, 4_294_967_296.0, -1.0]);
        let v = v + Scalar.f64x4_from_f32(&[0.0, 0.0, 7.25, 0.0]);
        assert_eq!(v.round_i64_low32(), [2, -4, 7, -1]);
        // Bit i of lt_bitmask is lane i: 1 < 2 and −0.5 < 0.5; NaN
        // compares false, 3 is not below 3; abs(−0.5) is 0.5, not below
        // 0.5.
        let a = Scalar.f64x4_from_f32(&[1.0, f32::NAN, -0.5, 3.0]);
        let b = Scalar.f64x4_from_f32(&[2.0, 2.0, 0.5, 3.0]);
        assert_eq!(a.lt_bitmask(b), 0b0101);
        assert_eq!(a.abs().lt_bitmask(b), 0b0001);
    }

    /// Every u16 operation on `a`, `b`.
    struct U16Ops([i32; 8], [i32; 8]);
    impl Probe for U16Ops {
        fn at<S: Simd>(&self, s: S) -> Vec<u32> {
            let (a, b) = (s.i32x8(self.0), s.i32x8(self.1));
            let mut out = Vec::new();
            for v in [
                a.widen_lo_u8_u16(),
                a.widen_hi_u8_u16(),
                S::I32x8::pack_i16_u8_sat(a, b),
                S::I32x8::pack_i16_u8_sat(a.widen_lo_u8_u16(), a.widen_hi_u8_u16()),
                a.mul_lo_u16(b),
                a.mul_hi_u16(b),
                a.add_sat_u16(b),
                a.shr_u16::<7>(),
                a.shr_u16::<15>(),
                a.splat_alpha_u16(),
            ] {
                out.extend(bits_i(v.to_array()));
            }
            let bytes = bytes_of(self.1);
            for n in [0, 3, 4, 13, 31, 32] {
                out.extend(bits_i(s.load_i32_prefix(&bytes[..n]).to_array()));
            }
            out
        }
    }

    proptest! {
        #[test]
        fn u16_ops_agree_at_every_level(
            a in proptest::array::uniform8(any::<i32>()),
            b in proptest::array::uniform8(prop_oneof![any::<i32>(), 0i32..0x100_0100]),
        ) {
            assert_levels_agree(&U16Ops(a, b))?;
        }
    }

    #[test]
    fn u16_lanes_by_hand() {
        // Bytes 0..8 of the first half (lanes 0, 1) widen to its eight
        // u16 lanes, bytes 8..16 (lanes 2, 3) under `hi`; the second half
        // (lanes 4..8) likewise; packing the two undoes it.
        let v = Scalar.i32x8([
            0x8403_0201u32 as i32,
            0x0807_0605,
            0x0C0B_0A09,
            0x100F_0E0D,
            5,
            6,
            7,
            8,
        ]);
        let lo = v.widen_lo_u8_u16();
        let hi = v.widen_hi_u8_u16();
        assert_eq!(
            lo.to_array(),
            [
                0x0002_0001,
                0x0084_0003,
                0x0006_0005,
                0x0008_0007,
                5,
                0,
                6,
                0
            ]
        );
        assert_eq!(&hi.to_array()[..2], &[0x000A_0009, 0x000C_000B]);
        assert_eq!(<Scalar as Simd>::I32x8::pack_i16_u8_sat(lo, hi), v);
        // Packing reads i16: 0x0100 (256) → 255, 0xFFFF (−1) → 0, 0x8000
        // (−32768) → 0, 0x00FF → 255.
        let w = Scalar.i32x8([0xFFFF_0100u32 as i32, 0x00FF_8000, 0, 0, 0, 0, 0, 0]);
        let p = <Scalar as Simd>::I32x8::pack_i16_u8_sat(w, w).to_array();
        assert_eq!(p[0], 0xFF00_00FFu32 as i32);
        // 0xFFFF · 0xFFFF = 0xFFFE_0001: low 0x0001, high 0xFFFE; 0xFF00 ·
        // 0x0200 = 0x01FE_0000: low 0, high 0x01FE; 0xFF00 + 0x0200 (and
        // 0xFFFF + 0xFFFF) saturate to 0xFFFF; 0x8081 >> 7 = 0x0101; the
        // alpha of pixel 0 (u16 lane 3) fills u16 lanes 0..4.
        let x = Scalar.i32x8([0xFF00_FFFFu32 as i32, 0x1234_0000, 0, 0, 0, 0, 0, 0]);
        let y = Scalar.i32x8([0x0200_FFFF, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(x.mul_lo_u16(y).to_array()[0], 0x0000_0001);
        assert_eq!(x.mul_hi_u16(y).to_array()[0], 0x01FE_FFFE);
        assert_eq!(x.add_sat_u16(y).to_array()[0], -1);
        assert_eq!(
            Scalar.splat_i32(0x8081).shr_u16::<7>().to_array()[0],
            0x0101
        );
        assert_eq!(
            x.splat_alpha_u16().to_array()[..2],
            [0x1234_1234, 0x1234_1234]
        );
        // 13 bytes hold 3 whole lanes; byte 12 is not read.
        let src = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0xEE];
        assert_eq!(
            Scalar.load_i32_prefix(&src).to_array(),
            [0x0403_0201, 0x0807_0605, 0x0C0B_0A09, 0, 0, 0, 0, 0]
        );
    }

    /// Every operation of the bilinear filter on `a`, `b`, `c` (i32),
    /// `x`, `y` (f32), and gathers from `data` at `a` and `c`.
    struct FilterOps([i32; 8], [i32; 8], [i32; 8], [f32; 8], [f32; 8], Vec<u8>);
    impl Probe for FilterOps {
        fn at<S: Simd>(&self, s: S) -> Vec<u32> {
            let (a, b, c) = (s.i32x8(self.0), s.i32x8(self.1), s.i32x8(self.2));
            let (x, y) = (s.f32x8(self.3), s.f32x8(self.4));
            let mut out = Vec::new();
            for v in [
                a.add_u16(b),
                a.sub_u16(b),
                a.shl_u16::<8>(),
                a.shl_u16::<15>(),
                a.clamp_i16(b, c),
                S::I32x8::pack_i32_i16_sat(a, b.shr::<12>()),
                a.spread_lo_u16(),
                a.spread_hi_u16(),
                a.zip_lo_i64(b),
                a.zip_hi_i64(b),
                s.gather_u32(&self.5, a),
                s.gather_u32(&self.5, c),
                x.trunc_i32(),
                x.mul(y).floor().trunc_i32(),
                x.to_bits(),
            ] {
                out.extend(bits_i(v.to_array()));
            }
            // NaN payloads are not specified: every NaN compares as one.
            let canon = |v: [f32; 8]| v.map(|f| if f.is_nan() { f32::NAN } else { f });
            for v in [
                x.div(y),
                x.floor(),
                x.nan_to_zero(),
                (x - x.floor()).nan_to_zero(),
            ] {
                out.extend(bits_f(canon(v.to_array())));
            }
            out
        }
    }

    proptest! {
        #[test]
        fn filter_ops_agree_at_every_level(
            a in proptest::array::uniform8(prop_oneof![any::<i32>(), -2i32..12]),
            b in proptest::array::uniform8(prop_oneof![any::<i32>(), 0i32..0x00FF_00FF]),
            c in proptest::array::uniform8(prop_oneof![any::<i32>(), 0i32..12]),
            x in proptest::array::uniform8(float()),
            y in proptest::array::uniform8(float()),
            data in proptest::collection::vec(any::<u8>(), 0..44),
        ) {
            assert_levels_agree(&FilterOps(a, b, c, x, y, data))?;
        }
    }

    #[test]
    fn filter_ops_by_hand() {
        let s = Scalar;
        type V = <Scalar as Simd>::I32x8;
        // u16 lanes wrap: 0x0001 − 0x0002 = 0xFFFF, 0xFFFF + 0x0002 =
        // 0x0001; 0x0181 << 8 = 0x8100.
        let a = s.i32x8([0xFFFF_0001u32 as i32, 0x0181, 0, 0, 0, 0, 0, 0]);
        let b = s.i32x8([0x0002_0002, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(a.sub_u16(b).to_array()[0], 0xFFFD_FFFFu32 as i32);
        assert_eq!(a.add_u16(b).to_array()[0], 0x0001_0003);
        assert_eq!(a.shl_u16::<8>().to_array()[1], 0x8100);
        // As i16, 0xFFFF is −1 (below 0) and 0x0181 is 385 (above 255).
        let (zero, c255) = (s.splat_i32(0), s.splat_i32(0x00FF_00FF));
        assert_eq!(a.clamp_i16(zero, c255).to_array()[..2], [1, 0xFF]);
        // i32 → i16 saturating, a's half then b's: 40000 → 32767, −40000
        // → −32768.
        let p = V::pack_i32_i16_sat(s.i32x8([40000, -40000, 5, -5, 0, 0, 0, 0]), zero);
        assert_eq!(
            p.to_array()[..4],
            [0x8000_7FFFu32 as i32, 0xFFFB_0005u32 as i32, 0, 0]
        );
        // Per pixel values 10..18 (high halves ignored): the low spread is
        // pixels 0, 1 | 4, 5 over four u16 lanes each, the high one 2, 3
        // | 6, 7.
        let f = s.i32x8([10, 11, 12, 13, 14, 0x7_000F, 16, 17]);
        assert_eq!(
            f.spread_lo_u16().to_array(),
            [0xA_000A, 0xA_000A, 0xB_000B, 0xB_000B, 0xE_000E, 0xE_000E, 0xF_000F, 0xF_000F]
        );
        assert_eq!(f.spread_hi_u16().to_array()[0], 0xC_000C);
        assert_eq!(f.spread_hi_u16().to_array()[7], 0x11_0011);
        // 64-bit interleaves within each half.
        let g = s.i32x8([20, 21, 22, 23, 24, 25, 26, 27]);
        assert_eq!(
            f.zip_lo_i64(g).to_array(),
            [10, 11, 20, 21, 14, 0x7_000F, 24, 25]
        );
        assert_eq!(f.zip_hi_i64(g).to_array(), [12, 13, 22, 23, 16, 17, 26, 27]);
        // Ten bytes hold two whole u32s: index 2, −1 and i32::MAX read the
        // last (index 1); no whole u32 reads 0.
        let data = [1, 0, 0, 0, 0x78, 0x56, 0x34, 0x12, 9, 9];
        let idx = s.i32x8([1, 0, 2, -1, 1, 1, 0, i32::MAX]);
        let last = 0x1234_5678;
        assert_eq!(
            s.gather_u32(&data, idx).to_array(),
            [last, 1, last, last, last, last, 1, last]
        );
        assert_eq!(s.gather_u32(&data[..3], idx).to_array(), [0; 8]);
        // floor: −0.5 → −1, −0.0 stays −0.0, 2.5 → 2; trunc: −2.7 → −2,
        // 3e9 and NaN → i32::MIN; NaN → +0.0; 7 / 2 = 3.5.
        let v = s.f32x8([-0.5, -0.0, 2.5, -2.7, 3.0e9, f32::NAN, 7.0, 0.75]);
        let fl = v.floor().to_array();
        assert_eq!(fl[0], -1.0);
        assert_eq!(fl[1].to_bits(), (-0.0f32).to_bits());
        assert_eq!(fl[2], 2.0);
        assert_eq!(v.trunc_i32().to_array()[3..6], [-2, i32::MIN, i32::MIN]);
        assert_eq!(v.nan_to_zero().to_array()[5].to_bits(), 0);
        // to_bits: −0.5 is 0xBF00_0000, −0.0 is the sign bit alone.
        assert_eq!(
            v.to_bits().to_array()[..2],
            [0xBF00_0000u32 as i32, i32::MIN]
        );
        assert_eq!(v.div(s.splat_f32(2.0)).to_array()[6], 3.5);
    }

    /// Every operation of the output merger on `a`, `b`.
    struct MergeOps([i32; 8], [i32; 8]);
    impl Probe for MergeOps {
        fn at<S: Simd>(&self, s: S) -> Vec<u32> {
            let (a, b) = (s.i32x8(self.0), s.i32x8(self.1));
            let mut out = Vec::new();
            let half: [u8; 16] = std::array::from_fn(|i| bytes_of(self.0)[i]);
            for v in [
                a.sub_sat_u16(b),
                b.sub_sat_u16(a),
                a.add_sat_u8(b),
                a.min_u8(b),
                a.max_u8(b),
                s.load_u16x8(&half),
            ] {
                out.extend(bits_i(v.to_array()));
            }
            let mut dst = [0x5Au8; 16];
            b.store_u16x8(&mut dst);
            out.extend(dst.iter().map(|&x| u32::from(x)));
            out
        }
    }

    proptest! {
        #[test]
        fn merge_ops_agree_at_every_level(
            a in proptest::array::uniform8(any::<i32>()),
            b in proptest::array::uniform8(prop_oneof![any::<i32>(), 0i32..0x1_0000]),
        ) {
            assert_levels_agree(&MergeOps(a, b))?;
        }
    }

    #[test]
    fn merge_ops_by_hand() {
        let s = Scalar;
        // u16 lanes: 0x0005 − 0x0007 saturates to 0, 0x9000 − 0x1000 =
        // 0x8000; bytes: 0xF0 + 0x20 saturates to 0xFF, 0x01 + 0x02 = 3;
        // unsigned byte min/max of 0x80 and 0x7F are 0x7F and 0x80.
        let a = s.i32x8([0x9000_0005u32 as i32, 0x0000_01F0, 0x80, 0, 0, 0, 0, 0]);
        let b = s.i32x8([0x1000_0007, 0x0000_0220, 0x7F, 0, 0, 0, 0, 0]);
        assert_eq!(a.sub_sat_u16(b).to_array()[0], 0x8000_0000u32 as i32);
        assert_eq!(a.add_sat_u8(b).to_array()[1], 0x0000_03FF);
        assert_eq!(a.min_u8(b).to_array()[2], 0x7F);
        assert_eq!(a.max_u8(b).to_array()[2], 0x80);
        // u16 rows: bytes (0x34, 0x12) are lane 0 = 0x1234; storing keeps
        // the low 16 bits of each lane (0x0001_ABCD → 0xABCD).
        let mut row = [0u8; 16];
        row[..4].copy_from_slice(&[0x34, 0x12, 0xFF, 0xFF]);
        let v = s.load_u16x8(&row);
        assert_eq!(v.to_array()[..3], [0x1234, 0xFFFF, 0]);
        let mut out = [0u8; 16];
        s.i32x8([0x0001_ABCD, 2, 0, 0, 0, 0, 0, -1])
            .store_u16x8(&mut out);
        assert_eq!(out[..4], [0xCD, 0xAB, 2, 0]);
        assert_eq!(out[14..], [0xFF, 0xFF]);
    }
}
