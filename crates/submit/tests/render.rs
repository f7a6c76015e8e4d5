//! The render callback: one test per return code (the buffer that
//! triggers it, and proof that nothing changed: kernel snapshot, pixels,
//! fences), resize outcomes, multi-engine ordering, and a property test
//! over mutated submissions.

use proptest::prelude::*;
use softhal_pipeline::texture::{Texture, TextureDesc, TextureFormat, TextureKind};
use softhal_pipeline::{Format, PositionKind, Renderer, Surface, VertexLayout};
use softhal_submit::packet::{op, Writer};
use softhal_submit::regs::id;
use softhal_submit::{
    limits, render_flags, AllocKind, AllocationDesc, Engine, HostMemory, Kmd, RenderData, Storage,
    TextureCopy,
};
use softhal_wire::names::codes;
use softhal_wire::names::RenderStateType as Rs;

mod common;
use common::Sub;

const W: u32 = 16;
const RED: u32 = 0xFFFF_0000;
const GREEN: u32 = 0xFF00_FF00;

struct Rig {
    kmd: Kmd,
    mem: HostMemory,
    rt: u32,
    vb: u32,
    staging: u32,
    rt_locked: u32,
    /// Two 2×2 A8R8G8B8 textures (texels 1, 2, 3, 4 and 0).
    tex: u32,
    tex2: u32,
    gfx: u32,
    copy: u32,
}

fn quad(x0: f32, x1: f32, color: u32) -> Vec<u8> {
    let v = |x: f32, y: f32| {
        let mut b = Vec::new();
        for f in [x, y, 0.5f32, 1.0] {
            b.extend_from_slice(&f.to_le_bytes());
        }
        b.extend_from_slice(&color.to_le_bytes());
        b
    };
    let (y0, y1) = (0.0, W as f32);
    [
        v(x0, y0),
        v(x1, y0),
        v(x0, y1),
        v(x1, y0),
        v(x1, y1),
        v(x0, y1),
    ]
    .concat()
}

fn layout() -> VertexLayout {
    VertexLayout::packed(PositionKind::Xyzrhw, true, false, &[])
}

fn rig() -> Rig {
    let mut kmd = Kmd::new(Renderer::new(1).unwrap());
    let mut mem = HostMemory::default();
    let image = |kmd: &mut Kmd, mem: &mut HostMemory, cpu_visible: bool| {
        let h = kmd
            .create_allocation(AllocationDesc {
                kind: AllocKind::Image {
                    format: Format::A8R8G8B8,
                    width: W,
                    height: W,
                },
                cpu_visible,
            })
            .unwrap();
        mem.map.insert(
            h,
            Storage::Image(Some(Surface::new(Format::A8R8G8B8, W, W).unwrap())),
        );
        h
    };
    let buffer = |kmd: &mut Kmd, mem: &mut HostMemory, bytes: Vec<u8>| {
        let h = kmd
            .create_allocation(AllocationDesc {
                kind: AllocKind::Buffer {
                    bytes: bytes.len() as u64,
                },
                cpu_visible: true,
            })
            .unwrap();
        mem.map.insert(h, Storage::Buffer(bytes));
        h
    };
    let rt = image(&mut kmd, &mut mem, true);
    let rt_locked = image(&mut kmd, &mut mem, false);
    let vb = buffer(&mut kmd, &mut mem, quad(0.0, 8.0, RED));
    let staging = buffer(&mut kmd, &mut mem, quad(0.0, 16.0, GREEN));
    let texture = |kmd: &mut Kmd, mem: &mut HostMemory, texels: [u32; 4]| {
        let desc = TextureDesc {
            kind: TextureKind::Texture2D,
            format: TextureFormat::A8R8G8B8,
            width: 2,
            height: 2,
            depth: 1,
            levels: 1,
        };
        let h = kmd
            .create_allocation(AllocationDesc {
                kind: AllocKind::Texture {
                    desc,
                    render_target: false,
                },
                cpu_visible: true,
            })
            .unwrap();
        let mut t = Texture::new(desc).unwrap();
        let bytes: Vec<u8> = texels.iter().flat_map(|t| t.to_le_bytes()).collect();
        t.upload(0, 0, &bytes, 8).unwrap();
        mem.map.insert(h, Storage::Texture(Box::new(t)));
        h
    };
    let tex = texture(&mut kmd, &mut mem, [1, 2, 3, 4]);
    let tex2 = texture(&mut kmd, &mut mem, [0; 4]);
    let gfx = kmd.create_context(Engine::ThreeD).unwrap();
    let copy = kmd.create_context(Engine::Copy).unwrap();
    Rig {
        kmd,
        mem,
        rt,
        vb,
        staging,
        rt_locked,
        tex,
        tex2,
        gfx,
        copy,
    }
}

/// Clear to blue, then draw the vertex buffer's quad.
fn frame(r: &Rig) -> Sub {
    let mut s = Sub::new();
    let rt = s.idx(r.rt, true);
    let vb = s.idx(r.vb, false);
    // D3DRS_ZENABLE = D3DZB_FALSE, D3DRS_CULLMODE = D3DCULL_NONE (1).
    s.w.set_regs(&[
        (id::rs(Rs::ZEnable.raw()), 0),
        (id::rs(Rs::CullMode.raw()), 1),
    ]);
    s.w.bind_targets(rt, None);
    s.w.clear_targets(1, 0xFF00_00FF, 0.0, 0, &[]);
    s.w.vertex_format(&layout());
    s.w.set_vertices(vb, 0, 120);
    s.w.draw(4, 0, 2, 0, false);
    s
}

