//! Fixed-function rules through DrawPrimitives2, each checked on pixels
//! against values worked out by hand from the Direct3D documentation:
//! the alpha reference, vertex fog distances, pre-transformed vertices
//! (rhw = 0, near/far clipping), normals, mip levels, specular power 0 and
//! declaration colour types.

mod common;

use common::*;

#[test]
fn alpharef_uses_its_low_8_bits() {
    // D3DRS_ALPHAREF is a D3DCOLOR-sized DWORD of which only the low 8
    // bits are the reference: 0xff70 means 0x70. With ALPHAFUNC =
    // GREATEREQUAL a pixel of alpha 0x80 passes (0x80 ≥ 0x70) and one of
    // alpha 0x60 fails (0x60 < 0x70). A reference clamped to 255 would
    // reject both.
    let mut s = Scene::new(16, 16, false);
    let mut v = quad(0.0, 0.0, 8.0, 16.0, 0.5, 0x80ff_0000);
    v.extend(quad(8.0, 0.0, 16.0, 16.0, 0.5, 0x6000_ff00));
    let mut rs = [0u32; 256];
    let cmds = asm(&format!(
        "{NOCULL}RENDERSTATE {{ RenderState=D3DRS_ALPHATESTENABLE dwState=TRUE }} \
         {{ RenderState=D3DRS_ALPHAFUNC dwState=D3DCMP_GREATEREQUAL }} \
         {{ RenderState=D3DRS_ALPHAREF dwState=0xff70 }}\n\
         TRIANGLELIST count=4 wVStart=0"
    ));
    s.run_full(
        &cmds,
        0,
        &v,
        softhal_device::D3DHALDP2_EXECUTEBUFFER,
        Some(&mut rs),
    )
    .ok();
    assert_eq!(s.px(3, 3), 0x80ff_0000, "alpha 0x80 ≥ 0x70: drawn");
    assert_eq!(s.px(12, 3), 0, "alpha 0x60 < 0x70: rejected");
    assert_eq!(rs[24], 0x70, "lpdwRStates shows the honoured value");
}

#[test]
fn material_power_0_is_the_specular_exponent_0() {
    // specular = Ms·Ls·(N·H)^P where N·L > 0 and N·H > 0 (D3DMATERIAL9
    // Power, "Mathematics of Lighting"). N = (0, 0, −1), a directional
    // light along +z gives L = (0, 0, −1), N·L = 1; with LOCALVIEWER the
    // view vector of a point at z = 0.5 in front of the eye has N·H > 0.
    // P = 0: (N·H)^0 = 1, so specular = Ms·Ls = (0, 1, 0) (green), added
    // to a black diffuse (material diffuse and ambient 0) under
    // SPECULARENABLE: the pixel is 0xff00ff00 exactly (no rounding: every
    // term is 0 or 1).
    let mut s = Scene::new(4, 4, false);
    let v = lit_triangle();
    let src = format!(
        "{NOCULL}VIEWPORTINFO {{ dwX=0 dwY=0 dwWidth=4 dwHeight=4 }}\n\
         RENDERSTATE {{ RenderState=D3DRS_LIGHTING dwState=TRUE }} {{ RenderState=D3DRS_AMBIENT dwState=0 }} \
         {{ RenderState=D3DRS_SPECULARENABLE dwState=TRUE }}\n\
         SETMATERIAL {{ dcvDiffuse.a=1.0 dcvSpecular.r=1.0 dcvSpecular.g=1.0 dcvSpecular.b=1.0 dvPower=0.0 }}\n\
         CREATELIGHT {{ dwIndex=0 }}\n\
         SETLIGHT {{ dwIndex=0 light={{ dltType=DIRECTIONAL dcvSpecular.g=1.0 dvDirection.z=1.0 }} }} {{ dwIndex=0 dwDataType=ENABLE }}\n\
         TRIANGLELIST count=1 wVStart=0\n"
    );
    s.run_fvf(&src, FVF_XYZN, 24, &v).ok();
    assert_eq!(s.px(1, 1), 0xff00_ff00, "Power 0: full highlight");
}

