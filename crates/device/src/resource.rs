//! Surfaces: render targets, depth/stencil buffers, textures (mip chains,
//! cube maps, volumes), vertex and index buffers and command buffers.
//!
//! In: a [`SurfaceDesc`]. Out: a [`Resource`] holding zeroed, size-checked
//! storage: a `pipeline::Surface` for render targets and depth buffers (so
//! the pipeline renders into it directly), one byte array per level (and
//! face / slice) for textures, one byte array for buffers.
//! Guarantees: every size is computed with checked arithmetic and capped by
//! [`crate::limits`]; storage never changes size except through the rename
//! model ([`crate::Driver::lock`] with `discard`, `SWAP*BUFFER`).
//!
//! Texture storage uses the pipeline's formats (the colour formats it can
//! render to); textures can be created, locked and blitted but are not yet
//! sampled (the pipeline has no texturing).

use crate::error::{range, DeviceError, Result};
use crate::limits;
use softhal_pipeline::{Format, Surface};

/// What a surface is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SurfaceKind {
    /// A colour render target (also the front/back buffers of a flip chain).
    RenderTarget,
    /// A depth/stencil buffer.
    DepthStencil,
    /// A 2-D texture with a mip chain.
    Texture,
    /// A cube texture (6 faces, each with a mip chain).
    CubeTexture,
    /// A volume texture.
    VolumeTexture,
    /// A vertex buffer. `implicit`: driver-managed (the runtime's internal
    /// DP2 vertex buffer, may be renamed); explicit ones are application
    /// vertex buffers.
    VertexBuffer {
        /// Implicit (driver-managed) buffer.
        implicit: bool,
    },
    /// An index buffer.
    IndexBuffer,
    /// A DP2 command buffer.
    CommandBuffer,
}

impl SurfaceKind {
    /// Name used in errors.
    pub fn name(self) -> &'static str {
        match self {
            SurfaceKind::RenderTarget => "render target",
            SurfaceKind::DepthStencil => "depth/stencil surface",
            SurfaceKind::Texture => "texture",
            SurfaceKind::CubeTexture => "cube texture",
            SurfaceKind::VolumeTexture => "volume texture",
            SurfaceKind::VertexBuffer { .. } => "vertex buffer",
            SurfaceKind::IndexBuffer => "index buffer",
            SurfaceKind::CommandBuffer => "command buffer",
        }
    }
    /// True for the byte-buffer kinds.
    pub fn is_buffer(self) -> bool {
        matches!(
            self,
            SurfaceKind::VertexBuffer { .. }
                | SurfaceKind::IndexBuffer
                | SurfaceKind::CommandBuffer
        )
    }
}

/// A surface request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SurfaceDesc {
    /// Kind.
    pub kind: SurfaceKind,
    /// Pixel format (ignored for buffers).
    pub format: Format,
    /// Width in pixels; for buffers the size in bytes.
    pub width: u32,
    /// Height in pixels (1 for buffers).
    pub height: u32,
    /// Depth in slices (volume textures; 1 otherwise).
    pub depth: u32,
    /// Mip levels (textures; 0 = full chain; 1 otherwise).
    pub mip_levels: u32,
}

impl SurfaceDesc {
    /// A render target.
    pub fn render_target(format: Format, width: u32, height: u32) -> Self {
        SurfaceDesc {
            kind: SurfaceKind::RenderTarget,
            format,
            width,
            height,
            depth: 1,
            mip_levels: 1,
        }
    }
    /// A depth/stencil buffer.
    pub fn depth_stencil(format: Format, width: u32, height: u32) -> Self {
        SurfaceDesc {
            kind: SurfaceKind::DepthStencil,
            format,
            width,
            height,
            depth: 1,
            mip_levels: 1,
        }
    }
    /// A 2-D texture (`mip_levels` 0 = full chain).
    pub fn texture(format: Format, width: u32, height: u32, mip_levels: u32) -> Self {
        SurfaceDesc {
            kind: SurfaceKind::Texture,
            format,
            width,
            height,
            depth: 1,
            mip_levels,
        }
    }
    /// A cube texture of `edge`² faces.
    pub fn cube_texture(format: Format, edge: u32, mip_levels: u32) -> Self {
        SurfaceDesc {
            kind: SurfaceKind::CubeTexture,
            format,
            width: edge,
            height: edge,
            depth: 1,
            mip_levels,
        }
    }
    /// A volume texture.
    pub fn volume_texture(
        format: Format,
        width: u32,
        height: u32,
        depth: u32,
        mip_levels: u32,
    ) -> Self {
        SurfaceDesc {
            kind: SurfaceKind::VolumeTexture,
            format,
            width,
            height,
            depth,
            mip_levels,
        }
    }
    /// A buffer of `bytes` bytes.
    pub fn buffer(kind: SurfaceKind, bytes: u32) -> Self {
        SurfaceDesc {
            kind,
            format: Format::A8,
            width: bytes,
            height: 1,
            depth: 1,
            mip_levels: 1,
        }
    }
}

