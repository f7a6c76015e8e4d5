//! Contexts: the per-`dwhContext` state, objects and statistics.
//!
//! In: ContextCreate's render target and optional depth buffer; then
//! everything DrawPrimitives2 sets. Out: [`Context`], whose state is what
//! draws translate for the pipeline. Guarantee: every collection is capped
//! by [`crate::limits`].

use crate::error::{DeviceError, Result};
use crate::handle::Slab;
use crate::resource::Resource;
use crate::shader::{Decl9, Dx8Decl, ShaderCode};
use crate::state::DeviceState;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// One piece of state a state block can hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum StateKey {
    /// A render state.
    Render(u32),
    /// A texture-stage state (stage, state).
    TextureStage(u32, u32),
    /// A transform (device key, see [`crate::state::transform_key`]).
    Transform(u32),
    /// Viewport rectangle and z range.
    Viewport,
    /// WINFO.
    WInfo,
    /// Material.
    Material,
    /// A light slot.
    Light(u32),
    /// A clip plane.
    ClipPlane(u32),
    /// Scissor rectangle.
    Scissor,
    /// A stream binding.
    Stream(u32),
    /// Index buffer binding.
    Indices,
    /// Vertex shader / declaration / FVF.
    VertexInput,
    /// DX9 vertex shader function.
    VertexShaderFunc,
    /// Pixel shader.
    PixelShader,
    /// Vertex-shader float constant register.
    VsConstF(u32),
    /// Vertex-shader integer constant register.
    VsConstI(u32),
    /// Vertex-shader BOOL constant register.
    VsConstB(u32),
    /// Pixel-shader float constant register.
    PsConstF(u32),
    /// Pixel-shader integer constant register.
    PsConstI(u32),
    /// Pixel-shader BOOL constant register.
    PsConstB(u32),
}

/// A state block: the keys it holds and their values (in a state copy).
#[derive(Debug, Clone, PartialEq)]
pub struct StateBlock {
    /// The keys.
    pub keys: BTreeSet<StateKey>,
    /// Values of the keys.
    pub values: Box<DeviceState>,
}

/// Query types the device implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryKind {
    /// D3DQUERYTYPE_VCACHE (4).
    VCache,
    /// D3DQUERYTYPE_EVENT (8).
    Event,
    /// D3DQUERYTYPE_OCCLUSION (9).
    Occlusion,
}

/// A query object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Query {
    /// Type.
    pub kind: QueryKind,
    /// For an occlusion query between BEGIN and END: the context's sample
    /// counter at BEGIN.
    pub begun_at: Option<u64>,
}

/// A result waiting to be written into a response buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// dwQueryID.
    pub query_id: u32,
    /// Result bytes.
    pub data: Vec<u8>,
}

/// A DX8 vertex shader object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VertexShader8 {
    /// Its declaration.
    pub decl: Dx8Decl,
    /// Its function (`None`: a declaration-only shader, drawn with
    /// fixed-function vertex processing).
    pub code: Option<ShaderCode>,
}

/// A cached patch (non-zero handle).
#[derive(Debug, Clone, PartialEq)]
pub struct CachedPatch {
    /// Rect (true) or tri patch.
    pub rect: bool,
    /// Layout of the control vertices.
    pub layout: softhal_pipeline::VertexLayout,
    /// Control vertices (copied when cached).
    pub control: Vec<u8>,
    /// Width × height (rect) or (degree-derived count, 1) (tri).
    pub size: (u32, u32),
    /// Basis.
    pub basis: u32,
    /// Degree.
    pub degree: u32,
    /// The context's patch clock when the patch was last cached or drawn
    /// (the least recently used patch is evicted first).
    pub last_used: u64,
}

/// Per-context counters tests and tools can observe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ContextStats {
    /// Pipeline draw calls made.
    pub draws: u64,
    /// Primitives submitted to the pipeline.
    pub primitives: u64,
    /// Samples that passed the depth/stencil tests (occlusion counter), as
    /// of the GPU work the device last waited for (ISSUEQUERY, the start
    /// of calls that touch surface contents, `Driver::wait_for_gpu`; see
    /// `docs/submission.md`, "When work runs").
    pub samples_passed: u64,
    /// Scenes ended (SCENECAPTURE FALSE after TRUE).
    pub scenes: u64,
    /// D3DDP2OP_EXT tokens received (no extension is implemented).
    pub ext_tokens: u64,
    /// TEXBLT with destination 0 (managed-texture preload requests).
    pub preloads: u64,
    /// Patches tessellated.
    pub patches: u64,
}

