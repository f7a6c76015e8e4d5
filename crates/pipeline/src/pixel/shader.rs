//! The pixel-shader implementation of the pixel program: ps_1_1–ps_3_0
//! run by `softhal_shader::exec` over 2×2 quads, then the output merger.
//!
//! *Input*: the covered pixels of a primitive inside one tile (a
//! triangle's spans, a line's pixels, a point's square), the full-path
//! planes or vertex attributes set-up made for them (diffuse, specular and
//! the draw's generic varyings, [`crate::varying`]), and the draw's
//! [`PixelShaderCtx`]. *Output*: fragments handed to the output merger
//! (`pixel::output::fragment`, through `DrawCtx::frag`).
//!
//! *Quads*: pixels are shaded in 2×2 quads aligned to even coordinates
//! (lane = x + 2y within the quad). A quad runs when at least one of its
//! pixels is covered; its uncovered pixels run as helper lanes with
//! inputs evaluated from the same planes, so that `dsx`/`dsy` and the
//! texture LOD come from real neighbours, and are never written. Tiles are
//! a multiple of 2 pixels, so a quad never straddles two tiles. A
//! triangle's covered quads inside a tile (quad row after quad row, left
//! to right) run [`WIDE_QUADS`] at a time when the register-plane
//! executor takes the program (`Program::run_quads`: lane = 4·quad + x +
//! 2y, each input component one plane evaluation for every lane, texture
//! samples for every lane through `Textures::sample_planes_wide`, the
//! 8-bit bilinear filter two quads a call), a shorter last group with its
//! other quads not run; each quad's results then go to the output merger
//! in the same order, with the bytes of one run per quad. Other programs
//! run one quad at a time (`Program::run_inputs`). A line
//! runs one quad per pixel (the quad's lanes along the major axis take the
//! line's parameters at those pixels, across it the same values); a point
//! runs the quads of its square.
//!
//! *Inputs*: ps_1_x–ps_2_x: `v0`/`v1` the interpolated diffuse and
//! specular colours clamped to [0, 1] (Gouraud or flat as set-up made
//! them), `t0..t7` the generic varyings 0..7 (the texture-coordinate
//! sets), perspective-correct; D3DTTFF_PROJECTED is handed to the
//! executor as the stages' `Textures::projection` (ps_1_1–1_3 `tex`,
//! `texbem`, `texbeml` divide by it; ps_1_4/2_x project with `texld`'s
//! `_dw`/`texldp` only). ps_3_0: each `dcl`'d input register linked once per draw
//! to the varying of its semantic (after fixed-function vertex
//! processing COLOR0/1 → the colours; nothing written → (0, 0, 0, 0);
//! `docs/shaders.md` §14), `vPos` = the pixel's integer (x, y) and
//! `vFace` = −1 for counter-clockwise, +1 for clockwise triangles, lines
//! and points. With POINTSPRITEENABLE every texture coordinate of a point
//! (ps_3_0: every TEXCOORD varying) is (u, v, 0, 0) of the sprite
//! (`crate::point::point_sprite_texcoord`).
//!
//! *Outputs*: `oC0` (`r0` for ps_1_x) saturated to [0, 1] is the colour
//! of render target 0; ps_2_0 and later write `oC1`–`oC3`, saturated, to
//! render targets 1–3 where one is bound and the shader has an instruction
//! writing that register (`pixel::output::write_target`: after target 0's
//! alpha test, stencil and depth test passed, with the draw's blend and the
//! target's own format and write mask, not fogged; `docs/shaders.md`
//! §13a). `oDepth`, when written, clamped to [0, 1] (NaN → 0)
//! replaces the interpolated depth for the depth test and write.
//! `texkill`ed lanes are not written. Fog (vertex or table, as the state
//! sets) is blended after the shader for ps_1_x–ps_2_x; ps_3_0 gets none.
//! A NaN colour channel is written as 0, ±∞ as 1 or 0 (the conversion to
//! 8 bits of `crate::int::channel_from_f32`); nothing panics.
//! A draw with no depth, stencil or alpha test, no blending, no fog and
//! one render target hands each quad's converted lanes to
//! `pixel::output::store_quad` at once instead of one fragment at a time
//! (same bytes and counts).
//!
//! *Samplers*: texture requests go to the stage's texture and D3DSAMP_*
//! state; a 2D A8R8G8B8/X8R8G8B8 level 0 sampled bilinearly with WRAP
//! (`crate::shade::filter8_level`, its bilinear WRAP 32-bit levels) takes the 8-bit filter of the
//! fixed-function fast path, everything else the float sampler
//! (`docs/shaders.md` §13).
//!
//! *Bounds*: one run is bounded by the executor
//! (`softhal_shader::exec::MAX_INSTRUCTIONS_EXECUTED`); the watchdog is
//! checked per tile as for every draw.

use softhal_shader::exec::{
    BoundConstants, BumpEnv, InputRegister, Inputs, Lanes, Mask, Program, Registers, SampleRequest,
    Textures, Vec4, WideFile, ALL_LANES, LANES,
};
use softhal_shader::ir::{RegisterType, Usage};

use super::{store_quad, write_target, ColorTarget, DrawCtx, Stats, TileTarget};
use crate::cascade::MAX_STAGES;
use crate::int::{channel_from_f32, usize_from_i32};
use crate::prim::{LineSetup, PointSetup, TriExtra, TriSetup, FLAG_CCW};
use crate::shade::filter8_level;
use crate::shade::{at, vertex_attrs, ShadeCtx};
use crate::simd::{bilinear8_planes, bilinear8_planes8, SimdLevel, Span};
use crate::texture::{sample_shader_lane, ColorKeyMode, LevelRef};
use crate::varying::{Semantic, Varyings, MAX_VARYINGS, VARYING_PLANE};

