//! Capture errors.
//!
//! In: every failure of loading a binary or text capture. Out: [`LoadError`]
//! (binary: the record number and the byte offset where it went wrong) and
//! [`TextError`] (text: the 1-based line). A file that ends early (a cut:
//! [`LoadError::is_cut`], [`crate::AnyLoadError::is_cut`]) is one of these
//! errors too; the `_prefix` loaders return it with the complete records
//! before it. Replaying never fails on what a capture contains — the
//! driver's answers are the result — so there is no replay error type
//! beyond driver construction ([`mod@crate::replay`]).

/// What is wrong with a binary capture.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoadErrorKind {
    /// The file does not start with the capture magic.
    #[error("not a softhal capture (bad magic)")]
    BadMagic,
    /// A version this build does not read.
    #[error("capture version {found} is not supported (this build reads version {supported})")]
    UnsupportedVersion {
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        supported: u32,
    },
    /// Header flags this build does not know.
    #[error("header flags {0:#x} are not defined")]
    BadHeaderFlags(u32),
    /// The file ends inside the header, a record header or a payload.
    #[error("truncated: {what} needs {need} byte(s), {have} left")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Bytes needed.
        need: u64,
        /// Bytes left.
        have: u64,
    },
    /// The file ends without the end record.
    #[error("truncated: the end record is missing")]
    MissingEnd,
    /// Bytes after the end record.
    #[error("{0} byte(s) after the end record")]
    TrailingBytes(u64),
    /// The end record's count disagrees with the records read.
    #[error("end record counts {claimed} record(s), {actual} were read")]
    CountMismatch {
        /// Count in the end record.
        claimed: u32,
        /// Records read.
        actual: usize,
    },
    /// An unknown record type not marked skippable.
    #[error("unknown record type {0} (not marked skippable)")]
    UnknownRecord(u16),
    /// A reserved record type whose issue has not landed.
    #[error("record type {code} ({name}) is reserved: {why}")]
    Reserved {
        /// Type code.
        code: u16,
        /// Name.
        name: &'static str,
        /// Why it cannot be read yet.
        why: &'static str,
    },
    /// Record-header flags this build does not know.
    #[error("record flags {0:#x} are not defined")]
    BadRecordFlags(u16),
    /// A size beyond [`crate::limits`].
    #[error("{what} = {value} exceeds the limit {limit}")]
    TooLarge {
        /// What.
        what: &'static str,
        /// Value found.
        value: u64,
        /// The cap.
        limit: u64,
    },
    /// A field holds a value with no meaning.
    #[error("{what}: invalid value {value:#x}")]
    BadValue {
        /// Field.
        what: &'static str,
        /// Value.
        value: u64,
    },
    /// The payload has bytes its record type does not use.
    #[error("{0} unused byte(s) at the end of the payload")]
    PayloadTooLong(u64),
}

/// A binary capture that cannot be loaded: where, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("record {record} at byte offset {offset}: {kind}")]
pub struct LoadError {
    /// 0-based number of the record being read (the header is record 0's
    /// prefix; the end record counts too).
    pub record: usize,
    /// Byte offset in the file where the problem was found.
    pub offset: u64,
    /// What is wrong.
    pub kind: LoadErrorKind,
}

/// A text capture that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct TextError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}
