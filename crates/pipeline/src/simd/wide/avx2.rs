//! The AVX2 level: one 256-bit register per vector.
//!
//! Every type here has a private field, and its values are made only by
//! the methods of an [`Avx2`] marker or by operations on other values of
//! this file; an `Avx2` is made only by [`Avx2::new`] after the CPU
//! reported AVX2 and POPCNT (asked once, the answer kept in a static).
//! So every value is a proof that the AVX2 intrinsics it runs are
//! supported: that is the SAFETY argument of the
//! register-only blocks (the `reg!` macro states it once), and memory
//! accesses state their bounds block by block.
use super::{Kernel, Simd};
use std::arch::x86_64::*;
use std::ops::{Add, BitAnd, BitOr, BitXor, Not, Sub};
use std::sync::atomic::{AtomicU8, Ordering};

/// Runs register-only AVX2 intrinsics.
macro_rules! reg {
    ($e:expr) => {
        // SAFETY: the operands are values of this file's types, which
        // exist only after `Avx2::new` saw AVX2 and POPCNT (see the module
        // doc); the intrinsics read and write registers only.
        unsafe { $e }
    };
}

/// Proof that the CPU has AVX2 and POPCNT (softhal's AVX2 level).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Avx2(());

/// Whether the CPU has AVX2 and POPCNT: 0 not asked yet, 1 no, 2 yes.
/// Only [`Avx2::detect`] writes it, with what the CPU reported: one byte
/// to test per kernel call (`is_x86_feature_detected!` tests two bits of
/// a lazily filled word, twice as many instructions).
static DETECTED: AtomicU8 = AtomicU8::new(0);

impl Avx2 {
    /// The marker, if this CPU has AVX2 and POPCNT.
    #[inline(always)]
    pub(crate) fn new() -> Option<Self> {
        match DETECTED.load(Ordering::Relaxed) {
            2 => Some(Avx2(())),
            1 => None,
            _ => Self::detect(),
        }
    }

    /// Asks the CPU, and remembers the answer in [`DETECTED`].
    #[cold]
    #[inline(never)]
    fn detect() -> Option<Self> {
        let yes = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt");
        DETECTED.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
        yes.then_some(Avx2(()))
    }
}

/// Eight i32 lanes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct I32x8(__m256i);

/// Eight f32 lanes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct F32x8(__m256);

/// Eight lane masks (each lane all ones or all zeros).
#[derive(Debug, Clone, Copy)]
pub(crate) struct M32x8(__m256i);

/// `k` compiled with AVX2 and POPCNT enabled (every operation of `k`
/// inlines here).
#[target_feature(enable = "avx2,popcnt")]
fn with_avx2<K: Kernel>(s: Avx2, k: K) -> K::Output {
    k.run(s)
}

impl Simd for Avx2 {
    type I32x8 = I32x8;
    type F32x8 = F32x8;
    type M32x8 = M32x8;

