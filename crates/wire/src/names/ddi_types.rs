//! Value enums of DP2 payload fields (other than render/texture states).
//!
//! In: enum-typed fields of DP2 records (`primType`, `xfrmType`,
//! `QueryType`, `sbType`, `dwOperation`, `dwDataType`, vertex-element bytes,
//! patch info, ...). Out: closed enums with their DDK names both ways, plus
//! [`transform_name`] / [`parse_transform`] for transform numbers that cannot
//! all be variants (`D3DTS_WORLDMATRIX(n)` = 256 + n for n up to 255).

use crate::ddi_enum::CustomKind;

softhal_types::ddi_enum! {
    /// `D3DPRIMITIVETYPE`: `primType` of the DX8+ draw tokens.
    pub enum PrimitiveType: u32 = "D3DPRIMITIVETYPE", prefix "D3DPT_" {
        /// Points: P vertices.
        PointList = 1 => "D3DPT_POINTLIST",
        /// Separate lines: 2P vertices.
        LineList = 2 => "D3DPT_LINELIST",
        /// Connected lines: P + 1 vertices.
        LineStrip = 3 => "D3DPT_LINESTRIP",
        /// Separate triangles: 3P vertices.
        TriangleList = 4 => "D3DPT_TRIANGLELIST",
        /// Triangle strip: P + 2 vertices.
        TriangleStrip = 5 => "D3DPT_TRIANGLESTRIP",
        /// Triangle fan: P + 2 vertices.
        TriangleFan = 6 => "D3DPT_TRIANGLEFAN",
    }
}

softhal_types::ddi_enum! {
    /// `D3DTRANSFORMSTATETYPE`: `xfrmType` of SETTRANSFORM / MULTIPLYTRANSFORM.
    ///
    /// Only the named values are variants; world matrices 4..255 of the DX8+
    /// numbering (`D3DTS_WORLDMATRIX(n)` = 256 + n) are handled by
    /// [`transform_name`] and [`parse_transform`].
    pub enum TransformStateType: u32 = "D3DTRANSFORMSTATETYPE", prefix "D3DTS_" {
        /// DX7 numbering of world matrix 0.
        WorldDx7 = 1 => "D3DTRANSFORMSTATE_WORLD_DX7" | "D3DTRANSFORMSTATE_WORLD",
        /// View matrix.
        View = 2 => "D3DTS_VIEW" | "D3DTRANSFORMSTATE_VIEW",
        /// Projection matrix.
        Projection = 3 => "D3DTS_PROJECTION" | "D3DTRANSFORMSTATE_PROJECTION",
        /// DX7 numbering of world matrix 1.
        World1Dx7 = 4 => "D3DTRANSFORMSTATE_WORLD1_DX7" | "D3DTRANSFORMSTATE_WORLD1",
        /// DX7 numbering of world matrix 2.
        World2Dx7 = 5 => "D3DTRANSFORMSTATE_WORLD2_DX7" | "D3DTRANSFORMSTATE_WORLD2",
        /// DX7 numbering of world matrix 3.
        World3Dx7 = 6 => "D3DTRANSFORMSTATE_WORLD3_DX7" | "D3DTRANSFORMSTATE_WORLD3",
        /// Texture-coordinate transform of stage 0.
        Texture0 = 16 => "D3DTS_TEXTURE0" | "D3DTRANSFORMSTATE_TEXTURE0",
        /// Texture-coordinate transform of stage 1.
        Texture1 = 17 => "D3DTS_TEXTURE1" | "D3DTRANSFORMSTATE_TEXTURE1",
        /// Texture-coordinate transform of stage 2.
        Texture2 = 18 => "D3DTS_TEXTURE2" | "D3DTRANSFORMSTATE_TEXTURE2",
        /// Texture-coordinate transform of stage 3.
        Texture3 = 19 => "D3DTS_TEXTURE3" | "D3DTRANSFORMSTATE_TEXTURE3",
        /// Texture-coordinate transform of stage 4.
        Texture4 = 20 => "D3DTS_TEXTURE4" | "D3DTRANSFORMSTATE_TEXTURE4",
        /// Texture-coordinate transform of stage 5.
        Texture5 = 21 => "D3DTS_TEXTURE5" | "D3DTRANSFORMSTATE_TEXTURE5",
        /// Texture-coordinate transform of stage 6.
        Texture6 = 22 => "D3DTS_TEXTURE6" | "D3DTRANSFORMSTATE_TEXTURE6",
        /// Texture-coordinate transform of stage 7.
        Texture7 = 23 => "D3DTS_TEXTURE7" | "D3DTRANSFORMSTATE_TEXTURE7",
        /// DX8+ world matrix 0 (`D3DTS_WORLDMATRIX(0)`).
        World = 256 => "D3DTS_WORLD",
        /// DX8+ world matrix 1.
        World1 = 257 => "D3DTS_WORLD1",
        /// DX8+ world matrix 2.
        World2 = 258 => "D3DTS_WORLD2",
        /// DX8+ world matrix 3.
        World3 = 259 => "D3DTS_WORLD3",
    }
}

