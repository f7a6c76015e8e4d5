//! Capabilities: a D3DCAPS9-shaped report and the surface-format list,
//! stating exactly what this device implements.
//!
//! In: nothing. Out: [`Caps`] (the fields of D3DCAPS8/9 the DDI reports,
//! under their DDK names) and [`formats`] (every D3DFORMAT the device
//! accepts, with what it can be used for). Guarantee: every bit set here is
//! backed by code and tests; unimplemented features (multisampling,
//! vertex texture fetch) report 0. The shader fields are derived from the
//! shader validator's own limits (`softhal_shader::valid`,
//! `softhal_shader::exec`), so caps and validation cannot disagree.

use crate::limits;
use crate::resource::D3dFormat;
use softhal_pipeline::texture::TextureFormat;
use softhal_pipeline::Format;
use softhal_shader::ir::RegisterType;
use softhal_shader::valid::{nesting, register_count, slot_limits, stage_register_count};
use softhal_shader::Profile;

/// The D3DCAPS8/9 fields the DDI reports (GetDriverInfo2
/// D3DGDI2_TYPE_GETD3DCAPS8 / 9), DDK names in snake case.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Caps {
    /// D3DCAPS_* (0).
    pub caps: u32,
    /// D3DCAPS2_* (0).
    pub caps2: u32,
    /// D3DDEVCAPS_*: EXECUTESYSTEMMEMORY 0x10, TLVERTEXSYSTEMMEMORY 0x40,
    /// DRAWPRIMTLVERTEX 0x400, HWTRANSFORMANDLIGHT 0x10000 (transform only;
    /// lighting reports 0 lights), DRAWPRIMITIVES2 0x2000,
    /// DRAWPRIMITIVES2EX 0x8000, RTPATCHES 0x400000, QUINTICRTPATCHES
    /// 0x200000, RTPATCHHANDLEZERO 0x800000.
    pub dev_caps: u32,
    /// D3DPMISCCAPS_*: MASKZ 0x2, CULLNONE 0x10, CULLCW 0x20, CULLCCW 0x40,
    /// COLORWRITEENABLE 0x80, CLIPPLANESCALEDPOINTS 0x100,
    /// CLIPTLVERTS 0x200, BLENDOP 0x800, INDEPENDENTWRITEMASKS 0x4000,
    /// SEPARATEALPHABLEND 0x20000, MRTINDEPENDENTBITDEPTHS 0x40000,
    /// MRTPOSTPIXELSHADERBLENDING 0x80000 (render targets 1–3:
    /// `docs/device.md`, "Multiple render targets").
    pub primitive_misc_caps: u32,
    /// D3DPRASTERCAPS_*: ZTEST 0x10, FOGVERTEX 0x80, FOGTABLE 0x100,
    /// MIPMAPLODBIAS 0x2000, ZBIAS 0x4000, FOGRANGE 0x10000, ANISOTROPY
    /// 0x20000, WBUFFER 0x40000, WFOG 0x100000, ZFOG 0x200000, SCISSORTEST
    /// 0x1000000, SLOPESCALEDEPTHBIAS 0x2000000, DEPTHBIAS 0x4000000.
    pub raster_caps: u32,
    /// D3DPCMPCAPS_* for Z (all eight).
    pub z_cmp_caps: u32,
    /// D3DPBLENDCAPS_* source factors.
    pub src_blend_caps: u32,
    /// D3DPBLENDCAPS_* destination factors.
    pub dest_blend_caps: u32,
    /// D3DPCMPCAPS_* for alpha (all eight).
    pub alpha_cmp_caps: u32,
    /// D3DPSHADECAPS_*: COLORGOURAUDRGB 0x8, SPECULARGOURAUDRGB 0x200,
    /// ALPHAGOURAUDBLEND 0x4000, FOGGOURAUD 0x80000.
    pub shade_caps: u32,
    /// D3DPTEXTURECAPS_*: PERSPECTIVE 0x1, ALPHA 0x4, TRANSPARENCY 0x8
    /// (colour key), TEXREPEATNOTSCALEDBYSIZE 0x40, ALPHAPALETTE 0x80,
    /// PROJECTED 0x400, CUBEMAP 0x800, VOLUMEMAP 0x2000, MIPMAP 0x4000,
    /// MIPVOLUMEMAP 0x8000, MIPCUBEMAP 0x10000 (POW2 clear: any size).
    pub texture_caps: u32,
    /// D3DSTENCILCAPS_* (all eight ops and TWOSIDED 0x100).
    pub stencil_caps: u32,
    /// D3DFVFCAPS_*: texture coordinate count (8) | DONOTSTRIPELEMENTS
    /// 0x80000 | PSIZE 0x100000.
    pub fvf_caps: u32,
    /// D3DTEXOPCAPS_*: all 26 operations (DISABLE 0x1 … LERP 0x2000000).
    pub texture_op_caps: u32,
    /// D3DVTXPCAPS_*: TEXGEN 0x1, MATERIALSOURCE7 0x2, DIRECTIONALLIGHTS
    /// 0x8, POSITIONALLIGHTS 0x10, LOCALVIEWER 0x20, TWEENING 0x40,
    /// TEXGEN_SPHEREMAP 0x100.
    pub vertex_processing_caps: u32,
    /// Largest texture width.
    pub max_texture_width: u32,
    /// Largest texture height.
    pub max_texture_height: u32,
    /// Largest volume extent.
    pub max_volume_extent: u32,
    /// Texture stages that can be used.
    pub max_texture_blend_stages: u32,
    /// Textures sampled at once.
    pub max_simultaneous_textures: u32,
    /// Active lights.
    pub max_active_lights: u32,
    /// User clip planes.
    pub max_user_clip_planes: u32,
    /// Vertex blend matrices (world 0..3).
    pub max_vertex_blend_matrices: u32,
    /// Largest point size (point sprites and scaled points).
    pub max_point_size: f32,
    /// Largest primitive count of one draw.
    pub max_primitive_count: u32,
    /// Largest vertex index.
    pub max_vertex_index: u32,
    /// Vertex streams.
    pub max_streams: u32,
    /// Largest stream stride.
    pub max_stream_stride: u32,
    /// D3DVS_VERSION(3, 0) = 0xFFFE0300: vs_1_1 … vs_3_0.
    pub vertex_shader_version: u32,
    /// Vertex shader float constant registers (256).
    pub max_vertex_shader_const: u32,
    /// D3DPS_VERSION(3, 0) = 0xFFFF0300: ps_1_1 … ps_3_0.
    pub pixel_shader_version: u32,
    /// D3DCAPS8 MaxPixelShaderValue / D3DCAPS9 PixelShader1xMaxValue: the
    /// range ±value of ps_1_x registers (8.0).
    pub pixel_shader_1x_max_value: f32,
    /// D3DCAPS9 VS20Caps (D3DVSHADERCAPS2_0; `num_instruction_slots` is
    /// not part of that struct and is the vs_2_x budget here).
    pub vs20_caps: ShaderCaps2,
    /// D3DCAPS9 PS20Caps (D3DPSHADERCAPS2_0).
    pub ps20_caps: ShaderCaps2,
    /// D3DCAPS9 VertexTextureFilterCaps: D3DPTFILTERCAPS_MINFPOINT 0x100 |
    /// MINFLINEAR 0x200 | MAGFPOINT 0x0100_0000 | MAGFLINEAR 0x0200_0000:
    /// the point filters the DDK requires of a vs_3_0 driver, and the
    /// linear ones because softhal's sampler filters a vertex texture as it
    /// filters any texture (tested by drawing with both). The formats a
    /// vertex sampler reads are those [`FormatCaps::vertex_texture`] marks
    /// (`docs/shaders.md` §12).
    pub vertex_texture_filter_caps: u32,
    /// D3DCAPS9 MaxVShaderInstructionsExecuted (65 535).
    pub max_vshader_instructions_executed: u32,
    /// D3DCAPS9 MaxPShaderInstructionsExecuted (65 535).
    pub max_pshader_instructions_executed: u32,
    /// D3DCAPS9 MaxVertexShader30InstructionSlots (512).
    pub max_vertex_shader30_instruction_slots: u32,
    /// D3DCAPS9 MaxPixelShader30InstructionSlots (512).
    pub max_pixel_shader30_instruction_slots: u32,
    /// D3DCAPS9 DevCaps2: D3DDEVCAPS2_VERTEXELEMENTSCANSHARESTREAMOFFSET
    /// 0x40 (two declaration elements may read the same stream offset).
    pub dev_caps2: u32,
    /// D3DCAPS9 DeclTypes: D3DDTCAPS_* of the D3DDECLTYPEs the vertex
    /// input converts (UBYTE4 0x1 … FLOAT16_4 0x200: all ten).
    pub decl_types: u32,
    /// Simultaneous render targets (4: `oC0`–`oC3`).
    pub num_simultaneous_rts: u32,
    /// Query types supported (D3DQUERYTYPE values).
    pub queries: [u32; 3],
}

