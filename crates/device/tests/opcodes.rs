//! One positive and one or more negative cases for the opcodes not covered
//! in depth elsewhere; negatives fail at the command's offset and leave no
//! trace (state snapshot unchanged).

mod common;

use common::*;
use softhal_device::*;

struct Fixture {
    s: Scene,
    tex: u32,
    vb: u32,
    ib: u32,
}

fn fixture() -> Fixture {
    let mut s = Scene::new(16, 16, false);
    let tex = s.drv.create_texture(Format::A8R8G8B8, 8, 8, 1).unwrap();
    let vb = s.drv.create_vertex_buffer(200, false).unwrap();
    let ib = s.drv.create_index_buffer(64).unwrap();
    Fixture { s, tex, vb, ib }
}

fn expand(src: &str, f: &Fixture) -> String {
    src.replace("{T}", &f.tex.to_string())
        .replace("{V}", &f.vb.to_string())
        .replace("{I}", &f.ib.to_string())
        .replace("{RT}", &f.s.rt.to_string())
}

/// (positive, negatives...) — negatives are complete single commands, or a
/// command with `!cut` appended meaning "drop the last 2 bytes".
const CASES: &[(&str, &[&str])] = &[
    ("WINFO { dvWNear=1.0 dvWFar=10.0 }", &["WINFO { dvWNear=NaN dvWFar=1.0 }", "WINFO { dvWNear=1.0 } !cut"]),
    ("ZRANGE { dvMinZ=0.2 dvMaxZ=0.8 }", &["ZRANGE { dvMinZ=0.0 dvMaxZ=-inf }", "ZRANGE { dvMinZ=0.2 } !cut"]),
    ("VIEWPORTINFO { dwX=1 dwY=1 dwWidth=8 dwHeight=8 }", &["VIEWPORTINFO { dwWidth=8 } !cut"]),
    ("SETMATERIAL { dcvDiffuse.r=1.0 dvPower=2.0 }", &["SETMATERIAL { dvPower=2.0 } !cut"]),
    ("MULTIPLYTRANSFORM { xfrmType=D3DTS_PROJECTION _11=2.0 _22=2.0 _33=1.0 _44=1.0 }", &["MULTIPLYTRANSFORM { xfrmType=9 _11=1.0 }", "MULTIPLYTRANSFORM { xfrmType=D3DTS_VIEW } !cut"]),
    ("SETSCISSORRECT { left=1 top=1 right=5 bottom=5 }", &["SETSCISSORRECT { left=1 } !cut"]),
    ("EXT { dwExtToken=1 }", &["EXT { dwExtToken=1 } !cut"]),
    ("SETVERTEXSHADER { dwHandle=0x1c4 }", &["SETVERTEXSHADER { dwHandle=0x1 }", "SETVERTEXSHADER { dwHandle=0x4004 }"]),
    ("SETVERTEXSHADERCONST { dwRegister=255 data=[1.0 2.0 3.0 4.0] }", &["SETVERTEXSHADERCONST { dwRegister=255 data=[1.0 2.0 3.0 4.0 5.0 6.0 7.0 8.0] }", "SETVERTEXSHADERCONST { dwRegister=0 data=[1.0 2.0 3.0 4.0] } !cut"]),
    ("SETPIXELSHADERCONST { dwRegister=0 data=[0.5 0.5 0.5 1.0] }", &["SETPIXELSHADERCONST { dwRegister=224 data=[0.5 0.5 0.5 1.0] }"]),
    ("SETVERTEXSHADERCONSTI { dwRegister=15 data=[1 2 3 -4] }", &["SETVERTEXSHADERCONSTI { dwRegister=16 data=[1 2 3 4] }"]),
    ("SETPIXELSHADERCONSTI { dwRegister=1 data=[0 0 0 0] }", &["SETPIXELSHADERCONSTI { dwRegister=0xffffffff data=[0 0 0 0] }"]),
    ("SETVERTEXSHADERCONSTB { dwRegister=0 data=[TRUE FALSE TRUE] }", &["SETVERTEXSHADERCONSTB { dwRegister=14 data=[TRUE FALSE TRUE] }"]),
    ("SETPIXELSHADERCONSTB { dwRegister=15 data=[FALSE] }", &["SETPIXELSHADERCONSTB { dwRegister=16 data=[FALSE] }", "SETPIXELSHADERCONSTB { dwRegister=1 data=[FALSE] } !cut"]),
    ("SETINDICES { dwVBHandle={I} dwStride=4 }", &["SETINDICES { dwVBHandle={I} dwStride=3 }", "SETINDICES { dwVBHandle={V} dwStride=2 }", "SETINDICES { dwVBHandle=77 dwStride=2 }"]),
    ("SETSTREAMSOURCE2 { dwStream=15 dwVBHandle={V} dwOffset=20 dwStride=20 }", &["SETSTREAMSOURCE2 { dwStream=0 dwVBHandle={I} dwOffset=0 dwStride=20 }", "SETSTREAMSOURCE2 { dwStream=0 dwVBHandle={V} dwOffset=0 dwStride=2000 }"]),
    ("SETSTREAMSOURCEFREQ { dwStream=1 dwDivider=2 }", &["SETSTREAMSOURCEFREQ { dwStream=16 dwDivider=1 }"]),
    ("SETPALETTE { dwPaletteHandle=2 dwSurfaceHandle={T} }", &["SETPALETTE { dwPaletteHandle=2 dwSurfaceHandle=5 }"]),
    ("ADDDIRTYBOX { dwSurface={T} DirtyBox.Right=1 DirtyBox.Bottom=1 DirtyBox.Back=1 }", &["ADDDIRTYBOX { dwSurface=9 }"]),
    ("SURFACEBLT { dwSource={T} rSource.right=8 rSource.bottom=8 dwDest={RT} rDest.right=8 rDest.bottom=8 }", &["SURFACEBLT { dwSource={T} rSource.right=8 rSource.bottom=9 dwDest={RT} rDest.right=8 rDest.bottom=8 }", "SURFACEBLT { dwSource={V} rSource.right=1 rSource.bottom=1 dwDest={RT} rDest.right=1 rDest.bottom=1 }"]),
    ("SETCONVOLUTIONKERNELMONO { row=[0.25 0.5 0.25] col=[1.0] }", &["SETCONVOLUTIONKERNELMONO { dwWidth=9 dwHeight=1 }"]),
    ("SETTEXLOD { dwDDSurface={T} dwLOD=0 }", &["SETTEXLOD { dwDDSurface={T} dwLOD=0 } !cut"]),
    ("CREATEVERTEXSHADERDECL { dwHandle=0x41 { Stream=0 Offset=0 Type=D3DDECLTYPE_FLOAT3 Usage=D3DDECLUSAGE_POSITION } }", &["CREATEVERTEXSHADERDECL { dwHandle=0x41 { Stream=16 Offset=0 Type=D3DDECLTYPE_FLOAT3 Usage=D3DDECLUSAGE_POSITION } }", "CREATEVERTEXSHADERDECL { dwHandle=0x41 { Stream=0 Offset=0 Type=D3DDECLTYPE_FLOAT3 Usage=14 } }"]),
    ("DELETEVERTEXSHADERDECL { dwHandle=0x99 }", &[]),
    ("DELETEVERTEXSHADERFUNC { dwHandle=0x98 }", &[]),
    ("DELETEVERTEXSHADER { dwHandle=0x97 }", &[]),
];

