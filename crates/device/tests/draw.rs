//! Drawing: every primitive opcode through the pipeline, with pixel checks,
//! and the negative cases (indices, ranges, counts, enum values, handles).

mod common;

use common::*;
use softhal_device::*;

const RED: u32 = 0xFFFF_0000;
const GREEN: u32 = 0xFF00_FF00;
const BLACK0: u32 = 0x0000_0000;

fn full_quad(color: u32) -> Vec<u8> {
    quad(0.0, 0.0, 16.0, 16.0, 0.5, color)
}

/// The four corners of the 16×16 target: 0 TL, 1 TR, 2 BL, 3 BR.
fn corners(color: u32) -> Vec<u8> {
    [(0.0, 0.0), (16.0, 0.0), (0.0, 16.0), (16.0, 16.0)]
        .iter()
        .flat_map(|&(x, y)| tl(x, y, 0.5, color))
        .collect()
}

fn vb(s: &mut Scene, bytes: &[u8]) -> u32 {
    let h = s
        .drv
        .create_vertex_buffer(bytes.len() as u32, false)
        .unwrap();
    s.drv
        .lock(h, LockFlags::default())
        .unwrap()
        .copy_from_slice(bytes);
    s.drv.unlock(h).unwrap();
    h
}

fn ib(s: &mut Scene, bytes: &[u8]) -> u32 {
    let h = s.drv.create_index_buffer(bytes.len() as u32).unwrap();
    s.drv
        .lock(h, LockFlags::default())
        .unwrap()
        .copy_from_slice(bytes);
    h
}

#[test]
fn trianglelist_fills_and_checks_its_range() {
    let mut s = Scene::new(16, 16, false);
    s.run(
        &format!("{NOCULL}TRIANGLELIST count=2 wVStart=0"),
        &full_quad(RED),
    )
    .ok();
    assert_eq!(s.count(RED), 256);
    let mut s = Scene::new(16, 16, false);
    s.run(
        &format!("{NOCULL}TRIANGLELIST count=3 wVStart=0"),
        &full_quad(RED),
    )
    .unparsed_at(12);
    s.run(
        &format!("{NOCULL}TRIANGLELIST count=2 wVStart=1"),
        &full_quad(RED),
    )
    .unparsed_at(12);
    s.run(
        &format!("{NOCULL}TRIANGLELIST count=0 wVStart=6"),
        &full_quad(RED),
    )
    .ok();
    assert_eq!(s.count(BLACK0), 256);
}

#[test]
fn default_cull_mode_culls_counter_clockwise() {
    let mut s = Scene::new(16, 16, false);
    // The quad's triangles are clockwise on screen: drawn under D3DCULL_CCW.
    s.run("TRIANGLELIST count=2 wVStart=0", &full_quad(RED))
        .ok();
    assert_eq!(s.count(RED), 256);
    let mut s = Scene::new(16, 16, false);
    s.run("RENDERSTATE { RenderState=D3DRS_CULLMODE dwState=D3DCULL_CW }\nTRIANGLELIST count=2 wVStart=0", &full_quad(RED)).ok();
    assert_eq!(s.count(RED), 0);
}

#[test]
fn strips_and_fans() {
    let mut s = Scene::new(16, 16, false);
    s.run(
        &format!("{NOCULL}TRIANGLESTRIP count=2 wVStart=0"),
        &corners(RED),
    )
    .ok();
    assert_eq!(s.count(RED), 256);
    s.run(
        &format!("{NOCULL}TRIANGLESTRIP count=3 wVStart=0"),
        &corners(RED),
    )
    .unparsed_at(12);
    let mut s = Scene::new(16, 16, false);
    // Fan around TL: TL, TR, BR, BL.
    let v: Vec<u8> = [(0.0, 0.0), (16.0, 0.0), (16.0, 16.0), (0.0, 16.0)]
        .iter()
        .flat_map(|&(x, y)| tl(x, y, 0.5, GREEN))
        .collect();
    s.run(&format!("{NOCULL}TRIANGLEFAN count=2 wVStart=0"), &v)
        .ok();
    assert_eq!(s.count(GREEN), 256);
    s.run(&format!("{NOCULL}TRIANGLEFAN count=2 wVStart=1"), &v)
        .unparsed_at(12);
}