/// D3DVSHADERCAPS2_0 / D3DPSHADERCAPS2_0 (the vertex struct has no
/// instruction-slot field; it is reported here for both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShaderCaps2 {
    /// D3DVS20CAPS_PREDICATION (1) for vertex shaders; D3DPS20CAPS_*
    /// ARBITRARYSWIZZLE 1, GRADIENTINSTRUCTIONS 2, PREDICATION 4,
    /// NODEPENDENTREADLIMIT 8, NOTEXINSTRUCTIONLIMIT 16 for pixel shaders.
    pub caps: u32,
    /// Nesting of if/ifc/breakc/callnz-predicate (the `_2_x` models' 24).
    pub dynamic_flow_control_depth: u32,
    /// Temporary registers of the `_2_x` model (32).
    pub num_temps: u32,
    /// Nesting of loop/rep and call (4).
    pub static_flow_control_depth: u32,
    /// Instruction slots of the `_2_x` model (512 for ps_2_x, 256 for
    /// vs_2_x).
    pub num_instruction_slots: u32,
}

/// D3DVS20CAPS_PREDICATION.
pub const D3DVS20CAPS_PREDICATION: u32 = 1;
/// D3DPS20CAPS_ARBITRARYSWIZZLE | GRADIENTINSTRUCTIONS | PREDICATION |
/// NODEPENDENTREADLIMIT | NOTEXINSTRUCTIONLIMIT: ps_2_x as the validator
/// accepts it (any swizzle, dsx/dsy/texldd, `p0`, dependent reads and
/// texture instructions bounded only by the 512 slots).
pub const D3DPS20CAPS_ALL: u32 = 0x1 | 0x2 | 0x4 | 0x8 | 0x10;

