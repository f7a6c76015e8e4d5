//! The render callback (`Kmd::render`) fed arbitrary command buffers,
//! allocation lists and patch-location lists, as a hostile user-mode
//! driver would, against a small video memory: a render target, a depth
//! buffer, a vertex buffer and a locked image that is not CPU-visible, on a
//! 3-D and a copy-engine context. Up to four submissions per input (the
//! register state persists between them), each followed by running the
//! queues.
//!
//! Input, per submission (exhausted input reads as zeros; see
//! `fuzz/gen_submit_render_seeds.py`, which writes the seeds in
//! `fuzz/seeds/submit_render/`):
//! * `u8 ctl`: bits 0–1 the context (0, 1: 3-D; 2: copy; 3: a raw `u32`
//!   follows), bit 2 NULL_RENDERING, bit 3 resize (`u8` RESIZE flags and
//!   three `u32` requested sizes follow), bit 4 lying counts (three `i8`
//!   deltas follow: CommandLength in bytes, NumAllocations,
//!   NumPatchLocations), bit 5 CommandOffset (`u16` follows), bits 6–7 = 3:
//!   a reserved flag bit;
//! * `u8 n`, then n allocation-list entries `u8 which` (0 render target,
//!   1 depth, 2 vertex buffer, 3 locked image, 4 a destroyed allocation,
//!   other: that number as the handle) and `u8 value`;
//! * `u8 m`, then m patch locations `u8 index`, `u16 offset` (bytes),
//!   `u8 slot` (a reserved field when non-zero);
//! * `u16 length` and that many command bytes (fewer at the end).
//!
//! Oracles:
//! * never panics (P1);
//! * every answer is `S_OK` or one of the codes of `docs/submission.md`;
//! * **a rejected submission changes nothing** (P5): video memory, the
//!   kernel's snapshot (registers, queues, fences, allocation uses, sizes)
//!   are equal before and after, only `Kmd::rejected` counts it; the sizes
//!   are returned whatever the outcome; and when every submission of an
//!   input was rejected, a reference submission renders on the poisoned
//!   kernel exactly as on a fresh one;
//! * **validated work never faults**: everything the kernel accepted runs
//!   without a GPU fault (`GpuStats::faults` stays 0) — the verifier and
//!   the executor agree;
//! * **bounded memory** (P6): the peak of live heap bytes of one input stays
//!   under `SUBMIT_HEAP_BOUND`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use softhal_pipeline::{Format, Renderer, Surface};
use softhal_submit::packet::Writer;
use softhal_submit::{
    limits, render_flags, AllocKind, AllocationDesc, AllocationListEntry, Engine, HostMemory, Kmd,
    PatchLocation, RenderData, Storage,
};
use softhal_wire::names::codes;

#[path = "common/mod.rs"]
mod common;
use common::Bytes;

#[global_allocator]
static ALLOC: common::Counting = common::Counting;

/// Side of the images.
const SIDE: u32 = 16;
/// Bytes of the vertex buffer.
const VB_BYTES: usize = 512;
/// Submissions per input.
const MAX_SUBMISSIONS: usize = 4;
/// Peak heap of one input: a command buffer granted at the kernel's
/// largest size (reserved, never touched) plus the pipeline's scene and
/// the copies, generously.
const SUBMIT_HEAP_BOUND: usize = limits::MAX_COMMAND_BUFFER_BYTES as usize + (64 << 20);

struct Rig {
    kmd: Kmd,
    mem: HostMemory,
    /// Allocation handles: render target, depth, vertex buffer, locked
    /// image, a destroyed one.
    allocs: [u32; 5],
    gfx: u32,
    copy: u32,
}

fn image(kmd: &mut Kmd, mem: &mut HostMemory, format: Format, cpu_visible: bool) -> u32 {
    let h = kmd
        .create_allocation(AllocationDesc {
            kind: AllocKind::Image {
                format,
                width: SIDE,
                height: SIDE,
            },
            cpu_visible,
        })
        .expect("allocation");
    let s = Surface::new(format, SIDE, SIDE).expect("surface");
    mem.map.insert(h, Storage::Image(Some(s)));
    h
}

