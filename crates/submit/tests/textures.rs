//! Textures on the submission path: texture allocations, SET_TEXTURE
//! (a textured draw checked pixel by pixel, the binding's lifetime, each
//! rejection leaving everything unchanged), TEXTURE_COPY (bytes land, the
//! rule's refusals) and its ordering against the 3-D engine.

use softhal_pipeline::stages::TextureOp;
use softhal_pipeline::texture::{Texture, TextureDesc, TextureFormat, TextureKind};
use softhal_pipeline::{Format, PositionKind, Renderer, Surface, VertexLayout};
use softhal_submit::packet::op;
use softhal_submit::regs::id;
use softhal_submit::{
    AllocKind, AllocationDesc, AllocationListEntry, Engine, HostMemory, Kmd, RenderData, Storage,
    SubmitError, TextureCopy,
};
use softhal_wire::names::codes;
use softhal_wire::names::{RenderStateType as Rs, TextureStageStateType as Tss};

mod common;
use common::Sub;

const W: u32 = 16;
const WHITE: u32 = 0xFFFF_FFFF;
const RED: u32 = 0xFFFF_0000;
const GREEN: u32 = 0xFF00_FF00;
const BLUE: u32 = 0xFF00_00FF;
const BLACK: u32 = 0xFF00_0000;
/// The 2×2 texture's texels, row-major: white, red / green, blue.
const TEXELS: [u32; 4] = [WHITE, RED, GREEN, BLUE];

struct Rig {
    kmd: Kmd,
    mem: HostMemory,
    rt: u32,
    buf: u32,
    /// 2×2 A8R8G8B8, TEXELS.
    tex: u32,
    /// 2×2 A8R8G8B8, all green.
    green: u32,
    /// 4×4 X8R8G8B8.
    other_format: u32,
    gfx: u32,
    copy: u32,
}

fn desc(
    kind: TextureKind,
    format: TextureFormat,
    w: u32,
    h: u32,
    d: u32,
    levels: u32,
) -> TextureDesc {
    TextureDesc {
        kind,
        format,
        width: w,
        height: h,
        depth: d,
        levels,
    }
}

fn texture(kmd: &mut Kmd, mem: &mut HostMemory, d: TextureDesc, texels: &[u32]) -> u32 {
    let h = kmd
        .create_allocation(AllocationDesc {
            kind: AllocKind::Texture {
                desc: d,
                render_target: false,
            },
            cpu_visible: true,
        })
        .unwrap();
    let mut t = Texture::new(d).unwrap();
    if !texels.is_empty() {
        let bytes: Vec<u8> = texels.iter().flat_map(|t| t.to_le_bytes()).collect();
        t.upload(0, 0, &bytes, d.width as usize * 4).unwrap();
    }
    mem.map.insert(h, Storage::Texture(Box::new(t)));
    h
}

fn tex2d(w: u32, h: u32) -> TextureDesc {
    desc(TextureKind::Texture2D, TextureFormat::A8R8G8B8, w, h, 1, 1)
}

fn rig() -> Rig {
    let mut kmd = Kmd::new(Renderer::new(1).unwrap());
    let mut mem = HostMemory::default();
    let rt = kmd
        .create_allocation(AllocationDesc {
            kind: AllocKind::Image {
                format: Format::A8R8G8B8,
                width: W,
                height: W,
            },
            cpu_visible: true,
        })
        .unwrap();
    mem.map.insert(
        rt,
        Storage::Image(Some(Surface::new(Format::A8R8G8B8, W, W).unwrap())),
    );
    let buf = kmd
        .create_allocation(AllocationDesc {
            kind: AllocKind::Buffer { bytes: 64 },
            cpu_visible: true,
        })
        .unwrap();
    mem.map.insert(buf, Storage::Buffer(vec![0; 64]));
    let tex = texture(&mut kmd, &mut mem, tex2d(2, 2), &TEXELS);
    let green = texture(&mut kmd, &mut mem, tex2d(2, 2), &[GREEN; 4]);
    let other_format = texture(
        &mut kmd,
        &mut mem,
        desc(TextureKind::Texture2D, TextureFormat::X8R8G8B8, 4, 4, 1, 1),
        &[],
    );
    let gfx = kmd.create_context(Engine::ThreeD).unwrap();
    let copy = kmd.create_context(Engine::Copy).unwrap();
    Rig {
        kmd,
        mem,
        rt,
        buf,
        tex,
        green,
        other_format,
        gfx,
        copy,
    }
}

