//! Generates `include/softhal.h`.
//!
//! In: the `softhal_wire::structs` field tables (every DP2 payload struct:
//! DDK name, size, field names, offsets, storage types, value kinds), the
//! `softhal_wire::names` tables (opcodes, flags, HRESULTs), the GPU packet
//! verifier table (`softhal_submit::packet::RULES`), and this
//! crate's [`crate::types`] descriptions (the call structures). Out: the
//! header text, deterministic. Every struct is followed by generated
//! `static_assert`s of its size and member offsets, so a C compiler checks
//! the header against the tables it came from (the C smoke test adds
//! checks against the reference's x64 numbers, written by hand).
//!
//! `tests/header.rs` regenerates the header and fails if the file differs
//! (`SOFTHAL_BLESS=1` rewrites it).

use crate::types::{self, StructDesc};
use softhal_wire::ddi_enum::{EnumTable, FlagsTable, ValueKind};
use softhal_wire::names::{self, codes};
use softhal_wire::structs::{self as ws, Dp2Struct, Field, FieldType};
use std::collections::BTreeMap;
use std::fmt::Write;

/// One member of a generated struct.
#[derive(Debug, Clone)]
struct GenMember {
    decl: String,
    name: String,
    offset: usize,
    size: usize,
}

/// A generated struct.
#[derive(Debug, Clone)]
struct GenStruct {
    name: String,
    size: usize,
    members: Vec<GenMember>,
}

impl GenStruct {
    fn renamed(&self, name: &str) -> GenStruct {
        GenStruct {
            name: name.to_string(),
            ..self.clone()
        }
    }
    fn union(mut self, member: &str, decl: &str) -> GenStruct {
        for m in &mut self.members {
            if m.name == member {
                m.decl = decl.to_string();
            }
        }
        self
    }
}

/// DDK enum typedefs: a DWORD-sized field whose value table has one of
/// these type names is declared with it.
const ENUM_TYPEDEFS: &[&str] = &[
    "D3DRENDERSTATETYPE",
    "D3DTRANSFORMSTATETYPE",
    "D3DPRIMITIVETYPE",
    "D3DSTATEBLOCKTYPE",
    "D3DQUERYTYPE",
    "D3DTEXTUREFILTERTYPE",
    "D3DLIGHTTYPE",
    "D3DBASISTYPE",
    "D3DDEGREETYPE",
    "D3DCOMPOSERECTSOP",
];

fn scalar_type(f: &Field) -> &'static str {
    match f.ty {
        FieldType::U8 => "BYTE",
        FieldType::U16 => "WORD",
        FieldType::I32 => "INT",
        FieldType::F32 => "D3DVALUE",
        FieldType::U32 => {
            if f.name == "xfrmType" {
                return "D3DTRANSFORMSTATETYPE";
            }
            if f.name == "Color" {
                return "D3DCOLOR";
            }
            match f.kind {
                ValueKind::Enum(t) => ENUM_TYPEDEFS
                    .iter()
                    .copied()
                    .find(|n| *n == t.type_name)
                    .unwrap_or("DWORD"),
                _ => "DWORD",
            }
        }
    }
}

/// The DDK type of a nested member from its dotted field suffixes.
fn nested_type(suffixes: &[&str]) -> &'static str {
    match suffixes {
        ["left", "top", "right", "bottom"] => "RECTL",
        ["x", "y"] => "POINT",
        ["Left", "Top", "Right", "Bottom", "Front", "Back"] => "D3DBOX",
        ["Offset", "Size"] => "D3DRANGE",
        ["r", "g", "b", "a"] => "D3DCOLORVALUE",
        ["x", "y", "z"] => "D3DVECTOR",
        other => panic!("no DDK type for nested fields {other:?}"),
    }
}

/// Groups a flat field table back into the DDK's members: dotted names
/// into nested structs, `name[i]` runs into arrays, `_11`…`_44` into a
/// `D3DMATRIX matrix`.
fn members_of(fields: &[Field]) -> Vec<GenMember> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < fields.len() {
        let f = &fields[i];
        let run =
            |pred: &dyn Fn(&Field) -> bool| fields[i..].iter().take_while(|g| pred(g)).count();
        let is_matrix = |g: &Field| g.name.len() == 3 && g.name.starts_with('_');
        let (decl, name, n) = if is_matrix(f) {
            let n = run(&is_matrix);
            assert_eq!(n, 16, "partial matrix");
            ("D3DMATRIX matrix".to_string(), "matrix".to_string(), n)
        } else if let Some((base, _)) = f.name.split_once('[') {
            let n = run(&|g: &Field| g.name.split_once('[').map(|x| x.0) == Some(base));
            (
                format!("{} {base}[{n}]", scalar_type(f)),
                base.to_string(),
                n,
            )
        } else if let Some((prefix, _)) = f.name.split_once('.') {
            let n = run(&|g: &Field| g.name.split_once('.').map(|x| x.0) == Some(prefix));
            let suffixes: Vec<&str> = fields[i..i + n]
                .iter()
                .filter_map(|g| g.name.split_once('.').map(|x| x.1))
                .collect();
            (
                format!("{} {prefix}", nested_type(&suffixes)),
                prefix.to_string(),
                n,
            )
        } else {
            (
                format!("{} {}", scalar_type(f), f.name),
                f.name.to_string(),
                1,
            )
        };
        let size = fields[i..i + n].iter().map(|g| g.ty.size()).sum();
        out.push(GenMember {
            decl,
            name,
            offset: f.offset,
            size,
        });
        i += n;
    }
    out
}

