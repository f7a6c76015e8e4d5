//! The DirectX 8 vertex shader declaration (`softhal_shader::decl8`): every
//! token kind decoded into the IR, every malformed case rejected at its
//! DWORD, and the text form read back to the same tokens.
//!
//! Expected values are worked out from the token layout (`docs/shaders.md`,
//! "The DirectX 8 vertex shader declaration"): bits 31:29 the token type,
//! 28 the STREAM_TESS / SKIP / TESSUV flag, 27 SKIPBYTES, 19:16 the
//! D3DVSDT type or skip count, 4:0 the register; CONST: 28:25 the count,
//! 6:0 the register; EXT: 28:24 the count, 23:0 the information.

use proptest::prelude::*;
use softhal_shader::decl8::{self, DeclToken, Element, StreamExtent, TessOutput, VsdType};

const END: u32 = 0xFFFF_FFFF;

fn one(tok: &[u32]) -> DeclToken {
    let mut t = tok.to_vec();
    t.push(END);
    let d = decl8::parse(&t).unwrap();
    assert_eq!(d.tokens.len(), 1, "{t:08x?}");
    d.tokens[0].clone()
}

#[test]
fn each_token_kind_decodes() {
    // D3DVSD_NOP() is all zeros.
    assert_eq!(one(&[0]), DeclToken::Nop);
    // D3DVSD_STREAM(3): type 1 << 29 = 0x20000000, stream in 3:0.
    assert_eq!(one(&[0x2000_0003]), DeclToken::Stream(3));
    // D3DVSD_STREAM_TESS(): type 1 and bit 28.
    assert_eq!(one(&[0x3000_0000]), DeclToken::StreamTess);
    // D3DVSD_REG(D3DVSDE_NORMAL = 3, D3DVSDT_FLOAT3 = 2): 0x40000000 | 2 << 16 | 3.
    assert_eq!(
        one(&[0x4002_0003]),
        DeclToken::Reg {
            register: 3,
            ty: VsdType::Float3
        }
    );
    // D3DVSD_REG(D3DVSDE_NORMAL2 = 16, D3DVSDT_SHORT4 = 7).
    assert_eq!(
        one(&[0x4007_0010]),
        DeclToken::Reg {
            register: 16,
            ty: VsdType::Short4
        }
    );
    // D3DVSD_SKIP(2): 0x40000000 | 0x10000000 | 2 << 16.
    assert_eq!(one(&[0x5002_0000]), DeclToken::Skip(2));
    // D3DVSD_SKIPBYTES(3) (Xbox): the skip token with bit 27 too.
    assert_eq!(one(&[0x5803_0000]), DeclToken::SkipBytes(3));
    // D3DVSD_CONST(4, 1): 0x80000000 | 1 << 25 | 4, then 4 DWORDs.
    assert_eq!(
        one(&[0x8200_0004, 1, 2, 3, 4]),
        DeclToken::Const {
            register: 4,
            values: vec![[1, 2, 3, 4]]
        }
    );
    // D3DVSD_CONST(95, 0): no data.
    assert_eq!(
        one(&[0x8000_005F]),
        DeclToken::Const {
            register: 95,
            values: vec![]
        }
    );
    // D3DVSD_TESSNORMAL(1, 3): 0x60000000 | 1 << 20 | FLOAT3 (2) << 16 | 3.
    assert_eq!(
        one(&[0x6012_0003]),
        DeclToken::TessNormal {
            input: 1,
            output: 3
        }
    );
    // D3DVSD_TESSUV(7): 0x60000000 | 0x10000000 | FLOAT2 (1) << 16 | 7.
    assert_eq!(one(&[0x7001_0007]), DeclToken::TessUv(7));
    // An extension token: 0xA0000000 | 2 << 24 | info 0x123, two DWORDs.
    assert_eq!(
        one(&[0xA200_0123, 7, 8]),
        DeclToken::Ext {
            info: 0x123,
            data: vec![7, 8]
        }
    );
    // D3DVSD_END() alone: an empty declaration.
    let d = decl8::parse(&[END]).unwrap();
    assert!(d.tokens.is_empty() && d.elements.is_empty() && d.streams.is_empty());
}