fn layout() -> VertexLayout {
    VertexLayout::packed(PositionKind::Xyzrhw, true, false, &[2])
}

/// A full-target quad (two triangles), uv 0..1, one diffuse colour.
fn quad(diffuse: u32) -> Vec<u8> {
    let v = |x: f32, y: f32, u: f32, t: f32| {
        let mut b = Vec::new();
        for f in [x, y, 0.5f32, 1.0] {
            b.extend_from_slice(&f.to_le_bytes());
        }
        b.extend_from_slice(&diffuse.to_le_bytes());
        b.extend_from_slice(&u.to_le_bytes());
        b.extend_from_slice(&t.to_le_bytes());
        b
    };
    let s = W as f32;
    [
        v(0.0, 0.0, 0.0, 0.0),
        v(s, 0.0, 1.0, 0.0),
        v(0.0, s, 0.0, 1.0),
        v(s, 0.0, 1.0, 0.0),
        v(s, s, 1.0, 1.0),
        v(0.0, s, 0.0, 1.0),
    ]
    .concat()
}

/// Stage 0 MODULATE (TEXTURE × DIFFUSE), alpha SELECTARG1, point
/// sampling; no depth, no culling.
fn modulate_regs() -> Vec<(u32, u32)> {
    vec![
        (id::rs(Rs::ZEnable.raw()), 0),
        (id::rs(Rs::CullMode.raw()), 1), // D3DCULL_NONE
        (id::tss(0, Tss::ColorOp.raw()), TextureOp::Modulate.d3d()),
        (id::tss(0, Tss::ColorArg1.raw()), 2), // D3DTA_TEXTURE
        (id::tss(0, Tss::ColorArg2.raw()), 0), // D3DTA_DIFFUSE
        (id::tss(0, Tss::AlphaOp.raw()), TextureOp::SelectArg1.d3d()),
        (id::tss(0, Tss::MagFilter.raw()), 1), // D3DTEXF_POINT
        (id::tss(0, Tss::MinFilter.raw()), 1),
    ]
}

/// BIND_TARGETS + SET_REGS + (SET_TEXTURE) + VERTEX_FORMAT +
/// VERTICES_INLINE + DRAW of a full-target quad.
fn textured_draw(r: &Rig, texture: Option<u32>, diffuse: u32) -> Sub {
    let mut s = Sub::new();
    let rt = s.idx(r.rt, true);
    s.w.bind_targets(rt, None);
    s.w.set_regs(&modulate_regs());
    if let Some(t) = texture {
        let t = s.idx(t, false);
        s.w.set_texture(0, Some(t));
    }
    s.w.vertex_format(&layout());
    s.w.vertices_inline(&quad(diffuse));
    s.w.draw(4, 0, 2, 0, false);
    s
}

fn submit(r: &mut Rig, rd: &mut RenderData) -> u32 {
    r.kmd.render(rd, &mut r.mem)
}

/// Submits `s` on the 3-D context and runs everything.
fn run(r: &mut Rig, s: &Sub) {
    let mut rd = s.data(r.gfx);
    assert_eq!(submit(r, &mut rd), 0);
    r.kmd.retire_all(&mut r.mem);
}

fn pixel(r: &Rig, x: u32, y: u32) -> u32 {
    match r.mem.map.get(&r.rt) {
        Some(Storage::Image(Some(s))) => s.read_argb(x, y).unwrap(),
        _ => panic!("no image"),
    }
}

