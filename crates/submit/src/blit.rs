//! BLT, COLOR_FILL and GENERATE_MIPS: their rules and their execution
//! with the pipeline's blitter (`softhal_pipeline::blit`).
//!
//! In: allocation descriptions and the operands of a packet (the
//! verifier), or at execution the images and textures behind the
//! allocations ([`VideoMemory`]). Out: why a packet is invalid, or texels
//! written by the blitter. Guarantees:
//! * [`plane`], [`check_blt`], [`check_fill`] and [`check_mips`] are the
//!   rules (`docs/gpu-commands.md`), applied by the verifier before
//!   anything runs;
//! * execution looks everything up again and does nothing (a fault) if
//!   the memory no longer matches; the blitter refuses what it cannot do
//!   rather than panic; a BLT within one face and level reads a copy of it
//!   (the source is read whole before anything is written).

use crate::kmd::AllocKind;
use crate::memory::VideoMemory;
use crate::packet::{Blt, ColorFill};
use softhal_pipeline::blit::{self, Plane, PlaneMut, Texel};
use softhal_pipeline::texture::TextureKind;
use softhal_pipeline::{Rect, Surface};

/// Face `face`, level `level` of an image or texture allocation as the
/// blitter sees it: texel format, width and height (a volume level's
/// slices stacked as rows); or why it is not one.
pub fn plane(kind: &AllocKind, face: u32, level: u32) -> Result<(Texel, u32, u32), &'static str> {
    match *kind {
        AllocKind::Buffer { .. } => Err("a buffer where an image or a texture is needed"),
        AllocKind::Image {
            format,
            width,
            height,
        } => {
            if face != 0 || level != 0 {
                return Err("face or level does not exist");
            }
            let t =
                Texel::of_format(format).ok_or("format is not texel-wise (wider than 32 bits)")?;
            Ok((t, width, height))
        }
        AllocKind::Texture { desc, .. } => {
            let faces = if desc.kind == TextureKind::Cube { 6 } else { 1 };
            if face >= faces || level >= desc.levels {
                return Err("face or level does not exist");
            }
            let dim = |d: u32| d.checked_shr(level).unwrap_or(0).max(1);
            let depth = if desc.kind == TextureKind::Volume {
                dim(desc.depth)
            } else {
                1
            };
            let t = Texel::of_texture(desc.format)
                .ok_or("format is not texel-wise (block, YUV or wider than 32 bits)")?;
            let h = dim(desc.height)
                .checked_mul(depth)
                .ok_or("face or level does not exist")?;
            Ok((t, dim(desc.width), h))
        }
    }
}

/// `[left, top, right, bottom]` non-empty and inside `w × h`?
fn rect_inside(r: [u32; 4], w: u32, h: u32) -> bool {
    let [l, t, rr, b] = r;
    l < rr && t < b && rr <= w && b <= h
}

fn rect(r: [u32; 4]) -> Rect {
    let i = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
    let [l, t, rr, b] = r;
    Rect::new(i(l), i(t), i(rr), i(b))
}

/// The BLT rule: both faces and levels exist in images or textures of
/// texel-wise formats; both rectangles non-empty and inside; the formats
/// equal, or both colour formats.
pub fn check_blt(src: &AllocKind, dst: &AllocKind, b: &Blt) -> Result<(), &'static str> {
    let (st, sw, sh) = plane(src, b.src_face, b.src_level)?;
    let (dt, dw, dh) = plane(dst, b.dst_face, b.dst_level)?;
    if !rect_inside(b.src_rect, sw, sh) {
        return Err("source rectangle empty or outside the source");
    }
    if !rect_inside(b.dst_rect, dw, dh) {
        return Err("destination rectangle empty or outside the destination");
    }
    if st != dt && !(st.color.is_some() && dt.color.is_some()) {
        return Err("formats differ and are not both colour formats");
    }
    Ok(())
}

/// The COLOR_FILL rule: the face and level exist in an image or texture of
/// a colour format; the rectangle non-empty and inside.
pub fn check_fill(dst: &AllocKind, c: &ColorFill) -> Result<(), &'static str> {
    let (t, w, h) = plane(dst, c.face, c.level)?;
    if t.color.is_none() {
        return Err("fill of a surface not in a colour format");
    }
    if !rect_inside(c.rect, w, h) {
        return Err("rectangle empty or outside the surface");
    }
    Ok(())
}

/// The GENERATE_MIPS rule: a 2-D or cube texture of a colour format.
pub fn check_mips(kind: &AllocKind) -> Result<(), &'static str> {
    match kind {
        AllocKind::Texture { desc, .. }
            if desc.kind != TextureKind::Volume
                && Texel::of_texture(desc.format).is_some_and(|t| t.color.is_some()) =>
        {
            Ok(())
        }
        _ => Err(
            "GENERATE_MIPS of an allocation that is not a 2-D or cube texture of a colour format",
        ),
    }
}

