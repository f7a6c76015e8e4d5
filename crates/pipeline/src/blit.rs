//! The blitter: pixel work that is not drawing — copies and stretches
//! between surfaces, colour fills, mip-sublevel generation.
//!
//! In: planes ([`Plane`], [`PlaneMut`]: one face and level of a texture,
//! or a render-target / depth image) in a texel-wise format of at most 4
//! bytes ([`Texel`]), rectangles (right and bottom exclusive), a
//! D3DCOLOR. Out: texels written inside the destination rectangle only.
//!
//! Rules (those of DP2's BLT / SURFACEBLT, COLORFILL and
//! GENERATEMIPSUBLEVELS as softhal implements them, `docs/device.md`):
//! * [`stretch`] maps the source rectangle onto the destination rectangle
//!   with point sampling (destination texel `x` reads source texel
//!   `left + x·sw/dw`, rounded down); the DDI's filter flags do not change
//!   the result. Equal formats copy the stored bits; two different colour
//!   formats convert through A8R8G8B8 ([`Format::decode_argb`] then
//!   [`Format::encode_argb`]). DP2's BLT has no colour-key flag, so there
//!   is no colour key here.
//! * [`fill`] writes a D3DCOLOR encoded in the destination's colour format.
//! * [`generate_mips`] fills levels 1.. of every face from the level above
//!   with a 2×2 box filter in A8R8G8B8 (rounded mean; at an odd edge the
//!   last texel of the level above is used again).
//!
//! Guarantees: rectangles are validated before the GPU runs a packet
//! (`submit`'s verifiers), but the blitter does not rely on it: a
//! rectangle outside its plane, an empty one, a plane whose bytes are too
//! short for its size, or formats that cannot be copied are refused
//! (`false`, nothing written); every index is checked; nothing panics.
//! The whole source is read before anything is written, so callers that
//! copy within one plane pass a copy of it as the source.

use crate::format::Format;
use crate::math::Rect;
use crate::texture::format::TexelLayout;
use crate::texture::{Texture, TextureFormat};

/// A plane's texel format as the blitter sees it: bytes per texel (1–4)
/// and, for colour render-target formats, the [`Format`] used to convert
/// and fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Texel {
    /// Bytes per texel (1..=4).
    pub bytes: usize,
    /// The colour format (`None`: depth, luminance, palettized, …: copied
    /// bit for bit only).
    pub color: Option<Format>,
}

impl Texel {
    /// The texel of an image format; `None` above 4 bytes.
    pub fn of_format(f: Format) -> Option<Texel> {
        let bytes = f.bytes_per_pixel() as usize;
        (1..=4).contains(&bytes).then_some(Texel {
            bytes,
            color: f.is_color().then_some(f),
        })
    }
    /// The texel of a texture format: packed formats of at most 4 bytes
    /// (`None` for block, macro-pixel and wider formats). Its colour
    /// format is the render-target format with the same D3DFORMAT number
    /// and texel size, if any.
    pub fn of_texture(f: TextureFormat) -> Option<Texel> {
        let TexelLayout::Packed { bytes } = f.layout() else {
            return None;
        };
        let bytes = bytes as usize;
        if !(1..=4).contains(&bytes) {
            return None;
        }
        let color = Format::from_d3dfmt(f.d3dfmt())
            .filter(|c| c.is_color() && c.bytes_per_pixel() as usize == bytes);
        Some(Texel { bytes, color })
    }
}

/// A plane to read: rows of `width` texels `pitch` bytes apart, `height`
/// rows (the slices of a volume level stacked as more rows).
#[derive(Debug, Clone, Copy)]
pub struct Plane<'a> {
    /// The bytes.
    pub bytes: &'a [u8],
    /// Bytes from one row to the next.
    pub pitch: usize,
    /// Texels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// The texel format.
    pub texel: Texel,
}

/// A plane to write (fields as [`Plane`]).
#[derive(Debug)]
pub struct PlaneMut<'a> {
    /// The bytes.
    pub bytes: &'a mut [u8],
    /// Bytes from one row to the next.
    pub pitch: usize,
    /// Texels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// The texel format.
    pub texel: Texel,
}