/// The four quadrants of the target (one per texel of a 2×2 texture).
fn quadrants(r: &Rig) -> [u32; 4] {
    [
        pixel(r, 3, 3),
        pixel(r, 12, 3),
        pixel(r, 3, 12),
        pixel(r, 12, 12),
    ]
}

fn texels(r: &Rig, h: u32, face: u32, level: u32) -> Vec<u8> {
    match r.mem.map.get(&h) {
        Some(Storage::Texture(t)) => t.level_bytes(face, level).unwrap().to_vec(),
        _ => panic!("no texture"),
    }
}

/// Runs `rd`, expects `code`, and checks that nothing changed.
fn rejected(r: &mut Rig, mut rd: RenderData, code: u32) {
    let before = (r.kmd.snapshot(), r.mem.clone(), r.kmd.fences(r.gfx));
    let n = r.kmd.rejected();
    let why = r.kmd.render_checked(&mut rd.clone(), &mut r.mem.clone());
    assert_eq!(submit(r, &mut rd), code, "{why:?}");
    assert_eq!(r.kmd.rejected(), n + 1);
    assert_eq!(r.kmd.snapshot(), before.0, "kernel state changed");
    assert!(r.mem == before.1, "memory changed");
    assert_eq!(r.kmd.fences(r.gfx), before.2, "fences changed");
}

#[test]
fn a_textured_quad_samples_the_bound_texture() {
    let mut r = rig();
    // White diffuse: MODULATE gives the texels.
    let s = textured_draw(&r, Some(r.tex), WHITE);
    run(&mut r, &s);
    assert_eq!(quadrants(&r), TEXELS);
    // Red diffuse: MODULATE multiplies (white → red, red → red, green
    // and blue → black).
    let s = textured_draw(&r, Some(r.tex), RED);
    run(&mut r, &s);
    assert_eq!(quadrants(&r), [RED, RED, BLACK, BLACK]);
    // The registers stayed on the context; the texture binding did not:
    // the next submission starts unbound, and a stage without a texture
    // passes the diffuse colour through.
    let s = textured_draw(&r, None, GREEN);
    run(&mut r, &s);
    assert_eq!(quadrants(&r), [GREEN; 4]);
    let regs = r.kmd.registers(r.gfx).unwrap();
    assert_eq!(
        regs.get(id::tss(0, Tss::ColorOp.raw())),
        Some(TextureOp::Modulate.d3d())
    );
    assert_eq!(r.kmd.stats().faults, 0);
    assert_eq!(r.kmd.counters(r.gfx).unwrap().draws, 3);
}

#[test]
fn set_texture_unbind_and_rebind_within_a_submission() {
    let mut r = rig();
    let mut s = textured_draw(&r, Some(r.tex), WHITE);
    // Unbind, draw (diffuse); the last draw decides the pixels.
    s.w.set_texture(0, None);
    s.w.draw(4, 0, 2, 0, false);
    run(&mut r, &s);
    assert_eq!(quadrants(&r), [WHITE; 4]);
    // Rebind another texture in the same submission.
    let mut s = textured_draw(&r, Some(r.tex), WHITE);
    let g = s.idx(r.green, false);
    s.w.set_texture(0, Some(g));
    s.w.draw(4, 0, 2, 0, false);
    run(&mut r, &s);
    assert_eq!(quadrants(&r), [GREEN; 4]);
    assert_eq!(r.kmd.stats().faults, 0);
}

#[test]
fn a_texture_that_vanished_reads_as_unbound_and_counts_a_fault() {
    let mut r = rig();
    let mut rd = textured_draw(&r, Some(r.tex), RED).data(r.gfx);
    assert_eq!(submit(&mut r, &mut rd), 0);
    // Memory changed behind the kernel's back before execution.
    r.mem.map.remove(&r.tex);
    r.kmd.retire_all(&mut r.mem);
    assert_eq!(quadrants(&r), [RED; 4]);
    assert_eq!(r.kmd.stats().faults, 1);
}

