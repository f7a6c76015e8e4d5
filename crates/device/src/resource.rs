//! Surfaces: render targets, depth/stencil buffers, textures (mip chains,
//! cube maps, volumes), vertex and index buffers and command buffers.
//!
//! In: a [`SurfaceDesc`] (its format a D3DFORMAT number, [`D3dFormat`]).
//! Out: a [`Resource`] holding zeroed, size-checked storage: a
//! `pipeline::Surface` for render targets and depth buffers (so the
//! pipeline renders into it directly), a `pipeline::Texture` for textures
//! (so the GPU samples it in place: every texture format of
//! `softhal_pipeline::texture::TextureFormat`, DXTn and palettized
//! included), one byte array for buffers.
//! Guarantees: every size is computed with checked arithmetic and capped by
//! [`crate::limits`] before anything is allocated; storage never changes
//! size except through the rename model ([`crate::Driver::lock`] with
//! `discard`, `SWAP*BUFFER`).

use crate::error::{range, DeviceError, Result};
use crate::limits;
use softhal_pipeline::texture::{Texture, TextureDesc, TextureError, TextureFormat, TextureKind};
use softhal_pipeline::{Format, Surface};
use std::sync::{Arc, OnceLock};

/// A D3DFORMAT number: the DDI's own name for a surface format
/// (`D3DFMT_A8R8G8B8` = 21, FOURCC codes for DXTn and YUV). Render targets
/// and depth buffers take the formats of [`Format`], textures those of
/// [`TextureFormat`]; buffers ignore it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct D3dFormat(pub u32);

impl From<Format> for D3dFormat {
    fn from(f: Format) -> Self {
        D3dFormat(f.d3dfmt())
    }
}

impl From<TextureFormat> for D3dFormat {
    fn from(f: TextureFormat) -> Self {
        D3dFormat(f.d3dfmt())
    }
}

impl D3dFormat {
    /// D3DFMT_UNKNOWN (buffers).
    pub const UNKNOWN: D3dFormat = D3dFormat(0);
    /// The render-target / depth format, if this is one.
    pub fn target(self) -> Option<Format> {
        Format::from_d3dfmt(self.0)
    }
    /// The texture format, if textures can have it.
    pub fn texture(self) -> Option<TextureFormat> {
        TextureFormat::from_d3dfmt(self.0)
    }
    /// Texel block of the texture layout: (1, 1) for packed formats, (4, 4)
    /// for DXTn, (2, 1) for the YUV macro-pixel formats.
    pub fn block(self) -> (u32, u32) {
        use softhal_pipeline::texture::format::TexelLayout;
        match self.texture().map(TextureFormat::layout) {
            Some(TexelLayout::Block { .. }) => (4, 4),
            Some(TexelLayout::MacroPixel) => (2, 1),
            _ => (1, 1),
        }
    }
    /// Bytes of one block (one texel for packed formats).
    pub fn block_bytes(self) -> u32 {
        if let Some(f) = self.target() {
            return f.bytes_per_pixel();
        }
        let (bw, _) = self.block();
        self.texture()
            .and_then(|t| t.row_bytes(bw))
            .map_or(0, |b| b as u32)
    }
}

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
    pub format: D3dFormat,
    /// Width in pixels; for buffers the size in bytes.
    pub width: u32,
    /// Height in pixels (1 for buffers).
    pub height: u32,
    /// Depth in slices (volume textures; 1 otherwise).
    pub depth: u32,
    /// Mip levels (textures; 0 = full chain; 1 otherwise).
    pub mip_levels: u32,
    /// Render-target usage of a 2-D or cube texture (D3DUSAGE_RENDERTARGET;
    /// DX7: DDSCAPS_TEXTURE | DDSCAPS_3DDEVICE): the texture can also be
    /// bound as a context's render target (SETRENDERTARGET,
    /// SETRENDERTARGET2) and sampled at other times. Only colour formats
    /// that are both render-target and texture formats
    /// (`softhal_submit::texture::target_format`). Must be false for other
    /// kinds (a render target is one already).
    pub render_target: bool,
}