fn pixels(r: &Rig, h: u32) -> Vec<u8> {
    match r.mem.map.get(&h) {
        Some(Storage::Image(Some(s))) => s.to_rgba8(),
        _ => panic!("no image"),
    }
}

fn pixel(r: &Rig, x: u32) -> u32 {
    match r.mem.map.get(&r.rt) {
        Some(Storage::Image(Some(s))) => s.read_argb(x, 8).unwrap(),
        _ => panic!("no image"),
    }
}

/// Everything a rejection must leave alone.
fn fingerprint(r: &Rig) -> (String, HostMemory, Option<(u64, u64, u64)>) {
    (r.kmd.snapshot(), r.mem.clone(), r.kmd.fences(r.gfx))
}

fn submit(r: &mut Rig, rd: &mut RenderData) -> u32 {
    r.kmd.render(rd, &mut r.mem)
}

#[test]
fn a_valid_submission_is_queued_then_executed_and_fenced() {
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    let before = pixels(&r, r.rt);
    assert_eq!(submit(&mut r, &mut rd), 0);
    assert_eq!(rd.fence, 1);
    assert_eq!(rd.queued_buffer_count, 1);
    // Queued, not run: no pixel changed, the fence is not signalled.
    assert_eq!(pixels(&r, r.rt), before);
    assert_eq!(r.kmd.fences(r.gfx), Some((1, 0, 0)));
    assert!(r.kmd.allocation_busy(r.vb));
    r.kmd.retire(r.gfx, 1, &mut r.mem);
    assert_eq!(r.kmd.fences(r.gfx), Some((1, 1, 1)));
    assert!(!r.kmd.allocation_busy(r.vb));
    assert_eq!(pixel(&r, 2), RED);
    assert_eq!(pixel(&r, 12), 0xFF00_00FF);
    assert_eq!(r.kmd.stats().faults, 0);
    // The state registers stay applied on the context.
    // (D3DRS_CULLMODE = D3DCULL_NONE, 1, as written.)
    let regs = r.kmd.registers(r.gfx).unwrap();
    assert_eq!(regs.get(id::rs(Rs::CullMode.raw())), Some(1));
    // The callback handed back empty buffers with room for the sizes.
    assert!(rd.command_buffer.is_empty());
    assert!(rd.command_buffer.capacity() >= rd.new_command_buffer_size as usize);
    assert!(rd.patch_location_list.capacity() >= rd.new_patch_location_list_size as usize);
    assert_eq!(
        rd.new_command_buffer_size,
        limits::DEFAULT_COMMAND_BUFFER_BYTES
    );
}

/// Runs `rd`, expects `code`, and checks nothing changed; then checks the
/// device still renders the reference frame like a fresh one.
fn rejected(r: &mut Rig, mut rd: RenderData, code: u32) {
    let before = fingerprint(r);
    let n = r.kmd.rejected();
    assert_eq!(
        submit(r, &mut rd),
        code,
        "{:?}",
        r.kmd.render_checked(&mut rd.clone(), &mut r.mem.clone())
    );
    assert_eq!(r.kmd.rejected(), n + 1);
    let after = fingerprint(r);
    assert_eq!(before.0, after.0, "kernel state changed");
    assert_eq!(before.1, after.1, "memory changed");
    assert_eq!(before.2, after.2, "fences changed");
    // The sizes are returned even on failure (contents left alone).
    assert!(rd.command_buffer.capacity() >= rd.new_command_buffer_size as usize);
    // Poisoned vs fresh: the reference frame renders identically.
    let mut fresh = rig();
    for k in [&mut *r, &mut fresh] {
        let mut ok = frame(k).data(k.gfx);
        assert_eq!(submit(k, &mut ok), 0);
        k.kmd.retire_all(&mut k.mem);
    }
    assert_eq!(pixels(r, r.rt), pixels(&fresh, fresh.rt));
}

fn with_packet(r: &Rig, f: impl FnOnce(&mut Sub)) -> RenderData {
    let mut s = frame(r);
    f(&mut s);
    s.data(r.gfx)
}

#[test]
fn privileged_packets_in_user_buffers() {
    for opcode in [
        op::FENCE_SIGNAL,
        op::FENCE_WAIT,
        op::CONTEXT_SWITCH,
        op::MAKE_RESIDENT,
        op::EVICT,
    ] {
        let mut r = rig();
        let n = if matches!(opcode, op::FENCE_SIGNAL | op::FENCE_WAIT) {
            3
        } else {
            1
        };
        let rd = with_packet(&r, |s| s.w.raw(opcode, 0, &vec![1; n]));
        rejected(&mut r, rd, codes::D3DDDIERR_PRIVILEGEDINSTRUCTION);
    }
}

