//! The W1–W6 workloads as real DP2 streams through `DrawPrimitives2`.
//!
//! In: a workload's mesh (static vertex data, FVF 0x1C4 = XYZRHW | DIFFUSE |
//! SPECULAR | TEX1, 32 bytes) and its raster state. Out: frames rendered the
//! way a DX8+ runtime drives a HAL: the vertices live in a vertex-buffer
//! surface created and filled once (the GL harness's static VBO); each frame
//! is one `DrawPrimitives2` call whose command buffer (built once) holds a
//! CLEAR of colour, depth and stencil, the render states, SETVERTEXSHADER
//! (the FVF), SETSTREAMSOURCE and one DRAWPRIMITIVE of all the primitives.
//! W3/W4 add a texture surface (created and filled once, like the GL
//! harness's texture object) bound with TEXTURESTAGESTATE TEXTUREMAP and
//! the stage/sampler states, W4 blending, W5 fog: all as DP2 commands.
//! The difference from the pipeline path is the DP2 overhead the issue
//! bounds (decode, validation, state translation, range checks).

use crate::workloads::{Mesh, HEIGHT, WIDTH};
use softhal_device::{DrawPrimitives2Data, Driver, Format};
use softhal_pipeline::Topology;
use softhal_wire::text::assemble;
use std::time::{Duration, Instant};

/// The FVF of every workload vertex.
pub const WORKLOAD_FVF: u32 = 0x1C4;

/// A driver, a render target, a depth buffer and one prepared DP2 call.
pub struct Dp2Rig {
    driver: Driver,
    ctx: u32,
    rt: u32,
    commands: u32,
    command_length: u32,
    simd: String,
}

/// The D3DPRIMITIVETYPE name of a topology.
fn prim_type(t: Topology) -> &'static str {
    match t {
        Topology::PointList => "D3DPT_POINTLIST",
        Topology::LineList => "D3DPT_LINELIST",
        Topology::LineStrip => "D3DPT_LINESTRIP",
        Topology::TriangleList => "D3DPT_TRIANGLELIST",
        Topology::TriangleStrip => "D3DPT_TRIANGLESTRIP",
        Topology::TriangleFan => "D3DPT_TRIANGLEFAN",
    }
}

/// The render states of a workload, in DP2 assembly (`z`: the depth test,
/// `None` = off).
pub fn states_source(z: Option<&str>) -> String {
    let zs = match z {
        Some(func) => format!(
            "{{ RenderState=D3DRS_ZENABLE dwState=D3DZB_TRUE }} {{ RenderState=D3DRS_ZFUNC dwState={func} }}"
        ),
        None => "{ RenderState=D3DRS_ZENABLE dwState=D3DZB_FALSE }".to_string(),
    };
    format!(
        "RENDERSTATE {zs} {{ RenderState=D3DRS_ZWRITEENABLE dwState=TRUE }} \
         {{ RenderState=D3DRS_CULLMODE dwState=D3DCULL_NONE }} {{ RenderState=D3DRS_SHADEMODE dwState=D3DSHADE_GOURAUD }} \
         {{ RenderState=D3DRS_LASTPIXEL dwState=FALSE }} {{ RenderState=D3DRS_ALPHABLENDENABLE dwState=FALSE }} \
         {{ RenderState=D3DRS_ALPHATESTENABLE dwState=FALSE }} {{ RenderState=D3DRS_STENCILENABLE dwState=FALSE }} \
         {{ RenderState=D3DRS_DITHERENABLE dwState=FALSE }} {{ RenderState=D3DRS_LIGHTING dwState=FALSE }} \
         {{ RenderState=D3DRS_FOGENABLE dwState=FALSE }} {{ RenderState=D3DRS_SPECULARENABLE dwState=FALSE }}\n"
    )
}

