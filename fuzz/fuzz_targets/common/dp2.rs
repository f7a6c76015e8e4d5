//! The `dp2_execute` input layout and run, shared by `dp2_execute` and
//! `dp2_threads`.
//!
//! Input: byte 0 picks the FVF (`FVFS`, modulo 16), byte 1 the
//! render-target format and size (at most 46 × 31), byte 2 the command
//! offset (modulo 8), byte 3 the vertex-data length (in vertices); then the
//! vertex bytes; the rest is the command buffer.
//!
//! Every run makes the same surfaces on a fresh driver: the render target
//! and a D24S8 depth buffer, the textures of [`TEXTURES`], a vertex buffer
//! ([`VB_BYTES`], filled with the vertex bytes repeated) and an index
//! buffer ([`IB_BYTES`]), then the command buffer. Texture and index bytes
//! are the command bytes (as given, before substitution) repeated from a
//! per-surface start, so the fuzzer controls texels, palette indices and
//! DXT blocks; a surface is all zeros when there are no command bytes.
//!
//! **Handle placeholders.** Handles carry a per-driver salt, so an input
//! cannot name a surface. Before running, every occurrence (at any byte
//! offset, left to right, not overlapping) of one of these little-endian
//! DWORDs in the command bytes is replaced by the real handle:
//!
//! | DWORD | bytes | surface (name in snapshots) |
//! |---|---|---|
//! | `0x7E7E0000 + k`, k < 9 | `k 00 7E 7E` | texture k of [`TEXTURES`] (`TEX0`…`TEX8`) |
//! | `0x7E7E0010` | `10 00 7E 7E` | render target (`RT`) |
//! | `0x7E7E0011` | `11 00 7E 7E` | depth/stencil (`DEPTH`) |
//! | `0x7E7E0012` | `12 00 7E 7E` | vertex buffer (`VB`) |
//! | `0x7E7E0013` | `13 00 7E 7E` | index buffer (`IB`) |
//! | `0x7E7E0014` | `14 00 7E 7E` | command buffer (`CB`) |
//!
//! The substitution keeps every length, so error offsets mean what they
//! meant, and it is the same in the prefix run (the same bytes, a shorter
//! `dwCommandLength`). So that a handle that lands in a non-handle field (a
//! float render state, a colour) still gives the same pixels in every run,
//! each run first aligns the device's global handle-salt counter
//! ([`align_handle_salts`]): every driver of the harness gets the same
//! salts, hence the same handle values.
//!
//! **Placement.** The command buffer has [`PAD`] bytes more than the
//! commands need, filled with garbage (`0xA5`): a normal run puts the
//! commands at `dwCommandOffset` with the garbage after them (a device
//! reading past `dwCommandLength` would see it); a shifted run
//! ([`Placement::Shifted`]) puts the garbage before them and moves
//! `dwCommandOffset` by `PAD`. Both give the same [`Outcome`] (its
//! `error_offset` is reported unshifted): nothing depends on where in its
//! buffer a stream lies, and nothing outside `[dwCommandOffset,
//! dwCommandOffset + dwCommandLength)` is read.
//!
//! The [`Outcome`] compares the render-target pixels, the DDI answers, the
//! `Driver::snapshot`, the handles and an FNV-1a digest of every other
//! surface's bytes (depth, textures level by level, buffers). Snapshots are
//! compared as they are (the handles are equal by the salt alignment) and
//! shown with the handles named ([`Outcome::named_snapshot`], `RT`,
//! `TEX0`…): naming costs a pass over a long string, which would halve the
//! execution rate if done on every run.
#![allow(dead_code)]

use softhal_device::handle::Slab;
use softhal_device::{
    D3dFormat, DeviceError, DrawPrimitives2Data, Driver, Format, LockFlags, SurfaceDesc,
};

