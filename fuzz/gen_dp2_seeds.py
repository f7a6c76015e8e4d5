#!/usr/bin/env python3
"""Writes the texture-era and shader seeds of the `dp2_execute` and
`dp2_threads` fuzz targets (one input layout, `fuzz/fuzz_targets/common/dp2.rs`) into
fuzz/seeds/dp2_execute/ and fuzz/seeds/dp2_threads/: each is a 4-byte
header (FVF selector, render-target selector, command offset, vertex
count), the vertices, and a DP2 command stream written in DP2 assembly
(docs/dp2-assembly.md) and assembled with `softhal asm`.

The streams name the harness's surfaces by placeholder DWORDs, replaced by
the real handles before each run:

    TEX0 = 0x7E7E0000  A8R8G8B8 8x8, full chain     TEX5 = 0x7E7E0005  volume 4x4x4, full chain
    TEX1 = 0x7E7E0001  P8 4x4                       TEX6 = 0x7E7E0006  volume 2x2x2
    TEX2 = 0x7E7E0002  DXT1 8x8, full chain         TEX7 = 0x7E7E0007  A16B16G16R16F 4x4
    TEX3 = 0x7E7E0003  DXT1 8x8, one level          TEX8 = 0x7E7E0008  V8U8 4x4
    TEX4 = 0x7E7E0004  cube 4x4, full chain         RT, DEPTH, VB, IB, CB = 0x7E7E0010..14

Every seed's stream is valid except where its name says `refused`: check
what the device answers with

    cd fuzz && DP2_TRACE=1 cargo +nightly fuzz run -O --debug-assertions \\
        dp2_execute seeds/dp2_execute/<seed> -- -runs=0

Usage: python3 fuzz/gen_dp2_seeds.py [path/to/softhal]
(default: `cargo run --release -p softhal-cli`, built once).
"""
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TARGETS = ("dp2_execute", "dp2_threads")

TEX = ["0x%08X" % (0x7E7E0000 + k) for k in range(9)]
RT, DEPTH, VB, IB, CB = ("0x%08X" % (0x7E7E0010 + k) for k in range(5))

# Index into the harness's FVFS table (byte 0 of an input).
FVF_TLT = 1  # XYZRHW | DIFFUSE | SPECULAR | TEX1, 32 bytes
FVF_TLT2 = 5  # XYZRHW | DIFFUSE | SPECULAR | TEX2, 40 bytes
FVF_XYZN_TEX = 4  # XYZ | NORMAL | TEX1, 32 bytes
FVF_XYZ_N_DS_TEX = 12  # XYZ | NORMAL | DIFFUSE | SPECULAR | TEX1, 40 bytes
FVF_TL_TEX3 = 9  # XYZRHW | DIFFUSE | TEX1 with 3 coordinates, 32 bytes
FVF_TLT_FOG = 13  # XYZRHW | DIFFUSE | SPECULAR | TEX1 | FOG, 36 bytes
FVF_XYZB1_N_TEX = 10  # XYZB1 | NORMAL | TEX1, 36 bytes


def rt_sel(w_steps, h_steps):
    """Byte 1 for a (1 + 3 * w_steps) x (1 + 2 * h_steps) X8R8G8B8 target."""
    b = (h_steps << 4) | w_steps
    assert b & 1 == 0, "odd selectors pick R5G6B5"
    return b


RT_7X7 = rt_sel(2, 3)  # 7 x 7


def f32(x):
    return struct.pack("<f", x)


def tlt(x, y, color, u, v, specular=0xFF000000, extra_uv=None, fog=None):
    """A pre-transformed vertex: x y z rhw diffuse specular [fog] u v [u2 v2]."""
    b = f32(x) + f32(y) + f32(0.5) + f32(1.0) + struct.pack("<II", color, specular)
    if fog is not None:
        b += f32(fog)
    b += f32(u) + f32(v)
    if extra_uv is not None:
        b += f32(extra_uv[0]) + f32(extra_uv[1])
    return b


def tlt_quad(color=0xFFFFFFFF, **kw):
    """Two triangles covering a 7 x 7 target, texture coordinates 0..1."""
    c = [(-0.5, -0.5, 0.0, 0.0), (6.5, -0.5, 1.0, 0.0), (-0.5, 6.5, 0.0, 1.0),
         (6.5, 6.5, 1.0, 1.0)]
    order = [0, 1, 2, 2, 1, 3]
    return b"".join(tlt(*c[i][:2], color, *c[i][2:], **kw) for i in order)