/// FOGENABLE with LINEAR vertex fog from `start` to `end`, fog colour
/// green, no culling, a 16×16 viewport.
fn vertex_fog(start: f32, end: f32) -> String {
    format!(
        "{NOCULL}VIEWPORTINFO {{ dwWidth=16 dwHeight=16 }}\n\
         RENDERSTATE {{ RenderState=D3DRS_FOGENABLE dwState=TRUE }} {{ RenderState=D3DRS_FOGCOLOR dwState=0xff00ff00 }} \
         {{ RenderState=D3DRS_FOGTABLEMODE dwState=D3DFOG_NONE }} {{ RenderState=D3DRS_FOGVERTEXMODE dwState=D3DFOG_LINEAR }} \
         {{ RenderState=D3DRS_FOGSTART dwState={start:?} }} {{ RenderState=D3DRS_FOGEND dwState={end:?} }}\n"
    )
}

/// Channel `shift` (16 red, 8 green, 0 blue) of an A8R8G8B8 pixel.
fn ch(c: u32, shift: u32) -> i32 {
    ((c >> shift) & 0xff) as i32
}

#[test]
fn vertex_fog_uses_the_distance_abs_z_behind_the_eye() {
    // Identity transforms: camera space = clip space, w = 1. With
    // CLIPPING FALSE the left half at camera z = −0.5 (behind the eye) is
    // drawn; the right half is at z = +0.5. Vertex fog distance is |z| =
    // 0.5 for both: f = (end − d)/(end − start) = (1 − 0.5)/(1 − 0) = 0.5,
    // colour = f·red + (1 − f)·green = (127.5, 127.5, 0). Tolerance ±1 per
    // channel (the factor is carried as f·255 and blended in 8 bits). The
    // signed z would give f = 1.5 → 1: pure red on the left.
    let mut s = Scene::new(16, 16, false);
    let mut v = xyz_quad(-1.0, -1.0, 0.0, 1.0, -0.5, 0xffff_0000);
    v.extend(xyz_quad(0.0, -1.0, 1.0, 1.0, 0.5, 0xffff_0000));
    let src = format!(
        "{}RENDERSTATE {{ RenderState=D3DRS_CLIPPING dwState=FALSE }}\nTRIANGLELIST count=4 wVStart=0\n",
        vertex_fog(0.0, 1.0)
    );
    s.run_fvf(&src, FVF_L, 16, &v).ok();
    for (x, what) in [(3, "z = −0.5, behind the eye"), (12, "z = +0.5")] {
        let c = s.px(x, 8);
        assert!(
            (ch(c, 16) - 127).abs() <= 1 && (ch(c, 8) - 127).abs() <= 1 && ch(c, 0) == 0,
            "{what}: {c:08x}"
        );
    }
}

#[test]
fn vertex_fog_with_fogstart_equal_to_fogend_fogs_everything() {
    // LINEAR vertex fog with FOGSTART = FOGEND = 0.5 fogs every vertex
    // fully (f = 0), also those nearer than FOGEND: a quad at z = 0.25 is
    // exactly the fog colour. (Table fog keeps f = 1 for d < FOGEND.)
    let mut s = Scene::new(16, 16, false);
    let v = xyz_quad(-1.0, -1.0, 1.0, 1.0, 0.25, 0xffff_0000);
    let src = format!("{}TRIANGLELIST count=2 wVStart=0\n", vertex_fog(0.5, 0.5));
    s.run_fvf(&src, FVF_L, 16, &v).ok();
    assert_eq!(s.count(0xff00_ff00), 256, "{:08x}", s.px(8, 8));
}

