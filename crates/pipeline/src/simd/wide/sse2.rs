//! The SSE2 level: two 128-bit registers per vector (lanes 0..4, 4..8).
//!
//! SSE2 is part of the x86_64 baseline, but the level is still entered
//! through its marker, [`Sse2`], made only by [`Sse2::new`] after the
//! CPU reported SSE2; every value of this file's types is made from the
//! marker or from other values, so it proves SSE2 (the SAFETY argument of
//! the register-only blocks, stated once in the `reg!` macro). Memory
//! accesses state their bounds block by block.
use super::{Kernel, Simd};
use std::arch::x86_64::*;
use std::ops::{Add, BitAnd, BitOr, BitXor, Not, Sub};

/// Runs register-only SSE2 intrinsics.
macro_rules! reg {
    ($e:expr) => {
        // SAFETY: the operands are values of this file's types, which
        // exist only after `Sse2::new` saw SSE2 (see the module doc); the
        // intrinsics read and write registers only.
        unsafe { $e }
    };
}

/// Proof that the CPU has SSE2.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sse2(());

impl Sse2 {
    /// The marker, if this CPU has SSE2 (every x86_64 CPU does).
    #[inline(always)]
    pub(crate) fn new() -> Option<Self> {
        is_x86_feature_detected!("sse2").then_some(Sse2(()))
    }
}

/// [`super::prefetch`] on x86-64: `prefetcht0` of every 64-byte line of
/// `v` (an object not aligned to 64 bytes may touch one line more than
/// its size in lines: its last byte is prefetched too).
#[inline(always)]
pub(super) fn prefetch<T>(v: &T) {
    let p = (v as *const T).cast::<i8>();
    let size = std::mem::size_of::<T>();
    let mut off = 0;
    while off < size {
        // SAFETY: a prefetch is a hint: it cannot fault or modify memory,
        // and `p + off` stays inside the object `v`. SSE (which provides
        // it) is part of the x86_64 baseline.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(off)) };
        off += 64;
    }
    if size > 64 && !size.is_multiple_of(64) {
        // SAFETY: as above; `p + size − 1` is the last byte of `v`.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(size - 1)) };
    }
}

/// [`super::pack_pixel_u8_sat`] on x86-64.
#[inline(always)]
pub(super) fn pack_pixel_u8_sat(v: &[i32; 4]) -> u32 {
    // SAFETY: SSE2 is part of the x86-64 baseline, so these register-only
    // intrinsics are available on every CPU this code runs on; none of
    // them reads or writes memory.
    let packed = unsafe {
        let x = _mm_srai_epi32::<16>(_mm_set_epi32(v[3], v[2], v[1], v[0]));
        let w = _mm_packs_epi32(x, x);
        _mm_cvtsi128_si32(_mm_packus_epi16(w, w))
    };
    packed as u32
}

/// Eight i32 lanes: lanes 0..4 in `.0[0]`, 4..8 in `.0[1]`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct I32x8([__m128i; 2]);

/// Eight f32 lanes, halves as in [`I32x8`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct F32x8([__m128; 2]);

/// Eight lane masks (each lane all ones or all zeros), halves as in
/// [`I32x8`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct M32x8([__m128i; 2]);

/// `k` compiled with SSE2 enabled.
#[target_feature(enable = "sse2")]
fn with_sse2<K: Kernel>(s: Sse2, k: K) -> K::Output {
    k.run(s)
}

/// `f` on each half.
#[inline(always)]
fn halves<T: Copy, U>(a: [T; 2], b: [T; 2], f: impl Fn(T, T) -> U) -> [U; 2] {
    [f(a[0], b[0]), f(a[1], b[1])]
}

impl Simd for Sse2 {
    type I32x8 = I32x8;
    type F32x8 = F32x8;
    type M32x8 = M32x8;

