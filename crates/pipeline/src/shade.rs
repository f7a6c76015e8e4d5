//! The shaded path: full per-pixel shading with perspective-correct attributes,
//! texture sampling with quad derivatives, the stage cascade, colour key,
//! specular add and fog — then the fragment tail of the colour paths (alpha test,
//! stencil/depth, blend, write).
//!
//! *Input*: a triangle's full-path planes (see `prim::TriExtra::planes`:
//! `attr · rhw` planes of diffuse, specular — whose alpha is the fog factor
//! — and one 4-vector per sampling stage), or a line's or point's vertex
//! attributes (`prim::PointSetup::attrs`; lines interpolate them
//! perspective-correctly along the major axis, points keep them or, as
//! sprites, get (0, 0)–(1, 1) coordinates), and the draw's [`ShadeCtx`].
//! *Output*: fragments handed to `pixel::fragment` (all three kinds share
//! [`fragment_full`]).
//!
//! *Derivatives*: every pixel uses the coarse derivatives of its 2×2 quad
//! (quads aligned to even coordinates), evaluated from the planes at the
//! quad's pixels whether or not they are covered (the "helper pixels" of
//! hardware), so results do not depend on the tile or span split. They are
//! only computed for stages whose result can depend on the LOD (more than
//! one level sampled, or MAG ≠ MIN filter). Lines take them along the
//! major axis (zero across it); points without sprites have none (the
//! most detailed level).
//!
//! *Fast path* ([`TexFast`], the W3/W4 case): one 2D texture level the
//! 8-bit filter takes ([`filter8_level`]: 32- or 16-bit texels, POINT or
//! LINEAR, WRAP, CLAMP or MIRROR), stage 0 MODULATE(TEXTURE, DIFFUSE)
//! for colour and alpha, no fog/specular/alpha test/stencil/depth test,
//! blending off or SRCALPHA/INVSRCALPHA. It uses that 8-bit fixed-point
//! filter (`simd::tex_modulate`; POINT reads the float sampler's texel,
//! LINEAR is within one unit of it) and integer modulation
//! (`round(t·d/255)`), and may differ from the float path by one unit per
//! channel; which path a triangle takes depends only on the state and the
//! triangle (affine or not), never on threads or SIMD level.

use crate::cascade::{run_cascade, CascadeInputs, StageState, TextureArg, TextureOp, MAX_STAGES};
use crate::fog::{FogSource, FogState};
use crate::limits::PIXEL_SAMPLERS;
use crate::pixel::{DrawCtx, Stats, TileTarget};
use crate::prim::{TriExtra, TriSetup, FLAG_CCW, FLAG_PERSPECTIVE};
use crate::simd;
use crate::state::{Blend, BlendOp, PipelineState};
use crate::texture::{
    sample_2d, sample_2d_keyed, sample_cube, sample_volume, ColorKeyMode, Derivatives,
    SamplerState, Texture, TextureAddress, TextureFilter, TextureFormat, TextureKind,
};
use crate::varying::VARYING_PLANE;
use crate::watch::Recorder;

/// Per-draw state of the full shading path.
#[derive(Clone, Copy)]
pub(crate) struct ShadeCtx<'a> {
    stages: [StageState; MAX_STAGES],
    /// The pixel samplers' states and textures (the stages' first).
    samplers: [SamplerState; PIXEL_SAMPLERS],
    textures: [Option<&'a Texture>; PIXEL_SAMPLERS],
    /// Component count of stages whose coordinates are projected (else 0).
    projected: [u8; MAX_STAGES],
    /// Stages whose sample depends on the LOD.
    lod: [bool; MAX_STAGES],
    /// Number of interpolated coordinate sets.
    sets: usize,
    texture_factor: [f32; 4],
    color_key: ColorKeyMode,
    fog: FogSource,
    fog_state: FogState,
    fog_uses_w: bool,
    specular_add: bool,
    identity: bool,
}

/// The number of coordinates each stage's D3DTTFF_PROJECTED divides
/// over (the last one is the divisor), 0 where the stage does not
/// project. Fixed-function vertices: D3DTTFF_COUNTn (n ≥ 2) is how many
/// the texture transform wrote. A vertex shader writes all four and
/// COUNTn is not applied to them (`docs/shaders.md` §12): the third with
/// COUNT3, else the fourth.
fn projected_counts(state: &PipelineState, vertex_shader: bool) -> [u8; MAX_STAGES] {
    state.textures.transform_flags.map(|f| match f.projected {
        false => 0,
        true if vertex_shader => {
            if f.count == 3 {
                3
            } else {
                4
            }
        }
        true if f.count >= 2 => f.count,
        true => 0,
    })
}

