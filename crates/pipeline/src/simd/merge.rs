//! The output merger over 8 lanes: alpha test → stencil test → depth test
//! and write → stencil operation → alpha blend → colour write mask →
//! write, for 8 fragments of one row at once, written once over the
//! vector layer ([`super::wide`]).
//!
//! *Input*: the draw's output-merger state, resolved once per draw into a
//! [`Merge8`] (`None` for what it does not cover); per call, 32-byte
//! windows of the colour and depth rows starting at the first fragment,
//! the number of fragments (≤ 8), their colours (packed BGRA8, one pixel
//! per `I32x8` lane, already shaded and fogged), a live-lane mask and
//! their depths (`F32x8`, bias included, unclamped), and (per call of
//! [`Merge8::run_facing`]) whether their triangle is counter-clockwise.
//! *Output*: the colour and depth bytes of the live fragments that pass
//! updated, the stencil bits of those that reach the stencil test (pass
//! the alpha test) updated by the operation of their outcome (fail,
//! z-fail, pass), every other byte stored back unchanged, and the number
//! that passed the alpha, stencil and depth tests (both the `written`
//! and the `passed` count of `pixel::Stats`, as `fragment` counts them:
//! a fragment failing the stencil or depth test, whose stencil may still
//! change, counts in neither).
//!
//! *Covers*: ALPHATESTENABLE with every ALPHAFUNC; a Z-buffer test with
//! every ZFUNC and optional write on D24S8/D24X8/D24X4S4 (depth in bits
//! 31..8, the low byte kept) and D16/D16_LOCKABLE; STENCILENABLE on
//! D24S8 and D24X4S4 (with or without a depth test) with every
//! STENCILFUNC, STENCILREF, STENCILMASK, STENCILWRITEMASK, every
//! STENCILOP for fail, z-fail and pass, and two-sided stencil
//! (TWOSIDEDSTENCILMODE, the CCW_* states for counter-clockwise
//! triangles; the face chosen per call); blending with BLENDOP
//! ADD/SUBTRACT/REVSUBTRACT/MIN/MAX and the factors ZERO, ONE,
//! SRC/INVSRC COLOR, SRC/INVSRC ALPHA, DEST/INVDEST ALPHA, DEST/INVDEST
//! COLOR, BLENDFACTOR/INVBLENDFACTOR (BOTHSRCALPHA and BOTHINVSRCALPHA
//! resolved by the caller), with a separate alpha equation;
//! COLORWRITEENABLE; targets A8R8G8B8, X8R8G8B8, R5G6B5, X1R5G5B5,
//! A1R5G5B5. Not covered (`Merge8::new` gives `None`, the scalar merger
//! `pixel::output::fragment` stays): W-buffering, other depth or target
//! formats (a stencil on D15S1 included), SRCALPHASAT, the pixel watch.
//!
//! *Guarantees*: bit-identical to `pixel::output::fragment` for what it
//! covers, at every level (the proptest below compares both over random
//! states, stencil states included, colours, depths, windings and
//! destination bytes): the depth quantisation
//! is `depth24`'s, the blend rounding `blend`'s, the 16-bit encodings
//! `Format::encode_argb`/`decode_argb`'s (tested over every 16-bit
//! value).
//!
//! *Shape*: the structural choices (depth format, depth-stencil or stencil
//! only, target format, blend on / ADD only / general) are const
//! parameters of [`MergeLanes`], chosen once per call by
//! [`Merge8::run_facing`] (which also picks the stencil face); the functions and factors are lane
//! masks and each stencil operation one formula with per-draw constants
//! ([`StencilOp8`]), so a draw's state costs no branch per fragment. A
//! kernel generic over `S: Simd` reaches the merger through [`MergeUser`]: it is
//! handed a [`MergeLanes`] and calls [`MergeLanes::merge`] with its lanes,
//! or [`MergeLanes::merge_at`] with a position in the band (the span loop
//! of untextured affine triangles, [`merge_spans`], which adds the
//! specular colour or fogs ([`MergeFog`]: vertex fog or table fog of z,
//! the 8-bit cascade's pixels with no stage), and the 8-bit
//! texture-stage cascade, `simd::cascade8`, are its users; both take the
//! depths from [`plane_z`]).
#![forbid(unsafe_code)]
use super::blend::factor;
use super::cascade8::table_fog8;
use super::depth24::{quantize, FogLanes};
use super::div255_u16;
use super::wide::{F32x8, I32x8, Kernel, M32x8, Simd};
use super::{BandRows, SimdLevel, Span};
use crate::cascade8::{FogByteTable, TableFog};
use crate::format::Format;
use crate::state::{Blend, BlendOp, CmpFunc, StencilFace, StencilOp};

/// Depth codes: the `DEPTH` parameter of [`MergeLanes`].
pub(crate) mod depth {
    /// No depth test.
    pub const NONE: u8 = 0;
    /// 24-bit depth in bits 31..8 of 32 (D24S8, D24X8, D24X4S4).
    pub const D24: u8 = 1;
    /// 16-bit depth (D16, D16_LOCKABLE).
    pub const D16: u8 = 2;
    /// 24-bit depth in bits 31..8 with the stencil test and operations
    /// on the stencil bits below it (D24S8, D24X4S4).
    pub const D24S: u8 = 3;
    /// The stencil test and operations of [`D24S`] without a depth test
    /// (ZENABLE off): every depth passes and no depth is written, so the
    /// fragments' depths are not read.
    pub const S8: u8 = 4;
}

/// Target codes: the `FMT` parameter of [`MergeLanes`].
pub(crate) mod target {
    /// A8R8G8B8 or X8R8G8B8 (the X byte by masks).
    pub const ARGB32: u8 = 0;
    /// R5G6B5.
    pub const R5G6B5: u8 = 1;
    /// X1R5G5B5.
    pub const X1R5G5B5: u8 = 2;
    /// A1R5G5B5.
    pub const A1R5G5B5: u8 = 3;
}

/// Blend codes: the `BLEND` parameter of [`MergeLanes`].
pub(crate) mod blend {
    /// The source is written.
    pub const OFF: u8 = 0;
    /// BLENDOP ADD on every channel.
    pub const ADD: u8 = 1;
    /// Any covered operations (per channel).
    pub const ANY: u8 = 2;
    /// BLENDOP ADD with SRCALPHA and INVSRCALPHA on every channel (the
    /// transparency of every game): `super::blend`'s kernel of that pair,
    /// its factors constants (A8R8G8B8/X8R8G8B8 and R5G6B5 targets; the
    /// others blend it as [`ADD`]).
    pub const SRC_ALPHA: u8 = 3;
}

/// Resolved blending state (factor pairs resolved, the alpha channel's
/// own or the colour ones): what the output merger blends with, both this
/// vector merger and `pixel::output`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BlendCtx {
    /// SRCBLEND, DESTBLEND, BLENDOP of the colour channels.
    pub src: Blend,
    /// DESTBLEND.
    pub dst: Blend,
    /// BLENDOP.
    pub op: BlendOp,
    /// The alpha channel's (the colour ones when not separate).
    pub src_a: Blend,
    /// DESTBLENDALPHA.
    pub dst_a: Blend,
    /// BLENDOPALPHA.
    pub op_a: BlendOp,
    /// BLENDFACTOR, BGRA, 0..=255.
    pub factor: [i32; 4],
}

/// The terms of one blend factor per channel of a widened pixel: u16
/// lane masks (0xFFFF or 0) as the two i32 lanes `[B | G << 16, R | A <<
/// 16]`; the factor is `((s & src) | (sA & src_alpha) | (d & dst) | (dA &
/// dst_alpha) | konst) ^ inv`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct FactorTerms {
    src: [i32; 2],
    src_alpha: [i32; 2],
    dst: [i32; 2],
    dst_alpha: [i32; 2],
    konst: [i32; 2],
    inv: [i32; 2],
}

/// Sets u16 lane `ch` (0 B, 1 G, 2 R, 3 A) of a widened-pixel pattern.
fn set_u16(p: &mut [i32; 2], ch: usize, v: i32) {
    let (lane, shift) = (ch / 2, 16 * (ch % 2));
    if let Some(l) = p.get_mut(lane) {
        *l = ((*l as u32 & !(0xFFFF << shift)) | (((v as u32) & 0xFFFF) << shift)) as i32;
    }
}

impl FactorTerms {
    /// Adds factor `f` of channel `ch` (`k`: BLENDFACTOR); `None` if the
    /// merger has no term for it.
    fn set(&mut self, f: Blend, ch: usize, k: i32) -> Option<()> {
        use Blend as B;
        // The term the factor reads, the value of its lane, and whether
        // it is the inverse (`255 − x`, applied as `^ 255`).
        let (term, value, inverse) = match f {
            B::Zero => return Some(()),
            B::One => (&mut self.konst, 255, false),
            B::SrcColor | B::InvSrcColor => (&mut self.src, 0xFFFF, f == B::InvSrcColor),
            B::SrcAlpha | B::InvSrcAlpha => (&mut self.src_alpha, 0xFFFF, f == B::InvSrcAlpha),
            B::DestAlpha | B::InvDestAlpha => (&mut self.dst_alpha, 0xFFFF, f == B::InvDestAlpha),
            B::DestColor | B::InvDestColor => (&mut self.dst, 0xFFFF, f == B::InvDestColor),
            B::BlendFactor | B::InvBlendFactor => {
                (&mut self.konst, k & 0xFF, f == B::InvBlendFactor)
            }
            _ => return None,
        };
        set_u16(term, ch, value);
        if inverse {
            set_u16(&mut self.inv, ch, 255);
        }
        Some(())
    }
}

/// A draw's stencil state as the merger takes it: the depth-stencil
/// format, the faces of clockwise and counter-clockwise triangles (the
/// same face without D3DRS_TWOSIDEDSTENCILMODE), STENCILREF, STENCILMASK,
/// STENCILWRITEMASK.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StencilTest {
    pub format: Format,
    pub front: StencilFace,
    pub ccw: StencilFace,
    pub reference: u32,
    pub mask: u32,
    pub write_mask: u32,
}