impl<'a> Plane<'a> {
    /// Face `face`, level `level` of a texture (all slices of a volume
    /// level); `None` if it does not exist or the format is not texel-wise.
    pub fn of_level(t: &'a Texture, face: u32, level: u32) -> Option<Plane<'a>> {
        let info = t.level_info(level)?;
        Some(Plane {
            bytes: t.level_bytes(face, level)?,
            pitch: info.row_pitch,
            width: info.width,
            height: info.height.checked_mul(info.depth)?,
            texel: Texel::of_texture(t.format())?,
        })
    }
}

/// The byte range of texel (x, y); `None` if it does not fit a `usize`.
fn at(x: u32, y: u32, pitch: usize, bpp: usize) -> Option<core::ops::Range<usize>> {
    let o = (y as usize)
        .checked_mul(pitch)?
        .checked_add((x as usize).checked_mul(bpp)?)?;
    Some(o..o.checked_add(bpp)?)
}

fn load(b: &[u8]) -> u32 {
    let mut v = [0u8; 4];
    for (d, s) in v.iter_mut().zip(b) {
        *d = *s;
    }
    u32::from_le_bytes(v)
}

fn store(b: &mut [u8], v: u32) {
    for (d, s) in b.iter_mut().zip(v.to_le_bytes()) {
        *d = s;
    }
}

/// The rectangle as unsigned (left, top, width, height) if it is
/// non-empty and inside a `width × height` plane whose bytes hold every
/// row it touches.
fn inside(
    r: Rect,
    width: u32,
    height: u32,
    pitch: usize,
    bpp: usize,
    len: usize,
) -> Option<[u32; 4]> {
    let (l, t) = (u32::try_from(r.x1).ok()?, u32::try_from(r.y1).ok()?);
    let (rr, b) = (u32::try_from(r.x2).ok()?, u32::try_from(r.y2).ok()?);
    if l >= rr || t >= b || rr > width || b > height {
        return None;
    }
    // The last texel of the rectangle must be inside the bytes.
    let last = at(rr.checked_sub(1)?, b.checked_sub(1)?, pitch, bpp)?;
    if last.end > len {
        return None;
    }
    Some([l, t, rr.checked_sub(l)?, b.checked_sub(t)?])
}

/// `v × to / from`, rounded down (point sampling of a stretch).
fn scale(v: u32, to: u32, from: u32) -> Option<u32> {
    let s = u64::from(v)
        .checked_mul(u64::from(to))?
        .checked_div(u64::from(from))?;
    u32::try_from(s).ok()
}

/// Copies source rectangle `sr` of `src` onto destination rectangle `dr`
/// of `dst`, stretching with point sampling and converting between colour
/// formats (module rules). False (nothing written) if a rectangle is
/// empty or outside its plane, or the formats differ and are not both
/// colour formats.
#[must_use]
pub fn stretch(src: &Plane<'_>, sr: Rect, dst: &mut PlaneMut<'_>, dr: Rect) -> bool {
    let (st, dt) = (src.texel, dst.texel);
    let Some([sx0, sy0, sw, sh]) = inside(
        sr,
        src.width,
        src.height,
        src.pitch,
        st.bytes,
        src.bytes.len(),
    ) else {
        return false;
    };
    let Some([dx0, dy0, dw, dh]) = inside(
        dr,
        dst.width,
        dst.height,
        dst.pitch,
        dt.bytes,
        dst.bytes.len(),
    ) else {
        return false;
    };
    let convert = match (st.color, dt.color) {
        (Some(s), Some(d)) if s != d => Some((s, d)),
        _ if st == dt => None,
        _ => return false,
    };
    // Source byte offset of each destination column (inside the row: the
    // rectangle was checked).
    let cols: Option<Vec<usize>> = (0..dw)
        .map(|x| {
            let sx = sx0.checked_add(scale(x, sw, dw)?)?;
            (sx as usize).checked_mul(st.bytes)
        })
        .collect();
    let Some(cols) = cols else { return false };
    for y in 0..dh {
        let Some(sy) = scale(y, sh, dh).and_then(|v| sy0.checked_add(v)) else {
            return false;
        };
        let Some(srow) = (sy as usize)
            .checked_mul(src.pitch)
            .and_then(|o| src.bytes.get(o..))
        else {
            return false;
        };
        let Some(dstart) = dy0
            .checked_add(y)
            .and_then(|dy| at(dx0, dy, dst.pitch, dt.bytes))
        else {
            return false;
        };
        let Some(drow) = dst.bytes.get_mut(dstart.start..) else {
            return false;
        };
        for (&c, out) in cols.iter().zip(drow.chunks_mut(dt.bytes)) {
            let raw = load(
                c.checked_add(st.bytes)
                    .and_then(|e| srow.get(c..e))
                    .unwrap_or_default(),
            );
            let v = match convert {
                Some((s, d)) => d.encode_argb(s.decode_argb(raw)),
                None => raw,
            };
            store(out, v);
        }
    }
    true
}

/// Fills rectangle `r` of `dst` with D3DCOLOR `argb` in its colour
/// format. False (nothing written) if the rectangle is empty or outside
/// the plane, or the plane has no colour format.
#[must_use]
pub fn fill(dst: &mut PlaneMut<'_>, r: Rect, argb: u32) -> bool {
    let t = dst.texel;
    let Some(color) = t.color else { return false };
    let Some([x0, y0, w, h]) = inside(
        r,
        dst.width,
        dst.height,
        dst.pitch,
        t.bytes,
        dst.bytes.len(),
    ) else {
        return false;
    };
    let raw = color.encode_argb(argb).to_le_bytes();
    let texel = raw.get(..t.bytes).unwrap_or_default();
    for y in y0..y0.saturating_add(h) {
        let Some(row) = at(x0, y, dst.pitch, t.bytes).and_then(|r| dst.bytes.get_mut(r.start..))
        else {
            return false;
        };
        for out in row.chunks_mut(t.bytes).take(w as usize) {
            for (d, s) in out.iter_mut().zip(texel) {
                *d = *s;
            }
        }
    }
    true
}

/// One level of the box filter: every texel of `dst` from the 2×2 texels
/// of `src` above it (clamped to `src`'s last row and column).
fn box_level(src: &Plane<'_>, dst: &mut PlaneMut<'_>, color: Format) -> bool {
    let bpp = src.texel.bytes;
    let (sw, sh) = (src.width.saturating_sub(1), src.height.saturating_sub(1));
    for y in 0..dst.height {
        for x in 0..dst.width {
            let mut acc = [0u32; 4];
            for (ox, oy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let xx = x.saturating_mul(2).saturating_add(ox).min(sw);
                let yy = y.saturating_mul(2).saturating_add(oy).min(sh);
                let raw = at(xx, yy, src.pitch, bpp).and_then(|r| src.bytes.get(r));
                let c = color.decode_argb(load(raw.unwrap_or_default()));
                // Four bytes of at most 255 each: no saturation.
                for (acc, byte) in acc.iter_mut().zip(c.to_le_bytes()) {
                    *acc = acc.saturating_add(u32::from(byte));
                }
            }
            // The rounded mean of four bytes is a byte.
            let argb = u32::from_le_bytes(
                acc.map(|s| u8::try_from(s.saturating_add(2) / 4).unwrap_or(u8::MAX)),
            );
            match at(x, y, dst.pitch, bpp).and_then(|r| dst.bytes.get_mut(r)) {
                Some(out) => store(out, color.encode_argb(argb)),
                None => return false,
            }
        }
    }
    true
}

/// GENERATEMIPSUBLEVELS: levels 1.. of every face of `t` from the level
/// above (module rules). False if the texture's format has no colour
/// format (nothing written) or a level's storage is not its size (the
/// levels before it are written).
#[must_use]
pub fn generate_mips(t: &mut Texture) -> bool {
    let Some(texel) = Texel::of_texture(t.format()) else {
        return false;
    };
    let Some(color) = texel.color else {
        return false;
    };
    for face in 0..t.face_count() {
        for level in 1..t.level_count() {
            let Some(info) = t.level_info(level) else {
                return false;
            };
            let Some(mut bytes) = t.take_level(face, level) else {
                return false;
            };
            let ok = match level
                .checked_sub(1)
                .and_then(|above| Plane::of_level(t, face, above))
            {
                Some(src) => {
                    let mut dst = PlaneMut {
                        bytes: &mut bytes,
                        pitch: info.row_pitch,
                        width: info.width,
                        height: info.height,
                        texel,
                    };
                    box_level(&src, &mut dst, color)
                }
                None => false,
            };
            if !t.put_level(face, level, bytes) || !ok {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plane(bytes: &mut [u8], w: u32, h: u32, f: Format) -> PlaneMut<'_> {
        let texel = Texel::of_format(f).unwrap_or_else(|| panic!("texel-wise"));
        PlaneMut {
            pitch: w as usize * texel.bytes,
            bytes,
            width: w,
            height: h,
            texel,
        }
    }

    #[test]
    fn rectangles_outside_or_empty_are_refused_and_write_nothing() {
        let mut b = vec![0u8; 4 * 4 * 4];
        for r in [
            Rect::new(0, 0, 5, 4),
            Rect::new(-1, 0, 2, 2),
            Rect::new(2, 2, 2, 3),
            Rect::new(3, 1, 2, 2),
            Rect::new(0, 0, i32::MAX, i32::MAX),
        ] {
            let mut p = plane(&mut b, 4, 4, Format::A8R8G8B8);
            assert!(!fill(&mut p, r, 0xFFFF_FFFF), "{r:?}");
        }
        assert!(b.iter().all(|&x| x == 0));
        // A plane whose bytes are shorter than its size.
        let mut short = vec![0u8; 10];
        let mut p = plane(&mut short, 4, 4, Format::A8R8G8B8);
        assert!(!fill(&mut p, Rect::new(0, 0, 4, 4), 1));
        assert!(short.iter().all(|&x| x == 0));
    }

    #[test]
    fn stretch_by_two_repeats_each_source_texel() {
        // 2×1 R5G6B5 source: red, blue → 4×1 destination.
        let src_bytes = [0x00, 0xF8, 0x1F, 0x00];
        let src = Plane {
            bytes: &src_bytes,
            pitch: 4,
            width: 2,
            height: 1,
            texel: Texel::of_format(Format::R5G6B5).unwrap_or_else(|| panic!()),
        };
        let mut d = vec![0u8; 8];
        let mut dst = plane(&mut d, 4, 1, Format::R5G6B5);
        assert!(stretch(
            &src,
            Rect::new(0, 0, 2, 1),
            &mut dst,
            Rect::new(0, 0, 4, 1)
        ));
        assert_eq!(d, [0x00, 0xF8, 0x00, 0xF8, 0x1F, 0x00, 0x1F, 0x00]);
    }
}