#[test]
fn set_texture_rejections_change_nothing() {
    // Stage 20 (0–15 the pixel samplers, 16–19 the vertex-texture
    // samplers).
    let mut r = rig();
    let mut s = textured_draw(&r, None, WHITE);
    let t = s.idx(r.tex, false);
    s.w.set_texture(20, Some(t));
    let rd = s.data(r.gfx);
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
    // A buffer, and an image, where a texture is needed.
    for h in [r.buf, r.rt] {
        let mut s = textured_draw(&r, None, WHITE);
        let t = s.idx(h, true);
        s.w.set_texture(0, Some(t));
        let rd = s.data(r.gfx);
        rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
    }
    // A truncated packet: the header says 2 DWORDs (SET_TEXTURE is 3).
    let mut s = textured_draw(&r, None, WHITE);
    s.w.raw(op::SET_TEXTURE, 0x01, &[0]);
    let rd = s.data(r.gfx);
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDUSERBUFFER);
    // A truncated buffer: the packet runs past CommandLength.
    let mut s = textured_draw(&r, None, WHITE);
    let t = s.idx(r.tex, false);
    s.w.set_texture(0, Some(t));
    let mut rd = s.data(r.gfx);
    rd.command_length -= 4;
    rd.num_patch_locations -= 1;
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDUSERBUFFER);
    // UNBIND with a non-zero DWORD 2.
    let mut s = textured_draw(&r, None, WHITE);
    s.w.raw(op::SET_TEXTURE, 0x01, &[0, 5]);
    let rd = s.data(r.gfx);
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
    // UNBIND: DWORD 2 is not a reference, so a patch location on it is
    // refused.
    let mut s = textured_draw(&r, None, WHITE);
    let t = s.idx(r.tex, false);
    s.w.set_texture(0, Some(t));
    let mut rd = s.data(r.gfx);
    let at = rd.command_length as usize - 12;
    rd.command_buffer[at + 1] = 0x01; // header flags: UNBIND
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDUSERBUFFER);
    // Undefined header flags.
    let mut s = textured_draw(&r, None, WHITE);
    s.w.raw(op::SET_TEXTURE, 0x03, &[0, 0]);
    let rd = s.data(r.gfx);
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
    // Not on the copy engine.
    let mut s = Sub::new();
    s.w.set_texture(0, None);
    let rd = s.data(r.copy);
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
    // After all of these, the device still draws the textured quad.
    let s = textured_draw(&r, Some(r.tex), WHITE);
    run(&mut r, &s);
    assert_eq!(quadrants(&r), TEXELS);
    assert_eq!(r.kmd.stats().faults, 0);
}

#[test]
fn texture_allocations_are_checked_at_creation() {
    let mut r = rig();
    let mut create = |d: TextureDesc| {
        r.kmd.create_allocation(AllocationDesc {
            kind: AllocKind::Texture {
                desc: d,
                render_target: false,
            },
            cpu_visible: true,
        })
    };
    assert!(matches!(
        create(tex2d(4, 4).with_levels(0)),
        Err(SubmitError::InvalidArg(_))
    ));
    assert!(matches!(
        create(tex2d(4, 4).with_levels(4)),
        Err(SubmitError::InvalidArg(_))
    ));
    assert!(matches!(
        create(desc(TextureKind::Cube, TextureFormat::L8, 4, 8, 1, 1)),
        Err(SubmitError::InvalidArg(_))
    ));
    let huge = desc(
        TextureKind::Texture2D,
        TextureFormat::A32B32G32R32F,
        8192,
        8192,
        1,
        1,
    );
    let e = create(huge).unwrap_err();
    assert!(matches!(e, SubmitError::Limit { .. }));
    assert_eq!(e.hresult(), codes::E_OUTOFMEMORY);
    assert!(create(tex2d(4, 4).with_levels(3)).is_ok());
}