#[test]
fn indexed_triangles() {
    let mut s = Scene::new(16, 16, false);
    s.run(&format!("{NOCULL}INDEXEDTRIANGLELIST {{ wV1=0 wV2=1 wV3=2 wFlags=0x700 }} {{ wV1=1 wV2=3 wV3=2 wFlags=0 }}"), &corners(RED)).ok();
    assert_eq!(s.count(RED), 256);
    s.run(
        &format!("{NOCULL}INDEXEDTRIANGLELIST {{ wV1=0 wV2=1 wV3=4 }}"),
        &corners(RED),
    )
    .unparsed_at(12);
    assert!(matches!(
        s.drv.last_error().unwrap().error,
        DeviceError::OutOfRange {
            value: 4,
            limit: 4,
            ..
        }
    ));

    let mut s = Scene::new(16, 16, false);
    let mut v = tl(99.0, 99.0, 0.5, 0); // vertex 0 unused: wVStart=1
    v.extend(corners(GREEN));
    s.run(&format!("{NOCULL}INDEXEDTRIANGLELIST2 wVStart=1 {{ wV1=0 wV2=1 wV3=2 }} {{ wV1=1 wV2=3 wV3=2 }}"), &v).ok();
    assert_eq!(s.count(GREEN), 256);
    s.run(
        &format!("{NOCULL}INDEXEDTRIANGLELIST2 wVStart=2 {{ wV1=0 wV2=1 wV3=3 }}"),
        &v,
    )
    .unparsed_at(12);

    let mut s = Scene::new(16, 16, false);
    s.run(
        &format!("{NOCULL}INDEXEDTRIANGLESTRIP count=2 wVStart=1 indices=[0 1 2 3]"),
        &v,
    )
    .ok();
    assert_eq!(s.count(GREEN), 256);
    s.run(
        &format!("{NOCULL}INDEXEDTRIANGLESTRIP count=2 wVStart=1 indices=[0 1 2 4]"),
        &v,
    )
    .unparsed_at(12);

    let mut s = Scene::new(16, 16, false);
    s.run(
        &format!("{NOCULL}INDEXEDTRIANGLEFAN count=2 wVStart=1 indices=[0 1 3 2]"),
        &v,
    )
    .ok();
    assert_eq!(s.count(GREEN), 256);
    s.run(
        &format!("{NOCULL}INDEXEDTRIANGLEFAN count=2 wVStart=65535 indices=[0 1 3 2]"),
        &v,
    )
    .unparsed_at(12);
}

#[test]
fn lines_and_points() {
    // A horizontal line along y = 4 from x = 0 to x = 16.
    let v: Vec<u8> = [(0.0, 4.0), (16.0, 4.0), (8.0, 4.0), (3.0, 9.0)]
        .iter()
        .flat_map(|&(x, y)| tl(x, y, 0.5, RED))
        .collect();
    let lines = [
        "LINELIST count=1 wVStart=0",
        "LINESTRIP count=2 wVStart=0",
        "INDEXEDLINELIST { wV1=0 wV2=1 }",
        "INDEXEDLINELIST2 wVStart=0 { wV1=0 wV2=2 } { wV1=2 wV2=1 }",
        "INDEXEDLINESTRIP count=2 wVStart=0 indices=[0 2 1]",
    ];
    for l in lines {
        let mut s = Scene::new(16, 16, false);
        s.run(l, &v).ok();
        assert_eq!(s.px(5, 4), RED, "{l}");
        assert_eq!(s.px(5, 5), BLACK0, "{l}");
        assert!(s.count(RED) >= 15, "{l}");
    }
    let bad = [
        "LINELIST count=2 wVStart=1",
        "LINESTRIP count=4 wVStart=0",
        "INDEXEDLINELIST { wV1=0 wV2=4 }",
        "INDEXEDLINELIST2 wVStart=3 { wV1=0 wV2=1 }",
        "INDEXEDLINESTRIP count=2 wVStart=0 indices=[0 1 9]",
        "POINTS { wCount=2 wVStart=3 }",
    ];
    for l in bad {
        let mut s = Scene::new(16, 16, false);
        s.run(l, &v).unparsed_at(0);
        assert_eq!(s.count(BLACK0), 256, "{l}");
    }
    let mut s = Scene::new(16, 16, false);
    s.run("POINTS { wCount=1 wVStart=3 } { wCount=1 wVStart=2 }", &v)
        .ok();
    assert_eq!(s.px(8, 4), RED);
    assert_eq!(s.px(3, 9), RED);
    assert_eq!(s.count(RED), 2);
}

