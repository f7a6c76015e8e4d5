//! Pixel history: what one draw did to a few watched pixels.
//!
//! *Input*: a [`PixelWatch`] (at most [`limits::MAX_WATCHED_PIXELS`]
//! pixels of the draw's render target) given to
//! [`crate::Renderer::draw_watched`]. *Output*: one [`PixelHistory`] per
//! watched pixel: the pixel's colour and depth/stencil before and after
//! the draw, and one [`PixelEvent`] per fragment the draw produced there
//! (several when primitives of the draw overlap), in the order the
//! pixel stage processed them: the primitive, the test that rejected the
//! fragment if any (scissor, colour key, alpha test, stencil, depth — each
//! with the values it compared), the shaded colour, the blend inputs,
//! factors and result, and the value stored.
//!
//! *How, and what it costs*: a watched draw renders exactly as an
//! unwatched one (the same call, the same kernels: its pixels are
//! byte-identical). Around it the renderer keeps a copy of each watched
//! pixel (colour and depth/stencil) as it was before the draw, then
//! replays the draw's primitives one at a time through set-up and the
//! rasterizer's edge walk restricted to that one pixel, into the copy,
//! with the generic pixel routines instantiated with a [`Recorder`] that
//! writes the events. Unwatched draws instantiate the same routines with
//! [`NoRecord`], whose methods are empty and inline away: no kernel gains
//! a branch. The replay takes the generic shading loop; draws whose normal
//! path is one of the two fused kernels (the textured kernel, fog fused
//! into the depth kernel) may differ from it by one unit per channel
//! (see the crate documentation), so [`PixelHistory::matches_target`]
//! says whether the replay's final value equals the pixel the draw left.
//!
//! *Bounds*: at most [`limits::MAX_WATCHED_PIXELS`] pixels, at most
//! [`limits::MAX_PIXEL_EVENTS`] events per pixel and draw (the rest are
//! counted in [`PixelHistory::events_dropped`]); the replay checks the
//! watchdog every [`limits::WATCHDOG_CHECK_ENTRIES`] primitives.

use crate::limits;
use crate::state::{Blend, BlendOp, CmpFunc, StencilOp};
use std::sync::Mutex;

/// The pixels a draw records events for (at most
/// [`limits::MAX_WATCHED_PIXELS`], distinct, in the order given).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PixelWatch {
    pixels: Vec<(u32, u32)>,
}

impl PixelWatch {
    /// Watches pixels `(x, y)` of the render target; `None` if there are
    /// more than [`limits::MAX_WATCHED_PIXELS`] distinct ones.
    pub fn new(pixels: &[(u32, u32)]) -> Option<Self> {
        let mut v: Vec<(u32, u32)> = Vec::new();
        for &p in pixels {
            if !v.contains(&p) {
                if v.len() >= limits::MAX_WATCHED_PIXELS {
                    return None;
                }
                v.push(p);
            }
        }
        Some(PixelWatch { pixels: v })
    }

    /// The watched pixels.
    pub fn pixels(&self) -> &[(u32, u32)] {
        &self.pixels
    }
}

/// Where a fragment's journey ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Every test passed; the colour was written (under the write mask).
    Written,
    /// Outside the scissor rectangle (D3DRS_SCISSORTESTENABLE): no test ran.
    Scissor,
    /// A colour-keyed texel (COLORKEYENABLE) discarded it before the tests.
    ColorKey,
    /// The alpha test failed.
    AlphaTest,
    /// The stencil test failed.
    Stencil,
    /// The depth test failed.
    Depth,
}

/// The alpha test of one fragment (D3DRS_ALPHAFUNC: `value func reference`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlphaTestEvent {
    /// D3DRS_ALPHAFUNC.
    pub func: CmpFunc,
    /// D3DRS_ALPHAREF (its low 8 bits).
    pub reference: u8,
    /// The fragment's alpha.
    pub value: u8,
    /// The test passed.
    pub passed: bool,
}

/// Which of the face's three stencil operations was applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StencilOpSlot {
    /// D3DRS_STENCILFAIL (the stencil test failed).
    Fail,
    /// D3DRS_STENCILZFAIL (the stencil test passed, the depth test failed).
    ZFail,
    /// D3DRS_STENCILPASS (both passed).
    Pass,
}