/// The FVFs byte 0 selects: the DX6/7 shapes (0–7), then 3-D texture
/// coordinates (cube/volume lookups), blend weights with and without
/// UBYTE4 indices, a lit vertex with both colours, a separate fog value and
/// a point size.
pub const FVFS: [u32; 16] = [
    0x44,    // XYZRHW | DIFFUSE
    0x1c4,   // XYZRHW | DIFFUSE | SPECULAR | TEX1
    0x42,    // XYZ | DIFFUSE
    0x142,   // XYZ | DIFFUSE | TEX1
    0x112,   // XYZ | NORMAL | TEX1
    0x2c4,   // XYZRHW | DIFFUSE | SPECULAR | TEX2
    0x104,   // XYZRHW | TEX1
    0x52,    // XYZ | NORMAL | DIFFUSE
    0x10112, // XYZ | NORMAL | TEX1 | TEXCOORDSIZE3(0)
    0x10144, // XYZRHW | DIFFUSE | TEX1 | TEXCOORDSIZE3(0)
    0x116,   // XYZB1 | NORMAL | TEX1
    0x1118,  // XYZB2 | NORMAL | TEX1 | LASTBETA_UBYTE4
    0x1d2,   // XYZ | NORMAL | DIFFUSE | SPECULAR | TEX1
    0x21c4,  // XYZRHW | DIFFUSE | SPECULAR | TEX1 | FOG
    0x62,    // XYZ | PSIZE | DIFFUSE
    0x1d6,   // XYZB1 | NORMAL | DIFFUSE | SPECULAR | TEX1
];

/// D3DFMT numbers of the texture formats the harness creates.
const D3DFMT_A8R8G8B8: u32 = 21;
const D3DFMT_P8: u32 = 41;
const D3DFMT_V8U8: u32 = 60;
const D3DFMT_A16B16G16R16F: u32 = 113;
const D3DFMT_DXT1: u32 = u32::from_le_bytes(*b"DXT1");

/// One texture the harness creates.
pub struct Tex {
    /// The request.
    pub desc: SurfaceDesc,
    /// Bytes of storage (every face and level), checked against the device.
    pub bytes: usize,
}

const fn tex(desc: SurfaceDesc, bytes: usize) -> Tex {
    Tex { desc, bytes }
}

const fn desc(
    kind: softhal_device::SurfaceKind,
    format: u32,
    (width, height, depth): (u32, u32, u32),
    mip_levels: u32,
) -> SurfaceDesc {
    SurfaceDesc {
        kind,
        format: D3dFormat(format),
        width,
        height,
        depth,
        mip_levels,
        render_target: false,
    }
}

use softhal_device::SurfaceKind::{CubeTexture, Texture, VolumeTexture};

/// The textures, in placeholder order (`0x7E7E0000 + k` names `TEXTURES[k]`):
/// * 0: A8R8G8B8 8×8, full chain (4 levels): sampling, mip selection,
///   SETTEXLOD, GENERATEMIPSUBLEVELS, BLT;
/// * 1: P8 4×4: SETPALETTE / UPDATEPALETTE;
/// * 2: DXT1 8×8, full chain (the 2×2 and 1×1 levels are partial blocks);
/// * 3: DXT1 8×8, one level: TEXBLT between DXT1 textures (block grid);
/// * 4: cube A8R8G8B8 4×4, full chain (3 levels);
/// * 5: volume A8R8G8B8 4×4×4, full chain (3 levels);
/// * 6: volume A8R8G8B8 2×2×2, one level: VOLUMEBLT;
/// * 7: A16B16G16R16F 4×4: NaN and infinite texels;
/// * 8: V8U8 4×4: bump mapping.
pub const TEXTURES: [Tex; 9] = [
    tex(
        desc(Texture, D3DFMT_A8R8G8B8, (8, 8, 1), 0),
        (64 + 16 + 4 + 1) * 4,
    ),
    tex(desc(Texture, D3DFMT_P8, (4, 4, 1), 1), 16),
    tex(desc(Texture, D3DFMT_DXT1, (8, 8, 1), 0), 32 + 8 + 8 + 8),
    tex(desc(Texture, D3DFMT_DXT1, (8, 8, 1), 1), 32),
    tex(
        desc(CubeTexture, D3DFMT_A8R8G8B8, (4, 4, 1), 0),
        6 * (16 + 4 + 1) * 4,
    ),
    tex(
        desc(VolumeTexture, D3DFMT_A8R8G8B8, (4, 4, 4), 0),
        (64 + 8 + 1) * 4,
    ),
    tex(desc(VolumeTexture, D3DFMT_A8R8G8B8, (2, 2, 2), 1), 8 * 4),
    tex(desc(Texture, D3DFMT_A16B16G16R16F, (4, 4, 1), 1), 16 * 8),
    tex(desc(Texture, D3DFMT_V8U8, (4, 4, 1), 1), 16 * 2),
];

/// First placeholder DWORD: `PLACEHOLDER + k` is texture k.
pub const PLACEHOLDER: u32 = 0x7E7E_0000;
/// Placeholders of the other surfaces.
pub const PH_RT: u32 = PLACEHOLDER + 0x10;
pub const PH_DEPTH: u32 = PLACEHOLDER + 0x11;
pub const PH_VB: u32 = PLACEHOLDER + 0x12;
pub const PH_IB: u32 = PLACEHOLDER + 0x13;
pub const PH_CB: u32 = PLACEHOLDER + 0x14;