#[test]
fn immediate_opcodes_take_vertices_from_the_stream() {
    let mut s = Scene::new(16, 16, false);
    let fan: Vec<u8> = [(0.0, 0.0), (16.0, 0.0), (16.0, 16.0), (0.0, 16.0)]
        .iter()
        .flat_map(|&(x, y)| tl(x, y, 0.5, GREEN))
        .collect();
    let hex: String = fan.iter().map(|b| format!("{b:02x}")).collect();
    let src = format!(".fvf D3DFVF_XYZRHW|D3DFVF_DIFFUSE\n{NOCULL}TRIANGLEFAN_IMM count=2 dwEdgeFlags=0xf vertices=hex:{hex}");
    s.run(&src, &[]).ok();
    assert_eq!(s.count(GREEN), 256);
    let line: Vec<u8> = [(0.0, 2.0), (16.0, 2.0)]
        .iter()
        .flat_map(|&(x, y)| tl(x, y, 0.5, RED))
        .collect();
    let hex: String = line.iter().map(|b| format!("{b:02x}")).collect();
    s.run(
        &format!(".fvf D3DFVF_XYZRHW|D3DFVF_DIFFUSE\nLINELIST_IMM count=1 vertices=hex:{hex}"),
        &[],
    )
    .ok();
    assert_eq!(s.px(7, 2), RED);
    // Truncated inline data: the command fails at its offset.
    let b = asm(&format!(
        ".fvf D3DFVF_XYZRHW|D3DFVF_DIFFUSE\nLINELIST_IMM count=1 vertices=hex:{hex}"
    ));
    s.run_bytes(&b[..b.len() - 4], &[]).unparsed_at(0);
}

#[test]
fn dx8_stream_draws() {
    let mut s = Scene::new(16, 16, false);
    let h = vb(&mut s, &full_quad(RED));
    let src = format!("{NOCULL}SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCE {{ dwStream=0 dwVBHandle={h} dwStride=20 }}\nDRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }}");
    s.run(&src, &[]).ok();
    assert_eq!(s.count(RED), 256);
    assert_eq!(s.drv.context(s.ctx).unwrap().stats.primitives, 2);
    // Range, enum and binding errors, each at the draw's offset.
    let prefix = format!("{NOCULL}SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCE {{ dwStream=0 dwVBHandle={h} dwStride=20 }}\n");
    let at = asm(&prefix).len() as u32;
    for bad in [
        "DRAWPRIMITIVE { primType=D3DPT_TRIANGLELIST VStart=1 PrimitiveCount=2 }",
        "DRAWPRIMITIVE { primType=7 VStart=0 PrimitiveCount=1 }",
        "DRAWPRIMITIVE { primType=D3DPT_TRIANGLELIST VStart=0xffffffff PrimitiveCount=0xffffffff }",
        "DRAWPRIMITIVE2 { primType=D3DPT_TRIANGLELIST FirstVertexOffset=21 PrimitiveCount=2 }",
        "CLIPPEDTRIANGLEFAN { FirstVertexOffset=0 PrimitiveCount=5 }",
        "DRAWINDEXEDPRIMITIVE { primType=D3DPT_TRIANGLELIST PrimitiveCount=1 }",
    ] {
        s.run(&format!("{prefix}{bad}"), &[]).unparsed_at(at);
    }
    // An unbound stream, a stride below the FVF's, a destroyed buffer.
    s.run(&format!("{NOCULL}SETSTREAMSOURCE {{ dwStream=0 dwVBHandle=0 dwStride=20 }}\nDRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=1 }}"), &[]).unparsed_at(28);
    s.run(&format!("{NOCULL}SETSTREAMSOURCE {{ dwStream=0 dwVBHandle={h} dwStride=12 }}\nDRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=1 }}"), &[]).unparsed_at(28);
    s.run(
        &format!("SETSTREAMSOURCE {{ dwStream=16 dwVBHandle={h} dwStride=20 }}"),
        &[],
    )
    .unparsed_at(0);
    s.run(
        &format!(
            "SETSTREAMSOURCE {{ dwStream=0 dwVBHandle={} dwStride=20 }}",
            s.rt
        ),
        &[],
    )
    .unparsed_at(0);
    s.run(
        &format!("{NOCULL}SETSTREAMSOURCE {{ dwStream=0 dwVBHandle={h} dwStride=20 }}"),
        &[],
    )
    .ok();
    s.drv.destroy_surface(h).unwrap();
    s.run(
        "DRAWPRIMITIVE { primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=1 }",
        &[],
    )
    .unparsed_at(0);
    assert!(matches!(
        s.drv.last_error().unwrap().error,
        DeviceError::BadHandle { .. }
    ));
}

