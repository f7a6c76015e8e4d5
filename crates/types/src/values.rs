//! Value enums of render states, texture-stage states and lights.
//!
//! In: the DWORD of a render state, texture-stage state or light field
//! whose value is enumerated. Out: one closed enum per DDK type
//! (`D3DCMPFUNC`, `D3DTEXTUREOP`, `D3DLIGHTTYPE`, ...), each with its DDK
//! names both ways and `from_d3d`/`d3d`. Values not in a table are simply
//! not variants (a printer falls back to a number, a decoder to `None`).
//! The few meanings every layer agrees on are written here too:
//! [`CmpFunc::test`] and [`StencilOp::apply`].

crate::ddi_enum! {
    /// `D3DFILLMODE`: value of `D3DRS_FILLMODE`.
    pub enum FillMode: u32 = "D3DFILLMODE", prefix "D3DFILL_" {
        /// Vertices only.
        Point = 1 => "D3DFILL_POINT",
        /// Edges only.
        Wireframe = 2 => "D3DFILL_WIREFRAME",
        /// Filled triangles.
        Solid = 3 => "D3DFILL_SOLID",
    }
}

crate::ddi_enum! {
    /// `D3DSHADEMODE`: value of `D3DRS_SHADEMODE`.
    pub enum ShadeMode: u32 = "D3DSHADEMODE", prefix "D3DSHADE_" {
        /// Colour of the first vertex for the whole primitive.
        Flat = 1 => "D3DSHADE_FLAT",
        /// Colours interpolated across the primitive.
        Gouraud = 2 => "D3DSHADE_GOURAUD",
        /// Phong shading (never implemented by any runtime; treated as Gouraud).
        Phong = 3 => "D3DSHADE_PHONG",
    }
}

crate::ddi_enum! {
    /// `D3DCULL`: value of `D3DRS_CULLMODE`.
    pub enum Cull: u32 = "D3DCULL", prefix "D3DCULL_" {
        /// No culling.
        None = 1 => "D3DCULL_NONE",
        /// Cull clockwise-wound triangles (screen space).
        Cw = 2 => "D3DCULL_CW",
        /// Cull counter-clockwise-wound triangles.
        Ccw = 3 => "D3DCULL_CCW",
    }
}

crate::ddi_enum! {
    /// `D3DCMPFUNC`: depth, alpha and stencil comparison functions.
    pub enum CmpFunc: u32 = "D3DCMPFUNC", prefix "D3DCMP_" {
        /// Never passes.
        Never = 1 => "D3DCMP_NEVER",
        /// Passes if new < reference.
        Less = 2 => "D3DCMP_LESS",
        /// Passes if equal.
        Equal = 3 => "D3DCMP_EQUAL",
        /// Passes if new <= reference.
        LessEqual = 4 => "D3DCMP_LESSEQUAL",
        /// Passes if new > reference.
        Greater = 5 => "D3DCMP_GREATER",
        /// Passes if not equal.
        NotEqual = 6 => "D3DCMP_NOTEQUAL",
        /// Passes if new >= reference.
        GreaterEqual = 7 => "D3DCMP_GREATEREQUAL",
        /// Always passes.
        Always = 8 => "D3DCMP_ALWAYS",
    }
}