impl SurfaceDesc {
    /// A render target.
    pub fn render_target(format: Format, width: u32, height: u32) -> Self {
        SurfaceDesc {
            kind: SurfaceKind::RenderTarget,
            format: format.into(),
            width,
            height,
            depth: 1,
            mip_levels: 1,
            render_target: false,
        }
    }
    /// A depth/stencil buffer.
    pub fn depth_stencil(format: Format, width: u32, height: u32) -> Self {
        SurfaceDesc {
            kind: SurfaceKind::DepthStencil,
            format: format.into(),
            width,
            height,
            depth: 1,
            mip_levels: 1,
            render_target: false,
        }
    }
    /// A 2-D texture (`mip_levels` 0 = full chain).
    pub fn texture(format: impl Into<D3dFormat>, width: u32, height: u32, mip_levels: u32) -> Self {
        SurfaceDesc {
            kind: SurfaceKind::Texture,
            format: format.into(),
            width,
            height,
            depth: 1,
            mip_levels,
            render_target: false,
        }
    }
    /// A cube texture of `edge`² faces.
    pub fn cube_texture(format: impl Into<D3dFormat>, edge: u32, mip_levels: u32) -> Self {
        SurfaceDesc {
            kind: SurfaceKind::CubeTexture,
            format: format.into(),
            width: edge,
            height: edge,
            depth: 1,
            mip_levels,
            render_target: false,
        }
    }
    /// A volume texture.
    pub fn volume_texture(
        format: impl Into<D3dFormat>,
        width: u32,
        height: u32,
        depth: u32,
        mip_levels: u32,
    ) -> Self {
        SurfaceDesc {
            kind: SurfaceKind::VolumeTexture,
            format: format.into(),
            width,
            height,
            depth,
            mip_levels,
            render_target: false,
        }
    }
    /// The same request with render-target usage (a texture that can also
    /// be a render target, [`SurfaceDesc::render_target`]).
    pub fn with_render_target(self) -> Self {
        SurfaceDesc {
            render_target: true,
            ..self
        }
    }
    /// A buffer of `bytes` bytes.
    pub fn buffer(kind: SurfaceKind, bytes: u32) -> Self {
        SurfaceDesc {
            kind,
            format: D3dFormat::UNKNOWN,
            width: bytes,
            height: 1,
            depth: 1,
            mip_levels: 1,
            render_target: false,
        }
    }
}

/// Where a surface's bytes live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Storage {
    /// Render targets and depth buffers (empty only while a GPU job holds
    /// the image; `&self` readers of the driver wait for it to come back
    /// and set it, see `docs/submission.md`, "When work runs").
    Image(OnceLock<Surface>),
    /// Textures: the pipeline's texture object (levels face-major, palette,
    /// LOD clamp, colour key), sampled in place by the GPU (a GPU job
    /// shares it read-only; CPU writes copy it if a job still holds it).
    Texture(Arc<Texture>),
    /// Buffers (shared read-only with GPU jobs like textures).
    Buffer(Arc<Vec<u8>>),
    /// An attached surface: face `face`, level `level` of the render-target
    /// texture `parent` (the DDI's attached mip-level and cube-face
    /// surfaces), named by its own handle so that it can be a render
    /// target ([`crate::Driver::attached_surface`]). No bytes of its own;
    /// its description is the level's (kind and format of the parent,
    /// the level's width and height).
    Attached {
        /// The texture's handle.
        parent: u32,
        /// Cube face (0 for 2-D textures).
        face: u32,
        /// Mip level.
        level: u32,
    },
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
    // leading_zeros ≤ 31 once max_dim ≥ 1: the bit length of max_dim.
    u32::BITS.saturating_sub(max_dim.max(1).leading_zeros())
}

