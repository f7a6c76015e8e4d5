//! Texture resources: 2D, cube and volume textures with mip chains.
//!
//! *Input*: a [`TextureDesc`] (kind, format, size, level count), then texel
//! bytes uploaded per face and level by the device. *Output*: a
//! [`Texture`] whose levels can be read as [`LevelRef`] views by the
//! samplers. *Guarantees*: sizes are checked against
//! [`super::limits`] with checked arithmetic before anything is allocated;
//! every level's storage is exactly `slice_pitch × depth` bytes with
//! tightly packed rows (`row_pitch = format.row_bytes(width)`), so every
//! texel of every level is inside its storage; accessors return `None`
//! instead of panicking for a face or level that does not exist.

use super::format::{argb_to_rgba, decode_argb8, decode_rgba, raw_texel, Palette, TextureFormat};
use super::limits;

/// What went wrong creating or filling a texture.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TextureError {
    /// A dimension is zero or above the limit for this kind of texture.
    #[error("texture size {width}x{height}x{depth} is outside 1..={max}")]
    BadDimensions {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
        /// Requested depth (1 for 2D and cube textures).
        depth: u32,
        /// The limit.
        max: u32,
    },
    /// A cube texture whose width and height differ.
    #[error("cube texture faces must be square, got {width}x{height}")]
    CubeNotSquare {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
    },
    /// More mip levels than the full chain of the size has.
    #[error("{requested} mip levels requested, the full chain has {max}")]
    TooManyLevels {
        /// Levels requested.
        requested: u32,
        /// Levels in the full chain.
        max: u32,
    },
    /// The texture would need more bytes than allowed.
    #[error("texture needs {bytes} bytes, limit is {max}")]
    TooLarge {
        /// Bytes needed (saturated).
        bytes: u64,
        /// The limit.
        max: u64,
    },
    /// A face or level index that does not exist.
    #[error("face {face} level {level} does not exist")]
    NoSuchLevel {
        /// The face index.
        face: u32,
        /// The level index.
        level: u32,
    },
    /// Upload source too small for the level it is copied into.
    #[error("upload source of {len} bytes with pitch {pitch} is too small ({needed} needed)")]
    SourceTooSmall {
        /// Source length.
        len: usize,
        /// Source pitch.
        pitch: usize,
        /// Bytes needed.
        needed: u64,
    },
}

/// The shape of a texture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureKind {
    /// A 2D texture: one face, mip levels halve width and height.
    Texture2D,
    /// A cube texture: 6 square faces (D3DCUBEMAP_FACE_POSITIVE_X = 0,
    /// NEGATIVE_X, POSITIVE_Y, NEGATIVE_Y, POSITIVE_Z, NEGATIVE_Z = 5).
    Cube,
    /// A volume texture: one face, levels halve width, height and depth.
    Volume,
}

/// What to create.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureDesc {
    /// Shape.
    pub kind: TextureKind,
    /// Texel format.
    pub format: TextureFormat,
    /// Width of level 0.
    pub width: u32,
    /// Height of level 0 (must equal `width` for cubes).
    pub height: u32,
    /// Depth of level 0 (volumes; must be 1 otherwise).
    pub depth: u32,
    /// Mip levels; 0 = the full chain down to 1×1(×1).
    pub levels: u32,
}

/// Dimensions and pitches of one mip level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelInfo {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Depth in slices (1 for 2D and cube).
    pub depth: u32,
    /// Bytes between rows (rows of 4×4 blocks for DXTn).
    pub row_pitch: usize,
    /// Bytes between depth slices.
    pub slice_pitch: usize,
}

/// A read-only view of one face/level, what the samplers read.
#[derive(Debug, Clone, Copy)]
pub struct LevelRef<'a> {
    /// Texel format.
    pub format: TextureFormat,
    /// Size and pitches.
    pub info: LevelInfo,
    /// The level's bytes (`slice_pitch × depth`).
    pub data: &'a [u8],
    /// Palette of P8 / A8P8 textures (`None` → index reads as black).
    pub palette: Option<&'a Palette>,
}