fn wire<T: Dp2Struct>() -> GenStruct {
    GenStruct {
        name: T::DDK_NAME.to_string(),
        size: T::SIZE,
        members: members_of(T::FIELDS),
    }
}

/// A struct described by hand: (C type, member, size) in order, no padding.
fn manual(name: &str, members: &[(&str, &str, usize)]) -> GenStruct {
    let mut offset = 0;
    let members = members
        .iter()
        .map(|&(ty, decl_name, size)| {
            let m = GenMember {
                decl: format!("{ty} {decl_name}"),
                name: decl_name.split('[').next().unwrap_or(decl_name).to_string(),
                offset,
                size,
            };
            offset += size;
            m
        })
        .collect();
    GenStruct {
        name: name.to_string(),
        size: offset,
        members,
    }
}

/// The helper types the payload structs use.
fn helper_structs() -> Vec<GenStruct> {
    let l = "LONG";
    let rect = [
        (l, "left", 4),
        (l, "top", 4),
        (l, "right", 4),
        (l, "bottom", 4),
    ];
    let u = "UINT";
    let v = "D3DVALUE";
    let w = "WORD";
    let mut matrix = manual("D3DMATRIX", &[]);
    matrix.size = 64;
    matrix.members.push(GenMember {
        decl: "union { struct { D3DVALUE _11, _12, _13, _14; D3DVALUE _21, _22, _23, _24; \
               D3DVALUE _31, _32, _33, _34; D3DVALUE _41, _42, _43, _44; }; D3DVALUE m[4][4]; }"
            .to_string(),
        name: "_11".to_string(),
        offset: 0,
        size: 64,
    });
    vec![
        manual("RECT", &rect),
        manual("RECTL", &rect),
        manual("POINT", &[(l, "x", 4), (l, "y", 4)]),
        manual(
            "D3DBOX",
            &[
                (u, "Left", 4),
                (u, "Top", 4),
                (u, "Right", 4),
                (u, "Bottom", 4),
                (u, "Front", 4),
                (u, "Back", 4),
            ],
        ),
        manual("D3DRANGE", &[(u, "Offset", 4), (u, "Size", 4)]),
        manual(
            "D3DCOLORVALUE",
            &[(v, "r", 4), (v, "g", 4), (v, "b", 4), (v, "a", 4)],
        ),
        manual("D3DVECTOR", &[(v, "x", 4), (v, "y", 4), (v, "z", 4)]),
        matrix,
        manual(
            "D3DCOMPOSERECTDESC",
            &[
                ("USHORT", "X", 2),
                ("USHORT", "Y", 2),
                ("USHORT", "Width", 2),
                ("USHORT", "Height", 2),
            ],
        ),
        manual(
            "D3DCOMPOSERECTDESTINATION",
            &[
                (w, "SrcRectIndex", 2),
                (w, "Reserved", 2),
                ("SHORT", "X", 2),
                ("SHORT", "Y", 2),
            ],
        ),
    ]
}

