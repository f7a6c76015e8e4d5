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
//! * Out: a [`Capture`] (with [`load_prefix`], the complete records of a
//!   cut one and where it was cut); its binary ([`binary::encode`]) and
//!   canonical text ([`text::to_text`]) forms; a replay ([`replay_into`]:
//!   frames as RGBA8 with FNV-1a 64 checksums handed to a [`Sink`] as they
//!   are presented, the driver's answers, refusals with its reasons, the
//!   differences from the recorded answers; [`replay()`] collects them into a
//!   [`Replay`]); a [`info::Summary`].
//! * Guarantees: loading never panics, never reads outside its input,
//!   allocates only in proportion to the input and within
//!   [`limits`], and reports the record number and byte offset (binary) or
//!   line (text) of the first problem. `text::from_text(text::to_text(c))
//!   == c` and `binary::decode(binary::encode(c)) == c` for every capture.
//!   Replay never fails on capture contents: whatever the driver answers
//!   is the result; a streaming replay holds the capture's live surfaces
//!   and one frame at a time, however many frames it presents.
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
pub mod history;
pub mod info;
pub mod limits;
pub mod logging;
pub mod observer;
pub mod record;
pub mod recorder;
pub mod replay;
pub mod text;
pub mod vertex;

pub use error::{LoadError, LoadErrorKind, TextError};
pub use history::{pixel_history, PixelHistoryReport};
pub use observer::Observer;
pub use record::{
    fnv1a64, fnv1a64_continue, Answer, Capture, Clear2Call, Dp2Call, LockApi, Record,
    SubmitAllocation, SubmitCall, SurfaceSpec,
};
pub use recorder::Recorder;
pub use replay::{
    replay, replay_into, replay_with_timeout, Frame, FrameKind, Refusal, Replay, Replayer, Sink,
    Step,
};

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
/// A capture that was cut is an error ([`load_prefix`] keeps what precedes
/// the cut).
pub fn load(bytes: &[u8], base: Option<&std::path::Path>) -> Result<Capture, AnyLoadError> {
    match load_prefix(bytes, base)? {
        Loaded { capture, cut: None } => Ok(capture),
        Loaded { cut: Some(e), .. } => Err(e),
    }
}

/// A capture loaded up to the point where its input ends.
#[derive(Debug)]
pub struct Loaded {
    /// Every complete record before the cut (all of them if there is none).
    pub capture: Capture,
    /// Where the input ends early, if it does ([`AnyLoadError::is_cut`]).
    pub cut: Option<AnyLoadError>,
}

impl AnyLoadError {
    /// True when the input ends before the capture does (a truncated file):
    /// the records before it are complete and can be replayed.
    pub fn is_cut(&self) -> bool {
        match self {
            AnyLoadError::Binary(e) => e.is_cut(),
            AnyLoadError::Text(e) => e.message.ends_with(text::CUT),
            AnyLoadError::NotACapture => false,
        }
    }
}

/// Loads a capture of either form that may have been cut: every complete
/// record before the cut, and the cut ([`binary::decode_prefix`],
/// [`text::from_text_prefix`]; a text cut inside a UTF-8 sequence is a cut
/// inside its line). Any other problem fails the load.
pub fn load_prefix(bytes: &[u8], base: Option<&std::path::Path>) -> Result<Loaded, AnyLoadError> {
    if binary::is_binary_capture(bytes) {
        let (capture, cut) = binary::decode_prefix(bytes)?;
        return Ok(Loaded {
            capture,
            cut: cut.map(AnyLoadError::from),
        });
    }
    let src = match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        // Cut inside a character: the replacement character keeps the last
        // line without its newline, which is what marks it as cut.
        Err(e) if e.error_len().is_none() => String::from_utf8_lossy(bytes),
        Err(_) => return Err(AnyLoadError::NotACapture),
    };
    if !text::is_text_capture(&src) {
        return Err(AnyLoadError::NotACapture);
    }
    let (capture, cut) = text::from_text_prefix(&src, base)?;
    Ok(Loaded {
        capture,
        cut: cut.map(AnyLoadError::from),
    })
}