/// Input registers of ps_3_0 (`v0..v9`).
const PS3_INPUTS: usize = MAX_VARYINGS;

/// Where a ps_3_0 input register is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum InputSource {
    /// Not declared, or a semantic the vertex stage does not write:
    /// (0, 0, 0, 0).
    Zero,
    /// COLOR0 / COLOR1 when no generic varying carries it (fixed-function
    /// vertex processing): the diffuse (0) or specular (1) colour.
    Color(u8),
    /// The generic varying in this slot.
    Varying(u8),
}

/// A pixel shader bound to a draw: the program, its constants, and its
/// inputs linked to the draw's generic varyings.
#[derive(Clone, Copy)]
pub(crate) struct PixelShaderCtx<'a> {
    program: &'a Program,
    constants: &'a BoundConstants,
    /// ps_3_0: what each component of `v0..v9` reads.
    inputs: [[InputSource; 4]; PS3_INPUTS],
    /// ps_3_0 (declared inputs, no fog blend after the shader).
    ps3: bool,
    /// Generic varyings set-up interpolates (planes from
    /// [`VARYING_PLANE`] on).
    count: usize,
    /// Bit *s*: varying *s* is a TEXCOORD (point sprites replace it).
    sprite: u16,
    /// Render targets 1–3 the shader writes (`oC1`–`oC3`) and that are
    /// bound.
    targets: [Option<ColorTarget>; crate::limits::MAX_RENDER_TARGETS - 1],
}

impl<'a> PixelShaderCtx<'a> {
    /// The context of `program` running with `constants`, its inputs
    /// linked to the draw's `varyings`: ps_1_x–ps_2_x read `t#` = slot #
    /// (`varyings` is then the texture-coordinate layout) and `v0`/`v1` =
    /// the colours; ps_3_0 reads each declared input from the slot of
    /// its semantic, else (COLOR0/1) the vertex's colours, else 0 — per
    /// component: the components a declaration's mask names, in place
    /// (`dcl_texcoord0 v0.xy` + `dcl_texcoord1 v0.zw` pack two), the
    /// others 0.
    pub(crate) fn new(
        program: &'a Program,
        constants: &'a BoundConstants,
        varyings: &Varyings,
    ) -> Self {
        let ps3 = program.profile() == softhal_shader::Profile::Ps3_0;
        let mut inputs = [[InputSource::Zero; 4]; PS3_INPUTS];
        let mut declared = [0u8; PS3_INPUTS];
        if ps3 {
            for d in program.shader().shader().declarations() {
                if d.reg.ty != RegisterType::Input {
                    continue;
                }
                let r = usize::from(d.reg.index);
                let (Some(slot), Some(seen)) = (inputs.get_mut(r), declared.get_mut(r)) else {
                    continue;
                };
                let sem = Semantic {
                    usage: d.usage,
                    index: d.index,
                };
                let source = match varyings.slot_of(sem) {
                    Some(v) => InputSource::Varying(v as u8),
                    None if d.usage == Usage::Color && d.index < 2 => InputSource::Color(d.index),
                    None => InputSource::Zero,
                };
                for (c, comp) in slot.iter_mut().enumerate() {
                    // The first declaration of a component wins.
                    if d.write_mask & !*seen & (1 << c) != 0 {
                        *comp = source;
                    }
                }
                *seen |= d.write_mask;
            }
        }
        PixelShaderCtx {
            program,
            constants,
            inputs,
            ps3,
            count: varyings.count().min(MAX_VARYINGS),
            sprite: varyings.texcoord_mask(),
            targets: [None; crate::limits::MAX_RENDER_TARGETS - 1],
        }
    }

    /// Render targets 1–3 bound in `formats`, written with the channels
    /// of D3DRS_COLORWRITEENABLE1..3 `write_enable` where the shader
    /// (ps_2_0 and later) has an instruction writing `oC1`–`oC3`.
    pub(crate) fn with_targets(
        mut self,
        formats: &[Option<crate::format::Format>; crate::limits::MAX_RENDER_TARGETS - 1],
        write_enable: &[u32; crate::limits::MAX_RENDER_TARGETS - 1],
    ) -> Self {
        if self.program.profile().is_ps1() || formats.iter().all(Option::is_none) {
            return self;
        }
        let mut written = 0u32;
        for ins in &self.program.shader().shader().instructions {
            if let Some(d) = ins.dst() {
                if d.reg.ty == RegisterType::ColorOut {
                    written |= 1u32.checked_shl(u32::from(d.reg.index)).unwrap_or(0);
                }
            }
        }
        for (i, ((t, f), cwe)) in self
            .targets
            .iter_mut()
            .zip(formats)
            .zip(write_enable)
            .enumerate()
        {
            *t = f
                .filter(|_| written & (2 << i) != 0)
                .map(|f| ColorTarget::new(f, *cwe));
        }
        self
    }
}

/// The interpolated inputs of one lane.
#[derive(Clone, Copy, Default)]
struct LaneInputs {
    /// Diffuse and specular, RGBA in [0, 1].
    color: [Vec4; 2],
    /// The generic varyings (slots past the draw's count read 0).
    varyings: [Vec4; MAX_VARYINGS],
    /// Depth for the depth test (bias included; W-buffer depth mapped).
    depth: f32,
    /// Interpolated z (table fog).
    fog_z: f32,
    /// 1 / rhw (table fog).
    w: f32,
}

/// Where a quad is: its top-left pixel, its coverage, its facing.
#[derive(Clone, Copy, Default)]
struct QuadPos {
    x: i32,
    y: i32,
    /// Covered lanes (the others are helpers).
    covered: Mask,
    /// Counter-clockwise triangle (two-sided stencil, `vFace`).
    ccw: bool,
}