#[test]
fn normals_use_the_inverse_transpose_of_the_whole_4x4_world_view() {
    // World = identity with _34 = 1 and _43 = −1 (not affine), view and
    // projection identity. Blockwise, World = [[A, b], [t, d]] with A = I,
    // b = (0, 0, 1)ᵀ, t = (0, 0, −1), d = 1; the upper-left 3×3 of its
    // inverse is (A − b·t/d)⁻¹ = diag(1, 1, 2)⁻¹ = diag(1, 1, 0.5)
    // (symmetric, so also of the inverse transpose). The normal (0, 0, −1)
    // becomes (0, 0, −0.5) (NORMALIZENORMALS off): a directional light
    // along +z (L = (0, 0, −1)) gives N·L = 0.5, diffuse = 0.5 × red =
    // 127.5 → 127 or 128 (tolerance ±1). The upper-left 3×3 alone (A = I)
    // would give N·L = 1, full red.
    // Positions: (x, y, 1.5, 1)·World = (x, y, 0.5, 2.5), inside the
    // clip volume; x, y ∈ {−3, 9} cover the viewport after the divide.
    let v: Vec<u8> = [(-3.0f32, -3.0f32), (-3.0, 9.0), (9.0, -3.0)]
        .iter()
        .flat_map(|&(x, y)| [x, y, 1.5, 0.0, 0.0, -1.0])
        .flat_map(f32::to_le_bytes)
        .collect();
    let mut s = Scene::new(4, 4, false);
    let src = format!(
        "{NOCULL}VIEWPORTINFO {{ dwX=0 dwY=0 dwWidth=4 dwHeight=4 }}\n\
         SETTRANSFORM {{ xfrmType=D3DTS_WORLD _11=1.0 _22=1.0 _33=1.0 _34=1.0 _43=-1.0 _44=1.0 }}\n\
         RENDERSTATE {{ RenderState=D3DRS_LIGHTING dwState=TRUE }} {{ RenderState=D3DRS_AMBIENT dwState=0 }}\n\
         SETMATERIAL {{ dcvDiffuse.r=1.0 dcvDiffuse.g=1.0 dcvDiffuse.b=1.0 dcvDiffuse.a=1.0 }}\n\
         CREATELIGHT {{ dwIndex=0 }}\n\
         SETLIGHT {{ dwIndex=0 light={{ dltType=DIRECTIONAL dcvDiffuse.r=1.0 dvDirection.z=1.0 }} }} {{ dwIndex=0 dwDataType=ENABLE }}\n\
         TRIANGLELIST count=1 wVStart=0\n"
    );
    s.run_fvf(&src, FVF_XYZN, 24, &v).ok();
    for (x, y) in [(0, 0), (2, 2), (3, 3)] {
        let c = s.px(x, y);
        assert!(
            (ch(c, 16) - 127).abs() <= 1 && ch(c, 8) == 0 && ch(c, 0) == 0,
            "({x}, {y}): {c:08x}"
        );
    }
}

