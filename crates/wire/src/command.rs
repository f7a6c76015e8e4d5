//! Typed DP2 commands that borrow their payload from the input bytes.
//!
//! In: a payload slice whose extent the decoder has already checked.
//! Out: [`Command`], one variant per opcode, holding zero-copy views
//! (`&[T]` of unaligned little-endian structs) or [`Records`] for opcodes
//! whose records carry trailing data of their own length (SETLIGHT, shader
//! creation and constants, patches, declarations, responses, kernels).
//! Guarantee: a `Records` value produced by the decoder iterates exactly the
//! records the decoder validated; iteration never panics.

use crate::error::EncodeError;
use crate::structs::*;
use core::marker::PhantomData;
use zerocopy::{FromBytes, IntoBytes};

/// Views a `T` at the front of `bytes`.
pub(crate) fn view<T: Dp2Struct>(bytes: &[u8]) -> Option<(&T, &[u8])> {
    T::ref_from_prefix(bytes).ok()
}

/// Views `n` consecutive `T` at the front of `bytes`.
pub(crate) fn view_slice<
    T: FromBytes + zerocopy::KnownLayout + zerocopy::Immutable + zerocopy::Unaligned,
>(
    bytes: &[u8],
    n: usize,
) -> Option<(&[T], &[u8])> {
    <[T]>::ref_from_prefix_with_elems(bytes, n).ok()
}

/// Why one variable-length record could not be parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RecordError {
    /// This record needs this many bytes in all (from its start).
    Need(u64),
    /// Arithmetic on a declared length overflowed.
    Overflow(&'static str),
}

/// A DP2 record that carries trailing data of its own declared length.
pub trait VarRecord<'a>: Sized + Copy {
    /// Parses one record from the front of `bytes`, returning it and the
    /// number of bytes it occupies.
    #[doc(hidden)]
    fn parse(bytes: &'a [u8]) -> Result<(Self, usize), RecordErrorOpaque>;
    /// Appends the record's bytes.
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError>;
}

/// Opaque wrapper so the parse error type stays crate-private.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordErrorOpaque(pub(crate) RecordError);

fn need(n: u64) -> RecordErrorOpaque {
    RecordErrorOpaque(RecordError::Need(n))
}
fn overflow(what: &'static str) -> RecordErrorOpaque {
    RecordErrorOpaque(RecordError::Overflow(what))
}

/// `count` records of type `R` laid end to end in `bytes`.
#[derive(Clone, Copy)]
pub struct Records<'a, R> {
    bytes: &'a [u8],
    count: u16,
    _r: PhantomData<R>,
}

impl<'a, R: VarRecord<'a>> Records<'a, R> {
    /// Parses and validates `count` records at the front of `bytes`;
    /// returns the records and their total size.
    pub(crate) fn parse(bytes: &'a [u8], count: u16) -> Result<(Self, usize), RecordError> {
        let mut used = 0usize;
        for _ in 0..count {
            let rest = bytes.get(used..).unwrap_or_default();
            match R::parse(rest) {
                // n ≤ rest.len(), so this cannot overflow; checked all the same.
                Ok((_, n)) => {
                    used = used
                        .checked_add(n)
                        .ok_or(RecordError::Overflow("record list length"))?
                }
                Err(RecordErrorOpaque(RecordError::Need(n))) => {
                    return Err(RecordError::Need((used as u64).saturating_add(n)))
                }
                Err(RecordErrorOpaque(e)) => return Err(e),
            }
        }
        let bytes = bytes.get(..used).unwrap_or_default();
        Ok((
            Records {
                bytes,
                count,
                _r: PhantomData,
            },
            used,
        ))
    }

    /// Builds a record list by encoding `records` (for the encoder and tests).
    /// The returned bytes must outlive the `Records`; see [`Records::from_bytes`].
    pub fn encode_all(records: &[R]) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::new();
        for r in records {
            r.encode(&mut out)?;
        }
        Ok(out)
    }

    /// Views already-encoded records (e.g. from [`Records::encode_all`]).
    /// Returns `None` if the bytes are not exactly `count` valid records.
    pub fn from_bytes(bytes: &'a [u8], count: u16) -> Option<Self> {
        match Self::parse(bytes, count) {
            Ok((r, used)) if used == bytes.len() => Some(r),
            _ => None,
        }
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        usize::from(self.count)
    }

    /// True when there are no records.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The raw bytes of all records.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Iterates the records.
    pub fn iter(&self) -> RecordIter<'a, R> {
        RecordIter {
            rest: self.bytes,
            left: self.count,
            _r: PhantomData,
        }
    }
}

impl<'a, R: VarRecord<'a>> PartialEq for Records<'a, R> {
    fn eq(&self, other: &Self) -> bool {
        self.count == other.count && self.bytes == other.bytes
    }
}
impl<'a, R: VarRecord<'a>> Eq for Records<'a, R> {}