/// Every DP2 payload struct under every DDK name, in `d3dhal.h` order.
fn dp2_structs() -> Vec<GenStruct> {
    let mut v = Vec::new();
    v.push(wire::<ws::Dp2CommandHeader>().union(
        "wPrimitiveCount",
        "union { WORD wPrimitiveCount; WORD wStateCount; }",
    ));
    v.push(wire::<ws::Dp2Points>());
    v.push(wire::<ws::Dp2StartVertex>());
    let line = wire::<ws::Dp2LineList>();
    for n in ["LINESTRIP", "TRIANGLELIST", "TRIANGLESTRIP", "TRIANGLEFAN"] {
        v.push(line.renamed(&format!("D3DHAL_DP2{n}")));
    }
    v.push(line);
    v.push(wire::<ws::Dp2IndexedLineList>());
    v.push(manual(
        "D3DHAL_DP2INDEXEDLINESTRIP",
        &[("WORD", "wV[2]", 4)],
    ));
    v.push(wire::<ws::Dp2IndexedTriangleList>());
    v.push(wire::<ws::Dp2IndexedTriangleList2>());
    v.push(manual(
        "D3DHAL_DP2INDEXEDTRIANGLESTRIP",
        &[("WORD", "wV[3]", 6)],
    ));
    v.push(manual(
        "D3DHAL_DP2INDEXEDTRIANGLEFAN",
        &[("WORD", "wV[3]", 6)],
    ));
    v.push(wire::<ws::Dp2TriangleFanImm>());
    v.push(
        wire::<ws::Dp2RenderState>().union("dwState", "union { D3DVALUE dvState; DWORD dwState; }"),
    );
    v.push(wire::<ws::Dp2TextureStageState>());
    v.push(wire::<ws::Dp2ViewportInfo>());
    v.push(wire::<ws::Dp2WInfo>());
    v.push(wire::<ws::Dp2SetPalette>());
    v.push(wire::<ws::Dp2UpdatePalette>());
    v.push(wire::<ws::Dp2ZRange>());
    v.push(wire::<ws::Dp2SetMaterial>());
    v.push(wire::<ws::Dp2SetLight>());
    v.push(wire::<ws::D3dLight7>());
    v.push(wire::<ws::Dp2CreateLight>());
    let xf = wire::<ws::Dp2SetTransform>();
    v.push(xf.renamed("D3DHAL_DP2MULTIPLYTRANSFORM"));
    v.push(xf);
    v.push(wire::<ws::Dp2Ext>());
    v.push(wire::<ws::Dp2TexBlt>());
    v.push(wire::<ws::Dp2StateSet>());
    v.push(wire::<ws::Dp2SetPriority>());
    v.push(wire::<ws::Dp2SetRenderTarget>());
    let mut clear = wire::<ws::Dp2Clear>();
    clear.members.push(GenMember {
        decl: "RECT Rects[1]".to_string(),
        name: "Rects".to_string(),
        offset: clear.size,
        size: 16,
    });
    clear.size += 16;
    v.push(clear);
    v.push(wire::<ws::Dp2SetTexLod>());
    v.push(wire::<ws::Dp2SetClipPlane>());
    // DX8
    v.push(wire::<ws::Dp2VertexShader>());
    v.push(wire::<ws::Dp2CreateVertexShader>());
    let konst = wire::<ws::Dp2SetShaderConst>();
    for n in [
        "SETVERTEXSHADERCONSTI",
        "SETVERTEXSHADERCONSTB",
        "SETPIXELSHADERCONST",
        "SETPIXELSHADERCONSTI",
        "SETPIXELSHADERCONSTB",
    ] {
        v.push(konst.renamed(&format!("D3DHAL_DP2{n}")));
    }
    v.push(konst);
    v.push(wire::<ws::Dp2SetStreamSource>());
    v.push(wire::<ws::Dp2SetStreamSourceUm>());
    v.push(wire::<ws::Dp2SetIndices>());
    v.push(wire::<ws::Dp2DrawPrimitive>());
    v.push(wire::<ws::Dp2DrawIndexedPrimitive>());
    v.push(wire::<ws::Dp2CreatePixelShader>());
    v.push(wire::<ws::Dp2PixelShader>());
    v.push(wire::<ws::Dp2ClippedTriangleFan>());
    v.push(wire::<ws::Dp2DrawPrimitive2>());
    v.push(wire::<ws::Dp2DrawIndexedPrimitive2>());
    let patch = wire::<ws::Dp2DrawPatch>();
    v.push(patch.renamed("D3DHAL_DP2DRAWTRIPATCH"));
    v.push(patch);
    v.push(wire::<ws::D3dRectPatchInfo>());
    v.push(wire::<ws::D3dTriPatchInfo>());
    v.push(wire::<ws::Dp2VolumeBlt>());
    v.push(wire::<ws::Dp2BufferBlt>());
    v.push(wire::<ws::Dp2AddDirtyRect>());
    v.push(wire::<ws::Dp2AddDirtyBox>());
    // DX9
    v.push(wire::<ws::Dp2CreateVertexShaderDecl>());
    v.push(wire::<ws::D3dVertexElement9>());
    v.push(wire::<ws::Dp2CreateVertexShaderFunc>());
    v.push(wire::<ws::Dp2SetStreamSource2>());
    v.push(wire::<ws::Dp2SetStreamSourceFreq>());
    let blt = wire::<ws::Dp2Blt>();
    v.push(blt.renamed("D3DHAL_DP2SURFACEBLT"));
    v.push(blt);
    v.push(wire::<ws::Dp2ColorFill>());
    v.push(wire::<ws::Dp2CreateQuery>());
    v.push(wire::<ws::Dp2DeleteQuery>());
    v.push(wire::<ws::Dp2IssueQuery>());
    v.push(wire::<ws::Dp2SetRenderTarget2>());
    v.push(wire::<ws::Dp2SetDepthStencil>());
    v.push(wire::<ws::Dp2GenerateMipSubLevels>());
    v.push(wire::<ws::Dp2SetConvolutionKernelMono>());
    v.push(wire::<ws::Dp2ComposeRects>());
    v.push(manual(
        "D3DHAL_DP2RESPONSE",
        &[
            ("BYTE", "bCommand", 1),
            ("BYTE", "bReserved", 1),
            ("WORD", "wStateCount", 2),
            ("DWORD", "dwTotalSize", 4),
        ],
    ));
    v.push(wire::<ws::Dp2ResponseQuery>());
    v
}

fn from_desc(d: &StructDesc) -> GenStruct {
    GenStruct {
        name: d.name.to_string(),
        size: d.size,
        members: d
            .members
            .iter()
            .map(|m| GenMember {
                decl: m.decl.to_string(),
                name: m.name.to_string(),
                offset: m.offset,
                size: 0,
            })
            .collect(),
    }
}

/// The DDK struct names the header declares (payload, helper and call
/// structures), for tests.
pub fn struct_names() -> Vec<String> {
    helper_structs()
        .iter()
        .chain(dp2_structs().iter())
        .map(|s| s.name.clone())
        .chain(types::DDI_STRUCTS.iter().map(|d| d.name.to_string()))
        .collect()
}

fn emit_struct(out: &mut String, s: &GenStruct) {
    let _ = writeln!(out, "typedef struct _{} {{", s.name);
    for m in &s.members {
        let _ = writeln!(out, "    {};", m.decl);
    }
    let _ = writeln!(out, "}} {0}, *LP{0};", s.name);
}

fn emit_asserts(out: &mut String, s: &GenStruct) {
    let _ = writeln!(out, "SOFTHAL_LAYOUT(sizeof({}) == {});", s.name, s.size);
    for m in &s.members {
        let _ = writeln!(
            out,
            "SOFTHAL_LAYOUT(offsetof({}, {}) == {});",
            s.name, m.name, m.offset
        );
    }
}

