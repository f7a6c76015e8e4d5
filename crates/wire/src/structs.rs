//! Every DP2 payload structure, byte for byte as `d3dhal.h` lays it out.
//!
//! In: nothing (type definitions). Out: `#[repr(C)]` structs built only of
//! unaligned little-endian fields, so a `&[u8]` of any alignment can be
//! viewed as `&T` or `&[T]` with `zerocopy` (no pointer casts, no copies).
//! Guarantees: each struct's size is asserted at compile time against
//! the DDK's (`docs/sources.md` names the headers); each struct describes its own fields
//! ([`Dp2Struct::FIELDS`]) under their DDK names, which the text form and the
//! disassembler use. Nested DDK structs (RECT, D3DMATRIX, D3DLIGHT7, ...) are
//! flattened into dotted field names (`rSrc.left`, `_11`).

use crate::ddi_enum::ValueKind;
use crate::names;
use zerocopy::little_endian::{I32, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// A little-endian IEEE single (`D3DVALUE`) stored unaligned.
///
/// Equality and hashing are by bit pattern, so decoded NaNs compare equal to
/// themselves and round trips can be checked exactly.
#[derive(
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Hash,
    FromBytes,
    IntoBytes,
    KnownLayout,
    Immutable,
    Unaligned,
)]
#[repr(transparent)]
pub struct F32Le(U32);

impl F32Le {
    /// Wraps a native float.
    pub fn new(v: f32) -> Self {
        Self(U32::new(v.to_bits()))
    }
    /// Wraps raw bits.
    pub fn from_bits(bits: u32) -> Self {
        Self(U32::new(bits))
    }
    /// The float value.
    pub fn get(self) -> f32 {
        f32::from_bits(self.0.get())
    }
    /// The raw bits.
    pub fn bits(self) -> u32 {
        self.0.get()
    }
}

impl core::fmt::Debug for F32Le {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:?}", self.get())
    }
}

/// The storage type of one field, as it sits in the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// BYTE.
    U8,
    /// WORD.
    U16,
    /// DWORD / UINT / enum.
    U32,
    /// LONG / INT.
    I32,
    /// D3DVALUE.
    F32,
}

impl FieldType {
    /// Size in bytes.
    pub const fn size(self) -> usize {
        match self {
            FieldType::U8 => 1,
            FieldType::U16 => 2,
            FieldType::U32 | FieldType::I32 | FieldType::F32 => 4,
        }
    }
}

/// Describes one field of a payload struct under its DDK name.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// DDK field name (`dwFlags`, `rSrc.left`, `_11`).
    pub name: &'static str,
    /// Byte offset in the struct.
    pub offset: usize,
    /// Storage type.
    pub ty: FieldType,
    /// How the value is shown and parsed in the text form.
    pub kind: ValueKind,
}

impl Field {
    /// Reads this field from a struct's bytes as a raw u32 (sign-extended
    /// bits for I32, float bits for F32). `None` if `bytes` is too short.
    pub fn read(&self, bytes: &[u8]) -> Option<u32> {
        let end = self.offset.checked_add(self.ty.size())?;
        let b = bytes.get(self.offset..end)?;
        Some(match self.ty {
            FieldType::U8 => u32::from(*b.first()?),
            FieldType::U16 => u32::from(u16::from_le_bytes([*b.first()?, *b.get(1)?])),
            _ => u32::from_le_bytes(b.try_into().ok()?),
        })
    }

    /// Writes a raw u32 into this field (truncating to the field's width).
    /// Returns `false` if `bytes` is too short.
    pub fn write(&self, bytes: &mut [u8], raw: u32) -> bool {
        let Some(end) = self.offset.checked_add(self.ty.size()) else {
            return false;
        };
        let Some(b) = bytes.get_mut(self.offset..end) else {
            return false;
        };
        let le = raw.to_le_bytes();
        let Some(src) = le.get(..self.ty.size()) else {
            return false;
        };
        b.copy_from_slice(src);
        true
    }
}

/// A fixed-size DP2 payload structure.
pub trait Dp2Struct:
    FromBytes + IntoBytes + KnownLayout + Immutable + Unaligned + Copy + PartialEq + core::fmt::Debug
{
    /// The DDK struct name (`D3DHAL_DP2RENDERSTATE`).
    const DDK_NAME: &'static str;
    /// Size in bytes (equal to `size_of::<Self>()`).
    const SIZE: usize;
    /// Every field, in memory order.
    const FIELDS: &'static [Field];
}

/// Maps a storage type of ours to [`FieldType`].
pub trait FieldStorage {
    /// The storage type.
    const TYPE: FieldType;
}
impl FieldStorage for u8 {
    const TYPE: FieldType = FieldType::U8;
}
impl FieldStorage for U16 {
    const TYPE: FieldType = FieldType::U16;
}
impl FieldStorage for U32 {
    const TYPE: FieldType = FieldType::U32;
}
impl FieldStorage for I32 {
    const TYPE: FieldType = FieldType::I32;
}
impl FieldStorage for F32Le {
    const TYPE: FieldType = FieldType::F32;
}

