//! The Rust host of `docs/embedding.md`, shown there whole: a driver
//! recorded by a `Recorder`, a render target, a DrawPrimitives2 call
//! written in DP2 assembly with user-memory vertices, the pixels read back,
//! the capture saved and replayed to the same pixels.

use softhal_capture::{Recorder, Replay};
use softhal_device::{DrawPrimitives2Data, Driver, Format};

/// A pre-transformed, coloured vertex (`D3DFVF_XYZRHW | D3DFVF_DIFFUSE`):
/// x, y, z, rhw, then a D3DCOLOR, little-endian.
fn tl_vertex(out: &mut Vec<u8>, x: f32, y: f32, argb: u32) {
    for f in [x, y, 0.5, 1.0] {
        out.extend_from_slice(&f.to_le_bytes());
    }
    out.extend_from_slice(&argb.to_le_bytes());
}

#[test]
fn a_minimal_host_renders_records_and_replays() -> Result<(), Box<dyn std::error::Error>> {
    const W: u32 = 64;
    const H: u32 = 64;
    const FVF: u32 = 0x44; // D3DFVF_XYZRHW | D3DFVF_DIFFUSE
    const STRIDE: u32 = 20;

    // 1. A driver (1 rasterizer thread) inside a recorder: every call
    //    goes to the driver unchanged and into the capture (here a Vec;
    //    a BufWriter<File> for a file).
    let mut host = Recorder::new(Driver::new(1)?, Vec::new());

    // 2. A render target and a context drawing into it.
    let rt = host.create_render_target(Format::X8R8G8B8, W, H)?;
    let ctx = host.context_create(rt, None)?;

    // 3. The command buffer, in DP2 assembly (names are the DDK's).
    let commands = softhal_wire::text::assemble(
        "RENDERSTATE { RenderState=D3DRS_CULLMODE dwState=D3DCULL_NONE }\n\
         VIEWPORTINFO { dwX=0 dwY=0 dwWidth=64 dwHeight=64 }\n\
         CLEAR { dwFlags=D3DCLEAR_TARGET dwFillColor=0xff203040 dvFillDepth=1.0 }\n\
         TRIANGLELIST count=1 wVStart=0\n",
    )?;
    let cb = host.create_command_buffer(commands.len() as u32)?;
    host.lock(cb, Default::default())?
        .copy_from_slice(&commands);
    host.unlock(cb)?;

    // 4. DrawPrimitives2 with user-memory vertices: the fields of
    //    D3DHAL_DRAWPRIMITIVES2DATA, one to one.
    let mut vertices = Vec::new();
    tl_vertex(&mut vertices, 32.0, 4.0, 0xFFFF_0000);
    tl_vertex(&mut vertices, 60.0, 60.0, 0xFF00_FF00);
    tl_vertex(&mut vertices, 4.0, 60.0, 0xFF00_00FF);
    let mut d = DrawPrimitives2Data::new(ctx, cb, commands.len() as u32)
        .with_user_vertices(FVF, &vertices, 3);
    d.ddrval = STRIDE; // dwVertexSize in, ddrval out (a union in the DDK)
    host.draw_primitives2(&mut d);
    assert_eq!(d.ddrval, 0, "refused at offset {}", d.dw_error_offset);

    // 5. The pixels (RGBA8, rows of W pixels), presented: the capture
    //    records the frame's checksum.
    let pixels = host.present(rt)?;
    assert_eq!(&pixels[..4], &[0x20, 0x30, 0x40, 0xff]); // the clear colour
    let centre = ((40 * W + 32) * 4) as usize;
    assert_ne!(&pixels[centre..centre + 3], &[0x20, 0x30, 0x40]); // the triangle

    // 6. The capture: END written, bytes handed back (save them to a
    //    .shcap file to replay with `softhal render FILE --check`).
    let (_driver, capture) = host.finish()?;

    // 7. Replay on a fresh driver: the same answers, the same pixels.
    let c = softhal_capture::load(&capture, None)?;
    let replay: Replay = softhal_capture::replay(&c, 1, |_, _| {})?;
    assert!(replay.differences.is_empty(), "{:?}", replay.differences);
    assert_eq!(replay.frames.len(), 1);
    assert_eq!(replay.frames[0].rgba, pixels);
    Ok(())
}

/// `docs/embedding.md` shows this file whole, so the tutorial's code is
/// the code that runs.
#[test]
fn the_tutorial_shows_this_file_whole() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/embedding.md")).unwrap();
    let this = std::fs::read_to_string(root.join("crates/cli/tests/embedding.rs")).unwrap();
    assert!(
        doc.contains(&this),
        "docs/embedding.md must show crates/cli/tests/embedding.rs whole"
    );
}