#[test]
fn dx8_indexed_draws_16_and_32_bit() {
    for wide in [false, true] {
        let mut s = Scene::new(16, 16, false);
        let mut verts = tl(50.0, 50.0, 0.5, 0);
        verts.extend(corners(GREEN)); // vertices 1..=4
        let h = vb(&mut s, &verts);
        let idx: [u32; 6] = [0, 1, 2, 1, 3, 2];
        let bytes: Vec<u8> = if wide {
            idx.iter().flat_map(|i| i.to_le_bytes()).collect()
        } else {
            idx.iter().flat_map(|i| (*i as u16).to_le_bytes()).collect()
        };
        let ih = ib(&mut s, &bytes);
        let stride = if wide { 4 } else { 2 };
        let pre = format!("{NOCULL}SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCE {{ dwStream=0 dwVBHandle={h} dwStride=20 }}\nSETINDICES {{ dwVBHandle={ih} dwStride={stride} }}\n");
        s.run(&format!("{pre}DRAWINDEXEDPRIMITIVE {{ primType=D3DPT_TRIANGLELIST BaseVertexIndex=1 MinIndex=0 NumVertices=4 StartIndex=0 PrimitiveCount=2 }}"), &[]).ok();
        assert_eq!(s.count(GREEN), 256);
        let at = asm(&pre).len() as u32;
        // Base vertex 2 makes index 3 → vertex 5: out of range.
        s.run(&format!("{pre}DRAWINDEXEDPRIMITIVE {{ primType=D3DPT_TRIANGLELIST BaseVertexIndex=2 PrimitiveCount=2 }}"), &[]).unparsed_at(at);
        // Negative base: index 0 → vertex -1.
        s.run(&format!("{pre}DRAWINDEXEDPRIMITIVE {{ primType=D3DPT_TRIANGLELIST BaseVertexIndex=-1 PrimitiveCount=1 }}"), &[]).unparsed_at(at);
        // Index range beyond the index buffer.
        s.run(&format!("{pre}DRAWINDEXEDPRIMITIVE {{ primType=D3DPT_TRIANGLELIST BaseVertexIndex=1 StartIndex=3 PrimitiveCount=2 }}"), &[]).unparsed_at(at);
        // DRAWINDEXEDPRIMITIVE2: byte offsets; base -20 bytes with min index 1.
        let mut s2 = Scene::new(16, 16, false);
        let h2 = vb(&mut s2, &verts);
        let ih2 = ib(
            &mut s2,
            &idx.iter()
                .flat_map(|i| {
                    if wide {
                        (i + 2).to_le_bytes().to_vec()
                    } else {
                        ((i + 2) as u16).to_le_bytes().to_vec()
                    }
                })
                .collect::<Vec<u8>>(),
        );
        let pre2 = format!("{NOCULL}SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCE {{ dwStream=0 dwVBHandle={h2} dwStride=20 }}\nSETINDICES {{ dwVBHandle={ih2} dwStride={stride} }}\n");
        s2.run(&format!("{pre2}DRAWINDEXEDPRIMITIVE2 {{ primType=D3DPT_TRIANGLELIST BaseVertexOffset=-20 MinIndex=2 NumVertices=4 StartIndexOffset=0 PrimitiveCount=2 }}"), &[]).ok();
        assert_eq!(s2.count(GREEN), 256);
        s2.run(&format!("{pre2}DRAWINDEXEDPRIMITIVE2 {{ primType=D3DPT_TRIANGLELIST BaseVertexOffset=-60 PrimitiveCount=1 }}"), &[]).unparsed_at(asm(&pre2).len() as u32);
    }
}

