//! Clears and blits: CLEAR / Clear2, TEXBLT, VOLUMEBLT, BUFFERBLT, BLT,
//! SURFACEBLT, COLORFILL, GENERATEMIPSUBLEVELS. CLEAR, BUFFERBLT, TEXBLT
//! and VOLUMEBLT are validated here and executed by the GPU (CLEAR on the
//! 3-D engine, the copies on the copy engine); the others run on the CPU
//! after the GPU has drained.
//!
//! In: validated handles and rectangles. Out: bytes copied or filled.
//! Guarantees: every record of a command is validated (handles, kinds,
//! formats, rectangles inside their surfaces) before the first byte is
//! written; copies go through a temporary buffer so a surface can be its
//! own source; all index arithmetic is checked or bounded by the surface
//! sizes. Choices (docs/device.md): stretching BLTs use point sampling
//! whatever the filter flag; format conversion between colour formats goes
//! through A8R8G8B8; GENERATEMIPSUBLEVELS uses a 2×2 box filter whatever
//! the filter value.

use crate::context::Context;
use crate::error::{range, DeviceError, Result};
use crate::gpu::GpuCopy;
use crate::handle::Slab;
use crate::resource::{Resource, SurfaceKind};
use softhal_pipeline::{self as pl, ClearFlags, Format};
use softhal_submit::TextureCopy;
use softhal_wire::structs::{
    Dp2Blt, Dp2BufferBlt, Dp2ColorFill, Dp2GenerateMipSubLevels, Dp2TexBlt, Dp2VolumeBlt,
};

/// D3DCLEAR_COMPUTERECTS.
pub const CLEAR_COMPUTERECTS: u32 = 8;

fn load(b: &[u8], bpp: usize) -> u32 {
    let mut v = [0u8; 4];
    for (d, s) in v.iter_mut().zip(b.iter().take(bpp)) {
        *d = *s;
    }
    u32::from_le_bytes(v)
}

fn store(b: &mut [u8], bpp: usize, v: u32) {
    for (d, s) in b.iter_mut().take(bpp).zip(v.to_le_bytes()) {
        *d = s;
    }
}