def tl3_quad(color=0xFFFFFFFF):
    """XYZRHW | DIFFUSE | TEX1 (3 coordinates): a quad with direction-like
    coordinates for cube and volume lookups."""
    c = [(-0.5, -0.5, (-1.0, -1.0, 1.0)), (6.5, -0.5, (1.0, -1.0, 0.5)),
         (-0.5, 6.5, (-1.0, 1.0, 0.25)), (6.5, 6.5, (1.0, 1.0, 0.0))]
    out = b""
    for i in [0, 1, 2, 2, 1, 3]:
        x, y, uvw = c[i]
        out += f32(x) + f32(y) + f32(0.5) + f32(1.0) + struct.pack("<I", color)
        out += b"".join(f32(t) for t in uvw)
    return out


def xyz_normal_triangle(extra=b"", uv=True, blend=None):
    """An untransformed triangle covering the viewport, facing -z:
    x y z [beta] nx ny nz <extra> [u v]."""
    out = b""
    for x, y, u, v in [(-1.0, -1.0, 0.0, 1.0), (-1.0, 3.0, 0.0, -1.0), (3.0, -1.0, 2.0, 1.0)]:
        out += f32(x) + f32(y) + f32(0.5)
        if blend is not None:
            out += f32(blend)
        out += f32(0.0) + f32(0.0) + f32(-1.0) + extra
        if uv:
            out += f32(u) + f32(v)
    return out


NOCULL = "RENDERSTATE { RenderState=CULLMODE dwState=NONE } { RenderState=ZENABLE dwState=FALSE }\n"


def show(stage, tex, op="SELECTARG1", arg2="CURRENT"):
    return (
        f"TEXTURESTAGESTATE {{ wStage={stage} TSState=TEXTUREMAP dwValue={tex} }}"
        f" {{ wStage={stage} TSState=COLOROP dwValue={op} }}"
        f" {{ wStage={stage} TSState=COLORARG1 dwValue=D3DTA_TEXTURE }}"
        f" {{ wStage={stage} TSState=COLORARG2 dwValue=D3DTA_{arg2} }}"
        f" {{ wStage={stage} TSState=ALPHAOP dwValue=SELECTARG1 }}"
        f" {{ wStage={stage} TSState=ALPHAARG1 dwValue=D3DTA_TEXTURE }}\n"
    )


DRAW2 = "TRIANGLELIST count=2 wVStart=0\n"
IDENTITY = "_11=1.0 _22=1.0 _33=1.0 _44=1.0"
TRANSFORMS = (
    f"SETTRANSFORM {{ xfrmType=D3DTS_WORLD {IDENTITY} }}\n"
    f"SETTRANSFORM {{ xfrmType=D3DTS_VIEW {IDENTITY} }}\n"
    f"SETTRANSFORM {{ xfrmType=D3DTS_PROJECTION {IDENTITY} }}\n"
    "VIEWPORTINFO { dwX=0 dwY=0 dwWidth=7 dwHeight=7 }\n"
    "ZRANGE { dvMinZ=0.0 dvMaxZ=1.0 }\n"
)

# The shader seeds' declaration of the 32-byte pre-transformed vertices
# (x y z rhw diffuse specular u v) and the rows mapping pixels of the 7 x 7
# target to clip space (x' = 2x/7 - 1, y' = 1 - 2y/7).
SHADER_DECL = (
    "CREATEVERTEXSHADERDECL { dwHandle=0x31 { Stream=0 Offset=0 Type=FLOAT3 Usage=POSITION }"
    " { Stream=0 Offset=16 Type=D3DCOLOR Usage=COLOR } { Stream=0 Offset=24 Type=FLOAT2 Usage=TEXCOORD }"
    " { Stream=0xff Type=UNUSED } }\nSETVERTEXSHADERDECL { dwHandle=0x31 }\n"
)
PIXELS_TO_CLIP = (
    "SETVERTEXSHADERCONST { dwRegister=0 data=[0.2857143 0.0 0.0 -1.0 0.0 -0.2857143 0.0 1.0"
    " 0.0 0.0 1.0 0.0 0.0 0.0 0.0 1.0] }\n"
)
VS_PIXELS = (
    "    vs_2_0\n    dcl_position v0\n    dcl_color v1\n    dcl_texcoord v2\n    mov r0, v0\n"
    "    mov r0.w, c3.w\n    dp4 oPos.x, r0, c0\n    dp4 oPos.y, r0, c1\n    dp4 oPos.z, r0, c2\n"
    "    dp4 oPos.w, r0, c3\n    mov oD0, v1\n    mov oT0, v2\n"
)
DX8_DECL = "".join(struct.pack("<I", d).hex() for d in [
    0x20000000, 0x40020000, 0x10010000, 0x40040005, 0x10030000,
    0x80000004 | (1 << 25), 0x3F800000, 0x3F000000, 0x3E800000, 0x3F800000, 0xFFFFFFFF])

