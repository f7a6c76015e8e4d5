//! Hard limits of texture resources, in one place.
//!
//! *Input*: nothing; these are constants. *Output*: the numbers
//! [`crate::texture::Texture::new`] checks against. *Guarantee*: every size
//! a texture can have is bounded here, so the byte count of a texture is
//! computed with checked arithmetic and never exceeds
//! [`MAX_TEXTURE_BYTES`]. The 2D bound reuses the crate's surface limit
//! ([`crate::limits::MAX_DIMENSION`]) so that a texture can always be used
//! as a render target of the same size.

/// Largest width or height of a 2D or cube texture (same bound as a
/// surface: 8192, the common D3D9 hardware `MaxTextureWidth/Height`).
pub const MAX_TEXTURE_DIMENSION: u32 = crate::limits::MAX_DIMENSION;

/// Largest width, height or depth of a volume texture (D3D9 hardware
/// commonly reports `MaxVolumeExtent` = 2048).
pub const MAX_VOLUME_DIMENSION: u32 = 2048;

/// Largest number of mip levels: a full chain of an 8192 texture
/// (log2(8192) + 1).
pub const MAX_MIP_LEVELS: u32 = 14;

/// Largest byte size of one texture, all faces and levels together
/// (same bound as one surface: 512 MiB).
pub const MAX_TEXTURE_BYTES: u64 = crate::limits::MAX_SURFACE_BYTES;

/// Number of palette entries of a P8 / A8P8 texture.
pub const PALETTE_ENTRIES: usize = 256;

/// Largest number of probes the anisotropic filter takes along the major
/// axis (D3D9 hardware commonly reports `MaxAnisotropy` = 16).
pub const MAX_ANISOTROPY: u32 = 16;

/// Number of texture stages of the fixed-function cascade
/// (D3DHAL_TSS_MAXSTAGES).
pub const MAX_TEXTURE_STAGES: usize = 8;
