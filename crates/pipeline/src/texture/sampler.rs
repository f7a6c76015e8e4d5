//! Texture sampling: addressing, filtering, LOD, cube and volume maps,
//! colour keying.
//!
//! *Input*: a [`Texture`], a [`SamplerState`] (built from D3D numbers with
//! the `from_d3d*` constructors), texture coordinates and their
//! screen-space [`Derivatives`]. *Output*: a filtered `[r, g, b, a]` texel
//! (signed for bump formats, unclamped for float formats), or `None` when
//! a colour key rejects the pixel. *Guarantees*: total (NaN/Inf
//! coordinates and derivatives give a defined texel, never a panic), every
//! texel read is bounds-checked, deterministic.
//!
//! ## Conventions (D3D9)
//! * Texel `i` covers `[i, i + 1)` in texel space, its centre is `i + 0.5`;
//!   texture coordinate `u` is at texel-space `u · width`.
//! * **Point**: the texel containing `u · width` (floor).
//! * **Bilinear**: the 4 texels around `u · width − 0.5`; the fraction is
//!   quantized to 8 bits (1/256 texel, the sub-texel precision of D3D9
//!   hardware), which also makes [`super::fast`] agree with this path.
//! * Addressing works on integer texel indices: WRAP `i mod n`; MIRROR
//!   period `2n` reflected; CLAMP to `[0, n − 1]`; BORDER → the border
//!   colour for any index outside; MIRRORONCE mirrors once around 0
//!   (`−i − 1`) then clamps.
//! * **LOD**: `log2(max(|∂(u,v,w)/∂x|, |∂(u,v,w)/∂y|))` in level-0
//!   texels, plus MIPMAPLODBIAS. LOD ≤ 0 magnifies (MAGFILTER at the base
//!   level), LOD > 0 minifies (MINFILTER). The base level
//!   ([`SamplerState::base_level`]) is the texture LOD clamp (SETTEXLOD)
//!   under MIPFILTER NONE, and `max(MAXMIPLEVEL, texture LOD clamp)` with
//!   mip filtering on (MAXMIPLEVEL is a mipmapping state), clamped to the
//!   last level. MIPFILTER NONE samples the base level only; POINT the level nearest
//!   to the LOD (`floor(lod + 0.5)`), clamped to `[base, last]`; LINEAR
//!   blends `floor(lod)` and the next level by the fraction.
//! * **Anisotropic** (documented approximation): with MINFILTER
//!   ANISOTROPIC and minification, `n = min(ceil(major / minor),
//!   MAXANISOTROPY, 16)` bilinear (or trilinear, per MIPFILTER) probes are
//!   taken at evenly spaced points `(k + 0.5) / n − 0.5` along the major
//!   axis of the pixel footprint and averaged, at LOD
//!   `log2(major / n)` (magnification is still decided on the isotropic
//!   LOD `log2(major)`). MAGFILTER ANISOTROPIC magnifies bilinearly.
//!   D3D's cubic/gaussian filters (D3DTEXF 4–7, D3DTFG_FLATCUBIC /
//!   GAUSSIANCUBIC) are approximated as LINEAR; a filter of NONE used as
//!   MAG/MINFILTER samples as POINT.
//! * **Cube maps**: the face is the major axis of the direction (ties
//!   prefer z, then y, then x, the D3D10+ rule; D3D9 leaves ties
//!   unspecified); face coordinates follow the D3D face orientation
//!   (+X: u ← −z, v ← −y; −X: u ← z, v ← −y; +Y: u ← x, v ← z; −Y: u ← x,
//!   v ← −z; +Z: u ← x, v ← −y; −Z: u ← −x, v ← −y), with
//!   `u = (sc / |ma| + 1) / 2` and likewise v. Faces are sampled with
//!   CLAMP addressing (no filtering across faces, as D3D9 hardware),
//!   whatever ADDRESSU/V say.
//! * **Volume**: as 2D in three dimensions (8-tap trilinear within a
//!   level, ADDRESSW for the third coordinate); levels halve the depth too.
//! * **Colour key** (DX6/7, 2D only, [`sample_2d_keyed`]): with
//!   COLORKEYBLENDENABLE every filter tap whose raw texel matches the
//!   texture's key reads as transparent black `(0, 0, 0, 0)` before
//!   filtering; with COLORKEYENABLE alone, the pixel is rejected (the
//!   caller skips it) when the texel nearest to the sample point on the
//!   most detailed level sampled matches.