/// A quad (x0, 0)–(x1, 16) of pre-transformed positions (FLOAT4, rhw 1)
/// each followed by the bytes `colour`: 6 vertices, triangle list.
fn decl_quad(x0: f32, x1: f32, colour: &[u8]) -> Vec<u8> {
    [
        (x0, 0.0),
        (x1, 0.0),
        (x0, 16.0),
        (x1, 0.0),
        (x1, 16.0),
        (x0, 16.0),
    ]
    .iter()
    .flat_map(|&(x, y)| {
        let mut v: Vec<u8> = [x, y, 0.5, 1.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        v.extend_from_slice(colour);
        v
    })
    .collect()
}

#[test]
fn declaration_colours_of_other_types_are_converted() {
    // D3DDECLTYPE semantics (d3d9types.h / "D3DDECLTYPE"): UBYTE4N is
    // four bytes x, y, z, w each / 255; USHORT4N four u16 / 65535; FLOAT4
    // four floats. A colour element takes (x, y, z, w) as (r, g, b, a),
    // saturated to [0, 1]. So:
    // * UBYTE4N [255, 0, 0, 255] → red 0xffff0000;
    // * USHORT4N [0, 0x8080, 0, 0xffff] → g = 0x8080/0xffff = 128/255
    //   exactly → 0xff008000;
    // * FLOAT4 [2, −1, 1, 1] → saturated (1, 0, 1, 1) → 0xffff00ff.
    // Exact (no tolerance): every value is a whole number of 1/255.
    let cases: [(&str, u32, Vec<u8>, u32); 3] = [
        ("D3DDECLTYPE_UBYTE4N", 20, vec![255, 0, 0, 255], 0xffff_0000),
        (
            "D3DDECLTYPE_USHORT4N",
            24,
            [0u16, 0x8080, 0, 0xffff]
                .iter()
                .flat_map(|c| c.to_le_bytes())
                .collect(),
            0xff00_8000,
        ),
        (
            "D3DDECLTYPE_FLOAT4",
            32,
            [2.0f32, -1.0, 1.0, 1.0]
                .iter()
                .flat_map(|c| c.to_le_bytes())
                .collect(),
            0xffff_00ff,
        ),
    ];
    for (ty, stride, colour, want) in cases {
        let mut s = Scene::new(16, 16, false);
        let decl = format!(
            "CREATEVERTEXSHADERDECL {{ dwHandle=0x31 {{ Stream=0 Offset=0 Type=D3DDECLTYPE_FLOAT4 Usage=D3DDECLUSAGE_POSITIONT }} \
             {{ Stream=0 Offset=16 Type={ty} Usage=D3DDECLUSAGE_COLOR }} {{ Stream=0xff Type=D3DDECLTYPE_UNUSED }} }}"
        );
        let src = format!(
            "{NOCULL}{decl}\nSETVERTEXSHADERDECL {{ dwHandle=0x31 }}\nSETSTREAMSOURCEUM {{ dwStream=0 dwStride={stride} }}\n\
             DRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }}"
        );
        s.run_fvf(&src, FVF_TL, stride, &decl_quad(0.0, 16.0, &colour))
            .ok();
        assert_eq!(s.count(want), 256, "{ty}: {:08x}", s.px(8, 8));
    }
}

/// A pre-transformed vertex with an explicit rhw ([`FVF_TL`]).
fn tl_rhw(x: f32, y: f32, z: f32, rhw: f32, color: u32) -> Vec<u8> {
    let mut v: Vec<u8> = [x, y, z, rhw]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    v.extend_from_slice(&color.to_le_bytes());
    v
}

#[test]
fn pretransformed_vertices_with_rhw_0_are_drawn_and_table_fogged_by_z() {
    // rhw = 0 (w = 1/rhw unbounded): Windows drivers leave the position
    // undivided (w = 1), so the quad appears. Table fog of pre-transformed
    // vertices uses z: LINEAR from 0 to 1 at z = 0.5 gives f = (1 − 0.5)/(1
    // − 0) = 0.5, colour = 0.5·red + 0.5·green = (127.5, 127.5, 0), ±1 per
    // channel (8-bit blend).
    let mut s = Scene::new(16, 16, false);
    let v: Vec<u8> = [
        (0.0, 0.0),
        (16.0, 0.0),
        (0.0, 16.0),
        (16.0, 0.0),
        (16.0, 16.0),
        (0.0, 16.0),
    ]
    .iter()
    .flat_map(|&(x, y)| tl_rhw(x, y, 0.5, 0.0, 0xffff_0000))
    .collect();
    let src = format!(
        "{NOCULL}RENDERSTATE {{ RenderState=D3DRS_FOGENABLE dwState=TRUE }} {{ RenderState=D3DRS_FOGCOLOR dwState=0xff00ff00 }} \
         {{ RenderState=D3DRS_FOGTABLEMODE dwState=D3DFOG_LINEAR }} \
         {{ RenderState=D3DRS_FOGSTART dwState=0.0 }} {{ RenderState=D3DRS_FOGEND dwState=1.0 }}\n\
         TRIANGLELIST count=2 wVStart=0\n"
    );
    s.run(&src, &v).ok();
    for (x, y) in [(0, 0), (8, 8), (15, 15)] {
        let c = s.px(x, y);
        assert!(
            (ch(c, 16) - 127).abs() <= 1 && (ch(c, 8) - 127).abs() <= 1 && ch(c, 0) == 0,
            "({x}, {y}): {c:08x}"
        );
    }
}

#[test]
fn pretransformed_vertices_are_clipped_to_0_le_z_le_1() {
    // The device reports D3DPMISCCAPS_CLIPTLVERTS (0x200): pre-transformed
    // primitives are clipped against the near and far planes, z ∈ [0, 1].
    // A quad whose z runs from −0.5 at x = 0 to 1.5 at x = 16 (rhw 1, so
    // z is linear in x: z(x) = −0.5 + x/8) keeps only 4 ≤ x ≤ 12: pixel
    // centre 2 (z = −0.25) and 14 (z = 1.25) are clipped, 8 (z = 0.5) is
    // drawn. With CLIPPING FALSE nothing is clipped.
    const MISC_CLIPTLVERTS: u32 = 0x200;
    let mut s = Scene::new(16, 16, false);
    assert_ne!(s.drv.caps().primitive_misc_caps & MISC_CLIPTLVERTS, 0);
    let red = 0xffff_0000;
    let v: Vec<u8> = [
        (0.0, 0.0, -0.5),
        (16.0, 0.0, 1.5),
        (0.0, 16.0, -0.5),
        (16.0, 0.0, 1.5),
        (16.0, 16.0, 1.5),
        (0.0, 16.0, -0.5),
    ]
    .iter()
    .flat_map(|&(x, y, z)| tl_rhw(x, y, z, 1.0, red))
    .collect();
    s.run(&format!("{NOCULL}TRIANGLELIST count=2 wVStart=0\n"), &v)
        .ok();
    for y in [0, 7, 15] {
        assert_eq!(
            [s.px(2, y), s.px(8, y), s.px(14, y)],
            [0, red, 0],
            "row {y}"
        );
    }
    let per_row = (0..16).filter(|&x| s.px(x, 5) == red).count();
    assert!((8..=9).contains(&per_row), "{per_row} pixels of 4 ≤ x ≤ 12");
    let mut s = Scene::new(16, 16, false);
    s.run(
        &format!("{NOCULL}RENDERSTATE {{ RenderState=D3DRS_CLIPPING dwState=FALSE }}\nTRIANGLELIST count=2 wVStart=0\n"),
        &v,
    )
    .ok();
    assert_eq!(s.count(red), 256, "CLIPPING FALSE: not clipped");
}

#[test]
fn dx8_declaration_colours_of_other_types_are_converted() {
    // A DX8 declaration (CREATEVERTEXSHADER, no code): v0 FLOAT3 position
    // (D3DVSD_REG(0, D3DVSDT_FLOAT3) = 0x40020000), v5 (diffuse) FLOAT4
    // (0x40030005). The colour (0, 1, 1, 1) is cyan 0xff00ffff exactly;
    // read as a D3DCOLOR it would be ignored (white).
    let mut s = Scene::new(16, 16, false);
    let decl = [0x2000_0000u32, 0x4002_0000, 0x4003_0005, 0xFFFF_FFFF]
        .iter()
        .flat_map(|t| t.to_le_bytes())
        .map(|b| format!("{b:02x}"))
        .collect::<String>();
    let v: Vec<u8> = [
        (-1.0f32, 1.0f32),
        (1.0, 1.0),
        (-1.0, -1.0),
        (1.0, 1.0),
        (1.0, -1.0),
        (-1.0, -1.0),
    ]
    .iter()
    .flat_map(|&(x, y)| [x, y, 0.5, 0.0, 1.0, 1.0, 1.0])
    .flat_map(f32::to_le_bytes)
    .collect();
    let src = format!(
        "{NOCULL}VIEWPORTINFO {{ dwWidth=16 dwHeight=16 }}\nCREATEVERTEXSHADER {{ dwHandle=0x11 decl=hex:{decl} }}\n\
         SETVERTEXSHADER {{ dwHandle=0x11 }}\nSETSTREAMSOURCEUM {{ dwStream=0 dwStride=28 }}\n\
         DRAWPRIMITIVE {{ primType=D3DPT_TRIANGLELIST VStart=0 PrimitiveCount=2 }}"
    );
    s.run_fvf(&src, FVF_TL, 28, &v).ok();
    assert_eq!(s.count(0xff00_ffff), 256, "{:08x}", s.px(8, 8));
}
