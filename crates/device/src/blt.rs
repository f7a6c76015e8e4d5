//! Clears and blits: CLEAR / Clear2, TEXBLT, VOLUMEBLT, BUFFERBLT, BLT,
//! SURFACEBLT, COLORFILL, GENERATEMIPSUBLEVELS — validated here, executed
//! by the GPU: CLEAR on the 3-D engine, the others as copy-engine packets
//! (BUFFER_COPY, TEXTURE_COPY, BLT, COLOR_FILL, GENERATE_MIPS), whose
//! pixel work is the pipeline's blitter (`softhal_pipeline::blit`). No
//! pixel is read or written here.
//!
//! In: DP2 records (handles, rectangles, flags). Out: the clear lowered,
//! or the copies to lower ([`GpuCopy`]), or the DDI error of the first
//! invalid record. Guarantees: every record of a command is validated
//! (handles, kinds, formats, rectangles inside their surfaces) before
//! anything is lowered, so nothing is written unless the whole command is
//! valid. Choices (docs/device.md): stretching BLTs use point sampling
//! whatever the filter flag; format conversion between colour formats goes
//! through A8R8G8B8; GENERATEMIPSUBLEVELS uses a 2×2 box filter whatever
//! the filter value.

use crate::context::Context;
use crate::error::{range, DeviceError, Result};
use crate::handle::Slab;
use crate::resource::{Resource, SurfaceKind};
use crate::umd::GpuCopy;
use softhal_pipeline::{self as pl, ClearFlags, Format};
use softhal_submit::{Blt, ColorFill, TextureCopy};
use softhal_wire::structs::{
    Dp2Blt, Dp2BufferBlt, Dp2ColorFill, Dp2GenerateMipSubLevels, Dp2TexBlt, Dp2VolumeBlt,
};

/// D3DCLEAR_COMPUTERECTS.
pub const CLEAR_COMPUTERECTS: u32 = 8;

/// Clears the context's render target and/or depth buffer.
#[allow(clippy::too_many_arguments)]
pub(crate) fn clear(
    gpu: &mut crate::umd::Gpu,
    ctx_h: u32,
    surfaces: &mut Slab<Resource>,
    ctx: &Context,
    flags: u32,
    color: u32,
    z: f32,
    stencil: u32,
    rects: &[pl::Rect],
) -> Result<()> {
    if flags & !0xF != 0 {
        return Err(DeviceError::BadValue {
            what: "D3DCLEAR flags",
            value: flags,
        });
    }
    let cf = ClearFlags::from_d3d(flags);
    let wants_depth = cf.zbuffer || cf.stencil;
    if wants_depth && ctx.depth.is_none() {
        return Err(DeviceError::InvalidParams(
            "CLEAR of depth/stencil without a depth buffer",
        ));
    }
    if cf.zbuffer && !z.is_finite() {
        return Err(DeviceError::BadValue {
            what: "dvFillDepth",
            value: z.to_bits(),
        });
    }
    // Validate the targets before touching anything.
    let rt = ctx.render_target;
    let rt_res = surfaces.get(rt)?;
    if !rt_res.is_color_target() {
        return Err(rt_res.wrong(rt, "render target"));
    }
    let target = rt_res.target_of(rt);
    let extra = ctx.extra_targets(surfaces)?;
    if let Some(d) = ctx.depth {
        let r = surfaces.get(d)?;
        if r.desc.kind != SurfaceKind::DepthStencil {
            return Err(r.wrong(d, "depth/stencil surface"));
        }
    }
    let mut list: Vec<pl::Rect> = rects.to_vec();
    if flags & CLEAR_COMPUTERECTS != 0 {
        let v = &ctx.state.viewport;
        let vr = pl::Viewport {
            x: v.x,
            y: v.y,
            width: v.width,
            height: v.height,
            min_z: 0.0,
            max_z: 1.0,
        }
        .rect();
        if list.is_empty() {
            list.push(vr);
        } else {
            list = list
                .iter()
                .map(|r| r.intersect(vr))
                .filter(|r| !r.is_empty())
                .collect();
            if list.is_empty() {
                return Ok(());
            }
        }
    }
    // Lowered into a CLEAR packet of the context's targets (the GPU
    // clears colour only with TARGET, depth/stencil only with those bits).
    let depth = if wants_depth { ctx.depth } else { None };
    gpu.clear(
        ctx_h,
        surfaces,
        (target, depth),
        &extra,
        flags,
        color,
        z,
        stencil,
        &list,
    )
}