/// The `_2_x` caps of one stage, read from the validator's limits.
fn shader_caps2(profile: Profile, caps: u32) -> ShaderCaps2 {
    let n = nesting(profile);
    let u = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
    ShaderCaps2 {
        caps,
        dynamic_flow_control_depth: u(n.ifs),
        num_temps: u32::from(register_count(profile, RegisterType::Temp)),
        static_flow_control_depth: u(n.loops.min(n.calls)),
        num_instruction_slots: slot_limits(profile).total,
    }
}

/// The caps of this device.
pub fn caps() -> Caps {
    Caps {
        caps: 0,
        caps2: 0,
        dev_caps: 0x10
            | 0x40
            | 0x400
            | 0x2000
            | 0x8000
            | 0x10000
            | 0x20_0000
            | 0x40_0000
            | 0x80_0000,
        primitive_misc_caps: 0x2
            | 0x10
            | 0x20
            | 0x40
            | 0x80
            | 0x100
            | 0x200
            | 0x800
            | 0x4000
            | 0x2_0000
            | 0x4_0000
            | 0x8_0000,
        raster_caps: 0x10
            | 0x80
            | 0x100
            | 0x2000
            | 0x4000
            | 0x1_0000
            | 0x2_0000
            | 0x4_0000
            | 0x10_0000
            | 0x20_0000
            | 0x100_0000
            | 0x200_0000
            | 0x400_0000,
        z_cmp_caps: 0xFF,
        src_blend_caps: 0x3FFF,
        dest_blend_caps: 0x3FFF,
        alpha_cmp_caps: 0xFF,
        shade_caps: 0x8 | 0x200 | 0x4000 | 0x8_0000,
        texture_caps: 0x1
            | 0x4
            | 0x8
            | 0x40
            | 0x80
            | 0x400
            | 0x800
            | 0x2000
            | 0x4000
            | 0x8000
            | 0x1_0000,
        stencil_caps: 0x1FF,
        fvf_caps: 8 | 0x8_0000 | 0x10_0000,
        texture_op_caps: 0x3FF_FFFF,
        vertex_processing_caps: 0x1 | 0x2 | 0x8 | 0x10 | 0x20 | 0x40 | 0x100,
        max_texture_width: limits::MAX_TEXTURE_DIMENSION,
        max_texture_height: limits::MAX_TEXTURE_DIMENSION,
        max_volume_extent: limits::MAX_VOLUME_DEPTH,
        max_texture_blend_stages: limits::MAX_TEXTURE_STAGES,
        max_simultaneous_textures: limits::MAX_TEXTURE_STAGES,
        max_active_lights: limits::MAX_ACTIVE_LIGHTS,
        max_user_clip_planes: limits::MAX_CLIP_PLANES,
        max_vertex_blend_matrices: 4,
        max_point_size: softhal_pipeline::texgen::MAX_POINT_SIZE,
        max_primitive_count: 0xFF_FFFF,
        max_vertex_index: 0xFF_FFFF,
        max_streams: limits::MAX_STREAMS,
        max_stream_stride: limits::MAX_STREAM_STRIDE,
        vertex_shader_version: Profile::Vs3_0.token(),
        max_vertex_shader_const: u32::from(stage_register_count(true, RegisterType::Const)),
        pixel_shader_version: Profile::Ps3_0.token(),
        pixel_shader_1x_max_value: softhal_shader::exec::MAX_PIXEL_SHADER_VALUE,
        vs20_caps: shader_caps2(Profile::Vs2_x, D3DVS20CAPS_PREDICATION),
        ps20_caps: shader_caps2(Profile::Ps2_x, D3DPS20CAPS_ALL),
        vertex_texture_filter_caps: 0x100 | 0x200 | 0x0100_0000 | 0x0200_0000,
        max_vshader_instructions_executed: softhal_shader::exec::MAX_INSTRUCTIONS_EXECUTED,
        max_pshader_instructions_executed: softhal_shader::exec::MAX_INSTRUCTIONS_EXECUTED,
        max_vertex_shader30_instruction_slots: slot_limits(Profile::Vs3_0).total,
        max_pixel_shader30_instruction_slots: slot_limits(Profile::Ps3_0).total,
        dev_caps2: 0x40,
        decl_types: 0x3FF,
        num_simultaneous_rts: softhal_pipeline::limits::MAX_RENDER_TARGETS as u32,
        queries: [4, 8, 9],
    }
}

