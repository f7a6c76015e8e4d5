//! Video memory as the GPU sees it.
//!
//! The kernel side keeps the allocation *table* (sizes, kinds, locks,
//! fences); the bytes live with whoever created the allocations (the
//! device's surfaces, or [`HostMemory`]) and are reached through
//! [`VideoMemory`] only while the GPU executes. In: allocation handles.
//! Out: images (moved out for the duration of a draw or clear, then put
//! back), buffer bytes and textures (borrowed by draws that sample them,
//! mutably by TEXTURE_COPY and by draws and clears into a texture level
//! bound with BIND_TEXTURE_TARGET). Guarantee: an unknown handle, or a handle of
//! another kind, gives `None`; the GPU counts that as a fault and skips
//! the packet (a texture bound to a draw reads as unbound instead).
//!
//! A job for the GPU worker carries what it touches ([`JobMemory`]):
//! images are *moved* out of the owner's memory
//! ([`VideoMemory::take_image`]) and come back with the result; buffers
//! and textures travel as shared read-only snapshots
//! ([`VideoMemory::share_buffer`], [`VideoMemory::share_texture`]), and
//! those the job wrote (BUFFER_COPY, TEXTURE_COPY destinations, written
//! copy-on-write) come back and replace the owner's
//! ([`VideoMemory::put_buffer`], [`VideoMemory::put_texture`]).

use softhal_pipeline::texture::Texture;
use softhal_pipeline::Surface;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

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
    /// A shared read-only snapshot of buffer allocation `a` (for a GPU
    /// job; cheap when the owner keeps its buffers in an `Arc`).
    fn share_buffer(&mut self, a: u32) -> Option<Arc<Vec<u8>>>;
    /// Replaces buffer allocation `a`'s bytes with what a job wrote.
    fn put_buffer(&mut self, a: u32, b: Arc<Vec<u8>>);
    /// A shared read-only snapshot of texture allocation `a`.
    fn share_texture(&mut self, a: u32) -> Option<Arc<Texture>>;
    /// Replaces texture allocation `a` with what a job wrote.
    fn put_texture(&mut self, a: u32, t: Arc<Texture>);
}

/// What one GPU job carries: the images it moved out, snapshots of the
/// buffers and textures it reads, and which of those it wrote.
#[derive(Debug, Default)]
pub struct JobMemory {
    /// Images moved out of the owner (returned with the result).
    pub images: BTreeMap<u32, Surface>,
    /// Buffer snapshots (written ones copied on write).
    pub buffers: BTreeMap<u32, Arc<Vec<u8>>>,
    /// Texture snapshots (written ones copied on write).
    pub textures: BTreeMap<u32, Arc<Texture>>,
    /// Buffers and textures the job wrote.
    pub written: BTreeSet<u32>,
}

impl JobMemory {
    /// Drops the snapshots the job only read (so the owner's copies are
    /// unshared again and its CPU writes do not copy).
    pub fn drop_read_only(&mut self) {
        let w = &self.written;
        self.buffers.retain(|a, _| w.contains(a));
        self.textures.retain(|a, _| w.contains(a));
    }

    /// Moves everything back into `mem`.
    pub fn return_to(self, mem: &mut dyn VideoMemory) {
        for (a, s) in self.images {
            mem.put_image(a, s);
        }
        for (a, b) in self.buffers {
            if self.written.contains(&a) {
                mem.put_buffer(a, b);
            }
        }
        for (a, t) in self.textures {
            if self.written.contains(&a) {
                mem.put_texture(a, t);
            }
        }
    }
}

impl VideoMemory for JobMemory {
    fn take_image(&mut self, a: u32) -> Option<Surface> {
        self.images.remove(&a)
    }
    fn put_image(&mut self, a: u32, s: Surface) {
        self.images.insert(a, s);
    }
    fn buffer(&self, a: u32) -> Option<&[u8]> {
        self.buffers.get(&a).map(|b| b.as_slice())
    }
    fn copy_buffer(&mut self, src: u32, so: usize, dst: u32, d: usize, len: usize) -> bool {
        let Some(tmp) = self
            .buffer(src)
            .and_then(|b| b.get(so..so.checked_add(len)?))
            .map(<[u8]>::to_vec)
        else {
            return false;
        };
        let Some(b) = self.buffers.get_mut(&dst) else {
            return false;
        };
        let Some(e) = d.checked_add(len).filter(|e| *e <= b.len()) else {
            return false;
        };
        match Arc::make_mut(b).get_mut(d..e) {
            Some(out) => {
                out.copy_from_slice(&tmp);
                self.written.insert(dst);
                true
            }
            None => false,
        }
    }
    fn texture(&self, a: u32) -> Option<&Texture> {
        self.textures.get(&a).map(|t| &**t)
    }
    fn texture_mut(&mut self, a: u32) -> Option<&mut Texture> {
        let t = self.textures.get_mut(&a)?;
        self.written.insert(a);
        Some(Arc::make_mut(t))
    }
    fn share_buffer(&mut self, a: u32) -> Option<Arc<Vec<u8>>> {
        self.buffers.get(&a).cloned()
    }
    fn put_buffer(&mut self, a: u32, b: Arc<Vec<u8>>) {
        self.buffers.insert(a, b);
    }
    fn share_texture(&mut self, a: u32) -> Option<Arc<Texture>> {
        self.textures.get(&a).cloned()
    }
    fn put_texture(&mut self, a: u32, t: Arc<Texture>) {
        self.textures.insert(a, t);
    }
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
    fn share_buffer(&mut self, a: u32) -> Option<Arc<Vec<u8>>> {
        self.buffer(a).map(|b| Arc::new(b.to_vec()))
    }
    fn put_buffer(&mut self, a: u32, b: Arc<Vec<u8>>) {
        if let Some(Storage::Buffer(v)) = self.map.get_mut(&a) {
            *v = Arc::unwrap_or_clone(b);
        }
    }
    fn share_texture(&mut self, a: u32) -> Option<Arc<Texture>> {
        self.texture(a).map(|t| Arc::new(t.clone()))
    }
    fn put_texture(&mut self, a: u32, t: Arc<Texture>) {
        if let Some(Storage::Texture(v)) = self.map.get_mut(&a) {
            **v = Arc::unwrap_or_clone(t);
        }
    }
}
