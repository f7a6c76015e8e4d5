//! The W7 and W8 benchmark shaders (`docs/benchmarks.md`, "W7 and W8"): their token streams
//! parse, validate, re-encode to the same DWORDs, and match the assembly
//! given beside them.

use softhal_shader::corpus::*;
use softhal_shader::ir::{Opcode, Profile};

const ALL: [(&str, &str, &[u32]); 3] = [
    ("W7 vs", W7_VS_ASM, W7_VS_TOKENS),
    ("W7 ps", W7_PS_ASM, W7_PS_TOKENS),
    ("W8 ps", W8_PS_ASM, W8_PS_TOKENS),
];

#[test]
fn workload_token_streams_validate_and_reencode_exactly() {
    for (name, _, tokens) in ALL {
        let shader = softhal_shader::parse(tokens).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(shader.to_tokens(), tokens, "{name}");
        softhal_shader::validate(shader).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn workload_streams_have_the_documented_shape() {
    // The workload definition: W7 vs is 236 DWORDs and 47 instructions (plus def and
    // 4 dcl); W8 ps 150 DWORDs and 30 instructions (plus 2 def, 6 dcl).
    assert_eq!(W7_VS_TOKENS.len(), 236);
    assert_eq!(W8_PS_TOKENS.len(), 150);
    let count = |t: &[u32]| {
        softhal_shader::parse(t)
            .unwrap()
            .instructions
            .iter()
            .filter(|i| !i.opcode.is_declaration())
            .count()
    };
    assert_eq!(count(W7_VS_TOKENS), 47);
    assert_eq!(count(W8_PS_TOKENS), 30);
    let w7 = softhal_shader::parse(W7_VS_TOKENS).unwrap();
    assert_eq!(w7.profile, Profile::Vs2_0);
    assert_eq!(w7.instructions[5].opcode, Opcode::Mul);
    assert_eq!(w7.instructions[6].opcode, Opcode::Mova);
}

#[test]
fn workload_assembly_assembles_to_the_documented_tokens() {
    for (name, asm, tokens) in ALL {
        let shader = softhal_shader::text::assemble(asm).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(shader.to_tokens(), tokens, "{name}");
        assert_eq!(shader, softhal_shader::parse(tokens).unwrap(), "{name}");
    }
}

#[test]
fn workload_tokens_disassemble_to_the_documented_assembly() {
    for (name, asm, tokens) in ALL {
        let text = softhal_shader::text::disassemble(&softhal_shader::parse(tokens).unwrap());
        let strip = |s: &str| -> Vec<String> {
            s.lines()
                .map(|l| l.split(';').next().unwrap_or("").trim().to_string())
                .filter(|l| !l.is_empty())
                .collect()
        };
        assert_eq!(strip(&text), strip(asm), "{name}");
        let back = softhal_shader::text::assemble(&text).unwrap();
        assert_eq!(back.to_tokens(), tokens, "{name}");
    }
}