trait WithLevels {
    fn with_levels(self, l: u32) -> Self;
}
impl WithLevels for TextureDesc {
    fn with_levels(mut self, l: u32) -> Self {
        self.levels = l;
        self
    }
}

fn copy_sub(r: &Rig, src: u32, dst: u32, write: bool, c: TextureCopy) -> Sub {
    let mut s = Sub::new();
    let si = s.idx(src, false);
    let di = if src == dst && write {
        s.list[si as usize].value = AllocationListEntry::WRITE;
        si
    } else {
        s.idx(dst, write)
    };
    let _ = r;
    s.w.texture_copy(TextureCopy {
        src: si,
        dst: di,
        ..c
    });
    s
}

#[test]
fn texture_copy_moves_the_box_and_nothing_else() {
    let mut r = rig();
    let a = texture(
        &mut r.kmd,
        &mut r.mem,
        tex2d(4, 4),
        &(0..16).collect::<Vec<u32>>(),
    );
    let b = texture(&mut r.kmd, &mut r.mem, tex2d(4, 4), &[0xEE; 16]);
    // 2×2 from (1, 1) of A to (0, 2) of B.
    let c = TextureCopy {
        x: 1,
        y: 1,
        w: 2,
        h: 2,
        dx: 0,
        dy: 2,
        ..TextureCopy::default()
    };
    let s = copy_sub(&r, a, b, true, c);
    run(&mut r, &s);
    let want: Vec<u32> = [
        [0xEE, 0xEE, 0xEE, 0xEE],
        [0xEE, 0xEE, 0xEE, 0xEE],
        [5, 6, 0xEE, 0xEE],
        [9, 10, 0xEE, 0xEE],
    ]
    .concat();
    let got: Vec<u32> = texels(&r, b, 0, 0)
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(got, want);
    assert_eq!(r.kmd.counters(r.gfx).unwrap().copies, 1);
    // Same allocation, overlapping boxes: the source is read first.
    let c = TextureCopy {
        w: 3,
        h: 1,
        dx: 1,
        ..TextureCopy::default()
    };
    let s = copy_sub(&r, a, a, true, c);
    run(&mut r, &s);
    let row0: Vec<u32> = texels(&r, a, 0, 0)[..16]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(row0, [0, 0, 1, 2]);
    assert_eq!(r.kmd.stats().faults, 0);
}