/// Highest stage (exclusive) that samples a texture, or 0.
fn sampling_stages(stages: &[StageState; MAX_STAGES]) -> usize {
    let mut n = 0;
    for (i, s) in stages.iter().enumerate() {
        if s.color_op == TextureOp::Disable {
            break;
        }
        if s.has_texture {
            n = i + 1;
        }
    }
    n
}

impl<'a> ShadeCtx<'a> {
    /// The shading state of a draw, `None` when the colour paths give
    /// the same pixels (no texture sampled, identity cascade, no fog).
    /// Also returns the number of coordinate sets to interpolate.
    /// `vertex_shader`: the vertices come from a vertex shader (fog as for
    /// pre-transformed vertices: table fog from z, else the vertex's fog
    /// factor; D3DTTFF_PROJECTED divides by the shader's fourth
    /// coordinate, or the third with COUNT3; `docs/shaders.md`).
    pub(crate) fn build(
        state: &PipelineState,
        textures: &[Option<&'a Texture>; PIXEL_SAMPLERS],
        pretransformed: bool,
        vertex_shader: bool,
    ) -> Option<(Self, usize)> {
        let pretransformed = pretransformed || vertex_shader;
        let ts = &state.textures;
        let mut stages = ts.stages;
        for (s, t) in stages.iter_mut().zip(textures) {
            s.has_texture = t.is_some();
        }
        let sets = sampling_stages(&stages);
        let identity = sets == 0
            && crate::draw_kind::cascade_kind(&stages) == crate::draw_kind::CascadeKind::Diffuse;
        let fog = state.fog.source(pretransformed);
        if identity && fog == FogSource::None {
            return None;
        }
        let projected = projected_counts(state, vertex_shader);
        let mut lod = [false; MAX_STAGES];
        for i in 0..MAX_STAGES {
            if let Some(t) = textures[i] {
                let sm = &ts.samplers[i];
                lod[i] = t.level_count() > 1 && sm.mip_filter != TextureFilter::None
                    || sm.mag_filter.is_linear() != sm.min_filter.is_linear()
                    || sm.min_filter == TextureFilter::Anisotropic;
            }
        }
        let ctx = ShadeCtx {
            stages,
            samplers: ts.samplers,
            textures: *textures,
            projected,
            lod,
            sets,
            texture_factor: crate::texture::format::argb_to_rgba(ts.texture_factor),
            color_key: ts.color_key,
            fog,
            fog_state: state.fog,
            fog_uses_w: !pretransformed
                && crate::fog::table_fog_uses_w(&state.transforms.projection),
            specular_add: state.raster.specular_enable,
            identity,
        };
        Some((ctx, sets))
    }

    /// The shading state of a draw whose pixel program is a shader
    /// (`crate::pixel::shader`): the samplers, textures and fog of the
    /// draw's state, all [`MAX_STAGES`] coordinate sets interpolated (a
    /// shader may read any `t#`), never the identity cascade; each stage's
    /// D3DTTFF_PROJECTED divisor ([`ShadeCtx::projection`], applied by the
    /// ps_1_1–1_3 instructions that honour it). `pretransformed`: fog as
    /// for pre-transformed vertices; `vertex_shader`: the vertices come
    /// from a vertex shader. Returns the number of coordinate sets with it.
    pub(crate) fn for_pixel_shader(
        state: &PipelineState,
        textures: &[Option<&'a Texture>; PIXEL_SAMPLERS],
        pretransformed: bool,
        vertex_shader: bool,
    ) -> (Self, usize) {
        let ts = &state.textures;
        let mut stages = ts.stages;
        for (s, t) in stages.iter_mut().zip(textures) {
            s.has_texture = t.is_some();
        }
        let ctx = ShadeCtx {
            stages,
            samplers: ts.samplers,
            textures: *textures,
            projected: projected_counts(state, vertex_shader),
            lod: [true; MAX_STAGES],
            sets: MAX_STAGES,
            texture_factor: crate::texture::format::argb_to_rgba(ts.texture_factor),
            color_key: ColorKeyMode::Off,
            fog: state.fog.source(pretransformed),
            fog_state: state.fog,
            fog_uses_w: !pretransformed
                && crate::fog::table_fog_uses_w(&state.transforms.projection),
            specular_add: false,
            identity: false,
        };
        (ctx, MAX_STAGES)
    }

    /// The texture bound to stage `n` and its sampler state.
    pub(crate) fn sampler(&self, n: usize) -> Option<(&'a Texture, &SamplerState)> {
        match (self.textures.get(n), self.samplers.get(n)) {
            (Some(Some(t)), Some(s)) => Some((*t, s)),
            _ => None,
        }
    }

    /// Stage `n`'s D3DTTFF_PROJECTED divisor: the index (1..=3) of the
    /// coordinate the others are divided by, `None` when not projected.
    pub(crate) fn projection(&self, n: usize) -> Option<usize> {
        match self.projected.get(n) {
            Some(&c) if c >= 2 => Some(usize::from(c.min(4)) - 1),
            _ => None,
        }
    }

    /// Stage `n`'s state (bump-environment matrix, luminance).
    pub(crate) fn stage(&self, n: usize) -> Option<&StageState> {
        self.stages.get(n)
    }

    /// Whether fog is applied after the texture stages (or a ps_1_x–2_x
    /// pixel shader): [`ShadeCtx::fog_factor`] returns a factor.
    pub(crate) fn fog_on(&self) -> bool {
        self.fog != FogSource::None
    }

    /// The fog factor of a fragment (1 = no fog), `None` when fog is off:
    /// vertex fog from the interpolated specular alpha `specular_alpha`
    /// (0..1), table fog from the interpolated `z` or `w`.
    #[inline]
    pub(crate) fn fog_factor(&self, specular_alpha: f32, z: f32, w: f32) -> Option<f32> {
        match self.fog {
            FogSource::None => None,
            FogSource::Table(mode) => Some(crate::fog::table_fog_factor(
                &self.fog_state,
                mode,
                z,
                w,
                self.fog_uses_w,
            )),
            FogSource::Vertex(_) | FogSource::SpecularAlpha => Some(specular_alpha),
        }
    }

    /// Where the fog factor comes from.
    pub(crate) fn fog_source(&self) -> FogSource {
        self.fog
    }

    /// Table fog's states and whether its distance is the eye-space w
    /// (else the depth z) (`crate::fog::table_fog_uses_w`): what
    /// [`ShadeCtx::fog_factor`] reads for [`FogSource::Table`].
    pub(crate) fn table_fog(&self) -> (&FogState, bool) {
        (&self.fog_state, self.fog_uses_w)
    }

    /// The texture stages (with `has_texture` set).
    pub(crate) fn stages(&self) -> &[StageState; MAX_STAGES] {
        &self.stages
    }

    /// Number of interpolated coordinate sets (stages 0..sets have them).
    pub(crate) fn sets(&self) -> usize {
        self.sets
    }

    /// True if the colour is the diffuse colour before specular and fog
    /// (no texture sampled, every stage passes CURRENT through).
    pub(crate) fn identity(&self) -> bool {
        self.identity
    }

    /// D3DRS_COLORKEYENABLE / COLORKEYBLENDENABLE.
    pub(crate) fn color_key(&self) -> ColorKeyMode {
        self.color_key
    }

    /// FOGCOLOR (D3DCOLOR).
    pub(crate) fn fog_color(&self) -> u32 {
        self.fog_state.color
    }

    /// FOGCOLOR as the fused kernels take it: blue, green, red, 0.
    pub(crate) fn fog_color_bgr(&self) -> [i32; 4] {
        let [_, r, g, b] = self.fog_state.color.to_be_bytes();
        [i32::from(b), i32::from(g), i32::from(r), 0]
    }

    /// D3DRS_SPECULARENABLE.
    pub(crate) fn specular_add(&self) -> bool {
        self.specular_add
    }

    /// Fog from the specular alpha with an identity cascade and no
    /// specular add: the case fused into the colour + depth kernel.
    pub(crate) fn fog_fixed(&self) -> Option<simd::FogFixed> {
        let vertexish = matches!(self.fog, FogSource::SpecularAlpha | FogSource::Vertex(_));
        (self.identity && vertexish && !self.specular_add).then(|| simd::FogFixed {
            plane: [0; 3],
            color: self.fog_color_bgr(),
        })
    }
}

/// Value of plane `p` at (fx, fy) (not yet divided by rhw).
#[inline(always)]
pub(crate) fn at(p: &[f32; 3], fx: f32, fy: f32) -> f32 {
    (p[0] + p[1] * fx) + p[2] * fy
}

/// Texture coordinates of stage `s` at (fx, fy), projected if requested.
#[inline]
fn coords(
    sh: &ShadeCtx<'_>,
    planes: &[[f32; 3]],
    rhw: &[f32; 3],
    s: usize,
    fx: f32,
    fy: f32,
) -> [f32; 4] {
    let inv = 1.0 / at(rhw, fx, fy);
    let mut c = [0.0f32; 4];
    for (k, o) in c.iter_mut().enumerate() {
        if let Some(p) = planes.get(VARYING_PLANE + 4 * s + k) {
            *o = at(p, fx, fy) * inv;
        }
    }
    let n = sh.projected[s];
    if n >= 2 {
        c = crate::texgen::project(crate::texgen::TransformedTexCoords {
            v: c,
            count: n,
            projected: true,
        });
    }
    c
}

/// The interpolated inputs of one full-path fragment.
pub(crate) struct FullInputs<'b> {
    /// Diffuse (0..4) and specular (4..8), BGRA, 0..=255; the specular
    /// alpha is the fog factor × 255.
    pub attr: [f32; 8],
    /// Texture coordinates per stage (projected where requested).
    pub tc: &'b [[f32; 4]; MAX_STAGES],
    /// Coordinate derivatives per stage (read by LOD-dependent stages).
    pub der: &'b [Derivatives; MAX_STAGES],
    /// Depth for the depth test (bias included; W-buffer depth mapped).
    pub depth: f32,
    /// Interpolated z (table fog).
    pub fog_z: f32,
    /// 1 / rhw (table fog).
    pub w: f32,
    /// The primitive was counter-clockwise (two-sided stencil).
    pub ccw: bool,
}

/// Full-path fragment routine (monomorphised like `pixel::fragment`).
pub(crate) type FullFragFn =
    fn(&mut TileTarget<'_>, &DrawCtx, i32, i32, &FullInputs<'_>, &mut Stats);

/// Shades one fragment the full way — the stage cascade (with texture
/// sampling and colour key), specular add, fog — and hands it to
/// `pixel::fragment`. Shared by triangles, lines and points.
#[inline(always)]
pub(crate) fn fragment_full<
    const DEPTH: bool,
    const STENCIL: bool,
    const ATEST: bool,
    const BLEND: bool,
    R: Recorder,
>(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    px: i32,
    py: i32,
    f: &FullInputs<'_>,
    stats: &mut Stats,
) {
    let Some(sh) = d.shade.as_ref() else {
        return;
    };
    let (tc, der) = (f.tc, f.der);
    let rgba = |b: &[f32]| [b[2] / 255.0, b[1] / 255.0, b[0] / 255.0, b[3] / 255.0];
    let diffuse = rgba(&f.attr[0..4]).map(|x| x.clamp(0.0, 1.0));
    let specular = rgba(&f.attr[4..8]).map(|x| x.clamp(0.0, 1.0));
    let mut killed = false;
    let mut color = if sh.identity {
        diffuse
    } else {
        let inputs = CascadeInputs {
            diffuse,
            specular,
            texture_factor: sh.texture_factor,
        };
        run_cascade(&sh.stages, &inputs, |n, off| {
            let (Some(Some(tex)), Some(c), Some(sm), Some(dv)) = (
                sh.textures.get(n),
                tc.get(n),
                sh.samplers.get(n),
                der.get(n),
            ) else {
                return [0.0; 4];
            };
            match tex.kind() {
                TextureKind::Texture2D => {
                    let uv = [c[0] + off[0], c[1] + off[1]];
                    if sh.color_key != ColorKeyMode::Off && tex.color_key().is_some() {
                        sample_2d_keyed(tex, sm, uv, dv, sh.color_key).unwrap_or_else(|| {
                            killed = true;
                            [0.0; 4]
                        })
                    } else {
                        sample_2d(tex, sm, uv, dv)
                    }
                }
                TextureKind::Cube => sample_cube(tex, sm, [c[0], c[1], c[2]], dv),
                TextureKind::Volume => {
                    sample_volume(tex, sm, [c[0] + off[0], c[1] + off[1], c[2]], dv)
                }
            }
        })
    };
    if killed {
        crate::watch::discarded::<R>(d.probe, crate::watch::Outcome::ColorKey);
        return;
    }
    if sh.specular_add {
        color = crate::cascade::specular_add(color, specular);
    }
    if let Some(k) = sh.fog_factor(specular[3], f.fog_z, f.w) {
        color = crate::fog::apply_fog(color, sh.fog_state.color, k);
    }
    let c =
        [color[2], color[1], color[0], color[3]].map(|x| crate::int::channel_from_f32(x * 255.0));
    crate::pixel::fragment::<DEPTH, STENCIL, ATEST, BLEND, R>(
        t, d, px, py, c, f.depth, f.ccw, stats,
    );
}

/// Full-path span of row `py`, columns `x0..=x1`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn tri_span_full<
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
    planes: &[[f32; 3]],
    py: i32,
    x0: i32,
    x1: i32,
    stats: &mut Stats,
) {
    let (Some(sh), Some(e)) = (d.shade.as_ref(), extra) else {
        return;
    };
    if planes.len() < VARYING_PLANE + 4 * sh.sets {
        return;
    }
    let ccw = tri.flags & FLAG_CCW != 0;
    let bb = tri.bbox();
    let fy = (py - bb[1]) as f32;
    let zy = tri.z[2] * fy;
    let rhw = &e.rhw;
    let mut tc = [[0.0f32; 4]; MAX_STAGES];
    let mut der = [Derivatives::default(); MAX_STAGES];
    for px in x0..=x1 {
        let fx = (px - bb[0]) as f32;
        let r = at(rhw, fx, fy);
        let inv = 1.0 / r;
        let mut attr = [0.0f32; 8];
        for (a, p) in attr.iter_mut().zip(planes) {
            *a = at(p, fx, fy) * inv;
        }
        for s in 0..sh.sets {
            tc[s] = coords(sh, planes, rhw, s, fx, fy);
            if sh.lod[s] {
                // Coarse derivatives of the 2×2 quad holding the pixel.
                let qx = ((px & !1) - bb[0]) as f32;
                let qy = ((py & !1) - bb[1]) as f32;
                let c = |x: f32, y: f32| {
                    let v = coords(sh, planes, rhw, s, x, y);
                    [v[0], v[1], v[2]]
                };
                der[s] = Derivatives::from_quad([
                    c(qx, qy),
                    c(qx + 1.0, qy),
                    c(qx, qy + 1.0),
                    c(qx + 1.0, qy + 1.0),
                ]);
            }
        }
        let z = (tri.z[0] + tri.z[1] * fx) + zy;
        let depth = if DEPTH && d.w_buffer() {
            d.w_depth(inv) + e.bias
        } else {
            z
        };
        let f = FullInputs {
            attr,
            tc: &tc,
            der: &der,
            depth,
            fog_z: z,
            w: inv,
            ccw,
        };
        fragment_full::<DEPTH, STENCIL, ATEST, BLEND, R>(t, d, px, py, &f, stats);
    }
}