#[test]
fn invalid_instructions() {
    type Edit = fn(&mut Sub);
    let cases: [(&str, Edit); 8] = [
        ("unknown opcode", |s| s.w.raw(0x7F, 0, &[])),
        ("reserved header flags", |s| s.w.raw(op::NOP, 0x80, &[])),
        // Render state 255 is not in the register file.
        ("unknown register", |s| s.w.set_regs(&[(id::rs(0xFF), 0)])),
        // D3DCMPFUNC is 1..=8.
        ("bad register value", |s| {
            s.w.set_regs(&[(id::rs(Rs::ZFunc.raw()), 99)])
        }),
        ("non-finite float register", |s| {
            s.w.set_regs(&[(id::viewport::W_FAR, f32::NAN.to_bits())])
        }),
        ("bad topology", |s| s.w.draw(9, 0, 1, 0, false)),
        ("draw past its vertices", |s| s.w.draw(4, 0, 3, 0, false)),
        ("indexed draw without indices", |s| {
            s.w.draw(4, 0, 1, 0, true)
        }),
    ];
    for (what, edit) in cases {
        let mut r = rig();
        let rd = with_packet(&r, edit);
        eprintln!("case: {what}");
        rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
    }
    // A draw on the copy engine.
    let mut r = rig();
    let rd = frame(&r).data(r.copy);
    rejected(&mut r, rd, codes::D3DDDIERR_ILLEGALINSTRUCTION);
    // A vertex range outside its allocation.
    let mut r = rig();
    let mut s = Sub::new();
    let vb = s.idx(r.vb, false);
    s.w.set_vertices(vb, 100, 40);
    let rd = s.data(r.gfx);
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
    // A buffer bound as render target.
    let mut r = rig();
    let mut s = Sub::new();
    let vb = s.idx(r.vb, true);
    s.w.bind_targets(vb, None);
    let rd = s.data(r.gfx);
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
}

/// The tokens of Direct3D shader assembly `src`.
fn tokens(src: &str) -> Vec<u32> {
    softhal_shader::text::assemble(src)
        .unwrap_or_else(|e| panic!("{e:?}\n{src}"))
        .to_tokens()
}

#[test]
fn invalid_shaders() {
    use softhal_submit::packet::{ConstantBank as B, ShaderStage as S};
    use softhal_submit::SubmitError;
    // vs_2_0 reading c256: past its 256 float constants (token 2 is the
    // source of the mov).
    let mut bad = tokens("vs_2_0\nmov oPos, c0\n");
    bad[3] = (bad[3] & !0x7FF) | 256;
    let mut r = rig();
    let rd = with_packet(&r, |s| s.w.create_shader(1, &bad));
    let e = r.kmd.render_checked(&mut rd.clone(), &mut r.mem.clone());
    assert!(
        matches!(
            e,
            Err(SubmitError::Shader {
                dword: 3,
                rule: "register_out_of_range",
                ..
            })
        ),
        "{e:?}"
    );
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
    type Edit = fn(&mut Sub);
    let cases: [(&str, Edit); 7] = [
        ("tokens without END", |s| {
            s.w.create_shader(1, &[0xFFFE_0200, 0x0200_0001])
        }),
        ("shader id 0", |s| {
            s.w.create_shader(0, &tokens("vs_2_0\nmov oPos, c0\n"))
        }),
        ("vertex float constant 256", |s| {
            s.w.set_constants(S::Vertex, B::Float, 255, &[0; 8])
        }),
        ("pixel float constant 224", |s| {
            s.w.set_constants(S::Pixel, B::Float, 224, &[0; 4])
        }),
        ("BOOL constant 16", |s| {
            s.w.set_constants(S::Pixel, B::Bool, 16, &[1])
        }),
        ("stage 2", |s| s.w.raw(op::SET_SHADER, 0, &[2, 1])),
        ("input register 16", |s| {
            s.w.vertex_inputs(16, &[(16, 0, 2)])
        }),
    ];
    for (what, edit) in cases {
        let mut r = rig();
        let rd = with_packet(&r, edit);
        eprintln!("case: {what}");
        rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
    }
    // An input past the stride, an unknown D3DDECLTYPE, a count that
    // does not match the data.
    for (what, edit) in [
        (
            "FLOAT4 at 8 of 16 bytes",
            (|s| s.w.vertex_inputs(16, &[(0, 8, 3)])) as Edit,
        ),
        ("D3DDECLTYPE 99", |s| s.w.vertex_inputs(16, &[(0, 0, 99)])),
    ] {
        let mut r = rig();
        let rd = with_packet(&r, edit);
        eprintln!("case: {what}");
        rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
    }
    let mut r = rig();
    // SET_CONSTANTS: stage 0, float, first 0, count 2 — with one register.
    let rd = with_packet(&r, |s| {
        s.w.raw(op::SET_CONSTANTS, 0, &[0, 0, 0, 2, 1, 2, 3, 4])
    });
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDUSERBUFFER);
}

