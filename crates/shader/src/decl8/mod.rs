//! The DirectX 8 vertex shader declaration: `D3DVSD_*` tokens → [`Dx8Declaration`].
//!
//! - In: the untrusted DWORDs that precede a DX8 vertex shader's function
//!   in CREATEVERTEXSHADER (`dwDeclSize` bytes), ending with
//!   `D3DVSD_END()`; or their text ([`assemble`]).
//! - Out: a [`Dx8Declaration`]: every token in order as a typed
//!   [`DeclToken`], and what they mean for a draw: the stream elements
//!   (stream, byte offset, `D3DVSDT_*` type, input register), the constant
//!   registers `D3DVSD_CONST` loads, the tessellator's outputs, the bytes
//!   each stream's vertex describes. Text in the DDK's macro names
//!   ([`disassemble`]).
//! - Guarantees: never panics, never reads outside the slice, allocates at
//!   most in proportion to the stream's own length (a `D3DVSD_CONST` or
//!   extension count is checked against the DWORDs present before anything
//!   is copied); every bit of an accepted token lands in the IR (reserved
//!   bits are rejected), so `to_tokens(parse(t)) == t` and
//!   `assemble(disassemble(d)) == d`. Errors are [`ShaderError`]s with the
//!   DWORD offset of the offending token (`docs/shaders.md`, "The DirectX 8
//!   vertex shader declaration").
//!
//! Token layout (DirectX 8 `d3d8types.h`, the DDK's `d3dhal.h`): bits
//! 31:29 give the token type; `D3DVSD_SKIPBYTES` is the Xbox extension
//! (bit 27 of a skip token), accepted because emulators hand it on.

mod text;

pub use text::{assemble, disassemble};

use crate::error::{ErrorKind, ShaderError};
use crate::ir::RegisterType;

/// Token-type field values (bits 31:29) and the fixed bits of each layout.
pub mod token {
    /// Bits 31:29: the token type.
    pub const TYPE_SHIFT: u32 = 29;
    /// `D3DVSD_TOKEN_NOP`.
    pub const NOP: u32 = 0;
    /// `D3DVSD_TOKEN_STREAM`.
    pub const STREAM: u32 = 1;
    /// `D3DVSD_TOKEN_STREAMDATA`.
    pub const STREAMDATA: u32 = 2;
    /// `D3DVSD_TOKEN_TESSELLATOR`.
    pub const TESSELLATOR: u32 = 3;
    /// `D3DVSD_TOKEN_CONSTMEM`.
    pub const CONSTMEM: u32 = 4;
    /// `D3DVSD_TOKEN_EXT`.
    pub const EXT: u32 = 5;
    /// `D3DVSD_END()`: every bit set.
    pub const END: u32 = 0xFFFF_FFFF;
    /// Bit 28: tessellator stream (STREAM), skip (STREAMDATA), u/v
    /// (TESSELLATOR).
    pub const FLAG28: u32 = 1 << 28;
    /// Bit 27 of a skip token: the count is in bytes (Xbox
    /// `D3DVSD_SKIPBYTES`).
    pub const SKIP_BYTES: u32 = 1 << 27;
    /// Bits 19:16: `D3DVSDT_*` type, or a skip count.
    pub const DATA_TYPE_SHIFT: u32 = 16;
    /// Bits 4:0: the vertex input register (`D3DVSD_VERTEXREGMASK`).
    pub const REG_MASK: u32 = 0x1F;
    /// Bits 23:20: a TESSNORMAL's input register.
    pub const REG_IN_SHIFT: u32 = 20;
    /// Bits 28:25: a CONST token's count of registers.
    pub const CONST_COUNT_SHIFT: u32 = 25;
    /// Bits 6:0: a CONST token's first register.
    pub const CONST_ADDRESS_MASK: u32 = 0x7F;
    /// Bits 28:24: an extension token's count of DWORDs.
    pub const EXT_COUNT_SHIFT: u32 = 24;
    /// Bits 23:0: an extension token's information.
    pub const EXT_INFO_MASK: u32 = 0x00FF_FFFF;
}