/// A vertex buffer of XYZRHW + diffuse vertices (20 bytes) in a fan over
/// the target, so that draws from it cover pixels.
fn vertices() -> Vec<u8> {
    let mut v = Vec::with_capacity(VB_BYTES);
    let mut i = 0u32;
    while v.len() + 20 <= VB_BYTES {
        let x = (i * 7 % 17) as f32;
        let y = (i * 11 % 17) as f32;
        for f in [x, y, 0.5, 1.0] {
            v.extend_from_slice(&f.to_le_bytes());
        }
        v.extend_from_slice(&(0xFF00_0000 | i.wrapping_mul(0x0012_3457)).to_le_bytes());
        i += 1;
    }
    v.resize(VB_BYTES, 0);
    v
}

fn rig() -> Rig {
    let mut kmd = Kmd::new(Renderer::new(1).expect("renderer"));
    let mut mem = HostMemory::default();
    let rt = image(&mut kmd, &mut mem, Format::A8R8G8B8, true);
    let depth = image(&mut kmd, &mut mem, Format::D24S8, true);
    let vb = kmd
        .create_allocation(AllocationDesc {
            kind: AllocKind::Buffer {
                bytes: VB_BYTES as u64,
            },
            cpu_visible: true,
        })
        .expect("allocation");
    mem.map.insert(vb, Storage::Buffer(vertices()));
    let locked = image(&mut kmd, &mut mem, Format::A8R8G8B8, false);
    kmd.set_locked(locked, true).expect("lock");
    let gone = image(&mut kmd, &mut mem, Format::A8R8G8B8, true);
    kmd.destroy_allocation(gone, &mut mem).expect("destroy");
    mem.map.remove(&gone);
    let gfx = kmd.create_context(Engine::ThreeD).expect("context");
    let copy = kmd.create_context(Engine::Copy).expect("context");
    Rig {
        kmd,
        mem,
        allocs: [rt, depth, vb, locked, gone],
        gfx,
        copy,
    }
}

/// One submission from the input.
fn submission(b: &mut Bytes<'_>, rig: &Rig) -> RenderData {
    let ctl = b.u8();
    let mut rd = RenderData {
        h_context: Some(match ctl & 3 {
            0 | 1 => rig.gfx,
            2 => rig.copy,
            _ => b.u32(),
        }),
        ..RenderData::default()
    };
    if ctl & 4 != 0 {
        rd.flags |= render_flags::NULL_RENDERING;
    }
    if ctl & 8 != 0 {
        rd.flags |= u32::from(b.u8() & 7);
        rd.new_command_buffer_size = b.u32();
        rd.new_allocation_list_size = b.u32();
        rd.new_patch_location_list_size = b.u32();
    }
    let lie = if ctl & 16 != 0 {
        [b.u8() as i8, b.u8() as i8, b.u8() as i8]
    } else {
        [0; 3]
    };
    if ctl & 32 != 0 {
        rd.command_offset = u32::from(b.u16());
    }
    if ctl >> 6 == 3 {
        rd.flags |= 0x10;
    }
    let n = b.u8();
    for _ in 0..n {
        let which = b.u8();
        let value = b.u8();
        let h = rig
            .allocs
            .get(usize::from(which))
            .copied()
            .unwrap_or(u32::from(which));
        rd.allocation_list.push(AllocationListEntry {
            h_allocation: h,
            value: u32::from(value),
        });
    }
    let m = b.u8();
    for _ in 0..m {
        let index = b.u8();
        let offset = b.u16();
        let slot = b.u8();
        rd.patch_location_list.push(PatchLocation {
            allocation_index: u32::from(index),
            patch_offset: u32::from(offset),
            slot_id: u32::from(slot),
            ..PatchLocation::default()
        });
    }
    let len = usize::from(b.u16());
    rd.command_buffer = b.take(len).to_vec();
    let count = |n: usize, d: i8| (n as i64 + i64::from(d)).max(0) as u32;
    rd.command_length = count(rd.command_buffer.len(), lie[0]);
    rd.num_allocations = count(rd.allocation_list.len(), lie[1]);
    rd.num_patch_locations = count(rd.patch_location_list.len(), lie[2]);
    rd
}

