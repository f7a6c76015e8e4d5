//! Errors returned by the pipeline.
//!
//! *Input*: failures detected while validating a draw, a clear or a surface
//! request. *Output*: [`PipelineError`], one variant per cause, carrying the
//! numbers needed to understand it. *Guarantee*: a call that returns an
//! error has not modified any surface (all validation happens before the
//! first pixel is written) — except [`PipelineError::Stopped`], a draw the
//! watchdog stopped part-way ([`crate::watchdog`]).

use crate::format::Format;

/// Everything that can go wrong in the pipeline.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, strum::EnumCount)]
#[non_exhaustive]
pub enum PipelineError {
    /// A surface dimension is zero or above [`crate::limits::MAX_DIMENSION`].
    #[error("surface size {width}x{height} is outside 1..={max}")]
    BadDimensions {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
        /// The limit.
        max: u32,
    },
    /// The pitch is smaller than one row or larger than the limit.
    #[error("pitch {pitch} is invalid for {width} pixels of {bytes_per_pixel} bytes")]
    BadPitch {
        /// Requested pitch in bytes.
        pitch: u64,
        /// Width in pixels.
        width: u32,
        /// Bytes per pixel of the format.
        bytes_per_pixel: u32,
    },
    /// The surface would need more bytes than allowed.
    #[error("surface needs {bytes} bytes, limit is {max}")]
    SurfaceTooLarge {
        /// Bytes needed.
        bytes: u64,
        /// The limit.
        max: u64,
    },
    /// A format cannot be used for this purpose.
    #[error("format {format:?} cannot be used as {usage}")]
    BadFormat {
        /// The format.
        format: Format,
        /// What it was used as ("render target", "depth/stencil").
        usage: &'static str,
    },
    /// The depth buffer is smaller than the render target.
    #[error(
        "depth buffer {depth_w}x{depth_h} is smaller than the render target {color_w}x{color_h}"
    )]
    DepthTooSmall {
        /// Depth buffer width.
        depth_w: u32,
        /// Depth buffer height.
        depth_h: u32,
        /// Render target width.
        color_w: u32,
        /// Render target height.
        color_h: u32,
    },
    /// A further render target (1–3) is not the size of render target 0
    /// (Direct3D 9: all the targets of a draw have one width and height).
    #[error("render target {index} is {width}x{height}, render target 0 is {color_w}x{color_h}")]
    TargetSizeMismatch {
        /// Its slot (1–3).
        index: u32,
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
        /// Render target 0's width.
        color_w: u32,
        /// Render target 0's height.
        color_h: u32,
    },
    /// The vertex layout is inconsistent (an element beyond the stride, a
    /// zero or too large stride, a bad component count).
    #[error("invalid vertex layout: {reason}")]
    BadVertexLayout {
        /// What is wrong.
        reason: &'static str,
    },
    /// A draw's programs cannot run: a pixel shader bound as the vertex
    /// program, or a pixel shader at all (the pipeline does not execute
    /// pixel shaders yet; see `docs/shaders.md`).
    #[error("cannot run the draw's programs: {reason}")]
    BadProgram {
        /// What is wrong.
        reason: &'static str,
    },
    /// The draw needs more vertices than the vertex buffer holds.
    #[error("draw needs vertices up to {needed}, buffer holds {available}")]
    VertexBufferTooSmall {
        /// Number of vertices needed (one past the last used index).
        needed: u64,
        /// Number of whole vertices in the buffer.
        available: u64,
    },
    /// The draw needs more indices than the index buffer holds.
    #[error("draw needs {needed} indices, buffer holds {available}")]
    IndexBufferTooSmall {
        /// Number of indices needed.
        needed: u64,
        /// Number of indices in the buffer.
        available: u64,
    },
    /// The thread pool could not be created.
    #[error("cannot create the rasterizer thread pool: {0}")]
    ThreadPool(String),
    /// More rasterizer threads asked for than [`crate::limits::MAX_THREADS`]
    /// (nothing was spawned).
    #[error("{requested} rasterizer threads asked for, at most {max} are allowed")]
    TooManyThreads {
        /// Threads asked for.
        requested: u64,
        /// The limit.
        max: u64,
    },
    /// The renderer's watchdog fired (its deadline passed or its
    /// cancellation flag was set): the draw or clear stopped at a wave,
    /// chunk or tile boundary with some of its pixels written
    /// ([`crate::watchdog`]).
    #[error("stopped by the watchdog (deadline passed or cancelled)")]
    Stopped,
    /// Writing a PNG failed.
    #[error("PNG export failed: {0}")]
    Png(String),
}

impl PipelineError {
    /// A stable snake_case name of the cause, for logs, tools and
    /// `docs/errors.md`.
    pub fn kind(&self) -> &'static str {
        match self {
            PipelineError::BadDimensions { .. } => "bad_dimensions",
            PipelineError::BadPitch { .. } => "bad_pitch",
            PipelineError::SurfaceTooLarge { .. } => "surface_too_large",
            PipelineError::BadFormat { .. } => "bad_format",
            PipelineError::DepthTooSmall { .. } => "depth_too_small",
            PipelineError::TargetSizeMismatch { .. } => "target_size_mismatch",
            PipelineError::BadVertexLayout { .. } => "bad_vertex_layout",
            PipelineError::BadProgram { .. } => "bad_program",
            PipelineError::VertexBufferTooSmall { .. } => "vertex_buffer_too_small",
            PipelineError::IndexBufferTooSmall { .. } => "index_buffer_too_small",
            PipelineError::ThreadPool(_) => "thread_pool",
            PipelineError::TooManyThreads { .. } => "too_many_threads",
            PipelineError::Stopped => "stopped",
            PipelineError::Png(_) => "png",
        }
    }

    /// One error of every kind (`docs/errors.md` is generated from these).
    pub fn examples() -> Vec<PipelineError> {
        vec![
            PipelineError::BadDimensions {
                width: 0,
                height: 16,
                max: crate::limits::MAX_DIMENSION,
            },
            PipelineError::BadPitch {
                pitch: 8,
                width: 4,
                bytes_per_pixel: 4,
            },
            PipelineError::SurfaceTooLarge {
                bytes: 1 << 32,
                max: 1 << 31,
            },
            PipelineError::BadFormat {
                format: Format::R5G6B5,
                usage: "a depth buffer",
            },
            PipelineError::DepthTooSmall {
                depth_w: 32,
                depth_h: 32,
                color_w: 64,
                color_h: 64,
            },
            PipelineError::TargetSizeMismatch {
                index: 1,
                width: 32,
                height: 32,
                color_w: 64,
                color_h: 64,
            },
            PipelineError::BadVertexLayout {
                reason: "no position",
            },
            PipelineError::BadProgram {
                reason: "a vertex shader bound as the pixel program",
            },
            PipelineError::VertexBufferTooSmall {
                needed: 12,
                available: 10,
            },
            PipelineError::IndexBufferTooSmall {
                needed: 6,
                available: 3,
            },
            PipelineError::ThreadPool("the system refused a thread".into()),
            PipelineError::TooManyThreads {
                requested: 100_000,
                max: crate::limits::MAX_THREADS as u64,
            },
            PipelineError::Stopped,
            PipelineError::Png("disk full".into()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::EnumCount;

    #[test]
    fn examples_cover_every_kind_once() {
        softhal_testkit::check_one_example_per_kind(
            &PipelineError::examples(),
            PipelineError::kind,
            PipelineError::COUNT,
        );
    }
}
