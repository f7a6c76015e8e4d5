//! DRAWRECTPATCH and DRAWTRIPATCH: validating the control data, the patch
//! cache, and drawing the tessellated meshes (the tessellation itself is
//! [`crate::patch`]).
//!
//! In: patch records (with or without info and segment counts), stream 0
//! as bound, PATCHSEGMENTS and PATCHEDGESTYLE. Out: triangle-list draws of
//! the tessellated meshes; patches with info and a non-zero handle cached
//! (least recently used evicted beyond `limits::MAX_CACHED_PATCHES` /
//! `MAX_PATCH_CACHE_BYTES`). Guarantee: every record of a command is
//! validated (basis, degree, size, every control vertex inside stream 0)
//! before the first is drawn, holding no control data while it does.

use super::draw::DrawReq;
use super::stream::patch_stream_input;
use super::Exec;
use crate::context::CachedPatch;
use crate::error::{range, DeviceError, Result};
use crate::limits;
use crate::patch;
use softhal_pipeline::{Topology, VertexLayout};
use softhal_wire::command::{RectPatchRecord, TriPatchRecord};
use softhal_wire::names::{PatchEdgeStyle, RenderStateType as Rs};
use softhal_wire::structs::{D3dRectPatchInfo, D3dTriPatchInfo};
use softhal_wire::Records;
use std::borrow::Cow;

