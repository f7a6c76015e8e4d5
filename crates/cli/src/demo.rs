//! `softhal demo`: renders the built-in scene through the full DP2 path.
//!
//! In: nothing but options (output path, size, threads). Out: a PNG.
//! The scene is written the way a Direct3D runtime would drive a HAL: a
//! driver, a render target and a depth buffer, a context, and several
//! `DrawPrimitives2` calls whose command buffers are written in softhal's
//! DP2 assembly language (`docs/dp2-assembly.md`) and whose vertices come
//! from user memory. Every call's `ddrval` is checked.
//!
//! What it shows today: pre-transformed and untransformed geometry (world,
//! view and projection transforms, clipping), the depth buffer, culling,
//! Gouraud and flat shading, alpha blending and the alpha test, the
//! DX6 primitive opcodes (lists, strips, fans, indexed, points, lines,
//! `_IMM` inline vertices) and clears. Textures, fog and lighting join the
//! scene when the pipeline implements them.

use softhal_device::{DrawPrimitives2Data, Driver, Format};
use softhal_wire::text::assemble_with;
use softhal_wire::DecodeOptions;
use std::f32::consts::PI;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `softhal demo`.
#[derive(clap::Args, Debug)]
pub struct DemoArgs {
    /// Where to write the picture.
    #[arg(short, long, default_value = "demo.png")]
    pub output: PathBuf,
    /// Width of the render target.
    #[arg(long, default_value_t = 800)]
    pub width: u32,
    /// Height of the render target.
    #[arg(long, default_value_t = 600)]
    pub height: u32,
    /// Rasterizer threads.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
}

/// `D3DFVF_XYZRHW | D3DFVF_DIFFUSE`: 20-byte pre-transformed vertices.
const FVF_TL: u32 = 0x44;
/// `D3DFVF_XYZ | D3DFVF_DIFFUSE`: 16-byte untransformed vertices.
const FVF_L: u32 = 0x42;

/// Pre-transformed vertices: x, y, z, rhw, diffuse.
#[derive(Default)]
struct TlVerts(Vec<u8>);
impl TlVerts {
    fn push(&mut self, x: f32, y: f32, z: f32, argb: u32) -> u16 {
        let index = (self.0.len() / 20) as u16;
        for f in [x, y, z, 1.0] {
            self.0.extend_from_slice(&f.to_le_bytes());
        }
        self.0.extend_from_slice(&argb.to_le_bytes());
        index
    }
    fn count(&self) -> u32 {
        (self.0.len() / 20) as u32
    }
}

/// Untransformed vertices: x, y, z, diffuse.
#[derive(Default)]
struct LVerts(Vec<u8>);
impl LVerts {
    fn push(&mut self, p: [f32; 3], argb: u32) -> u16 {
        let index = (self.0.len() / 16) as u16;
        for f in p {
            self.0.extend_from_slice(&f.to_le_bytes());
        }
        self.0.extend_from_slice(&argb.to_le_bytes());
        index
    }
    fn count(&self) -> u32 {
        (self.0.len() / 16) as u32
    }
}

type M4 = [[f32; 4]; 4];

fn mul(a: M4, b: M4) -> M4 {
    let mut r = [[0.0; 4]; 4];
    for (i, row) in r.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = (0..4).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    r
}

