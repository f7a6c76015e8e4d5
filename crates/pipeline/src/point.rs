//! Point size and point sprites (D3D9).
//!
//! *Input*: the point states ([`PointState`]: POINTSIZE, POINTSIZE_MIN/MAX,
//! POINTSCALEENABLE, POINTSCALE_A/B/C, POINTSPRITEENABLE), a vertex's PSIZE
//! and camera-space distance, the viewport height. *Output*: the
//! rasterized point size in pixels ([`point_size`]) and the sprite
//! texture coordinates of a pixel ([`point_sprite_texcoord`]).
//! *Guarantees*: pure, total functions; sizes are non-negative and
//! at most [`MAX_POINT_SIZE`].
//!
//! ## Point size
//! `size = POINTSIZE` (or the vertex's PSIZE), then with POINTSCALEENABLE
//! (untransformed vertices only) `size = viewport_height · size ·
//! sqrt(1 / (A + B·d + C·d²))` with d the camera-space distance; clamped to
//! `[POINTSIZE_MIN, POINTSIZE_MAX]` and to [`MAX_POINT_SIZE`]. The vertex
//! stage computes it for every vertex of a draw that rasterizes points;
//! set-up turns points larger than one pixel into squares, and with
//! POINTSPRITEENABLE the rasterizer gives every stage the coordinates of
//! [`point_sprite_texcoord`].

/// Largest point size, in pixels (the device's MaxPointSize cap).
pub const MAX_POINT_SIZE: f32 = 256.0;

/// Point-size states.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointState {
    /// POINTSIZE.
    pub size: f32,
    /// POINTSIZE_MIN.
    pub min: f32,
    /// POINTSIZE_MAX.
    pub max: f32,
    /// POINTSCALEENABLE.
    pub scale_enable: bool,
    /// POINTSCALE_A, _B, _C.
    pub scale: [f32; 3],
    /// POINTSPRITEENABLE.
    pub sprite_enable: bool,
}

impl Default for PointState {
    /// D3D9 defaults: size 1, min 1, max 64, no scaling, A = 1, B = C = 0,
    /// no sprites.
    fn default() -> Self {
        PointState {
            size: 1.0,
            min: 1.0,
            max: 64.0,
            scale_enable: false,
            scale: [1.0, 0.0, 0.0],
            sprite_enable: false,
        }
    }
}

/// The rasterized size of a point, in pixels (module docs).
/// `vertex_size` is the vertex's PSIZE if it has one; `eye_distance` the
/// camera-space distance; scaling only applies when `pretransformed` is
/// false. A non-positive or NaN scale denominator leaves the size
/// unscaled.
pub fn point_size(
    state: &PointState,
    vertex_size: Option<f32>,
    eye_distance: f32,
    viewport_height: f32,
    pretransformed: bool,
) -> f32 {
    let mut size = vertex_size.unwrap_or(state.size);
    if state.scale_enable && !pretransformed {
        let [a, b, c] = state.scale;
        let d = eye_distance;
        let den = a + b * d + c * d * d;
        if den > 0.0 {
            size = viewport_height * size * (1.0 / den).sqrt();
        }
    }
    let hi = state.max.min(MAX_POINT_SIZE);
    let lo = state.min.min(hi);
    if size.is_nan() {
        lo.max(0.0)
    } else {
        size.clamp(lo, hi).max(0.0)
    }
}

/// Point-sprite texture coordinates of a pixel centre `(x, y)` on a sprite
/// of `size` pixels centred on `(cx, cy)`: u runs 0 → 1 left to right, v
/// 0 → 1 top to bottom. A zero size gives (0.5, 0.5).
pub fn point_sprite_texcoord(x: f32, y: f32, cx: f32, cy: f32, size: f32) -> [f32; 2] {
    if size <= 0.0 || size.is_nan() {
        return [0.5, 0.5];
    }
    [(x - cx) / size + 0.5, (y - cy) / size + 0.5]
}