#[test]
fn shaders_created_bound_and_fed_by_host_packets_draw() {
    use softhal_submit::packet::{ConstantBank as B, ShaderStage as S};
    let mut r = rig();
    // vs_2_0: the quad's screen position (x, y in 0..16, z 0.5, w 1) to
    // clip space: x·c0 + c1 = (x/8 − 1, 1 − y/8, 0.5, 1).
    let vs = tokens("vs_2_0\ndcl_position v0\nmad oPos, v0, c0, c1\n");
    // ps_2_0: the constant c2.
    let ps = tokens("ps_2_0\nmov oC0, c2\n");
    let f = |v: [f32; 4]| v.map(f32::to_bits);
    let mut s = frame(&r);
    s.w.set_regs(&[(id::viewport::WIDTH, W), (id::viewport::HEIGHT, W)]);
    s.w.create_shader(7, &vs);
    s.w.create_shader(8, &ps);
    s.w.set_shader(S::Vertex, 7);
    s.w.set_shader(S::Pixel, 8);
    let c: Vec<u32> = [f([0.125, -0.125, 1.0, 1.0]), f([-1.0, 1.0, 0.0, 0.0])].concat();
    s.w.set_constants(S::Vertex, B::Float, 0, &c);
    // Green = (0, 1, 0, 1).
    s.w.set_constants(S::Pixel, B::Float, 2, &f([0.0, 1.0, 0.0, 1.0]));
    // v0 = FLOAT4 (D3DDECLTYPE 3) at 0 of the 20-byte vertices.
    s.w.vertex_inputs(20, &[(0, 0, 3)]);
    s.w.draw(4, 0, 2, 0, false);
    let mut rd = s.data(r.gfx);
    assert_eq!(submit(&mut r, &mut rd), 0);
    r.kmd.retire_all(&mut r.mem);
    assert_eq!(r.kmd.stats().faults, 0);
    // The frame's own fixed-function quad (x < 8) red, then the shader
    // quad over the same pixels green; x ≥ 8 keeps the clear's blue.
    assert_eq!(pixel(&r, 2), GREEN);
    assert_eq!(pixel(&r, 12), 0xFF00_00FF);
    // The bindings last: the next frame's fixed-function draw finds the
    // vertex shader still bound and no VERTEX_INPUTS in its submission, a
    // fault; a draw with a pixel-shader id the context does not hold is
    // another. Neither draws: the clear's blue stays.
    let mut s = frame(&r);
    s.w.set_shader(S::Vertex, 0);
    s.w.set_shader(S::Pixel, 99);
    s.w.draw(4, 0, 2, 0, false);
    let mut rd = s.data(r.gfx);
    assert_eq!(submit(&mut r, &mut rd), 0);
    r.kmd.retire_all(&mut r.mem);
    assert_eq!(r.kmd.stats().faults, 2);
    assert_eq!(pixel(&r, 2), 0xFF00_00FF);
}

#[test]
fn invalid_handles() {
    // An allocation-list entry naming nothing.
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.allocation_list[1].h_allocation = 0xDEAD;
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDHANDLE);
    // A destroyed allocation.
    let mut r = rig();
    let vb = r.vb;
    r.kmd.destroy_allocation(vb, &mut r.mem.clone()).unwrap();
    r.mem.map.remove(&vb);
    let rd = frame(&r).data(r.gfx);
    let before = fingerprint(&r);
    let mut rd2 = rd.clone();
    assert_eq!(submit(&mut r, &mut rd2), codes::D3DDDIERR_INVALIDHANDLE);
    assert_eq!(before, fingerprint(&r));
    // A patch location naming an entry outside the list.
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.patch_location_list[0].allocation_index = 5;
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDHANDLE);
    // A reference without a patch location.
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.num_patch_locations -= 1;
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDHANDLE);
    // A write through a read-only entry.
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.allocation_list[0].value = 0;
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDHANDLE);
}

#[test]
fn locked_allocation_that_cannot_move() {
    let mut r = rig();
    let h = r.rt_locked;
    r.kmd.set_locked(h, true).unwrap();
    let mut s = Sub::new();
    let i = s.idx(h, true);
    s.w.bind_targets(i, None);
    s.w.clear_targets(1, 0, 0.0, 0, &[]);
    let rd = s.data(r.gfx);
    rejected(
        &mut r,
        rd.clone(),
        codes::D3DDDIERR_CANTRENDERLOCKEDALLOCATION,
    );
    // CPU-visible allocations render while locked; unlocked ones always.
    r.kmd.set_locked(h, false).unwrap();
    let mut ok = rd;
    assert_eq!(submit(&mut r, &mut ok), 0);
    let vb = r.vb;
    r.kmd.set_locked(vb, true).unwrap();
    let mut ok = frame(&r).data(r.gfx);
    assert_eq!(submit(&mut r, &mut ok), 0);
}

#[test]
fn invalid_user_buffers() {
    // A length that does not match the packet.
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.command_buffer[2] = 4; // SET_REGS of 4 DWORDs: 3 payload DWORDs, not pairs
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDUSERBUFFER);
    // A packet past CommandLength.
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.command_length -= 4;
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDUSERBUFFER);
    // CommandLength beyond the buffer.
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.command_length += 4;
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDUSERBUFFER);
    // Not whole DWORDs.
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.command_length -= 2;
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDUSERBUFFER);
    // A patch location outside the buffer, and one not on a reference.
    for off in [10_000u32, 0] {
        let mut r = rig();
        let mut rd = frame(&r).data(r.gfx);
        rd.patch_location_list[0].patch_offset = off;
        rejected(&mut r, rd, codes::D3DDDIERR_INVALIDUSERBUFFER);
    }
    // Inline data whose byte count does not match the packet.
    let mut r = rig();
    let mut s = Sub::new();
    s.w.vertices_inline(&[0; 20]);
    let mut rd = s.data(r.gfx);
    rd.command_buffer[4] = 40;
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDUSERBUFFER);
    // NumAllocations beyond the list.
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.num_allocations = 9;
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDUSERBUFFER);
}

#[test]
fn limits_are_out_of_memory() {
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.command_length = limits::MAX_COMMAND_BUFFER_BYTES + 4;
    rejected(&mut r, rd, codes::E_OUTOFMEMORY);
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.num_allocations = limits::MAX_ALLOCATION_LIST + 1;
    rejected(&mut r, rd, codes::E_OUTOFMEMORY);
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.num_patch_locations = limits::MAX_PATCH_LIST + 1;
    rejected(&mut r, rd, codes::E_OUTOFMEMORY);
}

#[test]
fn bad_call_parameters_are_invalidarg() {
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.flags = 0x10;
    rejected(&mut r, rd, codes::E_INVALIDARG);
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.h_context = Some(99);
    rejected(&mut r, rd, codes::E_INVALIDARG);
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.command_offset = rd.command_length + 4;
    rejected(&mut r, rd, codes::E_INVALIDARG);
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.patch_location_list[0].driver_id = 1;
    rejected(&mut r, rd, codes::E_INVALIDARG);
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.allocation_list[0].value = 0x101;
    rejected(&mut r, rd, codes::E_INVALIDARG);
}