crate::ddi_enum! {
    /// `D3DBLEND`: blend factors (`SRCBLEND`, `DESTBLEND`, `SRCBLENDALPHA`, `DESTBLENDALPHA`).
    pub enum Blend: u32 = "D3DBLEND", prefix "D3DBLEND_" {
        /// (0, 0, 0, 0).
        Zero = 1 => "D3DBLEND_ZERO",
        /// (1, 1, 1, 1).
        One = 2 => "D3DBLEND_ONE",
        /// Source colour.
        SrcColor = 3 => "D3DBLEND_SRCCOLOR",
        /// 1 - source colour.
        InvSrcColor = 4 => "D3DBLEND_INVSRCCOLOR",
        /// Source alpha.
        SrcAlpha = 5 => "D3DBLEND_SRCALPHA",
        /// 1 - source alpha.
        InvSrcAlpha = 6 => "D3DBLEND_INVSRCALPHA",
        /// Destination alpha.
        DestAlpha = 7 => "D3DBLEND_DESTALPHA",
        /// 1 - destination alpha.
        InvDestAlpha = 8 => "D3DBLEND_INVDESTALPHA",
        /// Destination colour.
        DestColor = 9 => "D3DBLEND_DESTCOLOR",
        /// 1 - destination colour.
        InvDestColor = 10 => "D3DBLEND_INVDESTCOLOR",
        /// (f, f, f, 1) with f = min(As, 1 - Ad).
        SrcAlphaSat = 11 => "D3DBLEND_SRCALPHASAT",
        /// Legacy: source = SRCALPHA and destination = INVSRCALPHA (set via SRCBLEND).
        BothSrcAlpha = 12 => "D3DBLEND_BOTHSRCALPHA",
        /// Legacy: source = INVSRCALPHA and destination = SRCALPHA.
        BothInvSrcAlpha = 13 => "D3DBLEND_BOTHINVSRCALPHA",
        /// DX9: `D3DRS_BLENDFACTOR`.
        BlendFactor = 14 => "D3DBLEND_BLENDFACTOR",
        /// DX9: 1 - `D3DRS_BLENDFACTOR`.
        InvBlendFactor = 15 => "D3DBLEND_INVBLENDFACTOR",
        /// D3D9Ex: second source colour.
        SrcColor2 = 16 => "D3DBLEND_SRCCOLOR2",
        /// D3D9Ex: 1 - second source colour.
        InvSrcColor2 = 17 => "D3DBLEND_INVSRCCOLOR2",
    }
}

crate::ddi_enum! {
    /// `D3DBLENDOP`: value of `D3DRS_BLENDOP` / `D3DRS_BLENDOPALPHA`.
    pub enum BlendOp: u32 = "D3DBLENDOP", prefix "D3DBLENDOP_" {
        /// src + dest.
        Add = 1 => "D3DBLENDOP_ADD",
        /// src - dest.
        Subtract = 2 => "D3DBLENDOP_SUBTRACT",
        /// dest - src.
        RevSubtract = 3 => "D3DBLENDOP_REVSUBTRACT",
        /// min(src, dest).
        Min = 4 => "D3DBLENDOP_MIN",
        /// max(src, dest).
        Max = 5 => "D3DBLENDOP_MAX",
    }
}

crate::ddi_enum! {
    /// `D3DFOGMODE`: value of `D3DRS_FOGTABLEMODE` / `D3DRS_FOGVERTEXMODE`.
    pub enum FogMode: u32 = "D3DFOGMODE", prefix "D3DFOG_" {
        /// No fog of this kind.
        None = 0 => "D3DFOG_NONE",
        /// Exponential.
        Exp = 1 => "D3DFOG_EXP",
        /// Exponential squared.
        Exp2 = 2 => "D3DFOG_EXP2",
        /// Linear between start and end.
        Linear = 3 => "D3DFOG_LINEAR",
    }
}

crate::ddi_enum! {
    /// `D3DSTENCILOP`: stencil operations (`STENCILFAIL`/`ZFAIL`/`PASS` and the CCW ones).
    pub enum StencilOp: u32 = "D3DSTENCILOP", prefix "D3DSTENCILOP_" {
        /// Keep the stored value.
        Keep = 1 => "D3DSTENCILOP_KEEP",
        /// Store 0.
        Zero = 2 => "D3DSTENCILOP_ZERO",
        /// Store the reference value.
        Replace = 3 => "D3DSTENCILOP_REPLACE",
        /// Increment, clamping at the maximum.
        IncrSat = 4 => "D3DSTENCILOP_INCRSAT",
        /// Decrement, clamping at 0.
        DecrSat = 5 => "D3DSTENCILOP_DECRSAT",
        /// Invert the bits.
        Invert = 6 => "D3DSTENCILOP_INVERT",
        /// Increment, wrapping.
        Incr = 7 => "D3DSTENCILOP_INCR",
        /// Decrement, wrapping.
        Decr = 8 => "D3DSTENCILOP_DECR",
    }
}

