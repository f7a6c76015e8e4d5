//! Object lifecycles through the device API, driven by an op sequence read
//! from the bytes: create and destroy surfaces of every kind (render
//! targets, depth buffers, textures, vertex, index and command buffers),
//! contexts, and — through small DP2 buffers — state blocks, queries,
//! palettes, lights and bindings (textures, streams, indices, render
//! targets) naming live, destroyed and made-up handles; lock, write and
//! unlock; Clear2, flips, presents, ValidateTextureStageState.
//!
//! Oracles:
//! * never panics (P1);
//! * handle safety (P10): a destroyed surface or context handle is refused
//!   by every later lookup, even after its slot is reused;
//! * leak check: after destroying every context and surface,
//!   `Driver::object_counts` (surfaces, contexts, GPU contexts,
//!   allocations, allocation uses, register shadows) is what a new driver
//!   reports, and the GPU's execution half keeps state only for live GPU
//!   contexts; once the driver is dropped the heap is back to
//!   where it was (the counting allocator; the sequence runs twice and only
//!   the second run is measured, so lazily built statics do not count).
#![no_main]
use libfuzzer_sys::fuzz_target;
use softhal_device::{
    Clear2Data, DrawPrimitives2Data, Driver, Format, LockFlags, SurfaceDesc,
    ValidateTextureStageStateData,
};
use softhal_wire::DecodeOptions;

#[path = "common/mod.rs"]
mod common;
use common::Bytes;

#[global_allocator]
static ALLOC: common::Counting = common::Counting;

const COLOR: [Format; 3] = [Format::X8R8G8B8, Format::A8R8G8B8, Format::R5G6B5];

/// A DP2 command naming handle `h` (and `g`), in DP2 assembly.
fn template(which: u8, h: u32, g: u32, n: u32) -> String {
    match which % 16 {
        0 => format!("TEXTURESTAGESTATE {{ wStage={} TSState=D3DTSS_TEXTUREMAP dwValue={h} }}", n % 9),
        1 => format!("SETSTREAMSOURCE {{ dwStream={} dwVBHandle={h} dwStride=20 }}", n % 17),
        2 => format!("SETINDICES {{ dwVBHandle={h} dwStride={} }}", if n & 1 == 0 { 2 } else { 4 }),
        3 => format!("SETRENDERTARGET {{ hRenderTarget={h} hZBuffer={g} }}"),
        4 => format!("STATESET {{ dwOperation=D3DHAL_STATESETBEGIN dwParam={n} sbType=D3DSBT_ALL }}"),
        5 => format!("STATESET {{ dwOperation=D3DHAL_STATESETEND dwParam={n} sbType=D3DSBT_ALL }}"),
        6 => format!("STATESET {{ dwOperation={} dwParam={n} sbType=D3DSBT_ALL }}", 2 + n % 4),
        7 => format!("CREATEQUERY {{ dwQueryID={n} QueryType=D3DQUERYTYPE_OCCLUSION }}"),
        8 => format!("ISSUEQUERY {{ dwQueryID={n} dwFlags=D3DISSUE_BEGIN }}"),
        9 => format!("DELETEQUERY {{ dwQueryID={n} }}"),
        10 => format!("SETPALETTE {{ dwPaletteHandle={n} dwPaletteFlags=0 dwSurfaceHandle={h} }}"),
        11 => format!("UPDATEPALETTE {{ dwPaletteHandle={n} wStartIndex={} }} entries=[0xff000000 0xffffffff]", n % 300),
        12 => format!("CREATELIGHT {{ dwIndex={n} }}"),
        13 => format!("TEXBLT {{ dwDDDestSurface={h} dwDDSrcSurface={g} pDest.x=0 pDest.y=0 rSrc.left=0 rSrc.top=0 rSrc.right={} rSrc.bottom=4 }}", n % 40),
        14 => format!("SETTEXLOD {{ dwDDSurface={h} dwLOD={} }}", n % 4),
        _ => format!("ADDDIRTYRECT {{ dwSurface={h} rDirtyArea.right={} rDirtyArea.bottom=4 }}", n % 40),
    }
}