/// A `D3DVSDT_*` data type: dimensionality and arithmetic type of a stream
/// element. Its value is also the `D3DDECLTYPE` of DirectX 9 (the eight
/// DirectX 8 types are the first eight there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VsdType {
    /// `D3DVSDT_FLOAT1`: one float, expanded to (x, 0, 0, 1).
    Float1,
    /// `D3DVSDT_FLOAT2`.
    Float2,
    /// `D3DVSDT_FLOAT3`.
    Float3,
    /// `D3DVSDT_FLOAT4`.
    Float4,
    /// `D3DVSDT_D3DCOLOR`: packed ARGB bytes, expanded to (R, G, B, A).
    D3dColor,
    /// `D3DVSDT_UBYTE4`: four unsigned bytes.
    Ubyte4,
    /// `D3DVSDT_SHORT2`: two signed shorts, expanded to (x, y, 0, 1).
    Short2,
    /// `D3DVSDT_SHORT4`.
    Short4,
}

impl VsdType {
    /// Every type, by value.
    pub const ALL: [VsdType; 8] = [
        VsdType::Float1,
        VsdType::Float2,
        VsdType::Float3,
        VsdType::Float4,
        VsdType::D3dColor,
        VsdType::Ubyte4,
        VsdType::Short2,
        VsdType::Short4,
    ];

    /// The type of field value `v`, `None` for 8..=15 (no DirectX 8 type).
    pub fn from_u32(v: u32) -> Option<VsdType> {
        VsdType::ALL.get(usize::try_from(v).ok()?).copied()
    }

    /// The field value (and `D3DDECLTYPE`).
    pub fn value(self) -> u32 {
        self as u32
    }

    /// Bytes of one element in a vertex.
    pub fn size(self) -> u32 {
        match self {
            VsdType::Float1 | VsdType::D3dColor | VsdType::Ubyte4 | VsdType::Short2 => 4,
            VsdType::Float2 | VsdType::Short4 => 8,
            VsdType::Float3 => 12,
            VsdType::Float4 => 16,
        }
    }

    /// The DDK name (`D3DVSDT_FLOAT3`).
    pub fn name(self) -> &'static str {
        match self {
            VsdType::Float1 => "D3DVSDT_FLOAT1",
            VsdType::Float2 => "D3DVSDT_FLOAT2",
            VsdType::Float3 => "D3DVSDT_FLOAT3",
            VsdType::Float4 => "D3DVSDT_FLOAT4",
            VsdType::D3dColor => "D3DVSDT_D3DCOLOR",
            VsdType::Ubyte4 => "D3DVSDT_UBYTE4",
            VsdType::Short2 => "D3DVSDT_SHORT2",
            VsdType::Short4 => "D3DVSDT_SHORT4",
        }
    }
}

/// The `D3DVSDE_*` names of the vertex input registers 0..=16 (the
/// fixed-function assignments; a programmable shader reads `v#` of the same
/// number). Registers above 16 do not exist.
pub const REGISTER_NAMES: [&str; 17] = [
    "D3DVSDE_POSITION",
    "D3DVSDE_BLENDWEIGHT",
    "D3DVSDE_BLENDINDICES",
    "D3DVSDE_NORMAL",
    "D3DVSDE_PSIZE",
    "D3DVSDE_DIFFUSE",
    "D3DVSDE_SPECULAR",
    "D3DVSDE_TEXCOORD0",
    "D3DVSDE_TEXCOORD1",
    "D3DVSDE_TEXCOORD2",
    "D3DVSDE_TEXCOORD3",
    "D3DVSDE_TEXCOORD4",
    "D3DVSDE_TEXCOORD5",
    "D3DVSDE_TEXCOORD6",
    "D3DVSDE_TEXCOORD7",
    "D3DVSDE_POSITION2",
    "D3DVSDE_NORMAL2",
];

/// The `D3DVSDE_` name of input register `r` (`None` above 16).
pub fn register_name(r: u8) -> Option<&'static str> {
    REGISTER_NAMES.get(usize::from(r)).copied()
}

