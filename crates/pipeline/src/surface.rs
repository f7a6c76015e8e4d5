//! Surfaces: the byte storage render targets and depth buffers live in.
//!
//! *Input*: a format, a size and optionally a pitch (or existing bytes of
//! exactly that size: a texture level rendered into). *Output*: a zeroed,
//! size-checked `Vec<u8>` of `pitch × height` little-endian bytes, with
//! pixel helpers, PNG export and the rows without the pitch's padding
//! (tight rows, both ways). The pitch the device gives what it renders
//! into is [`render_pitch`]'s. *Guarantees*: the size is checked with
//! checked arithmetic against [`crate::limits`]; `pitch ≥ width × bpp`
//! always holds, so every pixel of every row is inside the storage; pixel
//! helpers return `None` out of bounds instead of panicking.
//!
//! *Not handled here*: lock/unlock semantics (the device exposes
//! [`Surface::bytes_mut`] for that).

use crate::error::PipelineError;
use crate::format::{load_raw, store_raw, Format};
use crate::int::usize_from;
use crate::limits;

/// A 2D array of pixels of one [`Format`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Surface {
    format: Format,
    width: u32,
    height: u32,
    pitch: usize,
    data: Vec<u8>,
}

impl Surface {
    /// A zeroed surface with the tightest pitch (`width × bpp`).
    pub fn new(format: Format, width: u32, height: u32) -> Result<Self, PipelineError> {
        Self::with_pitch(format, width, height, tight_pitch(format, width))
    }

    /// A zeroed surface to render into, with the pitch of [`render_pitch`].
    pub fn for_rendering(format: Format, width: u32, height: u32) -> Result<Self, PipelineError> {
        Self::with_pitch(format, width, height, render_pitch(format, width))
    }

    /// A zeroed surface whose rows are `pitch` bytes apart (`pitch` may
    /// exceed `width × bpp`).
    pub fn with_pitch(
        format: Format,
        width: u32,
        height: u32,
        pitch: u64,
    ) -> Result<Self, PipelineError> {
        if width == 0
            || height == 0
            || width > limits::MAX_DIMENSION
            || height > limits::MAX_DIMENSION
        {
            return Err(PipelineError::BadDimensions {
                width,
                height,
                max: limits::MAX_DIMENSION,
            });
        }
        let bpp = format.bytes_per_pixel();
        let row = u64::from(width) * u64::from(bpp);
        if pitch < row || pitch > limits::MAX_PITCH {
            return Err(PipelineError::BadPitch {
                pitch,
                width,
                bytes_per_pixel: bpp,
            });
        }
        let bytes = pitch
            .checked_mul(u64::from(height))
            .filter(|&b| b <= limits::MAX_SURFACE_BYTES)
            .ok_or(PipelineError::SurfaceTooLarge {
                bytes: pitch.saturating_mul(u64::from(height)),
                max: limits::MAX_SURFACE_BYTES,
            })?;
        let len = usize::try_from(bytes).map_err(|_| PipelineError::SurfaceTooLarge {
            bytes,
            max: limits::MAX_SURFACE_BYTES,
        })?;
        let pitch = usize::try_from(pitch).map_err(|_| PipelineError::SurfaceTooLarge {
            bytes,
            max: limits::MAX_SURFACE_BYTES,
        })?;
        Ok(Surface {
            format,
            width,
            height,
            pitch,
            data: vec![0; len],
        })
    }

    /// A surface over existing bytes (a texture level bound as a render
    /// target): the same checks as [`Surface::with_pitch`], and `data`
    /// must be exactly `pitch × height` bytes. On error the bytes come
    /// back with it.
    pub fn from_bytes(
        format: Format,
        width: u32,
        height: u32,
        pitch: u64,
        data: Vec<u8>,
    ) -> Result<Self, (PipelineError, Vec<u8>)> {
        // Checks the size without allocating (a 1-row surface), then the
        // height and the length of the given bytes.
        let shape = match Self::with_pitch(format, width, 1, pitch) {
            Ok(s) => s,
            Err(e) => return Err((e, data)),
        };
        if height == 0 || height > limits::MAX_DIMENSION {
            let e = PipelineError::BadDimensions {
                width,
                height,
                max: limits::MAX_DIMENSION,
            };
            return Err((e, data));
        }
        let bytes = pitch.saturating_mul(u64::from(height));
        if bytes > limits::MAX_SURFACE_BYTES || bytes != data.len() as u64 {
            let e = PipelineError::SurfaceTooLarge {
                bytes,
                max: data.len() as u64,
            };
            return Err((e, data));
        }
        Ok(Surface {
            format,
            width,
            height,
            pitch: shape.pitch,
            data,
        })
    }