crate::ddi_enum! {
    /// `D3DZBUFFERTYPE`: value of `D3DRS_ZENABLE`.
    pub enum ZBufferType: u32 = "D3DZBUFFERTYPE", prefix "D3DZB_" {
        /// Depth test off.
        False = 0 => "D3DZB_FALSE",
        /// Z buffering.
        True = 1 => "D3DZB_TRUE",
        /// W buffering.
        UseW = 2 => "D3DZB_USEW",
    }
}

crate::ddi_enum! {
    /// `D3DMATERIALCOLORSOURCE`: value of the `*MATERIALSOURCE` states.
    pub enum MaterialColorSource: u32 = "D3DMATERIALCOLORSOURCE", prefix "D3DMCS_" {
        /// The material colour.
        Material = 0 => "D3DMCS_MATERIAL",
        /// Vertex diffuse colour.
        Color1 = 1 => "D3DMCS_COLOR1",
        /// Vertex specular colour.
        Color2 = 2 => "D3DMCS_COLOR2",
    }
}

crate::ddi_enum! {
    /// `D3DVERTEXBLENDFLAGS`: value of `D3DRS_VERTEXBLEND` (DX6 spellings `D3DVBLEND_*` accepted).
    pub enum VertexBlendFlags: u32 = "D3DVERTEXBLENDFLAGS", prefix "D3DVBF_" {
        /// No blending.
        Disable = 0 => "D3DVBF_DISABLE" | "D3DVBLEND_DISABLE",
        /// Two matrices, one weight.
        Weights1 = 1 => "D3DVBF_1WEIGHTS" | "D3DVBLEND_1WEIGHT",
        /// Three matrices, two weights.
        Weights2 = 2 => "D3DVBF_2WEIGHTS" | "D3DVBLEND_2WEIGHTS",
        /// Four matrices, three weights.
        Weights3 = 3 => "D3DVBF_3WEIGHTS" | "D3DVBLEND_3WEIGHTS",
        /// DX8+: tweening with `D3DRS_TWEENFACTOR`.
        Tweening = 255 => "D3DVBF_TWEENING",
        /// DX8+: one matrix, weight 1.0.
        Weights0 = 256 => "D3DVBF_0WEIGHTS",
    }
}

crate::ddi_enum! {
    /// `D3DPATCHEDGESTYLE`: value of `D3DRS_PATCHEDGESTYLE`.
    pub enum PatchEdgeStyle: u32 = "D3DPATCHEDGESTYLE", prefix "D3DPATCHEDGE_" {
        /// Integer tessellation.
        Discrete = 0 => "D3DPATCHEDGE_DISCRETE",
        /// Fractional tessellation.
        Continuous = 1 => "D3DPATCHEDGE_CONTINUOUS",
    }
}

crate::ddi_enum! {
    /// `D3DDEBUGMONITORTOKENS`: value of `D3DRS_DEBUGMONITORTOKEN`.
    pub enum DebugMonitorTokens: u32 = "D3DDEBUGMONITORTOKENS", prefix "D3DDMT_" {
        /// Debug monitor on.
        Enable = 0 => "D3DDMT_ENABLE",
        /// Debug monitor off.
        Disable = 1 => "D3DDMT_DISABLE",
    }
}

crate::ddi_enum! {
    /// `D3DANTIALIASMODE`: value of the legacy `D3DRENDERSTATE_ANTIALIAS`.
    pub enum AntialiasMode: u32 = "D3DANTIALIASMODE", prefix "D3DANTIALIAS_" {
        /// No antialiasing.
        None = 0 => "D3DANTIALIAS_NONE",
        /// Sort-dependent antialiasing.
        SortDependent = 1 => "D3DANTIALIAS_SORTDEPENDENT",
        /// Sort-independent antialiasing.
        SortIndependent = 2 => "D3DANTIALIAS_SORTINDEPENDENT",
    }
}