# name -> (fvf selector, rt selector, command offset, vertices, assembly)
SEEDS = {
    # Stage 0 shows TEX0 point-sampled; stage 1 modulates with the DXT1
    # chain; mip filtering and the DX9 sampler-ish TSS values.
    "tex-stage-textured-quad": (FVF_TLT, RT_7X7, 0, tlt_quad(), NOCULL + show(0, TEX[0])
        + "TEXTURESTAGESTATE { wStage=0 TSState=MAGFILTER dwValue=D3DTEXF_LINEAR }"
        " { wStage=0 TSState=MINFILTER dwValue=D3DTEXF_LINEAR } { wStage=0 TSState=MIPFILTER dwValue=D3DTEXF_LINEAR }"
        " { wStage=0 TSState=ADDRESSU dwValue=D3DTADDRESS_WRAP } { wStage=0 TSState=ADDRESSV dwValue=D3DTADDRESS_MIRROR }\n"
        + show(1, TEX[2], op="MODULATE")
        + "TEXTURESTAGESTATE { wStage=1 TSState=TEXCOORDINDEX dwValue=0 }\n" + DRAW2),
    # Every texture bound to stage 0 in turn (a stale handle, 0, the render
    # target as a "texture") with a draw after each binding.
    "tex-stage-every-texture": (FVF_TLT, RT_7X7, 0, tlt_quad(0xFF336699), NOCULL
        + "".join(show(0, t) + DRAW2 for t in TEX + [RT, "0", "0x12345"])),
    # Two stages with their own coordinate sets; BUMPENVMAP from the V8U8
    # texture onto TEX0, float texels from TEX7, TEXTUREFACTOR.
    "tex-stage-bump-float": (FVF_TLT2, RT_7X7, 0,
        tlt_quad(extra_uv=(0.25, 0.75)), NOCULL
        + show(0, TEX[8], op="BUMPENVMAP")
        + "TEXTURESTAGESTATE { wStage=0 TSState=BUMPENVMAT00 dwValue=0.5 } { wStage=0 TSState=BUMPENVMAT11 dwValue=0.5 }\n"
        + show(1, TEX[0])
        + "TEXTURESTAGESTATE { wStage=1 TSState=TEXCOORDINDEX dwValue=1 }\n" + DRAW2
        + "RENDERSTATE { RenderState=TEXTUREFACTOR dwState=0x80FF8040 }\n"
        + show(0, TEX[7], op="MODULATE", arg2="TFACTOR")
        + "TEXTURESTAGESTATE { wStage=1 TSState=COLOROP dwValue=DISABLE }\n" + DRAW2),
    # Cube and volume textures sampled with 3-D coordinates.
    "tex-stage-cube-volume": (FVF_TL_TEX3, RT_7X7, 0, tl3_quad(), NOCULL
        + show(0, TEX[4]) + DRAW2 + show(0, TEX[5]) + DRAW2 + show(0, TEX[6]) + DRAW2),
    # SETPALETTE on the P8 texture, UPDATEPALETTE between draws, the
    # DDRAWIPAL_ALPHA flag, a detach (palette 0), a palette on a non-P8
    # texture.
    "palette-p8": (FVF_TLT, RT_7X7, 0, tlt_quad(), NOCULL + show(0, TEX[1])
        + f"SETPALETTE {{ dwPaletteHandle=1 dwPaletteFlags=0 dwSurfaceHandle={TEX[1]} }}\n"
        "UPDATEPALETTE { dwPaletteHandle=1 wStartIndex=0 } entries=[0x000000ff 0x0000ff00 0x00ff0000 0x00ffffff]\n"
        + DRAW2
        + "UPDATEPALETTE { dwPaletteHandle=1 wStartIndex=252 } entries=[0x80102030 0x40405060 0x20708090 0x10a0b0c0]\n"
        + DRAW2
        + f"SETPALETTE {{ dwPaletteHandle=2 dwPaletteFlags=0x2000 dwSurfaceHandle={TEX[1]} }}"
        f" {{ dwPaletteHandle=2 dwPaletteFlags=0 dwSurfaceHandle={TEX[0]} }}\n"
        "UPDATEPALETTE { dwPaletteHandle=2 wStartIndex=1 } entries=[0x40ff00ff]\n"
        + DRAW2
        + f"SETPALETTE {{ dwPaletteHandle=0 dwPaletteFlags=0 dwSurfaceHandle={TEX[1]} }}\n" + DRAW2),
    # UPDATEPALETTE running past entry 255: refused, nothing changes.
    "palette-refused-past-256": (FVF_TLT, RT_7X7, 0, tlt_quad(), NOCULL + show(0, TEX[1])
        + f"SETPALETTE {{ dwPaletteHandle=7 dwPaletteFlags=0 dwSurfaceHandle={TEX[1]} }}\n" + DRAW2
        + "UPDATEPALETTE { dwPaletteHandle=7 wStartIndex=255 } entries=[0x000000ff 0x0000ff00]\n"),
    # SETTEXLOD against MAXMIPLEVEL on the mipmapped textures (and a LOD
    # beyond the chain, and on a cube).
    "settexlod": (FVF_TLT, RT_7X7, 0, tlt_quad(), NOCULL + show(0, TEX[0])
        + "TEXTURESTAGESTATE { wStage=0 TSState=MIPFILTER dwValue=D3DTEXF_POINT } { wStage=0 TSState=MAXMIPLEVEL dwValue=1 }\n"
        + DRAW2
        + f"SETTEXLOD {{ dwDDSurface={TEX[0]} dwLOD=2 }} {{ dwDDSurface={TEX[2]} dwLOD=3 }}\n" + DRAW2
        + f"SETTEXLOD {{ dwDDSurface={TEX[0]} dwLOD=100 }} {{ dwDDSurface={TEX[4]} dwLOD=1 }}\n" + DRAW2
        + show(0, TEX[2]) + DRAW2),
    # TEXBLT between the DXT1 textures on the block grid: the whole level,
    # one block to another position, a preload (destination 0), and the
    # full-chain source into the one-level destination.
    "texblt-dxt1-aligned": (FVF_TLT, RT_7X7, 0, tlt_quad(), NOCULL
        + f"TEXBLT {{ dwDDDestSurface={TEX[3]} dwDDSrcSurface={TEX[2]} rSrc.right=8 rSrc.bottom=8 }}\n"
        f"TEXBLT {{ dwDDDestSurface={TEX[2]} dwDDSrcSurface={TEX[3]} pDest.x=4 pDest.y=0 rSrc.left=0 rSrc.top=4 rSrc.right=4 rSrc.bottom=8 }}"
        f" {{ dwDDDestSurface=0 dwDDSrcSurface={TEX[2]} rSrc.right=8 rSrc.bottom=8 }}\n"
        f"TEXBLT {{ dwDDDestSurface={TEX[0]} dwDDSrcSurface={TEX[0]} pDest.x=2 pDest.y=2 rSrc.right=4 rSrc.bottom=4 }}\n"
        + show(0, TEX[3]) + DRAW2),
    # Off the block grid: the second record is refused, so the first one
    # must not have copied either (prefix semantics).
    "texblt-dxt1-misaligned": (FVF_TLT, RT_7X7, 0, tlt_quad(), NOCULL + show(0, TEX[3]) + DRAW2
        + f"TEXBLT {{ dwDDDestSurface={TEX[3]} dwDDSrcSurface={TEX[2]} rSrc.right=8 rSrc.bottom=8 }}"
        f" {{ dwDDDestSurface={TEX[3]} dwDDSrcSurface={TEX[2]} pDest.x=1 pDest.y=2 rSrc.left=1 rSrc.top=1 rSrc.right=5 rSrc.bottom=5 }}\n"),
    # TEXBLT between formats and kinds: refused.
    "texblt-refused-formats": (FVF_TLT, RT_7X7, 0, tlt_quad(), NOCULL
        + f"TEXBLT {{ dwDDDestSurface={TEX[3]} dwDDSrcSurface={TEX[0]} rSrc.right=8 rSrc.bottom=8 }}\n"),
    # VOLUMEBLT between the volumes (levels matched by size: the 2x2x2
    # source lands in level 1 of the 4x4x4 chain, level 1 of the chain in
    # the 2x2x2 volume).
    "volumeblt": (FVF_TL_TEX3, RT_7X7, 0, tl3_quad(), NOCULL
        + f"VOLUMEBLT {{ dwDDDestSurface={TEX[5]} dwDDSrcSurface={TEX[6]} dwDestX=1 dwDestY=0 dwDestZ=1 srcBox.Left=1 srcBox.Right=2 srcBox.Bottom=2 srcBox.Back=1 }}\n"
        f"VOLUMEBLT {{ dwDDDestSurface={TEX[6]} dwDDSrcSurface={TEX[5]} dwDestX=0 dwDestY=0 dwDestZ=0 srcBox.Left=1 srcBox.Top=1 srcBox.Front=1 srcBox.Right=3 srcBox.Bottom=3 srcBox.Back=3 }}\n"
        + show(0, TEX[5]) + DRAW2),
    # A box beyond the source volume: refused.
    "volumeblt-refused-box": (FVF_TL_TEX3, RT_7X7, 0, tl3_quad(), NOCULL
        + f"VOLUMEBLT {{ dwDDDestSurface={TEX[6]} dwDDSrcSurface={TEX[5]} srcBox.Right=5 srcBox.Bottom=2 srcBox.Back=2 }}\n"),
    # Lighting: transforms, material, a directional, a point and a spot
    # light, ambient, specular, a lit textured draw with normals.
    "lights-material-lit-draw": (FVF_XYZN_TEX, RT_7X7, 0, xyz_normal_triangle(), NOCULL + TRANSFORMS
        + "RENDERSTATE { RenderState=LIGHTING dwState=TRUE } { RenderState=AMBIENT dwState=0xFF202020 }"
        " { RenderState=SPECULARENABLE dwState=TRUE } { RenderState=NORMALIZENORMALS dwState=TRUE } { RenderState=LOCALVIEWER dwState=TRUE }\n"
        "SETMATERIAL { dcvDiffuse.r=1.0 dcvDiffuse.g=0.8 dcvDiffuse.b=0.6 dcvDiffuse.a=1.0 dcvAmbient.r=0.5 dcvAmbient.g=0.5 dcvAmbient.b=0.5"
        " dcvSpecular.r=1.0 dcvSpecular.g=1.0 dcvSpecular.b=1.0 dcvEmissive.b=0.2 dvPower=16.0 }\n"
        "CREATELIGHT { dwIndex=0 } { dwIndex=1 } { dwIndex=2 }\n"
        "SETLIGHT { dwIndex=0 light={ dltType=DIRECTIONAL dcvDiffuse.r=1.0 dcvDiffuse.g=1.0 dcvDiffuse.b=1.0 dvDirection.z=1.0 } } { dwIndex=0 dwDataType=ENABLE }\n"
        "SETLIGHT { dwIndex=1 light={ dltType=POINT dcvDiffuse.g=1.0 dcvSpecular.g=1.0 dvPosition.z=-2.0 dvRange=10.0 dvAttenuation0=1.0 dvAttenuation1=0.5 } } { dwIndex=1 dwDataType=ENABLE }\n"
        "SETLIGHT { dwIndex=2 light={ dltType=SPOT dcvDiffuse.b=1.0 dvPosition.z=-3.0 dvDirection.z=1.0 dvRange=20.0 dvFalloff=1.0 dvAttenuation0=1.0 dvTheta=0.5 dvPhi=1.0 } } { dwIndex=2 dwDataType=ENABLE }\n"
        + show(0, TEX[0], op="MODULATE", arg2="DIFFUSE")
        + "TRIANGLELIST count=1 wVStart=0\n"
        "SETLIGHT { dwIndex=0 dwDataType=DISABLE }\n"
        "RENDERSTATE { RenderState=DIFFUSEMATERIALSOURCE dwState=1 } { RenderState=COLORVERTEX dwState=TRUE }\n"
        "TRIANGLELIST count=1 wVStart=0\n"),
    # Lit draw of vertices with both colours (material sources COLOR1/2).
    "lights-vertex-colours": (FVF_XYZ_N_DS_TEX, RT_7X7, 0,
        xyz_normal_triangle(extra=struct.pack("<II", 0xFF00FF00, 0xFF0000FF)), NOCULL + TRANSFORMS
        + "RENDERSTATE { RenderState=LIGHTING dwState=TRUE } { RenderState=COLORVERTEX dwState=TRUE }"
        " { RenderState=DIFFUSEMATERIALSOURCE dwState=1 } { RenderState=SPECULARMATERIALSOURCE dwState=2 } { RenderState=SPECULARENABLE dwState=TRUE }\n"
        "SETMATERIAL { dcvDiffuse.r=1.0 dvPower=4.0 }\n"
        "CREATELIGHT { dwIndex=5 }\n"
        "SETLIGHT { dwIndex=5 dwDataType=ENABLE }\n"
        "TRIANGLELIST count=1 wVStart=0\n"),
    # Fog: vertex fog from the specular alpha and the FOG coordinate, table
    # fog LINEAR / EXP / EXP2 with its start, end and density, a NaN density.
    "fog-render-states": (FVF_TLT_FOG, RT_7X7, 0, tlt_quad(fog=0.25, specular=0x80000000), NOCULL
        + "RENDERSTATE { RenderState=FOGENABLE dwState=TRUE } { RenderState=FOGCOLOR dwState=0xFF00FF00 }"
        " { RenderState=FOGVERTEXMODE dwState=D3DFOG_NONE } { RenderState=FOGTABLEMODE dwState=D3DFOG_NONE }\n"
        + DRAW2
        + "RENDERSTATE { RenderState=FOGTABLEMODE dwState=D3DFOG_LINEAR } { RenderState=FOGSTART dwState=0.25 } { RenderState=FOGEND dwState=0.75 }\n"
        + DRAW2
        + "RENDERSTATE { RenderState=FOGTABLEMODE dwState=D3DFOG_EXP } { RenderState=FOGDENSITY dwState=2.0 } { RenderState=RANGEFOGENABLE dwState=TRUE }\n"
        + DRAW2
        + "RENDERSTATE { RenderState=FOGTABLEMODE dwState=D3DFOG_EXP2 } { RenderState=FOGDENSITY dwState=0x7FC00000 } { RenderState=FOGSTART dwState=0x7F800000 }\n"
        + DRAW2),
    # Vertex fog on transformed vertices (LINEAR vertex mode, range fog).
    "fog-vertex-transformed": (FVF_XYZN_TEX, RT_7X7, 0, xyz_normal_triangle(), NOCULL + TRANSFORMS
        + "RENDERSTATE { RenderState=FOGENABLE dwState=TRUE } { RenderState=FOGCOLOR dwState=0xFFFF0000 }"
        " { RenderState=FOGVERTEXMODE dwState=D3DFOG_LINEAR } { RenderState=FOGSTART dwState=0.0 } { RenderState=FOGEND dwState=1.0 }"
        " { RenderState=RANGEFOGENABLE dwState=TRUE }\n"
        "TRIANGLELIST count=1 wVStart=0\n"),
    # Vertex blending between world matrices 0 and 1.
    "vertex-blend": (FVF_XYZB1_N_TEX, RT_7X7, 0, xyz_normal_triangle(blend=0.5), NOCULL + TRANSFORMS
        + "SETTRANSFORM { xfrmType=D3DTS_WORLD1 _11=0.5 _22=0.5 _33=1.0 _44=1.0 _41=0.25 }\n"
        "RENDERSTATE { RenderState=VERTEXBLEND dwState=D3DVBF_1WEIGHTS }\n"
        + show(0, TEX[0]) + "TRIANGLELIST count=1 wVStart=0\n"),
    # The vertex and index buffers by placeholder: streams, indices, a
    # draw, BUFFERBLT between them, then an indexed draw whose indices (the
    # index buffer holds command bytes) are out of range: refused.
    "streams-vb-ib-refused-index": (FVF_TLT, RT_7X7, 0, tlt_quad(), NOCULL
        + "SETVERTEXSHADER { dwHandle=0x1c4 }\n"
        f"SETSTREAMSOURCE {{ dwStream=0 dwVBHandle={VB} dwStride=32 }}\n"
        f"SETINDICES {{ dwVBHandle={IB} dwStride=2 }}\n"
        "DRAWPRIMITIVE { primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }\n"
        f"BUFFERBLT {{ dwDDDestSurface={IB} dwDDSrcSurface={VB} dwOffset=0 rSrc.Offset=0 rSrc.Size=12 }}\n"
        "DRAWINDEXEDPRIMITIVE { primType=D3DPT_TRIANGLELIST BaseVertexIndex=0 MinIndex=0 NumVertices=16 StartIndex=0 PrimitiveCount=1 }\n"),
    # Surface-to-texture blits and fills: BLT from the render target into
    # TEX0 level 1, COLORFILL, GENERATEMIPSUBLEVELS, SETRENDERTARGET back to
    # the real target and depth.
    "blt-colorfill-mips": (FVF_TLT, RT_7X7, 0, tlt_quad(0xFFFF8000), NOCULL + DRAW2
        + f"BLT {{ dwSource={RT} rSource.right=4 rSource.bottom=4 dwDest={TEX[0]} rDest.right=4 rDest.bottom=4 dwDestMipLevel=1 }}\n"
        f"COLORFILL {{ dwSurface={TEX[0]} rRect.right=8 rRect.bottom=8 Color=0xFF0000FF }}\n"
        f"GENERATEMIPSUBLEVELS {{ hSurface={TEX[0]} Filter=D3DTEXF_LINEAR }}\n"
        f"SETRENDERTARGET {{ hRenderTarget={RT} hZBuffer={DEPTH} }}\n"
        + show(0, TEX[0]) + DRAW2),
    # Regression (found by dp2_execute): non-finite matrix elements and
    # clip-plane coefficients (and a MULTIPLYTRANSFORM that overflows) must
    # not reach the GPU's register file, whose verifier refused the whole
    # submission at the end of the call.
    "regression-non-finite-transforms": (FVF_XYZN_TEX, RT_7X7, 0, xyz_normal_triangle(), NOCULL
        + "SETTRANSFORM { xfrmType=D3DTS_WORLD _11=1.0 _12=0x7FC00000 _22=1.0 _33=1.0 _44=1.0 }\n"
        "MULTIPLYTRANSFORM { xfrmType=D3DTS_VIEW _11=1e30 _22=1e30 _33=1.0 _44=1.0 }\n"
        "MULTIPLYTRANSFORM { xfrmType=D3DTS_VIEW _11=1e30 _22=1e30 _33=1.0 _44=1.0 }\n"
        "SETCLIPPLANE { dwIndex=0 plane[0]=0x7F800000 plane[3]=0xFFC00000 }\n"
        "RENDERSTATE { RenderState=CLIPPLANEENABLE dwState=1 }\n"
        "TRIANGLELIST count=1 wVStart=0\n"),
    # Shaders (DX9): a declaration over the 32-byte pre-transformed
    # vertices read as POSITION (x, y, z), COLOR (diffuse) and TEXCOORD
    # (u, v); a vs_2_0 maps pixels to clip space with c0-c3, a ps_2_0
    # samples TEX0 and modulates.
    "shaders-dx9-vs-ps": (FVF_TLT, RT_7X7, 0, tlt_quad(0xFF80C0FF), NOCULL + SHADER_DECL
        + "CREATEVERTEXSHADERFUNC { dwHandle=0x41 code=asm{\n" + VS_PIXELS + "} }\n"
        "CREATEPIXELSHADER { dwHandle=0x21 code=asm{\n"
        "    ps_2_0\n    dcl t0.xy\n    dcl v0\n    dcl_2d s0\n"
        "    texld r0, t0, s0\n    mul r0, r0, v0\n    mov oC0, r0\n} }\n"
        "SETVERTEXSHADERFUNC { dwHandle=0x41 }\nSETPIXELSHADER { dwHandle=0x21 }\n"
        + PIXELS_TO_CLIP + show(0, TEX[0])
        + "SETSTREAMSOURCEUM { dwStream=0 dwStride=32 }\n"
        "DRAWPRIMITIVE { primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }\n"),
    # A vs_2_0 with static flow control (rep over i0, if over b0) feeding
    # the fixed-function cascade; integer and bool constants.
    "shaders-vs-flow-ff": (FVF_TLT, RT_7X7, 0, tlt_quad(0xFFFFFFFF), NOCULL + SHADER_DECL
        + "CREATEVERTEXSHADERFUNC { dwHandle=0x43 code=asm{\n"
        "    vs_2_0\n    dcl_position v0\n    dcl_color v1\n    dcl_texcoord v2\n"
        "    mov r0, v0\n    mov r0.w, c3.w\n    mov r1, c5.x\n"
        "    rep i0\n    add r1, r1, c5.y\n    endrep\n"
        "    if b0\n    mul r1, r1, c5.z\n    endif\n"
        "    dp4 oPos.x, r0, c0\n    dp4 oPos.y, r0, c1\n    dp4 oPos.z, r0, c2\n    dp4 oPos.w, r0, c3\n"
        "    mul oD0, v1, r1\n    mov oT0, v2\n} }\n"
        "SETVERTEXSHADERFUNC { dwHandle=0x43 }\n"
        + PIXELS_TO_CLIP
        + "SETVERTEXSHADERCONST { dwRegister=5 data=[0.25 0.125 0.5 0.0] }\n"
        "SETVERTEXSHADERCONSTI { dwRegister=0 data=[3 0 1 0] }\n"
        "SETVERTEXSHADERCONSTB { dwRegister=0 data=[TRUE] }\n"
        + show(0, TEX[0], op="MODULATE", arg2="DIFFUSE")
        + "SETSTREAMSOURCEUM { dwStream=0 dwStride=32 }\n"
        "DRAWPRIMITIVE { primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }\n"),
    # Fixed-function vertices with a ps_1_4 (two phases, a dependent read),
    # then the pixel shader unbound and the same triangles drawn again.
    "shaders-ff-ps14": (FVF_TLT, RT_7X7, 0, tlt_quad(0xFFFFFFFF), NOCULL
        + "CREATEPIXELSHADER { dwHandle=0x23 code=asm{\n"
        "    ps_1_4\n    texcrd r0.rgb, t0\n    texld r1, t0\n    mul r0.rgb, r0, r1\n"
        "    phase\n    texld r2, r0\n    mul r0, r1, r2\n} }\n"
        f"TEXTURESTAGESTATE {{ wStage=1 TSState=TEXTUREMAP dwValue={TEX[2]} }} {{ wStage=2 TSState=TEXTUREMAP dwValue={TEX[4]} }}\n"
        + show(0, TEX[0]) + "SETPIXELSHADER { dwHandle=0x23 }\n" + DRAW2
        + "SETPIXELSHADER { dwHandle=0 }\n" + DRAW2),
    # DX8: CREATEVERTEXSHADER with a declaration (D3DVSD_STREAM(0),
    # D3DVSD_REG(0, FLOAT3), D3DVSD_SKIP(1), D3DVSD_REG(5, D3DCOLOR),
    # D3DVSD_SKIP(3), D3DVSD_CONST(4, 1) = (1, 0.5, 0.25, 1), D3DVSD_END())
    # and a vs_1_1; then DELETEVERTEXSHADER while bound and a refused draw.
    "shaders-dx8-decl-refused-deleted": (FVF_TLT, RT_7X7, 0, tlt_quad(0xFFFFFFFF), NOCULL
        + "CREATEVERTEXSHADER { dwHandle=0x11 decl=hex:" + DX8_DECL + " code=asm{\n"
        "    vs_1_1\n    dp4 oPos.x, v0, c0\n    dp4 oPos.y, v0, c1\n    dp4 oPos.z, v0, c2\n    mov oPos.w, c3.w\n"
        "    mul oD0, v5, c4\n} }\n"
        "SETVERTEXSHADER { dwHandle=0x11 }\n" + PIXELS_TO_CLIP
        + "SETSTREAMSOURCEUM { dwStream=0 dwStride=32 }\n"
        "DRAWPRIMITIVE { primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }\n"
        "DELETEVERTEXSHADER { dwHandle=0x11 }\n"
        "DRAWPRIMITIVE { primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }\n"),
    # A pixel shader whose tokens break a rule (a temporary past r11 in
    # ps_2_0): CREATEPIXELSHADER is refused at its offset.
    "shaders-refused-register": (FVF_TLT, RT_7X7, 0, tlt_quad(), NOCULL + DRAW2
        + "CREATEPIXELSHADER { dwHandle=0x25 code=asm{\n    ps_2_0\n    mov r12, c0\n    mov oC0, r12\n} }\n"
        + DRAW2),
    # Dirty regions and priorities on textures (recorded only).
    "dirty-priority": (FVF_TLT, RT_7X7, 0, b"",
        f"ADDDIRTYRECT {{ dwSurface={TEX[0]} rDirtyArea.right=4 rDirtyArea.bottom=4 }}\n"
        f"ADDDIRTYBOX {{ dwSurface={TEX[5]} DirtyBox.Right=2 DirtyBox.Bottom=2 DirtyBox.Back=2 }}\n"
        f"SETPRIORITY {{ dwDDSurface={TEX[2]} dwPriority=7 }}\n"),
}


