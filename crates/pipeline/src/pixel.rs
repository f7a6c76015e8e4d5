//! The per-pixel stage: shade → alpha test → stencil/depth → blend → write.
//!
//! *Input*: covered spans of a primitive inside one tile, and the draw's
//! [`DrawCtx`] (state resolved once per draw). *Output*: pixels written into
//! the tile's rows of the colour and depth/stencil surfaces, and counts.
//!
//! *Order* (D3D9 fixed function): the shade stage produces the interpolated
//! diffuse colour (+ specular RGB when SPECULARENABLE; draws with textures,
//! a non-identity cascade or fog shade in `crate::shade` instead), then
//! the alpha test, then the stencil
//! test, the depth test and the stencil operation, then blending, then the
//! colour write mask.
//!
//! *Specialisation*: each draw derives its kind (`crate::draw_kind`: what
//! the cascade computes, what blending does, depth, stencil, alpha test,
//! specular, target) and picks by matching on it one of
//! * [`FastPath::Color`]: Gouraud/flat colour straight into an A8R8G8B8 or
//!   X8R8G8B8 span (SIMD kernel), when depth, stencil, alpha test, blending
//!   and specular are off and all channels are written;
//! * [`FastPath::ColorDepth24`]: the same plus a depth test (any function,
//!   optional write) on a 24-bit depth in bits 31..8 (D24S8/D24X8/D24X4S4),
//!   with or without fog from the specular alpha, and with or without
//!   SRCALPHA/INVSRCALPHA blending (bit-identical to [`blend`]);
//! * [`FastPath::ColorFog`]: the colour of [`FastPath::Color`] fogged
//!   from the specular alpha (vertex fog, or the application's factor),
//!   the pixels of the fused fog of [`FastPath::ColorDepth24`] without
//!   its depth test; [`FastPath::ColorTableFog`] the same with table fog
//!   of z (an identity cascade), the factors the 8-bit cascade's;
//! * [`FastPath::ColorBlend`]: the colour of [`FastPath::Color`] blended
//!   over the target with BLENDOP ADD and one of the factor pairs that
//!   have a kernel (`simd::blend_span_fn`: SRCALPHA/INVSRCALPHA, ONE/ONE,
//!   DESTCOLOR/ZERO, …), bit-identical to [`blend`];
//! * otherwise, when the output merger over 8 lanes covers the draw
//!   (`simd::Merge8`: no W-buffer, depth on D24S8/D24X8/D24X4S4 or D16,
//!   a stencil test (two-sided too) on D24S8/D24X4S4,
//!   A8R8G8B8/X8R8G8B8/R5G6B5/X1R5G5B5/A1R5G5B5, the common blend factors
//!   with any BLENDOP, any alpha test and write mask), its span loop
//!   (`simd::merge_spans`): colours (specular added, or fogged: an
//!   identity cascade with vertex fog or table fog of z and no specular
//!   add, the pixels of the 8-bit cascade with no stage) and depths 8
//!   pixels at a time, merged bit-identically to [`fragment`] (the
//!   triangle's winding chooses the stencil face);
//! * otherwise a generic scalar loop monomorphised over
//!   `<DEPTH, STENCIL, ALPHA_TEST, BLEND>` so that disabled features cost
//!   nothing.
//!
//! Shaded draws (see `crate::shade`) replace the generic loop with
//! `shade::tri_span_full` and may use the textured kernel, fog fused
//! into [`FastPath::ColorDepth24`], or, when neither takes the draw, the
//! 8-bit texture-stage cascade (`crate::cascade8`: vertex or table fog),
//! which ends in a plain store or in the output merger over 8 lanes
//! (`simd::Merge8`, the states listed above). Perspective triangles
//! always take the
//! generic loop. The colour paths compute colours and depths with
//! the same formulas, so the path taken never changes a pixel; the two
//! fused shaded paths (textured kernel, fused fog) use 8-bit integer
//! filtering/fog and may differ from the float shading loop by one unit
//! per channel (the choice depends on state and triangle only).
//!
//! *Modules*: `output` is the output merger every fragment ends in (the
//! generic routines here, `crate::shade` and the pixel shaders);
//! `shader` is the pixel-shader implementation of the pixel program,
//! chosen by [`DrawCtx::with_pixel_shader`] in place of everything above.
//!
//! *Precision*: colours are 8 bits per channel through the whole stage
//! (blending rounds `x/255` to nearest); 10-bit targets receive 8-bit values
//! expanded by [`crate::Format::encode_argb`]. Dithering is never applied.

mod output;
pub(crate) mod shader;

#[cfg(test)]
use output::blend;
pub(crate) use output::{fragment, store_quad, write_target, ColorTarget};

use crate::cascade8::{FogByteTable, TableFog};
use crate::draw_kind::{BlendKind, DepthKind, DrawKind, Shading};
use crate::format::Format;
use crate::int::{clamp_u8, usize_from, usize_from_i32};
use crate::prim::{TriExtra, TriSetup, FLAG_CCW, FLAG_PERSPECTIVE};
use crate::shade::{FullFragFn, FullInputs, ShadeCtx, TexFast};
use crate::simd::{self, SimdLevel};
use crate::state::{Blend, CmpFunc, PipelineState, StencilFace, ZBufferType};
use crate::watch::{NoRecord, Probe, Record, Recorder};

