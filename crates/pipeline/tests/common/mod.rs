//! Shared helpers of the pipeline integration tests: vertex builders, a
//! scene runner that renders every scene under several thread counts and
//! SIMD levels (and asserts identical bytes), and the golden-image check.
//!
//! Goldens live in `testdata/goldens/pipeline/<name>.png` at the repository
//! root and are compared exactly (every scene here uses the integer colour
//! paths, so no tolerance is needed) by `softhal_testkit`. A missing or
//! different golden fails the test (a difference writes `*.actual.png` and
//! `*.diff.png` beside it); with `SOFTHAL_BLESS=1` it is (re)written
//! instead.
#![allow(dead_code)]

use softhal_pipeline::{
    Clear, ClearFlags, DrawCall, DrawStats, Format, PipelineState, PositionKind, RenderTargets,
    Renderer, SimdLevel, Surface, Topology, VertexLayout,
};

/// A pre-transformed vertex: screen x, y, z, rhw, diffuse, specular.
#[derive(Debug, Clone, Copy)]
pub struct V {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub rhw: f32,
    pub diffuse: u32,
    pub specular: u32,
}

/// Vertex at (x, y) with colour `c`, z = 0.5, rhw = 1.
pub fn v(x: f32, y: f32, c: u32) -> V {
    V {
        x,
        y,
        z: 0.5,
        rhw: 1.0,
        diffuse: c,
        specular: 0,
    }
}

/// Vertex with explicit z.
pub fn vz(x: f32, y: f32, z: f32, c: u32) -> V {
    V { z, ..v(x, y, c) }
}

/// The layout used by [`bytes`]: XYZRHW | DIFFUSE | SPECULAR.
pub fn layout() -> VertexLayout {
    VertexLayout::packed(PositionKind::Xyzrhw, true, true, &[])
}

/// Vertex bytes for [`layout`].
pub fn bytes(vs: &[V]) -> Vec<u8> {
    let mut out = Vec::with_capacity(vs.len() * 24);
    for v in vs {
        for f in [v.x, v.y, v.z, v.rhw] {
            out.extend_from_slice(&f.to_le_bytes());
        }
        out.extend_from_slice(&v.diffuse.to_le_bytes());
        out.extend_from_slice(&v.specular.to_le_bytes());
    }
    out
}

/// Render targets of one test.
pub struct Targets {
    pub color: Surface,
    pub depth: Option<Surface>,
}

impl Targets {
    pub fn new(w: u32, h: u32, color: Format, depth: Option<Format>) -> Self {
        Targets {
            color: Surface::new(color, w, h).expect("colour surface"),
            depth: depth.map(|f| Surface::new(f, w, h).expect("depth surface")),
        }
    }

    /// Clears colour to `c`, depth to `z` and stencil to `s`.
    pub fn clear(&mut self, r: &mut Renderer, c: u32, z: f32, s: u32) {
        let clear = Clear {
            flags: ClearFlags {
                target: true,
                zbuffer: true,
                stencil: true,
            },
            rects: &[],
            color: c,
            z,
            stencil: s,
        };
        r.clear(Some(&mut self.color), self.depth.as_mut(), &clear)
            .expect("clear");
    }

    /// Draws `vs` with `topology` (non-indexed).
    pub fn draw(
        &mut self,
        r: &mut Renderer,
        st: &PipelineState,
        topology: Topology,
        vs: &[V],
    ) -> DrawStats {
        let b = bytes(vs);
        let l = layout();
        let n = prim_count(topology, vs.len());
        let call = DrawCall::new(topology, &b, &l, n);
        let mut t = RenderTargets {
            color: &mut self.color,
            depth: self.depth.as_mut(),
            extra: Default::default(),
        };
        r.draw(&mut t, st, &call).expect("draw")
    }

    /// A8R8G8B8 of pixel (x, y).
    pub fn px(&self, x: u32, y: u32) -> u32 {
        self.color.read_argb(x, y).expect("pixel inside")
    }
}

/// Number of primitives `n` vertices make.
pub fn prim_count(t: Topology, n: usize) -> u32 {
    let n = n as u32;
    match t {
        Topology::PointList => n,
        Topology::LineList => n / 2,
        Topology::LineStrip => n.saturating_sub(1),
        Topology::TriangleList => n / 3,
        Topology::TriangleStrip | Topology::TriangleFan => n.saturating_sub(2),
    }
}

/// State with culling off (most tests want both windings) and depth off.
pub fn state() -> PipelineState {
    let mut st = PipelineState::default();
    st.raster.cull_mode = softhal_pipeline::CullMode::None;
    st.depth.z_enable = softhal_pipeline::ZBufferType::False;
    st
}

/// The configurations every scene is rendered with.
pub fn configs() -> Vec<(usize, SimdLevel)> {
    let mut v = Vec::new();
    for threads in [1usize, 2, 4] {
        for simd in [
            SimdLevel::Scalar,
            SimdLevel::Sse2,
            SimdLevel::Sse41,
            SimdLevel::Avx2,
        ] {
            if threads > 1 && simd != SimdLevel::Scalar && simd != SimdLevel::Avx2 {
                continue;
            }
            v.push((threads, simd));
        }
    }
    v
}