fn check_sizes(s: &GenStruct) {
    // Wire-derived members are contiguous: offsets + sizes add up.
    if s.members.iter().all(|m| m.size > 0) {
        let mut at = 0;
        for m in &s.members {
            assert_eq!(
                m.offset, at,
                "{}.{} is not where its predecessors end",
                s.name, m.name
            );
            at += m.size;
        }
        assert_eq!(at, s.size, "{} members do not fill it", s.name);
    }
}

/// `#define`s from the name tables: name → (value, is HRESULT).
fn constants() -> BTreeMap<String, (u32, bool)> {
    let mut map: BTreeMap<String, (u32, bool)> = BTreeMap::new();
    let mut add = |name: &str, value: u32, hresult: bool| {
        let ident = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if ident {
            let prev = map.entry(name.to_string()).or_insert((value, hresult));
            assert_eq!(prev.0, value, "{name} has two values");
        }
    };
    let enums: [&EnumTable; 12] = [
        &softhal_wire::Opcode::TABLE,
        &codes::DRIVER_RETURNS,
        &names::RenderStateType::TABLE,
        &names::TextureStageStateType::TABLE,
        &names::PrimitiveType::TABLE,
        &names::StateSetOperation::TABLE,
        &names::SetLightDataType::TABLE,
        &names::StateBlockType::TABLE,
        &names::QueryType::TABLE,
        &names::FvfPosition::TABLE,
        &names::ComposeRectsOp::TABLE,
        &names::Format::TABLE,
    ];
    for t in enums {
        for &(v, n) in t.entries.iter().chain(t.aliases.iter()) {
            add(n, v, false);
        }
    }
    let flags: [&FlagsTable; 6] = [
        &names::DP2_FLAGS,
        &names::CLEAR_FLAGS,
        &names::FVF_FLAGS,
        &names::ISSUE_FLAGS,
        &names::DP2BLT_FLAGS,
        &names::TRIFLAG_FLAGS,
    ];
    for t in flags {
        for &(v, n) in t.entries {
            add(n, v, false);
        }
    }
    for &(v, n) in codes::HRESULTS
        .entries
        .iter()
        .chain(codes::HRESULTS.aliases.iter())
    {
        // The small D3DHAL_* status values are plain numbers in d3dhal.h.
        add(n, v, !n.starts_with("D3DHAL_"));
    }
    add("D3DHAL_MAX_RSTATES", 256, false);
    add("D3DDDI_MAX_BROADCAST_CONTEXT", 64, false);
    add("D3DFVF_POSITION_MASK", names::D3DFVF_POSITION_MASK, false);
    add("D3DFVF_TEXCOUNT_MASK", names::D3DFVF_TEXCOUNT_MASK, false);
    add("D3DFVF_TEXCOUNT_SHIFT", names::D3DFVF_TEXCOUNT_SHIFT, false);
    map
}

/// The Direct3D value constants a host writes state with (`D3DCULL_*`,
/// `D3DBLEND_*`, `D3DCMP_*`, `D3DTOP_*`, `D3DTA_*`, `D3DFVF_TEXn`, ...),
/// from the `softhal_wire::names` value tables: name → value, leaving out
/// the names [`constants`] already defines. Each is emitted under its own
/// `#ifndef`, so a host that defines some of them itself keeps its own.
fn value_constants() -> BTreeMap<String, u32> {
    let defined = constants();
    let mut map: BTreeMap<String, u32> = BTreeMap::new();
    let mut add = |name: &str, value: u32| {
        if defined.contains_key(name) {
            return;
        }
        let prev = map.entry(name.to_string()).or_insert(value);
        assert_eq!(*prev, value, "{name} has two values");
    };
    let enums: [&EnumTable; 19] = [
        &names::FillMode::TABLE,
        &names::ShadeMode::TABLE,
        &names::Cull::TABLE,
        &names::CmpFunc::TABLE,
        &names::Blend::TABLE,
        &names::BlendOp::TABLE,
        &names::FogMode::TABLE,
        &names::StencilOp::TABLE,
        &names::ZBufferType::TABLE,
        &names::MaterialColorSource::TABLE,
        &names::VertexBlendFlags::TABLE,
        &names::TextureAddress::TABLE,
        &names::TextureOp::TABLE,
        &names::TextureArg::TABLE,
        &names::TextureFilterType::TABLE,
        &names::TexCoordIndexMode::TABLE,
        &names::TransformStateType::TABLE,
        &names::LightType::TABLE,
        &names::TextureBlend::TABLE,
    ];
    for t in enums {
        for &(v, n) in t.entries {
            add(n, v);
        }
    }
    let flags: [&FlagsTable; 4] = [
        &names::TEXTURE_ARG_MODIFIER_FLAGS,
        &names::WRAP_FLAGS,
        &names::COLOR_WRITE_FLAGS,
        &names::TTFF_FLAGS,
    ];
    for t in flags {
        for &(v, n) in t.entries {
            add(n, v);
        }
    }
    // D3DFVF_TEX0..8: the texture-set count field, named as the FVF
    // printer names it.
    add("D3DFVF_TEX0", 0);
    for n in 1..=names::D3DDP_MAXTEXCOORD {
        let v = n << names::D3DFVF_TEXCOUNT_SHIFT;
        add(&names::format_fvf(v), v);
    }
    map
}