#[test]
fn dx8_transformed_draws_with_byte_offsets() {
    let mut s = Scene::new(16, 16, false);
    let mut verts = tl(50.0, 50.0, 0.5, 0);
    verts.extend(full_quad(RED));
    let h = vb(&mut s, &verts);
    s.run(&format!("{NOCULL}SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCE {{ dwStream=0 dwVBHandle={h} dwStride=20 }}\nDRAWPRIMITIVE2 {{ primType=D3DPT_TRIANGLELIST FirstVertexOffset=20 PrimitiveCount=2 }}"), &[]).ok();
    assert_eq!(s.count(RED), 256);
    let mut s = Scene::new(16, 16, false);
    let mut fan = tl(50.0, 50.0, 0.5, 0);
    fan.extend(
        [(0.0, 0.0), (16.0, 0.0), (16.0, 16.0), (0.0, 16.0)]
            .iter()
            .flat_map(|&(x, y)| tl(x, y, 0.5, GREEN)),
    );
    let h = vb(&mut s, &fan);
    s.run(&format!("{NOCULL}SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCE2 {{ dwStream=0 dwVBHandle={h} dwOffset=20 dwStride=20 }}\nCLIPPEDTRIANGLEFAN {{ FirstVertexOffset=0 dwEdgeFlags=0xf PrimitiveCount=2 }}"), &[]).ok();
    assert_eq!(s.count(GREEN), 256);
}

#[test]
fn user_memory_stream_and_declarations() {
    let mut s = Scene::new(16, 16, false);
    s.run(&format!("{NOCULL}SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCEUM {{ dwStream=0 dwStride=20 }}\nDRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }}"), &full_quad(RED)).ok();
    assert_eq!(s.count(RED), 256);
    s.run("SETSTREAMSOURCEUM { dwStream=1 dwStride=20 }", &[])
        .unparsed_at(0);
    // A DX9 declaration: POSITIONT float4 + COLOR0.
    let mut s = Scene::new(16, 16, false);
    let decl = "CREATEVERTEXSHADERDECL { dwHandle=0x31 { Stream=0 Offset=0 Type=D3DDECLTYPE_FLOAT4 Usage=D3DDECLUSAGE_POSITIONT } { Stream=0 Offset=16 Type=D3DDECLTYPE_D3DCOLOR Usage=D3DDECLUSAGE_COLOR } { Stream=0xff Type=D3DDECLTYPE_UNUSED } }";
    s.run(&format!("{NOCULL}{decl}\nSETVERTEXSHADERDECL {{ dwHandle=0x31 }}\nSETSTREAMSOURCEUM {{ dwStream=0 dwStride=20 }}\nDRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }}"), &full_quad(GREEN)).ok();
    assert_eq!(s.count(GREEN), 256);
    s.run("SETVERTEXSHADERDECL { dwHandle=0x33 }", &[])
        .unparsed_at(0);
    s.run("SETVERTEXSHADERDECL { dwHandle=0x1 }", &[])
        .unparsed_at(0);
    s.run("CREATEVERTEXSHADERDECL { dwHandle=0x35 { Stream=0 Offset=0 Type=99 Usage=D3DDECLUSAGE_POSITIONT } }", &[]).unparsed_at(0);
    // A DX8 declaration-only (fixed-function) vertex shader.
    let mut s = Scene::new(16, 16, false);
    let decl_hex = [0x2000_0000u32, 0x4003_0000, 0x4004_0005, 0xFFFF_FFFF]
        .iter()
        .flat_map(|t| t.to_le_bytes())
        .map(|b| format!("{b:02x}"))
        .collect::<String>();
    s.run(&format!("{NOCULL}CREATEVERTEXSHADER {{ dwHandle=0x11 decl=hex:{decl_hex} }}\nSETVERTEXSHADER {{ dwHandle=0x11 }}\nSETSTREAMSOURCEUM {{ dwStream=0 dwStride=20 }}\nDRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }}"), &full_quad(RED)).ok();
    // FLOAT4 position through a DX8 declaration is untransformed XYZW (the
    // coordinates land mostly off screen); the draw goes to the pipeline.
    assert_eq!(s.drv.context(s.ctx).unwrap().stats.draws, 1);
    // A declaration without END, and a programmable DX8 shader.
    s.run(
        "CREATEVERTEXSHADER { dwHandle=0x13 decl=hex:00000020 }",
        &[],
    )
    .unparsed_at(0);
}