/// A known-good submission: clear both targets, draw from the vertex
/// buffer with depth testing.
fn reference(rig: &Rig) -> RenderData {
    let mut w = Writer::new();
    // D3DRS_CULLMODE (22) = D3DCULL_NONE, D3DRS_ZENABLE (7) = TRUE.
    w.set_regs(&[(22, 1), (7, 1)]);
    w.bind_targets(0, Some(1));
    w.clear_targets(3, 0xFF20_4060, 1.0, 0, &[]);
    w.vertex_format(&softhal_pipeline::VertexLayout::packed(
        softhal_pipeline::PositionKind::Xyzrhw,
        true,
        false,
        &[],
    ));
    w.set_vertices(2, 0, 480);
    w.draw(4, 0, 8, 0, false);
    let [rt, depth, vb, ..] = rig.allocs;
    let patch_location_list = w.patch_locations();
    RenderData {
        command_length: w.bytes.len() as u32,
        command_buffer: w.bytes,
        num_allocations: 3,
        allocation_list: vec![
            AllocationListEntry::new(rt, true),
            AllocationListEntry::new(depth, true),
            AllocationListEntry::new(vb, false),
        ],
        num_patch_locations: w.refs.len() as u32,
        patch_location_list,
        h_context: Some(rig.gfx),
        ..RenderData::default()
    }
}

/// Runs the reference submission; returns the memory it leaves.
fn render_reference(rig: &mut Rig) -> HostMemory {
    let mut rd = reference(rig);
    assert_eq!(rig.kmd.render(&mut rd, &mut rig.mem), codes::D3D_OK);
    rig.kmd.execute_all(&mut rig.mem);
    rig.mem.clone()
}

fn run(data: &[u8]) {
    // `SUBMIT_RENDER_TRACE=1` prints each submission's HRESULT (to check
    // that the seeds do what `gen_submit_render_seeds.py` says).
    let trace = std::env::var_os("SUBMIT_RENDER_TRACE").is_some();
    let mut rig = rig();
    let mut b = Bytes::new(data);
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..MAX_SUBMISSIONS {
        if b.is_empty() {
            break;
        }
        let mut rd = submission(&mut b, &rig);
        let mem_before = rig.mem.clone();
        let kmd_before = rig.kmd.snapshot();
        let rejected = rig.kmd.rejected();
        let hr = rig.kmd.render(&mut rd, &mut rig.mem);
        if trace {
            eprintln!("submission: hr {hr:#010x}");
        }
        assert!(
            common::RENDER_ANSWERS.contains(&hr),
            "undocumented answer {hr:#x}"
        );
        assert!(
            rd.new_command_buffer_size > 0
                && rd.new_allocation_list_size > 0
                && rd.new_patch_location_list_size > 0,
            "the sizes are always returned"
        );
        if hr != 0 {
            assert_eq!(rig.kmd.rejected(), rejected + 1);
            assert!(
                rig.mem == mem_before,
                "a rejected submission (hr {hr:#x}) changed video memory"
            );
            assert_eq!(
                rig.kmd.snapshot(),
                kmd_before,
                "a rejected submission (hr {hr:#x}) changed the kernel"
            );
            refused += 1;
            continue;
        }
        accepted += 1;
        assert_eq!(rig.kmd.rejected(), rejected);
        rig.kmd.execute_all(&mut rig.mem);
        assert_eq!(rig.kmd.queued(), 0);
        assert_eq!(
            rig.kmd.stats().faults,
            0,
            "validated work faulted on the GPU"
        );
    }
    if refused > 0 && accepted == 0 {
        let poisoned = render_reference(&mut rig);
        let fresh = render_reference(&mut self::rig());
        assert!(
            poisoned == fresh,
            "after {refused} rejected submission(s) the reference renders differently"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let ((), usage) = common::measure(|| run(data));
    common::note_peak("submit_render", usage.peak, SUBMIT_HEAP_BOUND);
    assert!(
        usage.peak <= SUBMIT_HEAP_BOUND,
        "peak heap {} > {SUBMIT_HEAP_BOUND}",
        usage.peak
    );
});
