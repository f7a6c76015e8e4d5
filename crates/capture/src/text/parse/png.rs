//! The `png=` texels of a `surface` record: a PNG file read and encoded
//! into the surface's colour format.
//!
//! In: a path (already resolved below the capture's directory by the
//! caller) and a D3DFORMAT. Out: width, height and the texels, tightly
//! packed. Bounded by [`crate::limits::MAX_PNG_PIXELS`]; never panics.

use crate::limits;
use crate::text::write::fmt_format;
use std::path::Path;

pub(super) fn png_texels(path: &Path, format: u32) -> Result<(u32, u32, Vec<u8>), String> {
    let fmt = softhal_device::Format::from_d3dfmt(format)
        .filter(|f| f.is_color())
        .ok_or_else(|| format!("png=: format {} is not a colour format", fmt_format(format)))?;
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut dec = png::Decoder::new(std::io::BufReader::new(file));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec
        .read_info()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let (w, h) = (reader.info().width, reader.info().height);
    if u64::from(w) * u64::from(h) > limits::MAX_PNG_PIXELS {
        return Err(format!("{}: {w}x{h} is too large", path.display()));
    }
    let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let ch = match info.color_type {
        png::ColorType::Rgba => 4,
        png::ColorType::Rgb => 3,
        png::ColorType::GrayscaleAlpha => 2,
        _ => 1,
    };
    let bpp = fmt.bytes_per_pixel() as usize;
    let mut out = Vec::with_capacity(w as usize * h as usize * bpp);
    for px in buf
        .get(..info.buffer_size())
        .unwrap_or_default()
        .chunks_exact(ch)
    {
        let g = |i: usize| px.get(i).copied().unwrap_or(255);
        let (r, gr, b, a) = match ch {
            4 => (g(0), g(1), g(2), g(3)),
            3 => (g(0), g(1), g(2), 255),
            2 => (g(0), g(0), g(0), g(1)),
            _ => (g(0), g(0), g(0), 255),
        };
        let raw = fmt.encode_argb(u32::from_be_bytes([a, r, gr, b]));
        out.extend_from_slice(raw.to_le_bytes().get(..bpp).unwrap_or_default());
    }
    Ok((w, h, out))
}
