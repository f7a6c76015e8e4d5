//! The observer: the one place where driver calls become capture records.
//!
//! In: notifications about calls a host made on a
//! [`softhal_device::Driver`] it keeps owning — each `on_*` method is
//! called *after* the real call with its arguments and its result (and,
//! for the calls whose inputs the driver consumes, a record of them taken
//! *before* the call: [`Observer::dp2_call`], [`Observer::submit_call`]).
//! Out: one binary record per call, with the driver's answer, streamed to
//! `W` ([`crate::binary`] framing); [`Observer::finish`] writes the END
//! record.
//!
//! Two recorders use it, so they cannot drift: the owning
//! [`crate::Recorder`] (a `Driver` wrapper for Rust hosts) and the C ABI
//! (`softhal_capture_start` / `_stop`), which keeps an observer beside each
//! driver it records.
//!
//! Guarantees: observing never changes what the driver does or answers (it
//! only reads the driver); a write error does not interrupt the host — the
//! first one is kept and returned by [`Observer::finish`], later records
//! are not written.

use crate::binary;
use crate::record::*;
use crate::replay::spec_of;
use softhal_device::resource::Storage;
use softhal_device::{
    Clear2Data, DeviceError, DrawPrimitives2Data, Driver, LockFlags, SurfaceDesc,
    ValidateTextureStageStateData,
};
use softhal_submit::{Engine, RenderData};
use softhal_wire::names::codes;
use std::borrow::Cow;
use std::io::Write;

/// Streams the records of a session to `W`.
pub struct Observer<W: Write> {
    out: W,
    records: u32,
    error: Option<std::io::Error>,
}

impl<W: Write> std::fmt::Debug for Observer<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observer")
            .field("records", &self.records)
            .field("error", &self.error)
            .finish()
    }
}

/// The `ddrval` of a call the device answers with a `Result`.
pub fn ddrval<T>(r: &Result<T, DeviceError>) -> u32 {
    match r {
        Ok(_) => codes::D3D_OK,
        Err(e) => e.ddrval(),
    }
}

fn status<T>(r: &Result<T, DeviceError>) -> Option<Answer> {
    Some(Answer {
        ddrval: ddrval(r),
        ..Answer::default()
    })
}

/// The capture code of an engine (0 3-D, 1 copy).
pub fn engine_code(e: Engine) -> u32 {
    match e {
        Engine::ThreeD => 0,
        Engine::Copy => 1,
    }
}

/// The engine of a capture code.
pub fn engine_of(code: u32) -> Option<Engine> {
    match code {
        0 => Some(Engine::ThreeD),
        1 => Some(Engine::Copy),
        _ => None,
    }
}

/// The bytes of plane (face, level) of surface `h` as a capture holds
/// them (buffers: 0, 0): what `lock_level` exposes, except that an image's
/// rows are tight (`width × bpp` bytes each, back to back) whatever pitch
/// the driver gave it, so that a capture replays on any pitch.
pub fn plane(d: &Driver, h: u32, face: u32, level: u32) -> Option<Cow<'_, [u8]>> {
    let r = d.surface(h).ok()?;
    match &r.storage {
        Storage::Buffer(b) => Some(Cow::Borrowed(b.as_slice())),
        Storage::Image(s) => s
            .get()
            .filter(|_| face == 0 && level == 0)
            .map(|s| s.tight_bytes()),
        Storage::Texture(t) => t.level_bytes(face, level).map(Cow::Borrowed),
        Storage::Attached { .. } => None,
    }
}

/// A surface's contents as CREATE_SURFACE initial contents: every plane in
/// storage order (an image's rows tight, as [`plane`]), without the
/// trailing zero bytes (a prefix is allowed; the rest stays zero).
pub fn contents(d: &Driver, h: u32) -> Vec<u8> {
    let mut planes: Vec<Cow<'_, [u8]>> = Vec::new();
    if let Ok(r) = d.surface(h) {
        match &r.storage {
            Storage::Buffer(b) => planes.push(Cow::Borrowed(b)),
            Storage::Image(s) => {
                if let Some(s) = s.get() {
                    planes.push(s.tight_bytes());
                }
            }
            Storage::Attached { .. } => {}
            Storage::Texture(t) => {
                for f in 0..t.face_count() {
                    for l in 0..t.level_count() {
                        planes.push(Cow::Borrowed(t.level_bytes(f, l).unwrap_or_default()));
                    }
                }
            }
        }
    }
    // Only the bytes up to the last non-zero one are copied (a large,
    // mostly empty buffer costs a scan, not a copy).
    let Some((last, end)) = planes
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, p)| Some((i, last_nonzero(p)? + 1)))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, p) in planes.iter().enumerate().take(last + 1) {
        let n = if i == last { end } else { p.len() };
        out.extend_from_slice(p.get(..n).unwrap_or_default());
    }
    out
}