/// Pixel counts of a piece of work.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Stats {
    /// Pixels that passed every test (their colour was written, subject
    /// to the write mask).
    pub written: u64,
    /// Pixels that passed the stencil and depth tests.
    pub passed: u64,
    /// Pixels the primitives covered (inside the tile, hence inside the
    /// viewport and scissor rectangle): the fragments the pixel stage
    /// received, before any of its tests.
    pub shaded: u64,
}

impl std::ops::Add for Stats {
    type Output = Stats;
    fn add(self, o: Stats) -> Stats {
        Stats {
            written: self.written + o.written,
            passed: self.passed + o.passed,
            shaded: self.shaded + o.shaded,
        }
    }
}

/// The rows of the surfaces one worker may touch (one band of tiles).
pub(crate) struct TileTarget<'a> {
    /// Colour rows `y0..` of the band.
    pub color: &'a mut [u8],
    /// Colour pitch.
    pub color_pitch: usize,
    /// Depth rows of the band (empty if no depth buffer).
    pub depth: &'a mut [u8],
    /// Depth pitch.
    pub depth_pitch: usize,
    /// First row of the band.
    pub y0: i32,
    /// Rows `y0..` of render targets 1–3 (empty if unbound).
    pub extra: [&'a mut [u8]; crate::limits::MAX_RENDER_TARGETS - 1],
    /// Their pitches.
    pub extra_pitch: [usize; crate::limits::MAX_RENDER_TARGETS - 1],
}

impl TileTarget<'_> {
    /// Prefetches the colour and depth bytes of rows `y0..=y1`, columns
    /// `x0..=x1` (a hint; used before a tile with many primitives).
    pub(crate) fn prefetch_rect(&self, r: [i32; 4], color_bpp: usize, depth_bpp: usize) {
        let [x0, y0, x1, y1] = r;
        for y in y0..=y1 {
            let row = usize_from_i32(y - self.y0);
            for (bytes, pitch, bpp) in [
                (&*self.color, self.color_pitch, color_bpp),
                (&*self.depth, self.depth_pitch, depth_bpp),
            ] {
                let mut o = row * pitch + usize_from_i32(x0) * bpp;
                let end = row * pitch + usize_from_i32(x1 + 1) * bpp;
                while o < end {
                    if let Some(b) = bytes.get(o) {
                        simd::prefetch(b);
                    }
                    o += 64;
                }
            }
        }
    }

    /// The band's rows as the SIMD kernels take them.
    #[inline]
    pub(crate) fn band_rows(&mut self) -> simd::BandRows<'_> {
        simd::BandRows {
            color: &mut *self.color,
            color_pitch: self.color_pitch,
            depth: &mut *self.depth,
            depth_pitch: self.depth_pitch,
            y0: self.y0,
        }
    }

    #[inline]
    pub(crate) fn color_span(
        &mut self,
        py: i32,
        x0: i32,
        n: usize,
        bpp: usize,
    ) -> Option<&mut [u8]> {
        let o = usize_from_i32(py - self.y0) * self.color_pitch + usize_from_i32(x0) * bpp;
        self.color.get_mut(o..o + n * bpp)
    }
    /// Pixel `(px, py)` of render target `i` + 1 (`None` when unbound).
    #[inline]
    fn extra_pixel(&mut self, i: usize, py: i32, px: i32, bpp: usize) -> Option<&mut [u8]> {
        let pitch = *self.extra_pitch.get(i)?;
        let o = usize_from_i32(py - self.y0) * pitch + usize_from_i32(px) * bpp;
        self.extra.get_mut(i)?.get_mut(o..o + bpp)
    }
    #[inline]
    fn depth_span(&mut self, py: i32, x0: i32, n: usize, bpp: usize) -> Option<&mut [u8]> {
        let o = usize_from_i32(py - self.y0) * self.depth_pitch + usize_from_i32(x0) * bpp;
        self.depth.get_mut(o..o + n * bpp)
    }
}

/// Table fog of z fused into the colour kernel: the formula, its bytes'
/// lookup (EXP, EXP2) and the fog colour (blue, green, red, 0).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TableFogFast<'a> {
    pub table: TableFog,
    pub bytes: Option<&'a FogByteTable>,
    pub color: [i32; 4],
}

/// Which specialised span routine a draw uses for affine triangles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FastPath {
    /// The generic loop.
    None,
    /// Colour-only SIMD kernel.
    Color,
    /// Colour + 24-bit depth SIMD kernel.
    ColorDepth24,
    /// Colour fogged from the specular alpha, no depth test (SIMD kernel
    /// `simd::gouraud_fog_span`).
    ColorFog,
    /// Colour with table fog of z, no depth test (the same kernel).
    ColorTableFog,
    /// Colour blended over a 32-bit target (SIMD kernel of the draw's
    /// blend-factor pair, `DrawCtx::blend_span`).
    ColorBlend,
}

pub(crate) use crate::simd::BlendCtx;

