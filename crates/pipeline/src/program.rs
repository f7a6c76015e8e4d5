//! # Programs: what the vertex and the pixel stage run for one draw
//!
//! Direct3D 8/9 lets each of the two programmable stages run either the
//! fixed-function pipeline or a shader, independently: a vs_1_1 vertex
//! shader feeding the fixed-function texture-stage cascade is the common
//! DirectX 8 case, and fixed-function transform and lighting feeding a
//! ps_1_x–ps_2_x pixel shader is legal too.
//!
//! - In: a [`Programs`] value built by the GPU side for each draw: for
//!   each stage either [`VertexProgram::FixedFunction`] /
//!   [`PixelProgram::FixedFunction`] (the draw's [`crate::PipelineState`]
//!   says what they do) or a validated shader
//!   ([`softhal_shader::exec::Program`]) with the constants it runs with
//!   ([`softhal_shader::exec::BoundConstants`]) and, for a vertex shader,
//!   where each input register `v#` is read from in the vertex bytes.
//! - Out: nothing by itself; the renderer picks the implementation of each
//!   stage from it. A pixel shader that equals a fixed-function stage
//!   draws as that stage ([`matched`]).
//! - Guarantees: a shader here has been validated
//!   ([`softhal_shader::Validated`]), so every register index it names is
//!   in range for its version; executing it is bounded by the executor's
//!   own limits.

use softhal_shader::exec::{BoundConstants, Program};

pub(crate) mod matched;

use crate::texture::Texture;

use crate::vertex::DeclType;

/// Where one vertex-shader input register is read from: the declaration
/// element bound to `v[register]` (DX8: the `D3DVSD_REG` of a stream
/// element; DX9: the element whose usage and usage index match the
/// shader's `dcl`), at `offset` bytes into each vertex of the draw's
/// vertex bytes, expanded to four components by `ty`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShaderInput {
    /// The input register `v#` it fills.
    pub register: u8,
    /// Byte offset within a vertex.
    pub offset: u32,
    /// How the bytes are read (`D3DDECLTYPE`).
    pub ty: DeclType,
}

/// What the vertex stage runs.
#[derive(Clone, Copy, Debug)]
pub enum VertexProgram<'a> {
    /// Fixed-function vertex processing as the draw's state configures it
    /// (vertex blending, transforms, lighting, texture-coordinate
    /// generation and transforms, vertex fog, point size).
    FixedFunction,
    /// A vs_1_1–vs_3_0 shader.
    Shader {
        /// The validated program.
        program: &'a Program,
        /// Its constants (`c#`, `i#`, `b#`) for this draw.
        constants: &'a BoundConstants,
        /// Where its input registers come from; registers not listed
        /// read (0, 0, 0, 1).
        inputs: &'a [ShaderInput],
        /// The textures bound to the vertex-texture samplers
        /// D3DVERTEXTEXTURESAMPLER0–3 (`s0`–`s3` of vs_3_0 `texldl`; their
        /// sampler states are `PipelineState::textures.vertex_samplers`);
        /// `None` samples (0, 0, 0, 1).
        textures: [Option<&'a Texture>; VERTEX_SAMPLERS],
    },
}

pub use crate::limits::VERTEX_SAMPLERS;

/// What the pixel stage runs before the output merger (alpha test,
/// stencil and depth, fog blend, alpha blend, write).
#[derive(Clone, Copy, Debug)]
pub enum PixelProgram<'a> {
    /// The fixed-function texture-stage cascade, specular add and
    /// colour key as the draw's state configures them.
    FixedFunction,
    /// A ps_1_1–ps_3_0 shader.
    Shader {
        /// The validated program.
        program: &'a Program,
        /// Its constants for this draw.
        constants: &'a BoundConstants,
    },
}

/// The programs of one draw.
#[derive(Clone, Copy, Debug)]
pub struct Programs<'a> {
    /// The vertex stage.
    pub vertex: VertexProgram<'a>,
    /// The pixel stage.
    pub pixel: PixelProgram<'a>,
}

impl Programs<'static> {
    /// Fixed function at both stages: what every draw without a shader
    /// runs.
    pub const FIXED_FUNCTION: Programs<'static> = Programs {
        vertex: VertexProgram::FixedFunction,
        pixel: PixelProgram::FixedFunction,
    };
}