/// The index of the last non-zero byte of `b`: 4 KiB blocks are compared
/// with zeros whole (`memcmp`), then the bytes of the last non-zero block
/// are scanned.
fn last_nonzero(b: &[u8]) -> Option<usize> {
    static ZEROS: [u8; BLOCK] = [0; BLOCK];
    let block = b
        .chunks(BLOCK)
        .rposition(|c| Some(c) != ZEROS.get(..c.len()))?;
    let start = block * BLOCK;
    let within = b.get(start..)?.iter().take(BLOCK).rposition(|x| *x != 0)?;
    Some(start + within)
}

/// The range of `after` that differs from `before` (first to last changed
/// byte, compared over the common length): (offset, bytes).
pub fn changed(before: &[u8], after: &[u8]) -> (u32, Vec<u8>) {
    let n = before.len().min(after.len());
    let (before, after) = (
        before.get(..n).unwrap_or_default(),
        after.get(..n).unwrap_or_default(),
    );
    match (
        first_difference(before, after),
        last_difference(before, after),
    ) {
        (Some(f), Some(l)) => (
            u32::try_from(f).unwrap_or(u32::MAX),
            after.get(f..=l).unwrap_or_default().to_vec(),
        ),
        _ => (0, Vec::new()),
    }
}

/// Bytes compared whole (`memcmp`) before a block is scanned byte by byte.
const BLOCK: usize = 4096;

/// The first index where `a` and `b` (of equal length) differ: blocks are
/// compared whole, then the first differing block is scanned.
fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    let block = a
        .chunks(BLOCK)
        .zip(b.chunks(BLOCK))
        .position(|(x, y)| x != y)?;
    let start = block * BLOCK;
    let (x, y) = (a.chunks(BLOCK).nth(block)?, b.chunks(BLOCK).nth(block)?);
    Some(start + x.iter().zip(y).position(|(p, q)| p != q)?)
}

/// The last index where `a` and `b` (of equal length) differ, as
/// [`first_difference`] from the end.
fn last_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    let block = a
        .chunks(BLOCK)
        .zip(b.chunks(BLOCK))
        .rposition(|(x, y)| x != y)?;
    let start = block * BLOCK;
    let (x, y) = (a.chunks(BLOCK).nth(block)?, b.chunks(BLOCK).nth(block)?);
    Some(start + x.iter().zip(y).rposition(|(p, q)| p != q)?)
}

impl<W: Write> Observer<W> {
    /// Starts a capture into `out` (writes the file header).
    pub fn new(mut out: W) -> Self {
        let error = out.write_all(&binary::header()).err();
        tracing::debug!(failed = ?error, "capture started");
        Observer {
            out,
            records: 0,
            error,
        }
    }

    /// Records written so far.
    pub fn records(&self) -> u32 {
        self.records
    }

    /// Writes one record.
    pub fn put(&mut self, r: &Record) {
        if self.error.is_some() {
            return;
        }
        let (code, payload) = binary::encode_record(r);
        if let Err(e) = self.out.write_all(&binary::frame(code, &payload)) {
            self.error = Some(e);
        }
        self.records = self.records.saturating_add(1);
    }

    /// Writes the END record and flushes; returns the writer, or the first
    /// write error.
    pub fn finish(mut self) -> std::io::Result<W> {
        tracing::debug!(records = self.records, failed = ?self.error, "capture stopped");
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.write_all(&binary::end_record(self.records))?;
        self.out.flush()?;
        Ok(self.out)
    }

    /// A surface that existed before the capture started: recorded as a
    /// successful creation with its current contents.
    pub fn on_existing_surface(&mut self, d: &Driver, h: u32) {
        let Ok(r) = d.surface(h) else { return };
        let spec = spec_of(&r.desc);
        self.put(&Record::CreateSurface {
            handle: h,
            spec,
            init: contents(d, h),
            answer: status::<()>(&Ok(())),
        });
    }