use super::format::argb_to_rgba;
use super::limits;
use super::resource::{ColorKey, LevelRef, Texture, TextureKind};

/// Texture addressing modes (`D3DTEXTUREADDRESS`, from `softhal-types`):
/// WRAP repeats, MIRROR mirrors every other copy, CLAMP clamps to the edge
/// texels, BORDER reads the border colour outside the texture, MIRRORONCE
/// mirrors once around 0 and then clamps ([`address_texel`]).
pub use softhal_types::TextureAddress;
use softhal_types::TextureFilterType;

/// Maps integer texel index `i` to `0..size` under addressing mode
/// `mode`; `None` = the border colour.
#[inline]
pub fn address_texel(mode: TextureAddress, i: i64, size: u32) -> Option<u32> {
    let n = i64::from(size.max(1));
    // A power-of-two size wraps with a mask: the same value as
    // `rem_euclid` in two's complement, without a division.
    let pow2 = n & (n - 1) == 0;
    let r = match mode {
        TextureAddress::Wrap if pow2 => i & (n - 1),
        TextureAddress::Wrap => i.rem_euclid(n),
        TextureAddress::Mirror if pow2 => {
            let m = i & (2 * n - 1);
            if m >= n {
                2 * n - 1 - m
            } else {
                m
            }
        }
        TextureAddress::Mirror => {
            let m = i.rem_euclid(2 * n);
            if m >= n {
                2 * n - 1 - m
            } else {
                m
            }
        }
        TextureAddress::Clamp => i.clamp(0, n - 1),
        TextureAddress::Border => {
            if (0..n).contains(&i) {
                i
            } else {
                return None;
            }
        }
        TextureAddress::MirrorOnce => {
            let m = if i < 0 { i.saturating_neg() - 1 } else { i };
            m.clamp(0, n - 1)
        }
    };
    u32::try_from(r).ok()
}

/// Texture filter (MAG/MIN/MIPFILTER).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TextureFilter {
    /// No filtering (MIPFILTER: no mipmapping; as MAG/MIN: point).
    None,
    /// Nearest texel / nearest level.
    #[default]
    Point,
    /// Bilinear / blend of two levels.
    Linear,
    /// Anisotropic (see the module docs for the approximation).
    Anisotropic,
}

impl TextureFilter {
    /// The filter a DX8+ `D3DTEXTUREFILTERTYPE` samples with: NONE, POINT,
    /// LINEAR and ANISOTROPIC as themselves; FLATCUBIC, GAUSSIANCUBIC,
    /// PYRAMIDALQUAD and GAUSSIANQUAD approximated as LINEAR;
    /// CONVOLUTIONMONO (9.L's, for monochrome surfaces) is not sampled:
    /// `None`.
    pub fn from_type(t: TextureFilterType) -> Option<Self> {
        use TextureFilterType as T;
        Some(match t {
            T::None => TextureFilter::None,
            T::Point => TextureFilter::Point,
            T::Linear | T::FlatCubic | T::GaussianCubic | T::PyramidalQuad | T::GaussianQuad => {
                TextureFilter::Linear
            }
            T::Anisotropic => TextureFilter::Anisotropic,
            T::ConvolutionMono => return None,
        })
    }

    /// From a DX8+ `D3DTEXF_*` value ([`TextureFilter::from_type`]);
    /// `None` for a value that is not one or is not sampled.
    pub fn from_d3d(v: u32) -> Option<Self> {
        TextureFilterType::from_d3d(v).and_then(Self::from_type)
    }

    /// The `D3DTEXTUREFILTERTYPE` this filter is written as (LINEAR also
    /// for the cubic and gaussian filters it approximates).
    pub fn filter_type(self) -> TextureFilterType {
        match self {
            TextureFilter::None => TextureFilterType::None,
            TextureFilter::Point => TextureFilterType::Point,
            TextureFilter::Linear => TextureFilterType::Linear,
            TextureFilter::Anisotropic => TextureFilterType::Anisotropic,
        }
    }

