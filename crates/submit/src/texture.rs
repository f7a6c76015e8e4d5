//! Texture allocations: the shape check at creation and the TEXTURE_COPY
//! rules and copy.
//!
//! In: [`TextureDesc`]s (from `Kmd::create_allocation`), the operands of a
//! TEXTURE_COPY packet ([`crate::packet::TextureCopy`]), and at execution
//! the [`Texture`]s behind the allocations. Out: the texture's byte size or
//! why it cannot exist; a copy plan or the reason the copy is invalid;
//! copied texel bytes. Guarantees:
//! * [`desc_bytes`] accepts exactly the descriptions with resolved levels
//!   that `Texture::new` accepts, and returns the bytes it would allocate,
//!   without allocating (checked, `u64` arithmetic);
//! * `plan_copy` is the one rule for TEXTURE_COPY, applied by the
//!   verifier to the allocation descriptions and again at execution to the
//!   textures found in video memory; a plan only names bytes inside both
//!   levels, so `copy` never fails on a plan's own terms;
//! * `copy` reads the whole source rectangle into a temporary before
//!   writing (source and destination may be the same texture, even
//!   overlapping), and writes nothing unless every destination byte range
//!   exists.

use crate::error::{Result, SubmitError};
use crate::memory::VideoMemory;
use crate::packet::TextureCopy;
use softhal_pipeline::texture::format::TexelLayout;
use softhal_pipeline::texture::limits as tl;
use softhal_pipeline::texture::{Texture, TextureDesc, TextureFormat, TextureKind};
use softhal_pipeline::Format;

/// What the copy rules need to know of a texture: its description, from
/// the allocation table or from the texture itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    kind: TextureKind,
    format: TextureFormat,
    width: u32,
    height: u32,
    depth: u32,
    levels: u32,
}

impl Shape {
    pub(crate) fn of_desc(d: &TextureDesc) -> Self {
        Shape {
            kind: d.kind,
            format: d.format,
            width: d.width,
            height: d.height,
            depth: d.depth,
            levels: d.levels,
        }
    }
    pub(crate) fn of_texture(t: &Texture) -> Self {
        Shape::of_desc(&t.desc())
    }
    fn faces(&self) -> u32 {
        if self.kind == TextureKind::Cube {
            6
        } else {
            1
        }
    }
    /// (width, height, depth) of `level` (as `Texture::level_size`).
    fn level(&self, level: u32) -> Option<(u32, u32, u32)> {
        if level >= self.levels {
            return None;
        }
        let dim = |d: u32| d.checked_shr(level).unwrap_or(0).max(1);
        let depth = if self.kind == TextureKind::Volume {
            dim(self.depth)
        } else {
            1
        };
        Some((dim(self.width), dim(self.height), depth))
    }
    /// Bytes of one face of `level` (as `Texture`'s storage).
    fn level_bytes(&self, level: u32) -> Option<u64> {
        let (w, h, d) = self.level(level)?;
        self.format
            .row_bytes(w)?
            .checked_mul(u64::from(self.format.row_count(h)))?
            .checked_mul(u64::from(d))
    }
}

/// Levels of the full chain of a texture whose largest dimension is `m`.
fn full_chain(m: u32) -> u32 {
    32u32
        .saturating_sub(m.max(1).leading_zeros())
        .min(tl::MAX_MIP_LEVELS)
}

/// The bytes `Texture::new(desc)` allocates, or why it would refuse:
/// `InvalidArg` for a shape it rejects (levels must be resolved, i.e.
/// non-zero), `Limit` above `MAX_TEXTURE_BYTES`.
pub fn desc_bytes(desc: &TextureDesc) -> Result<u64> {
    let max = match desc.kind {
        TextureKind::Volume => tl::MAX_VOLUME_DIMENSION,
        _ => tl::MAX_TEXTURE_DIMENSION,
    };
    let dims = 1..=max;
    let depth_ok = match desc.kind {
        TextureKind::Volume => dims.contains(&desc.depth),
        _ => desc.depth == 1,
    };
    if !dims.contains(&desc.width) || !dims.contains(&desc.height) || !depth_ok {
        return Err(SubmitError::InvalidArg("texture size out of range"));
    }
    if desc.kind == TextureKind::Cube && desc.width != desc.height {
        return Err(SubmitError::InvalidArg("cube texture faces are not square"));
    }
    if desc.levels == 0 {
        return Err(SubmitError::InvalidArg(
            "texture level count not resolved (0)",
        ));
    }
    if desc.levels > full_chain(desc.width.max(desc.height).max(desc.depth)) {
        return Err(SubmitError::InvalidArg(
            "more texture levels than the full chain",
        ));
    }
    let s = Shape::of_desc(desc);
    let mut total: u64 = 0;
    for level in 0..desc.levels {
        let b = s
            .level_bytes(level)
            .and_then(|b| b.checked_mul(u64::from(s.faces())))
            .unwrap_or(u64::MAX);
        total = total.saturating_add(b);
    }
    if total > tl::MAX_TEXTURE_BYTES {
        return Err(SubmitError::Limit {
            what: "texture bytes",
            value: total,
            limit: tl::MAX_TEXTURE_BYTES,
        });
    }
    Ok(total)
}