    #[inline(always)]
    fn vectorize<K: Kernel>(self, k: K) -> K::Output {
        // SAFETY: `self` exists only if the CPU has SSE2, the feature
        // `with_sse2` enables.
        unsafe { with_sse2(self, k) }
    }
    #[inline(always)]
    fn splat_i32(self, v: i32) -> I32x8 {
        let h = reg!(_mm_set1_epi32(v));
        I32x8([h, h])
    }
    #[inline(always)]
    fn i32x8(self, v: [i32; 8]) -> I32x8 {
        // SAFETY: SSE2 is proven by `self`; `v` is 32 readable bytes, each
        // load reads 16 of them, and loadu has no alignment requirement.
        I32x8(unsafe {
            [
                _mm_loadu_si128(v.as_ptr().cast()),
                _mm_loadu_si128(v.as_ptr().add(4).cast()),
            ]
        })
    }
    #[inline(always)]
    fn load_i32(self, src: &[u8; 32]) -> I32x8 {
        // SAFETY: SSE2 is proven by `self`; `src` is exactly 32 readable
        // bytes, each load reads 16 of them (at 0 and 16), and loadu has
        // no alignment requirement.
        I32x8(unsafe {
            [
                _mm_loadu_si128(src.as_ptr().cast()),
                _mm_loadu_si128(src.as_ptr().add(16).cast()),
            ]
        })
    }
    #[inline(always)]
    fn repeat4_i32(self, v: [i32; 4]) -> I32x8 {
        // SAFETY: SSE2 is proven by `self`; `v` is 16 readable bytes and
        // loadu has no alignment requirement.
        let h = unsafe { _mm_loadu_si128(v.as_ptr().cast()) };
        I32x8([h, h])
    }
    #[inline(always)]
    fn splat_f32(self, v: f32) -> F32x8 {
        let h = reg!(_mm_set1_ps(v));
        F32x8([h, h])
    }
    #[inline(always)]
    fn f32x8(self, v: [f32; 8]) -> F32x8 {
        // SAFETY: SSE2 is proven by `self`; `v` is 32 readable bytes, each
        // load reads 16 of them, and loadu has no alignment requirement.
        F32x8(unsafe { [_mm_loadu_ps(v.as_ptr()), _mm_loadu_ps(v.as_ptr().add(4))] })
    }

    type F64x4 = F64x4;
    #[inline(always)]
    fn splat_f64(self, v: f64) -> F64x4 {
        let h = reg!(_mm_set1_pd(v));
        F64x4([h, h])
    }
    #[inline(always)]
    fn f64x4_from_f32(self, v: &[f32; 4]) -> F64x4 {
        // SAFETY: SSE2 is proven by `self`; `v` is 16 readable bytes and
        // loadu has no alignment requirement.
        let x = unsafe { _mm_loadu_ps(v.as_ptr()) };
        F64x4(reg!([_mm_cvtps_pd(x), _mm_cvtps_pd(_mm_movehl_ps(x, x))]))
    }

    #[inline(always)]
    fn load_i32_prefix(self, src: &[u8]) -> I32x8 {
        // SSE2 has no masked load: read whole lanes into a copy.
        let mut all = [0u8; 32];
        let n = (src.len() / 4).min(8) * 4;
        all[..n].copy_from_slice(&src[..n]);
        self.load_i32(&all)
    }

    #[inline(always)]
    fn gather_u32(self, data: &[u8], idx: I32x8) -> I32x8 {
        // SSE2 has no gather: lane by lane, as the scalar level.
        let n = (data.len() / 4).min(1 << 31);
        let idx = super::I32x8::to_array(idx);
        self.i32x8(std::array::from_fn(|l| {
            let Some(last) = n.checked_sub(1) else {
                return 0;
            };
            let at = 4 * (idx[l] as u32 as usize).min(last);
            i32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]])
        }))
    }
    #[inline(always)]
    fn load_u16x8(self, src: &[u8; 16]) -> I32x8 {
        // SAFETY: SSE2 is proven by `self`; `src` is exactly 16 readable
        // bytes and loadu has no alignment requirement.
        let x = unsafe { _mm_loadu_si128(src.as_ptr().cast()) };
        I32x8(reg!([
            _mm_unpacklo_epi16(x, _mm_setzero_si128()),
            _mm_unpackhi_epi16(x, _mm_setzero_si128())
        ]))
    }
}