/// The full-path attributes of one vertex (see `prim::PointSetup::attrs`):
/// colours and `sets` generic varyings (of at most `K`).
pub(crate) fn vertex_attrs<const K: usize>(
    a: &[[f32; 4]],
    sets: usize,
) -> ([f32; 8], [[f32; 4]; K]) {
    let mut attr = [0.0f32; 8];
    if let (Some(d), Some(s)) = (a.first(), a.get(1)) {
        attr[..4].copy_from_slice(d);
        attr[4..].copy_from_slice(s);
    }
    let mut tc = [[0.0f32; 4]; K];
    for (o, v) in tc.iter_mut().zip(a.iter().skip(2)).take(sets) {
        *o = *v;
    }
    (attr, tc)
}

/// Projects the coordinates of the stages that request it.
fn project_sets(sh: &ShadeCtx<'_>, tc: &mut [[f32; 4]; MAX_STAGES]) {
    for (c, &n) in tc.iter_mut().zip(&sh.projected).take(sh.sets) {
        if n >= 2 {
            *c = crate::texgen::project(crate::texgen::TransformedTexCoords {
                v: *c,
                count: n,
                projected: true,
            });
        }
    }
}

/// The full path over the pixels `[x0, y0, x1, y1]` (inclusive, inside the
/// tile) of point `p`, whose attributes `attrs` come from its chunk.
/// Colours, depth and fog are the vertex's; texture coordinates are the
/// vertex's (no derivatives: the most detailed level) or, with
/// POINTSPRITEENABLE, (u, v, 0, 0) for every set with u = 0 → 1 left to
/// right and v = 0 → 1 top to bottom over the square (not transformed or
/// projected; derivatives from the 2×2 quad as for triangles).
pub(crate) fn point_full(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    p: &crate::prim::PointSetup,
    attrs: &[[f32; 4]],
    r: [i32; 4],
    stats: &mut Stats,
) {
    if let Some(ps) = d.pixel_shader {
        crate::pixel::shader::point(t, d, ps, p, attrs, r, stats);
        return;
    }
    let Some(sh) = d.shade.as_ref() else {
        return;
    };
    let (attr, mut tc) = vertex_attrs(attrs, sh.sets);
    let sprite = d.point_sprites();
    if !sprite {
        project_sets(sh, &mut tc);
    }
    let mut der = [Derivatives::default(); MAX_STAGES];
    let w = 1.0 / p.rhw;
    let depth = if d.w_buffer() { d.w_depth(w) } else { p.z };
    let sprite_at = |x: i32, y: i32| {
        crate::point::point_sprite_texcoord(x as f32, y as f32, p.center[0], p.center[1], p.size)
    };
    let lod = sh.lod.iter().take(sh.sets).any(|&x| x);
    let [x0, y0, x1, y1] = r;
    for py in y0..=y1 {
        for px in x0..=x1 {
            if sprite {
                let [u, v] = sprite_at(px, py);
                for c in tc.iter_mut().take(sh.sets) {
                    *c = [u, v, 0.0, 0.0];
                }
                if lod {
                    let (qx, qy) = (px & !1, py & !1);
                    let q = [
                        sprite_at(qx, qy),
                        sprite_at(qx + 1, qy),
                        sprite_at(qx, qy + 1),
                        sprite_at(qx + 1, qy + 1),
                    ]
                    .map(|c| [c[0], c[1], 0.0]);
                    for dv in der.iter_mut().take(sh.sets) {
                        *dv = Derivatives::from_quad(q);
                    }
                }
            }
            let f = FullInputs {
                attr,
                tc: &tc,
                der: &der,
                depth,
                fog_z: p.z,
                w,
                ccw: false,
            };
            (d.full_frag)(t, d, px, py, &f, stats);
        }
    }
}