/// Bytes of the vertex buffer.
pub const VB_BYTES: usize = 512;
/// Garbage bytes in the command buffer besides the commands.
pub const PAD: usize = 16;

/// Where the commands lie in their command buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// At `offset`, the garbage after them.
    Normal,
    /// At `offset + PAD`, the garbage before them.
    Shifted,
}
/// Bytes of the index buffer.
pub const IB_BYTES: usize = 64;

/// A parsed input.
pub struct Input<'a> {
    pub fvf: u32,
    pub stride: usize,
    pub vertices: &'a [u8],
    pub commands: &'a [u8],
    pub width: u32,
    pub height: u32,
    pub format: Format,
    pub offset: u32,
}

impl<'a> Input<'a> {
    /// Splits `data`; `None` when it is too short.
    pub fn parse(data: &'a [u8]) -> Option<Self> {
        let [fvf_sel, rt_sel, cmd_off, vcount, rest @ ..] = data else {
            return None;
        };
        let fvf = FVFS[usize::from(*fvf_sel) % FVFS.len()];
        let stride = softhal_wire::fvf::vertex_stride(fvf).ok()? as usize;
        let vcount = usize::from(*vcount);
        let vertices = rest.get(..(vcount * stride).min(rest.len()))?;
        let commands = rest.get(vertices.len()..)?;
        Some(Input {
            fvf,
            stride,
            vertices,
            commands,
            width: 1 + u32::from(rt_sel & 15) * 3,
            height: 1 + u32::from(rt_sel >> 4) * 2,
            format: if rt_sel & 1 == 0 {
                Format::X8R8G8B8
            } else {
                Format::R5G6B5
            },
            offset: u32::from(*cmd_off) % 8,
        })
    }

    /// Bytes of every surface the run creates (render target, depth,
    /// textures, vertex and index buffers, command buffer), for the memory
    /// bound.
    pub fn surface_bytes(&self) -> usize {
        let px = (self.width * self.height) as usize;
        px * 4 * 2
            + TEXTURES.iter().map(|t| t.bytes).sum::<usize>()
            + VB_BYTES
            + IB_BYTES
            + self.offset as usize
            + PAD
            + self.commands.len()
    }
}

/// Names of the handles of [`Outcome::handles`], in order.
pub const HANDLE_NAMES: [&str; 6 + TEXTURES.len()] = [
    "RT", "DEPTH", "CB", "CTX", "VB", "IB", "TEX0", "TEX1", "TEX2", "TEX3", "TEX4", "TEX5", "TEX6",
    "TEX7", "TEX8",
];

/// What a run produced. `Debug` shows the snapshot with named handles.
#[derive(PartialEq, Eq)]
pub struct Outcome {
    pub pixels: Vec<u8>,
    pub ddrval: u32,
    pub error_offset: u32,
    pub flags: u32,
    /// `Driver::snapshot` as it is (handle values, not names).
    pub snapshot: String,
    /// The handles, in the order of [`HANDLE_NAMES`].
    pub handles: [u32; 6 + TEXTURES.len()],
    /// FNV-1a 64 of the depth buffer, each texture (all faces and levels),
    /// the vertex buffer and the index buffer, in that order.
    pub digests: [u64; 4 + TEXTURES.len()],
}

impl Outcome {
    /// Heap bytes the outcome holds.
    pub fn heap_bytes(&self) -> usize {
        self.pixels.capacity() + self.snapshot.capacity()
    }
    /// The snapshot with every handle replaced by its name.
    pub fn named_snapshot(&self) -> String {
        let names: Vec<(u32, &str)> = self
            .handles
            .iter()
            .copied()
            .zip(HANDLE_NAMES.iter().copied())
            .collect();
        normalise(&self.snapshot, &names)
    }
}

impl std::fmt::Debug for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outcome")
            .field("pixels", &self.pixels)
            .field("ddrval", &format_args!("{:#x}", self.ddrval))
            .field("error_offset", &self.error_offset)
            .field("flags", &format_args!("{:#x}", self.flags))
            .field("handles", &format_args!("{:x?}", self.handles))
            .field("digests", &format_args!("{:x?}", self.digests))
            .field("snapshot", &self.named_snapshot())
            .finish()
    }
}

