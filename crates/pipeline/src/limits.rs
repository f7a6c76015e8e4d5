//! Every hard limit of the pipeline, in one place.
//!
//! *Input*: nothing; these are constants. *Output*: the numbers every other
//! module checks against. *Guarantee*: no other module hard-codes a size;
//! if a bound matters for memory or for arithmetic range it is named here
//! with the reason it has the value it has.
//!
//! ## Memory bound of one draw call
//!
//! Apart from the surfaces themselves (owned by the caller) a draw call
//! holds a *scene*: set-up records of primitives not yet rasterized, and
//! the bins pointing at them. Set-up runs in *waves* of
//! [`PRIMS_PER_WAVE`] input primitives (in parallel chunks of
//! [`PRIMS_PER_CHUNK`]). After a wave is binned, the scene is flushed
//! (rasterized and emptied) if its records exceed [`MAX_SCENE_BYTES`], if
//! it holds [`MAX_SCENE_CHUNKS`] − one wave of chunks, or at the end of the
//! draw; binning flushes early if the bins would exceed
//! [`MAX_BIN_ENTRIES`]. So at any time the scene holds at most
//! `MAX_SCENE_BYTES` + one wave of records (at most
//! `PRIMS_PER_WAVE × MAX_OUTPUT_PRIMS_PER_INPUT × MAX_SETUP_RECORD_BYTES`,
//! reached only if every triangle is clipped into 13 pieces) + the bins
//! (`MAX_BIN_ENTRIES × 4` bytes + one vector header per tile). Memory never
//! grows with the number of primitives in a draw. [`SCENE_MEMORY_BOUND`]
//! states the total: 208 MiB in the pathological clipping case; a
//! 1024×768 frame of the benchmark workloads uses ≤ 33 MiB of records
//! (W1: 200,000 triangles, one flush) and < 2 MiB of bins.
//!
//! A chunk's tile-sort bookkeeping (6 bytes per triangle, a histogram of at
//! most [`MAX_SORT_TILES`] words, tile lists of at most
//! [`MAX_TILE_LIST_WORDS`] words) is part of its records' bytes as the
//! flush decision counts them. Besides the scene, every worker thread
//! keeps one chunk's worth of triangle records as set-up scratch (at most
//! `PRIMS_PER_CHUNK × MAX_OUTPUT_PRIMS_PER_INPUT` records of 128 bytes, 2
//! MiB), reused by every draw.

/// Largest width or height of a surface, in pixels (D3D9 hardware commonly
/// reports 8192; it keeps every coordinate inside the guard band).
pub const MAX_DIMENSION: u32 = 8192;

/// Largest size of one surface's byte storage (pitch × height): 512 MiB.
pub const MAX_SURFACE_BYTES: u64 = 512 * 1024 * 1024;

/// Largest pitch accepted for a surface, in bytes (a 8192-wide 32-bit row is
/// 32 KiB; allow generous padding but keep `pitch × height` checked).
pub const MAX_PITCH: u64 = 256 * 1024;

/// Render targets a draw writes at once (D3DCAPS9.NumSimultaneousRTs):
/// target 0 and the three more of SETRENDERTARGET2, which only a pixel
/// shader's `oC1`–`oC3` reach.
pub const MAX_RENDER_TARGETS: usize = 4;

/// Edge length of a screen tile in pixels. Bins, parallel work units and
/// the fully-covered-tile fast path are all per tile.
pub const TILE_SIZE: u32 = 64;

/// log2 of [`TILE_SIZE`].
pub const TILE_SHIFT: u32 = 6;

/// Sub-pixel precision of vertex positions: 8 bits (1/256 pixel), as D3D9
/// hardware.
pub const SUBPIXEL_BITS: u32 = 8;

/// Guard band: screen coordinates (pixels) that the rasterizer accepts
/// without clipping are in `[GUARD_BAND_MIN, GUARD_BAND_MAX]`. With 8
/// sub-pixel bits a coordinate needs 23 bits, an edge delta 24 bits, and an
/// edge function value at most 2·2^24·2^23 < 2^49: 64-bit edge functions can
/// never overflow. Primitives reaching outside are clipped to it first.
pub const GUARD_BAND_MIN: f32 = -16384.0;

/// Upper end of the guard band (see [`GUARD_BAND_MIN`]).
pub const GUARD_BAND_MAX: f32 = 16384.0;

/// Input primitives set up per wave (a parallel set-up step followed by
/// binning on the calling thread).
pub const PRIMS_PER_WAVE: usize = 32 * PRIMS_PER_CHUNK;

/// Largest size of the set-up records of a scene before it is flushed:
/// 48 MiB (large scenes mean few passes over the render target, which is
/// what makes many small triangles fast).
pub const MAX_SCENE_BYTES: usize = 48 * 1024 * 1024;

/// Largest number of set-up chunks in a scene (bin entries address a chunk
/// with 13 bits).
pub const MAX_SCENE_CHUNKS: usize = 1 << 13;

