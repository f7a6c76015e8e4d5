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
//! Every record is made by the [`Observer`] the recorder holds — the same
//! observer the C ABI uses for a driver the host keeps owning — so the two
//! ways of recording cannot drift apart.
//!
//! Locks: the bytes of the locked plane are copied at lock time and
//! compared at unlock; the UNLOCK record carries the changed byte range
//! (first to last changed byte). DrawPrimitives2 records carry the command
//! bytes (`dwCommandOffset` .. `+dwCommandLength`) as the command surface
//! held them at the call, the user-memory vertices and `lpdwRStates`.

use crate::observer::{plane, Observer};
use crate::record::*;
use softhal_device::{
    Clear2Data, DeviceError, DrawPrimitives2Data, Driver, Format, LockFlags, SurfaceDesc,
    ValidateTextureStageStateData,
};
use softhal_submit::{Engine, RenderData};
use std::collections::HashMap;
use std::io::Write;

/// Records a session with a driver.
pub struct Recorder<W: Write> {
    driver: Driver,
    obs: Observer<W>,
    locks: HashMap<u32, (u32, u32, Vec<u8>)>,
}

impl<W: Write> std::fmt::Debug for Recorder<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("records", &self.obs.records())
            .finish()
    }
}

impl<W: Write> Recorder<W> {
    /// Starts a capture of `driver`'s session into `out` (writes the
    /// header). Start with a fresh driver: objects it already has are not
    /// recorded, so a replay would not know them.
    pub fn new(driver: Driver, out: W) -> Self {
        Recorder {
            driver,
            obs: Observer::new(out),
            locks: HashMap::new(),
        }
    }

    /// The driver (read-only: calls that change it must go through the
    /// recorder).
    pub fn driver(&self) -> &Driver {
        &self.driver
    }

    /// Writes the END record; returns the driver and the writer, or the
    /// first write error.
    pub fn finish(self) -> std::io::Result<(Driver, W)> {
        let out = self.obs.finish()?;
        Ok((self.driver, out))
    }

    /// [`Driver::create_surface`].
    pub fn create_surface(&mut self, desc: SurfaceDesc) -> Result<u32, DeviceError> {
        let r = self.driver.create_surface(desc);
        self.obs.on_create_surface(&desc, &r);
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
        self.obs.on_destroy_surface(h, &r);
        r
    }

    /// [`Driver::lock`].
    pub fn lock(&mut self, h: u32, flags: LockFlags) -> Result<&mut [u8], DeviceError> {
        let r = self.driver.lock(h, flags).map(|_| ());
        self.obs.on_lock(h, LockApi::Lock, 0, 0, flags, &r);
        if r.is_ok() {
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
        let r = self.driver.lock_level(h, face, level).map(|_| ());
        self.obs
            .on_lock(h, LockApi::LockLevel, face, level, LockFlags::default(), &r);
        if r.is_ok() {
            if let Some(b) = plane(&self.driver, h, face, level) {
                self.locks.insert(h, (face, level, b.to_vec()));
            }
        }
        self.driver.lock_level(h, face, level)
    }

    /// [`Driver::unlock`]: records the bytes written since the lock.
    pub fn unlock(&mut self, h: u32) -> Result<(), DeviceError> {
        let (face, level, before) = self.locks.remove(&h).unwrap_or_default();
        let now = plane(&self.driver, h, face, level)
            .unwrap_or_default()
            .to_vec();
        let r = self.driver.unlock(h);
        let before = if before.is_empty() { &now } else { &before };
        self.obs.on_unlock(h, face, level, before, &now, &r);
        r
    }

    /// [`Driver::context_create`].
    pub fn context_create(&mut self, rt: u32, depth: Option<u32>) -> Result<u32, DeviceError> {
        let r = self.driver.context_create(rt, depth);
        self.obs.on_context_create(rt, depth, &r);
        r
    }

    /// [`Driver::context_destroy`].
    pub fn context_destroy(&mut self, h: u32) -> Result<(), DeviceError> {
        let r = self.driver.context_destroy(h);
        self.obs.on_context_destroy(h, &r);
        r
    }

    /// [`Driver::draw_primitives2`].
    pub fn draw_primitives2(&mut self, d: &mut DrawPrimitives2Data<'_>) -> u32 {
        let call = Observer::<W>::dp2_call(&self.driver, d);
        let ret = self.driver.draw_primitives2(d);
        self.obs.on_draw_primitives2(call, d);
        ret
    }

    /// [`Driver::clear2`].
    pub fn clear2(&mut self, d: &mut Clear2Data<'_>) -> u32 {
        let ret = self.driver.clear2(d);
        self.obs.on_clear2(d);
        ret
    }

    /// [`Driver::validate_texture_stage_state`].
    pub fn validate_texture_stage_state(&mut self, d: &mut ValidateTextureStageStateData) -> u32 {
        let ret = self.driver.validate_texture_stage_state(d);
        self.obs.on_validate_texture_stage_state(d);
        ret
    }

    /// [`Driver::flip`].
    pub fn flip(&mut self, h: u32) -> Result<(), DeviceError> {
        let r = self.driver.flip(h);
        self.obs.on_flip(&self.driver, h, &r);
        r
    }

    /// [`Driver::complete_flips`].
    pub fn complete_flips(&mut self) {
        self.driver.complete_flips();
        self.obs.on_complete_flips();
    }

    /// [`Driver::present`].
    pub fn present(&mut self, h: u32) -> Result<Vec<u8>, DeviceError> {
        let r = self.driver.present(h);
        self.obs.on_present(h, &r);
        r
    }

    /// [`Driver::complete_work`].
    pub fn complete_work(&mut self) {
        self.driver.complete_work();
        self.obs.on_complete_work();
    }

    /// [`Driver::render_context_create`].
    pub fn render_context_create(&mut self, engine: Engine) -> Result<u32, DeviceError> {
        let r = self.driver.render_context_create(engine);
        self.obs.on_render_context_create(engine, &r);
        r
    }

    /// [`Driver::set_color_key`].
    pub fn set_color_key(&mut self, h: u32, key: Option<(u32, u32)>) -> Result<(), DeviceError> {
        let r = self.driver.set_color_key(h, key);
        self.obs.on_set_color_key(h, key, &r);
        r
    }

    /// [`Driver::attached_surface`].
    pub fn attached_surface(&mut self, h: u32, face: u32, level: u32) -> Result<u32, DeviceError> {
        let r = self.driver.attached_surface(h, face, level);
        self.obs.on_attached_surface(h, face, level, &r);
        r
    }

    /// [`Driver::notify_dx_version`].
    pub fn notify_dx_version(&mut self, version: u32) {
        self.driver.notify_dx_version(version);
        self.obs.on_notify_dx_version(version);
    }

    /// [`Driver::render_context_destroy`].
    pub fn render_context_destroy(&mut self, h: u32) -> Result<(), DeviceError> {
        let r = self.driver.render_context_destroy(h);
        self.obs.on_render_context_destroy(h, &r);
        r
    }

    /// [`Driver::render`].
    pub fn render(&mut self, rd: &mut RenderData) -> u32 {
        let call = Observer::<W>::submit_call(&self.driver, rd);
        let hr = self.driver.render(rd);
        self.obs.on_render(call, rd, hr);
        hr
    }
}