crate::ddi_enum! {
    /// `D3DTEXTUREBLEND`: value of the legacy `D3DRENDERSTATE_TEXTUREMAPBLEND`.
    pub enum TextureBlend: u32 = "D3DTEXTUREBLEND", prefix "D3DTBLEND_" {
        /// Texture colour replaces.
        Decal = 1 => "D3DTBLEND_DECAL",
        /// Texture times diffuse.
        Modulate = 2 => "D3DTBLEND_MODULATE",
        /// Decal with texture alpha blend.
        DecalAlpha = 3 => "D3DTBLEND_DECALALPHA",
        /// Modulate including alpha.
        ModulateAlpha = 4 => "D3DTBLEND_MODULATEALPHA",
        /// Decal with mask.
        DecalMask = 5 => "D3DTBLEND_DECALMASK",
        /// Modulate with mask.
        ModulateMask = 6 => "D3DTBLEND_MODULATEMASK",
        /// Texture copied.
        Copy = 7 => "D3DTBLEND_COPY",
        /// Texture plus diffuse.
        Add = 8 => "D3DTBLEND_ADD",
    }
}

crate::ddi_enum! {
    /// `D3DTEXTUREFILTER`: legacy DX5 filters of `D3DRENDERSTATE_TEXTUREMAG` / `TEXTUREMIN`.
    pub enum TextureFilter: u32 = "D3DTEXTUREFILTER", prefix "D3DFILTER_" {
        /// Point sampling.
        Nearest = 1 => "D3DFILTER_NEAREST",
        /// Bilinear.
        Linear = 2 => "D3DFILTER_LINEAR",
        /// Point sampling from the nearest mip level.
        MipNearest = 3 => "D3DFILTER_MIPNEAREST",
        /// Point sampling, blending two mip levels.
        MipLinear = 4 => "D3DFILTER_MIPLINEAR",
        /// Bilinear from the nearest mip level.
        LinearMipNearest = 5 => "D3DFILTER_LINEARMIPNEAREST",
        /// Trilinear.
        LinearMipLinear = 6 => "D3DFILTER_LINEARMIPLINEAR",
    }
}

crate::ddi_enum! {
    /// `D3DTEXTUREADDRESS`: texture addressing modes.
    pub enum TextureAddress: u32 = "D3DTEXTUREADDRESS", prefix "D3DTADDRESS_" {
        /// Repeat.
        Wrap = 1 => "D3DTADDRESS_WRAP",
        /// Mirror at every integer boundary.
        Mirror = 2 => "D3DTADDRESS_MIRROR",
        /// Clamp to [0, 1].
        Clamp = 3 => "D3DTADDRESS_CLAMP",
        /// Border colour outside [0, 1].
        Border = 4 => "D3DTADDRESS_BORDER",
        /// DX8+: mirror once, then clamp.
        MirrorOnce = 5 => "D3DTADDRESS_MIRRORONCE",
    }
}