/// What a format can be used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatCaps {
    /// D3DFORMAT value.
    pub d3dfmt: u32,
    /// Can be a render target.
    pub render_target: bool,
    /// Can be a depth/stencil buffer.
    pub depth_stencil: bool,
    /// Can be a texture (created, locked, blitted and sampled).
    pub texture: bool,
    /// Can be a 2-D or cube texture with render-target usage
    /// (D3DUSAGE_RENDERTARGET: rendered into and sampled;
    /// `softhal_submit::texture::target_format`).
    pub render_target_texture: bool,
    /// D3DFORMAT_OP_VERTEXTEXTURE (0x800000): a texture of it can be bound
    /// to a vertex-texture sampler and read by vs_3_0 `texldl`. R32F and
    /// A32B32G32R32F (the formats vs_3_0 hardware exposed) and A8R8G8B8.
    pub vertex_texture: bool,
}

/// Every format the device accepts, in ascending D3DFORMAT order (FOURCC
/// codes last).
pub fn formats() -> Vec<FormatCaps> {
    let mut codes: Vec<u32> = Format::ALL
        .iter()
        .map(|f| f.d3dfmt())
        .chain(TextureFormat::ALL.iter().map(|f| f.d3dfmt()))
        .collect();
    codes.sort_unstable();
    codes.dedup();
    codes
        .into_iter()
        .map(|c| {
            let d = D3dFormat(c);
            FormatCaps {
                d3dfmt: c,
                render_target: d.target().is_some_and(Format::is_color),
                depth_stencil: d.target().is_some_and(Format::is_depth),
                texture: d.texture().is_some(),
                vertex_texture: matches!(
                    d.texture(),
                    Some(
                        TextureFormat::R32F
                            | TextureFormat::A32B32G32R32F
                            | TextureFormat::A8R8G8B8
                    )
                ),
                render_target_texture: d.texture().is_some_and(|format| {
                    let desc = softhal_pipeline::texture::TextureDesc {
                        kind: softhal_pipeline::texture::TextureKind::Texture2D,
                        format,
                        width: 1,
                        height: 1,
                        depth: 1,
                        levels: 1,
                    };
                    softhal_submit::texture::target_format(&desc).is_some()
                }),
            }
        })
        .collect()
}