fn check_rect(what: &'static str, l: i64, t: i64, r: i64, b: i64, w: u32, h: u32) -> Result<()> {
    if l < 0 || t < 0 || l > r || t > b || r > i64::from(w) || b > i64::from(h) {
        return Err(DeviceError::OutOfRange {
            what,
            value: r.max(b).max(0) as u64,
            limit: u64::from(w.max(h)),
        });
    }
    Ok(())
}

fn pixel_surface(surfaces: &Slab<Resource>, h: u32) -> Result<&Resource> {
    let r = surfaces.get(h)?;
    if r.desc.kind.is_buffer() {
        return Err(r.wrong(h, "surface with pixels"));
    }
    Ok(r)
}

/// A texture copy between textures `src` and `dst`, checked with the
/// kernel's TEXTURE_COPY rule.
fn texture_copy(
    surfaces: &Slab<Resource>,
    what: &'static str,
    (src, dst): (u32, u32),
    copy: TextureCopy,
) -> Result<GpuCopy> {
    let (Some(s), Some(d)) = (surfaces.get(src)?.texture(), surfaces.get(dst)?.texture()) else {
        return Err(DeviceError::InvalidParams(
            "texture copy of a surface that is not a texture",
        ));
    };
    softhal_submit::texture::check_copy(s, d, &copy).map_err(|_| DeviceError::BadValue {
        what,
        value: copy.x | copy.y,
    })?;
    Ok(GpuCopy::Texture { src, dst, copy })
}

/// TEXBLT: copy rSrc of every level the two textures share (rect halved
/// per level, levels matched by size), every face of cube maps; the
/// destination 0 is a preload (counted). Returns the copies and the
/// preload count; nothing is copied unless every record is valid.
/// Block formats: the box must lie on 4×4 (DXTn) or 2×1 (YUV) unit
/// boundaries, or end on the right/bottom edge of both levels.
pub(crate) fn tex_blt(
    surfaces: &Slab<Resource>,
    recs: &[Dp2TexBlt],
) -> Result<(Vec<GpuCopy>, u64)> {
    let mut ops = Vec::new();
    let mut preloads = 0u64;
    for r in recs {
        let (dh, sh) = (r.dest_surface.get(), r.src_surface.get());
        let s = pixel_surface(surfaces, sh)?;
        if dh == 0 {
            preloads = preloads.saturating_add(1);
            continue;
        }
        let d = pixel_surface(surfaces, dh)?;
        if s.desc.format != d.desc.format {
            return Err(DeviceError::BadValue {
                what: "TEXBLT formats differ",
                value: d.desc.format.0,
            });
        }
        if s.desc.kind == SurfaceKind::VolumeTexture || d.desc.kind == SurfaceKind::VolumeTexture {
            return Err(DeviceError::InvalidParams(
                "TEXBLT of a volume texture (use VOLUMEBLT)",
            ));
        }
        if s.faces() != d.faces() {
            return Err(DeviceError::InvalidParams(
                "TEXBLT between cube and non-cube surfaces",
            ));
        }
        if s.texture().is_none() || d.texture().is_none() {
            return Err(DeviceError::InvalidParams(
                "TEXBLT of a surface that is not a texture",
            ));
        }
        let (l, t, rr, b) = (
            i64::from(r.src_left.get()),
            i64::from(r.src_top.get()),
            i64::from(r.src_right.get()),
            i64::from(r.src_bottom.get()),
        );
        let s0 = s.plane(sh, 0, 0)?;
        check_rect("TEXBLT rSrc", l, t, rr, b, s0.width, s0.height)?;
        let (px, py) = (i64::from(r.dest_x.get()), i64::from(r.dest_y.get()));
        let mut matched = false;
        for ls in 0..s.desc.mip_levels {
            let sp = s.plane(sh, 0, ls)?;
            let Some(ld) = (0..d.desc.mip_levels).find(|&ld| {
                d.plane(dh, 0, ld)
                    .is_ok_and(|p| p.width == sp.width && p.height == sp.height)
            }) else {
                continue;
            };
            let dp = d.plane(dh, 0, ld)?;
            let sh_l = |v: i64| v >> ls;
            // rr and b are ≥ 0 (check_rect above): round up as unsigned.
            let ceil = |v: i64| u64::try_from(v).map_or(0, |v| v.div_ceil(1 << ls)) as i64;
            let (ll, tt) = (sh_l(l), sh_l(t));
            let (rl, bl) = (
                ceil(rr).min(i64::from(sp.width)),
                ceil(b).min(i64::from(sp.height)),
            );
            let (dx, dy) = (sh_l(px), sh_l(py));
            // Values from i32 fields: nothing saturates, and a saturated
            // edge would fail check_rect.
            let (w, h) = (rl.saturating_sub(ll).max(0), bl.saturating_sub(tt).max(0));
            check_rect(
                "TEXBLT pDest",
                dx,
                dy,
                dx.saturating_add(w),
                dy.saturating_add(h),
                dp.width,
                dp.height,
            )?;
            matched = true;
            if w == 0 || h == 0 {
                continue;
            }
            for f in 0..s.faces() {
                let copy = TextureCopy {
                    sf: f,
                    sl: ls,
                    x: ll as u32,
                    y: tt as u32,
                    w: w as u32,
                    h: h as u32,
                    df: f,
                    dl: ld,
                    dx: dx as u32,
                    dy: dy as u32,
                    ..TextureCopy::default()
                };
                ops.push(texture_copy(
                    surfaces,
                    "TEXBLT box (block alignment)",
                    (sh, dh),
                    copy,
                )?);
            }
        }
        if !matched {
            return Err(DeviceError::InvalidParams(
                "TEXBLT: the surfaces share no level size",
            ));
        }
    }
    Ok((ops, preloads))
}