/// The render-target format of a texture that can also be a render target
/// (an allocation with `render_target`, bound by BIND_TEXTURE_TARGET): a
/// 2-D or cube texture whose format is a colour render-target format with
/// the same packed texel layout (so a level's bytes are a render-target
/// image as they are). `None` for every other texture.
pub fn target_format(desc: &TextureDesc) -> Option<Format> {
    if desc.kind == TextureKind::Volume {
        return None;
    }
    let f = Format::from_d3dfmt(desc.format.d3dfmt()).filter(|f| f.is_color())?;
    match desc.format.layout() {
        TexelLayout::Packed { bytes } if bytes == f.bytes_per_pixel() => Some(f),
        _ => None,
    }
}

/// Face `face`, level `level` of a render-target texture as a target:
/// (format, width, height); `None` if the texture cannot be a target or
/// the face or level does not exist.
pub fn target_level(desc: &TextureDesc, face: u32, level: u32) -> Option<(Format, u32, u32)> {
    let f = target_format(desc)?;
    let s = Shape::of_desc(desc);
    if face >= s.faces() {
        return None;
    }
    let (w, h, _) = s.level(level)?;
    Some((f, w, h))
}

/// One level's storage geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Level {
    row_pitch: u64,
    slice_pitch: u64,
}

/// A validated copy, in storage units (texels, 4×4 blocks or 2×1
/// macro-pixels), with the byte geometry of both levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    src: Level,
    dst: Level,
    /// Bytes of one storage unit.
    unit: u64,
    /// First unit column / row / slice in the source and destination.
    src_at: (u64, u64, u64),
    dst_at: (u64, u64, u64),
    /// Unit columns, unit rows, slices.
    size: (u64, u64, u64),
}