crate::ddi_enum! {
    /// `D3DTEXTUREOP`: value of `D3DTSS_COLOROP` / `D3DTSS_ALPHAOP`.
    pub enum TextureOp: u32 = "D3DTEXTUREOP", prefix "D3DTOP_" {
        /// Disables this stage and all higher ones (COLOROP).
        Disable = 1 => "D3DTOP_DISABLE",
        /// arg1.
        SelectArg1 = 2 => "D3DTOP_SELECTARG1",
        /// arg2.
        SelectArg2 = 3 => "D3DTOP_SELECTARG2",
        /// arg1 * arg2.
        Modulate = 4 => "D3DTOP_MODULATE",
        /// arg1 * arg2 * 2.
        Modulate2x = 5 => "D3DTOP_MODULATE2X",
        /// arg1 * arg2 * 4.
        Modulate4x = 6 => "D3DTOP_MODULATE4X",
        /// arg1 + arg2.
        Add = 7 => "D3DTOP_ADD",
        /// arg1 + arg2 - 0.5.
        AddSigned = 8 => "D3DTOP_ADDSIGNED",
        /// (arg1 + arg2 - 0.5) * 2.
        AddSigned2x = 9 => "D3DTOP_ADDSIGNED2X",
        /// arg1 - arg2.
        Subtract = 10 => "D3DTOP_SUBTRACT",
        /// arg1 + arg2 - arg1 * arg2.
        AddSmooth = 11 => "D3DTOP_ADDSMOOTH",
        /// Blend by iterated diffuse alpha.
        BlendDiffuseAlpha = 12 => "D3DTOP_BLENDDIFFUSEALPHA",
        /// Blend by texture alpha.
        BlendTextureAlpha = 13 => "D3DTOP_BLENDTEXTUREALPHA",
        /// Blend by texture-factor alpha.
        BlendFactorAlpha = 14 => "D3DTOP_BLENDFACTORALPHA",
        /// Blend by premultiplied texture alpha.
        BlendTextureAlphaPm = 15 => "D3DTOP_BLENDTEXTUREALPHAPM",
        /// Blend by the current (previous stage) alpha.
        BlendCurrentAlpha = 16 => "D3DTOP_BLENDCURRENTALPHA",
        /// Modulate with the next stage's texture.
        PreModulate = 17 => "D3DTOP_PREMODULATE",
        /// arg1.rgb + arg1.a * arg2.rgb.
        ModulateAlphaAddColor = 18 => "D3DTOP_MODULATEALPHA_ADDCOLOR",
        /// arg1.rgb * arg2.rgb + arg1.a.
        ModulateColorAddAlpha = 19 => "D3DTOP_MODULATECOLOR_ADDALPHA",
        /// (1 - arg1.a) * arg2.rgb + arg1.rgb.
        ModulateInvAlphaAddColor = 20 => "D3DTOP_MODULATEINVALPHA_ADDCOLOR",
        /// (1 - arg1.rgb) * arg2.rgb + arg1.a.
        ModulateInvColorAddAlpha = 21 => "D3DTOP_MODULATEINVCOLOR_ADDALPHA",
        /// Bump mapping with the environment matrix.
        BumpEnvMap = 22 => "D3DTOP_BUMPENVMAP",
        /// Bump mapping with luminance.
        BumpEnvMapLuminance = 23 => "D3DTOP_BUMPENVMAPLUMINANCE",
        /// Signed dot product of arg1 and arg2, replicated.
        DotProduct3 = 24 => "D3DTOP_DOTPRODUCT3",
        /// DX8: arg0 + arg1 * arg2.
        MultiplyAdd = 25 => "D3DTOP_MULTIPLYADD",
        /// DX8: arg0 * arg1 + (1 - arg0) * arg2.
        Lerp = 26 => "D3DTOP_LERP",
    }
}

crate::ddi_enum! {
    /// `D3DTEXTUREFILTERTYPE`: DX8+ value of `D3DTSS_MAGFILTER` / `MINFILTER` / `MIPFILTER`
    /// (and of `D3DHAL_DP2GENERATEMIPSUBLEVELS.Filter`).
    pub enum TextureFilterType: u32 = "D3DTEXTUREFILTERTYPE", prefix "D3DTEXF_" {
        /// MIPFILTER: no mipmapping.
        None = 0 => "D3DTEXF_NONE",
        /// Point sampling.
        Point = 1 => "D3DTEXF_POINT",
        /// Linear.
        Linear = 2 => "D3DTEXF_LINEAR",
        /// Anisotropic.
        Anisotropic = 3 => "D3DTEXF_ANISOTROPIC",
        /// Flat cubic.
        FlatCubic = 4 => "D3DTEXF_FLATCUBIC",
        /// Gaussian cubic.
        GaussianCubic = 5 => "D3DTEXF_GAUSSIANCUBIC",
        /// Pyramidal quad.
        PyramidalQuad = 6 => "D3DTEXF_PYRAMIDALQUAD",
        /// Gaussian quad.
        GaussianQuad = 7 => "D3DTEXF_GAUSSIANQUAD",
        /// DX9 (9.L): monochrome convolution.
        ConvolutionMono = 8 => "D3DTEXF_CONVOLUTIONMONO",
    }
}

