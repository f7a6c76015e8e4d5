//! `D3DHAL_DP2OPERATION`: the opcode byte of every DP2 command header.
//!
//! In: the `bCommand` byte. Out: [`Opcode`], a closed enum of all 84 values
//! named by any DDK generation (82 in the current WDK enum plus `EXT` (37)
//! and `RESERVED0` (4) from the DX7 DDK). Any other byte is not an opcode and
//! the decoder reports it as [`crate::Command::Unknown`].

softhal_types::ddi_enum! {
    /// A DP2 opcode (`D3DDP2OP_*`).
    pub enum Opcode: u8 = "D3DHAL_DP2OPERATION", prefix "D3DDP2OP_" {
        /// DX6: point lists from the vertex buffer.
        Points = 1 => "D3DDP2OP_POINTS",
        /// DX6: indexed line list, absolute indices.
        IndexedLineList = 2 => "D3DDP2OP_INDEXEDLINELIST",
        /// DX6: indexed triangle list with edge flags.
        IndexedTriangleList = 3 => "D3DDP2OP_INDEXEDTRIANGLELIST",
        /// DX7 DDK only: front-end internal, never sent to a driver.
        Reserved0 = 4 => "D3DDP2OP_RESERVED0",
        /// DX6: render states.
        RenderState = 8 => "D3DDP2OP_RENDERSTATE",
        /// DX6: line list.
        LineList = 15 => "D3DDP2OP_LINELIST",
        /// DX6: line strip.
        LineStrip = 16 => "D3DDP2OP_LINESTRIP",
        /// DX6: indexed line strip.
        IndexedLineStrip = 17 => "D3DDP2OP_INDEXEDLINESTRIP",
        /// DX6: triangle list.
        TriangleList = 18 => "D3DDP2OP_TRIANGLELIST",
        /// DX6: triangle strip.
        TriangleStrip = 19 => "D3DDP2OP_TRIANGLESTRIP",
        /// DX6: indexed triangle strip.
        IndexedTriangleStrip = 20 => "D3DDP2OP_INDEXEDTRIANGLESTRIP",
        /// DX6: triangle fan.
        TriangleFan = 21 => "D3DDP2OP_TRIANGLEFAN",
        /// DX6: indexed triangle fan.
        IndexedTriangleFan = 22 => "D3DDP2OP_INDEXEDTRIANGLEFAN",
        /// DX6: triangle fan with inline vertices.
        TriangleFanImm = 23 => "D3DDP2OP_TRIANGLEFAN_IMM",
        /// DX6: line list with inline vertices.
        LineListImm = 24 => "D3DDP2OP_LINELIST_IMM",
        /// DX6: texture-stage states.
        TextureStageState = 25 => "D3DDP2OP_TEXTURESTAGESTATE",
        /// DX6: indexed triangle list with a start vertex.
        IndexedTriangleList2 = 26 => "D3DDP2OP_INDEXEDTRIANGLELIST2",
        /// DX6: indexed line list with a start vertex.
        IndexedLineList2 = 27 => "D3DDP2OP_INDEXEDLINELIST2",
        /// DX6: viewport.
        ViewportInfo = 28 => "D3DDP2OP_VIEWPORTINFO",
        /// DX6: w range for w-buffering and fog.
        WInfo = 29 => "D3DDP2OP_WINFO",
        /// DX6/7: attach a palette to a texture.
        SetPalette = 30 => "D3DDP2OP_SETPALETTE",
        /// DX6/7: update palette entries.
        UpdatePalette = 31 => "D3DDP2OP_UPDATEPALETTE",
        /// DX7: viewport z range.
        ZRange = 32 => "D3DDP2OP_ZRANGE",
        /// DX7: material.
        SetMaterial = 33 => "D3DDP2OP_SETMATERIAL",
        /// DX7: light data / enable.
        SetLight = 34 => "D3DDP2OP_SETLIGHT",
        /// DX7: create a light slot.
        CreateLight = 35 => "D3DDP2OP_CREATELIGHT",
        /// DX7: set a transform matrix.
        SetTransform = 36 => "D3DDP2OP_SETTRANSFORM",
        /// DX7 DDK only: extension token.
        Ext = 37 => "D3DDP2OP_EXT",
        /// DX7: texture blt.
        TexBlt = 38 => "D3DDP2OP_TEXBLT",
        /// DX7: state blocks.
        StateSet = 39 => "D3DDP2OP_STATESET",
        /// DX7: managed texture priority.
        SetPriority = 40 => "D3DDP2OP_SETPRIORITY",
        /// DX7: set render target and depth buffer.
        SetRenderTarget = 41 => "D3DDP2OP_SETRENDERTARGET",
        /// DX7: clear rectangles.
        Clear = 42 => "D3DDP2OP_CLEAR",
        /// DX7: texture LOD clamp.
        SetTexLod = 43 => "D3DDP2OP_SETTEXLOD",
        /// DX7: user clip plane (Wine spells it `D3DPP2OP_SETCLIPPLANE`).
        SetClipPlane = 44 => "D3DDP2OP_SETCLIPPLANE" | "D3DPP2OP_SETCLIPPLANE",
        /// DX8: create a vertex shader (declaration + code).
        CreateVertexShader = 45 => "D3DDP2OP_CREATEVERTEXSHADER",
        /// DX8: delete a vertex shader.
        DeleteVertexShader = 46 => "D3DDP2OP_DELETEVERTEXSHADER",
        /// DX8: set the vertex shader (or an FVF).
        SetVertexShader = 47 => "D3DDP2OP_SETVERTEXSHADER",
        /// DX8: vertex shader float constants.
        SetVertexShaderConst = 48 => "D3DDP2OP_SETVERTEXSHADERCONST",
        /// DX8: bind a vertex buffer to a stream.
        SetStreamSource = 49 => "D3DDP2OP_SETSTREAMSOURCE",
        /// DX8: bind user-memory vertices to stream 0.
        SetStreamSourceUm = 50 => "D3DDP2OP_SETSTREAMSOURCEUM",
        /// DX8: bind the index buffer.
        SetIndices = 51 => "D3DDP2OP_SETINDICES",
        /// DX8: non-indexed stream draw.
        DrawPrimitive = 52 => "D3DDP2OP_DRAWPRIMITIVE",
        /// DX8: indexed stream draw.
        DrawIndexedPrimitive = 53 => "D3DDP2OP_DRAWINDEXEDPRIMITIVE",
        /// DX8: create a pixel shader.
        CreatePixelShader = 54 => "D3DDP2OP_CREATEPIXELSHADER",
        /// DX8: delete a pixel shader.
        DeletePixelShader = 55 => "D3DDP2OP_DELETEPIXELSHADER",
        /// DX8: set the pixel shader.
        SetPixelShader = 56 => "D3DDP2OP_SETPIXELSHADER",
        /// DX8: pixel shader float constants.
        SetPixelShaderConst = 57 => "D3DDP2OP_SETPIXELSHADERCONST",
        /// DX8: clipped triangle fan (pre-transformed, stream 0).
        ClippedTriangleFan = 58 => "D3DDP2OP_CLIPPEDTRIANGLEFAN",
        /// DX8: draw pre-transformed vertices at a byte offset.
        DrawPrimitive2 = 59 => "D3DDP2OP_DRAWPRIMITIVE2",
        /// DX8: indexed draw of pre-transformed vertices.
        DrawIndexedPrimitive2 = 60 => "D3DDP2OP_DRAWINDEXEDPRIMITIVE2",
        /// DX8: rectangular high-order patch.
        DrawRectPatch = 61 => "D3DDP2OP_DRAWRECTPATCH",
        /// DX8: triangular high-order patch.
        DrawTriPatch = 62 => "D3DDP2OP_DRAWTRIPATCH",
        /// DX8: volume texture blt.
        VolumeBlt = 63 => "D3DDP2OP_VOLUMEBLT",
        /// DX8: buffer blt.
        BufferBlt = 64 => "D3DDP2OP_BUFFERBLT",
        /// DX8: multiply a transform.
        MultiplyTransform = 65 => "D3DDP2OP_MULTIPLYTRANSFORM",
        /// DX8: dirty rectangle of a managed texture.
        AddDirtyRect = 66 => "D3DDP2OP_ADDDIRTYRECT",
        /// DX8: dirty box of a managed volume.
        AddDirtyBox = 67 => "D3DDP2OP_ADDDIRTYBOX",
        /// DX9: create a vertex declaration.
        CreateVertexShaderDecl = 71 => "D3DDP2OP_CREATEVERTEXSHADERDECL",
        /// DX9: delete a vertex declaration.
        DeleteVertexShaderDecl = 72 => "D3DDP2OP_DELETEVERTEXSHADERDECL",
        /// DX9: set the vertex declaration (or an FVF).
        SetVertexShaderDecl = 73 => "D3DDP2OP_SETVERTEXSHADERDECL",
        /// DX9: create vertex shader code.
        CreateVertexShaderFunc = 74 => "D3DDP2OP_CREATEVERTEXSHADERFUNC",
        /// DX9: delete vertex shader code.
        DeleteVertexShaderFunc = 75 => "D3DDP2OP_DELETEVERTEXSHADERFUNC",
        /// DX9: set vertex shader code.
        SetVertexShaderFunc = 76 => "D3DDP2OP_SETVERTEXSHADERFUNC",
        /// DX9: vertex shader integer constants.
        SetVertexShaderConstI = 77 => "D3DDP2OP_SETVERTEXSHADERCONSTI",
        /// DX9: scissor rectangle.
        SetScissorRect = 79 => "D3DDP2OP_SETSCISSORRECT",
        /// DX9: bind a vertex buffer with an offset.
        SetStreamSource2 = 80 => "D3DDP2OP_SETSTREAMSOURCE2",
        /// DX9: surface blt with stretch.
        Blt = 81 => "D3DDP2OP_BLT",
        /// DX9: colour fill.
        ColorFill = 82 => "D3DDP2OP_COLORFILL",
        /// DX9: vertex shader boolean constants.
        SetVertexShaderConstB = 83 => "D3DDP2OP_SETVERTEXSHADERCONSTB",
        /// DX9: create a query.
        CreateQuery = 84 => "D3DDP2OP_CREATEQUERY",
        /// DX9: set render target slot n.
        SetRenderTarget2 = 85 => "D3DDP2OP_SETRENDERTARGET2",
        /// DX9: set the depth/stencil surface.
        SetDepthStencil = 86 => "D3DDP2OP_SETDEPTHSTENCIL",
        /// DX9: response buffer only: more responses follow in another call.
        ResponseContinue = 87 => "D3DDP2OP_RESPONSECONTINUE",
        /// DX9: response buffer only: query results.
        ResponseQuery = 88 => "D3DDP2OP_RESPONSEQUERY",
        /// DX9: generate mip sublevels.
        GenerateMipSubLevels = 89 => "D3DDP2OP_GENERATEMIPSUBLEVELS",
        /// DX9: delete a query.
        DeleteQuery = 90 => "D3DDP2OP_DELETEQUERY",
        /// DX9: issue a query (begin/end).
        IssueQuery = 91 => "D3DDP2OP_ISSUEQUERY",
        /// DX9: pixel shader integer constants.
        SetPixelShaderConstI = 93 => "D3DDP2OP_SETPIXELSHADERCONSTI",
        /// DX9: pixel shader boolean constants.
        SetPixelShaderConstB = 94 => "D3DDP2OP_SETPIXELSHADERCONSTB",
        /// DX9: stream frequency divider.
        SetStreamSourceFreq = 95 => "D3DDP2OP_SETSTREAMSOURCEFREQ",
        /// DX9: surface blt without stretch.
        SurfaceBlt = 96 => "D3DDP2OP_SURFACEBLT",
        /// DX9 (9.L): monochrome convolution kernel.
        SetConvolutionKernelMono = 97 => "D3DDP2OP_SETCONVOLUTIONKERNELMONO",
        /// DX9 (9.L): compose rectangles.
        ComposeRects = 98 => "D3DDP2OP_COMPOSERECTS",
    }
}

