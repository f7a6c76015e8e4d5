//! Surface commands: render targets (SETRENDERTARGET, SETRENDERTARGET2,
//! SETDEPTHSTENCIL), CLEAR, the blts (BUFFERBLT, TEXBLT, VOLUMEBLT, BLT,
//! SURFACEBLT, COLORFILL, GENERATEMIPSUBLEVELS), palettes (SETPALETTE,
//! UPDATEPALETTE), SETTEXLOD, SETPRIORITY, ADDDIRTYRECT / ADDDIRTYBOX and
//! SETCONVOLUTIONKERNELMONO.
//!
//! In: the records and the driver's surfaces. Out: the context's targets;
//! clears, BUFFERBLTs, TEXBLTs and VOLUMEBLTs lowered into GPU packets; the
//! CPU blts of `crate::blt` run once the GPU has finished the work before
//! them; surface LOD, priority, dirty regions and palettes. Guarantees:
//! every record's handles, kinds and sizes are checked before the first
//! takes effect; commands whose effect later draws must not see (palettes,
//! LOD) let the GPU finish the draws before them first.

use super::Exec;
use crate::error::{check_below, range, DeviceError, Result};
use crate::limits;
use crate::resource::{Resource, SurfaceKind};
use softhal_pipeline as pl;
use softhal_wire::structs::{F32Le, Rect};
use softhal_wire::Command;

/// A CLEAR rectangle as the pipeline's.
fn rect_of(r: &Rect) -> pl::Rect {
    pl::Rect::new(r.left.get(), r.top.get(), r.right.get(), r.bottom.get())
}

/// DDRAWIPAL_ALPHA: the palette's flags byte is alpha.
const DDRAWIPAL_ALPHA: u32 = 0x2000;

/// A texture palette from a context palette (PALETTEENTRY DWORDs, bytes R,
/// G, B, flags) and the SETPALETTE flags.
fn texture_palette(entries: &[u32], flags: u32) -> pl::texture::Palette {
    let bytes: Vec<u8> = entries.iter().flat_map(|e| e.to_le_bytes()).collect();
    pl::texture::Palette::from_bytes(&bytes, 0, flags & DDRAWIPAL_ALPHA != 0)
}