    /// After [`Driver::create_surface`].
    pub fn on_create_surface(&mut self, desc: &SurfaceDesc, r: &Result<u32, DeviceError>) {
        self.put(&Record::CreateSurface {
            handle: *r.as_ref().unwrap_or(&0),
            spec: spec_of(desc),
            init: Vec::new(),
            answer: status(r),
        });
    }

    /// After [`Driver::destroy_surface`].
    pub fn on_destroy_surface(&mut self, h: u32, r: &Result<(), DeviceError>) {
        self.put(&Record::DestroySurface {
            handle: h,
            answer: status(r),
        });
    }

    /// After [`Driver::lock`] (`api` [`LockApi::Lock`], with `flags`) or
    /// [`Driver::lock_level`] (`face`, `level`).
    pub fn on_lock<T>(
        &mut self,
        h: u32,
        api: LockApi,
        face: u32,
        level: u32,
        flags: LockFlags,
        r: &Result<T, DeviceError>,
    ) {
        let bits = match api {
            LockApi::Lock => u32::from(flags.discard) | u32::from(flags.no_overwrite) << 1,
            LockApi::LockLevel => 0,
        };
        self.put(&Record::Lock {
            handle: h,
            api,
            face,
            level,
            flags: bits,
            answer: status(r),
        });
    }

    /// After [`Driver::unlock`]: `before` is what plane (face, level) held
    /// before the host's bytes landed, `after` what it holds now; the
    /// record carries the changed range.
    pub fn on_unlock(
        &mut self,
        h: u32,
        face: u32,
        level: u32,
        before: &[u8],
        after: &[u8],
        r: &Result<(), DeviceError>,
    ) {
        let (offset, bytes) = changed(before, after);
        self.put(&Record::Unlock {
            handle: h,
            face,
            level,
            offset,
            bytes,
            answer: status(r),
        });
    }

    /// After [`Driver::context_create`].
    pub fn on_context_create(
        &mut self,
        render_target: u32,
        depth: Option<u32>,
        r: &Result<u32, DeviceError>,
    ) {
        let ddrval = match r {
            Ok(_) => codes::D3D_OK,
            Err(e) => Driver::context_create_ddrval(e),
        };
        self.put(&Record::ContextCreate {
            handle: *r.as_ref().unwrap_or(&0),
            render_target,
            depth: depth.unwrap_or(0),
            answer: Some(Answer {
                ddrval,
                ..Answer::default()
            }),
        });
    }

    /// After [`Driver::context_destroy`].
    pub fn on_context_destroy(&mut self, h: u32, r: &Result<(), DeviceError>) {
        self.put(&Record::ContextDestroy {
            handle: h,
            answer: Some(Answer {
                ddrval: if r.is_ok() {
                    codes::D3D_OK
                } else {
                    codes::D3DHAL_CONTEXT_BAD
                },
                ..Answer::default()
            }),
        });
    }

    /// Before [`Driver::draw_primitives2`]: the call's inputs, with the
    /// command bytes the command surface holds now and the user-memory
    /// vertices.
    pub fn dp2_call(driver: &Driver, d: &DrawPrimitives2Data<'_>) -> Dp2Call {
        let command_bytes = driver
            .surface(d.lp_dd_commands)
            .ok()
            .and_then(|r| r.buffer(d.lp_dd_commands).ok())
            .map(|b| {
                let start = (d.dw_command_offset as usize).min(b.len());
                let end = start
                    .saturating_add(d.dw_command_length as usize)
                    .min(b.len());
                b.get(start..end).unwrap_or_default().to_vec()
            })
            .unwrap_or_default();
        Dp2Call {
            context: d.dwh_context,
            flags: d.dw_flags,
            vertex_type: d.dw_vertex_type,
            commands: d.lp_dd_commands,
            command_offset: d.dw_command_offset,
            command_length: d.dw_command_length,
            vertex_surface: d.lp_dd_vertex,
            vertex_offset: d.dw_vertex_offset,
            vertex_length: d.dw_vertex_length,
            req_vertex_buf_size: d.dw_req_vertex_buf_size,
            req_command_buf_size: d.dw_req_command_buf_size,
            vertex_size: d.ddrval,
            command_bytes,
            user_vertices: d.lp_vertices.map(<[u8]>::to_vec),
            rstates: d.lpdw_r_states.as_deref().map(|a| Box::new(*a)),
        }
    }

