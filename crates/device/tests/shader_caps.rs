//! The shader caps (D3DCAPS9 through GetDriverInfo2 GETD3DCAPS9) say what
//! the DDK requires of a vs_3_0/ps_3_0 driver, and the shader validator
//! the device creates shaders with agrees with every limit they report:
//! a program exactly at a reported limit is created, one past it is
//! refused.
//!
//! Required values, from the DDK's "Reporting Capabilities for Shader 3
//! Support" and the asm reference pages of vs_3_0/ps_3_0/ps_2_x:
//! VS20Caps = {D3DVS20CAPS_PREDICATION (1), DynamicFlowControlDepth 24,
//! NumTemps 32, StaticFlowControlDepth 4}; PS20Caps = {ARBITRARYSWIZZLE 1 |
//! GRADIENTINSTRUCTIONS 2 | PREDICATION 4 | NODEPENDENTREADLIMIT 8 |
//! NOTEXINSTRUCTIONLIMIT 0x10, 24, 32, 4, NumInstructionSlots 512};
//! MaxVertexShaderConst 256; Max{Vertex,Pixel}Shader30InstructionSlots in
//! 512..=32768 (outside it the driver fails to load);
//! Max{V,P}ShaderInstructionsExecuted at least 2^16;
//! VertexTextureFilterCaps MINFPOINT 0x100 | MAGFPOINT 0x0100_0000;
//! DevCaps2 VERTEXELEMENTSCANSHARESTREAMOFFSET 0x40; DeclTypes UBYTE4 1,
//! UBYTE4N 2, SHORT2N 4, SHORT4N 8, FLOAT16_2 0x100, FLOAT16_4 0x200.

mod common;

use softhal_device::Driver;
use softhal_shader::ir::Profile::{self, *};
use softhal_shader::text::assemble;

fn caps() -> softhal_device::Caps {
    Driver::new(common::test_threads()).unwrap().caps()
}

/// Validates `body` under `profile` as the device does at creation
/// (through tokens); the refusal's kind, or None.
fn check(profile: Profile, body: &str) -> Option<&'static str> {
    let text = format!("{}\n{body}", profile.name());
    let shader = assemble(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    softhal_shader::parse_and_validate(&shader.to_tokens())
        .err()
        .map(|e| e.kind())
}

/// `make(limit)` validates and `make(limit + 1)` is refused as `kind`.
fn agrees(profile: Profile, limit: u32, kind: &str, make: impl Fn(u32) -> String) {
    let at = make(limit);
    assert_eq!(check(profile, &at), None, "{profile} at {limit}:\n{at}");
    let over = make(limit + 1);
    assert_eq!(check(profile, &over), Some(kind), "{profile} past {limit}");
}

#[test]
fn the_caps_are_those_the_ddk_requires_of_shader_model_3() {
    let c = caps();
    // D3DVS_VERSION(3, 0) and D3DPS_VERSION(3, 0).
    assert_eq!(c.vertex_shader_version, 0xFFFE_0300);
    assert_eq!(c.pixel_shader_version, 0xFFFF_0300);
    assert_eq!(c.max_vertex_shader_const, 256);
    let v = c.vs20_caps;
    assert_eq!(
        (
            v.caps,
            v.dynamic_flow_control_depth,
            v.num_temps,
            v.static_flow_control_depth
        ),
        (1, 24, 32, 4)
    );
    let p = c.ps20_caps;
    assert_eq!(
        (
            p.caps,
            p.dynamic_flow_control_depth,
            p.num_temps,
            p.static_flow_control_depth,
            p.num_instruction_slots
        ),
        (0x1F, 24, 32, 4, 512)
    );
    for slots in [
        c.max_vertex_shader30_instruction_slots,
        c.max_pixel_shader30_instruction_slots,
    ] {
        assert!((512..=32768).contains(&slots), "{slots}");
    }
    assert!(c.max_vshader_instructions_executed >= 1 << 16);
    assert!(c.max_pshader_instructions_executed >= 1 << 16);
    assert_eq!(
        c.vertex_texture_filter_caps,
        0x100 | 0x200 | 0x0100_0000 | 0x0200_0000
    );
    assert_ne!(c.dev_caps2 & 0x40, 0);
    let required = 0x1 | 0x2 | 0x4 | 0x8 | 0x100 | 0x200;
    assert_eq!(c.decl_types & required, required);
    // ps_1_x registers hold at least [-1, 1]; softhal's are [-8, 8].
    assert_eq!(c.pixel_shader_1x_max_value, 8.0);
}

#[test]
fn the_validator_accepts_every_reported_limit_and_refuses_one_more() {
    let c = caps();
    // Temporaries: r(NumTemps − 1) is the last register.
    for (p, n) in [
        (Vs2_x, c.vs20_caps.num_temps),
        (Ps2_x, c.ps20_caps.num_temps),
    ] {
        agrees(p, n, "register_out_of_range", |k| {
            format!("mov r{}, c0", k - 1)
        });
    }
    // Vertex float constants: c(MaxVertexShaderConst − 1) in every vs_2+.
    for p in [Vs2_0, Vs2_x, Vs3_0] {
        agrees(p, c.max_vertex_shader_const, "register_out_of_range", |k| {
            format!("mov r0, c{}", k - 1)
        });
    }
    // Flow control nested as deep as reported: loop/rep to
    // StaticFlowControlDepth, if to DynamicFlowControlDepth.
    let nested = |open: &'static str, close: &'static str| {
        move |k: u32| format!("{}{}", open.repeat(k as usize), close.repeat(k as usize))
    };
    for (open, close, vs, ps) in [
        (
            "rep i0\n",
            "endrep\n",
            c.vs20_caps.static_flow_control_depth,
            c.ps20_caps.static_flow_control_depth,
        ),
        (
            "if b0\n",
            "endif\n",
            c.vs20_caps.dynamic_flow_control_depth,
            c.ps20_caps.dynamic_flow_control_depth,
        ),
    ] {
        agrees(Vs2_x, vs, "nesting_too_deep", nested(open, close));
        agrees(Ps2_x, ps, "nesting_too_deep", nested(open, close));
    }
    // Instruction slots: that many one-slot `mov`s, the last one writing
    // the output.
    let movs = |out: &'static str| {
        move |k: u32| format!("{}mov {out}, r0\n", "mov r0, c0\n".repeat(k as usize - 1))
    };
    agrees(
        Ps2_x,
        c.ps20_caps.num_instruction_slots,
        "too_many_slots",
        movs("oC0"),
    );
    agrees(
        Ps3_0,
        c.max_pixel_shader30_instruction_slots,
        "too_many_slots",
        movs("oC0"),
    );
    agrees(
        Vs3_0,
        c.max_vertex_shader30_instruction_slots,
        "too_many_slots",
        |k| format!("dcl_position o0\n{}", movs("o0")(k)),
    );
    // Versions above the reported ones are refused.
    for (token, reported) in [
        (0xFFFE_0400u32, c.vertex_shader_version),
        (0xFFFF_0400, c.pixel_shader_version),
    ] {
        assert!(token > reported);
        let e = softhal_shader::parse_and_validate(&[token, 0x0000_FFFF]).unwrap_err();
        assert_eq!(e.kind(), "unsupported_version");
    }
    // The reported versions themselves are accepted (an empty program).
    for token in [c.vertex_shader_version, c.pixel_shader_version] {
        assert!(softhal_shader::parse_and_validate(&[token, 0x0000_FFFF]).is_ok());
    }
}
