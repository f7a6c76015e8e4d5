//! Shader code in the DP2 assembly language: CREATEVERTEXSHADER,
//! CREATEVERTEXSHADERFUNC and CREATEPIXELSHADER print their tokens as a
//! `code=asm{ ... }` block of Direct3D shader assembly when the shader
//! validates, as `hex:` otherwise, and both forms assemble back to the same
//! bytes (`docs/dp2-assembly.md` §5.9). CREATEVERTEXSHADER's DirectX 8
//! declaration prints as a `decl=asm{ ... }` block of `D3DVSD_*` macros
//! when it decodes, as `hex:` otherwise.

use proptest::prelude::*;
use softhal_shader::corpus;
use softhal_wire::text::{assemble, disassemble};
use softhal_wire::{decode_all, Command, DecodeOptions};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn le(tokens: &[u32]) -> Vec<u8> {
    tokens.iter().flat_map(|t| t.to_le_bytes()).collect()
}

/// A stream of one command creating a shader from `code` (written as hex).
fn create(mnemonic: &str, code: &[u8]) -> Vec<u8> {
    let decl = if mnemonic == "CREATEVERTEXSHADER" {
        "decl=hex:01000020ffffffff "
    } else {
        ""
    };
    assemble(&format!(
        "{mnemonic} {{ dwHandle=0x10 {decl}code=hex:{} }}",
        hex(code)
    ))
    .unwrap()
}

/// The shader code of every create command in `bytes`.
fn codes(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for cmd in decode_all(bytes, DecodeOptions::default()).unwrap() {
        match cmd.command {
            Command::CreateVertexShader(r) => out.extend(r.iter().map(|x| x.code.to_vec())),
            Command::CreateVertexShaderFunc(r) => out.extend(r.iter().map(|x| x.code.to_vec())),
            Command::CreatePixelShader(r) => out.extend(r.iter().map(|x| x.code.to_vec())),
            _ => {}
        }
    }
    out
}

const CREATES: [&str; 3] = [
    "CREATEVERTEXSHADER",
    "CREATEVERTEXSHADERFUNC",
    "CREATEPIXELSHADER",
];

/// Every program of the shader crate's corpus, as tokens.
fn corpus_tokens() -> Vec<Vec<u32>> {
    let mut all: Vec<Vec<u32>> = corpus::EXAMPLES
        .iter()
        .map(|t| softhal_shader::text::assemble(t).unwrap().to_tokens())
        .collect();
    all.extend(
        [
            corpus::W7_VS_TOKENS,
            corpus::W7_PS_TOKENS,
            corpus::W8_PS_TOKENS,
        ]
        .map(<[u32]>::to_vec),
    );
    all
}

#[test]
fn every_corpus_shader_prints_as_assembly_and_reads_back_to_its_bytes() {
    for tokens in corpus_tokens() {
        let version = softhal_shader::Profile::from_token(tokens[0])
            .unwrap()
            .name();
        for op in CREATES {
            let bytes = create(op, &le(&tokens));
            let d = disassemble(&bytes, None, DecodeOptions::default());
            assert!(d.error.is_none());
            assert!(
                d.text.contains(&format!("code=asm{{\n    {version}\n")),
                "{op} {version}: not printed as assembly:\n{}",
                d.text
            );
            assert!(!d.text.contains("code=hex:"), "{}", d.text);
            assert_eq!(assemble(&d.text).unwrap(), bytes, "{op} {version}");
        }
    }
}

