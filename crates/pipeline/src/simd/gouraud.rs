//! Gouraud span kernels: a span of 32-bit pixels from 16.16 colour
//! planes, no depth test, with or without fog fused from the specular
//! alpha.
//!
//! *Input*: the destination bytes of the span, the start colour and its
//! step per pixel, an AND mask (and the fog factor's start, step and
//! colour). *Output*: the written pixels.
//! *Guarantees*: one kernel, written over the vector layer ([`super::wide`])
//! and instantiated at every level, so every level writes the same bytes;
//! the tests compare each level with a pixel-at-a-time reference.
#![forbid(unsafe_code)]
use super::cascade8::table_fog8;
use super::depth24::FogLanes;
use super::merge::plane_z;
use super::wide::{I32x8, Kernel, Simd};
use super::SimdLevel;
use crate::cascade8::{FogByteTable, TableFog};

/// Writes `dst.len() / 4` 32-bit pixels of a Gouraud span: pixel i gets
/// channels `clamp((start + i·step) >> 16, 0, 255)`, ANDed with `and_mask`
/// (0x00FF_FFFF zeroes the X byte of X8R8G8B8).
pub(crate) fn gouraud_span(
    level: SimdLevel,
    dst: &mut [u8],
    start: [i32; 4],
    step: [i32; 4],
    and_mask: u32,
) {
    // By reference: the level's entry then reads each argument as it was
    // written. Passed by value, the arguments were copied as a block right
    // after their stores, and the copy's 8-byte read over the 4-byte
    // `and_mask` stalled on store forwarding once per span (a fifth of
    // W2's time).
    level.dispatch(&mut GouraudSpan {
        dst,
        start,
        step,
        and_mask,
    });
}

/// The colour vectors of a span's first 8 pixels from its 16.16 start
/// colour and step per pixel, and their step per 8 pixels: vector k holds
/// pixel k (BGRA) in its low half and pixel k + 4 in its high half, the
/// arrangement `pack_u8_sat` turns into pixels 0..8 in order.
#[inline(always)]
fn span_vectors<S: Simd>(s: S, start: [i32; 4], step: [i32; 4]) -> ([S::I32x8; 4], S::I32x8) {
    let step2 = s.repeat4_i32(step);
    let high = s.i32x8([0, 0, 0, 0, -1, -1, -1, -1]);
    let v0 = s.repeat4_i32(start) + (step2.shl::<2>() & high);
    let v1 = v0 + step2;
    let v2 = v1 + step2;
    ([v0, v1, v2, v2 + step2], step2.shl::<3>())
}

/// The arguments of [`gouraud_span`].
struct GouraudSpan<'a> {
    dst: &'a mut [u8],
    start: [i32; 4],
    step: [i32; 4],
    and_mask: u32,
}

impl Kernel for &mut GouraudSpan<'_> {
    type Output = ();

    #[inline(always)]
    fn run<S: Simd>(self, s: S) {
        let GouraudSpan {
            dst,
            start,
            step,
            and_mask,
        } = self;
        let (start, step, and_mask) = (*start, *step, *and_mask);
        let (mut v, step8) = span_vectors(s, start, step);
        let and_mask = s.splat_i32(and_mask as i32);
        let pixels = |v: &[S::I32x8; 4]| S::I32x8::pack_u8_sat(v.map(|c| c.shr::<16>())) & and_mask;
        let (body, tail) = dst.as_chunks_mut::<32>();
        for chunk in body {
            pixels(&v).store(chunk);
            for c in &mut v {
                *c = *c + step8;
            }
        }
        if tail.len() >= 4 {
            pixels(&v).store_prefix(tail);
        }
    }
}

/// Where the fog factors of [`gouraud_fog_span`] come from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SpanFog<'a> {
    /// Vertex fog: the specular alpha's 16.16 plane (factor × 255) at the
    /// span's first pixel and its step per pixel; pixel i's factor is
    /// `clamp((start + i·step) >> 16, 0, 255)`.
    Plane(i32, i32),
    /// Table fog of each pixel's depth `(zref + dzdx·fx) + zy`
    /// (`super::merge::plane_z`; `fx` the pixel's column relative to the
    /// plane's reference, `fx0` for the span's first pixel): the bytes of
    /// `super::cascade8`'s `table_fog8` (LINEAR in lanes, EXP and EXP2 by
    /// the lookup `bytes` or one `exp` a lane), so the 8-bit cascade's.
    Table {
        zref: f32,
        dzdx: f32,
        zy: f32,
        fx0: i32,
        table: &'a TableFog,
        bytes: Option<&'a FogByteTable>,
    },
}

