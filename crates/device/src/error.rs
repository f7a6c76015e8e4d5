//! Device errors and their DDI codes.
//!
//! In: every failure the device detects. Out: [`DeviceError`] (one variant
//! per cause, with the numbers needed to understand it) and, at the DDI
//! boundary, [`DeviceError::ddrval`]: the `ddrval` HRESULT from
//! `softhal_wire::names::codes`. Inside `DrawPrimitives2` every command
//! failure is reported as `D3DERR_COMMAND_UNPARSED` at the command's offset
//! (the DDI's only per-command error); [`DeviceError::ddrval`] is what the
//! other entry points (surface creation, lock, ContextCreate, Clear2, ...)
//! return, and what [`crate::Driver::last_error`] explains.

use softhal_pipeline::PipelineError;
use softhal_wire::fvf::FvfError;
use softhal_wire::names::codes;
use softhal_wire::DecodeError;

/// Everything that can go wrong in the device.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, strum::EnumCount)]
#[non_exhaustive]
pub enum DeviceError {
    /// A handle that does not name a live object of this driver (never
    /// created, destroyed, or from another driver).
    #[error("{what} handle {handle:#x} is not valid")]
    BadHandle {
        /// The raw handle.
        handle: u32,
        /// What kind of object it should name.
        what: &'static str,
    },
    /// The handle names an object of the wrong kind.
    #[error("handle {handle:#x} is a {actual}, expected a {expected}")]
    WrongKind {
        /// The raw handle.
        handle: u32,
        /// What was expected.
        expected: &'static str,
        /// What it is.
        actual: &'static str,
    },
    /// The command stream could not be parsed.
    #[error("command stream: {0}")]
    Decode(#[from] DecodeError),
    /// An unknown opcode that no `D3dParseUnknownCommand` hook parsed.
    #[error("unknown opcode {opcode} not parsed by the host")]
    UnknownCommand {
        /// The opcode byte.
        opcode: u8,
    },
    /// A value outside the range the device supports or the data holds.
    #[error("{what} = {value} is out of range (limit {limit})")]
    OutOfRange {
        /// What was checked.
        what: &'static str,
        /// The value.
        value: u64,
        /// The first value not allowed (or the size available).
        limit: u64,
    },
    /// An enumerated or flag value the DDI does not define.
    #[error("{what}: invalid value {value:#x}")]
    BadValue {
        /// The field.
        what: &'static str,
        /// The value.
        value: u32,
    },
    /// A D3DFORMAT the surface kind cannot have (DDERR_INVALIDPIXELFORMAT).
    #[error("{usage}: unsupported D3DFORMAT {format}")]
    UnsupportedFormat {
        /// The D3DFORMAT number.
        format: u32,
        /// What the surface is for.
        usage: &'static str,
    },
    /// A cap of [`crate::limits`] would be exceeded.
    #[error("{what}: limit of {max} reached")]
    Limit {
        /// What is limited.
        what: &'static str,
        /// The cap.
        max: u64,
    },
    /// An invalid FVF code.
    #[error("{0}")]
    Fvf(#[from] FvfError),
    /// The vertex format has no position (nothing can be drawn).
    #[error("vertex format has no position")]
    NoPosition,
    /// A shader or declaration token stream is malformed (sizes, the
    /// version's kind, DX8 declaration tokens).
    #[error("shader tokens: {0}")]
    BadShader(&'static str),
    /// Shader code that breaks a rule of its version: the shader crate's
    /// error, with the rule (`kind()`) and the DWORD inside the shader.
    #[error("invalid shader: {0}")]
    InvalidShader(#[from] softhal_shader::ShaderError),
    /// Drawing needs something this device does not implement.
    #[error("not implemented: {0}")]
    Unsupported(&'static str),
    /// A state-block operation out of order.
    #[error("state block: {0}")]
    StateBlock(&'static str),
    /// The pipeline rejected a draw or a clear.
    #[error("pipeline: {0}")]
    Pipeline(#[from] PipelineError),
    /// The kernel side refused a submission (a device bug or a limit).
    #[error("submission: {0}")]
    Submit(#[from] softhal_submit::SubmitError),
    /// Invalid `dwhContext`.
    #[error("invalid context handle {0:#x}")]
    ContextBad(u32),
    /// The render target is being flipped.
    #[error("render target flip pending")]
    WasStillDrawing,
    /// A call parameter (not a command) is invalid.
    #[error("invalid parameter: {0}")]
    InvalidParams(&'static str),
    /// A surface's total storage would exceed the driver's budget.
    #[error("out of surface memory")]
    OutOfMemory,
}

impl DeviceError {
    /// The `ddrval` this error is reported as outside `DrawPrimitives2`'s
    /// per-command path.
    pub fn ddrval(&self) -> u32 {
        match self {
            DeviceError::BadHandle { .. } | DeviceError::WrongKind { .. } => {
                codes::DDERR_INVALIDOBJECT
            }
            DeviceError::Decode(_) | DeviceError::UnknownCommand { .. } => {
                codes::D3DERR_COMMAND_UNPARSED
            }
            DeviceError::OutOfRange { .. }
            | DeviceError::BadValue { .. }
            | DeviceError::InvalidParams(_) => codes::DDERR_INVALIDPARAMS,
            DeviceError::Limit { .. } | DeviceError::OutOfMemory => codes::DDERR_OUTOFMEMORY,
            DeviceError::Fvf(_) | DeviceError::NoPosition => codes::D3DERR_INVALIDVERTEXFORMAT,
            DeviceError::BadShader(_) | DeviceError::InvalidShader(_) => codes::D3DERR_INVALIDCALL,
            DeviceError::Unsupported(_) => codes::DDERR_UNSUPPORTED,
            DeviceError::StateBlock(_) => codes::D3DERR_INVALIDSTATEBLOCK,
            DeviceError::Pipeline(PipelineError::BadFormat { .. })
            | DeviceError::UnsupportedFormat { .. } => codes::DDERR_INVALIDPIXELFORMAT,
            // What the caller asked for is impossible: its own error.
            DeviceError::Pipeline(
                PipelineError::BadDimensions { .. }
                | PipelineError::BadPitch { .. }
                | PipelineError::DepthTooSmall { .. }
                | PipelineError::BadVertexLayout { .. }
                | PipelineError::VertexBufferTooSmall { .. }
                | PipelineError::IndexBufferTooSmall { .. }
                | PipelineError::TooManyThreads { .. },
            ) => codes::DDERR_INVALIDPARAMS,
            DeviceError::Pipeline(PipelineError::SurfaceTooLarge { .. }) => {
                codes::DDERR_OUTOFMEMORY
            }
            // The GPU watchdog: the work was stopped (the kernel reports
            // it as a removed context).
            DeviceError::Pipeline(PipelineError::Stopped) => codes::D3DDDIERR_DEVICEREMOVED,
            // Only what the caller cannot cause (no thread pool, PNG I/O).
            DeviceError::Pipeline(_) => codes::D3DERR_DRIVERINTERNALERROR,
            DeviceError::Submit(e) => e.hresult(),
            DeviceError::ContextBad(_) => codes::D3DHAL_CONTEXT_BAD,
            DeviceError::WasStillDrawing => codes::DDERR_WASSTILLDRAWING,
        }
    }
}

impl DeviceError {
    /// Whether this is the context's removal (`D3DDDIERR_DEVICEREMOVED`:
    /// the GPU watchdog stopped its work), which a DP2 call reports as its
    /// own outcome rather than as a command's error.
    pub fn is_device_removed(&self) -> bool {
        matches!(
            self,
            DeviceError::Submit(softhal_submit::SubmitError::DeviceRemoved { .. })
        )
    }

    /// A stable snake_case name of the cause, for logs, tools and
    /// `docs/errors.md` (the wrapped layers' errors have their own kinds:
    /// [`DecodeError::kind`](softhal_wire::DecodeErrorKind::code),
    /// [`PipelineError::kind`], [`SubmitError::kind`](softhal_submit::SubmitError::kind)).
    pub fn kind(&self) -> &'static str {
        match self {
            DeviceError::BadHandle { .. } => "bad_handle",
            DeviceError::WrongKind { .. } => "wrong_kind",
            DeviceError::Decode(_) => "decode",
            DeviceError::UnknownCommand { .. } => "unknown_command",
            DeviceError::OutOfRange { .. } => "out_of_range",
            DeviceError::BadValue { .. } => "bad_value",
            DeviceError::UnsupportedFormat { .. } => "unsupported_format",
            DeviceError::Limit { .. } => "limit",
            DeviceError::Fvf(_) => "fvf",
            DeviceError::NoPosition => "no_position",
            DeviceError::BadShader(_) => "bad_shader",
            DeviceError::InvalidShader(_) => "invalid_shader",
            DeviceError::Unsupported(_) => "unsupported",
            DeviceError::StateBlock(_) => "state_block",
            DeviceError::Pipeline(_) => "pipeline",
            DeviceError::Submit(_) => "submit",
            DeviceError::ContextBad(_) => "context_bad",
            DeviceError::WasStillDrawing => "was_still_drawing",
            DeviceError::InvalidParams(_) => "invalid_params",
            DeviceError::OutOfMemory => "out_of_memory",
        }
    }

    /// One error of every kind (`docs/errors.md` is generated from these;
    /// the wrapped layers list theirs with their own `examples`).
    pub fn examples() -> Vec<DeviceError> {
        vec![
            DeviceError::BadHandle {
                handle: 0x0001_0007,
                what: "texture",
            },
            DeviceError::WrongKind {
                handle: 0x0001_0002,
                expected: "vertex buffer",
                actual: "render target",
            },
            DeviceError::Decode(DecodeError {
                offset: 8,
                opcode: Some(3),
                kind: softhal_wire::DecodeErrorKind::TruncatedPayload {
                    needed: 8,
                    available: 4,
                },
            }),
            DeviceError::UnknownCommand { opcode: 200 },
            DeviceError::OutOfRange {
                what: "light index",
                value: 300,
                limit: u64::from(crate::limits::MAX_LIGHTS),
            },
            DeviceError::BadValue {
                what: "D3DTRANSFORMSTATETYPE",
                value: 99,
            },
            DeviceError::UnsupportedFormat {
                format: 50,
                usage: "a render target",
            },
            DeviceError::Limit {
                what: "surfaces",
                max: crate::limits::MAX_SURFACES as u64,
            },
            DeviceError::Fvf(FvfError::Reserved0(0x1)),
            DeviceError::NoPosition,
            DeviceError::BadShader("declaration without an END token"),
            DeviceError::InvalidShader(softhal_shader::ShaderError::new(
                softhal_shader::ErrorKind::RegisterOutOfRange {
                    ty: softhal_shader::ir::RegisterType::Const,
                    index: 40,
                    limit: 32,
                },
                3,
            )),
            DeviceError::Unsupported("stream frequency dividers (instancing)"),
            DeviceError::StateBlock("END without BEGIN"),
            DeviceError::Pipeline(PipelineError::BadDimensions {
                width: 0,
                height: 16,
                max: softhal_pipeline::limits::MAX_DIMENSION,
            }),
            DeviceError::Submit(softhal_submit::SubmitError::InvalidArg(
                "reserved flag bits",
            )),
            DeviceError::ContextBad(0x0001_0009),
            DeviceError::WasStillDrawing,
            DeviceError::InvalidParams(
                "dwCommandOffset + dwCommandLength exceeds the command surface",
            ),
            DeviceError::OutOfMemory,
        ]
    }
}

/// Shorthand.
pub type Result<T, E = DeviceError> = core::result::Result<T, E>;

/// An [`DeviceError::OutOfRange`].
pub(crate) fn range(what: &'static str, value: u64, limit: u64) -> DeviceError {
    DeviceError::OutOfRange { what, value, limit }
}

/// Fails with [`DeviceError::OutOfRange`] unless `value < limit`.
pub(crate) fn check_below(what: &'static str, value: u64, limit: u64) -> Result<()> {
    if value < limit {
        Ok(())
    } else {
        Err(range(what, value, limit))
    }
}

#[cfg(test)]
mod kind_tests {
    use super::*;
    use strum::EnumCount;

    #[test]
    fn examples_cover_every_kind_once() {
        softhal_testkit::check_one_example_per_kind(
            &DeviceError::examples(),
            DeviceError::kind,
            DeviceError::COUNT,
        );
    }
}