impl<'a, R: VarRecord<'a> + core::fmt::Debug> core::fmt::Debug for Records<'a, R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a, R: VarRecord<'a>> IntoIterator for &Records<'a, R> {
    type Item = R;
    type IntoIter = RecordIter<'a, R>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Iterator over [`Records`].
#[derive(Clone)]
pub struct RecordIter<'a, R> {
    rest: &'a [u8],
    left: u16,
    _r: PhantomData<R>,
}

impl<'a, R: VarRecord<'a>> Iterator for RecordIter<'a, R> {
    type Item = R;
    fn next(&mut self) -> Option<R> {
        let left = self.left.checked_sub(1)?;
        // The decoder validated every record, so this cannot fail; if it
        // ever did, iteration simply ends.
        let (r, n) = R::parse(self.rest).ok()?;
        self.rest = self.rest.get(n..)?;
        self.left = left;
        Some(r)
    }
}

fn take<T: Dp2Struct>(bytes: &[u8], at: usize, what_len: u64) -> Result<&T, RecordErrorOpaque> {
    let b = bytes.get(at..).ok_or(need(what_len))?;
    view::<T>(b).map(|(t, _)| t).ok_or(need(what_len))
}

/// `len` bytes at `at`, and the offset just past them.
fn take_bytes(bytes: &[u8], at: usize, len: u64) -> Result<(&[u8], usize), RecordErrorOpaque> {
    let end = (at as u64)
        .checked_add(len)
        .ok_or(overflow("record length"))?;
    let end_usize = usize::try_from(end).map_err(|_| need(end))?;
    let b = bytes.get(at..end_usize).ok_or(need(end))?;
    Ok((b, end_usize))
}

/// `n` consecutive `T` at `at`, and the offset just past them; `need(total)`
/// when they are not all there.
fn take_slice<T: FromBytes + zerocopy::KnownLayout + zerocopy::Immutable + zerocopy::Unaligned>(
    bytes: &[u8],
    at: usize,
    n: u64,
    total: u64,
) -> Result<(&[T], usize), RecordErrorOpaque> {
    let n = usize::try_from(n).map_err(|_| need(total))?;
    let rest = bytes.get(at..).ok_or(need(total))?;
    let (s, _) = view_slice::<T>(rest, n).ok_or(need(total))?;
    let end = at
        .checked_add(core::mem::size_of_val(s))
        .ok_or(overflow("record length"))?;
    Ok((s, end))
}

/// The offset `len` bytes after `at`.
fn after(at: usize, len: usize) -> Result<usize, RecordErrorOpaque> {
    at.checked_add(len).ok_or(overflow("record length"))
}

fn u32_len(what: &'static str, len: usize) -> Result<u32, EncodeError> {
    u32::try_from(len).map_err(|_| EncodeError::LengthTooLarge { what, len })
}

// ------------------------------------------------------------------ records

/// One SETLIGHT record: the head and, for `D3DHAL_SETLIGHT_DATA`, the light.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SetLightRecord<'a> {
    /// `D3DHAL_DP2SETLIGHT`.
    pub head: &'a Dp2SetLight,
    /// The `D3DLIGHT7` that follows when `dwDataType` = 2.
    pub light: Option<&'a D3dLight7>,
}

/// `D3DHAL_SETLIGHT_DATA`: a D3DLIGHT7 follows the record head.
pub const SETLIGHT_DATA: u32 = 2;

impl<'a> VarRecord<'a> for SetLightRecord<'a> {
    fn parse(bytes: &'a [u8]) -> Result<(Self, usize), RecordErrorOpaque> {
        let head: &Dp2SetLight = take(bytes, 0, 8)?;
        if head.data_type.get() == SETLIGHT_DATA {
            let light: &D3dLight7 = take(bytes, 8, 8 + 104)?;
            Ok((
                SetLightRecord {
                    head,
                    light: Some(light),
                },
                8 + 104,
            ))
        } else {
            Ok((SetLightRecord { head, light: None }, 8))
        }
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let is_data = self.head.data_type.get() == SETLIGHT_DATA;
        if is_data != self.light.is_some() {
            return Err(EncodeError::Inconsistent(
                "SETLIGHT: a D3DLIGHT7 follows exactly when dwDataType is D3DHAL_SETLIGHT_DATA",
            ));
        }
        out.extend_from_slice(self.head.as_bytes());
        if let Some(l) = self.light {
            out.extend_from_slice(l.as_bytes());
        }
        Ok(())
    }
}