/// Where a plane moved out of video memory lives: an image, or the bytes
/// of a texture level.
#[derive(Clone)]
enum Store {
    Image(Surface),
    Level(Vec<u8>),
}

/// A plane moved out of video memory for the blitter, with its shape.
#[derive(Clone)]
struct Owned {
    store: Store,
    pitch: usize,
    width: u32,
    height: u32,
    texel: Texel,
}

impl Owned {
    /// An image as a plane (`Err`: given back, its format is not
    /// texel-wise).
    fn image(s: Surface) -> Result<Owned, Surface> {
        match Texel::of_format(s.format()) {
            Some(texel) => Ok(Owned {
                pitch: s.pitch(),
                width: s.width(),
                height: s.height(),
                texel,
                store: Store::Image(s),
            }),
            None => Err(s),
        }
    }
    fn plane(&self) -> Plane<'_> {
        let bytes = match &self.store {
            Store::Image(s) => s.bytes(),
            Store::Level(b) => b,
        };
        Plane {
            bytes,
            pitch: self.pitch,
            width: self.width,
            height: self.height,
            texel: self.texel,
        }
    }
    fn plane_mut(&mut self) -> PlaneMut<'_> {
        let bytes = match &mut self.store {
            Store::Image(s) => s.bytes_mut(),
            Store::Level(b) => b,
        };
        PlaneMut {
            bytes,
            pitch: self.pitch,
            width: self.width,
            height: self.height,
            texel: self.texel,
        }
    }
}

/// Moves face `face`, level `level` of allocation `a` out of `mem`.
fn take(mem: &mut dyn VideoMemory, a: u32, face: u32, level: u32) -> Option<Owned> {
    if let Some(s) = mem.take_image(a) {
        match Owned::image(s) {
            Ok(o) if face == 0 && level == 0 => return Some(o),
            Ok(Owned {
                store: Store::Image(s),
                ..
            })
            | Err(s) => mem.put_image(a, s),
            Ok(_) => {}
        }
        return None;
    }
    let t = mem.texture_mut(a)?;
    let info = t.level_info(level)?;
    let texel = Texel::of_texture(t.format())?;
    let height = info.height.checked_mul(info.depth)?;
    let bytes = t.take_level(face, level)?;
    Some(Owned {
        store: Store::Level(bytes),
        pitch: info.row_pitch,
        width: info.width,
        height,
        texel,
    })
}

/// Puts a plane taken with [`take`] back; false if it could not be.
fn put(mem: &mut dyn VideoMemory, a: u32, face: u32, level: u32, o: Owned) -> bool {
    match o.store {
        Store::Image(s) => {
            mem.put_image(a, s);
            true
        }
        Store::Level(bytes) => mem
            .texture_mut(a)
            .is_some_and(|t| t.put_level(face, level, bytes)),
    }
}

/// Executes a verified BLT (`b.src`, `b.dst` allocation handles).
pub(crate) fn run_blt(mem: &mut dyn VideoMemory, b: &Blt) -> bool {
    let Some(mut dst) = take(mem, b.dst, b.dst_face, b.dst_level) else {
        return false;
    };
    let (sr, dr) = (rect(b.src_rect), rect(b.dst_rect));
    let same = b.src == b.dst && b.src_face == b.dst_face && b.src_level == b.dst_level;
    let ok = if same {
        // Within one plane: the source is a copy of it.
        let copy = dst.clone();
        blit::stretch(&copy.plane(), sr, &mut dst.plane_mut(), dr)
    } else if let Some(img) = mem.take_image(b.src) {
        match Owned::image(img) {
            Ok(src) => {
                let ok = b.src_face == 0
                    && b.src_level == 0
                    && blit::stretch(&src.plane(), sr, &mut dst.plane_mut(), dr);
                if let Store::Image(img) = src.store {
                    mem.put_image(b.src, img);
                }
                ok
            }
            Err(img) => {
                mem.put_image(b.src, img);
                false
            }
        }
    } else {
        mem.texture(b.src)
            .and_then(|t| Plane::of_level(t, b.src_face, b.src_level))
            .is_some_and(|s| blit::stretch(&s, sr, &mut dst.plane_mut(), dr))
    };
    put(mem, b.dst, b.dst_face, b.dst_level, dst) && ok
}

/// Executes a verified COLOR_FILL (`c.dst` an allocation handle).
pub(crate) fn run_fill(mem: &mut dyn VideoMemory, c: &ColorFill) -> bool {
    let Some(mut dst) = take(mem, c.dst, c.face, c.level) else {
        return false;
    };
    let ok = blit::fill(&mut dst.plane_mut(), rect(c.rect), c.color);
    put(mem, c.dst, c.face, c.level, dst) && ok
}

/// Executes a verified GENERATE_MIPS of texture allocation `a`.
pub(crate) fn run_mips(mem: &mut dyn VideoMemory, a: u32) -> bool {
    mem.texture_mut(a).is_some_and(blit::generate_mips)
}