#[test]
fn a_hand_written_stream_with_a_vs_2_0_and_a_ps_2_0_gives_the_tokens_worked_out_by_hand() {
    let src = "\
CREATEVERTEXSHADERFUNC { dwHandle=0x40 code=asm{   # a comment on the opening line
    vs_2_0
    dcl_position v0
    mov oPos, v0            ; the shader's own comment
} }
CREATEPIXELSHADER { dwHandle=0x20 code=asm{
    ps_2_0
    def c1, 1.0, 0.5, 0.0, 1.0
    mul r0, c1, -c0.x
    mov oC0, r0
} }
SETPIXELSHADER { dwHandle=0x20 }
";
    let bytes = assemble(src).unwrap();
    let c = codes(&bytes);
    // Token layouts (docs/shaders.md): a version token is 0xFFFE (vertex)
    // or 0xFFFF (pixel) over major.minor; an SM2 instruction token is the
    // opcode in bits 0-15 and its parameter count in bits 24-27; a
    // register token has bit 31 set, the register type split over bits
    // 28-30 (low three bits) and 11-12 (high two), the write mask in bits
    // 16-19 (destinations) or the swizzle in bits 16-23 (sources, two bits
    // per component, xyzw = 0b11_10_01_00 = 0xE4), the source modifier in
    // bits 24-27, and the index in bits 0-10.
    let vs: [u32; 8] = [
        0xFFFE_0200, // vs_2_0
        0x0200_001F, // dcl (31), 2 parameters
        0x8000_0000, // usage token: bit 31, D3DDECLUSAGE_POSITION (0), index 0
        0x900F_0000, // v0: type 1 (input) << 28, mask xyzw 0xF << 16
        0x0200_0001, // mov (1), 2 parameters
        0xC00F_0000, // oPos: type 4 (rast out) << 28, mask xyzw, index 0 (position)
        0x90E4_0000, // v0: type 1, swizzle xyzw 0xE4 << 16
        0x0000_FFFF, // end
    ];
    let ps: [u32; 15] = [
        0xFFFF_0200, // ps_2_0
        0x0500_0051, // def (81), 5 parameters
        0xA00F_0001, // c1: type 2 (const) << 28, mask xyzw, index 1
        0x3F80_0000, // 1.0
        0x3F00_0000, // 0.5
        0x0000_0000, // 0.0
        0x3F80_0000, // 1.0
        0x0300_0005, // mul (5), 3 parameters
        0x800F_0000, // r0: type 0 (temp), mask xyzw
        0xA0E4_0001, // c1: type 2, swizzle xyzw
        0xA100_0000, // -c0.x: type 2, negate (1) << 24, swizzle xxxx = 0
        0x0200_0001, // mov, 2 parameters
        0x800F_0800, // oC0: type 8 (colour out) = high bits 0b01 << 11, mask xyzw
        0x80E4_0000, // r0, swizzle xyzw
        0x0000_FFFF, // end
    ];
    assert_eq!(c, vec![le(&vs), le(&ps)]);
    // The sizes were derived: dwSize = 32, dwCodeSize = 60.
    let cmds = decode_all(&bytes, DecodeOptions::default()).unwrap();
    assert_eq!(cmds.len(), 3);
    // And the canonical listing prints them as assembly again.
    let d = disassemble(&bytes, None, DecodeOptions::default());
    assert!(d.text.starts_with(
        "000000: D3DDP2OP_CREATEVERTEXSHADERFUNC { dwHandle=0x40 dwSize=32 code=asm{\n    vs_2_0\n    dcl_position v0\n    mov oPos, v0\n} }\n"
    ), "{}", d.text);
    assert_eq!(assemble(&d.text).unwrap(), bytes);
}