#[test]
fn texture_copy_of_blocks_faces_levels_and_slices() {
    let mut r = rig();
    // DXT1 16×16 with 3 levels; fill level 0 of A with a byte ramp.
    let dxt = desc(TextureKind::Texture2D, TextureFormat::Dxt1, 16, 16, 1, 3);
    let a = texture(&mut r.kmd, &mut r.mem, dxt, &[]);
    let b = texture(&mut r.kmd, &mut r.mem, dxt, &[]);
    if let Some(Storage::Texture(t)) = r.mem.map.get_mut(&a) {
        let l = t.level_bytes_mut(0, 0).unwrap();
        l.iter_mut().enumerate().for_each(|(i, v)| *v = i as u8);
    }
    // Blocks (1, 1)–(2, 1) of A (texels x 4..12, y 4..8) to block (0, 3) of B.
    let c = TextureCopy {
        x: 4,
        y: 4,
        w: 8,
        h: 4,
        dx: 0,
        dy: 12,
        ..TextureCopy::default()
    };
    let s = copy_sub(&r, a, b, true, c);
    run(&mut r, &s);
    let bytes = texels(&r, b, 0, 0);
    // Row pitch: 4 blocks × 8 bytes = 32; A's block (1, 1) starts at 40.
    let want: Vec<u8> = (40..56).collect();
    assert_eq!(&bytes[96..112], &want[..]);
    assert!(bytes[..96].iter().all(|&v| v == 0));
    assert!(bytes[112..].iter().all(|&v| v == 0));
    // A whole 4×4 level (level 2) is one block.
    let c = TextureCopy {
        sl: 2,
        dl: 2,
        w: 4,
        h: 4,
        ..TextureCopy::default()
    };
    let s = copy_sub(&r, a, b, true, c);
    run(&mut r, &s);
    // Cube: face 5 to face 1 of another cube.
    let cube = desc(TextureKind::Cube, TextureFormat::A8R8G8B8, 2, 2, 1, 1);
    let qa = texture(&mut r.kmd, &mut r.mem, cube, &[]);
    let qb = texture(&mut r.kmd, &mut r.mem, cube, &[]);
    if let Some(Storage::Texture(t)) = r.mem.map.get_mut(&qa) {
        t.level_bytes_mut(5, 0).unwrap().fill(0x55);
    }
    let c = TextureCopy {
        sf: 5,
        df: 1,
        w: 2,
        h: 2,
        ..TextureCopy::default()
    };
    let s = copy_sub(&r, qa, qb, true, c);
    run(&mut r, &s);
    assert!(texels(&r, qb, 1, 0).iter().all(|&v| v == 0x55));
    assert!(texels(&r, qb, 5, 0).iter().all(|&v| v == 0));
    // Volume: slices 1..3 of A to slices 0..2 of B.
    let vol = desc(TextureKind::Volume, TextureFormat::L8, 2, 2, 4, 1);
    let va = texture(&mut r.kmd, &mut r.mem, vol, &[]);
    let vb = texture(&mut r.kmd, &mut r.mem, vol, &[]);
    if let Some(Storage::Texture(t)) = r.mem.map.get_mut(&va) {
        let l = t.level_bytes_mut(0, 0).unwrap();
        l.iter_mut().enumerate().for_each(|(i, v)| *v = i as u8);
    }
    let c = TextureCopy {
        w: 2,
        h: 2,
        z: 1,
        d: 2,
        dz: 0,
        ..TextureCopy::default()
    };
    let s = copy_sub(&r, va, vb, true, c);
    run(&mut r, &s);
    let got = texels(&r, vb, 0, 0);
    assert_eq!(&got[..8], &(4u8..12).collect::<Vec<_>>()[..]);
    assert!(got[8..].iter().all(|&v| v == 0));
    assert_eq!(r.kmd.stats().faults, 0);
}

#[test]
fn texture_copy_refusals_change_nothing() {
    let mut r = rig();
    let ok = TextureCopy {
        w: 2,
        h: 2,
        ..TextureCopy::default()
    };
    // Out of bounds (x + w past the 2-texel level), and overflowing.
    for bad in [
        TextureCopy { x: 1, ..ok },
        TextureCopy { dy: 1, ..ok },
        TextureCopy { x: u32::MAX, ..ok },
        TextureCopy { sl: 1, ..ok },
        TextureCopy { sf: 1, ..ok },
        TextureCopy { w: 0, ..ok },
        TextureCopy { d: 2, ..ok },
    ] {
        let s = copy_sub(&r, r.tex, r.green, true, bad);
        let rd = s.data(r.gfx);
        rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
    }
    // Formats differ.
    let s = copy_sub(&r, r.tex, r.other_format, true, ok);
    let rd = s.data(r.gfx);
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
    // The destination entry lacks WriteOperation.
    let s = copy_sub(&r, r.tex, r.green, false, ok);
    let rd = s.data(r.gfx);
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDHANDLE);
    // A buffer is not a texture.
    let s = copy_sub(&r, r.buf, r.green, true, ok);
    let rd = s.data(r.gfx);
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
    // DXT1 off the block grid.
    let dxt = desc(TextureKind::Texture2D, TextureFormat::Dxt1, 16, 16, 1, 1);
    let d = texture(&mut r.kmd, &mut r.mem, dxt, &[]);
    for bad in [
        TextureCopy {
            x: 2,
            w: 4,
            h: 4,
            ..ok
        },
        TextureCopy { w: 6, h: 4, ..ok },
    ] {
        let s = copy_sub(&r, d, d, true, bad);
        let rd = s.data(r.gfx);
        rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
    }
    // A truncated packet.
    let mut s = copy_sub(&r, r.tex, r.green, true, ok);
    s.w.bytes[2] = 15;
    s.w.bytes.truncate(s.w.bytes.len() - 4);
    let rd = s.data(r.gfx);
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDUSERBUFFER);
    assert_eq!(
        texels(&r, r.green, 0, 0),
        [0x00, 0xFF, 0x00, 0xFF].repeat(4)
    );
}

