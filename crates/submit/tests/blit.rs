//! BLT, COLOR_FILL and GENERATE_MIPS on the submission path: each packet
//! executed with its texels checked by hand, and each verifier rule
//! broken by one packet (the exact error; nothing changes).

use softhal_pipeline::texture::{Texture, TextureDesc, TextureFormat, TextureKind};
use softhal_pipeline::{Format, Renderer, Surface};
use softhal_submit::{
    AllocKind, AllocationDesc, Blt, ColorFill, Engine, HostMemory, Kmd, RenderData, Storage,
    SubmitError,
};

mod common;
use common::Sub;

const WHITE: u32 = 0xFFFF_FFFF;
const RED: u32 = 0xFFFF_0000;
const GREEN: u32 = 0xFF00_FF00;
const BLUE: u32 = 0xFF00_00FF;

struct Rig {
    kmd: Kmd,
    mem: HostMemory,
    /// The copy-engine context.
    copy: u32,
}

impl Rig {
    fn new() -> Rig {
        let mut kmd = Kmd::new(Renderer::new(1).unwrap());
        let copy = kmd.create_context(Engine::Copy).unwrap();
        Rig {
            kmd,
            mem: HostMemory::default(),
            copy,
        }
    }
    fn alloc(&mut self, kind: AllocKind, storage: Storage) -> u32 {
        let h = self
            .kmd
            .create_allocation(AllocationDesc {
                kind,
                cpu_visible: true,
            })
            .unwrap();
        self.mem.map.insert(h, storage);
        h
    }
    /// A `w × h` A8R8G8B8 image, zeroed.
    fn image(&mut self, w: u32, h: u32) -> u32 {
        let kind = AllocKind::Image {
            format: Format::A8R8G8B8,
            width: w,
            height: h,
        };
        let s = Surface::new(Format::A8R8G8B8, w, h).unwrap();
        self.alloc(kind, Storage::Image(Some(s)))
    }
    /// A texture whose level 0 (face 0) holds `texels` (little-endian
    /// words of the format's size), the rest zero.
    fn texture(&mut self, d: TextureDesc, bpp: usize, texels: &[u32]) -> u32 {
        let mut t = Texture::new(d).unwrap();
        if !texels.is_empty() {
            let bytes: Vec<u8> = texels
                .iter()
                .flat_map(|t| t.to_le_bytes().into_iter().take(bpp))
                .collect();
            t.upload(0, 0, &bytes, d.width as usize * bpp).unwrap();
        }
        let kind = AllocKind::Texture {
            desc: d,
            render_target: false,
        };
        self.alloc(kind, Storage::Texture(Box::new(t)))
    }
    fn buffer(&mut self) -> u32 {
        self.alloc(
            AllocKind::Buffer { bytes: 64 },
            Storage::Buffer(vec![0; 64]),
        )
    }
    /// Submits on the copy engine and runs everything.
    fn run(&mut self, s: &Sub) {
        let mut rd = s.data(self.copy);
        assert_eq!(self.kmd.render_checked(&mut rd, &mut self.mem), Ok(()));
        self.kmd.retire_all(&mut self.mem);
        assert_eq!(self.kmd.stats().faults, 0);
    }
    /// Submits `s`, expects `want`, and checks that nothing changed.
    fn rejected(&mut self, s: &Sub, want: SubmitError) {
        let before = (self.kmd.snapshot(), self.mem.clone());
        let mut rd: RenderData = s.data(self.copy);
        assert_eq!(self.kmd.render_checked(&mut rd, &mut self.mem), Err(want));
        self.kmd.retire_all(&mut self.mem);
        assert_eq!(self.kmd.snapshot(), before.0, "kernel state changed");
        assert!(self.mem == before.1, "memory changed");
    }
    fn pixels(&self, h: u32) -> Vec<u32> {
        match self.mem.map.get(&h) {
            Some(Storage::Image(Some(s))) => (0..s.height())
                .flat_map(|y| (0..s.width()).map(move |x| (x, y)))
                .map(|(x, y)| s.read_pixel(x, y).unwrap())
                .collect(),
            _ => panic!("no image"),
        }
    }
    /// Level `level` of face `face` as words of `bpp` bytes.
    fn texels(&self, h: u32, face: u32, level: u32, bpp: usize) -> Vec<u32> {
        match self.mem.map.get(&h) {
            Some(Storage::Texture(t)) => t
                .level_bytes(face, level)
                .unwrap()
                .chunks(bpp)
                .map(|c| c.iter().rev().fold(0, |v, b| v << 8 | u32::from(*b)))
                .collect(),
            _ => panic!("no texture"),
        }
    }
}

fn desc(kind: TextureKind, format: TextureFormat, w: u32, h: u32, levels: u32) -> TextureDesc {
    TextureDesc {
        kind,
        format,
        width: w,
        height: h,
        depth: 1,
        levels,
    }
}

fn argb(w: u32, h: u32) -> TextureDesc {
    desc(TextureKind::Texture2D, TextureFormat::A8R8G8B8, w, h, 1)
}