/// VOLUMEBLT: copy srcBox of every level the volumes share (box halved
/// per level); nothing is copied unless every record is valid.
pub(crate) fn volume_blt(surfaces: &Slab<Resource>, recs: &[Dp2VolumeBlt]) -> Result<Vec<GpuCopy>> {
    let mut ops = Vec::new();
    for r in recs {
        let (dh, sh) = (r.dest_surface.get(), r.src_surface.get());
        let s = surfaces.get(sh)?;
        let d = surfaces.get(dh)?;
        for (h, x) in [(sh, s), (dh, d)] {
            if x.desc.kind != SurfaceKind::VolumeTexture {
                return Err(x.wrong(h, "volume texture"));
            }
        }
        if s.desc.format != d.desc.format {
            return Err(DeviceError::BadValue {
                what: "VOLUMEBLT formats differ",
                value: d.desc.format.0,
            });
        }
        let (Some(st), Some(dt)) = (s.texture(), d.texture()) else {
            return Err(DeviceError::InvalidParams("VOLUMEBLT storage"));
        };
        let bx = [
            r.src_left.get(),
            r.src_top.get(),
            r.src_front.get(),
            r.src_right.get(),
            r.src_bottom.get(),
            r.src_back.get(),
        ];
        let (w0, h0, d0) = (st.width(), st.height(), st.depth());
        if bx[0] > bx[3] || bx[1] > bx[4] || bx[2] > bx[5] || bx[3] > w0 || bx[4] > h0 || bx[5] > d0
        {
            return Err(range(
                "VOLUMEBLT srcBox",
                u64::from(bx[3].max(bx[4]).max(bx[5])),
                u64::from(w0),
            ));
        }
        let p = [r.dest_x.get(), r.dest_y.get(), r.dest_z.get()];
        let mut matched = false;
        for ls in 0..st.level_count() {
            let Some(lv) = st.level_size(ls) else {
                continue;
            };
            let Some(ld) = (0..dt.level_count()).find(|&l| dt.level_size(l) == Some(lv)) else {
                continue;
            };
            let sh_l = |v: u32| v >> ls;
            let ceil =
                |v: u32, lim: u32| u64::from(v).div_ceil(1u64 << ls).min(u64::from(lim)) as u32;
            let b = [
                sh_l(bx[0]),
                sh_l(bx[1]),
                sh_l(bx[2]),
                ceil(bx[3], lv.0),
                ceil(bx[4], lv.1),
                ceil(bx[5], lv.2),
            ];
            let q = [sh_l(p[0]), sh_l(p[1]), sh_l(p[2])];
            let ext = [
                b[3].saturating_sub(b[0]),
                b[4].saturating_sub(b[1]),
                b[5].saturating_sub(b[2]),
            ];
            // Two u32s cannot overflow a u64.
            let end = |q: u32, e: u32| u64::from(q).saturating_add(u64::from(e));
            if end(q[0], ext[0]) > u64::from(lv.0)
                || end(q[1], ext[1]) > u64::from(lv.1)
                || end(q[2], ext[2]) > u64::from(lv.2)
            {
                return Err(range(
                    "VOLUMEBLT destination",
                    end(q[0], ext[0]),
                    u64::from(lv.0),
                ));
            }
            matched = true;
            if ext.contains(&0) {
                continue;
            }
            let copy = TextureCopy {
                sl: ls,
                x: b[0],
                y: b[1],
                z: b[2],
                w: ext[0],
                h: ext[1],
                d: ext[2],
                dl: ld,
                dx: q[0],
                dy: q[1],
                dz: q[2],
                ..TextureCopy::default()
            };
            ops.push(texture_copy(
                surfaces,
                "VOLUMEBLT box (block alignment)",
                (sh, dh),
                copy,
            )?);
        }
        if !matched {
            return Err(DeviceError::InvalidParams(
                "VOLUMEBLT: the volumes share no level size",
            ));
        }
    }
    Ok(ops)
}

