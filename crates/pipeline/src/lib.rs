//! # softhal-pipeline: the software GPU
//!
//! Validated draw calls in, pixels out. This crate knows nothing of DP2 or
//! of any command stream: the `device` crate translates Direct3D DDI state
//! and commands into the plain Rust types here. It follows the Direct3D 9
//! fixed-function rules (pixel centres at integer coordinates, top-left
//! fill convention, diamond-exit lines, D3D blend factors and stencil
//! operations), not OpenGL's.
//!
//! ## What comes in
//! * [`Surface`]s in one of the [`Format`]s (render targets and
//!   depth/stencil buffers), bound as [`RenderTargets`];
//! * a [`PipelineState`] (raster, depth, stencil, alpha test, blend,
//!   viewport, transforms, texture stages, fog, lighting, vertex blending,
//!   point state — the Direct3D value enums of `softhal-types`, each with
//!   `from_d3d`, and a few sampling types of this crate's own);
//! * a [`DrawCall`]: raw vertex bytes described by a [`VertexLayout`], a
//!   [`Topology`], optional [`Indices`]; with
//!   [`Renderer::draw_textured`], the [`texture::Texture`]s bound to the 8
//!   stages (`[Option<&Texture>; 8]`; [`Renderer::draw`] binds none);
//! * with [`Renderer::draw_programs`], also the draw's [`program::Programs`]:
//!   the pixel stage runs the fixed-function cascade or a validated
//!   ps_1_1–ps_3_0 shader with its constants (see below for the vertex
//!   stage);
//! * or a [`Clear`] over a rectangle list;
//! * or planes for the [`blit`]ter (stretch copies with format conversion,
//!   colour fills, mip-sublevel generation).
//!
//! ## Mapping DP2 state onto this API (for the device)
//! Every value below is built with a numeric `from_d3d` constructor that
//! takes the D3D number and returns `None` for invalid ones (the
//! Direct3D enums are `softhal-types`', re-exported where the pipeline
//! uses them).
//!
//! | D3D state | Field | Constructor |
//! |---|---|---|
//! | D3DTSS_COLOROP / ALPHAOP | `textures.stages[n].color_op` / `alpha_op` | [`cascade::TextureOp::from_d3d`] |
//! | D3DTSS_COLORARG0..2 / ALPHAARG0..2 | `textures.stages[n].color_arg*` / `alpha_arg*` | [`cascade::TextureArgument::from_d3d`] |
//! | D3DTSS_RESULTARG | `textures.stages[n].result` | [`cascade::ResultArg::from_d3d`] |
//! | D3DTSS_BUMPENVMAT00..11, BUMPENVLSCALE/LOFFSET | `textures.stages[n].bump_env_mat`, `bump_lscale`, `bump_loffset` | floats |
//! | D3DTSS_CONSTANT | `textures.stages[n].constant` | [`texture::format::argb_to_rgba`] |
//! | D3DTSS_TEXCOORDINDEX | `textures.tex_coord_index[n]` | [`texgen::TexCoordIndex::from_d3d`] |
//! | D3DTSS_TEXTURETRANSFORMFLAGS | `textures.transform_flags[n]` | [`texgen::TextureTransformFlags::from_d3d`] |
//! | D3DTS_TEXTURE0..7 | `textures.matrices[n]` | [`Matrix::from_d3d`] |
//! | ADDRESSU/V/W, BORDERCOLOR | `textures.samplers[n].address_*`, `border_color` | [`texture::TextureAddress::from_d3d`] |
//! | MAG/MIN/MIPFILTER (DX8+) | `textures.samplers[n].*_filter` | [`texture::TextureFilter::from_d3d`] (the device translates the DX6 numbers) |
//! | MIPMAPLODBIAS, MAXMIPLEVEL, MAXANISOTROPY | `textures.samplers[n]` | floats / integers |
//! | D3DRS_TEXTUREFACTOR | `textures.texture_factor` | D3DCOLOR |
//! | COLORKEYENABLE / COLORKEYBLENDENABLE | `textures.color_key` | [`texture::ColorKeyMode::from_d3d`] (key on the [`texture::Texture`]) |
//! | legacy TEXTUREMAPBLEND | `textures.stages[0]` | [`cascade::texture_map_blend_stage0`] |
//! | D3DRS_SPECULARENABLE | `raster.specular_enable` | BOOL |
//! | FOGENABLE, FOGCOLOR, FOGTABLEMODE, FOGVERTEXMODE, FOGSTART/END/DENSITY, RANGEFOGENABLE | `fog` ([`fog::FogState`]) | [`fog::FogMode::from_d3d`] |
//! | LIGHTING, AMBIENT, LOCALVIEWER, NORMALIZENORMALS, COLORVERTEX, *MATERIALSOURCE | `lighting` ([`LightingParams`]) | [`lighting::MaterialSource::from_d3d`] |
//! | SETLIGHT / LIGHTENABLE (world space) | `lighting.lights[..light_count]` | [`lighting::LightType::from_d3d`] |
//! | SETMATERIAL | `lighting.material` | floats |
//! | VERTEXBLEND, INDEXEDVERTEXBLENDENABLE, WORLDMATRIX(1..3), TWEENFACTOR | `vertex_blend` ([`VertexBlendState`]) | [`vertex_blend::VertexBlend::from_d3d`] |
//! | POINTSIZE(_MIN/_MAX), POINTSCALE*, POINTSPRITEENABLE | `point` ([`point::PointState`]); per-vertex PSIZE: [`VertexLayout::point_size`] | floats / BOOL |
//! | VERTEXBLEND = TWEENING, TWEENFACTOR | `vertex_blend.mode`, `vertex_blend.tween_factor`; the second streams: [`VertexLayout::position2`], [`VertexLayout::normal2`] | [`vertex_blend::VertexBlend::from_d3d`] |
//! | SETTEXTURESTAGE | the `textures` argument of [`Renderer::draw_textured`] | [`texture::Texture`] |
//!
//! * with [`Renderer::draw_programs`], the draw's [`program::Programs`]:
//!   fixed function at both stages (what [`Renderer::draw_textured`]
//!   runs), or a vs_1_1–vs_3_0 vertex shader with its constants and input
//!   registers, and the fixed-function pixel stages or a ps_1_1–ps_3_0
//!   pixel shader (a program of the wrong kind is refused with
//!   [`PipelineError::BadProgram`]).
//!
//! ## Stages, in data-flow order
//! 1. `vertex` — the vertex program. Fixed function: fetch vertices
//!    (bounds-checked); for untransformed ones
//!    vertex blending, the transform to clip space, lighting in camera
//!    space, vertex fog (into the specular alpha), and per sampling stage
//!    TEXCOORDINDEX, coordinate generation and the texture transform.
//!    A vertex shader (`vertex::shader`): the vertices of a batch are run
//!    through `softhal_shader::exec` four at a time and its outputs
//!    (`oPos`, `oD0`/`oD1`, `oFog`, `oPts`, and by semantic the draw's
//!    generic varyings) become the same vertex records (`docs/shaders.md`
//!    §12). Each vertex carries position, colours and the draw's generic
//!    varyings (`varying`: semantics and interpolation decided once per
//!    draw; fixed function writes the texture-coordinate sets there, a
//!    vs_3_0 feeding ps_3_0 the ps_3_0 inputs, `docs/shaders.md` §14);
//! 2. `geometry` — primitive assembly, NaN/Inf rejection, clipping
//!    (near/far, user planes, guard band), projection and viewport mapping;
//! 3. `setup` — fixed-point edge functions (8 sub-pixel bits, 64-bit),
//!    culling, attribute planes (plus, for shaded draws, `attr · rhw`
//!    planes of colours, fog and the draw's generic varyings, and the
//!    vertex attributes of lines and points); points larger than a pixel become
//!    squares (POINTSIZE, PSIZE, POINTSCALE*, clamped);
//! 4. `bin` — per-64×64-tile lists with trivial reject / full-coverage
//!    flags and a hard memory cap;
//! 5. `raster` — exact incremental edge walking per tile, in parallel
//!    over tile bands;
//! 6. `pixel` / `shade` — shade (perspective-correct interpolation,
//!    texture sampling with 2×2-quad derivatives, the stage cascade,
//!    colour key, specular add, fog — for triangles, lines and points
//!    alike; point sprites get (0, 0)–(1, 1) coordinates), alpha test,
//!    stencil, depth, blend, write; SIMD kernels from `simd` for the
//!    common cases. The pixel program is either that fixed-function
//!    cascade or a pixel shader (`pixel::shader`: 2×2 quads with helper
//!    lanes, run by `softhal_shader::exec`); both feed the same output
//!    merger (`pixel::output`: alpha test → stencil/depth → blend → write
//!    mask → write), fog blended just before it (none for ps_3_0).
//!
//! The [`Renderer`] drives these stages; [`limits`] holds every bound.
//!
//! ## Specialisation
//! Each draw resolves its state once. A draw with no texture sampled, an
//! identity cascade and no fog takes exactly the colour paths (colour and
//! depth only; the vertex records carry no texture coordinates at all).
//! Otherwise it takes the shaded path (`shade`):
//! * fog from the specular alpha with an identity cascade over a 24-bit
//!   depth buffer (W5) is fused into the colour + depth SIMD kernel;
//! * stage 0 MODULATE(TEXTURE, DIFFUSE) of an A8R8G8B8/X8R8G8B8 texture,
//!   bilinear, WRAP, one level, blending off or SRCALPHA/INVSRCALPHA, no
//!   depth/stencil/alpha test/fog (W3/W4) uses a vector kernel with an
//!   8-bit fixed-point separable filter;
//! * everything else runs the generic float shading loop (monomorphised
//!   over depth/stencil/alpha test/blend).
//!
//! The two fused paths may differ from the float path by one unit per
//! channel; which path is taken depends only on the state and on the
//! triangle (affine or not), never on threads or SIMD level.
//!
//! ## Guarantees
//! * **Determinism**: the same input produces the same bytes for every
//!   thread count and every SIMD level (tiles are owned by one worker and
//!   replay their primitives in submission order; SIMD kernels have scalar
//!   twins computing bit-identical results).
//! * **Bounded memory**: besides the caller's surfaces a draw allocates at
//!   most [`limits::SCENE_MEMORY_BOUND`] bytes; when the bins fill up, the
//!   scene is rasterized and binning continues.
//! * **No panics**: every read of caller data is bounds-checked, indices
//!   are checked when fetched, coordinates are clipped to the guard band
//!   so that fixed-point arithmetic cannot overflow, and NaN/Inf vertices
//!   drop their primitive. Errors ([`PipelineError`]) are returned before
//!   any pixel is written.
//! * **Bounded time on request**: with a [`watchdog::Watchdog`] set
//!   ([`Renderer::set_watchdog`]: a deadline and a [`CancelHandle`] any
//!   thread may trigger) a draw or clear stops at the next wave, chunk,
//!   tile or [`limits::WATCHDOG_CHECK_ENTRIES`] bin entries with
//!   [`PipelineError::Stopped`], its pixels partly written; never per
//!   pixel. At most [`limits::MAX_THREADS`] threads.
//! * **Unsafe code** is confined to the `simd` module tree (x86_64
//!   intrinsics behind runtime feature detection, every unsafe operation in
//!   an unsafe block with a `// SAFETY:` comment); the rest of the
//!   crate denies it.
//!
//! ## Not yet handled
//! * Points of size ≤ 1 light the pixel whose centre is nearest (at an
//!   exact half-pixel tie that is the right/lower one, where D3D's quad
//!   rule would take the left/upper one); larger points are squares under
//!   the top-left rule. Points are clipped by their centre only (a point
//!   whose centre leaves the guard band or the near/far or a user plane is
//!   dropped whole).
//! * Indexed vertex blending reaches world matrices 0..3 only.
//! * Texture sampling in the generic path is scalar f32 per pixel; only
//!   the W3/W4 shape has a vector kernel.
#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]