/// Input registers a declaration can name (`D3DVSDE_POSITION` = 0 …
/// `D3DVSDE_NORMAL2` = 16).
pub const REGISTER_COUNT: u8 = 17;

/// One declaration token, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeclToken {
    /// `D3DVSD_NOP()`: ignored.
    Nop,
    /// `D3DVSD_STREAM(n)`: the elements that follow read stream `n` (0..=15).
    Stream(u8),
    /// `D3DVSD_STREAM_TESS()`: the tessellator's outputs follow.
    StreamTess,
    /// `D3DVSD_REG(register, type)`: the next `type.size()` bytes of the
    /// stream's vertex load input register `register`.
    Reg {
        /// Input register (0..=16).
        register: u8,
        /// Data type.
        ty: VsdType,
    },
    /// `D3DVSD_SKIP(n)`: `n` DWORDs (0..=15) of the vertex are not loaded.
    Skip(u8),
    /// `D3DVSD_SKIPBYTES(n)` (Xbox): `n` bytes (0..=15) are not loaded.
    SkipBytes(u8),
    /// `D3DVSD_CONST(register, n)` and its `4 n` DWORDs: constant registers
    /// `register …` are loaded when the shader is set.
    Const {
        /// First constant register (0..=127).
        register: u8,
        /// One value per register (at most 15).
        values: Vec<[u32; 4]>,
    },
    /// `D3DVSD_TESSNORMAL(input, output)`: the tessellator writes the
    /// normal it computes from register `input` into register `output`.
    TessNormal {
        /// Register whose stream data the normal is computed from (0..=15).
        input: u8,
        /// Register the normal is written to (0..=16).
        output: u8,
    },
    /// `D3DVSD_TESSUV(register)`: the tessellator writes the surface's
    /// (u, v) into `register` (0..=16).
    TessUv(u8),
    /// An extension token (`D3DVSD_TOKEN_EXT`): 24 bits of information and
    /// up to 31 DWORDs; carried, not interpreted.
    Ext {
        /// Bits 23:0.
        info: u32,
        /// The DWORDs that follow.
        data: Vec<u32>,
    },
}

impl DeclToken {
    /// DWORDs it takes in the stream.
    pub fn len(&self) -> usize {
        match self {
            DeclToken::Const { values, .. } => values.len().saturating_mul(4).saturating_add(1),
            DeclToken::Ext { data, .. } => data.len().saturating_add(1),
            _ => 1,
        }
    }

    /// Always false: every token takes at least its own DWORD.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Appends its DWORDs. Field values wider than their field (only
    /// possible in a hand-built token) are masked.
    pub fn encode(&self, out: &mut Vec<u32>) {
        use token::*;
        let ty = |t: u32| t << TYPE_SHIFT;
        match self {
            DeclToken::Nop => out.push(0),
            DeclToken::Stream(s) => out.push(ty(STREAM) | (u32::from(*s) & 0xF)),
            DeclToken::StreamTess => out.push(ty(STREAM) | FLAG28),
            DeclToken::Reg { register, ty: t } => out.push(
                ty(STREAMDATA) | (t.value() << DATA_TYPE_SHIFT) | (u32::from(*register) & REG_MASK),
            ),
            DeclToken::Skip(n) => {
                out.push(ty(STREAMDATA) | FLAG28 | ((u32::from(*n) & 0xF) << DATA_TYPE_SHIFT))
            }
            DeclToken::SkipBytes(n) => out.push(
                ty(STREAMDATA) | FLAG28 | SKIP_BYTES | ((u32::from(*n) & 0xF) << DATA_TYPE_SHIFT),
            ),
            DeclToken::Const { register, values } => {
                let n = u32::try_from(values.len()).unwrap_or(u32::MAX) & 0xF;
                out.push(
                    ty(CONSTMEM)
                        | (n << CONST_COUNT_SHIFT)
                        | (u32::from(*register) & CONST_ADDRESS_MASK),
                );
                for v in values.iter().take(15) {
                    out.extend_from_slice(v);
                }
            }
            DeclToken::TessNormal { input, output } => out.push(
                ty(TESSELLATOR)
                    | ((u32::from(*input) & 0xF) << REG_IN_SHIFT)
                    | (VsdType::Float3.value() << DATA_TYPE_SHIFT)
                    | (u32::from(*output) & REG_MASK),
            ),
            DeclToken::TessUv(r) => out.push(
                ty(TESSELLATOR)
                    | FLAG28
                    | (VsdType::Float2.value() << DATA_TYPE_SHIFT)
                    | (u32::from(*r) & REG_MASK),
            ),
            DeclToken::Ext { info, data } => {
                let n = u32::try_from(data.len()).unwrap_or(u32::MAX) & 0x1F;
                out.push(ty(EXT) | (n << EXT_COUNT_SHIFT) | (info & EXT_INFO_MASK));
                out.extend(data.iter().take(31));
            }
        }
    }
}