    /// The storage, given up (the inverse of [`Surface::from_bytes`]).
    pub fn into_bytes(self) -> Vec<u8> {
        self.data
    }

    /// The pixel format.
    pub fn format(&self) -> Format {
        self.format
    }
    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }
    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }
    /// Distance between rows in bytes.
    pub fn pitch(&self) -> usize {
        self.pitch
    }
    /// The raw little-endian storage (`pitch × height` bytes).
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }
    /// Bytes of a row's pixels: `width × bpp` (at most the pitch).
    pub fn row_bytes(&self) -> usize {
        usize_from(self.width) * usize_from(self.format.bytes_per_pixel())
    }
    /// The rows top to bottom, each its [`Surface::row_bytes`] (a padded
    /// pitch's bytes left out).
    pub fn rows(&self) -> impl Iterator<Item = &[u8]> {
        let row = self.row_bytes();
        self.data
            .chunks(self.pitch)
            .filter_map(move |r| r.get(..row))
    }
    /// The pixels as tight rows ([`Surface::rows`] back to back): the
    /// storage itself when the pitch has no padding.
    pub fn tight_bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        if self.pitch == self.row_bytes() {
            std::borrow::Cow::Borrowed(&self.data)
        } else {
            std::borrow::Cow::Owned(self.rows().flatten().copied().collect())
        }
    }
    /// The raw storage, writable (the device's lock).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.data
    }

    fn offset(&self, x: u32, y: u32) -> Option<usize> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let bpp = usize_from(self.format.bytes_per_pixel());
        Some(usize_from(y) * self.pitch + usize_from(x) * bpp)
    }

    /// The packed value of pixel (x, y), `None` outside the surface.
    pub fn read_pixel(&self, x: u32, y: u32) -> Option<u32> {
        let o = self.offset(x, y)?;
        let bpp = usize_from(self.format.bytes_per_pixel());
        self.data.get(o..o + bpp).map(|b| load_raw(b, bpp))
    }

    /// Writes the packed value of pixel (x, y); returns false outside.
    pub fn write_pixel(&mut self, x: u32, y: u32, raw: u32) -> bool {
        let Some(o) = self.offset(x, y) else {
            return false;
        };
        let bpp = usize_from(self.format.bytes_per_pixel());
        match self.data.get_mut(o..o + bpp) {
            Some(b) => {
                store_raw(b, bpp, raw);
                true
            }
            None => false,
        }
    }

    /// Pixel (x, y) of a colour surface as A8R8G8B8.
    pub fn read_argb(&self, x: u32, y: u32) -> Option<u32> {
        self.read_pixel(x, y).map(|r| self.format.decode_argb(r))
    }

    /// Depth of pixel (x, y) of a depth surface, in `[0, 1]`.
    pub fn read_depth(&self, x: u32, y: u32) -> Option<f32> {
        let raw = self.read_pixel(x, y)?;
        Some(self.format.depth_to_float(self.format.unpack_depth(raw)))
    }

    /// Stencil of pixel (x, y) of a depth/stencil surface.
    pub fn read_stencil(&self, x: u32, y: u32) -> Option<u32> {
        self.read_pixel(x, y).map(|r| self.format.unpack_stencil(r))
    }

    /// The image as tightly packed RGBA8 bytes (colour formats decoded,
    /// missing alpha = 255; depth formats as opaque grey levels of depth).
    pub fn to_rgba8(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(usize_from(self.width) * usize_from(self.height) * 4);
        // The 32-bit render-target formats a row at a time (B, G, R, A or
        // X in memory); the same values as the per-pixel decode below.
        let opaque = match self.format {
            Format::A8R8G8B8 => Some(false),
            Format::X8R8G8B8 => Some(true),
            _ => None,
        };
        if let Some(opaque) = opaque {
            let row_bytes = self.row_bytes();
            out.resize(row_bytes * usize_from(self.height), 0);
            for (dst, src) in out.chunks_exact_mut(row_bytes.max(1)).zip(self.rows()) {
                for (d, p) in dst.chunks_exact_mut(4).zip(src.chunks_exact(4)) {
                    d.copy_from_slice(&[p[2], p[1], p[0], if opaque { 255 } else { p[3] }]);
                }
            }
            return out;
        }
        for y in 0..self.height {
            for x in 0..self.width {
                let raw = self.read_pixel(x, y).unwrap_or(0);
                let rgba = if self.format.is_depth() {
                    let d = self.format.depth_to_float(self.format.unpack_depth(raw));
                    let g = crate::int::f32_to_u32_sat((d.clamp(0.0, 1.0) * 255.0).round()) as u8;
                    [g, g, g, 255]
                } else {
                    let [a, r, g, b] = self.format.decode_argb(raw).to_be_bytes();
                    [r, g, b, a]
                };
                out.extend_from_slice(&rgba);
            }
        }
        out
    }

    /// The image encoded as an RGBA8 PNG ([`encode_png_rgba8`]).
    pub fn to_png_rgba(&self) -> Result<Vec<u8>, PipelineError> {
        encode_png_rgba8(self.width, self.height, &self.to_rgba8())
    }

    /// Writes the image as an RGBA8 PNG file.
    pub fn write_png(&self, path: impl AsRef<std::path::Path>) -> Result<(), PipelineError> {
        let bytes = self.to_png_rgba()?;
        std::fs::write(path, bytes).map_err(|e| PipelineError::Png(e.to_string()))
    }
}