#[test]
fn shader_objects_are_validated_and_dx6_primitives_refuse_a_vertex_shader() {
    let mut s = Scene::new(16, 16, false);
    let vs = [
        0xFFFE_0101u32,
        0x0000_0001,
        0xC00F_0000,
        0x90E4_0000,
        0x0000_FFFF,
    ]
    .iter()
    .flat_map(|t| t.to_le_bytes())
    .map(|b| format!("{b:02x}"))
    .collect::<String>();
    let o = s.run(
        &format!("CREATEVERTEXSHADERFUNC {{ dwHandle=0x40 code=hex:{vs} }}"),
        &[],
    );
    assert_eq!(o.ddrval, 0, "{:?}", s.drv.last_error());
    assert!(s.drv.context(s.ctx).unwrap().vs_funcs.contains_key(&0x40));
    let o = s.run(
        &format!("{NOCULL}SETVERTEXSHADERFUNC {{ dwHandle=0x40 }}\nTRIANGLELIST count=2 wVStart=0"),
        &full_quad(RED),
    );
    // The DX6 primitive reads FVF vertices: not with a vertex shader
    // (stream draws do, `tests/shaders.rs`).
    o.unparsed_at(20);
    assert!(matches!(
        s.drv.last_error().unwrap().error,
        DeviceError::Unsupported(_)
    ));
    assert_eq!(s.count(RED), 0);
    // Malformed tokens are rejected at creation.
    s.run(
        "CREATEVERTEXSHADERFUNC { dwHandle=0x42 code=hex:0101feff01000000 }",
        &[],
    )
    .unparsed_at(0);
    s.run(
        "CREATEPIXELSHADER { dwHandle=0x20 code=hex:0101feff0000ffff }",
        &[],
    )
    .unparsed_at(0);
    s.run(
        "CREATEPIXELSHADER { dwHandle=0x20 code=hex:0101ffffffff0000 }",
        &[],
    )
    .ok();
    s.run("SETPIXELSHADER { dwHandle=0x21 }", &[])
        .unparsed_at(0);
    s.run("DELETEPIXELSHADER { dwHandle=0x20 }", &[]).ok();
    s.run("DELETEPIXELSHADER { dwHandle=0x20 }", &[])
        .unparsed_at(0);
}

#[test]
fn transforms_and_multiply_order() {
    // Untransformed quad covering clip space [-1, 1]²; viewport 16×16.
    let q = xyz_quad(-1.0, -1.0, 1.0, 1.0, 0.5, RED);
    let run = |extra: &str| {
        let mut s = Scene::new(16, 16, false);
        let b = asm(&format!("{NOCULL}VIEWPORTINFO {{ dwWidth=16 dwHeight=16 }}\n{extra}\nTRIANGLELIST count=2 wVStart=0"));
        let cb = s.drv.create_command_buffer_with(&b).unwrap();
        let mut d =
            DrawPrimitives2Data::new(s.ctx, cb, b.len() as u32).with_user_vertices(FVF_L, &q, 6);
        s.drv.draw_primitives2(&mut d);
        assert_eq!(d.ddrval, 0, "{:?}", s.drv.last_error());
        s
    };
    assert_eq!(run("").count(RED), 256);
    // World = scale 0.5: the centre 8×8.
    let s = run("SETTRANSFORM { xfrmType=D3DTS_WORLD _11=0.5 _22=0.5 _33=1.0 _44=1.0 }");
    assert_eq!(s.count(RED), 64);
    assert_eq!(s.px(8, 8), RED);
    assert_eq!(s.px(2, 2), BLACK0);
    // MULTIPLYTRANSFORM: world = supplied × current. Current = translate
    // (+0.5, 0); supplied = scale 0.5 → v·S·T: scaled then moved right by a
    // quarter of the screen (x from 8 to 16).
    let s = run("SETTRANSFORM { xfrmType=D3DTS_WORLD _11=1.0 _22=1.0 _33=1.0 _44=1.0 _41=0.5 }\nMULTIPLYTRANSFORM { xfrmType=D3DTS_WORLD _11=0.5 _22=0.5 _33=1.0 _44=1.0 }");
    assert_eq!(s.count(RED), 64);
    assert_eq!(s.px(12, 8), RED);
    assert_eq!(s.px(5, 8), BLACK0);
    let w = s.drv.context(s.ctx).unwrap().state.transform(256);
    assert_eq!(w[3][0], 0.5);
    assert_eq!(w[0][0], 0.5);
    // DX7 world number 1 is world 0.
    assert_eq!(
        run("SETTRANSFORM { xfrmType=1 _11=0.5 _22=0.5 _33=1.0 _44=1.0 }").count(RED),
        64
    );
}