/// Generic triangle span routine.
pub(crate) type TriSpanFn = fn(
    &mut TileTarget<'_>,
    &DrawCtx,
    &TriSetup,
    Option<&TriExtra>,
    &[[f32; 3]],
    i32,
    i32,
    i32,
    &mut Stats,
);
/// Generic single-fragment routine (lines and points).
pub(crate) type FragFn =
    fn(&mut TileTarget<'_>, &DrawCtx, i32, i32, [i32; 4], f32, bool, &mut Stats);

/// Everything the pixel stage needs, resolved once per draw.
#[derive(Clone, Copy)]
pub(crate) struct DrawCtx<'a> {
    color_format: Format,
    color_bpp: usize,
    depth_format: Format,
    depth_bpp: usize,
    w_buffer: bool,
    z_write: bool,
    z_func: CmpFunc,
    w_near: f32,
    w_scale: f32,
    stencil_front: StencilFace,
    stencil_ccw: StencilFace,
    stencil_ref: u32,
    stencil_mask: u32,
    stencil_write_mask: u32,
    stencil_bits: u32,
    alpha_func: CmpFunc,
    alpha_ref: i32,
    blend: BlendCtx,
    write_mask: u32,
    and_mask: u32,
    specular_add: bool,
    /// The fast path for affine triangles.
    pub fast: FastPath,
    /// The blended span kernel of [`FastPath::ColorBlend`].
    blend_span: Option<simd::BlendSpanFn>,
    /// The output merger over 8 lanes (`simd::merge`) of untextured
    /// affine triangles that take no [`FastPath`], when it covers the
    /// draw's state.
    merge: Option<simd::Merge8>,
    /// SIMD level for the kernels.
    pub simd: SimdLevel,
    /// Generic triangle span routine.
    pub tri_span: TriSpanFn,
    /// Generic fragment routine.
    pub frag: FragFn,
    /// Full-path fragment routine (lines and points of shaded draws).
    pub full_frag: FullFragFn,
    /// POINTSPRITEENABLE.
    sprites: bool,
    /// Fog fused into the colour + depth kernel (W5 case).
    pub fog_fast: Option<simd::FogFixed>,
    /// Table fog of z fused into the colour kernel
    /// ([`FastPath::ColorTableFog`]).
    pub table_fog_fast: Option<TableFogFast<'a>>,
    /// Full shading (textures, cascade, fog), when the draw needs it.
    pub shade: Option<ShadeCtx<'a>>,
    /// The textured fast path (W3/W4 case), when the draw allows it.
    pub tex_fast: Option<TexFast<'a>>,
    /// The 8-bit texture-stage cascade (`crate::cascade8`), when the draw
    /// allows it and the textured fast path does not take it.
    pub cascade8: Option<crate::cascade8::Cascade8<'a>>,
    /// Affine small triangles (`prim::FLAG_SMALL`) may use the
    /// coverage-mask kernel `simd::small_tri_depth24`: the draw takes
    /// [`FastPath::ColorDepth24`] without fog or blending, and the SIMD level is AVX2
    /// or scalar (SSE levels keep their span kernels; both give the same
    /// bytes).
    pub small: bool,
    /// The replay of a watched pixel records here (`crate::watch`); `None`
    /// for every normal draw.
    pub probe: Option<&'a Probe>,
    /// Depth test, stencil, alpha test, blending: the generic routines'
    /// feature set.
    features: [bool; 4],
    /// The pixel program is this shader (`shader`), not the fixed-function
    /// cascade.
    /// (A reference, so that fixed-function draws pay one pointer for it.)
    pub pixel_shader: Option<&'a shader::PixelShaderCtx<'a>>,
}

pub(crate) fn resolve_pair(src: Blend, dst: Blend) -> (Blend, Blend) {
    match (src, dst) {
        (Blend::BothSrcAlpha, _) | (_, Blend::BothSrcAlpha) => {
            (Blend::SrcAlpha, Blend::InvSrcAlpha)
        }
        (Blend::BothInvSrcAlpha, _) | (_, Blend::BothInvSrcAlpha) => {
            (Blend::InvSrcAlpha, Blend::SrcAlpha)
        }
        p => p,
    }
}

/// The monomorphised generic routines of a feature set: triangle span,
/// fragment, full-path triangle span, full-path fragment.
type Generic = (TriSpanFn, FragFn, TriSpanFn, FullFragFn);

/// Picks the monomorphised generic routines for a feature set, recording
/// with `R` (`NoRecord` for every normal draw).
fn select_generic<R: Recorder>(depth: bool, stencil: bool, atest: bool, blend: bool) -> Generic {
    match (depth, stencil, atest, blend) {
        (false, false, false, false) => pick::<false, false, false, false, R>(),
        (false, false, false, true) => pick::<false, false, false, true, R>(),
        (false, false, true, false) => pick::<false, false, true, false, R>(),
        (false, false, true, true) => pick::<false, false, true, true, R>(),
        (false, true, false, false) => pick::<false, true, false, false, R>(),
        (false, true, false, true) => pick::<false, true, false, true, R>(),
        (false, true, true, false) => pick::<false, true, true, false, R>(),
        (false, true, true, true) => pick::<false, true, true, true, R>(),
        (true, false, false, false) => pick::<true, false, false, false, R>(),
        (true, false, false, true) => pick::<true, false, false, true, R>(),
        (true, false, true, false) => pick::<true, false, true, false, R>(),
        (true, false, true, true) => pick::<true, false, true, true, R>(),
        (true, true, false, false) => pick::<true, true, false, false, R>(),
        (true, true, false, true) => pick::<true, true, false, true, R>(),
        (true, true, true, false) => pick::<true, true, true, false, R>(),
        (true, true, true, true) => pick::<true, true, true, true, R>(),
    }
}

