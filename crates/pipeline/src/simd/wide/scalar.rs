//! The scalar level: plain arrays of 8 lanes. This is the specification
//! of every operation of the layer; the vector levels are tested against
//! it.
use super::{Kernel, Simd};
use std::ops::{Add, BitAnd, BitOr, BitXor, Not, Sub};

/// The scalar level (always available).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scalar;

/// Eight i32 lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct I32x8([i32; 8]);

/// Eight f32 lanes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct F32x8([f32; 8]);

/// Eight lane masks: each lane 0 or −1 (all ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct M32x8([i32; 8]);

#[inline(always)]
fn zip<T: Copy, U>(a: [T; 8], b: [T; 8], f: impl Fn(T, T) -> U) -> [U; 8] {
    std::array::from_fn(|i| f(a[i], b[i]))
}

#[inline(always)]
fn mask(v: [bool; 8]) -> M32x8 {
    M32x8(v.map(|b| -i32::from(b)))
}

impl Simd for Scalar {
    type I32x8 = I32x8;
    type F32x8 = F32x8;
    type M32x8 = M32x8;

    #[inline(always)]
    fn vectorize<K: Kernel>(self, k: K) -> K::Output {
        k.run(self)
    }
    #[inline(always)]
    fn splat_i32(self, v: i32) -> I32x8 {
        I32x8([v; 8])
    }
    #[inline(always)]
    fn i32x8(self, v: [i32; 8]) -> I32x8 {
        I32x8(v)
    }
    #[inline(always)]
    fn load_i32(self, src: &[u8; 32]) -> I32x8 {
        I32x8(std::array::from_fn(|i| {
            i32::from_le_bytes([src[4 * i], src[4 * i + 1], src[4 * i + 2], src[4 * i + 3]])
        }))
    }
    #[inline(always)]
    fn repeat4_i32(self, v: [i32; 4]) -> I32x8 {
        I32x8(std::array::from_fn(|i| v[i % 4]))
    }
    #[inline(always)]
    fn splat_f32(self, v: f32) -> F32x8 {
        F32x8([v; 8])
    }
    #[inline(always)]
    fn f32x8(self, v: [f32; 8]) -> F32x8 {
        F32x8(v)
    }

    type F64x4 = F64x4;
    #[inline(always)]
    fn splat_f64(self, v: f64) -> F64x4 {
        F64x4([v; 4])
    }
    #[inline(always)]
    fn f64x4_from_f32(self, v: &[f32; 4]) -> F64x4 {
        F64x4([v[0].into(), v[1].into(), v[2].into(), v[3].into()])
    }

    #[inline(always)]
    fn load_i32_prefix(self, src: &[u8]) -> I32x8 {
        let mut v = [0i32; 8];
        for (l, b) in v.iter_mut().zip(src.chunks_exact(4)) {
            *l = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        I32x8(v)
    }

    #[inline(always)]
    fn gather_u32(self, data: &[u8], idx: I32x8) -> I32x8 {
        let n = (data.len() / 4).min(1 << 31);
        I32x8(std::array::from_fn(|l| {
            let Some(last) = n.checked_sub(1) else {
                return 0;
            };
            let at = 4 * (idx.0[l] as u32 as usize).min(last);
            i32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]])
        }))
    }
    #[inline(always)]
    fn load_u16x8(self, src: &[u8; 16]) -> I32x8 {
        I32x8(std::array::from_fn(|i| {
            i32::from(u16::from_le_bytes([src[2 * i], src[2 * i + 1]]))
        }))
    }
}

impl Add for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self(zip(self.0, o.0, i32::wrapping_add))
    }
}
impl Sub for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Self(zip(self.0, o.0, i32::wrapping_sub))
    }
}
impl BitAnd for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn bitand(self, o: Self) -> Self {
        Self(zip(self.0, o.0, |a, b| a & b))
    }
}
impl BitOr for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn bitor(self, o: Self) -> Self {
        Self(zip(self.0, o.0, |a, b| a | b))
    }
}
impl BitXor for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn bitxor(self, o: Self) -> Self {
        Self(zip(self.0, o.0, |a, b| a ^ b))
    }
}

impl super::I32x8 for I32x8 {
    type Mask = M32x8;
    type F32 = F32x8;