#[test]
fn depth_test_uses_the_depth_buffer() {
    let mut s = Scene::new(16, 16, true);
    s.run(&format!("{NOCULL}CLEAR {{ dwFlags=D3DCLEAR_ZBUFFER dvFillDepth=1.0 }}\nTRIANGLELIST count=2 wVStart=0\nTRIANGLELIST count=2 wVStart=6"), &[full_quad(RED), quad(0.0, 0.0, 16.0, 16.0, 0.7, GREEN)].concat()).ok();
    assert_eq!(s.count(RED), 256);
    s.run("RENDERSTATE { RenderState=D3DRS_ZFUNC dwState=D3DCMP_GREATER }\nTRIANGLELIST count=2 wVStart=0", &quad(0.0, 0.0, 16.0, 16.0, 0.7, GREEN)).ok();
    assert_eq!(s.count(GREEN), 256);
}

#[test]
fn render_state_translation_reaches_the_pipeline() {
    // Alpha blending with SRCALPHA/INVSRCALPHA of 50% red over green.
    let mut s = Scene::new(16, 16, false);
    let src = format!("{NOCULL}TRIANGLELIST count=2 wVStart=0\nRENDERSTATE {{ RenderState=D3DRS_ALPHABLENDENABLE dwState=TRUE }} {{ RenderState=D3DRS_SRCBLEND dwState=D3DBLEND_SRCALPHA }} {{ RenderState=D3DRS_DESTBLEND dwState=D3DBLEND_INVSRCALPHA }}\nTRIANGLELIST count=2 wVStart=6");
    s.run(&src, &[full_quad(GREEN), full_quad(0x80FF_0000)].concat())
        .ok();
    let p = s.px(5, 5);
    let (r, g) = ((p >> 16) & 0xFF, (p >> 8) & 0xFF);
    assert!(
        (120..=135).contains(&r) && (120..=135).contains(&g),
        "{p:#x}"
    );
    // Scissor.
    let mut s = Scene::new(16, 16, false);
    s.run(&format!("{NOCULL}SETSCISSORRECT {{ left=0 top=0 right=4 bottom=16 }}\nRENDERSTATE {{ RenderState=D3DRS_SCISSORTESTENABLE dwState=TRUE }}\nTRIANGLELIST count=2 wVStart=0"), &full_quad(RED)).ok();
    assert_eq!(s.count(RED), 64);
    // Colour write mask: only blue.
    let mut s = Scene::new(16, 16, false);
    s.run(&format!("{NOCULL}RENDERSTATE {{ RenderState=D3DRS_COLORWRITEENABLE dwState=4 }}\nTRIANGLELIST count=2 wVStart=0"), &full_quad(0xFFFF_FFFF)).ok();
    assert_eq!(s.px(3, 3) & 0x00FF_FFFF, 0x0000_00FF);
}

#[test]
fn run_commands_convenience_for_hosts() {
    let mut drv = Driver::new(2).unwrap();
    let rt = drv.create_render_target(Format::X8R8G8B8, 16, 16).unwrap();
    let z = drv.create_depth_stencil(Format::D24S8, 16, 16).unwrap();
    let ctx = drv.context_create(rt, Some(z)).unwrap();
    let cmds = asm(&format!("{NOCULL}CLEAR {{ dwFlags=D3DCLEAR_TARGET|D3DCLEAR_ZBUFFER dwFillColor=0xff000000 dvFillDepth=1.0 }}\nTRIANGLELIST count=2 wVStart=0"));
    assert!(drv
        .run_commands(ctx, &cmds, FVF_TL, &full_quad(RED))
        .unwrap()
        .is_empty());
    let rgba = drv.read_rgba8(rt).unwrap();
    assert_eq!(&rgba[..4], &[255, 0, 0, 255]);
    let f = drv
        .run_commands(
            ctx,
            &asm("TRIANGLELIST count=9 wVStart=0"),
            FVF_TL,
            &full_quad(RED),
        )
        .unwrap_err();
    assert_eq!(
        (f.ddrval, f.offset),
        (softhal_wire::names::codes::D3DERR_COMMAND_UNPARSED, 0)
    );
}