/// First transform number of the DX8+ world matrices (`D3DTS_WORLDMATRIX(0)`).
pub const D3DTS_WORLDMATRIX_BASE: u32 = 256;

/// Number of DX8+ world matrices (`D3DTS_WORLDMATRIX(0..=255)`).
pub const D3DTS_WORLDMATRIX_COUNT: u32 = 256;

/// The DDK name of a transform number: the variant name when there is one,
/// `D3DTS_WORLDMATRIX(n)` for 260..=511, the decimal number otherwise.
pub fn transform_name(value: u32) -> String {
    if let Some(t) = TransformStateType::from_raw(value) {
        return t.name().to_string();
    }
    let n = value.wrapping_sub(D3DTS_WORLDMATRIX_BASE);
    if n < D3DTS_WORLDMATRIX_COUNT {
        format!("D3DTS_WORLDMATRIX({n})")
    } else {
        value.to_string()
    }
}

/// Parses a transform number: any name or alias of [`TransformStateType`]
/// (prefix optional), `D3DTS_WORLDMATRIX(n)` with n in 0..=255 (decimal or
/// hex, prefix optional), or a plain number.
pub fn parse_transform(text: &str) -> Option<u32> {
    let text = text.trim();
    if let Some(v) = TransformStateType::TABLE.value_of(text) {
        return Some(v);
    }
    let inner = super::strip_prefix_ci(text, "D3DTS_").unwrap_or(text);
    if let Some(arg) =
        super::strip_prefix_ci(inner, "WORLDMATRIX(").and_then(|r| r.strip_suffix(')'))
    {
        let n = super::parse_number(arg)?;
        return D3DTS_WORLDMATRIX_BASE
            .checked_add(n)
            .filter(|_| n < D3DTS_WORLDMATRIX_COUNT);
    }
    super::parse_number(text)
}

/// [`crate::ddi_enum::ValueKind::Custom`] printer/parser of transform numbers.
pub static TRANSFORM_KIND: CustomKind = CustomKind {
    name: "D3DTRANSFORMSTATETYPE",
    format: transform_name,
    parse: parse_transform,
};

softhal_types::ddi_enum! {
    /// `D3DQUERYTYPE`: `QueryType` of CREATEQUERY.
    pub enum QueryType: u32 = "D3DQUERYTYPE", prefix "D3DQUERYTYPE_" {
        /// Vertex-cache description (`D3DDEVINFO_VCACHE`, 16 bytes).
        VCache = 4 => "D3DQUERYTYPE_VCACHE",
        /// Resource-manager statistics (runtime-implemented).
        ResourceManager = 5 => "D3DQUERYTYPE_RESOURCEMANAGER",
        /// Vertex statistics (8 bytes).
        VertexStats = 6 => "D3DQUERYTYPE_VERTEXSTATS",
        /// Event (BOOL).
        Event = 8 => "D3DQUERYTYPE_EVENT",
        /// Occlusion (DWORD pixel count).
        Occlusion = 9 => "D3DQUERYTYPE_OCCLUSION",
        /// Timestamp (UINT64).
        Timestamp = 10 => "D3DQUERYTYPE_TIMESTAMP",
        /// Timestamp disjoint (BOOL).
        TimestampDisjoint = 11 => "D3DQUERYTYPE_TIMESTAMPDISJOINT",
        /// Timestamp frequency (UINT64).
        TimestampFreq = 12 => "D3DQUERYTYPE_TIMESTAMPFREQ",
        /// Pipeline timings (4 floats).
        PipelineTimings = 13 => "D3DQUERYTYPE_PIPELINETIMINGS",
        /// Interface timings (5 floats).
        InterfaceTimings = 14 => "D3DQUERYTYPE_INTERFACETIMINGS",
        /// Vertex timings (2 floats).
        VertexTimings = 15 => "D3DQUERYTYPE_VERTEXTIMINGS",
        /// Pixel timings (2 floats).
        PixelTimings = 16 => "D3DQUERYTYPE_PIXELTIMINGS",
        /// Bandwidth timings (5 floats).
        BandwidthTimings = 17 => "D3DQUERYTYPE_BANDWIDTHTIMINGS",
        /// Cache utilisation (2 floats).
        CacheUtilization = 18 => "D3DQUERYTYPE_CACHEUTILIZATION",
        /// D3D9Ex memory pressure (24 bytes).
        MemoryPressure = 19 => "D3DQUERYTYPE_MEMORYPRESSURE",
    }
}