#[test]
fn each_case_positive_then_negatives() {
    for (good, bads) in CASES {
        // Deletes are positive only after a create: make them so.
        let good_src = if good.starts_with("DELETEVERTEXSHADERDECL") {
            format!("CREATEVERTEXSHADERDECL {{ dwHandle=0x99 {{ Stream=0 Offset=0 Type=D3DDECLTYPE_FLOAT3 Usage=D3DDECLUSAGE_POSITION }} }}\n{good}")
        } else if good.starts_with("DELETEVERTEXSHADERFUNC") {
            format!("CREATEVERTEXSHADERFUNC {{ dwHandle=0x98 code=hex:0002feffffff0000 }}\n{good}")
        } else if good.starts_with("DELETEVERTEXSHADER ") {
            format!("CREATEVERTEXSHADER {{ dwHandle=0x97 decl=hex:ffffffff }}\n{good}")
        } else {
            good.to_string()
        };
        let mut f = fixture();
        let src = expand(&good_src, &f);
        let o = f.s.run(&src, &[]);
        assert_eq!(o.ddrval, 0, "{good}: {:?}", f.s.drv.last_error());
        for bad in bads
            .iter()
            .copied()
            .chain(good.starts_with("DELETE").then_some(*good))
        {
            let mut f = fixture();
            let (text, cut) = match bad.strip_suffix(" !cut") {
                Some(t) => (t, true),
                None => (bad, false),
            };
            let mut b = asm(&expand(text, &f));
            if cut {
                b.truncate(b.len() - 2);
            }
            let before = f.s.snapshot();
            f.s.run_full(&b, 4, &[], 0, None).unparsed_at(4);
            assert_eq!(f.s.snapshot(), before, "{bad}");
        }
    }
}

#[test]
fn frequency_dividers_other_than_one_are_refused_at_draw_time() {
    let mut s = Scene::new(16, 16, false);
    let src = format!("{NOCULL}SETVERTEXSHADER {{ dwHandle=0x44 }}\nSETSTREAMSOURCEUM {{ dwStream=0 dwStride=20 }}\nSETSTREAMSOURCEFREQ {{ dwStream=0 dwDivider=3 }}\nDRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }}");
    let at = asm(&src).len() as u32 - 16;
    s.run(&src, &quad(0.0, 0.0, 16.0, 16.0, 0.5, 0xFFFF_FFFF))
        .unparsed_at(at);
    assert!(matches!(
        s.drv.last_error().unwrap().error,
        DeviceError::Unsupported(_)
    ));
}