    #[inline(always)]
    fn shl<const N: i32>(self) -> Self {
        const { assert!(N >= 0 && N < 32) };
        Self(self.0.map(|a| a << N))
    }
    #[inline(always)]
    fn shr<const N: i32>(self) -> Self {
        const { assert!(N >= 0 && N < 32) };
        Self(self.0.map(|a| a >> N))
    }
    #[inline(always)]
    fn shr_logical<const N: i32>(self) -> Self {
        const { assert!(N >= 0 && N < 32) };
        Self(self.0.map(|a| ((a as u32) >> N) as i32))
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        Self(zip(self.0, o.0, i32::wrapping_mul))
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        Self(zip(self.0, o.0, i32::min))
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        Self(zip(self.0, o.0, i32::max))
    }
    #[inline(always)]
    fn simd_eq(self, o: Self) -> M32x8 {
        mask(zip(self.0, o.0, |a, b| a == b))
    }
    #[inline(always)]
    fn simd_gt(self, o: Self) -> M32x8 {
        mask(zip(self.0, o.0, |a, b| a > b))
    }
    #[inline(always)]
    fn select(m: M32x8, a: Self, b: Self) -> Self {
        Self(std::array::from_fn(|i| {
            if m.0[i] != 0 {
                a.0[i]
            } else {
                b.0[i]
            }
        }))
    }
    #[inline(always)]
    fn to_f32(self) -> F32x8 {
        F32x8(self.0.map(|a| a as f32))
    }
    #[inline(always)]
    fn pack_u8_sat(v: [Self; 4]) -> Self {
        Self(std::array::from_fn(|p| {
            let (k, half) = (p % 4, p / 4);
            i32::from_le_bytes(std::array::from_fn(|l| {
                crate::int::clamp_u8(v[k].0[4 * half + l])
            }))
        }))
    }
    #[inline(always)]
    fn to_array(self) -> [i32; 8] {
        self.0
    }
    #[inline(always)]
    fn store(self, dst: &mut [u8; 32]) {
        for (d, v) in dst.chunks_exact_mut(4).zip(self.0) {
            d.copy_from_slice(&v.to_le_bytes());
        }
    }
    #[inline(always)]
    fn store_prefix(self, dst: &mut [u8]) {
        for (d, v) in dst.chunks_exact_mut(4).zip(self.0) {
            d.copy_from_slice(&v.to_le_bytes());
        }
    }

    #[inline(always)]
    fn widen_lo_u8_u16(self) -> Self {
        let b = bytes(self.0);
        from_u16(std::array::from_fn(|j| u16::from(b[16 * (j / 8) + j % 8])))
    }
    #[inline(always)]
    fn widen_hi_u8_u16(self) -> Self {
        let b = bytes(self.0);
        from_u16(std::array::from_fn(|j| {
            u16::from(b[16 * (j / 8) + 8 + j % 8])
        }))
    }
    #[inline(always)]
    fn pack_i16_u8_sat(lo: Self, hi: Self) -> Self {
        let (lo, hi) = (to_u16(lo.0), to_u16(hi.0));
        let b: [u8; 32] = std::array::from_fn(|i| {
            let (h, j) = (i / 16, i % 16);
            let w = if j < 8 {
                lo[8 * h + j]
            } else {
                hi[8 * h + j - 8]
            };
            crate::int::clamp_u8(i32::from(w as i16))
        });
        Self(std::array::from_fn(|k| {
            i32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
        }))
    }
    #[inline(always)]
    fn mul_lo_u16(self, o: Self) -> Self {
        let (a, b) = (to_u16(self.0), to_u16(o.0));
        from_u16(std::array::from_fn(|j| a[j].wrapping_mul(b[j])))
    }
    #[inline(always)]
    fn mul_hi_u16(self, o: Self) -> Self {
        let (a, b) = (to_u16(self.0), to_u16(o.0));
        from_u16(std::array::from_fn(|j| {
            ((u32::from(a[j]) * u32::from(b[j])) >> 16) as u16
        }))
    }
    #[inline(always)]
    fn add_sat_u16(self, o: Self) -> Self {
        let (a, b) = (to_u16(self.0), to_u16(o.0));
        from_u16(std::array::from_fn(|j| a[j].saturating_add(b[j])))
    }
    #[inline(always)]
    fn shr_u16<const N: i32>(self) -> Self {
        const { assert!(N >= 0 && N < 16) };
        from_u16(to_u16(self.0).map(|w| w >> N))
    }
    #[inline(always)]
    fn splat_alpha_u16(self) -> Self {
        let a = to_u16(self.0);
        from_u16(std::array::from_fn(|j| a[j | 3]))
    }

