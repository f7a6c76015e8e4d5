//! Shared helpers: a scene (driver, context, render target), vertex
//! builders, and a one-call DP2 runner over assembled streams.
#![allow(dead_code)]

use softhal_device::*;
use softhal_wire::names::codes;
use softhal_wire::text::assemble;

/// D3DFVF_XYZRHW | D3DFVF_DIFFUSE (20-byte vertices).
pub const FVF_TL: u32 = 0x44;
/// D3DFVF_XYZ | D3DFVF_DIFFUSE (16-byte vertices).
pub const FVF_L: u32 = 0x42;

/// A pre-transformed vertex.
pub fn tl(x: f32, y: f32, z: f32, color: u32) -> Vec<u8> {
    let mut v = Vec::new();
    for f in [x, y, z, 1.0] {
        v.extend_from_slice(&f.to_le_bytes());
    }
    v.extend_from_slice(&color.to_le_bytes());
    v
}

/// Vertices of a quad covering (x0, y0)–(x1, y1) as two clockwise triangles
/// (6 vertices, triangle list).
pub fn quad(x0: f32, y0: f32, x1: f32, y1: f32, z: f32, color: u32) -> Vec<u8> {
    [(x0, y0), (x1, y0), (x0, y1), (x1, y0), (x1, y1), (x0, y1)]
        .iter()
        .flat_map(|&(x, y)| tl(x, y, z, color))
        .collect()
}

/// The result of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    pub ret: u32,
    pub ddrval: u32,
    pub offset: u32,
}

impl Outcome {
    pub fn ok(self) -> Self {
        assert_eq!(self.ddrval, codes::D3D_OK, "{self:?}");
        self
    }
    pub fn unparsed_at(self, offset: u32) {
        assert_eq!(
            (self.ddrval, self.offset),
            (codes::D3DERR_COMMAND_UNPARSED, offset),
            "{self:?}"
        );
    }
}

