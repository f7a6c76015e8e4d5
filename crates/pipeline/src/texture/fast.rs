//! Specialised fast path: A8R8G8B8 / X8R8G8B8, bilinear, WRAP, one level.
//!
//! *Input*: a [`LevelRef`] of an A8R8G8B8 or X8R8G8B8 level and the
//! texture coordinates of 4 pixels. *Output*: 4 filtered D3DCOLORs.
//! *Guarantees*: integer arithmetic with 8-bit weights, so the result is
//! deterministic and identical on every platform; total (NaN and huge
//! coordinates are defined, every read is bounds-checked); X8R8G8B8 reads
//! alpha as 255.
//!
//! ## Arithmetic
//! `u` is first reduced to `[0, 1)` (`u − floor(u)`, exact in f32), then
//! `x = floor(u · width · 256) − 128` gives the texel `x >> 8` (−1 …
//! width − 1, wrapped) and the 8-bit fraction `fx = x & 255`. The four
//! weights `(256 − fx)(256 − fy)`, `fx(256 − fy)`, `(256 − fx)fy`, `fx·fy`
//! sum to 65536; each channel is `(Σ wᵢ·cᵢ + 32768) >> 16`. For
//! power-of-two sizes this selects the same texels and fractions as
//! [`super::sampler`]'s bilinear path, whose float result rounds to within
//! 1 of this one.
//!
//! A SIMD twin belongs in the `simd` module tree (one file per kernel) and must
//! reproduce this function bit for bit.

use super::format::TextureFormat;
use super::resource::LevelRef;

/// Wrapped fixed-point coordinate: (texel 0, texel 1, 8-bit fraction).
#[inline(always)]
pub(crate) fn wrap_coord(c: f32, size: u32) -> (usize, usize, u32) {
    // `c - c.floor()` without the C library's `floorf` (the baseline
    // x86_64 target has no rounding instruction): below 2^23 the floor is
    // an exact integer; from 2^23 on every f32 is an integer (fraction 0).
    let c = if c.abs() < 8_388_608.0 {
        c - super::sampler::floor_i64(c) as f32
    } else {
        0.0
    };
    let size = size.max(1);
    // c in [0, 1] (NaN gave 0) so the product is not negative and its
    // floor is the truncation: q in [-128, size·256 − 128]; size ≤ 8192
    // fits i32.
    let q = (c * (size as f32 * 256.0)) as i32 - 128;
    let i = q >> 8;
    let f = (q & 255) as u32;
    let s = size as i32;
    // i in [-1, size]: wrap without a division.
    let i0 = if i < 0 {
        s - 1
    } else if i >= s {
        i - s
    } else {
        i
    };
    let i1 = if i0 + 1 >= s { 0 } else { i0 + 1 };
    (i0 as usize, i1 as usize, f)
}

#[inline(always)]
fn load(data: &[u8], row: usize, x: usize) -> u32 {
    let at = row + 4 * x;
    match data.get(at..at + 4) {
        Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        None => 0,
    }
}

/// One bilinear WRAP sample of an A8R8G8B8 / X8R8G8B8 level (slice 0);
/// `None` for any other format.
#[inline]
pub fn bilinear_wrap_argb8(level: &LevelRef<'_>, u: f32, v: f32) -> Option<u32> {
    let force_alpha = match level.format {
        TextureFormat::A8R8G8B8 => 0,
        TextureFormat::X8R8G8B8 => 0xFF00_0000,
        _ => return None,
    };
    let info = &level.info;
    let (x0, x1, fx) = wrap_coord(u, info.width);
    let (y0, y1, fy) = wrap_coord(v, info.height);
    let r0 = y0 * info.row_pitch;
    let r1 = y1 * info.row_pitch;
    let d = level.data;
    let t = [
        load(d, r0, x0) | force_alpha,
        load(d, r0, x1) | force_alpha,
        load(d, r1, x0) | force_alpha,
        load(d, r1, x1) | force_alpha,
    ];
    let w = [
        (256 - fx) * (256 - fy),
        fx * (256 - fy),
        (256 - fx) * fy,
        fx * fy,
    ];
    let mut out = 0u32;
    for shift in [0u32, 8, 16, 24] {
        let mut acc = 32768u32;
        for (c, wt) in t.iter().zip(w) {
            acc += ((c >> shift) & 0xFF) * wt;
        }
        out |= (acc >> 16) << shift;
    }
    Some(out)
}

/// Four bilinear WRAP samples (one 2×2 quad or 4 span pixels) of an
/// A8R8G8B8 / X8R8G8B8 level; `None` for any other format. Equal to 4
/// calls of [`bilinear_wrap_argb8`].
#[inline]
pub fn bilinear_wrap_argb8_x4(level: &LevelRef<'_>, u: [f32; 4], v: [f32; 4]) -> Option<[u32; 4]> {
    Some([
        bilinear_wrap_argb8(level, u[0], v[0])?,
        bilinear_wrap_argb8(level, u[1], v[1])?,
        bilinear_wrap_argb8(level, u[2], v[2])?,
        bilinear_wrap_argb8(level, u[3], v[3])?,
    ])
}

#[cfg(test)]
mod tests {
    use super::wrap_coord;

    /// `wrap_coord` with the C library's floor, as it was written first.
    fn wrap_coord_floorf(c: f32, size: u32) -> (usize, usize, u32) {
        let c = if c.is_finite() { c - c.floor() } else { 0.0 };
        let size = size.max(1);
        let q = (c * (size as f32 * 256.0)).floor() as i32 - 128;
        let s = size as i32;
        let i = q >> 8;
        let i0 = if i < 0 {
            s - 1
        } else if i >= s {
            i - s
        } else {
            i
        };
        let i1 = if i0 + 1 >= s { 0 } else { i0 + 1 };
        (i0 as usize, i1 as usize, (q & 255) as u32)
    }

    #[test]
    fn wrap_coord_equals_the_floor_of_the_c_library() {
        let mut c = [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            1e-9,
            -1e-9,
            8_388_607.5,
            -8_388_607.5,
            8_388_608.0,
            -8_388_608.0,
            3e9,
            -3e9,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            0.999_999_94,
            -0.999_999_94,
        ]
        .to_vec();
        // Every 1/64 texel step over a few wraps, both signs.
        c.extend((-2000..2000).map(|i| i as f32 / 256.0 + 1.0 / 128.0));
        for &c in &c {
            for size in [1, 2, 3, 4, 256, 1000, 8192] {
                assert_eq!(
                    wrap_coord(c, size),
                    wrap_coord_floorf(c, size),
                    "{c} {size}"
                );
            }
        }
    }
}