#[test]
fn the_default_context_and_command_offset() {
    let mut r = rig();
    let s = frame(&r);
    let mut rd = s.data(r.gfx);
    // hContext None = the first 3-D context; a NOP prefix skipped by
    // CommandOffset (patch offsets stay relative to the buffer start).
    rd.h_context = None;
    let mut pre = Writer::new();
    pre.raw(0xFF, 0xFF, &[]); // garbage before CommandOffset is never read
    let mut bytes = pre.bytes.clone();
    bytes.extend_from_slice(&s.w.bytes);
    rd.command_buffer = bytes;
    rd.command_offset = 4;
    rd.command_length += 4;
    for p in &mut rd.patch_location_list {
        p.patch_offset += 4;
    }
    assert_eq!(submit(&mut r, &mut rd), 0);
    r.kmd.retire_all(&mut r.mem);
    assert_eq!(pixel(&r, 2), RED);
}

#[test]
fn resize_requests_honoured_or_declined() {
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    rd.flags = render_flags::RESIZE_COMMAND_BUFFER | render_flags::RESIZE_PATCH_LOCATION_LIST;
    rd.new_command_buffer_size = 1 << 20;
    rd.new_patch_location_list_size = 64;
    assert_eq!(submit(&mut r, &mut rd), 0);
    assert_eq!(rd.new_command_buffer_size, 1 << 20);
    assert!(rd.command_buffer.capacity() >= 1 << 20);
    assert_eq!(rd.new_patch_location_list_size, 64);
    assert!(rd.patch_location_list.capacity() >= 64);
    assert_eq!(rd.new_allocation_list_size, limits::DEFAULT_ALLOCATION_LIST);
    // Declined: beyond the limit; the sizes returned are the current ones.
    let mut rd = frame(&r).data(r.gfx);
    rd.flags = render_flags::RESIZE_COMMAND_BUFFER | render_flags::RESIZE_ALLOCATION_LIST;
    rd.new_command_buffer_size = limits::MAX_COMMAND_BUFFER_BYTES + 1;
    rd.new_allocation_list_size = limits::MAX_ALLOCATION_LIST + 1;
    assert_eq!(submit(&mut r, &mut rd), 0);
    assert_eq!(rd.new_command_buffer_size, 1 << 20);
    assert_eq!(rd.new_allocation_list_size, limits::DEFAULT_ALLOCATION_LIST);
    assert!(rd.allocation_list.capacity() >= limits::DEFAULT_ALLOCATION_LIST as usize);
    // A resize-only call (nothing to submit): no fence.
    let mut rd = RenderData {
        flags: render_flags::RESIZE_COMMAND_BUFFER,
        new_command_buffer_size: 4096,
        h_context: Some(r.gfx),
        ..RenderData::default()
    };
    let fences = r.kmd.fences(r.gfx);
    assert_eq!(submit(&mut r, &mut rd), 0);
    assert_eq!(rd.new_command_buffer_size, 4096);
    assert_eq!(r.kmd.fences(r.gfx), fences);
}

#[test]
fn null_rendering_signals_without_drawing() {
    let mut r = rig();
    let before = pixels(&r, r.rt);
    let mut rd = frame(&r).data(r.gfx);
    rd.flags = render_flags::NULL_RENDERING;
    assert_eq!(submit(&mut r, &mut rd), 0);
    r.kmd.retire_all(&mut r.mem);
    assert_eq!(r.kmd.fences(r.gfx), Some((1, 1, 1)));
    assert_eq!(pixels(&r, r.rt), before);
}

/// The copy engine writes the vertex buffer the 3-D draw reads: with the
/// fence wait the draw sees the copied (green, full-width) quad; without
/// it the 3-D engine, which runs first when both can, draws the old (red,
/// left-half) quad. Both outcomes are deterministic.
#[test]
fn copy_engine_blt_lands_before_the_3d_draw_that_reads_it() {
    for wait in [true, false] {
        let mut r = rig();
        let mut c = Sub::new();
        let src = c.idx(r.staging, false);
        let dst = c.idx(r.vb, true);
        c.w.buffer_copy(src, 0, dst, 0, 120);
        let mut rd = c.data(r.copy);
        assert_eq!(submit(&mut r, &mut rd), 0);
        let copy_fence = rd.fence;
        if wait {
            r.kmd.gpu_wait(r.gfx, r.copy, copy_fence).unwrap();
        }
        let mut rd = frame(&r).data(r.gfx);
        assert_eq!(submit(&mut r, &mut rd), 0);
        let gfx_fence = rd.fence;
        // The CPU waits for the 3-D fence only.
        r.kmd.retire(r.gfx, gfx_fence, &mut r.mem);
        if wait {
            assert_eq!(pixel(&r, 2), GREEN);
            assert_eq!(pixel(&r, 12), GREEN);
        } else {
            assert_eq!(pixel(&r, 2), RED);
            assert_eq!(pixel(&r, 12), 0xFF00_00FF);
        }
        r.kmd.retire_all(&mut r.mem);
        assert_eq!(r.kmd.counters(r.copy).unwrap().copies, 1);
        assert!(r.kmd.stats().context_switches >= 2);
    }
    // Waiting on a fence never submitted is refused.
    let mut r = rig();
    assert!(r.kmd.gpu_wait(r.gfx, r.copy, 5).is_err());
}