    /// After [`Driver::draw_primitives2`]: `call` from
    /// [`Observer::dp2_call`], `d` as the call left it.
    pub fn on_draw_primitives2(&mut self, call: Dp2Call, d: &DrawPrimitives2Data<'_>) {
        let answer = Answer {
            ddrval: d.ddrval,
            error_offset: d.dw_error_offset,
            flags: d.dw_flags,
            rstates: d.lpdw_r_states.as_deref().map(|a| Box::new(*a)),
            ..Answer::default()
        };
        self.put(&Record::DrawPrimitives2 {
            call: Box::new(call),
            answer: Some(answer),
        });
    }

    /// After [`Driver::clear2`].
    pub fn on_clear2(&mut self, d: &Clear2Data<'_>) {
        self.put(&Record::Clear2 {
            call: Clear2Call {
                context: d.dwh_context,
                flags: d.dw_flags,
                color: d.dw_fill_color,
                depth_bits: d.dv_fill_depth.to_bits(),
                stencil: d.dw_fill_stencil,
                rects: d.lp_rects.to_vec(),
            },
            answer: Some(Answer {
                ddrval: d.ddrval,
                ..Answer::default()
            }),
        });
    }

    /// After [`Driver::validate_texture_stage_state`] (it changes only the
    /// outputs).
    pub fn on_validate_texture_stage_state(&mut self, d: &ValidateTextureStageStateData) {
        self.put(&Record::ValidateTextureStageState {
            context: d.dwh_context,
            flags: d.dw_flags,
            reserved: d.dw_reserved,
            answer: Some(Answer {
                ddrval: d.ddrval,
                passes: d.dw_num_passes,
                ..Answer::default()
            }),
        });
    }

    /// After [`Driver::flip`]: the answer carries the checksum of the
    /// flipped target.
    pub fn on_flip(&mut self, driver: &Driver, h: u32, r: &Result<(), DeviceError>) {
        let mut answer = status(r);
        if let (Some(a), Ok(())) = (answer.as_mut(), r) {
            a.checksum = driver.read_rgba8(h).map_or(0, |b| fnv1a64(&b));
        }
        self.put(&Record::Flip { handle: h, answer });
    }

    /// After [`Driver::complete_flips`].
    pub fn on_complete_flips(&mut self) {
        self.put(&Record::CompleteFlips);
    }

    /// After [`Driver::present`]: the answer carries the checksum of the
    /// presented pixels.
    pub fn on_present(&mut self, h: u32, r: &Result<Vec<u8>, DeviceError>) {
        let mut answer = status(r);
        if let (Some(a), Ok(px)) = (answer.as_mut(), r) {
            a.checksum = fnv1a64(px);
        }
        self.put(&Record::Present { handle: h, answer });
    }

    /// After [`Driver::complete_work`].
    pub fn on_complete_work(&mut self) {
        self.put(&Record::CompleteWork);
    }

    /// After [`Driver::render_context_create`].
    pub fn on_render_context_create(&mut self, engine: Engine, r: &Result<u32, DeviceError>) {
        self.put(&Record::RenderContextCreate {
            handle: *r.as_ref().unwrap_or(&0),
            engine: engine_code(engine),
            answer: status(r),
        });
    }

    /// After [`Driver::set_color_key`].
    pub fn on_set_color_key(
        &mut self,
        h: u32,
        key: Option<(u32, u32)>,
        r: &Result<(), DeviceError>,
    ) {
        let (low, high) = key.unwrap_or((0, 0));
        self.put(&Record::SetColorKey {
            handle: h,
            enable: u32::from(key.is_some()),
            low,
            high,
            answer: status(r),
        });
    }

    /// After [`Driver::attached_surface`].
    pub fn on_attached_surface(
        &mut self,
        texture: u32,
        face: u32,
        level: u32,
        r: &Result<u32, DeviceError>,
    ) {
        self.put(&Record::AttachedSurface {
            handle: *r.as_ref().unwrap_or(&0),
            texture,
            face,
            level,
            answer: status(r),
        });
    }

    /// After [`Driver::notify_dx_version`].
    pub fn on_notify_dx_version(&mut self, version: u32) {
        self.put(&Record::DxVersion { version });
    }

