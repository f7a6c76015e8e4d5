//! Shaders in text captures: a hand-written capture creates a vs_2_0 and a
//! ps_2_0 written as Direct3D shader assembly; it loads to the tokens
//! worked out by hand, its canonical text prints them as assembly again,
//! `info` lists them, and a refused shader survives as hex.

use softhal_capture::record::Record;
use softhal_capture::text::{from_text, to_text};
use softhal_capture::{binary, info};
use softhal_wire::{decode_all, Command, DecodeOptions, Opcode};

const CAPTURE: &str = "\
.capture 1
surface 0x1 render_target format=D3DFMT_X8R8G8B8 width=8 height=8
surface 0x3 command_buffer size=4096
context 0x10 target=0x1
dp2 context=0x10 commands=0x3
  CREATEVERTEXSHADERFUNC { dwHandle=0x40 code=asm{
      vs_2_0
      dcl_position v0
      mov oPos, v0
  } }
  CREATEPIXELSHADER { dwHandle=0x20 code=asm{     # the colour comes from c0
      ps_2_0
      mov oC0, c0                                    ; one instruction
  } }
  CREATEPIXELSHADER { dwHandle=0x21 code=hex:0002ffff0100000220000f80ffff0000 }
.end
";

fn stream(c: &softhal_capture::Capture) -> Vec<u8> {
    c.records
        .iter()
        .find_map(|r| match r {
            Record::DrawPrimitives2 { call, .. } => Some(call.command_bytes.clone()),
            _ => None,
        })
        .unwrap()
}

fn le(tokens: &[u32]) -> Vec<u8> {
    tokens.iter().flat_map(|t| t.to_le_bytes()).collect()
}

#[test]
fn a_hand_written_capture_with_shader_assembly_loads_to_the_tokens_worked_out_by_hand() {
    let c = from_text(CAPTURE, None).unwrap();
    let bytes = stream(&c);
    let mut codes = Vec::new();
    for cmd in decode_all(&bytes, DecodeOptions::default()).unwrap() {
        match cmd.command {
            Command::CreateVertexShaderFunc(r) => codes.extend(r.iter().map(|x| x.code.to_vec())),
            Command::CreatePixelShader(r) => codes.extend(r.iter().map(|x| x.code.to_vec())),
            _ => panic!("unexpected command"),
        }
    }
    // Version tokens 0xFFFE/0xFFFF over major.minor; instruction tokens:
    // opcode in bits 0-15, parameter count in bits 24-27 (SM2); register
    // tokens: bit 31, type bits 28-30 and 11-12, mask 16-19 or swizzle
    // 16-23 (xyzw = 0xE4), index 0-10 (docs/shaders.md).
    let vs = [
        0xFFFE_0200, // vs_2_0
        0x0200_001F, // dcl, 2 parameters
        0x8000_0000, // usage POSITION (0), index 0
        0x900F_0000, // v0 (type 1), mask xyzw
        0x0200_0001, // mov, 2 parameters
        0xC00F_0000, // oPos (type 4, index 0), mask xyzw
        0x90E4_0000, // v0, swizzle xyzw
        0x0000_FFFF, // end
    ];
    let ps = [
        0xFFFF_0200, // ps_2_0
        0x0200_0001, // mov, 2 parameters
        0x800F_0800, // oC0: type 8 = high type bits 0b01 << 11, mask xyzw
        0xA0E4_0000, // c0: type 2 << 28, swizzle xyzw
        0x0000_FFFF, // end
    ];
    // The hex shader is ps_2_0 `mov` (0x02000001) with only one of its
    // two parameters (r32, 0x800F0020) before the end token, which is then
    // read as the source: the stream has no end and does not parse.
    let refused = le(&[0xFFFF_0200, 0x0200_0001, 0x800F_0020, 0x0000_FFFF]);
    assert_eq!(codes[2], refused);
    assert_eq!(codes[0], le(&vs));
    assert_eq!(codes[1], le(&ps));
    assert_eq!(codes.len(), 3);

    // The canonical text prints the valid ones as assembly, the other as
    // hex, and reads back to the same capture (and so does the binary form).
    let text = to_text(&c);
    assert!(
        text.contains("code=asm{\n      vs_2_0\n      dcl_position v0\n      mov oPos, v0\n  } }"),
        "{text}"
    );
    assert!(
        text.contains("code=asm{\n      ps_2_0\n      mov oC0, c0\n  } }"),
        "{text}"
    );
    assert!(
        text.contains("code=hex:0002ffff0100000220000f80ffff0000"),
        "{text}"
    );
    assert_eq!(from_text(&text, None).unwrap(), c);
    assert_eq!(binary::decode(&binary::encode(&c)).unwrap(), c);
}