/// The full path for pixel `(px, py)` of a line at parameter `tt` (0 at
/// the start, 1 at the end, along the major axis; `tt2`: the parameter one
/// pixel further along the major axis, for derivatives) whose end
/// attributes are `attrs`: perspective-correct interpolation through rhw.
#[allow(clippy::too_many_arguments)]
pub(crate) fn line_pixel_full(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    l: &crate::prim::LineSetup,
    attrs: &[[f32; 4]],
    x_major: bool,
    (px, py): (i32, i32),
    (tt, tt_quad): (f32, [f32; 2]),
    stats: &mut Stats,
) {
    if let Some(ps) = d.pixel_shader {
        crate::pixel::shader::line_pixel(t, d, ps, l, attrs, x_major, (px, py), tt_quad, stats);
        return;
    }
    let Some(sh) = d.shade.as_ref() else {
        return;
    };
    let per_end = 2 + sh.sets;
    let (a, b) = attrs.split_at(attrs.len().min(per_end));
    let ((ca, ta), (cb, tb)) = (
        vertex_attrs::<MAX_STAGES>(a, sh.sets),
        vertex_attrs::<MAX_STAGES>(b, sh.sets),
    );
    let (r0, r1) = (l.rhw[0], l.rhw[1]);
    let lerp = |x: f32, y: f32, t: f32, inv: f32| (x * r0 + (y * r1 - x * r0) * t) * inv;
    let r = r0 + (r1 - r0) * tt;
    let inv = 1.0 / r;
    let mut attr = [0.0f32; 8];
    for (k, o) in attr.iter_mut().enumerate() {
        *o = lerp(ca[k], cb[k], tt, inv);
    }
    let coords_at = |t: f32| {
        let inv = 1.0 / (r0 + (r1 - r0) * t);
        let mut tc = [[0.0f32; 4]; MAX_STAGES];
        for s in 0..sh.sets {
            for k in 0..4 {
                tc[s][k] = lerp(ta[s][k], tb[s][k], t, inv);
            }
        }
        project_sets(sh, &mut tc);
        tc
    };
    let tc = coords_at(tt);
    let mut der = [Derivatives::default(); MAX_STAGES];
    if sh.lod.iter().take(sh.sets).any(|&x| x) {
        // The quad's two pixels along the major axis; nothing changes
        // along the minor one.
        let (q0, q1) = (coords_at(tt_quad[0]), coords_at(tt_quad[1]));
        for s in 0..sh.sets {
            let (c0, c1) = (
                [q0[s][0], q0[s][1], q0[s][2]],
                [q1[s][0], q1[s][1], q1[s][2]],
            );
            der[s] = if x_major {
                Derivatives::from_quad([c0, c1, c0, c1])
            } else {
                Derivatives::from_quad([c0, c0, c1, c1])
            };
        }
    }
    let z = l.z[0] + (l.z[1] - l.z[0]) * tt;
    let depth = if d.w_buffer() { d.w_depth(inv) } else { z };
    let f = FullInputs {
        attr,
        tc: &tc,
        der: &der,
        depth,
        fog_z: z,
        w: inv,
        ccw: false,
    };
    (d.full_frag)(t, d, px, py, &f, stats);
}