/// The rasterizer threads of the drivers these tests create: 1, or
/// `SOFTHAL_TEST_THREADS` (so the whole suite can be run at 2 threads too;
/// every expected pixel is the same at any thread count).
pub fn test_threads() -> usize {
    std::env::var("SOFTHAL_TEST_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
}

pub struct Scene {
    pub drv: Driver,
    pub ctx: u32,
    pub rt: u32,
    pub depth: Option<u32>,
    pub w: u32,
    pub h: u32,
}

pub fn asm(src: &str) -> Vec<u8> {
    assemble(src).unwrap_or_else(|e| panic!("{e:?}\n{src}"))
}

impl Scene {
    pub fn new(w: u32, h: u32, depth: bool) -> Self {
        let mut drv = Driver::new(test_threads()).unwrap();
        let rt = drv.create_render_target(Format::A8R8G8B8, w, h).unwrap();
        let depth = depth.then(|| drv.create_depth_stencil(Format::D24S8, w, h).unwrap());
        let ctx = drv.context_create(rt, depth).unwrap();
        Scene {
            drv,
            ctx,
            rt,
            depth,
            w,
            h,
        }
    }

    /// Runs `cmds` (placed at `offset` in a fresh command buffer) with
    /// user-memory TL vertices.
    pub fn run_full(
        &mut self,
        cmds: &[u8],
        offset: u32,
        verts: &[u8],
        flags: u32,
        rstates: Option<&mut [u32; 256]>,
    ) -> Outcome {
        let mut buf = vec![0u8; offset as usize];
        buf.extend_from_slice(cmds);
        let cb = self.drv.create_command_buffer_with(&buf).unwrap();
        let mut d = DrawPrimitives2Data::new(self.ctx, cb, cmds.len() as u32).with_user_vertices(
            FVF_TL,
            verts,
            (verts.len() / 20) as u32,
        );
        d.dw_command_offset = offset;
        d.dw_flags |= flags;
        d.lpdw_r_states = rstates;
        d.ddrval = 20;
        let ret = self.drv.draw_primitives2(&mut d);
        let out = Outcome {
            ret,
            ddrval: d.ddrval,
            offset: d.dw_error_offset,
        };
        self.drv.destroy_surface(cb).unwrap();
        assert_eq!(ret, codes::DDHAL_DRIVER_HANDLED);
        out
    }

    /// Runs `src` with user-memory vertices of FVF `fvf` (`stride` bytes).
    pub fn run_fvf(&mut self, src: &str, fvf: u32, stride: u32, verts: &[u8]) -> Outcome {
        let cmds = softhal_wire::text::assemble_with(
            src,
            softhal_wire::DecodeOptions {
                vertex_stride: stride,
                base_align: 0,
            },
        )
        .unwrap_or_else(|e| panic!("{e:?}\n{src}"));
        let cb = self.drv.create_command_buffer_with(&cmds).unwrap();
        let mut d = DrawPrimitives2Data::new(self.ctx, cb, cmds.len() as u32).with_user_vertices(
            fvf,
            verts,
            verts.len() as u32 / stride,
        );
        d.ddrval = stride;
        let ret = self.drv.draw_primitives2(&mut d);
        self.drv.destroy_surface(cb).unwrap();
        assert_eq!(ret, codes::DDHAL_DRIVER_HANDLED);
        Outcome {
            ret,
            ddrval: d.ddrval,
            offset: d.dw_error_offset,
        }
    }

    pub fn run(&mut self, src: &str, verts: &[u8]) -> Outcome {
        let b = asm(src);
        self.run_full(&b, 0, verts, 0, None)
    }

    pub fn run_bytes(&mut self, cmds: &[u8], verts: &[u8]) -> Outcome {
        self.run_full(cmds, 0, verts, 0, None)
    }

    /// Pixel (x, y) of the render target as A8R8G8B8.
    pub fn px(&self, x: u32, y: u32) -> u32 {
        self.drv.image(self.rt).unwrap().read_argb(x, y).unwrap()
    }

    pub fn rt_bytes(&self) -> Vec<u8> {
        self.drv.image(self.rt).unwrap().bytes().to_vec()
    }

    /// Number of pixels equal to `argb`.
    pub fn count(&self, argb: u32) -> usize {
        let img = self.drv.image(self.rt).unwrap();
        (0..self.h)
            .flat_map(|y| (0..self.w).map(move |x| (x, y)))
            .filter(|&(x, y)| img.read_argb(x, y) == Some(argb))
            .count()
    }

    pub fn snapshot(&self) -> String {
        self.drv.snapshot(self.ctx).unwrap()
    }
}

/// D3DFVF_XYZRHW | D3DFVF_DIFFUSE | D3DFVF_SPECULAR | D3DFVF_TEX1 (32 bytes).
pub const FVF_TLT: u32 = 0x1C4;

/// A pre-transformed textured vertex.
pub fn tlt(x: f32, y: f32, color: u32, specular: u32, u: f32, v: f32) -> Vec<u8> {
    let mut out = Vec::new();
    for f in [x, y, 0.5, 1.0] {
        out.extend_from_slice(&f.to_le_bytes());
    }
    out.extend_from_slice(&color.to_le_bytes());
    out.extend_from_slice(&specular.to_le_bytes());
    out.extend_from_slice(&u.to_le_bytes());
    out.extend_from_slice(&v.to_le_bytes());
    out
}

/// A textured quad (x0, y0)–(x1, y1) with texture coordinates (0, 0)–(1, 1)
/// over it: 6 vertices, triangle list.
pub fn tquad(x0: f32, y0: f32, x1: f32, y1: f32, color: u32, specular: u32) -> Vec<u8> {
    [
        (x0, y0, 0.0, 0.0),
        (x1, y0, 1.0, 0.0),
        (x0, y1, 0.0, 1.0),
        (x1, y0, 1.0, 0.0),
        (x1, y1, 1.0, 1.0),
        (x0, y1, 0.0, 1.0),
    ]
    .iter()
    .flat_map(|&(x, y, u, v)| tlt(x, y, color, specular, u, v))
    .collect()
}

/// Standard preamble: no culling.
pub const NOCULL: &str = "RENDERSTATE { RenderState=D3DRS_CULLMODE dwState=D3DCULL_NONE }\n";

/// D3DFVF_XYZ | D3DFVF_NORMAL: 24-byte vertices.
pub const FVF_XYZN: u32 = 0x12;

pub fn lit_triangle() -> Vec<u8> {
    // A triangle covering the whole viewport (identity transforms), facing
    // the viewer (normal −z).
    [(-1.0f32, -1.0f32), (-1.0, 3.0), (3.0, -1.0)]
        .iter()
        .flat_map(|&(x, y)| {
            [x, y, 0.5, 0.0, 0.0, -1.0]
                .iter()
                .flat_map(|f| f.to_le_bytes())
                .collect::<Vec<u8>>()
        })
        .collect()
}

/// An untransformed vertex (D3DFVF_XYZ | D3DFVF_DIFFUSE, [`FVF_L`]).
pub fn xyz(x: f32, y: f32, z: f32, c: u32) -> Vec<u8> {
    let mut v: Vec<u8> = [x, y, z].iter().flat_map(|f| f.to_le_bytes()).collect();
    v.extend_from_slice(&c.to_le_bytes());
    v
}

/// Untransformed vertices ([`xyz`]) of the quad (x0, y0)–(x1, y1) at depth
/// `z`: two triangles (6 vertices, triangle list), clockwise on screen
/// under identity transforms.
pub fn xyz_quad(x0: f32, y0: f32, x1: f32, y1: f32, z: f32, c: u32) -> Vec<u8> {
    [(x0, y1), (x1, y1), (x0, y0), (x1, y1), (x1, y0), (x0, y0)]
        .iter()
        .flat_map(|&(x, y)| xyz(x, y, z, c))
        .collect()
}