/// One context.
#[derive(Debug, Clone, PartialEq)]
pub struct Context {
    /// Render target (slot 0).
    pub render_target: u32,
    /// Depth/stencil surface.
    pub depth: Option<u32>,
    /// Render-target slots 1..=3 (SETRENDERTARGET2; 0: unbound). Only a
    /// pixel shader's `oC1`–`oC3` draw to them; CLEAR clears them.
    pub extra_targets: [u32; softhal_pipeline::limits::MAX_RENDER_TARGETS - 1],
    /// The state.
    pub state: DeviceState,
    /// State blocks by handle.
    pub state_blocks: BTreeMap<u32, StateBlock>,
    /// The block being recorded (BEGIN .. END).
    pub recording: Option<(u32, StateBlock)>,
    /// DX8 vertex shaders.
    pub vertex_shaders: BTreeMap<u32, VertexShader8>,
    /// DX9 declarations.
    pub decls: BTreeMap<u32, Decl9>,
    /// DX9 vertex shader functions (validated tokens).
    pub vs_funcs: BTreeMap<u32, ShaderCode>,
    /// Pixel shaders (validated tokens).
    pub pixel_shaders: BTreeMap<u32, ShaderCode>,
    /// The last [`ShaderCode::serial`] given out.
    pub shader_serial: u32,
    /// Palettes (256 entries each).
    pub palettes: BTreeMap<u32, Vec<u32>>,
    /// Convolution kernel (width, height, row weights, column weights).
    pub convolution: Option<(u32, u32, Vec<u32>, Vec<u32>)>,
    /// Queries.
    pub queries: BTreeMap<u32, Query>,
    /// Responses not yet returned.
    pub responses: VecDeque<Response>,
    /// Cached patches.
    pub patches: BTreeMap<u32, CachedPatch>,
    /// Ticks once per patch cached or drawn from the cache.
    pub patch_clock: u64,
    /// Counters.
    pub stats: ContextStats,
    /// The DirectX runtime version the context was created under
    /// (DD_RUNTIME_VERSION: 0x700, 0x800, 0x900; see
    /// [`crate::Driver::notify_dx_version`]). Below 0x800 the filter
    /// texture-stage states carry the DX6/7 D3DTFG_/D3DTFN_/D3DTFP_ values.
    pub dx_version: u32,
}

impl Context {
    /// Render targets 1–3 as the GPU binds them (surface with the
    /// allocation, face, level; `None`: unbound), checked for a draw or
    /// a clear: each a live colour target the size of render target 0
    /// (else `InvalidParams`, `docs/device.md`). Their formats may differ
    /// (D3DPMISCCAPS_MRTINDEPENDENTBITDEPTH).
    pub(crate) fn extra_targets(
        &self,
        surfaces: &Slab<Resource>,
    ) -> Result<[Option<(u32, u32, u32)>; softhal_pipeline::limits::MAX_RENDER_TARGETS - 1]> {
        let mut out = [None; softhal_pipeline::limits::MAX_RENDER_TARGETS - 1];
        if self.extra_targets.iter().all(|h| *h == 0) {
            return Ok(out);
        }
        let rt = surfaces.get(self.render_target)?;
        for (o, &h) in out.iter_mut().zip(&self.extra_targets) {
            if h == 0 {
                continue;
            }
            let r = surfaces.get(h)?;
            if !r.is_color_target() {
                return Err(r.wrong(h, "render target"));
            }
            if (r.desc.width, r.desc.height) != (rt.desc.width, rt.desc.height) {
                return Err(DeviceError::InvalidParams(
                    "render targets of different sizes",
                ));
            }
            *o = Some(r.target_of(h));
        }
        Ok(out)
    }

    /// A new [`ShaderCode::serial`]: never 0, and not one of the
    /// context's live shaders (after 2³² − 1 serials they wrap; a serial
    /// still in use is skipped).
    pub fn next_shader_serial(&mut self) -> u32 {
        loop {
            self.shader_serial = self.shader_serial.wrapping_add(1);
            let s = self.shader_serial;
            let used = s == 0
                || self.vs_funcs.values().any(|c| c.serial == s)
                || self.pixel_shaders.values().any(|c| c.serial == s)
                || self
                    .vertex_shaders
                    .values()
                    .any(|v| v.code.as_ref().is_some_and(|c| c.serial == s));
            if !used {
                return s;
            }
        }
    }
}

/// The runtime version assumed when the host never notified one (DX9).
pub const DEFAULT_DX_VERSION: u32 = 0x900;

impl Context {
    /// A context rendering to `render_target` with optional depth.
    pub fn new(render_target: u32, depth: Option<u32>) -> Self {
        Context {
            render_target,
            depth,
            extra_targets: [0; softhal_pipeline::limits::MAX_RENDER_TARGETS - 1],
            state: DeviceState::default(),
            state_blocks: BTreeMap::new(),
            recording: None,
            vertex_shaders: BTreeMap::new(),
            decls: BTreeMap::new(),
            vs_funcs: BTreeMap::new(),
            pixel_shaders: BTreeMap::new(),
            shader_serial: 0,
            palettes: BTreeMap::new(),
            convolution: None,
            queries: BTreeMap::new(),
            responses: VecDeque::new(),
            patches: BTreeMap::new(),
            patch_clock: 0,
            stats: ContextStats::default(),
            dx_version: DEFAULT_DX_VERSION,
        }
    }
}
