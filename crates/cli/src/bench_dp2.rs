//! The benchmark workloads as real DP2 streams through `DrawPrimitives2`.
//!
//! In: a workload's mesh (static vertex data of one FVF) and a
//! [`Dp2Setup`]: the target format, the textures and the states, in DP2
//! assembly. Out: frames rendered the
//! way a DX8+ runtime drives a HAL: the vertices live in a vertex-buffer
//! surface created and filled once (the GL harness's static VBO); each frame
//! is one `DrawPrimitives2` call whose command buffer (built once) holds a
//! CLEAR of colour, depth and stencil, the render states, SETVERTEXSHADER
//! (the FVF), SETSTREAMSOURCE and one DRAWPRIMITIVE of all the primitives.
//! Textures are surfaces created and filled once (like the GL harness's
//! texture objects) bound with TEXTURESTAGESTATE TEXTUREMAP; every state is
//! a DP2 command. Workloads that draw with shaders (W7, W8) create them,
//! and set the constants that never change, once in a prelude call (as a
//! game does at load time); each frame binds them.
//! The difference from the pipeline path is the DP2 overhead the issue
//! bounds (decode, validation, state translation, range checks).

use crate::workloads::{Mesh, HEIGHT, WIDTH};
use softhal_device::{DrawPrimitives2Data, Driver, Format};
use softhal_pipeline::Topology;
use softhal_wire::text::assemble;
use std::time::{Duration, Instant};