impl Add for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_add_epi32(a, b))))
    }
}
impl Sub for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_sub_epi32(a, b))))
    }
}
impl BitAnd for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn bitand(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_and_si128(a, b))))
    }
}
impl BitOr for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn bitor(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_or_si128(a, b))))
    }
}
impl BitXor for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn bitxor(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_xor_si128(a, b))))
    }
}

/// `m ? a : b` per bit.
#[inline(always)]
fn blend(m: __m128i, a: __m128i, b: __m128i) -> __m128i {
    reg!(_mm_or_si128(_mm_and_si128(m, a), _mm_andnot_si128(m, b)))
}

impl super::I32x8 for I32x8 {
    type Mask = M32x8;
    type F32 = F32x8;

    #[inline(always)]
    fn shl<const N: i32>(self) -> Self {
        const { assert!(N >= 0 && N < 32) };
        Self(self.0.map(|a| reg!(_mm_slli_epi32::<N>(a))))
    }
    #[inline(always)]
    fn shr<const N: i32>(self) -> Self {
        const { assert!(N >= 0 && N < 32) };
        Self(self.0.map(|a| reg!(_mm_srai_epi32::<N>(a))))
    }
    #[inline(always)]
    fn shr_logical<const N: i32>(self) -> Self {
        const { assert!(N >= 0 && N < 32) };
        Self(self.0.map(|a| reg!(_mm_srli_epi32::<N>(a))))
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        // SSE2 has no pmulld: the even lanes' and the odd lanes' 64-bit
        // products (pmuludq; their low 32 bits do not depend on
        // signedness), their low halves gathered back in lane order.
        Self(halves(self.0, o.0, |a, b| {
            reg!({
                let even = _mm_mul_epu32(a, b);
                let odd = _mm_mul_epu32(_mm_srli_epi64::<32>(a), _mm_srli_epi64::<32>(b));
                _mm_unpacklo_epi32(
                    _mm_shuffle_epi32::<0b00_00_10_00>(even),
                    _mm_shuffle_epi32::<0b00_00_10_00>(odd),
                )
            })
        }))
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // SSE2 has no pminsd: select by a compare.
        Self(halves(self.0, o.0, |a, b| {
            blend(reg!(_mm_cmplt_epi32(a, b)), a, b)
        }))
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| {
            blend(reg!(_mm_cmpgt_epi32(a, b)), a, b)
        }))
    }
    #[inline(always)]
    fn simd_eq(self, o: Self) -> M32x8 {
        M32x8(halves(self.0, o.0, |a, b| reg!(_mm_cmpeq_epi32(a, b))))
    }
    #[inline(always)]
    fn simd_gt(self, o: Self) -> M32x8 {
        M32x8(halves(self.0, o.0, |a, b| reg!(_mm_cmpgt_epi32(a, b))))
    }
    #[inline(always)]
    fn select(m: M32x8, a: Self, b: Self) -> Self {
        Self([blend(m.0[0], a.0[0], b.0[0]), blend(m.0[1], a.0[1], b.0[1])])
    }
    #[inline(always)]
    fn to_f32(self) -> F32x8 {
        F32x8(self.0.map(|a| reg!(_mm_cvtepi32_ps(a))))
    }
    #[inline(always)]
    fn pack_u8_sat(v: [Self; 4]) -> Self {
        // Saturating i32 → i16 then i16 → u8 is the clamp to 0..=255; half
        // h of the result packs half h of each input.
        Self(std::array::from_fn(|h| {
            reg!({
                let a = _mm_packs_epi32(v[0].0[h], v[1].0[h]);
                let b = _mm_packs_epi32(v[2].0[h], v[3].0[h]);
                _mm_packus_epi16(a, b)
            })
        }))
    }
    #[inline(always)]
    fn to_array(self) -> [i32; 8] {
        let mut out = [0u8; 32];
        self.store(&mut out);
        std::array::from_fn(|i| {
            i32::from_le_bytes([out[4 * i], out[4 * i + 1], out[4 * i + 2], out[4 * i + 3]])
        })
    }
    #[inline(always)]
    fn store(self, dst: &mut [u8; 32]) {
        // SAFETY: SSE2 is proven by `self`; `dst` is exactly 32 writable
        // bytes, each store writes 16 of them (at 0 and 16), and storeu has
        // no alignment requirement.
        unsafe {
            _mm_storeu_si128(dst.as_mut_ptr().cast(), self.0[0]);
            _mm_storeu_si128(dst.as_mut_ptr().add(16).cast(), self.0[1]);
        }
    }
    #[inline(always)]
    fn store_prefix(self, dst: &mut [u8]) {
        // SSE2 has no masked store: write whole lanes from a copy.
        let mut all = [0u8; 32];
        self.store(&mut all);
        let n = (dst.len() / 4).min(8) * 4;
        dst[..n].copy_from_slice(&all[..n]);
    }

    #[inline(always)]
    fn widen_lo_u8_u16(self) -> Self {
        Self(
            self.0
                .map(|a| reg!(_mm_unpacklo_epi8(a, _mm_setzero_si128()))),
        )
    }
    #[inline(always)]
    fn widen_hi_u8_u16(self) -> Self {
        Self(
            self.0
                .map(|a| reg!(_mm_unpackhi_epi8(a, _mm_setzero_si128()))),
        )
    }
    #[inline(always)]
    fn pack_i16_u8_sat(lo: Self, hi: Self) -> Self {
        Self(halves(lo.0, hi.0, |a, b| reg!(_mm_packus_epi16(a, b))))
    }
    #[inline(always)]
    fn mul_lo_u16(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_mullo_epi16(a, b))))
    }
    #[inline(always)]
    fn mul_hi_u16(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_mulhi_epu16(a, b))))
    }
    #[inline(always)]
    fn add_sat_u16(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_adds_epu16(a, b))))
    }
    #[inline(always)]
    fn shr_u16<const N: i32>(self) -> Self {
        const { assert!(N >= 0 && N < 16) };
        Self(self.0.map(|a| reg!(_mm_srli_epi16::<N>(a))))
    }
    #[inline(always)]
    fn splat_alpha_u16(self) -> Self {
        Self(
            self.0
                .map(|a| reg!(_mm_shufflehi_epi16::<0xFF>(_mm_shufflelo_epi16::<0xFF>(a)))),
        )
    }

    #[inline(always)]
    fn add_u16(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_add_epi16(a, b))))
    }
    #[inline(always)]
    fn sub_u16(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_sub_epi16(a, b))))
    }
    #[inline(always)]
    fn shl_u16<const N: i32>(self) -> Self {
        const { assert!(N >= 0 && N < 16) };
        Self(self.0.map(|a| reg!(_mm_slli_epi16::<N>(a))))
    }
    #[inline(always)]
    fn clamp_i16(self, lo: Self, hi: Self) -> Self {
        let m = halves(self.0, lo.0, |a, b| reg!(_mm_max_epi16(a, b)));
        Self(halves(m, hi.0, |a, b| reg!(_mm_min_epi16(a, b))))
    }
    #[inline(always)]
    fn pack_i32_i16_sat(a: Self, b: Self) -> Self {
        Self(halves(a.0, b.0, |x, y| reg!(_mm_packs_epi32(x, y))))
    }
    #[inline(always)]
    fn spread_lo_u16(self) -> Self {
        // i32 lanes (0, 1) of each half → u16 lanes 0 ×4, then 2 ×4.
        Self(self.0.map(|a| {
            reg!(_mm_shufflehi_epi16::<0>(_mm_shufflelo_epi16::<0>(
                _mm_shuffle_epi32::<0b01_01_00_00>(a)
            )))
        }))
    }
    #[inline(always)]
    fn spread_hi_u16(self) -> Self {
        Self(self.0.map(|a| {
            reg!(_mm_shufflehi_epi16::<0>(_mm_shufflelo_epi16::<0>(
                _mm_shuffle_epi32::<0b11_11_10_10>(a)
            )))
        }))
    }
    #[inline(always)]
    fn zip_lo_i64(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_unpacklo_epi64(a, b))))
    }
    #[inline(always)]
    fn zip_hi_i64(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_unpackhi_epi64(a, b))))
    }
    #[inline(always)]
    fn store_u16x8(self, dst: &mut [u8; 16]) {
        // The low 16 bits sign-extended (shift up, arithmetic shift
        // down) are in the i16 range, so the saturating pack keeps them.
        let h = self
            .0
            .map(|a| reg!(_mm_srai_epi32::<16>(_mm_slli_epi32::<16>(a))));
        let packed = reg!(_mm_packs_epi32(h[0], h[1]));
        // SAFETY: SSE2 is proven by `self`; `dst` is exactly 16 writable
        // bytes and storeu has no alignment requirement.
        unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), packed) };
    }
    #[inline(always)]
    fn sub_sat_u16(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_subs_epu16(a, b))))
    }
    #[inline(always)]
    fn add_sat_u8(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_adds_epu8(a, b))))
    }
    #[inline(always)]
    fn min_u8(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_min_epu8(a, b))))
    }
    #[inline(always)]
    fn max_u8(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_max_epu8(a, b))))
    }
}

