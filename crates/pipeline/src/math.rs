//! Plain maths shared by the state and the stages: 4×4 matrices in D3D's
//! row-vector convention and integer rectangles.
//!
//! *Input*: D3DMATRIX floats, rectangle corners. *Output*: [`Matrix`] and
//! [`Rect`] values and their products, transforms and intersections.
//! *Guarantees*: pure, total functions (a singular matrix has a defined
//! normal matrix); this module depends on no other module of the crate.

/// An integer rectangle, right and bottom exclusive (D3DRECT / RECT).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Rect {
    /// Left edge (inclusive).
    pub x1: i32,
    /// Top edge (inclusive).
    pub y1: i32,
    /// Right edge (exclusive).
    pub x2: i32,
    /// Bottom edge (exclusive).
    pub y2: i32,
}

impl Rect {
    /// A rectangle from its corners.
    pub fn new(x1: i32, y1: i32, x2: i32, y2: i32) -> Self {
        Rect { x1, y1, x2, y2 }
    }
    /// Intersection; may be empty.
    pub fn intersect(self, o: Rect) -> Rect {
        Rect {
            x1: self.x1.max(o.x1),
            y1: self.y1.max(o.y1),
            x2: self.x2.min(o.x2),
            y2: self.y2.min(o.y2),
        }
    }
    /// True if it contains no pixel.
    pub fn is_empty(self) -> bool {
        self.x1 >= self.x2 || self.y1 >= self.y2
    }
}

/// A 4×4 matrix, D3D row-vector convention (v' = v · M), `m[row][col]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Matrix(pub [[f32; 4]; 4]);

impl Matrix {
    /// The identity.
    pub const IDENTITY: Matrix = Matrix([
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]);
    /// From the 16 floats of a D3DMATRIX (_11, _12, ... _44).
    pub fn from_d3d(m: [f32; 16]) -> Self {
        let mut r = [[0.0; 4]; 4];
        for (i, v) in m.iter().enumerate() {
            r[i / 4][i % 4] = *v;
        }
        Matrix(r)
    }
    /// `self · other`.
    pub fn mul(&self, o: &Matrix) -> Matrix {
        let mut r = [[0.0f32; 4]; 4];
        for (i, row) in r.iter_mut().enumerate() {
            for (j, v) in row.iter_mut().enumerate() {
                *v = (0..4).map(|k| self.0[i][k] * o.0[k][j]).sum();
            }
        }
        Matrix(r)
    }
    /// The matrix that transforms normals for `self`: the inverse
    /// transpose of the whole 4×4, in the upper-left 3×3 of the result (the
    /// rest is the identity's; a normal `(x, y, z, 0)` times it is the
    /// transformed normal). For an affine `self` (`_14 = _24 = _34 = 0`,
    /// `_44 = 1`) that is the inverse transpose of its upper-left 3×3,
    /// computed in f64 as cofactors / determinant; for a non-affine one
    /// the whole matrix counts (its inverse by Gauss–Jordan elimination in
    /// f64), as Direct3D defines it. Correct for any invertible transform,
    /// non-uniform scaling included (a uniform scale `s` scales normals by
    /// `1/s`); a singular or non-finite matrix gives its own upper-left
    /// 3×3 instead.
    pub(crate) fn normal_matrix(&self) -> Matrix {
        let affine = self.0[0][3] == 0.0
            && self.0[1][3] == 0.0
            && self.0[2][3] == 0.0
            && self.0[3][3] == 1.0;
        if !affine {
            return self.normal_matrix_4x4();
        }
        let m = |r: usize, c: usize| f64::from(self.0[r][c]);
        let cof = [
            [
                m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1),
                m(1, 2) * m(2, 0) - m(1, 0) * m(2, 2),
                m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0),
            ],
            [
                m(0, 2) * m(2, 1) - m(0, 1) * m(2, 2),
                m(0, 0) * m(2, 2) - m(0, 2) * m(2, 0),
                m(0, 1) * m(2, 0) - m(0, 0) * m(2, 1),
            ],
            [
                m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1),
                m(0, 2) * m(1, 0) - m(0, 0) * m(1, 2),
                m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0),
            ],
        ];
        let det = m(0, 0) * cof[0][0] + m(0, 1) * cof[0][1] + m(0, 2) * cof[0][2];
        let mut out = Matrix::IDENTITY;
        for ((orow, crow), mrow) in out.0.iter_mut().zip(cof).zip(self.0) {
            for ((o, c), m) in orow.iter_mut().zip(crow).zip(mrow) {
                *o = if det != 0.0 && det.is_finite() {
                    (c / det) as f32
                } else {
                    m
                };
            }
        }
        out
    }

    /// [`Matrix::normal_matrix`] of a non-affine matrix: the upper-left 3×3
    /// of the transposed inverse of the whole 4×4.
    fn normal_matrix_4x4(&self) -> Matrix {
        let own_3x3 = || {
            let mut out = Matrix::IDENTITY;
            for (orow, mrow) in out.0.iter_mut().zip(self.0).take(3) {
                orow[..3].copy_from_slice(&mrow[..3]);
            }
            out
        };
        let mut a = self.0.map(|row| row.map(f64::from));
        let mut inv = [[0.0f64; 4]; 4];
        for (i, row) in inv.iter_mut().enumerate() {
            row[i] = 1.0;
        }
        for col in 0..4 {
            let pivot = (col..4)
                .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
                .unwrap_or(col);
            let p = a[pivot][col];
            if p == 0.0 || !p.is_finite() {
                return own_3x3();
            }
            a.swap(col, pivot);
            inv.swap(col, pivot);
            for k in 0..4 {
                a[col][k] /= p;
                inv[col][k] /= p;
            }
            for r in 0..4 {
                let f = a[r][col];
                if r != col && f != 0.0 {
                    for k in 0..4 {
                        a[r][k] -= f * a[col][k];
                        inv[r][k] -= f * inv[col][k];
                    }
                }
            }
        }
        let mut out = Matrix::IDENTITY;
        for (r, orow) in out.0.iter_mut().enumerate().take(3) {
            for (c, o) in orow.iter_mut().enumerate().take(3) {
                // Transposed.
                *o = inv[c][r] as f32;
            }
        }
        if out.0.iter().flatten().all(|x| x.is_finite()) {
            out
        } else {
            own_3x3()
        }
    }

    /// Row vector `v · self`.
    pub fn transform(&self, v: [f32; 4]) -> [f32; 4] {
        let m = &self.0;
        let mut r = [0.0f32; 4];
        for (j, out) in r.iter_mut().enumerate() {
            *out = v[0] * m[0][j] + v[1] * m[1][j] + v[2] * m[2][j] + v[3] * m[3][j];
        }
        r
    }
}