impl QuadPos {
    /// `vPos` (x, y, 0, 0) of the lanes (x + 2y).
    fn position(&self, out: &mut [[f32; LANES]; 4]) {
        out[0] = std::array::from_fn(|l| (self.x + (l & 1) as i32) as f32);
        out[1] = std::array::from_fn(|l| (self.y + (l >> 1) as i32) as f32);
        out[2] = [0.0; LANES];
        out[3] = [0.0; LANES];
    }

    /// `vFace`: −1 for counter-clockwise triangles, else +1.
    fn face(&self) -> f32 {
        if self.ccw {
            -1.0
        } else {
            1.0
        }
    }
}

/// What the output merger needs of a lane besides the shader's results.
struct MergeInputs {
    /// Depth for the depth test (bias included; W-buffer depth mapped).
    depth: f32,
    /// Interpolated z (table fog).
    fog_z: f32,
    /// 1 / rhw (table fog).
    w: f32,
}

/// What the output merger needs of the lanes of a run (one quad, or the
/// quads of a wide run: lane = 4·quad + x + 2y).
trait QuadInputs {
    /// The merger's inputs of lane `l`.
    fn merge(&self, l: usize) -> MergeInputs;
    /// The interpolated specular alpha of lane `l` in [0, 1] (vertex fog:
    /// asked only when fog is on).
    fn specular_alpha(&self, l: usize) -> f32;
}

/// Where each component of input register `reg` of a pixel shader bound
/// as `ps` comes from (`vPos` and `vFace` aside): ps_3_0 inputs as
/// linked, `v0`/`v1` the colours and `t#` generic varying # (the
/// texture-coordinate layout) below 3.0.
fn sources(ps: &PixelShaderCtx<'_>, reg: InputRegister) -> [InputSource; 4] {
    match reg {
        InputRegister::Input(i) if ps.ps3 => ps
            .inputs
            .get(usize::from(i))
            .copied()
            .unwrap_or([InputSource::Zero; 4]),
        InputRegister::Input(i) if i < 2 => [InputSource::Color(i as u8); 4],
        InputRegister::Texture(s) if !ps.ps3 && usize::from(s) < MAX_STAGES => {
            [InputSource::Varying(s as u8); 4]
        }
        _ => [InputSource::Zero; 4],
    }
}

/// The register `reg` of a pixel shader bound as `ps`, from per-lane
/// colours and varyings (`color(l, i)`, `varying(l, slot)`).
fn load_lanes(
    ps: &PixelShaderCtx<'_>,
    pos: &QuadPos,
    reg: InputRegister,
    color: impl Fn(usize, usize) -> Vec4,
    varying: impl Fn(usize, usize) -> Vec4,
    out: &mut [[f32; LANES]; 4],
) {
    match reg {
        InputRegister::Position => return pos.position(out),
        InputRegister::Face => {
            *out = [[pos.face(); LANES]; 4];
            return;
        }
        _ => {}
    }
    for (c, (plane, src)) in out.iter_mut().zip(sources(ps, reg)).enumerate() {
        *plane = std::array::from_fn(|l| match src {
            InputSource::Zero => 0.0,
            InputSource::Color(i) => color(l, usize::from(i & 1))[c],
            InputSource::Varying(s) => varying(l, usize::from(s) % MAX_VARYINGS)[c],
        });
    }
}

/// A quad whose lanes' inputs were evaluated one lane at a time (points,
/// lines).
struct LaneQuad<'c, 'a> {
    ps: &'c PixelShaderCtx<'a>,
    pos: QuadPos,
    lanes: [LaneInputs; LANES],
}

impl Inputs for LaneQuad<'_, '_> {
    fn load(&self, reg: InputRegister, out: &mut [[f32; LANES]; 4]) {
        let lanes = &self.lanes;
        load_lanes(
            self.ps,
            &self.pos,
            reg,
            |l, c| lanes[l].color[c],
            |l, s| lanes[l].varyings[s],
            out,
        );
    }
}

impl QuadInputs for LaneQuad<'_, '_> {
    fn merge(&self, l: usize) -> MergeInputs {
        let lane = &self.lanes[l];
        MergeInputs {
            depth: lane.depth,
            fog_z: lane.fog_z,
            w: lane.w,
        }
    }

    fn specular_alpha(&self, l: usize) -> f32 {
        self.lanes[l].color[1][3]
    }
}

/// What every quad of a triangle shares: the set-up planes it reads its
/// inputs from.
struct TriPlanes<'c, 'a> {
    ps: &'c PixelShaderCtx<'a>,
    d: &'c DrawCtx<'c>,
    /// The attribute planes: diffuse, specular (BGRA, 0..=255) from 0,
    /// the varyings from [`VARYING_PLANE`].
    planes: &'c [[f32; 3]],
    /// The 1/rhw plane.
    rhw: [f32; 3],
    /// Depth plane (z = `z[0] + z[1]·fx + z[2]·fy`).
    z: [f32; 3],
    /// Depth bias added to W-buffer depth.
    bias: f32,
    /// The triangle's reference pixel (its bounding box's top left).
    origin: [i32; 2],
    /// Counter-clockwise triangle (two-sided stencil, `vFace`).
    ccw: bool,
}