/// A stencil operation as `min(max(((s & and) ^ xor) + add, lo), hi) &
/// max` of a stored value `s` (`max` the stencil bits' all-ones value):
/// `StencilOp::apply`'s result for every `s` in `0..=max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StencilOp8 {
    and: i32,
    xor: i32,
    add: i32,
    lo: i32,
    hi: i32,
}

impl StencilOp8 {
    /// `op` with reference `r` (already ANDed with `max`).
    fn new(op: StencilOp, r: i32, max: i32) -> Self {
        let (lo, hi) = (i32::MIN, i32::MAX);
        let (and, xor, add, lo, hi) = match op {
            StencilOp::Keep => (-1, 0, 0, lo, hi),
            StencilOp::Zero => (0, 0, 0, lo, hi),
            StencilOp::Replace => (0, 0, r, lo, hi),
            StencilOp::IncrSat => (-1, 0, 1, lo, max),
            StencilOp::DecrSat => (-1, 0, -1, 0, hi),
            StencilOp::Invert => (-1, max, 0, lo, hi),
            // Wrapping: `& max` after the sum.
            StencilOp::Incr => (-1, 0, 1, lo, hi),
            StencilOp::Decr => (-1, 0, -1, lo, hi),
        };
        StencilOp8 {
            and,
            xor,
            add,
            lo,
            hi,
        }
    }
}

/// One face's stencil: STENCILFUNC's outcomes and the operations on
/// stencil fail, depth fail, pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StencilFace8 {
    func: [i32; 3],
    ops: [StencilOp8; 3],
}

/// A comparison function as its three outcomes: lanes where `new <
/// reference`, `==`, `>` pass (each −1 or 0).
fn outcomes(f: CmpFunc) -> [i32; 3] {
    let (lt, eq, gt) = match f {
        CmpFunc::Never => (false, false, false),
        CmpFunc::Less => (true, false, false),
        CmpFunc::Equal => (false, true, false),
        CmpFunc::LessEqual => (true, true, false),
        CmpFunc::Greater => (false, false, true),
        CmpFunc::NotEqual => (true, false, true),
        CmpFunc::GreaterEqual => (false, true, true),
        CmpFunc::Always => (true, true, true),
    };
    [-i32::from(lt), -i32::from(eq), -i32::from(gt)]
}

/// The output-merger state of a draw, resolved once (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Merge8 {
    depth: u8,
    target: u8,
    blend: u8,
    /// ALPHAFUNC's outcomes (every one when the test is off), ALPHAREF.
    alpha: [i32; 3],
    alpha_ref: i32,
    /// ZFUNC's outcomes, ZWRITEENABLE (−1 or 0).
    z: [i32; 3],
    z_write: i32,
    src: FactorTerms,
    dst: FactorTerms,
    /// Per u16 lane of a widened pixel: ADD, SUBTRACT, REVSUBTRACT.
    op_add: [i32; 2],
    op_sub: [i32; 2],
    op_rsub: [i32; 2],
    /// Per byte of a packed BGRA pixel: the factors' result, MIN, MAX.
    byte_factors: i32,
    byte_min: i32,
    byte_max: i32,
    /// OR-ed into a decoded 32-bit destination (X8R8G8B8's alpha reads
    /// 255), AND-ed into an encoded one (its X byte is written 0).
    dst_or: i32,
    enc_and: i32,
    /// The colour write mask of the encoded pixel.
    write_mask: i32,
    /// With [`depth::D24S`] and [`depth::S8`]: the clockwise and
    /// counter-clockwise faces, STENCILREF & max & STENCILMASK,
    /// STENCILMASK, STENCILWRITEMASK & max, and max (the stencil bits'
    /// all-ones value).
    faces: [StencilFace8; 2],
    s_ref: i32,
    s_mask: i32,
    s_write: i32,
    s_max: i32,
}

impl Merge8 {
    /// The merger of a draw into `color_format` with `write_mask` (the
    /// encoded pixel's bits written: `Format::write_mask`, or every byte
    /// of the pixel), a depth test `(format, ZFUNC, ZWRITEENABLE)`, an
    /// alpha test `(ALPHAFUNC, ALPHAREF)`, blending, a stencil test on a
    /// format with stencil bits; `None` when any of them is outside what
    /// it covers (W-buffering is the caller's to exclude).
    pub(crate) fn new(
        color_format: Format,
        write_mask: u32,
        depth_test: Option<(Format, CmpFunc, bool)>,
        alpha_test: Option<(CmpFunc, i32)>,
        blending: Option<&BlendCtx>,
        stencil: Option<&StencilTest>,
    ) -> Option<Merge8> {
        let target = match color_format {
            Format::A8R8G8B8 | Format::X8R8G8B8 => target::ARGB32,
            Format::R5G6B5 => target::R5G6B5,
            Format::X1R5G5B5 => target::X1R5G5B5,
            Format::A1R5G5B5 => target::A1R5G5B5,
            _ => return None,
        };
        let (depth, z, z_write) = match depth_test {
            None => (depth::NONE, [0; 3], 0),
            Some((f, func, write)) => {
                let code = match f {
                    Format::D24S8 | Format::D24X8 | Format::D24X4S4 => depth::D24,
                    Format::D16 | Format::D16Lockable => depth::D16,
                    _ => return None,
                };
                (code, outcomes(func), -i32::from(write))
            }
        };
        let keep = StencilOp8::new(StencilOp::Keep, 0, 0);
        let mut faces = [StencilFace8 {
            func: outcomes(CmpFunc::Always),
            ops: [keep; 3],
        }; 2];
        let (mut s_ref, mut s_mask, mut s_write, mut s_max) = (0, 0, 0, 0);
        let (depth, z, z_write) = match stencil {
            None => (depth, z, z_write),
            Some(st) => {
                if !matches!(st.format, Format::D24S8 | Format::D24X4S4)
                    || depth != depth::NONE && depth_test.map(|d| d.0) != Some(st.format)
                {
                    return None;
                }
                let max = (1u32 << st.format.stencil_bits()) - 1;
                let r = (st.reference & max) as i32;
                for (f, face) in faces.iter_mut().zip([&st.front, &st.ccw]) {
                    *f = StencilFace8 {
                        func: outcomes(face.func),
                        ops: [face.fail, face.z_fail, face.pass]
                            .map(|op| StencilOp8::new(op, r, max as i32)),
                    };
                }
                (s_ref, s_mask) = ((st.reference & max & st.mask) as i32, st.mask as i32);
                (s_write, s_max) = ((st.write_mask & max) as i32, max as i32);
                if depth == depth::NONE {
                    (depth::S8, outcomes(CmpFunc::Always), 0)
                } else {
                    (depth::D24S, z, z_write)
                }
            }
        };
        let (alpha, alpha_ref) = match alpha_test {
            None => (outcomes(CmpFunc::Always), 0),
            Some((func, reference)) => (outcomes(func), reference),
        };
        let mut m = Merge8 {
            depth,
            target,
            blend: blend::OFF,
            alpha,
            alpha_ref,
            z,
            z_write,
            src: FactorTerms::default(),
            dst: FactorTerms::default(),
            op_add: [0; 2],
            op_sub: [0; 2],
            op_rsub: [0; 2],
            byte_factors: 0,
            byte_min: 0,
            byte_max: 0,
            dst_or: if color_format == Format::X8R8G8B8 {
                0xFF00_0000u32 as i32
            } else {
                0
            },
            enc_and: if color_format == Format::X8R8G8B8 {
                0x00FF_FFFF
            } else {
                -1
            },
            write_mask: write_mask as i32,
            faces,
            s_ref,
            s_mask,
            s_write,
            s_max,
        };
        if let Some(b) = blending {
            let add = b.op == BlendOp::Add && b.op_a == BlendOp::Add;
            let src_alpha = [b.src, b.src_a] == [Blend::SrcAlpha; 2]
                && [b.dst, b.dst_a] == [Blend::InvSrcAlpha; 2];
            m.blend = match (add, src_alpha, target) {
                (true, true, target::ARGB32 | target::R5G6B5) => blend::SRC_ALPHA,
                (true, _, _) => blend::ADD,
                (false, _, _) => blend::ANY,
            };
            for ch in 0..4 {
                let (sf, df, op) = if ch == 3 {
                    (b.src_a, b.dst_a, b.op_a)
                } else {
                    (b.src, b.dst, b.op)
                };
                let k = *b.factor.get(ch)?;
                m.src.set(sf, ch, k)?;
                m.dst.set(df, ch, k)?;
                let byte = 0xFF << (8 * ch);
                match op {
                    BlendOp::Add => set_u16(&mut m.op_add, ch, 0xFFFF),
                    BlendOp::Subtract => set_u16(&mut m.op_sub, ch, 0xFFFF),
                    BlendOp::RevSubtract => set_u16(&mut m.op_rsub, ch, 0xFFFF),
                    BlendOp::Min => m.byte_min |= byte,
                    BlendOp::Max => m.byte_max |= byte,
                }
                if matches!(op, BlendOp::Add | BlendOp::Subtract | BlendOp::RevSubtract) {
                    m.byte_factors |= byte;
                }
            }
        }
        Some(m)
    }

    /// True when merging is a plain store: no depth test, an
    /// A8R8G8B8/X8R8G8B8 target written whole, no blending, no alpha
    /// test (a kernel may then store its colours itself).
    pub(crate) fn is_plain(&self) -> bool {
        self.depth == depth::NONE
            && self.target == target::ARGB32
            && self.blend == blend::OFF
            && self.write_mask == -1
            && self.alpha == outcomes(CmpFunc::Always)
    }

