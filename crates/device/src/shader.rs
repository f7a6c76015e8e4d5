//! Shader objects and vertex declarations: validation and layouts.
//!
//! In: the token streams of CREATEVERTEXSHADER (DX8 declaration + code),
//! CREATEPIXELSHADER, CREATEVERTEXSHADERFUNC, and the D3DVERTEXELEMENT9
//! arrays of CREATEVERTEXSHADERDECL. Out: validated, stored objects, and for
//! fixed-function use the [`VertexLayout`] a declaration describes.
//! Guarantees: validation never reads outside the given bytes; shader code
//! is validated by `softhal_shader` (the version of the right kind, and
//! every rule of that version: registers, slots, modifiers, flow control,
//! declarations), DX8 declarations are decoded by `softhal_shader::decl8`
//! (every token kind, errors at the token's DWORD), DX9 declarations here. For drawing with a vertex shader:
//! the input declarations of a function ([`ShaderCode::inputs`]), the
//! register mapping and constants of a DX8 declaration
//! ([`Dx8Decl::elements`], [`Dx8Decl::constants`]), and the elements a
//! draw's shader inputs come from ([`VsElement`]).

use crate::error::{DeviceError, Result};
use crate::limits;
use softhal_pipeline::{DeclType, PositionKind, TexCoordElement, VertexLayout};

/// Vertex or pixel shader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShaderKind {
    /// Vertex shader (version token 0xFFFE....).
    Vertex,
    /// Pixel shader (version token 0xFFFF....).
    Pixel,
}

fn dwords(bytes: &[u8]) -> Result<Vec<u32>> {
    if !bytes.len().is_multiple_of(4) {
        return Err(DeviceError::BadShader("size is not a multiple of 4"));
    }
    if bytes.len() as u64 > u64::from(limits::MAX_SHADER_BYTES) {
        return Err(DeviceError::Limit {
            what: "shader bytes",
            max: u64::from(limits::MAX_SHADER_BYTES),
        });
    }
    Ok(bytes.chunks_exact(4).map(crate::le_u32).collect())
}

/// A validated shader function (CREATEVERTEXSHADERFUNC, CREATEPIXELSHADER,
/// the code of a DX8 CREATEVERTEXSHADER).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShaderCode {
    /// The token stream (version token first).
    pub tokens: Vec<u32>,
    /// The id the UMD creates it under on the GPU (unique in the context,
    /// never 0; given by the context when the object is stored).
    pub serial: u32,
    /// Vertex shaders: each `dcl_usage[index] v#` (empty for vs_1_1 of
    /// DirectX 8, which declares nothing, and for pixel shaders).
    pub inputs: Vec<InputDcl>,
}

impl ShaderCode {
    /// The version token.
    pub fn version(&self) -> u32 {
        self.tokens.first().copied().unwrap_or(0)
    }
    /// Bytes it holds (the per-context budget).
    pub fn bytes(&self) -> usize {
        self.tokens.len().saturating_mul(4)
    }
}

/// One input declaration of a vertex shader: `v#register` is the
/// declaration element of this usage and usage index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputDcl {
    /// `D3DDECLUSAGE`.
    pub usage: u32,
    /// Usage index.
    pub index: u32,
    /// The input register.
    pub register: u8,
}

/// One element a vertex shader's input register reads: `ty` (a
/// `D3DDECLTYPE`) at byte `offset` of each vertex of `stream`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VsElement {
    /// The stream.
    pub stream: u32,
    /// Byte offset in the stream's vertex.
    pub offset: u32,
    /// `D3DDECLTYPE`.
    pub ty: u32,
    /// The input register.
    pub register: u8,
}

/// Validates a shader token stream of `kind` with the shader crate's front
/// end and validator (every rule of its version: `docs/shaders.md`).
/// Returns the validated code (serial 0). A stream of the other kind (a vertex-shader
/// version in CREATEPIXELSHADER) is [`DeviceError::BadShader`]; any other
/// broken rule is [`DeviceError::InvalidShader`] with the shader's own
/// offset and rule.
pub fn validate_shader(bytes: &[u8], kind: ShaderKind) -> Result<ShaderCode> {
    let t = dwords(bytes)?;
    let version = *t.first().ok_or(DeviceError::BadShader("empty shader"))?;
    let prefix = match kind {
        ShaderKind::Vertex => 0xFFFE,
        ShaderKind::Pixel => 0xFFFF,
    };
    if version >> 16 != prefix {
        return Err(DeviceError::BadShader("version token of the wrong kind"));
    }
    let v = softhal_shader::parse_and_validate(&t)?;
    let inputs = if kind == ShaderKind::Vertex {
        input_dcls(&v)
    } else {
        Vec::new()
    };
    Ok(ShaderCode {
        tokens: t,
        serial: 0,
        inputs,
    })
}