/// One CREATEVERTEXSHADER record: DX8 declaration tokens then function tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CreateVertexShaderRecord<'a> {
    /// `D3DHAL_DP2CREATEVERTEXSHADER`.
    pub head: &'a Dp2CreateVertexShader,
    /// `dwDeclSize` bytes of declaration tokens.
    pub decl: &'a [u8],
    /// `dwCodeSize` bytes of function tokens.
    pub code: &'a [u8],
}

impl<'a> VarRecord<'a> for CreateVertexShaderRecord<'a> {
    fn parse(bytes: &'a [u8]) -> Result<(Self, usize), RecordErrorOpaque> {
        let head: &Dp2CreateVertexShader = take(bytes, 0, 12)?;
        let decl_len = u64::from(head.decl_size.get());
        let code_len = u64::from(head.code_size.get());
        // Two u32 sizes and 12 cannot overflow a u64.
        let total = decl_len.saturating_add(code_len).saturating_add(12);
        let (decl, decl_end) = take_bytes(bytes, 12, decl_len).map_err(|_| need(total))?;
        let (code, end) = take_bytes(bytes, decl_end, code_len).map_err(|_| need(total))?;
        Ok((CreateVertexShaderRecord { head, decl, code }, end))
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        if self.head.decl_size.get() != u32_len("declaration", self.decl.len())?
            || self.head.code_size.get() != u32_len("code", self.code.len())?
        {
            return Err(EncodeError::Inconsistent(
                "CREATEVERTEXSHADER: dwDeclSize/dwCodeSize differ from the data given",
            ));
        }
        out.extend_from_slice(self.head.as_bytes());
        out.extend_from_slice(self.decl);
        out.extend_from_slice(self.code);
        Ok(())
    }
}

/// A shader-constant record: register, count, and `PER × dwCount` DWORDs
/// of data (`PER` = 4 for float and integer vectors, 1 for BOOLs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConstRecord<'a, const PER: u64> {
    /// Register and count.
    pub head: &'a Dp2SetShaderConst,
    /// `PER × dwCount` DWORDs (float bits, integers or BOOLs).
    pub data: &'a [Dword32],
}

/// Float (SETVERTEXSHADERCONST, SETPIXELSHADERCONST) and integer (…CONSTI)
/// constants: `dwCount` 4-DWORD vectors.
pub type ShaderConstRecord<'a> = ConstRecord<'a, 4>;
/// BOOL constants (…CONSTB): `dwCount` DWORDs.
pub type ShaderConstBRecord<'a> = ConstRecord<'a, 1>;

impl<'a, const PER: u64> VarRecord<'a> for ConstRecord<'a, PER> {
    fn parse(bytes: &'a [u8]) -> Result<(Self, usize), RecordErrorOpaque> {
        let head: &Dp2SetShaderConst = take(bytes, 0, 8)?;
        // A u32 count times PER (≤ 4) DWORDs cannot overflow a u64.
        let dwords = u64::from(head.count.get()).saturating_mul(PER);
        let total = dwords.saturating_mul(4).saturating_add(8);
        let (data, end) = take_slice::<Dword32>(bytes, 8, dwords, total)?;
        Ok((ConstRecord { head, data }, end))
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        if u64::from(self.head.count.get()).checked_mul(PER) != Some(self.data.len() as u64) {
            return Err(EncodeError::Inconsistent(
                "shader constants: dwCount disagrees with the data given",
            ));
        }
        out.extend_from_slice(self.head.as_bytes());
        out.extend_from_slice(self.data.as_bytes());
        Ok(())
    }
}

/// A record made of a head whose size field counts the bytes that follow
/// (CREATEPIXELSHADER, CREATEVERTEXSHADERFUNC).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShaderCodeRecord<'a, H> {
    /// The head.
    pub head: &'a H,
    /// The shader tokens.
    pub code: &'a [u8],
}

/// CREATEPIXELSHADER record.
pub type CreatePixelShaderRecord<'a> = ShaderCodeRecord<'a, Dp2CreatePixelShader>;
/// CREATEVERTEXSHADERFUNC record.
pub type CreateVertexShaderFuncRecord<'a> = ShaderCodeRecord<'a, Dp2CreateVertexShaderFunc>;

/// A head that declares the length of the bytes following it.
pub trait CodeHead: Dp2Struct {
    /// The declared byte length.
    fn code_len(&self) -> u32;
    /// The object handle (`dwHandle`).
    fn handle(&self) -> u32;
}
impl CodeHead for Dp2CreatePixelShader {
    fn code_len(&self) -> u32 {
        self.code_size.get()
    }
    fn handle(&self) -> u32 {
        self.handle.get()
    }
}
impl CodeHead for Dp2CreateVertexShaderFunc {
    fn code_len(&self) -> u32 {
        self.size.get()
    }
    fn handle(&self) -> u32 {
        self.handle.get()
    }
}