/// Makes the next `Slab::new` (the next driver's surface slab) get salt 0,
/// so that every driver of the harness hands out the same handle values:
/// the salt comes from one global counter (`softhal_device::handle`), which
/// earlier drivers of the process have advanced.
pub fn align_handle_salts() {
    for _ in 0..16 {
        let mut s: Slab<()> = Slab::new(1, 1, "salt");
        if let Ok(h) = s.insert(()) {
            if (h >> 24) & 0xF == 0xF {
                return;
            }
        }
    }
}

/// `src` repeated from `start` into `dst` (zeros when `src` is empty).
fn fill(dst: &mut [u8], src: &[u8], start: usize) {
    if src.is_empty() {
        dst.fill(0);
        return;
    }
    for (i, b) in dst.iter_mut().enumerate() {
        *b = src.get((start + i) % src.len()).copied().unwrap_or(0);
    }
}

/// Replaces each placeholder DWORD in `bytes` by its handle (`map`: the
/// placeholder, the handle), scanning every byte offset left to right.
pub fn substitute(bytes: &mut [u8], map: &[(u32, u32)]) {
    let mut i = 0;
    while i + 4 <= bytes.len() {
        let w = u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        match map.iter().find(|(p, _)| *p == w) {
            Some((_, h)) => {
                bytes[i..i + 4].copy_from_slice(&h.to_le_bytes());
                i += 4;
            }
            None => i += 1,
        }
    }
}