impl Add for F32x8 {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_add_ps(a, b))))
    }
}
impl Sub for F32x8 {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_sub_ps(a, b))))
    }
}

impl super::F32x8 for F32x8 {
    type Mask = M32x8;
    type I32 = I32x8;

    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_mul_ps(a, b))))
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_min_ps(a, b))))
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_max_ps(a, b))))
    }
    #[inline(always)]
    fn simd_lt(self, o: Self) -> M32x8 {
        M32x8(halves(self.0, o.0, |a, b| {
            reg!(_mm_castps_si128(_mm_cmplt_ps(a, b)))
        }))
    }
    #[inline(always)]
    fn round_i32(self) -> I32x8 {
        // cvtps2dq rounds with MXCSR's mode, round-to-nearest-even unless
        // changed (Rust code never changes it).
        I32x8(self.0.map(|a| reg!(_mm_cvtps_epi32(a))))
    }
    #[inline(always)]
    fn to_array(self) -> [f32; 8] {
        let mut out = [0f32; 8];
        // SAFETY: SSE2 is proven by `self`; `out` is 32 writable bytes,
        // each store writes 16 of them, and storeu has no alignment
        // requirement.
        unsafe {
            _mm_storeu_ps(out.as_mut_ptr(), self.0[0]);
            _mm_storeu_ps(out.as_mut_ptr().add(4), self.0[1]);
        }
        out
    }

    #[inline(always)]
    fn div(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_div_ps(a, b))))
    }
    #[inline(always)]
    fn floor(self) -> Self {
        // SSE2 has no roundps: below 2^23 in magnitude, the truncation,
        // minus one where it lies above the value, with the value's sign
        // (so −0.0 stays −0.0 and −0.5 gives −1.0); larger values,
        // infinities and NaN are already whole and are kept.
        Self(self.0.map(|a| {
            reg!({
                let sign = _mm_and_ps(a, _mm_set1_ps(-0.0));
                let small = _mm_cmplt_ps(_mm_andnot_ps(sign, a), _mm_set1_ps(8_388_608.0));
                let t = _mm_cvtepi32_ps(_mm_cvttps_epi32(a));
                let t = _mm_sub_ps(t, _mm_and_ps(_mm_cmpgt_ps(t, a), _mm_set1_ps(1.0)));
                let t = _mm_or_ps(t, sign);
                _mm_or_ps(_mm_and_ps(small, t), _mm_andnot_ps(small, a))
            })
        }))
    }
    #[inline(always)]
    fn trunc_i32(self) -> I32x8 {
        I32x8(self.0.map(|a| reg!(_mm_cvttps_epi32(a))))
    }
    #[inline(always)]
    fn nan_to_zero(self) -> Self {
        Self(self.0.map(|a| reg!(_mm_and_ps(a, _mm_cmpord_ps(a, a)))))
    }
    #[inline(always)]
    fn to_bits(self) -> I32x8 {
        I32x8(self.0.map(|a| reg!(_mm_castps_si128(a))))
    }
}