    #[inline(always)]
    fn add_u16(self, o: Self) -> Self {
        let (a, b) = (to_u16(self.0), to_u16(o.0));
        from_u16(std::array::from_fn(|j| a[j].wrapping_add(b[j])))
    }
    #[inline(always)]
    fn sub_u16(self, o: Self) -> Self {
        let (a, b) = (to_u16(self.0), to_u16(o.0));
        from_u16(std::array::from_fn(|j| a[j].wrapping_sub(b[j])))
    }
    #[inline(always)]
    fn shl_u16<const N: i32>(self) -> Self {
        const { assert!(N >= 0 && N < 16) };
        from_u16(to_u16(self.0).map(|w| w << N))
    }
    #[inline(always)]
    fn clamp_i16(self, lo: Self, hi: Self) -> Self {
        let (v, lo, hi) = (to_u16(self.0), to_u16(lo.0), to_u16(hi.0));
        from_u16(std::array::from_fn(|j| {
            (v[j] as i16).max(lo[j] as i16).min(hi[j] as i16) as u16
        }))
    }
    #[inline(always)]
    fn pack_i32_i16_sat(a: Self, b: Self) -> Self {
        from_u16(std::array::from_fn(|j| {
            let (h, k) = (j / 8, j % 8);
            let x = if k < 4 {
                a.0[4 * h + k]
            } else {
                b.0[4 * h + k - 4]
            };
            x.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16 as u16
        }))
    }
    #[inline(always)]
    fn spread_lo_u16(self) -> Self {
        from_u16(std::array::from_fn(|j| {
            self.0[4 * (j / 8) + j % 8 / 4] as u16
        }))
    }
    #[inline(always)]
    fn spread_hi_u16(self) -> Self {
        from_u16(std::array::from_fn(|j| {
            self.0[4 * (j / 8) + 2 + j % 8 / 4] as u16
        }))
    }
    #[inline(always)]
    fn zip_lo_i64(self, o: Self) -> Self {
        Self(std::array::from_fn(|i| {
            let (h, k) = (i / 4, i % 4);
            if k < 2 {
                self.0[4 * h + k]
            } else {
                o.0[4 * h + k - 2]
            }
        }))
    }
    #[inline(always)]
    fn zip_hi_i64(self, o: Self) -> Self {
        Self(std::array::from_fn(|i| {
            let (h, k) = (i / 4, i % 4);
            if k < 2 {
                self.0[4 * h + 2 + k]
            } else {
                o.0[4 * h + k]
            }
        }))
    }
    #[inline(always)]
    fn store_u16x8(self, dst: &mut [u8; 16]) {
        for (i, l) in self.0.iter().enumerate() {
            let b = (*l as u16).to_le_bytes();
            dst[2 * i] = b[0];
            dst[2 * i + 1] = b[1];
        }
    }
    #[inline(always)]
    fn sub_sat_u16(self, o: Self) -> Self {
        let (a, b) = (to_u16(self.0), to_u16(o.0));
        from_u16(std::array::from_fn(|j| a[j].saturating_sub(b[j])))
    }
    #[inline(always)]
    fn add_sat_u8(self, o: Self) -> Self {
        let (a, b) = (bytes(self.0), bytes(o.0));
        from_bytes(std::array::from_fn(|j| a[j].saturating_add(b[j])))
    }
    #[inline(always)]
    fn min_u8(self, o: Self) -> Self {
        let (a, b) = (bytes(self.0), bytes(o.0));
        from_bytes(std::array::from_fn(|j| a[j].min(b[j])))
    }
    #[inline(always)]
    fn max_u8(self, o: Self) -> Self {
        let (a, b) = (bytes(self.0), bytes(o.0));
        from_bytes(std::array::from_fn(|j| a[j].max(b[j])))
    }
}

/// The lanes of `v` as sixteen u16 lanes (the low half of lane k first).
#[inline(always)]
fn to_u16(v: [i32; 8]) -> [u16; 16] {
    std::array::from_fn(|j| ((v[j / 2] as u32) >> (16 * (j % 2))) as u16)
}

/// The inverse of [`to_u16`].
#[inline(always)]
fn from_u16(w: [u16; 16]) -> I32x8 {
    I32x8(std::array::from_fn(|k| {
        (u32::from(w[2 * k]) | u32::from(w[2 * k + 1]) << 16) as i32
    }))
}