/// What a workload adds to the base state (W3–W5).
#[derive(Debug, Clone, Copy, Default)]
pub struct Extras<'t> {
    /// The 256 × 256 A8R8G8B8 texture of W3/W4 (D3DCOLOR texels, row-major),
    /// bound to stage 0 with MODULATE(TEXTURE, DIFFUSE), bilinear, WRAP.
    pub texture: Option<&'t [u32]>,
    /// W4: SRCALPHA / INVSRCALPHA blending.
    pub blend: bool,
    /// W5: vertex fog from the specular alpha, this fog colour.
    pub fog_color: Option<u32>,
}

/// Stage 0 of W3/W4 in DP2 assembly, sampling texture `handle`.
fn texture_source(handle: u32) -> String {
    let t = |state: &str, value: &str| format!("{{ wStage=0 TSState={state} dwValue={value} }}");
    [
        "TEXTURESTAGESTATE".to_string(),
        t("D3DTSS_TEXTUREMAP", &handle.to_string()),
        t("D3DTSS_COLOROP", "D3DTOP_MODULATE"),
        t("D3DTSS_COLORARG1", "D3DTA_TEXTURE"),
        t("D3DTSS_COLORARG2", "D3DTA_DIFFUSE"),
        t("D3DTSS_ALPHAOP", "D3DTOP_MODULATE"),
        t("D3DTSS_ALPHAARG1", "D3DTA_TEXTURE"),
        t("D3DTSS_ALPHAARG2", "D3DTA_DIFFUSE"),
        t("D3DTSS_MAGFILTER", "D3DTEXF_LINEAR"),
        t("D3DTSS_MINFILTER", "D3DTEXF_LINEAR"),
        t("D3DTSS_MIPFILTER", "D3DTEXF_NONE"),
        t("D3DTSS_ADDRESSU", "D3DTADDRESS_WRAP"),
        t("D3DTSS_ADDRESSV", "D3DTADDRESS_WRAP"),
        "\n".to_string(),
    ]
    .join(" ")
}