/// The stencil test and operation of one fragment
/// (`(reference & mask) func (stored & mask)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StencilEvent {
    /// The face's D3DRS_STENCILFUNC (or CCW_STENCILFUNC).
    pub func: CmpFunc,
    /// D3DRS_STENCILREF.
    pub reference: u32,
    /// D3DRS_STENCILMASK.
    pub mask: u32,
    /// D3DRS_STENCILWRITEMASK.
    pub write_mask: u32,
    /// The stencil value stored before this fragment.
    pub stored: u32,
    /// The test passed.
    pub passed: bool,
    /// The operation applied, and which one of the face's three it was.
    pub op: StencilOp,
    /// Which operation slot.
    pub slot: StencilOpSlot,
    /// The stencil value after the operation (under the write mask).
    pub result: u32,
    /// The primitive was counter-clockwise (under D3DRS_TWOSIDEDSTENCILMODE
    /// the CCW_STENCIL* states applied).
    pub ccw: bool,
}

/// The depth test of one fragment (`incoming func stored`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DepthEvent {
    /// D3DRS_ZFUNC.
    pub func: CmpFunc,
    /// The fragment's depth in the buffer's format (quantized; for
    /// D3DFMT_D32F_LOCKABLE the f32 bits).
    pub incoming: u32,
    /// The stored depth in the buffer's format.
    pub stored: u32,
    /// `incoming` as a value in `[0, 1]`.
    pub incoming_value: f32,
    /// `stored` as a value in `[0, 1]`.
    pub stored_value: f32,
    /// The test passed.
    pub passed: bool,
    /// The incoming depth was written (passed and D3DRS_ZWRITEENABLE).
    pub written: bool,
}

/// Blending of one fragment: `result = src × src_weight op dst × dst_weight`
/// per channel (colours and weights as D3DCOLOR, 0xAARRGGBB, weights in
/// 0..=255 for 0..=1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlendEvent {
    /// The shaded colour (the source).
    pub src: u32,
    /// The colour in the render target (the destination).
    pub dst: u32,
    /// D3DRS_SRCBLEND (BOTHSRCALPHA / BOTHINVSRCALPHA resolved).
    pub src_factor: Blend,
    /// D3DRS_DESTBLEND (resolved).
    pub dst_factor: Blend,
    /// D3DRS_BLENDOP.
    pub op: BlendOp,
    /// The alpha channel's source factor (D3DRS_SRCBLENDALPHA when
    /// SEPARATEALPHABLENDENABLE, else `src_factor`).
    pub src_factor_alpha: Blend,
    /// The alpha channel's destination factor.
    pub dst_factor_alpha: Blend,
    /// The alpha channel's operation.
    pub op_alpha: BlendOp,
    /// The source factor's value per channel.
    pub src_weight: u32,
    /// The destination factor's value per channel.
    pub dst_weight: u32,
    /// The blended colour.
    pub result: u32,
}

/// One fragment of a watched draw at a watched pixel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PixelEvent {
    /// The input primitive (0 = the draw's first) that produced it.
    pub primitive: u32,
    /// Where it ended.
    pub outcome: Outcome,
    /// The colour shading produced (D3DCOLOR; `None` when discarded
    /// before shading finished: scissor, colour key).
    pub shaded: Option<u32>,
    /// The alpha test, when enabled.
    pub alpha_test: Option<AlphaTestEvent>,
    /// The stencil test and operation, when enabled.
    pub stencil: Option<StencilEvent>,
    /// The depth test, when enabled.
    pub depth: Option<DepthEvent>,
    /// Blending, when enabled and the fragment got that far.
    pub blend: Option<BlendEvent>,
    /// The colour value stored in the target (its format's raw value),
    /// when the fragment was written.
    pub written: Option<u32>,
}

impl PixelEvent {
    fn new(primitive: u32, outcome: Outcome, shaded: Option<u32>) -> Self {
        PixelEvent {
            primitive,
            outcome,
            shaded,
            alpha_test: None,
            stencil: None,
            depth: None,
            blend: None,
            written: None,
        }
    }
}

/// What one draw did to one watched pixel.
#[derive(Debug, Clone, PartialEq)]
pub struct PixelHistory {
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
    /// The render target's raw value before the draw (`None`: outside it).
    pub color_before: Option<u32>,
    /// The render target's raw value after the draw.
    pub color_after: Option<u32>,
    /// The depth/stencil buffer's raw value before the draw (`None`: no
    /// depth buffer, or outside it).
    pub depth_before: Option<u32>,
    /// The depth/stencil buffer's raw value after the draw.
    pub depth_after: Option<u32>,
    /// The fragments, in the order they were processed.
    pub events: Vec<PixelEvent>,
    /// Events beyond [`limits::MAX_PIXEL_EVENTS`], not kept.
    pub events_dropped: u64,
    /// The replay of the events ended with the colour and depth/stencil
    /// values the draw left (false only when a fused kernel rounded
    /// differently from the generic loop; see the module documentation).
    pub matches_target: bool,
}