#[test]
fn occlusion_queries_count_on_the_gpu() {
    let mut r = rig();
    let mut s = frame(&r);
    s.w.query(false, 3);
    s.w.draw(4, 0, 2, 0, false);
    s.w.query(true, 3);
    let mut rd = s.data(r.gfx);
    assert_eq!(submit(&mut r, &mut rd), 0);
    assert_eq!(r.kmd.query_result(r.gfx, 3), None);
    r.kmd.retire_all(&mut r.mem);
    assert_eq!(r.kmd.query_result(r.gfx, 3), Some(8 * 16));
}

#[test]
fn the_kernel_validates_its_copy() {
    // The UMD's buffer is untouched by the call except for the returned
    // buffers: mutating it afterwards cannot change what runs.
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    assert_eq!(submit(&mut r, &mut rd), 0);
    rd.command_buffer.iter_mut().for_each(|b| *b = 0xFF);
    r.kmd.retire_all(&mut r.mem);
    assert_eq!(pixel(&r, 2), RED);
    assert_eq!(r.kmd.stats().faults, 0);
}

fn allowed(code: u32) -> bool {
    [
        codes::D3DDDIERR_PRIVILEGEDINSTRUCTION,
        codes::D3DDDIERR_INVALIDINSTRUCTION,
        codes::D3DDDIERR_INVALIDHANDLE,
        codes::D3DDDIERR_CANTRENDERLOCKEDALLOCATION,
        codes::D3DDDIERR_INVALIDUSERBUFFER,
        codes::E_OUTOFMEMORY,
        codes::E_INVALIDARG,
    ]
    .contains(&code)
}

/// A submission exercising most packets, for mutation.
fn rich(r: &Rig) -> RenderData {
    let mut s = frame(r);
    s.w.vertices_inline(&quad(8.0, 12.0, GREEN));
    s.w.indices_inline(
        &[0u16, 1, 2, 3, 4, 5]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect::<Vec<_>>(),
        2,
    );
    s.w.draw(4, 0, 2, 0, true);
    s.w.query(false, 1);
    s.w.query(true, 1);
    let t = s.idx(r.tex, false);
    let t2 = s.idx(r.tex2, true);
    s.w.set_texture(0, Some(t));
    s.w.draw(4, 0, 2, 0, true);
    s.w.set_texture(0, None);
    s.w.texture_copy(TextureCopy {
        src: t,
        dst: t2,
        x: 1,
        w: 1,
        h: 2,
        ..TextureCopy::default()
    });
    let i = s.idx(r.rt, false);
    s.w.present(i);
    s.data(r.gfx)
}