/// Input primitives per parallel set-up chunk. Chosen so that the
/// rasterizer primitives a chunk produces (at most
/// `PRIMS_PER_CHUNK × MAX_OUTPUT_PRIMS_PER_INPUT`) are addressable with 16
/// bits.
pub const PRIMS_PER_CHUNK: usize = 1024;

/// Rasterizer primitives one input primitive can become: a triangle clipped
/// against near, far, the 4 guard-band planes and 6 user planes (12 planes)
/// has at most 3 + 12 = 15 vertices → 13 triangles; in wireframe mode a
/// polygon of 15 edges gives 15 lines.
pub const MAX_OUTPUT_PRIMS_PER_INPUT: usize = 16;

/// Vertices a clipped polygon can have (3 + one per clipping plane).
pub const MAX_CLIP_VERTICES: usize = 3 + 2 + 4 + MAX_USER_CLIP_PLANES;

/// Upper bound of the size of one set-up record, in bytes (checked by a
/// unit test against `size_of` of the real types).
pub const MAX_SETUP_RECORD_BYTES: usize = 256;

/// Largest tile grid whose set-up chunks are regrouped by tile (4096 tiles,
/// e.g. a 4096 × 4096 target): the per-chunk histogram stays at 16 KiB;
/// larger grids keep submission order (the histogram would cost more than
/// the locality gains).
pub(crate) const MAX_SORT_TILES: usize = 4096;

/// Largest size, in 32-bit words, of the tile lists a set-up chunk
/// precomputes for its triangles spanning several tiles (256 KiB); the
/// binner tests the tiles of the remaining ones itself.
pub(crate) const MAX_TILE_LIST_WORDS: usize = 1 << 16;

/// Largest number of bin entries (primitive × tile pairs) held at once.
/// When a primitive would exceed it, the scene is flushed first. 4 M
/// entries = 16 MiB.
pub const MAX_BIN_ENTRIES: usize = 4 * 1024 * 1024;

/// Number of user clip planes supported (D3DCLIPPLANE0..5).
pub const MAX_USER_CLIP_PLANES: usize = 6;

/// Number of texture coordinate sets a vertex may carry.
pub const MAX_TEXCOORD_SETS: usize = 8;

/// Vertex-texture samplers: D3DVERTEXTEXTURESAMPLER0–3, the samplers
/// `s0`–`s3` of vs_3_0.
pub const VERTEX_SAMPLERS: usize = 4;

/// Pixel samplers: the samplers `s0`–`s15` of ps_2_0–ps_3_0. The first
/// [`crate::texture::limits::MAX_TEXTURE_STAGES`] are also the samplers
/// of the fixed-function texture stages (sampler `n` is stage `n`'s).
pub const PIXEL_SAMPLERS: usize = 16;
const _: () = assert!(PIXEL_SAMPLERS >= crate::texture::limits::MAX_TEXTURE_STAGES);

/// Largest vertex stride accepted, in bytes.
pub const MAX_VERTEX_STRIDE: u32 = 1024;

/// Most rasterizer threads one renderer (one driver) may have. Work is cut
/// into 64-row bands and 1024-primitive chunks, so more threads than
/// bands of an 8192-row target (128) cannot all be busy; 256 leaves room
/// for hosts with many cores while each thread's set-up scratch (≤ 2 MiB,
/// see above) keeps the worst case at 512 MiB. A larger count is refused
/// (`PipelineError::TooManyThreads`), never clamped silently.
pub const MAX_THREADS: usize = 256;

/// Bin entries a tile's rasterization replays between two checks of the
/// watchdog (`crate::watchdog`): an entry costs at most one tile of pixels
/// (4,096), so at most ≈ 131,000 pixels — about a millisecond — pass
/// between checks, while the check (an atomic load and a clock read)
/// stays negligible beside the pixels.
pub const WATCHDOG_CHECK_ENTRIES: usize = 32;

/// Upper bound of the scene memory (bytes) allocated by one draw call,
/// excluding surfaces: see the module documentation.
pub const SCENE_MEMORY_BOUND: usize = MAX_SCENE_BYTES
    + PRIMS_PER_WAVE * MAX_OUTPUT_PRIMS_PER_INPUT * MAX_SETUP_RECORD_BYTES
    + MAX_BIN_ENTRIES * 4
    + ((MAX_DIMENSION / TILE_SIZE) * (MAX_DIMENSION / TILE_SIZE)) as usize * 24;

/// Pixels one draw may watch (`crate::watch::PixelWatch`): each costs a
/// replay of the draw's set-up restricted to that pixel, so the history
/// of a draw costs at most this many extra set-up passes.
pub const MAX_WATCHED_PIXELS: usize = 16;

/// Events kept per watched pixel and draw (`crate::watch`): a draw of
/// millions of primitives stacked on one pixel keeps the first 4,096
/// (≈ 400 KiB) and counts the rest.
pub const MAX_PIXEL_EVENTS: usize = 4096;