    /// Runs `u` with this draw's [`MergeLanes`] at `level` (the best the
    /// CPU has up to it): the const parameters are matched here, once.
    /// `ccw` when the fragments are a counter-clockwise triangle's
    /// (two-sided stencil takes its CCW face's function and operations).
    pub(crate) fn run_facing<U: MergeUser>(&self, level: SimdLevel, ccw: bool, u: U) -> U::Output {
        macro_rules! at {
            ($(($d:ident, $t:ident, $b:ident)),*) => {
                match (self.depth, self.target, self.blend) {
                    $((depth::$d, target::$t, blend::$b) => level.dispatch(At::<U, { depth::$d }, { target::$t }, { blend::$b }> { m: self, ccw, u }),)*
                    _ => level.dispatch(At::<U, { depth::NONE }, { target::ARGB32 }, { blend::ANY }> { m: self, ccw, u }),
                }
            };
        }
        macro_rules! per_blend {
            ($(($d:ident, $t:ident) with $x:ident),*; $(($d2:ident, $t2:ident)),*) => {
                at!(
                    $(($d, $t, $x),)*
                    $(($d2, $t2, OFF), ($d2, $t2, ADD), ($d2, $t2, ANY)),*
                )
            };
        }
        per_blend!(
            (NONE, ARGB32) with SRC_ALPHA,
            (NONE, R5G6B5) with SRC_ALPHA,
            (D24, ARGB32) with SRC_ALPHA,
            (D24, R5G6B5) with SRC_ALPHA,
            (D16, ARGB32) with SRC_ALPHA,
            (D16, R5G6B5) with SRC_ALPHA,
            (D24S, ARGB32) with SRC_ALPHA,
            (D24S, R5G6B5) with SRC_ALPHA,
            (S8, ARGB32) with SRC_ALPHA,
            (S8, R5G6B5) with SRC_ALPHA;
            (NONE, ARGB32),
            (NONE, R5G6B5),
            (NONE, X1R5G5B5),
            (NONE, A1R5G5B5),
            (D24, ARGB32),
            (D24, R5G6B5),
            (D24, X1R5G5B5),
            (D24, A1R5G5B5),
            (D16, ARGB32),
            (D16, R5G6B5),
            (D16, X1R5G5B5),
            (D16, A1R5G5B5),
            (D24S, ARGB32),
            (D24S, R5G6B5),
            (D24S, X1R5G5B5),
            (D24S, A1R5G5B5),
            (S8, ARGB32),
            (S8, R5G6B5),
            (S8, X1R5G5B5),
            (S8, A1R5G5B5)
        )
    }
}

/// A kernel that ends in the merger: run by [`Merge8::run_facing`] with the
/// level's vector types and the draw's [`MergeLanes`], whose const
/// parameters it passes through (so it is instantiated per combination).
pub(crate) trait MergeUser {
    /// What the kernel returns.
    type Output;
    /// The kernel; must be `#[inline(always)]` (it is compiled inside the
    /// level's entry).
    fn run<S: Simd, const DEPTH: u8, const FMT: u8, const BLEND: u8>(
        self,
        s: S,
        m: &MergeLanes<S, DEPTH, FMT, BLEND>,
    ) -> Self::Output;
}

/// The [`Kernel`] of one combination of [`Merge8::run_facing`].
struct At<'a, U, const DEPTH: u8, const FMT: u8, const BLEND: u8> {
    m: &'a Merge8,
    ccw: bool,
    u: U,
}

impl<U: MergeUser, const DEPTH: u8, const FMT: u8, const BLEND: u8> Kernel
    for At<'_, U, DEPTH, FMT, BLEND>
{
    type Output = U::Output;
    #[inline(always)]
    fn run<S: Simd>(self, s: S) -> U::Output {
        let lanes = MergeLanes::<S, DEPTH, FMT, BLEND>::new(s, self.m, self.ccw);
        self.u.run(s, &lanes)
    }
}

/// A stencil operation ([`StencilOp8`]) as vectors.
#[derive(Clone, Copy)]
struct StencilOpV<V> {
    and: V,
    xor: V,
    add: V,
    lo: V,
    hi: V,
}

impl<V: I32x8> StencilOpV<V> {
    /// The lanes of `o`.
    #[inline(always)]
    fn new<S: Simd<I32x8 = V>>(s: S, o: &StencilOp8) -> Self {
        StencilOpV {
            and: s.splat_i32(o.and),
            xor: s.splat_i32(o.xor),
            add: s.splat_i32(o.add),
            lo: s.splat_i32(o.lo),
            hi: s.splat_i32(o.hi),
        }
    }

    /// The operation on stored values `st` (each in `0..=max`).
    #[inline(always)]
    fn apply(&self, st: V, max: V) -> V {
        (((st & self.and) ^ self.xor) + self.add)
            .max(self.lo)
            .min(self.hi)
            & max
    }
}

/// The terms of a factor as vectors.
struct FactorV<V> {
    src: V,
    src_alpha: V,
    dst: V,
    dst_alpha: V,
    konst: V,
    inv: V,
}

/// A draw's merger state as lanes of level `S`, for the depth, target and
/// blend codes `DEPTH`, `FMT`, `BLEND` (see [`depth`], [`target`],
/// [`blend`]).
pub(crate) struct MergeLanes<S: Simd, const DEPTH: u8, const FMT: u8, const BLEND: u8> {
    lane: S::I32x8,
    a_lt: S::M32x8,
    a_eq: S::M32x8,
    a_gt: S::M32x8,
    a_ref: S::I32x8,
    z_lt: S::M32x8,
    z_eq: S::M32x8,
    z_gt: S::M32x8,
    z_write: S::M32x8,
    zero: S::F32x8,
    one: S::F32x8,
    z_scale: S::F32x8,
    src: FactorV<S::I32x8>,
    dst: FactorV<S::I32x8>,
    op_add: S::I32x8,
    op_sub: S::I32x8,
    op_rsub: S::I32x8,
    byte_factors: S::I32x8,
    byte_min: S::I32x8,
    byte_max: S::I32x8,
    dst_or: S::I32x8,
    enc_and: S::I32x8,
    write_mask: S::I32x8,
    keep_mask: S::I32x8,
    /// The stencil of [`depth::D24S`] and [`depth::S8`] (the triangle's
    /// face): STENCILFUNC's outcomes, the fail, z-fail and pass
    /// operations, the reference and masks of [`Merge8`], the bits kept
    /// of the stored one (!STENCILWRITEMASK) and the other bits below the
    /// depth (D24X4S4's X4).
    s_lt: S::M32x8,
    s_eq: S::M32x8,
    s_gt: S::M32x8,
    s_ops: [StencilOpV<S::I32x8>; 3],
    s_ref: S::I32x8,
    s_mask: S::I32x8,
    s_write: S::I32x8,
    s_keep: S::I32x8,
    s_max: S::I32x8,
    s_other: S::I32x8,
}

/// Lanes of `v`: −1 → set.
#[inline(always)]
fn mask_of<S: Simd>(s: S, v: i32) -> S::M32x8 {
    s.splat_i32(v).simd_eq(s.splat_i32(-1))
}

/// A widened-pixel pattern repeated over the vector.
#[inline(always)]
fn pattern<S: Simd>(s: S, p: [i32; 2]) -> S::I32x8 {
    s.repeat4_i32([p[0], p[1], p[0], p[1]])
}

#[inline(always)]
fn factor_v<S: Simd>(s: S, t: &FactorTerms) -> FactorV<S::I32x8> {
    FactorV {
        src: pattern(s, t.src),
        src_alpha: pattern(s, t.src_alpha),
        dst: pattern(s, t.dst),
        dst_alpha: pattern(s, t.dst_alpha),
        konst: pattern(s, t.konst),
        inv: pattern(s, t.inv),
    }
}

/// The factor `f` of widened source `a` (alpha `sa`) and destination `d`
/// (alpha `da`).
#[inline(always)]
fn factor<V: I32x8>(f: &FactorV<V>, a: V, sa: V, d: V, da: V) -> V {
    ((a & f.src) | (sa & f.src_alpha) | (d & f.dst) | (da & f.dst_alpha) | f.konst) ^ f.inv
}

/// `new F reference` per lane, `F` given by its outcomes.
#[inline(always)]
fn compare<V: I32x8>(new: V, reference: V, lt: V::Mask, eq: V::Mask, gt: V::Mask) -> V::Mask {
    (reference.simd_gt(new) & lt) | (new.simd_eq(reference) & eq) | (new.simd_gt(reference) & gt)
}

impl<S: Simd, const DEPTH: u8, const FMT: u8, const BLEND: u8> MergeLanes<S, DEPTH, FMT, BLEND> {
    /// The lanes of `m`, with the stencil face of counter-clockwise
    /// triangles when `ccw`.
    #[inline(always)]
    fn new(s: S, m: &Merge8, ccw: bool) -> Self {
        let face = &m.faces[usize::from(ccw)];
        MergeLanes {
            s_lt: mask_of(s, face.func[0]),
            s_eq: mask_of(s, face.func[1]),
            s_gt: mask_of(s, face.func[2]),
            s_ops: [
                StencilOpV::new(s, &face.ops[0]),
                StencilOpV::new(s, &face.ops[1]),
                StencilOpV::new(s, &face.ops[2]),
            ],
            s_ref: s.splat_i32(m.s_ref),
            s_mask: s.splat_i32(m.s_mask),
            s_write: s.splat_i32(m.s_write),
            s_keep: s.splat_i32(!m.s_write),
            s_max: s.splat_i32(m.s_max),
            s_other: s.splat_i32(0xFF & !m.s_max),
            lane: s.i32x8([0, 1, 2, 3, 4, 5, 6, 7]),
            a_lt: mask_of(s, m.alpha[0]),
            a_eq: mask_of(s, m.alpha[1]),
            a_gt: mask_of(s, m.alpha[2]),
            a_ref: s.splat_i32(m.alpha_ref),
            z_lt: mask_of(s, m.z[0]),
            z_eq: mask_of(s, m.z[1]),
            z_gt: mask_of(s, m.z[2]),
            z_write: mask_of(s, m.z_write),
            zero: s.splat_f32(0.0),
            one: s.splat_f32(1.0),
            z_scale: s.splat_f32(if DEPTH == depth::D16 {
                65_535.0
            } else {
                16_777_215.0
            }),
            src: factor_v(s, &m.src),
            dst: factor_v(s, &m.dst),
            op_add: pattern(s, m.op_add),
            op_sub: pattern(s, m.op_sub),
            op_rsub: pattern(s, m.op_rsub),
            byte_factors: s.splat_i32(m.byte_factors),
            byte_min: s.splat_i32(m.byte_min),
            byte_max: s.splat_i32(m.byte_max),
            dst_or: s.splat_i32(m.dst_or),
            enc_and: s.splat_i32(m.enc_and),
            write_mask: s.splat_i32(m.write_mask),
            keep_mask: s.splat_i32(!m.write_mask),
        }
    }