impl<'a, H: CodeHead> VarRecord<'a> for ShaderCodeRecord<'a, H> {
    fn parse(bytes: &'a [u8]) -> Result<(Self, usize), RecordErrorOpaque> {
        let head: &H = take(bytes, 0, H::SIZE as u64)?;
        let len = u64::from(head.code_len());
        let (code, end) = take_bytes(bytes, H::SIZE, len)?;
        Ok((ShaderCodeRecord { head, code }, end))
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        if self.head.code_len() != u32_len("shader code", self.code.len())? {
            return Err(EncodeError::Inconsistent(
                "shader code: declared size ≠ bytes given",
            ));
        }
        out.extend_from_slice(self.head.as_bytes());
        out.extend_from_slice(self.code);
        Ok(())
    }
}

/// `RTPATCHFLAG_HASSEGS`.
pub const RTPATCHFLAG_HASSEGS: u32 = 1;
/// `RTPATCHFLAG_HASINFO`.
pub const RTPATCHFLAG_HASINFO: u32 = 2;

/// A patch record: head, optional per-edge segments, optional info.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PatchRecord<'a, S, I> {
    /// Handle and flags.
    pub head: &'a Dp2DrawPatch,
    /// Per-edge segment counts (when `RTPATCHFLAG_HASSEGS`).
    pub segments: Option<&'a S>,
    /// Patch description (when `RTPATCHFLAG_HASINFO`).
    pub info: Option<&'a I>,
}

/// DRAWRECTPATCH record.
pub type RectPatchRecord<'a> = PatchRecord<'a, RectPatchSegments, D3dRectPatchInfo>;
/// DRAWTRIPATCH record.
pub type TriPatchRecord<'a> = PatchRecord<'a, TriPatchSegments, D3dTriPatchInfo>;

impl<'a, S: Dp2Struct, I: Dp2Struct> VarRecord<'a> for PatchRecord<'a, S, I> {
    fn parse(bytes: &'a [u8]) -> Result<(Self, usize), RecordErrorOpaque> {
        let head: &Dp2DrawPatch = take(bytes, 0, 8)?;
        let flags = head.flags.get();
        let has_segs = flags & RTPATCHFLAG_HASSEGS != 0;
        let has_info = flags & RTPATCHFLAG_HASINFO != 0;
        // Three struct sizes cannot overflow a u64.
        let total = 8u64
            .saturating_add(if has_segs { S::SIZE as u64 } else { 0 })
            .saturating_add(if has_info { I::SIZE as u64 } else { 0 });
        let mut at = 8;
        let segments = if has_segs {
            let s: &S = take(bytes, at, total)?;
            at = after(at, S::SIZE)?;
            Some(s)
        } else {
            None
        };
        let info = if has_info {
            let i: &I = take(bytes, at, total)?;
            at = after(at, I::SIZE)?;
            Some(i)
        } else {
            None
        };
        Ok((
            PatchRecord {
                head,
                segments,
                info,
            },
            at,
        ))
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let flags = self.head.flags.get();
        if (flags & RTPATCHFLAG_HASSEGS != 0) != self.segments.is_some()
            || (flags & RTPATCHFLAG_HASINFO != 0) != self.info.is_some()
        {
            return Err(EncodeError::Inconsistent(
                "patch: Flags disagree with the data given",
            ));
        }
        out.extend_from_slice(self.head.as_bytes());
        if let Some(s) = self.segments {
            out.extend_from_slice(s.as_bytes());
        }
        if let Some(i) = self.info {
            out.extend_from_slice(i.as_bytes());
        }
        Ok(())
    }
}

/// One CREATEVERTEXSHADERDECL record.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VertexDeclRecord<'a> {
    /// Handle and element count.
    pub head: &'a Dp2CreateVertexShaderDecl,
    /// Exactly `dwNumVertexElements` elements (the END element may or may
    /// not be among them; consumers also stop at Stream 0xFF).
    pub elements: &'a [D3dVertexElement9],
}

impl<'a> VarRecord<'a> for VertexDeclRecord<'a> {
    fn parse(bytes: &'a [u8]) -> Result<(Self, usize), RecordErrorOpaque> {
        let head: &Dp2CreateVertexShaderDecl = take(bytes, 0, 8)?;
        let n64 = u64::from(head.num_elements.get());
        // A u32 count of 8-byte elements cannot overflow a u64.
        let total = n64.saturating_mul(8).saturating_add(8);
        let (elements, end) = take_slice::<D3dVertexElement9>(bytes, 8, n64, total)?;
        Ok((VertexDeclRecord { head, elements }, end))
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        if u64::from(self.head.num_elements.get()) != self.elements.len() as u64 {
            return Err(EncodeError::Inconsistent(
                "declaration: dwNumVertexElements ≠ elements given",
            ));
        }
        out.extend_from_slice(self.head.as_bytes());
        out.extend_from_slice(self.elements.as_bytes());
        Ok(())
    }
}