/// The run's objects: every handle ever returned, and which are gone.
#[derive(Default)]
struct World {
    surfaces: Vec<u32>,
    dead_surfaces: Vec<u32>,
    contexts: Vec<u32>,
    dead_contexts: Vec<u32>,
}

impl World {
    fn surface(&self, b: &mut Bytes<'_>) -> u32 {
        match b.u8() % 8 {
            0 => b.u32(), // made up
            1 => 0,
            _ => self
                .surfaces
                .get(b.below(self.surfaces.len()))
                .copied()
                .unwrap_or(0),
        }
    }
    fn context(&self, b: &mut Bytes<'_>) -> u32 {
        match b.u8() % 8 {
            0 => b.u32(),
            _ => self
                .contexts
                .get(b.below(self.contexts.len()))
                .copied()
                .unwrap_or(0),
        }
    }
}

fn run(data: &[u8]) {
    let mut b = Bytes::new(data);
    let Ok(mut driver) = Driver::new(1) else {
        return;
    };
    let baseline = driver.object_counts();
    let mut w = World::default();
    let mut ops = 0;
    while !b.is_empty() && ops < 64 {
        ops += 1;
        let dim = |b: &mut Bytes<'_>| 1 + u32::from(b.u8() % 32);
        let created = match b.u8() % 18 {
            0 => {
                let f = COLOR[usize::from(b.u8()) % 3];
                driver.create_render_target(f, dim(&mut b), dim(&mut b))
            }
            1 => driver.create_depth_stencil(Format::D24S8, dim(&mut b), dim(&mut b)),
            2 => {
                let f = COLOR[usize::from(b.u8()) % 3];
                let mips = u32::from(b.u8() % 4);
                driver.create_texture(f, dim(&mut b), dim(&mut b), mips)
            }
            3 => {
                let edge = dim(&mut b);
                driver.create_surface(SurfaceDesc::cube_texture(Format::A8R8G8B8, edge, 0))
            }
            4 => driver.create_vertex_buffer(u32::from(b.u16() % 2048), b.u8() & 1 == 1),
            5 => driver.create_index_buffer(u32::from(b.u16() % 2048)),
            6 => driver.create_command_buffer_with(b.chunk()),
            7 => {
                let h = w.surface(&mut b);
                let was_live = w.surfaces.contains(&h) && !w.dead_surfaces.contains(&h);
                let r = driver.destroy_surface(h);
                assert_eq!(r.is_ok(), was_live, "destroy {h:#x}: {r:?}");
                if r.is_ok() {
                    w.dead_surfaces.push(h);
                }
                continue;
            }
            8 => {
                let rt = w.surface(&mut b);
                let z = (b.u8() & 1 == 1).then(|| w.surface(&mut b));
                if let Ok(c) = driver.context_create(rt, z) {
                    w.contexts.push(c);
                }
                continue;
            }
            9 => {
                let c = w.context(&mut b);
                let was_live = w.contexts.contains(&c) && !w.dead_contexts.contains(&c);
                let r = driver.context_destroy(c);
                assert_eq!(r.is_ok(), was_live, "context destroy {c:#x}: {r:?}");
                if r.is_ok() {
                    w.dead_contexts.push(c);
                }
                continue;
            }
            10 => {
                let h = w.surface(&mut b);
                let flags = LockFlags {
                    discard: b.u8() & 1 == 1,
                    no_overwrite: b.u8() & 1 == 1,
                };
                let at = usize::from(b.u16());
                let bytes = b.chunk();
                if let Ok(m) = driver.lock(h, flags) {
                    let at = at.min(m.len());
                    let n = bytes.len().min(m.len() - at);
                    m[at..at + n].copy_from_slice(&bytes[..n]);
                }
                let _ = driver.unlock(h);
                continue;
            }
            11 => {
                let h = w.surface(&mut b);
                let (face, level) = (u32::from(b.u8() % 8), u32::from(b.u8() % 6));
                if let Ok((m, _pitch)) = driver.lock_level(h, face, level) {
                    m.fill(0x5A);
                }
                let _ = driver.unlock(h);
                continue;
            }
            12 | 13 => {
                // A small DP2 buffer: templated commands naming handles,
                // then raw bytes from the input.
                let ctx = w.context(&mut b);
                let mut src = String::from(".fvf D3DFVF_XYZRHW|D3DFVF_DIFFUSE\n");
                for _ in 0..b.u8() % 4 {
                    let which = b.u8();
                    let (h, g) = (w.surface(&mut b), w.surface(&mut b));
                    src.push_str(&template(which, h, g, u32::from(b.u8())));
                    src.push('\n');
                }
                let opts = DecodeOptions {
                    vertex_stride: 20,
                    base_align: 0,
                };
                let mut cmds = softhal_wire::text::assemble_with(&src, opts).unwrap_or_default();
                cmds.extend_from_slice(b.chunk());
                let Ok(cb) = driver.create_command_buffer_with(&cmds) else {
                    continue;
                };
                let nverts = usize::from(b.u8() % 8) * 20;
                let verts = b.take(nverts).to_vec();
                let mut d = DrawPrimitives2Data::new(ctx, cb, cmds.len() as u32)
                    .with_user_vertices(0x44, &verts, (verts.len() / 20) as u32);
                d.ddrval = 20;
                driver.draw_primitives2(&mut d);
                // Buffers may have been renamed by a swap; destroy what we made.
                let _ = driver.destroy_surface(cb);
                continue;
            }
            14 => {
                let ctx = w.context(&mut b);
                let rects: Vec<[i32; 4]> = (0..b.u8() % 4)
                    .map(|_| [b.u8().into(), b.u8().into(), b.u16().into(), b.u16().into()])
                    .collect();
                let mut d = Clear2Data {
                    dwh_context: ctx,
                    dw_flags: u32::from(b.u8() & 7),
                    dw_fill_color: b.u32(),
                    dv_fill_depth: f32::from(b.u8()) / 255.0,
                    dw_fill_stencil: u32::from(b.u8()),
                    lp_rects: &rects,
                    ddrval: 0,
                };
                driver.clear2(&mut d);
                continue;
            }
            15 => {
                let h = w.surface(&mut b);
                let _ = driver.flip(h);
                if b.u8() & 1 == 1 {
                    driver.complete_flips();
                }
                let _ = driver.present(h);
                continue;
            }
            16 => {
                let mut d = ValidateTextureStageStateData {
                    dwh_context: w.context(&mut b),
                    ..Default::default()
                };
                driver.validate_texture_stage_state(&mut d);
                driver.complete_work();
                continue;
            }
            _ => {
                let _ = driver.snapshot(w.context(&mut b));
                continue;
            }
        };
        if let Ok(h) = created {
            assert!(!w.surfaces.contains(&h), "handle {h:#x} issued twice");
            w.surfaces.push(h);
        }
    }

    // Handle safety: nothing destroyed is reachable.
    for h in &w.dead_surfaces {
        assert!(
            driver.surface(*h).is_err(),
            "destroyed surface {h:#x} still resolves"
        );
    }
    for c in &w.dead_contexts {
        assert!(
            driver.context(*c).is_err(),
            "destroyed context {c:#x} still resolves"
        );
    }
    // Tear down; counts back to the baseline of a new driver.
    for c in &w.contexts {
        let _ = driver.context_destroy(*c);
    }
    for h in &w.surfaces {
        let _ = driver.destroy_surface(*h);
    }
    // (Swaps rename storage, never handles: nothing else can remain.)
    // Everything the driver and its kernel hold is back to what a new
    // driver holds; the execution half keeps state only for live GPU
    // contexts (the driver's own present and copy contexts).
    driver.complete_work();
    let end = driver.object_counts();
    let mut expected = baseline;
    expected.gpu_exec_states = end.gpu_exec_states;
    assert_eq!(end, expected, "objects left after teardown");
    assert!(
        end.gpu_exec_states <= end.gpu_contexts,
        "execution state kept for destroyed GPU contexts: {end:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    run(data); // warms lazily built statics
    let ((), usage) = common::measure(|| run(data));
    assert!(
        usage.net <= 0,
        "{} heap bytes leaked by a finished run",
        usage.net
    );
});
