//! # softhal-capture: recording and replaying what a host did with the driver
//!
//! A **capture** is the sequence of calls a host (a Direct3D runtime, an
//! emulator, a test) made on a [`softhal_device::Driver`] — surface
//! creation with initial contents, locks with the bytes written, contexts,
//! every DrawPrimitives2 call with all of its `D3DHAL_DRAWPRIMITIVES2DATA`
//! fields, command bytes and user-memory vertices, Clear2,
//! ValidateTextureStageState, flips and presents, render-callback
//! submissions and their GPU contexts — together with the
//! driver's answers (`ddrval`, `dwErrorOffset`, returned flags, frame
//! checksums), so that a replay can check them.
//!
//! * In: untrusted capture bytes ([`binary::decode`]) or text
//!   ([`text::from_text`]); or live calls through a [`Recorder`] (which
//!   owns the driver) or an [`Observer`] (told about each call on a driver
//!   the host keeps owning; the recorder is built on it).
//! * Out: a [`Capture`]; its binary ([`binary::encode`]) and canonical text
//!   ([`text::to_text`]) forms; a [`replay::Replay`] (frames as RGBA8 with
//!   FNV-1a 64 checksums, the driver's answers, the differences from the
//!   recorded ones); a [`info::Summary`].
//! * Guarantees: loading never panics, never reads outside its input,
//!   allocates only in proportion to the input and within
//!   [`limits`], and reports the record number and byte offset (binary) or
//!   line (text) of the first problem. `text::from_text(text::to_text(c))
//!   == c` and `binary::decode(binary::encode(c)) == c` for every capture.
//!   Replay never fails on capture contents: whatever the driver answers
//!   is the result.
//!
//! The format is specified in `docs/capture-format.md`.

#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod binary;
pub mod error;
pub mod info;
pub mod limits;
pub mod observer;
pub mod record;
pub mod recorder;
pub mod replay;
pub mod text;
pub mod vertex;

pub use error::{LoadError, LoadErrorKind, TextError};
pub use observer::Observer;
pub use record::{
    fnv1a64, Answer, Capture, Clear2Call, Dp2Call, LockApi, Record, SubmitAllocation, SubmitCall,
    SurfaceSpec,
};
pub use recorder::Recorder;
pub use replay::{replay, replay_with_timeout, Replay, Replayer};

/// A capture loaded from bytes of either form.
#[derive(Debug, thiserror::Error)]
pub enum AnyLoadError {
    /// The binary form is invalid.
    #[error("{0}")]
    Binary(#[from] LoadError),
    /// The text form is invalid.
    #[error("{0}")]
    Text(#[from] TextError),
    /// Neither a binary (magic) nor a text (`.capture`) capture.
    #[error("not a capture (no SHALCAP magic, no leading .capture directive)")]
    NotACapture,
}

/// True when `bytes` look like a capture of either form (binary magic, or
/// UTF-8 text whose first directive is `.capture`).
pub fn is_capture(bytes: &[u8]) -> bool {
    binary::is_binary_capture(bytes) || std::str::from_utf8(bytes).is_ok_and(text::is_text_capture)
}

/// Loads a capture of either form; `base` resolves `png=` paths of text.
pub fn load(bytes: &[u8], base: Option<&std::path::Path>) -> Result<Capture, AnyLoadError> {
    if binary::is_binary_capture(bytes) {
        return Ok(binary::decode(bytes)?);
    }
    match std::str::from_utf8(bytes) {
        Ok(s) if text::is_text_capture(s) => Ok(text::from_text(s, base)?),
        _ => Err(AnyLoadError::NotACapture),
    }
}