/// The mutation test's base submission is valid and runs every packet in
/// it without a fault (the sampled draw, the texture copy).
#[test]
fn the_rich_submission_runs_cleanly() {
    let mut r = rig();
    let mut rd = rich(&r);
    assert_eq!(submit(&mut r, &mut rd), 0);
    r.kmd.retire_all(&mut r.mem);
    assert_eq!(r.kmd.stats().faults, 0);
    assert_eq!(r.kmd.counters(r.gfx).unwrap().copies, 1);
    assert_eq!(r.kmd.counters(r.gfx).unwrap().draws, 3);
    match r.mem.map.get(&r.tex2) {
        // Column 1 of the source (texels 2 and 4) landed in column 0.
        Some(Storage::Texture(t)) => assert_eq!(
            t.level_bytes(0, 0).unwrap(),
            [2u32, 0, 4, 0]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>()
        ),
        _ => panic!("no texture"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Any mutation of a valid submission is either rejected with one of
    /// the documented codes (changing nothing), or accepted and executed
    /// without a fault, deterministically (the same on two devices); an
    /// unmutated submission renders the reference frame.
    #[test]
    fn mutations_are_rejected_cleanly_or_render_deterministically(
        edits in proptest::collection::vec((0usize..4, any::<u32>(), any::<u32>()), 0..4)
    ) {
        let mut a = rig();
        let mut b = rig();
        let mut rd = rich(&a);
        for &(kind, at, v) in &edits {
            match kind {
                0 => {
                    let n = rd.command_buffer.len();
                    rd.command_buffer[at as usize % n] = v as u8;
                }
                1 => {
                    let n = rd.command_buffer.len() / 4;
                    let i = (at as usize % n) * 4;
                    rd.command_buffer[i..i + 4].copy_from_slice(&v.to_le_bytes());
                }
                2 => {
                    let n = rd.patch_location_list.len();
                    let p = &mut rd.patch_location_list[at as usize % n];
                    match v % 3 {
                        0 => p.patch_offset = v >> 2,
                        1 => p.allocation_index = v % 5,
                        _ => p.patch_offset = p.patch_offset.wrapping_add(4),
                    }
                }
                _ => match v % 4 {
                    0 => rd.command_length = at % (rd.command_buffer.len() as u32 + 8),
                    1 => rd.num_allocations = at % 6,
                    2 => rd.num_patch_locations = at % 6,
                    _ => rd.allocation_list[at as usize % 3].value = v & 0x3,
                },
            }
        }
        let before = fingerprint(&a);
        let mut rd_b = rd.clone();
        let code = a.kmd.render(&mut rd, &mut a.mem);
        let code_b = b.kmd.render(&mut rd_b, &mut b.mem);
        prop_assert_eq!(code, code_b);
        if code == 0 {
            a.kmd.retire_all(&mut a.mem);
            b.kmd.retire_all(&mut b.mem);
            prop_assert_eq!(a.kmd.stats().faults, 0);
            prop_assert_eq!(pixels(&a, a.rt), pixels(&b, b.rt));
            prop_assert!(a.mem == b.mem, "video memory differs");
            if edits.is_empty() {
                let mut c = rig();
                let mut rd_c = rich(&c);
                prop_assert_eq!(c.kmd.render(&mut rd_c, &mut c.mem), 0);
                c.kmd.retire_all(&mut c.mem);
                prop_assert_eq!(pixels(&a, a.rt), pixels(&c, c.rt));
            }
        } else {
            prop_assert!(allowed(code), "unexpected code {:#x}", code);
            prop_assert_eq!(before, fingerprint(&a));
        }
    }
}

#[test]
fn a_dispatched_submission_completes_on_the_worker_and_is_collected_by_a_wait() {
    let mut r = rig();
    let mut rd = frame(&r).data(r.gfx);
    assert_eq!(submit(&mut r, &mut rd), 0);
    // The gate keeps the worker from starting the job: what follows cannot
    // depend on how fast it is.
    r.kmd.hold_gpu(true);
    assert!(r.kmd.dispatch(&mut r.mem));
    assert_eq!(r.kmd.in_flight(), 1);
    assert_eq!(r.kmd.queued(), 1);
    assert_eq!(r.kmd.fences(r.gfx), Some((1, 0, 0)));
    assert_eq!(r.kmd.stats().executed, 0);
    // The job holds the render target (moved, not shared); the vertex
    // buffer is a snapshot, so the owner keeps it.
    assert!(matches!(r.mem.map.get(&r.rt), Some(Storage::Image(None))));
    assert!(matches!(r.mem.map.get(&r.vb), Some(Storage::Buffer(_))));
    // Nothing else is runnable; dispatching again first waits for the job
    // in flight (the wait opens the gate).
    assert!(!r.kmd.dispatch(&mut r.mem));
    assert_eq!(r.kmd.in_flight(), 0);
    assert_eq!(r.kmd.fences(r.gfx), Some((1, 1, 0)));
    assert_eq!(pixel(&r, 2), RED);
    assert_eq!(pixel(&r, 12), 0xFF00_00FF);
    // Same pixels as the synchronous path.
    let mut s = rig();
    let mut rd = frame(&s).data(s.gfx);
    assert_eq!(submit(&mut s, &mut rd), 0);
    s.kmd.execute_all(&mut s.mem);
    assert_eq!(pixels(&s, s.rt), pixels(&r, r.rt));
    assert_eq!(s.kmd.snapshot(), r.kmd.snapshot());
    // Written buffers come back: a copy job's destination replaces the
    // owner's bytes when the job is collected.
    let mut c = Sub::new();
    let src = c.idx(r.staging, false);
    let dst = c.idx(r.vb, true);
    c.w.buffer_copy(src, 0, dst, 0, 120);
    let mut rd = c.data(r.copy);
    assert_eq!(submit(&mut r, &mut rd), 0);
    r.kmd.hold_gpu(true);
    assert!(r.kmd.dispatch(&mut r.mem));
    assert!(r.kmd.in_flight_writes_shared());
    assert_eq!(r.kmd.fences(r.copy), Some((1, 0, 0)));
    r.kmd.wait(&mut r.mem);
    assert_eq!(r.kmd.fences(r.copy), Some((1, 1, 0)));
    assert_eq!(
        r.mem.map.get(&r.vb),
        Some(&Storage::Buffer(quad(0.0, 16.0, GREEN)))
    );
}

/// The watchdog (docs/submission.md, "Timeouts and cancellation"): with a
/// zero timeout the deadline has passed when the first work packet (the
/// frame's CLEAR) is reached, so the submission stops before drawing —
/// deterministically. Its context hangs: its fence and that of the
/// submission queued behind it are still signalled (that one is skipped),
/// and a new submission to it is refused with D3DDDIERR_DEVICEREMOVED,
/// changing nothing. Another context then renders the reference frame.
#[test]
fn a_hung_context_refuses_submissions_with_device_removed() {
    let mut r = rig();
    let before = pixels(&r, r.rt);
    r.kmd.set_timeout(Some(std::time::Duration::ZERO));
    for _ in 0..2 {
        let mut rd = frame(&r).data(r.gfx);
        assert_eq!(submit(&mut r, &mut rd), 0);
    }
    r.kmd.retire_all(&mut r.mem);
    assert_eq!(r.kmd.fences(r.gfx), Some((2, 2, 2)));
    assert!(r.kmd.context_hung(r.gfx));
    assert_eq!(r.kmd.stats().hangs, 1);
    assert_eq!(r.kmd.stats().faults, 0);
    assert_eq!(pixels(&r, r.rt), before, "the stopped frame drew nothing");
    // Refused like any rejection: nothing changes but the count.
    r.kmd.set_timeout(None);
    let fp = fingerprint(&r);
    let n = r.kmd.rejected();
    let mut rd = frame(&r).data(r.gfx);
    assert_eq!(submit(&mut r, &mut rd), codes::D3DDDIERR_DEVICEREMOVED);
    assert_eq!(r.kmd.rejected(), n + 1);
    assert_eq!(fingerprint(&r), fp);
    // Recovery: another context draws the reference frame (blue clear,
    // red quad over x < 8).
    let gfx2 = r.kmd.create_context(Engine::ThreeD).unwrap();
    let mut rd = frame(&r).data(gfx2);
    assert_eq!(submit(&mut r, &mut rd), 0);
    r.kmd.retire_all(&mut r.mem);
    assert_eq!(pixel(&r, 2), RED);
    assert_eq!(pixel(&r, 12), 0xFF00_00FF);
    assert!(!r.kmd.context_hung(gfx2));
    r.kmd.destroy_context(r.gfx, &mut r.mem).unwrap();
}

/// A 16×16 (or `w`×`w`) A8R8G8B8 image allocation added to the rig.
fn extra_image(r: &mut Rig, w: u32) -> u32 {
    let h = r
        .kmd
        .create_allocation(AllocationDesc {
            kind: AllocKind::Image {
                format: Format::A8R8G8B8,
                width: w,
                height: w,
            },
            cpu_visible: true,
        })
        .unwrap();
    r.mem.map.insert(
        h,
        Storage::Image(Some(Surface::new(Format::A8R8G8B8, w, w).unwrap())),
    );
    h
}

#[test]
fn bind_render_target_binds_targets_1_to_3_for_clears_not_for_fixed_function() {
    // Render target 1 = a second 16×16 image. The frame's CLEAR (blue)
    // comes before the binding and leaves it alone; a CLEAR after it
    // fills both targets with green; the fixed-function draw of the red
    // quad (x < 8) then writes target 0 only.
    let mut r = rig();
    let t1 = extra_image(&mut r, W);
    let mut s = frame(&r);
    let i = s.idx(t1, true);
    s.w.bind_render_target(1, Some((i, 0, 0)));
    s.w.clear_targets(1, GREEN, 0.0, 0, &[]);
    s.w.draw(4, 0, 2, 0, false);
    let mut rd = s.data(r.gfx);
    assert_eq!(submit(&mut r, &mut rd), 0);
    r.kmd.retire_all(&mut r.mem);
    assert_eq!(r.kmd.stats().faults, 0);
    assert_eq!((pixel(&r, 2), pixel(&r, 12)), (RED, GREEN));
    let green = GREEN.to_le_bytes();
    let want: Vec<u8> = [green[2], green[1], green[0], green[3]].repeat((W * W) as usize);
    assert_eq!(pixels(&r, t1), want, "target 1: cleared, not drawn");
}

#[test]
fn bind_render_target_rejections_change_nothing() {
    type Edit = fn(&mut Sub, u32);
    // Each edit follows the reference frame; `t` is an allocation the
    // case lists itself.
    let cases: [(&str, u32, Edit, u32); 6] = [
        // Slots are 1–3 (0 is BIND_TARGETS).
        (
            "index 0",
            W,
            |s, t| {
                let i = s.idx(t, true);
                s.w.bind_render_target(0, Some((i, 0, 0)));
            },
            codes::D3DDDIERR_INVALIDINSTRUCTION,
        ),
        (
            "index 4",
            W,
            |s, t| {
                let i = s.idx(t, true);
                s.w.bind_render_target(4, Some((i, 0, 0)));
            },
            codes::D3DDDIERR_INVALIDINSTRUCTION,
        ),
        // An image has face and level 0 only.
        (
            "image level 1",
            W,
            |s, t| {
                let i = s.idx(t, true);
                s.w.bind_render_target(1, Some((i, 0, 1)));
            },
            codes::D3DDDIERR_INVALIDINSTRUCTION,
        ),
        // An 8×8 target 1 with the 16×16 target 0: refused at the draw.
        (
            "sizes differ at a draw",
            8,
            |s, t| {
                let i = s.idx(t, true);
                s.w.bind_render_target(2, Some((i, 0, 0)));
                s.w.draw(4, 0, 2, 0, false);
            },
            codes::D3DDDIERR_INVALIDINSTRUCTION,
        ),
        (
            "sizes differ at a clear",
            8,
            |s, t| {
                let i = s.idx(t, true);
                s.w.bind_render_target(3, Some((i, 0, 0)));
                s.w.clear_targets(1, 0, 0.0, 0, &[]);
            },
            codes::D3DDDIERR_INVALIDINSTRUCTION,
        ),
        // Through a read-only allocation-list entry.
        (
            "no write access",
            W,
            |s, t| {
                let i = s.idx(t, false);
                s.w.bind_render_target(1, Some((i, 0, 0)));
            },
            codes::D3DDDIERR_INVALIDHANDLE,
        ),
    ];
    for (what, w, edit, code) in cases {
        eprintln!("case: {what}");
        let mut r = rig();
        let t = extra_image(&mut r, w);
        let mut s = frame(&r);
        edit(&mut s, t);
        let rd = s.data(r.gfx);
        rejected(&mut r, rd, code);
    }
    // A buffer, and a texture without render-target usage, as target 1.
    for bad in ["buffer", "texture"] {
        let mut r = rig();
        let h = if bad == "buffer" { r.vb } else { r.tex };
        let mut s = frame(&r);
        let i = s.idx(h, true);
        s.w.bind_render_target(1, Some((i, 0, 0)));
        let rd = s.data(r.gfx);
        rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
    }
    // A forged handle: the allocation-list entry names no allocation.
    let mut r = rig();
    let t = extra_image(&mut r, W);
    let mut s = frame(&r);
    let i = s.idx(t, true);
    s.w.bind_render_target(1, Some((i, 0, 0)));
    let mut rd = s.data(r.gfx);
    rd.allocation_list[i as usize].h_allocation = 0xDEAD;
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDHANDLE);
    // UNBIND carrying a DWORD in the reference's place.
    let mut r = rig();
    let rd = with_packet(&r, |s| s.w.raw(op::BIND_RENDER_TARGET, 1, &[1, 7, 0, 0]));
    rejected(&mut r, rd, codes::D3DDDIERR_INVALIDINSTRUCTION);
}