softhal_types::ddi_enum! {
    /// `D3DBASISTYPE`: `Basis` of the patch info structures.
    pub enum BasisType: u32 = "D3DBASISTYPE", prefix "D3DBASIS_" {
        /// Bezier basis.
        Bezier = 0 => "D3DBASIS_BEZIER",
        /// B-spline basis.
        BSpline = 1 => "D3DBASIS_BSPLINE",
        /// Catmull-Rom (interpolating) basis; D3D8 name `D3DBASIS_INTERPOLATE`.
        CatmullRom = 2 => "D3DBASIS_CATMULL_ROM" | "D3DBASIS_INTERPOLATE",
    }
}

softhal_types::ddi_enum! {
    /// `D3DSTATEBLOCKTYPE`: `sbType` of `D3DHAL_DP2STATESET`.
    pub enum StateBlockType: u32 = "D3DSTATEBLOCKTYPE", prefix "D3DSBT_" {
        /// Every captured state.
        All = 1 => "D3DSBT_ALL",
        /// Pixel-pipeline states.
        PixelState = 2 => "D3DSBT_PIXELSTATE",
        /// Vertex-pipeline states.
        VertexState = 3 => "D3DSBT_VERTEXSTATE",
    }
}

softhal_types::ddi_enum! {
    /// `D3DHAL_STATESET*`: `dwOperation` of `D3DHAL_DP2STATESET`.
    pub enum StateSetOperation: u32 = "D3DHAL_STATESET", prefix "D3DHAL_STATESET" {
        /// Start recording into state block `dwParam`.
        Begin = 0 => "D3DHAL_STATESETBEGIN",
        /// Stop recording.
        End = 1 => "D3DHAL_STATESETEND",
        /// Delete state block `dwParam`.
        Delete = 2 => "D3DHAL_STATESETDELETE",
        /// Apply state block `dwParam`.
        Execute = 3 => "D3DHAL_STATESETEXECUTE",
        /// Re-capture the current values of the states in block `dwParam`.
        Capture = 4 => "D3DHAL_STATESETCAPTURE",
        /// DX8+: create block `dwParam` of type `sbType` from the current state.
        Create = 5 => "D3DHAL_STATESETCREATE",
    }
}

softhal_types::ddi_enum! {
    /// `D3DHAL_SETLIGHT_*`: `dwDataType` of `D3DHAL_DP2SETLIGHT`.
    pub enum SetLightDataType: u32 = "D3DHAL_SETLIGHT", prefix "D3DHAL_SETLIGHT_" {
        /// Light on; no data follows.
        Enable = 0 => "D3DHAL_SETLIGHT_ENABLE",
        /// Light off; no data follows.
        Disable = 1 => "D3DHAL_SETLIGHT_DISABLE",
        /// A `D3DLIGHT7` follows.
        Data = 2 => "D3DHAL_SETLIGHT_DATA",
    }
}