/// The DDK's own example, then a second stream: stream 0 is FLOAT3 v3,
/// FLOAT3 v4, 2 skipped DWORDs, FLOAT2 v7; stream 1 is a D3DCOLOR v5, 2
/// skipped bytes, a D3DCOLOR v6; CONST c10 = (1, 2, 0.5, 0), c11 = (-1,
/// 3, 4, 0.25); the tessellator writes a normal from v3 into v9 and (u, v) into v8.
fn example() -> Vec<u32> {
    vec![
        0x2000_0000, // STREAM(0)
        0x4002_0003, // REG(3, FLOAT3)
        0x4002_0004, // REG(4, FLOAT3)
        0x5002_0000, // SKIP(2)
        0x4001_0007, // REG(7, FLOAT2)
        0x2000_0001, // STREAM(1)
        0x4004_0005, // REG(5, D3DCOLOR)
        0x5802_0000, // SKIPBYTES(2)
        0x4004_0006, // REG(6, D3DCOLOR)
        0x0000_0000, // NOP
        0x8400_000A, // CONST(10, 2)
        0x3F80_0000, // 1.0
        0x4000_0000, // 2.0
        0x3F00_0000, // 0.5
        0x0000_0000, // 0.0
        0xBF80_0000, // -1.0
        0x4040_0000, // 3.0
        0x4080_0000, // 4.0
        0x3E80_0000, // 0.25
        0x3000_0000, // STREAM_TESS
        0x6032_0009, // TESSNORMAL(3, 9)
        0x7001_0008, // TESSUV(8)
        END,
    ]
}

#[test]
fn a_declaration_gives_its_elements_constants_tessellator_and_streams() {
    let d = decl8::parse(&example()).unwrap();
    let el = |stream, offset, ty, register| Element {
        stream,
        offset,
        ty,
        register,
    };
    assert_eq!(
        d.elements,
        vec![
            // Stream 0: v3 at 0 (12 bytes), v4 at 12, skip 8 bytes (24..32), v7 at 32.
            el(0, 0, VsdType::Float3, 3),
            el(0, 12, VsdType::Float3, 4),
            el(0, 32, VsdType::Float2, 7),
            // Stream 1: v5 at 0 (4 bytes), skip 2 bytes, v6 at 6.
            el(1, 0, VsdType::D3dColor, 5),
            el(1, 6, VsdType::D3dColor, 6),
        ]
    );
    assert_eq!(
        d.constants,
        vec![
            (10, [0x3F80_0000, 0x4000_0000, 0x3F00_0000, 0]),
            (11, [0xBF80_0000, 0x4040_0000, 0x4080_0000, 0x3E80_0000])
        ]
    );
    assert_eq!(
        d.tessellator,
        vec![
            TessOutput::Normal {
                input: 3,
                output: 9
            },
            TessOutput::Uv { register: 8 }
        ]
    );
    // Stream 0 describes 32 + 8 = 40 bytes, stream 1 6 + 4 = 10.
    assert_eq!(
        d.streams,
        vec![
            StreamExtent {
                stream: 0,
                bytes: 40
            },
            StreamExtent {
                stream: 1,
                bytes: 10
            }
        ]
    );
    assert_eq!(
        (d.stream_bytes(0), d.stream_bytes(1), d.stream_bytes(2)),
        (40, 10, 0)
    );
    assert_eq!(d.to_tokens(), example());
}

#[test]
fn a_stream_selected_again_resumes_where_it_stopped_and_data_before_any_stream_is_stream_0() {
    // REG(0, FLOAT3) before any STREAM: stream 0 at 0. STREAM(2), REG(5,
    // D3DCOLOR) at 0. STREAM(0), REG(7, FLOAT2): stream 0 resumes at 12.
    let d = decl8::parse(&[
        0x4002_0000,
        0x2000_0002,
        0x4004_0005,
        0x2000_0000,
        0x4001_0007,
        END,
    ])
    .unwrap();
    let offsets: Vec<(u8, u32, u8)> = d
        .elements
        .iter()
        .map(|e| (e.stream, e.offset, e.register))
        .collect();
    assert_eq!(offsets, vec![(0, 0, 0), (2, 0, 5), (0, 12, 7)]);
    assert_eq!(d.stream_bytes(0), 20);
}