/// One level (of one face) of a texture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Level {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Depth in slices.
    pub depth: u32,
    /// Bytes per row.
    pub pitch: usize,
    /// Bytes per slice.
    pub slice_pitch: usize,
    /// The pixels.
    pub bytes: Vec<u8>,
}

/// Where a surface's bytes live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Storage {
    /// Render targets and depth buffers (`None` only while a draw holds it).
    Image(Option<Surface>),
    /// Texture levels, face-major (cube: 6 × levels).
    Levels(Vec<Level>),
    /// Buffers.
    Buffer(Vec<u8>),
}

/// Dirty regions recorded by ADDDIRTYRECT / ADDDIRTYBOX.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Dirty {
    /// Rectangles / boxes as (left, top, front, right, bottom, back).
    pub regions: Vec<[i64; 6]>,
    /// Too many regions: everything is dirty.
    pub all: bool,
}

/// A live surface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// The request it was created from (mip_levels resolved).
    pub desc: SurfaceDesc,
    /// The bytes.
    pub storage: Storage,
    /// Locked by the host (between lock and unlock).
    pub locked: bool,
    /// A flip to this surface is pending (DrawPrimitives2 on a context
    /// rendering to it returns DDERR_WASSTILLDRAWING).
    pub flip_pending: bool,
    /// Referenced by a submitted DrawPrimitives2 whose work the rename
    /// model considers in flight (see [`crate::swap`]).
    pub busy: bool,
    /// SETTEXLOD value.
    pub lod: u32,
    /// SETPRIORITY value.
    pub priority: u32,
    /// ADDDIRTYRECT / ADDDIRTYBOX regions.
    pub dirty: Dirty,
    /// Attached palette (SETPALETTE): handle and flags.
    pub palette: Option<(u32, u32)>,
}

/// Number of levels of a full chain for the largest dimension `max_dim`.
fn full_chain(max_dim: u32) -> u32 {
    32 - max_dim.max(1).leading_zeros()
}

fn level_dim(d: u32, level: u32) -> u32 {
    (d >> level.min(31)).max(1)
}