fn pick<const D: bool, const S: bool, const A: bool, const B: bool, R: Recorder>() -> Generic {
    (
        tri_span_generic::<D, S, A, B, R>,
        fragment::<D, S, A, B, R>,
        crate::shade::tri_span_full::<D, S, A, B, R>,
        full_fragment::<D, S, A, B, R>,
    )
}

/// `shade::fragment_full` as a function pointer (lines and points).
fn full_fragment<const D: bool, const S: bool, const A: bool, const B: bool, R: Recorder>(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    px: i32,
    py: i32,
    f: &FullInputs<'_>,
    stats: &mut Stats,
) {
    crate::shade::fragment_full::<D, S, A, B, R>(t, d, px, py, f, stats);
}

impl<'a> DrawCtx<'a> {
    /// Resolves the state for a draw into `color_format` (and optionally a
    /// depth/stencil surface of `depth_format`); `shade` is the full
    /// shading state when textures, a non-trivial cascade or fog are used;
    /// `fog_bytes` the renderer's table of the draw's EXP or EXP2 table fog
    /// (`cascade8::FogByteTable`), if it has one.
    pub(crate) fn new(
        state: &PipelineState,
        color_format: Format,
        depth_format: Option<Format>,
        simd: SimdLevel,
        shade: Option<ShadeCtx<'a>>,
        fog_bytes: Option<&'a FogByteTable>,
    ) -> Self {
        let ds = &state.depth;
        let depth_test = depth_format.is_some() && ds.z_enable != ZBufferType::False;
        let dfmt = depth_format.unwrap_or(Format::D24S8);
        let stencil_bits = depth_format.map_or(0, Format::stencil_bits);
        let stencil = state.stencil.enable && stencil_bits > 0;
        let alpha_test = state.alpha_test.enable;
        let blend = state.blend.enable;
        let cwe = state.blend.color_write_enable & 0xF;
        let all_channels = cwe == 0xF;
        let write_mask = if all_channels {
            // Whole pixel: X bits are written as 0 too.
            u32::MAX >> (32 - 8 * color_format.bytes_per_pixel())
        } else {
            color_format.write_mask(cwe)
        };
        let and_mask = if color_format == Format::X8R8G8B8 {
            0x00FF_FFFF
        } else {
            u32::MAX
        };
        let specular_add = state.raster.specular_enable;
        // Fog from the specular alpha with an identity cascade is fused into
        // the depth kernel; anything else shaded goes the full way.
        let fog_only = shade.as_ref().and_then(|s| s.fog_fixed());
        let table_fog = shade.as_ref().and_then(|sh| {
            crate::cascade8::table_fog_fixed(sh).map(|table| TableFogFast {
                table,
                bytes: fog_bytes.filter(|b| b.is_of(&table)),
                color: sh.fog_color_bgr(),
            })
        });
        let blend_kind = crate::draw_kind::blend_kind(&state.blend);
        let kind = DrawKind {
            shading: match (&shade, fog_only, &table_fog) {
                (None, _, _) => Shading::Diffuse,
                (Some(_), Some(_), _) => Shading::DiffuseFog,
                (Some(_), None, Some(_)) => Shading::DiffuseTableFog,
                (Some(_), None, None) => Shading::Full,
            },
            blend: blend_kind,
            depth: if !depth_test {
                DepthKind::Off
            } else if ds.z_enable == ZBufferType::True
                && matches!(dfmt, Format::D24S8 | Format::D24X8 | Format::D24X4S4)
            {
                DepthKind::Z24
            } else {
                DepthKind::Other
            },
            stencil,
            alpha_test,
            specular: specular_add,
            rgb32: matches!(color_format, Format::A8R8G8B8 | Format::X8R8G8B8) && all_channels,
        };
        let fast = kind.fast_path();
        let blend_span = match blend_kind {
            BlendKind::Factors(s, d) => simd::blend_span_fn(s, d),
            _ => None,
        };
        let b = &state.blend;
        let (src, dst) = resolve_pair(b.src, b.dst);
        let (src_a, dst_a, op_a) = if b.separate_alpha {
            let (s, d) = resolve_pair(b.src_alpha, b.dst_alpha);
            (s, d, b.op_alpha)
        } else {
            (src, dst, b.op)
        };
        let [fa, fr, fg, fb] = b.factor.to_be_bytes();
        let w_far = if ds.w_far > ds.w_near {
            ds.w_far
        } else {
            ds.w_near + 0.001
        };
        let alpha_ref = i32::from((state.alpha_test.reference & 0xFF) as u8);
        let factor = [i32::from(fb), i32::from(fg), i32::from(fr), i32::from(fa)];
        let blend_ctx = BlendCtx {
            src,
            dst,
            op: b.op,
            src_a,
            dst_a,
            op_a,
            factor,
        };
        // The states the 8-lane merger covers, with or without the alpha
        // test (the 8-bit cascade runs its own).
        let st = &state.stencil;
        let stencil_ccw = if st.two_sided { st.ccw } else { st.front };
        let stencil_test = stencil.then_some(simd::StencilTest {
            format: dfmt,
            front: st.front,
            ccw: stencil_ccw,
            reference: st.reference,
            mask: st.mask,
            write_mask: st.write_mask,
        });
        let merge8 = |alpha_test: bool| {
            if depth_test && ds.z_enable == ZBufferType::UseW {
                return None;
            }
            simd::Merge8::new(
                color_format,
                write_mask,
                depth_test.then_some((dfmt, ds.z_func, ds.z_write)),
                alpha_test.then_some((state.alpha_test.func, alpha_ref)),
                blend.then_some(&blend_ctx),
                stencil_test.as_ref(),
            )
        };
        // Draws without shading, and those of an identity cascade with
        // fog and no specular add (the merger's span loop fogs), that no
        // fused kernel takes.
        let fogged = matches!(kind.shading, Shading::DiffuseFog | Shading::DiffuseTableFog);
        let merge = if (shade.is_none() || fogged) && fast == FastPath::None {
            merge8(alpha_test)
        } else {
            None
        };
        let (tri_span, frag, full_span, full_frag) =
            select_generic::<NoRecord>(depth_test, stencil, alpha_test, blend);
        let tex_fast = shade
            .as_ref()
            .and_then(|s| TexFast::new(s, state, color_format, depth_test, stencil, alpha_test));
        DrawCtx {
            color_format,
            color_bpp: usize_from(color_format.bytes_per_pixel()),
            depth_format: dfmt,
            depth_bpp: usize_from(dfmt.bytes_per_pixel()),
            w_buffer: ds.z_enable == ZBufferType::UseW,
            z_write: ds.z_write,
            z_func: ds.z_func,
            w_near: ds.w_near,
            w_scale: 1.0 / (w_far - ds.w_near),
            stencil_front: st.front,
            stencil_ccw,
            stencil_ref: st.reference,
            stencil_mask: st.mask,
            stencil_write_mask: st.write_mask,
            stencil_bits,
            alpha_func: state.alpha_test.func,
            alpha_ref,
            blend: blend_ctx,
            write_mask,
            and_mask,
            specular_add,
            fast,
            blend_span,
            merge,
            simd,
            tri_span: if shade.is_some() { full_span } else { tri_span },
            frag,
            full_frag,
            sprites: state.point.sprite_enable,
            tex_fast,
            // Draws a fused kernel takes (the textured one, colour with
            // fused fog) keep it.
            cascade8: if tex_fast.is_none() && fast == FastPath::None && merge.is_none() {
                crate::cascade8::Cascade8::new(
                    shade.as_ref(),
                    state,
                    color_format,
                    merge8(false),
                    fog_bytes,
                )
            } else {
                None
            },
            fog_fast: fog_only,
            table_fog_fast: table_fog,
            small: fast == FastPath::ColorDepth24
                && fog_only.is_none()
                && blend_span.is_none()
                && matches!(simd, SimdLevel::Avx2 | SimdLevel::Scalar),
            shade,
            probe: None,
            features: [depth_test, stencil, alpha_test, blend],
            pixel_shader: None,
        }
    }