    pub(crate) fn is_linear(self) -> bool {
        matches!(self, TextureFilter::Linear | TextureFilter::Anisotropic)
    }
}

/// Per-stage sampler state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SamplerState {
    /// ADDRESSU.
    pub address_u: TextureAddress,
    /// ADDRESSV.
    pub address_v: TextureAddress,
    /// ADDRESSW (volumes).
    pub address_w: TextureAddress,
    /// BORDERCOLOR (D3DCOLOR).
    pub border_color: u32,
    /// MAGFILTER.
    pub mag_filter: TextureFilter,
    /// MINFILTER.
    pub min_filter: TextureFilter,
    /// MIPFILTER.
    pub mip_filter: TextureFilter,
    /// MIPMAPLODBIAS (added to the computed LOD).
    pub mip_lod_bias: f32,
    /// MAXMIPLEVEL: the most detailed level allowed when mip filtering is
    /// on ([`SamplerState::base_level`]).
    pub max_mip_level: u32,
    /// MAXANISOTROPY (1 = no anisotropy).
    pub max_anisotropy: u32,
}

impl Default for SamplerState {
    /// The D3D9 defaults: WRAP, border 0, POINT/POINT/NONE, bias 0, max
    /// mip level 0, max anisotropy 1.
    fn default() -> Self {
        SamplerState {
            address_u: TextureAddress::Wrap,
            address_v: TextureAddress::Wrap,
            address_w: TextureAddress::Wrap,
            border_color: 0,
            mag_filter: TextureFilter::Point,
            min_filter: TextureFilter::Point,
            mip_filter: TextureFilter::None,
            mip_lod_bias: 0.0,
            max_mip_level: 0,
            max_anisotropy: 1,
        }
    }
}

impl SamplerState {
    /// The most detailed level sampled of a texture of `level_count`
    /// levels whose SETTEXLOD value is `lod_clamp`: the LOD clamp alone
    /// under MIPFILTER NONE, `max(MAXMIPLEVEL, LOD clamp)` with mip
    /// filtering on; at most the last level.
    pub fn base_level(&self, level_count: u32, lod_clamp: u32) -> u32 {
        let base = if self.mip_filter == TextureFilter::None {
            lod_clamp
        } else {
            self.max_mip_level.max(lod_clamp)
        };
        base.min(level_count.saturating_sub(1))
    }
}

/// Colour-key behaviour (DX6/7 render states 41 and 144).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorKeyMode {
    /// No keying.
    #[default]
    Off,
    /// COLORKEYENABLE: a pixel whose nearest texel matches is rejected.
    Reject,
    /// COLORKEYBLENDENABLE: matching texels become transparent black.
    Blend,
}

impl ColorKeyMode {
    /// From the two BOOL render states; BLEND wins when both are set.
    pub fn from_d3d(colorkey_enable: u32, colorkey_blend_enable: u32) -> Self {
        if colorkey_blend_enable != 0 {
            ColorKeyMode::Blend
        } else if colorkey_enable != 0 {
            ColorKeyMode::Reject
        } else {
            ColorKeyMode::Off
        }
    }
}

/// What colour keying does to one texel, for raster cores that key
/// texels themselves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KeyedTexel {
    /// Not keyed: use the texel.
    Keep([f32; 4]),
    /// Keyed under COLORKEYBLENDENABLE: transparent black.
    Transparent,
    /// Keyed under COLORKEYENABLE: reject the pixel.
    Reject,
}

/// Applies a colour key to one texel whose raw bits are `raw` (`None`
/// for formats that cannot be keyed: they never match).
pub fn apply_color_key(
    texel: [f32; 4],
    raw: Option<u32>,
    key: Option<ColorKey>,
    mode: ColorKeyMode,
) -> KeyedTexel {
    let hit = matches!((raw, key), (Some(r), Some(k)) if k.matches(r));
    match (hit, mode) {
        (true, ColorKeyMode::Blend) => KeyedTexel::Transparent,
        (true, ColorKeyMode::Reject) => KeyedTexel::Reject,
        _ => KeyedTexel::Keep(texel),
    }
}

