//! Video memory as the GPU sees it.
//!
//! The kernel side keeps the allocation *table* (sizes, kinds, locks,
//! fences); the bytes live with whoever created the allocations (the
//! device's surfaces, or [`HostMemory`]) and are reached through
//! [`VideoMemory`] only while the GPU executes. In: allocation handles.
//! Out: images (moved out for the duration of a draw or clear, then put
//! back), buffer bytes and textures (borrowed by draws that sample them,
//! mutably by TEXTURE_COPY). Guarantee: an unknown handle, or a handle of
//! another kind, gives `None`; the GPU counts that as a fault and skips
//! the packet (a texture bound to a draw reads as unbound instead).

use softhal_pipeline::texture::Texture;
use softhal_pipeline::Surface;
use std::collections::BTreeMap;

/// The memory behind allocations.
pub trait VideoMemory {
    /// Moves the image of allocation `a` out (render target, depth).
    fn take_image(&mut self, a: u32) -> Option<Surface>;
    /// Puts an image taken with [`VideoMemory::take_image`] back.
    fn put_image(&mut self, a: u32, s: Surface);
    /// The bytes of buffer allocation `a`.
    fn buffer(&self, a: u32) -> Option<&[u8]>;
    /// Copies `len` bytes between buffer allocations (ranges may overlap
    /// when `src == dst`); false if a range does not exist.
    fn copy_buffer(
        &mut self,
        src: u32,
        src_off: usize,
        dst: u32,
        dst_off: usize,
        len: usize,
    ) -> bool;
    /// The texture of texture allocation `a` (sampled by draws, read by
    /// TEXTURE_COPY).
    fn texture(&self, a: u32) -> Option<&Texture>;
    /// The texture of texture allocation `a`, to write (TEXTURE_COPY).
    fn texture_mut(&mut self, a: u32) -> Option<&mut Texture>;
}

/// One allocation's storage in [`HostMemory`].
#[derive(Debug, Clone, PartialEq)]
pub enum Storage {
    /// A buffer.
    Buffer(Vec<u8>),
    /// An image (None while the GPU holds it).
    Image(Option<Surface>),
    /// A texture (boxed: a texture with its palette is large).
    Texture(Box<Texture>),
}

/// A plain map from allocation handles to storage (tests, tools, fuzzing).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct HostMemory {
    /// The storage.
    pub map: BTreeMap<u32, Storage>,
}

impl VideoMemory for HostMemory {
    fn take_image(&mut self, a: u32) -> Option<Surface> {
        match self.map.get_mut(&a)? {
            Storage::Image(s) => s.take(),
            Storage::Buffer(_) | Storage::Texture(_) => None,
        }
    }
    fn put_image(&mut self, a: u32, s: Surface) {
        if let Some(Storage::Image(slot)) = self.map.get_mut(&a) {
            *slot = Some(s);
        }
    }
    fn buffer(&self, a: u32) -> Option<&[u8]> {
        match self.map.get(&a)? {
            Storage::Buffer(b) => Some(b),
            Storage::Image(_) | Storage::Texture(_) => None,
        }
    }
    fn copy_buffer(&mut self, src: u32, so: usize, dst: u32, d: usize, len: usize) -> bool {
        let Some(tmp) = self
            .buffer(src)
            .and_then(|b| b.get(so..so.checked_add(len)?))
            .map(<[u8]>::to_vec)
        else {
            return false;
        };
        match self.map.get_mut(&dst) {
            Some(Storage::Buffer(b)) => match b.get_mut(d..d.saturating_add(len)) {
                Some(out) if d.checked_add(len).is_some() => {
                    out.copy_from_slice(&tmp);
                    true
                }
                _ => false,
            },
            _ => false,
        }
    }
    fn texture(&self, a: u32) -> Option<&Texture> {
        match self.map.get(&a)? {
            Storage::Texture(t) => Some(t),
            _ => None,
        }
    }
    fn texture_mut(&mut self, a: u32) -> Option<&mut Texture> {
        match self.map.get_mut(&a)? {
            Storage::Texture(t) => Some(t),
            _ => None,
        }
    }
}
