//! Bad input of every kind: random bytes, mutated and truncated streams.
//! The device must never panic, and every failure must name an offset
//! inside the command data.

mod common;

use common::*;
use softhal_device::*;
use softhal_wire::names::codes;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn all_opcodes() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/dp2/all-opcodes.dp2s"
    );
    asm(&std::fs::read_to_string(path).unwrap())
}

fn check(o: Outcome, offset: u32, len: usize) {
    assert_eq!(o.ret, codes::DDHAL_DRIVER_HANDLED);
    if o.ddrval != codes::D3D_OK {
        assert_eq!(o.ddrval, codes::D3DERR_COMMAND_UNPARSED, "{o:?}");
        assert!(
            o.offset >= offset && (o.offset as usize) < offset as usize + len,
            "{o:?} len {len}"
        );
    }
}

#[test]
fn the_all_opcodes_stream_and_its_mutations_never_panic() {
    let base = all_opcodes();
    let verts: Vec<u8> = (0..16)
        .flat_map(|i| tl(i as f32, (i * 3 % 16) as f32, 0.5, 0xFF00_00FF))
        .collect();
    let mut s = Scene::new(32, 32, true);
    check(
        s.run_full(&base, 0, &verts, D3DHALDP2_EXECUTEBUFFER, None),
        0,
        base.len(),
    );
    let mut rng = Rng(7);
    for round in 0..300 {
        let mut b = base.clone();
        for _ in 0..=rng.below(8) {
            let i = rng.below(b.len() as u64) as usize;
            b[i] = rng.next() as u8;
        }
        let cut = if round % 3 == 0 {
            rng.below(b.len() as u64) as usize
        } else {
            b.len()
        };
        let off = (round % 4) as u32;
        let mut arr = [0u32; 256];
        let o = s.run_full(
            &b[..cut],
            off,
            &verts,
            D3DHALDP2_EXECUTEBUFFER,
            Some(&mut arr),
        );
        check(o, off, cut.max(1));
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(99);
    let mut s = Scene::new(16, 16, false);
    let verts: Vec<u8> = (0..8)
        .flat_map(|i| tl(i as f32 * 2.0, 3.0, 0.5, 0xFFFF_FFFF))
        .collect();
    for _ in 0..400 {
        let n = rng.below(200) as usize;
        let mut b: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        // Bias towards known opcodes with small counts.
        let mut i = 0;
        while i + 4 <= b.len() {
            b[i] = (rng.below(98) + 1) as u8;
            b[i + 2] = rng.below(4) as u8;
            b[i + 3] = 0;
            i += 4 + 4 * rng.below(6) as usize;
        }
        let o = s.run_full(&b, 0, &verts, 0, None);
        check(o, 0, n.max(1));
    }
}

#[test]
fn truncating_any_command_fails_at_its_offset() {
    let s = Scene::new(8, 8, false);
    let rt = s.rt;
    let cmds = [
        "RENDERSTATE { RenderState=D3DRS_ZFUNC dwState=D3DCMP_LESS } { RenderState=D3DRS_CULLMODE dwState=D3DCULL_NONE }".to_string(),
        "TEXTURESTAGESTATE { wStage=0 TSState=D3DTSS_COLOROP dwValue=1 }".into(),
        "VIEWPORTINFO { dwWidth=8 dwHeight=8 }".into(),
        "SETTRANSFORM { xfrmType=D3DTS_VIEW _11=1.0 }".into(),
        "CLEAR { dwFlags=D3DCLEAR_TARGET } { left=0 top=0 right=4 bottom=4 }".into(),
        "TRIANGLELIST count=1 wVStart=0".into(),
        "INDEXEDTRIANGLESTRIP count=1 wVStart=0 indices=[0 1 2]".into(),
        "INDEXEDTRIANGLELIST2 wVStart=0 { wV1=0 wV2=1 wV3=2 }".into(),
        "POINTS { wCount=1 wVStart=0 }".into(),
        format!("COLORFILL {{ dwSurface={rt} rRect.right=4 rRect.bottom=4 Color=0 }}"),
        "CREATELIGHT { dwIndex=0 }".into(),
        "STATESET { dwOperation=D3DHAL_STATESETCREATE dwParam=1 sbType=D3DSBT_ALL }".into(),
        "CREATEQUERY { dwQueryID=1 QueryType=D3DQUERYTYPE_EVENT }".into(),
        "SETVERTEXSHADERCONST { dwRegister=4 data=[1.0 0.5 0.25 0.0] }".into(),
        "CREATEVERTEXSHADERFUNC { dwHandle=0x40 code=hex:0101feffffff0000 }".into(),
    ];
    let verts: Vec<u8> = (0..3)
        .flat_map(|i| tl(i as f32 * 4.0, (i % 2) as f32 * 4.0, 0.5, 0xFFFF_FFFF))
        .collect();
    for c in &cmds {
        let b = asm(c);
        let mut full = Scene::new(8, 8, false);
        let src = c.replace(&rt.to_string(), &full.rt.to_string());
        let b2 = asm(&src);
        assert_eq!(b.len(), b2.len());
        full.run_bytes(&b2, &verts).ok();
        for cut in 1..b2.len() {
            let mut t = Scene::new(8, 8, false);
            let before = t.snapshot();
            let o = t.run_full(&b2[..cut], 2, &verts, 0, None);
            o.unparsed_at(2);
            assert_eq!(t.snapshot(), before, "{c} cut at {cut}");
        }
    }
}

#[test]
fn every_opcode_alone_and_mutated_never_panics() {
    use softhal_wire::{decode_all, DecodeOptions};
    let base = all_opcodes();
    let opts = DecodeOptions {
        vertex_stride: 20,
        base_align: 0,
    };
    let cmds = decode_all(&base, opts).unwrap();
    assert_eq!(cmds.len(), 84);
    let verts: Vec<u8> = (0..16)
        .flat_map(|i| tl(i as f32, (i * 3 % 16) as f32, 0.5, 0xFF00_00FF))
        .collect();
    let mut rng = Rng(3);
    let mut s = Scene::new(16, 16, true);
    let mut ok = 0;
    for c in &cmds {
        let one = &base[c.offset..c.offset + c.size];
        let off = (c.offset % 4) as u32;
        let o = s.run_full(one, off, &verts, D3DHALDP2_EXECUTEBUFFER, None);
        check(o, off, one.len());
        ok += usize::from(o.ddrval == codes::D3D_OK);
        for _ in 0..20 {
            let mut m = one.to_vec();
            let i = 4 + rng.below((m.len() as u64).saturating_sub(4).max(1)) as usize;
            if let Some(b) = m.get_mut(i) {
                *b = rng.next() as u8;
            }
            let o = s.run_full(&m, off, &verts, 0, None);
            check(o, off, m.len());
        }
    }
    assert!(ok > 20, "a good share of the commands run alone: {ok}");
}

/// Found by the capture work: `width × bpp × height` overflowed u64 (a
/// panic in debug builds, a wrapped size slipping past the budget in
/// release) for absurd render-target and texture sizes.
#[test]
fn regression_absurd_surface_sizes_are_errors_not_overflows() {
    let mut d = softhal_device::Driver::new(common::test_threads()).unwrap();
    assert!(d
        .create_render_target(softhal_device::Format::A8R8G8B8, u32::MAX, u32::MAX)
        .is_err());
    assert!(d
        .create_depth_stencil(softhal_device::Format::D24S8, 4_000_000_000, 4_000_000_000)
        .is_err());
    assert!(d
        .create_texture(softhal_device::Format::A8R8G8B8, u32::MAX, u32::MAX, 1)
        .is_err());
}

/// Found by `dp2_execute` (texture harness): SETTRANSFORM,
/// MULTIPLYTRANSFORM (a product that overflows) and SETCLIPPLANE store
/// non-finite floats as given, and the device wrote them into the GPU's
/// register file, whose verifier takes finite floats only: the kernel
/// refused the whole submission at the end of the call (`D3DDDIERR_*` at
/// offset 0, after every command had taken effect). Non-finite matrix
/// elements and clip-plane coefficients now reach the GPU as 0.
#[test]
fn regression_non_finite_transforms_and_clip_planes_reach_the_gpu_as_zero() {
    const FVF_XYZ_DIFFUSE: u32 = 0x42;
    // A triangle covering the 8 × 8 target with identity transforms.
    let tri: Vec<u8> = [(-1.0f32, -1.0f32), (-1.0, 3.0), (3.0, -1.0)]
        .iter()
        .flat_map(|&(x, y)| {
            let mut v: Vec<u8> = [x, y, 0.5].iter().flat_map(|f| f.to_le_bytes()).collect();
            v.extend_from_slice(&0xFF00_FF00u32.to_le_bytes());
            v
        })
        .collect();
    let setup = "RENDERSTATE { RenderState=CULLMODE dwState=NONE } { RenderState=LIGHTING dwState=FALSE }\n\
                 VIEWPORTINFO { dwX=0 dwY=0 dwWidth=8 dwHeight=8 }\n";
    let draw = "TRIANGLELIST count=1 wVStart=0\n";
    let clear = "CLEAR { dwFlags=TARGET dwFillColor=0xFF000000 dvFillDepth=1.0 }\n";

    // NaN off the diagonal of WORLD reads as 0: the identity render.
    let mut s = Scene::new(8, 8, false);
    s.run_fvf(&format!("{setup}{draw}"), FVF_XYZ_DIFFUSE, 16, &tri)
        .ok();
    let identity = s.rt_bytes();
    assert_eq!(s.count(0xFF00_FF00), 64, "the triangle covers the target");
    for src in [
        "SETTRANSFORM { xfrmType=D3DTS_WORLD _11=1.0 _12=0x7FC00000 _22=1.0 _33=1.0 _44=1.0 }\n",
        "SETTRANSFORM { xfrmType=D3DTS_VIEW _11=1.0 _22=1.0 _33=1.0 _44=1.0 _43=0x7F800000 }\n\
         SETTRANSFORM { xfrmType=D3DTS_VIEW _11=1.0 _22=1.0 _33=1.0 _44=1.0 _34=0xFF800000 }\n",
        // A texture matrix and a blend world are registers too.
        "SETTRANSFORM { xfrmType=D3DTS_TEXTURE0 _11=0x7FC00000 _22=1.0 _33=1.0 _44=1.0 }\n\
         SETTRANSFORM { xfrmType=D3DTS_WORLD1 _11=0xFFC00000 _22=1.0 _33=1.0 _44=1.0 }\n",
        // A clip plane of NaNs reads as (0, 0, 0, 0): nothing is clipped.
        "SETCLIPPLANE { dwIndex=0 plane[0]=0x7FC00000 plane[1]=0x7FC00000 plane[2]=0x7FC00000 plane[3]=0x7FC00000 }\n\
         RENDERSTATE { RenderState=CLIPPLANEENABLE dwState=1 }\n",
    ] {
        let mut s = Scene::new(8, 8, false);
        let o = s.run_fvf(
            &format!("{setup}{src}{clear}{draw}"),
            FVF_XYZ_DIFFUSE,
            16,
            &tri,
        );
        assert_eq!(o.ddrval, codes::D3D_OK, "{src}: {o:?}");
        assert_eq!(s.rt_bytes(), identity, "{src}");
    }

    // 1e30 × 1e30 overflows to +inf in MULTIPLYTRANSFORM: _11 reads as 0,
    // every x collapses, the triangle has no area.
    let mut s = Scene::new(8, 8, false);
    let src = format!(
        "{setup}SETTRANSFORM {{ xfrmType=D3DTS_WORLD _11=1e30 _22=1.0 _33=1.0 _44=1.0 }}\n\
         MULTIPLYTRANSFORM {{ xfrmType=D3DTS_WORLD _11=1e30 _22=1.0 _33=1.0 _44=1.0 }}\n{clear}{draw}"
    );
    s.run_fvf(&src, FVF_XYZ_DIFFUSE, 16, &tri).ok();
    assert_eq!(
        s.count(0xFF00_FF00),
        0,
        "a zero-width triangle draws nothing"
    );
    assert_eq!(s.count(0xFF00_0000), 64);
}

/// Found while reviewing the paths the texture fuzz harness reaches (a
/// fuzz input of at most 4 KiB cannot hold enough records): SETPALETTE
/// checked the palette cap record by record against the palettes that
/// existed *before* the command, so one command of N records naming new
/// palettes created N of them whatever the cap — 65 535 × 1 KiB per
/// command. The new palettes of the whole command now count against
/// `limits::MAX_PALETTES`.
#[test]
fn regression_one_setpalette_command_cannot_exceed_the_palette_cap() {
    let cap = limits::MAX_PALETTES as u32;
    let mut s = Scene::new(4, 4, false);
    let t = s
        .drv
        .create_texture(softhal_pipeline::texture::TextureFormat::P8, 4, 4, 1)
        .unwrap();
    let setpalette = |first: u32, n: u32| {
        let mut b = vec![30u8, 0];
        b.extend_from_slice(&(n as u16).to_le_bytes());
        for p in first..first + n {
            for dw in [p, 0, t] {
                b.extend_from_slice(&dw.to_le_bytes());
            }
        }
        b
    };
    // One more new palette than the cap in one command: refused whole.
    s.run_bytes(&setpalette(1, cap + 1), &[]).unparsed_at(0);
    assert_eq!(s.drv.context(s.ctx).unwrap().palettes.len(), 0);
    // The cap itself, in one command, then nothing more.
    s.run_bytes(&setpalette(1, cap), &[]).ok();
    assert_eq!(s.drv.context(s.ctx).unwrap().palettes.len(), cap as usize);
    s.run_bytes(&setpalette(cap + 1, 2), &[]).unparsed_at(0);
    // Palettes that exist already do not count again.
    s.run_bytes(&setpalette(cap - 1, 2), &[]).ok();
    assert_eq!(s.drv.context(s.ctx).unwrap().palettes.len(), cap as usize);
}

/// Regression (found by `softhal soak`: +633 MB of resident memory after
/// 45,000 context re-creations in 10 minutes, then +232 MB with the first
/// cause fixed): a destroyed context left its GPU register shadow in the
/// driver, its registers and counters in the GPU's execution half and its
/// last use in every allocation it had drawn to. Creating, drawing with
/// and destroying contexts leaves the driver holding what it held before.
#[test]
fn regression_destroyed_contexts_leave_nothing_behind() {
    let mut s = Scene::new(8, 8, true);
    s.run(
        "CLEAR { dwFlags=D3DCLEAR_TARGET dwFillColor=0xff0000ff }",
        &[],
    )
    .ok();
    let baseline = s.drv.object_counts();
    for _ in 0..20 {
        let ctx = s.drv.context_create(s.rt, s.depth).unwrap();
        let main = std::mem::replace(&mut s.ctx, ctx);
        s.run(
            "RENDERSTATE { RenderState=D3DRS_ZENABLE dwState=D3DZB_TRUE }\nCLEAR { dwFlags=D3DCLEAR_TARGET dwFillColor=0xff00ff00 }",
            &[],
        )
        .ok();
        s.ctx = main;
        s.drv.context_destroy(ctx).unwrap();
        assert_eq!(s.drv.object_counts(), baseline);
    }
}