impl LevelRef<'_> {
    fn slice(&self, z: u32) -> &[u8] {
        let start = (z as usize).saturating_mul(self.info.slice_pitch);
        self.data.get(start..).unwrap_or(&[])
    }

    /// Texel (x, y, z) as `[r, g, b, a]` (format rules in
    /// [`super::format`]); `[0, 0, 0, 0]` outside the level.
    #[inline]
    pub fn texel(&self, x: u32, y: u32, z: u32) -> [f32; 4] {
        if x >= self.info.width || y >= self.info.height || z >= self.info.depth {
            return [0.0; 4];
        }
        // The 32-bit ARGB formats straight from their bytes: what
        // `decode_rgba` computes for them, without its format dispatch.
        if let Some(opaque) = match self.format {
            TextureFormat::A8R8G8B8 => Some(0),
            TextureFormat::X8R8G8B8 => Some(0xFF00_0000u32),
            _ => None,
        } {
            let at = (y as usize)
                .checked_mul(self.info.row_pitch)
                .and_then(|r| r.checked_add(x as usize * 4));
            let slice = self.slice(z);
            return match at.and_then(|a| slice.get(a..a.checked_add(4)?)) {
                Some(b) => argb_to_rgba(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) | opaque),
                None => [0.0; 4],
            };
        }
        decode_rgba(
            self.format,
            self.slice(z),
            self.info.row_pitch,
            x,
            y,
            self.palette,
        )
    }

    /// Texel (x, y, z) as D3DCOLOR, for formats with an exact 8-bit form;
    /// `None` otherwise or outside the level.
    #[inline]
    pub fn texel_argb8(&self, x: u32, y: u32, z: u32) -> Option<u32> {
        if x >= self.info.width || y >= self.info.height || z >= self.info.depth {
            return None;
        }
        decode_argb8(
            self.format,
            self.slice(z),
            self.info.row_pitch,
            x,
            y,
            self.palette,
        )
    }

    /// Raw bits of texel (x, y, z) for formats of at most 32 bits per texel
    /// (colour keying); `None` otherwise or outside the level.
    pub fn raw(&self, x: u32, y: u32, z: u32) -> Option<u32> {
        if x >= self.info.width || y >= self.info.height || z >= self.info.depth {
            return None;
        }
        raw_texel(self.format, self.slice(z), self.info.row_pitch, x, y)
    }
}

/// A DX6/7 source colour key (DDCOLORKEY): texels whose raw value (in the
/// texture's own format bits) lies in `low..=high` match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColorKey {
    /// dwColorSpaceLowValue.
    pub low: u32,
    /// dwColorSpaceHighValue (equal to `low` for a single colour).
    pub high: u32,
}

impl ColorKey {
    /// True if a raw texel value matches the key.
    #[inline]
    pub fn matches(&self, raw: u32) -> bool {
        (self.low..=self.high).contains(&raw)
    }
}

/// A texture resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Texture {
    kind: TextureKind,
    format: TextureFormat,
    width: u32,
    height: u32,
    depth: u32,
    level_count: u32,
    /// `faces × level_count` storages, face-major.
    storage: Vec<Vec<u8>>,
    palette: Option<Palette>,
    lod: u32,
    color_key: Option<ColorKey>,
}

/// Number of levels of a full chain for the largest dimension `max_dim`.
fn full_chain(max_dim: u32) -> u32 {
    32 - max_dim.max(1).leading_zeros()
}

/// Size of level `level` of a dimension (never 0).
#[inline]
fn mip_dim(d: u32, level: u32) -> u32 {
    d.checked_shr(level).unwrap_or(0).max(1)
}