    #[inline(always)]
    fn vectorize<K: Kernel>(self, k: K) -> K::Output {
        // SAFETY: `self` exists only if the CPU has AVX2 and POPCNT, the
        // features `with_avx2` enables.
        unsafe { with_avx2(self, k) }
    }
    #[inline(always)]
    fn splat_i32(self, v: i32) -> I32x8 {
        I32x8(reg!(_mm256_set1_epi32(v)))
    }
    #[inline(always)]
    fn i32x8(self, v: [i32; 8]) -> I32x8 {
        // SAFETY: AVX2 is proven by `self`; `v` is 32 readable bytes and
        // loadu has no alignment requirement.
        I32x8(unsafe { _mm256_loadu_si256(v.as_ptr().cast()) })
    }
    #[inline(always)]
    fn load_i32(self, src: &[u8; 32]) -> I32x8 {
        // SAFETY: AVX2 is proven by `self`; `src` is exactly 32 readable
        // bytes and loadu has no alignment requirement.
        I32x8(unsafe { _mm256_loadu_si256(src.as_ptr().cast()) })
    }
    #[inline(always)]
    fn repeat4_i32(self, v: [i32; 4]) -> I32x8 {
        // SAFETY: AVX2 is proven by `self`; `v` is 16 readable bytes and
        // loadu has no alignment requirement.
        I32x8(unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(v.as_ptr().cast())) })
    }
    #[inline(always)]
    fn splat_f32(self, v: f32) -> F32x8 {
        F32x8(reg!(_mm256_set1_ps(v)))
    }
    #[inline(always)]
    fn f32x8(self, v: [f32; 8]) -> F32x8 {
        // SAFETY: AVX2 is proven by `self`; `v` is 32 readable bytes and
        // loadu has no alignment requirement.
        F32x8(unsafe { _mm256_loadu_ps(v.as_ptr()) })
    }

    type F64x4 = F64x4;
    #[inline(always)]
    fn splat_f64(self, v: f64) -> F64x4 {
        F64x4(reg!(_mm256_set1_pd(v)))
    }
    #[inline(always)]
    fn f64x4_from_f32(self, v: &[f32; 4]) -> F64x4 {
        // SAFETY: AVX2 is proven by `self`; `v` is 16 readable bytes and
        // loadu has no alignment requirement.
        F64x4(unsafe { _mm256_cvtps_pd(_mm_loadu_ps(v.as_ptr())) })
    }

    #[inline(always)]
    fn load_i32_prefix(self, src: &[u8]) -> I32x8 {
        let n = (src.len() / 4).min(8);
        // SAFETY: AVX2 is proven by `self`; the mask enables lanes 0..n,
        // whose bytes 0..4n lie inside `src` (4n ≤ src.len()); maskload
        // does not access disabled lanes (they read as 0).
        I32x8(unsafe { _mm256_maskload_epi32(src.as_ptr().cast(), first_lanes(n)) })
    }

    #[inline(always)]
    fn gather_u32(self, data: &[u8], idx: I32x8) -> I32x8 {
        /// What an empty `data` reads (every lane 0).
        static NONE: [u8; 4] = [0; 4];
        let n = (data.len() / 4).min(1 << 31);
        // A select, not a branch: hoisted out of a kernel's loop.
        let (base, last) = match n.checked_sub(1) {
            Some(last) => (data.as_ptr(), last as i32),
            None => (NONE.as_ptr(), 0),
        };
        // SAFETY: AVX2 is proven by `self`; every index is clamped (as
        // unsigned, so a negative one too) to `last`, whose 4 bytes at
        // `4·last` lie inside `data` (or are `NONE`), and 0 ≤ last <
        // 2^31, so the gather's signed index is that offset.
        I32x8(unsafe {
            let i = _mm256_min_epu32(idx.0, _mm256_set1_epi32(last));
            _mm256_i32gather_epi32::<4>(base.cast(), i)
        })
    }
    #[inline(always)]
    fn load_u16x8(self, src: &[u8; 16]) -> I32x8 {
        // SAFETY: AVX2 is proven by `self`; `src` is exactly 16 readable
        // bytes and loadu has no alignment requirement.
        I32x8(unsafe { _mm256_cvtepu16_epi32(_mm_loadu_si128(src.as_ptr().cast())) })
    }
}

impl Add for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self(reg!(_mm256_add_epi32(self.0, o.0)))
    }
}
impl Sub for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Self(reg!(_mm256_sub_epi32(self.0, o.0)))
    }
}
impl BitAnd for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn bitand(self, o: Self) -> Self {
        Self(reg!(_mm256_and_si256(self.0, o.0)))
    }
}
impl BitOr for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn bitor(self, o: Self) -> Self {
        Self(reg!(_mm256_or_si256(self.0, o.0)))
    }
}
impl BitXor for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn bitxor(self, o: Self) -> Self {
        Self(reg!(_mm256_xor_si256(self.0, o.0)))
    }
}

/// Lanes `0..n` set (n ≤ 8).
#[inline(always)]
fn first_lanes(n: usize) -> __m256i {
    reg!(_mm256_cmpgt_epi32(
        _mm256_set1_epi32(n as i32),
        _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
    ))
}

impl super::I32x8 for I32x8 {
    type Mask = M32x8;
    type F32 = F32x8;

