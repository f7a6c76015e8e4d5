//! `softhal demo`: renders the built-in scene through the full DP2 path.
//!
//! In: nothing but options (output path, size, threads). Out: a PNG.
//! The scene is written the way a Direct3D runtime would drive a HAL: a
//! driver, a render target and a depth buffer, a context, and several
//! `DrawPrimitives2` calls whose command buffers are written in softhal's
//! DP2 assembly language (`docs/dp2-assembly.md`) and whose vertices come
//! from user memory. Every call's `ddrval` is checked.
//!
//! What it shows: pre-transformed and untransformed geometry (world, view
//! and projection transforms, clipping), the depth buffer, culling,
//! Gouraud and flat shading; a mip-mapped, multi-textured ground (a tiled
//! A8R8G8B8 texture whose mip chain GENERATEMIPSUBLEVELS builds, times an
//! L8 light map on stage 1) fading into the horizon with linear vertex
//! fog; a lit sphere (a directional sun and a coloured point light,
//! specular highlights) wearing a palettized P8 texture whose palette comes
//! from SETPALETTE / UPDATEPALETTE; a bicubic Bézier rect patch
//! (DRAWRECTPATCH) with a DXT1 texture, lit; alpha blending and the alpha
//! test; a riveted bronze plaque lit per pixel by a ps_2_0 pixel shader
//! (a normal map, a point light's direction normalized per pixel, diffuse
//! and a Blinn-Phong highlight; created, bound and deleted with
//! CREATEPIXELSHADER / SETPIXELSHADER / DELETEPIXELSHADER, written as
//! shader assembly); a two-bone skinned tube drawn through the DirectX 8
//! vertex shader path (CREATEVERTEXSHADER with a `D3DVSD_*` declaration —
//! FLOAT3 position, FLOAT1 weight, UBYTE4 bone offsets, a D3DCOLOR-packed
//! normal, FLOAT2 (u, v), a D3DVSD_CONST — and vs_1_1 code, bound by
//! SETVERTEXSHADER with its handle, constants by SETVERTEXSHADERCONST,
//! drawn by DRAWINDEXEDPRIMITIVE from an index buffer): the shader blends
//! two bone matrices chosen with `a0` (`m4x3` from `c[a0.x + 10]`), so
//! the tube's upper half bends towards the sphere, lights it per vertex
//! from the sun's direction (`dp3`, `max`), fogs it from its depth
//! (`oFog`) and hands `oD0`/`oT0` to the fixed-function pixel pipeline,
//! which modulates a scales texture; the DX6 primitive opcodes (lists,
//! strips, fans, indexed, points, lines, `_IMM` inline vertices) and
//! clears.
//!
//! With `--capture FILE` the same calls go through a
//! `softhal_capture::Recorder`, and the picture is presented (a PRESENT
//! record with its checksum) instead of read back: `softhal render FILE`
//! replays it to the same pixels.

use softhal_capture::Recorder;
use softhal_device::{
    DeviceError, DrawPrimitives2Data, Driver, Format, LockFlags, SurfaceDesc, SurfaceKind,
};
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
    #[arg(long, default_value_t = crate::DEFAULT_THREADS, value_parser = crate::threads_arg)]
    pub threads: usize,
    /// Also record the scene as a binary capture into FILE (replayable
    /// with `softhal render FILE` to the same pixels).
    #[arg(long, value_name = "FILE")]
    pub capture: Option<PathBuf>,
}

