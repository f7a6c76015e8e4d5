//! `include/softhal.h` is generated (crates/capi/src/header.rs) and must be
//! current: this test regenerates it and compares. `SOFTHAL_BLESS=1`
//! rewrites the file instead. No network, no external tool.

use std::path::PathBuf;

fn header_path() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../include/softhal.h"
    ))
}

#[test]
#[cfg(target_pointer_width = "64")]
fn header_is_current() {
    let generated = softhal::header::generate();
    let path = header_path();
    if std::env::var_os("SOFTHAL_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "include/softhal.h is stale: run `SOFTHAL_BLESS=1 cargo test -p softhal-capi --test header`"
    );
}

/// Every exported function of the crate is declared in the header.
#[test]
fn every_export_is_declared() {
    let header = softhal::header::generate();
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let mut n = 0;
    for entry in std::fs::read_dir(src).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for line in text.lines() {
            let Some(rest) = line
                .split_once("extern \"C\" fn ")
                .or_else(|| line.split_once("extern \"system\" fn "))
                .map(|(_, r)| r)
            else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() {
                continue;
            }
            n += 1;
            assert!(
                header.contains(&format!(" {name}(")),
                "{name} is not declared in softhal.h"
            );
        }
    }
    assert!(n >= 20, "found only {n} exports");
}

/// Every DDK payload struct name (the DP2 payload structs of `d3dhal.h`)
/// is declared.
#[test]
fn every_reference_struct_is_declared() {
    let names = softhal::header::struct_names();
    for want in [
        "D3DHAL_DP2COMMAND",
        "D3DHAL_DP2POINTS",
        "D3DHAL_DP2STARTVERTEX",
        "D3DHAL_DP2LINELIST",
        "D3DHAL_DP2LINESTRIP",
        "D3DHAL_DP2TRIANGLELIST",
        "D3DHAL_DP2TRIANGLESTRIP",
        "D3DHAL_DP2TRIANGLEFAN",
        "D3DHAL_DP2INDEXEDLINELIST",
        "D3DHAL_DP2INDEXEDLINESTRIP",
        "D3DHAL_DP2INDEXEDTRIANGLELIST",
        "D3DHAL_DP2INDEXEDTRIANGLELIST2",
        "D3DHAL_DP2INDEXEDTRIANGLESTRIP",
        "D3DHAL_DP2INDEXEDTRIANGLEFAN",
        "D3DHAL_DP2TRIANGLEFAN_IMM",
        "D3DHAL_DP2RENDERSTATE",
        "D3DHAL_DP2TEXTURESTAGESTATE",
        "D3DHAL_DP2VIEWPORTINFO",
        "D3DHAL_DP2WINFO",
        "D3DHAL_DP2SETPALETTE",
        "D3DHAL_DP2UPDATEPALETTE",
        "D3DHAL_DP2ZRANGE",
        "D3DHAL_DP2SETMATERIAL",
        "D3DHAL_DP2SETLIGHT",
        "D3DHAL_DP2CREATELIGHT",
        "D3DHAL_DP2SETTRANSFORM",
        "D3DHAL_DP2MULTIPLYTRANSFORM",
        "D3DHAL_DP2EXT",
        "D3DHAL_DP2TEXBLT",
        "D3DHAL_DP2STATESET",
        "D3DHAL_DP2SETPRIORITY",
        "D3DHAL_DP2SETRENDERTARGET",
        "D3DHAL_DP2CLEAR",
        "D3DHAL_DP2SETTEXLOD",
        "D3DHAL_DP2SETCLIPPLANE",
        "D3DHAL_DP2VERTEXSHADER",
        "D3DHAL_DP2CREATEVERTEXSHADER",
        "D3DHAL_DP2SETVERTEXSHADERCONST",
        "D3DHAL_DP2SETSTREAMSOURCE",
        "D3DHAL_DP2SETSTREAMSOURCEUM",
        "D3DHAL_DP2SETINDICES",
        "D3DHAL_DP2DRAWPRIMITIVE",
        "D3DHAL_DP2DRAWINDEXEDPRIMITIVE",
        "D3DHAL_CLIPPEDTRIANGLEFAN",
        "D3DHAL_DP2DRAWPRIMITIVE2",
        "D3DHAL_DP2DRAWINDEXEDPRIMITIVE2",
        "D3DHAL_DP2PIXELSHADER",
        "D3DHAL_DP2CREATEPIXELSHADER",
        "D3DHAL_DP2SETPIXELSHADERCONST",
        "D3DHAL_DP2DRAWRECTPATCH",
        "D3DHAL_DP2DRAWTRIPATCH",
        "D3DHAL_DP2VOLUMEBLT",
        "D3DHAL_DP2BUFFERBLT",
        "D3DHAL_DP2ADDDIRTYRECT",
        "D3DHAL_DP2ADDDIRTYBOX",
        "D3DHAL_DP2CREATEVERTEXSHADERDECL",
        "D3DVERTEXELEMENT9",
        "D3DHAL_DP2CREATEVERTEXSHADERFUNC",
        "D3DHAL_DP2SETVERTEXSHADERCONSTI",
        "D3DHAL_DP2SETVERTEXSHADERCONSTB",
        "D3DHAL_DP2SETPIXELSHADERCONSTI",
        "D3DHAL_DP2SETPIXELSHADERCONSTB",
        "D3DHAL_DP2SETSTREAMSOURCE2",
        "D3DHAL_DP2SETSTREAMSOURCEFREQ",
        "D3DHAL_DP2BLT",
        "D3DHAL_DP2SURFACEBLT",
        "D3DHAL_DP2COLORFILL",
        "D3DHAL_DP2CREATEQUERY",
        "D3DHAL_DP2DELETEQUERY",
        "D3DHAL_DP2ISSUEQUERY",
        "D3DHAL_DP2SETRENDERTARGET2",
        "D3DHAL_DP2SETDEPTHSTENCIL",
        "D3DHAL_DP2GENERATEMIPSUBLEVELS",
        "D3DHAL_DP2SETCONVOLUTIONKERNELMONO",
        "D3DHAL_DP2COMPOSERECTS",
        "D3DHAL_DP2RESPONSE",
        "D3DHAL_DP2RESPONSEQUERY",
        "D3DBOX",
        "D3DRANGE",
        "D3DCOMPOSERECTDESC",
        "D3DCOMPOSERECTDESTINATION",
        "D3DRECTPATCH_INFO",
        "D3DTRIPATCH_INFO",
        "D3DLIGHT7",
        "D3DHAL_DRAWPRIMITIVES2DATA",
        "D3DHAL_CONTEXTCREATEDATA",
        "D3DHAL_CONTEXTDESTROYDATA",
        "D3DHAL_CLEAR2DATA",
        "D3DHAL_VALIDATETEXTURESTAGESTATEDATA",
        "D3DDDICB_RENDER",
        "D3DDDI_ALLOCATIONLIST",
        "D3DDDI_PATCHLOCATIONLIST",
    ] {
        assert!(
            names.iter().any(|n| n == want),
            "{want} missing from softhal.h"
        );
    }
    let text = softhal::header::generate();
    assert!(text.contains("D3DHAL_DP2SETSCISSORRECT"));
}