/// `D3DHAL_ROW_WEIGHTS`.
pub const ROW_WEIGHTS: u32 = 1;
/// `D3DHAL_COL_WEIGHTS`.
pub const COL_WEIGHTS: u32 = 2;

/// One SETCONVOLUTIONKERNELMONO record.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConvolutionKernelRecord<'a> {
    /// Width, height, flags.
    pub head: &'a Dp2SetConvolutionKernelMono,
    /// `dwWidth` row weights when `D3DHAL_ROW_WEIGHTS`.
    pub row_weights: Option<&'a [F32Le]>,
    /// `dwHeight` column weights when `D3DHAL_COL_WEIGHTS`.
    pub col_weights: Option<&'a [F32Le]>,
}

impl<'a> VarRecord<'a> for ConvolutionKernelRecord<'a> {
    fn parse(bytes: &'a [u8]) -> Result<(Self, usize), RecordErrorOpaque> {
        let head: &Dp2SetConvolutionKernelMono = take(bytes, 0, 12)?;
        let flags = head.flags.get();
        let rows = if flags & ROW_WEIGHTS != 0 {
            u64::from(head.width.get())
        } else {
            0
        };
        let cols = if flags & COL_WEIGHTS != 0 {
            u64::from(head.height.get())
        } else {
            0
        };
        // Two u32 counts of 4-byte weights cannot overflow a u64.
        let total = rows
            .saturating_add(cols)
            .saturating_mul(4)
            .saturating_add(12);
        let mut at = 12usize;
        let mut weights =
            |present: bool, n: u64| -> Result<Option<&'a [F32Le]>, RecordErrorOpaque> {
                if !present {
                    return Ok(None);
                }
                let (w, end) = take_slice::<F32Le>(bytes, at, n, total)?;
                at = end;
                Ok(Some(w))
            };
        let row_weights = weights(flags & ROW_WEIGHTS != 0, rows)?;
        let col_weights = weights(flags & COL_WEIGHTS != 0, cols)?;
        Ok((
            ConvolutionKernelRecord {
                head,
                row_weights,
                col_weights,
            },
            at,
        ))
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let flags = self.head.flags.get();
        let ok_rows = match self.row_weights {
            Some(w) => {
                flags & ROW_WEIGHTS != 0 && w.len() as u64 == u64::from(self.head.width.get())
            }
            None => flags & ROW_WEIGHTS == 0,
        };
        let ok_cols = match self.col_weights {
            Some(w) => {
                flags & COL_WEIGHTS != 0 && w.len() as u64 == u64::from(self.head.height.get())
            }
            None => flags & COL_WEIGHTS == 0,
        };
        if !(ok_rows && ok_cols) {
            return Err(EncodeError::Inconsistent(
                "convolution kernel: flags/sizes disagree with weights",
            ));
        }
        out.extend_from_slice(self.head.as_bytes());
        for w in [self.row_weights, self.col_weights].into_iter().flatten() {
            out.extend_from_slice(w.as_bytes());
        }
        Ok(())
    }
}

/// One query result in a RESPONSEQUERY record.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResponseEntry<'a> {
    /// Query id and data size.
    pub head: &'a Dp2ResponseQuery,
    /// `dwSize` bytes of result data.
    pub data: &'a [u8],
}

impl<'a> VarRecord<'a> for ResponseEntry<'a> {
    fn parse(bytes: &'a [u8]) -> Result<(Self, usize), RecordErrorOpaque> {
        let head: &Dp2ResponseQuery = take(bytes, 0, 8)?;
        let (data, end) = take_bytes(bytes, 8, u64::from(head.size.get()))?;
        Ok((ResponseEntry { head, data }, end))
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        if self.head.size.get() != u32_len("query result", self.data.len())? {
            return Err(EncodeError::Inconsistent("response: dwSize ≠ bytes given"));
        }
        out.extend_from_slice(self.head.as_bytes());
        out.extend_from_slice(self.data);
        Ok(())
    }
}

// ------------------------------------------------------------------ commands

