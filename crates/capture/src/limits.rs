//! Every size cap of the capture loaders, in one place.
//!
//! In: nothing (constants). Out: the bounds [`crate::binary`] and
//! [`crate::text`] check untrusted captures against. Guarantee: loading a
//! capture allocates at most a small constant factor of its own size — no
//! count or length read from the file is trusted before it has been checked
//! against the bytes that remain. Surface dimensions are not capped here:
//! the replaying driver applies its own checks (`softhal_device::limits`)
//! and a refused creation is an answer like any other.

/// Largest capture accepted, binary or text (1 GiB).
pub const MAX_CAPTURE_BYTES: u64 = 1024 * 1024 * 1024;
/// Largest number of records in one capture.
pub const MAX_RECORDS: usize = 4 * 1024 * 1024;
/// Largest payload of one record (the largest device buffer, 256 MiB, plus
/// room for the fixed fields).
pub const MAX_RECORD_BYTES: u64 = 256 * 1024 * 1024 + 4096;
/// Rectangles of one Clear2 record.
pub const MAX_CLEAR_RECTS: u32 = 65_536;
/// Vertex rows of one `.vertices` block in the text form.
pub const MAX_TEXT_VERTICES: usize = 1 << 20;
/// Lines of one text capture.
pub const MAX_TEXT_LINES: usize = 16 * 1024 * 1024;
/// Pixels of a PNG referenced by a text capture (`png=`): 8192².
pub const MAX_PNG_PIXELS: u64 = 8192 * 8192;
