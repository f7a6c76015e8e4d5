//! `softhal disasm / validate / asm` on shader tokens and shader assembly,
//! and `softhal info` listing the shaders a capture creates: exit codes,
//! what is printed, the tokens written.

mod common;

use common::{softhal, tmp};

/// ps_2_0 `mov oC0, c0` (docs/shaders.md): version, mov with 2 parameters,
/// oC0 (type 8: high type bits 0b01 << 11, mask xyzw), c0 (type 2 << 28,
/// swizzle xyzw 0xE4 << 16), end.
const PS: [u32; 5] = [
    0xFFFF_0200,
    0x0200_0001,
    0x800F_0800,
    0xA0E4_0000,
    0x0000_FFFF,
];

fn write_tokens(name: &str, tokens: &[u32]) -> String {
    let path = tmp(name);
    let bytes: Vec<u8> = tokens.iter().flat_map(|t| t.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    path.to_string_lossy().to_string()
}

/// `softhal info` of the capture `cap`, which must succeed.
fn info_of(cap: &std::path::Path) -> String {
    let o = softhal(&["info", cap.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    stdout(&o)
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

#[test]
fn disasm_of_shader_tokens_prints_the_assembly_detected_by_the_version_token() {
    let f = write_tokens("ps.pso", &PS);
    for args in [vec!["disasm", &f], vec!["disasm", &f, "--shader"]] {
        let o = softhal(&args);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(stdout(&o), "ps_2_0\nmov oC0, c0\n");
    }
    let o = softhal(&["disasm", &f, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!(v["version"], "ps_2_0");
    assert_eq!(v["text"], "ps_2_0\nmov oC0, c0\n");
}

#[test]
fn a_shader_that_breaks_a_rule_is_printed_and_the_rule_is_named() {
    // r32 as the destination: ps_2_0 has 12 temporaries (r0–r11). The
    // register token is the third DWORD: byte offset 8.
    let f = write_tokens(
        "bad.pso",
        &[
            0xFFFF_0200,
            0x0200_0001,
            0x800F_0020,
            0xA0E4_0000,
            0x0000_FFFF,
        ],
    );
    let o = softhal(&["disasm", &f]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "ps_2_0\nmov r32, c0\n");
    let o = softhal(&["validate", &f, "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "register_out_of_range");
    assert_eq!(v["error"]["error_offset"], 8);
    // A stream that ends in the middle of a DWORD.
    let ragged = tmp("ragged.pso");
    std::fs::write(&ragged, [0x00, 0x02, 0xFF, 0xFF, 0x01]).unwrap();
    let o = softhal(&["disasm", ragged.to_str().unwrap(), "--shader"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn validate_reports_version_and_instruction_count() {
    let f = write_tokens("ok.pso", &PS);
    let o = softhal(&["validate", &f, "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["version"], "ps_2_0");
    assert_eq!(v["instructions"], 1);
    assert_eq!(v["tokens"], 5);
}

#[test]
fn asm_of_shader_assembly_writes_the_tokens() {
    let src = tmp("ps.psh");
    std::fs::write(
        &src,
        "; a pixel shader\nps_2_0\nmov oC0, c0 // colour from c0\n",
    )
    .unwrap();
    let out = tmp("ps.pso");
    let o = softhal(&["asm", src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let expected: Vec<u8> = PS.iter().flat_map(|t| t.to_le_bytes()).collect();
    assert_eq!(std::fs::read(&out).unwrap(), expected);
    // A shader that assembles but breaks a rule is refused.
    std::fs::write(&src, "ps_2_0\nmov r32, c0\n").unwrap();
    let o = softhal(&[
        "asm",
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--shader",
    ]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn info_lists_the_shaders_of_a_capture() {
    let cap = tmp("shaders.shcap.txt");
    std::fs::write(
        &cap,
        "\
.capture 1
surface 0x3 command_buffer size=4096
dp2 context=0x10 commands=0x3
  CREATEVERTEXSHADERFUNC { dwHandle=0x40 code=asm{
      vs_2_0
      dcl_position v0
      mov oPos, v0
  } }
  CREATEPIXELSHADER { dwHandle=0x20 code=hex:0002ffff0100000220000f80ffff0000 }
.end
",
    )
    .unwrap();
    let text = info_of(&cap);
    assert!(text.contains("shaders: 2\n"), "{text}");
    assert!(
        text.contains("  record 1 handle 0x40 vertex vs_2_0 (D3DDP2OP_CREATEVERTEXSHADERFUNC), 1 instructions, valid\n"),
        "{text}"
    );
    assert!(text.contains("  record 1 handle 0x20 pixel ps_2_0 (D3DDP2OP_CREATEPIXELSHADER), ? instructions, invalid: "), "{text}");
    let o = softhal(&["info", cap.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let shaders = v["shaders"].as_array().unwrap();
    assert_eq!(shaders.len(), 2);
    assert_eq!(shaders[0]["handle"], 0x40);
    assert_eq!(shaders[0]["version"], "vs_2_0");
    assert_eq!(shaders[0]["instructions"], 1);
    assert_eq!(shaders[1]["valid"], false);
}

#[test]
fn info_lists_a_dx8_shaders_declaration_elements() {
    let cap = tmp("dx8decl.shcap.txt");
    std::fs::write(
        &cap,
        "\
.capture 1
surface 0x3 command_buffer size=4096
dp2 context=0x10 commands=0x3
  CREATEVERTEXSHADER { dwHandle=0x11 decl=asm{
      D3DVSD_STREAM(0)
      D3DVSD_REG(D3DVSDE_POSITION, D3DVSDT_FLOAT3)
      D3DVSD_REG(D3DVSDE_DIFFUSE, D3DVSDT_D3DCOLOR)
      D3DVSD_CONST(4, 1)
          0.0, 1.0, 0.0, 1.0
      D3DVSD_END()
  } code=asm{
      vs_1_1
      mov oPos, v0
  } }
  CREATEVERTEXSHADER { dwHandle=0x12 decl=hex:00000060ffffffff }
.end
",
    )
    .unwrap();
    let text = info_of(&cap);
    // v0 FLOAT3 at byte 0, v5 D3DCOLOR after its 12 bytes; CONST loads c4.
    assert!(
        text.contains(
            "    declaration: 2 element(s), 1 constant register(s)\n      stream 0 offset 0: D3DVSDT_FLOAT3 -> v0 (D3DVSDE_POSITION)\n      stream 0 offset 12: D3DVSDT_D3DCOLOR -> v5 (D3DVSDE_DIFFUSE)\n"
        ),
        "{text}"
    );
    // 0x60000000 is a TESSNORMAL token of type 0 (it must be FLOAT3 = 2).
    assert!(
        text.contains(
            "    declaration: invalid: shader token 0 (byte 0): malformed token 0x60000000"
        ),
        "{text}"
    );
    let o = softhal(&["info", cap.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let d = &v["shaders"][0]["declaration"];
    assert_eq!(d["constants"], 1);
    assert_eq!(d["elements"][1]["offset"], 12);
    assert_eq!(d["elements"][1]["type"], "D3DVSDT_D3DCOLOR");
    assert_eq!(d["elements"][1]["register_name"], "D3DVSDE_DIFFUSE");
    assert!(v["shaders"][1]["declaration"]["error"].is_string());
}