/// One decoded DP2 command. Variants are named after the `D3DDP2OP_*`
/// opcode; record slices hold exactly the records the stream carries.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Command<'a> {
    /// `D3DDP2OP_POINTS`: N point runs.
    Points(&'a [Dp2Points]),
    /// `D3DDP2OP_INDEXEDLINELIST`: N lines, absolute indices.
    IndexedLineList(&'a [Dp2IndexedLineList]),
    /// `D3DDP2OP_INDEXEDTRIANGLELIST`: N triangles with edge flags.
    IndexedTriangleList(&'a [Dp2IndexedTriangleList]),
    /// `D3DDP2OP_RESERVED0`: never sent by a runtime; decoded as a bare
    /// header (no payload) so that the device can reject it at its offset.
    Reserved0 {
        /// The header's count field.
        count: u16,
    },
    /// `D3DDP2OP_RENDERSTATE`.
    RenderState(&'a [Dp2RenderState]),
    /// `D3DDP2OP_LINELIST`: `count` lines, 2·count vertices from `start`.
    LineList {
        /// Number of lines (N).
        count: u16,
        /// First vertex.
        start: &'a Dp2LineList,
    },
    /// `D3DDP2OP_LINESTRIP`: `count` lines, count+1 vertices.
    LineStrip {
        /// Number of lines (N).
        count: u16,
        /// First vertex.
        start: &'a Dp2LineList,
    },
    /// `D3DDP2OP_INDEXEDLINESTRIP`: start vertex then N+1 indices.
    IndexedLineStrip {
        /// Number of lines (N).
        count: u16,
        /// Bias added to every index.
        start: &'a Dp2StartVertex,
        /// N+1 indices.
        indices: &'a [Dp2Index],
    },
    /// `D3DDP2OP_TRIANGLELIST`: `count` triangles, 3·count vertices.
    TriangleList {
        /// Number of triangles (N).
        count: u16,
        /// First vertex.
        start: &'a Dp2LineList,
    },
    /// `D3DDP2OP_TRIANGLESTRIP`: N+2 vertices.
    TriangleStrip {
        /// Number of triangles (N).
        count: u16,
        /// First vertex.
        start: &'a Dp2LineList,
    },
    /// `D3DDP2OP_INDEXEDTRIANGLESTRIP`: start vertex then N+2 indices.
    IndexedTriangleStrip {
        /// Number of triangles (N).
        count: u16,
        /// Bias added to every index.
        start: &'a Dp2StartVertex,
        /// N+2 indices.
        indices: &'a [Dp2Index],
    },
    /// `D3DDP2OP_TRIANGLEFAN`: N+2 vertices.
    TriangleFan {
        /// Number of triangles (N).
        count: u16,
        /// First vertex.
        start: &'a Dp2LineList,
    },
    /// `D3DDP2OP_INDEXEDTRIANGLEFAN`: start vertex then N+2 indices.
    IndexedTriangleFan {
        /// Number of triangles (N).
        count: u16,
        /// Bias added to every index.
        start: &'a Dp2StartVertex,
        /// N+2 indices.
        indices: &'a [Dp2Index],
    },
    /// `D3DDP2OP_TRIANGLEFAN_IMM`: edge flags, DWORD alignment, then
    /// (N+2) inline vertices of the FVF stride.
    TriangleFanImm {
        /// Number of triangles (N).
        count: u16,
        /// `dwEdgeFlags`.
        edge_flags: &'a Dp2TriangleFanImm,
        /// The inline vertex bytes ((N+2) × stride).
        vertices: &'a [u8],
    },
    /// `D3DDP2OP_LINELIST_IMM`: DWORD alignment then 2N inline vertices.
    LineListImm {
        /// Number of lines (N).
        count: u16,
        /// The inline vertex bytes (2N × stride).
        vertices: &'a [u8],
    },
    /// `D3DDP2OP_TEXTURESTAGESTATE`.
    TextureStageState(&'a [Dp2TextureStageState]),
    /// `D3DDP2OP_INDEXEDTRIANGLELIST2`: start vertex then N triangles.
    IndexedTriangleList2 {
        /// Bias added to every index.
        start: &'a Dp2StartVertex,
        /// N triangles.
        triangles: &'a [Dp2IndexedTriangleList2],
    },
    /// `D3DDP2OP_INDEXEDLINELIST2`: start vertex then N lines.
    IndexedLineList2 {
        /// Bias added to every index.
        start: &'a Dp2StartVertex,
        /// N lines.
        lines: &'a [Dp2IndexedLineList],
    },
    /// `D3DDP2OP_VIEWPORTINFO` (N structs; the last wins).
    ViewportInfo(&'a [Dp2ViewportInfo]),
    /// `D3DDP2OP_WINFO` (N structs; the last wins).
    WInfo(&'a [Dp2WInfo]),
    /// `D3DDP2OP_SETPALETTE`.
    SetPalette(&'a [Dp2SetPalette]),
    /// `D3DDP2OP_UPDATEPALETTE`: exactly one record whatever N says
    /// (DDK documentation and drivers; refrast looped N).
    UpdatePalette {
        /// The header's count field (kept for round trips).
        count: u16,
        /// The record.
        update: &'a Dp2UpdatePalette,
        /// `wNumEntries` palette entries.
        entries: &'a [Dp2PaletteEntry],
    },
    /// `D3DDP2OP_ZRANGE`.
    ZRange(&'a [Dp2ZRange]),
    /// `D3DDP2OP_SETMATERIAL`.
    SetMaterial(&'a [Dp2SetMaterial]),
    /// `D3DDP2OP_SETLIGHT`.
    SetLight(Records<'a, SetLightRecord<'a>>),
    /// `D3DDP2OP_CREATELIGHT`.
    CreateLight(&'a [Dp2CreateLight]),
    /// `D3DDP2OP_SETTRANSFORM`.
    SetTransform(&'a [Dp2SetTransform]),
    /// `D3DDP2OP_EXT`.
    Ext(&'a [Dp2Ext]),
    /// `D3DDP2OP_TEXBLT`.
    TexBlt(&'a [Dp2TexBlt]),
    /// `D3DDP2OP_STATESET`.
    StateSet(&'a [Dp2StateSet]),
    /// `D3DDP2OP_SETPRIORITY`.
    SetPriority(&'a [Dp2SetPriority]),
    /// `D3DDP2OP_SETRENDERTARGET`.
    SetRenderTarget(&'a [Dp2SetRenderTarget]),
    /// `D3DDP2OP_CLEAR`: the head and N rectangles. With N = 0 the stream
    /// still holds one unused RECT slot, which is skipped (and written as
    /// zeros by the encoder).
    Clear {
        /// Flags, colour, depth, stencil.
        clear: &'a Dp2Clear,
        /// N rectangles (empty when N = 0).
        rects: &'a [Rect],
    },
    /// `D3DDP2OP_SETTEXLOD`.
    SetTexLod(&'a [Dp2SetTexLod]),
    /// `D3DDP2OP_SETCLIPPLANE`.
    SetClipPlane(&'a [Dp2SetClipPlane]),
    /// `D3DDP2OP_CREATEVERTEXSHADER`.
    CreateVertexShader(Records<'a, CreateVertexShaderRecord<'a>>),
    /// `D3DDP2OP_DELETEVERTEXSHADER`.
    DeleteVertexShader(&'a [Dp2VertexShader]),
    /// `D3DDP2OP_SETVERTEXSHADER`.
    SetVertexShader(&'a [Dp2VertexShader]),
    /// `D3DDP2OP_SETVERTEXSHADERCONST`.
    SetVertexShaderConst(Records<'a, ShaderConstRecord<'a>>),
    /// `D3DDP2OP_SETSTREAMSOURCE`.
    SetStreamSource(&'a [Dp2SetStreamSource]),
    /// `D3DDP2OP_SETSTREAMSOURCEUM`.
    SetStreamSourceUm(&'a [Dp2SetStreamSourceUm]),
    /// `D3DDP2OP_SETINDICES`.
    SetIndices(&'a [Dp2SetIndices]),
    /// `D3DDP2OP_DRAWPRIMITIVE`.
    DrawPrimitive(&'a [Dp2DrawPrimitive]),
    /// `D3DDP2OP_DRAWINDEXEDPRIMITIVE`.
    DrawIndexedPrimitive(&'a [Dp2DrawIndexedPrimitive]),
    /// `D3DDP2OP_CREATEPIXELSHADER`.
    CreatePixelShader(Records<'a, CreatePixelShaderRecord<'a>>),
    /// `D3DDP2OP_DELETEPIXELSHADER`.
    DeletePixelShader(&'a [Dp2PixelShader]),
    /// `D3DDP2OP_SETPIXELSHADER`.
    SetPixelShader(&'a [Dp2PixelShader]),
    /// `D3DDP2OP_SETPIXELSHADERCONST`.
    SetPixelShaderConst(Records<'a, ShaderConstRecord<'a>>),
    /// `D3DDP2OP_CLIPPEDTRIANGLEFAN`.
    ClippedTriangleFan(&'a [Dp2ClippedTriangleFan]),
    /// `D3DDP2OP_DRAWPRIMITIVE2`.
    DrawPrimitive2(&'a [Dp2DrawPrimitive2]),
    /// `D3DDP2OP_DRAWINDEXEDPRIMITIVE2`.
    DrawIndexedPrimitive2(&'a [Dp2DrawIndexedPrimitive2]),
    /// `D3DDP2OP_DRAWRECTPATCH`.
    DrawRectPatch(Records<'a, RectPatchRecord<'a>>),
    /// `D3DDP2OP_DRAWTRIPATCH`.
    DrawTriPatch(Records<'a, TriPatchRecord<'a>>),
    /// `D3DDP2OP_VOLUMEBLT`.
    VolumeBlt(&'a [Dp2VolumeBlt]),
    /// `D3DDP2OP_BUFFERBLT`.
    BufferBlt(&'a [Dp2BufferBlt]),
    /// `D3DDP2OP_MULTIPLYTRANSFORM`.
    MultiplyTransform(&'a [Dp2MultiplyTransform]),
    /// `D3DDP2OP_ADDDIRTYRECT`.
    AddDirtyRect(&'a [Dp2AddDirtyRect]),
    /// `D3DDP2OP_ADDDIRTYBOX`.
    AddDirtyBox(&'a [Dp2AddDirtyBox]),
    /// `D3DDP2OP_CREATEVERTEXSHADERDECL`.
    CreateVertexShaderDecl(Records<'a, VertexDeclRecord<'a>>),
    /// `D3DDP2OP_DELETEVERTEXSHADERDECL`.
    DeleteVertexShaderDecl(&'a [Dp2VertexShader]),
    /// `D3DDP2OP_SETVERTEXSHADERDECL`.
    SetVertexShaderDecl(&'a [Dp2VertexShader]),
    /// `D3DDP2OP_CREATEVERTEXSHADERFUNC`.
    CreateVertexShaderFunc(Records<'a, CreateVertexShaderFuncRecord<'a>>),
    /// `D3DDP2OP_DELETEVERTEXSHADERFUNC`.
    DeleteVertexShaderFunc(&'a [Dp2VertexShader]),
    /// `D3DDP2OP_SETVERTEXSHADERFUNC`.
    SetVertexShaderFunc(&'a [Dp2VertexShader]),
    /// `D3DDP2OP_SETVERTEXSHADERCONSTI`.
    SetVertexShaderConstI(Records<'a, ShaderConstRecord<'a>>),
    /// `D3DDP2OP_SETSCISSORRECT`.
    SetScissorRect(&'a [Rect]),
    /// `D3DDP2OP_SETSTREAMSOURCE2`.
    SetStreamSource2(&'a [Dp2SetStreamSource2]),
    /// `D3DDP2OP_BLT`.
    Blt(&'a [Dp2Blt]),
    /// `D3DDP2OP_COLORFILL`.
    ColorFill(&'a [Dp2ColorFill]),
    /// `D3DDP2OP_SETVERTEXSHADERCONSTB`.
    SetVertexShaderConstB(Records<'a, ShaderConstBRecord<'a>>),
    /// `D3DDP2OP_CREATEQUERY`.
    CreateQuery(&'a [Dp2CreateQuery]),
    /// `D3DDP2OP_SETRENDERTARGET2`.
    SetRenderTarget2(&'a [Dp2SetRenderTarget2]),
    /// `D3DDP2OP_SETDEPTHSTENCIL`.
    SetDepthStencil(&'a [Dp2SetDepthStencil]),
    /// `D3DDP2OP_RESPONSECONTINUE` (response buffers only): `dwTotalSize`
    /// covers the 8-byte record; any bytes beyond are kept in `extra`.
    ResponseContinue {
        /// The header's count (`wStateCount`; 0 from a well-behaved driver).
        count: u16,
        /// Bytes after the 8-byte record that `dwTotalSize` also covers.
        extra: &'a [u8],
    },
    /// `D3DDP2OP_RESPONSEQUERY` (response buffers only): N results;
    /// `dwTotalSize` equals 8 plus the entries exactly.
    ResponseQuery(Records<'a, ResponseEntry<'a>>),
    /// `D3DDP2OP_GENERATEMIPSUBLEVELS`.
    GenerateMipSubLevels(&'a [Dp2GenerateMipSubLevels]),
    /// `D3DDP2OP_DELETEQUERY`.
    DeleteQuery(&'a [Dp2DeleteQuery]),
    /// `D3DDP2OP_ISSUEQUERY`.
    IssueQuery(&'a [Dp2IssueQuery]),
    /// `D3DDP2OP_SETPIXELSHADERCONSTI`.
    SetPixelShaderConstI(Records<'a, ShaderConstRecord<'a>>),
    /// `D3DDP2OP_SETPIXELSHADERCONSTB`.
    SetPixelShaderConstB(Records<'a, ShaderConstBRecord<'a>>),
    /// `D3DDP2OP_SETSTREAMSOURCEFREQ`.
    SetStreamSourceFreq(&'a [Dp2SetStreamSourceFreq]),
    /// `D3DDP2OP_SURFACEBLT`.
    SurfaceBlt(&'a [Dp2Blt]),
    /// `D3DDP2OP_SETCONVOLUTIONKERNELMONO` (N records).
    SetConvolutionKernelMono(Records<'a, ConvolutionKernelRecord<'a>>),
    /// `D3DDP2OP_COMPOSERECTS`.
    ComposeRects(&'a [Dp2ComposeRects]),
    /// An opcode byte this layer does not know. The decoder stops after
    /// yielding it; the device hands it to `D3dParseUnknownCommand`, which
    /// may say where the next command starts ([`crate::Decoder::resume_at`]).
    Unknown {
        /// The opcode byte.
        opcode: u8,
    },
}