impl<'c> Exec<'_, 'c> {
    /// PATCHSEGMENTS (the segments of a record without its own) and
    /// whether PATCHEDGESTYLE is CONTINUOUS.
    fn segs_rs(&self) -> (f32, bool) {
        let st = &self.ctx.state;
        (
            f32::from_bits(st.rs(Rs::PatchSegments)),
            st.rs(Rs::PatchEdgeStyle) == PatchEdgeStyle::Continuous.raw(),
        )
    }

    /// The control data of a rect patch described by `info`, read from
    /// the current streams (validated: basis, degree, size, every control
    /// vertex inside stream 0). With `copy` false only validates (the
    /// control bytes stay empty), so that validating a whole command holds
    /// no control data.
    fn rect_control(&self, info: &D3dRectPatchInfo, copy: bool) -> Result<CachedPatch> {
        let (w, hgt) = (info.width.get(), info.height.get());
        let (basis, degree) = (info.basis.get(), info.degree.get());
        patch::spans(basis, degree, w)?;
        patch::spans(basis, degree, hgt)?;
        // Two u32s cannot overflow a u64.
        let count = u64::from(w).saturating_mul(u64::from(hgt));
        if count > u64::from(limits::MAX_PATCH_CONTROL_POINTS) {
            return Err(range(
                "patch control points",
                count,
                u64::from(limits::MAX_PATCH_CONTROL_POINTS) + 1,
            ));
        }
        let (s0, layout, _) = patch_stream_input(self.surfaces, self.ctx, self.call)?;
        let stride = layout.stride as usize;
        let n = s0.len().checked_div(stride.max(1)).unwrap_or(0);
        // The capacity is only a hint.
        let mut control = Vec::with_capacity(if copy {
            (count as usize).checked_mul(stride).unwrap_or(0)
        } else {
            0
        });
        for j in 0..hgt {
            for i in 0..w {
                // Untrusted DWORDs: (row + j) × stride + column + i can
                // exceed a u64; it saturates, and a saturated index is
                // never < n.
                let v = u64::from(info.start_vertex_offset_height.get())
                    .saturating_add(u64::from(j))
                    .saturating_mul(u64::from(info.stride.get()))
                    .saturating_add(u64::from(info.start_vertex_offset_width.get()))
                    .saturating_add(u64::from(i));
                if v >= n as u64 {
                    return Err(range("patch control vertex", v, n as u64));
                }
                if copy {
                    let vertex = (v as usize)
                        .checked_mul(stride)
                        .and_then(|at| s0.get(at..))
                        .and_then(|b| b.get(..stride));
                    control.extend_from_slice(vertex.unwrap_or_default());
                }
            }
        }
        Ok(CachedPatch {
            rect: true,
            layout,
            control,
            size: (w, hgt),
            basis,
            degree,
            last_used: 0,
        })
    }

    /// The control data of a tri patch described by `info` (as
    /// [`Self::rect_control`]).
    fn tri_control(&self, info: &D3dTriPatchInfo, copy: bool) -> Result<CachedPatch> {
        let (basis, degree) = (info.basis.get(), info.degree.get());
        if basis != patch::BASIS_BEZIER {
            return Err(DeviceError::BadValue {
                what: "tri patch Basis (Bézier only)",
                value: basis,
            });
        }
        if !matches!(degree, 1 | 2 | 3 | 5) {
            return Err(DeviceError::BadValue {
                what: "patch Degree",
                value: degree,
            });
        }
        let count = patch::tri_control_count(degree);
        if info.num_vertices.get() != count {
            return Err(DeviceError::BadValue {
                what: "tri patch NumVertices",
                value: info.num_vertices.get(),
            });
        }
        let (s0, layout, _) = patch_stream_input(self.surfaces, self.ctx, self.call)?;
        let stride = layout.stride as usize;
        let n = s0.len().checked_div(stride.max(1)).unwrap_or(0) as u64;
        let first = u64::from(info.start_vertex_offset.get());
        // Two u32s cannot overflow a u64; count ≥ 3.
        let end = first.saturating_add(u64::from(count));
        if end > n {
            return Err(range("patch control vertex", end.saturating_sub(1), n));
        }
        let control = if copy {
            let lo = (first as usize).checked_mul(stride);
            let hi = (end as usize).checked_mul(stride);
            lo.zip(hi)
                .and_then(|(lo, hi)| s0.get(lo..hi))
                .unwrap_or_default()
                .to_vec()
        } else {
            Vec::new()
        };
        Ok(CachedPatch {
            rect: false,
            layout,
            control,
            size: (count, 1),
            basis,
            degree,
            last_used: 0,
        })
    }

    /// What a patch record without info does: draw cached patch `h` if it
    /// is of the right kind, nothing for an unknown handle; handle 0 and a
    /// handle of the other kind are errors.
    fn cached_patch_plan(&self, h: u32, rect: bool) -> Result<PatchPlan> {
        if h == 0 {
            return Err(DeviceError::InvalidParams(
                "dynamic patch (handle 0) without RTPATCHFLAG_HASINFO",
            ));
        }
        let kind = |rect: bool| if rect { "rect patch" } else { "tri patch" };
        match self.ctx.patches.get(&h) {
            Some(p) if p.rect == rect => Ok(PatchPlan::Cached),
            Some(p) => Err(DeviceError::WrongKind {
                handle: h,
                expected: kind(rect),
                actual: kind(p.rect),
            }),
            // A new handle without info: ignored, allocates nothing.
            None => Ok(PatchPlan::Ignore),
        }
    }

    /// What a patch record of handle `h` does, validated: with `info`,
    /// checked by `control` without copying control data; without, as
    /// [`Self::cached_patch_plan`].
    fn patch_plan<I>(
        &self,
        h: u32,
        info: Option<&I>,
        rect: bool,
        control: fn(&Self, &I, bool) -> Result<CachedPatch>,
    ) -> Result<PatchPlan> {
        match info {
            Some(info) => {
                control(self, info, false)?;
                Ok(PatchPlan::Info)
            }
            None => self.cached_patch_plan(h, rect),
        }
    }

    pub(super) fn rect_patches(&mut self, recs: Records<'c, RectPatchRecord<'c>>) -> Result<()> {
        let (default_seg, continuous) = self.segs_rs();
        // Validate every record first (no control data held), then draw
        // and cache them one at a time.
        let plans = recs
            .iter()
            .map(|r| self.patch_plan(r.head.handle.get(), r.info, true, Self::rect_control))
            .collect::<Result<Vec<_>>>()?;
        for (r, plan) in recs.iter().zip(plans) {
            let h = r.head.handle.get();
            let segs = r.segments.map_or([default_seg; 4], |s| {
                [s.s0.get(), s.s1.get(), s.s2.get(), s.s3.get()]
            });
            let tess = |p: &CachedPatch| {
                patch::tessellate_rect(
                    &p.layout, &p.control, p.size.0, p.size.1, p.basis, p.degree, segs, continuous,
                )
            };
            self.draw_patch(h, r.info.map(|i| self.rect_control(i, true)), plan, tess)?;
        }
        Ok(())
    }

    pub(super) fn tri_patches(&mut self, recs: Records<'c, TriPatchRecord<'c>>) -> Result<()> {
        let (default_seg, continuous) = self.segs_rs();
        let plans = recs
            .iter()
            .map(|r| self.patch_plan(r.head.handle.get(), r.info, false, Self::tri_control))
            .collect::<Result<Vec<_>>>()?;
        for (r, plan) in recs.iter().zip(plans) {
            let h = r.head.handle.get();
            let segs = r
                .segments
                .map_or([default_seg; 3], |s| [s.s0.get(), s.s1.get(), s.s2.get()]);
            let tess = |p: &CachedPatch| {
                patch::tessellate_tri(&p.layout, &p.control, p.degree, segs, continuous)
            };
            self.draw_patch(h, r.info.map(|i| self.tri_control(i, true)), plan, tess)?;
        }
        Ok(())
    }

    /// Draws one validated patch record: `fresh` is the patch its info
    /// describes (if it has info), else patch `h` comes from the cache
    /// (gone if evicted since validation: then nothing is drawn). A patch
    /// with info and a non-zero handle is cached afterwards
    /// ([`Self::cache_patch`]).
    fn draw_patch(
        &mut self,
        h: u32,
        fresh: Option<Result<CachedPatch>>,
        plan: PatchPlan,
        tess: impl Fn(&CachedPatch) -> Result<patch::Mesh>,
    ) -> Result<()> {
        match (plan, fresh) {
            (PatchPlan::Info, Some(p)) => {
                let p = p?;
                let mesh = tess(&p)?;
                self.draw_meshes(vec![(p.layout, mesh)])?;
                if h != 0 {
                    self.cache_patch(h, p);
                }
            }
            (PatchPlan::Cached, _) => {
                let clock = self.tick_patch_clock();
                let Some(p) = self.ctx.patches.get_mut(&h) else {
                    return Ok(());
                };
                p.last_used = clock;
                let m = (p.layout, tess(p)?);
                self.draw_meshes(vec![m])?;
            }
            _ => {}
        }
        Ok(())
    }

    /// The next value of the context's patch-use clock.
    fn tick_patch_clock(&mut self) -> u64 {
        self.ctx.patch_clock = self.ctx.patch_clock.saturating_add(1);
        self.ctx.patch_clock
    }

    /// Caches patch `p` under handle `h` (replacing what `h` held), then
    /// evicts the least recently used other patches until the cache is
    /// within `MAX_CACHED_PATCHES` patches and `MAX_PATCH_CACHE_BYTES` of
    /// control data. A full cache never fails a draw: an evicted handle
    /// drawn later without info draws nothing, like an unknown one.
    fn cache_patch(&mut self, h: u32, mut p: CachedPatch) {
        p.last_used = self.tick_patch_clock();
        let patches = &mut self.ctx.patches;
        patches.insert(h, p);
        loop {
            let held = patches
                .values()
                .map(|p| p.control.len())
                .fold(0usize, usize::saturating_add);
            if patches.len() <= limits::MAX_CACHED_PATCHES && held <= limits::MAX_PATCH_CACHE_BYTES
            {
                break;
            }
            let victim = patches
                .iter()
                .filter(|(k, _)| **k != h)
                .min_by_key(|(_, p)| p.last_used)
                .map(|(k, _)| *k);
            match victim {
                Some(v) => {
                    patches.remove(&v);
                }
                None => break,
            }
        }
    }

    fn draw_meshes(&mut self, meshes: Vec<(VertexLayout, patch::Mesh)>) -> Result<()> {
        if meshes.is_empty() {
            return Ok(());
        }
        self.ctx.stats.patches = self.ctx.stats.patches.saturating_add(meshes.len() as u64);
        self.draw_with(move |_s, _c, _call| {
            Ok(meshes
                .into_iter()
                .map(|(l, m)| {
                    let count = (m.indices.len() / 3) as u32;
                    let ix: Vec<u8> = m.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
                    DrawReq {
                        topology: Topology::TriangleList,
                        vertices: Cow::Owned(m.vertices),
                        layout: l,
                        indices: Some((Cow::Owned(ix), true)),
                        first: 0,
                        count,
                        base_vertex: 0,
                        vsrc: None,
                        isrc: None,
                    }
                })
                .collect())
        })
    }
}

/// What a validated patch record does.
enum PatchPlan {
    /// Drawn from its info (and cached under a non-zero handle).
    Info,
    /// Drawn from the cache.
    Cached,
    /// A new handle without info: nothing.
    Ignore,
}
