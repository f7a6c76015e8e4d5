//! DP2 execution through the device with arbitrary setup, vertex data and
//! commands: never panics, and the same input gives the same pixels and
//! answers twice (no hidden state, no uninitialised reads).
//!
//! Input layout: byte 0 picks the FVF, byte 1 the render-target format and
//! size, byte 2 the command offset, byte 3 the vertex-data length (in
//! vertices); then the vertex bytes; the rest is the command buffer.
#![no_main]
use libfuzzer_sys::fuzz_target;
use softhal_device::{DrawPrimitives2Data, Driver, Format};

const FVFS: [u32; 8] = [0x44, 0x1c4, 0x42, 0x142, 0x112, 0x2c4, 0x104, 0x52];

fn run(data: &[u8]) -> Option<(Vec<u8>, u32, u32)> {
    let [fvf_sel, rt_sel, cmd_off, vcount, rest @ ..] = data else { return None };
    let fvf = FVFS[usize::from(*fvf_sel) % FVFS.len()];
    let stride = softhal_wire::fvf::vertex_stride(fvf).ok()? as usize;
    let vcount = usize::from(*vcount);
    let vbytes = rest.get(..(vcount * stride).min(rest.len()))?;
    let commands = rest.get(vbytes.len()..)?;
    let (w, h) = (1 + u32::from(rt_sel & 15) * 3, 1 + u32::from(rt_sel >> 4) * 2);
    let format = if rt_sel & 1 == 0 { Format::X8R8G8B8 } else { Format::R5G6B5 };

    let mut driver = Driver::new(1).ok()?;
    let rt = driver.create_render_target(format, w, h).ok()?;
    let depth = driver.create_depth_stencil(Format::D24S8, w, h).ok()?;
    let ctx = driver.context_create(rt, Some(depth)).ok()?;
    let offset = u32::from(*cmd_off) % 8;
    let mut buf = vec![0u8; offset as usize];
    buf.extend_from_slice(commands);
    let cb = driver.create_command_buffer_with(&buf).ok()?;
    let mut d = DrawPrimitives2Data::new(ctx, cb, commands.len() as u32)
        .with_user_vertices(fvf, vbytes, (vbytes.len() / stride) as u32);
    d.dw_command_offset = offset;
    d.ddrval = stride as u32;
    driver.draw_primitives2(&mut d);
    let pixels = driver.read_rgba8(rt).ok()?;
    Some((pixels, d.ddrval, d.dw_error_offset))
}

fuzz_target!(|data: &[u8]| {
    let a = run(data);
    let b = run(data);
    assert_eq!(a, b, "the same input must give the same pixels and answers");
});