crate::ddi_enum! {
    /// `D3DTEXTUREMAGFILTER`: DX6/7 value of `D3DTSS_MAGFILTER`.
    pub enum TextureMagFilter: u32 = "D3DTEXTUREMAGFILTER", prefix "D3DTFG_" {
        /// Point sampling.
        Point = 1 => "D3DTFG_POINT",
        /// Bilinear.
        Linear = 2 => "D3DTFG_LINEAR",
        /// Flat cubic.
        FlatCubic = 3 => "D3DTFG_FLATCUBIC",
        /// Gaussian cubic.
        GaussianCubic = 4 => "D3DTFG_GAUSSIANCUBIC",
        /// Anisotropic.
        Anisotropic = 5 => "D3DTFG_ANISOTROPIC",
    }
}

crate::ddi_enum! {
    /// `D3DTEXTUREMINFILTER`: DX6/7 value of `D3DTSS_MINFILTER`.
    pub enum TextureMinFilter: u32 = "D3DTEXTUREMINFILTER", prefix "D3DTFN_" {
        /// Point sampling.
        Point = 1 => "D3DTFN_POINT",
        /// Bilinear.
        Linear = 2 => "D3DTFN_LINEAR",
        /// Anisotropic.
        Anisotropic = 3 => "D3DTFN_ANISOTROPIC",
    }
}

crate::ddi_enum! {
    /// `D3DTEXTUREMIPFILTER`: DX6/7 value of `D3DTSS_MIPFILTER`.
    pub enum TextureMipFilter: u32 = "D3DTEXTUREMIPFILTER", prefix "D3DTFP_" {
        /// No mipmapping.
        None = 1 => "D3DTFP_NONE",
        /// Nearest mip level.
        Point = 2 => "D3DTFP_POINT",
        /// Blend two mip levels.
        Linear = 3 => "D3DTFP_LINEAR",
    }
}

crate::ddi_enum! {
    /// `D3DTA_*` argument selector (bits 3:0 of a texture argument; the
    /// modifiers `D3DTA_COMPLEMENT`/`D3DTA_ALPHAREPLICATE` are ORed on top,
    /// see [`super::format_texture_arg`]).
    pub enum TextureArg: u32 = "D3DTA", prefix "D3DTA_" {
        /// Iterated diffuse colour.
        Diffuse = 0 => "D3DTA_DIFFUSE",
        /// Result of the previous stage (stage 0: diffuse).
        Current = 1 => "D3DTA_CURRENT",
        /// This stage's texture.
        Texture = 2 => "D3DTA_TEXTURE",
        /// `D3DRS_TEXTUREFACTOR`.
        TFactor = 3 => "D3DTA_TFACTOR",
        /// Iterated specular colour.
        Specular = 4 => "D3DTA_SPECULAR",
        /// DX8+: the temporary register.
        Temp = 5 => "D3DTA_TEMP",
        /// DX9: `D3DTSS_CONSTANT` of the stage.
        Constant = 6 => "D3DTA_CONSTANT",
    }
}

crate::ddi_enum! {
    /// `D3DTSS_TCI_*`: texture-coordinate generation mode (bits 31:16 of
    /// `D3DTSS_TEXCOORDINDEX`; see [`super::format_texcoord_index`]).
    pub enum TexCoordIndexMode: u32 = "D3DTSS_TCI", prefix "D3DTSS_TCI_" {
        /// Coordinates from the vertex.
        PassThru = 0 => "D3DTSS_TCI_PASSTHRU",
        /// Camera-space normal.
        CameraSpaceNormal = 0x10000 => "D3DTSS_TCI_CAMERASPACENORMAL",
        /// Camera-space position.
        CameraSpacePosition = 0x20000 => "D3DTSS_TCI_CAMERASPACEPOSITION",
        /// Camera-space reflection vector.
        CameraSpaceReflectionVector = 0x30000 => "D3DTSS_TCI_CAMERASPACEREFLECTIONVECTOR",
        /// DX8+: sphere map.
        SphereMap = 0x40000 => "D3DTSS_TCI_SPHEREMAP",
    }
}