/// One stream element an input register loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Element {
    /// The stream (the last `D3DVSD_STREAM` before it; 0 if none).
    pub stream: u8,
    /// Byte offset in the stream's vertex: the bytes of the elements and
    /// skips before it in the same stream.
    pub offset: u32,
    /// Data type.
    pub ty: VsdType,
    /// Input register (0..=16).
    pub register: u8,
}

/// What the tessellator writes into an input register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TessOutput {
    /// `D3DVSD_TESSNORMAL`: a FLOAT3 normal computed from `input`'s data.
    Normal {
        /// Register whose data the normal is computed from.
        input: u8,
        /// Register written.
        output: u8,
    },
    /// `D3DVSD_TESSUV`: the FLOAT2 surface parameters.
    Uv {
        /// Register written.
        register: u8,
    },
}

/// The bytes a declaration describes for one stream's vertex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamExtent {
    /// The stream.
    pub stream: u8,
    /// Bytes of its elements and skips (the end of the last one).
    pub bytes: u32,
}

/// A decoded DirectX 8 vertex shader declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dx8Declaration {
    /// Every token before `D3DVSD_END()`, in order.
    pub tokens: Vec<DeclToken>,
    /// Every `D3DVSD_REG`, in order.
    pub elements: Vec<Element>,
    /// `D3DVSD_CONST`: (constant register, its four DWORDs), in order.
    pub constants: Vec<(u32, [u32; 4])>,
    /// `D3DVSD_TESSNORMAL` / `D3DVSD_TESSUV`, in order.
    pub tessellator: Vec<TessOutput>,
    /// The streams with elements or skips, in the order first selected.
    pub streams: Vec<StreamExtent>,
}

fn err<T>(kind: ErrorKind, dword: usize) -> Result<T, ShaderError> {
    Err(ShaderError::new(kind, dword))
}

fn malformed<T>(token: u32, what: &'static str, dword: usize) -> Result<T, ShaderError> {
    err(ErrorKind::MalformedToken { token, what }, dword)
}

/// Field `bits` of `t` shifted down.
fn field(t: u32, shift: u32, mask: u32) -> u32 {
    (t >> shift) & mask
}

fn register(r: u32, at: usize) -> Result<u8, ShaderError> {
    match u8::try_from(r) {
        Ok(r) if r < REGISTER_COUNT => Ok(r),
        _ => err(
            ErrorKind::RegisterOutOfRange {
                ty: RegisterType::Input,
                index: u16::try_from(r).unwrap_or(u16::MAX),
                limit: u16::from(REGISTER_COUNT),
            },
            at,
        ),
    }
}

