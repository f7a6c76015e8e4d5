//! Every cap of the submission path. Exceeding one is `E_OUTOFMEMORY`
//! ([`crate::SubmitError::Limit`]), never a crash or a silent truncation.

/// Largest command buffer the runtime hands out (and largest
/// `CommandLength`), in bytes: 64 MiB.
pub const MAX_COMMAND_BUFFER_BYTES: u32 = 64 << 20;
/// Default command buffer size, in bytes.
pub const DEFAULT_COMMAND_BUFFER_BYTES: u32 = 64 << 10;
/// Largest allocation list (elements).
pub const MAX_ALLOCATION_LIST: u32 = 4096;
/// Default allocation list size (elements).
pub const DEFAULT_ALLOCATION_LIST: u32 = 256;
/// Largest patch-location list (elements).
pub const MAX_PATCH_LIST: u32 = 16384;
/// Default patch-location list size (elements).
pub const DEFAULT_PATCH_LIST: u32 = 1024;
/// Live allocations per device.
pub const MAX_ALLOCATIONS: usize = 1 << 16;
/// GPU contexts per device (a driver uses one per DDI context, up to 64,
/// plus its copy-engine, present and default contexts).
pub const MAX_CONTEXTS: usize = 256;
/// Submissions queued (not yet executed) per device; a submission beyond
/// this first runs the oldest queued work (the callback blocks, as on
/// WDDM).
pub const MAX_QUEUED: usize = 256;
/// Occlusion-query slots per context (query ids are below this).
pub const MAX_QUERIES: u32 = 4096;
/// Rectangles in one CLEAR packet.
pub const MAX_CLEAR_RECTS: u32 = 4096;
/// Time one submission may run on the GPU before the watchdog stops it
/// and hangs its context (`D3DDDIERR_DEVICEREMOVED`), in milliseconds:
/// Windows' Timeout Detection and Recovery default (`TdrDelay` = 2 s).
/// Hosts change it with `Kmd::set_timeout` / `Driver::set_gpu_timeout` /
/// `softhal_driver_set_timeout` (0 there: no limit).
pub const DEFAULT_GPU_TIMEOUT_MS: u64 = 2000;

/// Pixel events (`softhal_pipeline::watch::PixelEvent`, ≈ 120 bytes each)
/// the kernel side keeps in the watched draws' histories until they are
/// taken (`Kmd::take_watched_draws`): ≈ 120 MiB. The device takes them
/// after every DP2 command, so only a host's own submissions between two
/// takes can reach the cap; the histories of later draws are counted, not
/// kept.
pub const MAX_WATCHED_EVENTS: usize = 1 << 20;

/// DWORDs of one shader token stream (CREATE_SHADER): 256 KiB, the
/// device's own limit on a shader (`softhal_device::limits`).
pub const MAX_SHADER_DWORDS: usize = 64 * 1024;
/// Shader objects a GPU context holds (CREATE_SHADER); one more is a
/// fault. The device's contexts hold at most 4096 of each of their three
/// kinds.
pub const MAX_SHADER_OBJECTS: usize = 16 * 1024;
/// Token DWORDs of all the shader objects of a GPU context (16 MiB).
pub const MAX_SHADER_CONTEXT_DWORDS: usize = 4 << 20;
