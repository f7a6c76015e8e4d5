//! Texture allocations: the shape check at creation.
//!
//! In: [`TextureDesc`]s (from `Kmd::create_allocation`). Out: the
//! texture's byte size or why it cannot exist. Guarantee: [`desc_bytes`]
//! accepts exactly the descriptions with resolved levels that
//! `Texture::new` accepts, and returns the bytes it would allocate,
//! without allocating (checked, `u64` arithmetic).

use crate::error::{Result, SubmitError};
use softhal_pipeline::texture::limits as tl;
use softhal_pipeline::texture::{TextureDesc, TextureFormat, TextureKind};

/// A texture's shape, from its description.
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use softhal_pipeline::texture::Texture;

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
}