/// The row pitch of a surface rendered into (render targets and depth
/// buffers the device allocates): `width × bpp`, plus 64 bytes when that is
/// a multiple of 128. The kernels load a row of a tile right after storing
/// the row above; with a pitch that is a multiple of 4 KiB (1024 pixels of
/// 32 bits) every row has the same low 12 address bits at a column, and a
/// load waits for any older store with the same low 12 bits (4 KiB
/// aliasing: measured in docs/benchmarks.md). An odd multiple of 64 bytes
/// repeats a row's 4 KiB offset only every 64 rows.
pub fn render_pitch(format: Format, width: u32) -> u64 {
    let row = tight_pitch(format, width);
    if row.is_multiple_of(128) {
        row + 64
    } else {
        row
    }
}

/// `width × bpp`: the pitch of rows without padding.
fn tight_pitch(format: Format, width: u32) -> u64 {
    u64::from(width) * u64::from(format.bytes_per_pixel())
}

/// Copies `bytes`, given at byte `offset` of an image's tight rows (`row`
/// bytes each, back to back), into `storage`, whose rows are `pitch` bytes
/// apart. False, with nothing copied, when `row` is 0 or exceeds `pitch`,
/// or the bytes end past `storage`.
pub fn write_tight_rows(
    storage: &mut [u8],
    pitch: usize,
    row: usize,
    offset: usize,
    bytes: &[u8],
) -> bool {
    if row == 0 || row > pitch {
        return false;
    }
    let Some(end) = offset.checked_add(bytes.len()) else {
        return false;
    };
    if end > offset {
        let last = end - 1;
        let at = (last / row)
            .checked_mul(pitch)
            .and_then(|a| a.checked_add(last % row));
        if at.is_none_or(|a| a >= storage.len()) {
            return false;
        }
    }
    let (mut o, mut rest) = (offset, bytes);
    while !rest.is_empty() {
        let (y, x) = (o / row, o % row);
        let n = (row - x).min(rest.len());
        let (now, later) = rest.split_at(n);
        let at = y * pitch + x;
        if let Some(dst) = storage.get_mut(at..at + n) {
            dst.copy_from_slice(now);
        }
        (o, rest) = (o + n, later);
    }
    true
}