/// What the scene is drawn on: the driver itself, or a recorder holding
/// it (which makes the same calls and records them).
trait Host {
    fn create_surface(&mut self, d: SurfaceDesc) -> Result<u32, DeviceError>;
    fn lock(&mut self, h: u32) -> Result<&mut [u8], DeviceError>;
    fn unlock(&mut self, h: u32) -> Result<(), DeviceError>;
    fn context_create(&mut self, rt: u32, depth: Option<u32>) -> Result<u32, DeviceError>;
    fn create_command_buffer_with(&mut self, bytes: &[u8]) -> Result<u32, DeviceError>;
    fn draw_primitives2(&mut self, d: &mut DrawPrimitives2Data<'_>);
    fn destroy_surface(&mut self, h: u32) -> Result<(), DeviceError>;
    /// The finished picture as RGBA8.
    fn picture(&mut self, rt: u32) -> Result<Vec<u8>, DeviceError>;
}

impl Host for Driver {
    fn create_surface(&mut self, d: SurfaceDesc) -> Result<u32, DeviceError> {
        Driver::create_surface(self, d)
    }
    fn lock(&mut self, h: u32) -> Result<&mut [u8], DeviceError> {
        Driver::lock(self, h, LockFlags::default())
    }
    fn unlock(&mut self, h: u32) -> Result<(), DeviceError> {
        Driver::unlock(self, h)
    }
    fn context_create(&mut self, rt: u32, depth: Option<u32>) -> Result<u32, DeviceError> {
        Driver::context_create(self, rt, depth)
    }
    fn create_command_buffer_with(&mut self, bytes: &[u8]) -> Result<u32, DeviceError> {
        Driver::create_command_buffer_with(self, bytes)
    }
    fn draw_primitives2(&mut self, d: &mut DrawPrimitives2Data<'_>) {
        Driver::draw_primitives2(self, d);
    }
    fn destroy_surface(&mut self, h: u32) -> Result<(), DeviceError> {
        Driver::destroy_surface(self, h)
    }
    fn picture(&mut self, rt: u32) -> Result<Vec<u8>, DeviceError> {
        self.read_rgba8(rt)
    }
}

impl<W: std::io::Write> Host for Recorder<W> {
    fn create_surface(&mut self, d: SurfaceDesc) -> Result<u32, DeviceError> {
        Recorder::create_surface(self, d)
    }
    fn lock(&mut self, h: u32) -> Result<&mut [u8], DeviceError> {
        Recorder::lock(self, h, LockFlags::default())
    }
    fn unlock(&mut self, h: u32) -> Result<(), DeviceError> {
        Recorder::unlock(self, h)
    }
    fn context_create(&mut self, rt: u32, depth: Option<u32>) -> Result<u32, DeviceError> {
        Recorder::context_create(self, rt, depth)
    }
    fn create_command_buffer_with(&mut self, bytes: &[u8]) -> Result<u32, DeviceError> {
        let n = u32::try_from(bytes.len())
            .map_err(|_| DeviceError::InvalidParams("command buffer size"))?;
        let h = self.create_command_buffer(n)?;
        Recorder::lock(self, h, LockFlags::default())?.copy_from_slice(bytes);
        Recorder::unlock(self, h)?;
        Ok(h)
    }
    fn draw_primitives2(&mut self, d: &mut DrawPrimitives2Data<'_>) {
        Recorder::draw_primitives2(self, d);
    }
    fn destroy_surface(&mut self, h: u32) -> Result<(), DeviceError> {
        Recorder::destroy_surface(self, h)
    }
    fn picture(&mut self, rt: u32) -> Result<Vec<u8>, DeviceError> {
        self.present(rt)
    }
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

/// Vertices of any FVF, built field by field.
#[derive(Default)]
struct Verts {
    bytes: Vec<u8>,
    count: u32,
}
impl Verts {
    /// Appends one vertex: `floats` then (optionally) a D3DCOLOR, then
    /// `tail` floats (texture coordinates).
    fn push(&mut self, floats: &[f32], color: Option<u32>, tail: &[f32]) -> u16 {
        let index = self.count as u16;
        for f in floats {
            self.bytes.extend_from_slice(&f.to_le_bytes());
        }
        if let Some(c) = color {
            self.bytes.extend_from_slice(&c.to_le_bytes());
        }
        for f in tail {
            self.bytes.extend_from_slice(&f.to_le_bytes());
        }
        self.count += 1;
        index
    }
}

/// The demo's textures and buffers (surface handles).
#[derive(Clone, Copy, Debug)]
struct Assets {
    /// 128² A8R8G8B8 stone tiles, full mip chain (levels 1.. generated by
    /// GENERATEMIPSUBLEVELS in the stream).
    ground: u32,
    /// 64² L8 light map: soft pools of light.
    lightmap: u32,
    /// 64² P8 marble, palette 1.
    marble: u32,
    /// 32² DXT1 banner stripes.
    banner: u32,
    /// 64² A8R8G8B8 normal map: 2 × 2 rivets on a bevelled plate.
    rivets: u32,
    /// 32² R5G6B5 scales of the skinned tube.
    scales: u32,
    /// The skinned tube's 16-bit indices (an index buffer).
    tube_indices: u32,
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

fn rot_z(a: f32) -> M4 {
    let (s, c) = a.sin_cos();
    [
        [c, s, 0.0, 0.0],
        [-s, c, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
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

/// How a call's vertices are described to the driver.
#[derive(Clone, Copy)]
enum VertexFormat {
    /// By an FVF (`dwVertexType`; the stride follows from it).
    Fvf(u32),
    /// By the DirectX 8 declaration of the bound vertex shader:
    /// `dwVertexType` 0 and the stride in `dwVertexSize`.
    Declared {
        /// Bytes per vertex.
        stride: u32,
    },
}

impl VertexFormat {
    /// `dwVertexType` and `dwVertexSize` of the call.
    fn type_and_size(self) -> Result<(u32, u32), String> {
        match self {
            VertexFormat::Fvf(fvf) => Ok((
                fvf,
                softhal_wire::fvf::vertex_stride(fvf).map_err(|e| e.to_string())?,
            )),
            VertexFormat::Declared { stride } => Ok((0, stride)),
        }
    }
}

/// One `DrawPrimitives2` call: its assembly source and its vertices.
struct Call {
    name: &'static str,
    format: VertexFormat,
    vertices: Vec<u8>,
    vertex_count: u32,
    source: String,
}

/// Builds the scene's calls for a `w × h` target.
fn scene(w: f32, h: f32, assets: &Assets) -> Vec<Call> {
    let mut calls = Vec::new();
    let horizon = h * 0.5;

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
    let s = v.push(0.0, horizon, 0.9, 0xffe3875e);
    v.push(w, horizon, 0.9, 0xffe3875e);
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
    calls.push(Call {
        name: "backdrop",
        format: VertexFormat::Fvf(FVF_TL),
        vertex_count: v.count(),
        vertices: v.0,
        source: src,
    });

    let view = translate(0.0, -0.9, 6.0);
    let projection = perspective(PI / 3.5, w / h, 0.5, 150.0);
    let camera = format!(
        "{}{}",
        transform("D3DTS_VIEW", view),
        transform("D3DTS_PROJECTION", projection)
    );
    calls.push(ground(assets, &camera));
    calls.push(sphere(assets));
    calls.push(banner(assets));
    calls.push(skinned_tube(assets, mul(view, projection)));

    // ---- 2. Solid objects: untransformed, depth-tested, culled, fogged,
    // unlit and untextured.
    let mut v = LVerts::default();
    let mut src = String::from("RENDERSTATE { RenderState=D3DRS_ZENABLE dwState=D3DZB_TRUE } { RenderState=D3DRS_ZWRITEENABLE dwState=TRUE } \
        { RenderState=D3DRS_ZFUNC dwState=D3DCMP_LESSEQUAL } { RenderState=D3DRS_CULLMODE dwState=D3DCULL_CCW } \
        { RenderState=D3DRS_CLIPPING dwState=TRUE } { RenderState=D3DRS_LIGHTING dwState=FALSE } \
        { RenderState=D3DRS_SPECULARENABLE dwState=FALSE }\n\
        TEXTURESTAGESTATE { wStage=0 TSState=D3DTSS_TEXTUREMAP dwValue=0 } { wStage=0 TSState=D3DTSS_COLOROP dwValue=D3DTOP_SELECTARG1 } \
        { wStage=0 TSState=D3DTSS_COLORARG1 dwValue=D3DTA_DIFFUSE } { wStage=0 TSState=D3DTSS_ALPHAOP dwValue=D3DTOP_SELECTARG1 } \
        { wStage=0 TSState=D3DTSS_ALPHAARG1 dwValue=D3DTA_DIFFUSE } { wStage=1 TSState=D3DTSS_COLOROP dwValue=D3DTOP_DISABLE }\n");
    src.push_str(&camera);
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
        format: VertexFormat::Fvf(FVF_L),
        vertex_count: v.count(),
        vertices: v.0,
        source: src,
    });

    // ---- 3. Glass panels (blending) and a fence (alpha test), in front.
    let mut v = TlVerts::default();
    let mut src = String::from(
        ".fvf D3DFVF_XYZRHW|D3DFVF_DIFFUSE\nRENDERSTATE { RenderState=D3DRS_ZENABLE dwState=D3DZB_TRUE } \
         { RenderState=D3DRS_FOGENABLE dwState=FALSE } { RenderState=D3DRS_ZWRITEENABLE dwState=FALSE } { RenderState=D3DRS_ALPHABLENDENABLE dwState=TRUE } \
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
        format: VertexFormat::Fvf(FVF_TL),
        vertex_count: v.count(),
        vertices: v.0,
        source: src,
    });

    // ---- 4. A riveted bronze plaque lit per pixel by a ps_2_0 shader:
    // a normal map, a point light's direction interpolated per vertex
    // and normalized per pixel, diffuse plus a Blinn-Phong highlight.
    calls.push(plaque(assets, w, h));

    // ---- 5. A badge drawn with inline (_IMM) vertices.
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
        format: VertexFormat::Fvf(FVF_TL),
        vertex_count: 0,
        vertices: Vec::new(),
        source: src,
    });
    calls
}

/// FVF `D3DFVF_XYZRHW | D3DFVF_TEX2 | D3DFVF_TEXCOORDSIZE3(1)`: 36-byte
/// pre-transformed vertices with (u, v) and a 3-component vector.
const FVF_PLAQUE: u32 = 0x4_0204;

/// The plaque's pixel shader (`plaque`; c0 albedo, c1 ambient, c3 the
/// view direction (0, 0, 1), c4 the highlight colour).
const PLAQUE_PS: &str = "    ps_2_0
    def c5, 2.0, -1.0, 24.0, 0.0
    dcl t0.xy
    dcl t1.xyz
    dcl_2d s0
    texld r0, t0, s0
    mad r0.xyz, r0, c5.x, c5.y     ; N = 2n - 1
    nrm r1.xyz, r0
    nrm r2.xyz, t1                 ; L
    dp3_sat r3.x, r1, r2           ; diffuse
    add r4.xyz, r2, c3             ; L + V
    nrm r5.xyz, r4                 ; H
    dp3_sat r3.y, r1, r5
    pow r3.z, r3.y, c5.z           ; highlight
    mad r6.xyz, c0, r3.x, c1       ; albedo * diffuse + ambient
    mad r6.xyz, c4, r3.z, r6       ; + specular
    mov r6.w, c0.w
    mov oC0, r6
";

/// The plaque: a pre-transformed quad whose ps_2_0 pixel shader decodes
/// the normal map (`texels::rivets`), normalizes the interpolated
/// tangent-space light vector (screen axes: x right, y down, z towards
/// the viewer), and adds `albedo·sat(N·L) + ambient + sat(N·H)^24·specular`
/// with H the half vector of L and the view direction (0, 0, 1).
fn plaque(a: &Assets, w: f32, h: f32) -> Call {
    let (x0, y0, x1, y1) = (w * 0.44, h * 0.74, w * 0.80, h * 0.97);
    // A point light above the plaque's upper left corner, towards the
    // viewer.
    let light = [x0 + (x1 - x0) * 0.2, y0 - h * 0.05, h * 0.18];
    let mut v = Verts::default();
    for (x, y, u, t) in [
        (x0, y0, 0.0, 0.0),
        (x1, y0, 2.0, 0.0),
        (x0, y1, 0.0, 1.0),
        (x1, y1, 2.0, 1.0),
    ] {
        let l = [light[0] - x, light[1] - y, light[2]];
        v.push(&[x, y, 0.05, 1.0], None, &[u, t, l[0], l[1], l[2]]);
    }
    let src = [
        format!(".fvf {FVF_PLAQUE:#x}\n"),
        "RENDERSTATE { RenderState=D3DRS_ZENABLE dwState=D3DZB_FALSE } { RenderState=D3DRS_FOGENABLE dwState=FALSE }\n".into(),
        format!(
            "TEXTURESTAGESTATE{}{}{}\n",
            tss(0, "TEXTUREMAP", &a.rivets.to_string()),
            tss(0, "MAGFILTER", "D3DTEXF_LINEAR"),
            tss(0, "ADDRESSU", "D3DTADDRESS_WRAP"),
        ),
        format!("CREATEPIXELSHADER {{ dwHandle=0x21 code=asm{{\n{PLAQUE_PS}}} }}\n"),
        "SETPIXELSHADER { dwHandle=0x21 }\n".into(),
        // c0 albedo, c1 ambient, c3 the view direction, c4 the highlight.
        "SETPIXELSHADERCONST { dwRegister=0 data=[0.78 0.55 0.3 1.0  0.09 0.07 0.06 0.0  \
         0.0 0.0 0.0 0.0  0.0 0.0 1.0 0.0  1.0 0.92 0.75 0.0] }\n"
            .into(),
        "TRIANGLESTRIP count=2 wVStart=0\n".into(),
        "SETPIXELSHADER { dwHandle=0 }\nDELETEPIXELSHADER { dwHandle=0x21 }\n".into(),
        "TEXTURESTAGESTATE { wStage=0 TSState=D3DTSS_TEXTUREMAP dwValue=0 }\n".into(),
    ]
    .concat();
    Call {
        name: "plaque",
        format: VertexFormat::Fvf(FVF_PLAQUE),
        vertex_count: v.count,
        vertices: v.bytes,
        source: src,
    }
}

/// FVF `D3DFVF_XYZ | D3DFVF_DIFFUSE | D3DFVF_TEX2`: 32-byte vertices.
const FVF_GROUND: u32 = 0x242;
/// FVF `D3DFVF_XYZ | D3DFVF_NORMAL | D3DFVF_TEX1`: 32-byte vertices.
const FVF_LIT: u32 = 0x112;

/// A TEXTURESTAGESTATE record in DP2 assembly.
fn tss(stage: u32, state: &str, value: &str) -> String {
    format!(" {{ wStage={stage} TSState=D3DTSS_{state} dwValue={value} }}")
}

/// The ground: a 48 × 54 plane of 16 × 16 quads, stage 0 the stone tiles
/// (anisotropic, trilinear mip-mapping over the chain GENERATEMIPSUBLEVELS
/// builds), stage 1 the light map (MODULATE2X), linear vertex fog into the
/// horizon colour. Also sets the camera.
fn ground(a: &Assets, camera: &str) -> Call {
    let mut v = Verts::default();
    let (x0, x1, z0, z1) = (-40.0f32, 40.0f32, -6.0f32, 120.0f32);
    let n = 16;
    let at = |i: usize, j: usize| {
        let x = x0 + (x1 - x0) * i as f32 / n as f32;
        let z = z0 + (z1 - z0) * j as f32 / n as f32;
        (x, z)
    };
    for j in 0..n {
        for i in 0..n {
            for (di, dj) in [(0, 0), (0, 1), (1, 1), (0, 0), (1, 1), (1, 0)] {
                let (x, z) = at(i + di, j + dj);
                // The light map spans x −24..24, z −6..48 (CLAMP beyond).
                let lu = (x + 24.0) / 48.0;
                let lv = (z + 6.0) / 54.0;
                v.push(&[x, 0.0, z], Some(0xffd8c8b8), &[x / 3.0, z / 3.0, lu, lv]);
            }
        }
    }
    let mut src = format!(
        "GENERATEMIPSUBLEVELS {{ hSurface={} Filter=D3DTEXF_LINEAR }}\n{camera}{}",
        a.ground,
        transform("D3DTS_WORLD", translate(0.0, 0.0, 0.0))
    );
    src.push_str(
        "RENDERSTATE { RenderState=D3DRS_ZENABLE dwState=D3DZB_TRUE } { RenderState=D3DRS_ZWRITEENABLE dwState=TRUE } \
         { RenderState=D3DRS_ZFUNC dwState=D3DCMP_LESSEQUAL } { RenderState=D3DRS_CULLMODE dwState=D3DCULL_NONE } \
         { RenderState=D3DRS_LIGHTING dwState=FALSE } { RenderState=D3DRS_FOGENABLE dwState=TRUE } \
         { RenderState=D3DRS_FOGCOLOR dwState=0xffe3875e } { RenderState=D3DRS_FOGTABLEMODE dwState=D3DFOG_NONE } \
         { RenderState=D3DRS_FOGVERTEXMODE dwState=D3DFOG_LINEAR } ",
    );
    src.push_str(&format!(
        "{{ RenderState=D3DRS_FOGSTART dwState={FOG_START:?} }} {{ RenderState=D3DRS_FOGEND dwState={FOG_END:?} }}\n"
    ));
    src.push_str("TEXTURESTAGESTATE");
    for (st, val) in [
        ("TEXTUREMAP", a.ground.to_string()),
        ("COLOROP", "D3DTOP_MODULATE".into()),
        ("COLORARG1", "D3DTA_TEXTURE".into()),
        ("COLORARG2", "D3DTA_DIFFUSE".into()),
        ("ALPHAOP", "D3DTOP_SELECTARG2".into()),
        ("ALPHAARG2", "D3DTA_DIFFUSE".into()),
        ("TEXCOORDINDEX", "0".into()),
        ("ADDRESSU", "D3DTADDRESS_WRAP".into()),
        ("ADDRESSV", "D3DTADDRESS_WRAP".into()),
        ("MAGFILTER", "D3DTEXF_LINEAR".into()),
        ("MINFILTER", "D3DTEXF_ANISOTROPIC".into()),
        ("MAXANISOTROPY", "4".into()),
        ("MIPFILTER", "D3DTEXF_LINEAR".into()),
    ] {
        src.push_str(&tss(0, st, &val));
    }
    for (st, val) in [
        ("TEXTUREMAP", a.lightmap.to_string()),
        ("COLOROP", "D3DTOP_MODULATE".into()),
        ("COLORARG1", "D3DTA_TEXTURE".into()),
        ("COLORARG2", "D3DTA_CURRENT".into()),
        ("ALPHAOP", "D3DTOP_SELECTARG2".into()),
        ("ALPHAARG2", "D3DTA_CURRENT".into()),
        ("TEXCOORDINDEX", "1".into()),
        ("ADDRESSU", "D3DTADDRESS_CLAMP".into()),
        ("ADDRESSV", "D3DTADDRESS_CLAMP".into()),
        ("MAGFILTER", "D3DTEXF_LINEAR".into()),
        ("MINFILTER", "D3DTEXF_LINEAR".into()),
    ] {
        src.push_str(&tss(1, st, &val));
    }
    src.push_str(&tss(2, "COLOROP", "D3DTOP_DISABLE"));
    src.push('\n');
    src.push_str(&format!("TRIANGLELIST count={} wVStart=0\n", v.count / 3));
    Call {
        name: "ground",
        format: VertexFormat::Fvf(FVF_GROUND),
        vertex_count: v.count,
        vertices: v.bytes,
        source: src,
    }
}

/// The direction the sun (the warm directional key light) shines in:
/// from the upper left, in front of the scene, into it.
const SUN_DIRECTION: [f32; 3] = [0.55, -0.6, 0.58];
/// The sun's diffuse colour (r, g, b).
const SUN_DIFFUSE: [f32; 3] = [1.0, 0.9, 0.78];
/// `D3DRS_AMBIENT` of the lit objects (A8R8G8B8).
const AMBIENT: u32 = 0xff26_2a3a;
/// The linear vertex fog of the ground and the objects: `D3DRS_FOGSTART`
/// and `D3DRS_FOGEND` (view-space depth).
const FOG_START: f32 = 7.0;
const FOG_END: f32 = 40.0;

/// The lights and material of the lit objects: a warm directional key
/// light from the upper left, a blue point light to the right.
fn lights() -> String {
    let [dx, dy, dz] = SUN_DIRECTION;
    let [r, g, b] = SUN_DIFFUSE;
    format!(
        "RENDERSTATE {{ RenderState=D3DRS_LIGHTING dwState=TRUE }} {{ RenderState=D3DRS_SPECULARENABLE dwState=TRUE }} \
         {{ RenderState=D3DRS_AMBIENT dwState={AMBIENT:#010x} }} {{ RenderState=D3DRS_NORMALIZENORMALS dwState=TRUE }} \
         {{ RenderState=D3DRS_LOCALVIEWER dwState=TRUE }} {{ RenderState=D3DRS_COLORVERTEX dwState=FALSE }}\n\
         SETMATERIAL {{ dcvDiffuse.r=1.0 dcvDiffuse.g=1.0 dcvDiffuse.b=1.0 dcvDiffuse.a=1.0 \
         dcvAmbient.r=1.0 dcvAmbient.g=1.0 dcvAmbient.b=1.0 dcvAmbient.a=1.0 \
         dcvSpecular.r=0.9 dcvSpecular.g=0.9 dcvSpecular.b=0.9 dcvSpecular.a=1.0 dvPower=28.0 }}\n\
         CREATELIGHT {{ dwIndex=0 }} {{ dwIndex=1 }}\n\
         SETLIGHT {{ dwIndex=0 light={{ dltType=DIRECTIONAL dcvDiffuse.r={r:?} dcvDiffuse.g={g:?} dcvDiffuse.b={b:?} \
         dcvSpecular.r=1.0 dcvSpecular.g=0.95 dcvSpecular.b=0.85 dvDirection.x={dx:?} dvDirection.y={dy:?} dvDirection.z={dz:?} }} }} \
         {{ dwIndex=0 dwDataType=ENABLE }}\n\
         SETLIGHT {{ dwIndex=1 light={{ dltType=POINT dcvDiffuse.r=0.25 dcvDiffuse.g=0.55 dcvDiffuse.b=1.0 \
         dcvSpecular.r=0.4 dcvSpecular.g=0.7 dcvSpecular.b=1.0 dvPosition.x=4.9 dvPosition.y=1.8 dvPosition.z=1.6 \
         dvRange=9.0 dvAttenuation0=0.2 dvAttenuation1=0.3 }} }} {{ dwIndex=1 dwDataType=ENABLE }}\n"
    )
}

/// A lit sphere wearing the palettized marble (palette 1 attached with
/// SETPALETTE and filled with UPDATEPALETTE).
fn sphere(a: &Assets) -> Call {
    let mut v = Verts::default();
    let (rings, segs) = (16usize, 32usize);
    for r in 0..=rings {
        let th = PI * r as f32 / rings as f32;
        for sg in 0..=segs {
            let ph = 2.0 * PI * sg as f32 / segs as f32;
            let n = [th.sin() * ph.cos(), th.cos(), th.sin() * ph.sin()];
            v.push(
                &[n[0], n[1], n[2], n[0], n[1], n[2]],
                None,
                &[sg as f32 / segs as f32 * 2.0, r as f32 / rings as f32],
            );
        }
    }
    let mut tris = String::new();
    for r in 0..rings {
        for sg in 0..segs {
            let i0 = r * (segs + 1) + sg;
            let (i1, i2, i3) = (i0 + 1, i0 + segs + 1, i0 + segs + 2);
            // Clockwise seen from outside.
            tris.push_str(&format!(
                " {{ wV1={i0} wV2={i1} wV3={i3} }} {{ wV1={i0} wV2={i3} wV3={i2} }}"
            ));
        }
    }
    let palette: Vec<String> = (0..256u32)
        .map(|i| {
            let t = i as f32 / 255.0;
            let c = if i > 232 {
                lerp_color(0xffe8c060, 0xfffff0c0, (t - 0.91) * 11.0)
            } else {
                lerp_color(0xff1a2a6c, 0xffdff0ff, t.powf(0.8))
            };
            // PALETTEENTRY bytes R, G, B, flags as a little-endian DWORD.
            let (r, g, b) = ((c >> 16) & 0xff, (c >> 8) & 0xff, c & 0xff);
            format!("{:#010x}", b << 16 | g << 8 | r)
        })
        .collect();
    let mut src = format!(
        "SETPALETTE {{ dwPaletteHandle=1 dwPaletteFlags=0 dwSurfaceHandle={} }}\n\
         UPDATEPALETTE {{ dwPaletteHandle=1 wStartIndex=0 }} entries=[{}]\n{}{}",
        a.marble,
        palette.join(" "),
        lights(),
        transform("D3DTS_WORLD", mul(scale(1.05), translate(3.0, 1.15, 3.4)))
    );
    src.push_str(
        "RENDERSTATE { RenderState=D3DRS_CULLMODE dwState=D3DCULL_CCW }\nTEXTURESTAGESTATE",
    );
    for (st, val) in [
        ("TEXTUREMAP", a.marble.to_string()),
        ("COLOROP", "D3DTOP_MODULATE".into()),
        ("COLORARG1", "D3DTA_TEXTURE".into()),
        ("COLORARG2", "D3DTA_DIFFUSE".into()),
        ("ALPHAOP", "D3DTOP_SELECTARG2".into()),
        ("MINFILTER", "D3DTEXF_LINEAR".into()),
        ("MIPFILTER", "D3DTEXF_NONE".into()),
        ("ADDRESSU", "D3DTADDRESS_WRAP".into()),
        ("ADDRESSV", "D3DTADDRESS_CLAMP".into()),
    ] {
        src.push_str(&tss(0, st, &val));
    }
    src.push_str(&tss(1, "COLOROP", "D3DTOP_DISABLE"));
    src.push('\n');
    src.push_str(&format!("INDEXEDTRIANGLELIST2 wVStart=0{tris}\n"));
    Call {
        name: "lit sphere",
        format: VertexFormat::Fvf(FVF_LIT),
        vertex_count: v.count,
        vertices: v.bytes,
        source: src,
    }
}

/// A waving banner: one bicubic Bézier rect patch (DRAWRECTPATCH, 16
/// segments per edge) from 4 × 4 control points in user memory, lit and
/// wearing the DXT1 stripes.
fn banner(a: &Assets) -> Call {
    let mut v = Verts::default();
    for j in 0..4 {
        for i in 0..4 {
            let (u, t) = (i as f32 / 3.0, j as f32 / 3.0);
            let x = -1.0 + 4.4 * u;
            let y = 4.6 - 2.3 * t;
            let phase = 4.2 * u + 1.1 * t;
            let z = 9.0 + 0.8 * phase.sin() * u;
            let dzdx = 0.8 * (phase.cos() * 4.2 / 4.4 * u + phase.sin() / 4.4);
            let len = (dzdx * dzdx + 1.0).sqrt();
            v.push(&[x, y, z, dzdx / len, 0.0, -1.0 / len], None, &[u, t]);
        }
    }
    let mut src = format!(
        "{}RENDERSTATE {{ RenderState=D3DRS_CULLMODE dwState=D3DCULL_NONE }} {{ RenderState=D3DRS_PATCHSEGMENTS dwState=16.0 }}\n",
        transform("D3DTS_WORLD", translate(0.0, 0.0, 0.0))
    );
    src.push_str("TEXTURESTAGESTATE");
    src.push_str(&tss(0, "TEXTUREMAP", &a.banner.to_string()));
    src.push_str(&tss(0, "ADDRESSV", "D3DTADDRESS_WRAP"));
    src.push_str(&tss(0, "MAGFILTER", "D3DTEXF_LINEAR"));
    src.push('\n');
    src.push_str(&format!(
        "SETVERTEXSHADER {{ dwHandle={FVF_LIT:#x} }}\nSETSTREAMSOURCEUM {{ dwStream=0 dwStride=32 }}\n\
         DRAWRECTPATCH {{ Handle=0 info={{ Width=4 Height=4 Stride=4 Basis=D3DBASIS_BEZIER Degree=D3DDEGREE_CUBIC }} }}\n\
         RENDERSTATE {{ RenderState=D3DRS_LIGHTING dwState=FALSE }} {{ RenderState=D3DRS_SPECULARENABLE dwState=FALSE }}\n"
    ));
    Call {
        name: "banner patch",
        format: VertexFormat::Fvf(FVF_LIT),
        vertex_count: v.count,
        vertices: v.bytes,
        source: src,
    }
}

/// The skinned tube's vertex shader (`skinned_tube`): vs_1_1 as DirectX
/// 8 wrote it, without `dcl`s (the declaration maps the registers). Two
/// bones per vertex chosen by `a0` from the vertex's UBYTE4 indices,
/// blended by its weight; per-vertex diffuse lighting from one
/// directional light; linear fog from the view depth; the texture
/// coordinates passed through. Constants: c0–c3 the view·projection
/// matrix (its columns), c4 the direction towards the light, c5 the
/// light's diffuse colour, c6 the ambient colour, c7 = (1, 0, 2, −1)
/// (from the declaration), c8 the fog line (−1/(end − start),
/// end/(end − start)), c10–c12 and c13–c15 the two bones' world matrices
/// (their first three columns).
const TUBE_VS: &str = "    vs_1_1
    mad r7.xyz, v3, c7.z, c7.w     ; N = 2n - 1 (packed in a D3DCOLOR)
    mov a0.x, v2.x                 ; the first bone's registers
    m4x3 r0.xyz, v0, c[a0.x + 10]
    m3x3 r1.xyz, r7, c[a0.x + 10]
    mov a0.x, v2.y                 ; the second bone's
    m4x3 r2.xyz, v0, c[a0.x + 10]
    m3x3 r3.xyz, r7, c[a0.x + 10]
    add r4.xyz, r0, -r2
    mad r4.xyz, r4, v1.x, r2       ; P = w P0 + (1 - w) P1
    mov r4.w, c7.x
    add r5.xyz, r1, -r3
    mad r5.xyz, r5, v1.x, r3       ; N = w N0 + (1 - w) N1
    dp3 r5.w, r5, r5
    rsq r5.w, r5.w
    mul r5.xyz, r5, r5.w           ; normalized
    m4x4 oPos, r4, c0
    dp3 r6.x, r5, c4               ; N.L
    max r6.x, r6.x, c7.y
    mad oD0.xyz, c5, r6.x, c6      ; diffuse (N.L) + ambient
    mov oD0.w, c7.x
    dp4 r6.y, r4, c3               ; clip w: the view depth
    mad oFog.x, r6.y, c8.x, c8.y   ; (end - depth) / (end - start)
    mov oT0.xy, v7
";

/// The skinned tube's DirectX 8 declaration: stream 0 holds v0 the
/// position, v1 the first bone's weight, v2 the bones' register offsets
/// (UBYTE4), v3 the normal (a D3DCOLOR, `(n + 1) / 2`), v7 (u, v); c7 a
/// constant the shader uses.
const TUBE_DECL: &str = "    D3DVSD_STREAM(0)
    D3DVSD_REG(D3DVSDE_POSITION, D3DVSDT_FLOAT3)
    D3DVSD_REG(D3DVSDE_BLENDWEIGHT, D3DVSDT_FLOAT1)
    D3DVSD_REG(D3DVSDE_BLENDINDICES, D3DVSDT_UBYTE4)
    D3DVSD_REG(D3DVSDE_NORMAL, D3DVSDT_D3DCOLOR)
    D3DVSD_REG(D3DVSDE_TEXCOORD0, D3DVSDT_FLOAT2)
    D3DVSD_CONST(7, 1)
        1.0, 0.0, 2.0, -1.0
    D3DVSD_END()
";

/// The first `count` columns of `m`, one after the other (one constant
/// register each: `dp4` of a row vector with a column gives that
/// component of the product).
fn columns(m: M4, count: usize) -> Vec<f32> {
    (0..count)
        .flat_map(|c| m.iter().map(move |row| row[c]))
        .collect()
}

/// The skinned tube: a capped tube standing behind the sphere, drawn
/// with the DirectX 8 shader path (CREATEVERTEXSHADER with a `D3DVSD_*`
/// declaration and vs_1_1 code, SETVERTEXSHADER with its handle, the
/// constants with SETVERTEXSHADERCONST, DRAWINDEXEDPRIMITIVE from user
/// memory and an index buffer). Its upper half bends towards the sphere
/// by the second bone; the fixed-function pixel pipeline modulates the
/// shader's `oD0` with the scales texture at `oT0`.
fn skinned_tube(a: &Assets, view_projection: M4) -> Call {
    let place = translate(6.9, 0.0, 8.5);
    let joint = tube::LENGTH / 2.0;
    let bend = mul(
        mul(translate(0.0, -joint, 0.0), rot_z(0.75)),
        translate(0.0, joint, 0.0),
    );
    let bones = [place, mul(bend, place)];
    let len = SUN_DIRECTION.iter().map(|c| c * c).sum::<f32>().sqrt();
    let to_light = SUN_DIRECTION.map(|c| -c / len);
    let ambient = [16, 8, 0].map(|s| ((AMBIENT >> s) & 0xff) as f32 / 255.0);
    let set = |first: u32, values: &[f32]| {
        crate::bench::shader_constants("SETVERTEXSHADERCONST", first, values)
    };
    let constants = [
        set(0, &columns(view_projection, 4)),
        set(
            4,
            &[
                to_light[0],
                to_light[1],
                to_light[2],
                0.0,
                SUN_DIFFUSE[0],
                SUN_DIFFUSE[1],
                SUN_DIFFUSE[2],
                1.0,
                ambient[0],
                ambient[1],
                ambient[2],
                0.0,
            ],
        ),
        set(
            8,
            &[
                -1.0 / (FOG_END - FOG_START),
                FOG_END / (FOG_END - FOG_START),
                0.0,
                0.0,
            ],
        ),
        set(10, &[columns(bones[0], 3), columns(bones[1], 3)].concat()),
    ]
    .concat();
    let vertices = tube::vertices();
    let count = (vertices.len() / tube::STRIDE as usize) as u32;
    let triangles = tube::indices().len() / 3;
    let src = [
        "RENDERSTATE { RenderState=D3DRS_CULLMODE dwState=D3DCULL_CCW }\nTEXTURESTAGESTATE".into(),
        tss(0, "TEXTUREMAP", &a.scales.to_string()),
        [
            ("COLOROP", "D3DTOP_MODULATE"),
            ("COLORARG1", "D3DTA_TEXTURE"),
            ("COLORARG2", "D3DTA_DIFFUSE"),
            ("ALPHAOP", "D3DTOP_SELECTARG2"),
            ("ALPHAARG2", "D3DTA_DIFFUSE"),
            ("TEXCOORDINDEX", "0"),
            ("ADDRESSU", "D3DTADDRESS_WRAP"),
            ("ADDRESSV", "D3DTADDRESS_WRAP"),
            ("MAGFILTER", "D3DTEXF_LINEAR"),
            ("MINFILTER", "D3DTEXF_LINEAR"),
            ("MIPFILTER", "D3DTEXF_NONE"),
        ]
        .map(|(st, val)| tss(0, st, val))
        .concat(),
        tss(1, "COLOROP", "D3DTOP_DISABLE"),
        "\n".into(),
        format!("CREATEVERTEXSHADER {{ dwHandle=0x30 decl=asm{{\n{TUBE_DECL}}} code=asm{{\n{TUBE_VS}}} }}\n"),
        "SETVERTEXSHADER { dwHandle=0x30 }\n".into(),
        constants,
        format!("SETSTREAMSOURCEUM {{ dwStream=0 dwStride={} }}\n", tube::STRIDE),
        format!("SETINDICES {{ dwVBHandle={} dwStride=2 }}\n", a.tube_indices),
        format!(
            "DRAWINDEXEDPRIMITIVE {{ primType=D3DPT_TRIANGLELIST BaseVertexIndex=0 MinIndex=0 \
             NumVertices={count} StartIndex=0 PrimitiveCount={triangles} }}\n"
        ),
        format!("SETVERTEXSHADER {{ dwHandle={FVF_LIT:#x} }}\nDELETEVERTEXSHADER {{ dwHandle=0x30 }}\n"),
    ]
    .concat();
    Call {
        name: "skinned tube",
        format: VertexFormat::Declared {
            stride: tube::STRIDE,
        },
        vertex_count: count,
        vertices,
        source: src,
    }
}

/// The skinned tube's mesh in its bind pose: a tube of radius `RADIUS`
/// standing on y = 0 up to `LENGTH`, capped by a hemisphere, as rings of
/// `AROUND + 1` vertices (the last repeats the first with u = 2).
mod tube {
    use std::f32::consts::PI;