const PRELUDE: &str = r#"/* softhal.h: the C interface of libsofthal, a memory-safe software
 * Direct3D HAL.
 *
 * GENERATED by crates/capi/src/header.rs from softhal's own tables; do not
 * edit. Regenerate with: SOFTHAL_BLESS=1 cargo test -p softhal-capi --test header
 * The manual is docs/c-api.md.
 *
 * Types: fixed width everywhere (DWORD = uint32_t, LONG = int32_t,
 * ULONG_PTR = uintptr_t, HRESULT = int32_t). The DDI structures have the
 * DDK's layouts (the x64 ones are asserted below on 64-bit targets).
 *
 * Hosts that already include the DDK's (or Wine's) d3dhal.h define
 * SOFTHAL_USE_SYSTEM_DDI_TYPES before including this file: they then get
 * only softhal's own types and functions, declared with the same DDK type
 * names. Hosts that already have the Windows base types (BYTE, DWORD, ...)
 * but not the DDI define SOFTHAL_USE_SYSTEM_BASE_TYPES.
 */
#ifndef SOFTHAL_H
#define SOFTHAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The DDI callbacks use the DDK's calling convention (__stdcall on x86
 * Windows); softhal_* functions use the C one. */
#if defined(_WIN32) && !defined(_WIN64)
#define SOFTHAL_DDI __stdcall
#else
#define SOFTHAL_DDI
#endif

#if defined(__cplusplus)
#define SOFTHAL_LAYOUT(e) static_assert(e, #e)
#else
#define SOFTHAL_LAYOUT(e) _Static_assert(e, #e)
#endif

#if defined(SOFTHAL_USE_SYSTEM_DDI_TYPES) && !defined(SOFTHAL_USE_SYSTEM_BASE_TYPES)
#define SOFTHAL_USE_SYSTEM_BASE_TYPES
#endif

/* softhal's objects: opaque, created and destroyed by softhal functions. */
typedef struct softhal_driver softhal_driver;
typedef struct softhal_surface softhal_surface;

#ifndef SOFTHAL_USE_SYSTEM_BASE_TYPES
typedef uint8_t BYTE;
typedef uint16_t WORD;
typedef uint16_t USHORT;
typedef int16_t SHORT;
typedef uint32_t DWORD;
typedef uint32_t UINT;
typedef uint32_t ULONG;
typedef int32_t LONG;
typedef int32_t INT;
typedef uintptr_t ULONG_PTR;
typedef int32_t HRESULT;
typedef void VOID;
typedef void *LPVOID;
typedef void *HANDLE;
typedef DWORD *LPDWORD;
#endif /* SOFTHAL_USE_SYSTEM_BASE_TYPES */

#ifndef SOFTHAL_USE_SYSTEM_DDI_TYPES

/* ---- DDI object pointers are softhal objects ---------------------------
 * Where the DDK points to DirectDraw objects, softhal takes its own:
 * lpDDGbl / lpDDLcl = a softhal_driver; lpDDCommands, lpDDVertex, lpDDS,
 * lpDDSZ = softhal_surfaces. */
typedef struct softhal_driver DDRAWI_DIRECTDRAW_GBL, *LPDDRAWI_DIRECTDRAW_GBL;
typedef struct softhal_driver DDRAWI_DIRECTDRAW_LCL, *LPDDRAWI_DIRECTDRAW_LCL;
typedef struct softhal_surface DDRAWI_DDRAWSURFACE_LCL, *LPDDRAWI_DDRAWSURFACE_LCL;

/* ---- scalar DDK types (fixed width) ------------------------------------ */
typedef float D3DVALUE;
typedef DWORD D3DCOLOR;
typedef uint32_t D3DKMT_HANDLE;
typedef uint64_t D3DGPU_VIRTUAL_ADDRESS;
typedef UINT D3DDDI_MARKERLOGTYPE;
"#;

const WDDM_TYPES: &str = r#"typedef struct _D3DDDICB_RENDERFLAGS {
    union { struct { UINT ResizeCommandBuffer : 1; UINT ResizeAllocationList : 1; UINT ResizePatchLocationList : 1; UINT NullRendering : 1; UINT Reserved : 28; }; UINT Value; };
} D3DDDICB_RENDERFLAGS;
SOFTHAL_LAYOUT(sizeof(D3DDDICB_RENDERFLAGS) == 4);
"#;

const FUNCTIONS: &str = r#"
/* ---- softhal's functions ------------------------------------------------
 * Every function is callable from any thread. Calls on one driver (and on
 * its surfaces and contexts) are serialized by the driver's lock; calls on
 * different drivers run concurrently. softhal_* functions return an
 * HRESULT: D3D_OK (0), E_INVALIDARG for null/misaligned pointers or bad
 * sizes, DDERR_INVALIDOBJECT for a value that names no live softhal
 * object, D3DERR_DRIVERINTERNALERROR if softhal caught an internal error.
 * Ownership: objects are created and destroyed by softhal functions and
 * owned by the host in between; softhal never keeps a host pointer past
 * the call that received it (except an installed hook function). */

/* The D3dParseUnknownCommand hook (PFND3DPARSEUNKNOWNCOMMAND's signature). */
typedef HRESULT (SOFTHAL_DDI *SOFTHAL_PFN_PARSE_UNKNOWN_COMMAND)(void *lpvCommands, void **lplpvReturnedCommand);

struct _D3DDDICB_RENDER;

/* SOFTHAL_API_VERSION of the library. */
DWORD softhal_version(void);

/* Creates a driver with `threads` render threads (0/1: the calling thread;
 * above SOFTHAL_MAX_THREADS: DDERR_INVALIDPARAMS, nothing created). */