/// Tightly packed RGBA8 pixels (`width × height × 4` bytes, rows top to
/// bottom) encoded as a PNG: the one PNG encoder of the project (the
/// command line's frames, differences and thumbnails use it too). The
/// deflate level is the `png` crate's `Fast` (a deflate tuned for PNG
/// rows): replaying a capture writes every frame, and the default level
/// made encoding the larger part of a replay. Lossless at every level.
pub fn encode_png_rgba8(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>, PipelineError> {
    let png_err = |e: png::EncodingError| PipelineError::Png(e.to_string());
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let mut w = enc.write_header().map_err(png_err)?;
        w.write_image_data(rgba).map_err(png_err)?;
        w.finish().map_err(png_err)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The encoder is lossless: a decoder reads back the same RGBA8 bytes,
    /// size and colour type.
    #[test]
    fn png_encoding_round_trips() {
        let rgba: Vec<u8> = (0u8..24).map(|i| i.wrapping_mul(37)).collect(); // 3 × 2
        let png_bytes = encode_png_rgba8(3, 2, &rgba).unwrap();
        let mut reader = png::Decoder::new(std::io::Cursor::new(png_bytes))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (3, 2));
        assert_eq!(info.color_type, png::ColorType::Rgba);
        assert_eq!(&buf[..info.buffer_size()], &rgba[..]);
        // A wrong byte count is an error, not a panic.
        assert!(encode_png_rgba8(3, 2, &rgba[..23]).is_err());
    }

    /// Rows whose length is a multiple of 128 bytes get 64 bytes more;
    /// the others keep the tight pitch (worked out by hand).
    #[test]
    fn render_pitch_pads_rows_that_repeat_their_4_kib_offset() {
        for (format, width, pitch) in [
            (Format::A8R8G8B8, 1024, 4160), // 4,096 = 32 × 128
            (Format::D24S8, 1024, 4160),
            (Format::A8R8G8B8, 640, 2624), // 2,560 = 20 × 128
            (Format::A8R8G8B8, 800, 3264), // 3,200 = 25 × 128
            (Format::A8R8G8B8, 100, 400),  // 400: not a multiple of 128
            (Format::R5G6B5, 64, 192),     // 128
            (Format::R5G6B5, 48, 96),
        ] {
            assert_eq!(render_pitch(format, width), pitch, "{format:?} {width}");
            let s = Surface::for_rendering(format, width, 3).unwrap();
            assert_eq!(
                (s.pitch() as u64, s.bytes().len() as u64),
                (pitch, 3 * pitch)
            );
        }
    }

    /// Tight rows and the pitched storage, by hand: rows of 3 bytes,
    /// 5 apart.
    #[test]
    fn tight_rows_map_onto_the_pitch() {
        let mut s = Surface::with_pitch(Format::A8, 3, 2, 5).unwrap();
        s.bytes_mut()
            .copy_from_slice(&[1, 2, 3, 0xEE, 0xEE, 4, 5, 6, 0xEE, 0xEE]);
        assert_eq!(s.row_bytes(), 3);
        assert_eq!(
            s.rows().collect::<Vec<_>>(),
            [&[1, 2, 3][..], &[4, 5, 6][..]]
        );
        assert_eq!(&*s.tight_bytes(), &[1, 2, 3, 4, 5, 6]);
        // Tight bytes 2..6 are pixel (2, 0) and the three pixels of row 1.
        let mut storage = [0u8; 10];
        assert!(write_tight_rows(&mut storage, 5, 3, 2, &[7, 8, 9, 10]));
        assert_eq!(storage, [0, 0, 7, 0, 0, 8, 9, 10, 0, 0]);
        // Ending past the last row: nothing written.
        let mut storage = [0u8; 10];
        assert!(!write_tight_rows(&mut storage, 5, 3, 4, &[1, 2, 3]));
        assert!(!write_tight_rows(&mut storage, 5, 6, 0, &[1]));
        assert!(!write_tight_rows(&mut storage, 5, 3, usize::MAX, &[1]));
        assert_eq!(storage, [0; 10]);
        // A tight surface lends its storage.
        let t = Surface::new(Format::A8, 3, 2).unwrap();
        assert!(matches!(t.tight_bytes(), std::borrow::Cow::Borrowed(_)));
    }

    /// The row-at-a-time conversion of the 32-bit formats gives what the
    /// per-pixel decode gives (a padded pitch included).
    #[test]
    fn rgba8_of_32_bit_formats_matches_the_pixel_decode() {
        for format in [Format::A8R8G8B8, Format::X8R8G8B8] {
            let mut s = Surface::with_pitch(format, 3, 2, 16).unwrap();
            for (i, (x, y)) in [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]
                .into_iter()
                .enumerate()
            {
                let i = u32::try_from(i).unwrap();
                assert!(s.write_pixel(x, y, 0x1020_3040u32.wrapping_mul(i + 1) ^ 0x8000_0000));
            }
            let mut expected = Vec::new();
            for y in 0..2 {
                for x in 0..3 {
                    let [a, r, g, b] = format
                        .decode_argb(s.read_pixel(x, y).unwrap())
                        .to_be_bytes();
                    expected.extend_from_slice(&[r, g, b, a]);
                }
            }
            assert_eq!(s.to_rgba8(), expected, "{format:?}");
            if format == Format::X8R8G8B8 {
                assert!(expected.chunks(4).all(|p| p[3] == 255));
            }
        }
    }

    #[test]
    fn limits_are_enforced() {
        assert!(Surface::new(Format::A8R8G8B8, 0, 1).is_err());
        assert!(Surface::new(Format::A8R8G8B8, limits::MAX_DIMENSION + 1, 1).is_err());
        assert!(Surface::with_pitch(Format::A8R8G8B8, 4, 4, 15).is_err());
        assert!(Surface::with_pitch(Format::A8R8G8B8, 4, 4, u64::MAX).is_err());
        let s = Surface::with_pitch(Format::R5G6B5, 3, 2, 16).unwrap();
        assert_eq!(s.bytes().len(), 32);
        assert!(s.bytes().iter().all(|&b| b == 0));
    }

    #[test]
    fn pixel_helpers_and_pitch() {
        let mut s = Surface::with_pitch(Format::R8G8B8, 3, 2, 12).unwrap();
        assert!(s.write_pixel(2, 1, 0x00AB_CDEF));
        assert_eq!(&s.bytes()[12 + 6..12 + 9], &[0xEF, 0xCD, 0xAB]);
        assert_eq!(s.read_pixel(2, 1), Some(0x00AB_CDEF));
        assert_eq!(s.read_argb(2, 1), Some(0xFFAB_CDEF));
        assert_eq!(s.read_pixel(3, 1), None);
        assert!(!s.write_pixel(0, 2, 0));
    }

    #[test]
    fn from_bytes_checks_the_length() {
        let s = Surface::from_bytes(Format::R5G6B5, 3, 2, 6, vec![7; 12]).unwrap();
        assert_eq!(s.read_pixel(2, 1), Some(0x0707));
        assert_eq!(s.into_bytes(), vec![7; 12]);
        assert!(Surface::from_bytes(Format::R5G6B5, 3, 2, 6, vec![0; 11]).is_err());
        assert!(Surface::from_bytes(Format::R5G6B5, 3, 0, 6, Vec::new()).is_err());
        assert!(Surface::from_bytes(Format::R5G6B5, 3, 2, 5, vec![0; 10]).is_err());
    }

    #[test]
    fn png_export() {
        let mut s = Surface::new(Format::A8R8G8B8, 2, 2).unwrap();
        s.write_pixel(1, 0, 0x80FF_0000);
        let png = s.to_png_rgba().unwrap();
        assert_eq!(&png[1..4], b"PNG");
        assert_eq!(&s.to_rgba8()[4..8], &[255, 0, 0, 0x80]);
    }
}