/// A submission with one BLT from `src` to `dst` (`write`: the
/// destination entry has WriteOperation).
fn blt(src: u32, dst: u32, write: bool, b: Blt) -> Sub {
    let mut s = Sub::new();
    let si = s.idx(src, false);
    let di = if src == dst {
        s.list[si as usize] = softhal_submit::AllocationListEntry::new(src, write);
        si
    } else {
        s.idx(dst, write)
    };
    s.w.blt(Blt {
        src: si,
        dst: di,
        ..b
    });
    s
}

fn fill(dst: u32, c: ColorFill) -> Sub {
    let mut s = Sub::new();
    let di = s.idx(dst, true);
    s.w.color_fill(ColorFill { dst: di, ..c });
    s
}

fn mips(t: u32) -> Sub {
    let mut s = Sub::new();
    let i = s.idx(t, true);
    s.w.generate_mips(i);
    s
}

fn invalid(reason: &'static str) -> SubmitError {
    SubmitError::Invalid {
        offset: 0,
        reason,
        register: None,
    }
}

#[test]
fn blt_stretches_converts_and_copies_within_one_surface() {
    let mut r = Rig::new();
    // 2×2 texels white, red / green, blue, stretched onto the 4×2 top
    // left of a 5×3 image: each texel covers 2×1 pixels.
    let t = r.texture(argb(2, 2), 4, &[WHITE, RED, GREEN, BLUE]);
    let img = r.image(5, 3);
    let b = Blt {
        src_rect: [0, 0, 2, 2],
        dst_rect: [0, 0, 4, 2],
        ..Blt::default()
    };
    r.run(&blt(t, img, true, b));
    let (w, rd, g, bl) = (WHITE, RED, GREEN, BLUE);
    #[rustfmt::skip]
    let want = [
        w, w, rd, rd, 0,
        g, g, bl, bl, 0,
        0, 0, 0, 0, 0,
    ];
    assert_eq!(r.pixels(img), want);
    // Within the image, overlapping: row 0's first four pixels one to the
    // right (the source is read before anything is written).
    let b = Blt {
        src_rect: [0, 0, 4, 1],
        dst_rect: [1, 0, 5, 1],
        ..Blt::default()
    };
    r.run(&blt(img, img, true, b));
    assert_eq!(r.pixels(img)[..5], [w, w, w, rd, rd]);
    // Shrinking with conversion onto a 2×1 R5G6B5 texture: the 4×1
    // rectangle from (1, 1) gives destination texel x source x = 1 + x·4/2.
    let t565 = r.texture(
        desc(TextureKind::Texture2D, TextureFormat::R5G6B5, 2, 1, 1),
        2,
        &[],
    );
    let b = Blt {
        src_rect: [1, 1, 5, 2],
        dst_rect: [0, 0, 2, 1],
        ..Blt::default()
    };
    // Pixels (1, 1) and (3, 1): green → 0x07E0 (6 green bits set), blue
    // → 0x001F (5 blue bits set).
    r.run(&blt(img, t565, true, b));
    assert_eq!(r.texels(t565, 0, 0, 2), [0x07E0, 0x001F]);
    assert_eq!(r.kmd.counters(r.copy).unwrap().copies, 3);
}

#[test]
fn color_fill_writes_the_rectangle_in_the_surface_format() {
    let mut r = Rig::new();
    let t = r.texture(
        desc(TextureKind::Texture2D, TextureFormat::R5G6B5, 4, 2, 1),
        2,
        &[],
    );
    let c = ColorFill {
        rect: [1, 1, 3, 2],
        color: GREEN,
        ..ColorFill::default()
    };
    r.run(&fill(t, c));
    assert_eq!(r.texels(t, 0, 0, 2), [0, 0, 0, 0, 0, 0x07E0, 0x07E0, 0]);
    let img = r.image(2, 2);
    let c = ColorFill {
        rect: [0, 0, 2, 1],
        color: 0x8012_3456,
        ..ColorFill::default()
    };
    r.run(&fill(img, c));
    assert_eq!(r.pixels(img), [0x8012_3456, 0x8012_3456, 0, 0]);
}