impl Opcode {
    /// The command draws primitives into the render target: the DX6
    /// primitive opcodes (indexed or not, `_IMM` included), the DX8
    /// DRAWPRIMITIVE / DRAWINDEXEDPRIMITIVE families, CLIPPEDTRIANGLEFAN
    /// and the high-order patches (DRAWRECTPATCH, DRAWTRIPATCH).
    pub const fn draws_primitives(self) -> bool {
        matches!(
            self,
            Opcode::Points
                | Opcode::IndexedLineList
                | Opcode::IndexedTriangleList
                | Opcode::LineList
                | Opcode::LineStrip
                | Opcode::IndexedLineStrip
                | Opcode::TriangleList
                | Opcode::TriangleStrip
                | Opcode::IndexedTriangleStrip
                | Opcode::TriangleFan
                | Opcode::IndexedTriangleFan
                | Opcode::TriangleFanImm
                | Opcode::LineListImm
                | Opcode::IndexedTriangleList2
                | Opcode::IndexedLineList2
                | Opcode::DrawPrimitive
                | Opcode::DrawIndexedPrimitive
                | Opcode::ClippedTriangleFan
                | Opcode::DrawPrimitive2
                | Opcode::DrawIndexedPrimitive2
                | Opcode::DrawRectPatch
                | Opcode::DrawTriPatch
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Opcode;

    /// The primitive opcodes of the DX6–DX9 DDKs draw; state, resource and
    /// query opcodes (CLEAR included: it fills, it draws no primitive) do not.
    #[test]
    fn which_opcodes_draw_primitives() {
        for op in [
            Opcode::Points,
            Opcode::TriangleList,
            Opcode::IndexedTriangleList2,
            Opcode::LineListImm,
            Opcode::DrawIndexedPrimitive2,
            Opcode::ClippedTriangleFan,
            Opcode::DrawTriPatch,
        ] {
            assert!(op.draws_primitives(), "{op:?}");
        }
        for op in [
            Opcode::RenderState,
            Opcode::Clear,
            Opcode::SetTransform,
            Opcode::TexBlt,
            Opcode::IssueQuery,
            Opcode::Reserved0,
        ] {
            assert!(!op.draws_primitives(), "{op:?}");
        }
        assert_eq!(
            Opcode::ALL.iter().filter(|o| o.draws_primitives()).count(),
            22
        );
    }
}