/// [`gouraud_span`] with fog fused: pixel i's channels `c =
/// clamp((start + i·step) >> 16, 0, 255)` and factor `f` ([`SpanFog`])
/// give the colour channels `round((c·f + fc·(255 − f)) / 255)` of the
/// fog colour `fc` (blue, green, red, unused) and the alpha `c`, ANDed
/// with `and_mask`: the pixels of `super::gouraud_depth24_spans`' fogged
/// kernel (`super::depth24::FogLanes`) without its depth test, and of the
/// 8-bit cascade with no stage.
pub(crate) fn gouraud_fog_span(
    level: SimdLevel,
    dst: &mut [u8],
    start: [i32; 4],
    step: [i32; 4],
    and_mask: u32,
    fog: SpanFog<'_>,
    fog_color: [i32; 4],
) {
    level.dispatch(&mut GouraudFogSpan {
        dst,
        start,
        step,
        and_mask,
        fog,
        fog_color,
    });
}

/// The arguments of [`gouraud_fog_span`].
struct GouraudFogSpan<'a> {
    dst: &'a mut [u8],
    start: [i32; 4],
    step: [i32; 4],
    and_mask: u32,
    fog: SpanFog<'a>,
    fog_color: [i32; 4],
}

/// The fog factors of 8 pixels after 8 pixels (bytes, lane `i` = pixel
/// `i`).
trait Factors<S: Simd> {
    fn next8(&mut self, s: S) -> S::I32x8;
}

/// [`SpanFog::Plane`]'s factors: the 16.16 values of the next 8 pixels.
struct PlaneFactors<S: Simd> {
    fr: S::I32x8,
    step8: S::I32x8,
}

impl<S: Simd> Factors<S> for PlaneFactors<S> {
    #[inline(always)]
    fn next8(&mut self, s: S) -> S::I32x8 {
        let f = self
            .fr
            .shr::<16>()
            .max(s.splat_i32(0))
            .min(s.splat_i32(255));
        self.fr = self.fr + self.step8;
        f
    }
}

/// [`SpanFog::Table`]'s factors: the columns of the next 8 pixels.
struct TableFactors<'a, S: Simd> {
    fx: S::I32x8,
    zref: S::F32x8,
    dzdx: S::F32x8,
    zy: S::F32x8,
    end: S::F32x8,
    span: S::F32x8,
    table: &'a TableFog,
    bytes: Option<&'a FogByteTable>,
}

impl<S: Simd> Factors<S> for TableFactors<'_, S> {
    #[inline(always)]
    fn next8(&mut self, s: S) -> S::I32x8 {
        let z = plane_z::<S>(self.zref, self.dzdx, self.zy, self.fx.to_f32());
        self.fx = self.fx + s.splat_i32(8);
        table_fog8(s, self.table, self.bytes, z, self.end, self.span)
    }
}

/// The span loop of [`gouraud_fog_span`] with its factors from `f`.
#[inline(always)]
fn fog_loop<S: Simd, F: Factors<S>>(
    s: S,
    dst: &mut [u8],
    start: [i32; 4],
    step: [i32; 4],
    and_mask: u32,
    mut f: F,
    fog_color: [i32; 4],
) {
    let (mut v, step8) = span_vectors(s, start, step);
    let lanes = FogLanes::new(s, fog_color);
    let and_mask = s.splat_i32(and_mask as i32);
    let (body, tail) = dst.as_chunks_mut::<32>();
    for chunk in body {
        (lanes.pixels_f8(s, &v, f.next8(s)) & and_mask).store(chunk);
        for c in &mut v {
            *c = *c + step8;
        }
    }
    if tail.len() >= 4 {
        (lanes.pixels_f8(s, &v, f.next8(s)) & and_mask).store_prefix(tail);
    }
}