macro_rules! dp2_struct {
    (
        $(#[$m:meta])*
        $Name:ident = $ddk:literal, size $size:literal {
            $( $field:ident : $ty:ty = $fname:literal as $kind:expr ),* $(,)?
        }
    ) => {
        $(#[$m])*
        #[doc = concat!("\n\nDDK: `", $ddk, "` (", stringify!($size), " bytes).")]
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
        #[repr(C)]
        pub struct $Name {
            $(
                #[doc = concat!("`", $fname, "`")]
                pub $field: $ty,
            )*
        }
        const _: () = assert!(core::mem::size_of::<$Name>() == $size);
        impl Dp2Struct for $Name {
            const DDK_NAME: &'static str = $ddk;
            const SIZE: usize = $size;
            const FIELDS: &'static [Field] = &[
                $( Field {
                    name: $fname,
                    offset: core::mem::offset_of!($Name, $field),
                    ty: <$ty as FieldStorage>::TYPE,
                    kind: $kind,
                }, )*
            ];
        }
    };
}

use ValueKind::{Bool, Color, Dword, Float, Handle, Hex, Long};

const fn e(t: &'static crate::ddi_enum::EnumTable) -> ValueKind {
    ValueKind::Enum(t)
}
const fn fl(t: &'static crate::ddi_enum::FlagsTable) -> ValueKind {
    ValueKind::Flags(t)
}

// ---------------------------------------------------------------- header

dp2_struct! {
    /// The 4-byte command header that starts every DP2 command.
    Dp2CommandHeader = "D3DHAL_DP2COMMAND", size 4 {
        command: u8 = "bCommand" as e(&crate::Opcode::TABLE),
        reserved: u8 = "bReserved" as Dword,
        count: U16 = "wPrimitiveCount" as Dword,
    }
}

// ---------------------------------------------------------------- DX6 primitives

dp2_struct! {
    /// One run of points.
    Dp2Points = "D3DHAL_DP2POINTS", size 4 {
        count: U16 = "wCount" as Dword,
        v_start: U16 = "wVStart" as Dword,
    }
}
dp2_struct! {
    /// The start vertex that precedes an index run (a vertex index, not bytes).
    Dp2StartVertex = "D3DHAL_DP2STARTVERTEX", size 2 {
        v_start: U16 = "wVStart" as Dword,
    }
}
dp2_struct! {
    /// Start of a line list (also used for LINESTRIP, TRIANGLELIST/STRIP/FAN,
    /// whose DDK structs have the same single field).
    Dp2LineList = "D3DHAL_DP2LINELIST", size 2 {
        v_start: U16 = "wVStart" as Dword,
    }
}
dp2_struct! {
    /// One indexed line.
    Dp2IndexedLineList = "D3DHAL_DP2INDEXEDLINELIST", size 4 {
        v1: U16 = "wV1" as Dword,
        v2: U16 = "wV2" as Dword,
    }
}
dp2_struct! {
    /// One indexed triangle with D3DTRIFLAG edge flags.
    Dp2IndexedTriangleList = "D3DHAL_DP2INDEXEDTRIANGLELIST", size 8 {
        v1: U16 = "wV1" as Dword,
        v2: U16 = "wV2" as Dword,
        v3: U16 = "wV3" as Dword,
        flags: U16 = "wFlags" as Hex,
    }
}
dp2_struct! {
    /// One indexed triangle (no flags).
    Dp2IndexedTriangleList2 = "D3DHAL_DP2INDEXEDTRIANGLELIST2", size 6 {
        v1: U16 = "wV1" as Dword,
        v2: U16 = "wV2" as Dword,
        v3: U16 = "wV3" as Dword,
    }
}
dp2_struct! {
    /// The fixed part of TRIANGLEFAN_IMM.
    Dp2TriangleFanImm = "D3DHAL_DP2TRIANGLEFAN_IMM", size 4 {
        edge_flags: U32 = "dwEdgeFlags" as Hex,
    }
}
dp2_struct! {
    /// One WORD index (index runs of the indexed strip/fan opcodes).
    Dp2Index = "WORD", size 2 {
        index: U16 = "index" as Dword,
    }
}

// ---------------------------------------------------------------- DX6/7 state

dp2_struct! {
    /// One render state.
    Dp2RenderState = "D3DHAL_DP2RENDERSTATE", size 8 {
        state: U32 = "RenderState" as e(&names::RenderStateType::TABLE),
        value: U32 = "dwState" as Hex,
    }
}
dp2_struct! {
    /// One texture-stage state.
    Dp2TextureStageState = "D3DHAL_DP2TEXTURESTAGESTATE", size 8 {
        stage: U16 = "wStage" as Dword,
        state: U16 = "TSState" as e(&names::TextureStageStateType::TABLE),
        value: U32 = "dwValue" as Hex,
    }
}
dp2_struct! {
    /// Viewport rectangle.
    Dp2ViewportInfo = "D3DHAL_DP2VIEWPORTINFO", size 16 {
        x: U32 = "dwX" as Dword,
        y: U32 = "dwY" as Dword,
        width: U32 = "dwWidth" as Dword,
        height: U32 = "dwHeight" as Dword,
    }
}
dp2_struct! {
    /// W range.
    Dp2WInfo = "D3DHAL_DP2WINFO", size 8 {
        w_near: F32Le = "dvWNear" as Float,
        w_far: F32Le = "dvWFar" as Float,
    }
}
dp2_struct! {
    /// Attach a palette to a texture.
    Dp2SetPalette = "D3DHAL_DP2SETPALETTE", size 12 {
        palette_handle: U32 = "dwPaletteHandle" as Handle,
        palette_flags: U32 = "dwPaletteFlags" as Hex,
        surface_handle: U32 = "dwSurfaceHandle" as Handle,
    }
}
dp2_struct! {
    /// Palette update header; `num_entries` DWORDs follow.
    Dp2UpdatePalette = "D3DHAL_DP2UPDATEPALETTE", size 8 {
        palette_handle: U32 = "dwPaletteHandle" as Handle,
        start_index: U16 = "wStartIndex" as Dword,
        num_entries: U16 = "wNumEntries" as Dword,
    }
}
dp2_struct! {
    /// One palette entry (DWORD).
    Dp2PaletteEntry = "DWORD", size 4 {
        entry: U32 = "entry" as Hex,
    }
}
dp2_struct! {
    /// Viewport z range.
    Dp2ZRange = "D3DHAL_DP2ZRANGE", size 8 {
        min_z: F32Le = "dvMinZ" as Float,
        max_z: F32Le = "dvMaxZ" as Float,
    }
}
dp2_struct! {
    /// `D3DMATERIAL7` (= D3DHAL_DP2SETMATERIAL).
    Dp2SetMaterial = "D3DHAL_DP2SETMATERIAL", size 68 {
        diffuse_r: F32Le = "dcvDiffuse.r" as Float,
        diffuse_g: F32Le = "dcvDiffuse.g" as Float,
        diffuse_b: F32Le = "dcvDiffuse.b" as Float,
        diffuse_a: F32Le = "dcvDiffuse.a" as Float,
        ambient_r: F32Le = "dcvAmbient.r" as Float,
        ambient_g: F32Le = "dcvAmbient.g" as Float,
        ambient_b: F32Le = "dcvAmbient.b" as Float,
        ambient_a: F32Le = "dcvAmbient.a" as Float,
        specular_r: F32Le = "dcvSpecular.r" as Float,
        specular_g: F32Le = "dcvSpecular.g" as Float,
        specular_b: F32Le = "dcvSpecular.b" as Float,
        specular_a: F32Le = "dcvSpecular.a" as Float,
        emissive_r: F32Le = "dcvEmissive.r" as Float,
        emissive_g: F32Le = "dcvEmissive.g" as Float,
        emissive_b: F32Le = "dcvEmissive.b" as Float,
        emissive_a: F32Le = "dcvEmissive.a" as Float,
        power: F32Le = "dvPower" as Float,
    }
}
dp2_struct! {
    /// SETLIGHT record head; a `D3dLight7` follows when `data_type` is DATA (2).
    Dp2SetLight = "D3DHAL_DP2SETLIGHT", size 8 {
        index: U32 = "dwIndex" as Dword,
        data_type: U32 = "dwDataType" as e(&names::SetLightDataType::TABLE),
    }
}
dp2_struct! {
    /// `D3DLIGHT7`.
    D3dLight7 = "D3DLIGHT7", size 104 {
        light_type: U32 = "dltType" as e(&names::LightType::TABLE),
        diffuse_r: F32Le = "dcvDiffuse.r" as Float,
        diffuse_g: F32Le = "dcvDiffuse.g" as Float,
        diffuse_b: F32Le = "dcvDiffuse.b" as Float,
        diffuse_a: F32Le = "dcvDiffuse.a" as Float,
        specular_r: F32Le = "dcvSpecular.r" as Float,
        specular_g: F32Le = "dcvSpecular.g" as Float,
        specular_b: F32Le = "dcvSpecular.b" as Float,
        specular_a: F32Le = "dcvSpecular.a" as Float,
        ambient_r: F32Le = "dcvAmbient.r" as Float,
        ambient_g: F32Le = "dcvAmbient.g" as Float,
        ambient_b: F32Le = "dcvAmbient.b" as Float,
        ambient_a: F32Le = "dcvAmbient.a" as Float,
        position_x: F32Le = "dvPosition.x" as Float,
        position_y: F32Le = "dvPosition.y" as Float,
        position_z: F32Le = "dvPosition.z" as Float,
        direction_x: F32Le = "dvDirection.x" as Float,
        direction_y: F32Le = "dvDirection.y" as Float,
        direction_z: F32Le = "dvDirection.z" as Float,
        range: F32Le = "dvRange" as Float,
        falloff: F32Le = "dvFalloff" as Float,
        attenuation0: F32Le = "dvAttenuation0" as Float,
        attenuation1: F32Le = "dvAttenuation1" as Float,
        attenuation2: F32Le = "dvAttenuation2" as Float,
        theta: F32Le = "dvTheta" as Float,
        phi: F32Le = "dvPhi" as Float,
    }
}
dp2_struct! {
    /// Create a light slot.
    Dp2CreateLight = "D3DHAL_DP2CREATELIGHT", size 4 {
        index: U32 = "dwIndex" as Dword,
    }
}
dp2_struct! {
    /// SETTRANSFORM / MULTIPLYTRANSFORM record: a transform id and a D3DMATRIX.
    Dp2SetTransform = "D3DHAL_DP2SETTRANSFORM", size 68 {
        transform_type: U32 = "xfrmType" as ValueKind::Custom(&names::TRANSFORM_KIND),
        m11: F32Le = "_11" as Float, m12: F32Le = "_12" as Float, m13: F32Le = "_13" as Float, m14: F32Le = "_14" as Float,
        m21: F32Le = "_21" as Float, m22: F32Le = "_22" as Float, m23: F32Le = "_23" as Float, m24: F32Le = "_24" as Float,
        m31: F32Le = "_31" as Float, m32: F32Le = "_32" as Float, m33: F32Le = "_33" as Float, m34: F32Le = "_34" as Float,
        m41: F32Le = "_41" as Float, m42: F32Le = "_42" as Float, m43: F32Le = "_43" as Float, m44: F32Le = "_44" as Float,
    }
}
impl Dp2SetTransform {
    /// The matrix, row-major (`m[r][c]` = `_{r+1}{c+1}`).
    pub fn matrix(&self) -> [[f32; 4]; 4] {
        [
            [
                self.m11.get(),
                self.m12.get(),
                self.m13.get(),
                self.m14.get(),
            ],
            [
                self.m21.get(),
                self.m22.get(),
                self.m23.get(),
                self.m24.get(),
            ],
            [
                self.m31.get(),
                self.m32.get(),
                self.m33.get(),
                self.m34.get(),
            ],
            [
                self.m41.get(),
                self.m42.get(),
                self.m43.get(),
                self.m44.get(),
            ],
        ]
    }
    /// Builds a record from a transform id and a row-major matrix.
    pub fn from_matrix(transform_type: u32, m: [[f32; 4]; 4]) -> Self {
        let f = F32Le::new;
        Self {
            transform_type: U32::new(transform_type),
            m11: f(m[0][0]),
            m12: f(m[0][1]),
            m13: f(m[0][2]),
            m14: f(m[0][3]),
            m21: f(m[1][0]),
            m22: f(m[1][1]),
            m23: f(m[1][2]),
            m24: f(m[1][3]),
            m31: f(m[2][0]),
            m32: f(m[2][1]),
            m33: f(m[2][2]),
            m34: f(m[2][3]),
            m41: f(m[3][0]),
            m42: f(m[3][1]),
            m43: f(m[3][2]),
            m44: f(m[3][3]),
        }
    }
}
/// MULTIPLYTRANSFORM has the same layout as SETTRANSFORM.
pub type Dp2MultiplyTransform = Dp2SetTransform;

dp2_struct! {
    /// DX7 extension token.
    Dp2Ext = "D3DHAL_DP2EXT", size 8 {
        ext_token: U32 = "dwExtToken" as Hex,
        size: U32 = "dwSize" as Dword,
    }
}
dp2_struct! {
    /// Texture blt.
    Dp2TexBlt = "D3DHAL_DP2TEXBLT", size 36 {
        dest_surface: U32 = "dwDDDestSurface" as Handle,
        src_surface: U32 = "dwDDSrcSurface" as Handle,
        dest_x: I32 = "pDest.x" as Long,
        dest_y: I32 = "pDest.y" as Long,
        src_left: I32 = "rSrc.left" as Long,
        src_top: I32 = "rSrc.top" as Long,
        src_right: I32 = "rSrc.right" as Long,
        src_bottom: I32 = "rSrc.bottom" as Long,
        flags: U32 = "dwFlags" as Hex,
    }
}
dp2_struct! {
    /// State-block operation.
    Dp2StateSet = "D3DHAL_DP2STATESET", size 12 {
        operation: U32 = "dwOperation" as e(&names::StateSetOperation::TABLE),
        param: U32 = "dwParam" as Dword,
        sb_type: U32 = "sbType" as e(&names::StateBlockType::TABLE),
    }
}
dp2_struct! {
    /// Managed-texture priority.
    Dp2SetPriority = "D3DHAL_DP2SETPRIORITY", size 8 {
        surface: U32 = "dwDDSurface" as Handle,
        priority: U32 = "dwPriority" as Dword,
    }
}
dp2_struct! {
    /// Render target and depth buffer.
    Dp2SetRenderTarget = "D3DHAL_DP2SETRENDERTARGET", size 8 {
        render_target: U32 = "hRenderTarget" as Handle,
        z_buffer: U32 = "hZBuffer" as Handle,
    }
}
dp2_struct! {
    /// The fixed 16-byte head of D3DHAL_DP2CLEAR (the RECTs follow).
    Dp2Clear = "D3DHAL_DP2CLEAR", size 16 {
        flags: U32 = "dwFlags" as fl(&names::CLEAR_FLAGS),
        fill_color: U32 = "dwFillColor" as Color,
        fill_depth: F32Le = "dvFillDepth" as Float,
        fill_stencil: U32 = "dwFillStencil" as Dword,
    }
}
dp2_struct! {
    /// `RECT` / `RECTL` (right and bottom exclusive).
    Rect = "RECT", size 16 {
        left: I32 = "left" as Long,
        top: I32 = "top" as Long,
        right: I32 = "right" as Long,
        bottom: I32 = "bottom" as Long,
    }
}
dp2_struct! {
    /// Texture LOD clamp.
    Dp2SetTexLod = "D3DHAL_DP2SETTEXLOD", size 8 {
        surface: U32 = "dwDDSurface" as Handle,
        lod: U32 = "dwLOD" as Dword,
    }
}
dp2_struct! {
    /// User clip plane.
    Dp2SetClipPlane = "D3DHAL_DP2SETCLIPPLANE", size 20 {
        index: U32 = "dwIndex" as Dword,
        a: F32Le = "plane[0]" as Float,
        b: F32Le = "plane[1]" as Float,
        c: F32Le = "plane[2]" as Float,
        d: F32Le = "plane[3]" as Float,
    }
}

// ---------------------------------------------------------------- DX8

dp2_struct! {
    /// A shader or declaration handle (DELETE*/SET* shader opcodes).
    Dp2VertexShader = "D3DHAL_DP2VERTEXSHADER", size 4 {
        handle: U32 = "dwHandle" as Hex,
    }
}
dp2_struct! {
    /// CREATEVERTEXSHADER head; declaration then code bytes follow.
    Dp2CreateVertexShader = "D3DHAL_DP2CREATEVERTEXSHADER", size 12 {
        handle: U32 = "dwHandle" as Hex,
        decl_size: U32 = "dwDeclSize" as Dword,
        code_size: U32 = "dwCodeSize" as Dword,
    }
}
dp2_struct! {
    /// Shader constant head (float, int and bool variants share it); data follows.
    Dp2SetShaderConst = "D3DHAL_DP2SETVERTEXSHADERCONST", size 8 {
        register: U32 = "dwRegister" as Dword,
        count: U32 = "dwCount" as Dword,
    }
}
dp2_struct! {
    /// Bind a vertex buffer to a stream.
    Dp2SetStreamSource = "D3DHAL_DP2SETSTREAMSOURCE", size 12 {
        stream: U32 = "dwStream" as Dword,
        vb_handle: U32 = "dwVBHandle" as Handle,
        stride: U32 = "dwStride" as Dword,
    }
}
dp2_struct! {
    /// Bind user-memory vertices to a stream.
    Dp2SetStreamSourceUm = "D3DHAL_DP2SETSTREAMSOURCEUM", size 8 {
        stream: U32 = "dwStream" as Dword,
        stride: U32 = "dwStride" as Dword,
    }
}
dp2_struct! {
    /// Bind the index buffer.
    Dp2SetIndices = "D3DHAL_DP2SETINDICES", size 8 {
        vb_handle: U32 = "dwVBHandle" as Handle,
        stride: U32 = "dwStride" as Dword,
    }
}
dp2_struct! {
    /// Non-indexed stream draw.
    Dp2DrawPrimitive = "D3DHAL_DP2DRAWPRIMITIVE", size 12 {
        prim_type: U32 = "primType" as e(&names::PrimitiveType::TABLE),
        v_start: U32 = "VStart" as Dword,
        primitive_count: U32 = "PrimitiveCount" as Dword,
    }
}
dp2_struct! {
    /// Indexed stream draw.
    Dp2DrawIndexedPrimitive = "D3DHAL_DP2DRAWINDEXEDPRIMITIVE", size 24 {
        prim_type: U32 = "primType" as e(&names::PrimitiveType::TABLE),
        base_vertex_index: I32 = "BaseVertexIndex" as Long,
        min_index: U32 = "MinIndex" as Dword,
        num_vertices: U32 = "NumVertices" as Dword,
        start_index: U32 = "StartIndex" as Dword,
        primitive_count: U32 = "PrimitiveCount" as Dword,
    }
}
dp2_struct! {
    /// CREATEPIXELSHADER head; code bytes follow.
    Dp2CreatePixelShader = "D3DHAL_DP2CREATEPIXELSHADER", size 8 {
        handle: U32 = "dwHandle" as Hex,
        code_size: U32 = "dwCodeSize" as Dword,
    }
}
dp2_struct! {
    /// Pixel shader handle.
    Dp2PixelShader = "D3DHAL_DP2PIXELSHADER", size 4 {
        handle: U32 = "dwHandle" as Hex,
    }
}
dp2_struct! {
    /// Clipped triangle fan (pre-transformed vertices at a byte offset in stream 0).
    Dp2ClippedTriangleFan = "D3DHAL_CLIPPEDTRIANGLEFAN", size 12 {
        first_vertex_offset: U32 = "FirstVertexOffset" as Dword,
        edge_flags: U32 = "dwEdgeFlags" as Hex,
        primitive_count: U32 = "PrimitiveCount" as Dword,
    }
}
dp2_struct! {
    /// Draw pre-transformed vertices at a byte offset in stream 0.
    Dp2DrawPrimitive2 = "D3DHAL_DP2DRAWPRIMITIVE2", size 12 {
        prim_type: U32 = "primType" as e(&names::PrimitiveType::TABLE),
        first_vertex_offset: U32 = "FirstVertexOffset" as Dword,
        primitive_count: U32 = "PrimitiveCount" as Dword,
    }
}
dp2_struct! {
    /// Indexed draw of pre-transformed vertices (byte offsets).
    Dp2DrawIndexedPrimitive2 = "D3DHAL_DP2DRAWINDEXEDPRIMITIVE2", size 24 {
        prim_type: U32 = "primType" as e(&names::PrimitiveType::TABLE),
        base_vertex_offset: I32 = "BaseVertexOffset" as Long,
        min_index: U32 = "MinIndex" as Dword,
        num_vertices: U32 = "NumVertices" as Dword,
        start_index_offset: U32 = "StartIndexOffset" as Dword,
        primitive_count: U32 = "PrimitiveCount" as Dword,
    }
}
dp2_struct! {
    /// Patch record head (rect and tri share the layout); segments and info may follow.
    Dp2DrawPatch = "D3DHAL_DP2DRAWRECTPATCH", size 8 {
        handle: U32 = "Handle" as Handle,
        flags: U32 = "Flags" as fl(&names::RTPATCH_FLAGS),
    }
}
dp2_struct! {
    /// Four per-edge segment counts of a rect patch.
    RectPatchSegments = "float[4]", size 16 {
        s0: F32Le = "segs[0]" as Float,
        s1: F32Le = "segs[1]" as Float,
        s2: F32Le = "segs[2]" as Float,
        s3: F32Le = "segs[3]" as Float,
    }
}
dp2_struct! {
    /// Three per-edge segment counts of a tri patch.
    TriPatchSegments = "float[3]", size 12 {
        s0: F32Le = "segs[0]" as Float,
        s1: F32Le = "segs[1]" as Float,
        s2: F32Le = "segs[2]" as Float,
    }
}
dp2_struct! {
    /// `D3DRECTPATCH_INFO`.
    D3dRectPatchInfo = "D3DRECTPATCH_INFO", size 28 {
        start_vertex_offset_width: U32 = "StartVertexOffsetWidth" as Dword,
        start_vertex_offset_height: U32 = "StartVertexOffsetHeight" as Dword,
        width: U32 = "Width" as Dword,
        height: U32 = "Height" as Dword,
        stride: U32 = "Stride" as Dword,
        basis: U32 = "Basis" as e(&names::BasisType::TABLE),
        degree: U32 = "Degree" as e(&names::DegreeType::TABLE),
    }
}
dp2_struct! {
    /// `D3DTRIPATCH_INFO`.
    D3dTriPatchInfo = "D3DTRIPATCH_INFO", size 16 {
        start_vertex_offset: U32 = "StartVertexOffset" as Dword,
        num_vertices: U32 = "NumVertices" as Dword,
        basis: U32 = "Basis" as e(&names::BasisType::TABLE),
        degree: U32 = "Degree" as e(&names::DegreeType::TABLE),
    }
}
dp2_struct! {
    /// Volume blt.
    Dp2VolumeBlt = "D3DHAL_DP2VOLUMEBLT", size 48 {
        dest_surface: U32 = "dwDDDestSurface" as Handle,
        src_surface: U32 = "dwDDSrcSurface" as Handle,
        dest_x: U32 = "dwDestX" as Dword,
        dest_y: U32 = "dwDestY" as Dword,
        dest_z: U32 = "dwDestZ" as Dword,
        src_left: U32 = "srcBox.Left" as Dword,
        src_top: U32 = "srcBox.Top" as Dword,
        src_right: U32 = "srcBox.Right" as Dword,
        src_bottom: U32 = "srcBox.Bottom" as Dword,
        src_front: U32 = "srcBox.Front" as Dword,
        src_back: U32 = "srcBox.Back" as Dword,
        flags: U32 = "dwFlags" as Hex,
    }
}
dp2_struct! {
    /// Buffer blt.
    Dp2BufferBlt = "D3DHAL_DP2BUFFERBLT", size 24 {
        dest_surface: U32 = "dwDDDestSurface" as Handle,
        src_surface: U32 = "dwDDSrcSurface" as Handle,
        dest_offset: U32 = "dwOffset" as Dword,
        src_offset: U32 = "rSrc.Offset" as Dword,
        src_size: U32 = "rSrc.Size" as Dword,
        flags: U32 = "dwFlags" as Hex,
    }
}
dp2_struct! {
    /// Dirty rectangle of a managed texture.
    Dp2AddDirtyRect = "D3DHAL_DP2ADDDIRTYRECT", size 20 {
        surface: U32 = "dwSurface" as Handle,
        left: I32 = "rDirtyArea.left" as Long,
        top: I32 = "rDirtyArea.top" as Long,
        right: I32 = "rDirtyArea.right" as Long,
        bottom: I32 = "rDirtyArea.bottom" as Long,
    }
}
dp2_struct! {
    /// Dirty box of a managed volume.
    Dp2AddDirtyBox = "D3DHAL_DP2ADDDIRTYBOX", size 28 {
        surface: U32 = "dwSurface" as Handle,
        left: U32 = "DirtyBox.Left" as Dword,
        top: U32 = "DirtyBox.Top" as Dword,
        right: U32 = "DirtyBox.Right" as Dword,
        bottom: U32 = "DirtyBox.Bottom" as Dword,
        front: U32 = "DirtyBox.Front" as Dword,
        back: U32 = "DirtyBox.Back" as Dword,
    }
}

// ---------------------------------------------------------------- DX9

dp2_struct! {
    /// CREATEVERTEXSHADERDECL head; `num_elements` D3DVERTEXELEMENT9 follow.
    Dp2CreateVertexShaderDecl = "D3DHAL_DP2CREATEVERTEXSHADERDECL", size 8 {
        handle: U32 = "dwHandle" as Hex,
        num_elements: U32 = "dwNumVertexElements" as Dword,
    }
}
dp2_struct! {
    /// `D3DVERTEXELEMENT9`.
    D3dVertexElement9 = "D3DVERTEXELEMENT9", size 8 {
        stream: U16 = "Stream" as Dword,
        offset: U16 = "Offset" as Dword,
        decl_type: u8 = "Type" as e(&names::DeclType::TABLE),
        method: u8 = "Method" as e(&names::DeclMethod::TABLE),
        usage: u8 = "Usage" as e(&names::DeclUsage::TABLE),
        usage_index: u8 = "UsageIndex" as Dword,
    }
}
dp2_struct! {
    /// CREATEVERTEXSHADERFUNC head; `size` bytes of tokens follow.
    Dp2CreateVertexShaderFunc = "D3DHAL_DP2CREATEVERTEXSHADERFUNC", size 8 {
        handle: U32 = "dwHandle" as Hex,
        size: U32 = "dwSize" as Dword,
    }
}
dp2_struct! {
    /// Bind a vertex buffer with a byte offset.
    Dp2SetStreamSource2 = "D3DHAL_DP2SETSTREAMSOURCE2", size 16 {
        stream: U32 = "dwStream" as Dword,
        vb_handle: U32 = "dwVBHandle" as Handle,
        offset: U32 = "dwOffset" as Dword,
        stride: U32 = "dwStride" as Dword,
    }
}
dp2_struct! {
    /// Surface blt (BLT and SURFACEBLT share the layout).
    Dp2Blt = "D3DHAL_DP2BLT", size 52 {
        source: U32 = "dwSource" as Handle,
        src_left: I32 = "rSource.left" as Long,
        src_top: I32 = "rSource.top" as Long,
        src_right: I32 = "rSource.right" as Long,
        src_bottom: I32 = "rSource.bottom" as Long,
        source_mip_level: U32 = "dwSourceMipLevel" as Dword,
        dest: U32 = "dwDest" as Handle,
        dest_left: I32 = "rDest.left" as Long,
        dest_top: I32 = "rDest.top" as Long,
        dest_right: I32 = "rDest.right" as Long,
        dest_bottom: I32 = "rDest.bottom" as Long,
        dest_mip_level: U32 = "dwDestMipLevel" as Dword,
        flags: U32 = "Flags" as fl(&names::DP2BLT_FLAGS),
    }
}
dp2_struct! {
    /// Colour fill.
    Dp2ColorFill = "D3DHAL_DP2COLORFILL", size 24 {
        surface: U32 = "dwSurface" as Handle,
        left: I32 = "rRect.left" as Long,
        top: I32 = "rRect.top" as Long,
        right: I32 = "rRect.right" as Long,
        bottom: I32 = "rRect.bottom" as Long,
        color: U32 = "Color" as Color,
    }
}
dp2_struct! {
    /// Create a query.
    Dp2CreateQuery = "D3DHAL_DP2CREATEQUERY", size 8 {
        query_id: U32 = "dwQueryID" as Dword,
        query_type: U32 = "QueryType" as e(&names::QueryType::TABLE),
    }
}
dp2_struct! {
    /// Render target slot.
    Dp2SetRenderTarget2 = "D3DHAL_DP2SETRENDERTARGET2", size 8 {
        rt_index: U32 = "RTIndex" as Dword,
        render_target: U32 = "hRenderTarget" as Handle,
    }
}
dp2_struct! {
    /// Depth/stencil surface.
    Dp2SetDepthStencil = "D3DHAL_DP2SETDEPTHSTENCIL", size 4 {
        z_buffer: U32 = "hZBuffer" as Handle,
    }
}
dp2_struct! {
    /// Generate mip sublevels.
    Dp2GenerateMipSubLevels = "D3DHAL_DP2GENERATEMIPSUBLEVELS", size 8 {
        surface: U32 = "hSurface" as Handle,
        filter: U32 = "Filter" as e(&names::TextureFilterType::TABLE),
    }
}
dp2_struct! {
    /// Delete a query.
    Dp2DeleteQuery = "D3DHAL_DP2DELETEQUERY", size 4 {
        query_id: U32 = "dwQueryID" as Dword,
    }
}
dp2_struct! {
    /// Issue a query.
    Dp2IssueQuery = "D3DHAL_DP2ISSUEQUERY", size 8 {
        query_id: U32 = "dwQueryID" as Dword,
        flags: U32 = "dwFlags" as fl(&names::ISSUE_FLAGS),
    }
}
dp2_struct! {
    /// Stream frequency divider.
    Dp2SetStreamSourceFreq = "D3DHAL_DP2SETSTREAMSOURCEFREQ", size 8 {
        stream: U32 = "dwStream" as Dword,
        divider: U32 = "dwDivider" as Hex,
    }
}
dp2_struct! {
    /// Convolution kernel head; row then column weights may follow.
    Dp2SetConvolutionKernelMono = "D3DHAL_DP2SETCONVOLUTIONKERNELMONO", size 12 {
        width: U32 = "dwWidth" as Dword,
        height: U32 = "dwHeight" as Dword,
        flags: U32 = "dwFlags" as Hex,
    }
}
dp2_struct! {
    /// Compose rectangles.
    Dp2ComposeRects = "D3DHAL_DP2COMPOSERECTS", size 32 {
        src_surface: U32 = "SrcSurfaceHandle" as Handle,
        dst_surface: U32 = "DstSurfaceHandle" as Handle,
        src_rect_descs_vb: U32 = "SrcRectDescsVBHandle" as Handle,
        num_rects: U32 = "NumRects" as Dword,
        dst_rect_descs_vb: U32 = "DstRectDescsVBHandle" as Handle,
        operation: U32 = "Operation" as e(&names::ComposeRectsOp::TABLE),
        x_offset: I32 = "XOffset" as Long,
        y_offset: I32 = "YOffset" as Long,
    }
}
dp2_struct! {
    /// The part of D3DHAL_DP2RESPONSE after its 4-byte command-style header.
    Dp2ResponseTail = "D3DHAL_DP2RESPONSE.dwTotalSize", size 4 {
        total_size: U32 = "dwTotalSize" as Dword,
    }
}
dp2_struct! {
    /// One query result head; `size` bytes of result data follow.
    Dp2ResponseQuery = "D3DHAL_DP2RESPONSEQUERY", size 8 {
        query_id: U32 = "dwQueryID" as Dword,
        size: U32 = "dwSize" as Dword,
    }
}
dp2_struct! {
    /// One DWORD (shader tokens, constants, BOOLs, weights).
    Dword32 = "DWORD", size 4 {
        value: U32 = "value" as Hex,
    }
}

#[allow(dead_code)]
const _BOOL_USED: ValueKind = Bool;