/// BUFFERBLT: byte copy between buffers.
/// Validates BUFFERBLT records (handles, kinds, ranges); the copies run on
/// the GPU's copy engine (`crate::umd::Gpu::copies`).
pub(crate) fn buffer_blt_check(surfaces: &mut Slab<Resource>, recs: &[Dp2BufferBlt]) -> Result<()> {
    for r in recs {
        let (dh, sh) = (r.dest_surface.get(), r.src_surface.get());
        let s = surfaces.get(sh)?.buffer(sh)?;
        let d = surfaces.get(dh)?.buffer(dh)?;
        let (so, n, dof) = (
            u64::from(r.src_offset.get()),
            u64::from(r.src_size.get()),
            u64::from(r.dest_offset.get()),
        );
        // Two u32s cannot overflow a u64.
        let (src_end, dst_end) = (so.saturating_add(n), dof.saturating_add(n));
        if src_end > s.len() as u64 {
            return Err(range("BUFFERBLT source range", src_end, s.len() as u64));
        }
        if dst_end > d.len() as u64 {
            return Err(range(
                "BUFFERBLT destination range",
                dst_end,
                d.len() as u64,
            ));
        }
    }
    Ok(())
}

/// An `[left, top, right, bottom]` checked by `check_rect` (all ≥ 0).
fn rect_u32(l: i32, t: i32, r: i32, b: i32) -> [u32; 4] {
    [l, t, r, b].map(|v| u32::try_from(v).unwrap_or(0))
}

/// BLT / SURFACEBLT: rectangle to rectangle with stretching and
/// colour-format conversion, validated here (every record before any is
/// lowered) and lowered into BLT packets (empty rectangles copy nothing
/// and are dropped).
pub(crate) fn blt(surfaces: &Slab<Resource>, recs: &[Dp2Blt]) -> Result<Vec<GpuCopy>> {
    for r in recs {
        if r.flags.get() & !3 != 0 {
            return Err(DeviceError::BadValue {
                what: "DP2BLT Flags",
                value: r.flags.get(),
            });
        }
        let (sh, dh) = (r.source.get(), r.dest.get());
        let s = pixel_surface(surfaces, sh)?;
        let d = pixel_surface(surfaces, dh)?;
        let sp = s.plane(sh, 0, r.source_mip_level.get())?;
        let dp = d.plane(dh, 0, r.dest_mip_level.get())?;
        check_rect(
            "rSource",
            r.src_left.get().into(),
            r.src_top.get().into(),
            r.src_right.get().into(),
            r.src_bottom.get().into(),
            sp.width,
            sp.height,
        )?;
        check_rect(
            "rDest",
            r.dest_left.get().into(),
            r.dest_top.get().into(),
            r.dest_right.get().into(),
            r.dest_bottom.get().into(),
            dp.width,
            dp.height,
        )?;
        let color = |p: &crate::resource::PlaneShape| p.target().is_some_and(Format::is_color);
        let texel_wise = |p: &crate::resource::PlaneShape| p.block == (1, 1) && p.bpp <= 4;
        if !texel_wise(&sp) || !texel_wise(&dp) {
            return Err(DeviceError::BadValue {
                what: "BLT of a block-compressed or wider than 32-bit format",
                value: sp.format.0,
            });
        }
        if sp.format != dp.format && !(color(&sp) && color(&dp)) {
            return Err(DeviceError::BadValue {
                what: "BLT between incompatible formats",
                value: dp.format.0,
            });
        }
    }
    // check_rect above: 0 ≤ left ≤ right and 0 ≤ top ≤ bottom.
    let ops = recs
        .iter()
        .filter(|r| {
            r.src_left.get() < r.src_right.get()
                && r.src_top.get() < r.src_bottom.get()
                && r.dest_left.get() < r.dest_right.get()
                && r.dest_top.get() < r.dest_bottom.get()
        })
        .map(|r| GpuCopy::Blt {
            src: r.source.get(),
            dst: r.dest.get(),
            blt: Blt {
                src_level: r.source_mip_level.get(),
                src_rect: rect_u32(
                    r.src_left.get(),
                    r.src_top.get(),
                    r.src_right.get(),
                    r.src_bottom.get(),
                ),
                dst_level: r.dest_mip_level.get(),
                dst_rect: rect_u32(
                    r.dest_left.get(),
                    r.dest_top.get(),
                    r.dest_right.get(),
                    r.dest_bottom.get(),
                ),
                ..Blt::default()
            },
        })
        .collect();
    Ok(ops)
}