/// A driver, a render target, a depth buffer and one prepared DP2 call.
pub struct Dp2Rig {
    driver: Driver,
    ctx: u32,
    rt: u32,
    commands: u32,
    command_length: u32,
    fvf: u32,
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

/// The render states every workload starts from, in DP2 assembly (`z`:
/// the depth test's compare function, `None` = off).
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

/// `RENDERSTATE` commands in DP2 assembly from `(D3DRS_ name, value)`
/// pairs.
pub fn render_states(states: &[(&str, &str)]) -> String {
    let records: Vec<String> = states
        .iter()
        .map(|(s, v)| format!("{{ RenderState={s} dwState={v} }}"))
        .collect();
    format!("RENDERSTATE {}\n", records.join(" "))
}

/// `TEXTURESTAGESTATE` commands for `stage` in DP2 assembly from
/// `(D3DTSS_ name, value)` pairs.
pub fn stage_states(stage: u32, states: &[(&str, &str)]) -> String {
    let records: Vec<String> = states
        .iter()
        .map(|(s, v)| format!("{{ wStage={stage} TSState={s} dwValue={v} }}"))
        .collect();
    format!("TEXTURESTAGESTATE {}\n", records.join(" "))
}

/// Texture `slot` of a [`Dp2Setup`] bound to `stage` with bilinear
/// filtering, no mip filter and WRAP addressing (the workloads' sampler).
pub fn bind_texture(stage: u32, slot: usize) -> String {
    stage_states(
        stage,
        &[
            ("D3DTSS_TEXTUREMAP", &format!("$T{slot}")),
            ("D3DTSS_MAGFILTER", "D3DTEXF_LINEAR"),
            ("D3DTSS_MINFILTER", "D3DTEXF_LINEAR"),
            ("D3DTSS_MIPFILTER", "D3DTEXF_NONE"),
            ("D3DTSS_ADDRESSU", "D3DTADDRESS_WRAP"),
            ("D3DTSS_ADDRESSV", "D3DTADDRESS_WRAP"),
        ],
    )
}

/// A 256 × 256 texture of a [`Dp2Setup`]: D3DCOLOR texels, row-major,
/// stored in `format` (converted with the format's own encoding).
#[derive(Debug, Clone)]
pub struct Dp2Texture {
    /// The texture's format.
    pub format: Format,
    /// 256 × 256 D3DCOLOR texels.
    pub texels: Vec<u32>,
}

/// Everything a frame needs besides the mesh: the render-target format,
/// the textures (created and filled once, like a GL harness's texture
/// objects) and the states in DP2 assembly, where `$T0`, `$T1`, … stand
/// for the handles of the textures.
#[derive(Debug, Clone)]
pub struct Dp2Setup {
    /// The vertex format of the mesh.
    pub fvf: u32,
    /// The colour target's format.
    pub target: Format,
    /// The depth test's compare function (`D3DCMP_` name), `None` = off.
    pub z: Option<&'static str>,
    /// The textures `$T0`, `$T1`, … of `states`.
    pub textures: Vec<Dp2Texture>,
    /// States set after the common ones (`states_source`), DP2 assembly.
    pub states: String,
    /// DP2 assembly run once, in its own `DrawPrimitives2` call, when the
    /// rig is made: shader creation and constants.
    pub prelude: String,
    /// The commands that bind the vertex input in each frame instead of
    /// `SETVERTEXSHADER` of the FVF (a declaration and shaders), with the
    /// stream's stride.
    pub vertex_input: Option<(String, u32)>,
}

impl Dp2Setup {
    /// A setup with no texture and no state beyond the common ones.
    pub fn new(fvf: u32, z: Option<&'static str>) -> Self {
        Dp2Setup {
            fvf,
            target: Format::A8R8G8B8,
            z,
            textures: Vec::new(),
            states: String::new(),
            prelude: String::new(),
            vertex_input: None,
        }
    }
}

impl Dp2Rig {
    /// Prepares the driver for `mesh` with `threads` rasterizer threads.
    pub fn new(mesh: &Mesh, setup: &Dp2Setup, threads: usize, simd: bool) -> Result<Self, String> {
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
            .create_render_target(setup.target, WIDTH, HEIGHT)
            .map_err(e("render target"))?;
        let depth = driver
            .create_depth_stencil(Format::D24S8, WIDTH, HEIGHT)
            .map_err(e("depth"))?;
        let ctx = driver
            .context_create(rt, Some(depth))
            .map_err(e("context"))?;
        let (bind_input, stride) = match &setup.vertex_input {
            Some((commands, stride)) => (commands.clone(), *stride),
            None => (
                format!("SETVERTEXSHADER {{ dwHandle={:#x} }}\n", setup.fvf),
                softhal_wire::fvf::vertex_stride(setup.fvf).map_err(|err| err.to_string())?,
            ),
        };
        let bytes = u32::try_from(mesh.vertices.len()).map_err(|_| "mesh too large")?;
        let vb = driver
            .create_vertex_buffer(bytes, false)
            .map_err(e("vertex buffer"))?;
        driver
            .lock(vb, softhal_device::LockFlags::default())
            .map_err(e("lock"))?
            .copy_from_slice(&mesh.vertices);
        driver.unlock(vb).map_err(e("unlock"))?;
        let mut states = setup.states.clone();
        // Highest slot first, so that `$T1` is not read as `$T1` of `$T10`.
        for (slot, t) in setup.textures.iter().enumerate().rev() {
            let tex = driver
                .create_texture(t.format, 256, 256, 1)
                .map_err(e("texture"))?;
            let bpp = t.format.bytes_per_pixel() as usize;
            let bytes: Vec<u8> = t
                .texels
                .iter()
                .flat_map(|&c| t.format.encode_argb(c).to_le_bytes().into_iter().take(bpp))
                .collect();
            let dst = driver
                .lock(tex, softhal_device::LockFlags::default())
                .map_err(e("lock texture"))?;
            if dst.len() != bytes.len() {
                return Err(format!(
                    "texture $T{slot}: {} bytes to fill, {} given",
                    dst.len(),
                    bytes.len()
                ));
            }
            dst.copy_from_slice(&bytes);
            driver.unlock(tex).map_err(e("unlock texture"))?;
            states = states.replace(&format!("$T{slot}"), &tex.to_string());
        }
        let source = format!(
            "VIEWPORTINFO {{ dwX=0 dwY=0 dwWidth={WIDTH} dwHeight={HEIGHT} }}\n\
             ZRANGE {{ dvMinZ=0.0 dvMaxZ=1.0 }}\n\
             CLEAR {{ dwFlags=D3DCLEAR_TARGET|D3DCLEAR_ZBUFFER|D3DCLEAR_STENCIL dwFillColor=0xff000000 dvFillDepth=1.0 }} {{ left=0 top=0 right={WIDTH} bottom={HEIGHT} }}\n\
             {}{states}{bind_input}\
             SETSTREAMSOURCE {{ dwStream=0 dwVBHandle={vb} dwStride={stride} }}\n\
             DRAWPRIMITIVE {{ primType={} VStart=0 PrimitiveCount={} }}\n",
            states_source(setup.z),
            prim_type(mesh.topology),
            mesh.primitive_count
        );
        if !setup.prelude.is_empty() {
            let cmds = assemble(&setup.prelude).map_err(|err| format!("prelude: {err}"))?;
            let buf = driver
                .create_command_buffer_with(&cmds)
                .map_err(e("prelude buffer"))?;
            let len = u32::try_from(cmds.len()).map_err(|_| "prelude too large")?;
            let mut d = DrawPrimitives2Data::new(ctx, buf, len);
            driver.draw_primitives2(&mut d);
            if d.ddrval != 0 {
                return Err(format!(
                    "prelude: ddrval {:#010x} at offset {}: {:?}",
                    d.ddrval,
                    d.dw_error_offset,
                    driver.last_error()
                ));
            }
            driver.destroy_surface(buf).map_err(e("prelude buffer"))?;
        }
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
            fvf: setup.fvf,
            simd,
        })
    }

    /// One frame: one `DrawPrimitives2` call.
    pub fn frame(&mut self) -> Result<(), String> {
        let mut d = DrawPrimitives2Data::new(self.ctx, self.commands, self.command_length);
        d.dw_vertex_type = self.fvf;
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

    /// The context's occlusion counter (samples that passed the depth and
    /// stencil tests since the driver was made), after waiting for the
    /// GPU: the difference across frames is what `docs/benchmarks.md`'s
    /// reference values count (checked by the bench's tests).
    #[cfg(test)]
    pub fn samples_passed(&mut self) -> Result<u64, String> {
        self.driver.wait_for_gpu();
        self.driver
            .context(self.ctx)
            .map(|c| c.stats.samples_passed)
            .map_err(|e| e.to_string())
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
    pub fn color(&self) -> Result<&softhal_pipeline::Surface, String> {
        self.driver.image(self.rt).map_err(|e| e.to_string())
    }
}