/// The lanes of `v` as little-endian bytes.
#[inline(always)]
fn bytes(v: [i32; 8]) -> [u8; 32] {
    std::array::from_fn(|i| v[i / 4].to_le_bytes()[i % 4])
}

/// The inverse of [`bytes`].
#[inline(always)]
fn from_bytes(b: [u8; 32]) -> I32x8 {
    I32x8(std::array::from_fn(|k| {
        i32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
    }))
}

impl Add for F32x8 {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self(zip(self.0, o.0, |a, b| a + b))
    }
}
impl Sub for F32x8 {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Self(zip(self.0, o.0, |a, b| a - b))
    }
}

impl super::F32x8 for F32x8 {
    type Mask = M32x8;
    type I32 = I32x8;

    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        Self(zip(self.0, o.0, |a, b| a * b))
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        Self(zip(self.0, o.0, |a, b| if a < b { a } else { b }))
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        Self(zip(self.0, o.0, |a, b| if a > b { a } else { b }))
    }
    #[inline(always)]
    fn simd_lt(self, o: Self) -> M32x8 {
        mask(zip(self.0, o.0, |a, b| a < b))
    }
    #[inline(always)]
    fn round_i32(self) -> I32x8 {
        I32x8(self.0.map(|a| {
            let r = crate::int::round_ties_even_f32(a);
            // In range (NaN is not): exact, since `r` is an integer.
            if (-2_147_483_648.0..2_147_483_648.0).contains(&r) {
                r as i32
            } else {
                i32::MIN
            }
        }))
    }
    #[inline(always)]
    fn to_array(self) -> [f32; 8] {
        self.0
    }

    #[inline(always)]
    fn div(self, o: Self) -> Self {
        Self(zip(self.0, o.0, |a, b| a / b))
    }
    #[inline(always)]
    fn floor(self) -> Self {
        Self(self.0.map(f32::floor))
    }
    #[inline(always)]
    fn trunc_i32(self) -> I32x8 {
        I32x8(self.0.map(crate::int::trunc_i32_indefinite))
    }
    #[inline(always)]
    fn nan_to_zero(self) -> Self {
        Self(self.0.map(|a| if a.is_nan() { 0.0 } else { a }))
    }
    #[inline(always)]
    fn to_bits(self) -> I32x8 {
        I32x8(self.0.map(|a| a.to_bits() as i32))
    }
}

impl BitAnd for M32x8 {
    type Output = Self;
    #[inline(always)]
    fn bitand(self, o: Self) -> Self {
        Self(zip(self.0, o.0, |a, b| a & b))
    }
}
impl BitOr for M32x8 {
    type Output = Self;
    #[inline(always)]
    fn bitor(self, o: Self) -> Self {
        Self(zip(self.0, o.0, |a, b| a | b))
    }
}
impl Not for M32x8 {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        Self(self.0.map(|a| !a))
    }
}

impl super::M32x8 for M32x8 {
    #[inline(always)]
    fn bitmask(self) -> u32 {
        self.0
            .iter()
            .enumerate()
            .fold(0, |m, (i, &a)| m | (u32::from(a < 0) << i))
    }
}

/// Four f64 lanes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct F64x4([f64; 4]);

#[inline(always)]
fn zip4<U>(a: [f64; 4], b: [f64; 4], f: impl Fn(f64, f64) -> U) -> [U; 4] {
    std::array::from_fn(|i| f(a[i], b[i]))
}

impl Add for F64x4 {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self(zip4(self.0, o.0, |a, b| a + b))
    }
}
impl Sub for F64x4 {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Self(zip4(self.0, o.0, |a, b| a - b))
    }
}

impl super::F64x4 for F64x4 {
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        Self(zip4(self.0, o.0, |a, b| a * b))
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Self(self.0.map(f64::abs))
    }
    #[inline(always)]
    fn lt_bitmask(self, o: Self) -> u32 {
        zip4(self.0, o.0, |a, b| a < b)
            .iter()
            .enumerate()
            .fold(0, |m, (i, &lt)| m | (u32::from(lt) << i))
    }
    #[inline(always)]
    fn round_i64_low32(self) -> [i32; 4] {
        const M: f64 = 6_755_399_441_055_744.0; // 1.5·2^52
        self.0
            .map(|x| ((x + M).to_bits() as i64).wrapping_sub(M.to_bits() as i64) as i32)
    }
    #[inline(always)]
    fn to_array(self) -> [f64; 4] {
        self.0
    }
}