impl Texture {
    /// Creates a zero-filled texture. Checks: dimensions in 1..=limit
    /// ([`limits::MAX_TEXTURE_DIMENSION`], [`limits::MAX_VOLUME_DIMENSION`]
    /// for volumes), depth 1 unless a volume, square cube faces, level
    /// count ≤ the full chain, total bytes ≤ [`limits::MAX_TEXTURE_BYTES`].
    pub fn new(desc: TextureDesc) -> Result<Self, TextureError> {
        let TextureDesc {
            kind,
            format,
            width,
            height,
            depth,
            levels,
        } = desc;
        let max = match kind {
            TextureKind::Volume => limits::MAX_VOLUME_DIMENSION,
            _ => limits::MAX_TEXTURE_DIMENSION,
        };
        let depth_ok = match kind {
            TextureKind::Volume => (1..=max).contains(&depth),
            _ => depth == 1,
        };
        if !(1..=max).contains(&width) || !(1..=max).contains(&height) || !depth_ok {
            return Err(TextureError::BadDimensions {
                width,
                height,
                depth,
                max,
            });
        }
        if kind == TextureKind::Cube && width != height {
            return Err(TextureError::CubeNotSquare { width, height });
        }
        let chain = full_chain(width.max(height).max(depth)).min(limits::MAX_MIP_LEVELS);
        let level_count = if levels == 0 { chain } else { levels };
        if level_count > chain {
            return Err(TextureError::TooManyLevels {
                requested: levels,
                max: chain,
            });
        }
        let faces: u32 = if kind == TextureKind::Cube { 6 } else { 1 };
        let mut t = Texture {
            kind,
            format,
            width,
            height,
            depth,
            level_count,
            storage: Vec::new(),
            palette: None,
            lod: 0,
            color_key: None,
        };
        // Check the total before allocating anything.
        let mut total: u64 = 0;
        for level in 0..level_count {
            let bytes = t.level_byte_count(level).unwrap_or(u64::MAX);
            total = total.saturating_add(bytes.saturating_mul(u64::from(faces)));
        }
        if total > limits::MAX_TEXTURE_BYTES {
            return Err(TextureError::TooLarge {
                bytes: total,
                max: limits::MAX_TEXTURE_BYTES,
            });
        }
        let mut storage = Vec::with_capacity((faces * level_count) as usize);
        for _ in 0..faces {
            for level in 0..level_count {
                let bytes = t.level_byte_count(level).unwrap_or(0);
                let len = usize::try_from(bytes).map_err(|_| TextureError::TooLarge {
                    bytes,
                    max: limits::MAX_TEXTURE_BYTES,
                })?;
                storage.push(vec![0u8; len]);
            }
        }
        t.storage = storage;
        Ok(t)
    }

    /// Bytes of one face of `level` (checked).
    fn level_byte_count(&self, level: u32) -> Option<u64> {
        let (w, h, d) = self.level_size(level)?;
        self.format
            .row_bytes(w)?
            .checked_mul(u64::from(self.format.row_count(h)))?
            .checked_mul(u64::from(d))
    }

    /// The description it was created from (levels resolved).
    pub fn desc(&self) -> TextureDesc {
        TextureDesc {
            kind: self.kind,
            format: self.format,
            width: self.width,
            height: self.height,
            depth: self.depth,
            levels: self.level_count,
        }
    }

    /// Shape.
    pub fn kind(&self) -> TextureKind {
        self.kind
    }
    /// Texel format.
    pub fn format(&self) -> TextureFormat {
        self.format
    }
    /// Width of level 0.
    pub fn width(&self) -> u32 {
        self.width
    }
    /// Height of level 0.
    pub fn height(&self) -> u32 {
        self.height
    }
    /// Depth of level 0 (1 unless a volume).
    pub fn depth(&self) -> u32 {
        self.depth
    }
    /// Number of mip levels.
    pub fn level_count(&self) -> u32 {
        self.level_count
    }
    /// Number of faces (6 for cubes, else 1).
    pub fn face_count(&self) -> u32 {
        if self.kind == TextureKind::Cube {
            6
        } else {
            1
        }
    }

    /// (width, height, depth) of `level`, `None` past the last level.
    pub fn level_size(&self, level: u32) -> Option<(u32, u32, u32)> {
        if level >= self.level_count {
            return None;
        }
        let d = if self.kind == TextureKind::Volume {
            mip_dim(self.depth, level)
        } else {
            1
        };
        Some((mip_dim(self.width, level), mip_dim(self.height, level), d))
    }

    /// Size and pitches of `level`.
    pub fn level_info(&self, level: u32) -> Option<LevelInfo> {
        let (width, height, depth) = self.level_size(level)?;
        let row_pitch = usize::try_from(self.format.row_bytes(width)?).ok()?;
        let slice_pitch = row_pitch.checked_mul(self.format.row_count(height) as usize)?;
        Some(LevelInfo {
            width,
            height,
            depth,
            row_pitch,
            slice_pitch,
        })
    }