/// The Direct3D value constants a host writes state with are in the
/// header, each under its own `#ifndef`, with the DDK's values (written
/// here by hand from d3d8types.h / d3d9types.h).
#[test]
fn the_header_defines_the_d3d_state_values() {
    let h = softhal::header::generate();
    for (name, value) in [
        ("D3DCULL_NONE", 1),
        ("D3DCULL_CCW", 3),
        ("D3DBLEND_SRCALPHA", 5),
        ("D3DBLEND_INVSRCALPHA", 6),
        ("D3DCMP_LESSEQUAL", 4),
        ("D3DTOP_MODULATE", 4),
        ("D3DTOP_SELECTARG1", 2),
        ("D3DTA_TEXTURE", 2),
        ("D3DTA_COMPLEMENT", 0x10),
        ("D3DFVF_TEX1", 0x100),
        ("D3DFVF_TEX8", 0x800),
        ("D3DZB_TRUE", 1),
        ("D3DSHADE_GOURAUD", 2),
        ("D3DTADDRESS_CLAMP", 3),
        ("D3DTEXF_LINEAR", 2),
    ] {
        let guarded = format!("#ifndef {name}\n#define {name} 0x{value:X}\n#endif\n");
        assert!(h.contains(&guarded), "{name}");
    }
    // State numbers, primitive types, formats and FVF bits were already
    // there (in the DDI block).
    for (name, value) in [
        ("D3DRS_CULLMODE", 22),
        ("D3DTSS_COLOROP", 1),
        ("D3DPT_TRIANGLELIST", 4),
        ("D3DFMT_A8R8G8B8", 21),
        ("D3DFVF_XYZRHW", 4),
        ("D3DFVF_DIFFUSE", 0x40),
    ] {
        assert!(
            h.contains(&format!("#define {name} 0x{value:X}\n")),
            "{name}"
        );
    }
}