    #[inline(always)]
    fn shl<const N: i32>(self) -> Self {
        const { assert!(N >= 0 && N < 32) };
        Self(reg!(_mm256_slli_epi32::<N>(self.0)))
    }
    #[inline(always)]
    fn shr<const N: i32>(self) -> Self {
        const { assert!(N >= 0 && N < 32) };
        Self(reg!(_mm256_srai_epi32::<N>(self.0)))
    }
    #[inline(always)]
    fn shr_logical<const N: i32>(self) -> Self {
        const { assert!(N >= 0 && N < 32) };
        Self(reg!(_mm256_srli_epi32::<N>(self.0)))
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        Self(reg!(_mm256_mullo_epi32(self.0, o.0)))
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        Self(reg!(_mm256_min_epi32(self.0, o.0)))
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        Self(reg!(_mm256_max_epi32(self.0, o.0)))
    }
    #[inline(always)]
    fn simd_eq(self, o: Self) -> M32x8 {
        M32x8(reg!(_mm256_cmpeq_epi32(self.0, o.0)))
    }
    #[inline(always)]
    fn simd_gt(self, o: Self) -> M32x8 {
        M32x8(reg!(_mm256_cmpgt_epi32(self.0, o.0)))
    }
    #[inline(always)]
    fn select(m: M32x8, a: Self, b: Self) -> Self {
        // Mask lanes are all ones or all zeros, so a byte blend is a lane
        // blend.
        Self(reg!(_mm256_blendv_epi8(b.0, a.0, m.0)))
    }
    #[inline(always)]
    fn to_f32(self) -> F32x8 {
        F32x8(reg!(_mm256_cvtepi32_ps(self.0)))
    }
    #[inline(always)]
    fn pack_u8_sat(v: [Self; 4]) -> Self {
        // Saturating i32 → i16 then i16 → u8 is the clamp to 0..=255; both
        // packs work within each 128-bit half, giving the in-half order.
        Self(reg!({
            let a = _mm256_packs_epi32(v[0].0, v[1].0);
            let b = _mm256_packs_epi32(v[2].0, v[3].0);
            _mm256_packus_epi16(a, b)
        }))
    }
    #[inline(always)]
    fn to_array(self) -> [i32; 8] {
        let mut out = [0i32; 8];
        // SAFETY: AVX2 is proven by `self`; `out` is 32 writable bytes and
        // storeu has no alignment requirement.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), self.0) };
        out
    }
    #[inline(always)]
    fn store(self, dst: &mut [u8; 32]) {
        // SAFETY: AVX2 is proven by `self`; `dst` is exactly 32 writable
        // bytes and storeu has no alignment requirement.
        unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), self.0) };
    }
    #[inline(always)]
    fn store_prefix(self, dst: &mut [u8]) {
        let n = (dst.len() / 4).min(8);
        // SAFETY: AVX2 is proven by `self`; the mask enables lanes 0..n,
        // whose bytes 0..4n lie inside `dst` (4n ≤ dst.len()); maskstore
        // does not access disabled lanes.
        unsafe { _mm256_maskstore_epi32(dst.as_mut_ptr().cast(), first_lanes(n), self.0) };
    }

    #[inline(always)]
    fn widen_lo_u8_u16(self) -> Self {
        Self(reg!(_mm256_unpacklo_epi8(self.0, _mm256_setzero_si256())))
    }
    #[inline(always)]
    fn widen_hi_u8_u16(self) -> Self {
        Self(reg!(_mm256_unpackhi_epi8(self.0, _mm256_setzero_si256())))
    }
    #[inline(always)]
    fn pack_i16_u8_sat(lo: Self, hi: Self) -> Self {
        Self(reg!(_mm256_packus_epi16(lo.0, hi.0)))
    }
    #[inline(always)]
    fn mul_lo_u16(self, o: Self) -> Self {
        Self(reg!(_mm256_mullo_epi16(self.0, o.0)))
    }
    #[inline(always)]
    fn mul_hi_u16(self, o: Self) -> Self {
        Self(reg!(_mm256_mulhi_epu16(self.0, o.0)))
    }
    #[inline(always)]
    fn add_sat_u16(self, o: Self) -> Self {
        Self(reg!(_mm256_adds_epu16(self.0, o.0)))
    }
    #[inline(always)]
    fn shr_u16<const N: i32>(self) -> Self {
        const { assert!(N >= 0 && N < 16) };
        Self(reg!(_mm256_srli_epi16::<N>(self.0)))
    }
    #[inline(always)]
    fn splat_alpha_u16(self) -> Self {
        Self(reg!(_mm256_shufflehi_epi16::<0xFF>(
            _mm256_shufflelo_epi16::<0xFF>(self.0)
        )))
    }

    #[inline(always)]
    fn add_u16(self, o: Self) -> Self {
        Self(reg!(_mm256_add_epi16(self.0, o.0)))
    }
    #[inline(always)]
    fn sub_u16(self, o: Self) -> Self {
        Self(reg!(_mm256_sub_epi16(self.0, o.0)))
    }
    #[inline(always)]
    fn shl_u16<const N: i32>(self) -> Self {
        const { assert!(N >= 0 && N < 16) };
        Self(reg!(_mm256_slli_epi16::<N>(self.0)))
    }
    #[inline(always)]
    fn clamp_i16(self, lo: Self, hi: Self) -> Self {
        Self(reg!(_mm256_min_epi16(_mm256_max_epi16(self.0, lo.0), hi.0)))
    }
    #[inline(always)]
    fn pack_i32_i16_sat(a: Self, b: Self) -> Self {
        Self(reg!(_mm256_packs_epi32(a.0, b.0)))
    }
    #[inline(always)]
    fn spread_lo_u16(self) -> Self {
        Self(reg!(_mm256_shuffle_epi8(
            self.0,
            _mm256_setr_epi8(
                0, 1, 0, 1, 0, 1, 0, 1, 4, 5, 4, 5, 4, 5, 4, 5, 0, 1, 0, 1, 0, 1, 0, 1, 4, 5, 4, 5,
                4, 5, 4, 5,
            ),
        )))
    }
    #[inline(always)]
    fn spread_hi_u16(self) -> Self {
        Self(reg!(_mm256_shuffle_epi8(
            self.0,
            _mm256_setr_epi8(
                8, 9, 8, 9, 8, 9, 8, 9, 12, 13, 12, 13, 12, 13, 12, 13, 8, 9, 8, 9, 8, 9, 8, 9, 12,
                13, 12, 13, 12, 13, 12, 13,
            ),
        )))
    }
    #[inline(always)]
    fn zip_lo_i64(self, o: Self) -> Self {
        Self(reg!(_mm256_unpacklo_epi64(self.0, o.0)))
    }
    #[inline(always)]
    fn zip_hi_i64(self, o: Self) -> Self {
        Self(reg!(_mm256_unpackhi_epi64(self.0, o.0)))
    }
    #[inline(always)]
    fn store_u16x8(self, dst: &mut [u8; 16]) {
        // Bytes 0, 1 of each lane to the low 8 bytes of its half, then
        // the two halves' low quadwords together.
        let packed = reg!({
            let w = _mm256_shuffle_epi8(
                self.0,
                _mm256_setr_epi8(
                    0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 4, 5, 8, 9, 12,
                    13, -1, -1, -1, -1, -1, -1, -1, -1,
                ),
            );
            _mm256_castsi256_si128(_mm256_permute4x64_epi64::<0b00_00_10_00>(w))
        });
        // SAFETY: AVX2 is proven by `self`; `dst` is exactly 16 writable
        // bytes and storeu has no alignment requirement.
        unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), packed) };
    }
    #[inline(always)]
    fn sub_sat_u16(self, o: Self) -> Self {
        Self(reg!(_mm256_subs_epu16(self.0, o.0)))
    }
    #[inline(always)]
    fn add_sat_u8(self, o: Self) -> Self {
        Self(reg!(_mm256_adds_epu8(self.0, o.0)))
    }
    #[inline(always)]
    fn min_u8(self, o: Self) -> Self {
        Self(reg!(_mm256_min_epu8(self.0, o.0)))
    }
    #[inline(always)]
    fn max_u8(self, o: Self) -> Self {
        Self(reg!(_mm256_max_epu8(self.0, o.0)))
    }
}

