//! Decode and encode errors.
//!
//! Every [`DecodeError`] carries the byte offset of the first command that
//! cannot be parsed (this becomes `dwErrorOffset` in the device), the raw
//! opcode byte when a header could be read, and a [`DecodeErrorKind`] that says
//! exactly what was wrong, with the numbers needed to understand it.

use thiserror::Error;

/// Why a command could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, Error, strum::EnumCount)]
pub enum DecodeErrorKind {
    /// Fewer than 4 bytes left for the command header.
    #[error("truncated command header: {available} byte(s) left, a header needs 4")]
    TruncatedHeader {
        /// Bytes left in the stream.
        available: usize,
    },
    /// The payload runs past the end of the stream.
    #[error("truncated payload: the command needs {needed} payload byte(s), {available} left")]
    TruncatedPayload {
        /// Payload bytes the command needs (as far as they could be computed).
        needed: u64,
        /// Payload bytes left after the header.
        available: usize,
    },
    /// Inline vertex data of an `_IMM` command runs past the end of the stream.
    #[error("inline vertex data runs past the end: {needed} byte(s) of vertices from offset {data_offset}, {available} left")]
    ImmDataPastEnd {
        /// Offset of the (aligned) first inline vertex.
        data_offset: usize,
        /// Bytes of vertex data the command needs.
        needed: u64,
        /// Bytes left from `data_offset`.
        available: usize,
    },
    /// A size computed from counts does not fit the arithmetic.
    #[error("count overflow: {what}")]
    CountOverflow {
        /// Which size overflowed.
        what: &'static str,
    },
    /// An `_IMM` command needs the vertex stride, and none was given.
    #[error("inline vertices need a vertex stride (an FVF), and the stride is 0")]
    NoVertexStride,
    /// A response record's `dwTotalSize` disagrees with its contents.
    #[error("response size mismatch: dwTotalSize is {total_size}, its contents need {needed}")]
    BadResponseSize {
        /// The declared total size.
        total_size: u32,
        /// The size the header and entries need.
        needed: u64,
    },
    /// The opcode is not one this layer knows (only reported by tools that
    /// have no `D3dParseUnknownCommand` host to hand it to).
    #[error("unknown opcode {opcode}")]
    UnknownOpcode {
        /// The opcode byte.
        opcode: u8,
    },
    /// A `resume_at` target that would not make progress or is out of range.
    #[error("bad resume offset {target}: must be after {current} and at most {len}")]
    BadResume {
        /// Requested offset.
        target: usize,
        /// Offset of the command that could not be parsed.
        current: usize,
        /// Stream length.
        len: usize,
    },
}

impl DecodeErrorKind {
    /// A stable snake_case name for machine-readable output.
    pub fn code(&self) -> &'static str {
        match self {
            DecodeErrorKind::TruncatedHeader { .. } => "truncated_header",
            DecodeErrorKind::TruncatedPayload { .. } => "truncated_payload",
            DecodeErrorKind::ImmDataPastEnd { .. } => "imm_data_past_end",
            DecodeErrorKind::CountOverflow { .. } => "count_overflow",
            DecodeErrorKind::NoVertexStride => "no_vertex_stride",
            DecodeErrorKind::BadResponseSize { .. } => "bad_response_size",
            DecodeErrorKind::UnknownOpcode { .. } => "unknown_opcode",
            DecodeErrorKind::BadResume { .. } => "bad_resume",
        }
    }

    /// One error of every kind (`docs/errors.md` is generated from these).
    pub fn examples() -> Vec<DecodeErrorKind> {
        vec![
            DecodeErrorKind::TruncatedHeader { available: 2 },
            DecodeErrorKind::TruncatedPayload {
                needed: 8,
                available: 4,
            },
            DecodeErrorKind::ImmDataPastEnd {
                data_offset: 16,
                needed: 60,
                available: 40,
            },
            DecodeErrorKind::CountOverflow {
                what: "index bytes",
            },
            DecodeErrorKind::NoVertexStride,
            DecodeErrorKind::BadResponseSize {
                total_size: 8,
                needed: 12,
            },
            DecodeErrorKind::UnknownOpcode { opcode: 200 },
            DecodeErrorKind::BadResume {
                target: 4,
                current: 8,
                len: 64,
            },
        ]
    }
}

/// A command that could not be parsed, and where.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("at byte offset {offset}{}: {kind}", opcode_suffix(*.opcode))]
pub struct DecodeError {
    /// Byte offset of the command's header in the decoded slice.
    pub offset: usize,
    /// The opcode byte, when the header could be read.
    pub opcode: Option<u8>,
    /// What was wrong.
    pub kind: DecodeErrorKind,
}

fn opcode_suffix(opcode: Option<u8>) -> String {
    match opcode {
        Some(op) => match crate::Opcode::from_raw(op) {
            Some(o) => format!(" ({})", o.name()),
            None => format!(" (opcode {op})"),
        },
        None => String::new(),
    }
}

/// Why a command could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EncodeError {
    /// More records than the 16-bit count field can hold.
    #[error("{what}: {count} does not fit the 16-bit count field")]
    CountTooLarge {
        /// What was counted.
        what: &'static str,
        /// The count.
        count: usize,
    },
    /// A length field of a record does not fit 32 bits.
    #[error("{what}: {len} bytes do not fit a DWORD length")]
    LengthTooLarge {
        /// Which length.
        what: &'static str,
        /// The length.
        len: usize,
    },
    /// Inline vertex bytes are not a whole number of vertices of the stride.
    #[error("inline vertices: {len} bytes are not {expected} vertices of {stride} bytes")]
    BadInlineVertices {
        /// Bytes given.
        len: usize,
        /// Vertices the count implies.
        expected: u64,
        /// Stride in bytes.
        stride: u32,
    },
    /// A record's declared contents disagree with its data (e.g. a
    /// declared size that is not the length of the bytes given).
    #[error("{0}")]
    Inconsistent(&'static str),
    /// `Unknown` commands carry no payload and cannot be encoded.
    #[error("an unknown opcode ({0}) cannot be encoded")]
    Unknown(u8),
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::EnumCount;

    #[test]
    fn examples_cover_every_kind_once() {
        softhal_testkit::check_one_example_per_kind(
            &DecodeErrorKind::examples(),
            DecodeErrorKind::code,
            DecodeErrorKind::COUNT,
        );
    }
}