#[test]
fn malformed_declarations_fail_at_the_offending_dword() {
    let cases: &[(&[u32], &str, usize)] = &[
        (&[], "missing_end", 0),
        (&[0x2000_0000, 0x4002_0000], "missing_end", 2),
        (&[END, 0], "trailing_tokens", 1),
        // Token type 6 is reserved.
        (&[0x2000_0000, 0xC000_0000, END], "malformed_token", 1),
        // Type 7 is only the all-ones END.
        (&[0xE000_0000, END], "malformed_token", 0),
        // A NOP with a bit set.
        (&[0x2000_0000, 0x0000_0001, END], "malformed_token", 1),
        // STREAM with bit 4 set; STREAM_TESS with a stream number.
        (&[0x2000_0010, END], "malformed_token", 0),
        (&[0x3000_0001, END], "malformed_token", 0),
        // REG of D3DVSDT value 8 (DirectX 8 has 0..=7).
        (&[0x2000_0000, 0x4008_0000, END], "malformed_token", 1),
        // REG of register 17 (D3DVSDE_NORMAL2 = 16 is the last).
        (&[0x2000_0000, 0x4002_0011, END], "register_out_of_range", 1),
        // REG with bit 5, or bit 20, set.
        (&[0x4002_0020, END], "malformed_token", 0),
        (&[0x4012_0000, END], "malformed_token", 0),
        // SKIP with a register field.
        (&[0x5002_0001, END], "malformed_token", 0),
        // CONST(0, 1) needs 4 DWORDs; 3 (END included) remain.
        (
            &[0x2000_0000, 0x8200_0000, 1, 2, END],
            "declaration_data_overrun",
            1,
        ),
        // CONST with bit 7 set.
        (&[0x8000_0080, END], "malformed_token", 0),
        // An extension of 3 DWORDs with 2 after it.
        (&[0xA300_0000, 1, END], "declaration_data_overrun", 0),
        // TESSNORMAL must be FLOAT3, TESSUV FLOAT2.
        (&[0x6011_0003, END], "malformed_token", 0),
        (&[0x7002_0007, END], "malformed_token", 0),
        // TESSUV of register 17.
        (&[0x7001_0011, END], "register_out_of_range", 0),
        // Stream data in the tessellator stream.
        (
            &[0x3000_0000, 0x7001_0007, 0x4002_0000, END],
            "bad_declaration",
            2,
        ),
        (&[0x3000_0000, 0x5001_0000, END], "bad_declaration", 1),
    ];
    for (tokens, kind, dword) in cases {
        let e = decl8::parse(tokens).unwrap_err();
        assert_eq!((e.kind(), e.dword), (*kind, *dword), "{tokens:08x?}: {e}");
        assert_eq!(e.byte_offset(), dword * 4);
    }
}

/// The example's text, written by hand from the macro names.
const EXAMPLE_TEXT: &str = "\
D3DVSD_STREAM(0)
D3DVSD_REG(D3DVSDE_NORMAL, D3DVSDT_FLOAT3)
D3DVSD_REG(D3DVSDE_PSIZE, D3DVSDT_FLOAT3)
D3DVSD_SKIP(2)
D3DVSD_REG(D3DVSDE_TEXCOORD0, D3DVSDT_FLOAT2)
D3DVSD_STREAM(1)
D3DVSD_REG(D3DVSDE_DIFFUSE, D3DVSDT_D3DCOLOR)
D3DVSD_SKIPBYTES(2)
D3DVSD_REG(D3DVSDE_SPECULAR, D3DVSDT_D3DCOLOR)
D3DVSD_NOP()
D3DVSD_CONST(10, 2)
    1.0, 2.0, 0.5, 0.0
    -1.0, 3.0, 4.0, 0.25
D3DVSD_STREAM_TESS()
D3DVSD_TESSNORMAL(D3DVSDE_NORMAL, D3DVSDE_TEXCOORD2)
D3DVSD_TESSUV(D3DVSDE_TEXCOORD1)
D3DVSD_END()
";

#[test]
fn disassembly_names_tokens_registers_and_types() {
    let d = decl8::parse(&example()).unwrap();
    assert_eq!(decl8::disassemble(&d), EXAMPLE_TEXT);
}

#[test]
fn constants_print_as_floats_or_hex_and_extensions_as_hex() {
    // 1.0 = 0x3f800000, -0.0 = 0x80000000, a NaN (0x7fc00001) and +inf
    // (0x7f800000) print in hex.
    let t = [
        0x8200_0004,
        0x3F80_0000,
        0x8000_0000,
        0x7FC0_0001,
        0x7F80_0000,
        0xA200_0005,
        0xDEAD_BEEF,
        0,
        END,
    ];
    let d = decl8::parse(&t).unwrap();
    let text = decl8::disassemble(&d);
    assert_eq!(
        text,
        "D3DVSD_CONST(4, 1)\n    1.0, -0.0, 0x7fc00001, 0x7f800000\n\
         D3DVSD_EXT(0x000005, 2)\n    0xdeadbeef, 0x00000000\nD3DVSD_END()\n"
    );
    assert_eq!(decl8::assemble(&text).unwrap().to_tokens(), t);
}

#[test]
fn text_reads_back_to_the_same_tokens() {
    let d = decl8::assemble(EXAMPLE_TEXT).unwrap();
    assert_eq!(d.to_tokens(), example());
    assert_eq!(d, decl8::parse(&example()).unwrap());
    // Register numbers, lower case, comments and blank lines are accepted.
    let d = decl8::assemble(
        "; position and colour\nd3dvsd_stream(0)\n\nD3DVSD_REG(0, D3DVSDT_FLOAT3) // v0\nD3DVSD_REG(5, d3dvsdt_d3dcolor)\nD3DVSD_END()",
    )
    .unwrap();
    assert_eq!(d.to_tokens(), [0x2000_0000, 0x4002_0000, 0x4004_0005, END]);
}