impl Add for F32x8 {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self(reg!(_mm256_add_ps(self.0, o.0)))
    }
}
impl Sub for F32x8 {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Self(reg!(_mm256_sub_ps(self.0, o.0)))
    }
}

impl super::F32x8 for F32x8 {
    type Mask = M32x8;
    type I32 = I32x8;

    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        Self(reg!(_mm256_mul_ps(self.0, o.0)))
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        Self(reg!(_mm256_min_ps(self.0, o.0)))
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        Self(reg!(_mm256_max_ps(self.0, o.0)))
    }
    #[inline(always)]
    fn simd_lt(self, o: Self) -> M32x8 {
        M32x8(reg!(_mm256_castps_si256(_mm256_cmp_ps::<_CMP_LT_OQ>(
            self.0, o.0
        ))))
    }
    #[inline(always)]
    fn round_i32(self) -> I32x8 {
        // cvtps2dq rounds with MXCSR's mode, round-to-nearest-even unless
        // changed (Rust code never changes it).
        I32x8(reg!(_mm256_cvtps_epi32(self.0)))
    }
    #[inline(always)]
    fn to_array(self) -> [f32; 8] {
        let mut out = [0f32; 8];
        // SAFETY: AVX2 is proven by `self`; `out` is 32 writable bytes and
        // storeu has no alignment requirement.
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), self.0) };
        out
    }

    #[inline(always)]
    fn div(self, o: Self) -> Self {
        Self(reg!(_mm256_div_ps(self.0, o.0)))
    }
    #[inline(always)]
    fn floor(self) -> Self {
        Self(reg!(_mm256_floor_ps(self.0)))
    }
    #[inline(always)]
    fn trunc_i32(self) -> I32x8 {
        I32x8(reg!(_mm256_cvttps_epi32(self.0)))
    }
    #[inline(always)]
    fn nan_to_zero(self) -> Self {
        Self(reg!(_mm256_and_ps(
            self.0,
            _mm256_cmp_ps::<_CMP_ORD_Q>(self.0, self.0)
        )))
    }
    #[inline(always)]
    fn to_bits(self) -> I32x8 {
        I32x8(reg!(_mm256_castps_si256(self.0)))
    }
}