/// Per-draw state of the textured fast path.
#[derive(Clone, Copy)]
pub(crate) struct TexFast<'a> {
    /// The texture's only level.
    level: simd::TexLevel<'a>,
    /// SRCALPHA/INVSRCALPHA blending.
    blend: bool,
}

impl<'a> TexFast<'a> {
    /// The fast path's state, if the draw qualifies (see module docs).
    pub(crate) fn new(
        sh: &ShadeCtx<'a>,
        state: &PipelineState,
        color_format: crate::Format,
        depth_test: bool,
        stencil: bool,
        alpha_test: bool,
    ) -> Option<Self> {
        let s0 = &sh.stages[0];
        let s1 = &sh.stages[1];
        let tex = sh.textures[0]?;
        let sm = &sh.samplers[0];
        let modulate = |op: TextureOp, a1: TextureArg, a2: TextureArg| {
            op == TextureOp::Modulate
                && matches!(
                    (a1, a2),
                    (
                        TextureArg::Texture,
                        TextureArg::Diffuse | TextureArg::Current
                    ) | (
                        TextureArg::Diffuse | TextureArg::Current,
                        TextureArg::Texture
                    )
                )
        };
        let plain = |a: crate::cascade::TextureArgument| !a.complement && !a.alpha_replicate;
        let b = &state.blend;
        let blend = if !b.enable {
            false
        } else if b.src == Blend::SrcAlpha
            && b.dst == Blend::InvSrcAlpha
            && b.op == BlendOp::Add
            && (!b.separate_alpha
                || (b.src_alpha == Blend::SrcAlpha
                    && b.dst_alpha == Blend::InvSrcAlpha
                    && b.op_alpha == BlendOp::Add))
            && color_format == crate::Format::A8R8G8B8
        {
            true
        } else {
            return None;
        };
        let ok = sh.identity_free()
            && sh.fog == FogSource::None
            && !sh.specular_add
            && !depth_test
            && !stencil
            && !alpha_test
            && matches!(
                color_format,
                crate::Format::A8R8G8B8 | crate::Format::X8R8G8B8
            )
            && state.blend.color_write_enable & 0xF == 0xF
            && modulate(s0.color_op, s0.color_arg1.source, s0.color_arg2.source)
            && modulate(s0.alpha_op, s0.alpha_arg1.source, s0.alpha_arg2.source)
            && [s0.color_arg1, s0.color_arg2, s0.alpha_arg1, s0.alpha_arg2]
                .into_iter()
                .all(plain)
            && s0.result == crate::cascade::ResultArg::Current
            && s1.color_op == TextureOp::Disable
            && sh.projected[0] == 0;
        if !ok {
            return None;
        }
        Some(TexFast {
            level: simd::TexLevel::new(filter8_level(tex, sm, sh.color_key)?),
            blend,
        })
    }
}