impl Dp2Rig {
    /// Prepares the driver for `mesh` with `threads` rasterizer threads.
    pub fn new(
        mesh: &Mesh,
        z: Option<&str>,
        extras: Extras<'_>,
        threads: usize,
        simd: bool,
    ) -> Result<Self, String> {
        let e = |what: &str| {
            let what = what.to_string();
            move |err: softhal_device::DeviceError| format!("{what}: {err}")
        };
        let mut driver = Driver::new(threads).map_err(e("driver"))?;
        // A benchmark measures; a GPU timeout stopping a slow frame would
        // change what is measured.
        driver.set_gpu_timeout(None);
        driver.renderer_mut().set_simd(simd);
        let simd = format!("{:?}", driver.renderer_mut().simd_level());
        let rt = driver
            .create_render_target(Format::A8R8G8B8, WIDTH, HEIGHT)
            .map_err(e("render target"))?;
        let depth = driver
            .create_depth_stencil(Format::D24S8, WIDTH, HEIGHT)
            .map_err(e("depth"))?;
        let ctx = driver
            .context_create(rt, Some(depth))
            .map_err(e("context"))?;
        let bytes = u32::try_from(mesh.vertices.len()).map_err(|_| "mesh too large")?;
        let vb = driver
            .create_vertex_buffer(bytes, false)
            .map_err(e("vertex buffer"))?;
        driver
            .lock(vb, softhal_device::LockFlags::default())
            .map_err(e("lock"))?
            .copy_from_slice(&mesh.vertices);
        driver.unlock(vb).map_err(e("unlock"))?;
        let mut extra = String::new();
        if let Some(texels) = extras.texture {
            let tex = driver
                .create_texture(Format::A8R8G8B8, 256, 256, 1)
                .map_err(e("texture"))?;
            let bytes: Vec<u8> = texels.iter().flat_map(|t| t.to_le_bytes()).collect();
            let dst = driver
                .lock(tex, softhal_device::LockFlags::default())
                .map_err(e("lock texture"))?;
            if dst.len() != bytes.len() {
                return Err("W3 texture size".into());
            }
            dst.copy_from_slice(&bytes);
            driver.unlock(tex).map_err(e("unlock texture"))?;
            extra.push_str(&texture_source(tex));
        }
        if extras.blend {
            extra.push_str(
                "RENDERSTATE { RenderState=D3DRS_ALPHABLENDENABLE dwState=TRUE } \
                 { RenderState=D3DRS_SRCBLEND dwState=D3DBLEND_SRCALPHA } \
                 { RenderState=D3DRS_DESTBLEND dwState=D3DBLEND_INVSRCALPHA }\n",
            );
        }
        if let Some(c) = extras.fog_color {
            extra.push_str(&format!(
                "RENDERSTATE {{ RenderState=D3DRS_FOGENABLE dwState=TRUE }} \
                 {{ RenderState=D3DRS_FOGCOLOR dwState={c:#010x} }} \
                 {{ RenderState=D3DRS_FOGTABLEMODE dwState=D3DFOG_NONE }} \
                 {{ RenderState=D3DRS_FOGVERTEXMODE dwState=D3DFOG_NONE }}\n"
            ));
        }
        let source = format!(
            "VIEWPORTINFO {{ dwX=0 dwY=0 dwWidth={WIDTH} dwHeight={HEIGHT} }}\n\
             ZRANGE {{ dvMinZ=0.0 dvMaxZ=1.0 }}\n\
             CLEAR {{ dwFlags=D3DCLEAR_TARGET|D3DCLEAR_ZBUFFER|D3DCLEAR_STENCIL dwFillColor=0xff000000 dvFillDepth=1.0 }} {{ left=0 top=0 right={WIDTH} bottom={HEIGHT} }}\n\
             {}{extra}\
             SETVERTEXSHADER {{ dwHandle={WORKLOAD_FVF:#x} }}\n\
             SETSTREAMSOURCE {{ dwStream=0 dwVBHandle={vb} dwStride=32 }}\n\
             DRAWPRIMITIVE {{ primType={} VStart=0 PrimitiveCount={} }}\n",
            states_source(z),
            prim_type(mesh.topology),
            mesh.primitive_count
        );
        let cmds = assemble(&source).map_err(|err| format!("workload stream: {err}"))?;
        let command_length = u32::try_from(cmds.len()).map_err(|_| "stream too large")?;
        let commands = driver
            .create_command_buffer_with(&cmds)
            .map_err(e("command buffer"))?;
        Ok(Dp2Rig {
            driver,
            ctx,
            rt,
            commands,
            command_length,
            simd,
        })
    }

    /// One frame: one `DrawPrimitives2` call.
    pub fn frame(&mut self) -> Result<(), String> {
        let mut d = DrawPrimitives2Data::new(self.ctx, self.commands, self.command_length);
        d.dw_vertex_type = WORKLOAD_FVF;
        self.driver.draw_primitives2(&mut d);
        if d.ddrval != 0 {
            let why = self
                .driver
                .last_error()
                .map(|f| format!("{f:?}"))
                .unwrap_or_default();
            return Err(format!(
                "DrawPrimitives2: ddrval {:#010x} at offset {}: {why}",
                d.ddrval, d.dw_error_offset
            ));
        }
        Ok(())
    }

    /// `k` frames back to back.
    pub fn frames(&mut self, k: u32) -> Result<Duration, String> {
        let t = Instant::now();
        for _ in 0..k {
            self.frame()?;
        }
        Ok(t.elapsed())
    }

    /// The SIMD level the driver's renderer uses.
    pub fn simd_level(&self) -> String {
        self.simd.clone()
    }

    /// Writes the render target as a PNG.
    pub fn write_png(&self, path: &std::path::Path) -> Result<(), String> {
        let img = self.driver.image(self.rt).map_err(|e| e.to_string())?;
        img.write_png(path).map_err(|e| e.to_string())
    }

    /// The render target's bytes.
    pub fn color_bytes(&self) -> Result<&[u8], String> {
        self.driver
            .image(self.rt)
            .map(|s| s.bytes())
            .map_err(|e| e.to_string())
    }
}