softhal_types::ddi_enum! {
    /// `D3DDECLTYPE`: `Type` byte of `D3DVERTEXELEMENT9`.
    pub enum DeclType: u8 = "D3DDECLTYPE", prefix "D3DDECLTYPE_" {
        /// 1 float.
        Float1 = 0 => "D3DDECLTYPE_FLOAT1",
        /// 2 floats.
        Float2 = 1 => "D3DDECLTYPE_FLOAT2",
        /// 3 floats.
        Float3 = 2 => "D3DDECLTYPE_FLOAT3",
        /// 4 floats.
        Float4 = 3 => "D3DDECLTYPE_FLOAT4",
        /// A8R8G8B8 colour, expanded to (R, G, B, A).
        D3dColor = 4 => "D3DDECLTYPE_D3DCOLOR",
        /// 4 unsigned bytes.
        UByte4 = 5 => "D3DDECLTYPE_UBYTE4",
        /// 2 signed shorts.
        Short2 = 6 => "D3DDECLTYPE_SHORT2",
        /// 4 signed shorts.
        Short4 = 7 => "D3DDECLTYPE_SHORT4",
        /// 4 unsigned bytes / 255.
        UByte4N = 8 => "D3DDECLTYPE_UBYTE4N",
        /// 2 signed shorts / 32767.
        Short2N = 9 => "D3DDECLTYPE_SHORT2N",
        /// 4 signed shorts / 32767.
        Short4N = 10 => "D3DDECLTYPE_SHORT4N",
        /// 2 unsigned shorts / 65535.
        UShort2N = 11 => "D3DDECLTYPE_USHORT2N",
        /// 4 unsigned shorts / 65535.
        UShort4N = 12 => "D3DDECLTYPE_USHORT4N",
        /// Unsigned 10:10:10.
        UDec3 = 13 => "D3DDECLTYPE_UDEC3",
        /// Signed normalised 10:10:10.
        Dec3N = 14 => "D3DDECLTYPE_DEC3N",
        /// 2 half floats.
        Float16_2 = 15 => "D3DDECLTYPE_FLOAT16_2",
        /// 4 half floats.
        Float16_4 = 16 => "D3DDECLTYPE_FLOAT16_4",
        /// No data (end marker).
        Unused = 17 => "D3DDECLTYPE_UNUSED",
    }
}

softhal_types::ddi_enum! {
    /// `D3DDECLMETHOD`: `Method` byte of `D3DVERTEXELEMENT9`.
    pub enum DeclMethod: u8 = "D3DDECLMETHOD", prefix "D3DDECLMETHOD_" {
        /// Plain fetch.
        Default = 0 => "D3DDECLMETHOD_DEFAULT",
        /// Tessellator: partial derivative in U.
        PartialU = 1 => "D3DDECLMETHOD_PARTIALU",
        /// Tessellator: partial derivative in V.
        PartialV = 2 => "D3DDECLMETHOD_PARTIALV",
        /// Tessellator: cross product of the derivatives.
        CrossUv = 3 => "D3DDECLMETHOD_CROSSUV",
        /// Tessellator: UV coordinates.
        Uv = 4 => "D3DDECLMETHOD_UV",
        /// Displacement-map lookup.
        Lookup = 5 => "D3DDECLMETHOD_LOOKUP",
        /// Presampled displacement-map lookup.
        LookupPresampled = 6 => "D3DDECLMETHOD_LOOKUPPRESAMPLED",
    }
}

softhal_types::ddi_enum! {
    /// `D3DDECLUSAGE`: `Usage` byte of `D3DVERTEXELEMENT9`.
    pub enum DeclUsage: u8 = "D3DDECLUSAGE", prefix "D3DDECLUSAGE_" {
        /// Position.
        Position = 0 => "D3DDECLUSAGE_POSITION",
        /// Blend weights.
        BlendWeight = 1 => "D3DDECLUSAGE_BLENDWEIGHT",
        /// Blend indices.
        BlendIndices = 2 => "D3DDECLUSAGE_BLENDINDICES",
        /// Normal.
        Normal = 3 => "D3DDECLUSAGE_NORMAL",
        /// Point size.
        PSize = 4 => "D3DDECLUSAGE_PSIZE",
        /// Texture coordinates.
        TexCoord = 5 => "D3DDECLUSAGE_TEXCOORD",
        /// Tangent.
        Tangent = 6 => "D3DDECLUSAGE_TANGENT",
        /// Binormal.
        Binormal = 7 => "D3DDECLUSAGE_BINORMAL",
        /// Tessellation factor.
        TessFactor = 8 => "D3DDECLUSAGE_TESSFACTOR",
        /// Transformed position.
        PositionT = 9 => "D3DDECLUSAGE_POSITIONT",
        /// Colour (0 diffuse, 1 specular).
        Color = 10 => "D3DDECLUSAGE_COLOR",
        /// Fog.
        Fog = 11 => "D3DDECLUSAGE_FOG",
        /// Depth.
        Depth = 12 => "D3DDECLUSAGE_DEPTH",
        /// Sample.
        Sample = 13 => "D3DDECLUSAGE_SAMPLE",
    }
}