    pub const LENGTH: f32 = 5.0;
    const RADIUS: f32 = 0.42;
    /// Segments around the tube.
    const AROUND: usize = 12;
    /// Rings along the straight part, and of the cap.
    const ALONG: usize = 10;
    const CAP: usize = 3;
    /// Bytes per vertex: position (3 floats), weight (1 float), bone
    /// offsets (4 bytes), normal (D3DCOLOR), (u, v).
    pub const STRIDE: u32 = 32;

    fn rings() -> usize {
        ALONG + 1 + CAP
    }

    /// The first bone's weight at height `y`: 1 below the joint's blend
    /// zone, 0 above it, a smoothstep between (the joint is at
    /// `LENGTH / 2`, the zone 1.2 high).
    fn weight(y: f32) -> f32 {
        let t = ((y - (LENGTH / 2.0 - 0.6)) / 1.2).clamp(0.0, 1.0);
        1.0 - t * t * (3.0 - 2.0 * t)
    }

    /// The vertices, `STRIDE` bytes each.
    pub fn vertices() -> Vec<u8> {
        let mut out = Vec::new();
        for k in 0..rings() {
            // Height, radius and the normal's (radial, up) parts.
            let (y, r, nr, ny) = if k <= ALONG {
                (LENGTH * k as f32 / ALONG as f32, RADIUS, 1.0, 0.0)
            } else {
                let a = PI / 2.0 * (k - ALONG) as f32 / CAP as f32;
                (
                    LENGTH + RADIUS * a.sin(),
                    RADIUS * a.cos(),
                    a.cos(),
                    a.sin(),
                )
            };
            for j in 0..=AROUND {
                let phi = 2.0 * PI * j as f32 / AROUND as f32;
                let (s, c) = phi.sin_cos();
                for f in [r * c, y, r * s, weight(y)] {
                    out.extend_from_slice(&f.to_le_bytes());
                }
                // Bone offsets: registers c[10 + 0] and c[10 + 3].
                out.extend_from_slice(&[0, 3, 0, 0]);
                let pack = |n: f32| ((n + 1.0) / 2.0 * 255.0).round() as u32;
                let normal = 0xff00_0000 | pack(nr * c) << 16 | pack(ny) << 8 | pack(nr * s);
                out.extend_from_slice(&normal.to_le_bytes());
                let (u, v) = (2.0 * j as f32 / AROUND as f32, 4.0 * y / LENGTH);
                for f in [u, v] {
                    out.extend_from_slice(&f.to_le_bytes());
                }
            }
        }
        out
    }