    /// The output merger of fragments `0..n` (n ≤ 8; lanes at or past `n`
    /// are not live) whose colour bytes start at `color` and depth bytes
    /// at `depth` (32-byte windows: 4 bytes a pixel for 32-bit targets and
    /// D24, 2 for 16-bit ones and D16; `depth` is not touched without a
    /// depth test): `rgba` the colours (packed BGRA8 per lane), `live`
    /// the fragments covered, `z` their depths. Every byte of the windows
    /// that no passing fragment owns is stored back unchanged. Returns
    /// the number of fragments that passed (each counted as passed and
    /// written by `pixel::Stats`).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn merge(
        &self,
        s: S,
        color: &mut [u8; 32],
        depth: &mut [u8; 32],
        n: usize,
        rgba: S::I32x8,
        live: S::M32x8,
        z: S::F32x8,
    ) -> u32 {
        let live = live & s.splat_i32(n.min(8) as i32).simd_gt(self.lane);
        let alpha = rgba.shr_logical::<24>();
        let mut pass = live & compare(alpha, self.a_ref, self.a_lt, self.a_eq, self.a_gt);
        if DEPTH == depth::D24 {
            let old = s.load_i32(depth);
            let zq = quantize::<S>(z, self.zero, self.one, self.z_scale);
            let stored = old.shr_logical::<8>();
            pass = pass & compare(zq, stored, self.z_lt, self.z_eq, self.z_gt);
            let new = zq.shl::<8>() | (old & s.splat_i32(0xFF));
            S::I32x8::select(pass & self.z_write, new, old).store(depth);
        } else if DEPTH == depth::D24S || DEPTH == depth::S8 {
            // `fragment`'s order: stencil test, depth test, then the
            // stencil operation of the outcome (fail, z-fail, pass)
            // through STENCILWRITEMASK, the depth written on a pass
            // (without a depth test, S8: every depth passes, none is
            // written).
            let old = s.load_i32(depth);
            let st = old & self.s_max;
            let tested = pass;
            let s_pass = compare(
                self.s_ref,
                st & self.s_mask,
                self.s_lt,
                self.s_eq,
                self.s_gt,
            );
            let fail = tested & !s_pass;
            let [on_fail, on_z_fail, on_pass] = &self.s_ops;
            let kept = old & s.splat_i32(!0xFF);
            let (r, d) = if DEPTH == depth::S8 {
                pass = tested & s_pass;
                let r = S::I32x8::select(
                    fail,
                    on_fail.apply(st, self.s_max),
                    on_pass.apply(st, self.s_max),
                );
                (r, kept)
            } else {
                let zq = quantize::<S>(z, self.zero, self.one, self.z_scale);
                let stored = old.shr_logical::<8>();
                let z_pass = compare(zq, stored, self.z_lt, self.z_eq, self.z_gt);
                let z_fail = tested & s_pass & !z_pass;
                pass = tested & s_pass & z_pass;
                let r = S::I32x8::select(
                    fail,
                    on_fail.apply(st, self.s_max),
                    S::I32x8::select(
                        z_fail,
                        on_z_fail.apply(st, self.s_max),
                        on_pass.apply(st, self.s_max),
                    ),
                );
                (
                    r,
                    S::I32x8::select(pass & self.z_write, zq.shl::<8>(), kept),
                )
            };
            let st = (st & self.s_keep) | (r & self.s_write);
            let new = d | (old & self.s_other) | st;
            S::I32x8::select(tested, new, old).store(depth);
        } else if DEPTH == depth::D16 {
            let Some((d16, _)) = depth.split_first_chunk_mut::<16>() else {
                return 0;
            };
            let old = s.load_u16x8(d16);
            let zq = quantize::<S>(z, self.zero, self.one, self.z_scale);
            pass = pass & compare(zq, old, self.z_lt, self.z_eq, self.z_gt);
            S::I32x8::select(pass & self.z_write, zq, old).store_u16x8(d16);
        }
        if FMT == target::ARGB32 {
            let old = s.load_i32(color);
            let src = self.blended(s, rgba, old | self.dst_or);
            let new = (old & self.keep_mask) | (src & self.enc_and & self.write_mask);
            S::I32x8::select(pass, new, old).store(color);
        } else {
            let Some((c16, _)) = color.split_first_chunk_mut::<16>() else {
                return 0;
            };
            let old = s.load_u16x8(c16);
            let src = if BLEND == blend::OFF {
                rgba
            } else {
                self.blended(s, rgba, decode16::<S, FMT>(s, old))
            };
            let enc = encode16::<S, FMT>(s, src);
            let new = (old & self.keep_mask) | (enc & self.write_mask);
            S::I32x8::select(pass, new, old).store_u16x8(c16);
        }
        pass.bitmask().count_ones()
    }

    /// The blend of the packed sources `src` over the packed (decoded)
    /// destinations `dst`, or `src` without blending.
    #[inline(always)]
    fn blended(&self, s: S, src: S::I32x8, dst: S::I32x8) -> S::I32x8 {
        if BLEND == blend::OFF {
            return src;
        }
        if BLEND == blend::SRC_ALPHA {
            return super::blend::blend8::<{ factor::SRC_ALPHA }, { factor::INV_SRC_ALPHA }, S>(
                s, src, dst,
            );
        }
        let lo = self.blend16(s, src.widen_lo_u8_u16(), dst.widen_lo_u8_u16());
        let hi = self.blend16(s, src.widen_hi_u8_u16(), dst.widen_hi_u8_u16());
        let out = S::I32x8::pack_i16_u8_sat(lo, hi);
        if BLEND == blend::ADD {
            return out;
        }
        (out & self.byte_factors)
            | (src.min_u8(dst) & self.byte_min)
            | (src.max_u8(dst) & self.byte_max)
    }

    /// `round((s·Fs ∘ d·Fd) / 255)` of u16 lanes (as `simd::blend`'s,
    /// with the operation ∘ of each channel: ADD, SUBTRACT, REVSUBTRACT,
    /// the differences saturating at 0 as the scalar's `max(x, 0)`).
    #[inline(always)]
    fn blend16(&self, s: S, a: S::I32x8, d: S::I32x8) -> S::I32x8 {
        let (sa, da) = (a.splat_alpha_u16(), d.splat_alpha_u16());
        let p = a.mul_lo_u16(factor(&self.src, a, sa, d, da));
        let q = d.mul_lo_u16(factor(&self.dst, a, sa, d, da));
        let x = if BLEND == blend::ADD {
            p.add_sat_u16(q)
        } else {
            (p.add_sat_u16(q) & self.op_add)
                | (p.sub_sat_u16(q) & self.op_sub)
                | (q.sub_sat_u16(p) & self.op_rsub)
        };
        div255_u16(s, x)
    }
}

impl<S: Simd, const DEPTH: u8, const FMT: u8, const BLEND: u8> MergeLanes<S, DEPTH, FMT, BLEND> {
    /// [`Self::merge`] of fragments `0..n` at column `x` of row `row` of
    /// the band `b` (its 32-byte windows sliced here; a vector whose
    /// windows reach past the end of the band merges on copies of the
    /// bytes that exist). The spans' loops of [`merge_spans`] and of the
    /// 8-bit cascade (`simd::cascade8`) end here.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn merge_at(
        &self,
        s: S,
        b: &mut BandRows<'_>,
        row: usize,
        x: usize,
        n: usize,
        rgba: S::I32x8,
        live: S::M32x8,
        z: S::F32x8,
    ) -> u32 {
        let cbpp = if FMT == target::ARGB32 { 4 } else { 2 };
        let dbpp = match DEPTH {
            depth::D24 | depth::D24S | depth::S8 => 4,
            depth::D16 => 2,
            _ => 0,
        };
        let coff = row * b.color_pitch + x * cbpp;
        let doff = row * b.depth_pitch + x * dbpp;
        let mut none = [0u8; 32];
        let cw = match b.color.get_mut(coff..) {
            Some(c) => c.first_chunk_mut::<32>(),
            None => None,
        };
        let dw = if DEPTH == depth::NONE {
            Some(&mut none)
        } else {
            match b.depth.get_mut(doff..) {
                Some(d) => d.first_chunk_mut::<32>(),
                None => None,
            }
        };
        if let (Some(c), Some(d)) = (cw, dw) {
            self.merge(s, c, d, n, rgba, live, z)
        } else {
            merge_copy(s, self, b, coff, doff, n, rgba, live, z)
        }
    }
}

/// The depths of 8 fragments at columns `fx` (relative to the plane's
/// reference pixel) of a row whose `dz/dy` term is `zy`: `(z + dz/dx·fx)
/// + zy`, the float path's formula (`pixel::tri_span_generic`,
/// `shade::tri_span_full`) in the same order, so the same bits.
#[inline(always)]
pub(crate) fn plane_z<S: Simd>(
    zref: S::F32x8,
    dzdx: S::F32x8,
    zy: S::F32x8,
    fx: S::F32x8,
) -> S::F32x8 {
    (zref + dzdx.mul(fx)) + zy
}

