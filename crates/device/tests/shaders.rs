//! Programmable shaders through DrawPrimitives2: DX9 (CREATEVERTEXSHADERDECL
//! / CREATEVERTEXSHADERFUNC / CREATEPIXELSHADER and their SET commands and
//! constants) and DX8 (CREATEVERTEXSHADER with a declaration and code,
//! ps_1_x), each combination with fixed function, checked on pixels worked
//! out by hand; the DDI errors of the shader commands.
//!
//! Every scene is 16×16 with the viewport on the whole target, so a
//! clip-space position (x, y) with w = 1 lands on screen at
//! (8 + 8x, 8 − 8y). The upper-left triangle used below, clip (−1, 1),
//! (1, 1), (−1, −1), is screen (0, 0), (16, 0), (0, 16). Direct3D 9 puts
//! the centre of pixel (x, y) at the integer point (x, y), which is inside
//! when x + y < 16; centres on the diagonal (x + y = 16) lie on its right
//! edge, which the top-left rule leaves to the other triangle. So it
//! covers the pixels with x + y ≤ 15: 1 + 2 + … + 16 = 136 of them, and the
//! lower-right triangle (1, 1), (1, −1), (−1, −1) the other 120.

mod common;

use common::*;
use softhal_device::*;
use softhal_wire::names::codes;

const RED: u32 = 0xFFFF_0000;
const GREEN: u32 = 0xFF00_FF00;
const BLUE: u32 = 0xFF00_00FF;
const BLACK: u32 = 0xFF00_0000;

/// The tokens of Direct3D shader assembly `src`, as a `hex:` blob.
fn shader_hex(src: &str) -> String {
    let s = softhal_shader::text::assemble(src).unwrap_or_else(|e| panic!("{e:?}\n{src}"));
    hex_of(&s.to_tokens())
}