/// The recording state of the replay of one pixel (shared by reference
/// through the draw context; the replay is single-threaded).
#[derive(Debug, Default)]
pub(crate) struct Probe {
    inner: Mutex<ProbeLog>,
}

#[derive(Debug, Default)]
struct ProbeLog {
    primitive: u32,
    scissored: bool,
    events: Vec<PixelEvent>,
}

impl Probe {
    fn with<T>(&self, f: impl FnOnce(&mut ProbeLog) -> T) -> T {
        let mut g = match self.inner.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        f(&mut g)
    }

    /// Sets the primitive the next events belong to and whether the pixel
    /// lies outside the scissor rectangle.
    pub(crate) fn begin(&self, primitive: u32, scissored: bool) {
        self.with(|l| {
            l.primitive = primitive;
            l.scissored = scissored;
        });
    }

    /// True if the pixel is outside the scissor rectangle.
    pub(crate) fn scissored(&self) -> bool {
        self.with(|l| l.scissored)
    }

    fn push(&self, mut ev: PixelEvent) {
        self.with(|l| {
            ev.primitive = l.primitive;
            l.events.push(ev);
        });
    }

    /// The events of the current primitive (a few: one per set-up record
    /// of one input primitive at one pixel).
    pub(crate) fn take(&self) -> Vec<PixelEvent> {
        self.with(|l| std::mem::take(&mut l.events))
    }
}

/// What the pixel routines tell a recorder (see the module documentation).
/// Every method has an empty default body: [`NoRecord`] is the normal
/// path, and compiles to nothing.
pub(crate) trait Recorder {
    /// Starts a fragment with shaded colour `argb` (D3DCOLOR).
    fn start(argb: u32) -> Self;
    /// Records the alpha test.
    #[inline(always)]
    fn alpha(&mut self, _e: AlphaTestEvent) {}
    /// Records the stencil test and operation.
    #[inline(always)]
    fn stencil(&mut self, _e: StencilEvent) {}
    /// Records the depth test.
    #[inline(always)]
    fn depth(&mut self, _e: DepthEvent) {}
    /// Records blending.
    #[inline(always)]
    fn blend(&mut self, _e: impl FnOnce() -> BlendEvent) {}
    /// Ends the fragment with `outcome` (`written`: the raw colour stored).
    #[inline(always)]
    fn finish(self, _probe: Option<&Probe>, _outcome: Outcome, _written: Option<u32>)
    where
        Self: Sized,
    {
    }
    /// True if this recorder records (the routines skip nothing either way;
    /// only the scissor check of the replay reads this).
    const ON: bool = false;
}

/// The normal path: records nothing.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NoRecord;

impl Recorder for NoRecord {
    #[inline(always)]
    fn start(_argb: u32) -> Self {
        NoRecord
    }
}

/// The replay of a watched pixel: builds one [`PixelEvent`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Record(PixelEvent);

impl Recorder for Record {
    const ON: bool = true;
    fn start(argb: u32) -> Self {
        Record(PixelEvent::new(0, Outcome::Written, Some(argb)))
    }
    fn alpha(&mut self, e: AlphaTestEvent) {
        self.0.alpha_test = Some(e);
    }
    fn stencil(&mut self, e: StencilEvent) {
        self.0.stencil = Some(e);
    }
    fn depth(&mut self, e: DepthEvent) {
        self.0.depth = Some(e);
    }
    fn blend(&mut self, e: impl FnOnce() -> BlendEvent) {
        self.0.blend = Some(e());
    }
    fn finish(mut self, probe: Option<&Probe>, outcome: Outcome, written: Option<u32>) {
        self.0.outcome = outcome;
        self.0.written = written;
        if let Some(p) = probe {
            p.push(self.0);
        }
    }
}

/// Records a fragment discarded before the pixel tests (scissor, colour
/// key) when `R` records.
#[inline(always)]
pub(crate) fn discarded<R: Recorder>(probe: Option<&Probe>, outcome: Outcome) {
    if R::ON {
        if let Some(p) = probe {
            let outcome = if p.scissored() {
                Outcome::Scissor
            } else {
                outcome
            };
            p.push(PixelEvent::new(0, outcome, None));
        }
    }
}