    /// Two triangles per quad between neighbouring rings, clockwise seen
    /// from outside (j runs to the right seen from the front).
    pub fn indices() -> Vec<u16> {
        let row = AROUND + 1;
        let mut out = Vec::new();
        for k in 0..rings() - 1 {
            for j in 0..AROUND {
                let a = (k * row + j) as u16;
                let (b, d) = (a + 1, a + row as u16);
                out.extend_from_slice(&[a, d, d + 1, a, d + 1, b]);
            }
        }
        out
    }
}

/// Texels of the demo's textures (level 0, tightly packed).
mod texels {
    /// 128² A8R8G8B8 stone tiles.
    pub fn ground() -> Vec<u8> {
        let mut out = Vec::with_capacity(128 * 128 * 4);
        for y in 0..128u32 {
            for x in 0..128u32 {
                let (tx, ty) = (x / 32, y / 32);
                let mortar = x % 32 < 2 || y % 32 < 2;
                let h = (tx * 73 + ty * 151 + 17).wrapping_mul(2_654_435_761) >> 24;
                let n = ((x * 7 + y * 13) ^ (x * y)) % 23;
                let (r, g, b) = if mortar {
                    (70, 64, 60)
                } else {
                    let base = 150 + (h % 60);
                    (base + n, base - 8 + n, base - 22 + n / 2)
                };
                out.extend_from_slice(&[b as u8, g as u8, r as u8, 255]);
            }
        }
        out
    }
    /// 64² L8 light map.
    pub fn lightmap() -> Vec<u8> {
        let blobs = [
            (0.52f32, 0.17f32, 0.10f32),
            (0.60, 0.22, 0.08),
            (0.42, 0.12, 0.07),
        ];
        let mut out = Vec::with_capacity(64 * 64);
        for y in 0..64 {
            for x in 0..64 {
                let (u, v) = ((x as f32 + 0.5) / 64.0, (y as f32 + 0.5) / 64.0);
                let mut l = 0.6f32;
                for (bx, by, r) in blobs {
                    let d2 = ((u - bx) * (u - bx) + (v - by) * (v - by)) / (r * r);
                    l += 0.4 * (-d2).exp();
                }
                out.push((l.min(1.0) * 255.0) as u8);
            }
        }
        out
    }
    /// 64² P8 marble indices.
    pub fn marble() -> Vec<u8> {
        let mut out = Vec::with_capacity(64 * 64);
        for y in 0..64 {
            for x in 0..64 {
                let (fx, fy) = (x as f32, y as f32);
                let turb = (fy * 0.19).sin() * 6.0 + (fx * 0.11 + fy * 0.07).sin() * 3.0;
                let t = ((fx * 0.2 + turb) * 0.5).sin() * 0.5 + 0.5;
                out.push((t.powf(0.6) * 255.0) as u8);
            }
        }
        out
    }
    fn rgb565(c: u32) -> u16 {
        let (r, g, b) = ((c >> 16) & 0xff, (c >> 8) & 0xff, c & 0xff);
        ((r >> 3) << 11 | (g >> 2) << 5 | (b >> 3)) as u16
    }
    /// 64² A8R8G8B8 normal map (x right, y down, z out of the surface,
    /// each as `(n + 1) / 2 · 255`): per 32 × 32 cell a hemispherical
    /// rivet of radius 10 in the middle and a bevel along the cell's
    /// edges, flat elsewhere.
    pub fn rivets() -> Vec<u8> {
        let mut out = Vec::with_capacity(64 * 64 * 4);
        for y in 0..64u32 {
            for x in 0..64u32 {
                let (cx, cy) = ((x % 32) as f32 - 15.5, (y % 32) as f32 - 15.5);
                let d = (cx * cx + cy * cy).sqrt();
                let r = 10.0f32;
                let n = if d < r {
                    [cx / r, cy / r, (1.0 - (d / r) * (d / r)).max(0.0).sqrt()]
                } else {
                    let bevel = |c: f32| {
                        if c.abs() > 13.0 {
                            c.signum() * 0.6
                        } else {
                            0.0
                        }
                    };
                    [bevel(cx), bevel(cy), 1.0]
                };
                let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
                let enc = |c: f32| ((c / len * 0.5 + 0.5) * 255.0).round().clamp(0.0, 255.0) as u32;
                let argb = 0xff00_0000 | enc(n[0]) << 16 | enc(n[1]) << 8 | enc(n[2]);
                out.extend_from_slice(&argb.to_le_bytes());
            }
        }
        out
    }