impl Default for Matrix {
    fn default() -> Self {
        Matrix::IDENTITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_matrix_is_the_inverse_transpose() {
        // Rotation about z by 90°: its own inverse transpose.
        let mut r = Matrix::IDENTITY;
        r.0[0] = [0.0, 1.0, 0.0, 0.0];
        r.0[1] = [-1.0, 0.0, 0.0, 0.0];
        r.0[3] = [5.0, 6.0, 7.0, 1.0];
        let n = r.normal_matrix();
        for i in 0..3 {
            for j in 0..3 {
                assert_eq!(n.0[i][j], r.0[i][j]);
            }
        }
        assert_eq!(n.0[3], [0.0, 0.0, 0.0, 1.0]);
        // Non-affine: _34 = 1, _43 = −1. The upper-left 3×3 of the
        // inverse is (A − b·t/d)⁻¹ = diag(1, 1, 1 + 1)⁻¹ (Schur
        // complement), so z normals halve; the 3×3 alone would keep them.
        let mut p = Matrix::IDENTITY;
        p.0[2][3] = 1.0;
        p.0[3][2] = -1.0;
        let n = p.normal_matrix();
        assert_eq!([n.0[0][0], n.0[1][1], n.0[2][2]], [1.0, 1.0, 0.5]);
        // Non-uniform scale (2, 4, 0.5) → (0.5, 0.25, 2).
        let mut s = Matrix::IDENTITY;
        s.0[0][0] = 2.0;
        s.0[1][1] = 4.0;
        s.0[2][2] = 0.5;
        let n = s.normal_matrix();
        assert_eq!([n.0[0][0], n.0[1][1], n.0[2][2]], [0.5, 0.25, 2.0]);
        // A normal stays perpendicular to a transformed tangent.
        let mut m = Matrix::IDENTITY;
        m.0[0] = [1.0, 2.0, 0.0, 0.0];
        m.0[1] = [0.5, 3.0, 1.0, 0.0];
        m.0[2] = [0.0, -1.0, 2.0, 0.0];
        let (t, nn) = ([1.0, -1.0, 2.0, 0.0], [2.0, 4.0, 1.0, 0.0]);
        assert_eq!(t[0] * nn[0] + t[1] * nn[1] + t[2] * nn[2], 0.0);
        let (t2, n2) = (m.transform(t), m.normal_matrix().transform(nn));
        assert!((t2[0] * n2[0] + t2[1] * n2[1] + t2[2] * n2[2]).abs() < 1e-5);
        // Singular: the matrix itself.
        let mut z = Matrix::IDENTITY;
        z.0[2][2] = 0.0;
        assert_eq!(z.normal_matrix(), z);
        z.0[2][3] = 1.0;
        z.0[3][3] = 0.0;
        let mut own = z;
        own.0[2][3] = 0.0;
        own.0[3][3] = 1.0;
        assert_eq!(z.normal_matrix(), own, "singular non-affine: its 3×3");
    }

    #[test]
    fn matrix_row_vectors() {
        let mut t = Matrix::IDENTITY;
        t.0[3] = [10.0, 20.0, 30.0, 1.0];
        assert_eq!(t.transform([1.0, 2.0, 3.0, 1.0]), [11.0, 22.0, 33.0, 1.0]);
        assert_eq!(t.mul(&Matrix::IDENTITY), t);
    }
}