/// The `dcl_usage v#` declarations of a validated vertex shader.
fn input_dcls(v: &softhal_shader::Validated) -> Vec<InputDcl> {
    use softhal_shader::ir::{Operands, RegisterType, Semantic};
    v.shader()
        .instructions
        .iter()
        .filter_map(|ins| match &ins.operands {
            Operands::Dcl {
                semantic: Semantic::Usage { usage, index },
                dst,
            } if dst.reg.ty == RegisterType::Input => Some(InputDcl {
                usage: *usage as u32,
                index: u32::from(*index),
                register: u8::try_from(dst.reg.index).unwrap_or(u8::MAX),
            }),
            _ => None,
        })
        .collect()
}

/// A DX8 declaration as the device uses it: for fixed-function use, one
/// stream and its layout; for a vertex shader, the register of every
/// element and the constants. Decoded by the shader crate
/// ([`softhal_shader::decl8`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dx8Decl {
    /// The stream the data comes from.
    pub stream: u32,
    /// The layout (stride = bytes the declaration describes).
    pub layout: Option<VertexLayout>,
    /// Every D3DVSD_REG element: stream, offset in the stream's vertex
    /// (the bytes of the elements and D3DVSD_SKIPs before it in that
    /// stream), D3DVSDT type (numbered as D3DDECLTYPE), register.
    pub elements: Vec<VsElement>,
    /// D3DVSD_CONST: (first register, four DWORDs a register), loaded
    /// into the vertex-shader constants when the shader is set.
    pub constants: Vec<(u32, Vec<u32>)>,
}

/// Components of the float types FLOAT1..FLOAT4 (DX8 and DX9 both number
/// them 0..=3).
fn float_components(t: u32) -> u8 {
    match t {
        0 => 1,
        1 => 2,
        2 => 3,
        _ => 4,
    }
}

/// Validates a DX8 declaration token array (CREATEVERTEXSHADER) with the
/// shader crate's reader and, when every element comes from one stream,
/// the fixed-function layout it describes. With shader code
/// (`programmable`), every register must be one of the shader's v0–v15
/// (D3DVSDE_NORMAL2, register 16, feeds only fixed-function tweening).
pub fn parse_dx8_decl(bytes: &[u8], programmable: bool) -> Result<Dx8Decl> {
    use softhal_shader::decl8::DeclToken;
    let t = dwords(bytes)?;
    let d = softhal_shader::decl8::parse(&t)?;
    if programmable
        && d.elements
            .iter()
            .any(|e| u32::from(e.register) >= limits::MAX_STREAMS)
    {
        return Err(DeviceError::BadShader("declaration register above v15"));
    }
    let elements: Vec<VsElement> = d
        .elements
        .iter()
        .map(|e| VsElement {
            stream: u32::from(e.stream),
            offset: e.offset,
            ty: e.ty.value(),
            register: e.register,
        })
        .collect();
    let constants = d
        .tokens
        .iter()
        .filter_map(|tok| match tok {
            DeclToken::Const { register, values } => Some((
                u32::from(*register),
                values.iter().flatten().copied().collect(),
            )),
            _ => None,
        })
        .collect();
    let stream = elements.first().map_or(0, |e| e.stream);
    let single = elements.iter().all(|e| e.stream == stream);
    let layout = if single {
        dx8_layout(&elements, d.stream_bytes(u8::try_from(stream).unwrap_or(0)))
    } else {
        None
    };
    Ok(Dx8Decl {
        stream,
        layout,
        elements,
        constants,
    })
}