impl BitAnd for M32x8 {
    type Output = Self;
    #[inline(always)]
    fn bitand(self, o: Self) -> Self {
        Self(reg!(_mm256_and_si256(self.0, o.0)))
    }
}
impl BitOr for M32x8 {
    type Output = Self;
    #[inline(always)]
    fn bitor(self, o: Self) -> Self {
        Self(reg!(_mm256_or_si256(self.0, o.0)))
    }
}
impl Not for M32x8 {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        Self(reg!(_mm256_xor_si256(self.0, _mm256_set1_epi32(-1))))
    }
}

impl super::M32x8 for M32x8 {
    #[inline(always)]
    fn bitmask(self) -> u32 {
        reg!(_mm256_movemask_ps(_mm256_castsi256_ps(self.0))) as u32
    }
}

/// Four f64 lanes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct F64x4(__m256d);

impl Add for F64x4 {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self(reg!(_mm256_add_pd(self.0, o.0)))
    }
}
impl Sub for F64x4 {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Self(reg!(_mm256_sub_pd(self.0, o.0)))
    }
}

impl super::F64x4 for F64x4 {
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        Self(reg!(_mm256_mul_pd(self.0, o.0)))
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Self(reg!(_mm256_andnot_pd(_mm256_set1_pd(-0.0), self.0)))
    }
    #[inline(always)]
    fn lt_bitmask(self, o: Self) -> u32 {
        reg!(_mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LT_OQ>(self.0, o.0))) as u32
    }
    #[inline(always)]
    fn round_i64_low32(self) -> [i32; 4] {
        const M: f64 = 6_755_399_441_055_744.0; // 1.5·2^52
        let lo = reg!({
            let q = _mm256_sub_epi64(
                _mm256_castpd_si256(_mm256_add_pd(self.0, _mm256_set1_pd(M))),
                _mm256_set1_epi64x(M.to_bits() as i64),
            );
            // The low halves of the four 64-bit lanes, in lanes 0..4.
            _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
                q,
                _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6),
            ))
        });
        let mut out = [0i32; 4];
        // SAFETY: AVX2 is proven by `self`; `out` is 16 writable bytes and
        // storeu has no alignment requirement.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), lo) };
        out
    }
    #[inline(always)]
    fn to_array(self) -> [f64; 4] {
        let mut out = [0f64; 4];
        // SAFETY: AVX2 is proven by `self`; `out` is 32 writable bytes and
        // storeu has no alignment requirement.
        unsafe { _mm256_storeu_pd(out.as_mut_ptr(), self.0) };
        out
    }
}