/// Screen-space derivatives of the texture coordinates, in normalized
/// texture units per pixel (`[du, dv, dw]`; `dw` only matters for
/// volumes, and for cube maps these are derivatives of the direction).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Derivatives {
    /// ∂(u, v, w)/∂x.
    pub ddx: [f32; 3],
    /// ∂(u, v, w)/∂y.
    pub ddy: [f32; 3],
}

impl Derivatives {
    /// Coarse derivatives of a 2×2 pixel quad, as D3D9 hardware computes
    /// them: `q` holds the coordinates at (x, y), (x+1, y), (x, y+1),
    /// (x+1, y+1); ∂/∂x = `q[1] − q[0]`, ∂/∂y = `q[2] − q[0]`. The same pair
    /// serves all 4 pixels of the quad.
    pub fn from_quad(q: [[f32; 3]; 4]) -> Self {
        let sub = |a: [f32; 3], b: [f32; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
        Derivatives {
            ddx: sub(q[1], q[0]),
            ddy: sub(q[2], q[0]),
        }
    }
}

#[inline]
fn len3(v: [f32; 3]) -> f32 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// The unbiased LOD of a footprint given in level-0 **texels** per pixel:
/// `log2(max(|ddx|, |ddy|))` (−∞ for a zero footprint, 0 for NaN).
pub fn lod_from_texel_derivatives(ddx: [f32; 3], ddy: [f32; 3]) -> f32 {
    let l = len3(ddx).max(len3(ddy)).log2();
    if l.is_nan() {
        0.0
    } else {
        l
    }
}

/// Which levels one sample reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MipSelection {
    /// Bilinear (true) or point (false) within a level.
    pub linear: bool,
    /// More detailed level.
    pub level0: u32,
    /// Less detailed level (equal to `level0` when not blending).
    pub level1: u32,
    /// Weight of `level1` (0 when not blending).
    pub blend: f32,
    /// Probes along the major axis (1 unless anisotropic).
    pub probes: u32,
    /// Major axis in normalized coordinates (per unit of probe offset).
    pub axis: [f32; 3],
}

/// Chooses filter, levels and anisotropic probes for one sample.
/// `dims` = level-0 size in texels (use 0 for the unused w of 2D and cube
/// textures), `level_count` the texture's levels, `lod_clamp` the
/// texture's SETTEXLOD value.
pub fn select_mip(
    s: &SamplerState,
    dims: [u32; 3],
    level_count: u32,
    lod_clamp: u32,
    d: &Derivatives,
) -> MipSelection {
    let last = level_count.saturating_sub(1);
    let base = s.base_level(level_count, lod_clamp);
    // No mip filter, no anisotropy and the same filter either side of the
    // magnification switch: the LOD cannot change the result (one probe
    // of the base level with that filter), so it is not computed.
    if s.mip_filter == TextureFilter::None
        && s.min_filter != TextureFilter::Anisotropic
        && s.mag_filter.is_linear() == s.min_filter.is_linear()
    {
        return MipSelection {
            linear: s.min_filter.is_linear(),
            level0: base,
            level1: base,
            blend: 0.0,
            probes: 1,
            axis: d.ddx, // used only by several probes
        };
    }
    let scale = |v: [f32; 3]| {
        [
            v[0] * dims[0] as f32,
            v[1] * dims[1] as f32,
            v[2] * dims[2] as f32,
        ]
    };
    let (tx, ty) = (scale(d.ddx), scale(d.ddy));
    let (lx, ly) = (len3(tx), len3(ty));
    let (major, minor) = if lx >= ly { (lx, ly) } else { (ly, lx) };
    let max_aniso = s.max_anisotropy.clamp(1, limits::MAX_ANISOTROPY);
    let mut probes = 1u32;
    let bias = if s.mip_lod_bias.is_finite() {
        s.mip_lod_bias
    } else {
        0.0
    };
    let mut lod = lod_from_texel_derivatives(tx, ty);
    // Magnification is decided on the isotropic LOD.
    let magnify = lod + bias <= 0.0;
    if s.min_filter == TextureFilter::Anisotropic && max_aniso > 1 && major > 0.0 {
        let ratio = if minor > 0.0 {
            (major / minor).ceil()
        } else {
            f32::INFINITY
        };
        // NaN ratio (Inf/Inf) → 1 probe.
        let n = if ratio >= max_aniso as f32 {
            max_aniso
        } else if ratio >= 1.0 {
            ratio as u32
        } else {
            1
        };
        probes = n;
        lod = (major / n as f32).log2();
        if lod.is_nan() {
            lod = 0.0;
        }
    }
    let lod = lod + bias;
    let linear = if magnify {
        s.mag_filter.is_linear()
    } else {
        s.min_filter.is_linear()
    };
    let axis = if lx >= ly { d.ddx } else { d.ddy };
    if magnify {
        return MipSelection {
            linear,
            level0: base,
            level1: base,
            blend: 0.0,
            probes: 1,
            axis,
        };
    }
    let lod_c = lod.clamp(base as f32, last as f32);
    let (level0, level1, blend) = match s.mip_filter {
        TextureFilter::None => (base, base, 0.0),
        TextureFilter::Point => {
            let l = ((lod_c + 0.5).floor() as u32).clamp(base, last);
            (l, l, 0.0)
        }
        TextureFilter::Linear | TextureFilter::Anisotropic => {
            let l0 = (lod_c.floor() as u32).clamp(base, last);
            let t = (lod_c - l0 as f32).clamp(0.0, 1.0);
            ((l0), (l0 + 1).min(last), if l0 == last { 0.0 } else { t })
        }
    };
    MipSelection {
        linear,
        level0,
        level1,
        blend,
        probes,
        axis,
    }
}