#[test]
fn shaders_the_driver_would_refuse_print_as_hex_and_still_round_trip() {
    // ps_2_0 writing r32 (ps_2_0 has 12 temporaries): parses, fails
    // validation. Then a stream with a comment token, and a size that is
    // not whole DWORDs.
    let out_of_range = le(&[
        0xFFFF_0200,
        0x0200_0001,
        0x800F_0020,
        0xA0E4_0000,
        0x0000_FFFF,
    ]);
    let with_comment = le(&[0xFFFF_0200, 0x0001_FFFE, 0x1234_5678, 0x0000_FFFF]);
    let ragged = vec![0x00, 0x02, 0xFF, 0xFF, 0xFF];
    for code in [out_of_range, with_comment, ragged, Vec::new()] {
        for op in CREATES {
            let bytes = create(op, &code);
            let d = disassemble(&bytes, None, DecodeOptions::default());
            assert!(!d.text.contains("code=asm{"), "{}", d.text);
            assert!(
                d.text.contains(&format!("code=hex:{}", hex(&code))),
                "{}",
                d.text
            );
            assert_eq!(assemble(&d.text).unwrap(), bytes);
        }
    }
}

#[test]
fn several_blocks_on_one_command_and_errors_name_their_line() {
    let src = "CREATEPIXELSHADER { dwHandle=1 code=asm{\n  ps_2_0\n  mov oC0, c0\n} } { dwHandle=2 code=asm{\n  ps_2_0\n  mov oC0, c1\n} }\nSETPIXELSHADER { dwHandle=2 }\n";
    let bytes = assemble(src).unwrap();
    assert_eq!(codes(&bytes).len(), 2);
    assert_eq!(
        decode_all(&bytes, DecodeOptions::default()).unwrap().len(),
        2
    );

    // A shader syntax error: the command's first line, and the line in the block.
    let e = assemble(
        "RENDERSTATE\nCREATEPIXELSHADER { dwHandle=1 code=asm{\n  ps_2_0\n  mvo oC0, c0\n} }\n",
    )
    .unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.contains("its line 2"), "{}", e.message);
    // A block that is never closed.
    let e = assemble("CREATEPIXELSHADER { dwHandle=1 code=asm{\n  ps_2_0\n").unwrap_err();
    assert_eq!(e.line, 1);
    assert!(e.message.contains("missing"), "{}", e.message);
    // A block whose opening line goes on is not a block: `asm{` must end it.
    assert!(assemble("CREATEPIXELSHADER { dwHandle=1 code=asm{ ps_2_0 } }\n").is_err());
    // A block with no key.
    assert!(assemble("CREATEPIXELSHADER { dwHandle=1 asm{\n  ps_2_0\n} }\n").is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Corpus shaders with one DWORD replaced: whatever the printer
    /// chooses, the listing assembles back to the bytes; and it chooses
    /// assembly exactly when the tokens validate and re-encode to
    /// themselves.
    #[test]
    fn mutated_corpus_shaders_round_trip_in_whichever_form(
        which in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        word in any::<u32>(),
        op in 0usize..3,
    ) {
        let all = corpus_tokens();
        let mut tokens = which.get(&all).clone();
        let i = at.index(tokens.len());
        tokens[i] = word;
        let bytes = create(CREATES[op], &le(&tokens));
        let d = disassemble(&bytes, None, DecodeOptions::default());
        prop_assert!(d.error.is_none());
        prop_assert_eq!(assemble(&d.text).unwrap(), bytes);
        let validates = softhal_shader::parse_and_validate(&tokens)
            .is_ok_and(|v| v.shader().to_tokens() == tokens);
        prop_assert_eq!(d.text.contains("code=asm{"), validates, "{}", d.text);
    }
}

/// The declaration tokens of every CREATEVERTEXSHADER in `bytes`.
fn decls(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for cmd in decode_all(bytes, DecodeOptions::default()).unwrap() {
        if let Command::CreateVertexShader(r) = cmd.command {
            out.extend(r.iter().map(|x| x.decl.to_vec()));
        }
    }
    out
}