impl<'c> Exec<'_, 'c> {
    /// The surface commands.
    pub(super) fn resource_command(&mut self, cmd: &Command<'c>) -> Result<()> {
        use Command as C;
        match *cmd {
            C::SetRenderTarget(recs) => {
                for r in recs {
                    self.check_targets(r.render_target.get(), r.z_buffer.get())?;
                }
                if let Some(r) = recs.last() {
                    self.ctx.render_target = r.render_target.get();
                    self.ctx.depth = (r.z_buffer.get() != 0).then_some(r.z_buffer.get());
                }
                Ok(())
            }
            C::SetRenderTarget2(recs) => {
                for r in recs {
                    let (i, h) = (r.rt_index.get(), r.render_target.get());
                    check_below(
                        "RTIndex",
                        u64::from(i),
                        pl::limits::MAX_RENDER_TARGETS as u64,
                    )?;
                    if i == 0 || h != 0 {
                        self.check_color_target(h)?;
                    }
                }
                for r in recs {
                    let (i, h) = (r.rt_index.get(), r.render_target.get());
                    if i == 0 {
                        self.ctx.render_target = h;
                    } else if let Some(slot) = (i as usize)
                        .checked_sub(1)
                        .and_then(|j| self.ctx.extra_targets.get_mut(j))
                    {
                        *slot = h;
                    }
                }
                Ok(())
            }
            C::SetDepthStencil(recs) => {
                for r in recs {
                    self.check_targets(self.ctx.render_target, r.z_buffer.get())?;
                }
                if let Some(r) = recs.last() {
                    self.ctx.depth = (r.z_buffer.get() != 0).then_some(r.z_buffer.get());
                }
                Ok(())
            }
            C::Clear { clear, rects } => {
                let rs: Vec<pl::Rect> = rects.iter().map(rect_of).collect();
                crate::blt::clear(
                    self.gpu,
                    self.ctx_h,
                    self.surfaces,
                    self.ctx,
                    clear.flags.get(),
                    clear.fill_color.get(),
                    clear.fill_depth.get(),
                    clear.fill_stencil.get(),
                    &rs,
                )
            }

            C::BufferBlt(recs) => {
                crate::blt::buffer_blt_check(self.surfaces, recs)?;
                let copies: Vec<crate::umd::GpuCopy> = recs
                    .iter()
                    .map(|r| crate::umd::GpuCopy::Buffer {
                        src: r.src_surface.get(),
                        src_offset: r.src_offset.get(),
                        dst: r.dest_surface.get(),
                        dst_offset: r.dest_offset.get(),
                        bytes: r.src_size.get(),
                    })
                    .collect();
                self.gpu.copies(self.ctx_h, self.surfaces, &copies)?;
                // Later commands of this call may read the copied bytes on
                // the CPU (index validation, patches): let the GPU run.
                self.gpu.finish(self.surfaces)
            }
            C::TexBlt(_)
            | C::VolumeBlt(_)
            | C::Blt(_)
            | C::SurfaceBlt(_)
            | C::ColorFill(_)
            | C::GenerateMipSubLevels(_) => {
                // Validated here, run by the GPU's copy engine in stream
                // order (no CPU wait).
                let s = &*self.surfaces;
                let (copies, preloads) = match *cmd {
                    C::TexBlt(recs) => crate::blt::tex_blt(s, recs)?,
                    C::VolumeBlt(recs) => (crate::blt::volume_blt(s, recs)?, 0),
                    C::Blt(recs) | C::SurfaceBlt(recs) => (crate::blt::blt(s, recs)?, 0),
                    C::ColorFill(recs) => (crate::blt::color_fill(s, recs)?, 0),
                    C::GenerateMipSubLevels(recs) => (crate::blt::generate_mips(s, recs)?, 0),
                    _ => (Vec::new(), 0),
                };
                if !copies.is_empty() {
                    self.gpu.copies(self.ctx_h, self.surfaces, &copies)?;
                }
                self.ctx.stats.preloads = self.ctx.stats.preloads.saturating_add(preloads);
                Ok(())
            }

            C::SetTexLod(recs) => {
                // The clamp applies to draws after this command only.
                self.update_surfaces(
                    recs,
                    |r| r.surface.get(),
                    true,
                    |s, r| {
                        s.lod = r.lod.get();
                        if let Some(t) = s.texture_mut() {
                            t.set_lod(r.lod.get());
                        }
                    },
                )
            }
            C::SetPriority(recs) => self.update_surfaces(
                recs,
                |r| r.surface.get(),
                false,
                |s, r| {
                    s.priority = r.priority.get();
                },
            ),
            C::AddDirtyRect(recs) => self.update_surfaces(
                recs,
                |r| r.surface.get(),
                false,
                |s, r| {
                    let g = |v: zerocopy::little_endian::I32| i64::from(v.get());
                    s.add_dirty([g(r.left), g(r.top), 0, g(r.right), g(r.bottom), 1]);
                },
            ),
            C::AddDirtyBox(recs) => self.update_surfaces(
                recs,
                |r| r.surface.get(),
                false,
                |s, r| {
                    let g = |v: zerocopy::little_endian::U32| i64::from(v.get());
                    let (l, t, f) = (g(r.left), g(r.top), g(r.front));
                    s.add_dirty([l, t, f, g(r.right), g(r.bottom), g(r.back)]);
                },
            ),
            C::SetPalette(recs) => {
                // The palettes the whole command creates count against the
                // cap (not each record against the palettes before it).
                let mut new = std::collections::BTreeSet::new();
                for r in recs {
                    self.surfaces.get(r.surface_handle.get())?;
                    let p = r.palette_handle.get();
                    if p != 0 && !self.ctx.palettes.contains_key(&p) {
                        new.insert(p);
                    }
                    if self.ctx.palettes.len().saturating_add(new.len()) > limits::MAX_PALETTES {
                        return Err(DeviceError::Limit {
                            what: "palettes",
                            max: limits::MAX_PALETTES as u64,
                        });
                    }
                }
                // Draws before this command keep the old palette.
                self.gpu.finish(self.surfaces)?;
                for r in recs {
                    let p = r.palette_handle.get();
                    let entries = (p != 0).then(|| {
                        self.ctx
                            .palettes
                            .entry(p)
                            .or_insert_with(|| vec![0; limits::PALETTE_ENTRIES as usize])
                            .clone()
                    });
                    if let Ok(s) = self.surfaces.get_mut(r.surface_handle.get()) {
                        let flags = r.palette_flags.get();
                        s.palette = (p != 0).then_some((p, flags));
                        if let Some(t) = s.texture_mut() {
                            t.set_palette(entries.as_deref().map(|e| texture_palette(e, flags)));
                        }
                    }
                }
                Ok(())
            }
            C::UpdatePalette {
                update, entries, ..
            } => {
                let p = update.palette_handle.get();
                let start = u32::from(update.start_index.get());
                // A WORD start and a WORD count cannot overflow a u64.
                let end = u64::from(start).saturating_add(entries.len() as u64);
                if end > u64::from(limits::PALETTE_ENTRIES) {
                    return Err(range("UPDATEPALETTE entries", end, 257));
                }
                if p == 0 {
                    return Err(DeviceError::BadHandle {
                        handle: 0,
                        what: "palette",
                    });
                }
                if !self.ctx.palettes.contains_key(&p)
                    && self.ctx.palettes.len() >= limits::MAX_PALETTES
                {
                    return Err(DeviceError::Limit {
                        what: "palettes",
                        max: limits::MAX_PALETTES as u64,
                    });
                }
                let pal = self
                    .ctx
                    .palettes
                    .entry(p)
                    .or_insert_with(|| vec![0; limits::PALETTE_ENTRIES as usize]);
                for (slot, e) in pal.iter_mut().skip(start as usize).zip(entries) {
                    *slot = e.entry.get();
                }
                let pal = pal.clone();
                // Textures using the palette see the new entries from the
                // next draw on.
                self.gpu.finish(self.surfaces)?;
                for (_, s) in self.surfaces.iter_mut() {
                    if let Some((h, flags)) = s.palette {
                        if h == p {
                            if let Some(t) = s.texture_mut() {
                                t.set_palette(Some(texture_palette(&pal, flags)));
                            }
                        }
                    }
                }
                Ok(())
            }
            C::SetConvolutionKernelMono(recs) => {
                let mut last = None;
                for r in recs.iter() {
                    let (w, h) = (r.head.width.get(), r.head.height.get());
                    if w == 0 || h == 0 || w > 7 || h > 7 {
                        return Err(DeviceError::BadValue {
                            what: "convolution kernel size",
                            value: w.max(h),
                        });
                    }
                    let bits = |o: Option<&[F32Le]>, n: u32| {
                        o.map_or(vec![1.0f32.to_bits(); n as usize], |w| {
                            w.iter().map(|f| f.bits()).collect()
                        })
                    };
                    last = Some((w, h, bits(r.row_weights, w), bits(r.col_weights, h)));
                }
                if last.is_some() {
                    self.ctx.convolution = last;
                }
                Ok(())
            }
            _ => Err(super::unsupported_opcode()),
        }
    }

    /// Commands whose records each name a surface: every surface must
    /// exist; then (after the GPU has finished the work before this
    /// command, with `finish_first`) `update` changes each in order.
    fn update_surfaces<R>(
        &mut self,
        recs: &[R],
        surface: impl Fn(&R) -> u32,
        finish_first: bool,
        mut update: impl FnMut(&mut Resource, &R),
    ) -> Result<()> {
        for r in recs {
            self.surfaces.get(surface(r))?;
        }
        if finish_first {
            self.gpu.finish(self.surfaces)?;
        }
        for r in recs {
            if let Ok(s) = self.surfaces.get_mut(surface(r)) {
                update(s, r);
            }
        }
        Ok(())
    }

    /// A colour target and an optional depth buffer at least as large.
    fn check_targets(&self, rt: u32, z: u32) -> Result<()> {
        self.check_color_target(rt)?;
        if z != 0 {
            self.check_kind(z, SurfaceKind::DepthStencil)?;
            // The descriptions (the images may be on the GPU worker).
            let c = &self.surfaces.get(rt)?.desc;
            let d = &self.surfaces.get(z)?.desc;
            if d.width < c.width || d.height < c.height {
                return Err(DeviceError::InvalidParams(
                    "depth buffer smaller than the render target",
                ));
            }
        }
        Ok(())
    }
}