impl Kernel for &mut GouraudFogSpan<'_> {
    type Output = ();

    #[inline(always)]
    fn run<S: Simd>(self, s: S) {
        let lane = s.i32x8([0, 1, 2, 3, 4, 5, 6, 7]);
        let (dst, start, step, and_mask, fog_color) = (
            &mut *self.dst,
            self.start,
            self.step,
            self.and_mask,
            self.fog_color,
        );
        match self.fog {
            SpanFog::Plane(f0, fs) => {
                let fsx = s.splat_i32(fs);
                let f = PlaneFactors::<S> {
                    fr: s.splat_i32(f0) + lane.mul(fsx),
                    step8: fsx.shl::<3>(),
                };
                fog_loop(s, dst, start, step, and_mask, f, fog_color);
            }
            SpanFog::Table {
                zref,
                dzdx,
                zy,
                fx0,
                table,
                bytes,
            } => {
                let f = TableFactors::<S> {
                    fx: s.splat_i32(fx0) + lane,
                    zref: s.splat_f32(zref),
                    dzdx: s.splat_f32(dzdx),
                    zy: s.splat_f32(zy),
                    end: s.splat_f32(table.end),
                    span: s.splat_f32(table.end - table.start),
                    table,
                    bytes,
                };
                fog_loop(s, dst, start, step, and_mask, f, fog_color);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::depth24::fog8;
    use super::super::tests::LEVELS;
    use super::super::{clamp8, color_at, pack_pixel};
    use super::*;
    use crate::fog::FogMode;
    use proptest::prelude::*;

    /// One pixel at a time, as the documentation of [`gouraud_span`] says.
    fn reference(dst: &mut [u8], start: [i32; 4], step: [i32; 4], and_mask: u32) {
        let mut v = start;
        for px in dst.chunks_exact_mut(4) {
            px.copy_from_slice(&pack_pixel(&v, and_mask).to_le_bytes());
            for (c, d) in v.iter_mut().zip(step) {
                *c = c.wrapping_add(d);
            }
        }
    }

    #[test]
    fn gouraud_span_clamps_each_channel() {
        // Blue starts at −1.0 and steps +0.75 → −1, −0.25, 0.5, 1.25 → 0,
        // 0, 0, 1 (>> 16 floors); red at 254.5 stepping +0.5 → 254, 255,
        // 255 (255.5), 256 → 255; green constant 7, alpha constant 300 →
        // 255. The last byte of dst (not a whole pixel) is untouched.
        let start = [-65536, 7 << 16, 254 * 65536 + 32768, 300 << 16];
        let step = [49152, 0, 32768, 0];
        for level in [SimdLevel::Scalar].into_iter().chain(LEVELS) {
            let mut got = [0xAAu8; 17];
            gouraud_span(level.clamp_to_cpu(), &mut got, start, step, u32::MAX);
            #[rustfmt::skip]
            let want = [
                0, 7, 254, 255,
                0, 7, 255, 255,
                0, 7, 255, 255,
                1, 7, 255, 255,
                0xAA,
            ];
            assert_eq!(got, want, "{level:?}");
        }
    }

    /// One pixel at a time, as the documentation of [`gouraud_fog_span`]
    /// says: the factor of pixel `i` is `factor(i)`.
    fn fog_reference(
        dst: &mut [u8],
        start: [i32; 4],
        step: [i32; 4],
        and_mask: u32,
        factor: impl Fn(usize) -> i32,
        fog_color: [i32; 4],
    ) {
        for (i, px) in dst.chunks_exact_mut(4).enumerate() {
            let v = color_at(&start, &step, i);
            let f8 = factor(i);
            let ch = |k: usize| fog8(i32::from(clamp8(v[k])), f8, fog_color[k]) as u8;
            let p = u32::from_le_bytes([ch(0), ch(1), ch(2), clamp8(v[3])]) & and_mask;
            px.copy_from_slice(&p.to_le_bytes());
        }
    }

    #[test]
    fn gouraud_fog_span_by_hand() {
        // Colour (B, G, R, A) = (200, 100, 0, 77), constant; fog colour
        // (B, G, R) = (0, 50, 255). The factor starts at 255 and steps
        // −127.5: 255, 127.5 → 127, 0, −127.5 → 0. Blue: 200 at f = 255;
        // round(200·127 / 255) = round(99.6) = 100; 0. Green: 100;
        // round((100·127 + 50·128) / 255) = round(74.9) = 75; 50. Red:
        // 0; round(255·128 / 255) = 128; 255. Alpha 77 throughout; the
        // X8R8G8B8 mask zeroes it. The 17th byte is untouched.
        let start = [200 << 16, 100 << 16, 0, 77 << 16];
        let fog = SpanFog::Plane(255 << 16, -(127 << 16) - 32768);
        for level in [SimdLevel::Scalar].into_iter().chain(LEVELS) {
            let mut got = [0xAAu8; 17];
            let (l, c) = (level.clamp_to_cpu(), [0, 50, 255, 0]);
            gouraud_fog_span(l, &mut got, start, [0; 4], 0x00FF_FFFF, fog, c);
            #[rustfmt::skip]
            let want = [
                200, 100, 0, 0,
                100, 75, 128, 0,
                0, 50, 255, 0,
                0, 50, 255, 0,
                0xAA,
            ];
            assert_eq!(got, want, "{level:?}");
        }
    }

    proptest! {
        #[test]
        fn gouraud_fog_span_matches_scalar(
            n in 0usize..70,
            start in proptest::array::uniform4(any::<i32>()),
            step in proptest::array::uniform4(any::<i32>()),
            f0 in any::<i32>(),
            fs in any::<i32>(),
            fc in proptest::array::uniform3(0i32..256),
            xmask in any::<bool>(),
            odd in 0usize..4,
        ) {
            let and_mask = if xmask { 0x00FF_FFFF } else { u32::MAX };
            let color = [fc[0], fc[1], fc[2], 0];
            let factor = |i: usize| i32::from(clamp8(f0.wrapping_add(fs.wrapping_mul(i as i32))));
            let mut want = vec![0xAAu8; n * 4 + odd];
            fog_reference(&mut want, start, step, and_mask, factor, color);
            for level in [SimdLevel::Scalar].into_iter().chain(LEVELS) {
                let level = level.clamp_to_cpu();
                let mut got = vec![0xAAu8; n * 4 + odd];
                let fog = SpanFog::Plane(f0, fs);
                gouraud_fog_span(level, &mut got, start, step, and_mask, fog, color);
                prop_assert_eq!(&got, &want, "{:?}", level);
            }
        }

        /// Table fog of z: each pixel's factor is `TableFog::factor8` of
        /// its depth `(zref + dzdx·(fx0 + i)) + zy` (the 8-bit cascade's
        /// byte), for every formula, with and without the EXP/EXP2
        /// lookup.
        #[test]
        fn gouraud_table_fog_span_matches_scalar(
            n in 0usize..70,
            start in proptest::array::uniform4(any::<i32>()),
            step in proptest::array::uniform4(-0x4_0000i32..0x4_0000),
            fc in proptest::array::uniform3(0i32..256),
            mode in 0usize..3,
            fog_start in -1.0f32..2.0,
            fog_end in -1.0f32..2.0,
            density in 0.0f32..4.0,
            z in (-0.5f32..1.5, -0.05f32..0.05, -0.5f32..0.5, -40i32..40),
            lookup in any::<bool>(),
        ) {
            let table = TableFog {
                mode: [FogMode::Linear, FogMode::Exp, FogMode::Exp2][mode],
                start: fog_start,
                end: fog_end,
                density,
            };
            let bytes = lookup.then(|| FogByteTable::new(table.mode, density)).flatten();
            let (zref, dzdx, zy, fx0) = z;
            let color = [fc[0], fc[1], fc[2], 0];
            let factor = |i: usize| table.factor8((zref + dzdx * (fx0 + i as i32) as f32) + zy);
            let mut want = vec![0xAAu8; n * 4];
            fog_reference(&mut want, start, step, u32::MAX, factor, color);
            for level in [SimdLevel::Scalar].into_iter().chain(LEVELS) {
                let level = level.clamp_to_cpu();
                let mut got = vec![0xAAu8; n * 4];
                let fog = SpanFog::Table { zref, dzdx, zy, fx0, table: &table, bytes: bytes.as_ref() };
                gouraud_fog_span(level, &mut got, start, step, u32::MAX, fog, color);
                prop_assert_eq!(&got, &want, "{:?}", level);
            }
        }

        #[test]
        fn gouraud_span_matches_scalar(
            n in 0usize..70,
            start in proptest::array::uniform4(any::<i32>()),
            step in proptest::array::uniform4(any::<i32>()),
            xmask in any::<bool>(),
            odd in 0usize..4,
        ) {
            let and_mask = if xmask { 0x00FF_FFFF } else { u32::MAX };
            let mut want = vec![0xAAu8; n * 4 + odd];
            reference(&mut want, start, step, and_mask);
            for level in [SimdLevel::Scalar].into_iter().chain(LEVELS) {
                let level = level.clamp_to_cpu();
                let mut got = vec![0xAAu8; n * 4 + odd];
                gouraud_span(level, &mut got, start, step, and_mask);
                prop_assert_eq!(&got, &want, "{:?}", level);
            }
        }
    }
}