#[test]
fn generate_mips_box_filters_every_face_level_by_level() {
    let mut r = Rig::new();
    // 4×4 → 2×2 → 1×1. Level 0: the left half 0xFF000000 (black), the
    // right half 0xFF0000FF (blue) with texel (3, 3) 0x000000FF.
    let black = 0xFF00_0000;
    let mut l0 = Vec::new();
    for y in 0..4 {
        for x in 0..4 {
            l0.push(match (x, y) {
                (3, 3) => 0x0000_00FF,
                (0 | 1, _) => black,
                _ => BLUE,
            });
        }
    }
    let t = r.texture(
        desc(TextureKind::Texture2D, TextureFormat::A8R8G8B8, 4, 4, 3),
        4,
        &l0,
    );
    r.run(&mips(t));
    // Level 1: black, blue / black, and the bottom-right mean of three
    // blues and one transparent blue: alpha (3·255 + 0 + 2) / 4 = 191.
    assert_eq!(r.texels(t, 0, 1, 4), [black, BLUE, black, 0xBF00_00FF]);
    // Level 2 from level 1: alpha (255·3 + 191 + 2) / 4 = 239, blue
    // (0 + 255 + 0 + 255 + 2) / 4 = 128.
    assert_eq!(r.texels(t, 0, 2, 4), [0xEF00_0080]);
    // A cube: every face, each from its own level 0 (face 0 is zero).
    let c = r.texture(
        desc(TextureKind::Cube, TextureFormat::A8R8G8B8, 2, 2, 2),
        4,
        &[RED; 4],
    );
    r.run(&mips(c));
    assert_eq!(r.texels(c, 0, 1, 4), [RED]);
    for face in 1..6 {
        assert_eq!(r.texels(c, face, 1, 4), [0]);
    }
}

#[test]
fn blt_rules() {
    let mut r = Rig::new();
    let t = r.texture(argb(4, 4), 4, &[]);
    let u = r.texture(argb(4, 4), 4, &[]);
    let img = r.image(4, 4);
    let buf = r.buffer();
    let dxt = r.texture(
        desc(TextureKind::Texture2D, TextureFormat::Dxt1, 4, 4, 1),
        8,
        &[],
    );
    let l8 = r.texture(
        desc(TextureKind::Texture2D, TextureFormat::L8, 4, 4, 1),
        1,
        &[],
    );
    let ok = Blt {
        src_rect: [0, 0, 4, 4],
        dst_rect: [0, 0, 2, 2],
        ..Blt::default()
    };
    r.run(&blt(t, u, true, ok));
    let cases = [
        (
            blt(buf, u, true, ok),
            invalid("a buffer where an image or a texture is needed"),
        ),
        (
            blt(t, u, true, Blt { src_level: 1, ..ok }),
            invalid("face or level does not exist"),
        ),
        (
            blt(t, img, true, Blt { dst_face: 1, ..ok }),
            invalid("face or level does not exist"),
        ),
        (
            blt(dxt, u, true, ok),
            invalid("format is not texel-wise (block, YUV or wider than 32 bits)"),
        ),
        (
            blt(
                t,
                u,
                true,
                Blt {
                    src_rect: [0, 0, 5, 4],
                    ..ok
                },
            ),
            invalid("source rectangle empty or outside the source"),
        ),
        (
            blt(
                t,
                u,
                true,
                Blt {
                    src_rect: [2, 0, 2, 4],
                    ..ok
                },
            ),
            invalid("source rectangle empty or outside the source"),
        ),
        (
            blt(
                t,
                img,
                true,
                Blt {
                    dst_rect: [u32::MAX, 0, 1, 1],
                    ..ok
                },
            ),
            invalid("destination rectangle empty or outside the destination"),
        ),
        (
            blt(l8, u, true, ok),
            invalid("formats differ and are not both colour formats"),
        ),
        (
            blt(t, u, false, ok),
            SubmitError::Handle {
                reason: "write through an allocation-list entry without WriteOperation",
                value: u,
            },
        ),
    ];
    for (s, want) in cases {
        r.rejected(&s, want);
    }
}

#[test]
fn color_fill_rules() {
    let mut r = Rig::new();
    let t = r.texture(argb(4, 4), 4, &[]);
    let l8 = r.texture(
        desc(TextureKind::Texture2D, TextureFormat::L8, 4, 4, 1),
        1,
        &[],
    );
    let buf = r.buffer();
    let ok = ColorFill {
        rect: [0, 0, 4, 4],
        color: RED,
        ..ColorFill::default()
    };
    r.run(&fill(t, ok));
    let cases = [
        (
            fill(buf, ok),
            "a buffer where an image or a texture is needed",
        ),
        (
            fill(t, ColorFill { level: 1, ..ok }),
            "face or level does not exist",
        ),
        (fill(l8, ok), "fill of a surface not in a colour format"),
        (
            fill(
                t,
                ColorFill {
                    rect: [0, 3, 4, 5],
                    ..ok
                },
            ),
            "rectangle empty or outside the surface",
        ),
    ];
    for (s, why) in cases {
        r.rejected(&s, invalid(why));
    }
}

#[test]
fn generate_mips_rules() {
    let mut r = Rig::new();
    let img = r.image(4, 4);
    let l8 = r.texture(
        desc(TextureKind::Texture2D, TextureFormat::L8, 4, 4, 3),
        1,
        &[],
    );
    let vol = r.texture(
        TextureDesc {
            depth: 2,
            ..desc(TextureKind::Volume, TextureFormat::A8R8G8B8, 2, 2, 2)
        },
        4,
        &[],
    );
    let why = "GENERATE_MIPS of an allocation that is not a 2-D or cube texture of a colour format";
    for t in [img, l8, vol] {
        r.rejected(&mips(t), invalid(why));
    }
}