/// A 5-bit channel `v` as 8 bits, `Format::decode_argb`'s `(v·255 + 15)
/// / 31`: the quotient as `(x · 33 826) >> 20`, exact for `x < 34 952`
/// (`33 826 · 31 = 2^20 + 30`), and `x ≤ 7 920`.
#[inline(always)]
fn expand5<S: Simd>(s: S, v: S::I32x8) -> S::I32x8 {
    (v.mul(s.splat_i32(255)) + s.splat_i32(15))
        .mul(s.splat_i32(33_826))
        .shr_logical::<20>()
}

/// A 6-bit channel `v` as 8 bits, `(v·255 + 31) / 63`: the quotient as
/// `(x · 16 645) >> 20`, exact for `x < 17 772` (`16 645 · 63 = 2^20 +
/// 59`), and `x ≤ 16 096`.
#[inline(always)]
fn expand6<S: Simd>(s: S, v: S::I32x8) -> S::I32x8 {
    (v.mul(s.splat_i32(255)) + s.splat_i32(31))
        .mul(s.splat_i32(16_645))
        .shr_logical::<20>()
}

/// 16-bit pixels (one per lane) of target `FMT` decoded to packed BGRA8
/// as `Format::decode_argb` (5- and 6-bit channels rounded to nearest,
/// a 1-bit alpha 0 or 255, a missing alpha 255; tested over every
/// value).
#[inline(always)]
fn decode16<S: Simd, const FMT: u8>(s: S, raw: S::I32x8) -> S::I32x8 {
    let five = s.splat_i32(0x1F);
    let b = expand5(s, raw & five);
    let (g, r) = if FMT == target::R5G6B5 {
        (
            expand6(s, raw.shr_logical::<5>() & s.splat_i32(0x3F)),
            expand5(s, raw.shr_logical::<11>() & five),
        )
    } else {
        (
            expand5(s, raw.shr_logical::<5>() & five),
            expand5(s, raw.shr_logical::<10>() & five),
        )
    };
    let alpha = s.splat_i32(0xFF00_0000u32 as i32);
    let a = if FMT == target::A1R5G5B5 {
        raw.shl::<16>().shr::<7>() & alpha
    } else {
        alpha
    };
    b | g.shl::<8>() | r.shl::<16>() | a
}

/// Packed BGRA8 colours encoded as 16-bit pixels of target `FMT`
/// (`Format::encode_argb`: each channel's top bits, no alpha bit for
/// R5G6B5 and X1R5G5B5).
#[inline(always)]
fn encode16<S: Simd, const FMT: u8>(s: S, p: S::I32x8) -> S::I32x8 {
    let b = p.shr_logical::<3>() & s.splat_i32(0x1F);
    if FMT == target::R5G6B5 {
        b | (p.shr_logical::<5>() & s.splat_i32(0x07E0))
            | (p.shr_logical::<8>() & s.splat_i32(0xF800))
    } else {
        let rgb = b
            | (p.shr_logical::<6>() & s.splat_i32(0x03E0))
            | (p.shr_logical::<9>() & s.splat_i32(0x7C00));
        if FMT == target::A1R5G5B5 {
            rgb | (p.shr_logical::<16>() & s.splat_i32(0x8000))
        } else {
            rgb
        }
    }
}

/// An untextured affine triangle as [`merge_spans`] draws it: the 16.16
/// diffuse (and specular, when added) planes, its fog, and the depth
/// plane, with their reference pixel.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MergeTri<'a> {
    /// Diffuse planes `[value, d/dx, d/dy]` per BGRA channel (16.16).
    pub diffuse: [[i32; 4]; 3],
    /// Specular planes, added to B, G, R with saturation (SPECULARENABLE).
    pub specular: Option<[[i32; 4]; 3]>,
    /// Fog of the diffuse colour (a draw never has both: the specular
    /// add comes before fog, which the 8-bit cascade does).
    pub fog: Option<MergeFog<'a>>,
    /// Depth plane `[z, dz/dx, dz/dy]` (bias included).
    pub z: [f32; 3],
    /// The triangle is counter-clockwise (two-sided stencil).
    pub ccw: bool,
    /// Reference pixel of the planes.
    pub rx: i32,
    /// Reference row.
    pub ry: i32,
}

/// Fog of [`MergeTri`]'s colours: each pixel's channels `c` and factor
/// `f` give `round((c·f + fc·(255 − f)) / 255)` per colour channel of the
/// fog colour `fc`, the alpha kept (`super::depth24::FogLanes`, the
/// pixels of the 8-bit cascade with no stage).
#[derive(Debug, Clone, Copy)]
pub(crate) struct MergeFog<'a> {
    /// Where the factors come from.
    pub factor: TriFog<'a>,
    /// The fog colour: blue, green, red, unused.
    pub color: [i32; 4],
}

/// The fog factors of a triangle's pixels.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TriFog<'a> {
    /// Vertex fog: the 16.16 plane of the factor × 255 (the specular
    /// alpha), `[at reference, d/dx, d/dy]`; a pixel's factor is its
    /// value `>> 16` clamped to 0..=255.
    Plane([i32; 3]),
    /// Table fog of each pixel's depth (the triangle's depth plane, as
    /// [`plane_z`]): `super::cascade8`'s `table_fog8` bytes.
    Table {
        table: &'a TableFog,
        bytes: Option<&'a FogByteTable>,
    },
}

/// True if every span's pixels lie inside the band's rows (colour, and
/// depth when `depth_bpp` is not 0), so that [`merge_spans`] draws all of
/// them.
pub(crate) fn spans_inside(
    b: &BandRows<'_>,
    spans: &[Span],
    color_bpp: usize,
    depth_bpp: usize,
) -> bool {
    spans.iter().all(|sp| {
        let (Ok(row), Ok(x)) = (usize::try_from(sp.y - b.y0), usize::try_from(sp.x)) else {
            return false;
        };
        let end = x + sp.n as usize;
        row * b.color_pitch + end * color_bpp <= b.color.len()
            && (depth_bpp == 0 || row * b.depth_pitch + end * depth_bpp <= b.depth.len())
    })
}

/// All spans of an untextured affine triangle `t` in a band through the
/// merger `m`: per 8 pixels the colours of `pixel::tri_span_generic`
/// (diffuse clamped from the 16.16 planes, plus the specular ones when
/// set) and its depths, merged. Returns the fragments that passed. The
/// caller checks that the spans lie inside the band ([`spans_inside`]);
/// bytes outside it are never touched.
pub(crate) fn merge_spans(
    m: &Merge8,
    level: SimdLevel,
    b: &mut BandRows<'_>,
    spans: &[Span],
    t: &MergeTri<'_>,
) -> u32 {
    m.run_facing(level, t.ccw, SpanLoop { b, spans, t })
}

/// The arguments of [`merge_spans`].
struct SpanLoop<'a, 'b> {
    b: &'a mut BandRows<'b>,
    spans: &'a [Span],
    t: &'a MergeTri<'a>,
}

/// Four colour vectors of 8 pixels (pixel k in the low half of vector k,
/// pixel k + 4 in its high half, as `gouraud_span`) packed.
#[inline(always)]
fn pack8<V: I32x8>(r: &[V; 4]) -> V {
    V::pack_u8_sat([
        r[0].shr::<16>(),
        r[1].shr::<16>(),
        r[2].shr::<16>(),
        r[3].shr::<16>(),
    ])
}

/// The colour vectors of plane `p` at the span start `(dx, dy)`.
#[inline(always)]
fn plane_start<S: Simd>(s: S, p: &[[i32; 4]; 3], dx: i32, dy: i32) -> [S::I32x8; 4] {
    let sx = s.repeat4_i32(p[1]);
    let high = s.i32x8([0, 0, 0, 0, -1, -1, -1, -1]);
    let r0 = s.repeat4_i32(p[0])
        + s.splat_i32(dx).mul(sx)
        + s.splat_i32(dy).mul(s.repeat4_i32(p[2]))
        + (sx.shl::<2>() & high);
    let r1 = r0 + sx;
    let r2 = r1 + sx;
    [r0, r1, r2, r2 + sx]
}

impl MergeUser for SpanLoop<'_, '_> {
    type Output = u32;

    #[inline(always)]
    fn run<S: Simd, const DEPTH: u8, const FMT: u8, const BLEND: u8>(
        self,
        s: S,
        m: &MergeLanes<S, DEPTH, FMT, BLEND>,
    ) -> u32 {
        let SpanLoop { b, spans, t } = self;
        let step8 = s.repeat4_i32(t.diffuse[1]).shl::<3>();
        let spec = t.specular.unwrap_or([[0; 4]; 3]);
        let spec_step8 = s.repeat4_i32(spec[1]).shl::<3>();
        let rgb = s.splat_i32(0x00FF_FFFF);
        let (zref, dzdx) = (s.splat_f32(t.z[0]), s.splat_f32(t.z[1]));
        let all = s.splat_i32(0).simd_eq(s.splat_i32(0));
        // Fog: the factor plane of vertex fog (zero without), table fog's
        // FOGEND and FOGEND − FOGSTART.
        let fog = t.fog.map(|f| (f.factor, FogLanes::new(s, f.color)));
        let (fplane, (fend, fspan)) = match t.fog.map(|f| f.factor) {
            Some(TriFog::Plane(p)) => (p, (0.0, 1.0)),
            Some(TriFog::Table { table, .. }) => ([0; 3], (table.end, table.end - table.start)),
            None => ([0; 3], (0.0, 1.0)),
        };
        let (fend, fspan) = (s.splat_f32(fend), s.splat_f32(fspan));
        let fstep = s.splat_i32(fplane[1]);
        let fstep8 = fstep.shl::<3>();
        let mut passed = 0;
        for sp in spans {
            let (Ok(row), Ok(x0)) = (usize::try_from(sp.y - b.y0), usize::try_from(sp.x)) else {
                continue;
            };
            let (dx, dy) = (sp.x - t.rx, sp.y - t.ry);
            let mut r = plane_start(s, &t.diffuse, dx, dy);
            let mut sr = plane_start(s, &spec, dx, dy);
            let mut fr = s.splat_i32(super::plane_at(fplane, dx, dy)) + m.lane.mul(fstep);
            let zy = s.splat_f32(t.z[2] * dy as f32);
            let n = sp.n as usize;
            let mut i = 0;
            while i < n {
                let fx = (s.splat_i32(dx.wrapping_add(i as i32)) + m.lane).to_f32();
                let z = plane_z::<S>(zref, dzdx, zy, fx);
                let rgba = match &fog {
                    None => {
                        let rgba = pack8(&r);
                        if t.specular.is_some() {
                            rgba.add_sat_u8(pack8(&sr) & rgb)
                        } else {
                            rgba
                        }
                    }
                    Some((TriFog::Plane(_), lanes)) => lanes.pixels(s, &r, fr),
                    Some((TriFog::Table { table, bytes }, lanes)) => {
                        lanes.pixels_f8(s, &r, table_fog8(s, table, *bytes, z, fend, fspan))
                    }
                };
                passed += m.merge_at(s, b, row, x0 + i, n - i, rgba, all, z);
                i += 8;
                for v in &mut r {
                    *v = *v + step8;
                }
                for v in &mut sr {
                    *v = *v + spec_step8;
                }
                fr = fr + fstep8;
            }
        }
        passed
    }
}

