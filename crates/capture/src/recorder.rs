//! The recorder: a `softhal_device::Driver` wrapper that writes a binary
//! capture of everything the host does.
//!
//! In: the host's driver calls, with the same signatures as
//! [`softhal_device::Driver`]. Out: the driver's results (unchanged), and
//! one record per call streamed to `W`, each with the driver's answer.
//! [`Recorder::finish`] writes the END record and hands back the driver
//! and the writer. Guarantees: the recorder never changes what the driver
//! does or answers; a write error does not interrupt the host — the first
//! one is kept and returned by [`Recorder::finish`] (later records are not
//! written).
//!
//! Locks: the bytes of the locked plane are copied at lock time and
//! compared at unlock; the UNLOCK record carries the changed byte range
//! (first to last changed byte). DrawPrimitives2 records carry the command
//! bytes (`dwCommandOffset` .. `+dwCommandLength`) as the command surface
//! held them at the call, the user-memory vertices and `lpdwRStates`.

use crate::binary;
use crate::record::*;
use crate::replay::spec_of;
use softhal_device::resource::Storage;
use softhal_device::{
    Clear2Data, DeviceError, DrawPrimitives2Data, Driver, Format, LockFlags, SurfaceDesc,
    ValidateTextureStageStateData,
};
use softhal_wire::names::codes;
use std::collections::HashMap;
use std::io::Write;

/// Records a session with a driver.
pub struct Recorder<W: Write> {
    driver: Driver,
    out: W,
    records: u32,
    error: Option<std::io::Error>,
    locks: HashMap<u32, (u32, u32, Vec<u8>)>,
}

impl<W: Write> std::fmt::Debug for Recorder<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("records", &self.records)
            .finish()
    }
}

fn status(r: &Result<(), DeviceError>) -> Option<Answer> {
    Some(Answer {
        ddrval: match r {
            Ok(()) => codes::D3D_OK,
            Err(e) => e.ddrval(),
        },
        ..Answer::default()
    })
}

/// The bytes of plane (face, level) of surface `h` (buffers: 0, 0).
fn plane(d: &Driver, h: u32, face: u32, level: u32) -> Option<&[u8]> {
    let r = d.surface(h).ok()?;
    match &r.storage {
        Storage::Buffer(b) => Some(b),
        Storage::Image(Some(s)) => Some(s.bytes()),
        Storage::Texture(t) => t.level_bytes(face, level),
        Storage::Image(None) => None,
    }
}

impl<W: Write> Recorder<W> {
    /// Starts a capture of `driver`'s session into `out` (writes the header).
    pub fn new(driver: Driver, mut out: W) -> Self {
        let error = out.write_all(&binary::header()).err();
        Recorder {
            driver,
            out,
            records: 0,
            error,
            locks: HashMap::new(),
        }
    }

    fn put(&mut self, r: &Record) {
        if self.error.is_some() {
            return;
        }
        let (code, payload) = binary::encode_record(r);
        if let Err(e) = self.out.write_all(&binary::frame(code, &payload)) {
            self.error = Some(e);
        }
        self.records = self.records.saturating_add(1);
    }

    /// The driver (read-only: calls that change it must go through the
    /// recorder).
    pub fn driver(&self) -> &Driver {
        &self.driver
    }