/// The token at `at` (and the DWORDs it owns); returns it and the offset of
/// the next one.
fn decode_token(t: &[u32], at: usize) -> Result<(DeclToken, usize), ShaderError> {
    use token::*;
    let tok = t.get(at).copied().unwrap_or(END);
    let next = at.saturating_add(1);
    let reserved = |mask: u32, what: &'static str| -> Result<(), ShaderError> {
        if tok & mask != 0 {
            malformed(tok, what, at)
        } else {
            Ok(())
        }
    };
    let one = |d: DeclToken| Ok((d, next));
    match tok >> TYPE_SHIFT {
        NOP => {
            reserved(0x1FFF_FFFF, "bits 28:0 of a D3DVSD_NOP are not zero")?;
            one(DeclToken::Nop)
        }
        STREAM => {
            if tok & FLAG28 != 0 {
                reserved(0x0FFF_FFFF, "reserved bits set in D3DVSD_STREAM_TESS")?;
                one(DeclToken::StreamTess)
            } else {
                reserved(0x0FFF_FFF0, "reserved bits 27:4 set in D3DVSD_STREAM")?;
                one(DeclToken::Stream((tok & 0xF) as u8))
            }
        }
        STREAMDATA => {
            let n = field(tok, DATA_TYPE_SHIFT, 0xF);
            if tok & FLAG28 != 0 {
                reserved(0x07F0_FFFF, "reserved bits set in D3DVSD_SKIP")?;
                if tok & SKIP_BYTES != 0 {
                    one(DeclToken::SkipBytes(n as u8))
                } else {
                    one(DeclToken::Skip(n as u8))
                }
            } else {
                reserved(0x0FF0_FFE0, "reserved bits set in D3DVSD_REG")?;
                let Some(ty) = VsdType::from_u32(n) else {
                    return malformed(tok, "unknown D3DVSDT data type", at);
                };
                let register = register(tok & REG_MASK, at)?;
                one(DeclToken::Reg { register, ty })
            }
        }
        TESSELLATOR => {
            let ty = field(tok, DATA_TYPE_SHIFT, 0xF);
            if tok & FLAG28 != 0 {
                reserved(0x0FF0_FFE0, "reserved bits set in D3DVSD_TESSUV")?;
                if ty != VsdType::Float2.value() {
                    return malformed(tok, "D3DVSD_TESSUV's type is not D3DVSDT_FLOAT2", at);
                }
                one(DeclToken::TessUv(register(tok & REG_MASK, at)?))
            } else {
                reserved(0x0F00_FFE0, "reserved bits set in D3DVSD_TESSNORMAL")?;
                if ty != VsdType::Float3.value() {
                    return malformed(tok, "D3DVSD_TESSNORMAL's type is not D3DVSDT_FLOAT3", at);
                }
                one(DeclToken::TessNormal {
                    input: field(tok, REG_IN_SHIFT, 0xF) as u8,
                    output: register(tok & REG_MASK, at)?,
                })
            }
        }
        CONSTMEM => {
            reserved(0x01FF_FF80, "reserved bits 24:7 set in D3DVSD_CONST")?;
            let n = field(tok, CONST_COUNT_SHIFT, 0xF);
            let data = owned(t, at, n.saturating_mul(4))?;
            let values = data
                .chunks_exact(4)
                .filter_map(|c| <[u32; 4]>::try_from(c).ok())
                .collect::<Vec<_>>();
            Ok((
                DeclToken::Const {
                    register: (tok & CONST_ADDRESS_MASK) as u8,
                    values,
                },
                next.saturating_add(data.len()),
            ))
        }
        EXT => {
            let n = field(tok, EXT_COUNT_SHIFT, 0x1F);
            let data = owned(t, at, n)?.to_vec();
            let end = next.saturating_add(data.len());
            Ok((
                DeclToken::Ext {
                    info: tok & EXT_INFO_MASK,
                    data,
                },
                end,
            ))
        }
        7 => malformed(tok, "an END token must be 0xFFFFFFFF", at),
        _ => malformed(tok, "reserved token type 6", at),
    }
}

/// The `n` DWORDs after the token at `at`, checked against the stream.
fn owned(t: &[u32], at: usize, n: u32) -> Result<&[u32], ShaderError> {
    let start = at.saturating_add(1);
    start
        .checked_add(n as usize)
        .and_then(|end| t.get(start..end))
        .ok_or(ShaderError::new(ErrorKind::DeclarationDataOverrun(n), at))
}