fn hex_of(dwords: &[u32]) -> String {
    dwords
        .iter()
        .flat_map(|t| t.to_le_bytes())
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The upper-left triangle (136 pixels), then the lower-right one (120),
/// each vertex a FLOAT3 clip-space position (w = 1 from the declaration
/// type's default) and the D3DCOLOR `c`: 16 bytes.
fn two_triangles(c: u32) -> Vec<u8> {
    fvf_triangles(|_, _| c.to_le_bytes().to_vec())
}

/// The six vertices of the two triangles (clip-space corners, z 0.5), each
/// position followed by `rest(x, y)`: the other components of the vertex.
fn fvf_triangles(rest: impl Fn(f32, f32) -> Vec<u8>) -> Vec<u8> {
    [
        (-1.0f32, 1.0f32),
        (1.0, 1.0),
        (-1.0, -1.0),
        (1.0, 1.0),
        (1.0, -1.0),
        (-1.0, -1.0),
    ]
    .iter()
    .flat_map(|&(x, y)| {
        let mut v = floats(&[x, y, 0.5]);
        v.extend(rest(x, y));
        v
    })
    .collect()
}

fn floats(f: &[f32]) -> Vec<u8> {
    f.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The transform rows c0–c3 (identity) of the vertex shaders below.
const IDENTITY_C0: &str =
    "SETVERTEXSHADERCONST { dwRegister=0 data=[1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1] }\n";

/// vs_2_0: position by the rows c0–c3, the colour passed to oD0.
const VS_TRANSFORM: &str = "vs_2_0
dcl_position v0
dcl_color v1
dp4 oPos.x, v0, c0
dp4 oPos.y, v0, c1
dp4 oPos.z, v0, c2
dp4 oPos.w, v0, c3
mov oD0, v1
";

/// Stage 0 passes the diffuse colour through (D3DTOP_SELECTARG1 of
/// D3DTA_DIFFUSE, colour and alpha).
const DIFFUSE_CASCADE: &str = "TEXTURESTAGESTATE { wStage=0 TSState=D3DTSS_COLOROP dwValue=D3DTOP_SELECTARG1 } { wStage=0 TSState=D3DTSS_COLORARG1 dwValue=D3DTA_DIFFUSE } { wStage=0 TSState=D3DTSS_ALPHAOP dwValue=D3DTOP_SELECTARG1 } { wStage=0 TSState=D3DTSS_ALPHAARG1 dwValue=D3DTA_DIFFUSE }\n";

/// Viewport, no culling, no lighting (fixed-function draws).
fn setup() -> String {
    format!(
        "{NOCULL}VIEWPORTINFO {{ dwX=0 dwY=0 dwWidth=16 dwHeight=16 }}\nRENDERSTATE {{ RenderState=D3DRS_LIGHTING dwState=0 }}\n"
    )
}

/// The DX9 declaration 0x31: FLOAT3 POSITION0 at 0, D3DCOLOR COLOR0 at 12,
/// stream 0.
const DECL_PC: &str = "CREATEVERTEXSHADERDECL { dwHandle=0x31 { Stream=0 Offset=0 Type=FLOAT3 Usage=POSITION } { Stream=0 Offset=12 Type=D3DCOLOR Usage=COLOR } { Stream=0xff Type=UNUSED } }\nSETVERTEXSHADERDECL { dwHandle=0x31 }\n";

/// Runs `src` with `verts` as the user-memory stream 0 of 16-byte
/// vertices.
fn run16(s: &mut Scene, src: &str, verts: &[u8]) -> Outcome {
    s.run_fvf(src, FVF_TL, 16, verts)
}

const STREAM16: &str = "SETSTREAMSOURCEUM { dwStream=0 dwStride=16 }\n";

#[test]
fn a_vs_2_0_and_a_ps_2_0_draw_a_triangle() {
    let mut s = Scene::new(16, 16, false);
    let vs = shader_hex(VS_TRANSFORM);
    // ps_2_0 writes c0 = (1, 0.5, 0, 1): A 255, R 255, G 0.5·255 = 127.5
    // → 128 (round to nearest), B 0.
    let ps = shader_hex("ps_2_0\nmov oC0, c0\n");
    let src = format!(
        "{}{DECL_PC}CREATEVERTEXSHADERFUNC {{ dwHandle=0x40 code=hex:{vs} }}\nSETVERTEXSHADERFUNC {{ dwHandle=0x40 }}\n\
         CREATEPIXELSHADER {{ dwHandle=0x20 code=hex:{ps} }}\nSETPIXELSHADER {{ dwHandle=0x20 }}\n\
         {IDENTITY_C0}SETPIXELSHADERCONST {{ dwRegister=0 data=[1 0.5 0 1] }}\n{STREAM16}\
         DRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=1 }}",
        setup()
    );
    run16(&mut s, &src, &two_triangles(GREEN)).ok();
    assert_eq!(s.count(0xFFFF_8000), 136);
    assert_eq!(s.px(0, 0), 0xFFFF_8000);
    assert_eq!(s.px(15, 0), 0xFFFF_8000);
    assert_eq!(s.px(15, 1), 0, "x + y = 16 is the other triangle's");
    assert_eq!(s.px(15, 15), 0);
    assert_eq!(s.drv.context(s.ctx).unwrap().stats.draws, 1);
}

#[test]
fn two_declaration_elements_may_read_one_stream_offset() {
    // D3DDEVCAPS2_VERTEXELEMENTSCANSHARESTREAMOFFSET: COLOR0 and COLOR1
    // both read the D3DCOLOR at offset 12. The shader outputs COLOR1, so
    // both triangles are the vertex colour, green: 256 pixels (a COLOR1
    // that read nothing would be the default (0, 0, 0, 1): black).
    let mut s = Scene::new(16, 16, false);
    let vs = shader_hex(
        "vs_2_0\ndcl_position v0\ndcl_color v1\ndcl_color1 v2\n\
         dp4 oPos.x, v0, c0\ndp4 oPos.y, v0, c1\ndp4 oPos.z, v0, c2\ndp4 oPos.w, v0, c3\n\
         mov oD0, v2\n",
    );
    let src = format!(
        "{}{DIFFUSE_CASCADE}CREATEVERTEXSHADERDECL {{ dwHandle=0x33 {{ Stream=0 Offset=0 Type=FLOAT3 Usage=POSITION }} \
         {{ Stream=0 Offset=12 Type=D3DCOLOR Usage=COLOR }} {{ Stream=0 Offset=12 Type=D3DCOLOR Usage=COLOR UsageIndex=1 }} \
         {{ Stream=0xff Type=UNUSED }} }}\nSETVERTEXSHADERDECL {{ dwHandle=0x33 }}\n\
         CREATEVERTEXSHADERFUNC {{ dwHandle=0x40 code=hex:{vs} }}\nSETVERTEXSHADERFUNC {{ dwHandle=0x40 }}\n\
         {IDENTITY_C0}{STREAM16}\
         DRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }}",
        setup()
    );
    let o = run16(&mut s, &src, &two_triangles(GREEN));
    assert_eq!(o.ddrval, 0, "{:?}", s.drv.last_error());
    assert_eq!(s.count(GREEN), 256);
}

#[test]
fn a_vertex_shader_feeds_the_fixed_function_cascade() {
    let mut s = Scene::new(16, 16, false);
    let vs = shader_hex(VS_TRANSFORM);
    let src = format!(
        "{}{DIFFUSE_CASCADE}{DECL_PC}CREATEVERTEXSHADERFUNC {{ dwHandle=0x40 code=hex:{vs} }}\nSETVERTEXSHADERFUNC {{ dwHandle=0x40 }}\n\
         {IDENTITY_C0}{STREAM16}\
         DRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }}",
        setup()
    );
    // oD0 = the vertex colour: every pixel of both triangles is red.
    run16(&mut s, &src, &two_triangles(RED)).ok();
    assert_eq!(s.count(RED), 256);
}

#[test]
fn fixed_function_vertices_feed_a_pixel_shader() {
    for ps in [
        // ps_1_4: r0 is the output; v0 is the diffuse colour.
        "ps_1_4\nmov r0, v0\n",
        // ps_2_0: v0 declared, written to oC0.
        "ps_2_0\ndcl v0\nmov oC0, v0\n",
    ] {
        let mut s = Scene::new(16, 16, false);
        let hex = shader_hex(ps);
        // Pre-transformed blue vertices over the left half (x < 8).
        let src = format!(
            "{}CREATEPIXELSHADER {{ dwHandle=0x20 code=hex:{hex} }}\nSETPIXELSHADER {{ dwHandle=0x20 }}\nTRIANGLELIST count=2 wVStart=0",
            setup()
        );
        s.run(&src, &quad(0.0, 0.0, 8.0, 16.0, 0.5, BLUE)).ok();
        assert_eq!(s.count(BLUE), 128, "{ps}");
        assert_eq!(s.px(8, 0), 0, "{ps}");
    }
}

#[test]
fn constants_changed_between_two_draws_of_one_buffer_reach_each_draw() {
    let mut s = Scene::new(16, 16, false);
    let vs = shader_hex(VS_TRANSFORM);
    let ps = shader_hex("ps_2_0\nmov oC0, c3\n");
    let src = format!(
        "{}{DECL_PC}CREATEVERTEXSHADERFUNC {{ dwHandle=0x40 code=hex:{vs} }}\nSETVERTEXSHADERFUNC {{ dwHandle=0x40 }}\n\
         CREATEPIXELSHADER {{ dwHandle=0x20 code=hex:{ps} }}\nSETPIXELSHADER {{ dwHandle=0x20 }}\n\
         {IDENTITY_C0}{STREAM16}\
         SETPIXELSHADERCONST {{ dwRegister=3 data=[1 0 0 1] }}\n\
         DRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=1 }}\n\
         SETPIXELSHADERCONST {{ dwRegister=3 data=[0 0 1 1] }}\n\
         DRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=3 PrimitiveCount=1 }}",
        setup()
    );
    run16(&mut s, &src, &two_triangles(GREEN)).ok();
    assert_eq!(s.count(RED), 136);
    assert_eq!(s.count(BLUE), 120);
    // The next call draws the first triangle again with the constants as
    // they stand (blue): the UMD sends nothing it sent before, and the GPU
    // still has it.
    let again = format!(
        "{STREAM16}DRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=1 }}"
    );
    run16(&mut s, &again, &two_triangles(GREEN)).ok();
    assert_eq!(s.count(BLUE), 256);
}

#[test]
fn a_declaration_reading_two_streams_feeds_the_vertex_shader() {
    let mut s = Scene::new(16, 16, false);
    // Stream 0: FLOAT3 positions (12 bytes); stream 1: D3DCOLORs (4).
    let pos: Vec<u8> = [(-1.0f32, 1.0f32), (1.0, 1.0), (-1.0, -1.0)]
        .iter()
        .flat_map(|&(x, y)| [x, y, 0.5f32].into_iter().flat_map(f32::to_le_bytes))
        .collect();
    let col: Vec<u8> = [GREEN; 3].iter().flat_map(|c| c.to_le_bytes()).collect();
    let vb = |s: &mut Scene, b: &[u8]| {
        let h = s.drv.create_vertex_buffer(b.len() as u32, false).unwrap();
        s.drv
            .lock(h, LockFlags::default())
            .unwrap()
            .copy_from_slice(b);
        s.drv.unlock(h).unwrap();
        h
    };
    let (p, c) = (vb(&mut s, &pos), vb(&mut s, &col));
    let vs = shader_hex(VS_TRANSFORM);
    let src = format!(
        "{}{DIFFUSE_CASCADE}CREATEVERTEXSHADERDECL {{ dwHandle=0x33 {{ Stream=0 Offset=0 Type=FLOAT3 Usage=POSITION }} {{ Stream=1 Offset=0 Type=D3DCOLOR Usage=COLOR }} {{ Stream=0xff Type=UNUSED }} }}\n\
         SETVERTEXSHADERDECL {{ dwHandle=0x33 }}\n\
         CREATEVERTEXSHADERFUNC {{ dwHandle=0x40 code=hex:{vs} }}\nSETVERTEXSHADERFUNC {{ dwHandle=0x40 }}\n{IDENTITY_C0}\
         SETSTREAMSOURCE {{ dwStream=0 dwVBHandle={p} dwStride=12 }}\nSETSTREAMSOURCE {{ dwStream=1 dwVBHandle={c} dwStride=4 }}\n\
         DRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=1 }}",
        setup()
    );
    s.run(&src, &[]).ok();
    assert_eq!(s.count(GREEN), 136);
    assert_eq!(s.px(15, 15), 0);
}

/// DX8: `D3DVSD_STREAM(0)`, `D3DVSD_REG(0, FLOAT3)`, `D3DVSD_REG(5,
/// D3DCOLOR)`, `D3DVSD_CONST(4, 1)` with (0, 1, 0, 1), `D3DVSD_END()`.
fn dx8_decl() -> String {
    hex_of(&[
        0x2000_0000,
        0x4002_0000,
        0x4004_0005,
        0x8000_0004 | (1 << 25),
        0.0f32.to_bits(),
        1.0f32.to_bits(),
        0.0f32.to_bits(),
        1.0f32.to_bits(),
        0xFFFF_FFFF,
    ])
}

#[test]
fn a_dx8_vertex_shader_maps_registers_and_loads_its_declaration_constants() {
    let mut s = Scene::new(16, 16, false);
    // vs_1_1 (DirectX 8: no dcl): v0 position, v5 colour; oD0 = v5 × c4,
    // c4 = (0, 1, 0, 1) from the declaration: white becomes green.
    let vs = shader_hex(
        "vs_1_1\ndp4 oPos.x, v0, c0\ndp4 oPos.y, v0, c1\ndp4 oPos.z, v0, c2\ndp4 oPos.w, v0, c3\nmul oD0, v5, c4\n",
    );
    let decl = dx8_decl();
    let src = format!(
        "{}{DIFFUSE_CASCADE}CREATEVERTEXSHADER {{ dwHandle=0x10 decl=hex:{decl} code=hex:{vs} }}\nSETVERTEXSHADER {{ dwHandle=0x10 }}\n\
         {IDENTITY_C0}{STREAM16}\
         DRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=1 }}",
        setup()
    );
    run16(&mut s, &src, &two_triangles(0xFFFF_FFFF)).ok();
    assert_eq!(s.count(GREEN), 136);
    // SETVERTEXSHADER loaded c4 into the context's constants.
    let c = &s.drv.context(s.ctx).unwrap().state.vs_consts;
    assert_eq!(c.f[4], [0, 1.0f32.to_bits(), 0, 1.0f32.to_bits()]);
}

#[test]
fn a_dx8_declaration_written_as_d3dvsd_macros_draws_and_a_bad_token_fails_its_create() {
    let mut s = Scene::new(16, 16, false);
    // The declaration of `dx8_decl`, written as text: v0 FLOAT3 position,
    // v5 D3DCOLOR, c4 = (0, 1, 0, 1); oD0 = v5 × c4 turns white green.
    let vs = shader_hex(
        "vs_1_1\ndp4 oPos.x, v0, c0\ndp4 oPos.y, v0, c1\ndp4 oPos.z, v0, c2\ndp4 oPos.w, v0, c3\nmul oD0, v5, c4\n",
    );
    let src = format!(
        "{}{DIFFUSE_CASCADE}CREATEVERTEXSHADER {{ dwHandle=0x10 decl=asm{{\n\
             D3DVSD_STREAM(0)\n\
             D3DVSD_REG(D3DVSDE_POSITION, D3DVSDT_FLOAT3)\n\
             D3DVSD_REG(D3DVSDE_DIFFUSE, D3DVSDT_D3DCOLOR)\n\
             D3DVSD_CONST(4, 1)\n\
                 0.0, 1.0, 0.0, 1.0\n\
             D3DVSD_END()\n\
         }} code=hex:{vs} }}\nSETVERTEXSHADER {{ dwHandle=0x10 }}\n\
         {IDENTITY_C0}{STREAM16}\
         DRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=1 }}",
        setup()
    );
    run16(&mut s, &src, &two_triangles(0xFFFF_FFFF)).ok();
    assert_eq!(s.count(GREEN), 136);
    // STREAM(0), REG(0, FLOAT3), then a REG of D3DVSDT value 9 (DirectX 8
    // has 0..=7): the command fails at its own offset, and shader 0x10
    // is kept.
    let bad = hex_of(&[0x2000_0000, 0x4002_0000, 0x4009_0005, 0xFFFF_FFFF]);
    s.run(
        &format!("CREATEVERTEXSHADER {{ dwHandle=0x12 decl=hex:{bad} code=hex:{vs} }}"),
        &[],
    )
    .unparsed_at(0);
    let ctx = s.drv.context(s.ctx).unwrap();
    assert!(ctx.vertex_shaders.contains_key(&0x10));
    assert!(!ctx.vertex_shaders.contains_key(&0x12));
}

/// A 2×2 A8R8G8B8 texture: red, green / blue, white.
fn four_texels(s: &mut Scene) -> u32 {
    let t = s
        .drv
        .create_texture(softhal_pipeline::texture::TextureFormat::A8R8G8B8, 2, 2, 1)
        .unwrap();
    let texels: Vec<u8> = [RED, GREEN, BLUE, 0xFFFF_FFFF]
        .iter()
        .flat_map(|c| c.to_le_bytes())
        .collect();
    s.drv
        .lock(t, LockFlags::default())
        .unwrap()
        .copy_from_slice(&texels);
    s.drv.unlock(t).unwrap();
    t
}

#[test]
fn a_ps_1_1_samples_its_texture_with_tex_t0() {
    let mut s = Scene::new(4, 4, false);
    let t = four_texels(&mut s);
    let ps = shader_hex("ps_1_1\ntex t0\nmov r0, t0\n");
    // A 4×4 quad with (u, v) from (0, 0) to (1, 1), point sampled: pixel
    // (x, y) has centre u = (x + ½)/4, so texel ⌊2u⌋ = ⌊x/2⌋ (likewise v).
    let v = tquad(0.0, 0.0, 4.0, 4.0, BLACK, 0);
    let src = format!(
        "{NOCULL}TEXTURESTAGESTATE {{ wStage=0 TSState=D3DTSS_TEXTUREMAP dwValue={t} }}\n\
         CREATEPIXELSHADER {{ dwHandle=0x20 code=hex:{ps} }}\nSETPIXELSHADER {{ dwHandle=0x20 }}\nTRIANGLELIST count=2 wVStart=0"
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    assert_eq!(s.px(0, 0), RED);
    assert_eq!(s.px(3, 1), GREEN);
    assert_eq!(s.px(1, 3), BLUE);
    assert_eq!(s.px(2, 2), 0xFFFF_FFFF);
}

/// ps_2_0 has sixteen samplers, `s0`–`s15`; the runtime binds sampler
/// `n` with TEXTURESTAGESTATE `wStage` n (its texture as D3DTSS_TEXTUREMAP,
/// its D3DSAMP_* states as their stage-state numbers), past the eight
/// texture stages too.
#[test]
fn a_ps_2_0_samples_s8_to_s15_bound_at_wstage_8_to_15() {
    let mut s = Scene::new(4, 4, false);
    let t = four_texels(&mut s);
    let gray = s
        .drv
        .create_texture(softhal_pipeline::texture::TextureFormat::A8R8G8B8, 1, 1, 1)
        .unwrap();
    s.drv
        .lock(gray, LockFlags::default())
        .unwrap()
        .copy_from_slice(&0xFF80_8080u32.to_le_bytes());
    s.drv.unlock(gray).unwrap();
    // s9: the 2×2 texture at u' = 2u, MIRROR in u (wStage 9's ADDRESSU);
    // s15: the 1×1 gray (0x80 = 128/255); s8: nothing bound, which
    // samples (0, 0, 0, 1). oC0 = s9 · s15 + s8.
    let ps = shader_hex(
        "ps_2_0
dcl t0
dcl_2d s8
dcl_2d s9
dcl_2d s15
mul r3, t0, c0
         texld r0, r3, s9
texld r1, t0, s15
texld r2, t0, s8
         mul r0, r0, r1
add r0, r0, r2
mov oC0, r0
",
    );
    let v = tquad(0.0, 0.0, 4.0, 4.0, BLACK, 0);
    let src = format!(
        "{NOCULL}TEXTURESTAGESTATE {{ wStage=9 TSState=D3DTSS_TEXTUREMAP dwValue={t} }} \
         {{ wStage=9 TSState=D3DTSS_ADDRESSU dwValue=D3DTADDRESS_MIRROR }} \
         {{ wStage=15 TSState=D3DTSS_TEXTUREMAP dwValue={gray} }}\n\
         CREATEPIXELSHADER {{ dwHandle=0x20 code=hex:{ps} }}\nSETPIXELSHADER {{ dwHandle=0x20 }}\n\
         SETPIXELSHADERCONST {{ dwRegister=0 data=[2 1 0 0] }}\nTRIANGLELIST count=2 wVStart=0"
    );
    s.run_fvf(&src, FVF_TLT, 32, &v).ok();
    // Pixel (x, y): u' = (x + ½)/2 = 0.25, 0.75, 1.25, 1.75; mirrored
    // 0.25, 0.75, 0.75, 0.25: texel columns 0, 1, 1, 0. v = (y + ½)/4:
    // rows 0, 0, 1, 1. Each texel channel times 128/255 is 128 (0x80),
    // alpha 1 · 1 + 1 saturates to 255.
    let (r, g, b, w) = (0xFF80_0000, 0xFF00_8000, 0xFF00_0080, 0xFF80_8080);
    let want = [[r, g, g, r], [r, g, g, r], [b, w, w, b], [b, w, w, b]];
    for (y, row) in want.iter().enumerate() {
        for (x, &c) in row.iter().enumerate() {
            assert_eq!(s.px(x as u32, y as u32), c, "pixel ({x}, {y})");
        }
    }
}

#[test]
fn shader_command_errors_name_their_command() {
    let mut s = Scene::new(8, 8, false);
    // SETVERTEXSHADERFUNC of a handle never created: the command fails at
    // its own offset, after the render state before it.
    let pre = asm(NOCULL);
    let o = s.run(
        &format!("{NOCULL}SETVERTEXSHADERFUNC {{ dwHandle=0x99 }}"),
        &[],
    );
    assert_eq!(o.ddrval, codes::D3DERR_COMMAND_UNPARSED);
    assert_eq!(o.offset, pre.len() as u32);
    assert!(matches!(
        s.drv.last_error().unwrap().error,
        DeviceError::BadHandle { handle: 0x99, .. }
    ));
    // Float constant 255 exists (vs: 256 registers), 255 + 2 does not; pixel
    // shaders have 224.
    s.run(
        "SETVERTEXSHADERCONST { dwRegister=255 data=[1 2 3 4] }",
        &[],
    )
    .ok();
    s.run(
        &format!("{NOCULL}SETVERTEXSHADERCONST {{ dwRegister=255 data=[1 2 3 4 5 6 7 8] }}"),
        &[],
    )
    .unparsed_at(pre.len() as u32);
    s.run("SETPIXELSHADERCONST { dwRegister=224 data=[1 2 3 4] }", &[])
        .unparsed_at(0);
    assert!(matches!(
        s.drv.last_error().unwrap().error,
        DeviceError::OutOfRange { .. }
    ));
    // Nothing of the failed commands was kept.
    assert_eq!(
        s.drv.context(s.ctx).unwrap().state.vs_consts.f[255],
        [
            1.0f32.to_bits(),
            2.0f32.to_bits(),
            3.0f32.to_bits(),
            4.0f32.to_bits()
        ]
    );
}

#[test]
fn a_deleted_shader_cannot_be_drawn_and_a_replaced_one_draws_its_new_code() {
    let mut s = Scene::new(16, 16, false);
    let red = shader_hex("ps_2_0\ndef c0, 1, 0, 0, 1\nmov oC0, c0\n");
    let blue = shader_hex("ps_2_0\ndef c0, 0, 0, 1, 1\nmov oC0, c0\n");
    let draw = "TRIANGLELIST count=2 wVStart=0";
    let v = quad(0.0, 0.0, 16.0, 16.0, 0.5, GREEN);
    s.run(
        &format!(
            "{}CREATEPIXELSHADER {{ dwHandle=0x20 code=hex:{red} }}\nSETPIXELSHADER {{ dwHandle=0x20 }}\n{draw}",
            setup()
        ),
        &v,
    )
    .ok();
    assert_eq!(s.count(RED), 256);
    // The same handle created again with other code draws the new code.
    s.run(
        &format!("CREATEPIXELSHADER {{ dwHandle=0x20 code=hex:{blue} }}\n{draw}"),
        &v,
    )
    .ok();
    assert_eq!(s.count(BLUE), 256);
    // Deleted while bound: the draw fails (unknown handle), pixels stay.
    let at = asm("DELETEPIXELSHADER { dwHandle=0x20 }\n").len() as u32;
    s.run(
        &format!("DELETEPIXELSHADER {{ dwHandle=0x20 }}\n{draw}"),
        &v,
    )
    .unparsed_at(at);
    assert_eq!(s.count(BLUE), 256);
    // Unbound (handle 0): fixed function draws again.
    s.run(&format!("SETPIXELSHADER {{ dwHandle=0 }}\n{draw}"), &v)
        .ok();
    assert_eq!(s.count(GREEN), 256);
}

/// The rows c0–c3 applied to v0 (the transform of the FVF shaders below).
const DP4_POSITION: &str =
    "dp4 oPos.x, v0, c0\ndp4 oPos.y, v0, c1\ndp4 oPos.z, v0, c2\ndp4 oPos.w, v0, c3\n";

/// Draws both triangles (user-memory stream 0 of `stride` bytes) with the
/// FVF `fvf` as the vertex declaration (SETVERTEXSHADERDECL with bit 0
/// clear) and vertex shader `vs`, after `pre`; the DRAWPRIMITIVE comes
/// last.
fn fvf_shader_draw(pre: &str, fvf: u32, stride: u32, vs: &str) -> String {
    let vs = shader_hex(vs);
    format!(
        "{}{pre}SETVERTEXSHADERDECL {{ dwHandle={fvf:#x} }}\n\
         CREATEVERTEXSHADERFUNC {{ dwHandle=0x40 code=hex:{vs} }}\nSETVERTEXSHADERFUNC {{ dwHandle=0x40 }}\n\
         {IDENTITY_C0}SETSTREAMSOURCEUM {{ dwStream=0 dwStride={stride} }}\n\
         DRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }}",
        setup()
    )
}

fn draw_fvf_shader(s: &mut Scene, pre: &str, fvf: u32, stride: u32, vs: &str, v: &[u8]) -> Outcome {
    s.run_fvf(&fvf_shader_draw(pre, fvf, stride, vs), fvf, stride, v)
}

#[test]
fn a_vs_2_0_reads_an_fvf_as_its_vertex_declaration() {
    // D3DFVF_XYZ | D3DFVF_DIFFUSE | D3DFVF_TEX1 (0x142) stands for POSITION0
    // FLOAT3 at 0, COLOR0 D3DCOLOR at 12, TEXCOORD0 FLOAT2 at 16: 24 bytes.
    let mut s = Scene::new(16, 16, false);
    // The 2×2 texture, point sampled (the default filters).
    let t = four_texels(&mut s);
    // The vertex colour is yellow (R = G = 1, B = 0). (u, v) runs from
    // 1/64 at the top-left corner, screen (0, 0), to 1 + 1/64 at the
    // bottom-right, screen (16, 16): u = 1/64 + sx/16. Pixel columns 0..=7
    // have centres sx ≤ 7.5, so u ≤ 0.484 < ½: texel column 0; columns
    // 8..=15 have sx ≥ 8, u ≥ 0.516: texel column 1 (v likewise by row).
    let o = 1.0 / 64.0;
    let v = fvf_triangles(|x, y| {
        let mut r = 0xFFFF_FF00u32.to_le_bytes().to_vec();
        r.extend(floats(&[(x + 1.0) / 2.0 + o, (1.0 - y) / 2.0 + o]));
        r
    });
    // Stage 0: colour = texture × diffuse, alpha = the diffuse alpha.
    let cascade = format!(
        "TEXTURESTAGESTATE {{ wStage=0 TSState=D3DTSS_TEXTUREMAP dwValue={t} }} \
         {{ wStage=0 TSState=D3DTSS_COLOROP dwValue=D3DTOP_MODULATE }} \
         {{ wStage=0 TSState=D3DTSS_COLORARG1 dwValue=D3DTA_TEXTURE }} \
         {{ wStage=0 TSState=D3DTSS_COLORARG2 dwValue=D3DTA_DIFFUSE }} \
         {{ wStage=0 TSState=D3DTSS_ALPHAOP dwValue=D3DTOP_SELECTARG1 }} \
         {{ wStage=0 TSState=D3DTSS_ALPHAARG1 dwValue=D3DTA_DIFFUSE }}\n"
    );
    let vs = format!(
        "vs_2_0\ndcl_position v0\ndcl_color v1\ndcl_texcoord v2\n{DP4_POSITION}mov oD0, v1\nmov oT0, v2\n"
    );
    draw_fvf_shader(&mut s, &cascade, 0x142, 24, &vs, &v).ok();
    // Each texel times yellow: red and green stay, blue becomes black
    // (B × 0), white becomes yellow; alpha 1 everywhere. The two triangles
    // cover all 256 pixels, 64 per quadrant.
    let yellow = 0xFFFF_FF00;
    for (x, y, c) in [
        (0, 0, RED),
        (15, 0, GREEN),
        (0, 15, BLACK),
        (15, 15, yellow),
    ] {
        assert_eq!(s.px(x, y), c, "({x}, {y})");
    }
    assert_eq!(s.px(7, 7), RED);
    assert_eq!(s.px(8, 7), GREEN);
    assert_eq!(s.px(7, 8), BLACK);
    assert_eq!(s.px(8, 8), yellow);
    for c in [RED, GREEN, BLACK, yellow] {
        assert_eq!(s.count(c), 64, "{c:#x}");
    }
}

#[test]
fn an_fvf_last_beta_ubyte4_reaches_blendindices() {
    // D3DFVF_XYZB2 | D3DFVF_LASTBETA_UBYTE4 (0x1008): POSITION0 FLOAT3 at
    // 0, the first beta as BLENDWEIGHT0 FLOAT1 at 12, the last as
    // BLENDINDICES0 UBYTE4 at 16: 20 bytes.
    let mut s = Scene::new(16, 16, false);
    // Weight 1.0; index bytes (2, 0, 7, 4), which UBYTE4 reads unscaled as
    // (2, 0, 7, 4).
    let v = fvf_triangles(|_, _| {
        let mut r = floats(&[1.0]);
        r.extend([2u8, 0, 7, 4]);
        r
    });
    // (2, 0, 7, 4) × c4 (½, 1, 0, ¼) = (1, 0, 0, 1); plus weight × c5
    // (0, 0, 1, 0) = (1, 0, 1, 1): magenta. (Read as a D3DCOLOR the bytes
    // would be (7, 0, 2, 4)/255, nearly black; as UBYTE4N about 0.)
    let vs = format!(
        "vs_2_0\ndcl_position v0\ndcl_blendweight v1\ndcl_blendindices v2\n{DP4_POSITION}\
         mul r0, v2, c4\nmad oD0, v1.x, c5, r0\n"
    );
    let consts = "SETVERTEXSHADERCONST { dwRegister=4 data=[0.5 1 0 0.25 0 0 1 0] }\n";
    draw_fvf_shader(
        &mut s,
        &format!("{DIFFUSE_CASCADE}{consts}"),
        0x1008,
        20,
        &vs,
        &v,
    )
    .ok();
    assert_eq!(s.count(0xFFFF_00FF), 256);
}

#[test]
fn an_fvf_texcoordsize_gives_its_set_that_many_floats() {
    // D3DFVF_XYZ | D3DFVF_TEX2 | D3DFVF_TEXCOORDSIZE3(0) (1 << 16) |
    // D3DFVF_TEXCOORDSIZE1(1) (3 << 18) = 0x70202: TEXCOORD0 FLOAT3 at 12,
    // TEXCOORD1 FLOAT1 at 24: 28 bytes.
    let mut s = Scene::new(16, 16, false);
    let v = fvf_triangles(|_, _| floats(&[0.0, 0.0, 1.0, 1.0]));
    // v1 = (0, 0, 1, w = 1 by default); v2 = (1, 0, 0, 1). v1 + v2.yxyy =
    // (0, 1, 1, 1): cyan. (Were set 0 two floats, v1.z would be 0 and set
    // 1 would start at 20, the 1.0 of set 0.)
    let vs = format!(
        "vs_2_0\ndcl_position v0\ndcl_texcoord0 v1\ndcl_texcoord1 v2\n{DP4_POSITION}add oD0, v1, v2.yxyy\n"
    );
    let fvf = 0x2 | 0x200 | (1 << 16) | (3 << 18);
    draw_fvf_shader(&mut s, DIFFUSE_CASCADE, fvf, 28, &vs, &v).ok();
    assert_eq!(s.count(0xFF00_FFFF), 256);
}

#[test]
fn an_input_the_fvf_does_not_provide_reads_0_0_0_1() {
    // D3DFVF_XYZ | D3DFVF_DIFFUSE (0x42, 16 bytes) of green vertices.
    for (vs, expected) in [
        // No TEXCOORD0 in the FVF: v1 reads (0, 0, 0, 1), and v1.wxxw =
        // (1, 0, 0, 1) is red.
        (
            format!("vs_2_0\ndcl_position v0\ndcl_texcoord v1\n{DP4_POSITION}mov oD0, v1.wxxw\n"),
            RED,
        ),
        // Direct3D 9 binds an input register to vertex data only through
        // its dcl_usage: v5 (D3DVSDE_DIFFUSE in a DirectX 8 declaration),
        // undeclared in this vs_1_1, gets no element from the FVF and
        // reads (0, 0, 0, 1): opaque black, not the vertex colour.
        (
            format!("vs_1_1\ndcl_position v0\n{DP4_POSITION}mov oD0, v5\n"),
            BLACK,
        ),
    ] {
        let mut s = Scene::new(16, 16, false);
        let v = two_triangles(GREEN);
        draw_fvf_shader(&mut s, DIFFUSE_CASCADE, FVF_L, 16, &vs, &v).ok();
        assert_eq!(s.count(expected), 256, "{vs}");
    }
}

#[test]
fn a_vertex_shader_draw_without_a_vertex_format_fails() {
    // SETVERTEXSHADERDECL 0: neither a declaration nor an FVF. The draw
    // fails at its own offset and draws nothing.
    let mut s = Scene::new(16, 16, false);
    let vs = format!("vs_2_0\ndcl_position v0\n{DP4_POSITION}");
    let src = fvf_shader_draw("", 0, 16, &vs);
    // The DRAWPRIMITIVE: a 4-byte command header and 12 bytes of record.
    let at = asm(&src).len() as u32 - 16;
    s.run_fvf(&src, FVF_L, 16, &two_triangles(GREEN))
        .unparsed_at(at);
    assert!(matches!(
        s.drv.last_error().unwrap().error,
        DeviceError::InvalidParams(_)
    ));
    assert_eq!(s.count(GREEN), 0);
}

#[test]
fn an_fvf_read_by_a_shader_keeps_its_vertex_size_as_the_stream_stride() {
    // D3DFVF_XYZ | D3DFVF_DIFFUSE | D3DFVF_TEX1: 24-byte vertices, of
    // which the shader reads only the position (the first 12 bytes).
    let mut s = Scene::new(16, 16, false);
    let v = fvf_triangles(|_, _| {
        let mut r = RED.to_le_bytes().to_vec();
        r.extend(floats(&[0.0, 0.0]));
        r
    });
    let vs = format!("vs_2_0\ndcl_position v0\ndef c4, 0, 1, 0, 1\n{DP4_POSITION}mov oD0, c4\n");
    // A stream stride of 0 is the FVF's 24 bytes (not the 12 the shader
    // reads): the six vertices are the two triangles, all 256 pixels green.
    let src = fvf_shader_draw(DIFFUSE_CASCADE, 0x142, 0, &vs);
    s.run_fvf(&src, 0x142, 24, &v).ok();
    assert_eq!(s.count(GREEN), 256);
    // A stride below the FVF vertex (20 < 24) fails the draw, as for fixed
    // function.
    let mut s = Scene::new(16, 16, false);
    let src = fvf_shader_draw(DIFFUSE_CASCADE, 0x142, 20, &vs);
    // The DRAWPRIMITIVE: a 4-byte command header and 12 bytes of record.
    let at = asm(&src).len() as u32 - 16;
    s.run_fvf(&src, 0x142, 24, &v).unparsed_at(at);
    assert!(matches!(
        s.drv.last_error().unwrap().error,
        DeviceError::OutOfRange { .. }
    ));
    assert_eq!(s.count(GREEN), 0);
}

#[test]
fn the_dx8_setvertexshader_with_an_fvf_also_feeds_a_dx9_shader() {
    // The FVF set with D3DDP2OP_SETVERTEXSHADER (the DirectX 8 opcode; its
    // handle has bit 0 clear) rather than SETVERTEXSHADERDECL: the shader
    // reads it the same way. XYZ | DIFFUSE (0x42), v1 = COLOR0: blue.
    let mut s = Scene::new(16, 16, false);
    let vs = format!("vs_2_0\ndcl_position v0\ndcl_color v1\n{DP4_POSITION}mov oD0, v1\n");
    let src = fvf_shader_draw(DIFFUSE_CASCADE, FVF_L, 16, &vs)
        .replace("SETVERTEXSHADERDECL {", "SETVERTEXSHADER {");
    assert!(src.contains("SETVERTEXSHADER { dwHandle=0x42 }"));
    s.run_fvf(&src, FVF_L, 16, &two_triangles(BLUE)).ok();
    assert_eq!(s.count(BLUE), 256);
}

/// Draws both triangles with the 2×2 texture (point sampled, WRAP) on
/// stage/sampler 0, D3DTSS_TEXTURETRANSFORMFLAGS of stage 0 = `ttff`, a
/// vs_2_0 writing oT0 = (u, v, 0.5, 1) (u, v as in
/// `a_vs_2_0_reads_an_fvf_as_its_vertex_declaration`: u = 1/64 + sx/16,
/// v = 1/64 + sy/16 at pixel centre (sx, sy)) and the pixel shader `ps`.
fn draw_projected(ps: &str, ttff: u32) -> Scene {
    let mut s = Scene::new(16, 16, false);
    let t = four_texels(&mut s);
    let o = 1.0 / 64.0;
    let v = fvf_triangles(|x, y| {
        let mut r = 0xFFFF_FFFFu32.to_le_bytes().to_vec();
        r.extend(floats(&[(x + 1.0) / 2.0 + o, (1.0 - y) / 2.0 + o]));
        r
    });
    let ps = shader_hex(ps);
    let pre = format!(
        "TEXTURESTAGESTATE {{ wStage=0 TSState=D3DTSS_TEXTUREMAP dwValue={t} }} \
         {{ wStage=0 TSState=D3DTSS_TEXTURETRANSFORMFLAGS dwValue={ttff:#x} }}\n\
         CREATEPIXELSHADER {{ dwHandle=0x20 code=hex:{ps} }}\nSETPIXELSHADER {{ dwHandle=0x20 }}\n\
         SETVERTEXSHADERCONST {{ dwRegister=4 data=[1 1 0 1 0 0 0.5 0] }}\n"
    );
    // v2 = (u, v, 0, 1) (FLOAT2 with the default z 0, w 1); oT0 = v2 × c4
    // + c5 = (u, v, 0.5, 1).
    let vs = format!(
        "vs_2_0\ndcl_position v0\ndcl_color v1\ndcl_texcoord v2\n{DP4_POSITION}mov oD0, v1\nmad oT0, v2, c4, c5\n"
    );
    draw_fvf_shader(&mut s, &pre, 0x142, 24, &vs, &v).ok();
    s
}

/// D3DTTFF_COUNT3 | D3DTTFF_PROJECTED, D3DTTFF_COUNT4 | D3DTTFF_PROJECTED.
const COUNT3_PROJECTED: u32 = 0x103;
const COUNT4_PROJECTED: u32 = 0x104;

#[test]
fn a_ps_1_1_tex_divides_by_the_coordinate_d3dttff_projected_names() {
    // Point sampling of the 2×2 texture with WRAP picks texel column
    // ⌊2u⌋ mod 2 (row ⌊2v⌋ mod 2); texels red, green / blue, white.
    //
    // COUNT3 | PROJECTED: D3D9 divides the coordinates before the third by
    // the third, z = ½, so the read is at 2u: column ⌊4u⌋ mod 2 with 4u =
    // 1/16 + sx/4, i.e. bands of 4 pixels: columns 0..=3 texel 0, 4..=7
    // texel 1, 8..=11 texel 0 (4u in [2, 3): wraps), 12..=15 texel 1.
    //
    // COUNT4 | PROJECTED: divided by w = 1, the coordinates unchanged:
    // 2u = 1/32 + sx/8, bands of 8 pixels.
    //
    // No PROJECTED: unchanged too.
    let ps = "ps_1_1\ntex t0\nmov r0, t0\n";
    let s = draw_projected(ps, COUNT3_PROJECTED);
    for (x, y, c) in [
        (0, 0, RED),
        (4, 0, GREEN),
        (8, 0, RED),
        (12, 0, GREEN),
        (0, 4, BLUE),
        (4, 4, 0xFFFF_FFFF),
        (8, 8, RED),
        (12, 12, 0xFFFF_FFFF),
        (15, 15, 0xFFFF_FFFF),
    ] {
        assert_eq!(s.px(x, y), c, "COUNT3|PROJECTED ({x}, {y})");
    }
    // 64 pixels per texel: each texel takes 2 × 2 bands of 4 × 4.
    assert_eq!(s.count(RED), 64);
    assert_eq!(s.count(GREEN), 64);
    for ttff in [COUNT4_PROJECTED, 0] {
        let s = draw_projected(ps, ttff);
        for (x, y, c) in [
            (0, 0, RED),
            (4, 0, RED),
            (8, 0, GREEN),
            (7, 7, RED),
            (8, 8, 0xFFFF_FFFF),
            (4, 12, BLUE),
        ] {
            assert_eq!(s.px(x, y), c, "ttff {ttff:#x} ({x}, {y})");
        }
    }
}

#[test]
fn ps_1_4_and_ps_2_0_texld_ignore_d3dttff_projected() {
    // The same draw as above with COUNT3 | PROJECTED: texld of ps_1_4 and
    // ps_2_0 reads the coordinates as they are (D3D9 projects there only
    // with `_dw` / `texldp`), so the texels are in bands of 8 pixels (the
    // unprojected reading worked out in the test above).
    for ps in [
        "ps_1_4\ntexld r0, t0\n",
        "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n",
    ] {
        let s = draw_projected(ps, COUNT3_PROJECTED);
        for (x, y, c) in [
            (4, 0, RED),
            (8, 0, GREEN),
            (4, 12, BLUE),
            (12, 12, 0xFFFF_FFFF),
        ] {
            assert_eq!(s.px(x, y), c, "{ps} ({x}, {y})");
        }
    }
    // ps_2_0 texldp divides by w (= 1 here) whatever the stage says: the
    // same bands of 8.
    let s = draw_projected(
        "ps_2_0\ndcl t0\ndcl_2d s0\ntexldp r0, t0, s0\nmov oC0, r0\n",
        COUNT3_PROJECTED,
    );
    assert_eq!(s.px(4, 0), RED);
    assert_eq!(s.px(8, 0), GREEN);
}

#[test]
fn centroid_inputs_and_lookups_draw_as_the_pixel_centre() {
    // softhal renders one sample per pixel, at its centre, so the centroid
    // of the covered samples is the centre: `_centroid` (declarations,
    // texld*, dsx/dsy) changes nothing. Each shader draws the texture as
    // in `a_ps_1_1_tex_divides_by_the_coordinate_d3dttff_projected_names`
    // without projection: texels in quadrants of 8 × 8 pixels.
    for (centroid, centre) in [
        (
            "ps_2_0\ndcl_centroid t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n",
            "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n",
        ),
        (
            "ps_2_0\ndcl t0\ndcl_2d s0\ntexld_centroid r0, t0, s0\nmov oC0, r0\n",
            "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n",
        ),
        (
            "ps_3_0\ndcl_texcoord0_centroid v0\ndcl_color0_centroid v1\ndcl_2d s0\ntexld r0, v0, s0\nmul oC0, r0, v1\n",
            "ps_3_0\ndcl_texcoord0 v0\ndcl_color0 v1\ndcl_2d s0\ntexld r0, v0, s0\nmul oC0, r0, v1\n",
        ),
    ] {
        let a = draw_projected(centroid, 0);
        let b = draw_projected(centre, 0);
        // The vertex colour is white, so × v1 keeps the texel.
        for (x, y, c) in [
            (7, 7, RED),
            (8, 7, GREEN),
            (7, 8, BLUE),
            (8, 8, 0xFFFF_FFFF),
        ] {
            assert_eq!(a.px(x, y), c, "{centroid} ({x}, {y})");
        }
        assert_eq!(a.rt_bytes(), b.rt_bytes(), "{centroid}");
    }
}

/// vs_3_0 packing TEXCOORD0 into `o3.xy` and TEXCOORD1 into `o3.zw`:
/// TEXCOORD0 = c4.xy = (1, ½), TEXCOORD1 = c5.xy = (¼, 1); its input
/// position is declared `.xyz` (the FLOAT3 element's w is the declaration
/// type's default 1 all the same, so `dp4` with the identity rows gives
/// w = 1 and the triangles land as in the tests above).
const VS3_PACKED: &str = "vs_3_0
dcl_position v0.xyz
dcl_position o0
dcl_texcoord0 o3.xy
dcl_texcoord1 o3.zw
dp4 o0.x, v0, c0
dp4 o0.y, v0, c1
dp4 o0.z, v0, c2
dp4 o0.w, v0, c3
mov o3.xy, c4
mov o3.zw, c5.xyxy
";

/// Draws both triangles with [`VS3_PACKED`] and the ps_3_0 `ps`.
fn draw_packed(ps: &str) -> Scene {
    let mut s = Scene::new(16, 16, false);
    let vs = shader_hex(VS3_PACKED);
    let ps = shader_hex(ps);
    let src = format!(
        "{}{DECL_PC}CREATEVERTEXSHADERFUNC {{ dwHandle=0x40 code=hex:{vs} }}\nSETVERTEXSHADERFUNC {{ dwHandle=0x40 }}\n\
         CREATEPIXELSHADER {{ dwHandle=0x20 code=hex:{ps} }}\nSETPIXELSHADER {{ dwHandle=0x20 }}\n\
         {IDENTITY_C0}SETVERTEXSHADERCONST {{ dwRegister=4 data=[1 0.5 0 0 0.25 1 0 0] }}\n{STREAM16}\
         DRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }}",
        setup()
    );
    let o = run16(&mut s, &src, &two_triangles(GREEN));
    assert_eq!(o.ddrval, 0, "{:?}", s.drv.last_error());
    s
}

#[test]
fn vs_3_0_outputs_packed_in_one_register_reach_ps_3_0_inputs_by_semantic_and_component() {
    // D3D9 (dcl_usage, ps_3_0 and vs_3_0): a semantic's components keep
    // their place; the pixel shader's mask may be any subset of the vertex
    // shader's. Here the pixel shader declares TEXCOORD1 on v0.zw and
    // TEXCOORD0 on v1.xy, so v0 = (0, 0, ¼, 1) and v1 = (1, ½, 0, 0); their
    // sum is (1, ½, ¼, 1): A 255, R 255, G 127.5 → 128, B 63.75 → 64
    // (round to nearest) on all 256 pixels. (Reading the whole of o3 for
    // each semantic would give v0 = v1 = (1, ½, ¼, 1), a sum saturated
    // to (1, 1, ½, 1): 0xFFFFFF80.)
    let s = draw_packed("ps_3_0\ndcl_texcoord1 v0.zw\ndcl_texcoord0 v1.xy\nadd oC0, v0, v1\n");
    assert_eq!(s.count(0xFFFF_8040), 256);
    // The components a declaration does not name read 0: v1 declared .xy
    // is (1, ½, 0, 0): alpha 0, blue 0.
    let s = draw_packed("ps_3_0\ndcl_texcoord0 v1.xy\nmov oC0, v1\n");
    assert_eq!(s.count(0x00FF_8000), 256);
    // Packed the same way on both sides: v0 = o3 = (1, ½, ¼, 1).
    let s = draw_packed("ps_3_0\ndcl_texcoord0 v0.xy\ndcl_texcoord1 v0.zw\nmov oC0, v0\n");
    assert_eq!(s.count(0xFFFF_8040), 256);
    // A subset of the vertex shader's mask: TEXCOORD1's w alone, in
    // place: v2 = (0, 0, 0, 1), black with alpha 255.
    let s = draw_packed("ps_3_0\ndcl_texcoord1 v2.w\nmov oC0, v2\n");
    assert_eq!(s.count(BLACK), 256);
}

/// A vs_3_0 that lifts the top of each column by the height its `texldl`
/// reads: v0 = (clip x, b, 0, 1) with b = 0 at a column's foot and 1 at
/// its top, v1 = (u, ½) the column's texel centre. r1 = v1 × c4 = (u, ½,
/// 0, 0): level 0 (texldl's w). o0 = (x, −1 + 2·b·h, 0, 1) with c5 =
/// (−1, 2, 0, 0); oD0 = c6.
const VS3_DISPLACE: &str = "vs_3_0
dcl_position v0
dcl_texcoord v1
dcl_2d s0
dcl_position o0
dcl_color o1
mul r1, v1, c4
texldl r0, r1, s0
mul r2.x, v0.y, r0.x
mad o0.y, r2.x, c5.y, c5.x
mov o0.xzw, v0
mov o1, c6
";

/// Four columns of a 16 × 16 target, column c from clip x = −1 + c/2 to
/// −1 + (c + 1)/2, two triangles each (FLOAT3 position, FLOAT2 texcoord:
/// 20 bytes a vertex, 24 vertices), reading texel c's centre.
fn columns() -> Vec<u8> {
    columns_reading(|c| (c + 0.5) / 4.0)
}

/// [`columns`] with column c reading the heights texture at u = `u(c)`.
fn columns_reading(u: impl Fn(f32) -> f32 + Copy) -> Vec<u8> {
    (0..4)
        .flat_map(|c| {
            let (x0, x1) = (-1.0 + c as f32 / 2.0, -1.0 + (c + 1) as f32 / 2.0);
            let u = u(c as f32);
            [
                (x0, 1.0),
                (x1, 1.0),
                (x0, 0.0),
                (x1, 1.0),
                (x1, 0.0),
                (x0, 0.0),
            ]
            .into_iter()
            .flat_map(move |(x, b)| floats(&[x, b, 0.0, u, 0.5]))
        })
        .collect()
}

/// The 4 × 1 R32F texture of heights ¼, ½, ¾, 1 the displacement tests
/// bind to a vertex sampler; its handle.
fn heights_texture(s: &mut Scene) -> u32 {
    let t = s
        .drv
        .create_texture(softhal_pipeline::texture::TextureFormat::R32F, 4, 1, 1)
        .unwrap();
    s.drv
        .lock(t, LockFlags::default())
        .unwrap()
        .copy_from_slice(&floats(&[0.25, 0.5, 0.75, 1.0]));
    s.drv.unlock(t).unwrap();
    t
}

/// Draws [`columns`] with [`VS3_DISPLACE`] after `pre`.
fn draw_displaced(s: &mut Scene, pre: &str) -> Outcome {
    draw_displaced_columns(s, pre, &columns())
}

/// Draws `vertices` (as [`columns`] makes them) with [`VS3_DISPLACE`]
/// after `pre`.
fn draw_displaced_columns(s: &mut Scene, pre: &str, vertices: &[u8]) -> Outcome {
    let vs = shader_hex(VS3_DISPLACE);
    let src = format!(
        "{}{DIFFUSE_CASCADE}{pre}CREATEVERTEXSHADERDECL {{ dwHandle=0x35 {{ Stream=0 Offset=0 Type=FLOAT3 Usage=POSITION }} \
         {{ Stream=0 Offset=12 Type=FLOAT2 Usage=TEXCOORD }} {{ Stream=0xff Type=UNUSED }} }}\nSETVERTEXSHADERDECL {{ dwHandle=0x35 }}\n\
         CREATEVERTEXSHADERFUNC {{ dwHandle=0x40 code=hex:{vs} }}\nSETVERTEXSHADERFUNC {{ dwHandle=0x40 }}\n\
         SETVERTEXSHADERCONST {{ dwRegister=4 data=[1 1 0 0 -1 2 0 0 0 1 0 1] }}\n\
         SETSTREAMSOURCEUM {{ dwStream=0 dwStride=20 }}\n\
         DRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=8 }}",
        setup()
    );
    s.run_fvf(&src, 0x102, 20, vertices)
}

/// A vertex texture in a recorded state block (docs/device.md, item 12: a
/// recorded block holds what was set while recording, a vertex sampler's
/// texture binding included): the heights texture of the test below is
/// bound to D3DVERTEXTEXTURESAMPLER0 (`wStage` 257) only inside BEGIN…END,
/// so the first draw samples an unbound sampler — (0, 0, 0, 1), height 0,
/// no pixel centre covered, 0 green pixels — and after EXECUTE the same
/// draw displaces the grid as below: 4 × 4 + 4 × 8 + 4 × 12 + 4 × 16 = 160
/// green pixels.
#[test]
fn a_recorded_state_block_binds_a_vertex_texture() {
    let mut s = Scene::new(16, 16, false);
    let t = heights_texture(&mut s);
    let o = draw_displaced(
        &mut s,
        &format!(
            "STATESET {{ dwOperation=D3DHAL_STATESETBEGIN dwParam=1 }}\n\
             TEXTURESTAGESTATE {{ wStage=257 TSState=D3DTSS_TEXTUREMAP dwValue={t} }} \
             {{ wStage=257 TSState=D3DTSS_MAGFILTER dwValue=D3DTEXF_POINT }}\n\
             STATESET {{ dwOperation=D3DHAL_STATESETEND dwParam=1 }}\n"
        ),
    );
    assert_eq!(o.ddrval, 0, "{:?}", s.drv.last_error());
    assert_eq!(s.count(GREEN), 0);
    let o = s.run_fvf(
        "STATESET { dwOperation=D3DHAL_STATESETEXECUTE dwParam=1 }\n\
         SETSTREAMSOURCEUM { dwStream=0 dwStride=20 }\n\
         DRAWPRIMITIVE { primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=8 }",
        0x102,
        20,
        &columns(),
    );
    assert_eq!(o.ddrval, 0, "{:?}", s.drv.last_error());
    assert_eq!(s.count(GREEN), 160);
}

#[test]
fn a_vs_3_0_displaces_a_grid_by_heights_it_reads_from_an_r32f_vertex_texture() {
    // D3DFORMAT_OP_VERTEXTEXTURE is reported for R32F, A32B32G32R32F and
    // A8R8G8B8 (and not, say, for R5G6B5).
    let mut s = Scene::new(16, 16, false);
    for (fmt, vt) in [
        (softhal_pipeline::texture::TextureFormat::R32F, true),
        (
            softhal_pipeline::texture::TextureFormat::A32B32G32R32F,
            true,
        ),
        (softhal_pipeline::texture::TextureFormat::A8R8G8B8, true),
        (softhal_pipeline::texture::TextureFormat::R5G6B5, false),
    ] {
        let f = s.drv.formats();
        let caps = f.iter().find(|c| c.d3dfmt == fmt.d3dfmt()).unwrap();
        assert_eq!(caps.vertex_texture, vt, "{fmt:?}");
    }
    // A 4 × 1 R32F texture of heights ¼, ½, ¾, 1 bound to
    // D3DVERTEXTEXTURESAMPLER0 (wStage 257), point sampled (the default
    // filters; MIPFILTER NONE).
    let t = heights_texture(&mut s);
    // Column c reads texel c at u = (c + ½)/4 (R32F reads as (h, 1, 1,
    // 1)), so its top is at clip y −1 + 2h, screen y 8 − 8(−1 + 2h) =
    // 16 − 16h: 12, 8, 4, 0. Its pixels are the centres (x, y) with
    // 4c ≤ x < 4c + 4 (left edges in, right edges out: top-left rule) and
    // 16 − 16h ≤ y ≤ 15 (the top edge is in): 4 × 4, 4 × 8, 4 × 12 and
    // 4 × 16 = 160 green pixels. The D3DDMAPSAMPLER stage (256) is
    // accepted (and not used).
    let o = draw_displaced(
        &mut s,
        &format!(
            "TEXTURESTAGESTATE {{ wStage=257 TSState=D3DTSS_TEXTUREMAP dwValue={t} }} \
             {{ wStage=257 TSState=D3DTSS_MAGFILTER dwValue=D3DTEXF_POINT }} \
             {{ wStage=256 TSState=D3DTSS_MAGFILTER dwValue=D3DTEXF_POINT }}\n"
        ),
    );
    assert_eq!(o.ddrval, 0, "{:?}", s.drv.last_error());
    assert_eq!(s.count(GREEN), 160);
    for (x, top) in [(0, 12), (4, 8), (11, 4), (15, 0)] {
        assert_eq!(s.px(x, top), GREEN, "({x}, {top})");
        if top > 0 {
            assert_eq!(s.px(x, top - 1), 0, "({x}, {})", top - 1);
        }
        assert_eq!(s.px(x, 15), GREEN, "({x}, 15)");
    }
    // Unbound, texldl returns (0, 0, 0, 1): every column has height 0 and
    // covers no pixel centre.
    let mut s = Scene::new(16, 16, false);
    let o = draw_displaced(&mut s, "");
    assert_eq!(o.ddrval, 0);
    assert_eq!(s.count(GREEN), 0);
    // A stage past D3DVERTEXTEXTURESAMPLER3 (260) is an error.
    let mut s = Scene::new(16, 16, false);
    let o = draw_displaced(
        &mut s,
        "TEXTURESTAGESTATE { wStage=261 TSState=D3DTSS_MAGFILTER dwValue=D3DTEXF_POINT }\n",
    );
    assert_ne!(o.ddrval, 0);
}

/// VertexTextureFilterCaps reports MINFLINEAR | MAGFLINEAR, and a vertex
/// sampler with MAGFILTER LINEAR filters: column c reads the 4 × 1 heights
/// texture (¼, ½, ¾, 1; WRAP) at u = (c + 1)/4, the edge between texels c
/// and c + 1, where the bilinear weights are ½ and ½: heights 0.375,
/// 0.625, 0.875 and (1 + ¼)/2 = 0.625 (texel 3 wraps to texel 0). A
/// column's top is at screen y 16 − 16h = 10, 6, 2, 6, so it covers rows
/// top…15: 4 × (6 + 10 + 14 + 10) = 160 green pixels, with the rows
/// above each top black. POINT at the same u reads texel c + 1 (the
/// nearest texel of an edge is the one to its right): tops 8, 4, 0, 12.
#[test]
fn a_vertex_sampler_filters_linearly_as_its_caps_say() {
    let caps = softhal_device::caps::caps();
    assert_eq!(caps.vertex_texture_filter_caps & 0x0200_0200, 0x0200_0200);
    for (filter, tops) in [
        ("D3DTEXF_LINEAR", [10, 6, 2, 6]),
        ("D3DTEXF_POINT", [8, 4, 0, 12]),
    ] {
        let mut s = Scene::new(16, 16, false);
        let t = heights_texture(&mut s);
        let o = draw_displaced_columns(
            &mut s,
            &format!(
                "TEXTURESTAGESTATE {{ wStage=257 TSState=D3DTSS_TEXTUREMAP dwValue={t} }} \
                 {{ wStage=257 TSState=D3DTSS_MAGFILTER dwValue={filter} }} \
                 {{ wStage=257 TSState=D3DTSS_MINFILTER dwValue={filter} }}\n"
            ),
            &columns_reading(|c| (c + 1.0) / 4.0),
        );
        assert_eq!(o.ddrval, 0, "{:?}", s.drv.last_error());
        for (c, top) in tops.into_iter().enumerate() {
            for x in 4 * c as u32..4 * c as u32 + 4 {
                assert_eq!(s.px(x, top), GREEN, "{filter} ({x}, {top})");
                assert_eq!(s.px(x, 15), GREEN, "{filter} ({x}, 15)");
                if top > 0 {
                    assert_eq!(s.px(x, top - 1), 0, "{filter} ({x}, {})", top - 1);
                }
            }
        }
    }
}