    /// This draw's context with `ps` as its pixel program: every covered
    /// quad runs the shader (`shader`) and feeds the output merger; none of
    /// the fused fixed-function kernels is used.
    pub(crate) fn with_pixel_shader(self, ps: &'a shader::PixelShaderCtx<'a>) -> Self {
        DrawCtx {
            fast: FastPath::None,
            merge: None,
            fog_fast: None,
            table_fog_fast: None,
            tex_fast: None,
            cascade8: None,
            small: false,
            pixel_shader: Some(ps),
            ..self
        }
    }

    /// This draw's context for the replay of a watched pixel
    /// (`crate::watch`): the generic routines, recording into `probe`,
    /// and none of the fused kernels.
    pub(crate) fn recording(self, probe: &'a Probe) -> Self {
        let [depth, stencil, atest, blend] = self.features;
        let (tri_span, frag, full_span, full_frag) =
            select_generic::<Record>(depth, stencil, atest, blend);
        DrawCtx {
            fast: FastPath::None,
            tri_span: if self.shade.is_some() {
                full_span
            } else {
                tri_span
            },
            frag,
            full_frag,
            merge: None,
            fog_fast: None,
            table_fog_fast: None,
            tex_fast: None,
            cascade8: None,
            small: false,
            probe: Some(probe),
            ..self
        }
    }

    /// Bytes per pixel of the colour and depth surfaces.
    pub(crate) fn bpps(&self) -> (usize, usize) {
        (self.color_bpp, self.depth_bpp)
    }

    /// The X-bits mask for a direct 32-bit colour write, if this draw
    /// writes colours straight into an A8R8G8B8/X8R8G8B8 target (no depth,
    /// stencil, alpha test, blending, specular; all channels).
    pub(crate) fn direct_color32(&self) -> Option<u32> {
        (self.fast == FastPath::Color).then_some(self.and_mask)
    }

    /// AND mask of a packed 32-bit colour (X8R8G8B8 zeroes the X byte).
    pub(crate) fn and_mask(&self) -> u32 {
        self.and_mask
    }

    /// The depth function.
    pub(crate) fn z_func(&self) -> CmpFunc {
        self.z_func
    }

