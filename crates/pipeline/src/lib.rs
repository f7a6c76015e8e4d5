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
//!   viewport, transforms — enums named after D3D, each with `from_d3d`);
//! * a [`DrawCall`]: raw vertex bytes described by a [`VertexLayout`], a
//!   [`Topology`], optional [`Indices`];
//! * or a [`Clear`] over a rectangle list.
//!
//! ## Stages, in data-flow order
//! 1. `vertex` — fetch vertices (bounds-checked), transform untransformed
//!    ones to clip space;
//! 2. `geometry` — primitive assembly, NaN/Inf rejection, clipping
//!    (near/far, user planes, guard band), projection and viewport mapping;
//! 3. `setup` — fixed-point edge functions (8 sub-pixel bits, 64-bit),
//!    culling, attribute planes;
//! 4. `bin` — per-64×64-tile lists with trivial reject / full-coverage
//!    flags and a hard memory cap;
//! 5. `raster` — exact incremental edge walking per tile, in parallel
//!    over tile bands;
//! 6. `pixel` — shade, alpha test, stencil, depth, blend, write; SIMD
//!    kernels from `simd` for the common cases.
//!
//! The [`Renderer`] drives these stages; [`limits`] holds every bound.
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
//! * **Unsafe code** is confined to the `simd` module (x86_64 intrinsics
//!   behind runtime feature detection); the rest of the crate denies it.
//!
//! ## Not yet handled (Pipeline II)
//! Textures and the texture-stage cascade, fog, lighting, vertex blending,
//! point sprites and point sizes other than 1. The extension points are the
//! [`VertexLayout`] elements (already described and validated), the
//! per-triangle side record of attribute planes, and the shade step of the
//! pixel stage.
#![deny(unsafe_code)]

mod bin;
mod error;
mod format;
mod geometry;
mod int;
pub mod limits;
mod pixel;
mod raster;
mod renderer;
mod setup;
mod simd;
mod state;
mod surface;
mod vertex;

pub mod fog;
pub mod lighting;
pub mod stages;
pub mod texgen;
pub mod texture;

pub use error::PipelineError;
pub use format::Format;
pub use renderer::{Clear, ClearFlags, DrawStats, RenderTargets, Renderer};
pub use simd::SimdLevel;
pub use state::{
    AlphaTestState, Blend, BlendOp, BlendState, CmpFunc, CullMode, DepthState, FillMode, Matrix,
    PipelineState, RasterState, Rect, ShadeMode, StencilFace, StencilOp, StencilState, Transforms,
    Viewport, ZBufferType, ZBIAS_UNIT,
};
pub use surface::Surface;
pub use vertex::{DrawCall, Indices, PositionKind, TexCoordElement, Topology, VertexLayout};