HRESULT softhal_driver_create(DWORD threads, softhal_driver **out);
/* GPU watchdog: one submission may run `milliseconds` (0: no limit; default
 * SOFTHAL_DEFAULT_GPU_TIMEOUT_MS). Work past it stops at a primitive or tile
 * boundary; its context then answers D3DDDIERR_DEVICEREMOVED to every call
 * until destroyed (create another to recover). */
HRESULT softhal_driver_set_timeout(softhal_driver *driver, DWORD milliseconds);
/* Stops the GPU work running now, as a timeout does. Takes no lock: call it
 * from another thread while a call on the driver waits for that work. */
HRESULT softhal_driver_cancel(softhal_driver *driver);
/* Destroys a driver and every surface and context of it. */
HRESULT softhal_driver_destroy(softhal_driver *driver);

/* Creates a surface (desc->dwSize = sizeof(SOFTHAL_SURFACE_DESC)). */
HRESULT softhal_surface_create(softhal_driver *driver, const SOFTHAL_SURFACE_DESC *desc, softhal_surface **out);
/* Destroys a surface. */
HRESULT softhal_surface_destroy(softhal_surface *surface);
/* The description as the surface is now (a buffer renamed by a SWAP* DP2
 * call reports its new size); dwHandle is the surface's DP2 handle. */
HRESULT softhal_surface_get_desc(softhal_surface *surface, SOFTHAL_SURFACE_DESC *out);
/* Locks level 0: out->pBits (softhal's copy) is valid until unlock or destroy. */
HRESULT softhal_surface_lock(softhal_surface *surface, DWORD flags, SOFTHAL_LOCKED_SURFACE *out);
/* Locks one level of one face (cube faces 0..5), same rules. */
HRESULT softhal_surface_lock_level(softhal_surface *surface, DWORD face, DWORD level, DWORD flags, SOFTHAL_LOCKED_SURFACE *out);
/* Unlocks: copies the bytes back (unless SOFTHAL_LOCK_READONLY). */
HRESULT softhal_surface_unlock(softhal_surface *surface);
/* The DWORD handle of an attached surface (mip level, cube face 0..5) of a
 * texture with SOFTHAL_SURFACE_USAGE_RENDERTARGET, for SETRENDERTARGET(2). */
HRESULT softhal_surface_get_attached(softhal_surface *texture, DWORD face, DWORD level, DWORD *handle);
/* DdSetColorKey (DDCKEY_SRCBLT) on a texture; enable = 0 removes the key. */
HRESULT softhal_surface_set_color_key(softhal_surface *texture, DWORD enable, DWORD low, DWORD high);
/* D3DGDI2_TYPE_DXVERSION: 0x700, 0x800 or 0x900, for contexts created afterwards. */
HRESULT softhal_driver_notify_dx_version(softhal_driver *driver, DWORD version);

/* Starts a flip to a render target (DP2 on it: DDERR_WASSTILLDRAWING). */
HRESULT softhal_flip(softhal_surface *render_target);
/* Completes every pending flip of the driver. */
HRESULT softhal_complete_flips(softhal_driver *driver);
/* Copies a render target as RGBA8 rows `pitch` apart into `size` bytes. */
HRESULT softhal_present(softhal_surface *render_target, void *pixels, DWORD pitch, DWORD size);

/* Installs (NULL: removes) the D3dParseUnknownCommand hook. */
HRESULT softhal_set_parse_unknown_command(softhal_driver *driver, SOFTHAL_PFN_PARSE_UNKNOWN_COMMAND hook);
/* Fills *caps (caps->dwSize = sizeof(SOFTHAL_CAPS)). */
HRESULT softhal_get_caps(softhal_driver *driver, SOFTHAL_CAPS *caps);
/* Why the last DrawPrimitives2 on the driver failed (refused by the device or
 * at the C boundary; "" after a success), NUL-terminated, at most `size` bytes. */
HRESULT softhal_get_last_error(softhal_driver *driver, char *buf, DWORD size, DWORD *needed);

/* Records every call on the driver into a capture file (docs/capture-format.md);
 * D3DERR_INVALIDCALL if already capturing or the driver has contexts. */
HRESULT softhal_capture_start(softhal_driver *driver, const char *path);
/* Writes the capture's end record and closes the file. */
HRESULT softhal_capture_stop(softhal_driver *driver);
/* DP2 assembly text (`len` bytes of UTF-8, no NUL needed) to a command
 * stream in `out`; *written = its size. D3DERR_MOREDATA: out_cap too small,
 * *written = the size needed, nothing written. D3DERR_COMMAND_UNPARSED: out
 * holds the reason ("line N: ...", NUL-terminated). Needs no driver. */
HRESULT softhal_assemble(const char *text, DWORD len, void *out, DWORD out_cap, DWORD *written);
/* A command stream to DP2 assembly text (NUL-terminated) in `out`, one
 * command per line with DDK names; `fvf`: the inline vertices' format (0:
 * none). *written = the text's size with its NUL; D3DERR_MOREDATA as
 * above; D3DERR_COMMAND_UNPARSED: decoding stopped, the text ends with a
 * "; error at byte offset N ..." line. Needs no driver. */
HRESULT softhal_disassemble(const void *bytes, DWORD len, DWORD fvf, char *out, DWORD out_cap, DWORD *written);