impl BitAnd for M32x8 {
    type Output = Self;
    #[inline(always)]
    fn bitand(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_and_si128(a, b))))
    }
}
impl BitOr for M32x8 {
    type Output = Self;
    #[inline(always)]
    fn bitor(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_or_si128(a, b))))
    }
}
impl Not for M32x8 {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        Self(self.0.map(|a| reg!(_mm_xor_si128(a, _mm_set1_epi32(-1)))))
    }
}

impl super::M32x8 for M32x8 {
    #[inline(always)]
    fn bitmask(self) -> u32 {
        let [lo, hi] = self
            .0
            .map(|a| reg!(_mm_movemask_ps(_mm_castsi128_ps(a))) as u32);
        lo | hi << 4
    }
}

/// Four f64 lanes: lanes 0..2 in `.0[0]`, 2..4 in `.0[1]`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct F64x4([__m128d; 2]);

impl Add for F64x4 {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_add_pd(a, b))))
    }
}
impl Sub for F64x4 {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_sub_pd(a, b))))
    }
}

impl super::F64x4 for F64x4 {
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        Self(halves(self.0, o.0, |a, b| reg!(_mm_mul_pd(a, b))))
    }
    #[inline(always)]
    fn abs(self) -> Self {
        let [lo, hi] = self.0;
        let sign = reg!(_mm_set1_pd(-0.0));
        Self(reg!([_mm_andnot_pd(sign, lo), _mm_andnot_pd(sign, hi)]))
    }
    #[inline(always)]
    fn lt_bitmask(self, o: Self) -> u32 {
        let [lo, hi] = halves(self.0, o.0, |a, b| {
            reg!(_mm_movemask_pd(_mm_cmplt_pd(a, b))) as u32
        });
        lo | hi << 2
    }
    #[inline(always)]
    fn round_i64_low32(self) -> [i32; 4] {
        const M: f64 = 6_755_399_441_055_744.0; // 1.5·2^52
        let [lo, hi] = self.0;
        let lo = reg!({
            let m = _mm_set1_pd(M);
            let mb = _mm_set1_epi64x(M.to_bits() as i64);
            let qlo = _mm_sub_epi64(_mm_castpd_si128(_mm_add_pd(lo, m)), mb);
            let qhi = _mm_sub_epi64(_mm_castpd_si128(_mm_add_pd(hi, m)), mb);
            // The low halves of the 64-bit lanes: 0, 1 then 2, 3.
            _mm_unpacklo_epi64(
                _mm_shuffle_epi32::<0b00_00_10_00>(qlo),
                _mm_shuffle_epi32::<0b00_00_10_00>(qhi),
            )
        });
        let mut out = [0i32; 4];
        // SAFETY: SSE2 is proven by `self`; `out` is 16 writable bytes and
        // storeu has no alignment requirement.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), lo) };
        out
    }
    #[inline(always)]
    fn to_array(self) -> [f64; 4] {
        let mut out = [0f64; 4];
        // SAFETY: SSE2 is proven by `self`; `out` is 32 writable bytes,
        // each store writes 16 of them (at 0 and 16), and storeu has no
        // alignment requirement.
        unsafe {
            _mm_storeu_pd(out.as_mut_ptr(), self.0[0]);
            _mm_storeu_pd(out.as_mut_ptr().add(2), self.0[1]);
        }
        out
    }
}