    fn index(&self, face: u32, level: u32) -> Option<usize> {
        if face >= self.face_count() || level >= self.level_count {
            return None;
        }
        Some((face * self.level_count + level) as usize)
    }

    /// The bytes of one face/level (rows `row_pitch` apart, slices
    /// `slice_pitch` apart).
    pub fn level_bytes(&self, face: u32, level: u32) -> Option<&[u8]> {
        self.storage
            .get(self.index(face, level)?)
            .map(Vec::as_slice)
    }

    /// Mutable bytes of one face/level, for the device to upload texels
    /// (same layout as [`Texture::level_bytes`]).
    pub fn level_bytes_mut(&mut self, face: u32, level: u32) -> Option<&mut [u8]> {
        let i = self.index(face, level)?;
        self.storage.get_mut(i).map(Vec::as_mut_slice)
    }

    /// Moves the bytes of one face/level out (a level bound as a render
    /// target while a draw writes it); the level reads as empty until
    /// [`Texture::put_level`] gives them back.
    pub fn take_level(&mut self, face: u32, level: u32) -> Option<Vec<u8>> {
        let i = self.index(face, level)?;
        self.storage.get_mut(i).map(std::mem::take)
    }

    /// Puts bytes taken with [`Texture::take_level`] back; false (nothing
    /// changes) if the face/level does not exist or the length is not the
    /// level's.
    pub fn put_level(&mut self, face: u32, level: u32, bytes: Vec<u8>) -> bool {
        let want = self.level_byte_count(level);
        let Some(i) = self.index(face, level) else {
            return false;
        };
        match self.storage.get_mut(i) {
            Some(slot) if want == Some(bytes.len() as u64) => {
                *slot = bytes;
                true
            }
            _ => false,
        }
    }

    /// Copies a whole face/level from `src`, whose rows (of texels, or of
    /// 4×4 blocks for DXTn) are `src_pitch` bytes apart and whose slices
    /// are `src_pitch × rows` apart. Errors if the face/level does not exist
    /// or `src` is too small; nothing is written on error.
    pub fn upload(
        &mut self,
        face: u32,
        level: u32,
        src: &[u8],
        src_pitch: usize,
    ) -> Result<(), TextureError> {
        let info = self
            .level_info(level)
            .filter(|_| face < self.face_count())
            .ok_or(TextureError::NoSuchLevel { face, level })?;
        let rows = self.format.row_count(info.height) as usize * info.depth as usize;
        let too_small = TextureError::SourceTooSmall {
            len: src.len(),
            pitch: src_pitch,
            needed: (src_pitch as u64).saturating_mul(rows as u64),
        };
        if src_pitch < info.row_pitch {
            return Err(too_small);
        }
        let needed = rows
            .checked_sub(1)
            .and_then(|r| r.checked_mul(src_pitch))
            .and_then(|b| b.checked_add(info.row_pitch));
        match needed {
            Some(n) if n <= src.len() => {}
            _ => return Err(too_small),
        }
        let dst = self
            .level_bytes_mut(face, level)
            .ok_or(TextureError::NoSuchLevel { face, level })?;
        for (row, d) in dst.chunks_exact_mut(info.row_pitch).enumerate() {
            let start = row * src_pitch;
            if let Some(s) = src.get(start..start + info.row_pitch) {
                d.copy_from_slice(s);
            }
        }
        Ok(())
    }