impl<'c, 'a> TriPlanes<'c, 'a> {
    /// The lanes of `quads` (at most [`WIDE_QUADS`], and at most `N / 4`;
    /// lane = 4·quad + x + 2y), their inputs evaluated from the planes.
    /// Lanes past the quads take the reference pixel: they run and mean
    /// nothing.
    fn lanes<'t, const N: usize>(&'t self, quads: &[QuadPos]) -> TriLanes<'t, 'c, 'a, N> {
        let mut fx = [0.0; N];
        let mut fy = [0.0; N];
        let mut pos = [QuadPos::default(); WIDE_QUADS];
        for (q, (p, at_q)) in quads.iter().zip(&mut pos).enumerate().take(N / 4) {
            *at_q = *p;
            for l in 0..LANES {
                if let (Some(x), Some(y)) = (fx.get_mut(4 * q + l), fy.get_mut(4 * q + l)) {
                    *x = (p.x + (l & 1) as i32 - self.origin[0]) as f32;
                    *y = (p.y + (l >> 1) as i32 - self.origin[1]) as f32;
                }
            }
        }
        let mut inv = [0.0; N];
        for ((i, x), y) in inv.iter_mut().zip(fx).zip(fy) {
            *i = 1.0 / at(&self.rhw, x, y);
        }
        TriLanes {
            tri: self,
            pos,
            fx,
            fy,
            inv,
        }
    }
}

/// `N` lanes of a triangle (one quad, or a wide run's quads): their
/// inputs evaluated from the set-up planes, one plane at a time for every
/// lane (`shade::at` at each lane, times 1/rhw).
struct TriLanes<'t, 'c, 'a, const N: usize> {
    tri: &'t TriPlanes<'c, 'a>,
    /// The quads (the first `N / 4`).
    pos: [QuadPos; WIDE_QUADS],
    /// Lanes' offsets from the triangle's reference pixel.
    fx: [f32; N],
    fy: [f32; N],
    /// Lanes' 1 / rhw.
    inv: [f32; N],
}

impl<const N: usize> TriLanes<'_, '_, '_, N> {
    /// Plane `p` (0 if absent) at the lanes, perspective-corrected.
    #[inline(always)]
    fn plane(&self, p: usize) -> [f32; N] {
        let mut out = [0.0; N];
        if let Some(p) = self.tri.planes.get(p) {
            for (((o, &x), &y), &inv) in out.iter_mut().zip(&self.fx).zip(&self.fy).zip(&self.inv) {
                *o = at(p, x, y) * inv;
            }
        }
        out
    }

    /// Plane `p` (0 if absent) at lane `l`, perspective-corrected.
    #[inline(always)]
    fn value(&self, p: usize, l: usize) -> f32 {
        match (
            self.tri.planes.get(p),
            self.fx.get(l),
            self.fy.get(l),
            self.inv.get(l),
        ) {
            (Some(p), Some(&x), Some(&y), Some(&inv)) => at(p, x, y) * inv,
            _ => 0.0,
        }
    }

    /// Set-up's plane of colour `c` (0 diffuse, 1 specular) component
    /// `k` (RGBA): set-up stores BGRA.
    #[inline(always)]
    fn color_plane(c: usize, k: usize) -> usize {
        4 * c + [2, 1, 0, 3][k & 3]
    }

    /// Colour `c` (0 diffuse, 1 specular) component `k` (RGBA) in [0, 1].
    #[inline(always)]
    fn color(&self, c: usize, k: usize) -> [f32; N] {
        self.plane(Self::color_plane(c, k))
            .map(|x| (x / 255.0).clamp(0.0, 1.0))
    }

    /// Input register `reg` of every lane (`out[c][l]`: component `c` of
    /// lane `l`).
    fn load_planes(&self, reg: InputRegister, out: &mut [[f32; N]; 4]) {
        match reg {
            InputRegister::Position => {
                // Each quad's `vPos`, in its four lanes.
                for (q, pos) in self.pos.iter().enumerate().take(N / 4) {
                    let mut quad = [[0.0; LANES]; 4];
                    pos.position(&mut quad);
                    for (o, v) in out.iter_mut().zip(quad) {
                        if let Some(o) = o.get_mut(4 * q..4 * q + 4) {
                            o.copy_from_slice(&v);
                        }
                    }
                }
                return;
            }
            InputRegister::Face => {
                *out = [[self.pos[0].face(); N]; 4];
                return;
            }
            _ => {}
        }
        let ps = self.tri.ps;
        for (c, (plane, src)) in out.iter_mut().zip(sources(ps, reg)).enumerate() {
            *plane = match src {
                InputSource::Zero => [0.0; N],
                InputSource::Color(i) => self.color(usize::from(i & 1), c),
                InputSource::Varying(s) if usize::from(s) < ps.count => {
                    self.plane(VARYING_PLANE + 4 * usize::from(s) + c)
                }
                InputSource::Varying(_) => [0.0; N],
            };
        }
    }
}

impl Inputs for TriLanes<'_, '_, '_, LANES> {
    fn load(&self, reg: InputRegister, out: &mut [[f32; LANES]; 4]) {
        self.load_planes(reg, out);
    }
}

impl<const N: usize> QuadInputs for TriLanes<'_, '_, '_, N> {
    fn merge(&self, l: usize) -> MergeInputs {
        let (fx, fy) = (self.fx.get(l).copied(), self.fy.get(l).copied());
        let (fx, fy, inv) = (
            fx.unwrap_or(0.0),
            fy.unwrap_or(0.0),
            self.inv.get(l).copied(),
        );
        let inv = inv.unwrap_or(1.0);
        let z = self.tri.z;
        let z = (z[0] + z[1] * fx) + z[2] * fy;
        let d = self.tri.d;
        MergeInputs {
            depth: if d.w_buffer() {
                d.w_depth(inv) + self.tri.bias
            } else {
                z
            },
            fog_z: z,
            w: inv,
        }
    }

    fn specular_alpha(&self, l: usize) -> f32 {
        (self.value(Self::color_plane(1, 3), l) / 255.0).clamp(0.0, 1.0)
    }
}