/* ---- the render callback: the host as the user-mode driver --------------
 * The host writes GPU packets (docs/gpu-commands.md, SOFTHAL_GPU_*) into the
 * command buffer softhal hands out for a render context, lists the surfaces
 * they use (their allocation handles) and the reference DWORDs to patch in
 * the lists handed out with it, and submits them. */

/* The allocation handle of a render target, depth buffer or buffer. */
HRESULT softhal_surface_get_allocation(softhal_surface *surface, DWORD *allocation);
/* Creates a GPU context on SOFTHAL_ENGINE_3D or SOFTHAL_ENGINE_COPY. */
HRESULT softhal_render_context_create(softhal_driver *driver, DWORD engine, HANDLE *out);
/* Destroys a render context after its work has run (frees its buffers). */
HRESULT softhal_render_context_destroy(softhal_driver *driver, HANDLE context);
/* The buffers to fill first (context NULL: the driver's default context):
 * writes out->pNewCommandBuffer, pNewAllocationList, pNewPatchLocationList
 * and their New*Size fields. softhal owns them; they stay valid until a
 * softhal_render_cb on that context hands out others, or the context or the
 * driver is destroyed. */
HRESULT softhal_render_context_get_buffers(softhal_driver *driver, HANDLE context, struct _D3DDDICB_RENDER *out);
/* pfnRenderCb (hDevice = a softhal_driver, hContext = a render context or
 * NULL for the default context). In: CommandLength bytes of the command
 * buffer handed out for the context, NumAllocations / NumPatchLocations
 * entries of its lists (the pNew* fields are outputs, never read). Out, after
 * every call (accepted or refused): the buffers to use next in pNew* and
 * their true sizes in New*Size (a refused call returns those in force), and
 * QueuedBufferCount. Returns S_OK or a D3DDDIERR_* / E_* code
 * (docs/submission.md). */
HRESULT SOFTHAL_DDI softhal_render_cb(HANDLE hDevice, struct _D3DDDICB_RENDER *pData);

/* ---- the DDI callbacks (DDK signatures) ---------------------------------
 * Return DDHAL_DRIVER_HANDLED with the result in ddrval, or
 * DDHAL_DRIVER_NOTHANDLED if the data pointer is null or misaligned. */
DWORD SOFTHAL_DDI D3dContextCreate(LPD3DHAL_CONTEXTCREATEDATA pcd);
DWORD SOFTHAL_DDI D3dContextDestroy(LPD3DHAL_CONTEXTDESTROYDATA pdd);
DWORD SOFTHAL_DDI D3dDrawPrimitives2(LPD3DHAL_DRAWPRIMITIVES2DATA pd);
DWORD SOFTHAL_DDI D3dClear2(LPD3DHAL_CLEAR2DATA pcd);
DWORD SOFTHAL_DDI D3dValidateTextureStageState(LPD3DHAL_VALIDATETEXTURESTAGESTATEDATA pvtssd);
"#;

const GPU_PACKETS: &str = r#"
/* GPU packets (docs/gpu-commands.md; from softhal_submit::packet::RULES):
 * a header DWORD = opcode | flags << 8 | length in DWORDs (header included)
 * << 16, then the payload DWORDs. */
#define SOFTHAL_GPU_HEADER(opcode, flags, dwords) \
    ((DWORD)(opcode) | ((DWORD)(flags) << 8) | ((DWORD)(dwords) << 16))
"#;

/// The complete text of `include/softhal.h`.
pub fn generate() -> String {
    let mut out = String::from(PRELUDE);
    out.push_str(
        "\n/* ---- enumerated DDK types (DWORD-sized) ------------------------------- */\n",
    );
    for t in ENUM_TYPEDEFS {
        let _ = writeln!(out, "typedef DWORD {t};");
    }
    out.push_str(
        "\n/* ---- helper structures ----------------------------------------------- */\n",
    );
    let helpers = helper_structs();
    for s in &helpers {
        emit_struct(&mut out, s);
    }
    out.push_str("typedef RECT D3DHAL_DP2SETSCISSORRECT, *LPD3DHAL_DP2SETSCISSORRECT;\n");
    out.push_str(
        "\n/* ---- DP2 command header and payload structures ----------------------- */\n",
    );
    let dp2 = dp2_structs();
    for s in &dp2 {
        check_sizes(s);
        emit_struct(&mut out, s);
    }
    out.push_str(
        "\n/* ---- constants: opcodes, flags, states, return codes ------------------ */\n",
    );
    for (name, (value, hresult)) in constants() {
        if hresult {
            let _ = writeln!(out, "#define {name} ((HRESULT)0x{value:08X})");
        } else {
            let _ = writeln!(out, "#define {name} 0x{value:X}");
        }
    }
    out.push_str(
        "\n/* ---- Direct3D state values (each kept if the host defines it) --------- */\n",
    );
    for (name, value) in value_constants() {
        let _ = writeln!(out, "#ifndef {name}\n#define {name} 0x{value:X}\n#endif");
    }
    out.push_str(
        "\n/* ---- DDI call structures ---------------------------------------------- */\n",
    );
    out.push_str(WDDM_TYPES);
    let calls: Vec<GenStruct> = types::DDI_STRUCTS.iter().map(from_desc).collect();
    for s in &calls {
        emit_struct(&mut out, s);
    }
    out.push_str(
        "\n/* ---- layout checks (payload structures: any target) ------------------- */\n",
    );
    for s in helpers.iter().chain(dp2.iter()) {
        emit_asserts(&mut out, s);
    }
    out.push_str(
        "\n/* ---- layout checks (call structures: the x64 layouts) ------------------ */\n",
    );
    out.push_str("#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu\n");
    for s in &calls {
        emit_asserts(&mut out, s);
    }
    out.push_str("#endif\n\n#endif /* SOFTHAL_USE_SYSTEM_DDI_TYPES */\n");
    out.push_str(
        "\n/* ---- softhal's own types and constants -------------------------------- */\n",
    );
    for (name, value, doc) in types::SOFTHAL_CONSTANTS {
        let _ = writeln!(out, "#define {name} 0x{value:X} /* {doc} */");
    }
    out.push_str(GPU_PACKETS);
    for r in softhal_submit::packet::RULES {
        let engines = match r.engines {
            3 => "3-D and copy engines",
            1 => "3-D engine",
            _ => "copy engine",
        };
        let user = if r.user { "user" } else { "kernel only" };
        let _ = writeln!(
            out,
            "#define SOFTHAL_GPU_{} 0x{:X} /* {user}; {engines} */",
            r.name, r.opcode
        );
    }
    let _ = writeln!(
        out,
        "#define SOFTHAL_GPU_FLAG_DEPTH 0x{:X} /* BIND_TARGETS: a depth target in DWORD 2; BIND_TEXTURE_TARGET: in DWORD 4 */",
        softhal_submit::packet::flag::DEPTH
    );
    let _ = writeln!(
        out,
        "#define SOFTHAL_GPU_FLAG_INDEXED 0x{:X} /* DRAW: indexed */",
        softhal_submit::packet::flag::INDEXED
    );
    registers(&mut out);
    let own: Vec<GenStruct> = types::SOFTHAL_STRUCTS.iter().map(from_desc).collect();
    for s in &own {
        emit_struct(&mut out, s);
    }
    out.push_str("#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu\n");
    for s in &own {
        emit_asserts(&mut out, s);
    }
    out.push_str("#endif\n");
    out.push_str(FUNCTIONS);
    out.push_str("\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* SOFTHAL_H */\n");
    out
}