    /// True if depth writes are enabled.
    pub(crate) fn z_write(&self) -> bool {
        self.z_write
    }

    /// POINTSPRITEENABLE: points get sprite texture coordinates.
    pub(crate) fn point_sprites(&self) -> bool {
        self.sprites
    }

    /// True if the output merger of this draw is a store through the write
    /// mask: no depth, stencil or alpha test, no blending, no pixel watch
    /// (`output::store_quad`).
    pub(crate) fn plain_store(&self) -> bool {
        self.features == [false; 4] && self.probe.is_none()
    }

    /// True if the draw uses the W-buffer.
    pub(crate) fn w_buffer(&self) -> bool {
        self.w_buffer
    }

    /// Maps a w value to the W-buffer's `[0, 1]`.
    #[inline]
    pub(crate) fn w_depth(&self, w: f32) -> f32 {
        (w - self.w_near) * self.w_scale
    }

    /// True if the specular colour is added.
    pub(crate) fn specular_add(&self) -> bool {
        self.specular_add
    }

    /// The 8-lane output merger of the draw, if it has one (tests).
    #[cfg(test)]
    pub(crate) fn merge8(&self) -> Option<simd::Merge8> {
        self.merge
    }
}

/// Fixed-point plane value at offset (dx, dy) from the reference pixel.
#[inline(always)]
fn fixed_at(p: &[[i32; 4]; 3], c: usize, dx: i32, dy: i32) -> i32 {
    simd::plane_at([p[0][c], p[1][c], p[2][c]], dx, dy)
}

/// The four channels of the fixed-point plane `p` at (dx, dy) from its
/// reference point: the start colour of a span. Written out rather than
/// with `array::map`, which LLVM does not always inline into the span
/// loops (measured: 0.63 G instructions of out-of-line `try_map` calls on
/// W3 when it was not).
#[inline(always)]
pub(crate) fn fixed_start(p: &[[i32; 4]; 3], dx: i32, dy: i32) -> [i32; 4] {
    [
        fixed_at(p, 0, dx, dy),
        fixed_at(p, 1, dx, dy),
        fixed_at(p, 2, dx, dy),
        fixed_at(p, 3, dx, dy),
    ]
}

/// Generic span of an (affine or perspective) triangle.
#[allow(clippy::too_many_arguments)]
fn tri_span_generic<
    const DEPTH: bool,
    const STENCIL: bool,
    const ATEST: bool,
    const BLEND: bool,
    R: Recorder,
>(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    tri: &TriSetup,
    extra: Option<&TriExtra>,
    _planes: &[[f32; 3]],
    py: i32,
    x0: i32,
    x1: i32,
    stats: &mut Stats,
) {
    let persp = tri.flags & FLAG_PERSPECTIVE != 0;
    let ccw = tri.flags & FLAG_CCW != 0;
    let bb = tri.bbox();
    let dy = py - bb[1];
    let fy = dy as f32;
    let zy = tri.z[2] * fy;
    let (rhw, bias) = extra.map_or(([1.0, 0.0, 0.0], 0.0), |e| (e.rhw, e.bias));
    let wy = rhw[2] * fy;
    for px in x0..=x1 {
        let dx = px - bb[0];
        let fx = dx as f32;
        let mut c = [0i32; 4];
        let mut r = 0.0f32;
        if persp || (DEPTH && d.w_buffer) {
            r = (rhw[0] + rhw[1] * fx) + wy;
        }
        if persp {
            let inv = 1.0 / r;
            if let Some(e) = extra {
                for (ch, out) in c.iter_mut().enumerate() {
                    let p = &e.persp[ch];
                    *out = crate::int::channel_from_f32(((p[0] + p[1] * fx) + p[2] * fy) * inv);
                }
                if d.specular_add {
                    for (ch, out) in c.iter_mut().enumerate().take(3) {
                        let p = &e.persp[4 + ch];
                        let sp =
                            crate::int::channel_from_f32(((p[0] + p[1] * fx) + p[2] * fy) * inv);
                        *out = (*out + sp).min(255);
                    }
                }
            }
        } else {
            for (ch, out) in c.iter_mut().enumerate() {
                *out = i32::from(clamp_u8(fixed_at(&tri.diffuse, ch, dx, dy) >> 16));
            }
            if d.specular_add {
                if let Some(e) = extra {
                    for (ch, out) in c.iter_mut().enumerate().take(3) {
                        let sp = clamp_u8(fixed_at(&e.specular, ch, dx, dy) >> 16);
                        *out = (*out + i32::from(sp)).min(255);
                    }
                }
            }
        }
        let depth = if DEPTH && d.w_buffer {
            d.w_depth(1.0 / r) + bias
        } else {
            (tri.z[0] + tri.z[1] * fx) + zy
        };
        fragment::<DEPTH, STENCIL, ATEST, BLEND, R>(t, d, px, py, c, depth, ccw, stats);
    }
}

