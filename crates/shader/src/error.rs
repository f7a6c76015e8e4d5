//! Errors of the front end, the validator, the assembler and the DirectX 8
//! declaration reader (`decl8`).
//!
//! - In: the DWORD offset of the offending token and what is wrong with it.
//! - Out: [`ShaderError`], whose [`ShaderError::kind`] is a stable name
//!   (tests and the device's error mapping match on it), with the DWORD and
//!   byte offsets a driver reports as `dwErrorOffset`.
//! - Guarantees: every rejection of the crate is one of these values; no
//!   path panics.

use crate::ir::{Opcode, Profile, RegisterType};

/// What is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// The stream is empty.
    #[error("the shader has no version token")]
    Empty,
    /// The first token is not a supported version.
    #[error("unsupported version token {0:#010x}")]
    UnsupportedVersion(u32),
    /// The stream ends before the END token.
    #[error("the stream ends without an END token")]
    MissingEnd,
    /// Tokens follow the END token.
    #[error("{0} tokens follow the END token")]
    TrailingTokens(usize),
    /// An instruction's parameters run past the stream.
    #[error("the instruction runs past the end of the stream")]
    Truncated,
    /// A comment's length runs past the stream.
    #[error("a comment of {0} DWORDs runs past the end of the stream")]
    CommentOverrun(u32),
    /// The opcode value is unassigned.
    #[error("unknown opcode {0:#06x}")]
    UnknownOpcode(u32),
    /// The opcode is not part of this version.
    #[error("{} is not part of {profile}", opcode.ddk_name())]
    OpcodeNotInVersion {
        /// The opcode.
        opcode: Opcode,
        /// The version.
        profile: Profile,
    },
    /// The instruction token's length field disagrees with its parameters.
    #[error("the length field says {declared} parameter DWORDs, the operands take {actual}")]
    LengthMismatch {
        /// Bits 27:24.
        declared: u32,
        /// What the operands take.
        actual: usize,
    },
    /// A token has bits set that its layout reserves, or a field value
    /// that has no meaning (bit 31 of a parameter clear, an unknown register
    /// type, source modifier or shift, an empty write mask, …).
    #[error("malformed token {token:#010x}: {what}")]
    MalformedToken {
        /// The token.
        token: u32,
        /// What is wrong with it.
        what: &'static str,
    },
    /// A register number is out of range for its type in this version.
    #[error("{ty:?} register {index} is out of range (this version has {limit})")]
    RegisterOutOfRange {
        /// Register type.
        ty: RegisterType,
        /// Register number.
        index: u16,
        /// How many the version has.
        limit: u16,
    },
    /// The register type cannot be used here (as this operand, or in this
    /// version).
    #[error("{ty:?} register cannot be used here: {what}")]
    RegisterNotAllowed {
        /// Register type.
        ty: RegisterType,
        /// Why.
        what: &'static str,
    },
    /// A modifier, swizzle, mask, co-issue or predicate the version or the
    /// instruction does not allow.
    #[error("modifier not allowed: {0}")]
    ModifierNotAllowed(&'static str),
    /// Relative addressing where the version or register does not allow it.
    #[error("relative addressing not allowed: {0}")]
    RelativeNotAllowed(&'static str),
    /// Too many instruction slots for the version.
    #[error("{what} instruction slots: {count} > {limit}")]
    TooManySlots {
        /// Which budget ("arithmetic", "texture", "total").
        what: &'static str,
        /// Slots used up to the failing instruction.
        count: u32,
        /// The version's limit.
        limit: u32,
    },
    /// A flow-control instruction without its opening partner.
    #[error("{0} without a matching opening instruction")]
    UnmatchedBlockEnd(&'static str),
    /// A block is still open at the end of the program or subroutine.
    #[error("{0} block is not closed")]
    UnclosedBlock(&'static str),
    /// Nesting deeper than the version allows.
    #[error("{what} nesting deeper than {limit}")]
    NestingTooDeep {
        /// Which nesting ("loop/rep", "if", "call").
        what: &'static str,
        /// The limit.
        limit: u32,
    },
    /// A break outside any loop or repeat.
    #[error("break outside a loop or rep")]
    BreakOutsideLoop,
    /// A call to a label that is not defined, a label defined twice, a
    /// subroutine without a `ret`, recursion, code after `ret`.
    #[error("subroutine structure: {0}")]
    Subroutine(&'static str),
    /// A register read (or written) that the version requires to be
    /// declared first.
    #[error("{ty:?} register {index} is used without a dcl")]
    Undeclared {
        /// Register type.
        ty: RegisterType,
        /// Register number.
        index: u16,
    },
    /// A declaration that is malformed, duplicated or misplaced.
    #[error("bad declaration: {0}")]
    BadDeclaration(&'static str),
    /// A `def`/`defi`/`defb` that is malformed (non-finite float, BOOL other
    /// than 0 or 1).
    #[error("bad constant definition: {0}")]
    BadDefinition(&'static str),
    /// A version-specific rule about an instruction's operands.
    #[error("bad operand: {0}")]
    BadOperand(&'static str),
    /// ps_1_1–1_3's texture-register rules: texture instructions before
    /// arithmetic, each t# written once and only read once written, the
    /// `texm3x2*`/`texm3x3*` sequences complete and on consecutive
    /// registers.
    #[error("texture register sequence: {0}")]
    TextureSequence(&'static str),
    /// A DirectX 8 declaration token (`D3DVSD_CONST`, an extension) whose
    /// count of data DWORDs runs past the end of the declaration.
    #[error("the token's {0} data DWORDs run past the end of the declaration")]
    DeclarationDataOverrun(u32),
    /// Assembly text that cannot be assembled (`line` is 1-based).
    #[error("line {line}: {what}")]
    Syntax {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        what: String,
    },
}

impl ErrorKind {
    /// A stable name for the kind.
    pub fn name(&self) -> &'static str {
        match self {
            ErrorKind::Empty => "empty",
            ErrorKind::UnsupportedVersion(_) => "unsupported_version",
            ErrorKind::MissingEnd => "missing_end",
            ErrorKind::TrailingTokens(_) => "trailing_tokens",
            ErrorKind::Truncated => "truncated",
            ErrorKind::CommentOverrun(_) => "comment_overrun",
            ErrorKind::UnknownOpcode(_) => "unknown_opcode",
            ErrorKind::OpcodeNotInVersion { .. } => "opcode_not_in_version",
            ErrorKind::LengthMismatch { .. } => "length_mismatch",
            ErrorKind::MalformedToken { .. } => "malformed_token",
            ErrorKind::RegisterOutOfRange { .. } => "register_out_of_range",
            ErrorKind::RegisterNotAllowed { .. } => "register_not_allowed",
            ErrorKind::ModifierNotAllowed(_) => "modifier_not_allowed",
            ErrorKind::RelativeNotAllowed(_) => "relative_not_allowed",
            ErrorKind::TooManySlots { .. } => "too_many_slots",
            ErrorKind::UnmatchedBlockEnd(_) => "unmatched_block_end",
            ErrorKind::UnclosedBlock(_) => "unclosed_block",
            ErrorKind::NestingTooDeep { .. } => "nesting_too_deep",
            ErrorKind::BreakOutsideLoop => "break_outside_loop",
            ErrorKind::Subroutine(_) => "subroutine",
            ErrorKind::Undeclared { .. } => "undeclared",
            ErrorKind::BadDeclaration(_) => "bad_declaration",
            ErrorKind::BadDefinition(_) => "bad_definition",
            ErrorKind::BadOperand(_) => "bad_operand",
            ErrorKind::TextureSequence(_) => "texture_sequence",
            ErrorKind::DeclarationDataOverrun(_) => "declaration_data_overrun",
            ErrorKind::Syntax { .. } => "syntax",
        }
    }
}

/// A rejected shader: what and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("shader token {dword} (byte {}): {kind}", self.byte_offset())]
pub struct ShaderError {
    /// What is wrong.
    pub kind: ErrorKind,
    /// DWORD offset of the offending token from the start of the stream
    /// (the version token is 0). For assembly errors, the line is in the
    /// kind and this is 0.
    pub dword: usize,
}

impl ShaderError {
    /// An error at DWORD `dword`.
    pub fn new(kind: ErrorKind, dword: usize) -> ShaderError {
        ShaderError { kind, dword }
    }

    /// The stable name of the kind (`"register_out_of_range"`).
    pub fn kind(&self) -> &'static str {
        self.kind.name()
    }

    /// The byte offset of the offending token (4 × the DWORD offset).
    pub fn byte_offset(&self) -> usize {
        self.dword.saturating_mul(4)
    }
}
