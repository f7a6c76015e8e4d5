//! The `dp2_execute` input layout, shared by `dp2_execute` and
//! `dp2_threads`: byte 0 picks the FVF, byte 1 the render-target format
//! and size (at most 46 × 31), byte 2 the command offset, byte 3 the
//! vertex-data length (in vertices); then the vertex bytes; the rest is the
//! command buffer.
#![allow(dead_code)]

use softhal_device::{DrawPrimitives2Data, Driver, Format};

const FVFS: [u32; 8] = [0x44, 0x1c4, 0x42, 0x142, 0x112, 0x2c4, 0x104, 0x52];

/// A parsed input.
pub struct Input<'a> {
    pub fvf: u32,
    pub stride: usize,
    pub vertices: &'a [u8],
    pub commands: &'a [u8],
    pub width: u32,
    pub height: u32,
    pub format: Format,
    pub offset: u32,
}

impl<'a> Input<'a> {
    /// Splits `data`; `None` when it is too short.
    pub fn parse(data: &'a [u8]) -> Option<Self> {
        let [fvf_sel, rt_sel, cmd_off, vcount, rest @ ..] = data else {
            return None;
        };
        let fvf = FVFS[usize::from(*fvf_sel) % FVFS.len()];
        let stride = softhal_wire::fvf::vertex_stride(fvf).ok()? as usize;
        let vcount = usize::from(*vcount);
        let vertices = rest.get(..(vcount * stride).min(rest.len()))?;
        let commands = rest.get(vertices.len()..)?;
        Some(Input {
            fvf,
            stride,
            vertices,
            commands,
            width: 1 + u32::from(rt_sel & 15) * 3,
            height: 1 + u32::from(rt_sel >> 4) * 2,
            format: if rt_sel & 1 == 0 {
                Format::X8R8G8B8
            } else {
                Format::R5G6B5
            },
            offset: u32::from(*cmd_off) % 8,
        })
    }

    /// Bytes of every surface the run creates (render target, depth,
    /// command buffer), for the memory bound.
    pub fn surface_bytes(&self) -> usize {
        let px = (self.width * self.height) as usize;
        px * 4 * 2 + self.offset as usize + self.commands.len()
    }
}

/// What a run produced.
#[derive(Debug, PartialEq, Eq)]
pub struct Outcome {
    pub pixels: Vec<u8>,
    pub ddrval: u32,
    pub error_offset: u32,
    pub flags: u32,
    pub snapshot: String,
}

/// Runs `input` on a fresh driver with `threads` threads and SIMD on or
/// off; `length` overrides `dwCommandLength` (for prefix runs).
pub fn run(input: &Input<'_>, threads: usize, simd: bool, length: Option<u32>) -> Option<Outcome> {
    let mut driver = Driver::new(threads).ok()?;
    driver.renderer_mut().set_simd(simd);
    let rt = driver
        .create_render_target(input.format, input.width, input.height)
        .ok()?;
    let depth = driver
        .create_depth_stencil(Format::D24S8, input.width, input.height)
        .ok()?;
    let ctx = driver.context_create(rt, Some(depth)).ok()?;
    let mut buf = vec![0u8; input.offset as usize];
    buf.extend_from_slice(input.commands);
    let cb = driver.create_command_buffer_with(&buf).ok()?;
    let len = length.unwrap_or(input.commands.len() as u32);
    let mut d = DrawPrimitives2Data::new(ctx, cb, len).with_user_vertices(
        input.fvf,
        input.vertices,
        (input.vertices.len() / input.stride) as u32,
    );
    d.dw_command_offset = input.offset;
    d.ddrval = input.stride as u32;
    driver.draw_primitives2(&mut d);
    Some(Outcome {
        pixels: driver.read_rgba8(rt).ok()?,
        ddrval: d.ddrval,
        error_offset: d.dw_error_offset,
        flags: d.dw_flags,
        snapshot: normalise(
            driver.snapshot(ctx).ok()?,
            &[(rt, "RT"), (depth, "DEPTH"), (cb, "CB"), (ctx, "CTX")],
        ),
    })
}

/// Replaces handle values (which carry a per-driver salt) by names, so that
/// snapshots of two drivers compare.
pub fn normalise(mut s: String, handles: &[(u32, &str)]) -> String {
    for (h, name) in handles {
        s = s
            .replace(&format!("{h:#x}"), name)
            .replace(&h.to_string(), name);
    }
    s
}
