//! The choices where public sources disagree about the wire format
//! (docs/dp2-wire.md §6 lists them, with the sources on each side), each
//! pinned by a test.

use softhal_wire::text::assemble;
use softhal_wire::{decode_all, Command, DecodeOptions, Opcode};

const OPTS: DecodeOptions = DecodeOptions {
    vertex_stride: 20,
    base_align: 0,
};

fn one(src: &str) -> (Vec<u8>, usize) {
    let b = assemble(src).unwrap();
    let cmds = decode_all(&b, OPTS).unwrap();
    assert_eq!(cmds.len(), 1);
    let size = cmds[0].size;
    (b, size)
}

/// Disagreement 4: D, refrast and Perm3 skip one RECT when N = 0.
#[test]
fn clear_with_zero_rects_skips_one_rect_slot() {
    let (b, size) = one("CLEAR { dwFlags=D3DCLEAR_TARGET }");
    assert_eq!(size, 4 + 16 + 16);
    assert_eq!(b.len(), 36);
    let (_, size) = one("CLEAR { dwFlags=1 } { right=1 bottom=1 } { right=2 bottom=2 }");
    assert_eq!(size, 4 + 16 + 32);
}

/// Disagreement 3: LINELIST_IMM carries 2N vertices (not N+1).
#[test]
fn linelist_imm_carries_2n_vertices() {
    let verts = "00".repeat(4 * 20);
    let (_, size) = one(&format!(
        ".stride 20\nLINELIST_IMM count=2 vertices=hex:{verts}"
    ));
    assert_eq!(size, 4 + 4 * 20);
}

/// Disagreement 5: UPDATEPALETTE is one record whatever N says.
#[test]
fn updatepalette_is_one_record_whatever_n() {
    let (b, size) = one("UPDATEPALETTE count=3 { dwPaletteHandle=1 } entries=[1 2]");
    assert_eq!(size, 4 + 8 + 8);
    assert_eq!(u16::from_le_bytes([b[2], b[3]]), 3);
}

/// Disagreement 8: SETRENDERTARGET2 and SETDEPTHSTENCIL loop N records.
#[test]
fn setrendertarget2_loops_n_records() {
    let (_, size) =
        one("SETRENDERTARGET2 { RTIndex=0 hRenderTarget=1 } { RTIndex=1 hRenderTarget=2 }");
    assert_eq!(size, 4 + 16);
    let (_, size) = one("SETDEPTHSTENCIL { hZBuffer=1 } { hZBuffer=2 }");
    assert_eq!(size, 4 + 8);
}

/// Disagreement 7: CONSTB carries dwCount BOOL DWORDs (W/D, not Perm3).
#[test]
fn constb_carries_dwcount_bools() {
    let (_, size) = one("SETVERTEXSHADERCONSTB { dwRegister=0 data=[TRUE TRUE TRUE] }");
    assert_eq!(size, 4 + 8 + 12);
}

/// Disagreement 7: CONSTI carries 16·dwCount bytes (int4 vectors).
#[test]
fn consti_carries_16_bytes_per_count() {
    let (_, size) = one("SETPIXELSHADERCONSTI { dwRegister=0 data=[1 2 3 4 5 6 7 8] }");
    assert_eq!(size, 4 + 8 + 32);
}

/// Disagreement 9: VIEWPORTINFO / WINFO: N structs are consumed (the last wins).
#[test]
fn viewportinfo_loops_n_structs() {
    let (_, size) = one("VIEWPORTINFO { dwWidth=1 } { dwWidth=2 }");
    assert_eq!(size, 4 + 32);
}

/// UNCONFIRMED in the reference: whether dwNumVertexElements counts the END
/// element. We consume exactly dwNumVertexElements elements.
#[test]
fn vertex_decl_consumes_exactly_n_elements() {
    let (b, size) = one(
        "CREATEVERTEXSHADERDECL { dwHandle=1 dwNumVertexElements=1 { Type=D3DDECLTYPE_FLOAT3 } }",
    );
    assert_eq!(size, 4 + 8 + 8);
    let cmds = decode_all(&b, OPTS).unwrap();
    let Command::CreateVertexShaderDecl(r) = cmds[0].command else {
        panic!()
    };
    assert_eq!(r.iter().next().unwrap().elements.len(), 1);
}

/// Disagreement 2: EXT exists only in the DX7 DDK; no parser reads extra data.
#[test]
fn ext_is_8n_bytes() {
    let (_, size) = one("EXT { dwExtToken=1 dwSize=100 } { dwExtToken=2 }");
    assert_eq!(size, 4 + 16);
}

/// Disagreement 2: RESERVED0 is never sent; decoded as a bare header.
#[test]
fn reserved0_is_a_bare_header() {
    let (_, size) = one("RESERVED0 count=5");
    assert_eq!(size, 4);
}

/// RESPONSEQUERY: dwTotalSize must equal the header plus its entries.
#[test]
fn response_query_size_must_match() {
    let (b, size) =
        one("RESPONSEQUERY { dwQueryID=1 data=hex:01000000 } { dwQueryID=2 data=hex:01000000 }");
    assert_eq!(size, 32, "two results of 4 bytes: 8 + (8 + 4) + (8 + 4)");
    assert_eq!(u32::from_le_bytes([b[4], b[5], b[6], b[7]]), 32);
}

/// Disagreement 1: Wine and mingw spell opcode 44 D3DPP2OP_SETCLIPPLANE.
#[test]
fn setclipplane_wine_spelling_parses() {
    assert_eq!(
        Opcode::from_name("D3DPP2OP_SETCLIPPLANE"),
        Some(Opcode::SetClipPlane)
    );
    assert_eq!(Opcode::SetClipPlane.name(), "D3DDP2OP_SETCLIPPLANE");
    let (_, size) = one("D3DPP2OP_SETCLIPPLANE { dwIndex=0 }");
    assert_eq!(size, 24);
}

/// SETCONVOLUTIONKERNELMONO: N records, weights as the flags say.
#[test]
fn convolution_kernel_weights_follow_the_flags() {
    let (_, size) =
        one("SETCONVOLUTIONKERNELMONO { dwWidth=3 dwHeight=2 dwFlags=2 col=[1.0 1.0] }");
    assert_eq!(size, 4 + 12 + 8);
}