    /// 32² R5G6B5 scales: rows of overlapping round scales (offset by
    /// half a scale every other row), teal darkening towards each
    /// scale's lower rim, with a thin dark outline.
    pub fn scales() -> Vec<u8> {
        let mut out = Vec::with_capacity(32 * 32 * 2);
        for y in 0..32u32 {
            for x in 0..32u32 {
                let row = y / 8;
                let shift = if row % 2 == 1 { 4 } else { 0 };
                let (cx, cy) = (((x + shift) % 8) as f32 - 3.5, (y % 8) as f32 + 1.0);
                let d = (cx * cx + cy * cy).sqrt() / 8.0;
                let rim = (0.86..1.0).contains(&d);
                let t = d.min(1.0);
                let c = if rim {
                    0x14524a
                } else {
                    super::lerp_color(0xffc8f7d8, 0xff2f9a86, t) & 0xff_ffff
                };
                out.extend_from_slice(&rgb565(c).to_le_bytes());
            }
        }
        out
    }

    /// 32² DXT1: 8 × 8 blocks, each a vertical gradient between the two
    /// colours of its band.
    pub fn banner() -> Vec<u8> {
        let mut out = Vec::with_capacity(8 * 8 * 8);
        for by in 0..8u32 {
            for bx in 0..8u32 {
                let (a, b) = if by % 2 == 0 {
                    (0xffc01e3a, 0xffe8b440)
                } else {
                    (0xffe8b440, 0xffc01e3a)
                };
                let (a, b) = if (bx + by) % 7 == 3 {
                    (0xff202840, 0xff5060a0)
                } else {
                    (a, b)
                };
                let (c0, c1) = (rgb565(a), rgb565(b));
                // Four-colour mode needs c0 > c1; rows run c0 → c1.
                let (c0, c1, rows) = if c0 > c1 {
                    (c0, c1, [0u32, 2, 3, 1])
                } else {
                    (c1, c0, [1u32, 3, 2, 0])
                };
                let mut idx = 0u32;
                for (y, r) in rows.iter().enumerate() {
                    for x in 0..4 {
                        idx |= r << (2 * (4 * y + x));
                    }
                }
                out.extend_from_slice(&c0.to_le_bytes());
                out.extend_from_slice(&c1.to_le_bytes());
                out.extend_from_slice(&idx.to_le_bytes());
            }
        }
        out
    }
}

/// Creates and fills the demo's textures and buffers.
fn create_assets(driver: &mut impl Host) -> Result<Assets, String> {
    use softhal_pipeline::texture::TextureFormat as T;
    let mut texture = |format: T, size: u32, levels: u32, bytes: Vec<u8>| {
        let desc = SurfaceDesc::texture(format, size, size, levels);
        surface_with(driver, desc, "texture", &bytes)
    };
    let ground = texture(T::A8R8G8B8, 128, 0, texels::ground())?;
    let lightmap = texture(T::L8, 64, 1, texels::lightmap())?;
    let marble = texture(T::P8, 64, 1, texels::marble())?;
    let banner = texture(T::Dxt1, 32, 1, texels::banner())?;
    let rivets = texture(T::A8R8G8B8, 64, 1, texels::rivets())?;
    let scales = texture(T::R5G6B5, 32, 1, texels::scales())?;
    let indices: Vec<u8> = tube::indices()
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let size = u32::try_from(indices.len()).map_err(|_| "index buffer size".to_string())?;
    let desc = SurfaceDesc::buffer(SurfaceKind::IndexBuffer, size);
    let tube_indices = surface_with(driver, desc, "index buffer", &indices)?;
    Ok(Assets {
        ground,
        lightmap,
        marble,
        banner,
        rivets,
        scales,
        tube_indices,
    })
}

/// Creates a surface and fills its level 0 (all of a buffer) with
/// `bytes`, which must be exactly its size.
fn surface_with(
    driver: &mut impl Host,
    desc: SurfaceDesc,
    what: &str,
    bytes: &[u8],
) -> Result<u32, String> {
    let h = driver
        .create_surface(desc)
        .map_err(|e| format!("{what}: {e}"))?;
    let dst = driver.lock(h).map_err(|e| format!("lock {what}: {e}"))?;
    if dst.len() != bytes.len() {
        return Err(format!(
            "{what}: level 0 is {} bytes, not {}",
            dst.len(),
            bytes.len()
        ));
    }
    dst.copy_from_slice(bytes);
    driver
        .unlock(h)
        .map_err(|e| format!("unlock {what}: {e}"))?;
    Ok(h)
}

/// Renders the scene and returns the RGBA8 picture (for `demo` and tests).
pub fn render(width: u32, height: u32, threads: usize) -> Result<Vec<u8>, String> {
    let mut driver = Driver::new(threads).map_err(|e| format!("driver: {e}"))?;
    draw(&mut driver, width, height)
}

/// Renders the scene through a [`Recorder`] writing a binary capture to
/// `path`; returns the picture (presented, so the capture holds its
/// checksum).
pub fn record(
    width: u32,
    height: u32,
    threads: usize,
    path: &std::path::Path,
) -> Result<Vec<u8>, String> {
    let driver = Driver::new(threads).map_err(|e| format!("driver: {e}"))?;
    let file = std::fs::File::create(path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    let mut rec = Recorder::new(driver, std::io::BufWriter::new(file));
    let rgba = draw(&mut rec, width, height)?;
    let (_, out) = rec
        .finish()
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    out.into_inner()
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(rgba)
}

/// Draws the scene on `driver` and returns the picture.
fn draw(driver: &mut impl Host, width: u32, height: u32) -> Result<Vec<u8>, String> {
    let rt = driver
        .create_surface(SurfaceDesc::render_target(Format::X8R8G8B8, width, height))
        .map_err(|e| format!("render target: {e}"))?;
    let depth = driver
        .create_surface(SurfaceDesc::depth_stencil(Format::D24S8, width, height))
        .map_err(|e| format!("depth buffer: {e}"))?;
    let ctx = driver
        .context_create(rt, Some(depth))
        .map_err(|e| format!("context: {e}"))?;
    let assets = create_assets(driver)?;
    for call in scene(width as f32, height as f32, &assets) {
        let (vertex_type, stride) = call
            .format
            .type_and_size()
            .map_err(|e| format!("{}: {e}", call.name))?;
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
            vertex_type,
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
    driver.picture(rt).map_err(|e| format!("read back: {e}"))
}

/// `softhal demo`.
pub fn run(a: &DemoArgs) -> ExitCode {
    if a.width == 0 || a.height == 0 || a.width > 8192 || a.height > 8192 {
        eprintln!("softhal demo: --width and --height must be 1..=8192");
        return ExitCode::from(2);
    }
    let start = std::time::Instant::now();
    let rendered = match &a.capture {
        Some(path) => record(a.width, a.height, a.threads.max(1), path),
        None => render(a.width, a.height, a.threads.max(1)),
    };
    let rgba = match rendered {
        Ok(p) => p,
        Err(e) => {
            eprintln!("softhal demo: {e}");
            return ExitCode::from(1);
        }
    };
    if let Err(e) = crate::compare::write_rgba_png(&a.output, a.width, a.height, &rgba) {
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
    if let Some(path) = &a.capture {
        println!(
            "softhal demo: recorded the scene into {} (replay: softhal render {})",
            path.display(),
            path.display()
        );
    }
    ExitCode::SUCCESS
}