/// The copy engine copies green texels into the texture the 3-D draw
/// samples: with the fence wait the draw sees them; without it the 3-D
/// engine, which runs first when both can, samples the old texels. Both
/// outcomes are deterministic.
#[test]
fn a_copy_engine_texture_copy_lands_before_the_draw_that_samples_it() {
    for wait in [true, false] {
        let mut r = rig();
        let c = TextureCopy {
            w: 2,
            h: 2,
            ..TextureCopy::default()
        };
        let mut rd = copy_sub(&r, r.green, r.tex, true, c).data(r.copy);
        assert_eq!(submit(&mut r, &mut rd), 0);
        let copy_fence = rd.fence;
        if wait {
            r.kmd.gpu_wait(r.gfx, r.copy, copy_fence).unwrap();
        }
        let mut rd = textured_draw(&r, Some(r.tex), WHITE).data(r.gfx);
        assert_eq!(submit(&mut r, &mut rd), 0);
        let gfx_fence = rd.fence;
        // The CPU waits for the 3-D fence only.
        r.kmd.retire(r.gfx, gfx_fence, &mut r.mem);
        if wait {
            assert_eq!(quadrants(&r), [GREEN; 4]);
        } else {
            assert_eq!(quadrants(&r), TEXELS);
        }
        r.kmd.retire_all(&mut r.mem);
        assert_eq!(r.kmd.counters(r.copy).unwrap().copies, 1);
        assert_eq!(r.kmd.stats().faults, 0);
    }
}

// ------------------------------------------------ render-target textures