#[test]
fn info_lists_the_shaders_a_capture_creates() {
    let c = from_text(CAPTURE, None).unwrap();
    let s = info::summarize(&c);
    let rows: Vec<_> = s
        .shaders
        .iter()
        .map(|sh| {
            (
                sh.opcode,
                sh.handle,
                sh.kind,
                sh.version,
                sh.instructions,
                sh.error.is_none(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            // dcl is a declaration, not an instruction: 1 instruction.
            (
                Opcode::CreateVertexShaderFunc,
                0x40,
                "vertex",
                Some("vs_2_0"),
                Some(1),
                true
            ),
            (
                Opcode::CreatePixelShader,
                0x20,
                "pixel",
                Some("ps_2_0"),
                Some(1),
                true
            ),
            (
                Opcode::CreatePixelShader,
                0x21,
                "pixel",
                Some("ps_2_0"),
                None,
                false
            ),
        ]
    );
}

/// A DX8 shader: its declaration as `D3DVSD_*` macros, its code as vs_1_1.
const DX8_CAPTURE: &str = "\
.capture 1
surface 0x3 command_buffer size=4096
dp2 context=0x10 commands=0x3
  CREATEVERTEXSHADER { dwHandle=0x11 decl=asm{
      D3DVSD_STREAM(0)
      D3DVSD_REG(D3DVSDE_POSITION, D3DVSDT_FLOAT3)
      D3DVSD_STREAM(1)
      D3DVSD_SKIP(1)
      D3DVSD_REG(D3DVSDE_TEXCOORD0, D3DVSDT_FLOAT2)
      D3DVSD_END()
  } code=asm{
      vs_1_1
      mov oPos, v0
  } }
.end
";

#[test]
fn a_dx8_declaration_in_a_text_capture_loads_to_its_tokens_and_prints_by_name() {
    let c = from_text(DX8_CAPTURE, None).unwrap();
    let bytes = stream(&c);
    let cmds = decode_all(&bytes, DecodeOptions::default()).unwrap();
    let Command::CreateVertexShader(r) = &cmds[0].command else {
        panic!("not CREATEVERTEXSHADER");
    };
    let rec = r.iter().next().unwrap();
    // STREAM(n) = 1 << 29 | n; REG(r, type) = 2 << 29 | type << 16 | r
    // (FLOAT3 = 2, FLOAT2 = 1, TEXCOORD0 = 7); SKIP(1) = 2 << 29 | 1 << 28
    // | 1 << 16; END = 0xFFFFFFFF.
    assert_eq!(
        rec.decl,
        le(&[
            0x2000_0000,
            0x4002_0000,
            0x2000_0001,
            0x5001_0000,
            0x4001_0007,
            0xFFFF_FFFF
        ])
    );
    let text = to_text(&c);
    assert!(
        text.contains(
            "decl=asm{\n      D3DVSD_STREAM(0)\n      D3DVSD_REG(D3DVSDE_POSITION, D3DVSDT_FLOAT3)\n      D3DVSD_STREAM(1)\n      D3DVSD_SKIP(1)\n      D3DVSD_REG(D3DVSDE_TEXCOORD0, D3DVSDT_FLOAT2)\n      D3DVSD_END()\n  } code=asm{\n      vs_1_1\n"
        ),
        "{text}"
    );
    assert_eq!(from_text(&text, None).unwrap(), c);
    assert_eq!(binary::decode(&binary::encode(&c)).unwrap(), c);

    // info: v0 from stream 0 at byte 0, v7 from stream 1 after the 4
    // skipped bytes.
    let s = info::summarize(&c);
    let d = s.shaders[0].declaration.as_ref().unwrap();
    let els: Vec<_> = d
        .elements
        .iter()
        .map(|e| (e.stream, e.offset, e.ty.name(), e.register))
        .collect();
    assert_eq!(
        els,
        [(0, 0, "D3DVSDT_FLOAT3", 0), (1, 4, "D3DVSDT_FLOAT2", 7)]
    );
    assert_eq!((d.constants, d.error.as_deref()), (0, None));
}