/// Renders `scene` under every configuration, asserts that colour and
/// depth bytes are identical across them, and returns the targets of the
/// first.
pub fn render_all(scene: impl Fn(&mut Renderer) -> Targets) -> Targets {
    let mut first: Option<Targets> = None;
    for (threads, simd) in configs() {
        let mut r = Renderer::new(threads).expect("renderer");
        r.set_simd_level(simd);
        let t = scene(&mut r);
        match &first {
            None => first = Some(t),
            Some(f) => {
                assert!(
                    f.color.bytes() == t.color.bytes(),
                    "colour differs at threads={threads} simd={simd:?}"
                );
                assert!(
                    f.depth.as_ref().map(Surface::bytes) == t.depth.as_ref().map(Surface::bytes),
                    "depth differs at threads={threads} simd={simd:?}"
                );
            }
        }
    }
    first.expect("at least one configuration")
}

/// Compares the colour surface with the golden
/// `testdata/goldens/pipeline/<name>.png`, exactly (tolerance 0), through
/// `softhal_testkit` (which writes `<name>.actual.png` and
/// `<name>.diff.png` beside the golden on a difference, and rewrites the
/// golden under `SOFTHAL_BLESS=1`).
pub fn check_golden(name: &str, s: &Surface) {
    let path = softhal_testkit::testdata()
        .join("goldens/pipeline")
        .join(format!("{name}.png"));
    softhal_testkit::check_golden_rgba(&path, s.width(), s.height(), &s.to_rgba8(), 0);
}

/// The shared deterministic generator (splitmix64; the sequences the
/// goldens were made with).
#[allow(unused_imports)] // like the rest of this module: not every test uses it
pub use softhal_testkit::Rng;

/// Assembles and validates Direct3D shader assembly `text` (the shader
/// tests' programs).
pub fn shader_program(text: &str) -> softhal_shader::exec::Program {
    let shader = softhal_shader::text::assemble(text).expect("assembles");
    softhal_shader::exec::Program::new(softhal_shader::validate(shader).expect("validates"))
}

/// `p`'s constants with `c0, c1, ...` = `float` (no `i#`, `b#`).
pub fn shader_constants(
    p: &softhal_shader::exec::Program,
    float: &[[f32; 4]],
) -> softhal_shader::exec::BoundConstants {
    p.bind(&softhal_shader::exec::Constants {
        float: float.to_vec(),
        ..softhal_shader::exec::Constants::default()
    })
}

/// Draws `prims` triangles of a list from the vertex bytes `bytes`
/// (`stride` bytes a vertex) with the vertex shader `vs` (its inputs
/// `inputs`, constants `vc`) and the pixel shader `ps` (constants `pc`)
/// on an 8 × 8 A8R8G8B8 target cleared to 0xFF0000FF with the viewport
/// of the whole target, under every configuration (`render_all`), and
/// asserts the draw wrote all 64 pixels.
#[allow(clippy::too_many_arguments)]
pub fn draw_shaders_8x8(
    vs: &softhal_shader::exec::Program,
    vc: &softhal_shader::exec::BoundConstants,
    inputs: &[softhal_pipeline::program::ShaderInput],
    ps: &softhal_shader::exec::Program,
    pc: &softhal_shader::exec::BoundConstants,
    bytes: &[u8],
    stride: u32,
    prims: u32,
    st: &PipelineState,
) -> Targets {
    use softhal_pipeline::program::{PixelProgram, Programs, VertexProgram};
    // Only the stride of the layout is read with a vertex shader.
    let mut layout = VertexLayout::packed(PositionKind::Xyz, false, false, &[]);
    layout.stride = stride;
    let mut st = *st;
    st.viewport.width = 8;
    st.viewport.height = 8;
    render_all(|r| {
        let mut t = Targets::new(8, 8, Format::A8R8G8B8, None);
        t.clear(r, 0xFF00_00FF, 1.0, 0);
        let call = DrawCall::new(Topology::TriangleList, bytes, &layout, prims);
        let programs = Programs {
            vertex: VertexProgram::Shader {
                program: vs,
                constants: vc,
                inputs,
                textures: [None; 4],
            },
            pixel: PixelProgram::Shader {
                program: ps,
                constants: pc,
            },
        };
        let mut rt = RenderTargets {
            color: &mut t.color,
            depth: None,
            extra: Default::default(),
        };
        let s = r
            .draw_programs(&mut rt, &st, &call, &[None; 16], &programs)
            .expect("draw");
        assert_eq!(s.pixels_written, 64);
        t
    })
}

/// A one-level `w` × `h` A8R8G8B8 2D texture holding `texels` (row by
/// row, each texel 0xAARRGGBB).
pub fn argb_texture(w: u32, h: u32, texels: &[u32]) -> softhal_pipeline::texture::Texture {
    use softhal_pipeline::texture::{Texture, TextureDesc, TextureFormat, TextureKind};
    let mut t = Texture::new(TextureDesc {
        kind: TextureKind::Texture2D,
        format: TextureFormat::A8R8G8B8,
        width: w,
        height: h,
        depth: 1,
        levels: 1,
    })
    .expect("texture");
    let bytes: Vec<u8> = texels.iter().flat_map(|c| c.to_le_bytes()).collect();
    t.upload(0, 0, &bytes, w as usize * 4).expect("upload");
    t
}