fn fnv(h: &mut u64, bytes: &[u8]) {
    for b in bytes {
        *h ^= u64::from(*b);
        *h = h.wrapping_mul(0x100_0000_01b3);
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// Runs `input` on a fresh driver with `threads` threads and SIMD on or
/// off, its commands placed in their buffer as `placement` says; `length`
/// overrides `dwCommandLength` (for prefix runs).
pub fn run(
    input: &Input<'_>,
    threads: usize,
    simd: bool,
    placement: Placement,
    length: Option<u32>,
) -> Option<Outcome> {
    align_handle_salts();
    let mut driver = Driver::new(threads).ok()?;
    // No GPU timeout: libFuzzer's -timeout bounds a run, and a wall-clock
    // stop would make runs that must agree differ.
    driver.set_gpu_timeout(None);
    driver.renderer_mut().set_simd(simd);
    let rt = driver
        .create_render_target(input.format, input.width, input.height)
        .ok()?;
    let depth = driver
        .create_depth_stencil(Format::D24S8, input.width, input.height)
        .ok()?;
    let ctx = driver.context_create(rt, Some(depth)).ok()?;

    // Textures, filled level by level from the command bytes.
    let mut textures = [0u32; TEXTURES.len()];
    for (k, (t, h)) in TEXTURES.iter().zip(textures.iter_mut()).enumerate() {
        *h = driver.create_surface(t.desc).ok()?;
        let r = driver.surface(*h).ok()?;
        assert_eq!(
            r.byte_size() as usize,
            t.bytes,
            "TEXTURES[{k}].bytes must be the texture's storage (the P6 bound counts it)"
        );
        let (faces, levels) = (r.faces(), r.desc.mip_levels);
        let mut start = 97 * k;
        for face in 0..faces {
            for level in 0..levels {
                let (bytes, _) = driver.lock_level(*h, face, level).ok()?;
                fill(bytes, input.commands, start);
                start += bytes.len();
                driver.unlock(*h).ok()?;
            }
        }
    }
    let vb = driver.create_vertex_buffer(VB_BYTES as u32, false).ok()?;
    fill(
        driver.lock(vb, LockFlags::default()).ok()?,
        input.vertices,
        0,
    );
    driver.unlock(vb).ok()?;
    let ib = driver.create_index_buffer(IB_BYTES as u32).ok()?;
    fill(
        driver.lock(ib, LockFlags::default()).ok()?,
        input.commands,
        31,
    );
    driver.unlock(ib).ok()?;

    // The command buffer: its handle is known only once it exists, so it
    // is created first and written with the substituted bytes.
    let total = input.offset as usize + PAD + input.commands.len();
    let cb = driver.create_command_buffer(total as u32).ok()?;
    let shift = match placement {
        Placement::Normal => 0,
        Placement::Shifted => PAD,
    };
    let start = input.offset as usize + shift;
    let mut map: Vec<(u32, u32)> = (0u32..)
        .zip(textures.iter())
        .map(|(k, h)| (PLACEHOLDER + k, *h))
        .collect();
    map.extend([
        (PH_RT, rt),
        (PH_DEPTH, depth),
        (PH_VB, vb),
        (PH_IB, ib),
        (PH_CB, cb),
    ]);
    let mut buf = vec![0u8; input.offset as usize];
    buf.resize(start, 0xA5);
    buf.extend_from_slice(input.commands);
    buf.resize(total, 0xA5);
    substitute(&mut buf[start..start + input.commands.len()], &map);
    driver
        .lock(cb, LockFlags::default())
        .ok()?
        .copy_from_slice(&buf);
    driver.unlock(cb).ok()?;
    drop(buf);

    let len = length.unwrap_or(input.commands.len() as u32);
    let mut d = DrawPrimitives2Data::new(ctx, cb, len).with_user_vertices(
        input.fvf,
        input.vertices,
        (input.vertices.len() / input.stride) as u32,
    );
    d.dw_command_offset = start as u32;
    d.ddrval = input.stride as u32;
    driver.draw_primitives2(&mut d);
    // P13, the layered oracle: the device validates everything the
    // pipeline and the kernel check again, so no DP2 input may end in a
    // pipeline error, or in a submission refused for anything but a limit
    // (docs/errors.md lists which device check guards each).
    if let Some(f) = driver.last_error() {
        let leaked = match &f.error {
            DeviceError::Pipeline(_) => true,
            DeviceError::Submit(e) => e.kind() != "limit",
            _ => false,
        };
        assert!(!leaked, "a lower layer caught DP2 input the device let through: {f:?}");
    }
    if trace() {
        eprintln!(
            "dp2: length {len} ddrval {:#x} error offset {} flags {:#x} last error {:?}",
            d.ddrval,
            d.dw_error_offset,
            d.dw_flags,
            driver.last_error()
        );
    }

    let mut digests = [FNV_OFFSET; 4 + TEXTURES.len()];
    fnv(&mut digests[0], driver.image(depth).ok()?.bytes());
    for (dg, h) in digests[1..].iter_mut().zip(textures.iter()) {
        let t = driver.surface(*h).ok()?.texture()?;
        for face in 0..t.face_count() {
            for level in 0..t.level_count() {
                fnv(dg, t.level_bytes(face, level)?);
            }
        }
    }
    let n = digests.len();
    fnv(
        &mut digests[n - 2],
        driver.surface(vb).ok()?.buffer(vb).ok()?,
    );
    fnv(
        &mut digests[n - 1],
        driver.surface(ib).ok()?.buffer(ib).ok()?,
    );

    let mut handles = [0u32; 6 + TEXTURES.len()];
    for (slot, h) in handles
        .iter_mut()
        .zip([rt, depth, cb, ctx, vb, ib].iter().chain(textures.iter()))
    {
        *slot = *h;
    }
    let outcome = Outcome {
        pixels: driver.read_rgba8(rt).ok()?,
        ddrval: d.ddrval,
        // Unshifted, so that placements compare (an error offset counts
        // from the start of the buffer).
        error_offset: if d.ddrval == softhal_wire::names::codes::D3D_OK {
            d.dw_error_offset
        } else {
            d.dw_error_offset.wrapping_sub(shift as u32)
        },
        flags: d.dw_flags,
        snapshot: driver.snapshot(ctx).ok()?,
        handles,
        digests,
    };
    if trace() {
        // The surfaces (the context's state is the first line).
        for line in outcome.named_snapshot().lines().skip(1) {
            eprintln!("  {line}");
        }
    }
    Some(outcome)
}

/// True when `DP2_TRACE` is set: each run prints its answers and the
/// surfaces of its snapshot to stderr (for writing seeds; see `fuzz/gen_dp2_seeds.py`).
pub fn trace() -> bool {
    static TRACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TRACE.get_or_init(|| std::env::var_os("DP2_TRACE").is_some())
}

/// Replaces handle values by names, so that snapshots read well and
/// compare across drivers: every word of ASCII letters and digits that is a
/// handle in decimal or `0x` hex becomes its name. One pass over `s`.
pub fn normalise(s: &str, handles: &[(u32, &str)]) -> String {
    let name = |word: &str| {
        let value = match word.strip_prefix("0x") {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None => word.parse::<u32>().ok(),
        }?;
        handles.iter().find(|(h, _)| *h == value).map(|(_, n)| *n)
    };
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
        let (before, from) = rest.split_at(start);
        out.push_str(before);
        let end = from
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(from.len());
        let (word, after) = from.split_at(end);
        // A digit inside a longer word (`D24S8`) is not a number.
        let inside = before
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        match name(word).filter(|_| !inside) {
            Some(n) => out.push_str(n),
            None => out.push_str(word),
        }
        rest = after;
    }
    out.push_str(rest);
    out
}