/// The fixed-function layout of one stream's D3DVSD_REG elements (the
/// D3DVSDE_ register says what each is); `None` without a FLOAT3/FLOAT4
/// position or when the layout is not one the pipeline accepts.
fn dx8_layout(elements: &[VsElement], stride: u32) -> Option<VertexLayout> {
    let mut l = empty_layout();
    let mut has_pos = false;
    for e in elements {
        let (off, ty) = (e.offset, e.ty);
        match (e.register, ty) {
            (0, 2) => {
                l.position = PositionKind::Xyz;
                l.position_offset = off;
                has_pos = true;
            }
            (0, 3) => {
                l.position = PositionKind::Xyzw;
                l.position_offset = off;
                has_pos = true;
            }
            (3, 2) => l.normal = Some(off),
            (4, 0) => l.point_size = Some(off),
            // D3DVSDE_POSITION2 / NORMAL2 (tweening).
            (15, 2) => l.position2 = Some(off),
            (16, 2) => l.normal2 = Some(off),
            // D3DVSDE_DIFFUSE / SPECULAR, of any type.
            (5, _) => {
                l.diffuse = Some(off);
                l.diffuse_type = DeclType::from_d3d(ty).unwrap_or_default();
            }
            (6, _) => {
                l.specular = Some(off);
                l.specular_type = DeclType::from_d3d(ty).unwrap_or_default();
            }
            (7..=14, 0..=3) => {
                if let Some(slot) = e
                    .register
                    .checked_sub(7)
                    .and_then(|set| l.texcoords.get_mut(usize::from(set)))
                {
                    *slot = Some(TexCoordElement {
                        offset: off,
                        components: float_components(ty),
                    });
                }
            }
            _ => {}
        }
    }
    l.stride = stride;
    (has_pos && l.validate().is_ok()).then_some(l)
}

fn empty_layout() -> VertexLayout {
    VertexLayout {
        stride: 0,
        position: PositionKind::Xyz,
        position_offset: 0,
        blend_weights: None,
        normal: None,
        point_size: None,
        diffuse: None,
        specular: None,
        diffuse_type: DeclType::D3dColor,
        specular_type: DeclType::D3dColor,
        texcoords: [None; 8],
        position2: None,
        normal2: None,
    }
}

/// One element of a declaration that reads several streams: `size` bytes
/// at `src_offset` of each vertex of `stream` go to `dst_offset` of the
/// gathered (interleaved) vertex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GatherElement {
    /// Source stream.
    pub stream: u32,
    /// Offset in the stream's vertex.
    pub src_offset: u32,
    /// Offset in the gathered vertex.
    pub dst_offset: u32,
    /// Bytes.
    pub size: u32,
}

/// A validated DX9 vertex declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decl9 {
    /// Elements up to (excluding) the first D3DDECL_END.
    pub elements: Vec<[u32; 6]>,
    /// The stream when all elements use one, with its layout (stride 0:
    /// the stream's stride is used).
    pub single: Option<(u32, VertexLayout)>,
    /// Elements reading several streams: how to gather them into one
    /// interleaved vertex, and that vertex's layout (`None` without a
    /// position, or when `single` applies).
    pub gathered: Option<(Vec<GatherElement>, VertexLayout)>,
}

/// The fixed-function layout of elements `(offset, type, usage, usage
/// index)`; stride = the end of the last byte used. `None` without a
/// position (or if an element's end overflowed, which the offset and
/// element limits of [`parse_decl9`] rule out).
fn decl9_layout(items: &[(u32, u32, u32, u32)]) -> Option<VertexLayout> {
    let mut l = empty_layout();
    let mut pos = false;
    let mut end = 0u32;
    for &(off, ty, usage, idx) in items {
        end = end.max(off.checked_add(decl9_type_size(ty).unwrap_or(0))?);
        match (usage, ty, idx) {
            (0, 2, 0) => {
                l.position = PositionKind::Xyz;
                l.position_offset = off;
                pos = true;
            }
            (0, 3, 0) => {
                l.position = PositionKind::Xyzw;
                l.position_offset = off;
                pos = true;
            }
            (9, 3, 0) => {
                l.position = PositionKind::Xyzrhw;
                l.position_offset = off;
                pos = true;
            }
            (3, 2, 0) => l.normal = Some(off),
            // POSITION1 / NORMAL1: the tweening targets.
            (0, 2, 1) => l.position2 = Some(off),
            (3, 2, 1) => l.normal2 = Some(off),
            (4, 0, 0) => l.point_size = Some(off),
            // COLOR0 / COLOR1 of any type (converted as the type says).
            (10, _, 0) => {
                l.diffuse = Some(off);
                l.diffuse_type = DeclType::from_d3d(ty).unwrap_or_default();
            }
            (10, _, 1) => {
                l.specular = Some(off);
                l.specular_type = DeclType::from_d3d(ty).unwrap_or_default();
            }
            (5, 0..=3, 0..=7) => {
                if let Some(slot) = l.texcoords.get_mut(idx as usize) {
                    *slot = Some(TexCoordElement {
                        offset: off,
                        components: float_components(ty),
                    });
                }
            }
            _ => {}
        }
    }
    l.stride = end;
    pos.then_some(l)
}