/// Floor of `coord · size · 256 − 128` as (integer texel, 8-bit fraction)
/// for bilinear filtering; `coord · size` for point (fraction 0). Also
/// the address arithmetic of the 8-bit filter (`simd::tex_modulate`) for
/// point sampling and for CLAMP and MIRROR.
#[inline]
pub(crate) fn texel_coord(coord: f32, size: u32, linear: bool) -> (i64, u32) {
    if linear {
        let q = floor_i64(coord * (size as f32 * 256.0) - 128.0);
        (q >> 8, (q & 255) as u32)
    } else {
        (floor_i64(coord * size as f32), 0)
    }
}

/// `x.floor() as i64` without the C library's `floorf` call (the baseline
/// x86_64 target has no rounding instruction): truncate, then step down
/// when truncation rounded up. The same value for every input — NaN gives
/// 0 and out-of-range values saturate, as the cast does.
#[inline(always)]
pub(crate) fn floor_i64(x: f32) -> i64 {
    let t = x as i64;
    if (t as f32) > x {
        t.saturating_sub(1)
    } else {
        t
    }
}

/// How to read one texel: addressing, border, key.
struct TapCtx {
    address: [TextureAddress; 3],
    border: [f32; 4],
    key: Option<ColorKey>,
}

impl TapCtx {
    #[inline]
    fn fetch(&self, level: &LevelRef<'_>, x: i64, y: i64, z: i64) -> [f32; 4] {
        let i = &level.info;
        let (Some(x), Some(y), Some(z)) = (
            address_texel(self.address[0], x, i.width),
            address_texel(self.address[1], y, i.height),
            address_texel(self.address[2], z, i.depth),
        ) else {
            return self.border;
        };
        if let Some(k) = self.key {
            if level.raw(x, y, z).is_some_and(|r| k.matches(r)) {
                return [0.0; 4];
            }
        }
        level.texel(x, y, z)
    }
}

#[inline]
fn lerp4(a: [f32; 4], b: [f32; 4], t: f32) -> [f32; 4] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
        a[3] + (b[3] - a[3]) * t,
    ]
}