/// COLORFILL: fill a rectangle of a colour surface (level 0), validated
/// here and lowered into COLOR_FILL packets (empty rectangles dropped).
pub(crate) fn color_fill(surfaces: &Slab<Resource>, recs: &[Dp2ColorFill]) -> Result<Vec<GpuCopy>> {
    for r in recs {
        let h = r.surface.get();
        let s = pixel_surface(surfaces, h)?;
        if !s.desc.format.target().is_some_and(Format::is_color) {
            return Err(DeviceError::BadValue {
                what: "COLORFILL of a surface not in a render-target colour format",
                value: s.desc.format.0,
            });
        }
        let p = s.plane(h, 0, 0)?;
        check_rect(
            "COLORFILL rRect",
            r.left.get().into(),
            r.top.get().into(),
            r.right.get().into(),
            r.bottom.get().into(),
            p.width,
            p.height,
        )?;
    }
    // check_rect above: 0 ≤ left ≤ right and 0 ≤ top ≤ bottom.
    let ops = recs
        .iter()
        .filter(|r| r.left.get() < r.right.get() && r.top.get() < r.bottom.get())
        .map(|r| GpuCopy::Fill {
            dst: r.surface.get(),
            fill: ColorFill {
                rect: rect_u32(r.left.get(), r.top.get(), r.right.get(), r.bottom.get()),
                color: r.color.get(),
                ..ColorFill::default()
            },
        })
        .collect();
    Ok(ops)
}

/// GENERATEMIPSUBLEVELS: levels 1.. of every face from level 0 (the GPU's
/// 2×2 box filter, whatever the filter value), validated here and lowered
/// into GENERATE_MIPS packets (none for a single level).
pub(crate) fn generate_mips(
    surfaces: &Slab<Resource>,
    recs: &[Dp2GenerateMipSubLevels],
) -> Result<Vec<GpuCopy>> {
    for r in recs {
        let h = r.surface.get();
        let s = surfaces.get(h)?;
        if !matches!(s.desc.kind, SurfaceKind::Texture | SurfaceKind::CubeTexture) {
            return Err(s.wrong(h, "texture"));
        }
        if r.filter.get() > 7 {
            return Err(DeviceError::BadValue {
                what: "GENERATEMIPSUBLEVELS Filter",
                value: r.filter.get(),
            });
        }
        if !s.desc.format.target().is_some_and(Format::is_color) {
            return Err(DeviceError::BadValue {
                what: "GENERATEMIPSUBLEVELS of a format the driver cannot filter (not a render-target colour format)",
                value: s.desc.format.0,
            });
        }
        if s.texture().is_none() {
            // An attached surface: a level of a texture, not the texture.
            return Err(s.wrong(h, "surface with pixels"));
        }
    }
    let mut ops = Vec::new();
    for r in recs {
        let h = r.surface.get();
        if surfaces.get(h)?.desc.mip_levels > 1 {
            ops.push(GpuCopy::Mips { texture: h });
        }
    }
    Ok(ops)
}