    /// After [`Driver::render_context_destroy`].
    pub fn on_render_context_destroy(&mut self, h: u32, r: &Result<(), DeviceError>) {
        self.put(&Record::RenderContextDestroy {
            handle: h,
            answer: status(r),
        });
    }

    /// Before [`Driver::render`] (which empties the buffers it accepts):
    /// the call's inputs, each allocation-list entry with the surface its
    /// handle names.
    pub fn submit_call(driver: &Driver, rd: &RenderData) -> SubmitCall {
        SubmitCall {
            context: rd.h_context.unwrap_or(0),
            flags: rd.flags,
            command_offset: rd.command_offset,
            command_length: rd.command_length,
            num_allocations: rd.num_allocations,
            num_patch_locations: rd.num_patch_locations,
            req_command_buffer_size: rd.new_command_buffer_size,
            req_allocation_list_size: rd.new_allocation_list_size,
            req_patch_list_size: rd.new_patch_location_list_size,
            command_bytes: rd.command_buffer.clone(),
            allocations: rd
                .allocation_list
                .iter()
                .map(|e| SubmitAllocation {
                    handle: e.h_allocation,
                    value: e.value,
                    surface: driver.surface_of_allocation(e.h_allocation).unwrap_or(0),
                })
                .collect(),
            patches: rd.patch_location_list.clone(),
        }
    }

    /// After [`Driver::render`]: `call` from [`Observer::submit_call`], `rd`
    /// as the call left it, `hr` its result.
    pub fn on_render(&mut self, call: SubmitCall, rd: &RenderData, hr: u32) {
        self.put(&Record::Submit {
            call: Box::new(call),
            answer: Some(submit_answer(rd, hr)),
        });
    }
}

/// The answer of a render-callback call.
pub fn submit_answer(rd: &RenderData, hr: u32) -> Answer {
    Answer {
        ddrval: hr,
        sizes: [
            rd.new_command_buffer_size,
            rd.new_allocation_list_size,
            rd.new_patch_location_list_size,
        ],
        queued: rd.queued_buffer_count,
        ..Answer::default()
    }
}

#[cfg(test)]
mod tests {
    use super::{changed, last_nonzero};

    /// The block scan finds the same byte as a plain reverse scan, for
    /// every position of the last non-zero byte around block edges.
    /// Found by `capi_entry` (a 13 s libFuzzer timeout): unlocking a
    /// buffer at the 256 MiB cap while capturing compared the lock copy
    /// with the surface byte by byte, twice. Blocks are now compared whole;
    /// the result must be the plain scan's.
    #[test]
    fn regression_changed_compares_blocks_and_matches_a_plain_scan() {
        let plain = |a: &[u8], b: &[u8]| {
            let f = b.iter().zip(a).position(|(x, y)| x != y);
            let l = b.iter().zip(a).rposition(|(x, y)| x != y);
            match (f, l) {
                (Some(f), Some(l)) => (f as u32, b[f..=l].to_vec()),
                _ => (0, Vec::new()),
            }
        };
        for len in [0usize, 1, 4095, 4096, 4097, 9000] {
            let before: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
            let spots = [0, 1, len / 2, len.saturating_sub(2), len.saturating_sub(1)];
            for &i in &spots {
                for &j in &spots {
                    if i > j || j >= len {
                        continue;
                    }
                    let mut after = before.clone();
                    after[i] ^= 0x55;
                    after[j] ^= 0xAA;
                    // Longer or shorter `after`: only the common length counts.
                    for extra in [0usize, 3] {
                        let mut a = after.clone();
                        a.extend(std::iter::repeat_n(9, extra));
                        assert_eq!(
                            changed(&before, &a),
                            plain(&before, &a),
                            "{len} {i} {j} {extra}"
                        );
                        let short = &after[..len - len.min(extra)];
                        assert_eq!(changed(&before, short), plain(&before, short));
                    }
                }
            }
            assert_eq!(changed(&before, &before), (0, Vec::new()));
        }
    }

    #[test]
    fn last_nonzero_matches_a_plain_scan() {
        for len in [0usize, 1, 63, 64, 65, 4095, 4096, 4097, 9000] {
            for last in 0..len {
                let mut b = vec![0u8; len];
                b[last] = 1;
                if last > 3 {
                    b[last - 3] = 7;
                }
                assert_eq!(last_nonzero(&b), Some(last), "len {len}");
            }
            assert_eq!(last_nonzero(&vec![0u8; len]), None);
        }
    }
}