/// The level the 8-bit filter (`simd::tex_modulate`) samples for a
/// texture and sampler state it applies to, and how it samples it — the
/// one place that says which levels the filter takes: a 2D A8R8G8B8,
/// X8R8G8B8, R5G6B5, X1R5G5B5, A1R5G5B5 or A4R4G4B4 texture sampled at
/// its level 0 only (one level, or MIPFILTER NONE at base level 0), MAG
/// and MIN filter both LINEAR or both POINT (NONE samples as POINT),
/// ADDRESSU and ADDRESSV each WRAP, CLAMP or MIRROR, no colour key in
/// effect — else `None`. The fixed-function fast path and the 8-bit
/// cascade take every such level; pixel shaders' samples take the
/// bilinear WRAP 32-bit ones (`Level8::bilinear_wrap_argb`).
pub(crate) fn filter8_level<'a>(
    tex: &'a Texture,
    sm: &SamplerState,
    color_key: ColorKeyMode,
) -> Option<simd::Level8<'a>> {
    let point = |f: TextureFilter| matches!(f, TextureFilter::Point | TextureFilter::None);
    let filter_point =
        if sm.mag_filter == TextureFilter::Linear && sm.min_filter == TextureFilter::Linear {
            false
        } else if point(sm.mag_filter) && point(sm.min_filter) {
            true
        } else {
            return None;
        };
    let address = |a: TextureAddress| {
        matches!(
            a,
            TextureAddress::Wrap | TextureAddress::Clamp | TextureAddress::Mirror
        )
    };
    let ok = tex.kind() == TextureKind::Texture2D
        && matches!(
            tex.format(),
            TextureFormat::A8R8G8B8
                | TextureFormat::X8R8G8B8
                | TextureFormat::R5G6B5
                | TextureFormat::X1R5G5B5
                | TextureFormat::A1R5G5B5
                | TextureFormat::A4R4G4B4
        )
        && (tex.level_count() == 1 || sm.mip_filter == TextureFilter::None)
        && sm.base_level(tex.level_count(), tex.lod()) == 0
        && address(sm.address_u)
        && address(sm.address_v)
        && (color_key == ColorKeyMode::Off || tex.color_key().is_none());
    if !ok {
        return None;
    }
    Some(simd::Level8 {
        level: tex.level(0, 0)?,
        sampling: simd::Sampling8 {
            point: filter_point,
            address: [sm.address_u, sm.address_v],
        },
    })
}