/// The TEXTURE_COPY rule (`docs/gpu-commands.md`): same format, faces and
/// levels that exist, a non-empty box inside both levels (checked
/// arithmetic), and for block formats (DXTn: 4×4, YUY2/UYVY: 2×1) a box
/// on unit boundaries whose width (height) is a whole number of units
/// unless it ends on the right (bottom) edge of *both* levels — so only
/// texels inside the destination box change.
pub(crate) fn plan_copy(
    src: &Shape,
    dst: &Shape,
    c: &TextureCopy,
) -> std::result::Result<Plan, &'static str> {
    if src.format != dst.format {
        return Err("texture copy between different formats");
    }
    if c.sf >= src.faces() || c.df >= dst.faces() {
        return Err("texture copy face does not exist");
    }
    let (sw, sh, sd) = src.level(c.sl).ok_or("texture copy level does not exist")?;
    let (dw, dh, dd) = dst.level(c.dl).ok_or("texture copy level does not exist")?;
    if c.w == 0 || c.h == 0 || c.d == 0 {
        return Err("empty texture copy");
    }
    let inside = |at: u32, n: u32, size: u32| at.checked_add(n).is_some_and(|e| e <= size);
    let in_src = inside(c.x, c.w, sw) && inside(c.y, c.h, sh) && inside(c.z, c.d, sd);
    let in_dst = inside(c.dx, c.w, dw) && inside(c.dy, c.h, dh) && inside(c.dz, c.d, dd);
    if !(in_src && in_dst) {
        return Err("texture copy box outside a level");
    }
    let f = src.format;
    let ((bw, bh), unit) = match f.layout() {
        TexelLayout::Packed { bytes } => ((1u32, 1u32), bytes),
        TexelLayout::Block { bytes } => ((4, 4), bytes),
        TexelLayout::MacroPixel => ((2, 1), 4),
    };
    // Start on unit boundaries; whole units, or reach both right edges.
    let aligned = |at: u32, b: u32| at.checked_rem(b) == Some(0);
    let whole = |n: u32, b: u32, s_end: bool, d_end: bool| aligned(n, b) || (s_end && d_end);
    let right = (
        c.x.saturating_add(c.w) == sw,
        c.dx.saturating_add(c.w) == dw,
    );
    let bottom = (
        c.y.saturating_add(c.h) == sh,
        c.dy.saturating_add(c.h) == dh,
    );
    let starts = aligned(c.x, bw) && aligned(c.dx, bw) && aligned(c.y, bh) && aligned(c.dy, bh);
    let sizes = whole(c.w, bw, right.0, right.1) && whole(c.h, bh, bottom.0, bottom.1);
    if !(starts && sizes) {
        return Err("texture copy box not on block boundaries");
    }
    let level = |w: u32, h: u32| -> Option<Level> {
        let row_pitch = f.row_bytes(w)?;
        Some(Level {
            row_pitch,
            slice_pitch: row_pitch.checked_mul(u64::from(f.row_count(h)))?,
        })
    };
    let units = |n: u32, b: u32| u64::from(n.div_ceil(b));
    let first = |at: u32, b: u32| u64::from(at.checked_div(b).unwrap_or(0));
    Ok(Plan {
        src: level(sw, sh).ok_or("texture level too large")?,
        dst: level(dw, dh).ok_or("texture level too large")?,
        unit: u64::from(unit),
        src_at: (first(c.x, bw), first(c.y, bh), u64::from(c.z)),
        dst_at: (first(c.dx, bw), first(c.dy, bh), u64::from(c.dz)),
        size: (units(c.w, bw), units(c.h, bh), u64::from(c.d)),
    })
}

/// Checks a TEXTURE_COPY between textures of these descriptions against
/// the rule the kernel's verifier applies (the allocation-list indices of
/// `c` are not looked at): a user-mode driver calls it before emitting
/// the packet, so a copy it emits is never refused.
pub fn check_copy(
    src: &Texture,
    dst: &Texture,
    c: &TextureCopy,
) -> std::result::Result<(), &'static str> {
    plan_copy(&Shape::of_texture(src), &Shape::of_texture(dst), c).map(|_| ())
}

impl Plan {
    /// Byte ranges of every unit row of the box, in order, for the source
    /// (`dst` false) or the destination level.
    fn rows(&self, dst: bool) -> impl Iterator<Item = Option<std::ops::Range<usize>>> + '_ {
        let (l, at) = if dst {
            (self.dst, self.dst_at)
        } else {
            (self.src, self.src_at)
        };
        let (cols, rows, slices) = self.size;
        (0..slices).flat_map(move |z| {
            (0..rows).map(move |r| {
                let start =
                    at.2.checked_add(z)?
                        .checked_mul(l.slice_pitch)?
                        .checked_add(at.1.checked_add(r)?.checked_mul(l.row_pitch)?)?
                        .checked_add(at.0.checked_mul(self.unit)?)?;
                let len = cols.checked_mul(self.unit)?;
                let s = usize::try_from(start).ok()?;
                let e = usize::try_from(start.checked_add(len)?).ok()?;
                Some(s..e)
            })
        })
    }
    /// Bytes copied.
    fn bytes(&self) -> Option<usize> {
        let (c, r, s) = self.size;
        usize::try_from(c.checked_mul(r)?.checked_mul(s)?.checked_mul(self.unit)?).ok()
    }
}

