//! Submission errors and their HRESULTs.
//!
//! In: every reason the kernel side rejects a call or a submission. Out:
//! [`SubmitError`] and, at the callback boundary, [`SubmitError::hresult`]
//! (values from `softhal_wire::names::codes`, the DDK's `D3DDDIERR_*` and
//! `E_*` codes; `docs/errors.md` lists each kind with its code).

use softhal_wire::names::codes;

/// Why a render callback (or another kernel call) failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, strum::EnumCount)]
#[non_exhaustive]
pub enum SubmitError {
    /// A privileged packet (fence, residency, context switch) in a user
    /// buffer. → `D3DDDIERR_PRIVILEGEDINSTRUCTION`.
    #[error(
        "privileged packet {} ({opcode:#04x}) at byte {offset} of a user buffer",
        crate::packet::name_of(*opcode)
    )]
    Privileged {
        /// Opcode.
        opcode: u8,
        /// Byte offset of the packet in the command buffer.
        offset: u32,
    },
    /// An unknown packet, reserved flag bits, a packet the engine cannot
    /// run, or operands the hardware cannot execute (bad register value,
    /// range outside an allocation, draw without bindings).
    /// → `D3DDDIERR_INVALIDINSTRUCTION`.
    #[error("invalid instruction at byte {offset}: {reason}{}", register_suffix(.register))]
    Invalid {
        /// Byte offset of the packet.
        offset: u32,
        /// What is wrong.
        reason: &'static str,
        /// The register a refused SET_REGS write named (`crate::regs`).
        register: Option<u32>,
    },
    /// An allocation-list entry naming no live allocation, a patch location
    /// naming an entry outside the list, an unpatched reference, or a write
    /// through an entry without WriteOperation. → `D3DDDIERR_INVALIDHANDLE`.
    #[error("invalid handle: {reason} ({value:#x})")]
    Handle {
        /// What is wrong.
        reason: &'static str,
        /// The handle, index or offset concerned.
        value: u32,
    },
    /// A referenced allocation is locked by the CPU and cannot be moved.
    /// → `D3DDDIERR_CANTRENDERLOCKEDALLOCATION`.
    #[error("allocation {0:#x} is locked and cannot be moved")]
    Locked(u32),
    /// A CREATE_SHADER packet whose tokens break a rule of their shader
    /// version (`softhal_shader`'s validator, `docs/shaders.md`).
    /// → `D3DDDIERR_INVALIDINSTRUCTION`.
    #[error("invalid shader in the packet at byte {offset}: {rule} at token {dword}")]
    Shader {
        /// Byte offset of the packet.
        offset: u32,
        /// DWORD offset of the offending token in the shader (the version
        /// token is 0).
        dword: u32,
        /// The broken rule (`softhal_shader::ShaderError::kind`).
        rule: &'static str,
    },
    /// Lengths that do not match the packets, packets past CommandLength, a
    /// patch location outside the buffer or not on a reference.
    /// → `D3DDDIERR_INVALIDUSERBUFFER`.
    #[error("invalid user buffer at byte {offset}: {reason}")]
    UserBuffer {
        /// Byte offset concerned.
        offset: u32,
        /// What is wrong.
        reason: &'static str,
    },
    /// A documented limit ([`crate::limits`]) exceeded. → `E_OUTOFMEMORY`.
    #[error("{what}: {value} exceeds the limit {limit}")]
    Limit {
        /// Which limit.
        what: &'static str,
        /// The value asked for.
        value: u64,
        /// The limit.
        limit: u64,
    },
    /// Bad call parameters (reserved flag bits, unknown context, offsets
    /// in the wrong order, non-zero reserved fields). → `E_INVALIDARG`.
    #[error("invalid argument: {0}")]
    InvalidArg(&'static str),
    /// The context is hung: the watchdog stopped one of its submissions
    /// (it ran past the timeout, or the host cancelled it). Destroy the
    /// context and create another. → `D3DDDIERR_DEVICEREMOVED`.
    #[error(
        "context {context:#x} was removed: a submission ran past the GPU timeout or was cancelled"
    )]
    DeviceRemoved {
        /// The hung context.
        context: u32,
    },
}

impl SubmitError {
    /// The HRESULT the callback returns for this error.
    pub fn hresult(&self) -> u32 {
        match self {
            SubmitError::Privileged { .. } => codes::D3DDDIERR_PRIVILEGEDINSTRUCTION,
            SubmitError::Invalid { .. } | SubmitError::Shader { .. } => {
                codes::D3DDDIERR_INVALIDINSTRUCTION
            }
            SubmitError::Handle { .. } => codes::D3DDDIERR_INVALIDHANDLE,
            SubmitError::Locked(_) => codes::D3DDDIERR_CANTRENDERLOCKEDALLOCATION,
            SubmitError::UserBuffer { .. } => codes::D3DDDIERR_INVALIDUSERBUFFER,
            SubmitError::Limit { .. } => codes::E_OUTOFMEMORY,
            SubmitError::InvalidArg(_) => codes::E_INVALIDARG,
            SubmitError::DeviceRemoved { .. } => codes::D3DDDIERR_DEVICEREMOVED,
        }
    }

    /// A stable snake_case name of the cause, for logs, tools and
    /// `docs/errors.md`.
    pub fn kind(&self) -> &'static str {
        match self {
            SubmitError::Privileged { .. } => "privileged",
            SubmitError::Invalid { .. } => "invalid_instruction",
            SubmitError::Shader { .. } => "invalid_shader",
            SubmitError::Handle { .. } => "invalid_handle",
            SubmitError::Locked(_) => "locked_allocation",
            SubmitError::UserBuffer { .. } => "invalid_user_buffer",
            SubmitError::Limit { .. } => "limit",
            SubmitError::InvalidArg(_) => "invalid_arg",
            SubmitError::DeviceRemoved { .. } => "device_removed",
        }
    }

    /// One error of every kind (`docs/errors.md` is generated from these).
    pub fn examples() -> Vec<SubmitError> {
        vec![
            SubmitError::Privileged {
                opcode: 0x80,
                offset: 8,
            },
            SubmitError::Invalid {
                register: None,
                offset: 8,
                reason: "unknown packet",
            },
            SubmitError::Shader {
                offset: 8,
                dword: 2,
                rule: "register_out_of_range",
            },
            SubmitError::Handle {
                reason: "allocation-list entry names no live allocation",
                value: 0x1234,
            },
            SubmitError::Locked(0x1234),
            SubmitError::UserBuffer {
                offset: 12,
                reason: "packet runs past CommandLength",
            },
            SubmitError::Limit {
                what: "command buffer bytes",
                value: u64::from(crate::limits::MAX_COMMAND_BUFFER_BYTES) + 4,
                limit: u64::from(crate::limits::MAX_COMMAND_BUFFER_BYTES),
            },
            SubmitError::InvalidArg("reserved flag bits"),
            SubmitError::DeviceRemoved { context: 3 },
        ]
    }
}

/// Result alias.
pub type Result<T> = std::result::Result<T, SubmitError>;

/// ", register 0x…" when a refused write named one.
fn register_suffix(r: &Option<u32>) -> String {
    r.map(|r| format!(", register {r:#06x}"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::EnumCount;

    #[test]
    fn examples_cover_every_kind_once() {
        softhal_testkit::check_one_example_per_kind(
            &SubmitError::examples(),
            SubmitError::kind,
            SubmitError::COUNT,
        );
    }
}