impl Resource {
    /// Creates zeroed storage for `desc`; returns it with its byte size.
    pub fn create(desc: SurfaceDesc, budget: u64) -> Result<(Resource, u64)> {
        let mut desc = desc;
        let bad = |what| Err(DeviceError::InvalidParams(what));
        let (storage, bytes) = match desc.kind {
            SurfaceKind::RenderTarget | SurfaceKind::DepthStencil => {
                let want_depth = desc.kind == SurfaceKind::DepthStencil;
                if desc.format.is_depth() != want_depth {
                    return Err(DeviceError::Pipeline(
                        softhal_pipeline::PipelineError::BadFormat {
                            format: desc.format,
                            usage: if want_depth {
                                "depth/stencil"
                            } else {
                                "render target"
                            },
                        },
                    ));
                }
                desc.depth = 1;
                desc.mip_levels = 1;
                // u32 × bpp × u32 can exceed u64: checked (a wrapped product
                // would slip past the budget).
                let need = u64::from(desc.width)
                    .checked_mul(u64::from(desc.format.bytes_per_pixel()))
                    .and_then(|n| n.checked_mul(u64::from(desc.height)))
                    .unwrap_or(u64::MAX);
                if need > budget {
                    return Err(DeviceError::OutOfMemory);
                }
                let s = Surface::new(desc.format, desc.width, desc.height)?;
                let n = s.bytes().len() as u64;
                (Storage::Image(Some(s)), n)
            }
            SurfaceKind::Texture | SurfaceKind::CubeTexture | SurfaceKind::VolumeTexture => {
                if desc.format.is_depth() {
                    return bad("texture formats are colour formats");
                }
                let max = limits::MAX_TEXTURE_DIMENSION;
                if desc.kind == SurfaceKind::CubeTexture && desc.width != desc.height {
                    return bad("cube faces are square");
                }
                if desc.kind != SurfaceKind::VolumeTexture {
                    desc.depth = 1;
                }
                if desc.width == 0 || desc.height == 0 || desc.depth == 0 {
                    return bad("texture dimension 0");
                }
                if desc.width > max || desc.height > max {
                    return Err(range(
                        "texture dimension",
                        u64::from(desc.width.max(desc.height)),
                        u64::from(max) + 1,
                    ));
                }
                if desc.depth > limits::MAX_VOLUME_DEPTH {
                    return Err(range(
                        "volume texture depth",
                        u64::from(desc.depth),
                        u64::from(limits::MAX_VOLUME_DEPTH) + 1,
                    ));
                }
                let chain = full_chain(desc.width.max(desc.height).max(desc.depth));
                if desc.mip_levels == 0 {
                    desc.mip_levels = chain;
                }
                if desc.mip_levels > chain || desc.mip_levels > limits::MAX_MIP_LEVELS {
                    return Err(range(
                        "mip levels",
                        u64::from(desc.mip_levels),
                        u64::from(chain) + 1,
                    ));
                }
                let faces = if desc.kind == SurfaceKind::CubeTexture {
                    6
                } else {
                    1
                };
                let bpp = u64::from(desc.format.bytes_per_pixel());
                let mut total = 0u64;
                let mut dims = Vec::new();
                for _ in 0..faces {
                    for l in 0..desc.mip_levels {
                        let (w, h, d) = (
                            level_dim(desc.width, l),
                            level_dim(desc.height, l),
                            level_dim(desc.depth, l),
                        );
                        let n = u64::from(w)
                            .checked_mul(bpp)
                            .and_then(|n| n.checked_mul(u64::from(h)))
                            .and_then(|n| n.checked_mul(u64::from(d)))
                            .unwrap_or(u64::MAX);
                        total = total.saturating_add(n);
                        dims.push((w, h, d));
                    }
                }
                if total > budget.min(limits::MAX_TOTAL_SURFACE_BYTES) {
                    return Err(DeviceError::OutOfMemory);
                }
                let mut levels = Vec::with_capacity(dims.len());
                for (w, h, d) in dims {
                    let pitch = usize::try_from(u64::from(w) * bpp)
                        .map_err(|_| DeviceError::OutOfMemory)?;
                    let slice = pitch
                        .checked_mul(h as usize)
                        .ok_or(DeviceError::OutOfMemory)?;
                    let n = slice
                        .checked_mul(d as usize)
                        .ok_or(DeviceError::OutOfMemory)?;
                    levels.push(Level {
                        width: w,
                        height: h,
                        depth: d,
                        pitch,
                        slice_pitch: slice,
                        bytes: vec![0; n],
                    });
                }
                (Storage::Levels(levels), total)
            }
            SurfaceKind::VertexBuffer { .. }
            | SurfaceKind::IndexBuffer
            | SurfaceKind::CommandBuffer => {
                desc.height = 1;
                desc.depth = 1;
                desc.mip_levels = 1;
                if u64::from(desc.width) > limits::MAX_BUFFER_BYTES {
                    return Err(range(
                        "buffer size",
                        u64::from(desc.width),
                        limits::MAX_BUFFER_BYTES + 1,
                    ));
                }
                if u64::from(desc.width) > budget {
                    return Err(DeviceError::OutOfMemory);
                }
                (
                    Storage::Buffer(vec![0; desc.width as usize]),
                    u64::from(desc.width),
                )
            }
        };
        Ok((
            Resource {
                desc,
                storage,
                locked: false,
                flip_pending: false,
                busy: false,
                lod: 0,
                priority: 0,
                dirty: Dirty::default(),
                palette: None,
            },
            bytes,
        ))
    }

    /// Bytes of storage held.
    pub fn byte_size(&self) -> u64 {
        match &self.storage {
            Storage::Image(Some(s)) => s.bytes().len() as u64,
            Storage::Image(None) => 0,
            Storage::Levels(l) => l.iter().map(|l| l.bytes.len() as u64).sum(),
            Storage::Buffer(b) => b.len() as u64,
        }
    }

    /// The buffer bytes (buffer kinds only).
    pub fn buffer(&self, handle: u32) -> Result<&[u8]> {
        match &self.storage {
            Storage::Buffer(b) => Ok(b),
            _ => Err(self.wrong(handle, "buffer")),
        }
    }