/// The diffuse (0..4) and specular (4..8) of set-up (BGRA, 0..=255) as
/// RGBA clamped to [0, 1].
fn colors(attr: &[f32; 8]) -> [Vec4; 2] {
    let rgba = |b: &[f32]| {
        [b[2] / 255.0, b[1] / 255.0, b[0] / 255.0, b[3] / 255.0].map(|x| x.clamp(0.0, 1.0))
    };
    [rgba(&attr[0..4]), rgba(&attr[4..8])]
}

/// The pipeline's samplers as the executor's texture unit: sampler `n`'s
/// texture and D3DSAMP_* state, derivatives from the request.
struct StageSamplers<'s, 'a> {
    shade: &'s ShadeCtx<'a>,
    simd: SimdLevel,
    /// Per sampler: the level the 8-bit bilinear filter samples, where it
    /// applies (`shade::filter8_level`, bilinear WRAP 32-bit), and the bits ORed into its
    /// texels (X8R8G8B8's alpha).
    bilinear8: [Option<(LevelRef<'a>, u32)>; crate::limits::PIXEL_SAMPLERS],
}

impl<'s, 'a> StageSamplers<'s, 'a> {
    /// The samplers of `shade`, filtering with the kernels of `simd`.
    fn new(shade: &'s ShadeCtx<'a>, simd: SimdLevel) -> Self {
        let bilinear8 = std::array::from_fn(|n| {
            let (tex, sm) = shade.sampler(n)?;
            let level = filter8_level(tex, sm, ColorKeyMode::Off)?;
            level
                .bilinear_wrap_argb()
                .then(|| (level.level, level.force()))
        });
        StageSamplers {
            shade,
            simd,
            bilinear8,
        }
    }
}

impl Textures for StageSamplers<'_, '_> {
    fn sample_planes(
        &self,
        sampler: u8,
        coords: &[[f32; LANES]; 4],
        _mask: Mask,
    ) -> Option<[[f32; LANES]; 4]> {
        // The 8-bit bilinear filter needs no level of detail (one level,
        // MAG = MIN).
        let (level, force) = self.bilinear8.get(usize::from(sampler))?.as_ref()?;
        Some(bilinear8_planes(
            self.simd, level, coords[0], coords[1], *force,
        ))
    }

    fn sample_planes_wide(
        &self,
        sampler: u8,
        coords: [&[f32]; 4],
        out: [&mut [f32]; 4],
        mask: u64,
    ) -> bool {
        let Some(Some((level, force))) = self.bilinear8.get(usize::from(sampler)) else {
            return false;
        };
        // Two quads a call of the 8-lane filter, a last odd quad through
        // the 4-lane one: the same bytes either way.
        let [o0, o1, o2, o3] = out;
        let mut out = [o0, o1, o2, o3].map(|o| o.chunks_mut(8));
        let (u, v) = (coords[0].chunks(8), coords[1].chunks(8));
        for (i, (u, v)) in u.zip(v).enumerate() {
            let dst = out.each_mut().map(|o| o.next());
            if mask.checked_shr(8 * i as u32).unwrap_or(0) & 0xFF == 0 {
                continue;
            }
            if let (Ok(u), Ok(v)) = (<[f32; 8]>::try_from(u), <[f32; 8]>::try_from(v)) {
                let r = bilinear8_planes8(self.simd, level, u, v, *force);
                put(dst, r);
            } else if let (Ok(u), Ok(v)) = (<[f32; 4]>::try_from(u), <[f32; 4]>::try_from(v)) {
                let r = bilinear8_planes(self.simd, level, u, v, *force);
                put(dst, r);
            } else {
                return false;
            }
        }
        true
    }

    fn sample(&self, r: &SampleRequest) -> Lanes {
        let mut out = [[0.0, 0.0, 0.0, 1.0]; LANES];
        if let Some(planes) = self.sample_planes(r.sampler, &transpose(&r.coords), r.mask) {
            for (lane, o) in out.iter_mut().enumerate() {
                if r.mask & (1 << lane) != 0 {
                    *o = std::array::from_fn(|k| planes[k][lane]);
                }
            }
            return out;
        }
        let Some((tex, sm)) = self.shade.sampler(usize::from(r.sampler)) else {
            return out;
        };
        for (lane, o) in out.iter_mut().enumerate() {
            if r.mask & (1 << lane) != 0 {
                *o = sample_shader_lane(tex, sm, r, lane);
            }
        }
        out
    }

    fn projection(&self, stage: u8) -> Option<usize> {
        self.shade.projection(usize::from(stage))
    }

    fn bump_env(&self, stage: u8) -> BumpEnv {
        self.shade
            .stage(usize::from(stage))
            .map_or_else(BumpEnv::default, |s| {
                let m = s.bump_env_mat;
                BumpEnv {
                    matrix: [m[0][0], m[0][1], m[1][0], m[1][1]],
                    lscale: s.bump_lscale,
                    loffset: s.bump_loffset,
                }
            })
    }
}

/// Channel planes `r` of `K` lanes into the chunks `dst` (a chunk of
/// another length is left as it is).
#[inline(always)]
fn put<const K: usize>(dst: [Option<&mut [f32]>; 4], r: [[f32; K]; 4]) {
    for (d, r) in dst.into_iter().zip(r) {
        if let Some(d) = d.and_then(|d| <&mut [f32; K]>::try_from(d).ok()) {
            *d = r;
        }
    }
}

/// Component planes of four lanes' vectors.
fn transpose(v: &[Vec4; LANES]) -> [[f32; LANES]; 4] {
    std::array::from_fn(|c| std::array::from_fn(|l| v[l][c]))
}

/// What a run gave one quad.
struct QuadResults<'r> {
    /// Render target 0's colour of each lane (`oC0`, or `r0` for ps_1_x;
    /// 0 where the shader does not write it).
    color: Lanes,
    /// Lanes `texkill` removed.
    killed: Mask,
    /// `oDepth` of each lane, when the shader writes it.
    depth: Option<[f32; LANES]>,
    /// Render target `i + 1`'s colour of lane `l` (`oC1`–`oC3`; asked only
    /// for a target [`PixelShaderCtx::with_targets`] bound).
    target: &'r dyn Fn(usize, usize) -> Vec4,
}

/// Runs the shader on one quad and hands its covered, not killed lanes
/// to the output merger.
#[allow(clippy::too_many_arguments)]
fn shade_quad<Q: QuadInputs + Inputs>(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    ps: &PixelShaderCtx<'_>,
    samplers: &StageSamplers<'_, '_>,
    regs: &mut Registers,
    q: &Q,
    pos: &QuadPos,
    stats: &mut Stats,
) {
    ps.program
        .run_inputs(regs, ps.constants, samplers, q, ALL_LANES);
    let profile = ps.program.profile();
    let color = regs.color(profile, 0).copied().unwrap_or([[0.0; 4]; LANES]);
    let target = |i: usize, l: usize| regs.color(profile, i + 1).map_or([0.0; 4], |o| o[l]);
    let res = QuadResults {
        color,
        killed: regs.killed,
        depth: regs.depth_written.then_some(regs.depth_out),
        target: &target,
    };
    merge_quad(t, d, ps, samplers.shade, q, 0, pos, &res, stats);
}

/// Hands the covered, not killed lanes of one quad's results `res` to
/// the output merger; `q`'s lanes `base..base + 4` are the quad's.
#[allow(clippy::too_many_arguments)]
fn merge_quad<Q: QuadInputs>(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    ps: &PixelShaderCtx<'_>,
    sh: &ShadeCtx<'_>,
    q: &Q,
    base: usize,
    pos: &QuadPos,
    res: &QuadResults<'_>,
    stats: &mut Stats,
) {
    let out = &res.color;
    let mrt = ps.targets.iter().any(Option::is_some);
    let to_bgra = |c: &Vec4| {
        let c = c.map(|x| x.clamp(0.0, 1.0));
        [c[2], c[1], c[0], c[3]].map(|x| channel_from_f32(x * 255.0))
    };
    if !mrt && d.plain_store() && (ps.ps3 || !sh.fog_on()) {
        // No fog, no test, no blend: the output merger is a store of the
        // converted lanes (depth and fog inputs unused).
        let bgra: [[i32; 4]; LANES] = std::array::from_fn(|l| to_bgra(&out[l]));
        store_quad(t, d, pos.x, pos.y, &bgra, pos.covered & !res.killed, stats);
        return;
    }
    for l in 0..LANES {
        let bit = 1 << l;
        if pos.covered & bit == 0 || res.killed & bit != 0 {
            continue;
        }
        let lane = q.merge(base + l);
        let mut c = out[l].map(|x| x.clamp(0.0, 1.0));
        if !ps.ps3 {
            let alpha = if sh.fog_on() {
                q.specular_alpha(base + l)
            } else {
                0.0
            };
            if let Some(k) = sh.fog_factor(alpha, lane.fog_z, lane.w) {
                c = crate::fog::apply_fog(c, sh.fog_color(), k);
            }
        }
        let bgra = [c[2], c[1], c[0], c[3]].map(|x| channel_from_f32(x * 255.0));
        let depth = match res.depth {
            Some(z) => {
                let z = z[l];
                if z.is_nan() {
                    0.0
                } else {
                    z.clamp(0.0, 1.0)
                }
            }
            None => lane.depth,
        };
        let (px, py) = (pos.x + (l & 1) as i32, pos.y + (l >> 1) as i32);
        let passed = stats.passed;
        (d.frag)(t, d, px, py, bgra, depth, pos.ccw, stats);
        // The output merger counts a fragment in `passed` exactly when it
        // passed the alpha test (by oC0), stencil and depth: then render
        // targets 1–3 are written too.
        if mrt && stats.passed != passed {
            for (i, ct) in ps.targets.iter().enumerate() {
                if let Some(ct) = ct {
                    write_target(t, d, i, ct, px, py, to_bgra(&(res.target)(i, l)));
                }
            }
        }
    }
}

/// Runs the shader over the quads of `group` at once (one wide run of
/// [`WIDE`] lanes) and hands each quad's covered, not killed lanes to the
/// output merger, quad after quad.
#[allow(clippy::too_many_arguments)]
fn shade_group(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    ps: &PixelShaderCtx<'_>,
    samplers: &StageSamplers<'_, '_>,
    file: &mut WideFile<WIDE>,
    tri: &TriPlanes<'_, '_>,
    group: &[QuadPos],
    stats: &mut Stats,
) {
    let lanes = tri.lanes::<WIDE>(group);
    let quads = (1u64 << group.len().min(WIDE_QUADS)) - 1;
    let mut input = |reg, out: &mut [[f32; WIDE]; 4]| lanes.load_planes(reg, out);
    let program = ps.program;
    if program
        .run_quads(file, ps.constants, samplers, quads, &mut input)
        .is_none()
    {
        return;
    }
    let colors: [Option<&[[f32; WIDE]; 4]>; crate::limits::MAX_RENDER_TARGETS] =
        std::array::from_fn(|i| program.wide_output(file, RegisterType::ColorOut, i as u16));
    let depth = program.wide_depth(file);
    // Lane `l` of quad `q` of colour planes `p`.
    let lane = |p: Option<&[[f32; WIDE]; 4]>, q: usize, l: usize| -> Vec4 {
        // By reference: `p.map` copied the four planes for every lane.
        p.map_or([0.0; 4], |p| {
            p.each_ref()
                .map(|c| c.get(4 * q + l).copied().unwrap_or(0.0))
        })
    };
    for (q, pos) in group.iter().enumerate().take(WIDE_QUADS) {
        let target = |i: usize, l: usize| lane(colors.get(i + 1).copied().flatten(), q, l);
        let res = QuadResults {
            color: std::array::from_fn(|l| lane(colors[0], q, l)),
            killed: (file.killed() >> (4 * q)) as Mask & ALL_LANES,
            depth: depth.map(|z| std::array::from_fn(|l| z.get(4 * q + l).copied().unwrap_or(0.0))),
            target: &target,
        };
        merge_quad(t, d, ps, samplers.shade, &lanes, 4 * q, pos, &res, stats);
    }
}

thread_local! {
    /// The registers the quads of this thread's last primitive used:
    /// reused by the next one, so that shading a primitive allocates
    /// nothing and keeps its constants loaded (`Registers::reset`).
    static SCRATCH: std::cell::Cell<Option<Registers>> = const { std::cell::Cell::new(None) };
}

/// Registers for `program`, the thread's scratch ones when it has them
/// (reset only when they have another program's sizes: every quad feeds
/// all its inputs through `Program::run_inputs`, and a run clears what it
/// writes); hand them back with [`return_registers`].
fn scratch_registers(program: &Program) -> Registers {
    match SCRATCH.with(std::cell::Cell::take) {
        Some(mut regs) => {
            if !regs.sized_for(program) {
                regs.reset(program);
            }
            regs
        }
        None => Registers::new(program),
    }
}

/// Keeps `regs` for the thread's next primitive.
fn return_registers(regs: Registers) {
    SCRATCH.with(|c| c.set(Some(regs)));
}

/// Quads per wide run (`Program::run_quads`).
const WIDE_QUADS: usize = 4;

/// Lanes per wide run.
const WIDE: usize = 4 * WIDE_QUADS;

thread_local! {
    /// The wide register planes of this thread's last primitive: reused
    /// by the next one (no allocation, constants kept loaded).
    static WIDE_SCRATCH: std::cell::Cell<Option<WideFile<WIDE>>> =
        const { std::cell::Cell::new(None) };
}

/// Rows of a tile (the band height).
const TILE_ROWS: usize = crate::limits::TILE_SIZE as usize;

/// The spans of triangle `tri` in one tile, shaded in quads.
#[allow(clippy::too_many_arguments)]
pub(crate) fn tri_spans(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    ps: &PixelShaderCtx<'_>,
    tri: &TriSetup,
    extra: Option<&TriExtra>,
    planes: &[[f32; 3]],
    spans: &[Span],
    stats: &mut Stats,
) {
    let (Some(sh), Some(e)) = (d.shade.as_ref(), extra) else {
        return;
    };
    let count = ps.count;
    if planes.len() < VARYING_PLANE + 4 * count {
        return;
    }
    // Each row of the band: its covered columns (first, last), if any.
    let mut rows = [None::<(i32, i32)>; TILE_ROWS];
    for sp in spans {
        let n = i32::try_from(sp.n).unwrap_or(i32::MAX).max(1);
        if let Some(r) = rows.get_mut(usize_from_i32(sp.y - t.y0)) {
            *r = Some((sp.x, sp.x.saturating_add(n - 1)));
        }
    }
    let bb = tri.bbox();
    let tri = TriPlanes {
        ps,
        d,
        planes,
        rhw: e.rhw,
        z: tri.z,
        bias: e.bias,
        origin: [bb[0], bb[1]],
        ccw: tri.flags & FLAG_CCW != 0,
    };
    let samplers = StageSamplers::new(sh, d.simd);
    if ps.program.runs_quads() {
        // Up to WIDE_QUADS covered quads a run, in the order they come.
        let mut file = WIDE_SCRATCH.with(std::cell::Cell::take).unwrap_or_default();
        let mut group = [QuadPos::default(); WIDE_QUADS];
        let mut n = 0;
        covered_quads(&rows, t.y0, tri.ccw, |pos| {
            if let Some(g) = group.get_mut(n) {
                *g = pos;
                n += 1;
            }
            if n == WIDE_QUADS {
                shade_group(t, d, ps, &samplers, &mut file, &tri, &group, stats);
                n = 0;
            }
        });
        if n > 0 {
            let group = group.get(..n).unwrap_or_default();
            shade_group(t, d, ps, &samplers, &mut file, &tri, group, stats);
        }
        WIDE_SCRATCH.with(|c| c.set(Some(file)));
        return;
    }
    let mut regs = scratch_registers(ps.program);
    covered_quads(&rows, t.y0, tri.ccw, |pos| {
        let q = tri.lanes::<LANES>(&[pos]);
        shade_quad(t, d, ps, &samplers, &mut regs, &q, &pos, stats);
    });
    return_registers(regs);
}

/// Calls `f` with every quad of the band `rows` (each row's covered
/// columns, the band's first row at `y0`) that has a covered pixel, quad
/// row after quad row, left to right.
fn covered_quads(
    rows: &[Option<(i32, i32)>; TILE_ROWS],
    y0: i32,
    ccw: bool,
    mut f: impl FnMut(QuadPos),
) {
    for r in (0..TILE_ROWS).step_by(2) {
        let pair = [rows[r], rows.get(r + 1).copied().flatten()];
        let (Some(x0), Some(x1)) = (
            pair.iter().flatten().map(|s| s.0).min(),
            pair.iter().flatten().map(|s| s.1).max(),
        ) else {
            continue;
        };
        let qy = y0 + r as i32;
        let mut qx = x0 & !1;
        while qx <= x1 {
            let mut covered: Mask = 0;
            for (l, bit) in [(0usize, 1u8), (1, 2), (2, 4), (3, 8)] {
                let (x, row) = (qx + (l & 1) as i32, pair[l >> 1]);
                if row.is_some_and(|(a, b)| a <= x && x <= b) {
                    covered |= bit;
                }
            }
            if covered != 0 {
                f(QuadPos {
                    x: qx,
                    y: qy,
                    covered,
                    ccw,
                });
            }
            qx += 2;
        }
    }
}

/// The pixels `[x0, y0, x1, y1]` (inclusive, inside the tile) of point
/// `p`, whose attributes `attrs` come from its chunk, shaded in quads.
pub(crate) fn point(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    ps: &PixelShaderCtx<'_>,
    p: &PointSetup,
    attrs: &[[f32; 4]],
    r: [i32; 4],
    stats: &mut Stats,
) {
    let Some(sh) = d.shade.as_ref() else {
        return;
    };
    let (attr, varyings) = vertex_attrs(attrs, ps.count);
    let w = 1.0 / p.rhw;
    let base = LaneInputs {
        color: colors(&attr),
        varyings,
        depth: if d.w_buffer() { d.w_depth(w) } else { p.z },
        fog_z: p.z,
        w,
    };
    let sprite = d.point_sprites();
    let lane_at = |x: i32, y: i32| {
        let mut li = base;
        if sprite {
            let [u, v] = crate::point::point_sprite_texcoord(
                x as f32,
                y as f32,
                p.center[0],
                p.center[1],
                p.size,
            );
            for (s, v4) in li.varyings.iter_mut().enumerate() {
                if ps.sprite & (1 << s) != 0 {
                    *v4 = [u, v, 0.0, 0.0];
                }
            }
        }
        li
    };
    let [x0, y0, x1, y1] = r;
    let inside = |x: i32, y: i32| x0 <= x && x <= x1 && y0 <= y && y <= y1;
    let samplers = StageSamplers::new(sh, d.simd);
    let mut regs = scratch_registers(ps.program);
    let mut qy = y0 & !1;
    while qy <= y1 {
        let mut qx = x0 & !1;
        while qx <= x1 {
            let mut covered: Mask = 0;
            for l in 0..LANES {
                if inside(qx + (l & 1) as i32, qy + (l >> 1) as i32) {
                    covered |= 1 << l;
                }
            }
            let q = LaneQuad {
                ps,
                pos: QuadPos {
                    x: qx,
                    y: qy,
                    covered,
                    ccw: false,
                },
                lanes: std::array::from_fn(|l| lane_at(qx + (l & 1) as i32, qy + (l >> 1) as i32)),
            };
            shade_quad(t, d, ps, &samplers, &mut regs, &q, &q.pos, stats);
            qx += 2;
        }
        qy += 2;
    }
    return_registers(regs);
}

/// Pixel `(px, py)` of line `l` (end attributes `attrs`; `tt_quad`: the
/// line's parameter at the two pixels of the pixel's quad along the major
/// axis), shaded as the one covered lane of its quad.
#[allow(clippy::too_many_arguments)]
pub(crate) fn line_pixel(
    t: &mut TileTarget<'_>,
    d: &DrawCtx,
    ps: &PixelShaderCtx<'_>,
    l: &LineSetup,
    attrs: &[[f32; 4]],
    x_major: bool,
    (px, py): (i32, i32),
    tt_quad: [f32; 2],
    stats: &mut Stats,
) {
    let Some(sh) = d.shade.as_ref() else {
        return;
    };
    let per_end = 2 + ps.count;
    let (a, b) = attrs.split_at(attrs.len().min(per_end));
    let ((ca, ta), (cb, tb)): (([f32; 8], [Vec4; MAX_VARYINGS]), _) = (
        vertex_attrs::<MAX_VARYINGS>(a, ps.count),
        vertex_attrs::<MAX_VARYINGS>(b, ps.count),
    );
    let (r0, r1) = (l.rhw[0], l.rhw[1]);
    let at_param = |tt: f32| {
        let inv = 1.0 / (r0 + (r1 - r0) * tt);
        let lerp = |x: f32, y: f32| (x * r0 + (y * r1 - x * r0) * tt) * inv;
        let attr: [f32; 8] = std::array::from_fn(|k| lerp(ca[k], cb[k]));
        let varyings = std::array::from_fn(|s| std::array::from_fn(|k| lerp(ta[s][k], tb[s][k])));
        let z = l.z[0] + (l.z[1] - l.z[0]) * tt;
        LaneInputs {
            color: colors(&attr),
            varyings,
            depth: if d.w_buffer() { d.w_depth(inv) } else { z },
            fog_z: z,
            w: inv,
        }
    };
    let quad = [at_param(tt_quad[0]), at_param(tt_quad[1])];
    let (qx, qy) = (px & !1, py & !1);
    let own = ((px & 1) + 2 * (py & 1)) as usize;
    let q = LaneQuad {
        ps,
        pos: QuadPos {
            x: qx,
            y: qy,
            covered: 1 << own,
            ccw: false,
        },
        lanes: std::array::from_fn(|lane| {
            // The lane's offset along the major axis picks its parameter.
            let major = if x_major { lane & 1 } else { lane >> 1 };
            quad[major]
        }),
    };
    let samplers = StageSamplers::new(sh, d.simd);
    let mut regs = scratch_registers(ps.program);
    shade_quad(t, d, ps, &samplers, &mut regs, &q, &q.pos, stats);
    return_registers(regs);
}