/// Executes a TEXTURE_COPY between allocations `src` and `dst` (may be
/// equal). The rule is re-applied to the textures actually in memory;
/// false (nothing written) if a texture is missing or the copy does not
/// fit them.
pub(crate) fn copy(mem: &mut dyn VideoMemory, src: u32, dst: u32, c: &TextureCopy) -> bool {
    let Some(d_shape) = mem.texture(dst).map(Shape::of_texture) else {
        return false;
    };
    let Some(s_tex) = mem.texture(src) else {
        return false;
    };
    let Ok(plan) = plan_copy(&Shape::of_texture(s_tex), &d_shape, c) else {
        return false;
    };
    let Some(level) = s_tex.level_bytes(c.sf, c.sl) else {
        return false;
    };
    let mut tmp = Vec::with_capacity(plan.bytes().unwrap_or(0));
    for r in plan.rows(false) {
        match r.and_then(|r| level.get(r)) {
            Some(b) => tmp.extend_from_slice(b),
            None => return false,
        }
    }
    let Some(out) = mem
        .texture_mut(dst)
        .and_then(|t| t.level_bytes_mut(c.df, c.dl))
    else {
        return false;
    };
    // Every destination range must exist before anything is written.
    if !plan
        .rows(true)
        .all(|r| r.is_some_and(|r| r.end <= out.len()))
    {
        return false;
    }
    let mut from = tmp.as_slice();
    for r in plan.rows(true).flatten() {
        let n = r.len();
        let (head, rest) = from.split_at(n.min(from.len()));
        if let Some(o) = out.get_mut(r) {
            o.copy_from_slice(head);
        }
        from = rest;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn desc(
        kind: TextureKind,
        format: TextureFormat,
        w: u32,
        h: u32,
        d: u32,
        l: u32,
    ) -> TextureDesc {
        TextureDesc {
            kind,
            format,
            width: w,
            height: h,
            depth: d,
            levels: l,
        }
    }

    /// The render-target texture formats docs/gpu-commands.md lists
    /// (BIND_TEXTURE_TARGET), and only 2-D and cube shapes.
    #[test]
    fn render_target_texture_formats_are_the_documented_ones() {
        use TextureFormat as T;
        let got: Vec<TextureFormat> = TextureFormat::ALL
            .into_iter()
            .filter(|f| target_format(&desc(TextureKind::Texture2D, *f, 4, 4, 1, 1)).is_some())
            .collect();
        let want = [
            T::R8G8B8,
            T::A8R8G8B8,
            T::X8R8G8B8,
            T::R5G6B5,
            T::X1R5G5B5,
            T::A1R5G5B5,
            T::A4R4G4B4,
            T::A8,
            T::X4R4G4B4,
        ];
        assert_eq!(got.len(), want.len(), "{got:?}");
        assert!(want.iter().all(|f| got.contains(f)), "{got:?}");
        let argb = TextureFormat::A8R8G8B8;
        assert!(target_format(&desc(TextureKind::Cube, argb, 4, 4, 1, 1)).is_some());
        assert!(target_format(&desc(TextureKind::Volume, argb, 4, 4, 4, 1)).is_none());
        assert_eq!(
            target_level(&desc(TextureKind::Cube, argb, 8, 8, 1, 4), 5, 3),
            Some((Format::A8R8G8B8, 1, 1))
        );
        assert_eq!(
            target_level(&desc(TextureKind::Cube, argb, 8, 8, 1, 4), 6, 0),
            None
        );
        assert_eq!(
            target_level(&desc(TextureKind::Cube, argb, 8, 8, 1, 4), 0, 4),
            None
        );
    }

    proptest! {
        /// `desc_bytes` agrees with `Texture::new` (which allocates) on
        /// every small description with resolved levels: same verdict,
        /// same byte count.
        #[test]
        fn desc_bytes_agrees_with_texture_new(
            kind in 0u8..3,
            format in 0usize..TextureFormat::ALL.len(),
            w in prop_oneof![1u32..40, 0u32..2, 8190u32..8200],
            h in prop_oneof![1u32..40, 0u32..2],
            d in prop_oneof![1u32..6, 0u32..2, 2047u32..2050],
            levels in 1u32..8,
        ) {
            let kind = [TextureKind::Texture2D, TextureKind::Cube, TextureKind::Volume][kind as usize];
            let dsc = desc(kind, TextureFormat::ALL[format], w, h, d, levels);
            match (desc_bytes(&dsc), Texture::new(dsc)) {
                (Ok(n), Ok(t)) => {
                    let sum: u64 = (0..t.face_count())
                        .flat_map(|f| (0..t.level_count()).map(move |l| (f, l)))
                        .map(|(f, l)| t.level_bytes(f, l).unwrap().len() as u64)
                        .sum();
                    prop_assert_eq!(n, sum);
                }
                (Err(_), Err(_)) => {}
                (a, b) => prop_assert!(false, "desc_bytes {:?} vs Texture::new {:?}", a, b.map(|_| ())),
            }
        }
    }

    #[test]
    fn unresolved_levels_and_oversized_textures_are_refused() {
        use TextureFormat as F;
        use TextureKind as K;
        let zero = desc(K::Texture2D, F::A8R8G8B8, 4, 4, 1, 0);
        assert!(matches!(desc_bytes(&zero), Err(SubmitError::InvalidArg(_))));
        // 1 GiB of A32B32G32R32F: refused before anything is allocated.
        let huge = desc(K::Texture2D, F::A32B32G32R32F, 8192, 8192, 1, 1);
        assert!(matches!(desc_bytes(&huge), Err(SubmitError::Limit { .. })));
        assert!(Texture::new(huge).is_err());
        let cube = desc(K::Cube, F::Dxt1, 16, 16, 1, 5);
        // 6 faces × (8 + 4 + 1 + 1 + 1 blocks × 8 bytes).
        assert_eq!(desc_bytes(&cube).unwrap(), 6 * (16 + 4 + 1 + 1 + 1) * 8);
    }

    fn copy_args(w: u32, h: u32) -> TextureCopy {
        TextureCopy {
            w,
            h,
            ..TextureCopy::default()
        }
    }

    #[test]
    fn copy_rule() {
        use TextureFormat as F;
        use TextureKind as K;
        let s = |f, w, h, l| Shape::of_desc(&desc(K::Texture2D, f, w, h, 1, l));
        let a = s(F::A8R8G8B8, 16, 8, 3);
        // Whole level 0, then a box inside level 1 (8×4).
        assert!(plan_copy(&a, &a, &copy_args(16, 8)).is_ok());
        let mut c = copy_args(4, 2);
        (c.sl, c.dl, c.x, c.y, c.dx, c.dy) = (1, 1, 4, 2, 0, 0);
        assert!(plan_copy(&a, &a, &c).is_ok());
        c.x = 5;
        assert!(plan_copy(&a, &a, &c).is_err(), "past the right edge");
        c.x = u32::MAX;
        assert!(plan_copy(&a, &a, &c).is_err(), "overflow");
        assert!(plan_copy(&a, &a, &copy_args(0, 8)).is_err(), "empty");
        let mut c = copy_args(1, 1);
        c.d = 2;
        assert!(
            plan_copy(&a, &a, &c).is_err(),
            "2-D textures have one slice"
        );
        c.d = 1;
        c.sl = 3;
        assert!(plan_copy(&a, &a, &c).is_err(), "no level 3");
        c.sl = 0;
        c.df = 1;
        assert!(plan_copy(&a, &a, &c).is_err(), "no face 1");
        let b = s(F::X8R8G8B8, 16, 8, 1);
        assert!(
            plan_copy(&a, &b, &copy_args(1, 1)).is_err(),
            "formats differ"
        );
        // DXT1: 4-aligned, partial blocks only at both edges.
        let d = s(F::Dxt1, 16, 16, 5); // levels 16, 8, 4, 2, 1
        assert!(plan_copy(&d, &d, &copy_args(8, 4)).is_ok());
        assert!(plan_copy(&d, &d, &copy_args(6, 4)).is_err());
        let mut c = copy_args(2, 2);
        (c.sl, c.dl) = (3, 3);
        assert!(plan_copy(&d, &d, &c).is_ok(), "a whole 2×2 level");
        c.dl = 2;
        assert!(plan_copy(&d, &d, &c).is_err(), "2×2 into the corner of 4×4");
        let mut c = copy_args(4, 4);
        c.x = 2;
        assert!(plan_copy(&d, &d, &c).is_err(), "x not on a block");
        // Volumes: slices.
        let v = Shape::of_desc(&desc(K::Volume, F::L8, 4, 4, 4, 2));
        let mut c = copy_args(2, 2);
        (c.z, c.d, c.dz) = (1, 3, 0);
        assert!(plan_copy(&v, &v, &c).is_ok());
        c.dz = 2;
        assert!(plan_copy(&v, &v, &c).is_err(), "slices past the depth");
        // Cube faces.
        let q = Shape::of_desc(&desc(K::Cube, F::A8R8G8B8, 4, 4, 1, 1));
        let mut c = copy_args(4, 4);
        (c.sf, c.df) = (5, 2);
        assert!(plan_copy(&q, &q, &c).is_ok());
        c.sf = 6;
        assert!(plan_copy(&q, &q, &c).is_err());
    }
}