fn level_dim(d: u32, level: u32) -> u32 {
    (d >> level.min(31)).max(1)
}

impl Resource {
    /// Creates zeroed storage for `desc`; returns it with its byte size.
    pub fn create(desc: SurfaceDesc, budget: u64) -> Result<(Resource, u64)> {
        let mut desc = desc;
        let bad = |what| Err(DeviceError::InvalidParams(what));
        if desc.render_target
            && !matches!(desc.kind, SurfaceKind::Texture | SurfaceKind::CubeTexture)
        {
            return bad("render-target usage on a surface that is not a 2-D or cube texture");
        }
        let (storage, bytes) = match desc.kind {
            SurfaceKind::RenderTarget | SurfaceKind::DepthStencil => {
                let want_depth = desc.kind == SurfaceKind::DepthStencil;
                let Some(format) = desc.format.target() else {
                    return Err(DeviceError::UnsupportedFormat {
                        format: desc.format.0,
                        usage: "render target or depth buffer",
                    });
                };
                if format.is_depth() != want_depth {
                    return Err(DeviceError::Pipeline(
                        softhal_pipeline::PipelineError::BadFormat {
                            format,
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
                // What `Surface::for_rendering` allocates: its padded pitch
                // (`render_pitch`, at most u32 × bpp + 64) × height,
                // saturating (a wrapped product would slip past the budget).
                let need = softhal_pipeline::render_pitch(format, desc.width)
                    .saturating_mul(u64::from(desc.height));
                if need > budget {
                    return Err(DeviceError::OutOfMemory);
                }
                let s = Surface::for_rendering(format, desc.width, desc.height)?;
                let n = s.bytes().len() as u64;
                (Storage::Image(OnceLock::from(s)), n)
            }
            SurfaceKind::Texture | SurfaceKind::CubeTexture | SurfaceKind::VolumeTexture => {
                let Some(format) = desc.format.texture() else {
                    return Err(DeviceError::UnsupportedFormat {
                        format: desc.format.0,
                        usage: "texture",
                    });
                };
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
                    desc.mip_levels = chain.min(limits::MAX_MIP_LEVELS);
                }
                if desc.mip_levels > chain || desc.mip_levels > limits::MAX_MIP_LEVELS {
                    return Err(range(
                        "mip levels",
                        u64::from(desc.mip_levels),
                        u64::from(chain) + 1,
                    ));
                }
                let faces: u64 = if desc.kind == SurfaceKind::CubeTexture {
                    6
                } else {
                    1
                };
                // The whole chain, checked before anything is allocated.
                let mut total = 0u64;
                for l in 0..desc.mip_levels {
                    let (w, h, d) = (
                        level_dim(desc.width, l),
                        level_dim(desc.height, l),
                        level_dim(desc.depth, l),
                    );
                    let n = format
                        .row_bytes(w)
                        .and_then(|n| n.checked_mul(u64::from(format.row_count(h))))
                        .and_then(|n| n.checked_mul(u64::from(d)))
                        .and_then(|n| n.checked_mul(faces))
                        .unwrap_or(u64::MAX);
                    total = total.saturating_add(n);
                }
                if total > budget.min(limits::MAX_TOTAL_SURFACE_BYTES) {
                    return Err(DeviceError::OutOfMemory);
                }
                let kind = match desc.kind {
                    SurfaceKind::CubeTexture => TextureKind::Cube,
                    SurfaceKind::VolumeTexture => TextureKind::Volume,
                    _ => TextureKind::Texture2D,
                };
                let td = TextureDesc {
                    kind,
                    format,
                    width: desc.width,
                    height: desc.height,
                    depth: desc.depth,
                    levels: desc.mip_levels,
                };
                if desc.render_target && softhal_submit::texture::target_format(&td).is_none() {
                    return Err(DeviceError::UnsupportedFormat {
                        format: desc.format.0,
                        usage: "render-target texture",
                    });
                }
                let t = Texture::new(td).map_err(|e| match e {
                    TextureError::TooLarge { .. } => DeviceError::OutOfMemory,
                    _ => DeviceError::InvalidParams("texture description"),
                })?;
                (Storage::Texture(Arc::new(t)), total)
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
                    Storage::Buffer(Arc::new(vec![0; desc.width as usize])),
                    u64::from(desc.width),
                )
            }
        };
        Ok((Resource::new(desc, storage), bytes))
    }

    /// A resource with nothing recorded on it yet.
    fn new(desc: SurfaceDesc, storage: Storage) -> Resource {
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
        }
    }

    /// Bytes of storage held.
    pub fn byte_size(&self) -> u64 {
        match &self.storage {
            Storage::Image(s) => s.get().map_or(0, |s| s.bytes().len() as u64),
            Storage::Texture(t) => (0..t.face_count())
                .flat_map(|f| (0..t.level_count()).map(move |l| (f, l)))
                .map(|(f, l)| t.level_bytes(f, l).map_or(0, |b| b.len() as u64))
                .sum(),
            Storage::Buffer(b) => b.len() as u64,
            Storage::Attached { .. } => 0,
        }
    }

    /// The buffer bytes (buffer kinds only).
    pub fn buffer(&self, handle: u32) -> Result<&[u8]> {
        match &self.storage {
            Storage::Buffer(b) => Ok(b.as_slice()),
            _ => Err(self.wrong(handle, "buffer")),
        }
    }

    /// The image (render targets and depth buffers only).
    pub fn image(&self, handle: u32) -> Result<&Surface> {
        match &self.storage {
            Storage::Image(s) => s.get(),
            _ => None,
        }
        .ok_or_else(|| self.wrong(handle, "render target or depth/stencil surface"))
    }

    /// Can it be a context's colour render target? Render targets,
    /// textures with render-target usage and their attached surfaces.
    pub fn is_color_target(&self) -> bool {
        self.desc.kind == SurfaceKind::RenderTarget || self.desc.render_target
    }

    /// What the GPU binds when surface `handle` is the render target:
    /// (surface with the allocation, face, level) — the texture behind an
    /// attached surface, else `handle` itself at (0, 0).
    pub fn target_of(&self, handle: u32) -> (u32, u32, u32) {
        match self.storage {
            Storage::Attached {
                parent,
                face,
                level,
            } => (parent, face, level),
            _ => (handle, 0, 0),
        }
    }

    /// The attached surface for face `face`, level `level` of this
    /// render-target texture (`handle`): its resource, or an error if this
    /// is not a render-target texture or the face or level does not exist.
    pub(crate) fn attached(&self, handle: u32, face: u32, level: u32) -> Result<Resource> {
        if !self.desc.render_target || self.texture().is_none() {
            return Err(self.wrong(handle, "render-target texture"));
        }
        self.check_level(face, level)?;
        let desc = SurfaceDesc {
            width: level_dim(self.desc.width, level),
            height: level_dim(self.desc.height, level),
            depth: 1,
            mip_levels: 1,
            ..self.desc
        };
        Ok(Resource::new(
            desc,
            Storage::Attached {
                parent: handle,
                face,
                level,
            },
        ))
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

/// The shape of a plane, for validating blits. Sizes are in texels;
/// volumes stack their slices as more rows.
#[derive(Debug)]
pub(crate) struct PlaneShape {
    /// Width in texels.
    pub width: u32,
    /// Height in texels (× depth for volume levels).
    pub height: u32,
    /// Bytes of one block (one texel for packed formats).
    pub bpp: usize,
    /// The format.
    pub format: D3dFormat,
    /// Texels per block (width, height).
    pub block: (u32, u32),
}

impl PlaneShape {
    /// The render-target format of the plane, for blits that convert.
    pub fn target(&self) -> Option<Format> {
        self.format.target()
    }
}

impl Resource {
    /// The shape of a plane (level `level` of face `face`; all slices of a
    /// volume level).
    pub(crate) fn plane(&self, handle: u32, face: u32, level: u32) -> Result<PlaneShape> {
        let format = self.desc.format;
        match &self.storage {
            Storage::Image(s) => {
                let Some(s) = s.get() else {
                    return Err(self.wrong(handle, "surface with pixels"));
                };
                if face != 0 || level != 0 {
                    return Err(range("mip level", u64::from(level), 1));
                }
                Ok(PlaneShape {
                    width: s.width(),
                    height: s.height(),
                    bpp: s.format().bytes_per_pixel() as usize,
                    format,
                    block: (1, 1),
                })
            }
            Storage::Texture(t) => {
                self.check_level(face, level)?;
                let info = t
                    .level_info(level)
                    .ok_or_else(|| range("mip level", u64::from(level), 0))?;
                Ok(PlaneShape {
                    width: info.width,
                    height: info.height.saturating_mul(info.depth),
                    bpp: format.block_bytes() as usize,
                    format,
                    block: format.block(),
                })
            }
            _ => Err(self.wrong(handle, "surface with pixels")),
        }
    }

    /// Checks that face `face`, level `level` exists.
    pub(crate) fn check_level(&self, face: u32, level: u32) -> Result<()> {
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
        Ok(())
    }

    /// Writable bytes and pitch of a plane, with its texel width and height.
    pub(crate) fn plane_mut(
        &mut self,
        handle: u32,
        face: u32,
        level: u32,
    ) -> Result<(&mut [u8], usize, u32, u32)> {
        if matches!(self.storage, Storage::Texture(_)) {
            self.check_level(face, level)?;
        }
        let wrong = self.wrong(handle, "surface with pixels");
        match &mut self.storage {
            Storage::Image(s) => {
                let Some(s) = s.get_mut() else {
                    return Err(wrong);
                };
                if face != 0 || level != 0 {
                    return Err(range("mip level", u64::from(level), 1));
                }
                let (p, w, h) = (s.pitch(), s.width(), s.height());
                Ok((s.bytes_mut(), p, w, h))
            }
            Storage::Texture(t) => {
                let t = Arc::make_mut(t);
                let info = t
                    .level_info(level)
                    .ok_or_else(|| range("mip level", u64::from(level), 0))?;
                let bytes = t
                    .level_bytes_mut(face, level)
                    .ok_or_else(|| range("mip level", u64::from(level), 0))?;
                Ok((
                    bytes,
                    info.row_pitch,
                    info.width,
                    info.height.saturating_mul(info.depth),
                ))
            }
            _ => Err(wrong),
        }
    }

    /// The texture (texture kinds only).
    pub fn texture(&self) -> Option<&Texture> {
        match &self.storage {
            Storage::Texture(t) => Some(&**t),
            _ => None,
        }
    }

    /// The texture, mutable (texture kinds only).
    pub(crate) fn texture_mut(&mut self) -> Option<&mut Texture> {
        match &mut self.storage {
            Storage::Texture(t) => Some(Arc::make_mut(t)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The budget check counts what a render target allocates: a 32 × 2
    /// A8R8G8B8 target has 128-byte rows, a multiple of 128, so its pitch
    /// is 128 + 64 = 192 (`render_pitch`) and it takes 2 × 192 = 384
    /// bytes, not the 256 of its tight rows.
    #[test]
    fn render_target_budget_counts_the_padded_pitch() {
        let desc = SurfaceDesc::render_target(Format::A8R8G8B8, 32, 2);
        assert!(matches!(
            Resource::create(desc, 383),
            Err(DeviceError::OutOfMemory)
        ));
        let (_, bytes) = Resource::create(desc, 384).unwrap();
        assert_eq!(bytes, 384);
    }
}