impl ShadeCtx<'_> {
    /// True if the cascade is not the identity (the fast path replaces a
    /// real texture stage).
    fn identity_free(&self) -> bool {
        !self.identity
    }
}

/// The side record of an affine triangle (one rhw for the whole
/// triangle) and its 1 / rhw; `None` for a perspective triangle or one
/// without a side record. The span paths over `attr · rhw` planes
/// evaluate them affinely with this one divisor.
pub(crate) fn affine<'e>(
    tri: &TriSetup,
    extra: Option<&'e TriExtra>,
) -> Option<(&'e TriExtra, f32)> {
    let e = extra?;
    let affine = tri.flags & FLAG_PERSPECTIVE == 0 && e.rhw[1] == 0.0 && e.rhw[2] == 0.0;
    affine.then(|| (e, 1.0 / e.rhw[0]))
}

/// Runs the textured fast path over the spans of an affine triangle;
/// false (nothing drawn) if the triangle does not qualify.
#[allow(clippy::too_many_arguments)]
pub(crate) fn tex_fast_spans(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    tf: &TexFast<'_>,
    tri: &TriSetup,
    extra: Option<&TriExtra>,
    planes: &[[f32; 3]],
    spans: &[simd::Span],
    stats: &mut Stats,
) -> bool {
    let Some((_, inv)) = affine(tri, extra) else {
        return false;
    };
    let (Some(pu), Some(pv)) = (planes.get(VARYING_PLANE), planes.get(VARYING_PLANE + 1)) else {
        return false;
    };
    let bb = tri.bbox();
    let mut written = 0u64;
    for sp in spans {
        let n = sp.n as usize;
        let (dx, dy) = (sp.x - bb[0], sp.y - bb[1]);
        let fy = dy as f32;
        let start = crate::pixel::fixed_start(&tri.diffuse, dx, dy);
        let p = simd::TexSpan {
            u: [pu[0], pu[1], pu[2] * fy],
            v: [pv[0], pv[1], pv[2] * fy],
            inv,
            fx0: dx,
            start,
            step: tri.diffuse[1],
            and_mask: d.and_mask(),
            blend: tf.blend,
        };
        if let Some(row) = t.color_span(sp.y, sp.x, n, 4) {
            simd::tex_modulate_span(d.simd, row, &tf.level, &p);
            written += n as u64;
        }
    }
    stats.written += written;
    stats.passed += written;
    true
}