crate::ddi_enum! {
    /// `D3DLIGHTTYPE`: `dltType` of `D3DLIGHT7`.
    pub enum LightType: u32 = "D3DLIGHTTYPE", prefix "D3DLIGHT_" {
        /// Point light.
        Point = 1 => "D3DLIGHT_POINT",
        /// Spot light.
        Spot = 2 => "D3DLIGHT_SPOT",
        /// Directional light.
        Directional = 3 => "D3DLIGHT_DIRECTIONAL",
        /// DX5-era parallel point light (not valid in DX7+).
        ParallelPoint = 4 => "D3DLIGHT_PARALLELPOINT",
        /// DX5-era GL-style spot light (not valid in DX7+).
        GlSpot = 5 => "D3DLIGHT_GLSPOT",
    }
}

crate::ddi_enum! {
    /// `D3DDEGREETYPE` (DX8 `D3DORDERTYPE`): patch degree and N-patch interpolation order.
    pub enum DegreeType: u32 = "D3DDEGREETYPE", prefix "D3DDEGREE_" {
        /// Linear.
        Linear = 1 => "D3DDEGREE_LINEAR" | "D3DORDER_LINEAR",
        /// Quadratic.
        Quadratic = 2 => "D3DDEGREE_QUADRATIC" | "D3DORDER_QUADRATIC",
        /// Cubic.
        Cubic = 3 => "D3DDEGREE_CUBIC" | "D3DORDER_CUBIC",
        /// Quintic.
        Quintic = 5 => "D3DDEGREE_QUINTIC" | "D3DORDER_QUINTIC",
    }
}

impl CmpFunc {
    /// Evaluates `new FUNC reference` (depth, stencil and alpha tests).
    #[inline]
    pub fn test<T: PartialOrd>(self, new: T, reference: T) -> bool {
        match self {
            CmpFunc::Never => false,
            CmpFunc::Less => new < reference,
            CmpFunc::Equal => new == reference,
            CmpFunc::LessEqual => new <= reference,
            CmpFunc::Greater => new > reference,
            CmpFunc::NotEqual => new != reference,
            CmpFunc::GreaterEqual => new >= reference,
            CmpFunc::Always => true,
        }
    }
}

impl LightType {
    /// Whether this is a `D3DLIGHT7` type (DX7 and later: POINT, SPOT,
    /// DIRECTIONAL); the DX5 PARALLELPOINT and GLSPOT are not.
    pub const fn is_dx7(self) -> bool {
        matches!(
            self,
            LightType::Point | LightType::Spot | LightType::Directional
        )
    }
}

impl StencilOp {
    /// Applies the operation to a `bits`-bit stencil value.
    pub fn apply(self, value: u32, reference: u32, bits: u32) -> u32 {
        let max = if bits >= 32 {
            u32::MAX
        } else {
            (1u32 << bits) - 1
        };
        let v = value & max;
        match self {
            StencilOp::Keep => v,
            StencilOp::Zero => 0,
            StencilOp::Replace => reference & max,
            StencilOp::IncrSat => (v + 1).min(max),
            StencilOp::DecrSat => v.saturating_sub(1),
            StencilOp::Invert => !v & max,
            StencilOp::Incr => v.wrapping_add(1) & max,
            StencilOp::Decr => v.wrapping_sub(1) & max,
        }
    }
}

/// `D3DFOG_NONE`: the Direct3D default of both fog-mode states
/// (`D3DRS_FOGTABLEMODE`, `D3DRS_FOGVERTEXMODE`) and what an undefined
/// value is honoured as.
impl Default for FogMode {
    fn default() -> Self {
        FogMode::None
    }
}

/// `D3DMCS_MATERIAL`: the colour comes from the material. What an
/// undefined value of any of the four `*MATERIALSOURCE` states is honoured
/// as (their Direct3D defaults differ per state: see the state table).
impl Default for MaterialColorSource {
    fn default() -> Self {
        MaterialColorSource::Material
    }
}

/// `D3DVBF_DISABLE`: the Direct3D default of `D3DRS_VERTEXBLEND` (no
/// blending, world matrix 0).
impl Default for VertexBlendFlags {
    fn default() -> Self {
        VertexBlendFlags::Disable
    }
}