fn rot_y(a: f32) -> M4 {
    let (s, c) = a.sin_cos();
    [
        [c, 0.0, -s, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [s, 0.0, c, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]
}

fn rot_x(a: f32) -> M4 {
    let (s, c) = a.sin_cos();
    [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, c, s, 0.0],
        [0.0, -s, c, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]
}

fn translate(x: f32, y: f32, z: f32) -> M4 {
    [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [x, y, z, 1.0],
    ]
}

fn scale(s: f32) -> M4 {
    [
        [s, 0.0, 0.0, 0.0],
        [0.0, s, 0.0, 0.0],
        [0.0, 0.0, s, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]
}

/// Left-handed perspective projection (D3DXMatrixPerspectiveFovLH).
fn perspective(fov_y: f32, aspect: f32, zn: f32, zf: f32) -> M4 {
    let h = 1.0 / (fov_y / 2.0).tan();
    let w = h / aspect;
    let q = zf / (zf - zn);
    [
        [w, 0.0, 0.0, 0.0],
        [0.0, h, 0.0, 0.0],
        [0.0, 0.0, q, 1.0],
        [0.0, 0.0, -q * zn, 0.0],
    ]
}

/// The text form of a SETTRANSFORM record.
fn transform(kind: &str, m: M4) -> String {
    let mut s = format!("SETTRANSFORM {{ xfrmType={kind}");
    for (r, row) in m.iter().enumerate() {
        for (c, v) in row.iter().enumerate() {
            s.push_str(&format!(" _{}{}={v:?}", r + 1, c + 1));
        }
    }
    s.push_str(" }\n");
    s
}

fn lerp_color(a: u32, b: u32, t: f32) -> u32 {
    let ch = |c: u32, s: u32| ((c >> s) & 0xFF) as f32;
    let mix = |s: u32| {
        ((ch(a, s) + (ch(b, s) - ch(a, s)) * t)
            .round()
            .clamp(0.0, 255.0) as u32)
            << s
    };
    mix(24) | mix(16) | mix(8) | mix(0)
}

/// A splitmix64 stream, so the picture is the same on every run.
struct Rng(u64);
impl Rng {
    fn next_f32(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// One `DrawPrimitives2` call: its assembly source and its vertices.
struct Call {
    name: &'static str,
    fvf: u32,
    vertices: Vec<u8>,
    vertex_count: u32,
    source: String,
}

/// Builds the scene's calls for a `w × h` target.
fn scene(w: f32, h: f32) -> Vec<Call> {
    let mut calls = Vec::new();
    let horizon = h * 0.62;

    // ---- 1. Sky, sun, stars, ground and its grid: pre-transformed.
    let mut v = TlVerts::default();
    let mut src = String::from(".fvf D3DFVF_XYZRHW|D3DFVF_DIFFUSE\n");
    src.push_str(&format!(
        "VIEWPORTINFO {{ dwX=0 dwY=0 dwWidth={w} dwHeight={h} }}\nZRANGE {{ dvMinZ=0.0 dvMaxZ=1.0 }}\n"
    ));
    src.push_str(&format!(
        "CLEAR {{ dwFlags=D3DCLEAR_TARGET|D3DCLEAR_ZBUFFER|D3DCLEAR_STENCIL dwFillColor=0xff101830 dvFillDepth=1.0 }} {{ left=0 top=0 right={w} bottom={h} }}\n"
    ));
    src.push_str(
        "RENDERSTATE { RenderState=D3DRS_ZENABLE dwState=D3DZB_FALSE } { RenderState=D3DRS_CULLMODE dwState=D3DCULL_NONE } \
         { RenderState=D3DRS_SHADEMODE dwState=D3DSHADE_GOURAUD } { RenderState=D3DRS_ALPHABLENDENABLE dwState=FALSE }\n",
    );
    // Sky gradient.
    let s = v.push(0.0, 0.0, 0.9, 0xff0b1236);
    v.push(w, 0.0, 0.9, 0xff1d1a4a);
    v.push(0.0, horizon, 0.9, 0xffd9735a);
    v.push(w, horizon, 0.9, 0xfff2a25e);
    src.push_str(&format!("TRIANGLESTRIP count=2 wVStart={s}\n"));
    // Ground gradient.
    let s = v.push(0.0, horizon, 0.9, 0xff20303a);
    v.push(w, horizon, 0.9, 0xff283848);
    v.push(0.0, h, 0.9, 0xff0a1418);
    v.push(w, h, 0.9, 0xff0e1a22);
    src.push_str(&format!("TRIANGLESTRIP count=2 wVStart={s}\n"));
    // Stars: points.
    let mut rng = Rng(0x5EED_0DE0);
    let s = v.push(0.0, 0.0, 0.9, 0);
    let mut stars = 0u16;
    for _ in 0..220 {
        let (x, y) = (rng.next_f32() * w, rng.next_f32() * horizon * 0.7);
        let b = 150 + (rng.next_f32() * 105.0) as u32;
        v.push(
            x.floor(),
            y.floor(),
            0.9,
            0xff00_0000 | b << 16 | b << 8 | (b.min(235) + 20),
        );
        stars += 1;
    }
    src.push_str(&format!("POINTS {{ wCount={stars} wVStart={} }}\n", s + 1));
    // Sun: a blended fan glowing into the sky.
    src.push_str(
        "RENDERSTATE { RenderState=D3DRS_ALPHABLENDENABLE dwState=TRUE } { RenderState=D3DRS_SRCBLEND dwState=D3DBLEND_SRCALPHA } \
         { RenderState=D3DRS_DESTBLEND dwState=D3DBLEND_INVSRCALPHA }\n",
    );
    let (cx, cy, r) = (w * 0.72, horizon - h * 0.08, h * 0.16);
    let s = v.push(cx, cy, 0.9, 0xfffff4c8);
    let rim = 48;
    for i in 0..=rim {
        let a = i as f32 / rim as f32 * 2.0 * PI;
        v.push(cx + r * a.cos(), cy + r * a.sin(), 0.9, 0x00ff9a50);
    }
    src.push_str(&format!("TRIANGLEFAN count={rim} wVStart={s}\n"));
    src.push_str("RENDERSTATE { RenderState=D3DRS_ALPHABLENDENABLE dwState=FALSE }\n");
    // Ground grid: lines converging on the vanishing point.
    let s = v.push(0.0, 0.0, 0.9, 0);
    let mut lines = 0u16;
    let vp = w * 0.5;
    for i in -12i32..=12 {
        let x = vp + i as f32 * w * 0.09;
        v.push(vp + (x - vp) * 0.02, horizon + 1.0, 0.9, 0xff3a5a70);
        v.push(x, h - 1.0, 0.9, 0xff4f8fb0);
        lines += 1;
    }
    for j in 1..9 {
        let t = (j as f32 / 9.0).powf(2.2);
        let y = horizon + (h - horizon) * t;
        v.push(0.0, y, 0.9, 0xff2f4a5c);
        v.push(w - 1.0, y, 0.9, 0xff2f4a5c);
        lines += 1;
    }
    src.push_str(&format!("LINELIST count={lines} wVStart={}\n", s + 1));
    calls.push(Call {
        name: "backdrop",
        fvf: FVF_TL,
        vertex_count: v.count(),
        vertices: v.0,
        source: src,
    });

    // ---- 2. Solid objects: untransformed, depth-tested, culled.
    let mut v = LVerts::default();
    let mut src = String::from("RENDERSTATE { RenderState=D3DRS_ZENABLE dwState=D3DZB_TRUE } { RenderState=D3DRS_ZWRITEENABLE dwState=TRUE } \
        { RenderState=D3DRS_ZFUNC dwState=D3DCMP_LESSEQUAL } { RenderState=D3DRS_CULLMODE dwState=D3DCULL_CCW } \
        { RenderState=D3DRS_CLIPPING dwState=TRUE } { RenderState=D3DRS_LIGHTING dwState=FALSE }\n");
    let view = translate(0.0, -0.9, 6.0);
    src.push_str(&transform("D3DTS_VIEW", view));
    src.push_str(&transform(
        "D3DTS_PROJECTION",
        perspective(PI / 3.5, w / h, 0.5, 50.0),
    ));
    // A cube with a colour per corner (Gouraud).
    let corners = [
        ([-1.0, -1.0, -1.0], 0xffe6453c),
        ([1.0, -1.0, -1.0], 0xfff2b134),
        ([1.0, 1.0, -1.0], 0xfff7e05a),
        ([-1.0, 1.0, -1.0], 0xffe8783a),
        ([-1.0, -1.0, 1.0], 0xff6e2f9e),
        ([1.0, -1.0, 1.0], 0xff2f76c9),
        ([1.0, 1.0, 1.0], 0xff46c2d6),
        ([-1.0, 1.0, 1.0], 0xffc0499a),
    ];
    let base = v.push(corners[0].0, corners[0].1);
    for (p, c) in &corners[1..] {
        v.push(*p, *c);
    }
    // Faces wound clockwise seen from outside (D3D's front faces).
    let faces = [
        [0, 3, 2, 1],
        [4, 5, 6, 7],
        [0, 4, 7, 3],
        [1, 2, 6, 5],
        [3, 7, 6, 2],
        [0, 1, 5, 4],
    ];
    let mut tris = String::new();
    for f in faces {
        tris.push_str(&format!(
            " {{ wV1={} wV2={} wV3={} }} {{ wV1={} wV2={} wV3={} }}",
            f[0], f[1], f[2], f[0], f[2], f[3]
        ));
    }
    src.push_str(&transform(
        "D3DTS_WORLD",
        mul(mul(rot_y(0.7), rot_x(-0.45)), translate(-1.6, 1.2, 0.5)),
    ));
    src.push_str(&format!("INDEXEDTRIANGLELIST2 wVStart={base}{tris}\n"));
    // A second, smaller cube, flat-shaded.
    src.push_str("RENDERSTATE { RenderState=D3DRS_SHADEMODE dwState=D3DSHADE_FLAT }\n");
    src.push_str(&transform(
        "D3DTS_WORLD",
        mul(mul(scale(0.55), rot_y(-0.5)), translate(2.3, 0.55, -0.6)),
    ));
    src.push_str(&format!("INDEXEDTRIANGLELIST2 wVStart={base}{tris}\n"));
    src.push_str("RENDERSTATE { RenderState=D3DRS_SHADEMODE dwState=D3DSHADE_GOURAUD }\n");
    // A pyramid: an indexed fan for the sides.
    let apex = v.push([0.0, 1.6, 0.0], 0xfffff0b0);
    let ring = [
        ([-1.0, 0.0, -1.0], 0xff2a9d8f),
        ([1.0, 0.0, -1.0], 0xff1f6f8b),
        ([1.0, 0.0, 1.0], 0xff2a9d8f),
        ([-1.0, 0.0, 1.0], 0xff1f6f8b),
    ];
    for (p, c) in ring {
        v.push(p, c);
    }
    src.push_str(&transform(
        "D3DTS_WORLD",
        mul(rot_y(0.35), translate(0.6, 0.0, 1.8)),
    ));
    src.push_str(&format!(
        "INDEXEDTRIANGLEFAN count=4 wVStart={apex} indices=[0 1 2 3 4 1]\n"
    ));
    // A wavy ribbon: a triangle strip that bends through the scene.
    let first = v.push([0.0, 0.0, 0.0], 0);
    let segs = 40;
    for i in 0..=segs {
        let t = i as f32 / segs as f32;
        let x = -4.0 + 8.0 * t;
        let y = 0.25 + 0.25 * (t * 3.0 * PI).sin();
        let c = lerp_color(0xff7b2cbf, 0xff4cc9f0, t);
        v.push([x, y, -1.4], c);
        v.push([x, y + 0.22, -1.6], lerp_color(c, 0xffffffff, 0.35));
    }
    src.push_str(&transform("D3DTS_WORLD", translate(0.0, 0.0, 0.0)));
    src.push_str("RENDERSTATE { RenderState=D3DRS_CULLMODE dwState=D3DCULL_NONE }\n");
    src.push_str(&format!(
        "TRIANGLESTRIP count={} wVStart={}\n",
        2 * segs,
        first + 1
    ));
    calls.push(Call {
        name: "objects",
        fvf: FVF_L,
        vertex_count: v.count(),
        vertices: v.0,
        source: src,
    });

    // ---- 3. Glass panels (blending) and a fence (alpha test), in front.
    let mut v = TlVerts::default();
    let mut src = String::from(
        ".fvf D3DFVF_XYZRHW|D3DFVF_DIFFUSE\nRENDERSTATE { RenderState=D3DRS_ZENABLE dwState=D3DZB_TRUE } \
         { RenderState=D3DRS_ZWRITEENABLE dwState=FALSE } { RenderState=D3DRS_ALPHABLENDENABLE dwState=TRUE } \
         { RenderState=D3DRS_SRCBLEND dwState=D3DBLEND_SRCALPHA } { RenderState=D3DRS_DESTBLEND dwState=D3DBLEND_INVSRCALPHA }\n",
    );
    let panels = [
        (0.08, 0.12, 0x80ff4d6d),
        (0.16, 0.2, 0x804dd0ff),
        (0.24, 0.08, 0x80b6ff4d),
    ];
    for (i, (px, py, c)) in panels.iter().enumerate() {
        let (x0, y0) = (w * px, h * py);
        let (x1, y1) = (x0 + w * 0.16, y0 + h * 0.2);
        let z = 0.05 + 0.01 * i as f32;
        let s = v.push(x0, y0, z, *c);
        v.push(x1, y0, z, *c);
        v.push(x0, y1, z, lerp_color(*c, 0x20ffffff, 0.5));
        v.push(x1, y1, z, lerp_color(*c, 0x20ffffff, 0.5));
        src.push_str(&format!("TRIANGLESTRIP count=2 wVStart={s}\n"));
    }
    // The fence: vertex alpha ramps 0 → 255 → 0 across each picket, and the
    // alpha test keeps the middle half: crisp edges from smooth alpha.
    src.push_str(
        "RENDERSTATE { RenderState=D3DRS_ALPHABLENDENABLE dwState=FALSE } { RenderState=D3DRS_ZWRITEENABLE dwState=TRUE } \
         { RenderState=D3DRS_ALPHATESTENABLE dwState=TRUE } { RenderState=D3DRS_ALPHAFUNC dwState=D3DCMP_GREATER } \
         { RenderState=D3DRS_ALPHAREF dwState=0x80 }\n",
    );
    let s = v.push(0.0, 0.0, 0.0, 0);
    let pickets = 14;
    let (fy0, fy1) = (h * 0.78, h * 0.97);
    for i in 0..pickets {
        let x = w * 0.02 + i as f32 * w * 0.028;
        let pw = w * 0.024;
        for (k, (dx, a)) in [(0.0, 0x00u32), (pw * 0.5, 0xff), (pw, 0x00)]
            .iter()
            .enumerate()
        {
            let wood = if k == 1 { 0xd8b48a } else { 0x8a6a4a };
            v.push(
                x + dx,
                fy0 - (if k == 1 { h * 0.03 } else { 0.0 }),
                0.02,
                a << 24 | wood,
            );
            v.push(x + dx, fy1, 0.02, a << 24 | wood);
        }
    }
    for i in 0..pickets {
        let first = s + 1 + (i * 6) as u16;
        src.push_str(&format!("TRIANGLESTRIP count=4 wVStart={first}\n"));
    }
    src.push_str("RENDERSTATE { RenderState=D3DRS_ALPHATESTENABLE dwState=FALSE }\n");
    calls.push(Call {
        name: "glass and fence",
        fvf: FVF_TL,
        vertex_count: v.count(),
        vertices: v.0,
        source: src,
    });

    // ---- 4. A badge drawn with inline (_IMM) vertices.
    let mut badge = TlVerts::default();
    let (bx, by, br) = (w * 0.9, h * 0.86, h * 0.07);
    badge.push(bx, by, 0.01, 0xffffffff);
    for i in 0..=6 {
        let a = i as f32 / 6.0 * 2.0 * PI + PI / 6.0;
        badge.push(
            bx + br * a.cos(),
            by + br * a.sin(),
            0.01,
            lerp_color(0xff2ec4b6, 0xffe71d36, i as f32 / 6.0),
        );
    }
    let mut outline = TlVerts::default();
    for i in 0..6 {
        for k in [i, i + 1] {
            let a = k as f32 / 6.0 * 2.0 * PI + PI / 6.0;
            outline.push(
                bx + br * 1.12 * a.cos(),
                by + br * 1.12 * a.sin(),
                0.01,
                0xfff8f8f8,
            );
        }
    }
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let src = format!(
        ".fvf D3DFVF_XYZRHW|D3DFVF_DIFFUSE\nRENDERSTATE {{ RenderState=D3DRS_ZENABLE dwState=D3DZB_FALSE }}\n\
         TRIANGLEFAN_IMM count=6 dwEdgeFlags=0xff vertices=hex:{}\nLINELIST_IMM count=6 vertices=hex:{}\n",
        hex(&badge.0),
        hex(&outline.0)
    );
    calls.push(Call {
        name: "badge",
        fvf: FVF_TL,
        vertex_count: 0,
        vertices: Vec::new(),
        source: src,
    });
    calls
}

/// Renders the scene and returns the RGBA8 picture (for `demo` and tests).
pub fn render(width: u32, height: u32, threads: usize) -> Result<Vec<u8>, String> {
    let mut driver = Driver::new(threads).map_err(|e| format!("driver: {e}"))?;
    let rt = driver
        .create_render_target(Format::X8R8G8B8, width, height)
        .map_err(|e| format!("render target: {e}"))?;
    let depth = driver
        .create_depth_stencil(Format::D24S8, width, height)
        .map_err(|e| format!("depth buffer: {e}"))?;
    let ctx = driver
        .context_create(rt, Some(depth))
        .map_err(|e| format!("context: {e}"))?;
    for call in scene(width as f32, height as f32) {
        let stride = softhal_wire::fvf::vertex_stride(call.fvf).map_err(|e| e.to_string())?;
        let opts = DecodeOptions {
            vertex_stride: stride,
            base_align: 0,
        };
        let commands =
            assemble_with(&call.source, opts).map_err(|e| format!("{}: {e}", call.name))?;
        let cb = driver
            .create_command_buffer_with(&commands)
            .map_err(|e| format!("{}: {e}", call.name))?;
        let mut d = DrawPrimitives2Data::new(ctx, cb, commands.len() as u32).with_user_vertices(
            call.fvf,
            &call.vertices,
            call.vertex_count,
        );
        d.ddrval = stride; // dwVertexSize, read by the driver before it writes ddrval
        driver.draw_primitives2(&mut d);
        if d.ddrval != 0 {
            let name = softhal_wire::names::codes::hresult_name(d.ddrval).unwrap_or("?");
            return Err(format!(
                "{}: DrawPrimitives2 failed with {name} ({:#010x}) at command offset {}",
                call.name, d.ddrval, d.dw_error_offset
            ));
        }
        driver.destroy_surface(cb).map_err(|e| e.to_string())?;
    }
    driver.read_rgba8(rt).map_err(|e| format!("read back: {e}"))
}

/// `softhal demo`.
pub fn run(a: &DemoArgs) -> ExitCode {
    if a.width == 0 || a.height == 0 || a.width > 8192 || a.height > 8192 {
        eprintln!("softhal demo: --width and --height must be 1..=8192");
        return ExitCode::from(2);
    }
    let start = std::time::Instant::now();
    let rgba = match render(a.width, a.height, a.threads.max(1)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("softhal demo: {e}");
            return ExitCode::from(1);
        }
    };
    if let Err(e) = write_png(&a.output, a.width, a.height, &rgba) {
        eprintln!("softhal demo: cannot write {}: {e}", a.output.display());
        return ExitCode::from(2);
    }
    println!(
        "softhal demo: wrote {} ({}x{}) in {:.0} ms",
        a.output.display(),
        a.width,
        a.height,
        start.elapsed().as_secs_f64() * 1000.0
    );
    ExitCode::SUCCESS
}

/// Writes RGBA8 pixels as a PNG.
pub fn write_png(
    path: &std::path::Path,
    width: u32,
    height: u32,
    rgba: &[u8],
) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(|e| e.to_string())?;
    w.write_image_data(rgba).map_err(|e| e.to_string())
}