#[test]
fn text_errors_name_their_line() {
    let cases: &[(&str, usize)] = &[
        ("D3DVSD_STREAM(0)\nD3DVSD_FOO(1)\nD3DVSD_END()", 2),
        ("D3DVSD_STREAM(16)\nD3DVSD_END()", 1),
        (
            "D3DVSD_REG(D3DVSDE_POSITION, D3DVSDT_FLOAT5)\nD3DVSD_END()",
            1,
        ),
        ("D3DVSD_REG(17, D3DVSDT_FLOAT3)\nD3DVSD_END()", 1),
        // CONST(0, 1) with 3 values.
        ("D3DVSD_CONST(0, 1)\n  1.0, 2.0, 3.0\nD3DVSD_END()", 1),
        // Five values for one register.
        (
            "D3DVSD_CONST(0, 1)\n  1.0, 2.0, 3.0, 4.0, 5.0\nD3DVSD_END()",
            2,
        ),
        ("1.0\nD3DVSD_END()", 1),
        ("D3DVSD_STREAM(0)\nD3DVSD_END()\nD3DVSD_NOP()", 3),
        ("D3DVSD_STREAM(0)\n", 1),
        // The walk's rule: no stream data after STREAM_TESS.
        ("D3DVSD_STREAM_TESS()\n\nD3DVSD_SKIP(1)\nD3DVSD_END()", 3),
    ];
    for (text, line) in cases {
        let e = decl8::assemble(text).unwrap_err();
        match e.kind {
            softhal_shader::ErrorKind::Syntax { line: l, .. } => {
                assert_eq!(l, *line, "{text}: {e}")
            }
            _ => panic!("{text}: {e}"),
        }
    }
}

/// One well-formed token of each kind, chosen by `pick`, with `a`/`b` as
/// its fields.
fn well_formed(pick: u8, a: u32, b: u32) -> Vec<u32> {
    match pick % 10 {
        0 => vec![0],
        1 => vec![0x2000_0000 | (a & 0xF)],
        2 => vec![0x3000_0000],
        3 => vec![0x4000_0000 | ((b % 8) << 16) | (a % 17)],
        4 => vec![0x5000_0000 | ((a & 0xF) << 16)],
        5 => vec![0x5800_0000 | ((a & 0xF) << 16)],
        6 => {
            let n = b % 3;
            let mut v = vec![0x8000_0000 | (n << 25) | (a & 0x7F)];
            v.extend((0..n * 4).map(|i| a.wrapping_mul(i + 7) ^ b));
            v
        }
        7 => vec![0x6002_0000 | ((b & 0xF) << 20) | (a % 17)],
        8 => vec![0x7001_0000 | (a % 17)],
        _ => {
            let n = b % 4;
            let mut v = vec![0xA000_0000 | (n << 24) | (a & 0xFF_FFFF)];
            v.extend((0..n).map(|i| a ^ i));
            v
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random DWORDs never panic; whatever parses prints and reads back
    /// to the same tokens.
    #[test]
    fn random_tokens_never_panic_and_what_parses_round_trips(
        mut t in proptest::collection::vec(any::<u32>(), 0..24),
        end in any::<bool>(),
    ) {
        if end {
            t.push(END);
        }
        if let Ok(d) = decl8::parse(&t) {
            prop_assert_eq!(d.to_tokens(), t.clone());
            let again = decl8::assemble(&decl8::disassemble(&d)).unwrap();
            prop_assert_eq!(again.to_tokens(), t);
        }
    }

    /// Declarations built from well-formed tokens of every kind (stream
    /// data kept out of the tessellator stream) parse, and text and tokens
    /// round-trip.
    #[test]
    fn well_formed_declarations_round_trip(
        picks in proptest::collection::vec((any::<u8>(), any::<u32>(), any::<u32>()), 0..16),
    ) {
        let mut t = Vec::new();
        let mut tess = false;
        for (pick, a, b) in picks {
            let mut tok = well_formed(pick, a, b);
            let data = matches!(pick % 10, 3..=5);
            if tess && data {
                tok.insert(0, 0x2000_0000);
            }
            tess = match pick % 10 {
                2 => true,
                1 => false,
                _ => tess && !data,
            };
            t.extend(tok);
        }
        t.push(END);
        let d = decl8::parse(&t).unwrap();
        prop_assert_eq!(d.to_tokens(), t.clone());
        let text = decl8::disassemble(&d);
        let again = decl8::assemble(&text).unwrap();
        prop_assert_eq!(&again, &d);
        prop_assert_eq!(again.to_tokens(), t);
    }
}
