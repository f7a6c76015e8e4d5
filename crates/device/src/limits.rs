//! Every size cap of the device, in one place.
//!
//! In: nothing (constants). Out: the bounds every other module checks
//! against. Guarantee: memory held by the device is bounded by the
//! resources the host creates (each capped here) plus per-context state
//! whose size is bounded by these constants — never by a count read from a
//! command stream.

/// Live surfaces per driver, attached surfaces of render-target textures
/// included (handles index a 16-bit slot space).
pub const MAX_SURFACES: usize = 16_384;
/// Live contexts per driver.
pub const MAX_CONTEXTS: usize = 64;
/// Total bytes of surface storage per driver (2 GiB).
pub const MAX_TOTAL_SURFACE_BYTES: u64 = 2 * 1024 * 1024 * 1024;
/// Largest buffer surface (vertex, index or command buffer): 256 MiB.
pub const MAX_BUFFER_BYTES: u64 = 256 * 1024 * 1024;
/// Largest texture dimension (width, height or depth).
pub const MAX_TEXTURE_DIMENSION: u32 = 8192;
/// Largest volume-texture depth.
pub const MAX_VOLUME_DEPTH: u32 = 2048;
/// Mip levels of a texture (a full chain of an 8192 texture has 14).
pub const MAX_MIP_LEVELS: u32 = 14;
/// Light slots per context (`CREATELIGHT dwIndex` must be below this).
pub const MAX_LIGHTS: u32 = 256;
/// Enabled lights that light a vertex (the first ones in index order;
/// further enabled lights are ignored).
pub const MAX_ACTIVE_LIGHTS: u32 = 8;
const _: () = assert!(MAX_ACTIVE_LIGHTS as usize == softhal_pipeline::lighting::MAX_ACTIVE_LIGHTS);
/// User clip planes (`SETCLIPPLANE dwIndex` must be below this).
pub const MAX_CLIP_PLANES: u32 = 6;
/// Vertex streams (`dwStream` must be below this).
pub const MAX_STREAMS: u32 = 16;
/// Largest stream stride in bytes.
pub const MAX_STREAM_STRIDE: u32 = 1024;
/// Texture stages (`wStage` must be below this, or one of the sampler
/// numbers below; D3DHAL_TSS_MAXSTAGES).
pub const MAX_TEXTURE_STAGES: u32 = 8;
/// Pixel samplers: the samplers `s0`–`s15` of ps_2_0–ps_3_0, `wStage`
/// 0–15 (the first [`MAX_TEXTURE_STAGES`] are also the texture stages);
/// the pipeline's count.
pub const PIXEL_SAMPLERS: u32 = 16;
const _: () = assert!(PIXEL_SAMPLERS as usize == softhal_pipeline::limits::PIXEL_SAMPLERS);
/// Stages of the device state: the pixel samplers, then the 4
/// vertex-texture samplers D3DVERTEXTEXTURESAMPLER0–3 — the texture stages
/// of the GPU register file (`softhal_submit::regs::STAGES`, equal by a
/// compile-time assertion in `state`).
pub const SAMPLER_STAGES: u32 = PIXEL_SAMPLERS + 4;
/// Texture-stage-state slots per stage (D3DHAL_TSS_STATESPERSTAGE).
pub const TSS_PER_STAGE: u32 = 64;
/// Render-state slots (D3DHAL_MAX_RSTATES).
pub const MAX_RENDER_STATES: u32 = 256;
/// World matrices (D3DTS_WORLDMATRIX(0..=255)).
pub const MAX_WORLD_MATRICES: u32 = 256;
/// Vertex-shader float constant registers.
pub const MAX_VS_CONST_F: u32 = 256;
/// Pixel-shader float constant registers.
pub const MAX_PS_CONST_F: u32 = 224;
/// Integer constant registers (vertex and pixel).
pub const MAX_CONST_I: u32 = 16;
/// Boolean constant registers (vertex and pixel).
pub const MAX_CONST_B: u32 = 16;
/// Shader objects (vertex shaders, pixel shaders, declarations and
/// functions, each) per context.
pub const MAX_SHADER_OBJECTS: usize = 4096;
/// Bytes of one shader or declaration token stream.
pub const MAX_SHADER_BYTES: u32 = 256 * 1024;
/// Elements of one vertex declaration.
pub const MAX_DECL_ELEMENTS: u32 = 64;
/// State blocks per context (each holds a copy of the state, ≈ 11 KiB).
pub const MAX_STATE_BLOCKS: usize = 256;
/// Palettes per context.
pub const MAX_PALETTES: usize = 4096;
/// Entries of one palette.
pub const PALETTE_ENTRIES: u32 = 256;
/// Dirty rectangles / boxes remembered per surface; beyond this the whole
/// surface is marked dirty.
pub const MAX_DIRTY_REGIONS: usize = 64;
/// Queries per context.
pub const MAX_QUERIES: usize = 4096;
/// Query responses waiting to be returned per context.
pub const MAX_PENDING_RESPONSES: usize = 4096;
/// Cached patches per context (beyond it the least recently used is
/// evicted).
pub const MAX_CACHED_PATCHES: usize = 256;
/// Control points of one patch (rect: Width × Height; tri: NumVertices).
pub const MAX_PATCH_CONTROL_POINTS: u32 = 1024;
/// Segments per patch edge (the tessellation is clamped to this).
pub const MAX_PATCH_SEGMENTS: u32 = 64;
/// Bytes of cached patch control data per context.
pub const MAX_PATCH_CACHE_BYTES: usize = 16 * 1024 * 1024;
/// Bytes of shader and declaration tokens stored per context.
pub const MAX_SHADER_CACHE_BYTES: usize = 16 * 1024 * 1024;