mod bin;
mod cascade8;
mod draw_kind;
mod error;
mod format;
mod geometry;
mod int;
pub mod limits;
mod math;
mod pixel;
mod prim;
mod raster;
mod renderer;
mod setup;
mod shade;
mod simd;
mod state;
mod surface;
mod varying;
mod vertex;

pub mod blit;
pub mod cascade;
pub mod fog;
pub mod lighting;
pub mod point;
pub mod program;
pub mod texgen;
pub mod texture;
pub mod vertex_blend;
pub mod watch;
pub mod watchdog;

/// The texture-stage cascade under its former name (other crates still
/// name it `stages`); new code names [`cascade`].
pub use cascade as stages;

pub use error::PipelineError;
pub use format::Format;
pub use math::{Matrix, Rect};
pub use renderer::{Clear, ClearFlags, DrawStats, RenderTargets, Renderer};
pub use simd::SimdLevel;
pub use state::{
    AlphaTestState, Blend, BlendOp, BlendState, CmpFunc, CullMode, DepthState, FillMode,
    LightingParams, PipelineState, RasterState, ShadeMode, StencilFace, StencilOp, StencilState,
    TextureStages, Transforms, VertexBlendState, Viewport, ZBufferType, NO_LIGHT, ZBIAS_UNIT,
};
pub use surface::{encode_png_rgba8, render_pitch, write_tight_rows, Surface};
pub use vertex::{
    DeclType, DrawCall, Indices, PositionKind, TexCoordElement, Topology, VertexLayout,
};
pub use watch::{PixelEvent, PixelHistory, PixelWatch};
pub use watchdog::{CancelHandle, Watchdog};