/// The GPU register ids (`softhal_submit::regs`): each bank's first id and
/// a macro per bank computing an id from Direct3D numbers (the D3DRS_*,
/// D3DTSS_* and D3DTS_* constants above), so a host writes SET_REGS
/// without magic numbers.
fn registers(out: &mut String) {
    use softhal_submit::regs::{bank, id};
    out.push_str(
        "\n/* GPU registers (docs/gpu-commands.md, \"Register file\"; from\n * softhal_submit::regs): a bank's first id + a Direct3D number. */\n",
    );
    let banks = [
        ("RENDER_STATE", bank::RENDER_STATE, "+ D3DRS_* number"),
        (
            "TEXTURE_STAGE",
            bank::TEXTURE_STAGE,
            "+ stride * stage + D3DTSS_* number",
        ),
        (
            "TRANSFORM",
            bank::TRANSFORM,
            "+ stride * D3DTS_* number + element (row-major)",
        ),
        (
            "LIGHT",
            bank::LIGHT,
            "+ stride * slot + D3DLIGHT7 DWORD (26: ENABLE)",
        ),
        ("MATERIAL", bank::MATERIAL, "+ D3DMATERIAL7 DWORD"),
        (
            "VIEWPORT",
            bank::VIEWPORT,
            "dwX, dwY, dwWidth, dwHeight, dvMinZ, dvMaxZ",
        ),
        ("WINFO", bank::WINFO, "dvWNear, dvWFar"),
        ("CLIP_PLANE", bank::CLIP_PLANE, "+ 4 * plane + coefficient"),
        ("SCISSOR", bank::SCISSOR, "left, top, right, bottom"),
    ];
    for (name, base, doc) in banks {
        let _ = writeln!(out, "#define SOFTHAL_REG_{name} 0x{base:X} /* {doc} */");
    }
    for (name, v) in [
        ("TEXTURE_STAGE_STRIDE", bank::TEXTURE_STAGE_STRIDE),
        ("TRANSFORM_STRIDE", bank::TRANSFORM_STRIDE),
        ("LIGHT_STRIDE", bank::LIGHT_STRIDE),
        ("LIGHT_ENABLE", id::light_field::ENABLE),
    ] {
        let _ = writeln!(out, "#define SOFTHAL_REG_{name} 0x{v:X}");
    }
    out.push_str(concat!(
        "#define SOFTHAL_REG_RS(rs) (SOFTHAL_REG_RENDER_STATE + (DWORD)(rs))\n",
        "#define SOFTHAL_REG_TSS(stage, tss) \\\n",
        "    (SOFTHAL_REG_TEXTURE_STAGE + SOFTHAL_REG_TEXTURE_STAGE_STRIDE * (DWORD)(stage) + (DWORD)(tss))\n",
        "#define SOFTHAL_REG_TRANSFORM_ELEMENT(ts, k) \\\n",
        "    (SOFTHAL_REG_TRANSFORM + SOFTHAL_REG_TRANSFORM_STRIDE * (DWORD)(ts) + (DWORD)(k))\n",
        "#define SOFTHAL_REG_LIGHT_DWORD(slot, f) \\\n",
        "    (SOFTHAL_REG_LIGHT + SOFTHAL_REG_LIGHT_STRIDE * (DWORD)(slot) + (DWORD)(f))\n",
        "#define SOFTHAL_REG_CLIP_PLANE_COEFF(i, j) (SOFTHAL_REG_CLIP_PLANE + 4 * (DWORD)(i) + (DWORD)(j))\n",
    ));
}