    /// The image (render targets and depth buffers only).
    pub fn image(&self, handle: u32) -> Result<&Surface> {
        match &self.storage {
            Storage::Image(Some(s)) => Ok(s),
            _ => Err(self.wrong(handle, "render target or depth/stencil surface")),
        }
    }

    /// A wrong-kind error for this resource.
    pub fn wrong(&self, handle: u32, expected: &'static str) -> DeviceError {
        DeviceError::WrongKind {
            handle,
            expected,
            actual: self.desc.kind.name(),
        }
    }

    /// Number of faces (6 for cube textures).
    pub fn faces(&self) -> u32 {
        if self.desc.kind == SurfaceKind::CubeTexture {
            6
        } else {
            1
        }
    }

    /// Records a dirty region.
    pub fn add_dirty(&mut self, region: [i64; 6]) {
        if self.dirty.all {
            return;
        }
        if self.dirty.regions.len() >= limits::MAX_DIRTY_REGIONS {
            self.dirty.regions.clear();
            self.dirty.all = true;
        } else {
            self.dirty.regions.push(region);
        }
    }
}

/// A 2-D view of pixels for blits: bytes, pitch, size, bytes per pixel.
#[derive(Debug)]
pub(crate) struct PlaneRef<'a> {
    pub bytes: &'a [u8],
    pub pitch: usize,
    pub width: u32,
    pub height: u32,
    pub bpp: usize,
    pub format: Format,
}

impl Resource {
    /// A plane (level `level` of face `face`, slice 0 for volumes) for
    /// reading.
    pub(crate) fn plane(&self, handle: u32, face: u32, level: u32) -> Result<PlaneRef<'_>> {
        let format = self.desc.format;
        let bpp = format.bytes_per_pixel() as usize;
        match &self.storage {
            Storage::Image(Some(s)) => {
                if face != 0 || level != 0 {
                    return Err(range("mip level", u64::from(level), 1));
                }
                Ok(PlaneRef {
                    bytes: s.bytes(),
                    pitch: s.pitch(),
                    width: s.width(),
                    height: s.height(),
                    bpp,
                    format,
                })
            }
            Storage::Levels(levels) => {
                let l = self.level_index(face, level)?;
                let lv = levels.get(l).ok_or_else(|| {
                    range(
                        "mip level",
                        u64::from(level),
                        u64::from(self.desc.mip_levels),
                    )
                })?;
                Ok(PlaneRef {
                    bytes: &lv.bytes,
                    pitch: lv.pitch,
                    width: lv.width,
                    height: lv.height * lv.depth,
                    bpp,
                    format,
                })
            }
            _ => Err(self.wrong(handle, "surface with pixels")),
        }
    }

    /// Index into [`Storage::Levels`].
    pub(crate) fn level_index(&self, face: u32, level: u32) -> Result<usize> {
        if face >= self.faces() {
            return Err(range("cube face", u64::from(face), u64::from(self.faces())));
        }
        if level >= self.desc.mip_levels {
            return Err(range(
                "mip level",
                u64::from(level),
                u64::from(self.desc.mip_levels),
            ));
        }
        Ok((face * self.desc.mip_levels + level) as usize)
    }

    /// Writable bytes and pitch of a plane.
    pub(crate) fn plane_mut(
        &mut self,
        handle: u32,
        face: u32,
        level: u32,
    ) -> Result<(&mut [u8], usize, u32, u32)> {
        let l = match &self.storage {
            Storage::Levels(_) => Some(self.level_index(face, level)?),
            _ => None,
        };
        let wrong = self.wrong(handle, "surface with pixels");
        match &mut self.storage {
            Storage::Image(Some(s)) => {
                if face != 0 || level != 0 {
                    return Err(range("mip level", u64::from(level), 1));
                }
                let (p, w, h) = (s.pitch(), s.width(), s.height());
                Ok((s.bytes_mut(), p, w, h))
            }
            Storage::Levels(levels) => {
                let lv = levels.get_mut(l.unwrap_or(usize::MAX)).ok_or(range(
                    "mip level",
                    u64::from(level),
                    0,
                ))?;
                let (p, w, h) = (lv.pitch, lv.width, lv.height * lv.depth);
                Ok((&mut lv.bytes, p, w, h))
            }
            _ => Err(wrong),
        }
    }
}