/// [`MergeLanes::merge`] of a vector whose 32-byte windows reach past the
/// end of the band: on copies of the bytes that exist, copied back.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn merge_copy<S: Simd, const DEPTH: u8, const FMT: u8, const BLEND: u8>(
    s: S,
    m: &MergeLanes<S, DEPTH, FMT, BLEND>,
    b: &mut BandRows<'_>,
    coff: usize,
    doff: usize,
    n: usize,
    rgba: S::I32x8,
    live: S::M32x8,
    z: S::F32x8,
) -> u32 {
    let mut c = [0u8; 32];
    let mut d = [0u8; 32];
    let cn = b.color.len().saturating_sub(coff).min(32);
    let dn = if DEPTH == depth::NONE {
        0
    } else {
        b.depth.len().saturating_sub(doff).min(32)
    };
    if let (Some(src), Some(dst)) = (b.color.get(coff..coff + cn), c.get_mut(..cn)) {
        dst.copy_from_slice(src);
    }
    if let (Some(src), Some(dst)) = (b.depth.get(doff..doff + dn), d.get_mut(..dn)) {
        dst.copy_from_slice(src);
    }
    let passed = m.merge(s, &mut c, &mut d, n, rgba, live, z);
    if let (Some(dst), Some(src)) = (b.color.get_mut(coff..coff + cn), c.get(..cn)) {
        dst.copy_from_slice(src);
    }
    if let (Some(dst), Some(src)) = (b.depth.get_mut(doff..doff + dn), d.get(..dn)) {
        dst.copy_from_slice(src);
    }
    passed
}

/// [`MergeLanes::merge`] with its lanes from arrays (`live`: bit `i` for
/// lane `i`), at `level`, for a counter-clockwise triangle when `ccw`: the
/// tests' entry.
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn merge_arrays(
    m: &Merge8,
    level: SimdLevel,
    ccw: bool,
    color: &mut [u8; 32],
    depth: &mut [u8; 32],
    n: usize,
    rgba: [u32; 8],
    live: u8,
    z: [f32; 8],
) -> u32 {
    m.run_facing(
        level,
        ccw,
        Arrays {
            color,
            depth,
            n,
            rgba,
            live,
            z,
        },
    )
}

/// The arguments of [`merge_arrays`].
#[cfg(test)]
struct Arrays<'a> {
    color: &'a mut [u8; 32],
    depth: &'a mut [u8; 32],
    n: usize,
    rgba: [u32; 8],
    live: u8,
    z: [f32; 8],
}