/// Rasterizes the spans of triangle `tri` in one tile.
#[inline]
pub(crate) fn tri_spans(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    tri: &TriSetup,
    extra: Option<&TriExtra>,
    planes: &[[f32; 3]],
    spans: &[simd::Span],
    stats: &mut Stats,
) {
    if let Some(ps) = d.pixel_shader {
        shader::tri_spans(t, d, ps, tri, extra, planes, spans, stats);
        return;
    }
    if let Some(tf) = &d.tex_fast {
        if crate::shade::tex_fast_spans(t, d, tf, tri, extra, planes, spans, stats) {
            return;
        }
    }
    if let Some(c8) = &d.cascade8 {
        if crate::cascade8::cascade8_spans(t, c8, d.simd, tri, extra, planes, spans, stats) {
            return;
        }
    }
    let fog = match (d.fog_fast, extra) {
        (Some(f), Some(e)) => {
            Some(f.with_plane([e.specular[0][3], e.specular[1][3], e.specular[2][3]]))
        }
        _ => None,
    };
    if d.fast == FastPath::ColorDepth24
        && tri.flags & FLAG_PERSPECTIVE == 0
        && (d.fog_fast.is_none() || fog.is_some())
    {
        let bb = tri.bbox();
        let td = simd::TriDepth24 {
            diffuse: tri.diffuse,
            z: tri.z,
            rx: bb[0],
            ry: bb[1],
            func: d.z_func,
            write: d.z_write,
            and_mask: d.and_mask,
            fog,
            // Only SRCALPHA/INVSRCALPHA, whose span kernel exists, blends
            // on this path (`DrawKind::fast_path`).
            blend: d.blend_span.is_some(),
        };
        let mut band = simd::BandRows {
            color: &mut *t.color,
            color_pitch: t.color_pitch,
            depth: &mut *t.depth,
            depth_pitch: t.depth_pitch,
            y0: t.y0,
        };
        let passed = u64::from(simd::gouraud_depth24_spans(d.simd, &mut band, spans, &td));
        stats.written += passed;
        stats.passed += passed;
        return;
    }
    // The colour kernel with fog fused, no depth test: vertex fog (the
    // specular alpha's plane) or table fog of z.
    let fused_fog = match (d.fast, &fog, &d.table_fog_fast) {
        (FastPath::ColorFog, Some(f), _) => Some((Some(f.plane), f.color)),
        (FastPath::ColorTableFog, _, Some(tf)) => Some((None, tf.color)),
        _ => None,
    };
    if let Some((plane, color)) = fused_fog.filter(|_| tri.flags & FLAG_PERSPECTIVE == 0) {
        let bb = tri.bbox();
        for sp in spans {
            let n = sp.n as usize;
            let Some(row) = t.color_span(sp.y, sp.x, n, 4) else {
                continue;
            };
            let (dx, dy) = (sp.x - bb[0], sp.y - bb[1]);
            let start = fixed_start(&tri.diffuse, dx, dy);
            let span_fog = match (plane, &d.table_fog_fast) {
                (Some(p), _) => simd::SpanFog::Plane(simd::plane_at(p, dx, dy), p[1]),
                (None, Some(tf)) => simd::SpanFog::Table {
                    zref: tri.z[0],
                    dzdx: tri.z[1],
                    zy: tri.z[2] * dy as f32,
                    fx0: dx,
                    table: &tf.table,
                    bytes: tf.bytes,
                },
                (None, None) => continue,
            };
            simd::gouraud_fog_span(
                d.simd,
                row,
                start,
                tri.diffuse[1],
                d.and_mask,
                span_fog,
                color,
            );
            stats.written += n as u64;
            stats.passed += n as u64;
        }
        return;
    }
    // The merger's span loop, fogging when the draw has fog (vertex fog
    // needs the triangle's specular plane).
    let merge_fog = match (&fog, &d.table_fog_fast) {
        (Some(f), _) => Some(simd::MergeFog {
            factor: simd::TriFog::Plane(f.plane),
            color: f.color,
        }),
        (None, Some(tf)) => Some(simd::MergeFog {
            factor: simd::TriFog::Table {
                table: &tf.table,
                bytes: tf.bytes,
            },
            color: tf.color,
        }),
        (None, None) => None,
    };
    let merge = d
        .merge
        .as_ref()
        .filter(|_| d.fog_fast.is_none() || merge_fog.is_some());
    if let Some(m) = merge {
        // Set only for draws without shading or with fog alone, so
        // `tri_span` would take the generic loop: the merger gives its
        // bytes and counts.
        let depth_bpp = if d.features[0] || d.features[1] {
            d.depth_bpp
        } else {
            0
        };
        let mut band = t.band_rows();
        if tri.flags & FLAG_PERSPECTIVE == 0
            && simd::spans_inside(&band, spans, d.color_bpp, depth_bpp)
        {
            let bb = tri.bbox();
            let mt = simd::MergeTri {
                diffuse: tri.diffuse,
                specular: extra.filter(|_| d.specular_add).map(|e| e.specular),
                fog: merge_fog,
                z: tri.z,
                ccw: tri.flags & FLAG_CCW != 0,
                rx: bb[0],
                ry: bb[1],
            };
            let passed = u64::from(simd::merge_spans(m, d.simd, &mut band, spans, &mt));
            stats.written += passed;
            stats.passed += passed;
            return;
        }
    }
    for sp in spans {
        let n = i32::try_from(sp.n).unwrap_or(1).max(1);
        tri_span(t, d, tri, extra, planes, sp.y, sp.x, sp.x + n - 1, stats);
    }
}