    /// A read-only view of one face/level for sampling.
    pub fn level(&self, face: u32, level: u32) -> Option<LevelRef<'_>> {
        Some(LevelRef {
            format: self.format,
            info: self.level_info(level)?,
            data: self.level_bytes(face, level)?,
            palette: self.palette.as_ref(),
        })
    }

    /// Sets (or removes) the palette of a P8 / A8P8 texture.
    pub fn set_palette(&mut self, palette: Option<Palette>) {
        self.palette = palette;
    }
    /// The palette, if any.
    pub fn palette(&self) -> Option<&Palette> {
        self.palette.as_ref()
    }
    /// Mutable palette (D3DDP2OP_UPDATEPALETTE), if any.
    pub fn palette_mut(&mut self) -> Option<&mut Palette> {
        self.palette.as_mut()
    }

    /// Sets the texture LOD clamp (D3DDP2OP_SETTEXLOD / SetLOD): the most
    /// detailed level sampling may use. Sampling uses
    /// `max(this, MAXMIPLEVEL)`, clamped to the last level.
    pub fn set_lod(&mut self, lod: u32) {
        self.lod = lod;
    }
    /// The texture LOD clamp (0 = every level allowed).
    pub fn lod(&self) -> u32 {
        self.lod
    }

    /// Sets (or removes) the DX6/7 source colour key (D3DDP2OP_SETCOLORKEY).
    pub fn set_color_key(&mut self, key: Option<ColorKey>) {
        self.color_key = key;
    }
    /// The source colour key, if any.
    pub fn color_key(&self) -> Option<ColorKey> {
        self.color_key
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(kind: TextureKind, format: TextureFormat, w: u32, h: u32, d: u32) -> TextureDesc {
        TextureDesc {
            kind,
            format,
            width: w,
            height: h,
            depth: d,
            levels: 0,
        }
    }

    #[test]
    fn a_level_taken_out_comes_back_only_whole() {
        let mut t =
            Texture::new(desc(TextureKind::Cube, TextureFormat::A8R8G8B8, 4, 4, 1)).unwrap();
        let mut b = t.take_level(5, 1).unwrap();
        assert_eq!(b.len(), 2 * 2 * 4);
        assert_eq!(t.level_bytes(5, 1).map(<[u8]>::len), Some(0));
        assert!(t.take_level(6, 0).is_none());
        b[0] = 9;
        assert!(!t.put_level(5, 1, vec![0; 3]), "wrong length");
        assert!(!t.put_level(5, 3, b.clone()), "no such level");
        assert!(t.put_level(5, 1, b));
        assert_eq!(t.level_bytes(5, 1).map(|l| l[0]), Some(9));
        assert_eq!(t.desc().levels, 3);
    }

    #[test]
    fn full_chains() {
        assert_eq!(full_chain(1), 1);
        assert_eq!(full_chain(256), 9);
        assert_eq!(full_chain(255), 8);
        assert_eq!(full_chain(8192), 14);
    }

    #[test]
    fn level_sizes_and_bytes() {
        let t = Texture::new(desc(TextureKind::Texture2D, TextureFormat::Dxt1, 16, 4, 1));
        let t = t.ok();
        let t = t.as_ref();
        assert_eq!(t.map(Texture::level_count), Some(5));
        assert_eq!(
            t.and_then(|t| t.level_info(0)),
            Some(LevelInfo {
                width: 16,
                height: 4,
                depth: 1,
                row_pitch: 32,
                slice_pitch: 32
            })
        );
        // 1×1 DXT1 level still holds one 8-byte block.
        assert_eq!(
            t.and_then(|t| t.level_bytes(0, 4)).map(<[u8]>::len),
            Some(8)
        );
        assert!(t.and_then(|t| t.level_bytes(1, 0)).is_none());
    }

    #[test]
    fn rejects_bad_sizes() {
        let e = Texture::new(desc(TextureKind::Cube, TextureFormat::L8, 4, 8, 1));
        assert_eq!(
            e.err(),
            Some(TextureError::CubeNotSquare {
                width: 4,
                height: 8
            })
        );
        assert!(Texture::new(desc(TextureKind::Texture2D, TextureFormat::L8, 0, 8, 1)).is_err());
        assert!(Texture::new(desc(TextureKind::Texture2D, TextureFormat::L8, 8, 8, 2)).is_err());
        assert!(Texture::new(desc(TextureKind::Volume, TextureFormat::L8, 8, 8, 4096)).is_err());
        let big = desc(
            TextureKind::Texture2D,
            TextureFormat::A32B32G32R32F,
            8192,
            8192,
            1,
        );
        assert!(matches!(
            Texture::new(big),
            Err(TextureError::TooLarge { .. })
        ));
        let mut d = desc(TextureKind::Texture2D, TextureFormat::L8, 8, 8, 1);
        d.levels = 5;
        assert_eq!(
            Texture::new(d).err(),
            Some(TextureError::TooManyLevels {
                requested: 5,
                max: 4
            })
        );
    }
}