#[cfg(test)]
impl MergeUser for Arrays<'_> {
    type Output = u32;
    #[inline(always)]
    fn run<S: Simd, const DEPTH: u8, const FMT: u8, const BLEND: u8>(
        self,
        s: S,
        m: &MergeLanes<S, DEPTH, FMT, BLEND>,
    ) -> u32 {
        let rgba = s.i32x8(self.rgba.map(|v| v as i32));
        let bits = s.i32x8(std::array::from_fn(|i| i32::from((self.live >> i) & 1)));
        let live = bits.simd_eq(s.splat_i32(1));
        m.merge(
            s,
            self.color,
            self.depth,
            self.n,
            rgba,
            live,
            s.f32x8(self.z),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{funcs, LEVELS};
    use super::*;
    use crate::pixel::{DrawCtx, FastPath, Stats, TileTarget};
    use crate::state::{PipelineState, ZBufferType};
    use proptest::prelude::*;

    const TARGETS: [Format; 5] = [
        Format::A8R8G8B8,
        Format::X8R8G8B8,
        Format::R5G6B5,
        Format::X1R5G5B5,
        Format::A1R5G5B5,
    ];
    const DEPTHS: [Option<Format>; 6] = [
        None,
        Some(Format::D24S8),
        Some(Format::D24X8),
        Some(Format::D24X4S4),
        Some(Format::D16),
        Some(Format::D16Lockable),
    ];
    const FACTORS: [Blend; 14] = [
        Blend::Zero,
        Blend::One,
        Blend::SrcColor,
        Blend::InvSrcColor,
        Blend::SrcAlpha,
        Blend::InvSrcAlpha,
        Blend::DestAlpha,
        Blend::InvDestAlpha,
        Blend::DestColor,
        Blend::InvDestColor,
        Blend::BlendFactor,
        Blend::InvBlendFactor,
        Blend::BothSrcAlpha,
        Blend::BothInvSrcAlpha,
    ];
    const OPS: [BlendOp; 5] = [
        BlendOp::Add,
        BlendOp::Subtract,
        BlendOp::RevSubtract,
        BlendOp::Min,
        BlendOp::Max,
    ];

    fn levels() -> impl Iterator<Item = SimdLevel> {
        [SimdLevel::Scalar]
            .into_iter()
            .chain(LEVELS)
            .map(SimdLevel::clamp_to_cpu)
    }

    /// The merger of `state` into `cf` (with a depth buffer `df`).
    fn ctx(state: &PipelineState, cf: Format, df: Option<Format>) -> DrawCtx<'static> {
        DrawCtx::new(state, cf, df, SimdLevel::Scalar, None, None)
    }

    /// Runs the merger at every level over copies of `c`, `d` (the first
    /// fragment at pixel `x`; a counter-clockwise triangle's when `ccw`)
    /// and checks they agree; returns the bytes and count.
    #[allow(clippy::too_many_arguments)]
    fn merged(
        m: &Merge8,
        ccw: bool,
        cbpp: usize,
        dbpp: usize,
        x: usize,
        c: &[u8],
        d: &[u8],
        n: usize,
        rgba: [u32; 8],
        live: u8,
        z: [f32; 8],
    ) -> (Vec<u8>, Vec<u8>, u32) {
        let mut all = Vec::new();
        for level in levels() {
            let (mut c, mut d) = (c.to_vec(), d.to_vec());
            let mut cw = [0u8; 32];
            let mut dw = [0u8; 32];
            cw.copy_from_slice(&c[x * cbpp..x * cbpp + 32]);
            dw.copy_from_slice(&d[x * dbpp..x * dbpp + 32]);
            let k = merge_arrays(m, level, ccw, &mut cw, &mut dw, n, rgba, live, z);
            c[x * cbpp..x * cbpp + 32].copy_from_slice(&cw);
            d[x * dbpp..x * dbpp + 32].copy_from_slice(&dw);
            all.push((c, d, k));
        }
        for other in &all[1..] {
            assert_eq!(other, &all[0]);
        }
        all.swap_remove(0)
    }

    proptest! {
        /// The merger gives the bytes and counts of `fragment` (the
        /// scalar output merger), fragment by fragment, at every level.
        #[test]
        fn merge_matches_fragment(
            (ti, di) in (0usize..5, 0usize..6),
            (zf, zw, zmatch) in (funcs(), any::<bool>(), any::<u8>()),
            atest in proptest::option::of((funcs(), any::<u8>())),
            // Half the blends SRCALPHA/INVSRCALPHA ADD (its own kernel).
            blend in proptest::option::of(prop_oneof![
                (0usize..14, 0usize..14, 0usize..5),
                Just((4usize, 5usize, 0usize)),
            ]),
            alpha_eq in proptest::option::of((0usize..14, 0usize..14, 0usize..5)),
            (factor, cwe) in (any::<u32>(), 0u32..16),
            (x, n, live) in (0usize..8, 1usize..=8, any::<u8>()),
            rgba in proptest::array::uniform8(any::<u32>()),
            z in proptest::array::uniform8(prop_oneof![
                -0.2f32..1.2, Just(0.0f32), Just(1.0f32), Just(f32::NAN), any::<f32>()
            ]),
            c0 in proptest::collection::vec(any::<u8>(), 64),
            d0 in proptest::collection::vec(any::<u8>(), 64),
            // Stencil: per face (clockwise, counter-clockwise) STENCILFUNC
            // and the fail, z-fail, pass operations; two-sided; STENCILREF,
            // STENCILMASK, STENCILWRITEMASK; the depth test on; lanes whose
            // stored stencil is the reference; the triangle's winding.
            stencil in proptest::option::of((
                (funcs(), proptest::array::uniform3(0..StencilOp::ALL.len())),
                (funcs(), proptest::array::uniform3(0..StencilOp::ALL.len())),
                any::<bool>(),
                (any::<u32>(), any::<u32>(), any::<u32>()),
                (any::<bool>(), any::<u8>(), any::<bool>()),
            )),
        ) {
            let (cf, df) = (TARGETS[ti], DEPTHS[di]);
            let mut st = PipelineState::default();
            st.depth.z_enable = ZBufferType::True;
            let mut ccw = false;
            let mut d0 = d0;
            if let Some(((f0, o0), (f1, o1), two, (r, m, wm), (zon, smatch, facing))) = stencil {
                let s = &mut st.stencil;
                s.enable = true;
                s.two_sided = two;
                for (face, f, o) in [(&mut s.front, f0, o0), (&mut s.ccw, f1, o1)] {
                    face.func = f;
                    [face.fail, face.z_fail, face.pass] = o.map(|i| StencilOp::ALL[i]);
                }
                // Small references and masks often, any value sometimes.
                (s.reference, s.mask, s.write_mask) = if r & 1 == 0 {
                    (r >> 28, m | 0xFFFF_FF00, wm | 0xFFFF_FF00)
                } else {
                    (r, m, wm)
                };
                if !zon {
                    st.depth.z_enable = ZBufferType::False;
                }
                ccw = facing;
                if let Some(f) = df.filter(|f| f.stencil_bits() > 0) {
                    let dbpp = f.bytes_per_pixel() as usize;
                    for i in 0..8 {
                        if smatch >> i & 1 != 0 {
                            let o = (x + i) * dbpp;
                            let raw = crate::format::load_raw(&d0[o..], dbpp);
                            let new = f.pack_depth_stencil(raw, f.unpack_depth(raw), s.reference);
                            crate::format::store_raw(&mut d0[o..], dbpp, new);
                        }
                    }
                }
            }
            st.depth.z_func = zf;
            st.depth.z_write = zw;
            if let Some((f, r)) = atest {
                st.alpha_test.enable = true;
                st.alpha_test.func = f;
                st.alpha_test.reference = u32::from(r);
            }
            if let Some((s, d, op)) = blend {
                st.blend.enable = true;
                st.blend.src = FACTORS[s];
                st.blend.dst = FACTORS[d];
                st.blend.op = OPS[op];
                if let Some((sa, da, opa)) = alpha_eq {
                    st.blend.separate_alpha = true;
                    st.blend.src_alpha = FACTORS[sa];
                    st.blend.dst_alpha = FACTORS[da];
                    st.blend.op_alpha = OPS[opa];
                }
            }
            st.blend.factor = factor;
            st.blend.color_write_enable = cwe;
            let dctx = ctx(&st, cf, df);
            // Only the fused colour kernels' draws go without it.
            let Some(m) = dctx.merge8() else {
                prop_assert!(dctx.fast != FastPath::None);
                return Ok(());
            };
            let cbpp = cf.bytes_per_pixel() as usize;
            let dbpp = df.map_or(4, |f| f.bytes_per_pixel() as usize);
            // Some lanes' stored depth equal to their own (EQUAL, LESSEQUAL).
            if let Some(f) = df {
                for (i, zi) in z.iter().enumerate() {
                    if zmatch >> i & 1 != 0 {
                        let o = (x + i) * dbpp;
                        let raw = crate::format::load_raw(&d0[o..], dbpp);
                        let q = f.quantize_depth(*zi);
                        let new = f.pack_depth_stencil(raw, q, f.unpack_stencil(raw));
                        crate::format::store_raw(&mut d0[o..], dbpp, new);
                    }
                }
            }
            let (mut want_c, mut want_d) = (c0.clone(), d0.clone());
            let mut stats = Stats::default();
            {
                let mut t = TileTarget {
                    color: &mut want_c,
                    color_pitch: 64,
                    depth: &mut want_d,
                    depth_pitch: 64,
                    y0: 0,
                    extra: Default::default(),
                    extra_pitch: [0; crate::limits::MAX_RENDER_TARGETS - 1],
                };
                for i in 0..n {
                    if live >> i & 1 != 0 {
                        let c = rgba[i].to_le_bytes().map(i32::from);
                        (dctx.frag)(&mut t, &dctx, (x + i) as i32, 0, c, z[i], ccw, &mut stats);
                    }
                }
            }
            let (got_c, got_d, k) = merged(&m, ccw, cbpp, dbpp, x, &c0, &d0, n, rgba, live, z);
            prop_assert_eq!(&got_c, &want_c);
            prop_assert_eq!(&got_d, &want_d);
            prop_assert_eq!(u64::from(k), stats.passed);
            prop_assert_eq!(u64::from(k), stats.written);
        }
    }

    /// Every 16-bit value of each 16-bit target decodes as
    /// `Format::decode_argb`; every 8-bit value of each channel encodes as
    /// `Format::encode_argb`.
    #[test]
    fn sixteen_bit_targets_code_as_format() {
        struct Codes(u8, [i32; 8]);
        impl Kernel for &Codes {
            type Output = ([i32; 8], [i32; 8]);
            #[inline(always)]
            fn run<S: Simd>(self, s: S) -> Self::Output {
                let v = s.i32x8(self.1);
                match self.0 {
                    target::R5G6B5 => (
                        decode16::<S, { target::R5G6B5 }>(s, v).to_array(),
                        encode16::<S, { target::R5G6B5 }>(s, v).to_array(),
                    ),
                    target::X1R5G5B5 => (
                        decode16::<S, { target::X1R5G5B5 }>(s, v).to_array(),
                        encode16::<S, { target::X1R5G5B5 }>(s, v).to_array(),
                    ),
                    _ => (
                        decode16::<S, { target::A1R5G5B5 }>(s, v).to_array(),
                        encode16::<S, { target::A1R5G5B5 }>(s, v).to_array(),
                    ),
                }
            }
        }
        for (code, f) in [
            (target::R5G6B5, Format::R5G6B5),
            (target::X1R5G5B5, Format::X1R5G5B5),
            (target::A1R5G5B5, Format::A1R5G5B5),
        ] {
            for level in levels() {
                for base in (0..0x1_0000).step_by(8) {
                    let raw: [i32; 8] = std::array::from_fn(|i| base + i as i32);
                    let (dec, _) = level.dispatch(&Codes(code, raw));
                    for i in 0..8 {
                        assert_eq!(
                            dec[i] as u32,
                            f.decode_argb(raw[i] as u32),
                            "{f:?} {:#x}",
                            raw[i]
                        );
                    }
                }
                for c in (0..256).step_by(8) {
                    // Channels c, 255 − c, c ^ 0x5A, c + 1 (B, G, R, A).
                    let px: [i32; 8] = std::array::from_fn(|i| {
                        let c = c + i as u32;
                        u32::from_le_bytes([
                            c as u8,
                            (255 - c) as u8,
                            (c ^ 0x5A) as u8,
                            (c + 1) as u8,
                        ]) as i32
                    });
                    let (_, enc) = level.dispatch(&Codes(code, px));
                    for i in 0..8 {
                        let argb = px[i] as u32;
                        assert_eq!(enc[i] as u32, f.encode_argb(argb), "{f:?} {argb:#x}");
                    }
                }
            }
        }
    }

    /// One fragment through the merger of `st` into `cf` over the colour
    /// `dst` (and depth `stored`): the pixel's new bytes, its depth
    /// bytes and whether it passed, the same at every level.
    fn one(
        st: &PipelineState,
        cf: Format,
        df: Option<Format>,
        rgba: u32,
        z: f32,
        dst: u32,
        stored: u32,
    ) -> (u32, u32, u32) {
        let m = ctx(st, cf, df).merge8().expect("covered");
        let (cbpp, dbpp) = (cf.bytes_per_pixel() as usize, 4);
        let mut c = vec![0u8; 64];
        let mut d = vec![0u8; 64];
        crate::format::store_raw(&mut c, cbpp, dst);
        crate::format::store_raw(&mut d, 4, stored);
        let (c, d, k) = merged(&m, false, cbpp, dbpp, 0, &c, &d, 1, [rgba; 8], 1, [z; 8]);
        (
            crate::format::load_raw(&c, cbpp),
            crate::format::load_raw(&d, 4),
            k,
        )
    }

    /// SRCALPHA/INVSRCALPHA onto R5G6B5, worked by hand: source (B, G,
    /// R, A) = (200, 100, 50, 128) over 0xF810 (red 31 → 255, green 0,
    /// blue 16 → 16·255/31 = 131.6 → 132, alpha absent → 255):
    /// B (200·128 + 132·127) / 255 = 42 364 / 255 = 166.1 → 166,
    /// G 12 800 / 255 = 50.2 → 50, R (6 400 + 255·127) / 255 = 152.1
    /// → 152; encoded 166 >> 3 = 20, 50 >> 2 = 12, 152 >> 3 = 19:
    /// 19 << 11 | 12 << 5 | 20 = 0x9994.
    #[test]
    fn r5g6b5_blend_by_hand() {
        let mut st = PipelineState::default();
        st.blend.enable = true;
        st.blend.src = Blend::SrcAlpha;
        st.blend.dst = Blend::InvSrcAlpha;
        let src = u32::from_le_bytes([200, 100, 50, 128]);
        let (c, _, k) = one(&st, Format::R5G6B5, None, src, 0.0, 0xF810, 0);
        assert_eq!((c, k), (0x9994, 1));
        // A1R5G5B5 with the same blend over 0xFC10 (alpha 1 → 255, red
        // 31, green 0, blue 16): alpha (128·128 + 255·127) / 255 = 191.3
        // → 191, whose top bit is 1; blue 166 >> 3 = 20, green 50 >> 3 =
        // 6, red 19: 1 << 15 | 19 << 10 | 6 << 5 | 20 = 0xCCD4.
        let (c, _, _) = one(&st, Format::A1R5G5B5, None, src, 0.0, 0xFC10, 0);
        assert_eq!(c, 0xCCD4);
    }

    /// BLENDOP MAX and REVSUBTRACT with ONE/ONE on X8R8G8B8, by hand:
    /// source (10, 200, 50, 0) and destination (100, 100, 100, X): MAX
    /// gives (100, 200, 100), REVSUBTRACT d − s = (90, 0, 50); the X byte
    /// is written 0.
    #[test]
    fn max_and_revsubtract_by_hand() {
        let mut st = PipelineState::default();
        st.blend.enable = true;
        st.blend.src = Blend::One;
        st.blend.dst = Blend::One;
        st.blend.op = BlendOp::Max;
        let src = u32::from_le_bytes([10, 200, 50, 0]);
        let dst = u32::from_le_bytes([100, 100, 100, 0x77]);
        let (c, _, _) = one(&st, Format::X8R8G8B8, None, src, 0.0, dst, 0);
        assert_eq!(c.to_le_bytes(), [100, 200, 100, 0]);
        st.blend.op = BlendOp::RevSubtract;
        let (c, _, _) = one(&st, Format::X8R8G8B8, None, src, 0.0, dst, 0);
        assert_eq!(c.to_le_bytes(), [90, 0, 50, 0]);
        // BLENDFACTOR/ZERO with factor 0x40_80_20_FF (A, R, G, B) on
        // A8R8G8B8: B 10·255 / 255 = 10, G 200·32 / 255 = 25.1 → 25, R
        // 50·128 / 255 = 25.1 → 25, A 0.
        st.blend.op = BlendOp::Add;
        st.blend.src = Blend::BlendFactor;
        st.blend.dst = Blend::Zero;
        st.blend.factor = 0x4080_20FF;
        let (c, _, _) = one(&st, Format::A8R8G8B8, None, src, 0.0, dst, 0);
        assert_eq!(c.to_le_bytes(), [10, 25, 25, 0]);
    }

    /// ALPHAFUNC GREATER with ALPHAREF 0x80: alpha 0x80 fails (nothing
    /// written, not counted), 0x81 passes; COLORWRITEENABLE red only on
    /// X1R5G5B5 keeps every bit but red's (bits 14..10).
    #[test]
    fn alpha_test_and_write_mask_by_hand() {
        let mut st = PipelineState::default();
        st.alpha_test.enable = true;
        st.alpha_test.func = CmpFunc::Greater;
        st.alpha_test.reference = 0x80;
        st.blend.color_write_enable = 1;
        let white = |a: u8| u32::from_le_bytes([255, 255, 255, a]);
        let (c, _, k) = one(&st, Format::X1R5G5B5, None, white(0x80), 0.0, 0x8123, 0);
        assert_eq!((c, k), (0x8123, 0));
        let (c, _, k) = one(&st, Format::X1R5G5B5, None, white(0x81), 0.0, 0x8123, 0);
        assert_eq!((c, k), (0xFD23, 1));
    }

    /// Stencil by hand, on D24S8 (depth in bits 31..8, stencil the low
    /// byte) with ZFUNC LESS and depth writes; the fragment's z = 0.25
    /// is 0x40_0000 (see `depth_by_hand`), the stored depth 0x80_0000
    /// (so it passes) unless said. Each case: STENCILFUNC, STENCILREF,
    /// STENCILWRITEMASK, the operation under test, the stored raw value,
    /// and the raw value and count the D3D rules give.
    #[test]
    fn stencil_by_hand() {
        use StencilOp as O;
        /// Name, STENCILFUNC, STENCILREF, STENCILWRITEMASK, the FAIL,
        /// ZFAIL and PASS operations, the stored raw value, the raw value
        /// and count expected.
        type Case = (
            &'static str,
            CmpFunc,
            u32,
            u32,
            [StencilOp; 3],
            u32,
            u32,
            u32,
        );
        let cases: [Case; 8] = [
            // INCR over 0x41: 0x42, depth written.
            (
                "incr",
                CmpFunc::Always,
                0,
                0xFF,
                [O::Keep, O::Keep, O::Incr],
                0x8000_0041,
                0x4000_0042,
                1,
            ),
            // INCRSAT at 255 stays 255; INCR at 255 wraps to 0.
            (
                "incrsat",
                CmpFunc::Always,
                0,
                0xFF,
                [O::Keep, O::Keep, O::IncrSat],
                0x8000_00FF,
                0x4000_00FF,
                1,
            ),
            (
                "incr wraps",
                CmpFunc::Always,
                0,
                0xFF,
                [O::Keep, O::Keep, O::Incr],
                0x8000_00FF,
                0x4000_0000,
                1,
            ),
            // DECR at 0 wraps to 255; DECRSAT stays 0.
            (
                "decr wraps",
                CmpFunc::Always,
                0,
                0xFF,
                [O::Keep, O::Keep, O::Decr],
                0x8000_0000,
                0x4000_00FF,
                1,
            ),
            (
                "decrsat",
                CmpFunc::Always,
                0,
                0xFF,
                [O::Keep, O::Keep, O::DecrSat],
                0x8000_0000,
                0x4000_0000,
                1,
            ),
            // REPLACE with reference 0x3C through write mask 0x0F over
            // 0xA5: (0xA5 & !0x0F) | (0x3C & 0x0F) = 0xA0 | 0x0C.
            (
                "replace",
                CmpFunc::Always,
                0x3C,
                0x0F,
                [O::Keep, O::Keep, O::Replace],
                0x8000_00A5,
                0x4000_00AC,
                1,
            ),
            // Depth fails (stored 0x10_0000 < 0x40_0000): ZFAIL's INCR,
            // 0x77 → 0x78, the depth kept, nothing written.
            (
                "zfail",
                CmpFunc::Always,
                0,
                0xFF,
                [O::Zero, O::Incr, O::Zero],
                0x1000_0077,
                0x1000_0078,
                0,
            ),
            // EQUAL 1 against 0x77 fails: FAIL's INVERT, 0x88; depth kept.
            (
                "fail",
                CmpFunc::Equal,
                1,
                0xFF,
                [O::Invert, O::Zero, O::Zero],
                0x8000_0077,
                0x8000_0088,
                0,
            ),
        ];
        for (name, func, r, wm, [fail, z_fail, pass], stored, want, n) in cases {
            let mut st = PipelineState::default();
            st.depth.z_enable = ZBufferType::True;
            st.depth.z_func = CmpFunc::Less;
            st.depth.z_write = true;
            st.stencil.enable = true;
            st.stencil.reference = r;
            st.stencil.write_mask = wm;
            st.stencil.front = StencilFace {
                fail,
                z_fail,
                pass,
                func,
            };
            let src = 0xFF10_2030;
            let (c, d, k) = one(
                &st,
                Format::A8R8G8B8,
                Some(Format::D24S8),
                src,
                0.25,
                7,
                stored,
            );
            assert_eq!((d, k), (want, n), "{name}: {d:#x}");
            assert_eq!(c, if n == 1 { src } else { 7 }, "{name}");
        }
        // D24X4S4: four stencil bits under four kept X bits (0xA).
        let mut st = PipelineState::default();
        st.depth.z_enable = ZBufferType::False;
        st.stencil.enable = true;
        st.stencil.front.pass = StencilOp::Incr;
        let f = Some(Format::D24X4S4);
        let (_, d, k) = one(&st, Format::A8R8G8B8, f, 0xFF10_2030, 0.25, 7, 0x8000_00A7);
        assert_eq!((d, k), (0x8000_00A8, 1), "no depth test: depth kept");
        let (_, d, _) = one(&st, Format::A8R8G8B8, f, 0xFF10_2030, 0.25, 7, 0x8000_00AF);
        assert_eq!(d, 0x8000_00A0, "INCR of 15 wraps to 0");
    }

    /// Two-sided stencil: a counter-clockwise triangle's fragment takes
    /// the CCW face (DECR: 5 → 4), a clockwise one the front face (INCR:
    /// 5 → 6); without TWOSIDEDSTENCILMODE both take the front face.
    #[test]
    fn two_sided_stencil_by_hand() {
        let mut st = PipelineState::default();
        st.depth.z_enable = ZBufferType::False;
        st.stencil.enable = true;
        st.stencil.two_sided = true;
        st.stencil.front.pass = StencilOp::Incr;
        st.stencil.ccw.pass = StencilOp::Decr;
        for (two, ccw, want) in [(true, true, 4), (true, false, 6), (false, true, 6)] {
            st.stencil.two_sided = two;
            let m = ctx(&st, Format::A8R8G8B8, Some(Format::D24S8))
                .merge8()
                .expect("covered");
            let c = vec![0u8; 64];
            let mut d = vec![0u8; 64];
            crate::format::store_raw(&mut d, 4, 0x8000_0005);
            let (_, d, k) = merged(&m, ccw, 4, 4, 0, &c, &d, 1, [0xFF00_0000; 8], 1, [0.5; 8]);
            assert_eq!((crate::format::load_raw(&d, 4), k), (0x8000_0000 | want, 1));
        }
    }

    /// Depth by hand. D16: z = 0.5 is 32 767.5 · … rounded to even,
    /// 32 768; LESS fails against 32 768 and passes against 32 769,
    /// writing 0x8000. D24S8: z = 0.25 is 4 194 303.75 → 0x40_0000;
    /// LESSEQUAL passes against 0x40_0000 and fails against 0x3F_FFFF;
    /// the stencil byte is kept.
    #[test]
    fn depth_by_hand() {
        let mut st = PipelineState::default();
        st.depth.z_enable = ZBufferType::True;
        st.depth.z_func = CmpFunc::Less;
        st.depth.z_write = true;
        let src = 0xFF10_2030;
        let f = Some(Format::D16);
        let (c, d, k) = one(&st, Format::A8R8G8B8, f, src, 0.5, 7, 32_768);
        assert_eq!((c, d & 0xFFFF, k), (7, 32_768, 0));
        let (c, d, k) = one(&st, Format::A8R8G8B8, f, src, 0.5, 7, 32_769);
        assert_eq!((c, d & 0xFFFF, k), (src, 0x8000, 1));
        st.depth.z_func = CmpFunc::LessEqual;
        // (Into R5G6B5: D24 into A8R8G8B8 is the fused kernel's.)
        let f = Some(Format::D24S8);
        let (_, d, k) = one(&st, Format::R5G6B5, f, src, 0.25, 7, 0x4000_0011);
        assert_eq!((d, k), (0x4000_0011, 1));
        let (c, d, k) = one(&st, Format::R5G6B5, f, src, 0.25, 7, 0x3FFF_FF22);
        assert_eq!((c, d, k), (7, 0x3FFF_FF22, 0));
    }
}