/// A render-target texture allocation (zeroed storage).
fn rt_texture(r: &mut Rig, d: TextureDesc) -> u32 {
    let h = r
        .kmd
        .create_allocation(AllocationDesc {
            kind: AllocKind::Texture {
                desc: d,
                render_target: true,
            },
            cpu_visible: true,
        })
        .unwrap();
    r.mem
        .map
        .insert(h, Storage::Texture(Box::new(Texture::new(d).unwrap())));
    h
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn bind_texture_target_writes_exactly_one_face_and_level() {
    // CLEAR (TARGET, no rectangles: the whole target) of level 1 of a
    // 4×4 chain writes its 2×2 texels only; CLEAR of face 3
    // (D3DCUBEMAP_FACE_NEGATIVE_Y) level 0 of a 2×2 cube writes that face
    // only. Everything else stays 0.
    let mut r = rig();
    let t = rt_texture(&mut r, tex2d(4, 4).with_levels(3));
    let cube = rt_texture(
        &mut r,
        desc(TextureKind::Cube, TextureFormat::A8R8G8B8, 2, 2, 1, 1),
    );
    let mut s = Sub::new();
    let ti = s.idx(t, true);
    s.w.bind_texture_target(ti, 0, 1, None);
    s.w.clear_targets(1, RED, 1.0, 0, &[]);
    let ci = s.idx(cube, true);
    s.w.bind_texture_target(ci, 3, 0, None);
    s.w.clear_targets(1, GREEN, 1.0, 0, &[]);
    run(&mut r, &s);
    assert_eq!(words(&texels(&r, t, 0, 0)), [0; 16]);
    assert_eq!(words(&texels(&r, t, 0, 1)), [RED; 4]);
    assert_eq!(words(&texels(&r, t, 0, 2)), [0]);
    for face in 0..6 {
        let want = if face == 3 { GREEN } else { 0 };
        assert_eq!(words(&texels(&r, cube, face, 0)), [want; 4], "face {face}");
    }
    assert_eq!(r.kmd.stats().faults, 0);
}

#[test]
fn a_draw_samples_what_an_earlier_draw_of_the_same_submission_rendered() {
    // Draw blue (no texture: MODULATE of an unbound stage passes the
    // diffuse colour) into the 2×2 render-target texture, then draw the
    // image sampling it: every pixel blue (the diffuse is white).
    let mut r = rig();
    let t = rt_texture(&mut r, tex2d(2, 2));
    let mut s = Sub::new();
    let ti = s.idx(t, true);
    s.w.bind_texture_target(ti, 0, 0, None);
    s.w.set_regs(&modulate_regs());
    s.w.vertex_format(&layout());
    s.w.vertices_inline(&quad(BLUE));
    s.w.draw(4, 0, 2, 0, false);
    let rt = s.idx(r.rt, true);
    s.w.bind_targets(rt, None);
    s.w.set_texture(0, Some(ti));
    s.w.vertices_inline(&quad(WHITE));
    s.w.draw(4, 0, 2, 0, false);
    run(&mut r, &s);
    assert_eq!(words(&texels(&r, t, 0, 0)), [BLUE; 4]);
    assert_eq!(quadrants(&r), [BLUE; 4]);
}

#[test]
fn bind_texture_target_rejections_change_nothing() {
    let mut r = rig();
    let t = rt_texture(&mut r, tex2d(4, 4).with_levels(3));
    let depth = r
        .kmd
        .create_allocation(AllocationDesc {
            kind: AllocKind::Image {
                format: Format::D24S8,
                width: 2,
                height: 2,
            },
            cpu_visible: true,
        })
        .unwrap();
    r.mem.map.insert(
        depth,
        Storage::Image(Some(Surface::new(Format::D24S8, 2, 2).unwrap())),
    );
    let bind = |r: &Rig, h: u32, face: u32, level: u32, d: Option<u32>| {
        let mut s = Sub::new();
        let i = s.idx(h, true);
        let d = d.map(|d| s.idx(d, true));
        s.w.bind_texture_target(i, face, level, d);
        s.w.clear_targets(1, RED, 1.0, 0, &[]);
        s.data(r.gfx)
    };
    // A texture without render-target usage, an image, a face or a level
    // that does not exist, a depth buffer smaller than the level (2×2
    // covers level 1, not level 0).
    for rd in [
        bind(&r, r.tex, 0, 0, None),
        bind(&r, r.rt, 0, 0, None),
        bind(&r, t, 1, 0, None),
        bind(&r, t, 0, 3, None),
        bind(&r, t, 0, 0, Some(depth)),
    ] {
        rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
    }
    // A render-target texture is not an image: BIND_TARGETS refuses it.
    let mut s = Sub::new();
    let i = s.idx(t, true);
    s.w.bind_targets(i, None);
    let rd = s.data(r.gfx);
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
    // Without WriteOperation on the entry.
    let mut s = Sub::new();
    let i = s.idx(t, false);
    s.w.bind_texture_target(i, 0, 1, None);
    let rd = s.data(r.gfx);
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDHANDLE);
    // The depth buffer covers level 1: accepted.
    let mut rd = bind(&r, t, 0, 1, Some(depth));
    assert_eq!(submit(&mut r, &mut rd), 0);
    // Render-target usage needs a 2-D or cube texture of a colour
    // render-target format.
    for d in [
        desc(TextureKind::Volume, TextureFormat::A8R8G8B8, 4, 4, 4, 1),
        desc(TextureKind::Texture2D, TextureFormat::Dxt1, 4, 4, 1, 1),
        desc(TextureKind::Texture2D, TextureFormat::L8, 4, 4, 1, 1),
    ] {
        let e = r.kmd.create_allocation(AllocationDesc {
            kind: AllocKind::Texture {
                desc: d,
                render_target: true,
            },
            cpu_visible: true,
        });
        assert!(matches!(e, Err(SubmitError::InvalidArg(_))), "{d:?}");
    }
}