def softhal():
    if len(sys.argv) > 1:
        return [sys.argv[1]]
    subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "softhal-cli"],
                   cwd=ROOT, check=True)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return [os.path.join(target, "release", "softhal")]


def assemble(tool, text):
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "s.dp2s"), os.path.join(d, "s.bin")
        with open(src, "w") as f:
            f.write(text)
        subprocess.run(tool + ["asm", src, "-o", out], check=True)
        with open(out, "rb") as f:
            return f.read()


def main():
    tool = softhal()
    strides = {FVF_TLT: 32, FVF_TLT2: 40, FVF_XYZN_TEX: 32, FVF_XYZ_N_DS_TEX: 40,
               FVF_TL_TEX3: 32, FVF_TLT_FOG: 36, FVF_XYZB1_N_TEX: 36}
    for name, (fvf, rt, offset, vertices, text) in SEEDS.items():
        stride = strides[fvf]
        assert len(vertices) % stride == 0, name
        count = len(vertices) // stride
        assert count < 256, name
        data = bytes([fvf, rt, offset, count]) + vertices + assemble(tool, text)
        for target in TARGETS:
            d = os.path.join(HERE, "seeds", target)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
    print(f"wrote {len(SEEDS)} seeds into fuzz/seeds/{{{','.join(TARGETS)}}}/")


if __name__ == "__main__":
    main()