softhal_types::ddi_enum! {
    /// `D3DCOMPOSERECTSOP`: `Operation` of `D3DHAL_DP2COMPOSERECTS`.
    pub enum ComposeRectsOp: u32 = "D3DCOMPOSERECTSOP", prefix "D3DCOMPOSERECTS_" {
        /// Copy.
        Copy = 1 => "D3DCOMPOSERECTS_COPY",
        /// OR.
        Or = 2 => "D3DCOMPOSERECTS_OR",
        /// AND.
        And = 3 => "D3DCOMPOSERECTS_AND",
        /// Negate.
        Neg = 4 => "D3DCOMPOSERECTS_NEG",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::{DegreeType, LightType};

    #[test]
    fn tables_round_trip() {
        check_ddi_enum!(PrimitiveType);
        check_ddi_enum!(TransformStateType);
        check_ddi_enum!(LightType);
        check_ddi_enum!(QueryType);
        check_ddi_enum!(BasisType);
        check_ddi_enum!(DegreeType);
        check_ddi_enum!(StateBlockType);
        check_ddi_enum!(StateSetOperation);
        check_ddi_enum!(SetLightDataType);
        check_ddi_enum!(DeclType);
        check_ddi_enum!(DeclMethod);
        check_ddi_enum!(DeclUsage);
        check_ddi_enum!(ComposeRectsOp);
    }

    #[test]
    fn spot_checks() {
        assert_eq!(PrimitiveType::TriangleFan.raw(), 6);
        assert_eq!(QueryType::MemoryPressure.raw(), 19);
        assert_eq!(QueryType::ALL.len(), 15);
        assert_eq!(
            BasisType::from_name("D3DBASIS_INTERPOLATE"),
            Some(BasisType::CatmullRom)
        );
        assert_eq!(BasisType::CatmullRom.name(), "D3DBASIS_CATMULL_ROM");
        assert_eq!(
            DegreeType::from_name("D3DORDER_QUINTIC"),
            Some(DegreeType::Quintic)
        );
        assert_eq!(StateSetOperation::Create.raw(), 5);
        assert_eq!(
            StateSetOperation::from_name("EXECUTE"),
            Some(StateSetOperation::Execute)
        );
        assert_eq!(DeclType::Unused.raw(), 17);
        assert_eq!(DeclUsage::Sample.raw(), 13);
        assert_eq!(DeclMethod::LookupPresampled.raw(), 6);
        assert_eq!(TransformStateType::World.raw(), 256);
        assert_eq!(
            TransformStateType::from_name("WORLD"),
            Some(TransformStateType::World)
        );
        assert_eq!(
            TransformStateType::from_name("D3DTRANSFORMSTATE_WORLD"),
            Some(TransformStateType::WorldDx7)
        );
    }

    #[test]
    fn transform_names() {
        assert_eq!(transform_name(2), "D3DTS_VIEW");
        assert_eq!(transform_name(256), "D3DTS_WORLD");
        assert_eq!(transform_name(259), "D3DTS_WORLD3");
        assert_eq!(transform_name(260), "D3DTS_WORLDMATRIX(4)");
        assert_eq!(transform_name(511), "D3DTS_WORLDMATRIX(255)");
        assert_eq!(transform_name(512), "512");
        assert_eq!(transform_name(7), "7");
        assert_eq!(parse_transform("D3DTS_WORLDMATRIX(0)"), Some(256));
        assert_eq!(parse_transform("worldmatrix(0x10)"), Some(272));
        assert_eq!(parse_transform("D3DTS_WORLDMATRIX(256)"), None);
        assert_eq!(parse_transform("D3DTS_WORLDMATRIX()"), None);
        assert_eq!(parse_transform("projection"), Some(3));
        assert_eq!(parse_transform("0x100"), Some(256));
        assert_eq!(parse_transform("bogus"), None);
        for v in (0..1024).chain([u32::MAX, 0x8000_0000]) {
            assert_eq!(parse_transform(&transform_name(v)), Some(v), "{v}");
        }
    }
}