/// Rasterizes the span `x0..=x1` of row `py` of triangle `tri`.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn tri_span(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    tri: &TriSetup,
    extra: Option<&TriExtra>,
    planes: &[[f32; 3]],
    py: i32,
    x0: i32,
    x1: i32,
    stats: &mut Stats,
) {
    let fast = if tri.flags & FLAG_PERSPECTIVE != 0 || d.fog_fast.is_some() {
        FastPath::None
    } else {
        d.fast
    };
    if fast == FastPath::None {
        (d.tri_span)(t, d, tri, extra, planes, py, x0, x1, stats);
        return;
    }
    let n = usize_from_i32(x1 - x0 + 1);
    let bb = tri.bbox();
    let (dx, dy) = (x0 - bb[0], py - bb[1]);
    let start = fixed_start(&tri.diffuse, dx, dy);
    let step = tri.diffuse[1];
    match fast {
        FastPath::Color => {
            if let Some(row) = t.color_span(py, x0, n, 4) {
                simd::gouraud_span(d.simd, row, start, step, d.and_mask);
                stats.written += n as u64;
                stats.passed += n as u64;
            }
        }
        FastPath::ColorBlend => {
            if let (Some(k), Some(row)) = (d.blend_span, t.color_span(py, x0, n, 4)) {
                let p = simd::BlendSpan {
                    start,
                    step,
                    dst_or: !d.and_mask,
                    and_mask: d.and_mask,
                };
                k(d.simd, row, &p);
                stats.written += n as u64;
                stats.passed += n as u64;
            }
        }
        FastPath::ColorDepth24 | FastPath::ColorFog | FastPath::ColorTableFog => {
            let sp = simd::Span {
                y: py,
                x: x0,
                n: n as u32,
            };
            tri_spans(t, d, tri, extra, planes, &[sp], stats);
        }
        FastPath::None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::BlendOp;

    fn ctx(src: Blend, dst: Blend, op: BlendOp) -> BlendCtx {
        BlendCtx {
            src,
            dst,
            op,
            src_a: src,
            dst_a: dst,
            op_a: op,
            factor: [10, 20, 30, 40],
        }
    }

    #[test]
    fn blend_factors_exact() {
        let s = [200, 100, 50, 128];
        let d = [10, 20, 30, 64];
        let b = |f: Blend| blend(&ctx(f, Blend::Zero, BlendOp::Add), s, d);
        let r = |x: i32| (x + 127) / 255;
        assert_eq!(b(Blend::Zero), [0, 0, 0, 0]);
        assert_eq!(b(Blend::One), s);
        assert_eq!(b(Blend::SrcColor), s.map(|c| r(c * c)));
        assert_eq!(b(Blend::InvSrcColor), s.map(|c| r(c * (255 - c))));
        assert_eq!(b(Blend::SrcAlpha), s.map(|c| r(c * 128)));
        assert_eq!(b(Blend::InvSrcAlpha), s.map(|c| r(c * 127)));
        assert_eq!(b(Blend::DestAlpha), s.map(|c| r(c * 64)));
        assert_eq!(b(Blend::InvDestAlpha), s.map(|c| r(c * 191)));
        assert_eq!(
            b(Blend::DestColor),
            [r(200 * 10), r(100 * 20), r(50 * 30), r(128 * 64)]
        );
        assert_eq!(
            b(Blend::InvDestColor),
            [r(200 * 245), r(100 * 235), r(50 * 225), r(128 * 191)]
        );
        // SRCALPHASAT: f = min(As, 1 - Ad) = min(128, 191) = 128; alpha 1.
        assert_eq!(
            b(Blend::SrcAlphaSat),
            [r(200 * 128), r(100 * 128), r(50 * 128), 128]
        );
        assert_eq!(
            b(Blend::BlendFactor),
            [r(2000), r(2000), r(1500), r(128 * 40)]
        );
        assert_eq!(
            b(Blend::InvBlendFactor),
            [r(200 * 245), r(100 * 235), r(50 * 225), r(128 * 215)]
        );
        let (bs, bd) = resolve_pair(Blend::BothSrcAlpha, Blend::One);
        assert_eq!((bs, bd), (Blend::SrcAlpha, Blend::InvSrcAlpha));
        let (bs, bd) = resolve_pair(Blend::BothInvSrcAlpha, Blend::Zero);
        assert_eq!((bs, bd), (Blend::InvSrcAlpha, Blend::SrcAlpha));
    }

    #[test]
    fn blend_ops_exact() {
        let s = [200, 100, 50, 128];
        let d = [10, 220, 30, 64];
        let one = |op| blend(&ctx(Blend::One, Blend::One, op), s, d);
        assert_eq!(one(BlendOp::Add), [210, 255, 80, 192]);
        assert_eq!(one(BlendOp::Subtract), [190, 0, 20, 64]);
        assert_eq!(one(BlendOp::RevSubtract), [0, 120, 0, 0]);
        assert_eq!(one(BlendOp::Min), [10, 100, 30, 64]);
        assert_eq!(one(BlendOp::Max), [200, 220, 50, 128]);
        // Min/Max ignore the factors.
        assert_eq!(
            blend(&ctx(Blend::Zero, Blend::Zero, BlendOp::Max), s, d),
            [200, 220, 50, 128]
        );
    }
}
