//! Values of the executor: a four-component register value ([`Vec4`]) and
//! one per invocation of a group ([`Lanes`], [`LANES`] of them, a 2×2
//! pixel quad or four vertices), with component-wise helpers.
//!
//! - In: `f32` values and masks.
//! - Out: new values; nothing here reads memory by a computed index (lane
//!   and component numbers are matched, not used to index), so nothing can
//!   panic.

/// Invocations executed together: one 2×2 quad of pixels (lane = x + 2y)
/// or four vertices.
pub const LANES: usize = 4;

/// A register value: x, y, z, w.
pub type Vec4 = [f32; 4];

/// One register of every lane.
pub type Lanes = [Vec4; LANES];

/// A lane mask: bit `l` set = lane `l` active. Only the low [`LANES`] bits
/// are used.
pub type Mask = u8;

/// Every lane.
pub const ALL_LANES: Mask = 0xF;

/// Zero in every component.
pub const ZERO: Vec4 = [0.0; 4];

/// Component `i & 3` of `v`.
#[inline]
pub fn pick(v: Vec4, i: u8) -> f32 {
    match i & 3 {
        0 => v[0],
        1 => v[1],
        2 => v[2],
        _ => v[3],
    }
}

/// Component `i & 3` of `v`, mutably.
#[inline]
pub fn pick_mut(v: &mut Vec4, i: u8) -> &mut f32 {
    match i & 3 {
        0 => &mut v[0],
        1 => &mut v[1],
        2 => &mut v[2],
        _ => &mut v[3],
    }
}

/// Lane `l & 3` of `v`.
#[inline]
pub fn lane<T: Copy>(v: &[T; LANES], l: usize) -> T {
    match l & 3 {
        0 => v[0],
        1 => v[1],
        2 => v[2],
        _ => v[3],
    }
}

/// Lane `l & 3` of `v`, mutably.
#[inline]
pub fn lane_mut<T>(v: &mut [T; LANES], l: usize) -> &mut T {
    match l & 3 {
        0 => &mut v[0],
        1 => &mut v[1],
        2 => &mut v[2],
        _ => &mut v[3],
    }
}

/// `f` applied to each component.
#[inline]
pub fn map(v: Vec4, f: impl Fn(f32) -> f32) -> Vec4 {
    [f(v[0]), f(v[1]), f(v[2]), f(v[3])]
}

/// `f` applied to each pair of components.
#[inline]
pub fn zip(a: Vec4, b: Vec4, f: impl Fn(f32, f32) -> f32) -> Vec4 {
    [f(a[0], b[0]), f(a[1], b[1]), f(a[2], b[2]), f(a[3], b[3])]
}

/// `f` applied to each triple of components.
#[inline]
pub fn zip3(a: Vec4, b: Vec4, c: Vec4, f: impl Fn(f32, f32, f32) -> f32) -> Vec4 {
    [
        f(a[0], b[0], c[0]),
        f(a[1], b[1], c[1]),
        f(a[2], b[2], c[2]),
        f(a[3], b[3], c[3]),
    ]
}

/// `f` applied to each lane.
#[inline]
pub fn per_lane<T: Copy, U>(v: &[T; LANES], f: impl Fn(T) -> U) -> [U; LANES] {
    [f(v[0]), f(v[1]), f(v[2]), f(v[3])]
}

/// `f` applied to lane numbers 0…3.
#[inline]
pub fn lanes_from<U>(f: impl Fn(usize) -> U) -> [U; LANES] {
    [f(0), f(1), f(2), f(3)]
}

/// x·x' + y·y' + z·z'.
#[inline]
pub fn dot3(a: Vec4, b: Vec4) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The four-component dot product.
#[inline]
pub fn dot4(a: Vec4, b: Vec4) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
}

/// `x` in every component.
#[inline]
pub fn splat(x: f32) -> Vec4 {
    [x; 4]
}

/// Whether lane `l` is set in `mask`.
#[inline]
pub fn active(mask: Mask, l: usize) -> bool {
    mask & (1u8 << (l & 3)) != 0
}

/// The mask of the lanes where `f` holds.
#[inline]
pub fn mask_where(f: impl Fn(usize) -> bool) -> Mask {
    (0..LANES).fold(0, |m, l| if f(l) { m | 1 << l } else { m })
}

/// Horizontal difference within the quad (right column − left column, per
/// row): the derivative along screen x, the same for both lanes of a row.
#[inline]
pub fn ddx(v: &Lanes) -> Lanes {
    let top = zip(v[1], v[0], |r, l| r - l);
    let bottom = zip(v[3], v[2], |r, l| r - l);
    [top, top, bottom, bottom]
}

/// Vertical difference within the quad (bottom row − top row, per column).
#[inline]
pub fn ddy(v: &Lanes) -> Lanes {
    let left = zip(v[2], v[0], |b, t| b - t);
    let right = zip(v[3], v[1], |b, t| b - t);
    [left, right, left, right]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quad_derivatives_take_neighbours() {
        // lane = x + 2y; value = 3x + 5y in every component.
        let v: Lanes = lanes_from(|l| splat((3 * (l & 1) + 5 * (l >> 1)) as f32));
        assert_eq!(ddx(&v), [splat(3.0); 4]);
        assert_eq!(ddy(&v), [splat(5.0); 4]);
    }

    #[test]
    fn pick_reads_each_component() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!([pick(v, 0), pick(v, 1), pick(v, 2), pick(v, 3)], v);
        assert_eq!(mask_where(|l| l % 2 == 1), 0b1010);
    }
}