#[test]
fn output_is_identical_at_any_thread_count() {
    let scene = |threads: usize| {
        let mut drv = Driver::new(threads).unwrap();
        let rt = drv
            .create_render_target(Format::A8R8G8B8, 160, 130)
            .unwrap();
        let ctx = drv.context_create(rt, None).unwrap();
        let mut verts = Vec::new();
        for i in 0..40u32 {
            let (x, y) = ((i * 37 % 150) as f32, (i * 53 % 120) as f32);
            verts.extend(tl(x, y, 0.5, 0xFF00_0000 | (i * 0x0006_0305)));
            verts.extend(tl(x + 40.0, y + 7.0, 0.5, 0x80FF_0000 | i));
            verts.extend(tl(x + 9.0, y + 35.0, 0.5, 0xFF00_FF00));
        }
        let cmds = asm(&format!("{NOCULL}RENDERSTATE {{ RenderState=D3DRS_ALPHABLENDENABLE dwState=TRUE }} {{ RenderState=D3DRS_SRCBLEND dwState=D3DBLEND_SRCALPHA }} {{ RenderState=D3DRS_DESTBLEND dwState=D3DBLEND_INVSRCALPHA }}\nTRIANGLELIST count=40 wVStart=0"));
        drv.run_commands(ctx, &cmds, FVF_TL, &verts).unwrap();
        drv.read_rgba8(rt).unwrap()
    };
    let one = scene(1);
    assert!(one.chunks(4).any(|p| p != [0, 0, 0, 0]));
    assert_eq!(one, scene(3));
}

#[test]
fn declarations_gather_several_streams() {
    let mut s = Scene::new(16, 16, false);
    // Stream 0: POSITIONT (16 bytes), stream 1: COLOR0 (4 bytes), both in
    // vertex-buffer surfaces; the corners of the target, drawn indexed.
    let (pos, col): (Vec<u8>, Vec<u8>) = {
        let c = corners(0);
        let pos = c.chunks_exact(20).flat_map(|v| v[..16].to_vec()).collect();
        let col = [RED, GREEN, GREEN, RED]
            .iter()
            .flat_map(|c| c.to_le_bytes())
            .collect();
        (pos, col)
    };
    let (hp, hc) = (vb(&mut s, &pos), vb(&mut s, &col));
    let ib = s.drv.create_index_buffer(12).unwrap();
    s.drv
        .lock(ib, LockFlags::default())
        .unwrap()
        .copy_from_slice(&[0u16, 1, 2, 1, 3, 2].map(u16::to_le_bytes).concat());
    s.drv.unlock(ib).unwrap();
    let decl = "CREATEVERTEXSHADERDECL { dwHandle=0x31 { Stream=0 Offset=0 Type=D3DDECLTYPE_FLOAT4 Usage=D3DDECLUSAGE_POSITIONT } \
                { Stream=1 Offset=0 Type=D3DDECLTYPE_D3DCOLOR Usage=D3DDECLUSAGE_COLOR } { Stream=0xff Type=D3DDECLTYPE_UNUSED } }";
    let bind = format!(
        "{NOCULL}{decl}\nSETVERTEXSHADERDECL {{ dwHandle=0x31 }}\n\
         SETSTREAMSOURCE {{ dwStream=0 dwVBHandle={hp} dwStride=16 }}\nSETSTREAMSOURCE {{ dwStream=1 dwVBHandle={hc} dwStride=4 }}\n\
         SETINDICES {{ dwVBHandle={ib} dwStride=2 }}\n"
    );
    s.run(
        &format!("{bind}DRAWINDEXEDPRIMITIVE {{ primType=D3DPT_TRIANGLELIST BaseVertexIndex=0 MinIndex=0 NumVertices=4 StartIndex=0 PrimitiveCount=2 }}"),
        &[],
    )
    .ok();
    // Vertex colours come from stream 1: red at the top-left and
    // bottom-right corners, green at the other two.
    assert_eq!(s.px(0, 0), RED);
    let ch = |c: u32, shift: u32| (c >> shift) & 0xff;
    assert!(ch(s.px(15, 15), 16) > 0xd0 && ch(s.px(15, 15), 8) < 0x30);
    assert!(ch(s.px(15, 0), 8) > 0xd0 && ch(s.px(15, 0), 16) < 0x30);
    assert_eq!(s.count(0), 0, "every pixel drawn");
    // A vertex index past the shorter stream (colours for 3 vertices
    // only) fails the draw and draws nothing.
    let short = vb(&mut s, &col[..12]);
    let before = s.rt_bytes();
    s.run(
        &format!("{bind}SETSTREAMSOURCE {{ dwStream=1 dwVBHandle={short} dwStride=4 }}\nDRAWINDEXEDPRIMITIVE {{ primType=D3DPT_TRIANGLELIST BaseVertexIndex=0 MinIndex=0 NumVertices=4 StartIndex=0 PrimitiveCount=2 }}"),
        &[],
    )
    .unparsed_at(asm(&format!("{bind}SETSTREAMSOURCE {{ dwStream=1 dwVBHandle={short} dwStride=4 }}\n")).len() as u32);
    assert_eq!(s.rt_bytes(), before);
}