/// Bytes of a D3DDECLTYPE, `None` for UNUSED/unknown.
fn decl9_type_size(t: u32) -> Option<u32> {
    DeclType::from_d3d(t).map(DeclType::size)
}

/// Validates D3DVERTEXELEMENT9s (stream, offset, type, method, usage,
/// usage index as u32s).
pub fn parse_decl9(elements: &[[u32; 6]]) -> Result<Decl9> {
    if elements.len() as u64 > u64::from(limits::MAX_DECL_ELEMENTS) {
        return Err(DeviceError::Limit {
            what: "declaration elements",
            max: u64::from(limits::MAX_DECL_ELEMENTS),
        });
    }
    let mut out = Vec::new();
    for e in elements {
        let [stream, offset, ty, method, usage, idx] = *e;
        if stream == 0xFF {
            break; // D3DDECL_END
        }
        if stream >= limits::MAX_STREAMS {
            return Err(DeviceError::BadValue {
                what: "D3DVERTEXELEMENT9.Stream",
                value: stream,
            });
        }
        let size = decl9_type_size(ty).ok_or(DeviceError::BadValue {
            what: "D3DVERTEXELEMENT9.Type",
            value: ty,
        })?;
        if method > 6 {
            return Err(DeviceError::BadValue {
                what: "D3DVERTEXELEMENT9.Method",
                value: method,
            });
        }
        if usage > 13 {
            return Err(DeviceError::BadValue {
                what: "D3DVERTEXELEMENT9.Usage",
                value: usage,
            });
        }
        if offset
            .checked_add(size)
            .is_none_or(|end| end > limits::MAX_STREAM_STRIDE)
        {
            return Err(DeviceError::BadValue {
                what: "D3DVERTEXELEMENT9.Offset",
                value: offset,
            });
        }
        let _ = idx;
        out.push(*e);
    }
    let first_stream = out.first().map(|e| e[0]);
    let single_stream = first_stream.filter(|s| out.iter().all(|e| e[0] == *s));
    let single = single_stream.and_then(|s| {
        let items: Vec<_> = out.iter().map(|e| (e[1], e[2], e[4], e[5])).collect();
        decl9_layout(&items).map(|l| (s, l))
    });
    // Several streams: elements are packed in declaration order.
    let gathered = if single_stream.is_none() && !out.is_empty() {
        let mut dst = 0u32;
        let mut elems = Vec::with_capacity(out.len());
        let mut items = Vec::with_capacity(out.len());
        for e in &out {
            let size = decl9_type_size(e[2]).unwrap_or(0);
            elems.push(GatherElement {
                stream: e[0],
                src_offset: e[1],
                dst_offset: dst,
                size,
            });
            items.push((dst, e[2], e[4], e[5]));
            // ≤ MAX_DECL_ELEMENTS (checked above) sizes of ≤ 16 bytes.
            dst = dst.saturating_add(size);
        }
        decl9_layout(&items).map(|l| (elems, l))
    } else {
        None
    };
    Ok(Decl9 {
        elements: out,
        single,
        gathered,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(t: &[u32]) -> Vec<u8> {
        t.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn shader_streams() {
        // vs_1_1: mov oPos, v0 ; end
        let ok = b(&[
            0xFFFE_0101,
            0x0000_0001,
            0xC00F_0000,
            0x90E4_0000,
            0x0000_FFFF,
        ]);
        assert!(validate_shader(&ok, ShaderKind::Vertex).is_ok());
        assert!(validate_shader(&ok, ShaderKind::Pixel).is_err());
        // missing END
        assert!(validate_shader(&ok[..16], ShaderKind::Vertex).is_err());
        // truncated instruction
        assert!(validate_shader(
            &b(&[0xFFFE_0101, 0x0000_0001, 0xC00F_0000]),
            ShaderKind::Vertex
        )
        .is_err());
        // comment skipping
        let c = b(&[0xFFFF_0200, 0x0002_FFFE, 1, 2, 0x0000_FFFF]);
        assert!(validate_shader(&c, ShaderKind::Pixel).is_ok());
        let bad_c = b(&[0xFFFF_0200, 0x0009_FFFE, 1, 2, 0x0000_FFFF]);
        assert!(validate_shader(&bad_c, ShaderKind::Pixel).is_err());
        // SM2 length field: add r0, r1, r2 (3 params)
        let sm2 = b(&[
            0xFFFE_0200,
            0x0300_0002,
            0x800F_0000,
            0x80E4_0001,
            0x80E4_0002,
            0x0000_FFFF,
        ]);
        assert!(validate_shader(&sm2, ShaderKind::Vertex).is_ok());
        let sm2_bad = b(&[0xFFFE_0200, 0x0900_0002, 0x800F_0000, 0x0000_FFFF]);
        assert!(validate_shader(&sm2_bad, ShaderKind::Vertex).is_err());
        assert!(validate_shader(&b(&[0xFFFE_0400, 0xFFFF]), ShaderKind::Vertex).is_err());
        assert!(validate_shader(&[1, 2, 3], ShaderKind::Vertex).is_err());
        assert!(validate_shader(&b(&[0xFFFE_0101, 0x0000_FFFF, 0]), ShaderKind::Vertex).is_err());
    }

    #[test]
    fn dx8_declaration_layout() {
        // STREAM(0), v0 FLOAT3, v5 D3DCOLOR, END
        let d = b(&[0x2000_0000, 0x4002_0000, 0x4004_0005, 0xFFFF_FFFF]);
        let p = parse_dx8_decl(&d, false).unwrap();
        let l = p.layout.unwrap();
        assert_eq!((l.stride, l.diffuse), (16, Some(12)));
        assert!(parse_dx8_decl(&b(&[0x2000_0000]), false).is_err());
        // CONSTMEM with count 1 → 4 DWORDs follow; truncated.
        assert!(parse_dx8_decl(&b(&[0x8200_0000, 1, 2, 0xFFFF_FFFF]), false).is_err());
    }

    #[test]
    fn dx8_declaration_errors_carry_the_token_offset() {
        // STREAM(0), REG(0, FLOAT3), REG of D3DVSDT value 9: token 2.
        let e = parse_dx8_decl(
            &b(&[0x2000_0000, 0x4002_0000, 0x4009_0001, 0xFFFF_FFFF]),
            false,
        )
        .unwrap_err();
        match e {
            DeviceError::InvalidShader(e) => {
                assert_eq!((e.kind(), e.dword), ("malformed_token", 2))
            }
            e => panic!("{e}"),
        }
    }

    #[test]
    fn d3dvsde_normal2_is_a_fixed_function_register_only() {
        // STREAM(0), REG(POSITION, FLOAT3), REG(NORMAL2 = 16, FLOAT3), END.
        let d = b(&[0x2000_0000, 0x4002_0000, 0x4002_0010, 0xFFFF_FFFF]);
        let l = parse_dx8_decl(&d, false).unwrap().layout.unwrap();
        assert_eq!((l.stride, l.normal2), (24, Some(12)));
        // A vs_1_1 has v0–v15: with code, register 16 is refused.
        assert!(matches!(
            parse_dx8_decl(&d, true),
            Err(DeviceError::BadShader(_))
        ));
    }

    #[test]
    fn dx8_types_are_the_first_eight_d3ddecltypes() {
        // D3DVSDT_FLOAT1..SHORT4 have the values and sizes of
        // D3DDECLTYPE_FLOAT1..SHORT4.
        for t in softhal_shader::decl8::VsdType::ALL {
            assert_eq!(Some(t.size()), decl9_type_size(t.value()), "{}", t.name());
        }
    }
}