/// Samples one level at normalized `c` (3D when `volume`), point or
/// bilinear/trilinear-in-3D.
fn sample_level(
    ctx: &TapCtx,
    level: &LevelRef<'_>,
    c: [f32; 3],
    linear: bool,
    volume: bool,
) -> [f32; 4] {
    let i = &level.info;
    let (x0, fx) = texel_coord(c[0], i.width, linear);
    let (y0, fy) = texel_coord(c[1], i.height, linear);
    let (z0, fz) = if volume {
        texel_coord(c[2], i.depth, linear)
    } else {
        (0, 0)
    };
    if !linear {
        return ctx.fetch(level, x0, y0, z0);
    }
    let (wx, wy, wz) = (fx as f32 / 256.0, fy as f32 / 256.0, fz as f32 / 256.0);
    let plane = |z: i64| {
        let top = lerp4(
            ctx.fetch(level, x0, y0, z),
            ctx.fetch(level, x0 + 1, y0, z),
            wx,
        );
        let bottom = lerp4(
            ctx.fetch(level, x0, y0 + 1, z),
            ctx.fetch(level, x0 + 1, y0 + 1, z),
            wx,
        );
        lerp4(top, bottom, wy)
    };
    let p0 = plane(z0);
    if volume && fz != 0 {
        lerp4(p0, plane(z0 + 1), wz)
    } else {
        p0
    }
}

/// Runs a [`MipSelection`]: probes × levels × taps.
fn run_selection(
    tex: &Texture,
    face: u32,
    sel: &MipSelection,
    ctx: &TapCtx,
    c: [f32; 3],
    volume: bool,
) -> [f32; 4] {
    let one = |c: [f32; 3]| {
        let at = |l: u32| {
            tex.level(face, l)
                .map_or([0.0; 4], |lv| sample_level(ctx, &lv, c, sel.linear, volume))
        };
        let a = at(sel.level0);
        if sel.level1 != sel.level0 && sel.blend > 0.0 {
            lerp4(a, at(sel.level1), sel.blend)
        } else {
            a
        }
    };
    if sel.probes <= 1 {
        return one(c);
    }
    let n = sel.probes as f32;
    let mut acc = [0.0f32; 4];
    for k in 0..sel.probes {
        let off = (k as f32 + 0.5) / n - 0.5;
        let p = [
            c[0] + sel.axis[0] * off,
            c[1] + sel.axis[1] * off,
            c[2] + sel.axis[2] * off,
        ];
        let t = one(p);
        for (a, v) in acc.iter_mut().zip(t) {
            *a += v;
        }
    }
    acc.map(|a| a / n)
}

fn ctx_for(s: &SamplerState, key: Option<ColorKey>) -> TapCtx {
    TapCtx {
        address: [s.address_u, s.address_v, s.address_w],
        border: argb_to_rgba(s.border_color),
        key,
    }
}

/// Samples a 2D texture (face 0) at `uv` with derivatives `d`. Cube and
/// volume textures are sampled through their first face / slice plane.
pub fn sample_2d(tex: &Texture, s: &SamplerState, uv: [f32; 2], d: &Derivatives) -> [f32; 4] {
    let sel = select_mip(
        s,
        [tex.width(), tex.height(), 0],
        tex.level_count(),
        tex.lod(),
        d,
    );
    run_selection(tex, 0, &sel, &ctx_for(s, None), [uv[0], uv[1], 0.0], false)
}

/// [`sample_2d`] with DX6/7 colour keying against the texture's key (see
/// the module docs). `None` = the pixel is rejected. With no key set on
/// the texture or [`ColorKeyMode::Off`] this equals `Some(sample_2d(..))`.
pub fn sample_2d_keyed(
    tex: &Texture,
    s: &SamplerState,
    uv: [f32; 2],
    d: &Derivatives,
    mode: ColorKeyMode,
) -> Option<[f32; 4]> {
    let key = tex.color_key().filter(|_| mode != ColorKeyMode::Off);
    let sel = select_mip(
        s,
        [tex.width(), tex.height(), 0],
        tex.level_count(),
        tex.lod(),
        d,
    );
    let c = [uv[0], uv[1], 0.0];
    if let (Some(k), ColorKeyMode::Reject) = (key, mode) {
        let level = tex.level(0, sel.level0)?;
        let (x, _) = texel_coord(c[0], level.info.width, false);
        let (y, _) = texel_coord(c[1], level.info.height, false);
        let ax = address_texel(s.address_u, x, level.info.width);
        let ay = address_texel(s.address_v, y, level.info.height);
        if let (Some(x), Some(y)) = (ax, ay) {
            if level.raw(x, y, 0).is_some_and(|r| k.matches(r)) {
                return None;
            }
        }
        return Some(run_selection(tex, 0, &sel, &ctx_for(s, None), c, false));
    }
    Some(run_selection(tex, 0, &sel, &ctx_for(s, key), c, false))
}