/// Decodes a declaration (`D3DVSD_END()` last, nothing after it).
pub fn parse(t: &[u32]) -> Result<Dx8Declaration, ShaderError> {
    let mut tokens = Vec::new();
    let mut offsets = Vec::new();
    let mut at = 0usize;
    loop {
        let Some(&tok) = t.get(at) else {
            return err(ErrorKind::MissingEnd, at);
        };
        if tok == token::END {
            let after = t.len().saturating_sub(at).saturating_sub(1);
            if after != 0 {
                return err(ErrorKind::TrailingTokens(after), at.saturating_add(1));
            }
            break;
        }
        let (d, next) = decode_token(t, at)?;
        tokens.push(d);
        offsets.push(at);
        at = next;
    }
    Dx8Declaration::from_tokens(tokens, |i| offsets.get(i).copied().unwrap_or(0))
}

impl Dx8Declaration {
    /// The declaration `tokens` make: walks them once for the elements,
    /// constants, tessellator outputs and stream extents. `offset(i)` is
    /// the DWORD offset of token `i` (for errors).
    pub(crate) fn from_tokens(
        tokens: Vec<DeclToken>,
        offset: impl Fn(usize) -> usize,
    ) -> Result<Dx8Declaration, ShaderError> {
        /// The stream the stream-data tokens read.
        #[derive(Clone, Copy)]
        enum Current {
            Stream(u8),
            Tess,
        }
        let mut current = Current::Stream(0);
        // Bytes reached in each stream (a stream selected again resumes).
        let mut ends = [0u32; 16];
        let mut streams: Vec<StreamExtent> = Vec::new();
        let mut elements = Vec::new();
        let mut constants = Vec::new();
        let mut tessellator = Vec::new();
        for (i, tok) in tokens.iter().enumerate() {
            let at = offset(i);
            let bytes = match *tok {
                DeclToken::Reg { ty, .. } => ty.size(),
                DeclToken::Skip(n) => u32::from(n).saturating_mul(4),
                DeclToken::SkipBytes(n) => u32::from(n),
                _ => 0,
            };
            match tok {
                DeclToken::Stream(s) => current = Current::Stream(*s & 0xF),
                DeclToken::StreamTess => current = Current::Tess,
                DeclToken::Reg { .. } | DeclToken::Skip(_) | DeclToken::SkipBytes(_) => {
                    let Current::Stream(s) = current else {
                        return err(
                            ErrorKind::BadDeclaration(
                                "stream data after D3DVSD_STREAM_TESS (the tessellator stream \
                                 takes only D3DVSD_TESSNORMAL and D3DVSD_TESSUV)",
                            ),
                            at,
                        );
                    };
                    let Some(end) = ends.get_mut(usize::from(s)) else {
                        return err(ErrorKind::BadDeclaration("stream above 15"), at);
                    };
                    let offset = *end;
                    *end = offset.saturating_add(bytes);
                    match streams.iter_mut().find(|x| x.stream == s) {
                        Some(x) => x.bytes = *end,
                        None => streams.push(StreamExtent {
                            stream: s,
                            bytes: *end,
                        }),
                    }
                    if let DeclToken::Reg { register, ty } = *tok {
                        elements.push(Element {
                            stream: s,
                            offset,
                            ty,
                            register,
                        });
                    }
                }
                DeclToken::Const { register, values } => {
                    for (r, v) in (u32::from(*register)..).zip(values) {
                        constants.push((r, *v));
                    }
                }
                DeclToken::TessNormal { input, output } => tessellator.push(TessOutput::Normal {
                    input: *input,
                    output: *output,
                }),
                DeclToken::TessUv(r) => tessellator.push(TessOutput::Uv { register: *r }),
                DeclToken::Nop | DeclToken::Ext { .. } => {}
            }
        }
        Ok(Dx8Declaration {
            tokens,
            elements,
            constants,
            tessellator,
            streams,
        })
    }

    /// The DWORDs of the declaration, `D3DVSD_END()` last.
    pub fn to_tokens(&self) -> Vec<u32> {
        let mut out = Vec::new();
        for t in &self.tokens {
            t.encode(&mut out);
        }
        out.push(token::END);
        out
    }

    /// Bytes the declaration describes for `stream`'s vertex (0 if it
    /// names no element or skip there).
    pub fn stream_bytes(&self, stream: u8) -> u32 {
        self.streams
            .iter()
            .find(|s| s.stream == stream)
            .map_or(0, |s| s.bytes)
    }
}