/// Clears the context's render target and/or depth buffer.
#[allow(clippy::too_many_arguments)]
pub(crate) fn clear(
    gpu: &mut crate::gpu::Gpu,
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
    if rt_res.desc.kind != SurfaceKind::RenderTarget {
        return Err(rt_res.wrong(rt, "render target"));
    }
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
        (rt, depth),
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
    let mut preloads = 0;
    for r in recs {
        let (dh, sh) = (r.dest_surface.get(), r.src_surface.get());
        let s = pixel_surface(surfaces, sh)?;
        if dh == 0 {
            preloads += 1;
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
            let ceil = |v: i64| (v + (1 << ls) - 1) >> ls;
            let (ll, tt) = (sh_l(l), sh_l(t));
            let (rl, bl) = (
                ceil(rr).min(i64::from(sp.width)),
                ceil(b).min(i64::from(sp.height)),
            );
            let (dx, dy) = (sh_l(px), sh_l(py));
            let (w, h) = ((rl - ll).max(0), (bl - tt).max(0));
            check_rect("TEXBLT pDest", dx, dy, dx + w, dy + h, dp.width, dp.height)?;
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
            let ceil = |v: u32, lim: u32| {
                ((u64::from(v) + (1u64 << ls) - 1) >> ls).min(u64::from(lim)) as u32
            };
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
            if u64::from(q[0]) + u64::from(ext[0]) > u64::from(lv.0)
                || u64::from(q[1]) + u64::from(ext[1]) > u64::from(lv.1)
                || u64::from(q[2]) + u64::from(ext[2]) > u64::from(lv.2)
            {
                return Err(range(
                    "VOLUMEBLT destination",
                    u64::from(q[0]) + u64::from(ext[0]),
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
/// the GPU's copy engine (`crate::gpu::Gpu::copies`).
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
        if so + n > s.len() as u64 {
            return Err(range("BUFFERBLT source range", so + n, s.len() as u64));
        }
        if dof + n > d.len() as u64 {
            return Err(range(
                "BUFFERBLT destination range",
                dof + n,
                d.len() as u64,
            ));
        }
    }
    Ok(())
}

/// BLT / SURFACEBLT: rectangle to rectangle with stretching (point
/// sampling) and colour-format conversion.
pub(crate) fn blt(surfaces: &mut Slab<Resource>, recs: &[Dp2Blt]) -> Result<()> {
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
        let color = |p: &crate::resource::PlaneRef<'_>| p.target().is_some_and(Format::is_color);
        let texel_wise = |p: &crate::resource::PlaneRef<'_>| p.block == (1, 1) && p.bpp <= 4;
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
    for r in recs {
        let (sh, dh) = (r.source.get(), r.dest.get());
        let (sx0, sy0) = (r.src_left.get() as u32, r.src_top.get() as u32);
        let (sw, shh) = (
            (r.src_right.get() - r.src_left.get()) as u32,
            (r.src_bottom.get() - r.src_top.get()) as u32,
        );
        let (dx0, dy0) = (r.dest_left.get() as u32, r.dest_top.get() as u32);
        let (dw, dhh) = (
            (r.dest_right.get() - r.dest_left.get()) as u32,
            (r.dest_bottom.get() - r.dest_top.get()) as u32,
        );
        if sw == 0 || shh == 0 || dw == 0 || dhh == 0 {
            continue;
        }
        // Gather destination pixels as raw values of the destination format.
        let (dfmt, dbpp) = {
            let d = surfaces.get(dh)?;
            (d.desc.format, d.desc.format.block_bytes() as usize)
        };
        let values: Vec<u32> = {
            let p = surfaces.get(sh)?.plane(sh, 0, r.source_mip_level.get())?;
            let same = p.format == dfmt;
            let convert = |raw: u32| match (p.target(), dfmt.target()) {
                (Some(s), Some(d)) => d.encode_argb(s.decode_argb(raw)),
                _ => raw,
            };
            let mut v = Vec::with_capacity(dw as usize * dhh as usize);
            for y in 0..dhh {
                let sy = sy0 + (u64::from(y) * u64::from(shh) / u64::from(dhh)) as u32;
                for x in 0..dw {
                    let sx = sx0 + (u64::from(x) * u64::from(sw) / u64::from(dw)) as u32;
                    let a = sy as usize * p.pitch + sx as usize * p.bpp;
                    let raw = load(p.bytes.get(a..a + p.bpp).unwrap_or_default(), p.bpp);
                    v.push(if same { raw } else { convert(raw) });
                }
            }
            v
        };
        let (bytes, pitch, _, _) =
            surfaces
                .get_mut(dh)?
                .plane_mut(dh, 0, r.dest_mip_level.get())?;
        for (i, v) in values.iter().enumerate() {
            let (x, y) = (i as u32 % dw, i as u32 / dw);
            let a = (dy0 + y) as usize * pitch + (dx0 + x) as usize * dbpp;
            if let Some(px) = bytes.get_mut(a..a + dbpp) {
                store(px, dbpp, *v);
            }
        }
    }
    Ok(())
}

/// COLORFILL: fill a rectangle of a colour surface (level 0).
pub(crate) fn color_fill(surfaces: &mut Slab<Resource>, recs: &[Dp2ColorFill]) -> Result<()> {
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
    for r in recs {
        let h = r.surface.get();
        let Some(fmt) = surfaces.get(h)?.desc.format.target() else {
            continue;
        };
        let bpp = fmt.bytes_per_pixel() as usize;
        let raw = fmt.encode_argb(r.color.get());
        let (bytes, pitch, _, _) = surfaces.get_mut(h)?.plane_mut(h, 0, 0)?;
        for y in r.top.get()..r.bottom.get() {
            for x in r.left.get()..r.right.get() {
                let a = y as usize * pitch + x as usize * bpp;
                if let Some(px) = bytes.get_mut(a..a + bpp) {
                    store(px, bpp, raw);
                }
            }
        }
    }
    Ok(())
}

/// GENERATEMIPSUBLEVELS: fill levels 1.. of every face from level 0 with a
/// 2×2 box filter (in A8R8G8B8).
pub(crate) fn generate_mips(
    surfaces: &mut Slab<Resource>,
    recs: &[Dp2GenerateMipSubLevels],
) -> Result<()> {
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
    }
    for r in recs {
        let h = r.surface.get();
        let (faces, levels, fmt) = {
            let s = surfaces.get(h)?;
            (s.faces(), s.desc.mip_levels, s.desc.format.target())
        };
        let Some(fmt) = fmt else { continue };
        let bpp = fmt.bytes_per_pixel() as usize;
        for f in 0..faces {
            for l in 1..levels {
                let (src, sp, sw, shh) = {
                    let p = surfaces.get(h)?.plane(h, f, l - 1)?;
                    (p.bytes.to_vec(), p.pitch, p.width, p.height)
                };
                let (bytes, pitch, w, hh) = surfaces.get_mut(h)?.plane_mut(h, f, l)?;
                for y in 0..hh {
                    for x in 0..w {
                        let mut acc = [0u32; 4];
                        for (ox, oy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                            let (xx, yy) = ((2 * x + ox).min(sw - 1), (2 * y + oy).min(shh - 1));
                            let a = yy as usize * sp + xx as usize * bpp;
                            let c =
                                fmt.decode_argb(load(src.get(a..a + bpp).unwrap_or_default(), bpp));
                            for (k, acc) in acc.iter_mut().enumerate() {
                                *acc += (c >> (8 * k)) & 0xFF;
                            }
                        }
                        let argb = acc
                            .iter()
                            .enumerate()
                            .fold(0u32, |v, (k, s)| v | (((s + 2) / 4) << (8 * k)));
                        let a = y as usize * pitch + x as usize * bpp;
                        if let Some(px) = bytes.get_mut(a..a + bpp) {
                            store(px, bpp, fmt.encode_argb(argb));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}