#[test]
fn a_dx8_declaration_written_as_d3dvsd_macros_gives_its_tokens_and_prints_back() {
    let src = "\
CREATEVERTEXSHADER { dwHandle=0x10 decl=asm{
    D3DVSD_STREAM(0)
    D3DVSD_REG(D3DVSDE_POSITION, D3DVSDT_FLOAT3)   ; v0
    D3DVSD_SKIP(1)
    D3DVSD_REG(D3DVSDE_DIFFUSE, D3DVSDT_D3DCOLOR)
    D3DVSD_CONST(4, 1)
        0.0, 1.0, 0.0, 1.0
    D3DVSD_END()
} code=asm{
    vs_1_1
    mov oPos, v0
} }
";
    let bytes = assemble(src).unwrap();
    // D3DVSD_STREAM(0) = 1 << 29; REG(0, FLOAT3 = 2) = 2 << 29 | 2 << 16;
    // SKIP(1) = 2 << 29 | 1 << 28 | 1 << 16; REG(5, D3DCOLOR = 4) = 2 << 29
    // | 4 << 16 | 5; CONST(4, 1) = 4 << 29 | 1 << 25 | 4 and (0, 1, 0, 1)
    // as floats; END = 0xFFFFFFFF.
    let decl: [u32; 10] = [
        0x2000_0000,
        0x4002_0000,
        0x5001_0000,
        0x4004_0005,
        0x8200_0004,
        0,
        0x3F80_0000,
        0,
        0x3F80_0000,
        0xFFFF_FFFF,
    ];
    assert_eq!(decls(&bytes), vec![le(&decl)]);
    // dwDeclSize = 40 bytes, dwCodeSize = 20 (version, mov and its two
    // parameters, end), derived.
    let d = disassemble(&bytes, None, DecodeOptions::default());
    assert!(
        d.text.starts_with(
            "000000: D3DDP2OP_CREATEVERTEXSHADER { dwHandle=0x10 dwDeclSize=40 dwCodeSize=20 decl=asm{\n    D3DVSD_STREAM(0)\n    D3DVSD_REG(D3DVSDE_POSITION, D3DVSDT_FLOAT3)\n    D3DVSD_SKIP(1)\n    D3DVSD_REG(D3DVSDE_DIFFUSE, D3DVSDT_D3DCOLOR)\n    D3DVSD_CONST(4, 1)\n        0.0, 1.0, 0.0, 1.0\n    D3DVSD_END()\n} code=asm{\n    vs_1_1\n"
        ),
        "{}",
        d.text
    );
    assert_eq!(assemble(&d.text).unwrap(), bytes);
}

#[test]
fn declarations_that_do_not_decode_print_as_hex_and_still_round_trip() {
    // No END; a reserved token type (6); a REG of D3DVSDT value 8; a size
    // that is not whole DWORDs; nothing at all.
    let cases = [
        le(&[0x2000_0000, 0x4002_0000]),
        le(&[0xC000_0000, 0xFFFF_FFFF]),
        le(&[0x4008_0000, 0xFFFF_FFFF]),
        vec![0xFF, 0xFF, 0xFF],
        Vec::new(),
    ];
    for decl in cases {
        let bytes = assemble(&format!(
            "CREATEVERTEXSHADER {{ dwHandle=0x10 decl=hex:{} }}",
            hex(&decl)
        ))
        .unwrap();
        let d = disassemble(&bytes, None, DecodeOptions::default());
        assert!(!d.text.contains("decl=asm{"), "{}", d.text);
        assert!(
            d.text.contains(&format!("decl=hex:{}", hex(&decl))),
            "{}",
            d.text
        );
        assert_eq!(assemble(&d.text).unwrap(), bytes);
    }
}

#[test]
fn a_declaration_block_error_names_its_line() {
    let e = assemble(
        "CREATEVERTEXSHADER { dwHandle=0x10 decl=asm{\n  D3DVSD_STREAM(0)\n  D3DVSD_REG(D3DVSDE_POSITION, D3DVSDT_FLOAT9)\n  D3DVSD_END()\n} }\n",
    )
    .unwrap_err();
    assert_eq!(e.line, 1);
    assert!(
        e.message.contains("asm{ block, its line 2"),
        "{}",
        e.message
    );
}