    /// Writes the END record; returns the driver and the writer, or the
    /// first write error.
    pub fn finish(mut self) -> std::io::Result<(Driver, W)> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.write_all(&binary::end_record(self.records))?;
        self.out.flush()?;
        Ok((self.driver, self.out))
    }

    /// [`Driver::create_surface`].
    pub fn create_surface(&mut self, desc: SurfaceDesc) -> Result<u32, DeviceError> {
        let r = self.driver.create_surface(desc);
        self.put(&Record::CreateSurface {
            handle: *r.as_ref().unwrap_or(&0),
            spec: spec_of(&desc),
            init: Vec::new(),
            answer: status(&r.as_ref().map(|_| ()).map_err(Clone::clone)),
        });
        r
    }

    /// [`Driver::create_render_target`].
    pub fn create_render_target(&mut self, f: Format, w: u32, h: u32) -> Result<u32, DeviceError> {
        self.create_surface(SurfaceDesc::render_target(f, w, h))
    }

    /// [`Driver::create_depth_stencil`].
    pub fn create_depth_stencil(&mut self, f: Format, w: u32, h: u32) -> Result<u32, DeviceError> {
        self.create_surface(SurfaceDesc::depth_stencil(f, w, h))
    }

    /// [`Driver::create_command_buffer`].
    pub fn create_command_buffer(&mut self, bytes: u32) -> Result<u32, DeviceError> {
        self.create_surface(SurfaceDesc::buffer(
            softhal_device::SurfaceKind::CommandBuffer,
            bytes,
        ))
    }

    /// [`Driver::destroy_surface`].
    pub fn destroy_surface(&mut self, h: u32) -> Result<(), DeviceError> {
        let r = self.driver.destroy_surface(h);
        self.locks.remove(&h);
        self.put(&Record::DestroySurface {
            handle: h,
            answer: status(&r),
        });
        r
    }

    fn record_lock(
        &mut self,
        h: u32,
        api: LockApi,
        face: u32,
        level: u32,
        flags: u32,
        ddrval: u32,
    ) {
        let answer = Some(Answer {
            ddrval,
            ..Answer::default()
        });
        self.put(&Record::Lock {
            handle: h,
            api,
            face,
            level,
            flags,
            answer,
        });
    }

    /// [`Driver::lock`].
    pub fn lock(&mut self, h: u32, flags: LockFlags) -> Result<&mut [u8], DeviceError> {
        let bits = u32::from(flags.discard) | u32::from(flags.no_overwrite) << 1;
        let ddrval = match self.driver.lock(h, flags) {
            Ok(_) => codes::D3D_OK,
            Err(e) => e.ddrval(),
        };
        self.record_lock(h, LockApi::Lock, 0, 0, bits, ddrval);
        if ddrval == codes::D3D_OK {
            if let Some(b) = plane(&self.driver, h, 0, 0) {
                self.locks.insert(h, (0, 0, b.to_vec()));
            }
        }
        // A second lock() of an unbusy surface has no further effect.
        self.driver.lock(h, LockFlags::default())
    }

    /// [`Driver::lock_level`].
    pub fn lock_level(
        &mut self,
        h: u32,
        face: u32,
        level: u32,
    ) -> Result<(&mut [u8], usize), DeviceError> {
        let ddrval = match self.driver.lock_level(h, face, level) {
            Ok(_) => codes::D3D_OK,
            Err(e) => e.ddrval(),
        };
        self.record_lock(h, LockApi::LockLevel, face, level, 0, ddrval);
        if ddrval == codes::D3D_OK {
            if let Some(b) = plane(&self.driver, h, face, level) {
                self.locks.insert(h, (face, level, b.to_vec()));
            }
        }
        self.driver.lock_level(h, face, level)
    }

    /// [`Driver::unlock`]: records the bytes written since the lock.
    pub fn unlock(&mut self, h: u32) -> Result<(), DeviceError> {
        let (face, level, offset, bytes) = match self.locks.remove(&h) {
            Some((face, level, before)) => {
                let now = plane(&self.driver, h, face, level).unwrap_or_default();
                let first = now.iter().zip(&before).position(|(a, b)| a != b);
                let last = now.iter().zip(&before).rposition(|(a, b)| a != b);
                match (first, last) {
                    (Some(f), Some(l)) => (
                        face,
                        level,
                        f as u32,
                        now.get(f..=l).unwrap_or_default().to_vec(),
                    ),
                    _ => (face, level, 0, Vec::new()),
                }
            }
            None => (0, 0, 0, Vec::new()),
        };
        let r = self.driver.unlock(h);
        self.put(&Record::Unlock {
            handle: h,
            face,
            level,
            offset,
            bytes,
            answer: status(&r),
        });
        r
    }

    /// [`Driver::context_create`].
    pub fn context_create(&mut self, rt: u32, depth: Option<u32>) -> Result<u32, DeviceError> {
        let r = self.driver.context_create(rt, depth);
        let ddrval = match &r {
            Ok(_) => codes::D3D_OK,
            Err(e) => Driver::context_create_ddrval(e),
        };
        self.put(&Record::ContextCreate {
            handle: *r.as_ref().unwrap_or(&0),
            render_target: rt,
            depth: depth.unwrap_or(0),
            answer: Some(Answer {
                ddrval,
                ..Answer::default()
            }),
        });
        r
    }

    /// [`Driver::context_destroy`].
    pub fn context_destroy(&mut self, h: u32) -> Result<(), DeviceError> {
        let r = self.driver.context_destroy(h);
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
        r
    }

    /// [`Driver::draw_primitives2`].
    pub fn draw_primitives2(&mut self, d: &mut DrawPrimitives2Data<'_>) -> u32 {
        let command_bytes = self
            .driver
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
        let call = Dp2Call {
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
        };
        let ret = self.driver.draw_primitives2(d);
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
        ret
    }

    /// [`Driver::clear2`].
    pub fn clear2(&mut self, d: &mut Clear2Data<'_>) -> u32 {
        let ret = self.driver.clear2(d);
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
        ret
    }

    /// [`Driver::validate_texture_stage_state`].
    pub fn validate_texture_stage_state(&mut self, d: &mut ValidateTextureStageStateData) -> u32 {
        let (context, flags, reserved) = (d.dwh_context, d.dw_flags, d.dw_reserved);
        let ret = self.driver.validate_texture_stage_state(d);
        self.put(&Record::ValidateTextureStageState {
            context,
            flags,
            reserved,
            answer: Some(Answer {
                ddrval: d.ddrval,
                passes: d.dw_num_passes,
                ..Answer::default()
            }),
        });
        ret
    }

    fn frame_answer(&self, h: u32, r: &Result<(), DeviceError>) -> Option<Answer> {
        let mut a = status(r)?;
        if r.is_ok() {
            a.checksum = self.driver.read_rgba8(h).map_or(0, |b| fnv1a64(&b));
        }
        Some(a)
    }

    /// [`Driver::flip`].
    pub fn flip(&mut self, h: u32) -> Result<(), DeviceError> {
        let r = self.driver.flip(h);
        let answer = self.frame_answer(h, &r);
        self.put(&Record::Flip { handle: h, answer });
        r
    }

    /// [`Driver::complete_flips`].
    pub fn complete_flips(&mut self) {
        self.driver.complete_flips();
        self.put(&Record::CompleteFlips);
    }

    /// [`Driver::present`].
    pub fn present(&mut self, h: u32) -> Result<Vec<u8>, DeviceError> {
        let r = self.driver.present(h);
        let mut answer = status(&r.as_ref().map(|_| ()).map_err(Clone::clone));
        if let (Some(a), Ok(px)) = (answer.as_mut(), &r) {
            a.checksum = fnv1a64(px);
        }
        self.put(&Record::Present { handle: h, answer });
        r
    }

    /// [`Driver::complete_work`].
    pub fn complete_work(&mut self) {
        self.driver.complete_work();
        self.put(&Record::CompleteWork);
    }
}