/// Samples a volume texture at `uvw` (3D addressing and filtering).
pub fn sample_volume(tex: &Texture, s: &SamplerState, uvw: [f32; 3], d: &Derivatives) -> [f32; 4] {
    let dz = if tex.kind() == TextureKind::Volume {
        tex.depth()
    } else {
        0
    };
    let sel = select_mip(
        s,
        [tex.width(), tex.height(), dz],
        tex.level_count(),
        tex.lod(),
        d,
    );
    run_selection(tex, 0, &sel, &ctx_for(s, None), uvw, true)
}

/// The cube face (0 = +X … 5 = −Z) and face coordinates `(u, v)` in
/// [0, 1] of a direction, per the rules in the module docs. NaN
/// components count as 0; a zero direction picks +Z (tie rule) at the
/// face centre (0.5, 0.5).
pub fn cube_face(dir: [f32; 3]) -> (u32, [f32; 2]) {
    let [x, y, z] = dir.map(|c| if c.is_nan() { 0.0 } else { c });
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if az >= ax && az >= ay {
        if z >= 0.0 {
            (4, x, -y, az)
        } else {
            (5, -x, -y, az)
        }
    } else if ay >= ax {
        if y >= 0.0 {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if x >= 0.0 {
        (0, -z, -y, ax)
    } else {
        (1, z, -y, ax)
    };
    if ma <= 0.0 || !ma.is_finite() {
        return (face, [0.5, 0.5]);
    }
    (face, [0.5 * (sc / ma + 1.0), 0.5 * (tc / ma + 1.0)])
}

/// Derivatives of the face coordinates of a cube sample, from the
/// derivatives of the direction (quotient rule on `sc / |ma|`).
fn cube_face_derivatives(dir: [f32; 3], d: &Derivatives) -> Derivatives {
    let (face, _) = cube_face(dir);
    // (index of sc, sign of sc, index of tc, sign of tc, index of ma)
    let (si, ss, ti, ts, mi) = match face {
        0 => (2, -1.0, 1, -1.0, 0),
        1 => (2, 1.0, 1, -1.0, 0),
        2 => (0, 1.0, 2, 1.0, 1),
        3 => (0, 1.0, 2, -1.0, 1),
        4 => (0, 1.0, 1, -1.0, 2),
        _ => (0, -1.0, 1, -1.0, 2),
    };
    let ma = dir[mi].abs();
    let msign = if dir[mi] < 0.0 { -1.0 } else { 1.0 };
    let one = |dd: [f32; 3]| {
        if ma <= 0.0 || !ma.is_finite() {
            return [0.0; 3];
        }
        let dma = msign * dd[mi];
        let q = |idx: usize, sign: f32| {
            let c = sign * dir[idx];
            let dc = sign * dd[idx];
            0.5 * (dc * ma - c * dma) / (ma * ma)
        };
        [q(si, ss), q(ti, ts), 0.0]
    };
    Derivatives {
        ddx: one(d.ddx),
        ddy: one(d.ddy),
    }
}

/// Samples a cube texture in direction `dir`; `d` holds the derivatives
/// of the direction. Non-cube textures are sampled as 2D at the face
/// coordinates.
pub fn sample_cube(tex: &Texture, s: &SamplerState, dir: [f32; 3], d: &Derivatives) -> [f32; 4] {
    let (face, uv) = cube_face(dir);
    let face = if tex.kind() == TextureKind::Cube {
        face
    } else {
        0
    };
    let fd = cube_face_derivatives(dir, d);
    let sel = select_mip(
        s,
        [tex.width(), tex.height(), 0],
        tex.level_count(),
        tex.lod(),
        &fd,
    );
    let ctx = TapCtx {
        address: [TextureAddress::Clamp; 3],
        border: argb_to_rgba(s.border_color),
        key: None,
    };
    run_selection(tex, face, &sel, &ctx, [uv[0], uv[1], 0.0], false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_i64_is_floor_then_cast() {
        let special = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            1.5,
            -1.5,
            2.999_999_8,
            -2.999_999_8,
            16_777_215.0,
            -16_777_217.0,
            1e20,
            -1e20,
            9.223_372e18,
            -9.223_372e18,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            -1e-45,
        ];
        for x in special {
            assert_eq!(floor_i64(x), x.floor() as i64, "{x}");
        }
        // Every 97th bit pattern of the 32-bit floats.
        for bits in (0..=u32::MAX).step_by(97) {
            let x = f32::from_bits(bits);
            assert_eq!(floor_i64(x), x.floor() as i64, "{bits:#x}");
        }
    }

    #[test]
    fn power_of_two_wrap_and_mirror_are_the_euclidean_remainder() {
        for size in [1u32, 2, 4, 64, 256, 3, 5, 100] {
            let n = i64::from(size);
            for i in (-3 * n - 2)..(3 * n + 2) {
                let wrap = i.rem_euclid(n);
                let m = i.rem_euclid(2 * n);
                let mirror = if m >= n { 2 * n - 1 - m } else { m };
                let want = |r: i64| Some(u32::try_from(r).unwrap());
                assert_eq!(
                    address_texel(TextureAddress::Wrap, i, size),
                    want(wrap),
                    "{size} {i}"
                );
                assert_eq!(
                    address_texel(TextureAddress::Mirror, i, size),
                    want(mirror),
                    "{size} {i}"
                );
            }
            for i in [i64::MIN, i64::MIN + 1, i64::MAX] {
                assert_eq!(
                    address_texel(TextureAddress::Wrap, i, size),
                    Some(u32::try_from(i.rem_euclid(n)).unwrap())
                );
            }
        }
    }

    #[test]
    fn address_modes_on_indices() {
        use TextureAddress as A;
        let m = |a: A| [-5i64, -1, 0, 3, 4, 7, 9].map(|i| address_texel(a, i, 4));
        assert_eq!(m(A::Wrap), [3, 3, 0, 3, 0, 3, 1].map(Some));
        assert_eq!(m(A::Mirror), [3, 0, 0, 3, 3, 0, 1].map(Some));
        assert_eq!(m(A::Clamp), [0, 0, 0, 3, 3, 3, 3].map(Some));
        assert_eq!(
            m(A::Border),
            [None, None, Some(0), Some(3), None, None, None]
        );
        assert_eq!(m(A::MirrorOnce), [3, 0, 0, 3, 3, 3, 3].map(Some));
        assert_eq!(address_texel(A::Wrap, i64::MIN, 3), Some(1));
        assert_eq!(address_texel(A::MirrorOnce, i64::MIN, 3), Some(2));
    }

    #[test]
    fn cube_faces() {
        assert_eq!(cube_face([1.0, 0.0, 0.0]), (0, [0.5, 0.5]));
        assert_eq!(cube_face([-1.0, 0.5, 0.0]), (1, [0.5, 0.25]));
        assert_eq!(cube_face([0.5, 1.0, 0.0]), (2, [0.75, 0.5]));
        assert_eq!(cube_face([0.0, -1.0, 0.5]), (3, [0.5, 0.25]));
        assert_eq!(cube_face([0.5, 0.5, 1.0]), (4, [0.75, 0.25]));
        assert_eq!(cube_face([0.5, 0.0, -1.0]), (5, [0.25, 0.5]));
        // Ties prefer z, then y.
        assert_eq!(cube_face([1.0, 1.0, 1.0]).0, 4);
        assert_eq!(cube_face([1.0, -1.0, 0.0]).0, 3);
        assert_eq!(cube_face([f32::NAN, 0.0, 0.0]), (4, [0.5, 0.5]));
    }
}
